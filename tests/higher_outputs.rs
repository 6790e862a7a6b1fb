//! `order = K` and output parameters (`&mut [T]`, `&mut T`): `order = 2` functions that call functions
//! writing into buffers (written for `f64`, at first order only: their generic copies are made without
//! being asked), and `order = K` on a function with output parameters that returns a float, whose
//! `f_hvp`, `f_hessian` and `f_derivatives` are the derivatives of the returned float (the outputs'
//! cotangents zero, as its `f_grad`), the buffers written as the function writes them.
//!
//! Every Hessian is checked against second derivatives worked out by hand and against central
//! differences of the generated gradient, on a deterministic spread of inputs.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{assert_all_close, assert_close, hessian_column, ANALYTIC_TOL};

/// `count` points of `n` coordinates in `[lo, hi)`, spread by a fixed linear congruential sequence.
fn points(n: usize, count: usize, lo: f64, hi: f64) -> Vec<Vec<f64>> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        lo + (hi - lo) * ((state >> 11) as f64 / (1u64 << 53) as f64)
    };
    (0..count)
        .map(|_| (0..n).map(|_| next()).collect())
        .collect()
}

/// `hessian` is `by_hand`, and each column is the central difference of `grad` (the generated gradient
/// over the flattened inputs) at `x`.
#[track_caller]
fn check_hessian(
    hessian: &[Vec<f64>],
    by_hand: &[Vec<f64>],
    grad: impl Fn(&[f64]) -> Vec<f64>,
    x: &[f64],
    what: &str,
) {
    assert_eq!(hessian.len(), x.len(), "{what}: rows");
    for i in 0..x.len() {
        assert_all_close(
            &hessian[i],
            &by_hand[i],
            ANALYTIC_TOL,
            &format!("{what} at {x:?}: row {i} by hand"),
        );
        let column: Vec<f64> = hessian.iter().map(|row| row[i]).collect();
        assert_all_close(
            &column,
            &hessian_column(&grad, x, i),
            1e-6,
            &format!("{what} at {x:?}: column {i} by central differences"),
        );
    }
}

/// `H v` of a Hessian.
fn times(hessian: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    hessian
        .iter()
        .map(|row| row.iter().zip(v).map(|(h, v)| h * v).sum())
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// An `order = 2` function calling a function with output parameters.

/// Lotka-Volterra's right-hand side, written into `dydt` (first order only).
#[differentiable]
fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - y[0] * y[1];
    dydt[1] = y[0] * y[1] - p[1] * y[1];
}

/// One explicit Euler step through `rhs` into a local buffer, reduced to a float.
#[differentiable(order = 2)]
fn euler_step(y: &[f64], p: &[f64], h: f64) -> f64 {
    let mut k = vec![0.0; 2];
    rhs(y, p, &mut k);
    let next = [y[0] + h * k[0], y[1] + h * k[1]];
    next[0] * next[1]
}

/// The Hessian of `euler_step` over `(y0, y1, p0, p1, h)`: the step is `a = y0 + h (p0 y0 - y0 y1)`,
/// `b = y1 + h (y0 y1 - p1 y1)`, the result `a b`, whose Hessian is `∇a ∇bᵀ + ∇b ∇aᵀ + a ∇²b + b ∇²a`.
fn euler_step_by_hand(x: &[f64]) -> Vec<Vec<f64>> {
    let (y0, y1, p0, p1, h) = (x[0], x[1], x[2], x[3], x[4]);
    let a = y0 + h * (p0 * y0 - y0 * y1);
    let b = y1 + h * (y0 * y1 - p1 * y1);
    let da = [1.0 + h * (p0 - y1), -h * y0, h * y0, 0.0, p0 * y0 - y0 * y1];
    let db = [h * y1, 1.0 + h * (y0 - p1), 0.0, -h * y1, y0 * y1 - p1 * y1];
    let mut dda = [[0.0; 5]; 5];
    let mut ddb = [[0.0; 5]; 5];
    let set = |m: &mut [[f64; 5]; 5], i: usize, j: usize, v: f64| {
        m[i][j] = v;
        m[j][i] = v;
    };
    set(&mut dda, 0, 1, -h);
    set(&mut dda, 0, 2, h);
    set(&mut dda, 0, 4, p0 - y1);
    set(&mut dda, 1, 4, -y0);
    set(&mut dda, 2, 4, y0);
    set(&mut ddb, 0, 1, h);
    set(&mut ddb, 0, 4, y1);
    set(&mut ddb, 1, 3, -h);
    set(&mut ddb, 1, 4, y0 - p1);
    set(&mut ddb, 3, 4, -y1);
    (0..5)
        .map(|i| {
            (0..5)
                .map(|j| da[i] * db[j] + db[i] * da[j] + a * ddb[i][j] + b * dda[i][j])
                .collect()
        })
        .collect()
}

#[test]
fn a_step_through_a_callee_with_an_output_parameter() {
    for x in points(5, 40, -1.5, 1.5) {
        let (y, p, h) = (&x[..2], &x[2..4], x[4]);
        let (value, (gy, gp, gh), hessian) = euler_step_hessian(y, p, h);
        assert_close(value, euler_step(y, p, h), 1e-15, "value");
        let grad = |w: &[f64]| {
            let (_, (gy, gp, gh)) = euler_step_grad(&w[..2], &w[2..4], w[4]);
            [gy, gp, vec![gh]].concat()
        };
        assert_all_close(&[gy, gp, vec![gh]].concat(), &grad(&x), 0.0, "gradient");
        let by_hand = euler_step_by_hand(&x);
        check_hessian(&hessian, &by_hand, grad, &x, "euler_step");
        let v = [0.3, -1.1, 0.7, 0.2, -0.5];
        let (_, _, (hy, hp, hh)) =
            euler_step_hvp(y, p, h, (v[..2].to_vec(), v[2..4].to_vec(), v[4]));
        assert_all_close(
            &[hy, hp, vec![hh]].concat(),
            &times(&by_hand, &v),
            ANALYTIC_TOL,
            "hvp",
        );
    }
}

/// Adds `a * x` into `acc`: the callee reads the buffer's incoming value (first order only).
#[differentiable]
fn axpy_into(a: f64, x: &[f64], acc: &mut [f64]) {
    for i in 0..x.len() {
        acc[i] += a * x[i];
    }
}

/// Multiplies a float output by `a` and adds `sin a` (first order only).
#[differentiable]
fn scale_into(a: f64, acc: &mut f64) {
    *acc = *acc * a + a.sin();
}

/// One step written into the caller's buffer: `rhs` into it (a reborrow), then the step in place.
#[differentiable]
fn step_into(y: &[f64], p: &[f64], h: f64, next: &mut [f64]) {
    rhs(y, p, &mut *next);
    for i in 0..2 {
        next[i] = y[i] + h * next[i];
    }
}

/// Windows of a local buffer written by callees (one reads its incoming values), a float local changed
/// through `&mut`, and a callee that itself calls a callee with an output: two steps, reduced.
#[differentiable(order = 2)]
fn windows_and_chains(y: &[f64], p: &[f64], a: f64) -> f64 {
    let mut k = [y[0], y[1], 0.0, 0.0];
    rhs(y, p, &mut k[2..4]);
    axpy_into(a, &[k[0], k[1]], &mut k[2..]);
    let mut s = k[2];
    scale_into(a, &mut s);
    let mut next = vec![0.0; 2];
    step_into(&[k[2], k[3]], p, a, &mut next);
    s * k[3] + next[0] * next[1]
}

/// `windows_and_chains` written out: `k2, k3 = rhs(y, p) + a y`, `s = a k2 + sin a`, then one step
/// `next = z + a rhs(z, p)` of `z = (k2, k3)`.
fn windows_and_chains_by_formula<T: Float>(y: &[T], p: &[T], a: T) -> T {
    let k2 = p[0] * y[0] - y[0] * y[1] + a * y[0];
    let k3 = y[0] * y[1] - p[1] * y[1] + a * y[1];
    let s = k2 * a + a.sin();
    let n0 = k2 + a * (p[0] * k2 - k2 * k3);
    let n1 = k3 + a * (k2 * k3 - p[1] * k3);
    s * k3 + n0 * n1
}

#[test]
fn windows_reborrows_and_callees_of_callees() {
    use autodiff::Dual;
    for x in points(5, 40, -1.2, 1.2) {
        let (y, p, a) = (&x[..2], &x[2..4], x[4]);
        let (value, _, hessian) = windows_and_chains_hessian(y, p, a);
        assert_close(value, windows_and_chains(y, p, a), 1e-15, "value");
        assert_close(
            value,
            windows_and_chains_by_formula(y, p, a),
            1e-13,
            "by formula",
        );
        // The formula's Hessian by hand on nested duals (forward over forward, independent of the
        // macro's reverse sweep): entry (i, j) is the mixed part of x + ε1 e_i + ε2 e_j.
        let by_hand: Vec<Vec<f64>> = (0..5)
            .map(|i| {
                (0..5)
                    .map(|j| {
                        let w: Vec<Dual<Dual<f64>>> = (0..5)
                            .map(|k| {
                                let first = if k == i { 1.0 } else { 0.0 };
                                let second = if k == j { 1.0 } else { 0.0 };
                                Dual::new(Dual::new(x[k], first), Dual::new(second, 0.0))
                            })
                            .collect();
                        windows_and_chains_by_formula(&w[..2], &w[2..4], w[4])
                            .eps
                            .eps
                    })
                    .collect()
            })
            .collect();
        let grad = |w: &[f64]| {
            let (_, (gy, gp, ga)) = windows_and_chains_grad(&w[..2], &w[2..4], w[4]);
            [gy, gp, vec![ga]].concat()
        };
        check_hessian(&hessian, &by_hand, grad, &x, "windows_and_chains");
    }
}

// ---------------------------------------------------------------------------------------------------
// `order = K` on a function with output parameters that returns a float.

/// A residual written into `r` (whose incoming value is not read), its squared norm returned.
#[differentiable(order = 2)]
fn residual(x: &[f64], r: &mut [f64]) -> f64 {
    let mut norm = 0.0;
    for i in 0..x.len() {
        r[i] = x[i] * x[i] - 2.0;
        norm += r[i] * r[i];
    }
    norm
}

#[test]
fn hessian_of_the_returned_float_with_the_residual_written() {
    for x in points(3, 40, -2.0, 2.0) {
        let mut r = vec![f64::NAN; 3];
        let (value, gradient, hessian) = residual_hessian(&x, &mut r);
        let mut expected = vec![0.0; 3];
        assert_eq!(value, residual(&x, &mut expected));
        assert_eq!(
            r, expected,
            "f_hessian writes the output as the function does"
        );
        // Σ (x_i² - 2)²: the gradient 4 x_i (x_i² - 2), the Hessian diagonal 12 x_i² - 8.
        let by_hand: Vec<Vec<f64>> = (0..3)
            .map(|i| {
                (0..3)
                    .map(|j| {
                        if i == j {
                            12.0 * x[i] * x[i] - 8.0
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect();
        let g: Vec<f64> = x.iter().map(|v| 4.0 * v * (v * v - 2.0)).collect();
        assert_all_close(&gradient, &g, ANALYTIC_TOL, "gradient");
        let grad = |w: &[f64]| residual_grad(w, &mut [0.0; 3]).1;
        check_hessian(&hessian, &by_hand, grad, &x, "residual");
        let v = vec![0.5, -1.0, 2.0];
        let mut r = vec![f64::NAN; 3];
        let (value, gradient, hv) = residual_hvp(&x, &mut r, v.clone());
        assert_eq!(
            (value, &r),
            (residual(&x, &mut expected), &expected),
            "f_hvp"
        );
        assert_all_close(&gradient, &g, ANALYTIC_TOL, "hvp gradient");
        assert_all_close(&hv, &times(&by_hand, &v), ANALYTIC_TOL, "hvp");
    }
}

/// A float output whose incoming value is read: an input too, in `G`.
#[differentiable(order = 2)]
fn scaled_accumulator(a: f64, acc: &mut f64) -> f64 {
    *acc = *acc * a + a.sin();
    a * a * *acc
}

#[test]
fn an_output_read_before_it_is_written_is_an_input_of_the_hessian() {
    for x in points(2, 40, -2.0, 2.0) {
        let (a, c) = (x[0], x[1]);
        let mut acc = c;
        let (value, (ga, gc), hessian) = scaled_accumulator_hessian(a, &mut acc);
        let mut expected = c;
        assert_eq!(value, scaled_accumulator(a, &mut expected));
        // Written once, as one call of the function writes it (each product runs on a copy).
        assert_eq!(acc, expected, "f_hessian writes the output once");
        // f = a³ c + a² sin a.
        let (s, co) = (a.sin(), a.cos());
        assert_close(
            ga,
            3.0 * a * a * c + 2.0 * a * s + a * a * co,
            ANALYTIC_TOL,
            "d/da",
        );
        assert_close(gc, a * a * a, ANALYTIC_TOL, "d/dc");
        let daa = 6.0 * a * c + 2.0 * s + 4.0 * a * co - a * a * s;
        let by_hand = vec![vec![daa, 3.0 * a * a], vec![3.0 * a * a, 0.0]];
        let grad = |w: &[f64]| {
            let (_, (ga, gc)) = scaled_accumulator_grad(w[0], &mut w[1].clone());
            vec![ga, gc]
        };
        check_hessian(&hessian, &by_hand, grad, &x, "scaled_accumulator");
        let mut acc = c;
        let (_, _, (ha, hc)) = scaled_accumulator_hvp(a, &mut acc, (0.25, -2.0));
        assert_eq!(acc, expected, "f_hvp writes the output");
        assert_all_close(
            &[ha, hc],
            &times(&by_hand, &[0.25, -2.0]),
            ANALYTIC_TOL,
            "hvp",
        );
    }
}

/// Generic over its float type, with a fixed-size output and a callee with an output: third order.
#[differentiable(order = 3)]
fn generic_into<T: Float>(a: T, out: &mut [T; 2]) -> T {
    out[0] = a * a;
    out[1] = a.sin();
    out[0] * out[1]
}

#[test]
fn derivatives_of_a_generic_function_with_an_output() {
    for x in points(1, 40, -3.0, 3.0) {
        let a = x[0];
        let mut out = [f64::NAN; 2];
        let d = generic_into_derivatives(a, &mut out);
        assert_eq!(out, [a * a, a.sin()], "f_derivatives writes the output");
        // a² sin a and its derivatives.
        let (s, c) = (a.sin(), a.cos());
        let by_hand = [
            a * a * s,
            2.0 * a * s + a * a * c,
            2.0 * s + 4.0 * a * c - a * a * s,
            6.0 * c - 6.0 * a * s - a * a * c,
        ];
        assert_all_close(&d, &by_hand, ANALYTIC_TOL, "derivatives");
        let mut out = [f64::NAN; 2];
        let (_, _, hessian) = generic_into_hessian(a, &mut out);
        assert_eq!(out, [a * a, a.sin()], "f_hessian writes the output");
        let grad = |w: &[f64]| vec![generic_into_grad(w[0], &mut [0.0; 2]).1];
        check_hessian(&hessian, &[vec![by_hand[2]]], grad, &x, "generic_into");
        // `f32` too.
        let mut out = [0.0f32; 2];
        let d32 = generic_into_derivatives(a as f32, &mut out);
        for (d32, d) in d32.iter().zip(&by_hand) {
            assert_close(f64::from(*d32), *d, 1e-4, "f32 derivatives");
        }
    }
}

/// Written for `f64`, with an output read and written by a callee, a second output the function writes
/// itself, and a call of an `f64` function with an output: `order = 2` through the generic copy.
#[differentiable(order = 2)]
fn two_outputs(x: &[f64], a: f64, acc: &mut [f64], e: &mut f64) -> f64 {
    axpy_into(a, x, acc);
    let mut k = [0.0; 2];
    rhs(x, &[a, 0.5], &mut k);
    *e = k[0] * acc[1];
    *e * a + acc[0] * acc[0]
}

/// `two_outputs` written out over `(x0, x1, a, acc0, acc1)`.
fn two_outputs_by_formula<T: Float>(w: &[T]) -> T {
    let (x0, x1, a) = (w[0], w[1], w[2]);
    let acc0 = w[3] + a * x0;
    let acc1 = w[4] + a * x1;
    let k0 = a * x0 - x0 * x1;
    k0 * acc1 * a + acc0 * acc0
}

#[test]
fn outputs_of_an_f64_function_read_and_written() {
    use autodiff::Dual;
    for w in points(5, 40, -1.5, 1.5) {
        let (x, a) = (&w[..2], w[2]);
        let mut acc = w[3..].to_vec();
        let mut e = f64::NAN;
        let (value, (gx, ga, gacc), hessian) = two_outputs_hessian(x, a, &mut acc, &mut e);
        let (mut acc_expected, mut e_expected) = (w[3..].to_vec(), 0.0);
        assert_eq!(value, two_outputs(x, a, &mut acc_expected, &mut e_expected));
        assert_eq!(
            (acc.clone(), e),
            (acc_expected, e_expected),
            "outputs written once"
        );
        assert_close(value, two_outputs_by_formula(&w), 1e-13, "by formula");
        // `e` is overwritten before it is read: no part of the gradient.
        let by_hand: Vec<Vec<f64>> = (0..5)
            .map(|i| {
                (0..5)
                    .map(|j| {
                        let v: Vec<Dual<Dual<f64>>> = (0..5)
                            .map(|k| {
                                let first = if k == i { 1.0 } else { 0.0 };
                                let second = if k == j { 1.0 } else { 0.0 };
                                Dual::new(Dual::new(w[k], first), Dual::new(second, 0.0))
                            })
                            .collect();
                        two_outputs_by_formula(&v).eps.eps
                    })
                    .collect()
            })
            .collect();
        let grad = |v: &[f64]| {
            let (_, (gx, ga, gacc)) =
                two_outputs_grad(&v[..2], v[2], &mut v[3..].to_vec(), &mut 0.0);
            [gx, vec![ga], gacc].concat()
        };
        assert_all_close(&[gx, vec![ga], gacc].concat(), &grad(&w), 0.0, "gradient");
        check_hessian(&hessian, &by_hand, grad, &w, "two_outputs");
    }
}

/// An integer buffer the function reads and writes (a cursor): never differentiated, but `f_hessian` runs
/// the function once per column, each time from the cursor as it came in.
#[differentiable(wrt(a), order = 2)]
fn advance_and_pick(a: &[f64], cursor: &mut [usize]) -> f64 {
    let i = cursor[0];
    cursor[0] = i + 1;
    a[i] * a[cursor[0]] * a[cursor[0]]
}

#[test]
fn an_integer_buffer_is_written_once_and_read_as_it_came_in() {
    for x in points(4, 20, -2.0, 2.0) {
        for start in 0..3 {
            let mut cursor = [start];
            let (value, gradient, hessian) = advance_and_pick_hessian(&x, &mut cursor);
            assert_eq!(cursor, [start + 1], "the cursor is advanced once");
            assert_eq!(value, advance_and_pick(&x, &mut [start]));
            // a_i a_j² with j = i + 1.
            let (i, j) = (start, start + 1);
            let mut g = vec![0.0; 4];
            g[i] = x[j] * x[j];
            g[j] = 2.0 * x[i] * x[j];
            assert_all_close(&gradient, &g, ANALYTIC_TOL, "gradient");
            let mut by_hand = vec![vec![0.0; 4]; 4];
            by_hand[i][j] = 2.0 * x[j];
            by_hand[j][i] = 2.0 * x[j];
            by_hand[j][j] = 2.0 * x[i];
            let grad = |w: &[f64]| advance_and_pick_grad(w, &mut [start]).1;
            check_hessian(&hessian, &by_hand, grad, &x, "advance_and_pick");
        }
    }
}

/// Written for `f64`: a float output written, then read, and a `Vec` output whose incoming value is read,
/// with `wrt(x)` leaving that output's incoming value out of the gradient; third order.
#[allow(clippy::ptr_arg)] // a `&mut Vec<T>` output is the form under test
#[differentiable(wrt(x), order = 3)]
fn cubic_into(x: f64, e: &mut f64, trace: &mut Vec<f64>) -> f64 {
    *e = x * x;
    trace[0] += *e;
    *e * x + trace[0] * x
}

#[test]
fn derivatives_of_an_f64_function_with_outputs_and_wrt() {
    for w in points(2, 40, -2.0, 2.0) {
        let (x, t) = (w[0], w[1]);
        let (mut e, mut trace) = (f64::NAN, vec![t]);
        let d = cubic_into_derivatives(x, &mut e, &mut trace);
        assert_eq!(
            (e, trace[0]),
            (x * x, t + x * x),
            "f_derivatives writes the outputs"
        );
        // x³ + (t + x²) x = 2x³ + t x, `t` a constant.
        let by_hand = [2.0 * x * x * x + t * x, 6.0 * x * x + t, 12.0 * x, 12.0];
        assert_all_close(&d, &by_hand, ANALYTIC_TOL, "derivatives");
        let (mut e, mut trace) = (f64::NAN, vec![t]);
        let (value, gradient, hessian) = cubic_into_hessian(x, &mut e, &mut trace);
        let value_of_f = cubic_into(x, &mut 0.0, &mut vec![t]);
        assert_eq!(
            (value, e, trace[0]),
            (value_of_f, x * x, t + x * x),
            "f_hessian"
        );
        assert_close(gradient, by_hand[1], ANALYTIC_TOL, "gradient");
        let grad = |v: &[f64]| vec![cubic_into_grad(v[0], &mut 0.0, &mut vec![t]).1];
        check_hessian(&hessian, &[vec![by_hand[2]]], grad, &[x], "cubic_into");
        let (_, _, hv) = cubic_into_hvp(x, &mut 0.0, &mut vec![t], 0.5);
        assert_close(hv, 0.5 * by_hand[2], ANALYTIC_TOL, "hvp");
    }
}

/// An `order = 2` caller of `residual`, itself `order = 2` with an output: through its generic copy.
#[differentiable(order = 2)]
fn residual_and_product(x: &[f64]) -> f64 {
    let mut r = vec![0.0; 3];
    let norm = residual(x, &mut r);
    norm + r[0] * r[1]
}

#[test]
fn a_caller_of_an_order_2_function_with_an_output() {
    for x in points(3, 40, -2.0, 2.0) {
        let (value, _, hessian) = residual_and_product_hessian(&x);
        assert_eq!(value, residual_and_product(&x));
        // Σ (x_i² - 2)² + (x_0² - 2)(x_1² - 2).
        let mut by_hand: Vec<Vec<f64>> = (0..3)
            .map(|i| {
                (0..3)
                    .map(|j| {
                        if i == j {
                            12.0 * x[i] * x[i] - 8.0
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect();
        by_hand[0][0] += 2.0 * (x[1] * x[1] - 2.0);
        by_hand[1][1] += 2.0 * (x[0] * x[0] - 2.0);
        by_hand[0][1] += 4.0 * x[0] * x[1];
        by_hand[1][0] += 4.0 * x[0] * x[1];
        let grad = |w: &[f64]| residual_and_product_grad(w).1;
        check_hessian(&hessian, &by_hand, grad, &x, "residual_and_product");
    }
}
