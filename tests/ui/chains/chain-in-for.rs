// `a.chain(b)` is run as two loops with one body: in a chain ending in a method (tests/chains30.rs), not as
// a `for` loop's iterator, whose body may `break`; and not reversed, which would run `b` first.
use autodiff::differentiable;

#[differentiable]
fn both(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().chain(y.iter()) {
        s += v * v;
    }
    s
}

#[differentiable]
fn both_reversed(x: &[f64], y: &[f64]) -> f64 {
    x.iter().chain(y.iter()).map(|v| v * 2.0).rev().fold(0.0, |a, b| a * 0.5 + b)
}

fn main() {}
