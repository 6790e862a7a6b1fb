// A float inside an `Option` parameter at `order = K`: the error names what the user wrote (the float
// type), never the generic copy's own type parameter.
use autodiff::differentiable;
use num_traits::Float;

#[differentiable(order = 2)]
fn scaled(x: f64, scale: Option<f64>) -> f64 {
    x * x * plain_scale(scale)
}

#[differentiable(order = 2)]
fn scaled_generic<T: Float>(x: T, scale: Option<T>) -> T {
    x * x * scale.unwrap_or(T::one())
}

fn plain_scale(scale: Option<f64>) -> f64 {
    scale.unwrap_or(1.0)
}

fn main() {}
