//! Derivatives at points where a function is not differentiable follow JAX (DESIGN.md section 6), so that
//! results compare directly with `jax.grad`. What this file asserts, for `_grad`, `_vjp` and `_jvp` alike:
//!
//! | expression | point | derivative | JAX's rule |
//! | --- | --- | --- | --- |
//! | `x.abs()` | `0.0` / `-0.0` | 1 / -1 | the sign bit, as Enzyme (JAX: `select(x >= 0, g, -g)`, 1 at both) |
//! | `x.max(y)`, `x.min(y)` | `x == y` | 0.5 to each side | ties split evenly |
//! | `x.max(0.0)`, `x.min(0.0)` | `0` | 0.5 | the same, with a constant side |
//! | `x.max(x)` | any | 1 | 0.5 + 0.5 |
//! | `x.sqrt()` | `0` | `+inf` | `0.5 / sqrt(x)` |
//! | `x.cbrt()` | `0` | `+inf` | `1 / (3 cbrt(x)²)` |
//! | `x.powi(2)`, `x.powi(3)` | `0` | 0 | `n x^(n-1)` |
//! | `x.powi(1)` | `0` | 1 | |
//! | `x.powi(0)` | any, `0` too | 0 | |
//! | `x.powf(y)` | `x == 0` | 0 in `y` | `log` of a zero base replaced by 0 |
//! | `x.powf(y)` | `y == 0` | 0 in `x` | |
//! | `floor`, `ceil`, `round`, `trunc` | at their jumps | 0 | piecewise constant |
//! | `signum` | `0` | 0 | |
//! | `x.clamp(lo, hi)` | `x == lo` | `(0.5, 0.5, 0)` in `(x, lo, hi)` | `jnp.clip` = `min(max(x, lo), hi)` |
//! | `x.clamp(lo, hi)` | `x == hi` | `(0.5, 0, 0.5)` | the same |
//! | `if x > 0.0 { x } else { 0.0 }` | `0` | 0 | a branch differentiates the branch taken |
//!
//! `clamp` at a bound is not in DESIGN.md's list: the rule is `jnp.clip`'s, the composition of `max` and
//! `min`, so each bound shares the slope half and half with `x` (`lax.clamp` would give 0 there instead).
//! Next to each point, the derivative is also checked against central differences, so the convention
//! sits between the two regular one-sided behaviours.

mod common;

use autodiff::{differentiable, Dual, Float};
use common::*;

#[differentiable]
fn abs(x: f64) -> f64 {
    x.abs()
}

#[differentiable]
fn max(x: f64, y: f64) -> f64 {
    x.max(y)
}

#[differentiable]
fn min(x: f64, y: f64) -> f64 {
    f64::min(x, y)
}

#[differentiable]
fn relu(x: f64) -> f64 {
    x.max(0.0)
}

#[differentiable]
fn negative_part(x: f64) -> f64 {
    x.min(0.0)
}

#[differentiable]
fn max_of_itself(x: f64) -> f64 {
    x.max(x)
}

#[differentiable]
fn sqrt(x: f64) -> f64 {
    x.sqrt()
}

#[differentiable]
fn cbrt(x: f64) -> f64 {
    x.cbrt()
}

#[differentiable]
fn square(x: f64) -> f64 {
    x.powi(2)
}

#[differentiable]
fn power(x: f64, n: i32) -> f64 {
    x.powi(n)
}

#[differentiable]
fn powf(x: f64, y: f64) -> f64 {
    x.powf(y)
}

#[differentiable]
fn floor(x: f64) -> f64 {
    x.floor()
}

#[differentiable]
fn ceil(x: f64) -> f64 {
    x.ceil()
}

#[differentiable]
fn round(x: f64) -> f64 {
    x.round()
}

#[differentiable]
fn trunc(x: f64) -> f64 {
    x.trunc()
}

#[differentiable]
fn signum(x: f64) -> f64 {
    x.signum()
}

#[differentiable]
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    x.clamp(lo, hi)
}

#[differentiable]
fn unit_clamp(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

#[differentiable]
fn branch_relu(x: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// The same kinks in generic code, run at `f32`, `f64` and `Dual<f64>`.
#[differentiable]
fn kinks<T: Float>(x: T, y: T) -> T {
    x.abs() + x.max(y) + x.powi(2) + x.floor()
}

/// A root in generic code. (Apart from `kinks`, where a zero tangent would meet its infinite slope.)
#[differentiable]
fn root<T: Float>(x: T) -> T {
    T::sqrt(x)
}

/// Asserts that `(value, derivative)` from `_grad` of a one-input function is `expected` at `x`, and that
/// `_jvp` with tangents 1 and 2 agrees.
#[track_caller]
fn assert_convention(
    what: &str,
    primal: fn(f64) -> f64,
    grad: fn(f64) -> (f64, f64),
    jvp: fn(f64, f64) -> (f64, f64),
    x: f64,
    expected: f64,
) {
    let (value, derivative) = grad(x);
    assert_eq!(value, primal(x), "{what} at {x}: value");
    assert_eq!(derivative, expected, "{what} at {x}: derivative");
    assert_eq!(jvp(x, 1.0), (value, expected), "{what} at {x}: jvp");
    assert_eq!(
        jvp(x, 2.0),
        (value, 2.0 * expected),
        "{what} at {x}: jvp with tangent 2"
    );
}

/// Asserts that, a little away from the kink at `x`, the derivative is the regular one by central
/// differences, on both sides.
#[track_caller]
fn assert_regular_beside(what: &str, primal: fn(f64) -> f64, grad: fn(f64) -> (f64, f64), x: f64) {
    for side in [x - 0.01, x + 0.01] {
        let (_, derivative) = grad(side);
        assert_fd_gradient(|v| primal(v[0]), &[side], &[derivative], what);
    }
}

#[test]
fn abs_at_zero_is_one_and_at_negative_zero_minus_one() {
    assert_convention("abs", abs, abs_grad, abs_jvp, 0.0, 1.0);
    assert_convention("abs", abs, abs_grad, abs_jvp, -0.0, -1.0);
    assert_regular_beside("abs", abs, abs_grad, 0.0);
    assert_eq!(abs_grad(-2.0), (2.0, -1.0));
}

#[test]
fn max_and_min_split_a_tie_evenly() {
    for x in [0.0, 1.5, -3.0] {
        assert_eq!(max_grad(x, x), (x, (0.5, 0.5)), "max tie at {x}");
        assert_eq!(min_grad(x, x), (x, (0.5, 0.5)), "min tie at {x}");
        assert_eq!(max_vjp(x, x, 2.0), (x, (1.0, 1.0)), "max tie vjp at {x}");
        assert_eq!(max_jvp(x, x, (1.0, 0.0)), (x, 0.5), "max tie jvp at {x}");
        assert_eq!(min_jvp(x, x, (1.0, 1.0)), (x, 1.0), "min tie jvp at {x}");
    }
    assert_eq!(max_grad(2.0, 1.0), (2.0, (1.0, 0.0)));
    assert_eq!(min_grad(2.0, 1.0), (1.0, (0.0, 1.0)));
    assert_fd_gradient(
        |v| max(v[0], v[1]),
        &[1.0, 1.02],
        &max_grad(1.0, 1.02).1.to_vec(),
        "max",
    );
    assert_fd_gradient(
        |v| min(v[0], v[1]),
        &[1.0, 1.02],
        &min_grad(1.0, 1.02).1.to_vec(),
        "min",
    );
}

#[test]
fn relu_at_zero_is_one_half() {
    assert_convention("x.max(0.0)", relu, relu_grad, relu_jvp, 0.0, 0.5);
    assert_convention(
        "x.min(0.0)",
        negative_part,
        negative_part_grad,
        negative_part_jvp,
        0.0,
        0.5,
    );
    assert_regular_beside("x.max(0.0)", relu, relu_grad, 0.0);
    assert_regular_beside("x.min(0.0)", negative_part, negative_part_grad, 0.0);
}

#[test]
fn max_of_a_value_with_itself_has_slope_one() {
    for x in [-1.0, 0.0, 2.5] {
        assert_convention(
            "x.max(x)",
            max_of_itself,
            max_of_itself_grad,
            max_of_itself_jvp,
            x,
            1.0,
        );
    }
}

#[test]
fn roots_at_zero_are_infinite() {
    assert_convention("sqrt", sqrt, sqrt_grad, sqrt_jvp, 0.0, f64::INFINITY);
    assert_convention("cbrt", cbrt, cbrt_grad, cbrt_jvp, 0.0, f64::INFINITY);
    assert_fd_gradient(
        |v| sqrt(v[0]),
        &[0.01],
        &[sqrt_grad(0.01).1],
        "sqrt beside 0",
    );
    assert_regular_beside("cbrt", cbrt, cbrt_grad, 0.0);
}

#[test]
fn integer_powers_at_zero() {
    assert_convention("x.powi(2)", square, square_grad, square_jvp, 0.0, 0.0);
    assert_regular_beside("x.powi(2)", square, square_grad, 0.0);
    let cases = [
        (0, 0.0, 0.0),
        (0, 3.0, 0.0),
        (1, 0.0, 1.0),
        (3, 0.0, 0.0),
        (2, 0.0, 0.0),
    ];
    for (n, x, expected) in cases {
        let (value, derivative) = power_grad(x, n);
        assert_eq!(value, power(x, n));
        assert_eq!(derivative, expected, "x.powi({n}) at {x}");
        assert_eq!(
            power_jvp(x, n, 1.0),
            (value, expected),
            "x.powi({n}) jvp at {x}"
        );
    }
}

#[test]
fn powf_at_a_zero_base_or_exponent() {
    // x^y at x = 0: the slope in y is 0 (JAX replaces log 0 by 0); the slope in x is y x^(y-1).
    assert_eq!(powf_grad(0.0, 2.0), (powf(0.0, 2.0), (0.0, 0.0)));
    assert_eq!(powf_grad(0.0, 3.5), (0.0, (0.0, 0.0)));
    // x^0 = 1 for every x: no slope in x, and ln(x) in y.
    let (value, (dx, dy)) = powf_grad(2.0, 0.0);
    assert_eq!((value, dx), (1.0, 0.0));
    assert_close(dy, 2.0_f64.ln(), ANALYTIC_TOL, "d/dy 2^y at y = 0");
    assert_eq!(powf_jvp(0.0, 2.0, (1.0, 1.0)), (0.0, 0.0));
}

#[test]
fn piecewise_constant_functions_have_slope_zero_at_their_jumps() {
    type Fns = (
        &'static str,
        fn(f64) -> f64,
        fn(f64) -> (f64, f64),
        fn(f64, f64) -> (f64, f64),
    );
    let functions: [Fns; 4] = [
        ("floor", floor, floor_grad, floor_jvp),
        ("ceil", ceil, ceil_grad, ceil_jvp),
        ("round", round, round_grad, round_jvp),
        ("trunc", trunc, trunc_grad, trunc_jvp),
    ];
    for (what, primal, grad, jvp) in functions {
        for x in [-2.0, -1.5, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0] {
            assert_convention(what, primal, grad, jvp, x, 0.0);
        }
        assert_regular_beside(what, primal, grad, 0.75);
    }
    for x in [-0.0, 0.0, -2.0, 3.0] {
        assert_convention("signum", signum, signum_grad, signum_jvp, x, 0.0);
    }
}

#[test]
fn clamp_at_its_bounds_follows_jnp_clip() {
    let (lo, hi) = (-1.0, 2.0);
    assert_eq!(clamp_grad(lo, lo, hi), (lo, (0.5, 0.5, 0.0)), "at lo");
    assert_eq!(clamp_grad(hi, lo, hi), (hi, (0.5, 0.0, 0.5)), "at hi");
    assert_eq!(clamp_grad(0.5, lo, hi), (0.5, (1.0, 0.0, 0.0)), "inside");
    assert_eq!(clamp_grad(-3.0, lo, hi), (lo, (0.0, 1.0, 0.0)), "below");
    assert_eq!(clamp_grad(5.0, lo, hi), (hi, (0.0, 0.0, 1.0)), "above");
    assert_eq!(
        clamp_jvp(lo, lo, hi, (1.0, 1.0, 1.0)),
        (lo, 1.0),
        "jvp at lo"
    );
    for x in [lo - 0.01, lo + 0.01, hi - 0.01, hi + 0.01] {
        let (_, grad) = clamp_grad(x, lo, hi);
        assert_fd_gradient(
            |v| clamp(v[0], v[1], v[2]),
            &[x, lo, hi],
            &grad.to_vec(),
            "clamp",
        );
    }

    assert_convention(
        "x.clamp(0.0, 1.0)",
        unit_clamp,
        unit_clamp_grad,
        unit_clamp_jvp,
        0.0,
        0.5,
    );
    assert_convention(
        "x.clamp(0.0, 1.0)",
        unit_clamp,
        unit_clamp_grad,
        unit_clamp_jvp,
        1.0,
        0.5,
    );
    assert_convention(
        "x.clamp(0.0, 1.0)",
        unit_clamp,
        unit_clamp_grad,
        unit_clamp_jvp,
        0.5,
        1.0,
    );
    assert_convention(
        "x.clamp(0.0, 1.0)",
        unit_clamp,
        unit_clamp_grad,
        unit_clamp_jvp,
        1.5,
        0.0,
    );
}

#[test]
fn a_branch_differentiates_the_branch_taken() {
    assert_convention(
        "if-relu",
        branch_relu,
        branch_relu_grad,
        branch_relu_jvp,
        0.0,
        0.0,
    );
    assert_regular_beside("if-relu", branch_relu, branch_relu_grad, 0.0);
}

#[test]
fn generic_code_follows_the_same_conventions() {
    // At x = y = 0: abs 1, the max tie 0.5 each, powi(2) 0, floor 0.
    let expected = (1.0 + 0.5, 0.5);
    let (_, (dx, dy)) = kinks_grad(0.0_f64, 0.0);
    assert_eq!((dx, dy), expected);
    let (_, (dx, dy)) = kinks_grad(0.0_f32, 0.0);
    assert_eq!((f64::from(dx), f64::from(dy)), expected);
    assert_eq!(kinks_jvp(0.0_f64, 0.0, (1.0, 1.0)), (0.0, 2.0));
    assert_eq!(root_grad(0.0_f64), (0.0, f64::INFINITY));
    assert_eq!(root_grad(0.0_f32), (0.0, f32::INFINITY));

    // Forward mode through `Dual` (the primal run on dual numbers) agrees with the generated gradient.
    let seeded = kinks(Dual::new(0.0, 1.0), Dual::new(0.0, 0.0));
    assert_eq!(seeded.eps, expected.0, "Dual forward mode in x");
    let seeded = kinks(Dual::new(0.0, 0.0), Dual::new(0.0, 1.0));
    assert_eq!(seeded.eps, expected.1, "Dual forward mode in y");
    assert_eq!(
        root(Dual::new(0.0, 1.0)).eps,
        f64::INFINITY,
        "Dual sqrt at 0"
    );
}
