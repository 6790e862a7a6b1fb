//! An output parameter of the caller passed on bare to a function that only reads it (`total(out)` with
//! `total(v: &[f64]) -> f64`), as `&*out` would pass it: the callee reads the buffer's current values,
//! and the buffer keeps them through the call. Also a float output (`cube(e)` with `cube(v: &f64)`), a
//! buffer passed on bare beside one the callee writes, and the incoming value read through the callee.
//! Gradients and tangents against central finite differences and the derivatives worked out by hand,
//! in reverse and forward mode, and the Hessian of an `order = 2` caller against finite differences of
//! its gradient.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{custom_gradient, differentiable};
use common::{assert_all_close, assert_close, assert_dot, assert_fd_gradient, dot, hessian_column};
use proptest::prelude::*;

/// Only reads its slice.
#[differentiable]
fn total(v: &[f64]) -> f64 {
    v[0] * v[1] + v[1] * v[1]
}

/// Only reads its float.
#[differentiable]
fn cube(v: &f64) -> f64 {
    *v * *v * *v
}

/// A reader with its own gradient.
#[custom_gradient]
fn sum_of_squares(v: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64>) {
    let twice: Vec<f64> = v.iter().map(|x| 2.0 * x).collect();
    (v.iter().map(|x| x * x).sum(), move |dy| {
        twice.iter().map(|t| dy * t).collect()
    })
}

/// A reader of a fixed-size array.
#[differentiable]
fn pair_product(v: &[f64; 2]) -> f64 {
    v[0] * v[1]
}

/// A fixed-size output passed on bare to a reader of `&[f64; 2]` and to a custom gradient.
#[differentiable]
fn fixed_passed_on(x: &[f64], out: &mut [f64; 2]) -> f64 {
    out[0] = x[0].cos();
    out[1] = x[0] * x[1];
    let p = pair_product(out);
    let q = sum_of_squares(out);
    out[0] = p - q;
    p * q
}

/// `fixed_passed_on` by hand: value and `out`.
fn fixed_by_hand(x: &[f64]) -> (f64, [f64; 2]) {
    let o = [x[0].cos(), x[0] * x[1]];
    let (p, q) = (o[0] * o[1], o[0] * o[0] + o[1] * o[1]);
    (p * q, [p - q, o[1]])
}

/// Reads `v` and writes `dst`.
#[differentiable]
fn scaled_copy(v: &[f64], s: f64, dst: &mut [f64]) {
    for i in 0..v.len() {
        dst[i] = s * v[i];
    }
}

/// `out` passed on bare to a reader, then written again.
#[differentiable]
fn reads_its_output(x: &[f64], out: &mut [f64]) -> f64 {
    out[0] = x[0] * x[1];
    out[1] = x[1].sin();
    let s = total(out);
    out[1] = s * x[0];
    s + out[0]
}

/// The value and final output of `reads_its_output`, by hand.
fn reads_its_output_by_hand(x: &[f64]) -> (f64, [f64; 2]) {
    let (o0, o1) = (x[0] * x[1], x[1].sin());
    let s = o0 * o1 + o1 * o1;
    (s + o0, [o0, s * x[0]])
}

/// The incoming value of `out` read through the callee (`out[1]` is never written before the call).
#[differentiable]
fn reads_the_incoming_value(x: &[f64], out: &mut [f64]) -> f64 {
    out[0] += x[0];
    let s = total(out);
    out[1] = s;
    s * x[1]
}

/// A float output passed on bare to a reader, beside a slice output passed on bare to a callee that
/// reads it while writing a local buffer.
#[differentiable]
fn float_and_slice_passed_on(x: &[f64], e: &mut f64, out: &mut [f64]) -> f64 {
    *e = x[0].sin();
    let c = cube(e);
    *e = c + x[1];
    out[0] = x[0] * x[1];
    out[1] = c;
    let mut k = vec![0.0; 2];
    scaled_copy(out, x[1], &mut k);
    out[0] = k[0] * k[1];
    c + k[1]
}

/// `float_and_slice_passed_on` by hand: value, `e`, `out`.
fn float_and_slice_by_hand(x: &[f64]) -> (f64, f64, [f64; 2]) {
    let c = x[0].sin().powi(3);
    let k = [x[1] * x[0] * x[1], x[1] * c];
    (c + k[1], c + x[1], [k[0] * k[1], c])
}

/// `out` passed on bare to a reader in every iteration of a loop and in a branch, rewritten in between.
#[differentiable]
fn reads_in_a_loop(x: &[f64], out: &mut [f64], n: usize) -> f64 {
    out[0] = x[0];
    out[1] = x[1];
    let mut acc = 0.0;
    for i in 0..n {
        acc += total(out);
        if i % 2 == 1 {
            acc -= 0.5 * total(out);
        }
        out[0] = out[0] * x[1] + 0.1;
    }
    acc
}

/// `reads_in_a_loop` by hand: value and `out`.
fn reads_in_a_loop_by_hand(x: &[f64], n: usize) -> (f64, [f64; 2]) {
    let mut o = [x[0], x[1]];
    let mut acc = 0.0;
    for i in 0..n {
        let t = o[0] * o[1] + o[1] * o[1];
        acc += if i % 2 == 1 { 0.5 * t } else { t };
        o[0] = o[0] * x[1] + 0.1;
    }
    (acc, o)
}

/// `reads_its_output` at second order.
#[differentiable(order = 2)]
fn reads_its_output_twice(x: &[f64], out: &mut [f64]) -> f64 {
    out[0] = x[0] * x[1];
    out[1] = x[1].sin();
    let s = total(out);
    out[1] = s * x[0];
    s + out[0]
}

fn xs() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1.5f64..1.5, 2)
}

proptest! {
    #![proptest_config(common::config())]

    #[test]
    fn a_reader_of_an_output_passed_on_bare(x in xs(), d in prop::collection::vec(-1.0f64..1.0, 3), t in prop::collection::vec(-1.0f64..1.0, 2)) {
        let (value, out_by_hand) = reads_its_output_by_hand(&x);
        let mut out = vec![f64::NAN; 2];
        assert_close(reads_its_output(&x, &mut out), value, 1e-14, "the primal");
        assert_all_close(&out, &out_by_hand, 1e-14, "the primal's out");
        let mut out = vec![f64::NAN; 2];
        let (v, (gx, gout)) = reads_its_output_vjp(&x, &mut out, d[0], &d[1..]);
        assert_close(v, value, 1e-14, "vjp value");
        assert_all_close(&out, &out_by_hand, 1e-14, "vjp writes out");
        // `out` is written before it is read: its incoming value has no effect.
        prop_assert_eq!(gout, vec![0.0; 2]);
        let f = |w: &[f64]| {
            let (v, o) = reads_its_output_by_hand(w);
            d[0] * v + d[1] * o[0] + d[2] * o[1]
        };
        assert_fd_gradient(f, &x, &gx, "reads_its_output_vjp");
        let (_, g) = reads_its_output_grad(&x, &mut out);
        assert_fd_gradient(|w: &[f64]| reads_its_output_by_hand(w).0, &x, &g.0, "reads_its_output_grad");
        let mut t_out = vec![f64::NAN; 2];
        let (v, t_value) = reads_its_output_jvp(&x, &mut out, (t.clone(), vec![5.0; 2]), &mut t_out);
        assert_close(v, value, 1e-14, "jvp value");
        let along = d[0] * t_value + d[1] * t_out[0] + d[2] * t_out[1];
        assert_dot(along, &gx, &t, 1e-10, "reads_its_output_jvp");
    }

    #[test]
    fn the_incoming_value_read_through_the_callee(x in xs(), o in prop::collection::vec(-1.5f64..1.5, 2), d in prop::collection::vec(-1.0f64..1.0, 3), t in prop::collection::vec(-1.0f64..1.0, 4)) {
        // out0' = o0 + x0, s = out0' o1 + o1², out = [out0', s], value = s x1.
        let by_hand = |x: &[f64], o: &[f64]| {
            let o0 = o[0] + x[0];
            let s = o0 * o[1] + o[1] * o[1];
            (s * x[1], [o0, s])
        };
        let (value, out_by_hand) = by_hand(&x, &o);
        let mut out = o.clone();
        assert_close(reads_the_incoming_value(&x, &mut out), value, 1e-14, "the primal");
        let mut out = o.clone();
        let (v, (gx, gout)) = reads_the_incoming_value_vjp(&x, &mut out, d[0], &d[1..]);
        assert_close(v, value, 1e-14, "vjp value");
        assert_all_close(&out, &out_by_hand, 1e-14, "vjp writes out");
        let all = [x.clone(), o.clone()].concat();
        let f = |w: &[f64]| {
            let (v, out) = by_hand(&w[..2], &w[2..]);
            d[0] * v + d[1] * out[0] + d[2] * out[1]
        };
        let g = [gx, gout].concat();
        assert_fd_gradient(f, &all, &g, "reads_the_incoming_value_vjp");
        // By hand: d/do1 of d0 s x1 + d1 out0' + d2 s = (d0 x1 + d2)(out0' + 2 o1).
        let ds = d[0] * x[1] + d[2];
        assert_close(g[3], ds * (o[0] + x[0] + 2.0 * o[1]), 1e-12, "d/d out[1] by hand");
        let mut out = o.clone();
        let mut t_out = vec![f64::NAN; 2];
        let (_, t_value) = reads_the_incoming_value_jvp(&x, &mut out, (t[..2].to_vec(), t[2..].to_vec()), &mut t_out);
        let along = d[0] * t_value + d[1] * t_out[0] + d[2] * t_out[1];
        assert_dot(along, &g, &t, 1e-10, "reads_the_incoming_value_jvp");
    }

    #[test]
    fn a_float_output_and_a_slice_passed_on_bare(x in xs(), d in prop::collection::vec(-1.0f64..1.0, 4), t in prop::collection::vec(-1.0f64..1.0, 2)) {
        let (value, e_by_hand, out_by_hand) = float_and_slice_by_hand(&x);
        let (mut e, mut out) = (f64::NAN, vec![f64::NAN; 2]);
        assert_close(float_and_slice_passed_on(&x, &mut e, &mut out), value, 1e-14, "the primal");
        // `*e = ..` and `out[0]`, `out[1]` come before anything passes them on, but a slice's length is not
        // in its type: `e`'s incoming value is no input (API.md's `G` leaves it out), `out`'s stays one (a
        // zero gradient).
        let (mut e, mut out) = (f64::NAN, vec![f64::NAN; 2]);
        let (v, (gx, gout)) = float_and_slice_passed_on_vjp(&x, &mut e, &mut out, d[0], d[1], &d[2..]);
        assert_close(v, value, 1e-14, "vjp value");
        assert_close(e, e_by_hand, 1e-14, "vjp writes e");
        assert_all_close(&out, &out_by_hand, 1e-14, "vjp writes out");
        prop_assert_eq!(gout, vec![0.0; 2]);
        let f = |w: &[f64]| {
            let (v, e, out) = float_and_slice_by_hand(w);
            d[0] * v + d[1] * e + d[2] * out[0] + d[3] * out[1]
        };
        assert_fd_gradient(f, &x, &gx, "float_and_slice_passed_on_vjp");
        let (mut t_e, mut t_out) = (f64::NAN, vec![f64::NAN; 2]);
        let (_, t_value) = float_and_slice_passed_on_jvp(&x, &mut e, &mut out, (t.clone(), vec![4.0; 2]), &mut t_e, &mut t_out);
        let along = d[0] * t_value + d[1] * t_e + d[2] * t_out[0] + d[3] * t_out[1];
        assert_dot(along, &gx, &t, 1e-10, "float_and_slice_passed_on_jvp");
    }

    #[test]
    fn a_fixed_size_output_passed_on_to_a_reader_and_a_custom_gradient(x in xs(), d in prop::collection::vec(-1.0f64..1.0, 3), t in prop::collection::vec(-1.0f64..1.0, 2)) {
        let (value, out_by_hand) = fixed_by_hand(&x);
        let mut out = [f64::NAN; 2];
        assert_close(fixed_passed_on(&x, &mut out), value, 1e-14, "the primal");
        // Both elements of the `[f64; 2]` are written before it is passed on: its incoming value is no
        // input, so `G` is `x`'s alone (API.md), and a NaN going in shows nowhere.
        let mut out = [f64::NAN; 2];
        let (v, gx) = fixed_passed_on_vjp(&x, &mut out, d[0], &[d[1], d[2]]);
        assert_close(v, value, 1e-14, "vjp value");
        assert_all_close(&out, &out_by_hand, 1e-14, "vjp writes out");
        let f = |w: &[f64]| {
            let (v, o) = fixed_by_hand(w);
            d[0] * v + d[1] * o[0] + d[2] * o[1]
        };
        assert_fd_gradient(f, &x, &gx, "fixed_passed_on_vjp");
        let mut t_out = [f64::NAN; 2];
        let (_, t_value) = fixed_passed_on_jvp(&x, &mut [f64::NAN; 2], t.clone(), &mut t_out);
        let along = d[0] * t_value + d[1] * t_out[0] + d[2] * t_out[1];
        assert_dot(along, &gx, &t, 1e-10, "fixed_passed_on_jvp");
    }

    #[test]
    fn a_reader_in_a_loop_and_a_branch(x in xs(), n in 0usize..5, d in prop::collection::vec(-1.0f64..1.0, 3), t in prop::collection::vec(-1.0f64..1.0, 2)) {
        let (value, out_by_hand) = reads_in_a_loop_by_hand(&x, n);
        let mut out = vec![f64::NAN; 2];
        assert_close(reads_in_a_loop(&x, &mut out, n), value, 1e-13, "the primal");
        let (v, (gx, gout)) = reads_in_a_loop_vjp(&x, &mut out, n, d[0], &d[1..]);
        assert_close(v, value, 1e-13, "vjp value");
        assert_all_close(&out, &out_by_hand, 1e-13, "vjp writes out");
        prop_assert_eq!(gout, vec![0.0; 2]);
        let f = |w: &[f64]| {
            let (v, o) = reads_in_a_loop_by_hand(w, n);
            d[0] * v + d[1] * o[0] + d[2] * o[1]
        };
        assert_fd_gradient(f, &x, &gx, "reads_in_a_loop_vjp");
        let mut t_out = vec![f64::NAN; 2];
        let (_, t_value) = reads_in_a_loop_jvp(&x, &mut out, n, (t.clone(), vec![1.0; 2]), &mut t_out);
        let along = d[0] * t_value + d[1] * t_out[0] + d[2] * t_out[1];
        assert_dot(along, &gx, &t, 1e-10, "reads_in_a_loop_jvp");
    }

    #[test]
    fn a_reader_of_an_output_at_second_order(x in xs(), o in prop::collection::vec(-1.5f64..1.5, 2), v in prop::collection::vec(-1.0f64..1.0, 4)) {
        // The inputs are `x` and the incoming `out` (passed on to a call, so possibly read; here
        // overwritten first, so of no effect): the Hessian is 4 x 4, zero in `out`'s rows and columns.
        let mut out = o.clone();
        assert_close(reads_its_output_twice(&x, &mut out), reads_its_output_by_hand(&x).0, 1e-14, "the primal");
        let (value, (gx, gout), hessian) = reads_its_output_twice_hessian(&x, &mut out);
        let (by_hand, out_by_hand) = reads_its_output_by_hand(&x);
        assert_close(value, by_hand, 1e-14, "value");
        assert_all_close(&out, &out_by_hand, 1e-14, "f_hessian writes out as one call does");
        prop_assert_eq!(gout, vec![0.0; 2]);
        assert_fd_gradient(|w: &[f64]| reads_its_output_by_hand(w).0, &x, &gx, "gradient");
        let grad = |w: &[f64]| {
            let (_, (gx, gout)) = reads_its_output_twice_grad(&w[..2], &mut w[2..].to_vec());
            [gx, gout].concat()
        };
        let all = [x.clone(), o.clone()].concat();
        prop_assert_eq!(hessian.len(), 4);
        for i in 0..4 {
            let column = hessian_column(grad, &all, i);
            for j in 0..4 {
                assert_close(hessian[j][i], column[j], 1e-6, &format!("hessian[{j}][{i}]"));
            }
        }
        let mut out = o.clone();
        let (_, _, (hx, hout)) = reads_its_output_twice_hvp(&x, &mut out, (v[..2].to_vec(), v[2..].to_vec()));
        let hv = [hx, hout].concat();
        for j in 0..4 {
            assert_close(hv[j], dot(&hessian[j], &v), 1e-12, &format!("hvp[{j}]"));
        }
    }
}
