//! Session 29, the lead's adversarial probe of the forms gaps29 made work: `max_by`/`min_by`/`last`/`first`
//! of sub-slices whose bounds are computed (`std_forms.rs` binds the sub-slice to a hidden local first),
//! where the binding could go wrong: bounds that move with a loop's index, a local `Vec` rewritten in the
//! loop before each read, the extreme read in a condition, and several in one expression. Each function is
//! checked against the same computation by hand (which element each extreme picks, ties as Rust's
//! `max_by` (last) and `min_by` (first) break them) and against central differences, at `order = 2` also its
//! Hessian against differences of the gradient.
//!
//! Also the gap gaps29 left in `slice_views.rs`: a slice bound twice before a view of it is rebound in a loop
//! (`let y = &x[1..]; let y = &y[1..];`, or a parameter shadowed by `let x = &x[1..];`) was copied into the
//! view's first length and panicked in `f_grad` for a window of another length; while the view is alive the
//! name is its last binding, never assigned, and the view follows it.

#![allow(clippy::needless_range_loop, clippy::redundant_slicing)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs, ANALYTIC_TOL,
};

/// Windows that move with the loop's index: `max_by` of `xs[t - 1..t + 1]`, `min_by` of `xs[t..n]`.
#[differentiable(order = 2)]
fn moving(xs: &[f64], w: f64) -> f64 {
    let n = xs.len();
    let mut s = 0.0;
    for t in 1..n - 1 {
        let hi = xs[t - 1..t + 1]
            .iter()
            .copied()
            .max_by(|p, q| p.partial_cmp(q).unwrap())
            .unwrap();
        let lo = *xs[t..n].iter().min_by(|p, q| p.total_cmp(q)).unwrap();
        s += w * hi * lo + *xs[..t + 1].last().unwrap();
    }
    s
}

fn moving_by_hand(xs: &[f64], w: f64) -> (f64, Vec<f64>, f64) {
    let n = xs.len();
    let (mut s, mut g, mut gw) = (0.0, vec![0.0; n], 0.0);
    for t in 1..n - 1 {
        let hi = if xs[t] >= xs[t - 1] { t } else { t - 1 };
        let mut lo = t;
        for k in t + 1..n {
            if xs[k] < xs[lo] {
                lo = k;
            }
        }
        s += w * xs[hi] * xs[lo] + xs[t];
        g[hi] += w * xs[lo];
        g[lo] += w * xs[hi];
        g[t] += 1.0;
        gw += xs[hi] * xs[lo];
    }
    (s, g, gw)
}

/// A local row rewritten in each iteration, then the maximum of a computed part of it read: the hidden
/// binding must see this iteration's row.
#[differentiable(order = 2)]
fn rows(w: &[f64], x: &[f64], k: usize) -> f64 {
    let mut z = vec![0.0; k];
    let mut total = 0.0;
    for j in 0..x.len() {
        for c in 0..k {
            z[c] = w[c] * x[j] + c as f64;
        }
        let m = z[j % 2..k - 1]
            .iter()
            .copied()
            .max_by(|p, q| p.partial_cmp(q).unwrap())
            .unwrap();
        if m > z[..k / 2 + 1].first().copied().unwrap_or(0.0) {
            total += m * m;
        } else {
            total -= m;
        }
    }
    total
}

fn rows_by_hand(w: &[f64], x: &[f64], k: usize) -> (f64, Vec<f64>, Vec<f64>) {
    let (mut total, mut gw, mut gx) = (0.0, vec![0.0; w.len()], vec![0.0; x.len()]);
    for j in 0..x.len() {
        let z: Vec<f64> = (0..k).map(|c| w[c] * x[j] + c as f64).collect();
        let mut arg = j % 2;
        for c in j % 2 + 1..k - 1 {
            if z[c] >= z[arg] {
                arg = c;
            }
        }
        let m = z[arg];
        // d m = x[j] dw[arg] + w[arg] dx[j]
        let dm = if m > z[0] {
            total += m * m;
            2.0 * m
        } else {
            total -= m;
            -1.0
        };
        gw[arg] += dm * x[j];
        gx[j] += dm * w[arg];
    }
    (total, gw, gx)
}

#[test]
fn windows_moving_with_the_loop() {
    let mut inputs = Inputs(2991);
    for n in [3, 4, 6] {
        for round in 0..8 {
            let mut xs: Vec<f64> = (0..n).map(|_| 2.0 * inputs.next()).collect();
            if round == 0 {
                // Ties: max_by takes the later of equal elements, min_by the first.
                xs.iter_mut().for_each(|v| *v = 0.75);
            }
            let w = 2.0 * inputs.next();
            let (value, g, gw) = moving_by_hand(&xs, w);
            let (v, (dx, dw)) = moving_grad(&xs, w);
            assert_close(v, value, ANALYTIC_TOL, "moving");
            assert_all_close(&dx, &g, ANALYTIC_TOL, "moving' xs");
            assert_close(dw, gw, ANALYTIC_TOL, "moving' w");
            if round > 0 {
                assert_fd_gradient(|p| moving(p, w), &xs, &dx, "moving' fd");
                let (_, _, h) = moving_hessian(&xs, w);
                let flat = |p: &[f64]| {
                    let (_, (dx, dw)) = moving_grad(&p[..n], p[n]);
                    dx.into_iter().chain([dw]).collect::<Vec<f64>>()
                };
                let at: Vec<f64> = xs.iter().copied().chain([w]).collect();
                assert_hessian_fd(&h, flat, &at, 1e-6, "moving''");
            }
        }
    }
}

#[test]
fn a_row_rewritten_before_each_read() {
    let mut inputs = Inputs(2992);
    for k in [3, 4, 5] {
        for _ in 0..8 {
            let w: Vec<f64> = (0..k).map(|_| 2.0 * inputs.next()).collect();
            let x: Vec<f64> = (0..4).map(|_| 2.0 * inputs.next()).collect();
            let (value, gw, gx) = rows_by_hand(&w, &x, k);
            let (v, (dw, dx)) = rows_grad(&w, &x, k);
            assert_close(v, value, ANALYTIC_TOL, "rows");
            assert_all_close(&dw, &gw, ANALYTIC_TOL, "rows' w");
            assert_all_close(&dx, &gx, ANALYTIC_TOL, "rows' x");
            assert_fd_gradient(|p| rows(p, &x, k), &w, &dw, "rows' w fd");
            assert_fd_gradient(|p| rows(&w, p, k), &x, &dx, "rows' x fd");
            let (_, _, h) = rows_hessian(&w, &x, k);
            let flat = |p: &[f64]| {
                let (_, (dw, dx)) = rows_grad(&p[..k], &p[k..], k);
                dw.into_iter().chain(dx).collect::<Vec<f64>>()
            };
            let at: Vec<f64> = w.iter().chain(&x).copied().collect();
            assert_hessian_fd(&h, flat, &at, 1e-5, "rows''");
        }
    }
}

/// `y` bound twice before `input`, and the parameter `w` shadowed by a sub-slice of itself.
#[differentiable(order = 2)]
fn bound_twice(x: &[f64], w: &[f64]) -> f64 {
    let y = &x[1..];
    let y = &y[1..];
    let w = &w[1..];
    let mut input = &x[..];
    let mut other = &w[..1];
    let mut s = 0.0;
    for t in 0..2 {
        s += input[0] * input[input.len() - 1] + other[0] * other[other.len() - 1];
        input = &y[t..];
        other = &w[t..];
    }
    s + input[0] * other[0]
}

#[test]
fn sources_bound_twice_before_the_view() {
    let mut inputs = Inputs(2993);
    for _ in 0..8 {
        let x: Vec<f64> = (0..5).map(|_| 2.0 * inputs.next()).collect();
        let w: Vec<f64> = (0..4).map(|_| 2.0 * inputs.next()).collect();
        // y = x[2..], w' = w[1..]. input: x[..], then x[2..], then x[3..]; other: w[1..2], w[1..], w[2..].
        // s = x0 x4 + w1 w1 + x2 x4 + w1 w3; result s + x3 w2.
        let value = x[0] * x[4] + w[1] * w[1] + x[2] * x[4] + w[1] * w[3] + x[3] * w[2];
        let gx = [x[4], 0.0, x[4], w[2], x[0] + x[2]];
        let gw = [0.0, 2.0 * w[1] + w[3], x[3], w[1]];
        let (v, (dx, dw)) = bound_twice_grad(&x, &w);
        assert_close(v, value, ANALYTIC_TOL, "bound_twice");
        assert_all_close(&dx, &gx, ANALYTIC_TOL, "bound_twice' x");
        assert_all_close(&dw, &gw, ANALYTIC_TOL, "bound_twice' w");
        assert_fd_gradient(|p| bound_twice(p, &w), &x, &dx, "bound_twice' x fd");
        assert_fd_gradient(|p| bound_twice(&x, p), &w, &dw, "bound_twice' w fd");
        let (_, _, h) = bound_twice_hessian(&x, &w);
        let flat = |p: &[f64]| {
            let (_, (dx, dw)) = bound_twice_grad(&p[..5], &p[5..]);
            dx.into_iter().chain(dw).collect::<Vec<f64>>()
        };
        let at: Vec<f64> = x.iter().chain(&w).copied().collect();
        assert_hessian_fd(&h, flat, &at, 1e-6, "bound_twice''");
    }
}
