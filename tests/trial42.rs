//! An outside test suite written against API.md alone (session 42), by a user writing small real
//! projects: each module is one project of a few functions calling one another (free functions,
//! `Self::` helpers, methods, `super::`/`crate::` paths), in the idioms numeric Rust is written in,
//! chosen to stress the reverse sweep: values overwritten in loops, dynamic-programming tables,
//! iterative solvers differentiated through, and early exits.
//!
//! For each: the value against a plain computation, `_grad` against central differences on seeded
//! points (and by hand where the formula is short), `_grad_into` bit for bit equal to `_grad`,
//! `_vjp` against `_jvp` (`c · (J t) = (c J) · t`) for vector results, `_jacobian` against
//! differences, and at `order = 2` the Hessian against differences of `_grad` and `_hvp` against the
//! Hessian times `v` (through `common::contract::audit`).

// `&Vec<f64>` parameters, index loops (copies and swaps element by element too) and long argument
// lists are what the projects are written with.
#![allow(
    clippy::ptr_arg,
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::manual_swap,
    clippy::type_complexity,
    clippy::too_many_arguments
)]

mod common;

use common::contract::{audit, flatten, rows, Items};
use common::{
    arr, assert_all_close, assert_close, assert_fd_gradient, check_dual, check_jacobian, dot,
    points, same_bits, wave,
};

// ---------------------------------------------------------------------------------------------------
// (1) Sinkhorn optimal transport: a Gibbs kernel built into a local matrix, scaling vectors `u`, `v`
// updated in place for a fixed number of iterations, rows of the local matrix passed to a helper; the
// transport cost at `order = 2` over the cost matrix and the source marginal.

mod sinkhorn {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn row_dot(row: &[f64], v: &[f64]) -> f64 {
        row.iter().zip(v).map(|(k, x)| k * x).sum::<f64>()
    }

    #[differentiable(wrt(cost, a), order = 2)]
    pub fn transport(cost: &[Vec<f64>], a: &[f64], b: &[f64], eps: f64, iters: usize) -> f64 {
        let n = a.len();
        let m = b.len();
        let mut k = vec![vec![0.0; m]; n];
        for i in 0..n {
            for j in 0..m {
                k[i][j] = (-cost[i][j] / eps).exp();
            }
        }
        let mut u = vec![1.0; n];
        let mut v = vec![1.0; m];
        for _ in 0..iters {
            for i in 0..n {
                u[i] = a[i] / row_dot(&k[i], &v);
            }
            for j in 0..m {
                let mut s = 0.0;
                for i in 0..n {
                    s += k[i][j] * u[i];
                }
                v[j] = b[j] / s;
            }
        }
        let mut total = 0.0;
        for i in 0..n {
            for j in 0..m {
                total += u[i] * k[i][j] * v[j] * cost[i][j];
            }
        }
        total
    }

    /// The transport plan's entropy-regularised objective through `super::` and a log-domain update:
    /// potentials `f`, `g` overwritten each iteration by a soft-min over a row or a column.
    #[differentiable]
    pub fn softmin(values: &[f64], eps: f64) -> f64 {
        let m = values.iter().fold(f64::INFINITY, |acc, &x| acc.min(x));
        m - eps
            * values
                .iter()
                .map(|&x| (-(x - m) / eps).exp())
                .sum::<f64>()
                .ln()
    }

    #[differentiable(wrt(cost), order = 2)]
    pub fn log_domain(cost: &[Vec<f64>], a: &[f64], b: &[f64], eps: f64, iters: usize) -> f64 {
        let n = a.len();
        let m = b.len();
        let mut f = vec![0.0; n];
        let mut g = vec![0.0; m];
        let mut scratch = vec![0.0; m.max(n)];
        for _ in 0..iters {
            for i in 0..n {
                for j in 0..m {
                    scratch[j] = cost[i][j] - g[j] - eps * b[j].ln();
                }
                f[i] = softmin(&scratch[..m], eps);
            }
            for j in 0..m {
                for i in 0..n {
                    scratch[i] = cost[i][j] - f[i] - eps * a[i].ln();
                }
                g[j] = softmin(&scratch[..n], eps);
            }
        }
        let dual: f64 = f.iter().zip(a).map(|(fi, ai)| fi * ai).sum::<f64>()
            + g.iter().zip(b).map(|(gj, bj)| gj * bj).sum::<f64>();
        dual
    }

    fn plain(cost: &[Vec<f64>], a: &[f64], b: &[f64], eps: f64, iters: usize) -> f64 {
        let (n, m) = (a.len(), b.len());
        let k: Vec<Vec<f64>> = cost
            .iter()
            .map(|r| r.iter().map(|c| (-c / eps).exp()).collect())
            .collect();
        let (mut u, mut v) = (vec![1.0; n], vec![1.0; m]);
        for _ in 0..iters {
            for i in 0..n {
                u[i] = a[i] / (0..m).map(|j| k[i][j] * v[j]).sum::<f64>();
            }
            for j in 0..m {
                v[j] = b[j] / (0..n).map(|i| k[i][j] * u[i]).sum::<f64>();
            }
        }
        (0..n)
            .flat_map(|i| (0..m).map(move |j| (i, j)))
            .map(|(i, j)| u[i] * k[i][j] * v[j] * cost[i][j])
            .sum()
    }

    const A: [f64; 3] = [0.2, 0.5, 0.3];
    const B: [f64; 4] = [0.1, 0.4, 0.3, 0.2];

    #[test]
    fn transport_audit() {
        let (eps, iters) = (0.7, 6);
        let split = |x: &[f64]| (rows(&x[..12], 4), x[12..15].to_vec());
        let pts: Vec<Vec<f64>> = points(4201, 15, 10, 0.1, 1.2)
            .into_iter()
            .map(|mut p| {
                // The marginal stays positive: 0.1..1.2 as drawn.
                p[12] *= 0.5;
                p
            })
            .collect();
        for p in &pts {
            let (c, a) = split(p);
            assert_close(
                transport(&c, &a, &B, eps, iters),
                plain(&c, &a, &B, eps, iters),
                1e-12,
                "sinkhorn value",
            );
        }
        audit(
            &Items {
                what: "sinkhorn::transport",
                primal: &|x| {
                    let (c, a) = split(x);
                    transport(&c, &a, &B, eps, iters)
                },
                grad: &|x| {
                    let (c, a) = split(x);
                    let (v, (gc, ga)) = transport_grad(&c, &a, &B, eps, iters);
                    (v, [flatten(&gc), ga].concat())
                },
                vjp: &|x, d| {
                    let (c, a) = split(x);
                    let (v, (gc, ga)) = transport_vjp(&c, &a, &B, eps, iters, d);
                    (v, [flatten(&gc), ga].concat())
                },
                jvp: &|x, t| {
                    let (c, a) = split(x);
                    let (tc, ta) = split(t);
                    transport_jvp(&c, &a, &B, eps, iters, (tc, ta))
                },
                grad_into: &|x| {
                    let (c, a) = split(x);
                    let mut gc = vec![vec![f64::NAN; 4]; 3];
                    let mut ga = vec![f64::NAN; 3];
                    let v = transport_grad_into(&c, &a, &B, eps, iters, (&mut gc, &mut ga));
                    let (_, (gc2, ga2)) = transport_grad(&c, &a, &B, eps, iters);
                    same_bits(&flatten(&gc), &flatten(&gc2), "sinkhorn cost");
                    same_bits(&ga, &ga2, "sinkhorn marginal");
                    (v, [flatten(&gc), ga].concat())
                },
                hvp: Some(&|x, w| {
                    let (c, a) = split(x);
                    let (wc, wa) = split(w);
                    let (f, (gc, ga), (hc, ha)) = transport_hvp(&c, &a, &B, eps, iters, (wc, wa));
                    (f, [flatten(&gc), ga].concat(), [flatten(&hc), ha].concat())
                }),
                hessian: Some(&|x| {
                    let (c, a) = split(x);
                    let (f, (gc, ga), h) = transport_hessian(&c, &a, &B, eps, iters);
                    (f, [flatten(&gc), ga].concat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn log_domain_audit() {
        let (eps, iters) = (0.5, 5);
        let pts = points(4202, 12, 10, 0.0, 1.5);
        for p in &pts {
            // The dual objective after many iterations approaches the primal transport cost plus the
            // entropy term; here only check the finite value and the items.
            assert!(log_domain(&rows(p, 4), &A, &B, eps, iters).is_finite());
        }
        audit(
            &Items {
                what: "sinkhorn::log_domain",
                primal: &|x| log_domain(&rows(x, 4), &A, &B, eps, iters),
                grad: &|x| {
                    let (v, g) = log_domain_grad(&rows(x, 4), &A, &B, eps, iters);
                    (v, flatten(&g))
                },
                vjp: &|x, d| {
                    let (v, g) = log_domain_vjp(&rows(x, 4), &A, &B, eps, iters, d);
                    (v, flatten(&g))
                },
                jvp: &|x, t| log_domain_jvp(&rows(x, 4), &A, &B, eps, iters, rows(t, 4)),
                grad_into: &|x| {
                    let mut g = vec![vec![f64::NAN; 4]; 3];
                    let v = log_domain_grad_into(&rows(x, 4), &A, &B, eps, iters, &mut g);
                    (v, flatten(&g))
                },
                hvp: Some(&|x, w| {
                    let (f, g, h) = log_domain_hvp(&rows(x, 4), &A, &B, eps, iters, rows(w, 4));
                    (f, flatten(&g), flatten(&h))
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = log_domain_hessian(&rows(x, 4), &A, &B, eps, iters);
                    (f, flatten(&g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) Soft-DTW between two series: an `(n + 1) x (m + 1)` DP table of `Vec<Vec<f64>>` with infinite
// borders, each cell a soft-min of three neighbours through a log-sum-exp helper.

mod soft_dtw {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn logsumexp3(a: f64, b: f64, c: f64) -> f64 {
        let m = a.max(b).max(c);
        m + ((a - m).exp() + (b - m).exp() + (c - m).exp()).ln()
    }

    #[differentiable(order = 2)]
    pub fn softmin3(a: f64, b: f64, c: f64, gamma: f64) -> f64 {
        -gamma * logsumexp3(-a / gamma, -b / gamma, -c / gamma)
    }

    #[differentiable(wrt(x), order = 2)]
    pub fn soft_dtw(x: &[f64], y: &[f64], gamma: f64) -> f64 {
        let n = x.len();
        let m = y.len();
        // A border that no path takes: finite, so no rule ever meets an infinite value.
        let mut r = vec![vec![1e10; m + 1]; n + 1];
        r[0][0] = 0.0;
        for i in 1..=n {
            for j in 1..=m {
                let cost = (x[i - 1] - y[j - 1]).powi(2);
                r[i][j] = cost + softmin3(r[i - 1][j - 1], r[i - 1][j], r[i][j - 1], gamma);
            }
        }
        r[n][m]
    }

    /// The divergence `D(x, y) = sdtw(x, y) - (sdtw(x, x) + sdtw(y, y)) / 2`, both series active.
    #[differentiable(order = 2)]
    pub fn divergence(x: &[f64], y: &[f64]) -> f64 {
        let gamma = 0.3;
        soft_dtw(x, y, gamma) - 0.5 * (soft_dtw(x, x, gamma) + soft_dtw(y, y, gamma))
    }

    fn plain(x: &[f64], y: &[f64], gamma: f64) -> f64 {
        let (n, m) = (x.len(), y.len());
        let mut r = vec![vec![f64::INFINITY; m + 1]; n + 1];
        r[0][0] = 0.0;
        for i in 1..=n {
            for j in 1..=m {
                let c = [r[i - 1][j - 1], r[i - 1][j], r[i][j - 1]];
                let lo = c.iter().cloned().fold(f64::INFINITY, f64::min);
                let s: f64 = c.iter().map(|v| (-(v - lo) / gamma).exp()).sum();
                r[i][j] = (x[i - 1] - y[j - 1]).powi(2) + lo - gamma * s.ln();
            }
        }
        r[n][m]
    }

    /// The same table with the textbook's infinite borders: a caller passes `gamma` as a constant, so
    /// `softmin3_jvp` gets the tangent 0 for it, and the tangent of `-b / gamma` at `b = inf` was
    /// `0 * -(-inf / gamma) / gamma = NaN` (`rules.rs`, `Partial::TimesOver`): `f_jvp` was NaN where
    /// `f_grad` and `f_hessian` were right. A zero tangent now gives zero there, as JAX's symbolic zero.
    #[differentiable(wrt(x), order = 2)]
    pub fn soft_dtw_inf(x: &[f64], y: &[f64], gamma: f64) -> f64 {
        let (n, m) = (x.len(), y.len());
        let mut r = vec![vec![f64::INFINITY; m + 1]; n + 1];
        r[0][0] = 0.0;
        for i in 1..=n {
            for j in 1..=m {
                let best = softmin3(r[i - 1][j - 1], r[i - 1][j], r[i][j - 1], gamma);
                r[i][j] = (x[i - 1] - y[j - 1]).powi(2) + best;
            }
        }
        r[n][m]
    }

    #[test]
    fn infinite_borders_give_a_finite_jvp() {
        // The minimal case: one active argument beside two infinite ones and a constant `gamma`.
        #[differentiable(wrt(x))]
        fn one_cell(x: f64, gamma: f64) -> f64 {
            softmin3(x, f64::INFINITY, f64::INFINITY, gamma)
        }
        assert_eq!(one_cell(0.3, 0.4), 0.3);
        assert_eq!(one_cell_jvp(0.3, 0.4, 1.0), (0.3, 1.0));
        assert_eq!(one_cell_grad(0.3, 0.4), (0.3, 1.0));
        // The direct `_jvp` of the callee with an explicit zero tangent for the infinite arguments.
        let (_, d) = softmin3_jvp(0.3, f64::INFINITY, f64::INFINITY, 0.4, (1.0, 0.0, 0.0, 0.0));
        assert_eq!(d, 1.0);
        let gamma = 0.4;
        for p in points(4205, 5, 10, -1.0, 1.0) {
            assert_close(
                soft_dtw_inf(&p, &Y, gamma),
                plain(&p, &Y, gamma),
                1e-12,
                "value",
            );
            let (v, g) = soft_dtw_inf_grad(&p, &Y, gamma);
            assert_eq!(v, soft_dtw(&p, &Y, gamma));
            assert_fd_gradient(|x| soft_dtw_inf(x, &Y, gamma), &p, &g, "soft_dtw_inf");
            let t = wave(5, 0.4);
            let (_, jt) = soft_dtw_inf_jvp(&p, &Y, gamma, t.clone());
            assert!(jt.is_finite(), "soft_dtw_inf_jvp at {p:?}: {jt}");
            assert_close(jt, dot(&g, &t), 1e-12, "soft_dtw_inf: jvp against grad · t");
            let (_, _, h) = soft_dtw_inf_hessian(&p, &Y, gamma);
            let (_, _, h_big) = soft_dtw_hessian(&p, &Y, gamma);
            for (a, b) in h.iter().zip(&h_big) {
                assert_all_close(a, b, 1e-12, "soft_dtw_inf Hessian against finite borders");
            }
        }
    }

    const Y: [f64; 4] = [0.3, -0.2, 0.8, 0.1];

    #[test]
    fn soft_dtw_audit() {
        let gamma = 0.4;
        let pts = points(4203, 5, 12, -1.0, 1.0);
        for p in &pts {
            assert_close(soft_dtw(p, &Y, gamma), plain(p, &Y, gamma), 1e-12, "sdtw");
        }
        audit(
            &Items {
                what: "soft_dtw::soft_dtw",
                primal: &|x| soft_dtw(x, &Y, gamma),
                grad: &|x| soft_dtw_grad(x, &Y, gamma),
                vjp: &|x, d| soft_dtw_vjp(x, &Y, gamma, d),
                jvp: &|x, t| soft_dtw_jvp(x, &Y, gamma, t.to_vec()),
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; x.len()];
                    let v = soft_dtw_grad_into(x, &Y, gamma, &mut g);
                    same_bits(&g, &soft_dtw_grad(x, &Y, gamma).1, "sdtw");
                    (v, g)
                },
                hvp: Some(&|x, w| soft_dtw_hvp(x, &Y, gamma, w.to_vec())),
                hessian: Some(&|x| soft_dtw_hessian(x, &Y, gamma)),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn divergence_audit() {
        let pts = points(4204, 7, 10, -1.0, 1.0);
        let split = |x: &[f64]| (x[..4].to_vec(), x[4..].to_vec());
        for p in &pts {
            let (x, y) = split(p);
            assert_close(
                divergence(&x, &y),
                plain(&x, &y, 0.3) - 0.5 * (plain(&x, &x, 0.3) + plain(&y, &y, 0.3)),
                1e-12,
                "divergence",
            );
            // Symmetric in its two series.
            assert_close(divergence(&x, &y), divergence(&y, &x), 1e-12, "symmetric");
        }
        audit(
            &Items {
                what: "soft_dtw::divergence",
                primal: &|p| {
                    let (x, y) = split(p);
                    divergence(&x, &y)
                },
                grad: &|p| {
                    let (x, y) = split(p);
                    let (v, (gx, gy)) = divergence_grad(&x, &y);
                    (v, [gx, gy].concat())
                },
                vjp: &|p, d| {
                    let (x, y) = split(p);
                    let (v, (gx, gy)) = divergence_vjp(&x, &y, d);
                    (v, [gx, gy].concat())
                },
                jvp: &|p, t| {
                    let (x, y) = split(p);
                    divergence_jvp(&x, &y, split(t))
                },
                grad_into: &|p| {
                    let (x, y) = split(p);
                    let mut gx = vec![f64::NAN; 4];
                    let mut gy = vec![f64::NAN; 3];
                    let v = divergence_grad_into(&x, &y, (&mut gx, &mut gy));
                    (v, [gx, gy].concat())
                },
                hvp: Some(&|p, w| {
                    let (x, y) = split(p);
                    let (f, (gx, gy), (hx, hy)) = divergence_hvp(&x, &y, split(w));
                    (f, [gx, gy].concat(), [hx, hy].concat())
                }),
                hessian: Some(&|p| {
                    let (x, y) = split(p);
                    let (f, (gx, gy), h) = divergence_hessian(&x, &y);
                    (f, [gx, gy].concat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) Kepler's equation `E - e sin E = M` solved inside the function by Newton's method (a fixed count,
// and a `while` with a compound condition and an early `break`), differentiated through the solver;
// the position on the orbit as an array, and a fit of the orbit's elements at `order = 2`.

mod kepler {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    #[differentiable(order = 2)]
    pub fn eccentric(mean: f64, e: f64) -> f64 {
        let mut ea = if e > 0.8 { PI } else { mean };
        for _ in 0..25 {
            let f = ea - e * ea.sin() - mean;
            let fp = 1.0 - e * ea.cos();
            ea -= f / fp;
        }
        ea
    }

    #[differentiable(order = 2)]
    pub fn eccentric_early(mean: f64, e: f64) -> f64 {
        let mut ea = mean + e * mean.sin();
        let mut iter = 0;
        while iter < 50 && e >= 0.0 {
            let step = (ea - e * ea.sin() - mean) / (1.0 - e * ea.cos());
            ea -= step;
            iter += 1;
            if step.abs() < 1e-15 {
                break;
            }
        }
        ea
    }

    /// The position in the orbital plane: `[a (cos E - e), b sin E]`.
    #[differentiable]
    pub fn position(a: f64, mean: f64, e: f64) -> [f64; 2] {
        let ea = eccentric(mean, e);
        let b = a * (1.0 - e * e).sqrt();
        [a * (ea.cos() - e), b * ea.sin()]
    }

    /// The true anomaly by `atan2` of the half-angle form.
    #[differentiable(order = 2)]
    pub fn true_anomaly(mean: f64, e: f64) -> f64 {
        let half = 0.5 * eccentric_early(mean, e);
        2.0 * ((1.0 + e).sqrt() * half.sin()).atan2((1.0 - e).sqrt() * half.cos())
    }

    /// Squared distances to observed positions; `params = [a, n, e]` (semi-major axis, mean motion,
    /// eccentricity).
    #[differentiable(wrt(params), order = 2)]
    pub fn fit(params: [f64; 3], times: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (k, &t) in times.iter().enumerate() {
            let p = position(params[0], params[1] * t, params[2]);
            loss += (p[0] - xs[k]).powi(2) + (p[1] - ys[k]).powi(2);
        }
        loss
    }

    fn solve(mean: f64, e: f64) -> f64 {
        let mut ea = mean;
        for _ in 0..100 {
            ea -= (ea - e * ea.sin() - mean) / (1.0 - e * ea.cos());
        }
        ea
    }

    #[test]
    fn solver_against_the_implicit_derivative() {
        for p in points(4210, 2, 14, 0.0, 1.0) {
            let (mean, e) = (-3.0 + 6.0 * p[0], 0.9 * p[1]);
            let ea = solve(mean, e);
            for (f, g) in [
                (eccentric(mean, e), eccentric_grad(mean, e)),
                (eccentric_early(mean, e), eccentric_early_grad(mean, e)),
            ] {
                assert_close(f, ea, 1e-12, "E");
                assert_eq!(g.0, f);
                // Implicit differentiation of E - e sin E = M.
                let denom = 1.0 - e * ea.cos();
                assert_close(g.1 .0, 1.0 / denom, 1e-9, "dE/dM");
                assert_close(g.1 .1, ea.sin() / denom, 1e-9, "dE/de");
            }
            // d²E/dM² = -e sin E (dE/dM)³ by differentiating (1 - e cos E) E' = 1 again.
            let (_, _, h) = eccentric_hessian(mean, e);
            let (_, _, h2) = eccentric_early_hessian(mean, e);
            let d1 = 1.0 / (1.0 - e * ea.cos());
            assert_close(h[0][0], -e * ea.sin() * d1.powi(3), 1e-8, "d2E/dM2");
            assert_close(h2[0][0], -e * ea.sin() * d1.powi(3), 1e-8, "d2E/dM2 early");
            let ders = eccentric_derivatives_check(mean, e);
            assert!(ders.is_finite());
        }
    }

    fn eccentric_derivatives_check(mean: f64, e: f64) -> f64 {
        let (_, g, hv) = eccentric_hvp(mean, e, (1.0, -0.5));
        let (_, _, h) = eccentric_hessian(mean, e);
        assert_close(hv.0, h[0][0] - 0.5 * h[0][1], 1e-12, "hvp row 0");
        assert_close(hv.1, h[1][0] - 0.5 * h[1][1], 1e-12, "hvp row 1");
        g.0 + g.1
    }

    #[test]
    fn audits() {
        let pts: Vec<Vec<f64>> = points(4211, 2, 10, 0.0, 1.0)
            .into_iter()
            .map(|p| vec![-3.0 + 6.0 * p[0], 0.85 * p[1]])
            .collect();
        audit(
            &Items {
                what: "kepler::eccentric",
                primal: &|x| eccentric(x[0], x[1]),
                grad: &|x| {
                    let (v, g) = eccentric_grad(x[0], x[1]);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = eccentric_vjp(x[0], x[1], d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| eccentric_jvp(x[0], x[1], (t[0], t[1])),
                grad_into: &|x| {
                    let (mut a, mut b) = (f64::NAN, f64::NAN);
                    let v = eccentric_grad_into(x[0], x[1], (&mut a, &mut b));
                    let g = eccentric_grad(x[0], x[1]).1;
                    same_bits(&[a, b], &[g.0, g.1], "eccentric");
                    (v, vec![a, b])
                },
                hvp: Some(&|x, w| {
                    let (f, g, h) = eccentric_hvp(x[0], x[1], (w[0], w[1]));
                    (f, vec![g.0, g.1], vec![h.0, h.1])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = eccentric_hessian(x[0], x[1]);
                    (f, vec![g.0, g.1], h)
                }),
                analytic: Some(&|x| {
                    let ea = solve(x[0], x[1]);
                    let d = 1.0 - x[1] * ea.cos();
                    vec![1.0 / d, ea.sin() / d]
                }),
            },
            &pts,
        );
        audit(
            &Items {
                what: "kepler::true_anomaly",
                primal: &|x| true_anomaly(x[0], x[1]),
                grad: &|x| {
                    let (v, g) = true_anomaly_grad(x[0], x[1]);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = true_anomaly_vjp(x[0], x[1], d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| true_anomaly_jvp(x[0], x[1], (t[0], t[1])),
                grad_into: &|x| {
                    let (mut a, mut b) = (f64::NAN, f64::NAN);
                    let v = true_anomaly_grad_into(x[0], x[1], (&mut a, &mut b));
                    (v, vec![a, b])
                },
                hvp: Some(&|x, w| {
                    let (f, g, h) = true_anomaly_hvp(x[0], x[1], (w[0], w[1]));
                    (f, vec![g.0, g.1], vec![h.0, h.1])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = true_anomaly_hessian(x[0], x[1]);
                    (f, vec![g.0, g.1], h)
                }),
                analytic: None,
            },
            // Away from the branch cut of atan2 at E = ±pi.
            &pts.iter()
                .map(|p| vec![0.8 * p[0], p[1]])
                .collect::<Vec<_>>(),
        );
    }

    #[test]
    fn position_jacobian_and_fit() {
        for p in points(4212, 3, 10, 0.0, 1.0) {
            let x = [0.5 + p[0], -2.0 + 4.0 * p[1], 0.8 * p[2]];
            let j = position_jacobian(x[0], x[1], x[2]);
            check_jacobian("kepler::position", &x, &j, |y| {
                position(y[0], y[1], y[2]).to_vec()
            });
            let c = [0.7, -1.3];
            let t = [0.4, -0.9, 0.6];
            let (v1, cj) = position_vjp(x[0], x[1], x[2], c);
            let (v2, jt) = position_jvp(x[0], x[1], x[2], (t[0], t[1], t[2]));
            assert_eq!(v1, v2);
            check_dual("kepler::position", &c, &jt, &[cj.0, cj.1, cj.2], &t);
            for r in 0..2 {
                assert_close(
                    dot(&c, &[j[0][r], j[1][r]]),
                    cj_component(cj, r),
                    1e-12,
                    "J",
                );
            }
        }
        let times = [0.0, 0.7, 1.4, 2.1, 2.8, 3.5];
        let truth = [1.3, 0.9, 0.3];
        let xs: Vec<f64> = times
            .iter()
            .map(|&t| position(1.3, 0.9 * t, 0.3)[0])
            .collect();
        let ys: Vec<f64> = times
            .iter()
            .map(|&t| position(1.3, 0.9 * t, 0.3)[1])
            .collect();
        assert!(fit(truth, &times, &xs, &ys) < 1e-24);
        let pts: Vec<Vec<f64>> = points(4213, 3, 10, -0.1, 0.1)
            .into_iter()
            .map(|p| vec![1.3 + p[0], 0.9 + p[1], 0.3 + p[2]])
            .collect();
        audit(
            &Items {
                what: "kepler::fit",
                primal: &|x| fit(arr(x), &times, &xs, &ys),
                grad: &|x| {
                    let (v, g) = fit_grad(arr(x), &times, &xs, &ys);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = fit_vjp(arr(x), &times, &xs, &ys, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| fit_jvp(arr(x), &times, &xs, &ys, arr(t)),
                grad_into: &|x| {
                    let mut g = [f64::NAN; 3];
                    let v = fit_grad_into(arr(x), &times, &xs, &ys, &mut g);
                    same_bits(&g, &fit_grad(arr(x), &times, &xs, &ys).1, "fit");
                    (v, g.to_vec())
                },
                hvp: Some(&|x, w| {
                    let (f, g, h) = fit_hvp(arr(x), &times, &xs, &ys, arr(w));
                    (f, g.to_vec(), h.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = fit_hessian(arr(x), &times, &xs, &ys);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    fn cj_component(cj: (f64, f64, f64), r: usize) -> f64 {
        [cj.0, cj.1, cj.2][r]
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) A softmax cross-entropy classifier, batched, in several shapes: logits rewritten per example into
// one row buffer, a `logsumexp(&z)` helper with the max subtracted, label smoothing; probabilities
// normalised in place; nested-array weights with a `match` on the label; and a method of a model.

mod classifier {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn logsumexp(z: &[f64]) -> f64 {
        let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        m + z.iter().map(|&v| (v - m).exp()).sum::<f64>().ln()
    }

    #[differentiable]
    pub fn affine(w: &[f64], x: &[f64]) -> f64 {
        w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>()
    }

    /// Shape A: the row buffer `z` rewritten for each example, label smoothing.
    #[differentiable(wrt(w, b), order = 2)]
    pub fn loss_a(
        w: &[Vec<f64>],
        b: &[f64],
        xs: &[Vec<f64>],
        labels: &[usize],
        smoothing: f64,
    ) -> f64 {
        let k = b.len();
        let mut z = vec![0.0; k];
        let mut total = 0.0;
        for (x, &y) in xs.iter().zip(labels) {
            for c in 0..k {
                z[c] = b[c] + w[c].iter().zip(x).map(|(wi, xi)| wi * xi).sum::<f64>();
            }
            let lse = logsumexp(&z);
            for c in 0..k {
                let target = if c == y {
                    1.0 - smoothing + smoothing / k as f64
                } else {
                    smoothing / k as f64
                };
                total -= target * (z[c] - lse);
            }
        }
        total / xs.len() as f64
    }

    /// Shape B: the max subtracted and the probabilities normalised in place, `-ln p[y]`.
    #[differentiable(wrt(w), order = 2)]
    pub fn loss_b(w: &[Vec<f64>], xs: &[Vec<f64>], labels: &[usize]) -> f64 {
        let k = w.len();
        let mut p = vec![0.0; k];
        let mut total = 0.0;
        for i in 0..xs.len() {
            let mut m = f64::NEG_INFINITY;
            for c in 0..k {
                p[c] = affine(&w[c], &xs[i]);
                m = m.max(p[c]);
            }
            let mut s = 0.0;
            for c in 0..k {
                p[c] = (p[c] - m).exp();
                s += p[c];
            }
            for c in 0..k {
                p[c] /= s;
            }
            total -= p[labels[i]].ln();
        }
        total / xs.len() as f64
    }

    /// Shape C: nested-array weights, logits into an array, a class weight by `match`, the max
    /// subtracted in place over `.iter_mut()`-free index loops, and weight decay by a nested sum.
    #[differentiable(wrt(w), order = 2)]
    pub fn loss_c(w: [[f64; 3]; 3], xs: &[[f64; 3]], labels: &[usize], decay: f64) -> f64 {
        let mut total = 0.0;
        for (i, x) in xs.iter().enumerate() {
            let mut z = [0.0; 3];
            for c in 0..3 {
                z[c] = w[c][0] * x[0] + w[c][1] * x[1] + w[c][2] * x[2];
            }
            let m = z[0].max(z[1]).max(z[2]);
            for c in 0..3 {
                z[c] -= m;
            }
            let class_weight = match labels[i] {
                0 => 1.0,
                1 | 2 => 0.5,
                _ => 0.0,
            };
            total += class_weight * (logsumexp(&z) - z[labels[i]]);
        }
        let mut l2 = 0.0;
        for row in w.iter() {
            l2 += row.iter().map(|v| v * v).sum::<f64>();
        }
        total + decay * l2
    }

    fn data(seed: u64, n: usize, d: usize, k: usize) -> (Vec<Vec<f64>>, Vec<usize>) {
        let xs = points(seed, d, n, -1.5, 1.5);
        let labels = (0..n).map(|i| (i * 7 + 3) % k).collect();
        (xs, labels)
    }

    fn softmax(z: &[f64]) -> Vec<f64> {
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|v| v / s).collect()
    }

    /// The gradient of shape A by hand: `(p - target) x^T / n` and `(p - target) / n`.
    fn by_hand_a(
        w: &[Vec<f64>],
        b: &[f64],
        xs: &[Vec<f64>],
        labels: &[usize],
        smoothing: f64,
    ) -> Vec<f64> {
        let (k, d, n) = (b.len(), xs[0].len(), xs.len() as f64);
        let mut gw = vec![vec![0.0; d]; k];
        let mut gb = vec![0.0; k];
        for (x, &y) in xs.iter().zip(labels) {
            let z: Vec<f64> = (0..k).map(|c| b[c] + dot(&w[c], x)).collect();
            let p = softmax(&z);
            for c in 0..k {
                let t = if c == y { 1.0 - smoothing } else { 0.0 } + smoothing / k as f64;
                gb[c] += (p[c] - t) / n;
                for j in 0..d {
                    gw[c][j] += (p[c] - t) * x[j] / n;
                }
            }
        }
        [flatten(&gw), gb].concat()
    }

    #[test]
    fn shape_a_by_hand_and_audit() {
        for (k, d, n, seed) in [(3, 2, 5, 4220), (4, 3, 7, 4221), (2, 4, 3, 4222)] {
            let (xs, labels) = data(seed, n, d, k);
            let smoothing = 0.1;
            let split = |x: &[f64]| (rows(&x[..k * d], d), x[k * d..].to_vec());
            let pts = points(seed + 100, k * d + k, 10, -1.0, 1.0);
            audit(
                &Items {
                    what: "classifier::loss_a",
                    primal: &|x| {
                        let (w, b) = split(x);
                        loss_a(&w, &b, &xs, &labels, smoothing)
                    },
                    grad: &|x| {
                        let (w, b) = split(x);
                        let (v, (gw, gb)) = loss_a_grad(&w, &b, &xs, &labels, smoothing);
                        (v, [flatten(&gw), gb].concat())
                    },
                    vjp: &|x, dr| {
                        let (w, b) = split(x);
                        let (v, (gw, gb)) = loss_a_vjp(&w, &b, &xs, &labels, smoothing, dr);
                        (v, [flatten(&gw), gb].concat())
                    },
                    jvp: &|x, t| {
                        let (w, b) = split(x);
                        loss_a_jvp(&w, &b, &xs, &labels, smoothing, split(t))
                    },
                    grad_into: &|x| {
                        let (w, b) = split(x);
                        let mut gw = vec![vec![f64::NAN; d]; k];
                        let mut gb = vec![f64::NAN; k];
                        let v =
                            loss_a_grad_into(&w, &b, &xs, &labels, smoothing, (&mut gw, &mut gb));
                        let (_, (gw2, gb2)) = loss_a_grad(&w, &b, &xs, &labels, smoothing);
                        same_bits(&flatten(&gw), &flatten(&gw2), "loss_a w");
                        same_bits(&gb, &gb2, "loss_a b");
                        (v, [flatten(&gw), gb].concat())
                    },
                    hvp: Some(&|x, v| {
                        let (w, b) = split(x);
                        let (f, (gw, gb), (hw, hb)) =
                            loss_a_hvp(&w, &b, &xs, &labels, smoothing, split(v));
                        (f, [flatten(&gw), gb].concat(), [flatten(&hw), hb].concat())
                    }),
                    hessian: Some(&|x| {
                        let (w, b) = split(x);
                        let (f, (gw, gb), h) = loss_a_hessian(&w, &b, &xs, &labels, smoothing);
                        (f, [flatten(&gw), gb].concat(), h)
                    }),
                    analytic: Some(&|x| {
                        let (w, b) = split(x);
                        by_hand_a(&w, &b, &xs, &labels, smoothing)
                    }),
                },
                &pts,
            );
        }
    }

    #[test]
    fn shape_b_against_shape_a() {
        for (k, d, n, seed) in [(3, 2, 4, 4223), (5, 3, 6, 4224)] {
            let (xs, labels) = data(seed, n, d, k);
            let pts = points(seed + 100, k * d, 10, -1.0, 1.0);
            for p in &pts {
                let w = rows(p, d);
                let zero = vec![0.0; k];
                // Without smoothing and bias, shape A is shape B.
                let (va, (ga, _)) = loss_a_grad(&w, &zero, &xs, &labels, 0.0);
                let (vb, gb) = loss_b_grad(&w, &xs, &labels);
                assert_close(vb, va, 1e-12, "loss_b value");
                assert_all_close(&flatten(&gb), &flatten(&ga), 1e-12, "loss_b gradient");
                let (_, _, ha) = loss_a_hessian(&w, &zero, &xs, &labels, 0.0);
                let (_, _, hb) = loss_b_hessian(&w, &xs, &labels);
                for i in 0..k * d {
                    assert_all_close(&hb[i], &ha[i][..k * d], 1e-10, "loss_b Hessian");
                }
            }
            audit(
                &Items {
                    what: "classifier::loss_b",
                    primal: &|x| loss_b(&rows(x, d), &xs, &labels),
                    grad: &|x| {
                        let (v, g) = loss_b_grad(&rows(x, d), &xs, &labels);
                        (v, flatten(&g))
                    },
                    vjp: &|x, dr| {
                        let (v, g) = loss_b_vjp(&rows(x, d), &xs, &labels, dr);
                        (v, flatten(&g))
                    },
                    jvp: &|x, t| loss_b_jvp(&rows(x, d), &xs, &labels, rows(t, d)),
                    grad_into: &|x| {
                        let mut g = vec![vec![f64::NAN; d]; k];
                        let v = loss_b_grad_into(&rows(x, d), &xs, &labels, &mut g);
                        (v, flatten(&g))
                    },
                    hvp: Some(&|x, v| {
                        let (f, g, h) = loss_b_hvp(&rows(x, d), &xs, &labels, rows(v, d));
                        (f, flatten(&g), flatten(&h))
                    }),
                    hessian: Some(&|x| {
                        let (f, g, h) = loss_b_hessian(&rows(x, d), &xs, &labels);
                        (f, flatten(&g), h)
                    }),
                    analytic: None,
                },
                &pts,
            );
        }
    }

    #[test]
    fn shape_c_audit() {
        use common::contract::nested;
        let xs: Vec<[f64; 3]> = points(4225, 3, 6, -2.0, 2.0)
            .iter()
            .map(|p| arr(p))
            .collect();
        let labels = [0, 1, 2, 2, 0, 1];
        let decay = 0.05;
        let pts = points(4226, 9, 10, -1.0, 1.0);
        for p in &pts {
            let w: [[f64; 3]; 3] = nested(p);
            let mut expected = 0.0;
            for (x, &y) in xs.iter().zip(&labels) {
                let z: Vec<f64> = w.iter().map(|r| dot(r, x)).collect();
                let weight = [1.0, 0.5, 0.5, 0.0][y];
                if y < 3 {
                    expected -= weight * softmax(&z)[y].ln();
                }
            }
            expected += decay * p.iter().map(|v| v * v).sum::<f64>();
            assert_close(loss_c(w, &xs, &labels, decay), expected, 1e-12, "loss_c");
        }
        audit(
            &Items {
                what: "classifier::loss_c",
                primal: &|x| loss_c(nested(x), &xs, &labels, decay),
                grad: &|x| {
                    let (v, g) = loss_c_grad(nested(x), &xs, &labels, decay);
                    (v, flatten(&g))
                },
                vjp: &|x, dr| {
                    let (v, g) = loss_c_vjp(nested(x), &xs, &labels, decay, dr);
                    (v, flatten(&g))
                },
                jvp: &|x, t| loss_c_jvp(nested(x), &xs, &labels, decay, nested(t)),
                grad_into: &|x| {
                    let mut g = [[f64::NAN; 3]; 3];
                    let v = loss_c_grad_into(nested(x), &xs, &labels, decay, &mut g);
                    (v, flatten(&g))
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = loss_c_hvp(nested(x), &xs, &labels, decay, nested(v));
                    (f, flatten(&g), flatten(&h))
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = loss_c_hessian(nested(x), &xs, &labels, decay);
                    (f, flatten(&g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) A minimal gated recurrent cell over a sequence: a `[f64; 3]` state replaced each step by a
// helper that returns an array, the state's neighbour read by `(i + 1) % 3`; the cell's `_jacobian`,
// the final state's `_jacobian` over the weights, and a sequence loss at `order = 2`.

mod gru {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// `p` holds six weights per unit: update gate (input, state), reset gate (input, neighbour),
    /// candidate (input, reset state).
    #[differentiable]
    pub fn cell(h: [f64; 3], x: f64, p: &[f64]) -> [f64; 3] {
        let mut out = [0.0; 3];
        for i in 0..3 {
            let base = 6 * i;
            let z = sigmoid(p[base] * x + p[base + 1] * h[i]);
            let r = sigmoid(p[base + 2] * x + p[base + 3] * h[(i + 1) % 3]);
            let cand = (p[base + 4] * x + p[base + 5] * r * h[i]).tanh();
            out[i] = (1.0 - z) * h[i] + z * cand;
        }
        out
    }

    #[differentiable(wrt(p))]
    pub fn final_state(p: &[f64], xs: &[f64]) -> [f64; 3] {
        let mut h = [0.1, -0.2, 0.3];
        for &x in xs {
            h = cell(h, x, p);
        }
        h
    }

    /// Squared error of the summed state after each step against a target series, later steps
    /// weighted more, read back through `.iter().rev()` of the stored states.
    #[differentiable(wrt(p), order = 2)]
    pub fn sequence_loss(p: &[f64], xs: &[f64], targets: &[f64]) -> f64 {
        let mut h = [0.0; 3];
        let mut sums = vec![0.0; xs.len()];
        for (t, &x) in xs.iter().enumerate() {
            h = cell(h, x, p);
            sums[t] = h.iter().sum::<f64>();
        }
        let mut loss = 0.0;
        let mut weight = 1.0;
        for (s, y) in sums.iter().rev().zip(targets.iter().rev()) {
            loss += weight * (s - y).powi(2);
            weight *= 0.8;
        }
        loss
    }

    fn plain_cell(h: [f64; 3], x: f64, p: &[f64]) -> [f64; 3] {
        let s = |v: f64| 1.0 / (1.0 + (-v).exp());
        let mut out = [0.0; 3];
        for i in 0..3 {
            let q = &p[6 * i..6 * i + 6];
            let z = s(q[0] * x + q[1] * h[i]);
            let r = s(q[2] * x + q[3] * h[(i + 1) % 3]);
            out[i] = (1.0 - z) * h[i] + z * (q[4] * x + q[5] * r * h[i]).tanh();
        }
        out
    }

    const XS: [f64; 6] = [0.5, -0.3, 0.9, 0.1, -0.7, 0.4];
    const TARGETS: [f64; 6] = [0.2, 0.1, 0.4, 0.3, -0.1, 0.2];

    #[test]
    fn cell_jacobian_and_duality() {
        for q in points(4230, 22, 10, -1.0, 1.0) {
            let h: [f64; 3] = arr(&q);
            let (x, p) = (q[3], &q[4..]);
            assert_eq!(cell(h, x, p), plain_cell(h, x, p));
            let j = cell_jacobian(h, x, p);
            check_jacobian("gru::cell", &q, &j, |y| {
                cell(arr(y), y[3], &y[4..]).to_vec()
            });
            let c = [0.3, -0.8, 1.1];
            let t = wave(22, 0.2);
            let (v1, (gh, gx, gp)) = cell_vjp(h, x, p, c);
            let (v2, jt) = cell_jvp(h, x, p, (arr(&t), t[3], t[4..].to_vec()));
            assert_eq!(v1, v2);
            let cj = [gh.to_vec(), vec![gx], gp].concat();
            check_dual("gru::cell", &c, &jt, &cj, &t);
            // The Jacobian's rows are the vjp of the unit cotangents.
            for r in 0..3 {
                let mut e = [0.0; 3];
                e[r] = 1.0;
                let (_, (gh, gx, gp)) = cell_vjp(h, x, p, e);
                assert_all_close(&j[r], &[gh.to_vec(), vec![gx], gp].concat(), 1e-12, "row");
            }
        }
    }

    #[test]
    fn final_state_jacobian_against_differences() {
        for p in points(4231, 18, 10, -1.2, 1.2) {
            let j = final_state_jacobian(&p, &XS);
            check_jacobian("gru::final_state", &p, &j, |q| final_state(q, &XS).to_vec());
            let c = [0.5, 0.25, -1.0];
            let t = wave(18, 1.3);
            let (_, cj) = final_state_vjp(&p, &XS, c);
            let (_, jt) = final_state_jvp(&p, &XS, t.clone());
            check_dual("gru::final_state", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn sequence_loss_audit() {
        let pts = points(4232, 18, 10, -1.2, 1.2);
        for p in &pts {
            let mut h = [0.0; 3];
            let mut sums = Vec::new();
            for &x in &XS {
                h = plain_cell(h, x, p);
                sums.push(h.iter().sum::<f64>());
            }
            let expected: f64 = (0..6)
                .map(|t| 0.8f64.powi(5 - t as i32) * (sums[t] - TARGETS[t]).powi(2))
                .sum();
            assert_close(sequence_loss(p, &XS, &TARGETS), expected, 1e-12, "value");
        }
        audit(
            &Items {
                what: "gru::sequence_loss",
                primal: &|x| sequence_loss(x, &XS, &TARGETS),
                grad: &|x| sequence_loss_grad(x, &XS, &TARGETS),
                vjp: &|x, d| sequence_loss_vjp(x, &XS, &TARGETS, d),
                jvp: &|x, t| sequence_loss_jvp(x, &XS, &TARGETS, t.to_vec()),
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; 18];
                    let v = sequence_loss_grad_into(x, &XS, &TARGETS, &mut g);
                    same_bits(&g, &sequence_loss_grad(x, &XS, &TARGETS).1, "gru");
                    (v, g)
                },
                hvp: Some(&|x, v| sequence_loss_hvp(x, &XS, &TARGETS, v.to_vec())),
                hessian: Some(&|x| sequence_loss_hessian(x, &XS, &TARGETS)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) A 1-D nonlinear finite-element bar: element forces from a helper returning a tuple, assembled
// into a residual output parameter `&mut [f64]` (zeroed first, `+=` per element, a Dirichlet row);
// its `_jacobian` is the tangent stiffness; the stored energy at `order = 2`, whose gradient is the
// residual and whose Hessian is the stiffness; Newton's method on the residual with the Jacobian.

mod fem_bar {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn element_force(u0: f64, u1: f64, len: f64, stiff: f64, alpha: f64) -> (f64, f64) {
        let strain = (u1 - u0) / len;
        let stress = stiff * (strain + alpha * strain.powi(3));
        (-stress, stress)
    }

    #[differentiable(wrt(u, stiff))]
    pub fn residual(u: &[f64], stiff: &[f64], nodes: &[f64], load: f64, alpha: f64, r: &mut [f64]) {
        for i in 0..r.len() {
            r[i] = 0.0;
        }
        for e in 0..stiff.len() {
            let (f0, f1) = element_force(u[e], u[e + 1], nodes[e + 1] - nodes[e], stiff[e], alpha);
            r[e] += f0;
            r[e + 1] += f1;
        }
        let last = r.len() - 1;
        r[last] -= load;
        r[0] = u[0];
    }

    #[differentiable(wrt(u), order = 2)]
    pub fn energy(u: &[f64], stiff: &[f64], nodes: &[f64], load: f64, alpha: f64) -> f64 {
        let mut total = 0.0;
        for (e, pair) in nodes.windows(2).enumerate() {
            let len = pair[1] - pair[0];
            let strain = (u[e + 1] - u[e]) / len;
            total += stiff[e] * len * (0.5 * strain * strain + 0.25 * alpha * strain.powi(4));
        }
        total - load * u[u.len() - 1]
    }

    const NODES: [f64; 5] = [0.0, 0.3, 0.5, 0.8, 1.0];
    const STIFF: [f64; 4] = [2.0, 1.5, 3.0, 1.0];

    #[test]
    fn residual_is_the_energy_gradient() {
        let (load, alpha) = (0.7, 0.4);
        for p in points(4240, 5, 10, -0.5, 0.5) {
            let mut r = vec![f64::NAN; 5];
            residual(&p, &STIFF, &NODES, load, alpha, &mut r);
            let (_, g) = energy_grad(&p, &STIFF, &NODES, load, alpha);
            assert_all_close(
                &r[1..],
                &g[1..],
                1e-12,
                "residual against the energy gradient",
            );
            assert_eq!(r[0], p[0]);
            // The residual's Jacobian in u (rows 1..) is the energy's Hessian.
            let j = residual_jacobian(&p, &STIFF, &NODES, load, alpha, &mut r);
            assert_eq!(j.len(), 5);
            assert_eq!(j[0].len(), 9);
            let (_, _, h) = energy_hessian(&p, &STIFF, &NODES, load, alpha);
            for i in 1..5 {
                assert_all_close(&j[i][..5], &h[i], 1e-12, "stiffness");
            }
            let x = [p.clone(), STIFF.to_vec()].concat();
            check_jacobian("fem_bar::residual", &x, &j, |y| {
                let mut r = vec![0.0; 5];
                residual(&y[..5], &y[5..], &NODES, load, alpha, &mut r);
                r
            });
            // vjp and jvp against each other: cotangent for the output buffer.
            let c = wave(5, 0.7);
            let t = wave(9, 2.1);
            let mut out = vec![0.0; 5];
            let (gu, gs) = residual_vjp(&p, &STIFF, &NODES, load, alpha, &mut out, &c);
            let mut jt = vec![f64::NAN; 5];
            let mut out2 = vec![0.0; 5];
            residual_jvp(
                &p,
                &STIFF,
                &NODES,
                load,
                alpha,
                &mut out2,
                (t[..5].to_vec(), t[5..].to_vec()),
                &mut jt,
            );
            assert_eq!(out, out2);
            check_dual("fem_bar::residual", &c, &jt, &[gu, gs].concat(), &t);
        }
    }

    #[test]
    fn newton_with_the_jacobian() {
        let (load, alpha) = (0.9, 0.5);
        let mut u = vec![0.0; 5];
        let mut r = vec![0.0; 5];
        for _ in 0..30 {
            let j = residual_jacobian(&u, &STIFF, &NODES, load, alpha, &mut r);
            // Solve J[.., ..5] du = -r by Gaussian elimination.
            let mut a: Vec<Vec<f64>> = j.iter().map(|row| row[..5].to_vec()).collect();
            let mut b: Vec<f64> = r.iter().map(|v| -v).collect();
            for k in 0..5 {
                for i in k + 1..5 {
                    let f = a[i][k] / a[k][k];
                    for c in k..5 {
                        a[i][c] -= f * a[k][c];
                    }
                    b[i] -= f * b[k];
                }
            }
            let mut du = [0.0; 5];
            for i in (0..5).rev() {
                let s: f64 = (i + 1..5).map(|c| a[i][c] * du[c]).sum();
                du[i] = (b[i] - s) / a[i][i];
            }
            for i in 0..5 {
                u[i] += du[i];
            }
        }
        residual(&u, &STIFF, &NODES, load, alpha, &mut r);
        assert!(r.iter().all(|v| v.abs() < 1e-12), "{r:?}");
        // Every element carries the load: stiff (s + alpha s^3) = load.
        for e in 0..4 {
            let s = (u[e + 1] - u[e]) / (NODES[e + 1] - NODES[e]);
            assert_close(
                STIFF[e] * (s + alpha * s.powi(3)),
                load,
                1e-12,
                "element stress",
            );
        }
    }

    #[test]
    fn energy_audit() {
        let (load, alpha) = (0.7, 0.4);
        let pts = points(4241, 5, 10, -0.8, 0.8);
        audit(
            &Items {
                what: "fem_bar::energy",
                primal: &|x| energy(x, &STIFF, &NODES, load, alpha),
                grad: &|x| energy_grad(x, &STIFF, &NODES, load, alpha),
                vjp: &|x, d| energy_vjp(x, &STIFF, &NODES, load, alpha, d),
                jvp: &|x, t| energy_jvp(x, &STIFF, &NODES, load, alpha, t.to_vec()),
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; 5];
                    let v = energy_grad_into(x, &STIFF, &NODES, load, alpha, &mut g);
                    same_bits(&g, &energy_grad(x, &STIFF, &NODES, load, alpha).1, "energy");
                    (v, g)
                },
                hvp: Some(&|x, v| energy_hvp(x, &STIFF, &NODES, load, alpha, v.to_vec())),
                hessian: Some(&|x| energy_hessian(x, &STIFF, &NODES, load, alpha)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) A ray through a stack of tilted refracting surfaces by Snell's law: the angle overwritten at each
// surface through `asin`, the height advanced by `tan`, a `continue` past zero gaps; the exit height at
// `order = 2` over the launch angle and the refractive indices, and the exit `[height, angle]`'s
// `_jacobian`.

mod lenses {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn refract(theta: f64, n1: f64, n2: f64) -> f64 {
        (n1 / n2 * theta.sin()).asin()
    }

    #[differentiable(wrt(theta0, indices), order = 2)]
    pub fn exit_height(theta0: f64, y0: f64, indices: &[f64], tilts: &[f64], gaps: &[f64]) -> f64 {
        let mut theta = theta0;
        let mut y = y0;
        let mut n_prev = 1.0;
        for k in 0..indices.len() {
            let incidence = theta - tilts[k];
            theta = refract(incidence, n_prev, indices[k]) + tilts[k];
            n_prev = indices[k];
            if gaps[k] <= 0.0 {
                continue;
            }
            y += gaps[k] * theta.tan();
        }
        y
    }

    #[differentiable]
    pub fn exit_ray(
        theta0: f64,
        y0: f64,
        indices: &[f64],
        tilts: &[f64],
        gaps: &[f64],
    ) -> [f64; 2] {
        let mut state = (theta0, y0);
        let mut n_prev = 1.0;
        for (k, &n) in indices.iter().enumerate() {
            let theta = refract(state.0 - tilts[k], n_prev, n) + tilts[k];
            state = (theta, state.1 + gaps[k] * theta.tan());
            n_prev = n;
        }
        [state.1, state.0]
    }

    fn plain(theta0: f64, y0: f64, indices: &[f64], tilts: &[f64], gaps: &[f64]) -> (f64, f64) {
        let (mut theta, mut y, mut n_prev) = (theta0, y0, 1.0);
        for k in 0..indices.len() {
            theta = (n_prev / indices[k] * (theta - tilts[k]).sin()).asin() + tilts[k];
            n_prev = indices[k];
            y += gaps[k] * theta.tan();
        }
        (y, theta)
    }

    const TILTS: [f64; 4] = [0.1, -0.05, 0.2, 0.0];
    const GAPS: [f64; 4] = [0.5, 0.0, 0.8, 0.3];

    #[test]
    fn exit_height_audit() {
        let pts: Vec<Vec<f64>> = points(4250, 5, 10, 0.0, 1.0)
            .into_iter()
            .map(|p| {
                let mut q = vec![-0.4 + 0.8 * p[0]];
                q.extend(p[1..].iter().map(|v| 1.3 + 0.5 * v));
                q
            })
            .collect();
        let y0 = 0.25;
        for p in &pts {
            let (y, _) = plain(p[0], y0, &p[1..], &TILTS, &GAPS);
            assert_close(
                exit_height(p[0], y0, &p[1..], &TILTS, &GAPS),
                y,
                1e-12,
                "height",
            );
        }
        // By hand through one surface: y = y0 + g tan(asin(sin(t) / n)).
        let (_, (dt, dn)) = exit_height_grad(0.3, 0.0, &[1.5], &[0.0], &[1.0]);
        let s = 0.3f64.sin() / 1.5;
        let c = (1.0 - s * s).sqrt();
        let dtheta = 1.0 / (c * c);
        assert_close(dt, dtheta * 0.3f64.cos() / 1.5 / c, 1e-12, "dy/dtheta0");
        assert_close(dn[0], dtheta * -s / 1.5 / c, 1e-12, "dy/dn");
        audit(
            &Items {
                what: "lenses::exit_height",
                primal: &|x| exit_height(x[0], y0, &x[1..], &TILTS, &GAPS),
                grad: &|x| {
                    let (v, (a, b)) = exit_height_grad(x[0], y0, &x[1..], &TILTS, &GAPS);
                    (v, [vec![a], b].concat())
                },
                vjp: &|x, d| {
                    let (v, (a, b)) = exit_height_vjp(x[0], y0, &x[1..], &TILTS, &GAPS, d);
                    (v, [vec![a], b].concat())
                },
                jvp: &|x, t| {
                    exit_height_jvp(x[0], y0, &x[1..], &TILTS, &GAPS, (t[0], t[1..].to_vec()))
                },
                grad_into: &|x| {
                    let mut a = f64::NAN;
                    let mut b = vec![f64::NAN; 4];
                    let v =
                        exit_height_grad_into(x[0], y0, &x[1..], &TILTS, &GAPS, (&mut a, &mut b));
                    (v, [vec![a], b].concat())
                },
                hvp: Some(&|x, w| {
                    let (f, (a, b), (ha, hb)) =
                        exit_height_hvp(x[0], y0, &x[1..], &TILTS, &GAPS, (w[0], w[1..].to_vec()));
                    (f, [vec![a], b].concat(), [vec![ha], hb].concat())
                }),
                hessian: Some(&|x| {
                    let (f, (a, b), h) = exit_height_hessian(x[0], y0, &x[1..], &TILTS, &GAPS);
                    (f, [vec![a], b].concat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn exit_ray_jacobian_against_differences() {
        for p in points(4251, 14, 10, 0.0, 1.0) {
            // theta0, y0, 4 indices, 4 tilts, 4 gaps.
            let mut x = p.clone();
            x[0] = -0.4 + 0.8 * p[0];
            for k in 2..6 {
                x[k] = 1.3 + 0.5 * p[k];
            }
            for k in 6..10 {
                x[k] = 0.2 * (p[k] - 0.5);
            }
            let f = |y: &[f64]| exit_ray(y[0], y[1], &y[2..6], &y[6..10], &y[10..14]).to_vec();
            let (h, th) = plain(x[0], x[1], &x[2..6], &x[6..10], &x[10..14]);
            assert_all_close(&f(&x), &[h, th], 1e-12, "exit ray");
            let j = exit_ray_jacobian(x[0], x[1], &x[2..6], &x[6..10], &x[10..14]);
            check_jacobian("lenses::exit_ray", &x, &j, f);
            let c = [1.0, -0.6];
            let t = wave(14, 0.5);
            let (_, (a, b, ci, ct, cg)) =
                exit_ray_vjp(x[0], x[1], &x[2..6], &x[6..10], &x[10..14], c);
            let (_, jt) = exit_ray_jvp(
                x[0],
                x[1],
                &x[2..6],
                &x[6..10],
                &x[10..14],
                (
                    t[0],
                    t[1],
                    t[2..6].to_vec(),
                    t[6..10].to_vec(),
                    t[10..14].to_vec(),
                ),
            );
            check_dual(
                "lenses::exit_ray",
                &c,
                &jt,
                &[vec![a, b], ci, ct, cg].concat(),
                &t,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) Elastic-net regression: a penalty with `abs` through a `super::`-free helper, the objective at
// `order = 2`; and coordinate descent as a function of the responses (the fitted coefficients'
// `_jacobian` in the data): coefficients overwritten in place each sweep, a soft threshold by
// `signum` and `max(0.0)`.

mod elastic_net {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(beta))]
    pub fn penalty(beta: &[f64], lambda: f64, alpha: f64) -> f64 {
        lambda
            * beta
                .iter()
                .map(|b| alpha * b.abs() + 0.5 * (1.0 - alpha) * b * b)
                .sum::<f64>()
    }

    #[differentiable(wrt(beta, intercept), order = 2)]
    pub fn objective(
        beta: &[f64],
        intercept: f64,
        xs: &[Vec<f64>],
        ys: &[f64],
        lambda: f64,
        alpha: f64,
    ) -> f64 {
        let n = ys.len() as f64;
        let mut rss = 0.0;
        for (x, &y) in xs.iter().zip(ys) {
            let pred = intercept + x.iter().zip(beta).map(|(a, b)| a * b).sum::<f64>();
            rss += (y - pred).powi(2);
        }
        rss / (2.0 * n) + penalty(beta, lambda, alpha)
    }

    #[differentiable]
    pub fn soft_threshold(z: f64, t: f64) -> f64 {
        z.signum() * (z.abs() - t).max(0.0)
    }

    /// Coordinate descent from zero, `sweeps` passes; the coefficients as a function of `ys`.
    #[differentiable(wrt(ys))]
    pub fn coordinate_descent(
        ys: &[f64],
        xs: &[Vec<f64>],
        lambda: f64,
        alpha: f64,
        sweeps: usize,
    ) -> Vec<f64> {
        let d = xs[0].len();
        let n = ys.len();
        let mut beta = vec![0.0; d];
        let mut resid = vec![0.0; n];
        for i in 0..n {
            resid[i] = ys[i];
        }
        for _ in 0..sweeps {
            for j in 0..d {
                let mut rho = 0.0;
                let mut norm = 0.0;
                for i in 0..n {
                    rho += xs[i][j] * (resid[i] + xs[i][j] * beta[j]);
                    norm += xs[i][j] * xs[i][j];
                }
                let updated = soft_threshold(rho / n as f64, lambda * alpha)
                    / (norm / n as f64 + lambda * (1.0 - alpha));
                for i in 0..n {
                    resid[i] -= xs[i][j] * (updated - beta[j]);
                }
                beta[j] = updated;
            }
        }
        beta
    }

    fn data() -> (Vec<Vec<f64>>, Vec<f64>) {
        let xs = points(4260, 4, 9, -1.0, 1.0);
        let truth = [1.5, 0.0, -0.8, 0.05];
        let ys = xs
            .iter()
            .enumerate()
            .map(|(i, x)| dot(x, &truth) + 0.1 * (i as f64).sin())
            .collect();
        (xs, ys)
    }

    #[test]
    fn objective_audit_and_by_hand() {
        let (xs, ys) = data();
        let (lambda, alpha) = (0.2, 0.6);
        let pts = points(4261, 5, 10, -1.0, 1.0);
        let by_hand = |p: &[f64]| {
            let (beta, b0) = (&p[..4], p[4]);
            let n = ys.len() as f64;
            let mut g = vec![0.0; 5];
            for (x, y) in xs.iter().zip(&ys) {
                let r = b0 + dot(x, beta) - y;
                for j in 0..4 {
                    g[j] += r * x[j] / n;
                }
                g[4] += r / n;
            }
            for j in 0..4 {
                g[j] += lambda * (alpha * beta[j].signum() + (1.0 - alpha) * beta[j]);
            }
            g
        };
        audit(
            &Items {
                what: "elastic_net::objective",
                primal: &|x| objective(&x[..4], x[4], &xs, &ys, lambda, alpha),
                grad: &|x| {
                    let (v, (g, g0)) = objective_grad(&x[..4], x[4], &xs, &ys, lambda, alpha);
                    (v, [g, vec![g0]].concat())
                },
                vjp: &|x, d| {
                    let (v, (g, g0)) = objective_vjp(&x[..4], x[4], &xs, &ys, lambda, alpha, d);
                    (v, [g, vec![g0]].concat())
                },
                jvp: &|x, t| {
                    objective_jvp(
                        &x[..4],
                        x[4],
                        &xs,
                        &ys,
                        lambda,
                        alpha,
                        (t[..4].to_vec(), t[4]),
                    )
                },
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; 4];
                    let mut g0 = f64::NAN;
                    let v = objective_grad_into(
                        &x[..4],
                        x[4],
                        &xs,
                        &ys,
                        lambda,
                        alpha,
                        (&mut g, &mut g0),
                    );
                    (v, [g, vec![g0]].concat())
                },
                hvp: Some(&|x, w| {
                    let (f, (g, g0), (h, h0)) = objective_hvp(
                        &x[..4],
                        x[4],
                        &xs,
                        &ys,
                        lambda,
                        alpha,
                        (w[..4].to_vec(), w[4]),
                    );
                    (f, [g, vec![g0]].concat(), [h, vec![h0]].concat())
                }),
                hessian: Some(&|x| {
                    let (f, (g, g0), h) = objective_hessian(&x[..4], x[4], &xs, &ys, lambda, alpha);
                    (f, [g, vec![g0]].concat(), h)
                }),
                analytic: Some(&by_hand),
            },
            &pts,
        );
    }

    #[test]
    fn coordinate_descent_jacobian_against_differences() {
        let (xs, ys) = data();
        let (lambda, alpha) = (0.1, 0.7);
        // The fit is the minimiser: the objective's gradient vanishes on the nonzero coefficients.
        let beta = coordinate_descent(&ys, &xs, lambda, alpha, 200);
        let no_intercept = |b: &[f64]| {
            let n = ys.len() as f64;
            (0..4)
                .map(|j| {
                    let fit: f64 = xs
                        .iter()
                        .zip(&ys)
                        .map(|(x, y)| (dot(x, b) - y) * x[j])
                        .sum();
                    fit / n + lambda * (1.0 - alpha) * b[j]
                })
                .collect::<Vec<f64>>()
        };
        let g = no_intercept(&beta);
        for j in 0..4 {
            if beta[j] != 0.0 {
                assert_close(g[j], -lambda * alpha * beta[j].signum(), 1e-9, "KKT");
            } else {
                assert!(g[j].abs() <= lambda * alpha + 1e-12, "KKT at zero");
            }
        }
        for (k, p) in points(4262, 9, 10, -0.05, 0.05).iter().enumerate() {
            let ys: Vec<f64> = ys.iter().zip(p).map(|(y, e)| y + e).collect();
            let sweeps = 3 + k % 4;
            let j = coordinate_descent_jacobian(&ys, &xs, lambda, alpha, sweeps);
            check_jacobian("elastic_net::coordinate_descent", &ys, &j, |y| {
                coordinate_descent(y, &xs, lambda, alpha, sweeps)
            });
            let c = wave(4, 0.1);
            let t = wave(9, 1.7);
            let (v1, cj) = coordinate_descent_vjp(&ys, &xs, lambda, alpha, sweeps, c.clone());
            let (v2, jt) = coordinate_descent_jvp(&ys, &xs, lambda, alpha, sweeps, t.clone());
            assert_eq!(v1, v2);
            check_dual("elastic_net::coordinate_descent", &c, &jt, &cj, &t);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) Matrix factorisation over sparse ratings: ratings as parallel index slices, a prediction helper
// taking two rows of the factor matrices, a regularised loss at `order = 2`; and one epoch of SGD
// written as a differentiable function of the initial factors (local copies updated in place, each
// rating reading what the previous one wrote), its final loss differentiated through the epoch.

mod factorisation {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn predict(u: &[f64], v: &[f64], bias: f64) -> f64 {
        bias + u.iter().zip(v).map(|(a, b)| a * b).sum::<f64>()
    }

    #[differentiable(wrt(users, items), order = 2)]
    pub fn loss(
        users: &[Vec<f64>],
        items: &[Vec<f64>],
        who: &[usize],
        what: &[usize],
        ratings: &[f64],
        reg: f64,
    ) -> f64 {
        let mut total = 0.0;
        for k in 0..ratings.len() {
            let err = predict(&users[who[k]], &items[what[k]], 3.0) - ratings[k];
            total += err * err;
        }
        let mut norms = 0.0;
        for row in users.iter().chain(items.iter()) {
            norms += row.iter().map(|x| x * x).sum::<f64>();
        }
        total + reg * norms
    }

    /// The same loss over ratings given as `(user, item, rating)` triples: data, no derivative.
    #[differentiable(wrt(users, items))]
    pub fn loss_triples(
        users: &[Vec<f64>],
        items: &[Vec<f64>],
        ratings: &[(usize, usize, f64)],
        reg: f64,
    ) -> f64 {
        let mut total = 0.0;
        for &(u, i, r) in ratings {
            let err = predict(&users[u], &items[i], 3.0) - r;
            total += err * err;
        }
        for row in users.iter() {
            total += reg * row.iter().map(|x| x * x).sum::<f64>();
        }
        for row in items.iter() {
            total += reg * row.iter().map(|x| x * x).sum::<f64>();
        }
        total
    }

    /// One SGD epoch over the ratings from factors `u0`, `v0` (flat, rank 2), then the loss.
    #[differentiable(wrt(u0, v0), order = 2)]
    pub fn after_epoch(
        u0: &[f64],
        v0: &[f64],
        who: &[usize],
        what: &[usize],
        ratings: &[f64],
        rate: f64,
    ) -> f64 {
        let mut u = u0.to_vec();
        let mut v = v0.to_vec();
        for k in 0..ratings.len() {
            let (a, b) = (2 * who[k], 2 * what[k]);
            let err = u[a] * v[b] + u[a + 1] * v[b + 1] - ratings[k];
            let (ua, ub) = (u[a], u[a + 1]);
            u[a] -= rate * err * v[b];
            u[a + 1] -= rate * err * v[b + 1];
            v[b] -= rate * err * ua;
            v[b + 1] -= rate * err * ub;
        }
        let mut total = 0.0;
        for k in 0..ratings.len() {
            let (a, b) = (2 * who[k], 2 * what[k]);
            total += (u[a] * v[b] + u[a + 1] * v[b + 1] - ratings[k]).powi(2);
        }
        total
    }

    const WHO: [usize; 7] = [0, 0, 1, 2, 2, 1, 0];
    const WHAT: [usize; 7] = [0, 1, 1, 0, 2, 2, 2];
    const RATINGS: [f64; 7] = [1.0, -0.5, 0.3, 0.8, -0.2, 0.6, 0.1];

    #[test]
    fn loss_audit_and_by_hand() {
        let reg = 0.05;
        let split = |x: &[f64]| (rows(&x[..6], 2), rows(&x[6..], 2));
        let by_hand = |x: &[f64]| {
            let (u, v) = split(x);
            let mut gu = vec![vec![0.0; 2]; 3];
            let mut gv = vec![vec![0.0; 2]; 3];
            for k in 0..7 {
                let (a, b) = (WHO[k], WHAT[k]);
                let err = 3.0 + dot(&u[a], &v[b]) - (RATINGS[k] + 3.0);
                for c in 0..2 {
                    gu[a][c] += 2.0 * err * v[b][c];
                    gv[b][c] += 2.0 * err * u[a][c];
                }
            }
            for c in 0..6 {
                gu[c / 2][c % 2] += 2.0 * reg * x[c];
                gv[c / 2][c % 2] += 2.0 * reg * x[6 + c];
            }
            [flatten(&gu), flatten(&gv)].concat()
        };
        let shifted: Vec<f64> = RATINGS.iter().map(|r| r + 3.0).collect();
        let pts = points(4270, 12, 10, -1.0, 1.0);
        let triples: Vec<(usize, usize, f64)> =
            (0..7).map(|k| (WHO[k], WHAT[k], shifted[k])).collect();
        for p in &pts {
            let (u, v) = split(p);
            let (f, (gu, gv)) = loss_grad(&u, &v, &WHO, &WHAT, &shifted, reg);
            let (ft, (tu, tv)) = loss_triples_grad(&u, &v, &triples, reg);
            assert_close(ft, f, 1e-12, "triples value");
            assert_all_close(&flatten(&tu), &flatten(&gu), 1e-12, "triples users");
            assert_all_close(&flatten(&tv), &flatten(&gv), 1e-12, "triples items");
            assert_eq!(ft, loss_triples(&u, &v, &triples, reg));
        }
        audit(
            &Items {
                what: "factorisation::loss",
                primal: &|x| {
                    let (u, v) = split(x);
                    loss(&u, &v, &WHO, &WHAT, &shifted, reg)
                },
                grad: &|x| {
                    let (u, v) = split(x);
                    let (f, (gu, gv)) = loss_grad(&u, &v, &WHO, &WHAT, &shifted, reg);
                    (f, [flatten(&gu), flatten(&gv)].concat())
                },
                vjp: &|x, d| {
                    let (u, v) = split(x);
                    let (f, (gu, gv)) = loss_vjp(&u, &v, &WHO, &WHAT, &shifted, reg, d);
                    (f, [flatten(&gu), flatten(&gv)].concat())
                },
                jvp: &|x, t| {
                    let (u, v) = split(x);
                    loss_jvp(&u, &v, &WHO, &WHAT, &shifted, reg, split(t))
                },
                grad_into: &|x| {
                    let (u, v) = split(x);
                    let mut gu = vec![vec![f64::NAN; 2]; 3];
                    let mut gv = vec![vec![f64::NAN; 2]; 3];
                    let f = loss_grad_into(&u, &v, &WHO, &WHAT, &shifted, reg, (&mut gu, &mut gv));
                    (f, [flatten(&gu), flatten(&gv)].concat())
                },
                hvp: Some(&|x, w| {
                    let (u, v) = split(x);
                    let (f, (gu, gv), (hu, hv)) =
                        loss_hvp(&u, &v, &WHO, &WHAT, &shifted, reg, split(w));
                    let g = [flatten(&gu), flatten(&gv)].concat();
                    (f, g, [flatten(&hu), flatten(&hv)].concat())
                }),
                hessian: Some(&|x| {
                    let (u, v) = split(x);
                    let (f, (gu, gv), h) = loss_hessian(&u, &v, &WHO, &WHAT, &shifted, reg);
                    (f, [flatten(&gu), flatten(&gv)].concat(), h)
                }),
                analytic: Some(&by_hand),
            },
            &pts,
        );
    }

    #[test]
    fn through_an_sgd_epoch() {
        let rate = 0.3;
        let pts = points(4271, 12, 10, -1.0, 1.0);
        for p in &pts {
            // Plainly: the same epoch.
            let (mut u, mut v) = (p[..6].to_vec(), p[6..].to_vec());
            for k in 0..7 {
                let (a, b) = (2 * WHO[k], 2 * WHAT[k]);
                let err = u[a] * v[b] + u[a + 1] * v[b + 1] - RATINGS[k];
                let old = [u[a], u[a + 1], v[b], v[b + 1]];
                u[a] -= rate * err * old[2];
                u[a + 1] -= rate * err * old[3];
                v[b] -= rate * err * old[0];
                v[b + 1] -= rate * err * old[1];
            }
            let expected: f64 = (0..7)
                .map(|k| {
                    let (a, b) = (2 * WHO[k], 2 * WHAT[k]);
                    (u[a] * v[b] + u[a + 1] * v[b + 1] - RATINGS[k]).powi(2)
                })
                .sum();
            let got = after_epoch(&p[..6], &p[6..], &WHO, &WHAT, &RATINGS, rate);
            assert_close(got, expected, 1e-12, "after_epoch");
        }
        audit(
            &Items {
                what: "factorisation::after_epoch",
                primal: &|x| after_epoch(&x[..6], &x[6..], &WHO, &WHAT, &RATINGS, rate),
                grad: &|x| {
                    let (f, (a, b)) =
                        after_epoch_grad(&x[..6], &x[6..], &WHO, &WHAT, &RATINGS, rate);
                    (f, [a, b].concat())
                },
                vjp: &|x, d| {
                    let (f, (a, b)) =
                        after_epoch_vjp(&x[..6], &x[6..], &WHO, &WHAT, &RATINGS, rate, d);
                    (f, [a, b].concat())
                },
                jvp: &|x, t| {
                    after_epoch_jvp(
                        &x[..6],
                        &x[6..],
                        &WHO,
                        &WHAT,
                        &RATINGS,
                        rate,
                        (t[..6].to_vec(), t[6..].to_vec()),
                    )
                },
                grad_into: &|x| {
                    let (mut a, mut b) = (vec![f64::NAN; 6], vec![f64::NAN; 6]);
                    let f = after_epoch_grad_into(
                        &x[..6],
                        &x[6..],
                        &WHO,
                        &WHAT,
                        &RATINGS,
                        rate,
                        (&mut a, &mut b),
                    );
                    (f, [a, b].concat())
                },
                hvp: Some(&|x, w| {
                    let (f, (a, b), (ha, hb)) = after_epoch_hvp(
                        &x[..6],
                        &x[6..],
                        &WHO,
                        &WHAT,
                        &RATINGS,
                        rate,
                        (w[..6].to_vec(), w[6..].to_vec()),
                    );
                    (f, [a, b].concat(), [ha, hb].concat())
                }),
                hessian: Some(&|x| {
                    let (f, (a, b), h) =
                        after_epoch_hessian(&x[..6], &x[6..], &WHO, &WHAT, &RATINGS, rate);
                    (f, [a, b].concat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) A natural cubic spline: second derivatives at the knots by the Thomas algorithm (forward
// elimination and back substitution over local `Vec`s, `.rev()`), the interval by a binary search
// `while lo + 1 < hi`; the interpolated values' `_jacobian` in the knot values, and a smoothness
// penalty at `order = 2`.

mod spline {
    use super::*;
    use autodiff::differentiable;

    /// The second derivatives `m` at the knots of a natural spline through `(xs, ys)`.
    #[differentiable(wrt(ys))]
    pub fn moments(xs: &[f64], ys: &[f64]) -> Vec<f64> {
        let n = xs.len();
        let mut m = vec![0.0; n];
        let mut c = vec![0.0; n];
        let mut d = vec![0.0; n];
        for i in 1..n - 1 {
            let h0 = xs[i] - xs[i - 1];
            let h1 = xs[i + 1] - xs[i];
            let diag = 2.0 * (h0 + h1);
            let rhs = 6.0 * ((ys[i + 1] - ys[i]) / h1 - (ys[i] - ys[i - 1]) / h0);
            let denom = diag - h0 * c[i - 1];
            c[i] = h1 / denom;
            d[i] = (rhs - h0 * d[i - 1]) / denom;
        }
        for i in (1..n - 1).rev() {
            m[i] = d[i] - c[i] * m[i + 1];
        }
        m
    }

    #[differentiable(wrt(ys))]
    pub fn eval(xs: &[f64], ys: &[f64], m: &[f64], t: f64) -> f64 {
        let mut lo = 0;
        let mut hi = xs.len() - 1;
        while lo + 1 < hi {
            let mid = (lo + hi) / 2;
            if xs[mid] <= t {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let h = xs[hi] - xs[lo];
        let a = (xs[hi] - t) / h;
        let b = (t - xs[lo]) / h;
        a * ys[lo] + b * ys[hi] + ((a.powi(3) - a) * m[lo] + (b.powi(3) - b) * m[hi]) * h * h / 6.0
    }

    #[differentiable(wrt(ys))]
    pub fn resample(xs: &[f64], ys: &[f64], at: &[f64]) -> Vec<f64> {
        let m = moments(xs, ys);
        let mut out = vec![0.0; at.len()];
        for (k, &t) in at.iter().enumerate() {
            out[k] = eval(xs, ys, &m, t);
        }
        out
    }

    /// The bending energy `∫ s''² dt`, exact for the piecewise-linear `s''`, plus a data term.
    #[differentiable(wrt(ys), order = 2)]
    pub fn bending(xs: &[f64], ys: &[f64], at: &[f64], data: &[f64]) -> f64 {
        let m = moments(xs, ys);
        let mut energy = 0.0;
        for i in 0..xs.len() - 1 {
            let h = xs[i + 1] - xs[i];
            energy += h * (m[i] * m[i] + m[i] * m[i + 1] + m[i + 1] * m[i + 1]) / 3.0;
        }
        let mut misfit = 0.0;
        for (k, &t) in at.iter().enumerate() {
            misfit += (eval(xs, ys, &m, t) - data[k]).powi(2);
        }
        0.01 * energy + misfit
    }

    const XS: [f64; 6] = [0.0, 0.4, 1.0, 1.3, 2.0, 2.6];
    const AT: [f64; 7] = [0.1, 0.4, 0.75, 1.2, 1.31, 1.9, 2.5];

    #[test]
    fn interpolates_and_is_linear_in_ys() {
        let ys = [0.3, -0.2, 0.5, 0.9, 0.1, -0.4];
        let m = moments(&XS, &ys);
        for (i, &x) in XS.iter().enumerate() {
            assert_close(eval(&XS, &ys, &m, x), ys[i], 1e-12, "knot");
        }
        // A cubic spline of a line is the line.
        let line: Vec<f64> = XS.iter().map(|x| 2.0 * x - 1.0).collect();
        let flat = resample(&XS, &line, &AT);
        for (k, t) in AT.iter().enumerate() {
            assert_close(flat[k], 2.0 * t - 1.0, 1e-12, "line");
        }
        // Linear in ys, so the Jacobian is the same everywhere and reproduces the values.
        for p in points(4280, 6, 10, -1.0, 1.0) {
            let j = resample_jacobian(&XS, &p, &AT);
            let values = resample(&XS, &p, &AT);
            for k in 0..AT.len() {
                assert_close(dot(&j[k], &p), values[k], 1e-12, "J y");
            }
            check_jacobian("spline::resample", &p, &j, |y| resample(&XS, y, &AT));
            let j2 = moments_jacobian(&XS, &p);
            check_jacobian("spline::moments", &p, &j2, |y| moments(&XS, y));
            let c = wave(7, 0.3);
            let t = wave(6, 2.0);
            let (_, cj) = resample_vjp(&XS, &p, &AT, c.clone());
            let (_, jt) = resample_jvp(&XS, &p, &AT, t.clone());
            check_dual("spline::resample", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn bending_audit() {
        let data: Vec<f64> = AT.iter().map(|t| (2.0 * t).sin()).collect();
        let pts = points(4281, 6, 10, -1.0, 1.0);
        audit(
            &Items {
                what: "spline::bending",
                primal: &|y| bending(&XS, y, &AT, &data),
                grad: &|y| bending_grad(&XS, y, &AT, &data),
                vjp: &|y, d| bending_vjp(&XS, y, &AT, &data, d),
                jvp: &|y, t| bending_jvp(&XS, y, &AT, &data, t.to_vec()),
                grad_into: &|y| {
                    let mut g = vec![f64::NAN; 6];
                    let v = bending_grad_into(&XS, y, &AT, &data, &mut g);
                    same_bits(&g, &bending_grad(&XS, y, &AT, &data).1, "bending");
                    (v, g)
                },
                hvp: Some(&|y, v| bending_hvp(&XS, y, &AT, &data, v.to_vec())),
                hessian: Some(&|y| bending_hessian(&XS, y, &AT, &data)),
                analytic: None,
            },
            &pts,
        );
        // A quadratic in ys: the Hessian is the same at every point.
        let (_, _, h0) = bending_hessian(&XS, &pts[0], &AT, &data);
        let (_, _, h1) = bending_hessian(&XS, &pts[1], &AT, &data);
        for (a, b) in h0.iter().zip(&h1) {
            assert_all_close(a, b, 1e-10, "constant Hessian");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) A VAE-style ELBO with fixed reparameterisation noise: an encoder returning `[f64; 4]` (means and
// log-variances), samples `mu + exp(logvar / 2) eps` into a local array, a decoder whose variance goes
// through a `#[custom_gradient]` softplus, a Gaussian log-likelihood and the closed-form KL term; at
// `order = 2` over both weight vectors.

mod vae {
    use super::*;
    use autodiff::{custom_gradient, differentiable};
    use std::f64::consts::PI;

    #[custom_gradient]
    pub fn softplus(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let s = 1.0 / (1.0 + (-x).exp());
        let value = if x > 30.0 { x } else { x.exp().ln_1p() };
        (value, move |dy| dy * s)
    }

    /// Three inputs to two latent means and two log-variances; `w` holds 4 rows of 3 and 4 biases.
    #[differentiable]
    pub fn encode(x: &[f64], w: &[f64]) -> [f64; 4] {
        let mut out = [0.0; 4];
        for (r, row) in w[..12].chunks_exact(3).enumerate() {
            out[r] = w[12 + r] + row.iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
        }
        out
    }

    /// The log-density of `x` under the decoder at `z`: means `v z + c`, one shared variance.
    #[differentiable]
    pub fn log_likelihood(x: &[f64], z: &[f64; 2], v: &[f64]) -> f64 {
        let var = softplus(v[9]) + 1e-3;
        let mut total = 0.0;
        for i in 0..3 {
            let mean = v[2 * i] * z[0] + v[2 * i + 1] * z[1] + v[6 + i];
            total -= 0.5 * ((x[i] - mean).powi(2) / var + (2.0 * PI * var).ln());
        }
        total
    }

    #[differentiable(wrt(enc, dec), order = 2)]
    pub fn elbo(enc: &[f64], dec: &[f64], xs: &[Vec<f64>], noise: &[[f64; 2]]) -> f64 {
        let mut total = 0.0;
        for (x, eps) in xs.iter().zip(noise) {
            let stats = encode(x, enc);
            let mut z = [0.0; 2];
            let mut kl = 0.0;
            for k in 0..2 {
                let (mu, logvar) = (stats[k], stats[2 + k]);
                z[k] = mu + (0.5 * logvar).exp() * eps[k];
                kl += -0.5 * (1.0 + logvar - mu * mu - logvar.exp());
            }
            total += log_likelihood(x, &z, dec) - kl;
        }
        total / xs.len() as f64
    }

    fn plain(enc: &[f64], dec: &[f64], xs: &[Vec<f64>], noise: &[[f64; 2]]) -> f64 {
        let mut total = 0.0;
        for (x, eps) in xs.iter().zip(noise) {
            let s: Vec<f64> = (0..4)
                .map(|r| enc[12 + r] + dot(&enc[3 * r..3 * r + 3], x))
                .collect();
            let z = [
                s[0] + (0.5 * s[2]).exp() * eps[0],
                s[1] + (0.5 * s[3]).exp() * eps[1],
            ];
            let var = dec[9].exp().ln_1p() + 1e-3;
            let ll: f64 = (0..3)
                .map(|i| {
                    let m = dec[2 * i] * z[0] + dec[2 * i + 1] * z[1] + dec[6 + i];
                    -0.5 * ((x[i] - m).powi(2) / var + (2.0 * PI * var).ln())
                })
                .sum();
            let kl: f64 = (0..2)
                .map(|k| -0.5 * (1.0 + s[2 + k] - s[k] * s[k] - s[2 + k].exp()))
                .sum();
            total += ll - kl;
        }
        total / xs.len() as f64
    }

    #[test]
    fn elbo_audit() {
        let xs = points(4290, 3, 5, -1.0, 1.0);
        let noise: Vec<[f64; 2]> = points(4291, 2, 5, -1.5, 1.5)
            .iter()
            .map(|p| arr(p))
            .collect();
        let pts = points(4292, 26, 8, -0.8, 0.8);
        for p in &pts {
            assert_close(
                elbo(&p[..16], &p[16..], &xs, &noise),
                plain(&p[..16], &p[16..], &xs, &noise),
                1e-12,
                "elbo",
            );
        }
        audit(
            &Items {
                what: "vae::elbo",
                primal: &|x| elbo(&x[..16], &x[16..], &xs, &noise),
                grad: &|x| {
                    let (f, (a, b)) = elbo_grad(&x[..16], &x[16..], &xs, &noise);
                    (f, [a, b].concat())
                },
                vjp: &|x, d| {
                    let (f, (a, b)) = elbo_vjp(&x[..16], &x[16..], &xs, &noise, d);
                    (f, [a, b].concat())
                },
                jvp: &|x, t| {
                    elbo_jvp(
                        &x[..16],
                        &x[16..],
                        &xs,
                        &noise,
                        (t[..16].to_vec(), t[16..].to_vec()),
                    )
                },
                grad_into: &|x| {
                    let (mut a, mut b) = (vec![f64::NAN; 16], vec![f64::NAN; 10]);
                    let f = elbo_grad_into(&x[..16], &x[16..], &xs, &noise, (&mut a, &mut b));
                    (f, [a, b].concat())
                },
                hvp: Some(&|x, w| {
                    let (f, (a, b), (ha, hb)) = elbo_hvp(
                        &x[..16],
                        &x[16..],
                        &xs,
                        &noise,
                        (w[..16].to_vec(), w[16..].to_vec()),
                    );
                    (f, [a, b].concat(), [ha, hb].concat())
                }),
                hessian: Some(&|x| {
                    let (f, (a, b), h) = elbo_hessian(&x[..16], &x[16..], &xs, &noise);
                    (f, [a, b].concat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn encoder_jacobian() {
        for p in points(4293, 19, 10, -1.0, 1.0) {
            let j = encode_jacobian(&p[..3], &p[3..]);
            check_jacobian("vae::encode", &p, &j, |y| encode(&y[..3], &y[3..]).to_vec());
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) Arrhenius kinetics of a second-order reaction over a temperature schedule: each implicit Euler
// step `c = c_prev - dt k c²` solved by fixed-point iterations (a fixed count, and a `while` with a
// compound condition), the rate constant through a registered gradient (`#[gradient_of]`) of an
// outside `exp`-like function; the final concentration's fit at `order = 2`.

mod kinetics {
    use super::*;
    use autodiff::{differentiable, gradient_of};

    /// R in J/(mol K).
    pub const GAS: f64 = 8.314;

    pub mod outside {
        /// An outside function without derivatives: `exp(-ea / (R T))`.
        pub fn boltzmann(ea: f64, temp: f64) -> f64 {
            (-ea / (super::GAS * temp)).exp()
        }
    }

    #[gradient_of(outside::boltzmann)]
    fn boltzmann_vjp(ea: f64, temp: f64, dy: f64) -> (f64, f64) {
        let y = outside::boltzmann(ea, temp);
        let rt = GAS * temp;
        (-dy * y / rt, dy * y * ea / (rt * temp))
    }

    #[differentiable]
    pub fn rate(log_a: f64, ea: f64, temp: f64) -> f64 {
        log_a.exp() * outside::boltzmann(ea, temp)
    }

    #[differentiable(wrt(log_a, ea_scaled), order = 2)]
    pub fn final_concentration(log_a: f64, ea_scaled: f64, temps: &[f64], c0: f64, dt: f64) -> f64 {
        let mut c = c0;
        for &t in temps {
            let k = rate(log_a, 1e4 * ea_scaled, t);
            let prev = c;
            let mut next = c;
            for _ in 0..60 {
                next = prev - dt * k * next * next;
            }
            c = next;
        }
        c
    }

    #[differentiable(wrt(log_a, ea_scaled), order = 2)]
    pub fn final_concentration_until(
        log_a: f64,
        ea_scaled: f64,
        temps: &[f64],
        c0: f64,
        dt: f64,
    ) -> f64 {
        let mut c = c0;
        for &t in temps {
            let k = rate(log_a, 1e4 * ea_scaled, t);
            let mut next = c;
            let mut change = 1.0;
            let mut iters = 0;
            while change > 1e-15 && iters < 200 {
                let updated = c - dt * k * next * next;
                change = (updated - next).abs();
                next = updated;
                iters += 1;
            }
            c = next;
        }
        c
    }

    /// The closed form of one implicit step: the positive root of `dt k c² + c - c_prev = 0`.
    fn exact(log_a: f64, ea: f64, temps: &[f64], c0: f64, dt: f64) -> f64 {
        let mut c = c0;
        for &t in temps {
            let k = log_a.exp() * (-ea / (GAS * t)).exp();
            // (-1 + sqrt(1 + 4 dt k c)) / (2 dt k), without its cancellation.
            c = 2.0 * c / (1.0 + (1.0 + 4.0 * dt * k * c).sqrt());
        }
        c
    }

    const TEMPS: [f64; 5] = [300.0, 320.0, 340.0, 330.0, 310.0];

    #[test]
    fn against_the_closed_form_and_audit() {
        let (c0, dt) = (1.0, 0.5);
        let pts: Vec<Vec<f64>> = points(4300, 2, 10, 0.0, 1.0)
            .into_iter()
            .map(|p| vec![15.0 + 3.0 * p[0], 4.5 + 1.0 * p[1]])
            .collect();
        for p in &pts {
            let e = exact(p[0], 1e4 * p[1], &TEMPS, c0, dt);
            let a = final_concentration(p[0], p[1], &TEMPS, c0, dt);
            let b = final_concentration_until(p[0], p[1], &TEMPS, c0, dt);
            assert_close(a, e, 1e-12, "fixed point");
            assert_close(b, e, 1e-12, "fixed point until");
            // The derivative in log A of the closed form, by differences.
            let at = |s: f64| exact(p[0] + s, 1e4 * p[1], &TEMPS, c0, dt);
            let h = 1e-3;
            let fd = (8.0 * (at(h) - at(-h)) - (at(2.0 * h) - at(-2.0 * h))) / (12.0 * h);
            let (_, (ga, _)) = final_concentration_grad(p[0], p[1], &TEMPS, c0, dt);
            let (_, (gb, _)) = final_concentration_until_grad(p[0], p[1], &TEMPS, c0, dt);
            assert_close(ga, fd, 1e-7, "d c / d log A");
            assert_close(gb, fd, 1e-7, "d c / d log A until");
        }
        for (what, f, grad, vjp, jvp, grad_into, hvp, hessian) in [
            (
                "kinetics::final_concentration",
                final_concentration as fn(f64, f64, &[f64], f64, f64) -> f64,
                final_concentration_grad as fn(f64, f64, &[f64], f64, f64) -> (f64, (f64, f64)),
                final_concentration_vjp as fn(f64, f64, &[f64], f64, f64, f64) -> (f64, (f64, f64)),
                final_concentration_jvp as fn(f64, f64, &[f64], f64, f64, (f64, f64)) -> (f64, f64),
                final_concentration_grad_into
                    as fn(f64, f64, &[f64], f64, f64, (&mut f64, &mut f64)) -> f64,
                final_concentration_hvp
                    as fn(f64, f64, &[f64], f64, f64, (f64, f64)) -> (f64, (f64, f64), (f64, f64)),
                final_concentration_hessian
                    as fn(f64, f64, &[f64], f64, f64) -> (f64, (f64, f64), Vec<Vec<f64>>),
            ),
            (
                "kinetics::final_concentration_until",
                final_concentration_until,
                final_concentration_until_grad,
                final_concentration_until_vjp,
                final_concentration_until_jvp,
                final_concentration_until_grad_into,
                final_concentration_until_hvp,
                final_concentration_until_hessian,
            ),
        ] {
            audit(
                &Items {
                    what,
                    primal: &|x| f(x[0], x[1], &TEMPS, c0, dt),
                    grad: &|x| {
                        let (v, g) = grad(x[0], x[1], &TEMPS, c0, dt);
                        (v, vec![g.0, g.1])
                    },
                    vjp: &|x, d| {
                        let (v, g) = vjp(x[0], x[1], &TEMPS, c0, dt, d);
                        (v, vec![g.0, g.1])
                    },
                    jvp: &|x, t| jvp(x[0], x[1], &TEMPS, c0, dt, (t[0], t[1])),
                    grad_into: &|x| {
                        let (mut a, mut b) = (f64::NAN, f64::NAN);
                        let v = grad_into(x[0], x[1], &TEMPS, c0, dt, (&mut a, &mut b));
                        let g = grad(x[0], x[1], &TEMPS, c0, dt).1;
                        same_bits(&[a, b], &[g.0, g.1], what);
                        (v, vec![a, b])
                    },
                    hvp: Some(&|x, w| {
                        let (v, g, h) = hvp(x[0], x[1], &TEMPS, c0, dt, (w[0], w[1]));
                        (v, vec![g.0, g.1], vec![h.0, h.1])
                    }),
                    hessian: Some(&|x| {
                        let (v, g, h) = hessian(x[0], x[1], &TEMPS, c0, dt);
                        (v, vec![g.0, g.1], h)
                    }),
                    analytic: None,
                },
                &pts,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) Batch normalisation followed by a linear layer: each column copied into a scratch `Vec`
// (rewritten per feature), its mean and variance from a helper returning a tuple, the normalised batch
// written into a local matrix; the loss at `order = 2` over scale, shift and weights, and the
// normalised outputs' `_jacobian` in the input batch (the classic batch-norm backward).

mod batch_norm {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn mean_var(col: &[f64]) -> (f64, f64) {
        let n = col.len() as f64;
        let mean = col.iter().sum::<f64>() / n;
        let var = col.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        (mean, var)
    }

    #[differentiable(wrt(xs))]
    pub fn normalise(xs: &[Vec<f64>], gamma: &[f64], beta: &[f64]) -> Vec<f64> {
        let (n, d) = (xs.len(), gamma.len());
        let mut out = vec![0.0; n * d];
        let mut col = vec![0.0; n];
        for j in 0..d {
            for i in 0..n {
                col[i] = xs[i][j];
            }
            let (mu, var) = mean_var(&col);
            let inv = 1.0 / (var + 1e-5).sqrt();
            for i in 0..n {
                out[i * d + j] = gamma[j] * (xs[i][j] - mu) * inv + beta[j];
            }
        }
        out
    }

    #[differentiable(wrt(gamma, beta, w), order = 2)]
    pub fn loss(xs: &[Vec<f64>], gamma: &[f64], beta: &[f64], w: &[f64], ys: &[f64]) -> f64 {
        let (n, d) = (xs.len(), gamma.len());
        let mut normed = vec![vec![0.0; d]; n];
        let mut col = vec![0.0; n];
        for j in 0..d {
            for i in 0..n {
                col[i] = xs[i][j];
            }
            let (mu, var) = mean_var(&col);
            let inv = 1.0 / (var + 1e-5).sqrt();
            for i in 0..n {
                normed[i][j] = gamma[j] * (xs[i][j] - mu) * inv + beta[j];
            }
        }
        let mut total = 0.0;
        for (row, &y) in normed.iter().zip(ys) {
            let pred = row.iter().zip(w).map(|(a, b)| a * b).sum::<f64>() + w[d];
            total += (pred - y).powi(2);
        }
        total / n as f64
    }

    #[test]
    fn normalise_jacobian_and_columns() {
        let gamma = [1.5, 0.5, -1.0];
        let beta = [0.1, -0.2, 0.0];
        for p in points(4310, 12, 10, -2.0, 2.0) {
            let xs = rows(&p, 3);
            let out = normalise(&xs, &gamma, &beta);
            // Each column has mean beta and variance gamma² var / (var + eps).
            for j in 0..3 {
                let col: Vec<f64> = (0..4).map(|i| out[i * 3 + j]).collect();
                let m = col.iter().sum::<f64>() / 4.0;
                assert_close(m, beta[j], 1e-12, "column mean");
            }
            let j = normalise_jacobian(&xs, &gamma, &beta);
            check_jacobian("batch_norm::normalise", &p, &j, |y| {
                normalise(&rows(y, 3), &gamma, &beta)
            });
            // Shifting a column leaves the output unchanged: each row of J sums to 0 over a column's inputs.
            for r in 0..12 {
                for c in 0..3 {
                    let s: f64 = (0..4).map(|i| j[r][i * 3 + c]).sum();
                    assert!(s.abs() < 1e-10, "shift invariance: {s}");
                }
            }
            let c = wave(12, 0.9);
            let t = wave(12, 2.4);
            let (_, cj) = normalise_vjp(&xs, &gamma, &beta, c.clone());
            let (_, jt) = normalise_jvp(&xs, &gamma, &beta, rows(&t, 3));
            check_dual("batch_norm::normalise", &c, &jt, &flatten(&cj), &t);
        }
    }

    #[test]
    fn loss_audit() {
        let xs = points(4311, 3, 6, -2.0, 2.0);
        let ys = [0.5, -0.3, 1.2, 0.0, 0.7, -1.1];
        let pts = points(4312, 10, 10, -1.0, 1.0);
        let parts = |x: &[f64]| (x[..3].to_vec(), x[3..6].to_vec(), x[6..].to_vec());
        audit(
            &Items {
                what: "batch_norm::loss",
                primal: &|x| {
                    let (g, b, w) = parts(x);
                    loss(&xs, &g, &b, &w, &ys)
                },
                grad: &|x| {
                    let (g, b, w) = parts(x);
                    let (f, (gg, gb, gw)) = loss_grad(&xs, &g, &b, &w, &ys);
                    (f, [gg, gb, gw].concat())
                },
                vjp: &|x, d| {
                    let (g, b, w) = parts(x);
                    let (f, (gg, gb, gw)) = loss_vjp(&xs, &g, &b, &w, &ys, d);
                    (f, [gg, gb, gw].concat())
                },
                jvp: &|x, t| {
                    let (g, b, w) = parts(x);
                    loss_jvp(&xs, &g, &b, &w, &ys, parts(t))
                },
                grad_into: &|x| {
                    let (g, b, w) = parts(x);
                    let (mut a, mut c, mut e) = (vec![0.0; 3], vec![1.0; 3], vec![2.0; 4]);
                    let f = loss_grad_into(&xs, &g, &b, &w, &ys, (&mut a, &mut c, &mut e));
                    (f, [a, c, e].concat())
                },
                hvp: Some(&|x, v| {
                    let (g, b, w) = parts(x);
                    let (f, (gg, gb, gw), (hg, hb, hw)) = loss_hvp(&xs, &g, &b, &w, &ys, parts(v));
                    (f, [gg, gb, gw].concat(), [hg, hb, hw].concat())
                }),
                hessian: Some(&|x| {
                    let (g, b, w) = parts(x);
                    let (f, (gg, gb, gw), h) = loss_hessian(&xs, &g, &b, &w, &ys);
                    (f, [gg, gb, gw].concat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) A hidden Markov model in log space: the forward recursion with a double buffer (`cur = next;`
// of local `Vec`s), log-sum-exp over a column of the log-transition matrix `[[f64; 3]; 3]` through a
// helper taking an array, emissions chosen by `match` on the observed symbol; the log-likelihood at
// `order = 2` over the transition logits, and the backward recursion over `.iter().rev()` agreeing with it.

mod hmm {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn lse3(v: [f64; 3]) -> f64 {
        let m = v[0].max(v[1]).max(v[2]);
        m + ((v[0] - m).exp() + (v[1] - m).exp() + (v[2] - m).exp()).ln()
    }

    /// Row-wise log-softmax of the logits: the log-transition matrix, flat and row-major (a matrix is
    /// not a return type API.md lists: returning `[[f64; 3]; 3]` is the spanned error saying so).
    #[differentiable]
    pub fn log_transitions(logits: [[f64; 3]; 3]) -> [f64; 9] {
        let mut out = [0.0; 9];
        for i in 0..3 {
            let z = lse3(logits[i]);
            for j in 0..3 {
                out[3 * i + j] = logits[i][j] - z;
            }
        }
        out
    }

    /// The log-probability of `symbol` in `state`: data, no derivative, called from the bodies.
    pub fn emission(state: usize, symbol: usize) -> f64 {
        let p: f64 = match (state, symbol) {
            (0, 0) => 0.7,
            (0, _) => 0.15,
            (1, 1) => 0.6,
            (1, _) => 0.2,
            (_, 2) => 0.8,
            _ => 0.1,
        };
        p.ln()
    }

    #[differentiable(wrt(logits), order = 2)]
    pub fn log_likelihood(logits: [[f64; 3]; 3], obs: &[usize]) -> f64 {
        let lt = log_transitions(logits);
        let mut cur = vec![0.0; 3];
        for s in 0..3 {
            cur[s] = (1.0f64 / 3.0).ln() + emission(s, obs[0]);
        }
        let mut next = vec![0.0; 3];
        for &o in &obs[1..] {
            for j in 0..3 {
                next[j] =
                    lse3([cur[0] + lt[j], cur[1] + lt[3 + j], cur[2] + lt[6 + j]]) + emission(j, o);
            }
            cur = next.clone();
        }
        lse3([cur[0], cur[1], cur[2]])
    }

    /// The same likelihood by the backward recursion, walking the observations in reverse.
    #[differentiable(wrt(logits))]
    pub fn backward(logits: [[f64; 3]; 3], obs: &[usize]) -> f64 {
        let lt = log_transitions(logits);
        let mut beta = [0.0; 3];
        for &o in obs[1..].iter().rev() {
            let mut prev = [0.0; 3];
            for i in 0..3 {
                prev[i] = lse3([
                    lt[3 * i] + emission(0, o) + beta[0],
                    lt[3 * i + 1] + emission(1, o) + beta[1],
                    lt[3 * i + 2] + emission(2, o) + beta[2],
                ]);
            }
            beta = prev;
        }
        let third = (1.0f64 / 3.0).ln();
        lse3([
            third + emission(0, obs[0]) + beta[0],
            third + emission(1, obs[0]) + beta[1],
            third + emission(2, obs[0]) + beta[2],
        ])
    }

    /// By brute force over all state paths.
    fn brute(logits: &[f64], obs: &[usize]) -> f64 {
        let t: Vec<Vec<f64>> = (0..3)
            .map(|i| {
                let row = &logits[3 * i..3 * i + 3];
                let s: f64 = row.iter().map(|v| v.exp()).sum();
                row.iter().map(|v| v.exp() / s).collect()
            })
            .collect();
        let e = |s: usize, o: usize| emission(s, o).exp();
        let n = obs.len();
        let mut total = 0.0;
        for code in 0..3usize.pow(n as u32) {
            let path: Vec<usize> = (0..n).map(|k| code / 3usize.pow(k as u32) % 3).collect();
            let mut p = e(path[0], obs[0]) / 3.0;
            for k in 1..n {
                p *= t[path[k - 1]][path[k]] * e(path[k], obs[k]);
            }
            total += p;
        }
        total.ln()
    }

    const OBS: [usize; 6] = [0, 2, 2, 1, 0, 2];

    #[test]
    fn forward_backward_and_audit() {
        use common::contract::nested;
        let pts = points(4320, 9, 10, -1.5, 1.5);
        for p in &pts {
            let l: [[f64; 3]; 3] = nested(p);
            let f = log_likelihood(l, &OBS);
            assert_close(f, brute(p, &OBS), 1e-12, "forward against brute force");
            let (b, gb) = backward_grad(l, &OBS);
            assert_eq!(b, backward(l, &OBS));
            assert_close(b, f, 1e-12, "backward");
            let (_, gf) = log_likelihood_grad(l, &OBS);
            assert_all_close(&flatten(&gb), &flatten(&gf), 1e-12, "backward's gradient");
            // The rows are softmax logits: shifting a row changes nothing, so each row's gradient sums to 0.
            for row in gf.iter() {
                assert!(row.iter().sum::<f64>().abs() < 1e-12);
            }
            let lt = log_transitions(l);
            let j = log_transitions_jacobian(l);
            check_jacobian("hmm::log_transitions", p, &j, |y| {
                log_transitions(nested(y)).to_vec()
            });
            for row in lt.chunks_exact(3) {
                assert_close(
                    row.iter().map(|v| v.exp()).sum::<f64>(),
                    1.0,
                    1e-12,
                    "stochastic",
                );
            }
        }
        audit(
            &Items {
                what: "hmm::log_likelihood",
                primal: &|x| log_likelihood(nested(x), &OBS),
                grad: &|x| {
                    let (f, g) = log_likelihood_grad(nested(x), &OBS);
                    (f, flatten(&g))
                },
                vjp: &|x, d| {
                    let (f, g) = log_likelihood_vjp(nested(x), &OBS, d);
                    (f, flatten(&g))
                },
                jvp: &|x, t| log_likelihood_jvp(nested(x), &OBS, nested(t)),
                grad_into: &|x| {
                    let mut g = [[f64::NAN; 3]; 3];
                    let f = log_likelihood_grad_into(nested(x), &OBS, &mut g);
                    same_bits(
                        &flatten(&g),
                        &flatten(&log_likelihood_grad(nested(x), &OBS).1),
                        "hmm",
                    );
                    (f, flatten(&g))
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = log_likelihood_hvp(nested(x), &OBS, nested(v));
                    (f, flatten(&g), flatten(&h))
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = log_likelihood_hessian(nested(x), &OBS);
                    (f, flatten(&g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) A linear solve by Gaussian elimination with partial pivoting inside the function: the matrix
// copied into a local `Vec<Vec<f64>>`, the pivot row found by an integer argmax and swapped element by
// element, eliminated in place, back substitution over `.rev()`; the solution's `_jacobian` in the
// matrix and right-hand side (against `-A⁻¹ (dA) x`), and a compliance `bᵀx` at `order = 2`.

mod gauss {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn solve(a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
        let n = b.len();
        let mut m = a.to_vec();
        let mut rhs = b.to_vec();
        for k in 0..n {
            let mut piv = k;
            for i in k + 1..n {
                if m[i][k].abs() > m[piv][k].abs() {
                    piv = i;
                }
            }
            if piv != k {
                for c in 0..n {
                    let t = m[k][c];
                    m[k][c] = m[piv][c];
                    m[piv][c] = t;
                }
                let t = rhs[k];
                rhs[k] = rhs[piv];
                rhs[piv] = t;
            }
            for i in k + 1..n {
                let f = m[i][k] / m[k][k];
                for c in k..n {
                    m[i][c] -= f * m[k][c];
                }
                rhs[i] -= f * rhs[k];
            }
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            let mut s = rhs[i];
            for c in i + 1..n {
                s -= m[i][c] * x[c];
            }
            x[i] = s / m[i][i];
        }
        x
    }

    #[differentiable(order = 2)]
    pub fn compliance(a: &[Vec<f64>], b: &[f64]) -> f64 {
        let x = solve(a, b);
        x.iter().zip(b).map(|(u, v)| u * v).sum::<f64>()
    }

    fn matrix(p: &[f64]) -> Vec<Vec<f64>> {
        // Not diagonally dominant, so pivoting happens.
        let mut a = rows(&p[..9], 3);
        a[0][0] *= 0.1;
        a
    }

    #[test]
    fn solution_and_jacobian() {
        for p in points(4330, 12, 10, -1.0, 1.0) {
            let a = matrix(&p);
            let b = &p[9..];
            let x = solve(&a, b);
            let back: Vec<f64> = a.iter().map(|r| dot(r, &x)).collect();
            assert_all_close(&back, b, 1e-10, "A x = b");
            let j = solve_jacobian(&a, b);
            assert_eq!((j.len(), j[0].len()), (3, 12));
            let flat = [flatten(&a), b.to_vec()].concat();
            check_jacobian("gauss::solve", &flat, &j, |y| {
                solve(&rows(&y[..9], 3), &y[9..])
            });
            // dx/db = A^-1: A times the b-columns is the identity.
            for r in 0..3 {
                for c in 0..3 {
                    let s: f64 = (0..3).map(|k| a[r][k] * j[k][9 + c]).sum();
                    assert_close(s, if r == c { 1.0 } else { 0.0 }, 1e-10, "A A^-1");
                }
            }
            // dx/dA[k][l] = -A^-1 e_k x_l.
            for k in 0..3 {
                for l in 0..3 {
                    for r in 0..3 {
                        assert_close(j[r][3 * k + l], -j[r][9 + k] * x[l], 1e-10, "dx/dA");
                    }
                }
            }
            let c = wave(3, 0.2);
            let t = wave(12, 0.8);
            let (_, (ca, cb)) = solve_vjp(&a, b, c.clone());
            let (_, jt) = solve_jvp(&a, b, (rows(&t[..9], 3), t[9..].to_vec()));
            check_dual("gauss::solve", &c, &jt, &[flatten(&ca), cb].concat(), &t);
        }
    }

    #[test]
    fn compliance_audit() {
        let pts: Vec<Vec<f64>> = points(4331, 12, 10, -1.0, 1.0)
            .into_iter()
            .map(|p| [flatten(&matrix(&p)), p[9..].to_vec()].concat())
            .collect();
        audit(
            &Items {
                what: "gauss::compliance",
                primal: &|x| compliance(&rows(&x[..9], 3), &x[9..]),
                grad: &|x| {
                    let (f, (ga, gb)) = compliance_grad(&rows(&x[..9], 3), &x[9..]);
                    (f, [flatten(&ga), gb].concat())
                },
                vjp: &|x, d| {
                    let (f, (ga, gb)) = compliance_vjp(&rows(&x[..9], 3), &x[9..], d);
                    (f, [flatten(&ga), gb].concat())
                },
                jvp: &|x, t| {
                    compliance_jvp(
                        &rows(&x[..9], 3),
                        &x[9..],
                        (rows(&t[..9], 3), t[9..].to_vec()),
                    )
                },
                grad_into: &|x| {
                    let mut ga = vec![vec![f64::NAN; 3]; 3];
                    let mut gb = vec![f64::NAN; 3];
                    let f = compliance_grad_into(&rows(&x[..9], 3), &x[9..], (&mut ga, &mut gb));
                    (f, [flatten(&ga), gb].concat())
                },
                hvp: Some(&|x, v| {
                    let (f, (ga, gb), (ha, hb)) = compliance_hvp(
                        &rows(&x[..9], 3),
                        &x[9..],
                        (rows(&v[..9], 3), v[9..].to_vec()),
                    );
                    (f, [flatten(&ga), gb].concat(), [flatten(&ha), hb].concat())
                }),
                hessian: Some(&|x| {
                    let (f, (ga, gb), h) = compliance_hessian(&rows(&x[..9], 3), &x[9..]);
                    (f, [flatten(&ga), gb].concat(), h)
                }),
                // d(bᵀA⁻¹b)/db = (A⁻¹ + A⁻ᵀ) b, d/dA = -A⁻ᵀ b xᵀ.
                analytic: Some(&|x| {
                    let a = rows(&x[..9], 3);
                    let b = &x[9..];
                    let sol = solve(&a, b);
                    let at: Vec<Vec<f64>> =
                        (0..3).map(|i| (0..3).map(|j| a[j][i]).collect()).collect();
                    let y = solve(&at, b);
                    let mut g = vec![0.0; 12];
                    for k in 0..3 {
                        for l in 0..3 {
                            g[3 * k + l] = -y[k] * sol[l];
                        }
                        g[9 + k] = sol[k] + y[k];
                    }
                    g
                }),
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (16) Power iteration for the dominant eigenvalue of a symmetric matrix: the iterate normalised in
// place each step (its norm by a fold of `hypot`), the Rayleigh quotient at the end; the eigenvalue's
// gradient against `v vᵀ` (symmetrised), at `order = 2`.

mod power {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn mat_vec_into(m: &[Vec<f64>], v: &[f64], out: &mut [f64]) {
        for (i, row) in m.iter().enumerate() {
            out[i] = row.iter().zip(v).map(|(a, b)| a * b).sum::<f64>();
        }
    }

    #[differentiable(wrt(m), order = 2)]
    pub fn dominant(m: &[Vec<f64>], iters: usize) -> f64 {
        let n = m.len();
        let mut v = vec![1.0; n];
        let mut w = vec![0.0; n];
        for _ in 0..iters {
            mat_vec_into(m, &v, &mut w);
            let norm = w.iter().fold(0.0, |acc: f64, &x| acc.hypot(x));
            for i in 0..n {
                v[i] = w[i] / norm;
            }
        }
        mat_vec_into(m, &v, &mut w);
        v.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>()
    }

    /// A symmetric matrix with a clear spectral gap from `p` (6 numbers for the upper triangle).
    fn symmetric(p: &[f64]) -> Vec<Vec<f64>> {
        let mut m = vec![vec![0.0; 3]; 3];
        let mut k = 0;
        for i in 0..3 {
            for j in i..3 {
                m[i][j] = 0.3 * p[k];
                m[j][i] = 0.3 * p[k];
                k += 1;
            }
        }
        m[0][0] += 3.0;
        m[1][1] += 1.0;
        m
    }

    #[test]
    fn eigenvalue_gradient_is_v_vt() {
        for p in points(4340, 6, 10, -1.0, 1.0) {
            let m = symmetric(&p);
            let (lambda, g) = dominant_grad(&m, 60);
            // The eigenvector, by many more iterations.
            let mut v = vec![1.0; 3];
            for _ in 0..500 {
                let w: Vec<f64> = m.iter().map(|r| dot(r, &v)).collect();
                let n = dot(&w, &w).sqrt();
                v = w.iter().map(|x| x / n).collect();
            }
            let mv: Vec<f64> = m.iter().map(|r| dot(r, &v)).collect();
            assert_close(lambda, dot(&v, &mv), 1e-10, "eigenvalue");
            for i in 0..3 {
                for j in 0..3 {
                    // On a symmetric point, the gradient over all nine entries is v_i v_j.
                    assert_close(g[i][j], v[i] * v[j], 1e-8, "d lambda / d M");
                }
            }
        }
    }

    #[test]
    fn dominant_audit() {
        let pts: Vec<Vec<f64>> = points(4341, 6, 8, -1.0, 1.0)
            .iter()
            .map(|p| flatten(&symmetric(p)))
            .collect();
        let iters = 12;
        audit(
            &Items {
                what: "power::dominant",
                primal: &|x| dominant(&rows(x, 3), iters),
                grad: &|x| {
                    let (f, g) = dominant_grad(&rows(x, 3), iters);
                    (f, flatten(&g))
                },
                vjp: &|x, d| {
                    let (f, g) = dominant_vjp(&rows(x, 3), iters, d);
                    (f, flatten(&g))
                },
                jvp: &|x, t| dominant_jvp(&rows(x, 3), iters, rows(t, 3)),
                grad_into: &|x| {
                    let mut g = vec![vec![f64::NAN; 3]; 3];
                    let f = dominant_grad_into(&rows(x, 3), iters, &mut g);
                    (f, flatten(&g))
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = dominant_hvp(&rows(x, 3), iters, rows(v, 3));
                    (f, flatten(&g), flatten(&h))
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = dominant_hessian(&rows(x, 3), iters);
                    (f, flatten(&g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (17) A double pendulum as a struct deriving `Differentiable` with a `#[no_grad]` step count: kinetic
// and potential energy as methods calling each other through `self.`, the Lagrangian at `order = 2`
// (its Hessian's velocity block is the mass matrix, and the equations of motion follow from its
// gradient and Hessian), accelerations by Cramer's rule with `mul_add`, the tip by `hypot` and `atan2`,
// and the energy after integrating `self.steps` steps differentiated in the parameters (`wrt(self)`).

mod pendulum {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    pub const G: f64 = 9.81;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Pendulum {
        pub m1: f64,
        pub m2: f64,
        pub l1: f64,
        pub l2: f64,
        #[no_grad]
        pub steps: usize,
    }

    impl Pendulum {
        // The callees of `final_energy` (`wrt(self)`) differentiate the struct too: one that kept it
        // constant is the spanned error saying to write `wrt(self, ..)` on it.
        #[differentiable(wrt(self, q, qd))]
        fn kinetic(&self, q: [f64; 2], qd: [f64; 2]) -> f64 {
            let c = (q[0] - q[1]).cos();
            0.5 * (self.m1 + self.m2) * (self.l1 * qd[0]).powi(2)
                + 0.5 * self.m2 * (self.l2 * qd[1]).powi(2)
                + self.m2 * self.l1 * self.l2 * qd[0] * qd[1] * c
        }

        #[differentiable(wrt(self, q))]
        fn potential(&self, q: [f64; 2]) -> f64 {
            -(self.m1 + self.m2) * G * self.l1 * q[0].cos() - self.m2 * G * self.l2 * q[1].cos()
        }

        #[differentiable(order = 2)]
        pub fn lagrangian(&self, q: [f64; 2], qd: [f64; 2]) -> f64 {
            self.kinetic(q, qd) - self.potential(q)
        }

        #[differentiable(wrt(self, q, qd), order = 2)]
        pub fn energy(&self, q: [f64; 2], qd: [f64; 2]) -> f64 {
            self.kinetic(q, qd) + self.potential(q)
        }

        /// Distance of the tip from the pivot and its angle from the downward vertical.
        #[differentiable]
        pub fn tip(&self, q: [f64; 2]) -> [f64; 2] {
            let x = self.l1 * q[0].sin() + self.l2 * q[1].sin();
            let y = -self.l1 * q[0].cos() - self.l2 * q[1].cos();
            [x.hypot(y), x.atan2(-y)]
        }

        #[differentiable(wrt(self, q, qd))]
        pub fn accelerations(&self, q: [f64; 2], qd: [f64; 2]) -> [f64; 2] {
            let (s, c) = ((q[0] - q[1]).sin(), (q[0] - q[1]).cos());
            let m00 = (self.m1 + self.m2) * self.l1 * self.l1;
            let m01 = self.m2 * self.l1 * self.l2 * c;
            let m11 = self.m2 * self.l2 * self.l2;
            let f0 = -self.m2 * self.l1 * self.l2 * qd[1] * qd[1] * s
                - (self.m1 + self.m2) * G * self.l1 * q[0].sin();
            let f1 = self.m2 * self.l1 * self.l2 * qd[0] * qd[0] * s
                - self.m2 * G * self.l2 * q[1].sin();
            let det = m00.mul_add(m11, -m01 * m01);
            [
                f0.mul_add(m11, -m01 * f1) / det,
                m00.mul_add(f1, -m01 * f0) / det,
            ]
        }

        /// The integrator's step: a constant of the model (with `dt` a parameter, the census drew
        /// `dt = 0.77`, where two steps are so nonlinear that central differences at its step of `1e-5`
        /// are off by 5e-5 relative while Richardson's at `1e-6` agree with `f_grad` to 1e-11).
        const DT: f64 = 0.01;

        /// The energy after `self.steps` semi-implicit Euler steps of `Self::DT` from `(q0, qd0)`.
        #[differentiable(wrt(self), order = 2)]
        pub fn final_energy(&self, q0: [f64; 2], qd0: [f64; 2]) -> f64 {
            let dt = Self::DT;
            let mut q = q0;
            let mut qd = qd0;
            for _ in 0..self.steps {
                let acc = self.accelerations(q, qd);
                for i in 0..2 {
                    qd[i] += dt * acc[i];
                    q[i] += dt * qd[i];
                }
            }
            self.energy(q, qd)
        }
    }

    fn model(p: &[f64], steps: usize) -> Pendulum {
        Pendulum {
            m1: p[0],
            m2: p[1],
            l1: p[2],
            l2: p[3],
            steps,
        }
    }

    fn params(p: &Pendulum) -> Vec<f64> {
        vec![p.m1, p.m2, p.l1, p.l2]
    }

    #[test]
    fn lagrangian_gives_the_equations_of_motion() {
        for (k, x) in points(4350, 8, 10, -1.0, 1.0).iter().enumerate() {
            let p = model(&[1.0 + 0.3 * x[0], 0.8 + 0.2 * x[1], 1.0, 0.7], k);
            let (q, qd) = ([x[2], 1.5 * x[3]], [x[4], x[5]]);
            let (l, (gq, _), h) = p.lagrangian_hessian(q, qd);
            assert_eq!(l, p.lagrangian(q, qd));
            // The mass matrix is the velocity block of the Hessian.
            let c = (q[0] - q[1]).cos();
            let mass = [
                [(p.m1 + p.m2) * p.l1 * p.l1, p.m2 * p.l1 * p.l2 * c],
                [p.m2 * p.l1 * p.l2 * c, p.m2 * p.l2 * p.l2],
            ];
            for i in 0..2 {
                for j in 0..2 {
                    assert_close(h[2 + i][2 + j], mass[i][j], 1e-12, "mass matrix");
                }
            }
            // Euler-Lagrange: M qdd = dL/dq - (d2L/dqd dq) qd.
            let acc = p.accelerations(q, qd);
            for i in 0..2 {
                let lhs = h[2 + i][2] * acc[0] + h[2 + i][3] * acc[1];
                let rhs = [gq[0], gq[1]][i] - h[2 + i][0] * qd[0] - h[2 + i][1] * qd[1];
                assert_close(lhs, rhs, 1e-10, "Euler-Lagrange");
            }
            // The Hessian against differences of the gradient, and hvp against it.
            let flat = [q.to_vec(), qd.to_vec()].concat();
            let grad = |y: &[f64]| {
                let (_, (a, b)) = p.lagrangian_grad(arr(&y[..2]), arr(&y[2..]));
                [a.to_vec(), b.to_vec()].concat()
            };
            common::assert_hessian_fd(&h, grad, &flat, 1e-6, "lagrangian");
            let v = wave(4, 0.3);
            let (_, _, (hq, hqd)) = p.lagrangian_hvp(q, qd, (arr(&v[..2]), arr(&v[2..])));
            let hv: Vec<f64> = h.iter().map(|r| dot(r, &v)).collect();
            assert_all_close(&[hq.to_vec(), hqd.to_vec()].concat(), &hv, 1e-10, "hvp");
            // The tip's Jacobian.
            let j = p.tip_jacobian(q);
            check_jacobian("pendulum::tip", &q, &j, |y| p.tip(arr(y)).to_vec());
            let r = p.tip(q);
            let (x_tip, y_tip) = (
                p.l1 * q[0].sin() + p.l2 * q[1].sin(),
                -p.l1 * q[0].cos() - p.l2 * q[1].cos(),
            );
            assert_close(
                r[0],
                (x_tip * x_tip + y_tip * y_tip).sqrt(),
                1e-12,
                "tip distance",
            );
        }
    }

    #[test]
    fn accelerations_jacobian_over_the_struct() {
        for x in points(4351, 8, 10, -1.0, 1.0) {
            let p = model(
                &[1.0 + 0.3 * x[0], 0.8 + 0.2 * x[1], 1.0 + 0.2 * x[6], 0.7],
                0,
            );
            let (q, qd) = ([x[2], 1.5 * x[3]], [x[4], x[5]]);
            let c = [0.6, -1.1];
            let (v, (gp, gq, gqd)) = p.accelerations_vjp(q, qd, c);
            assert_eq!(v, p.accelerations(q, qd));
            let flat = [params(&p), q.to_vec(), qd.to_vec()].concat();
            let fd = common::fd_jacobian(
                |y| {
                    let m = model(y, 0);
                    m.accelerations(arr(&y[4..6]), arr(&y[6..8])).to_vec()
                },
                &flat,
            );
            let cj: Vec<f64> = (0..8).map(|k| c[0] * fd[0][k] + c[1] * fd[1][k]).collect();
            assert_all_close(
                &[params(&gp), gq.to_vec(), gqd.to_vec()].concat(),
                &cj,
                1e-6,
                "accelerations_vjp against differences",
            );
            assert_eq!(gp.steps, p.steps);
        }
    }

    #[test]
    fn final_energy_over_the_parameters() {
        let (q0, qd0) = ([0.8, -0.3], [0.0, 0.5]);
        let pts: Vec<Vec<f64>> = points(4352, 4, 8, -1.0, 1.0)
            .iter()
            .map(|x| {
                vec![
                    1.0 + 0.3 * x[0],
                    0.8 + 0.2 * x[1],
                    1.0 + 0.2 * x[2],
                    0.7 + 0.1 * x[3],
                ]
            })
            .collect();
        let steps = 40;
        // The energy is nearly conserved by the integrator.
        for x in &pts {
            let p = model(x, steps);
            let start = p.energy(q0, qd0);
            assert!((p.final_energy(q0, qd0) - start).abs() < 0.05 * start.abs().max(1.0));
        }
        audit(
            &Items {
                what: "pendulum::final_energy",
                primal: &|x| model(x, steps).final_energy(q0, qd0),
                grad: &|x| {
                    let (f, g) = model(x, steps).final_energy_grad(q0, qd0);
                    assert_eq!(g.steps, steps);
                    (f, g.to_flat())
                },
                vjp: &|x, d| {
                    let (f, g) = model(x, steps).final_energy_vjp(q0, qd0, d);
                    (f, g.to_flat())
                },
                jvp: &|x, t| {
                    let m = model(x, steps);
                    let tangent = m.from_flat(t);
                    m.final_energy_jvp(q0, qd0, tangent)
                },
                grad_into: &|x| {
                    let m = model(x, steps);
                    let mut g = model(&[f64::NAN; 4], 0);
                    let f = m.final_energy_grad_into(q0, qd0, &mut g);
                    (f, g.to_flat())
                },
                hvp: Some(&|x, v| {
                    let m = model(x, steps);
                    let (f, g, hv) = m.final_energy_hvp(q0, qd0, m.from_flat(v));
                    (f, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = model(x, steps).final_energy_hessian(q0, qd0);
                    (f, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (18) Total-variation denoising with const generics (`[f64; N]`, `const N: usize`): the objective
// through `windows(2)` and a smoothed `abs` helper at `order = 2`; unrolled gradient descent writing
// into an output array `&mut [f64; N]` (read back after it is written), differentiated in the noisy
// signal; and an IRLS surrogate whose weights are held by `stop_gradient`.

mod denoise {
    use super::*;
    use autodiff::{differentiable, stop_gradient};

    #[differentiable(order = 2)]
    pub fn smooth_abs(x: f64, eps: f64) -> f64 {
        (x * x + eps * eps).sqrt() - eps
    }

    #[differentiable(wrt(x), order = 2)]
    pub fn tv_objective<const N: usize>(x: &[f64; N], y: &[f64; N], lambda: f64) -> f64 {
        let fidelity = x
            .iter()
            .zip(y.iter())
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>();
        let tv = x
            .windows(2)
            .map(|w| smooth_abs(w[1] - w[0], 0.1))
            .sum::<f64>();
        0.5 * fidelity + lambda * tv
    }

    #[differentiable(wrt(y))]
    pub fn descend<const N: usize>(
        y: &[f64; N],
        lambda: f64,
        step: f64,
        iters: usize,
        out: &mut [f64; N],
    ) {
        for i in 0..N {
            out[i] = y[i];
        }
        let mut g = [0.0; N];
        for _ in 0..iters {
            for i in 0..N {
                let mut gi = out[i] - y[i];
                if i > 0 {
                    let d = out[i] - out[i - 1];
                    gi += lambda * d / (d * d + 0.01).sqrt();
                }
                if i + 1 < N {
                    let d = out[i + 1] - out[i];
                    gi -= lambda * d / (d * d + 0.01).sqrt();
                }
                g[i] = gi;
            }
            for i in 0..N {
                out[i] -= step * g[i];
            }
        }
    }

    /// The majoriser of the TV term at the current point: `sqrt(d² + e²) ≤ ((d² + e²) / w + w) / 2` with
    /// `w = sqrt(d0² + e²)` held; its gradient at the point is the objective's.
    #[differentiable(wrt(x))]
    pub fn irls_surrogate<const N: usize>(x: &[f64; N], y: &[f64; N], lambda: f64) -> f64 {
        let mut total = 0.0;
        for i in 0..N {
            total += 0.5 * (x[i] - y[i]) * (x[i] - y[i]);
        }
        for i in 1..N {
            let d = x[i] - x[i - 1];
            let w = stop_gradient((d * d + 0.01).sqrt());
            total += lambda * (0.5 * ((d * d + 0.01) / w + w) - 0.1);
        }
        total
    }

    const Y: [f64; 6] = [0.1, 0.15, 0.9, 1.05, 0.95, 0.2];

    #[test]
    fn objective_audit() {
        let lambda = 0.3;
        let pts = points(4360, 6, 10, -0.5, 1.5);
        for p in &pts {
            let x: [f64; 6] = arr(p);
            // Majoriser: same value and gradient at the point.
            let (f, g) = tv_objective_grad(&x, &Y, lambda);
            let (s, gs) = irls_surrogate_grad(&x, &Y, lambda);
            assert_close(s, f, 1e-12, "surrogate value");
            assert_all_close(&gs, &g, 1e-12, "surrogate gradient");
            assert_eq!(s, irls_surrogate(&x, &Y, lambda));
            // The surrogate lies above the objective elsewhere.
            let moved: [f64; 6] = arr(&wave(6, 0.5)
                .iter()
                .zip(p)
                .map(|(a, b)| b + 0.3 * a)
                .collect::<Vec<_>>());
            assert!(
                tv_objective(&moved, &Y, lambda) <= {
                    // The surrogate with the weights of `x`, at `moved`.
                    let mut t = 0.0;
                    for i in 0..6 {
                        t += 0.5 * (moved[i] - Y[i]).powi(2);
                    }
                    for i in 1..6 {
                        let (d, d0) = (moved[i] - moved[i - 1], x[i] - x[i - 1]);
                        let w = (d0 * d0 + 0.01).sqrt();
                        t += lambda * (0.5 * ((d * d + 0.01) / w + w) - 0.1);
                    }
                    t + 1e-12
                }
            );
        }
        audit(
            &Items {
                what: "denoise::tv_objective",
                primal: &|x| tv_objective::<6>(&arr(x), &Y, lambda),
                grad: &|x| {
                    let (f, g) = tv_objective_grad::<6>(&arr(x), &Y, lambda);
                    (f, g.to_vec())
                },
                vjp: &|x, d| {
                    let (f, g) = tv_objective_vjp::<6>(&arr(x), &Y, lambda, d);
                    (f, g.to_vec())
                },
                jvp: &|x, t| tv_objective_jvp::<6>(&arr(x), &Y, lambda, arr(t)),
                grad_into: &|x| {
                    let mut g = [f64::NAN; 6];
                    let f = tv_objective_grad_into::<6>(&arr(x), &Y, lambda, &mut g);
                    (f, g.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = tv_objective_hvp::<6>(&arr(x), &Y, lambda, arr(v));
                    (f, g.to_vec(), h.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = tv_objective_hessian::<6>(&arr(x), &Y, lambda);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn unrolled_descent_in_the_data() {
        let (lambda, step) = (0.2, 0.3);
        for (k, p) in points(4361, 6, 10, -0.3, 0.3).iter().enumerate() {
            let y: [f64; 6] = arr(&Y.iter().zip(p).map(|(a, b)| a + b).collect::<Vec<_>>());
            let iters = 5 + k;
            let mut out = [f64::NAN; 6];
            descend(&y, lambda, step, iters, &mut out);
            // Descent lowers the objective.
            assert!(tv_objective(&out, &y, lambda) < tv_objective(&y, &y, lambda));
            let mut buffer = [f64::NAN; 6];
            let j = descend_jacobian(&y, lambda, step, iters, &mut buffer);
            assert_eq!(buffer, out);
            check_jacobian("denoise::descend", &y, &j, |z| {
                let mut o = [0.0; 6];
                descend(&arr(z), lambda, step, iters, &mut o);
                o.to_vec()
            });
            let c = wave(6, 0.4);
            let t = wave(6, 1.9);
            let mut o1 = [0.0; 6];
            let cj = descend_vjp(&y, lambda, step, iters, &mut o1, &arr(&c));
            let mut o2 = [0.0; 6];
            let mut jt = [f64::NAN; 6];
            descend_jvp(&y, lambda, step, iters, &mut o2, arr(&t), &mut jt);
            assert_eq!(o1, out);
            assert_eq!(o2, out);
            check_dual("denoise::descend", &c, &jt, &cj, &t);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (19) A biquad IIR filter, once in `f32` and once generic over `T: Float`: the filter state `(z1, z2)`
// replaced by a destructuring assignment from a helper's tuple each sample, the coefficients an array;
// the `f32` gradient against the generic one at `f64`, the generic one on `Dual` numbers, and the
// generic loss at `order = 2`.

mod biquad {
    use super::*;
    use autodiff::{differentiable, Dual, Float};

    #[differentiable]
    pub fn step32(c: [f32; 5], x: f32, z1: f32, z2: f32) -> (f32, f32, f32) {
        let y = c[0] * x + z1;
        (y, c[1] * x - c[3] * y + z2, c[2] * x - c[4] * y)
    }

    #[differentiable(wrt(c))]
    pub fn loss32(c: [f32; 5], xs: &[f32], target: &[f32]) -> f32 {
        let (mut z1, mut z2) = (0.0, 0.0);
        let mut total = 0.0;
        for (&x, &t) in xs.iter().zip(target) {
            let y;
            (y, z1, z2) = step32(c, x, z1, z2);
            total += (y - t) * (y - t);
        }
        total / xs.len() as f32
    }

    #[differentiable]
    pub fn step<T: Float>(c: [T; 5], x: T, z1: T, z2: T) -> (T, T, T) {
        let y = c[0] * x + z1;
        (y, c[1] * x - c[3] * y + z2, c[2] * x - c[4] * y)
    }

    #[differentiable(wrt(c), order = 2)]
    pub fn loss<T: Float>(c: [T; 5], xs: &[T], target: &[T]) -> T {
        let mut z1 = T::zero();
        let mut z2 = T::zero();
        let mut total = T::zero();
        for (&x, &t) in xs.iter().zip(target) {
            let y;
            (y, z1, z2) = step(c, x, z1, z2);
            total = total + (y - t) * (y - t);
        }
        total / T::from(xs.len()).unwrap()
    }

    fn signal() -> (Vec<f64>, Vec<f64>) {
        let xs: Vec<f64> = (0..24)
            .map(|k| (0.7 * k as f64).sin() + 0.3 * (2.3 * k as f64).cos())
            .collect();
        // The target: a low-pass of the input by a fixed filter.
        let mut target = vec![0.0; xs.len()];
        let (mut z1, mut z2) = (0.0, 0.0);
        let c = [0.2, 0.4, 0.2, -0.5, 0.3];
        for (k, &x) in xs.iter().enumerate() {
            let y = c[0] * x + z1;
            z1 = c[1] * x - c[3] * y + z2;
            z2 = c[2] * x - c[4] * y;
            target[k] = y;
        }
        (xs, target)
    }

    #[test]
    fn f32_against_generic_f64() {
        let (xs, target) = signal();
        let xs32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
        let t32: Vec<f32> = target.iter().map(|&v| v as f32).collect();
        for p in points(4370, 5, 10, -0.4, 0.4) {
            let c: [f64; 5] = arr(&p);
            let c32 = c.map(|v| v as f32);
            let (v32, g32) = loss32_grad(c32, &xs32, &t32);
            let (v64, g64) = loss_grad(c, &xs, &target);
            assert_eq!(v32, loss32(c32, &xs32, &t32));
            assert_close(v32 as f64, v64, 1e-4, "f32 value");
            for k in 0..5 {
                assert_close(g32[k] as f64, g64[k], 1e-3, "f32 gradient");
            }
            let mut into = [f32::NAN; 5];
            let v = loss32_grad_into(c32, &xs32, &t32, &mut into);
            assert_eq!(v, v32);
            assert_eq!(into.map(f32::to_bits), g32.map(f32::to_bits));
            // The generic loss on dual numbers: its tangent is the gradient along the tangent.
            let tangent = wave(5, 0.6);
            let mut cd = [Dual::new(0.0, 0.0); 5];
            for k in 0..5 {
                cd[k] = Dual::new(c[k], tangent[k]);
            }
            let xd: Vec<Dual<f64>> = xs.iter().map(|&v| Dual::new(v, 0.0)).collect();
            let td: Vec<Dual<f64>> = target.iter().map(|&v| Dual::new(v, 0.0)).collect();
            let d = loss(cd, &xd, &td);
            assert_close(d.re, v64, 1e-12, "dual value");
            assert_close(d.eps, dot(&g64, &tangent), 1e-12, "dual tangent");
            // The step's vjp and jvp against each other, in f32.
            let (_, cj) = step32_vjp(c32, 0.5, 0.1, -0.2, (1.0, -0.5, 0.25));
            let (_, jt) = step32_jvp(
                c32,
                0.5,
                0.1,
                -0.2,
                ([0.1, 0.2, -0.3, 0.4, 0.5], 0.6, -0.7, 0.8),
            );
            let lhs = jt.0 - 0.5 * jt.1 + 0.25 * jt.2;
            let rhs = [0.1, 0.2, -0.3, 0.4, 0.5]
                .iter()
                .zip(cj.0.iter())
                .map(|(a, b)| a * b)
                .sum::<f32>()
                + 0.6 * cj.1
                - 0.7 * cj.2
                + 0.8 * cj.3;
            assert!((lhs - rhs).abs() < 1e-5, "step32 duality {lhs} {rhs}");
        }
    }

    #[test]
    fn generic_loss_audit() {
        let (xs, target) = signal();
        let pts = points(4371, 5, 10, -0.4, 0.4);
        audit(
            &Items {
                what: "biquad::loss",
                primal: &|x| loss(arr(x), &xs, &target),
                grad: &|x| {
                    let (f, g) = loss_grad(arr(x), &xs, &target);
                    (f, g.to_vec())
                },
                vjp: &|x, d| {
                    let (f, g) = loss_vjp(arr(x), &xs, &target, d);
                    (f, g.to_vec())
                },
                jvp: &|x, t| loss_jvp(arr(x), &xs, &target, arr(t)),
                grad_into: &|x| {
                    let mut g = [f64::NAN; 5];
                    let f = loss_grad_into(arr(x), &xs, &target, &mut g);
                    (f, g.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = loss_hvp(arr(x), &xs, &target, arr(v));
                    (f, g.to_vec(), h.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = loss_hessian(arr(x), &xs, &target);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
        // At the filter that made the target, the loss and its gradient vanish.
        let (f, g) = loss_grad([0.2, 0.4, 0.2, -0.5, 0.3], &xs, &target);
        assert!(f < 1e-28 && g.iter().all(|v| v.abs() < 1e-13), "{f} {g:?}");
    }
}

// ---------------------------------------------------------------------------------------------------
// (20) A single-server queue by Lindley's recursion `w = max(0, w + s - a)`: the waiting time
// overwritten per customer, priority customers skipped by `continue`, a service-time scale chosen by
// `match` on the customer's class; the mean wait's gradient in the service times counts each busy period
// (by hand), and a smooth variant (softplus in place of `max`) at `order = 2`.

mod queue {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(service))]
    pub fn mean_wait(service: &[f64], gaps: &[f64], class: &[u8]) -> f64 {
        let mut w = 0.0;
        let mut total = 0.0;
        let mut counted = 0;
        for k in 1..service.len() {
            let scale = match class[k - 1] {
                0 => 1.0,
                1 | 2 => 1.5,
                _ => 2.0,
            };
            w = (w + scale * service[k - 1] - gaps[k]).max(0.0);
            if class[k] == 9 {
                continue;
            }
            total += w;
            counted += 1;
        }
        total / counted as f64
    }

    #[differentiable]
    pub fn softplus(x: f64, sharpness: f64) -> f64 {
        let z = sharpness * x;
        if z > 30.0 {
            x
        } else {
            z.exp().ln_1p() / sharpness
        }
    }

    #[differentiable(wrt(service), order = 2)]
    pub fn smooth_mean_wait(service: &[f64], gaps: &[f64]) -> f64 {
        let mut w = 0.0;
        let mut total = 0.0;
        for k in 1..service.len() {
            w = softplus(w + service[k - 1] - gaps[k], 8.0);
            total += w;
        }
        total / (service.len() - 1) as f64
    }

    const CLASS: [u8; 8] = [0, 1, 9, 2, 0, 3, 9, 0];

    #[test]
    fn busy_periods_by_hand() {
        for p in points(4380, 16, 12, 0.0, 1.0) {
            let service = &p[..8];
            let gaps: Vec<f64> = p[8..].iter().map(|g| 0.2 + 1.2 * g).collect();
            let (v, g) = mean_wait_grad(service, &gaps, &CLASS);
            assert_eq!(v, mean_wait(service, &gaps, &CLASS));
            // By hand: d w_k / d s_j = scale_j while customer j's busy period lasts.
            let scale = |c: u8| match c {
                0 => 1.0,
                1 | 2 => 1.5,
                _ => 2.0,
            };
            let mut w = 0.0;
            let mut dw = [0.0; 8];
            let mut by_hand = [0.0; 8];
            let mut counted = 0.0;
            for k in 1..8 {
                let before = w + scale(CLASS[k - 1]) * service[k - 1] - gaps[k];
                if before > 0.0 {
                    w = before;
                    dw[k - 1] += scale(CLASS[k - 1]);
                } else {
                    w = 0.0;
                    dw = [0.0; 8];
                }
                if CLASS[k] == 9 {
                    continue;
                }
                counted += 1.0;
                for j in 0..8 {
                    by_hand[j] += dw[j];
                }
            }
            let by_hand: Vec<f64> = by_hand.iter().map(|d| d / counted).collect();
            assert_all_close(&g, &by_hand, 1e-12, "busy periods");
            assert_fd_gradient(|s| mean_wait(s, &gaps, &CLASS), service, &g, "mean_wait");
        }
    }

    #[test]
    fn smooth_audit() {
        let gaps: Vec<f64> = (0..8).map(|k| 0.4 + 0.3 * (k as f64).sin()).collect();
        let pts = points(4381, 8, 10, 0.0, 1.0);
        audit(
            &Items {
                what: "queue::smooth_mean_wait",
                primal: &|x| smooth_mean_wait(x, &gaps),
                grad: &|x| smooth_mean_wait_grad(x, &gaps),
                vjp: &|x, d| smooth_mean_wait_vjp(x, &gaps, d),
                jvp: &|x, t| smooth_mean_wait_jvp(x, &gaps, t.to_vec()),
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; 8];
                    let f = smooth_mean_wait_grad_into(x, &gaps, &mut g);
                    same_bits(&g, &smooth_mean_wait_grad(x, &gaps).1, "queue");
                    (f, g)
                },
                hvp: Some(&|x, v| smooth_mean_wait_hvp(x, &gaps, v.to_vec())),
                hessian: Some(&|x| smooth_mean_wait_hessian(x, &gaps)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (21) Chebyshev series by Clenshaw's recurrence: `b1`, `b2` replaced each step walking the coefficients
// by `.iter().rev()`, a domain map to `[-1, 1]`; `f_derivatives` at `order = 3` in the one scalar input
// against the series' derivatives by hand, and the coefficient gradient (the Chebyshev polynomials).

mod chebyshev {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(x), order = 3)]
    pub fn clenshaw(x: f64, coeffs: &[f64], lo: f64, hi: f64) -> f64 {
        let t = (2.0 * x - lo - hi) / (hi - lo);
        let mut b1 = 0.0;
        let mut b2 = 0.0;
        for &c in coeffs[1..].iter().rev() {
            let b0 = 2.0 * t * b1 - b2 + c;
            b2 = b1;
            b1 = b0;
        }
        t * b1 - b2 + coeffs[0]
    }

    #[differentiable(wrt(coeffs))]
    pub fn series(x: f64, coeffs: &[f64]) -> f64 {
        clenshaw(x, coeffs, -1.0, 1.0)
    }

    #[test]
    fn derivatives_by_hand() {
        let coeffs = [0.5, -0.3, 0.8, 0.2, -0.1];
        let (lo, hi) = (-2.0, 3.0);
        for p in points(4390, 1, 12, -2.0, 3.0) {
            let x = p[0];
            let t = (2.0 * x - lo - hi) / (hi - lo);
            let s = 2.0 / (hi - lo);
            // T_k(t) as polynomials in t: T0 = 1, T1 = t, T2 = 2t² - 1, T3 = 4t³ - 3t, T4 = 8t⁴ - 8t² + 1.
            let f = coeffs[0]
                + coeffs[1] * t
                + coeffs[2] * (2.0 * t * t - 1.0)
                + coeffs[3] * (4.0 * t.powi(3) - 3.0 * t)
                + coeffs[4] * (8.0 * t.powi(4) - 8.0 * t * t + 1.0);
            let f1 = coeffs[1]
                + coeffs[2] * 4.0 * t
                + coeffs[3] * (12.0 * t * t - 3.0)
                + coeffs[4] * (32.0 * t.powi(3) - 16.0 * t);
            let f2 = coeffs[2] * 4.0 + coeffs[3] * 24.0 * t + coeffs[4] * (96.0 * t * t - 16.0);
            let f3 = coeffs[3] * 24.0 + coeffs[4] * 192.0 * t;
            let d = clenshaw_derivatives(x, &coeffs, lo, hi);
            assert_all_close(
                &d,
                &[f, f1 * s, f2 * s * s, f3 * s * s * s],
                1e-12,
                "Clenshaw derivatives",
            );
            let (_, g, h) = clenshaw_hessian(x, &coeffs, lo, hi);
            assert_close(g, d[1], 1e-12, "gradient");
            assert_close(h[0][0], d[2], 1e-12, "Hessian");
            let (_, gc) = series_grad(t, &coeffs);
            let cheb = [
                1.0,
                t,
                2.0 * t * t - 1.0,
                4.0 * t.powi(3) - 3.0 * t,
                8.0 * t.powi(4) - 8.0 * t * t + 1.0,
            ];
            assert_all_close(&gc, &cheb, 1e-12, "d/dc = T_k");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (22) Adaptive Simpson quadrature by recursion: a differentiable function calling itself on the two
// halves until its error estimate is small (the depth an integer), the integrand a helper of the
// parameters; `const` items and a nested `fn` in the body; the integral's gradient in the parameters
// against the integral of the integrand's gradient, at `order = 2`.

mod quadrature {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn integrand(t: f64, a: f64, b: f64) -> f64 {
        (a * t).sin() * (-b * t * t).exp()
    }

    #[differentiable]
    pub fn adaptive(lo: f64, hi: f64, a: f64, b: f64, whole: f64, tol: f64, depth: usize) -> f64 {
        let mid = 0.5 * (lo + hi);
        let left = simpson(lo, mid, a, b);
        let right = simpson(mid, hi, a, b);
        let err = left + right - whole;
        if depth == 0 || err.abs() <= 15.0 * tol {
            return left + right + err / 15.0;
        }
        adaptive(lo, mid, a, b, left, 0.5 * tol, depth - 1)
            + adaptive(mid, hi, a, b, right, 0.5 * tol, depth - 1)
    }

    #[differentiable]
    pub fn simpson(lo: f64, hi: f64, a: f64, b: f64) -> f64 {
        let mid = 0.5 * (lo + hi);
        (hi - lo) / 6.0 * (integrand(lo, a, b) + 4.0 * integrand(mid, a, b) + integrand(hi, a, b))
    }

    #[differentiable(wrt(a, b), order = 2)]
    pub fn integral(a: f64, b: f64, hi: f64) -> f64 {
        const TOL: f64 = 1e-10;
        const DEPTH: usize = 30;
        fn half(x: f64) -> f64 {
            0.5 * x
        }
        let whole = simpson(0.0, hi, a, b);
        half(2.0 * adaptive(0.0, hi, a, b, whole, TOL, DEPTH))
    }

    /// The integrals of d/da and d/db of the integrand by a fine fixed Simpson rule.
    fn fine(a: f64, b: f64, hi: f64) -> [f64; 3] {
        let n = 4000;
        let h = hi / n as f64;
        let mut s = [0.0; 3];
        for k in 0..=n {
            let t = k as f64 * h;
            let w = if k == 0 || k == n {
                1.0
            } else if k % 2 == 1 {
                4.0
            } else {
                2.0
            };
            let e = (-b * t * t).exp();
            s[0] += w * (a * t).sin() * e;
            s[1] += w * t * (a * t).cos() * e;
            s[2] += w * -t * t * (a * t).sin() * e;
        }
        s.map(|v| v * h / 3.0)
    }

    #[test]
    fn integral_against_a_fine_rule_and_audit() {
        let hi = 2.0;
        let pts: Vec<Vec<f64>> = points(4400, 2, 10, 0.0, 1.0)
            .into_iter()
            .map(|p| vec![0.5 + 2.0 * p[0], 0.2 + p[1]])
            .collect();
        for p in &pts {
            let (v, (ga, gb)) = integral_grad(p[0], p[1], hi);
            let f = fine(p[0], p[1], hi);
            assert_close(v, f[0], 1e-9, "integral");
            assert_close(ga, f[1], 1e-8, "d/da");
            assert_close(gb, f[2], 1e-8, "d/db");
        }
        audit(
            &Items {
                what: "quadrature::integral",
                primal: &|x| integral(x[0], x[1], hi),
                grad: &|x| {
                    let (v, g) = integral_grad(x[0], x[1], hi);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = integral_vjp(x[0], x[1], hi, d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| integral_jvp(x[0], x[1], hi, (t[0], t[1])),
                grad_into: &|x| {
                    let (mut a, mut b) = (f64::NAN, f64::NAN);
                    let v = integral_grad_into(x[0], x[1], hi, (&mut a, &mut b));
                    (v, vec![a, b])
                },
                hvp: Some(&|x, w| {
                    let (f, g, h) = integral_hvp(x[0], x[1], hi, (w[0], w[1]));
                    (f, vec![g.0, g.1], vec![h.0, h.1])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = integral_hessian(x[0], x[1], hi);
                    (f, vec![g.0, g.1], h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (23) Robust location and scale: residuals copied into a local `Vec` and sorted (`sort_by` with
// `partial_cmp`) for a trimmed mean, Kahan-compensated sums whose compensation is overwritten each step,
// and a `fold` over pairs; the gradients by hand (the kept elements' weights), and a smooth
// Geman-McClure loss at `order = 2`.

mod robust {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn kahan_sum(xs: &[f64]) -> f64 {
        let mut sum = 0.0;
        let mut c = 0.0;
        for &x in xs {
            let y = x - c;
            let t = sum + y;
            c = (t - sum) - y;
            sum = t;
        }
        sum
    }

    #[differentiable]
    pub fn trimmed_mean(xs: &[f64], trim: usize) -> f64 {
        let mut v = xs.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let kept = &v[trim..v.len() - trim];
        kahan_sum(kept) / kept.len() as f64
    }

    #[differentiable(wrt(center))]
    pub fn spread(center: f64, xs: &[f64]) -> f64 {
        let n = xs.len() as f64;
        let second = xs
            .iter()
            .fold(0.0, |acc, &x| acc + (x - center) * (x - center));
        (second / n).sqrt()
    }

    #[differentiable(wrt(theta), order = 2)]
    pub fn geman_mcclure(theta: [f64; 2], ts: &[f64], ys: &[f64], scale: f64) -> f64 {
        let mut total = 0.0;
        for (&t, &y) in ts.iter().zip(ys) {
            let r = (y - theta[0] - theta[1] * t) / scale;
            let r2 = r * r;
            total += r2 / (1.0 + r2);
        }
        total
    }

    #[test]
    fn trimmed_mean_by_hand() {
        for p in points(4410, 9, 12, -2.0, 2.0) {
            let (v, g) = trimmed_mean_grad(&p, 2);
            let mut sorted = p.clone();
            sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let expected: f64 = sorted[2..7].iter().sum::<f64>() / 5.0;
            assert_close(v, expected, 1e-12, "trimmed mean");
            for (i, &x) in p.iter().enumerate() {
                let kept = x >= sorted[2] && x <= sorted[6];
                assert_eq!(g[i], if kept { 0.2 } else { 0.0 }, "weight of {i}");
            }
            assert_fd_gradient(|x| trimmed_mean(x, 2), &p, &g, "trimmed_mean");
            let (s, gk) = kahan_sum_grad(&p);
            assert_close(s, p.iter().sum::<f64>(), 1e-12, "kahan");
            assert!(gk.iter().all(|&d| d == 1.0), "kahan gradient {gk:?}");
            let center = v;
            let (sd, gs) = spread_grad(center, &p);
            let mean = p.iter().sum::<f64>() / 9.0;
            assert_close(gs, (center - mean) / sd, 1e-12, "d spread / d center");
        }
    }

    #[test]
    fn geman_mcclure_audit() {
        let ts: Vec<f64> = (0..10).map(|k| k as f64 * 0.3).collect();
        let ys: Vec<f64> = ts
            .iter()
            .enumerate()
            .map(|(k, t)| 0.5 + 1.2 * t + if k == 3 { 4.0 } else { 0.05 * (k as f64).cos() })
            .collect();
        let scale = 0.5;
        let pts = points(4411, 2, 10, -1.0, 2.0);
        let by_hand = |x: &[f64]| {
            let mut g = vec![0.0; 2];
            for (&t, &y) in ts.iter().zip(&ys) {
                let r = (y - x[0] - x[1] * t) / scale;
                let d = 2.0 * r / (1.0 + r * r).powi(2) / scale;
                g[0] -= d;
                g[1] -= d * t;
            }
            g
        };
        audit(
            &Items {
                what: "robust::geman_mcclure",
                primal: &|x| geman_mcclure(arr(x), &ts, &ys, scale),
                grad: &|x| {
                    let (f, g) = geman_mcclure_grad(arr(x), &ts, &ys, scale);
                    (f, g.to_vec())
                },
                vjp: &|x, d| {
                    let (f, g) = geman_mcclure_vjp(arr(x), &ts, &ys, scale, d);
                    (f, g.to_vec())
                },
                jvp: &|x, t| geman_mcclure_jvp(arr(x), &ts, &ys, scale, arr(t)),
                grad_into: &|x| {
                    let mut g = [f64::NAN; 2];
                    let f = geman_mcclure_grad_into(arr(x), &ts, &ys, scale, &mut g);
                    (f, g.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = geman_mcclure_hvp(arr(x), &ts, &ys, scale, arr(v));
                    (f, g.to_vec(), h.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = geman_mcclure_hessian(arr(x), &ts, &ys, scale);
                    (f, g.to_vec(), h)
                }),
                analytic: Some(&by_hand),
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (24) An implicit function through `#[custom_gradient]`: the root of `x³ + p x - q = 0` by Newton's
// method inside, its derivative by the implicit function theorem in the closure (the root captured);
// called from a differentiable loss over several equations, at `order = 2` (the closure differentiated
// through the captured root, which Newton's iterations make differentiable).

mod implicit {
    use super::*;
    use autodiff::{custom_gradient, differentiable};

    #[custom_gradient]
    pub fn cubic_root(p: f64, q: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let mut x = q.cbrt();
        for _ in 0..40 {
            x -= (x * x * x + p * x - q) / (3.0 * x * x + p);
        }
        let slope = 3.0 * x * x + p;
        (x, move |dy| (-dy * x / slope, dy / slope))
    }

    #[differentiable(wrt(p), order = 2)]
    pub fn fit(p: f64, qs: &[f64], targets: &[f64]) -> f64 {
        let mut total = 0.0;
        for (&q, &t) in qs.iter().zip(targets) {
            let x = cubic_root(p, q);
            total += (x - t).powi(2);
        }
        total
    }

    #[test]
    fn root_and_its_derivatives() {
        for pt in points(4420, 2, 12, 0.0, 1.0) {
            let (p, q) = (0.5 + 2.0 * pt[0], -2.0 + 4.0 * pt[1]);
            let (x, (gp, gq)) = cubic_root_grad(p, q);
            assert_close(x * x * x + p * x, q, 1e-12, "root");
            let slope = 3.0 * x * x + p;
            assert_close(gp, -x / slope, 1e-12, "dx/dp");
            assert_close(gq, 1.0 / slope, 1e-12, "dx/dq");
            assert_fd_gradient(|v| cubic_root(v[0], v[1]), &[p, q], &[gp, gq], "cubic_root");
        }
        let qs = [0.3, -1.2, 2.0, 0.7];
        let targets = [0.2, -0.5, 0.9, 0.4];
        let pts: Vec<Vec<f64>> = points(4421, 1, 10, 0.5, 2.5);
        audit(
            &Items {
                what: "implicit::fit",
                primal: &|x| fit(x[0], &qs, &targets),
                grad: &|x| {
                    let (f, g) = fit_grad(x[0], &qs, &targets);
                    (f, vec![g])
                },
                vjp: &|x, d| {
                    let (f, g) = fit_vjp(x[0], &qs, &targets, d);
                    (f, vec![g])
                },
                jvp: &|x, t| fit_jvp(x[0], &qs, &targets, t[0]),
                grad_into: &|x| {
                    let mut g = f64::NAN;
                    let f = fit_grad_into(x[0], &qs, &targets, &mut g);
                    (f, vec![g])
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = fit_hvp(x[0], &qs, &targets, v[0]);
                    (f, vec![g], vec![h])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = fit_hessian(x[0], &qs, &targets);
                    (f, vec![g], h)
                }),
                analytic: None,
            },
            &pts,
        );
        // f_derivatives of the one scalar input against the Hessian.
        for p in &pts {
            let d = fit_derivatives(p[0], &qs, &targets);
            let (_, g, h) = fit_hessian(p[0], &qs, &targets);
            assert_all_close(&d[1..], &[g, h[0][0]], 1e-12, "fit_derivatives");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (25) A bouncing ball: Euler steps in a `while` with a compound condition (time left and bounces
// left), the position and velocity overwritten by a bounce (`if y < 0.0`), the restitution clamped by
// `clamp`, the final velocity into an output parameter `&mut f64`, and a `loop` with `break value`
// finding the first step past a height.

mod bouncing {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(v0, e))]
    pub fn flight(y0: f64, v0: f64, e: f64, dt: f64, steps: usize, v_end: &mut f64) -> f64 {
        let e = e.clamp(0.0, 0.95);
        let (mut y, mut v) = (y0, v0);
        let mut k = 0;
        let mut bounces = 0;
        while k < steps && bounces < 4 {
            v -= 9.81 * dt;
            y += dt * v;
            if y < 0.0 {
                y *= -e;
                v *= -e;
                bounces += 1;
            }
            k += 1;
        }
        *v_end = v;
        y
    }

    /// The height of the first step whose height passes `level` on the way down after the apex, or
    /// the last height.
    #[differentiable(wrt(v0), order = 2)]
    pub fn first_below(y0: f64, v0: f64, dt: f64, level: f64) -> f64 {
        let (mut y, mut v) = (y0, v0);
        let mut k = 0;
        loop {
            v -= 9.81 * dt;
            y += dt * v;
            k += 1;
            if (v < 0.0 && y < level) || k > 1000 {
                break y * y + v;
            }
        }
    }

    fn plain(y0: f64, v0: f64, e: f64, dt: f64, steps: usize) -> (f64, f64) {
        let e = e.clamp(0.0, 0.95);
        let (mut y, mut v, mut bounces) = (y0, v0, 0);
        for _ in 0..steps {
            if bounces >= 4 {
                break;
            }
            v -= 9.81 * dt;
            y += dt * v;
            if y < 0.0 {
                y *= -e;
                v *= -e;
                bounces += 1;
            }
        }
        (y, v)
    }

    #[test]
    fn flight_against_jvp_and_differences() {
        let (y0, dt) = (1.0, 0.01);
        for (k, p) in points(4430, 2, 12, 0.0, 1.0).iter().enumerate() {
            let (v0, e) = (-1.0 + 3.0 * p[0], 0.3 + 0.6 * p[1]);
            let steps = 60 + 25 * k;
            let mut v_end = f64::NAN;
            let y = flight(y0, v0, e, dt, steps, &mut v_end);
            assert_eq!((y, v_end), plain(y0, v0, e, dt, steps));
            // The height's gradient, and the velocity's through vjp with a cotangent on it alone.
            let mut out = f64::NAN;
            let (v, (gv0, ge)) = flight_grad(y0, v0, e, dt, steps, &mut out);
            assert_eq!((v, out), (y, v_end));
            assert_fd_gradient(
                |x| flight(y0, x[0], x[1], dt, steps, &mut 0.0),
                &[v0, e],
                &[gv0, ge],
                "flight height",
            );
            let mut out2 = 0.0;
            let (_, (cv0, ce)) = flight_vjp(y0, v0, e, dt, steps, &mut out2, 0.0, 1.0);
            assert_fd_gradient(
                |x| {
                    let mut o = 0.0;
                    flight(y0, x[0], x[1], dt, steps, &mut o);
                    o
                },
                &[v0, e],
                &[cv0, ce],
                "flight velocity",
            );
            let t = (0.4, -0.9);
            let mut out3 = 0.0;
            let mut dv = f64::NAN;
            let (_, dy) = flight_jvp(y0, v0, e, dt, steps, &mut out3, t, &mut dv);
            assert_close(dy, gv0 * t.0 + ge * t.1, 1e-10, "jvp of the height");
            assert_close(dv, cv0 * t.0 + ce * t.1, 1e-10, "jvp of the velocity");
        }
    }

    #[test]
    fn first_below_audit() {
        let (y0, dt, level) = (0.5, 0.01, 0.3);
        let pts = points(4431, 1, 10, 0.2, 2.0);
        audit(
            &Items {
                what: "bouncing::first_below",
                primal: &|x| first_below(y0, x[0], dt, level),
                grad: &|x| {
                    let (f, g) = first_below_grad(y0, x[0], dt, level);
                    (f, vec![g])
                },
                vjp: &|x, d| {
                    let (f, g) = first_below_vjp(y0, x[0], dt, level, d);
                    (f, vec![g])
                },
                jvp: &|x, t| first_below_jvp(y0, x[0], dt, level, t[0]),
                grad_into: &|x| {
                    let mut g = f64::NAN;
                    let f = first_below_grad_into(y0, x[0], dt, level, &mut g);
                    (f, vec![g])
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = first_below_hvp(y0, x[0], dt, level, v[0]);
                    (f, vec![g], vec![h])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = first_below_hessian(y0, x[0], dt, level);
                    (f, vec![g], h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (26) A spring network relaxed toward equilibrium: forces accumulated into an output parameter that
// the body reads before writing (`f[i] += ..`, so its incoming value is an input), springs as a slice of
// index pairs, rest lengths by `hypot`; the energy at `order = 2` whose gradient is minus the forces.

mod springs {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(pos, f))]
    pub fn add_forces(
        pos: &[f64],
        springs: &[(usize, usize)],
        rest: &[f64],
        k: f64,
        f: &mut [f64],
    ) {
        for (s, &(i, j)) in springs.iter().enumerate() {
            let (dx, dy) = (pos[2 * j] - pos[2 * i], pos[2 * j + 1] - pos[2 * i + 1]);
            let len = dx.hypot(dy);
            let mag = k * (len - rest[s]) / len;
            f[2 * i] += mag * dx;
            f[2 * i + 1] += mag * dy;
            f[2 * j] -= mag * dx;
            f[2 * j + 1] -= mag * dy;
        }
    }

    #[differentiable(wrt(pos), order = 2)]
    pub fn energy(pos: &[f64], springs: &[(usize, usize)], rest: &[f64], k: f64) -> f64 {
        let mut total = 0.0;
        for (s, &(i, j)) in springs.iter().enumerate() {
            let len = (pos[2 * j] - pos[2 * i]).hypot(pos[2 * j + 1] - pos[2 * i + 1]);
            total += 0.5 * k * (len - rest[s]).powi(2);
        }
        total
    }

    const SPRINGS: [(usize, usize); 5] = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 1)];
    const REST: [f64; 5] = [1.0, 1.2, 0.9, 1.1, 1.0];

    #[test]
    fn forces_are_minus_the_energy_gradient() {
        let k = 3.0;
        for p in points(4440, 8, 10, -1.5, 1.5) {
            let gravity: Vec<f64> = (0..8)
                .map(|i| if i % 2 == 1 { -0.5 } else { 0.0 })
                .collect();
            let mut f = gravity.clone();
            add_forces(&p, &SPRINGS, &REST, k, &mut f);
            let (_, g) = energy_grad(&p, &SPRINGS, &REST, k);
            for i in 0..8 {
                assert_close(f[i] - gravity[i], -g[i], 1e-12, "force");
            }
            // The Jacobian over (pos, incoming f): minus the Hessian, then the identity.
            let mut buf = gravity.clone();
            let j = add_forces_jacobian(&p, &SPRINGS, &REST, k, &mut buf);
            assert_eq!((j.len(), j[0].len()), (8, 16));
            let (_, _, h) = energy_hessian(&p, &SPRINGS, &REST, k);
            for r in 0..8 {
                let minus_h: Vec<f64> = h[r].iter().map(|v| -v).collect();
                assert_all_close(&j[r][..8], &minus_h, 1e-10, "-H");
                for c in 0..8 {
                    assert_eq!(j[r][8 + c], if r == c { 1.0 } else { 0.0 });
                }
            }
            let c = wave(8, 0.3);
            let t = wave(16, 1.1);
            let mut o1 = gravity.clone();
            let (cp, cf) = add_forces_vjp(&p, &SPRINGS, &REST, k, &mut o1, &c);
            let mut o2 = gravity.clone();
            let mut jt = vec![f64::NAN; 8];
            add_forces_jvp(
                &p,
                &SPRINGS,
                &REST,
                k,
                &mut o2,
                (t[..8].to_vec(), t[8..].to_vec()),
                &mut jt,
            );
            assert_eq!(o1, f);
            assert_eq!(o2, f);
            check_dual("springs::add_forces", &c, &jt, &[cp, cf].concat(), &t);
        }
    }

    #[test]
    fn energy_audit() {
        let k = 3.0;
        let pts = points(4441, 8, 10, -1.5, 1.5);
        audit(
            &Items {
                what: "springs::energy",
                primal: &|x| energy(x, &SPRINGS, &REST, k),
                grad: &|x| energy_grad(x, &SPRINGS, &REST, k),
                vjp: &|x, d| energy_vjp(x, &SPRINGS, &REST, k, d),
                jvp: &|x, t| energy_jvp(x, &SPRINGS, &REST, k, t.to_vec()),
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; 8];
                    let f = energy_grad_into(x, &SPRINGS, &REST, k, &mut g);
                    (f, g)
                },
                hvp: Some(&|x, v| energy_hvp(x, &SPRINGS, &REST, k, v.to_vec())),
                hessian: Some(&|x| energy_hessian(x, &SPRINGS, &REST, k)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (27) A pinhole camera: associated functions of a plain struct (`Self::rotate`, `Self::project`) with
// the rotation by Rodrigues' formula through `sin_cos`, a reprojection error at `order = 2` over the
// pose, and the projection's `_jacobian`.

mod camera {
    use super::*;
    use autodiff::differentiable;

    pub struct Camera;

    impl Camera {
        #[differentiable]
        pub fn rotate(w: [f64; 3], p: [f64; 3]) -> [f64; 3] {
            let theta = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2] + 1e-12).sqrt();
            let (s, c) = theta.sin_cos();
            let k = [w[0] / theta, w[1] / theta, w[2] / theta];
            let cross = [
                k[1] * p[2] - k[2] * p[1],
                k[2] * p[0] - k[0] * p[2],
                k[0] * p[1] - k[1] * p[0],
            ];
            let kp = k[0] * p[0] + k[1] * p[1] + k[2] * p[2];
            let mut out = [0.0; 3];
            for i in 0..3 {
                out[i] = p[i] * c + cross[i] * s + k[i] * kp * (1.0 - c);
            }
            out
        }

        #[differentiable]
        pub fn project(pose: [f64; 6], p: [f64; 3], focal: f64) -> [f64; 2] {
            let r = Self::rotate([pose[0], pose[1], pose[2]], p);
            let z = r[2] + pose[5];
            [focal * (r[0] + pose[3]) / z, focal * (r[1] + pose[4]) / z]
        }

        #[differentiable(wrt(pose), order = 2)]
        pub fn reprojection(
            pose: [f64; 6],
            points: &[[f64; 3]],
            seen: &[[f64; 2]],
            focal: f64,
        ) -> f64 {
            let mut total = 0.0;
            for (p, uv) in points.iter().zip(seen) {
                let q = Self::project(pose, *p, focal);
                total += (q[0] - uv[0]).powi(2) + (q[1] - uv[1]).powi(2);
            }
            total
        }
    }

    #[test]
    fn rotation_and_reprojection() {
        let cloud: Vec<[f64; 3]> = points(4450, 3, 6, -1.0, 1.0)
            .iter()
            .map(|p| arr(p))
            .collect();
        let truth = [0.1, -0.2, 0.15, 0.05, -0.1, 5.0];
        let seen: Vec<[f64; 2]> = cloud
            .iter()
            .map(|p| Camera::project(truth, *p, 2.0))
            .collect();
        assert!(Camera::reprojection(truth, &cloud, &seen, 2.0) < 1e-28);
        for p in points(4451, 9, 10, -0.5, 0.5) {
            let w: [f64; 3] = arr(&p);
            let v: [f64; 3] = arr(&p[3..]);
            let r = Camera::rotate(w, v);
            // A rotation keeps lengths.
            assert_close(dot(&r, &r), dot(&v, &v), 1e-12, "length");
            let j = Camera::rotate_jacobian(w, v);
            check_jacobian("camera::rotate", &p[..6], &j, |y| {
                Camera::rotate(arr(y), arr(&y[3..])).to_vec()
            });
            let pose: [f64; 6] = [p[0], p[1], p[2], p[3], p[4], 5.0 + p[5]];
            let j = Camera::project_jacobian(pose, v, 2.0);
            let flat = [pose.to_vec(), v.to_vec(), vec![2.0]].concat();
            check_jacobian("camera::project", &flat, &j, |y| {
                Camera::project(arr(y), arr(&y[6..]), y[9]).to_vec()
            });
        }
        let pts: Vec<Vec<f64>> = points(4452, 6, 10, -0.1, 0.1)
            .iter()
            .map(|d| truth.iter().zip(d).map(|(a, b)| a + b).collect())
            .collect();
        audit(
            &Items {
                what: "camera::reprojection",
                primal: &|x| Camera::reprojection(arr(x), &cloud, &seen, 2.0),
                grad: &|x| {
                    let (f, g) = Camera::reprojection_grad(arr(x), &cloud, &seen, 2.0);
                    (f, g.to_vec())
                },
                vjp: &|x, d| {
                    let (f, g) = Camera::reprojection_vjp(arr(x), &cloud, &seen, 2.0, d);
                    (f, g.to_vec())
                },
                jvp: &|x, t| Camera::reprojection_jvp(arr(x), &cloud, &seen, 2.0, arr(t)),
                grad_into: &|x| {
                    let mut g = [f64::NAN; 6];
                    let f = Camera::reprojection_grad_into(arr(x), &cloud, &seen, 2.0, &mut g);
                    (f, g.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = Camera::reprojection_hvp(arr(x), &cloud, &seen, 2.0, arr(v));
                    (f, g.to_vec(), h.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = Camera::reprojection_hessian(arr(x), &cloud, &seen, 2.0);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (28) Callees of `order = K` functions that use `sin_cos`, `fract`, a float's predicates and integer
// methods (`k.pow(2)`, `n.checked_sub(k).unwrap_or(0)`, `k.is_power_of_two()`): each had no generic
// copy (`shadow.rs`, `why_no_copy_with`, which knew none of these methods), so the `order = 2` caller was
// rustc's "has no generic copy" error though its first order worked (camera::Camera::rotate above, with
// `theta.sin_cos()`, was found so). A ring buffer of samples indexed by integer arithmetic.

// `n.checked_sub(k).unwrap_or(0)` is the form under test, not `saturating_sub`.
#[allow(clippy::manual_saturating_arithmetic)]
mod ring {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn tap(x: &[f64], k: usize) -> f64 {
        let n = x.len();
        let back = n.checked_sub(k + 1).unwrap_or(0);
        let hop = k.pow(2) % n;
        let w = if k.is_power_of_two() { 2.0 } else { 1.0 };
        w * x[back] * x[hop] + x[k.saturating_sub(1)]
    }

    #[differentiable]
    pub fn phase(x: f64) -> f64 {
        let (s, c) = (3.0 * x).sin_cos();
        let f = if x.is_finite() && !x.is_nan() && x.is_sign_positive() {
            x.fract()
        } else {
            0.0
        };
        s * c + f * f
    }

    #[differentiable(order = 2)]
    pub fn echo(x: &[f64]) -> f64 {
        let mut total = 0.0;
        for k in 0..x.len() {
            total += tap(x, k) * phase(x[k]);
        }
        total
    }

    #[test]
    fn echo_audit() {
        let pts = points(4460, 5, 10, 0.05, 1.95);
        for p in &pts {
            let mut expected = 0.0;
            for k in 0..5 {
                let back = 5usize.saturating_sub(k + 1);
                let w = if k.is_power_of_two() { 2.0 } else { 1.0 };
                let t = w * p[back] * p[k * k % 5] + p[k.saturating_sub(1)];
                let f = p[k] - p[k].floor();
                expected += t * ((3.0 * p[k]).sin() * (3.0 * p[k]).cos() + f * f);
            }
            assert_close(echo(p), expected, 1e-12, "echo");
        }
        audit(
            &Items {
                what: "ring::echo",
                primal: &|x| echo(x),
                grad: &|x| echo_grad(x),
                vjp: &|x, d| echo_vjp(x, d),
                jvp: &|x, t| echo_jvp(x, t.to_vec()),
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; 5];
                    let f = echo_grad_into(x, &mut g);
                    same_bits(&g, &echo_grad(x).1, "echo");
                    (f, g)
                },
                hvp: Some(&|x, v| echo_hvp(x, v.to_vec())),
                hessian: Some(&|x| echo_hessian(x)),
                analytic: None,
            },
            // Away from the jumps of `fract` at 1.
            &pts.iter()
                .filter(|p| p.iter().all(|v| (v - 1.0).abs() > 1e-3))
                .cloned()
                .collect::<Vec<_>>(),
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (29) A soft Needleman-Wunsch alignment score with two rolling rows swapped by `std::mem::swap` after
// each row (the previous row overwritten in the next pass), the gap penalty active; and a trajectory
// recorded by `push` into a `Vec::with_capacity`, then read back with `.iter().rev()` and `windows(2)`.

mod alignment {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn softmax3(a: f64, b: f64, c: f64, temp: f64) -> f64 {
        let m = a.max(b).max(c);
        m + temp * (((a - m) / temp).exp() + ((b - m) / temp).exp() + ((c - m) / temp).exp()).ln()
    }

    #[differentiable(wrt(x, gap), order = 2)]
    pub fn score(x: &[f64], y: &[f64], gap: f64, temp: f64) -> f64 {
        let m = y.len();
        let mut prev = vec![0.0; m + 1];
        let mut cur = vec![0.0; m + 1];
        for j in 1..=m {
            prev[j] = -gap * j as f64;
        }
        for i in 1..=x.len() {
            cur[0] = -gap * i as f64;
            for j in 1..=m {
                let similarity = -(x[i - 1] - y[j - 1]).powi(2);
                cur[j] = softmax3(
                    prev[j - 1] + similarity,
                    prev[j] - gap,
                    cur[j - 1] - gap,
                    temp,
                );
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        prev[m]
    }

    fn plain(x: &[f64], y: &[f64], gap: f64, temp: f64) -> f64 {
        let (n, m) = (x.len(), y.len());
        let mut t = vec![vec![0.0; m + 1]; n + 1];
        for j in 0..=m {
            t[0][j] = -gap * j as f64;
        }
        for i in 1..=n {
            t[i][0] = -gap * i as f64;
            for j in 1..=m {
                let c = [
                    t[i - 1][j - 1] - (x[i - 1] - y[j - 1]).powi(2),
                    t[i - 1][j] - gap,
                    t[i][j - 1] - gap,
                ];
                let hi = c.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                t[i][j] = hi + temp * c.iter().map(|v| ((v - hi) / temp).exp()).sum::<f64>().ln();
            }
        }
        t[n][m]
    }

    /// A damped oscillator's trajectory recorded step by step, then its arc length walked backwards.
    #[differentiable(wrt(omega, damping), order = 2)]
    pub fn arc_length(omega: f64, damping: f64, dt: f64, steps: usize) -> f64 {
        let mut path = Vec::with_capacity(steps + 1);
        let (mut x, mut v) = (1.0, 0.0);
        path.push(x);
        for _ in 0..steps {
            v += dt * (-omega * omega * x - damping * v);
            x += dt * v;
            path.push(x);
        }
        let mut reversed = Vec::with_capacity(path.len());
        for &p in path.iter().rev() {
            reversed.push(p);
        }
        reversed
            .windows(2)
            .map(|w| ((w[1] - w[0]).powi(2) + dt * dt).sqrt())
            .sum::<f64>()
    }

    const Y: [f64; 5] = [0.2, -0.4, 0.9, 0.3, -0.1];

    #[test]
    fn score_audit() {
        let temp = 0.3;
        let pts = points(4470, 5, 10, -1.0, 1.0);
        for p in &pts {
            let (x, gap) = (&p[..4], 0.5 + 0.3 * p[4]);
            assert_close(
                score(x, &Y, gap, temp),
                plain(x, &Y, gap, temp),
                1e-12,
                "score",
            );
        }
        audit(
            &Items {
                what: "alignment::score",
                primal: &|p| score(&p[..4], &Y, p[4], temp),
                grad: &|p| {
                    let (f, (gx, gg)) = score_grad(&p[..4], &Y, p[4], temp);
                    (f, [gx, vec![gg]].concat())
                },
                vjp: &|p, d| {
                    let (f, (gx, gg)) = score_vjp(&p[..4], &Y, p[4], temp, d);
                    (f, [gx, vec![gg]].concat())
                },
                jvp: &|p, t| score_jvp(&p[..4], &Y, p[4], temp, (t[..4].to_vec(), t[4])),
                grad_into: &|p| {
                    let mut gx = vec![f64::NAN; 4];
                    let mut gg = f64::NAN;
                    let f = score_grad_into(&p[..4], &Y, p[4], temp, (&mut gx, &mut gg));
                    (f, [gx, vec![gg]].concat())
                },
                hvp: Some(&|p, v| {
                    let (f, (gx, gg), (hx, hg)) =
                        score_hvp(&p[..4], &Y, p[4], temp, (v[..4].to_vec(), v[4]));
                    (f, [gx, vec![gg]].concat(), [hx, vec![hg]].concat())
                }),
                hessian: Some(&|p| {
                    let (f, (gx, gg), h) = score_hessian(&p[..4], &Y, p[4], temp);
                    (f, [gx, vec![gg]].concat(), h)
                }),
                analytic: None,
            },
            &pts.iter()
                .map(|p| [p[..4].to_vec(), vec![0.5 + 0.3 * p[4]]].concat())
                .collect::<Vec<_>>(),
        );
    }

    #[test]
    fn arc_length_audit() {
        let (dt, steps) = (0.05, 80);
        let pts: Vec<Vec<f64>> = points(4471, 2, 10, 0.0, 1.0)
            .into_iter()
            .map(|p| vec![1.0 + 2.0 * p[0], 0.1 + 0.5 * p[1]])
            .collect();
        for p in &pts {
            let (mut x, mut v) = (1.0f64, 0.0f64);
            let mut len = 0.0;
            for _ in 0..steps {
                v += dt * (-p[0] * p[0] * x - p[1] * v);
                let nx = x + dt * v;
                len += ((nx - x).powi(2) + dt * dt).sqrt();
                x = nx;
            }
            assert_close(arc_length(p[0], p[1], dt, steps), len, 1e-12, "arc length");
        }
        audit(
            &Items {
                what: "alignment::arc_length",
                primal: &|x| arc_length(x[0], x[1], dt, steps),
                grad: &|x| {
                    let (f, g) = arc_length_grad(x[0], x[1], dt, steps);
                    (f, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (f, g) = arc_length_vjp(x[0], x[1], dt, steps, d);
                    (f, vec![g.0, g.1])
                },
                jvp: &|x, t| arc_length_jvp(x[0], x[1], dt, steps, (t[0], t[1])),
                grad_into: &|x| {
                    let (mut a, mut b) = (f64::NAN, f64::NAN);
                    let f = arc_length_grad_into(x[0], x[1], dt, steps, (&mut a, &mut b));
                    (f, vec![a, b])
                },
                hvp: Some(&|x, v| {
                    let (f, g, h) = arc_length_hvp(x[0], x[1], dt, steps, (v[0], v[1]));
                    (f, vec![g.0, g.1], vec![h.0, h.1])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = arc_length_hessian(x[0], x[1], dt, steps);
                    (f, vec![g.0, g.1], h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (30) A mixture of experts with masked gates: a disabled expert's gate logit is `-inf`, so its
// `sigmoid` is exactly 0. `gate(logit, w)` is called with the logit a constant, whose tangent in
// `gate_jvp` is the value 0, and `(-logit).exp()` is `+inf`: its tangent was `0 · inf = NaN`
// (`forward.rs`, the `exp` rule's slope, its value), so `mixture_jvp` was NaN while `mixture_grad` and
// `mixture_hessian` were right. A zero tangent now gives zero there, as `Dual` and JAX do.

mod gates {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    #[differentiable]
    pub fn gate(logit: f64, w: f64) -> f64 {
        w * sigmoid(logit)
    }

    #[differentiable(wrt(w), order = 2)]
    pub fn mixture(w: &[f64], logits: &[f64], x: f64) -> f64 {
        let mut total = 0.0;
        for k in 0..w.len() {
            total += gate(logits[k], w[k] * (x + k as f64).tanh());
        }
        total * total
    }

    const LOGITS: [f64; 4] = [f64::NEG_INFINITY, 0.5, f64::NEG_INFINITY, 1.2];

    #[test]
    fn masked_gates_have_finite_tangents() {
        // The minimal case: the gate of a disabled expert along the weight alone.
        assert_eq!(gate_jvp(f64::NEG_INFINITY, 0.5, (0.0, 1.0)), (0.0, 0.0));
        // Reverse mode's cotangent of the logit itself is `inf · 0 = NaN`, as `jax.grad` gives
        // (docs/conventions.md, values that overflow); the weight's is 0.
        let (_, (_, dw)) = gate_vjp(f64::NEG_INFINITY, 0.5, 1.0);
        assert_eq!(dw, 0.0);
        let x = 0.3;
        let pts = points(4480, 4, 10, -1.0, 1.0);
        for p in &pts {
            let s = |l: f64| 1.0 / (1.0 + (-l).exp());
            let total: f64 = (0..4)
                .map(|k| p[k] * (x + k as f64).tanh() * s(LOGITS[k]))
                .sum();
            assert_close(mixture(p, &LOGITS, x), total * total, 1e-12, "mixture");
            let (_, g) = mixture_grad(p, &LOGITS, x);
            assert_eq!((g[0], g[2]), (0.0, 0.0), "disabled experts");
        }
        audit(
            &Items {
                what: "gates::mixture",
                primal: &|w| mixture(w, &LOGITS, x),
                grad: &|w| mixture_grad(w, &LOGITS, x),
                vjp: &|w, d| mixture_vjp(w, &LOGITS, x, d),
                jvp: &|w, t| mixture_jvp(w, &LOGITS, x, t.to_vec()),
                grad_into: &|w| {
                    let mut g = vec![f64::NAN; 4];
                    let f = mixture_grad_into(w, &LOGITS, x, &mut g);
                    (f, g)
                },
                hvp: Some(&|w, v| mixture_hvp(w, &LOGITS, x, v.to_vec())),
                hessian: Some(&|w| mixture_hessian(w, &LOGITS, x)),
                analytic: None,
            },
            &pts,
        );
    }
}
