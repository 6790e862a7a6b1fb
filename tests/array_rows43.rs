//! The rows of a local `vec![[0.0; N]; n]` (a `Vec<[f64; N]>`): a row passed by value to a callee taking
//! `[f64; N]` (`norm2(p[1])`), and rows iterated (`for (i, p) in pos.iter().enumerate()`). The row was
//! handed over as a `Vec` copy, rustc's E0308 ("expected `[f64; 2]`, found `&Vec<f64>`") inside the
//! generated code; it is now the `[f64; N]` it is (`lower/matrices.rs`, `array_row_len`, `HeldAs::Row`).

#![allow(clippy::useless_vec, clippy::needless_range_loop)] // the user forms are the point

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, points};

#[differentiable(order = 2)]
pub fn norm2(a: [f64; 2]) -> f64 {
    a[0] * a[0] + a[1] * a[1]
}

/// `|(x2 x0, x3)|² + |(x0, x1)|²`.
#[differentiable(order = 2)]
pub fn spread(x: &[f64]) -> f64 {
    let mut p = vec![[0.0; 2]; 2];
    p[0] = [x[0], x[1]];
    p[1] = [x[2] * x[0], x[3]];
    norm2(p[1]) + norm2(p[0])
}

/// `Σ (i + 1) x_i + x_i²` over three rows `[x_i, x_i²]`, also written out as `vec![[a, b], ..]`.
#[differentiable(order = 2)]
pub fn firsts(x: &[f64]) -> f64 {
    let mut pos = vec![[0.0; 2]; 3];
    for i in 0..3 {
        pos[i] = [x[i], x[i] * x[i]];
    }
    let mut s = 0.0;
    for (i, p) in pos.iter().enumerate() {
        s += p[0] * (i as f64 + 1.0) + p[1];
    }
    let fixed = vec![[x[0], x[1]], [x[2], x[0]]];
    s + norm2(fixed[1]) - norm2(fixed[1])
}

fn spread_by_hand(x: &[f64]) -> (f64, Vec<f64>) {
    let v = (x[2] * x[0]).powi(2) + x[3] * x[3] + x[0] * x[0] + x[1] * x[1];
    let g = vec![
        2.0 * x[2] * x[2] * x[0] + 2.0 * x[0],
        2.0 * x[1],
        2.0 * x[0] * x[0] * x[2],
        2.0 * x[3],
    ];
    (v, g)
}

#[test]
fn a_row_of_a_local_vec_of_arrays_passed_by_value() {
    for x in points(43_021, 4, 12, -1.5, 1.5) {
        let (v, g) = spread_grad(&x);
        let (hv, hg) = spread_by_hand(&x);
        assert_close(v, hv, 1e-12, "spread: value");
        assert_all_close(&g, &hg, 1e-12, "spread_grad by hand");
        assert_fd_gradient(spread, &x, &g, "spread_grad");
        let (_, _, h) = spread_hessian(&x);
        assert_hessian_fd(&h, |y| spread_grad(y).1, &x, 1e-6, "spread_hessian");
        let mut into = vec![f64::NAN; 4];
        let vi = spread_grad_into(&x, &mut into);
        assert_eq!(vi.to_bits(), v.to_bits());
        for (a, b) in into.iter().zip(&g) {
            assert_eq!(a.to_bits(), b.to_bits(), "spread_grad_into bit for bit");
        }
    }
}

#[test]
fn rows_of_a_local_vec_of_arrays_iterated() {
    for x in points(43_022, 3, 12, -1.5, 1.5) {
        let (v, g) = firsts_grad(&x);
        let by_hand: f64 = (0..3).map(|i| (i as f64 + 1.0) * x[i] + x[i] * x[i]).sum();
        assert_close(v, by_hand, 1e-12, "firsts: value");
        let hand: Vec<f64> = (0..3).map(|i| i as f64 + 1.0 + 2.0 * x[i]).collect();
        assert_all_close(&g, &hand, 1e-12, "firsts_grad by hand");
        assert_fd_gradient(firsts, &x, &g, "firsts_grad");
        let (_, _, h) = firsts_hessian(&x);
        for (i, row) in h.iter().enumerate() {
            for (j, &hij) in row.iter().enumerate() {
                let expected = if i == j { 2.0 } else { 0.0 };
                assert_close(hij, expected, 1e-10, "firsts_hessian by hand");
            }
        }
    }
}
