//! A slice's windows or chunks zipped with a slice or a range (`logits.chunks_exact(k).zip(labels.iter())`,
//! rejected before: trial48's `chunks-zipped`), in `for` loops and iterator chains, with the other side
//! shorter or longer than the windows. Values against plain copies, gradients against central
//! differences on many inputs, a Hessian against differences of `_grad`.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

/// Softmax cross-entropy of a flat batch: each row of `classes` logits with its label.
#[differentiable(wrt(logits))]
fn cross_entropy(logits: &[f64], labels: &[usize], classes: usize) -> f64 {
    let mut total = 0.0;
    for (row, &label) in logits.chunks_exact(classes).zip(labels.iter()) {
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let z: f64 = row.iter().map(|&v| (v - m).exp()).sum();
        total += z.ln() + m - row[label];
    }
    total
}

fn cross_entropy_plain(logits: &[f64], labels: &[usize], classes: usize) -> f64 {
    let mut total = 0.0;
    for (row, &label) in logits.chunks_exact(classes).zip(labels.iter()) {
        let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let z: f64 = row.iter().map(|&v| (v - m).exp()).sum();
        total += z.ln() + m - row[label];
    }
    total
}

/// Weighted squared differences of neighbours, as a chain, at `order = 2`.
#[differentiable(order = 2)]
fn smoothness(x: &[f64], w: &[f64]) -> f64 {
    x.windows(2)
        .zip(w.iter())
        .map(|(p, &c)| c * (p[1] - p[0]) * (p[1] - p[0]))
        .sum()
}

fn smoothness_plain(x: &[f64], w: &[f64]) -> f64 {
    x.windows(2)
        .zip(w.iter())
        .map(|(p, &c)| c * (p[1] - p[0]) * (p[1] - p[0]))
        .sum()
}

/// Chunks with a short last chunk, zipped with weights that may run out first.
#[differentiable]
fn chunked(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (c, &wi) in x.chunks(2).zip(w.iter()) {
        s += wi * c[0] + c.iter().map(|v| v * v).sum::<f64>();
    }
    s
}

fn chunked_plain(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (c, &wi) in x.chunks(2).zip(w.iter()) {
        s += wi * c[0] + c.iter().map(|v| v * v).sum::<f64>();
    }
    s
}

/// Zipped with a range: each chunk with its position counted from 1.
#[differentiable]
fn ranked(x: &[f64]) -> f64 {
    x.chunks_exact(3)
        .zip(1..4)
        .map(|(c, k)| c[0] * c[1] * (k as f64) + c[2].sin())
        .sum()
}

fn ranked_plain(x: &[f64]) -> f64 {
    x.chunks_exact(3)
        .zip(1..4)
        .map(|(c, k)| c[0] * c[1] * (k as f64) + c[2].sin())
        .sum()
}

#[test]
fn cross_entropy_of_chunks_zipped_with_labels() {
    let mut inputs = Inputs(49_101);
    // 4 rows of 3 classes; 4, 3 and 6 labels (the zip stops at the shorter side).
    for labels in [&[0usize, 2, 1, 1][..], &[2, 0, 1], &[1, 1, 0, 2, 0, 1]] {
        for _ in 0..8 {
            let logits = inputs.vec(12).iter().map(|v| 3.0 * v).collect::<Vec<_>>();
            let (value, grad) = cross_entropy_grad(&logits, labels, 3);
            assert_eq!(value, cross_entropy(&logits, labels, 3));
            assert_close(
                value,
                cross_entropy_plain(&logits, labels, 3),
                1e-14,
                "value",
            );
            assert_fd_gradient(
                |x| cross_entropy_plain(x, labels, 3),
                &logits,
                &grad,
                "cross entropy",
            );
            // By hand: softmax minus the one-hot label, for the rows that have a label.
            for (r, row) in logits.chunks_exact(3).enumerate() {
                let z: f64 = row.iter().map(|v| v.exp()).sum();
                for k in 0..3 {
                    let expected = match labels.get(r) {
                        Some(&label) => row[k].exp() / z - if k == label { 1.0 } else { 0.0 },
                        None => 0.0,
                    };
                    assert_close(grad[3 * r + k], expected, 1e-12, "softmax minus one-hot");
                }
            }
        }
    }
}

#[test]
fn windows_zipped_in_a_chain_at_order_2() {
    let mut inputs = Inputs(49_102);
    for n in [2usize, 5, 7] {
        for _ in 0..6 {
            let x = inputs.vec(n);
            // Fewer weights than windows, then more.
            for m in [n / 2, n + 2] {
                let w = inputs.vec(m);
                let (value, grad) = smoothness_grad(&x, &w);
                assert_eq!(value, smoothness(&x, &w));
                assert_close(value, smoothness_plain(&x, &w), 1e-14, "value");
                let mut flat = x.clone();
                flat.extend(&w);
                let split = |p: &[f64]| (p[..n].to_vec(), p[n..].to_vec());
                let mut g = grad.0.clone();
                g.extend(&grad.1);
                assert_fd_gradient(
                    |p| {
                        let (x, w) = split(p);
                        smoothness_plain(&x, &w)
                    },
                    &flat,
                    &g,
                    "smoothness",
                );
                let (_, _, h) = smoothness_hessian(&x, &w);
                assert_hessian_fd(
                    &h,
                    |p| {
                        let (x, w) = split(p);
                        let (_, (gx, gw)) = smoothness_grad(&x, &w);
                        gx.into_iter().chain(gw).collect()
                    },
                    &flat,
                    1e-6,
                    "smoothness hessian",
                );
            }
        }
    }
}

#[test]
fn chunks_with_a_short_last_one_and_a_range() {
    let mut inputs = Inputs(49_103);
    for (n, m) in [(5usize, 3usize), (5, 2), (6, 4), (1, 1)] {
        for _ in 0..8 {
            let (x, w) = (inputs.vec(n), inputs.vec(m));
            let (value, (gx, gw)) = chunked_grad(&x, &w);
            assert_eq!(value, chunked(&x, &w));
            assert_close(value, chunked_plain(&x, &w), 1e-14, "value");
            assert_fd_gradient(|x| chunked_plain(x, &w), &x, &gx, "chunked x");
            assert_fd_gradient(|w| chunked_plain(&x, w), &w, &gw, "chunked w");
        }
    }
    for n in [6usize, 9, 12, 13] {
        for _ in 0..8 {
            let x = inputs.vec(n);
            let (value, grad) = ranked_grad(&x);
            assert_eq!(value, ranked(&x));
            assert_close(value, ranked_plain(&x), 1e-14, "value");
            assert_fd_gradient(ranked_plain, &x, &grad, "ranked");
            // At most three chunks are zipped with 1..4: the rest gets no derivative.
            for i in 9..n {
                assert_eq!(grad[i], 0.0, "past the range");
            }
        }
    }
}
