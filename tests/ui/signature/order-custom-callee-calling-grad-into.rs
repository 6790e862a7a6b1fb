// `order = K` on a function calling an `f64` `#[custom_gradient]` function whose body calls `sq_grad_into`,
// a derivative `#[differentiable]` generates without a generic copy (`_grad`, `_vjp`, `_jvp` and `_hvp`
// have one: tests/custom_calls44.rs): one error at that call, saying to call `sq_grad` instead.
use autodiff::{custom_gradient, differentiable};

#[differentiable]
fn sq(x: f64) -> f64 {
    x * x
}

#[custom_gradient]
fn sq_custom(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let mut g = 0.0;
    let v = sq_grad_into(x, &mut g);
    (v, move |dy| dy * g)
}

#[differentiable(order = 2)]
fn caller(x: f64) -> f64 {
    sq_custom(x) * x
}

fn main() {
    let _ = caller_hessian(0.5);
}
