// A `#[gradient_of]` registration by path overrides the derivative of calls written with that path; the
// function has derivatives of its own, whose forward code `f_hessian` would not differentiate through the
// registered copy: an error at the call, rather than a Hessian that is the derivative of neither gradient.
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
