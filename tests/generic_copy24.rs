//! A function written for `f64` that iterates by reference what a differentiable callee returns
//! (`let w = doubled(x); for v in w.iter() { .. }`) has the generic copy that `order = K` callers need: the
//! result of a function with derivatives holds floats, so the copy takes them out of their references as
//! it does for `x.to_vec()`. Before, the caller at `order = 2` got "`sumsq` has no generic copy". Checked:
//! the callees' gradients against central differences, the callers' Hessians against central differences
//! of their `_grad`, on many points.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_fd_gradient, config, hessian_column};
use proptest::prelude::*;

#[differentiable]
fn doubled(x: &[f64]) -> Vec<f64> {
    let mut w = vec![0.0; x.len()];
    for i in 0..x.len() {
        w[i] = 2.0 * x[i] + x[i] * x[i];
    }
    w
}

#[differentiable]
fn triple(x: f64) -> [f64; 3] {
    [x, x * x, x.sin()]
}

/// Iterates a callee's `Vec` by reference, with `.enumerate()` and beside a zip, and a callee's array.
#[differentiable]
fn sumsq(x: &[f64]) -> f64 {
    let w = doubled(x);
    let mut s = 0.0;
    for v in w.iter() {
        s += v * v;
    }
    for (i, v) in w.iter().enumerate() {
        s += v * x[i];
    }
    for (a, b) in w.iter().zip(x.iter()) {
        s += a * b.cos();
    }
    let t = triple(x[0]);
    for v in t.iter() {
        s += v * x[x.len() - 1];
    }
    s
}

fn sumsq_plain(x: &[f64]) -> f64 {
    let w: Vec<f64> = x.iter().map(|v| 2.0 * v + v * v).collect();
    let mut s: f64 = w.iter().map(|v| v * v).sum();
    s += w.iter().zip(x).map(|(v, xi)| v * xi).sum::<f64>();
    s += w.iter().zip(x).map(|(a, b)| a * b.cos()).sum::<f64>();
    let x0 = x[0];
    s += (x0 + x0 * x0 + x0.sin()) * x[x.len() - 1];
    s
}

#[differentiable(order = 2)]
fn caller(x: f64, y: f64) -> f64 {
    let v = vec![x, 2.0 * y, x * y];
    sumsq(&v) * x
}

#[differentiable(order = 2)]
fn on_slice(x: &[f64]) -> f64 {
    sumsq(x) + sumsq(&x[1..])
}

/// A callee's callee iterating a callee's `Vec` (was UI `order-callee-of-callee-without-generic-copy`).
#[differentiable]
fn powers_of(x: f64) -> Vec<f64> {
    vec![x, x * x, x * x * x]
}

#[differentiable]
fn sum_of_powers(x: f64) -> f64 {
    let powers = powers_of(x);
    let mut s = 0.0;
    for v in powers.iter() {
        s += v * v;
    }
    s
}

#[differentiable]
fn scaled(x: f64, a: f64) -> f64 {
    a * sum_of_powers(x)
}

#[differentiable(order = 2)]
fn top(x: f64) -> f64 {
    scaled(x, 2.0).sin()
}

/// A callee with an output parameter (was UI `order-callee-with-outputs-without-generic-copy`).
#[differentiable]
fn product_and_second(x: &[f64]) -> Vec<f64> {
    vec![x[0] * x[1], x[1]]
}

#[differentiable]
fn scaled_into(x: &[f64], out: &mut [f64]) {
    let w = product_and_second(x);
    for (i, v) in w.iter().enumerate() {
        out[i] = 2.0 * v;
    }
}

#[differentiable(order = 2)]
fn through_output(x: f64) -> f64 {
    let mut k = vec![0.0; 2];
    scaled_into(&[x, x * x], &mut k);
    k[0] * k[1]
}

#[test]
fn chains_by_hand() {
    for x in [-1.3f64, -0.4, 0.2, 0.9, 1.7] {
        // top = sin(2 (x^2 + x^4 + x^6)); through_output = 2x^3 * 2x^2 = 4x^5.
        let p = 2.0 * (x * x + x.powi(4) + x.powi(6));
        let dp = 2.0 * (2.0 * x + 4.0 * x.powi(3) + 6.0 * x.powi(5));
        let ddp = 2.0 * (2.0 + 12.0 * x * x + 30.0 * x.powi(4));
        let [f, d1, d2] = top_derivatives(x);
        assert_eq!(f, top(x));
        assert_all_close(
            &[f, d1, d2],
            &[p.sin(), p.cos() * dp, p.cos() * ddp - p.sin() * dp * dp],
            1e-10,
            "top",
        );
        let [f, d1, d2] = through_output_derivatives(x);
        assert_eq!(f, through_output(x));
        assert_all_close(
            &[f, d1, d2],
            &[4.0 * x.powi(5), 20.0 * x.powi(4), 80.0 * x.powi(3)],
            1e-10,
            "through_output",
        );
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn callee_against_differences(x in prop::collection::vec(-1.5..1.5f64, 1..6)) {
        let (value, g) = sumsq_grad(&x);
        assert_all_close(&[value], &[sumsq_plain(&x)], 1e-12, "value");
        assert_fd_gradient(sumsq_plain, &x, &g, "sumsq");
    }

    #[test]
    fn caller_hessian_against_differences(x in -1.5..1.5f64, y in -1.5..1.5f64) {
        let grad = |v: &[f64]| { let (_, (a, b)) = caller_grad(v[0], v[1]); vec![a, b] };
        let plain = |v: &[f64]| sumsq_plain(&[v[0], 2.0 * v[1], v[0] * v[1]]) * v[0];
        assert_all_close(&[caller(x, y)], &[plain(&[x, y])], 1e-12, "value");
        let (_, (gx, gy)) = caller_grad(x, y);
        assert_fd_gradient(plain, &[x, y], &[gx, gy], "caller");
        let (_, _, h) = caller_hessian(x, y);
        for i in 0..2 {
            let column = hessian_column(grad, &[x, y], i);
            assert_all_close(&[h[0][i], h[1][i]], &column, 1e-6, "Hessian column");
        }
    }

    #[test]
    fn slice_hessian_against_differences(x in prop::collection::vec(-1.5..1.5f64, 2..6)) {
        let (_, g, h) = on_slice_hessian(&x);
        let plain = |v: &[f64]| sumsq_plain(v) + sumsq_plain(&v[1..]);
        assert_fd_gradient(plain, &x, &g, "on_slice");
        let grad = |v: &[f64]| on_slice_grad(v).1;
        for i in 0..x.len() {
            let column = hessian_column(grad, &x, i);
            let ours: Vec<f64> = h.iter().map(|row| row[i]).collect();
            assert_all_close(&ours, &column, 1e-6, "Hessian column");
        }
    }
}
