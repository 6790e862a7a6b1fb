// `Some(y)` of a differentiated value passed to a function taking an `Option<f64>` (held constant there):
// the derivative through it would be lost, so an error at the variant, not rustc's about `Some` as a type.
use autodiff::differentiable;

#[differentiable]
fn scaled(x: f64, scale: Option<f64>) -> f64 {
    x * x * scale.unwrap_or(1.0)
}

#[differentiable]
fn caller(x: f64, y: f64) -> f64 {
    scaled(x, Some(y))
}

fn main() {}
