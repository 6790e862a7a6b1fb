use autodiff::differentiable;

#[differentiable]
fn f(xs: &[f64]) -> f64 {
    xs[0] = 2.0 * xs[1];
    xs[0]
}

fn main() {}
