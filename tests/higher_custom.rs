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
use common::{assert_all_close, assert_close, central_difference};

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
#[ignore = "not implemented: the closure runs `doubled_slope`'s value on dual numbers, which differentiates its forward code (H = 2x = 1.5); the override needs the tangent-of-adjoint rewrite of issue 8"]
fn nested_custom_gradient_in_the_closure_overrides_its_forward_code() {
    let (value, gradient, hessian) = through_nested_hessian(0.75);
    assert_close(value, 0.140625, 1e-15, "value");
    assert_close(gradient, 0.5625, 1e-15, "gradient");
    assert_close(hessian[0][0], 3.0, 1e-15, "hessian[0][0]");
}

/// What the nested case gives today, pinned so that a change is seen: the forward code of the nested
/// function, d/dx (x²) = 2x = 1.5 at x = 0.75.
#[test]
fn nested_custom_gradient_in_the_closure_today_uses_its_forward_code() {
    let (_, gradient, hessian) = through_nested_hessian(0.75);
    assert_close(gradient, 0.5625, 1e-15, "gradient");
    assert_close(hessian[0][0], 1.5, 1e-15, "hessian[0][0]");
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
