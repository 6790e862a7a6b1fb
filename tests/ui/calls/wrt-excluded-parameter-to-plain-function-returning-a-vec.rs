// A float parameter that `wrt(..)` leaves out, passed to a plain function (no derivatives) whose value is
// a `Vec`. The items that other differentiable functions call (`g`'s companion) choose at compile time
// between `features`' derivatives and none (tests/wrt38.rs), and declare whether a derivative comes back
// through `t`: here none does, so a caller that differentiates the argument it passes there gets this
// error at the call (under `cargo build`), not a derivative silently missing `features`' part. (With a
// `#[differentiable]` `features`, the caller compiles and is right: tests/wrt38.rs.)
use autodiff::differentiable;

fn features(t: f64) -> Vec<f64> {
    vec![t, t * t]
}

#[differentiable(wrt(u))]
fn g(u: &[f64], t: f64) -> f64 {
    let v = features(t);
    u[0] * v[0] + u[1] * v[1]
}

#[differentiable]
fn caller(u: &[f64], s: f64) -> f64 {
    g(u, s * 2.0)
}

fn main() {}
