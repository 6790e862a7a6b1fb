// `order = K` on a function calling an `f64` `#[custom_gradient]` function whose body calls a plain helper
// without derivatives on its input (`with_square(x)`), whose result holds floats: the tangent of `x` would
// reach the value through the helper, which has no derivative, so one error at that call (a helper whose
// result holds no float, an index, is called as written: tests/higher_custom.rs, `by_table`).
use autodiff::{custom_gradient, differentiable};

fn with_square(x: f64) -> (f64, f64) {
    (x, x * x)
}

#[custom_gradient]
fn from_tuple(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let (a, b) = with_square(x);
    (a + b, move |dy| dy * (1.0 + 2.0 * x))
}

#[differentiable(order = 2)]
fn energy(x: f64) -> f64 {
    from_tuple(x) * x
}

fn main() {
    let _ = energy_grad(0.5);
    let _ = energy_hessian(0.5);
}
