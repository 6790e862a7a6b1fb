use autodiff::differentiable;
use std::collections::VecDeque;

#[differentiable]
fn first_doubled(x: &[f64]) -> f64 {
    let d = x.iter().map(|v| v * 2.0).collect::<VecDeque<f64>>();
    d[0]
}

fn main() {}
