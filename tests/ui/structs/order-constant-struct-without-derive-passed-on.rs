// A callee that keeps its struct constant and only reads its fields needs no derive, at first order and
// at `order = K` (tests/structs33.rs). An `order = K` caller passing such a struct on whole reads it
// through its values view, which the derive makes: without it, the one error is at the struct's type.
use autodiff::differentiable;

pub struct Plain {
    pub k: f64,
}

#[differentiable(wrt(x), order = 2)]
fn plain_callee(p: &Plain, x: &[f64]) -> f64 {
    p.k * x[0] * x[1]
}

#[differentiable(wrt(x), order = 2)]
fn plain_caller(p: &Plain, x: &[f64]) -> f64 {
    plain_callee(p, x) + x[0]
}

fn main() {
    let p = Plain { k: 1.0 };
    let _ = plain_caller_hessian(&p, &[1.0, 2.0]);
}
