//! A catalogue of realistic scalar functions, as users write them: losses, a pricing formula, physics,
//! coordinate transforms and piecewise functions. Each is checked at random points against central
//! differences (`check_gradient`) and against its derivative written by hand.

mod common;

use autodiff::differentiable;
use common::*;
use proptest::prelude::*;
use std::f64::consts::PI;

// ---- machine learning ----

/// The logistic loss `ln(1 + e^(-m))` of the margin `m = label (w x + b)`, written in the two forms that
/// do not overflow. Only the weights are differentiated.
#[differentiable(wrt(w, b))]
fn logistic_loss(w: f64, b: f64, x: f64, label: f64) -> f64 {
    let margin = label * (w * x + b);
    if margin > 0.0 {
        (-margin).exp().ln_1p()
    } else {
        -margin + margin.exp().ln_1p()
    }
}

fn logistic_loss_partials(w: f64, b: f64, x: f64, label: f64) -> [f64; 2] {
    let slope = -label * sigmoid(-label * (w * x + b));
    [slope * x, slope]
}

/// Softplus `ln(1 + eˣ)` with a branch per regime: its tails exactly, its middle without overflow.
#[differentiable]
fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        return x;
    }
    if x < -30.0 {
        return x.exp();
    }
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// `ln(eᵃ + eᵇ + eᶜ)`, shifted by the maximum so that no exponential overflows.
#[differentiable]
fn log_sum_exp(a: f64, b: f64, c: f64) -> f64 {
    let m = a.max(b).max(c);
    m + ((a - m).exp() + (b - m).exp() + (c - m).exp()).ln()
}

/// The Huber loss of a residual: quadratic within `delta`, linear outside.
#[differentiable]
fn huber(residual: f64, delta: f64) -> f64 {
    let size = residual.abs();
    if size <= delta {
        0.5 * residual * residual
    } else {
        delta * (size - 0.5 * delta)
    }
}

fn huber_partials(residual: f64, delta: f64) -> [f64; 2] {
    if residual.abs() <= delta {
        [residual, 0.0]
    } else {
        [delta * residual.signum(), residual.abs() - delta]
    }
}

/// The log-density of a normal distribution at `x`.
#[differentiable]
fn normal_log_density(x: f64, mean: f64, std_dev: f64) -> f64 {
    let z = (x - mean) / std_dev;
    -std_dev.ln() - 0.5 * (2.0 * PI).ln() - 0.5 * z * z
}

fn normal_log_density_partials(x: f64, mean: f64, std_dev: f64) -> [f64; 3] {
    let (d, s2) = (x - mean, std_dev * std_dev);
    [-d / s2, d / s2, -1.0 / std_dev + d * d / (s2 * std_dev)]
}

// ---- finance ----

/// The price of a European call by Black and Scholes, with the normal CDF by the rational approximation
/// 26.2.17 of Abramowitz and Stegun (absolute error below 7.5e-8), written out once for `d1` and once for
/// `d2` since differentiable functions cannot call each other yet.
#[differentiable]
fn black_scholes_call(spot: f64, strike: f64, rate: f64, volatility: f64, expiry: f64) -> f64 {
    const P: f64 = 0.231_641_9;
    const B1: f64 = 0.319_381_530;
    const B2: f64 = -0.356_563_782;
    const B3: f64 = 1.781_477_937;
    const B4: f64 = -1.821_255_978;
    const B5: f64 = 1.330_274_429;
    let inv_sqrt_2pi = 1.0 / (2.0 * std::f64::consts::PI).sqrt();

    let root_t = expiry.sqrt();
    let d1 = ((spot / strike).ln() + (rate + 0.5 * volatility * volatility) * expiry)
        / (volatility * root_t);
    let d2 = d1 - volatility * root_t;

    let z1 = d1.abs();
    let t1 = 1.0 / (1.0 + P * z1);
    let tail1 = inv_sqrt_2pi
        * (-0.5 * z1 * z1).exp()
        * (t1 * (B1 + t1 * (B2 + t1 * (B3 + t1 * (B4 + t1 * B5)))));
    let cdf1 = if d1 >= 0.0 { 1.0 - tail1 } else { tail1 };

    let z2 = d2.abs();
    let t2 = 1.0 / (1.0 + P * z2);
    let tail2 = inv_sqrt_2pi
        * (-0.5 * z2 * z2).exp()
        * (t2 * (B1 + t2 * (B2 + t2 * (B3 + t2 * (B4 + t2 * B5)))));
    let cdf2 = if d2 >= 0.0 { 1.0 - tail2 } else { tail2 };

    spot * cdf1 - strike * (-rate * expiry).exp() * cdf2
}

/// The standard normal density.
fn normal_density(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * PI).sqrt()
}

/// The standard normal CDF, by the same approximation as `black_scholes_call`.
fn normal_cdf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.231_641_9 * x.abs());
    let poly = t
        * (0.319_381_530
            + t * (-0.356_563_782
                + t * (1.781_477_937 + t * (-1.821_255_978 + t * 1.330_274_429))));
    let tail = normal_density(x) * poly;
    if x >= 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// `d1` and `d2` of the Black-Scholes formula.
fn black_scholes_d(spot: f64, strike: f64, rate: f64, volatility: f64, expiry: f64) -> (f64, f64) {
    let root_t = expiry.sqrt();
    let d1 = ((spot / strike).ln() + (rate + 0.5 * volatility * volatility) * expiry)
        / (volatility * root_t);
    (d1, d1 - volatility * root_t)
}

/// The textbook Greeks, in the order of the parameters: delta, the strike sensitivity, rho, vega, and
/// the sensitivity to the time to expiry (theta with its sign flipped).
fn black_scholes_greeks(
    spot: f64,
    strike: f64,
    rate: f64,
    volatility: f64,
    expiry: f64,
) -> [f64; 5] {
    let (d1, d2) = black_scholes_d(spot, strike, rate, volatility, expiry);
    let discount = (-rate * expiry).exp();
    [
        normal_cdf(d1),
        -discount * normal_cdf(d2),
        strike * expiry * discount * normal_cdf(d2),
        spot * normal_density(d1) * expiry.sqrt(),
        spot * normal_density(d1) * volatility / (2.0 * expiry.sqrt())
            + rate * strike * discount * normal_cdf(d2),
    ]
}

// ---- physics and geometry ----

/// Standard gravity, m/s².
const GRAVITY: f64 = 9.806_65;

/// The range of a projectile launched at `speed` and `angle` from `height` above flat ground.
#[differentiable]
fn projectile_range(speed: f64, angle: f64, height: f64) -> f64 {
    let (vx, vy) = (speed * angle.cos(), speed * angle.sin());
    let time = (vy + (vy * vy + 2.0 * GRAVITY * height).sqrt()) / GRAVITY;
    vx * time
}

fn projectile_range_partials(speed: f64, angle: f64, height: f64) -> [f64; 3] {
    let (s, c) = (angle.sin(), angle.cos());
    let q = (speed * speed * s * s + 2.0 * GRAVITY * height).sqrt();
    let lift = speed * s + q;
    [
        (c * lift + speed * c * (s + speed * s * s / q)) / GRAVITY,
        (-speed * s * lift + speed * c * (speed * c + speed * speed * s * c / q)) / GRAVITY,
        speed * c / q,
    ]
}

/// The Lennard-Jones potential between two atoms at distance `r`.
#[differentiable]
fn lennard_jones(r: f64, epsilon: f64, sigma: f64) -> f64 {
    let s6 = (sigma / r).powi(6);
    4.0 * epsilon * (s6 * s6 - s6)
}

fn lennard_jones_partials(r: f64, epsilon: f64, sigma: f64) -> [f64; 3] {
    let s6 = (sigma / r).powi(6);
    [
        4.0 * epsilon * (-12.0 * s6 * s6 + 6.0 * s6) / r,
        4.0 * (s6 * s6 - s6),
        4.0 * epsilon * (12.0 * s6 * s6 - 6.0 * s6) / sigma,
    ]
}

/// Spherical coordinates (radius, polar angle, azimuth) to Cartesian ones.
#[differentiable]
fn spherical_to_cartesian(r: f64, theta: f64, phi: f64) -> (f64, f64, f64) {
    let planar = r * theta.sin();
    (planar * phi.cos(), planar * phi.sin(), r * theta.cos())
}

fn spherical_jacobian(r: f64, theta: f64, phi: f64) -> Vec<Vec<f64>> {
    let (st, ct, sp, cp) = (theta.sin(), theta.cos(), phi.sin(), phi.cos());
    vec![
        vec![st * cp, r * ct * cp, -r * st * sp],
        vec![st * sp, r * ct * sp, r * st * cp],
        vec![ct, -r * st, 0.0],
    ]
}

/// Cartesian coordinates to polar ones.
#[differentiable]
fn cartesian_to_polar(x: f64, y: f64) -> (f64, f64) {
    (x.hypot(y), y.atan2(x))
}

fn cartesian_to_polar_jacobian(x: f64, y: f64) -> Vec<Vec<f64>> {
    let r2 = x * x + y * y;
    let r = r2.sqrt();
    vec![vec![x / r, y / r], vec![-y / r2, x / r2]]
}

/// The cubic B-spline basis function on [0, 4], one polynomial per unit segment chosen by `match`.
#[differentiable]
fn cubic_b_spline(x: f64) -> f64 {
    let segment = x.floor() as i32;
    match segment {
        0 => x.powi(3) / 6.0,
        1 => (-3.0 * x.powi(3) + 12.0 * x * x - 12.0 * x + 4.0) / 6.0,
        2 => (3.0 * x.powi(3) - 24.0 * x * x + 60.0 * x - 44.0) / 6.0,
        3 => (4.0 - x).powi(3) / 6.0,
        _ => 0.0,
    }
}

fn cubic_b_spline_derivative(x: f64) -> f64 {
    match x.floor() as i32 {
        0 => x * x / 2.0,
        1 => (-9.0 * x * x + 24.0 * x - 12.0) / 6.0,
        2 => (9.0 * x * x - 48.0 * x + 60.0) / 6.0,
        3 => -(4.0 - x).powi(2) / 2.0,
        _ => 0.0,
    }
}

// ---- the tests ----

/// Labels of a binary classifier.
fn label() -> impl Strategy<Value = f64> {
    prop_oneof![Just(-1.0), Just(1.0)]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn logistic_loss_gradient(
        w in moderate(),
        b in moderate(),
        x in moderate(),
        label in label(),
        t in tangents(),
    ) {
        prop_assume!((w * x + b).abs() > 1e-3);
        check_scalar(
            "logistic loss",
            |v| logistic_loss(v[0], v[1], x, label),
            &[w, b],
            (
                logistic_loss_grad(w, b, x, label),
                |cot| logistic_loss_vjp(w, b, x, label, cot),
                |t| logistic_loss_jvp(w, b, x, label, t),
            ),
            &logistic_loss_partials(w, b, x, label),
            &t,
        );
    }

    #[test]
    fn softplus_gradient_is_the_sigmoid(x in -40.0..40.0_f64, t in tangents()) {
        check_scalar(
            "softplus",
            |v| softplus(v[0]),
            &[x],
            (
                softplus_grad(x),
                |cot| softplus_vjp(x, cot),
                |t| softplus_jvp(x, t),
            ),
            &[sigmoid(x)],
            &t,
        );
    }

    #[test]
    fn log_sum_exp_gradient_is_the_softmax(
        a in moderate(),
        b in moderate(),
        c in moderate(),
        t in tangents(),
    ) {
        let total = a.exp() + b.exp() + c.exp();
        let softmax = [a.exp() / total, b.exp() / total, c.exp() / total];
        check_scalar(
            "log-sum-exp",
            |v| log_sum_exp(v[0], v[1], v[2]),
            &[a, b, c],
            (
                log_sum_exp_grad(a, b, c),
                |cot| log_sum_exp_vjp(a, b, c, cot),
                |t| log_sum_exp_jvp(a, b, c, t),
            ),
            &softmax,
            &t,
        );
    }

    #[test]
    fn huber_loss_gradient(residual in moderate(), delta in 0.2..2.0_f64, t in tangents()) {
        prop_assume!((residual.abs() - delta).abs() > 1e-3 && residual.abs() > 1e-3);
        check_scalar(
            "huber",
            |v| huber(v[0], v[1]),
            &[residual, delta],
            (
                huber_grad(residual, delta),
                |cot| huber_vjp(residual, delta, cot),
                |t| huber_jvp(residual, delta, t),
            ),
            &huber_partials(residual, delta),
            &t,
        );
    }

    #[test]
    fn normal_log_density_gradient(
        x in moderate(),
        mean in moderate(),
        std_dev in 0.3..3.0_f64,
        t in tangents(),
    ) {
        check_scalar(
            "normal log-density",
            |v| normal_log_density(v[0], v[1], v[2]),
            &[x, mean, std_dev],
            (
                normal_log_density_grad(x, mean, std_dev),
                |cot| normal_log_density_vjp(x, mean, std_dev, cot),
                |t| normal_log_density_jvp(x, mean, std_dev, t),
            ),
            &normal_log_density_partials(x, mean, std_dev),
            &t,
        );
    }

    #[test]
    fn black_scholes_greeks_match(
        spot in 50.0..150.0_f64,
        strike in 50.0..150.0_f64,
        rate in 0.0..0.1_f64,
        volatility in 0.1..0.5_f64,
        expiry in 0.25..2.0_f64,
        t in prop::array::uniform5(tangent()),
    ) {
        let (d1, d2) = black_scholes_d(spot, strike, rate, volatility, expiry);
        prop_assume!(d1.abs() > 1e-3 && d2.abs() > 1e-3);
        let at = [spot, strike, rate, volatility, expiry];
        let price = |v: &[f64]| black_scholes_call(v[0], v[1], v[2], v[3], v[4]);
        let (value, (d_spot, d_strike, d_rate, d_vol, d_expiry)) =
            black_scholes_call_grad(spot, strike, rate, volatility, expiry);
        let grad = [d_spot, d_strike, d_rate, d_vol, d_expiry];
        assert_eq!(value, price(&at));
        assert_fd_gradient(price, &at, &grad, "Black-Scholes");
        // The textbook Greeks hold for the approximated CDF only up to the error of its derivative,
        // scaled by the spot and by 1/(σ√T): about 2e-4 at worst on this domain (seen over 200 000
        // points), so 1e-3 here. Central differences above are the exact check.
        let greeks = black_scholes_greeks(spot, strike, rate, volatility, expiry);
        assert_all_close(&grad, &greeks, 1e-3, "Black-Scholes Greeks");
        let (jvp_value, dot_price) = black_scholes_call_jvp(
            spot,
            strike,
            rate,
            volatility,
            expiry,
            (t[0], t[1], t[2], t[3], t[4]),
        );
        assert_eq!(jvp_value, value);
        assert_close(dot_price, dot(&grad, &t), ANALYTIC_TOL, "Black-Scholes jvp");
    }

    #[test]
    fn projectile_range_gradient(
        speed in 5.0..50.0_f64,
        angle in 0.1..1.4_f64,
        height in 0.0..20.0_f64,
        t in tangents(),
    ) {
        check_scalar(
            "projectile range",
            |v| projectile_range(v[0], v[1], v[2]),
            &[speed, angle, height],
            (
                projectile_range_grad(speed, angle, height),
                |cot| projectile_range_vjp(speed, angle, height, cot),
                |t| projectile_range_jvp(speed, angle, height, t),
            ),
            &projectile_range_partials(speed, angle, height),
            &t,
        );
    }

    #[test]
    fn lennard_jones_gradient(
        r in 0.9..3.0_f64,
        epsilon in 0.5..2.0_f64,
        sigma in 0.8..1.2_f64,
        t in tangents(),
    ) {
        check_scalar(
            "Lennard-Jones",
            |v| lennard_jones(v[0], v[1], v[2]),
            &[r, epsilon, sigma],
            (
                lennard_jones_grad(r, epsilon, sigma),
                |cot| lennard_jones_vjp(r, epsilon, sigma, cot),
                |t| lennard_jones_jvp(r, epsilon, sigma, t),
            ),
            &lennard_jones_partials(r, epsilon, sigma),
            &t,
        );
    }

    #[test]
    fn spherical_coordinates(
        r in positive(),
        theta in 0.0..PI,
        phi in -PI..PI,
        ct in tangents(),
        t in tangents(),
    ) {
        check_tuple(
            "spherical to Cartesian",
            |v| spherical_to_cartesian(v[0], v[1], v[2]),
            &[r, theta, phi],
            &spherical_jacobian(r, theta, phi),
            |d| spherical_to_cartesian_vjp(r, theta, phi, d),
            |t| spherical_to_cartesian_jvp(r, theta, phi, t),
            (&ct, &t),
        );
    }

    #[test]
    fn polar_coordinates(x in nonzero(), y in moderate(), ct in tangents(), t in tangents()) {
        // Away from the negative x-axis, where atan2 jumps by 2π.
        prop_assume!(x > 0.0 || y.abs() > 1e-3);
        check_tuple(
            "Cartesian to polar",
            |v| cartesian_to_polar(v[0], v[1]),
            &[x, y],
            &cartesian_to_polar_jacobian(x, y),
            |d| cartesian_to_polar_vjp(x, y, d),
            |t| cartesian_to_polar_jvp(x, y, t),
            (&ct, &t),
        );
    }

    #[test]
    fn b_spline_gradient(x in -1.0..5.0_f64, t in tangents()) {
        prop_assume!((x - x.round()).abs() > 1e-3);
        check_scalar(
            "cubic B-spline",
            |v| cubic_b_spline(v[0]),
            &[x],
            (
                cubic_b_spline_grad(x),
                |cot| cubic_b_spline_vjp(x, cot),
                |t| cubic_b_spline_jvp(x, t),
            ),
            &[cubic_b_spline_derivative(x)],
            &t,
        );
    }
}

/// Known values, so that the catalogue's reference formulas are themselves right.
#[test]
fn reference_values() {
    // At-the-money, one year, 5 %, 20 %: the classic textbook price 10.4506.
    let price = black_scholes_call(100.0, 100.0, 0.05, 0.2, 1.0);
    assert!((price - 10.4506).abs() < 1e-3, "{price}");
    // 45° from the ground: v² / g.
    assert_close(
        projectile_range(10.0, PI / 4.0, 0.0),
        100.0 / GRAVITY,
        1e-12,
        "range",
    );
    // The minimum of the potential is -ε at r = 2^(1/6) σ, with zero slope.
    let r_min = 2.0_f64.powf(1.0 / 6.0);
    let (v, (d_r, _, _)) = lennard_jones_grad(r_min, 1.5, 1.0);
    assert_close(v, -1.5, 1e-12, "Lennard-Jones minimum");
    assert!(d_r.abs() < 1e-9, "{d_r}");
    // The B-spline is a partition of unity: B(x) + B(x + 1) + B(x + 2) + B(x + 3) = 1 on [0, 1].
    let x = 0.37;
    let sum: f64 = (0..4).map(|k| cubic_b_spline(x + f64::from(k))).sum();
    assert_close(sum, 1.0, 1e-12, "partition of unity");
    // The derivatives of a partition of unity sum to zero.
    let slopes: f64 = (0..4)
        .map(|k| cubic_b_spline_grad(x + f64::from(k)).1)
        .sum();
    assert!(slopes.abs() < 1e-12, "{slopes}");
}
