use autodiff::differentiable;

#[differentiable]
fn positive_squares(x: &[f64]) -> f64 {
    x.iter().filter_map(|v| if *v > 0.0 { Some(v * v) } else { None }).sum()
}

#[differentiable]
fn filtered_before_enumerate(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).enumerate().map(|(i, v)| v * i as f64).sum()
}

#[differentiable]
fn skipped_inside(x: &[f64]) -> f64 {
    x.iter().rev().skip(1).zip(x.iter()).map(|(a, b)| a * b).sum()
}

#[differentiable]
fn windows_reversed(x: &[f64]) -> f64 {
    x.windows(2).rev().map(|w| w[0] * w[1]).sum()
}

fn main() {}
