//! Calls that lend a callee inactive data run a reverse sweep of the callee specialised to that
//! activity (`Generated::partial_sweeps`): a function without `wrt(..)` whose sweep runs straight into a
//! caller's buffers also has, per array parameter, a sweep with that parameter held inactive, which the
//! companion's `vjp_into` runs when the caller passes `None` for its slot. The data's cotangent is then
//! neither computed nor stored (it was computed into a scratch buffer and thrown away).
//!
//! Each caller below lends data to unrestricted callees in a different pattern (first or second
//! parameter, both parameters the same array, a data-only intermediate the callee stores, nested calls
//! that lend the data on, three arrays with one or two of them data, an array argument computed from the
//! active parameter and so not data); each is checked against central differences on seeded random
//! inputs, and the callees' own gradients against derivatives written here by hand.

// Index loops are the style under test.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::*;

/// `Σ_j a_j b_j`, both parameters active: calls lend it data in either slot.
#[differentiable]
fn inner(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..a.len() {
        s += a[j] * b[j];
    }
    s
}

/// `Σ_i sin(w_i e_i) cos(e_i)` with `e_i = exp(x_i)`, stopping at the first `x_i > 0.9`: `e_i` depends
/// on `x` alone, so the sweep without `x` holds it inactive, and the branch reads the data.
#[differentiable]
fn weighted(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        if x[i] > 0.9 {
            return s;
        }
        let e = x[i].exp();
        if x[i] > 0.0 {
            s += (w[i] * e).sin() * e.cos();
        } else {
            s += w[i] * w[i] * e;
        }
    }
    s
}

/// Lotka-Volterra's right-hand side with its rates `p` an array: a caller's data or its parameters.
#[differentiable]
fn rhs(p: &[f64], u: f64, v: f64) -> (f64, f64) {
    (p[0] * u - p[1] * u * v, p[2] * u * v - p[3] * v)
}

/// `σ(inner(w, x))`: a call that lends its own `x` on to `inner`, inactive in the sweep without `x`.
#[differentiable]
fn predict(w: &[f64], x: &[f64]) -> f64 {
    let z = inner(w, x);
    1.0 / (1.0 + (-z).exp())
}

/// `Σ_i a_i b_i² + sin(c_i a_i)`, three arrays.
#[differentiable]
fn tri(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i] * b[i] + (c[i] * a[i]).sin();
    }
    s
}

/// A local array written from both parameters, then read at two indexes: `Σ_i t_i t_{(i+1) mod n}`
/// with `t_i = w_i x_i`.
#[differentiable]
fn smooth(w: &[f64], x: &[f64]) -> f64 {
    let n = w.len();
    let mut t = vec![0.0; n];
    for i in 0..n {
        t[i] = w[i] * x[i];
    }
    let mut s = 0.0;
    for i in 0..n {
        s += t[i] * t[(i + 1) % n];
    }
    s
}

/// Data in the first slot, in the second, and the same active array in both.
#[differentiable(wrt(w))]
fn lends_inner(w: &[f64], xs: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for k in 0..xs.len() {
        let a = inner(w, &xs[k]);
        let b = inner(&xs[k], w);
        s += a * b.tanh();
    }
    s + inner(w, w)
}

/// Data lent to a callee whose branches and early return read it.
#[differentiable(wrt(w))]
fn lends_weighted(w: &[f64], xs: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for k in 0..xs.len() {
        s += weighted(w, &xs[k]).powi(2);
    }
    s
}

/// Euler steps of Lotka-Volterra with data rates (`p` inactive) and active rates (`q`), in one loop.
#[differentiable(wrt(u0, v0, q))]
fn euler(p: &[f64], q: &[f64], u0: f64, v0: f64, steps: usize) -> f64 {
    let mut u = u0;
    let mut v = v0;
    for _ in 0..steps {
        let (du, dv) = rhs(p, u, v);
        let (eu, ev) = rhs(q, u, v);
        u += 0.01 * (du + 0.1 * eu);
        v += 0.01 * (dv + 0.1 * ev);
    }
    u * v
}

/// Logistic regression's loss through `predict`, which lends each row on to `inner`.
#[differentiable(wrt(w))]
fn logistic(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for k in 0..ys.len() {
        let p = predict(w, &xs[k]);
        loss -= ys[k] * p.ln() + (1.0 - ys[k]) * (1.0 - p).ln();
    }
    loss
}

/// Three arrays: two of them data, then one of them data, then the data in the first slot.
#[differentiable(wrt(w))]
fn lends_tri(w: &[f64], x: &[f64], y: &[f64]) -> f64 {
    tri(w, x, y) + tri(x, w, y) * tri(y, x, w) + tri(w, w, x)
}

/// An argument computed from the active parameter is not data (its slot is filled); one computed from
/// data alone is.
#[differentiable(wrt(w))]
fn lends_computed(w: &[f64], x: &[f64]) -> f64 {
    let n = w.len();
    let mut sq = vec![0.0; n];
    let mut shifted = vec![0.0; n];
    for i in 0..n {
        sq[i] = w[i] * w[i];
        shifted[i] = x[i] + 1.0;
    }
    smooth(&sq, &shifted) + smooth(&shifted, w) + smooth(w, &sq)
}

const SEEDS: [u64; 8] = [1, 2, 3, 5, 8, 13, 21, 34];

#[test]
fn the_callees_gradients_are_their_derivatives() {
    for seed in SEEDS {
        let mut inputs = Inputs(seed);
        let (w, x, y) = (inputs.vec(5), inputs.vec(5), inputs.vec(5));
        let (_, (ga, gb)) = inner_grad(&w, &x);
        assert_all_close(&ga, &x, ANALYTIC_TOL, "d inner / d a");
        assert_all_close(&gb, &w, ANALYTIC_TOL, "d inner / d b");
        let (_, (da, db, dc)) = tri_grad(&w, &x, &y);
        for i in 0..5 {
            let c = (y[i] * w[i]).cos();
            assert_close(da[i], x[i] * x[i] + y[i] * c, ANALYTIC_TOL, "d tri / d a");
            assert_close(db[i], 2.0 * w[i] * x[i], ANALYTIC_TOL, "d tri / d b");
            assert_close(dc[i], w[i] * c, ANALYTIC_TOL, "d tri / d c");
        }
        let (_, (dp, du, dv)) = rhs_vjp(&[1.0, 0.5, 0.3, 0.7], w[0], w[1], (1.0, 1.0));
        let (u, v) = (w[0], w[1]);
        assert_all_close(
            &dp,
            &[u, -u * v, u * v, -v],
            ANALYTIC_TOL,
            "d (u' + v') / d p",
        );
        assert_close(
            du,
            1.0 - 0.5 * v + 0.3 * v,
            ANALYTIC_TOL,
            "d (u' + v') / d u",
        );
        assert_close(
            dv,
            -0.5 * u + 0.3 * u - 0.7,
            ANALYTIC_TOL,
            "d (u' + v') / d v",
        );
        let (_, (gw, gx)) = weighted_grad(&w, &x);
        assert_fd_gradient(|w| weighted(w, &x), &w, &gw, "weighted, w");
        assert_fd_gradient(|x| weighted(&w, x), &x, &gx, "weighted, x");
    }
}

#[test]
fn data_lent_in_either_slot_of_inner() {
    for seed in SEEDS {
        let mut inputs = Inputs(seed);
        let (w, xs) = (inputs.vec(6), inputs.rows(4, 6));
        let (value, grad) = lends_inner_grad(&w, &xs);
        assert_close(value, lends_inner(&w, &xs), ANALYTIC_TOL, "value");
        assert_fd_gradient(|w| lends_inner(w, &xs), &w, &grad, "lends_inner");
    }
}

#[test]
fn data_lent_to_a_callee_that_branches_on_it() {
    for seed in SEEDS {
        let mut inputs = Inputs(seed);
        // Some rows have an element above 0.9 (the early return), some do not.
        let (w, xs) = (inputs.vec(7), inputs.rows(5, 7));
        let (_, grad) = lends_weighted_grad(&w, &xs);
        assert_fd_gradient(|w| lends_weighted(w, &xs), &w, &grad, "lends_weighted");
    }
}

#[test]
fn data_rates_beside_active_rates() {
    for seed in SEEDS {
        let mut inputs = Inputs(seed);
        let p: Vec<f64> = inputs.vec(4).iter().map(|r| 0.5 + 0.4 * r).collect();
        let q: Vec<f64> = inputs.vec(4).iter().map(|r| 0.5 + 0.4 * r).collect();
        let (u0, v0) = (1.0 + 0.3 * inputs.next(), 0.8 + 0.3 * inputs.next());
        let (_, (dq, du0, dv0)) = euler_grad(&p, &q, u0, v0, 50);
        let mut all = vec![u0, v0];
        all.extend(&q);
        let mut grad = vec![du0, dv0];
        grad.extend(&dq);
        assert_fd_gradient(|z| euler(&p, &z[2..], z[0], z[1], 50), &all, &grad, "euler");
    }
}

#[test]
fn data_lent_on_through_a_nested_call() {
    for seed in SEEDS {
        let mut inputs = Inputs(seed);
        let (w, xs) = (inputs.vec(5), inputs.rows(30, 5));
        let ys: Vec<f64> = (0..30).map(|k| (k % 2) as f64).collect();
        let (_, grad) = logistic_grad(&w, &xs, &ys);
        assert_fd_gradient(|w| logistic(w, &xs, &ys), &w, &grad, "logistic");
        // By hand: Σ_k (p_k - y_k) x_k.
        let mut expected = vec![0.0; 5];
        for k in 0..30 {
            let z: f64 = (0..5).map(|j| w[j] * xs[k][j]).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            for j in 0..5 {
                expected[j] += (p - ys[k]) * xs[k][j];
            }
        }
        assert_all_close(&grad, &expected, 1e-9, "logistic by hand");
    }
}

#[test]
fn one_or_two_of_three_arrays_lent_as_data() {
    for seed in SEEDS {
        let mut inputs = Inputs(seed);
        let (w, x, y) = (inputs.vec(4), inputs.vec(4), inputs.vec(4));
        let (_, grad) = lends_tri_grad(&w, &x, &y);
        assert_fd_gradient(|w| lends_tri(w, &x, &y), &w, &grad, "lends_tri");
    }
}

#[test]
fn arguments_computed_from_the_active_parameter_are_not_data() {
    for seed in SEEDS {
        let mut inputs = Inputs(seed);
        let (w, x) = (inputs.vec(6), inputs.vec(6));
        let (_, grad) = lends_computed_grad(&w, &x);
        assert_fd_gradient(|w| lends_computed(w, &x), &w, &grad, "lends_computed");
        // `f_grad_into` overwrites a buffer holding garbage.
        let mut buffer = vec![f64::NAN; 6];
        lends_computed_grad_into(&w, &x, &mut buffer);
        assert_all_close(&buffer, &grad, ANALYTIC_TOL, "grad_into");
    }
}

/// Two parameters whose names differ only by leading underscores: the partial sweeps are named after
/// the parameters' positions (`__both_vjp_into_without_0`, `..._1`), not twice `..._without_x`.
#[differentiable]
fn both(x: &[f64], __x: &[f64]) -> f64 {
    x[0] * __x[1] + x[1].sin()
}

/// Data in the second slot, then in the first.
#[differentiable(wrt(w))]
fn lends_both(w: &[f64], data: &[f64]) -> f64 {
    both(w, data) * both(data, w)
}

#[test]
fn parameters_named_alike_get_sweeps_of_their_own() {
    for seed in SEEDS {
        let mut inputs = Inputs(seed);
        let (w, data) = (inputs.vec(2), inputs.vec(2));
        let (value, grad) = lends_both_grad(&w, &data);
        assert_close(value, lends_both(&w, &data), ANALYTIC_TOL, "value");
        assert_fd_gradient(|w| lends_both(w, &data), &w, &grad, "lends_both");
    }
}
