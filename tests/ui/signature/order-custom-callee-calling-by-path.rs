// `order = K` on a function calling an `f64` `#[custom_gradient]` function whose body calls a function by
// a path (`shapes::square(x)`) on its input: the custom function's generic copy calls its callees' copies
// by their bare names only, so it has none here, and the one error is at the call of the custom function,
// saying so (import the callee with `use shapes::square;` and call `square(x)`: tests/higher_custom.rs).
use autodiff::{custom_gradient, differentiable};

mod shapes {
    #[autodiff::differentiable]
    pub fn square(v: f64) -> f64 {
        v * v
    }
}

#[custom_gradient]
fn square_by_path(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let y = shapes::square(x);
    (y, move |dy| dy * 2.0 * x)
}

#[differentiable(order = 2)]
fn quartic(x: f64) -> f64 {
    square_by_path(x) * square_by_path(x)
}

fn main() {
    let _ = quartic_hessian(0.5);
}
