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

/// Owned matrix parameters passed on by value and by reference after writes: the written `[[f64; 2]; 2]`
/// by value to a callee that writes its own copy, then borrowed, and a `Vec<Vec<f64>>` by value (rustc
/// E0308 in generated code before: a matrix passed whole was always borrowed, and a written copy was
/// passed as a `Vec` of `Vec`s whatever the parameter's type). `m00` scaled by `b` here, `m11` by `b` in
/// the callee: `f = b² m00 m11 + m01 + b m00 m10 + b v00 v10`.
#[differentiable(order = 2)]
fn owned_copies(b: f64, mut m: [[f64; 2]; 2], v: Vec<Vec<f64>>) -> f64 {
    m[0][0] *= b;
    scales_its_copy(b, m) + borrows_the_copy(&m) + takes_the_rows(b, v)
}

/// `m00 (s m11) + m01`.
#[differentiable]
fn scales_its_copy(s: f64, mut m: [[f64; 2]; 2]) -> f64 {
    m[1][1] *= s;
    m[0][0] * m[1][1] + m[0][1]
}

/// `m00 m10`.
#[differentiable]
fn borrows_the_copy(m: &[[f64; 2]; 2]) -> f64 {
    m[0][0] * m[1][0]
}

/// `s v00 v10`.
#[differentiable]
fn takes_the_rows(s: f64, v: Vec<Vec<f64>>) -> f64 {
    s * v[0][0] * v[1][0]
}

/// Matrices copied by `let`: `let mut c = *m;` of a borrowed `[[f64; 2]; 2]`, `let mut d = c;`, `let w =
/// v.to_vec();`, each written and passed on (before, "only a local `Vec` or array can be written by
/// index" and "`m` is an input of the function and cannot be written": a `let` of a matrix was an alias).
/// `c = [[m00, m01], [m10, b m11]]`, `d = [[b m00, m01], [m10, b m11]]`, so
/// `f = b² m00 m11 + 2 m01 + b m00 m10 + b v00 v10 + b m00 m11`.
#[differentiable(order = 2)]
fn copies_by_let(b: f64, m: &[[f64; 2]; 2], v: &[Vec<f64>]) -> f64 {
    let mut c = *m;
    c[1][1] *= b;
    let mut d = c;
    d[0][0] *= b;
    let w = v.to_vec();
    scales_its_copy(b, c) + borrows_the_copy(&d) + takes_the_rows(b, w) + scales_its_copy(b, *m)
}

/// `let mut d = m;` of a `mut m: [[f64; 2]; 2]` written in the body: `d` is a copy, writing it leaves `m`
/// alone. Before, the written parameter's copy was held as a `Vec` and `let` made `d` an alias of it: a
/// silently wrong gradient (2.2 for 1.2 in `b` at `b = 0.7`, `m = [[1, 2], [0.5, 0.2]]`).
/// `f = m00 + b m00 + b m11`.
#[differentiable(order = 2)]
fn copy_of_a_written_parameter(b: f64, mut m: [[f64; 2]; 2]) -> f64 {
    m[1][1] *= b;
    let mut d = m;
    d[0][0] *= b;
    m[0][0] + d[0][0] + m[1][1]
}

/// The gradient of `copies_by_let` by hand.
fn by_let_gradient(x: &[f64]) -> Vec<f64> {
    let (b, m00, m10, m11, v00, v10) = (x[0], x[1], x[3], x[4], x[5], x[7]);
    vec![
        2.0 * b * m00 * m11 + m00 * m10 + v00 * v10 + m00 * m11,
        b * b * m11 + b * m10 + b * m11,
        2.0,
        b * m00,
        b * b * m00 + b * m00,
        b * v10,
        0.0,
        b * v00,
        0.0,
    ]
}

/// `copies_by_let` of `(b, m00, m01, m10, m11, v00, v01, v10, v11)`.
fn by_let_at(x: &[f64]) -> f64 {
    let v = vec![vec![x[5], x[6]], vec![x[7], x[8]]];
    copies_by_let(x[0], &[[x[1], x[2]], [x[3], x[4]]], &v)
}

/// `owned_copies` of `(b, m00, m01, m10, m11, v00, v01, v10, v11)`.
fn copies_at(x: &[f64]) -> f64 {
    let v = vec![vec![x[5], x[6]], vec![x[7], x[8]]];
    owned_copies(x[0], [[x[1], x[2]], [x[3], x[4]]], v)
}

/// The gradient of `owned_copies` by hand.
fn copies_gradient(x: &[f64]) -> Vec<f64> {
    let (b, m00, m10, m11, v00, v10) = (x[0], x[1], x[3], x[4], x[5], x[7]);
    vec![
        2.0 * b * m00 * m11 + m00 * m10 + v00 * v10,
        b * b * m11 + b * m10,
        1.0,
        b * m00,
        b * b * m00,
        b * v10,
        0.0,
        b * v00,
        0.0,
    ]
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
    fn owned_matrices_are_passed_by_value_and_by_reference(
        x in prop::collection::vec(-1.5f64..1.5, 9),
        t in prop::collection::vec(-1.0f64..1.0, 9),
    ) {
        let (m, v) = ([[x[1], x[2]], [x[3], x[4]]], vec![vec![x[5], x[6]], vec![x[7], x[8]]]);
        let want = copies_gradient(&x);
        let (value, (gb, gm, gv)) = owned_copies_grad(x[0], m, v.clone());
        let mut got = vec![gb];
        got.extend(gm.iter().flatten());
        got.extend(gv.concat());
        let (b, m00, m01, m10, m11) = (x[0], x[1], x[2], x[3], x[4]);
        let by_hand = b * b * m00 * m11 + m01 + b * m00 * m10 + b * x[5] * x[7];
        assert_all_close(&[value], &[by_hand], ANALYTIC_TOL, "value");
        assert_all_close(&got, &want, ANALYTIC_TOL, "gradient by hand");
        assert_fd_gradient(copies_at, &x, &got, "owned_copies");
        let tangents = ([[t[1], t[2]], [t[3], t[4]]], vec![vec![t[5], t[6]], vec![t[7], t[8]]]);
        let (_, tv) = owned_copies_jvp(x[0], m, v.clone(), (t[0], tangents.0, tangents.1));
        assert_dot(tv, &want, &t, 1e-10, "owned_copies_jvp");
        let (_, _, h) = owned_copies_hessian(x[0], m, v);
        for i in 0..9 {
            let column = hessian_column(copies_gradient, &x, i);
            let row: Vec<f64> = (0..9).map(|r| h[r][i]).collect();
            assert_all_close(&row, &column, 1e-6, "Hessian against differences of the gradient");
        }
    }

    #[test]
    fn a_written_parameter_copied_by_let_is_a_copy(x in prop::collection::vec(-1.5f64..1.5, 5)) {
        let (b, m) = (x[0], [[x[1], x[2]], [x[3], x[4]]]);
        let (value, (gb, gm)) = copy_of_a_written_parameter_grad(b, m);
        assert_all_close(&[value], &[x[1] + b * x[1] + b * x[4]], ANALYTIC_TOL, "value");
        let mut got = vec![gb];
        got.extend(gm.iter().flatten());
        let want = [x[1] + x[4], 1.0 + b, 0.0, 0.0, b];
        assert_all_close(&got, &want, ANALYTIC_TOL, "gradient by hand");
        let at = |y: &[f64]| copy_of_a_written_parameter(y[0], [[y[1], y[2]], [y[3], y[4]]]);
        assert_fd_gradient(at, &x, &got, "copy_of_a_written_parameter");
        let (_, _, h) = copy_of_a_written_parameter_hessian(b, m);
        let want_h = [
            [0.0, 1.0, 0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0, 0.0, 0.0],
            [0.0; 5],
            [0.0; 5],
            [1.0, 0.0, 0.0, 0.0, 0.0],
        ];
        for r in 0..5 {
            assert_all_close(&h[r], &want_h[r], 1e-12, "Hessian by hand");
        }
    }

    #[test]
    fn matrices_copied_by_let_are_copies(x in prop::collection::vec(-1.5f64..1.5, 9)) {
        let (m, v) = ([[x[1], x[2]], [x[3], x[4]]], vec![vec![x[5], x[6]], vec![x[7], x[8]]]);
        let want = by_let_gradient(&x);
        let (_, (gb, gm, gv)) = copies_by_let_grad(x[0], &m, &v);
        let mut got = vec![gb];
        got.extend(gm.iter().flatten());
        got.extend(gv.concat());
        assert_all_close(&got, &want, ANALYTIC_TOL, "gradient by hand");
        assert_fd_gradient(by_let_at, &x, &got, "copies_by_let");
        let (_, _, h) = copies_by_let_hessian(x[0], &m, &v);
        for i in 0..9 {
            let column = hessian_column(by_let_gradient, &x, i);
            let row: Vec<f64> = (0..9).map(|r| h[r][i]).collect();
            assert_all_close(&row, &column, 1e-6, "Hessian against differences of the gradient");
        }
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
