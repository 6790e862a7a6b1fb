use autodiff::{custom_gradient, differentiable};

#[custom_gradient]
fn scaled(x: f64) -> f64 {
    2.0 * x
}

// A caller gets no cascade of errors: `scaled` stays an ordinary function.
#[differentiable]
fn caller(x: f64) -> f64 {
    scaled(x) + 1.0
}

fn main() {}
