use autodiff::differentiable;

// An `impl` of the trait may replace the provided body, whose derivatives would then be wrong.
trait Energy {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        0.5 * x * x
    }
}

struct Spring;

impl Energy for Spring {}

fn main() {
    let _ = Spring.energy(1.0);
}
