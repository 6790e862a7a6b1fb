// A float parameter that `wrt(..)` leaves out, passed to a plain function (no derivatives). `t` is a
// constant of `g_grad`, but the items that other differentiable functions call (`g`'s companion) differentiate
// every float parameter, and `bump` has no derivative to give them: the error at the call, whose last note says
// to pass `stop_gradient(t)` (which tests/wrt26.rs checks against central differences). Found by porting
// Enzyme's tests (tests/probe_ports26.rs); a companion specialised by activity would make it compile.
use autodiff::differentiable;

fn bump(x: f64, t: f64) -> f64 {
    if x + t > 1.0 {
        5.0
    } else {
        0.0
    }
}

#[differentiable(wrt(u))]
fn g(u: &[f64], t: f64) -> f64 {
    u[0] * u[0] + bump(0.5, t)
}

fn main() {}
