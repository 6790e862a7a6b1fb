// Generic code, a tuple return, `wrt(..)` and rules that bind several partials at once.
use autodiff::{differentiable, Float};

#[differentiable]
fn softplus_max<T: Float>(x: T, y: T) -> T {
    let one = T::one();
    (one + x.exp()).ln().max(y)
}

#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

#[differentiable(wrt(a))]
fn scaled_power(a: f64, b: f64, n: i32) -> f64 {
    a.powf(b) * (n as f64)
}
