//! A float parameter that `wrt(..)` leaves out, passed to a function without derivatives (valid code that
//! was a compile error until session 27: the companion's hidden `__vjp_all`, what other differentiable
//! functions call, differentiated every float parameter and so needed the helper's derivatives;
//! `autodiff-macros/src/maybe.rs`). Now the hidden sweeps call such a helper as written with a zero
//! derivative, and the companion declares that no derivative comes back through that parameter, which a
//! caller passing a differentiated argument there checks at compile time
//! (tests/ui/calls/wrt-excluded-parameter-differentiated-by-a-caller.rs). Checked against analytic
//! derivatives and central differences (`common::probe`, no code shared with the macro) at seeded points,
//! for the function itself, for callers that pass a constant or a parameter outside their own `wrt(..)`
//! there, and for a parameter outside `wrt(..)` that reaches only functions with derivatives, through which
//! a caller does differentiate.

mod common;

use autodiff::differentiable;
use common::probe::*;

/// A plain helper: no derivatives.
fn bump(x: f64, t: f64) -> f64 {
    if x + t > 1.0 {
        5.0 * t
    } else {
        t * t
    }
}

#[differentiable]
fn sq(t: f64) -> f64 {
    t * t
}

/// `t` reaches only a function without derivatives.
#[differentiable(wrt(u))]
fn g(u: &[f64], t: f64) -> f64 {
    u[0] * u[0] * u[1] + bump(0.5, t) * u[1]
}

/// `t` reaches a function with derivatives and one without.
#[differentiable(wrt(u))]
fn g_mixed(u: &[f64], t: f64) -> f64 {
    let b = bump(0.5, t);
    u[0] * sq(t) + b * u[1]
}

/// `t` reaches only functions with derivatives: a caller differentiates through it.
#[differentiable(wrt(u))]
fn g_through(u: &[f64], t: f64) -> f64 {
    u[0] * sq(t) + (u[1] * t).sin()
}

/// Passes a constant to `g`'s `t`.
#[differentiable]
fn caller_constant(u: &[f64]) -> f64 {
    g(u, 0.75) + g_mixed(u, -0.25)
}

/// Passes its own parameter outside `wrt(..)` to `g`'s `t`, and to `g_through`'s.
#[differentiable(wrt(u))]
fn caller_excluded(u: &[f64], s: f64) -> f64 {
    g(u, s) * g_through(u, s)
}

/// Differentiates through `g_through`'s `t`, which reaches only functions with derivatives.
#[differentiable]
fn caller_through(u: &[f64], s: f64) -> f64 {
    g_through(u, s * s) + g(u, 0.5)
}

/// The forward sweep (`_jvp`) of a caller, through `g`'s hidden `__jvp_all`.
#[differentiable]
fn caller_scalar(a: f64, b: f64) -> f64 {
    let u = [a, b];
    g(&u, 0.3) * a
}

fn analytic_g(u: &[f64], t: f64) -> (f64, [f64; 2]) {
    let b = bump(0.5, t);
    (
        u[0] * u[0] * u[1] + b * u[1],
        [2.0 * u[0] * u[1], u[0] * u[0] + b],
    )
}

#[test]
fn excluded_parameter_to_plain_helper() {
    let mut lcg = Lcg::new(2711);
    for _ in 0..20 {
        let u = [lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0)];
        let t = lcg.uniform(-1.0, 2.0);
        let (v, grad) = g_grad(&u, t);
        let (value, expected) = analytic_g(&u, t);
        assert_near(v, value, 1e-14, 1.0, "g");
        assert_vec_near(&grad, &expected, 1e-13, "dg/du");
        assert_vec_near(&grad, &fd_gradient(&|u| g(u, t), &u), 1e-6, "dg/du fd");
        let (_, grad) = g_mixed_grad(&u, t);
        let mixed = |u: &[f64]| g_mixed(u, t);
        assert_vec_near(&grad, &[t * t, bump(0.5, t)], 1e-13, "dg_mixed/du");
        assert_vec_near(&grad, &fd_gradient(&mixed, &u), 1e-6, "dg_mixed/du fd");
    }
}

#[test]
fn callers_passing_constants_or_excluded_parameters() {
    let mut lcg = Lcg::new(2712);
    for _ in 0..20 {
        let u = [lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0)];
        let s = lcg.uniform(-1.0, 2.0);
        let (v, grad) = caller_constant_grad(&u);
        assert_near(v, caller_constant(&u), 1e-14, 1.0, "caller_constant");
        let (_, g1) = analytic_g(&u, 0.75);
        let g2 = [0.0625, bump(0.5, -0.25)];
        let expected = [g1[0] + g2[0], g1[1] + g2[1]];
        assert_vec_near(&grad, &expected, 1e-13, "caller_constant'");
        assert_vec_near(&grad, &fd_gradient(&|u| caller_constant(u), &u), 1e-6, "fd");
        let (_, grad) = caller_excluded_grad(&u, s);
        let f = |u: &[f64]| caller_excluded(u, s);
        assert_vec_near(&grad, &fd_gradient(&f, &u), 1e-6, "caller_excluded' fd");
        let (gv, gg) = analytic_g(&u, s);
        let hv = u[0] * s * s + (u[1] * s).sin();
        let hg = [s * s, s * (u[1] * s).cos()];
        let expected = [gg[0] * hv + gv * hg[0], gg[1] * hv + gv * hg[1]];
        assert_vec_near(&grad, &expected, 1e-12, "caller_excluded'");
    }
}

#[test]
fn callers_differentiating_through_a_parameter_that_reaches_only_derivatives() {
    let mut lcg = Lcg::new(2713);
    for _ in 0..20 {
        let u = [lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0)];
        let s = lcg.uniform(-1.5, 1.5);
        let (_, (gu, gs)) = caller_through_grad(&u, s);
        let t = s * s;
        // d/ds of u0 t^2 + sin(u1 t), t = s^2
        let ds = (2.0 * u[0] * t + u[1] * (u[1] * t).cos()) * 2.0 * s;
        assert_near(gs, ds, 1e-12, 1.0, "d caller_through/ds");
        assert_near(
            gs,
            fd1(&|s| caller_through(&u, s), s, 1e-6),
            1e-6,
            1.0,
            "fd ds",
        );
        let f = |u: &[f64]| caller_through(u, s);
        assert_vec_near(&gu, &fd_gradient(&f, &u), 1e-6, "d caller_through/du fd");
        // The forward sweep.
        let (a, b) = (u[0], u[1]);
        let (_, (ga, gb)) = caller_scalar_grad(a, b);
        let (_, ja) = caller_scalar_jvp(a, b, (1.0, 0.0));
        let (_, jb) = caller_scalar_jvp(a, b, (0.0, 1.0));
        assert_near(ja, ga, 1e-13, 1.0, "jvp a");
        assert_near(jb, gb, 1e-13, 1.0, "jvp b");
        assert_near(
            ga,
            fd1(&|a| caller_scalar(a, b), a, 1e-6),
            1e-6,
            1.0,
            "fd a",
        );
        assert_near(
            gb,
            fd1(&|b| caller_scalar(a, b), b, 1e-6),
            1e-6,
            1.0,
            "fd b",
        );
    }
}
