use autodiff::{differentiable, Differentiable};

#[derive(Clone, Differentiable)]
pub struct Weights {
    w: Vec<f64>,
    b: f64,
}

#[differentiable]
fn weighted(p: Weights, x: &[f64]) -> f64 {
    let mut s = p.b;
    for i in 0..x.len() {
        s += p.w[i] * x[i];
    }
    s
}

// Without `wrt(..)`, a value of a type of one's own only passed on whole is taken for data (as an enum
// `mode: Mode` is): `weighted` differentiates it, so the call is the one error, which says to name it in
// `wrt(..)`.
#[differentiable]
fn passes(p: Weights, x: &[f64]) -> f64 {
    weighted(p, x) * 2.0
}

fn main() {}
