//! `order = K` on functions whose result is not one float (an array, a `Vec`, a tuple, `()` with output
//! parameters): API.md emits `f_hvp`, `f_hessian` and `f_derivatives` for a float-scalar output and says
//! that `order = K` works on every function whose first order works, so these compile with the items of the
//! first order (`f_vjp`, `f_jvp`, and `f_jacobian` where API.md has one), and callers with `order = K` differentiate through them
//! twice. Checked against derivatives by hand and central differences (Hessians against differences of
//! `_grad`).

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{
    assert_all_close, assert_jacobian, config, fd_jacobian, hessian_column, ANALYTIC_TOL,
};
use proptest::prelude::*;

#[differentiable(order = 2)]
fn ordered(x: f64, y: f64) -> [f64; 2] {
    if x > y {
        return [x, y];
    }
    [y, x * y]
}

#[differentiable(order = 2)]
fn squares(x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    for i in 0..x.len() {
        y[i] = x[i] * x[i];
    }
    y
}

#[differentiable(order = 3)]
fn polar<T: Float>(r: T, t: T) -> (T, T) {
    (r * t.cos(), r * t.sin())
}

#[differentiable(order = 2)]
fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - y[0] * y[1];
    dydt[1] = y[0] * y[1] - p[1] * y[1];
}

struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable(order = 2)]
    fn force(&self, x: &[f64], out: &mut [f64]) {
        out[0] = -self.k * x[0] * x[0];
    }

    #[differentiable(order = 2)]
    fn spread(x: f64, out: &mut [f64; 2]) {
        out[0] = x * x;
        out[1] = x.sin();
    }
}

/// A float function of all of them, at `order = 2`: its Hessian goes through each.
#[differentiable(order = 2)]
fn energy(a: f64, b: f64, y: &[f64]) -> f64 {
    let o = ordered(a, b);
    let s = squares(y);
    let (u, v) = polar(a, b);
    let mut d = vec![0.0; 2];
    rhs(y, &[a, b], &mut d);
    let mut pair = [0.0; 2];
    Spring::spread(a, &mut pair);
    o[0] * o[1] + s[0] * s[1] + u * v + d[0] * d[1] + pair[0] * pair[1]
}

/// `energy` without the macro's items, for differences.
fn energy_plain(a: f64, b: f64, y: &[f64]) -> f64 {
    let o = if a > b { [a, b] } else { [b, a * b] };
    let (u, v) = (a * b.cos(), a * b.sin());
    let d = [a * y[0] - y[0] * y[1], y[0] * y[1] - b * y[1]];
    o[0] * o[1] + y[0] * y[0] * y[1] * y[1] + u * v + d[0] * d[1] + a * a * a.sin()
}

#[test]
fn first_order_items_by_hand() {
    let (x, y) = (0.4, 1.5);
    assert_eq!(ordered_jacobian(x, y), vec![vec![0.0, 1.0], vec![y, x]]);
    let (r, t) = (2.0f64, 0.5f64);
    let (_, (dr, dt)) = polar_vjp(r, t, (1.0, 0.0));
    assert_all_close(
        &[dr, dt],
        &[t.cos(), -r * t.sin()],
        ANALYTIC_TOL,
        "polar row 0",
    );
    let (_, (dr, dt)) = polar_vjp(r, t, (0.0, 1.0));
    assert_all_close(
        &[dr, dt],
        &[t.sin(), r * t.cos()],
        ANALYTIC_TOL,
        "polar row 1",
    );
    let (spring, mut out) = (Spring { k: 2.0 }, [0.0]);
    spring.force(&[3.0], &mut out);
    assert_eq!(out, [-18.0]);
    let g = spring.force_vjp(&[3.0], &mut out, &[1.0]);
    assert_all_close(&g, &[-12.0], ANALYTIC_TOL, "force_vjp");
    assert_eq!(out, [-18.0]);
    let mut pair = [0.0; 2];
    let d = Spring::spread_vjp(0.3, &mut pair, &[1.0, 1.0]);
    assert!((d - (0.6 + 0.3f64.cos())).abs() < 1e-12);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn jacobians_against_differences(x in prop::collection::vec(-2.0..2.0f64, 1..5), p in prop::collection::vec(-2.0..2.0f64, 2..=2)) {
        let numeric = fd_jacobian(squares, &x);
        assert_jacobian(&squares_jacobian(&x), &numeric, "squares");
        let y = [x[0], x[0] * 0.5 + 0.1];
        let mut d = [0.0; 2];
        let numeric = fd_jacobian(|v| { let mut d = [0.0; 2]; rhs(&v[..2], &v[2..], &mut d); d.to_vec() }, &[y[0], y[1], p[0], p[1]]);
        assert_jacobian(&rhs_jacobian(&y, &p, &mut d), &numeric, "rhs");
    }

    #[test]
    fn energy_hessian_against_differences(a in -2.0..2.0f64, b in -2.0..2.0f64, y0 in -2.0..2.0f64, y1 in -2.0..2.0f64) {
        prop_assume!((a - b).abs() > 1e-3);
        let y = [y0, y1];
        let (value, (ga, gb, gy)) = energy_grad(a, b, &y);
        assert_all_close(&[value], &[energy_plain(a, b, &y)], 1e-12, "value");
        let flat = [a, b, y0, y1];
        let grad_flat = |v: &[f64]| {
            let (_, (ga, gb, gy)) = energy_grad(v[0], v[1], &v[2..]);
            vec![ga, gb, gy[0], gy[1]]
        };
        let plain = |v: &[f64]| energy_plain(v[0], v[1], &v[2..]);
        let numeric_grad: Vec<f64> =
            (0..4).map(|i| hessian_column(|v: &[f64]| vec![plain(v)], &flat, i)[0]).collect();
        assert_all_close(&[ga, gb, gy[0], gy[1]], &numeric_grad, 1e-6, "gradient");
        let (_, _, hessian) = energy_hessian(a, b, &y);
        for i in 0..4 {
            let column = hessian_column(grad_flat, &flat, i);
            let row: Vec<f64> = (0..4).map(|j| hessian[j][i]).collect();
            assert_all_close(&row, &column, 1e-6, &format!("Hessian column {i}"));
        }
    }
}
