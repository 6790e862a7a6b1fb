// A `#[gradient_of]` registration by path overrides the derivative of calls written with that path; the
// generic copy of an `order = 2` caller written for `f64` calls the function's own copy by that path, so it
// is an error rather than a Hessian that is not the derivative of the gradient `f_grad` gives.
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
