// As order-custom-callee-calling-a-path-without-derivatives.rs, where the helper called by a path takes
// a slice built of the input (`helpers::total(&[x, 1.0])`): its argument is no scalar to pass as
// written, so the custom function's generic copy needs the helper's derivative: one error at the call.
use autodiff::{custom_gradient, differentiable};

mod helpers {
    pub fn total(v: &[f64]) -> f64 {
        v[0] + v[1]
    }
}

#[custom_gradient]
fn log_total(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let v = [x, 1.0];
    (helpers::total(&v).ln(), move |dy| dy / (x + 1.0))
}

#[differentiable(order = 2)]
fn energy(x: f64) -> f64 {
    log_total(x) * x
}

fn main() {
    let _ = energy_grad(0.5);
    let _ = energy_hessian(0.5);
}
