// `order = K` on an `f64` function calling an `f64` function with an output parameter that has no generic
// copy (it iterates by reference a local `Vec` that a call returns, so `#[differentiable]` alone makes none):
// one error at the call, as for a callee without outputs.
use autodiff::differentiable;

#[differentiable]
fn product_and_second(x: &[f64]) -> Vec<f64> {
    vec![x[0] * x[1], x[1]]
}

#[differentiable]
fn scaled_into(x: &[f64], out: &mut [f64]) {
    let w = product_and_second(x);
    for (i, v) in w.iter().enumerate() {
        out[i] = 2.0 * v;
    }
}

#[differentiable(order = 2)]
fn caller(x: f64) -> f64 {
    let mut k = vec![0.0; 2];
    scaled_into(&[x, x * x], &mut k);
    k[0] * k[1]
}

fn main() {}
