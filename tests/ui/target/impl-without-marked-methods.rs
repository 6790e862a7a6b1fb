use autodiff::differentiable;

trait Energy {
    fn energy(&self, x: f64) -> f64;
}

struct Spring;

// The attribute on the block differentiates nothing by itself: mark the methods.
#[differentiable]
impl Energy for Spring {
    fn energy(&self, x: f64) -> f64 {
        0.5 * x * x
    }
}

fn main() {
    let _ = Spring.energy(1.0);
}
