//! Tuple parameters that hold arrays (`p: (f64, [f64; 2])`, `(&[f64], f64)`, `(Vec<f64>, f64)`,
//! `([f64; 2], [f64; 2])`), read as `p.1[i]`, destructured by `let` and in the parameter pattern, in loops,
//! their parts and the tuple itself passed to calls, and tuples of floats destructured in the parameter
//! pattern. The gradient of such a parameter is the tuple of its parts' gradients; `f_grad_into` takes
//! `&mut` of that tuple; the Hessian runs over the parts' floats in order.
//!
//! Each function is checked on seeded inputs: value against the function, gradient against a derivative by
//! hand and central differences, `f_vjp` against the gradient scaled, `f_jvp` against the gradient dotted
//! with the tangent, `f_grad_into` against `f_grad`, the Hessian against central differences of the
//! gradient and `f_hvp` against the Hessian times the direction.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod common;

use autodiff::{differentiable, Float};
use common::{
    assert_all_close, assert_close, assert_fd_gradient, config, fd_jacobian, ANALYTIC_TOL,
};
use proptest::prelude::*;

/// A float and an array, the tuple destructured by `let` and read by field.
#[differentiable(order = 2)]
fn scaled(p: (f64, [f64; 2]), z: f64) -> f64 {
    let (s, w) = p;
    s * w[0] * z + p.1[1].sin() * p.0
}

/// A slice and a float, iterated in a loop.
#[differentiable(order = 2)]
fn weighted_squares(p: (&[f64], f64)) -> f64 {
    let mut acc = 0.0;
    for i in 0..p.0.len() {
        acc += p.0[i] * p.0[i] * p.1.cos();
    }
    acc
}

/// A `Vec` and a float, destructured in the parameter pattern, the `Vec`'s elements iterated.
#[differentiable(order = 2)]
fn destructured((a, b): (Vec<f64>, f64)) -> f64 {
    let mut s = 0.0;
    for v in a.iter() {
        s += (v * b).exp();
    }
    s + a[0] * b
}

/// Two arrays: a cross product.
#[differentiable(order = 2)]
fn cross(p: ([f64; 2], [f64; 2])) -> f64 {
    p.0[0] * p.1[1] - p.0[1] * p.1[0]
}

/// A differentiable helper the tuple's parts are passed to.
#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// The parts passed to calls, beside a slice parameter.
#[differentiable(order = 2)]
fn parts_to_calls(p: ([f64; 2], f64), w: &[f64]) -> f64 {
    dot(&p.0, w) * p.1 + dot(&p.0, &p.0)
}

/// The tuple passed on whole, and a tuple built in place with an array: the callee's copy over the parts.
#[differentiable(order = 2)]
fn passed_on(p: ([f64; 2], [f64; 2]), x: f64) -> f64 {
    cross(p) * x + cross(([x, 1.0], p.1)) + scaled((x, p.0), p.1[0])
}

/// Generic over its float type.
#[differentiable(order = 2)]
fn generic<T: Float>(p: (T, Vec<T>)) -> T {
    let mut s = T::zero();
    for v in p.1.iter() {
        s = s + *v * p.0;
    }
    s * s
}

/// A tuple of floats destructured in the parameter pattern.
#[differentiable(order = 2)]
fn polar((r, t): (f64, f64), k: f64) -> f64 {
    r * t.sin() * k + r * r
}

/// `mut` in the pattern: the part written like a local.
#[differentiable(order = 2)]
fn written((mut a, s): ([f64; 2], f64)) -> f64 {
    a[0] *= s;
    a[1] += a[0];
    a[0] * a[1]
}

/// A method taking such a tuple.
struct Model {
    k: f64,
}

impl Model {
    #[differentiable(order = 2)]
    fn energy(&self, p: (f64, [f64; 2])) -> f64 {
        self.k * p.0 * p.1[0] * p.1[1] + p.1[0].powi(2)
    }
}

/// The checks of one function over a flat vector of its inputs: `primal`, and its items giving flat
/// gradients (`grad`, `vjp` for a cotangent, `jvp` for a flat tangent, `grad_into`, `hessian`, `hvp`).
struct Items<'a> {
    what: &'a str,
    primal: &'a dyn Fn(&[f64]) -> f64,
    grad: &'a dyn Fn(&[f64]) -> (f64, Vec<f64>),
    vjp: &'a dyn Fn(&[f64], f64) -> (f64, Vec<f64>),
    jvp: &'a dyn Fn(&[f64], &[f64]) -> (f64, f64),
    grad_into: &'a dyn Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: &'a dyn Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    hvp: &'a dyn Fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>),
}

fn check(items: &Items, x: &[f64], by_hand: &[f64]) {
    let what = items.what;
    let value = (items.primal)(x);
    let (v, g) = (items.grad)(x);
    assert_close(v, value, ANALYTIC_TOL, what);
    assert_all_close(&g, by_hand, 1e-9, &format!("{what}: gradient by hand"));
    assert_fd_gradient(items.primal, x, &g, what);
    let (v, gv) = (items.vjp)(x, -1.75);
    assert_close(v, value, ANALYTIC_TOL, what);
    let scaled: Vec<f64> = g.iter().map(|d| -1.75 * d).collect();
    assert_all_close(&gv, &scaled, ANALYTIC_TOL, &format!("{what}: vjp"));
    let t: Vec<f64> = (0..x.len()).map(|i| 0.3 - 0.45 * i as f64).collect();
    let (v, dot) = (items.jvp)(x, &t);
    assert_close(v, value, ANALYTIC_TOL, what);
    let expected: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
    assert_close(dot, expected, 1e-9, &format!("{what}: jvp"));
    let (v, gi) = (items.grad_into)(x);
    assert_close(v, value, ANALYTIC_TOL, what);
    assert_all_close(&gi, &g, 0.0, &format!("{what}: grad_into"));
    let (v, gh, h) = (items.hessian)(x);
    assert_close(v, value, ANALYTIC_TOL, what);
    assert_all_close(&gh, &g, 1e-12, &format!("{what}: hessian's gradient"));
    let fd = fd_jacobian(|y| (items.grad)(y).1, x);
    for (i, (row, fd_row)) in h.iter().zip(&fd).enumerate() {
        assert_all_close(row, fd_row, 1e-5, &format!("{what}: Hessian row {i}"));
    }
    let (v, gh, hv) = (items.hvp)(x, &t);
    assert_close(v, value, ANALYTIC_TOL, what);
    assert_all_close(&gh, &g, 1e-12, &format!("{what}: hvp's gradient"));
    let expected: Vec<f64> = h
        .iter()
        .map(|row| row.iter().zip(&t).map(|(a, b)| a * b).sum())
        .collect();
    assert_all_close(&hv, &expected, 1e-9, &format!("{what}: hvp"));
}

/// `(s, [w0, w1])`, `z` from and to a flat vector.
fn scaled_in(x: &[f64]) -> ((f64, [f64; 2]), f64) {
    ((x[0], [x[1], x[2]]), x[3])
}

fn scaled_flat(g: ((f64, [f64; 2]), f64)) -> Vec<f64> {
    let ((s, w), z) = g;
    vec![s, w[0], w[1], z]
}

fn pair_flat(g: ([f64; 2], [f64; 2])) -> Vec<f64> {
    vec![g.0[0], g.0[1], g.1[0], g.1[1]]
}

fn vec_pair_flat(g: (Vec<f64>, f64)) -> Vec<f64> {
    let mut flat = g.0;
    flat.push(g.1);
    flat
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_float_and_an_array(x in prop::collection::vec(-2.0..2.0f64, 4)) {
        let (s, w0, w1, z) = (x[0], x[1], x[2], x[3]);
        let _: fn((f64, [f64; 2]), f64, (&mut (f64, [f64; 2]), &mut f64)) -> f64 = scaled_grad_into;
        check(
            &Items {
                what: "scaled",
                primal: &|x| { let (p, z) = scaled_in(x); scaled(p, z) },
                grad: &|x| { let (p, z) = scaled_in(x); let (v, g) = scaled_grad(p, z); (v, scaled_flat(g)) },
                vjp: &|x, d| { let (p, z) = scaled_in(x); let (v, g) = scaled_vjp(p, z, d); (v, scaled_flat(g)) },
                jvp: &|x, t| { let (p, z) = scaled_in(x); scaled_jvp(p, z, scaled_in(t)) },
                grad_into: &|x| {
                    let (p, z) = scaled_in(x);
                    let (mut gp, mut gz) = ((f64::NAN, [f64::NAN; 2]), f64::NAN);
                    let v = scaled_grad_into(p, z, (&mut gp, &mut gz));
                    (v, scaled_flat((gp, gz)))
                },
                hessian: &|x| { let (p, z) = scaled_in(x); let (v, g, h) = scaled_hessian(p, z); (v, scaled_flat(g), h) },
                hvp: &|x, t| {
                    let (p, z) = scaled_in(x);
                    let (v, g, hv) = scaled_hvp(p, z, scaled_in(t));
                    (v, scaled_flat(g), scaled_flat(hv))
                },
            },
            &x,
            &[w0 * z + w1.sin(), s * z, w1.cos() * s, s * w0],
        );
    }

    #[test]
    fn a_slice_and_a_float(x in prop::collection::vec(-2.0..2.0f64, 4)) {
        let n = 3;
        let c = x[n].cos();
        let by_hand: Vec<f64> = x[..n].iter().map(|v| 2.0 * v * c)
            .chain([-x[..n].iter().map(|v| v * v).sum::<f64>() * x[n].sin()]).collect();
        let _: fn((&[f64], f64), &mut (Vec<f64>, f64)) -> f64 = weighted_squares_grad_into;
        check(
            &Items {
                what: "weighted_squares",
                primal: &|x| weighted_squares((&x[..n], x[n])),
                grad: &|x| { let (v, g) = weighted_squares_grad((&x[..n], x[n])); (v, vec_pair_flat(g)) },
                vjp: &|x, d| { let (v, g) = weighted_squares_vjp((&x[..n], x[n]), d); (v, vec_pair_flat(g)) },
                jvp: &|x, t| weighted_squares_jvp((&x[..n], x[n]), (t[..n].to_vec(), t[n])),
                grad_into: &|x| {
                    let mut g = (vec![f64::NAN; n], f64::NAN);
                    let v = weighted_squares_grad_into((&x[..n], x[n]), &mut g);
                    (v, vec_pair_flat(g))
                },
                hessian: &|x| { let (v, g, h) = weighted_squares_hessian((&x[..n], x[n])); (v, vec_pair_flat(g), h) },
                hvp: &|x, t| {
                    let (v, g, hv) = weighted_squares_hvp((&x[..n], x[n]), (t[..n].to_vec(), t[n]));
                    (v, vec_pair_flat(g), vec_pair_flat(hv))
                },
            },
            &x,
            &by_hand,
        );
    }

    #[test]
    fn a_vec_and_a_float_destructured(x in prop::collection::vec(-1.5..1.5f64, 4)) {
        let (a, b) = (&x[..3], x[3]);
        let mut by_hand: Vec<f64> = a.iter().map(|v| b * (v * b).exp()).collect();
        by_hand[0] += b;
        by_hand.push(a.iter().map(|v| v * (v * b).exp()).sum::<f64>() + a[0]);
        check(
            &Items {
                what: "destructured",
                primal: &|x| destructured((x[..3].to_vec(), x[3])),
                grad: &|x| { let (v, g) = destructured_grad((x[..3].to_vec(), x[3])); (v, vec_pair_flat(g)) },
                vjp: &|x, d| { let (v, g) = destructured_vjp((x[..3].to_vec(), x[3]), d); (v, vec_pair_flat(g)) },
                jvp: &|x, t| destructured_jvp((x[..3].to_vec(), x[3]), (t[..3].to_vec(), t[3])),
                grad_into: &|x| {
                    let mut g = (vec![f64::NAN; 3], f64::NAN);
                    let v = destructured_grad_into((x[..3].to_vec(), x[3]), &mut g);
                    (v, vec_pair_flat(g))
                },
                hessian: &|x| { let (v, g, h) = destructured_hessian((x[..3].to_vec(), x[3])); (v, vec_pair_flat(g), h) },
                hvp: &|x, t| {
                    let (v, g, hv) = destructured_hvp((x[..3].to_vec(), x[3]), (t[..3].to_vec(), t[3]));
                    (v, vec_pair_flat(g), vec_pair_flat(hv))
                },
            },
            &x,
            &by_hand,
        );
    }

    #[test]
    fn two_arrays(x in prop::collection::vec(-2.0..2.0f64, 4)) {
        let arrays = |x: &[f64]| ([x[0], x[1]], [x[2], x[3]]);
        let _: fn(([f64; 2], [f64; 2]), &mut ([f64; 2], [f64; 2])) -> f64 = cross_grad_into;
        check(
            &Items {
                what: "cross",
                primal: &|x| cross(arrays(x)),
                grad: &|x| { let (v, g) = cross_grad(arrays(x)); (v, pair_flat(g)) },
                vjp: &|x, d| { let (v, g) = cross_vjp(arrays(x), d); (v, pair_flat(g)) },
                jvp: &|x, t| cross_jvp(arrays(x), arrays(t)),
                grad_into: &|x| {
                    let mut g = ([f64::NAN; 2], [f64::NAN; 2]);
                    let v = cross_grad_into(arrays(x), &mut g);
                    (v, pair_flat(g))
                },
                hessian: &|x| { let (v, g, h) = cross_hessian(arrays(x)); (v, pair_flat(g), h) },
                hvp: &|x, t| { let (v, g, hv) = cross_hvp(arrays(x), arrays(t)); (v, pair_flat(g), pair_flat(hv)) },
            },
            &x,
            &[x[3], -x[2], -x[1], x[0]],
        );
    }

    #[test]
    fn parts_and_tuples_passed_to_calls(x in prop::collection::vec(-2.0..2.0f64, 5)) {
        // parts_to_calls(([a0, a1], c), w): dot(a, w) c + a·a.
        let (a, c, w) = ([x[0], x[1]], x[2], [x[3], x[4]]);
        let by_hand = [w[0] * c + 2.0 * a[0], w[1] * c + 2.0 * a[1], a[0] * w[0] + a[1] * w[1], a[0] * c, a[1] * c];
        let flat = |g: (([f64; 2], f64), Vec<f64>)| vec![g.0 .0[0], g.0 .0[1], g.0 .1, g.1[0], g.1[1]];
        let inputs = |x: &[f64]| (([x[0], x[1]], x[2]), vec![x[3], x[4]]);
        check(
            &Items {
                what: "parts_to_calls",
                primal: &|x| { let (p, w) = inputs(x); parts_to_calls(p, &w) },
                grad: &|x| { let (p, w) = inputs(x); let (v, g) = parts_to_calls_grad(p, &w); (v, flat(g)) },
                vjp: &|x, d| { let (p, w) = inputs(x); let (v, g) = parts_to_calls_vjp(p, &w, d); (v, flat(g)) },
                jvp: &|x, t| { let (p, w) = inputs(x); parts_to_calls_jvp(p, &w, inputs(t)) },
                grad_into: &|x| {
                    let (p, w) = inputs(x);
                    let (mut gp, mut gw) = (([f64::NAN; 2], f64::NAN), vec![f64::NAN; 2]);
                    let v = parts_to_calls_grad_into(p, &w, (&mut gp, &mut gw));
                    (v, flat((gp, gw)))
                },
                hessian: &|x| { let (p, w) = inputs(x); let (v, g, h) = parts_to_calls_hessian(p, &w); (v, flat(g), h) },
                hvp: &|x, t| {
                    let (p, w) = inputs(x);
                    let (v, g, hv) = parts_to_calls_hvp(p, &w, inputs(t));
                    (v, flat(g), flat(hv))
                },
            },
            &x,
            &by_hand,
        );
    }

    #[test]
    fn the_whole_tuple_passed_to_calls(x in prop::collection::vec(-2.0..2.0f64, 5)) {
        // passed_on(([a0, a1], [b0, b1]), y) = (a0 b1 - a1 b0) y + (y b1 - b0) + scaled((y, a), b0)
        // with scaled((s, w), z) = s w0 z + sin(w1) s.
        let (a0, a1, b0, b1, y) = (x[0], x[1], x[2], x[3], x[4]);
        let by_hand = [
            b1 * y + y * b0,
            -b0 * y + a1.cos() * y,
            -a1 * y - 1.0 + y * a0,
            a0 * y + y,
            (a0 * b1 - a1 * b0) + b1 + a0 * b0 + a1.sin(),
        ];
        let inputs = |x: &[f64]| (([x[0], x[1]], [x[2], x[3]]), x[4]);
        let flat = |g: (([f64; 2], [f64; 2]), f64)| { let mut f = pair_flat(g.0); f.push(g.1); f };
        check(
            &Items {
                what: "passed_on",
                primal: &|x| { let (p, y) = inputs(x); passed_on(p, y) },
                grad: &|x| { let (p, y) = inputs(x); let (v, g) = passed_on_grad(p, y); (v, flat(g)) },
                vjp: &|x, d| { let (p, y) = inputs(x); let (v, g) = passed_on_vjp(p, y, d); (v, flat(g)) },
                jvp: &|x, t| { let (p, y) = inputs(x); passed_on_jvp(p, y, inputs(t)) },
                grad_into: &|x| {
                    let (p, y) = inputs(x);
                    let (mut gp, mut gy) = (([f64::NAN; 2], [f64::NAN; 2]), f64::NAN);
                    let v = passed_on_grad_into(p, y, (&mut gp, &mut gy));
                    (v, flat((gp, gy)))
                },
                hessian: &|x| { let (p, y) = inputs(x); let (v, g, h) = passed_on_hessian(p, y); (v, flat(g), h) },
                hvp: &|x, t| {
                    let (p, y) = inputs(x);
                    let (v, g, hv) = passed_on_hvp(p, y, inputs(t));
                    (v, flat(g), flat(hv))
                },
            },
            &x,
            &by_hand,
        );
    }

    #[test]
    fn generic_over_the_float_type(x in prop::collection::vec(-1.5..1.5f64, 4)) {
        // (p0 Σv)²: d/dp0 = 2 s Σv, d/dv_i = 2 s p0.
        let (p0, v) = (x[0], &x[1..]);
        let total: f64 = v.iter().sum();
        let s = p0 * total;
        let by_hand: Vec<f64> = [2.0 * s * total].into_iter().chain(v.iter().map(|_| 2.0 * s * p0)).collect();
        let flat = |g: (f64, Vec<f64>)| { let mut f = vec![g.0]; f.extend(g.1); f };
        let inputs = |x: &[f64]| (x[0], x[1..].to_vec());
        check(
            &Items {
                what: "generic",
                primal: &|x| generic(inputs(x)),
                grad: &|x| { let (v, g) = generic_grad(inputs(x)); (v, flat(g)) },
                vjp: &|x, d| { let (v, g) = generic_vjp(inputs(x), d); (v, flat(g)) },
                jvp: &|x, t| generic_jvp(inputs(x), inputs(t)),
                grad_into: &|x| {
                    let mut g = (f64::NAN, vec![f64::NAN; 3]);
                    let v = generic_grad_into(inputs(x), &mut g);
                    (v, flat(g))
                },
                hessian: &|x| { let (v, g, h) = generic_hessian(inputs(x)); (v, flat(g), h) },
                hvp: &|x, t| { let (v, g, hv) = generic_hvp(inputs(x), inputs(t)); (v, flat(g), flat(hv)) },
            },
            &x,
            &by_hand,
        );
        // On f32 too.
        let (v32, g32) = generic_grad((x[0] as f32, x[1..].iter().map(|v| *v as f32).collect()));
        assert_close(v32 as f64, s * s, 1e-4, "generic on f32");
        assert_close(g32.0 as f64, by_hand[0], 1e-3, "generic on f32: gradient");
    }

    #[test]
    fn a_float_tuple_destructured_in_the_pattern(x in prop::collection::vec(-2.0..2.0f64, 3)) {
        let (r, t, k) = (x[0], x[1], x[2]);
        let flat = |g: ((f64, f64), f64)| vec![g.0 .0, g.0 .1, g.1];
        let inputs = |x: &[f64]| ((x[0], x[1]), x[2]);
        let _: fn((f64, f64), f64, (&mut (f64, f64), &mut f64)) -> f64 = polar_grad_into;
        check(
            &Items {
                what: "polar",
                primal: &|x| { let (p, k) = inputs(x); polar(p, k) },
                grad: &|x| { let (p, k) = inputs(x); let (v, g) = polar_grad(p, k); (v, flat(g)) },
                vjp: &|x, d| { let (p, k) = inputs(x); let (v, g) = polar_vjp(p, k, d); (v, flat(g)) },
                jvp: &|x, t| { let (p, k) = inputs(x); polar_jvp(p, k, inputs(t)) },
                grad_into: &|x| {
                    let (p, k) = inputs(x);
                    let (mut gp, mut gk) = ((f64::NAN, f64::NAN), f64::NAN);
                    let v = polar_grad_into(p, k, (&mut gp, &mut gk));
                    (v, flat((gp, gk)))
                },
                hessian: &|x| { let (p, k) = inputs(x); let (v, g, h) = polar_hessian(p, k); (v, flat(g), h) },
                hvp: &|x, t| { let (p, k) = inputs(x); let (v, g, hv) = polar_hvp(p, k, inputs(t)); (v, flat(g), flat(hv)) },
            },
            &x,
            &[t.sin() * k + 2.0 * r, r * t.cos() * k, r * t.sin()],
        );
    }

    #[test]
    fn a_part_written_like_a_local(x in prop::collection::vec(-2.0..2.0f64, 3)) {
        // a0' = a0 s, a1' = a1 + a0 s: f = a0 s (a1 + a0 s).
        let (a0, a1, s) = (x[0], x[1], x[2]);
        let by_hand = [s * (a1 + a0 * s) + a0 * s * s, a0 * s, a0 * (a1 + a0 * s) + a0 * s * a0];
        let flat = |g: ([f64; 2], f64)| vec![g.0[0], g.0[1], g.1];
        let inputs = |x: &[f64]| ([x[0], x[1]], x[2]);
        check(
            &Items {
                what: "written",
                primal: &|x| written(inputs(x)),
                grad: &|x| { let (v, g) = written_grad(inputs(x)); (v, flat(g)) },
                vjp: &|x, d| { let (v, g) = written_vjp(inputs(x), d); (v, flat(g)) },
                jvp: &|x, t| written_jvp(inputs(x), inputs(t)),
                grad_into: &|x| {
                    let mut g = ([f64::NAN; 2], f64::NAN);
                    let v = written_grad_into(inputs(x), &mut g);
                    (v, flat(g))
                },
                hessian: &|x| { let (v, g, h) = written_hessian(inputs(x)); (v, flat(g), h) },
                hvp: &|x, t| { let (v, g, hv) = written_hvp(inputs(x), inputs(t)); (v, flat(g), flat(hv)) },
            },
            &x,
            &by_hand,
        );
    }

    #[test]
    fn a_method(x in prop::collection::vec(-2.0..2.0f64, 3)) {
        let m = Model { k: 1.25 };
        let (s, w0, w1) = (x[0], x[1], x[2]);
        let by_hand = [m.k * w0 * w1, m.k * s * w1 + 2.0 * w0, m.k * s * w0];
        let inputs = |x: &[f64]| (x[0], [x[1], x[2]]);
        let flat = |g: (f64, [f64; 2])| vec![g.0, g.1[0], g.1[1]];
        check(
            &Items {
                what: "Model::energy",
                primal: &|x| m.energy(inputs(x)),
                grad: &|x| { let (v, g) = m.energy_grad(inputs(x)); (v, flat(g)) },
                vjp: &|x, d| { let (v, g) = m.energy_vjp(inputs(x), d); (v, flat(g)) },
                jvp: &|x, t| m.energy_jvp(inputs(x), inputs(t)),
                grad_into: &|x| {
                    let mut g = (f64::NAN, [f64::NAN; 2]);
                    let v = m.energy_grad_into(inputs(x), &mut g);
                    (v, flat(g))
                },
                hessian: &|x| { let (v, g, h) = m.energy_hessian(inputs(x)); (v, flat(g), h) },
                hvp: &|x, t| { let (v, g, hv) = m.energy_hvp(inputs(x), inputs(t)); (v, flat(g), flat(hv)) },
            },
            &x,
            &by_hand,
        );
    }
}

/// `wrt(p)`: only the tuple's parts.
#[differentiable(order = 2, wrt(p))]
fn only_the_tuple(x: f64, p: (f64, [f64; 2])) -> f64 {
    x * p.0 * p.1[0] + p.1[1].powi(2)
}

/// `wrt(x)`: the tuple a constant, and `f_derivatives` for the one scalar.
#[differentiable(order = 2, wrt(x))]
fn tuple_constant(x: f64, p: (f64, [f64; 2])) -> f64 {
    x * x * p.0 * p.1[0] + p.1[1].powi(2) * x.sin()
}

/// A first-order function of a tuple, called by an `order = 2` function with a tuple built in place.
#[differentiable]
fn first_order((a, b): (&[f64], f64)) -> f64 {
    let mut s = 0.0;
    for v in a {
        s += v * b;
    }
    s
}

#[differentiable(order = 2)]
fn calls_first_order(x: f64, w: &[f64]) -> f64 {
    first_order((w, x)) * x
}

/// Iterator chains over a tuple's slice.
#[differentiable(order = 2)]
fn chains_over_a_part(p: (&[f64], f64)) -> f64 {
    p.0.iter().map(|v| v * p.1).sum::<f64>()
        + p.0.iter().zip(p.0.iter()).map(|(a, b)| a * b).sum::<f64>()
}

/// A `Vec` result of a tuple: `f_jacobian` with the parts' columns in order.
#[differentiable]
fn products(p: (f64, [f64; 2])) -> Vec<f64> {
    vec![p.0 * p.1[0], p.1[1] * p.1[0]]
}

/// An output parameter beside a tuple.
#[differentiable]
fn into_buffer(p: (f64, [f64; 2]), out: &mut [f64]) {
    out[0] = p.0 * p.1[0];
    out[1] = p.1[1].exp();
}

#[test]
fn wrt_and_derivatives() {
    for (x, s, w0, w1) in [
        (2.0, 1.0, 2.0, 3.0),
        (-0.7, 0.4, -1.1, 0.9),
        (1.3, -2.0, 0.5, -0.2),
    ] {
        let (v, (gs, gw), h) = only_the_tuple_hessian(x, (s, [w0, w1]));
        assert_close(v, only_the_tuple(x, (s, [w0, w1])), ANALYTIC_TOL, "wrt(p)");
        assert_all_close(
            &[gs, gw[0], gw[1]],
            &[x * w0, x * s, 2.0 * w1],
            ANALYTIC_TOL,
            "wrt(p): gradient",
        );
        let hand = [[0.0, x, 0.0], [x, 0.0, 0.0], [0.0, 0.0, 2.0]];
        for (row, hand) in h.iter().zip(&hand) {
            assert_all_close(row, hand, ANALYTIC_TOL, "wrt(p): Hessian");
        }
        let [f0, f1, f2] = tuple_constant_derivatives(x, (s, [w0, w1]));
        assert_close(f0, tuple_constant(x, (s, [w0, w1])), ANALYTIC_TOL, "wrt(x)");
        assert_close(
            f1,
            2.0 * x * s * w0 + w1 * w1 * x.cos(),
            ANALYTIC_TOL,
            "wrt(x): f'",
        );
        assert_close(
            f2,
            2.0 * s * w0 - w1 * w1 * x.sin(),
            ANALYTIC_TOL,
            "wrt(x): f''",
        );
        let (_, d) = tuple_constant_grad(x, (s, [w0, w1]));
        assert_close(d, f1, ANALYTIC_TOL, "wrt(x): grad");
    }
}

#[test]
fn a_first_order_callee_of_an_order_2_caller() {
    for (x, w) in [(2.0, vec![1.0, 3.0]), (-0.6, vec![0.2, -1.4, 2.5])] {
        let total: f64 = w.iter().sum();
        let (v, (gx, gw), h) = calls_first_order_hessian(x, &w);
        assert_close(v, x * x * total, ANALYTIC_TOL, "value");
        assert_close(calls_first_order(x, &w), v, ANALYTIC_TOL, "the function");
        assert_close(gx, 2.0 * x * total, ANALYTIC_TOL, "d/dx");
        assert_all_close(&gw, &vec![x * x; w.len()], ANALYTIC_TOL, "d/dw");
        let flat: Vec<f64> = [x].into_iter().chain(w.iter().copied()).collect();
        let fd = fd_jacobian(
            |p| {
                let (_, (gx, gw)) = calls_first_order_grad(p[0], &p[1..]);
                [gx].into_iter().chain(gw).collect()
            },
            &flat,
        );
        for (row, fd_row) in h.iter().zip(&fd) {
            assert_all_close(row, fd_row, 1e-6, "Hessian");
        }
        assert_fd_gradient(
            |p| first_order((&p[1..], p[0])),
            &flat,
            &{
                let (_, (ga, gb)) = first_order_grad((&w, x));
                [gb].into_iter().chain(ga).collect::<Vec<_>>()
            },
            "first_order",
        );
    }
}

#[test]
fn chains_jacobians_and_outputs() {
    for (s, w0, w1) in [(1.0, 2.0, 3.0), (-0.3, 0.8, -1.7)] {
        let v = [w0, w1];
        let (value, (gv, gs), h) = chains_over_a_part_hessian((&v, s));
        assert_close(value, chains_over_a_part((&v, s)), ANALYTIC_TOL, "chains");
        assert_all_close(
            &gv,
            &[s + 2.0 * w0, s + 2.0 * w1],
            ANALYTIC_TOL,
            "chains: d/dv",
        );
        assert_close(gs, w0 + w1, ANALYTIC_TOL, "chains: d/ds");
        let hand = [[2.0, 0.0, 1.0], [0.0, 2.0, 1.0], [1.0, 1.0, 0.0]];
        for (row, hand) in h.iter().zip(&hand) {
            assert_all_close(row, hand, ANALYTIC_TOL, "chains: Hessian");
        }
        let j = products_jacobian((s, [w0, w1]));
        let fd = fd_jacobian(|p| products((p[0], [p[1], p[2]])), &[s, w0, w1]);
        assert_all_close(&j[0], &[w0, s, 0.0], ANALYTIC_TOL, "products: row 0");
        assert_all_close(&j[1], &[0.0, w1, w0], ANALYTIC_TOL, "products: row 1");
        for (row, fd_row) in j.iter().zip(&fd) {
            assert_all_close(row, fd_row, 1e-6, "products: Jacobian");
        }
        let mut out = [f64::NAN; 2];
        let (gs, gw) = into_buffer_vjp((s, [w0, w1]), &mut out, &[0.5, -2.0]);
        assert_all_close(
            &out,
            &[s * w0, w1.exp()],
            ANALYTIC_TOL,
            "into_buffer: outputs",
        );
        assert_all_close(
            &[gs, gw[0], gw[1]],
            &[0.5 * w0, 0.5 * s, -2.0 * w1.exp()],
            ANALYTIC_TOL,
            "into_buffer: vjp",
        );
        let mut tangent = [f64::NAN; 2];
        into_buffer_jvp((s, [w0, w1]), &mut out, (1.0, [0.5, -1.0]), &mut tangent);
        assert_all_close(
            &tangent,
            &[w0 + 0.5 * s, -w1.exp()],
            ANALYTIC_TOL,
            "into_buffer: jvp",
        );
    }
}

/// A function nested in the body taking a tuple holding an array, called with one built in place by an
/// `order = 2` function: its generic copy calls the nested function's copy over the parts.
#[differentiable(order = 2)]
fn calls_a_nested_function(a: f64) -> f64 {
    #[differentiable]
    fn product(p: (f64, [f64; 1])) -> f64 {
        p.0 * p.1[0]
    }
    product((a, [a * a])) + product((a.sin(), [a]))
}

#[test]
fn a_nested_function_of_a_tuple_at_second_order() {
    for a in [1.5, -0.4, 0.9] {
        let [f0, f1, f2] = calls_a_nested_function_derivatives(a);
        assert_close(f0, a * a * a + a.sin() * a, ANALYTIC_TOL, "value");
        assert_close(calls_a_nested_function(a), f0, ANALYTIC_TOL, "the function");
        assert_close(f1, 3.0 * a * a + a.cos() * a + a.sin(), ANALYTIC_TOL, "f'");
        assert_close(
            f2,
            6.0 * a - a.sin() * a + 2.0 * a.cos(),
            ANALYTIC_TOL,
            "f''",
        );
        let (_, _, h) = calls_a_nested_function_hessian(a);
        let fd = fd_jacobian(|x| vec![calls_a_nested_function_grad(x[0]).1], &[a]);
        assert_close(
            h[0][0],
            fd[0][0],
            1e-6,
            "Hessian against central differences",
        );
    }
}
