use autodiff::differentiable;

trait Energy {
    fn energy(&self, x: f64) -> f64;
}

// Rust allows no inherent `impl f64` for the derivatives: write a free `#[differentiable]` function.
#[differentiable]
impl Energy for f64 {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self * x * x
    }
}

fn main() {
    let _ = 2.0.energy(1.0);
}
