//! `order = K` (and calls) where the first order worked: a plain helper on active floats whose result is an
//! integer used as one (`let k = argmax(x); x[k]`), which carries no derivative and is called as written in
//! the generic copy on the values of its arguments. Checked against derivatives by hand and central
//! differences of `f_grad` (themselves checked against differences of `f`).

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_fd_gradient, hessian_column, Inputs};

/// Central differences of the gradient against `f_hessian`, and of `f` against `f_grad`, at `x`.
#[track_caller]
fn check_hessian(
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> Vec<f64>,
    hessian: &[Vec<f64>],
    x: &[f64],
    what: &str,
) {
    assert_fd_gradient(&f, x, &grad(x), what);
    for i in 0..x.len() {
        let column = hessian_column(&grad, x, i);
        let ours: Vec<f64> = hessian.iter().map(|row| row[i]).collect();
        assert_all_close(&ours, &column, 1e-6, &format!("{what}: Hessian column {i} at {x:?}"));
    }
}

/// Points of `n` inputs whose entries are at least `gap` apart (no tie that a difference step crosses).
fn separated_points(seed: u64, n: usize, gap: f64) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    let mut points = Vec::new();
    while points.len() < 8 {
        let x: Vec<f64> = inputs.vec(n).iter().map(|v| 2.0 * v).collect();
        let separated = (0..n).all(|i| (0..i).all(|j| (x[i] - x[j]).abs() > gap));
        if separated && x.iter().all(|v| v.abs() > gap) {
            points.push(x);
        }
    }
    points
}

// ---- 1. a plain helper returning an index

/// A plain function (no derivatives) of active floats returning an index.
fn argmax_f(x: &[f64]) -> usize {
    let mut k = 0;
    for i in 1..x.len() {
        if x[i] > x[k] {
            k = i;
        }
    }
    k
}

fn argmin_of_three(a: &[f64; 3]) -> usize {
    let mut k = 0;
    for i in 1..3 {
        if a[i] < a[k] {
            k = i;
        }
    }
    k
}

/// How many entries of `x` exceed `t`.
fn count_above(x: &[f64], t: f64) -> usize {
    x.iter().filter(|v| **v > t).count()
}

#[differentiable]
fn square_of_max(x: &[f64]) -> f64 {
    let k = argmax_f(x);
    x[k] * x[k]
}

/// The log-sum-exp shifted by the largest entry, as numerically careful code writes it.
#[differentiable(order = 2)]
fn log_sum_exp(x: &[f64]) -> f64 {
    let k = argmax_f(x);
    let m = x[k];
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] - m).exp();
    }
    m + s.ln()
}

/// The index in arithmetic (`(k + 1) % n`), and in an index expression written in the call.
#[differentiable(order = 2)]
fn neighbour_of_max(x: &[f64]) -> f64 {
    let k = argmax_f(x);
    let j = (k + 1) % x.len();
    x[k] * x[j].sin() + x[argmax_f(x)] * x[0]
}

/// A count as a loop's bound, with a float argument that is active (`x[0]`).
#[differentiable(order = 2)]
fn cubes_of_leading(x: &[f64]) -> f64 {
    let n = count_above(x, x[0]);
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[i];
    }
    s + x[0] * x[1]
}

/// A local `Vec` and an array parameter passed to helpers, the result declared `usize`.
#[differentiable(order = 2)]
fn picked(a: &[f64; 3]) -> f64 {
    let v = vec![a[0] * 2.0, a[1], a[2] * a[2]];
    let k = argmax_f(&v);
    let j: usize = argmin_of_three(a);
    v[k] * a[j]
}

/// An `order = 2` caller of the first-order function (its generic copy).
#[differentiable(order = 2)]
fn through_square_of_max(x: &[f64]) -> f64 {
    square_of_max(x) * x[1]
}

#[test]
fn a_plain_helper_returning_an_index_compiles_at_first_order() {
    for x in separated_points(1, 4, 1e-3) {
        let (v, g) = square_of_max_grad(&x);
        let k = argmax_f(&x);
        assert_eq!(v, x[k] * x[k]);
        let mut expected = vec![0.0; 4];
        expected[k] = 2.0 * x[k];
        assert_all_close(&g, &expected, 1e-12, "square_of_max_grad");
        assert_fd_gradient(square_of_max, &x, &g, "square_of_max");
        let (_, t) = square_of_max_jvp(&x, vec![1.0, 2.0, 3.0, 4.0]);
        assert_all_close(&[t], &[expected[k] * (k + 1) as f64], 1e-12, "square_of_max_jvp");
    }
}

#[test]
fn log_sum_exp_through_an_argmax_has_the_softmax_hessian() {
    for x in separated_points(2, 5, 1e-3) {
        let (v, g, h) = log_sum_exp_hessian(&x);
        let total: f64 = x.iter().map(|v| v.exp()).sum();
        let p: Vec<f64> = x.iter().map(|v| v.exp() / total).collect();
        assert_all_close(&[v], &[total.ln()], 1e-12, "log_sum_exp");
        assert_all_close(&g, &p, 1e-12, "log_sum_exp gradient: softmax");
        for i in 0..5 {
            let row: Vec<f64> = (0..5)
                .map(|j| if i == j { p[i] - p[i] * p[j] } else { -p[i] * p[j] })
                .collect();
            assert_all_close(&h[i], &row, 1e-12, "log_sum_exp Hessian: diag(p) - p p^T");
        }
        check_hessian(
            log_sum_exp,
            |x| log_sum_exp_grad(x).1,
            &h,
            &x,
            "log_sum_exp",
        );
        // f_hvp agrees with the Hessian.
        let dir = [0.5, -1.0, 0.25, 2.0, -0.75];
        let (_, _, hv) = log_sum_exp_hvp(&x, dir.to_vec());
        let expected: Vec<f64> = h.iter().map(|r| common::dot(r, &dir)).collect();
        assert_all_close(&hv, &expected, 1e-12, "log_sum_exp_hvp");
    }
}

#[test]
fn an_index_in_arithmetic_and_in_a_call_inside_an_index() {
    for x in separated_points(3, 4, 1e-3) {
        let (v, g, h) = neighbour_of_max_hessian(&x);
        let k = argmax_f(&x);
        let j = (k + 1) % 4;
        assert_all_close(&[v], &[x[k] * x[j].sin() + x[k] * x[0]], 1e-12, "value");
        // Analytic: d/dx_k, d/dx_j, d/dx_0 of x_k sin x_j + x_k x_0.
        let mut expected_h = vec![vec![0.0; 4]; 4];
        expected_h[k][j] += x[j].cos();
        expected_h[j][k] += x[j].cos();
        expected_h[j][j] += -x[k] * x[j].sin();
        expected_h[k][0] += 1.0;
        expected_h[0][k] += 1.0;
        for i in 0..4 {
            assert_all_close(&h[i], &expected_h[i], 1e-12, "neighbour_of_max Hessian by hand");
        }
        check_hessian(
            neighbour_of_max,
            |x| neighbour_of_max_grad(x).1,
            &h,
            &x,
            "neighbour_of_max",
        );
        let _ = g;
    }
}

#[test]
fn a_count_bounds_a_loop() {
    for x in separated_points(4, 5, 1e-3) {
        let (v, _, h) = cubes_of_leading_hessian(&x);
        let n = count_above(&x, x[0]);
        let by_hand: f64 = x[..n].iter().map(|v| v * v * v).sum::<f64>() + x[0] * x[1];
        assert_all_close(&[v], &[by_hand], 1e-12, "value");
        let mut expected_h = vec![vec![0.0; 5]; 5];
        for i in 0..n {
            expected_h[i][i] = 6.0 * x[i];
        }
        expected_h[0][1] += 1.0;
        expected_h[1][0] += 1.0;
        for i in 0..5 {
            assert_all_close(&h[i], &expected_h[i], 1e-12, "cubes_of_leading Hessian by hand");
        }
        check_hessian(
            cubes_of_leading,
            |x| cubes_of_leading_grad(x).1,
            &h,
            &x,
            "cubes_of_leading",
        );
    }
}

#[test]
fn a_local_vec_and_an_array_passed_to_helpers() {
    for x in separated_points(5, 3, 1e-2) {
        let a = [x[0], x[1], x[2]];
        let (v, g, h) = picked_hessian(&a);
        let w = [a[0] * 2.0, a[1], a[2] * a[2]];
        let (k, j) = (argmax_f(&w), argmin_of_three(&a));
        assert_all_close(&[v], &[w[k] * a[j]], 1e-12, "value");
        // d w_k / d a: w_0 = 2 a_0, w_1 = a_1, w_2 = a_2^2.
        let dw = |k: usize| -> [f64; 3] {
            let mut d = [0.0; 3];
            d[k] = [2.0, 1.0, 2.0 * a[2]][k];
            d
        };
        let d2w = |k: usize, i: usize, l: usize| if k == 2 && i == 2 && l == 2 { 2.0 } else { 0.0 };
        let e = |i: usize, j: usize| if i == j { 1.0 } else { 0.0 };
        for i in 0..3 {
            assert_all_close(&[g[i]], &[dw(k)[i] * a[j] + w[k] * e(i, j)], 1e-12, "gradient by hand");
            for l in 0..3 {
                let expected = d2w(k, i, l) * a[j] + dw(k)[i] * e(l, j) + dw(k)[l] * e(i, j);
                assert_all_close(&[h[i][l]], &[expected], 1e-12, "picked Hessian by hand");
            }
        }
        let f = |x: &[f64]| picked(&[x[0], x[1], x[2]]);
        let grad = |x: &[f64]| picked_grad(&[x[0], x[1], x[2]]).1.to_vec();
        check_hessian(f, grad, &h, &x, "picked");
    }
}

#[test]
fn an_order_2_caller_reaches_the_copy_of_a_first_order_function() {
    for x in separated_points(6, 4, 1e-3) {
        let (v, _, h) = through_square_of_max_hessian(&x);
        let k = argmax_f(&x);
        assert_all_close(&[v], &[x[k] * x[k] * x[1]], 1e-12, "value");
        // x_k^2 x_1: d2/dx_k^2 = 2 x_1 (k != 1), d2/dx_k dx_1 = 2 x_k; for k = 1, x_1^3: 6 x_1.
        let mut expected_h = vec![vec![0.0; 4]; 4];
        if k == 1 {
            expected_h[1][1] = 6.0 * x[1];
        } else {
            expected_h[k][k] = 2.0 * x[1];
            expected_h[k][1] = 2.0 * x[k];
            expected_h[1][k] = 2.0 * x[k];
        }
        for i in 0..4 {
            assert_all_close(&h[i], &expected_h[i], 1e-12, "through_square_of_max Hessian by hand");
        }
        check_hessian(
            through_square_of_max,
            |x| through_square_of_max_grad(x).1,
            &h,
            &x,
            "through_square_of_max",
        );
    }
}
