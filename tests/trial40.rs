//! An outside test suite written against API.md alone (session 40), by a user writing small real
//! projects rather than one-liners: each module is one project of a few functions that call one
//! another (free functions, `Self::` helpers, methods, across modules by `super::`/`crate::` paths),
//! written in the idioms numeric Rust is written in (`std::f64::consts`, `mul_add`, `hypot`, `atan2`,
//! `clamp`, `max(0.0)`, iterator chains with `zip`/`map`/`sum`/`fold`/`enumerate`, `match` on enums
//! and integers, `while` with compound conditions, shadowing, tuple returns from helpers,
//! `Differentiable` structs with `#[no_grad]` fields, `wrt(..)`).
//!
//! For each project: the value against the plain computation, `_grad` against central differences on
//! seeded points (and by hand where a formula is short), `_grad_into` bit for bit equal to `_grad`,
//! `_vjp` against `_jvp` (`c · (J t) = (c J) · t`) for vector results, `_jacobian` against differences,
//! and at `order = 2` the Hessian against central differences of `_grad` and `_hvp` against the
//! Hessian times `v`.

// `&Vec<f64>` parameters and long argument lists are what the projects are written with.
#![allow(
    clippy::ptr_arg,
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::too_many_arguments
)]

mod common;

use common::{
    assert_all_close, assert_close, check_dual, check_jacobian, fd_jacobian, points, Inputs,
};

/// The gradient of `f` at `x` by fourth-order central differences.
fn fd_grad(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    fd_jacobian(|p| vec![f(p)], x).remove(0)
}

/// The derivative of a function of one variable by fourth-order central differences.
fn fd1(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-4 * x.abs().max(1.0);
    (8.0 * (f(x + h) - f(x - h)) - (f(x + 2.0 * h) - f(x - 2.0 * h))) / (12.0 * h)
}

/// `m v`.
fn times(m: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    m.iter()
        .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// Checks a function of flat inputs at `x`: the value of `grad` is `f`'s, the gradient matches central
/// differences of `f`.
#[track_caller]
fn check1(
    what: &str,
    x: &[f64],
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
) -> Vec<f64> {
    let what = format!("{what} at {x:?}");
    let (v, g) = grad(x);
    assert_close(v, f(x), 1e-12, &format!("{what}: value"));
    assert_all_close(
        &g,
        &fd_grad(&f, x),
        1e-6,
        &format!("{what}: gradient vs differences"),
    );
    g
}

/// [`check1`], then the `_hessian`'s value and gradient against `grad`'s and its Hessian against
/// central differences of the gradient (and symmetric). Returns the gradient and the Hessian.
#[track_caller]
fn check2(
    what: &str,
    x: &[f64],
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    hess: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let g = check1(what, x, f, &grad);
    let what = format!("{what} at {x:?}");
    let (hv, hg, h) = hess(x);
    assert_close(hv, grad(x).0, 1e-12, &format!("{what}: value of _hessian"));
    assert_all_close(&hg, &g, 1e-10, &format!("{what}: gradient of _hessian"));
    let by_differences = fd_jacobian(|p| grad(p).1, x);
    assert_eq!(h.len(), x.len(), "{what}: Hessian rows");
    for i in 0..x.len() {
        assert_all_close(
            &h[i],
            &by_differences[i],
            1e-6,
            &format!("{what}: Hessian row {i} vs differences of _grad"),
        );
        for j in 0..x.len() {
            assert_close(h[i][j], h[j][i], 1e-9, &format!("{what}: symmetry"));
        }
    }
    (g, h)
}

/// `_hvp` (its value, gradient and product) against `_hessian`'s.
#[track_caller]
fn check_hvp(what: &str, hessian: &[Vec<f64>], g: &[f64], v: &[f64], hvp: (Vec<f64>, Vec<f64>)) {
    assert_all_close(&hvp.0, g, 1e-10, &format!("{what}: gradient of _hvp"));
    assert_all_close(&hvp.1, &times(hessian, v), 1e-9, &format!("{what}: _hvp"));
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

// ---------------------------------------------------------------------------------------------------
// (1) A scalar Kalman filter (local-level model): the log-likelihood of a series, by a step helper
// that returns a tuple, at `order = 2` over the noise variances and the initial mean.

mod kalman {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    /// `log N(resid; 0, s)`.
    #[differentiable]
    pub fn gauss_logpdf(resid: f64, s: f64) -> f64 {
        -0.5 * ((2.0 * PI * s).ln() + resid * resid / s)
    }

    /// One predict-update step: the new mean and variance and the log-likelihood of `y`.
    #[differentiable]
    pub fn step(m: f64, p: f64, y: f64, q: f64, r: f64) -> (f64, f64, f64) {
        let p = p + q;
        let s = p + r;
        let resid = y - m;
        let k = p / s;
        let m = k.mul_add(resid, m);
        let p = (1.0 - k) * p;
        (m, p, gauss_logpdf(resid, s))
    }

    #[differentiable(wrt(q, r, m0), order = 2)]
    pub fn loglik(ys: &[f64], q: f64, r: f64, m0: f64, p0: f64) -> f64 {
        let mut m = m0;
        let mut p = p0;
        let mut ll = 0.0;
        for &y in ys {
            let (m1, p1, l) = step(m, p, y, q, r);
            m = m1;
            p = p1;
            ll += l;
        }
        ll
    }

    /// The same in log-parameters, as an optimiser sees it.
    #[differentiable(wrt(theta), order = 2)]
    pub fn neg_loglik(ys: &[f64], theta: [f64; 2]) -> f64 {
        -loglik(ys, theta[0].exp(), theta[1].exp(), ys[0], 1.0)
    }

    /// The plain filter, as a statistician writes it.
    fn reference(ys: &[f64], q: f64, r: f64, m0: f64, p0: f64) -> f64 {
        let (mut m, mut p, mut ll) = (m0, p0, 0.0);
        for &y in ys {
            let pp = p + q;
            let s = pp + r;
            let e = y - m;
            ll += -0.5 * ((2.0 * PI * s).ln() + e * e / s);
            let k = pp / s;
            m += k * e;
            p = (1.0 - k) * pp;
        }
        ll
    }

    const YS: [f64; 7] = [0.3, 0.9, 0.4, 1.3, 1.1, 0.7, 1.6];

    #[test]
    fn loglik_value_gradient_hessian() {
        for p in points(4001, 3, 12, 0.05, 1.5) {
            let (q, r) = (p[0], p[1]);
            let m0 = p[2] - 0.5;
            let x = [q, r, m0];
            assert_close(
                loglik(&YS, q, r, m0, 0.8),
                reference(&YS, q, r, m0, 0.8),
                1e-12,
                "loglik vs reference",
            );
            let grad = |x: &[f64]| {
                let (v, (gq, gr, gm)) = loglik_grad(&YS, x[0], x[1], x[2], 0.8);
                (v, vec![gq, gr, gm])
            };
            let (g, h) = check2(
                "loglik",
                &x,
                |x| reference(&YS, x[0], x[1], x[2], 0.8),
                grad,
                |x| {
                    let (v, (gq, gr, gm), h) = loglik_hessian(&YS, x[0], x[1], x[2], 0.8);
                    (v, vec![gq, gr, gm], h)
                },
            );
            let v = [0.3, -1.1, 0.7];
            let (_, (gq, gr, gm), (hq, hr, hm)) =
                loglik_hvp(&YS, q, r, m0, 0.8, (v[0], v[1], v[2]));
            check_hvp("loglik", &h, &g, &v, (vec![gq, gr, gm], vec![hq, hr, hm]));
            let (mut bq, mut br, mut bm) = (f64::NAN, f64::NAN, f64::NAN);
            let value = loglik_grad_into(&YS, q, r, m0, 0.8, (&mut bq, &mut br, &mut bm));
            assert_eq!(value.to_bits(), grad(&x).0.to_bits());
            assert_eq!(bits(&[bq, br, bm]), bits(&g), "loglik_grad_into");
        }
    }

    #[test]
    fn neg_loglik_in_log_parameters() {
        for p in points(4002, 2, 10, -2.0, 0.5) {
            let (g, h) = check2(
                "neg_loglik",
                &p,
                |t| -reference(&YS, t[0].exp(), t[1].exp(), YS[0], 1.0),
                |t| {
                    let (v, g) = neg_loglik_grad(&YS, [t[0], t[1]]);
                    (v, g.to_vec())
                },
                |t| {
                    let (v, g, h) = neg_loglik_hessian(&YS, [t[0], t[1]]);
                    (v, g.to_vec(), h)
                },
            );
            assert_eq!(
                neg_loglik(&YS, [p[0], p[1]]),
                -loglik(&YS, p[0].exp(), p[1].exp(), YS[0], 1.0)
            );
            let (_, hg, hv) = neg_loglik_hvp(&YS, [p[0], p[1]], [1.0, -0.5]);
            check_hvp(
                "neg_loglik",
                &h,
                &g,
                &[1.0, -0.5],
                (hg.to_vec(), hv.to_vec()),
            );
            let mut buf = [f64::NAN; 2];
            neg_loglik_grad_into(&YS, [p[0], p[1]], &mut buf);
            assert_eq!(bits(&buf), bits(&g));
        }
    }

    #[test]
    fn step_vjp_against_jvp() {
        for p in points(4003, 5, 10, 0.1, 1.4) {
            let c = [0.7, -1.3, 0.4];
            let t = [0.2, -0.5, 1.1, 0.9, -0.3];
            let (val, cj) = step_vjp(p[0], p[1], p[2], p[3], p[4], (c[0], c[1], c[2]));
            let (val2, jt) = step_jvp(p[0], p[1], p[2], p[3], p[4], (t[0], t[1], t[2], t[3], t[4]));
            assert_eq!(val, step(p[0], p[1], p[2], p[3], p[4]));
            assert_eq!(val, val2);
            let cj = [cj.0, cj.1, cj.2, cj.3, cj.4];
            check_dual("step", &c, &[jt.0, jt.1, jt.2], &cj, &t);
            // Each output's row against differences.
            let f = |x: &[f64]| {
                let (a, b, l) = step(x[0], x[1], x[2], x[3], x[4]);
                vec![a, b, l]
            };
            let j = fd_jacobian(f, &p);
            let expected: Vec<f64> = (0..5)
                .map(|k| (0..3).map(|i| c[i] * j[i][k]).sum())
                .collect();
            assert_all_close(&cj, &expected, 1e-6, "step_vjp vs differences");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) Black-Scholes: the price through `libm::erf` (a registered gradient), `d1`/`d2` from a tuple
// helper, and the greeks at `order = 2` (gamma, vanna, volga) and `order = 3` (speed) against their
// closed forms.

mod black_scholes {
    use super::*;
    use autodiff::{differentiable, gradient_of};
    use std::f64::consts::{FRAC_1_SQRT_2, PI};

    #[gradient_of(libm::erf)]
    fn erf_vjp(x: f64, dy: f64) -> f64 {
        dy * 2.0 / PI.sqrt() * (-x * x).exp()
    }

    #[differentiable]
    pub fn norm_cdf(x: f64) -> f64 {
        0.5 * (1.0 + libm::erf(x * FRAC_1_SQRT_2))
    }

    #[differentiable]
    pub fn d1_d2(s: f64, k: f64, t: f64, r: f64, sigma: f64) -> (f64, f64) {
        let vol = sigma * t.sqrt();
        let d1 = ((s / k).ln() + (r + 0.5 * sigma.powi(2)) * t) / vol;
        (d1, d1 - vol)
    }

    #[differentiable(wrt(s, sigma), order = 2)]
    pub fn call(s: f64, k: f64, t: f64, r: f64, sigma: f64) -> f64 {
        let (d1, d2) = d1_d2(s, k, t, r, sigma);
        s * norm_cdf(d1) - k * (-r * t).exp() * norm_cdf(d2)
    }

    /// By put-call parity, every input active.
    #[differentiable(order = 2)]
    pub fn put(s: f64, k: f64, t: f64, r: f64, sigma: f64) -> f64 {
        call(s, k, t, r, sigma) - s + k * (-r * t).exp()
    }

    #[differentiable(wrt(s), order = 3)]
    pub fn call_in_spot(s: f64, k: f64, t: f64, r: f64, sigma: f64) -> f64 {
        call(s, k, t, r, sigma)
    }

    fn pdf(x: f64) -> f64 {
        (-0.5 * x * x).exp() / (2.0 * PI).sqrt()
    }

    fn market() -> Vec<Vec<f64>> {
        points(4011, 5, 12, 0.0, 1.0)
            .into_iter()
            .map(|p| {
                vec![
                    80.0 + 40.0 * p[0],
                    90.0 + 20.0 * p[1],
                    0.2 + 1.5 * p[2],
                    0.01 + 0.05 * p[3],
                    0.1 + 0.4 * p[4],
                ]
            })
            .collect()
    }

    #[test]
    fn greeks_against_closed_forms() {
        for m in market() {
            let (s, k, t, r, sigma) = (m[0], m[1], m[2], m[3], m[4]);
            let (d1, d2) = d1_d2(s, k, t, r, sigma);
            let price = s * norm_cdf(d1) - k * (-r * t).exp() * norm_cdf(d2);
            let (v, (delta, vega), h) = call_hessian(s, k, t, r, sigma);
            let what = format!("call at {m:?}");
            assert_close(v, price, 1e-12, &what);
            assert_close(delta, norm_cdf(d1), 1e-10, &format!("{what}: delta"));
            assert_close(
                vega,
                s * pdf(d1) * t.sqrt(),
                1e-10,
                &format!("{what}: vega"),
            );
            let gamma = pdf(d1) / (s * sigma * t.sqrt());
            let vanna = -pdf(d1) * d2 / sigma;
            let volga = s * pdf(d1) * t.sqrt() * d1 * d2 / sigma;
            assert_close(h[0][0], gamma, 1e-9, &format!("{what}: gamma"));
            assert_close(h[0][1], vanna, 1e-9, &format!("{what}: vanna"));
            assert_close(h[1][0], vanna, 1e-9, &format!("{what}: vanna (symmetric)"));
            assert_close(h[1][1], volga, 1e-9, &format!("{what}: volga"));
            let (g, _) = check2(
                "call",
                &[s, sigma],
                |x| call(x[0], k, t, r, x[1]),
                |x| {
                    let (v, (a, b)) = call_grad(x[0], k, t, r, x[1]);
                    (v, vec![a, b])
                },
                |x| {
                    let (v, (a, b), h) = call_hessian(x[0], k, t, r, x[1]);
                    (v, vec![a, b], h)
                },
            );
            let (_, (ga, gb), (ha, hb)) = call_hvp(s, k, t, r, sigma, (0.5, -2.0));
            check_hvp("call", &h, &g, &[0.5, -2.0], (vec![ga, gb], vec![ha, hb]));
            let (mut ba, mut bb) = (0.0, 0.0);
            call_grad_into(s, k, t, r, sigma, (&mut ba, &mut bb));
            assert_eq!(bits(&[ba, bb]), bits(&g));
            // The third derivative in spot, speed = -gamma / s * (d1 / (sigma sqrt t) + 1).
            let d = call_in_spot_derivatives(s, k, t, r, sigma);
            assert_eq!(call_in_spot(s, k, t, r, sigma), call(s, k, t, r, sigma));
            assert_close(
                d[0],
                price,
                1e-12,
                &format!("{what}: value of _derivatives"),
            );
            assert_close(
                d[1],
                norm_cdf(d1),
                1e-10,
                &format!("{what}: delta of _derivatives"),
            );
            assert_close(d[2], gamma, 1e-9, &format!("{what}: gamma of _derivatives"));
            let speed = -gamma / s * (d1 / (sigma * t.sqrt()) + 1.0);
            assert_close(d[3], speed, 1e-9, &format!("{what}: speed"));
        }
    }

    #[test]
    fn put_all_inputs_at_order_2() {
        for m in market() {
            let (s, k, t, r, sigma) = (m[0], m[1], m[2], m[3], m[4]);
            let (d1, d2) = d1_d2(s, k, t, r, sigma);
            let (g, h) = check2(
                "put",
                &m,
                |x| put(x[0], x[1], x[2], x[3], x[4]),
                |x| {
                    let (v, g) = put_grad(x[0], x[1], x[2], x[3], x[4]);
                    (v, vec![g.0, g.1, g.2, g.3, g.4])
                },
                |x| {
                    let (v, g, h) = put_hessian(x[0], x[1], x[2], x[3], x[4]);
                    (v, vec![g.0, g.1, g.2, g.3, g.4], h)
                },
            );
            // Put delta, rho and theta by hand.
            let what = format!("put at {m:?}");
            assert_close(g[0], norm_cdf(d1) - 1.0, 1e-10, &format!("{what}: delta"));
            assert_close(
                g[3],
                -k * t * (-r * t).exp() * norm_cdf(-d2),
                1e-10,
                &format!("{what}: rho"),
            );
            let dt =
                s * pdf(d1) * sigma / (2.0 * t.sqrt()) - r * k * (-r * t).exp() * norm_cdf(-d2);
            assert_close(g[2], dt, 1e-10, &format!("{what}: -theta"));
            let v = [1.0, -0.3, 0.2, 0.5, -1.0];
            let (_, hg, hv) = put_hvp(s, k, t, r, sigma, (v[0], v[1], v[2], v[3], v[4]));
            check_hvp(
                "put",
                &h,
                &g,
                &v,
                (
                    vec![hg.0, hg.1, hg.2, hg.3, hg.4],
                    vec![hv.0, hv.1, hv.2, hv.3, hv.4],
                ),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) A 1-D heat equation, explicit Euler: a Laplacian written into an output parameter, the solver
// returning the final state (its `_jacobian`), and a loss over it at `order = 2`.

mod heat {
    use super::*;
    use autodiff::differentiable;

    /// The discrete Laplacian of the interior points; the two boundary values stay fixed.
    #[differentiable]
    pub fn laplacian(u: &[f64], out: &mut [f64]) {
        let n = u.len();
        out[0] = 0.0;
        out[n - 1] = 0.0;
        for i in 1..n - 1 {
            out[i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
        }
    }

    #[differentiable(wrt(u0, alpha))]
    pub fn final_state(u0: &[f64], alpha: f64, steps: usize) -> Vec<f64> {
        let n = u0.len();
        let mut u = u0.to_vec();
        let mut lap = vec![0.0; n];
        for _ in 0..steps {
            laplacian(&u, &mut lap);
            for i in 1..n - 1 {
                u[i] += alpha * lap[i];
            }
        }
        u
    }

    #[differentiable(wrt(u0, alpha), order = 2)]
    pub fn loss(u0: &[f64], alpha: f64, target: &[f64], steps: usize) -> f64 {
        let u = final_state(u0, alpha, steps);
        0.5 * u
            .iter()
            .zip(target)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
    }

    fn reference(u0: &[f64], alpha: f64, steps: usize) -> Vec<f64> {
        let mut u = u0.to_vec();
        for _ in 0..steps {
            let old = u.clone();
            for i in 1..u.len() - 1 {
                u[i] = old[i] + alpha * (old[i - 1] - 2.0 * old[i] + old[i + 1]);
            }
        }
        u
    }

    const TARGET: [f64; 6] = [0.0, 0.2, 0.5, 0.4, 0.1, 0.0];

    #[test]
    fn final_state_jacobian_and_duality() {
        for p in points(4021, 7, 10, 0.0, 1.0) {
            let (u0, alpha) = (&p[..6], 0.05 + 0.3 * p[6]);
            let mut x = u0.to_vec();
            x.push(alpha);
            let u = final_state(u0, alpha, 5);
            assert_all_close(&u, &reference(u0, alpha, 5), 1e-14, "final_state");
            let j = final_state_jacobian(u0, alpha, 5);
            assert_eq!((j.len(), j[0].len()), (6, 7));
            check_jacobian("final_state", &x, &j, |q| reference(&q[..6], q[6], 5));
            let c = [0.3, -1.0, 0.5, 2.0, -0.7, 1.2];
            let t: Vec<f64> = (0..7).map(|i| (i as f64 * 0.7).sin()).collect();
            let (v1, (cu, ca)) = final_state_vjp(u0, alpha, 5, c.to_vec());
            let (v2, jt) = final_state_jvp(u0, alpha, 5, (t[..6].to_vec(), t[6]));
            assert_eq!(bits(&v1), bits(&u));
            assert_eq!(bits(&v2), bits(&u));
            let mut cj = cu.clone();
            cj.push(ca);
            check_dual("final_state", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn loss_at_order_2() {
        for p in points(4022, 7, 10, 0.0, 1.0) {
            let mut x = p.clone();
            x[6] = 0.05 + 0.3 * p[6];
            let (g, h) = check2(
                "heat loss",
                &x,
                |q| {
                    let u = reference(&q[..6], q[6], 4);
                    0.5 * u
                        .iter()
                        .zip(TARGET)
                        .map(|(a, b)| (a - b).powi(2))
                        .sum::<f64>()
                },
                |q| {
                    let (v, (gu, ga)) = loss_grad(&q[..6], q[6], &TARGET, 4);
                    (v, [gu, vec![ga]].concat())
                },
                |q| {
                    let (v, (gu, ga), h) = loss_hessian(&q[..6], q[6], &TARGET, 4);
                    (v, [gu, vec![ga]].concat(), h)
                },
            );
            let v: Vec<f64> = (0..7).map(|i| 1.0 - 0.3 * i as f64).collect();
            let (_, (gu, ga), (hu, ha)) =
                loss_hvp(&x[..6], x[6], &TARGET, 4, (v[..6].to_vec(), v[6]));
            check_hvp(
                "heat loss",
                &h,
                &g,
                &v,
                ([gu, vec![ga]].concat(), [hu, vec![ha]].concat()),
            );
            let mut bu = vec![f64::NAN; 6];
            let mut ba = f64::NAN;
            let value = loss_grad_into(&x[..6], x[6], &TARGET, 4, (&mut bu, &mut ba));
            assert_eq!(value.to_bits(), loss(&x[..6], x[6], &TARGET, 4).to_bits());
            bu.push(ba);
            assert_eq!(bits(&bu), bits(&g), "loss_grad_into");
        }
    }

    #[test]
    fn laplacian_outputs() {
        let u = [0.1, 0.5, -0.2, 0.9, 0.3];
        let mut out = [f64::NAN; 5];
        let c = [0.4, 1.0, -2.0, 0.5, 3.0];
        let gu = laplacian_vjp(&u, &mut out, &c);
        assert_eq!(out[0], 0.0);
        assert_close(out[2], 0.5 + 0.4 + 0.9, 1e-15, "laplacian");
        // The transpose of the second-difference matrix applied to the interior cotangents.
        let mut expected = [0.0; 5];
        for i in 1..4 {
            expected[i - 1] += c[i];
            expected[i] -= 2.0 * c[i];
            expected[i + 1] += c[i];
        }
        assert_all_close(&gu, &expected, 1e-15, "laplacian_vjp");
        let j = laplacian_jacobian(&u, &mut out);
        assert_eq!(j.len(), 5);
        assert_eq!(j[2], vec![0.0, 1.0, -2.0, 1.0, 0.0]);
        assert_eq!(j[0], vec![0.0; 5]);
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) A mass-spring chain whose parameters are a `Differentiable` struct with `#[no_grad]` data: the
// energy as a method with `wrt(self, x)` at `order = 2`, an associated helper called by `Self::`, and a
// free function in another module calling the method through `super::`.

mod springs {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Chain {
        pub k: Vec<f64>,
        pub rest: Vec<f64>,
        pub gravity: f64,
        #[no_grad]
        pub masses: Vec<f64>,
        #[no_grad]
        pub anchored: bool,
    }

    impl Chain {
        #[differentiable]
        fn spring(k: f64, rest: f64, a: f64, b: f64) -> f64 {
            let d = (b - a).abs() - rest;
            0.5 * k * d * d
        }

        #[differentiable(wrt(self, x), order = 2)]
        pub fn energy(&self, x: &[f64]) -> f64 {
            let mut e = 0.0;
            for i in 0..x.len() - 1 {
                e += Self::spring(self.k[i], self.rest[i], x[i], x[i + 1]);
            }
            let potential: f64 = x
                .iter()
                .zip(&self.masses)
                .map(|(xi, m)| m * self.gravity * xi)
                .sum();
            if self.anchored {
                e += 50.0 * x[0] * x[0];
            }
            e + potential
        }
    }

    pub mod analysis {
        use super::Chain;
        use autodiff::differentiable;

        /// The energy with the chain stretched by `scale`, a quantity a user sweeps.
        #[differentiable(wrt(scale), order = 3)]
        pub fn stretched(c: &Chain, x: &[f64], scale: f64) -> f64 {
            let mut y = vec![0.0; x.len()];
            for (i, &xi) in x.iter().enumerate() {
                y[i] = xi * scale;
            }
            c.energy(&y)
        }
    }

    fn chain(p: &[f64], anchored: bool) -> Chain {
        Chain {
            k: p[0..3].to_vec(),
            rest: p[3..6].to_vec(),
            gravity: p[6],
            masses: vec![1.0, 2.0, 0.5, 1.5],
            anchored,
        }
    }

    fn by_hand(c: &Chain, x: &[f64]) -> f64 {
        let mut e = 0.0;
        for i in 0..3 {
            let d = (x[i + 1] - x[i]).abs() - c.rest[i];
            e += 0.5 * c.k[i] * d * d;
        }
        for i in 0..4 {
            e += c.masses[i] * c.gravity * x[i];
        }
        if c.anchored {
            e += 50.0 * x[0] * x[0];
        }
        e
    }

    #[test]
    fn energy_over_parameters_and_positions() {
        for (n, p) in points(4031, 11, 12, 0.2, 1.2).into_iter().enumerate() {
            let anchored = n % 2 == 0;
            let c = chain(&p, anchored);
            // Positions increasing, so no spring is at zero length.
            let x: Vec<f64> = (0..4).map(|i| i as f64 * 1.5 + 0.3 * p[7 + i]).collect();
            let flat: Vec<f64> = c.to_flat().into_iter().chain(x.iter().copied()).collect();
            assert_eq!(flat.len(), 11);
            let split = |q: &[f64]| (c.from_flat(&q[..7]), q[7..].to_vec());
            let (g, h) = check2(
                "energy",
                &flat,
                |q| {
                    let (c, x) = split(q);
                    by_hand(&c, &x)
                },
                |q| {
                    let (c, x) = split(q);
                    let (v, (gc, gx)) = c.energy_grad(&x);
                    assert_eq!(gc.masses, c.masses, "#[no_grad] copied");
                    assert_eq!(gc.anchored, c.anchored, "#[no_grad] copied");
                    (v, [gc.to_flat(), gx].concat())
                },
                |q| {
                    let (c, x) = split(q);
                    let (v, (gc, gx), h) = c.energy_hessian(&x);
                    (v, [gc.to_flat(), gx].concat(), h)
                },
            );
            // The gravity derivative is the total weight times position, by hand.
            let weighted: f64 = (0..4).map(|i| c.masses[i] * x[i]).sum();
            assert_close(g[6], weighted, 1e-12, "d energy / d gravity");
            let v: Vec<f64> = (0..11).map(|i| (i as f64).cos()).collect();
            let (_, (gc, gx), (hc, hx)) = c.energy_hvp(&x, (c.from_flat(&v[..7]), v[7..].to_vec()));
            check_hvp(
                "energy",
                &h,
                &g,
                &v,
                ([gc.to_flat(), gx].concat(), [hc.to_flat(), hx].concat()),
            );
        }
    }

    #[test]
    fn stretched_derivatives() {
        for p in points(4032, 7, 10, 0.2, 1.2) {
            let c = chain(&p, false);
            let x = [0.0, 1.1, 2.3, 3.2];
            for scale in [0.8, 1.0, 1.3] {
                let d = analysis::stretched_derivatives(&c, &x, scale);
                let f = |s: f64| {
                    let y: Vec<f64> = x.iter().map(|v| v * s).collect();
                    by_hand(&c, &y)
                };
                assert_close(d[0], f(scale), 1e-12, "stretched");
                assert_eq!(analysis::stretched(&c, &x, scale), d[0]);
                assert_close(d[1], fd1(f, scale), 1e-7, "stretched'");
                let g = |s: f64| analysis::stretched_grad(&c, &x, s).1;
                assert_close(d[1], g(scale), 1e-12, "stretched' vs _grad");
                assert_close(d[2], fd1(g, scale), 1e-7, "stretched''");
                // The energy is a quadratic in `scale` plus a linear term: no third derivative.
                assert_close(d[3], 0.0, 1e-9, "stretched'''");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) Logistic regression with an L2 penalty, trained by an Adam step written by the user that takes
// `_grad_into` into buffers reused across iterations.

mod logreg {
    use super::*;
    use autodiff::differentiable;

    /// `ln(1 + e^z)` without overflow.
    #[differentiable]
    pub fn log1pexp(z: f64) -> f64 {
        if z > 0.0 {
            z + (-z).exp().ln_1p()
        } else {
            z.exp().ln_1p()
        }
    }

    #[differentiable]
    pub fn margin(w: &[f64], b: f64, x: &[f64]) -> f64 {
        w.iter().zip(x).map(|(wi, xi)| wi * xi).sum::<f64>() + b
    }

    #[differentiable(wrt(w, b), order = 2)]
    pub fn loss(w: &[f64], b: f64, xs: &[Vec<f64>], ys: &[f64], lambda: f64) -> f64 {
        let n = xs.len() as f64;
        let mut data = 0.0;
        for (x, &y) in xs.iter().zip(ys) {
            let z = margin(w, b, x);
            data += log1pexp(z) - y * z;
        }
        let reg = 0.5 * lambda * w.iter().map(|v| v * v).sum::<f64>();
        data / n + reg
    }

    fn data() -> (Vec<Vec<f64>>, Vec<f64>) {
        let mut r = Inputs(4041);
        let xs: Vec<Vec<f64>> = (0..20).map(|_| r.vec(3)).collect();
        let ys = xs
            .iter()
            .map(|x| f64::from(u8::from(x[0] - 0.5 * x[1] + 0.2 * r.next() > 0.0)))
            .collect();
        (xs, ys)
    }

    fn by_hand(w: &[f64], b: f64, xs: &[Vec<f64>], ys: &[f64], lambda: f64) -> (Vec<f64>, f64) {
        let n = xs.len() as f64;
        let mut gw: Vec<f64> = w.iter().map(|v| lambda * v).collect();
        let mut gb = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let z = dot(w, x) + b;
            let e = common::sigmoid(z) - y;
            for j in 0..w.len() {
                gw[j] += e * x[j] / n;
            }
            gb += e / n;
        }
        (gw, gb)
    }

    #[test]
    fn gradient_and_hessian() {
        let (xs, ys) = data();
        for p in points(4042, 4, 10, -3.0, 3.0) {
            let (gw, gb) = by_hand(&p[..3], p[3], &xs, &ys, 0.1);
            let (_, (aw, ab)) = loss_grad(&p[..3], p[3], &xs, &ys, 0.1);
            assert_all_close(&aw, &gw, 1e-12, "loss gradient by hand");
            assert_close(ab, gb, 1e-12, "loss gradient by hand");
            let (g, h) = check2(
                "logreg",
                &p,
                |q| loss(&q[..3], q[3], &xs, &ys, 0.1),
                |q| {
                    let (v, (gw, gb)) = loss_grad(&q[..3], q[3], &xs, &ys, 0.1);
                    (v, [gw, vec![gb]].concat())
                },
                |q| {
                    let (v, (gw, gb), h) = loss_hessian(&q[..3], q[3], &xs, &ys, 0.1);
                    (v, [gw, vec![gb]].concat(), h)
                },
            );
            let v = [0.5, 1.0, -1.0, 2.0];
            let (_, (gw, gb), (hw, hb)) =
                loss_hvp(&p[..3], p[3], &xs, &ys, 0.1, (v[..3].to_vec(), v[3]));
            check_hvp(
                "logreg",
                &h,
                &g,
                &v,
                ([gw, vec![gb]].concat(), [hw, vec![hb]].concat()),
            );
        }
    }

    #[test]
    fn adam_with_grad_into() {
        let (xs, ys) = data();
        let mut w = vec![0.0; 3];
        let mut b = 0.0;
        let (mut m, mut v) = (vec![0.0; 4], vec![0.0; 4]);
        let mut gw = vec![0.0; 3];
        let mut gb = 0.0;
        let (beta1, beta2, lr) = (0.9, 0.999, 0.05);
        let first = loss(&w, b, &xs, &ys, 0.01);
        let mut last = first;
        for step in 1..=200 {
            let value = loss_grad_into(&w, b, &xs, &ys, 0.01, (&mut gw, &mut gb));
            let (expected, (ew, eb)) = loss_grad(&w, b, &xs, &ys, 0.01);
            assert_eq!(value.to_bits(), expected.to_bits());
            assert_eq!(bits(&gw), bits(&ew), "step {step}");
            assert_eq!(gb.to_bits(), eb.to_bits(), "step {step}");
            for (i, g) in gw.iter().copied().chain([gb]).enumerate() {
                m[i] = beta1 * m[i] + (1.0 - beta1) * g;
                v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
                let mh = m[i] / (1.0 - f64::powi(beta1, step));
                let vh = v[i] / (1.0 - f64::powi(beta2, step));
                let delta = lr * mh / (vh.sqrt() + 1e-8);
                if i < 3 {
                    w[i] -= delta;
                } else {
                    b -= delta;
                }
            }
            last = value;
        }
        assert!(
            last < 0.6 * first,
            "Adam reduced the loss from {first} to {last}"
        );
        // At the end the gradient is small.
        let (_, (gw, gb)) = loss_grad(&w, b, &xs, &ys, 0.01);
        assert!(
            gw.iter().chain([&gb]).all(|g| g.abs() < 0.05),
            "{gw:?} {gb}"
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) A Gaussian-process log marginal likelihood with a hand-written Cholesky factorisation into an
// output parameter and a forward substitution returning a `Vec`, at `order = 2` over the three
// log-hyperparameters.

mod gp {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    #[differentiable]
    pub fn kernel(a: f64, b: f64, ell: f64, sf2: f64) -> f64 {
        let d = (a - b) / ell;
        sf2 * (-0.5 * d * d).exp()
    }

    /// The lower Cholesky factor of the `n × n` row-major `a` into `l`.
    #[differentiable]
    pub fn cholesky(a: &[f64], n: usize, l: &mut [f64]) {
        for i in 0..n * n {
            l[i] = 0.0;
        }
        for j in 0..n {
            let mut s = a[j * n + j];
            for k in 0..j {
                s -= l[j * n + k] * l[j * n + k];
            }
            let d = s.sqrt();
            l[j * n + j] = d;
            for i in j + 1..n {
                let mut t = a[i * n + j];
                for k in 0..j {
                    t -= l[i * n + k] * l[j * n + k];
                }
                l[i * n + j] = t / d;
            }
        }
    }

    /// Solves `l z = y` for a lower-triangular `l`.
    #[differentiable]
    pub fn forward_sub(l: &[f64], n: usize, y: &[f64]) -> Vec<f64> {
        let mut z = vec![0.0; n];
        for i in 0..n {
            let mut s = y[i];
            for k in 0..i {
                s -= l[i * n + k] * z[k];
            }
            z[i] = s / l[i * n + i];
        }
        z
    }

    #[differentiable(wrt(theta), order = 2)]
    pub fn log_marginal(x: &[f64], y: &[f64], theta: [f64; 3]) -> f64 {
        let ell = theta[0].exp();
        let sf2 = (2.0 * theta[1]).exp();
        let sn2 = (2.0 * theta[2]).exp();
        let n = x.len();
        let mut k = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                k[i * n + j] = kernel(x[i], x[j], ell, sf2);
            }
            k[i * n + i] += sn2;
        }
        let mut l = vec![0.0; n * n];
        cholesky(&k, n, &mut l);
        let z = forward_sub(&l, n, y);
        let mut log_det = 0.0;
        for i in 0..n {
            log_det += l[i * n + i].ln();
        }
        -0.5 * z.iter().map(|v| v * v).sum::<f64>() - log_det - 0.5 * n as f64 * (2.0 * PI).ln()
    }

    /// The same by an explicit inverse and determinant for 3 points (Cramer's rule).
    fn by_hand(x: &[f64], y: &[f64], theta: &[f64]) -> f64 {
        let (ell, sf2, sn2) = (
            theta[0].exp(),
            (2.0 * theta[1]).exp(),
            (2.0 * theta[2]).exp(),
        );
        let k = |i: usize, j: usize| {
            let d = (x[i] - x[j]) / ell;
            sf2 * (-0.5 * d * d).exp() + if i == j { sn2 } else { 0.0 }
        };
        let m = [
            [k(0, 0), k(0, 1), k(0, 2)],
            [k(1, 0), k(1, 1), k(1, 2)],
            [k(2, 0), k(2, 1), k(2, 2)],
        ];
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        let cof = |i: usize, j: usize| {
            let r: Vec<usize> = (0..3).filter(|&a| a != j).collect();
            let c: Vec<usize> = (0..3).filter(|&a| a != i).collect();
            let minor = m[r[0]][c[0]] * m[r[1]][c[1]] - m[r[0]][c[1]] * m[r[1]][c[0]];
            if (i + j).is_multiple_of(2) {
                minor
            } else {
                -minor
            }
        };
        let mut quad = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                quad += y[i] * cof(i, j) / det * y[j];
            }
        }
        -0.5 * quad - 0.5 * det.ln() - 1.5 * (2.0 * PI).ln()
    }

    #[test]
    fn log_marginal_at_order_2() {
        let x = [-0.8, 0.1, 0.9];
        let y = [0.3, -0.4, 0.8];
        for p in points(4051, 3, 12, -1.0, 0.5) {
            let (g, h) = check2(
                "gp",
                &p,
                |t| by_hand(&x, &y, t),
                |t| {
                    let (v, g) = log_marginal_grad(&x, &y, [t[0], t[1], t[2]]);
                    (v, g.to_vec())
                },
                |t| {
                    let (v, g, h) = log_marginal_hessian(&x, &y, [t[0], t[1], t[2]]);
                    (v, g.to_vec(), h)
                },
            );
            assert_close(
                log_marginal(&x, &y, [p[0], p[1], p[2]]),
                by_hand(&x, &y, &p),
                1e-12,
                "log_marginal",
            );
            let v = [0.2, 1.0, -0.6];
            let (_, hg, hv) = log_marginal_hvp(&x, &y, [p[0], p[1], p[2]], v);
            check_hvp("gp", &h, &g, &v, (hg.to_vec(), hv.to_vec()));
            let mut buf = [f64::NAN; 3];
            log_marginal_grad_into(&x, &y, [p[0], p[1], p[2]], &mut buf);
            assert_eq!(bits(&buf), bits(&g));
        }
    }

    #[test]
    fn cholesky_factor_derivatives() {
        let a = [4.0, 1.2, 0.4, 1.2, 3.0, -0.5, 0.4, -0.5, 2.0];
        let mut l = [f64::NAN; 9];
        let j = cholesky_jacobian(&a, 3, &mut l);
        // Columns: `a`, then the incoming `l` (see below), whose columns are zero.
        assert_eq!((j.len(), j[0].len()), (9, 18));
        assert!(j.iter().all(|row| row[9..].iter().all(|&v| v == 0.0)));
        let j: Vec<Vec<f64>> = j.iter().map(|row| row[..9].to_vec()).collect();
        assert_close(l[0], 2.0, 1e-15, "l00");
        check_jacobian("cholesky", &a, &j, |q| {
            let mut l = vec![0.0; 9];
            cholesky(q, 3, &mut l);
            l
        });
        let c: Vec<f64> = (0..9).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let t: Vec<f64> = (0..9).map(|i| (i as f64).sin()).collect();
        // `l` is zeroed by a loop before it is read, which the macro does not prove covers it: its
        // incoming value counts as an input (as in trial39's `spring_chain`), with a zero gradient.
        let (cj, cl) = cholesky_vjp(&a, 3, &mut l, &c);
        assert_eq!(cl, vec![0.0; 9], "the incoming l is overwritten");
        let mut jt = vec![0.0; 9];
        cholesky_jvp(&a, 3, &mut l, (t.clone(), vec![1.0; 9]), &mut jt);
        check_dual("cholesky", &c, &jt, &cj, &t);
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) Forward kinematics of a planar arm: joint angles as `[f64; N]` with `const N: usize`, the tip
// position's `_jacobian` against the closed form, and a reach loss with `hypot`, `atan2` and a
// `clamp`ed joint-limit penalty at `order = 2`.

mod arm {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::FRAC_PI_2;

    #[differentiable(wrt(theta))]
    pub fn tip<const N: usize>(theta: [f64; N], len: &[f64; N]) -> [f64; 2] {
        let mut x = 0.0;
        let mut y = 0.0;
        let mut phi = 0.0;
        for i in 0..N {
            phi += theta[i];
            x += len[i] * phi.cos();
            y += len[i] * phi.sin();
        }
        [x, y]
    }

    #[differentiable]
    pub fn limit_penalty(angle: f64, limit: f64) -> f64 {
        let over = (angle.abs() - limit).max(0.0);
        over * over
    }

    #[differentiable(wrt(theta), order = 2)]
    pub fn reach<const N: usize>(theta: [f64; N], len: &[f64; N], target: [f64; 2]) -> f64 {
        let p = tip(theta, len);
        let miss = (p[0] - target[0]).hypot(p[1] - target[1]);
        let heading = p[1].atan2(p[0]) - target[1].atan2(target[0]);
        let mut penalty = 0.0;
        for &a in theta.iter() {
            penalty += limit_penalty(a.clamp(-3.0, 3.0), FRAC_PI_2);
        }
        miss * miss + 0.1 * heading * heading + penalty
    }

    const LEN: [f64; 3] = [1.0, 0.8, 0.5];

    fn reach_by_hand(t: &[f64], target: [f64; 2]) -> f64 {
        let (mut x, mut y, mut phi) = (0.0, 0.0, 0.0);
        for i in 0..3 {
            phi += t[i];
            x += LEN[i] * phi.cos();
            y += LEN[i] * phi.sin();
        }
        let heading = y.atan2(x) - target[1].atan2(target[0]);
        let penalty: f64 = t
            .iter()
            .map(|a| (a.clamp(-3.0, 3.0).abs() - FRAC_PI_2).max(0.0).powi(2))
            .sum();
        (x - target[0]).powi(2) + (y - target[1]).powi(2) + 0.1 * heading * heading + penalty
    }

    #[test]
    fn tip_jacobian_closed_form() {
        for p in points(4061, 3, 12, -2.0, 2.0) {
            let theta = [p[0], p[1], p[2]];
            let j = tip_jacobian(theta, &LEN);
            let mut phi = [0.0; 3];
            let mut acc = 0.0;
            for i in 0..3 {
                acc += theta[i];
                phi[i] = acc;
            }
            for k in 0..3 {
                let dx: f64 = (k..3).map(|i| -LEN[i] * phi[i].sin()).sum();
                let dy: f64 = (k..3).map(|i| LEN[i] * phi[i].cos()).sum();
                assert_close(j[0][k], dx, 1e-14, "dx/dtheta");
                assert_close(j[1][k], dy, 1e-14, "dy/dtheta");
            }
            let c = [0.7, -1.2];
            let t = [0.3, 0.1, -0.9];
            let (v, cj) = tip_vjp(theta, &LEN, c);
            let (v2, jt) = tip_jvp(theta, &LEN, t);
            assert_eq!(v, tip(theta, &LEN));
            assert_eq!(v2, v);
            check_dual("tip", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn reach_at_order_2() {
        let target = [1.2, 0.9];
        // Points inside and outside the joint limits (not at a kink).
        for p in points(4062, 3, 14, -2.8, 2.8) {
            if p.iter().any(|a| (a.abs() - FRAC_PI_2).abs() < 1e-2) {
                continue;
            }
            let (g, h) = check2(
                "reach",
                &p,
                |t| reach_by_hand(t, target),
                |t| {
                    let (v, g) = reach_grad([t[0], t[1], t[2]], &LEN, target);
                    (v, g.to_vec())
                },
                |t| {
                    let (v, g, h) = reach_hessian([t[0], t[1], t[2]], &LEN, target);
                    (v, g.to_vec(), h)
                },
            );
            assert_close(
                reach([p[0], p[1], p[2]], &LEN, target),
                reach_by_hand(&p, target),
                1e-12,
                "reach",
            );
            let v = [1.0, 0.5, -0.25];
            let (_, hg, hv) = reach_hvp([p[0], p[1], p[2]], &LEN, target, v);
            check_hvp("reach", &h, &g, &v, (hg.to_vec(), hv.to_vec()));
            let mut buf = [0.0; 3];
            reach_grad_into([p[0], p[1], p[2]], &LEN, target, &mut buf);
            assert_eq!(bits(&buf), bits(&g));
        }
    }

    #[test]
    fn a_two_link_arm_by_the_same_generic_code() {
        let len = [1.0, 1.0];
        let j = tip_jacobian([0.0, FRAC_PI_2], &len);
        // Tip at (1, 1): dx = (-1, -1), dy = (1, 0).
        assert_all_close(&j[0], &[-1.0, -1.0], 1e-15, "two-link dx");
        assert_all_close(&j[1], &[1.0, 0.0], 1e-15, "two-link dy");
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) A two-layer perceptron as a `Differentiable` struct: `forward` and `loss` methods with
// `wrt(self)`, the activation chosen by a `match` on an enum, rows read as sub-slices of a field.

mod mlp {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Act {
        Relu,
        Tanh,
        Softplus,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Mlp {
        pub w1: Vec<f64>,
        pub b1: Vec<f64>,
        pub w2: Vec<f64>,
        pub b2: f64,
        #[no_grad]
        pub inputs: usize,
        #[no_grad]
        pub hidden: usize,
    }

    impl Mlp {
        #[differentiable]
        fn act(z: f64, kind: Act) -> f64 {
            match kind {
                Act::Relu => z.max(0.0),
                Act::Tanh => z.tanh(),
                Act::Softplus => z.exp().ln_1p(),
            }
        }

        #[differentiable(wrt(self))]
        pub fn forward(&self, x: &[f64], kind: Act) -> f64 {
            let mut out = self.b2;
            for h in 0..self.hidden {
                let row = &self.w1[h * self.inputs..(h + 1) * self.inputs];
                let z = row.iter().zip(x).map(|(w, v)| w * v).sum::<f64>() + self.b1[h];
                out += self.w2[h] * Self::act(z, kind);
            }
            out
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, xs: &[Vec<f64>], ys: &[f64], kind: Act) -> f64 {
            let mut s = 0.0;
            for (x, &y) in xs.iter().zip(ys) {
                let e = self.forward(x, kind) - y;
                s += e * e;
            }
            s / ys.len() as f64
        }
    }

    fn by_hand(m: &Mlp, x: &[f64], kind: Act) -> f64 {
        let mut out = m.b2;
        for h in 0..m.hidden {
            let mut z = m.b1[h];
            for i in 0..m.inputs {
                z += m.w1[h * m.inputs + i] * x[i];
            }
            out += m.w2[h]
                * match kind {
                    Act::Relu => z.max(0.0),
                    Act::Tanh => z.tanh(),
                    Act::Softplus => (1.0 + z.exp()).ln(),
                };
        }
        out
    }

    fn model(p: &[f64]) -> Mlp {
        Mlp {
            w1: p[..6].to_vec(),
            b1: p[6..9].to_vec(),
            w2: p[9..12].to_vec(),
            b2: p[12],
            inputs: 2,
            hidden: 3,
        }
    }

    fn data() -> (Vec<Vec<f64>>, Vec<f64>) {
        let mut r = Inputs(4071);
        let xs: Vec<Vec<f64>> = (0..6).map(|_| r.vec(2)).collect();
        let ys = xs.iter().map(|x| (2.0 * x[0]).sin() * x[1]).collect();
        (xs, ys)
    }

    #[test]
    fn forward_gradient_by_hand() {
        let (xs, _) = data();
        for p in points(4072, 13, 10, -1.0, 1.0) {
            let m = model(&p);
            for kind in [Act::Relu, Act::Tanh, Act::Softplus] {
                let x = &xs[0];
                let (v, g) = m.forward_grad(x, kind);
                assert_close(v, by_hand(&m, x, kind), 1e-12, "forward");
                assert_eq!((g.inputs, g.hidden), (2, 3), "#[no_grad] copied");
                // d/d b2 = 1, d/d w2[h] = act(z_h).
                assert_eq!(g.b2, 1.0);
                for h in 0..3 {
                    let z = m.w1[2 * h] * x[0] + m.w1[2 * h + 1] * x[1] + m.b1[h];
                    let a = by_hand(
                        &Mlp {
                            w1: m.w1.clone(),
                            b1: m.b1.clone(),
                            w2: (0..3).map(|k| f64::from(u8::from(k == h))).collect(),
                            b2: 0.0,
                            inputs: 2,
                            hidden: 3,
                        },
                        x,
                        kind,
                    );
                    assert_close(g.w2[h], a, 1e-12, "d forward / d w2");
                    let _ = z;
                }
                super::check1(
                    "forward",
                    &m.to_flat(),
                    |q| by_hand(&m.from_flat(q), x, kind),
                    |q| {
                        let (v, g) = m.from_flat(q).forward_grad(x, kind);
                        (v, g.to_flat())
                    },
                );
            }
        }
    }

    #[test]
    fn loss_at_order_2() {
        let (xs, ys) = data();
        let plain = |m: &Mlp, kind: Act| {
            xs.iter()
                .zip(&ys)
                .map(|(x, y)| (by_hand(m, x, kind) - y).powi(2))
                .sum::<f64>()
                / ys.len() as f64
        };
        for p in points(4073, 13, 10, -1.0, 1.0) {
            let m = model(&p);
            // ReLU's second derivative is zero away from its kink; tanh and softplus are smooth.
            for kind in [Act::Tanh, Act::Softplus, Act::Relu] {
                let (g, h) = check2(
                    "mlp loss",
                    &m.to_flat(),
                    |q| plain(&m.from_flat(q), kind),
                    |q| {
                        let (v, g) = m.from_flat(q).loss_grad(&xs, &ys, kind);
                        (v, g.to_flat())
                    },
                    |q| {
                        let (v, g, h) = m.from_flat(q).loss_hessian(&xs, &ys, kind);
                        (v, g.to_flat(), h)
                    },
                );
                assert_close(m.loss(&xs, &ys, kind), plain(&m, kind), 1e-12, "mlp loss");
                let v: Vec<f64> = (0..13).map(|i| (0.3 * i as f64).cos()).collect();
                let (_, hg, hv) = m.loss_hvp(&xs, &ys, kind, m.from_flat(&v));
                check_hvp("mlp loss", &h, &g, &v, (hg.to_flat(), hv.to_flat()));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) Lennard-Jones energy of particles given as `[[f64; 3]; N]` (`const N: usize`), a pair term and
// a distance helper, at `order = 2` (forces and the Hessian).

mod lennard_jones {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn pair(r2: f64, eps: f64, sigma: f64) -> f64 {
        let s6 = (sigma * sigma / r2).powi(3);
        4.0 * eps * (s6 * s6 - s6)
    }

    #[differentiable]
    pub fn dist2(a: &[f64; 3], b: &[f64; 3]) -> f64 {
        a.iter().zip(b.iter()).map(|(x, y)| (x - y).powi(2)).sum()
    }

    #[differentiable(wrt(pos), order = 2)]
    pub fn energy<const N: usize>(pos: [[f64; 3]; N], eps: f64, sigma: f64) -> f64 {
        let mut e = 0.0;
        for i in 0..N {
            for j in i + 1..N {
                e += pair(dist2(&pos[i], &pos[j]), eps, sigma);
            }
        }
        e
    }

    fn plain(p: &[f64]) -> f64 {
        let mut e = 0.0;
        for i in 0..4 {
            for j in i + 1..4 {
                let r2: f64 = (0..3).map(|k| (p[3 * i + k] - p[3 * j + k]).powi(2)).sum();
                let s6 = (1.1 * 1.1 / r2).powi(3);
                e += 4.0 * 0.7 * (s6 * s6 - s6);
            }
        }
        e
    }

    fn unflat(p: &[f64]) -> [[f64; 3]; 4] {
        let mut a = [[0.0; 3]; 4];
        for i in 0..4 {
            for k in 0..3 {
                a[i][k] = p[3 * i + k];
            }
        }
        a
    }

    fn flat(a: &[[f64; 3]]) -> Vec<f64> {
        a.iter().flatten().copied().collect()
    }

    #[test]
    fn energy_forces_hessian() {
        let base = [0.0, 0.0, 0.0, 1.2, 0.0, 0.0, 0.0, 1.3, 0.0, 0.1, 0.2, 1.25];
        for p in points(4081, 12, 10, -0.15, 0.15) {
            let x: Vec<f64> = base.iter().zip(&p).map(|(b, d)| b + d).collect();
            assert_close(energy(unflat(&x), 0.7, 1.1), plain(&x), 1e-12, "lj value");
            let (g, h) = check2(
                "lj",
                &x,
                plain,
                |q| {
                    let (v, g) = energy_grad(unflat(q), 0.7, 1.1);
                    (v, flat(&g))
                },
                |q| {
                    let (v, g, h) = energy_hessian(unflat(q), 0.7, 1.1);
                    (v, flat(&g), h)
                },
            );
            // Newton's third law: the forces sum to zero; translation invariance: H 1_k = 0.
            for k in 0..3 {
                let s: f64 = (0..4).map(|i| g[3 * i + k]).sum();
                assert!(s.abs() < 1e-10 * g.iter().map(|v| v.abs()).sum::<f64>().max(1.0));
                let mut shift = vec![0.0; 12];
                for i in 0..4 {
                    shift[3 * i + k] = 1.0;
                }
                let hs = times(&h, &shift);
                let scale: f64 = h.iter().flatten().map(|v| v.abs()).sum();
                assert!(hs.iter().all(|v| v.abs() < 1e-10 * scale), "{hs:?}");
            }
            let v: Vec<f64> = (0..12).map(|i| (i as f64 * 0.9).sin()).collect();
            let (_, hg, hv) = energy_hvp(unflat(&x), 0.7, 1.1, unflat(&v));
            check_hvp("lj", &h, &g, &v, (flat(&hg), flat(&hv)));
            let mut buf = [[f64::NAN; 3]; 4];
            energy_grad_into(unflat(&x), 0.7, 1.1, &mut buf);
            assert_eq!(bits(&flat(&buf)), bits(&g));
        }
    }

    #[test]
    fn pair_minimum_at_two_to_the_sixth() {
        // The pair potential's minimum is at r = 2^(1/6) sigma with depth -eps.
        let sigma = 1.1;
        let r2 = (2f64.powf(1.0 / 6.0) * sigma).powi(2);
        let (v, (g, _, _)) = pair_grad(r2, 0.7, sigma);
        assert_close(v, -0.7, 1e-14, "depth");
        assert!(g.abs() < 1e-14, "{g}");
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) Poisson regression with an exposure offset: the negative log-likelihood over a design matrix
// `&[Vec<f64>]` and integer counts, with `ln k!` computed by an inactive loop; the gradient and
// Hessian against their closed forms `X^T (mu - y)` and `X^T diag(mu) X`.

mod poisson {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn linear_predictor(beta: &[f64], x: &[f64]) -> f64 {
        x.iter()
            .zip(&beta[1..])
            .fold(beta[0], |acc, (xi, b)| xi.mul_add(*b, acc))
    }

    /// A plain function of an integer (`#[differentiable]` on it is a clear error: no parameter is
    /// differentiated), called with inactive arguments.
    pub fn log_factorial(k: u32) -> f64 {
        let mut s = 0.0;
        for j in 2..=k {
            s += (j as f64).ln();
        }
        s
    }

    #[differentiable(wrt(beta), order = 2)]
    pub fn nll(beta: &[f64], xs: &[Vec<f64>], counts: &[u32], exposure: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, x) in xs.iter().enumerate() {
            let eta = linear_predictor(beta, x) + exposure[i].ln();
            let k = counts[i] as f64;
            s += eta.exp() - k * eta + log_factorial(counts[i]);
        }
        s
    }

    fn data() -> (Vec<Vec<f64>>, Vec<u32>, Vec<f64>) {
        let mut r = Inputs(4091);
        let xs: Vec<Vec<f64>> = (0..15).map(|_| r.vec(2)).collect();
        let counts = xs
            .iter()
            .map(|x| ((1.0 + x[0] - 0.5 * x[1]).exp() + 2.0 * r.next().abs()) as u32)
            .collect();
        let exposure = (0..15).map(|i| 0.5 + 0.1 * i as f64).collect();
        (xs, counts, exposure)
    }

    #[test]
    fn nll_against_closed_forms() {
        let (xs, counts, exposure) = data();
        for beta in points(4092, 3, 10, -0.8, 0.8) {
            let design: Vec<Vec<f64>> = xs.iter().map(|x| vec![1.0, x[0], x[1]]).collect();
            let mu: Vec<f64> = design
                .iter()
                .zip(&exposure)
                .map(|(d, e)| (dot(d, &beta) + e.ln()).exp())
                .collect();
            let mut g = vec![0.0; 3];
            let mut h = vec![vec![0.0; 3]; 3];
            for i in 0..15 {
                for a in 0..3 {
                    g[a] += (mu[i] - counts[i] as f64) * design[i][a];
                    for b in 0..3 {
                        h[a][b] += mu[i] * design[i][a] * design[i][b];
                    }
                }
            }
            let (value, ag, ah) = nll_hessian(&beta, &xs, &counts, &exposure);
            let plain: f64 = (0..15)
                .map(|i| {
                    let k = counts[i] as f64;
                    let lf: f64 = (2..=counts[i]).map(|j| (j as f64).ln()).sum();
                    mu[i] - k * mu[i].ln() + lf
                })
                .sum();
            assert_close(value, plain, 1e-12, "nll value");
            assert_eq!(value, nll(&beta, &xs, &counts, &exposure));
            assert_all_close(&ag, &g, 1e-12, "nll gradient");
            for a in 0..3 {
                assert_all_close(&ah[a], &h[a], 1e-12, "nll Hessian");
            }
            check1(
                "nll",
                &beta,
                |b| nll(b, &xs, &counts, &exposure),
                |b| nll_grad(b, &xs, &counts, &exposure),
            );
            let v = [0.3, -0.2, 1.0];
            let (_, hg, hv) = nll_hvp(&beta, &xs, &counts, &exposure, v.to_vec());
            check_hvp("nll", &h, &g, &v, (hg, hv));
            let mut buf = vec![f64::NAN; 3];
            nll_grad_into(&beta, &xs, &counts, &exposure, &mut buf);
            assert_eq!(bits(&buf), bits(&ag));
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) A damped pendulum integrated by classical Runge-Kutta: the right-hand side a separate function
// returning `[f64; 2]`, the step a function of it, the integrator a `while` loop with a compound
// condition; the final state's `_jacobian`, and a fit of the parameters to observations at `order = 2`.

mod pendulum {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn rhs(y: [f64; 2], g_over_l: f64, damping: f64) -> [f64; 2] {
        [y[1], -g_over_l * y[0].sin() - damping * y[1]]
    }

    #[differentiable]
    pub fn axpy(a: f64, x: [f64; 2], y: [f64; 2]) -> [f64; 2] {
        [a.mul_add(x[0], y[0]), a.mul_add(x[1], y[1])]
    }

    #[differentiable]
    pub fn rk4(y: [f64; 2], h: f64, g: f64, c: f64) -> [f64; 2] {
        let k1 = rhs(y, g, c);
        let k2 = rhs(axpy(0.5 * h, k1, y), g, c);
        let k3 = rhs(axpy(0.5 * h, k2, y), g, c);
        let k4 = rhs(axpy(h, k3, y), g, c);
        let mut out = y;
        for i in 0..2 {
            out[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        out
    }

    #[differentiable(wrt(y0, g, c))]
    pub fn integrate(y0: [f64; 2], g: f64, c: f64, t_end: f64, steps: usize) -> [f64; 2] {
        let h = t_end / steps as f64;
        let mut y = y0;
        let mut k = 0;
        while k < steps && y[0].abs() < 100.0 {
            y = rk4(y, h, g, c);
            k += 1;
        }
        y
    }

    #[differentiable(wrt(g, c), order = 2)]
    pub fn fit(obs: &[f64], y0: [f64; 2], g: f64, c: f64, dt: f64) -> f64 {
        let mut y = y0;
        let mut s = 0.0;
        for &o in obs {
            y = rk4(y, dt, g, c);
            s += (y[0] - o).powi(2);
        }
        s
    }

    fn plain_step(y: [f64; 2], h: f64, g: f64, c: f64) -> [f64; 2] {
        let f = |y: [f64; 2]| [y[1], -g * y[0].sin() - c * y[1]];
        let k1 = f(y);
        let k2 = f([y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
        let k3 = f([y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
        let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
        [
            y[0] + h / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]),
            y[1] + h / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
        ]
    }

    #[test]
    fn integrate_jacobian_and_duality() {
        for p in points(4101, 4, 10, 0.0, 1.0) {
            let y0 = [2.0 * p[0] - 1.0, p[1]];
            let (g, c) = (5.0 + 5.0 * p[2], 0.3 * p[3]);
            let plain = |q: &[f64]| {
                let mut y = [q[0], q[1]];
                for _ in 0..20 {
                    y = plain_step(y, 0.1, q[2], q[3]);
                }
                y.to_vec()
            };
            let x = [y0[0], y0[1], g, c];
            let y = integrate(y0, g, c, 2.0, 20);
            assert_all_close(&y, &plain(&x), 1e-12, "integrate");
            let j = integrate_jacobian(y0, g, c, 2.0, 20);
            assert_eq!((j.len(), j[0].len()), (2, 4));
            check_jacobian("integrate", &x, &j, plain);
            let cot = [0.8, -0.4];
            let t = [0.1, -0.3, 0.7, 1.5];
            let (v1, (cy, cg, cc)) = integrate_vjp(y0, g, c, 2.0, 20, cot);
            let (v2, jt) = integrate_jvp(y0, g, c, 2.0, 20, ([t[0], t[1]], t[2], t[3]));
            assert_eq!(v1, y);
            assert_eq!(v2, y);
            check_dual("integrate", &cot, &jt, &[cy[0], cy[1], cg, cc], &t);
            // The flow map of a damped pendulum contracts areas: det J_y0 = exp(-c t) (to RK4's error).
            let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
            assert_close(det, (-c * 2.0).exp(), 1e-3, "Liouville");
        }
    }

    #[test]
    fn fit_at_order_2() {
        let obs = [0.45, 0.3, 0.1, -0.12, -0.3, -0.4, -0.38, -0.25];
        let y0 = [0.5, 0.0];
        for p in points(4102, 2, 10, 0.0, 1.0) {
            let x = [4.0 + 6.0 * p[0], 0.5 * p[1]];
            let plain = |q: &[f64]| {
                let mut y = y0;
                let mut s = 0.0;
                for o in obs {
                    y = plain_step(y, 0.15, q[0], q[1]);
                    s += (y[0] - o).powi(2);
                }
                s
            };
            let (g, h) = check2(
                "fit",
                &x,
                plain,
                |q| {
                    let (v, (a, b)) = fit_grad(&obs, y0, q[0], q[1], 0.15);
                    (v, vec![a, b])
                },
                |q| {
                    let (v, (a, b), h) = fit_hessian(&obs, y0, q[0], q[1], 0.15);
                    (v, vec![a, b], h)
                },
            );
            let (_, (ga, gb), (ha, hb)) = fit_hvp(&obs, y0, x[0], x[1], 0.15, (1.0, -2.0));
            check_hvp("fit", &h, &g, &[1.0, -2.0], (vec![ga, gb], vec![ha, hb]));
            let (mut a, mut b) = (0.0, 0.0);
            let value = fit_grad_into(&obs, y0, x[0], x[1], 0.15, (&mut a, &mut b));
            assert_eq!(value, fit(&obs, y0, x[0], x[1], 0.15));
            assert_eq!(bits(&[a, b]), bits(&g));
        }
    }

    #[test]
    fn integrate_stops_when_the_pendulum_flies_off() {
        // A huge initial speed: the `while` condition ends the loop early; the Jacobian is still that of
        // the steps taken.
        let y0 = [99.5, 200.0];
        let y = integrate(y0, 1.0, 0.0, 10.0, 100);
        assert!(y[0].abs() >= 100.0);
        let j = integrate_jacobian(y0, 1.0, 0.0, 10.0, 100);
        let x = [y0[0], y0[1], 1.0, 0.0];
        let plain = |q: &[f64]| {
            let mut y = [q[0], q[1]];
            let mut k = 0;
            while k < 100 && y[0].abs() < 100.0 {
                y = plain_step(y, 0.1, q[2], q[3]);
                k += 1;
            }
            y.to_vec()
        };
        check_jacobian("integrate (early stop)", &x, &j, plain);
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) Soft k-means: the cost of points against centres with a soft minimum (a log-sum-exp with a
// `fold` for the stabilising minimum), `wrt(centers)` at `order = 2`.

mod kmeans {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sqdist(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
    }

    #[differentiable]
    pub fn softmin(d: &[f64], temp: f64) -> f64 {
        let m = d.iter().fold(f64::INFINITY, |a, &b| a.min(b));
        let s: f64 = d.iter().map(|&v| (-(v - m) / temp).exp()).sum();
        m - temp * s.ln()
    }

    #[differentiable(wrt(centers), order = 2)]
    pub fn cost(points: &[Vec<f64>], centers: &[Vec<f64>], temp: f64) -> f64 {
        let mut total = 0.0;
        let mut d = vec![0.0; centers.len()];
        for p in points {
            for (j, c) in centers.iter().enumerate() {
                d[j] = sqdist(p, c);
            }
            total += softmin(&d, temp);
        }
        total / points.len() as f64
    }

    fn plain(points: &[Vec<f64>], c: &[f64], temp: f64) -> f64 {
        let mut total = 0.0;
        for p in points {
            let s: f64 = (0..3)
                .map(|j| {
                    let d = (p[0] - c[2 * j]).powi(2) + (p[1] - c[2 * j + 1]).powi(2);
                    (-d / temp).exp()
                })
                .sum();
            total += -temp * s.ln();
        }
        total / points.len() as f64
    }

    fn rows(c: &[f64]) -> Vec<Vec<f64>> {
        c.chunks(2).map(|r| r.to_vec()).collect()
    }

    #[test]
    fn cost_at_order_2() {
        let pts: Vec<Vec<f64>> = points(4111, 2, 12, -1.0, 1.0);
        for c in points(4112, 6, 10, -1.0, 1.0) {
            let (g, h) = check2(
                "kmeans",
                &c,
                |q| plain(&pts, q, 0.3),
                |q| {
                    let (v, g) = cost_grad(&pts, &rows(q), 0.3);
                    (v, g.concat())
                },
                |q| {
                    let (v, g, h) = cost_hessian(&pts, &rows(q), 0.3);
                    (v, g.concat(), h)
                },
            );
            // By hand: d/dc_j = mean over points of 2 w_j (c_j - p), w the soft assignment.
            let mut by_hand = vec![0.0; 6];
            for p in &pts {
                let d: Vec<f64> = (0..3)
                    .map(|j| (p[0] - c[2 * j]).powi(2) + (p[1] - c[2 * j + 1]).powi(2))
                    .collect();
                let z: f64 = d.iter().map(|d| (-d / 0.3).exp()).sum();
                for j in 0..3 {
                    let w = (-d[j] / 0.3).exp() / z;
                    by_hand[2 * j] += 2.0 * w * (c[2 * j] - p[0]) / 12.0;
                    by_hand[2 * j + 1] += 2.0 * w * (c[2 * j + 1] - p[1]) / 12.0;
                }
            }
            assert_all_close(&g, &by_hand, 1e-12, "kmeans gradient by hand");
            let v: Vec<f64> = (0..6).map(|i| 1.0 - 0.4 * i as f64).collect();
            let (_, hg, hv) = cost_hvp(&pts, &rows(&c), 0.3, rows(&v));
            check_hvp("kmeans", &h, &g, &v, (hg.concat(), hv.concat()));
        }
    }

    #[test]
    fn softmin_against_min() {
        // As the temperature falls, softmin tends to the minimum and its gradient to the indicator.
        let d = [0.9, 0.2, 1.4];
        let (v, (g, _)) = softmin_grad(&d, 1e-3);
        assert_close(v, 0.2, 1e-9, "softmin at low temperature");
        assert_all_close(&g, &[0.0, 1.0, 0.0], 1e-12, "its gradient");
        let (v, (g, gt)) = softmin_grad(&d, 0.5);
        let w: Vec<f64> = d.iter().map(|x| (-x / 0.5).exp()).collect();
        let z: f64 = w.iter().sum();
        assert_close(v, -0.5 * z.ln(), 1e-14, "softmin");
        assert_all_close(
            &g,
            &w.iter().map(|w| w / z).collect::<Vec<_>>(),
            1e-14,
            "softmax",
        );
        assert_close(gt, fd1(|t| softmin(&d, t), 0.5), 1e-8, "d softmin / d temp");
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) A Catmull-Rom spline through control values: the segment found by `floor` of a `clamp`ed
// parameter (shadowing it), the basis in a helper; derivatives in the control values (linear: the basis
// weights) and in the parameter at `order = 3`, and the arc length of a 2-D curve by `hypot` over
// `windows(2)` of sampled points.

mod spline {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn segment(p0: f64, p1: f64, p2: f64, p3: f64, t: f64) -> f64 {
        let t2 = t * t;
        let t3 = t2 * t;
        0.5 * (2.0 * p1
            + (p2 - p0) * t
            + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t2
            + (3.0 * p1 - p0 - 3.0 * p2 + p3) * t3)
    }

    #[differentiable(order = 2)]
    pub fn eval(ctrl: &[f64], s: f64) -> f64 {
        let n = ctrl.len();
        let s = s.clamp(0.0, (n - 3) as f64 - 1e-9);
        let i = s.floor() as usize;
        let t = s - i as f64;
        segment(ctrl[i], ctrl[i + 1], ctrl[i + 2], ctrl[i + 3], t)
    }

    #[differentiable(wrt(s), order = 3)]
    pub fn eval_at(ctrl: &[f64], s: f64) -> f64 {
        eval(ctrl, s)
    }

    #[differentiable(wrt(cx, cy))]
    pub fn arc_length(cx: &[f64], cy: &[f64], samples: usize) -> f64 {
        let span = (cx.len() - 3) as f64;
        let mut xs = vec![0.0; samples + 1];
        let mut ys = vec![0.0; samples + 1];
        for k in 0..=samples {
            let s = span * k as f64 / samples as f64;
            xs[k] = eval(cx, s);
            ys[k] = eval(cy, s);
        }
        // (`xs.windows(2).zip(ys.windows(2))` is a clear error: windows are iterated alone or
        // `.enumerate()`d.)
        let mut length = 0.0;
        for (k, w) in xs.windows(2).enumerate() {
            length += (w[1] - w[0]).hypot(ys[k + 1] - ys[k]);
        }
        length
    }

    fn basis(t: f64) -> [f64; 4] {
        let (t2, t3) = (t * t, t * t * t);
        [
            0.5 * (-t + 2.0 * t2 - t3),
            0.5 * (2.0 - 5.0 * t2 + 3.0 * t3),
            0.5 * (t + 4.0 * t2 - 3.0 * t3),
            0.5 * (-t2 + t3),
        ]
    }

    const CTRL: [f64; 6] = [0.0, 1.0, 0.5, -0.7, 0.2, 1.3];

    #[test]
    fn derivatives_in_control_values_and_parameter() {
        for p in points(4121, 1, 12, 0.0, 2.999) {
            let s = p[0];
            let i = s.floor() as usize;
            let t = s - i as f64;
            let b = basis(t);
            let (v, (gc, gs)) = eval_grad(&CTRL, s);
            let by_basis: f64 = (0..4).map(|k| b[k] * CTRL[i + k]).sum();
            assert_close(v, by_basis, 1e-14, "eval");
            let mut expected = vec![0.0; 6];
            expected[i..i + 4].copy_from_slice(&b);
            assert_all_close(&gc, &expected, 1e-14, "d eval / d ctrl");
            assert_close(gs, fd1(|s| eval(&CTRL, s), s), 1e-8, "d eval / d s");
            // Linear in the control values: no second derivative among them.
            let (_, _, h) = eval_hessian(&CTRL, s);
            for a in 0..6 {
                for c in 0..6 {
                    assert_eq!(h[a][c], 0.0, "d² eval / d ctrl²");
                }
            }
            let mut flat = CTRL.to_vec();
            flat.push(s);
            check2(
                "eval",
                &flat,
                |q| eval(&q[..6], q[6]),
                |q| {
                    let (v, (gc, gs)) = eval_grad(&q[..6], q[6]);
                    (v, [gc, vec![gs]].concat())
                },
                |q| {
                    let (v, (gc, gs), h) = eval_hessian(&q[..6], q[6]);
                    (v, [gc, vec![gs]].concat(), h)
                },
            );
            // In s: a cubic on each segment.
            let d = eval_at_derivatives(&CTRL, s);
            let (p0, p1, p2, p3) = (CTRL[i], CTRL[i + 1], CTRL[i + 2], CTRL[i + 3]);
            let a = 2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3;
            let c3 = 3.0 * p1 - p0 - 3.0 * p2 + p3;
            assert_close(d[0], v, 1e-14, "eval_at");
            assert_eq!(d[0], eval_at(&CTRL, s));
            assert_close(
                d[1],
                0.5 * ((p2 - p0) + 2.0 * a * t + 3.0 * c3 * t * t),
                1e-13,
                "s'",
            );
            assert_close(d[2], 0.5 * (2.0 * a + 6.0 * c3 * t), 1e-13, "s''");
            assert_close(d[3], 3.0 * c3, 1e-13, "s'''");
        }
        // Outside the range the parameter is clamped: no derivative in s.
        let (_, (_, gs)) = eval_grad(&CTRL, 5.0);
        assert_eq!(gs, 0.0);
    }

    #[test]
    fn arc_length_gradient() {
        let cy = [0.3, -0.2, 0.8, 0.1, -0.5, 0.4];
        for p in points(4122, 12, 8, -0.3, 0.3) {
            let x: Vec<f64> = (0..12)
                .map(|i| {
                    if i < 6 {
                        i as f64 + p[i]
                    } else {
                        cy[i - 6] + p[i]
                    }
                })
                .collect();
            let g = check1(
                "arc_length",
                &x,
                |q| arc_length(&q[..6], &q[6..], 40),
                |q| {
                    let (v, (gx, gy)) = arc_length_grad(&q[..6], &q[6..], 40);
                    (v, [gx, gy].concat())
                },
            );
            let (mut bx, mut by) = (vec![0.0; 6], vec![0.0; 6]);
            arc_length_grad_into(&x[..6], &x[6..], 40, (&mut bx, &mut by));
            assert_eq!(bits(&[bx, by].concat()), bits(&g));
            // Scaling the curve scales its length: g · x = L.
            let length = arc_length(&x[..6], &x[6..], 40);
            assert_close(dot(&g, &x), length, 1e-12, "Euler's relation");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) Ray tracing: the distance to a sphere along a normalised ray, helpers on `[f64; 3]` returning
// arrays, `if let` on an optional hit, `match` on an integer for the root chosen, `f64::EPSILON`, and
// the distance's derivatives at `order = 2`.

mod ray {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
        a.iter().zip(b.iter()).map(|(x, y)| x * y).sum()
    }

    #[differentiable]
    pub fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    }

    #[differentiable]
    pub fn normalize(v: [f64; 3]) -> [f64; 3] {
        let n = dot3(v, v).sqrt();
        [v[0] / n, v[1] / n, v[2] / n]
    }

    /// The half-coefficient `b` and the discriminant of `t² + 2 b t + c = 0`.
    #[differentiable]
    pub fn quadratic(origin: [f64; 3], dir: [f64; 3], center: [f64; 3], radius: f64) -> (f64, f64) {
        let oc = sub(origin, center);
        let b = dot3(oc, dir);
        let c = dot3(oc, oc) - radius * radius;
        (b, b * b - c)
    }

    #[differentiable(order = 2)]
    pub fn hit_distance(origin: [f64; 3], dir: [f64; 3], center: [f64; 3], radius: f64) -> f64 {
        let d = normalize(dir);
        let (b, disc) = quadratic(origin, d, center, radius);
        if disc < 0.0 {
            return f64::INFINITY;
        }
        let root = disc.sqrt();
        let near = -b - root;
        let far = -b + root;
        let which = if near > f64::EPSILON {
            0
        } else if far > f64::EPSILON {
            1
        } else {
            2
        };
        match which {
            0 => near,
            1 => far,
            _ => f64::INFINITY,
        }
    }

    fn by_hand(x: &[f64]) -> f64 {
        let n = (x[3] * x[3] + x[4] * x[4] + x[5] * x[5]).sqrt();
        let d = [x[3] / n, x[4] / n, x[5] / n];
        let oc = [x[0] - x[6], x[1] - x[7], x[2] - x[8]];
        let b = oc[0] * d[0] + oc[1] * d[1] + oc[2] * d[2];
        let c = oc[0] * oc[0] + oc[1] * oc[1] + oc[2] * oc[2] - x[9] * x[9];
        let disc = b * b - c;
        let near = -b - disc.sqrt();
        if near > 0.0 {
            near
        } else {
            -b + disc.sqrt()
        }
    }

    fn split(x: &[f64]) -> ([f64; 3], [f64; 3], [f64; 3], f64) {
        (
            [x[0], x[1], x[2]],
            [x[3], x[4], x[5]],
            [x[6], x[7], x[8]],
            x[9],
        )
    }

    fn flat(g: ([f64; 3], [f64; 3], [f64; 3], f64)) -> Vec<f64> {
        [g.0.to_vec(), g.1.to_vec(), g.2.to_vec(), vec![g.3]].concat()
    }

    #[test]
    fn hit_distance_at_order_2() {
        // Rays from around (0, 0, -5) towards a sphere around the origin (outside hits), and rays from
        // inside the sphere (the far root).
        for (n, p) in points(4131, 10, 16, -0.2, 0.2).into_iter().enumerate() {
            let inside = n % 2 == 1;
            let x: Vec<f64> = vec![
                p[0],
                p[1],
                if inside { p[2] } else { -5.0 + p[2] },
                p[3],
                p[4],
                1.0 + p[5],
                p[6],
                p[7],
                p[8],
                1.5 + p[9],
            ];
            let (o, d, c, r) = split(&x);
            assert_close(hit_distance(o, d, c, r), by_hand(&x), 1e-12, "hit_distance");
            let (g, h) = check2(
                "hit_distance",
                &x,
                by_hand,
                |q| {
                    let (o, d, c, r) = split(q);
                    let (v, g) = hit_distance_grad(o, d, c, r);
                    (v, flat(g))
                },
                |q| {
                    let (o, d, c, r) = split(q);
                    let (v, g, h) = hit_distance_hessian(o, d, c, r);
                    (v, flat(g), h)
                },
            );
            // By hand: d t / d r = r / sqrt(disc) (near root: -(-r)/root... with sign), and the
            // distance does not change when the direction is scaled: g_dir · dir = 0.
            let (b, disc) = quadratic(o, normalize(d), c, r);
            let expected = if inside {
                r / disc.sqrt()
            } else {
                -r / disc.sqrt()
            };
            let _ = b;
            assert_close(g[9], expected, 1e-12, "d t / d radius");
            assert!(dot(&g[3..6], &d).abs() < 1e-12, "scale invariance in dir");
            // Translating origin and centre together leaves t unchanged: g_o + g_c = 0.
            for k in 0..3 {
                assert!((g[k] + g[6 + k]).abs() < 1e-12, "translation invariance");
            }
            let v: Vec<f64> = (0..10).map(|i| (1.3 * i as f64).sin()).collect();
            let (vo, vd, vc, vr) = split(&v);
            let (_, hg, hv) = hit_distance_hvp(o, d, c, r, (vo, vd, vc, vr));
            check_hvp("hit_distance", &h, &g, &v, (flat(hg), flat(hv)));
            let mut buf = ([0.0; 3], [0.0; 3], [0.0; 3], 0.0);
            hit_distance_grad_into(o, d, c, r, (&mut buf.0, &mut buf.1, &mut buf.2, &mut buf.3));
            assert_eq!(bits(&flat(buf)), bits(&g));
        }
    }

    #[test]
    fn a_miss_is_infinite_with_zero_gradient() {
        let (v, g) = hit_distance_grad([0.0, 5.0, -5.0], [0.0, 0.0, 1.0], [0.0; 3], 1.0);
        assert_eq!(v, f64::INFINITY);
        assert_eq!(flat(g), vec![0.0; 10]);
    }

    #[test]
    fn normalize_against_its_closed_form() {
        for p in points(4132, 3, 10, -1.0, 1.0) {
            let v = [p[0], p[1], p[2] + 2.0];
            let j = normalize_jacobian(v);
            let n = dot(&v, &v).sqrt();
            for a in 0..3 {
                for b in 0..3 {
                    let delta = if a == b { 1.0 } else { 0.0 };
                    let expected = (delta - v[a] * v[b] / (n * n)) / n;
                    assert_close(j[a][b], expected, 1e-14, "d normalize");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) Curves: a polynomial by Horner's rule (`.iter().rev().fold`), a Bézier curve by de Casteljau's
// recursion, control points as a flat slice read by `chunks_exact(2)`, a tension chosen by a `match` on
// an integer with ranges, a local closure, a nested `fn`, and a `loop` with `break` of a value (a
// bisection for the parameter where the curve crosses a level).

mod curves {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn horner(c: &[f64], x: f64) -> f64 {
        c.iter().rev().fold(0.0_f64, |acc, &ci| acc.mul_add(x, ci))
    }

    #[differentiable(wrt(x), order = 3)]
    pub fn horner_at(c: &[f64], x: f64) -> f64 {
        horner(c, x)
    }

    /// De Casteljau's recursion on the first `n` values of `p`.
    #[differentiable]
    pub fn casteljau(p: &[f64], n: usize, t: f64) -> f64 {
        if n == 1 {
            return p[0];
        }
        let mut q = vec![0.0; n - 1];
        for i in 0..n - 1 {
            q[i] = (1.0 - t) * p[i] + t * p[i + 1];
        }
        casteljau(&q, n - 1, t)
    }

    /// The polyline's length through 2-D points given flat, each segment's tension by its index.
    #[differentiable(order = 2)]
    pub fn weighted_polyline(pts: &[f64]) -> f64 {
        fn tension(i: usize) -> f64 {
            match i {
                0 => 1.0,
                1..=2 => 0.5,
                _ => 0.25,
            }
        }
        let sq = |v: f64| v * v;
        let mut length = 0.0;
        let mut prev = [pts[0], pts[1]];
        for (i, p) in pts.chunks_exact(2).enumerate().skip(1) {
            length += tension(i) * (sq(p[0] - prev[0]) + sq(p[1] - prev[1])).sqrt();
            prev = [p[0], p[1]];
        }
        length
    }

    /// The parameter where the Bézier curve through `p` crosses `level`, by bisection: differentiable
    /// in `p` and `level` through the last midpoint (piecewise constant: zero gradient), and its value
    /// tested against the root.
    #[differentiable(wrt(p, level))]
    pub fn crossing(p: &[f64], level: f64) -> f64 {
        let (mut lo, mut hi) = (0.0, 1.0);
        let mut steps = 0;
        let t = loop {
            let mid = 0.5 * (lo + hi);
            if steps == 50 {
                break mid;
            }
            if casteljau(p, p.len(), mid) < level {
                lo = mid;
            } else {
                hi = mid;
            }
            steps += 1;
        };
        t.clamp(0.0, 1.0)
    }

    /// The curve's value at its crossing's parameter, `level` again: its gradient in `level` is zero
    /// through `t` (piecewise constant) and one through... nothing: the value `casteljau(p, t)` depends on
    /// `p` directly.
    #[differentiable(wrt(p))]
    pub fn value_at_crossing(p: &[f64], level: f64) -> f64 {
        let t = crossing(p, level);
        casteljau(p, p.len(), t)
    }

    fn bernstein(n: usize, i: usize, t: f64) -> f64 {
        let mut binom = 1.0;
        for k in 0..i {
            binom = binom * (n - k) as f64 / (k + 1) as f64;
        }
        binom * t.powi(i as i32) * (1.0 - t).powi((n - i) as i32)
    }

    #[test]
    fn horner_against_its_powers() {
        let c = [1.0, -2.0, 0.5, 3.0, -0.25];
        for p in points(4151, 1, 10, -2.0, 2.0) {
            let x = p[0];
            let d = horner_at_derivatives(&c, x);
            let f = |x: f64| {
                c.iter()
                    .enumerate()
                    .map(|(k, ck)| ck * x.powi(k as i32))
                    .sum::<f64>()
            };
            let f1 = |x: f64| {
                (1..5)
                    .map(|k| k as f64 * c[k] * x.powi(k as i32 - 1))
                    .sum::<f64>()
            };
            let f2 = |x: f64| {
                (2..5)
                    .map(|k| (k * (k - 1)) as f64 * c[k] * x.powi(k as i32 - 2))
                    .sum::<f64>()
            };
            let f3 = 6.0 * c[3] + 24.0 * c[4] * x;
            assert_close(d[0], f(x), 1e-13, "horner");
            assert_eq!(d[0], horner_at(&c, x));
            assert_close(d[1], f1(x), 1e-13, "horner'");
            assert_close(d[2], f2(x), 1e-13, "horner''");
            assert_close(d[3], f3, 1e-13, "horner'''");
            // In the coefficients: the powers of x.
            let (_, (gc, gx)) = horner_grad(&c, x);
            let powers: Vec<f64> = (0..5).map(|k| x.powi(k)).collect();
            assert_all_close(&gc, &powers, 1e-14, "d horner / d c");
            assert_close(gx, f1(x), 1e-13, "d horner / d x");
            let mut flat = c.to_vec();
            flat.push(x);
            check2(
                "horner",
                &flat,
                |q| horner(&q[..5], q[5]),
                |q| {
                    let (v, (gc, gx)) = horner_grad(&q[..5], q[5]);
                    (v, [gc, vec![gx]].concat())
                },
                |q| {
                    let (v, (gc, gx), h) = horner_hessian(&q[..5], q[5]);
                    (v, [gc, vec![gx]].concat(), h)
                },
            );
        }
    }

    #[test]
    fn casteljau_against_bernstein() {
        let p = [0.0, 1.5, -0.5, 2.0, 1.0];
        for q in points(4152, 1, 10, 0.0, 1.0) {
            let t = q[0];
            let (v, (gp, gt)) = casteljau_grad(&p, 5, t);
            let by_bernstein: f64 = (0..5).map(|i| bernstein(4, i, t) * p[i]).sum();
            assert_close(v, by_bernstein, 1e-14, "casteljau");
            let weights: Vec<f64> = (0..5).map(|i| bernstein(4, i, t)).collect();
            assert_all_close(&gp, &weights, 1e-14, "d casteljau / d p");
            // The hodograph: 4 Σ (p[i+1] - p[i]) B_{3,i}(t).
            let hodograph: f64 = (0..4)
                .map(|i| 4.0 * (p[i + 1] - p[i]) * bernstein(3, i, t))
                .sum();
            assert_close(gt, hodograph, 1e-13, "d casteljau / d t");
            let (_, jt) = casteljau_jvp(&p, 5, t, (vec![1.0, 0.0, 0.0, 0.0, 2.0], 0.5));
            assert_close(
                jt,
                weights[0] + 2.0 * weights[4] + 0.5 * hodograph,
                1e-13,
                "casteljau_jvp",
            );
        }
    }

    #[test]
    fn polyline_at_order_2() {
        for p in points(4153, 10, 10, -1.0, 1.0) {
            let plain = |q: &[f64]| {
                let t = [1.0, 0.5, 0.5, 0.25, 0.25];
                (1..5)
                    .map(|i| t[i] * (q[2 * i] - q[2 * i - 2]).hypot(q[2 * i + 1] - q[2 * i - 1]))
                    .sum::<f64>()
            };
            let (g, h) = check2(
                "weighted_polyline",
                &p,
                plain,
                weighted_polyline_grad,
                weighted_polyline_hessian,
            );
            assert_eq!(weighted_polyline(&p), weighted_polyline_grad(&p).0);
            let v: Vec<f64> = (0..10).map(|i| (i as f64 * 0.37).cos()).collect();
            let (_, hg, hv) = weighted_polyline_hvp(&p, v.clone());
            check_hvp("weighted_polyline", &h, &g, &v, (hg, hv));
        }
    }

    #[test]
    fn bisection_and_value_at_crossing() {
        // A monotone curve from -1 to 2.
        let p = [-1.0, 0.0, 0.5, 2.0];
        for level in [-0.5, 0.0, 0.7, 1.5] {
            let (t, (gp, gl)) = crossing_grad(&p, level);
            assert!((casteljau(&p, 4, t) - level).abs() < 1e-12, "the root");
            assert_eq!(t, crossing(&p, level));
            // Bisection is piecewise constant: its gradient is zero, as jax.grad of it reports.
            assert_eq!((gp, gl), (vec![0.0; 4], 0.0));
            // So the value at the crossing is differentiated in `p` at fixed t: the Bernstein weights.
            let (v, gp) = value_at_crossing_grad(&p, level);
            assert_close(v, level, 1e-12, "value at crossing");
            assert_eq!(v, value_at_crossing(&p, level));
            let weights: Vec<f64> = (0..4).map(|i| bernstein(3, i, t)).collect();
            assert_all_close(&gp, &weights, 1e-14, "d value_at_crossing / d p");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (16) A generic exponential-smoothing filter in `impl<T: Float>`: methods with `wrt(self)`, the same
// code run at `f32`, and at `Dual<f64>` for a directional derivative of the whole loss; an associated
// constant; and a loss over a series at `order = 2`.

mod smoothing {
    use super::*;
    use autodiff::{differentiable, Differentiable, Dual, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Smoother<T: Float> {
        pub alpha: T,
        pub beta: T,
        #[no_grad]
        pub warmup: usize,
    }

    impl<T: Float> Smoother<T> {
        /// Holt's linear trend method: level and trend after the series, one step-ahead errors summed.
        #[differentiable(wrt(self), order = 2)]
        pub fn sse(&self, ys: &[T]) -> T {
            let mut level = ys[0];
            let mut trend = ys[1] - ys[0];
            let mut total = T::zero();
            for (i, &y) in ys.iter().enumerate().skip(1) {
                let forecast = level + trend;
                if i > self.warmup {
                    total = total + (y - forecast) * (y - forecast);
                }
                let new_level = self.alpha * y + (T::one() - self.alpha) * forecast;
                trend = self.beta * (new_level - level) + (T::one() - self.beta) * trend;
                level = new_level;
            }
            total
        }

        #[differentiable(wrt(self))]
        pub fn rmse(&self, ys: &[T]) -> T {
            let n = T::from(ys.len() - 1 - self.warmup).unwrap();
            (self.sse(ys) / n).sqrt()
        }
    }

    const YS: [f64; 10] = [1.0, 1.4, 1.9, 2.1, 2.8, 3.3, 3.2, 3.9, 4.6, 4.8];

    fn plain(a: f64, b: f64) -> f64 {
        let (mut level, mut trend, mut total) = (YS[0], YS[1] - YS[0], 0.0);
        for i in 1..10 {
            let f = level + trend;
            if i > 1 {
                total += (YS[i] - f).powi(2);
            }
            let nl = a * YS[i] + (1.0 - a) * f;
            trend = b * (nl - level) + (1.0 - b) * trend;
            level = nl;
        }
        total
    }

    #[test]
    fn sse_at_order_2_and_f32_and_dual() {
        for p in points(4161, 2, 10, 0.05, 0.95) {
            let s = Smoother {
                alpha: p[0],
                beta: p[1],
                warmup: 1,
            };
            assert_close(s.sse(&YS), plain(p[0], p[1]), 1e-13, "sse");
            let (g, h) = check2(
                "sse",
                &p,
                |q| plain(q[0], q[1]),
                |q| {
                    let s = Smoother {
                        alpha: q[0],
                        beta: q[1],
                        warmup: 1,
                    };
                    let (v, g) = s.sse_grad(&YS);
                    assert_eq!(g.warmup, 1);
                    (v, vec![g.alpha, g.beta])
                },
                |q| {
                    let s = Smoother {
                        alpha: q[0],
                        beta: q[1],
                        warmup: 1,
                    };
                    let (v, g, h) = s.sse_hessian(&YS);
                    (v, vec![g.alpha, g.beta], h)
                },
            );
            let v = Smoother {
                alpha: 1.0,
                beta: -0.5,
                warmup: 1,
            };
            let (_, hg, hv) = s.sse_hvp(&YS, v);
            check_hvp("sse", &h, &g, &[1.0, -0.5], (hg.to_flat(), hv.to_flat()));
            // At f32: the same gradient to f32's precision.
            let s32 = Smoother {
                alpha: p[0] as f32,
                beta: p[1] as f32,
                warmup: 1,
            };
            let ys32: Vec<f32> = YS.iter().map(|&y| y as f32).collect();
            let (v32, g32) = s32.sse_grad(&ys32);
            assert_close(f64::from(v32), plain(p[0], p[1]), 1e-4, "sse at f32");
            assert_close(f64::from(g32.alpha), g[0], 1e-3, "d sse / d alpha at f32");
            // On dual numbers: the directional derivative along (1, -0.5) is g · v.
            let sd = Smoother {
                alpha: Dual::new(p[0], 1.0),
                beta: Dual::new(p[1], -0.5),
                warmup: 1,
            };
            let ysd: Vec<Dual<f64>> = YS.iter().map(|&y| Dual::new(y, 0.0)).collect();
            let d = sd.sse(&ysd);
            assert_close(d.eps, g[0] - 0.5 * g[1], 1e-12, "sse on Dual");
            // rmse = sqrt(sse / 8): its gradient is the chain rule of sse's.
            let (r, gr) = s.rmse_grad(&YS);
            assert_eq!(r, s.rmse(&YS));
            assert_close(r, (plain(p[0], p[1]) / 8.0).sqrt(), 1e-13, "rmse");
            assert_close(gr.alpha, g[0] / (16.0 * r), 1e-12, "d rmse / d alpha");
            assert_close(gr.beta, g[1] / (16.0 * r), 1e-12, "d rmse / d beta");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (17) A small inverse problem across modules: units converted by `crate::` paths, a model in one module
// calling a `super::` helper, fitted by `autodiff::optim::Lbfgs` over the generated `_grad`.

pub mod units {
    use autodiff::differentiable;

    #[differentiable]
    pub fn celsius_to_kelvin(c: f64) -> f64 {
        c + 273.15
    }
}

mod arrhenius {
    use super::*;
    use autodiff::differentiable;

    /// The gas constant, J/(mol K).
    pub const R: f64 = 8.314_462_618;

    #[differentiable]
    pub fn rate(log_a: f64, ea: f64, celsius: f64) -> f64 {
        let t = crate::units::celsius_to_kelvin(celsius);
        (log_a - ea / (R * t)).exp()
    }

    pub mod fit {
        use autodiff::differentiable;

        /// Squared log-residuals of measured rates, parameters `[ln A, Ea / 1e4]`.
        #[differentiable(wrt(theta), order = 2)]
        pub fn misfit(theta: &[f64], temps: &[f64], rates: &[f64]) -> f64 {
            let mut s = 0.0;
            for (&c, &k) in temps.iter().zip(rates.iter()) {
                let model = super::rate(theta[0], 1e4 * theta[1], c);
                s += (model.ln() - k.ln()).powi(2);
            }
            s
        }
    }

    #[test]
    fn lbfgs_recovers_the_parameters() {
        use autodiff::optim::{Lbfgs, Minimizer};
        let temps = [10.0, 25.0, 40.0, 55.0, 70.0, 85.0];
        let (log_a, ea) = (20.0, 5.2e4);
        let rates: Vec<f64> = temps.iter().map(|&c| rate(log_a, ea, c)).collect();
        let minimum = Lbfgs::default().minimize(
            |th: &[f64]| fit::misfit_grad(th, &temps, &rates),
            &[15.0, 3.0],
        );
        assert!(minimum.converged, "{minimum:?}");
        assert_close(minimum.x[0], log_a, 1e-5, "ln A");
        assert_close(minimum.x[1], ea / 1e4, 1e-5, "Ea");
        // The Hessian at the optimum is 2 JᵀJ (zero residuals), J the Jacobian of ln(model) in theta:
        // rows (1, -1e4 / (R T)).
        let (_, _, h) = fit::misfit_hessian(&minimum.x, &temps, &rates);
        let mut expected = [[0.0; 2]; 2];
        for &c in &temps {
            let j = [1.0, -1e4 / (R * (c + 273.15))];
            for a in 0..2 {
                for b in 0..2 {
                    expected[a][b] += 2.0 * j[a] * j[b];
                }
            }
        }
        for a in 0..2 {
            assert_all_close(&h[a], &expected[a], 1e-6, "Gauss-Newton Hessian");
        }
        for p in points(4171, 2, 10, 1.0, 5.0) {
            let th = [10.0 + 3.0 * p[0], p[1]];
            check2(
                "misfit",
                &th,
                |q| fit::misfit(q, &temps, &rates),
                |q| fit::misfit_grad(q, &temps, &rates),
                |q| fit::misfit_hessian(q, &temps, &rates),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (18) A softmax classifier: weights a matrix `&[Vec<f64>]` (one row per class), labels `&[usize]`, a
// log-sum-exp helper with `fold(f64::NEG_INFINITY, f64::max)`, rows iterated with `.iter().enumerate()`;
// the gradient against `(p - onehot) xᵀ` and the Hessian at `order = 2`.

mod softmax {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn logsumexp(z: &[f64]) -> f64 {
        let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
    }

    #[differentiable(wrt(w), order = 2)]
    pub fn nll(w: &[Vec<f64>], xs: &[Vec<f64>], labels: &[usize]) -> f64 {
        let k = w.len();
        let mut total = 0.0;
        let mut z = vec![0.0; k];
        for (x, &label) in xs.iter().zip(labels) {
            for (c, row) in w.iter().enumerate() {
                z[c] = row.iter().zip(x).map(|(a, b)| a * b).sum();
            }
            total += logsumexp(&z) - z[label];
        }
        total / xs.len() as f64
    }

    fn rows(q: &[f64]) -> Vec<Vec<f64>> {
        q.chunks(3).map(|r| r.to_vec()).collect()
    }

    #[test]
    fn nll_against_closed_forms() {
        let mut r = Inputs(4181);
        let xs: Vec<Vec<f64>> = (0..8).map(|_| r.vec(3)).collect();
        let labels = [0usize, 2, 1, 1, 0, 2, 2, 1];
        for q in points(4182, 9, 10, -1.5, 1.5) {
            let w = rows(&q);
            let (v, g) = nll_grad(&w, &xs, &labels);
            assert_eq!(v, nll(&w, &xs, &labels));
            let mut expected = vec![vec![0.0; 3]; 3];
            let mut value = 0.0;
            for (x, &label) in xs.iter().zip(&labels) {
                let z: Vec<f64> = w.iter().map(|row| dot(row, x)).collect();
                let s: f64 = z.iter().map(|v| v.exp()).sum();
                value += s.ln() - z[label];
                for c in 0..3 {
                    let p = z[c].exp() / s - f64::from(u8::from(c == label));
                    for j in 0..3 {
                        expected[c][j] += p * x[j] / 8.0;
                    }
                }
            }
            assert_close(v, value / 8.0, 1e-13, "nll");
            for c in 0..3 {
                assert_all_close(&g[c], &expected[c], 1e-13, "nll gradient");
            }
            let (gf, h) = check2(
                "softmax nll",
                &q,
                |p| nll(&rows(p), &xs, &labels),
                |p| {
                    let (v, g) = nll_grad(&rows(p), &xs, &labels);
                    (v, g.concat())
                },
                |p| {
                    let (v, g, h) = nll_hessian(&rows(p), &xs, &labels);
                    (v, g.concat(), h)
                },
            );
            // Softmax is invariant to adding one vector to every row: H (u, u, u) = 0.
            let u: Vec<f64> = [0.3, -1.0, 0.5].repeat(3);
            let hu = times(&h, &u);
            assert!(hu.iter().all(|v| v.abs() < 1e-12), "{hu:?}");
            let v: Vec<f64> = (0..9).map(|i| (0.7 * i as f64).sin()).collect();
            let (_, hg, hv) = nll_hvp(&w, &xs, &labels, rows(&v));
            check_hvp("softmax nll", &h, &gf, &v, (hg.concat(), hv.concat()));
            let mut buf = vec![vec![f64::NAN; 3]; 3];
            nll_grad_into(&w, &xs, &labels, &mut buf);
            assert_eq!(bits(&buf.concat()), bits(&gf));
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (19) Lotka-Volterra parameter fitting: the right-hand side a method writing an output parameter,
// `wrt(self)`; an Euler integrator method calling `self.rhs(&y, &mut dy)`; the misfit at `order = 2`.

mod predator_prey {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Rates {
        pub birth: f64,
        pub predation: f64,
        pub growth: f64,
        pub death: f64,
    }

    impl Rates {
        #[differentiable(wrt(self, y))]
        pub fn rhs(&self, y: &[f64], dy: &mut [f64]) {
            dy[0] = y[0] * (self.birth - self.predation * y[1]);
            dy[1] = y[1] * (self.growth * y[0] - self.death);
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn misfit(&self, y0: &[f64], obs: &[f64], h: f64) -> f64 {
            let mut y = vec![y0[0], y0[1]];
            let mut dy = vec![0.0; 2];
            let mut s = 0.0;
            for o in obs.chunks_exact(2) {
                self.rhs(&y, &mut dy);
                y[0] += h * dy[0];
                y[1] += h * dy[1];
                s += (y[0] - o[0]).powi(2) + (y[1] - o[1]).powi(2);
            }
            s
        }
    }

    fn plain(r: &[f64], y0: &[f64], obs: &[f64], h: f64) -> f64 {
        let (mut a, mut b) = (y0[0], y0[1]);
        let mut s = 0.0;
        for o in obs.chunks(2) {
            let da = a * (r[0] - r[1] * b);
            let db = b * (r[2] * a - r[3]);
            a += h * da;
            b += h * db;
            s += (a - o[0]).powi(2) + (b - o[1]).powi(2);
        }
        s
    }

    #[test]
    fn rhs_derivatives() {
        for p in points(4191, 6, 10, 0.2, 1.5) {
            let r = Rates {
                birth: p[0],
                predation: p[1],
                growth: p[2],
                death: p[3],
            };
            let y = [p[4], p[5]];
            let mut dy = [0.0; 2];
            let j = r.rhs_jacobian(&y, &mut dy);
            // Columns: the four rates, then y.
            let expected = [
                [
                    y[0],
                    -y[0] * y[1],
                    0.0,
                    0.0,
                    p[0] - p[1] * y[1],
                    -p[1] * y[0],
                ],
                [
                    0.0,
                    0.0,
                    y[0] * y[1],
                    -y[1],
                    p[2] * y[1],
                    p[2] * y[0] - p[3],
                ],
            ];
            for i in 0..2 {
                assert_all_close(&j[i], &expected[i], 1e-14, "rhs jacobian");
            }
            let c = [0.7, -1.2];
            let (gr, gy) = r.rhs_vjp(&y, &mut dy, &c);
            let cj: Vec<f64> = (0..6)
                .map(|k| c[0] * expected[0][k] + c[1] * expected[1][k])
                .collect();
            assert_all_close(&[gr.to_flat(), gy].concat(), &cj, 1e-14, "rhs_vjp");
            let t = [0.1, 0.2, -0.3, 0.4, 1.0, -1.0];
            let mut jt = [0.0; 2];
            r.rhs_jvp(
                &y,
                &mut dy,
                (r.from_flat(&t[..4]), t[4..].to_vec()),
                &mut jt,
            );
            check_dual("rhs", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn misfit_at_order_2() {
        let y0 = [1.0, 0.5];
        let truth = [1.1, 0.4, 0.6, 0.9];
        let mut obs = vec![];
        let (mut a, mut b) = (y0[0], y0[1]);
        for _ in 0..12 {
            let (da, db) = (a * (truth[0] - truth[1] * b), b * (truth[2] * a - truth[3]));
            a += 0.1 * da;
            b += 0.1 * db;
            obs.extend([a + 0.01, b - 0.01]);
        }
        for p in points(4192, 4, 10, 0.3, 1.3) {
            let r = Rates {
                birth: p[0],
                predation: p[1],
                growth: p[2],
                death: p[3],
            };
            assert_close(
                r.misfit(&y0, &obs, 0.1),
                plain(&p, &y0, &obs, 0.1),
                1e-13,
                "misfit",
            );
            let (g, h) = check2(
                "misfit",
                &p,
                |q| plain(q, &y0, &obs, 0.1),
                |q| {
                    let (v, g) = r.from_flat(q).misfit_grad(&y0, &obs, 0.1);
                    (v, g.to_flat())
                },
                |q| {
                    let (v, g, h) = r.from_flat(q).misfit_hessian(&y0, &obs, 0.1);
                    (v, g.to_flat(), h)
                },
            );
            let v = [0.5, -1.0, 0.25, 2.0];
            let (_, hg, hv) = r.misfit_hvp(&y0, &obs, 0.1, r.from_flat(&v));
            check_hvp("misfit", &h, &g, &v, (hg.to_flat(), hv.to_flat()));
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (20) A robot with nested `Differentiable` structs (joints with array fields) passed field by field to
// a free function with `wrt(j)`, a `const` in the body, and the cost at `order = 2` over every field.

mod robot {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Joint {
        pub axis: [f64; 3],
        pub offset: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Robot {
        pub base: Joint,
        pub arm: Joint,
        pub weights: Vec<f64>,
        #[no_grad]
        pub label: usize,
    }

    #[differentiable(wrt(j))]
    pub fn joint_cost(j: &Joint, x: f64) -> f64 {
        j.axis.iter().map(|a| a * a).sum::<f64>() * x + j.offset
    }

    impl Robot {
        #[differentiable(wrt(self), order = 2)]
        pub fn cost(&self, x: &[f64]) -> f64 {
            const SCALE: f64 = 0.5;
            let mut s = joint_cost(&self.base, x[0]) + joint_cost(&self.arm, x[1]);
            for (w, xi) in self.weights.iter().zip(x) {
                s += SCALE * w * xi * xi;
            }
            s.powi(2)
        }
    }

    fn plain(q: &[f64], x: &[f64]) -> f64 {
        let base = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) * x[0] + q[3];
        let arm = (q[4] * q[4] + q[5] * q[5] + q[6] * q[6]) * x[1] + q[7];
        (base + arm + 0.5 * (q[8] * x[0] * x[0] + q[9] * x[1] * x[1])).powi(2)
    }

    #[test]
    fn cost_over_nested_fields() {
        let x = [0.7, -1.1];
        for q in points(4201, 10, 10, -1.0, 1.0) {
            let r = Robot {
                base: Joint {
                    axis: [q[0], q[1], q[2]],
                    offset: q[3],
                },
                arm: Joint {
                    axis: [q[4], q[5], q[6]],
                    offset: q[7],
                },
                weights: vec![q[8], q[9]],
                label: 7,
            };
            assert_eq!(r.to_flat(), q, "the flat view in declaration order");
            assert_close(r.cost(&x), plain(&q, &x), 1e-14, "cost");
            let (g, h) = check2(
                "robot cost",
                &q,
                |p| plain(p, &x),
                |p| {
                    let (v, g) = r.from_flat(p).cost_grad(&x);
                    assert_eq!(g.label, 7);
                    (v, g.to_flat())
                },
                |p| {
                    let (v, g, h) = r.from_flat(p).cost_hessian(&x);
                    (v, g.to_flat(), h)
                },
            );
            let v: Vec<f64> = (0..10).map(|i| 1.0 / (1.0 + i as f64)).collect();
            let (_, hg, hv) = r.cost_hvp(&x, r.from_flat(&v));
            check_hvp("robot cost", &h, &g, &v, (hg.to_flat(), hv.to_flat()));
            let (jv, jg) = joint_cost_grad(&r.base, x[0]);
            assert_eq!(jv, joint_cost(&r.base, x[0]));
            assert_all_close(
                &jg.to_flat(),
                &[2.0 * q[0] * x[0], 2.0 * q[1] * x[0], 2.0 * q[2] * x[0], 1.0],
                1e-15,
                "joint_cost gradient",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (21) Signal smoothing: a moving average by `windows(k)` into a `Vec`, sub-slices `&x[a..]` passed to
// a helper, a total-variation penalty over `x[1..].iter().zip(x)`, at `order = 2`; and an `f32` version.

mod signal {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn moving_average(x: &[f64], k: usize) -> Vec<f64> {
        let mut out = Vec::with_capacity(x.len() - k + 1);
        for w in x.windows(k) {
            out.push(w.iter().sum::<f64>() / k as f64);
        }
        out
    }

    #[differentiable]
    pub fn smooth_abs(v: f64, eps: f64) -> f64 {
        (v * v + eps * eps).sqrt() - eps
    }

    #[differentiable]
    pub fn total_variation(x: &[f64], eps: f64) -> f64 {
        x[1..]
            .iter()
            .zip(x)
            .map(|(b, a)| smooth_abs(b - a, eps))
            .sum()
    }

    #[differentiable(wrt(x), order = 2)]
    pub fn denoise(x: &[f64], noisy: &[f64], lambda: f64) -> f64 {
        let avg = moving_average(x, 3);
        let fit: f64 = avg
            .iter()
            .zip(&noisy[1..])
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        fit + lambda * total_variation(x, 0.1) + 0.01 * total_variation(&x[2..], 0.1)
    }

    #[differentiable(order = 2)]
    pub fn tv32(x: &[f32]) -> f32 {
        let mut s = 0.0f32;
        for i in 1..x.len() {
            let d = x[i] - x[i - 1];
            s += (d * d + 0.01).sqrt();
        }
        s
    }

    fn plain(x: &[f64], noisy: &[f64], lambda: f64) -> f64 {
        let n = x.len();
        let mut fit = 0.0;
        for i in 0..n - 2 {
            let a = (x[i] + x[i + 1] + x[i + 2]) / 3.0;
            fit += (a - noisy[i + 1]).powi(2);
        }
        let tv = |s: &[f64]| {
            s.windows(2)
                .map(|w| ((w[1] - w[0]).powi(2) + 0.01).sqrt() - 0.1)
                .sum::<f64>()
        };
        fit + lambda * tv(x) + 0.01 * tv(&x[2..])
    }

    #[test]
    fn moving_average_weights() {
        let x = [0.5, 1.0, -0.3, 2.0, 0.7, 1.1];
        let j = moving_average_jacobian(&x, 3);
        assert_eq!((j.len(), j[0].len()), (4, 6));
        for (i, row) in j.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                let expected = if (i..i + 3).contains(&c) {
                    1.0 / 3.0
                } else {
                    0.0
                };
                assert_close(*v, expected, 1e-15, "moving average weights");
            }
        }
        let c = [1.0, -2.0, 0.5, 0.25];
        let (v, cj) = moving_average_vjp(&x, 3, c.to_vec());
        assert_eq!(v, moving_average(&x, 3));
        let (_, jt) = moving_average_jvp(&x, 3, vec![1.0; 6]);
        assert_all_close(&jt, &[1.0; 4], 1e-15, "moving average of a constant");
        check_dual("moving_average", &c, &jt, &cj, &[1.0; 6]);
    }

    #[test]
    fn denoise_at_order_2() {
        let noisy = [0.1, 0.9, 1.2, 0.8, 1.9, 2.2, 1.7, 2.8];
        for x in points(4211, 8, 10, -0.5, 2.5) {
            assert_close(
                denoise(&x, &noisy, 0.3),
                plain(&x, &noisy, 0.3),
                1e-13,
                "denoise",
            );
            let (g, h) = check2(
                "denoise",
                &x,
                |q| plain(q, &noisy, 0.3),
                |q| denoise_grad(q, &noisy, 0.3),
                |q| denoise_hessian(q, &noisy, 0.3),
            );
            let v: Vec<f64> = (0..8).map(|i| (i as f64 - 3.5) / 4.0).collect();
            let (_, hg, hv) = denoise_hvp(&x, &noisy, 0.3, v.clone());
            check_hvp("denoise", &h, &g, &v, (hg, hv));
            let mut buf = vec![f64::NAN; 8];
            denoise_grad_into(&x, &noisy, 0.3, &mut buf);
            assert_eq!(bits(&buf), bits(&g));
            // The f32 twin of the penalty agrees to f32 precision.
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let (v32, g32) = tv32_grad(&x32);
            let (v64, g64) = total_variation_grad(&x, 0.1);
            assert_close(f64::from(v32), v64 + 0.1 * 7.0, 1e-5, "tv32");
            for i in 0..8 {
                assert_close(f64::from(g32[i]), g64.0[i], 1e-4, "tv32 gradient");
            }
            let (_, _, h32) = tv32_hessian(&x32);
            assert_eq!(h32.len(), 8);
            assert_eq!(tv32(&x32), v32);
        }
    }
}
