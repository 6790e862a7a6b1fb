// Functions without a derivative imported by `use` (explicitly and by a glob), called from a function and
// from a method: one error per call (and E0573 from the free function's generic copy, which calls `cube`'s).
use autodiff::differentiable;

mod outside {
    pub fn softsign(x: f64) -> f64 {
        x / (1.0 + x.abs())
    }

    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}
use outside::softsign;

mod user {
    use super::outside::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn g(x: f64) -> f64 {
        cube(x)
    }
}

struct Model;

impl Model {
    #[differentiable]
    fn energy(&self, x: f64) -> f64 {
        softsign(x) * 2.0
    }
}

fn main() {}
