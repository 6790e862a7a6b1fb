// A call takes `&a` of a named array; a reference to a literal or to another value says what to write.
use autodiff::{differentiable, Float};

#[differentiable]
pub fn sum2<T: Float>(v: &[T; 2]) -> T {
    v[0] + v[1]
}

#[differentiable]
pub fn literal(x: f64, y: f64) -> f64 {
    sum2(&[x, y]) * x
}

#[differentiable]
pub fn value(x: f64, y: f64) -> f64 {
    let p = [x, y];
    x + sum2(&{ p })
}

fn main() {}
