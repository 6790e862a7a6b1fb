//! Session 30, found by the fuzzer's `--structs` mode (`fuzz/src/gen/structs.rs`):
//! 1. `for &v in &p.w` over a `Vec` or array field of a parameter struct did not compile: the field's
//!    input is a slice (`__p_w: &[f64]`), and `&__p_w` is no iterator (rustc's E0277, "`&&[f64]` is not an
//!    iterator", in the generated code). `--structs --seed 30101` p7, p9, p12, p34, p37.
//! 2. a `#[no_grad] n: usize` field converted to a float in a loop (`acc *= 1.0 + (p.n as f64) * p.a;`)
//!    did not compile: the reverse sweep's adjoint of the field was `zero_like(&p.n)`, a `usize`, to which
//!    the loop added an `f64` (rustc's E0277, "cannot add `f64` to `usize`"). `--structs --seed 30101` p5.
//! 3. a nested struct passed on whole (`hn(&p.inner, x)`) in a function with an early `return` did not
//!    compile: the branch that returns gave the nested struct's zero adjoint as `<_ as
//!    Differentiable>::zero_like(&__p_inner)` of the reference `__p_inner = &p.inner`, so `_` was `&N`
//!    (rustc's E0277, "`&N` is not `Differentiable`"). `--structs --seed 30101` p32.
//!
//! Every function is checked against analytic derivatives and central differences (`common`, no code
//! shared with the macro) at several points, and at `order = 2` its Hessian against differences of its
//! gradient.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd};

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Inner {
    pub b: f64,
    pub v: [f64; 2],
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct P {
    pub a: f64,
    pub w: Vec<f64>,
    pub arr: [f64; 3],
    pub inner: Inner,
    #[no_grad]
    pub n: usize,
}

/// The struct from its flat view `(a, w[0], w[1], arr[0..3], inner.b, inner.v[0..2])`, `w` of length 2.
fn make(flat: &[f64], n: usize) -> P {
    P {
        a: flat[0],
        w: flat[1..3].to_vec(),
        arr: [flat[3], flat[4], flat[5]],
        inner: Inner {
            b: flat[6],
            v: [flat[7], flat[8]],
        },
        n,
    }
}

/// The flat view written field by field (not `to_flat`).
fn flat(p: &P) -> Vec<f64> {
    let mut out = vec![p.a];
    out.extend_from_slice(&p.w);
    out.extend_from_slice(&p.arr);
    out.push(p.inner.b);
    out.extend_from_slice(&p.inner.v);
    out
}

fn points() -> Vec<Vec<f64>> {
    vec![
        vec![0.3, -0.7, 1.1, 0.5, -1.2, 0.8, 0.4, -0.6, 1.3],
        vec![-1.1, 0.2, 0.9, -0.4, 0.6, 1.4, -0.8, 0.7, -0.3],
        vec![0.9, 1.2, -0.5, 0.1, 0.3, -0.9, 1.0, 0.25, 0.6],
    ]
}

// 1. `for &v in &field` over a `Vec`, an array and a nested struct's array.
#[differentiable(order = 2)]
fn iterate_fields(p: &P, x: f64) -> f64 {
    let mut s = 0.0;
    for &v in &p.w {
        s += v * p.a;
    }
    for &v in &p.arr {
        s += (v * x).sin();
    }
    for &v in &p.inner.v {
        s += v * v * p.inner.b;
    }
    s
}

fn iterate_fields_by_hand(f: &[f64], x: f64) -> (f64, Vec<f64>) {
    let (a, w, arr, b, v) = (f[0], &f[1..3], &f[3..6], f[6], &f[7..9]);
    let value = w.iter().map(|wi| wi * a).sum::<f64>()
        + arr.iter().map(|r| (r * x).sin()).sum::<f64>()
        + v.iter().map(|vi| vi * vi * b).sum::<f64>();
    let mut g = vec![0.0; 10];
    g[0] = w.iter().sum();
    g[1] = a;
    g[2] = a;
    for k in 0..3 {
        g[3 + k] = x * (arr[k] * x).cos();
        g[9] += arr[k] * (arr[k] * x).cos();
    }
    g[6] = v.iter().map(|vi| vi * vi).sum();
    g[7] = 2.0 * v[0] * b;
    g[8] = 2.0 * v[1] * b;
    (value, g)
}

impl P {
    #[differentiable(wrt(self, x))]
    fn iterate_method(&self, x: f64) -> f64 {
        let mut s = x;
        for &v in &self.w {
            s = s * v + self.a;
        }
        s
    }
}

#[test]
fn a_loop_over_a_reference_to_a_field() {
    for (k, at) in points().iter().enumerate() {
        let x = 0.4 + 0.3 * k as f64;
        let p = make(at, 1);
        let (value, (g, gx)) = iterate_fields_grad(&p, x);
        let (want, by_hand) = iterate_fields_by_hand(at, x);
        assert_close(value, want, 1e-12, "iterate_fields value");
        let mut got = flat(&g);
        got.push(gx);
        assert_all_close(&got, &by_hand, 1e-12, "iterate_fields_grad by hand");
        assert_eq!(g.n, 1, "the no_grad field is the primal's");
        let mut full = at.clone();
        full.push(x);
        let f = |y: &[f64]| iterate_fields(&make(&y[..9], 1), y[9]);
        assert_fd_gradient(f, &full, &got, "iterate_fields_grad");
        // The Hessian against differences of the gradient.
        let (_, _, h) = iterate_fields_hessian(&p, x);
        let grad = |y: &[f64]| {
            let (_, (g, gx)) = iterate_fields_grad(&make(&y[..9], 1), y[9]);
            let mut out = flat(&g);
            out.push(gx);
            out
        };
        assert_hessian_fd(&h, grad, &full, 1e-6, "iterate_fields_hessian");
        // Forward mode: the tangent along a struct direction and x.
        let t = make(&[0.5, -0.25, 1.0, 0.75, -0.5, 0.2, 0.3, -0.1, 0.6], 1);
        let (_, tv) = iterate_fields_jvp(&p, x, (t.clone(), 0.4));
        let mut tflat = flat(&t);
        tflat.push(0.4);
        let want: f64 = tflat.iter().zip(&by_hand).map(|(a, b)| a * b).sum();
        assert_close(tv, want, 1e-12, "iterate_fields_jvp");

        // The method: s = ((x w0 + a) w1 + a).
        let (value, (g, gx)) = p.iterate_method_grad(x);
        let (w0, w1, a) = (at[1], at[2], at[0]);
        assert_close(value, (x * w0 + a) * w1 + a, 1e-12, "iterate_method value");
        assert_close(gx, w0 * w1, 1e-12, "iterate_method d/dx");
        assert_close(g.a, w1 + 1.0, 1e-12, "iterate_method d/da");
        assert_all_close(&g.w, &[x * w1, x * w0 + a], 1e-12, "iterate_method d/dw");
        assert_all_close(&g.arr, &[0.0; 3], 0.0, "iterate_method d/darr");
        let f = |y: &[f64]| make(&y[..9], 1).iterate_method(y[9]);
        let mut got = flat(&g);
        got.push(gx);
        assert_fd_gradient(f, &full, &got, "iterate_method_grad");
    }
}

// 2. A `#[no_grad]` count converted to a float in a loop, in a function and in a method, and in a
// `while` loop whose body also reads an array field at an index.
#[differentiable(order = 2)]
fn count_in_a_loop(p: &P, s: f64) -> f64 {
    let mut acc = s;
    for _ in 0..2 {
        acc *= 1.0 + (p.n as f64) * p.a;
    }
    acc
}

impl P {
    #[differentiable(wrt(self, s), order = 2)]
    fn count_in_a_while(&self, s: f64) -> f64 {
        let mut acc = s;
        let mut k = 0;
        while k < 3 {
            acc *= 1.0 + 0.5 * ((self.n as f64) * self.arr[k % 3]).sin();
            k += 1;
        }
        acc + self.w[self.n - 1]
    }
}

#[test]
fn a_no_grad_count_converted_in_a_loop() {
    for (k, at) in points().iter().enumerate() {
        for n in [1usize, 2] {
            let s = -0.5 + 0.4 * k as f64;
            let p = make(at, n);
            let nf = n as f64;
            let a = at[0];
            // acc = s (1 + n a)^2
            let (value, (g, gs)) = count_in_a_loop_grad(&p, s);
            assert_close(value, s * (1.0 + nf * a).powi(2), 1e-12, "count_in_a_loop");
            assert_close(gs, (1.0 + nf * a).powi(2), 1e-12, "count_in_a_loop d/ds");
            assert_close(
                g.a,
                2.0 * s * nf * (1.0 + nf * a),
                1e-12,
                "count_in_a_loop d/da",
            );
            assert_eq!(g.n, n, "the no_grad field is the primal's");
            let mut full = at.clone();
            full.push(s);
            let mut got = flat(&g);
            got.push(gs);
            let f = |y: &[f64]| count_in_a_loop(&make(&y[..9], n), y[9]);
            assert_fd_gradient(f, &full, &got, "count_in_a_loop_grad");
            let (_, _, h) = count_in_a_loop_hessian(&p, s);
            assert_close(h[0][0], 2.0 * s * nf * nf, 1e-12, "d2/da2");
            assert_close(h[0][9], 2.0 * nf * (1.0 + nf * a), 1e-12, "d2/dads");
            let grad = |y: &[f64]| {
                let (_, (g, gs)) = count_in_a_loop_grad(&make(&y[..9], n), y[9]);
                let mut out = flat(&g);
                out.push(gs);
                out
            };
            assert_hessian_fd(&h, grad, &full, 1e-6, "count_in_a_loop_hessian");

            // acc = s prod_k (1 + 0.5 sin(n arr[k])) + w[n - 1]
            let (value, (g, gs)) = p.count_in_a_while_grad(s);
            let arr = &at[3..6];
            let factor = |j: usize| 1.0 + 0.5 * (nf * arr[j]).sin();
            let prod: f64 = (0..3).map(factor).product();
            assert_close(value, s * prod + at[n], 1e-12, "count_in_a_while");
            assert_close(gs, prod, 1e-12, "count_in_a_while d/ds");
            for j in 0..3 {
                let others: f64 = (0..3).filter(|&i| i != j).map(factor).product();
                let want = s * others * 0.5 * nf * (nf * arr[j]).cos();
                assert_close(g.arr[j], want, 1e-12, "count_in_a_while d/darr");
            }
            let mut w = vec![0.0; 2];
            w[n - 1] = 1.0;
            assert_all_close(&g.w, &w, 0.0, "count_in_a_while d/dw");
            let mut got = flat(&g);
            got.push(gs);
            let f = |y: &[f64]| make(&y[..9], n).count_in_a_while(y[9]);
            assert_fd_gradient(f, &full, &got, "count_in_a_while_grad");
            let (_, _, h) = p.count_in_a_while_hessian(s);
            let grad = |y: &[f64]| {
                let (_, (g, gs)) = make(&y[..9], n).count_in_a_while_grad(y[9]);
                let mut out = flat(&g);
                out.push(gs);
                out
            };
            assert_hessian_fd(&h, grad, &full, 1e-6, "count_in_a_while_hessian");
        }
    }
}

// 3. A nested struct passed on whole where a branch returns early.
#[differentiable]
fn inner_term(q: &Inner, s: f64) -> f64 {
    q.b * s + q.v[0] * q.v[1]
}

#[differentiable(order = 2)]
fn early_return_and_nested_whole(p: &P, x: f64) -> f64 {
    if x > 1.0 {
        return p.a * x;
    }
    let c = inner_term(&p.inner, x * x);
    c + p.a
}

impl P {
    #[differentiable(wrt(self, x))]
    fn early_return_method(&self, x: f64) -> f64 {
        let mut acc = x;
        for k in 0..2 {
            if acc > 5.0 {
                return acc;
            }
            acc += inner_term(&self.inner, self.w[k]);
        }
        acc * self.a
    }
}

#[test]
fn a_nested_struct_passed_whole_beside_an_early_return() {
    for (k, at) in points().iter().enumerate() {
        for x in [-0.7 + 0.2 * k as f64, 1.3 + 0.1 * k as f64] {
            let p = make(at, 1);
            let (a, b, v0, v1) = (at[0], at[6], at[7], at[8]);
            let (value, (g, gx)) = early_return_and_nested_whole_grad(&p, x);
            let mut want = vec![0.0; 10];
            let want_value = if x > 1.0 {
                want[0] = x;
                want[9] = a;
                a * x
            } else {
                want[0] = 1.0;
                want[6] = x * x;
                want[7] = v1;
                want[8] = v0;
                want[9] = 2.0 * x * b;
                b * x * x + v0 * v1 + a
            };
            assert_close(value, want_value, 1e-12, "early_return_and_nested_whole");
            let mut got = flat(&g);
            got.push(gx);
            assert_all_close(
                &got,
                &want,
                1e-12,
                "early_return_and_nested_whole_grad by hand",
            );
            let mut full = at.clone();
            full.push(x);
            let f = |y: &[f64]| early_return_and_nested_whole(&make(&y[..9], 1), y[9]);
            assert_fd_gradient(f, &full, &got, "early_return_and_nested_whole_grad");
            let (_, _, h) = early_return_and_nested_whole_hessian(&p, x);
            let grad = |y: &[f64]| {
                let (_, (g, gx)) = early_return_and_nested_whole_grad(&make(&y[..9], 1), y[9]);
                let mut out = flat(&g);
                out.push(gx);
                out
            };
            assert_hessian_fd(
                &h,
                grad,
                &full,
                1e-6,
                "early_return_and_nested_whole_hessian",
            );

            let (value, (g, gx)) = p.early_return_method_grad(x);
            let f = |y: &[f64]| make(&y[..9], 1).early_return_method(y[9]);
            assert_close(value, f(&full), 1e-12, "early_return_method value");
            let mut got = flat(&g);
            got.push(gx);
            assert_fd_gradient(f, &full, &got, "early_return_method_grad");
            // Below 5 throughout: (x + sum_k (b w_k + v0 v1)) a.
            let (w0, w1) = (at[1], at[2]);
            let inner = x + b * (w0 + w1) + 2.0 * v0 * v1;
            assert_close(value, inner * a, 1e-12, "early_return_method by hand");
            assert_close(gx, a, 1e-12, "early_return_method d/dx");
            assert_close(g.a, inner, 1e-12, "early_return_method d/da");
            assert_close(g.inner.b, a * (w0 + w1), 1e-12, "early_return_method d/db");
        }
    }
}

/// A struct whose `wrt(self, ..)` method calls an associated function with constant arguments only
/// (fuzz --structs --seed 30103 p86, 30104 p69): the hidden function over its values view had no generic
/// copy and no fallback, so the copies of the hidden functions over the same struct called a missing
/// `Self::____m_whole_generic` (E0282/E0283 at first order).
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Konst {
    pub a: f64,
    pub w: Vec<f64>,
}

impl Konst {
    #[differentiable]
    pub fn h(u: f64, s: f64) -> f64 {
        u * s
    }

    #[differentiable(wrt(self, s))]
    pub fn m(&self, s: f64) -> f64 {
        Self::h(2.8, 1.2) + s * self.a * s + self.w[1] * Self::h(0.5, 3.0)
    }
}

#[test]
fn constant_arguments_to_an_associated_function_in_a_method_of_self() {
    for (a, s) in [(0.5, 2.0), (-1.25, 0.3), (2.0, -0.7)] {
        let k = Konst {
            a,
            w: vec![0.4, -0.9, 1.1],
        };
        let (v, (g, gs)) = k.m_grad(s);
        assert_close(v, 3.36 + a * s * s - 0.9 * 1.5, 1e-14, "value");
        assert_eq!(g.w, vec![0.0, 1.5, 0.0]);
        assert_close(g.a, s * s, 1e-14, "d/da");
        assert_close(gs, 2.0 * a * s, 1e-14, "d/ds");
        let flat: Vec<f64> = k.to_flat().into_iter().chain([s]).collect();
        let n = flat.len() - 1;
        let f = |v: &[f64]| k.from_flat(&v[..n]).m(v[n]);
        let (_, (g, gs)) = k.m_grad(s);
        let grad: Vec<f64> = g.to_flat().into_iter().chain([gs]).collect();
        assert_fd_gradient(f, &flat, &grad, "m");
    }
}
