//! `order = K` on a function that keeps a parameter struct constant (`wrt(..)` leaves it out) and passes
//! it on whole to a call (`helper(p, x)`, `inner_fn(&p.inner, t)`): API.md's "Methods and parameter
//! structs" lets a body pass a struct to other differentiable functions and `order = K` apply to every
//! function. Such a function was a spanned error at its attribute ("whose parameter structs are all
//! differentiated"); it now takes the values-view way (`struct_whole.rs`) with the constant struct's view
//! passed to the callee undifferentiated.
//!
//! Every function is checked against analytic derivatives worked out by hand and against central
//! differences of its gradient (`common`, no code shared with the macro), at several points, and its
//! `_hvp` against the Hessian's columns.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd};

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Inner {
    pub c: f64,
    pub v: [f64; 2],
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Cfg {
    pub w: Vec<f64>,
    pub b: f64,
    pub inner: Inner,
    #[no_grad]
    pub n: usize,
}

fn cfg() -> Cfg {
    Cfg {
        w: vec![1.25, -0.5],
        b: 0.75,
        inner: Inner {
            c: 1.5,
            v: [0.2, -0.7],
        },
        n: 2,
    }
}

fn points() -> Vec<[f64; 2]> {
    vec![[0.3, 0.7], [-1.1, 0.4], [0.9, -1.3], [1.6, 0.2]]
}

/// `b + sum_i w_i x_i^2`, differentiating its struct, first order only (its generic copy serves callers).
#[differentiable]
fn quadratic(p: &Cfg, x: &[f64]) -> f64 {
    let mut s = p.b;
    for i in 0..p.n {
        s += p.w[i] * x[i] * x[i];
    }
    s
}

/// `c sin t + v_1 t^2`, at `order = 2`.
#[differentiable(order = 2)]
fn wave(q: &Inner, t: f64) -> f64 {
    q.c * t.sin() + q.v[1] * t * t
}

// f = (b + w0 x0^2 + w1 x1^2) x0
#[differentiable(wrt(x), order = 2)]
fn passes_whole(p: &Cfg, x: &[f64]) -> f64 {
    quadratic(p, x) * x[0]
}

// f = b (c sin x1 + v1 x1^2) + w1 x0 x1
#[differentiable(wrt(x), order = 2)]
fn passes_a_field(p: &Cfg, x: &[f64]) -> f64 {
    p.b * wave(&p.inner, x[1]) + x[0] * x[1] * p.w[1]
}

// f = quadratic(p, x) * wave(q, x0), q differentiated, p constant
#[differentiable(wrt(q, x), order = 2)]
fn beside_a_differentiated_one(p: &Cfg, q: &Inner, x: &[f64]) -> f64 {
    quadratic(p, x) * wave(q, x[0])
}

#[test]
fn a_constant_struct_passed_on_whole() {
    let p = cfg();
    for x in points() {
        let (w, b) = (&p.w, p.b);
        let q = b + w[0] * x[0] * x[0] + w[1] * x[1] * x[1];
        let (value, grad) = passes_whole_grad(&p, &x);
        assert_close(value, q * x[0], 1e-12, "value");
        let by_hand = [q + 2.0 * w[0] * x[0] * x[0], 2.0 * w[1] * x[1] * x[0]];
        assert_all_close(&grad, &by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|x| passes_whole(&p, x), &x, &grad, "gradient");
        let (_, _, h) = passes_whole_hessian(&p, &x);
        let h_by_hand = [
            [6.0 * w[0] * x[0], 2.0 * w[1] * x[1]],
            [2.0 * w[1] * x[1], 2.0 * w[1] * x[0]],
        ];
        for (row, expected) in h.iter().zip(&h_by_hand) {
            assert_all_close(row, expected, 1e-12, "Hessian by hand");
        }
        assert_hessian_fd(&h, |x| passes_whole_grad(&p, x).1, &x, 1e-6, "Hessian");
        let (v2, g2, hv) = passes_whole_hvp(&p, &x, vec![0.0, 1.0]);
        assert_close(v2, value, 1e-12, "hvp value");
        assert_all_close(&g2, &grad, 1e-12, "hvp gradient");
        assert_all_close(&hv, &[h[0][1], h[1][1]], 1e-12, "hvp");
    }
}

#[test]
fn a_field_of_a_constant_struct_passed_on_whole() {
    let p = cfg();
    for x in points() {
        let (b, c, v1, w1) = (p.b, p.inner.c, p.inner.v[1], p.w[1]);
        let (value, grad) = passes_a_field_grad(&p, &x);
        let wave_at = c * x[1].sin() + v1 * x[1] * x[1];
        assert_close(value, b * wave_at + x[0] * x[1] * w1, 1e-12, "value");
        let by_hand = [
            w1 * x[1],
            b * (c * x[1].cos() + 2.0 * v1 * x[1]) + x[0] * w1,
        ];
        assert_all_close(&grad, &by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|x| passes_a_field(&p, x), &x, &grad, "gradient");
        let (_, _, h) = passes_a_field_hessian(&p, &x);
        let h_by_hand = [[0.0, w1], [w1, b * (-c * x[1].sin() + 2.0 * v1)]];
        for (row, expected) in h.iter().zip(&h_by_hand) {
            assert_all_close(row, expected, 1e-12, "Hessian by hand");
        }
        assert_hessian_fd(&h, |x| passes_a_field_grad(&p, x).1, &x, 1e-6, "Hessian");
    }
}

#[test]
fn a_constant_struct_beside_a_differentiated_one() {
    let p = cfg();
    let q0 = Inner {
        c: -0.5,
        v: [0.3, 0.9],
    };
    for x in points() {
        // Inputs flattened: q.c, q.v[0], q.v[1], x0, x1.
        let at = [q0.c, q0.v[0], q0.v[1], x[0], x[1]];
        let f = |z: &[f64]| {
            let q = Inner {
                c: z[0],
                v: [z[1], z[2]],
            };
            beside_a_differentiated_one(&p, &q, &z[3..])
        };
        let grad_flat = |z: &[f64]| {
            let q = Inner {
                c: z[0],
                v: [z[1], z[2]],
            };
            let (_, (gq, gx)) = beside_a_differentiated_one_grad(&p, &q, &z[3..]);
            let mut g = gq.to_flat();
            g.extend(gx);
            g
        };
        let g = grad_flat(&at);
        let quad = p.b + p.w[0] * x[0] * x[0] + p.w[1] * x[1] * x[1];
        let wave_at = q0.c * x[0].sin() + q0.v[1] * x[0] * x[0];
        let by_hand = [
            quad * x[0].sin(),
            0.0,
            quad * x[0] * x[0],
            2.0 * p.w[0] * x[0] * wave_at + quad * (q0.c * x[0].cos() + 2.0 * q0.v[1] * x[0]),
            2.0 * p.w[1] * x[1] * wave_at,
        ];
        assert_all_close(&g, &by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(f, &at, &g, "gradient");
        let (_, _, h) = beside_a_differentiated_one_hessian(&p, &q0, &x);
        assert_hessian_fd(&h, grad_flat, &at, 1e-6, "Hessian");
        // The product with a direction in q and x at once.
        let dir = (
            Inner {
                c: 0.5,
                v: [-1.0, 2.0],
            },
            vec![0.25, -0.75],
        );
        let (_, _, (hq, hx)) = beside_a_differentiated_one_hvp(&p, &q0, &x, dir);
        let d = [0.5, -1.0, 2.0, 0.25, -0.75];
        let expected: Vec<f64> = h
            .iter()
            .map(|row| row.iter().zip(&d).map(|(a, b)| a * b).sum())
            .collect();
        let mut got = hq.to_flat();
        got.extend(hx);
        assert_all_close(&got, &expected, 1e-12, "hvp against the Hessian");
    }
}

// f = b (c sin t + v1 t^2), one scalar active input: `_derivatives` too.
#[differentiable(wrt(t), order = 3)]
fn one_scalar(p: &Cfg, t: f64) -> f64 {
    p.b * wave(&p.inner, t)
}

#[test]
fn a_constant_struct_passed_on_whole_beside_one_scalar() {
    let p = cfg();
    let (b, c, v1) = (p.b, p.inner.c, p.inner.v[1]);
    for t in [-1.3, -0.2, 0.4, 1.7] {
        let d = one_scalar_derivatives(&p, t);
        let by_hand = [
            b * (c * t.sin() + v1 * t * t),
            b * (c * t.cos() + 2.0 * v1 * t),
            b * (-c * t.sin() + 2.0 * v1),
            b * (-c * t.cos()),
        ];
        assert_all_close(&d, &by_hand, 1e-12, "derivatives by hand");
        assert_close(d[0], one_scalar(&p, t), 1e-15, "value");
        let h = 1e-5;
        let fd = (one_scalar_derivatives(&p, t + h)[2] - one_scalar_derivatives(&p, t - h)[2])
            / (2.0 * h);
        assert_close(
            d[3],
            fd,
            1e-6,
            "third derivative against differences of the second",
        );
        let (_, _, hess) = one_scalar_hessian(&p, t);
        assert_close(hess[0][0], by_hand[2], 1e-12, "Hessian");
    }
}

/// `xs_0 s^2 + xs_1`, of a slice.
#[differentiable(order = 2)]
fn on_slice(xs: &[f64], s: f64) -> f64 {
    xs[0] * s * s + xs[1]
}

/// `xs_1 s^2`, of an array.
#[differentiable(order = 2)]
fn on_array(xs: &[f64; 2], s: f64) -> f64 {
    xs[1] * s * s
}

// Fields of a constant struct passed on whole to slice and array parameters (a `Vec` and the nested
// struct's array): their zero tangents in the callee's slot (rustc's unsatisfied `InactiveTangent<[f64;
// 2]>` for `Vec<f64>` in the generated forward mode, found by `fuzz --structs` with the struct constant
// at `order = 2`).
// f = on_slice(v, a t) + on_slice(w, t) on_array(v, t), v = inner.v
#[differentiable(wrt(t), order = 2)]
fn passes_float_fields(p: &Cfg, t: f64) -> f64 {
    on_slice(&p.inner.v, t * p.b) + on_slice(&p.w, t) * on_array(&p.inner.v, t)
}

#[test]
fn float_fields_of_a_constant_struct_passed_on_whole() {
    let p = cfg();
    let (v, w, b) = (p.inner.v, &p.w, p.b);
    for t in [-1.3, -0.2, 0.4, 1.7] {
        let (s1, a1) = (w[0] * t * t + w[1], v[1] * t * t);
        let value = v[0] * (b * t).powi(2) + v[1] + s1 * a1;
        let first = 2.0 * v[0] * b * b * t + 2.0 * w[0] * t * a1 + s1 * 2.0 * v[1] * t;
        let second = 2.0 * v[0] * b * b
            + 2.0 * w[0] * a1
            + 2.0 * (2.0 * w[0] * t) * (2.0 * v[1] * t)
            + s1 * 2.0 * v[1];
        let d = passes_float_fields_derivatives(&p, t);
        assert_all_close(&d, &[value, first, second], 1e-12, "derivatives by hand");
        assert_close(d[0], passes_float_fields(&p, t), 1e-15, "value");
        let (_, g) = passes_float_fields_grad(&p, t);
        assert_close(g, first, 1e-12, "gradient");
        let h = 1e-5;
        let fd = (passes_float_fields_grad(&p, t + h).1 - passes_float_fields_grad(&p, t - h).1)
            / (2.0 * h);
        assert_close(
            d[2],
            fd,
            1e-6,
            "second derivative against differences of the gradient",
        );
    }
}
