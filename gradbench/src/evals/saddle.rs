//! `saddle`: the saddle point of `f(p1, p2) = |p1|^2 - |p2|^2` by nested gradient descent: `p1`
//! minimises `max_p2 f(p1, p2)`, whose inner argmax is itself a descent, and the outer descent's
//! gradient runs through it; then `p2` maximises `f(p1, .)`. Both descents start from the input.
//!
//! How each of GradBench's four functions is computed (`f`: forward, `r`: reverse; outer then inner):
//!
//! | function | inner: `grad_p2 f` in the argmax | outer: `grad_p1` of the max, through the inner descent |
//! | --- | --- | --- |
//! | `rr` | `objective_grad` (reverse) | `max_over_p2_grad` (reverse through the descent loop); the inner gradient's pullback, a Hessian-vector product, is `objective_hvp` (forward over reverse) |
//! | `rf` | two `objective_jvp` (forward) | `max_over_p2_grad` (reverse); the inner gradient's pullback is `objective_jvp` on `Dual` (forward over forward) |
//! | `fr` | `objective_grad` (reverse) | `max_over_p2` run on `Dual`, once per coordinate of `p1` (forward over reverse) |
//! | `ff` | two `objective_jvp` (forward) | `max_over_p2` run on `Dual`, once per coordinate (forward over forward) |
//!
//! As in `particle`, the inner gradient is a `#[custom_gradient]` function whose pullback is a
//! Hessian-vector product, because the macro cannot differentiate a call of a generated `_grad` or
//! `_jvp` in a `#[differentiable]` body; the final argmax over `p2` uses the same inner mode as the
//! outer descent.

use super::descent;
use crate::{input, job, Job};
use autodiff::{custom_gradient, differentiable, Dual, Float};
use serde_json::{json, Value};

/// `(p1x^2 + p1y^2) - (p2x^2 + p2y^2)`.
// objective_grad(..) -> (T, (T, T, T, T)); objective_jvp(.., (T, T, T, T)) -> (T, T);
// objective_hvp(.., v: (T, T, T, T)) -> (T, (T, T, T, T), (T, T, T, T))
#[differentiable(order = 2)]
pub fn objective<T: Float>(p1x: T, p1y: T, p2x: T, p2y: T) -> T {
    (p1x * p1x + p1y * p1y) - (p2x * p2x + p2y * p2y)
}

/// The gradient of [`objective`] with respect to `p2`, by reverse mode; its pullback is the
/// Hessian-vector product `H (0, 0, c0, c1)` (forward over reverse).
#[custom_gradient]
pub fn grad_p2_r<T: Float>(
    p1x: T,
    p1y: T,
    p2x: T,
    p2y: T,
) -> ((T, T), impl Fn((T, T)) -> (T, T, T, T)) {
    let (_, (_, _, gx, gy)) = objective_grad(p1x, p1y, p2x, p2y);
    let pullback = move |(c0, c1): (T, T)| {
        let zero = T::zero();
        let (_, _, hv) = objective_hvp(p1x, p1y, p2x, p2y, (zero, zero, c0, c1));
        hv
    };
    ((gx, gy), pullback)
}

/// The gradient of [`objective`] with respect to `p2`, by forward mode (one `objective_jvp` per
/// coordinate); its pullback is the Hessian-vector product taken by `objective_jvp` on dual numbers
/// (forward over forward).
#[custom_gradient]
pub fn grad_p2_f<T: Float>(
    p1x: T,
    p1y: T,
    p2x: T,
    p2y: T,
) -> ((T, T), impl Fn((T, T)) -> (T, T, T, T)) {
    let (one, zero) = (T::one(), T::zero());
    let (_, gx) = objective_jvp(p1x, p1y, p2x, p2y, (zero, zero, one, zero));
    let (_, gy) = objective_jvp(p1x, p1y, p2x, p2y, (zero, zero, zero, one));
    let pullback = move |(c0, c1): (T, T)| {
        // d/de of grad f(p + e (0, 0, c0, c1)), one coordinate at a time.
        let (p1x, p1y) = (Dual::constant(p1x), Dual::constant(p1y));
        let (p2x, p2y) = (Dual::new(p2x, c0), Dual::new(p2y, c1));
        let (one, zero) = (Dual::constant(T::one()), Dual::constant(T::zero()));
        let column = |tangent| objective_jvp(p1x, p1y, p2x, p2y, tangent).1.eps;
        (
            column((one, zero, zero, zero)),
            column((zero, one, zero, zero)),
            column((zero, zero, one, zero)),
            column((zero, zero, zero, one)),
        )
    };
    ((gx, gy), pullback)
}

/// The gradient of [`objective`] with respect to `p2` by reverse mode (`inner_reverse`) or forward mode.
#[differentiable]
pub fn grad_p2<T: Float>(p1x: T, p1y: T, p2x: T, p2y: T, inner_reverse: bool) -> (T, T) {
    let (gx, gy) = if inner_reverse {
        grad_p2_r(p1x, p1y, p2x, p2y)
    } else {
        grad_p2_f(p1x, p1y, p2x, p2y)
    };
    (gx, gy)
}

/// The point `p2` where GradBench's descent on `-f(p1, .)` stops, from `(sx, sy)`, with the inner
/// gradient by reverse mode (`inner_reverse`) or forward mode. The descent is written out here (not
/// [`descent::argmax`]) so that the outer derivative can run through it.
// argmax_over_p2_vjp(p1x, p1y, sx, sy, inner_reverse, d_ret: (T, T)) -> ((T, T), (T, T))
#[differentiable(wrt(p1x, p1y))]
pub fn argmax_over_p2<T: Float>(p1x: T, p1y: T, sx: T, sy: T, inner_reverse: bool) -> (T, T) {
    let tolerance = T::from(1e-5).unwrap();
    let two = T::from(2.0).unwrap();
    let mut p2x = sx;
    let mut p2y = sy;
    let mut value = -objective(p1x, p1y, p2x, p2y);
    let (mut gx, mut gy) = grad_p2(p1x, p1y, p2x, p2y, inner_reverse);
    let mut eta = tolerance;
    let mut taken = 0;
    loop {
        // The descent is on -f: its gradient is -g.
        if (gx * gx + gy * gy).sqrt() <= tolerance {
            return (p2x, p2y);
        }
        if taken == 10 {
            eta = eta * two;
            taken = 0;
            continue;
        }
        let next_x = p2x + eta * gx;
        let next_y = p2y + eta * gy;
        let (dx, dy) = (p2x - next_x, p2y - next_y);
        if (dx * dx + dy * dy).sqrt() <= tolerance {
            return (p2x, p2y);
        }
        let next_value = -objective(p1x, p1y, next_x, next_y);
        if next_value < value {
            p2x = next_x;
            p2y = next_y;
            value = next_value;
            let (nx, ny) = grad_p2(p1x, p1y, p2x, p2y, inner_reverse);
            gx = nx;
            gy = ny;
            taken += 1;
        } else {
            eta = eta / two;
            taken = 0;
        }
    }
}

/// `max_p2 f(p1, p2)` as the inner descent from `(sx, sy)` finds it.
// max_over_p2_grad(p1x, p1y, sx, sy, inner_reverse) -> (T, (T, T))
#[differentiable(wrt(p1x, p1y))]
pub fn max_over_p2<T: Float>(p1x: T, p1y: T, sx: T, sy: T, inner_reverse: bool) -> T {
    let (p2x, p2y) = argmax_over_p2(p1x, p1y, sx, sy, inner_reverse);
    objective(p1x, p1y, p2x, p2y)
}

/// The four functions: the modes of the outer and the inner derivative.
pub const FUNCTIONS: &[&str] = &["rr", "rf", "fr", "ff"];

/// The saddle point `[p1x, p1y, p2x, p2y]` from `start` for one of the four functions.
pub fn saddle(function: &str, start: [f64; 2]) -> Result<[f64; 4], String> {
    let (outer_reverse, inner_reverse) = match function {
        "rr" => (true, true),
        "rf" => (true, false),
        "fr" => (false, true),
        "ff" => (false, false),
        _ => return Err(super::unknown("saddle", function)),
    };
    let [sx, sy] = start;
    let max = |p1: &[f64]| max_over_p2(p1[0], p1[1], sx, sy, inner_reverse);
    let gradient = |p1: &[f64], g: &mut [f64]| {
        if outer_reverse {
            let (_, (g0, g1)) = max_over_p2_grad(p1[0], p1[1], sx, sy, inner_reverse);
            g[0] = g0;
            g[1] = g1;
        } else {
            let (s0, s1) = (Dual::constant(sx), Dual::constant(sy));
            for (k, gk) in g.iter_mut().enumerate() {
                let p1x = Dual::new(p1[0], if k == 0 { 1.0 } else { 0.0 });
                let p1y = Dual::new(p1[1], if k == 1 { 1.0 } else { 0.0 });
                *gk = max_over_p2(p1x, p1y, s0, s1, inner_reverse).eps;
            }
        }
    };
    let p1 = descent::argmin(max, gradient, &start);
    let (p2x, p2y) = argmax_over_p2(p1[0], p1[1], sx, sy, inner_reverse);
    Ok([p1[0], p1[1], p2x, p2y])
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let start = input::floats(input, "start")?;
    let start: [f64; 2] = start
        .try_into()
        .map_err(|_| "saddle: `start` needs 2 numbers".to_string())?;
    if !FUNCTIONS.contains(&function) {
        return Err(super::unknown("saddle", function));
    }
    let function = function.to_string();
    Ok(job(
        [f64::NAN; 4],
        move |out| *out = saddle(&function, start).unwrap_or([f64::NAN; 4]),
        |out| json!(out),
    ))
}
