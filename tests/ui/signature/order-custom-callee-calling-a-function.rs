// `order = K` on a function calling an `f64` `#[custom_gradient]` function whose closure calls another
// function (here `sigmoid`, differentiable itself): the custom function has no generic copy (the macro
// cannot tell a differentiable callee from a plain `f64` helper), so one error at the call, saying to
// make it generic over `T: Float` (tests/higher_custom.rs has that version, with its Hessian).
use autodiff::{custom_gradient, differentiable};

#[differentiable]
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * sigmoid(x))
}

#[differentiable(order = 2)]
fn softplus_energy(x: f64) -> f64 {
    log1pexp(x) * x
}

fn main() {}
