//! An outside probe of numeric code as users of numeric Rust crates write it:
//!
//! - the optimisation test functions of argmin_testfunctions (ackley, beale, booth, goldstein-price,
//!   himmelblau, levy, matyas, mccorkindale, picheny, rastrigin, rosenbrock n-d, sphere, styblinski-tang,
//!   three-hump camel, zakharov, griewank, schwefel, dixon-price) over `&[f64]`, `[f64; 2]` and `&[f64; 2]`,
//!   unpacked by `let [x1, x2] = *param;`, in argmin's generic style (`T: Float + FromPrimitive`, `where`
//!   clauses with `Sum`) and with `.iter().map().sum()`, `fold`, `product`, `zip(.. .skip(1))`,
//!   `windows(2)`, sub-slices, closures and `mul_add`;
//! - statistics: normal and Student-t log-likelihoods, logistic regression with `bool` and `usize`
//!   labels over `&[Vec<f64>]` rows, Poisson and softmax regression with a stable log-sum-exp, lasso and
//!   hinge losses, a Kalman step writing two output parameters, a Kalman likelihood writing the filtered
//!   states, an in-place scalar Kalman update, Welford's variance;
//! - physics: n-body potentials over `&[[f64; 3]]`, points iterated in pairs and unpacked by `for &[x, y]`,
//!   a spring chain, RK4 and leapfrog integrators calling right-hand sides with output parameters (and their
//!   `f_jacobian`), velocity Verlet over `Vec<[f64; 3]>` locals, Newton's iteration, in-place Euler steps;
//! - small ML: MLPs over `#[derive(Differentiable)]` structs with flat, `Vec<Vec<f64>>` and `[[f64; 2]; 3]`
//!   weights, trained by Adam through `f_grad_into` and `optim::Adam`;
//! - the minimal programs of what the probe found failing (`found`, `matrix_fields`).
//!
//! Every derivative is checked against central differences (`common::probe`) and, where short, a formula
//! worked out by hand, at many seeded points: `f_grad`, `f_vjp` (a random cotangent), `f_jvp` against the
//! gradient, `f_grad_into` with its buffers filled with NaN first, `f_jacobian`, and `f_hessian` of
//! `order = 2` against central differences of `f_grad`.

// The forms numeric code is written in: index loops, an output `&mut Vec<f64>`, `vec![..]` of rows,
// Kalman steps with many parameters; the probe's function-pointer types spell out the generated signatures.
#![allow(
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::too_many_arguments,
    clippy::ptr_arg,
    clippy::useless_vec
)]

mod common;

use common::probe::*;

// ---------------------------------------------------------------------------------------------------
// Optimisation test functions (the argmin_testfunctions set), over slices and over `[f64; 2]`.
// ---------------------------------------------------------------------------------------------------

pub mod testfns {
    use autodiff::differentiable;
    use std::f64::consts::{E, PI};

    /// Ackley with its usual constants, over any dimension.
    #[differentiable(order = 2)]
    pub fn ackley(param: &[f64]) -> f64 {
        let (a, b, c) = (20.0, 0.2, 2.0 * PI);
        let n = param.len() as f64;
        let sum_sq: f64 = param.iter().map(|x| x.powi(2)).sum();
        let sum_cos: f64 = param.iter().map(|x| (c * x).cos()).sum();
        -a * (-b * (sum_sq / n).sqrt()).exp() - (sum_cos / n).exp() + a + E
    }

    /// Beale, destructuring an array parameter.
    #[differentiable(order = 2)]
    pub fn beale(param: [f64; 2]) -> f64 {
        let [x1, x2] = param;
        (1.5 - x1 + x1 * x2).powi(2)
            + (2.25 - x1 + x1 * x2.powi(2)).powi(2)
            + (2.625 - x1 + x1 * x2.powi(3)).powi(2)
    }

    /// Booth over a reference to an array.
    #[differentiable(order = 2)]
    pub fn booth(param: &[f64; 2]) -> f64 {
        let x1 = param[0];
        let x2 = param[1];
        (x1 + 2.0 * x2 - 7.0).powi(2) + (2.0 * x1 + x2 - 5.0).powi(2)
    }

    /// Goldstein-Price.
    #[differentiable(order = 2)]
    pub fn goldsteinprice(param: &[f64; 2]) -> f64 {
        let [x1, x2] = *param;
        let a = 1.0
            + (x1 + x2 + 1.0).powi(2)
                * (19.0 - 14.0 * x1 + 3.0 * x1.powi(2) - 14.0 * x2
                    + 6.0 * x1 * x2
                    + 3.0 * x2.powi(2));
        let b = 30.0
            + (2.0 * x1 - 3.0 * x2).powi(2)
                * (18.0 - 32.0 * x1 + 12.0 * x1.powi(2) + 48.0 * x2 - 36.0 * x1 * x2
                    + 27.0 * x2.powi(2));
        a * b
    }

    /// Himmelblau over a slice.
    #[differentiable(order = 2)]
    pub fn himmelblau(param: &[f64]) -> f64 {
        let (x1, x2) = (param[0], param[1]);
        (x1.powi(2) + x2 - 11.0).powi(2) + (x1 + x2.powi(2) - 7.0).powi(2)
    }

    /// Levy, n-dimensional, through `w_i = 1 + (x_i - 1) / 4`.
    #[differentiable]
    pub fn levy(param: &[f64]) -> f64 {
        let n = param.len();
        let w = |x: f64| 1.0 + (x - 1.0) / 4.0;
        let w1 = w(param[0]);
        let wn = w(param[n - 1]);
        let mut sum = (PI * w1).sin().powi(2);
        for i in 0..n - 1 {
            let wi = w(param[i]);
            sum += (wi - 1.0).powi(2) * (1.0 + 10.0 * (PI * wi + 1.0).sin().powi(2));
        }
        sum + (wn - 1.0).powi(2) * (1.0 + (2.0 * PI * wn).sin().powi(2))
    }

    /// Matyas over a tuple destructured from an array.
    #[differentiable(order = 2)]
    pub fn matyas(param: [f64; 2]) -> f64 {
        let (x1, x2) = (param[0], param[1]);
        0.26 * (x1.powi(2) + x2.powi(2)) - 0.48 * x1 * x2
    }

    /// McCormick (argmin spells it `mccorkindale`).
    #[differentiable(order = 2)]
    pub fn mccorkindale(param: &[f64; 2]) -> f64 {
        let [x1, x2] = *param;
        (x1 + x2).sin() + (x1 - x2).powi(2) - 1.5 * x1 + 2.5 * x2 + 1.0
    }

    /// Picheny: the log-scaled Goldstein-Price on `[0, 1]^2`, calling another differentiable function.
    #[differentiable]
    pub fn picheny(param: &[f64; 2]) -> f64 {
        let scaled = [4.0 * param[0] - 2.0, 4.0 * param[1] - 2.0];
        (1.0 / 2.427) * (goldsteinprice(&scaled).ln() - 8.693)
    }

    /// Rastrigin with the constant `a` as an inactive parameter.
    #[differentiable(order = 2)]
    pub fn rastrigin_a(param: &[f64], a: f64) -> f64 {
        a * param.len() as f64
            + param
                .iter()
                .map(|&x| x.powi(2) - a * (2.0 * PI * x).cos())
                .sum::<f64>()
    }

    /// Rastrigin through a fold.
    #[differentiable]
    pub fn rastrigin(param: &[f64]) -> f64 {
        param.iter().fold(10.0 * param.len() as f64, |acc, x| {
            acc + x * x - 10.0 * (2.0 * PI * x).cos()
        })
    }

    /// Rosenbrock n-d over consecutive pairs, `zip` with `skip(1)`.
    #[differentiable(order = 2)]
    pub fn rosenbrock(param: &[f64]) -> f64 {
        param
            .iter()
            .zip(param.iter().skip(1))
            .map(|(&xi, &xi1)| (1.0 - xi).powi(2) + 100.0 * (xi1 - xi.powi(2)).powi(2))
            .sum()
    }

    /// Rosenbrock n-d over `windows(2)` with its constants as parameters.
    #[differentiable(wrt(param))]
    pub fn rosenbrock_ab(param: &[f64], a: f64, b: f64) -> f64 {
        param
            .windows(2)
            .map(|w| (a - w[0]).powi(2) + b * (w[1] - w[0] * w[0]).powi(2))
            .sum()
    }

    /// Sphere.
    #[differentiable(order = 2)]
    pub fn sphere(param: &[f64]) -> f64 {
        param.iter().map(|x| x.powi(2)).sum()
    }

    /// Styblinski-Tang, with `sum::<f64>()` and a division after.
    #[differentiable(order = 2)]
    pub fn styblinski_tang(param: &[f64]) -> f64 {
        0.5 * param
            .iter()
            .map(|x| x.powi(4) - 16.0 * x.powi(2) + 5.0 * x)
            .sum::<f64>()
    }

    /// The three-hump camel.
    #[differentiable(order = 2)]
    pub fn threehumpcamel(param: &[f64; 2]) -> f64 {
        let [x1, x2] = *param;
        2.0 * x1.powi(2) - 1.05 * x1.powi(4) + x1.powi(6) / 6.0 + x1 * x2 + x2.powi(2)
    }

    /// Zakharov with `enumerate` and the index as a weight.
    #[differentiable(order = 2)]
    pub fn zakharov(param: &[f64]) -> f64 {
        let sum1: f64 = param.iter().map(|x| x.powi(2)).sum();
        let sum2: f64 = param
            .iter()
            .enumerate()
            .map(|(i, x)| 0.5 * ((i + 1) as f64) * x)
            .sum();
        sum1 + sum2.powi(2) + sum2.powi(4)
    }
}

// ---------------------------------------------------------------------------------------------------
// Statistics: log-densities, negative log-likelihoods, a Kalman step, Welford's variance.
// ---------------------------------------------------------------------------------------------------

pub mod stats {
    use autodiff::differentiable;
    use std::f64::consts::PI;

    /// The normal log-density in `x`, `mu` and `sigma`.
    #[differentiable(order = 2)]
    pub fn normal_logpdf(x: f64, mu: f64, sigma: f64) -> f64 {
        let z = (x - mu) / sigma;
        -0.5 * z * z - sigma.ln() - 0.5 * (2.0 * PI).ln()
    }

    /// The normal negative log-likelihood of data in `theta = [mu, log_sigma]`.
    #[differentiable(wrt(theta), order = 2)]
    pub fn normal_nll(theta: &[f64; 2], data: &[f64]) -> f64 {
        let mu = theta[0];
        let log_sigma = theta[1];
        let inv_var = (-2.0 * log_sigma).exp();
        let n = data.len() as f64;
        let ss: f64 = data.iter().map(|&x| (x - mu).powi(2)).sum();
        0.5 * inv_var * ss + n * log_sigma + 0.5 * n * (2.0 * PI).ln()
    }

    /// The Student-t negative log-likelihood without its `ln_gamma` constant, `nu` fixed.
    #[differentiable(wrt(loc, log_scale))]
    pub fn student_t_nll(loc: f64, log_scale: f64, data: &[f64], nu: f64) -> f64 {
        let scale = log_scale.exp();
        let mut nll = 0.0;
        for &x in data {
            let z = (x - loc) / scale;
            nll += 0.5 * (nu + 1.0) * (1.0 + z * z / nu).ln() + log_scale;
        }
        nll
    }

    /// `ln(1 + e^z)` without overflow.
    #[differentiable]
    pub fn softplus(z: f64) -> f64 {
        if z > 0.0 {
            z + (-z).exp().ln_1p()
        } else {
            z.exp().ln_1p()
        }
    }

    /// Logistic regression with `bool` labels and rows of features; an L2 penalty.
    #[differentiable(wrt(w), order = 2)]
    pub fn logreg_nll(w: &[f64], xs: &[Vec<f64>], ys: &[bool], lambda: f64) -> f64 {
        let mut loss = 0.0;
        for (x, &y) in xs.iter().zip(ys) {
            let z: f64 = x.iter().zip(w).map(|(a, b)| a * b).sum();
            loss += if y { softplus(-z) } else { softplus(z) };
        }
        loss / xs.len() as f64 + 0.5 * lambda * w.iter().map(|v| v * v).sum::<f64>()
    }

    /// Logistic regression with a bias, `usize` labels and indexed loops.
    #[differentiable(wrt(w, b))]
    pub fn logreg_indexed(w: &[f64], b: f64, xs: &[Vec<f64>], labels: &[usize]) -> f64 {
        let mut loss = 0.0;
        for i in 0..xs.len() {
            let mut z = b;
            for j in 0..w.len() {
                z += w[j] * xs[i][j];
            }
            let p = 1.0 / (1.0 + (-z).exp());
            let y = labels[i] as f64;
            loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        }
        loss
    }

    /// Poisson regression: `sum(exp(eta) - y eta)` with integer counts.
    #[differentiable(wrt(beta), order = 2)]
    pub fn poisson_nll(beta: &[f64], xs: &[Vec<f64>], counts: &[u32]) -> f64 {
        xs.iter()
            .zip(counts)
            .map(|(x, &y)| {
                let eta: f64 = beta.iter().zip(x.iter()).map(|(b, v)| b * v).sum();
                eta.exp() - y as f64 * eta
            })
            .sum()
    }

    /// The stable log-sum-exp.
    #[differentiable]
    pub fn logsumexp(z: &[f64]) -> f64 {
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
    }

    /// Softmax regression: a weight matrix (a row per class), rows of features, class labels.
    #[differentiable(wrt(w))]
    pub fn softmax_nll(w: &[Vec<f64>], xs: &[Vec<f64>], labels: &[usize]) -> f64 {
        let k = w.len();
        let mut logits = vec![0.0; k];
        let mut loss = 0.0;
        for (x, &label) in xs.iter().zip(labels.iter()) {
            for c in 0..k {
                logits[c] = w[c].iter().zip(x).map(|(a, b)| a * b).sum();
            }
            loss += logsumexp(&logits) - logits[label];
        }
        loss / xs.len() as f64
    }

    /// One step of a constant-velocity Kalman filter: the state `x = [pos, vel]` and its covariance
    /// `p = [p00, p01, p10, p11]` predicted and updated by a position measurement `z`; the results go to
    /// output parameters.
    #[differentiable(wrt(x, p, z))]
    pub fn kalman_step(
        x: &[f64],
        p: &[f64],
        z: f64,
        dt: f64,
        q: f64,
        r: f64,
        x_out: &mut [f64],
        p_out: &mut [f64],
    ) {
        // Predict.
        let xp0 = x[0] + dt * x[1];
        let xp1 = x[1];
        let p00 = p[0] + dt * (p[1] + p[2]) + dt * dt * p[3] + q;
        let p01 = p[1] + dt * p[3];
        let p10 = p[2] + dt * p[3];
        let p11 = p[3] + q;
        // Update.
        let s = p00 + r;
        let k0 = p00 / s;
        let k1 = p10 / s;
        let innovation = z - xp0;
        x_out[0] = xp0 + k0 * innovation;
        x_out[1] = xp1 + k1 * innovation;
        p_out[0] = (1.0 - k0) * p00;
        p_out[1] = (1.0 - k0) * p01;
        p_out[2] = p10 - k1 * p00;
        p_out[3] = p11 - k1 * p01;
    }

    /// A scalar Kalman filter over a series: the filtered states go to `filtered`, the negative
    /// log-likelihood is returned.
    #[differentiable(wrt(q, r))]
    pub fn kalman_nll(q: f64, r: f64, zs: &[f64], filtered: &mut [f64]) -> f64 {
        let mut x = 0.0;
        let mut p = 1.0;
        let mut nll = 0.0;
        for t in 0..zs.len() {
            p += q;
            let s = p + r;
            let v = zs[t] - x;
            nll += 0.5 * (s.ln() + v * v / s);
            let k = p / s;
            x += k * v;
            p *= 1.0 - k;
            filtered[t] = x;
        }
        nll
    }

    /// Welford's running variance (the sample variance, `n - 1` in the denominator).
    #[differentiable(order = 2)]
    pub fn welford(xs: &[f64]) -> f64 {
        let mut mean = 0.0;
        let mut m2 = 0.0;
        for (i, &x) in xs.iter().enumerate() {
            let n = (i + 1) as f64;
            let delta = x - mean;
            mean += delta / n;
            m2 += delta * (x - mean);
        }
        m2 / (xs.len() - 1) as f64
    }
}

// ---------------------------------------------------------------------------------------------------
// Physics: an n-body potential, a spring chain, RK4 and leapfrog integrators.
// ---------------------------------------------------------------------------------------------------

pub mod physics {
    use autodiff::differentiable;

    /// The gravitational potential energy of bodies at `pos` with masses `m`.
    #[differentiable(wrt(pos))]
    pub fn nbody_potential(pos: &[[f64; 3]], m: &[f64]) -> f64 {
        let n = pos.len();
        let mut energy = 0.0;
        for i in 0..n {
            for j in (i + 1)..n {
                let dx = pos[i][0] - pos[j][0];
                let dy = pos[i][1] - pos[j][1];
                let dz = pos[i][2] - pos[j][2];
                let r = (dx * dx + dy * dy + dz * dz).sqrt();
                energy -= m[i] * m[j] / r;
            }
        }
        energy
    }

    /// The same with the masses active and a softening length, through iterators.
    #[differentiable(wrt(pos, m))]
    pub fn nbody_softened(pos: &[[f64; 3]], m: &[f64], eps: f64) -> f64 {
        let mut energy = 0.0;
        for (i, a) in pos.iter().enumerate() {
            for j in 0..i {
                let b = pos[j];
                let r2: f64 = a.iter().zip(b.iter()).map(|(u, v)| (u - v).powi(2)).sum();
                energy -= m[i] * m[j] / (r2 + eps * eps).sqrt();
            }
        }
        energy
    }

    /// A chain of springs between neighbouring masses in a gravity field, ends free.
    #[differentiable(wrt(x), order = 2)]
    pub fn spring_chain(x: &[f64], k: f64, rest: f64, g: f64) -> f64 {
        let elastic: f64 = x
            .windows(2)
            .map(|w| 0.5 * k * (w[1] - w[0] - rest).powi(2))
            .sum();
        let gravity: f64 = x.iter().map(|&h| g * h).sum();
        elastic + gravity
    }

    /// Lotka-Volterra, the right-hand side written into an output parameter.
    #[differentiable]
    pub fn lotka(y: &[f64], p: &[f64], dydt: &mut [f64]) {
        dydt[0] = p[0] * y[0] - p[1] * y[0] * y[1];
        dydt[1] = p[2] * y[0] * y[1] - p[3] * y[1];
    }

    /// Classic RK4 over `steps` steps of `h`, calling the right-hand side with output buffers.
    #[differentiable(wrt(y0, p))]
    pub fn rk4(y0: &[f64], p: &[f64], h: f64, steps: usize) -> Vec<f64> {
        let n = y0.len();
        let mut y = y0.to_vec();
        let mut k1 = vec![0.0; n];
        let mut k2 = vec![0.0; n];
        let mut k3 = vec![0.0; n];
        let mut k4 = vec![0.0; n];
        let mut tmp = vec![0.0; n];
        for _ in 0..steps {
            lotka(&y, p, &mut k1);
            for i in 0..n {
                tmp[i] = y[i] + 0.5 * h * k1[i];
            }
            lotka(&tmp, p, &mut k2);
            for i in 0..n {
                tmp[i] = y[i] + 0.5 * h * k2[i];
            }
            lotka(&tmp, p, &mut k3);
            for i in 0..n {
                tmp[i] = y[i] + h * k3[i];
            }
            lotka(&tmp, p, &mut k4);
            for i in 0..n {
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
        }
        y
    }

    /// A least-squares fit of the RK4 solution's end point: a scalar loss over the integrator.
    #[differentiable(wrt(p))]
    pub fn rk4_fit(p: &[f64], y0: &[f64], target: &[f64]) -> f64 {
        let y = rk4(y0, p, 0.05, 8);
        let mut loss = 0.0;
        for i in 0..y.len() {
            loss += (y[i] - target[i]).powi(2);
        }
        loss
    }

    /// The force of an anharmonic oscillator.
    #[differentiable]
    pub fn force(q: f64, k: f64) -> f64 {
        -k * q - 0.1 * q.powi(3)
    }

    /// Leapfrog (kick-drift-kick) from `(q0, p0)`, returning the final phase-space point.
    #[differentiable(wrt(q0, p0, k))]
    pub fn leapfrog(q0: f64, p0: f64, k: f64, dt: f64, n: usize) -> (f64, f64) {
        let mut q = q0;
        let mut p = p0;
        for _ in 0..n {
            p += 0.5 * dt * force(q, k);
            q += dt * p;
            p += 0.5 * dt * force(q, k);
        }
        (q, p)
    }

    /// The scale of `pendulum_energy`'s time step.
    pub const DT: f64 = 0.1;

    /// Leapfrog on a state array with the right-hand side writing an output array.
    #[differentiable]
    pub fn pendulum_accel(theta: &[f64; 2], out: &mut [f64; 2]) {
        out[0] = theta[1];
        out[1] = -9.81 * theta[0].sin();
    }

    /// Symplectic Euler on `[theta, omega]` through the array right-hand side; the energy at the end.
    /// (At `dt` near 1 the Hessian reaches 3e7 and `--order2`'s central differences lose two digits: the
    /// tool draws `dt` there, so `DT` is the constant the checks of `--order2` see vary.)
    #[differentiable(order = 2)]
    pub fn pendulum_energy(state: [f64; 2], dt: f64) -> f64 {
        let dt = dt * DT;
        let mut s = state;
        let mut d = [0.0; 2];
        for _ in 0..5 {
            pendulum_accel(&s, &mut d);
            s[1] += dt * d[1];
            s[0] += dt * s[1];
        }
        0.5 * s[1] * s[1] + 9.81 * (1.0 - s[0].cos())
    }
}

// ---------------------------------------------------------------------------------------------------
// Small ML: an MLP over a parameter struct with matrix and vector fields.
// ---------------------------------------------------------------------------------------------------

pub mod ml {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Mlp {
        /// `hidden x inputs`, row-major (the flat form; `matrix_fields::Mlp` holds it as a `Vec<Vec<f64>>`).
        pub w1: Vec<f64>,
        pub b1: Vec<f64>,
        pub w2: Vec<f64>,
        pub b2: f64,
        #[no_grad]
        pub hidden: usize,
        #[no_grad]
        pub inputs: usize,
    }

    /// The MLP's output for one input row: `tanh` hidden layer, linear output.
    #[differentiable(wrt(p))]
    pub fn forward(p: &Mlp, x: &[f64]) -> f64 {
        let mut out = p.b2;
        for h in 0..p.hidden {
            let mut a = p.b1[h];
            for j in 0..x.len() {
                a += p.w1[h * p.inputs + j] * x[j];
            }
            out += p.w2[h] * a.tanh();
        }
        out
    }

    /// The mean squared error over a data set.
    #[differentiable(wrt(p))]
    pub fn mse(p: &Mlp, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for i in 0..xs.len() {
            let e = forward(p, &xs[i]) - ys[i];
            loss += e * e;
        }
        loss / xs.len() as f64
    }

    /// A two-layer net with fixed-size array weights and a ReLU.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Tiny {
        pub w: [f64; 6],
        pub b: [f64; 3],
        pub v: [f64; 3],
    }

    #[differentiable(wrt(net))]
    pub fn tiny_loss(net: &Tiny, xs: &[[f64; 2]], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let mut out = 0.0;
            for h in 0..3 {
                let a = net.w[2 * h] * x[0] + net.w[2 * h + 1] * x[1] + net.b[h];
                out += net.v[h] * a.max(0.0);
            }
            loss += (out - y).powi(2);
        }
        loss
    }
}

// ---------------------------------------------------------------------------------------------------
// Round two: the shapes generic numeric crates write.
// ---------------------------------------------------------------------------------------------------

pub mod generic {
    use autodiff::{differentiable, Float};
    use num_traits::FromPrimitive;
    use std::iter::Sum;

    /// argmin's style: `T: Float + FromPrimitive`, constants by `from_f64`.
    #[differentiable(order = 2)]
    pub fn styblinski<T: Float + FromPrimitive>(param: &[T]) -> T {
        let half = T::from_f64(0.5).unwrap();
        let n16 = T::from_f64(16.0).unwrap();
        let n5 = T::from_f64(5.0).unwrap();
        half * param
            .iter()
            .map(|x| x.powi(4) - n16 * x.powi(2) + n5 * *x)
            .fold(T::zero(), |acc, v| acc + v)
    }

    /// A `where` clause with `Sum`, and `.sum()` into `T`.
    #[differentiable]
    pub fn rosen_where<T>(param: &[T]) -> T
    where
        T: Float + FromPrimitive + Sum,
    {
        let hundred = T::from_f64(100.0).unwrap();
        param
            .windows(2)
            .map(|w| (T::one() - w[0]).powi(2) + hundred * (w[1] - w[0].powi(2)).powi(2))
            .sum()
    }

    /// Ackley over a fixed-size array of a const generic length.
    #[differentiable]
    pub fn sphere_n<const N: usize>(x: [f64; N]) -> f64 {
        let mut s = 0.0;
        for i in 0..N {
            s += x[i] * x[i];
        }
        s
    }

    /// Griewank: a sum and a product over `enumerate`.
    #[differentiable(order = 2)]
    pub fn griewank(x: &[f64]) -> f64 {
        let sum: f64 = x.iter().map(|v| v * v).sum::<f64>() / 4000.0;
        let prod: f64 = x
            .iter()
            .enumerate()
            .map(|(i, v)| (v / ((i + 1) as f64).sqrt()).cos())
            .product();
        sum - prod + 1.0
    }

    /// Schwefel: `|x|` under a square root.
    #[differentiable]
    pub fn schwefel(x: &[f64]) -> f64 {
        418.9829 * x.len() as f64 - x.iter().map(|v| v * v.abs().sqrt().sin()).sum::<f64>()
    }

    /// A norm read through a method on the sum.
    #[differentiable]
    pub fn norm2(x: &[f64]) -> f64 {
        x.iter().map(|xi| xi * xi).sum::<f64>().sqrt()
    }

    /// The mean and variance in two passes, `let (mut a, mut b)`.
    #[differentiable(order = 2)]
    pub fn variance(x: &[f64]) -> f64 {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let (mut ss, mut count) = (0.0, 0.0);
        for &v in x.iter() {
            ss += (v - mean).powi(2);
            count += 1.0;
        }
        ss / (count - 1.0)
    }

    /// Horner's rule with `mul_add`, coefficients active.
    #[differentiable(order = 2)]
    pub fn horner(coeffs: &[f64], x: f64) -> f64 {
        coeffs.iter().rev().fold(0.0, |acc, &c| acc.mul_add(x, c))
    }

    /// `fold` with `f64::max` as a function path, and a `fold` with a closure comparing.
    #[differentiable]
    pub fn max_abs_plus_max(x: &[f64]) -> f64 {
        let m = x.iter().map(|v| v.abs()).fold(0.0, f64::max);
        let top = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        m + top
    }

    /// A range mapped to products of neighbours, through a closure capturing the input.
    #[differentiable]
    pub fn neighbour_sum(x: &[f64]) -> f64 {
        let n = x.len();
        let pair = |i: usize| x[i] * x[i + 1];
        (0..n - 1).map(pair).sum::<f64>() + (0..n).map(|i| x[i].sin()).sum::<f64>()
    }

    /// Sub-slices zipped: `x[..n - 1]` with `x[1..]`.
    #[differentiable]
    pub fn dixon_price(x: &[f64]) -> f64 {
        let n = x.len();
        let head = (x[0] - 1.0).powi(2);
        head + x[..n - 1]
            .iter()
            .zip(&x[1..])
            .enumerate()
            .map(|(i, (a, b))| (i + 2) as f64 * (2.0 * b * b - a).powi(2))
            .sum::<f64>()
    }

    /// `enumerate().skip(1)`.
    #[differentiable]
    pub fn skip_first(x: &[f64]) -> f64 {
        let mut s = x[0];
        for (i, v) in x.iter().enumerate().skip(1) {
            s += (i as f64) * v * v;
        }
        s
    }

    /// A nested `fn` helper and consts from `std::f64::consts`.
    #[differentiable]
    pub fn gaussian_mixture(x: f64, mu: &[f64]) -> f64 {
        fn kernel(z: f64) -> f64 {
            (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
        }
        let mut p = 0.0;
        for &m in mu {
            p += kernel(x - m);
        }
        (p / mu.len() as f64).ln() + std::f64::consts::FRAC_PI_2 * 0.0 + std::f64::consts::TAU * 0.0
    }

    /// A `Vec<f64>` taken by value and `collect`ed differences.
    #[differentiable]
    pub fn total_variation(x: Vec<f64>) -> f64 {
        let d: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
        d.iter().map(|v| (v * v + 1e-3).sqrt()).sum()
    }

    /// `f32` through and through.
    #[differentiable]
    pub fn booth32(x: f32, y: f32) -> f32 {
        (x + 2.0 * y - 7.0).powi(2) + (2.0 * x + y - 5.0).powi(2)
    }
}

pub mod points {
    use autodiff::differentiable;

    /// Unpacking each point with an array pattern inside a loop.
    #[differentiable(wrt(pos))]
    pub fn pair_energy(pos: &[[f64; 3]], k: f64) -> f64 {
        let mut e = 0.0;
        for i in 0..pos.len() {
            let [x, y, z] = pos[i];
            e += 0.5 * k * (x * x + y * y + z * z);
        }
        for (a, b) in pos.iter().zip(pos.iter().skip(1)) {
            let r2 = (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2);
            e += (r2 + 1.0).ln();
        }
        e
    }

    /// A `for` over points with an array pattern: `for &[x, y] in pts`.
    #[differentiable]
    pub fn ring(pts: &[[f64; 2]]) -> f64 {
        let mut s = 0.0;
        for &[x, y] in pts {
            s += (x * x + y * y - 1.0).powi(2);
        }
        s
    }

    /// A force returned as an array.
    #[differentiable]
    pub fn spring_force(p: &[f64; 3], k: f64) -> [f64; 3] {
        let r = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        let s = -k * (r - 1.0) / r;
        [s * p[0], s * p[1], s * p[2]]
    }

    /// An in-place Euler step: `x` read and written.
    #[differentiable]
    pub fn euler_in_place(x: &mut [f64], v: &[f64], dt: f64) {
        for i in 0..x.len() {
            x[i] += dt * v[i] - 0.1 * dt * x[i] * x[i];
        }
    }

    /// A 2x2 Kalman covariance prediction `F P F^T` with nested-array locals, into a flat output (a nested
    /// array is no output parameter: `tests/ui/signature/matrix-output-no-return.rs`).
    #[differentiable]
    pub fn covariance_predict(p: [[f64; 2]; 2], dt: f64, out: &mut [f64; 4]) {
        let f = [[1.0, dt], [0.0, 1.0]];
        let mut fp = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                for k in 0..2 {
                    fp[i][j] += f[i][k] * p[k][j];
                }
            }
        }
        for i in 0..2 {
            for j in 0..2 {
                let mut s = 0.0;
                for k in 0..2 {
                    s += fp[i][k] * f[j][k];
                }
                out[2 * i + j] = s;
            }
        }
    }

    /// A right-hand side whose output is a `&mut Vec<f64>`, and a loss stepping through it.
    #[differentiable]
    pub fn decay(y: &[f64], rates: &[f64], dydt: &mut Vec<f64>) {
        for i in 0..y.len() {
            dydt[i] = -rates[i] * y[i];
        }
    }

    #[differentiable(wrt(rates))]
    pub fn decay_loss(rates: &[f64], y0: &[f64], n: usize) -> f64 {
        let mut y = y0.to_vec();
        let mut d = vec![0.0; y.len()];
        for _ in 0..n {
            decay(&y, rates, &mut d);
            for i in 0..y.len() {
                y[i] += 0.1 * d[i];
            }
        }
        y.iter().sum()
    }
}

pub mod round3 {
    use autodiff::{differentiable, Float};

    /// Newton's iteration for `sqrt(a)` until it settles: the derivative of the iterates.
    #[differentiable]
    pub fn newton_sqrt(a: f64) -> f64 {
        let mut x = a.max(1.0);
        let mut it = 0;
        while (x * x - a).abs() > 1e-14 * a && it < 60 {
            x = 0.5 * (x + a / x);
            it += 1;
        }
        x
    }

    /// A scalar Kalman update in place: `x` and `p` read and written.
    #[differentiable]
    pub fn kalman_scalar(z: f64, x: &mut f64, p: &mut f64, q: f64, r: f64) {
        *p += q;
        let k = *p / (*p + r);
        *x += k * (z - *x);
        *p *= 1.0 - k;
    }

    /// Velocity Verlet of `n` particles in a harmonic trap with pair repulsion, `Vec<[f64; 3]>` locals.
    #[differentiable(wrt(pos0))]
    pub fn verlet_energy(pos0: &[[f64; 3]], dt: f64, steps: usize) -> f64 {
        let n = pos0.len();
        let mut pos = vec![[0.0; 3]; n];
        let mut vel = vec![[0.0; 3]; n];
        let mut acc = vec![[0.0; 3]; n];
        for i in 0..n {
            for k in 0..3 {
                pos[i][k] = pos0[i][k];
                acc[i][k] = -pos[i][k];
            }
        }
        for _ in 0..steps {
            for i in 0..n {
                for k in 0..3 {
                    vel[i][k] += 0.5 * dt * acc[i][k];
                    pos[i][k] += dt * vel[i][k];
                }
            }
            for i in 0..n {
                for k in 0..3 {
                    acc[i][k] = -pos[i][k];
                }
            }
            for i in 0..n {
                for k in 0..3 {
                    vel[i][k] += 0.5 * dt * acc[i][k];
                }
            }
        }
        let mut e = 0.0;
        for i in 0..n {
            for k in 0..3 {
                e += 0.5 * vel[i][k] * vel[i][k] + 0.5 * pos[i][k] * pos[i][k];
            }
        }
        e
    }

    /// Softmax returning a `Vec`, through `collect::<Vec<f64>>()`.
    #[differentiable]
    pub fn softmax(z: &[f64]) -> Vec<f64> {
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e = z.iter().map(|v| (v - m).exp()).collect::<Vec<f64>>();
        let total: f64 = e.iter().sum();
        e.iter().map(|v| v / total).collect()
    }

    /// Cross-entropy against one-hot targets through the softmax above.
    #[differentiable(wrt(z))]
    pub fn cross_entropy(z: &[f64], target: &[f64]) -> f64 {
        let p = softmax(z);
        let mut loss = 0.0;
        for i in 0..p.len() {
            loss -= target[i] * p[i].ln();
        }
        loss
    }

    /// A polar-to-Cartesian map returning an array.
    #[differentiable]
    pub fn to_cartesian(r: f64, theta: f64, phi: f64) -> [f64; 3] {
        [
            r * theta.sin() * phi.cos(),
            r * theta.sin() * phi.sin(),
            r * theta.cos(),
        ]
    }

    /// Generic `zip(..).enumerate()` and `sum` over `T`.
    #[differentiable]
    pub fn weighted_sq<T: Float + std::iter::Sum>(a: &[T], b: &[T]) -> T {
        let mut s = T::zero();
        for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
            s = s + T::from(i + 1).unwrap() * (*x - *y) * (*x - *y);
        }
        s
    }

    /// L1-regularised least squares: `abs` away from zero.
    #[differentiable(wrt(w))]
    pub fn lasso(w: &[f64], xs: &[Vec<f64>], ys: &[f64], lambda: f64) -> f64 {
        let mut loss = 0.0;
        for (x, y) in xs.iter().zip(ys.iter()) {
            let pred: f64 = x.iter().zip(w.iter()).map(|(a, b)| a * b).sum();
            loss += 0.5 * (pred - y).powi(2);
        }
        loss + lambda * w.iter().map(|v| v.abs()).sum::<f64>()
    }

    /// A loss with a `match` on a usize label and an early `return` for an empty batch.
    #[differentiable(wrt(theta))]
    pub fn hinge(theta: &[f64], xs: &[Vec<f64>], labels: &[usize]) -> f64 {
        if xs.is_empty() {
            return 0.0;
        }
        let mut loss = 0.0;
        for i in 0..xs.len() {
            let score: f64 = (0..theta.len()).map(|j| theta[j] * xs[i][j]).sum();
            let sign = match labels[i] {
                0 => -1.0,
                _ => 1.0,
            };
            let margin = 1.0 - sign * score;
            if margin > 0.0 {
                loss += margin * margin;
            }
        }
        loss / xs.len() as f64
    }
}

// ---------------------------------------------------------------------------------------------------
// The minimal programs of what this probe found failing (each once a compile error).
// ---------------------------------------------------------------------------------------------------

pub mod found {
    use autodiff::differentiable;

    /// `zip(..).enumerate()`, in a `for` and in a chain.
    #[differentiable(order = 2)]
    pub fn zip_enumerate(x: &[f64], y: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, (a, b)) in x.iter().zip(y.iter()).enumerate() {
            s += (i + 1) as f64 * a * b;
        }
        s + x
            .iter()
            .zip(y)
            .enumerate()
            .map(|(i, (a, b))| i as f64 * (a - b).powi(2))
            .sum::<f64>()
    }

    /// Windows of a matrix's rows: a zip of two, `.enumerate()`d; `.skip(n).take(m).rev()`; `a..=b`.
    #[differentiable]
    pub fn row_windows(pos: &[Vec<f64>], w: &[f64]) -> f64 {
        let mut e = 0.0;
        for (i, (a, b)) in pos[..pos.len() - 1].iter().zip(&pos[1..]).enumerate() {
            e += (i as f64 + 1.0) * (a[0] * b[1] - w[i] * a[1]).powi(2);
        }
        for r in pos.iter().skip(1).take(2).rev() {
            e += r[0].sin();
        }
        for (k, r) in pos[1..=2].iter().enumerate() {
            e += k as f64 * r[1].cos();
        }
        e
    }

    /// A zip of points (rows) with floats: at `order = 2` the copy took `y` out of its reference only
    /// when both sides held floats (`pred - y` was `__S - &__S`).
    #[differentiable(wrt(w), order = 2)]
    pub fn fit_points(w: &[f64], xs: &[[f64; 2]], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let pred = (w[0] * x[0] + w[1] * x[1] + w[2]).tanh();
            loss += (pred - y).powi(2);
        }
        loss
    }

    /// Array patterns in `let`, `for` and a closure's parameter.
    #[differentiable(order = 2)]
    pub fn unpacked(pts: &[[f64; 2]], c: [f64; 2]) -> f64 {
        let [cx, cy] = c;
        let mut s = 0.0;
        for &[x, y] in pts {
            s += ((x - cx).powi(2) + (y - cy).powi(2) - 1.0).powi(2);
        }
        for (i, &[x, _]) in pts.iter().enumerate() {
            s += i as f64 * x.sin();
        }
        s + pts.iter().map(|&[a, b]| a * b).sum::<f64>()
    }
}

// ---------------------------------------------------------------------------------------------------
// Matrix fields of parameter structs (once "indexed twice ... not read from a struct yet").
// ---------------------------------------------------------------------------------------------------

pub mod matrix_fields {
    use autodiff::{differentiable, Differentiable};

    /// The MLP as users write it: the first layer's weights a `Vec<Vec<f64>>`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Mlp {
        pub w1: Vec<Vec<f64>>,
        pub b1: Vec<f64>,
        pub w2: Vec<f64>,
        pub b2: f64,
    }

    #[differentiable(wrt(p))]
    pub fn forward(p: &Mlp, x: &[f64]) -> f64 {
        let mut out = p.b2;
        for h in 0..p.b1.len() {
            let mut a = p.b1[h];
            for j in 0..x.len() {
                a += p.w1[h][j] * x[j];
            }
            out += p.w2[h] * a.tanh();
        }
        out
    }

    /// Passes the struct on whole to `forward`.
    #[differentiable(wrt(p))]
    pub fn mse(p: &Mlp, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for i in 0..xs.len() {
            let e = forward(p, &xs[i]) - ys[i];
            loss += e * e;
        }
        loss / xs.len() as f64
    }

    /// A nested-array field, read by a method differentiated in `self` and its input, rows iterated.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Dense {
        pub w: [[f64; 2]; 3],
        pub b: [f64; 3],
    }

    impl Dense {
        #[differentiable(wrt(self, x))]
        pub fn out(&self, x: &[f64; 2]) -> f64 {
            let mut s = 0.0;
            for h in 0..3 {
                s += (self.w[h][0] * x[0] + self.w[h][1] * x[1] + self.b[h]).sin();
            }
            s
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// The checks.
// ---------------------------------------------------------------------------------------------------

/// How many points each function is checked at.
const POINTS: usize = 25;

fn a2(x: &[f64]) -> [f64; 2] {
    [x[0], x[1]]
}

fn a3(x: &[f64]) -> [f64; 3] {
    [x[0], x[1], x[2]]
}

/// `f_vjp` of a function with a float result: the value, and `c` times central differences.
#[track_caller]
fn check_scalar_vjp(
    name: &str,
    sample: impl Fn(&mut Lcg) -> Flat,
    f: &dyn Fn(&[f64]) -> f64,
    vjp: &dyn Fn(&[f64], f64) -> (f64, Flat),
) {
    let mut rng = Lcg::new(seed_of(name) ^ 0x5eed);
    for _ in 0..POINTS {
        let x = sample(&mut rng);
        let c = rng.uniform(-2.0, 2.0);
        let (v, g) = vjp(&x, c);
        let at = format!("{name} at {x:?}, d_ret {c}");
        assert_near(v, f(&x), 1e-12, 0.0, &format!("{at}: f_vjp's value"));
        let expected: Flat = fd_gradient(f, &x).iter().map(|d| c * d).collect();
        assert_vec_near(&g, &expected, 1e-6, &format!("{at}: f_vjp"));
    }
}

/// The generated items of a function of one `[f64; 2]` (by value, or by reference with `&`), at
/// `order = 2`: `f_grad`, `f_jvp`, `f_grad_into`, `f_hessian` and `f_vjp`.
macro_rules! point2 {
    ($f:path, $g:path, $j:path, $gi:path; $($amp:tt)?) => {{
        Probe::new(stringify!($f), |x| $f($($amp)? a2(x)))
            .grad(|x| {
                let (v, g) = $g($($amp)? a2(x));
                (v, g.to_vec())
            })
            .jvp(|x, t| $j($($amp)? a2(x), a2(t)))
            .grad_into(|x| {
                let mut g = [GARBAGE; 2];
                let v = $gi($($amp)? a2(x), &mut g);
                (v, g.to_vec())
            })
    }};
}

/// `f_hessian` of a function of one `[f64; 2]`, for `Probe::hessian`.
macro_rules! point2_hessian {
    ($h:path; $($amp:tt)?) => {
        |x: &[f64]| {
            let (v, g, h) = $h($($amp)? a2(x));
            (v, g.to_vec(), h)
        }
    };
}

/// `f_vjp` of a function of one `[f64; 2]`.
macro_rules! point2_vjp {
    ($f:path, $v:path; $($amp:tt)?) => {
        check_scalar_vjp(
            stringify!($v),
            range(2, -2.0, 2.0),
            &|x| $f($($amp)? a2(x)),
            &|x, c| {
                let (v, g) = $v($($amp)? a2(x), c);
                (v, g.to_vec())
            },
        )
    };
}

/// The generated items of a function of one slice at `order = 2`.
macro_rules! slice2 {
    ($m:ident :: $f:ident, $g:ident, $j:ident, $gi:ident, $h:ident) => {
        slice(stringify!($f), $m::$f, $m::$g, $m::$j, $m::$gi).hessian(hess_slice($m::$h))
    };
}

mod optimisation {
    use super::testfns as t;
    use super::*;
    use std::f64::consts::PI;

    #[test]
    fn ackley() {
        slice2!(
            t::ackley,
            ackley_grad,
            ackley_jvp,
            ackley_grad_into,
            ackley_hessian
        )
        .run(POINTS, range(3, -3.0, 3.0));
        check_scalar_vjp(
            "ackley_vjp",
            range(4, -3.0, 3.0),
            &t::ackley,
            &t::ackley_vjp,
        );
    }

    #[test]
    fn beale_by_value_with_an_array_pattern() {
        point2!(t::beale, t::beale_grad, t::beale_jvp, t::beale_grad_into; )
            .hessian(point2_hessian!(t::beale_hessian; ))
            .run(POINTS, range(2, -2.0, 2.0));
        point2_vjp!(t::beale, t::beale_vjp;);
        // The minimum at (3, 0.5).
        let (v, g) = t::beale_grad([3.0, 0.5]);
        assert_near(v, 0.0, 1e-15, 0.0, "beale at its minimum");
        assert_vec_near(&g, &[0.0, 0.0], 1e-14, "beale's gradient at its minimum");
    }

    #[test]
    fn booth_by_reference() {
        point2!(t::booth, t::booth_grad, t::booth_jvp, t::booth_grad_into; &)
            .hessian(point2_hessian!(t::booth_hessian; &))
            .analytic(|x| {
                let (a, b) = (x[0] + 2.0 * x[1] - 7.0, 2.0 * x[0] + x[1] - 5.0);
                vec![2.0 * a + 4.0 * b, 4.0 * a + 2.0 * b]
            })
            .run(POINTS, range(2, -5.0, 5.0));
        point2_vjp!(t::booth, t::booth_vjp; &);
        let (_, _, h) = t::booth_hessian(&[0.3, -0.7]);
        assert_eq!(
            h,
            vec![vec![10.0, 8.0], vec![8.0, 10.0]],
            "booth's constant Hessian"
        );
    }

    #[test]
    fn goldstein_price_dereferenced_pattern() {
        point2!(t::goldsteinprice, t::goldsteinprice_grad, t::goldsteinprice_jvp, t::goldsteinprice_grad_into; &).hessian(point2_hessian!(t::goldsteinprice_hessian; &))
            .run(POINTS, range(2, -2.0, 2.0));
        point2_vjp!(t::goldsteinprice, t::goldsteinprice_vjp; &);
        let (v, g) = t::goldsteinprice_grad(&[0.0, -1.0]);
        assert_near(v, 3.0, 1e-14, 0.0, "goldstein-price's minimum");
        assert_vec_near(&g, &[0.0, 0.0], 1e-12, "at its minimum");
    }

    #[test]
    fn himmelblau() {
        slice2!(
            t::himmelblau,
            himmelblau_grad,
            himmelblau_jvp,
            himmelblau_grad_into,
            himmelblau_hessian
        )
        .analytic(|x| {
            let (a, b) = (x[0] * x[0] + x[1] - 11.0, x[0] + x[1] * x[1] - 7.0);
            vec![4.0 * x[0] * a + 2.0 * b, 2.0 * a + 4.0 * x[1] * b]
        })
        .run(POINTS, range(2, -5.0, 5.0));
        check_scalar_vjp(
            "himmelblau_vjp",
            range(2, -5.0, 5.0),
            &t::himmelblau,
            &t::himmelblau_vjp,
        );
    }

    #[test]
    fn levy_with_a_closure_helper() {
        slice(
            "levy",
            t::levy,
            t::levy_grad,
            t::levy_jvp,
            t::levy_grad_into,
        )
        .run(POINTS, range(4, -10.0, 10.0));
        check_scalar_vjp("levy_vjp", range(3, -10.0, 10.0), &t::levy, &t::levy_vjp);
        let (v, g) = t::levy_grad(&[1.0, 1.0, 1.0]);
        assert!(v.abs() < 1e-30, "levy's minimum: {v}");
        assert_vec_near(&g, &[0.0; 3], 1e-14, "levy at its minimum");
    }

    #[test]
    fn matyas_and_mccorkindale() {
        point2!(t::matyas, t::matyas_grad, t::matyas_jvp, t::matyas_grad_into; )
            .hessian(point2_hessian!(t::matyas_hessian; ))
            .analytic(|x| vec![0.52 * x[0] - 0.48 * x[1], 0.52 * x[1] - 0.48 * x[0]])
            .run(POINTS, range(2, -10.0, 10.0));
        point2_vjp!(t::matyas, t::matyas_vjp;);
        point2!(t::mccorkindale, t::mccorkindale_grad, t::mccorkindale_jvp, t::mccorkindale_grad_into; &).hessian(point2_hessian!(t::mccorkindale_hessian; &))
            .analytic(|x| {
                let c = (x[0] + x[1]).cos();
                vec![c + 2.0 * (x[0] - x[1]) - 1.5, c - 2.0 * (x[0] - x[1]) + 2.5]
            })
            .run(POINTS, range(2, -3.0, 4.0));
        point2_vjp!(t::mccorkindale, t::mccorkindale_vjp; &);
    }

    #[test]
    fn picheny_calls_goldstein_price_on_a_local_array() {
        point2!(t::picheny, t::picheny_grad, t::picheny_jvp, t::picheny_grad_into; &)
            .run(POINTS, range(2, 0.0, 1.0));
        point2_vjp!(t::picheny, t::picheny_vjp; &);
    }

    #[test]
    fn rastrigin_in_two_spellings() {
        let analytic = |x: &[f64]| -> Flat {
            x.iter()
                .map(|v| 2.0 * v + 20.0 * PI * (2.0 * PI * v).sin())
                .collect()
        };
        slice(
            "rastrigin",
            t::rastrigin,
            t::rastrigin_grad,
            t::rastrigin_jvp,
            t::rastrigin_grad_into,
        )
        .analytic(analytic)
        .run(POINTS, range(5, -5.12, 5.12));
        check_scalar_vjp(
            "rastrigin_vjp",
            range(3, -5.0, 5.0),
            &t::rastrigin,
            &t::rastrigin_vjp,
        );
        // `a` is a float parameter, active by default: the flat inputs are `(x, a)`.
        let n = 4;
        Probe::new("rastrigin_a", move |x| t::rastrigin_a(&x[..n], x[n]))
            .grad(move |x| {
                let (v, (g, da)) = t::rastrigin_a_grad(&x[..n], x[n]);
                (v, [g, vec![da]].concat())
            })
            .jvp(move |x, t| t::rastrigin_a_jvp(&x[..n], x[n], (t[..n].to_vec(), t[n])))
            .grad_into(move |x| {
                let (mut g, mut da) = (vec![GARBAGE; n], GARBAGE);
                let v = t::rastrigin_a_grad_into(&x[..n], x[n], (&mut g, &mut da));
                (v, [g, vec![da]].concat())
            })
            .hessian(move |x| {
                let (v, (g, da), h) = t::rastrigin_a_hessian(&x[..n], x[n]);
                (v, [g, vec![da]].concat(), h)
            })
            .analytic(move |x| {
                let a = x[n];
                let mut g: Flat = x[..n]
                    .iter()
                    .map(|v| 2.0 * v + 2.0 * PI * a * (2.0 * PI * v).sin())
                    .collect();
                g.push(n as f64 - x[..n].iter().map(|v| (2.0 * PI * v).cos()).sum::<f64>());
                g
            })
            .run(POINTS, |r| {
                [r.vec(n, -5.12, 5.12), vec![r.uniform(5.0, 15.0)]].concat()
            });
        // `a` is a float parameter: active by default, its derivative n - sum(cos(2 pi x)).
        let x = [0.3, -1.2, 2.5];
        let (_, (_, da)) = t::rastrigin_a_grad(&x, 10.0);
        let expected = 3.0 - x.iter().map(|v| (2.0 * PI * v).cos()).sum::<f64>();
        assert_near(da, expected, 1e-12, 0.0, "d rastrigin / d a");
    }

    fn rosenbrock_by_hand(x: &[f64]) -> Flat {
        let n = x.len();
        let mut g = vec![0.0; n];
        for i in 0..n - 1 {
            g[i] += -2.0 * (1.0 - x[i]) - 400.0 * x[i] * (x[i + 1] - x[i] * x[i]);
            g[i + 1] += 200.0 * (x[i + 1] - x[i] * x[i]);
        }
        g
    }

    #[test]
    fn rosenbrock_nd_over_zip_skip_and_windows() {
        slice2!(
            t::rosenbrock,
            rosenbrock_grad,
            rosenbrock_jvp,
            rosenbrock_grad_into,
            rosenbrock_hessian
        )
        .analytic(rosenbrock_by_hand)
        .run(POINTS, range(5, -2.0, 2.0));
        check_scalar_vjp(
            "rosenbrock_vjp",
            range(4, -2.0, 2.0),
            &t::rosenbrock,
            &t::rosenbrock_vjp,
        );
        Probe::new("rosenbrock_ab", |x| t::rosenbrock_ab(x, 1.0, 100.0))
            .grad(|x| t::rosenbrock_ab_grad(x, 1.0, 100.0))
            .jvp(|x, t| t::rosenbrock_ab_jvp(x, 1.0, 100.0, t.to_vec()))
            .grad_into(|x| {
                let mut g = vec![GARBAGE; x.len()];
                (t::rosenbrock_ab_grad_into(x, 1.0, 100.0, &mut g), g)
            })
            .analytic(rosenbrock_by_hand)
            .run(POINTS, range(6, -2.0, 2.0));
    }

    #[test]
    fn sphere_styblinski_tang_zakharov() {
        slice2!(
            t::sphere,
            sphere_grad,
            sphere_jvp,
            sphere_grad_into,
            sphere_hessian
        )
        .analytic(|x| x.iter().map(|v| 2.0 * v).collect())
        .run(POINTS, range(5, -5.0, 5.0));
        slice2!(
            t::styblinski_tang,
            styblinski_tang_grad,
            styblinski_tang_jvp,
            styblinski_tang_grad_into,
            styblinski_tang_hessian
        )
        .analytic(|x| {
            x.iter()
                .map(|v| 0.5 * (4.0 * v.powi(3) - 32.0 * v + 5.0))
                .collect()
        })
        .run(POINTS, range(4, -5.0, 5.0));
        slice2!(
            t::zakharov,
            zakharov_grad,
            zakharov_jvp,
            zakharov_grad_into,
            zakharov_hessian
        )
        .analytic(|x| {
            let s2: f64 = x
                .iter()
                .enumerate()
                .map(|(i, v)| 0.5 * (i + 1) as f64 * v)
                .sum();
            let outer = 2.0 * s2 + 4.0 * s2.powi(3);
            x.iter()
                .enumerate()
                .map(|(i, v)| 2.0 * v + outer * 0.5 * (i + 1) as f64)
                .collect()
        })
        .run(POINTS, range(4, -2.0, 2.0));
        check_scalar_vjp(
            "zakharov_vjp",
            range(3, -2.0, 2.0),
            &t::zakharov,
            &t::zakharov_vjp,
        );
        check_scalar_vjp(
            "styblinski_tang_vjp",
            range(3, -5.0, 5.0),
            &t::styblinski_tang,
            &t::styblinski_tang_vjp,
        );
    }

    #[test]
    fn three_hump_camel() {
        point2!(t::threehumpcamel, t::threehumpcamel_grad, t::threehumpcamel_jvp, t::threehumpcamel_grad_into; &).hessian(point2_hessian!(t::threehumpcamel_hessian; &))
            .analytic(|x| {
                vec![4.0 * x[0] - 4.2 * x[0].powi(3) + x[0].powi(5) + x[1], x[0] + 2.0 * x[1]]
            })
            .run(POINTS, range(2, -2.0, 2.0));
        point2_vjp!(t::threehumpcamel, t::threehumpcamel_vjp; &);
    }
}

/// Rows of features with a leading 1 (an intercept column), and labels, drawn once per test.
fn dataset(seed: &str, rows: usize, cols: usize) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut rng = Lcg::new(seed_of(seed));
    let xs: Vec<Vec<f64>> = (0..rows)
        .map(|_| {
            let mut row = vec![1.0];
            row.extend(rng.vec(cols - 1, -1.5, 1.5));
            row
        })
        .collect();
    let ys = rng.vec(rows, 0.0, 1.0);
    (xs, ys)
}

mod statistics {
    use super::stats as s;
    use super::*;

    #[test]
    fn normal_logpdf_against_its_formula() {
        three(
            "normal_logpdf",
            s::normal_logpdf,
            s::normal_logpdf_grad,
            s::normal_logpdf_jvp,
            s::normal_logpdf_grad_into,
        )
        .hessian(hess3(s::normal_logpdf_hessian))
        .analytic(|v| {
            let (x, mu, sigma) = (v[0], v[1], v[2]);
            let z = (x - mu) / sigma;
            vec![-z / sigma, z / sigma, z * z / sigma - 1.0 / sigma]
        })
        .run(POINTS, |r| {
            vec![
                r.uniform(-3.0, 3.0),
                r.uniform(-1.0, 1.0),
                r.uniform(0.3, 2.0),
            ]
        });
        check_scalar_vjp(
            "normal_logpdf_vjp",
            |r| {
                vec![
                    r.uniform(-3.0, 3.0),
                    r.uniform(-1.0, 1.0),
                    r.uniform(0.3, 2.0),
                ]
            },
            &|v| s::normal_logpdf(v[0], v[1], v[2]),
            &|v, c| {
                let (y, g) = s::normal_logpdf_vjp(v[0], v[1], v[2], c);
                (y, vec![g.0, g.1, g.2])
            },
        );
    }

    #[test]
    fn normal_nll_in_mean_and_log_sigma() {
        let data = Lcg::new(7).vec(12, -2.0, 3.0);
        let d = &data;
        Probe::new("normal_nll", |x| s::normal_nll(&a2(x), d))
            .grad(|x| {
                let (v, g) = s::normal_nll_grad(&a2(x), d);
                (v, g.to_vec())
            })
            .jvp(|x, t| s::normal_nll_jvp(&a2(x), d, a2(t)))
            .grad_into(|x| {
                let mut g = [GARBAGE; 2];
                (s::normal_nll_grad_into(&a2(x), d, &mut g), g.to_vec())
            })
            .hessian(|x| {
                let (v, g, h) = s::normal_nll_hessian(&a2(x), d);
                (v, g.to_vec(), h)
            })
            .analytic(|x| {
                let (mu, ls) = (x[0], x[1]);
                let iv = (-2.0 * ls).exp();
                let n = d.len() as f64;
                let ss: f64 = d.iter().map(|v| (v - mu).powi(2)).sum();
                let sd: f64 = d.iter().map(|v| v - mu).sum();
                vec![-iv * sd, -iv * ss + n]
            })
            .run(POINTS, |r| vec![r.uniform(-1.0, 2.0), r.uniform(-1.0, 1.0)]);
        check_scalar_vjp(
            "normal_nll_vjp",
            range(2, -1.0, 1.0),
            &|x| s::normal_nll(&a2(x), d),
            &|x, c| {
                let (v, g) = s::normal_nll_vjp(&a2(x), d, c);
                (v, g.to_vec())
            },
        );
    }

    #[test]
    fn student_t_nll_in_loc_and_log_scale() {
        let data = Lcg::new(11).vec(9, -4.0, 4.0);
        let d = &data;
        Probe::new("student_t_nll", |x| s::student_t_nll(x[0], x[1], d, 3.0))
            .grad(|x| {
                let (v, (a, b)) = s::student_t_nll_grad(x[0], x[1], d, 3.0);
                (v, vec![a, b])
            })
            .jvp(|x, t| s::student_t_nll_jvp(x[0], x[1], d, 3.0, (t[0], t[1])))
            .grad_into(|x| {
                let (mut a, mut b) = (GARBAGE, GARBAGE);
                let v = s::student_t_nll_grad_into(x[0], x[1], d, 3.0, (&mut a, &mut b));
                (v, vec![a, b])
            })
            .analytic(|x| {
                let (loc, ls) = (x[0], x[1]);
                let sc = ls.exp();
                let nu = 3.0;
                let mut g = [0.0, 0.0];
                for &v in d {
                    let z = (v - loc) / sc;
                    let w = (nu + 1.0) * z / (nu + z * z);
                    g[0] -= w / sc;
                    g[1] += 1.0 - w * z;
                }
                g.to_vec()
            })
            .run(POINTS, |r| vec![r.uniform(-1.0, 1.0), r.uniform(-1.0, 1.0)]);
    }

    #[test]
    fn logistic_regression_with_bool_labels() {
        let (xs, ys) = dataset("logreg", 15, 4);
        let labels: Vec<bool> = ys.iter().map(|&y| y > 0.5).collect();
        let (xs, labels) = (&xs, &labels);
        let sigmoid = |z: f64| 1.0 / (1.0 + (-z).exp());
        Probe::new("logreg_nll", |w| s::logreg_nll(w, xs, labels, 0.1))
            .grad(|w| s::logreg_nll_grad(w, xs, labels, 0.1))
            .jvp(|w, t| s::logreg_nll_jvp(w, xs, labels, 0.1, t.to_vec()))
            .grad_into(|w| {
                let mut g = vec![GARBAGE; w.len()];
                (s::logreg_nll_grad_into(w, xs, labels, 0.1, &mut g), g)
            })
            .hessian(|w| s::logreg_nll_hessian(w, xs, labels, 0.1))
            .analytic(|w| {
                let m = xs.len() as f64;
                let mut g: Flat = w.iter().map(|v| 0.1 * v).collect();
                for (x, &y) in xs.iter().zip(labels) {
                    let p = sigmoid(dot(x, w));
                    let r = p - if y { 1.0 } else { 0.0 };
                    for j in 0..w.len() {
                        g[j] += r * x[j] / m;
                    }
                }
                g
            })
            // Large weights too, where the stable softplus takes its other branch.
            .run(POINTS, range(4, -30.0, 30.0));
        check_scalar_vjp(
            "logreg_nll_vjp",
            range(4, -3.0, 3.0),
            &|w| s::logreg_nll(w, xs, labels, 0.1),
            &|w, c| s::logreg_nll_vjp(w, xs, labels, 0.1, c),
        );
    }

    #[test]
    fn logistic_regression_with_usize_labels_and_a_bias() {
        let (xs, ys) = dataset("logreg_indexed", 10, 3);
        let labels: Vec<usize> = ys.iter().map(|&y| (y > 0.4) as usize).collect();
        let (xs, labels) = (&xs, &labels);
        Probe::new("logreg_indexed", |x| {
            s::logreg_indexed(&x[..3], x[3], xs, labels)
        })
        .grad(|x| {
            let (v, (g, b)) = s::logreg_indexed_grad(&x[..3], x[3], xs, labels);
            (v, [g, vec![b]].concat())
        })
        .jvp(|x, t| s::logreg_indexed_jvp(&x[..3], x[3], xs, labels, (t[..3].to_vec(), t[3])))
        .grad_into(|x| {
            let (mut g, mut b) = (vec![GARBAGE; 3], GARBAGE);
            let v = s::logreg_indexed_grad_into(&x[..3], x[3], xs, labels, (&mut g, &mut b));
            (v, [g, vec![b]].concat())
        })
        .analytic(|x| {
            let mut g = vec![0.0; 4];
            for (row, &y) in xs.iter().zip(labels) {
                let z = x[3] + dot(row, &x[..3]);
                let r = 1.0 / (1.0 + (-z).exp()) - y as f64;
                for j in 0..3 {
                    g[j] += r * row[j];
                }
                g[3] += r;
            }
            g
        })
        .run(POINTS, range(4, -2.0, 2.0));
    }

    #[test]
    fn poisson_regression() {
        let (xs, _) = dataset("poisson", 12, 3);
        let counts: Vec<u32> = (0..12).map(|i| (i * 7 % 5) as u32).collect();
        let (xs, counts) = (&xs, &counts);
        Probe::new("poisson_nll", |b| s::poisson_nll(b, xs, counts))
            .grad(|b| s::poisson_nll_grad(b, xs, counts))
            .jvp(|b, t| s::poisson_nll_jvp(b, xs, counts, t.to_vec()))
            .grad_into(|b| {
                let mut g = vec![GARBAGE; b.len()];
                (s::poisson_nll_grad_into(b, xs, counts, &mut g), g)
            })
            .hessian(|b| s::poisson_nll_hessian(b, xs, counts))
            .analytic(|b| {
                let mut g = vec![0.0; b.len()];
                for (x, &y) in xs.iter().zip(counts) {
                    let r = dot(b, x).exp() - y as f64;
                    for j in 0..b.len() {
                        g[j] += r * x[j];
                    }
                }
                g
            })
            .run(POINTS, range(3, -1.0, 1.0));
    }

    #[test]
    fn logsumexp_is_stable_and_its_gradient_is_softmax() {
        slice(
            "logsumexp",
            s::logsumexp,
            s::logsumexp_grad,
            s::logsumexp_jvp,
            s::logsumexp_grad_into,
        )
        .analytic(|z| {
            let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let e: Flat = z.iter().map(|v| (v - m).exp()).collect();
            let total: f64 = e.iter().sum();
            e.iter().map(|v| v / total).collect()
        })
        .run(POINTS, distinct(5, -5.0, 5.0, 1e-3));
        // Far beyond `exp`'s range.
        let (v, g) = s::logsumexp_grad(&[1000.0, 1000.0]);
        assert_near(v, 1000.0 + 2f64.ln(), 1e-15, 0.0, "logsumexp at 1000");
        assert_vec_near(&g, &[0.5, 0.5], 1e-15, "softmax at 1000");
    }

    #[test]
    fn softmax_regression_over_a_weight_matrix() {
        let (k, d) = (3, 4);
        let (xs, ys) = dataset("softmax", 8, d);
        let labels: Vec<usize> = ys.iter().map(|&y| (y * k as f64) as usize).collect();
        let (xs, labels) = (&xs, &labels);
        let rows = |x: &[f64]| -> Vec<Vec<f64>> { x.chunks(d).map(|r| r.to_vec()).collect() };
        Probe::new("softmax_nll", |x| s::softmax_nll(&rows(x), xs, labels))
            .grad(|x| {
                let (v, g) = s::softmax_nll_grad(&rows(x), xs, labels);
                (v, g.concat())
            })
            .jvp(|x, t| s::softmax_nll_jvp(&rows(x), xs, labels, rows(t)))
            .grad_into(|x| {
                let mut g = vec![vec![GARBAGE; d]; k];
                let v = s::softmax_nll_grad_into(&rows(x), xs, labels, &mut g);
                (v, g.concat())
            })
            .analytic(|x| {
                let w = rows(x);
                let mut g = vec![0.0; k * d];
                for (row, &label) in xs.iter().zip(labels) {
                    let logits: Flat = w.iter().map(|wc| dot(wc, row)).collect();
                    let m = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                    let total: f64 = logits.iter().map(|l| (l - m).exp()).sum();
                    for c in 0..k {
                        let p = (logits[c] - m).exp() / total - (c == label) as u8 as f64;
                        for j in 0..d {
                            g[c * d + j] += p * row[j] / xs.len() as f64;
                        }
                    }
                }
                g
            })
            .run(POINTS, range(k * d, -2.0, 2.0));
        check_scalar_vjp(
            "softmax_nll_vjp",
            range(k * d, -2.0, 2.0),
            &|x| s::softmax_nll(&rows(x), xs, labels),
            &|x, c| {
                let (v, g) = s::softmax_nll_vjp(&rows(x), xs, labels, c);
                (v, g.concat())
            },
        );
    }

    #[test]
    fn kalman_step_into_two_output_parameters() {
        // Flat inputs: x (2), p (4), z.
        let (dt, q, r) = (0.1, 0.01, 0.5);
        let run = |v: &[f64]| -> Flat {
            let (mut xo, mut po) = (vec![GARBAGE; 2], vec![GARBAGE; 4]);
            s::kalman_step(&v[..2], &v[2..6], v[6], dt, q, r, &mut xo, &mut po);
            [xo, po].concat()
        };
        let sample = |g: &mut Lcg| {
            let mut v = g.vec(2, -1.0, 1.0);
            // A covariance: positive diagonal, symmetric off-diagonal.
            let off = g.uniform(-0.2, 0.2);
            v.extend([g.uniform(0.5, 2.0), off, off, g.uniform(0.5, 2.0)]);
            v.push(g.uniform(-1.0, 1.0));
            v
        };
        check_vector(
            "kalman_step",
            POINTS,
            sample,
            &run,
            &|v, c| {
                let (mut xo, mut po) = (vec![GARBAGE; 2], vec![GARBAGE; 4]);
                let (gx, gp, gz) = s::kalman_step_vjp(
                    &v[..2],
                    &v[2..6],
                    v[6],
                    dt,
                    q,
                    r,
                    &mut xo,
                    &mut po,
                    &c[..2],
                    &c[2..],
                );
                ([xo, po].concat(), [gx, gp, vec![gz]].concat())
            },
            &|v, t| {
                let (mut xo, mut po) = (vec![GARBAGE; 2], vec![GARBAGE; 4]);
                let (mut dx, mut dp) = (vec![GARBAGE; 2], vec![GARBAGE; 4]);
                let tangent = (t[..2].to_vec(), t[2..6].to_vec(), t[6]);
                s::kalman_step_jvp(
                    &v[..2],
                    &v[2..6],
                    v[6],
                    dt,
                    q,
                    r,
                    &mut xo,
                    &mut po,
                    tangent,
                    &mut dx,
                    &mut dp,
                );
                ([xo, po].concat(), [dx, dp].concat())
            },
            None,
        );
    }

    #[test]
    fn kalman_likelihood_with_the_filtered_states_as_an_output() {
        let zs = Lcg::new(3).vec(6, -1.0, 1.0);
        let zs = &zs;
        let run = |v: &[f64]| -> Flat {
            let mut filtered = vec![GARBAGE; zs.len()];
            let nll = s::kalman_nll(v[0], v[1], zs, &mut filtered);
            [vec![nll], filtered].concat()
        };
        let sample = |g: &mut Lcg| vec![g.uniform(0.05, 1.0), g.uniform(0.05, 1.0)];
        check_vector(
            "kalman_nll",
            POINTS,
            sample,
            &run,
            &|v, c| {
                let mut filtered = vec![GARBAGE; zs.len()];
                let (nll, (gq, gr)) =
                    s::kalman_nll_vjp(v[0], v[1], zs, &mut filtered, c[0], &c[1..]);
                ([vec![nll], filtered].concat(), vec![gq, gr])
            },
            &|v, t| {
                let mut filtered = vec![GARBAGE; zs.len()];
                let mut d = vec![GARBAGE; zs.len()];
                let (nll, dn) =
                    s::kalman_nll_jvp(v[0], v[1], zs, &mut filtered, (t[0], t[1]), &mut d);
                ([vec![nll], filtered].concat(), [vec![dn], d].concat())
            },
            None,
        );
        Probe::new("kalman_nll_grad", |v| run(v)[0])
            .grad(|v| {
                let mut filtered = vec![GARBAGE; zs.len()];
                let (nll, (a, b)) = s::kalman_nll_grad(v[0], v[1], zs, &mut filtered);
                assert_vec_near(&filtered, &run(v)[1..], 1e-15, "kalman_nll_grad's output");
                (nll, vec![a, b])
            })
            .grad_into(|v| {
                let mut filtered = vec![GARBAGE; zs.len()];
                let (mut a, mut b) = (GARBAGE, GARBAGE);
                let nll = s::kalman_nll_grad_into(v[0], v[1], zs, &mut filtered, (&mut a, &mut b));
                (nll, vec![a, b])
            })
            .run(POINTS, sample);
    }

    #[test]
    fn welford_variance() {
        slice2!(
            s::welford,
            welford_grad,
            welford_jvp,
            welford_grad_into,
            welford_hessian
        )
        .analytic(|x| {
            let n = x.len() as f64;
            let mean = x.iter().sum::<f64>() / n;
            x.iter().map(|v| 2.0 * (v - mean) / (n - 1.0)).collect()
        })
        .run(POINTS, range(6, -3.0, 5.0));
        check_scalar_vjp(
            "welford_vjp",
            range(5, -3.0, 3.0),
            &s::welford,
            &s::welford_vjp,
        );
    }
}

mod dynamics {
    use super::physics as ph;
    use super::*;

    fn bodies(x: &[f64]) -> Vec<[f64; 3]> {
        x.chunks(3).map(a3).collect()
    }

    /// Positions of `n` bodies at least `gap` apart.
    fn spread(n: usize) -> impl Fn(&mut Lcg) -> Flat {
        move |r| loop {
            let x = r.vec(3 * n, -2.0, 2.0);
            let ok = (0..n).all(|i| {
                (0..i).all(|j| {
                    norm(&[
                        x[3 * i] - x[3 * j],
                        x[3 * i + 1] - x[3 * j + 1],
                        x[3 * i + 2] - x[3 * j + 2],
                    ]) > 0.3
                })
            });
            if ok {
                break x;
            }
        }
    }

    #[test]
    fn nbody_potential_over_points() {
        let m = [1.0, 2.0, 0.5, 3.0];
        let m = &m;
        Probe::new("nbody_potential", |x| ph::nbody_potential(&bodies(x), m))
            .grad(|x| {
                let (v, g) = ph::nbody_potential_grad(&bodies(x), m);
                (v, g.concat())
            })
            .jvp(|x, t| ph::nbody_potential_jvp(&bodies(x), m, bodies(t)))
            .grad_into(|x| {
                let mut g = vec![[GARBAGE; 3]; 4];
                let v = ph::nbody_potential_grad_into(&bodies(x), m, &mut g);
                (v, g.concat())
            })
            .analytic(|x| {
                // The force on each body is minus the gradient.
                let p = bodies(x);
                let mut g = vec![0.0; 12];
                for i in 0..4 {
                    for j in 0..4 {
                        if i != j {
                            let d: Flat = (0..3).map(|k| p[i][k] - p[j][k]).collect();
                            let r = norm(&d);
                            for k in 0..3 {
                                g[3 * i + k] += m[i] * m[j] * d[k] / r.powi(3);
                            }
                        }
                    }
                }
                g
            })
            .run(POINTS, spread(4));
        check_scalar_vjp(
            "nbody_potential_vjp",
            spread(4),
            &|x| ph::nbody_potential(&bodies(x), m),
            &|x, c| {
                let (v, g) = ph::nbody_potential_vjp(&bodies(x), m, c);
                (v, g.concat())
            },
        );
    }

    #[test]
    fn nbody_softened_in_positions_and_masses() {
        let n = 3;
        let eps = 0.1;
        Probe::new("nbody_softened", move |x| {
            ph::nbody_softened(&bodies(&x[..3 * n]), &x[3 * n..], eps)
        })
        .grad(move |x| {
            let (v, (gp, gm)) = ph::nbody_softened_grad(&bodies(&x[..3 * n]), &x[3 * n..], eps);
            (v, [gp.concat(), gm].concat())
        })
        .jvp(move |x, t| {
            let tangent = (bodies(&t[..3 * n]), t[3 * n..].to_vec());
            ph::nbody_softened_jvp(&bodies(&x[..3 * n]), &x[3 * n..], eps, tangent)
        })
        .grad_into(move |x| {
            let (mut gp, mut gm) = (vec![[GARBAGE; 3]; n], vec![GARBAGE; n]);
            let v = ph::nbody_softened_grad_into(
                &bodies(&x[..3 * n]),
                &x[3 * n..],
                eps,
                (&mut gp, &mut gm),
            );
            (v, [gp.concat(), gm].concat())
        })
        .run(POINTS, move |r| [spread(n)(r), r.vec(n, 0.5, 2.0)].concat());
    }

    #[test]
    fn spring_chain_energy() {
        let (k, rest, g) = (3.0, 0.5, 9.81);
        Probe::new("spring_chain", move |x| ph::spring_chain(x, k, rest, g))
            .grad(move |x| ph::spring_chain_grad(x, k, rest, g))
            .jvp(move |x, t| ph::spring_chain_jvp(x, k, rest, g, t.to_vec()))
            .grad_into(move |x| {
                let mut d = vec![GARBAGE; x.len()];
                (ph::spring_chain_grad_into(x, k, rest, g, &mut d), d)
            })
            .hessian(move |x| ph::spring_chain_hessian(x, k, rest, g))
            .analytic(move |x| {
                let n = x.len();
                let mut d = vec![g; n];
                for i in 0..n - 1 {
                    let f = k * (x[i + 1] - x[i] - rest);
                    d[i] -= f;
                    d[i + 1] += f;
                }
                d
            })
            .run(POINTS, range(5, -2.0, 2.0));
        // The Hessian is the constant stiffness matrix.
        let (_, _, h) = ph::spring_chain_hessian(&[0.1, 0.4, 1.3], k, rest, g);
        let expected = vec![
            vec![3.0, -3.0, 0.0],
            vec![-3.0, 6.0, -3.0],
            vec![0.0, -3.0, 3.0],
        ];
        for i in 0..3 {
            assert_vec_near(&h[i], &expected[i], 1e-14, "spring_chain's stiffness");
        }
    }

    #[test]
    fn lotka_right_hand_side_and_its_jacobian() {
        // Flat inputs: y (2), p (4).
        let run = |v: &[f64]| -> Flat {
            let mut d = vec![GARBAGE; 2];
            ph::lotka(&v[..2], &v[2..], &mut d);
            d
        };
        check_vector(
            "lotka",
            POINTS,
            range(6, 0.2, 2.0),
            &run,
            &|v, c| {
                let mut d = vec![GARBAGE; 2];
                let (gy, gp) = ph::lotka_vjp(&v[..2], &v[2..], &mut d, c);
                (d, [gy, gp].concat())
            },
            &|v, t| {
                let (mut d, mut dd) = (vec![GARBAGE; 2], vec![GARBAGE; 2]);
                ph::lotka_jvp(
                    &v[..2],
                    &v[2..],
                    &mut d,
                    (t[..2].to_vec(), t[2..].to_vec()),
                    &mut dd,
                );
                (d, dd)
            },
            Some(&|v| {
                let mut d = vec![GARBAGE; 2];
                let j = ph::lotka_jacobian(&v[..2], &v[2..], &mut d);
                assert_vec_near(&d, &run(v), 1e-15, "lotka_jacobian's output");
                j
            }),
        );
        // By hand at one point.
        let (y, p) = ([1.5, 0.5], [1.1, 0.4, 0.1, 0.4]);
        let j = ph::lotka_jacobian(&y, &p, &mut [0.0; 2]);
        let expected = [
            [
                p[0] - p[1] * y[1],
                -p[1] * y[0],
                y[0],
                -y[0] * y[1],
                0.0,
                0.0,
            ],
            [
                p[2] * y[1],
                p[2] * y[0] - p[3],
                0.0,
                0.0,
                y[0] * y[1],
                -y[1],
            ],
        ];
        for i in 0..2 {
            assert_vec_near(&j[i], &expected[i], 1e-15, "lotka_jacobian by hand");
        }
    }

    #[test]
    fn rk4_through_an_output_parameter_rhs() {
        let (h, steps) = (0.05, 10);
        check_vector(
            "rk4",
            POINTS,
            range(6, 0.3, 1.5),
            &|v| ph::rk4(&v[..2], &v[2..], h, steps),
            &|v, c| {
                let (y, (gy, gp)) = ph::rk4_vjp(&v[..2], &v[2..], h, steps, c.to_vec());
                (y, [gy, gp].concat())
            },
            &|v, t| {
                ph::rk4_jvp(
                    &v[..2],
                    &v[2..],
                    h,
                    steps,
                    (t[..2].to_vec(), t[2..].to_vec()),
                )
            },
            Some(&|v| ph::rk4_jacobian(&v[..2], &v[2..], h, steps)),
        );
        let (y0, target) = ([1.0, 0.5], [0.8, 0.7]);
        let (y0, target) = (&y0, &target);
        Probe::new("rk4_fit", |p| ph::rk4_fit(p, y0, target))
            .grad(|p| ph::rk4_fit_grad(p, y0, target))
            .jvp(|p, t| ph::rk4_fit_jvp(p, y0, target, t.to_vec()))
            .grad_into(|p| {
                let mut g = vec![GARBAGE; 4];
                (ph::rk4_fit_grad_into(p, y0, target, &mut g), g)
            })
            .run(POINTS, range(4, 0.2, 1.5));
    }

    #[test]
    fn leapfrog_returns_a_phase_space_point() {
        let (dt, n) = (0.1, 12);
        check_vector(
            "leapfrog",
            POINTS,
            |r| {
                vec![
                    r.uniform(-1.0, 1.0),
                    r.uniform(-1.0, 1.0),
                    r.uniform(0.5, 2.0),
                ]
            },
            &|v| {
                let (q, p) = ph::leapfrog(v[0], v[1], v[2], dt, n);
                vec![q, p]
            },
            &|v, c| {
                let ((q, p), (a, b, k)) = ph::leapfrog_vjp(v[0], v[1], v[2], dt, n, (c[0], c[1]));
                (vec![q, p], vec![a, b, k])
            },
            &|v, t| {
                let ((q, p), (dq, dp)) =
                    ph::leapfrog_jvp(v[0], v[1], v[2], dt, n, (t[0], t[1], t[2]));
                (vec![q, p], vec![dq, dp])
            },
            None,
        );
    }

    #[test]
    fn pendulum_energy_through_an_array_rhs() {
        Probe::new("pendulum_energy", |x| ph::pendulum_energy(a2(x), x[2]))
            .grad(|x| {
                let (v, (g, dt)) = ph::pendulum_energy_grad(a2(x), x[2]);
                (v, vec![g[0], g[1], dt])
            })
            .jvp(|x, t| ph::pendulum_energy_jvp(a2(x), x[2], (a2(t), t[2])))
            .grad_into(|x| {
                let (mut g, mut dt) = ([GARBAGE; 2], GARBAGE);
                let v = ph::pendulum_energy_grad_into(a2(x), x[2], (&mut g, &mut dt));
                (v, vec![g[0], g[1], dt])
            })
            .hessian(|x| {
                let (v, (g, dt), h) = ph::pendulum_energy_hessian(a2(x), x[2]);
                (v, vec![g[0], g[1], dt], h)
            })
            .run(POINTS, |r| {
                vec![
                    r.uniform(-1.0, 1.0),
                    r.uniform(-2.0, 2.0),
                    r.uniform(0.1, 1.0),
                ]
            });
        // With dt = 0 the state does not move: the energy's gradient by hand.
        let (_, (g, _)) = ph::pendulum_energy_grad([0.4, -0.3], 0.0);
        assert_vec_near(
            &g,
            &[9.81 * 0.4f64.sin(), -0.3],
            1e-15,
            "pendulum at dt = 0",
        );
    }
}

mod learning {
    use super::ml::{self, Mlp, Tiny};
    use super::*;
    use autodiff::optim::{Adam, Minimizer};
    use autodiff::Differentiable;

    fn net(rng: &mut Lcg, inputs: usize, hidden: usize) -> Mlp {
        Mlp {
            w1: rng.vec(hidden * inputs, -1.0, 1.0),
            b1: rng.vec(hidden, -0.5, 0.5),
            w2: rng.vec(hidden, -1.0, 1.0),
            b2: rng.uniform(-0.5, 0.5),
            hidden,
            inputs,
        }
    }

    /// Targets of a smooth function of the inputs.
    fn regression(rows: usize) -> (Vec<Vec<f64>>, Vec<f64>) {
        let mut rng = Lcg::new(99);
        let xs: Vec<Vec<f64>> = (0..rows).map(|_| rng.vec(2, -1.0, 1.0)).collect();
        let ys = xs.iter().map(|x| (2.0 * x[0]).sin() * x[1] + 0.3).collect();
        (xs, ys)
    }

    #[test]
    fn mlp_loss_over_a_parameter_struct() {
        let (xs, ys) = regression(10);
        let (xs, ys) = (&xs, &ys);
        let shape = net(&mut Lcg::new(1), 2, 4);
        let shape = &shape;
        Probe::new("mse", |x| ml::mse(&shape.from_flat(x), xs, ys))
            .grad(|x| {
                let (v, g) = ml::mse_grad(&shape.from_flat(x), xs, ys);
                assert_eq!((g.hidden, g.inputs), (4, 2), "no_grad fields copied");
                (v, g.to_flat())
            })
            .jvp(|x, t| ml::mse_jvp(&shape.from_flat(x), xs, ys, shape.from_flat(t)))
            .grad_into(|x| {
                let mut g = shape.from_flat(&vec![GARBAGE; x.len()]);
                let v = ml::mse_grad_into(&shape.from_flat(x), xs, ys, &mut g);
                (v, g.to_flat())
            })
            .run(POINTS, |r| net(r, 2, 4).to_flat());
        check_scalar_vjp(
            "mse_vjp",
            |r| net(r, 2, 4).to_flat(),
            &|x| ml::mse(&shape.from_flat(x), xs, ys),
            &|x, c| {
                let (v, g) = ml::mse_vjp(&shape.from_flat(x), xs, ys, c);
                (v, g.to_flat())
            },
        );
    }

    #[test]
    fn adam_loop_on_grad_into_decreases_the_loss() {
        let (xs, ys) = regression(16);
        let mut p = net(&mut Lcg::new(5), 2, 6);
        let mut g = p.zero_like();
        let (lr, b1, b2, eps) = (0.05, 0.9, 0.999, 1e-8);
        let n = p.to_flat().len();
        let (mut m, mut v) = (vec![0.0; n], vec![0.0; n]);
        let first = ml::mse(&p, &xs, &ys);
        let mut last = first;
        for t in 1..=300 {
            g = g.from_flat(&vec![GARBAGE; n]);
            last = ml::mse_grad_into(&p, &xs, &ys, &mut g);
            let flat_g = g.to_flat();
            assert!(
                flat_g.iter().all(|d| d.is_finite()),
                "every component written at step {t}"
            );
            if t % 50 == 1 {
                // The gradient used by the loop is the true one.
                let at = p.to_flat();
                let fd = fd_gradient(&|x: &[f64]| ml::mse(&p.from_flat(x), &xs, &ys), &at);
                assert_vec_near(&flat_g, &fd, 1e-6, &format!("mse_grad_into at step {t}"));
            }
            let mut flat = p.to_flat();
            for i in 0..n {
                m[i] = b1 * m[i] + (1.0 - b1) * flat_g[i];
                v[i] = b2 * v[i] + (1.0 - b2) * flat_g[i] * flat_g[i];
                let mh = m[i] / (1.0 - b1.powi(t));
                let vh = v[i] / (1.0 - b2.powi(t));
                flat[i] -= lr * mh / (vh.sqrt() + eps);
            }
            p = p.from_flat(&flat);
        }
        assert!(last < 0.2 * first, "Adam by grad_into: {first} -> {last}");
        // `autodiff::optim::Adam` on the struct through `f_grad`.
        let p0 = net(&mut Lcg::new(5), 2, 6);
        let adam = Adam {
            learning_rate: 0.05,
            max_iterations: 300,
            ..Adam::default()
        };
        let (p1, minimum) = adam.minimize_params(|p: &Mlp| ml::mse_grad(p, &xs, &ys), &p0);
        assert!(
            minimum.value < 0.2 * first,
            "optim::Adam: {first} -> {}",
            minimum.value
        );
        assert_near(
            ml::mse(&p1, &xs, &ys),
            minimum.value,
            1e-12,
            0.0,
            "the minimum's value",
        );
        assert_eq!(p1.hidden, 6);
    }

    #[test]
    fn relu_net_over_array_fields() {
        let mut rng = Lcg::new(17);
        let xs: Vec<[f64; 2]> = (0..8).map(|_| a2(&rng.vec(2, -1.0, 1.0))).collect();
        let ys = rng.vec(8, -1.0, 1.0);
        let (xs, ys) = (&xs, &ys);
        let shape = Tiny {
            w: [0.0; 6],
            b: [0.0; 3],
            v: [0.0; 3],
        };
        let shape = &shape;
        Probe::new("tiny_loss", |x| ml::tiny_loss(&shape.from_flat(x), xs, ys))
            .grad(|x| {
                let (v, g) = ml::tiny_loss_grad(&shape.from_flat(x), xs, ys);
                (v, g.to_flat())
            })
            .jvp(|x, t| ml::tiny_loss_jvp(&shape.from_flat(x), xs, ys, shape.from_flat(t)))
            .grad_into(|x| {
                let mut g = shape.from_flat(&[GARBAGE; 12]);
                let v = ml::tiny_loss_grad_into(&shape.from_flat(x), xs, ys, &mut g);
                (v, g.to_flat())
            })
            .analytic(|x| {
                let p = shape.from_flat(x);
                let mut g = Tiny {
                    w: [0.0; 6],
                    b: [0.0; 3],
                    v: [0.0; 3],
                };
                for (x, y) in xs.iter().zip(ys) {
                    let a: Vec<f64> = (0..3)
                        .map(|h| p.w[2 * h] * x[0] + p.w[2 * h + 1] * x[1] + p.b[h])
                        .collect();
                    let out: f64 = (0..3).map(|h| p.v[h] * a[h].max(0.0)).sum();
                    let e = 2.0 * (out - y);
                    for h in 0..3 {
                        g.v[h] += e * a[h].max(0.0);
                        if a[h] > 0.0 {
                            g.w[2 * h] += e * p.v[h] * x[0];
                            g.w[2 * h + 1] += e * p.v[h] * x[1];
                            g.b[h] += e * p.v[h];
                        }
                    }
                }
                g.to_flat()
            })
            .run(POINTS, range(12, -1.0, 1.0));
    }
}

mod generic_forms {
    use super::generic as gf;
    use super::points as pt;
    use super::*;

    #[test]
    fn argmin_style_generic_functions() {
        slice2!(
            gf::styblinski,
            styblinski_grad,
            styblinski_jvp,
            styblinski_grad_into,
            styblinski_hessian
        )
        .analytic(|x| {
            x.iter()
                .map(|v| 0.5 * (4.0 * v.powi(3) - 32.0 * v + 5.0))
                .collect()
        })
        .run(POINTS, range(4, -5.0, 5.0));
        slice(
            "rosen_where",
            gf::rosen_where,
            gf::rosen_where_grad,
            gf::rosen_where_jvp,
            gf::rosen_where_grad_into,
        )
        .run(POINTS, range(5, -2.0, 2.0));
        // On dual numbers, as a generic function runs.
        let x = [
            autodiff::Dual::new(0.5, 1.0),
            autodiff::Dual::new(-0.3, 0.0),
        ];
        let (_, g) = gf::rosen_where_grad(&[0.5, -0.3]);
        assert_near(
            gf::rosen_where(&x).eps,
            g[0],
            1e-12,
            0.0,
            "rosen_where on duals",
        );
        Probe::new("sphere_n", |x| gf::sphere_n::<3>(a3(x)))
            .grad(|x| {
                let (v, g) = gf::sphere_n_grad::<3>(a3(x));
                (v, g.to_vec())
            })
            .jvp(|x, t| gf::sphere_n_jvp::<3>(a3(x), a3(t)))
            .grad_into(|x| {
                let mut g = [GARBAGE; 3];
                (gf::sphere_n_grad_into::<3>(a3(x), &mut g), g.to_vec())
            })
            .analytic(|x| x.iter().map(|v| 2.0 * v).collect())
            .run(POINTS, range(3, -2.0, 2.0));
    }

    #[test]
    fn griewank_schwefel_norm_variance() {
        slice2!(
            gf::griewank,
            griewank_grad,
            griewank_jvp,
            griewank_grad_into,
            griewank_hessian
        )
        .run(POINTS, range(4, -10.0, 10.0));
        slice(
            "schwefel",
            gf::schwefel,
            gf::schwefel_grad,
            gf::schwefel_jvp,
            gf::schwefel_grad_into,
        )
        .analytic(|x| {
            x.iter()
                .map(|&v| {
                    let r = v.abs().sqrt();
                    -(r.sin() + v * r.cos() * 0.5 / r * v.signum())
                })
                .collect()
        })
        .run(POINTS, away_from(3, -400.0, 400.0, 1000.0, 0.0));
        slice(
            "norm2",
            gf::norm2,
            gf::norm2_grad,
            gf::norm2_jvp,
            gf::norm2_grad_into,
        )
        .analytic(|x| {
            let r = norm(x);
            x.iter().map(|v| v / r).collect()
        })
        .run(POINTS, range(4, -2.0, 2.0));
        slice2!(
            gf::variance,
            variance_grad,
            variance_jvp,
            variance_grad_into,
            variance_hessian
        )
        .analytic(|x| {
            let n = x.len() as f64;
            let mean = x.iter().sum::<f64>() / n;
            x.iter().map(|v| 2.0 * (v - mean) / (n - 1.0)).collect()
        })
        .run(POINTS, range(5, -3.0, 3.0));
    }

    #[test]
    fn horner_with_mul_add() {
        let n = 4;
        Probe::new("horner", move |x| gf::horner(&x[..n], x[n]))
            .grad(move |x| {
                let (v, (gc, gx)) = gf::horner_grad(&x[..n], x[n]);
                (v, [gc, vec![gx]].concat())
            })
            .jvp(move |x, t| gf::horner_jvp(&x[..n], x[n], (t[..n].to_vec(), t[n])))
            .grad_into(move |x| {
                let (mut gc, mut gx) = (vec![GARBAGE; n], GARBAGE);
                let v = gf::horner_grad_into(&x[..n], x[n], (&mut gc, &mut gx));
                (v, [gc, vec![gx]].concat())
            })
            .hessian(move |x| {
                let (v, (gc, gx), h) = gf::horner_hessian(&x[..n], x[n]);
                (v, [gc, vec![gx]].concat(), h)
            })
            .analytic(move |x| {
                let t = x[n];
                let mut g: Flat = (0..n).map(|i| t.powi(i as i32)).collect();
                g.push((1..n).map(|i| i as f64 * x[i] * t.powi(i as i32 - 1)).sum());
                g
            })
            .run(POINTS, range(n + 1, -1.5, 1.5));
    }

    #[test]
    fn folds_closures_and_sub_slices() {
        slice(
            "max_abs_plus_max",
            gf::max_abs_plus_max,
            gf::max_abs_plus_max_grad,
            gf::max_abs_plus_max_jvp,
            gf::max_abs_plus_max_grad_into,
        )
        .run(POINTS, distinct(4, -3.0, 3.0, 0.05));
        slice(
            "neighbour_sum",
            gf::neighbour_sum,
            gf::neighbour_sum_grad,
            gf::neighbour_sum_jvp,
            gf::neighbour_sum_grad_into,
        )
        .analytic(|x| {
            let n = x.len();
            (0..n)
                .map(|i| {
                    let left = if i > 0 { x[i - 1] } else { 0.0 };
                    let right = if i + 1 < n { x[i + 1] } else { 0.0 };
                    left + right + x[i].cos()
                })
                .collect()
        })
        .run(POINTS, range(5, -2.0, 2.0));
        slice(
            "dixon_price",
            gf::dixon_price,
            gf::dixon_price_grad,
            gf::dixon_price_jvp,
            gf::dixon_price_grad_into,
        )
        .analytic(|x| {
            let n = x.len();
            let mut g = vec![0.0; n];
            g[0] += 2.0 * (x[0] - 1.0);
            for i in 1..n {
                let r = 2.0 * x[i] * x[i] - x[i - 1];
                let w = (i + 1) as f64;
                g[i] += w * 2.0 * r * 4.0 * x[i];
                g[i - 1] -= w * 2.0 * r;
            }
            g
        })
        .run(POINTS, range(4, -2.0, 2.0));
        slice(
            "skip_first",
            gf::skip_first,
            gf::skip_first_grad,
            gf::skip_first_jvp,
            gf::skip_first_grad_into,
        )
        .analytic(|x| {
            let mut g: Flat = x
                .iter()
                .enumerate()
                .map(|(i, v)| 2.0 * i as f64 * v)
                .collect();
            g[0] = 1.0;
            g
        })
        .run(POINTS, range(4, -2.0, 2.0));
        let mu = [-1.0, 0.5, 2.0];
        let mu = &mu;
        Probe::new("gaussian_mixture", |x| gf::gaussian_mixture(x[0], &x[1..]))
            .grad(|x| {
                let (v, (gx, gm)) = gf::gaussian_mixture_grad(x[0], &x[1..]);
                (v, [vec![gx], gm].concat())
            })
            .jvp(|x, t| gf::gaussian_mixture_jvp(x[0], &x[1..], (t[0], t[1..].to_vec())))
            .run(POINTS, move |r| {
                [
                    vec![r.uniform(-2.0, 3.0)],
                    mu.iter().map(|m| m + r.uniform(-0.5, 0.5)).collect(),
                ]
                .concat()
            });
        slice(
            "total_variation",
            |x| gf::total_variation(x.to_vec()),
            |x| gf::total_variation_grad(x.to_vec()),
            |x, t| gf::total_variation_jvp(x.to_vec(), t),
            |x, g| gf::total_variation_grad_into(x.to_vec(), g),
        )
        .run(POINTS, range(5, -1.0, 1.0));
    }

    #[test]
    fn single_precision() {
        let (v, (gx, gy)) = gf::booth32_grad(1.5, -0.5);
        let (a, b) = (1.5f32 + 2.0 * -0.5 - 7.0, 2.0 * 1.5f32 - 0.5 - 5.0);
        assert_eq!(v, a * a + b * b);
        assert!((gx - (2.0 * a + 4.0 * b)).abs() < 1e-5 && (gy - (4.0 * a + 2.0 * b)).abs() < 1e-5);
        let (_, d) = gf::booth32_jvp(1.5, -0.5, (1.0, 0.0));
        assert_eq!(d, gx);
    }

    fn bodies(x: &[f64]) -> Vec<[f64; 3]> {
        x.chunks(3).map(a3).collect()
    }

    #[test]
    fn points_unpacked_and_iterated_in_pairs() {
        let k = 0.7;
        Probe::new("pair_energy", move |x| pt::pair_energy(&bodies(x), k))
            .grad(move |x| {
                let (v, g) = pt::pair_energy_grad(&bodies(x), k);
                (v, g.concat())
            })
            .jvp(move |x, t| pt::pair_energy_jvp(&bodies(x), k, bodies(t)))
            .grad_into(move |x| {
                let mut g = vec![[GARBAGE; 3]; x.len() / 3];
                (pt::pair_energy_grad_into(&bodies(x), k, &mut g), g.concat())
            })
            .analytic(move |x| {
                let p = bodies(x);
                let mut g: Flat = x.iter().map(|v| k * v).collect();
                for i in 0..p.len() - 1 {
                    let d: Flat = (0..3).map(|c| p[i][c] - p[i + 1][c]).collect();
                    let r2 = dot(&d, &d);
                    for c in 0..3 {
                        g[3 * i + c] += 2.0 * d[c] / (r2 + 1.0);
                        g[3 * (i + 1) + c] -= 2.0 * d[c] / (r2 + 1.0);
                    }
                }
                g
            })
            .run(POINTS, range(12, -1.0, 1.0));
        let pts = |x: &[f64]| -> Vec<[f64; 2]> { x.chunks(2).map(a2).collect() };
        Probe::new("ring", move |x| pt::ring(&pts(x)))
            .grad(move |x| {
                let (v, g) = pt::ring_grad(&pts(x));
                (v, g.concat())
            })
            .jvp(move |x, t| pt::ring_jvp(&pts(x), pts(t)))
            .grad_into(move |x| {
                let mut g = vec![[GARBAGE; 2]; x.len() / 2];
                (pt::ring_grad_into(&pts(x), &mut g), g.concat())
            })
            .analytic(move |x| {
                x.chunks(2)
                    .flat_map(|c| {
                        let r = 2.0 * (c[0] * c[0] + c[1] * c[1] - 1.0) * 2.0;
                        [r * c[0], r * c[1]]
                    })
                    .collect()
            })
            .run(POINTS, range(8, -1.5, 1.5));
    }

    #[test]
    fn array_results_in_place_steps_and_flat_outputs() {
        check_vector(
            "spring_force",
            POINTS,
            |r| [r.vec(3, -2.0, 2.0), vec![r.uniform(0.5, 2.0)]].concat(),
            &|x| pt::spring_force(&a3(x), x[3]).to_vec(),
            &|x, c| {
                let (y, (gp, gk)) = pt::spring_force_vjp(&a3(x), x[3], a3(c));
                (y.to_vec(), [gp.to_vec(), vec![gk]].concat())
            },
            &|x, t| {
                let (y, d) = pt::spring_force_jvp(&a3(x), x[3], (a3(t), t[3]));
                (y.to_vec(), d.to_vec())
            },
            Some(&|x| pt::spring_force_jacobian(&a3(x), x[3])),
        );
        // An in-place step: `x` is read before it is written, so it is an input and an output.
        let n = 3;
        let run = move |v: &[f64]| -> Flat {
            let mut x = v[..n].to_vec();
            pt::euler_in_place(&mut x, &v[n..2 * n], v[2 * n]);
            x
        };
        check_vector(
            "euler_in_place",
            POINTS,
            |r| [r.vec(6, -1.0, 1.0), vec![r.uniform(0.01, 0.5)]].concat(),
            &run,
            &|v, c| {
                let mut x = v[..n].to_vec();
                let (gx, gv, gdt) = pt::euler_in_place_vjp(&mut x, &v[n..2 * n], v[2 * n], c);
                (x, [gx, gv, vec![gdt]].concat())
            },
            &|v, t| {
                let mut x = v[..n].to_vec();
                let mut d = vec![GARBAGE; n];
                let tangent = (t[..n].to_vec(), t[n..2 * n].to_vec(), t[2 * n]);
                pt::euler_in_place_jvp(&mut x, &v[n..2 * n], v[2 * n], tangent, &mut d);
                (x, d)
            },
            Some(&|v| {
                let mut x = v[..n].to_vec();
                pt::euler_in_place_jacobian(&mut x, &v[n..2 * n], v[2 * n])
            }),
        );
        let square = |x: &[f64]| [[x[0], x[1]], [x[2], x[3]]];
        check_vector(
            "covariance_predict",
            POINTS,
            range(5, -1.0, 1.0),
            &|x| {
                let mut out = [GARBAGE; 4];
                pt::covariance_predict(square(x), x[4], &mut out);
                out.to_vec()
            },
            &|x, c| {
                let mut out = [GARBAGE; 4];
                let (gp, gdt) = pt::covariance_predict_vjp(
                    square(x),
                    x[4],
                    &mut out,
                    &[c[0], c[1], c[2], c[3]],
                );
                (out.to_vec(), [gp.concat(), vec![gdt]].concat())
            },
            &|x, t| {
                let (mut out, mut d) = ([GARBAGE; 4], [GARBAGE; 4]);
                pt::covariance_predict_jvp(square(x), x[4], &mut out, (square(t), t[4]), &mut d);
                (out.to_vec(), d.to_vec())
            },
            Some(&|x| pt::covariance_predict_jacobian(square(x), x[4], &mut [GARBAGE; 4])),
        );
    }

    #[test]
    fn a_vec_output_in_an_integrator() {
        let y0 = [1.0, 2.0, 0.5];
        let y0 = &y0;
        Probe::new("decay_loss", |r| pt::decay_loss(r, y0, 6))
            .grad(|r| pt::decay_loss_grad(r, y0, 6))
            .jvp(|r, t| pt::decay_loss_jvp(r, y0, 6, t.to_vec()))
            .grad_into(|r| {
                let mut g = vec![GARBAGE; 3];
                (pt::decay_loss_grad_into(r, y0, 6, &mut g), g)
            })
            .analytic(|r| {
                (0..3)
                    .map(|i| -0.6 * y0[i] * (1.0 - 0.1 * r[i]).powi(5))
                    .collect()
            })
            .run(POINTS, range(3, 0.1, 2.0));
    }
}

mod found_checks {
    use super::found as fd;
    use super::*;

    #[test]
    fn zip_enumerate() {
        let n = 4;
        Probe::new("zip_enumerate", move |x| {
            fd::zip_enumerate(&x[..n], &x[n..])
        })
        .grad(move |x| {
            let (v, (a, b)) = fd::zip_enumerate_grad(&x[..n], &x[n..]);
            (v, [a, b].concat())
        })
        .jvp(move |x, t| {
            fd::zip_enumerate_jvp(&x[..n], &x[n..], (t[..n].to_vec(), t[n..].to_vec()))
        })
        .grad_into(move |x| {
            let (mut a, mut b) = (vec![GARBAGE; n], vec![GARBAGE; n]);
            let v = fd::zip_enumerate_grad_into(&x[..n], &x[n..], (&mut a, &mut b));
            (v, [a, b].concat())
        })
        .hessian(move |x| {
            let (v, (a, b), h) = fd::zip_enumerate_hessian(&x[..n], &x[n..]);
            (v, [a, b].concat(), h)
        })
        .analytic(move |x| {
            let (a, b) = (&x[..n], &x[n..]);
            let mut g = vec![0.0; 2 * n];
            for i in 0..n {
                let k = i as f64;
                g[i] = (k + 1.0) * b[i] + 2.0 * k * (a[i] - b[i]);
                g[n + i] = (k + 1.0) * a[i] - 2.0 * k * (a[i] - b[i]);
            }
            g
        })
        .run(POINTS, range(8, -2.0, 2.0));
    }

    #[test]
    fn row_windows() {
        let (rows, cols) = (4, 3);
        let m = |x: &[f64]| -> Vec<Vec<f64>> {
            x[..rows * cols].chunks(cols).map(|r| r.to_vec()).collect()
        };
        Probe::new("row_windows", move |x| {
            fd::row_windows(&m(x), &x[rows * cols..])
        })
        .grad(move |x| {
            let (v, (g, gw)) = fd::row_windows_grad(&m(x), &x[rows * cols..]);
            (v, [g.concat(), gw].concat())
        })
        .jvp(move |x, t| {
            fd::row_windows_jvp(&m(x), &x[rows * cols..], (m(t), t[rows * cols..].to_vec()))
        })
        .grad_into(move |x| {
            let (mut g, mut gw) = (vec![vec![GARBAGE; cols]; rows], vec![GARBAGE; 3]);
            let v = fd::row_windows_grad_into(&m(x), &x[rows * cols..], (&mut g, &mut gw));
            (v, [g.concat(), gw].concat())
        })
        .run(POINTS, range(rows * cols + 3, -1.5, 1.5));
    }

    #[test]
    fn unpacked() {
        let pts = |x: &[f64]| -> Vec<[f64; 2]> { x[2..].chunks(2).map(a2).collect() };
        Probe::new("unpacked", move |x| fd::unpacked(&pts(x), a2(x)))
            .grad(move |x| {
                let (v, (g, gc)) = fd::unpacked_grad(&pts(x), a2(x));
                (v, [gc.to_vec(), g.concat()].concat())
            })
            .jvp(move |x, t| fd::unpacked_jvp(&pts(x), a2(x), (pts(t), a2(t))))
            .grad_into(move |x| {
                let (mut g, mut gc) = (vec![[GARBAGE; 2]; 3], [GARBAGE; 2]);
                let v = fd::unpacked_grad_into(&pts(x), a2(x), (&mut g, &mut gc));
                (v, [gc.to_vec(), g.concat()].concat())
            })
            .hessian(move |x| {
                // The Hessian's order is the declaration's: the points, then the centre.
                let (v, (g, gc), h) = fd::unpacked_hessian(&pts(x), a2(x));
                let n = h.len();
                let order: Vec<usize> = (n - 2..n).chain(0..n - 2).collect();
                let h = order
                    .iter()
                    .map(|&i| order.iter().map(|&j| h[i][j]).collect())
                    .collect();
                (v, [gc.to_vec(), g.concat()].concat(), h)
            })
            .run(POINTS, range(8, -1.5, 1.5));
    }
}

#[test]
fn fit_points_at_order_two() {
    let xs = [[0.5, -1.0], [1.5, 0.3], [-0.7, 0.8], [0.1, 0.1]];
    let ys = [0.2, -0.4, 0.9, 0.0];
    let (xs, ys) = (&xs, &ys);
    Probe::new("fit_points", |w| found::fit_points(w, xs, ys))
        .grad(|w| found::fit_points_grad(w, xs, ys))
        .jvp(|w, t| found::fit_points_jvp(w, xs, ys, t.to_vec()))
        .grad_into(|w| {
            let mut g = vec![GARBAGE; 3];
            (found::fit_points_grad_into(w, xs, ys, &mut g), g)
        })
        .hessian(|w| found::fit_points_hessian(w, xs, ys))
        .analytic(|w| {
            let mut g = vec![0.0; 3];
            for (x, y) in xs.iter().zip(ys) {
                let p = (w[0] * x[0] + w[1] * x[1] + w[2]).tanh();
                let d = 2.0 * (p - y) * (1.0 - p * p);
                g[0] += d * x[0];
                g[1] += d * x[1];
                g[2] += d;
            }
            g
        })
        .run(POINTS, range(3, -1.0, 1.0));
}

mod round3_checks {
    use super::round3 as r3;
    use super::*;

    #[test]
    fn newton_sqrt_differentiates_its_iterates() {
        one(
            "newton_sqrt",
            r3::newton_sqrt,
            r3::newton_sqrt_grad,
            r3::newton_sqrt_jvp,
            r3::newton_sqrt_grad_into,
        )
        .analytic(|a| vec![0.5 / a[0].sqrt()])
        .run(POINTS, range(1, 0.1, 50.0));
    }

    #[test]
    fn kalman_scalar_in_place() {
        // Flat inputs: z, x, p, q, r; outputs x, p.
        let run = |v: &[f64]| -> Flat {
            let (mut x, mut p) = (v[1], v[2]);
            r3::kalman_scalar(v[0], &mut x, &mut p, v[3], v[4]);
            vec![x, p]
        };
        check_vector(
            "kalman_scalar",
            POINTS,
            |g| {
                vec![
                    g.uniform(-1.0, 1.0),
                    g.uniform(-1.0, 1.0),
                    g.uniform(0.1, 2.0),
                    g.uniform(0.01, 0.5),
                    g.uniform(0.1, 1.0),
                ]
            },
            &run,
            &|v, c| {
                let (mut x, mut p) = (v[1], v[2]);
                let (gz, gx, gp, gq, gr) =
                    r3::kalman_scalar_vjp(v[0], &mut x, &mut p, v[3], v[4], c[0], c[1]);
                (vec![x, p], vec![gz, gx, gp, gq, gr])
            },
            &|v, t| {
                let (mut x, mut p) = (v[1], v[2]);
                let (mut dx, mut dp) = (GARBAGE, GARBAGE);
                r3::kalman_scalar_jvp(
                    v[0],
                    &mut x,
                    &mut p,
                    v[3],
                    v[4],
                    (t[0], t[1], t[2], t[3], t[4]),
                    &mut dx,
                    &mut dp,
                );
                (vec![x, p], vec![dx, dp])
            },
            None,
        );
    }

    #[test]
    fn verlet_over_vec_of_point_locals() {
        let bodies = |x: &[f64]| -> Vec<[f64; 3]> { x.chunks(3).map(a3).collect() };
        Probe::new("verlet_energy", move |x| {
            r3::verlet_energy(&bodies(x), 0.1, 7)
        })
        .grad(move |x| {
            let (v, g) = r3::verlet_energy_grad(&bodies(x), 0.1, 7);
            (v, g.concat())
        })
        .jvp(move |x, t| r3::verlet_energy_jvp(&bodies(x), 0.1, 7, bodies(t)))
        .grad_into(move |x| {
            let mut g = vec![[GARBAGE; 3]; 2];
            (
                r3::verlet_energy_grad_into(&bodies(x), 0.1, 7, &mut g),
                g.concat(),
            )
        })
        .run(POINTS, range(6, -1.0, 1.0));
    }

    #[test]
    fn softmax_vec_result_and_cross_entropy() {
        check_vector(
            "softmax",
            POINTS,
            range(4, -3.0, 3.0),
            &r3::softmax,
            &|z, c| r3::softmax_vjp(z, c.to_vec()),
            &|z, t| r3::softmax_jvp(z, t.to_vec()),
            Some(&r3::softmax_jacobian),
        );
        let target = [0.0, 1.0, 0.0, 0.0];
        let target = &target;
        Probe::new("cross_entropy", |z| r3::cross_entropy(z, target))
            .grad(|z| r3::cross_entropy_grad(z, target))
            .jvp(|z, t| r3::cross_entropy_jvp(z, target, t.to_vec()))
            .grad_into(|z| {
                let mut g = vec![GARBAGE; 4];
                (r3::cross_entropy_grad_into(z, target, &mut g), g)
            })
            .analytic(|z| {
                let p = r3::softmax(z);
                p.iter().zip(target).map(|(a, b)| a - b).collect()
            })
            .run(POINTS, range(4, -3.0, 3.0));
    }

    #[test]
    fn spherical_coordinates() {
        check_vector(
            "to_cartesian",
            POINTS,
            |g| {
                vec![
                    g.uniform(0.5, 2.0),
                    g.uniform(0.1, 3.0),
                    g.uniform(-3.0, 3.0),
                ]
            },
            &|v| r3::to_cartesian(v[0], v[1], v[2]).to_vec(),
            &|v, c| {
                let (y, (a, b, d)) = r3::to_cartesian_vjp(v[0], v[1], v[2], a3(c));
                (y.to_vec(), vec![a, b, d])
            },
            &|v, t| {
                let (y, d) = r3::to_cartesian_jvp(v[0], v[1], v[2], (t[0], t[1], t[2]));
                (y.to_vec(), d.to_vec())
            },
            Some(&|v| r3::to_cartesian_jacobian(v[0], v[1], v[2])),
        );
    }

    #[test]
    fn generic_zip_enumerate() {
        let n = 3;
        Probe::new("weighted_sq", move |x| r3::weighted_sq(&x[..n], &x[n..]))
            .grad(move |x| {
                let (v, (a, b)) = r3::weighted_sq_grad(&x[..n], &x[n..]);
                (v, [a, b].concat())
            })
            .jvp(move |x, t| {
                r3::weighted_sq_jvp(&x[..n], &x[n..], (t[..n].to_vec(), t[n..].to_vec()))
            })
            .analytic(move |x| {
                let d: Flat = (0..n)
                    .map(|i| 2.0 * (i + 1) as f64 * (x[i] - x[n + i]))
                    .collect();
                [d.clone(), d.iter().map(|v| -v).collect()].concat()
            })
            .run(POINTS, range(6, -2.0, 2.0));
    }

    #[test]
    fn lasso_and_hinge() {
        let (xs, ys) = dataset("lasso", 9, 3);
        let (xs, ys) = (&xs, &ys);
        Probe::new("lasso", |w| r3::lasso(w, xs, ys, 0.3))
            .grad(|w| r3::lasso_grad(w, xs, ys, 0.3))
            .jvp(|w, t| r3::lasso_jvp(w, xs, ys, 0.3, t.to_vec()))
            .grad_into(|w| {
                let mut g = vec![GARBAGE; 3];
                (r3::lasso_grad_into(w, xs, ys, 0.3, &mut g), g)
            })
            .analytic(|w| {
                let mut g: Flat = w.iter().map(|v| 0.3 * v.signum()).collect();
                for (x, y) in xs.iter().zip(ys) {
                    let r = dot(x, w) - y;
                    for j in 0..3 {
                        g[j] += r * x[j];
                    }
                }
                g
            })
            .run(POINTS, away_from(3, -2.0, 2.0, 10.0, 0.0));
        let labels: Vec<usize> = ys.iter().map(|&y| (y > 0.5) as usize).collect();
        let labels = &labels;
        Probe::new("hinge", |t| r3::hinge(t, xs, labels))
            .grad(|t| r3::hinge_grad(t, xs, labels))
            .jvp(|t, d| r3::hinge_jvp(t, xs, labels, d.to_vec()))
            .grad_into(|t| {
                let mut g = vec![GARBAGE; 3];
                (r3::hinge_grad_into(t, xs, labels, &mut g), g)
            })
            .run(POINTS, range(3, -2.0, 2.0));
        assert_eq!(
            r3::hinge_grad(&[1.0, 2.0, 3.0], &[], &[]),
            (0.0, vec![0.0; 3])
        );
    }
}

mod matrix_field_checks {
    use super::matrix_fields::{self as mf, Dense, Mlp};
    use super::*;
    use autodiff::optim::{Adam, Minimizer};
    use autodiff::Differentiable;

    fn net(r: &mut Lcg) -> Mlp {
        Mlp {
            w1: (0..4).map(|_| r.vec(2, -1.0, 1.0)).collect(),
            b1: r.vec(4, -0.5, 0.5),
            w2: r.vec(4, -1.0, 1.0),
            b2: r.uniform(-0.5, 0.5),
        }
    }

    #[test]
    fn mlp_with_a_vec_of_vec_field() {
        let shape = net(&mut Lcg::new(2));
        let shape = &shape;
        let x = [0.4, -1.1];
        let x = &x;
        Probe::new("matrix forward", |f| mf::forward(&shape.from_flat(f), x))
            .grad(|f| {
                let (v, g) = mf::forward_grad(&shape.from_flat(f), x);
                assert_eq!(g.w1.len(), 4, "the gradient has the field's shape");
                (v, g.to_flat())
            })
            .jvp(|f, t| mf::forward_jvp(&shape.from_flat(f), x, shape.from_flat(t)))
            .grad_into(|f| {
                let mut g = shape.from_flat(&vec![GARBAGE; f.len()]);
                let v = mf::forward_grad_into(&shape.from_flat(f), x, &mut g);
                (v, g.to_flat())
            })
            .analytic(|f| {
                let p = shape.from_flat(f);
                let mut g = p.zero_like();
                g.b2 = 1.0;
                for h in 0..4 {
                    let a = (p.b1[h] + p.w1[h][0] * x[0] + p.w1[h][1] * x[1]).tanh();
                    g.w2[h] = a;
                    let d = p.w2[h] * (1.0 - a * a);
                    g.b1[h] = d;
                    g.w1[h] = vec![d * x[0], d * x[1]];
                }
                g.to_flat()
            })
            .run(POINTS, |r| net(r).to_flat());
        check_scalar_vjp(
            "matrix forward_vjp",
            |r| net(r).to_flat(),
            &|f| mf::forward(&shape.from_flat(f), x),
            &|f, c| {
                let (v, g) = mf::forward_vjp(&shape.from_flat(f), x, c);
                (v, g.to_flat())
            },
        );
    }

    #[test]
    fn mse_passes_it_on_and_adam_fits() {
        let mut rng = Lcg::new(41);
        let xs: Vec<Vec<f64>> = (0..12).map(|_| rng.vec(2, -1.0, 1.0)).collect();
        let ys: Vec<f64> = xs.iter().map(|x| (x[0] - 0.5 * x[1]).sin()).collect();
        let (xs, ys) = (&xs, &ys);
        let shape = net(&mut Lcg::new(3));
        let shape = &shape;
        Probe::new("matrix mse", |f| mf::mse(&shape.from_flat(f), xs, ys))
            .grad(|f| {
                let (v, g) = mf::mse_grad(&shape.from_flat(f), xs, ys);
                (v, g.to_flat())
            })
            .jvp(|f, t| mf::mse_jvp(&shape.from_flat(f), xs, ys, shape.from_flat(t)))
            .grad_into(|f| {
                let mut g = shape.from_flat(&vec![GARBAGE; f.len()]);
                let v = mf::mse_grad_into(&shape.from_flat(f), xs, ys, &mut g);
                (v, g.to_flat())
            })
            .run(POINTS, |r| net(r).to_flat());
        let p0 = net(&mut Lcg::new(4));
        let first = mf::mse(&p0, xs, ys);
        let adam = Adam {
            learning_rate: 0.05,
            max_iterations: 400,
            ..Adam::default()
        };
        let (p1, minimum) = adam.minimize_params(|p: &Mlp| mf::mse_grad(p, xs, ys), &p0);
        assert!(
            minimum.value < 0.1 * first,
            "Adam on a matrix field: {first} -> {}",
            minimum.value
        );
        assert_near(
            mf::mse(&p1, xs, ys),
            minimum.value,
            1e-12,
            0.0,
            "the minimum's value",
        );
    }

    #[test]
    fn nested_array_field_in_a_method() {
        let d = |f: &[f64]| Dense {
            w: [[f[0], f[1]], [f[2], f[3]], [f[4], f[5]]],
            b: [f[6], f[7], f[8]],
        };
        Probe::new("Dense::out", move |f| d(f).out(&a2(&f[9..])))
            .grad(move |f| {
                let (v, (g, gx)) = d(f).out_grad(&a2(&f[9..]));
                (v, [g.to_flat(), gx.to_vec()].concat())
            })
            .jvp(move |f, t| d(f).out_jvp(&a2(&f[9..]), (d(t), a2(&t[9..]))))
            .grad_into(move |f| {
                let (mut g, mut gx) = (d(&[GARBAGE; 9]), [GARBAGE; 2]);
                let v = d(f).out_grad_into(&a2(&f[9..]), (&mut g, &mut gx));
                (v, [g.to_flat(), gx.to_vec()].concat())
            })
            .run(POINTS, range(11, -1.0, 1.0));
    }
}
