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
//! | `rr` | `potential_grad` (reverse) | `naive_euler_r_grad` (reverse through the Euler loop); the force's own pullback, a Hessian-vector product, is `potential_hvp` (forward over reverse) |
//! | `rf` | two `potential_jvp` (forward) | `naive_euler_f_grad` (reverse); the force's pullback is `potential_jvp` on `Dual` (forward over forward) |
//! | `fr` | `potential_grad` (reverse) | `naive_euler_r` run on `Dual` (forward over reverse) |
//! | `ff` | two `potential_jvp` (forward) | `naive_euler_f` run on `Dual` (forward over forward) |
//!
//! So the outer reverse passes (`rr`, `rf`) are true reverse sweeps through the loop, but the second
//! derivatives they need from the inner derivative are taken by a forward pass over it: the macro
//! cannot differentiate a call of a generated `_grad` or `_jvp` inside a `#[differentiable]` body
//! (writing `let (_, g) = potential_grad(x0, x1, w);` there is rejected: "the macro cannot tell the
//! shape of this tuple"), so the inner derivative is a `#[custom_gradient]` function whose pullback
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

/// Where the particle crosses the x axis, squared, with the force by reverse mode: Euler steps of
/// 0.1 from `(0, 8)` at velocity `(0.75, 0)`, the crossing interpolated linearly in the last step.
// naive_euler_r_grad(w) -> (T, T)
#[differentiable]
pub fn naive_euler_r<T: Float>(w: T) -> T {
    let dt = T::from(0.1).unwrap();
    let mut x0 = T::zero();
    let mut x1 = T::from(8.0).unwrap();
    let mut v0 = T::from(0.75).unwrap();
    let mut v1 = T::zero();
    loop {
        let (a0, a1) = force_r(x0, x1, w);
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

/// [`naive_euler_r`] with the force by forward mode.
// naive_euler_f_grad(w) -> (T, T)
#[differentiable]
pub fn naive_euler_f<T: Float>(w: T) -> T {
    let dt = T::from(0.1).unwrap();
    let mut x0 = T::zero();
    let mut x1 = T::from(8.0).unwrap();
    let mut v0 = T::from(0.75).unwrap();
    let mut v1 = T::zero();
    loop {
        let (a0, a1) = force_f(x0, x1, w);
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

/// The derivative of `f` at `w` by forward mode: `f` run on a dual number.
fn forward(f: fn(Dual<f64>) -> Dual<f64>, w: f64) -> f64 {
    f(Dual::new(w, 1.0)).eps
}

/// The control that GradBench's descent finds from `w0`, for one of the four functions.
pub fn argmin_w(function: &str, w0: f64) -> Result<f64, String> {
    let w = match function {
        "rr" => descent::argmin(
            |w| naive_euler_r(w[0]),
            |w, g| g[0] = naive_euler_r_grad(w[0]).1,
            &[w0],
        ),
        "rf" => descent::argmin(
            |w| naive_euler_f(w[0]),
            |w, g| g[0] = naive_euler_f_grad(w[0]).1,
            &[w0],
        ),
        "fr" => descent::argmin(
            |w| naive_euler_r(w[0]),
            |w, g| g[0] = forward(naive_euler_r, w[0]),
            &[w0],
        ),
        "ff" => descent::argmin(
            |w| naive_euler_f(w[0]),
            |w, g| g[0] = forward(naive_euler_f, w[0]),
            &[w0],
        ),
        _ => return Err(super::unknown("particle", function)),
    };
    Ok(w[0])
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
