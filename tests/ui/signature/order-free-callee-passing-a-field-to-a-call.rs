// As `order-callee-passing-a-field-to-a-call`, of a free function: one error at the callee, saying to
// give it `order = 2` (rustc's missing `__energy_whole` before).
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Differentiable)]
struct Lin {
    w: Vec<f64>,
    b: f64,
}

#[differentiable]
fn sq(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn energy(q: &Lin, x: f64) -> f64 {
    sq(q.b) * x + q.w[0]
}

#[differentiable(order = 2)]
fn outer(p: &Lin, x: f64) -> f64 {
    energy(p, x) * x
}

fn main() {}
