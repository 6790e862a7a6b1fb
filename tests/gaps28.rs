//! Session 28 gaps, valid programs that failed at first order:
//! 1. a tuple computed from an integer parameter alone (`((0.5, -1.25), 2.0 * k as f64)`) passed by
//!    reference to a plain function was taken for a differentiated one, and the call rewritten to a
//!    missing `__weigh_split` (E0425); a call passes a tuple's parts only when one of its arguments may be
//!    differentiated.
//! Every function is checked against analytic derivatives and central differences (`common`, no code
//! shared with the macro) at several points; the `order = 2` ones also their Hessians against differences
//! of their gradients.

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, hessian_column, Inputs, ANALYTIC_TOL,
};

fn weigh(w: &((f64, f64), f64), a: f64) -> f64 {
    (w.0 .0 * a + w.0 .1) * w.1
}

#[differentiable(order = 2)]
fn g2(x: f64, y: f64, k: usize) -> f64 {
    let w = ((0.5, -1.25), 2.0 * k as f64);
    x * y * weigh(&w, 3.0)
}

#[differentiable(order = 2)]
fn weigh_d(w: &(f64, f64, f64), a: f64) -> f64 {
    (w.0 * a + w.1) * w.2
}

#[differentiable(order = 2)]
fn g3(x: f64, y: f64, k: usize) -> f64 {
    let w = (0.5, -1.25, 2.0 * k as f64);
    x * y * weigh_d(&w, 3.0) + weigh_d(&(x, 1.0, k as f64), y) + weigh_d(&(0.5, k as f64, 1.5), x)
}

#[differentiable(order = 2)]
fn flat(w: &(f64, f64)) -> f64 {
    w.0 * w.1
}

#[differentiable(order = 2)]
fn c0(x: f64, k: usize, idx: &[usize]) -> f64 {
    let c = (1.0, k as f64);
    let d = (x * 2.0, k as f64);
    x * flat(&c) + flat(&d) + flat(&(idx[0] as f64, x)) + x * flat(&(idx[1] as f64, 0.5))
}

#[test]
fn integer_tuple_to_plain_function() {
    // weigh(&w, 3) = (1.5 - 1.25) * 2k = k / 2: g2 = k x y / 2.
    let mut inputs = Inputs(2801);
    for k in 0..4 {
        for _ in 0..5 {
            let (x, y) = (2.0 * inputs.next(), 2.0 * inputs.next());
            let kf = k as f64;
            let (v, (dx, dy)) = g2_grad(x, y, k);
            assert_close(v, 0.5 * kf * x * y, ANALYTIC_TOL, "g2");
            assert_all_close(
                &[dx, dy],
                &[0.5 * kf * y, 0.5 * kf * x],
                ANALYTIC_TOL,
                "g2'",
            );
            assert_fd_gradient(|p| g2(p[0], p[1], k), &[x, y], &[dx, dy], "g2' fd");
            let (_, _, m) = g2_hessian(x, y, k);
            let grad = |p: &[f64]| {
                let (_, (a, b)) = g2_grad(p[0], p[1], k);
                vec![a, b]
            };
            for i in 0..2 {
                let expected = [[0.0, 0.5 * kf], [0.5 * kf, 0.0]][i];
                assert_all_close(&m[i], &expected, ANALYTIC_TOL, "g2''");
                assert_all_close(&m[i], &hessian_column(grad, &[x, y], i), 1e-6, "g2'' fd");
            }
        }
    }
}

#[test]
fn integer_tuple_to_differentiable_function() {
    // g3 = k x y / 2 + k (x y + 1) + 1.5 (x / 2 + k).
    let mut inputs = Inputs(2802);
    for k in 0..4 {
        for _ in 0..5 {
            let (x, y) = (2.0 * inputs.next(), 2.0 * inputs.next());
            let kf = k as f64;
            let (v, (dx, dy)) = g3_grad(x, y, k);
            let value = 0.5 * kf * x * y + kf * (x * y + 1.0) + 1.5 * (0.5 * x + kf);
            assert_close(v, value, ANALYTIC_TOL, "g3");
            let expected = [1.5 * kf * y + 0.75, 1.5 * kf * x];
            assert_all_close(&[dx, dy], &expected, ANALYTIC_TOL, "g3'");
            assert_fd_gradient(|p| g3(p[0], p[1], k), &[x, y], &[dx, dy], "g3' fd");
            let (_, _, m) = g3_hessian(x, y, k);
            let grad = |p: &[f64]| {
                let (_, (a, b)) = g3_grad(p[0], p[1], k);
                vec![a, b]
            };
            for i in 0..2 {
                let expected = [[0.0, 1.5 * kf], [1.5 * kf, 0.0]][i];
                assert_all_close(&m[i], &expected, ANALYTIC_TOL, "g3''");
                assert_all_close(&m[i], &hessian_column(grad, &[x, y], i), 1e-6, "g3'' fd");
            }
        }
    }
}

#[test]
fn integer_tuples_beside_active_ones() {
    // c0 = x (3k + idx[0] + idx[1] / 2).
    let mut inputs = Inputs(2803);
    for k in 0..3 {
        for idx in [[0, 1], [2, 5], [3, 0]] {
            let x = 2.0 * inputs.next();
            let slope = 3.0 * k as f64 + idx[0] as f64 + 0.5 * idx[1] as f64;
            let (v, dx) = c0_grad(x, k, &idx);
            assert_close(v, slope * x, ANALYTIC_TOL, "c0");
            assert_close(dx, slope, ANALYTIC_TOL, "c0'");
            assert_fd_gradient(|p| c0(p[0], k, &idx), &[x], &[dx], "c0' fd");
            let (_, _, h) = c0_hessian(x, k, &idx);
            assert_close(h[0][0], 0.0, ANALYTIC_TOL, "c0''");
        }
    }
}
