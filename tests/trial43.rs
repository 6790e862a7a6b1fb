//! An outside test suite written against API.md alone (session 43), by a user writing small real
//! projects: each module is one project of a few functions calling one another (free functions,
//! `Self::` helpers, methods, `super::`/`crate::` paths), in the idioms numeric Rust is written in.
//! Projects: the Thomas algorithm (out of place and in place), a Rauch-Tung-Striebel smoother checked
//! against the posterior of the same model solved densely, the classic optimisation test functions at
//! `order = 2`/`order = 3`, the Lorenz system by RK4 with its sensitivities, optimal control by single
//! shooting, a 2-D convolution over const-generic nested arrays, a conjugate-gradient solve,
//! Gauss-Seidel sweeps with an early exit, a Gaussian-mixture struct with an EM step, an implied
//! volatility by bisection behind a custom gradient, a Hamiltonian Monte Carlo leapfrog through a
//! custom gradient over arrays, a neural ODE struct, a Poisson-process likelihood with Stirling terms,
//! a max-plus (Viterbi) dynamic programme, a mass-spring cloth, Levenberg-Marquardt through
//! `_jacobian`, Bayesian linear-regression evidence, quantile regression, a Chebyshev series, and
//! great-circle navigation; and two regressions (`rows_passed_on`, `option_local`) of fixes made here.
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

// ---------------------------------------------------------------------------------------------------
// (2) A Rauch-Tung-Striebel smoother for the local-level model: the forward filter stores the
// predictions in local `Vec`s, the backward pass overwrites the two output parameters in place
// (`means[t] += ...` reads what the forward loop wrote). Checked against the posterior of the same model
// computed densely (a tridiagonal precision solved by `super::thomas`), and the fit of the noise
// scales at `order = 2`.

mod rts {
    use super::*;
    use autodiff::differentiable;

    pub const P0: f64 = 4.0;

    /// Filters then smooths `ys`; the smoothed means and variances into `means` and `vars`.
    #[differentiable(wrt(ys, q, r))]
    pub fn smooth(ys: &[f64], q: f64, r: f64, means: &mut [f64], vars: &mut [f64]) {
        let n = ys.len();
        let mut mp = vec![0.0; n];
        let mut pp = vec![0.0; n];
        let mut m = 0.0;
        let mut p = P0;
        for (t, &y) in ys.iter().enumerate() {
            let p_pred = p + q;
            mp[t] = m;
            pp[t] = p_pred;
            let k = p_pred / (p_pred + r);
            m += k * (y - m);
            p = (1.0 - k) * p_pred;
            means[t] = m;
            vars[t] = p;
        }
        for t in (0..n - 1).rev() {
            let g = vars[t] / pp[t + 1];
            means[t] += g * (means[t + 1] - mp[t + 1]);
            vars[t] += g * g * (vars[t + 1] - pp[t + 1]);
        }
    }

    /// A smoothing objective over log noise scales: residuals, roughness and the log variances.
    #[differentiable(wrt(theta), order = 2)]
    pub fn objective(theta: [f64; 2], ys: &[f64]) -> f64 {
        let q = theta[0].exp();
        let r = theta[1].exp();
        let n = ys.len();
        let mut means = vec![0.0; n];
        let mut vars = vec![0.0; n];
        smooth(ys, q, r, &mut means, &mut vars);
        let fit: f64 = ys
            .iter()
            .zip(&means)
            .map(|(y, m)| (y - m).powi(2))
            .sum::<f64>();
        let rough: f64 = means.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
        let spread = vars.iter().map(|v| v.ln()).sum::<f64>();
        fit / r + rough / q + 0.5 * spread
    }

    /// The posterior means and variances by the dense tridiagonal precision.
    fn posterior(ys: &[f64], q: f64, r: f64) -> (Vec<f64>, Vec<f64>) {
        let n = ys.len();
        let mut diag = vec![1.0 / r; n];
        diag[0] += 1.0 / (P0 + q);
        for t in 0..n - 1 {
            diag[t] += 1.0 / q;
            diag[t + 1] += 1.0 / q;
        }
        let off = vec![-1.0 / q; n];
        let rhs: Vec<f64> = ys.iter().map(|y| y / r).collect();
        let mut mean = vec![0.0; n];
        super::thomas::solve(&off, &diag, &off, &rhs, &mut mean);
        let var = (0..n)
            .map(|i| {
                let mut e = vec![0.0; n];
                e[i] = 1.0;
                let mut col = vec![0.0; n];
                super::thomas::solve(&off, &diag, &off, &e, &mut col);
                col[i]
            })
            .collect();
        (mean, var)
    }

    const YS: [f64; 7] = [0.3, 0.9, 0.4, 1.4, 1.1, 1.9, 1.6];

    #[test]
    fn smoother_is_the_posterior() {
        for p in points(4311, 2, 10, 0.1, 2.0) {
            let (q, r) = (p[0], p[1]);
            let mut means = vec![0.0; 7];
            let mut vars = vec![0.0; 7];
            smooth(&YS, q, r, &mut means, &mut vars);
            let (m, v) = posterior(&YS, q, r);
            assert_all_close(&means, &m, 1e-10, "RTS means");
            assert_all_close(&vars, &v, 1e-10, "RTS variances");
        }
    }

    #[test]
    fn smoother_jacobian_and_duality() {
        let n = YS.len();
        for p in points(4312, 2, 10, 0.1, 2.0) {
            let (q, r) = (p[0], p[1]);
            let ys: Vec<f64> = YS
                .iter()
                .zip(wave(n, p[0]))
                .map(|(y, w)| y + 0.2 * w)
                .collect();
            let flat: Vec<f64> = [&ys[..], &[q, r]].concat();
            let cm = wave(n, 0.5);
            let cv = wave(n, -1.3);
            let mut m1 = vec![0.0; n];
            let mut v1 = vec![0.0; n];
            let (gy, gq, gr) = smooth_vjp(&ys, q, r, &mut m1, &mut v1, &cm, &cv);
            let mut m0 = vec![0.0; n];
            let mut v0 = vec![0.0; n];
            smooth(&ys, q, r, &mut m0, &mut v0);
            assert_eq!((&m1, &v1), (&m0, &v0), "_vjp writes the outputs");
            let t = wave(n + 2, 0.8);
            let mut m2 = vec![0.0; n];
            let mut v2 = vec![0.0; n];
            let mut tm = vec![0.0; n];
            let mut tv = vec![0.0; n];
            smooth_jvp(
                &ys,
                q,
                r,
                &mut m2,
                &mut v2,
                (t[..n].to_vec(), t[n], t[n + 1]),
                &mut tm,
                &mut tv,
            );
            let cj: Vec<f64> = [&gy[..], &[gq, gr]].concat();
            let c: Vec<f64> = [&cm[..], &cv[..]].concat();
            let jt: Vec<f64> = [&tm[..], &tv[..]].concat();
            check_dual("rts::smooth", &c, &jt, &cj, &t);
            // Each output against central differences, through the tangent.
            let along = |s: f64| {
                let y: Vec<f64> = flat.iter().zip(&t).map(|(a, b)| a + s * b).collect();
                let mut m = vec![0.0; n];
                let mut v = vec![0.0; n];
                smooth(&y[..n], y[n], y[n + 1], &mut m, &mut v);
                [m, v].concat()
            };
            let h = 1e-6;
            let (up, down) = (along(h), along(-h));
            let fd: Vec<f64> = up
                .iter()
                .zip(&down)
                .map(|(a, b)| (a - b) / (2.0 * h))
                .collect();
            assert_all_close(&jt, &fd, 1e-6, "rts::smooth _jvp against differences");
        }
    }

    #[test]
    fn objective_audit() {
        let pts = points(4313, 2, 10, -1.0, 0.7);
        for p in &pts {
            let (_, g) = objective_grad(arr(p), &YS);
            let mut b = [f64::NAN; 2];
            objective_grad_into(arr(p), &YS, &mut b);
            same_bits(&b, &g, "rts::objective");
        }
        audit(
            &Items {
                what: "rts::objective",
                primal: &|x| objective(arr(x), &YS),
                grad: &|x| {
                    let (v, g) = objective_grad(arr(x), &YS);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = objective_vjp(arr(x), &YS, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| objective_jvp(arr(x), &YS, arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 2];
                    let v = objective_grad_into(arr(x), &YS, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = objective_hvp(arr(x), &YS, arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = objective_hessian(arr(x), &YS);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) The optimisation test functions at `order = 2`, with their Hessians by hand: Beale over an
// array, Booth and Himmelblau over two scalars, Styblinski-Tang generic over `&[f64; N]` (const
// generics) through an iterator chain, and its one-dimensional slice at `order = 3` through a call.

mod test_functions {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn beale(p: [f64; 2]) -> f64 {
        let [x, y] = p;
        let terms = [1.5, 2.25, 2.625];
        let mut total = 0.0;
        let mut ypow = 1.0;
        for c in terms {
            ypow *= y;
            total += (c - x + x * ypow).powi(2);
        }
        total
    }

    #[differentiable(order = 2)]
    pub fn booth(x: f64, y: f64) -> f64 {
        (x + 2.0 * y - 7.0).powi(2) + (2.0 * x + y - 5.0).powi(2)
    }

    #[differentiable(order = 2)]
    pub fn himmelblau(x: f64, y: f64) -> f64 {
        let a = x.mul_add(x, y) - 11.0;
        let b = y.mul_add(y, x) - 7.0;
        a * a + b * b
    }

    #[differentiable(order = 2)]
    pub fn styblinski_tang<const N: usize>(x: &[f64; N]) -> f64 {
        x.iter()
            .map(|&v| v.powi(4) - 16.0 * v * v + 5.0 * v)
            .sum::<f64>()
            / 2.0
    }

    #[differentiable(order = 3)]
    pub fn styblinski_1d(x: f64) -> f64 {
        styblinski_tang(&[x])
    }

    fn beale_hessian_by_hand(x: f64, y: f64) -> [[f64; 2]; 2] {
        let c = [1.5, 2.25, 2.625];
        let mut h = [[0.0; 2]; 2];
        for (k, ck) in c.iter().enumerate() {
            let n = (k + 1) as i32;
            let r = ck - x + x * y.powi(n);
            let rx = y.powi(n) - 1.0;
            let ry = n as f64 * x * y.powi(n - 1);
            let rxy = n as f64 * y.powi(n - 1);
            let ryy = if n >= 2 {
                (n * (n - 1)) as f64 * x * y.powi(n - 2)
            } else {
                0.0
            };
            h[0][0] += 2.0 * rx * rx;
            h[0][1] += 2.0 * (rx * ry + r * rxy);
            h[1][1] += 2.0 * (ry * ry + r * ryy);
        }
        h[1][0] = h[0][1];
        h
    }

    #[test]
    fn hessians_by_hand() {
        for p in points(4321, 2, 12, -3.0, 3.0) {
            let (x, y) = (p[0], p[1]);
            let (_, _, h) = beale_hessian(arr(&p));
            let hb = beale_hessian_by_hand(x, y);
            for i in 0..2 {
                assert_all_close(&h[i], &hb[i], 1e-12, "beale Hessian");
            }
            let (v, g, h) = booth_hessian(x, y);
            assert_eq!(v, booth(x, y));
            assert_close(g.0, 10.0 * x + 8.0 * y - 34.0, 1e-12, "booth d/dx");
            assert_close(g.1, 8.0 * x + 10.0 * y - 38.0, 1e-12, "booth d/dy");
            assert_eq!(h, vec![vec![10.0, 8.0], vec![8.0, 10.0]], "booth Hessian");
            let (_, _, h) = himmelblau_hessian(x, y);
            let hh = [
                [12.0 * x * x + 4.0 * y - 42.0, 4.0 * (x + y)],
                [4.0 * (x + y), 12.0 * y * y + 4.0 * x - 26.0],
            ];
            for i in 0..2 {
                assert_all_close(&h[i], &hh[i], 1e-12, "himmelblau Hessian");
            }
        }
        for p in points(4322, 4, 12, -4.0, 4.0) {
            let x: [f64; 4] = arr(&p);
            let (v, g, h) = styblinski_tang_hessian(&x);
            assert_close(
                v,
                p.iter()
                    .map(|v| v.powi(4) - 16.0 * v * v + 5.0 * v)
                    .sum::<f64>()
                    / 2.0,
                1e-14,
                "styblinski value",
            );
            for i in 0..4 {
                assert_close(
                    g[i],
                    2.0 * x[i].powi(3) - 16.0 * x[i] + 2.5,
                    1e-12,
                    "st grad",
                );
                for j in 0..4 {
                    let e = if i == j {
                        6.0 * x[i] * x[i] - 16.0
                    } else {
                        0.0
                    };
                    assert_close(h[i][j], e, 1e-12, "st Hessian");
                }
            }
            let d = styblinski_1d_derivatives(p[0]);
            let x = p[0];
            let by_hand = [
                (x.powi(4) - 16.0 * x * x + 5.0 * x) / 2.0,
                2.0 * x.powi(3) - 16.0 * x + 2.5,
                6.0 * x * x - 16.0,
                12.0 * x,
            ];
            assert_all_close(&d, &by_hand, 1e-12, "styblinski_1d_derivatives");
            assert_eq!(d[0], styblinski_1d(x));
        }
    }

    #[test]
    fn audits() {
        let pts = points(4323, 2, 10, -3.0, 3.0);
        audit(
            &Items {
                what: "beale",
                primal: &|x| beale(arr(x)),
                grad: &|x| {
                    let (v, g) = beale_grad(arr(x));
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = beale_vjp(arr(x), d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| beale_jvp(arr(x), arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 2];
                    let v = beale_grad_into(arr(x), &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = beale_hvp(arr(x), arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = beale_hessian(arr(x));
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
        audit(
            &Items {
                what: "himmelblau",
                primal: &|x| himmelblau(x[0], x[1]),
                grad: &|x| {
                    let (v, g) = himmelblau_grad(x[0], x[1]);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = himmelblau_vjp(x[0], x[1], d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| himmelblau_jvp(x[0], x[1], (t[0], t[1])),
                grad_into: &|x| {
                    let (mut a, mut b) = (f64::NAN, f64::NAN);
                    let v = himmelblau_grad_into(x[0], x[1], (&mut a, &mut b));
                    (v, vec![a, b])
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = himmelblau_hvp(x[0], x[1], (v[0], v[1]));
                    (f, vec![g.0, g.1], vec![hv.0, hv.1])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = himmelblau_hessian(x[0], x[1]);
                    (f, vec![g.0, g.1], h)
                }),
                analytic: Some(&|x| {
                    let (a, b) = (x[0] * x[0] + x[1] - 11.0, x[1] * x[1] + x[0] - 7.0);
                    vec![4.0 * x[0] * a + 2.0 * b, 2.0 * a + 4.0 * x[1] * b]
                }),
            },
            &pts,
        );
        let pts4 = points(4324, 3, 10, -4.0, 4.0);
        audit(
            &Items {
                what: "styblinski_tang::<3>",
                primal: &|x| styblinski_tang(&arr::<3>(x)),
                grad: &|x| {
                    let (v, g) = styblinski_tang_grad(&arr::<3>(x));
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = styblinski_tang_vjp(&arr::<3>(x), d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| styblinski_tang_jvp(&arr::<3>(x), arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 3];
                    let v = styblinski_tang_grad_into(&arr::<3>(x), &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = styblinski_tang_hvp(&arr::<3>(x), arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = styblinski_tang_hessian(&arr::<3>(x));
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts4,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) The Lorenz system by RK4 over `[f64; 3]` states: helpers returning arrays (`field`, `axpy` with
// `mul_add`), a state overwritten each step, the sensitivities of the flow by `_jvp` against
// differences and its `_jacobian`, and a parameter mismatch at `order = 2`.

mod lorenz {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn field(s: [f64; 3], p: [f64; 3]) -> [f64; 3] {
        let [x, y, z] = s;
        [p[0] * (y - x), x * (p[1] - z) - y, x * y - p[2] * z]
    }

    #[differentiable]
    pub fn axpy(a: f64, x: [f64; 3], y: [f64; 3]) -> [f64; 3] {
        let mut out = y;
        for i in 0..3 {
            out[i] = a.mul_add(x[i], out[i]);
        }
        out
    }

    #[differentiable]
    pub fn rk4(s: [f64; 3], p: [f64; 3], h: f64) -> [f64; 3] {
        let k1 = field(s, p);
        let k2 = field(axpy(0.5 * h, k1, s), p);
        let k3 = field(axpy(0.5 * h, k2, s), p);
        let k4 = field(axpy(h, k3, s), p);
        let mut next = s;
        for i in 0..3 {
            next[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        next
    }

    #[differentiable(wrt(s0, p))]
    pub fn flow(s0: [f64; 3], p: [f64; 3], h: f64, steps: usize) -> [f64; 3] {
        let mut s = s0;
        for _ in 0..steps {
            s = rk4(s, p, h);
        }
        s
    }

    #[differentiable(wrt(p), order = 2)]
    pub fn mismatch(p: [f64; 3], s0: [f64; 3], target: &[f64; 3], h: f64, steps: usize) -> f64 {
        let s = flow(s0, p, h, steps);
        s.iter()
            .zip(target.iter())
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
    }

    fn rk4_reference(s: [f64; 3], p: [f64; 3], h: f64) -> [f64; 3] {
        let f = |s: [f64; 3]| {
            [
                p[0] * (s[1] - s[0]),
                s[0] * (p[1] - s[2]) - s[1],
                s[0] * s[1] - p[2] * s[2],
            ]
        };
        let add =
            |a: [f64; 3], b: [f64; 3], c: f64| [a[0] + c * b[0], a[1] + c * b[1], a[2] + c * b[2]];
        let k1 = f(s);
        let k2 = f(add(s, k1, h / 2.0));
        let k3 = f(add(s, k2, h / 2.0));
        let k4 = f(add(s, k3, h));
        let mut out = s;
        for i in 0..3 {
            out[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
        out
    }

    const P: [f64; 3] = [10.0, 28.0, 8.0 / 3.0];

    #[test]
    fn flow_sensitivities() {
        let (h, steps) = (0.01, 25);
        for q in points(4331, 6, 10, -1.0, 1.0) {
            let s0 = [1.0 + q[0], 1.0 + q[1], 20.0 + q[2]];
            let p = [P[0] + q[3], P[1] + q[4], P[2] + 0.5 * q[5]];
            let mut s = s0;
            for _ in 0..steps {
                s = rk4_reference(s, p, h);
            }
            let f = flow(s0, p, h, steps);
            assert_all_close(&f, &s, 1e-12, "flow against the reference");

            let flat: Vec<f64> = [&s0[..], &p[..]].concat();
            let j = flow_jacobian(s0, p, h, steps);
            check_jacobian("lorenz::flow", &flat, &j, |x| {
                flow(arr(&x[..3]), arr(&x[3..]), h, steps).to_vec()
            });
            let t = wave(6, 0.4);
            let (v, jt) = flow_jvp(s0, p, h, steps, (arr(&t[..3]), arr(&t[3..])));
            assert_eq!(v, f);
            let c = wave(3, 2.0);
            let (v, (gs, gp)) = flow_vjp(s0, p, h, steps, arr(&c));
            assert_eq!(v, f);
            check_dual("lorenz::flow", &c, &jt, &[&gs[..], &gp[..]].concat(), &t);
            // J t from the Jacobian's rows.
            let by_rows: Vec<f64> = j.iter().map(|row| dot(row, &t)).collect();
            assert_all_close(&jt, &by_rows, 1e-10, "flow _jvp against the _jacobian");
        }
    }

    #[test]
    fn mismatch_audit() {
        let (h, steps) = (0.01, 20);
        let s0 = [1.0, 1.5, 20.0];
        let target = flow(s0, P, h, steps);
        let pts: Vec<Vec<f64>> = points(4332, 3, 10, -0.5, 0.5)
            .into_iter()
            .map(|q| vec![P[0] + q[0], P[1] + q[1], P[2] + q[2]])
            .collect();
        for p in &pts {
            let (_, g) = mismatch_grad(arr(p), s0, &target, h, steps);
            let mut b = [f64::NAN; 3];
            mismatch_grad_into(arr(p), s0, &target, h, steps, &mut b);
            same_bits(&b, &g, "lorenz::mismatch");
        }
        let (v, g) = mismatch_grad(P, s0, &target, h, steps);
        assert_eq!(v, 0.0);
        assert_eq!(g, [0.0; 3], "zero at the true parameters");
        audit(
            &Items {
                what: "lorenz::mismatch",
                primal: &|x| mismatch(arr(x), s0, &target, h, steps),
                grad: &|x| {
                    let (v, g) = mismatch_grad(arr(x), s0, &target, h, steps);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = mismatch_vjp(arr(x), s0, &target, h, steps, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| mismatch_jvp(arr(x), s0, &target, h, steps, arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 3];
                    let v = mismatch_grad_into(arr(x), s0, &target, h, steps, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = mismatch_hvp(arr(x), s0, &target, h, steps, arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, hm) = mismatch_hessian(arr(x), s0, &target, h, steps);
                    (f, g.to_vec(), hm)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) Optimal control by single shooting: a damped pendulum driven by the controls `u: &[f64]`, Euler
// steps writing the trajectory into two output parameters, causality of their Jacobian (the state
// after step k does not depend on later controls, exactly), the cost at `order = 2`, and a few
// gradient steps that lower it.

mod shooting {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn dynamics(x: f64, v: f64, u: f64, damping: f64) -> (f64, f64) {
        (v, u - damping * v - x.sin())
    }

    #[differentiable(wrt(u))]
    pub fn trajectory(u: &[f64], x0: f64, dt: f64, xs: &mut [f64], vs: &mut [f64]) {
        let (mut x, mut v) = (x0, 0.0);
        for (k, &uk) in u.iter().enumerate() {
            let (dx, dv) = dynamics(x, v, uk, 0.1);
            x += dt * dx;
            v += dt * dv;
            xs[k] = x;
            vs[k] = v;
        }
    }

    #[differentiable(wrt(u), order = 2)]
    pub fn cost(u: &[f64], x0: f64, target: f64, dt: f64) -> f64 {
        let n = u.len();
        let mut xs = vec![0.0; n];
        let mut vs = vec![0.0; n];
        trajectory(u, x0, dt, &mut xs, &mut vs);
        let effort = u.iter().map(|uk| uk * uk).sum::<f64>();
        (xs[n - 1] - target).powi(2) + vs[n - 1].powi(2) + 1e-2 * dt * effort
    }

    const N: usize = 8;

    #[test]
    fn trajectory_is_causal_and_dual() {
        for u in points(4341, N, 10, -2.0, 2.0) {
            let (x0, dt) = (0.3, 0.2);
            for k in 0..N {
                let mut cx = vec![0.0; N];
                cx[k] = 1.0;
                let (mut xs, mut vs) = (vec![0.0; N], vec![0.0; N]);
                let gx = trajectory_vjp(&u, x0, dt, &mut xs, &mut vs, &cx, &[0.0; N]);
                let gv = trajectory_vjp(&u, x0, dt, &mut xs, &mut vs, &[0.0; N], &cx);
                for j in k..N {
                    assert_eq!(gx[j], 0.0, "x_{k} does not depend on u_{j}");
                    if j > k {
                        assert_eq!(gv[j], 0.0, "v_{k} does not depend on u_{j}");
                    }
                }
                // v after step k moves by dt with u_k.
                assert_close(gv[k], dt, 1e-15, "dv_k/du_k");
            }
            let (cx, cv) = (wave(N, 0.1), wave(N, 1.7));
            let (mut xs, mut vs) = (vec![0.0; N], vec![0.0; N]);
            let g = trajectory_vjp(&u, x0, dt, &mut xs, &mut vs, &cx, &cv);
            let t = wave(N, -0.6);
            let (mut tx, mut tv) = (vec![0.0; N], vec![0.0; N]);
            let (mut xs2, mut vs2) = (vec![0.0; N], vec![0.0; N]);
            trajectory_jvp(&u, x0, dt, &mut xs2, &mut vs2, t.clone(), &mut tx, &mut tv);
            assert_eq!((&xs, &vs), (&xs2, &vs2));
            check_dual(
                "shooting::trajectory",
                &[&cx[..], &cv[..]].concat(),
                &[&tx[..], &tv[..]].concat(),
                &g,
                &t,
            );
        }
    }

    #[test]
    fn cost_audit_and_descent() {
        let (x0, target, dt) = (0.0, 1.0, 0.25);
        let pts = points(4342, N, 10, -1.5, 1.5);
        for u in &pts {
            let (_, g) = cost_grad(u, x0, target, dt);
            let mut b = vec![f64::NAN; N];
            cost_grad_into(u, x0, target, dt, &mut b);
            same_bits(&b, &g, "shooting::cost");
        }
        audit(
            &Items {
                what: "shooting::cost",
                primal: &|u| cost(u, x0, target, dt),
                grad: &|u| cost_grad(u, x0, target, dt),
                vjp: &|u, d| cost_vjp(u, x0, target, dt, d),
                jvp: &|u, t| cost_jvp(u, x0, target, dt, t.to_vec()),
                grad_into: &|u| {
                    let mut b = vec![f64::NAN; N];
                    let v = cost_grad_into(u, x0, target, dt, &mut b);
                    (v, b)
                },
                hvp: Some(&|u, v| cost_hvp(u, x0, target, dt, v.to_vec())),
                hessian: Some(&|u| cost_hessian(u, x0, target, dt)),
                analytic: None,
            },
            &pts,
        );
        // Newton-free descent: a fixed step lowers the cost.
        let mut u = vec![0.0; N];
        let start = cost(&u, x0, target, dt);
        let mut g = vec![0.0; N];
        for _ in 0..200 {
            cost_grad_into(&u, x0, target, dt, &mut g);
            for (uk, gk) in u.iter_mut().zip(&g) {
                *uk -= 0.5 * gk;
            }
        }
        let end = cost(&u, x0, target, dt);
        assert!(end < 0.05 * start, "descent: {start} -> {end}");
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) A 2-D convolution over const-generic nested arrays `[[f64; W]; H]`: the valid correlation into
// an output parameter (its `_jacobian`, rows the pixels of the map, columns the image then the kernel
// row-major), and a pooled `tanh` feature at `order = 2` over image, kernel and bias.

mod conv2d {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn correlate<const H: usize, const W: usize>(
        img: [[f64; W]; H],
        k: [[f64; 3]; 3],
        out: &mut [f64],
    ) {
        let mut idx = 0;
        for i in 0..H - 2 {
            for j in 0..W - 2 {
                let mut acc = 0.0;
                for di in 0..3 {
                    for dj in 0..3 {
                        acc += k[di][dj] * img[i + di][j + dj];
                    }
                }
                out[idx] = acc;
                idx += 1;
            }
        }
    }

    #[differentiable(order = 2)]
    pub fn feature<const H: usize, const W: usize>(
        img: [[f64; W]; H],
        k: [[f64; 3]; 3],
        bias: f64,
    ) -> f64 {
        let mut maps = vec![0.0; (H - 2) * (W - 2)];
        correlate(img, k, &mut maps);
        let act: f64 = maps.iter().map(|&m| (m + bias).tanh()).sum();
        act / maps.len() as f64
    }

    fn nested<const M: usize, const N: usize>(flat: &[f64]) -> [[f64; M]; N] {
        common::contract::nested(flat)
    }

    #[test]
    fn correlate_against_differences() {
        for p in points(4351, 4 * 5 + 9, 10, -1.0, 1.0) {
            let img: [[f64; 5]; 4] = nested(&p[..20]);
            let k: [[f64; 3]; 3] = nested(&p[20..]);
            let mut out = vec![0.0; 6];
            correlate(img, k, &mut out);
            // By hand at the map's pixel (1, 2).
            let mut acc = 0.0;
            for a in 0..3 {
                for b in 0..3 {
                    acc += k[a][b] * img[1 + a][2 + b];
                }
            }
            assert_close(out[5], acc, 1e-15, "correlate pixel (1, 2)");
            let mut o2 = vec![0.0; 6];
            let j = correlate_jacobian(img, k, &mut o2);
            assert_eq!(j.len(), 6);
            assert_eq!(j[0].len(), 29);
            check_jacobian("conv2d::correlate", &p, &j, |x| {
                let mut o = vec![0.0; 6];
                correlate::<4, 5>(nested(&x[..20]), nested(&x[20..]), &mut o);
                o
            });
            // The column of k[0][0] for the pixel (0, 0) is img[0][0].
            assert_eq!(j[0][20], img[0][0]);
            let c = wave(6, 0.9);
            let mut o3 = vec![0.0; 6];
            let (gi, gk) = correlate_vjp(img, k, &mut o3, &c);
            let t = wave(29, -0.2);
            let mut o4 = vec![0.0; 6];
            let mut jt = vec![0.0; 6];
            correlate_jvp(
                img,
                k,
                &mut o4,
                (nested(&t[..20]), nested(&t[20..])),
                &mut jt,
            );
            let cj: Vec<f64> = gi
                .iter()
                .flatten()
                .chain(gk.iter().flatten())
                .copied()
                .collect();
            check_dual("conv2d::correlate", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn feature_audit() {
        let pts = points(4352, 20 + 9 + 1, 10, -1.0, 1.0);
        let split = |x: &[f64]| -> ([[f64; 5]; 4], [[f64; 3]; 3], f64) {
            (nested(&x[..20]), nested(&x[20..29]), x[29])
        };
        let flat = |gi: [[f64; 5]; 4], gk: [[f64; 3]; 3], gb: f64| -> Vec<f64> {
            let mut v: Vec<f64> = gi
                .iter()
                .flatten()
                .chain(gk.iter().flatten())
                .copied()
                .collect();
            v.push(gb);
            v
        };
        for x in &pts {
            let (i, k, b) = split(x);
            let (_, (gi, gk, gb)) = feature_grad(i, k, b);
            let mut bi = [[f64::NAN; 5]; 4];
            let mut bk = [[f64::NAN; 3]; 3];
            let mut bb = f64::NAN;
            feature_grad_into(i, k, b, (&mut bi, &mut bk, &mut bb));
            same_bits(&flat(bi, bk, bb), &flat(gi, gk, gb), "conv2d::feature");
        }
        audit(
            &Items {
                what: "conv2d::feature",
                primal: &|x| {
                    let (i, k, b) = split(x);
                    feature(i, k, b)
                },
                grad: &|x| {
                    let (i, k, b) = split(x);
                    let (v, (gi, gk, gb)) = feature_grad(i, k, b);
                    (v, flat(gi, gk, gb))
                },
                vjp: &|x, d| {
                    let (i, k, b) = split(x);
                    let (v, (gi, gk, gb)) = feature_vjp(i, k, b, d);
                    (v, flat(gi, gk, gb))
                },
                jvp: &|x, t| {
                    let (i, k, b) = split(x);
                    feature_jvp(i, k, b, split(t))
                },
                grad_into: &|x| {
                    let (i, k, b) = split(x);
                    let mut bi = [[f64::NAN; 5]; 4];
                    let mut bk = [[f64::NAN; 3]; 3];
                    let mut bb = f64::NAN;
                    let v = feature_grad_into(i, k, b, (&mut bi, &mut bk, &mut bb));
                    (v, flat(bi, bk, bb))
                },
                hvp: Some(&|x, w| {
                    let (i, k, b) = split(x);
                    let (v, (gi, gk, gb), (hi, hk, hb)) = feature_hvp(i, k, b, split(w));
                    (v, flat(gi, gk, gb), flat(hi, hk, hb))
                }),
                hessian: Some(&|x| {
                    let (i, k, b) = split(x);
                    let (v, (gi, gk, gb), h) = feature_hessian(i, k, b);
                    (v, flat(gi, gk, gb), h)
                }),
                analytic: None,
            },
            &pts[..4],
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) Conjugate gradients on a symmetric positive definite `&[Vec<f64>]`: a `matvec` helper into an
// output, residual and direction vectors updated in place, a tolerance `break`; its `_jacobian` over
// the matrix and the right-hand side, and the energy `½ bᵀA⁻¹b` at `order = 2` over `b` alone
// (`wrt(b)`, the matrix a constant) whose gradient is `A⁻¹b` and Hessian `A⁻¹`.

mod cg {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn inner(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>()
    }

    #[differentiable]
    pub fn matvec(a: &[Vec<f64>], x: &[f64], y: &mut [f64]) {
        for (yi, row) in y.iter_mut().zip(a) {
            *yi = inner(row, x);
        }
    }

    #[differentiable]
    pub fn solve(a: &[Vec<f64>], b: &[f64], max_iter: usize, x: &mut [f64]) {
        let n = b.len();
        for i in 0..n {
            x[i] = 0.0;
        }
        let mut r = b.to_vec();
        let mut p = b.to_vec();
        let mut ap = vec![0.0; n];
        let mut rr = inner(&r, &r);
        let stop = 1e-28 * rr;
        let mut k = 0;
        while k < max_iter && rr > stop {
            matvec(a, &p, &mut ap);
            let alpha = rr / inner(&p, &ap);
            for i in 0..n {
                x[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
            }
            let rr_new = inner(&r, &r);
            if rr_new <= stop {
                break;
            }
            let beta = rr_new / rr;
            for i in 0..n {
                p[i] = r[i] + beta * p[i];
            }
            rr = rr_new;
            k += 1;
        }
    }

    #[differentiable(wrt(b), order = 2)]
    pub fn energy(b: &[f64], a: &[Vec<f64>]) -> f64 {
        let mut x = vec![0.0; b.len()];
        solve(a, b, b.len(), &mut x);
        0.5 * inner(&x, b)
    }

    const N: usize = 4;

    fn spd(p: &[f64]) -> Vec<Vec<f64>> {
        // BᵀB + 2I for B from the point.
        let b: Vec<&[f64]> = p.chunks_exact(N).collect();
        (0..N)
            .map(|i| {
                (0..N)
                    .map(|j| {
                        let s: f64 = (0..N).map(|k| b[k][i] * b[k][j]).sum();
                        s + if i == j { 2.0 } else { 0.0 }
                    })
                    .collect()
            })
            .collect()
    }

    fn inverse(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
        // Gauss-Jordan on the augmented matrix; SPD so no pivoting.
        let n = a.len();
        let mut m: Vec<Vec<f64>> = a
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let mut r = row.clone();
                r.extend((0..n).map(|j| if i == j { 1.0 } else { 0.0 }));
                r
            })
            .collect();
        for c in 0..n {
            let piv = m[c][c];
            for v in m[c].iter_mut() {
                *v /= piv;
            }
            for r in 0..n {
                if r != c {
                    let f = m[r][c];
                    let pivot_row = m[c].clone();
                    for (v, pv) in m[r].iter_mut().zip(&pivot_row) {
                        *v -= f * pv;
                    }
                }
            }
        }
        m.into_iter().map(|r| r[n..].to_vec()).collect()
    }

    #[test]
    fn solve_against_differences() {
        for p in points(4361, N * N + N, 10, -1.0, 1.0) {
            let a = spd(&p[..N * N]);
            let b = p[N * N..].to_vec();
            let mut x = vec![0.0; N];
            solve(&a, &b, 2 * N, &mut x);
            let inv = inverse(&a);
            let exact: Vec<f64> = inv.iter().map(|row| common::dot(row, &b)).collect();
            assert_all_close(&x, &exact, 1e-9, "CG solution");
            // Columns: the matrix, b, then the incoming x (see below).
            let flat: Vec<f64> = a
                .iter()
                .flatten()
                .chain(&b)
                .chain(&[0.0; N])
                .copied()
                .collect();
            let mut xj = vec![0.0; N];
            let j = solve_jacobian(&a, &b, N, &mut xj);
            check_jacobian("cg::solve", &flat, &j, |f| {
                let a: Vec<Vec<f64>> = f[..N * N].chunks(N).map(<[f64]>::to_vec).collect();
                let mut x = f[N * N + N..].to_vec();
                solve(&a, &f[N * N..N * N + N], N, &mut x);
                x
            });
            // The columns over b are A⁻¹.
            for i in 0..N {
                assert_all_close(&j[i][N * N..N * N + N], &inv[i], 1e-8, "dx/db = A⁻¹");
            }
            let c = wave(N, 0.7);
            let mut xv = vec![0.0; N];
            // `x` is zeroed by a loop before it is read, but the macro counts its incoming value as an
            // input (the loop's coverage is not analysed): its cotangent must then be exactly zero.
            let (ga, gb, gx) = solve_vjp(&a, &b, N, &mut xv, &c);
            assert_eq!(gx, vec![0.0; N], "the incoming x is overwritten");
            let t = wave(N * N + N, 0.1);
            let ta: Vec<Vec<f64>> = t[..N * N].chunks(N).map(<[f64]>::to_vec).collect();
            let mut xt = vec![0.0; N];
            let mut jt = vec![0.0; N];
            solve_jvp(
                &a,
                &b,
                N,
                &mut xt,
                (ta, t[N * N..].to_vec(), vec![0.0; N]),
                &mut jt,
            );
            let cj: Vec<f64> = ga.iter().flatten().chain(&gb).copied().collect();
            check_dual("cg::solve", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn energy_gradient_is_the_solution() {
        let a = spd(&wave(N * N, 0.3));
        let inv = inverse(&a);
        let pts = points(4362, N, 10, -2.0, 2.0);
        for b in &pts {
            let (v, g) = energy_grad(b, &a);
            let x: Vec<f64> = inv.iter().map(|row| common::dot(row, b)).collect();
            assert_close(v, 0.5 * common::dot(&x, b), 1e-10, "energy");
            assert_all_close(&g, &x, 1e-9, "energy gradient A⁻¹b");
            let (_, _, h) = energy_hessian(b, &a);
            for i in 0..N {
                assert_all_close(&h[i], &inv[i], 1e-8, "energy Hessian A⁻¹");
            }
            let mut buf = vec![f64::NAN; N];
            energy_grad_into(b, &a, &mut buf);
            same_bits(&buf, &g, "cg::energy");
        }
        audit(
            &Items {
                what: "cg::energy",
                primal: &|b| energy(b, &a),
                grad: &|b| energy_grad(b, &a),
                vjp: &|b, d| energy_vjp(b, &a, d),
                jvp: &|b, t| energy_jvp(b, &a, t.to_vec()),
                grad_into: &|b| {
                    let mut buf = vec![f64::NAN; N];
                    let v = energy_grad_into(b, &a, &mut buf);
                    (v, buf)
                },
                hvp: Some(&|b, v| energy_hvp(b, &a, v.to_vec())),
                hessian: Some(&|b| energy_hessian(b, &a)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) Gauss-Seidel sweeps over a 1-D Poisson problem in place: `while` with a compound condition,
// `continue` on the pinned boundary, a `break` on the update norm; the result's `_jacobian` over the
// source against differences, and a least-squares inversion at `order = 2`.

mod gauss_seidel {
    use super::*;
    use autodiff::differentiable;

    /// Sweeps `-u_{i-1} + (2 + κ) u_i - u_{i+1} = f_i` with `u_0`, `u_{n-1}` held.
    #[differentiable(wrt(f, kappa, u))]
    pub fn relax(f: &[f64], kappa: f64, sweeps: usize, u: &mut [f64]) {
        let n = u.len();
        let mut sweep = 0;
        let mut change = f64::INFINITY;
        while sweep < sweeps && change > 1e-300 {
            change = 0.0;
            for i in 0..n {
                if i == 0 || i == n - 1 {
                    continue;
                }
                let new = (f[i] + u[i - 1] + u[i + 1]) / (2.0 + kappa);
                change += (new - u[i]).abs();
                u[i] = new;
            }
            sweep += 1;
        }
    }

    #[differentiable(wrt(f), order = 2)]
    pub fn misfit(f: &[f64], kappa: f64, observed: &[f64]) -> f64 {
        let mut u = vec![0.0; observed.len()];
        relax(f, kappa, 30, &mut u);
        let data: f64 = u.iter().zip(observed).map(|(a, b)| (a - b).powi(2)).sum();
        let smooth: f64 = f.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
        data + 1e-2 * smooth
    }

    const N: usize = 6;

    fn plain(f: &[f64], kappa: f64, sweeps: usize, u: &mut [f64]) {
        for _ in 0..sweeps {
            for i in 1..u.len() - 1 {
                u[i] = (f[i] + u[i - 1] + u[i + 1]) / (2.0 + kappa);
            }
        }
    }

    #[test]
    fn relax_jacobian_and_in_out() {
        for p in points(4371, N + 1, 10, -1.0, 1.0) {
            let f = p[..N].to_vec();
            let kappa = 0.5 + p[N].abs();
            let u0: Vec<f64> = wave(N, p[0]);
            let mut u = u0.clone();
            relax(&f, kappa, 12, &mut u);
            let mut w = u0.clone();
            plain(&f, kappa, 12, &mut w);
            assert_all_close(&u, &w, 1e-14, "relax value");
            // u's incoming value is read: it is an input too, so G is (f, kappa, u).
            let c = wave(N, 0.25);
            let mut uv = u0.clone();
            let (gf, gk, gu) = relax_vjp(&f, kappa, 12, &mut uv, &c);
            assert_all_close(&uv, &u, 0.0, "_vjp writes u");
            // The pinned boundary is its incoming value: a cotangent on it alone passes straight through.
            let mut e0 = vec![0.0; N];
            e0[0] = 1.0;
            let mut ub = u0.clone();
            let (bf, bk, bu) = relax_vjp(&f, kappa, 12, &mut ub, &e0);
            assert_eq!((bf, bk, bu), (vec![0.0; N], 0.0, e0), "the pinned boundary");
            let t = wave(2 * N + 1, 1.3);
            let mut ut = u0.clone();
            let mut jt = vec![0.0; N];
            relax_jvp(
                &f,
                kappa,
                12,
                &mut ut,
                (t[..N].to_vec(), t[N], t[N + 1..].to_vec()),
                &mut jt,
            );
            let cj: Vec<f64> = [&gf[..], &[gk], &gu[..]].concat();
            check_dual("gauss_seidel::relax", &c, &jt, &cj, &t);
            let mut uj = u0.clone();
            let j = relax_jacobian(&f, kappa, 12, &mut uj);
            let flat: Vec<f64> = [&f[..], &[kappa], &u0[..]].concat();
            check_jacobian("gauss_seidel::relax", &flat, &j, |x| {
                let mut u = x[N + 1..].to_vec();
                relax(&x[..N], x[N], 12, &mut u);
                u
            });
        }
    }

    #[test]
    fn misfit_audit() {
        let observed = [0.0, 0.3, 0.5, 0.45, 0.2, 0.0];
        let pts = points(4372, N, 10, -1.0, 1.0);
        for f in &pts {
            let (_, g) = misfit_grad(f, 0.3, &observed);
            let mut b = vec![f64::NAN; N];
            misfit_grad_into(f, 0.3, &observed, &mut b);
            same_bits(&b, &g, "gauss_seidel::misfit");
        }
        audit(
            &Items {
                what: "gauss_seidel::misfit",
                primal: &|f| misfit(f, 0.3, &observed),
                grad: &|f| misfit_grad(f, 0.3, &observed),
                vjp: &|f, d| misfit_vjp(f, 0.3, &observed, d),
                jvp: &|f, t| misfit_jvp(f, 0.3, &observed, t.to_vec()),
                grad_into: &|f| {
                    let mut b = vec![f64::NAN; N];
                    let v = misfit_grad_into(f, 0.3, &observed, &mut b);
                    (v, b)
                },
                hvp: Some(&|f, v| misfit_hvp(f, 0.3, &observed, v.to_vec())),
                hessian: Some(&|f| misfit_hessian(f, 0.3, &observed)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (R1) Regression: an output's `iter_mut()` zipped with the rows of a `&[Vec<f64>]`, each row passed
// on bare to a callee taking `&[f64]` (`*yi = inner(row, x)`). The loop rewrite bound the row by value
// (`let row = a[i];`, a `Vec` moved out of its slice: a type error inside the generated code); it is
// now bound by reference, and the `order = 2` copy accepts that `&a[i]` of a matrix parameter. Rows of
// nested arrays (`Copy`) are still passed by value to a callee taking `[f64; 3]`.

mod rows_passed_on {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn total(v: &[f64]) -> f64 {
        v.iter().map(|x| x * x).sum::<f64>()
    }

    #[differentiable]
    pub fn row_norms(a: &[Vec<f64>], y: &mut [f64]) {
        for (yi, row) in y.iter_mut().zip(a) {
            *yi = total(row);
        }
    }

    #[differentiable]
    pub fn cube(v: [f64; 3]) -> f64 {
        v[0] * v[1] * v[2]
    }

    #[differentiable]
    pub fn row_cubes(m: [[f64; 3]; 2], y: &mut [f64]) {
        for (yi, row) in y.iter_mut().zip(m) {
            *yi = cube(row);
        }
    }

    #[differentiable(order = 2)]
    pub fn weighted(a: &[Vec<f64>], w: &[f64]) -> f64 {
        let mut y = vec![0.0; a.len()];
        row_norms(a, &mut y);
        y.iter().zip(w).map(|(yi, wi)| (yi * wi).sin()).sum::<f64>()
    }

    #[test]
    fn rows_by_reference_and_by_value() {
        for p in points(4391, 6, 10, -1.0, 1.0) {
            let a: Vec<Vec<f64>> = p.chunks(3).map(<[f64]>::to_vec).collect();
            let mut y = vec![0.0; 2];
            let j = row_norms_jacobian(&a, &mut y);
            assert_eq!(y, vec![total(&a[0]), total(&a[1])]);
            // d|r_i|²/d a_ij = 2 a_ij on its own row.
            for i in 0..2 {
                for k in 0..6 {
                    let e = if k / 3 == i { 2.0 * p[k] } else { 0.0 };
                    assert_close(j[i][k], e, 1e-15, "row_norms Jacobian by hand");
                }
            }
            let m: [[f64; 3]; 2] = common::contract::nested(&p);
            let mut z = vec![0.0; 2];
            let jc = row_cubes_jacobian(m, &mut z);
            assert_eq!(z, vec![cube(m[0]), cube(m[1])]);
            check_jacobian("row_cubes", &p, &jc, |x| {
                let mut z = vec![0.0; 2];
                row_cubes(common::contract::nested(x), &mut z);
                z
            });
        }
        let w = [0.7, -1.2];
        let pts = points(4392, 6, 10, -1.0, 1.0);
        let rows = |x: &[f64]| -> Vec<Vec<f64>> { x.chunks(3).map(<[f64]>::to_vec).collect() };
        let flat = |g: (Vec<Vec<f64>>, Vec<f64>)| -> Vec<f64> { g.0.concat() };
        audit(
            &Items {
                what: "rows_passed_on::weighted",
                primal: &|x| weighted(&rows(x), &w),
                grad: &|x| {
                    let (v, g) = weighted_grad(&rows(x), &w);
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (v, g) = weighted_vjp(&rows(x), &w, d);
                    (v, flat(g))
                },
                jvp: &|x, t| weighted_jvp(&rows(x), &w, (rows(t), vec![0.0; 2])),
                grad_into: &|x| {
                    let mut ga = vec![vec![f64::NAN; 3]; 2];
                    let mut gw = vec![f64::NAN; 2];
                    let v = weighted_grad_into(&rows(x), &w, (&mut ga, &mut gw));
                    (v, ga.concat())
                },
                hvp: None,
                hessian: Some(&|x| {
                    let (v, g, h) = weighted_hessian(&rows(x), &w);
                    // Over (a, w): keep the block of a.
                    let h: Vec<Vec<f64>> = h[..6].iter().map(|r| r[..6].to_vec()).collect();
                    (v, flat(g), h)
                }),
                analytic: Some(&|x| {
                    let a = rows(x);
                    let mut g = Vec::new();
                    for (row, wi) in a.iter().zip(&w) {
                        let c = (total(row) * wi).cos() * wi;
                        g.extend(row.iter().map(|v| 2.0 * v * c));
                    }
                    g
                }),
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) A one-dimensional Gaussian mixture as a `Differentiable` struct (`#[no_grad]` count): methods
// calling one another (`self.log_weight(j)` in `self.log_joint(..)`, a free `super`-level log-sum-exp),
// the log-likelihood at `order = 2` checked against Fisher's identity (its gradient over the means is
// the responsibility-weighted residuals), and an EM update of the means into an output parameter.

pub mod gmm {
    use super::*;
    use autodiff::{differentiable, Differentiable};
    use std::f64::consts::PI;

    #[differentiable]
    pub fn logsumexp(v: &[f64]) -> f64 {
        let m = v.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Mixture {
        pub means: Vec<f64>,
        pub log_sds: Vec<f64>,
        pub logits: Vec<f64>,
        #[no_grad]
        pub k: usize,
    }

    impl Mixture {
        #[differentiable(wrt(self))]
        pub fn log_weight(&self, j: usize) -> f64 {
            self.logits[j] - crate::gmm::logsumexp(&self.logits)
        }

        #[differentiable(wrt(self))]
        pub fn log_joint(&self, x: f64, j: usize) -> f64 {
            let z = (x - self.means[j]) / self.log_sds[j].exp();
            self.log_weight(j) - 0.5 * z * z - self.log_sds[j] - 0.5 * (2.0 * PI).ln()
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn log_likelihood(&self, xs: &[f64]) -> f64 {
            let mut total = 0.0;
            let mut lj = vec![0.0; self.k];
            for &x in xs {
                for j in 0..self.k {
                    lj[j] = self.log_joint(x, j);
                }
                total += logsumexp(&lj);
            }
            total
        }

        /// One EM update of the means: responsibilities by log-sum-exp, weighted averages.
        #[differentiable(wrt(self))]
        pub fn em_means(&self, xs: &[f64], new_means: &mut [f64]) {
            let mut num = vec![0.0; self.k];
            let mut den = vec![0.0; self.k];
            let mut lj = vec![0.0; self.k];
            for &x in xs {
                for j in 0..self.k {
                    lj[j] = self.log_joint(x, j);
                }
                let norm = logsumexp(&lj);
                for j in 0..self.k {
                    let r = (lj[j] - norm).exp();
                    num[j] += r * x;
                    den[j] += r;
                }
            }
            for j in 0..self.k {
                new_means[j] = num[j] / den[j];
            }
        }
    }

    const XS: [f64; 8] = [-2.1, -1.7, -2.4, 0.2, 0.5, 1.9, 2.3, 2.0];

    fn mixture(p: &[f64]) -> Mixture {
        Mixture {
            means: p[0..3].to_vec(),
            log_sds: p[3..6].to_vec(),
            logits: p[6..9].to_vec(),
            k: 3,
        }
    }

    fn at(p: &[f64]) -> Vec<f64> {
        // Means spread out, scales near one.
        let mut q = p.to_vec();
        q[0] -= 2.0;
        q[2] += 2.0;
        for v in &mut q[3..6] {
            *v *= 0.3;
        }
        q
    }

    #[test]
    fn fisher_identity_and_audit() {
        let pts: Vec<Vec<f64>> = points(4401, 9, 10, -0.5, 0.5)
            .iter()
            .map(|p| at(p))
            .collect();
        for p in &pts {
            let m = mixture(p);
            let (v, g) = m.log_likelihood_grad(&XS);
            assert_eq!(g.k, 3, "the no_grad count is copied");
            // By hand: Σ_i r_ij (x_i - μ_j) / σ_j².
            let mut by_hand = [0.0; 3];
            let mut value = 0.0;
            for &x in &XS {
                let lj: Vec<f64> = (0..3).map(|j| m.log_joint(x, j)).collect();
                let norm = logsumexp(&lj);
                value += norm;
                for j in 0..3 {
                    let r = (lj[j] - norm).exp();
                    by_hand[j] += r * (x - m.means[j]) / (2.0 * m.log_sds[j]).exp();
                }
            }
            assert_close(v, value, 1e-13, "log-likelihood");
            assert_all_close(&g.means, &by_hand, 1e-10, "Fisher's identity");
            // Softmax logits: their gradient sums to zero.
            assert!(g.logits.iter().sum::<f64>().abs() < 1e-12);
        }
        let m0 = mixture(&pts[0]);
        audit(
            &Items {
                what: "gmm::log_likelihood",
                primal: &|x| mixture(x).log_likelihood(&XS),
                grad: &|x| {
                    let (v, g) = mixture(x).log_likelihood_grad(&XS);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = mixture(x).log_likelihood_vjp(&XS, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| mixture(x).log_likelihood_jvp(&XS, m0.from_flat(t)),
                grad_into: &|x| {
                    let mut b = m0.from_flat(&[f64::NAN; 9]);
                    let v = mixture(x).log_likelihood_grad_into(&XS, &mut b);
                    (v, b.to_flat())
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = mixture(x).log_likelihood_hvp(&XS, m0.from_flat(w));
                    (v, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = mixture(x).log_likelihood_hessian(&XS);
                    (v, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts[..5],
        );
        for p in &pts {
            let m = mixture(p);
            let (_, g) = m.log_likelihood_grad(&XS);
            let mut b = m.zero_like();
            m.log_likelihood_grad_into(&XS, &mut b);
            same_bits(&b.to_flat(), &g.to_flat(), "gmm::log_likelihood");
        }
    }

    #[test]
    fn em_step_jacobian_and_duality() {
        for p in points(4402, 9, 10, -0.5, 0.5).iter().map(|p| at(p)) {
            let m = mixture(&p);
            let mut nm = vec![0.0; 3];
            m.em_means(&XS, &mut nm);
            // An EM step does not lower the likelihood.
            let mut next = m.clone();
            next.means = nm.clone();
            assert!(next.log_likelihood(&XS) >= m.log_likelihood(&XS) - 1e-12);
            let mut nj = vec![0.0; 3];
            let j = m.em_means_jacobian(&XS, &mut nj);
            assert_eq!(nj, nm);
            check_jacobian("gmm::em_means", &p, &j, |x| {
                let mut o = vec![0.0; 3];
                mixture(x).em_means(&XS, &mut o);
                o
            });
            let c = wave(3, 0.6);
            let mut o = vec![0.0; 3];
            let g = m.em_means_vjp(&XS, &mut o, &c);
            let t = wave(9, -0.9);
            let mut o2 = vec![0.0; 3];
            let mut jt = vec![0.0; 3];
            m.em_means_jvp(&XS, &mut o2, m.from_flat(&t), &mut jt);
            check_dual("gmm::em_means", &c, &jt, &g.to_flat(), &t);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) Black-Scholes implied volatility: the normal CDF through a registered `libm::erfc`, the call
// price and its vega, a bisection with `break` (a differentiable function whose result, built from
// constants by comparisons, has a zero gradient), and the implied volatility as a `#[custom_gradient]`
// by the implicit function theorem, used inside a smile-fitting loss.

mod implied_vol {
    use super::*;
    use autodiff::{custom_gradient, differentiable, gradient_of};
    use std::f64::consts::{PI, SQRT_2};

    #[gradient_of(libm::erfc)]
    fn erfc_vjp(x: f64, dy: f64) -> f64 {
        -dy * 2.0 / PI.sqrt() * (-x * x).exp()
    }

    #[differentiable(order = 2)]
    pub fn norm_cdf(x: f64) -> f64 {
        0.5 * libm::erfc(-x / SQRT_2)
    }

    #[differentiable]
    pub fn call_price(s: f64, k: f64, t: f64, sigma: f64) -> f64 {
        let vol = sigma * t.sqrt();
        let d1 = ((s / k).ln() + 0.5 * sigma * sigma * t) / vol;
        let d2 = d1 - vol;
        s * norm_cdf(d1) - k * norm_cdf(d2)
    }

    #[differentiable(wrt(price))]
    pub fn bisect(price: f64, s: f64, k: f64, t: f64) -> f64 {
        let (mut lo, mut hi) = (1e-4, 5.0);
        let mut mid = 0.5 * (lo + hi);
        for _ in 0..200 {
            mid = 0.5 * (lo + hi);
            if call_price(s, k, t, mid) > price {
                hi = mid;
            } else {
                lo = mid;
            }
            if hi - lo < 1e-15 {
                break;
            }
        }
        mid
    }

    #[custom_gradient]
    pub fn implied_vol(
        price: f64,
        s: f64,
        k: f64,
        t: f64,
    ) -> (f64, impl Fn(f64) -> (f64, f64, f64, f64)) {
        let sigma = bisect(price, s, k, t);
        let (_, (ds, dk, dt, vega)) = call_price_grad(s, k, t, sigma);
        (sigma, move |dy| {
            let g = dy / vega;
            (g, -g * ds, -g * dk, -g * dt)
        })
    }

    #[differentiable(wrt(prices))]
    pub fn smile_loss(prices: &[f64], strikes: &[f64], s: f64, t: f64, target: f64) -> f64 {
        let mut loss = 0.0;
        for (&p, &k) in prices.iter().zip(strikes) {
            let v = implied_vol(p, s, k, t);
            loss += (v - target).powi(2);
        }
        loss
    }

    fn vega(s: f64, k: f64, t: f64, sigma: f64) -> f64 {
        let d1 = ((s / k).ln() + 0.5 * sigma * sigma * t) / (sigma * t.sqrt());
        s * (-0.5 * d1 * d1).exp() / (2.0 * PI).sqrt() * t.sqrt()
    }

    #[test]
    fn round_trip_and_implicit_gradient() {
        for p in points(4411, 3, 12, 0.0, 1.0) {
            let (s, k, t, sigma) = (100.0, 80.0 + 40.0 * p[0], 0.25 + p[1], 0.1 + 0.5 * p[2]);
            let (price, g) = call_price_grad(s, k, t, sigma);
            assert_close(g.3, vega(s, k, t, sigma), 1e-10, "vega");
            let (b, gb) = bisect_grad(price, s, k, t);
            assert_eq!(gb, 0.0, "a bisection's result carries no derivative");
            assert!((b - sigma).abs() < 1e-12, "bisection {b} vs {sigma}");
            let (v, (gp, gs, gk, gt)) = implied_vol_grad(price, s, k, t);
            assert_eq!(v, implied_vol(price, s, k, t));
            assert!((v - sigma).abs() < 1e-12);
            assert_close(gp, 1.0 / vega(s, k, t, sigma), 1e-8, "dσ/dprice = 1/vega");
            let fd = |i: usize| {
                let x = [price, s, k, t];
                let h = 1e-5 * x[i].abs();
                let at = |d: f64| {
                    let mut y = x;
                    y[i] += d;
                    implied_vol(y[0], y[1], y[2], y[3])
                };
                (at(h) - at(-h)) / (2.0 * h)
            };
            for (i, gi) in [gp, gs, gk, gt].into_iter().enumerate() {
                assert_close(gi, fd(i), 1e-5, "implied vol against differences");
            }
            let tv = [0.3, -0.2, 0.5, 0.1];
            let (_, jt) = implied_vol_jvp(price, s, k, t, (tv[0], tv[1], tv[2], tv[3]));
            assert_close(jt, dot(&[gp, gs, gk, gt], &tv), 1e-12, "implied vol _jvp");
        }
    }

    #[test]
    fn smile_loss_against_differences() {
        let strikes = [85.0, 95.0, 100.0, 110.0, 120.0];
        let (s, t) = (100.0, 0.5);
        for p in points(4412, 5, 10, 0.0, 1.0) {
            let prices: Vec<f64> = strikes
                .iter()
                .zip(&p)
                .map(|(&k, q)| call_price(s, k, t, 0.15 + 0.2 * q))
                .collect();
            let (v, g) = smile_loss_grad(&prices, &strikes, s, t, 0.2);
            assert_eq!(v, smile_loss(&prices, &strikes, s, t, 0.2));
            common::assert_fd_gradient(
                |x| smile_loss(x, &strikes, s, t, 0.2),
                &prices,
                &g,
                "smile_loss",
            );
            let mut b = vec![f64::NAN; 5];
            smile_loss_grad_into(&prices, &strikes, s, t, 0.2, &mut b);
            same_bits(&b, &g, "smile_loss");
            let by_hand: Vec<f64> = prices
                .iter()
                .zip(&strikes)
                .map(|(&pr, &k)| {
                    let v = implied_vol(pr, s, k, t);
                    2.0 * (v - 0.2) / vega(s, k, t, v)
                })
                .collect();
            assert_all_close(&g, &by_hand, 1e-8, "smile_loss by hand");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) A Hamiltonian Monte Carlo leapfrog: the log-density at `order = 2`, its gradient as a
// `#[custom_gradient]` over `[f64; 2]` whose closure is the Hessian-vector product (`logp_hvp`, the way
// the error for `_grad` inside a differentiable body advises), the leapfrog trajectory, and the energy
// error of a trajectory differentiated through it all (checked against differences).

mod hmc {
    use super::*;
    use autodiff::{custom_gradient, differentiable};

    /// A banana-shaped log-density.
    #[differentiable(order = 2)]
    pub fn logp(q: [f64; 2]) -> f64 {
        let bend = q[1] - 0.5 * q[0] * q[0];
        -0.5 * q[0] * q[0] - 2.0 * bend * bend
    }

    #[custom_gradient]
    pub fn grad_logp(q: [f64; 2]) -> ([f64; 2], impl Fn([f64; 2]) -> [f64; 2]) {
        let (_, g) = logp_grad(q);
        (g, move |dy| logp_hvp(q, dy).2)
    }

    /// `steps` leapfrog steps of size `eps` from `(q, p)`: the final `[q0, q1, p0, p1]` (a tuple of arrays
    /// is no supported return type: a clear error says so).
    #[differentiable(wrt(q, p, eps))]
    pub fn leapfrog(q: [f64; 2], p: [f64; 2], eps: f64, steps: usize) -> [f64; 4] {
        let mut q = q;
        let mut p = p;
        // The type written out, as the macro's error for `let mut g = grad_logp(q);` asks.
        let mut g: [f64; 2] = grad_logp(q);
        for _ in 0..steps {
            for i in 0..2 {
                p[i] += 0.5 * eps * g[i];
                q[i] += eps * p[i];
            }
            g = grad_logp(q);
            for i in 0..2 {
                p[i] += 0.5 * eps * g[i];
            }
        }
        [q[0], q[1], p[0], p[1]]
    }

    #[differentiable]
    pub fn hamiltonian(q: [f64; 2], p: [f64; 2]) -> f64 {
        -logp(q) + 0.5 * (p[0] * p[0] + p[1] * p[1])
    }

    /// The energy error of a trajectory, what the acceptance probability reads.
    #[differentiable(wrt(q, p, eps))]
    pub fn energy_error(q: [f64; 2], p: [f64; 2], eps: f64, steps: usize) -> f64 {
        let end = leapfrog(q, p, eps, steps);
        hamiltonian([end[0], end[1]], [end[2], end[3]]) - hamiltonian(q, p)
    }

    #[test]
    fn gradient_of_the_log_density() {
        for x in points(4421, 4, 12, -1.5, 1.5) {
            let q = [x[0], x[1]];
            let g = grad_logp(q);
            let bend = q[1] - 0.5 * q[0] * q[0];
            let by_hand = [-q[0] + 4.0 * bend * q[0], -4.0 * bend];
            assert_all_close(&g, &by_hand, 1e-14, "grad_logp");
            // Its vjp is the Hessian (symmetric) times the cotangent, against differences.
            let c = [x[2], x[3]];
            let (_, cj) = grad_logp_vjp(q, c);
            let j = grad_logp_jacobian(q);
            check_jacobian("hmc::grad_logp", &q, &j, |y| {
                grad_logp([y[0], y[1]]).to_vec()
            });
            let by_rows = [
                j[0][0] * c[0] + j[1][0] * c[1],
                j[0][1] * c[0] + j[1][1] * c[1],
            ];
            assert_all_close(&cj, &by_rows, 1e-12, "grad_logp_vjp");
        }
    }

    #[test]
    fn leapfrog_and_energy_error() {
        for x in points(4422, 5, 10, -1.0, 1.0) {
            let (q, p, eps) = ([x[0], x[1]], [x[2], x[3]], 0.1 + 0.05 * x[4]);
            let flat = [q[0], q[1], p[0], p[1], eps];
            let c = wave(4, x[0]);
            let (end, (gq, gp, ge)) = leapfrog_vjp(q, p, eps, 8, arr(&c));
            assert_eq!(end, leapfrog(q, p, eps, 8));
            let t = wave(5, 0.3);
            let (_, jt) = leapfrog_jvp(q, p, eps, 8, ([t[0], t[1]], [t[2], t[3]], t[4]));
            let cj = [gq[0], gq[1], gp[0], gp[1], ge];
            check_dual("hmc::leapfrog", &c, &jt, &cj, &t);
            let fd = common::fd_jacobian(
                |y| leapfrog([y[0], y[1]], [y[2], y[3]], y[4], 8).to_vec(),
                &flat,
            );
            let by_fd: Vec<f64> = fd.iter().map(|row| dot(row, &t)).collect();
            assert_all_close(&jt, &by_fd, 1e-6, "leapfrog _jvp against differences");

            let (v, (eq, ep, ee)) = energy_error_grad(q, p, eps, 8);
            assert_eq!(v, energy_error(q, p, eps, 8));
            assert!(v.abs() < 0.05, "leapfrog nearly conserves energy: {v}");
            common::assert_fd_gradient(
                |y| energy_error([y[0], y[1]], [y[2], y[3]], y[4], 8),
                &flat,
                &[eq[0], eq[1], ep[0], ep[1], ee],
                "hmc::energy_error",
            );
            let (mut bq, mut bp, mut be) = ([f64::NAN; 2], [f64::NAN; 2], f64::NAN);
            energy_error_grad_into(q, p, eps, 8, (&mut bq, &mut bp, &mut be));
            same_bits(
                &[bq[0], bq[1], bp[0], bp[1], be],
                &[eq[0], eq[1], ep[0], ep[1], ee],
                "hmc::energy_error",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) A neural ODE: a tiny MLP right-hand side as a `Differentiable` struct with methods (`Self::act`,
// `self.rhs(..)` restricted to `wrt(self)` yet called with a state that depends on `self`), a midpoint
// integrator writing the path into an output parameter, and the fit at `order = 2`.

mod neural_ode {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Net {
        pub w1: Vec<f64>,
        pub b1: Vec<f64>,
        pub w2: Vec<f64>,
        pub b2: f64,
        #[no_grad]
        pub hidden: usize,
    }

    impl Net {
        #[differentiable]
        pub fn act(z: f64) -> f64 {
            z.tanh()
        }

        #[differentiable(wrt(self))]
        pub fn rhs(&self, y: f64, t: f64) -> f64 {
            let mut out = self.b2;
            for h in 0..self.hidden {
                let z = self.w1[2 * h].mul_add(y, self.w1[2 * h + 1] * t) + self.b1[h];
                out += self.w2[h] * Self::act(z);
            }
            out - 0.5 * y
        }

        #[differentiable(wrt(self))]
        pub fn integrate(&self, y0: f64, dt: f64, path: &mut [f64]) {
            let mut y = y0;
            let mut t = 0.0;
            for slot in 0..path.len() {
                let half = y + 0.5 * dt * self.rhs(y, t);
                y += dt * self.rhs(half, t + 0.5 * dt);
                t += dt;
                path[slot] = y;
            }
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn fit(&self, y0: f64, dt: f64, obs: &[f64]) -> f64 {
            let mut path = vec![0.0; obs.len()];
            self.integrate(y0, dt, &mut path);
            path.iter()
                .zip(obs)
                .map(|(p, o)| (p - o).powi(2))
                .sum::<f64>()
                / obs.len() as f64
        }
    }

    fn net(p: &[f64]) -> Net {
        Net {
            w1: p[0..6].to_vec(),
            b1: p[6..9].to_vec(),
            w2: p[9..12].to_vec(),
            b2: p[12],
            hidden: 3,
        }
    }

    const OBS: [f64; 6] = [0.9, 0.75, 0.7, 0.72, 0.8, 0.95];

    #[test]
    fn rhs_through_the_state_and_fit_audit() {
        let pts = points(4431, 13, 10, -0.8, 0.8);
        for p in &pts {
            let n = net(p);
            // The path's Jacobian over the parameters: the state fed back into `rhs` carries its
            // derivative though `rhs` itself is `wrt(self)` only.
            let mut path = vec![0.0; 6];
            let j = n.integrate_jacobian(1.0, 0.2, &mut path);
            check_jacobian("neural_ode::integrate", p, &j, |x| {
                let mut out = vec![0.0; 6];
                net(x).integrate(1.0, 0.2, &mut out);
                out
            });
            let (v, g) = n.fit_grad(1.0, 0.2, &OBS);
            assert_eq!(v, n.fit(1.0, 0.2, &OBS));
            assert_eq!(g.hidden, 3);
            let mut b = n.zero_like();
            n.fit_grad_into(1.0, 0.2, &OBS, &mut b);
            same_bits(&b.to_flat(), &g.to_flat(), "neural_ode::fit");
            let (_, gr) = n.rhs_grad(0.7, 0.3);
            common::assert_fd_gradient(|x| net(x).rhs(0.7, 0.3), p, &gr.to_flat(), "rhs");
        }
        let n0 = net(&pts[0]);
        audit(
            &Items {
                what: "neural_ode::fit",
                primal: &|x| net(x).fit(1.0, 0.2, &OBS),
                grad: &|x| {
                    let (v, g) = net(x).fit_grad(1.0, 0.2, &OBS);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = net(x).fit_vjp(1.0, 0.2, &OBS, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| net(x).fit_jvp(1.0, 0.2, &OBS, n0.from_flat(t)),
                grad_into: &|x| {
                    let mut b = n0.from_flat(&[f64::NAN; 13]);
                    let v = net(x).fit_grad_into(1.0, 0.2, &OBS, &mut b);
                    (v, b.to_flat())
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = net(x).fit_hvp(1.0, 0.2, &OBS, n0.from_flat(w));
                    (v, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = net(x).fit_hessian(1.0, 0.2, &OBS);
                    (v, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts[..4],
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) An inhomogeneous Poisson process binned in time: the intensity `exp(a + b t)` integrated over
// each bin exactly, `ln n!` by Stirling's series for large counts and a table for small ones (`match`
// on the integer count, with `|` and ranges), the log-likelihood at `order = 2` (whose Hessian over `a`
// is `-Σ μ_i` by hand), and the Stirling term itself at `order = 3` against its derivatives by hand.

mod poisson_process {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    #[differentiable(order = 3)]
    pub fn stirling(n: f64) -> f64 {
        n * n.ln() - n + 0.5 * (2.0 * PI * n).ln() + 1.0 / (12.0 * n) - 1.0 / (360.0 * n.powi(3))
    }

    pub fn log_factorial(n: usize) -> f64 {
        match n {
            0 | 1 => 0.0,
            2 => 2f64.ln(),
            3..=5 => (2..=n).map(|k| (k as f64).ln()).sum(),
            _ => stirling(n as f64),
        }
    }

    /// The expected count in `[t0, t1)`.
    #[differentiable]
    pub fn expected(a: f64, b: f64, t0: f64, t1: f64) -> f64 {
        a.exp() * ((b * t1).exp() - (b * t0).exp()) / b
    }

    #[differentiable(wrt(theta), order = 2)]
    pub fn log_lik(theta: [f64; 2], edges: &[f64], counts: &[usize]) -> f64 {
        let mut total = 0.0;
        for (k, w) in edges.windows(2).enumerate() {
            let mu = expected(theta[0], theta[1], w[0], w[1]);
            let n = counts[k];
            let stirling_term = match n {
                0 | 1 => 0.0,
                2..=5 => {
                    let mut s = 0.0;
                    for j in 2..=n {
                        s += (j as f64).ln();
                    }
                    s
                }
                _ => stirling(n as f64),
            };
            total += n as f64 * mu.ln() - mu - stirling_term;
        }
        total
    }

    const EDGES: [f64; 6] = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5];
    const COUNTS: [usize; 5] = [2, 4, 7, 1, 12];

    #[test]
    fn stirling_derivatives_by_hand() {
        for p in points(4441, 1, 12, 6.0, 40.0) {
            let n = p[0];
            let d = stirling_derivatives(n);
            let by_hand = [
                stirling(n),
                n.ln() + 1.0 / (2.0 * n) - 1.0 / (12.0 * n * n) + 1.0 / (120.0 * n.powi(4)),
                1.0 / n - 1.0 / (2.0 * n * n) + 1.0 / (6.0 * n.powi(3)) - 1.0 / (30.0 * n.powi(5)),
                -1.0 / (n * n) + 1.0 / n.powi(3) - 1.0 / (2.0 * n.powi(4))
                    + 1.0 / (6.0 * n.powi(6)),
            ];
            assert_all_close(&d, &by_hand, 1e-11, "stirling_derivatives");
        }
        // Against the exact log-factorial: the series' next term, 1/(1260 n⁵), is 8e-9 at n = 10.
        let exact: f64 = (2..=10).map(|k| (k as f64).ln()).sum();
        assert!((log_factorial(10) - exact).abs() < 1e-8);
        assert_eq!(
            log_factorial(4),
            (2..=4).map(|k| (k as f64).ln()).sum::<f64>()
        );
    }

    #[test]
    fn log_likelihood_by_hand_and_audit() {
        let pts: Vec<Vec<f64>> = points(4442, 2, 10, -0.5, 0.5)
            .into_iter()
            .map(|p| vec![1.0 + p[0], 0.3 + p[1]])
            .filter(|p| p[1].abs() > 0.05)
            .collect();
        for p in &pts {
            let (a, b) = (p[0], p[1]);
            let (v, g, h) = log_lik_hessian(arr(p), &EDGES, &COUNTS);
            let mus: Vec<f64> = EDGES
                .windows(2)
                .map(|w| expected(a, b, w[0], w[1]))
                .collect();
            let value: f64 = mus
                .iter()
                .zip(&COUNTS)
                .map(|(mu, &n)| n as f64 * mu.ln() - mu - log_factorial(n))
                .sum();
            assert_close(v, value, 1e-12, "log-likelihood");
            // ∂/∂a (n ln μ - μ) = n - μ, ∂²/∂a² = -μ (μ ∝ eᵃ).
            let grad_a: f64 = mus.iter().zip(&COUNTS).map(|(mu, &n)| n as f64 - mu).sum();
            assert_close(g[0], grad_a, 1e-12, "d/da");
            assert_close(h[0][0], -mus.iter().sum::<f64>(), 1e-12, "d²/da²");
            let mut buf = [f64::NAN; 2];
            log_lik_grad_into(arr(p), &EDGES, &COUNTS, &mut buf);
            same_bits(&buf, &g, "poisson_process::log_lik");
        }
        audit(
            &Items {
                what: "poisson_process::log_lik",
                primal: &|x| log_lik(arr(x), &EDGES, &COUNTS),
                grad: &|x| {
                    let (v, g) = log_lik_grad(arr(x), &EDGES, &COUNTS);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = log_lik_vjp(arr(x), &EDGES, &COUNTS, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| log_lik_jvp(arr(x), &EDGES, &COUNTS, arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 2];
                    let v = log_lik_grad_into(arr(x), &EDGES, &COUNTS, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = log_lik_hvp(arr(x), &EDGES, &COUNTS, arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = log_lik_hessian(arr(x), &EDGES, &COUNTS);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) Viterbi decoding as a max-plus dynamic programme: a score table filled in place, back pointers in
// a local `Vec<usize>`, the best path traced back by a `while` into an integer output `&mut [usize]`
// (`.clear()`/`.resize()` of a `&mut Vec<usize>` get a clear error), and its score summed again by
// data-dependent indices. The gradient of the best score is the indicator of the
// best path (exact ones and zeros), checked against differences away from ties.

mod viterbi {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(emit, trans))]
    pub fn best_score(emit: &[Vec<f64>], trans: &[Vec<f64>], path: &mut [usize]) -> f64 {
        let n = emit.len();
        let k = trans.len();
        let mut score = emit[0].clone();
        let mut next = vec![0.0; k];
        let mut back = vec![0usize; n * k];
        for t in 1..n {
            for j in 0..k {
                let mut best = f64::NEG_INFINITY;
                let mut arg = 0;
                for i in 0..k {
                    let s = score[i] + trans[i][j];
                    if s > best {
                        best = s;
                        arg = i;
                    }
                }
                next[j] = best + emit[t][j];
                back[t * k + j] = arg;
            }
            score.copy_from_slice(&next);
        }
        let mut last = 0;
        for j in 1..k {
            if score[j] > score[last] {
                last = j;
            }
        }
        path[n - 1] = last;
        let mut t = n - 1;
        while t > 0 {
            path[t - 1] = back[t * k + path[t]];
            t -= 1;
        }
        score[last]
    }

    #[test]
    fn gradient_is_the_best_path() {
        for p in points(4451, 5 * 3 + 9, 10, -1.0, 1.0) {
            let emit: Vec<Vec<f64>> = p[..15].chunks(3).map(<[f64]>::to_vec).collect();
            let trans: Vec<Vec<f64>> = p[15..].chunks(3).map(<[f64]>::to_vec).collect();
            let mut path = vec![0; 5];
            let (v, (ge, gt)) = best_score_grad(&emit, &trans, &mut path);
            // The score of the decoded path, summed again.
            let mut again = emit[0][path[0]];
            for t in 1..5 {
                again += trans[path[t - 1]][path[t]] + emit[t][path[t]];
            }
            assert_close(v, again, 1e-14, "best score");
            let mut path3 = vec![0; 5];
            assert_eq!(best_score(&emit, &trans, &mut path3), v);
            assert_eq!(path3, path);
            // Brute force over all 3⁵ paths: none scores higher.
            let mut best = f64::NEG_INFINITY;
            for code in 0..243usize {
                let s: Vec<usize> = (0..5).map(|t| code / 3usize.pow(t as u32) % 3).collect();
                let mut total = emit[0][s[0]];
                for t in 1..5 {
                    total += trans[s[t - 1]][s[t]] + emit[t][s[t]];
                }
                best = best.max(total);
            }
            assert_close(v, best, 1e-14, "brute force");
            for t in 0..5 {
                for j in 0..3 {
                    let e = if path[t] == j { 1.0 } else { 0.0 };
                    assert_eq!(ge[t][j], e, "d/d emit[{t}][{j}]");
                }
            }
            let mut counts = vec![vec![0.0; 3]; 3];
            for t in 1..5 {
                counts[path[t - 1]][path[t]] += 1.0;
            }
            assert_eq!(gt, counts, "d/d trans: transitions used");
            let mut buf = (vec![vec![f64::NAN; 3]; 5], vec![vec![f64::NAN; 3]; 3]);
            let mut path2 = vec![0; 5];
            best_score_grad_into(&emit, &trans, &mut path2, (&mut buf.0, &mut buf.1));
            assert_eq!(path2, path);
            same_bits(&buf.0.concat(), &ge.concat(), "viterbi emit");
            same_bits(&buf.1.concat(), &gt.concat(), "viterbi trans");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) A hanging cloth: a 3×3 mass-spring grid in a local `Vec<[f64; 2]>`, forces accumulated in place
// by a helper returning an array, the top row pinned (`continue`), semi-implicit Euler; the final
// positions into an output (its `_jacobian` over stiffness and damping), and the sag of the bottom
// row with `f_derivatives` at `order = 2` over the stiffness alone.

mod cloth {
    use super::*;
    use autodiff::differentiable;

    pub const W: usize = 3;
    pub const H: usize = 3;

    #[differentiable]
    pub fn spring_force(a: [f64; 2], b: [f64; 2], rest: f64, k: f64) -> [f64; 2] {
        let d = [b[0] - a[0], b[1] - a[1]];
        let len = d[0].hypot(d[1]);
        let f = k * (len - rest) / len;
        [f * d[0], f * d[1]]
    }

    #[differentiable(wrt(stiffness, damping))]
    pub fn simulate(stiffness: f64, damping: f64, dt: f64, steps: usize, out: &mut [f64]) {
        let n = W * H;
        let mut pos = vec![[0.0; 2]; n];
        let mut vel = vec![[0.0; 2]; n];
        for r in 0..H {
            for c in 0..W {
                pos[r * W + c] = [c as f64, -(r as f64)];
            }
        }
        for _ in 0..steps {
            // Gravity (`vec![[0.0, -1.0]; n]` gets a clear error; `vec![[0.0; 2]; n]` is read).
            let mut force = vec![[0.0; 2]; n];
            for f in 0..n {
                force[f][1] = -1.0;
            }
            for r in 0..H {
                for c in 0..W {
                    let i = r * W + c;
                    if c + 1 < W {
                        // `spring_force(pos[i], pos[i + 1], ..)` does not compile (see the report).
                        let (a, b) = ([pos[i][0], pos[i][1]], [pos[i + 1][0], pos[i + 1][1]]);
                        let f = spring_force(a, b, 1.0, stiffness);
                        for d in 0..2 {
                            force[i][d] += f[d];
                            force[i + 1][d] -= f[d];
                        }
                    }
                    if r + 1 < H {
                        let (a, b) = ([pos[i][0], pos[i][1]], [pos[i + W][0], pos[i + W][1]]);
                        let f = spring_force(a, b, 1.0, stiffness);
                        for d in 0..2 {
                            force[i][d] += f[d];
                            force[i + W][d] -= f[d];
                        }
                    }
                }
            }
            for i in 0..n {
                if i < W {
                    continue;
                }
                for d in 0..2 {
                    vel[i][d] = (1.0 - damping * dt) * vel[i][d] + dt * force[i][d];
                    pos[i][d] += dt * vel[i][d];
                }
            }
        }
        for i in 0..n {
            out[2 * i] = pos[i][0];
            out[2 * i + 1] = pos[i][1];
        }
    }

    #[differentiable(wrt(stiffness), order = 2)]
    pub fn sag(stiffness: f64, damping: f64) -> f64 {
        let mut out = vec![0.0; 2 * W * H];
        simulate(stiffness, damping, 0.05, 40, &mut out);
        let bottom = &out[2 * W * (H - 1)..];
        -bottom.chunks_exact(2).map(|p| p[1]).sum::<f64>() / W as f64
    }

    #[test]
    fn cloth_jacobian_and_sag() {
        for p in points(4461, 2, 10, 0.0, 1.0) {
            let (k, damp) = (20.0 + 30.0 * p[0], 0.5 + p[1]);
            let mut out = vec![0.0; 18];
            simulate(k, damp, 0.05, 30, &mut out);
            assert_eq!(
                &out[..6],
                &[0.0, 0.0, 1.0, 0.0, 2.0, 0.0],
                "the pinned row stays"
            );
            let mut o2 = vec![0.0; 18];
            let j = simulate_jacobian(k, damp, 0.05, 30, &mut o2);
            assert_eq!(o2, out);
            check_jacobian("cloth::simulate", &[k, damp], &j, |x| {
                let mut o = vec![0.0; 18];
                simulate(x[0], x[1], 0.05, 30, &mut o);
                o
            });
            let c = wave(18, 0.2);
            let mut o3 = vec![0.0; 18];
            let (gk, gd) = simulate_vjp(k, damp, 0.05, 30, &mut o3, &c);
            let mut o4 = vec![0.0; 18];
            let mut jt = vec![0.0; 18];
            simulate_jvp(k, damp, 0.05, 30, &mut o4, (0.4, -0.7), &mut jt);
            check_dual("cloth::simulate", &c, &jt, &[gk, gd], &[0.4, -0.7]);

            let d = sag_derivatives(k, damp);
            assert_eq!(d[0], sag(k, damp));
            let h = 1e-4 * k;
            let fd1 = (sag(k + h, damp) - sag(k - h, damp)) / (2.0 * h);
            assert_close(d[1], fd1, 1e-6, "sag'");
            let g = |s: f64| sag_grad(s, damp).1;
            let fd2 =
                (8.0 * (g(k + h) - g(k - h)) - (g(k + 2.0 * h) - g(k - 2.0 * h))) / (12.0 * h);
            assert_close(d[2], fd2, 1e-5, "sag''");
            let (_, gs, hs) = sag_hessian(k, damp);
            assert_eq!((gs, hs[0][0]), (d[1], d[2]));
            let mut b = f64::NAN;
            sag_grad_into(k, damp, &mut b);
            same_bits(&[b], &[d[1]], "cloth::sag");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (16) Levenberg-Marquardt on an exponential decay: the residuals into an output parameter, their
// `_jacobian` driving the damped normal equations (solved in the test), and the least-squares cost at
// `order = 2`, whose Hessian at a zero-residual fit is exactly the Gauss-Newton `JᵀJ`.

mod levenberg {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(theta))]
    pub fn residuals(theta: [f64; 3], ts: &[f64], ys: &[f64], r: &mut [f64]) {
        for ((ri, &t), &y) in r.iter_mut().zip(ts).zip(ys) {
            *ri = theta[0].mul_add((-theta[1] * t).exp(), theta[2]) - y;
        }
    }

    #[differentiable(wrt(theta), order = 2)]
    pub fn cost(theta: [f64; 3], ts: &[f64], ys: &[f64]) -> f64 {
        let mut r = vec![0.0; ts.len()];
        residuals(theta, ts, ys, &mut r);
        0.5 * r.iter().map(|v| v * v).sum::<f64>()
    }

    fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> [f64; 3] {
        for c in 0..3 {
            let p = (c..3)
                .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
                .unwrap();
            a.swap(c, p);
            b.swap(c, p);
            for r in c + 1..3 {
                let f = a[r][c] / a[c][c];
                for k in c..3 {
                    a[r][k] -= f * a[c][k];
                }
                b[r] -= f * b[c];
            }
        }
        let mut x = [0.0; 3];
        for r in (0..3).rev() {
            let s: f64 = (r + 1..3).map(|k| a[r][k] * x[k]).sum();
            x[r] = (b[r] - s) / a[r][r];
        }
        x
    }

    const TRUE: [f64; 3] = [2.0, 0.7, 0.3];

    fn data() -> (Vec<f64>, Vec<f64>) {
        let ts: Vec<f64> = (0..10).map(|i| 0.4 * i as f64).collect();
        let ys = ts
            .iter()
            .map(|t| TRUE[0] * (-TRUE[1] * t).exp() + TRUE[2])
            .collect();
        (ts, ys)
    }

    #[test]
    fn lm_converges_and_gauss_newton_hessian() {
        let (ts, ys) = data();
        let mut theta = [1.0, 0.3, 0.0];
        let mut lambda = 1e-2;
        let mut r = vec![0.0; 10];
        for _ in 0..60 {
            let j = residuals_jacobian(theta, &ts, &ys, &mut r);
            let mut jtj = [[0.0; 3]; 3];
            let mut jtr = [0.0; 3];
            for (row, ri) in j.iter().zip(&r) {
                for a in 0..3 {
                    jtr[a] -= row[a] * ri;
                    for b in 0..3 {
                        jtj[a][b] += row[a] * row[b];
                    }
                }
            }
            for a in 0..3 {
                jtj[a][a] *= 1.0 + lambda;
            }
            let step = solve3(jtj, jtr);
            let trial = [theta[0] + step[0], theta[1] + step[1], theta[2] + step[2]];
            if cost(trial, &ts, &ys) < cost(theta, &ts, &ys) {
                theta = trial;
                lambda *= 0.3;
            } else {
                lambda *= 10.0;
            }
        }
        assert_all_close(&theta, &TRUE, 1e-8, "LM recovers the parameters");

        let j = residuals_jacobian(TRUE, &ts, &ys, &mut r);
        check_jacobian("levenberg::residuals", &TRUE, &j, |x| {
            let mut r = vec![0.0; 10];
            residuals(arr(x), &ts, &ys, &mut r);
            r
        });
        let (v, g, h) = cost_hessian(TRUE, &ts, &ys);
        assert!(v < 1e-28);
        for a in 0..3 {
            assert!(g[a].abs() < 1e-13);
            for b in 0..3 {
                let gn: f64 = j.iter().map(|row| row[a] * row[b]).sum();
                assert_close(h[a][b], gn, 1e-10, "Hessian = JᵀJ at zero residual");
            }
        }
        let pts: Vec<Vec<f64>> = points(4471, 3, 10, -0.3, 0.3)
            .into_iter()
            .map(|p| vec![TRUE[0] + p[0], TRUE[1] + p[1], TRUE[2] + p[2]])
            .collect();
        for p in &pts {
            let (_, g) = cost_grad(arr(p), &ts, &ys);
            let mut b = [f64::NAN; 3];
            cost_grad_into(arr(p), &ts, &ys, &mut b);
            same_bits(&b, &g, "levenberg::cost");
        }
        audit(
            &Items {
                what: "levenberg::cost",
                primal: &|x| cost(arr(x), &ts, &ys),
                grad: &|x| {
                    let (v, g) = cost_grad(arr(x), &ts, &ys);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = cost_vjp(arr(x), &ts, &ys, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| cost_jvp(arr(x), &ts, &ys, arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 3];
                    let v = cost_grad_into(arr(x), &ts, &ys, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = cost_hvp(arr(x), &ts, &ys, arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = cost_hessian(arr(x), &ts, &ys);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (17) Bayesian linear regression (slope and intercept): the log-evidence over `(ln α, ln β)` at
// `order = 2`, through helpers returning tuples (the sufficient statistics by `fold`, the 2×2
// posterior precision with its determinant and inverse), checked against the log-density of the
// marginal `y ~ N(0, X Xᵀ/α + I/β)` computed by a Cholesky factorisation in the test.

mod evidence {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    #[differentiable]
    pub fn stats(xs: &[f64], ys: &[f64]) -> (f64, f64, f64, f64, f64) {
        let (sx, sxx) = xs.iter().fold((0.0, 0.0), |(a, b), &x| (a + x, b + x * x));
        let sy: f64 = ys.iter().sum();
        let sxy = xs.iter().zip(ys).map(|(x, y)| x * y).sum::<f64>();
        let syy = ys.iter().map(|y| y * y).sum::<f64>();
        (sx, sxx, sy, sxy, syy)
    }

    /// `A = α I + β XᵀX` for the design `[1, x]`: `(a11, a12, a22, det A)`.
    #[differentiable]
    pub fn precision(alpha: f64, beta: f64, n: f64, sx: f64, sxx: f64) -> (f64, f64, f64, f64) {
        let a11 = alpha + beta * n;
        let a12 = beta * sx;
        let a22 = alpha + beta * sxx;
        (a11, a12, a22, a11 * a22 - a12 * a12)
    }

    #[differentiable(wrt(theta), order = 2)]
    pub fn log_evidence(theta: [f64; 2], xs: &[f64], ys: &[f64]) -> f64 {
        let (alpha, beta) = (theta[0].exp(), theta[1].exp());
        let n = xs.len() as f64;
        let (sx, sxx, sy, sxy, syy) = stats(xs, ys);
        let (a11, a12, a22, det) = precision(alpha, beta, n, sx, sxx);
        // m = β A⁻¹ Xᵀy.
        let (b1, b2) = (beta * sy, beta * sxy);
        let m0 = (a22 * b1 - a12 * b2) / det;
        let m1 = (a11 * b2 - a12 * b1) / det;
        // Σ (y - m0 - m1 x)² by the statistics.
        let sse =
            syy - 2.0 * (m0 * sy + m1 * sxy) + m0 * m0 * n + 2.0 * m0 * m1 * sx + m1 * m1 * sxx;
        let e = 0.5 * beta * sse + 0.5 * alpha * (m0 * m0 + m1 * m1);
        theta[0] + 0.5 * n * theta[1] - e - 0.5 * det.ln() - 0.5 * n * (2.0 * PI).ln()
    }

    /// `log N(y; 0, C)` by Cholesky.
    fn marginal(alpha: f64, beta: f64, xs: &[f64], ys: &[f64]) -> f64 {
        let n = xs.len();
        let mut c = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                c[i][j] = (1.0 + xs[i] * xs[j]) / alpha + if i == j { 1.0 / beta } else { 0.0 };
            }
        }
        let mut l = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..=i {
                let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
                l[i][j] = if i == j {
                    (c[i][i] - s).sqrt()
                } else {
                    (c[i][j] - s) / l[j][j]
                };
            }
        }
        let mut z = vec![0.0; n];
        for i in 0..n {
            let s: f64 = (0..i).map(|k| l[i][k] * z[k]).sum();
            z[i] = (ys[i] - s) / l[i][i];
        }
        let logdet: f64 = (0..n).map(|i| 2.0 * l[i][i].ln()).sum();
        -0.5 * z.iter().map(|v| v * v).sum::<f64>()
            - 0.5 * logdet
            - 0.5 * n as f64 * (2.0 * PI).ln()
    }

    const XS: [f64; 6] = [-1.0, -0.4, 0.1, 0.5, 0.9, 1.6];
    const YS: [f64; 6] = [-1.3, -0.2, 0.4, 0.7, 1.5, 2.2];

    #[test]
    fn evidence_is_the_marginal_and_audit() {
        let pts = points(4481, 2, 10, -1.5, 1.5);
        for p in &pts {
            let v = log_evidence(arr(p), &XS, &YS);
            assert_close(
                v,
                marginal(p[0].exp(), p[1].exp(), &XS, &YS),
                1e-10,
                "evidence",
            );
            let (_, g) = log_evidence_grad(arr(p), &XS, &YS);
            let mut b = [f64::NAN; 2];
            log_evidence_grad_into(arr(p), &XS, &YS, &mut b);
            same_bits(&b, &g, "evidence::log_evidence");
        }
        audit(
            &Items {
                what: "evidence::log_evidence",
                primal: &|x| log_evidence(arr(x), &XS, &YS),
                grad: &|x| {
                    let (v, g) = log_evidence_grad(arr(x), &XS, &YS);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = log_evidence_vjp(arr(x), &XS, &YS, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| log_evidence_jvp(arr(x), &XS, &YS, arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 2];
                    let v = log_evidence_grad_into(arr(x), &XS, &YS, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = log_evidence_hvp(arr(x), &XS, &YS, arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = log_evidence_hessian(arr(x), &XS, &YS);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
        // The tuple helpers: `_vjp` against `_jvp`.
        let (c, t) = (wave(4, 0.5), wave(5, 1.0));
        let (_, cj) = precision_vjp(0.7, 2.0, 6.0, 1.7, 4.9, (c[0], c[1], c[2], c[3]));
        let (_, jt) = precision_jvp(0.7, 2.0, 6.0, 1.7, 4.9, (t[0], t[1], t[2], t[3], t[4]));
        check_dual(
            "evidence::precision",
            &c,
            &[jt.0, jt.1, jt.2, jt.3],
            &[cj.0, cj.1, cj.2, cj.3, cj.4],
            &t,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (18) Quantile regression: the pinball loss written with `signum` and with `abs` (equal values, and at
// a zero residual the same derivative `τ`: Rust's `0.0.signum()` is 1 with `signum' = 0`, and
// `|·|'(+0) = 1` by the JAX convention DESIGN.md gives),
// the mean loss over a line at `order = 2` (piecewise linear: a Hessian of exact zeros), its gradient
// by hand, and a subgradient descent towards the empirical quantile.

mod quantile {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn pinball(r: f64, tau: f64) -> f64 {
        r * (tau - 0.5 * (1.0 - r.signum()))
    }

    #[differentiable(order = 2)]
    pub fn pinball_abs(r: f64, tau: f64) -> f64 {
        0.5 * (r.abs() + (2.0 * tau - 1.0) * r)
    }

    #[differentiable(wrt(beta), order = 2)]
    pub fn loss(beta: [f64; 2], xs: &[f64], ys: &[f64], tau: f64) -> f64 {
        let total: f64 = xs
            .iter()
            .zip(ys)
            .map(|(&x, &y)| pinball(y - beta[1].mul_add(x, beta[0]), tau))
            .sum();
        total / xs.len() as f64
    }

    #[test]
    fn pinball_forms_and_conventions() {
        for p in points(4491, 2, 12, -2.0, 2.0) {
            let (r, tau) = (p[0], 0.5 + 0.4 * p[1] / 2.0);
            assert_close(pinball(r, tau), pinball_abs(r, tau), 1e-15, "two forms");
            let (_, (gr, gt)) = pinball_grad(r, tau);
            let ind = if r < 0.0 { 1.0 } else { 0.0 };
            assert_eq!(gr, tau - ind, "dρ/dr");
            assert_close(gt, r, 1e-15, "dρ/dτ");
            let (_, g2) = pinball_abs_grad(r, tau);
            assert_close(g2.0, gr, 1e-15, "abs form dρ/dr");
        }
        for tau in [0.1, 0.5, 0.9] {
            let (_, (gr, _)) = pinball_grad(0.0, tau);
            let (_, (ga, _)) = pinball_abs_grad(0.0, tau);
            // Rust's `0.0.signum()` is 1 (with `signum' = 0`), and `|·|'(+0) = 1` (DESIGN.md): `τ` both.
            assert_close(gr, tau, 1e-15, "signum form at r = 0");
            assert_close(ga, tau, 1e-15, "abs form at r = 0");
        }
    }

    #[test]
    fn loss_by_hand_hessian_zero_and_descent() {
        let xs: Vec<f64> = (0..9).map(|i| i as f64 / 4.0).collect();
        let ys: Vec<f64> = xs
            .iter()
            .zip(wave(9, 0.3))
            .map(|(x, w)| 1.0 + 0.5 * x + w)
            .collect();
        let tau = 0.7;
        for p in points(4492, 2, 12, -1.0, 1.0) {
            let beta = [1.0 + p[0], 0.5 + p[1]];
            let (v, g, h) = loss_hessian(beta, &xs, &ys, tau);
            assert_eq!(v, loss(beta, &xs, &ys, tau));
            let mut by_hand = [0.0; 2];
            for (&x, &y) in xs.iter().zip(&ys) {
                let r = y - beta[0] - beta[1] * x;
                let d = tau - if r < 0.0 { 1.0 } else { 0.0 };
                by_hand[0] -= d / 9.0;
                by_hand[1] -= d * x / 9.0;
            }
            assert_all_close(&g, &by_hand, 1e-14, "pinball loss gradient");
            assert_eq!(h, vec![vec![0.0; 2]; 2], "piecewise linear: zero Hessian");
            common::assert_fd_gradient(|b| loss(arr(b), &xs, &ys, tau), &beta, &g, "loss");
            let mut buf = [f64::NAN; 2];
            loss_grad_into(beta, &xs, &ys, tau, &mut buf);
            same_bits(&buf, &g, "quantile::loss");
            let (_, hv_g, hv) = loss_hvp(beta, &xs, &ys, tau, [0.3, -0.8]);
            assert_eq!((hv_g, hv), (g, [0.0; 2]));
        }
        // Intercept only (slope fixed at zero by its step): subgradient steps approach the τ-quantile.
        let mut beta = [0.0, 0.0];
        for k in 0..4000 {
            let (_, g) = loss_grad(beta, &xs, &ys, tau);
            beta[0] -= 0.5 / (1.0 + k as f64).sqrt() * g[0];
        }
        let below = ys.iter().filter(|&&y| y < beta[0]).count() as f64 / 9.0;
        assert!(
            (below - tau).abs() <= 1.0 / 9.0 + 1e-12,
            "{below} below {}",
            beta[0]
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (19) A Chebyshev series: the basis `T_0..T_{n-1}` by the three-term recurrence into an output
// parameter (its `_jacobian` is `k U_{k-1}`), the series' derivatives in `x` at `order = 3` against
// `T_k(cos θ) = cos kθ`, and a ridge fit of the coefficients at `order = 2` whose Hessian is the
// Gram matrix by hand.

mod chebyshev {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn basis(x: f64, out: &mut [f64]) {
        out[0] = 1.0;
        if out.len() > 1 {
            out[1] = x;
        }
        for k in 2..out.len() {
            out[k] = 2.0 * x * out[k - 1] - out[k - 2];
        }
    }

    #[differentiable(wrt(x), order = 3)]
    pub fn series(x: f64, c: &[f64]) -> f64 {
        let mut t = vec![0.0; c.len()];
        basis(x, &mut t);
        c.iter().zip(&t).map(|(a, b)| a * b).sum::<f64>()
    }

    #[differentiable(wrt(c), order = 2)]
    pub fn fit(c: &[f64], xs: &[f64], ys: &[f64], ridge: f64) -> f64 {
        let mut err = 0.0;
        for (&x, &y) in xs.iter().zip(ys) {
            let r = series(x, c) - y;
            err += r * r;
        }
        err / xs.len() as f64 + ridge * c.iter().map(|v| v * v).sum::<f64>()
    }

    const C: [f64; 5] = [0.3, -1.1, 0.6, 0.25, -0.4];

    #[test]
    fn basis_and_series_derivatives() {
        for p in points(4501, 1, 12, 0.2, 2.9) {
            let theta = p[0];
            let x = theta.cos();
            let mut t = vec![0.0; 5];
            let j = basis_jacobian(x, &mut t);
            for k in 0..5 {
                assert_close(t[k], (k as f64 * theta).cos(), 1e-13, "T_k(cos θ)");
                let u = (k as f64 * theta).sin() / theta.sin();
                assert_close(j[k][0], k as f64 * u, 1e-11, "T_k' = k U_(k-1)");
            }
            let d = series_derivatives(x, &C);
            assert_eq!(d[0], series(x, &C));
            let f1: f64 = (0..5)
                .map(|k| C[k] * k as f64 * (k as f64 * theta).sin() / theta.sin())
                .sum();
            assert_close(d[1], f1, 1e-11, "series'");
            // The second and third against differences of the first and second.
            let h = 1e-4;
            let d1 = |y: f64| series_derivatives(y, &C)[1];
            let d2 = |y: f64| series_derivatives(y, &C)[2];
            assert_close(d[2], (d1(x + h) - d1(x - h)) / (2.0 * h), 1e-6, "series''");
            assert_close(d[3], (d2(x + h) - d2(x - h)) / (2.0 * h), 1e-6, "series'''");
        }
    }

    #[test]
    fn fit_hessian_is_the_gram_matrix() {
        let xs: Vec<f64> = (0..12).map(|i| -1.0 + 2.0 * i as f64 / 11.0).collect();
        let ys: Vec<f64> = xs.iter().map(|x| (2.0 * x).sin()).collect();
        let ridge = 1e-3;
        let pts = points(4502, 5, 10, -1.0, 1.0);
        let mut gram = vec![vec![0.0; 5]; 5];
        for &x in &xs {
            let mut t = vec![0.0; 5];
            basis(x, &mut t);
            for a in 0..5 {
                for b in 0..5 {
                    gram[a][b] += 2.0 * t[a] * t[b] / 12.0;
                }
            }
        }
        for a in 0..5 {
            gram[a][a] += 2.0 * ridge;
        }
        for c in &pts {
            let (_, g, h) = fit_hessian(c, &xs, &ys, ridge);
            for a in 0..5 {
                assert_all_close(&h[a], &gram[a], 1e-12, "fit Hessian");
            }
            let mut b = vec![f64::NAN; 5];
            fit_grad_into(c, &xs, &ys, ridge, &mut b);
            same_bits(&b, &g, "chebyshev::fit");
        }
        audit(
            &Items {
                what: "chebyshev::fit",
                primal: &|c| fit(c, &xs, &ys, ridge),
                grad: &|c| fit_grad(c, &xs, &ys, ridge),
                vjp: &|c, d| fit_vjp(c, &xs, &ys, ridge, d),
                jvp: &|c, t| fit_jvp(c, &xs, &ys, ridge, t.to_vec()),
                grad_into: &|c| {
                    let mut b = vec![f64::NAN; 5];
                    let v = fit_grad_into(c, &xs, &ys, ridge, &mut b);
                    (v, b)
                },
                hvp: Some(&|c, v| fit_hvp(c, &xs, &ys, ridge, v.to_vec())),
                hessian: Some(&|c| fit_hessian(c, &xs, &ys, ridge)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (20) Great-circle navigation: the haversine distance (`asin` of a `clamp`ed root, `f64::EPSILON`),
// the initial bearing by `atan2`, a route's length summed backwards with `.iter().rev()` over
// a list of leg indices, the nearest waypoint found as an `Option<usize>` read by `match` (`if let`
// gets a clear error), a
// penalty `max(0.0)` beyond a range held by `stop_gradient` of the scale, and the route at `order = 2`.

// `if let` gets the macro's clear error, so the body matches one pattern (clippy's single_match).
#[allow(clippy::single_match)]
mod navigation {
    use super::*;
    use autodiff::{differentiable, stop_gradient};

    pub const R: f64 = 6371.0;

    #[differentiable(order = 2)]
    pub fn haversine(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
        let dlat = lat2 - lat1;
        let dlon = lon2 - lon1;
        let a = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
        let root = (a + f64::EPSILON).sqrt().clamp(0.0, 1.0);
        2.0 * R * root.asin()
    }

    #[differentiable]
    pub fn bearing(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
        let dlon = lon2 - lon1;
        let y = dlon.sin() * lat2.cos();
        let x = lat1.cos() * lat2.sin() - lat1.sin() * lat2.cos() * dlon.cos();
        y.atan2(x)
    }

    /// The length of the route through `pts` (`[lat0, lon0, lat1, lon1, ..]`), with a penalty on legs
    /// longer than `range`, plus the distance from `home` to the nearest waypoint.
    #[differentiable(wrt(pts), order = 2)]
    pub fn route(pts: &[f64], home: [f64; 2], range: f64) -> f64 {
        let n = pts.len() / 2;
        let legs: Vec<usize> = (1..n).collect();
        let mut total = 0.0;
        for &k in legs.iter().rev() {
            let d = haversine(pts[2 * k - 2], pts[2 * k - 1], pts[2 * k], pts[2 * k + 1]);
            let scale = stop_gradient(range);
            total += d + 10.0 * ((d - range) / scale).max(0.0).powi(2);
        }
        let mut nearest: Option<usize> = None;
        let mut best = f64::INFINITY;
        for k in 0..n {
            let d = haversine(home[0], home[1], pts[2 * k], pts[2 * k + 1]);
            if d < best {
                best = d;
                nearest = Some(k);
            }
        }
        // `if let Some(k) = nearest` gets a clear error (`if let` is outside API.md): a `match`.
        match nearest {
            Some(k) => total += haversine(home[0], home[1], pts[2 * k], pts[2 * k + 1]),
            None => {}
        }
        total
    }

    #[test]
    fn distances_bearings_and_route() {
        // A quarter of the equator, and pole to equator.
        let q = std::f64::consts::FRAC_PI_2;
        assert_close(haversine(0.0, 0.0, 0.0, q), R * q, 1e-6, "equator");
        assert_close(bearing(0.0, 0.0, 0.0, q), q, 1e-12, "due east");
        for p in points(4511, 4, 12, -1.0, 1.0) {
            let (_, g) = haversine_grad(p[0], p[1], p[2], p[3]);
            common::assert_fd_gradient(
                |x| haversine(x[0], x[1], x[2], x[3]),
                &p,
                &[g.0, g.1, g.2, g.3],
                "haversine",
            );
            let (_, gb) = bearing_grad(p[0], p[1], p[2], p[3]);
            common::assert_fd_gradient(
                |x| bearing(x[0], x[1], x[2], x[3]),
                &p,
                &[gb.0, gb.1, gb.2, gb.3],
                "bearing",
            );
            // Moving the start along the bearing shortens the distance at rate R.
            let b = bearing(p[0], p[1], p[2], p[3]);
            let along = g.0 * b.cos() + g.1 * b.sin() / p[0].cos();
            assert_close(along, -R, 1e-6, "d/ds along the bearing");
        }
        let home = [0.1, 0.2];
        let pts = points(4512, 8, 10, -0.3, 0.3);
        for x in &pts {
            let (v, g) = route_grad(x, home, 300.0);
            assert_eq!(v, route(x, home, 300.0));
            let mut b = vec![f64::NAN; 8];
            route_grad_into(x, home, 300.0, &mut b);
            same_bits(&b, &g, "navigation::route");
        }
        audit(
            &Items {
                what: "navigation::route",
                primal: &|x| route(x, home, 300.0),
                grad: &|x| route_grad(x, home, 300.0),
                vjp: &|x, d| route_vjp(x, home, 300.0, d),
                jvp: &|x, t| route_jvp(x, home, 300.0, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![f64::NAN; 8];
                    let v = route_grad_into(x, home, 300.0, &mut b);
                    (v, b)
                },
                hvp: Some(&|x, v| route_hvp(x, home, 300.0, v.to_vec())),
                hessian: Some(&|x| route_hessian(x, home, 300.0)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (R2) Regression: a local `Option<usize>` (`let mut best: Option<usize> = None; .. best = Some(k);`)
// read by `match`. `Some(k)` is a call the generic code makes as written and lifts to its float type
// (`__private::lift`), which had no `Lift` for `Option`: a rustc error inside the generated code, at
// first order too. `Option<X>` now lifts inside.

mod option_local {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn last_positive_squared(x: &[f64]) -> f64 {
        let mut best: Option<usize> = None;
        for k in 0..x.len() {
            if x[k] > 0.0 {
                best = Some(k);
            }
        }
        match best {
            Some(k) => x[k] * x[k] * x[0],
            None => 0.0,
        }
    }

    #[test]
    fn option_index_by_hand() {
        for p in points(4521, 4, 12, -1.0, 1.0) {
            let (v, g, h) = last_positive_squared_hessian(&p);
            assert_eq!(v, last_positive_squared(&p));
            let mut eg = vec![0.0; 4];
            let mut eh = vec![vec![0.0; 4]; 4];
            if let Some(k) = (0..4).rev().find(|&k| p[k] > 0.0) {
                if k == 0 {
                    eg[0] = 3.0 * p[0] * p[0];
                    eh[0][0] = 6.0 * p[0];
                } else {
                    eg[k] = 2.0 * p[k] * p[0];
                    eg[0] = p[k] * p[k];
                    eh[k][k] = 2.0 * p[0];
                    eh[k][0] = 2.0 * p[k];
                    eh[0][k] = 2.0 * p[k];
                }
            }
            assert_all_close(&g, &eg, 1e-15, "gradient by hand");
            for i in 0..4 {
                assert_all_close(&h[i], &eh[i], 1e-15, "Hessian by hand");
            }
        }
    }
}
