//! Matrix parameters read in place (`views::in_place_matrices`): a matrix that is inactive in a sweep
//! (left out by `wrt`), that nothing writes and that the body uses only through its rows `&m[i]` is no
//! longer flattened into a copy at each call; its rows are `&__matrix_m[i][..]`. A matrix also read by
//! element, or active, is flattened as before. Each case checks the value, the gradient against a
//! plain-Rust adjoint written here (or by hand) and central differences over seeded random inputs, and
//! `f_jvp` against the gradient; the matrices are ragged where the form allows it, since a row read in
//! place has its own length, and the row indexes are computed, reversed, taken in branches, in a `while`
//! left early and in nested loops.

// Index loops are the style under test.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::*;

/// `Σ_j w_j x_j`, differentiated with respect to `w` only: a caller lends it rows of inactive data.
#[differentiable(wrt(w))]
fn dot_w(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..x.len() {
        s += w[j] * x[j];
    }
    s
}

/// The same, both active: the caller's rows reach the unrestricted callee with no cotangent slot.
#[differentiable]
fn dot_both(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..x.len() {
        s += w[j] * x[j];
    }
    s
}

/// Rows lent to calls at computed indexes, in reverse order and under a branch:
/// `Σ_k tanh(dot(w, xs[n-1-k])) + [k even] dot(w, xs[k])²`.
#[differentiable(wrt(w))]
fn lent(w: &[f64], xs: &[Vec<f64>], n: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..n {
        let a = dot_w(w, &xs[n - 1 - k]);
        s += a.tanh();
        if k % 2 == 0 {
            let b = dot_both(w, &xs[k]);
            s += b * b;
        }
    }
    s
}

/// Rows bound to a local and read by element, with their own lengths (a ragged matrix), in a nested
/// loop: `Σ_k Σ_j sin(w_j * row_k[j]) * a`.
#[differentiable(wrt(w, a))]
fn ragged(w: &[f64], a: f64, xs: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for k in 0..xs.len() {
        let row = &xs[k];
        for j in 0..row.len() {
            s += (w[j] * row[j]).sin() * a;
        }
    }
    s
}

/// Rows iterated with `for row in xs.iter()`, in a `while` loop left early by a value that depends on
/// the active parameter.
#[differentiable(wrt(w))]
fn iterated(w: &[f64], xs: &[Vec<f64>], limit: f64) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    while k < xs.len() {
        let z = dot_w(w, &xs[k]);
        s += z * z;
        if s > limit {
            break;
        }
        k += 1;
    }
    for row in xs.iter() {
        s += dot_w(w, row).exp();
    }
    s
}

/// Both forms at once: a row lent to a call and an element `xs[k][0]` read: flattened, as before.
#[differentiable(wrt(w))]
fn mixed(w: &[f64], xs: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for k in 0..xs.len() {
        s += dot_w(w, &xs[k]) * xs[k][0];
    }
    s
}

/// A fixed-size matrix, inactive, its rows lent to calls.
#[differentiable(wrt(w))]
fn fixed(w: &[f64], m: [[f64; 3]; 2]) -> f64 {
    dot_w(w, &m[0]) * dot_w(w, &m[1]).cos()
}

/// An owned `Vec<Vec<f64>>`, inactive.
#[differentiable(wrt(w))]
fn owned(w: &[f64], m: Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for k in 0..m.len() {
        s += dot_w(w, &m[k]).powi(2);
    }
    s
}

/// No `wrt`: the matrix is active, flattened, and gets its gradient.
#[differentiable]
fn active(w: &[f64], xs: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for k in 0..xs.len() {
        s += dot_both(w, &xs[k]).sin();
    }
    s
}

fn plain_dot(w: &[f64], x: &[f64]) -> f64 {
    x.iter().zip(w).map(|(x, w)| x * w).sum()
}

/// Checks `f_grad`'s value and gradient against `value` and `gradient`, central differences of `f` and
/// `f_jvp` along a random tangent.
fn check(
    what: &str,
    w: &[f64],
    f: impl Fn(&[f64]) -> f64,
    grad: (f64, Vec<f64>),
    jvp: impl Fn(Vec<f64>) -> (f64, f64),
    by_hand: &[f64],
    r: &mut Inputs,
) {
    let (value, g) = grad;
    assert_close(value, f(w), ANALYTIC_TOL, &format!("{what} value"));
    assert_all_close(&g, by_hand, 1e-10, &format!("{what} gradient by hand"));
    assert_fd_gradient(&f, w, &g, what);
    let t = r.vec(w.len());
    let (v, dot_value) = jvp(t.clone());
    assert_close(v, value, ANALYTIC_TOL, &format!("{what} jvp value"));
    assert_dot(dot_value, &g, &t, 1e-10, &format!("{what} jvp"));
}

#[test]
fn rows_lent_at_computed_indexes_in_reverse_and_under_a_branch() {
    let mut r = Inputs(11);
    for _ in 0..20 {
        let (n, d) = (5, 3);
        let xs: Vec<Vec<f64>> = (0..n).map(|_| r.vec(d)).collect();
        let w = r.vec(d);
        let mut hand = vec![0.0; d];
        for k in 0..n {
            let x = &xs[n - 1 - k];
            let a = plain_dot(&w, x);
            for j in 0..d {
                hand[j] += (1.0 - a.tanh().powi(2)) * x[j];
            }
            if k % 2 == 0 {
                let b = plain_dot(&w, &xs[k]);
                for j in 0..d {
                    hand[j] += 2.0 * b * xs[k][j];
                }
            }
        }
        check(
            "lent",
            &w,
            |w| lent(w, &xs, n),
            lent_grad(&w, &xs, n),
            |t| lent_jvp(&w, &xs, n, t),
            &hand,
            &mut r,
        );
        let mut into = vec![7.0; d];
        let v = lent_grad_into(&w, &xs, n, &mut into);
        assert_close(v, lent(&w, &xs, n), ANALYTIC_TOL, "lent grad_into value");
        assert_all_close(&into, &hand, 1e-10, "lent grad_into gradient");
    }
}

#[test]
fn rows_of_a_ragged_matrix_read_by_element() {
    let mut r = Inputs(12);
    for _ in 0..20 {
        let w = r.vec(4);
        let a = r.next();
        // Rows of 1 to 4 elements, and an empty one.
        let xs: Vec<Vec<f64>> = vec![r.vec(2), r.vec(4), Vec::new(), r.vec(1), r.vec(3)];
        let mut gw = vec![0.0; 4];
        let mut ga = 0.0;
        for row in &xs {
            for j in 0..row.len() {
                gw[j] += (w[j] * row[j]).cos() * row[j] * a;
                ga += (w[j] * row[j]).sin();
            }
        }
        let (value, (g_w, g_a)) = ragged_grad(&w, a, &xs);
        assert_close(value, ragged(&w, a, &xs), ANALYTIC_TOL, "ragged value");
        assert_all_close(&g_w, &gw, 1e-10, "ragged w gradient by hand");
        assert_close(g_a, ga, 1e-10, "ragged a gradient by hand");
        let mut p = w.clone();
        p.push(a);
        let mut g = g_w.clone();
        g.push(g_a);
        assert_fd_gradient(|p| ragged(&p[..4], p[4], &xs), &p, &g, "ragged");
        let t = r.vec(5);
        let (_, dot_value) = ragged_jvp(&w, a, &xs, (t[..4].to_vec(), t[4]));
        assert_dot(dot_value, &g, &t, 1e-10, "ragged jvp");
    }
}

#[test]
fn rows_iterated_and_in_a_while_loop_left_early() {
    let mut r = Inputs(13);
    for case in 0..30 {
        let (n, d) = (6, 2);
        let xs: Vec<Vec<f64>> = (0..n).map(|_| r.vec(d)).collect();
        let w = r.vec(d);
        // From no early exit to an exit after the first row.
        let limit = [10.0, 0.5, 0.05, 0.0][case % 4];
        let mut hand = vec![0.0; d];
        let mut s = 0.0;
        for x in &xs {
            let z = plain_dot(&w, x);
            s += z * z;
            for j in 0..d {
                hand[j] += 2.0 * z * x[j];
            }
            if s > limit {
                break;
            }
        }
        for x in &xs {
            let e = plain_dot(&w, x).exp();
            for j in 0..d {
                hand[j] += e * x[j];
            }
        }
        check(
            "iterated",
            &w,
            |w| iterated(w, &xs, limit),
            iterated_grad(&w, &xs, limit),
            |t| iterated_jvp(&w, &xs, limit, t),
            &hand,
            &mut r,
        );
    }
}

#[test]
fn a_matrix_also_read_by_element_fixed_and_owned_matrices() {
    let mut r = Inputs(14);
    for _ in 0..20 {
        let xs: Vec<Vec<f64>> = (0..4).map(|_| r.vec(3)).collect();
        let w = r.vec(3);
        let mut hand = vec![0.0; 3];
        for x in &xs {
            for j in 0..3 {
                hand[j] += x[j] * x[0];
            }
        }
        check(
            "mixed",
            &w,
            |w| mixed(w, &xs),
            mixed_grad(&w, &xs),
            |t| mixed_jvp(&w, &xs, t),
            &hand,
            &mut r,
        );

        let m = [
            [r.next(), r.next(), r.next()],
            [r.next(), r.next(), r.next()],
        ];
        let (a, b) = (plain_dot(&w, &m[0]), plain_dot(&w, &m[1]));
        let hand: Vec<f64> = (0..3)
            .map(|j| m[0][j] * b.cos() - a * b.sin() * m[1][j])
            .collect();
        check(
            "fixed",
            &w,
            |w| fixed(w, m),
            fixed_grad(&w, m),
            |t| fixed_jvp(&w, m, t),
            &hand,
            &mut r,
        );

        let hand: Vec<f64> = (0..3)
            .map(|j| xs.iter().map(|x| 2.0 * plain_dot(&w, x) * x[j]).sum())
            .collect();
        check(
            "owned",
            &w,
            |w| owned(w, xs.clone()),
            owned_grad(&w, xs.clone()),
            |t| owned_jvp(&w, xs.clone(), t),
            &hand,
            &mut r,
        );
    }
}

/// Long rows lent to a callee with no `wrt`: the cotangent of each row, which the caller does not want,
/// goes to a scratch buffer on the heap (beyond `Scratch`'s inline elements).
#[differentiable(wrt(w))]
fn long_rows(w: &[f64], xs: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for k in 0..xs.len() {
        s += dot_both(w, &xs[k]).tanh();
    }
    s
}

#[test]
fn rows_shorter_and_longer_than_the_inline_scratch() {
    let mut r = Inputs(16);
    for d in [1, 63, 64, 65, 130] {
        let xs: Vec<Vec<f64>> = (0..3).map(|_| r.vec(d)).collect();
        let w: Vec<f64> = r.vec(d).iter().map(|v| v * 0.1).collect();
        let mut hand = vec![0.0; d];
        for x in &xs {
            let c = 1.0 - plain_dot(&w, x).tanh().powi(2);
            for j in 0..d {
                hand[j] += c * x[j];
            }
        }
        check(
            "long_rows",
            &w,
            |w| long_rows(w, &xs),
            long_rows_grad(&w, &xs),
            |t| long_rows_jvp(&w, &xs, t),
            &hand,
            &mut r,
        );
    }
}

#[test]
fn an_active_matrix_is_flattened_and_gets_its_gradient() {
    let mut r = Inputs(15);
    for _ in 0..20 {
        let xs: Vec<Vec<f64>> = vec![r.vec(2), r.vec(3), r.vec(1)];
        let w = r.vec(3);
        let (value, (gw, gxs)) = active_grad(&w, &xs);
        assert_close(value, active(&w, &xs), ANALYTIC_TOL, "active value");
        let mut hand_w = vec![0.0; 3];
        for (k, x) in xs.iter().enumerate() {
            let c = plain_dot(&w, x).cos();
            for j in 0..x.len() {
                hand_w[j] += c * x[j];
            }
            let row: Vec<f64> = (0..x.len()).map(|j| c * w[j]).collect();
            assert_all_close(&gxs[k], &row, 1e-10, "active matrix gradient by hand");
        }
        assert_all_close(&gw, &hand_w, 1e-10, "active w gradient by hand");
    }
}
