//! An outside test suite written against API.md alone (session 43), by a user writing small real
//! projects: each module is one project of a few functions calling one another (free functions,
//! `Self::` helpers, methods, `super::`/`crate::` paths), in the idioms numeric Rust is written in.
//! Projects: the Thomas algorithm (out of place and in place), a Rauch-Tung-Striebel smoother checked
//! against the posterior of the same model solved densely, the classic optimisation test functions at
//! `order = 2`/`order = 3`, the Lorenz system by RK4 with its sensitivities, optimal control by single
//! shooting, a 2-D convolution over const-generic nested arrays, a conjugate-gradient solve, a
//! Gaussian-mixture EM step, an implied volatility by bisection behind a custom gradient, a
//! Chebyshev fit, quantile regression, a neural ODE, a Poisson-process likelihood with Stirling terms,
//! Gauss-Seidel sweeps with an early exit, and a max-plus (Viterbi) dynamic programme.
//!
//! For each: the value against a plain or independent computation, `_grad` against central
//! differences on seeded points (and by hand where the formula is short), `_grad_into` bit for bit
//! equal to `_grad`, `_vjp` against `_jvp` (`c · (J t) = (c J) · t`) for vector results and
//! outputs, `_jacobian` against differences, and at `order = 2` the Hessian against differences of
//! `_grad` and `_hvp` against the Hessian times `v` (through `common::contract::audit`).

// Index loops and long argument lists are what the projects are written with.
#![allow(
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::too_many_arguments
)]

mod common;

use common::contract::{audit, Items};
use common::{
    arr, assert_all_close, assert_close, check_dual, check_jacobian, dot, points, same_bits, wave,
};

// ---------------------------------------------------------------------------------------------------
// (1) The Thomas algorithm for a tridiagonal system: the solution into an output parameter (its
// `_jacobian` over all four bands), the same solve in place over the right-hand side (an output whose
// incoming value is read), and the compliance `d · A⁻¹ d` at `order = 2`, whose gradient over the
// diagonal is `-x_i²` by hand.

mod thomas {
    use super::*;
    use autodiff::differentiable;

    /// Solves `a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i` (`a[0]` and `c[n-1]` unused).
    #[differentiable]
    pub fn solve(a: &[f64], b: &[f64], c: &[f64], d: &[f64], x: &mut [f64]) {
        let n = d.len();
        let mut cp = vec![0.0; n];
        let mut dp = vec![0.0; n];
        cp[0] = c[0] / b[0];
        dp[0] = d[0] / b[0];
        for i in 1..n {
            let m = b[i] - a[i] * cp[i - 1];
            cp[i] = if i + 1 < n { c[i] / m } else { 0.0 };
            dp[i] = (d[i] - a[i] * dp[i - 1]) / m;
        }
        x[n - 1] = dp[n - 1];
        for i in (0..n - 1).rev() {
            x[i] = dp[i] - cp[i] * x[i + 1];
        }
    }

    /// The same elimination overwriting `d` with the solution and a local copy of `c`.
    #[differentiable]
    pub fn solve_in_place(a: &[f64], b: &[f64], c: &[f64], d: &mut [f64]) {
        let n = d.len();
        let mut cp = c.to_vec();
        cp[0] /= b[0];
        d[0] /= b[0];
        for i in 1..n {
            let m = b[i] - a[i] * cp[i - 1];
            if i + 1 < n {
                cp[i] /= m;
            }
            d[i] = (d[i] - a[i] * d[i - 1]) / m;
        }
        for i in (0..n - 1).rev() {
            d[i] -= cp[i] * d[i + 1];
        }
    }

    /// `d · A⁻¹ d` for the symmetric matrix of diagonal `diag` and off-diagonal `-1`.
    #[differentiable(wrt(diag), order = 2)]
    pub fn compliance(diag: &[f64], load: &[f64]) -> f64 {
        let n = diag.len();
        let off = vec![-1.0; n];
        let mut x = vec![0.0; n];
        solve(&off, diag, &off, load, &mut x);
        x.iter().zip(load).map(|(xi, di)| xi * di).sum::<f64>()
    }

    fn residual(a: &[f64], b: &[f64], c: &[f64], x: &[f64]) -> Vec<f64> {
        let n = x.len();
        (0..n)
            .map(|i| {
                let mut r = b[i] * x[i];
                if i > 0 {
                    r += a[i] * x[i - 1];
                }
                if i + 1 < n {
                    r += c[i] * x[i + 1];
                }
                r
            })
            .collect()
    }

    const N: usize = 5;

    fn bands(p: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
        // Diagonally dominant: |b| > |a| + |c|.
        let a = p[0..N].to_vec();
        let b: Vec<f64> = p[N..2 * N].iter().map(|v| 2.5 + v).collect();
        let c = p[2 * N..3 * N].to_vec();
        let d = p[3 * N..4 * N].to_vec();
        (a, b, c, d)
    }

    #[test]
    fn solve_residual_jacobian_and_duality() {
        for p in points(4301, 4 * N, 12, -1.0, 1.0) {
            let (a, b, c, d) = bands(&p);
            let mut x = vec![0.0; N];
            solve(&a, &b, &c, &d, &mut x);
            assert_all_close(&residual(&a, &b, &c, &x), &d, 1e-12, "A x = d");

            let flat: Vec<f64> = [&a[..], &b[..], &c[..], &d[..]].concat();
            let split = |f: &[f64]| {
                (
                    f[0..N].to_vec(),
                    f[N..2 * N].to_vec(),
                    f[2 * N..3 * N].to_vec(),
                    f[3 * N..4 * N].to_vec(),
                )
            };
            let mut xj = vec![0.0; N];
            let j = solve_jacobian(&a, &b, &c, &d, &mut xj);
            assert_eq!(xj, x, "solve_jacobian writes the solution");
            check_jacobian("thomas::solve", &flat, &j, |f| {
                let (a, b, c, d) = split(f);
                let mut x = vec![0.0; N];
                solve(&a, &b, &c, &d, &mut x);
                x
            });

            let cot = wave(N, 0.3);
            let t = wave(4 * N, 1.1);
            let (ta, tb, tc, td) = split(&t);
            let mut xv = vec![0.0; N];
            let (ga, gb, gc, gd) = solve_vjp(&a, &b, &c, &d, &mut xv, &cot);
            assert_eq!(xv, x);
            let mut jt = vec![0.0; N];
            let mut xt = vec![0.0; N];
            solve_jvp(&a, &b, &c, &d, &mut xt, (ta, tb, tc, td), &mut jt);
            assert_eq!(xt, x);
            let cj: Vec<f64> = [&ga[..], &gb[..], &gc[..], &gd[..]].concat();
            check_dual("thomas::solve", &cot, &jt, &cj, &t);
        }
    }

    #[test]
    fn in_place_matches_out_of_place() {
        for p in points(4302, 4 * N, 12, -1.0, 1.0) {
            let (a, b, c, d) = bands(&p);
            let mut x = vec![0.0; N];
            solve(&a, &b, &c, &d, &mut x);
            let mut y = d.clone();
            solve_in_place(&a, &b, &c, &mut y);
            assert_all_close(&y, &x, 1e-14, "in place");

            let cot = wave(N, -0.4);
            let mut xv = vec![0.0; N];
            let (ga, gb, gc, gd) = solve_vjp(&a, &b, &c, &d, &mut xv, &cot);
            let mut yv = d.clone();
            let (ha, hb, hc, hd) = solve_in_place_vjp(&a, &b, &c, &mut yv, &cot);
            assert_all_close(&yv, &x, 1e-14, "in place _vjp writes the solution");
            assert_all_close(&ha, &ga, 1e-12, "in place: a");
            assert_all_close(&hb, &gb, 1e-12, "in place: b");
            assert_all_close(&hc, &gc, 1e-12, "in place: c");
            assert_all_close(&hd, &gd, 1e-12, "in place: the incoming d");

            let t = wave(4 * N, 0.2);
            let mut yt = d.clone();
            let mut jt = vec![0.0; N];
            solve_in_place_jvp(
                &a,
                &b,
                &c,
                &mut yt,
                (
                    t[0..N].to_vec(),
                    t[N..2 * N].to_vec(),
                    t[2 * N..3 * N].to_vec(),
                    t[3 * N..4 * N].to_vec(),
                ),
                &mut jt,
            );
            let cj: Vec<f64> = [&ha[..], &hb[..], &hc[..], &hd[..]].concat();
            check_dual("thomas::solve_in_place", &cot, &jt, &cj, &t);
        }
    }

    #[test]
    fn compliance_by_hand_and_audit() {
        let load = [1.0, -0.5, 0.25, 0.8, -1.2];
        let pts: Vec<Vec<f64>> = points(4303, N, 10, 2.5, 4.0);
        for diag in &pts {
            let off = vec![-1.0; N];
            let mut x = vec![0.0; N];
            solve(&off, diag, &off, &load, &mut x);
            let (v, g) = compliance_grad(diag, &load);
            assert_close(v, dot(&x, &load), 1e-14, "compliance");
            // d(dᵀA⁻¹d)/dA_ii = -(A⁻¹d)_i².
            let by_hand: Vec<f64> = x.iter().map(|xi| -xi * xi).collect();
            assert_all_close(&g, &by_hand, 1e-12, "compliance by hand");
            let mut buf = vec![f64::NAN; N];
            compliance_grad_into(diag, &load, &mut buf);
            same_bits(&buf, &g, "compliance");
        }
        audit(
            &Items {
                what: "thomas::compliance",
                primal: &|x| compliance(x, &load),
                grad: &|x| compliance_grad(x, &load),
                vjp: &|x, d| compliance_vjp(x, &load, d),
                jvp: &|x, t| compliance_jvp(x, &load, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![f64::NAN; N];
                    let v = compliance_grad_into(x, &load, &mut b);
                    (v, b)
                },
                hvp: Some(&|x, v| compliance_hvp(x, &load, v.to_vec())),
                hessian: Some(&|x| compliance_hessian(x, &load)),
                analytic: None,
            },
            &pts,
        );
    }
}
