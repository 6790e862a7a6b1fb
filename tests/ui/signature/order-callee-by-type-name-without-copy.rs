// An `order = K` function written for `f64` calling an associated function by the type's name (`W::via(x)`)
// checks at the call that the callee has a generic copy (`W::__via_copied_by_name(0.0)`, the marker a
// caller by the type's name asks for, which also settles a generic `impl`'s float type): `via` calls
// `W::sq(..)` by the type's name (`Self::sq(..)` would do), so it has none, and the one error is at the
// call; `W::sq(x)` has one.
use autodiff::differentiable;

struct W;

impl W {
    #[differentiable]
    fn sq(x: f64) -> f64 {
        x * x
    }

    #[differentiable]
    fn via(x: f64) -> f64 {
        W::sq(x) * 2.0
    }
}

#[differentiable(order = 2)]
fn caller(x: f64) -> f64 {
    W::via(x) + W::sq(x)
}

fn main() {
    let _ = caller_hessian(0.5);
}
