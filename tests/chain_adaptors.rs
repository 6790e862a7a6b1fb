//! Iterator chains with `.filter(..)`, `.skip(n)`, `.take(n)`, `.count()`, `.windows(k)`, `.chunks(k)`
//! and `.chunks_exact(k)`, in chains and in `for` loops (`autodiff-macros/src/chains.rs` lowers them to
//! loops with an `if` and counters, or to sub-slices). Each gradient is checked against a hand-written
//! one and central differences, each Hessian (`order = 2`) against a hand-written one and central
//! differences of `_grad`, at many random points whose elements keep away from the filters' thresholds
//! (where the functions are not differentiable).

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, config, fd_jacobian, ANALYTIC_TOL,
};
use proptest::prelude::*;

/// The tolerance of a Hessian against central differences of the gradient.
const FD_HESSIAN_TOL: f64 = 1e-6;

/// Vectors of 1 to 9 elements in `±[0.2, 1.8]`: at least 0.1 from the thresholds 0 and 0.1 used below, and at
/// least 1e-3 from ±0.35, where `filtered`'s `|2v| > 0.7` switches a term (central differences of the gradient
/// across that step, at 0.34999 say, are not its Hessian: proptest found it under the reference adjoint).
fn inputs() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(
        (0.2..1.8f64, any::<bool>())
            .prop_filter("near filtered's threshold", |(m, _)| {
                (m - 0.35).abs() > 1e-3
            })
            .prop_map(|(m, s)| if s { m } else { -m }),
        1..10,
    )
}

#[track_caller]
fn check_hessian(
    hessian: &[Vec<f64>],
    analytic: &[Vec<f64>],
    grad: impl Fn(&[f64]) -> Vec<f64>,
    x: &[f64],
    what: &str,
) {
    let fd = fd_jacobian(grad, x);
    for i in 0..x.len() {
        for j in 0..x.len() {
            let at = format!("{what}: H[{i}][{j}] at {x:?}");
            assert_close(hessian[i][j], analytic[i][j], 1e-9, &at);
            assert_close(hessian[i][j], fd[i][j], FD_HESSIAN_TOL, &at);
        }
    }
}

// ---- filter ----

/// `sum over positive v of v^3`, plus `sum over v < 0.1 of sin v`, plus `sum over |2v| > 0.7 of (2v)^2`.
#[differentiable(order = 2)]
fn filtered(x: &[f64]) -> f64 {
    x.iter()
        .filter(|v| **v > 0.0)
        .map(|v| v * v * v)
        .sum::<f64>()
        + x.iter()
            .copied()
            .filter(|&v| v < 0.1)
            .map(|v| v.sin())
            .sum::<f64>()
        + x.iter()
            .map(|v| v * 2.0)
            .filter(|w| w.abs() > 0.7)
            .fold(0.0, |acc, w| acc + w * w)
}

/// The gradient and the (diagonal) Hessian of `filtered`.
fn filtered_derivatives(x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut g = vec![0.0; x.len()];
    let mut h = vec![0.0; x.len()];
    for (i, &v) in x.iter().enumerate() {
        if v > 0.0 {
            g[i] += 3.0 * v * v;
            h[i] += 6.0 * v;
        }
        if v < 0.1 {
            g[i] += v.cos();
            h[i] -= v.sin();
        }
        if (2.0 * v).abs() > 0.7 {
            g[i] += 8.0 * v;
            h[i] += 8.0;
        }
    }
    (g, h)
}

/// A `for` over an enumerated, filtered chain, and a filtered count.
#[differentiable(order = 2)]
fn filtered_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
        s += v * v * (i as f64 + 1.0);
    }
    let positive = x.iter().filter(|v| **v > 0.0).count();
    s * (positive as f64 + 1.0)
}

fn filtered_loop_derivatives(x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let c = x.iter().filter(|v| **v > 0.0).count() as f64 + 1.0;
    let mut g = vec![0.0; x.len()];
    let mut h = vec![0.0; x.len()];
    for i in (0..x.len()).step_by(2) {
        g[i] = 2.0 * x[i] * (i as f64 + 1.0) * c;
        h[i] = 2.0 * (i as f64 + 1.0) * c;
    }
    (g, h)
}

// ---- skip and take ----

/// Skips and takes right after `.iter()` (a sub-slice), inside a `zip`, after `.enumerate()` and after
/// `.map(..)` (counters), past the end, and in a `for`.
#[differentiable(order = 2)]
fn skipped(x: &[f64]) -> f64 {
    let a: f64 = x.iter().skip(1).map(|v| v * v).sum();
    let b: f64 = x.iter().zip(x.iter().skip(1)).map(|(p, q)| p * q).sum();
    let c: f64 = x.iter().take(2).map(|v| v + 2.0).product();
    let d: f64 = x.iter().skip(1).take(2).map(|v| v.exp()).sum();
    let e: f64 = x
        .iter()
        .enumerate()
        .skip(1)
        .map(|(i, v)| (i as f64) * v)
        .sum();
    let f: f64 = x.iter().map(|v| v.cos()).skip(2).take(3).sum();
    let g: f64 = x.iter().skip(10).sum();
    let mut h = 0.0;
    for &v in x.iter().skip(2) {
        h += v.sin();
    }
    a + b + c + d + e + f + g + h
}

/// The derivatives of `skipped`, term by term (index loops mirror the terms).
#[allow(clippy::needless_range_loop)]
fn skipped_derivatives(x: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut h = vec![vec![0.0; n]; n];
    for i in 1..n {
        g[i] += 2.0 * x[i];
        h[i][i] += 2.0;
    }
    for i in 0..n.saturating_sub(1) {
        g[i] += x[i + 1];
        g[i + 1] += x[i];
        h[i][i + 1] += 1.0;
        h[i + 1][i] += 1.0;
    }
    // c = prod over the first two of (v + 2).
    match n {
        1 => g[0] += 1.0,
        _ => {
            g[0] += x[1] + 2.0;
            g[1] += x[0] + 2.0;
            h[0][1] += 1.0;
            h[1][0] += 1.0;
        }
    }
    for i in 1..n.min(3) {
        g[i] += x[i].exp();
        h[i][i] += x[i].exp();
    }
    for i in 1..n {
        g[i] += i as f64;
    }
    for i in 2..n.min(5) {
        g[i] -= x[i].sin();
        h[i][i] -= x[i].cos();
    }
    for i in 10..n {
        g[i] += 1.0;
    }
    for i in 2..n {
        g[i] += x[i].cos();
        h[i][i] -= x[i].sin();
    }
    (g, h)
}

// ---- windows and chunks ----

/// Squared differences of neighbours by `.windows(2)`, first times last of each `.chunks(3)`, products of
/// `.windows(3)` and `.chunks_exact(2)` in `for` loops.
#[differentiable(order = 2)]
fn windowed(x: &[f64]) -> f64 {
    let a: f64 = x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
    let b: f64 = x.chunks(3).map(|c| c[0] * c[c.len() - 1]).sum();
    let mut s = 0.0;
    for w in x.windows(3) {
        s += w[0] * w[1] * w[2];
    }
    for c in x.chunks_exact(2) {
        s += c[0] * c[1].exp();
    }
    a + b + s
}

fn windowed_derivatives(x: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut h = vec![vec![0.0; n]; n];
    let add = |h: &mut Vec<Vec<f64>>, i: usize, j: usize, v: f64| {
        h[i][j] += v;
        if i != j {
            h[j][i] += v;
        }
    };
    for i in 0..n.saturating_sub(1) {
        let d = x[i + 1] - x[i];
        g[i] -= 2.0 * d;
        g[i + 1] += 2.0 * d;
        add(&mut h, i, i, 2.0);
        add(&mut h, i + 1, i + 1, 2.0);
        add(&mut h, i, i + 1, -2.0);
    }
    for start in (0..n).step_by(3) {
        let last = (start + 2).min(n - 1);
        if last == start {
            g[start] += 2.0 * x[start];
            add(&mut h, start, start, 2.0);
        } else {
            g[start] += x[last];
            g[last] += x[start];
            add(&mut h, start, last, 1.0);
        }
    }
    for i in 0..n.saturating_sub(2) {
        g[i] += x[i + 1] * x[i + 2];
        g[i + 1] += x[i] * x[i + 2];
        g[i + 2] += x[i] * x[i + 1];
        add(&mut h, i, i + 1, x[i + 2]);
        add(&mut h, i, i + 2, x[i + 1]);
        add(&mut h, i + 1, i + 2, x[i]);
    }
    for k in 0..n / 2 {
        let (i, j) = (2 * k, 2 * k + 1);
        g[i] += x[j].exp();
        g[j] += x[i] * x[j].exp();
        add(&mut h, i, j, x[j].exp());
        add(&mut h, j, j, x[i] * x[j].exp());
    }
    (g, h)
}

fn diagonal(d: &[f64]) -> Vec<Vec<f64>> {
    (0..d.len())
        .map(|i| {
            (0..d.len())
                .map(|j| if i == j { d[i] } else { 0.0 })
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn filtered_gradient_and_hessian(x in inputs()) {
        let (value, grad) = filtered_grad(&x);
        assert_eq!(value, filtered(&x));
        let (g, h) = filtered_derivatives(&x);
        assert_all_close(&grad, &g, ANALYTIC_TOL, "filtered gradient");
        assert_fd_gradient(filtered, &x, &grad, "filtered");
        let (_, _, hessian) = filtered_hessian(&x);
        check_hessian(&hessian, &diagonal(&h), |x| filtered_grad(x).1, &x, "filtered");
    }

    #[test]
    fn filtered_loop_gradient_and_hessian(x in inputs()) {
        let (value, grad) = filtered_loop_grad(&x);
        assert_eq!(value, filtered_loop(&x));
        let (g, h) = filtered_loop_derivatives(&x);
        assert_all_close(&grad, &g, ANALYTIC_TOL, "filtered_loop gradient");
        assert_fd_gradient(filtered_loop, &x, &grad, "filtered_loop");
        let (_, _, hessian) = filtered_loop_hessian(&x);
        check_hessian(&hessian, &diagonal(&h), |x| filtered_loop_grad(x).1, &x, "filtered_loop");
    }

    #[test]
    fn skipped_gradient_and_hessian(x in inputs()) {
        let (value, grad) = skipped_grad(&x);
        assert_eq!(value, skipped(&x));
        let (g, h) = skipped_derivatives(&x);
        assert_all_close(&grad, &g, ANALYTIC_TOL, "skipped gradient");
        assert_fd_gradient(skipped, &x, &grad, "skipped");
        let (_, _, hessian) = skipped_hessian(&x);
        check_hessian(&hessian, &h, |x| skipped_grad(x).1, &x, "skipped");
    }

    #[test]
    fn windowed_gradient_and_hessian(x in inputs()) {
        let (value, grad) = windowed_grad(&x);
        assert_eq!(value, windowed(&x));
        let (g, h) = windowed_derivatives(&x);
        assert_all_close(&grad, &g, ANALYTIC_TOL, "windowed gradient");
        assert_fd_gradient(windowed, &x, &grad, "windowed");
        let (_, _, hessian) = windowed_hessian(&x);
        check_hessian(&hessian, &h, |x| windowed_grad(x).1, &x, "windowed");
    }

    /// Forward mode agrees with the gradient: `jvp(t) = grad . t`.
    #[test]
    fn tangents_agree_with_gradients(x in inputs()) {
        let t: Vec<f64> = (0..x.len()).map(|i| 0.3 + 0.1 * i as f64).collect();
        for (name, grad, jvp) in [
            ("filtered", filtered_grad(&x).1, filtered_jvp(&x, t.clone()).1),
            ("filtered_loop", filtered_loop_grad(&x).1, filtered_loop_jvp(&x, t.clone()).1),
            ("skipped", skipped_grad(&x).1, skipped_jvp(&x, t.clone()).1),
            ("windowed", windowed_grad(&x).1, windowed_jvp(&x, t.clone()).1),
        ] {
            let dot: f64 = grad.iter().zip(&t).map(|(g, t)| g * t).sum();
            assert_close(jvp, dot, ANALYTIC_TOL, name);
        }
    }
}

/// `.rev().enumerate()` counts from the last element, `(0, x[n - 1])`, `(1, x[n - 2])`, .. (the count was
/// the element's index, a wrong value and gradient). In a chain, in a `for`, on a sub-slice.
#[differentiable(order = 2)]
fn counted_backwards(x: &[f64]) -> f64 {
    let chained: f64 = x
        .iter()
        .rev()
        .enumerate()
        .map(|(i, v)| v * v * (i + 1) as f64)
        .sum();
    let mut looped = 0.0;
    for (i, &v) in x[1..].iter().rev().enumerate() {
        looped += v.sin() * i as f64;
    }
    chained + looped
}

fn counted_backwards_by_hand(x: &[f64]) -> f64 {
    let n = x.len();
    let chained: f64 = (0..n).map(|k| x[k] * x[k] * (n - k) as f64).sum();
    let looped: f64 = (1..n).map(|k| x[k].sin() * (n - 1 - k) as f64).sum();
    chained + looped
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn enumerated_backwards(x in inputs()) {
        let (value, grad) = counted_backwards_grad(&x);
        prop_assert_eq!(value, counted_backwards(&x));
        assert_close(value, counted_backwards_by_hand(&x), 1e-12, "value by hand");
        let n = x.len();
        let by_hand: Vec<f64> = (0..n)
            .map(|k| 2.0 * x[k] * (n - k) as f64 + if k >= 1 { x[k].cos() * (n - 1 - k) as f64 } else { 0.0 })
            .collect();
        assert_all_close(&grad, &by_hand, ANALYTIC_TOL, "gradient by hand");
        assert_fd_gradient(counted_backwards_by_hand, &x, &grad, "gradient");
        let (_, _, hessian) = counted_backwards_hessian(&x);
        let diagonal: Vec<Vec<f64>> = (0..n)
            .map(|k| {
                let mut row = vec![0.0; n];
                row[k] = 2.0 * (n - k) as f64 - if k >= 1 { x[k].sin() * (n - 1 - k) as f64 } else { 0.0 };
                row
            })
            .collect();
        check_hessian(&hessian, &diagonal, |y| counted_backwards_grad(y).1, &x, "counted_backwards");
    }
}
