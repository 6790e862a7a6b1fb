use autodiff::{differentiable, gradient_of};

mod outside {
    pub fn softsign(x: f64) -> f64 {
        x / (1.0 + x.abs())
    }
}

#[gradient_of(outside::softsign)]
fn softsign_vjp(x: f64, dy: f64) -> f64 {
    dy / ((1.0 + x.abs()) * (1.0 + x.abs()))
}

// The registration is found by the name `softsign` in this module, not by the path `outside::softsign`.
#[differentiable]
fn f(x: f64) -> f64 {
    outside::softsign(x) * x
}

fn main() {}
