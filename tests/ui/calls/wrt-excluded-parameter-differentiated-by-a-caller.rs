// `g`'s `wrt(..)` leaves `t` out and passes it to `bump`, which has no derivatives: `g` compiles
// (tests/wrt27.rs), and its companion declares that no derivative comes back through `t`. A caller that
// differentiates the argument it passes there gets this error at the call (under `cargo build`), not a
// derivative silently missing `bump`'s part.
use autodiff::differentiable;

fn bump(x: f64, t: f64) -> f64 {
    if x + t > 1.0 {
        5.0 * t
    } else {
        t * t
    }
}

#[differentiable(wrt(u))]
fn g(u: &[f64], t: f64) -> f64 {
    u[0] * u[0] + bump(0.5, t)
}

#[differentiable]
fn caller(u: &[f64], s: f64) -> f64 {
    g(u, s * 2.0)
}

fn main() {}
