// A call with a differentiated argument of a function that has no derivative: the error at the call names it
// and says how to give it a derivative (alone: `f` has no generic copy, since the file shows `helper` without
// derivatives, `context::plain_sibling`).
use autodiff::differentiable;

fn helper(v: f64) -> f64 {
    v * v
}

#[differentiable]
fn f(x: f64) -> f64 {
    helper(x) + 1.0
}

fn main() {}
