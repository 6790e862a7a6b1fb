// In a generic `impl`, an associated function has a generic copy (which the copy of an `order = K` caller
// written for `f64` calls, `S::<f64>::g(x)`) where its body names `Self` only to call other associated
// functions or inside `T::from(..)`. One that reads `Self::HALF` otherwise has none: one error at the call
// saying so (not rustc's missing `__halved_generic`). `order = K` on such a function is an error saying what
// to write instead.
use autodiff::{differentiable, Float};

struct S<T>(T);

impl<T: Float> S<T> {
    const HALF: f64 = 0.5;

    #[differentiable]
    fn halved(x: T) -> T {
        let h = Self::HALF;
        x * T::from(h).unwrap()
    }

    #[differentiable(order = 2)]
    fn own(x: T) -> T {
        x * x
    }
}

#[differentiable(order = 2)]
fn caller(x: f64) -> f64 {
    S::<f64>::halved(x) * x
}

fn main() {}
