// Loops and slices: an accumulation stores nothing per iteration; a carried value the adjoint reads is
// stored on a tape; a `Vec` filled by `push` is read back in reverse with a counter.
use autodiff::{differentiable, Float};

#[differentiable]
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * y[i];
    }
    s
}

#[differentiable]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        s = s + hundred * a * a + b * b;
    }
    s
}

#[differentiable]
fn product(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for &v in x {
        p *= v;
    }
    p
}

#[differentiable]
fn squares(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        out.push(v * v);
    }
    out
}
