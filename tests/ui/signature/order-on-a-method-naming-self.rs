// `order = K` on a method with a constant `self` in a generic `impl` works where its body reads `self`'s
// fields and its parameters; one that calls another method (or names `Self`) gets an error saying what to
// write instead. (In an `impl` without float type parameters, it may: tests/methods.rs.)
use autodiff::{differentiable, Float};

struct Line<T> {
    slope: T,
    offset: T,
}

impl<T: Float> Line<T> {
    #[differentiable]
    fn at(&self, x: T) -> T {
        self.slope * x + self.offset
    }

    #[differentiable(order = 2)]
    fn energy(&self, x: T) -> T {
        self.at(x).powi(2)
    }
}

fn main() {}
