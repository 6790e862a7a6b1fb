// `order = K` on a function calling a registered function (`#[gradient_of(cube)]`) whose gradient calls a
// plain helper without derivatives (`triple`) on a value that depends on the gradient's inputs: the
// registration's generic copy would need the helper's derivative, so one error at that call, saying to give
// the helper derivatives. (A differentiable callee, and a helper called on constants, work:
// tests/registered_order2.rs.)
use autodiff::{differentiable, gradient_of};

mod outside {
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

use outside::cube;

fn triple(x: f64) -> f64 {
    3.0 * x
}

#[gradient_of(cube)]
fn cube_vjp(x: f64, dy: f64) -> f64 {
    dy * triple(x) * x
}

#[differentiable(order = 2)]
fn energy(x: f64) -> f64 {
    cube(x) * x
}

fn main() {
    let _ = energy_grad(0.5);
    let _ = energy_hessian(0.5);
}
