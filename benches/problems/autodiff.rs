//! The three problems, annotated with `#[differentiable]`: the `primal` entries of
//! `benches/gradients.rs` time the functions (the macro emits them unchanged; `problems` re-exports
//! them), the `autodiff_grad` entries the `_grad` functions generated beside them.
//!
//! The bench asserts, before timing, that the generated gradients agree with the hand-written ones.

use crate::problems::RK4_H;
use autodiff::{differentiable, Float};

/// Extended Rosenbrock: sum over i of 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2.
// rosenbrock_grad<T: Float>(x: &[T]) -> (T, Vec<T>)
#[differentiable]
pub fn rosenbrock<T: Float>(x: &[T]) -> T {
    let n = x.len();
    let hundred = T::from(100.0).unwrap();
    let mut f = T::zero();
    for i in 0..n - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        f = f + hundred * a * a + b * b;
    }
    f
}

/// Mean cross-entropy of softmax(W x) over the examples; W is k x d row-major, `data` is m x d
/// row-major, `labels[j]` is the class of example j. The logits are shifted by their maximum.
// softmax_loss_grad<T: Float>(w, data, labels, d, k) -> (T, Vec<T>): the gradient with respect to w.
// Index loops on purpose: this is the subset `#[differentiable]` supports.
#[allow(clippy::needless_range_loop)]
#[differentiable(wrt(w))]
pub fn softmax_loss<T: Float>(w: &[T], data: &[T], labels: &[usize], d: usize, k: usize) -> T {
    let m = labels.len();
    let mut z = vec![T::zero(); k];
    let mut total = T::zero();
    for j in 0..m {
        for c in 0..k {
            let mut s = T::zero();
            for i in 0..d {
                s = s + w[c * d + i] * data[j * d + i];
            }
            z[c] = s;
        }
        let mut zmax = z[0];
        for c in 1..k {
            zmax = zmax.max(z[c]);
        }
        let mut sum = T::zero();
        for c in 0..k {
            sum = sum + (z[c] - zmax).exp();
        }
        total = total + sum.ln() + zmax - z[labels[j]];
    }
    total / T::from(m).unwrap()
}

/// Lotka-Volterra (u' = alpha u - beta u v, v' = delta u v - gamma v) integrated by classic RK4 with
/// the fixed step `RK4_H`; p = (alpha, beta, delta, gamma, u0, v0). Returns u + v at the end.
// rk4_lotka_volterra_grad<T: Float>(p: &[T], steps: usize) -> (T, Vec<T>)
#[differentiable]
pub fn rk4_lotka_volterra<T: Float>(p: &[T], steps: usize) -> T {
    let alpha = p[0];
    let beta = p[1];
    let delta = p[2];
    let gamma = p[3];
    let mut u = p[4];
    let mut v = p[5];
    let h = T::from(RK4_H).unwrap();
    let half_h = T::from(0.5 * RK4_H).unwrap();
    let sixth_h = T::from(RK4_H / 6.0).unwrap();
    let two = T::from(2.0).unwrap();
    for _ in 0..steps {
        let k1u = alpha * u - beta * u * v;
        let k1v = delta * u * v - gamma * v;
        let u2 = u + half_h * k1u;
        let v2 = v + half_h * k1v;
        let k2u = alpha * u2 - beta * u2 * v2;
        let k2v = delta * u2 * v2 - gamma * v2;
        let u3 = u + half_h * k2u;
        let v3 = v + half_h * k2v;
        let k3u = alpha * u3 - beta * u3 * v3;
        let k3v = delta * u3 * v3 - gamma * v3;
        let u4 = u + h * k3u;
        let v4 = v + h * k3v;
        let k4u = alpha * u4 - beta * u4 * v4;
        let k4v = delta * u4 * v4 - gamma * v4;
        u = u + sixth_h * (k1u + two * (k2u + k3u) + k4u);
        v = v + sixth_h * (k1v + two * (k2v + k3v) + k4v);
    }
    u + v
}
