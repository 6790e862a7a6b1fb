//! An outside tester's probe of whole small programs, written as people who write numeric Rust write
//! them: several functions calling each other across inner modules (`pub(crate)`, `use super::*`),
//! each program a few helpers and an entry point, every entry point at `order = 2`.
//!
//! - statistics: Gaussian, Student-t and Poisson log-likelihoods through a Stirling `ln_gamma`
//!   helper, a max-subtracted log-sum-exp, softmax cross-entropy over `&[Vec<f64>]` batches with
//!   `&[usize]` labels, L2-regularised logistic regression, Welford's variance, Huber and
//!   pseudo-Huber losses chosen by a `match` on a label;
//! - physics: an n-body potential over `&[[f64; 3]]` pairs (`for j in i + 1..n`), a spring chain
//!   over `windows(2)`, leapfrog and RK4 integrators writing `&mut [f64]` state through a
//!   right-hand side with an output parameter, a 1D heat equation step, Lennard-Jones with a cutoff;
//! - optimisation / ML: an MLP over `#[derive(Differentiable)]` layer structs nested in a model,
//!   attention-like row softmax, soft k-means, a matrix factorisation loss over `(usize, usize, f64)`
//!   ratings;
//! - numerics: Horner by `iter().rev().fold`, Newton and fixed-point iterations with fixed counts,
//!   Simpson and trapezoid quadrature of a parameterised integrand, `f32` versions and a generic
//!   `T: Float` one.
//!
//! Every derivative is checked against central differences (`common::probe`) at many seeded points:
//! `_grad`, `_vjp` (a random cotangent), `_jvp` against the gradient, `_grad_into` with NaN-filled
//! buffers, `_jacobian` where there is one, and at `order = 2` `_hessian` against central differences
//! of `_grad` and `_hvp` against `_hessian`.

// Element-wise copies in differentiable bodies (`.copy_from_slice` is an error there:
// tests/ui/fence/copy-from-slice.rs).
#![allow(
    clippy::manual_memcpy,
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::too_many_arguments,
    clippy::ptr_arg
)]

mod common;

use common::probe::*;

// ---------------------------------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------------------------------

pub mod stats {
    use autodiff::differentiable;
    use std::f64::consts::PI;

    pub(crate) mod special {
        use super::*;

        /// `ln Γ(x)` for `x > 0`: shift up past 7 by `Γ(x + 1) = x Γ(x)`, then Stirling's series.
        #[differentiable]
        pub(crate) fn ln_gamma(x: f64) -> f64 {
            let mut x = x;
            let mut shift = 0.0;
            while x < 7.0 {
                shift += x.ln();
                x += 1.0;
            }
            let z = 1.0 / (x * x);
            let series = (1.0 / 12.0 - z * (1.0 / 360.0 - z / 1260.0)) / x;
            (x - 0.5) * x.ln() - x + 0.5 * (2.0 * PI).ln() + series - shift
        }

        /// The log-sum-exp of a row with its maximum subtracted first.
        #[differentiable]
        pub(crate) fn log_sum_exp(xs: &[f64]) -> f64 {
            let m = xs.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let s: f64 = xs.iter().map(|&x| (x - m).exp()).sum();
            m + s.ln()
        }

        /// `ln(1 + e^z)` without overflow.
        #[differentiable]
        pub(crate) fn softplus(z: f64) -> f64 {
            if z > 0.0 {
                z + (-z).exp().ln_1p()
            } else {
                z.exp().ln_1p()
            }
        }
    }

    use special::*;

    /// Gaussian log-likelihood in `(mu, log_sigma)`.
    #[differentiable(order = 2)]
    pub fn gauss_loglik(mu: f64, log_sigma: f64, xs: &[f64]) -> f64 {
        let sigma = log_sigma.exp();
        let n = xs.len() as f64;
        let ss: f64 = xs.iter().map(|x| ((x - mu) / sigma).powi(2)).sum();
        -0.5 * ss - n * log_sigma - 0.5 * n * (2.0 * PI).ln()
    }

    /// Student-t log-likelihood in `(nu, mu, sigma)` over data.
    #[differentiable(order = 2, wrt(nu, mu, sigma))]
    pub fn student_t_loglik(nu: f64, mu: f64, sigma: f64, xs: &[f64]) -> f64 {
        let norm =
            ln_gamma((nu + 1.0) / 2.0) - ln_gamma(nu / 2.0) - 0.5 * (nu * PI).ln() - sigma.ln();
        let mut total = 0.0;
        for &x in xs {
            let t = (x - mu) / sigma;
            total += norm - (nu + 1.0) / 2.0 * (t * t / nu).ln_1p();
        }
        total
    }

    /// Poisson regression log-likelihood: rates `exp(w . x_i)`, counts as `u32`.
    #[differentiable(order = 2)]
    pub fn poisson_loglik(w: &[f64], xs: &[Vec<f64>], counts: &[u32]) -> f64 {
        let mut ll = 0.0;
        for (x, &k) in xs.iter().zip(counts) {
            let eta: f64 = w.iter().zip(x.iter()).map(|(a, b)| a * b).sum();
            ll += k as f64 * eta - eta.exp() - ln_gamma(k as f64 + 1.0);
        }
        ll
    }

    /// Mean softmax cross-entropy over a batch of logit rows.
    #[differentiable(order = 2)]
    pub fn softmax_xent(logits: &[Vec<f64>], labels: &[usize]) -> f64 {
        let mut loss = 0.0;
        for (row, &y) in logits.iter().zip(labels.iter()) {
            loss += log_sum_exp(row) - row[y];
        }
        loss / labels.len() as f64
    }

    /// Logistic regression with labels 0/1 and an L2 penalty on the weights.
    #[differentiable(order = 2, wrt(w, b))]
    pub fn logistic_l2(w: &[f64], b: f64, xs: &[Vec<f64>], ys: &[usize], lambda: f64) -> f64 {
        const HALF: f64 = 0.5;
        let mut nll = 0.0;
        for i in 0..xs.len() {
            let z = b + w.iter().zip(&xs[i]).map(|(wi, xi)| wi * xi).sum::<f64>();
            nll += match ys[i] {
                0 => softplus(z),
                _ => softplus(-z),
            };
        }
        let reg: f64 = w.iter().map(|v| v * v).sum();
        nll / xs.len() as f64 + HALF * lambda * reg
    }

    /// Welford's running mean and variance; returns the sample variance.
    #[differentiable(order = 2)]
    pub fn welford_var(xs: &[f64]) -> f64 {
        let mut mean = 0.0;
        let mut m2 = 0.0;
        for (i, &x) in xs.iter().enumerate() {
            let delta = x - mean;
            mean += delta / (i + 1) as f64;
            m2 += delta * (x - mean);
        }
        m2 / (xs.len() - 1) as f64
    }

    pub(crate) mod robust {
        use super::*;

        #[differentiable]
        pub(crate) fn huber(r: f64, delta: f64) -> f64 {
            let a = r.abs();
            if a <= delta {
                return 0.5 * r * r;
            }
            delta * (a - 0.5 * delta)
        }

        #[differentiable]
        pub(crate) fn pseudo_huber(r: f64, delta: f64) -> f64 {
            delta * delta * ((1.0 + (r / delta).powi(2)).sqrt() - 1.0)
        }
    }

    /// A robust regression loss of a line through `(t, y)` data, the loss chosen by a label.
    #[differentiable(order = 2, wrt(slope, offset))]
    pub fn robust_fit(slope: f64, offset: f64, ts: &[f64], ys: &[f64], kind: u8) -> f64 {
        const DELTA: f64 = 0.7;
        let mut total = 0.0;
        for (t, y) in ts.iter().zip(ys) {
            let r = slope * t + offset - y;
            total += match kind {
                0 => robust::huber(r, DELTA),
                1 => robust::pseudo_huber(r, DELTA),
                _ => r * r,
            };
        }
        total
    }
}

// ---------------------------------------------------------------------------------------------------
// Physics
// ---------------------------------------------------------------------------------------------------

pub mod physics {
    use autodiff::differentiable;

    pub(crate) mod geom {
        use super::*;

        #[differentiable]
        pub(crate) fn dist(a: &[f64; 3], b: &[f64; 3]) -> f64 {
            let dx = a[0] - b[0];
            let dy = a[1] - b[1];
            let dz = a[2] - b[2];
            (dx * dx + dy * dy + dz * dz).sqrt()
        }

        #[differentiable]
        pub(crate) fn dist3(dx: f64, dy: f64, dz: f64) -> f64 {
            dx.hypot(dy).hypot(dz)
        }

        /// The bond angle at `b` of three points.
        #[differentiable]
        pub(crate) fn angle(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> f64 {
            let u = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
            let v = [c[0] - b[0], c[1] - b[1], c[2] - b[2]];
            let dot = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
            let cross = [
                u[1] * v[2] - u[2] * v[1],
                u[2] * v[0] - u[0] * v[2],
                u[0] * v[1] - u[1] * v[0],
            ];
            dist3(cross[0], cross[1], cross[2]).atan2(dot)
        }
    }

    /// Gravitational potential energy of point masses, softened.
    #[differentiable(order = 2, wrt(pos))]
    pub fn nbody_potential(pos: &[[f64; 3]], masses: &[f64]) -> f64 {
        const SOFT: f64 = 1e-3;
        let n = pos.len();
        let mut e = 0.0;
        for i in 0..n {
            for j in i + 1..n {
                let r = geom::dist(&pos[i], &pos[j]);
                e -= masses[i] * masses[j] / (r * r + SOFT).sqrt();
            }
        }
        e
    }

    /// A bent chain: bond lengths by `dist` of rows passed by reference, bond angles by `angle` of rows
    /// passed by value, with the rows of a pair bound by a tuple `let` first.
    #[differentiable(order = 2, wrt(pos))]
    pub fn bent_chain(pos: &[[f64; 3]], rest: f64, theta0: f64) -> f64 {
        let mut e = 0.0;
        for i in 0..pos.len() - 1 {
            let (a, b) = (pos[i], pos[i + 1]);
            e += (geom::dist(&a, &b) - rest).powi(2);
        }
        for i in 1..pos.len() - 1 {
            e += 0.5 * (geom::angle(pos[i - 1], pos[i], pos[i + 1]) - theta0).powi(2);
        }
        e
    }

    /// A chain of springs with rest length `rest`, its ends pinned by a softer spring.
    #[differentiable(order = 2, wrt(x, k))]
    pub fn spring_chain(x: &[f64], k: f64, rest: f64) -> f64 {
        let stretch: f64 = x
            .windows(2)
            .map(|w| {
                let d = w[1] - w[0] - rest;
                d * d
            })
            .sum();
        let pin = x[0].powi(2) + (x[x.len() - 1] - rest * (x.len() - 1) as f64).powi(2);
        0.5 * k * stretch + 0.1 * pin
    }

    pub(crate) mod ode {
        use super::*;

        /// The harmonic oscillator with a cubic term: `q' = p`, `p' = -k q - a q^3`.
        #[differentiable]
        pub(crate) fn rhs(y: &[f64], k: f64, a: f64, dydt: &mut [f64]) {
            dydt[0] = y[1];
            dydt[1] = -k * y[0] - a * y[0].powi(3);
        }

        /// One RK4 step of `rhs`, into `out`.
        #[differentiable]
        pub(crate) fn rk4_step(y: &[f64], k: f64, a: f64, h: f64, out: &mut [f64]) {
            let mut k1 = [0.0; 2];
            let mut k2 = [0.0; 2];
            let mut k3 = [0.0; 2];
            let mut k4 = [0.0; 2];
            rhs(y, k, a, &mut k1);
            let y2 = [y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]];
            rhs(&y2, k, a, &mut k2);
            let y3 = [y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]];
            rhs(&y3, k, a, &mut k3);
            let y4 = [y[0] + h * k3[0], y[1] + h * k3[1]];
            rhs(&y4, k, a, &mut k4);
            for i in 0..2 {
                out[i] = y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
        }

        /// Leapfrog (kick-drift-kick) for `steps` steps, writing the final state.
        #[differentiable]
        pub(crate) fn leapfrog(q0: f64, p0: f64, k: f64, dt: f64, steps: usize, state: &mut [f64]) {
            let mut q = q0;
            let mut p = p0;
            for _ in 0..steps {
                p -= 0.5 * dt * k * q;
                q += dt * p;
                p -= 0.5 * dt * k * q;
            }
            state[0] = q;
            state[1] = p;
        }
    }

    /// Shooting: the squared miss of an RK4 trajectory from a target after a fixed number of steps.
    #[differentiable(order = 2, wrt(y0, k))]
    pub fn rk4_miss(y0: &[f64], k: f64, a: f64, target: f64) -> f64 {
        const STEPS: usize = 8;
        let h = 0.1;
        let mut y = [y0[0], y0[1]];
        for _ in 0..STEPS {
            let mut next = [0.0; 2];
            ode::rk4_step(&y, k, a, h, &mut next);
            y = next;
        }
        (y[0] - target).powi(2) + 0.5 * y[1] * y[1]
    }

    /// The energy drift of a leapfrog run (a constant of motion up to O(dt^2)).
    #[differentiable(order = 2)]
    pub fn leapfrog_energy(q0: f64, p0: f64, k: f64) -> f64 {
        let mut s = vec![0.0; 2];
        ode::leapfrog(q0, p0, k, 0.05, 20, &mut s);
        0.5 * s[1] * s[1] + 0.5 * k * s[0] * s[0]
    }

    /// An explicit 1D heat step with fixed ends, into `out`.
    #[differentiable]
    pub fn heat_step(u: &[f64], alpha: f64, out: &mut [f64]) {
        let n = u.len();
        out[0] = u[0];
        out[n - 1] = u[n - 1];
        for i in 1..n - 1 {
            out[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        }
    }

    /// The interior heat after a few steps, against a target profile.
    #[differentiable(order = 2, wrt(u0, alpha))]
    pub fn heat_loss(u0: &[f64], alpha: f64, target: &[f64]) -> f64 {
        let n = u0.len();
        let mut u = u0.to_vec();
        let mut next = vec![0.0; n];
        for _step in 0..4 {
            heat_step(&u, alpha, &mut next);
            for i in 0..n {
                u[i] = next[i];
            }
        }
        u.iter()
            .zip(target)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
    }

    /// Lennard-Jones over 2D points with a cutoff radius.
    #[differentiable(order = 2, wrt(pos))]
    pub fn lennard_jones(pos: &[[f64; 2]], eps: f64, sigma: f64) -> f64 {
        const RC: f64 = 2.5;
        let rc2 = RC * RC * sigma * sigma;
        let mut e = 0.0;
        for i in 0..pos.len() {
            for j in i + 1..pos.len() {
                let dx = pos[i][0] - pos[j][0];
                let dy = pos[i][1] - pos[j][1];
                let r2 = dx * dx + dy * dy;
                if r2 < rc2 {
                    let s6 = (sigma * sigma / r2).powi(3);
                    e += 4.0 * eps * (s6 * s6 - s6);
                }
            }
        }
        e
    }
}

// ---------------------------------------------------------------------------------------------------
// Optimisation and ML
// ---------------------------------------------------------------------------------------------------

pub mod ml {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Dense {
        pub w: Vec<f64>,
        pub b: Vec<f64>,
        #[no_grad]
        pub n_in: usize,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Model {
        pub hidden: Dense,
        pub out: Dense,
    }

    pub(crate) mod act {
        use super::*;

        #[differentiable]
        pub(crate) fn gelu(x: f64) -> f64 {
            const C: f64 = 0.797_884_560_802_865_4;
            0.5 * x * (1.0 + (C * (x + 0.044715 * x.powi(3))).tanh())
        }

        #[differentiable]
        pub(crate) fn relu(x: f64) -> f64 {
            x.max(0.0)
        }
    }

    /// One dense layer (row-major weights in a flat `Vec`), its activation chosen by `kind`.
    #[differentiable]
    pub fn dense(layer: &Dense, x: &[f64], kind: u8, out: &mut [f64]) {
        for o in 0..layer.b.len() {
            let mut z = layer.b[o];
            for i in 0..layer.n_in {
                z += layer.w[o * layer.n_in + i] * x[i];
            }
            out[o] = match kind {
                0 => z.tanh(),
                1 => act::relu(z),
                2 => act::gelu(z),
                _ => z,
            };
        }
    }

    #[differentiable]
    pub fn predict(m: &Model, x: &[f64]) -> f64 {
        let mut h = vec![0.0; m.hidden.b.len()];
        dense(&m.hidden, x, 2, &mut h);
        let mut y = vec![0.0; 1];
        dense(&m.out, &h, 0, &mut y);
        y[0]
    }

    /// Mean squared error of the model over a batch.
    #[differentiable(wrt(m))]
    pub fn mlp_loss(m: &Model, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut total = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let r = predict(m, x) - y;
            total += r * r;
        }
        total / ys.len() as f64
    }

    /// The same model written inline: one hidden gelu layer, a tanh output.
    #[differentiable(order = 2)]
    pub fn predict_inline(m: &Model, x: &[f64]) -> f64 {
        let nh = m.hidden.b.len();
        let mut y = m.out.b[0];
        for o in 0..nh {
            let mut z = m.hidden.b[o];
            for i in 0..m.hidden.n_in {
                z += m.hidden.w[o * m.hidden.n_in + i] * x[i];
            }
            y += m.out.w[o] * act::gelu(z);
        }
        y.tanh()
    }

    /// Mean squared error of the inline model over a batch, with a relu-hinged penalty.
    #[differentiable(order = 2, wrt(m))]
    pub fn mlp_loss_inline(m: &Model, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut total = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let r = predict_inline(m, x) - y;
            total += r * r + 0.1 * act::relu(r - 0.5);
        }
        total / ys.len() as f64
    }

    /// Attention-like pooling: each query row attends over the keys by a row softmax.
    #[differentiable(order = 2)]
    pub fn attention(q: &[Vec<f64>], k: &[Vec<f64>], v: &[f64]) -> f64 {
        let scale = 1.0 / (q[0].len() as f64).sqrt();
        let mut total = 0.0;
        for qi in q {
            let mut scores = vec![0.0; k.len()];
            for (j, kj) in k.iter().enumerate() {
                scores[j] = scale * qi.iter().zip(kj).map(|(a, b)| a * b).sum::<f64>();
            }
            let m = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let z: f64 = scores.iter().map(|s| (s - m).exp()).sum();
            for j in 0..k.len() {
                total += (scores[j] - m).exp() / z * v[j];
            }
        }
        total
    }

    /// Soft k-means: the soft-min over centres of squared distances, summed over points.
    #[differentiable(order = 2, wrt(centres))]
    pub fn soft_kmeans(centres: &[Vec<f64>], pts: &[Vec<f64>], beta: f64) -> f64 {
        let mut total = 0.0;
        for p in pts {
            let mut d = vec![0.0; centres.len()];
            for (c, centre) in centres.iter().enumerate() {
                d[c] = centre.iter().zip(p).map(|(a, b)| (a - b) * (a - b)).sum();
            }
            let dmin = d.iter().fold(f64::INFINITY, |a, &b| a.min(b));
            let s: f64 = d.iter().map(|di| (-beta * (di - dmin)).exp()).sum();
            total += dmin - s.ln() / beta;
        }
        total
    }

    /// Matrix factorisation over observed `(row, column, rating)` triples, with L2.
    #[differentiable(order = 2, wrt(u, v))]
    pub fn mf_loss(
        u: &[Vec<f64>],
        v: &[Vec<f64>],
        users: &[usize],
        items: &[usize],
        ratings: &[f64],
        lambda: f64,
    ) -> f64 {
        let mut loss = 0.0;
        for t in 0..ratings.len() {
            let (i, j) = (users[t], items[t]);
            let r = ratings[t];
            let pred: f64 = u[i].iter().zip(&v[j]).map(|(a, b)| a * b).sum();
            loss += (pred - r).powi(2);
        }
        let mut reg = 0.0;
        for row in u {
            reg += row.iter().map(|a| a * a).sum::<f64>();
        }
        for row in v {
            reg += row.iter().map(|a| a * a).sum::<f64>();
        }
        loss + lambda * reg
    }
}

// ---------------------------------------------------------------------------------------------------
// Numerics
// ---------------------------------------------------------------------------------------------------

pub mod numerics {
    use autodiff::{differentiable, Float};

    pub(crate) mod poly {
        use super::*;

        #[differentiable]
        pub(crate) fn horner(coeffs: &[f64], x: f64) -> f64 {
            coeffs.iter().rev().fold(0.0, |acc, &c| acc * x + c)
        }

        #[differentiable]
        pub(crate) fn horner32(coeffs: &[f32], x: f32) -> f32 {
            coeffs.iter().rev().fold(0.0, |acc, &c| acc * x + c)
        }
    }

    /// Least squares of a polynomial against samples, evaluated by Horner.
    #[differentiable(order = 2, wrt(coeffs))]
    pub fn poly_fit(coeffs: &[f64], ts: &[f64], ys: &[f64]) -> f64 {
        ts.iter()
            .zip(ys.iter())
            .map(|(&t, &y)| (poly::horner(coeffs, t) - y).powi(2))
            .sum()
    }

    /// Kepler's equation `E - e sin E = M` by a fixed number of Newton steps.
    #[differentiable(order = 2)]
    pub fn kepler(m: f64, e: f64) -> f64 {
        let mut ea = m;
        for _ in 0..12 {
            let f = ea - e * ea.sin() - m;
            ea -= f / (1.0 - e * ea.cos());
        }
        ea
    }

    /// The fixed point of `x = b + a cos x` by plain iteration (a contraction for `|a| < 1`).
    #[differentiable(order = 2)]
    pub fn fixed_point(a: f64, b: f64) -> f64 {
        let mut x = b;
        for _ in 0..80 {
            x = b + a * x.cos();
        }
        x
    }

    pub(crate) mod quad {
        use super::*;

        /// A damped oscillation with parameters `(amp, rate, freq)`.
        #[differentiable]
        pub(crate) fn integrand(t: f64, p: &[f64]) -> f64 {
            p[0] * (-p[1] * t).exp() * (p[2] * t).cos()
        }

        #[differentiable]
        pub(crate) fn simpson(p: &[f64], a: f64, b: f64, n: usize) -> f64 {
            let h = (b - a) / n as f64;
            let mut s = integrand(a, p) + integrand(b, p);
            for i in 1..n {
                let w = match i % 2 {
                    0 => 2.0,
                    _ => 4.0,
                };
                s += w * integrand(a + i as f64 * h, p);
            }
            s * h / 3.0
        }

        #[differentiable]
        pub(crate) fn trapezoid(p: &[f64], a: f64, b: f64, n: usize) -> f64 {
            let h = (b - a) / n as f64;
            let ts: Vec<f64> = (0..=n).map(|i| a + i as f64 * h).collect();
            let mut s = 0.0;
            for w in ts.windows(2) {
                s += 0.5 * (w[1] - w[0]) * (integrand(w[0], p) + integrand(w[1], p));
            }
            s
        }
    }

    /// The squared difference of Simpson and trapezoid rules plus the Simpson value.
    #[differentiable(order = 2, wrt(p, b))]
    pub fn quad_pair(p: &[f64], b: f64) -> f64 {
        let s = quad::simpson(p, 0.0, b, 16);
        let t = quad::trapezoid(p, 0.0, b, 16);
        s + (s - t).powi(2)
    }

    /// `f32`: a Horner polynomial composed with a logistic.
    #[differentiable(order = 2, wrt(coeffs, x))]
    pub fn poly_logistic32(coeffs: &[f32], x: f32) -> f32 {
        let z = poly::horner32(coeffs, x);
        1.0 / (1.0 + (-z).exp())
    }

    /// `f32`: Newton's cube root with a fixed count, clamped start.
    #[differentiable(order = 2)]
    pub fn cbrt_newton32(a: f32) -> f32 {
        let mut y = a.clamp(0.5, 4.0);
        for _ in 0..30 {
            y -= (y * y * y - a) / (3.0 * y * y);
        }
        y
    }

    /// Generic pseudo-Huber mean over residuals of a scale.
    #[differentiable(order = 2)]
    pub fn pseudo_huber_mean<T: Float>(r: &[T], delta: T) -> T {
        let one = T::one();
        let mut s = T::zero();
        for &ri in r {
            s = s + delta * delta * ((one + (ri / delta).powi(2)).sqrt() - one);
        }
        s / T::from(r.len()).unwrap()
    }

    /// Polyline length over points given flat as `[x0, y0, x1, y1, ..]`, a smooth soft-abs penalty
    /// on the turning, `exp_m1`, `signum`, `powf` and `hypot`.
    #[differentiable(order = 2)]
    pub fn polyline(pts: &[f64], tension: f64) -> f64 {
        let mut len = 0.0;
        let mut prev = (pts[0], pts[1]);
        for c in pts.chunks_exact(2).skip(1) {
            let (x, y) = (c[0], c[1]);
            len += (x - prev.0).hypot(y - prev.1);
            prev = (x, y);
        }
        let turn = (pts[pts.len() - 1] - pts[1]).signum() * 0.0;
        len + tension.exp_m1().powf(1.5) + turn
    }

    /// Helper returning a tuple: the mean and (population) variance.
    #[differentiable]
    pub(crate) fn moments(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        (mean, var)
    }

    /// Standardised fourth moment (kurtosis), through the tuple helper and shadowing.
    #[differentiable(order = 2)]
    pub fn kurtosis(xs: &[f64]) -> f64 {
        let (mean, var) = moments(xs);
        let m4 = xs.iter().map(|x| (x - mean).powi(4)).sum::<f64>();
        let m4 = m4 / xs.len() as f64;
        m4 / (var * var)
    }
}

// ---------------------------------------------------------------------------------------------------
// More programs: in-place integrators, generic helpers called from f64, tuples from helpers, early returns
// ---------------------------------------------------------------------------------------------------

pub mod extra {
    use autodiff::{differentiable, Float};

    pub(crate) mod kernels {
        use super::*;

        /// A generic, max-subtracted log-sum-exp, called from `f64` code.
        #[differentiable]
        pub(crate) fn lse<T: Float>(xs: &[T]) -> T {
            let mut m = T::neg_infinity();
            for &x in xs {
                m = m.max(x);
            }
            let mut s = T::zero();
            for &x in xs {
                s = s + (x - m).exp();
            }
            m + s.ln()
        }

        /// A polynomial and its derivative by one Horner pass, as a tuple.
        #[differentiable]
        pub(crate) fn poly_and_slope(coeffs: &[f64], x: f64) -> (f64, f64) {
            let mut p = 0.0;
            let mut dp = 0.0;
            for &c in coeffs.iter().rev() {
                dp = dp * x + p;
                p = p * x + c;
            }
            (p, dp)
        }

        /// Smooth-L1 of one residual, with an early return on the quadratic zone.
        #[differentiable]
        pub(crate) fn smooth_l1(r: f64, beta: f64) -> f64 {
            let a = r.abs();
            if a < beta {
                return 0.5 * r * r / beta;
            }
            a - 0.5 * beta
        }
    }

    use kernels::*;

    /// Temperature-scaled log-partition of scores in `f64`, through the generic helper, plus a
    /// `min`/`max`/`clamp` penalty.
    #[differentiable(order = 2)]
    pub fn tempered_lse(scores: &[f64], temp: f64) -> f64 {
        let t = temp.clamp(0.1, 10.0);
        let scaled: Vec<f64> = scores.iter().map(|s| s / t).collect();
        let hi = scores.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let lo = scores.iter().fold(f64::INFINITY, |a, &b| a.min(b));
        t * lse(&scaled) + 0.1 * (hi - lo).powi(2)
    }

    /// A polynomial root by a fixed number of Newton steps through the tuple helper.
    #[differentiable(order = 2, wrt(coeffs))]
    pub fn poly_root(coeffs: &[f64], x0: f64) -> f64 {
        let mut x = x0;
        for _ in 0..25 {
            let (p, dp) = poly_and_slope(coeffs, x);
            x -= p / dp;
        }
        x
    }

    /// Triangle areas of a mesh given flat as `[x0, y0, z0, x1, ..]`, three vertices per triangle.
    #[differentiable(order = 2)]
    pub fn mesh_area(v: &[f64]) -> f64 {
        let mut area = 0.0;
        for t in v.chunks_exact(9) {
            let (ux, uy, uz) = (t[3] - t[0], t[4] - t[1], t[5] - t[2]);
            let (wx, wy, wz) = (t[6] - t[0], t[7] - t[1], t[8] - t[2]);
            let (cx, cy, cz) = (uy * wz - uz * wy, uz * wx - ux * wz, ux * wy - uy * wx);
            area += 0.5 * cx.hypot(cy).hypot(cz);
        }
        area
    }

    /// Smooth-L1 over paired slices, weighted by index, labels switching the sign of the target.
    #[differentiable(order = 2, wrt(pred))]
    pub fn weighted_smooth_l1(pred: &[f64], target: &[f64], signs: &[i8]) -> f64 {
        const BETA: f64 = 0.5;
        let n = pred.len();
        if n == 0 {
            return 0.0;
        }
        let mut total = 0.0;
        for (i, (p, t)) in pred.iter().zip(target).enumerate() {
            let w = 1.0 + i as f64 / n as f64;
            let t = match signs[i] {
                -1 => -t,
                0 => 0.0,
                _ => *t,
            };
            total += w * smooth_l1(p - t, BETA);
        }
        total / n as f64
    }

    /// Velocity Verlet in place on `q` and `p` (their incoming values are the initial state).
    #[differentiable]
    pub fn verlet_in_place(q: &mut [f64], p: &mut [f64], k: f64, dt: f64, steps: usize) {
        for _ in 0..steps {
            for i in 0..q.len() {
                let a = -k * q[i].sin();
                p[i] += 0.5 * dt * a;
                q[i] += dt * p[i];
                let a = -k * q[i].sin();
                p[i] += 0.5 * dt * a;
            }
        }
    }

    /// The pendulum's final energy after an in-place Verlet run on copies of the inputs.
    #[differentiable(order = 2)]
    pub fn pendulum_energy(q0: &[f64], p0: &[f64], k: f64) -> f64 {
        let mut q = q0.to_vec();
        let mut p = p0.to_vec();
        verlet_in_place(&mut q, &mut p, k, 0.05, 10);
        let mut e = 0.0;
        for i in 0..q.len() {
            e += 0.5 * p[i] * p[i] + k * (1.0 - q[i].cos());
        }
        e
    }
}

// ---------------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------------

const POINTS: usize = 12;

/// Rows of `c` columns from a flat vector.
fn rows(x: &[f64], c: usize) -> Vec<Vec<f64>> {
    x.chunks(c).map(|r| r.to_vec()).collect()
}

fn flatten(m: &[Vec<f64>]) -> Flat {
    m.iter().flatten().copied().collect()
}

fn to32(x: &[f64]) -> Vec<f32> {
    x.iter().map(|&v| v as f32).collect()
}

fn to64(x: &[f32]) -> Flat {
    x.iter().map(|&v| v as f64).collect()
}

/// `_hvp` against `_hessian` times a random direction, and its value and gradient.
#[track_caller]
fn check_hvp(
    name: &str,
    sample: impl Fn(&mut Lcg) -> Flat,
    hessian: &dyn Fn(&[f64]) -> (f64, Flat, Vec<Flat>),
    hvp: &dyn Fn(&[f64], &[f64]) -> (f64, Flat, Flat),
) {
    let mut rng = Lcg::new(seed_of(name) ^ 0x4e5f);
    for _ in 0..POINTS {
        let x = sample(&mut rng);
        let v = rng.vec(x.len(), -1.0, 1.0);
        let (hv0, g0, h) = hessian(&x);
        let (hv1, g1, hv) = hvp(&x, &v);
        let at = format!("{name}_hvp at {x:?} along {v:?}");
        assert_near(hv1, hv0, 1e-12, 0.0, &format!("{at}: value"));
        assert_vec_near(&g1, &g0, 1e-10, &format!("{at}: gradient"));
        let expected: Flat = h.iter().map(|row| dot(row, &v)).collect();
        assert_vec_near(&hv, &expected, 1e-9, &format!("{at}: H v"));
    }
}

/// `_vjp` against `d_ret` times central differences of the function.
#[track_caller]
fn check_vjp(
    name: &str,
    sample: impl Fn(&mut Lcg) -> Flat,
    f: &dyn Fn(&[f64]) -> f64,
    vjp: &dyn Fn(&[f64], f64) -> (f64, Flat),
) {
    let mut rng = Lcg::new(seed_of(name) ^ 0x7a11);
    for _ in 0..POINTS {
        let x = sample(&mut rng);
        let c = rng.uniform(-2.0, 2.0);
        let (v, g) = vjp(&x, c);
        let at = format!("{name}_vjp at {x:?}, d_ret {c}");
        assert_near(v, f(&x), 1e-12, 0.0, &format!("{at}: value"));
        let expected: Flat = fd_gradient(f, &x).iter().map(|d| c * d).collect();
        assert_vec_near(&g, &expected, 1e-6, &format!("{at}: vjp"));
    }
}

mod statistics {
    use super::stats::*;
    use super::*;

    const XS: [f64; 5] = [0.3, -1.2, 2.5, 0.9, -0.4];

    #[test]
    fn gaussian_log_likelihood() {
        let split = |x: &[f64]| (x[0], x[1], x[2..].to_vec());
        let flat = |a: f64, b: f64, c: Vec<f64>| -> Flat { [vec![a, b], c].concat() };
        let sample = |r: &mut Lcg| {
            [
                vec![r.uniform(-1.0, 1.0), r.uniform(-0.5, 0.8)],
                r.vec(4, -2.0, 2.0),
            ]
            .concat()
        };
        let f = |x: &[f64]| {
            let (m, s, d) = split(x);
            gauss_loglik(m, s, &d)
        };
        Probe::new("gauss_loglik", f)
            .grad(|x| {
                let (m, s, d) = split(x);
                let (v, (gm, gs, gd)) = gauss_loglik_grad(m, s, &d);
                (v, flat(gm, gs, gd))
            })
            .jvp(|x, t| {
                let (m, s, d) = split(x);
                gauss_loglik_jvp(m, s, &d, (t[0], t[1], t[2..].to_vec()))
            })
            .grad_into(|x| {
                let (m, s, d) = split(x);
                let (mut a, mut b, mut c) = (GARBAGE, GARBAGE, vec![GARBAGE; d.len()]);
                let v = gauss_loglik_grad_into(m, s, &d, (&mut a, &mut b, &mut c));
                (v, flat(a, b, c))
            })
            .hessian(|x| {
                let (m, s, d) = split(x);
                let (v, (gm, gs, gd), h) = gauss_loglik_hessian(m, s, &d);
                (v, flat(gm, gs, gd), h)
            })
            .analytic(|x| {
                let (m, s, d) = split(x);
                let var = (2.0 * s).exp();
                let n = d.len() as f64;
                let gm: f64 = d.iter().map(|v| (v - m) / var).sum();
                let gs: f64 = d.iter().map(|v| (v - m).powi(2) / var).sum::<f64>() - n;
                flat(gm, gs, d.iter().map(|v| -(v - m) / var).collect())
            })
            .run(POINTS, sample);
        check_hvp(
            "gauss_loglik",
            sample,
            &|x| {
                let (m, s, d) = split(x);
                let (v, (gm, gs, gd), h) = gauss_loglik_hessian(m, s, &d);
                (v, flat(gm, gs, gd), h)
            },
            &|x, t| {
                let (m, s, d) = split(x);
                let (v, (gm, gs, gd), (hm, hs, hd)) =
                    gauss_loglik_hvp(m, s, &d, (t[0], t[1], t[2..].to_vec()));
                (v, flat(gm, gs, gd), flat(hm, hs, hd))
            },
        );
        check_vjp("gauss_loglik", sample, &f, &|x, c| {
            let (m, s, d) = split(x);
            let (v, (gm, gs, gd)) = gauss_loglik_vjp(m, s, &d, c);
            (v, flat(gm, gs, gd))
        });
    }

    #[test]
    fn student_t_through_ln_gamma() {
        // ln_gamma against known values first.
        assert_near(
            special::ln_gamma(0.5),
            0.5 * std::f64::consts::PI.ln(),
            1e-8,
            0.0,
            "lnΓ(1/2)",
        );
        assert_near(special::ln_gamma(5.0), 24.0_f64.ln(), 1e-8, 0.0, "lnΓ(5)");
        let sample = |r: &mut Lcg| {
            vec![
                r.uniform(1.0, 8.0),
                r.uniform(-1.0, 1.0),
                r.uniform(0.5, 2.0),
            ]
        };
        three(
            "student_t",
            |a, b, c| student_t_loglik(a, b, c, &XS),
            |a, b, c| student_t_loglik_grad(a, b, c, &XS),
            |a, b, c, t| student_t_loglik_jvp(a, b, c, &XS, t),
            |a, b, c, g| student_t_loglik_grad_into(a, b, c, &XS, g),
        )
        .hessian(|x| {
            let (v, g, h) = student_t_loglik_hessian(x[0], x[1], x[2], &XS);
            (v, vec![g.0, g.1, g.2], h)
        })
        .run(POINTS, sample);
        check_hvp(
            "student_t",
            sample,
            &|x| {
                let (v, g, h) = student_t_loglik_hessian(x[0], x[1], x[2], &XS);
                (v, vec![g.0, g.1, g.2], h)
            },
            &|x, t| {
                let (v, g, hv) = student_t_loglik_hvp(x[0], x[1], x[2], &XS, (t[0], t[1], t[2]));
                (v, vec![g.0, g.1, g.2], vec![hv.0, hv.1, hv.2])
            },
        );
        check_vjp(
            "student_t",
            sample,
            &|x| student_t_loglik(x[0], x[1], x[2], &XS),
            &|x, c| {
                let (v, g) = student_t_loglik_vjp(x[0], x[1], x[2], &XS, c);
                (v, vec![g.0, g.1, g.2])
            },
        );
        // ln_gamma's own derivative, the digamma function, at 1: -γ.
        let (_, d) = special::ln_gamma_grad(1.0);
        assert_near(d, -0.577_215_664_901_532_9, 1e-8, 0.0, "ψ(1)");
    }

    #[test]
    fn poisson_regression() {
        let xs = vec![
            vec![1.0, 0.2, -0.3],
            vec![1.0, -0.7, 0.5],
            vec![1.0, 0.4, 0.9],
            vec![1.0, -1.1, -0.2],
        ];
        let counts = [2u32, 0, 5, 1];
        let split = |x: &[f64]| (x[..3].to_vec(), rows(&x[3..], 3));
        let flat = |a: Vec<f64>, b: Vec<Vec<f64>>| -> Flat { [a, flatten(&b)].concat() };
        let sample = |r: &mut Lcg| {
            let mut x = r.vec(3, -0.8, 0.8);
            x.extend(r.vec(12, -1.0, 1.0));
            x
        };
        let _ = &xs;
        let f = |x: &[f64]| {
            let (w, d) = split(x);
            poisson_loglik(&w, &d, &counts)
        };
        Probe::new("poisson", f)
            .grad(|x| {
                let (w, d) = split(x);
                let (v, (gw, gd)) = poisson_loglik_grad(&w, &d, &counts);
                (v, flat(gw, gd))
            })
            .jvp(|x, t| {
                let (w, d) = split(x);
                let (tw, td) = split(t);
                poisson_loglik_jvp(&w, &d, &counts, (tw, td))
            })
            .grad_into(|x| {
                let (w, d) = split(x);
                let mut gw = vec![GARBAGE; 3];
                let mut gd = vec![vec![GARBAGE; 3]; 4];
                let v = poisson_loglik_grad_into(&w, &d, &counts, (&mut gw, &mut gd));
                (v, flat(gw, gd))
            })
            .hessian(|x| {
                let (w, d) = split(x);
                let (v, (gw, gd), h) = poisson_loglik_hessian(&w, &d, &counts);
                (v, flat(gw, gd), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "poisson",
            sample,
            &|x| {
                let (w, d) = split(x);
                let (v, (gw, gd), h) = poisson_loglik_hessian(&w, &d, &counts);
                (v, flat(gw, gd), h)
            },
            &|x, t| {
                let (w, d) = split(x);
                let (v, (gw, gd), (hw, hd)) = poisson_loglik_hvp(&w, &d, &counts, split(t));
                (v, flat(gw, gd), flat(hw, hd))
            },
        );
        check_vjp("poisson", sample, &f, &|x, c| {
            let (w, d) = split(x);
            let (v, (gw, gd)) = poisson_loglik_vjp(&w, &d, &counts, c);
            (v, flat(gw, gd))
        });
    }

    #[test]
    fn softmax_cross_entropy_over_a_batch() {
        let labels = [2usize, 0, 1];
        let f = |x: &[f64]| softmax_xent(&rows(x, 4), &labels);
        let sample = range(12, -3.0, 3.0);
        Probe::new("softmax_xent", f)
            .grad(|x| {
                let (v, g) = softmax_xent_grad(&rows(x, 4), &labels);
                (v, flatten(&g))
            })
            .jvp(|x, t| softmax_xent_jvp(&rows(x, 4), &labels, rows(t, 4)))
            .grad_into(|x| {
                let mut g = vec![vec![GARBAGE; 4]; 3];
                let v = softmax_xent_grad_into(&rows(x, 4), &labels, &mut g);
                (v, flatten(&g))
            })
            .hessian(|x| {
                let (v, g, h) = softmax_xent_hessian(&rows(x, 4), &labels);
                (v, flatten(&g), h)
            })
            .analytic(|x| {
                let m = rows(x, 4);
                let mut g = Vec::new();
                for (row, &y) in m.iter().zip(&labels) {
                    let z: f64 = row.iter().map(|v| v.exp()).sum();
                    for (j, v) in row.iter().enumerate() {
                        g.push((v.exp() / z - if j == y { 1.0 } else { 0.0 }) / 3.0);
                    }
                }
                g
            })
            .run(POINTS, sample);
        check_hvp(
            "softmax_xent",
            range(12, -3.0, 3.0),
            &|x| {
                let (v, g, h) = softmax_xent_hessian(&rows(x, 4), &labels);
                (v, flatten(&g), h)
            },
            &|x, t| {
                let (v, g, hv) = softmax_xent_hvp(&rows(x, 4), &labels, rows(t, 4));
                (v, flatten(&g), flatten(&hv))
            },
        );
        check_vjp("softmax_xent", range(12, -3.0, 3.0), &f, &|x, c| {
            let (v, g) = softmax_xent_vjp(&rows(x, 4), &labels, c);
            (v, flatten(&g))
        });
        // Large logits: the max subtraction keeps it finite.
        let (v, g) = softmax_xent_grad(&[vec![800.0, 0.0, 0.0, 0.0]], &[0]);
        assert!(
            v.abs() < 1e-300 && g[0].iter().all(|d| d.is_finite()),
            "{v} {g:?}"
        );
    }

    #[test]
    fn logistic_regression_with_l2() {
        let xs = vec![
            vec![0.5, -1.0],
            vec![-0.3, 0.8],
            vec![1.2, 0.1],
            vec![-0.9, -0.6],
            vec![0.2, 1.5],
        ];
        let ys = [1usize, 0, 1, 0, 1];
        let lambda = 0.3;
        let f = |x: &[f64]| logistic_l2(&x[..2], x[2], &xs, &ys, lambda);
        let sample = range(3, -4.0, 4.0);
        let flat = |gw: Vec<f64>, gb: f64| -> Flat { [gw, vec![gb]].concat() };
        Probe::new("logistic_l2", f)
            .grad(|x| {
                let (v, (gw, gb)) = logistic_l2_grad(&x[..2], x[2], &xs, &ys, lambda);
                (v, flat(gw, gb))
            })
            .jvp(|x, t| logistic_l2_jvp(&x[..2], x[2], &xs, &ys, lambda, (t[..2].to_vec(), t[2])))
            .grad_into(|x| {
                let (mut gw, mut gb) = (vec![GARBAGE; 2], GARBAGE);
                let v = logistic_l2_grad_into(&x[..2], x[2], &xs, &ys, lambda, (&mut gw, &mut gb));
                (v, flat(gw, gb))
            })
            .hessian(|x| {
                let (v, (gw, gb), h) = logistic_l2_hessian(&x[..2], x[2], &xs, &ys, lambda);
                (v, flat(gw, gb), h)
            })
            .analytic(|x| {
                let mut g = vec![lambda * x[0], lambda * x[1], 0.0];
                for (row, &y) in xs.iter().zip(&ys) {
                    let z = x[2] + x[0] * row[0] + x[1] * row[1];
                    let p = 1.0 / (1.0 + (-z).exp());
                    let r = (p - y as f64) / xs.len() as f64;
                    g[0] += r * row[0];
                    g[1] += r * row[1];
                    g[2] += r;
                }
                g
            })
            .run(POINTS, sample);
        check_hvp(
            "logistic_l2",
            range(3, -4.0, 4.0),
            &|x| {
                let (v, (gw, gb), h) = logistic_l2_hessian(&x[..2], x[2], &xs, &ys, lambda);
                (v, flat(gw, gb), h)
            },
            &|x, t| {
                let (v, (gw, gb), (hw, hb)) =
                    logistic_l2_hvp(&x[..2], x[2], &xs, &ys, lambda, (t[..2].to_vec(), t[2]));
                (v, flat(gw, gb), flat(hw, hb))
            },
        );
        check_vjp("logistic_l2", range(3, -4.0, 4.0), &f, &|x, c| {
            let (v, (gw, gb)) = logistic_l2_vjp(&x[..2], x[2], &xs, &ys, lambda, c);
            (v, flat(gw, gb))
        });
    }

    #[test]
    fn welford_variance() {
        let sample = range(6, -3.0, 3.0);
        slice(
            "welford",
            welford_var,
            welford_var_grad,
            welford_var_jvp,
            welford_var_grad_into,
        )
        .hessian(hess_slice(welford_var_hessian))
        .analytic(|x| {
            let n = x.len() as f64;
            let m = x.iter().sum::<f64>() / n;
            x.iter().map(|v| 2.0 * (v - m) / (n - 1.0)).collect()
        })
        .run(POINTS, sample);
        check_hvp(
            "welford",
            range(6, -3.0, 3.0),
            &welford_var_hessian,
            &|x, t| welford_var_hvp(x, t.to_vec()),
        );
        check_vjp(
            "welford",
            range(6, -3.0, 3.0),
            &welford_var,
            &welford_var_vjp,
        );
        // The Hessian is 2 (I - 11ᵀ/n) / (n - 1).
        let (_, _, h) = welford_var_hessian(&[0.1, 0.5, -0.2, 0.8]);
        for i in 0..4 {
            for j in 0..4 {
                let e = 2.0 * (if i == j { 1.0 } else { 0.0 } - 0.25) / 3.0;
                assert_near(h[i][j], e, 1e-12, 1.0, "welford's Hessian");
            }
        }
    }

    #[test]
    fn robust_line_fits() {
        let ts = [-1.0, -0.3, 0.2, 0.9, 1.7, 2.4];
        let ys = [-2.1, -0.2, 0.9, 1.4, 5.0, 4.1];
        for kind in 0u8..3 {
            let name = format!("robust_fit {kind}");
            let f = move |x: &[f64]| robust_fit(x[0], x[1], &ts, &ys, kind);
            // Away from the kinks of Huber (|r| = delta).
            let sample = move |r: &mut Lcg| loop {
                let x = r.vec(2, -1.0, 3.0);
                let ok = ts
                    .iter()
                    .zip(&ys)
                    .all(|(t, y)| ((x[0] * t + x[1] - y).abs() - 0.7).abs() > 1e-3);
                if ok {
                    break x;
                }
            };
            Probe::new(&name, f)
                .grad(move |x| {
                    let (v, g) = robust_fit_grad(x[0], x[1], &ts, &ys, kind);
                    (v, vec![g.0, g.1])
                })
                .jvp(move |x, t| robust_fit_jvp(x[0], x[1], &ts, &ys, kind, (t[0], t[1])))
                .grad_into(move |x| {
                    let (mut a, mut b) = (GARBAGE, GARBAGE);
                    let v = robust_fit_grad_into(x[0], x[1], &ts, &ys, kind, (&mut a, &mut b));
                    (v, vec![a, b])
                })
                .hessian(move |x| {
                    let (v, g, h) = robust_fit_hessian(x[0], x[1], &ts, &ys, kind);
                    (v, vec![g.0, g.1], h)
                })
                .run(POINTS, sample);
            check_hvp(
                &name,
                sample,
                &|x| {
                    let (v, g, h) = robust_fit_hessian(x[0], x[1], &ts, &ys, kind);
                    (v, vec![g.0, g.1], h)
                },
                &|x, t| {
                    let (v, g, hv) = robust_fit_hvp(x[0], x[1], &ts, &ys, kind, (t[0], t[1]));
                    (v, vec![g.0, g.1], vec![hv.0, hv.1])
                },
            );
            check_vjp(&name, sample, &f, &|x, c| {
                let (v, g) = robust_fit_vjp(x[0], x[1], &ts, &ys, kind, c);
                (v, vec![g.0, g.1])
            });
        }
    }
}

mod physics_programs {
    use super::physics::*;
    use super::*;

    /// Points `[x, y, z]` from a flat vector.
    fn points3(x: &[f64]) -> Vec<[f64; 3]> {
        x.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
    }

    fn flat3(p: &[[f64; 3]]) -> Flat {
        p.iter().flatten().copied().collect()
    }

    #[test]
    fn nbody_potential_over_pairs() {
        let masses = [1.0, 0.5, 2.0, 0.8];
        let f = |x: &[f64]| nbody_potential(&points3(x), &masses);
        // Bodies kept apart: one per unit cell along x.
        let sample = |r: &mut Lcg| {
            let mut x = r.vec(12, -0.4, 0.4);
            for b in 0..4 {
                x[3 * b] += b as f64 * 1.5;
            }
            x
        };
        Probe::new("nbody", f)
            .grad(|x| {
                let (v, g) = nbody_potential_grad(&points3(x), &masses);
                (v, flat3(&g))
            })
            .jvp(|x, t| nbody_potential_jvp(&points3(x), &masses, points3(t)))
            .grad_into(|x| {
                let mut g = vec![[GARBAGE; 3]; 4];
                let v = nbody_potential_grad_into(&points3(x), &masses, &mut g);
                (v, flat3(&g))
            })
            .hessian(|x| {
                let (v, g, h) = nbody_potential_hessian(&points3(x), &masses);
                (v, flat3(&g), h)
            })
            .analytic(|x| {
                let p = points3(x);
                let mut g = vec![0.0; 12];
                for i in 0..4 {
                    for j in i + 1..4 {
                        let d: Vec<f64> = (0..3).map(|k| p[i][k] - p[j][k]).collect();
                        let r2: f64 = d.iter().map(|v| v * v).sum();
                        let c = masses[i] * masses[j] * (r2 + 1e-3).powf(-1.5);
                        for k in 0..3 {
                            g[3 * i + k] += c * d[k];
                            g[3 * j + k] -= c * d[k];
                        }
                    }
                }
                g
            })
            .run(POINTS, sample);
        check_hvp(
            "nbody",
            sample,
            &|x| {
                let (v, g, h) = nbody_potential_hessian(&points3(x), &masses);
                (v, flat3(&g), h)
            },
            &|x, t| {
                let (v, g, hv) = nbody_potential_hvp(&points3(x), &masses, points3(t));
                (v, flat3(&g), flat3(&hv))
            },
        );
        check_vjp("nbody", sample, &f, &|x, c| {
            let (v, g) = nbody_potential_vjp(&points3(x), &masses, c);
            (v, flat3(&g))
        });
    }

    #[test]
    fn spring_chain_over_windows() {
        let rest = 0.8;
        let f = |x: &[f64]| spring_chain(&x[..5], x[5], rest);
        let sample = |r: &mut Lcg| {
            let mut x = r.vec(6, -1.0, 3.0);
            x[5] = r.uniform(0.5, 3.0);
            x
        };
        let flat = |a: Vec<f64>, b: f64| -> Flat { [a, vec![b]].concat() };
        Probe::new("spring_chain", f)
            .grad(|x| {
                let (v, (gx, gk)) = spring_chain_grad(&x[..5], x[5], rest);
                (v, flat(gx, gk))
            })
            .jvp(|x, t| spring_chain_jvp(&x[..5], x[5], rest, (t[..5].to_vec(), t[5])))
            .grad_into(|x| {
                let (mut gx, mut gk) = (vec![GARBAGE; 5], GARBAGE);
                let v = spring_chain_grad_into(&x[..5], x[5], rest, (&mut gx, &mut gk));
                (v, flat(gx, gk))
            })
            .hessian(|x| {
                let (v, (gx, gk), h) = spring_chain_hessian(&x[..5], x[5], rest);
                (v, flat(gx, gk), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "spring_chain",
            sample,
            &|x| {
                let (v, (gx, gk), h) = spring_chain_hessian(&x[..5], x[5], rest);
                (v, flat(gx, gk), h)
            },
            &|x, t| {
                let (v, (gx, gk), (hx, hk)) =
                    spring_chain_hvp(&x[..5], x[5], rest, (t[..5].to_vec(), t[5]));
                (v, flat(gx, gk), flat(hx, hk))
            },
        );
        check_vjp("spring_chain", sample, &f, &|x, c| {
            let (v, (gx, gk)) = spring_chain_vjp(&x[..5], x[5], rest, c);
            (v, flat(gx, gk))
        });
    }

    #[test]
    fn rk4_shooting() {
        let (a, target) = (0.3, 0.4);
        let f = |x: &[f64]| rk4_miss(&x[..2], x[2], a, target);
        let sample = |r: &mut Lcg| {
            vec![
                r.uniform(-1.0, 1.0),
                r.uniform(-1.0, 1.0),
                r.uniform(0.5, 3.0),
            ]
        };
        let flat = |g: Vec<f64>, k: f64| -> Flat { [g, vec![k]].concat() };
        Probe::new("rk4_miss", f)
            .grad(|x| {
                let (v, (gy, gk)) = rk4_miss_grad(&x[..2], x[2], a, target);
                (v, flat(gy, gk))
            })
            .jvp(|x, t| rk4_miss_jvp(&x[..2], x[2], a, target, (t[..2].to_vec(), t[2])))
            .grad_into(|x| {
                let (mut gy, mut gk) = (vec![GARBAGE; 2], GARBAGE);
                let v = rk4_miss_grad_into(&x[..2], x[2], a, target, (&mut gy, &mut gk));
                (v, flat(gy, gk))
            })
            .hessian(|x| {
                let (v, (gy, gk), h) = rk4_miss_hessian(&x[..2], x[2], a, target);
                (v, flat(gy, gk), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "rk4_miss",
            sample,
            &|x| {
                let (v, (gy, gk), h) = rk4_miss_hessian(&x[..2], x[2], a, target);
                (v, flat(gy, gk), h)
            },
            &|x, t| {
                let (v, (gy, gk), (hy, hk)) =
                    rk4_miss_hvp(&x[..2], x[2], a, target, (t[..2].to_vec(), t[2]));
                (v, flat(gy, gk), flat(hy, hk))
            },
        );
        check_vjp("rk4_miss", sample, &f, &|x, c| {
            let (v, (gy, gk)) = rk4_miss_vjp(&x[..2], x[2], a, target, c);
            (v, flat(gy, gk))
        });
        // The step's Jacobian (an output parameter) against central differences, in `(y, k, a, h)`.
        let step = |x: &[f64]| {
            let mut out = vec![0.0; 2];
            ode::rk4_step(&x[..2], x[2], x[3], x[4], &mut out);
            out
        };
        let sample = |r: &mut Lcg| {
            let mut x = r.vec(4, -1.0, 1.0);
            x.push(r.uniform(0.05, 0.3));
            x
        };
        check_vector(
            "rk4_step",
            POINTS,
            sample,
            &step,
            &|x, c| {
                let mut out = vec![GARBAGE; 2];
                let (gy, gk, ga, gh) = ode::rk4_step_vjp(&x[..2], x[2], x[3], x[4], &mut out, c);
                (out, [gy, vec![gk, ga, gh]].concat())
            },
            &|x, t| {
                let (mut out, mut d) = (vec![GARBAGE; 2], vec![GARBAGE; 2]);
                let tangent = (t[..2].to_vec(), t[2], t[3], t[4]);
                ode::rk4_step_jvp(&x[..2], x[2], x[3], x[4], &mut out, tangent, &mut d);
                (out, d)
            },
            Some(&|x| {
                let mut out = vec![GARBAGE; 2];
                ode::rk4_step_jacobian(&x[..2], x[2], x[3], x[4], &mut out)
            }),
        );
    }
}

mod more_physics {
    use super::physics::*;
    use super::*;

    #[test]
    fn leapfrog_energy_through_an_output_parameter() {
        let sample = |r: &mut Lcg| {
            vec![
                r.uniform(-1.0, 1.0),
                r.uniform(-1.0, 1.0),
                r.uniform(0.3, 2.0),
            ]
        };
        three(
            "leapfrog_energy",
            leapfrog_energy,
            leapfrog_energy_grad,
            leapfrog_energy_jvp,
            leapfrog_energy_grad_into,
        )
        .hessian(hess3(leapfrog_energy_hessian))
        .run(POINTS, sample);
        check_hvp(
            "leapfrog_energy",
            sample,
            &hess3(leapfrog_energy_hessian),
            &|x, t| {
                let (v, g, hv) = leapfrog_energy_hvp(x[0], x[1], x[2], (t[0], t[1], t[2]));
                (v, vec![g.0, g.1, g.2], vec![hv.0, hv.1, hv.2])
            },
        );
        check_vjp(
            "leapfrog_energy",
            sample,
            &|x| leapfrog_energy(x[0], x[1], x[2]),
            &|x, c| {
                let (v, g) = leapfrog_energy_vjp(x[0], x[1], x[2], c);
                (v, vec![g.0, g.1, g.2])
            },
        );
        // The integrator's Jacobian in (q0, p0, k, dt).
        let run = |x: &[f64]| {
            let mut s = vec![0.0; 2];
            ode::leapfrog(x[0], x[1], x[2], x[3], 7, &mut s);
            s
        };
        let sample = |r: &mut Lcg| {
            vec![
                r.uniform(-1.0, 1.0),
                r.uniform(-1.0, 1.0),
                r.uniform(0.3, 2.0),
                r.uniform(0.01, 0.2),
            ]
        };
        check_vector(
            "leapfrog",
            POINTS,
            sample,
            &run,
            &|x, c| {
                let mut s = vec![GARBAGE; 2];
                let g = ode::leapfrog_vjp(x[0], x[1], x[2], x[3], 7, &mut s, c);
                (s, vec![g.0, g.1, g.2, g.3])
            },
            &|x, t| {
                let (mut s, mut d) = (vec![GARBAGE; 2], vec![GARBAGE; 2]);
                ode::leapfrog_jvp(
                    x[0],
                    x[1],
                    x[2],
                    x[3],
                    7,
                    &mut s,
                    (t[0], t[1], t[2], t[3]),
                    &mut d,
                );
                (s, d)
            },
            Some(&|x| {
                let mut s = vec![GARBAGE; 2];
                ode::leapfrog_jacobian(x[0], x[1], x[2], x[3], 7, &mut s)
            }),
        );
    }

    #[test]
    fn heat_equation_steps() {
        let target = [0.0, 0.2, 0.5, 0.4, 0.1, 0.0];
        let f = |x: &[f64]| heat_loss(&x[..6], x[6], &target);
        let sample = |r: &mut Lcg| {
            let mut x = r.vec(6, -1.0, 1.0);
            x.push(r.uniform(0.05, 0.45));
            x
        };
        let flat = |a: Vec<f64>, b: f64| -> Flat { [a, vec![b]].concat() };
        Probe::new("heat_loss", f)
            .grad(|x| {
                let (v, (gu, ga)) = heat_loss_grad(&x[..6], x[6], &target);
                (v, flat(gu, ga))
            })
            .jvp(|x, t| heat_loss_jvp(&x[..6], x[6], &target, (t[..6].to_vec(), t[6])))
            .grad_into(|x| {
                let (mut gu, mut ga) = (vec![GARBAGE; 6], GARBAGE);
                let v = heat_loss_grad_into(&x[..6], x[6], &target, (&mut gu, &mut ga));
                (v, flat(gu, ga))
            })
            .hessian(|x| {
                let (v, (gu, ga), h) = heat_loss_hessian(&x[..6], x[6], &target);
                (v, flat(gu, ga), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "heat_loss",
            sample,
            &|x| {
                let (v, (gu, ga), h) = heat_loss_hessian(&x[..6], x[6], &target);
                (v, flat(gu, ga), h)
            },
            &|x, t| {
                let (v, (gu, ga), (hu, ha)) =
                    heat_loss_hvp(&x[..6], x[6], &target, (t[..6].to_vec(), t[6]));
                (v, flat(gu, ga), flat(hu, ha))
            },
        );
        check_vjp("heat_loss", sample, &f, &|x, c| {
            let (v, (gu, ga)) = heat_loss_vjp(&x[..6], x[6], &target, c);
            (v, flat(gu, ga))
        });
        // One step's Jacobian in (u, alpha).
        let step = |x: &[f64]| {
            let mut out = vec![0.0; 5];
            heat_step(&x[..5], x[5], &mut out);
            out
        };
        check_vector(
            "heat_step",
            POINTS,
            range(6, -1.0, 1.0),
            &step,
            &|x, c| {
                let mut out = vec![GARBAGE; 5];
                let (gu, ga) = heat_step_vjp(&x[..5], x[5], &mut out, c);
                (out, flat(gu, ga))
            },
            &|x, t| {
                let (mut out, mut d) = (vec![GARBAGE; 5], vec![GARBAGE; 5]);
                heat_step_jvp(&x[..5], x[5], &mut out, (t[..5].to_vec(), t[5]), &mut d);
                (out, d)
            },
            Some(&|x| {
                let mut out = vec![GARBAGE; 5];
                heat_step_jacobian(&x[..5], x[5], &mut out)
            }),
        );
    }

    fn points2(x: &[f64]) -> Vec<[f64; 2]> {
        x.chunks(2).map(|c| [c[0], c[1]]).collect()
    }

    fn flat2(p: &[[f64; 2]]) -> Flat {
        p.iter().flatten().copied().collect()
    }

    #[test]
    fn lennard_jones_with_a_cutoff() {
        let (eps, sigma) = (0.7, 0.5);
        let f = |x: &[f64]| lennard_jones(&points2(x), eps, sigma);
        // Five particles on a loose grid, some pairs beyond the cutoff (1.25), none at it.
        let sample = |r: &mut Lcg| loop {
            let mut x = r.vec(10, -0.15, 0.15);
            for b in 0..5 {
                x[2 * b] += (b % 3) as f64 * 0.6;
                x[2 * b + 1] += (b / 3) as f64 * 0.6;
            }
            let p = points2(&x);
            let ok = (0..5).all(|i| {
                (0..i).all(|j| {
                    let r = (p[i][0] - p[j][0]).hypot(p[i][1] - p[j][1]);
                    (r - 1.25).abs() > 1e-3
                })
            });
            if ok {
                break x;
            }
        };
        Probe::new("lennard_jones", f)
            .grad(|x| {
                let (v, g) = lennard_jones_grad(&points2(x), eps, sigma);
                (v, flat2(&g))
            })
            .jvp(|x, t| lennard_jones_jvp(&points2(x), eps, sigma, points2(t)))
            .grad_into(|x| {
                let mut g = vec![[GARBAGE; 2]; 5];
                let v = lennard_jones_grad_into(&points2(x), eps, sigma, &mut g);
                (v, flat2(&g))
            })
            .hessian(|x| {
                let (v, g, h) = lennard_jones_hessian(&points2(x), eps, sigma);
                (v, flat2(&g), h)
            })
            .analytic(|x| {
                let p = points2(x);
                let mut g = vec![0.0; 10];
                for i in 0..5 {
                    for j in i + 1..5 {
                        let (dx, dy) = (p[i][0] - p[j][0], p[i][1] - p[j][1]);
                        let r2 = dx * dx + dy * dy;
                        if r2 < 2.5 * 2.5 * sigma * sigma {
                            let s6 = (sigma * sigma / r2).powi(3);
                            // dE/dr2 = 4 eps (-6 s12 + 3 s6) / r2
                            let c = 4.0 * eps * (-6.0 * s6 * s6 + 3.0 * s6) / r2;
                            g[2 * i] += 2.0 * c * dx;
                            g[2 * i + 1] += 2.0 * c * dy;
                            g[2 * j] -= 2.0 * c * dx;
                            g[2 * j + 1] -= 2.0 * c * dy;
                        }
                    }
                }
                g
            })
            .run(POINTS, sample);
        check_hvp(
            "lennard_jones",
            sample,
            &|x| {
                let (v, g, h) = lennard_jones_hessian(&points2(x), eps, sigma);
                (v, flat2(&g), h)
            },
            &|x, t| {
                let (v, g, hv) = lennard_jones_hvp(&points2(x), eps, sigma, points2(t));
                (v, flat2(&g), flat2(&hv))
            },
        );
        check_vjp("lennard_jones", sample, &f, &|x, c| {
            let (v, g) = lennard_jones_vjp(&points2(x), eps, sigma, c);
            (v, flat2(&g))
        });
    }
}

mod machine_learning {
    use super::ml::*;
    use super::*;
    use autodiff::Differentiable;

    fn model() -> Model {
        Model {
            hidden: Dense {
                w: vec![0.0; 6],
                b: vec![0.0; 3],
                n_in: 2,
            },
            out: Dense {
                w: vec![0.0; 3],
                b: vec![0.0; 1],
                n_in: 3,
            },
        }
    }

    const XS: [[f64; 2]; 4] = [[0.5, -1.0], [1.5, 0.3], [-0.7, 0.8], [0.1, 0.1]];
    const YS: [f64; 4] = [0.3, -0.2, 0.6, 0.0];

    fn data() -> Vec<Vec<f64>> {
        XS.iter().map(|r| r.to_vec()).collect()
    }

    #[test]
    fn mlp_of_nested_layer_structs() {
        let shape = model();
        let xs = data();
        let m = |x: &[f64]| shape.from_flat(x);
        let f = |x: &[f64]| mlp_loss(&m(x), &xs, &YS);
        // Away from relu's kink is not needed: the model uses gelu and tanh.
        let sample = range(13, -1.0, 1.0);
        Probe::new("mlp_loss", f)
            .grad(|x| {
                let (v, g) = mlp_loss_grad(&m(x), &xs, &YS);
                (v, g.to_flat())
            })
            .jvp(|x, t| mlp_loss_jvp(&m(x), &xs, &YS, m(t)))
            .grad_into(|x| {
                let mut g = m(&[GARBAGE; 13]);
                let v = mlp_loss_grad_into(&m(x), &xs, &YS, &mut g);
                (v, g.to_flat())
            })
            .run(POINTS, sample);
        check_vjp("mlp_loss", range(13, -1.0, 1.0), &f, &|x, c| {
            let (v, g) = mlp_loss_vjp(&m(x), &xs, &YS, c);
            (v, g.to_flat())
        });
        // The gradient keeps the `#[no_grad]` shape fields.
        let (_, g) = mlp_loss_grad(&m(&[0.1; 13]), &xs, &YS);
        assert_eq!((g.hidden.n_in, g.out.n_in), (2, 3));
    }

    #[test]
    fn mlp_inline_at_order_two() {
        let shape = model();
        let xs = data();
        let m = |x: &[f64]| shape.from_flat(x);
        let f = |x: &[f64]| mlp_loss_inline(&m(x), &xs, &YS);
        // Away from the relu's kink at r = 0.5.
        let sample = |r: &mut Lcg| loop {
            let x = r.vec(13, -1.0, 1.0);
            let p = m(&x);
            let ok = xs
                .iter()
                .zip(&YS)
                .all(|(x, y)| (predict_inline(&p, x) - y - 0.5).abs() > 1e-3);
            if ok {
                break x;
            }
        };
        Probe::new("mlp_loss_inline", f)
            .grad(|x| {
                let (v, g) = mlp_loss_inline_grad(&m(x), &xs, &YS);
                (v, g.to_flat())
            })
            .jvp(|x, t| mlp_loss_inline_jvp(&m(x), &xs, &YS, m(t)))
            .grad_into(|x| {
                let mut g = m(&[GARBAGE; 13]);
                let v = mlp_loss_inline_grad_into(&m(x), &xs, &YS, &mut g);
                (v, g.to_flat())
            })
            .hessian(|x| {
                let (v, g, h) = mlp_loss_inline_hessian(&m(x), &xs, &YS);
                (v, g.to_flat(), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "mlp_loss_inline",
            sample,
            &|x| {
                let (v, g, h) = mlp_loss_inline_hessian(&m(x), &xs, &YS);
                (v, g.to_flat(), h)
            },
            &|x, t| {
                let (v, g, hv) = mlp_loss_inline_hvp(&m(x), &xs, &YS, m(t));
                (v, g.to_flat(), hv.to_flat())
            },
        );
        check_vjp("mlp_loss_inline", sample, &f, &|x, c| {
            let (v, g) = mlp_loss_inline_vjp(&m(x), &xs, &YS, c);
            (v, g.to_flat())
        });
        // Both spellings of the model agree on the value's gradient through `predict_inline`.
        let p = m(&[0.2; 13]);
        let (v, g) = predict_inline_grad(&p, &[0.5, -0.5]);
        let fd = fd_gradient(&|x| predict_inline(&m(x), &[0.5, -0.5]), &[0.2; 13]);
        assert_near(
            v,
            predict_inline(&p, &[0.5, -0.5]),
            1e-15,
            0.0,
            "predict_inline",
        );
        assert_vec_near(
            &g.0.to_flat(),
            &fd[..13],
            1e-6,
            "predict_inline's model gradient",
        );
    }

    #[test]
    fn attention_over_rows() {
        // q: 2x3, k: 4x3, v: 4.
        let split = |x: &[f64]| (rows(&x[..6], 3), rows(&x[6..18], 3), x[18..].to_vec());
        let flat = |a: Vec<Vec<f64>>, b: Vec<Vec<f64>>, c: Vec<f64>| -> Flat {
            [flatten(&a), flatten(&b), c].concat()
        };
        let f = |x: &[f64]| {
            let (q, k, v) = split(x);
            attention(&q, &k, &v)
        };
        let sample = range(22, -1.5, 1.5);
        Probe::new("attention", f)
            .grad(|x| {
                let (q, k, v) = split(x);
                let (val, (gq, gk, gv)) = attention_grad(&q, &k, &v);
                (val, flat(gq, gk, gv))
            })
            .jvp(|x, t| {
                let (q, k, v) = split(x);
                attention_jvp(&q, &k, &v, split(t))
            })
            .grad_into(|x| {
                let (q, k, v) = split(x);
                let (mut gq, mut gk, mut gv) = (
                    vec![vec![GARBAGE; 3]; 2],
                    vec![vec![GARBAGE; 3]; 4],
                    vec![GARBAGE; 4],
                );
                let val = attention_grad_into(&q, &k, &v, (&mut gq, &mut gk, &mut gv));
                (val, flat(gq, gk, gv))
            })
            .hessian(|x| {
                let (q, k, v) = split(x);
                let (val, (gq, gk, gv), h) = attention_hessian(&q, &k, &v);
                (val, flat(gq, gk, gv), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "attention",
            range(22, -1.5, 1.5),
            &|x| {
                let (q, k, v) = split(x);
                let (val, (gq, gk, gv), h) = attention_hessian(&q, &k, &v);
                (val, flat(gq, gk, gv), h)
            },
            &|x, t| {
                let (q, k, v) = split(x);
                let (val, (gq, gk, gv), (hq, hk, hv)) = attention_hvp(&q, &k, &v, split(t));
                (val, flat(gq, gk, gv), flat(hq, hk, hv))
            },
        );
        check_vjp("attention", range(22, -1.5, 1.5), &f, &|x, c| {
            let (q, k, v) = split(x);
            let (val, (gq, gk, gv)) = attention_vjp(&q, &k, &v, c);
            (val, flat(gq, gk, gv))
        });
    }

    #[test]
    fn soft_kmeans_assignment() {
        let pts: Vec<Vec<f64>> = vec![
            vec![0.0, 0.1],
            vec![1.0, 0.9],
            vec![-0.5, 1.2],
            vec![0.7, -0.4],
            vec![1.5, 1.5],
        ];
        let beta = 2.0;
        let f = |x: &[f64]| soft_kmeans(&rows(x, 2), &pts, beta);
        // Three centres, away from ties of the minimum distance.
        let sample = |r: &mut Lcg| loop {
            let x = r.vec(6, -1.0, 2.0);
            let c = rows(&x, 2);
            let ok = pts.iter().all(|p| {
                let mut d: Vec<f64> = c
                    .iter()
                    .map(|c| (c[0] - p[0]).powi(2) + (c[1] - p[1]).powi(2))
                    .collect();
                d.sort_by(|a, b| a.partial_cmp(b).unwrap());
                d[1] - d[0] > 1e-3
            });
            if ok {
                break x;
            }
        };
        Probe::new("soft_kmeans", f)
            .grad(|x| {
                let (v, g) = soft_kmeans_grad(&rows(x, 2), &pts, beta);
                (v, flatten(&g))
            })
            .jvp(|x, t| soft_kmeans_jvp(&rows(x, 2), &pts, beta, rows(t, 2)))
            .grad_into(|x| {
                let mut g = vec![vec![GARBAGE; 2]; 3];
                let v = soft_kmeans_grad_into(&rows(x, 2), &pts, beta, &mut g);
                (v, flatten(&g))
            })
            .hessian(|x| {
                let (v, g, h) = soft_kmeans_hessian(&rows(x, 2), &pts, beta);
                (v, flatten(&g), h)
            })
            .analytic(|x| {
                // d/dc of -ln(sum exp(-beta d_c)) / beta is the softmin weight times dd/dc.
                let c = rows(x, 2);
                let mut g = vec![0.0; 6];
                for p in &pts {
                    let d: Vec<f64> = c
                        .iter()
                        .map(|c| (c[0] - p[0]).powi(2) + (c[1] - p[1]).powi(2))
                        .collect();
                    let z: f64 = d.iter().map(|d| (-beta * d).exp()).sum();
                    for k in 0..3 {
                        let w = (-beta * d[k]).exp() / z;
                        g[2 * k] += w * 2.0 * (c[k][0] - p[0]);
                        g[2 * k + 1] += w * 2.0 * (c[k][1] - p[1]);
                    }
                }
                g
            })
            .run(POINTS, sample);
        check_hvp(
            "soft_kmeans",
            sample,
            &|x| {
                let (v, g, h) = soft_kmeans_hessian(&rows(x, 2), &pts, beta);
                (v, flatten(&g), h)
            },
            &|x, t| {
                let (v, g, hv) = soft_kmeans_hvp(&rows(x, 2), &pts, beta, rows(t, 2));
                (v, flatten(&g), flatten(&hv))
            },
        );
        check_vjp("soft_kmeans", sample, &f, &|x, c| {
            let (v, g) = soft_kmeans_vjp(&rows(x, 2), &pts, beta, c);
            (v, flatten(&g))
        });
    }

    #[test]
    fn matrix_factorisation() {
        let users = [0usize, 1, 2, 0, 2];
        let items = [1usize, 0, 1, 0, 2];
        let ratings = [4.0, 3.0, 5.0, 1.0, 2.0];
        let lambda = 0.05;
        // u: 3x2, v: 3x2.
        let split = |x: &[f64]| (rows(&x[..6], 2), rows(&x[6..], 2));
        let flat =
            |a: Vec<Vec<f64>>, b: Vec<Vec<f64>>| -> Flat { [flatten(&a), flatten(&b)].concat() };
        let f = |x: &[f64]| {
            let (u, v) = split(x);
            mf_loss(&u, &v, &users, &items, &ratings, lambda)
        };
        let sample = range(12, -2.0, 2.0);
        Probe::new("mf_loss", f)
            .grad(|x| {
                let (u, v) = split(x);
                let (val, (gu, gv)) = mf_loss_grad(&u, &v, &users, &items, &ratings, lambda);
                (val, flat(gu, gv))
            })
            .jvp(|x, t| {
                let (u, v) = split(x);
                mf_loss_jvp(&u, &v, &users, &items, &ratings, lambda, split(t))
            })
            .grad_into(|x| {
                let (u, v) = split(x);
                let (mut gu, mut gv) = (vec![vec![GARBAGE; 2]; 3], vec![vec![GARBAGE; 2]; 3]);
                let val =
                    mf_loss_grad_into(&u, &v, &users, &items, &ratings, lambda, (&mut gu, &mut gv));
                (val, flat(gu, gv))
            })
            .hessian(|x| {
                let (u, v) = split(x);
                let (val, (gu, gv), h) = mf_loss_hessian(&u, &v, &users, &items, &ratings, lambda);
                (val, flat(gu, gv), h)
            })
            .analytic(|x| {
                let (u, v) = split(x);
                let mut g = vec![0.0; 12];
                for t in 0..5 {
                    let (i, j) = (users[t], items[t]);
                    let e = 2.0 * (u[i][0] * v[j][0] + u[i][1] * v[j][1] - ratings[t]);
                    for k in 0..2 {
                        g[2 * i + k] += e * v[j][k];
                        g[6 + 2 * j + k] += e * u[i][k];
                    }
                }
                for (gi, xi) in g.iter_mut().zip(x) {
                    *gi += 2.0 * lambda * xi;
                }
                g
            })
            .run(POINTS, sample);
        check_hvp(
            "mf_loss",
            range(12, -2.0, 2.0),
            &|x| {
                let (u, v) = split(x);
                let (val, (gu, gv), h) = mf_loss_hessian(&u, &v, &users, &items, &ratings, lambda);
                (val, flat(gu, gv), h)
            },
            &|x, t| {
                let (u, v) = split(x);
                let (val, (gu, gv), (hu, hv)) =
                    mf_loss_hvp(&u, &v, &users, &items, &ratings, lambda, split(t));
                (val, flat(gu, gv), flat(hu, hv))
            },
        );
        check_vjp("mf_loss", range(12, -2.0, 2.0), &f, &|x, c| {
            let (u, v) = split(x);
            let (val, (gu, gv)) = mf_loss_vjp(&u, &v, &users, &items, &ratings, lambda, c);
            (val, flat(gu, gv))
        });
    }
}

mod numeric_methods {
    use super::numerics::*;
    use super::*;

    #[test]
    fn polynomial_fit_by_horner() {
        let ts = [-1.0, -0.4, 0.1, 0.6, 1.3];
        let ys = [0.5, -0.2, 0.3, 1.1, 2.0];
        let f = |x: &[f64]| poly_fit(x, &ts, &ys);
        let sample = range(4, -2.0, 2.0);
        Probe::new("poly_fit", f)
            .grad(|x| poly_fit_grad(x, &ts, &ys))
            .jvp(|x, t| poly_fit_jvp(x, &ts, &ys, t.to_vec()))
            .grad_into(|x| {
                let mut g = vec![GARBAGE; 4];
                let v = poly_fit_grad_into(x, &ts, &ys, &mut g);
                (v, g)
            })
            .hessian(|x| poly_fit_hessian(x, &ts, &ys))
            .analytic(|x| {
                let mut g = vec![0.0; 4];
                for (t, y) in ts.iter().zip(&ys) {
                    let p: f64 = x
                        .iter()
                        .enumerate()
                        .map(|(k, c)| c * t.powi(k as i32))
                        .sum();
                    for k in 0..4 {
                        g[k] += 2.0 * (p - y) * t.powi(k as i32);
                    }
                }
                g
            })
            .run(POINTS, sample);
        check_hvp(
            "poly_fit",
            range(4, -2.0, 2.0),
            &|x| poly_fit_hessian(x, &ts, &ys),
            &|x, t| poly_fit_hvp(x, &ts, &ys, t.to_vec()),
        );
        check_vjp("poly_fit", range(4, -2.0, 2.0), &f, &|x, c| {
            poly_fit_vjp(x, &ts, &ys, c)
        });
        // The Hessian of a least-squares fit is 2 VᵀV (V the Vandermonde matrix), whatever the coefficients.
        let (_, _, h) = poly_fit_hessian(&[0.3, -1.0, 0.2, 0.7], &ts, &ys);
        for i in 0..4 {
            for j in 0..4 {
                let e: f64 = ts.iter().map(|t| 2.0 * t.powi((i + j) as i32)).sum();
                assert_near(h[i][j], e, 1e-12, 1.0, "2 VᵀV");
            }
        }
    }

    #[test]
    fn kepler_by_newton() {
        let sample = |r: &mut Lcg| vec![r.uniform(0.1, 3.0), r.uniform(0.0, 0.7)];
        two("kepler", kepler, kepler_grad, kepler_jvp, kepler_grad_into)
            .hessian(hess2(kepler_hessian))
            .analytic(|x| {
                // Implicit differentiation of E - e sin E = M.
                let ea = kepler(x[0], x[1]);
                let den = 1.0 - x[1] * ea.cos();
                vec![1.0 / den, ea.sin() / den]
            })
            .run(POINTS, sample);
        check_hvp("kepler", sample, &hess2(kepler_hessian), &|x, t| {
            let (v, g, hv) = kepler_hvp(x[0], x[1], (t[0], t[1]));
            (v, vec![g.0, g.1], vec![hv.0, hv.1])
        });
        check_vjp("kepler", sample, &|x| kepler(x[0], x[1]), &|x, c| {
            let (v, g) = kepler_vjp(x[0], x[1], c);
            (v, vec![g.0, g.1])
        });
    }

    #[test]
    fn fixed_point_iteration() {
        let sample = |r: &mut Lcg| vec![r.uniform(-0.6, 0.6), r.uniform(-1.0, 1.0)];
        two(
            "fixed_point",
            fixed_point,
            fixed_point_grad,
            fixed_point_jvp,
            fixed_point_grad_into,
        )
        .hessian(hess2(fixed_point_hessian))
        .analytic(|x| {
            // x = b + a cos x: dx/da = cos x / (1 + a sin x), dx/db = 1 / (1 + a sin x).
            let v = fixed_point(x[0], x[1]);
            let den = 1.0 + x[0] * v.sin();
            vec![v.cos() / den, 1.0 / den]
        })
        .run(POINTS, sample);
        check_hvp(
            "fixed_point",
            sample,
            &hess2(fixed_point_hessian),
            &|x, t| {
                let (v, g, hv) = fixed_point_hvp(x[0], x[1], (t[0], t[1]));
                (v, vec![g.0, g.1], vec![hv.0, hv.1])
            },
        );
        check_vjp(
            "fixed_point",
            sample,
            &|x| fixed_point(x[0], x[1]),
            &|x, c| {
                let (v, g) = fixed_point_vjp(x[0], x[1], c);
                (v, vec![g.0, g.1])
            },
        );
    }

    #[test]
    fn simpson_and_trapezoid_quadrature() {
        let f = |x: &[f64]| quad_pair(&x[..3], x[3]);
        let sample = |r: &mut Lcg| {
            vec![
                r.uniform(-2.0, 2.0),
                r.uniform(0.1, 1.5),
                r.uniform(0.5, 4.0),
                r.uniform(0.5, 3.0),
            ]
        };
        let flat = |a: Vec<f64>, b: f64| -> Flat { [a, vec![b]].concat() };
        Probe::new("quad_pair", f)
            .grad(|x| {
                let (v, (gp, gb)) = quad_pair_grad(&x[..3], x[3]);
                (v, flat(gp, gb))
            })
            .jvp(|x, t| quad_pair_jvp(&x[..3], x[3], (t[..3].to_vec(), t[3])))
            .grad_into(|x| {
                let (mut gp, mut gb) = (vec![GARBAGE; 3], GARBAGE);
                let v = quad_pair_grad_into(&x[..3], x[3], (&mut gp, &mut gb));
                (v, flat(gp, gb))
            })
            .hessian(|x| {
                let (v, (gp, gb), h) = quad_pair_hessian(&x[..3], x[3]);
                (v, flat(gp, gb), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "quad_pair",
            sample,
            &|x| {
                let (v, (gp, gb), h) = quad_pair_hessian(&x[..3], x[3]);
                (v, flat(gp, gb), h)
            },
            &|x, t| {
                let (v, (gp, gb), (hp, hb)) = quad_pair_hvp(&x[..3], x[3], (t[..3].to_vec(), t[3]));
                (v, flat(gp, gb), flat(hp, hb))
            },
        );
        check_vjp("quad_pair", sample, &f, &|x, c| {
            let (v, (gp, gb)) = quad_pair_vjp(&x[..3], x[3], c);
            (v, flat(gp, gb))
        });
        // Simpson against the closed form of the integral, and its derivative in `b` the integrand at b.
        let p = [1.3, 0.4, 2.0];
        let b = 1.7;
        let exact = |b: f64| {
            let (a, w) = (p[1], p[2]);
            p[0] * ((-a * b).exp() * (w * (w * b).sin() - a * (w * b).cos()) + a) / (a * a + w * w)
        };
        assert_near(
            quad::simpson(&p, 0.0, b, 16),
            exact(b),
            1e-4,
            0.0,
            "simpson",
        );
        let (_, (_, _, gb)) = quad::simpson_grad(&p, 0.0, b, 16);
        assert_near(
            gb,
            quad::integrand(b, &p),
            1e-3,
            1.0,
            "d/db of the integral",
        );
    }
}

mod single_precision_and_generic {
    use super::numerics::*;
    use super::*;

    /// The f64 twins of the f32 programs, written plainly here: the oracles.
    fn poly_logistic_ref(x: &[f64]) -> f64 {
        let z = x[..4].iter().rev().fold(0.0, |acc, &c| acc * x[4] + c);
        1.0 / (1.0 + (-z).exp())
    }

    fn cbrt_ref(x: &[f64]) -> f64 {
        x[0].cbrt()
    }

    /// Gradient and Hessian of an f64 oracle by central differences (of central differences).
    fn fd_hessian(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<Flat> {
        fd_columns(&|y: &[f64]| fd_gradient(f, y), x)
    }

    #[track_caller]
    fn close32(a: f64, e: f64, scale: f64, what: &str) {
        assert_near(a, e, 2e-3, scale, what);
    }

    #[test]
    fn f32_polynomial_logistic() {
        let mut rng = Lcg::new(seed_of("poly_logistic32"));
        for _ in 0..POINTS {
            let x = rng.vec(5, -1.0, 1.0);
            let (c, t) = (to32(&x[..4]), x[4] as f32);
            let at = format!("poly_logistic32 at {x:?}");
            let (v, (gc, gt)) = poly_logistic32_grad(&c, t);
            let g = [to64(&gc), vec![gt as f64]].concat();
            close32(v as f64, poly_logistic_ref(&x), 0.0, &at);
            assert_vec_near(
                &g,
                &fd_gradient(&poly_logistic_ref, &x),
                2e-3,
                &format!("{at}: grad"),
            );
            let (mut ic, mut it) = (vec![f32::NAN; 4], f32::NAN);
            let iv = poly_logistic32_grad_into(&c, t, (&mut ic, &mut it));
            assert_eq!(iv, v);
            assert_eq!([to64(&ic), vec![it as f64]].concat(), g, "{at}: grad_into");
            let dir = rng.vec(5, -1.0, 1.0);
            let (jv, d) = poly_logistic32_jvp(&c, t, (to32(&dir[..4]), dir[4] as f32));
            assert_eq!(jv, v);
            close32(
                d as f64,
                dot(&g, &dir),
                norm(&g) * norm(&dir),
                &format!("{at}: jvp"),
            );
            let (vv, gg) = poly_logistic32_vjp(&c, t, 2.0);
            assert_eq!(vv, v);
            assert_vec_near(
                &[to64(&gg.0), vec![gg.1 as f64]].concat(),
                &g.iter().map(|d| 2.0 * d).collect::<Flat>(),
                1e-6,
                &format!("{at}: vjp"),
            );
            let (hv, hg, h) = poly_logistic32_hessian(&c, t);
            assert_eq!(hv, v);
            assert_vec_near(
                &[to64(&hg.0), vec![hg.1 as f64]].concat(),
                &g,
                1e-5,
                &format!("{at}: hessian's gradient"),
            );
            let e = fd_hessian(&poly_logistic_ref, &x);
            let scale = e.iter().map(|c| norm(c)).fold(0.0, f64::max);
            for i in 0..5 {
                for j in 0..5 {
                    close32(
                        h[i][j] as f64,
                        e[j][i],
                        scale,
                        &format!("{at}: H[{i}][{j}]"),
                    );
                }
            }
            let (_, _, (hc, ht)) = poly_logistic32_hvp(&c, t, (to32(&dir[..4]), dir[4] as f32));
            let hvec = [to64(&hc), vec![ht as f64]].concat();
            let expected: Flat = h.iter().map(|r| dot(&to64(r), &dir)).collect();
            assert_vec_near(&hvec, &expected, 1e-4, &format!("{at}: hvp"));
        }
    }

    #[test]
    fn f32_newton_cube_root() {
        let mut rng = Lcg::new(seed_of("cbrt_newton32"));
        for _ in 0..POINTS {
            let a = rng.uniform(0.2, 6.0);
            let at = format!("cbrt_newton32 at {a}");
            let (v, g) = cbrt_newton32_grad(a as f32);
            close32(v as f64, cbrt_ref(&[a]), 0.0, &at);
            // Converged Newton: the derivative of the root, 1 / (3 y^2).
            close32(
                g as f64,
                1.0 / (3.0 * a.cbrt().powi(2)),
                0.0,
                &format!("{at}: grad"),
            );
            let mut gi = f32::NAN;
            assert_eq!(cbrt_newton32_grad_into(a as f32, &mut gi), v);
            assert_eq!(gi, g);
            let (jv, jd) = cbrt_newton32_jvp(a as f32, 0.5);
            assert_eq!(jv, v);
            assert_near(jd as f64, 0.5 * g as f64, 1e-6, 0.0, &format!("{at}: jvp"));
            let d = cbrt_newton32_derivatives(a as f32);
            close32(
                d[2] as f64,
                -2.0 / 9.0 * a.powf(-5.0 / 3.0),
                0.0,
                &format!("{at}: second derivative"),
            );
            let (_, _, h) = cbrt_newton32_hessian(a as f32);
            assert_near(
                h[0][0] as f64,
                d[2] as f64,
                1e-6,
                0.0,
                &format!("{at}: hessian"),
            );
            let (_, _, hv) = cbrt_newton32_hvp(a as f32, 2.0);
            assert_near(
                hv as f64,
                2.0 * d[2] as f64,
                1e-6,
                0.0,
                &format!("{at}: hvp"),
            );
        }
    }

    #[test]
    fn generic_pseudo_huber_on_f64_f32_and_duals() {
        let f = |x: &[f64]| pseudo_huber_mean(&x[..4], x[4]);
        let sample = |r: &mut Lcg| {
            let mut x = r.vec(4, -3.0, 3.0);
            x.push(r.uniform(0.3, 2.0));
            x
        };
        let flat = |a: Vec<f64>, b: f64| -> Flat { [a, vec![b]].concat() };
        Probe::new("pseudo_huber_mean", f)
            .grad(|x| {
                let (v, (gr, gd)) = pseudo_huber_mean_grad(&x[..4], x[4]);
                (v, flat(gr, gd))
            })
            .jvp(|x, t| pseudo_huber_mean_jvp(&x[..4], x[4], (t[..4].to_vec(), t[4])))
            .grad_into(|x| {
                let (mut gr, mut gd) = (vec![GARBAGE; 4], GARBAGE);
                let v = pseudo_huber_mean_grad_into(&x[..4], x[4], (&mut gr, &mut gd));
                (v, flat(gr, gd))
            })
            .hessian(|x| {
                let (v, (gr, gd), h) = pseudo_huber_mean_hessian(&x[..4], x[4]);
                (v, flat(gr, gd), h)
            })
            .analytic(|x| {
                let d = x[4];
                let mut g: Flat = x[..4]
                    .iter()
                    .map(|r| r / (1.0 + (r / d).powi(2)).sqrt() / 4.0)
                    .collect();
                let gd: f64 = x[..4]
                    .iter()
                    .map(|r| {
                        let s = (1.0 + (r / d).powi(2)).sqrt();
                        2.0 * d * (s - 1.0) - r * r / (d * s)
                    })
                    .sum::<f64>()
                    / 4.0;
                g.push(gd);
                g
            })
            .run(POINTS, sample);
        check_hvp(
            "pseudo_huber_mean",
            sample,
            &|x| {
                let (v, (gr, gd), h) = pseudo_huber_mean_hessian(&x[..4], x[4]);
                (v, flat(gr, gd), h)
            },
            &|x, t| {
                let (v, (gr, gd), (hr, hd)) =
                    pseudo_huber_mean_hvp(&x[..4], x[4], (t[..4].to_vec(), t[4]));
                (v, flat(gr, gd), flat(hr, hd))
            },
        );
        check_vjp("pseudo_huber_mean", sample, &f, &|x, c| {
            let (v, (gr, gd)) = pseudo_huber_mean_vjp(&x[..4], x[4], c);
            (v, flat(gr, gd))
        });
        // f32 and Dual<f64> run the same generic items.
        let r = [0.5, -1.5, 2.0, 0.1];
        let (v64, (g64, d64)) = pseudo_huber_mean_grad(&r, 0.8);
        let (v32, (g32, d32)) = pseudo_huber_mean_grad(&to32(&r), 0.8f32);
        close32(v32 as f64, v64, 0.0, "f32 value");
        assert_vec_near(&to64(&g32), &g64, 1e-5, "f32 gradient");
        close32(d32 as f64, d64, 0.0, "f32 delta gradient");
        let duals: Vec<autodiff::Dual<f64>> =
            r.iter().map(|&v| autodiff::Dual::new(v, 1.0)).collect();
        let (vd, _) = pseudo_huber_mean_grad(&duals, autodiff::Dual::new(0.8, 0.0));
        assert_near(vd.re, v64, 1e-14, 0.0, "Dual value");
        assert_near(
            vd.eps,
            g64.iter().sum(),
            1e-12,
            0.0,
            "Dual tangent: the gradient summed",
        );
    }

    #[test]
    fn polyline_over_chunks() {
        let f = |x: &[f64]| polyline(&x[..8], x[8]);
        let sample = |r: &mut Lcg| {
            let mut x = r.vec(8, -2.0, 2.0);
            x.push(r.uniform(0.1, 1.0));
            x
        };
        let flat = |a: Vec<f64>, b: f64| -> Flat { [a, vec![b]].concat() };
        Probe::new("polyline", f)
            .grad(|x| {
                let (v, (gp, gt)) = polyline_grad(&x[..8], x[8]);
                (v, flat(gp, gt))
            })
            .jvp(|x, t| polyline_jvp(&x[..8], x[8], (t[..8].to_vec(), t[8])))
            .grad_into(|x| {
                let (mut gp, mut gt) = (vec![GARBAGE; 8], GARBAGE);
                let v = polyline_grad_into(&x[..8], x[8], (&mut gp, &mut gt));
                (v, flat(gp, gt))
            })
            .hessian(|x| {
                let (v, (gp, gt), h) = polyline_hessian(&x[..8], x[8]);
                (v, flat(gp, gt), h)
            })
            .analytic(|x| {
                let mut g = vec![0.0; 9];
                for k in 0..3 {
                    let (dx, dy) = (x[2 * k + 2] - x[2 * k], x[2 * k + 3] - x[2 * k + 1]);
                    let l = dx.hypot(dy);
                    g[2 * k] -= dx / l;
                    g[2 * k + 1] -= dy / l;
                    g[2 * k + 2] += dx / l;
                    g[2 * k + 3] += dy / l;
                }
                g[8] = 1.5 * x[8].exp_m1().sqrt() * x[8].exp();
                g
            })
            .run(POINTS, sample);
        check_hvp(
            "polyline",
            sample,
            &|x| {
                let (v, (gp, gt), h) = polyline_hessian(&x[..8], x[8]);
                (v, flat(gp, gt), h)
            },
            &|x, t| {
                let (v, (gp, gt), (hp, ht)) = polyline_hvp(&x[..8], x[8], (t[..8].to_vec(), t[8]));
                (v, flat(gp, gt), flat(hp, ht))
            },
        );
        check_vjp("polyline", sample, &f, &|x, c| {
            let (v, (gp, gt)) = polyline_vjp(&x[..8], x[8], c);
            (v, flat(gp, gt))
        });
    }

    #[test]
    fn kurtosis_through_a_tuple_helper() {
        let sample = range(6, -2.0, 2.0);
        slice(
            "kurtosis",
            kurtosis,
            kurtosis_grad,
            kurtosis_jvp,
            kurtosis_grad_into,
        )
        .hessian(hess_slice(kurtosis_hessian))
        .run(POINTS, sample);
        check_hvp(
            "kurtosis",
            range(6, -2.0, 2.0),
            &kurtosis_hessian,
            &|x, t| kurtosis_hvp(x, t.to_vec()),
        );
        check_vjp("kurtosis", range(6, -2.0, 2.0), &kurtosis, &kurtosis_vjp);
        // The tuple helper's vjp against its Jacobian by differences.
        check_vector(
            "moments",
            POINTS,
            range(5, -2.0, 2.0),
            &|x| {
                let (m, v) = moments(x);
                vec![m, v]
            },
            &|x, c| {
                let ((m, v), g) = moments_vjp(x, (c[0], c[1]));
                (vec![m, v], g)
            },
            &|x, t| {
                let ((m, v), (dm, dv)) = moments_jvp(x, t.to_vec());
                (vec![m, v], vec![dm, dv])
            },
            None,
        );
    }
}

/// The minimal programs of what this probe found failing, each checked against central differences.
mod found {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    fn by_ref(a: &[f64; 3]) -> f64 {
        a[0] * a[1] + a[2].sin()
    }

    #[differentiable]
    fn by_value(a: [f64; 3]) -> f64 {
        a[0] * a[2].exp() - a[1]
    }

    #[differentiable]
    fn of_slice(a: &[f64]) -> f64 {
        a[0] * a[1] + a[2].cos()
    }

    // A row of a matrix of `[f64; 3]` rows passed to a callee taking `&[f64; 3]`, `[f64; 3]` or `&[f64]`:
    // the row was a sub-slice of the flat matrix (rustc's E0308 at `&[f64; 3]` and `[f64; 3]`, and
    // `[f64; 3]: From<&[f64]>` for the tangent in `_jvp`), for each of the matrix's spellings.
    #[differentiable(order = 2)]
    fn rows_of_slice(pos: &[[f64; 3]]) -> f64 {
        by_ref(&pos[0]) * of_slice(&pos[1]) + by_value(pos[1])
    }

    #[differentiable(order = 2)]
    fn rows_of_array(pos: [[f64; 3]; 2]) -> f64 {
        by_ref(&pos[1]) * of_slice(&pos[0]) + by_value(pos[0])
    }

    #[differentiable(order = 2)]
    fn rows_of_vec(pos: Vec<[f64; 3]>) -> f64 {
        by_ref(&pos[0]) - of_slice(&pos[1]) * by_value(pos[1])
    }

    #[differentiable(order = 2)]
    fn rows_of_local(x: f64) -> f64 {
        let m = [[x, 1.0, 2.0], [x * x, x, 3.0]];
        by_ref(&m[0]) * of_slice(&m[1]) + by_value(m[1])
    }

    #[differentiable(order = 2)]
    fn rows_in_a_loop(pos: &[[f64; 3]]) -> f64 {
        let mut s = 0.0;
        for row in pos {
            s += by_ref(row);
        }
        for i in 0..pos.len() {
            let r = &pos[i];
            s += by_value(pos[i]) * of_slice(r);
        }
        s
    }

    // Plain `#[differentiable]` callees looping over `windows` and `chunks` (of a local `Vec`, of a
    // parameter), called from `order = 2`: they had no generic copy (the loops `for w in x.windows(k)`
    // desugars into count with `saturating_sub` and `usize::min`, which the copy's check refused).
    #[differentiable]
    fn over_windows(p: &[f64], n: usize) -> f64 {
        let ts = vec![1.5; n];
        let mut s = 0.0;
        for w in ts.windows(2) {
            s += w[0] * p[0] * w[1];
        }
        for w in p.windows(2) {
            s += (w[1] - w[0]).powi(2);
        }
        s
    }

    #[differentiable]
    fn over_chunks(p: &[f64]) -> f64 {
        let mut s = 0.0;
        for c in p.chunks(2) {
            s += c.len() as f64 * c[0].sin();
        }
        s
    }

    // Windows iterated by reference, summed by a chain, and by value: their copies take the floats
    // out of their references as for any slice.
    #[differentiable]
    fn window_elements(p: &[f64]) -> f64 {
        let mut s = 0.0;
        for w in p.windows(3) {
            s += w.iter().sum::<f64>() * w[2];
            for v in w {
                s += v * v * 0.5;
            }
            for &v in w {
                s += v.sin();
            }
        }
        s
    }

    #[differentiable(order = 2)]
    fn calls_window_loops(p: &[f64]) -> f64 {
        over_windows(p, 3) * over_chunks(p) + window_elements(p)
    }

    #[test]
    fn window_loops_in_callees_of_order_two() {
        slice(
            "calls_window_loops",
            calls_window_loops,
            calls_window_loops_grad,
            calls_window_loops_jvp,
            calls_window_loops_grad_into,
        )
        .hessian(hess_slice(calls_window_loops_hessian))
        .run(POINTS, range(5, -2.0, 2.0));
    }

    fn pts(x: &[f64]) -> Vec<[f64; 3]> {
        x.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
    }

    fn flat(p: &[[f64; 3]]) -> Flat {
        p.iter().flatten().copied().collect()
    }

    fn arr(x: &[f64]) -> [[f64; 3]; 2] {
        [[x[0], x[1], x[2]], [x[3], x[4], x[5]]]
    }

    #[test]
    fn rows_of_fixed_size_arrays_passed_to_calls() {
        type Items = (
            fn(&[[f64; 3]]) -> f64,
            fn(&[[f64; 3]]) -> (f64, Vec<[f64; 3]>),
            fn(&[[f64; 3]], Vec<[f64; 3]>) -> (f64, f64),
            fn(&[[f64; 3]], &mut [[f64; 3]]) -> f64,
            fn(&[[f64; 3]]) -> (f64, Vec<[f64; 3]>, Vec<Vec<f64>>),
        );
        let slices: [(&str, Items); 2] = [
            (
                "rows_of_slice",
                (
                    rows_of_slice,
                    rows_of_slice_grad,
                    rows_of_slice_jvp,
                    rows_of_slice_grad_into,
                    rows_of_slice_hessian,
                ),
            ),
            (
                "rows_in_a_loop",
                (
                    rows_in_a_loop,
                    rows_in_a_loop_grad,
                    rows_in_a_loop_jvp,
                    rows_in_a_loop_grad_into,
                    rows_in_a_loop_hessian,
                ),
            ),
        ];
        for (name, (f, g, j, gi, h)) in slices {
            Probe::new(name, move |x| f(&pts(x)))
                .grad(move |x| {
                    let (v, d) = g(&pts(x));
                    (v, flat(&d))
                })
                .jvp(move |x, t| j(&pts(x), pts(t)))
                .grad_into(move |x| {
                    let mut d = vec![[GARBAGE; 3]; 2];
                    let v = gi(&pts(x), &mut d);
                    (v, flat(&d))
                })
                .hessian(move |x| {
                    let (v, d, m) = h(&pts(x));
                    (v, flat(&d), m)
                })
                .run(POINTS, range(6, -2.0, 2.0));
        }
        Probe::new("rows_of_array", |x| rows_of_array(arr(x)))
            .grad(|x| {
                let (v, d) = rows_of_array_grad(arr(x));
                (v, flat(&d))
            })
            .jvp(|x, t| rows_of_array_jvp(arr(x), arr(t)))
            .grad_into(|x| {
                let mut d = [[GARBAGE; 3]; 2];
                let v = rows_of_array_grad_into(arr(x), &mut d);
                (v, flat(&d))
            })
            .hessian(|x| {
                let (v, d, m) = rows_of_array_hessian(arr(x));
                (v, flat(&d), m)
            })
            .run(POINTS, range(6, -2.0, 2.0));
        Probe::new("rows_of_vec", |x| rows_of_vec(pts(x)))
            .grad(|x| {
                let (v, d) = rows_of_vec_grad(pts(x));
                (v, flat(&d))
            })
            .jvp(|x, t| rows_of_vec_jvp(pts(x), pts(t)))
            .grad_into(|x| {
                let mut d = vec![[GARBAGE; 3]; 2];
                let v = rows_of_vec_grad_into(pts(x), &mut d);
                (v, flat(&d))
            })
            .hessian(|x| {
                let (v, d, m) = rows_of_vec_hessian(pts(x));
                (v, flat(&d), m)
            })
            .run(POINTS, range(6, -2.0, 2.0));
        one(
            "rows_of_local",
            rows_of_local,
            rows_of_local_grad,
            rows_of_local_jvp,
            rows_of_local_grad_into,
        )
        .hessian(hess1(rows_of_local_hessian, rows_of_local_derivatives))
        .run(POINTS, range(1, -2.0, 2.0));
    }
}

mod molecules {
    use super::physics::*;
    use super::*;

    fn pts(x: &[f64]) -> Vec<[f64; 3]> {
        x.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
    }

    fn flat(p: &[[f64; 3]]) -> Flat {
        p.iter().flatten().copied().collect()
    }

    #[test]
    fn bent_chain_of_rows_passed_on() {
        let (rest, theta0) = (1.1, 2.0);
        let f = |x: &[f64]| bent_chain(&pts(x), rest, theta0);
        // Four atoms roughly along a zigzag, no three collinear.
        let sample = |r: &mut Lcg| {
            let mut x = r.vec(12, -0.2, 0.2);
            for b in 0..4 {
                x[3 * b] += b as f64;
                x[3 * b + 1] += (b % 2) as f64 * 0.8;
            }
            x
        };
        Probe::new("bent_chain", f)
            .grad(|x| {
                let (v, g) = bent_chain_grad(&pts(x), rest, theta0);
                (v, flat(&g))
            })
            .jvp(|x, t| bent_chain_jvp(&pts(x), rest, theta0, pts(t)))
            .grad_into(|x| {
                let mut g = vec![[GARBAGE; 3]; 4];
                let v = bent_chain_grad_into(&pts(x), rest, theta0, &mut g);
                (v, flat(&g))
            })
            .hessian(|x| {
                let (v, g, h) = bent_chain_hessian(&pts(x), rest, theta0);
                (v, flat(&g), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "bent_chain",
            sample,
            &|x| {
                let (v, g, h) = bent_chain_hessian(&pts(x), rest, theta0);
                (v, flat(&g), h)
            },
            &|x, t| {
                let (v, g, hv) = bent_chain_hvp(&pts(x), rest, theta0, pts(t));
                (v, flat(&g), flat(&hv))
            },
        );
        check_vjp("bent_chain", sample, &f, &|x, c| {
            let (v, g) = bent_chain_vjp(&pts(x), rest, theta0, c);
            (v, flat(&g))
        });
    }
}

mod extra_programs {
    use super::extra::*;
    use super::*;

    #[test]
    fn tempered_log_sum_exp_through_a_generic_helper() {
        let f = |x: &[f64]| tempered_lse(&x[..5], x[5]);
        // Temperatures inside the clamp, scores without ties of the max or min.
        let sample = |r: &mut Lcg| {
            let mut x = distinct(5, -3.0, 3.0, 1e-2)(r);
            x.push(r.uniform(0.3, 5.0));
            x
        };
        let flat = |a: Vec<f64>, b: f64| -> Flat { [a, vec![b]].concat() };
        Probe::new("tempered_lse", f)
            .grad(|x| {
                let (v, (gs, gt)) = tempered_lse_grad(&x[..5], x[5]);
                (v, flat(gs, gt))
            })
            .jvp(|x, t| tempered_lse_jvp(&x[..5], x[5], (t[..5].to_vec(), t[5])))
            .grad_into(|x| {
                let (mut gs, mut gt) = (vec![GARBAGE; 5], GARBAGE);
                let v = tempered_lse_grad_into(&x[..5], x[5], (&mut gs, &mut gt));
                (v, flat(gs, gt))
            })
            .hessian(|x| {
                let (v, (gs, gt), h) = tempered_lse_hessian(&x[..5], x[5]);
                (v, flat(gs, gt), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "tempered_lse",
            sample,
            &|x| {
                let (v, (gs, gt), h) = tempered_lse_hessian(&x[..5], x[5]);
                (v, flat(gs, gt), h)
            },
            &|x, t| {
                let (v, (gs, gt), (hs, ht)) =
                    tempered_lse_hvp(&x[..5], x[5], (t[..5].to_vec(), t[5]));
                (v, flat(gs, gt), flat(hs, ht))
            },
        );
        check_vjp("tempered_lse", sample, &f, &|x, c| {
            let (v, (gs, gt)) = tempered_lse_vjp(&x[..5], x[5], c);
            (v, flat(gs, gt))
        });
        // Outside the clamp the temperature has no derivative.
        let (_, (_, gt)) = tempered_lse_grad(&[0.1, 0.5, -0.3, 1.0, 2.0], 20.0);
        assert_eq!(gt, 0.0);
    }

    #[test]
    fn polynomial_root_by_newton_on_a_tuple_helper() {
        // (x - r1)(x - r2)(x - r3) near r1 = 1 from x0 = 1.3: the root moves with the coefficients as
        // dr/dc_k = -r^k / p'(r).
        let x0 = 1.3;
        let sample = |r: &mut Lcg| {
            let (a, b, c) = (
                r.uniform(0.8, 1.2),
                r.uniform(-2.5, -1.5),
                r.uniform(3.0, 4.0),
            );
            vec![-a * b * c, a * b + b * c + a * c, -(a + b + c), 1.0]
        };
        let f = |x: &[f64]| poly_root(x, x0);
        Probe::new("poly_root", f)
            .grad(|x| poly_root_grad(x, x0))
            .jvp(|x, t| poly_root_jvp(x, x0, t.to_vec()))
            .grad_into(|x| {
                let mut g = vec![GARBAGE; 4];
                let v = poly_root_grad_into(x, x0, &mut g);
                (v, g)
            })
            .hessian(|x| poly_root_hessian(x, x0))
            .analytic(|x| {
                let r = poly_root(x, x0);
                let dp: f64 = (1..4).map(|k| k as f64 * x[k] * r.powi(k as i32 - 1)).sum();
                (0..4).map(|k: i32| -r.powi(k) / dp).collect()
            })
            .run(POINTS, sample);
        check_hvp(
            "poly_root",
            sample,
            &|x| poly_root_hessian(x, x0),
            &|x, t| poly_root_hvp(x, x0, t.to_vec()),
        );
        check_vjp("poly_root", sample, &f, &|x, c| poly_root_vjp(x, x0, c));
    }

    #[test]
    fn mesh_area_over_exact_chunks() {
        let sample = range(18, -1.0, 1.0);
        slice(
            "mesh_area",
            mesh_area,
            mesh_area_grad,
            mesh_area_jvp,
            mesh_area_grad_into,
        )
        .hessian(hess_slice(mesh_area_hessian))
        .run(POINTS, sample);
        check_hvp(
            "mesh_area",
            range(18, -1.0, 1.0),
            &mesh_area_hessian,
            &|x, t| mesh_area_hvp(x, t.to_vec()),
        );
        check_vjp(
            "mesh_area",
            range(18, -1.0, 1.0),
            &mesh_area,
            &mesh_area_vjp,
        );
        // A right triangle, and trailing values that make no whole triangle are left out. (A triangle
        // in a coordinate plane has `cx.hypot(cy)` at `(0, 0)`: NaN by docs/conventions.md.)
        let tri = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 5.0];
        let (a, g) = mesh_area_grad(&tri);
        assert_near(a, 0.5 * 2.0_f64.sqrt(), 1e-15, 0.0, "right triangle");
        assert_eq!(g[9], 0.0);
        assert_vec_near(
            &g,
            &fd_gradient(&mesh_area, &tri),
            1e-6,
            "right triangle's gradient",
        );
    }

    #[test]
    fn weighted_smooth_l1_with_labels() {
        let target = [0.3, -0.8, 1.5, 0.0, 2.2];
        let signs = [1i8, -1, 0, 1, -1];
        let f = |x: &[f64]| weighted_smooth_l1(x, &target, &signs);
        // Away from the kinks |p - t| = beta.
        let sample = |r: &mut Lcg| loop {
            let x = r.vec(5, -3.0, 3.0);
            let ok = (0..5).all(|i| {
                let t = match signs[i] {
                    -1 => -target[i],
                    0 => 0.0,
                    _ => target[i],
                };
                ((x[i] - t).abs() - 0.5).abs() > 1e-3
            });
            if ok {
                break x;
            }
        };
        Probe::new("weighted_smooth_l1", f)
            .grad(|x| weighted_smooth_l1_grad(x, &target, &signs))
            .jvp(|x, t| weighted_smooth_l1_jvp(x, &target, &signs, t.to_vec()))
            .grad_into(|x| {
                let mut g = vec![GARBAGE; 5];
                let v = weighted_smooth_l1_grad_into(x, &target, &signs, &mut g);
                (v, g)
            })
            .hessian(|x| weighted_smooth_l1_hessian(x, &target, &signs))
            .run(POINTS, sample);
        check_hvp(
            "weighted_smooth_l1",
            sample,
            &|x| weighted_smooth_l1_hessian(x, &target, &signs),
            &|x, t| weighted_smooth_l1_hvp(x, &target, &signs, t.to_vec()),
        );
        check_vjp("weighted_smooth_l1", sample, &f, &|x, c| {
            weighted_smooth_l1_vjp(x, &target, &signs, c)
        });
        let (v, g) = weighted_smooth_l1_grad(&[], &[], &[]);
        assert_eq!((v, g.len()), (0.0, 0));
    }

    #[test]
    fn pendulum_through_an_in_place_integrator() {
        let f = |x: &[f64]| pendulum_energy(&x[..2], &x[2..4], x[4]);
        let sample = |r: &mut Lcg| {
            let mut x = r.vec(4, -1.0, 1.0);
            x.push(r.uniform(0.5, 3.0));
            x
        };
        let flat = |a: Vec<f64>, b: Vec<f64>, c: f64| -> Flat { [a, b, vec![c]].concat() };
        Probe::new("pendulum_energy", f)
            .grad(|x| {
                let (v, (gq, gp, gk)) = pendulum_energy_grad(&x[..2], &x[2..4], x[4]);
                (v, flat(gq, gp, gk))
            })
            .jvp(|x, t| {
                pendulum_energy_jvp(
                    &x[..2],
                    &x[2..4],
                    x[4],
                    (t[..2].to_vec(), t[2..4].to_vec(), t[4]),
                )
            })
            .grad_into(|x| {
                let (mut gq, mut gp, mut gk) = (vec![GARBAGE; 2], vec![GARBAGE; 2], GARBAGE);
                let v =
                    pendulum_energy_grad_into(&x[..2], &x[2..4], x[4], (&mut gq, &mut gp, &mut gk));
                (v, flat(gq, gp, gk))
            })
            .hessian(|x| {
                let (v, (gq, gp, gk), h) = pendulum_energy_hessian(&x[..2], &x[2..4], x[4]);
                (v, flat(gq, gp, gk), h)
            })
            .run(POINTS, sample);
        check_hvp(
            "pendulum_energy",
            sample,
            &|x| {
                let (v, (gq, gp, gk), h) = pendulum_energy_hessian(&x[..2], &x[2..4], x[4]);
                (v, flat(gq, gp, gk), h)
            },
            &|x, t| {
                let (v, (gq, gp, gk), (hq, hp, hk)) = pendulum_energy_hvp(
                    &x[..2],
                    &x[2..4],
                    x[4],
                    (t[..2].to_vec(), t[2..4].to_vec(), t[4]),
                );
                (v, flat(gq, gp, gk), flat(hq, hp, hk))
            },
        );
        check_vjp("pendulum_energy", sample, &f, &|x, c| {
            let (v, (gq, gp, gk)) = pendulum_energy_vjp(&x[..2], &x[2..4], x[4], c);
            (v, flat(gq, gp, gk))
        });
        // The in-place integrator's own vjp: its outputs' incoming values are inputs.
        let run = |x: &[f64]| {
            let (mut q, mut p) = (x[..2].to_vec(), x[2..4].to_vec());
            verlet_in_place(&mut q, &mut p, x[4], 0.05, 6);
            [q, p].concat()
        };
        check_vector(
            "verlet_in_place",
            POINTS,
            sample,
            &run,
            &|x, c| {
                let (mut q, mut p) = (x[..2].to_vec(), x[2..4].to_vec());
                let (gq, gp, gk, _gdt) =
                    verlet_in_place_vjp(&mut q, &mut p, x[4], 0.05, 6, &c[..2], &c[2..]);
                ([q, p].concat(), flat(gq, gp, gk))
            },
            &|x, t| {
                let (mut q, mut p) = (x[..2].to_vec(), x[2..4].to_vec());
                let (mut dq, mut dp) = (vec![GARBAGE; 2], vec![GARBAGE; 2]);
                verlet_in_place_jvp(
                    &mut q,
                    &mut p,
                    x[4],
                    0.05,
                    6,
                    (t[..2].to_vec(), t[2..4].to_vec(), t[4], 0.0),
                    &mut dq,
                    &mut dp,
                );
                ([q, p].concat(), [dq, dp].concat())
            },
            None,
        );
    }
}

/// A struct passed on whole by an `order = 2` function to a plain callee that iterates a field by
/// reference (`tests/ui/signature/order-struct-callee-without-copy.rs` before): the callee's copy over the
/// struct's values view reads the field as a window of floats, and the Hessian is right.
mod struct_callee {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Differentiable)]
    struct Weights {
        w: Vec<f64>,
    }

    #[differentiable]
    fn total(p: &Weights, x: f64) -> f64 {
        let mut s = 0.0;
        for v in p.w.iter() {
            s += v * x;
        }
        s
    }

    #[differentiable(order = 2)]
    fn squared(p: &Weights, x: f64) -> f64 {
        let y = total(p, x);
        y * y * x.sin()
    }

    #[test]
    fn field_iterated_by_reference_in_a_callee() {
        let shape = Weights { w: vec![0.0; 3] };
        let split = |x: &[f64]| (shape.from_flat(&x[..3]), x[3]);
        Probe::new("squared", |x| {
            let (p, t) = split(x);
            squared(&p, t)
        })
        .grad(|x| {
            let (p, t) = split(x);
            let (v, (gp, gt)) = squared_grad(&p, t);
            (v, [gp.to_flat(), vec![gt]].concat())
        })
        .hessian(|x| {
            let (p, t) = split(x);
            let (v, (gp, gt), h) = squared_hessian(&p, t);
            (v, [gp.to_flat(), vec![gt]].concat(), h)
        })
        .run(POINTS, range(4, -2.0, 2.0));
    }
}
