// Second order of a function with an output parameter is not supported yet: one clear error.
use autodiff::differentiable;

#[differentiable(order = 2)]
fn with_out(x: &[f64], out: &mut [f64]) -> f64 {
    out[0] = x[0] * x[1];
    out[0] * x[0]
}

fn main() {}
