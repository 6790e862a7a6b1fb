//! Issue 8's smaller holes at `order = K`: second derivatives at the singular points of `sqrt`, `cbrt`,
//! `powf` and `ln` (the limits, as JAX gives them, not NaN), `copy_from_slice` and `fill` in a callee of an
//! `order = K` function (its generic copy), a sub-slice receiver out of range (it panics before anything is
//! written, as the function does), and casts inside active expressions at `order = 2`. Every Hessian is
//! checked against central differences of `f_grad` at many random points, and against its formula.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::probe::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

const POINTS: usize = 40;

// ---------------------------------------------------------------------------------------------------
// 1. Roots, powers and logarithms at 0.

#[differentiable(order = 2)]
fn root(x: f64) -> f64 {
    x.sqrt()
}

#[differentiable(order = 2)]
fn half_power(x: f64) -> f64 {
    x.powf(0.5)
}

#[differentiable(order = 2)]
fn cube_root(x: f64) -> f64 {
    x.cbrt()
}

#[differentiable(order = 2)]
fn log(x: f64) -> f64 {
    x.ln()
}

#[differentiable(order = 2)]
fn absolute(x: f64) -> f64 {
    x.abs()
}

/// The root scaled: the cotangent reaching `sqrt` is 3, not the seed 1.
#[differentiable(order = 2)]
fn scaled_root(x: f64) -> f64 {
    3.0 * x.sqrt() + x
}

/// Two inputs through every rule of this part.
#[differentiable(order = 2)]
fn mixed(x: f64, y: f64) -> f64 {
    x.sqrt() * y + y.powf(0.5) * x.cbrt() + (x * y).ln() + x.powf(1.5) * y.abs()
}

#[differentiable(order = 3)]
fn root3(x: f64) -> f64 {
    x.sqrt()
}

/// The values of `f_derivatives` at 0, each against the limit of the formula, where the limit exists
/// (JAX's `grad(grad(f))` at 0, float64, gives the same).
#[test]
fn second_derivatives_at_zero_are_the_limits() {
    assert_eq!(
        root_derivatives(0.0),
        [0.0, f64::INFINITY, f64::NEG_INFINITY]
    );
    // `-0.0`: the root is `-0.0`; slope and curvature as at `+0.0` (sqrt has no left side).
    assert_eq!(
        root_derivatives(-0.0)[1..],
        [f64::INFINITY, f64::NEG_INFINITY]
    );
    assert_eq!(
        half_power_derivatives(0.0),
        [0.0, f64::INFINITY, f64::NEG_INFINITY]
    );
    assert_eq!(
        cube_root_derivatives(0.0),
        [0.0, f64::INFINITY, f64::NEG_INFINITY]
    );
    // cbrt'' = -2 / (9 x^(5/3)) is positive for x < 0: its limit from the left is +inf.
    assert_eq!(
        cube_root_derivatives(-0.0)[1..],
        [f64::INFINITY, f64::INFINITY]
    );
    assert_eq!(
        log_derivatives(0.0),
        [f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY]
    );
    assert_eq!(
        log_derivatives(-0.0)[1..],
        [f64::NEG_INFINITY, f64::NEG_INFINITY]
    );
    // abs: slope 1 at +0.0 and -1 at -0.0 (docs/conventions.md), curvature 0 on both.
    assert_eq!(absolute_derivatives(0.0), [0.0, 1.0, 0.0]);
    assert_eq!(absolute_derivatives(-0.0)[1..], [-1.0, 0.0]);
    assert_eq!(
        scaled_root_derivatives(0.0),
        [0.0, f64::INFINITY, f64::NEG_INFINITY]
    );
    // The Hessian and the Hessian-vector product agree with f_derivatives.
    let (_, g, h) = root_hessian(0.0);
    assert_eq!((g, h[0][0]), (f64::INFINITY, f64::NEG_INFINITY));
    let (_, _, hv) = root_hvp(0.0, 1.0);
    assert_eq!(hv, f64::NEG_INFINITY);
    let (_, _, h) = half_power_hessian(0.0);
    assert_eq!(h[0][0], f64::NEG_INFINITY);
    // The first order at 0 is as before: +inf, and a zero tangent gives 0.
    assert_eq!(root_grad(0.0), (0.0, f64::INFINITY));
    assert_eq!(root_jvp(0.0, 0.0), (0.0, 0.0));
    assert_eq!(half_power_grad(0.0), (0.0, f64::INFINITY));
    assert_eq!(
        half_power_vjp(0.0, 0.0),
        (0.0, 0.0),
        "a zero adjoint meets the infinite slope as 0"
    );
    assert_eq!(cube_root_grad(0.0), (0.0, f64::INFINITY));
}

#[test]
fn third_derivative_of_the_root() {
    // sqrt''' = 3 / (8 x^(5/2)).
    let mut rng = Lcg::new(seed_of("root3"));
    for _ in 0..POINTS {
        let x = rng.uniform(0.05, 4.0);
        let d = root3_derivatives(x);
        assert_near(d[1], 0.5 / x.sqrt(), 1e-12, 1.0, "sqrt'");
        assert_near(d[2], -0.25 * x.powf(-1.5), 1e-12, 1.0, "sqrt''");
        assert_near(d[3], 0.375 * x.powf(-2.5), 1e-12, 1.0, "sqrt'''");
    }
}

#[test]
fn roots_powers_and_logarithms_away_from_zero() {
    one("root", root, root_grad, root_jvp, root_grad_into)
        .hessian(hess1(root_hessian, root_derivatives))
        .analytic(|x| vec![0.5 / x[0].sqrt()])
        .run(POINTS, range(1, 0.05, 5.0));
    one(
        "half_power",
        half_power,
        half_power_grad,
        half_power_jvp,
        half_power_grad_into,
    )
    .hessian(hess1(half_power_hessian, half_power_derivatives))
    .analytic(|x| vec![0.5 / x[0].sqrt()])
    .run(POINTS, range(1, 0.05, 5.0));
    one(
        "cube_root",
        cube_root,
        cube_root_grad,
        cube_root_jvp,
        cube_root_grad_into,
    )
    .hessian(hess1(cube_root_hessian, cube_root_derivatives))
    .analytic(|x| vec![1.0 / (3.0 * x[0].cbrt().powi(2))])
    .run(POINTS, away_from(1, -5.0, 5.0, 100.0, 0.0));
    one("log", log, log_grad, log_jvp, log_grad_into)
        .hessian(hess1(log_hessian, log_derivatives))
        .analytic(|x| vec![1.0 / x[0]])
        .run(POINTS, range(1, 0.05, 5.0));
    one(
        "scaled_root",
        scaled_root,
        scaled_root_grad,
        scaled_root_jvp,
        scaled_root_grad_into,
    )
    .hessian(hess1(scaled_root_hessian, scaled_root_derivatives))
    .analytic(|x| vec![1.5 / x[0].sqrt() + 1.0])
    .run(POINTS, range(1, 0.05, 5.0));
    two("mixed", mixed, mixed_grad, mixed_jvp, mixed_grad_into)
        .hessian(hess2(mixed_hessian))
        .run(POINTS, away_from(2, 0.05, 4.0, 100.0, 0.0));
    // The formulas of the second derivatives, at random points.
    let mut rng = Lcg::new(seed_of("formulas"));
    for _ in 0..POINTS {
        let x = rng.uniform(0.05, 5.0);
        let what = format!("at {x}");
        assert_near(
            root_derivatives(x)[2],
            -0.25 * x.powf(-1.5),
            1e-12,
            1.0,
            &what,
        );
        assert_near(
            half_power_derivatives(x)[2],
            -0.25 * x.powf(-1.5),
            1e-12,
            1.0,
            &what,
        );
        assert_near(log_derivatives(x)[2], -1.0 / (x * x), 1e-12, 1.0, &what);
        let c = rng.uniform(-5.0, 5.0);
        assert_near(
            cube_root_derivatives(c)[2],
            -2.0 / (9.0 * c.cbrt().powi(5)),
            1e-12,
            1.0,
            &format!("cbrt'' at {c}"),
        );
    }
}
