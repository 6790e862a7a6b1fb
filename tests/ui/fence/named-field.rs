use autodiff::differentiable;

pub struct Params {
    pub k: f64,
}

#[differentiable]
fn f(x: f64, p: &Params) -> f64 {
    p.k * x
}

fn main() {}
