// Calls: a differentiable callee is reached through its companion type (`square::vjp`); a custom gradient
// is a closure the reverse sweep calls with the output cotangent; a registered gradient makes a function
// we do not own differentiable by its name.
use autodiff::{custom_gradient, differentiable, gradient_of};

#[differentiable]
fn square(x: f64) -> f64 {
    x * x
}

#[custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

use libm::erf;

#[gradient_of(libm::erf)]
fn erf_vjp(x: f64, dy: f64) -> f64 {
    dy * 2.0 / core::f64::consts::PI.sqrt() * (-x * x).exp()
}

#[differentiable]
fn model(x: f64, w: f64) -> f64 {
    log1pexp(square(x) * w) + erf(w)
}
