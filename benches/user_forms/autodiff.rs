//! The problems of issue 9, written as a user writes them, under `#[differentiable]`: plain `f64`
//! loops over slices, `+=` accumulators, and calls of differentiable helpers. The GMM objective is
//! the one of the GradBench tool (`autodiff_gradbench::evals::gmm`), which calls `logsumexp`.

// Index loops over flat row-major buffers are the style under test.
#![allow(clippy::needless_range_loop)]

use autodiff::differentiable;

/// Extended Rosenbrock in the `+=` form, the fastest primal form measured.
// rosenbrock_grad_into(x: &[f64], grad: &mut [f64]) -> f64
#[differentiable]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += t * 100.0 * t + u * u;
    }
    s
}

/// `ln sum exp z`, shifted by the maximum.
#[differentiable]
pub fn logsumexp(z: &[f64]) -> f64 {
    let mut max = z[0];
    for &v in z {
        max = max.max(v);
    }
    let mut sum = 0.0;
    for &v in z {
        sum += (v - max).exp();
    }
    max + sum.ln()
}

/// Mean softmax cross-entropy of `w` (k x d, row-major) on `data` (m x d, row-major): each
/// example's logits are written into one row `z`, passed to `logsumexp`.
// softmax_cross_entropy_grad_into(w, data, labels, d, k, grad: &mut [f64]) -> f64
#[differentiable(wrt(w))]
pub fn softmax_cross_entropy(w: &[f64], data: &[f64], labels: &[usize], d: usize, k: usize) -> f64 {
    let m = labels.len();
    let mut z = vec![0.0; k];
    let mut total = 0.0;
    for j in 0..m {
        for c in 0..k {
            let mut s = 0.0;
            for i in 0..d {
                s += w[c * d + i] * data[j * d + i];
            }
            z[c] = s;
        }
        total += logsumexp(&z) - z[labels[j]];
    }
    total / m as f64
}

/// Step of the RK4 integration of Lotka-Volterra.
pub const RK4_H: f64 = 0.01;

/// The Lotka-Volterra right-hand side, p = (alpha, beta, delta, gamma, ..).
#[differentiable]
pub fn lotka_volterra(p: &[f64], u: f64, v: f64) -> (f64, f64) {
    (p[0] * u - p[1] * u * v, p[2] * u * v - p[3] * v)
}

/// u + v after `steps` RK4 steps of `RK4_H` from (p[4], p[5]); the step calls the right-hand side
/// four times.
// rk4_grad_into(p: &[f64], steps: usize, grad: &mut [f64]) -> f64
#[differentiable]
pub fn rk4(p: &[f64], steps: usize) -> f64 {
    let h = RK4_H;
    let mut u = p[4];
    let mut v = p[5];
    for _ in 0..steps {
        let (k1u, k1v) = lotka_volterra(p, u, v);
        let (k2u, k2v) = lotka_volterra(p, u + 0.5 * h * k1u, v + 0.5 * h * k1v);
        let (k3u, k3v) = lotka_volterra(p, u + 0.5 * h * k2u, v + 0.5 * h * k2v);
        let (k4u, k4v) = lotka_volterra(p, u + h * k3u, v + h * k3v);
        u += h / 6.0 * (k1u + 2.0 * k2u + 2.0 * k3u + k4u);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    u + v
}

/// Mean squared error of a one-hidden-layer tanh network: `w1` is hidden x d_in (row-major), `b1`
/// and `w2` have `hidden` entries, `xs` is m x d_in, `ys` has m targets.
// mlp_loss_grad_into(w1, b1, w2, b2, xs, ys, grad: (&mut [f64], &mut [f64], &mut [f64], &mut f64)) -> f64
#[differentiable(wrt(w1, b1, w2, b2))]
pub fn mlp_loss(w1: &[f64], b1: &[f64], w2: &[f64], b2: f64, xs: &[f64], ys: &[f64]) -> f64 {
    let hidden = b1.len();
    let d_in = w1.len() / hidden;
    let m = ys.len();
    let mut loss = 0.0;
    for n in 0..m {
        let mut out = b2;
        for j in 0..hidden {
            let mut a = b1[j];
            for i in 0..d_in {
                a += w1[j * d_in + i] * xs[n * d_in + i];
            }
            out += w2[j] * a.tanh();
        }
        let r = out - ys[n];
        loss += r * r;
    }
    loss / m as f64
}

/// The logistic function.
#[differentiable]
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// A linear model's probability for one example: `predict(w, &xs[k])` lends it a row of the data.
#[differentiable(wrt(w))]
pub fn predict(w: &[f64], x: &[f64]) -> f64 {
    let mut z = 0.0;
    for j in 0..w.len() {
        z += w[j] * x[j];
    }
    sigmoid(z)
}

/// `predict` as most users write it, with no `wrt`: a caller lending it data leaves the row's cotangent
/// slot empty, and the callee's adjoint writes that cotangent to a scratch buffer.
#[differentiable]
pub fn predict_plain(w: &[f64], x: &[f64]) -> f64 {
    let mut z = 0.0;
    for j in 0..w.len() {
        z += w[j] * x[j];
    }
    sigmoid(z)
}

/// `logistic` calling `predict_plain`.
// logistic_plain_grad_into(w, xs, ys, grad: &mut [f64]) -> f64
#[differentiable(wrt(w))]
pub fn logistic_plain(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for k in 0..ys.len() {
        let p = predict_plain(w, &xs[k]);
        loss -= ys[k] * p.ln() + (1.0 - ys[k]) * (1.0 - p).ln();
    }
    loss
}

/// Logistic regression's negative log-likelihood over the rows of a data matrix (`Vec<Vec<f64>>`, as
/// data is usually loaded), calling `predict` per example.
// logistic_grad_into(w, xs, ys, grad: &mut [f64]) -> f64
#[differentiable(wrt(w))]
pub fn logistic(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for k in 0..ys.len() {
        let p = predict(w, &xs[k]);
        loss -= ys[k] * p.ln() + (1.0 - ys[k]) * (1.0 - p).ln();
    }
    loss
}
