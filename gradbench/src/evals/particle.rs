//! `particle`: a charged particle falls through the field of two fixed charges, at `(10, 10 - w)` and
//! `(10, 0)`, by Euler steps whose acceleration is `-grad_x p(x; w)`; the control `w` is chosen by
//! gradient descent so that the particle crosses the x axis at the origin. Nested differentiation:
//! the outer derivative (d/dw of where the particle lands) runs through the inner one (the gradient
//! of the potential at every step).
//!
//! How each of GradBench's four functions is computed (`f`: forward, `r`: reverse; outer then inner):
//!
//! | function | inner: the force `-grad_x p` | outer: d/dw of the landing point |
//! | --- | --- | --- |
//! | `rr` | `potential_grad` (reverse) | `naive_euler_grad` (reverse through the Euler loop); the force's own pullback, a Hessian-vector product, is `potential_hvp` (forward over reverse) |
//! | `rf` | two `potential_jvp` (forward) | `naive_euler_grad` (reverse); the force's pullback is `potential_jvp` on `Dual` (forward over forward) |
//! | `fr` | `potential_grad` (reverse) | `naive_euler` run on `Dual` (forward over reverse) |
//! | `ff` | two `potential_jvp` (forward) | `naive_euler` run on `Dual` (forward over forward) |
//!
//! So the outer reverse passes (`rr`, `rf`) are true reverse sweeps through the loop, but the second
//! derivatives they need from the inner derivative are taken by a forward pass over it: the macro
//! cannot differentiate a call of a generated `_grad` or `_jvp` inside a `#[differentiable]` body
//! (writing `let (_, g) = potential_grad(x0, x1, w);` there is an error saying that nested
//! differentiation is not supported), so the inner derivative is a `#[custom_gradient]` function whose pullback
//! is the Hessian-vector product. The Hessian of `p` is symmetric, so that pullback is what reverse
//! over reverse would compute, by another route.

use super::descent;
use crate::{input, job, Job};
use autodiff::{custom_gradient, differentiable, Dual, Float};
use serde_json::{json, Value};

/// The potential at `(x0, x1)` of unit charges at `(10, 10 - w)` and `(10, 0)`.
// potential_grad(x0, x1, w) -> (T, (T, T, T)); potential_jvp(x0, x1, w, (T, T, T)) -> (T, T);
// potential_hvp(x0, x1, w, v: (T, T, T)) -> (T, (T, T, T), (T, T, T))
#[differentiable(order = 2)]
pub fn potential<T: Float>(x0: T, x1: T, w: T) -> T {
    let ten = T::from(10.0).unwrap();
    let near = ((x0 - ten) * (x0 - ten) + (x1 - (ten - w)) * (x1 - (ten - w))).sqrt();
    let far = ((x0 - ten) * (x0 - ten) + x1 * x1).sqrt();
    T::one() / near + T::one() / far
}

/// The force `-grad_x p(x; w)` by reverse mode; its pullback `(c0, c1) -> -H (c0, c1, 0)` is the
/// Hessian-vector product of `p` (forward over reverse).
#[custom_gradient]
pub fn force_r<T: Float>(x0: T, x1: T, w: T) -> ((T, T), impl Fn((T, T)) -> (T, T, T)) {
    let (_, (g0, g1, _)) = potential_grad(x0, x1, w);
    let pullback = move |(c0, c1): (T, T)| {
        let (_, _, (h0, h1, hw)) = potential_hvp(x0, x1, w, (c0, c1, T::zero()));
        (-h0, -h1, -hw)
    };
    ((-g0, -g1), pullback)
}

/// The force `-grad_x p(x; w)` by forward mode, one `potential_jvp` per coordinate; its pullback is the
/// Hessian-vector product of `p` taken by `potential_jvp` on dual numbers (forward over forward).
#[custom_gradient]
pub fn force_f<T: Float>(x0: T, x1: T, w: T) -> ((T, T), impl Fn((T, T)) -> (T, T, T)) {
    let (_, g0) = potential_jvp(x0, x1, w, (T::one(), T::zero(), T::zero()));
    let (_, g1) = potential_jvp(x0, x1, w, (T::zero(), T::one(), T::zero()));
    let pullback = move |(c0, c1): (T, T)| {
        // d/de of grad p(x + e c) along the coordinate axes: H c.
        let along = |v: T, c: T| Dual::new(v, c);
        let (x0, x1, w) = (along(x0, c0), along(x1, c1), along(w, T::zero()));
        let (one, zero) = (Dual::constant(T::one()), Dual::constant(T::zero()));
        let (_, h0) = potential_jvp(x0, x1, w, (one, zero, zero));
        let (_, h1) = potential_jvp(x0, x1, w, (zero, one, zero));
        let (_, hw) = potential_jvp(x0, x1, w, (zero, zero, one));
        (-h0.eps, -h1.eps, -hw.eps)
    };
    ((-g0, -g1), pullback)
}

/// The force by reverse mode ([`force_r`], `inner_reverse`) or forward mode ([`force_f`]).
#[differentiable]
pub fn force<T: Float>(x0: T, x1: T, w: T, inner_reverse: bool) -> (T, T) {
    let (a0, a1) = if inner_reverse {
        force_r(x0, x1, w)
    } else {
        force_f(x0, x1, w)
    };
    (a0, a1)
}

/// Where the particle crosses the x axis, squared: Euler steps of 0.1 from `(0, 8)` at velocity
/// `(0.75, 0)`, the crossing interpolated linearly in the last step; the force by reverse mode
/// (`inner_reverse`) or forward mode.
// naive_euler_grad(w, inner_reverse) -> (T, T)
#[differentiable]
pub fn naive_euler<T: Float>(w: T, inner_reverse: bool) -> T {
    let dt = T::from(0.1).unwrap();
    let mut x0 = T::zero();
    let mut x1 = T::from(8.0).unwrap();
    let mut v0 = T::from(0.75).unwrap();
    let mut v1 = T::zero();
    loop {
        let (a0, a1) = force(x0, x1, w, inner_reverse);
        x0 = x0 + dt * v0;
        x1 = x1 + dt * v1;
        if x1 <= T::zero() {
            let dt_f = -x1 / v1;
            let landing = x0 + dt_f * v0;
            return landing * landing;
        }
        v0 = v0 + dt * a0;
        v1 = v1 + dt * a1;
    }
}

/// The four functions: the modes of the outer and the inner derivative.
pub const FUNCTIONS: &[&str] = &["rr", "rf", "fr", "ff"];

/// The control that GradBench's descent finds from `w0`, for one of the four functions.
pub fn argmin_w(function: &str, w0: f64) -> Result<f64, String> {
    let (outer_reverse, inner_reverse) = match function {
        "rr" => (true, true),
        "rf" => (true, false),
        "fr" => (false, true),
        "ff" => (false, false),
        _ => return Err(super::unknown("particle", function)),
    };
    let objective = |w: &[f64]| naive_euler(w[0], inner_reverse);
    let derivative = |w: &[f64], g: &mut [f64]| {
        g[0] = if outer_reverse {
            naive_euler_grad(w[0], inner_reverse).1
        } else {
            naive_euler(Dual::new(w[0], 1.0), inner_reverse).eps
        };
    };
    Ok(descent::argmin(objective, derivative, &[w0])[0])
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let w0 = input::float(input, "w")?;
    if !FUNCTIONS.contains(&function) {
        return Err(super::unknown("particle", function));
    }
    let function = function.to_string();
    Ok(job(
        0.0,
        move |w| *w = argmin_w(&function, w0).unwrap_or(f64::NAN),
        |w| json!(w),
    ))
}
