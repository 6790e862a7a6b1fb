//! Helpers shared by the integration tests: an independent central difference, tolerant comparisons,
//! and proptest strategies for inputs inside a function's domain.
//!
//! Every test crate under `tests/` includes this module with `mod common;` and uses only part of it.

// Each test crate compiles its own copy of this module and uses a different part of it.
#![allow(dead_code)]

use autodiff::check_gradient;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// The proptest configuration of the suite: few cases, so the whole suite stays fast, and no
/// regression files written into the source tree.
pub fn config() -> Config {
    Config {
        failure_persistence: None,
        ..Config::with_cases(64)
    }
}

/// The tolerance of [`check_gradient`] against central differences: those are good to about `1e-9`
/// relative for smooth functions, so `1e-6` separates right gradients from wrong ones.
pub const FD_TOL: f64 = 1e-6;

/// The tolerance of a generated `f64` derivative against a hand-written formula for it: both are exact
/// formulas evaluated in floating point, differing only in rounding.
pub const ANALYTIC_TOL: f64 = 1e-10;

/// The same for `f32`.
pub const ANALYTIC_TOL_F32: f64 = 1e-5;

/// `|actual - expected| / max(1, |actual|, |expected|)`, the error measure of `check_gradient`; 0 for
/// equal infinities, NaN when either side is NaN or the two are opposite infinities.
pub fn relative_error(actual: f64, expected: f64) -> f64 {
    if actual == expected {
        // Equal infinities compare equal, and are no error.
        return 0.0;
    }
    (actual - expected).abs() / 1.0_f64.max(actual.abs()).max(expected.abs())
}

/// Asserts that `actual` is within `tol` of `expected` in [`relative_error`]; NaN never passes.
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, tol: f64, what: &str) {
    let error = relative_error(actual, expected);
    assert!(
        error <= tol,
        "{what}: got {actual:e}, expected {expected:e} (relative error {error:e}, tolerance {tol:e})"
    );
}

/// Asserts [`assert_close`] component by component.
#[track_caller]
pub fn assert_all_close(actual: &[f64], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths differ");
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        assert_close(a, e, tol, &format!("{what}, component {i}"));
    }
}

/// Asserts that `grad` is the gradient of `f` at `x` by central finite differences
/// ([`autodiff::check_gradient`], tolerance [`FD_TOL`]).
#[track_caller]
pub fn assert_fd_gradient(f: impl Fn(&[f64]) -> f64, x: &[f64], grad: &[f64], what: &str) {
    let check = check_gradient(f, x, grad);
    assert!(check.is_ok(FD_TOL), "{what} at {x:?}: {check}");
}

/// The central difference `(f(x + h) - f(x - h)) / 2h` of a function of one variable, with a step scaled
/// to `x` as `check_gradient` does: written here independently of the crate, for derivatives of
/// derivatives and for `f32` code, which `check_gradient` does not take.
pub fn central_difference(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = f64::EPSILON.cbrt() * x.abs().max(1.0);
    let (above, below) = (x + h, x - h);
    (f(above) - f(below)) / (above - below)
}

/// `a · b`.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// The logistic function `1 / (1 + e^-x)`, the derivative of softplus and of the logistic loss.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

// ---- strategies: inputs inside a function's domain, away from its edges ----

/// Inputs of moderate size, where every smooth function of the suite is well conditioned.
pub fn moderate() -> impl Strategy<Value = f64> {
    -3.0..3.0_f64
}

/// Strictly positive inputs, for `ln`, `sqrt`, `powf` bases.
pub fn positive() -> impl Strategy<Value = f64> {
    0.1..10.0_f64
}

/// Inputs of `asin`, `acos`, `atanh`: inside (-1, 1), away from the ends where the derivative blows up.
pub fn open_unit() -> impl Strategy<Value = f64> {
    -0.95..0.95_f64
}

/// Inputs of `acosh`: above 1, away from it.
pub fn above_one() -> impl Strategy<Value = f64> {
    1.05..10.0_f64
}

/// Inputs of `tan`: inside (-π/2, π/2), away from the poles.
pub fn tan_domain() -> impl Strategy<Value = f64> {
    -1.3..1.3_f64
}

/// Inputs away from 0 on either side, for `abs`, `signum`, `recip`, `cbrt` and divisors.
pub fn nonzero() -> impl Strategy<Value = f64> {
    prop_oneof![-5.0..-0.1_f64, 0.1..5.0_f64]
}

/// Inputs at least `1e-3` away from the jumps of `floor`, `ceil`, `trunc` (integers) and `round`
/// (half-integers), so that central differences see a flat function.
pub fn away_from_jumps() -> impl Strategy<Value = f64> {
    (-5.0..5.0_f64).prop_filter("near a jump of floor, ceil, round or trunc", |x| {
        let twice = 2.0 * x;
        (twice - twice.round()).abs() > 2e-3
    })
}

/// Pairs `(x, y)` at least `1e-3` apart, so `max` and `min` are differentiable there.
pub fn distinct_pair() -> impl Strategy<Value = (f64, f64)> {
    (moderate(), moderate()).prop_filter("a tie of max or min", |(x, y)| (x - y).abs() > 1e-3)
}

/// Tangents for `_jvp` and cotangents for `_vjp`.
pub fn tangent() -> impl Strategy<Value = f64> {
    -2.0..2.0_f64
}
