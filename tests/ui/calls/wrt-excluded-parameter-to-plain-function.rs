// A float parameter that `wrt(..)` leaves out, passed to a plain function (no derivatives) whose value is
// a tuple. `t` is a constant of `g_grad`, but the items that other differentiable functions call (`g`'s
// companion) differentiate every float parameter; where the call's value is one scalar they call such a
// function as written with a zero derivative, and declare so (tests/wrt27.rs), but not a tuple's: the
// error at the call, whose last note says to pass `stop_gradient(t)`.
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

fn main() {}
