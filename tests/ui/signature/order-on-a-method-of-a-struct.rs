// `order = K` on a method that differentiates `self` is not supported yet: the error says to write a free
// function of the struct.
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Differentiable)]
struct Line {
    slope: f64,
    offset: f64,
}

impl Line {
    #[differentiable(wrt(self), order = 2)]
    fn energy(&self, x: f64) -> f64 {
        (self.slope * x + self.offset).powi(2)
    }
}

fn main() {}
