use autodiff::{differentiable, Differentiable};

#[derive(Clone, Debug, Differentiable)]
pub struct Springs {
    pub k: f64,
}

#[differentiable]
fn owned(s: Springs, x: f64) -> f64 {
    s.k * x
}

#[differentiable(wrt(s))]
fn total(s: &Springs, x: f64) -> f64 {
    owned(s.clone(), x) + s.k * s.k
}

fn main() {}
