//! A tuple holding an array (`(arr[1], [0.5])`) passed to a function taking such a tuple, where a part of it
//! is a local that an earlier call wrote through `&mut` from a parameter (found by
//! `autodiff-fuzz --forms --sugar --seed 35002`, program 35). Such calls go to the callee's split copy
//! (`tuples.rs`, `pass_parts`), unless the tuple is read as constants, which may go to a plain function as
//! written; a local was read as computed from a parameter only where its `let` named one, so this tuple
//! went to the callee as written: rustc's E0425 (`__array_1`) and a "no derivative" error for a
//! differentiable callee. A local written from a parameter (`&mut out` of a call, `out[i] = x`, `s += x`)
//! now counts too, and so does one bound to a macro naming a parameter (`vec![x[1]; 3]`, whose tokens syn
//! leaves unparsed; `--seed 35004`, program 86, at `order = 2` with `wrt(..)`).
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

/// A `Vec` made by `vec![..]` of a parameter, read in a tuple holding an array.
#[differentiable(wrt(x), order = 2)]
fn from_vec_macro(a: f64, x: &[f64]) -> f64 {
    let mut out = vec![x[1] * x[0]; 3];
    let first = inner(0.5, (out[1] - a, [a]), &mut out);
    first * x[0] + out[2]
}

#[test]
fn a_vec_macro_of_a_parameter_in_a_tuple() {
    let mut inputs = Inputs(35_102);
    for _ in 0..16 {
        let (a, x) = (inputs.next(), inputs.vec(2));
        let (v, g) = from_vec_macro_grad(a, &x);
        assert_close(v, from_vec_macro(a, &x), 1e-12, "from_vec_macro");
        // By hand: out = [p, p, p] with p = x0 x1; inner writes out[2] = p + 0.5 and returns
        // (p + 1.5)(p - a); the value is (p + 1.5)(p - a) x0 + p + 0.5.
        let p = x[0] * x[1];
        let dp = (2.0 * p + 1.5 - a) * x[0] + 1.0;
        let by_hand = [dp * x[1] + (p + 1.5) * (p - a), dp * x[0]];
        assert_close(
            v,
            (p + 1.5) * (p - a) * x[0] + p + 0.5,
            1e-12,
            "value by hand",
        );
        assert_close(g[0], by_hand[0], 1e-10, "d/dx0");
        assert_close(g[1], by_hand[1], 1e-10, "d/dx1");
        assert_fd_gradient(|y| from_vec_macro(a, y), &x, &g, "from_vec_macro");
        let (_, _, h) = from_vec_macro_hessian(a, &x);
        let step = 1e-5;
        for i in 0..2 {
            let mut plus = x.clone();
            plus[i] += step;
            let mut minus = x.clone();
            minus[i] -= step;
            let (gp, gm) = (
                from_vec_macro_grad(a, &plus).1,
                from_vec_macro_grad(a, &minus).1,
            );
            for j in 0..2 {
                assert_close(h[j][i], (gp[j] - gm[j]) / (2.0 * step), 1e-6, "Hessian");
            }
        }
    }
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
