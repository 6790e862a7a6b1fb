//! `Option<f64>` parameters reached by `order = K` callers (session 49): a first-order function taking an
//! `Option<f64>` has a generic copy (`shadow::why_no_copy_with` reads its `unwrap_or`, `is_some`, `None`
//! and `Some(..)` as the copy's `Option<__S>`), and `Some(y)` of a parameter outside `wrt(..)` is a
//! variant in the copy too, not a callee (`expand::calls_of`, `maybe::copy_unplanned`). Values against
//! plain copies, gradients against central differences, Hessians against differences of `_grad` and
//! against the analytic second derivatives.
#![allow(clippy::manual_unwrap_or)]

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_hessian_fd, central_difference, Inputs};

/// First order only: `unwrap_or` and `if let` of its options.
#[differentiable]
fn damped(x: f64, damping: Option<f64>, shift: Option<f64>) -> f64 {
    let mut y = x.sin() * x * damping.unwrap_or(0.5);
    if let Some(s) = shift {
        y += (x - s) * (x - s);
    }
    y
}

fn damped_plain(x: f64, damping: Option<f64>, shift: Option<f64>) -> f64 {
    let mut y = x.sin() * x * damping.unwrap_or(0.5);
    if let Some(s) = shift {
        y += (x - s) * (x - s);
    }
    y
}

/// `d^2/dx^2` of `damped` by hand: `(2 cos x - x sin x) d + 2` where a shift is given.
fn damped_second(x: f64, damping: Option<f64>, shift: Option<f64>) -> f64 {
    let d = damping.unwrap_or(0.5);
    (2.0 * x.cos() - x * x.sin()) * d + if shift.is_some() { 2.0 } else { 0.0 }
}

/// First order only, `wrt(x)`: `Some(y)` of the parameter it keeps constant, passed on.
#[differentiable(wrt(x))]
fn shifted(x: f64, y: f64) -> f64 {
    damped(x, Some(y), None) * x + damped(y, Some(0.5), Some(y))
}

fn shifted_plain(x: f64, y: f64) -> f64 {
    damped_plain(x, Some(y), None) * x + damped_plain(y, Some(0.5), Some(y))
}

/// An `order = 2` caller of both, whose copies its Hessian runs on dual numbers.
#[differentiable(order = 2)]
fn outer(x: f64) -> f64 {
    shifted(x.sin(), 0.25) + damped(x, Some(2.0), None)
}

fn outer_plain(x: f64) -> f64 {
    shifted_plain(x.sin(), 0.25) + damped_plain(x, Some(2.0), None)
}

/// `shifted` itself at `order = 2`, `wrt(x)`: its own copy keeps `y` constant.
#[differentiable(wrt(x), order = 2)]
fn shifted2(x: f64, y: f64) -> f64 {
    damped(x, Some(y), None) * x + damped(y, Some(0.5), Some(y))
}

/// A `match` and `is_none` of first-order functions, reached from `order = 3`.
#[differentiable]
fn scaled(x: f64, scale: Option<f64>) -> f64 {
    let s = match scale {
        Some(k) => k,
        None => 1.0,
    };
    if scale.is_none() {
        x * x * x
    } else {
        x * x * x * s
    }
}

#[differentiable(order = 3)]
fn cubes(x: f64) -> f64 {
    scaled(x, Some(2.0)) + scaled(x, None)
}

#[test]
fn an_order_2_caller_of_first_order_functions_with_options() {
    let mut inputs = Inputs(49_001);
    for _ in 0..12 {
        let x = 2.0 * inputs.next();
        let (value, d) = outer_grad(x);
        assert_eq!(value, outer(x));
        assert_close(value, outer_plain(x), 1e-14, "value");
        assert_close(d, central_difference(outer_plain, x), 1e-6, "d/dx");
        let (v, g, h) = outer_hessian(x);
        assert_close(v, value, 1e-14, "hessian's value");
        assert_close(g, d, 1e-12, "hessian's gradient");
        assert_hessian_fd(&h, |p| vec![outer_grad(p[0]).1], &[x], 1e-6, "d2/dx2");
        // By hand: shifted(s, 0.25) with s = sin x is s sin(s) s 0.25 + (constant in s), so its second
        // derivative in s is 0.25 (2 sin s + 4 s cos s - s^2 sin s); the chain rule through sin x.
        let s = x.sin();
        let first_s = 0.25 * (2.0 * s * s.sin() + s * s * s.cos());
        let second_s = 0.25 * (2.0 * s.sin() + 4.0 * s * s.cos() - s * s * s.sin());
        let expected =
            second_s * x.cos() * x.cos() - first_s * x.sin() + damped_second(x, Some(2.0), None);
        assert_close(h[0][0], expected, 1e-10, "d2/dx2 by hand");
        let (_, _, hv) = outer_hvp(x, 1.5);
        assert_close(hv, 1.5 * h[0][0], 1e-12, "hvp");
    }
}

#[test]
fn some_of_a_constant_parameter_at_order_2() {
    let mut inputs = Inputs(49_002);
    for _ in 0..12 {
        let (x, y) = (2.0 * inputs.next(), inputs.next());
        let (value, dx) = shifted2_grad(x, y);
        assert_eq!(value, shifted2(x, y));
        assert_close(value, shifted_plain(x, y), 1e-14, "value");
        assert_close(
            dx,
            central_difference(|x| shifted_plain(x, y), x),
            1e-6,
            "d/dx",
        );
        // The first order's `shifted` agrees.
        assert_close(dx, shifted_grad(x, y).1, 1e-14, "first order");
        let (_, _, h) = shifted2_hessian(x, y);
        assert_hessian_fd(&h, |p| vec![shifted2_grad(p[0], y).1], &[x], 1e-6, "d2/dx2");
        // By hand: x^2 sin(x) y, so 2 y sin x + 4 x y cos x - x^2 y sin x.
        let expected = y * (2.0 * x.sin() + 4.0 * x * x.cos() - x * x * x.sin());
        assert_close(h[0][0], expected, 1e-10, "d2/dx2 by hand");
    }
}

#[test]
fn match_and_is_none_at_order_3() {
    let mut inputs = Inputs(49_003);
    for _ in 0..12 {
        let x = 2.0 * inputs.next();
        // 2 x^3 + x^3.
        let [f, d1, d2, d3] = cubes_derivatives(x);
        assert_eq!(f, cubes(x));
        assert_close(f, 3.0 * x * x * x, 1e-14, "value");
        assert_close(d1, 9.0 * x * x, 1e-12, "first");
        assert_close(d2, 18.0 * x, 1e-12, "second");
        assert_close(d3, 18.0, 1e-12, "third");
        assert_close(
            d1,
            central_difference(|x| scaled(x, Some(2.0)) + scaled(x, None), x),
            1e-6,
            "first by differences",
        );
    }
}
