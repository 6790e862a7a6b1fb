// `order = K` on a function calling an `f64` `#[custom_gradient]` function whose body calls a helper
// without derivatives by a path (`helpers::doubled(x)`) on a value that depends on its input, with a
// float result: the custom function's generic copy would need the helper's derivative, so one error at
// that call, saying to give the helper derivatives or register its gradient. The function's first order
// compiles (its body is not differentiated there), and a path to a function with derivatives works at
// every order (tests/custom_paths19.rs).
use autodiff::{custom_gradient, differentiable};

mod helpers {
    pub fn doubled(v: f64) -> f64 {
        2.0 * v
    }
}

#[custom_gradient]
fn log_doubled(x: f64) -> (f64, impl Fn(f64) -> f64) {
    (helpers::doubled(x).ln(), move |dy| dy / x)
}

#[differentiable(order = 2)]
fn energy(x: f64) -> f64 {
    log_doubled(x) * x
}

fn main() {
    let _ = energy_grad(0.5);
    let _ = energy_hessian(0.5);
}
