//! Loops fused into their forward sweep (`Order::Fused`, `reverse/plan.rs`) whose result reaches the
//! function's result scaled: a mean (`s / x.len() as f64`, `s / m as f64`), a constant factor, a
//! negation. The adjoint of the loop's result is then not the output cotangent itself but the cotangent
//! times the factors (`LoopPlan::seeds`), computed before the loop from values known there; a cast or a
//! parameter's length defined after the loop is computed again before it.
//!
//! The near misses must not be fused, and each would be wrong if it were: a factor computed from the
//! loop itself (its count of iterations), a result read twice (`s * s / n`), a product of two loops'
//! results, a factor that is active. Every gradient is checked against central differences on random
//! inputs, `f_grad_into` against `f_grad` into buffers filled with NaN, a few by hand, and the
//! Hessians of the `order = 2` ones against differences of their gradients.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::*;
use proptest::prelude::*;

/// Fused, seeded by `d_ret / x.len() as f64`: the length is read again before the loop.
#[differentiable(order = 2)]
fn mean_sin(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] * w[i % w.len()]).sin();
    }
    s / x.len() as f64
}

/// Fused, seeded by `d_ret / m as f64` with `m` bound before the loop.
#[differentiable]
fn mean_bound(x: &[f64], w: &[f64]) -> f64 {
    let m = x.len();
    let mut s = 0.0;
    for i in 0..m {
        let r = x[i] - w[i % w.len()];
        s += r * r;
    }
    s / m as f64
}

/// Fused, seeded through three factors and a sum with another active term.
#[differentiable(order = 2)]
fn scaled_chain(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].exp() * w[0];
    }
    0.5 * (s * 3.0) / x.len() as f64 + w[0].sin()
}

/// Fused, seeded by a negation (`1.0 - s`, then `-t`).
#[differentiable]
fn negated(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i] * w[i % w.len()];
    }
    let t = 1.0 - s;
    -t * 2.0
}

/// Fused, seeded by a count an earlier loop made (known before the second loop).
#[differentiable]
fn mean_of_positives(x: &[f64], w: &[f64]) -> f64 {
    let mut c = 0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            c += 1;
        }
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].tanh() * w[i % w.len()];
    }
    s / (c + 1) as f64
}

/// Not fused: the factor is the loop's own count of iterations, known only after it.
#[differentiable]
fn mean_by_own_count(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut n = 0;
    for i in 0..x.len() {
        s += (x[i] + w[i % w.len()]).cos();
        n += 1;
    }
    s / n as f64
}

/// Not fused: the result is read twice.
#[differentiable]
fn squared_mean(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * w[i % w.len()];
    }
    s * s / x.len() as f64
}

/// Not fused: the product of two loops' results (each one's adjoint is the other's value).
#[differentiable]
fn product_of_means(x: &[f64], w: &[f64]) -> f64 {
    let mut a = 0.0;
    for i in 0..x.len() {
        a += x[i].sin();
    }
    let mut b = 0.0;
    for j in 0..w.len() {
        b += w[j] * x[j % x.len()];
    }
    (a / x.len() as f64) * (b / w.len() as f64)
}

/// Not fused: the factor is active (`w[0]`, read after the loop).
#[differentiable]
fn active_factor(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s / (1.0 + w[0] * w[0])
}

/// Generic: the factor `T::from(x.len())` is a method call the plan does not run again, so not
/// fused; `lit` literals in the float type are (`2.0 * s`).
#[differentiable(order = 2)]
fn generic_mean<T: autodiff::Float>(x: &[T], w: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..x.len() {
        s = s + x[i] * w[i % w.len()] * x[i];
    }
    let n = T::from(x.len()).unwrap();
    s / n
}

type Grad2 = fn(&[f64], &[f64]) -> (f64, (Vec<f64>, Vec<f64>));
type Into2 = fn(&[f64], &[f64], (&mut [f64], &mut [f64])) -> f64;

fn check2(
    f: fn(&[f64], &[f64]) -> f64,
    grad: Grad2,
    into: Into2,
    x: &[f64],
    w: &[f64],
    what: &str,
) {
    let (value, (gx, gw)) = grad(x, w);
    assert_close(value, f(x, w), ANALYTIC_TOL, what);
    assert_fd_gradient(|x| f(x, w), x, &gx, &format!("{what}, d/dx"));
    assert_fd_gradient(|w| f(x, w), w, &gw, &format!("{what}, d/dw"));
    let (mut ix, mut iw) = (vec![f64::NAN; x.len()], vec![f64::NAN; w.len()]);
    let v = into(x, w, (&mut ix, &mut iw));
    assert_close(v, value, ANALYTIC_TOL, what);
    assert_all_close(&ix, &gx, ANALYTIC_TOL, &format!("{what}, grad_into x"));
    assert_all_close(&iw, &gw, ANALYTIC_TOL, &format!("{what}, grad_into w"));
}

/// The Hessian of a function of `(x, w)` over both, flattened, against differences of its gradient.
fn check_hessian2(grad: Grad2, hessian: &[Vec<f64>], x: &[f64], w: &[f64], what: &str) {
    let n = x.len();
    let joined: Vec<f64> = x.iter().chain(w).copied().collect();
    let flat_grad = |v: &[f64]| {
        let (_, (gx, gw)) = grad(&v[..n], &v[n..]);
        gx.into_iter().chain(gw).collect::<Vec<f64>>()
    };
    assert_hessian_fd(hessian, flat_grad, &joined, 1e-6, what);
}

fn floats(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<f64>> {
    proptest::collection::vec(-1.5..1.5f64, len)
}

fn generic_mean_f64(x: &[f64], w: &[f64]) -> f64 {
    generic_mean(x, w)
}

fn generic_mean_grad_f64(x: &[f64], w: &[f64]) -> (f64, (Vec<f64>, Vec<f64>)) {
    generic_mean_grad(x, w)
}

fn generic_mean_grad_into_f64(x: &[f64], w: &[f64], g: (&mut [f64], &mut [f64])) -> f64 {
    generic_mean_grad_into(x, w, g)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn seeded_fused_loops(x in floats(1..7), w in floats(1..5)) {
        check2(mean_sin, mean_sin_grad, mean_sin_grad_into, &x, &w, "mean_sin");
        check2(mean_bound, mean_bound_grad, mean_bound_grad_into, &x, &w, "mean_bound");
        check2(scaled_chain, scaled_chain_grad, scaled_chain_grad_into, &x, &w, "scaled_chain");
        check2(negated, negated_grad, negated_grad_into, &x, &w, "negated");
        check2(mean_of_positives, mean_of_positives_grad, mean_of_positives_grad_into, &x, &w,
            "mean_of_positives");
    }

    #[test]
    fn near_misses_of_seeded_fusion(x in floats(1..7), w in floats(1..5)) {
        check2(mean_by_own_count, mean_by_own_count_grad, mean_by_own_count_grad_into, &x, &w,
            "mean_by_own_count");
        check2(squared_mean, squared_mean_grad, squared_mean_grad_into, &x, &w, "squared_mean");
        check2(product_of_means, product_of_means_grad, product_of_means_grad_into, &x, &w,
            "product_of_means");
        check2(active_factor, active_factor_grad, active_factor_grad_into, &x, &w, "active_factor");
        check2(generic_mean_f64, generic_mean_grad_f64, generic_mean_grad_into_f64, &x, &w, "generic_mean");
    }

    #[test]
    fn hessians_of_seeded_fused_loops(x in floats(1..5), w in floats(1..4)) {
        let (_, _, h) = mean_sin_hessian(&x, &w);
        check_hessian2(mean_sin_grad, &h, &x, &w, "mean_sin");
        let (_, _, h) = scaled_chain_hessian(&x, &w);
        check_hessian2(scaled_chain_grad, &h, &x, &w, "scaled_chain");
        let (_, _, h) = generic_mean_hessian(&x, &w);
        check_hessian2(generic_mean_grad_f64, &h, &x, &w, "generic_mean");
    }
}

/// `mean_sin` and `mean_by_own_count` by hand: d/dx_i = cos(x_i w_i) w_i / n and
/// -sin(x_i + w_i) / n, with the same `n`.
#[test]
fn means_by_hand() {
    let x = [0.3, -0.7, 1.1, 0.2];
    let w = [0.5, -1.2, 0.8, 2.0];
    let n = x.len() as f64;
    let (_, (gx, gw)) = mean_sin_grad(&x, &w);
    let (_, (hx, _)) = mean_by_own_count_grad(&x, &w);
    for i in 0..4 {
        assert_close(
            gx[i],
            (x[i] * w[i]).cos() * w[i] / n,
            ANALYTIC_TOL,
            "mean_sin d/dx",
        );
        assert_close(
            gw[i],
            (x[i] * w[i]).cos() * x[i] / n,
            ANALYTIC_TOL,
            "mean_sin d/dw",
        );
        assert_close(
            hx[i],
            -(x[i] + w[i]).sin() / n,
            ANALYTIC_TOL,
            "mean_by_own_count d/dx",
        );
    }
    // -2 (1 - s): d/dx_i = 4 x_i w_i, whatever the cotangent's path.
    let (_, (gx, _)) = negated_grad(&x, &w);
    for i in 0..4 {
        assert_close(gx[i], 4.0 * x[i] * w[i], ANALYTIC_TOL, "negated d/dx");
    }
    // Three positives: s / 4.
    let (_, (gx, _)) = mean_of_positives_grad(&x, &w);
    for i in 0..4 {
        let t = x[i].tanh();
        assert_close(
            gx[i],
            (1.0 - t * t) * w[i] / 4.0,
            ANALYTIC_TOL,
            "mean_of_positives d/dx",
        );
    }
}
