use autodiff::differentiable;

mod outside {
    pub fn softsign(x: f64) -> f64 {
        x / (1.0 + x.abs())
    }
}

#[differentiable]
fn f(x: f64) -> f64 {
    outside::softsign(x) * x
}

fn main() {}
