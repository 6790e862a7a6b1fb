//! `autodiff::optim` driven by generated gradients: the extended Rosenbrock function, written with a loop
//! under `#[differentiable]`, minimised by L-BFGS through `rosenbrock_grad` passed as a function item;
//! and least-squares fits whose residuals are differentiated only in the parameters (`wrt(p)`), adapted
//! to the minimisers by a closure over the data, each checked against its known optimum.

use autodiff::differentiable;
use autodiff::optim::{Adam, Lbfgs, Minimizer, Stop};

/// The extended Rosenbrock function `Σ 100 (x[i+1] − x[i]²)² + (1 − x[i])²`, minimum 0 at all ones.
#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
    }
    s
}

/// The classic start `(−1.2, 1, −1.2, 1, ...)`.
fn rosenbrock_start(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect()
}

fn max_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max)
}

#[test]
fn lbfgs_minimises_rosenbrock_through_its_generated_gradient() {
    for n in [2, 10] {
        let minimum = Lbfgs::default().minimize(rosenbrock_grad, &rosenbrock_start(n));
        assert!(minimum.converged, "n = {n}: {minimum:?}");
        assert_eq!(minimum.stop, Stop::Converged);
        assert!(
            max_distance(&minimum.x, &vec![1.0; n]) < 1e-6,
            "n = {n}: {minimum:?}"
        );
        assert!(minimum.value < 1e-12, "n = {n}: {minimum:?}");
        assert!(minimum.iterations < 300, "n = {n}: {minimum:?}");
        // The reported value and gradient are those of the function at the reported point.
        assert_eq!(
            (minimum.value, minimum.gradient.clone()),
            rosenbrock_grad(&minimum.x)
        );
        assert_eq!(minimum.value, rosenbrock(&minimum.x));
    }
}

/// The sum of squared residuals of the line `p[0] + p[1] t` through the points `(t[i], y[i])`; only the
/// parameters are differentiated.
#[differentiable(wrt(p))]
fn line_residuals(p: &[f64], t: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (&ti, &yi) in t.iter().zip(y.iter()) {
        let r = p[0] + p[1] * ti - yi;
        s += r * r;
    }
    s
}

/// Noisy points around `y = 1.5 − 0.7 t`.
fn line_data() -> (Vec<f64>, Vec<f64>) {
    let t: Vec<f64> = (0..12).map(|i| 0.5 * i as f64).collect();
    let noise = [
        0.12, -0.08, 0.05, -0.15, 0.02, 0.09, -0.11, 0.04, -0.03, 0.13, -0.06, 0.01,
    ];
    let y = t
        .iter()
        .zip(noise)
        .map(|(ti, e)| 1.5 - 0.7 * ti + e)
        .collect();
    (t, y)
}

/// The least-squares line by the normal equations: `(intercept, slope)`.
fn least_squares_line(t: &[f64], y: &[f64]) -> [f64; 2] {
    let n = t.len() as f64;
    let (t_mean, y_mean) = (t.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let covariance: f64 = t
        .iter()
        .zip(y)
        .map(|(a, b)| (a - t_mean) * (b - y_mean))
        .sum();
    let variance: f64 = t.iter().map(|a| (a - t_mean).powi(2)).sum();
    let slope = covariance / variance;
    [y_mean - slope * t_mean, slope]
}

#[test]
fn a_least_squares_line_matches_the_normal_equations() {
    let (t, y) = line_data();
    let expected = least_squares_line(&t, &y);

    let minimum = Lbfgs::default().minimize(|p| line_residuals_grad(p, &t, &y), &[0.0, 0.0]);
    assert!(minimum.converged, "{minimum:?}");
    assert!(max_distance(&minimum.x, &expected) < 1e-9, "{minimum:?}");
    assert!(minimum.iterations < 20, "{minimum:?}");
    assert_eq!(minimum.value, line_residuals(&minimum.x, &t, &y));

    // Adam gets there too, more slowly.
    let adam = Adam {
        learning_rate: 0.05,
        max_iterations: 5000,
        gradient_tolerance: 1e-7,
        ..Adam::default()
    };
    let minimum = adam.minimize(|p| line_residuals_grad(p, &t, &y), &[0.0, 0.0]);
    assert!(minimum.converged, "{minimum:?}");
    assert!(max_distance(&minimum.x, &expected) < 1e-5, "{minimum:?}");
}

/// The sum of squared residuals of the curve `p[0] exp(p[1] t)`.
#[differentiable(wrt(p))]
fn decay_residuals(p: &[f64], t: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..t.len() {
        let r = p[0] * (p[1] * t[i]).exp() - y[i];
        s += r * r;
    }
    s
}

#[test]
fn an_exponential_decay_fitted_to_exact_data_recovers_its_parameters() {
    let t: Vec<f64> = (0..10).map(|i| 0.3 * i as f64).collect();
    let y: Vec<f64> = t.iter().map(|ti| 2.0 * (-0.5 * ti).exp()).collect();
    let minimum = Lbfgs::default().minimize(|p| decay_residuals_grad(p, &t, &y), &[1.0, 0.0]);
    assert!(minimum.converged, "{minimum:?}");
    assert!(max_distance(&minimum.x, &[2.0, -0.5]) < 1e-8, "{minimum:?}");
    assert!(decay_residuals(&minimum.x, &t, &y) < 1e-16, "{minimum:?}");
}
