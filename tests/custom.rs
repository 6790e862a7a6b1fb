//! `#[custom_gradient]` and `#[gradient_of]`: gradients the user writes, and differentiable callers of
//! them.
//!
//! - Custom gradients with one and several inputs, slice inputs, an inactive integer input, tuple outputs,
//!   generic ones at `f32`, `f64` and `autodiff::Dual<f64>` (second order through the closure); called in
//!   chains, loops and branches.
//! - Registered gradients of functions the crate does not own: `libm::erf`, `libm::hypot` (two inputs),
//!   a generic function and a plain function of a module, called by an imported name and by their paths
//!   (`libm::atan2(y, x)`, `::libm::hypot`, `self::outside::special::smooth_relu`, with a turbofish, in a
//!   module below and in a method), in reverse and forward mode and, generic, at second order.
//! - The user's gradient is really used: a deliberately wrong one (`2 dy` where the slope is 1) shows in
//!   the caller's gradient, `clip_gradient` clips the cotangent flowing back, and `log1pexp` stays finite
//!   where the derivative of the naive formula is NaN.
//!
//! Each is checked against its derivative written by hand and central differences, and `_vjp`, `_jvp`
//! against `_grad` (`common::check_scalar`). Custom gradients across crates are in `tests/cross_crate.rs`.

mod common;

use autodiff::{custom_gradient, differentiable, gradient_of, Dual, Float};
use common::*;
use proptest::prelude::*;

// ---- the first smoke test's functions ----

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

/// The identity, whose backward pass clips the cotangent to `[lo, hi]` (and gives no gradient to the
/// bounds).
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

    /// `x²`, generic, without derivatives of its own.
    pub fn generic_square<T: autodiff::Float>(x: T) -> T {
        x * x
    }

    /// A module further down, reached only by its path.
    pub mod special {
        /// `ln(1 + eˣ)`, without derivatives of its own.
        pub fn smooth_relu(x: f64) -> f64 {
            (1.0 + x.exp()).ln()
        }
    }
}
use outside::{generic_square, softsign};

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

// ---- custom gradients of several inputs, slices, tuples, integers ----

/// `ln(eᵃ + eᵇ)`, computed stably, with the softmax weights as its gradient.
#[custom_gradient]
fn smooth_max(a: f64, b: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let m = a.max(b);
    let (ea, eb) = ((a - m).exp(), (b - m).exp());
    let sum = ea + eb;
    (m + sum.ln(), move |dy| (dy * ea / sum, dy * eb / sum))
}

/// `smooth_max(x y, x + y)`.
#[differentiable]
fn uses_smooth_max(x: f64, y: f64) -> f64 {
    smooth_max(x * y, x + y)
}

/// `sin(w · x) + v · v` with `v = (x₀², w₀)`: a slice parameter and a local `Vec` passed to `weighted`.
#[differentiable]
fn uses_weighted(w: &[f64], x: &[f64]) -> f64 {
    let v = vec![x[0] * x[0], w[0]];
    weighted(w, x).sin() + weighted(&v, &v)
}

/// `x² · sin x` through a custom gradient with two outputs.
#[differentiable]
fn uses_pair(x: f64) -> f64 {
    let (a, b) = pair(x);
    a * b
}

/// `xⁿ` with an integer parameter the gradient closure reads.
#[custom_gradient]
fn power(x: f64, n: i32) -> (f64, impl Fn(f64) -> f64) {
    (x.powi(n), move |dy| dy * f64::from(n) * x.powi(n - 1))
}

/// `x³ + x²`.
#[differentiable]
fn uses_power(x: f64) -> f64 {
    power(x, 3) + power(x, 2)
}

// ---- generic custom gradients: f32, f64 and second order on duals ----

/// `ln(1 + eˣ)` for any float, with the logistic function as its gradient.
#[custom_gradient]
fn softplus<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    let one = T::one();
    let logistic = one / (one + (-x).exp());
    (x.max(T::zero()) + (-x.abs()).exp().ln_1p(), move |dy: T| {
        dy * logistic
    })
}

/// `softplus(x²)`: its second derivative flows through the closure of `softplus` on duals.
#[differentiable]
fn uses_softplus<T: Float>(x: T) -> T {
    softplus(x * x)
}

/// The value, first and second derivative of `softplus(x²)`.
fn uses_softplus_reference(x: f64) -> [f64; 3] {
    let u = x * x;
    let s = sigmoid(u);
    [
        u.max(0.0) + (-u).exp().ln_1p(),
        2.0 * x * s,
        2.0 * s + 4.0 * u * s * (1.0 - s),
    ]
}

// ---- the user's gradient is the one used ----

/// The identity with a deliberately wrong gradient: `2 dy` where the slope is 1.
#[custom_gradient]
fn doubled<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    (x, move |dy: T| dy + dy)
}

/// `x · x`, whose true slope `2x` becomes `3x` through `doubled`'s gradient: `x` (from the factor
/// `doubled(x)`) plus `2 x` (from `doubled`'s cotangent `x`, doubled).
#[differentiable]
fn uses_doubled<T: Float>(x: T) -> T {
    doubled(x) * x
}

/// Ten times the identity: the cotangent 10 flowing back into `clip_gradient` is clipped to `[-1, 1]`.
#[differentiable]
fn clipped_scale(x: f64, scale: f64) -> f64 {
    clip_gradient(x * x, -1.0, 1.0) * scale
}

/// `clip_gradient` in a loop: `x` doubled `n` times, each cotangent clipped on the way back, so the
/// gradient is 2 (for `n ≥ 1`) instead of `2ⁿ`.
#[differentiable(wrt(x))]
fn doubled_with_clipping(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = clip_gradient(2.0 * y, -1.0, 1.0);
    }
    y
}

// ---- chains and branches ----

/// A differentiable callee of a custom gradient, called again: `2 ln(1 + eˣ) + ln(1 + e⁻ˣ)`.
#[differentiable]
fn chain_of_custom(x: f64) -> f64 {
    uses_custom(x) + log1pexp(-x)
}

/// A custom gradient on one branch, a registered one on the other.
#[differentiable]
fn branch_of_custom(x: f64) -> f64 {
    if x > 0.0 {
        log1pexp(x) * x
    } else {
        softsign(x) + x
    }
}

// ---- registered gradients of functions of other crates ----

use libm::{erf, hypot};

/// `erf'(x) = 2/√π e^(-x²)`.
#[gradient_of(libm::erf)]
fn erf_vjp(x: f64, dy: f64) -> f64 {
    dy * std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp()
}

/// The normal distribution function `Φ((x - μ) / σ)`, through `erf`.
#[differentiable]
fn normal_cdf(x: f64, mu: f64, sigma: f64) -> f64 {
    let z = (x - mu) / (sigma * std::f64::consts::SQRT_2);
    0.5 * (1.0 + erf(z))
}

/// The gradient of `normal_cdf`: the normal density, and its effect through `μ` and `σ`.
fn normal_cdf_gradient(x: f64, mu: f64, sigma: f64) -> [f64; 3] {
    let z = (x - mu) / sigma;
    let density = (-0.5 * z * z).exp() / (sigma * (2.0 * std::f64::consts::PI).sqrt());
    [density, -density, -z * density]
}

/// `∂ hypot(x, y) = (x, y) / hypot(x, y)`.
#[gradient_of(libm::hypot)]
fn hypot_vjp(x: f64, y: f64, dy: f64) -> (f64, f64) {
    let h = libm::hypot(x, y);
    (dy * x / h, dy * y / h)
}

/// `hypot(x, 2y)`.
#[differentiable]
fn uses_hypot(x: f64, y: f64) -> f64 {
    hypot(x, 2.0 * y)
}

/// The gradient of a generic function, registered generically.
#[gradient_of(outside::generic_square)]
fn generic_square_vjp<T: Float>(x: T, dy: T) -> T {
    dy * (x + x)
}

/// `sin² x` through the registered `generic_square`.
#[differentiable]
fn uses_generic_square<T: Float>(x: T) -> T {
    generic_square(x.sin())
}

// ---- registered gradients called by their paths ----

/// `∂ atan2(y, x) = (x, -y) / (x² + y²)`: a function of `libm` that this file calls only by its path.
#[gradient_of(libm::atan2)]
fn atan2_vjp(y: f64, x: f64, dy: f64) -> (f64, f64) {
    let r = x * x + y * y;
    (dy * x / r, -dy * y / r)
}

/// `smooth_relu' = σ`, registered by a path of three segments.
#[gradient_of(outside::special::smooth_relu)]
fn smooth_relu_vjp(x: f64, dy: f64) -> f64 {
    dy / (1.0 + (-x).exp())
}

/// Every registered function called by its path: as the registration writes it (`libm::erf`), with a
/// leading `::` or `self::`, with a turbofish, three segments deep, and beside a call of the same function
/// by its imported name (`erf(y)`).
#[differentiable]
fn by_paths(x: f64, y: f64) -> f64 {
    let a = libm::erf(x) * outside::softsign(y);
    let b = ::libm::hypot(x, 2.0 * y) + libm::atan2(y, x);
    let c = self::outside::special::smooth_relu(x * y) + outside::generic_square::<f64>(y);
    a + b + c + erf(y)
}

/// The gradient of `by_paths`, by hand.
fn by_paths_gradient(x: f64, y: f64) -> [f64; 2] {
    let erf_slope = |v: f64| 2.0 / std::f64::consts::PI.sqrt() * (-v * v).exp();
    let softsign = y / (1.0 + y.abs());
    let softsign_slope = 1.0 / ((1.0 + y.abs()) * (1.0 + y.abs()));
    let h = (x * x + 4.0 * y * y).sqrt();
    let r = x * x + y * y;
    let s = sigmoid(x * y);
    [
        erf_slope(x) * softsign + x / h - y / r + s * y,
        libm::erf(x) * softsign_slope + 4.0 * y / h + x / r + s * x + 2.0 * y + erf_slope(y),
    ]
}

/// `x sin² x` through the generic registration of `outside::generic_square`, called by its path, with
/// second derivatives (`order = 2`: the registered gradient runs on dual numbers).
#[differentiable(order = 2)]
fn generic_by_path<T: Float>(x: T) -> T {
    outside::generic_square(x.sin()) * x
}

/// A function of this crate with derivatives of its own, `x³`.
mod own {
    #[autodiff::differentiable]
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

/// A registration by path overrides the function's own derivatives for calls written with that path (as
/// `gradient_override_map` did): deliberately `dy` instead of `3x² dy`, so that the test sees which one ran.
#[gradient_of(own::cube)]
fn cube_overridden(x: f64, dy: f64) -> f64 {
    let _ = x;
    dy
}

/// `own::cube(x)` by its path: through the registration.
#[differentiable]
fn overridden(x: f64) -> f64 {
    own::cube(x)
}

/// Registrations reach calls by path in a module below that imports them with `use super::*`.
mod below {
    use super::*;

    #[differentiable]
    pub fn erf_below(x: f64) -> f64 {
        libm::erf(x) * x
    }

    /// And in a method.
    pub struct Scaled {
        pub by: f64,
    }

    impl Scaled {
        #[differentiable]
        pub fn atan2_scaled(&self, y: f64, x: f64) -> f64 {
            libm::atan2(y, x) * self.by
        }
    }
}

// ---- properties ----

proptest! {
    #![proptest_config(config())]

    #[test]
    fn log1pexp_and_its_callers(x in moderate(), t in tangent()) {
        let s = sigmoid(x);
        check_scalar(
            "log1pexp",
            |p| log1pexp(p[0]),
            &[x],
            (log1pexp_grad(x), |d| log1pexp_vjp(x, d), |v| log1pexp_jvp(x, v)),
            &[s],
            &[t],
        );
        check_scalar(
            "uses_custom",
            |p| uses_custom(p[0]),
            &[x],
            (uses_custom_grad(x), |d| uses_custom_vjp(x, d), |v| uses_custom_jvp(x, v)),
            &[2.0 * s],
            &[t],
        );
        check_scalar(
            "chain_of_custom",
            |p| chain_of_custom(p[0]),
            &[x],
            (chain_of_custom_grad(x), |d| chain_of_custom_vjp(x, d), |v| chain_of_custom_jvp(x, v)),
            &[2.0 * s - sigmoid(-x)],
            &[t],
        );
    }

    #[test]
    fn several_inputs(x in moderate(), y in moderate(), t in tangents()) {
        let (a, b) = (x * y, x + y);
        let m = a.max(b);
        let (wa, wb) = ((a - m).exp(), (b - m).exp());
        let (wa, wb) = (wa / (wa + wb), wb / (wa + wb));
        check_scalar(
            "uses_smooth_max",
            |p| uses_smooth_max(p[0], p[1]),
            &[x, y],
            (uses_smooth_max_grad(x, y), |d| uses_smooth_max_vjp(x, y, d), |v| uses_smooth_max_jvp(x, y, v)),
            &[wa * y + wb, wa * x + wb],
            &t,
        );
        check_scalar(
            "smooth_max",
            |p| smooth_max(p[0], p[1]),
            &[a, b],
            (smooth_max_grad(a, b), |d| smooth_max_vjp(a, b, d), |v| smooth_max_jvp(a, b, v)),
            &[wa, wb],
            &t,
        );
    }

    #[test]
    fn slice_inputs(
        (wx, t) in (1..6usize).prop_flat_map(|n| vec_with_tangent(moderate(), 2 * n..2 * n + 1)),
    ) {
        let n = wx.len() / 2;
        let (w, x) = wx.split_at(n);
        let (tw, tx) = t.split_at(n);
        let (value, (gw, gx)) = uses_weighted_grad(w, x);
        let c = dot(w, x).cos();
        let mut expected_w: Vec<f64> = x.iter().map(|x| c * x).collect();
        let mut expected_x: Vec<f64> = w.iter().map(|w| c * w).collect();
        expected_w[0] += 2.0 * w[0];
        expected_x[0] += 4.0 * x[0].powi(3);
        assert_all_close(&gw, &expected_w, ANALYTIC_TOL, "uses_weighted: d/dw");
        assert_all_close(&gx, &expected_x, ANALYTIC_TOL, "uses_weighted: d/dx");
        check_flat(
            "uses_weighted",
            |p| uses_weighted(&p[..n], &p[n..]),
            &wx,
            (value, &[gw, gx].concat()),
            uses_weighted_jvp(w, x, (tw.to_vec(), tx.to_vec())),
            &t,
        );
        // The custom function itself, and its vjp with a cotangent.
        let (_, (vw, vx)) = weighted_vjp(w, x, COTANGENT);
        let scale = |v: &[f64]| -> Vec<f64> { v.iter().map(|v| COTANGENT * v).collect() };
        assert_all_close(&vw, &scale(x), ANALYTIC_TOL, "weighted_vjp: d/dw");
        assert_all_close(&vx, &scale(w), ANALYTIC_TOL, "weighted_vjp: d/dx");
    }

    /// `weighted` at duals: the Hessian of `w · x` pairs `w` with `x`, so the `eps` of each gradient is
    /// the other tangent.
    #[test]
    fn second_order_through_a_generic_slice_custom_gradient(
        (wx, t) in (1..6usize).prop_flat_map(|n| vec_with_tangent(moderate(), 2 * n..2 * n + 1)),
    ) {
        let n = wx.len() / 2;
        let (value, (gw, gx)) = weighted_grad::<Dual<f64>>(&seeded(&wx[..n], &t[..n]), &seeded(&wx[n..], &t[n..]));
        assert_close(value.re, dot(&wx[..n], &wx[n..]), ANALYTIC_TOL, "value");
        let ((gw_re, gw_eps), (gx_re, gx_eps)) = (split_duals(&gw), split_duals(&gx));
        assert_all_close(&gw_re, &wx[n..], ANALYTIC_TOL, "d/dw");
        assert_all_close(&gx_re, &wx[..n], ANALYTIC_TOL, "d/dx");
        assert_all_close(&gw_eps, &t[n..], ANALYTIC_TOL, "H v in w");
        assert_all_close(&gx_eps, &t[..n], ANALYTIC_TOL, "H v in x");
    }

    #[test]
    fn tuple_outputs(x in moderate(), c in tangents(), t in tangents()) {
        let jacobian = [vec![2.0 * x], vec![x.cos()]];
        check_tuple(
            "pair",
            |p| pair(p[0]),
            &[x],
            &jacobian,
            |d| pair_vjp(x, d),
            |v| pair_jvp(x, v),
            (&c, &t),
        );
        check_scalar(
            "uses_pair",
            |p| uses_pair(p[0]),
            &[x],
            (uses_pair_grad(x), |d| uses_pair_vjp(x, d), |v| uses_pair_jvp(x, v)),
            &[2.0 * x * x.sin() + x * x * x.cos()],
            &t,
        );
    }

    #[test]
    fn an_integer_input(x in moderate(), t in tangent()) {
        check_scalar(
            "uses_power",
            |p| uses_power(p[0]),
            &[x],
            (uses_power_grad(x), |d| uses_power_vjp(x, d), |v| uses_power_jvp(x, v)),
            &[3.0 * x * x + 2.0 * x],
            &[t],
        );
    }

    /// A generic custom gradient at `f64`, `f32`, and on duals: the second derivative of `softplus(x²)`
    /// by forward over reverse, through `softplus`'s closure.
    #[test]
    fn a_generic_custom_gradient_at_every_float_type(x in moderate(), t in tangent()) {
        let [value, first, second] = uses_softplus_reference(x);
        assert_close(uses_softplus(x), value, ANALYTIC_TOL, "uses_softplus: value");
        check_scalar(
            "uses_softplus",
            |p| uses_softplus(p[0]),
            &[x],
            (uses_softplus_grad(x), |d| uses_softplus_vjp(x, d), |v| uses_softplus_jvp(x, v)),
            &[first],
            &[t],
        );
        let xf = x as f32;
        check_scalar_f32(
            uses_softplus(xf),
            (uses_softplus_grad(xf), |d| uses_softplus_vjp(xf, d), |v| uses_softplus_jvp(xf, v)),
            &[uses_softplus_reference(xf.into())[1]],
            &[t],
        );
        let (dual_value, dual_slope) = uses_softplus_grad::<Dual<f64>>(Dual::new(x, 1.0));
        prop_assert_eq!(dual_value.re, uses_softplus(x));
        assert_close(dual_slope.re, first, ANALYTIC_TOL, "first derivative on duals");
        assert_close(dual_slope.eps, second, ANALYTIC_TOL, "second derivative");
        let by_differences = central_difference(|x| uses_softplus_grad(x).1, x);
        assert_close(dual_slope.eps, by_differences, FD_TOL, "second derivative by differences");
    }

    /// The deliberately wrong gradient of `doubled` shows in its caller at every float type and at
    /// second order: `3x` and 3 instead of `2x` and 2. `_jvp` uses it too.
    #[test]
    fn a_wrong_custom_gradient_shows(x in moderate(), t in tangent()) {
        prop_assert_eq!(uses_doubled(x), x * x);
        let (value, slope) = uses_doubled_grad(x);
        prop_assert_eq!(value, x * x);
        assert_close(slope, 3.0 * x, ANALYTIC_TOL, "the user's gradient");
        let passes = check_gradient_of_uses_doubled(x, slope);
        prop_assert!(x.abs() < 0.1 || !passes, "central differences should disagree at {}", x);
        let (_, tangent_out) = uses_doubled_jvp(x, t);
        assert_close(tangent_out, 3.0 * x * t, ANALYTIC_TOL, "jvp with the user's gradient");
        let (_, slope32) = uses_doubled_grad(x as f32);
        assert_close(slope32.into(), 3.0 * f64::from(x as f32), ANALYTIC_TOL_F32, "f32");
        let (_, dual_slope) = uses_doubled_grad(Dual::new(x, 1.0));
        assert_close(dual_slope.re, 3.0 * x, ANALYTIC_TOL, "on duals");
        assert_close(dual_slope.eps, 3.0, ANALYTIC_TOL, "second order on duals");
    }

    /// The cotangent reaching `clip_gradient` is `scale`; it is clipped to `[-1, 1]` before the `2x` of
    /// the square inside.
    #[test]
    fn gradient_clipping(x in moderate(), scale in -20.0..20.0_f64, t in tangents()) {
        let clipped = scale.clamp(-1.0, 1.0);
        let (value, (dx, dscale)) = clipped_scale_grad(x, scale);
        prop_assert_eq!(value, clipped_scale(x, scale));
        prop_assert_eq!(value, x * x * scale);
        assert_close(dx, 2.0 * x * clipped, ANALYTIC_TOL, "clipped_scale: d/dx");
        assert_close(dscale, x * x, ANALYTIC_TOL, "clipped_scale: d/dscale");
        let (_, (vx, _)) = clipped_scale_vjp(x, scale, 0.5);
        assert_close(vx, 2.0 * x * (0.5 * scale).clamp(-1.0, 1.0), ANALYTIC_TOL, "clipping after d_ret");
        // Forward mode sees `clip_gradient` through its closure at `dy = 1` (API.md), which clips
        // nothing: clipping a cotangent is not linear, so `_jvp` is not `_grad · tangent` here.
        let (_, tangent_out) = clipped_scale_jvp(x, scale, (t[0], t[1]));
        let unclipped = 2.0 * x * scale * t[0] + x * x * t[1];
        assert_close(tangent_out, unclipped, ANALYTIC_TOL, "clipped_scale: jvp");
        let (_, grad) = clip_gradient_grad(x, -0.5, 2.0);
        prop_assert_eq!(grad, (1.0, 0.0, 0.0));
        let (_, grad) = clip_gradient_vjp(x, -0.5, 2.0, scale);
        prop_assert_eq!(grad, (scale.clamp(-0.5, 2.0), 0.0, 0.0));
    }

    #[test]
    fn gradient_clipping_in_a_loop(x in moderate(), n in 0..8usize) {
        let (value, slope) = doubled_with_clipping_grad(x, n);
        prop_assert_eq!(value, doubled_with_clipping(x, n));
        prop_assert_eq!(value, x * 2f64.powi(n as i32));
        prop_assert_eq!(slope, if n == 0 { 1.0 } else { 2.0 });
    }

    #[test]
    fn custom_and_registered_gradients_in_branches(x in nonzero(), t in tangent()) {
        let slope = if x > 0.0 {
            sigmoid(x) * x + log1pexp(x)
        } else {
            1.0 / ((1.0 - x) * (1.0 - x)) + 1.0
        };
        check_scalar(
            "branch_of_custom",
            |p| branch_of_custom(p[0]),
            &[x],
            (branch_of_custom_grad(x), |d| branch_of_custom_vjp(x, d), |v| branch_of_custom_jvp(x, v)),
            &[slope],
            &[t],
        );
    }

    #[test]
    fn registered_erf(x in moderate(), mu in moderate(), sigma in 0.5..3.0_f64, t in tangents()) {
        check_scalar(
            "normal_cdf",
            |p| normal_cdf(p[0], p[1], p[2]),
            &[x, mu, sigma],
            (
                normal_cdf_grad(x, mu, sigma),
                |d| normal_cdf_vjp(x, mu, sigma, d),
                |v| normal_cdf_jvp(x, mu, sigma, v),
            ),
            &normal_cdf_gradient(x, mu, sigma),
            &t,
        );
        // The registration itself: erf'(x) = 2/√π e^(-x²), and erf stays libm's.
        let slope = erf_vjp(x, 1.0);
        assert_close(slope, 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp(), ANALYTIC_TOL, "erf'");
        assert_fd_gradient(|p| erf(p[0]), &[x], &[slope], "erf' vs central differences");
    }

    #[test]
    fn registered_with_two_inputs(x in nonzero(), y in nonzero(), t in tangents()) {
        let h = (x * x + 4.0 * y * y).sqrt();
        check_scalar(
            "uses_hypot",
            |p| uses_hypot(p[0], p[1]),
            &[x, y],
            (uses_hypot_grad(x, y), |d| uses_hypot_vjp(x, y, d), |v| uses_hypot_jvp(x, y, v)),
            &[x / h, 4.0 * y / h],
            &t,
        );
    }

    #[test]
    fn registered_generic(x in moderate(), t in tangent()) {
        check_scalar(
            "uses_generic_square",
            |p| uses_generic_square(p[0]),
            &[x],
            (
                uses_generic_square_grad(x),
                |d| uses_generic_square_vjp(x, d),
                |v| uses_generic_square_jvp(x, v),
            ),
            &[(2.0 * x).sin()],
            &[t],
        );
        let (_, slope) = uses_generic_square_grad(x as f32);
        assert_close(slope.into(), (2.0 * f64::from(x as f32)).sin(), ANALYTIC_TOL_F32, "f32");
    }

    #[test]
    fn registered_gradients_called_by_path(x in nonzero(), y in nonzero(), t in tangents()) {
        let expected = by_paths_gradient(x, y);
        check_scalar(
            "by_paths",
            |p| by_paths(p[0], p[1]),
            &[x, y],
            (by_paths_grad(x, y), |d| by_paths_vjp(x, y, d), |v| by_paths_jvp(x, y, v)),
            &expected,
            &t,
        );
        assert_fd_gradient(|p| by_paths(p[0], p[1]), &[x, y], &expected, "by_paths");

        let erf_slope = 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp();
        let (value, slope) = below::erf_below_grad(x);
        assert_eq!(value, below::erf_below(x));
        assert_close(slope, libm::erf(x) + x * erf_slope, ANALYTIC_TOL, "erf_below");
        assert_close(below::erf_below_jvp(x, t[0]).1, slope * t[0], ANALYTIC_TOL, "erf_below_jvp");

        let scaled = below::Scaled { by: 1.5 };
        let r = x * x + y * y;
        let (_, (dy, dx)) = scaled.atan2_scaled_grad(y, x);
        assert_all_close(&[dy, dx], &[1.5 * x / r, -1.5 * y / r], ANALYTIC_TOL, "atan2_scaled");
        assert_fd_gradient(|p| scaled.atan2_scaled(p[0], p[1]), &[y, x], &[dy, dx], "atan2_scaled");
    }

    #[test]
    fn a_registration_by_path_overrides_the_function_s_own_derivative(x in moderate(), t in tangent()) {
        assert_eq!(overridden_grad(x), (overridden(x), 1.0));
        assert_eq!(overridden_jvp(x, t), (x * x * x, t));
        let (_, own_slope) = own::cube_grad(x);
        assert_close(own_slope, 3.0 * x * x, ANALYTIC_TOL, "own::cube_grad keeps its own derivative");
    }

    #[test]
    fn a_generic_registration_called_by_path(x in moderate(), t in tangent()) {
        let (s, c) = ((2.0 * x).sin(), (2.0 * x).cos());
        let slope = x.sin().powi(2) + x * s;
        check_scalar(
            "generic_by_path",
            |p| generic_by_path(p[0]),
            &[x],
            (generic_by_path_grad(x), |d| generic_by_path_vjp(x, d), |v| generic_by_path_jvp(x, v)),
            &[slope],
            &[t],
        );
        let [value, first, second] = generic_by_path_derivatives(x);
        assert_eq!(value, generic_by_path(x));
        assert_close(first, slope, ANALYTIC_TOL, "f'");
        assert_close(second, 2.0 * s + 2.0 * x * c, ANALYTIC_TOL, "f''");
        let by_differences = central_difference(|v| generic_by_path_grad(v).1, x);
        assert_close(second, by_differences, 1e-6, "f'' vs central differences of f'");
        let (_, slope32) = generic_by_path_grad(x as f32);
        let x32 = f64::from(x as f32);
        assert_close(slope32.into(), x32.sin().powi(2) + x32 * (2.0 * x32).sin(), ANALYTIC_TOL_F32, "f32");
    }

    #[test]
    fn registered_softsign(x in moderate(), t in tangent()) {
        let slope = 1.0 / ((1.0 + x.abs()) * (1.0 + x.abs()));
        check_scalar(
            "uses_registered",
            |p| uses_registered(p[0]),
            &[x],
            (uses_registered_grad(x), |d| uses_registered_vjp(x, d), |v| uses_registered_jvp(x, v)),
            &[slope * x + softsign(x)],
            &[t],
        );
    }
}

/// Whether `slope` passes the gradient check of `uses_doubled` at `x` (it should not, away from 0).
fn check_gradient_of_uses_doubled(x: f64, slope: f64) -> bool {
    autodiff::check_gradient(|p| uses_doubled(p[0]), &[x], &[slope]).is_ok(FD_TOL)
}

/// Where `eˣ` overflows, the naive `ln(1 + eˣ)`'s gradient is NaN; the custom one stays exact, also in
/// a caller, in `_jvp`, and in `f32` (where `e¹⁰⁰` overflows).
#[test]
fn the_custom_gradient_is_used_where_the_naive_one_fails() {
    for x in [710.0, 800.0, 1e4] {
        assert!(naive_grad(x).1.is_nan(), "naive at {x}");
        assert_eq!(log1pexp_grad(x).1, 1.0);
        assert_eq!(uses_custom_grad(x).1, 2.0);
        assert_eq!(chain_of_custom_grad(x).1, 2.0);
    }
    assert_eq!(uses_softplus_grad(100.0f32), (10_000.0, 200.0));
    assert_eq!(uses_softplus_jvp(100.0f32, 0.5), (10_000.0, 100.0));
    assert_eq!(softplus_grad(-800.0).1, 0.0);
}
