//! `assert!`, `assert_eq!`, `assert_ne!` and their `debug_` forms in a differentiable body: the generated items
//! check them as the function does (the same panic, with the user's message), each operand is evaluated
//! once, and they add nothing to the derivative. Gradients are checked against central differences and the
//! derivative worked out by hand on many inputs where the assertions pass; every generated item is checked
//! to panic where they fail; at `order = 2` the Hessians are checked against differences of the gradient.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_jacobian, fd_jacobian, Inputs,
};

const POINTS: u64 = 24;

/// `Σ w_i x_i²` of two slices of the same length, which must not be empty.
#[differentiable]
pub fn weighted(x: &[f64], w: &[f64]) -> f64 {
    assert_eq!(x.len(), w.len(), "lengths differ");
    assert!(!x.is_empty());
    debug_assert_ne!(x.len(), 0);
    let mut s = 0.0;
    for i in 0..x.len() {
        debug_assert!(i < w.len(), "index in range");
        s += w[i] * x[i] * x[i];
    }
    s
}

/// `x·s + sin(x)`, asserting on the active floats themselves.
#[differentiable]
pub fn scaled(x: f64, s: f64) -> f64 {
    assert!(s > 0.0, "scale must be positive");
    assert_ne!(x, 10.0);
    let y = x * s;
    if y > 0.0 {
        assert!(y < 1e6);
        y + x.sin()
    } else {
        debug_assert_eq!((y <= 0.0) as usize, 1);
        -y + x.sin()
    }
}

/// `Σ k (x_{i+1} - x_i)² / 2 + Σ x_i³ / 3`, generic at `order = 2`.
#[differentiable(order = 2)]
pub fn energy<T: Float>(x: &[T], k: T) -> T {
    assert!(x.len() >= 2, "need points");
    assert!(k > T::zero(), "stiffness must be positive");
    assert_ne!(x.len(), 0);
    debug_assert_eq!(x.len() % 2 + x.len() % 2, 2 * (x.len() % 2));
    let three = T::from(3.0).unwrap();
    let mut e = T::zero();
    for i in 0..x.len() - 1 {
        let d = x[i + 1] - x[i];
        e = e + k * d * d / (T::one() + T::one());
    }
    for i in 0..x.len() {
        assert!(x[i] < T::from(100.0).unwrap(), "too large");
        e = e + x[i] * x[i] * x[i] / three;
    }
    e
}

/// `x³ + exp(x)` at `order = 3`, written for `f64`, asserting on the active float.
#[differentiable(order = 3)]
pub fn cubic(x: f64) -> f64 {
    assert!(x > -5.0, "x too small");
    debug_assert!(x < 5.0);
    x * x * x + x.exp()
}

/// An output parameter whose length is asserted: the assertion reads its length only, so its incoming value is
/// no input (no gradient for it).
#[differentiable]
pub fn residual(y: &[f64], p: f64, out: &mut [f64]) {
    assert_eq!(out.len(), y.len(), "output length");
    for i in 0..y.len() {
        out[i] = p * y[i] * y[i];
    }
}

fn weighted_analytic(x: &[f64], w: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let gx = x.iter().zip(w).map(|(x, w)| 2.0 * w * x).collect();
    let gw = x.iter().map(|x| x * x).collect();
    (gx, gw)
}

#[test]
fn weighted_gradients_match_differences_and_analytic() {
    let mut inputs = Inputs(21);
    for n in 1..=POINTS as usize / 4 {
        for _ in 0..4 {
            let (x, w) = (inputs.vec(n), inputs.vec(n));
            let (v, (gx, gw)) = weighted_grad(&x, &w);
            assert_eq!(v, weighted(&x, &w));
            let (ax, aw) = weighted_analytic(&x, &w);
            assert_all_close(&gx, &ax, 1e-12, "d/dx");
            assert_all_close(&gw, &aw, 1e-12, "d/dw");
            assert_fd_gradient(|x| weighted(x, &w), &x, &gx, "d/dx vs differences");
            assert_fd_gradient(|w| weighted(&x, w), &w, &gw, "d/dw vs differences");
            let (mut bx, mut bw) = (vec![7.0; n], vec![7.0; n]);
            let v2 = weighted_grad_into(&x, &w, (&mut bx, &mut bw));
            assert_eq!(v2, v);
            assert_all_close(&bx, &ax, 1e-12, "grad_into d/dx");
            assert_all_close(&bw, &aw, 1e-12, "grad_into d/dw");
            let (_, (vx, vw)) = weighted_vjp(&x, &w, 2.0);
            assert_all_close(
                &vx,
                &ax.iter().map(|g| 2.0 * g).collect::<Vec<_>>(),
                1e-12,
                "vjp x",
            );
            assert_all_close(
                &vw,
                &aw.iter().map(|g| 2.0 * g).collect::<Vec<_>>(),
                1e-12,
                "vjp w",
            );
            let (tx, tw) = (inputs.vec(n), inputs.vec(n));
            let (_, dv) = weighted_jvp(&x, &w, (tx.clone(), tw.clone()));
            let expected: f64 = (0..n).map(|i| ax[i] * tx[i] + aw[i] * tw[i]).sum();
            assert_close(dv, expected, 1e-12, "jvp");
        }
    }
}

#[test]
fn scaled_gradients_on_both_branches() {
    let mut inputs = Inputs(22);
    for _ in 0..POINTS {
        let x = 3.0 * inputs.next();
        let s = 0.1 + inputs.next().abs();
        let (v, (gx, gs)) = scaled_grad(x, s);
        assert_eq!(v, scaled(x, s));
        let sign = if x * s > 0.0 { 1.0 } else { -1.0 };
        assert_close(gx, sign * s + x.cos(), 1e-12, "d/dx");
        assert_close(gs, sign * x, 1e-12, "d/ds");
        assert_fd_gradient(|p| scaled(p[0], p[1]), &[x, s], &[gx, gs], "vs differences");
        let (_, t) = scaled_jvp(x, s, (1.0, 0.0));
        assert_close(t, gx, 1e-12, "jvp");
    }
}

#[test]
fn energy_hessian_matches_differences() {
    let mut inputs = Inputs(23);
    for n in 2..8 {
        let x = inputs.vec(n);
        let k = 0.5 + inputs.next().abs();
        let (v, (gx, gk)) = energy_grad(&x, k);
        assert_close(v, energy(&x, k), 1e-12, "value");
        assert_fd_gradient(|x| energy(x, k), &x, &gx, "d/dx");
        assert_fd_gradient(|p| energy(&x, p[0]), &[k], &[gk], "d/dk");
        let mut flat = x.clone();
        flat.push(k);
        let grad = |p: &[f64]| {
            let (_, (mut g, gk)) = energy_grad(&p[..n], p[n]);
            g.push(gk);
            g
        };
        let (_, _, h) = energy_hessian(&x, k);
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "Hessian");
        // Analytic: the chain's Laplacian times k, plus 2 x_i on the diagonal.
        for i in 0..n {
            let springs = [i > 0, i + 1 < n].iter().filter(|b| **b).count() as f64;
            assert_close(h[i][i], k * springs + 2.0 * x[i], 1e-10, "diagonal");
        }
        let v_dir: Vec<f64> = inputs.vec(n);
        let (_, _, (hv, hk)) = energy_hvp(&x, k, (v_dir.clone(), 0.5));
        let mut dir = v_dir.clone();
        dir.push(0.5);
        for i in 0..n {
            let expected: f64 = (0..=n).map(|j| h[i][j] * dir[j]).sum();
            assert_close(hv[i], expected, 1e-10, "hvp");
        }
        let expected: f64 = (0..=n).map(|j| h[n][j] * dir[j]).sum();
        assert_close(hk, expected, 1e-10, "hvp k");
    }
}

#[test]
fn cubic_derivatives_match_analytic() {
    let mut inputs = Inputs(24);
    for _ in 0..POINTS {
        let x = 4.0 * inputs.next();
        let d = cubic_derivatives(x);
        assert_close(d[0], x * x * x + x.exp(), 1e-12, "f");
        assert_close(d[1], 3.0 * x * x + x.exp(), 1e-12, "f'");
        assert_close(d[2], 6.0 * x + x.exp(), 1e-12, "f''");
        assert_close(d[3], 6.0 + x.exp(), 1e-12, "f'''");
        let (_, g) = cubic_grad(x);
        assert_close(
            g,
            common::central_difference(cubic, x),
            1e-8,
            "vs differences",
        );
    }
}

#[test]
fn residual_output_has_no_incoming_gradient() {
    let mut inputs = Inputs(25);
    for n in 1..6 {
        let y = inputs.vec(n);
        let p = inputs.next();
        let d_out = inputs.vec(n);
        let mut out = vec![0.0; n];
        // `G` is (d y, d p): the output's incoming value is no input.
        let (gy, gp): (Vec<f64>, f64) = residual_vjp(&y, p, &mut out, &d_out);
        for i in 0..n {
            assert_close(out[i], p * y[i] * y[i], 1e-12, "out");
            assert_close(gy[i], 2.0 * p * y[i] * d_out[i], 1e-12, "d/dy");
        }
        let expected: f64 = (0..n).map(|i| y[i] * y[i] * d_out[i]).sum();
        assert_close(gp, expected, 1e-12, "d/dp");
    }
}

// The same panics, with the user's message, in every generated item.

#[test]
#[should_panic(expected = "lengths differ")]
fn weighted_panics() {
    weighted(&[1.0, 2.0], &[1.0]);
}

#[test]
#[should_panic(expected = "assertion `left == right` failed: lengths differ")]
fn weighted_grad_panics() {
    weighted_grad(&[1.0, 2.0], &[1.0]);
}

#[test]
#[should_panic(expected = "lengths differ")]
fn weighted_grad_into_panics() {
    weighted_grad_into(&[1.0, 2.0], &[1.0], (&mut [0.0; 2], &mut [0.0]));
}

#[test]
#[should_panic(expected = "lengths differ")]
fn weighted_vjp_panics() {
    weighted_vjp(&[1.0, 2.0], &[1.0], 1.0);
}

#[test]
#[should_panic(expected = "lengths differ")]
fn weighted_jvp_panics() {
    weighted_jvp(&[1.0, 2.0], &[1.0], (vec![0.0; 2], vec![0.0]));
}

#[test]
#[should_panic(expected = "assertion failed: !x.is_empty()")]
fn weighted_grad_panics_without_message() {
    weighted_grad(&[], &[]);
}

#[test]
#[should_panic(expected = "scale must be positive")]
fn scaled_grad_panics() {
    scaled_grad(1.0, -1.0);
}

#[test]
#[should_panic(expected = "scale must be positive")]
fn scaled_jvp_panics() {
    scaled_jvp(1.0, -1.0, (1.0, 0.0));
}

#[test]
#[should_panic(expected = "assertion `left != right` failed")]
fn scaled_vjp_panics_on_ne() {
    scaled_vjp(10.0, 1.0, 1.0);
}

#[test]
#[should_panic(expected = "need points")]
fn energy_grad_panics() {
    energy_grad(&[1.0], 1.0);
}

#[test]
#[should_panic(expected = "need points")]
fn energy_hvp_panics() {
    energy_hvp(&[1.0], 1.0, (vec![1.0], 0.0));
}

#[test]
#[should_panic(expected = "stiffness must be positive")]
fn energy_hessian_panics() {
    energy_hessian(&[1.0, 2.0], -1.0);
}

#[test]
#[should_panic(expected = "too large")]
fn energy_hessian_panics_in_loop() {
    energy_hessian(&[1.0, 200.0], 1.0);
}

#[test]
#[should_panic(expected = "x too small")]
fn cubic_derivatives_panics() {
    cubic_derivatives(-6.0);
}

#[test]
#[should_panic(expected = "x too small")]
fn cubic_grad_panics() {
    cubic_grad(-6.0);
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "assertion failed: x < 5.0")]
fn cubic_debug_assert_panics_in_debug() {
    cubic_derivatives(6.0);
}

#[test]
#[should_panic(expected = "output length")]
fn residual_jvp_panics() {
    let mut out = [0.0; 1];
    let mut d_out = [0.0; 1];
    residual_jvp(&[1.0, 2.0], 1.0, &mut out, (vec![0.0; 2], 0.0), &mut d_out);
}

#[test]
#[should_panic(expected = "output length")]
fn residual_vjp_panics() {
    let mut out = [0.0; 1];
    residual_vjp(&[1.0, 2.0], 1.0, &mut out, &[1.0]);
}
