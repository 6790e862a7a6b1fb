use autodiff::differentiable;

#[differentiable]
fn positive_squares(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).map(|v| v * v).sum()
}

fn main() {}
