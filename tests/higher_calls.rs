//! `order = K` on functions written for `f64` that call other functions: a generic callee, an `f64` callee
//! that has `order = K` itself, across modules; second derivatives checked against derivatives worked out
//! by hand and central differences of the generated gradient.

mod common;

use autodiff::{differentiable, Float};
use common::{assert_close, central_difference, config};
use proptest::prelude::*;

#[differentiable]
fn square<T: Float>(x: T) -> T {
    x * x
}

/// An `f64` callee with its own `order = 2`: its generic copy exists.
#[differentiable(order = 2)]
fn sine_times(x: f64, k: f64) -> f64 {
    (k * x).sin() * k
}

mod helpers {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

#[differentiable(order = 2)]
fn energy(x: f64, y: f64) -> f64 {
    square(x) * y + sine_times(x, 2.0) + helpers::cube(y)
}

fn energy_by_hand(x: f64, y: f64) -> [[f64; 2]; 2] {
    // x² y + 2 sin(2x) + y³
    [
        [2.0 * y - 8.0 * (2.0 * x).sin(), 2.0 * x],
        [2.0 * x, 6.0 * y],
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn hessian_through_calls(x in -2.0f64..2.0, y in -2.0f64..2.0) {
        let (value, (gx, gy), hessian) = energy_hessian(x, y);
        prop_assert_eq!(value, energy(x, y));
        assert_close(gx, 2.0 * x * y + 4.0 * (2.0 * x).cos(), 1e-12, "d/dx");
        assert_close(gy, x * x + 3.0 * y * y, 1e-12, "d/dy");
        let expected = energy_by_hand(x, y);
        for i in 0..2 {
            for j in 0..2 {
                assert_close(hessian[i][j], expected[i][j], 1e-10, "hessian by hand");
            }
        }
        // Central differences of the generated gradient.
        let fd = central_difference(|v| energy_grad(v, y).1 .0, x);
        assert_close(hessian[0][0], fd, 1e-6, "d2/dx2 by differences of the gradient");
    }
}

/// TensorFlow's `log1pexp`, written for `f64`, then differentiated twice by a caller.
#[autodiff::custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

#[differentiable(order = 2)]
fn softplus_energy(x: f64) -> f64 {
    log1pexp(x) * x
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn second_order_through_a_custom_gradient(x in -5.0f64..5.0) {
        // s(x) = ln(1 + e^x), s' = σ(x), s'' = σ(1 - σ); f = x s: f' = s + x σ, f'' = 2σ + x σ (1 - σ).
        let sigma = 1.0 / (1.0 + (-x).exp());
        let [f, d1, d2] = softplus_energy_derivatives(x);
        assert_close(f, softplus_energy(x), 1e-12, "f");
        assert_close(d1, (1.0 + x.exp()).ln() + x * sigma, 1e-10, "f'");
        assert_close(d2, 2.0 * sigma + x * sigma * (1.0 - sigma), 1e-10, "f''");
        let (_, g, hv) = softplus_energy_hvp(x, 1.0);
        assert_close(g, d1, 1e-12, "hvp gradient");
        assert_close(hv, d2, 1e-12, "hvp");
    }
}
