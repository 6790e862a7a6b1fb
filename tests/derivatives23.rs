//! `f_derivatives` agrees with `f_grad` and `f_hessian` for custom gradients that are not linear in their
//! cotangent (a clipped gradient): `f'` is `f_grad`'s and `f''` the Jacobian of `f_grad`, as
//! `jax.grad(jax.grad(f))` gives for a `jax.custom_vjp` function. Before, `f_derivatives` ran `f_jvp` on
//! nested duals, whose tangent is the closure's cotangents for `dy = 1` times the input's tangent: for
//! `3.0 * clipped_sin(x)` that gave `f' = 1.5 cos x` beside `f_grad`'s `0.5 cos x`.
//!
//! Every expected value is derived by hand in the comment above its test, not taken from the macro; the
//! third derivative is also checked against central differences of the second.

mod common;

use autodiff::{custom_gradient, differentiable};
use common::{assert_close, central_difference, config, ANALYTIC_TOL};
use proptest::prelude::*;

/// The value `sin x`; the closure clips the incoming cotangent to `[-0.5, 0.5]` before the chain rule
/// (gradient clipping, as TensorFlow's `custom_gradient` guide writes it): `dy.clamp(-0.5, 0.5) cos x`.
#[custom_gradient]
fn clipped_sin(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let c = x.cos();
    (x.sin(), move |dy| dy.clamp(-0.5, 0.5) * c)
}

/// `f = 3 s(x) + x²`. `_grad`: the cotangent into `s` is 3, clipped to 0.5: `f' = 0.5 cos x + 2x`.
/// Its derivatives (the closure through its captured `cos x`): `f'' = -0.5 sin x + 2`, `f''' = -0.5 cos x`.
#[differentiable(order = 3)]
fn scaled_clip(x: f64) -> f64 {
    3.0 * clipped_sin(x) + x * x
}

/// `f = x s(x)`. `_grad`: `sin x` (through the value) plus the closure at `dy = x`: `f' = sin x +
/// clamp(x) cos x`, with `clamp(x) = x.clamp(-0.5, 0.5)`. Inside `|x| < 0.5`: `f'' = 2 cos x - x sin x`,
/// `f''' = -3 sin x - x cos x`; outside (clamp = ±0.5, constant): `f'' = cos x ∓ 0.5 sin x`,
/// `f''' = -sin x ∓ 0.5 cos x`.
#[differentiable(order = 3)]
fn weighted_clip(x: f64) -> f64 {
    x * clipped_sin(x)
}

fn weighted_clip_expected(x: f64) -> [f64; 4] {
    let (s, c) = x.sin_cos();
    let k = x.clamp(-0.5, 0.5);
    let [second, third] = if x.abs() < 0.5 {
        [2.0 * c - x * s, -3.0 * s - x * c]
    } else {
        [c - k * s, -s - k * c]
    };
    [x * s, s + k * c, second, third]
}

/// Away from the clip's kinks at ±0.5, where central differences would straddle them.
fn away_from_kinks() -> impl Strategy<Value = f64> {
    (-3.0..3.0_f64).prop_filter("near a kink of the clip", |x| (x.abs() - 0.5).abs() > 1e-3)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn derivatives_of_a_clipped_cotangent_times_a_constant(x in away_from_kinks()) {
        let (s, c) = x.sin_cos();
        let want = [3.0 * s + x * x, 0.5 * c + 2.0 * x, -0.5 * s + 2.0, -0.5 * c];
        let got = scaled_clip_derivatives(x);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_close(*g, *w, ANALYTIC_TOL, &format!("scaled_clip, derivative {k}"));
        }
        assert_eq!(got[0], scaled_clip(x));
        let (value, gradient) = scaled_clip_grad(x);
        assert_close(got[1], gradient, ANALYTIC_TOL, "f' against scaled_clip_grad");
        let (_, _, hessian) = scaled_clip_hessian(x);
        assert_close(got[2], hessian[0][0], ANALYTIC_TOL, "f'' against scaled_clip_hessian");
        assert_eq!(value, got[0]);
        let fd = central_difference(|y| scaled_clip_grad(y).1, x);
        assert_close(got[2], fd, 1e-6, "f'' against differences of f_grad");
        let fd = central_difference(|y| scaled_clip_derivatives(y)[2], x);
        assert_close(got[3], fd, 1e-6, "f''' against differences of f''");
    }

    #[test]
    fn derivatives_of_a_clipped_cotangent_that_varies(x in away_from_kinks()) {
        let want = weighted_clip_expected(x);
        let got = weighted_clip_derivatives(x);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_close(*g, *w, ANALYTIC_TOL, &format!("weighted_clip, derivative {k}"));
        }
        assert_eq!(got[0], weighted_clip(x));
        let (_, gradient) = weighted_clip_grad(x);
        assert_close(got[1], gradient, ANALYTIC_TOL, "f' against weighted_clip_grad");
        let (_, _, hessian) = weighted_clip_hessian(x);
        assert_close(got[2], hessian[0][0], ANALYTIC_TOL, "f'' against weighted_clip_hessian");
        let fd = central_difference(|y| weighted_clip_grad(y).1, x);
        assert_close(got[2], fd, 1e-6, "f'' against differences of f_grad");
        let fd = central_difference(|y| weighted_clip_derivatives(y)[2], x);
        assert_close(got[3], fd, 1e-6, "f''' against differences of f''");
    }
}
