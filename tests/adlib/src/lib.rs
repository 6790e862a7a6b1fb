//! A library of differentiable functions that another crate calls: the cross-crate tests of `autodiff`
//! (`tests/cross_crate.rs` of the workspace root) differentiate through every item here.
//!
//! Each `#[differentiable]` or `#[custom_gradient]` function carries a hidden companion type of its name
//! (see `autodiff-macros/src/companion.rs`), exported with the same visibility, so `use adlib::softplus;`
//! or a call `adlib::softplus(x)` in another crate's differentiable function finds its derivatives.
//! `plain_dot` has none: a caller registers its gradient with `#[gradient_of(adlib::plain_dot)]`.

use autodiff::{custom_gradient, differentiable, Float};

/// `ln(1 + eˣ)`, computed stably, with its gradient `σ(x)` written by hand (a custom gradient).
#[custom_gradient]
pub fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let sigmoid = 1.0 / (1.0 + (-x).exp());
    let value = x.max(0.0) + (-x.abs()).exp().ln_1p();
    (value, move |dy| dy * sigmoid)
}

/// `softplus(x) / β` at sharpness `β`: `ln(1 + e^(βx)) / β`, through the custom gradient of
/// [`log1pexp`] (a call inside this crate).
#[differentiable]
pub fn softplus(x: f64, beta: f64) -> f64 {
    log1pexp(beta * x) / beta
}

/// The Gaussian bump `exp(-(x - μ)² / 2)`, generic over the float type.
#[differentiable]
pub fn bump<T: Float>(x: T, mu: T) -> T {
    let half = T::from(0.5).unwrap();
    let u = x - mu;
    (-half * u * u).exp()
}

/// `Σ xᵢ²`.
#[differentiable]
pub fn sumsq(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        s += v * v;
    }
    s
}

/// The weighted sum `Σ wᵢ sin(xᵢ)`, generic, of two slices.
#[differentiable]
pub fn weighted_sines<T: Float>(w: &[T], x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..w.len() {
        s = s + w[i] * x[i].sin();
    }
    s
}

/// The point at radius `r` and angle `t`: `(r cos t, r sin t)`.
#[differentiable]
pub fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

/// `a · x`, element by element.
#[differentiable]
pub fn scaled(x: &[f64], a: f64) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..x.len() {
        out[i] = a * x[i];
    }
    out
}

/// Statistics in a module of their own, called by path from the other crate.
pub mod stats {
    use autodiff::differentiable;

    /// The mean of `x` (not empty).
    #[differentiable]
    pub fn mean(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += v;
        }
        s / x.len() as f64
    }

    /// The population variance of `x` (not empty), through [`mean`].
    #[differentiable]
    pub fn variance(x: &[f64]) -> f64 {
        let m = mean(x);
        let mut s = 0.0;
        for &v in x {
            s += (v - m) * (v - m);
        }
        s / x.len() as f64
    }
}

/// `a · b`, a plain function without derivatives: callers register its gradient themselves.
pub fn plain_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// A smooth `|x|`: `softplus(x, β) + softplus(-x, β)`, a chain of three functions written for `f64` across
/// the crate boundary (this, [`softplus`], the custom gradient of [`log1pexp`]), which an `order = 2`
/// caller in another crate differentiates twice through their generic copies.
#[differentiable]
pub fn smooth_abs(x: f64, beta: f64) -> f64 {
    softplus(x, beta) + softplus(-x, beta)
}
