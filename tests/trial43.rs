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
            let ys: Vec<f64> = YS.iter().zip(wave(n, p[0])).map(|(y, w)| y + 0.2 * w).collect();
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
            let fd: Vec<f64> = up.iter().zip(&down).map(|(a, b)| (a - b) / (2.0 * h)).collect();
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
                p.iter().map(|v| v.powi(4) - 16.0 * v * v + 5.0 * v).sum::<f64>() / 2.0,
                1e-14,
                "styblinski value",
            );
            for i in 0..4 {
                assert_close(g[i], 2.0 * x[i].powi(3) - 16.0 * x[i] + 2.5, 1e-12, "st grad");
                for j in 0..4 {
                    let e = if i == j { 6.0 * x[i] * x[i] - 16.0 } else { 0.0 };
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
