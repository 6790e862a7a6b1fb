// `order = K` on a function calling an `f64` `#[custom_gradient]` function whose body calls `sumsq_grad`,
// the gradient `#[differentiable]` generated for a function that has no generic copy (it iterates by
// reference a `Vec` that a plain function returns, whose element type the macro cannot see): the custom
// function's copy would run `sumsq`'s copy, so one error, saying why `sumsq` has none and what to do. (A
// callee with a copy works: tests/custom_calls44.rs.)
use autodiff::{custom_gradient, differentiable};

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

#[custom_gradient]
fn sumsq_custom(x: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64>) {
    let (v, g) = sumsq_grad(x);
    (v, move |dy| g.iter().map(|gi| dy * gi).collect())
}

#[differentiable(order = 2)]
fn caller(x: f64) -> f64 {
    let v = vec![x, 2.0 * x, 3.0 * x];
    sumsq_custom(&v) * x
}

fn main() {
    let _ = caller_hessian(0.5);
}
