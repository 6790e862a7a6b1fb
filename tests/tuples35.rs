//! A tuple holding an array (`(arr[1], [0.5])`) passed to a function taking such a tuple, where a part of it
//! is a local that an earlier call wrote through `&mut` from a parameter (found by
//! `autodiff-fuzz --forms --sugar --seed 35002`, program 35). Such calls go to the callee's split copy
//! (`tuples.rs`, `pass_parts`), unless the tuple is read as constants, which may go to a plain function as
//! written; a local was read as computed from a parameter only where its `let` named one, so this tuple
//! went to the callee as written: rustc's E0425 (`__array_1`) and a "no derivative" error for a
//! differentiable callee. A local written from a parameter (`&mut out` of a call, `out[i] = x`, `s += x`)
//! now counts too.
//!
//! Checked against central differences of the function as written (`common`, no code shared with the
//! macro), and at `order = 2` against differences of the gradient.

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, Inputs};

#[differentiable]
fn inner(s: f64, p: (f64, [f64; 1]), out: &mut [f64]) -> f64 {
    out[0] = s * p.1[0];
    out[2] += s;
    (out[2] + 1.0) * p.0
}

/// `out[1]` is written by the first call from `s`, then passed in a tuple with an array.
#[differentiable]
fn through_output(s: f64) -> f64 {
    let mut out = vec![0.0, 0.25, 0.0];
    let first = inner(s, (s + s, [0.9]), &mut out);
    let mut total = 0.0;
    for _ in 0..2 {
        total += inner(1.0, (out[1], [0.5]), &mut out);
        out[1] = out[0] * s;
    }
    first + total + out[0]
}

/// A local accumulated from a parameter in a loop, passed in a tuple with an array before the
/// accumulation in the same body.
#[differentiable(order = 2)]
fn accumulated(s: f64, x: &[f64]) -> f64 {
    let mut scratch = vec![0.0; 3];
    let mut acc = 0.5;
    for &v in x {
        let term = inner(v, (acc, [s]), &mut scratch);
        acc += s * v + 0.1 * term;
    }
    acc
}

#[test]
fn tuples_with_locals_written_from_parameters() {
    let mut inputs = Inputs(35_101);
    for _ in 0..16 {
        let s = inputs.next();
        let (v, g) = through_output_grad(s);
        assert_close(v, through_output(s), 1e-12, "through_output");
        assert_fd_gradient(|p| through_output(p[0]), &[s], &[g], "through_output");

        let x = inputs.vec(3);
        let (v, (gs, gx)) = accumulated_grad(s, &x);
        assert_close(v, accumulated(s, &x), 1e-12, "accumulated");
        let mut flat = vec![gs];
        flat.extend(&gx);
        let mut point = vec![s];
        point.extend(&x);
        assert_fd_gradient(|p| accumulated(p[0], &p[1..]), &point, &flat, "accumulated");

        // The Hessian's first row against differences of the gradient along `s`.
        let (_, _, h) = accumulated_hessian(s, &x);
        let step = 1e-5;
        let plus = accumulated_grad(s + step, &x).1;
        let minus = accumulated_grad(s - step, &x).1;
        assert_close(h[0][0], (plus.0 - minus.0) / (2.0 * step), 1e-6, "d2/ds2");
        for k in 0..3 {
            assert_close(
                h[0][k + 1],
                (plus.1[k] - minus.1[k]) / (2.0 * step),
                1e-6,
                "d2/ds dx",
            );
        }
    }
}
