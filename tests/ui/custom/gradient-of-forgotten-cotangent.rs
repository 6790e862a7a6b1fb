// A registered gradient without its `dy` parameter: one error per registration, none at the calls.
use autodiff::{differentiable, gradient_of};

mod outside {
    pub fn softclip(x: f64) -> f64 {
        x.tanh()
    }
    pub fn power(x: f64, k: i32) -> f64 {
        x.powi(k)
    }
    pub fn product(x: f64, y: f64) -> f64 {
        x * y
    }
}

#[gradient_of(outside::softclip)]
fn softclip_vjp(x: f64) -> f64 {
    1.0 - x.tanh().powi(2)
}

#[gradient_of(outside::power)]
fn power_vjp(x: f64, k: i32) -> f64 {
    f64::from(k) * x.powi(k - 1)
}

#[gradient_of(outside::product)]
fn product_vjp(x: f64, y: f64) -> (f64, f64) {
    (y, x)
}

#[differentiable(order = 2)]
fn uses(x: f64, y: f64) -> f64 {
    outside::softclip(x) + outside::power(x, 3) + outside::product(x, y)
}

fn main() {
    let _ = uses_grad(0.5, 1.0);
}
