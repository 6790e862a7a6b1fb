// `.rev()` after a stage that counts elements (`.skip(n)`, `.take(n)`, `.step_by(k)`, `.enumerate()`)
// would change which elements it keeps or the counts it gives: refused, where after `.map(..)` and
// `.filter(..)` it reverses the source (tests/chains30.rs).
use autodiff::differentiable;

#[differentiable]
fn tail_reversed(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).skip(1).rev().fold(0.0, |a, b| a * 0.5 + b)
}

#[differentiable]
fn counted_reversed(x: &[f64]) -> f64 {
    x.iter()
        .map(|v| v * v)
        .enumerate()
        .rev()
        .map(|(i, v)| v * i as f64)
        .sum::<f64>()
}

fn main() {}
