// `#[gradient_of]` written in `#[custom_gradient]`'s shape, `(value, |dy| ..)`: one error saying what a
// registration takes and returns, and the call of the registered function gets no error of its own.
use autodiff::{differentiable, gradient_of};

pub fn soft(x: f64) -> f64 {
    x.tanh()
}

#[gradient_of(soft)]
fn soft_grad(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let t = x.tanh();
    (t, move |dy| dy * (1.0 - t * t))
}

#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    soft(x * y) + x
}

fn main() {
    let _ = f_grad(0.5, 2.0);
}
