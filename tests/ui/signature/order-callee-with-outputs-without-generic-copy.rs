// `order = K` on an `f64` function calling an `f64` function with an output parameter that has no generic
// copy (it iterates a local `Vec` of computed values by reference, so `#[differentiable]` alone makes none): one error at the
// call, as for a callee without outputs.
use autodiff::differentiable;

#[differentiable]
fn scaled_into(x: &[f64], out: &mut [f64]) {
    let w = vec![x[0] * x[1], x[1]];
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
