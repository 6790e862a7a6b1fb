//! Matrices taken by value and declared `mut` (`mut m: [[f64; C]; R]`, `mut m: Vec<Vec<f64>>`), written by
//! the body like a local, as API.md allows for every parameter taken by value. Before, the macro said "`m`
//! is an input of the function and cannot be written: declare the parameter `mut m: ..`" of a parameter
//! so declared (found by `autodiff-fuzz --seed 311 --forms`, p1 and eight more, when the fuzzer learnt
//! matrix parameters of every type). Gradients, tangents and Hessians against derivatives by hand and
//! central differences of the primal, on random inputs.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_dot, assert_fd_gradient, config, hessian_column, ANALYTIC_TOL,
};
use proptest::prelude::*;

/// `m[0][1] += a m[1][0]; m[1][1] = sin(m[0][1]) m[0][0]`, then `m[0][0] m[1][1] + m[0][1] + m[2][0]`:
/// `f = m00² sin(m01 + a m10) + m01 + a m10 + m20`.
#[differentiable(order = 2)]
fn written_array(mut m: [[f64; 2]; 3], a: f64) -> f64 {
    m[0][1] += a * m[1][0];
    m[1][1] = m[0][1].sin() * m[0][0];
    m[0][0] * m[1][1] + m[0][1] + m[2][0]
}

/// Every element scaled by `a` and shifted by 1 in place, then `m[0][0] m[1][1] + Σ_rows m[i][0] m[i][1]`
/// with the rows passed to a call after the writes: `f = (a m00 + 1)(a m11 + 1) + Σ_i (a mi0 + 1)(a mi1 + 1)`.
#[differentiable(order = 2)]
fn written_vecs(mut m: Vec<Vec<f64>>, a: f64) -> f64 {
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            m[i][j] = m[i][j] * a + 1.0;
        }
    }
    m[0][0] * m[1][1] + row_products(&m)
}

/// `Σ_i m[i][0] m[i][1]`.
#[differentiable]
fn row_products(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for row in m {
        s += row[0] * row[1];
    }
    s
}

/// A matrix parameter taken by reference, passed by value to a callee that takes (and writes) its own
/// copy: `h(b, *grid)` (autodiff-fuzz --seed 7171 --forms p121: rustc E0308 in generated code, the borrow
/// passed where the callee takes `[[f64; 2]; 3]`). `f = b (m01 + b m20 + b m00)`.
#[differentiable(order = 2)]
fn passes_a_copy(b: f64, grid: &[[f64; 2]; 3]) -> f64 {
    takes_a_copy(b, *grid) * b
}

/// `m01 + s m20 + s m00`, with `m00` scaled in the callee's own copy.
#[differentiable]
fn takes_a_copy(s: f64, mut m: [[f64; 2]; 3]) -> f64 {
    m[0][0] *= s;
    m[0][1] + s * m[2][0] + m[0][0]
}

/// The primal of `written_array` from its flattened inputs `(m00, m01, .., m21, a)`.
fn array_at(x: &[f64]) -> f64 {
    let m = [[x[0], x[1]], [x[2], x[3]], [x[4], x[5]]];
    written_array(m, x[6])
}

/// The gradient of `written_array` by hand.
fn array_gradient(x: &[f64]) -> Vec<f64> {
    let (m00, m01, m10, a) = (x[0], x[1], x[2], x[6]);
    let u = m01 + a * m10;
    let (s, c) = u.sin_cos();
    vec![
        2.0 * m00 * s,
        m00 * m00 * c + 1.0,
        a * (m00 * m00 * c + 1.0),
        0.0,
        1.0,
        0.0,
        m10 * (m00 * m00 * c + 1.0),
    ]
}

fn vecs_at(x: &[f64]) -> f64 {
    let m = vec![vec![x[0], x[1]], vec![x[2], x[3]]];
    written_vecs(m, x[4])
}

fn vecs_gradient(x: &[f64]) -> Vec<f64> {
    let a = x[4];
    let w: Vec<f64> = x[..4].iter().map(|v| a * v + 1.0).collect();
    // f = w0 w3 + w0 w1 + w2 w3, dw/dm = a, dw/da = m.
    let dw = [w[3] + w[1], w[0], w[3], w[0] + w[2]];
    let mut g: Vec<f64> = dw.iter().map(|d| a * d).collect();
    g.push((0..4).map(|k| dw[k] * x[k]).sum());
    g
}

fn flat_array(m: &[[f64; 2]; 3]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_matrix_passed_by_value_from_a_reference(x in prop::collection::vec(-1.5f64..1.5, 7)) {
        let (b, grid) = (x[6], [[x[0], x[1]], [x[2], x[3]], [x[4], x[5]]]);
        let (v, (gb, gm)) = passes_a_copy_grad(b, &grid);
        let (m00, m01, m20) = (x[0], x[1], x[4]);
        assert_all_close(&[v], &[b * (m01 + b * m20 + b * m00)], ANALYTIC_TOL, "value");
        let want_b = m01 + 2.0 * b * (m20 + m00);
        let want_m = [[b * b, b], [0.0, 0.0], [b * b, 0.0]];
        assert_all_close(&[gb], &[want_b], ANALYTIC_TOL, "gradient in b");
        assert_all_close(&flat_array(&gm), &flat_array(&want_m), ANALYTIC_TOL, "gradient in grid");
        let at = |y: &[f64]| passes_a_copy(y[6], &[[y[0], y[1]], [y[2], y[3]], [y[4], y[5]]]);
        let mut got = flat_array(&gm);
        got.push(gb);
        assert_fd_gradient(at, &x, &got, "passes_a_copy");
        let (_, _, h) = passes_a_copy_hessian(b, &grid);
        // Over (b, grid flattened): d2f/db2 = 2 (m20 + m00), d2f/db dm00 = 2b, d2f/db dm01 = 1.
        assert_all_close(&[h[0][0], h[0][1], h[0][2]], &[2.0 * (m20 + m00), 2.0 * b, 1.0], 1e-10, "Hessian");
    }

    #[test]
    fn a_mut_nested_array_parameter_is_written_like_a_local(
        x in prop::collection::vec(-1.5f64..1.5, 7),
        t in prop::collection::vec(-1.0f64..1.0, 7),
    ) {
        let m = [[x[0], x[1]], [x[2], x[3]], [x[4], x[5]]];
        let want = array_gradient(&x);
        let (v, (gm, ga)) = written_array_grad(m, x[6]);
        let mut got = flat_array(&gm);
        got.push(ga);
        assert_all_close(&[v], &[array_at(&x)], ANALYTIC_TOL, "value");
        assert_all_close(&got, &want, ANALYTIC_TOL, "gradient by hand");
        assert_fd_gradient(array_at, &x, &got, "written_array");
        let tm = [[t[0], t[1]], [t[2], t[3]], [t[4], t[5]]];
        let (_, tv) = written_array_jvp(m, x[6], (tm, t[6]));
        assert_dot(tv, &want, &t, 1e-10, "written_array_jvp");
        let (_, _, h) = written_array_hessian(m, x[6]);
        for i in 0..7 {
            let column = hessian_column(array_gradient, &x, i);
            let row: Vec<f64> = (0..7).map(|r| h[r][i]).collect();
            assert_all_close(&row, &column, 1e-6, "Hessian against differences of the gradient");
        }
    }

    #[test]
    fn a_mut_vec_of_vecs_parameter_is_written_like_a_local(
        x in prop::collection::vec(-1.5f64..1.5, 5),
        t in prop::collection::vec(-1.0f64..1.0, 5),
    ) {
        let m = vec![vec![x[0], x[1]], vec![x[2], x[3]]];
        let want = vecs_gradient(&x);
        let (v, (gm, ga)) = written_vecs_grad(m.clone(), x[4]);
        let mut got: Vec<f64> = gm.concat();
        got.push(ga);
        assert_all_close(&[v], &[vecs_at(&x)], ANALYTIC_TOL, "value");
        assert_all_close(&got, &want, ANALYTIC_TOL, "gradient by hand");
        assert_fd_gradient(vecs_at, &x, &got, "written_vecs");
        let tm = vec![vec![t[0], t[1]], vec![t[2], t[3]]];
        let (_, tv) = written_vecs_jvp(m.clone(), x[4], (tm, t[4]));
        assert_dot(tv, &want, &t, 1e-10, "written_vecs_jvp");
        let (_, _, h) = written_vecs_hessian(m, x[4]);
        for i in 0..5 {
            let column = hessian_column(vecs_gradient, &x, i);
            let row: Vec<f64> = (0..5).map(|r| h[r][i]).collect();
            assert_all_close(&row, &column, 1e-6, "Hessian against differences of the gradient");
        }
    }
}
