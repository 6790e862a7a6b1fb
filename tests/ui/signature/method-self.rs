// `wrt(self)` differentiates in the receiver: its type must derive `Differentiable`.
use autodiff::differentiable;

struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable(wrt(self))]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

fn main() {
    let _ = Spring { k: 1.0 }.energy(1.0);
}
