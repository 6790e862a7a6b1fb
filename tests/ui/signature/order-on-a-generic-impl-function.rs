// `order = K` on an associated function of a generic `impl` over the `impl`'s float type parameter is an
// error saying what to write instead (its first order works, and so do `order = K` callers of it).
use autodiff::{differentiable, Float};

struct S<T>(T);

impl<T: Float> S<T> {
    #[differentiable(order = 2)]
    fn own(x: T) -> T {
        x * x
    }
}

fn main() {}
