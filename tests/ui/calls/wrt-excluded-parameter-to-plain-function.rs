// A float parameter that `wrt(..)` leaves out, passed to a plain function (no derivatives) whose value is
// a tuple. `t` is a constant of `g_grad`; the items that other differentiable functions call (`g`'s
// companion) choose at compile time between `bumps`' derivatives and none (since session 38 for a tuple
// too, tests/wrt38.rs), and declare whether a derivative comes back through `t`: here none does. So `g`
// compiles, and a caller that differentiates the argument it passes there gets this error at the call
// (under `cargo build`), not a derivative silently missing `bumps`' part. (Until session 37, `g` itself
// was an error at the call of `bumps`.)
use autodiff::differentiable;

fn bumps(x: f64, t: f64) -> (f64, f64) {
    if x + t > 1.0 {
        (5.0, t)
    } else {
        (0.0, t)
    }
}

#[differentiable(wrt(u))]
fn g(u: &[f64], t: f64) -> f64 {
    let (a, b) = bumps(0.5, t);
    u[0] * u[0] + a * b
}

#[differentiable]
fn caller(u: &[f64], s: f64) -> f64 {
    g(u, s * 2.0)
}

fn main() {}
