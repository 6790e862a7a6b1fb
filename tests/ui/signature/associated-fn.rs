// An associated function in an `impl` block cannot be differentiated: besides `_grad`, `_vjp` and `_jvp`,
// the macro emits a companion type (through which other differentiable functions call it), and Rust
// allows no type inside an `impl`. Write a free function and call it from the method.
use autodiff::differentiable;

struct Spring;

impl Spring {
    #[differentiable]
    fn energy(x: f64) -> f64 {
        0.5 * x * x
    }
}

fn main() {
    let _ = Spring::energy(2.0);
}
