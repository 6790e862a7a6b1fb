// `a.chain(b)` is run as two loops with one body: not where the body leaves the loop by `break` (the
// second loop would still run), and not reversed, which would run `b` first. (A `for` whose body does
// not break works: tests/chains30.rs.)
use autodiff::differentiable;

#[differentiable]
fn until_large(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().chain(y.iter()) {
        if *v > 1.0 {
            break;
        }
        s += v * v;
    }
    s
}

#[differentiable]
fn both_reversed(x: &[f64], y: &[f64]) -> f64 {
    x.iter().chain(y.iter()).map(|v| v * 2.0).rev().fold(0.0, |a, b| a * 0.5 + b)
}

fn main() {}
