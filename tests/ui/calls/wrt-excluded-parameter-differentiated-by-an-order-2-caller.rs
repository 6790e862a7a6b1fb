// `excluded`'s `wrt(..)` leaves `t` out and passes it to `bump`, which has no derivatives: with `order = 2`
// it compiles (tests/wrt30.rs), its generic copy calling `bump` as written on the value of `t`, a constant
// there. A caller at `order = 2` that differentiates the argument it passes to `t` gets this error at the
// call (under `cargo build`), not a Hessian silently missing `bump`'s part.
use autodiff::differentiable;

fn bump(a: f64, t: f64) -> f64 {
    a * t + 1.0
}

#[differentiable(order = 2, wrt(x))]
fn excluded(x: f64, t: f64) -> f64 {
    x * x * bump(0.5, t)
}

#[differentiable(order = 2)]
fn caller(y: f64) -> f64 {
    excluded(y, y * y)
}

fn main() {}
