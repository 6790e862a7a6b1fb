use autodiff::differentiable;

#[differentiable]
fn last_square(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).last().unwrap_or(0.0)
}

fn main() {}
