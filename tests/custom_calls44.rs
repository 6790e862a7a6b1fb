//! Second and third derivatives through `#[custom_gradient]` functions (and a `#[gradient_of]`
//! registration) whose body or closure calls the derivatives `#[differentiable]` generated: `f_grad`,
//! `f_vjp`, `f_jvp`, `f_hvp`. As `jax.hessian` of a `jax.custom_vjp` function gives it, the Hessian of a
//! caller is the Jacobian of its `_grad` as generated: the closure is differentiated through the values
//! it captures (here computed by `f_grad` and the others, run on dual numbers), the custom function's
//! value through its forward code as written.
//!
//! Each Hessian is checked against the derivative written out by hand in the comment above it, and
//! against central differences of the generated `_grad` on seeded points; each third derivative against
//! differences of the Hessian.

mod common;

use autodiff::{custom_gradient, differentiable, gradient_of};
use common::{
    assert_all_close, assert_close, assert_jacobian, central_difference, fd_jacobian, Inputs,
};

/// `count` seeded points of `dim` coordinates in `[lo, hi)`.
fn points(seed: u64, dim: usize, count: usize, lo: f64, hi: f64) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    (0..count)
        .map(|_| {
            (0..dim)
                .map(|_| lo + (hi - lo) * 0.5 * (inputs.next() + 1.0))
                .collect()
        })
        .collect()
}

// ---- a scalar: `f_grad` in the body, its gradient captured ----

#[differentiable]
fn sq(x: f64) -> f64 {
    x * x
}

/// x², its gradient `sq_grad`'s, captured: g = 2x.
#[custom_gradient]
fn sq_custom(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let (v, g) = sq_grad(x);
    (v, move |dy| dy * g)
}

/// F = x² sin x. F' = 2x sin x + x² cos x; F'' = 2 sin x + 4x cos x - x² sin x (the closure's 2x
/// differentiated through `sq_grad` run on dual numbers: 2).
#[differentiable(order = 2)]
fn sq_sine(x: f64) -> f64 {
    sq_custom(x) * x.sin()
}

/// The same at order 3: F''' = 6 cos x - 6x sin x - x² cos x.
#[differentiable(order = 3)]
fn sq_sine3(x: f64) -> f64 {
    sq_custom(x) * x.sin()
}

#[test]
fn a_gradient_in_the_body_is_differentiated_through_its_generic_copy() {
    for p in points(44_01, 1, 16, -3.0, 3.0) {
        let x = p[0];
        let (s, c) = (x.sin(), x.cos());
        assert_eq!(sq_custom(x), sq(x));
        let (value, gradient, h) = sq_sine_hessian(x);
        assert_eq!(value, sq_sine(x));
        assert_eq!(value, sq_sine3(x));
        assert_close(value, x * x * s, 1e-14, "value");
        assert_close(gradient, 2.0 * x * s + x * x * c, 1e-13, "gradient");
        let second = 2.0 * s + 4.0 * x * c - x * x * s;
        assert_close(h[0][0], second, 1e-12, "hessian");
        assert_close(
            h[0][0],
            central_difference(|x| sq_sine_grad(x).1, x),
            1e-7,
            "hessian against differences of _grad",
        );
        let (_, _, hv) = sq_sine_hvp(x, 0.3);
        assert_close(hv, 0.3 * second, 1e-12, "hvp");
        let d = sq_sine3_derivatives(x);
        let third = 6.0 * c - 6.0 * x * s - x * x * c;
        assert_all_close(
            &d,
            &[x * x * s, 2.0 * x * s + x * x * c, second, third],
            1e-11,
            "derivatives",
        );
        assert_close(
            d[3],
            central_difference(|x| sq_sine3_hessian(x).2[0][0], x),
            1e-6,
            "third derivative against differences of the Hessian",
        );
    }
}

// ---- a deliberately scaled closure: the captured gradient's derivative decides ----

#[differentiable]
fn cube(x: f64) -> f64 {
    x * x * x
}

/// Value x³, closure half the true slope: 0.5 · 3x².
#[custom_gradient]
fn half_slope_cube(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let (v, g) = cube_grad(x);
    (v, move |dy| 0.5 * dy * g)
}

/// `_grad` = 1.5x², so the Hessian (its Jacobian, as `jax.hessian` of the `custom_vjp` gives) is 3x,
/// not the 6x of x³; the third derivative 3.
#[differentiable(order = 3)]
fn half_slope(x: f64) -> f64 {
    half_slope_cube(x)
}

#[test]
fn a_scaled_closure_shapes_the_second_derivative_through_the_captured_gradient() {
    for p in points(44_02, 1, 16, -2.0, 2.0) {
        let x = p[0];
        let d = half_slope_derivatives(x);
        assert_eq!(d[0], half_slope(x));
        assert_eq!(d[0], cube(x));
        assert_all_close(&d, &[x * x * x, 1.5 * x * x, 3.0 * x, 3.0], 1e-12, "d");
        assert_close(
            half_slope_hessian(x).2[0][0],
            central_difference(|x| half_slope_grad(x).1, x),
            1e-7,
            "hessian against differences of _grad",
        );
    }
}

// ---- a slice: `f_grad` of a slice, its Vec gradient captured ----

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn weighted_squares(w: &[f64], a: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += a * (i as f64 + 1.0) * w[i] * w[i];
    }
    s
}

/// Σ a (i+1) wᵢ², with the gradient `weighted_squares_grad` gives: (2a(i+1)wᵢ, Σ (i+1)wᵢ²).
// (An `allow` on a custom function: once on each item, clippy's `duplicated_attributes` otherwise.)
#[custom_gradient]
#[allow(clippy::needless_range_loop)]
fn weighted(w: &[f64], a: f64) -> (f64, impl Fn(f64) -> (Vec<f64>, f64)) {
    let (v, (gw, ga)) = weighted_squares_grad(w, a);
    (v, move |dy| {
        let mut d = vec![0.0; gw.len()];
        for i in 0..gw.len() {
            d[i] = dy * gw[i];
        }
        (d, dy * ga)
    })
}

/// F = S² with S = Σ a (i+1) wᵢ²: ∂F/∂wᵢ = 2S · 2a(i+1)wᵢ, ∂F/∂a = 2S Σ(i+1)wᵢ², so
/// ∂²F/∂wᵢ∂wⱼ = 8a²(i+1)(j+1)wᵢwⱼ + [i = j] 4Sa(i+1), ∂²F/∂wᵢ∂a = 4(i+1)wᵢ(S + a Q) with Q = Σ(i+1)wᵢ²,
/// ∂²F/∂a² = 2Q².
#[differentiable(order = 2)]
fn weighted_energy(w: &[f64], a: f64) -> f64 {
    let s = weighted(w, a);
    s * s
}

#[test]
fn a_slice_gradient_in_the_body_is_differentiated() {
    for p in points(44_03, 4, 12, -1.0, 1.0) {
        let (w, a) = (&p[..3], 0.5 + p[3]);
        let q: f64 = (0..3).map(|i| (i as f64 + 1.0) * w[i] * w[i]).sum();
        let s = a * q;
        let (value, (gw, ga), h) = weighted_energy_hessian(w, a);
        assert_close(value, s * s, 1e-14, "value");
        assert_eq!(value, weighted_energy(w, a));
        for i in 0..3 {
            let ki = i as f64 + 1.0;
            assert_close(gw[i], 4.0 * s * a * ki * w[i], 1e-13, "gw");
            for j in 0..3 {
                let kj = j as f64 + 1.0;
                let diagonal = if i == j { 4.0 * s * a * ki } else { 0.0 };
                let expected = 8.0 * a * a * ki * kj * w[i] * w[j] + diagonal;
                assert_close(h[i][j], expected, 1e-12, "h[w][w]");
            }
            let mixed = 4.0 * ki * w[i] * (s + a * q);
            assert_close(h[i][3], mixed, 1e-12, "h[w][a]");
            assert_close(h[3][i], mixed, 1e-12, "h[a][w]");
        }
        assert_close(ga, 2.0 * s * q, 1e-13, "ga");
        assert_close(h[3][3], 2.0 * q * q, 1e-12, "h[a][a]");
        let flat_grad = |x: &[f64]| {
            let (_, (gw, ga)) = weighted_energy_grad(&x[..3], x[3]);
            let mut g = gw;
            g.push(ga);
            g
        };
        let mut at = w.to_vec();
        at.push(a);
        assert_jacobian(
            &h,
            &fd_jacobian(flat_grad, &at),
            "hessian against differences of _grad",
        );
    }
}

// ---- an array: `f_grad` in the body, `f_hvp` in the closure (the HMC pattern) ----

/// A banana-shaped log-density, with its second derivatives.
#[differentiable(order = 3)]
fn logp(q: [f64; 2]) -> f64 {
    let bend = q[1] - 0.5 * q[0] * q[0];
    -0.5 * q[0] * q[0] - 2.0 * bend * bend
}

/// ∇logp, whose vector-Jacobian product is the Hessian (symmetric) times the cotangent.
#[custom_gradient]
fn grad_logp(q: [f64; 2]) -> ([f64; 2], impl Fn([f64; 2]) -> [f64; 2]) {
    let (_, g) = logp_grad(q);
    (g, move |dy| logp_hvp(q, dy).2)
}

/// ∇logp by hand: b = q1 - q0²/2, ∇ = (-q0 + 4b q0, -4b).
fn grad_logp_by_hand(q: [f64; 2]) -> [f64; 2] {
    let b = q[1] - 0.5 * q[0] * q[0];
    [-q[0] + 4.0 * b * q[0], -4.0 * b]
}

/// |∇logp|² / 2: its gradient is H ∇ and its Hessian H H + Σₖ ∇ₖ ∂²(∇ₖ), which `_grad`'s differences give.
#[differentiable(order = 2)]
fn gradient_energy(q: [f64; 2]) -> f64 {
    let g = grad_logp(q);
    0.5 * (g[0] * g[0] + g[1] * g[1])
}

/// Along a line q = (t, t/2), at order 3: its derivatives against differences.
#[differentiable(order = 3)]
fn gradient_energy_on_a_line(t: f64) -> f64 {
    let g = grad_logp([t, 0.5 * t]);
    0.5 * (g[0] * g[0] + g[1] * g[1])
}

#[test]
fn an_hvp_in_the_closure_is_differentiated_through_its_generic_copy() {
    for p in points(44_04, 2, 16, -1.5, 1.5) {
        let q = [p[0], p[1]];
        assert_all_close(&grad_logp(q), &grad_logp_by_hand(q), 1e-14, "grad_logp");
        // The gradient H ∇, with H = [[-1 + 4b - 4q0², 4q0], [4q0, -4]].
        let b = q[1] - 0.5 * q[0] * q[0];
        let g = grad_logp_by_hand(q);
        let hl = [
            [-1.0 + 4.0 * b - 4.0 * q[0] * q[0], 4.0 * q[0]],
            [4.0 * q[0], -4.0],
        ];
        let (value, gradient, h) = gradient_energy_hessian(q);
        assert_eq!(value, gradient_energy(q));
        assert_close(logp_grad(q).0, logp(q), 1e-15, "logp");
        assert_close(value, 0.5 * (g[0] * g[0] + g[1] * g[1]), 1e-14, "value");
        let hg = [
            hl[0][0] * g[0] + hl[0][1] * g[1],
            hl[1][0] * g[0] + hl[1][1] * g[1],
        ];
        assert_all_close(&gradient, &hg, 1e-12, "gradient");
        // The Hessian: H H + g0 ∂²(∇0) + g1 ∂²(∇1); ∂²(∇0) = [[-12 q0, 4], [4, 0]] (∇0 = -q0 + 4q0 q1 -
        // 2q0³), ∂²(∇1) = [[4, 0], [0, 0]] (∇1 = -4q1 + 2q0²).
        let third = [[[-12.0 * q[0], 4.0], [4.0, 0.0]], [[4.0, 0.0], [0.0, 0.0]]];
        for i in 0..2 {
            for j in 0..2 {
                let hh: f64 = (0..2).map(|k| hl[i][k] * hl[k][j]).sum();
                let curvature: f64 = (0..2).map(|k| g[k] * third[k][i][j]).sum();
                assert_close(h[i][j], hh + curvature, 1e-11, "hessian");
            }
        }
        let flat_grad = |x: &[f64]| gradient_energy_grad([x[0], x[1]]).1.to_vec();
        assert_jacobian(
            &h,
            &fd_jacobian(flat_grad, &p),
            "hessian against differences of _grad",
        );
        // At order 3, on a line: the second derivative against differences of `_grad`, the third against
        // differences of the Hessian.
        let t = p[0];
        let d = gradient_energy_on_a_line_derivatives(t);
        assert_eq!(d[0], gradient_energy_on_a_line(t));
        assert_close(
            d[2],
            central_difference(|t| gradient_energy_on_a_line_grad(t).1, t),
            1e-6,
            "second derivative",
        );
        assert_close(
            d[3],
            central_difference(|t| gradient_energy_on_a_line_hessian(t).2[0][0], t),
            1e-6,
            "third derivative",
        );
        let v = [1.0, 0.5];
        let on_line = gradient_energy_hessian([t, 0.5 * t]).2;
        let along_line: f64 = (0..2)
            .map(|i| (0..2).map(|j| v[i] * on_line[i][j] * v[j]).sum::<f64>())
            .sum();
        assert_close(d[2], along_line, 1e-11, "second derivative along the line");
    }
}

// ---- `f_vjp` in the closure, `f_jvp` in the body ----

#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

/// x = r cos t, its cotangents by `polar_vjp` in the closure with the cotangent (dy, 0).
#[custom_gradient]
fn abscissa(r: f64, t: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let (xy, _) = polar_vjp(r, t, (1.0, 0.0));
    (xy.0, move |dy| polar_vjp(r, t, (dy, 0.0)).1)
}

/// F = r x = r² cos t: H = [[2 cos t, -2r sin t], [-2r sin t, -r² cos t]].
#[differentiable(order = 2)]
fn abscissa_energy(r: f64, t: f64) -> f64 {
    abscissa(r, t) * r
}

#[differentiable]
fn product(a: f64, b: f64) -> f64 {
    a * b * b
}

/// a b², its partials by two forward passes of `product_jvp`, captured: (b², 2ab).
#[custom_gradient]
fn product_custom(a: f64, b: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let (v, da) = product_jvp(a, b, (1.0, 0.0));
    let (_, db) = product_jvp(a, b, (0.0, 1.0));
    (v, move |dy| (dy * da, dy * db))
}

/// F = a b² + a²: H = [[2, 2b], [2b, 2a]].
#[differentiable(order = 2)]
fn product_energy(a: f64, b: f64) -> f64 {
    product_custom(a, b) + a * a
}

#[test]
fn a_vjp_and_a_jvp_are_differentiated_through_their_generic_copies() {
    for p in points(44_05, 2, 16, -2.0, 2.0) {
        let (r, t) = (p[0], p[1]);
        let (value, (gr, gt), h) = abscissa_energy_hessian(r, t);
        assert_close(value, r * r * t.cos(), 1e-14, "value");
        assert_eq!(value, abscissa_energy(r, t));
        assert_eq!(abscissa(r, t), polar(r, t).0);
        assert_all_close(
            &[gr, gt],
            &[2.0 * r * t.cos(), -r * r * t.sin()],
            1e-13,
            "gradient",
        );
        let expected = [
            [2.0 * t.cos(), -2.0 * r * t.sin()],
            [-2.0 * r * t.sin(), -r * r * t.cos()],
        ];
        for i in 0..2 {
            assert_all_close(&h[i], &expected[i], 1e-12, "abscissa hessian");
        }
        let flat_grad = |x: &[f64]| {
            let (_, (a, b)) = abscissa_energy_grad(x[0], x[1]);
            vec![a, b]
        };
        assert_jacobian(
            &h,
            &fd_jacobian(flat_grad, &p),
            "abscissa against differences of _grad",
        );

        let (a, b) = (p[0], p[1]);
        let (value, _, h) = product_energy_hessian(a, b);
        assert_close(value, a * b * b + a * a, 1e-14, "value");
        assert_eq!(value, product_energy(a, b));
        assert_eq!(product_custom(a, b), product(a, b));
        assert_all_close(&h[0], &[2.0, 2.0 * b], 1e-12, "product h[0]");
        assert_all_close(&h[1], &[2.0 * b, 2.0 * a], 1e-12, "product h[1]");
        let flat_grad = |x: &[f64]| {
            let (_, (a, b)) = product_energy_grad(x[0], x[1]);
            vec![a, b]
        };
        assert_jacobian(
            &h,
            &fd_jacobian(flat_grad, &p),
            "product against differences of _grad",
        );
    }
}

// ---- `wrt(..)` on the callee: its gradient leaves a float parameter out ----

#[differentiable(wrt(x))]
fn scaled_square(x: f64, c: f64) -> f64 {
    c * x * x
}

/// c x², its gradient in x alone (2cx), c as a constant of the closure: the custom function's cotangent
/// for c is zero, deliberately.
#[custom_gradient]
fn scaled(x: f64, c: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let (v, g) = scaled_square_grad(x, c);
    (v, move |dy| (dy * g, 0.0))
}

/// The same by `scaled_square_jvp` (whose tangent is x's alone: the copy's tangent of c is zero).
#[custom_gradient]
fn scaled_by_tangent(x: f64, c: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let (v, d) = scaled_square_jvp(x, c, 1.0);
    (v, move |dy| (dy * d, 0.0))
}

#[differentiable(order = 2)]
fn scaled_by_tangent_energy(x: f64, c: f64) -> f64 {
    scaled_by_tangent(x, c)
}

/// F = c x² (c's slope dropped by the closure): `_grad` = (2cx, 0), its Jacobian [[2c, 2x], [0, 0]]
/// (not symmetric: the closure is not the derivative of the value).
#[differentiable(order = 2)]
fn scaled_energy(x: f64, c: f64) -> f64 {
    scaled(x, c)
}

#[test]
fn a_callee_with_wrt_gives_its_gradient_in_its_active_parameters() {
    for p in points(44_06, 2, 12, -2.0, 2.0) {
        let (x, c) = (p[0], p[1]);
        let (value, (gx, gc), h) = scaled_energy_hessian(x, c);
        assert_eq!(value, scaled_energy(x, c));
        assert_eq!(value, scaled_square(x, c));
        assert_all_close(&[gx, gc], &[2.0 * c * x, 0.0], 1e-13, "gradient");
        assert_all_close(&h[0], &[2.0 * c, 2.0 * x], 1e-12, "h[0]");
        assert_all_close(&h[1], &[0.0, 0.0], 1e-12, "h[1]");
        let flat_grad = |x: &[f64]| {
            let (_, (a, b)) = scaled_energy_grad(x[0], x[1]);
            vec![a, b]
        };
        assert_jacobian(
            &h,
            &fd_jacobian(flat_grad, &p),
            "against differences of _grad",
        );
        let (value, _, by_tangent) = scaled_by_tangent_energy_hessian(x, c);
        assert_eq!(value, scaled_by_tangent_energy(x, c));
        assert_eq!(by_tangent, h, "by the tangent");
    }
}

// ---- a generic callee: its `_grad` is generic already ----

#[differentiable]
fn generic_cube<T: autodiff::Float>(x: T) -> T {
    x * x * x
}

#[custom_gradient]
fn cube_through_generic(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let (v, g) = generic_cube_grad(x);
    (v, move |dy| dy * g)
}

/// x³ · x = x⁴: F'' = 12x², F''' = 24x.
#[differentiable(order = 3)]
fn generic_cube_energy(x: f64) -> f64 {
    cube_through_generic(x) * x
}

#[test]
fn a_generic_callee_gradient_is_differentiated() {
    for p in points(44_07, 1, 12, -2.0, 2.0) {
        let x = p[0];
        let d = generic_cube_energy_derivatives(x);
        assert_eq!(d[0], generic_cube_energy(x));
        assert_all_close(
            &d,
            &[x.powi(4), 4.0 * x.powi(3), 12.0 * x * x, 24.0 * x],
            1e-11,
            "d",
        );
    }
}

// ---- a registered gradient whose body calls a generated gradient ----

pub mod outside {
    /// x³ / 3, without derivatives of its own.
    pub fn third_cube(x: f64) -> f64 {
        x * x * x / 3.0
    }
}

#[differentiable]
fn third_cube_by_hand(x: f64) -> f64 {
    x * x * x / 3.0
}

/// Its gradient x², by `third_cube_by_hand_grad`.
#[gradient_of(outside::third_cube)]
fn third_cube_vjp(x: f64, dy: f64) -> f64 {
    let (_, g) = third_cube_by_hand_grad(x);
    dy * g
}

/// F = x⁴ / 3 + x: F' = 4x³/3 + 1, F'' = 4x², F''' = 8x.
#[differentiable(order = 3)]
fn registered_energy(x: f64) -> f64 {
    outside::third_cube(x) * x + x
}

#[test]
fn a_registered_gradient_calling_a_generated_gradient_is_differentiated() {
    for p in points(44_08, 1, 12, -2.0, 2.0) {
        let x = p[0];
        let d = registered_energy_derivatives(x);
        assert_eq!(d[0], registered_energy(x));
        assert_eq!(outside::third_cube(x), third_cube_by_hand(x));
        let expected = [
            x.powi(4) / 3.0 + x,
            4.0 * x.powi(3) / 3.0 + 1.0,
            4.0 * x * x,
            8.0 * x,
        ];
        assert_all_close(&d, &expected, 1e-11, "d");
        assert_close(
            d[2],
            central_difference(|x| registered_energy_grad(x).1, x),
            1e-7,
            "against differences of _grad",
        );
    }
}

// ---- the implicit-function gradient of a solve (trial43's implied volatility, in small) ----

/// x with x³ = y, by bisection: its derivative through the forward code is zero (`wrt(y)` for the
/// comparisons' sake only).
#[differentiable(wrt(y))]
fn cube_root_by_bisection(y: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 3.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid * mid * mid > y {
            hi = mid;
        } else {
            lo = mid;
        }
        if hi - lo < 1e-15 {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// ∛y by bisection, its slope 1/(3x²) by `cube_grad` at the root (the implicit-function gradient).
#[custom_gradient]
fn cube_root(y: f64) -> (f64, impl Fn(f64) -> f64) {
    let x = cube_root_by_bisection(y);
    let (_, g) = cube_grad(x);
    (x, move |dy| dy / g)
}

/// The same, the solve ended by one Newton step, whose tangent is the implicit one: at the root x = x0 -
/// (x0³ - y)/(3x0²) moves as 1/(3x²) with y.
#[custom_gradient]
fn cube_root_newton(y: f64) -> (f64, impl Fn(f64) -> f64) {
    let x0 = cube_root_by_bisection(y);
    let (c, g0) = cube_grad(x0);
    let x = x0 - (c - y) / g0;
    let (_, g) = cube_grad(x);
    (x, move |dy| dy / g)
}

/// `_grad` = 1/(3x²). As `jax.hessian` of the `custom_vjp` gives it, the Hessian follows the root's
/// tangent through the forward code, which a bisection makes zero: 0.
#[differentiable(order = 2)]
fn root_by_bisection(y: f64) -> f64 {
    cube_root(y)
}

/// With the Newton step, the root's tangent is 1/(3x²), and the Hessian the derivative of 1/(3x²):
/// -2/(9x⁵), the Jacobian of `_grad`.
#[differentiable(order = 2)]
fn root_by_newton(y: f64) -> f64 {
    cube_root_newton(y)
}

#[test]
fn an_implicit_function_gradient_is_differentiated_through_the_forward_code() {
    for p in points(44_09, 1, 12, 0.5, 8.0) {
        let y = p[0];
        let x = y.cbrt();
        let (value, gradient, h) = root_by_bisection_hessian(y);
        assert_close(value, x, 1e-14, "value");
        assert_eq!(value, root_by_bisection(y));
        assert_close(gradient, 1.0 / (3.0 * x * x), 1e-13, "gradient");
        assert_eq!(h[0][0], 0.0, "a bisection's root carries no tangent");
        let (value, gradient, h) = root_by_newton_hessian(y);
        assert_close(value, x, 1e-14, "value");
        assert_eq!(value, root_by_newton(y));
        assert_close(gradient, 1.0 / (3.0 * x * x), 1e-13, "gradient");
        assert_close(h[0][0], -2.0 / (9.0 * x.powi(5)), 1e-10, "hessian");
        assert_close(
            h[0][0],
            central_difference(|y| root_by_newton_grad(y).1, y),
            1e-7,
            "against differences of _grad",
        );
    }
}

// ---- a custom function's own `_grad`, in another custom function ----

/// ln(1 + eˣ), its closure σ(x) through the captured e = eˣ.
#[custom_gradient]
fn softplus(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

/// The same value and slope, the slope by `softplus_grad`, captured: σ(x).
#[custom_gradient]
fn softplus_again(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let (v, s) = softplus_grad(x);
    (v, move |dy| dy * s)
}

/// F = L(x) x: F'' = 2σ + x σ(1 - σ) (tests/higher_custom.rs's `softplus_energy`), F''' = 3σ(1 - σ) +
/// x σ(1 - σ)(1 - 2σ).
#[differentiable(order = 3)]
fn softplus_again_energy(x: f64) -> f64 {
    softplus_again(x) * x
}

#[test]
fn a_custom_function_gradient_in_another_custom_function_is_differentiated() {
    for p in points(44_10, 1, 12, -3.0, 3.0) {
        let x = p[0];
        let s = 1.0 / (1.0 + (-x).exp());
        let l = (1.0 + x.exp()).ln();
        let d = softplus_again_energy_derivatives(x);
        assert_eq!(d[0], softplus_again_energy(x));
        assert_eq!(softplus_again(x), softplus(x));
        let ds = s * (1.0 - s);
        let expected = [
            l * x,
            s * x + l,
            2.0 * s + x * ds,
            3.0 * ds + x * ds * (1.0 - 2.0 * s),
        ];
        assert_all_close(&d, &expected, 1e-11, "d");
        assert_close(
            d[3],
            central_difference(|x| softplus_again_energy_hessian(x).2[0][0], x),
            1e-6,
            "third derivative against differences of the Hessian",
        );
    }
}
