// `order = K` on a method of a generic `impl` that calls another method runs its `f_grad` on the struct
// over dual numbers, which `#[derive(Differentiable)]` gives (tests/methods37.rs); without the derive, the
// error at `self` says to add it. (A body reading only `self`'s fields needs no derive.)
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
