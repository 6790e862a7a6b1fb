//! `order = K` through a callee that keeps its parameter struct constant and only reads its fields
//! (`wrt(x)` on `fn g(p: &Cfg, x: &[f64])`): API.md lets a body pass its parameter struct to other
//! differentiable functions and `order = K` apply to every function whose first order works. Such a callee
//! takes its fields as values (`struct_higher.rs`'s `__g_fields`, no derive needed), and an `order = K` caller
//! passing it the struct on whole met "`__g_whole` has no generic copy" at its call; the callee now has a
//! `__g_whole` of forwarding items and their generic copy (`constant_whole.rs`).
//!
//! Every Hessian is checked against one worked out by hand and against central differences of the
//! function's `_grad` (`common`, no code shared with the macro) at five seeded points, `_hvp` against the
//! Hessian's columns, and the first order against differences of the function itself.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Inner {
    pub c: f64,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Cfg {
    pub b: f64,
    pub w: Vec<f64>,
    pub inner: Inner,
    #[no_grad]
    pub n: usize,
}

fn cfg() -> Cfg {
    Cfg {
        b: 0.75,
        w: vec![1.25, -0.5, 0.3],
        inner: Inner { c: 1.5 },
        n: 3,
    }
}

/// Five seeded points of three coordinates in `[-1.5, 1.5)`.
fn points(seed: u64) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    (0..5)
        .map(|_| inputs.vec(3).iter().map(|v| 1.5 * v).collect())
        .collect()
}

fn assert_matrix(actual: &[Vec<f64>], expected: &[Vec<f64>], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: rows");
    for (row, want) in actual.iter().zip(expected) {
        assert_all_close(row, want, tol, what);
    }
}

/// Each column of `h` against `hvp` along the unit vector.
fn assert_hvp_columns(h: &[Vec<f64>], hvp: impl Fn(Vec<f64>) -> Vec<f64>, what: &str) {
    for j in 0..h.len() {
        let mut e = vec![0.0; h.len()];
        e[j] = 1.0;
        let column: Vec<f64> = h.iter().map(|row| row[j]).collect();
        assert_all_close(&hvp(e), &column, 1e-12, what);
    }
}

// b x0 x1
#[differentiable(wrt(x), order = 2)]
fn reads_fields(p: &Cfg, x: &[f64]) -> f64 {
    p.b * x[0] * x[1]
}

// b x0 x1 + x0
#[differentiable(wrt(x), order = 2)]
fn caller(p: &Cfg, x: &[f64]) -> f64 {
    reads_fields(p, x) + x[0]
}

#[test]
fn a_callee_reading_a_scalar_field_of_a_constant_struct() {
    let p = cfg();
    let b = p.b;
    for x in points(33_001) {
        let (value, grad) = caller_grad(&p, &x);
        assert_close(value, b * x[0] * x[1] + x[0], 1e-12, "value");
        assert_all_close(&grad, &[b * x[1] + 1.0, b * x[0], 0.0], 1e-12, "gradient");
        assert_fd_gradient(|x| caller(&p, x), &x, &grad, "gradient");
        let (v, g, h) = caller_hessian(&p, &x);
        assert_close(v, value, 1e-12, "Hessian's value");
        assert_all_close(&g, &grad, 1e-12, "Hessian's gradient");
        let by_hand = vec![vec![0.0, b, 0.0], vec![b, 0.0, 0.0], vec![0.0; 3]];
        assert_matrix(&h, &by_hand, 1e-12, "Hessian by hand");
        assert_hessian_fd(&h, |x| caller_grad(&p, x).1, &x, 1e-6, "Hessian");
        assert_hvp_columns(&h, |v| caller_hvp(&p, &x, v).2, "hvp");
        // Forward mode through the callee's `__reads_fields_whole::jvp`.
        let tangent = vec![0.3, -1.2, 0.7];
        let (_, dot) = caller_jvp(&p, &x, tangent.clone());
        assert_close(dot, common::dot(&grad, &tangent), 1e-12, "jvp");
    }
}

// n sum_i w_i x_i^3 + c sin x0: a `Vec` field read in a loop bounded by the integer field `n`, which is
// also read as a float, and a nested struct's field.
#[differentiable(wrt(x), order = 2)]
fn weighted(p: &Cfg, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.n {
        s += p.w[i] * x[i] * x[i] * x[i];
    }
    s * p.n as f64 + p.inner.c * x[0].sin()
}

fn weighted_by_hand(p: &Cfg, x: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let n = p.n as f64;
    let c = p.inner.c;
    let value = n * (0..3).map(|i| p.w[i] * x[i].powi(3)).sum::<f64>() + c * x[0].sin();
    let mut grad: Vec<f64> = (0..3).map(|i| 3.0 * n * p.w[i] * x[i] * x[i]).collect();
    grad[0] += c * x[0].cos();
    let mut h = vec![vec![0.0; 3]; 3];
    for i in 0..3 {
        h[i][i] = 6.0 * n * p.w[i] * x[i];
    }
    h[0][0] -= c * x[0].sin();
    (value, grad, h)
}

// W (x1 + 1), the callee called twice.
#[differentiable(wrt(x), order = 2)]
fn calls_twice(p: &Cfg, x: &[f64]) -> f64 {
    weighted(p, x) * x[1] + weighted(p, x)
}

#[test]
fn a_callee_reading_a_vec_field_an_integer_field_and_a_nested_field_called_twice() {
    let p = cfg();
    for x in points(33_002) {
        let (w, gw, hw) = weighted_by_hand(&p, &x);
        let s = x[1] + 1.0;
        let (value, grad) = calls_twice_grad(&p, &x);
        assert_close(value, w * s, 1e-12, "value");
        let mut g_by_hand: Vec<f64> = gw.iter().map(|g| g * s).collect();
        g_by_hand[1] += w;
        assert_all_close(&grad, &g_by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|x| calls_twice(&p, x), &x, &grad, "gradient");
        let (_, _, h) = calls_twice_hessian(&p, &x);
        let mut by_hand = vec![vec![0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                by_hand[i][j] = hw[i][j] * s
                    + if j == 1 { gw[i] } else { 0.0 }
                    + if i == 1 { gw[j] } else { 0.0 };
            }
        }
        assert_matrix(&h, &by_hand, 1e-12, "Hessian by hand");
        assert_hessian_fd(&h, |x| calls_twice_grad(&p, x).1, &x, 1e-6, "Hessian");
        assert_hvp_columns(&h, |v| calls_twice_hvp(&p, &x, v).2, "hvp");
        // The callee's own Hessian, through its fields (unchanged).
        let (_, _, own) = weighted_hessian(&p, &x);
        assert_matrix(&own, &hw, 1e-12, "the callee's own Hessian");
    }
}

// c t sin t, of the inner struct, kept constant.
#[differentiable(wrt(t), order = 2)]
fn inner_wave(q: &Inner, t: f64) -> f64 {
    q.c * t * t.sin()
}

// u(x0) x1 with u(t) = c t sin t: the callee called with a nested struct field, `&p.inner`.
#[differentiable(wrt(x), order = 2)]
fn passes_inner(p: &Cfg, x: &[f64]) -> f64 {
    inner_wave(&p.inner, x[0]) * x[1]
}

#[test]
fn a_callee_of_the_inner_struct_called_with_a_nested_field() {
    let p = cfg();
    let c = p.inner.c;
    for x in points(33_003) {
        let t = x[0];
        let u = c * t * t.sin();
        let du = c * (t.sin() + t * t.cos());
        let ddu = c * (2.0 * t.cos() - t * t.sin());
        let (value, grad) = passes_inner_grad(&p, &x);
        assert_close(value, u * x[1], 1e-12, "value");
        assert_all_close(&grad, &[du * x[1], u, 0.0], 1e-12, "gradient by hand");
        assert_fd_gradient(|x| passes_inner(&p, x), &x, &grad, "gradient");
        let (_, _, h) = passes_inner_hessian(&p, &x);
        let by_hand = vec![vec![ddu * x[1], du, 0.0], vec![du, 0.0, 0.0], vec![0.0; 3]];
        assert_matrix(&h, &by_hand, 1e-12, "Hessian by hand");
        assert_hessian_fd(&h, |x| passes_inner_grad(&p, x).1, &x, 1e-6, "Hessian");
        assert_hvp_columns(&h, |v| passes_inner_hvp(&p, &x, v).2, "hvp");
    }
}

// b t^3 + c e^t, one active scalar.
#[differentiable(wrt(t), order = 3)]
fn scalar_callee(p: &Cfg, t: f64) -> f64 {
    p.b * t.powi(3) + p.inner.c * t.exp()
}

// b t^4 + c t e^t
#[differentiable(wrt(t), order = 3)]
fn one_scalar(p: &Cfg, t: f64) -> f64 {
    scalar_callee(p, t) * t
}

#[test]
fn derivatives_to_order_three_through_a_callee_with_one_active_scalar() {
    let p = cfg();
    let (b, c) = (p.b, p.inner.c);
    for x in points(33_004) {
        let t = x[0];
        let e = t.exp();
        let by_hand = [
            b * t.powi(4) + c * t * e,
            4.0 * b * t.powi(3) + c * (e + t * e),
            12.0 * b * t * t + c * (2.0 * e + t * e),
            24.0 * b * t + c * (3.0 * e + t * e),
        ];
        let d = one_scalar_derivatives(&p, t);
        assert_all_close(&d, &by_hand, 1e-12, "derivatives by hand");
        assert_close(d[0], one_scalar(&p, t), 1e-12, "value");
        let h = 1e-5;
        let fd = |k: usize| {
            (one_scalar_derivatives(&p, t + h)[k] - one_scalar_derivatives(&p, t - h)[k])
                / (2.0 * h)
        };
        for k in 0..3 {
            assert_close(
                d[k + 1],
                fd(k),
                1e-6,
                "a derivative against differences of the one before",
            );
        }
        let (_, g) = one_scalar_grad(&p, t);
        assert_close(g, by_hand[1], 1e-12, "gradient");
        let (_, _, hess) = one_scalar_hessian(&p, t);
        assert_close(hess[0][0], by_hand[2], 1e-12, "Hessian");
    }
}

/// A struct without the derive, only read by its fields and kept constant.
pub struct Plain {
    pub k: f64,
    pub v: Vec<f64>,
}

// k x0^2 + v0 x0 x1
#[differentiable(wrt(x), order = 2)]
fn plain_callee(p: &Plain, x: &[f64]) -> f64 {
    p.k * x[0] * x[0] + p.v[0] * x[0] * x[1]
}

#[test]
fn a_callee_of_a_struct_without_the_derive_keeps_its_first_order_and_its_own_hessian() {
    let p = Plain {
        k: 0.8,
        v: vec![-1.1, 2.0],
    };
    for x in points(33_005) {
        let (value, grad) = plain_callee_grad(&p, &x);
        assert_close(
            value,
            p.k * x[0] * x[0] + p.v[0] * x[0] * x[1],
            1e-12,
            "value",
        );
        let by_hand = [2.0 * p.k * x[0] + p.v[0] * x[1], p.v[0] * x[0], 0.0];
        assert_all_close(&grad, &by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|x| plain_callee(&p, x), &x, &grad, "gradient");
        let (_, _, h) = plain_callee_hessian(&p, &x);
        let h_by_hand = vec![
            vec![2.0 * p.k, p.v[0], 0.0],
            vec![p.v[0], 0.0, 0.0],
            vec![0.0; 3],
        ];
        assert_matrix(&h, &h_by_hand, 1e-12, "Hessian by hand");
        assert_hessian_fd(&h, |x| plain_callee_grad(&p, x).1, &x, 1e-6, "Hessian");
    }
}

#[test]
fn the_callees_first_order_is_unchanged() {
    let p = cfg();
    for x in points(33_006) {
        let (_, grad) = reads_fields_grad(&p, &x);
        assert_all_close(
            &grad,
            &[p.b * x[1], p.b * x[0], 0.0],
            1e-12,
            "gradient by hand",
        );
        assert_fd_gradient(|x| reads_fields(&p, x), &x, &grad, "reads_fields");
        let (_, grad) = weighted_grad(&p, &x);
        assert_all_close(
            &grad,
            &weighted_by_hand(&p, &x).1,
            1e-12,
            "gradient by hand",
        );
        assert_fd_gradient(|x| weighted(&p, x), &x, &grad, "weighted");
        let (value, d) = inner_wave_grad(&p.inner, x[2]);
        assert_close(value, inner_wave(&p.inner, x[2]), 1e-15, "value");
        let fd = (inner_wave(&p.inner, x[2] + 1e-6) - inner_wave(&p.inner, x[2] - 1e-6)) / 2e-6;
        assert_close(d, fd, 1e-6, "inner_wave");
    }
}

// s b x_k x0: a callee with parameters besides the struct, a float the caller differentiates through
// (`s = x2`) though the callee's `wrt(..)` leaves it out, and an index.
#[differentiable(wrt(x), order = 2)]
fn scaled(p: &Cfg, x: &[f64], s: f64, k: usize) -> f64 {
    s * p.b * x[k] * x[0]
}

// x2 b x1 x0
#[differentiable(wrt(x), order = 2)]
fn passes_more(p: &Cfg, x: &[f64]) -> f64 {
    scaled(p, x, x[2], 1)
}

#[test]
fn a_callee_with_other_parameters_beside_the_constant_struct() {
    let p = cfg();
    let b = p.b;
    for x in points(33_007) {
        let (value, grad) = passes_more_grad(&p, &x);
        assert_close(value, b * x[0] * x[1] * x[2], 1e-12, "value");
        let by_hand = [b * x[1] * x[2], b * x[0] * x[2], b * x[0] * x[1]];
        assert_all_close(&grad, &by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|x| passes_more(&p, x), &x, &grad, "gradient");
        let (_, _, h) = passes_more_hessian(&p, &x);
        let h_by_hand = vec![
            vec![0.0, b * x[2], b * x[1]],
            vec![b * x[2], 0.0, b * x[0]],
            vec![b * x[1], b * x[0], 0.0],
        ];
        assert_matrix(&h, &h_by_hand, 1e-12, "Hessian by hand");
        assert_hessian_fd(&h, |x| passes_more_grad(&p, x).1, &x, 1e-6, "Hessian");
        assert_hvp_columns(&h, |v| passes_more_hvp(&p, &x, v).2, "hvp");
    }
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Form {
    pub m: Vec<Vec<f64>>,
    pub a: [f64; 3],
}

// sum_ij m_ij x_i x_j + a . x: a matrix field and an array field.
#[differentiable(wrt(x), order = 2)]
fn quad_form(f: &Form, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += f.a[i] * x[i];
        for j in 0..3 {
            s += f.m[i][j] * x[i] * x[j];
        }
    }
    s
}

// Q(x) x0
#[differentiable(wrt(x), order = 2)]
fn form_caller(f: &Form, x: &[f64]) -> f64 {
    quad_form(f, x) * x[0]
}

#[test]
fn a_callee_reading_a_matrix_field_and_an_array_field() {
    let mut inputs = Inputs(33_008);
    let form = Form {
        m: inputs.rows(3, 3),
        a: [inputs.next(), inputs.next(), inputs.next()],
    };
    let m = &form.m;
    for x in points(33_009) {
        let q: f64 = (0..3)
            .map(|i| form.a[i] * x[i] + (0..3).map(|j| m[i][j] * x[i] * x[j]).sum::<f64>())
            .sum();
        let gq: Vec<f64> = (0..3)
            .map(|i| form.a[i] + (0..3).map(|j| (m[i][j] + m[j][i]) * x[j]).sum::<f64>())
            .collect();
        let (value, grad) = form_caller_grad(&form, &x);
        assert_close(value, q * x[0], 1e-12, "value");
        let mut g_by_hand: Vec<f64> = gq.iter().map(|g| g * x[0]).collect();
        g_by_hand[0] += q;
        assert_all_close(&grad, &g_by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|x| form_caller(&form, x), &x, &grad, "gradient");
        let (_, _, h) = form_caller_hessian(&form, &x);
        let mut by_hand = vec![vec![0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                by_hand[i][j] = (m[i][j] + m[j][i]) * x[0]
                    + if j == 0 { gq[i] } else { 0.0 }
                    + if i == 0 { gq[j] } else { 0.0 };
            }
        }
        assert_matrix(&h, &by_hand, 1e-12, "Hessian by hand");
        assert_hessian_fd(&h, |x| form_caller_grad(&form, x).1, &x, 1e-6, "Hessian");
        assert_hvp_columns(&h, |v| form_caller_hvp(&form, &x, v).2, "hvp");
        let tangent = vec![0.5, -0.25, 1.0];
        let (_, dot) = form_caller_jvp(&form, &x, tangent.clone());
        assert_close(dot, common::dot(&grad, &tangent), 1e-12, "jvp");
    }
}

#[test]
fn the_callees_forwarding_items_over_f64() {
    // `__reads_fields_whole`'s items at `f64`, which the caller's hidden function `__caller_whole` calls at
    // first order (the caller's Hessian runs their generic copy): checked directly, by hand.
    let p = cfg();
    let b = p.b;
    let values = autodiff::__private::values(&p);
    for x in points(33_010) {
        let grad = [b * x[1], b * x[0], 0.0];
        let value = __reads_fields_whole(&p, &values, &x);
        assert_close(value, b * x[0] * x[1], 1e-12, "value");
        let mut gx = vec![0.5; 3];
        let v =
            __reads_fields_whole {}.vjp_into(&p, &values, &x, 2.0, ((), None, Some(&mut gx[..])));
        assert_close(v, value, 1e-12, "vjp_into's value");
        let added: Vec<f64> = grad.iter().map(|g| 0.5 + 2.0 * g).collect();
        assert_all_close(&gx, &added, 1e-12, "vjp_into adds into the slot");
        let (v, ((), d_values, d_x)) = __reads_fields_whole {}.vjp(&p, &values, &x, 1.0);
        assert_close(v, value, 1e-12, "vjp's value");
        assert_eq!(
            d_values,
            vec![0.0; values.len()],
            "nothing for the constant struct"
        );
        assert_all_close(&d_x, &grad, 1e-12, "vjp");
        let t = vec![0.3, -1.2, 0.7];
        let (v, dot) =
            __reads_fields_whole {}.jvp(&p, &values, &x, ((), vec![0.0; values.len()], t.clone()));
        assert_close(v, value, 1e-12, "jvp's value");
        assert_close(dot, common::dot(&grad, &t), 1e-12, "jvp");
        let (_, g) = __caller_whole_grad(&p, &values, &x);
        assert_all_close(
            &g,
            &[grad[0] + 1.0, grad[1], grad[2]],
            1e-12,
            "the caller's hidden gradient",
        );
    }
}

// (b x0 x1 + x0) x1: through a caller that passes the struct on whole itself.
#[differentiable(wrt(x), order = 2)]
fn through_caller(p: &Cfg, x: &[f64]) -> f64 {
    caller(p, x) * x[1]
}

#[test]
fn a_chain_of_callers_passing_the_struct_on_whole() {
    let p = cfg();
    let b = p.b;
    for x in points(33_011) {
        let c = b * x[0] * x[1] + x[0];
        let gc = [b * x[1] + 1.0, b * x[0], 0.0];
        let (value, grad) = through_caller_grad(&p, &x);
        assert_close(value, c * x[1], 1e-12, "value");
        let by_hand = [gc[0] * x[1], gc[1] * x[1] + c, 0.0];
        assert_all_close(&grad, &by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|x| through_caller(&p, x), &x, &grad, "gradient");
        let (_, _, h) = through_caller_hessian(&p, &x);
        // H = Hc x1 + gc e1^T + e1 gc^T, Hc = [[0, b, 0], [b, 0, 0], [0, 0, 0]].
        let h_by_hand = vec![
            vec![0.0, b * x[1] + gc[0], 0.0],
            vec![b * x[1] + gc[0], 2.0 * gc[1], 0.0],
            vec![0.0; 3],
        ];
        assert_matrix(&h, &h_by_hand, 1e-12, "Hessian by hand");
        assert_hessian_fd(&h, |x| through_caller_grad(&p, x).1, &x, 1e-6, "Hessian");
        assert_hvp_columns(&h, |v| through_caller_hvp(&p, &x, v).2, "hvp");
    }
}

impl Cfg {
    // b x0 x1 + n c sin x2: a method keeping `self` constant, only reading its fields.
    #[differentiable(wrt(x), order = 2)]
    fn energy(&self, x: &[f64]) -> f64 {
        self.b * x[0] * x[1] + self.inner.c * x[2].sin() * self.n as f64
    }
}

// E(x) x0, the method called by its path.
#[differentiable(wrt(x), order = 2)]
fn calls_a_method(p: &Cfg, x: &[f64]) -> f64 {
    Cfg::energy(p, x) * x[0]
}

#[test]
fn a_method_keeping_self_constant_called_by_its_path() {
    let p = cfg();
    let (b, c, n) = (p.b, p.inner.c, p.n as f64);
    for x in points(33_012) {
        let e = b * x[0] * x[1] + n * c * x[2].sin();
        let ge = [b * x[1], b * x[0], n * c * x[2].cos()];
        let he = [
            [0.0, b, 0.0],
            [b, 0.0, 0.0],
            [0.0, 0.0, -n * c * x[2].sin()],
        ];
        let (value, grad) = calls_a_method_grad(&p, &x);
        assert_close(value, e * x[0], 1e-12, "value");
        let by_hand = [ge[0] * x[0] + e, ge[1] * x[0], ge[2] * x[0]];
        assert_all_close(&grad, &by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|x| calls_a_method(&p, x), &x, &grad, "gradient");
        let (_, _, h) = calls_a_method_hessian(&p, &x);
        let mut h_by_hand = vec![vec![0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                h_by_hand[i][j] = he[i][j] * x[0]
                    + if j == 0 { ge[i] } else { 0.0 }
                    + if i == 0 { ge[j] } else { 0.0 };
            }
        }
        assert_matrix(&h, &h_by_hand, 1e-12, "Hessian by hand");
        assert_hessian_fd(&h, |x| calls_a_method_grad(&p, x).1, &x, 1e-6, "Hessian");
        assert_hvp_columns(&h, |v| calls_a_method_hvp(&p, &x, v).2, "hvp");
        // The method's own first order and Hessian, unchanged.
        let (_, g) = p.energy_grad(&x);
        assert_all_close(&g, &ge, 1e-12, "the method's gradient");
        let (_, _, own) = p.energy_hessian(&x);
        for (row, want) in own.iter().zip(&he) {
            assert_all_close(row, want, 1e-12, "the method's Hessian");
        }
    }
}

// The struct after the other parameters: `__g_fields` takes its fields where the struct is, so the slots
// of the forwarding items follow the parameters' order (they put the fields first, E0308 in the
// generated code; found by tests/matrix33_more.rs's `s_wrt`). `k (b x0 + c x1^2) + x2`.
#[differentiable(wrt(x), order = 2)]
fn struct_last(x: &[f64], k: f64, p: &Cfg) -> f64 {
    k * (p.b * x[0] + p.inner.c * x[1] * x[1]) + x[2]
}

#[differentiable(wrt(x), order = 2)]
fn calls_struct_last(p: &Cfg, x: &[f64]) -> f64 {
    struct_last(x, 2.0, p) * x[0]
}

#[test]
fn a_struct_after_the_other_parameters() {
    let p = cfg();
    for x in points(3311) {
        let s = 2.0 * (p.b * x[0] + p.inner.c * x[1] * x[1]) + x[2];
        let (v, g) = calls_struct_last_grad(&p, &x);
        assert_close(v, s * x[0], 1e-12, "value");
        // d/dx0 = 2b x0 + s, d/dx1 = 4c x1 x0, d/dx2 = x0.
        let by_hand = [2.0 * p.b * x[0] + s, 4.0 * p.inner.c * x[1] * x[0], x[0]];
        assert_all_close(&g, &by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|y| calls_struct_last(&p, y), &x, &g, "gradient");
        let (_, hg, h) = calls_struct_last_hessian(&p, &x);
        assert_all_close(&hg, &by_hand, 1e-12, "Hessian's gradient");
        let c = p.inner.c;
        let expected = vec![
            vec![4.0 * p.b, 4.0 * c * x[1], 1.0],
            vec![4.0 * c * x[1], 4.0 * c * x[0], 0.0],
            vec![1.0, 0.0, 0.0],
        ];
        assert_matrix(&h, &expected, 1e-10, "Hessian by hand");
        assert_hessian_fd(
            &h,
            |y| calls_struct_last_grad(&p, y).1,
            &x,
            1e-6,
            "Hessian by differences",
        );
        assert_hvp_columns(&h, |e| calls_struct_last_hvp(&p, &x, e).2, "hvp");
    }
}
