//! `gmm`: the log posterior of a Gaussian mixture with a Wishart prior on the precision matrices
//! (ADBench's GMM objective, GradBench's corrected form), and its gradient.

// On the module, not the function: the macro does not copy a function's `#[allow]` onto the items
// it generates beside it (`gmm_objective_grad_into` has nine parameters too).
#![allow(clippy::too_many_arguments)]

use crate::evals::lse::logsumexp;
use crate::{input, job, rows, Job};
use autodiff::differentiable;
use serde_json::{json, Value};

/// `ln Γ(x)` for `x` a positive multiple of 1/2 (the only arguments the Wishart constant needs),
/// from `Γ(1) = 1`, `Γ(1/2) = √π` and `Γ(x + 1) = x Γ(x)`.
fn ln_gamma_half_integer(x: f64) -> f64 {
    let (mut y, mut value) = if x.fract() == 0.0 {
        (1.0, 0.0)
    } else {
        (0.5, 0.5 * std::f64::consts::PI.ln())
    };
    while y < x {
        value += y.ln();
        y += 1.0;
    }
    value
}

/// `ln Γ_p(a)`, the multivariate gamma function.
fn ln_multivariate_gamma(a: f64, p: usize) -> f64 {
    let mut value = 0.25 * (p * (p - 1)) as f64 * std::f64::consts::PI.ln();
    for j in 1..=p {
        value += ln_gamma_half_integer(a + 0.5 * (1.0 - j as f64));
    }
    value
}

/// The log posterior. `alpha` (k), `mu` (k x d), `q` (k x d) and `l` (k x d(d-1)/2) are row-major,
/// `x` (n x d) the data; the prior has `m` extra degrees of freedom and precision `gamma`. With `order = 2`
/// for its Hessian-vector products (`benches/higher.rs`).
// gmm_objective_grad_into(alpha, mu, q, l, x, d, m, gamma,
//     grad: (&mut [f64], &mut [f64], &mut [f64], &mut [f64])) -> f64
#[differentiable(wrt(alpha, mu, q, l), order = 2)]
pub fn gmm_objective(
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
    x: &[f64],
    d: usize,
    m: usize,
    gamma: f64,
) -> f64 {
    let k = alpha.len();
    let n = x.len() / d;
    let l_size = d * (d - 1) / 2;

    let mut q_diag = vec![0.0; k * d];
    let mut sum_q = vec![0.0; k];
    for ik in 0..k {
        for j in 0..d {
            q_diag[ik * d + j] = q[ik * d + j].exp();
            sum_q[ik] += q[ik * d + j];
        }
    }

    // The likelihood: sum over points of logsumexp over components of
    // alpha_k + sum(q_k) - |Q_k (x_i - mu_k)|^2 / 2.
    let mut centered = vec![0.0; d];
    let mut q_centered = vec![0.0; d];
    let mut main_term = vec![0.0; k];
    let mut slse = 0.0;
    for ix in 0..n {
        for ik in 0..k {
            for j in 0..d {
                centered[j] = x[ix * d + j] - mu[ik * d + j];
            }
            for j in 0..d {
                q_centered[j] = q_diag[ik * d + j] * centered[j];
            }
            let mut li = ik * l_size;
            for i in 0..d {
                for j in i + 1..d {
                    q_centered[j] += l[li] * centered[i];
                    li += 1;
                }
            }
            let mut sqnorm = 0.0;
            for j in 0..d {
                sqnorm += q_centered[j] * q_centered[j];
            }
            main_term[ik] = alpha[ik] + sum_q[ik] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    let two_pi = 2.0 * std::f64::consts::PI;
    let likelihood = slse - n as f64 * (0.5 * d as f64 * two_pi.ln() + logsumexp(alpha));

    // The Wishart prior.
    let dof = d + m + 1;
    let constant = dof as f64 * d as f64 * (gamma.ln() - 0.5 * 2.0f64.ln())
        - ln_multivariate_gamma(0.5 * dof as f64, d);
    let mut prior = 0.0;
    for ik in 0..k {
        let mut frobenius = 0.0;
        for j in 0..d {
            frobenius += q_diag[ik * d + j] * q_diag[ik * d + j];
        }
        for j in 0..l_size {
            frobenius += l[ik * l_size + j] * l[ik * l_size + j];
        }
        prior += 0.5 * gamma * gamma * frobenius - m as f64 * sum_q[ik];
    }
    likelihood - prior + k as f64 * constant
}

/// The parsed input, parameters flattened row-major.
pub struct Input {
    pub alpha: Vec<f64>,
    pub mu: Vec<f64>,
    pub q: Vec<f64>,
    pub l: Vec<f64>,
    pub x: Vec<f64>,
    pub d: usize,
    pub m: usize,
    pub gamma: f64,
}

impl Input {
    /// Reads GradBench's gmm input.
    pub fn parse(input: &Value) -> Result<Self, String> {
        let d = input::usize(input, "d")?;
        if d == 0 {
            return Err("gmm: d is 0".to_string());
        }
        Ok(Input {
            alpha: input::floats(input, "alpha")?,
            mu: input::matrix(input, "mu")?.0,
            q: input::matrix(input, "q")?.0,
            l: input::matrix(input, "l")?.0,
            x: input::matrix(input, "x")?.0,
            d,
            m: input::usize(input, "m")?,
            gamma: input::float(input, "gamma")?,
        })
    }

    /// The objective at this input.
    pub fn objective(&self) -> f64 {
        gmm_objective(
            &self.alpha,
            &self.mu,
            &self.q,
            &self.l,
            &self.x,
            self.d,
            self.m,
            self.gamma,
        )
    }
}

/// The gradient, with one buffer per parameter.
pub struct Gradient {
    pub alpha: Vec<f64>,
    pub mu: Vec<f64>,
    pub q: Vec<f64>,
    pub l: Vec<f64>,
}

impl Gradient {
    /// Zero buffers shaped like the parameters of `input`.
    pub fn zeros_like(input: &Input) -> Self {
        Gradient {
            alpha: vec![0.0; input.alpha.len()],
            mu: vec![0.0; input.mu.len()],
            q: vec![0.0; input.q.len()],
            l: vec![0.0; input.l.len()],
        }
    }

    /// Writes the gradient at `input` into the buffers; returns the objective.
    pub fn compute(&mut self, input: &Input) -> f64 {
        gmm_objective_grad_into(
            &input.alpha,
            &input.mu,
            &input.q,
            &input.l,
            &input.x,
            input.d,
            input.m,
            input.gamma,
            (&mut self.alpha, &mut self.mu, &mut self.q, &mut self.l),
        )
    }
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let input = Input::parse(input)?;
    match function {
        "objective" => Ok(job(
            (input, 0.0),
            |(input, value)| *value = input.objective(),
            |(_, value)| json!(value),
        )),
        "jacobian" => {
            let grad = Gradient::zeros_like(&input);
            Ok(job(
                (input, grad),
                |(input, grad)| {
                    grad.compute(input);
                },
                |(input, grad)| {
                    let d = input.d;
                    json!({
                        "alpha": grad.alpha,
                        "mu": rows(&grad.mu, d),
                        "q": rows(&grad.q, d),
                        "l": rows(&grad.l, d * (d - 1) / 2),
                    })
                },
            ))
        }
        _ => Err(super::unknown("gmm", function)),
    }
}
