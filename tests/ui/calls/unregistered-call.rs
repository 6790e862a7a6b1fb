// A call with a differentiated argument of a function that has no derivative: one error, at the call,
// naming the function and saying how to give it a derivative.
use autodiff::differentiable;

fn helper(v: f64) -> f64 {
    v * v
}

#[differentiable]
fn f(x: f64) -> f64 {
    helper(x) + 1.0
}

fn main() {}
