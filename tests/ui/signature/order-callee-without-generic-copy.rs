// `order = K` on an `f64` function calling an `f64` function that has no generic copy (it iterates by
// reference a local `Vec` that a call returns, `for v in w.iter()`, whose element type the macro cannot
// see, so `#[differentiable]` alone makes none): one error at the call, saying what to do. Following the
// advice, `order = 2` on the callee, compiles (`tests/higher_calls.rs`, `callee_iterating_a_local`).
use autodiff::differentiable;

#[differentiable]
fn doubled(x: &[f64]) -> Vec<f64> {
    let mut w = vec![0.0; x.len()];
    for i in 0..x.len() {
        w[i] = 2.0 * x[i];
    }
    w
}

#[differentiable]
fn sumsq(x: &[f64]) -> f64 {
    let w = doubled(x);
    let mut s = 0.0;
    for v in w.iter() {
        s += v * v;
    }
    s
}

#[differentiable(order = 2)]
fn caller(x: f64) -> f64 {
    let v = vec![x, 2.0 * x, 3.0 * x];
    sumsq(&v) * x
}

fn main() {}
