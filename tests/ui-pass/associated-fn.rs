// An associated function (no `self`) in an `impl` block is differentiated like a free one: the generated
// items become associated functions too.
use autodiff::differentiable;

struct Spring;

impl Spring {
    #[differentiable]
    fn energy(x: f64) -> f64 {
        0.5 * x * x
    }
}

fn main() {
    assert_eq!(Spring::energy(2.0), 2.0);
    assert_eq!(Spring::energy_grad(2.0), (2.0, 2.0));
    assert_eq!(Spring::energy_vjp(2.0, 3.0), (2.0, 6.0));
    assert_eq!(Spring::energy_jvp(2.0, 0.5), (2.0, 1.0));
}
