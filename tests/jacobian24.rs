//! `f_jacobian` of functions returning a tuple of floats (`-> (f64, f64)`, API.md's `polar`): one row per
//! part of the tuple, columns the active inputs flattened in declaration order, as for an array result.
//! Checked against Jacobians worked out by hand and central finite differences on many points, in the
//! reverse-mode shape (fewer outputs than inputs), the forward-mode shape (more) and the square one.

mod common;

use autodiff::{custom_gradient, differentiable, Float};
use common::{assert_all_close, assert_jacobian, config, fd_jacobian, ANALYTIC_TOL};
use proptest::prelude::*;

/// API.md's example: two outputs of two inputs.
#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

/// Three outputs of one input: the forward-mode shape.
#[differentiable]
fn curve(x: f64) -> (f64, f64, f64) {
    (x * x, x.sin(), 2.0 * x.exp())
}

/// Two outputs of a slice and a scalar: the reverse-mode shape.
#[differentiable]
fn moments(x: &[f64], shift: f64) -> (f64, f64) {
    let mut mean = 0.0;
    for &v in x {
        mean += v - shift;
    }
    mean /= x.len() as f64;
    let mut var = 0.0;
    for &v in x {
        let d = v - shift - mean;
        var += d * d;
    }
    (mean, var / x.len() as f64)
}

/// A tuple parameter and a tuple result, `wrt` leaving a scale constant.
#[differentiable(wrt(p))]
fn swap_scaled(p: (f64, f64), scale: f64) -> (f64, f64) {
    (p.1 * scale, p.0 * p.1)
}

/// Generic, run on `f32` and `f64`.
#[differentiable]
fn mix<T: Float>(x: T, y: T) -> (T, T) {
    (x * y, (x - y).tanh())
}

/// A custom gradient with a tuple result: its closure is the vector-Jacobian product, so the rows are
/// what the closure gives for each unit cotangent (here the true derivative).
#[custom_gradient]
fn sum_product(x: f64, y: f64) -> ((f64, f64), impl Fn((f64, f64)) -> (f64, f64)) {
    ((x + y, x * y), move |d: (f64, f64)| {
        (d.0 + d.1 * y, d.0 + d.1 * x)
    })
}

/// A method returning a tuple.
struct Rotor {
    k: f64,
}

impl Rotor {
    #[differentiable]
    fn turn(&self, a: f64, b: f64) -> (f64, f64) {
        (self.k * a - b, a * b.cos())
    }
}

#[test]
fn polar_by_hand() {
    let (r, t) = (1.5, 0.3);
    let jacobian = polar_jacobian(r, t);
    assert_eq!(jacobian.len(), 2);
    assert_all_close(
        &jacobian[0],
        &[t.cos(), -r * t.sin()],
        ANALYTIC_TOL,
        "row 0",
    );
    assert_all_close(&jacobian[1], &[t.sin(), r * t.cos()], ANALYTIC_TOL, "row 1");
}

#[test]
fn curve_by_hand() {
    let x = -0.7;
    let jacobian = curve_jacobian(x);
    let expected = [2.0 * x, x.cos(), 2.0 * x.exp()];
    assert_eq!(jacobian.len(), 3);
    for (row, want) in jacobian.iter().zip(expected) {
        assert_all_close(row, &[want], ANALYTIC_TOL, "curve row");
    }
}

#[test]
fn generic_on_f32() {
    let (x, y) = (0.5f32, -0.25f32);
    let jacobian = mix_jacobian(x, y);
    let sech2 = 1.0 - (x - y).tanh().powi(2);
    let expected = [[y, x], [sech2, -sech2]];
    for (row, want) in jacobian.iter().zip(expected) {
        for (a, e) in row.iter().zip(want) {
            assert!((a - e).abs() <= 1e-6, "{a} against {e}");
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn polar_against_differences(r in -3.0..3.0f64, t in -3.0..3.0f64) {
        let numeric = fd_jacobian(|v| { let (a, b) = polar(v[0], v[1]); vec![a, b] }, &[r, t]);
        assert_jacobian(&polar_jacobian(r, t), &numeric, "polar");
    }

    #[test]
    fn curve_against_differences(x in -2.0..2.0f64) {
        let numeric = fd_jacobian(|v| { let (a, b, c) = curve(v[0]); vec![a, b, c] }, &[x]);
        assert_jacobian(&curve_jacobian(x), &numeric, "curve");
    }

    #[test]
    fn moments_against_differences(x in prop::collection::vec(-2.0..2.0f64, 2..6), shift in -1.0..1.0f64) {
        let n = x.len();
        let mut flat = x.clone();
        flat.push(shift);
        let numeric = fd_jacobian(|v| { let (m, s) = moments(&v[..n], v[n]); vec![m, s] }, &flat);
        let jacobian = moments_jacobian(&x, shift);
        prop_assert_eq!(jacobian[0].len(), n + 1);
        assert_jacobian(&jacobian, &numeric, "moments");
    }

    #[test]
    fn tuple_parameter_against_differences(a in -2.0..2.0f64, b in -2.0..2.0f64, scale in -2.0..2.0f64) {
        let numeric = fd_jacobian(|v| { let (p, q) = swap_scaled((v[0], v[1]), scale); vec![p, q] }, &[a, b]);
        assert_jacobian(&swap_scaled_jacobian((a, b), scale), &numeric, "swap_scaled");
    }

    #[test]
    fn generic_against_differences(x in -2.0..2.0f64, y in -2.0..2.0f64) {
        let numeric = fd_jacobian(|v| { let (p, q) = mix(v[0], v[1]); vec![p, q] }, &[x, y]);
        assert_jacobian(&mix_jacobian(x, y), &numeric, "mix");
    }

    #[test]
    fn custom_against_differences(x in -2.0..2.0f64, y in -2.0..2.0f64) {
        let numeric = fd_jacobian(|v| { let (p, q) = sum_product(v[0], v[1]); vec![p, q] }, &[x, y]);
        assert_jacobian(&sum_product_jacobian(x, y), &numeric, "sum_product");
    }

    #[test]
    fn method_against_differences(k in -2.0..2.0f64, a in -2.0..2.0f64, b in -2.0..2.0f64) {
        let rotor = Rotor { k };
        let numeric = fd_jacobian(|v| { let (p, q) = rotor.turn(v[0], v[1]); vec![p, q] }, &[a, b]);
        assert_jacobian(&rotor.turn_jacobian(a, b), &numeric, "turn");
    }
}
