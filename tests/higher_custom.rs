//! Second derivatives through custom gradients, as `jax.custom_vjp` gives them: the Hessian is the
//! Jacobian of `_grad` as generated, `H[i][j] = ∂g_i/∂x_j` (API.md, "Higher order"). The closure is
//! differentiated through the values it captures and through its cotangent `dy`; the custom function's
//! value through its forward code as written. A closure that is deliberately not the derivative of the
//! value (a straight-through `round`, a clipped gradient) therefore shapes the second derivative through the
//! cotangent path, and the Jacobian of `_grad` need not be symmetric.
//!
//! Every expected value below is derived by hand in the comment above it, not taken from the macro.

mod common;

use autodiff::{custom_gradient, differentiable, Float};
use common::{assert_all_close, assert_close, central_difference, config};
use proptest::prelude::*;

// ---- TensorFlow's `log1pexp`, written for `f64`, at order 2 through a caller ----

#[custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

#[differentiable(order = 2)]
fn softplus_energy(x: f64) -> f64 {
    log1pexp(x) * x
}

/// F(x) = L(x) x with L = ln(1 + eˣ), whose closure gives L' = σ(x) = 1 - 1/(1 + eˣ) through the
/// captured e = eˣ. `_grad`: F' = σ x + L. Its derivative: σ' x + σ (closure, through e; σ' = σ(1 - σ))
/// plus L' = σ (the value, through the forward code ln(1 + eˣ)): F'' = 2σ + x σ(1 - σ).
#[test]
fn log1pexp_written_for_f64_has_second_derivatives() {
    for x in [-3.0, -0.5, 0.0, 0.7, 2.5, 20.0] {
        let s = 1.0 / (1.0 + (-x).exp());
        let l = (1.0 + x.exp()).ln();
        let (value, gradient, hessian) = softplus_energy_hessian(x);
        assert_close(value, l * x, 1e-14, "value");
        assert_eq!(value, softplus_energy(x));
        assert_close(gradient, s * x + l, 1e-13, "gradient");
        assert_close(
            hessian[0][0],
            2.0 * s + x * s * (1.0 - s),
            1e-12,
            "hessian[0][0]",
        );
        let d = softplus_energy_derivatives(x);
        assert_all_close(
            &d,
            &[l * x, s * x + l, 2.0 * s + x * s * (1.0 - s)],
            1e-12,
            "d",
        );
        let (_, _, hv) = softplus_energy_hvp(x, 0.5);
        assert_close(hv, 0.5 * hessian[0][0], 1e-14, "hv");
    }
}

// ---- the same, its closure calling another differentiable function ----

#[differentiable]
fn sigmoid<T: Float>(x: T) -> T {
    T::one() / (T::one() + (-x).exp())
}

/// An `f64` custom function whose closure called `sigmoid` would have no generic copy (UI test
/// `order-custom-callee-calling-a-function`); generic over `T: Float`, as that error advises, it has.
#[custom_gradient]
fn log1pexp_by_sigmoid<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    let e = x.exp();
    ((T::one() + e).ln(), move |dy| dy * sigmoid(x))
}

#[differentiable(order = 2)]
fn softplus_energy_by_sigmoid(x: f64) -> f64 {
    log1pexp_by_sigmoid(x) * x
}

proptest! {
    #![proptest_config(config())]

    /// As `log1pexp_written_for_f64_has_second_derivatives`, the closure's σ(x) now computed by a call:
    /// F'' = 2σ + x σ(1 - σ), and F'' against central differences of `_grad`.
    #[test]
    fn a_closure_calling_a_differentiable_function_is_differentiated_through_it(x in -6.0..6.0_f64) {
        let s = 1.0 / (1.0 + (-x).exp());
        let l = (1.0 + x.exp()).ln();
        let (value, gradient, hessian) = softplus_energy_by_sigmoid_hessian(x);
        assert_close(value, l * x, 1e-13, "value");
        assert_eq!(value, softplus_energy_by_sigmoid(x));
        assert_close(gradient, s * x + l, 1e-12, "gradient");
        assert_close(hessian[0][0], 2.0 * s + x * s * (1.0 - s), 1e-12, "hessian");
        let fd = central_difference(|x| softplus_energy_by_sigmoid_grad(x).1, x);
        assert_close(hessian[0][0], fd, 1e-6, "hessian against central differences");
    }
}

// ---- a straight-through `round`: the closure is `|dy| dy` ----

#[custom_gradient]
fn quantise(w: f64) -> (f64, impl Fn(f64) -> f64) {
    ((w * 4.0).round() / 4.0, |dy| dy)
}

#[differentiable(order = 2)]
fn quantised_energy(w: f64, x: f64) -> f64 {
    let q = quantise(w * x);
    q * q * x
}

/// u = w x, q = round(4u)/4 whose custom derivative is 1 (the closure passes `dy` through and captures
/// nothing). F = q² x. `_grad`: g_w = (2 q x)·1·x = 2 q x², g_x = q² + (2 q x)·1·w = q² + 2 q x w.
/// Their derivatives, with q's own derivative 0 (its value comes from `round`, which contributes zero):
/// ∂g_w/∂w = 0, ∂g_w/∂x = 4 q x, ∂g_x/∂w = 2 q x, ∂g_x/∂x = 2 q w. Not symmetric.
/// At w = 0.3, x = 1.1: u = 0.33, round(1.32) = 1, q = 0.25: F = 0.06875, g = (0.605, 0.2275),
/// H = [[0, 1.1], [0.55, 0.15]].
#[test]
fn straight_through_round_differentiates_through_the_cotangent_only() {
    let (value, (gw, gx), hessian) = quantised_energy_hessian(0.3, 1.1);
    assert_close(value, 0.06875, 1e-15, "value");
    assert_eq!(value, quantised_energy(0.3, 1.1));
    assert_all_close(&[gw, gx], &[0.605, 0.2275], 1e-15, "gradient");
    assert_all_close(&hessian[0], &[0.0, 1.1], 1e-15, "hessian[0]");
    assert_all_close(&hessian[1], &[0.55, 0.15], 1e-15, "hessian[1]");
    // H v for v = (1, 2): (0·1 + 1.1·2, 0.55·1 + 0.15·2) = (2.2, 0.85).
    let (_, _, (hw, hx)) = quantised_energy_hvp(0.3, 1.1, (1.0, 2.0));
    assert_all_close(&[hw, hx], &[2.2, 0.85], 1e-15, "hvp");
}

// ---- a clipped gradient: the closure clamps `dy` to bounds it captures ----

#[custom_gradient]
fn clip_gradient(x: f64, lo: f64, hi: f64) -> (f64, impl Fn(f64) -> (f64, f64, f64)) {
    (x, move |dy: f64| (dy.clamp(lo, hi), 0.0, 0.0))
}

#[differentiable(order = 2)]
fn clipped_square(r: f64, s: f64) -> f64 {
    let c = clip_gradient(r, -s, s);
    0.5 * c * c
}

/// c = r (the identity forward), F = c²/2. The closure gets dy = c and gives g_r = clamp(r, -s, s); it
/// says 0 for the bounds, so g_s = 0. The clamp is differentiated through its argument dy = r and through
/// the captured bounds -s and s:
/// - inside (|r| < s): g_r = r, H = [[1, 0], [0, 0]];
/// - above (r > s): g_r = s, H = [[0, 1], [0, 0]] (through the captured `hi = s`);
/// - below (r < -s): g_r = -s, H = [[0, -1], [0, 0]] (through the captured `lo = -s`).
#[test]
fn clipped_gradient_is_differentiated_through_its_captured_bounds() {
    for (r, s, g_r, row) in [
        (0.3, 0.5, 0.3, [1.0, 0.0]),
        (2.0, 0.5, 0.5, [0.0, 1.0]),
        (-2.0, 0.5, -0.5, [0.0, -1.0]),
    ] {
        let (value, (gr, gs), hessian) = clipped_square_hessian(r, s);
        assert_close(value, 0.5 * r * r, 1e-15, "value");
        assert_eq!(value, clipped_square(r, s));
        assert_all_close(&[gr, gs], &[g_r, 0.0], 1e-15, "gradient");
        assert_all_close(&hessian[0], &row, 1e-15, "hessian[0]");
        assert_all_close(&hessian[1], &[0.0, 0.0], 1e-15, "hessian[1]");
    }
}

/// The same clip on a product, as a Huber-like loss: c = u = r s, F = c²/2, g = clamp(c, -1, 1)·(s, r).
/// Inside (|r s| < 1) this is the true Hessian of r² s²/2, [[s², 2 r s], [2 r s, r²]]; outside the
/// clamp is constant in c, so only the chain factor varies: g = ±(s, r), H = ±[[0, 1], [1, 0]].
#[differentiable(order = 2)]
fn huber_like(r: f64, s: f64) -> f64 {
    let c = clip_gradient(r * s, -1.0, 1.0);
    0.5 * c * c
}

#[test]
fn clipped_gradient_outside_its_bounds_keeps_only_the_chain_rule() {
    let (_, (gr, gs), h) = huber_like_hessian(0.5, 0.8);
    assert_all_close(&[gr, gs], &[0.5 * 0.64, 0.25 * 0.8], 1e-15, "gradient");
    assert_all_close(&h[0], &[0.64, 0.8], 1e-15, "h[0]");
    assert_all_close(&h[1], &[0.8, 0.25], 1e-15, "h[1]");
    let (value, (gr, gs), h) = huber_like_hessian(2.0, 1.5);
    assert_eq!(value, huber_like(2.0, 1.5));
    assert_all_close(&[gr, gs], &[1.5, 2.0], 1e-15, "gradient");
    assert_all_close(&h[0], &[0.0, 1.0], 1e-15, "h[0]");
    assert_all_close(&h[1], &[1.0, 0.0], 1e-15, "h[1]");
    // Below: clamp(c) = -1, g = -(s, r) = (-1.5, 2).
    let (_, (gr, gs), h) = huber_like_hessian(-2.0, 1.5);
    assert_all_close(&[gr, gs], &[-1.5, 2.0], 1e-15, "gradient");
    assert_all_close(&h[0], &[0.0, -1.0], 1e-15, "h[0]");
    assert_all_close(&h[1], &[-1.0, 0.0], 1e-15, "h[1]");
}

// ---- a nested `#[custom_gradient]` inside the closure ----

/// The identity, with the deliberately false derivative 2.
#[custom_gradient]
fn doubled_slope<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    (x, move |dy: T| dy * T::from(2.0).unwrap())
}

/// x³/3, whose closure gives its true derivative x² as `doubled_slope(x²)`.
#[custom_gradient]
fn cube_third<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    let three = T::from(3.0).unwrap();
    (x * x * x / three, move |dy: T| dy * doubled_slope(x * x))
}

#[differentiable(order = 2)]
fn through_nested<T: Float>(x: T) -> T {
    cube_third(x)
}

/// F = x³/3 and g = doubled_slope(x²) = x² (its value). Differentiating the closure, the nested custom
/// gradient overrides the forward code of `doubled_slope` (API.md): d/dx doubled_slope(x²) = 2·(2x) = 4x,
/// where the forward code would give 2x. At x = 0.75: F = 0.140625, g = 0.5625, H = 3.
#[test]
fn nested_custom_gradient_in_the_closure_overrides_its_forward_code() {
    let (value, gradient, hessian) = through_nested_hessian(0.75);
    assert_close(value, 0.140625, 1e-15, "value");
    assert_close(gradient, 0.5625, 1e-15, "gradient");
    assert_close(hessian[0][0], 3.0, 1e-15, "hessian[0][0]");
    // The same through `f_hvp` (one `Dual` pass) and `f_derivatives`.
    let (_, _, hv) = through_nested_hvp(0.75, 2.0);
    assert_close(hv, 6.0, 1e-15, "hvp");
    assert_close(
        through_nested_derivatives(0.75)[2],
        3.0,
        1e-15,
        "derivatives",
    );
}

/// Third order: F''' = d/dx 4x = 4, the nested closure's gradient differentiated once more.
#[differentiable(order = 3)]
fn through_nested_third<T: Float>(x: T) -> T {
    cube_third(x)
}

#[test]
fn nested_custom_gradient_at_third_order() {
    let x = 0.75;
    let d = through_nested_third_derivatives(x);
    assert_all_close(
        &d,
        &[x * x * x / 3.0, x * x, 4.0 * x, 4.0],
        1e-14,
        "derivatives",
    );
}

/// Fourth order through a nested custom gradient: the value of `doubled_slope(x²)` in the closure is
/// `x₀² + 2(x² - x₀²)` to every order (its Taylor series with its closure's slope 2), so F⁽⁴⁾ = 0.
#[differentiable(order = 4)]
fn through_nested_fourth<T: Float>(x: T) -> T {
    cube_third(x)
}

#[test]
fn nested_custom_gradient_at_fourth_order() {
    for x in [-1.5, -0.25, 0.75, 2.0] {
        let d = through_nested_fourth_derivatives(x);
        assert_all_close(
            &d,
            &[x * x * x / 3.0, x * x, 4.0 * x, 4.0, 0.0],
            1e-14,
            "derivatives",
        );
    }
}

/// Outside a closure, a custom function's value is differentiated through its forward code, as in
/// `jax.hessian` of a `jax.custom_vjp` function: h = doubled_slope(x)·x has the gradient
/// doubled_slope's closure gives, 2x + x = 3x, and the Hessian of that gradient is 3 (the value's
/// tangent from its forward code, 1, plus 2 from the closure), not 4.
#[differentiable(order = 2)]
fn custom_value_outside_a_closure<T: Float>(x: T) -> T {
    doubled_slope(x) * x
}

#[test]
fn outside_a_closure_the_value_follows_the_forward_code() {
    let (_, gradient, hessian) = custom_value_outside_a_closure_hessian(0.75);
    assert_close(gradient, 2.25, 1e-15, "gradient");
    assert_close(hessian[0][0], 3.0, 1e-15, "hessian[0][0]");
}

/// Two inputs: the product, with a closure that scales each partial by 3 (deliberately not the derivative).
#[custom_gradient]
fn tripled_product<T: Float>(a: T, b: T) -> (T, impl Fn(T) -> (T, T)) {
    let three = T::from(3.0).unwrap();
    (a * b, move |dy: T| (three * dy * b, three * dy * a))
}

/// F(x, y) = x y sin-free, whose closure computes its gradient (y·x, x·y... ) through the nested
/// `tripled_product`: g = (tripled_product(y, x), tripled_product(x, x)) = (x y, x²) by value.
#[custom_gradient]
fn nested_pair<T: Float>(x: T, y: T) -> (T, impl Fn(T) -> (T, T)) {
    (x * x * y, move |dy: T| {
        (dy * tripled_product(y, x), dy * tripled_product(x, x))
    })
}

#[differentiable(order = 2)]
fn through_nested_pair<T: Float>(x: T, y: T) -> T {
    nested_pair(x, y)
}

#[test]
fn a_nested_custom_gradient_of_two_inputs_overrides_by_its_partials() {
    // g = (tripled_product(y, x), tripled_product(x, x)); with the nested closure's partials
    // (3b, 3a) at (a, b): ∂g0/∂x = 3y, ∂g0/∂y = 3x; ∂g1/∂x = 3x + 3x = 6x, ∂g1/∂y = 0.
    let (x, y) = (0.7, -1.3);
    let (value, (gx, gy), h) = through_nested_pair_hessian(x, y);
    assert_close(value, x * x * y, 1e-15, "value");
    assert_all_close(&[gx, gy], &[x * y, x * x], 1e-15, "gradient");
    assert_all_close(&h[0], &[3.0 * y, 3.0 * x], 1e-14, "h[0]");
    assert_all_close(&h[1], &[6.0 * x, 0.0], 1e-14, "h[1]");
}

/// The straight-through estimator inside a closure: `rounded(v)` has the value `v.round()` and the
/// gradient 1. `quantised_square`'s closure gives 2·rounded(x): its derivative is 2 (through the
/// nested closure), where the forward code (`round`, slope 0) would give 0.
#[custom_gradient]
fn rounded<T: Float>(v: T) -> (T, impl Fn(T) -> T) {
    (v.round(), |dy: T| dy)
}

#[custom_gradient]
fn quantised_square<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    let two = T::from(2.0).unwrap();
    (x * x, move |dy: T| dy * two * rounded(x))
}

#[differentiable(order = 2)]
fn through_quantised<T: Float>(x: T) -> T {
    quantised_square(x)
}

/// A clipped gradient inside a closure: `clipped(v)` has the value v and the gradient `0.5 dy` clipped
/// to [-1, 1].
#[custom_gradient]
fn clipped<T: Float>(v: T) -> (T, impl Fn(T) -> T) {
    let (half, one) = (T::from(0.5).unwrap(), T::one());
    (v, move |dy: T| (half * dy).max(-one).min(one))
}

#[custom_gradient]
fn clipped_cube<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    let three = T::from(3.0).unwrap();
    (x * x * x, move |dy: T| dy * three * clipped(x * x))
}

#[differentiable(order = 2)]
fn through_clipped<T: Float>(x: T) -> T {
    clipped_cube(x)
}

proptest! {
    #![proptest_config(config())]

    /// The nested closures decide: a straight-through `round` and a clipped gradient.
    #[test]
    fn nested_straight_through_and_clipped_gradients(x in -2.0..2.0_f64) {
        let (value, gradient, h) = through_quantised_hessian(x);
        prop_assert_eq!(value, x * x);
        assert_close(gradient, 2.0 * x.round(), 1e-15, "quantised gradient");
        assert_close(h[0][0], 2.0, 1e-15, "quantised hessian");
        let (_, hv) = {
            let (_, _, hv) = through_quantised_hvp(x, 1.5);
            ((), hv)
        };
        assert_close(hv, 3.0, 1e-15, "quantised hvp");

        let (value, gradient, h) = through_clipped_hessian(x);
        prop_assert_eq!(value, x * x * x);
        assert_close(gradient, 3.0 * x * x, 1e-14, "clipped gradient");
        // d/dx 3·clipped(x²) = 3 · 0.5 · 2x.
        assert_close(h[0][0], 3.0 * x, 1e-14, "clipped hessian");
    }

    /// At first order the closures run on floats: the nested call is the call as written.
    #[test]
    fn first_order_is_unchanged(x in -2.0..2.0_f64) {
        assert_close(cube_third_grad(x).1, x * x, 1e-15, "cube_third_grad");
        assert_close(quantised_square_grad(x).1, 2.0 * x.round(), 1e-15, "quantised_square_grad");
    }
}

// ---- custom gradients written for `f64` whose generic copy needs a second look ----

/// A pair as the value.
#[custom_gradient]
fn square_and_sine(x: f64) -> ((f64, f64), impl Fn((f64, f64)) -> f64) {
    ((x * x, x.sin()), move |dy: (f64, f64)| {
        dy.0 * 2.0 * x + dy.1 * x.cos()
    })
}

/// `f64::from` of an integer parameter.
#[custom_gradient]
fn power(x: f64, n: i32) -> (f64, impl Fn(f64) -> f64) {
    (x.powi(n), move |dy| dy * f64::from(n) * x.powi(n - 1))
}

#[differentiable(order = 2)]
fn pair_and_power(x: f64, y: f64) -> f64 {
    let (a, b) = square_and_sine(x * y);
    a * b + power(y, 3) * x
}

/// Both closures are the true derivatives, so the Hessian is that of u² sin u + x y³ (u = x y), checked
/// against central differences of the generated gradient on a grid of points.
#[test]
fn custom_gradients_with_a_pair_value_and_an_integer_cast_at_second_order() {
    for x in [-1.3, -0.4, 0.2, 0.9, 1.7] {
        for y in [-1.1, -0.3, 0.6, 1.4] {
            let (value, (gx, gy), h) = pair_and_power_hessian(x, y);
            assert_eq!(value, pair_and_power(x, y));
            let (_, (gx1, gy1)) = pair_and_power_grad(x, y);
            assert_all_close(&[gx, gy], &[gx1, gy1], 1e-14, "gradient");
            let dx = |v: f64| pair_and_power_grad(v, y).1;
            let dy = |v: f64| pair_and_power_grad(x, v).1;
            let fd = [
                [
                    central_difference(|v| dx(v).0, x),
                    central_difference(|v| dy(v).0, y),
                ],
                [
                    central_difference(|v| dx(v).1, x),
                    central_difference(|v| dy(v).1, y),
                ],
            ];
            assert_all_close(&h[0], &fd[0], 1e-6, "H row 0");
            assert_all_close(&h[1], &fd[1], 1e-6, "H row 1");
        }
    }
}

// ---- a custom function called with an argument of a parameter that `wrt(..)` leaves out ----

/// `wrt(a)` leaves `xs` out of `f_grad`, but callers differentiate through every float parameter, so the
/// generic copy calls `doubled_slope`'s copy here, not the function as a constant (fuzz seed 6174
/// found rustc errors in that copy). f = doubled_slope(xs[0]) a² + (Σ atan xs)² a.
#[differentiable(wrt(a), order = 2)]
fn restricted_caller(a: f64, xs: &[f64]) -> f64 {
    let s = xs.iter().map(|&v| v.atan()).sum::<f64>();
    doubled_slope(xs[0]) * a * a + tripled_product(s, s) * a
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn custom_calls_of_parameters_left_out_by_wrt(a in -2.0..2.0_f64, x0 in -2.0..2.0_f64, x1 in -2.0..2.0_f64) {
        let xs = [x0, x1];
        let s = x0.atan() + x1.atan();
        let (value, gradient, h) = restricted_caller_hessian(a, &xs);
        assert_close(value, x0 * a * a + s * s * a, 1e-14, "value");
        prop_assert_eq!(value, restricted_caller(a, &xs));
        assert_close(gradient, 2.0 * a * x0 + s * s, 1e-14, "gradient");
        assert_close(h[0][0], 2.0 * x0, 1e-14, "hessian");
    }
}

// ---- custom functions written for `f64` whose bodies call other functions ----

/// Written for `f64`, with a generic copy made by `#[differentiable]` alone.
#[differentiable]
fn softplus_f64(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[differentiable]
fn sigmoid_f64(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// TensorFlow's `log1pexp` with its value computed by a call, as its documentation writes it.
#[custom_gradient]
fn log1pexp_by_call(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let v = softplus_f64(x);
    let e = x.exp();
    (v, move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

#[differentiable(order = 2)]
fn energy_by_call(x: f64) -> f64 {
    log1pexp_by_call(x) * x
}

/// The closure's σ(x) computed by a call of an `f64` function (UI test
/// `order-custom-callee-calling-a-function` once pinned its error).
#[custom_gradient]
fn log1pexp_closure_call(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * sigmoid_f64(x))
}

#[differentiable(order = 3)]
fn energy_closure_call(x: f64) -> f64 {
    log1pexp_closure_call(x) * x
}

/// Plain helpers without derivatives, called on values that depend on no input.
fn halved(a: f64) -> f64 {
    0.5 * a
}

fn weight_of(n: usize) -> f64 {
    n as f64 + 0.25
}

/// c x³ with c = halved(3.0) · weight_of(n), its closure 3 c x².
#[custom_gradient]
fn weighted_cube(x: f64, n: usize) -> (f64, impl Fn(f64) -> f64) {
    let c = halved(3.0) * weight_of(n);
    (c * x * x * x, move |dy| dy * 3.0 * c * x * x)
}

#[differentiable(order = 2)]
fn weighted_cube_energy(x: f64, n: usize) -> f64 {
    weighted_cube(x, n) + x
}

/// A custom function of two inputs whose body calls a custom function written for `f64` (whose own
/// copy then runs) and a differentiable one: v = L(x y) + σ(y), closure (σ(x y) y, σ(x y) x + σ'(y)).
#[custom_gradient]
fn mixed_pair(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let u = x * y;
    let v = log1pexp_by_call(u) + sigmoid_f64(y);
    let s = sigmoid_f64(u);
    let t = sigmoid_f64(y);
    (v, move |dy| (dy * s * y, dy * (s * x + t * (1.0 - t))))
}

#[differentiable(order = 2)]
fn mixed_pair_energy(x: f64, y: f64) -> f64 {
    mixed_pair(x, y) * x
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// F(x) = L(x) x: F' = σ x + L, F'' = 2σ + x σ(1 - σ) (the closure's σ differentiated through the call
/// that computes it or the value `e` it captures, the value L through the call of `softplus_f64`).
fn log1pexp_energy_formulas(x: f64) -> (f64, f64, f64, f64) {
    let s = logistic(x);
    let l = (1.0 + x.exp()).ln();
    let third = 3.0 * s * (1.0 - s) + x * s * (1.0 - s) * (1.0 - 2.0 * s);
    (l * x, s * x + l, 2.0 * s + x * s * (1.0 - s), third)
}

#[test]
fn custom_functions_written_for_f64_calling_functions_have_second_derivatives() {
    use common::probe::{hess1, Probe};
    for (name, f, g, h, d) in [
        (
            "energy_by_call",
            energy_by_call as fn(f64) -> f64,
            energy_by_call_grad as fn(f64) -> (f64, f64),
            energy_by_call_hessian as fn(f64) -> (f64, f64, Vec<Vec<f64>>),
            energy_by_call_derivatives as fn(f64) -> [f64; 3],
        ),
        (
            "energy_closure_call",
            energy_closure_call,
            energy_closure_call_grad,
            energy_closure_call_hessian,
            |x| {
                let [a, b, c, _] = energy_closure_call_derivatives(x);
                [a, b, c]
            },
        ),
    ] {
        Probe::new(name, move |x| f(x[0]))
            .grad(move |x| {
                let (v, d) = g(x[0]);
                (v, vec![d])
            })
            .hessian(hess1(h, d))
            .analytic(|x| vec![log1pexp_energy_formulas(x[0]).1])
            .run(24, common::probe::range(1, -6.0, 6.0));
        for x in [-3.0, -0.5, 0.0, 0.7, 2.5] {
            let (value, gradient, second, _) = log1pexp_energy_formulas(x);
            let (v, g, hessian) = h(x);
            assert_close(v, value, 1e-14, name);
            assert_close(g, gradient, 1e-13, name);
            assert_close(hessian[0][0], second, 1e-12, name);
        }
    }
    // The third derivative: the closure's σ(x) through `sigmoid_f64`'s copy on nested duals.
    for x in [-2.0, -0.3, 0.0, 1.1, 3.0] {
        let d = energy_closure_call_derivatives(x);
        let (value, gradient, second, third) = log1pexp_energy_formulas(x);
        assert_all_close(&d, &[value, gradient, second, third], 1e-11, "derivatives");
    }
}

/// f = c x³ + x with c = 1.5 (n + 0.25): f' = 3 c x² + 1, f'' = 6 c x; the plain helpers' values are
/// constants.
#[test]
fn plain_helpers_on_constant_values_inside_a_custom_copy() {
    for n in [0, 1, 3] {
        let c = 1.5 * (n as f64 + 0.25);
        for x in [-1.5, -0.2, 0.0, 0.8, 2.0] {
            let (value, gradient, hessian) = weighted_cube_energy_hessian(x, n);
            assert_close(value, c * x * x * x + x, 1e-14, "value");
            assert_eq!(value, weighted_cube_energy(x, n));
            assert_close(gradient, 3.0 * c * x * x + 1.0, 1e-14, "gradient");
            assert_close(hessian[0][0], 6.0 * c * x, 1e-13, "hessian");
            let fd = central_difference(|x| weighted_cube_energy_grad(x, n).1, x);
            assert_close(
                hessian[0][0],
                fd,
                1e-6,
                "hessian against central differences",
            );
        }
    }
}

/// F = M(x, y) x with M = L(x y) + σ(y) and the closure's gradient (σ(u) y, σ(u) x + σ'(y)), u = x y,
/// the true gradient of M. `_grad`: g_x = σ(u) y x + M, g_y = (σ(u) x + σ'(y)) x. Its Jacobian, by hand:
/// ∂g_x/∂x = σ'(u) y² x + σ(u) y + σ(u) y (M's own x-derivative), ∂g_x/∂y = σ'(u) x y x + σ(u) x + σ(u) x
/// + σ'(y); ∂g_y/∂x = σ'(u) y x² + 2 σ(u) x + σ'(y), ∂g_y/∂y = σ'(u) x³ + σ''(y) x.
#[test]
fn a_custom_copy_calls_the_copy_of_another_custom_function() {
    use common::probe::{hess2, two};
    two(
        "mixed_pair_energy",
        mixed_pair_energy,
        mixed_pair_energy_grad,
        mixed_pair_energy_jvp,
        mixed_pair_energy_grad_into,
    )
    .hessian(hess2(mixed_pair_energy_hessian))
    .run(24, common::probe::range(2, -2.5, 2.5));
    for (x, y) in [(0.3, -1.2), (1.5, 0.4), (-0.7, 2.0)] {
        let u = x * y;
        let (s, t) = (logistic(u), logistic(y));
        let (ds, dt) = (s * (1.0 - s), t * (1.0 - t));
        let ddt = dt * (1.0 - 2.0 * t);
        let (_, _, h) = mixed_pair_energy_hessian(x, y);
        assert_close(h[0][0], ds * y * y * x + 2.0 * s * y, 1e-12, "H[0][0]");
        assert_close(h[0][1], ds * x * y * x + 2.0 * s * x + dt, 1e-12, "H[0][1]");
        assert_close(h[1][0], ds * y * x * x + 2.0 * s * x + dt, 1e-12, "H[1][0]");
        assert_close(h[1][1], ds * x * x * x + ddt * x, 1e-12, "H[1][1]");
    }
}

// ---- plain helpers called on the inputs: first order unchanged ----

fn bucket(x: f64) -> usize {
    (x.abs() as usize).min(2)
}

fn doubled(x: f64) -> f64 {
    2.0 * x
}

fn with_square(x: f64) -> (f64, f64) {
    (x, x * x)
}

/// c x with c = [1, 2, 3][bucket(x)]: the helper's `usize` indexes a table.
#[custom_gradient]
fn by_table(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let t = [1.0, 2.0, 3.0];
    let i = bucket(x);
    let c = t[i];
    (c * x, move |dy| dy * c)
}

/// ln(2x), the helper's result used by a method call at once.
#[custom_gradient]
fn log_doubled(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let v = doubled(x).ln();
    (v, move |dy| dy / x)
}

/// x + x², from a helper returning a tuple.
#[custom_gradient]
fn from_tuple(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let (a, b) = with_square(x);
    (a + b, move |dy| dy * (1.0 + 2.0 * x))
}

/// c x with c = [1, 2, 3][bucket(x)] at order 2: F = (c x)², F' = 2c²x, F'' = 2c² (the index carries no
/// derivative: the copy calls `bucket` as written on x's value).
#[differentiable(order = 2)]
fn by_table_squared(x: f64) -> f64 {
    by_table(x) * by_table(x)
}

/// `bucket(x as usize)`-like: an integer argument cast from the input, and an integer parameter.
fn level(k: usize, n: usize) -> usize {
    (k + n).min(3)
}

/// x (1 + level(⌊|x|⌋, n)): piecewise linear.
#[custom_gradient]
fn by_level(x: f64, n: usize) -> (f64, impl Fn(f64) -> f64) {
    let c = 1.0 + level(x.abs() as usize, n) as f64;
    (c * x, move |dy| dy * c)
}

#[differentiable(order = 2)]
fn by_level_cubed(x: f64, n: usize) -> f64 {
    by_level(x, n) * by_level(x, n) * by_level(x, n)
}

/// A helper whose result is an integer, called on an input, carries no derivative (as `jax` gives an
/// integer output a zero one): the custom function's copy calls it as written on the input's value, and
/// the Hessian is that of c x with c constant, against the formulas and central differences of `_grad`.
/// (The helper's float results, `doubled(x)` and `with_square(x)`, stay the error of UI test
/// `order-custom-callee-calling-a-helper-without-derivatives`.)
#[test]
fn helpers_with_integer_results_on_the_inputs_at_second_order() {
    use common::probe::{hess1, Probe};
    Probe::new("by_table_squared", |x| by_table_squared(x[0]))
        .grad(|x| {
            let (v, d) = by_table_squared_grad(x[0]);
            (v, vec![d])
        })
        .hessian(hess1(
            by_table_squared_hessian,
            by_table_squared_derivatives,
        ))
        .analytic(|x| {
            let c = [1.0, 2.0, 3.0][bucket(x[0])];
            vec![2.0 * c * c * x[0]]
        })
        // Away from the steps at |x| = 1, 2.
        .run(16, common::probe::range(1, 0.1, 0.9));
    for x in [-2.6, -1.5, -0.3, 0.4, 1.2, 1.8, 2.9] {
        let c = [1.0, 2.0, 3.0][bucket(x)];
        let (value, gradient, hessian) = by_table_squared_hessian(x);
        assert_eq!(value, by_table_squared(x));
        assert_close(value, c * c * x * x, 1e-14, "by_table value");
        assert_close(gradient, 2.0 * c * c * x, 1e-14, "by_table gradient");
        assert_close(hessian[0][0], 2.0 * c * c, 1e-14, "by_table hessian");
        let fd = central_difference(|t| by_table_squared_grad(t).1, x);
        assert_close(
            hessian[0][0],
            fd,
            1e-6,
            "by_table hessian against central differences",
        );
        assert_close(
            by_table_squared_derivatives(x)[2],
            2.0 * c * c,
            1e-14,
            "by_table derivatives",
        );
    }
    for n in [0, 1, 2] {
        for x in [-2.5, -1.4, -0.6, 0.3, 1.7, 2.2] {
            let c = 1.0 + level(x.abs() as usize, n) as f64;
            let (value, gradient, hessian) = by_level_cubed_hessian(x, n);
            assert_eq!(value, by_level_cubed(x, n));
            assert_close(value, (c * x).powi(3), 1e-13, "by_level value");
            assert_close(
                gradient,
                3.0 * c.powi(3) * x * x,
                1e-13,
                "by_level gradient",
            );
            assert_close(
                hessian[0][0],
                6.0 * c.powi(3) * x,
                1e-13,
                "by_level hessian",
            );
            let fd = central_difference(|t| by_level_cubed_grad(t, n).1, x);
            assert_close(
                hessian[0][0],
                fd,
                1e-6,
                "by_level hessian against central differences",
            );
        }
    }
}

/// The generic copy of a custom function calling plain helpers on its inputs is made (for `order = K`
/// callers, where using a float result is an error: UI test
/// `order-custom-callee-calling-a-helper-without-derivatives`), and the function's first order is as
/// before: values and gradients against the formulas and central differences.
#[test]
fn custom_functions_calling_plain_helpers_on_their_inputs_keep_their_first_order() {
    for x in [0.3, 0.7, 1.4, 1.6, 2.5] {
        let c = [1.0, 2.0, 3.0][bucket(x)];
        let (value, slope) = by_table_grad(x);
        assert_close(value, c * x, 1e-15, "by_table");
        assert_close(slope, c, 1e-15, "by_table slope");
        assert_close(slope, central_difference(by_table, x), 1e-6, "by_table FD");
        let (value, slope) = log_doubled_grad(x);
        assert_close(value, (2.0 * x).ln(), 1e-15, "log_doubled");
        assert_close(
            slope,
            central_difference(log_doubled, x),
            1e-6,
            "log_doubled FD",
        );
        let (value, slope) = from_tuple_grad(x);
        assert_close(value, x + x * x, 1e-15, "from_tuple");
        assert_close(
            slope,
            central_difference(from_tuple, x),
            1e-6,
            "from_tuple FD",
        );
    }
}

// ---- What a custom function's body writes into a local reaches its copy's calls ----
//
// The copy calls a callee as written (its arguments taken back to `f64`) only where the arguments depend on
// nothing differentiated; a value reaching them through a write into an array (`s[0] = x`), a `push`, a
// `match` or a call writing through `&mut` depends on the inputs as much as `x` does. Read as constants,
// these gave the Hessian 9 where it is 27 at x = 1.5 (the value's tangent dropped).

/// v², with derivatives.
#[differentiable]
fn square_of(v: f64) -> f64 {
    v * v
}

/// x², its argument written into an array first.
#[custom_gradient]
fn square_through_index(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let mut s = [0.0; 1];
    s[0] = x;
    let y = square_of(s[0]);
    (y, move |dy| dy * 2.0 * x)
}

/// x², its argument pushed onto a `Vec` first.
#[custom_gradient]
fn square_through_push(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let mut s = Vec::new();
    for _ in 0..2 {
        s.push(x);
    }
    let y = square_of(s[1]);
    (y, move |dy| dy * 2.0 * x)
}

/// x², its argument bound by a `match` arm.
#[custom_gradient]
fn square_through_match(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let y = match x {
        v if v >= 0.0 => square_of(v),
        v => square_of(-v),
    };
    (y, move |dy| dy * 2.0 * x)
}

#[differentiable(order = 2)]
fn quartic_through_index(x: f64) -> f64 {
    square_through_index(x) * square_through_index(x)
}

#[differentiable(order = 2)]
fn quartic_through_push(x: f64) -> f64 {
    square_through_push(x) * square_through_push(x)
}

#[differentiable(order = 2)]
fn quartic_through_match(x: f64) -> f64 {
    square_through_match(x) * square_through_match(x)
}

/// F = (x²)² = x⁴: F' = 4x³, F'' = 12x² (the value x² carries its tangent 2x through the copy's call).
#[test]
fn values_written_into_locals_keep_their_tangents_in_the_copy() {
    type Checked = (
        &'static str,
        fn(f64) -> f64,
        fn(f64) -> (f64, f64, Vec<Vec<f64>>),
        fn(f64) -> (f64, f64),
    );
    let cases: [Checked; 3] = [
        (
            "index",
            quartic_through_index,
            quartic_through_index_hessian,
            quartic_through_index_grad,
        ),
        (
            "push",
            quartic_through_push,
            quartic_through_push_hessian,
            quartic_through_push_grad,
        ),
        (
            "match",
            quartic_through_match,
            quartic_through_match_hessian,
            quartic_through_match_grad,
        ),
    ];
    for (what, primal, hessian, grad) in cases {
        for x in [-1.7, -0.4, 0.3, 1.5, 2.2] {
            let (value, gradient, h) = hessian(x);
            assert_eq!(value, primal(x), "{what}");
            assert_close(value, x.powi(4), 1e-13, what);
            assert_close(gradient, 4.0 * x.powi(3), 1e-12, what);
            assert_close(h[0][0], 12.0 * x * x, 1e-12, what);
            let fd = central_difference(|t| grad(t).1, x);
            assert_close(h[0][0], fd, 1e-6, what);
        }
    }
}

// ---- Every binding form an input reaches a call through, in a custom function's copy ----
//
// Each custom function below is x² computed by `square_of` of a value that the body routes the input `x`
// through one binding form, and its `order = 2` caller is F = (x²)² = x⁴: F' = 4x³, F'' = 12x². A copy that
// read the value as a constant would call `square_of` as written and drop its tangent (F'' = 4x², or the
// panic of `__private::plain`, which refuses a tangent it would drop). A destructuring assignment,
// `(a, b) = (1.0, x)`, did: the net panicked on it.

/// A closure capturing the input: `scale(1.0)` is `x`.
#[custom_gradient]
fn via_closure(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let scale = |v: f64| v * x;
    let y = square_of(scale(1.0));
    (y, move |dy| dy * 2.0 * x)
}

/// Tuple destructuring in a `let`.
#[custom_gradient]
fn via_tuple(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let (a, b) = (1.0, x);
    let y = square_of(b) * a;
    (y, move |dy| dy * 2.0 * x)
}

/// A destructuring assignment, nested.
#[custom_gradient]
fn via_destructuring_assignment(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let (a, b, c);
    (a, (b, c)) = (1.0, (x, 0.5));
    let y = square_of(b) * a + c - 0.5;
    (y, move |dy| dy * 2.0 * x)
}

/// An array destructuring assignment into an element.
#[custom_gradient]
fn via_array_assignment(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let mut s = [0.0; 2];
    [s[1], s[0]] = [x, 1.0];
    let y = square_of(s[1]) * s[0];
    (y, move |dy| dy * 2.0 * x)
}

/// A shadowed name in an inner block, assigned to an outer local.
#[custom_gradient]
fn via_block(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let mut v = 1.0;
    {
        let x = x * v;
        v = x;
    }
    let y = square_of(v);
    (y, move |dy| dy * 2.0 * x)
}

/// The value of a `loop`, by `break`.
#[custom_gradient]
fn via_loop_value(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let mut k = 0;
    let v = loop {
        k += 1;
        if k == 2 {
            break x;
        }
    };
    let y = square_of(v);
    (y, move |dy| dy * 2.0 * x)
}

/// An early exit of a labelled block (whose `break 'found 0.0` the copy once printed as a labelled loop,
/// `'found: ..`, which did not parse: a first-order compile error).
#[custom_gradient]
fn via_labelled_block(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let v = 'found: {
        if x > 1e9 {
            break 'found 0.0;
        }
        x
    };
    let y = square_of(v);
    (y, move |dy| dy * 2.0 * x)
}

/// An array `[x; 3]`, indexed.
#[custom_gradient]
fn via_repeat(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let a = [x; 3];
    let y = square_of(a[2]);
    (y, move |dy| dy * 2.0 * x)
}

/// A float method's result passed on.
#[custom_gradient]
fn via_method(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let y = square_of(x.max(-1e9));
    (y, move |dy| dy * 2.0 * x)
}

/// A closure writing a captured local.
#[custom_gradient]
fn via_closure_write(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let mut v = 0.0;
    let mut set = |w: f64| v = w;
    set(x);
    let y = square_of(v);
    (y, move |dy| dy * 2.0 * x)
}

/// A local assigned in a branch.
#[custom_gradient]
fn via_branch(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let mut v = 0.0;
    if x > -1e9 {
        v = x;
    }
    let y = square_of(v);
    (y, move |dy| dy * 2.0 * x)
}

/// A `match` on a tuple, its arm binding a component.
#[custom_gradient]
fn via_match_tuple(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let y = match (1.0, x) {
        (a, b) if a > 2.0 => square_of(a + b),
        (_, b) => square_of(b),
    };
    (y, move |dy| dy * 2.0 * x)
}

#[differentiable(order = 2)]
fn quartic_via_closure(x: f64) -> f64 {
    via_closure(x) * via_closure(x)
}

#[differentiable(order = 2)]
fn quartic_via_tuple(x: f64) -> f64 {
    via_tuple(x) * via_tuple(x)
}

#[differentiable(order = 2)]
fn quartic_via_destructuring_assignment(x: f64) -> f64 {
    via_destructuring_assignment(x) * via_destructuring_assignment(x)
}

#[differentiable(order = 2)]
fn quartic_via_array_assignment(x: f64) -> f64 {
    via_array_assignment(x) * via_array_assignment(x)
}

#[differentiable(order = 2)]
fn quartic_via_block(x: f64) -> f64 {
    via_block(x) * via_block(x)
}

#[differentiable(order = 2)]
fn quartic_via_loop_value(x: f64) -> f64 {
    via_loop_value(x) * via_loop_value(x)
}

#[differentiable(order = 2)]
fn quartic_via_labelled_block(x: f64) -> f64 {
    via_labelled_block(x) * via_labelled_block(x)
}

#[differentiable(order = 2)]
fn quartic_via_repeat(x: f64) -> f64 {
    via_repeat(x) * via_repeat(x)
}

#[differentiable(order = 2)]
fn quartic_via_method(x: f64) -> f64 {
    via_method(x) * via_method(x)
}

#[differentiable(order = 2)]
fn quartic_via_closure_write(x: f64) -> f64 {
    via_closure_write(x) * via_closure_write(x)
}

#[differentiable(order = 2)]
fn quartic_via_branch(x: f64) -> f64 {
    via_branch(x) * via_branch(x)
}

#[differentiable(order = 2)]
fn quartic_via_match_tuple(x: f64) -> f64 {
    via_match_tuple(x) * via_match_tuple(x)
}

/// F = x⁴ through each form: value, gradient and `f_derivatives` against the formulas, the gradient
/// against central differences of F, the Hessian against central differences of `_grad` and 12x².
#[test]
fn inputs_routed_through_every_binding_form_keep_their_tangents() {
    use common::probe::{hess1, Probe};
    type Items = (
        &'static str,
        fn(f64) -> f64,
        fn(f64) -> (f64, f64),
        fn(f64) -> (f64, f64, Vec<Vec<f64>>),
        fn(f64) -> [f64; 3],
    );
    let cases: [Items; 12] = [
        (
            "closure",
            quartic_via_closure,
            quartic_via_closure_grad,
            quartic_via_closure_hessian,
            quartic_via_closure_derivatives,
        ),
        (
            "tuple",
            quartic_via_tuple,
            quartic_via_tuple_grad,
            quartic_via_tuple_hessian,
            quartic_via_tuple_derivatives,
        ),
        (
            "destructuring assignment",
            quartic_via_destructuring_assignment,
            quartic_via_destructuring_assignment_grad,
            quartic_via_destructuring_assignment_hessian,
            quartic_via_destructuring_assignment_derivatives,
        ),
        (
            "array assignment",
            quartic_via_array_assignment,
            quartic_via_array_assignment_grad,
            quartic_via_array_assignment_hessian,
            quartic_via_array_assignment_derivatives,
        ),
        (
            "block",
            quartic_via_block,
            quartic_via_block_grad,
            quartic_via_block_hessian,
            quartic_via_block_derivatives,
        ),
        (
            "loop value",
            quartic_via_loop_value,
            quartic_via_loop_value_grad,
            quartic_via_loop_value_hessian,
            quartic_via_loop_value_derivatives,
        ),
        (
            "labelled block",
            quartic_via_labelled_block,
            quartic_via_labelled_block_grad,
            quartic_via_labelled_block_hessian,
            quartic_via_labelled_block_derivatives,
        ),
        (
            "repeat",
            quartic_via_repeat,
            quartic_via_repeat_grad,
            quartic_via_repeat_hessian,
            quartic_via_repeat_derivatives,
        ),
        (
            "method",
            quartic_via_method,
            quartic_via_method_grad,
            quartic_via_method_hessian,
            quartic_via_method_derivatives,
        ),
        (
            "closure write",
            quartic_via_closure_write,
            quartic_via_closure_write_grad,
            quartic_via_closure_write_hessian,
            quartic_via_closure_write_derivatives,
        ),
        (
            "branch",
            quartic_via_branch,
            quartic_via_branch_grad,
            quartic_via_branch_hessian,
            quartic_via_branch_derivatives,
        ),
        (
            "match tuple",
            quartic_via_match_tuple,
            quartic_via_match_tuple_grad,
            quartic_via_match_tuple_hessian,
            quartic_via_match_tuple_derivatives,
        ),
    ];
    for (what, f, g, h, d) in cases {
        Probe::new(what, move |x| f(x[0]))
            .grad(move |x| {
                let (v, d) = g(x[0]);
                (v, vec![d])
            })
            .hessian(hess1(h, d))
            .analytic(|x| vec![4.0 * x[0].powi(3)])
            .run(16, common::probe::range(1, -2.0, 2.0));
        for x in [-1.7, -0.4, 0.3, 1.5, 2.2] {
            let (value, gradient, hessian) = h(x);
            assert_eq!(value, f(x), "{what}");
            assert_close(value, x.powi(4), 1e-13, what);
            assert_close(gradient, 4.0 * x.powi(3), 1e-12, what);
            assert_close(hessian[0][0], 12.0 * x * x, 1e-12, what);
            assert_close(d(x)[2], 12.0 * x * x, 1e-12, what);
        }
    }
}
