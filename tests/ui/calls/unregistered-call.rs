// A call with a differentiated argument of a function that has no derivative: the error at the call names it
// and says how to give it a derivative (E0573 beside it: `f`'s generic copy calls `helper`'s, which is none).
use autodiff::differentiable;

fn helper(v: f64) -> f64 {
    v * v
}

#[differentiable]
fn f(x: f64) -> f64 {
    helper(x) + 1.0
}

fn main() {}
