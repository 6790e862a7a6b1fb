//! A float parameter outside `wrt(..)` stored in a local array or `Vec` that is passed to another
//! function (`let w = vec![0.5, c]; helper(&w)`). The hidden sweeps through which other differentiable
//! functions call such a function differentiate every float parameter, and run the callee's derivatives
//! only where it has them (`autodiff-macros/src/maybe.rs`); their forward sweep converts an array's
//! tangent into the callee's slot type with `Into::into`, which had no target type in the stand-in for a
//! callee without derivatives: rustc's E0282 ("type annotations needed") in the generated code, at first
//! order, until session 35 (`__private::AnyTangent`).
//!
//! At `order = 2` the generic copy calls such a helper through `copy_or_as_written!`: the helper's copy
//! where it has derivatives, else the helper as written on the values of the array (`[f64]` there,
//! `__private::plain_array`); until session 35 that was rustc's E0573 ("expected type, found function").
//!
//! Checked against analytic derivatives and central differences (`common`, no code shared with the
//! macro) at seeded points; where the callee has derivatives, a caller that differentiates the excluded
//! parameter gets its derivative through the array, in reverse and forward mode.

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, Inputs};

/// A plain helper over a slice: no derivatives.
fn plain_sum(w: &[f64]) -> f64 {
    w.iter().sum()
}

/// A plain helper over a fixed-size array: no derivatives.
fn plain_pair(w: &[f64; 2]) -> f64 {
    w[0] * w[1]
}

/// A helper with derivatives over a slice.
#[differentiable]
fn squares(w: &[f64]) -> f64 {
    w.iter().map(|v| v * v).sum()
}

#[differentiable(wrt(x))]
fn through_vec(x: f64, c: f64) -> f64 {
    let w = vec![0.5, c];
    plain_sum(&w) * x * x
}

#[differentiable(wrt(x))]
fn through_array(x: f64, c: f64) -> f64 {
    let w = [0.5, c];
    plain_sum(&w) * x.sin()
}

#[differentiable(wrt(x))]
fn through_fixed(x: f64, c: f64) -> f64 {
    let w = [c, 2.0];
    plain_pair(&w) + x * x * x
}

/// The callee has derivatives: a caller differentiating `c` gets `d/dc` through `w`.
#[differentiable(wrt(x))]
fn through_squares(x: f64, c: f64) -> f64 {
    let w = [0.5, c, c * x];
    squares(&w) * x
}

#[differentiable(wrt(x), order = 2)]
fn through_vec_2(x: f64, c: f64) -> f64 {
    let w = vec![0.5, c];
    plain_sum(&w) * x * x * x
}

#[differentiable(wrt(x), order = 2)]
fn through_fixed_2(x: f64, c: f64) -> f64 {
    let w = [c, 2.0];
    plain_pair(&w) * x.sin() + plain_sum(&w) * x * x
}

/// Second order through a first-order function and one of `order = 2`.
#[differentiable(order = 2)]
fn caller_2(x: f64) -> f64 {
    through_array(x, 2.0) * through_vec_2(x, -0.25)
}

/// Calls the functions above with `c` a constant.
#[differentiable]
fn caller_constant(x: f64) -> f64 {
    through_vec(x, 2.0) + through_array(x * x, 3.0) + through_fixed(x, -1.0)
}

/// Differentiates `c` of `through_squares` (its hidden sweeps).
#[differentiable]
fn caller_differentiating(x: f64, c: f64) -> f64 {
    through_squares(x, c * c)
}

#[test]
fn excluded_parameters_in_arrays_passed_to_plain_helpers() {
    let mut inputs = Inputs(35_001);
    for _ in 0..16 {
        let (x, c) = (2.0 * inputs.next(), 2.0 * inputs.next());
        let (v, g) = through_vec_grad(x, c);
        assert_close(v, (0.5 + c) * x * x, 1e-12, "through_vec");
        assert_close(g, 2.0 * (0.5 + c) * x, 1e-12, "through_vec'");
        let (v, g) = through_array_grad(x, c);
        assert_close(v, (0.5 + c) * x.sin(), 1e-12, "through_array");
        assert_close(g, (0.5 + c) * x.cos(), 1e-12, "through_array'");
        let (v, g) = through_fixed_grad(x, c);
        assert_close(v, 2.0 * c + x * x * x, 1e-12, "through_fixed");
        assert_close(g, 3.0 * x * x, 1e-12, "through_fixed'");
        let (v, t) = through_vec_jvp(x, c, 0.7);
        assert_close(v, (0.5 + c) * x * x, 1e-12, "through_vec_jvp value");
        assert_close(t, 0.7 * 2.0 * (0.5 + c) * x, 1e-12, "through_vec_jvp");

        let (v, g) = caller_constant_grad(x);
        let f = |x: f64| 2.5 * x * x + 3.5 * (x * x).sin() + (-2.0 + x * x * x);
        assert_close(v, f(x), 1e-12, "caller_constant");
        assert_close(caller_constant(x), v, 1e-12, "caller_constant as written");
        assert_close(
            g,
            5.0 * x + 3.5 * (x * x).cos() * 2.0 * x + 3.0 * x * x,
            1e-10,
            "caller_constant'",
        );
        assert_fd_gradient(|p| f(p[0]), &[x], &[g], "caller_constant");
    }
}

#[test]
fn excluded_parameter_differentiated_through_an_array_by_a_caller() {
    // f(x, c) = (0.25 + c⁴ + c⁴ x²) x, with c² passed as `c`.
    let f = |x: f64, c: f64| {
        let k = c * c;
        (0.25 + k * k + k * k * x * x) * x
    };
    let mut inputs = Inputs(35_002);
    for _ in 0..16 {
        let (x, c) = (1.5 * inputs.next(), 1.5 * inputs.next());
        let k = c * c;
        let (v, (gx, gc)) = caller_differentiating_grad(x, c);
        assert_close(v, f(x, c), 1e-12, "caller_differentiating");
        assert_close(caller_differentiating(x, c), v, 1e-12, "as written");
        assert_close(gx, 0.25 + k * k + 3.0 * k * k * x * x, 1e-10, "d/dx");
        assert_close(gc, 4.0 * k * c * (1.0 + x * x) * x, 1e-10, "d/dc");
        assert_fd_gradient(
            |p| f(p[0], p[1]),
            &[x, c],
            &[gx, gc],
            "caller_differentiating",
        );
        let (w, t) = caller_differentiating_jvp(x, c, (0.3, -0.8));
        assert_close(w, v, 1e-12, "jvp value");
        assert_close(t, 0.3 * gx - 0.8 * gc, 1e-10, "jvp tangent");
    }
}

#[test]
fn excluded_parameters_in_arrays_at_order_2() {
    let mut inputs = Inputs(35_003);
    for _ in 0..16 {
        let (x, c) = (2.0 * inputs.next(), 2.0 * inputs.next());
        let (v, g, h) = through_vec_2_hessian(x, c);
        assert_close(v, (0.5 + c) * x * x * x, 1e-12, "through_vec_2");
        assert_close(through_vec_2(x, c), v, 1e-12, "through_vec_2 as written");
        assert_close(g, 3.0 * (0.5 + c) * x * x, 1e-12, "through_vec_2'");
        assert_close(h[0][0], 6.0 * (0.5 + c) * x, 1e-12, "through_vec_2''");
        let d = through_vec_2_derivatives(x, c);
        assert_close(d[2], h[0][0], 1e-12, "through_vec_2 derivatives");

        let (v, g, h) = through_fixed_2_hessian(x, c);
        let (p, q) = (2.0 * c, c + 2.0);
        assert_close(v, p * x.sin() + q * x * x, 1e-12, "through_fixed_2");
        assert_close(
            through_fixed_2(x, c),
            v,
            1e-12,
            "through_fixed_2 as written",
        );
        assert_close(g, p * x.cos() + 2.0 * q * x, 1e-12, "through_fixed_2'");
        assert_close(h[0][0], -p * x.sin() + 2.0 * q, 1e-12, "through_fixed_2''");

        // (2.5 sin x)(0.25 x³): its second derivative by hand, and by differences of `caller_2_grad`.
        let (v, g, h) = caller_2_hessian(x);
        let f = |x: f64| 2.5 * x.sin() * 0.25 * x.powi(3);
        let d1 = |x: f64| 0.625 * (x.cos() * x.powi(3) + 3.0 * x.sin() * x * x);
        let d2 = 0.625 * (-x.sin() * x.powi(3) + 6.0 * x.cos() * x * x + 6.0 * x.sin() * x);
        assert_close(v, f(x), 1e-12, "caller_2");
        assert_close(caller_2(x), v, 1e-12, "caller_2 as written");
        assert_close(g, d1(x), 1e-10, "caller_2'");
        assert_close(h[0][0], d2, 1e-10, "caller_2''");
        let step = 1e-5 * x.abs().max(1.0);
        let fd = (caller_2_grad(x + step).1 - caller_2_grad(x - step).1) / (2.0 * step);
        assert_close(
            h[0][0],
            fd,
            1e-6,
            "caller_2'' by differences of the gradient",
        );
    }
}
