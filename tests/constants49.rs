//! Array constants iterated (`for &c in COEFFS.iter()`, `for c in &COEFFS`, `.enumerate()`, chains over
//! them), read by index over `0..C.len()` (`chains::constant_source`; an error before: trial49 wrote its
//! Gauss-Legendre rule by index). Constants of the file and of the body, at first order and at
//! `order = 2`. Values against plain copies, gradients against central differences and by hand, Hessians
//! against differences of `_grad` and by hand.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, assert_hessian_fd, central_difference, Inputs};

const COEFFS: [f64; 4] = [0.5, -1.0, 2.0, 0.25];

/// Horner's rule and other loops over a constant, in each way a `for` binds its elements.
#[differentiable(order = 2)]
fn polynomial(t: f64) -> f64 {
    let mut acc = 0.0;
    for &c in COEFFS.iter() {
        acc = acc * t + c;
    }
    for c in &COEFFS {
        acc += c * t;
    }
    for c in COEFFS.iter() {
        acc += *c * t * t;
    }
    for (i, &c) in COEFFS.iter().enumerate() {
        acc += c * t.powi(i as i32);
    }
    acc
}

fn polynomial_plain(t: f64) -> f64 {
    let mut acc = 0.0;
    for &c in COEFFS.iter() {
        acc = acc * t + c;
    }
    for c in &COEFFS {
        acc += c * t;
    }
    for c in COEFFS.iter() {
        acc += *c * t * t;
    }
    for (i, &c) in COEFFS.iter().enumerate() {
        acc += c * t.powi(i as i32);
    }
    acc
}

/// `p(t)`, `p'(t)`, `p''(t)` of `polynomial` by hand: Horner's `c0 t^3 + c1 t^2 + c2 t + c3`, then
/// `S t + S t^2 + sum_i c_i t^i` with `S` the sum of the coefficients.
fn polynomial_by_hand(t: f64) -> [f64; 3] {
    let c = COEFFS;
    let s: f64 = c.iter().sum();
    let value = c[0] * t.powi(3)
        + c[1] * t * t
        + c[2] * t
        + c[3]
        + s * t
        + s * t * t
        + (0..4).map(|i| c[i] * t.powi(i as i32)).sum::<f64>();
    let first = 3.0 * c[0] * t * t
        + 2.0 * c[1] * t
        + c[2]
        + s
        + 2.0 * s * t
        + (1..4)
            .map(|i| i as f64 * c[i] * t.powi(i as i32 - 1))
            .sum::<f64>();
    let second = 6.0 * c[0] * t
        + 2.0 * c[1]
        + 2.0 * s
        + (2..4)
            .map(|i| (i * (i - 1)) as f64 * c[i] * t.powi(i as i32 - 2))
            .sum::<f64>();
    [value, first, second]
}

/// Chains over a constant: `map` with a dereferencing closure, `enumerate`, `rev`, `copied`, `fold`.
#[differentiable(order = 2)]
fn chained(x: f64, y: f64) -> f64 {
    let a: f64 = COEFFS.iter().map(|c| *c * x.sin()).sum();
    let b: f64 = COEFFS
        .iter()
        .enumerate()
        .map(|(i, &c)| c * y.powi(i as i32 + 1))
        .sum();
    let c = COEFFS.iter().rev().fold(0.0, |acc, &c| acc * x + c);
    let d: f64 = COEFFS.iter().copied().map(|c| c * x * y).sum();
    let e = COEFFS
        .iter()
        .enumerate()
        .rev()
        .fold(0.0, |acc, (i, &c)| acc * y + c * (i as f64 + 1.0));
    let mut f = 0.0;
    for &c in COEFFS.iter().rev() {
        f = f * x.cos() + c;
    }
    a + b + c + d + e * f
}

fn chained_plain(x: f64, y: f64) -> f64 {
    let a: f64 = COEFFS.iter().map(|c| *c * x.sin()).sum();
    let b: f64 = COEFFS
        .iter()
        .enumerate()
        .map(|(i, &c)| c * y.powi(i as i32 + 1))
        .sum();
    let c = COEFFS.iter().rev().fold(0.0, |acc, &c| acc * x + c);
    let d: f64 = COEFFS.iter().copied().map(|c| c * x * y).sum();
    let e = COEFFS
        .iter()
        .enumerate()
        .rev()
        .fold(0.0, |acc, (i, &c)| acc * y + c * (i as f64 + 1.0));
    let mut f = 0.0;
    for &c in COEFFS.iter().rev() {
        f = f * x.cos() + c;
    }
    a + b + c + d + e * f
}

/// Three-point Gauss-Legendre of `exp(-(p t)^2)` over `[a, b]`, its rule as constants of the body.
#[differentiable]
fn gauss(a: f64, b: f64, p: f64) -> f64 {
    const NODES: [f64; 3] = [-0.774_596_669_241_483_4, 0.0, 0.774_596_669_241_483_4];
    const WEIGHTS: [f64; 3] = [5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0];
    let mut s = 0.0;
    for (i, &node) in NODES.iter().enumerate() {
        let t = 0.5 * (b - a) * node + 0.5 * (a + b);
        s += WEIGHTS[i] * (-(p * t) * (p * t)).exp();
    }
    0.5 * (b - a) * s
}

fn gauss_plain(a: f64, b: f64, p: f64) -> f64 {
    const NODES: [f64; 3] = [-0.774_596_669_241_483_4, 0.0, 0.774_596_669_241_483_4];
    const WEIGHTS: [f64; 3] = [5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0];
    let mut s = 0.0;
    for (i, &node) in NODES.iter().enumerate() {
        let t = 0.5 * (b - a) * node + 0.5 * (a + b);
        s += WEIGHTS[i] * (-(p * t) * (p * t)).exp();
    }
    0.5 * (b - a) * s
}

#[test]
fn loops_over_a_constant_at_order_2() {
    let mut inputs = Inputs(49_201);
    for _ in 0..16 {
        let t = 2.0 * inputs.next();
        let [value, first, second] = polynomial_by_hand(t);
        let (v, d) = polynomial_grad(t);
        assert_eq!(v, polynomial(t));
        assert_close(v, polynomial_plain(t), 1e-14, "value");
        assert_close(v, value, 1e-12, "value by hand");
        assert_close(d, first, 1e-12, "first by hand");
        assert_close(d, central_difference(polynomial_plain, t), 1e-6, "first");
        let (_, _, h) = polynomial_hessian(t);
        assert_close(h[0][0], second, 1e-12, "second by hand");
        assert_hessian_fd(&h, |p| vec![polynomial_grad(p[0]).1], &[t], 1e-6, "second");
    }
}

#[test]
fn chains_over_a_constant_at_order_2() {
    let mut inputs = Inputs(49_202);
    for _ in 0..16 {
        let (x, y) = (2.0 * inputs.next(), 2.0 * inputs.next());
        let (v, (dx, dy)) = chained_grad(x, y);
        assert_eq!(v, chained(x, y));
        assert_close(v, chained_plain(x, y), 1e-14, "value");
        assert_fd_gradient(|p| chained_plain(p[0], p[1]), &[x, y], &[dx, dy], "chained");
        let (_, _, h) = chained_hessian(x, y);
        assert_hessian_fd(
            &h,
            |p| {
                let (_, (dx, dy)) = chained_grad(p[0], p[1]);
                vec![dx, dy]
            },
            &[x, y],
            1e-6,
            "chained hessian",
        );
    }
}

#[test]
fn gauss_legendre_with_constants_of_the_body() {
    let mut inputs = Inputs(49_203);
    for _ in 0..16 {
        let (a, b, p) = (inputs.next(), 1.0 + inputs.next().abs(), inputs.next());
        let (v, (da, db, dp)) = gauss_grad(a, b, p);
        assert_eq!(v, gauss(a, b, p));
        assert_close(v, gauss_plain(a, b, p), 1e-14, "value");
        assert_fd_gradient(
            |q| gauss_plain(q[0], q[1], q[2]),
            &[a, b, p],
            &[da, db, dp],
            "gauss",
        );
        // By the fundamental theorem (the rule integrates the end points' values exactly in the
        // limit; here only roughly): d/db of the integral is about the integrand at b.
        assert_close(db, (-(p * b) * (p * b)).exp(), 0.1, "d/db near f(b)");
    }
}
