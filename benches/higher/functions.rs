//! The functions of `benches/higher.rs`, with `order = 2`, written for `f64` as a user writes them, and
//! the same bodies generic over their float type, which `Dual<Dual<f64>>` runs (forward over forward).

// Index loops over slices are the style under test.
#![allow(clippy::needless_range_loop)]

use autodiff::{differentiable, Float};

/// Extended Rosenbrock in the `+=` form (as in `benches/user_forms/autodiff.rs`).
#[differentiable(order = 2)]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += t * 100.0 * t + u * u;
    }
    s
}

/// `rosenbrock`'s body, generic.
pub fn rosenbrock_generic<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = T::one() - x[i];
        s = s + t * hundred * t + u * u;
    }
    s
}

/// A function of a few inputs (10 in the bench) whose Hessian is dense: a weighted sum of sines scaled
/// by the norm, plus the exponential of a chain of products.
#[differentiable(order = 2)]
pub fn dense(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut q = 0.0;
    for i in 0..x.len() {
        s += (x[i] * (i as f64 + 1.0)).sin();
        q += x[i] * x[i];
    }
    let mut c = 0.0;
    for i in 0..x.len() - 1 {
        c += x[i] * x[i + 1];
    }
    s * q.sqrt() + (0.1 * c).exp()
}

/// `dense`'s body, generic.
pub fn dense_generic<T: Float>(x: &[T]) -> T {
    let mut s = T::zero();
    let mut q = T::zero();
    for i in 0..x.len() {
        s = s + (x[i] * T::from(i as f64 + 1.0).unwrap()).sin();
        q = q + x[i] * x[i];
    }
    let mut c = T::zero();
    for i in 0..x.len() - 1 {
        c = c + x[i] * x[i + 1];
    }
    s * q.sqrt() + (T::from(0.1).unwrap() * c).exp()
}

/// The Hessian of `rosenbrock` times `v`, written by hand: term `i` of the sum,
/// `100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2`, contributes the 2 x 2 block
/// `[[800 x[i]^2 - 400 t + 2, -400 x[i]], [-400 x[i], 200]]` on `(i, i + 1)`.
pub fn rosenbrock_hvp_hand(x: &[f64], v: &[f64], hv: &mut [f64]) {
    hv.iter_mut().for_each(|h| *h = 0.0);
    for i in 0..x.len() - 1 {
        let a = x[i];
        let t = x[i + 1] - a * a;
        hv[i] += (800.0 * a * a - 400.0 * t + 2.0) * v[i] - 400.0 * a * v[i + 1];
        hv[i + 1] += -400.0 * a * v[i] + 200.0 * v[i + 1];
    }
}
