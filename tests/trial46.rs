//! An outside test suite written against API.md alone (session 46), by a user writing small real
//! projects: each module is one project of a few functions calling one another (free functions,
//! `Self::` helpers, methods, `super::` paths), in the idioms numeric Rust is written in. Projects: an
//! American option on a Cox-Ross-Rubinstein tree (backward induction in place, early exercise by
//! `max`), the Levinson-Durbin recursion of an AR model (coefficients updated from their own old
//! values), Romberg integration (a Richardson table filled row by row), Bellman-Ford relaxation over an
//! edge list (a piecewise gradient), SPH densities with a piecewise cubic-spline kernel over const
//! generic particles, bilinear image warping with `floor` as an index and clamped borders, and 2-D
//! linear finite elements on triangles (scatter-add into a global stiffness, the energy at `order = 2`).
//!
//! For each: the value against an independent computation (closed forms where there are some),
//! `_grad` against central differences on seeded points (and by hand where the formula is short),
//! `_grad_into` bit for bit equal to `_grad`, `_vjp` against `_jvp` (`c · (J t) = (c J) · t`) for
//! vector results and outputs, `_jacobian` against differences, and at `order = 2` the Hessian
//! against differences of `_grad` and `_hvp` against the Hessian times `v` (`common::contract::audit`).

// Index loops (also copying between slices) and long argument lists are what the projects are written
// with.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::type_complexity,
    clippy::too_many_arguments
)]

mod common;

use common::contract::{audit, Items};
use common::{
    arr, assert_all_close, assert_close, check_dual, check_jacobian, dot, points, same_bits, wave,
};

// ---------------------------------------------------------------------------------------------------
// (1) An American option on a Cox-Ross-Rubinstein binomial tree: the tree's parameters from a helper
// returning a tuple, the payoff chosen by a `bool`, backward induction overwriting one `Vec` in place
// with early exercise by `max`, at `order = 2` in (spot, volatility, rate). Without dividends an
// American call is never exercised early: its price and delta are the European sums in closed form.

mod american {
    use super::*;
    use autodiff::differentiable;

    /// Up and down factors, the risk-neutral probability of up, and the one-step discount.
    #[differentiable]
    pub fn crr(sigma: f64, r: f64, dt: f64) -> (f64, f64, f64, f64) {
        let u = (sigma * dt.sqrt()).exp();
        let d = u.recip();
        let growth = (r * dt).exp();
        let p = (growth - d) / (u - d);
        (u, d, p, 1.0 / growth)
    }

    #[differentiable]
    pub fn payoff(s: f64, strike: f64, call: bool) -> f64 {
        if call {
            (s - strike).max(0.0)
        } else {
            (strike - s).max(0.0)
        }
    }

    #[differentiable(wrt(s0, sigma, r), order = 2)]
    pub fn price(s0: f64, strike: f64, sigma: f64, r: f64, t: f64, steps: usize, call: bool) -> f64 {
        let dt = t / steps as f64;
        let (u, d, p, disc) = crr(sigma, r, dt);
        let mut values = vec![0.0; steps + 1];
        for j in 0..=steps {
            let s = s0 * u.powi(j as i32) * d.powi((steps - j) as i32);
            values[j] = payoff(s, strike, call);
        }
        for i in (0..steps).rev() {
            for j in 0..=i {
                let cont = disc * (p * values[j + 1] + (1.0 - p) * values[j]);
                let s = s0 * u.powi(j as i32) * d.powi((i - j) as i32);
                values[j] = cont.max(payoff(s, strike, call));
            }
        }
        values[0]
    }

    /// The tree as a full table, each level computed from the next (the oracle of the value).
    fn reference(s0: f64, k: f64, sigma: f64, r: f64, t: f64, n: usize, call: bool) -> f64 {
        let dt = t / n as f64;
        let u = (sigma * dt.sqrt()).exp();
        let d = (-sigma * dt.sqrt()).exp();
        let p = ((r * dt).exp() - d) / (u - d);
        let pay = |s: f64| if call { (s - k).max(0.0) } else { (k - s).max(0.0) };
        let mut level: Vec<f64> = (0..=n)
            .map(|j| pay(s0 * u.powi(j as i32) * d.powi((n - j) as i32)))
            .collect();
        for i in (0..n).rev() {
            level = (0..=i)
                .map(|j| {
                    let hold = (-r * dt).exp() * (p * level[j + 1] + (1.0 - p) * level[j]);
                    hold.max(pay(s0 * u.powi(j as i32) * d.powi((i - j) as i32)))
                })
                .collect();
        }
        level[0]
    }

    /// The European call on the same tree: the binomial sum, and its delta in closed form.
    fn european_call(s0: f64, k: f64, sigma: f64, r: f64, t: f64, n: usize) -> (f64, f64) {
        let dt = t / n as f64;
        let u = (sigma * dt.sqrt()).exp();
        let d = 1.0 / u;
        let p = ((r * dt).exp() - d) / (u - d);
        let (mut value, mut delta) = (0.0, 0.0);
        let mut binom = 1.0;
        for j in 0..=n {
            if j > 0 {
                binom *= (n + 1 - j) as f64 / j as f64;
            }
            let weight = binom * p.powi(j as i32) * (1.0 - p).powi((n - j) as i32);
            let growth = u.powi(j as i32) * d.powi((n - j) as i32);
            if s0 * growth > k {
                value += weight * (s0 * growth - k);
                delta += weight * growth;
            }
        }
        let disc = (-r * t).exp();
        (disc * value, disc * delta)
    }

    fn unit(p: &[f64]) -> [f64; 3] {
        [85.0 + 30.0 * p[0], 0.15 + 0.25 * p[1], 0.01 + 0.05 * p[2]]
    }

    const STEPS: usize = 12;

    #[test]
    fn call_is_european_and_put_is_worth_more() {
        for p in points(4601, 3, 12, 0.0, 1.0) {
            let [s0, sigma, r] = unit(&p);
            let (v, g) = price_grad(s0, 100.0, sigma, r, 1.0, STEPS, true);
            let (euro, delta) = european_call(s0, 100.0, sigma, r, 1.0, STEPS);
            assert_close(v, euro, 1e-12, "american call = european call");
            assert_close(g.0, delta, 1e-11, "american call delta by hand");
            let put = price(s0, 100.0, sigma, r, 1.0, STEPS, false);
            assert_close(
                put,
                reference(s0, 100.0, sigma, r, 1.0, STEPS, false),
                1e-12,
                "american put vs table",
            );
            // Early exercise is worth something: above the European put by parity.
            let euro_put = euro - s0 + 100.0 * (-r).exp();
            assert!(put >= euro_put - 1e-12, "put {put} below european {euro_put}");
        }
    }

    #[test]
    fn put_at_order_2() {
        let pts: Vec<Vec<f64>> = points(4602, 3, 10, 0.0, 1.0)
            .iter()
            .map(|p| unit(p).to_vec())
            .collect();
        for p in &pts {
            let (v, g) = price_grad(p[0], 100.0, p[1], p[2], 1.0, STEPS, false);
            let mut b = (f64::NAN, f64::NAN, f64::NAN);
            let w = price_grad_into(
                p[0], 100.0, p[1], p[2], 1.0, STEPS, false, (&mut b.0, &mut b.1, &mut b.2),
            );
            assert_eq!(w, v);
            same_bits(&[b.0, b.1, b.2], &[g.0, g.1, g.2], "price");
        }
        audit(
            &Items {
                what: "american::price (put)",
                primal: &|x| price(x[0], 100.0, x[1], x[2], 1.0, STEPS, false),
                grad: &|x| {
                    let (v, g) = price_grad(x[0], 100.0, x[1], x[2], 1.0, STEPS, false);
                    (v, vec![g.0, g.1, g.2])
                },
                vjp: &|x, d| {
                    let (v, g) = price_vjp(x[0], 100.0, x[1], x[2], 1.0, STEPS, false, d);
                    (v, vec![g.0, g.1, g.2])
                },
                jvp: &|x, t| {
                    price_jvp(x[0], 100.0, x[1], x[2], 1.0, STEPS, false, (t[0], t[1], t[2]))
                },
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN, f64::NAN);
                    let v = price_grad_into(
                        x[0], 100.0, x[1], x[2], 1.0, STEPS, false, (&mut b.0, &mut b.1, &mut b.2),
                    );
                    (v, vec![b.0, b.1, b.2])
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) =
                        price_hvp(x[0], 100.0, x[1], x[2], 1.0, STEPS, false, (v[0], v[1], v[2]));
                    (f, vec![g.0, g.1, g.2], vec![hv.0, hv.1, hv.2])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = price_hessian(x[0], 100.0, x[1], x[2], 1.0, STEPS, false);
                    (f, vec![g.0, g.1, g.2], h)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn crr_duality() {
        for p in points(4603, 3, 10, 0.0, 1.0) {
            let (sigma, r, dt) = (0.1 + 0.4 * p[0], 0.05 * p[1], 0.01 + 0.2 * p[2]);
            let c = [0.3, -1.1, 0.8, 1.7];
            let t = [0.9, -0.4, 1.3];
            let (v, cj) = crr_vjp(sigma, r, dt, (c[0], c[1], c[2], c[3]));
            let (w, jt) = crr_jvp(sigma, r, dt, (t[0], t[1], t[2]));
            assert_eq!(v, w);
            assert_close(v.0 * v.1, 1.0, 1e-15, "u d = 1");
            check_dual("crr", &c, &[jt.0, jt.1, jt.2, jt.3], &[cj.0, cj.1, cj.2], &t);
            // The discount by hand: d/dr of exp(-r dt) is -dt exp(-r dt).
            let (_, only_disc) = crr_vjp(sigma, r, dt, (0.0, 0.0, 0.0, 1.0));
            assert_close(only_disc.1, -dt * (-r * dt).exp(), 1e-14, "d disc / dr");
            assert_close(only_disc.0, 0.0, 0.0, "d disc / d sigma");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) An AR(p) model by the Levinson-Durbin recursion: the biased autocorrelation over sub-slices, the
// coefficients written into an output slice and updated from their own old values (through a copy),
// the prediction error returned; the one-step prediction loss of a series at `order = 2`.

mod levinson {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn autocorr(x: &[f64], lags: usize) -> Vec<f64> {
        let n = x.len() as f64;
        let mut r = vec![0.0; lags + 1];
        for k in 0..=lags {
            r[k] = x[k..].iter().zip(x.iter()).map(|(a, b)| a * b).sum::<f64>() / n;
        }
        r
    }

    /// Solves the Yule-Walker equations `sum_j a[j] r[|i - j|] = r[i + 1]` into `a`; returns the
    /// innovation variance.
    #[differentiable]
    pub fn durbin(r: &[f64], a: &mut [f64]) -> f64 {
        let p = a.len();
        for i in 0..p {
            a[i] = 0.0;
        }
        let mut err = r[0];
        let mut old = vec![0.0; p];
        for m in 0..p {
            let mut acc = r[m + 1];
            for j in 0..m {
                acc -= a[j] * r[m - j];
            }
            let k = acc / err;
            for j in 0..m {
                old[j] = a[j];
            }
            for j in 0..m {
                a[j] = old[j] - k * old[m - 1 - j];
            }
            a[m] = k;
            err *= 1.0 - k * k;
        }
        err
    }

    /// The mean squared one-step prediction error of the series under its own fitted AR(p) model.
    #[differentiable(order = 2)]
    pub fn prediction_loss(x: &[f64], p: usize) -> f64 {
        let r = autocorr(x, p);
        let mut a = vec![0.0; p];
        let _ = durbin(&r, &mut a);
        let mut loss = 0.0;
        for t in p..x.len() {
            let mut pred = 0.0;
            for (j, &aj) in a.iter().enumerate() {
                pred += aj * x[t - 1 - j];
            }
            loss += (x[t] - pred).powi(2);
        }
        loss / (x.len() - p) as f64
    }

    /// Yule-Walker by Gaussian elimination on the Toeplitz matrix (the oracle).
    fn yule_walker(r: &[f64], p: usize) -> (Vec<f64>, f64) {
        let mut m: Vec<Vec<f64>> = (0..p)
            .map(|i| {
                let mut row: Vec<f64> = (0..p).map(|j| r[i.abs_diff(j)]).collect();
                row.push(r[i + 1]);
                row
            })
            .collect();
        for c in 0..p {
            for i in c + 1..p {
                let f = m[i][c] / m[c][c];
                for j in c..=p {
                    m[i][j] -= f * m[c][j];
                }
            }
        }
        let mut a = vec![0.0; p];
        for i in (0..p).rev() {
            let s: f64 = (i + 1..p).map(|j| m[i][j] * a[j]).sum();
            a[i] = (m[i][p] - s) / m[i][i];
        }
        let err = r[0] - (0..p).map(|j| a[j] * r[j + 1]).sum::<f64>();
        (a, err)
    }

    fn series(seed: u64) -> Vec<f64> {
        let e = points(seed, 12, 1, -1.0, 1.0).remove(0);
        let mut x = vec![0.0; 12];
        for t in 0..12 {
            x[t] = e[t] + if t > 0 { 0.6 * x[t - 1] } else { 0.0 };
        }
        x
    }

    #[test]
    fn durbin_against_yule_walker_and_duality() {
        for seed in 0..10 {
            let x = series(4610 + seed);
            let r = autocorr(&x, 3);
            let mut a = vec![f64::NAN; 3];
            let err = durbin(&r, &mut a);
            let (a2, err2) = yule_walker(&r, 3);
            assert_all_close(&a, &a2, 1e-12, "durbin coefficients");
            assert_close(err, err2, 1e-12, "durbin error");
            let c = wave(3, 0.4);
            let t = wave(4, 1.1);
            let mut o1 = vec![0.0; 3];
            let (v, cj) = durbin_vjp(&r, &mut o1, 0.7, &c);
            assert_eq!(v, err);
            assert_eq!(o1, a);
            let mut o2 = vec![0.0; 3];
            let mut jt = vec![f64::NAN; 3];
            let (w, dw) = durbin_jvp(&r, &mut o2, t.clone(), &mut jt);
            assert_eq!(w, err);
            assert_eq!(o2, a);
            let mut cc = vec![0.7];
            cc.extend_from_slice(&c);
            let mut jtt = vec![dw];
            jtt.extend_from_slice(&jt);
            check_dual("durbin", &cc, &jtt, &cj, &t);
            // The outputs' Jacobian by differences of the oracle.
            let fd = common::fd_jacobian(
                |q| {
                    let (a, e) = yule_walker(q, 3);
                    let mut out = vec![e];
                    out.extend(a);
                    out
                },
                &r,
            );
            let rows = fd.iter().map(|row| dot(row, &t)).collect::<Vec<f64>>();
            assert_all_close(&jtt, &rows, 1e-6, "durbin jvp vs differences");
        }
    }

    #[test]
    fn autocorr_jacobian_by_hand() {
        for seed in 0..10 {
            let x = series(4620 + seed);
            let j = autocorr_jacobian(&x, 4);
            assert_eq!((j.len(), j[0].len()), (5, 12));
            check_jacobian("autocorr", &x, &j, |q| autocorr(q, 4));
            // d r[k] / d x[i] = (x[i + k] + x[i - k]) / n, by hand.
            for k in 0..5 {
                for i in 0..12 {
                    let up = if i + k < 12 { x[i + k] } else { 0.0 };
                    let down = if i >= k { x[i - k] } else { 0.0 };
                    assert_close(j[k][i], (up + down) / 12.0, 1e-14, "autocorr by hand");
                }
            }
        }
    }

    #[test]
    fn prediction_loss_at_order_2() {
        let pts: Vec<Vec<f64>> = (0..10).map(|s| series(4630 + s)).collect();
        for x in &pts {
            let (v, g) = prediction_loss_grad(x, 2);
            let mut b = vec![f64::NAN; 12];
            assert_eq!(prediction_loss_grad_into(x, 2, &mut b), v);
            same_bits(&b, &g, "prediction_loss");
        }
        audit(
            &Items {
                what: "levinson::prediction_loss",
                primal: &|x| prediction_loss(x, 2),
                grad: &|x| prediction_loss_grad(x, 2),
                vjp: &|x, d| prediction_loss_vjp(x, 2, d),
                jvp: &|x, t| prediction_loss_jvp(x, 2, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![f64::NAN; x.len()];
                    let v = prediction_loss_grad_into(x, 2, &mut b);
                    (v, b)
                },
                hvp: Some(&|x, v| prediction_loss_hvp(x, 2, v.to_vec())),
                hessian: Some(&|x| prediction_loss_hessian(x, 2)),
                analytic: None,
            },
            &pts,
        );
    }
}
