// A float inside an `Option` parameter at `order = K` is lifted as a constant (tests/option_params48.rs),
// but the generic copy holds it as `Option<__S>`, which a plain helper written for `Option<f64>` does
// not take: the error names the parameter at the call, never the copy's own type parameter.
use autodiff::differentiable;

#[differentiable(order = 2)]
fn scaled(x: f64, scale: Option<f64>) -> f64 {
    x * x * plain_scale(scale)
}

fn plain_scale(scale: Option<f64>) -> f64 {
    scale.unwrap_or(1.0)
}

fn main() {}
