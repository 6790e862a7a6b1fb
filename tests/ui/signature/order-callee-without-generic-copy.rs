// `order = K` on an `f64` function calling an `f64` function that has no generic copy (it iterates by
// reference a local `Vec` that a plain function returns, `for v in w.iter()`, whose element type the macro
// cannot see, so `#[differentiable]` alone makes none; a `Vec` a differentiable callee returns holds floats
// and is iterated so in the copy: tests/generic_copy24.rs): one error at the call, saying what to do. Following the
// advice, `order = 2` on the callee, compiles (`tests/higher_calls.rs`, `callee_iterating_a_local`).
use autodiff::differentiable;

fn weights(n: usize) -> Vec<f64> {
    vec![1.5; n]
}

#[differentiable]
fn sumsq(x: &[f64]) -> f64 {
    let w = weights(x.len());
    let mut s = 0.0;
    for v in w.iter() {
        s += v * x[0] * x[0];
    }
    s
}

#[differentiable(order = 2)]
fn caller(x: f64) -> f64 {
    let v = vec![x, 2.0 * x, 3.0 * x];
    sumsq(&v) * x
}

fn main() {}
