//! `order = K` on functions written for `f64` that call other functions: a generic callee, an `f64` callee
//! that has `order = K` itself, across modules; second derivatives checked against derivatives worked out
//! by hand and central differences of the generated gradient.

mod common;

use autodiff::{differentiable, Float};
use common::{assert_close, central_difference, config};
use proptest::prelude::*;

#[differentiable]
fn square<T: Float>(x: T) -> T {
    x * x
}

/// An `f64` callee with its own `order = 2`: its generic copy exists.
#[differentiable(order = 2)]
fn sine_times(x: f64, k: f64) -> f64 {
    (k * x).sin() * k
}

mod helpers {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

#[differentiable(order = 2)]
fn energy(x: f64, y: f64) -> f64 {
    square(x) * y + sine_times(x, 2.0) + helpers::cube(y)
}

fn energy_by_hand(x: f64, y: f64) -> [[f64; 2]; 2] {
    // x² y + 2 sin(2x) + y³
    [
        [2.0 * y - 8.0 * (2.0 * x).sin(), 2.0 * x],
        [2.0 * x, 6.0 * y],
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn hessian_through_calls(x in -2.0f64..2.0, y in -2.0f64..2.0) {
        let (value, (gx, gy), hessian) = energy_hessian(x, y);
        prop_assert_eq!(value, energy(x, y));
        assert_close(gx, 2.0 * x * y + 4.0 * (2.0 * x).cos(), 1e-12, "d/dx");
        assert_close(gy, x * x + 3.0 * y * y, 1e-12, "d/dy");
        let expected = energy_by_hand(x, y);
        for i in 0..2 {
            for j in 0..2 {
                assert_close(hessian[i][j], expected[i][j], 1e-10, "hessian by hand");
            }
        }
        // Central differences of the generated gradient.
        let fd = central_difference(|v| energy_grad(v, y).1 .0, x);
        assert_close(hessian[0][0], fd, 1e-6, "d2/dx2 by differences of the gradient");
    }
}

/// TensorFlow's `log1pexp`, written for `f64`, then differentiated twice by a caller.
#[autodiff::custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

#[differentiable(order = 2)]
fn softplus_energy(x: f64) -> f64 {
    log1pexp(x) * x
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn second_order_through_a_custom_gradient(x in -5.0f64..5.0) {
        // s(x) = ln(1 + e^x), s' = σ(x), s'' = σ(1 - σ); f = x s: f' = s + x σ, f'' = 2σ + x σ (1 - σ).
        let sigma = 1.0 / (1.0 + (-x).exp());
        let [f, d1, d2] = softplus_energy_derivatives(x);
        assert_close(f, softplus_energy(x), 1e-12, "f");
        assert_close(d1, (1.0 + x.exp()).ln() + x * sigma, 1e-10, "f'");
        assert_close(d2, 2.0 * sigma + x * sigma * (1.0 - sigma), 1e-10, "f''");
        let (_, g, hv) = softplus_energy_hvp(x, 1.0);
        assert_close(g, d1, 1e-12, "hvp gradient");
        assert_close(hv, d2, 1e-12, "hvp");
    }
}

// ---- `f64` callees with `#[differentiable]` alone (first order): their generic copy is emitted anyway ----

/// A leaf callee (no calls, no references): `#[differentiable]` emits its generic copy without being asked.
#[differentiable]
fn damped(x: f64, k: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        s += (k * x).sin() * (-(i as f64) * x).exp();
    }
    s * k
}

mod plain_helpers {
    use autodiff::differentiable;

    /// Reached by path from the caller: `plain_helpers::quartic(y)`.
    #[differentiable]
    pub fn quartic(y: f64) -> f64 {
        let y2 = y * y;
        y2 * y2 / 4.0
    }

    /// An array-valued leaf callee, imported by `use` by the caller.
    #[differentiable]
    pub fn rotate(p: [f64; 2], t: f64) -> [f64; 2] {
        [
            p[0] * t.cos() - p[1] * t.sin(),
            p[0] * t.sin() + p[1] * t.cos(),
        ]
    }
}

/// Imported by `use`: the generic copy is found through the companion type that the name brings.
use plain_helpers::rotate;

#[differentiable(order = 2)]
fn through_first_order_callees(x: f64, y: f64) -> f64 {
    let r = rotate([x, y], x * y);
    damped(x, y) + plain_helpers::quartic(y) * x + r[0] * r[1]
}

proptest! {
    #![proptest_config(config())]

    /// The Hessian of a caller of `f64` callees that have only first order, against central differences
    /// of its generated gradient, column by column.
    #[test]
    fn hessian_through_first_order_f64_callees(x in -1.5f64..1.5, y in -1.5f64..1.5) {
        let (value, (gx, gy), h) = through_first_order_callees_hessian(x, y);
        prop_assert_eq!(value, through_first_order_callees(x, y));
        let (_, (gx1, gy1)) = through_first_order_callees_grad(x, y);
        assert_close(gx, gx1, 1e-13, "gradient d/dx");
        assert_close(gy, gy1, 1e-13, "gradient d/dy");
        let dx = |v: f64| through_first_order_callees_grad(v, y).1;
        let dy = |v: f64| through_first_order_callees_grad(x, v).1;
        assert_close(h[0][0], central_difference(|v| dx(v).0, x), 1e-6, "H[0][0]");
        assert_close(h[1][0], central_difference(|v| dx(v).1, x), 1e-6, "H[1][0]");
        assert_close(h[0][1], central_difference(|v| dy(v).0, y), 1e-6, "H[0][1]");
        assert_close(h[1][1], central_difference(|v| dy(v).1, y), 1e-6, "H[1][1]");
    }
}

// ---- callees whose generic copy `order = 2` on the callee makes (the advice of the error at the call) ----

/// The body of `tests/ui/signature/order-callee-without-generic-copy.rs` (a local `Vec` of computed values
/// iterated by reference, which `#[differentiable]` alone makes no copy of), with the advice followed:
/// `order = 2` on the callee. Its copy takes the elements out of their references.
#[allow(clippy::useless_vec)] // the form under test
#[differentiable(order = 2)]
fn sumsq_of_local(x: &[f64]) -> f64 {
    let w = vec![x[0], 2.0 * x[1], x[2]];
    let mut s = 0.0;
    for v in w.iter() {
        s += v * v;
    }
    for (i, v) in w.iter().enumerate() {
        s += *v * i as f64;
    }
    s
}

#[differentiable(order = 2)]
fn callee_iterating_a_local(x: f64) -> f64 {
    let v = vec![x, 2.0 * x, 3.0 * x];
    sumsq_of_local(&v) * x
}

/// A copy of a parameter iterated by reference: `#[differentiable]` alone makes its copy (the local surely
/// holds floats).
#[differentiable]
fn copied_then_iterated(x: &[f64], k: f64) -> f64 {
    let w = x.to_vec();
    let mut s = 0.0;
    for v in w.iter() {
        s += (v * k).sin();
    }
    s
}

#[differentiable(order = 2)]
fn caller_of_copied(x: f64, k: f64) -> f64 {
    copied_then_iterated(&[x, x * x], k) * k
}

/// A generic `impl`: an associated function calling another (`Self::scale(x)`), reached by an `order = 2`
/// function written for `f64` through its generic copy.
struct Scaler<T>(T);

impl<T: Float> Scaler<T> {
    const HALF: f64 = 0.5;

    #[differentiable]
    fn scale(x: T) -> T {
        x.sin() * x
    }

    #[differentiable]
    fn twice(x: T) -> T {
        Self::scale(x) * x + Self::scale(x * x) * T::from(Self::HALF).unwrap()
    }

    /// Reads `Self::HALF` outside `T::from(..)`: no copy over a float type of its own, which callers
    /// outside the `impl` do not need.
    #[differentiable]
    fn halved(x: T) -> T {
        let h = Self::HALF;
        x.exp() * T::from(h).unwrap()
    }
}

#[differentiable(order = 2)]
fn through_generic_impl(x: f64) -> f64 {
    Scaler::<f64>::twice(x) * x
}

/// The same associated functions called by the type's name alone (`Scaler::scale(x)`, its `T` inferred
/// from the argument), at `order = 2` and `order = 3`, with a `wrt(..)` leaving a float out and a call with
/// the type argument beside it; and at first order. (Was rustc's E0283 in generated code: the caller's copy
/// called a copy over a float type of its own, which left `Scaler`'s `T` open.)
#[differentiable(order = 2)]
fn by_type_name(x: f64, k: f64) -> f64 {
    Scaler::scale(x * k) + Scaler::twice(k) * x + Scaler::<f64>::scale(x) + Scaler::halved(x * x)
}

#[differentiable(order = 3)]
fn by_type_name_third(x: f64) -> f64 {
    Scaler::twice(x) * x.cos()
}

#[differentiable(order = 2, wrt(x))]
fn by_type_name_wrt(x: f64, k: f64) -> f64 {
    Scaler::scale(x * k) * k
}

#[differentiable]
fn by_type_name_first(x: f64, k: f64) -> f64 {
    Scaler::scale(x * k) + Scaler::twice(k) * x
}

fn scale_by_hand(x: f64) -> f64 {
    x.sin() * x
}

fn twice_by_hand(x: f64) -> f64 {
    scale_by_hand(x) * x + scale_by_hand(x * x) * 0.5
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn associated_functions_by_the_type_name(x in -1.5f64..1.5, k in -1.5f64..1.5) {
        let f = |v: &[f64]| {
            scale_by_hand(v[0] * v[1])
                + twice_by_hand(v[1]) * v[0]
                + scale_by_hand(v[0])
                + 0.5 * (v[0] * v[0]).exp()
        };
        let (value, (gx, gk), h) = by_type_name_hessian(x, k);
        assert_close(value, f(&[x, k]), 1e-12, "value");
        prop_assert_eq!(value, by_type_name(x, k));
        common::assert_fd_gradient(f, &[x, k], &[gx, gk], "gradient");
        let grad = |v: &[f64]| {
            let (_, (gx, gk)) = by_type_name_grad(v[0], v[1]);
            vec![gx, gk]
        };
        common::assert_jacobian(&h, &common::fd_jacobian(grad, &[x, k]), "Hessian");
        let (value1, (gx1, gk1)) = by_type_name_first_grad(x, k);
        prop_assert_eq!(value1, by_type_name_first(x, k));
        let f1 = |v: &[f64]| scale_by_hand(v[0] * v[1]) + twice_by_hand(v[1]) * v[0];
        common::assert_fd_gradient(f1, &[x, k], &[gx1, gk1], "first order");

        // f = twice(x) cos x: each derivative against central differences of the one below it.
        let d = by_type_name_third_derivatives(x);
        prop_assert_eq!(d[0], by_type_name_third(x));
        assert_close(d[0], twice_by_hand(x) * x.cos(), 1e-12, "value");
        assert_close(d[1], central_difference(|v| twice_by_hand(v) * v.cos(), x), 1e-6, "f'");
        assert_close(d[2], central_difference(|v| by_type_name_third_grad(v).1, x), 1e-6, "f''");
        let second = |v: f64| by_type_name_third_hessian(v).2[0][0];
        assert_close(d[3], central_difference(second, x), 1e-6, "third derivative");

        // wrt(x): f = k (kx) sin(kx); its second derivative by differences of the gradient.
        let (value, g, h) = by_type_name_wrt_hessian(x, k);
        prop_assert_eq!(value, by_type_name_wrt(x, k));
        assert_close(g, central_difference(|v| scale_by_hand(v * k) * k, x), 1e-6, "wrt: f'");
        let wrt_grad = |v: f64| by_type_name_wrt_grad(v, k).1;
        assert_close(h[0][0], central_difference(wrt_grad, x), 1e-6, "wrt: f''");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn callees_made_second_order(x in -1.5f64..1.5, k in -1.5f64..1.5) {
        // w = (x, 4x, 3x) at v = (x, 2x, 3x): sumsq_of_local = 26 x² + (4x + 2·3x); f = 26 x³ + 10 x².
        let (value, g, h) = callee_iterating_a_local_hessian(x);
        prop_assert_eq!(value, callee_iterating_a_local(x));
        assert_close(g, 78.0 * x * x + 20.0 * x, 1e-12, "d/dx");
        assert_close(h[0][0], 156.0 * x + 20.0, 1e-12, "d2/dx2");

        // f = k (sin(k x) + sin(k x²)).
        let (_, (gx, gk), h) = caller_of_copied_hessian(x, k);
        let grad = |x: f64, k: f64| caller_of_copied_grad(x, k).1;
        assert_close(gx, k * k * ((k * x).cos() + 2.0 * x * (k * x * x).cos()), 1e-12, "d/dx");
        assert_close(gk, central_difference(|k| caller_of_copied(x, k), k), 1e-6, "d/dk");
        assert_close(h[0][0], central_difference(|v| grad(v, k).0, x), 1e-6, "H[0][0]");
        assert_close(h[0][1], central_difference(|v| grad(x, v).0, k), 1e-6, "H[0][1]");
        assert_close(h[1][1], central_difference(|v| grad(x, v).1, k), 1e-6, "H[1][1]");

        // f = x (x² sin x + 0.5 x² sin x²), against central differences of f and of the gradient.
        let (value, g, h) = through_generic_impl_hessian(x);
        prop_assert_eq!(value, through_generic_impl(x));
        let f = |x: f64| x * (x.sin() * x * x + 0.5 * (x * x).sin() * x * x);
        assert_close(value, f(x), 1e-12, "value");
        assert_close(g, central_difference(f, x), 1e-6, "f' by differences of f");
        assert_close(h[0][0], central_difference(|v| through_generic_impl_grad(v).1, x), 1e-6, "f''");
    }
}

// ---- f64 callees naming the float type's constants and functions ----

/// `logsumexp` as it is usually written: the maximum by `fold(f64::NEG_INFINITY, f64::max)`. Its generic
/// copy names `__S::neg_infinity()` and `__S::max` instead, so `#[differentiable]` alone makes it.
#[differentiable]
fn logsumexp(z: &[f64]) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
    m + s.ln()
}

/// The same maximum by a closure, and `f64::EPSILON` in the body.
#[differentiable]
fn soft_norm(z: &[f64]) -> f64 {
    let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b.abs()));
    (z.iter().map(|v| v * v).sum::<f64>() + f64::EPSILON).sqrt() + m
}

#[differentiable(order = 2)]
fn through_float_paths(x: &[f64]) -> f64 {
    logsumexp(x) * 2.0 + soft_norm(x)
}

proptest! {
    #![proptest_config(config())]

    /// The Hessian of a caller of `logsumexp` and `soft_norm` (first order only, naming `f64::max`,
    /// `f64::NEG_INFINITY`, `f64::EPSILON`): the logsumexp part against its closed form
    /// `2 (diag(p) - p pᵀ)`, the whole against central differences of the generated gradient.
    #[test]
    fn hessian_through_callees_naming_float_paths(x in prop::collection::vec(-2.0f64..2.0, 3)) {
        let (value, gradient, h) = through_float_paths_hessian(&x);
        prop_assert_eq!(value, through_float_paths(&x));
        let (_, g) = through_float_paths_grad(&x);
        for i in 0..3 {
            assert_close(gradient[i], g[i], 1e-13, "gradient");
            let column = common::hessian_column(|y| through_float_paths_grad(y).1, &x, i);
            for r in 0..3 {
                assert_close(h[r][i], column[r], 1e-5, "H against central differences");
            }
        }
        let (lse_value, _, lse) = logsumexp_twice_hessian(&x);
        prop_assert_eq!(lse_value, logsumexp_twice(&x));
        let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
        let p: Vec<f64> = e.iter().map(|v| v / e.iter().sum::<f64>()).collect();
        for r in 0..3 {
            for c in 0..3 {
                let want = 2.0 * (if r == c { p[r] } else { 0.0 } - p[r] * p[c]);
                assert_close(lse[r][c], want, 1e-12, "logsumexp Hessian");
            }
        }
    }
}

#[differentiable(order = 2)]
fn logsumexp_twice(x: &[f64]) -> f64 {
    logsumexp(x) * 2.0
}

// ---- f64 callees iterating by reference locals made of floats ----

/// `Σ w_i² x₀` over `w = [x₀, 2 x₁]`, a `vec!` written out of elements of a parameter.
#[allow(clippy::useless_vec)]
#[differentiable]
fn written_out_then_iterated(x: &[f64]) -> f64 {
    let w = vec![x[0], x[1] * 2.0];
    let mut s = 0.0;
    for v in w.iter() {
        s += v * v * x[0];
    }
    s
}

/// `Σ_i sin(x_i) x_i` over a `Vec::new()` filled by `push`, iterated by `.iter().enumerate()`.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn pushed_then_iterated(x: &[f64]) -> f64 {
    let mut w = Vec::new();
    for i in 0..x.len() {
        w.push(x[i].sin());
    }
    let mut s = 0.0;
    for (i, v) in w.iter().enumerate() {
        s += v * x[i];
    }
    s
}

/// A local array `[x₀ x₁, k]` zipped with the parameter and iterated by `&w`:
/// `x₀² x₁ + k x₁ + sin(x₀ x₁) + sin(k)`.
#[differentiable]
fn array_then_iterated(x: &[f64], k: f64) -> f64 {
    let w = [x[0] * x[1], k];
    let mut s = 0.0;
    for (v, y) in w.iter().zip(x.iter()) {
        s += v * y;
    }
    for v in &w {
        s += v.sin();
    }
    s
}

#[differentiable(order = 2)]
fn through_local_floats(x: &[f64]) -> f64 {
    written_out_then_iterated(x) + pushed_then_iterated(x) + array_then_iterated(x, x[0] * 0.5)
}

/// `through_local_floats` by hand: `x₀³ + 4 x₀ x₁² + Σ sin(x_i) x_i + x₀² x₁ + k x₁ + sin(x₀ x₁) + sin(k)`
/// with `k = x₀ / 2`.
fn local_floats_by_hand(x: &[f64]) -> f64 {
    let k = x[0] * 0.5;
    x[0].powi(3)
        + 4.0 * x[0] * x[1] * x[1]
        + x.iter().map(|v| v.sin() * v).sum::<f64>()
        + x[0] * x[0] * x[1]
        + k * x[1]
        + (x[0] * x[1]).sin()
        + k.sin()
}

proptest! {
    #![proptest_config(config())]

    /// Callees without `order = K` iterating by reference locals that surely hold floats (`vec![x[0], ..]`,
    /// `Vec::new()` filled by `push`, `[a, b]`): their generic copies exist, and the caller's Hessian
    /// matches central differences of its gradient, which matches central differences of the primal.
    #[test]
    fn callees_iterating_locals_of_floats(x in prop::collection::vec(-1.5f64..1.5, 2)) {
        let (value, gradient, h) = through_local_floats_hessian(&x);
        prop_assert_eq!(value, through_local_floats(&x));
        assert_close(value, local_floats_by_hand(&x), 1e-12, "value by hand");
        common::assert_fd_gradient(local_floats_by_hand, &x, &gradient, "gradient");
        for i in 0..2 {
            let column = common::hessian_column(|y| through_local_floats_grad(y).1, &x, i);
            for (row, want) in h.iter().zip(&column) {
                assert_close(row[i], *want, 1e-5, "H against central differences");
            }
        }
    }
}

// ---- f64 callees binding the rows of a matrix parameter by reference ----

/// `Σ_i Σ_j m_ij² w_i` with the rows bound by `for (i, row) in m.iter().enumerate()` and their floats by
/// `for v in row.iter()`.
#[differentiable]
fn weighted_row_squares(m: &[Vec<f64>], w: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, row) in m.iter().enumerate() {
        for v in row.iter() {
            s += v * v * w[i];
        }
    }
    s
}

/// `Σ_i sin(Σ_j m_ij)` as an iterator chain over the rows.
#[differentiable]
fn row_sum_sines(m: &[Vec<f64>]) -> f64 {
    m.iter().map(|row| row.iter().sum::<f64>().sin()).sum()
}

#[differentiable(order = 2)]
fn through_matrix_rows(m: &[Vec<f64>], w: &[f64]) -> f64 {
    weighted_row_squares(m, w) + row_sum_sines(m) * w[0]
}

/// `through_matrix_rows` of the flattened inputs `(m00, m01, m10, m11, w0, w1)`, by hand.
fn matrix_rows_by_hand(x: &[f64]) -> f64 {
    let m = [[x[0], x[1]], [x[2], x[3]]];
    let w = [x[4], x[5]];
    let squares: f64 = (0..2)
        .map(|i| (m[i][0] * m[i][0] + m[i][1] * m[i][1]) * w[i])
        .sum();
    let sines: f64 = (0..2).map(|i| (m[i][0] + m[i][1]).sin()).sum();
    squares + sines * w[0]
}

proptest! {
    #![proptest_config(config())]

    /// Callees without `order = K` iterating the rows of a matrix parameter by reference (`for row in
    /// m.iter()`, `m.iter().map(|row| ..)`): their generic copies exist, and the caller's Hessian matches
    /// central differences of its gradient, which matches central differences of the primal.
    #[test]
    fn callees_iterating_matrix_rows(x in prop::collection::vec(-1.5f64..1.5, 6)) {
        let m = vec![vec![x[0], x[1]], vec![x[2], x[3]]];
        let (value, (gm, gw), h) = through_matrix_rows_hessian(&m, &x[4..]);
        prop_assert_eq!(value, through_matrix_rows(&m, &x[4..]));
        assert_close(value, matrix_rows_by_hand(&x), 1e-12, "value by hand");
        let gradient = [gm.concat(), gw].concat();
        common::assert_fd_gradient(matrix_rows_by_hand, &x, &gradient, "gradient");
        let grad = |y: &[f64]| {
            let m = vec![vec![y[0], y[1]], vec![y[2], y[3]]];
            let (_, (gm, gw)) = through_matrix_rows_grad(&m, &y[4..]);
            [gm.concat(), gw].concat()
        };
        for i in 0..6 {
            let column = common::hessian_column(grad, &x, i);
            for (row, want) in h.iter().zip(&column) {
                assert_close(row[i], *want, 1e-5, "H against central differences");
            }
        }
    }
}

// ---- callees without `order = K` that declare items or name integer constants ----

/// A callee with `const` items of the float type, an array of it and an integer type (a constant array is
/// read by index: a differentiable body does not iterate one).
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn with_constants(x: f64) -> f64 {
    const K: f64 = 2.0;
    const W: [f64; 2] = [1.0, 3.0];
    const N: usize = 2;
    let mut s = 0.0;
    for i in 0..N {
        s += W[i] * x * x;
    }
    x * K + s
}

/// A callee nesting a `fn` that nests another.
#[differentiable]
fn with_nested_fns(acc: f64, v: f64) -> f64 {
    fn pow4(t: f64) -> f64 {
        fn cube(u: f64) -> f64 {
            u * u * u
        }
        t * cube(t)
    }
    acc * pow4(v)
}

/// A callee matching a range pattern bounded by an integer type's constant.
#[differentiable]
fn with_integer_constant(x: f64, k: i32) -> f64 {
    match k {
        i32::MIN..=0 => x,
        _ => x * x * x,
    }
}

/// A callee importing a constant of `f64::consts` in its body.
#[differentiable]
fn with_imported_constant(x: f64) -> f64 {
    use std::f64::consts::PI;
    (x * PI).sin()
}

#[differentiable(order = 3)]
fn through_items(x: f64, k: i32) -> f64 {
    with_constants(x)
        + with_nested_fns(x, x)
        + with_integer_constant(x, k)
        + with_imported_constant(x)
}

/// The first three derivatives of `through_items`: `2x + 4x² + x⁵ + (x or x³) + sin(πx)`.
fn through_items_by_hand(x: f64, k: i32) -> [f64; 4] {
    use std::f64::consts::PI;
    let (s, c) = (PI * x).sin_cos();
    let odd = if k <= 0 {
        [x, 1.0, 0.0, 0.0]
    } else {
        [x * x * x, 3.0 * x * x, 6.0 * x, 6.0]
    };
    [
        2.0 * x + 4.0 * x * x + x.powi(5) + odd[0] + s,
        2.0 + 8.0 * x + 5.0 * x.powi(4) + odd[1] + PI * c,
        8.0 + 20.0 * x.powi(3) + odd[2] - PI * PI * s,
        60.0 * x * x + odd[3] - PI * PI * PI * c,
    ]
}

proptest! {
    #![proptest_config(config())]

    /// `order = K` through `f64` callees without it whose bodies hold `const` items, nested `fn`s, a
    /// `use` of `f64::consts` or `i32::MIN`: their generic copies exist.
    #[test]
    fn callees_declaring_items(x in -1.5f64..1.5, k in -1..2i32) {
        let derivatives = through_items_derivatives(x, k);
        let want = through_items_by_hand(x, k);
        assert_close(through_items(x, k), want[0], 1e-12, "value");
        for (i, (got, want)) in derivatives.iter().zip(&want).enumerate() {
            assert_close(*got, *want, 1e-10, &format!("derivative {i}"));
        }
        let (_, _, h) = through_items_hessian(x, k);
        assert_close(h[0][0], want[2], 1e-10, "hessian");
        let fd = central_difference(|v| through_items_grad(v, k).1, x);
        assert_close(h[0][0], fd, 1e-6, "hessian against central differences of the gradient");
    }
}

/// Plain helpers called with integer arguments alone (`log_factorial(k)`, `two()`): their results are
/// constants. At `order = 2` the generic copy kept such a call as written, an `f64` among `__S`s (rustc's
/// E0308 in the generated code), and a first-order function calling one had no generic copy for an
/// `order = 2` caller (E0277 "has no generic copy").
mod integer_helpers {
    use autodiff::differentiable;

    /// A plain function of an integer.
    pub fn log_factorial(k: u32) -> f64 {
        (2..=k).map(|j| f64::from(j).ln()).sum()
    }

    /// A plain function of nothing.
    pub fn two() -> f64 {
        2.0
    }

    /// A Poisson term, `e^x - k x + ln k!`.
    #[differentiable(order = 2)]
    pub fn poisson_term(x: f64, k: u32) -> f64 {
        x.exp() - k as f64 * x + log_factorial(k)
    }

    #[differentiable(order = 3)]
    pub fn doubled_cube(x: f64) -> f64 {
        x.powi(3) * two()
    }

    /// A first-order function calling one, and passing an integer slice on.
    #[differentiable]
    pub fn weighted_squares(x: &[f64], ks: &[u32]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i] * log_factorial(ks[i]);
        }
        s
    }

    /// Its `order = 2` caller, passing the integer slice on (its `_jvp` passed the slice a tangent of
    /// `zeros_like`, a `Vec<u32>` where the callee's slot is `()`: rustc's E0277 `(): From<Vec<u32>>`).
    #[differentiable(order = 2)]
    pub fn weighted_twice(x: &[f64], ks: &[u32]) -> f64 {
        weighted_squares(x, ks) * x[0]
    }

    /// The same at first order only.
    #[differentiable]
    pub fn weighted_plus(x: &[f64], ks: &[u32]) -> f64 {
        weighted_squares(x, ks) + x[1]
    }
}

#[test]
fn plain_helpers_of_integers_at_order_2() {
    use integer_helpers::*;
    for k in [0u32, 1, 3, 7] {
        for x in [-1.5, -0.2, 0.4, 1.3] {
            let (v, g, h) = poisson_term_hessian(x, k);
            let lf = log_factorial(k);
            assert_eq!(v, poisson_term(x, k));
            assert_close(v, x.exp() - f64::from(k) * x + lf, 1e-14, "poisson_term");
            assert_close(g, x.exp() - f64::from(k), 1e-14, "poisson_term'");
            assert_close(h[0][0], x.exp(), 1e-14, "poisson_term''");
            let d = central_difference(|x| poisson_term_grad(x, k).1, x);
            assert_close(h[0][0], d, 1e-6, "poisson_term'' by differences");
        }
    }
    for x in [-1.5, 0.4, 2.0] {
        let d = doubled_cube_derivatives(x);
        assert_eq!(d[0], doubled_cube(x));
        let expected = [2.0 * x * x * x, 6.0 * x * x, 12.0 * x, 12.0];
        for (a, e) in d.iter().zip(expected) {
            assert_close(*a, e, 1e-13, "doubled_cube_derivatives");
        }
    }
    let ks = [2u32, 3, 4];
    let w: Vec<f64> = ks.iter().map(|&k| log_factorial(k)).collect();
    for x in [[0.5, -1.0, 2.0], [-1.2, 0.3, 0.8]] {
        // f = (sum w_i x_i²) x0.
        let q: f64 = (0..3).map(|i| w[i] * x[i] * x[i]).sum();
        let (v, g, h) = weighted_twice_hessian(&x, &ks);
        assert_eq!(v, weighted_twice(&x, &ks));
        assert_close(v, q * x[0], 1e-14, "weighted_twice");
        let mut eg = [0.0; 3];
        let mut eh = [[0.0; 3]; 3];
        for i in 0..3 {
            eg[i] = 2.0 * w[i] * x[i] * x[0];
            eh[i][i] = 2.0 * w[i] * x[0];
            eh[i][0] += 2.0 * w[i] * x[i];
            eh[0][i] += 2.0 * w[i] * x[i];
        }
        eg[0] += q;
        for i in 0..3 {
            assert_close(g[i], eg[i], 1e-13, "weighted_twice gradient");
            for j in 0..3 {
                assert_close(h[i][j], eh[i][j], 1e-13, "weighted_twice Hessian");
            }
        }
        let t = vec![0.3, -0.7, 1.1];
        let dot = |g: &[f64]| g.iter().zip(&t).map(|(a, b)| a * b).sum::<f64>();
        let (_, jt) = weighted_twice_jvp(&x, &ks, t.clone());
        assert_close(jt, dot(&g), 1e-13, "weighted_twice_jvp");
        let (_, gp) = weighted_plus_grad(&x, &ks);
        let (vp, jt) = weighted_plus_jvp(&x, &ks, t.clone());
        assert_eq!(vp, weighted_plus(&x, &ks));
        assert_close(vp, q + x[1], 1e-14, "weighted_plus");
        assert_close(jt, dot(&gp), 1e-13, "weighted_plus_jvp");
        assert_close(
            gp[1],
            2.0 * w[1] * x[1] + 1.0,
            1e-14,
            "weighted_plus gradient",
        );
    }
}
