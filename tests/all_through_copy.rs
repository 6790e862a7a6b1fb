//! Functions with `wrt(..)` or output parameters, whose companion (what a differentiable caller runs)
//! differentiates through every float parameter: its sweeps are those of the function's generic copy,
//! instantiated at `f64` (`expand.rs`, `Generated::through_copy`). Checked through callers (which run the
//! companion's `vjp` and `jvp`) and the functions' own `f_vjp`, `f_jvp`, `f_grad` and `f_jacobian`, against
//! central finite differences and derivatives worked out by hand, on many inputs.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_jacobian, central_difference, dot,
    fd_jacobian, Inputs,
};

/// A weighted sum through `tanh` with data `xs` and a float data parameter `b`.
#[differentiable(wrt(w))]
fn weighted(w: &[f64], xs: &[f64], b: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += (w[i] * xs[i] + b).tanh();
    }
    s + 0.5 * b * w[0] * w[0]
}

/// `wrt(a)` with a float and an integer data parameter.
#[differentiable(wrt(a))]
fn scaled_power(a: f64, b: f64, n: i32) -> f64 {
    a.powf(b) * n as f64 + 0.25 * a * b
}

/// An output parameter only.
#[differentiable]
fn rotate(t: f64, v: &[f64], out: &mut [f64]) {
    out[0] = t.cos() * v[0] - t.sin() * v[1];
    out[1] = t.sin() * v[0] + t.cos() * v[1];
}

/// An output parameter and a returned float.
#[differentiable]
fn residual(x: &[f64], r: &mut [f64]) -> f64 {
    let mut norm = 0.0;
    for i in 0..x.len() {
        r[i] = x[i] * x[i] - 2.0;
        norm += r[i] * r[i];
    }
    norm
}

/// Every parameter active and no output: `f_vjp`'s sweep into buffers and `f_jvp` are the copy's.
#[differentiable]
fn plain_sum(x: &[f64], y: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] * y).sin() + 0.5 * x[i] * x[i];
    }
    s
}

/// A returned `Vec`: `f_jacobian`.
#[differentiable]
fn scaled(x: &[f64], s: f64) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..x.len() {
        out[i] = (s * x[i]).exp();
    }
    out
}

/// Calls `weighted` with every argument active: its companion's sweep with all parameters active.
#[differentiable]
fn weighted_caller(w: &[f64], xs: &[f64], b: f64) -> f64 {
    weighted(w, xs, b) * b + weighted(xs, w, b * b)
}

/// Calls `scaled_power` with both floats active.
#[differentiable]
fn power_caller(a: f64, b: f64) -> f64 {
    scaled_power(a, b, 3) + scaled_power(b, a, 2)
}

/// Calls `rotate` into a local buffer.
#[differentiable]
fn rotate_caller(t: f64, v: &[f64]) -> f64 {
    let mut out = vec![0.0; 2];
    rotate(t, v, &mut out);
    out[0] * out[1] + out[0]
}

/// Calls `residual`, reading both its result and its output.
#[differentiable]
fn residual_caller(x: &[f64]) -> f64 {
    let mut r = vec![0.0; x.len()];
    let n = residual(x, &mut r);
    n + r[0] * r[1]
}

fn weighted_plain(w: &[f64], xs: &[f64], b: f64) -> f64 {
    let s: f64 = w.iter().zip(xs).map(|(w, x)| (w * x + b).tanh()).sum();
    s + 0.5 * b * w[0] * w[0]
}

/// `d weighted / d w`, by hand.
fn weighted_dw(w: &[f64], xs: &[f64], b: f64) -> Vec<f64> {
    let mut g: Vec<f64> = (0..w.len())
        .map(|i| xs[i] / (w[i] * xs[i] + b).cosh().powi(2))
        .collect();
    g[0] += b * w[0];
    g
}

fn scaled_power_plain(a: f64, b: f64, n: i32) -> f64 {
    a.powf(b) * n as f64 + 0.25 * a * b
}

fn rotate_plain(t: f64, v: &[f64]) -> [f64; 2] {
    [
        t.cos() * v[0] - t.sin() * v[1],
        t.sin() * v[0] + t.cos() * v[1],
    ]
}

fn residual_plain(x: &[f64]) -> (f64, Vec<f64>) {
    let r: Vec<f64> = x.iter().map(|x| x * x - 2.0).collect();
    (r.iter().map(|r| r * r).sum(), r)
}

const CASES: u64 = 40;

#[test]
fn wrt_functions_own_items() {
    for seed in 0..CASES {
        let mut inputs = Inputs(seed);
        let (w, xs, b) = (inputs.vec(4), inputs.vec(4), inputs.next());
        let (value, g) = weighted_grad(&w, &xs, b);
        assert_close(value, weighted_plain(&w, &xs, b), 1e-12, "weighted");
        assert_all_close(&g, &weighted_dw(&w, &xs, b), 1e-10, "weighted_grad by hand");
        assert_fd_gradient(|w| weighted_plain(w, &xs, b), &w, &g, "weighted_grad");
        let (_, gv) = weighted_vjp(&w, &xs, b, 2.0);
        assert_all_close(
            &gv,
            &g.iter().map(|g| 2.0 * g).collect::<Vec<_>>(),
            1e-12,
            "vjp",
        );
        let t = inputs.vec(4);
        let (_, dot_value) = weighted_jvp(&w, &xs, b, t.clone());
        assert_close(dot_value, dot(&g, &t), 1e-10, "weighted_jvp");

        let (a, bb) = (1.0 + inputs.next().abs(), inputs.next());
        let (value, ga) = scaled_power_grad(a, bb, 3);
        assert_close(value, scaled_power_plain(a, bb, 3), 1e-12, "scaled_power");
        let by_hand = 3.0 * bb * a.powf(bb - 1.0) + 0.25 * bb;
        assert_close(ga, by_hand, 1e-10, "scaled_power_grad by hand");
        let fd = central_difference(|a| scaled_power_plain(a, bb, 3), a);
        assert_close(ga, fd, 1e-6, "scaled_power_grad by differences");
        let (_, dot_value) = scaled_power_jvp(a, bb, 3, 0.5);
        assert_close(dot_value, 0.5 * by_hand, 1e-10, "scaled_power_jvp");
    }
}

#[test]
fn plain_functions_own_items() {
    for seed in 0..CASES {
        let mut inputs = Inputs(300 + seed);
        let (x, y) = (inputs.vec(4), inputs.next() * 2.0);
        let f = |p: &[f64]| -> f64 {
            let (x, y) = (&p[..4], p[4]);
            x.iter().map(|x| (x * y).sin() + 0.5 * x * x).sum()
        };
        let flat: Vec<f64> = x.iter().copied().chain([y]).collect();
        let (value, (gx, gy)) = plain_sum_grad(&x, y);
        assert_close(value, f(&flat), 1e-12, "plain_sum");
        assert_close(plain_sum(&x, y), value, 1e-15, "plain_sum itself");
        let by_hand: Vec<f64> = x.iter().map(|x| y * (x * y).cos() + x).collect();
        assert_all_close(&gx, &by_hand, 1e-12, "plain_sum_grad x by hand");
        let gy_by_hand: f64 = x.iter().map(|x| x * (x * y).cos()).sum();
        assert_close(gy, gy_by_hand, 1e-12, "plain_sum_grad y by hand");
        let g: Vec<f64> = gx.iter().copied().chain([gy]).collect();
        assert_fd_gradient(f, &flat, &g, "plain_sum_grad");
        let (_, (vx, vy)) = plain_sum_vjp(&x, y, -1.5);
        let scaled_g: Vec<f64> = g.iter().map(|g| -1.5 * g).collect();
        let v: Vec<f64> = vx.iter().copied().chain([vy]).collect();
        assert_all_close(&v, &scaled_g, 1e-12, "plain_sum_vjp");
        let t = inputs.vec(5);
        let (_, dot_value) = plain_sum_jvp(&x, y, (t[..4].to_vec(), t[4]));
        assert_close(dot_value, dot(&g, &t), 1e-12, "plain_sum_jvp");
        let mut into = (vec![0.0; 4], 0.0);
        let value = plain_sum_grad_into(&x, y, (&mut into.0, &mut into.1));
        assert_close(value, f(&flat), 1e-12, "plain_sum_grad_into");
        assert_all_close(&into.0, &gx, 0.0, "plain_sum_grad_into x");
        assert_close(into.1, gy, 0.0, "plain_sum_grad_into y");

        let s = inputs.next();
        let jacobian = scaled_jacobian(&x, s);
        assert_eq!(scaled(&x, s).len(), 4);
        let fd = fd_jacobian(
            |p| (0..4).map(|i| (p[4] * p[i]).exp()).collect(),
            &x.iter().copied().chain([s]).collect::<Vec<_>>(),
        );
        assert_jacobian(&jacobian, &fd, "scaled_jacobian");
        for i in 0..4 {
            let e = (s * x[i]).exp();
            assert_close(jacobian[i][i], s * e, 1e-12, "scaled_jacobian by hand");
            assert_close(jacobian[i][4], x[i] * e, 1e-12, "scaled_jacobian by hand");
        }
    }
}

#[test]
fn output_functions_own_items() {
    for seed in 0..CASES {
        let mut inputs = Inputs(100 + seed);
        let (t, v) = (inputs.next() * 3.0, inputs.vec(2));
        let mut out = [0.0; 2];
        let jacobian = rotate_jacobian(t, &v, &mut out);
        let flat: Vec<f64> = std::iter::once(t).chain(v.iter().copied()).collect();
        let fd = fd_jacobian(|x| rotate_plain(x[0], &x[1..]).to_vec(), &flat);
        assert_jacobian(&jacobian, &fd, "rotate_jacobian");
        let d = inputs.vec(2);
        let (dt, dv) = rotate_vjp(t, &v, &mut out, &d);
        let row_t: f64 = (0..2).map(|i| d[i] * fd[i][0]).sum();
        assert_close(dt, row_t, 1e-6, "rotate_vjp t");
        for j in 0..2 {
            let row: f64 = (0..2).map(|i| d[i] * fd[i][1 + j]).sum();
            assert_close(dv[j], row, 1e-6, "rotate_vjp v");
        }
        let mut d_out = [0.0; 2];
        rotate_jvp(t, &v, &mut out, (0.5, vec![1.0, -1.0]), &mut d_out);
        for i in 0..2 {
            let expected = 0.5 * fd[i][0] + fd[i][1] - fd[i][2];
            assert_close(d_out[i], expected, 1e-6, "rotate_jvp");
        }

        let x = inputs.vec(3);
        let mut r = vec![0.0; 3];
        let (norm, g) = residual_grad(&x, &mut r);
        let (plain_norm, plain_r) = residual_plain(&x);
        assert_close(norm, plain_norm, 1e-12, "residual");
        assert_all_close(&r, &plain_r, 1e-12, "residual's output");
        let by_hand: Vec<f64> = (0..3).map(|i| 4.0 * x[i] * plain_r[i]).collect();
        assert_all_close(&g, &by_hand, 1e-10, "residual_grad by hand");
        assert_fd_gradient(|x| residual_plain(x).0, &x, &g, "residual_grad");
    }
}

#[test]
fn callers_run_the_copy_sweeps() {
    for seed in 0..CASES {
        let mut inputs = Inputs(200 + seed);
        // weighted_caller over (w, xs, b) flattened.
        let (w, xs, b) = (inputs.vec(3), inputs.vec(3), inputs.next());
        let f = |x: &[f64]| {
            let (w, xs, b) = (&x[..3], &x[3..6], x[6]);
            weighted_plain(w, xs, b) * b + weighted_plain(xs, w, b * b)
        };
        let (value, (gw, gxs, gb)) = weighted_caller_grad(&w, &xs, b);
        assert_close(
            weighted_caller(&w, &xs, b),
            value,
            1e-15,
            "weighted_caller itself",
        );
        let flat: Vec<f64> = w.iter().chain(&xs).copied().chain([b]).collect();
        assert_close(value, f(&flat), 1e-12, "weighted_caller");
        let g: Vec<f64> = gw.iter().chain(&gxs).copied().chain([gb]).collect();
        assert_fd_gradient(f, &flat, &g, "weighted_caller_grad");
        let t = inputs.vec(7);
        let (_, dot_value) =
            weighted_caller_jvp(&w, &xs, b, (t[..3].to_vec(), t[3..6].to_vec(), t[6]));
        assert_close(dot_value, dot(&g, &t), 1e-10, "weighted_caller_jvp");

        let (a, bb) = (1.0 + inputs.next().abs(), 1.0 + inputs.next().abs());
        let (value, (ga, gb)) = power_caller_grad(a, bb);
        let plain = scaled_power_plain(a, bb, 3) + scaled_power_plain(bb, a, 2);
        assert_close(power_caller(a, bb), plain, 1e-12, "power_caller itself");
        assert_close(value, plain, 1e-12, "power_caller");
        let pa = 3.0 * bb * a.powf(bb - 1.0) + 0.25 * bb // d/da scaled_power(a, bb, 3)
            + 2.0 * bb.powf(a) * bb.ln() + 0.25 * bb; // d/da scaled_power(bb, a, 2)
        let pb = 3.0 * a.powf(bb) * a.ln() + 0.25 * a + 2.0 * a * bb.powf(a - 1.0) + 0.25 * a;
        assert_close(ga, pa, 1e-10, "power_caller_grad a by hand");
        assert_close(gb, pb, 1e-10, "power_caller_grad b by hand");
        let f = |x: &[f64]| scaled_power_plain(x[0], x[1], 3) + scaled_power_plain(x[1], x[0], 2);
        assert_fd_gradient(f, &[a, bb], &[ga, gb], "power_caller_grad");
        let (_, dot_value) = power_caller_jvp(a, bb, (1.0, -2.0));
        assert_close(dot_value, pa - 2.0 * pb, 1e-10, "power_caller_jvp");

        let (t, v) = (inputs.next() * 3.0, inputs.vec(2));
        let f = |x: &[f64]| {
            let o = rotate_plain(x[0], &x[1..]);
            o[0] * o[1] + o[0]
        };
        let (value, (gt, gv)) = rotate_caller_grad(t, &v);
        let flat = [t, v[0], v[1]];
        assert_close(value, f(&flat), 1e-12, "rotate_caller");
        assert_close(rotate_caller(t, &v), value, 1e-15, "rotate_caller itself");
        let g = [gt, gv[0], gv[1]];
        assert_fd_gradient(f, &flat, &g, "rotate_caller_grad");
        let tangent = inputs.vec(3);
        let (_, dot_value) = rotate_caller_jvp(t, &v, (tangent[0], tangent[1..].to_vec()));
        assert_close(dot_value, dot(&g, &tangent), 1e-10, "rotate_caller_jvp");

        let x = inputs.vec(4);
        let f = |x: &[f64]| {
            let (n, r) = residual_plain(x);
            n + r[0] * r[1]
        };
        let (value, g) = residual_caller_grad(&x);
        assert_close(value, f(&x), 1e-12, "residual_caller");
        assert_close(residual_caller(&x), value, 1e-15, "residual_caller itself");
        let (_, r) = residual_plain(&x);
        let mut by_hand: Vec<f64> = (0..4).map(|i| 4.0 * x[i] * r[i]).collect();
        by_hand[0] += 2.0 * x[0] * r[1];
        by_hand[1] += 2.0 * x[1] * r[0];
        assert_all_close(&g, &by_hand, 1e-10, "residual_caller_grad by hand");
        assert_fd_gradient(f, &x, &g, "residual_caller_grad");
        let tangent = inputs.vec(4);
        let (_, dot_value) = residual_caller_jvp(&x, tangent.clone());
        assert_close(dot_value, dot(&g, &tangent), 1e-10, "residual_caller_jvp");
    }
}
