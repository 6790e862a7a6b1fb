//! Matrices made in a differentiable body (`vec![vec![0.0; c]; r]`, `vec![vec![a, b], vec![c, d]]`, a
//! copy `g.to_vec()` of a matrix parameter), written `m[i][j] = ..` and `m[i][j] += ..`, with rows passed
//! as output buffers (`&mut m[i]`), and matrices passed whole to calls (`total(&m)`, `total(g)`), in loops
//! and branches. Every gradient and tangent is checked against central finite differences on random
//! inputs, and against derivatives worked out by hand.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{assert_all_close, assert_close, assert_dot, assert_fd_gradient, config};
use proptest::prelude::*;

/// `Σ (j + 1) m[i][j]²`, over rows of any length.
#[differentiable]
fn total(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j] * m[i][j] * (j as f64 + 1.0);
        }
    }
    s
}

/// `m x`, for a matrix of two columns.
#[differentiable]
fn apply(m: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; m.len()];
    for i in 0..m.len() {
        out[i] = m[i][0] * x[0] + m[i][1] * x[1];
    }
    out
}

/// The same sum, generic.
#[differentiable]
fn total_generic<T: Float>(m: &[Vec<T>]) -> T {
    let mut s = T::zero();
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s = s + m[i][j] * m[i][j];
        }
    }
    s
}

/// Lotka-Volterra's right-hand side, written into `dydt`.
#[differentiable]
fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - y[0] * y[1];
    dydt[1] = y[0] * y[1] - p[1] * y[1];
}

/// A matrix filled by a loop nest (`=` and `+=`), and a literal matrix.
#[allow(clippy::useless_vec)] // `vec![vec![..], ..]` is the form under test
#[differentiable]
fn filled(x: &[f64], a: f64) -> f64 {
    let mut m: Vec<Vec<f64>> = vec![vec![0.0; 2]; 3];
    for i in 0..3 {
        for j in 0..2 {
            m[i][j] = x[i] * a + j as f64;
            m[i][j] += m[0][0] * x[j];
        }
    }
    let lit = vec![vec![a, 1.0], vec![x[0] * x[1], a * a]];
    let mut s = 0.0;
    for i in 0..m.len() {
        s += m[i][0] * m[i][1] * lit[i % 2][1];
    }
    s + m[2][1] * lit[1][0]
}

/// Rows of a local matrix as output buffers: two steps of the right-hand side, one row each.
#[differentiable]
fn rows_written(y: &[f64], p: &[f64], steps: usize) -> f64 {
    let mut m = vec![vec![0.0; 2]; 2];
    let mut state = [y[0], y[1]];
    for _ in 0..steps {
        rhs(&state, p, &mut m[0]);
        let first = m[0].to_vec();
        rhs(&first, p, &mut m[1]);
        state[0] += 0.1 * m[1][0];
        state[1] += 0.1 * m[1][1];
    }
    m[0][0] * m[1][1] + m[1][0] + state[0] * state[1]
}

/// Matrices passed whole: a local one (before and after it is written again) and the parameter, to an
/// `f64` callee, a generic one and one returning an array.
#[differentiable]
fn whole(g: &[Vec<f64>], x: &[f64], n: usize) -> f64 {
    let mut m = vec![vec![0.0; 2]; n];
    for i in 0..n {
        for j in 0..2 {
            m[i][j] = g[i % 2][j] * x[j] + x[i % 2];
        }
    }
    let a = total(&m) + total(g) + total_generic(&m);
    let out: Vec<f64> = apply(&m, x);
    let mut s = a;
    for _ in 0..3 {
        m[0][1] = m[0][1] * x[0] + s * 0.1;
        s += total(&m) * 0.01;
    }
    s + out[n - 1]
}

/// A matrix made in a loop body and in a branch, passed whole there; a copy of the parameter written.
#[allow(clippy::useless_vec)] // `vec![vec![..], ..]` is the form under test
#[differentiable]
fn made_in_loops(g: &[Vec<f64>], a: f64, steps: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..steps {
        let mut m = vec![vec![a; 2], vec![a * a, 1.0]];
        m[1][1] = g[k % 2][0] * s + a;
        if s > 1.0 {
            let c = vec![vec![s; 2]; 2];
            s += total(&c) * 0.1;
        }
        s += total(&m) * 0.5 + m[0][1];
    }
    let mut h = g.to_vec();
    h[0][1] = a * h[1][0];
    s + total(&h) + h[0][1] * h[0][0]
}

/// Adds `xs[0] xs[2]` into `out[0]`.
#[differentiable]
fn add_product(xs: &[f64], out: &mut [f64]) {
    out[0] += xs[2] * xs[0];
}

/// The rows of a matrix made in a branch of a loop body passed to a call, whose adjoint buffers are sized
/// in the reverse sweep where the matrix is out of scope (found by `autodiff-fuzz --seed 2 --forms`).
#[differentiable]
fn rows_in_a_branch(a: f64, n: usize) -> f64 {
    let mut buf = [0.0; 3];
    let mut t = 1.0;
    for i in 0..n {
        if a > -0.5 {
            let mut m: Vec<Vec<f64>> = vec![vec![0.5; 3]; 3];
            for j in 0..3 {
                m[j][i % 3] = a * t;
                add_product(&m[j], &mut buf);
            }
        }
        t += buf[0];
    }
    t
}

/// Three rows by two columns, as a flat input of a test.
fn grid(w: &[f64]) -> Vec<Vec<f64>> {
    w.chunks(2).map(<[f64]>::to_vec).collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn matrices_made_and_written_in_the_body(x in prop::collection::vec(-1.5f64..1.5, 3), a in -1.5f64..1.5) {
        let (value, (gx, ga)) = filled_grad(&x, a);
        assert_close(value, filled(&x, a), 1e-14, "value");
        // By hand: m00 = x0 a (1 + x0), m[i][j] = x[i] a + j + m00 x[j].
        let m00 = x[0] * a * (1.0 + x[0]);
        let m = |i: usize, j: usize| if (i, j) == (0, 0) { m00 } else { x[i] * a + j as f64 + m00 * x[j] };
        let lit = [[a, 1.0], [x[0] * x[1], a * a]];
        let by_hand = (0..3).map(|i| m(i, 0) * m(i, 1) * lit[i % 2][1]).sum::<f64>() + m(2, 1) * lit[1][0];
        assert_close(value, by_hand, 1e-12, "by hand");
        let all = [x.clone(), vec![a]].concat();
        let g = [gx.clone(), vec![ga]].concat();
        assert_fd_gradient(|w: &[f64]| filled(&w[..3], w[3]), &all, &g, "filled");
        let t = [0.5, -1.0, 0.25, 0.75];
        let (v, dot) = filled_jvp(&x, a, (t[..3].to_vec(), t[3]));
        assert_close(v, value, 1e-14, "jvp value");
        assert_dot(dot, &g, &t, 1e-10, "filled jvp");
    }

    #[test]
    fn rows_of_a_local_matrix_as_output_buffers(y in prop::collection::vec(0.2f64..1.5, 2), p in prop::collection::vec(0.2f64..1.5, 2), steps in 0usize..4) {
        let (value, (gy, gp)) = rows_written_grad(&y, &p, steps);
        assert_close(value, rows_written(&y, &p, steps), 1e-14, "value");
        let all = [y.clone(), p.clone()].concat();
        let g = [gy.clone(), gp.clone()].concat();
        assert_fd_gradient(|w: &[f64]| rows_written(&w[..2], &w[2..], steps), &all, &g, "rows_written");
        let t = [0.5, -1.0, 0.25, 0.75];
        let (_, dot) = rows_written_jvp(&y, &p, steps, (t[..2].to_vec(), t[2..].to_vec()));
        assert_dot(dot, &g, &t, 1e-10, "rows_written jvp");
        if steps == 1 {
            // By hand: m0 = f(y), m1 = f(m0), state = y + 0.1 m1.
            let f = |y: [f64; 2]| [p[0] * y[0] - y[0] * y[1], y[0] * y[1] - p[1] * y[1]];
            let m0 = f([y[0], y[1]]);
            let m1 = f(m0);
            let state = [y[0] + 0.1 * m1[0], y[1] + 0.1 * m1[1]];
            assert_close(value, m0[0] * m1[1] + m1[0] + state[0] * state[1], 1e-12, "by hand");
        }
    }

    #[test]
    fn matrices_passed_whole(w in prop::collection::vec(-1.2f64..1.2, 4), x in prop::collection::vec(-1.2f64..1.2, 2), n in 1usize..4) {
        let g = vec![w[..2].to_vec(), w[2..].to_vec()];
        let (value, (gg, gx)) = whole_grad(&g, &x, n);
        assert_close(value, whole(&g, &x, n), 1e-14, "value");
        let all = [w.clone(), x.clone()].concat();
        let flat = [gg.concat(), gx.clone()].concat();
        let f = |v: &[f64]| whole(&[v[..2].to_vec(), v[2..4].to_vec()], &v[4..], n);
        assert_fd_gradient(f, &all, &flat, "whole");
        let t = [0.5, -1.0, 0.25, 0.75, -0.5, 1.5];
        let (v, dot) = whole_jvp(&g, &x, n, (grid(&t[..4]), t[4..].to_vec()));
        assert_close(v, value, 1e-14, "jvp value");
        assert_dot(dot, &flat, &t, 1e-10, "whole jvp");
        // The callee alone, by hand: d total / d m[i][j] = 2 (j + 1) m[i][j].
        let (_, gt) = total_grad(&g);
        assert_all_close(&gt.concat(), &[2.0 * w[0], 4.0 * w[1], 2.0 * w[2], 4.0 * w[3]], 1e-14, "total");
    }

    #[test]
    fn rows_of_a_matrix_made_in_a_branch(a in -1.2f64..1.2, n in 0usize..4) {
        let (value, ga) = rows_in_a_branch_grad(a, n);
        assert_close(value, rows_in_a_branch(a, n), 1e-14, "value");
        assert_close(ga, common::central_difference(|s| rows_in_a_branch(s, n), a), 1e-7, "d/da");
        let (_, dot) = rows_in_a_branch_jvp(a, n, 1.0);
        assert_close(dot, ga, 1e-10, "jvp");
    }

    #[test]
    fn matrices_made_in_loop_bodies_and_branches(w in prop::collection::vec(-1.2f64..1.2, 4), a in -1.2f64..1.2, steps in 0usize..4) {
        let g = grid(&w);
        let (value, (gg, ga)) = made_in_loops_grad(&g, a, steps);
        assert_close(value, made_in_loops(&g, a, steps), 1e-14, "value");
        let all = [w.clone(), vec![a]].concat();
        let flat = [gg.concat(), vec![ga]].concat();
        let f = |v: &[f64]| made_in_loops(&grid(&v[..4]), v[4], steps);
        assert_fd_gradient(f, &all, &flat, "made_in_loops");
        let t = [0.5, -1.0, 0.25, 0.75, -0.5];
        let (_, dot) = made_in_loops_jvp(&g, a, steps, (grid(&t[..4]), t[4]));
        assert_dot(dot, &flat, &t, 1e-10, "made_in_loops jvp");
    }
}
