//! `order = K` on functions that pass a parameter struct on whole where API.md allows it and the macro
//! refused it: a struct with a float type parameter (`Outer<T>`, from an `f64` caller and from one generic
//! over `T`), and an `f32` function passing its struct on (the values view is the function's own float type,
//! `struct_whole.rs`'s `ViewFloat`).
//!
//! Every function is checked against derivatives worked out by hand and against central differences
//! (`common`, no code shared with the macro) at several seeded points: the gradient against differences of
//! the function, the Hessian against the analytic one and against differences of the gradient, `_hvp`
//! against the Hessian's columns; the `f32` ones at `f32` tolerances.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable, Float};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Inner<T: Float> {
    pub a: T,
    pub b: Vec<T>,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Outer<T: Float> {
    pub inner: Inner<T>,
    pub c: [T; 2],
}

/// `a x^2 + sum_i b_i x + c0 c1`.
#[differentiable(order = 2)]
pub fn g<T: Float>(o: &Outer<T>, x: T) -> T {
    o.inner.a * x * x + o.inner.b.iter().fold(T::zero(), |acc, v| acc + *v * x) + o.c[0] * o.c[1]
}

/// `g x`, written for `f64`.
#[differentiable(order = 2)]
pub fn h(o: &Outer<f64>, x: f64) -> f64 {
    g(o, x) * x
}

/// `g x`, generic over its float type.
#[differentiable(order = 2)]
pub fn hg<T: Float>(o: &Outer<T>, x: T) -> T {
    g(o, x) * x
}

/// `sin(g) + h` through a generic caller of a generic caller, the struct passed on twice.
#[differentiable(order = 2)]
pub fn twice<T: Float>(o: &Outer<T>, x: T) -> T {
    g(o, x).sin() + hg(o, x)
}

/// The struct of the flat inputs `(a, b0, b1, b2, c0, c1)`.
fn outer(flat: &[f64]) -> Outer<f64> {
    Outer {
        inner: Inner {
            a: flat[0],
            b: flat[1..4].to_vec(),
        },
        c: [flat[4], flat[5]],
    }
}

fn outer32(o: &Outer<f64>) -> Outer<f32> {
    Outer {
        inner: Inner {
            a: o.inner.a as f32,
            b: o.inner.b.iter().map(|&v| v as f32).collect(),
        },
        c: [o.c[0] as f32, o.c[1] as f32],
    }
}

/// Five seeded points `(a, b0, b1, b2, c0, c1, x)` with entries in `[-1.5, 1.5)`.
fn points(seed: u64, n: usize) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    (0..5)
        .map(|_| inputs.vec(n).iter().map(|v| 1.5 * v).collect())
        .collect()
}

fn assert_matrix(actual: &[Vec<f64>], expected: &[Vec<f64>], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: rows");
    for (row, want) in actual.iter().zip(expected) {
        assert_all_close(row, want, tol, what);
    }
}

/// The symmetric matrix of size `n` with these entries above the diagonal (and on it).
fn symmetric(n: usize, entries: &[(usize, usize, f64)]) -> Vec<Vec<f64>> {
    let mut h = vec![vec![0.0; n]; n];
    for &(i, j, v) in entries {
        h[i][j] = v;
        h[j][i] = v;
    }
    h
}

/// `g`'s value, gradient over `(a, b, c, x)` and Hessian, by hand.
fn g_by_hand(p: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let (a, b, c, x) = (p[0], &p[1..4], &p[4..6], p[6]);
    let sb: f64 = b.iter().sum();
    let value = a * x * x + sb * x + c[0] * c[1];
    let grad = vec![x * x, x, x, x, c[1], c[0], 2.0 * a * x + sb];
    let mut entries = vec![(0, 6, 2.0 * x), (4, 5, 1.0), (6, 6, 2.0 * a)];
    entries.extend((1..4).map(|i| (i, 6, 1.0)));
    (value, grad, symmetric(7, &entries))
}

/// `g x`'s, by hand: `a x^3 + sum b x^2 + c0 c1 x`.
fn h_by_hand(p: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let (a, b, c, x) = (p[0], &p[1..4], &p[4..6], p[6]);
    let sb: f64 = b.iter().sum();
    let value = a * x.powi(3) + sb * x * x + c[0] * c[1] * x;
    let grad = vec![
        x.powi(3),
        x * x,
        x * x,
        x * x,
        c[1] * x,
        c[0] * x,
        3.0 * a * x * x + 2.0 * sb * x + c[0] * c[1],
    ];
    let mut entries = vec![
        (0, 6, 3.0 * x * x),
        (4, 5, x),
        (4, 6, c[1]),
        (5, 6, c[0]),
        (6, 6, 6.0 * a * x + 2.0 * sb),
    ];
    entries.extend((1..4).map(|i| (i, 6, 2.0 * x)));
    (value, grad, symmetric(7, &entries))
}

/// A gradient `(Outer, x)` as one flat vector.
fn flat_gradient(g: &(Outer<f64>, f64)) -> Vec<f64> {
    let mut flat = g.0.to_flat();
    flat.push(g.1);
    flat
}

/// Checks one function of `(o, x)` by its generated items (`grad`, `hessian`, `hvp`) against `by_hand`
/// and differences.
fn check_struct_and_scalar(
    f: impl Fn(&Outer<f64>, f64) -> f64,
    grad: impl Fn(&Outer<f64>, f64) -> (f64, (Outer<f64>, f64)),
    hessian: impl Fn(&Outer<f64>, f64) -> (f64, (Outer<f64>, f64), Vec<Vec<f64>>),
    hvp: impl Fn(&Outer<f64>, f64, (Outer<f64>, f64)) -> (f64, (Outer<f64>, f64), (Outer<f64>, f64)),
    by_hand: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    seed: u64,
    what: &str,
) {
    for p in points(seed, 7) {
        let (o, x) = (outer(&p), p[6]);
        let (value, gradient, hess) = by_hand(&p);
        assert_close(f(&o, x), value, 1e-12, what);
        let (v, gr) = grad(&o, x);
        assert_close(v, value, 1e-12, what);
        let gr = flat_gradient(&gr);
        assert_all_close(&gr, &gradient, 1e-12, what);
        assert_fd_gradient(|p| f(&outer(p), p[6]), &p, &gr, what);
        let (v, gh, hm) = hessian(&o, x);
        assert_close(v, value, 1e-12, what);
        assert_all_close(&flat_gradient(&gh), &gradient, 1e-12, what);
        assert_matrix(&hm, &hess, 1e-12, what);
        let flat_grad = |p: &[f64]| flat_gradient(&grad(&outer(p), p[6]).1);
        assert_hessian_fd(&hm, flat_grad, &p, 1e-6, what);
        // `_hvp` along each unit direction is a column; along a mixed one, their combination.
        let dir: Vec<f64> = (0..7).map(|i| 0.5 - 0.2 * i as f64).collect();
        let (v, gv, product) = hvp(&o, x, (outer(&dir), dir[6]));
        assert_close(v, value, 1e-12, what);
        assert_all_close(&flat_gradient(&gv), &gradient, 1e-12, what);
        let expected: Vec<f64> = (0..7)
            .map(|i| (0..7).map(|j| hess[i][j] * dir[j]).sum())
            .collect();
        assert_all_close(&flat_gradient(&product), &expected, 1e-12, what);
    }
}

#[test]
fn a_generic_struct_passed_on_whole_from_an_f64_caller() {
    check_struct_and_scalar(h, h_grad, h_hessian, h_hvp, h_by_hand, 34_101, "h");
}

#[test]
fn a_generic_struct_passed_on_whole_from_a_generic_caller() {
    check_struct_and_scalar(
        hg::<f64>,
        hg_grad::<f64>,
        hg_hessian::<f64>,
        hg_hvp::<f64>,
        h_by_hand,
        34_102,
        "hg",
    );
}

#[test]
fn the_generic_callee_itself() {
    check_struct_and_scalar(
        g::<f64>,
        g_grad::<f64>,
        g_hessian::<f64>,
        g_hvp::<f64>,
        g_by_hand,
        34_103,
        "g",
    );
}

#[test]
fn a_generic_struct_passed_on_through_two_callers() {
    let by_hand = |p: &[f64]| {
        let (gv, gg, gh) = g_by_hand(p);
        let (hv, hgr, hh) = h_by_hand(p);
        let value = gv.sin() + hv;
        let grad: Vec<f64> = (0..7).map(|i| gv.cos() * gg[i] + hgr[i]).collect();
        let hess: Vec<Vec<f64>> = (0..7)
            .map(|i| {
                (0..7)
                    .map(|j| -gv.sin() * gg[i] * gg[j] + gv.cos() * gh[i][j] + hh[i][j])
                    .collect()
            })
            .collect();
        (value, grad, hess)
    };
    check_struct_and_scalar(
        twice::<f64>,
        twice_grad::<f64>,
        twice_hessian::<f64>,
        twice_hvp::<f64>,
        by_hand,
        34_104,
        "twice",
    );
}

#[test]
fn a_generic_struct_passed_on_whole_on_f32() {
    for p in points(34_105, 7) {
        let o = outer(&p);
        let (o32, x) = (outer32(&o), p[6] as f32);
        let (value, gradient, hess) = h_by_hand(&p);
        let (v, (go, gx)) = hg_grad(&o32, x);
        assert_close(v as f64, value, 1e-5, "hg f32 value");
        let mut flat: Vec<f64> = go.to_flat();
        flat.push(gx as f64);
        assert_all_close(&flat, &gradient, 1e-5, "hg f32 gradient");
        let (_, _, hm) = hg_hessian(&o32, x);
        let hm: Vec<Vec<f64>> = hm
            .iter()
            .map(|row| row.iter().map(|&v| v as f64).collect())
            .collect();
        assert_matrix(&hm, &hess, 1e-5, "hg f32 Hessian");
        // Against differences of the f32 gradient, at a step its rounding allows (the gradient is
        // quadratic in every input, so central differences are exact but for rounding).
        let f32_grad = |p: &[f64]| {
            let (_, (go, gx)) = hg_grad(&outer32(&outer(p)), p[6] as f32);
            let mut flat = go.to_flat();
            flat.push(gx as f64);
            flat
        };
        assert_matrix(
            &hm,
            &differences(f32_grad, &p, 1e-2),
            1e-3,
            "hg f32 Hessian by differences",
        );
    }
}

/// The Jacobian of `grad` at `p` by central differences of step `step`, column by column (rows the
/// outputs: of a gradient, the Hessian).
fn differences(grad: impl Fn(&[f64]) -> Vec<f64>, p: &[f64], step: f64) -> Vec<Vec<f64>> {
    let columns: Vec<Vec<f64>> = (0..p.len())
        .map(|j| {
            let at = |s: f64| {
                let mut q = p.to_vec();
                q[j] += s * step;
                grad(&q)
            };
            let (above, below) = (at(1.0), at(-1.0));
            (0..above.len())
                .map(|i| (above[i] - below[i]) / (2.0 * step))
                .collect()
        })
        .collect();
    let outputs = columns.first().map_or(0, Vec::len);
    (0..outputs)
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect()
}

// --- An `f32` function passing its struct on whole ---------------------------------------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct P {
    pub w: Vec<f32>,
    pub b: f32,
}

/// `w0 x^2 + w1 x + b^2`.
#[differentiable(order = 2)]
pub fn inner(p: &P, x: f32) -> f32 {
    p.w[0] * x * x + p.w[1] * x + p.b * p.b
}

/// `2 inner`.
#[differentiable(order = 2)]
pub fn outer_f32(p: &P, x: f32) -> f32 {
    inner(p, x) * 2.0
}

/// `w0 x^2 + b`, first order only.
#[differentiable]
pub fn inner_first(p: &P, x: f32) -> f32 {
    p.w[0] * x * x + p.b
}

/// `inner_first x = w0 x^3 + b x`, through a callee without `order = K`.
#[differentiable(order = 2)]
pub fn outer_first(p: &P, x: f32) -> f32 {
    inner_first(p, x) * x
}

fn p_of(flat: &[f64]) -> P {
    P {
        w: vec![flat[0] as f32, flat[1] as f32],
        b: flat[2] as f32,
    }
}

/// Checks an `f32` function of `(p, x)` (flat `(w0, w1, b, x)`) by its generated items against
/// `by_hand` and differences at `f32` tolerances.
fn check_f32(
    f: impl Fn(&P, f32) -> f32,
    grad: impl Fn(&P, f32) -> (f32, (P, f32)),
    hessian: impl Fn(&P, f32) -> (f32, (P, f32), Vec<Vec<f32>>),
    hvp: impl Fn(&P, f32, (P, f32)) -> (f32, (P, f32), (P, f32)),
    by_hand: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    seed: u64,
    what: &str,
) {
    let flat = |g: &(P, f32)| {
        let mut flat = g.0.to_flat();
        flat.push(g.1 as f64);
        flat
    };
    for q in points(seed, 4) {
        // The point as f32 holds it, so that the formula sees the function's inputs.
        let q: Vec<f64> = q.iter().map(|&v| v as f32 as f64).collect();
        let (p, x) = (p_of(&q), q[3] as f32);
        let (value, gradient, hess) = by_hand(&q);
        assert_close(f(&p, x) as f64, value, 1e-5, what);
        let (v, gr) = grad(&p, x);
        assert_close(v as f64, value, 1e-5, what);
        let gr = flat(&gr);
        assert_all_close(&gr, &gradient, 1e-5, what);
        let by_differences =
            differences(|q: &[f64]| vec![f(&p_of(q), q[3] as f32) as f64], &q, 1e-2);
        assert_all_close(&gr, &by_differences[0], 1e-3, what);
        let (v, gh, hm) = hessian(&p, x);
        assert_close(v as f64, value, 1e-5, what);
        assert_all_close(&flat(&gh), &gradient, 1e-5, what);
        let hm: Vec<Vec<f64>> = hm
            .iter()
            .map(|row| row.iter().map(|&v| v as f64).collect())
            .collect();
        assert_matrix(&hm, &hess, 1e-5, what);
        let f32_grad = |q: &[f64]| flat(&grad(&p_of(q), q[3] as f32).1);
        assert_matrix(&hm, &differences(f32_grad, &q, 1e-2), 1e-3, what);
        let dir = [0.5f32, -0.25, 0.75, 1.0];
        let (_, _, product) = hvp(
            &p,
            x,
            (
                P {
                    w: dir[..2].to_vec(),
                    b: dir[2],
                },
                dir[3],
            ),
        );
        let expected: Vec<f64> = (0..4)
            .map(|i| (0..4).map(|j| hess[i][j] * dir[j] as f64).sum())
            .collect();
        assert_all_close(&flat(&product), &expected, 1e-5, what);
    }
}

fn inner_by_hand(q: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let (w0, w1, b, x) = (q[0], q[1], q[2], q[3]);
    let value = w0 * x * x + w1 * x + b * b;
    let grad = vec![x * x, x, 2.0 * b, 2.0 * w0 * x + w1];
    let hess = symmetric(
        4,
        &[(0, 3, 2.0 * x), (1, 3, 1.0), (2, 2, 2.0), (3, 3, 2.0 * w0)],
    );
    (value, grad, hess)
}

#[test]
fn an_f32_function_passing_its_struct_on_whole() {
    let twice = |q: &[f64]| {
        let (v, g, h) = inner_by_hand(q);
        let double = |row: &Vec<f64>| row.iter().map(|v| 2.0 * v).collect::<Vec<f64>>();
        (2.0 * v, double(&g), h.iter().map(double).collect())
    };
    check_f32(
        outer_f32,
        outer_f32_grad,
        outer_f32_hessian,
        outer_f32_hvp,
        twice,
        34_106,
        "outer_f32",
    );
    check_f32(
        inner,
        inner_grad,
        inner_hessian,
        inner_hvp,
        inner_by_hand,
        34_107,
        "inner",
    );
}

#[test]
fn an_f32_function_passing_its_struct_to_a_first_order_callee() {
    let by_hand = |q: &[f64]| {
        let (w0, b, x) = (q[0], q[2], q[3]);
        let value = w0 * x.powi(3) + b * x;
        let grad = vec![x.powi(3), 0.0, x, 3.0 * w0 * x * x + b];
        let hess = symmetric(4, &[(0, 3, 3.0 * x * x), (2, 3, 1.0), (3, 3, 6.0 * w0 * x)]);
        (value, grad, hess)
    };
    check_f32(
        outer_first,
        outer_first_grad,
        outer_first_hessian,
        outer_first_hvp,
        by_hand,
        34_108,
        "outer_first",
    );
}

// --- A generic callee without `order = K` ---------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Line<T: Float> {
    pub slope: T,
    pub offset: T,
}

/// `s x + o`, first order only.
#[differentiable]
pub fn at<T: Float>(l: &Line<T>, x: T) -> T {
    l.slope * x + l.offset
}

/// `(s x + o)^2`, through the first-order callee (it was the spanned error
/// tests/ui/signature/order-struct-passed-whole.rs).
#[differentiable(order = 2)]
pub fn squared<T: Float>(l: &Line<T>, x: T) -> T {
    let y = at(l, x);
    y * y
}

#[test]
fn a_generic_struct_passed_on_whole_to_a_first_order_callee() {
    for q in points(34_109, 3) {
        let (s, o, x) = (q[0], q[1], q[2]);
        let l = Line {
            slope: s,
            offset: o,
        };
        let y = s * x + o;
        let dy = [x, 1.0, s];
        let grad: Vec<f64> = dy.iter().map(|d| 2.0 * y * d).collect();
        // d2(y^2) = 2 dy dy^T + 2 y d2y, d2y = 1 at (s, x).
        let mut hess: Vec<Vec<f64>> = (0..3)
            .map(|i| (0..3).map(|j| 2.0 * dy[i] * dy[j]).collect())
            .collect();
        hess[0][2] += 2.0 * y;
        hess[2][0] += 2.0 * y;
        let flat = |g: &(Line<f64>, f64)| vec![g.0.slope, g.0.offset, g.1];
        let (v, g) = squared_grad(&l, x);
        assert_close(v, y * y, 1e-12, "squared value");
        assert_all_close(&flat(&g), &grad, 1e-12, "squared gradient");
        let f = |q: &[f64]| {
            squared(
                &Line {
                    slope: q[0],
                    offset: q[1],
                },
                q[2],
            )
        };
        assert_fd_gradient(f, &q, &flat(&g), "squared gradient");
        let (_, _, h) = squared_hessian(&l, x);
        assert_matrix(&h, &hess, 1e-12, "squared Hessian");
        let line_grad = |q: &[f64]| {
            let l = Line {
                slope: q[0],
                offset: q[1],
            };
            flat(&squared_grad(&l, q[2]).1)
        };
        assert_hessian_fd(&h, line_grad, &q, 1e-6, "squared Hessian");
        let (_, _, product) = squared_hvp(
            &l,
            x,
            (
                Line {
                    slope: 1.0,
                    offset: -0.5,
                },
                0.25,
            ),
        );
        let dir = [1.0, -0.5, 0.25];
        let expected: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| hess[i][j] * dir[j]).sum())
            .collect();
        assert_all_close(&flat(&product), &expected, 1e-12, "squared hvp");
        // On f32.
        let l32 = Line {
            slope: s as f32,
            offset: o as f32,
        };
        let (_, _, h32) = squared_hessian(&l32, x as f32);
        for i in 0..3 {
            for j in 0..3 {
                assert_close(h32[i][j] as f64, hess[i][j], 1e-5, "squared f32 Hessian");
            }
        }
    }
}

// --- A plain method of a struct passed on whole -----------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Spring {
    pub k: f64,
    pub w: [f64; 2],
    #[no_grad]
    pub n: usize,
}

impl Spring {
    /// `k x0 x1 + w1 x1`.
    #[differentiable(wrt(self, x), order = 2)]
    pub fn energy(&self, x: &[f64; 2]) -> f64 {
        self.k * x[0] * x[1] + self.w[1] * x[1]
    }

    /// A plain method (not differentiable): an integer.
    pub fn count(&self) -> usize {
        self.n
    }
}

/// `n energy x0`: the plain method called without arguments (`0..a.count()`) beside the struct passed on
/// whole (`a.energy(x)`), as tests/method_calls33.rs::affine_in_x.
#[differentiable(order = 2)]
pub fn repeated(a: &Spring, x: &[f64; 2]) -> f64 {
    let mut s = 0.0;
    for _ in 0..a.count() {
        s += a.energy(x);
    }
    s * x[0]
}

#[test]
fn a_plain_method_beside_a_struct_passed_on_whole() {
    let spring = |q: &[f64]| Spring {
        k: q[0],
        w: [q[1], q[2]],
        n: 3,
    };
    let flat = |g: &(Spring, [f64; 2])| {
        let mut flat = g.0.to_flat();
        flat.extend(g.1);
        flat
    };
    for q in points(34_110, 5) {
        let (a, x) = (spring(&q), [q[3], q[4]]);
        let (k, w1, x0, x1, n) = (q[0], q[2], q[3], q[4], 3.0);
        let value = n * (k * x0 * x0 * x1 + w1 * x0 * x1);
        let grad = [
            n * x0 * x0 * x1,
            0.0,
            n * x0 * x1,
            n * (2.0 * k * x0 * x1 + w1 * x1),
            n * (k * x0 * x0 + w1 * x0),
        ];
        let hess = symmetric(
            5,
            &[
                (0, 3, 2.0 * n * x0 * x1),
                (0, 4, n * x0 * x0),
                (2, 3, n * x1),
                (2, 4, n * x0),
                (3, 3, 2.0 * n * k * x1),
                (3, 4, n * (2.0 * k * x0 + w1)),
            ],
        );
        let (v, g) = repeated_grad(&a, &x);
        assert_close(v, value, 1e-12, "repeated value");
        assert_all_close(&flat(&g), &grad, 1e-12, "repeated gradient");
        let f = |q: &[f64]| repeated(&spring(q), &[q[3], q[4]]);
        assert_fd_gradient(f, &q, &flat(&g), "repeated gradient");
        let (v, _, h) = repeated_hessian(&a, &x);
        assert_close(v, value, 1e-12, "repeated Hessian's value");
        assert_matrix(&h, &hess, 1e-12, "repeated Hessian");
        let grad_at = |q: &[f64]| flat(&repeated_grad(&spring(q), &[q[3], q[4]]).1);
        assert_hessian_fd(&h, grad_at, &q, 1e-6, "repeated Hessian");
        let dir = [0.5, -1.0, 0.25, 1.5, -0.75];
        let (_, _, product) = repeated_hvp(&a, &x, (spring(&dir), [dir[3], dir[4]]));
        let expected: Vec<f64> = (0..5)
            .map(|i| (0..5).map(|j| hess[i][j] * dir[j]).sum())
            .collect();
        assert_all_close(&flat(&product), &expected, 1e-12, "repeated hvp");
    }
}

// --- A method of a nested struct, by its path; a method passing a constant `self` -----------------------

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Cfg {
    pub k: f64,
    pub w: Vec<f64>,
}

impl Cfg {
    /// `k x^2`.
    #[differentiable(wrt(self, x), order = 2)]
    pub fn m(&self, x: f64) -> f64 {
        self.k * x * x
    }

    /// `reads_fields x`, `self` differentiated (with `self` constant too: tests/methods37.rs).
    #[differentiable(wrt(self, x), order = 2)]
    pub fn energy(&self, x: f64) -> f64 {
        reads_fields(self, x) * x
    }
}

/// `k x + w0 x^2`.
#[differentiable(order = 2)]
pub fn reads_fields(c: &Cfg, x: f64) -> f64 {
    c.k * x + c.w[0] * x * x
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Holder {
    pub cfg: Cfg,
    pub c: f64,
}

/// `k x^2 c`: the nested struct's method by its path, the field by reference (`p.cfg.m(x)` is the
/// spanned error tests/ui/structs/method-of-a-nested-struct-field-order-2.rs).
#[differentiable(order = 2)]
pub fn nested_method(p: &Holder, x: f64) -> f64 {
    Cfg::m(&p.cfg, x) * p.c
}

/// The same at first order.
#[differentiable]
pub fn nested_method_first(p: &Holder, x: f64) -> f64 {
    Cfg::m(&p.cfg, x) * p.c
}

#[test]
fn a_nested_struct_s_method_by_its_path() {
    // Flat inputs `(k, w0, w1, c, x)`.
    let holder = |q: &[f64]| Holder {
        cfg: Cfg {
            k: q[0],
            w: vec![q[1], q[2]],
        },
        c: q[3],
    };
    let flat = |g: &(Holder, f64)| {
        let mut flat = g.0.to_flat();
        flat.push(g.1);
        flat
    };
    for q in points(34_111, 5) {
        let (p, x) = (holder(&q), q[4]);
        let (k, c) = (q[0], q[3]);
        let value = k * x * x * c;
        let grad = [x * x * c, 0.0, 0.0, k * x * x, 2.0 * k * x * c];
        let hess = symmetric(
            5,
            &[
                (0, 3, x * x),
                (0, 4, 2.0 * x * c),
                (3, 4, 2.0 * k * x),
                (4, 4, 2.0 * k * c),
            ],
        );
        let (v, g) = nested_method_first_grad(&p, x);
        assert_close(v, value, 1e-12, "nested first value");
        assert_all_close(&flat(&g), &grad, 1e-12, "nested first gradient");
        let f = |q: &[f64]| nested_method_first(&holder(q), q[4]);
        assert_fd_gradient(f, &q, &flat(&g), "nested first gradient");
        let (v, g) = nested_method_grad(&p, x);
        assert_close(v, value, 1e-12, "nested value");
        assert_all_close(&flat(&g), &grad, 1e-12, "nested gradient");
        let (_, _, h) = nested_method_hessian(&p, x);
        assert_matrix(&h, &hess, 1e-12, "nested Hessian");
        let grad_at = |q: &[f64]| flat(&nested_method_grad(&holder(q), q[4]).1);
        assert_hessian_fd(&h, grad_at, &q, 1e-6, "nested Hessian");
        let dir = [0.5, -1.0, 0.25, 1.5, -0.75];
        let (_, _, product) = nested_method_hvp(&p, x, (holder(&dir), dir[4]));
        let expected: Vec<f64> = (0..5)
            .map(|i| (0..5).map(|j| hess[i][j] * dir[j]).sum())
            .collect();
        assert_all_close(&flat(&product), &expected, 1e-12, "nested hvp");
    }
}

#[test]
fn a_method_passing_self_to_a_function_of_the_struct() {
    // Flat inputs `(k, w0, w1, x)`; `energy = k x^2 + w0 x^3`.
    let cfg = |q: &[f64]| Cfg {
        k: q[0],
        w: vec![q[1], q[2]],
    };
    let flat = |g: &(Cfg, f64)| {
        let mut flat = g.0.to_flat();
        flat.push(g.1);
        flat
    };
    for q in points(34_112, 4) {
        let (c, x) = (cfg(&q), q[3]);
        let (k, w0) = (q[0], q[1]);
        let value = k * x * x + w0 * x.powi(3);
        let grad = [x * x, x.powi(3), 0.0, 2.0 * k * x + 3.0 * w0 * x * x];
        let hess = symmetric(
            4,
            &[
                (0, 3, 2.0 * x),
                (1, 3, 3.0 * x * x),
                (3, 3, 2.0 * k + 6.0 * w0 * x),
            ],
        );
        let (v, g) = c.energy_grad(x);
        assert_close(v, value, 1e-12, "energy value");
        assert_all_close(&flat(&g), &grad, 1e-12, "energy gradient");
        let f = |q: &[f64]| cfg(q).energy(q[3]);
        assert_fd_gradient(f, &q, &flat(&g), "energy gradient");
        let (_, _, h) = c.energy_hessian(x);
        assert_matrix(&h, &hess, 1e-12, "energy Hessian");
        let grad_at = |q: &[f64]| flat(&cfg(q).energy_grad(q[3]).1);
        assert_hessian_fd(&h, grad_at, &q, 1e-6, "energy Hessian");
        let dir = [0.5, -1.0, 0.25, 1.5];
        let (_, _, product) = c.energy_hvp(x, (cfg(&dir), dir[3]));
        let expected: Vec<f64> = (0..4)
            .map(|i| (0..4).map(|j| hess[i][j] * dir[j]).sum())
            .collect();
        assert_all_close(&flat(&product), &expected, 1e-12, "energy hvp");
    }
}

/// `repeated` with the struct constant (`wrt(x)`): `a.count()` stays as written, a method of the struct
/// itself, as tests/method_calls33.rs::affine_in_x.
#[differentiable(wrt(x), order = 2)]
pub fn repeated_in_x(a: &Spring, x: &[f64; 2]) -> f64 {
    let mut s = 0.0;
    for _ in 0..a.count() {
        s += a.energy(x);
    }
    s * x[0]
}

#[test]
fn a_plain_method_of_a_constant_struct_passed_on_whole() {
    for q in points(34_113, 5) {
        let a = Spring {
            k: q[0],
            w: [q[1], q[2]],
            n: 2,
        };
        let x = [q[3], q[4]];
        let (k, w1, n) = (q[0], q[2], 2.0);
        let value = n * (k * x[0] * x[0] * x[1] + w1 * x[0] * x[1]);
        let grad = [
            n * (2.0 * k * x[0] * x[1] + w1 * x[1]),
            n * (k * x[0] * x[0] + w1 * x[0]),
        ];
        let hess = vec![
            vec![2.0 * n * k * x[1], n * (2.0 * k * x[0] + w1)],
            vec![n * (2.0 * k * x[0] + w1), 0.0],
        ];
        let (v, g) = repeated_in_x_grad(&a, &x);
        assert_close(v, value, 1e-12, "repeated_in_x value");
        assert_all_close(&g, &grad, 1e-12, "repeated_in_x gradient");
        assert_fd_gradient(
            |y| repeated_in_x(&a, &[y[0], y[1]]),
            &x,
            &g,
            "repeated_in_x",
        );
        let (_, _, h) = repeated_in_x_hessian(&a, &x);
        assert_matrix(&h, &hess, 1e-12, "repeated_in_x Hessian");
        let grad_at = |y: &[f64]| repeated_in_x_grad(&a, &[y[0], y[1]]).1.to_vec();
        assert_hessian_fd(&h, grad_at, &x, 1e-6, "repeated_in_x Hessian");
        let (_, _, product) = repeated_in_x_hvp(&a, &x, [0.5, -1.5]);
        let expected = [
            hess[0][0] * 0.5 - hess[0][1] * 1.5,
            hess[1][0] * 0.5 - hess[1][1] * 1.5,
        ];
        assert_all_close(&product, &expected, 1e-12, "repeated_in_x hvp");
    }
}
