//! Hand-written reverse sweeps of the functions in `autodiff.rs`, each writing the gradient into
//! the caller's buffers, as `_grad_into` does: the yardstick of issue 9.

// The sweeps index the flat buffers as the functions they differentiate do.
#![allow(clippy::needless_range_loop)]

use super::user::RK4_H;
use autodiff_gradbench::evals::gmm;

/// Rosenbrock: term i touches x[i] and x[i+1]; the share of x[i+1] is carried in a register to the
/// next iteration, so each g[i] is written once.
pub fn rosenbrock(x: &[f64], g: &mut [f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut carried = 0.0;
    for i in 0..n - 1 {
        let xi = x[i];
        let t = x[i + 1] - xi * xi;
        let u = 1.0 - xi;
        s += t * 100.0 * t + u * u;
        g[i] = carried - 400.0 * t * xi - 2.0 * u;
        carried = 200.0 * t;
    }
    g[n - 1] = carried;
    s
}

/// Softmax cross-entropy: per example the logits, then dL/dz_c = (p_c - [c = y]) / m and
/// dL/dW[c, :] += dL/dz_c x.
pub fn softmax_cross_entropy(
    w: &[f64],
    data: &[f64],
    labels: &[usize],
    d: usize,
    k: usize,
    g: &mut [f64],
) -> f64 {
    let m = labels.len();
    let inv_m = 1.0 / m as f64;
    g.fill(0.0);
    let mut z = vec![0.0; k];
    let mut total = 0.0;
    for (j, &label) in labels.iter().enumerate() {
        let x = &data[j * d..(j + 1) * d];
        for (c, zc) in z.iter_mut().enumerate() {
            *zc = w[c * d..(c + 1) * d]
                .iter()
                .zip(x)
                .map(|(a, b)| a * b)
                .sum();
        }
        let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let label_logit = z[label];
        let mut sum = 0.0;
        for zc in z.iter_mut() {
            *zc = (*zc - max).exp();
            sum += *zc;
        }
        total += max + sum.ln() - label_logit;
        let scale = inv_m / sum;
        for (c, &e) in z.iter().enumerate() {
            let mut dz = e * scale;
            if c == label {
                dz -= inv_m;
            }
            for (gi, xi) in g[c * d..(c + 1) * d].iter_mut().zip(x) {
                *gi += dz * xi;
            }
        }
    }
    total * inv_m
}

/// RK4 Lotka-Volterra: the forward sweep stores the state at each step, the backward sweep
/// recomputes a step's stages from its stored start and runs their adjoint, last step first.
pub fn rk4(p: &[f64], steps: usize, g: &mut [f64]) -> f64 {
    let (alpha, beta, delta, gamma) = (p[0], p[1], p[2], p[3]);
    let h = RK4_H;
    let rhs = |u: f64, v: f64| (alpha * u - beta * u * v, delta * u * v - gamma * v);
    let mut states = Vec::with_capacity(steps);
    let (mut u, mut v) = (p[4], p[5]);
    for _ in 0..steps {
        states.push((u, v));
        let (k1u, k1v) = rhs(u, v);
        let (k2u, k2v) = rhs(u + 0.5 * h * k1u, v + 0.5 * h * k1v);
        let (k3u, k3v) = rhs(u + 0.5 * h * k2u, v + 0.5 * h * k2v);
        let (k4u, k4v) = rhs(u + h * k3u, v + h * k3v);
        u += h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    let value = u + v;

    let (mut au, mut av) = (1.0, 1.0);
    let (mut ga, mut gb, mut gd, mut gg) = (0.0, 0.0, 0.0, 0.0);
    // The adjoint of (ku, kv) = rhs(u, v): adds the parameters' share, returns that of (u, v).
    let mut rhs_adjoint = |u: f64, v: f64, ku: f64, kv: f64| {
        ga += u * ku;
        gb -= u * v * ku;
        gd += u * v * kv;
        gg -= v * kv;
        (
            (alpha - beta * v) * ku + delta * v * kv,
            -beta * u * ku + (delta * u - gamma) * kv,
        )
    };
    for &(u, v) in states.iter().rev() {
        let (k1u, k1v) = rhs(u, v);
        let (u2, v2) = (u + 0.5 * h * k1u, v + 0.5 * h * k1v);
        let (k2u, k2v) = rhs(u2, v2);
        let (u3, v3) = (u + 0.5 * h * k2u, v + 0.5 * h * k2v);
        let (k3u, k3v) = rhs(u3, v3);
        let (u4, v4) = (u + h * k3u, v + h * k3v);
        let (a1u, a1v) = (h / 6.0 * au, h / 6.0 * av);
        let (mut a2u, mut a2v) = (2.0 * a1u, 2.0 * a1v);
        let (mut a3u, mut a3v) = (a2u, a2v);
        let (mut su, mut sv) = (au, av);
        let (b4u, b4v) = rhs_adjoint(u4, v4, a1u, a1v);
        su += b4u;
        sv += b4v;
        a3u += h * b4u;
        a3v += h * b4v;
        let (b3u, b3v) = rhs_adjoint(u3, v3, a3u, a3v);
        su += b3u;
        sv += b3v;
        a2u += 0.5 * h * b3u;
        a2v += 0.5 * h * b3v;
        let (b2u, b2v) = rhs_adjoint(u2, v2, a2u, a2v);
        su += b2u;
        sv += b2v;
        let (b1u, b1v) = rhs_adjoint(u, v, a1u + 0.5 * h * b2u, a1v + 0.5 * h * b2v);
        au = su + b1u;
        av = sv + b1v;
    }
    g[..6].copy_from_slice(&[ga, gb, gd, gg, au, av]);
    value
}

/// The gradient buffers of the MLP: w1, b1, w2, b2.
pub struct MlpGradient<'a> {
    pub w1: &'a mut [f64],
    pub b1: &'a mut [f64],
    pub w2: &'a mut [f64],
    pub b2: &'a mut f64,
}

/// The MLP loss: per example, the hidden activations are kept, then the adjoint runs back through
/// the output and the hidden layer.
pub fn mlp_loss(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: f64,
    xs: &[f64],
    ys: &[f64],
    g: MlpGradient,
) -> f64 {
    let hidden = b1.len();
    let d_in = w1.len() / hidden;
    let m = ys.len();
    g.w1.fill(0.0);
    g.b1.fill(0.0);
    g.w2.fill(0.0);
    *g.b2 = 0.0;
    let mut activation = vec![0.0; hidden];
    let mut loss = 0.0;
    for (x, &y) in xs.chunks_exact(d_in).zip(ys) {
        let mut out = b2;
        for j in 0..hidden {
            let row = &w1[j * d_in..(j + 1) * d_in];
            let a: f64 = b1[j] + row.iter().zip(x).map(|(w, x)| w * x).sum::<f64>();
            activation[j] = a.tanh();
            out += w2[j] * activation[j];
        }
        let r = out - y;
        loss += r * r;
        let d_out = 2.0 * r / m as f64;
        *g.b2 += d_out;
        for j in 0..hidden {
            let t = activation[j];
            g.w2[j] += d_out * t;
            let d_a = d_out * w2[j] * (1.0 - t * t);
            g.b1[j] += d_a;
            for (gw, xi) in g.w1[j * d_in..(j + 1) * d_in].iter_mut().zip(x) {
                *gw += d_a * xi;
            }
        }
    }
    loss / m as f64
}

/// The GMM log posterior (`autodiff_gradbench::evals::gmm::gmm_objective`). Per point, the forward
/// pass keeps each component's centred point c and y = Q c; with w the softmax of the components'
/// terms, the adjoint of y is -w y, which gives those of q, l and mu.
pub fn gmm_objective(input: &gmm::Input, g: &mut gmm::Gradient) -> f64 {
    let gmm::Input {
        alpha,
        mu,
        q,
        l,
        x,
        d,
        m,
        gamma,
    } = input;
    let (d, m, gamma) = (*d, *m as f64, *gamma);
    let k = alpha.len();
    let n = x.len() / d;
    let l_size = d * (d - 1) / 2;
    g.alpha.fill(0.0);
    g.mu.fill(0.0);
    g.q.fill(0.0);
    g.l.fill(0.0);

    let q_diag: Vec<f64> = q.iter().map(|v| v.exp()).collect();
    let sum_q: Vec<f64> = q.chunks_exact(d).map(|row| row.iter().sum()).collect();
    let mut centered = vec![0.0; k * d];
    let mut y = vec![0.0; k * d];
    let mut beta = vec![0.0; k];
    let mut slse = 0.0;
    for xi in x.chunks_exact(d) {
        for c in 0..k {
            let cc = &mut centered[c * d..(c + 1) * d];
            for j in 0..d {
                cc[j] = xi[j] - mu[c * d + j];
            }
            let yc = &mut y[c * d..(c + 1) * d];
            for j in 0..d {
                yc[j] = q_diag[c * d + j] * cc[j];
            }
            let mut li = c * l_size;
            for i in 0..d {
                for j in i + 1..d {
                    yc[j] += l[li] * cc[i];
                    li += 1;
                }
            }
            beta[c] = alpha[c] + sum_q[c] - 0.5 * yc.iter().map(|v| v * v).sum::<f64>();
        }
        let max = beta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut sum = 0.0;
        for b in beta.iter_mut() {
            *b = (*b - max).exp();
            sum += *b;
        }
        slse += max + sum.ln();
        for c in 0..k {
            let w = beta[c] / sum;
            g.alpha[c] += w;
            let cc = &centered[c * d..(c + 1) * d];
            let yc = &y[c * d..(c + 1) * d];
            let (gq, gmu) = (&mut g.q[c * d..(c + 1) * d], &mut g.mu[c * d..(c + 1) * d]);
            // q_j enters through sum(q) and y_j = exp(q_j) c_j; the mean's adjoint is minus c's.
            for j in 0..d {
                let y_bar = -w * yc[j];
                gq[j] += w + y_bar * cc[j] * q_diag[c * d + j];
                gmu[j] -= q_diag[c * d + j] * y_bar;
            }
            let mut li = c * l_size;
            for i in 0..d {
                for j in i + 1..d {
                    let y_bar = -w * yc[j];
                    g.l[li] += y_bar * cc[i];
                    gmu[i] -= l[li] * y_bar;
                    li += 1;
                }
            }
        }
    }
    // Prior and the weights' normaliser.
    let max_alpha = alpha.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum_alpha: f64 = alpha.iter().map(|a| (a - max_alpha).exp()).sum();
    let lse_alpha = max_alpha + sum_alpha.ln();
    for c in 0..k {
        g.alpha[c] -= n as f64 * (alpha[c] - lse_alpha).exp();
    }
    let mut prior = 0.0;
    for c in 0..k {
        let mut frobenius = 0.0;
        for j in 0..d {
            let e = q_diag[c * d + j];
            frobenius += e * e;
            g.q[c * d + j] += m - gamma * gamma * e * e;
        }
        for j in c * l_size..(c + 1) * l_size {
            frobenius += l[j] * l[j];
            g.l[j] -= gamma * gamma * l[j];
        }
        prior += 0.5 * gamma * gamma * frobenius - m * sum_q[c];
    }
    slse - n as f64 * lse_alpha - prior + gmm_constants(input)
}

/// The terms of the GMM objective that do not depend on the parameters: `-n d/2 ln 2 pi` and `k`
/// times the log of the Wishart normaliser.
fn gmm_constants(input: &gmm::Input) -> f64 {
    let d = input.d;
    let k = input.alpha.len() as f64;
    let n = (input.x.len() / d) as f64;
    let dof = (d + input.m + 1) as f64;
    let p = d as f64;
    let mut ln_gamma_p = 0.25 * p * (p - 1.0) * std::f64::consts::PI.ln();
    for j in 1..=d {
        // ln Γ of a half-integer by the recurrence.
        let a = 0.5 * dof + 0.5 * (1.0 - j as f64);
        let (mut y, mut value) = if a.fract() == 0.0 {
            (1.0, 0.0)
        } else {
            (0.5, 0.5 * std::f64::consts::PI.ln())
        };
        while y < a {
            value += f64::ln(y);
            y += 1.0;
        }
        ln_gamma_p += value;
    }
    let c = dof * p * (input.gamma.ln() - 0.5 * 2f64.ln()) - ln_gamma_p;
    -n * 0.5 * p * (2.0 * std::f64::consts::PI).ln() + k * c
}

/// Logistic regression: per example, the probability p, then the adjoint of the linear score,
/// `p - y`, times the row.
pub fn logistic(w: &[f64], xs: &[Vec<f64>], ys: &[f64], g: &mut [f64]) -> f64 {
    g.fill(0.0);
    let mut loss = 0.0;
    for (x, &y) in xs.iter().zip(ys) {
        let z: f64 = w.iter().zip(x).map(|(w, x)| w * x).sum();
        let p = 1.0 / (1.0 + (-z).exp());
        loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        let d_z = p - y;
        for (gj, xj) in g.iter_mut().zip(x) {
            *gj += d_z * xj;
        }
    }
    loss
}
