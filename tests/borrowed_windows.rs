//! Sub-slices the reverse sweep borrows instead of copying (`views::borrowed_windows`): a matrix's row or
//! `&x[a..b]` of an array nothing writes, lent to a call or read in a loop, is taken again in the reverse
//! sweep rather than stored at each call. Each case checks the value, the gradient by hand (or, for the
//! longer ones, against an independent plain-Rust adjoint) and central differences over seeded random
//! inputs, and `f_jvp` against the gradient; the adversarial ones write the source after the loop, read
//! the window under a branch and in an inner loop, pass the source and its window together, and leave a
//! `while` loop early, where a sub-slice must not be borrowed or must be taken again at the right bounds.

// Index loops are the style under test.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::*;

#[differentiable]
fn squash(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// A callee with `wrt(w)`: a caller that lends it inactive data reaches its own reverse sweep.
#[differentiable(wrt(w))]
fn predict(w: &[f64], x: &[f64]) -> f64 {
    let mut z = 0.0;
    for j in 0..w.len() {
        z += w[j] * x[j];
    }
    squash(z)
}

/// Logistic regression over the rows of a matrix of data: `predict(w, &xs[k])`.
#[differentiable(wrt(w))]
fn logistic(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for k in 0..ys.len() {
        let p = predict(w, &xs[k]);
        loss -= ys[k] * p.ln() + (1.0 - ys[k]) * (1.0 - p).ln();
    }
    loss
}

/// `Σ_j a_j b_j`, both active.
#[differentiable]
fn inner(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..a.len() {
        s += a[j] * b[j];
    }
    s
}

/// Sub-slices of an active parameter lent to a call in a loop: `Σ_k inner(x[k..k+2], w[0..2])²`.
#[differentiable]
fn sliding(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..x.len() - 1 {
        let d = inner(&x[k..k + 2], &w[..2]);
        s += d * d;
    }
    s
}

/// The sub-slice read in a branch and in an inner loop, and its length read: `r = x[k..]`.
#[differentiable]
fn tails(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..x.len() {
        let r = &x[k..];
        if r[0] > 0.0 {
            s += r[0] * r[r.len() - 1];
        } else {
            for j in 0..r.len() {
                s += (r[j] * (k as f64 + 1.0)).sin();
            }
        }
    }
    s
}

/// The array and its sub-slice lent to one call, in a loop.
#[differentiable]
fn with_itself(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 1..x.len() {
        s += inner(&x[..k], &x[x.len() - k..]) * x[k];
    }
    s
}

/// A local array written after the loop that lends its sub-slices: not borrowed (the reverse sweep
/// reads the sub-slices as they were at the calls, before the write).
#[differentiable]
fn written_after(x: &[f64]) -> f64 {
    let mut z = vec![0.0; x.len()];
    for i in 0..x.len() {
        z[i] = x[i] * x[i];
    }
    let mut s = 0.0;
    for k in 0..x.len() - 1 {
        s += inner(&z[k..k + 2], &x[k..k + 2]);
    }
    z[0] = 5.0 * x[1];
    s + z[0] * z[1]
}

/// A local array made by a call and never written, its sub-slices lent in a `while` loop left early.
#[differentiable]
fn squares(x: &[f64]) -> Vec<f64> {
    let mut z = vec![0.0; x.len()];
    for i in 0..x.len() {
        z[i] = x[i] * x[i] + x[i];
    }
    z
}

#[differentiable]
fn early(x: &[f64], limit: f64) -> f64 {
    let z = squares(x);
    let mut s = 0.0;
    let mut k = 0;
    while k + 2 <= z.len() {
        let v = inner(&z[k..k + 2], &x[..2]);
        if s + v > limit {
            break;
        }
        s += v;
        k += 1;
    }
    s
}

/// Rows of an active matrix lent to a call inside a nested loop.
#[differentiable]
fn rows(m: &[Vec<f64>], v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for t in 0..2 {
            s += inner(&m[i], v) * (t as f64 + 1.0) * m[i][0];
        }
    }
    s
}

#[test]
fn logistic_regression_over_the_rows_of_a_matrix() {
    let mut r = Inputs(7);
    for _ in 0..20 {
        let (n, d) = (6, 3);
        let xs: Vec<Vec<f64>> = (0..n).map(|_| r.vec(d)).collect();
        let ys: Vec<f64> = (0..n).map(|i| (i % 2) as f64).collect();
        let w = r.vec(d);
        // By hand: dL/dw = Σ_k (p_k - y_k) x_k.
        let mut hand = vec![0.0; d];
        for k in 0..n {
            let z: f64 = (0..d).map(|j| w[j] * xs[k][j]).sum();
            let p = 1.0 / (1.0 + (-z).exp());
            for j in 0..d {
                hand[j] += (p - ys[k]) * xs[k][j];
            }
        }
        let (value, g) = logistic_grad(&w, &xs, &ys);
        assert_close(
            value,
            logistic(&w, &xs, &ys),
            ANALYTIC_TOL,
            "logistic value",
        );
        assert_all_close(&g, &hand, 1e-10, "logistic gradient by hand");
        assert_fd_gradient(|w| logistic(w, &xs, &ys), &w, &g, "logistic");
        let mut into = vec![9.0; d];
        let v = logistic_grad_into(&w, &xs, &ys, &mut into);
        assert_close(v, value, ANALYTIC_TOL, "grad_into value");
        assert_all_close(&into, &hand, 1e-10, "grad_into gradient");
        let t = r.vec(d);
        let (_, dot_value) = logistic_jvp(&w, &xs, &ys, t.clone());
        assert_dot(dot_value, &g, &t, 1e-10, "logistic jvp");
    }
}

#[test]
fn predict_lent_data_keeps_both_cotangents_when_asked() {
    // A caller that differentiates through the data too: `predict`'s companion derives through `x`.
    #[differentiable]
    fn through_data(w: &[f64], x: &[f64]) -> f64 {
        predict(w, x) * x[0]
    }
    let mut r = Inputs(11);
    for _ in 0..20 {
        let (w, x) = (r.vec(3), r.vec(3));
        let (_, (gw, gx)) = through_data_grad(&w, &x);
        let flat: Vec<f64> = w.iter().chain(&x).copied().collect();
        let g: Vec<f64> = gw.iter().chain(&gx).copied().collect();
        assert_fd_gradient(
            |p| through_data(&p[..3], &p[3..]),
            &flat,
            &g,
            "through_data",
        );
    }
}

#[test]
fn sub_slices_of_active_parameters_lent_to_calls() {
    let mut r = Inputs(3);
    for _ in 0..20 {
        let (x, w) = (r.vec(5), r.vec(3));
        // By hand: d_k = x_k w_0 + x_{k+1} w_1; ∂/∂x_{k+i} += 2 d_k w_i, ∂/∂w_i += 2 d_k x_{k+i}.
        let (mut gx, mut gw) = (vec![0.0; 5], vec![0.0; 3]);
        let mut value = 0.0;
        for k in 0..4 {
            let d = x[k] * w[0] + x[k + 1] * w[1];
            value += d * d;
            for i in 0..2 {
                gx[k + i] += 2.0 * d * w[i];
                gw[i] += 2.0 * d * x[k + i];
            }
        }
        let (v, (ggx, ggw)) = sliding_grad(&x, &w);
        assert_close(v, value, ANALYTIC_TOL, "sliding value");
        assert_all_close(&ggx, &gx, 1e-10, "sliding x gradient by hand");
        assert_all_close(&ggw, &gw, 1e-10, "sliding w gradient by hand");
        let flat: Vec<f64> = x.iter().chain(&w).copied().collect();
        let g: Vec<f64> = ggx.iter().chain(&ggw).copied().collect();
        assert_fd_gradient(|p| sliding(&p[..5], &p[5..]), &flat, &g, "sliding");
    }
}

#[test]
fn sub_slices_read_in_branches_inner_loops_and_with_their_source() {
    let mut r = Inputs(5);
    for _ in 0..30 {
        let x = r.vec(6);
        let (_, g) = tails_grad(&x);
        assert_fd_gradient(tails, &x, &g, "tails");
        let t = r.vec(6);
        assert_dot(tails_jvp(&x, t.clone()).1, &g, &t, 1e-10, "tails jvp");
        let (_, g) = with_itself_grad(&x);
        assert_fd_gradient(with_itself, &x, &g, "with_itself");
        // By hand: Σ_k x_k Σ_{j<k} x_j x_{n-k+j}.
        let n = x.len();
        let mut hand = vec![0.0; n];
        for k in 1..n {
            let d: f64 = (0..k).map(|j| x[j] * x[n - k + j]).sum();
            hand[k] += d;
            for j in 0..k {
                hand[j] += x[k] * x[n - k + j];
                hand[n - k + j] += x[k] * x[j];
            }
        }
        assert_all_close(&g, &hand, 1e-10, "with_itself gradient by hand");
    }
}

#[test]
fn a_source_written_after_the_loop_and_a_while_loop_left_early() {
    let mut r = Inputs(9);
    for _ in 0..30 {
        let x = r.vec(5);
        let (v, g) = written_after_grad(&x);
        assert_close(v, written_after(&x), ANALYTIC_TOL, "written_after value");
        assert_fd_gradient(written_after, &x, &g, "written_after");
        // By hand: Σ_k (x_k³ + x_{k+1}³) + 5 x_1 x_1², so 3x_i² per window covering i, and 15 x_1².
        let mut hand = vec![0.0; 5];
        for k in 0..4 {
            hand[k] += 3.0 * x[k] * x[k];
            hand[k + 1] += 3.0 * x[k + 1] * x[k + 1];
        }
        hand[1] += 15.0 * x[1] * x[1];
        assert_all_close(&g, &hand, 1e-10, "written_after gradient by hand");
        for limit in [-0.5, 0.3, 10.0] {
            let (v, (g, gl)) = early_grad(&x, limit);
            assert_close(v, early(&x, limit), ANALYTIC_TOL, "early value");
            assert_eq!(
                gl, 0.0,
                "early: the limit only decides where the loop stops"
            );
            assert_fd_gradient(|x| early(x, limit), &x, &g, "early");
        }
    }
}

#[test]
fn rows_of_an_active_matrix_lent_in_a_nested_loop() {
    let mut r = Inputs(13);
    for _ in 0..20 {
        let m: Vec<Vec<f64>> = (0..3).map(|_| r.vec(2)).collect();
        let v = r.vec(2);
        // By hand: 3 Σ_i (m_i · v) m_i0.
        let (mut gm, mut gv) = (vec![vec![0.0; 2]; 3], vec![0.0; 2]);
        for i in 0..3 {
            let d = m[i][0] * v[0] + m[i][1] * v[1];
            for j in 0..2 {
                gm[i][j] += 3.0 * m[i][0] * v[j];
                gv[j] += 3.0 * m[i][0] * m[i][j];
            }
            gm[i][0] += 3.0 * d;
        }
        let (_, (ggm, ggv)) = rows_grad(&m, &v);
        for i in 0..3 {
            assert_all_close(&ggm[i], &gm[i], 1e-10, "rows matrix gradient by hand");
        }
        assert_all_close(&ggv, &gv, 1e-10, "rows vector gradient by hand");
        let flat: Vec<f64> = m.iter().flatten().chain(&v).copied().collect();
        let g: Vec<f64> = ggm.iter().flatten().chain(&ggv).copied().collect();
        let unflat = |p: &[f64]| {
            (0..3)
                .map(|i| p[2 * i..2 * i + 2].to_vec())
                .collect::<Vec<_>>()
        };
        assert_fd_gradient(|p| rows(&unflat(p), &p[6..]), &flat, &g, "rows");
    }
}
