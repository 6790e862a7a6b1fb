// `order = K` on a method works where its body reads `self`'s fields and its parameters; a method that
// calls another method (or names `Self`) gets an error saying what to write instead.
use autodiff::{differentiable, Differentiable};

#[derive(Clone, Differentiable)]
struct Line {
    slope: f64,
    offset: f64,
}

impl Line {
    #[differentiable(wrt(self))]
    fn at(&self, x: f64) -> f64 {
        self.slope * x + self.offset
    }

    #[differentiable(wrt(self), order = 2)]
    fn energy(&self, x: f64) -> f64 {
        self.at(x).powi(2)
    }
}

fn main() {}
