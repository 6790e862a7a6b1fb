// `a.chain(b)` is run as two loops with one body (a `for` whose body breaks sets a flag that skips the
// second: tests/chains31.rs); not reversed, which would run `b` first.
use autodiff::differentiable;

#[differentiable]
fn both_reversed(x: &[f64], y: &[f64]) -> f64 {
    x.iter().chain(y.iter()).map(|v| v * 2.0).rev().fold(0.0, |a, b| a * 0.5 + b)
}

fn main() {}
