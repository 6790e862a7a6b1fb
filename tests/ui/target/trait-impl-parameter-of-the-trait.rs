use autodiff::{differentiable, Float};

trait Energy<T> {
    fn energy(&self, x: T) -> T;
}

struct Spring;

// `T` appears in the trait alone: an inherent `impl<T> Spring` would leave it unconstrained.
#[differentiable]
impl<T: Float> Energy<T> for Spring {
    #[differentiable]
    fn energy(&self, x: T) -> T {
        x * x
    }
}

fn main() {
    let _ = Spring.energy(1.0);
}
