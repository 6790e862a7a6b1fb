use autodiff::differentiable;

struct Spring;

impl Spring {
    #[differentiable]
    fn energy(x: f64) -> f64 {
        0.5 * x * x
    }
}

fn main() {
    let _ = Spring::energy(1.0);
}
