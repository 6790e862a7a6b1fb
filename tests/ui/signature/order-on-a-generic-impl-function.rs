// `order = K` on an associated function of a generic `impl` over the `impl`'s float type parameter works
// where its body is also a free function (tests/generic_impl24.rs); one that calls `Self::..` (or has
// `self`, or type parameters of its own) is an error saying what to write instead (its first order works,
// and so do `order = K` callers of it).
use autodiff::{differentiable, Float};

struct S<T>(T);

impl<T: Float> S<T> {
    #[differentiable]
    fn square(x: T) -> T {
        x * x
    }

    #[differentiable(order = 2)]
    fn own(x: T) -> T {
        Self::square(x) * x
    }
}

fn main() {}
