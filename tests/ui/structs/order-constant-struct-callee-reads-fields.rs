// `order = 2` on a function keeping its struct constant and passing it on whole works where the callee
// differentiates the struct (tests/structs31.rs). A callee that keeps it constant too and only reads its
// fields takes them as values, not the struct's values view (which would need the derive): it has no
// generic copy over the view, and the caller gets the one error at its call.
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
struct Cfg {
    b: f64,
}

#[differentiable(wrt(x), order = 2)]
fn reads_fields(p: &Cfg, x: &[f64]) -> f64 {
    p.b * x[0] * x[1]
}

#[differentiable(wrt(x), order = 2)]
fn caller(p: &Cfg, x: &[f64]) -> f64 {
    reads_fields(p, x) + x[0]
}

fn main() {
    let p = Cfg { b: 1.0 };
    let _ = caller_hessian(&p, &[1.0, 2.0]);
}
