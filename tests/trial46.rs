//! An outside test suite written against API.md alone (session 46), by a user writing small real
//! projects: each module is one project of a few functions calling one another (free functions,
//! `Self::` helpers, methods, `super::` paths), in the idioms numeric Rust is written in. Projects: an
//! American option on a Cox-Ross-Rubinstein tree (backward induction in place, early exercise by
//! `max`), the Levinson-Durbin recursion of an AR model (coefficients updated from their own old
//! values), Romberg integration (a Richardson table filled row by row), Bellman-Ford relaxation over an
//! edge list (a piecewise gradient), SPH densities with a piecewise cubic-spline kernel over const
//! generic particles, bilinear image warping with `floor` as an index and clamped borders, 2-D linear
//! finite elements on triangles (scatter-add into a global stiffness, the energy at `order = 2`), an
//! InfoNCE contrastive loss, a linear-chain CRF struct, a Gauss-Hermite expectation of a custom
//! softplus at `order = 3`, a golden-section line search feeding a loss, barycentric Lagrange
//! interpolation, a two-layer GNN over a CSR graph, kernel ridge regression, a Peng-Robinson fugacity
//! by Newton, a TD loss with a stopped target and a registered Huber, a Newton root polish generic over
//! `Float`, a Pacejka tyre struct with a nested struct field, a recursive matrix power, a leave-one-out
//! kernel smoother at `order = 3`, an in-place EMA/detrend pipeline, `f32` tone mapping, a mixture
//! struct with a two-input custom `logaddexp` at `order = 3`, and a sparse Rayleigh quotient over
//! `(usize, usize, f64)` tuples.
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
    pub fn price(
        s0: f64,
        strike: f64,
        sigma: f64,
        r: f64,
        t: f64,
        steps: usize,
        call: bool,
    ) -> f64 {
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
        let pay = |s: f64| {
            if call {
                (s - k).max(0.0)
            } else {
                (k - s).max(0.0)
            }
        };
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
            assert!(
                put >= euro_put - 1e-12,
                "put {put} below european {euro_put}"
            );
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
                p[0],
                100.0,
                p[1],
                p[2],
                1.0,
                STEPS,
                false,
                (&mut b.0, &mut b.1, &mut b.2),
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
                    price_jvp(
                        x[0],
                        100.0,
                        x[1],
                        x[2],
                        1.0,
                        STEPS,
                        false,
                        (t[0], t[1], t[2]),
                    )
                },
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN, f64::NAN);
                    let v = price_grad_into(
                        x[0],
                        100.0,
                        x[1],
                        x[2],
                        1.0,
                        STEPS,
                        false,
                        (&mut b.0, &mut b.1, &mut b.2),
                    );
                    (v, vec![b.0, b.1, b.2])
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = price_hvp(
                        x[0],
                        100.0,
                        x[1],
                        x[2],
                        1.0,
                        STEPS,
                        false,
                        (v[0], v[1], v[2]),
                    );
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
            check_dual(
                "crr",
                &c,
                &[jt.0, jt.1, jt.2, jt.3],
                &[cj.0, cj.1, cj.2],
                &t,
            );
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

// ---------------------------------------------------------------------------------------------------
// (3) Romberg integration of `exp(-a x²) cos(b x)` over `[lo, hi]`: trapezoid refinements through a
// helper summing the new midpoints (`1 << level` as a count), the Richardson table filled row by row in
// a flat local `Vec`, at `order = 2` in `(a, b)`. The derivatives of the estimate are Romberg estimates
// of the derivative integrands, so they match those integrals computed by fine Simpson sums.

mod romberg {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn integrand(x: f64, a: f64, b: f64) -> f64 {
        (-a * x * x).exp() * (b * x).cos()
    }

    /// `h` times the sum of the `2^(level - 1)` new midpoints of refinement `level`.
    #[differentiable]
    pub fn midpoints(a: f64, b: f64, lo: f64, hi: f64, level: u32) -> f64 {
        let count = 1usize << (level - 1);
        let h = (hi - lo) / (2 * count) as f64;
        let mut s = 0.0;
        for k in 0..count {
            s += integrand(lo + (2 * k + 1) as f64 * h, a, b);
        }
        s * h
    }

    #[differentiable(wrt(a, b), order = 2)]
    pub fn romberg(a: f64, b: f64, lo: f64, hi: f64, levels: usize) -> f64 {
        let mut table = vec![0.0; levels * levels];
        table[0] = 0.5 * (hi - lo) * (integrand(lo, a, b) + integrand(hi, a, b));
        for i in 1..levels {
            table[i * levels] = 0.5 * table[(i - 1) * levels] + midpoints(a, b, lo, hi, i as u32);
            let mut factor = 1.0;
            for j in 1..=i {
                factor *= 4.0;
                let prev = table[i * levels + j - 1];
                table[i * levels + j] =
                    prev + (prev - table[(i - 1) * levels + j - 1]) / (factor - 1.0);
            }
        }
        table[levels * levels - 1]
    }

    fn simpson(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
        let n = 2000;
        let h = (hi - lo) / n as f64;
        let mut s = f(lo) + f(hi);
        for k in 1..n {
            s += if k % 2 == 1 { 4.0 } else { 2.0 } * f(lo + k as f64 * h);
        }
        s * h / 3.0
    }

    #[test]
    fn romberg_against_simpson_of_the_derivatives() {
        let pts: Vec<Vec<f64>> = points(4640, 2, 12, 0.0, 1.0)
            .iter()
            .map(|p| vec![0.2 + 1.5 * p[0], -2.0 + 4.0 * p[1]])
            .collect();
        for p in &pts {
            let (a, b) = (p[0], p[1]);
            let e = |x: f64| (-a * x * x).exp();
            let by_hand = [
                simpson(|x| e(x) * (b * x).cos(), 0.0, 1.5),
                simpson(|x| -x * x * e(x) * (b * x).cos(), 0.0, 1.5),
                simpson(|x| -x * e(x) * (b * x).sin(), 0.0, 1.5),
                simpson(|x| x.powi(4) * e(x) * (b * x).cos(), 0.0, 1.5),
                simpson(|x| x.powi(3) * e(x) * (b * x).sin(), 0.0, 1.5),
                simpson(|x| -x * x * e(x) * (b * x).cos(), 0.0, 1.5),
            ];
            let (v, g, h) = romberg_hessian(a, b, 0.0, 1.5, 8);
            assert_close(v, by_hand[0], 1e-10, "romberg value");
            assert_all_close(&[g.0, g.1], &by_hand[1..3], 1e-9, "romberg gradient");
            assert_all_close(&h[0], &by_hand[3..5], 1e-8, "romberg hessian row 0");
            assert_all_close(&h[1], &by_hand[4..6], 1e-8, "romberg hessian row 1");
            let mut b2 = (f64::NAN, f64::NAN);
            let w = romberg_grad_into(a, b, 0.0, 1.5, 8, (&mut b2.0, &mut b2.1));
            assert_eq!(w, v);
            same_bits(&[b2.0, b2.1], &[g.0, g.1], "romberg");
        }
        audit(
            &Items {
                what: "romberg::romberg",
                primal: &|x| romberg(x[0], x[1], 0.0, 1.5, 6),
                grad: &|x| {
                    let (v, g) = romberg_grad(x[0], x[1], 0.0, 1.5, 6);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = romberg_vjp(x[0], x[1], 0.0, 1.5, 6, d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| romberg_jvp(x[0], x[1], 0.0, 1.5, 6, (t[0], t[1])),
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN);
                    let v = romberg_grad_into(x[0], x[1], 0.0, 1.5, 6, (&mut b.0, &mut b.1));
                    (v, vec![b.0, b.1])
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = romberg_hvp(x[0], x[1], 0.0, 1.5, 6, (v[0], v[1]));
                    (f, vec![g.0, g.1], vec![hv.0, hv.1])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = romberg_hessian(x[0], x[1], 0.0, 1.5, 6);
                    (f, vec![g.0, g.1], h)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn midpoints_in_the_bounds() {
        // The bounds are active in `midpoints` (no `wrt`): its gradient against differences.
        for p in points(4641, 4, 10, 0.0, 1.0) {
            let x = [0.3 + p[0], 2.0 * p[1] - 1.0, -0.5 * p[2], 1.0 + p[3]];
            let (v, g) = midpoints_grad(x[0], x[1], x[2], x[3], 3);
            assert_eq!(v, midpoints(x[0], x[1], x[2], x[3], 3));
            common::assert_fd_gradient(
                |q| midpoints(q[0], q[1], q[2], q[3], 3),
                &x,
                &[g.0, g.1, g.2, g.3],
                "midpoints",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) Bellman-Ford shortest paths over an edge list `&[(usize, usize)]` with differentiable weights:
// fixed relaxation passes with `if d[u] + w[e] < d[v]`, an early `break` when nothing changed, a
// `Vec` of `f64::INFINITY` overwritten in place. The gradient is piecewise: `d[t]` is the sum of the
// weights on the shortest path to `t`, so its derivative is that path's edge indicator.

mod bellman_ford {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(w))]
    pub fn distances(w: &[f64], edges: &[(usize, usize)], n: usize, source: usize) -> Vec<f64> {
        let mut d = vec![f64::INFINITY; n];
        d[source] = 0.0;
        for _ in 1..n {
            let mut changed = false;
            for (e, &(u, v)) in edges.iter().enumerate() {
                if d[u] + w[e] < d[v] {
                    d[v] = d[u] + w[e];
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        d
    }

    /// Squared distances to a few targets.
    #[differentiable(wrt(w))]
    pub fn route_cost(w: &[f64], edges: &[(usize, usize)], n: usize, targets: &[usize]) -> f64 {
        let d = distances(w, edges, n, 0);
        let mut total = 0.0;
        for &t in targets {
            total += d[t].powi(2);
        }
        total
    }

    const EDGES: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (1, 2),
        (2, 1),
        (1, 3),
        (2, 3),
        (2, 4),
        (3, 5),
        (4, 5),
        (4, 3),
    ];

    /// Dijkstra with the predecessor edge of each node (the oracle).
    fn dijkstra(w: &[f64]) -> (Vec<f64>, Vec<Option<usize>>) {
        let mut d = vec![f64::INFINITY; 6];
        let mut pred = vec![None; 6];
        let mut done = [false; 6];
        d[0] = 0.0;
        for _ in 0..6 {
            let u = (0..6)
                .filter(|&i| !done[i])
                .min_by(|&a, &b| d[a].partial_cmp(&d[b]).unwrap())
                .unwrap();
            done[u] = true;
            for (e, &(a, b)) in EDGES.iter().enumerate() {
                if a == u && d[u] + w[e] < d[b] {
                    d[b] = d[u] + w[e];
                    pred[b] = Some(e);
                }
            }
        }
        (d, pred)
    }

    fn path_indicator(pred: &[Option<usize>], mut t: usize) -> Vec<f64> {
        let mut ind = vec![0.0; EDGES.len()];
        while let Some(e) = pred[t] {
            ind[e] += 1.0;
            t = EDGES[e].0;
        }
        ind
    }

    #[test]
    fn distances_by_hand_and_jacobian() {
        for w in points(4650, 10, 12, 0.3, 2.0) {
            let d = distances(&w, &EDGES, 6, 0);
            let (dd, pred) = dijkstra(&w);
            assert_all_close(&d, &dd, 1e-14, "bellman-ford vs dijkstra");
            let j = distances_jacobian(&w, &EDGES, 6, 0);
            assert_eq!((j.len(), j[0].len()), (6, 10));
            for t in 0..6 {
                assert_eq!(j[t], path_indicator(&pred, t), "row {t} is the path of {t}");
            }
            check_jacobian("distances", &w, &j, |q| distances(q, &EDGES, 6, 0));
            let c = wave(6, 0.2);
            let t = wave(10, 0.9);
            let (v, cj) = distances_vjp(&w, &EDGES, 6, 0, c.clone());
            let (v2, jt) = distances_jvp(&w, &EDGES, 6, 0, t.clone());
            assert_eq!(v, d);
            assert_eq!(v2, d);
            check_dual("distances", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn route_cost_by_hand() {
        let targets = [3, 5, 4];
        for w in points(4651, 10, 12, 0.3, 2.0) {
            let (v, g) = route_cost_grad(&w, &EDGES, 6, &targets);
            let (d, pred) = dijkstra(&w);
            let mut by_hand = vec![0.0; 10];
            for &t in &targets {
                for (e, i) in path_indicator(&pred, t).iter().enumerate() {
                    by_hand[e] += 2.0 * d[t] * i;
                }
            }
            assert_close(v, d[3].powi(2) + d[5].powi(2) + d[4].powi(2), 1e-13, "cost");
            assert_all_close(&g, &by_hand, 1e-13, "route_cost gradient by hand");
            common::assert_fd_gradient(|q| route_cost(q, &EDGES, 6, &targets), &w, &g, "cost");
            let mut b = vec![f64::NAN; 10];
            assert_eq!(route_cost_grad_into(&w, &EDGES, 6, &targets, &mut b), v);
            same_bits(&b, &g, "route_cost");
            let t = wave(10, 0.5);
            let (vj, dj) = route_cost_jvp(&w, &EDGES, 6, &targets, t.clone());
            assert_eq!(vj, v);
            assert_close(dj, dot(&g, &t), 1e-12, "route_cost jvp");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) SPH densities of `N` particles (`&[[f64; 2]; N]`, const generic) with the piecewise cubic-spline
// kernel (`if q < 1.0 {..} else if q < 2.0 {..} else { 0.0 }`, C² at the joins), the self term apart
// and `continue` past it, `hypot` for distances, `std::f64::consts::PI`; an equation-of-state energy at
// `order = 2` in the positions and the smoothing length.

mod sph {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    #[differentiable]
    pub fn kernel(r: f64, h: f64) -> f64 {
        let q = r / h;
        let sigma = 10.0 / (7.0 * PI * h * h);
        if q < 1.0 {
            sigma * (1.0 - 1.5 * q * q + 0.75 * q.powi(3))
        } else if q < 2.0 {
            sigma * 0.25 * (2.0 - q).powi(3)
        } else {
            0.0
        }
    }

    #[differentiable]
    pub fn densities<const N: usize>(pos: &[[f64; 2]; N], mass: f64, h: f64) -> [f64; N] {
        let mut rho = [0.0; N];
        for i in 0..N {
            rho[i] = mass * kernel(0.0, h);
            for j in 0..N {
                if j == i {
                    continue;
                }
                let r = (pos[i][0] - pos[j][0]).hypot(pos[i][1] - pos[j][1]);
                rho[i] += mass * kernel(r, h);
            }
        }
        rho
    }

    #[differentiable(wrt(pos, h), order = 2)]
    pub fn energy<const N: usize>(pos: [[f64; 2]; N], mass: f64, h: f64, rho0: f64) -> f64 {
        let rho = densities(&pos, mass, h);
        rho.iter().map(|&r| (r / rho0 - 1.0).powi(2)).sum::<f64>()
    }

    fn w(r: f64, h: f64) -> f64 {
        let q = r / h;
        let s = 10.0 / (7.0 * PI * h * h);
        s * if q < 1.0 {
            1.0 - 1.5 * q * q + 0.75 * q * q * q
        } else if q < 2.0 {
            (2.0 - q).powi(3) / 4.0
        } else {
            0.0
        }
    }

    fn reference(pos: &[f64], mass: f64, h: f64) -> Vec<f64> {
        let n = pos.len() / 2;
        (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        let dx = pos[2 * i] - pos[2 * j];
                        let dy = pos[2 * i + 1] - pos[2 * j + 1];
                        mass * w((dx * dx + dy * dy).sqrt(), h)
                    })
                    .sum()
            })
            .collect()
    }

    fn cloud(p: &[f64]) -> [[f64; 2]; 5] {
        let mut out = [[0.0; 2]; 5];
        for i in 0..5 {
            out[i] = [1.6 * p[2 * i], 1.6 * p[2 * i + 1]];
        }
        out
    }

    #[test]
    fn kernel_by_hand() {
        for p in points(4660, 2, 20, 0.0, 1.0) {
            let (r, h) = (2.5 * p[0], 0.6 + 0.6 * p[1]);
            let q = r / h;
            let s = 10.0 / (7.0 * PI * h * h);
            let dq = if q < 1.0 {
                -3.0 * q + 2.25 * q * q
            } else if q < 2.0 {
                -0.75 * (2.0 - q).powi(2)
            } else {
                0.0
            };
            let (v, g) = kernel_grad(r, h);
            assert_close(v, w(r, h), 1e-15, "kernel value");
            assert_close(g.0, s * dq / h, 1e-13, "dW/dr by hand");
            // W = h^-2 f(r / h): dW/dh = -2 W / h - r/h² · f'.
            assert_close(
                g.1,
                -2.0 * v / h - s * dq * r / (h * h),
                1e-13,
                "dW/dh by hand",
            );
        }
    }

    #[test]
    fn densities_jacobian_and_duality() {
        for p in points(4661, 12, 10, 0.0, 1.0) {
            let pos = cloud(&p);
            let (mass, h) = (0.5 + p[10], 0.7 + 0.5 * p[11]);
            let flat: Vec<f64> = pos.iter().flatten().copied().collect();
            let rho = densities(&pos, mass, h);
            assert_all_close(&rho, &reference(&flat, mass, h), 1e-13, "densities");
            let j = densities_jacobian(&pos, mass, h);
            assert_eq!((j.len(), j[0].len()), (5, 12));
            let mut x = flat.clone();
            x.extend([mass, h]);
            check_jacobian("densities", &x, &j, |q| reference(&q[..10], q[10], q[11]));
            let c = wave(5, 0.3);
            let t = wave(12, 1.3);
            let (v, cj) = densities_vjp(&pos, mass, h, arr(&c));
            let tp = cloud(&t.iter().map(|v| v / 1.6).collect::<Vec<f64>>());
            let (v2, jt) = densities_jvp(&pos, mass, h, (tp, t[10], t[11]));
            assert_eq!(v, rho);
            assert_eq!(v2, rho);
            let mut cjf: Vec<f64> = cj.0.iter().flatten().copied().collect();
            cjf.extend([cj.1, cj.2]);
            check_dual("densities", &c, &jt, &cjf, &t);
        }
    }

    #[test]
    fn energy_at_order_2() {
        let pts: Vec<Vec<f64>> = points(4662, 11, 10, 0.0, 1.0)
            .iter()
            .map(|p| {
                let mut x: Vec<f64> = p[..10].iter().map(|v| 1.6 * v).collect();
                x.push(0.7 + 0.5 * p[10]);
                x
            })
            .collect();
        let split = |x: &[f64]| {
            (
                cloud(&x[..10].iter().map(|v| v / 1.6).collect::<Vec<_>>()),
                x[10],
            )
        };
        let flat = |g: &([[f64; 2]; 5], f64)| {
            let mut v: Vec<f64> = g.0.iter().flatten().copied().collect();
            v.push(g.1);
            v
        };
        for x in &pts {
            let (pos, h) = split(x);
            let (v, g) = energy_grad(pos, 0.8, h, 0.6);
            let mut b = ([[f64::NAN; 2]; 5], f64::NAN);
            assert_eq!(energy_grad_into(pos, 0.8, h, 0.6, (&mut b.0, &mut b.1)), v);
            same_bits(&flat(&b), &flat(&g), "energy");
        }
        audit(
            &Items {
                what: "sph::energy",
                primal: &|x| {
                    let (pos, h) = split(x);
                    energy(pos, 0.8, h, 0.6)
                },
                grad: &|x| {
                    let (pos, h) = split(x);
                    let (v, g) = energy_grad(pos, 0.8, h, 0.6);
                    (v, flat(&g))
                },
                vjp: &|x, d| {
                    let (pos, h) = split(x);
                    let (v, g) = energy_vjp(pos, 0.8, h, 0.6, d);
                    (v, flat(&g))
                },
                jvp: &|x, t| {
                    let (pos, h) = split(x);
                    let (tp, th) = split(t);
                    energy_jvp(pos, 0.8, h, 0.6, (tp, th))
                },
                grad_into: &|x| {
                    let (pos, h) = split(x);
                    let mut b = ([[f64::NAN; 2]; 5], f64::NAN);
                    let v = energy_grad_into(pos, 0.8, h, 0.6, (&mut b.0, &mut b.1));
                    (v, flat(&b))
                },
                hvp: Some(&|x, v| {
                    let (pos, h) = split(x);
                    let (vp, vh) = split(v);
                    let (f, g, hv) = energy_hvp(pos, 0.8, h, 0.6, (vp, vh));
                    (f, flat(&g), flat(&hv))
                }),
                hessian: Some(&|x| {
                    let (pos, h) = split(x);
                    let (f, g, hs) = energy_hessian(pos, 0.8, h, 0.6);
                    (f, flat(&g), hs)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) Bilinear image warping: a sample at real coordinates with the borders clamped (`clamp`), the
// cell found by `floor` cast to an index, neighbours by `min`; a rotation about the centre plus a
// shift (`[f64; 2]`) resampling into an output slice (its `_jacobian` over image, angle and shift);
// the sum of squared differences to a template in the pose alone (`wrt`).

mod warp {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sample(img: &[Vec<f64>], x: f64, y: f64) -> f64 {
        let rows = img.len();
        let cols = img[0].len();
        let xc = x.clamp(0.0, (cols - 1) as f64);
        let yc = y.clamp(0.0, (rows - 1) as f64);
        let x0 = xc.floor() as usize;
        let y0 = yc.floor() as usize;
        let x1 = (x0 + 1).min(cols - 1);
        let y1 = (y0 + 1).min(rows - 1);
        let fx = xc - x0 as f64;
        let fy = yc - y0 as f64;
        let top = img[y0][x0] * (1.0 - fx) + img[y0][x1] * fx;
        let bottom = img[y1][x0] * (1.0 - fx) + img[y1][x1] * fx;
        top * (1.0 - fy) + bottom * fy
    }

    #[differentiable]
    pub fn warp(img: &[Vec<f64>], theta: f64, shift: [f64; 2], out: &mut [f64]) {
        let rows = img.len();
        let cols = img[0].len();
        let (s, c) = (theta.sin(), theta.cos());
        let cx = 0.5 * (cols - 1) as f64;
        let cy = 0.5 * (rows - 1) as f64;
        for i in 0..rows {
            for j in 0..cols {
                let dx = j as f64 - cx;
                let dy = i as f64 - cy;
                let x = c * dx - s * dy + cx + shift[0];
                let y = s * dx + c * dy + cy + shift[1];
                out[i * cols + j] = sample(img, x, y);
            }
        }
    }

    #[differentiable(wrt(theta, shift))]
    pub fn ssd(img: &[Vec<f64>], template: &[f64], theta: f64, shift: [f64; 2]) -> f64 {
        let mut out = vec![0.0; template.len()];
        warp(img, theta, shift, &mut out);
        out.iter()
            .zip(template)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
    }

    fn image(seed: u64) -> Vec<Vec<f64>> {
        common::Inputs(seed).rows(4, 5)
    }

    #[test]
    fn sample_on_a_linear_image() {
        // Bilinear interpolation reproduces a linear image: gradient (beta, alpha) inside, 0 outside.
        let img: Vec<Vec<f64>> = (0..4)
            .map(|i| {
                (0..5)
                    .map(|j| 0.3 * i as f64 - 0.7 * j as f64 + 0.2)
                    .collect()
            })
            .collect();
        for p in points(4670, 2, 20, -1.0, 5.0) {
            let (x, y) = (p[0], p[1] * 0.8);
            let (v, g) = sample_grad(&img, x, y);
            let xc = x.clamp(0.0, 4.0);
            let yc = y.clamp(0.0, 3.0);
            assert_close(v, 0.3 * yc - 0.7 * xc + 0.2, 1e-14, "linear image value");
            let inside_x = (0.0..4.0).contains(&x);
            let inside_y = (0.0..3.0).contains(&y);
            assert_close(g.1, if inside_x { -0.7 } else { 0.0 }, 1e-14, "d/dx");
            assert_close(g.2, if inside_y { 0.3 } else { 0.0 }, 1e-14, "d/dy");
        }
    }

    #[test]
    fn warp_jacobian_and_duality() {
        for (k, p) in points(4671, 3, 10, -1.0, 1.0).iter().enumerate() {
            let img = image(4672 + k as u64);
            let (theta, shift) = (0.4 * p[0], [0.7 * p[1], 0.5 * p[2]]);
            let mut out = vec![0.0; 20];
            let j = warp_jacobian(&img, theta, shift, &mut out);
            assert_eq!((j.len(), j[0].len()), (20, 23));
            let mut x: Vec<f64> = img.iter().flatten().copied().collect();
            x.extend([theta, shift[0], shift[1]]);
            check_jacobian("warp", &x, &j, |q| {
                let m = common::contract::rows(&q[..20], 5);
                let mut o = vec![0.0; 20];
                warp(&m, q[20], [q[21], q[22]], &mut o);
                o
            });
            let c = wave(20, 0.1);
            let t = wave(23, 0.6);
            let mut o1 = vec![0.0; 20];
            let cj = warp_vjp(&img, theta, shift, &mut o1, &c);
            let mut o2 = vec![0.0; 20];
            let mut jt = vec![f64::NAN; 20];
            warp_jvp(
                &img,
                theta,
                shift,
                &mut o2,
                (common::contract::rows(&t[..20], 5), t[20], [t[21], t[22]]),
                &mut jt,
            );
            assert_eq!(o1, out);
            assert_eq!(o2, out);
            let mut cjf: Vec<f64> = cj.0.iter().flatten().copied().collect();
            cjf.extend([cj.1, cj.2[0], cj.2[1]]);
            check_dual("warp", &c, &jt, &cjf, &t);
        }
    }

    #[test]
    fn ssd_in_the_pose() {
        let img = image(4673);
        let template = wave(20, 0.0);
        for p in points(4674, 3, 12, -1.0, 1.0) {
            let (theta, shift) = (0.4 * p[0], [0.7 * p[1], 0.5 * p[2]]);
            let (v, g) = ssd_grad(&img, &template, theta, shift);
            let mut b = (f64::NAN, [f64::NAN; 2]);
            assert_eq!(
                ssd_grad_into(&img, &template, theta, shift, (&mut b.0, &mut b.1)),
                v
            );
            same_bits(&[b.0, b.1[0], b.1[1]], &[g.0, g.1[0], g.1[1]], "ssd");
            common::assert_fd_gradient(
                |q| ssd(&img, &template, q[0], [q[1], q[2]]),
                &[theta, shift[0], shift[1]],
                &[g.0, g.1[0], g.1[1]],
                "ssd",
            );
            let (vv, gv) = ssd_vjp(&img, &template, theta, shift, -2.0);
            assert_eq!(vv, v);
            assert_all_close(
                &[gv.0, gv.1[0], gv.1[1]],
                &[-2.0 * g.0, -2.0 * g.1[0], -2.0 * g.1[1]],
                1e-14,
                "ssd vjp",
            );
            let (vj, dj) = ssd_jvp(&img, &template, theta, shift, (0.3, [-0.5, 0.8]));
            assert_eq!(vj, v);
            assert_close(
                dj,
                0.3 * g.0 - 0.5 * g.1[0] + 0.8 * g.1[1],
                1e-12,
                "ssd jvp",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) 2-D linear finite elements on triangles: an element's stiffness into a `&mut [f64; 9]` output
// (its area returned), assembly scatter-adding into a global flat `Vec` through index triples
// (`&[(usize, usize, usize)]`, `for &(i0, i1, i2) in tris`), the energy `uᵀKu/2 - fᵀu` at `order = 2` in the nodal values
// and the node coordinates. By hand: the gradient in `u` is `Ku - f` and that block of the Hessian `K`.

mod fem2d {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn element(x: [f64; 3], y: [f64; 3], kappa: f64, ke: &mut [f64; 9]) -> f64 {
        let area2 = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
        let b = [y[1] - y[2], y[2] - y[0], y[0] - y[1]];
        let c = [x[2] - x[1], x[0] - x[2], x[1] - x[0]];
        for i in 0..3 {
            for j in 0..3 {
                ke[3 * i + j] = kappa * (b[i] * b[j] + c[i] * c[j]) / (2.0 * area2);
            }
        }
        0.5 * area2
    }

    #[differentiable]
    pub fn assemble(coords: &[f64], tris: &[(usize, usize, usize)], kappa: f64, k: &mut [f64]) {
        let n = coords.len() / 2;
        for i in 0..k.len() {
            k[i] = 0.0;
        }
        for &(i0, i1, i2) in tris {
            let tri = [i0, i1, i2];
            let x = [coords[2 * tri[0]], coords[2 * tri[1]], coords[2 * tri[2]]];
            let y = [
                coords[2 * tri[0] + 1],
                coords[2 * tri[1] + 1],
                coords[2 * tri[2] + 1],
            ];
            let mut ke = [0.0; 9];
            let _area = element(x, y, kappa, &mut ke);
            for a in 0..3 {
                for b in 0..3 {
                    k[tri[a] * n + tri[b]] += ke[3 * a + b];
                }
            }
        }
    }

    #[differentiable(wrt(u, coords), order = 2)]
    pub fn energy(
        u: &[f64],
        coords: &[f64],
        tris: &[(usize, usize, usize)],
        kappa: f64,
        f: &[f64],
    ) -> f64 {
        let n = u.len();
        let mut k = vec![0.0; n * n];
        assemble(coords, tris, kappa, &mut k);
        let mut e = 0.0;
        for i in 0..n {
            let ku = k[i * n..(i + 1) * n]
                .iter()
                .zip(u)
                .map(|(a, b)| a * b)
                .sum::<f64>();
            e += 0.5 * u[i] * ku - f[i] * u[i];
        }
        e
    }

    const TRIS: [(usize, usize, usize); 4] = [(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)];
    const SQUARE: [f64; 10] = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.5, 0.5];

    fn mesh(p: &[f64]) -> Vec<f64> {
        SQUARE.iter().zip(p).map(|(c, q)| c + 0.15 * q).collect()
    }

    #[test]
    fn element_by_hand_and_duality() {
        let mut ke = [f64::NAN; 9];
        let area = element([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], 2.0, &mut ke);
        assert_eq!(area, 0.5);
        let by_hand = [2.0, -1.0, -1.0, -1.0, 1.0, 0.0, -1.0, 0.0, 1.0];
        assert_all_close(&ke, &by_hand, 1e-15, "the right triangle's stiffness");
        for p in points(4680, 7, 10, -1.0, 1.0) {
            let (x, y) = (
                [0.1 * p[0], 1.0 + 0.1 * p[1], 0.2 * p[2]],
                [0.1 * p[3], 0.1 * p[4], 1.0 + 0.1 * p[5]],
            );
            let kappa = 1.5 + p[6];
            let mut ke = [0.0; 9];
            let area = element(x, y, kappa, &mut ke);
            for row in ke.chunks_exact(3) {
                assert!(row.iter().sum::<f64>().abs() < 1e-14, "rows sum to zero");
            }
            let c = wave(9, 0.2);
            let t = wave(7, 0.8);
            let mut o1 = [0.0; 9];
            let (v1, cj) = element_vjp(x, y, kappa, &mut o1, 0.6, &arr(&c));
            let mut o2 = [0.0; 9];
            let mut jt = [f64::NAN; 9];
            let (v2, dv) = element_jvp(
                x,
                y,
                kappa,
                &mut o2,
                ([t[0], t[1], t[2]], [t[3], t[4], t[5]], t[6]),
                &mut jt,
            );
            assert_eq!((v1, v2, o1, o2), (area, area, ke, ke));
            let mut cc = vec![0.6];
            cc.extend(&c);
            let mut jtt = vec![dv];
            jtt.extend(&jt);
            let mut cjf = cj.0.to_vec();
            cjf.extend(cj.1);
            cjf.push(cj.2);
            check_dual("element", &cc, &jtt, &cjf, &t);
        }
    }

    #[test]
    fn assemble_jacobian_against_differences() {
        for p in points(4681, 11, 6, -1.0, 1.0) {
            let coords = mesh(&p);
            let mut k = vec![f64::NAN; 25];
            let j = assemble_jacobian(&coords, &TRIS, 1.0 + 0.3 * p[10], &mut k);
            assert_eq!((j.len(), j[0].len()), (25, 11));
            let mut x = coords.clone();
            x.push(1.0 + 0.3 * p[10]);
            check_jacobian("assemble", &x, &j, |q| {
                let mut k = vec![0.0; 25];
                assemble(&q[..10], &TRIS, q[10], &mut k);
                k
            });
            // Symmetric, rows summing to zero.
            for a in 0..5 {
                assert!(k[5 * a..5 * a + 5].iter().sum::<f64>().abs() < 1e-13);
                for b in 0..5 {
                    assert_close(k[5 * a + b], k[5 * b + a], 1e-15, "K symmetric");
                }
            }
        }
    }

    #[test]
    fn energy_at_order_2() {
        let f = [0.3, -0.2, 0.5, 0.1, -0.4];
        let pts: Vec<Vec<f64>> = points(4682, 15, 10, -1.0, 1.0)
            .iter()
            .map(|p| {
                let mut x = p[..5].to_vec();
                x.extend(mesh(&p[5..]));
                x
            })
            .collect();
        for x in &pts {
            let (u, coords) = (&x[..5], &x[5..]);
            let mut k = vec![0.0; 25];
            assemble(coords, &TRIS, 1.3, &mut k);
            let (v, g, h) = energy_hessian(u, coords, &TRIS, 1.3, &f);
            let ku: Vec<f64> = (0..5).map(|i| dot(&k[5 * i..5 * i + 5], u)).collect();
            assert_close(v, 0.5 * dot(u, &ku) - dot(&f, u), 1e-13, "energy value");
            let residual: Vec<f64> = (0..5).map(|i| ku[i] - f[i]).collect();
            assert_all_close(&g.0, &residual, 1e-13, "dE/du = Ku - f");
            for i in 0..5 {
                assert_all_close(&h[i][..5], &k[5 * i..5 * i + 5], 1e-13, "Huu = K");
            }
            let mut b = (vec![f64::NAN; 5], vec![f64::NAN; 10]);
            assert_eq!(
                energy_grad_into(u, coords, &TRIS, 1.3, &f, (&mut b.0, &mut b.1)),
                v
            );
            same_bits(
                &[b.0, b.1].concat(),
                &[g.0.clone(), g.1.clone()].concat(),
                "energy",
            );
        }
        audit(
            &Items {
                what: "fem2d::energy",
                primal: &|x| energy(&x[..5], &x[5..], &TRIS, 1.3, &f),
                grad: &|x| {
                    let (v, g) = energy_grad(&x[..5], &x[5..], &TRIS, 1.3, &f);
                    (v, [g.0, g.1].concat())
                },
                vjp: &|x, d| {
                    let (v, g) = energy_vjp(&x[..5], &x[5..], &TRIS, 1.3, &f, d);
                    (v, [g.0, g.1].concat())
                },
                jvp: &|x, t| {
                    energy_jvp(
                        &x[..5],
                        &x[5..],
                        &TRIS,
                        1.3,
                        &f,
                        (t[..5].to_vec(), t[5..].to_vec()),
                    )
                },
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; 5], vec![f64::NAN; 10]);
                    let v =
                        energy_grad_into(&x[..5], &x[5..], &TRIS, 1.3, &f, (&mut b.0, &mut b.1));
                    (v, [b.0, b.1].concat())
                },
                hvp: Some(&|x, v| {
                    let (e, g, hv) = energy_hvp(
                        &x[..5],
                        &x[5..],
                        &TRIS,
                        1.3,
                        &f,
                        (v[..5].to_vec(), v[5..].to_vec()),
                    );
                    (e, [g.0, g.1].concat(), [hv.0, hv.1].concat())
                }),
                hessian: Some(&|x| {
                    let (e, g, h) = energy_hessian(&x[..5], &x[5..], &TRIS, 1.3, &f);
                    (e, [g.0, g.1].concat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) An InfoNCE contrastive loss over embeddings `&[Vec<f64>]` with a temperature: cosine similarity
// by iterator chains (a norm floored by `max(f64::EPSILON)`), a log-sum-exp shifted by its `fold`ed
// maximum, a logits `Vec` overwritten for each anchor, at `order = 2` in both embeddings and `tau`.
// The derivative in `tau` by hand: `sum_i (s_ii - sum_j p_ij s_ij) / (n tau²)`.

mod infonce {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn cosine(a: &[f64], b: &[f64]) -> f64 {
        let dot = a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let na = a.iter().map(|x| x * x).sum::<f64>().sqrt();
        let nb = b.iter().map(|x| x * x).sum::<f64>().sqrt();
        dot / (na * nb).max(f64::EPSILON)
    }

    #[differentiable]
    pub fn log_sum_exp(z: &[f64]) -> f64 {
        let m = z.iter().fold(f64::NEG_INFINITY, |acc, &v| acc.max(v));
        m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
    }

    #[differentiable(wrt(anchors, positives, tau), order = 2)]
    pub fn info_nce(anchors: &[Vec<f64>], positives: &[Vec<f64>], tau: f64) -> f64 {
        let n = anchors.len();
        let mut logits = vec![0.0; n];
        let mut loss = 0.0;
        for i in 0..n {
            for j in 0..n {
                logits[j] = cosine(&anchors[i], &positives[j]) / tau;
            }
            loss += log_sum_exp(&logits) - logits[i];
        }
        loss / n as f64
    }

    fn sims(a: &[Vec<f64>], p: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        a.iter()
            .map(|u| p.iter().map(|v| dot(u, v) / (norm(u) * norm(v))).collect())
            .collect()
    }

    fn reference(a: &[Vec<f64>], p: &[Vec<f64>], tau: f64) -> (f64, f64) {
        let s = sims(a, p);
        let n = a.len();
        let (mut loss, mut dtau) = (0.0, 0.0);
        for i in 0..n {
            let z: f64 = s[i].iter().map(|v| (v / tau).exp()).sum();
            loss += z.ln() - s[i][i] / tau;
            let expected: f64 = s[i].iter().map(|v| (v / tau).exp() / z * v).sum();
            dtau += (s[i][i] - expected) / (tau * tau);
        }
        (loss / n as f64, dtau / n as f64)
    }

    fn split(x: &[f64]) -> (Vec<Vec<f64>>, Vec<Vec<f64>>, f64) {
        (
            common::contract::rows(&x[..9], 3),
            common::contract::rows(&x[9..18], 3),
            x[18],
        )
    }

    fn flat(g: &(Vec<Vec<f64>>, Vec<Vec<f64>>, f64)) -> Vec<f64> {
        let mut v: Vec<f64> = g.0.iter().chain(&g.1).flatten().copied().collect();
        v.push(g.2);
        v
    }

    #[test]
    fn lse_and_cosine_by_hand() {
        for p in points(4690, 6, 12, -2.0, 2.0) {
            let (v, g) = log_sum_exp_grad(&p[..4]);
            let z: f64 = p[..4].iter().map(|v| v.exp()).sum();
            assert_close(v, z.ln(), 1e-14, "lse");
            let soft: Vec<f64> = p[..4].iter().map(|v| v.exp() / z).collect();
            assert_all_close(&g, &soft, 1e-14, "lse gradient is the softmax");
            let (c, (ga, gb)) = cosine_grad(&p[..3], &p[3..]);
            let (a, b) = (&p[..3], &p[3..]);
            let (na, nb) = (dot(a, a).sqrt(), dot(b, b).sqrt());
            let by_hand: Vec<f64> = (0..3)
                .map(|k| b[k] / (na * nb) - c * a[k] / (na * na))
                .collect();
            assert_all_close(&ga, &by_hand, 1e-13, "d cos / da");
            let by_hand: Vec<f64> = (0..3)
                .map(|k| a[k] / (na * nb) - c * b[k] / (nb * nb))
                .collect();
            assert_all_close(&gb, &by_hand, 1e-13, "d cos / db");
        }
    }

    #[test]
    fn info_nce_at_order_2() {
        let pts: Vec<Vec<f64>> = points(4691, 19, 10, -1.0, 1.0)
            .into_iter()
            .map(|mut p| {
                p[18] = 0.3 + 0.4 * (p[18] + 1.0);
                p
            })
            .collect();
        for x in &pts {
            let (a, p, tau) = split(x);
            let (v, g) = info_nce_grad(&a, &p, tau);
            let (r, dtau) = reference(&a, &p, tau);
            assert_close(v, r, 1e-13, "info_nce value");
            assert_close(g.2, dtau, 1e-12, "d loss / d tau by hand");
            let mut b = (
                vec![vec![f64::NAN; 3]; 3],
                vec![vec![f64::NAN; 3]; 3],
                f64::NAN,
            );
            assert_eq!(
                info_nce_grad_into(&a, &p, tau, (&mut b.0, &mut b.1, &mut b.2)),
                v
            );
            same_bits(&flat(&b), &flat(&g), "info_nce");
        }
        audit(
            &Items {
                what: "infonce::info_nce",
                primal: &|x| {
                    let (a, p, tau) = split(x);
                    info_nce(&a, &p, tau)
                },
                grad: &|x| {
                    let (a, p, tau) = split(x);
                    let (v, g) = info_nce_grad(&a, &p, tau);
                    (v, flat(&g))
                },
                vjp: &|x, d| {
                    let (a, p, tau) = split(x);
                    let (v, g) = info_nce_vjp(&a, &p, tau, d);
                    (v, flat(&g))
                },
                jvp: &|x, t| {
                    let (a, p, tau) = split(x);
                    info_nce_jvp(&a, &p, tau, split(t))
                },
                grad_into: &|x| {
                    let (a, p, tau) = split(x);
                    let mut b = (
                        vec![vec![f64::NAN; 3]; 3],
                        vec![vec![f64::NAN; 3]; 3],
                        f64::NAN,
                    );
                    let v = info_nce_grad_into(&a, &p, tau, (&mut b.0, &mut b.1, &mut b.2));
                    (v, flat(&b))
                },
                hvp: Some(&|x, v| {
                    let (a, p, tau) = split(x);
                    let (f, g, hv) = info_nce_hvp(&a, &p, tau, split(v));
                    (f, flat(&g), flat(&hv))
                }),
                hessian: Some(&|x| {
                    let (a, p, tau) = split(x);
                    let (f, g, h) = info_nce_hessian(&a, &p, tau);
                    (f, flat(&g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) A linear-chain CRF as a `Differentiable` struct (flat transition and emission weights, start
// scores, a `#[no_grad]` state count): methods `unary`, `score`, `log_partition` (the forward algorithm,
// `alpha` overwritten through a `next` buffer, log-sum-exp by `super::infonce`) and `nll` calling one
// another at `order = 2`. By brute force over all tag sequences: `log Z`, and its gradient, the expected
// feature counts.

mod crf {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Crf {
        pub trans: Vec<f64>,
        pub emit: Vec<f64>,
        pub start: Vec<f64>,
        #[no_grad]
        pub states: usize,
    }

    impl Crf {
        #[differentiable(wrt(self), order = 2)]
        pub fn unary(&self, x: &[f64], s: usize) -> f64 {
            let f = x.len();
            let mut acc = 0.0;
            for k in 0..f {
                acc += self.emit[s * f + k] * x[k];
            }
            acc
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn score(&self, xs: &[Vec<f64>], tags: &[usize]) -> f64 {
            let s = self.states;
            let mut total = self.start[tags[0]] + self.unary(&xs[0], tags[0]);
            for t in 1..xs.len() {
                total += self.trans[tags[t - 1] * s + tags[t]] + self.unary(&xs[t], tags[t]);
            }
            total
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn log_partition(&self, xs: &[Vec<f64>]) -> f64 {
            let s = self.states;
            let mut alpha = vec![0.0; s];
            for j in 0..s {
                alpha[j] = self.start[j] + self.unary(&xs[0], j);
            }
            let mut next = vec![0.0; s];
            let mut terms = vec![0.0; s];
            for t in 1..xs.len() {
                for j in 0..s {
                    for i in 0..s {
                        terms[i] = alpha[i] + self.trans[i * s + j];
                    }
                    next[j] = super::infonce::log_sum_exp(&terms) + self.unary(&xs[t], j);
                }
                for j in 0..s {
                    alpha[j] = next[j];
                }
            }
            super::infonce::log_sum_exp(&alpha)
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn nll(&self, xs: &[Vec<f64>], tags: &[usize]) -> f64 {
            self.log_partition(xs) - self.score(xs, tags)
        }
    }

    const S: usize = 3;
    const F: usize = 2;
    const T: usize = 4;

    fn model(p: &[f64]) -> Crf {
        Crf {
            trans: p[..9].to_vec(),
            emit: p[9..15].to_vec(),
            start: p[15..18].to_vec(),
            states: S,
        }
    }

    fn sequences() -> Vec<Vec<usize>> {
        (0..S.pow(T as u32))
            .map(|mut code| {
                (0..T)
                    .map(|_| {
                        let s = code % S;
                        code /= S;
                        s
                    })
                    .collect()
            })
            .collect()
    }

    /// The score of `tags` and its feature counts in the flat order of the model.
    fn features(xs: &[Vec<f64>], tags: &[usize]) -> Vec<f64> {
        let mut phi = vec![0.0; 18];
        phi[15 + tags[0]] += 1.0;
        for t in 0..T {
            if t > 0 {
                phi[tags[t - 1] * S + tags[t]] += 1.0;
            }
            for k in 0..F {
                phi[9 + tags[t] * F + k] += xs[t][k];
            }
        }
        phi
    }

    fn xs() -> Vec<Vec<f64>> {
        common::Inputs(4700).rows(T, F)
    }

    #[test]
    fn log_partition_by_brute_force() {
        let xs = xs();
        for p in points(4701, 18, 10, -1.0, 1.0) {
            let m = model(&p);
            let paths = sequences();
            let scores: Vec<f64> = paths
                .iter()
                .map(|tags| dot(&features(&xs, tags), &p))
                .collect();
            for (tags, s) in paths.iter().zip(&scores).step_by(7) {
                assert_close(m.score(&xs, tags), *s, 1e-13, "score");
            }
            let z: f64 = scores.iter().map(|s| s.exp()).sum();
            let (v, g) = m.log_partition_grad(&xs);
            assert_close(v, z.ln(), 1e-13, "log Z by brute force");
            let mut expected = vec![0.0; 18];
            for (tags, s) in paths.iter().zip(&scores) {
                for (e, f) in expected.iter_mut().zip(features(&xs, tags)) {
                    *e += (s.exp() / z) * f;
                }
            }
            assert_all_close(&g.to_flat(), &expected, 1e-12, "expected feature counts");
            assert_eq!(g.states, S, "the no_grad field is copied");
        }
    }

    #[test]
    fn nll_at_order_2() {
        let xs = xs();
        let tags = [0, 2, 2, 1];
        let pts = points(4702, 18, 8, -1.0, 1.0);
        for p in &pts {
            let m = model(p);
            let (v, g) = m.nll_grad(&xs, &tags);
            let mut b = m.zero_like();
            b.trans[0] = f64::NAN;
            assert_eq!(m.nll_grad_into(&xs, &tags, &mut b), v);
            same_bits(&b.to_flat(), &g.to_flat(), "nll");
            // The gradient is E[phi] - phi(tags): its entries over transitions sum to zero.
            assert!(g.trans.iter().sum::<f64>().abs() < 1e-12);
        }
        audit(
            &Items {
                what: "crf::nll",
                primal: &|x| model(x).nll(&xs, &tags),
                grad: &|x| {
                    let (v, g) = model(x).nll_grad(&xs, &tags);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = model(x).nll_vjp(&xs, &tags, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| model(x).nll_jvp(&xs, &tags, model(t)),
                grad_into: &|x| {
                    let m = model(x);
                    let mut b = m.zero_like();
                    let v = m.nll_grad_into(&xs, &tags, &mut b);
                    (v, b.to_flat())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = model(x).nll_hvp(&xs, &tags, model(v));
                    (f, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = model(x).nll_hessian(&xs, &tags);
                    (f, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) A Gauss-Hermite expectation `E[softplus(mu + sigma Z)]` of a `#[custom_gradient]` softplus
// (whose closure captures the sigmoid), over `const` node and weight arrays indexed in a loop, at
// `order = 3` in `mu` (`_derivatives` against the quadrature of sigmoid and its derivatives by hand)
// and at `order = 2` in both through a caller.

mod gauss_hermite {
    use super::*;
    use autodiff::{custom_gradient, differentiable};
    use std::f64::consts::{PI, SQRT_2};

    const NODES: [f64; 5] = [
        -2.020_182_870_456_085_6,
        -0.958_572_464_613_818_5,
        0.0,
        0.958_572_464_613_818_5,
        2.020_182_870_456_085_6,
    ];
    const WEIGHTS: [f64; 5] = [
        0.019_953_242_059_045_9,
        0.393_619_323_152_241_2,
        0.945_308_720_482_941_9,
        0.393_619_323_152_241_2,
        0.019_953_242_059_045_9,
    ];

    #[custom_gradient]
    pub fn softplus(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let s = 1.0 / (1.0 + (-x).exp());
        (x.max(0.0) + (-x.abs()).exp().ln_1p(), move |dy| dy * s)
    }

    #[differentiable(wrt(mu), order = 3)]
    pub fn expected(mu: f64, sigma: f64) -> f64 {
        let mut total = 0.0;
        for k in 0..5 {
            total += WEIGHTS[k] * softplus(mu + SQRT_2 * sigma * NODES[k]);
        }
        total / PI.sqrt()
    }

    /// An expected loss with a penalty on the spread, in both parameters.
    #[differentiable(order = 2)]
    pub fn objective(mu: f64, log_sigma: f64) -> f64 {
        let sigma = log_sigma.exp();
        expected(mu, sigma) - 0.5 * log_sigma + 0.1 * mu * mu
    }

    fn quad(f: impl Fn(f64) -> f64, mu: f64, sigma: f64) -> f64 {
        (0..5)
            .map(|k| WEIGHTS[k] * f(mu + SQRT_2 * sigma * NODES[k]))
            .sum::<f64>()
            / PI.sqrt()
    }

    #[test]
    fn derivatives_in_mu_by_hand() {
        for p in points(4710, 2, 12, 0.0, 1.0) {
            let (mu, sigma) = (-2.0 + 4.0 * p[0], 0.2 + 1.5 * p[1]);
            let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
            let by_hand = [
                quad(|x| (1.0 + x.exp()).ln(), mu, sigma),
                quad(sig, mu, sigma),
                quad(|x| sig(x) * (1.0 - sig(x)), mu, sigma),
                quad(
                    |x| sig(x) * (1.0 - sig(x)) * (1.0 - 2.0 * sig(x)),
                    mu,
                    sigma,
                ),
            ];
            let d = expected_derivatives(mu, sigma);
            assert_all_close(&d, &by_hand, 1e-12, "expected_derivatives");
            let (v, g) = expected_grad(mu, sigma);
            assert_eq!(v, expected(mu, sigma));
            assert_close(g, by_hand[1], 1e-13, "expected_grad");
            let mut b = f64::NAN;
            assert_eq!(expected_grad_into(mu, sigma, &mut b), v);
            same_bits(&[b], &[g], "expected");
            let (_, _, h) = expected_hessian(mu, sigma);
            assert_close(h[0][0], by_hand[2], 1e-12, "expected_hessian");
            let (_, _, hv) = expected_hvp(mu, sigma, 1.5);
            assert_close(hv, 1.5 * by_hand[2], 1e-12, "expected_hvp");
            let (vj, dj) = expected_jvp(mu, sigma, -0.4);
            assert_eq!(vj, v);
            assert_close(dj, -0.4 * g, 1e-14, "expected_jvp");
        }
    }

    #[test]
    fn objective_at_order_2() {
        let pts: Vec<Vec<f64>> = points(4711, 2, 10, -1.5, 1.0);
        audit(
            &Items {
                what: "gauss_hermite::objective",
                primal: &|x| objective(x[0], x[1]),
                grad: &|x| {
                    let (v, g) = objective_grad(x[0], x[1]);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = objective_vjp(x[0], x[1], d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| objective_jvp(x[0], x[1], (t[0], t[1])),
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN);
                    let v = objective_grad_into(x[0], x[1], (&mut b.0, &mut b.1));
                    (v, vec![b.0, b.1])
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = objective_hvp(x[0], x[1], (v[0], v[1]));
                    (f, vec![g.0, g.1], vec![hv.0, hv.1])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = objective_hessian(x[0], x[1]);
                    (f, vec![g.0, g.1], h)
                }),
                analytic: Some(&|x| {
                    let sig = |v: f64| 1.0 / (1.0 + (-v).exp());
                    let s = x[1].exp();
                    let dmu = quad(sig, x[0], s) + 0.2 * x[0];
                    let dsigma = (0..5)
                        .map(|k| WEIGHTS[k] * sig(x[0] + SQRT_2 * s * NODES[k]) * SQRT_2 * NODES[k])
                        .sum::<f64>()
                        / PI.sqrt();
                    vec![dmu, dsigma * s - 0.5]
                }),
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) A golden-section line search whose result feeds a loss: a `while` with a compound condition
// and an iteration cap, the bracket shrunk by comparisons of a helper's values. The decisions carry no
// derivative, so the minimiser is `alpha lo + (1 - alpha) hi` with `alpha` fixed by the path taken:
// its gradient is 0 in the objective's parameters and `(alpha, 1 - alpha)` in the bracket, and the
// loss's Hessian is the objective's with `t` that affine function of the bracket (by hand).

mod golden {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn objective(t: f64, a: f64, b: f64) -> f64 {
        (t - a).powi(2) + b * (3.0 * t).sin()
    }

    #[differentiable]
    pub fn golden(a: f64, b: f64, lo: f64, hi: f64) -> f64 {
        let ratio = (5.0_f64.sqrt() - 1.0) / 2.0;
        let (mut l, mut h) = (lo, hi);
        let mut iters = 0;
        while (h - l).abs() > 1e-9 && iters < 200 {
            let c = h - ratio * (h - l);
            let d = l + ratio * (h - l);
            if objective(c, a, b) < objective(d, a, b) {
                h = d;
            } else {
                l = c;
            }
            iters += 1;
        }
        0.5 * (l + h)
    }

    #[differentiable(order = 2)]
    pub fn fitted(a: f64, b: f64, lo: f64, hi: f64) -> f64 {
        let t = golden(a, b, lo, hi);
        objective(t, a, b)
    }

    /// The same search tracking `l` and `h` as affine functions of `(lo, hi)`: the weights of `lo`.
    fn alpha(a: f64, b: f64, lo: f64, hi: f64) -> (f64, f64) {
        let f = |t: f64| (t - a).powi(2) + b * (3.0 * t).sin();
        let r = (5.0_f64.sqrt() - 1.0) / 2.0;
        let (mut l, mut h) = ((lo, 1.0), (hi, 0.0));
        let mut n = 0;
        while (h.0 - l.0).abs() > 1e-9 && n < 200 {
            let c = (h.0 - r * (h.0 - l.0), h.1 - r * (h.1 - l.1));
            let d = (l.0 + r * (h.0 - l.0), l.1 + r * (h.1 - l.1));
            if f(c.0) < f(d.0) {
                h = d;
            } else {
                l = c;
            }
            n += 1;
        }
        (0.5 * (l.0 + h.0), 0.5 * (l.1 + h.1))
    }

    fn at(p: &[f64]) -> [f64; 4] {
        [-0.5 + p[0], 0.2 * p[1], -2.0 + 0.5 * p[2], 1.5 + 0.5 * p[3]]
    }

    #[test]
    fn golden_gradient_is_the_bracket_weights() {
        for p in points(4720, 4, 12, 0.0, 1.0) {
            let [a, b, lo, hi] = at(&p);
            let (t, g) = golden_grad(a, b, lo, hi);
            let (t2, w) = alpha(a, b, lo, hi);
            assert_eq!(t, t2, "the same path");
            assert_eq!((g.0, g.1), (0.0, 0.0), "the decisions carry no derivative");
            assert_close(g.2, w, 1e-12, "d t / d lo");
            assert_close(g.3, 1.0 - w, 1e-12, "d t / d hi");
            // The minimiser: the objective's derivative vanishes there.
            assert!((2.0 * (t - a) + 3.0 * b * (3.0 * t).cos()).abs() < 1e-7);
        }
    }

    #[test]
    fn fitted_at_order_2_by_hand() {
        for p in points(4721, 4, 12, 0.0, 1.0) {
            let [a, b, lo, hi] = at(&p);
            let (t, w) = alpha(a, b, lo, hi);
            let (v, g, h) = fitted_hessian(a, b, lo, hi);
            assert_eq!(v, objective(t, a, b));
            let gt = 2.0 * (t - a) + 3.0 * b * (3.0 * t).cos();
            let gtt = 2.0 - 9.0 * b * (3.0 * t).sin();
            let c3 = 3.0 * (3.0 * t).cos();
            let grad = [-2.0 * (t - a), (3.0 * t).sin(), gt * w, gt * (1.0 - w)];
            assert_all_close(&[g.0, g.1, g.2, g.3], &grad, 1e-12, "fitted gradient");
            let by_hand = [
                [2.0, 0.0, -2.0 * w, -2.0 * (1.0 - w)],
                [0.0, 0.0, c3 * w, c3 * (1.0 - w)],
                [-2.0 * w, c3 * w, gtt * w * w, gtt * w * (1.0 - w)],
                [
                    -2.0 * (1.0 - w),
                    c3 * (1.0 - w),
                    gtt * w * (1.0 - w),
                    gtt * (1.0 - w).powi(2),
                ],
            ];
            for i in 0..4 {
                assert_all_close(&h[i], &by_hand[i], 1e-11, "fitted Hessian by hand");
            }
            // Its gradient is that of the minimum over t (the envelope theorem): central differences.
            common::assert_fd_gradient(
                |q| fitted(q[0], q[1], q[2], q[3]),
                &[a, b, lo, hi],
                &grad,
                "fitted",
            );
            let v4 = [0.3, -0.8, 0.5, 1.1];
            let (_, _, hv) = fitted_hvp(a, b, lo, hi, (v4[0], v4[1], v4[2], v4[3]));
            let expected: Vec<f64> = h.iter().map(|row| dot(row, &v4)).collect();
            assert_all_close(&[hv.0, hv.1, hv.2, hv.3], &expected, 1e-10, "fitted_hvp");
            let mut b4 = (f64::NAN, f64::NAN, f64::NAN, f64::NAN);
            let vi = fitted_grad_into(a, b, lo, hi, (&mut b4.0, &mut b4.1, &mut b4.2, &mut b4.3));
            assert_eq!(vi, v);
            same_bits(&[b4.0, b4.1, b4.2, b4.3], &[g.0, g.1, g.2, g.3], "fitted");
            let (vj, dj) = fitted_jvp(a, b, lo, hi, (v4[0], v4[1], v4[2], v4[3]));
            assert_eq!(vj, v);
            assert_close(dj, dot(&grad, &v4), 1e-12, "fitted_jvp");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) Barycentric Lagrange interpolation: the weights into an output slice by `/=` in a double loop
// skipping `k == j`, the interpolant by a `zip(..).enumerate()` loop with an early `return` at a node,
// at `order = 2` in nodes, values and the point. By hand: the weights' Jacobian, the gradient in the
// values (the Lagrange basis) and in the point (the derivative of the interpolating polynomial).

mod barycentric {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn weights(nodes: &[f64], w: &mut [f64]) {
        for j in 0..nodes.len() {
            w[j] = 1.0;
            for k in 0..nodes.len() {
                if k == j {
                    continue;
                }
                w[j] /= nodes[j] - nodes[k];
            }
        }
    }

    #[differentiable(order = 2)]
    pub fn interpolate(nodes: &[f64], values: &[f64], x: f64) -> f64 {
        let mut w = vec![0.0; nodes.len()];
        weights(nodes, &mut w);
        let mut num = 0.0;
        let mut den = 0.0;
        for (j, (&xj, &fj)) in nodes.iter().zip(values).enumerate() {
            let diff = x - xj;
            if diff == 0.0 {
                return fj;
            }
            let t = w[j] / diff;
            num += t * fj;
            den += t;
        }
        num / den
    }

    fn basis(nodes: &[f64], x: f64) -> Vec<f64> {
        (0..nodes.len())
            .map(|j| {
                (0..nodes.len())
                    .filter(|&k| k != j)
                    .map(|k| (x - nodes[k]) / (nodes[j] - nodes[k]))
                    .product()
            })
            .collect()
    }

    fn nodes(p: &[f64]) -> Vec<f64> {
        (0..4).map(|j| j as f64 + 0.3 * p[j]).collect()
    }

    #[test]
    fn weights_jacobian_by_hand() {
        for p in points(4730, 4, 10, -1.0, 1.0) {
            let x = nodes(&p);
            let mut w = vec![f64::NAN; 4];
            let j = weights_jacobian(&x, &mut w);
            check_jacobian("weights", &x, &j, |q| {
                let mut w = vec![0.0; 4];
                weights(q, &mut w);
                w
            });
            for a in 0..4 {
                let by_hand: f64 = (0..4)
                    .filter(|&k| k != a)
                    .map(|k| 1.0 / (x[a] - x[k]))
                    .product();
                assert_close(w[a], by_hand, 1e-14, "weight");
                for b in 0..4 {
                    let d = if a == b {
                        -w[a]
                            * (0..4)
                                .filter(|&k| k != a)
                                .map(|k| 1.0 / (x[a] - x[k]))
                                .sum::<f64>()
                    } else {
                        w[a] / (x[a] - x[b])
                    };
                    assert_close(j[a][b], d, 1e-12, "weights' Jacobian by hand");
                }
            }
            let c = wave(4, 0.7);
            let t = wave(4, 2.1);
            let mut o = vec![0.0; 4];
            let cj = weights_vjp(&x, &mut o, &c);
            let mut o2 = vec![0.0; 4];
            let mut jt = vec![0.0; 4];
            weights_jvp(&x, &mut o2, t.clone(), &mut jt);
            assert_eq!((&o, &o2), (&w, &w));
            check_dual("weights", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn interpolate_by_hand_and_at_order_2() {
        let pts: Vec<Vec<f64>> = points(4731, 9, 10, -1.0, 1.0)
            .iter()
            .map(|p| {
                let mut x = nodes(p);
                x.extend_from_slice(&p[4..8]);
                // Between the middle nodes.
                x.push(1.3 + 0.4 * p[8]);
                x
            })
            .collect();
        for x in &pts {
            let (n, f, at) = (&x[..4], &x[4..8], x[8]);
            let l = basis(n, at);
            let (v, g) = interpolate_grad(n, f, at);
            assert_close(v, dot(&l, f), 1e-13, "the interpolating polynomial");
            assert_all_close(&g.1, &l, 1e-13, "d p / d values = Lagrange basis");
            let dl: f64 = (0..4)
                .map(|j| {
                    f[j] * l[j]
                        * (0..4)
                            .filter(|&k| k != j)
                            .map(|k| 1.0 / (at - n[k]))
                            .sum::<f64>()
                })
                .sum();
            assert_close(g.2, dl, 1e-12, "d p / d x");
            let mut b = (vec![f64::NAN; 4], vec![f64::NAN; 4], f64::NAN);
            assert_eq!(
                interpolate_grad_into(n, f, at, (&mut b.0, &mut b.1, &mut b.2)),
                v
            );
            same_bits(
                &[b.0, b.1, vec![b.2]].concat(),
                &[g.0.clone(), g.1.clone(), vec![g.2]].concat(),
                "interpolate",
            );
            // At a node, the early return: the value there, derivative 1 in its own value only.
            let (vn, gn) = interpolate_grad(n, f, n[2]);
            assert_eq!(vn, f[2]);
            assert_eq!(gn.1, vec![0.0, 0.0, 1.0, 0.0]);
        }
        let flat = |g: (Vec<f64>, Vec<f64>, f64)| [g.0, g.1, vec![g.2]].concat();
        let split = |x: &[f64]| (x[..4].to_vec(), x[4..8].to_vec(), x[8]);
        audit(
            &Items {
                what: "barycentric::interpolate",
                primal: &|x| interpolate(&x[..4], &x[4..8], x[8]),
                grad: &|x| {
                    let (v, g) = interpolate_grad(&x[..4], &x[4..8], x[8]);
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (v, g) = interpolate_vjp(&x[..4], &x[4..8], x[8], d);
                    (v, flat(g))
                },
                jvp: &|x, t| interpolate_jvp(&x[..4], &x[4..8], x[8], split(t)),
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; 4], vec![f64::NAN; 4], f64::NAN);
                    let v = interpolate_grad_into(
                        &x[..4],
                        &x[4..8],
                        x[8],
                        (&mut b.0, &mut b.1, &mut b.2),
                    );
                    (v, flat(b))
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = interpolate_hvp(&x[..4], &x[4..8], x[8], split(v));
                    (f, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = interpolate_hessian(&x[..4], &x[4..8], x[8]);
                    (f, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) A two-layer graph neural network over a graph in CSR form (`offsets`, `nbrs`): mean aggregation
// with data-dependent inner bounds (`&nbrs[start..end]` iterated), a dense `tanh` layer writing an
// output slice from a matrix parameter, a readout by `chunks_exact`, a squared error at `order = 2` in
// the weights (`wrt`). The aggregation is linear: its Jacobian by hand.

mod gnn {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn aggregate(h: &[f64], dim: usize, offsets: &[usize], nbrs: &[usize], out: &mut [f64]) {
        let n = offsets.len() - 1;
        for i in 0..n {
            let (start, end) = (offsets[i], offsets[i + 1]);
            let count = (end - start).max(1) as f64;
            for d in 0..dim {
                let mut acc = 0.0;
                for &j in &nbrs[start..end] {
                    acc += h[j * dim + d];
                }
                out[i * dim + d] = h[i * dim + d] + acc / count;
            }
        }
    }

    #[differentiable]
    pub fn dense(x: &[f64], w: &[Vec<f64>], bias: &[f64], out: &mut [f64]) {
        let (rows, cols) = (w.len(), w[0].len());
        let n = x.len() / cols;
        for i in 0..n {
            for r in 0..rows {
                let mut z = bias[r];
                for c in 0..cols {
                    z = w[r][c].mul_add(x[i * cols + c], z);
                }
                out[i * rows + r] = z.tanh();
            }
        }
    }

    #[differentiable(wrt(w1, b1, w2), order = 2)]
    pub fn loss(
        feats: &[f64],
        offsets: &[usize],
        nbrs: &[usize],
        w1: &[Vec<f64>],
        b1: &[f64],
        w2: &[f64],
        target: f64,
    ) -> f64 {
        let n = offsets.len() - 1;
        let dim = feats.len() / n;
        let hid = b1.len();
        let mut agg = vec![0.0; feats.len()];
        aggregate(feats, dim, offsets, nbrs, &mut agg);
        let mut hidden = vec![0.0; n * hid];
        dense(&agg, w1, b1, &mut hidden);
        let mut agg2 = vec![0.0; n * hid];
        aggregate(&hidden, hid, offsets, nbrs, &mut agg2);
        let mut pred = 0.0;
        for node in agg2.chunks_exact(hid) {
            pred += node.iter().zip(w2).map(|(a, b)| a * b).sum::<f64>();
        }
        pred /= n as f64;
        (pred - target).powi(2)
    }

    // A path 0-1-2-3 with a chord 0-2 and an isolated node 4.
    const OFFSETS: [usize; 6] = [0, 2, 4, 7, 8, 8];
    const NBRS: [usize; 8] = [1, 2, 0, 2, 0, 1, 3, 2];

    fn reference_aggregate(h: &[f64], dim: usize) -> Vec<f64> {
        let mut out = h.to_vec();
        for i in 0..5 {
            let ns = &NBRS[OFFSETS[i]..OFFSETS[i + 1]];
            for d in 0..dim {
                if !ns.is_empty() {
                    out[i * dim + d] +=
                        ns.iter().map(|&j| h[j * dim + d]).sum::<f64>() / ns.len() as f64;
                }
            }
        }
        out
    }

    fn reference(feats: &[f64], w1: &[Vec<f64>], b1: &[f64], w2: &[f64], target: f64) -> f64 {
        let a = reference_aggregate(feats, 2);
        let hidden: Vec<f64> = (0..5)
            .flat_map(|i| (0..3).map(move |r| (i, r)))
            .map(|(i, r)| (b1[r] + w1[r][0] * a[2 * i] + w1[r][1] * a[2 * i + 1]).tanh())
            .collect();
        let a2 = reference_aggregate(&hidden, 3);
        let pred = (0..5).map(|i| dot(&a2[3 * i..3 * i + 3], w2)).sum::<f64>() / 5.0;
        (pred - target).powi(2)
    }

    #[test]
    fn aggregate_jacobian_by_hand() {
        for p in points(4740, 10, 6, -1.0, 1.0) {
            let mut out = vec![f64::NAN; 10];
            let j = aggregate_jacobian(&p, 2, &OFFSETS, &NBRS, &mut out);
            assert_all_close(&out, &reference_aggregate(&p, 2), 1e-15, "aggregate");
            for i in 0..5 {
                let ns = &NBRS[OFFSETS[i]..OFFSETS[i + 1]];
                for d in 0..2 {
                    for k in 0..5 {
                        let mut e = if k == i { 1.0 } else { 0.0 };
                        if ns.contains(&k) {
                            e += 1.0 / ns.len() as f64;
                        }
                        assert_eq!(j[2 * i + d][2 * k + d], e, "entry ({i}, {k})");
                        assert_eq!(j[2 * i + d][2 * k + 1 - d], 0.0, "other dimension");
                    }
                }
            }
        }
    }

    #[test]
    fn dense_duality() {
        for p in points(4741, 19, 8, -1.0, 1.0) {
            let w = common::contract::rows(&p[..6], 2);
            let (b, x) = (&p[6..9], &p[9..19]);
            let c = wave(15, 0.4);
            let t = wave(19, 1.9);
            let mut o1 = vec![0.0; 15];
            let cj = dense_vjp(x, &w, b, &mut o1, &c);
            let mut o2 = vec![0.0; 15];
            let mut jt = vec![0.0; 15];
            let tx = t[9..19].to_vec();
            dense_jvp(
                x,
                &w,
                b,
                &mut o2,
                (tx, common::contract::rows(&t[..6], 2), t[6..9].to_vec()),
                &mut jt,
            );
            assert_eq!(o1, o2);
            let mut cjf = cj.0.clone();
            let mut tf = t[9..19].to_vec();
            cjf.extend(cj.1.iter().flatten());
            cjf.extend(&cj.2);
            tf.extend(&t[..9]);
            check_dual("dense", &c, &jt, &cjf, &tf);
        }
    }

    #[test]
    fn loss_at_order_2() {
        let feats = wave(10, 0.25);
        let target = 0.3;
        let split = |x: &[f64]| {
            (
                common::contract::rows(&x[..6], 2),
                x[6..9].to_vec(),
                x[9..12].to_vec(),
            )
        };
        let flat = |g: (Vec<Vec<f64>>, Vec<f64>, Vec<f64>)| {
            let mut v: Vec<f64> = g.0.into_iter().flatten().collect();
            v.extend(g.1);
            v.extend(g.2);
            v
        };
        let pts = points(4742, 12, 10, -1.0, 1.0);
        for x in &pts {
            let (w1, b1, w2) = split(x);
            let (v, g) = loss_grad(&feats, &OFFSETS, &NBRS, &w1, &b1, &w2, target);
            assert_close(
                v,
                reference(&feats, &w1, &b1, &w2, target),
                1e-13,
                "gnn loss",
            );
            let mut b = (
                vec![vec![f64::NAN; 2]; 3],
                vec![f64::NAN; 3],
                vec![f64::NAN; 3],
            );
            let vi = loss_grad_into(
                &feats,
                &OFFSETS,
                &NBRS,
                &w1,
                &b1,
                &w2,
                target,
                (&mut b.0, &mut b.1, &mut b.2),
            );
            assert_eq!(vi, v);
            same_bits(&flat(b), &flat(g), "gnn loss");
        }
        audit(
            &Items {
                what: "gnn::loss",
                primal: &|x| {
                    let (w1, b1, w2) = split(x);
                    loss(&feats, &OFFSETS, &NBRS, &w1, &b1, &w2, target)
                },
                grad: &|x| {
                    let (w1, b1, w2) = split(x);
                    let (v, g) = loss_grad(&feats, &OFFSETS, &NBRS, &w1, &b1, &w2, target);
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (w1, b1, w2) = split(x);
                    let (v, g) = loss_vjp(&feats, &OFFSETS, &NBRS, &w1, &b1, &w2, target, d);
                    (v, flat(g))
                },
                jvp: &|x, t| {
                    let (w1, b1, w2) = split(x);
                    loss_jvp(&feats, &OFFSETS, &NBRS, &w1, &b1, &w2, target, split(t))
                },
                grad_into: &|x| {
                    let (w1, b1, w2) = split(x);
                    let mut b = (
                        vec![vec![f64::NAN; 2]; 3],
                        vec![f64::NAN; 3],
                        vec![f64::NAN; 3],
                    );
                    let v = loss_grad_into(
                        &feats,
                        &OFFSETS,
                        &NBRS,
                        &w1,
                        &b1,
                        &w2,
                        target,
                        (&mut b.0, &mut b.1, &mut b.2),
                    );
                    (v, flat(b))
                },
                hvp: Some(&|x, v| {
                    let (w1, b1, w2) = split(x);
                    let (f, g, hv) =
                        loss_hvp(&feats, &OFFSETS, &NBRS, &w1, &b1, &w2, target, split(v));
                    (f, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (w1, b1, w2) = split(x);
                    let (f, g, h) = loss_hessian(&feats, &OFFSETS, &NBRS, &w1, &b1, &w2, target);
                    (f, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) Kernel ridge regression: an RBF kernel helper, the Gram matrix as a local `Vec<Vec<f64>>`, the
// ridge system solved by a Cholesky factorisation written out (in place, into the lower triangle) and
// two triangular solves, predictions returned as a `Vec` whose `_jacobian` runs over the length scale
// and the training data; the leave-nothing-out fit error at `order = 2` in `(ell, lambda)`.

mod krr {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn rbf(a: f64, b: f64, ell: f64) -> f64 {
        (-0.5 * ((a - b) / ell).powi(2)).exp()
    }

    /// Solves `(K + lambda I) alpha = y` by Cholesky, into `alpha`.
    #[differentiable]
    pub fn solve(xs: &[f64], ys: &[f64], ell: f64, lambda: f64, alpha: &mut [f64]) {
        let n = xs.len();
        let mut l = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..=i {
                l[i][j] = rbf(xs[i], xs[j], ell);
                if i == j {
                    l[i][j] += lambda;
                }
            }
        }
        for j in 0..n {
            let mut d = l[j][j];
            for k in 0..j {
                d -= l[j][k] * l[j][k];
            }
            l[j][j] = d.sqrt();
            for i in j + 1..n {
                let mut s = l[i][j];
                for k in 0..j {
                    s -= l[i][k] * l[j][k];
                }
                l[i][j] = s / l[j][j];
            }
        }
        let mut z = vec![0.0; n];
        for i in 0..n {
            let mut s = ys[i];
            for k in 0..i {
                s -= l[i][k] * z[k];
            }
            z[i] = s / l[i][i];
        }
        for i in (0..n).rev() {
            let mut s = z[i];
            for k in i + 1..n {
                s -= l[k][i] * alpha[k];
            }
            alpha[i] = s / l[i][i];
        }
    }

    #[differentiable(wrt(ell, xs, ys))]
    pub fn predict(ell: f64, xs: &[f64], ys: &[f64], lambda: f64, queries: &[f64]) -> Vec<f64> {
        let mut alpha = vec![0.0; xs.len()];
        solve(xs, ys, ell, lambda, &mut alpha);
        let mut out = vec![0.0; queries.len()];
        for (q, &x) in queries.iter().enumerate() {
            for (i, &xi) in xs.iter().enumerate() {
                out[q] += alpha[i] * rbf(x, xi, ell);
            }
        }
        out
    }

    #[differentiable(wrt(ell, lambda), order = 2)]
    pub fn fit_error(ell: f64, lambda: f64, xs: &[f64], ys: &[f64]) -> f64 {
        let fitted = predict(ell, xs, ys, lambda, xs);
        fitted
            .iter()
            .zip(ys)
            .map(|(f, y)| (f - y).powi(2))
            .sum::<f64>()
    }

    /// Gaussian elimination on the dense system (the oracle).
    fn reference(ell: f64, xs: &[f64], ys: &[f64], lambda: f64, queries: &[f64]) -> Vec<f64> {
        let n = xs.len();
        let k = |a: f64, b: f64| (-0.5 * ((a - b) / ell).powi(2)).exp();
        let mut m: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let mut row: Vec<f64> = (0..n).map(|j| k(xs[i], xs[j])).collect();
                row[i] += lambda;
                row.push(ys[i]);
                row
            })
            .collect();
        for c in 0..n {
            for i in c + 1..n {
                let f = m[i][c] / m[c][c];
                for j in c..=n {
                    m[i][j] -= f * m[c][j];
                }
            }
        }
        let mut alpha = vec![0.0; n];
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|j| m[i][j] * alpha[j]).sum();
            alpha[i] = (m[i][n] - s) / m[i][i];
        }
        queries
            .iter()
            .map(|&q| (0..n).map(|i| alpha[i] * k(q, xs[i])).sum())
            .collect()
    }

    const QUERIES: [f64; 3] = [-0.8, 0.1, 0.9];

    #[test]
    fn predict_jacobian_and_duality() {
        for p in points(4750, 11, 10, -1.0, 1.0) {
            let ell = 0.4 + 0.3 * (p[0] + 1.0);
            let xs: Vec<f64> = (0..5)
                .map(|i| -1.0 + 0.5 * i as f64 + 0.1 * p[1 + i])
                .collect();
            let ys = p[6..11].to_vec();
            let out = predict(ell, &xs, &ys, 0.1, &QUERIES);
            assert_all_close(&out, &reference(ell, &xs, &ys, 0.1, &QUERIES), 1e-11, "krr");
            let j = predict_jacobian(ell, &xs, &ys, 0.1, &QUERIES);
            assert_eq!((j.len(), j[0].len()), (3, 11));
            let mut x = vec![ell];
            x.extend(&xs);
            x.extend(&ys);
            check_jacobian("krr predict", &x, &j, |q| {
                reference(q[0], &q[1..6], &q[6..11], 0.1, &QUERIES)
            });
            let c = wave(3, 0.5);
            let t = wave(11, 0.2);
            let (v, cj) = predict_vjp(ell, &xs, &ys, 0.1, &QUERIES, c.clone());
            let (v2, jt) = predict_jvp(
                ell,
                &xs,
                &ys,
                0.1,
                &QUERIES,
                (t[0], t[1..6].to_vec(), t[6..].to_vec()),
            );
            assert_eq!((&v, &v2), (&out, &out));
            let mut cjf = vec![cj.0];
            cjf.extend(&cj.1);
            cjf.extend(&cj.2);
            check_dual("krr predict", &c, &jt, &cjf, &t);
            // Linear in ys: the ys columns do not depend on ys.
            let j2 = predict_jacobian(ell, &xs, &wave(5, 3.0), 0.1, &QUERIES);
            for q in 0..3 {
                assert_all_close(&j[q][6..], &j2[q][6..], 1e-12, "linear in ys");
            }
        }
    }

    #[test]
    fn fit_error_at_order_2() {
        let xs = [-1.0, -0.45, 0.05, 0.5, 1.0];
        let ys = [0.3, -0.2, 0.8, 0.1, -0.5];
        let pts: Vec<Vec<f64>> = points(4751, 2, 10, 0.0, 1.0)
            .iter()
            .map(|p| vec![0.3 + 0.5 * p[0], 0.05 + 0.3 * p[1]])
            .collect();
        audit(
            &Items {
                what: "krr::fit_error",
                primal: &|x| fit_error(x[0], x[1], &xs, &ys),
                grad: &|x| {
                    let (v, g) = fit_error_grad(x[0], x[1], &xs, &ys);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = fit_error_vjp(x[0], x[1], &xs, &ys, d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| fit_error_jvp(x[0], x[1], &xs, &ys, (t[0], t[1])),
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN);
                    let v = fit_error_grad_into(x[0], x[1], &xs, &ys, (&mut b.0, &mut b.1));
                    (v, vec![b.0, b.1])
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = fit_error_hvp(x[0], x[1], &xs, &ys, (v[0], v[1]));
                    (f, vec![g.0, g.1], vec![hv.0, hv.1])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = fit_error_hessian(x[0], x[1], &xs, &ys);
                    (f, vec![g.0, g.1], h)
                }),
                analytic: None,
            },
            &pts,
        );
        for x in &pts {
            let (v, g) = fit_error_grad(x[0], x[1], &xs, &ys);
            let mut b = (f64::NAN, f64::NAN);
            assert_eq!(
                fit_error_grad_into(x[0], x[1], &xs, &ys, (&mut b.0, &mut b.1)),
                v
            );
            same_bits(&[b.0, b.1], &[g.0, g.1], "fit_error");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) The Peng-Robinson equation of state: the compressibility factor as the largest root of a cubic
// by Newton iterations (a `while` with a compound condition and a `break` on a tiny step) into a
// `&mut f64` output parameter, the fugacity coefficient `ln phi` returned, at `order = 2` in
// temperature and pressure. Newton's derivatives converge to the implicit ones: `dZ/dp` by hand.

mod peng_robinson {
    use super::*;
    use autodiff::differentiable;

    const R: f64 = 8.314;

    /// `a(T)` and `b` of one component from its critical point and acentric factor.
    #[differentiable]
    pub fn coefficients(t: f64, tc: f64, pc: f64, omega: f64) -> (f64, f64) {
        let kappa = 0.37464 + 1.54226 * omega - 0.26992 * omega * omega;
        let alpha = (1.0 + kappa * (1.0 - (t / tc).sqrt())).powi(2);
        let a = 0.45724 * R * R * tc * tc / pc * alpha;
        let b = 0.07780 * R * tc / pc;
        (a, b)
    }

    /// The cubic `Z³ - (1 - B) Z² + (A - 3B² - 2B) Z - (AB - B² - B³)` and its derivative in `Z`.
    #[differentiable]
    pub fn cubic(z: f64, a: f64, b: f64) -> (f64, f64) {
        let c2 = -(1.0 - b);
        let c1 = a - 3.0 * b * b - 2.0 * b;
        let c0 = -(a * b - b * b - b * b * b);
        (((z + c2) * z + c1) * z + c0, (3.0 * z + 2.0 * c2) * z + c1)
    }

    #[differentiable]
    pub fn ln_phi(t: f64, p: f64, tc: f64, pc: f64, omega: f64, z_out: &mut f64) -> f64 {
        let (a, b) = coefficients(t, tc, pc, omega);
        let big_a = a * p / (R * t).powi(2);
        let big_b = b * p / (R * t);
        let mut z = 1.0;
        let mut iters = 0;
        while iters < 50 && z > big_b {
            let (f, df) = cubic(z, big_a, big_b);
            let step = f / df;
            z -= step;
            iters += 1;
            if step.abs() < 1e-15 {
                break;
            }
        }
        *z_out = z;
        let s2 = std::f64::consts::SQRT_2;
        z - 1.0
            - (z - big_b).ln()
            - big_a / (2.0 * s2 * big_b)
                * ((z + (1.0 + s2) * big_b) / (z + (1.0 - s2) * big_b)).ln()
    }

    #[differentiable(wrt(t, p), order = 2)]
    pub fn fugacity_gap(t: f64, p: f64, target: f64) -> f64 {
        let mut z = 0.0;
        // Methane.
        let lp = ln_phi(t, p, 190.6, 4.599e6, 0.012, &mut z);
        (lp - target).powi(2) + 0.1 * z
    }

    fn scaled(q: &[f64]) -> [f64; 2] {
        [250.0 + 100.0 * q[0], 1.0e6 + 4.0e6 * q[1]]
    }

    #[test]
    fn z_by_implicit_differentiation() {
        for q in points(4760, 2, 12, 0.0, 1.0) {
            let [t, p] = scaled(&q);
            let mut z = f64::NAN;
            let v = ln_phi(t, p, 190.6, 4.599e6, 0.012, &mut z);
            let (a, b) = coefficients(t, 190.6, 4.599e6, 0.012);
            let (ba, bb) = (a * p / (R * t).powi(2), b * p / (R * t));
            let (f, df) = cubic(z, ba, bb);
            assert!(f.abs() < 1e-14 && z > bb, "a root above B");
            // dZ/dp from the jvp of the output: -(df/dA A/p + df/dB B/p) / df/dZ.
            let mut z2 = 0.0;
            let mut dz = f64::NAN;
            let (v2, _) = ln_phi_jvp(
                t,
                p,
                190.6,
                4.599e6,
                0.012,
                &mut z2,
                (0.0, 1.0, 0.0, 0.0, 0.0),
                &mut dz,
            );
            assert_eq!((v2, z2), (v, z));
            let (_, dcubic) = cubic_vjp(z, ba, bb, (1.0, 0.0));
            let implicit = -(dcubic.1 * ba / p + dcubic.2 * bb / p) / df;
            assert_close(dz * 1e6, implicit * 1e6, 1e-9, "dZ/dp");
            // Duality of the two outputs over (t, p).
            let c = (0.7, -1.3);
            let mut z3 = 0.0;
            let (_, cj) = ln_phi_vjp(t, p, 190.6, 4.599e6, 0.012, &mut z3, c.0, c.1);
            let mut z4 = 0.0;
            let mut dz4 = 0.0;
            let (_, dv) = ln_phi_jvp(
                t,
                p,
                190.6,
                4.599e6,
                0.012,
                &mut z4,
                (0.3, 2e5, 1.0, -3e3, 0.01),
                &mut dz4,
            );
            check_dual(
                "ln_phi",
                &[c.0, c.1],
                &[dv, dz4],
                &[cj.0, cj.1, cj.2, cj.3, cj.4],
                &[0.3, 2e5, 1.0, -3e3, 0.01],
            );
        }
    }

    #[test]
    fn fugacity_gap_at_order_2() {
        // In units of 100 K and 1 MPa, so that differences take steps of the inputs' own size.
        let pts: Vec<Vec<f64>> = points(4761, 2, 10, 0.0, 1.0)
            .iter()
            .map(|q| {
                let [t, p] = scaled(q);
                vec![t / 100.0, p / 1e6]
            })
            .collect();
        let f = |x: &[f64]| fugacity_gap(100.0 * x[0], 1e6 * x[1], -0.05);
        audit(
            &Items {
                what: "peng_robinson::fugacity_gap",
                primal: &f,
                grad: &|x| {
                    let (v, g) = fugacity_gap_grad(100.0 * x[0], 1e6 * x[1], -0.05);
                    (v, vec![100.0 * g.0, 1e6 * g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = fugacity_gap_vjp(100.0 * x[0], 1e6 * x[1], -0.05, d);
                    (v, vec![100.0 * g.0, 1e6 * g.1])
                },
                jvp: &|x, t| {
                    fugacity_gap_jvp(100.0 * x[0], 1e6 * x[1], -0.05, (100.0 * t[0], 1e6 * t[1]))
                },
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN);
                    let v = fugacity_gap_grad_into(
                        100.0 * x[0],
                        1e6 * x[1],
                        -0.05,
                        (&mut b.0, &mut b.1),
                    );
                    (v, vec![100.0 * b.0, 1e6 * b.1])
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = fugacity_gap_hvp(
                        100.0 * x[0],
                        1e6 * x[1],
                        -0.05,
                        (100.0 * v[0], 1e6 * v[1]),
                    );
                    (
                        f,
                        vec![100.0 * g.0, 1e6 * g.1],
                        vec![100.0 * hv.0, 1e6 * hv.1],
                    )
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = fugacity_gap_hessian(100.0 * x[0], 1e6 * x[1], -0.05);
                    let s = [100.0, 1e6];
                    let h = (0..2)
                        .map(|i| (0..2).map(|j| s[i] * s[j] * h[i][j]).collect())
                        .collect();
                    (f, vec![100.0 * g.0, 1e6 * g.1], h)
                }),
                analytic: None,
            },
            &pts,
        );
        for x in &pts {
            let (v, g) = fugacity_gap_grad(100.0 * x[0], 1e6 * x[1], -0.05);
            let mut b = (f64::NAN, f64::NAN);
            assert_eq!(
                fugacity_gap_grad_into(100.0 * x[0], 1e6 * x[1], -0.05, (&mut b.0, &mut b.1)),
                v
            );
            same_bits(&[b.0, b.1], &[g.0, g.1], "fugacity_gap");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (16) A Q-learning step with a target network: linear features, the bootstrapped target behind
// `autodiff::stop_gradient`, a Huber loss owned by another module (`losses::huber`, a plain function
// whose gradient is registered by `#[gradient_of]`, called by its path), and the greedy action chosen
// by comparisons, at `order = 2` in the weights.

mod losses {
    pub fn huber(r: f64, delta: f64) -> f64 {
        if r.abs() <= delta {
            0.5 * r * r
        } else {
            delta * (r.abs() - 0.5 * delta)
        }
    }
}

mod td {
    use super::*;
    use autodiff::{differentiable, gradient_of, stop_gradient};

    #[gradient_of(super::losses::huber)]
    fn huber_vjp_rule(r: f64, delta: f64, dy: f64) -> (f64, f64) {
        if r.abs() <= delta {
            (dy * r, 0.0)
        } else {
            (dy * delta * r.signum(), dy * (r.abs() - delta))
        }
    }

    #[differentiable]
    pub fn q_value(w: &[f64], state: &[f64], action: usize) -> f64 {
        let d = state.len();
        let mut q = w[action * (d + 1) + d];
        for (k, &s) in state.iter().enumerate() {
            q += w[action * (d + 1) + k] * s;
        }
        q
    }

    #[differentiable(wrt(w), order = 2)]
    pub fn td_loss(
        w: &[f64],
        batch: &[Vec<f64>],
        actions: &[usize],
        rewards: &[f64],
        gamma: f64,
    ) -> f64 {
        let d = (batch[0].len() - 1) / 2;
        let mut total = 0.0;
        for (i, row) in batch.iter().enumerate() {
            let (state, next) = (&row[..d], &row[d..2 * d]);
            let mut best = f64::NEG_INFINITY;
            for a in 0..2 {
                let q = q_value(w, next, a);
                if q > best {
                    best = q;
                }
            }
            let target = rewards[i] + gamma * stop_gradient(best) * (1.0 - row[2 * d]);
            let r = q_value(w, state, actions[i]) - target;
            total += super::losses::huber(r, 1.0);
        }
        total / batch.len() as f64
    }

    fn reference_grad(
        w: &[f64],
        batch: &[Vec<f64>],
        actions: &[usize],
        rewards: &[f64],
        gamma: f64,
    ) -> Vec<f64> {
        let d = 2;
        let q = |s: &[f64], a: usize| w[a * 3 + 2] + w[a * 3] * s[0] + w[a * 3 + 1] * s[1];
        let mut g = [0.0; 6];
        for (i, row) in batch.iter().enumerate() {
            let best = q(&row[d..], 0).max(q(&row[d..], 1));
            let target = rewards[i] + gamma * best * (1.0 - row[4]);
            let r = q(&row[..d], actions[i]) - target;
            let dr = r.clamp(-1.0, 1.0);
            let a = actions[i];
            g[a * 3] += dr * row[0];
            g[a * 3 + 1] += dr * row[1];
            g[a * 3 + 2] += dr;
        }
        g.iter().map(|v| v / batch.len() as f64).collect()
    }

    #[test]
    fn semi_gradient_by_hand_and_order_2() {
        let mut inputs = common::Inputs(4770);
        let batch: Vec<Vec<f64>> = (0..6)
            .map(|i| {
                let mut row = inputs.vec(4);
                row.iter_mut().for_each(|v| *v *= 2.0);
                row.push(if i == 3 { 1.0 } else { 0.0 });
                row
            })
            .collect();
        let actions = [0, 1, 1, 0, 1, 0];
        let rewards = [1.0, -0.5, 0.25, 2.0, 0.0, -1.0];
        let pts = points(4771, 6, 10, -1.5, 1.5);
        for w in &pts {
            let (v, g) = td_loss_grad(w, &batch, &actions, &rewards, 0.9);
            assert_eq!(v, td_loss(w, &batch, &actions, &rewards, 0.9));
            assert_all_close(
                &g,
                &reference_grad(w, &batch, &actions, &rewards, 0.9),
                1e-13,
                "semi-gradient",
            );
            let mut b = vec![f64::NAN; 6];
            assert_eq!(
                td_loss_grad_into(w, &batch, &actions, &rewards, 0.9, &mut b),
                v
            );
            same_bits(&b, &g, "td_loss");
            // The Hessian, as JAX's of a `stop_gradient` target: zero derivative at every order, so
            // `sum_i [|r_i| <= 1] dq_i dq_iᵀ / n` by hand (not the Jacobian of `_grad`'s numbers, whose
            // target moves with `w`).
            let (_, _, h) = td_loss_hessian(w, &batch, &actions, &rewards, 0.9);
            let mut by_hand = vec![vec![0.0; 6]; 6];
            for (i, row) in batch.iter().enumerate() {
                let q = |s: &[f64], a: usize| w[a * 3 + 2] + w[a * 3] * s[0] + w[a * 3 + 1] * s[1];
                let best = q(&row[2..], 0).max(q(&row[2..], 1));
                let r = q(&row[..2], actions[i]) - rewards[i] - 0.9 * best * (1.0 - row[4]);
                if r.abs() <= 1.0 {
                    let a = actions[i];
                    let feature = [row[0], row[1], 1.0];
                    for j in 0..3 {
                        for k in 0..3 {
                            by_hand[a * 3 + j][a * 3 + k] += feature[j] * feature[k] / 6.0;
                        }
                    }
                }
            }
            for i in 0..6 {
                assert_all_close(&h[i], &by_hand[i], 1e-13, "Hessian with the target stopped");
            }
            let vv = wave(6, 0.3);
            let (_, _, hv) = td_loss_hvp(w, &batch, &actions, &rewards, 0.9, vv.clone());
            let expected: Vec<f64> = h.iter().map(|row| dot(row, &vv)).collect();
            assert_all_close(&hv, &expected, 1e-12, "td_loss_hvp");
            let (vj, dj) = td_loss_jvp(w, &batch, &actions, &rewards, 0.9, vv.clone());
            assert_eq!(vj, v);
            assert_close(dj, dot(&g, &vv), 1e-12, "td_loss_jvp");
            let (vv2, gv) = td_loss_vjp(w, &batch, &actions, &rewards, 0.9, 3.0);
            assert_eq!(vv2, v);
            assert_all_close(
                &gv,
                &g.iter().map(|x| 3.0 * x).collect::<Vec<_>>(),
                1e-14,
                "td_loss_vjp",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (17) Polishing a polynomial root by Newton, generic over `T: Float`: Horner's rule returning the value
// and the derivative as a tuple (`.iter().rev()`), a `for` with a `break` on a small step, at `order =
// 2` in the coefficients; run on `f64`, `f32` and `Dual<f64>`. By implicit differentiation of
// `P(r; c) = 0`: `dr/dc_k = -r^k / P'(r)`, and the second derivatives from differentiating that again.

mod root_polish {
    use super::*;
    use autodiff::{differentiable, Float};

    #[differentiable]
    pub fn horner<T: Float>(c: &[T], x: T) -> (T, T) {
        let mut p = T::zero();
        let mut dp = T::zero();
        for &ck in c.iter().rev() {
            dp = dp * x + p;
            p = p * x + ck;
        }
        (p, dp)
    }

    #[differentiable(wrt(c), order = 2)]
    pub fn root<T: Float>(c: &[T], guess: T) -> T {
        let mut x = guess;
        let tol = T::from(1e-14).unwrap();
        for _ in 0..60 {
            let (p, dp) = horner(c, x);
            let step = p / dp;
            x = x - step;
            if step.abs() < tol {
                break;
            }
        }
        x
    }

    /// Coefficients (lowest degree first) of a cubic with a simple root near 1.
    fn coefficients(p: &[f64]) -> Vec<f64> {
        vec![
            -1.0 + 0.2 * p[0],
            0.5 + 0.2 * p[1],
            0.3 * p[2],
            1.0 + 0.2 * p[3],
        ]
    }

    #[test]
    fn root_by_implicit_differentiation() {
        for p in points(4780, 4, 12, -1.0, 1.0) {
            let c = coefficients(&p);
            let (r, g, h) = root_hessian(&c, 1.0);
            let (pr, d1) = horner(&c, r);
            assert!(pr.abs() < 1e-13, "a root");
            let d2: f64 = (2..4)
                .map(|k| (k * (k - 1)) as f64 * c[k] * r.powi(k as i32 - 2))
                .sum();
            let rk = |k: usize| r.powi(k as i32);
            let dr: Vec<f64> = (0..4).map(|k| -rk(k) / d1).collect();
            assert_all_close(&g, &dr, 1e-12, "dr/dc by hand");
            for j in 0..4 {
                for k in 0..4 {
                    // d/dc_j of -(r^k / P'): P' depends on c_j directly (j r^(j-1)) and through r.
                    let drk = if k == 0 {
                        0.0
                    } else {
                        k as f64 * r.powi(k as i32 - 1) * dr[j]
                    };
                    let dd1 = d2 * dr[j]
                        + if j == 0 {
                            0.0
                        } else {
                            j as f64 * r.powi(j as i32 - 1)
                        };
                    let by_hand = -(drk * d1 - rk(k) * dd1) / (d1 * d1);
                    assert_close(h[j][k], by_hand, 1e-10, "d²r/dc_j dc_k by hand");
                }
            }
            // The same function on f32 and on dual numbers.
            let c32: Vec<f32> = c.iter().map(|&v| v as f32).collect();
            let (r32, g32) = root_grad(&c32, 1.0f32);
            assert!((r32 as f64 - r).abs() < 1e-5);
            for k in 0..4 {
                assert!(
                    (g32[k] as f64 - g[k]).abs() < 1e-4 * (1.0 + g[k].abs()),
                    "f32 gradient"
                );
            }
            let t = wave(4, 0.6);
            let duals = common::seeded(&c, &t);
            let rd = root(&duals, autodiff::Dual::new(1.0, 0.0));
            assert_close(rd.re, r, 1e-14, "dual value");
            assert_close(rd.eps, dot(&g, &t), 1e-11, "dual tangent");
            let mut b = vec![f64::NAN; 4];
            assert_eq!(root_grad_into(&c, 1.0, &mut b), r);
            same_bits(&b, &g, "root");
        }
    }

    #[test]
    fn root_at_order_2() {
        let pts: Vec<Vec<f64>> = points(4781, 4, 10, -1.0, 1.0)
            .iter()
            .map(|p| coefficients(p))
            .collect();
        audit(
            &Items {
                what: "root_polish::root",
                primal: &|x| root(x, 1.0),
                grad: &|x| root_grad(x, 1.0),
                vjp: &|x, d| root_vjp(x, 1.0, d),
                jvp: &|x, t| root_jvp(x, 1.0, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![f64::NAN; 4];
                    let v = root_grad_into(x, 1.0, &mut b);
                    (v, b)
                },
                hvp: Some(&|x, v| root_hvp(x, 1.0, v.to_vec())),
                hessian: Some(&|x| root_hessian(x, 1.0)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (18) A Pacejka "magic formula" tyre as a `Differentiable` struct with an array field (`[f64; 4]`),
// a nested `Differentiable` struct field (load sensitivity) and a `#[no_grad]` id: an associated helper
// `Self::magic` (no `self`), a method `force` reading nested fields, a fit over zipped slices, all at
// `order = 2`; the struct's gradient and Hessian over its flat view.

mod tyre {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Load {
        pub fz0: f64,
        pub gain: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Tyre {
        pub shape: [f64; 4],
        pub load: Load,
        #[no_grad]
        pub id: usize,
    }

    impl Tyre {
        #[differentiable(order = 2)]
        pub fn magic(b: f64, c: f64, d: f64, e: f64, x: f64) -> f64 {
            let bx = b * x;
            d * (c * (bx - e * (bx - bx.atan())).atan()).sin()
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn force(&self, slip: f64, fz: f64) -> f64 {
            let dfz = (fz - self.load.fz0) / self.load.fz0;
            let peak = self.shape[2] * (1.0 + self.load.gain * dfz) * fz;
            Self::magic(self.shape[0], self.shape[1], peak, self.shape[3], slip)
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn fit(&self, slips: &[f64], loads: &[f64], measured: &[f64]) -> f64 {
            let mut sse = 0.0;
            for ((&s, &fz), &m) in slips.iter().zip(loads).zip(measured) {
                let r = self.force(s, fz) - m;
                sse += r * r;
            }
            sse
        }
    }

    fn tyre(p: &[f64]) -> Tyre {
        Tyre {
            shape: [p[0], p[1], p[2], p[3]],
            load: Load {
                fz0: p[4],
                gain: p[5],
            },
            id: 7,
        }
    }

    fn unit(q: &[f64]) -> Vec<f64> {
        vec![
            8.0 + 4.0 * q[0],
            1.3 + 0.4 * q[1],
            1.0 + 0.2 * q[2],
            -0.5 + q[3],
            3.0 + q[4],
            -0.2 + 0.2 * q[5],
        ]
    }

    #[test]
    fn magic_by_hand() {
        for q in points(4790, 5, 12, 0.0, 1.0) {
            let (b, c, d, e, x) = (
                8.0 + 4.0 * q[0],
                1.3 + 0.4 * q[1],
                1.0 + q[2],
                -0.5 + q[3],
                -0.3 + 0.6 * q[4],
            );
            let bx = b * x;
            let phi = bx - e * (bx - bx.atan());
            let (v, g) = Tyre::magic_grad(b, c, d, e, x);
            assert_close(v, d * (c * phi.atan()).sin(), 1e-15, "magic");
            let outer = d * (c * phi.atan()).cos() * c / (1.0 + phi * phi);
            let dphi_dx = b - e * (b - b / (1.0 + bx * bx));
            assert_close(g.4, outer * dphi_dx, 1e-12, "dF/dslip by hand");
            assert_close(g.2, (c * phi.atan()).sin(), 1e-14, "dF/dD by hand");
            assert_close(g.3, outer * -(bx - bx.atan()), 1e-12, "dF/dE by hand");
        }
    }

    #[test]
    fn fit_at_order_2() {
        let slips = wave(8, 0.1).iter().map(|v| 0.2 * v).collect::<Vec<f64>>();
        let loads: Vec<f64> = (0..8).map(|i| 2.0 + 0.3 * i as f64).collect();
        let measured = wave(8, 1.4).iter().map(|v| 2.0 * v).collect::<Vec<f64>>();
        let pts: Vec<Vec<f64>> = points(4791, 6, 8, 0.0, 1.0)
            .iter()
            .map(|q| unit(q))
            .collect();
        for p in &pts {
            let t = tyre(p);
            let (v, g) = t.fit_grad(&slips, &loads, &measured);
            assert_eq!(g.id, 7, "the no_grad id is copied");
            let mut b = t.zero_like();
            b.shape[1] = f64::NAN;
            assert_eq!(t.fit_grad_into(&slips, &loads, &measured, &mut b), v);
            same_bits(&b.to_flat(), &g.to_flat(), "fit");
            assert_eq!(t.from_flat(&g.to_flat()).load.gain, g.load.gain);
        }
        audit(
            &Items {
                what: "tyre::fit",
                primal: &|x| tyre(x).fit(&slips, &loads, &measured),
                grad: &|x| {
                    let (v, g) = tyre(x).fit_grad(&slips, &loads, &measured);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = tyre(x).fit_vjp(&slips, &loads, &measured, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| tyre(x).fit_jvp(&slips, &loads, &measured, tyre(t)),
                grad_into: &|x| {
                    let t = tyre(x);
                    let mut b = t.zero_like();
                    let v = t.fit_grad_into(&slips, &loads, &measured, &mut b);
                    (v, b.to_flat())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = tyre(x).fit_hvp(&slips, &loads, &measured, tyre(v));
                    (f, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = tyre(x).fit_hessian(&slips, &loads, &measured);
                    (f, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (19) A linear recurrence `x_{n+1} = a x_n + b x_{n-1}` by a recursive matrix power (squaring, an
// early `return` of the identity, an array chosen by `if`), `[f64; 4]` products from a helper, at
// `order = 2` in `(a, b)`; against the recurrence run forward and its derivatives carried by hand.

mod matpow {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn mat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        [
            a[0] * b[0] + a[1] * b[2],
            a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3],
        ]
    }

    #[differentiable]
    pub fn mat_pow(m: [f64; 4], n: u32) -> [f64; 4] {
        if n == 0 {
            return [1.0, 0.0, 0.0, 1.0];
        }
        let half = mat_pow(m, n / 2);
        let sq = mat_mul(half, half);
        if n % 2 == 1 {
            mat_mul(sq, m)
        } else {
            sq
        }
    }

    #[differentiable(order = 2)]
    pub fn term(a: f64, b: f64) -> f64 {
        let p = mat_pow([a, b, 1.0, 0.0], 11);
        p[2]
    }

    /// `x_n` and its derivatives in `a` and `b`, first and second, by the recurrence.
    fn forward(a: f64, b: f64, n: usize) -> [f64; 6] {
        // (x, x_a, x_b, x_aa, x_ab, x_bb) at n - 1 and n.
        let mut prev = [0.0; 6];
        let mut cur = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        for _ in 1..n {
            let next = [
                a * cur[0] + b * prev[0],
                cur[0] + a * cur[1] + b * prev[1],
                a * cur[2] + prev[0] + b * prev[2],
                2.0 * cur[1] + a * cur[3] + b * prev[3],
                cur[2] + a * cur[4] + prev[1] + b * prev[4],
                a * cur[5] + 2.0 * prev[2] + b * prev[5],
            ];
            prev = cur;
            cur = next;
        }
        cur
    }

    #[test]
    fn term_by_the_recurrence() {
        let pts = points(4800, 2, 12, -1.0, 1.0);
        for p in &pts {
            let f = forward(p[0], p[1], 11);
            let (v, g, h) = term_hessian(p[0], p[1]);
            assert_close(v, f[0], 1e-13, "x_11");
            assert_all_close(&[g.0, g.1], &f[1..3], 1e-12, "its gradient");
            assert_all_close(&[h[0][0], h[0][1], h[1][1]], &f[3..6], 1e-11, "its Hessian");
            let m = [p[0], p[1], 0.4, -0.3];
            let c = wave(4, 0.8);
            let t = wave(4, 0.1);
            let (_, cj) = mat_pow_vjp(m, 5, arr(&c));
            let (_, jt) = mat_pow_jvp(m, 5, arr(&t));
            check_dual("mat_pow", &c, &jt, &cj, &t);
            let j = mat_pow_jacobian(m, 5);
            check_jacobian("mat_pow", &m, &j, |q| mat_pow(arr(q), 5).to_vec());
        }
        audit(
            &Items {
                what: "matpow::term",
                primal: &|x| term(x[0], x[1]),
                grad: &|x| {
                    let (v, g) = term_grad(x[0], x[1]);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = term_vjp(x[0], x[1], d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| term_jvp(x[0], x[1], (t[0], t[1])),
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN);
                    let v = term_grad_into(x[0], x[1], (&mut b.0, &mut b.1));
                    (v, vec![b.0, b.1])
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = term_hvp(x[0], x[1], (v[0], v[1]));
                    (f, vec![g.0, g.1], vec![hv.0, hv.1])
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = term_hessian(x[0], x[1]);
                    (f, vec![g.0, g.1], h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (20) Leave-one-out cross-validation of a Nadaraya-Watson smoother in the log bandwidth: a closure
// bound to a local capturing the bandwidth, a nested `fn` item, `continue` past the held-out point, at
// `order = 3` (`_derivatives` against differences, the first derivative by hand).

mod smoother {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(log_bw), order = 3)]
    pub fn loo_cv(log_bw: f64, xs: &[f64], ys: &[f64]) -> f64 {
        let bw = log_bw.exp();
        let kernel = |d: f64| (-0.5 * (d / bw).powi(2)).exp();
        fn sq(v: f64) -> f64 {
            v * v
        }
        let mut err = 0.0;
        for i in 0..xs.len() {
            let (mut num, mut den) = (0.0, 0.0);
            for j in 0..xs.len() {
                if i == j {
                    continue;
                }
                let k = kernel(xs[i] - xs[j]);
                num += k * ys[j];
                den += k;
            }
            err += sq(ys[i] - num / den);
        }
        err / xs.len() as f64
    }

    fn by_hand(log_bw: f64, xs: &[f64], ys: &[f64]) -> (f64, f64) {
        let bw = log_bw.exp();
        let n = xs.len();
        let (mut err, mut derr) = (0.0, 0.0);
        for i in 0..n {
            let (mut num, mut den, mut dnum, mut dden) = (0.0, 0.0, 0.0, 0.0);
            for j in (0..n).filter(|&j| j != i) {
                let u = (xs[i] - xs[j]) / bw;
                let k = (-0.5 * u * u).exp();
                // dk/dlog_bw = k u².
                num += k * ys[j];
                den += k;
                dnum += k * u * u * ys[j];
                dden += k * u * u;
            }
            let fit = num / den;
            let dfit = (dnum * den - num * dden) / (den * den);
            err += (ys[i] - fit).powi(2);
            derr += -2.0 * (ys[i] - fit) * dfit;
        }
        (err / n as f64, derr / n as f64)
    }

    #[test]
    fn loo_cv_derivatives_by_hand() {
        let xs: Vec<f64> = (0..9).map(|i| i as f64 * 0.25).collect();
        let ys: Vec<f64> = xs.iter().map(|x| (2.0 * x).sin()).collect();
        for p in points(4810, 1, 12, -2.0, 0.5) {
            let h = p[0];
            let (v, d) = by_hand(h, &xs, &ys);
            let ds = loo_cv_derivatives(h, &xs, &ys);
            assert_close(ds[0], v, 1e-14, "loo value");
            assert_close(ds[1], d, 1e-12, "loo first derivative by hand");
            let d2 = common::central_difference(|x| loo_cv_grad(x, &xs, &ys).1, h);
            assert_close(ds[2], d2, 1e-6, "second derivative by differences of _grad");
            let d3 = common::central_difference(|x| loo_cv_hessian(x, &xs, &ys).2[0][0], h);
            assert_close(
                ds[3],
                d3,
                1e-6,
                "third derivative by differences of _hessian",
            );
            let (vg, g) = loo_cv_grad(h, &xs, &ys);
            let mut b = f64::NAN;
            assert_eq!(loo_cv_grad_into(h, &xs, &ys, &mut b), vg);
            same_bits(&[b], &[g], "loo_cv");
            let (_, _, hv) = loo_cv_hvp(h, &xs, &ys, 0.5);
            assert_close(hv, 0.5 * ds[2], 1e-12, "loo_cv_hvp");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (21) An in-place signal pipeline: an exponential moving average run in place over a `&mut [f64]`
// (its incoming values read before they are overwritten, so an input as well as an output: its
// `_jacobian` has their columns), a detrend by a fitted line into the same buffer, and a loss taking
// its signal as a by-value `mut Vec<f64>` it updates in place (a prefix scan from its own old values,
// shadowing), at `order = 2`.

mod in_place {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn ema(x: &mut [f64], alpha: f64) {
        for i in 1..x.len() {
            x[i] = alpha * x[i] + (1.0 - alpha) * x[i - 1];
        }
    }

    #[differentiable]
    pub fn detrend(x: &mut [f64]) {
        let n = x.len() as f64;
        let mean_t = (n - 1.0) / 2.0;
        let mean_x = x.iter().sum::<f64>() / n;
        let mut cov = 0.0;
        let mut var = 0.0;
        for (i, &v) in x.iter().enumerate() {
            let dt = i as f64 - mean_t;
            cov += dt * (v - mean_x);
            var += dt * dt;
        }
        let slope = cov / var;
        for i in 0..x.len() {
            x[i] -= mean_x + slope * (i as f64 - mean_t);
        }
    }

    #[differentiable(order = 2)]
    pub fn roughness(mut signal: Vec<f64>, alpha: f64) -> f64 {
        for i in 1..signal.len() {
            signal[i] += 0.5 * signal[i - 1];
        }
        let mut y = signal.to_vec();
        ema(&mut y, alpha);
        detrend(&mut y);
        let y = y.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum::<f64>();
        let y = y / signal.len() as f64;
        y.sqrt()
    }

    fn reference(s: &[f64], alpha: f64) -> f64 {
        let mut acc = s.to_vec();
        for i in 1..acc.len() {
            acc[i] += 0.5 * acc[i - 1];
        }
        let mut y = vec![acc[0]];
        for i in 1..acc.len() {
            let prev = y[i - 1];
            y.push(alpha * acc[i] + (1.0 - alpha) * prev);
        }
        let n = y.len() as f64;
        let (mt, mx) = ((n - 1.0) / 2.0, y.iter().sum::<f64>() / n);
        let slope = (0..y.len())
            .map(|i| (i as f64 - mt) * (y[i] - mx))
            .sum::<f64>()
            / (0..y.len()).map(|i| (i as f64 - mt).powi(2)).sum::<f64>();
        let d: Vec<f64> = (0..y.len())
            .map(|i| y[i] - mx - slope * (i as f64 - mt))
            .collect();
        ((1..d.len()).map(|i| (d[i] - d[i - 1]).powi(2)).sum::<f64>() / n).sqrt()
    }

    #[test]
    fn ema_in_place_jacobian() {
        for p in points(4820, 7, 10, -1.0, 1.0) {
            let alpha = 0.2 + 0.3 * (p[6] + 1.0);
            let mut x = p[..6].to_vec();
            let j = ema_jacobian(&mut x, alpha);
            let mut expected = p[..6].to_vec();
            ema(&mut expected, alpha);
            assert_eq!(x, expected, "the buffer is written as ema writes it");
            // Columns: the buffer's incoming values, then alpha.
            assert_eq!((j.len(), j[0].len()), (6, 7));
            let mut at = p[..6].to_vec();
            at.push(alpha);
            check_jacobian("ema", &at, &j, |q| {
                let mut x = q[..6].to_vec();
                ema(&mut x, q[6]);
                x
            });
            // By hand: lower triangular, (1 - alpha)^(i - k) alpha below the diagonal.
            for i in 0..6 {
                for k in 0..6 {
                    let e = match (i, k) {
                        (i, k) if k > i => 0.0,
                        (i, 0) => (1.0 - alpha).powi(i as i32),
                        (i, k) => alpha * (1.0 - alpha).powi((i - k) as i32),
                    };
                    assert_close(j[i][k], e, 1e-14, "ema Jacobian by hand");
                }
            }
            let c = wave(6, 0.3);
            let t = wave(7, 1.2);
            let mut x1 = p[..6].to_vec();
            let cj = ema_vjp(&mut x1, alpha, &c);
            let mut x2 = p[..6].to_vec();
            let mut jt = vec![f64::NAN; 6];
            ema_jvp(&mut x2, alpha, (t[..6].to_vec(), t[6]), &mut jt);
            assert_eq!((&x1, &x2), (&expected, &expected));
            let mut cjf = cj.0.clone();
            cjf.push(cj.1);
            check_dual("ema", &c, &jt, &cjf, &t);
        }
    }

    #[test]
    fn detrend_leaves_no_line() {
        for p in points(4821, 8, 10, -1.0, 1.0) {
            let mut x = p.clone();
            let j = detrend_jacobian(&mut x);
            assert!(x.iter().sum::<f64>().abs() < 1e-13, "mean removed");
            let tilt: f64 = x
                .iter()
                .enumerate()
                .map(|(i, v)| (i as f64 - 3.5) * v)
                .sum();
            assert!(tilt.abs() < 1e-13, "slope removed");
            check_jacobian("detrend", &p, &j, |q| {
                let mut x = q.to_vec();
                detrend(&mut x);
                x
            });
            // A projection: J J = J.
            for a in 0..8 {
                for b in 0..8 {
                    let jj: f64 = (0..8).map(|k| j[a][k] * j[k][b]).sum();
                    assert_close(jj, j[a][b], 1e-13, "detrending is a projection");
                }
            }
        }
    }

    #[test]
    fn roughness_at_order_2() {
        let pts: Vec<Vec<f64>> = points(4822, 8, 10, -1.0, 1.0)
            .into_iter()
            .map(|mut p| {
                p[7] = 0.3 + 0.25 * (p[7] + 1.0);
                p
            })
            .collect();
        for x in &pts {
            let (v, g) = roughness_grad(x[..7].to_vec(), x[7]);
            assert_close(v, reference(&x[..7], x[7]), 1e-13, "roughness");
            let mut b = (vec![f64::NAN; 7], f64::NAN);
            assert_eq!(
                roughness_grad_into(x[..7].to_vec(), x[7], (&mut b.0, &mut b.1)),
                v
            );
            same_bits(
                &[b.0, vec![b.1]].concat(),
                &[g.0, vec![g.1]].concat(),
                "roughness",
            );
        }
        audit(
            &Items {
                what: "in_place::roughness",
                primal: &|x| roughness(x[..7].to_vec(), x[7]),
                grad: &|x| {
                    let (v, g) = roughness_grad(x[..7].to_vec(), x[7]);
                    (v, [g.0, vec![g.1]].concat())
                },
                vjp: &|x, d| {
                    let (v, g) = roughness_vjp(x[..7].to_vec(), x[7], d);
                    (v, [g.0, vec![g.1]].concat())
                },
                jvp: &|x, t| roughness_jvp(x[..7].to_vec(), x[7], (t[..7].to_vec(), t[7])),
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; 7], f64::NAN);
                    let v = roughness_grad_into(x[..7].to_vec(), x[7], (&mut b.0, &mut b.1));
                    (v, [b.0, vec![b.1]].concat())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = roughness_hvp(x[..7].to_vec(), x[7], (v[..7].to_vec(), v[7]));
                    (f, [g.0, vec![g.1]].concat(), [hv.0, vec![hv.1]].concat())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = roughness_hessian(x[..7].to_vec(), x[7]);
                    (f, [g.0, vec![g.1]].concat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (22) Tone mapping in `f32`: exposure, a Reinhard curve and a display gamma by `powf`, clamped to
// `[0, 1]`, a loss against target pixels at `order = 2` in `(exposure, gamma)`; checked against `f64`
// by hand within `f32` rounding.

mod tone_map {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn reinhard(v: f32, white: f32) -> f32 {
        v * (1.0 + v / (white * white)) / (1.0 + v)
    }

    #[differentiable(wrt(exposure, gamma), order = 2)]
    pub fn tone_loss(exposure: f32, gamma: f32, pixels: &[f32], target: &[f32]) -> f32 {
        let scale = exposure.exp2();
        let mut loss = 0.0f32;
        for (&p, &t) in pixels.iter().zip(target) {
            let mapped = reinhard(p * scale, 4.0).powf(1.0 / gamma).clamp(0.0, 1.0);
            loss += (mapped - t).powi(2);
        }
        loss / pixels.len() as f32
    }

    fn reference(e: f64, g: f64, pixels: &[f32], target: &[f32]) -> (f64, [f64; 2], [[f64; 2]; 2]) {
        // By dual-free calculus on the unclamped pieces: m = r(p 2^e)^(1/g).
        let n = pixels.len() as f64;
        let (mut f, mut grad, mut h) = (0.0, [0.0; 2], [[0.0; 2]; 2]);
        for (&p, &t) in pixels.iter().zip(target) {
            let (p, t) = (p as f64, t as f64);
            let v = p * e.exp2();
            let r = v * (1.0 + v / 16.0) / (1.0 + v);
            // dr/dv and d²r/dv², with dv/de = v ln 2.
            let dr = ((1.0 + v / 8.0) * (1.0 + v) - v * (1.0 + v / 16.0)) / (1.0 + v).powi(2);
            let ddr = {
                let num = (1.0 + v / 8.0) * (1.0 + v) - v * (1.0 + v / 16.0);
                let dnum = (1.0 + v) / 8.0 + (1.0 + v / 8.0) - (1.0 + v / 16.0) - v / 16.0;
                (dnum * (1.0 + v).powi(2) - num * 2.0 * (1.0 + v)) / (1.0 + v).powi(4)
            };
            let l2 = std::f64::consts::LN_2;
            let re = dr * v * l2;
            let ree = (ddr * v * v + dr * v) * l2 * l2;
            let m = r.powf(1.0 / g);
            assert!(m < 1.0, "stay below the clamp");
            let ln_r = r.ln();
            let me = m / (g * r) * re;
            let mg = -m * ln_r / (g * g);
            let mee = m / g * ((1.0 / g - 1.0) * (re / r).powi(2) + ree / r);
            let meg = -m / (g * g) * (re / r) * (1.0 + ln_r / g);
            let mgg = m * ln_r / g.powi(3) * (ln_r / g + 2.0);
            let d = m - t;
            f += d * d;
            grad[0] += 2.0 * d * me;
            grad[1] += 2.0 * d * mg;
            h[0][0] += 2.0 * (me * me + d * mee);
            h[0][1] += 2.0 * (me * mg + d * meg);
            h[1][1] += 2.0 * (mg * mg + d * mgg);
        }
        h[1][0] = h[0][1];
        (
            f / n,
            [grad[0] / n, grad[1] / n],
            [[h[0][0] / n, h[0][1] / n], [h[1][0] / n, h[1][1] / n]],
        )
    }

    #[test]
    fn tone_loss_against_f64_by_hand() {
        let pixels: Vec<f32> = (0..6).map(|i| 0.05 + 0.12 * i as f32).collect();
        let target: Vec<f32> = (0..6).map(|i| 0.2 + 0.1 * i as f32).collect();
        for q in points(4830, 2, 12, 0.0, 1.0) {
            let (e, g) = ((-0.5 + q[0]) as f32, (1.8 + 0.6 * q[1]) as f32);
            let (v, grad, h) = tone_loss_hessian(e, g, &pixels, &target);
            let (rv, rg, rh) = reference(e as f64, g as f64, &pixels, &target);
            let tol = common::ANALYTIC_TOL_F32 * 20.0;
            assert_close(v as f64, rv, tol, "f32 value");
            assert_all_close(&[grad.0 as f64, grad.1 as f64], &rg, tol, "f32 gradient");
            for i in 0..2 {
                assert_all_close(
                    &[h[i][0] as f64, h[i][1] as f64],
                    &rh[i],
                    tol,
                    "f32 Hessian",
                );
            }
            let (vv, gv) = tone_loss_grad(e, g, &pixels, &target);
            assert_eq!((vv, gv), (v, grad));
            let mut b = (f32::NAN, f32::NAN);
            assert_eq!(
                tone_loss_grad_into(e, g, &pixels, &target, (&mut b.0, &mut b.1)),
                v
            );
            assert_eq!(
                (b.0.to_bits(), b.1.to_bits()),
                (grad.0.to_bits(), grad.1.to_bits())
            );
            let (_, _, hv) = tone_loss_hvp(e, g, &pixels, &target, (0.5, -1.0));
            assert!((hv.0 - (0.5 * h[0][0] - h[0][1])).abs() < 1e-5);
            assert!((hv.1 - (0.5 * h[1][0] - h[1][1])).abs() < 1e-5);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (23) A mixture log-density as a `Differentiable` struct at `order = 3`: a two-input
// `#[custom_gradient]` `logaddexp` (its closure returning a tuple of cotangents, captured softmax
// weights), folded over the components in a method that calls `Self::component`, the Hessian against
// differences of `_grad` and the gradient by hand (responsibilities).

mod mixture {
    use super::*;
    use autodiff::{custom_gradient, differentiable, Differentiable};

    #[custom_gradient]
    pub fn logaddexp(a: f64, b: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let m = a.max(b);
        let (ea, eb) = ((a - m).exp(), (b - m).exp());
        let s = ea + eb;
        (m + s.ln(), move |dy| (dy * ea / s, dy * eb / s))
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Mixture {
        pub logits: [f64; 3],
        pub means: [f64; 3],
        pub log_scales: [f64; 3],
    }

    impl Mixture {
        #[differentiable(wrt(self), order = 3)]
        pub fn component(&self, k: usize, x: f64) -> f64 {
            let s = self.log_scales[k].exp();
            let z = (x - self.means[k]) / s;
            -0.5 * z * z - self.log_scales[k] - 0.5 * (2.0 * std::f64::consts::PI).ln()
        }

        #[differentiable(wrt(self), order = 3)]
        pub fn log_density(&self, x: f64) -> f64 {
            let mut norm = f64::NEG_INFINITY;
            let mut acc = f64::NEG_INFINITY;
            for k in 0..3 {
                norm = if k == 0 {
                    self.logits[0]
                } else {
                    logaddexp(norm, self.logits[k])
                };
                let term = self.logits[k] + self.component(k, x);
                acc = if k == 0 { term } else { logaddexp(acc, term) };
            }
            acc - norm
        }

        #[differentiable(wrt(self), order = 3)]
        pub fn nll(&self, xs: &[f64]) -> f64 {
            -xs.iter().map(|&x| self.log_density(x)).sum::<f64>()
        }
    }

    fn mixture(p: &[f64]) -> Mixture {
        Mixture {
            logits: [p[0], p[1], p[2]],
            means: [p[3], p[4], p[5]],
            log_scales: [p[6], p[7], p[8]],
        }
    }

    #[test]
    fn log_density_by_hand() {
        for p in points(4840, 10, 12, -1.0, 1.0) {
            let m = mixture(&p);
            let x = 2.0 * p[9];
            let w: Vec<f64> = m.logits.iter().map(|l| l.exp()).collect();
            let wsum: f64 = w.iter().sum();
            let dens: Vec<f64> = (0..3)
                .map(|k| {
                    let s = m.log_scales[k].exp();
                    (-0.5 * ((x - m.means[k]) / s).powi(2)).exp()
                        / (s * (2.0 * std::f64::consts::PI).sqrt())
                })
                .collect();
            let mix: f64 = (0..3).map(|k| w[k] / wsum * dens[k]).sum();
            let (v, g) = m.log_density_grad(x);
            assert_close(v, mix.ln(), 1e-13, "log density");
            let resp: Vec<f64> = (0..3).map(|k| w[k] / wsum * dens[k] / mix).collect();
            for k in 0..3 {
                let s = m.log_scales[k].exp();
                let z = (x - m.means[k]) / s;
                assert_close(g.logits[k], resp[k] - w[k] / wsum, 1e-12, "d/d logit");
                assert_close(g.means[k], resp[k] * z / s, 1e-12, "d/d mean");
                assert_close(
                    g.log_scales[k],
                    resp[k] * (z * z - 1.0),
                    1e-12,
                    "d/d log scale",
                );
            }
        }
    }

    #[test]
    fn nll_at_order_3() {
        let xs = wave(6, 0.9).iter().map(|v| 1.5 * v).collect::<Vec<f64>>();
        let pts = points(4841, 9, 8, -1.0, 1.0);
        for p in &pts {
            let m = mixture(p);
            let (v, g) = m.nll_grad(&xs);
            let mut b = m.zero_like();
            b.means[0] = f64::NAN;
            assert_eq!(m.nll_grad_into(&xs, &mut b), v);
            same_bits(&b.to_flat(), &g.to_flat(), "nll");
        }
        audit(
            &Items {
                what: "mixture::nll",
                primal: &|x| mixture(x).nll(&xs),
                grad: &|x| {
                    let (v, g) = mixture(x).nll_grad(&xs);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = mixture(x).nll_vjp(&xs, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| mixture(x).nll_jvp(&xs, mixture(t)),
                grad_into: &|x| {
                    let m = mixture(x);
                    let mut b = m.zero_like();
                    let v = m.nll_grad_into(&xs, &mut b);
                    (v, b.to_flat())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = mixture(x).nll_hvp(&xs, mixture(v));
                    (f, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = mixture(x).nll_hessian(&xs);
                    (f, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (24) A sparse operator in coordinate form `&[(usize, usize, f64)]` (a slice of tuples with a float
// inside): a first-order helper scatter-adding `A x` into an output slice by `for &(i, j, a) in
// entries`, called by a Rayleigh quotient at `order = 2`. The regression of session 46's fix: a
// function looping over a slice of tuples had no generic copy, so an `order = K` caller did not compile.

mod sparse {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn apply(entries: &[(usize, usize, f64)], x: &[f64], out: &mut [f64]) {
        for i in 0..out.len() {
            out[i] = 0.0;
        }
        for &(i, j, a) in entries {
            out[i] += a * x[j];
        }
    }

    #[differentiable(order = 2)]
    pub fn rayleigh(x: &[f64], entries: &[(usize, usize, f64)]) -> f64 {
        let mut ax = vec![0.0; x.len()];
        apply(entries, x, &mut ax);
        dot_local(x, &ax) / dot_local(x, x)
    }

    #[differentiable]
    pub fn dot_local(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>()
    }

    const ENTRIES: [(usize, usize, f64); 7] = [
        (0, 0, 2.0),
        (0, 1, -1.0),
        (1, 0, -1.0),
        (1, 1, 2.0),
        (1, 2, -1.0),
        (2, 1, -1.0),
        (2, 2, 2.0),
    ];

    #[test]
    fn rayleigh_by_hand_at_order_2() {
        let a = [[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]];
        let pts = points(4850, 3, 10, -1.0, 1.0);
        for x in &pts {
            let (v, g, h) = rayleigh_hessian(x, &ENTRIES);
            let ax: Vec<f64> = a.iter().map(|row| dot(row, x)).collect();
            let xx = dot(x, x);
            let r = dot(x, &ax) / xx;
            assert_close(v, r, 1e-14, "rayleigh quotient");
            // grad = 2 (A x - r x) / (x·x); H = 2 (A - r I - x gᵀ - g xᵀ) / (x·x).
            let grad: Vec<f64> = (0..3).map(|i| 2.0 * (ax[i] - r * x[i]) / xx).collect();
            assert_all_close(&g, &grad, 1e-13, "rayleigh gradient by hand");
            for i in 0..3 {
                for j in 0..3 {
                    let id = if i == j { r } else { 0.0 };
                    let e = 2.0 * (a[i][j] - id - x[i] * grad[j] - grad[i] * x[j]) / xx;
                    assert_close(h[i][j], e, 1e-12, "rayleigh Hessian by hand");
                }
            }
            let mut b = vec![f64::NAN; 3];
            assert_eq!(rayleigh_grad_into(x, &ENTRIES, &mut b), v);
            same_bits(&b, &g, "rayleigh");
        }
        audit(
            &Items {
                what: "sparse::rayleigh",
                primal: &|x| rayleigh(x, &ENTRIES),
                grad: &|x| rayleigh_grad(x, &ENTRIES),
                vjp: &|x, d| rayleigh_vjp(x, &ENTRIES, d),
                jvp: &|x, t| rayleigh_jvp(x, &ENTRIES, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![f64::NAN; 3];
                    let v = rayleigh_grad_into(x, &ENTRIES, &mut b);
                    (v, b)
                },
                hvp: Some(&|x, v| rayleigh_hvp(x, &ENTRIES, v.to_vec())),
                hessian: Some(&|x| rayleigh_hessian(x, &ENTRIES)),
                analytic: None,
            },
            &pts,
        );
    }
}
