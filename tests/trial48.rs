//! An outside test suite written against API.md alone (session 48), by a user from numeric computing
//! writing small real projects: each module is one project of a few differentiable functions in
//! ordinary idiomatic Rust. Projects: a constant-velocity Kalman filter likelihood over `[[f64; 2]; 2]`
//! covariances, logistic regression minimised by a hand-written L-BFGS two-loop recursion over
//! `_grad_into`, a Poisson GLM with an exposure offset, robust M-estimation with Huber/Tukey/Cauchy
//! losses chosen by an enum, Black-Scholes greeks at `order = 2` through a written-out `erfc`,
//! entropic optimal transport by log-domain Sinkhorn, a GRU as a `Differentiable` struct, label-smoothed
//! cross-entropy through a custom-gradient log-sum-exp, a reparameterised Gaussian ELBO returning a
//! tuple, an extended Rosenbrock by `windows` and `fold` at `order = 2`, a Dirichlet-multinomial through
//! a Lanczos `ln_gamma` at `order = 3`, a Whittaker smoother at `order = 2`, a REINFORCE surrogate with a
//! `stop_gradient` baseline, an `f32` Hill dose-response fit, a generic `T: Float` Michaelis-Menten fit,
//! an explicit heat-equation step into an output slice (`_jacobian`), a kernel density estimate with an
//! enum kernel and a registered gradient, a biquad filter, a two-link arm (`_jacobian` by hand), bond
//! price, duration and convexity at `order = 3` with a yield solved by `loop`/`break` value, an
//! optical ABCD system over const generic lenses, a triplet loss with hard negatives by `max_by` and a
//! labeled-block hinge, a custom two-input softplus at `order = 2`, a pendulum struct with a nested
//! struct at `order = 2`, a generic temperature calibration at `order = 3`, a cumulative hazard with an
//! in-place prefix sum and `swap`s (and an `f32` Gompertz at `order = 2`), and exponential smoothing
//! into a state buffer with a recursive de Casteljau curve; and regressions of the two fixes made here.
//!
//! For each: the value against a plain copy (or an independent computation), `_grad` against central
//! differences on many seeded points, and by hand where the formula is short; at `order = 2` the
//! Hessian against differences of `_grad`.

#![allow(
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::too_many_arguments,
    clippy::excessive_precision
)]

#[macro_use]
mod common;

use common::{
    arr, assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, central_difference,
    check_dual, check_jacobian, dot, wave, Inputs,
};

/// `count` points of `n` coordinates in `[lo, hi)`.
fn pts(seed: u64, n: usize, count: usize, lo: f64, hi: f64) -> Vec<Vec<f64>> {
    common::points(seed, n, count, lo, hi)
}

// ---------------------------------------------------------------------------------------------------
// (1) A constant-velocity Kalman filter: the negative log-likelihood of a track by its innovations, as
// a function of the log process and measurement noises; state and covariance as arrays rebuilt each step.

mod kalman {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(log_q, log_r))]
    pub fn nll(log_q: f64, log_r: f64, ys: &[f64], dt: f64) -> f64 {
        const LN_2PI: f64 = 1.8378770664093453;
        let q = log_q.exp();
        let r = log_r.exp();
        let mut m = [ys[0], 0.0];
        let mut p = [[1.0, 0.0], [0.0, 1.0]];
        let mut total = 0.0;
        for &y in &ys[1..] {
            let mp = [m[0] + dt * m[1], m[1]];
            let p00 = p[0][0] + dt * (p[1][0] + p[0][1]) + dt * dt * p[1][1] + q * dt.powi(3) / 3.0;
            let p01 = p[0][1] + dt * p[1][1] + q * dt * dt / 2.0;
            let p11 = p[1][1] + q * dt;
            let s = p00 + r;
            let v = y - mp[0];
            total += 0.5 * (s.ln() + v * v / s + LN_2PI);
            let k = [p00 / s, p01 / s];
            m = [mp[0] + k[0] * v, mp[1] + k[1] * v];
            p = [
                [p00 - k[0] * p00, p01 - k[0] * p01],
                [p01 - k[1] * p00, p11 - k[1] * p01],
            ];
        }
        total
    }

    /// The same filter with general 2x2 matrix products `F P Fᵀ + Q` and `(I - K H) P`.
    fn reference(q: f64, r: f64, ys: &[f64], dt: f64) -> f64 {
        let mul = |a: [[f64; 2]; 2], b: [[f64; 2]; 2]| {
            let mut c = [[0.0; 2]; 2];
            for i in 0..2 {
                for j in 0..2 {
                    for k in 0..2 {
                        c[i][j] += a[i][k] * b[k][j];
                    }
                }
            }
            c
        };
        let f = [[1.0, dt], [0.0, 1.0]];
        let ft = [[1.0, 0.0], [dt, 1.0]];
        let qm = [
            [q * dt.powi(3) / 3.0, q * dt * dt / 2.0],
            [q * dt * dt / 2.0, q * dt],
        ];
        let mut m = [ys[0], 0.0];
        let mut p = [[1.0, 0.0], [0.0, 1.0]];
        let mut total = 0.0;
        for &y in &ys[1..] {
            let mp = [m[0] + dt * m[1], m[1]];
            let mut pp = mul(mul(f, p), ft);
            for i in 0..2 {
                for j in 0..2 {
                    pp[i][j] += qm[i][j];
                }
            }
            let s = pp[0][0] + r;
            let v = y - mp[0];
            total += 0.5 * ((2.0 * std::f64::consts::PI * s).ln() + v * v / s);
            let k = [pp[0][0] / s, pp[1][0] / s];
            m = [mp[0] + k[0] * v, mp[1] + k[1] * v];
            let ikh = [[1.0 - k[0], 0.0], [-k[1], 1.0]];
            p = mul(ikh, pp);
        }
        total
    }

    #[test]
    fn kalman_likelihood() {
        let mut r = Inputs(4801);
        let ys: Vec<f64> = (0..12).map(|t| 0.3 * t as f64 + 0.2 * r.next()).collect();
        for p in pts(4802, 2, 12, -3.0, 1.0) {
            let (value, (gq, gr)) = nll_grad(p[0], p[1], &ys, 0.5);
            assert_close(value, nll(p[0], p[1], &ys, 0.5), 1e-14, "kalman value");
            assert_close(
                value,
                reference(p[0].exp(), p[1].exp(), &ys, 0.5),
                1e-10,
                "kalman against the matrix form",
            );
            assert_fd_gradient(
                |x| reference(x[0].exp(), x[1].exp(), &ys, 0.5),
                &p,
                &[gq, gr],
                "kalman gradient",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) Regularised logistic regression, minimised by an L-BFGS two-loop recursion written by the user
// over `_grad_into` (one gradient buffer, reused).

mod lbfgs {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(w))]
    pub fn loss(w: &[f64], xs: &[Vec<f64>], ys: &[f64], lambda: f64) -> f64 {
        let mut total = 0.0;
        for (x, &y) in xs.iter().zip(ys) {
            let z = w.iter().zip(x.iter()).map(|(a, b)| a * b).sum::<f64>();
            let m = -y * z;
            total += if m > 0.0 {
                m + (-m).exp().ln_1p()
            } else {
                m.exp().ln_1p()
            };
        }
        total / ys.len() as f64 + 0.5 * lambda * w.iter().map(|v| v * v).sum::<f64>()
    }

    fn by_hand(w: &[f64], xs: &[Vec<f64>], ys: &[f64], lambda: f64) -> Vec<f64> {
        let n = ys.len() as f64;
        let mut g: Vec<f64> = w.iter().map(|v| lambda * v).collect();
        for (x, &y) in xs.iter().zip(ys) {
            let z = dot(w, x);
            let s = common::sigmoid(-y * z);
            for j in 0..w.len() {
                g[j] -= y * s * x[j] / n;
            }
        }
        g
    }

    fn minimise(w0: &[f64], xs: &[Vec<f64>], ys: &[f64], lambda: f64) -> (Vec<f64>, f64) {
        let d = w0.len();
        let mut w = w0.to_vec();
        let mut g = vec![0.0; d];
        let mut f = loss_grad_into(&w, xs, ys, lambda, &mut g);
        let mut hist: Vec<(Vec<f64>, Vec<f64>, f64)> = Vec::new();
        let mut g_new = vec![f64::NAN; d];
        for _ in 0..100 {
            if dot(&g, &g).sqrt() < 1e-10 {
                break;
            }
            // Two-loop recursion.
            let mut q = g.clone();
            let mut alphas = Vec::new();
            for (s, y, rho) in hist.iter().rev() {
                let a = rho * dot(s, &q);
                for j in 0..d {
                    q[j] -= a * y[j];
                }
                alphas.push(a);
            }
            if let Some((s, y, _)) = hist.last() {
                let gamma = dot(s, y) / dot(y, y);
                q.iter_mut().for_each(|v| *v *= gamma);
            }
            for ((s, y, rho), a) in hist.iter().zip(alphas.iter().rev()) {
                let b = rho * dot(y, &q);
                for j in 0..d {
                    q[j] += s[j] * (a - b);
                }
            }
            // Backtracking Armijo line search along -q.
            let slope = -dot(&g, &q);
            let mut t = 1.0;
            let (w_new, f_new) = loop {
                let trial: Vec<f64> = w.iter().zip(&q).map(|(w, q)| w - t * q).collect();
                let f_trial = loss_grad_into(&trial, xs, ys, lambda, &mut g_new);
                if f_trial <= f + 1e-4 * t * slope || t < 1e-12 {
                    break (trial, f_trial);
                }
                t *= 0.5;
            };
            let s: Vec<f64> = w_new.iter().zip(&w).map(|(a, b)| a - b).collect();
            let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
            let sy = dot(&s, &y);
            if sy > 1e-14 {
                hist.push((s, y, 1.0 / sy));
                if hist.len() > 5 {
                    hist.remove(0);
                }
            }
            w = w_new;
            f = f_new;
            g.copy_from_slice(&g_new);
        }
        (w, f)
    }

    #[test]
    fn logistic_lbfgs() {
        let mut r = Inputs(4811);
        let truth = [1.5, -2.0, 0.5, 0.0];
        let xs: Vec<Vec<f64>> = (0..40)
            .map(|_| {
                let mut x = r.vec(3);
                x.push(1.0);
                x
            })
            .collect();
        let ys: Vec<f64> = xs
            .iter()
            .map(|x| {
                if dot(x, &truth) + 0.5 * r.next() > 0.0 {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();
        let lambda = 0.01;
        for w in pts(4812, 4, 10, -2.0, 2.0) {
            let (value, g) = loss_grad(&w, &xs, &ys, lambda);
            assert_close(value, loss(&w, &xs, &ys, lambda), 1e-15, "logistic value");
            assert_fd_gradient(|w| loss(w, &xs, &ys, lambda), &w, &g, "logistic gradient");
            assert_all_close(
                &g,
                &by_hand(&w, &xs, &ys, lambda),
                1e-12,
                "logistic by hand",
            );
            let mut into = vec![7.0; 4];
            let v = loss_grad_into(&w, &xs, &ys, lambda, &mut into);
            assert_eq!(v, value);
            common::same_bits(&into, &g, "logistic grad_into");
        }
        let (w, f) = minimise(&[0.0; 4], &xs, &ys, lambda);
        let g = by_hand(&w, &xs, &ys, lambda);
        assert!(dot(&g, &g).sqrt() < 1e-8, "L-BFGS did not converge: {g:?}");
        assert!(f < loss(&[0.0; 4], &xs, &ys, lambda));
        // Stationary: any small perturbation raises the loss.
        for p in pts(4813, 4, 8, -1e-3, 1e-3) {
            let moved: Vec<f64> = w.iter().zip(&p).map(|(a, b)| a + b).collect();
            assert!(loss(&moved, &xs, &ys, lambda) >= f);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) A Poisson GLM with an exposure offset: the design matrix flat, rows by `chunks`, counts as
// integers through a plain `ln_factorial` of inactive arguments.

mod poisson {
    use super::*;
    use autodiff::differentiable;

    pub fn ln_factorial(k: u32) -> f64 {
        (1..=k).map(|i| (i as f64).ln()).sum()
    }

    #[differentiable(wrt(beta))]
    pub fn nll(beta: &[f64], design: &[f64], counts: &[u32], exposure: &[f64]) -> f64 {
        let p = beta.len();
        let mut total = 0.0;
        for (i, row) in design.chunks(p).enumerate() {
            let eta = exposure[i].ln() + row.iter().zip(beta).map(|(x, b)| x * b).sum::<f64>();
            let k = counts[i] as f64;
            total += eta.exp() - k * eta + ln_factorial(counts[i]);
        }
        total
    }

    #[test]
    fn poisson_glm() {
        let mut r = Inputs(4821);
        let n = 15;
        let design: Vec<f64> = (0..n).flat_map(|_| [1.0, r.next(), r.next()]).collect();
        let exposure: Vec<f64> = (0..n).map(|_| 1.0 + r.next().abs() * 3.0).collect();
        let counts: Vec<u32> = (0..n).map(|i| (i * 7 % 5) as u32).collect();
        for beta in pts(4822, 3, 10, -1.0, 1.0) {
            let (value, g) = nll_grad(&beta, &design, &counts, &exposure);
            let mut plain = 0.0;
            let mut by_hand = [0.0; 3];
            for i in 0..n {
                let row = &design[3 * i..3 * i + 3];
                let mu = exposure[i] * dot(row, &beta).exp();
                let k = counts[i] as f64;
                plain += mu - k * mu.ln() + ln_factorial(counts[i]);
                for j in 0..3 {
                    by_hand[j] += (mu - k) * row[j];
                }
            }
            assert_close(value, plain, 1e-12, "poisson value");
            assert_all_close(&g, &by_hand, 1e-11, "poisson score by hand");
            assert_fd_gradient(
                |b| nll(b, &design, &counts, &exposure),
                &beta,
                &g,
                "poisson gradient",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) Robust line fitting: Huber, Tukey biweight and Cauchy losses chosen by an enum with a payload
// (the tuning constant), matched in the body.

mod robust {
    use super::*;
    use autodiff::differentiable;

    #[derive(Clone, Copy, Debug)]
    pub enum Rho {
        Huber(f64),
        Tukey(f64),
        Cauchy(f64),
    }

    #[differentiable(wrt(r))]
    pub fn rho(r: f64, kind: Rho) -> f64 {
        match kind {
            Rho::Huber(c) => {
                if r.abs() <= c {
                    0.5 * r * r
                } else {
                    c * (r.abs() - 0.5 * c)
                }
            }
            Rho::Tukey(c) => {
                if r.abs() >= c {
                    c * c / 6.0
                } else {
                    let u = 1.0 - (r / c).powi(2);
                    c * c / 6.0 * (1.0 - u * u * u)
                }
            }
            Rho::Cauchy(c) => 0.5 * c * c * (1.0 + (r / c).powi(2)).ln(),
        }
    }

    #[differentiable(wrt(theta))]
    pub fn objective(theta: [f64; 2], xs: &[f64], ys: &[f64], kind: Rho) -> f64 {
        let mut total = 0.0;
        for (x, y) in xs.iter().zip(ys.iter()) {
            total += rho(y - theta[0] - theta[1] * x, kind);
        }
        total
    }

    /// ψ = ρ', by hand.
    fn psi(r: f64, kind: Rho) -> f64 {
        match kind {
            Rho::Huber(c) => r.clamp(-c, c),
            Rho::Tukey(c) if r.abs() < c => r * (1.0 - (r / c).powi(2)).powi(2),
            Rho::Tukey(_) => 0.0,
            Rho::Cauchy(c) => r / (1.0 + (r / c).powi(2)),
        }
    }

    #[test]
    fn robust_losses() {
        let mut g = Inputs(4831);
        let xs: Vec<f64> = (0..20).map(|i| i as f64 / 10.0).collect();
        let ys: Vec<f64> = xs
            .iter()
            .enumerate()
            .map(|(i, x)| 1.0 + 2.0 * x + 0.1 * g.next() + if i % 7 == 3 { 4.0 } else { 0.0 })
            .collect();
        for kind in [Rho::Huber(0.3), Rho::Tukey(1.5), Rho::Cauchy(0.5)] {
            for p in pts(4832, 2, 10, 0.0, 3.0) {
                let theta = [p[0], p[1]];
                let (value, grad) = objective_grad(theta, &xs, &ys, kind);
                assert_eq!(value, objective(theta, &xs, &ys, kind));
                let mut by_hand = [0.0; 2];
                for (x, y) in xs.iter().zip(&ys) {
                    let s = psi(y - theta[0] - theta[1] * x, kind);
                    by_hand[0] -= s;
                    by_hand[1] -= s * x;
                }
                assert_all_close(&grad, &by_hand, 1e-12, &format!("{kind:?} by hand"));
                let near_kink = xs.iter().zip(&ys).any(|(x, y)| {
                    let r: f64 = y - theta[0] - theta[1] * x;
                    match kind {
                        Rho::Huber(c) | Rho::Tukey(c) => (r.abs() - c).abs() < 1e-4,
                        Rho::Cauchy(_) => false,
                    }
                });
                if !near_kink {
                    assert_fd_gradient(
                        |t| objective([t[0], t[1]], &xs, &ys, kind),
                        &p,
                        &grad,
                        &format!("{kind:?} gradient"),
                    );
                }
            }
            for r in [-2.0, -0.4, -0.1, 0.2, 0.45, 1.0, 1.7] {
                let (_, d) = rho_grad(r, kind);
                assert_close(d, psi(r, kind), 1e-14, "psi");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) Black-Scholes at `order = 2`: the normal CDF through Numerical Recipes' `erfc` (a `const` table
// of coefficients, Horner by `.rev()`), call and put prices, greeks against their formulas and the
// Hessian against differences of the gradient.

mod black_scholes {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::{PI, SQRT_2};

    #[differentiable]
    pub fn norm_cdf(x: f64) -> f64 {
        const C: [f64; 10] = [
            -1.26551223,
            1.00002368,
            0.37409196,
            0.09678418,
            -0.18628806,
            0.27886807,
            -1.13520398,
            1.48851587,
            -0.82215223,
            0.17087277,
        ];
        let z = x.abs() / SQRT_2;
        let t = 1.0 / (1.0 + 0.5 * z);
        let mut poly = C[9];
        for k in (0..9).rev() {
            poly = poly * t + C[k];
        }
        let erfc = t * (-z * z + poly).exp();
        if x >= 0.0 {
            1.0 - 0.5 * erfc
        } else {
            0.5 * erfc
        }
    }

    twin! {
        #[differentiable(order = 2)]
        fn call / call_plain(s: f64, k: f64, t: f64, r: f64, sigma: f64) -> f64 {
            let sd = sigma * t.sqrt();
            let d1 = ((s / k).ln() + (r + 0.5 * sigma * sigma) * t) / sd;
            let d2 = d1 - sd;
            s * norm_cdf(d1) - k * (-r * t).exp() * norm_cdf(d2)
        }
    }

    #[differentiable(order = 2, wrt(s, sigma))]
    pub fn put(s: f64, k: f64, t: f64, r: f64, sigma: f64) -> f64 {
        let sd = sigma * t.sqrt();
        let d1 = ((s / k).ln() + (r + 0.5 * sigma * sigma) * t) / sd;
        let d2 = d1 - sd;
        k * (-r * t).exp() * norm_cdf(-d2) - s * norm_cdf(-d1)
    }

    fn pdf(x: f64) -> f64 {
        (-0.5 * x * x).exp() / (2.0 * PI).sqrt()
    }

    #[test]
    fn greeks() {
        let mut points = Vec::new();
        for p in pts(4841, 5, 12, 0.0, 1.0) {
            points.push([
                80.0 + 40.0 * p[0],
                90.0 + 20.0 * p[1],
                0.2 + 1.5 * p[2],
                0.05 * p[3],
                0.1 + 0.4 * p[4],
            ]);
        }
        for q in &points {
            let [s, k, t, r, sigma] = *q;
            let (value, g) = call_grad(s, k, t, r, sigma);
            let g = [g.0, g.1, g.2, g.3, g.4];
            assert_eq!(value, call_plain(s, k, t, r, sigma));
            assert_eq!(value, call(s, k, t, r, sigma));
            assert_fd_gradient(
                |x| call_plain(x[0], x[1], x[2], x[3], x[4]),
                q,
                &g,
                "call gradient",
            );
            let sd = sigma * t.sqrt();
            let d1 = ((s / k).ln() + (r + 0.5 * sigma * sigma) * t) / sd;
            // The approximation's derivative is the normal's to about its accuracy.
            assert_close(g[0], norm_cdf(d1), 2e-5, "delta");
            assert_close(g[4], s * pdf(d1) * t.sqrt(), 1e-4, "vega");
            let (_, _, h) = call_hessian(s, k, t, r, sigma);
            let flat_grad = |x: &[f64]| {
                let g = call_grad(x[0], x[1], x[2], x[3], x[4]).1;
                vec![g.0, g.1, g.2, g.3, g.4]
            };
            assert_hessian_fd(&h, flat_grad, q, 1e-5, "call hessian");
            assert_close(h[0][0], pdf(d1) / (s * sd), 1e-3, "gamma");
            for i in 0..5 {
                for j in 0..i {
                    assert_close(h[i][j], h[j][i], 1e-12, "symmetric");
                }
            }
            // Put-call parity: the same gamma, vanna and volga.
            let (pv, (pd, pvega), ph) = put_hessian(s, k, t, r, sigma);
            assert_close(pv, put(s, k, t, r, sigma), 1e-15, "put value");
            assert_close(value - pv, s - k * (-r * t).exp(), 1e-6, "parity");
            assert_close(pd, g[0] - 1.0, 1e-6, "put delta");
            assert_close(pvega, g[4], 1e-6, "put vega");
            assert_close(ph[0][0], h[0][0], 1e-5, "put gamma");
            assert_close(ph[0][1], h[0][4], 1e-5, "put vanna");
            assert_close(ph[1][1], h[4][4], 1e-5, "put volga");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) Entropic optimal transport between two point clouds on a line by log-domain Sinkhorn: the cost
// matrix pushed into a local `Vec`, the potentials updated in place, the transport cost as a function
// of the source points.

mod sinkhorn {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn soft_min(values: &[f64], eps: f64) -> f64 {
        let m = values.iter().fold(f64::INFINITY, |a, &v| a.min(v));
        let s: f64 = values.iter().map(|&v| (-(v - m) / eps).exp()).sum();
        m - eps * (s / values.len() as f64).ln()
    }

    twin! {
        #[differentiable(wrt(x))]
        fn cost / cost_plain(x: &[f64], y: &[f64], eps: f64, iters: usize) -> f64 {
            let n = x.len();
            let m = y.len();
            let mut c = Vec::new();
            for i in 0..n {
                for j in 0..m {
                    c.push((x[i] - y[j]).powi(2));
                }
            }
            let mut f = vec![0.0; n];
            let mut g = vec![0.0; m];
            let mut row = vec![0.0; m];
            let mut col = vec![0.0; n];
            for _ in 0..iters {
                for i in 0..n {
                    for j in 0..m {
                        row[j] = c[i * m + j] - g[j];
                    }
                    f[i] = soft_min(&row, eps);
                }
                for j in 0..m {
                    for i in 0..n {
                        col[i] = c[i * m + j] - f[i];
                    }
                    g[j] = soft_min(&col, eps);
                }
            }
            let mut total = 0.0;
            for i in 0..n {
                for j in 0..m {
                    let p = ((f[i] + g[j] - c[i * m + j]) / eps).exp() / (n * m) as f64;
                    total += p * c[i * m + j];
                }
            }
            total
        }
    }

    #[test]
    fn sinkhorn_cost() {
        let y = [-0.8, -0.1, 0.3, 0.9];
        for x in pts(4851, 5, 10, -1.0, 1.0) {
            let (value, g) = cost_grad(&x, &y, 0.3, 30);
            assert_close(value, cost_plain(&x, &y, 0.3, 30), 1e-13, "sinkhorn value");
            assert_fd_gradient(|x| cost_plain(x, &y, 0.3, 30), &x, &g, "sinkhorn gradient");
            // Translating both clouds leaves the cost unchanged; translating x alone is not free.
            let moved: Vec<f64> = y.iter().map(|v| v + 0.25).collect();
            let shifted: Vec<f64> = x.iter().map(|v| v + 0.25).collect();
            assert_close(cost(&shifted, &moved, 0.3, 30), value, 1e-9, "translation");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) A GRU with two hidden units as a `Differentiable` struct: the gates as a method returning an
// array, the loss as a method with `wrt(self)` over a sequence.

mod gru {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Gru {
        wz: [f64; 2],
        uz: [[f64; 2]; 2],
        bz: [f64; 2],
        wr: [f64; 2],
        ur: [[f64; 2]; 2],
        br: [f64; 2],
        wh: [f64; 2],
        uh: [[f64; 2]; 2],
        bh: [f64; 2],
        out: [f64; 2],
    }

    fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    impl Gru {
        #[differentiable(wrt(self, h))]
        pub fn step(&self, h: [f64; 2], x: f64) -> [f64; 2] {
            let mut next = [0.0; 2];
            let mut r = [0.0; 2];
            for i in 0..2 {
                let a = self.wr[i] * x + self.ur[i][0] * h[0] + self.ur[i][1] * h[1] + self.br[i];
                r[i] = 1.0 / (1.0 + (-a).exp());
            }
            for i in 0..2 {
                let az = self.wz[i] * x + self.uz[i][0] * h[0] + self.uz[i][1] * h[1] + self.bz[i];
                let z = 1.0 / (1.0 + (-az).exp());
                let ah = self.wh[i] * x
                    + self.uh[i][0] * (r[0] * h[0])
                    + self.uh[i][1] * (r[1] * h[1])
                    + self.bh[i];
                next[i] = (1.0 - z) * h[i] + z * ah.tanh();
            }
            next
        }

        #[differentiable(wrt(self))]
        pub fn loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
            let mut h = [0.0, 0.0];
            let mut total = 0.0;
            for (&x, &y) in xs.iter().zip(ys.iter()) {
                h = self.step(h, x);
                let e = self.out[0] * h[0] + self.out[1] * h[1] - y;
                total += e * e;
            }
            total / xs.len() as f64
        }

        fn plain_loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
            let mut h = [0.0f64; 2];
            let mut total = 0.0;
            for (&x, &y) in xs.iter().zip(ys) {
                let mut r = [0.0; 2];
                for i in 0..2 {
                    r[i] = sigmoid(
                        self.wr[i] * x + self.ur[i][0] * h[0] + self.ur[i][1] * h[1] + self.br[i],
                    );
                }
                let mut next = [0.0; 2];
                for i in 0..2 {
                    let z = sigmoid(
                        self.wz[i] * x + self.uz[i][0] * h[0] + self.uz[i][1] * h[1] + self.bz[i],
                    );
                    let c = (self.wh[i] * x
                        + self.uh[i][0] * r[0] * h[0]
                        + self.uh[i][1] * r[1] * h[1]
                        + self.bh[i])
                        .tanh();
                    next[i] = (1.0 - z) * h[i] + z * c;
                }
                h = next;
                let e = self.out[0] * h[0] + self.out[1] * h[1] - y;
                total += e * e;
            }
            total / xs.len() as f64
        }
    }

    #[test]
    fn gru_training_loss() {
        let xs: Vec<f64> = (0..8).map(|t| (0.7 * t as f64).sin()).collect();
        let ys: Vec<f64> = (0..8).map(|t| (0.7 * t as f64 + 0.5).cos()).collect();
        let mut r = Inputs(4861);
        let zero = Gru {
            wz: [0.0; 2],
            uz: [[0.0; 2]; 2],
            bz: [0.0; 2],
            wr: [0.0; 2],
            ur: [[0.0; 2]; 2],
            br: [0.0; 2],
            wh: [0.0; 2],
            uh: [[0.0; 2]; 2],
            bh: [0.0; 2],
            out: [0.0; 2],
        };
        let n = zero.to_flat().len();
        assert_eq!(n, 26);
        for _ in 0..10 {
            let model = zero.from_flat(&r.vec(n));
            let (value, grad) = model.loss_grad(&xs, &ys);
            assert_close(value, model.plain_loss(&xs, &ys), 1e-14, "gru value");
            assert_eq!(value, model.loss(&xs, &ys));
            assert_fd_gradient(
                |p| zero.from_flat(p).plain_loss(&xs, &ys),
                &model.to_flat(),
                &grad.to_flat(),
                "gru gradient",
            );
            // The step's vjp against its jvp in the hidden state.
            let h = [r.next(), r.next()];
            let c = [0.3, -0.8];
            let (_, (_, gh)) = model.step_vjp(h, 0.4, c);
            let t = [0.6, 0.2];
            let (_, jt) = model.step_jvp(h, 0.4, (zero.clone(), t));
            check_dual("gru step", &c, &jt, &gh, &t);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) Cross-entropy with label smoothing over a batch of logits (rows by `chunks_exact`), through a
// log-sum-exp with a hand-written gradient (`#[custom_gradient]` over a slice), the maximum by `fold`.

mod smoothing {
    use super::*;
    use autodiff::{custom_gradient, differentiable};

    #[custom_gradient]
    pub fn logsumexp(z: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64>) {
        let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
        let s: f64 = e.iter().sum();
        (m + s.ln(), move |dy| e.iter().map(|v| dy * v / s).collect())
    }

    twin! {
        #[differentiable(wrt(logits))]
        fn loss / loss_plain(logits: &[f64], labels: &[usize], classes: usize, alpha: f64) -> f64 {
            let mut total = 0.0;
            for (b, row) in logits.chunks_exact(classes).enumerate() {
                let label = labels[b];
                let lse = logsumexp(row);
                for (k, &z) in row.iter().enumerate() {
                    let target = if k == label { 1.0 - alpha + alpha / classes as f64 } else { alpha / classes as f64 };
                    total -= target * (z - lse);
                }
            }
            total / labels.len() as f64
        }
    }

    #[test]
    fn label_smoothing() {
        let labels = [0usize, 2, 1, 2, 3];
        let classes = 4;
        for (i, logits) in pts(4871, 20, 10, -3.0, 3.0).into_iter().enumerate() {
            let alpha = 0.05 * i as f64;
            let (value, g) = loss_grad(&logits, &labels, classes, alpha);
            assert_close(
                value,
                loss_plain(&logits, &labels, classes, alpha),
                1e-15,
                "value",
            );
            assert_eq!(
                loss(&logits, &labels, classes, alpha),
                loss_plain(&logits, &labels, classes, alpha)
            );
            assert_fd_gradient(
                |z| loss_plain(z, &labels, classes, alpha),
                &logits,
                &g,
                "smoothing gradient",
            );
            // By hand: (softmax - target) / batch.
            for (b, row) in logits.chunks_exact(classes).enumerate() {
                let m = row.iter().cloned().fold(f64::MIN, f64::max);
                let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
                for k in 0..classes {
                    let p = (row[k] - m).exp() / s;
                    let t = if k == labels[b] { 1.0 - alpha } else { 0.0 } + alpha / 4.0;
                    assert_close(g[b * classes + k], (p - t) / 5.0, 1e-14, "by hand");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) A reparameterised Gaussian ELBO for a Bayesian linear model with fixed noise draws: a tuple result
// `(expected log-likelihood, KL)`, its `_vjp` against its `_jvp` and each part against differences.

mod elbo {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(mu, log_sigma))]
        fn terms / terms_plain(mu: &[f64], log_sigma: &[f64], eps: &[f64], xs: &[f64], ys: &[f64]) -> (f64, f64) {
            let d = mu.len();
            let samples = eps.len() / d;
            let mut loglik = 0.0;
            for draw in eps.chunks(d) {
                let w: Vec<f64> = mu
                    .iter()
                    .zip(log_sigma.iter())
                    .zip(draw.iter())
                    .map(|((m, s), e)| m + s.exp() * e)
                    .collect();
                for (x, y) in xs.iter().zip(ys.iter()) {
                    let r = y - (w[0] + w[1] * x);
                    loglik -= 0.5 * r * r;
                }
            }
            let mut kl = 0.0;
            for i in 0..d {
                let s2 = (2.0 * log_sigma[i]).exp();
                kl += 0.5 * (s2 + mu[i] * mu[i] - 1.0) - log_sigma[i];
            }
            (loglik / samples as f64, kl)
        }
    }

    #[test]
    fn elbo_terms() {
        let mut r = Inputs(4881);
        let eps = r.vec(12);
        let xs: Vec<f64> = (0..7).map(|i| i as f64 / 3.0).collect();
        let ys: Vec<f64> = xs.iter().map(|x| 0.5 - x + 0.1 * r.next()).collect();
        for p in pts(4882, 4, 10, -1.0, 1.0) {
            let (mu, ls) = (&p[..2], &p[2..]);
            let value = terms(mu, ls, &eps, &xs, &ys);
            assert_eq!(value, terms_plain(mu, ls, &eps, &xs, &ys));
            let c = [0.7, -1.3];
            let ((v0, v1), (gm, gs)) = terms_vjp(mu, ls, &eps, &xs, &ys, (c[0], c[1]));
            assert_eq!((v0, v1), value);
            let cj: Vec<f64> = gm.iter().chain(&gs).copied().collect();
            let combined = |q: &[f64]| {
                let (a, b) = terms_plain(&q[..2], &q[2..], &eps, &xs, &ys);
                c[0] * a + c[1] * b
            };
            assert_fd_gradient(combined, &p, &cj, "elbo vjp");
            // The KL part by hand: ∂/∂μ = μ, ∂/∂ log σ = σ² - 1.
            let (_, (km, ks)) = terms_vjp(mu, ls, &eps, &xs, &ys, (0.0, 1.0));
            for i in 0..2 {
                assert_close(km[i], mu[i], 1e-14, "kl mu");
                assert_close(ks[i], (2.0 * ls[i]).exp() - 1.0, 1e-14, "kl sigma");
            }
            let t = wave(4, 0.3);
            let (_, (j0, j1)) =
                terms_jvp(mu, ls, &eps, &xs, &ys, (t[..2].to_vec(), t[2..].to_vec()));
            check_dual("elbo", &c, &[j0, j1], &cj, &t);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) The extended Rosenbrock valley by `windows(2)` and `fold` at `order = 2`, its Hessian against
// the tridiagonal formula by hand, and Newton's method through `_hessian` reaching the minimum.

mod rosenbrock {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(order = 2)]
        fn valley / valley_plain(x: &[f64]) -> f64 {
            x.windows(2).fold(0.0, |acc, w| {
                acc + 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2)
            })
        }
    }

    fn hessian_by_hand(x: &[f64]) -> Vec<Vec<f64>> {
        let n = x.len();
        let mut h = vec![vec![0.0; n]; n];
        for i in 0..n - 1 {
            h[i][i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
            h[i][i + 1] -= 400.0 * x[i];
            h[i + 1][i] -= 400.0 * x[i];
            h[i + 1][i + 1] += 200.0;
        }
        h
    }

    #[test]
    fn valley_hessian_and_newton() {
        for x in pts(4891, 5, 10, -1.5, 1.5) {
            let (value, g) = valley_grad(&x);
            assert_eq!(value, valley_plain(&x));
            assert_fd_gradient(valley_plain, &x, &g, "rosenbrock gradient");
            let (v2, g2, h) = valley_hessian(&x);
            assert_eq!(v2, value);
            assert_all_close(&g2, &g, 1e-14, "hessian's gradient");
            let by_hand = hessian_by_hand(&x);
            for i in 0..5 {
                assert_all_close(&h[i], &by_hand[i], 1e-13, "rosenbrock hessian by hand");
            }
            assert_hessian_fd(&h, |x| valley_grad(x).1, &x, 1e-6, "rosenbrock hessian");
        }
        // Damped Newton from near the valley floor.
        let mut x = vec![0.8, 0.7, 0.6, 0.5];
        for _ in 0..60 {
            let (_, g, mut h) = valley_hessian(&x);
            for (i, row) in h.iter_mut().enumerate() {
                row[i] += 1e-8;
            }
            let step = solve(h, g);
            let mut t = 1.0;
            while valley(
                &x.iter()
                    .zip(&step)
                    .map(|(a, s)| a - t * s)
                    .collect::<Vec<_>>(),
            ) > valley(&x)
                && t > 1e-6
            {
                t *= 0.5;
            }
            for (a, s) in x.iter_mut().zip(&step) {
                *a -= t * s;
            }
        }
        assert_all_close(&x, &[1.0; 4], 1e-8, "Newton's minimum");
    }

    /// Gaussian elimination with partial pivoting.
    pub fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
        let n = b.len();
        for k in 0..n {
            let p = (k..n)
                .max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs()))
                .unwrap();
            a.swap(k, p);
            b.swap(k, p);
            for i in k + 1..n {
                let f = a[i][k] / a[k][k];
                for j in k..n {
                    a[i][j] -= f * a[k][j];
                }
                b[i] -= f * b[k];
            }
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|j| a[i][j] * x[j]).sum();
            x[i] = (b[i] - s) / a[i][i];
        }
        x
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) A Dirichlet-multinomial likelihood through a Lanczos `ln_gamma` written out (a `const` table
// indexed over a range): the digamma and trigamma at known points from `_derivatives` at `order = 3`,
// and the likelihood's gradient in log concentrations; the row totals by an integer `.sum()`.

mod dirichlet {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 3)]
    pub fn ln_gamma(x: f64) -> f64 {
        const G: f64 = 7.0;
        const COEF: [f64; 9] = [
            0.99999999999980993,
            676.5203681218851,
            -1259.1392167224028,
            771.32342877765313,
            -176.61502916214059,
            12.507343278686905,
            -0.13857109526572012,
            9.9843695780195716e-6,
            1.5056327351493116e-7,
        ];
        let x = x - 1.0;
        let mut a = COEF[0];
        for i in 1..COEF.len() {
            a += COEF[i] / (x + i as f64);
        }
        let t = x + G + 0.5;
        0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
    }

    twin! {
        #[differentiable(wrt(log_alpha))]
        fn loglik / loglik_plain(log_alpha: &[f64], counts: &[Vec<u32>]) -> f64 {
            let alpha: Vec<f64> = log_alpha.iter().map(|v| v.exp()).collect();
            let a0: f64 = alpha.iter().sum();
            let mut total = 0.0;
            for row in counts {
                let n: u32 = row.iter().sum();
                total += ln_gamma(a0) - ln_gamma(a0 + n as f64);
                for (k, &c) in row.iter().enumerate() {
                    total += ln_gamma(alpha[k] + c as f64) - ln_gamma(alpha[k]);
                }
            }
            total
        }
    }

    #[test]
    fn digamma_trigamma_and_likelihood() {
        const EULER: f64 = 0.5772156649015329;
        let [v, d1, d2, d3] = ln_gamma_derivatives(1.0);
        assert_close(v, 0.0, 1e-13, "ln Γ(1)");
        assert_close(d1, -EULER, 1e-12, "ψ(1)");
        assert_close(d2, std::f64::consts::PI.powi(2) / 6.0, 1e-11, "ψ'(1)");
        assert_close(d3, -2.0 * 1.2020569031595942, 1e-9, "ψ''(1)");
        for x in [0.5, 1.5, 2.5, 4.0, 7.25, 12.0] {
            let [v, d1, d2, _] = ln_gamma_derivatives(x);
            // Γ(x + 1) = x Γ(x): ψ(x + 1) = ψ(x) + 1/x, ψ'(x + 1) = ψ'(x) - 1/x².
            let [v1, e1, e2, _] = ln_gamma_derivatives(x + 1.0);
            assert_close(v1, v + x.ln(), 1e-13, "recurrence");
            assert_close(e1, d1 + 1.0 / x, 1e-12, "digamma recurrence");
            assert_close(e2, d2 - 1.0 / (x * x), 1e-11, "trigamma recurrence");
            assert_close(
                d1,
                central_difference(ln_gamma, x),
                1e-8,
                "digamma by differences",
            );
        }
        let counts = vec![
            vec![3u32, 0, 5],
            vec![1, 2, 2],
            vec![0, 4, 1],
            vec![6, 1, 0],
        ];
        for p in pts(4901, 3, 10, -1.0, 1.5) {
            let (value, g) = loglik_grad(&p, &counts);
            assert_eq!(value, loglik_plain(&p, &counts));
            assert_eq!(loglik(&p, &counts), value);
            assert_fd_gradient(|q| loglik_plain(q, &counts), &p, &g, "dirichlet gradient");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) A Whittaker smoother: data fidelity plus second differences by `windows(3)`, at `order = 2`;
// the Hessian is 2W + 2λDᵀD exactly, and one Newton step from anywhere lands on the smoothed series.

mod whittaker {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(z), order = 2)]
    pub fn energy(z: &[f64], y: &[f64], weights: &[f64], lambda: f64) -> f64 {
        let fit: f64 = z
            .iter()
            .zip(y)
            .zip(weights)
            .map(|((z, y), w)| w * (y - z) * (y - z))
            .sum();
        let mut rough = 0.0;
        for w in z.windows(3) {
            let d2 = w[0] - 2.0 * w[1] + w[2];
            rough += d2 * d2;
        }
        fit + lambda * rough
    }

    #[test]
    fn smoother() {
        let n = 7;
        let mut r = Inputs(4911);
        let y: Vec<f64> = (0..n)
            .map(|i| (i as f64 * 0.6).sin() + 0.2 * r.next())
            .collect();
        let weights: Vec<f64> = (0..n).map(|i| if i == 3 { 0.0 } else { 1.0 }).collect();
        let lambda = 2.5;
        for z in pts(4912, n, 8, -1.0, 1.0) {
            let (value, g, h) = energy_hessian(&z, &y, &weights, lambda);
            let mut plain = 0.0;
            for i in 0..n {
                plain += weights[i] * (y[i] - z[i]).powi(2);
            }
            for i in 0..n - 2 {
                plain += lambda * (z[i] - 2.0 * z[i + 1] + z[i + 2]).powi(2);
            }
            assert_close(value, plain, 1e-14, "whittaker value");
            assert_fd_gradient(
                |z| energy(z, &y, &weights, lambda),
                &z,
                &g,
                "whittaker gradient",
            );
            // 2W + 2λ DᵀD, by hand.
            let mut by_hand = vec![vec![0.0; n]; n];
            for i in 0..n {
                by_hand[i][i] += 2.0 * weights[i];
            }
            let stencil = [1.0, -2.0, 1.0];
            for i in 0..n - 2 {
                for a in 0..3 {
                    for b in 0..3 {
                        by_hand[i + a][i + b] += 2.0 * lambda * stencil[a] * stencil[b];
                    }
                }
            }
            for i in 0..n {
                assert_all_close(&h[i], &by_hand[i], 1e-13, "whittaker hessian");
            }
            let step = super::rosenbrock::solve(h, g);
            let smooth: Vec<f64> = z.iter().zip(&step).map(|(a, s)| a - s).collect();
            let (_, g_at) = energy_grad(&smooth, &y, &weights, lambda);
            assert!(
                dot(&g_at, &g_at).sqrt() < 1e-10,
                "Newton's step is not the minimum"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) A REINFORCE surrogate for a softmax policy over actions with a value baseline held by
// `stop_gradient`: its gradient is the score-function estimate with the baseline as a constant.

mod reinforce {
    use super::*;
    use autodiff::{differentiable, stop_gradient};

    #[differentiable]
    pub fn log_softmax(theta: &[f64], k: usize) -> f64 {
        let m = theta.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let s: f64 = theta.iter().map(|t| (t - m).exp()).sum();
        theta[k] - m - s.ln()
    }

    #[differentiable(wrt(theta))]
    pub fn surrogate(theta: &[f64], actions: &[usize], rewards: &[f64]) -> f64 {
        // The baseline: the policy's expected reward, as a constant.
        let mut baseline = 0.0;
        for k in 0..theta.len() {
            baseline += log_softmax(theta, k).exp() * rewards[k];
        }
        let b = stop_gradient(baseline);
        let mut total = 0.0;
        for &a in actions {
            total += (rewards[a] - b) * log_softmax(theta, a);
        }
        total / actions.len() as f64
    }

    #[test]
    fn score_function() {
        let actions = [0usize, 2, 2, 1, 3, 0, 2];
        let rewards = [1.0, -0.5, 2.0, 0.3];
        for theta in pts(4921, 4, 10, -2.0, 2.0) {
            let (value, g) = surrogate_grad(&theta, &actions, &rewards);
            let p = |t: &[f64]| {
                let m = t.iter().cloned().fold(f64::MIN, f64::max);
                let s: f64 = t.iter().map(|v| (v - m).exp()).sum();
                t.iter().map(|v| (v - m).exp() / s).collect::<Vec<f64>>()
            };
            let b0 = dot(&p(&theta), &rewards);
            let frozen = |t: &[f64]| {
                let pt = p(t);
                actions
                    .iter()
                    .map(|&a| (rewards[a] - b0) * pt[a].ln())
                    .sum::<f64>()
                    / 7.0
            };
            assert_close(value, frozen(&theta), 1e-13, "surrogate value");
            assert_eq!(surrogate(&theta, &actions, &rewards), value);
            assert_fd_gradient(
                frozen,
                &theta,
                &g,
                "surrogate gradient with frozen baseline",
            );
            // By hand: mean over actions of (r - b)(e_a - p).
            let pt = p(&theta);
            let mut by_hand = [0.0; 4];
            for &a in &actions {
                for k in 0..4 {
                    let e = if k == a { 1.0 } else { 0.0 };
                    by_hand[k] += (rewards[a] - b0) * (e - pt[k]) / 7.0;
                }
            }
            assert_all_close(&g, &by_hand, 1e-13, "score function by hand");
            // A baseline that were differentiated would change the gradient.
            let live = |t: &[f64]| {
                let pt = p(t);
                let b = dot(&pt, &rewards);
                actions
                    .iter()
                    .map(|&a| (rewards[a] - b) * pt[a].ln())
                    .sum::<f64>()
                    / 7.0
            };
            let d = common::fd_jacobian(|t| vec![live(t)], &theta);
            assert!(d[0].iter().zip(&g).any(|(a, b)| (a - b).abs() > 1e-4));
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) A Hill dose-response curve fitted in `f32`: the gradient against differences of an `f64` copy.

mod hill {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(log_ec50, slope, top))]
    pub fn sse(log_ec50: f32, slope: f32, top: f32, doses: &[f32], responses: &[f32]) -> f32 {
        let ec50 = log_ec50.exp();
        let mut total = 0.0f32;
        for (&d, &y) in doses.iter().zip(responses) {
            let f = top / (1.0 + (ec50 / d).powf(slope));
            total += (f - y) * (f - y);
        }
        0.5 * total
    }

    fn sse64(p: &[f64], doses: &[f32], responses: &[f32]) -> f64 {
        let ec50 = p[0].exp();
        let mut total = 0.0;
        for (&d, &y) in doses.iter().zip(responses) {
            let f = p[2] / (1.0 + (ec50 / d as f64).powf(p[1]));
            total += (f - y as f64).powi(2);
        }
        0.5 * total
    }

    #[test]
    fn hill_f32() {
        let doses: Vec<f32> = (0..9).map(|i| 0.1 * 2f32.powi(i)).collect();
        let responses: Vec<f32> = doses
            .iter()
            .map(|d| 1.0 / (1.0 + (2.0 / d).powf(1.3)))
            .collect();
        for p in pts(4931, 3, 10, 0.0, 1.0) {
            let q = [
                (p[0] * 2.0 - 1.0) as f32,
                (0.5 + 1.5 * p[1]) as f32,
                (0.5 + p[2]) as f32,
            ];
            let (value, (a, b, c)) = sse_grad(q[0], q[1], q[2], &doses, &responses);
            let at: Vec<f64> = q.iter().map(|&v| v as f64).collect();
            assert_close(
                value as f64,
                sse64(&at, &doses, &responses),
                1e-5,
                "hill value",
            );
            assert_eq!(value, sse(q[0], q[1], q[2], &doses, &responses));
            for (i, g) in [a, b, c].into_iter().enumerate() {
                let fd = central_difference(
                    |v| {
                        let mut x = at.clone();
                        x[i] = v;
                        sse64(&x, &doses, &responses)
                    },
                    at[i],
                );
                assert_close(g as f64, fd, 2e-4, "hill gradient");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) Michaelis-Menten kinetics generic over `T: Float`: the least-squares fit in `f64` and `f32`,
// the gradient against differences and the `f32` copy against the `f64` one.

mod enzyme {
    use super::*;
    use autodiff::{differentiable, Float};

    #[differentiable]
    pub fn rate<T: Float>(vmax: T, km: T, s: T) -> T {
        vmax * s / (km + s)
    }

    #[differentiable(wrt(vmax, km))]
    pub fn sse<T: Float>(vmax: T, km: T, substrate: &[T], velocity: &[T]) -> T {
        let mut total = T::zero();
        let half = T::from(0.5).unwrap();
        for (i, &s) in substrate.iter().enumerate() {
            let r = rate(vmax, km, s) - velocity[i];
            total = total + half * r * r;
        }
        total
    }

    #[test]
    fn michaelis_menten() {
        let s: Vec<f64> = (1..=8).map(|i| 0.25 * i as f64).collect();
        let v: Vec<f64> = s
            .iter()
            .map(|s| 2.0 * s / (0.7 + s) + 0.01 * (7.0 * s).sin())
            .collect();
        let s32: Vec<f32> = s.iter().map(|&x| x as f32).collect();
        let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        for p in pts(4941, 2, 10, 0.3, 3.0) {
            let (value, (gv, gk)) = sse_grad(p[0], p[1], &s, &v);
            let plain: f64 = s
                .iter()
                .zip(&v)
                .map(|(s, v)| 0.5 * (p[0] * s / (p[1] + s) - v).powi(2))
                .sum();
            assert_close(value, plain, 1e-14, "mm value");
            assert_fd_gradient(|q| sse(q[0], q[1], &s, &v), &p, &[gv, gk], "mm gradient");
            // By hand: Σ r s/(K+s), Σ -r V s/(K+s)².
            let (mut hv, mut hk) = (0.0, 0.0);
            for (s, v) in s.iter().zip(&v) {
                let r = p[0] * s / (p[1] + s) - v;
                hv += r * s / (p[1] + s);
                hk -= r * p[0] * s / (p[1] + s).powi(2);
            }
            assert_close(gv, hv, 1e-13, "mm dV by hand");
            assert_close(gk, hk, 1e-13, "mm dK by hand");
            let (v32_value, (gv32, gk32)) = sse_grad(p[0] as f32, p[1] as f32, &s32, &v32);
            assert_close(v32_value as f64, value, 1e-4, "f32 value");
            assert_close(gv32 as f64, gv, 1e-4, "f32 dV");
            assert_close(gk32 as f64, gk, 1e-4, "f32 dK");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (16) An explicit heat-equation step on a periodic rod into an output slice: the `_jacobian` against
// its tridiagonal form by hand, `_vjp` against `_jvp`, and several steps composed in a loss.

mod heat {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn step(u: &[f64], kappa: f64, out: &mut [f64]) {
        let n = u.len();
        for i in 0..n {
            let left = u[(i + n - 1) % n];
            let right = u[(i + 1) % n];
            out[i] = u[i] + kappa * (left - 2.0 * u[i] + right);
        }
    }

    #[differentiable(wrt(u0, kappa))]
    pub fn misfit(u0: &[f64], kappa: f64, target: &[f64], steps: usize) -> f64 {
        let mut u = u0.to_vec();
        let mut next = vec![0.0; u0.len()];
        for _ in 0..steps {
            step(&u, kappa, &mut next);
            u.copy_from_slice(&next);
        }
        u.iter()
            .zip(target.iter())
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
    }

    fn plain_step(u: &[f64], kappa: f64) -> Vec<f64> {
        let n = u.len();
        (0..n)
            .map(|i| u[i] + kappa * (u[(i + n - 1) % n] - 2.0 * u[i] + u[(i + 1) % n]))
            .collect()
    }

    #[test]
    fn heat_step_and_misfit() {
        let n = 6;
        for p in pts(4951, n + 1, 10, -1.0, 1.0) {
            let (u, kappa) = (&p[..n], 0.2 + 0.1 * p[n]);
            let mut out = vec![0.0; n];
            step(u, kappa, &mut out);
            assert_all_close(&out, &plain_step(u, kappa), 1e-15, "heat step");
            let j = step_jacobian(u, kappa, &mut vec![0.0; n]);
            assert_eq!(j.len(), n);
            for i in 0..n {
                let mut row = vec![0.0; n + 1];
                row[i] += 1.0 - 2.0 * kappa;
                row[(i + 1) % n] += kappa;
                row[(i + n - 1) % n] += kappa;
                row[n] = u[(i + n - 1) % n] - 2.0 * u[i] + u[(i + 1) % n];
                assert_all_close(&j[i], &row, 1e-14, "heat jacobian by hand");
            }
            let mut at = u.to_vec();
            at.push(kappa);
            check_jacobian("heat jacobian", &at, &j, |q| plain_step(&q[..n], q[n]));
            let c = wave(n, 0.4);
            let mut written = vec![0.0; n];
            let (cu, ck) = step_vjp(u, kappa, &mut written, &c);
            assert_all_close(&written, &out, 0.0, "vjp writes the output");
            let t = wave(n + 1, 1.1);
            let mut jt = vec![0.0; n];
            step_jvp(
                u,
                kappa,
                &mut vec![0.0; n],
                (t[..n].to_vec(), t[n]),
                &mut jt,
            );
            let mut cj = cu.clone();
            cj.push(ck);
            check_dual("heat", &c, &jt, &cj, &t);

            let target: Vec<f64> = (0..n).map(|i| (i as f64).cos()).collect();
            let (value, (gu, gk)) = misfit_grad(u, kappa, &target, 4);
            let plain = |q: &[f64]| {
                let mut v = q[..n].to_vec();
                for _ in 0..4 {
                    v = plain_step(&v, q[n]);
                }
                v.iter()
                    .zip(&target)
                    .map(|(a, b)| (a - b).powi(2))
                    .sum::<f64>()
            };
            assert_close(value, plain(&at), 1e-14, "misfit value");
            let mut g = gu.clone();
            g.push(gk);
            assert_fd_gradient(plain, &at, &g, "misfit gradient");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (17) A leave-one-out kernel density log-likelihood in the log bandwidth, the kernel an enum matched
// in the body, the Gaussian one a plain library function whose gradient is registered, an optional
// floor on the bandwidth read by `if let Some(..)` (the floor's gradient is zero where it binds).

mod kde {
    use super::*;
    use autodiff::{differentiable, gradient_of};

    pub mod kernels {
        /// The standard normal density (a plain function of a library the user does not own).
        pub fn gauss(u: f64) -> f64 {
            (-0.5 * u * u).exp() / (2.0 * std::f64::consts::PI).sqrt()
        }
    }

    #[gradient_of(kernels::gauss)]
    fn gauss_vjp(u: f64, dy: f64) -> f64 {
        -u * kernels::gauss(u) * dy
    }

    #[derive(Clone, Copy, Debug)]
    pub enum Kernel {
        Gaussian,
        Epanechnikov,
        Logistic,
    }

    #[differentiable(wrt(log_h))]
    pub fn loo(log_h: f64, xs: &[f64], weights: &[f64], floor: Option<f64>, kernel: Kernel) -> f64 {
        let h = if let Some(least) = floor {
            log_h.exp().max(least)
        } else {
            log_h.exp()
        };
        let n = xs.len();
        let mut total = 0.0;
        for i in 0..n {
            let mut density = 0.0;
            for j in 0..n {
                if i == j {
                    continue;
                }
                let u = (xs[i] - xs[j]) / h;
                let k = match kernel {
                    Kernel::Gaussian => kernels::gauss(u),
                    Kernel::Epanechnikov => {
                        if u.abs() < 1.0 {
                            0.75 * (1.0 - u * u)
                        } else {
                            0.0
                        }
                    }
                    Kernel::Logistic => 1.0 / (u.exp() + 2.0 + (-u).exp()),
                };
                density += k / h;
            }
            let w = if weights.is_empty() { 1.0 } else { weights[i] };
            total += w * (density / (n - 1) as f64).ln();
        }
        total
    }

    fn plain(h: f64, xs: &[f64], weights: &[f64], kernel: Kernel) -> f64 {
        let n = xs.len();
        (0..n)
            .map(|i| {
                let d: f64 = (0..n)
                    .filter(|&j| j != i)
                    .map(|j| {
                        let u: f64 = (xs[i] - xs[j]) / h;
                        let k = match kernel {
                            Kernel::Gaussian => kernels::gauss(u),
                            Kernel::Epanechnikov => 0.75 * (1.0 - u * u).max(0.0),
                            Kernel::Logistic => 0.25 / (u / 2.0).cosh().powi(2),
                        };
                        k / h
                    })
                    .sum();
                weights.get(i).unwrap_or(&1.0) * (d / (n - 1) as f64).ln()
            })
            .sum()
    }

    #[test]
    fn bandwidth_likelihood() {
        let xs = [-1.2, -0.7, -0.1, 0.05, 0.4, 0.9, 1.6, 2.2];
        let ws = [1.0, 0.5, 2.0, 1.0, 1.5, 0.7, 1.0, 0.3];
        for kernel in [Kernel::Gaussian, Kernel::Epanechnikov, Kernel::Logistic] {
            for p in pts(4961, 1, 10, 0.3, 1.3) {
                for weights in [&[][..], &ws[..]] {
                    let (value, g) = loo_grad(p[0], &xs, weights, None, kernel);
                    assert_close(
                        value,
                        plain(p[0].exp(), &xs, weights, kernel),
                        1e-12,
                        "kde value",
                    );
                    let edge = xs.iter().enumerate().any(|(i, a)| {
                        xs[i + 1..]
                            .iter()
                            .any(|b| ((a - b).abs() / p[0].exp() - 1.0).abs() < 1e-4)
                    });
                    if !edge {
                        let fd = central_difference(|l| plain(l.exp(), &xs, weights, kernel), p[0]);
                        assert_close(g, fd, 1e-7, &format!("{kernel:?} gradient"));
                    }
                    // A floor below the bandwidth changes nothing; one above it holds it constant.
                    let h = p[0].exp();
                    assert_eq!(
                        loo_grad(p[0], &xs, weights, Some(0.5 * h), kernel),
                        (value, g)
                    );
                    let (held, zero) = loo_grad(p[0], &xs, weights, Some(2.0 * h), kernel);
                    assert_close(
                        held,
                        plain(2.0 * h, &xs, weights, kernel),
                        1e-12,
                        "floored value",
                    );
                    assert_eq!(zero, 0.0, "floored gradient");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (18) A biquad low-pass filter (RBJ cookbook coefficients from the log cutoff and log Q) run over a
// signal with its two-sample state, the leading silence skipped by a `loop` that breaks with a value.

mod biquad {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(log_f0, log_q))]
        fn misfit / misfit_plain(log_f0: f64, log_q: f64, signal: &[f64], target: &[f64], rate: f64) -> f64 {
            let w0 = 2.0 * std::f64::consts::PI * log_f0.exp() / rate;
            let alpha = w0.sin() / (2.0 * log_q.exp());
            let cw = w0.cos();
            let a0 = 1.0 + alpha;
            let b = [(1.0 - cw) / 2.0 / a0, (1.0 - cw) / a0, (1.0 - cw) / 2.0 / a0];
            let a = [-2.0 * cw / a0, (1.0 - alpha) / a0];
            // Skip the leading silence: the first sample that is not (near) zero.
            let mut start = 0;
            let first = loop {
                if start + 1 >= signal.len() || signal[start].abs() > 1e-3 {
                    break start;
                }
                start += 1;
            };
            let (mut x1, mut x2, mut y1, mut y2) = (0.0, 0.0, 0.0, 0.0);
            let mut total = 0.0;
            for i in first..signal.len() {
                let x = signal[i];
                let y = b[0] * x + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2;
                x2 = x1;
                x1 = x;
                y2 = y1;
                y1 = y;
                total += (y - target[i]) * (y - target[i]);
            }
            total
        }
    }

    #[test]
    fn filter_fit() {
        let mut r = Inputs(4971);
        let mut signal = vec![0.0; 4];
        signal.extend((0..40).map(|_| r.next()));
        let target: Vec<f64> = (0..44).map(|i| 0.3 * (i as f64 * 0.2).sin()).collect();
        for p in pts(4972, 2, 12, 0.0, 1.0) {
            let at = [(500.0 + 3000.0 * p[0]).ln(), (0.5 + 2.0 * p[1]).ln()];
            let (value, (g0, g1)) = misfit_grad(at[0], at[1], &signal, &target, 16000.0);
            assert_eq!(value, misfit_plain(at[0], at[1], &signal, &target, 16000.0));
            assert_eq!(misfit(at[0], at[1], &signal, &target, 16000.0), value);
            assert_fd_gradient(
                |q| misfit_plain(q[0], q[1], &signal, &target, 16000.0),
                &at,
                &[g0, g1],
                "biquad gradient",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (19) A two-link planar arm: forward kinematics returning `[f64; 2]`, its `_jacobian` against the
// textbook one, and an inverse-kinematics loss through it solved by gradient descent with `_grad_into`.

mod arm {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(q))]
    pub fn tip(q: [f64; 2], lengths: [f64; 2]) -> [f64; 2] {
        let (s1, c1) = q[0].sin_cos();
        let (s12, c12) = (q[0] + q[1]).sin_cos();
        [
            lengths[0] * c1 + lengths[1] * c12,
            lengths[0] * s1 + lengths[1] * s12,
        ]
    }

    #[differentiable(wrt(q))]
    pub fn reach(q: [f64; 2], lengths: [f64; 2], goal: (f64, f64)) -> f64 {
        let p = tip(q, lengths);
        let (dx, dy) = (p[0] - goal.0, p[1] - goal.1);
        dx.hypot(dy)
    }

    #[test]
    fn kinematics() {
        let l = [1.0, 0.6];
        for q in pts(4981, 2, 10, -3.0, 3.0) {
            let q = [q[0], q[1]];
            let j = tip_jacobian(q, l);
            let (s1, c1) = q[0].sin_cos();
            let (s12, c12) = (q[0] + q[1]).sin_cos();
            let by_hand = [
                vec![-l[0] * s1 - l[1] * s12, -l[1] * s12],
                vec![l[0] * c1 + l[1] * c12, l[1] * c12],
            ];
            for i in 0..2 {
                assert_all_close(&j[i], &by_hand[i], 1e-14, "arm jacobian");
            }
            let goal = (0.9, 0.7);
            let (value, g) = reach_grad(q, l, goal);
            let p = [l[0] * c1 + l[1] * c12, l[0] * s1 + l[1] * s12];
            assert_close(
                value,
                (p[0] - goal.0).hypot(p[1] - goal.1),
                1e-15,
                "reach value",
            );
            assert_fd_gradient(|x| reach(arr(x), l, goal), &q, &g, "reach gradient");
        }
        // Gradient descent on the squared distance reaches the goal.
        let mut q = [0.3, 0.5];
        let mut g = [0.0; 2];
        for _ in 0..2000 {
            let d = reach_grad_into(q, l, (0.9, 0.7), &mut g);
            if d < 1e-10 {
                break;
            }
            for i in 0..2 {
                q[i] -= 0.2 * d * g[i];
            }
        }
        let p = tip(q, l);
        assert_all_close(&p, &[0.9, 0.7], 1e-6, "inverse kinematics");
    }
}

// ---------------------------------------------------------------------------------------------------
// (20) A fixed-coupon bond: price in the yield at `order = 3`, duration and convexity from
// `_derivatives` against their sums by hand, and the yield to maturity from a price by Newton in a
// `loop` breaking with the converged value, whose derivative is the implicit one.

mod bond {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 3, wrt(y))]
    pub fn price(y: f64, coupon: f64, years: u32) -> f64 {
        let mut total = 0.0;
        for t in 1..=years {
            total += coupon / (1.0 + y).powi(t as i32);
        }
        total + 100.0 / (1.0 + y).powi(years as i32)
    }

    #[differentiable(wrt(target))]
    pub fn yield_to_maturity(target: f64, coupon: f64, years: u32) -> f64 {
        let mut y: f64 = 0.05;
        let mut iterations = 0;
        loop {
            // The price and its slope, summed together.
            let mut p = 100.0 / (1.0 + y).powi(years as i32);
            let mut dp = -(years as f64) * p / (1.0 + y);
            for t in 1..=years {
                let c = coupon / (1.0 + y).powi(t as i32);
                p += c;
                dp -= t as f64 * c / (1.0 + y);
            }
            let step = (p - target) / dp;
            y -= step;
            iterations += 1;
            if step.abs() < 1e-15 || iterations == 50 {
                break y;
            }
        }
    }

    #[test]
    fn duration_and_convexity() {
        for p in pts(4991, 2, 10, 0.0, 1.0) {
            let (y, coupon, years) = (0.01 + 0.08 * p[0], 2.0 + 6.0 * p[1], 10);
            let [v, d1, d2, d3] = price_derivatives(y, coupon, years);
            let cash = |t: u32| if t == years { coupon + 100.0 } else { coupon };
            let (mut hv, mut h1, mut h2, mut h3) = (0.0, 0.0, 0.0, 0.0);
            for t in 1..=years {
                let (c, tf) = (cash(t), t as f64);
                hv += c * (1.0 + y).powf(-tf);
                h1 -= tf * c * (1.0 + y).powf(-tf - 1.0);
                h2 += tf * (tf + 1.0) * c * (1.0 + y).powf(-tf - 2.0);
                h3 -= tf * (tf + 1.0) * (tf + 2.0) * c * (1.0 + y).powf(-tf - 3.0);
            }
            assert_all_close(
                &[v, d1, d2, d3],
                &[hv, h1, h2, h3],
                1e-12,
                "bond derivatives",
            );
            assert_close(price(y, coupon, years), v, 1e-15, "bond value");
            assert_close(
                d2,
                central_difference(|y| price_grad(y, coupon, years).1, y),
                1e-7,
                "convexity by differences",
            );
            let (_, _, h) = price_hessian(y, coupon, years);
            assert_close(h[0][0], d2, 1e-13, "hessian entry");
            // The yield back from the price, and its derivative 1 / P'(y).
            let (ytm, dy) = yield_to_maturity_grad(v, coupon, years);
            assert_close(ytm, y, 1e-12, "yield to maturity");
            assert_close(dy, 1.0 / d1, 1e-9, "implicit derivative");
            let fd = central_difference(|pr| yield_to_maturity(pr, coupon, years), v);
            assert_close(dy, fd, 1e-6, "ytm derivative by differences");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (21) Paraxial optics: a stack of thin lenses separated by gaps, as ray-transfer (ABCD) matrices
// multiplied over const generic `[f64; N]` powers and gaps; the effective focal length and its
// gradient against differences and, for one lens, by hand.

mod optics {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn system_power<const N: usize>(powers: [f64; N], gaps: [f64; N]) -> f64 {
        let mut m = [[1.0, 0.0], [0.0, 1.0]];
        for k in 0..N {
            // Lens: [[1, 0], [-P, 1]] · m, then a gap: [[1, d], [0, 1]] · m.
            let lensed = [
                [m[0][0], m[0][1]],
                [m[1][0] - powers[k] * m[0][0], m[1][1] - powers[k] * m[0][1]],
            ];
            m = [
                [
                    lensed[0][0] + gaps[k] * lensed[1][0],
                    lensed[0][1] + gaps[k] * lensed[1][1],
                ],
                [lensed[1][0], lensed[1][1]],
            ];
        }
        -m[1][0]
    }

    fn plain<const N: usize>(powers: &[f64], gaps: &[f64]) -> f64 {
        let mut m = [[1.0f64, 0.0], [0.0, 1.0]];
        for k in 0..N {
            let lens = [[1.0, 0.0], [-powers[k], 1.0]];
            let gap = [[1.0, gaps[k]], [0.0, 1.0]];
            let mul = |a: [[f64; 2]; 2], b: [[f64; 2]; 2]| {
                [
                    [
                        a[0][0] * b[0][0] + a[0][1] * b[1][0],
                        a[0][0] * b[0][1] + a[0][1] * b[1][1],
                    ],
                    [
                        a[1][0] * b[0][0] + a[1][1] * b[1][0],
                        a[1][0] * b[0][1] + a[1][1] * b[1][1],
                    ],
                ]
            };
            m = mul(gap, mul(lens, m));
        }
        -m[1][0]
    }

    #[test]
    fn lens_stack() {
        for p in pts(5001, 8, 10, 0.1, 1.0) {
            let (value, (gp, gg)) = system_power_grad::<4>(arr(&p[..4]), arr(&p[4..]));
            assert_close(value, plain::<4>(&p[..4], &p[4..]), 1e-14, "optics value");
            assert_eq!(system_power::<4>(arr(&p[..4]), arr(&p[4..])), value);
            let g: Vec<f64> = gp.iter().chain(&gg).copied().collect();
            assert_fd_gradient(|q| plain::<4>(&q[..4], &q[4..]), &p, &g, "optics gradient");
            // Two lenses: P = P1 + P2 - d1 P1 P2 (the second gap does not matter).
            let (v2, (gp2, gg2)) = system_power_grad::<2>(arr(&p[..2]), arr(&p[4..6]));
            let (p1, p2, d1) = (p[0], p[1], p[4]);
            assert_close(v2, p1 + p2 - d1 * p1 * p2, 1e-14, "two lenses");
            assert_all_close(&gp2, &[1.0 - d1 * p2, 1.0 - d1 * p1], 1e-14, "dP/dpowers");
            assert_all_close(&gg2, &[-p1 * p2, 0.0], 1e-14, "dP/dgaps");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// A regression of the fix made in this session: an integer `let` annotation on a bare `.sum()` or
// `.product()` over an integer slice (`let n: u32 = row.iter().sum();`) made generated code that did
// not compile (the accumulator started from the float zero).

mod integer_sums {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(x))]
        fn weighted / weighted_plain(x: &[f64], counts: &[Vec<u32>]) -> f64 {
            let mut total = 0.0;
            for (i, row) in counts.iter().enumerate() {
                let n: u32 = row.iter().sum();
                let m: usize = row.iter().map(|&c| c as usize + 1).product();
                let k: i64 = row.iter().map(|&c| c as i64).sum();
                total += x[i] * x[i] * n as f64 + (x[i] * m as f64).sin() - k as f64 * x[i];
            }
            total
        }
    }

    #[test]
    fn annotated_integer_sums() {
        let counts = vec![vec![1u32, 2, 3], vec![0, 4], vec![5]];
        for x in pts(5011, 3, 10, -1.0, 1.0) {
            let (value, g) = weighted_grad(&x, &counts);
            assert_eq!(value, weighted_plain(&x, &counts));
            assert_eq!(weighted(&x, &counts), value);
            assert_fd_gradient(
                |q| weighted_plain(q, &counts),
                &x,
                &g,
                "integer sums gradient",
            );
            let by_hand: Vec<f64> = [(6.0, 24.0, 6.0), (4.0, 5.0, 4.0), (5.0, 6.0, 5.0)]
                .iter()
                .zip(&x)
                .map(|(&(n, m, k), &xi)| 2.0 * xi * n + m * (xi * m).cos() - k)
                .collect();
            assert_all_close(&g, &by_hand, 1e-14, "integer sums by hand");
            let (_, jv) = weighted_jvp(&x, &counts, vec![1.0, 0.0, 0.0]);
            assert_close(jv, g[0], 1e-14, "integer sums jvp");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (22) A triplet embedding loss with hard-negative mining: the hardest negative's distance by
// `max_by(total_cmp)` over a `Vec` of distances, the margin per anchor class by `match` on an integer
// with `|` and a guard, and the hinge picked by a labeled block that breaks with a value.

mod triplet {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b.iter()).map(|(x, y)| (x - y) * (x - y)).sum()
    }

    twin! {
        #[differentiable(wrt(emb))]
        fn loss / loss_plain(emb: &[f64], dim: usize, labels: &[usize]) -> f64 {
            let n = labels.len();
            let mut total = 0.0;
            for i in 0..n {
                let anchor = &emb[i * dim..(i + 1) * dim];
                let mut negatives = Vec::new();
                let mut positive = 0.0;
                for j in 0..n {
                    let d = sq_dist(anchor, &emb[j * dim..(j + 1) * dim]);
                    if labels[j] != labels[i] {
                        negatives.push(-d);
                    } else if j != i {
                        positive += d;
                    }
                }
                let hardest = -negatives.iter().copied().max_by(|a, b| a.total_cmp(b)).unwrap();
                let margin = match labels[i] {
                    0 => 0.5,
                    1 | 2 => 1.0,
                    k if k > 5 => 2.0,
                    _ => 1.5,
                };
                let hinge = 'hinge: {
                    let gap = positive - hardest + margin;
                    if gap <= 0.0 {
                        break 'hinge 0.0;
                    }
                    if gap < 0.1 {
                        break 'hinge 5.0 * gap * gap;
                    }
                    gap - 0.05
                };
                total += hinge;
            }
            total / n as f64
        }
    }

    #[test]
    fn hard_negatives() {
        let labels = [0usize, 0, 1, 1, 2, 7, 7, 4];
        let dim = 3;
        let mut checked = 0;
        for emb in pts(5021, 24, 12, -1.0, 1.0) {
            let (value, g) = loss_grad(&emb, dim, &labels);
            assert_eq!(value, loss_plain(&emb, dim, &labels));
            assert_eq!(loss(&emb, dim, &labels), value);
            // Away from ties between negatives and from the hinge's kink, differences see the same.
            let mut tie = false;
            for i in 0..8 {
                let mut ds: Vec<f64> = (0..8)
                    .filter(|&j| labels[j] != labels[i])
                    .map(|j| sq_dist(&emb[i * 3..i * 3 + 3], &emb[j * 3..j * 3 + 3]))
                    .collect();
                ds.sort_by(f64::total_cmp);
                tie |= ds[1] - ds[0] < 1e-4;
            }
            if !tie {
                assert_fd_gradient(
                    |e| loss_plain(e, dim, &labels),
                    &emb,
                    &g,
                    "triplet gradient",
                );
                checked += 1;
            }
        }
        assert!(checked >= 8, "only {checked} points away from ties");
    }
}

// ---------------------------------------------------------------------------------------------------
// (23) A smooth two-input activation with a hand-written gradient (`#[custom_gradient]`, its Hessian
// through the closure at `order = 2`), a discounted return by `.rev().enumerate()`, a tuple from a
// helper, a `while` with a compound condition, and a `Vec` result built by `push` over `windows(2)`
// with its `_jacobian`.

mod smooth_net {
    use super::*;
    use autodiff::{custom_gradient, differentiable};

    #[custom_gradient]
    pub fn softplus2(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let s = (x + y).exp();
        ((1.0 + s).ln(), move |dy| {
            (dy * s / (1.0 + s), dy * s / (1.0 + s))
        })
    }

    #[differentiable]
    pub fn polar(x: f64) -> (f64, f64) {
        (x.sin(), x.cos())
    }

    twin! {
        #[differentiable(order = 2)]
        fn unit / unit_plain(x: f64, y: f64) -> f64 {
            let (s, c) = polar(x * y);
            let mut acc = softplus2(s, c) * x;
            let mut n = 0;
            while acc.abs() < 10.0 && n < 3 {
                acc = acc * 1.5 + c;
                n += 1;
            }
            acc
        }
    }

    twin! {
        #[differentiable]
        fn discounted / discounted_plain(rewards: &[f64], gamma: f64) -> f64 {
            let mut acc = 0.0;
            for (i, r) in rewards.iter().rev().enumerate() {
                acc += gamma.powi(i as i32) * r * r;
            }
            acc
        }
    }

    #[differentiable]
    pub fn gains(x: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        for w in x.windows(2) {
            out.push(w[1] * w[0].exp());
        }
        out
    }

    #[test]
    fn custom_at_order_two_and_forms() {
        for p in pts(5031, 2, 12, -1.5, 1.5) {
            let (value, (gx, gy)) = unit_grad(p[0], p[1]);
            assert_eq!(value, unit_plain(p[0], p[1]));
            assert_eq!(unit(p[0], p[1]), value);
            assert_fd_gradient(|q| unit_plain(q[0], q[1]), &p, &[gx, gy], "unit gradient");
            let (_, _, h) = unit_hessian(p[0], p[1]);
            assert_hessian_fd(
                &h,
                |q| {
                    let g = unit_grad(q[0], q[1]).1;
                    vec![g.0, g.1]
                },
                &p,
                1e-5,
                "unit hessian",
            );
        }
        for x in pts(5032, 6, 10, -1.0, 1.0) {
            let gamma = 0.5 + 0.4 * x[0].abs();
            let (value, (gr, gg)) = discounted_grad(&x, gamma);
            assert_eq!(value, discounted_plain(&x, gamma));
            assert_eq!(discounted(&x, gamma), value);
            for i in 0..6 {
                let by_hand = 2.0 * gamma.powi(5 - i as i32) * x[i];
                assert_close(gr[i], by_hand, 1e-14, "discounted by hand");
            }
            let mut at = x.clone();
            at.push(gamma);
            let mut g = gr.clone();
            g.push(gg);
            assert_fd_gradient(|q| discounted_plain(&q[..6], q[6]), &at, &g, "discounted");
            let j = gains_jacobian(&x);
            let out = gains(&x);
            assert_eq!(out.len(), 5);
            for i in 0..5 {
                assert_close(out[i], x[i + 1] * x[i].exp(), 1e-15, "gains value");
                let mut row = vec![0.0; 6];
                row[i] = x[i + 1] * x[i].exp();
                row[i + 1] = x[i].exp();
                assert_all_close(&j[i], &row, 1e-14, "gains jacobian by hand");
            }
            check_jacobian("gains", &x, &j, |q| {
                q.windows(2).map(|w| w[1] * w[0].exp()).collect()
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (24) A damped pendulum model as a `Differentiable` struct with a nested parameter struct and a
// `#[no_grad]` step count: the energy drift after semi-implicit Euler steps, as methods with
// `wrt(self)` at `order = 2` calling each other, the Hessian over the flat parameters and `_hvp`.

mod pendulum {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Physics {
        gravity: f64,
        length: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Pendulum {
        physics: Physics,
        damping: f64,
        start: [f64; 2],
        #[no_grad]
        steps: usize,
    }

    impl Pendulum {
        #[differentiable(wrt(self), order = 2)]
        pub fn energy(&self, theta: f64, omega: f64) -> f64 {
            let l = self.physics.length;
            0.5 * l * l * omega * omega + self.physics.gravity * l * (1.0 - theta.cos())
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn drift(&self, dt: f64) -> f64 {
            let mut theta = self.start[0];
            let mut omega = self.start[1];
            let e0 = self.energy(theta, omega);
            for _ in 0..self.steps {
                omega -= dt
                    * (self.physics.gravity / self.physics.length * theta.sin()
                        + self.damping * omega);
                theta += dt * omega;
            }
            let e = self.energy(theta, omega);
            (e - e0) * (e - e0)
        }

        fn plain_drift(&self, dt: f64) -> f64 {
            let (g, l) = (self.physics.gravity, self.physics.length);
            let energy = |t: f64, w: f64| 0.5 * l * l * w * w + g * l * (1.0 - t.cos());
            let (mut t, mut w) = (self.start[0], self.start[1]);
            let e0 = energy(t, w);
            for _ in 0..self.steps {
                w -= dt * (g / l * t.sin() + self.damping * w);
                t += dt * w;
            }
            (energy(t, w) - e0).powi(2)
        }
    }

    #[test]
    fn energy_drift() {
        let base = Pendulum {
            physics: Physics {
                gravity: 9.81,
                length: 1.0,
            },
            damping: 0.0,
            start: [0.0, 0.0],
            steps: 20,
        };
        for p in pts(5041, 5, 10, 0.0, 1.0) {
            let flat = [9.0 + p[0], 0.5 + p[1], 0.2 * p[2], 0.3 + p[3], p[4] - 0.5];
            let model = base.from_flat(&flat);
            assert_eq!(model.steps, 20);
            let (value, grad) = model.drift_grad(0.05);
            assert_close(value, model.plain_drift(0.05), 1e-13, "drift value");
            assert_eq!(model.drift(0.05), value);
            assert_fd_gradient(
                |q| base.from_flat(q).plain_drift(0.05),
                &flat,
                &grad.to_flat(),
                "drift gradient",
            );
            let (_, _, h) = model.drift_hessian(0.05);
            assert_hessian_fd(
                &h,
                |q| base.from_flat(q).drift_grad(0.05).1.to_flat(),
                &flat,
                1e-5,
                "drift hessian",
            );
            let v = wave(5, 0.2);
            let (_, _, hv) = model.drift_hvp(0.05, base.from_flat(&v));
            let by_rows: Vec<f64> = h.iter().map(|row| dot(row, &v)).collect();
            assert_all_close(&hv.to_flat(), &by_rows, 1e-9, "drift hvp");
            // The energy's gradient by hand: ∂/∂g = l (1 - cos θ), ∂/∂l = l ω² + g (1 - cos θ).
            let (theta, omega) = (0.4 * p[0], p[1]);
            let (_, ge) = model.energy_grad(theta, omega);
            let (g, l) = (flat[0], flat[1]);
            assert_all_close(
                &ge.to_flat(),
                &[
                    l * (1.0 - theta.cos()),
                    l * omega * omega + g * (1.0 - theta.cos()),
                    0.0,
                    0.0,
                    0.0,
                ],
                1e-14,
                "energy by hand",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (25) A generic `T: Float` softmax temperature calibration at `order = 2` (negative log-likelihood of
// labels in the log temperature), run in `f64` and `f32`, with `_derivatives` at `order = 3` checked
// against differences.

mod calibration {
    use super::*;
    use autodiff::{differentiable, Float};

    #[differentiable(wrt(log_t), order = 3)]
    pub fn nll<T: Float>(log_t: T, logits: &[T], classes: usize, labels: &[usize]) -> T {
        let t = log_t.exp();
        let mut total = T::zero();
        for (b, row) in logits.chunks(classes).enumerate() {
            let mut m = T::neg_infinity();
            for &z in row {
                m = m.max(z / t);
            }
            let mut s = T::zero();
            for &z in row {
                s = s + (z / t - m).exp();
            }
            total = total - (row[labels[b]] / t - m - s.ln());
        }
        total / T::from(labels.len()).unwrap()
    }

    fn plain(log_t: f64, logits: &[f64], classes: usize, labels: &[usize]) -> f64 {
        let t = log_t.exp();
        logits
            .chunks(classes)
            .zip(labels)
            .map(|(row, &k)| {
                let lse = row.iter().map(|z| (z / t).exp()).sum::<f64>().ln();
                lse - row[k] / t
            })
            .sum::<f64>()
            / labels.len() as f64
    }

    #[test]
    fn temperature() {
        let mut r = Inputs(5051);
        let logits: Vec<f64> = r.vec(15).iter().map(|v| 3.0 * v).collect();
        let labels = [0usize, 2, 1, 1, 2];
        let logits32: Vec<f32> = logits.iter().map(|&v| v as f32).collect();
        for p in pts(5052, 1, 10, -1.0, 1.0) {
            let l = p[0];
            let [v, d1, d2, d3] = nll_derivatives(l, &logits, 3, &labels);
            assert_close(v, plain(l, &logits, 3, &labels), 1e-14, "calibration value");
            assert_eq!(nll(l, &logits, 3, &labels), v);
            assert_close(
                d1,
                central_difference(|x| plain(x, &logits, 3, &labels), l),
                1e-8,
                "d1",
            );
            assert_close(
                d2,
                central_difference(|x| nll_grad(x, &logits, 3, &labels).1, l),
                1e-7,
                "d2",
            );
            let second = |x: f64| nll_derivatives(x, &logits, 3, &labels)[2];
            assert_close(d3, central_difference(second, l), 1e-6, "d3");
            let (v32, g32) = nll_grad(l as f32, &logits32, 3, &labels);
            assert_close(v32 as f64, v, 1e-5, "f32 value");
            assert_close(g32 as f64, d1, 1e-4, "f32 gradient");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (26) A cumulative hazard model for survival times: an in-place prefix sum (`h[i] += h[i - 1]`), a
// bubble pass of `swap`s ordering a local copy, a reversed zip, `mul_add` and an early `return` from a
// nested `fn`, with the likelihood also in `f32` at `order = 2`.

mod hazard {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(log_rates))]
        fn nll / nll_plain(log_rates: &[f64], widths: &[f64], events: &[usize]) -> f64 {
            let n = log_rates.len();
            // The cumulative hazard at the end of each interval, in place.
            let mut h = vec![0.0; n];
            for i in 0..n {
                h[i] = log_rates[i].exp().mul_add(widths[i], 0.0);
            }
            for i in 1..n {
                h[i] += h[i - 1];
            }
            let mut total = 0.0;
            for &e in events {
                total += h[e] - log_rates[e];
            }
            // A smoothness penalty on the rates, sorted by a bubble pass of swaps (order-invariant).
            let mut sorted = log_rates.to_vec();
            for pass in 0..n {
                for j in 0..n - 1 - pass {
                    if sorted[j] > sorted[j + 1] {
                        sorted.swap(j, j + 1);
                    }
                }
            }
            for (a, b) in sorted.iter().rev().zip(log_rates.iter()) {
                total += 0.01 * a * b;
            }
            total
        }
    }

    #[differentiable(order = 2, wrt(a, b))]
    pub fn gompertz(a: f32, b: f32, times: &[f32]) -> f32 {
        fn log_density(a: f32, b: f32, t: f32) -> f32 {
            if t <= 0.0 {
                return 0.0;
            }
            a.ln() + b * t - a / b * ((b * t).exp() - 1.0)
        }
        let mut total = 0.0f32;
        for &t in times {
            total -= log_density(a, b, t);
        }
        total
    }

    fn gompertz64(q: &[f64], times: &[f32]) -> f64 {
        let (a, b) = (q[0], q[1]);
        times
            .iter()
            .filter(|&&t| t > 0.0)
            .map(|&t| {
                let t = t as f64;
                -(a.ln() + b * t - a / b * ((b * t).exp() - 1.0))
            })
            .sum()
    }

    #[test]
    fn survival() {
        let widths = [0.5, 1.0, 0.7, 1.3, 0.4];
        let events = [0usize, 2, 2, 3, 4, 1];
        let mut checked = 0;
        for x in pts(5061, 5, 12, -1.0, 1.0) {
            let (value, g) = nll_grad(&x, &widths, &events);
            assert_eq!(value, nll_plain(&x, &widths, &events));
            assert_eq!(nll(&x, &widths, &events), value);
            if common::min_gap(&x) > 1e-4 {
                assert_fd_gradient(
                    |q| nll_plain(q, &widths, &events),
                    &x,
                    &g,
                    "hazard gradient",
                );
                checked += 1;
            }
            // By hand, the likelihood part: exp(l_k) w_k (number of events at or after k) - (events at k).
            let mut sorted = x.clone();
            sorted.sort_by(f64::total_cmp);
            for k in 0..5 {
                let after = events.iter().filter(|&&e| e >= k).count() as f64;
                let at = events.iter().filter(|&&e| e == k).count() as f64;
                // The penalty Σ s_(n-1-i) x_i: x_k's own term, and x's term pairing with x_k's rank.
                let rank = sorted.iter().position(|&v| v == x[k]).unwrap();
                let penalty = 0.01 * (sorted[4 - k] + x[4 - rank]);
                let by_hand = x[k].exp() * widths[k] * after - at + penalty;
                assert_close(g[k], by_hand, 1e-13, "hazard by hand");
            }
        }
        assert!(checked >= 8);
        let times = [0.0f32, 0.3, 1.1, 2.0, 0.7, 1.6];
        for p in pts(5062, 2, 10, 0.2, 1.2) {
            let (a, b) = (p[0] as f32, p[1] as f32);
            let (value, (ga, gb)) = gompertz_grad(a, b, &times);
            assert_eq!(gompertz(a, b, &times), value);
            let at = [a as f64, b as f64];
            assert_close(
                value as f64,
                gompertz64(&at, &times),
                1e-5,
                "gompertz value",
            );
            let fd_a = central_difference(|v| gompertz64(&[v, at[1]], &times), at[0]);
            let fd_b = central_difference(|v| gompertz64(&[at[0], v], &times), at[1]);
            assert_close(ga as f64, fd_a, 1e-4, "gompertz da");
            assert_close(gb as f64, fd_b, 1e-4, "gompertz db");
            let (_, _, h) = gompertz_hessian(a, b, &times);
            // ∂²/∂a² = n / a² for the n positive times, by hand.
            assert_close(h[0][0] as f64, 5.0 / (at[0] * at[0]), 1e-4, "gompertz haa");
            let grad64 = |q: &[f64]| {
                let (_, (ga, gb)) = gompertz_grad(q[0] as f32, q[1] as f32, &times);
                vec![ga as f64, gb as f64]
            };
            let col = common::hessian_column(grad64, &at, 1);
            assert_close(h[0][1] as f64, col[0], 2e-2, "gompertz hab");
            assert_close(h[1][1] as f64, col[1], 2e-2, "gompertz hbb");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (27) Online exponential smoothing into a state buffer the caller owns (an output parameter whose
// incoming value is read), a recursive de Casteljau evaluation of a Bézier curve returning a tuple, and
// a self-referencing update `x = x * a + x.sin()`; `_vjp`/`_jvp` with the output cotangent and tangent,
// and `_grad_into` with a tuple of buffers.

mod smoothing_state {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn update(state: &mut [f64], obs: &[f64], alpha: f64) {
        for i in 0..state.len() {
            state[i] = alpha * obs[i] + (1.0 - alpha) * state[i];
            state[i] = state[i] * 0.9 + 0.1 * state[i].sin();
        }
    }

    #[differentiable]
    pub fn casteljau(xs: &[f64], ys: &[f64], t: f64) -> (f64, f64) {
        if xs.len() == 1 {
            return (xs[0], ys[0]);
        }
        let mut nx = Vec::new();
        let mut ny = Vec::new();
        for i in 0..xs.len() - 1 {
            nx.push((1.0 - t) * xs[i] + t * xs[i + 1]);
            ny.push((1.0 - t) * ys[i] + t * ys[i + 1]);
        }
        casteljau(&nx, &ny, t)
    }

    #[differentiable(wrt(xs, ys))]
    pub fn polyline_energy(xs: &[f64], ys: &[f64], samples: usize) -> f64 {
        let mut total = 0.0;
        let (mut px, mut py) = casteljau(xs, ys, 0.0);
        for k in 1..=samples {
            let (x, y) = casteljau(xs, ys, k as f64 / samples as f64);
            let mut d = (x - px).hypot(y - py);
            d = d * d + d.sin();
            total += d;
            px = x;
            py = y;
        }
        total
    }

    fn plain_point(xs: &[f64], ys: &[f64], t: f64) -> (f64, f64) {
        // Bernstein form.
        let n = xs.len() - 1;
        let mut binom = 1.0;
        let (mut x, mut y) = (0.0, 0.0);
        for k in 0..=n {
            let b = binom * t.powi(k as i32) * (1.0 - t).powi((n - k) as i32);
            x += b * xs[k];
            y += b * ys[k];
            binom = binom * (n - k) as f64 / (k + 1) as f64;
        }
        (x, y)
    }

    fn plain_energy(q: &[f64], samples: usize) -> f64 {
        let (xs, ys) = q.split_at(q.len() / 2);
        let mut total = 0.0;
        let mut prev = plain_point(xs, ys, 0.0);
        for k in 1..=samples {
            let p = plain_point(xs, ys, k as f64 / samples as f64);
            let d = (p.0 - prev.0).hypot(p.1 - prev.1);
            total += d * d + d.sin();
            prev = p;
        }
        total
    }

    #[test]
    fn state_and_curves() {
        let n = 4;
        for p in pts(5071, 2 * n + 1, 10, -1.0, 1.0) {
            let (state0, obs, alpha) = (&p[..n], &p[n..2 * n], 0.3 + 0.2 * p[2 * n]);
            let plain = |q: &[f64]| -> Vec<f64> {
                (0..n)
                    .map(|i| {
                        let s = q[2 * n] * q[n + i] + (1.0 - q[2 * n]) * q[i];
                        s * 0.9 + 0.1 * s.sin()
                    })
                    .collect()
            };
            let mut state = state0.to_vec();
            update(&mut state, obs, alpha);
            let at: Vec<f64> = p[..2 * n].iter().copied().chain([alpha]).collect();
            assert_all_close(&state, &plain(&at), 1e-15, "update value");
            let c = wave(n, 0.7);
            let mut s = state0.to_vec();
            let (gs, go, ga) = update_vjp(&mut s, obs, alpha, &c);
            assert_all_close(&s, &state, 0.0, "vjp writes the state");
            let cj: Vec<f64> = gs.iter().chain(&go).copied().chain([ga]).collect();
            let j = common::fd_jacobian(plain, &at);
            let expected: Vec<f64> = (0..at.len())
                .map(|col| (0..n).map(|row| c[row] * j[row][col]).sum())
                .collect();
            assert_all_close(&cj, &expected, 1e-7, "update vjp against differences");
            let t = wave(2 * n + 1, 0.1);
            let mut s = state0.to_vec();
            let mut jt = vec![0.0; n];
            update_jvp(
                &mut s,
                obs,
                alpha,
                (t[..n].to_vec(), t[n..2 * n].to_vec(), t[2 * n]),
                &mut jt,
            );
            check_dual("update", &c, &jt, &cj, &t);
        }
        for q in pts(5072, 8, 10, -1.0, 1.0) {
            let (xs, ys) = (&q[..4], &q[4..]);
            for t in [0.0, 0.25, 0.6, 1.0] {
                let (x, y) = casteljau(xs, ys, t);
                let (bx, by) = plain_point(xs, ys, t);
                assert_close(x, bx, 1e-14, "de Casteljau x");
                assert_close(y, by, 1e-14, "de Casteljau y");
            }
            let (value, (gx, gy)) = polyline_energy_grad(xs, ys, 6);
            assert_close(value, plain_energy(&q, 6), 1e-13, "polyline value");
            assert_eq!(polyline_energy(xs, ys, 6), value);
            let g: Vec<f64> = gx.iter().chain(&gy).copied().collect();
            assert_fd_gradient(|r| plain_energy(r, 6), &q, &g, "polyline gradient");
            let (mut bx, mut by) = (vec![f64::NAN; 4], vec![f64::NAN; 4]);
            let v = polyline_energy_grad_into(xs, ys, 6, (&mut bx, &mut by));
            assert_eq!(v, value);
            common::same_bits(&bx, &gx, "polyline grad_into x");
            common::same_bits(&by, &gy, "polyline grad_into y");
            // The derivative in t of the curve against differences (t active through `_vjp`).
            let (_, (_, _, dt)) = casteljau_vjp(xs, ys, 0.4, (1.0, 0.0));
            let fd = central_difference(|t| plain_point(xs, ys, t).0, 0.4);
            assert_close(dt, fd, 1e-8, "curve tangent");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// A regression of the second fix made in this session: a local closure `f` capturing `y`, called in the
// body of a later closure whose parameter is also `y`, was inlined there reading that parameter (the
// gradient of `x * x + x + y * y` instead of `x * y + x + y * y`); it is now an error
// (`tests/ui/chains/closure-capture-hidden-by-parameter.rs`). The forms around it still work: `f` called
// outside the closure that hides `y`, with `y` passed under another name, and a closure parameter named
// like a capture of no closure it calls.

mod closure_captures {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable]
        fn outside / outside_plain(x: f64, y: f64) -> f64 {
            let f = |x: f64| x * y;
            let g = |y: f64| y + 1.0;
            let h = |z: f64| f(z) + z;
            f(g(x)) + h(x.sin())
        }
    }

    #[test]
    fn captured_names() {
        for p in pts(5081, 2, 10, -2.0, 2.0) {
            let (x, y) = (p[0], p[1]);
            let (value, (gx, gy)) = outside_grad(x, y);
            assert_eq!(value, outside_plain(x, y));
            assert_eq!(outside(x, y), value);
            // (x + 1) y + sin(x) y + sin(x).
            assert_close(
                value,
                (x + 1.0) * y + x.sin() * y + x.sin(),
                1e-14,
                "value by hand",
            );
            assert_close(gx, y + x.cos() * y + x.cos(), 1e-14, "d/dx by hand");
            assert_close(gy, x + 1.0 + x.sin(), 1e-14, "d/dy by hand");
            assert_fd_gradient(|q| outside_plain(q[0], q[1]), &p, &[gx, gy], "captures");
        }
    }
}
