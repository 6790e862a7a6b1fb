use autodiff::differentiable;

trait Energy {
    fn energy(&self, x: f64) -> f64;
}

struct Spring {
    k: f64,
}

#[differentiable]
impl<'a> Energy for &'a Spring {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

fn main() {
    let spring = Spring { k: 2.0 };
    let _ = (&spring).energy(1.0);
}
