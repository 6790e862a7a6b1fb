//! scratch
mod common;

use autodiff::{custom_gradient, differentiable};

#[differentiable]
fn sq(x: f64) -> f64 {
    x * x
}

#[custom_gradient]
fn sq_custom(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let (v, g) = sq_grad(x);
    (v, move |dy| dy * g)
}

#[differentiable(order = 2)]
fn through_sq(x: f64) -> f64 {
    sq_custom(x) * 3.0
}

#[test]
fn scalar() {
    let (_, _, h) = through_sq_hessian(0.7);
    assert!((h[0][0] - 6.0).abs() < 1e-12, "{h:?}");
}
