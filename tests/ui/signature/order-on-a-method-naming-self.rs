// `order = K` on a method with a constant `self` works where its body reads `self`'s fields and its
// parameters; one that calls another method (or names `Self`) gets an error saying what to write instead.
// (With `wrt(self)`, calls of methods are differentiated: tests/struct_calls_higher.rs.)
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Differentiable)]
struct Line {
    slope: f64,
    offset: f64,
}

impl Line {
    #[differentiable]
    fn at(&self, x: f64) -> f64 {
        self.slope * x + self.offset
    }

    #[differentiable(order = 2)]
    fn energy(&self, x: f64) -> f64 {
        self.at(x).powi(2)
    }
}

fn main() {}
