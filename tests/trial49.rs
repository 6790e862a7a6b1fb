//! An outside test suite written against API.md alone (session 49), by a user from numeric computing
//! writing small real projects: each module is one project of a few differentiable functions in
//! ordinary idiomatic Rust. Projects: a von Mises mixture on the circle through a registered gradient
//! of a series `I0`, ordinal (cumulative logit) regression with cutpoints pushed into a `Vec`, a
//! censored Weibull survival fit at `order = 2`, a Student-t location-scale fit at `order = 2`, a
//! continuous Hopfield energy over const generic arrays at `order = 2`, batch normalisation after a
//! linear layer, a Gumbel-softmax relaxation returning a `Vec` (`_jacobian`), composite Gauss-Legendre
//! quadrature of a parametric integrand, inverse kinematics of a three-link arm (a labeled block), a
//! generic `T: Float` log-cosh regression at `f32` and `f64`, a geometric circle fit by Gauss-Newton
//! through `_jacobian` of an output slice, consecutive first-order kinetics at `order = 2`, Elo
//! ratings updated game by game, a projectile with drag ending in a `loop` with `break` value, a
//! mixture density network head with a `stop_gradient` shift, heat-exchanger effectiveness by an enum
//! of flow arrangements, smoothed total-variation denoising at `order = 2`, the van der Waals
//! equation at `order = 3`, a diode with series resistance through a custom-gradient Lambert W, and
//! a battery equivalent-circuit `Differentiable` struct with methods; then a Catmull-Rom path length,
//! a generic softmax cross-entropy at `order = 2` (`f32` and `f64`), an HMM forward pass with a labeled
//! `break 'outer`, a spring chain struct with `_jvp`, Lagrange interpolation at `order = 3`, and Horner's
//! rule by `fold` and `mul_add` (the regression of the fix made here).
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
    arr, assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, check_dual,
    check_jacobian, wave, Inputs,
};

/// `count` points of `n` coordinates in `[lo, hi)`.
fn pts(seed: u64, n: usize, count: usize, lo: f64, hi: f64) -> Vec<Vec<f64>> {
    common::points(seed, n, count, lo, hi)
}

// ---------------------------------------------------------------------------------------------------
// (1) A mixture of von Mises densities for wind directions: the normaliser `2π I0(κ)` by a plain power
// series the user does not annotate, its gradient registered as `I1`.

mod von_mises {
    use super::*;
    use autodiff::{differentiable, gradient_of};

    pub mod special {
        /// The modified Bessel function `I0` by its power series.
        pub fn bessel_i0(x: f64) -> f64 {
            let q = 0.25 * x * x;
            let (mut term, mut sum) = (1.0, 1.0);
            for k in 1..60 {
                term *= q / (k * k) as f64;
                sum += term;
            }
            sum
        }

        /// `I1`, the derivative of `I0`.
        pub fn bessel_i1(x: f64) -> f64 {
            let q = 0.25 * x * x;
            let mut term = 0.5 * x;
            let mut sum = term;
            for k in 1..60 {
                term *= q / (k * (k + 1)) as f64;
                sum += term;
            }
            sum
        }
    }

    #[gradient_of(special::bessel_i0)]
    fn i0_vjp(x: f64, dy: f64) -> f64 {
        special::bessel_i1(x) * dy
    }

    #[differentiable]
    pub fn log_normaliser(kappa: f64) -> f64 {
        (2.0 * std::f64::consts::PI * special::bessel_i0(kappa)).ln()
    }

    twin! {
        #[differentiable(wrt(mus, log_kappas, logits))]
        fn nll / nll_plain(mus: &[f64], log_kappas: &[f64], logits: &[f64], angles: &[f64]) -> f64 {
            const TWO_PI: f64 = 2.0 * std::f64::consts::PI;
            let top = logits.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let z: f64 = logits.iter().map(|l| (l - top).exp()).sum();
            let mut total = 0.0;
            for &theta in angles {
                let mut density = 0.0;
                for (k, (&mu, &lk)) in mus.iter().zip(log_kappas).enumerate() {
                    let kappa = lk.exp();
                    let weight = (logits[k] - top).exp() / z;
                    density += weight * (kappa * (theta - mu).cos()).exp() / (TWO_PI * special::bessel_i0(kappa));
                }
                total -= density.ln();
            }
            total
        }
    }

    #[test]
    fn von_mises_mixture() {
        for &kappa in &[0.1, 0.7, 2.0, 5.5] {
            let (v, g) = log_normaliser_grad(kappa);
            assert_close(v, log_normaliser(kappa), 0.0, "log normaliser value");
            let ratio = special::bessel_i1(kappa) / special::bessel_i0(kappa);
            assert_close(g, ratio, 1e-14, "d ln I0 = I1 / I0");
        }
        let mut r = Inputs(4901);
        let angles: Vec<f64> = (0..14).map(|_| 3.0 * r.next()).collect();
        for p in pts(4902, 9, 10, -1.5, 1.5) {
            let (mus, lks, logits) = (&p[0..3], &p[3..6], &p[6..9]);
            let (value, (gm, gk, gl)) = nll_grad(mus, lks, logits, &angles);
            assert_eq!(
                value,
                nll_plain(mus, lks, logits, &angles),
                "von Mises value"
            );
            assert_eq!(value, nll(mus, lks, logits, &angles), "von Mises value");
            let g: Vec<f64> = gm.iter().chain(&gk).chain(&gl).copied().collect();
            assert_fd_gradient(
                |q| nll_plain(&q[0..3], &q[3..6], &q[6..9], &angles),
                &p,
                &g,
                "von Mises gradient",
            );
            // Shifting every logit by the same amount leaves the mixture unchanged.
            assert_close(gl.iter().sum::<f64>(), 0.0, 1e-12, "logit shift invariance");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) Ordinal regression with a cumulative logit link: ordered cutpoints built from increments by
// `exp`, pushed into a `Vec`, the probability of a level chosen by `match` on the integer label.

mod ordinal {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sigmoid(z: f64) -> f64 {
        1.0 / (1.0 + (-z).exp())
    }

    twin! {
        #[differentiable(wrt(beta, theta))]
        fn nll / nll_plain(beta: &[f64], theta: &[f64], xs: &[Vec<f64>], ys: &[usize]) -> f64 {
            let top = theta.len();
            let mut cuts = Vec::new();
            let mut c = theta[0];
            cuts.push(c);
            for &t in &theta[1..] {
                c += t.exp();
                cuts.push(c);
            }
            let mut total = 0.0;
            for (x, &y) in xs.iter().zip(ys) {
                let eta: f64 = x.iter().zip(beta).map(|(a, b)| a * b).sum();
                let p = match y {
                    0 => sigmoid(cuts[0] - eta),
                    k if k == top => 1.0 - sigmoid(cuts[k - 1] - eta),
                    k => sigmoid(cuts[k] - eta) - sigmoid(cuts[k - 1] - eta),
                };
                total -= p.ln();
            }
            total
        }
    }

    #[test]
    fn cumulative_logit() {
        let mut r = Inputs(4911);
        let xs = r.rows(16, 3);
        let ys: Vec<usize> = (0..16).map(|i| (i * 7 + 3) % 4).collect();
        for p in pts(4912, 6, 10, -1.0, 1.0) {
            let (beta, theta) = (&p[0..3], &p[3..6]);
            let (value, (gb, gt)) = nll_grad(beta, theta, &xs, &ys);
            assert_eq!(value, nll_plain(beta, theta, &xs, &ys), "ordinal value");
            assert_eq!(value, nll(beta, theta, &xs, &ys), "ordinal value");
            let g: Vec<f64> = gb.iter().chain(&gt).copied().collect();
            assert_fd_gradient(
                |q| nll_plain(&q[0..3], &q[3..6], &xs, &ys),
                &p,
                &g,
                "ordinal gradient",
            );
            // By hand for one observation of the lowest level: d(-ln σ(c0 - η))/dθ0 = 1 - σ(c0 - η).
            let (_, (_, gt1)) = nll_grad(beta, theta, &xs[..1], &[0]);
            let eta = common::dot(&xs[0], beta);
            assert_close(
                gt1[0],
                -(1.0 - common::sigmoid(theta[0] - eta)),
                1e-14,
                "ordinal by hand",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) A Weibull survival fit with right censoring: the log-likelihood over `(time, event)` pairs by
// `zip`, an `if` on the event flag, at `order = 2` (the observed information).

mod weibull {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(order = 2, wrt(log_k, log_lambda))]
        fn nll / nll_plain(log_k: f64, log_lambda: f64, times: &[f64], events: &[bool]) -> f64 {
            let k = log_k.exp();
            let lambda = log_lambda.exp();
            let mut total = 0.0;
            for (&t, &observed) in times.iter().zip(events) {
                let z = t / lambda;
                let cumulative = z.powf(k);
                if observed {
                    total -= log_k - log_lambda + (k - 1.0) * z.ln() - cumulative;
                } else {
                    total += cumulative;
                }
            }
            total
        }
    }

    #[test]
    fn censored_weibull() {
        let mut r = Inputs(4921);
        let times: Vec<f64> = (0..20).map(|_| 0.2 + 2.0 * (r.next() + 1.0)).collect();
        let events: Vec<bool> = (0..20).map(|i| i % 3 != 0).collect();
        for p in pts(4922, 2, 12, -0.8, 0.8) {
            let (value, (gk, gl)) = nll_grad(p[0], p[1], &times, &events);
            assert_eq!(
                value,
                nll_plain(p[0], p[1], &times, &events),
                "weibull value"
            );
            assert_eq!(value, nll(p[0], p[1], &times, &events), "weibull value");
            assert_fd_gradient(
                |q| nll_plain(q[0], q[1], &times, &events),
                &p,
                &[gk, gl],
                "weibull gradient",
            );
            // By hand: d/d ln λ = Σ_events k - Σ_all k (t/λ)^k.
            let (k, lambda) = (p[0].exp(), p[1].exp());
            let events_k = k * events.iter().filter(|&&e| e).count() as f64;
            let all: f64 = times.iter().map(|t| k * (t / lambda).powf(k)).sum();
            assert_close(gl, events_k - all, 1e-12, "weibull d/d ln lambda by hand");
            let (hv, hg, h) = nll_hessian(p[0], p[1], &times, &events);
            assert_eq!(hv, value, "weibull hessian value");
            assert_all_close(&[hg.0, hg.1], &[gk, gl], 1e-14, "weibull hessian gradient");
            assert_hessian_fd(
                &h,
                |q| {
                    let (_, (a, b)) = nll_grad(q[0], q[1], &times, &events);
                    vec![a, b]
                },
                &p,
                1e-6,
                "weibull hessian",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) A Student-t location-scale fit with the degrees of freedom held fixed (`wrt` leaves `nu` out),
// the sum by a closure over `map`, at `order = 2`.

mod student_t {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(order = 2, wrt(mu, log_s))]
        fn nll / nll_plain(mu: f64, log_s: f64, nu: f64, ys: &[f64]) -> f64 {
            let s = log_s.exp();
            let half = 0.5 * (nu + 1.0);
            let body: f64 = ys
                .iter()
                .map(|&y| {
                    let r = (y - mu) / s;
                    half * (r * r / nu).ln_1p()
                })
                .sum();
            ys.len() as f64 * log_s + body
        }
    }

    #[test]
    fn student_t_fit() {
        let mut r = Inputs(4931);
        let ys: Vec<f64> = (0..15)
            .map(|_| 2.0 * r.next() + 0.3 * r.next().powi(3) * 10.0)
            .collect();
        for p in pts(4932, 3, 12, -1.0, 1.0) {
            let nu = 3.0 + 2.0 * p[2];
            let (value, (gm, gs)) = nll_grad(p[0], p[1], nu, &ys);
            assert_eq!(value, nll_plain(p[0], p[1], nu, &ys), "student value");
            assert_eq!(value, nll(p[0], p[1], nu, &ys), "student value");
            let at = [p[0], p[1]];
            assert_fd_gradient(
                |q| nll_plain(q[0], q[1], nu, &ys),
                &at,
                &[gm, gs],
                "student gradient",
            );
            let s = p[1].exp();
            let by_hand: f64 = ys
                .iter()
                .map(|&y| {
                    let r = (y - p[0]) / s;
                    -(nu + 1.0) * r / (s * (nu + r * r))
                })
                .sum();
            assert_close(gm, by_hand, 1e-12, "student d/d mu by hand");
            let (_, _, h) = nll_hessian(p[0], p[1], nu, &ys);
            assert_close(h[0][1], h[1][0], 1e-12, "student hessian symmetric");
            assert_hessian_fd(
                &h,
                |q| {
                    let (_, (a, b)) = nll_grad(q[0], q[1], nu, &ys);
                    vec![a, b]
                },
                &at,
                1e-6,
                "student hessian",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) A continuous Hopfield network's energy over const generic arrays (`[f64; N]`, `[[f64; N]; N]`),
// at `order = 2`; its gradient by hand is `g (1 - v²) (u - W v - b)` for a symmetric `W`.

mod hopfield {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2, wrt(u))]
    pub fn energy<const N: usize>(u: [f64; N], w: [[f64; N]; N], bias: [f64; N], gain: f64) -> f64 {
        let mut v = [0.0; N];
        for i in 0..N {
            v[i] = (gain * u[i]).tanh();
        }
        let mut e = 0.0;
        for i in 0..N {
            for j in 0..N {
                e -= 0.5 * w[i][j] * v[i] * v[j];
            }
            e -= bias[i] * v[i];
            e += (v[i] * v[i].atanh() + 0.5 * (1.0 - v[i] * v[i]).ln()) / gain;
        }
        e
    }

    fn plain<const N: usize>(u: [f64; N], w: [[f64; N]; N], bias: [f64; N], gain: f64) -> f64 {
        let v: Vec<f64> = u.iter().map(|x| (gain * x).tanh()).collect();
        let quad: f64 = (0..N)
            .map(|i| (0..N).map(|j| w[i][j] * v[i] * v[j]).sum::<f64>())
            .sum();
        let integral: f64 = v
            .iter()
            .map(|&x| (x * x.atanh() + 0.5 * (1.0 - x * x).ln()) / gain)
            .sum();
        -0.5 * quad - common::dot(&v, &bias) + integral
    }

    #[test]
    fn hopfield_energy() {
        const N: usize = 4;
        let mut r = Inputs(4941);
        let mut w = [[0.0; N]; N];
        for i in 0..N {
            for j in 0..i {
                w[i][j] = r.next();
                w[j][i] = w[i][j];
            }
        }
        let bias: [f64; N] = arr(&r.vec(N));
        for p in pts(4942, N + 1, 10, -1.0, 1.0) {
            let u: [f64; N] = arr(&p);
            let gain = 1.0 + 0.5 * p[N];
            let (value, g) = energy_grad(u, w, bias, gain);
            assert_close(value, plain(u, w, bias, gain), 1e-13, "hopfield value");
            assert_eq!(value, energy(u, w, bias, gain), "hopfield value");
            assert_fd_gradient(
                |q| plain(arr(q), w, bias, gain),
                &u,
                &g,
                "hopfield gradient",
            );
            for i in 0..N {
                let v: Vec<f64> = u.iter().map(|x| (gain * x).tanh()).collect();
                let field: f64 = (0..N).map(|j| w[i][j] * v[j]).sum();
                let by_hand = gain * (1.0 - v[i] * v[i]) * (u[i] - field - bias[i]);
                assert_close(g[i], by_hand, 1e-10, "hopfield gradient by hand");
            }
            let (_, _, h) = energy_hessian(u, w, bias, gain);
            assert_hessian_fd(
                &h,
                |q| energy_grad(arr::<N>(q), w, bias, gain).1.to_vec(),
                &u,
                1e-6,
                "hopfield hessian",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) Batch normalisation after a linear layer: per-feature batch mean and variance of active
// pre-activations, scale and shift, a `tanh` head, the squared error; scratch in a flat local `Vec`.

mod batch_norm {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(w1, gamma, beta, head))]
        fn loss / loss_plain(w1: &[f64], gamma: &[f64], beta: &[f64], head: &[f64], batch: &[Vec<f64>], targets: &[f64]) -> f64 {
            const EPS: f64 = 1e-5;
            let features = gamma.len();
            let inputs = batch[0].len();
            let m = batch.len() as f64;
            let mut pre = vec![0.0; batch.len() * features];
            for (b, x) in batch.iter().enumerate() {
                for j in 0..features {
                    let mut s = 0.0;
                    for i in 0..inputs {
                        s += w1[j * inputs + i] * x[i];
                    }
                    pre[b * features + j] = s;
                }
            }
            let mut normed = vec![0.0; batch.len() * features];
            for j in 0..features {
                let mut mean = 0.0;
                for b in 0..batch.len() {
                    mean += pre[b * features + j];
                }
                mean /= m;
                let mut var = 0.0;
                for b in 0..batch.len() {
                    var += (pre[b * features + j] - mean).powi(2);
                }
                var /= m;
                let inv = 1.0 / (var + EPS).sqrt();
                for b in 0..batch.len() {
                    normed[b * features + j] = gamma[j] * (pre[b * features + j] - mean) * inv + beta[j];
                }
            }
            let mut total = 0.0;
            for (b, &t) in targets.iter().enumerate() {
                let out: f64 = normed[b * features..(b + 1) * features]
                    .iter()
                    .zip(head)
                    .map(|(h, k)| h.tanh() * k)
                    .sum();
                total += (out - t).powi(2);
            }
            total / m
        }
    }

    #[test]
    fn batch_norm_loss() {
        let (inputs, features, batch_size) = (3, 2, 6);
        let mut r = Inputs(4951);
        let batch = r.rows(batch_size, inputs);
        let targets = r.vec(batch_size);
        let sizes = [features * inputs, features, features, features];
        let n: usize = sizes.iter().sum();
        for p in pts(4952, n, 10, -1.0, 1.0) {
            let split = |q: &[f64]| -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
                (
                    q[0..6].to_vec(),
                    q[6..8].to_vec(),
                    q[8..10].to_vec(),
                    q[10..12].to_vec(),
                )
            };
            let (w1, gamma, beta, head) = split(&p);
            let (value, (g1, gg, gb, gh)) = loss_grad(&w1, &gamma, &beta, &head, &batch, &targets);
            assert_eq!(
                value,
                loss_plain(&w1, &gamma, &beta, &head, &batch, &targets),
                "batch norm value"
            );
            assert_eq!(
                value,
                loss(&w1, &gamma, &beta, &head, &batch, &targets),
                "batch norm value"
            );
            let g: Vec<f64> = g1
                .iter()
                .chain(&gg)
                .chain(&gb)
                .chain(&gh)
                .copied()
                .collect();
            assert_fd_gradient(
                |q| {
                    let (a, b, c, d) = split(q);
                    loss_plain(&a, &b, &c, &d, &batch, &targets)
                },
                &p,
                &g,
                "batch norm gradient",
            );
            // Normalisation makes the loss invariant to scaling a row of `w1`: the gradient of that
            // row is orthogonal to the row (up to the effect of EPS).
            let along: f64 = (0..inputs).map(|i| g1[i] * w1[i]).sum();
            assert!(
                along.abs() < 1e-3 * (1.0 + g1.iter().map(|v| v.abs()).sum::<f64>()),
                "scale invariance: {along}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) A Gumbel-softmax relaxation of a categorical sample with fixed uniforms: the relaxed sample as
// a `Vec` by `collect`, its `_jacobian`, `_vjp` against `_jvp`, and an expected reward through a call.

mod gumbel {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(logits, log_tau))]
        fn relaxed / relaxed_plain(logits: &[f64], log_tau: f64, uniforms: &[f64]) -> Vec<f64> {
            let tau = log_tau.exp();
            let scores: Vec<f64> = logits
                .iter()
                .zip(uniforms)
                .map(|(&l, &u)| (l - (-u.ln()).ln()) / tau)
                .collect();
            let top = scores.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let mut y = Vec::new();
            let mut z = 0.0;
            for &s in &scores {
                let e = (s - top).exp();
                z += e;
                y.push(e);
            }
            for v in y.iter_mut() {
                *v /= z;
            }
            y
        }
    }

    #[differentiable(wrt(logits, log_tau))]
    pub fn reward(logits: &[f64], log_tau: f64, uniforms: &[f64], payoff: &[f64]) -> f64 {
        let y = relaxed(logits, log_tau, uniforms);
        y.iter().zip(payoff).map(|(a, b)| a * b).sum()
    }

    #[test]
    fn gumbel_softmax() {
        let k = 4;
        let mut r = Inputs(4961);
        let payoff = r.vec(k);
        for p in pts(4962, 2 * k + 1, 10, -1.0, 1.0) {
            let logits = &p[..k];
            let uniforms: Vec<f64> = p[k..2 * k]
                .iter()
                .map(|u| 0.05 + 0.45 * (u + 1.0))
                .collect();
            let log_tau = 0.5 * p[2 * k];
            let y = relaxed(logits, log_tau, &uniforms);
            assert_all_close(
                &y,
                &relaxed_plain(logits, log_tau, &uniforms),
                0.0,
                "gumbel value",
            );
            assert_close(y.iter().sum(), 1.0, 1e-14, "gumbel sums to one");
            let j = relaxed_jacobian(logits, log_tau, &uniforms);
            let mut at = logits.to_vec();
            at.push(log_tau);
            check_jacobian("gumbel jacobian", &at, &j, |q| {
                relaxed_plain(&q[..k], q[k], &uniforms)
            });
            // By hand: d y_i / d l_j = (δ_ij y_i - y_i y_j) / τ.
            let tau = log_tau.exp();
            for i in 0..k {
                for jj in 0..k {
                    let delta = if i == jj { y[i] } else { 0.0 };
                    assert_close(
                        j[i][jj],
                        (delta - y[i] * y[jj]) / tau,
                        1e-13,
                        "gumbel jacobian by hand",
                    );
                }
            }
            let c = wave(k, 0.3);
            let t = wave(k + 1, 1.7);
            let (_, (cl, ct)) = relaxed_vjp(logits, log_tau, &uniforms, c.clone());
            let (_, jt) = relaxed_jvp(logits, log_tau, &uniforms, (t[..k].to_vec(), t[k]));
            let cj: Vec<f64> = cl.iter().copied().chain([ct]).collect();
            check_dual("gumbel vjp/jvp", &c, &jt, &cj, &t);
            let (value, (gl, gt)) = reward_grad(logits, log_tau, &uniforms, &payoff);
            assert_close(value, common::dot(&y, &payoff), 1e-14, "reward value");
            let g: Vec<f64> = gl.iter().copied().chain([gt]).collect();
            assert_fd_gradient(
                |q| common::dot(&relaxed_plain(&q[..k], q[k], &uniforms), &payoff),
                &at,
                &g,
                "reward gradient",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) Composite Gauss-Legendre quadrature of `exp(-a t²) cos(b t)` over `[0, L]`: nodes and weights
// as `const` arrays, panels by a `while` loop; the derivatives are the same rule applied to the
// differentiated integrand, and the value is the closed form's for a long interval.

mod gauss_legendre {
    use super::*;
    use autodiff::differentiable;

    pub const NODES: [f64; 5] = [
        -0.9061798459386640,
        -0.5384693101056831,
        0.0,
        0.5384693101056831,
        0.9061798459386640,
    ];
    pub const WEIGHTS: [f64; 5] = [
        0.2369268850561891,
        0.4786286704993665,
        0.5688888888888889,
        0.4786286704993665,
        0.2369268850561891,
    ];

    /// The rule over `panels` equal panels of `[0, length]` applied to `g`.
    fn rule(g: impl Fn(f64) -> f64, length: f64, panels: usize) -> f64 {
        let h = length / panels as f64;
        let mut total = 0.0;
        for p in 0..panels {
            for (x, w) in NODES.iter().zip(WEIGHTS) {
                total += 0.5 * h * w * g(h * (p as f64 + 0.5 * (x + 1.0)));
            }
        }
        total
    }

    #[differentiable(wrt(a, b))]
    pub fn integral(a: f64, b: f64, length: f64, panels: usize) -> f64 {
        let h = length / panels as f64;
        let mut total = 0.0;
        let mut p = 0;
        while p < panels {
            let left = h * p as f64;
            let mut panel = 0.0;
            for i in 0..NODES.len() {
                let t = left + 0.5 * h * (NODES[i] + 1.0);
                panel += WEIGHTS[i] * (-a * t * t).exp() * (b * t).cos();
            }
            total += 0.5 * h * panel;
            p += 1;
        }
        total
    }

    #[test]
    fn gauss_legendre_integral() {
        for p in pts(4971, 2, 10, -1.0, 1.0) {
            let (a, b) = (1.0 + 0.5 * p[0], 2.0 * p[1]);
            let (value, (ga, gb)) = integral_grad(a, b, 8.0, 24);
            assert_close(
                value,
                rule(|t| (-a * t * t).exp() * (b * t).cos(), 8.0, 24),
                1e-13,
                "quadrature value",
            );
            // ∫_0^∞ e^{-a t²} cos(b t) dt = ½ √(π/a) e^{-b²/4a}.
            let exact = 0.5 * (std::f64::consts::PI / a).sqrt() * (-b * b / (4.0 * a)).exp();
            assert_close(value, exact, 1e-10, "quadrature against the closed form");
            let da = rule(|t| -t * t * (-a * t * t).exp() * (b * t).cos(), 8.0, 24);
            let db = rule(|t| -t * (-a * t * t).exp() * (b * t).sin(), 8.0, 24);
            assert_close(ga, da, 1e-12, "d/da by the rule");
            assert_close(gb, db, 1e-12, "d/db by the rule");
            let exact_db = -b / (2.0 * a) * exact;
            assert_close(gb, exact_db, 1e-9, "d/db of the closed form");
            assert_fd_gradient(
                |q| integral(q[0], q[1], 8.0, 24),
                &[a, b],
                &[ga, gb],
                "quadrature gradient",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) Inverse kinematics of a planar three-link arm: the tip by a running angle over `zip`, its
// `_jacobian` against the formula, and a loss with a joint-limit penalty in a labeled block.

mod arm3 {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(q))]
        fn tip / tip_plain(q: [f64; 3], lengths: [f64; 3]) -> [f64; 2] {
            let mut angle = 0.0;
            let mut x = 0.0;
            let mut y = 0.0;
            for (&qi, &li) in q.iter().zip(lengths.iter()) {
                angle += qi;
                x += li * angle.cos();
                y += li * angle.sin();
            }
            [x, y]
        }
    }

    twin! {
        #[differentiable(wrt(q))]
        fn ik_loss / ik_loss_plain(q: [f64; 3], lengths: [f64; 3], target: [f64; 2], limit: f64) -> f64 {
            let p = tip(q, lengths);
            let miss = (p[0] - target[0]).hypot(p[1] - target[1]);
            let penalty = 'penalty: {
                if limit <= 0.0 {
                    break 'penalty 0.0;
                }
                let mut s = 0.0;
                for &a in q.iter() {
                    s += (a.abs() - limit).max(0.0).powi(2);
                }
                s
            };
            miss * miss + 0.1 * penalty
        }
    }

    #[test]
    fn three_link_arm() {
        let lengths = [1.0, 0.7, 0.4];
        for p in pts(4981, 5, 12, -2.0, 2.0) {
            let q: [f64; 3] = arr(&p);
            let target = [p[3], p[4]];
            assert_eq!(tip(q, lengths), tip_plain(q, lengths), "tip value");
            let j = tip_jacobian(q, lengths);
            let s = [q[0], q[0] + q[1], q[0] + q[1] + q[2]];
            for c in 0..3 {
                let dx: f64 = (c..3).map(|k| -lengths[k] * s[k].sin()).sum();
                let dy: f64 = (c..3).map(|k| lengths[k] * s[k].cos()).sum();
                assert_close(j[0][c], dx, 1e-14, "arm jacobian x by hand");
                assert_close(j[1][c], dy, 1e-14, "arm jacobian y by hand");
            }
            for limit in [0.0, 1.2] {
                let (value, g) = ik_loss_grad(q, lengths, target, limit);
                assert_eq!(value, ik_loss_plain(q, lengths, target, limit), "ik value");
                assert_eq!(value, ik_loss(q, lengths, target, limit), "ik value");
                assert_fd_gradient(
                    |x| ik_loss_plain(arr(x), lengths, target, limit),
                    &q,
                    &g,
                    "ik gradient",
                );
                if limit == 0.0 {
                    // 2 Jᵀ (tip - target).
                    let t = tip_plain(q, lengths);
                    for c in 0..3 {
                        let by_hand =
                            2.0 * (j[0][c] * (t[0] - target[0]) + j[1][c] * (t[1] - target[1]));
                        assert_close(g[c], by_hand, 1e-12, "ik gradient by hand");
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) A log-cosh regression generic over `T: Float` (the stable form `|r| + ln(1 + e^{-2|r|}) - ln 2`),
// run at `f64` and `f32`; its gradient by hand uses `tanh`.

mod log_cosh {
    use super::*;
    use autodiff::{differentiable, Float};

    #[differentiable(wrt(w, b))]
    pub fn loss<T: Float>(w: &[T], b: T, xs: &[Vec<T>], ys: &[T]) -> T {
        let mut total = T::zero();
        for (x, &y) in xs.iter().zip(ys) {
            let pred = x.iter().zip(w).fold(b, |acc, (&xi, &wi)| acc + xi * wi);
            let a = (pred - y).abs();
            total = total + a + (-(a + a)).exp().ln_1p() - T::from(std::f64::consts::LN_2).unwrap();
        }
        total / T::from(ys.len()).unwrap()
    }

    #[test]
    fn log_cosh_regression() {
        let mut r = Inputs(4991);
        let xs = r.rows(12, 3);
        let ys: Vec<f64> = (0..12).map(|_| 3.0 * r.next()).collect();
        let xs32: Vec<Vec<f32>> = xs
            .iter()
            .map(|x| x.iter().map(|&v| v as f32).collect())
            .collect();
        let ys32: Vec<f32> = ys.iter().map(|&v| v as f32).collect();
        for p in pts(4992, 4, 10, -1.0, 1.0) {
            let (w, b) = (&p[..3], p[3]);
            let (value, (gw, gb)) = loss_grad(w, b, &xs, &ys);
            let plain: f64 = xs
                .iter()
                .zip(&ys)
                .map(|(x, y)| (common::dot(x, w) + b - y).cosh().ln())
                .sum::<f64>()
                / 12.0;
            assert_close(value, plain, 1e-13, "log cosh value");
            let mut by_hand = [0.0; 4];
            for (x, y) in xs.iter().zip(&ys) {
                let t = (common::dot(x, w) + b - y).tanh() / 12.0;
                for i in 0..3 {
                    by_hand[i] += t * x[i];
                }
                by_hand[3] += t;
            }
            let g: Vec<f64> = gw.iter().copied().chain([gb]).collect();
            assert_all_close(&g, &by_hand, 1e-13, "log cosh gradient by hand");
            assert_fd_gradient(
                |q| loss(&q[..3], q[3], &xs, &ys),
                &p,
                &g,
                "log cosh gradient",
            );
            let w32: Vec<f32> = w.iter().map(|&v| v as f32).collect();
            let (v32, (gw32, gb32)) = loss_grad(&w32, b as f32, &xs32, &ys32);
            assert_close(v32 as f64, value, 1e-5, "log cosh f32 value");
            let g32: Vec<f64> = gw32
                .iter()
                .map(|&v| v as f64)
                .chain([gb32 as f64])
                .collect();
            assert_all_close(&g32, &by_hand, 1e-5, "log cosh f32 gradient");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) A geometric circle fit: residuals `|p - c| - r` written into an output slice, their
// `_jacobian` against the formula, and Gauss-Newton steps through that Jacobian to the true circle.

mod circle_fit {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(params))]
    pub fn residuals(params: &[f64], xs: &[f64], ys: &[f64], out: &mut [f64]) {
        let (cx, cy, r) = (params[0], params[1], params[2].exp());
        for i in 0..xs.len() {
            out[i] = (xs[i] - cx).hypot(ys[i] - cy) - r;
        }
    }

    fn plain(params: &[f64], xs: &[f64], ys: &[f64]) -> Vec<f64> {
        xs.iter()
            .zip(ys)
            .map(|(x, y)| {
                ((x - params[0]).powi(2) + (y - params[1]).powi(2)).sqrt() - params[2].exp()
            })
            .collect()
    }

    /// Solves the 3x3 system `a x = b` by Cramer's rule.
    fn solve3(a: [[f64; 3]; 3], b: [f64; 3]) -> [f64; 3] {
        let det = |m: [[f64; 3]; 3]| {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        };
        let d = det(a);
        let mut x = [0.0; 3];
        for c in 0..3 {
            let mut m = a;
            for r in 0..3 {
                m[r][c] = b[r];
            }
            x[c] = det(m) / d;
        }
        x
    }

    #[test]
    fn circle_by_gauss_newton() {
        let (cx, cy, radius) = (0.4, -0.3, 1.7);
        let angles: Vec<f64> = (0..9).map(|i| 0.6 * i as f64 + 0.1).collect();
        let xs: Vec<f64> = angles.iter().map(|t| cx + radius * t.cos()).collect();
        let ys: Vec<f64> = angles.iter().map(|t| cy + radius * t.sin()).collect();
        let n = xs.len();
        for p in pts(5001, 3, 10, -0.3, 0.3) {
            let params = vec![p[0], p[1], 0.3 + p[2]];
            let mut out = vec![0.0; n];
            residuals(&params, &xs, &ys, &mut out);
            assert_all_close(&out, &plain(&params, &xs, &ys), 1e-14, "circle residuals");
            let j = residuals_jacobian(&params, &xs, &ys, &mut vec![0.0; n]);
            for i in 0..n {
                let d = (xs[i] - params[0]).hypot(ys[i] - params[1]);
                let row = [
                    -(xs[i] - params[0]) / d,
                    -(ys[i] - params[1]) / d,
                    -params[2].exp(),
                ];
                assert_all_close(&j[i], &row, 1e-14, "circle jacobian by hand");
            }
            check_jacobian("circle jacobian", &params, &j, |q| plain(q, &xs, &ys));
            let c = wave(n, 0.2);
            let mut written = vec![0.0; n];
            let cj = residuals_vjp(&params, &xs, &ys, &mut written, &c);
            assert_all_close(&written, &out, 0.0, "vjp writes the residuals");
            let t = wave(3, 0.9);
            let mut jt = vec![0.0; n];
            residuals_jvp(&params, &xs, &ys, &mut vec![0.0; n], t.clone(), &mut jt);
            check_dual("circle vjp/jvp", &c, &jt, &cj, &t);
            // Gauss-Newton from this start converges to the circle.
            let mut theta = params.clone();
            for _ in 0..30 {
                let mut r = vec![0.0; n];
                residuals(&theta, &xs, &ys, &mut r);
                let j = residuals_jacobian(&theta, &xs, &ys, &mut vec![0.0; n]);
                let mut jtj = [[0.0; 3]; 3];
                let mut jtr = [0.0; 3];
                for i in 0..n {
                    for a in 0..3 {
                        jtr[a] -= j[i][a] * r[i];
                        for b in 0..3 {
                            jtj[a][b] += j[i][a] * j[i][b];
                        }
                    }
                }
                let step = solve3(jtj, jtr);
                for a in 0..3 {
                    theta[a] += step[a];
                }
            }
            assert_all_close(&theta, &[cx, cy, radius.ln()], 1e-10, "gauss-newton circle");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) Consecutive first-order reactions A → B → C: the intermediate's concentration in closed form
// (a branch for equal rates) called from a least-squares fit at `order = 2`; the closed form against
// an RK4 integration of the rate equations.

mod kinetics {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn intermediate(k1: f64, k2: f64, t: f64) -> f64 {
        let d = k2 - k1;
        if d.abs() < 1e-7 {
            k1 * t * (-k1 * t).exp()
        } else {
            k1 / d * ((-k1 * t).exp() - (-k2 * t).exp())
        }
    }

    #[differentiable(order = 2, wrt(log_k1, log_k2))]
    pub fn sse(log_k1: f64, log_k2: f64, times: &[f64], observed: &[f64]) -> f64 {
        let (k1, k2) = (log_k1.exp(), log_k2.exp());
        let mut total = 0.0;
        for (&t, &b) in times.iter().zip(observed) {
            total += (intermediate(k1, k2, t) - b).powi(2);
        }
        total
    }

    fn plain_sse(log_k1: f64, log_k2: f64, times: &[f64], observed: &[f64]) -> f64 {
        let (k1, k2) = (log_k1.exp(), log_k2.exp());
        times
            .iter()
            .zip(observed)
            .map(|(&t, &b)| (k1 / (k2 - k1) * ((-k1 * t).exp() - (-k2 * t).exp()) - b).powi(2))
            .sum()
    }

    /// `B(t)` by RK4 on `a' = -k1 a`, `b' = k1 a - k2 b` from `a = 1`, `b = 0`.
    fn rk4(k1: f64, k2: f64, t: f64) -> f64 {
        let steps = 2000;
        let h = t / steps as f64;
        let f = |a: f64, b: f64| (-k1 * a, k1 * a - k2 * b);
        let (mut a, mut b) = (1.0, 0.0);
        for _ in 0..steps {
            let (a1, b1) = f(a, b);
            let (a2, b2) = f(a + 0.5 * h * a1, b + 0.5 * h * b1);
            let (a3, b3) = f(a + 0.5 * h * a2, b + 0.5 * h * b2);
            let (a4, b4) = f(a + h * a3, b + h * b3);
            a += h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
            b += h / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4);
        }
        b
    }

    #[test]
    fn consecutive_reactions() {
        let times: Vec<f64> = (1..=10).map(|i| 0.4 * i as f64).collect();
        let observed: Vec<f64> = times.iter().map(|&t| rk4(0.9, 0.35, t)).collect();
        assert_close(
            intermediate(0.9, 0.35, 2.0),
            rk4(0.9, 0.35, 2.0),
            1e-12,
            "closed form against RK4",
        );
        assert_close(
            intermediate(0.6, 0.6, 2.0),
            rk4(0.6, 0.6, 2.0),
            1e-12,
            "equal rates against RK4",
        );
        // At equal rates the branch's derivative in k1 is the limit's: d/dk1 (k1 t e^{-k1 t}) at fixed k2
        // differs, so compare the sum of both partials with the derivative along k1 = k2 = k.
        let k = 0.6;
        let (_, (d1, d2, _)) = intermediate_grad(k, k, 2.0);
        let along = (1.0 - k * 2.0) * 2.0 * (-k * 2.0).exp();
        assert_close(d1 + d2, along, 1e-12, "equal rates along the diagonal");
        for p in pts(5011, 2, 10, -1.2, 0.5) {
            if (p[0] - p[1]).abs() < 0.05 {
                continue;
            }
            let (value, (g1, g2)) = sse_grad(p[0], p[1], &times, &observed);
            assert_close(
                value,
                plain_sse(p[0], p[1], &times, &observed),
                1e-13,
                "kinetics value",
            );
            assert_fd_gradient(
                |q| plain_sse(q[0], q[1], &times, &observed),
                &p,
                &[g1, g2],
                "kinetics gradient",
            );
            let (_, _, h) = sse_hessian(p[0], p[1], &times, &observed);
            assert_hessian_fd(
                &h,
                |q| {
                    let (_, (a, b)) = sse_grad(q[0], q[1], &times, &observed);
                    vec![a, b]
                },
                &p,
                1e-6,
                "kinetics hessian",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) Elo ratings updated game by game (`for &(a, b, score) in games`), the log-loss of each game's
// prediction before its update, differentiated in the initial ratings and the K factor.

mod elo {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(initial, log_k))]
        fn log_loss / log_loss_plain(initial: &[f64], log_k: f64, games: &[(usize, usize, f64)], scale: f64) -> f64 {
            let k = log_k.exp();
            let mut r = vec![0.0; initial.len()];
            for (i, &v) in initial.iter().enumerate() {
                r[i] = v;
            }
            let mut total = 0.0;
            for &(a, b, score) in games {
                let expected = 1.0 / (1.0 + 10.0_f64.powf((r[b] - r[a]) / scale));
                total -= score * expected.ln() + (1.0 - score) * (1.0 - expected).ln();
                let delta = k * (score - expected);
                r[a] += delta;
                r[b] -= delta;
            }
            total / games.len() as f64
        }
    }

    #[test]
    fn elo_ratings() {
        let games: Vec<(usize, usize, f64)> = (0..18)
            .map(|g| {
                let a = g % 4;
                let b = (g * 3 + 1) % 4;
                let b = if a == b { (b + 1) % 4 } else { b };
                (a, b, [1.0, 0.0, 0.5][g % 3])
            })
            .collect();
        for p in pts(5021, 5, 10, -1.0, 1.0) {
            let initial: Vec<f64> = p[..4].iter().map(|v| 200.0 * v).collect();
            let log_k = 3.0 + p[4];
            let (value, (gi, gk)) = log_loss_grad(&initial, log_k, &games, 400.0);
            assert_eq!(
                value,
                log_loss_plain(&initial, log_k, &games, 400.0),
                "elo value"
            );
            assert_eq!(value, log_loss(&initial, log_k, &games, 400.0), "elo value");
            let mut at = initial.clone();
            at.push(log_k);
            let g: Vec<f64> = gi.iter().copied().chain([gk]).collect();
            assert_fd_gradient(
                |q| log_loss_plain(&q[..4], q[4], &games, 400.0),
                &at,
                &g,
                "elo gradient",
            );
            // Ratings are defined up to a common shift.
            assert_close(gi.iter().sum::<f64>(), 0.0, 1e-12, "elo shift invariance");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) A projectile with quadratic drag by explicit Euler steps until it lands: a `loop` whose
// `break` value interpolates the landing point; differentiated in the launch angle and the drag.

mod projectile {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(angle, log_drag))]
        fn range / range_plain(angle: f64, log_drag: f64, speed: f64, dt: f64) -> f64 {
            const G: f64 = 9.81;
            let c = log_drag.exp();
            let (mut x, mut y) = (0.0, 0.0);
            let (mut vx, mut vy) = (speed * angle.cos(), speed * angle.sin());
            loop {
                let v = vx.hypot(vy);
                let (nx, ny) = (x + dt * vx, y + dt * vy);
                vx -= dt * c * v * vx;
                vy -= dt * (G + c * v * vy);
                if ny < 0.0 {
                    break x + (nx - x) * y / (y - ny);
                }
                x = nx;
                y = ny;
            }
        }
    }

    #[test]
    fn projectile_range() {
        // Without drag (and small steps) the range approaches v² sin 2θ / g.
        let r0 = range(0.6, -40.0, 20.0, 1e-4);
        assert_close(r0, 400.0 * 1.2_f64.sin() / 9.81, 1e-3, "drag-free range");
        for p in pts(5031, 2, 12, -1.0, 1.0) {
            let (angle, log_drag) = (0.7 + 0.4 * p[0], -3.0 + p[1]);
            let (value, (ga, gd)) = range_grad(angle, log_drag, 25.0, 0.01);
            assert_eq!(
                value,
                range_plain(angle, log_drag, 25.0, 0.01),
                "range value"
            );
            assert_fd_gradient(
                |q| range_plain(q[0], q[1], 25.0, 0.01),
                &[angle, log_drag],
                &[ga, gd],
                "range gradient",
            );
            assert!(gd < 0.0, "more drag, shorter range");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) A mixture density network head: per sample, `k` logits, means and log-sigmas in one `chunks`
// row; the log-sum-exp shifted by a `stop_gradient` maximum found by `max_by`.

mod mdn {
    use super::*;
    use autodiff::{differentiable, stop_gradient};

    twin! {
        #[differentiable(wrt(params))]
        fn nll / nll_plain(params: &[f64], ys: &[f64], k: usize) -> f64 {
            const HALF_LN_2PI: f64 = 0.9189385332046727;
            let mut total = 0.0;
            for (b, row) in params.chunks(3 * k).enumerate() {
                let y = ys[b];
                let logits = &row[..k];
                let means = &row[k..2 * k];
                let log_sigmas = &row[2 * k..];
                let lmax = logits.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
                let lse = lmax + logits.iter().map(|l| (l - lmax).exp()).sum::<f64>().ln();
                let mut comps = Vec::new();
                for j in 0..k {
                    let z = (y - means[j]) / log_sigmas[j].exp();
                    comps.push(logits[j] - lse - log_sigmas[j] - 0.5 * z * z - HALF_LN_2PI);
                }
                let shift = stop_gradient(*comps.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap());
                let s: f64 = comps.iter().map(|c| (c - shift).exp()).sum();
                total -= shift + s.ln();
            }
            total / ys.len() as f64
        }
    }

    fn density(params: &[f64], ys: &[f64], k: usize) -> f64 {
        let mut total = 0.0;
        for (row, &y) in params.chunks(3 * k).zip(ys) {
            let z: f64 = row[..k].iter().map(|l| l.exp()).sum();
            let p: f64 = (0..k)
                .map(|j| {
                    let s = row[2 * k + j].exp();
                    row[j].exp() / z * (-0.5 * ((y - row[k + j]) / s).powi(2)).exp()
                        / (s * (2.0 * std::f64::consts::PI).sqrt())
                })
                .sum();
            total -= p.ln();
        }
        total / ys.len() as f64
    }

    #[test]
    fn mixture_density_head() {
        let (k, samples) = (3, 4);
        let mut r = Inputs(5041);
        let ys = r.vec(samples);
        for p in pts(5042, 3 * k * samples, 10, -1.0, 1.0) {
            let (value, g) = nll_grad(&p, &ys, k);
            assert_eq!(value, nll_plain(&p, &ys, k), "mdn value");
            assert_eq!(value, nll(&p, &ys, k), "mdn value");
            assert_close(value, density(&p, &ys, k), 1e-13, "mdn against the density");
            assert_fd_gradient(|q| density(q, &ys, k), &p, &g, "mdn gradient");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (16) Heat-exchanger duty by the effectiveness-NTU method, the flow arrangement an enum matched in
// the body (a limit branch for balanced counterflow), and a design cost calling it.

mod heat_exchanger {
    use super::*;
    use autodiff::differentiable;

    #[derive(Clone, Copy, Debug)]
    pub enum Flow {
        Parallel,
        Counter,
        CrossUnmixed,
    }

    twin! {
        #[differentiable(wrt(ua, c_min, c_max))]
        fn duty / duty_plain(ua: f64, c_min: f64, c_max: f64, dt_in: f64, flow: Flow) -> f64 {
            let ntu = ua / c_min;
            let cr = c_min / c_max;
            let effectiveness = match flow {
                Flow::Parallel => (1.0 - (-ntu * (1.0 + cr)).exp()) / (1.0 + cr),
                Flow::Counter => {
                    if (1.0 - cr).abs() < 1e-9 {
                        ntu / (1.0 + ntu)
                    } else {
                        let e = (-ntu * (1.0 - cr)).exp();
                        (1.0 - e) / (1.0 - cr * e)
                    }
                }
                Flow::CrossUnmixed => {
                    1.0 - (ntu.powf(0.22) / cr * ((-cr * ntu.powf(0.78)).exp() - 1.0)).exp()
                }
            };
            effectiveness * c_min * dt_in
        }
    }

    #[differentiable(wrt(ua))]
    pub fn cost(ua: f64, c_min: f64, c_max: f64, dt_in: f64, flow: Flow, price: f64) -> f64 {
        price * ua - duty(ua, c_min, c_max, dt_in, flow)
    }

    #[test]
    fn effectiveness_ntu() {
        for p in pts(5051, 3, 10, 0.0, 1.0) {
            let (ua, c_min) = (0.5 + 3.0 * p[0], 0.5 + p[1]);
            let c_max = c_min * (1.2 + 2.0 * p[2]);
            for flow in [Flow::Parallel, Flow::Counter, Flow::CrossUnmixed] {
                let (value, (gu, gn, gx)) = duty_grad(ua, c_min, c_max, 40.0, flow);
                assert_eq!(
                    value,
                    duty_plain(ua, c_min, c_max, 40.0, flow),
                    "duty value"
                );
                assert_fd_gradient(
                    |q| duty_plain(q[0], q[1], q[2], 40.0, flow),
                    &[ua, c_min, c_max],
                    &[gu, gn, gx],
                    "duty gradient",
                );
                let (cv, gc) = cost_grad(ua, c_min, c_max, 40.0, flow, 2.0);
                assert_eq!(cv, cost(ua, c_min, c_max, 40.0, flow, 2.0), "cost value");
                assert_close(cv, 2.0 * ua - value, 1e-14, "cost value through the call");
                assert_close(gc, 2.0 - gu, 1e-14, "cost through the call");
            }
            // Parallel flow by hand: dq/dUA = ΔT e^{-NTU (1 + Cr)}.
            let (_, (gu, _, _)) = duty_grad(ua, c_min, c_max, 40.0, Flow::Parallel);
            let by_hand = 40.0 * (-ua / c_min * (1.0 + c_min / c_max)).exp();
            assert_close(gu, by_hand, 1e-13, "parallel flow by hand");
        }
        // Balanced counterflow takes the limit branch: dq/dUA = ΔT / (1 + NTU)².
        let (_, (gu, _, _)) = duty_grad(2.0, 1.0, 1.0, 40.0, Flow::Counter);
        assert_close(gu, 40.0 / 9.0, 1e-14, "balanced counterflow by hand");
    }
}

// ---------------------------------------------------------------------------------------------------
// (17) Total-variation denoising with a smoothed absolute value over `windows(2)`, at `order = 2`;
// the Hessian is tridiagonal, and gradient descent by `_grad_into` lowers the energy.

mod tv_denoise {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(order = 2, wrt(u))]
        fn energy / energy_plain(u: &[f64], f: &[f64], lambda: f64, eps: f64) -> f64 {
            let fidelity: f64 = u.iter().zip(f).map(|(a, b)| 0.5 * (a - b).powi(2)).sum();
            let tv: f64 = u.windows(2).map(|w| ((w[1] - w[0]).powi(2) + eps * eps).sqrt()).sum();
            fidelity + lambda * tv
        }
    }

    #[test]
    fn total_variation() {
        let n = 7;
        let mut r = Inputs(5061);
        let f: Vec<f64> = (0..n)
            .map(|i| if i < 3 { 1.0 } else { -0.5 } + 0.1 * r.next())
            .collect();
        for p in pts(5062, n, 10, -1.0, 1.0) {
            let (value, g) = energy_grad(&p, &f, 0.3, 0.1);
            assert_eq!(value, energy_plain(&p, &f, 0.3, 0.1), "tv value");
            assert_fd_gradient(|q| energy_plain(q, &f, 0.3, 0.1), &p, &g, "tv gradient");
            let (_, _, h) = energy_hessian(&p, &f, 0.3, 0.1);
            for i in 0..n {
                for j in 0..n {
                    if i.abs_diff(j) > 1 {
                        assert_eq!(h[i][j], 0.0, "tv hessian is tridiagonal");
                    }
                }
            }
            // Off-diagonal by hand: -λ ε² / (d² + ε²)^{3/2}.
            let d = p[1] - p[0];
            assert_close(
                h[0][1],
                -0.3 * 0.01 / (d * d + 0.01).powf(1.5),
                1e-12,
                "tv hessian by hand",
            );
            assert_hessian_fd(
                &h,
                |q| energy_grad(q, &f, 0.3, 0.1).1,
                &p,
                1e-6,
                "tv hessian",
            );
        }
        let mut u = f.clone();
        let mut grad = vec![0.0; n];
        let start = energy(&u, &f, 0.3, 0.1);
        for _ in 0..200 {
            energy_grad_into(&u, &f, 0.3, 0.1, &mut grad);
            for (x, g) in u.iter_mut().zip(&grad) {
                *x -= 0.1 * g;
            }
        }
        assert!(
            energy(&u, &f, 0.3, 0.1) < start - 1e-3,
            "descent lowers the energy"
        );
        assert!(
            grad.iter().all(|g| g.abs() < 1e-3),
            "descent reaches a stationary point"
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (18) The van der Waals equation of state at `order = 3`: `p(V)` and its first three derivatives
// by hand, and the critical point where the first two vanish.

mod van_der_waals {
    use super::*;
    use autodiff::differentiable;

    pub const R: f64 = 8.314;

    #[differentiable(order = 3, wrt(v))]
    pub fn pressure(v: f64, t: f64, a: f64, b: f64) -> f64 {
        R * t / (v - b) - a / (v * v)
    }

    #[test]
    fn van_der_waals_isotherm() {
        let (a, b) = (0.364, 4.27e-5);
        for p in pts(5071, 2, 10, 0.0, 1.0) {
            let (v, t) = (1e-4 * (1.0 + 5.0 * p[0]), 250.0 + 200.0 * p[1]);
            let [p0, p1, p2, p3] = pressure_derivatives(v, t, a, b);
            let rt = R * t;
            let by_hand = [
                rt / (v - b) - a / (v * v),
                -rt / (v - b).powi(2) + 2.0 * a / v.powi(3),
                2.0 * rt / (v - b).powi(3) - 6.0 * a / v.powi(4),
                -6.0 * rt / (v - b).powi(4) + 24.0 * a / v.powi(5),
            ];
            assert_all_close(&[p0, p1, p2, p3], &by_hand, 1e-12, "vdw derivatives");
            let (value, g) = pressure_grad(v, t, a, b);
            assert_eq!(value, pressure(v, t, a, b), "vdw value");
            assert_close(g, by_hand[1], 1e-12, "vdw grad");
            let (_, _, h) = pressure_hessian(v, t, a, b);
            assert_close(h[0][0], by_hand[2], 1e-12, "vdw hessian by hand");
            // Differences of `_grad` with a step relative to V (V - b is small).
            let step = 1e-4 * v;
            let gp = |x: f64| pressure_grad(x, t, a, b).1;
            let fd = (8.0 * (gp(v + step) - gp(v - step))
                - (gp(v + 2.0 * step) - gp(v - 2.0 * step)))
                / (12.0 * step);
            assert_close(
                h[0][0] / by_hand[2],
                fd / by_hand[2],
                1e-6,
                "vdw hessian against differences",
            );
            assert_close(p3 / by_hand[3], 1.0, 1e-12, "vdw third derivative");
        }
        // The critical point: V_c = 3b, T_c = 8a / 27Rb.
        let (vc, tc) = (3.0 * b, 8.0 * a / (27.0 * R * b));
        let [pc, d1, d2, _] = pressure_derivatives(vc, tc, a, b);
        assert_close(pc, a / (27.0 * b * b), 1e-12, "critical pressure");
        assert!(
            d1.abs() < 1e-6 * pc / vc && d2.abs() < 1e-6 * pc / (vc * vc),
            "critical point: {d1:e} {d2:e}"
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (19) A diode with a series resistance: the current in closed form through the Lambert W function,
// W by Halley iterations in a `#[custom_gradient]` whose closure gives `W' = 1 / ((1 + W) e^W)`; the
// current's gradient by the implicit function theorem, and its Hessian at `order = 2`.

mod diode {
    use super::*;
    use autodiff::{custom_gradient, differentiable};

    #[custom_gradient]
    pub fn lambert_w(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let mut w = if x < 1.0 {
            x / (1.0 + x)
        } else {
            x.ln() - x.ln().ln().max(0.0)
        };
        let mut iterations = 0;
        while iterations < 60 {
            let e = w.exp();
            let f = w * e - x;
            let step = f / (e * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
            w -= step;
            if step.abs() <= 1e-15 * w.abs().max(1.0) {
                break;
            }
            iterations += 1;
        }
        (w, move |dy| dy / ((1.0 + w) * w.exp()))
    }

    /// The thermal voltage times the ideality factor.
    pub const NVT: f64 = 1.5 * 0.025852;

    #[differentiable(order = 2, wrt(v, log_is, r))]
    pub fn current(v: f64, log_is: f64, r: f64) -> f64 {
        let is = log_is.exp();
        let arg = is * r / NVT * ((v + is * r) / NVT).exp();
        NVT / r * lambert_w(arg) - is
    }

    #[test]
    fn diode_current() {
        for &x in &[0.0, 0.3, 1.0, 7.5, 1e4] {
            let w = lambert_w(x);
            assert_close(w * w.exp(), x, 1e-13, "lambert w");
            let (_, g) = lambert_w_grad(x);
            if x == 0.0 {
                assert_close(g, 1.0, 1e-15, "W'(0) = 1");
            } else {
                assert_close(
                    g,
                    common::central_difference(lambert_w, x),
                    1e-7,
                    "lambert w gradient by differences",
                );
            }
        }
        for p in pts(5081, 3, 12, 0.0, 1.0) {
            let (v, log_is, r) = (0.2 + 0.5 * p[0], -25.0 + 4.0 * p[1], 0.5 + 2.0 * p[2]);
            let (value, (gv, gi, gr)) = current_grad(v, log_is, r);
            let is = log_is.exp();
            // The implicit equation I = Is (e^{(V - I R)/nVt} - 1).
            let residual = is * (((v - value * r) / NVT).exp() - 1.0) - value;
            assert!(
                residual.abs() < 1e-12 * value.abs().max(is),
                "diode equation residual {residual:e}"
            );
            let conductance = is / NVT * ((v - value * r) / NVT).exp();
            assert_close(
                gv,
                conductance / (1.0 + conductance * r),
                1e-10,
                "dI/dV by the implicit function theorem",
            );
            assert_close(
                gr,
                -value * conductance / (1.0 + conductance * r),
                1e-10,
                "dI/dR by the implicit function theorem",
            );
            let at = [v, log_is, r];
            assert_fd_gradient(
                |q| current(q[0], q[1], q[2]),
                &at,
                &[gv, gi, gr],
                "diode gradient",
            );
            let (_, _, h) = current_hessian(v, log_is, r);
            assert_hessian_fd(
                &h,
                |q| {
                    let (_, (a, b, c)) = current_grad(q[0], q[1], q[2]);
                    vec![a, b, c]
                },
                &at,
                1e-6,
                "diode hessian",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (20) A battery's equivalent circuit (series resistance, one RC pair, a quadratic open-circuit
// voltage) as a `Differentiable` struct: methods calling methods under `wrt(self)`, the RC state and
// the state of charge carried through a pulse test, the fit error's gradient over the struct.

mod battery {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Cell {
        pub r0: f64,
        pub r1: f64,
        pub c1: f64,
        pub ocv: [f64; 3],
        #[no_grad]
        pub steps: usize,
    }

    impl Cell {
        #[differentiable(wrt(self))]
        pub fn open_circuit(&self, soc: f64) -> f64 {
            self.ocv[0] + self.ocv[1] * soc + self.ocv[2] * soc * soc
        }

        #[differentiable(wrt(self))]
        pub fn terminal(&self, soc: f64, current: f64, v1: f64) -> f64 {
            self.open_circuit(soc) - self.r0 * current - v1
        }

        #[differentiable(wrt(self))]
        pub fn mse(&self, currents: &[f64], volts: &[f64], dt: f64, capacity: f64) -> f64 {
            let mut soc = 1.0;
            let mut v1 = 0.0;
            let mut total = 0.0;
            let decay = (-dt / (self.r1 * self.c1)).exp();
            for (k, (&i, &v)) in currents.iter().zip(volts).enumerate() {
                if k >= self.steps {
                    break;
                }
                total += (self.terminal(soc, i, v1) - v).powi(2);
                v1 = v1 * decay + self.r1 * (1.0 - decay) * i;
                soc -= i * dt / capacity;
            }
            total / self.steps as f64
        }

        fn plain_mse(&self, currents: &[f64], volts: &[f64], dt: f64, capacity: f64) -> f64 {
            let (mut soc, mut v1, mut total) = (1.0, 0.0, 0.0);
            let tau = self.r1 * self.c1;
            for (&i, &v) in currents.iter().zip(volts).take(self.steps) {
                let ocv = self.ocv[0] + self.ocv[1] * soc + self.ocv[2] * soc * soc;
                total += (ocv - self.r0 * i - v1 - v).powi(2);
                v1 = v1 * (-dt / tau).exp() + self.r1 * (1.0 - (-dt / tau).exp()) * i;
                soc -= i * dt / capacity;
            }
            total / self.steps as f64
        }
    }

    #[test]
    fn battery_cell() {
        let currents: Vec<f64> = (0..30)
            .map(|k| if (k / 5) % 2 == 0 { 2.0 } else { -0.5 })
            .collect();
        let truth = Cell {
            r0: 0.05,
            r1: 0.03,
            c1: 800.0,
            ocv: [3.4, 0.7, -0.1],
            steps: 24,
        };
        let mut volts = Vec::new();
        let (mut soc, mut v1) = (1.0, 0.0);
        for &i in &currents {
            volts.push(truth.terminal(soc, i, v1) + 0.002 * (soc * 40.0).sin());
            let decay = (-1.0_f64 / (truth.r1 * truth.c1)).exp();
            v1 = v1 * decay + truth.r1 * (1.0 - decay) * i;
            soc -= i / 3600.0;
        }
        for p in pts(5091, 6, 10, -1.0, 1.0) {
            let cell = Cell {
                r0: 0.05 + 0.02 * p[0],
                r1: 0.03 + 0.01 * p[1],
                c1: 800.0 + 100.0 * p[2],
                ocv: [3.4 + 0.1 * p[3], 0.7 + 0.1 * p[4], -0.1 + 0.1 * p[5]],
                steps: 24,
            };
            let (value, grad) = cell.mse_grad(&currents, &volts, 1.0, 3600.0);
            assert_close(
                value,
                cell.plain_mse(&currents, &volts, 1.0, 3600.0),
                1e-13,
                "battery value",
            );
            assert_eq!(
                value,
                cell.mse(&currents, &volts, 1.0, 3600.0),
                "battery value"
            );
            assert_eq!(grad.steps, 24, "the no_grad field is copied");
            assert_fd_gradient(
                |q| cell.from_flat(q).plain_mse(&currents, &volts, 1.0, 3600.0),
                &cell.to_flat(),
                &grad.to_flat(),
                "battery gradient",
            );
            // By hand for the series resistance: dMSE/dR0 = -2/n Σ (pred - v) i.
            let mut by_hand = 0.0;
            let (mut soc, mut v1) = (1.0, 0.0);
            let decay = (-1.0 / (cell.r1 * cell.c1)).exp();
            for (&i, &v) in currents.iter().zip(&volts).take(24) {
                by_hand -= 2.0 / 24.0 * (cell.terminal(soc, i, v1) - v) * i;
                v1 = v1 * decay + cell.r1 * (1.0 - decay) * i;
                soc -= i / 3600.0;
            }
            assert_close(grad.r0, by_hand, 1e-12, "battery d/dR0 by hand");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (21) A Catmull-Rom path through control points: a closure capturing the active points evaluates
// each segment, the tip destructured by `let [x, y] = ..`, the length by chords in reverse order.

mod catmull_rom {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(wrt(px, py))]
        fn point / point_plain(px: [f64; 4], py: [f64; 4], t: f64) -> [f64; 2] {
            let blend = |c: [f64; 4]| {
                0.5 * (2.0 * c[1]
                    + (-c[0] + c[2]) * t
                    + (2.0 * c[0] - 5.0 * c[1] + 4.0 * c[2] - c[3]) * t * t
                    + (-c[0] + 3.0 * c[1] - 3.0 * c[2] + c[3]) * t * t * t)
            };
            [blend(px), blend(py)]
        }
    }

    twin! {
        #[differentiable(wrt(px, py))]
        fn length / length_plain(px: [f64; 4], py: [f64; 4], samples: usize) -> f64 {
            let mut xs = vec![0.0; samples + 1];
            let mut ys = vec![0.0; samples + 1];
            for i in 0..=samples {
                let [x, y] = point(px, py, i as f64 / samples as f64);
                xs[i] = x;
                ys[i] = y;
            }
            let mut total = 0.0;
            for (i, &x) in xs.iter().enumerate().rev() {
                if i == 0 {
                    break;
                }
                total += (x - xs[i - 1]).hypot(ys[i] - ys[i - 1]);
            }
            total
        }
    }

    #[test]
    fn catmull_rom_length() {
        for p in pts(5101, 9, 10, -1.0, 1.0) {
            let (px, py): ([f64; 4], [f64; 4]) = (arr(&p[..4]), arr(&p[4..8]));
            let t = 0.5 + 0.5 * p[8];
            assert_eq!(
                point(px, py, t),
                point_plain(px, py, t),
                "catmull-rom point"
            );
            // The curve passes through the middle two points.
            assert_all_close(&point(px, py, 0.0), &[px[1], py[1]], 1e-15, "through p1");
            assert_all_close(&point(px, py, 1.0), &[px[2], py[2]], 1e-15, "through p2");
            let j = point_jacobian(px, py, t);
            let at: Vec<f64> = px.iter().chain(&py).copied().collect();
            check_jacobian("catmull-rom jacobian", &at, &j, |q| {
                point_plain(arr(&q[..4]), arr(&q[4..]), t).to_vec()
            });
            let (value, (gx, gy)) = length_grad(px, py, 40);
            assert_eq!(value, length_plain(px, py, 40), "catmull-rom length");
            assert_eq!(value, length(px, py, 40), "catmull-rom length");
            let g: Vec<f64> = gx.iter().chain(&gy).copied().collect();
            assert_fd_gradient(
                |q| length_plain(arr(&q[..4]), arr(&q[4..]), 40),
                &at,
                &g,
                "catmull-rom length gradient",
            );
            // Translating every point leaves the length unchanged.
            assert_close(gx.iter().sum::<f64>(), 0.0, 1e-12, "translation invariance");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (22) Softmax cross-entropy generic over `T: Float` at `order = 2`, run at `f64` and `f32`: the
// Hessian is `diag(p) - p pᵀ` whatever the label.

mod softmax_xent {
    use super::*;
    use autodiff::{differentiable, Float};

    #[differentiable(order = 2, wrt(z))]
    pub fn xent<T: Float>(z: &[T], label: usize) -> T {
        let top = z.iter().copied().fold(T::neg_infinity(), |a, b| a.max(b));
        let s = z
            .iter()
            .map(|&v| (v - top).exp())
            .fold(T::zero(), |a, b| a + b);
        top + s.ln() - z[label]
    }

    #[test]
    fn generic_cross_entropy() {
        for (n, p) in pts(5111, 5, 10, -2.0, 2.0).into_iter().enumerate() {
            let label = n % 5;
            let (value, g) = xent_grad(&p, label);
            let z: f64 = p.iter().map(|v| v.exp()).sum();
            assert_close(value, z.ln() - p[label], 1e-14, "xent value");
            let probs: Vec<f64> = p.iter().map(|v| v.exp() / z).collect();
            for i in 0..5 {
                let delta = if i == label { 1.0 } else { 0.0 };
                assert_close(g[i], probs[i] - delta, 1e-14, "xent gradient by hand");
            }
            assert_fd_gradient(|q| xent(q, label), &p, &g, "xent gradient");
            let (_, _, h) = xent_hessian(&p, label);
            for i in 0..5 {
                for j in 0..5 {
                    let d = if i == j { probs[i] } else { 0.0 };
                    assert_close(
                        h[i][j],
                        d - probs[i] * probs[j],
                        1e-14,
                        "xent hessian by hand",
                    );
                }
            }
            assert_hessian_fd(&h, |q| xent_grad(q, label).1, &p, 1e-6, "xent hessian");
            let p32: Vec<f32> = p.iter().map(|&v| v as f32).collect();
            let (_, _, h32) = xent_hessian(&p32, label);
            for i in 0..5 {
                for j in 0..5 {
                    assert_close(h32[i][j] as f64, h[i][j], 1e-5, "xent f32 hessian");
                }
            }
            let v = wave(5, 0.5);
            let (_, _, hv) = xent_hvp(&p, label, v.clone());
            assert_all_close(&hv, &common::mat_vec(&h, &v), 1e-13, "xent hvp");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (23) A hidden Markov model's forward algorithm in log space with a labeled `break 'outer` once the
// observations run out, emissions chosen by `match` on the observed symbol, at `order = 2`.

mod hmm {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(order = 2, wrt(stay, emit))]
        fn log_likelihood / log_likelihood_plain(stay: [f64; 2], emit: [f64; 2], obs: &[usize], limit: usize) -> f64 {
            let p = [1.0 / (1.0 + (-stay[0]).exp()), 1.0 / (1.0 + (-stay[1]).exp())];
            let e = [1.0 / (1.0 + (-emit[0]).exp()), 1.0 / (1.0 + (-emit[1]).exp())];
            let mut alpha = [0.5, 0.5];
            let mut log_total = 0.0;
            let mut t = 0;
            'outer: loop {
                for _ in 0..2 {
                    if t >= obs.len() || t >= limit {
                        break 'outer;
                    }
                    let like = match obs[t] {
                        0 => [e[0], e[1]],
                        _ => [1.0 - e[0], 1.0 - e[1]],
                    };
                    let next = [
                        (alpha[0] * p[0] + alpha[1] * (1.0 - p[1])) * like[0],
                        (alpha[0] * (1.0 - p[0]) + alpha[1] * p[1]) * like[1],
                    ];
                    let norm = next[0] + next[1];
                    log_total += norm.ln();
                    alpha = [next[0] / norm, next[1] / norm];
                    t += 1;
                }
            }
            log_total
        }
    }

    /// The likelihood by summing over all state paths.
    fn brute(stay: [f64; 2], emit: [f64; 2], obs: &[usize]) -> f64 {
        let s = |x: f64| 1.0 / (1.0 + (-x).exp());
        let (p, e) = ([s(stay[0]), s(stay[1])], [s(emit[0]), s(emit[1])]);
        let n = obs.len();
        let mut total = 0.0;
        for path in 0..(1usize << (n + 1)) {
            let states: Vec<usize> = (0..=n).map(|k| (path >> k) & 1).collect();
            let mut prob = 0.5;
            for t in 0..n {
                let (a, b) = (states[t], states[t + 1]);
                prob *= if a == b { p[a] } else { 1.0 - p[a] };
                prob *= if obs[t] == 0 { e[b] } else { 1.0 - e[b] };
            }
            total += prob;
        }
        total.ln()
    }

    #[test]
    fn hmm_forward() {
        let obs = [0, 1, 1, 0, 0, 0, 1];
        for q in pts(5121, 4, 10, -2.0, 2.0) {
            let (stay, emit): ([f64; 2], [f64; 2]) = (arr(&q[..2]), arr(&q[2..]));
            let (value, (gs, ge)) = log_likelihood_grad(stay, emit, &obs, 100);
            assert_eq!(
                value,
                log_likelihood_plain(stay, emit, &obs, 100),
                "hmm value"
            );
            assert_eq!(value, log_likelihood(stay, emit, &obs, 100), "hmm value");
            assert_close(
                value,
                brute(stay, emit, &obs),
                1e-12,
                "hmm against all paths",
            );
            let (short, _) = log_likelihood_grad(stay, emit, &obs, 4);
            assert_close(short, brute(stay, emit, &obs[..4]), 1e-12, "hmm cut short");
            let g: Vec<f64> = gs.iter().chain(&ge).copied().collect();
            assert_fd_gradient(
                |x| brute(arr(&x[..2]), arr(&x[2..]), &obs),
                &q,
                &g,
                "hmm gradient",
            );
            let (_, _, h) = log_likelihood_hessian(stay, emit, &obs, 100);
            assert_hessian_fd(
                &h,
                |x| {
                    let (_, (a, b)) = log_likelihood_grad(arr(&x[..2]), arr(&x[2..]), &obs, 100);
                    a.iter().chain(&b).copied().collect()
                },
                &q,
                1e-6,
                "hmm hessian",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (24) A chain of masses and springs as a `Differentiable` struct: the potential energy of a
// configuration as a method under `wrt(self)` (stiffnesses and rest lengths), a helper returning a
// tuple, `_jvp` of the method along a direction in parameter space.

mod spring_chain {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Chain {
        pub stiffness: Vec<f64>,
        pub rest: Vec<f64>,
        pub gravity: f64,
    }

    #[differentiable]
    pub fn stretch(ax: f64, ay: f64, bx: f64, by: f64, rest: f64) -> (f64, f64) {
        let d = (bx - ax).hypot(by - ay);
        (d - rest, d)
    }

    impl Chain {
        #[differentiable(wrt(self))]
        pub fn energy(&self, xs: &[f64], ys: &[f64]) -> f64 {
            let mut total = 0.0;
            for i in 0..self.stiffness.len() {
                let (e, _) = stretch(xs[i], ys[i], xs[i + 1], ys[i + 1], self.rest[i]);
                total += 0.5 * self.stiffness[i] * e * e;
            }
            let heights: f64 = ys.iter().sum();
            total + self.gravity * heights
        }

        fn plain(&self, xs: &[f64], ys: &[f64]) -> f64 {
            let springs: f64 = (0..self.stiffness.len())
                .map(|i| {
                    let d = ((xs[i + 1] - xs[i]).powi(2) + (ys[i + 1] - ys[i]).powi(2)).sqrt();
                    0.5 * self.stiffness[i] * (d - self.rest[i]).powi(2)
                })
                .sum();
            springs + self.gravity * ys.iter().sum::<f64>()
        }
    }

    #[test]
    fn spring_chain_energy() {
        let mut r = Inputs(5131);
        let xs: Vec<f64> = (0..5).map(|i| i as f64 + 0.2 * r.next()).collect();
        let ys = r.vec(5);
        for p in pts(5132, 9, 10, 0.0, 1.0) {
            let chain = Chain {
                stiffness: p[..4].iter().map(|v| 1.0 + v).collect(),
                rest: p[4..8].to_vec(),
                gravity: p[8],
            };
            let (value, g) = chain.energy_grad(&xs, &ys);
            assert_close(value, chain.plain(&xs, &ys), 1e-14, "chain value");
            assert_eq!(value, chain.energy(&xs, &ys), "chain value");
            assert_fd_gradient(
                |q| chain.from_flat(q).plain(&xs, &ys),
                &chain.to_flat(),
                &g.to_flat(),
                "chain gradient",
            );
            assert_close(g.gravity, ys.iter().sum(), 1e-14, "d/d gravity by hand");
            let direction = chain.from_flat(&wave(9, 0.3));
            let (jv, dot) = chain.energy_jvp(&xs, &ys, direction.clone());
            assert_eq!(jv, value, "chain jvp value");
            common::assert_dot(dot, &g.to_flat(), &direction.to_flat(), 1e-13, "chain jvp");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (25) Lagrange interpolation weights by `product()` over the other nodes, an interpolant at `order = 3`
// in the evaluation point whose third derivative of a cubic's interpolant is the cubic's.

mod lagrange {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 3, wrt(x))]
    pub fn interpolate(x: f64, nodes: &[f64], values: &[f64]) -> f64 {
        let mut total = 0.0;
        for (j, &v) in values.iter().enumerate() {
            let basis: f64 = nodes
                .iter()
                .enumerate()
                .filter(|(m, _)| *m != j)
                .map(|(_, &xm)| (x - xm) / (nodes[j] - xm))
                .product();
            total += v * basis;
        }
        total
    }

    #[test]
    fn lagrange_cubic() {
        let nodes = [-1.0, -0.3, 0.4, 1.2];
        let cubic = |x: f64| {
            [
                2.0 - x + 0.5 * x * x + 0.75 * x * x * x,
                -1.0 + x + 2.25 * x * x,
                1.0 + 4.5 * x,
                4.5,
            ]
        };
        let values: Vec<f64> = nodes.iter().map(|&x| cubic(x)[0]).collect();
        for p in pts(5141, 1, 10, -1.5, 1.5) {
            let d = interpolate_derivatives(p[0], &nodes, &values);
            assert_all_close(&d, &cubic(p[0]), 1e-12, "lagrange derivatives of a cubic");
            assert_eq!(d[0], interpolate(p[0], &nodes, &values), "lagrange value");
            let (_, g) = interpolate_grad(p[0], &nodes, &values);
            let fd = common::central_difference(|x| interpolate(x, &nodes, &values), p[0]);
            assert_close(g, fd, 1e-8, "lagrange gradient against differences");
            let (_, _, h) = interpolate_hessian(p[0], &nodes, &values);
            assert_hessian_fd(
                &h,
                |q| vec![interpolate_grad(q[0], &nodes, &values).1],
                &p,
                1e-6,
                "lagrange hessian",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (26) Horner's rule written as `fold(0.0, |acc, &c| acc.mul_add(x, c))`, at `order = 3` in the point
// and `order = 2` over the coefficients. Regression: at `order = K` the first-order items of an `f64`
// function declared the fold's accumulator as an untyped `0.0`, so `acc.mul_add(..)` met an ambiguous
// `{float}` (E0689) in valid code; the accumulator now takes the function's float type.

mod horner {
    use super::*;
    use autodiff::differentiable;

    twin! {
        #[differentiable(order = 3, wrt(x))]
        fn poly / poly_plain(x: f64, coeffs: &[f64]) -> f64 {
            coeffs.iter().fold(0.0, |acc, &c| acc.mul_add(x, c))
        }
    }

    twin! {
        #[differentiable(order = 2, wrt(coeffs))]
        fn fit / fit_plain(coeffs: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
            let mut total = 0.0;
            for (&x, &y) in xs.iter().zip(ys) {
                let p = coeffs.iter().fold(0.0_f64, |acc, &c| acc.mul_add(x, c));
                total += (p - y).powi(2) + 0.01 * p * p;
            }
            total
        }
    }

    #[test]
    fn horner_fold_mul_add() {
        // 2x³ - x² + 0.5x + 3, highest power first.
        let coeffs = [2.0, -1.0, 0.5, 3.0];
        for p in pts(5151, 1, 10, -2.0, 2.0) {
            let x = p[0];
            let d = poly_derivatives(x, &coeffs);
            let by_hand = [
                2.0 * x.powi(3) - x * x + 0.5 * x + 3.0,
                6.0 * x * x - 2.0 * x + 0.5,
                12.0 * x - 2.0,
                12.0,
            ];
            assert_all_close(&d, &by_hand, 1e-13, "horner derivatives");
            assert_eq!(d[0], poly_plain(x, &coeffs), "horner value");
            assert_eq!(d[0], poly(x, &coeffs), "horner value");
        }
        let mut r = Inputs(5152);
        let xs = r.vec(9);
        let ys = r.vec(9);
        for c in pts(5153, 4, 10, -1.0, 1.0) {
            let (value, g) = fit_grad(&c, &xs, &ys);
            assert_eq!(value, fit_plain(&c, &xs, &ys), "horner fit value");
            assert_eq!(value, fit(&c, &xs, &ys), "horner fit value");
            assert_fd_gradient(|q| fit_plain(q, &xs, &ys), &c, &g, "horner fit gradient");
            let (_, _, h) = fit_hessian(&c, &xs, &ys);
            assert_hessian_fd(
                &h,
                |q| fit_grad(q, &xs, &ys).1,
                &c,
                1e-6,
                "horner fit hessian",
            );
        }
    }
}
