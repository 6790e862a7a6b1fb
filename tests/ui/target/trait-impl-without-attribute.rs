use autodiff::differentiable;

trait Energy {
    fn energy(&self, x: f64) -> f64;
}

struct Spring {
    k: f64,
}

// The derivatives of a trait's method go into an inherent `impl` beside the trait's, which only an
// attribute on the block can emit: `#[differentiable] impl Energy for Spring { .. }`.
impl Energy for Spring {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

fn main() {
    let spring = Spring { k: 2.0 };
    let _ = spring.energy(1.0);
}
