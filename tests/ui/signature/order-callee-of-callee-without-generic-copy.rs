// `order = K` on an `f64` function calling an `f64` function that has a generic copy (it calls others only
// by name), whose own callee has none (it iterates by reference a local `Vec` that a call returns,
// `for v in powers.iter()`): the generic copies chain until that one, and its fallback is a compile error,
// under `cargo build`, naming it and saying why and what to do.
use autodiff::differentiable;

#[differentiable]
fn powers_of(x: f64) -> Vec<f64> {
    vec![x, x * x, x * x * x]
}

#[differentiable]
fn sum_of_powers(x: f64) -> f64 {
    let powers = powers_of(x);
    let mut s = 0.0;
    for v in powers.iter() {
        s += v * v;
    }
    s
}

#[differentiable]
fn scaled(x: f64, a: f64) -> f64 {
    a * sum_of_powers(x)
}

#[differentiable(order = 2)]
fn top(x: f64) -> f64 {
    scaled(x, 2.0).sin()
}

fn main() {
    let (_, _, hessian) = top_hessian(0.5);
    println!("{hessian:?}");
}
