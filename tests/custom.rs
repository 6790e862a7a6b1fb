use autodiff::{custom_gradient, differentiable, gradient_of, Float};

#[custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

#[differentiable]
fn naive(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[differentiable]
fn uses_custom(x: f64) -> f64 {
    log1pexp(x) * 2.0
}

#[custom_gradient]
fn clip_gradient(x: f64, lo: f64, hi: f64) -> (f64, impl Fn(f64) -> (f64, f64, f64)) {
    (x, move |dy: f64| (dy.clamp(lo, hi), 0.0, 0.0))
}

#[custom_gradient]
fn weighted<T: Float>(w: &[T], x: &[T]) -> (T, impl Fn(T) -> (Vec<T>, Vec<T>)) {
    let mut s = T::zero();
    for i in 0..w.len() {
        s = s + w[i] * x[i];
    }
    let (w, x) = (w.to_vec(), x.to_vec());
    (s, move |dy: T| {
        (
            x.iter().map(|v| *v * dy).collect(),
            w.iter().map(|v| *v * dy).collect(),
        )
    })
}

#[custom_gradient]
fn pair(x: f64) -> ((f64, f64), impl Fn((f64, f64)) -> f64) {
    ((x * x, x.sin()), move |dy: (f64, f64)| {
        dy.0 * 2.0 * x + dy.1 * x.cos()
    })
}

mod outside {
    pub fn softsign(x: f64) -> f64 {
        x / (1.0 + x.abs())
    }
}
use outside::softsign;

#[gradient_of(outside::softsign)]
fn softsign_vjp(x: f64, dy: f64) -> f64 {
    dy / ((1.0 + x.abs()) * (1.0 + x.abs()))
}

#[differentiable]
fn uses_registered(x: f64) -> f64 {
    softsign(x) * x
}

#[differentiable]
fn uses_clip(x: f64) -> f64 {
    clip_gradient(x, -1.0, 1.0) * 10.0
}

#[test]
fn custom() {
    assert_eq!(log1pexp(0.0), 2f64.ln());
    assert!(naive(800.0).is_infinite() || naive(800.0) > 799.0);
    assert!(naive_grad(800.0).1.is_nan());
    assert_eq!(uses_custom(1.0), 2.0 * log1pexp(1.0));
    assert_eq!(uses_clip(0.5), 5.0);
    assert_eq!(uses_registered(1.0), 0.5);
    assert_eq!(log1pexp_grad(800.0).1, 1.0);
    assert_eq!(uses_custom_grad(800.0).1, 2.0);
    assert_eq!(uses_custom_jvp(800.0, 1.0).1, 2.0);
    assert_eq!(uses_clip_grad(0.3).1, 1.0); // the cotangent 10 is clipped to 1
    let (_, (gw, gx)) = weighted_grad(&[1.0, 2.0], &[3.0, 4.0]);
    assert_eq!((gw, gx), (vec![3.0, 4.0], vec![1.0, 2.0]));
    let (_, t) = weighted_jvp(&[1.0, 2.0], &[3.0, 4.0], (vec![1.0, 0.0], vec![0.0, 1.0]));
    assert_eq!(t, 3.0 + 2.0);
    let (_, t) = pair_jvp(0.5, 1.0);
    assert_eq!(t, (1.0, 0.5f64.cos()));
    let (v, g) = uses_registered_grad(1.0);
    assert_eq!(v, 0.5);
    assert_eq!(g, 0.25 + 0.5);
    let (_, t) = uses_registered_jvp(1.0, 1.0);
    assert_eq!(t, 0.75);
}
