// `order = K` on an `f64` function calling an `f64` function that has no generic copy (it passes a slice
// on by reference, `&x[1..]`, so `#[differentiable]` alone makes none): one error at the call, saying what
// to do.
use autodiff::differentiable;

#[differentiable]
fn sumsq(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s
}

#[differentiable]
fn tail_sumsq(x: &[f64]) -> f64 {
    sumsq(&x[1..])
}

#[differentiable(order = 2)]
fn caller(x: f64) -> f64 {
    let v = vec![x, 2.0 * x, 3.0 * x];
    tail_sumsq(&v) * x
}

fn main() {}
