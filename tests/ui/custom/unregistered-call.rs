use autodiff::differentiable;

mod outside {
    pub fn softsign(x: f64) -> f64 {
        x / (1.0 + x.abs())
    }
}
use outside::softsign;

#[differentiable]
fn f(x: f64) -> f64 {
    softsign(x) * x
}

fn main() {}
