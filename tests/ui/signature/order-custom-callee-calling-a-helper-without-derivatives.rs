// `order = K` on a function calling an `f64` `#[custom_gradient]` function whose closure calls a plain
// helper without derivatives (`logistic`) on a value that depends on the custom function's input: the
// custom function's generic copy would need the helper's derivative, so one error at that call, saying
// to give the helper derivatives. (A helper called on constants, and any differentiable callee, work:
// tests/higher_custom.rs.)
use autodiff::{custom_gradient, differentiable};

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * logistic(x))
}

#[differentiable(order = 2)]
fn softplus_energy(x: f64) -> f64 {
    log1pexp(x) * x
}

fn main() {
    let _ = softplus_energy_grad(0.5);
    let _ = softplus_energy_hessian(0.5);
}
