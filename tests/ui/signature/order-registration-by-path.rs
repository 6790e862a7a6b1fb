// A `#[gradient_of]` registration by path overrides the derivative of calls written with that path; an
// `order = 2` caller written for `f64` cannot differentiate it a second time (the registration of an `f64`
// function has no generic copy), and must not silently use the function's own derivative instead.
use autodiff::{differentiable, gradient_of};

mod own {
    #[autodiff::differentiable]
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

#[gradient_of(own::cube)]
fn cube_overridden(x: f64, dy: f64) -> f64 {
    dy * x
}

#[differentiable(order = 2)]
fn overridden(x: f64) -> f64 {
    own::cube(x)
}

fn main() {
    let _ = overridden_hessian(1.0);
}
