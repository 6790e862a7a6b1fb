// Functions written for `f64` without generic copies (one iterates a slice, one has `f32` in its signature
// too, one is a registered outside function) and the functions that call them keep their first order: their
// callers' generic copies compile, since each callee's fallback is an error only once an `order = K`
// function instantiates it.
use autodiff::{differentiable, gradient_of};

mod outside {
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

use outside::cube;

#[gradient_of(outside::cube)]
fn cube_vjp(x: f64, dy: f64) -> f64 {
    3.0 * x * x * dy
}

#[differentiable]
fn sum_of_powers(x: f64) -> f64 {
    let powers = vec![x, x * x];
    powers.iter().sum()
}

#[differentiable]
fn mixed(x: f64, s: f32) -> f64 {
    x * x * s as f64
}

#[differentiable]
fn caller(x: f64) -> f64 {
    sum_of_powers(x) * cube(x)
}

#[differentiable]
fn calls_mixed(x: f64) -> f64 {
    mixed(x, 2.0) + x
}

fn main() {
    let (value, gradient) = caller_grad(2.0);
    assert_eq!(value, 6.0 * 8.0);
    // (x + x²) x³ = x⁴ + x⁵: 4x³ + 5x⁴ at 2.
    assert_eq!(gradient, 4.0 * 8.0 + 5.0 * 16.0);
    // 2x² + x: 4x + 1 at 2.
    assert_eq!(calls_mixed_grad(2.0), (10.0, 9.0));
}
