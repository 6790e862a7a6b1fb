//! `order = 2` on functions written for `f64` that call other `f64` functions which themselves call
//! others: the generic copies chain through the call tree (`autodiff-macros/src/shadow.rs`), in one
//! module, across modules, across crates (`tests/adlib`), through a custom gradient, through mutual
//! recursion and through registered gradients of outside functions. Each Hessian is checked against the
//! analytic second derivatives and against central differences of the function's own `_grad`, at many
//! random points.

mod common;

use autodiff::{custom_gradient, differentiable, gradient_of};
use common::{assert_all_close, assert_close, config, fd_jacobian};
use proptest::prelude::*;

/// The tolerance of a Hessian against central differences of the gradient.
const FD_HESSIAN_TOL: f64 = 1e-6;

/// The tolerance of a Hessian against its analytic formula (both exact up to rounding).
const ANALYTIC_TOL: f64 = 1e-9;

/// `hessian` equals `analytic` and the central differences of `grad` at `x`, entry by entry.
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
            assert_close(hessian[i][j], analytic[i][j], ANALYTIC_TOL, &at);
            assert_close(hessian[i][j], fd[i][j], FD_HESSIAN_TOL, &at);
        }
    }
}

// ---- a chain of three functions in one module ----

/// `u sin u`: a leaf.
#[differentiable]
fn wobble(u: f64) -> f64 {
    u * u.sin()
}

/// `wobble(x y) + e^y`: calls the leaf, and is called by `chained`.
#[differentiable]
fn middle(x: f64, y: f64) -> f64 {
    wobble(x * y) + y.exp()
}

/// `x middle(x, y) + wobble(y)`.
#[differentiable(order = 2)]
fn chained(x: f64, y: f64) -> f64 {
    x * middle(x, y) + wobble(y)
}

/// `g(u) = u sin u` and its first two derivatives.
fn wobble_derivatives(u: f64) -> (f64, f64, f64) {
    (
        u * u.sin(),
        u.sin() + u * u.cos(),
        2.0 * u.cos() - u * u.sin(),
    )
}

/// The Hessian of `chained` by hand.
fn chained_expected(x: f64, y: f64) -> Vec<Vec<f64>> {
    let (_, g1, g2) = wobble_derivatives(x * y);
    let e = y.exp();
    let (m_x, m_y) = (y * g1, x * g1 + e);
    let (m_xx, m_xy, m_yy) = (y * y * g2, g1 + x * y * g2, x * x * g2 + e);
    let (_, _, gy2) = wobble_derivatives(y);
    vec![
        vec![2.0 * m_x + x * m_xx, m_y + x * m_xy],
        vec![m_y + x * m_xy, x * m_yy + gy2],
    ]
}

// ---- across modules: imported by `use`, and by a path ----

mod geometry {
    use autodiff::differentiable;

    /// `x²`.
    #[differentiable]
    pub fn square(x: f64) -> f64 {
        x * x
    }

    /// `x² + y² + x y`, through `square` (a call by name inside the module).
    #[differentiable]
    pub fn quadric(x: f64, y: f64) -> f64 {
        square(x) + square(y) + x * y
    }
}

use geometry::quadric;

/// `quadric(x, y)^(3/2)`, the callee imported by `use`.
#[differentiable(order = 2)]
fn imported(x: f64, y: f64) -> f64 {
    quadric(x, y).powf(1.5)
}

/// `ln(1 + quadric(x, y))`, the callee by its path.
#[differentiable(order = 2)]
fn by_path(x: f64, y: f64) -> f64 {
    (1.0 + geometry::quadric(x, y)).ln()
}

/// The value, gradient and Hessian of `q(x, y) = x² + y² + x y`.
fn quadric_parts(x: f64, y: f64) -> (f64, [f64; 2], [[f64; 2]; 2]) {
    (
        x * x + y * y + x * y,
        [2.0 * x + y, 2.0 * y + x],
        [[2.0, 1.0], [1.0, 2.0]],
    )
}

/// The Hessian of `h(q(x, y))` by the chain rule, from `h'` and `h''` at `q`.
fn outer_hessian(x: f64, y: f64, h: impl Fn(f64) -> (f64, f64)) -> Vec<Vec<f64>> {
    let (q, dq, ddq) = quadric_parts(x, y);
    let (h1, h2) = h(q);
    (0..2)
        .map(|i| {
            (0..2)
                .map(|j| h2 * dq[i] * dq[j] + h1 * ddq[i][j])
                .collect()
        })
        .collect()
}

// ---- across crates: `adlib::smooth_abs` → `adlib::softplus` → `adlib::log1pexp` (custom) ----

/// `smooth_abs(x, β) · y`.
#[differentiable(order = 2)]
fn across_crates(x: f64, beta: f64, y: f64) -> f64 {
    adlib::smooth_abs(x, beta) * y
}

fn sigmoid(t: f64) -> f64 {
    1.0 / (1.0 + (-t).exp())
}

/// The Hessian of `across_crates` by hand: `s(x, β) = ln(1 + e^(βx)) / β`, `a = s(x, β) + s(-x, β)`.
fn across_crates_expected(x: f64, beta: f64, y: f64) -> Vec<Vec<f64>> {
    // Derivatives of `s(x, β)` in `x` and `β`, for either sign of `x`.
    let parts = |x: f64| {
        let t = beta * x;
        let (sp, sg) = ((1.0 + t.exp()).ln(), sigmoid(t));
        let s_x = sg;
        let s_b = x * sg / beta - sp / (beta * beta);
        let s_xx = beta * sg * (1.0 - sg);
        let s_xb = x * sg * (1.0 - sg);
        let s_bb = x * x * sg * (1.0 - sg) / beta - 2.0 * x * sg / (beta * beta)
            + 2.0 * sp / (beta * beta * beta);
        (s_x, s_b, s_xx, s_xb, s_bb)
    };
    let (p, m) = (parts(x), parts(-x));
    let (a_x, a_b) = (p.0 - m.0, p.1 + m.1);
    let (a_xx, a_xb, a_bb) = (p.2 + m.2, p.3 - m.3, p.4 + m.4);
    vec![
        vec![y * a_xx, y * a_xb, a_x],
        vec![y * a_xb, y * a_bb, a_b],
        vec![a_x, a_b, 0.0],
    ]
}

// ---- through a custom gradient called by a function that calls others ----

/// `ln(1 + eˣ)` with its gradient by hand.
#[custom_gradient]
fn soft(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let s = 1.0 / (1.0 + (-x).exp());
    ((1.0 + x.exp()).ln(), move |dy| dy * s)
}

/// `soft(x y) + x`: not a leaf.
#[differentiable]
fn soft_layer(x: f64, y: f64) -> f64 {
    soft(x * y) + x
}

/// `soft_layer(x, y)²`.
#[differentiable(order = 2)]
fn through_custom(x: f64, y: f64) -> f64 {
    let l = soft_layer(x, y);
    l * l
}

/// The Hessian of `through_custom` by hand.
fn through_custom_expected(x: f64, y: f64) -> Vec<Vec<f64>> {
    let t = x * y;
    let (sp, sg) = ((1.0 + t.exp()).ln(), sigmoid(t));
    let d = sg * (1.0 - sg);
    let l = sp + x;
    let (l_x, l_y) = (y * sg + 1.0, x * sg);
    let (l_xx, l_xy, l_yy) = (y * y * d, sg + x * y * d, x * x * d);
    vec![
        vec![2.0 * (l_x * l_x + l * l_xx), 2.0 * (l_x * l_y + l * l_xy)],
        vec![2.0 * (l_x * l_y + l * l_xy), 2.0 * (l_y * l_y + l * l_yy)],
    ]
}

// ---- mutual recursion: each calls the other's generic copy ----

/// `even(x, 0) = x`, `even(x, n) = odd(2x, n - 1)`.
#[differentiable]
fn even(x: f64, n: usize) -> f64 {
    if n == 0 {
        x
    } else {
        odd(x * 2.0, n - 1)
    }
}

/// `odd(x, 0) = sin x`, `odd(x, n) = even(x + 1, n - 1)`.
#[differentiable]
fn odd(x: f64, n: usize) -> f64 {
    if n == 0 {
        x.sin()
    } else {
        even(x + 1.0, n - 1)
    }
}

/// `even(x y, 3) · odd(y, 2)` = `sin(4 x y + 2) · sin(2 y + 2)`.
#[differentiable(order = 2)]
fn parity(x: f64, y: f64) -> f64 {
    even(x * y, 3) * odd(y, 2)
}

/// The Hessian of `parity` by hand.
fn parity_expected(x: f64, y: f64) -> Vec<Vec<f64>> {
    let (a, b) = (4.0 * x * y + 2.0, 2.0 * y + 2.0);
    let (sa, ca, sb, cb) = (a.sin(), a.cos(), b.sin(), b.cos());
    let h_xx = -16.0 * y * y * sa * sb;
    let h_xy = (4.0 * ca - 16.0 * x * y * sa) * sb + 4.0 * y * ca * 2.0 * cb;
    let h_yy = -16.0 * x * x * sa * sb + 2.0 * (4.0 * x * ca) * (2.0 * cb) - 4.0 * sa * sb;
    vec![vec![h_xx, h_xy], vec![h_xy, h_yy]]
}

// ---- registered gradients of outside functions written for `f64` ----

mod special {
    /// The logistic function, outside the crate's differentiable code.
    pub fn logistic(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }
}

use libm::erf;
use special::logistic;

#[gradient_of(special::logistic)]
fn logistic_vjp(x: f64, dy: f64) -> f64 {
    let s = 1.0 / (1.0 + (-x).exp());
    dy * s * (1.0 - s)
}

#[gradient_of(libm::erf)]
fn erf_vjp(x: f64, dy: f64) -> f64 {
    dy * 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp()
}

/// `logistic(w x) · w`: calls the registered function, and is called by `registered_below`.
#[differentiable]
fn gate(x: f64, w: f64) -> f64 {
    logistic(w * x) * w
}

/// `gate(x, w)²`.
#[differentiable(order = 2)]
fn registered_below(x: f64, w: f64) -> f64 {
    let g = gate(x, w);
    g * g
}

/// The Hessian of `registered_below` by hand.
fn registered_below_expected(x: f64, w: f64) -> Vec<Vec<f64>> {
    let s = sigmoid(w * x);
    let (d1, d2) = (s * (1.0 - s), s * (1.0 - s) * (1.0 - 2.0 * s));
    let g = s * w;
    let (g_x, g_w) = (w * w * d1, s + w * x * d1);
    let g_xx = w * w * w * d2;
    let g_xw = 2.0 * w * d1 + w * w * x * d2;
    let g_ww = 2.0 * x * d1 + w * x * x * d2;
    vec![
        vec![2.0 * (g_x * g_x + g * g_xx), 2.0 * (g_x * g_w + g * g_xw)],
        vec![2.0 * (g_x * g_w + g * g_xw), 2.0 * (g_w * g_w + g * g_ww)],
    ]
}

/// The standard normal distribution function, through `libm::erf`.
#[differentiable(order = 3)]
fn normal_cdf(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// `erf(x)²`, whose third derivative needs the value of `erf` on nested dual numbers to second order.
#[differentiable(order = 3)]
fn erf_squared(x: f64) -> f64 {
    let e = erf(x);
    e * e
}

/// `erf` itself to the fourth derivative, whose value on nested dual numbers needs the Taylor series of
/// `erf` to the third order.
#[differentiable(order = 4)]
fn erf_fourth(x: f64) -> f64 {
    erf(x)
}

/// The same functions called by their paths (`libm::erf`, `special::logistic`), which the generic copy
/// reaches as the first-order derivative does: through what `derivative_of!` finds at the path, the
/// registration in scope. `erf(x) · logistic(x y)`.
#[differentiable(order = 2)]
fn registered_by_paths(x: f64, y: f64) -> f64 {
    libm::erf(x) * self::special::logistic(x * y)
}

/// The Hessian of `registered_by_paths` by hand.
fn registered_by_paths_expected(x: f64, y: f64) -> Vec<Vec<f64>> {
    let e1 = 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp();
    let (e, e2) = (erf(x), -2.0 * x * e1);
    let s = sigmoid(x * y);
    let (d1, d2) = (s * (1.0 - s), s * (1.0 - s) * (1.0 - 2.0 * s));
    // l = logistic(x y): l_x = y d1, l_y = x d1, l_xx = y² d2, l_xy = d1 + x y d2, l_yy = x² d2.
    let (l_x, l_y) = (y * d1, x * d1);
    let (l_xx, l_xy, l_yy) = (y * y * d2, d1 + x * y * d2, x * x * d2);
    vec![
        vec![e2 * s + 2.0 * e1 * l_x + e * l_xx, e1 * l_y + e * l_xy],
        vec![e1 * l_y + e * l_xy, e * l_yy],
    ]
}

// ---- callees written with iterator chains and `push`, without `order = K` ----

/// `Σ v²` as an iterator chain: its generic copy is made from the chain rewritten into a loop that takes
/// each float out of its reference.
#[differentiable]
fn chain_sumsq(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

/// The squares, into a `Vec` filled by `push`.
#[differentiable]
fn pushed_squares(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        out.push(v * v);
    }
    out
}

/// `ln(Σ xᵢ²) + Σ xᵢ⁴`, through both.
#[differentiable(order = 2)]
fn through_chains(x: &[f64]) -> f64 {
    let squares = pushed_squares(x);
    let mut fourth = 0.0;
    for &q in &squares {
        fourth += q * q;
    }
    chain_sumsq(x).ln() + fourth
}

/// The Hessian of `through_chains` by hand: `2δᵢⱼ/s - 4xᵢxⱼ/s² + 12xᵢ²δᵢⱼ`, `s = Σ x²`.
fn through_chains_expected(x: &[f64]) -> Vec<Vec<f64>> {
    let s: f64 = x.iter().map(|v| v * v).sum();
    (0..x.len())
        .map(|i| {
            (0..x.len())
                .map(|j| {
                    let diagonal = if i == j {
                        2.0 / s + 12.0 * x[i] * x[i]
                    } else {
                        0.0
                    };
                    diagonal - 4.0 * x[i] * x[j] / (s * s)
                })
                .collect()
        })
        .collect()
}

/// `a x` with its true gradient, written with iterator chains in the body and the closure: its generic
/// copy is made from the chains rewritten into loops.
#[custom_gradient]
fn scaled_by(x: &[f64], a: f64) -> (Vec<f64>, impl Fn(Vec<f64>) -> (Vec<f64>, f64)) {
    let xs = x.to_vec();
    let out: Vec<f64> = x.iter().map(|v| a * v).collect();
    (out, move |dy: Vec<f64>| {
        (
            dy.iter().map(|d| d * a).collect(),
            dy.iter().zip(&xs).map(|(d, v)| d * v).sum(),
        )
    })
}

/// `Σ (a xᵢ)²`, through the custom gradient.
#[differentiable(order = 2)]
fn scaled_squares(x: &[f64], a: f64) -> f64 {
    let y = scaled_by(x, a);
    let mut s = 0.0;
    for &v in &y {
        s += v * v;
    }
    s
}

/// The Hessian of `scaled_squares` over `(x₀, .., a)`: `2a²δᵢⱼ`, `4a xᵢ`, `2 Σ x²`.
fn scaled_squares_expected(x: &[f64], a: f64) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n + 1]; n + 1];
    for i in 0..n {
        h[i][i] = 2.0 * a * a;
        h[i][n] = 4.0 * a * x[i];
        h[n][i] = 4.0 * a * x[i];
    }
    h[n][n] = 2.0 * x.iter().map(|v| v * v).sum::<f64>();
    h
}

/// `a · b`, an outside function of slices.
mod plain {
    pub fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(a, b)| a * b).sum()
    }
}

use plain::dot;

/// Its gradient, written with iterator chains: the registration's generic copy runs it on dual numbers.
#[gradient_of(plain::dot)]
fn dot_vjp(a: &[f64], b: &[f64], dy: f64) -> (Vec<f64>, Vec<f64>) {
    (
        b.iter().map(|v| v * dy).collect(),
        a.iter().map(|v| v * dy).collect(),
    )
}

/// `sin(a · b) + a · a`, through the registered function of slices.
#[differentiable(order = 2)]
fn dot_energy(a: &[f64], b: &[f64]) -> f64 {
    dot(a, b).sin() + dot(a, a)
}

/// The Hessian of `dot_energy` over `(a, b)` by hand: with `s = a · b`,
/// `H_aa = -sin s b bᵀ + 2I`, `H_ab = -sin s b aᵀ + cos s I`, `H_bb = -sin s a aᵀ`.
fn dot_energy_expected(a: &[f64], b: &[f64]) -> Vec<Vec<f64>> {
    let n = a.len();
    let s: f64 = a.iter().zip(b).map(|(a, b)| a * b).sum();
    let mut h = vec![vec![0.0; 2 * n]; 2 * n];
    for i in 0..n {
        for j in 0..n {
            let delta = if i == j { 1.0 } else { 0.0 };
            h[i][j] = -s.sin() * b[i] * b[j] + 2.0 * delta;
            h[i][n + j] = -s.sin() * b[i] * a[j] + s.cos() * delta;
            h[n + j][i] = h[i][n + j];
            h[n + i][n + j] = -s.sin() * a[i] * a[j];
        }
    }
    h
}

/// Outside functions whose registered gradients call them: `exp` and `hypot`.
mod growth {
    pub fn expm(x: f64) -> f64 {
        x.exp()
    }
}

#[gradient_of(growth::expm)]
fn expm_vjp(x: f64, dy: f64) -> f64 {
    dy * growth::expm(x)
}

#[gradient_of(libm::hypot)]
fn hypot_vjp(x: f64, y: f64, dy: f64) -> (f64, f64) {
    let h = libm::hypot(x, y);
    (dy * x / h, dy * y / h)
}

/// `exp(x y) + hypot(x, y)`, through two registrations whose gradients call their functions.
#[differentiable(order = 2)]
fn self_referencing(x: f64, y: f64) -> f64 {
    growth::expm(x * y) + libm::hypot(x, y)
}

/// The Hessian of `self_referencing` by hand.
fn self_referencing_expected(x: f64, y: f64) -> Vec<Vec<f64>> {
    let e = (x * y).exp();
    let h = (x * x + y * y).sqrt();
    let h3 = h * h * h;
    vec![
        vec![y * y * e + y * y / h3, (1.0 + x * y) * e - x * y / h3],
        vec![(1.0 + x * y) * e - x * y / h3, x * x * e + x * x / h3],
    ]
}

/// `exp` alone, whose `f_derivatives` of order 3 runs on nested dual numbers.
#[differentiable(order = 3)]
fn expm_only(x: f64) -> f64 {
    growth::expm(x)
}

/// Outside functions with integer parameters beside their floats (as `libm::jn(n, x)`).
mod integer_params {
    /// `xᵏ · y`.
    pub fn scaled_power(x: f64, k: i32, y: f64) -> f64 {
        x.powi(k) * y
    }

    /// `sin(n x)`, the integer first.
    pub fn harmonic(n: usize, x: f64) -> f64 {
        (n as f64 * x).sin()
    }
}

#[gradient_of(integer_params::scaled_power)]
fn scaled_power_vjp(x: f64, k: i32, y: f64, dy: f64) -> (f64, f64) {
    (dy * f64::from(k) * x.powi(k - 1) * y, dy * x.powi(k))
}

#[gradient_of(integer_params::harmonic)]
fn harmonic_vjp(n: usize, x: f64, dy: f64) -> f64 {
    dy * n as f64 * (n as f64 * x).cos()
}

/// `x³ y + sin(2 x y)`, through registrations whose functions take integers (data, passed on as they are).
#[differentiable(order = 3)]
fn with_integer_params(x: f64, y: f64) -> f64 {
    integer_params::scaled_power(x, 3, y) + integer_params::harmonic(2, x * y)
}

/// The Hessian of `with_integer_params` by hand.
fn with_integer_params_expected(x: f64, y: f64) -> Vec<Vec<f64>> {
    let (s, c) = ((2.0 * x * y).sin(), (2.0 * x * y).cos());
    vec![
        vec![
            6.0 * x * y - 4.0 * y * y * s,
            3.0 * x * x + 2.0 * c - 4.0 * x * y * s,
        ],
        vec![3.0 * x * x + 2.0 * c - 4.0 * x * y * s, -4.0 * x * x * s],
    ]
}

#[test]
fn a_gradient_that_calls_its_function_is_exact_at_every_order() {
    let (value, gradient, hessian) = expm_only_hessian(0.3);
    assert_eq!(expm_only(0.3), 0.3f64.exp());
    assert_close(value, 0.3f64.exp(), 1e-15, "value");
    assert_close(gradient, 0.3f64.exp(), 1e-15, "gradient");
    assert_close(hessian[0][0], 0.3f64.exp(), 1e-15, "hessian");
    // On nested dual numbers the value takes its slope from the gradient's copy, whose own call of
    // `expm` runs with one order less (autodiff-core's `taylor.rs`): exact to the third derivative.
    for x in [-1.25_f64, 0.3, 2.0] {
        let d = expm_only_derivatives(x);
        assert_all_close(&d, &[x.exp(); 4], 1e-14, "expm derivatives");
    }
}

/// erf⁽ⁿ⁾(x) = (2/√π) (-1)ⁿ⁻¹ Hₙ₋₁(x) e^{-x²} (Hermite polynomials).
#[test]
fn registered_beyond_the_third_derivative() {
    assert_eq!(erf_fourth(0.3), erf(0.3));
    for x in [-1.5_f64, -0.2, 0.3, 1.75] {
        let g = 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp();
        let expected = [
            erf(x),
            g,
            -2.0 * x * g,
            (4.0 * x * x - 2.0) * g,
            -(8.0 * x * x * x - 12.0 * x) * g,
        ];
        assert_all_close(
            &erf_fourth_derivatives(x),
            &expected,
            1e-13,
            "erf derivatives",
        );
    }
}

fn coordinate() -> impl Strategy<Value = f64> {
    -2.0..2.0f64
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_chain_of_three_functions(x in coordinate(), y in coordinate()) {
        let (value, gradient, hessian) = chained_hessian(x, y);
        assert_close(value, chained(x, y), 1e-12, "value");
        let (_, g) = chained_grad(x, y);
        assert_close(gradient.0, g.0, 1e-12, "gradient");
        assert_close(gradient.1, g.1, 1e-12, "gradient");
        check_hessian(&hessian, &chained_expected(x, y), |p| {
            let (_, g) = chained_grad(p[0], p[1]);
            vec![g.0, g.1]
        }, &[x, y], "chained");
        // `f_hvp` along a direction is the Hessian times it.
        let (_, _, hv) = chained_hvp(x, y, (0.5, -1.5));
        let h = chained_expected(x, y);
        assert_close(hv.0, h[0][0] * 0.5 - h[0][1] * 1.5, ANALYTIC_TOL, "hvp");
        assert_close(hv.1, h[1][0] * 0.5 - h[1][1] * 1.5, ANALYTIC_TOL, "hvp");
    }

    #[test]
    fn registered_functions_with_integer_parameters(x in coordinate(), y in coordinate()) {
        let (value, _, hessian) = with_integer_params_hessian(x, y);
        assert_close(value, with_integer_params(x, y), 1e-12, "value");
        check_hessian(&hessian, &with_integer_params_expected(x, y), |p| {
            let (_, g) = with_integer_params_grad(p[0], p[1]);
            vec![g.0, g.1]
        }, &[x, y], "with_integer_params");
    }

    #[test]
    fn across_modules(x in coordinate(), y in coordinate()) {
        let (value, _, hessian) = imported_hessian(x, y);
        assert_close(value, imported(x, y), 1e-12, "value");
        assert_close(value, quadric_parts(x, y).0.powf(1.5), 1e-12, "value");
        let analytic = outer_hessian(x, y, |q| (1.5 * q.sqrt(), 0.75 / q.sqrt()));
        check_hessian(&hessian, &analytic, |p| {
            let (_, g) = imported_grad(p[0], p[1]);
            vec![g.0, g.1]
        }, &[x, y], "imported");
        let (value, _, hessian) = by_path_hessian(x, y);
        assert_close(value, by_path(x, y), 1e-12, "value");
        let analytic = outer_hessian(x, y, |q| (1.0 / (1.0 + q), -1.0 / ((1.0 + q) * (1.0 + q))));
        check_hessian(&hessian, &analytic, |p| {
            let (_, g) = by_path_grad(p[0], p[1]);
            vec![g.0, g.1]
        }, &[x, y], "by_path");
    }

    #[test]
    fn across_crates_through_a_custom_gradient(
        x in coordinate(),
        beta in 0.5..3.0f64,
        y in coordinate(),
    ) {
        let (value, _, hessian) = across_crates_hessian(x, beta, y);
        assert_close(value, across_crates(x, beta, y), 1e-12, "value");
        check_hessian(&hessian, &across_crates_expected(x, beta, y), |p| {
            let (_, g) = across_crates_grad(p[0], p[1], p[2]);
            vec![g.0, g.1, g.2]
        }, &[x, beta, y], "across_crates");
    }

    #[test]
    fn a_custom_gradient_below_a_function_that_calls_it(x in coordinate(), y in coordinate()) {
        let (value, _, hessian) = through_custom_hessian(x, y);
        assert_close(value, through_custom(x, y), 1e-12, "value");
        check_hessian(&hessian, &through_custom_expected(x, y), |p| {
            let (_, g) = through_custom_grad(p[0], p[1]);
            vec![g.0, g.1]
        }, &[x, y], "through_custom");
    }

    #[test]
    fn mutual_recursion(x in coordinate(), y in coordinate()) {
        let (value, _, hessian) = parity_hessian(x, y);
        assert_close(value, parity(x, y), 1e-12, "value");
        assert_close(value, (4.0 * x * y + 2.0).sin() * (2.0 * y + 2.0).sin(), 1e-12, "value");
        check_hessian(&hessian, &parity_expected(x, y), |p| {
            let (_, g) = parity_grad(p[0], p[1]);
            vec![g.0, g.1]
        }, &[x, y], "parity");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn registered_outside_functions(x in coordinate(), w in coordinate()) {
        let (value, _, hessian) = registered_below_hessian(x, w);
        assert_close(value, registered_below(x, w), 1e-12, "value");
        check_hessian(&hessian, &registered_below_expected(x, w), |p| {
            let (_, g) = registered_below_grad(p[0], p[1]);
            vec![g.0, g.1]
        }, &[x, w], "registered_below");
        // Φ'' = -x φ(x), Φ''' = (x² - 1) φ(x).
        let density = (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let [value, d1, d2, d3] = normal_cdf_derivatives(x);
        assert_close(value, normal_cdf(x), 1e-12, "value");
        assert_close(d1, density, ANALYTIC_TOL, "Φ'");
        assert_close(d2, -x * density, ANALYTIC_TOL, "Φ''");
        assert_close(d3, (x * x - 1.0) * density, ANALYTIC_TOL, "Φ'''");
        // erf' = 2/√π e^(-x²), erf'' = -2x erf', erf''' = (4x² - 2) erf'.
        let e1 = 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp();
        let (e, e2, e3) = (erf(x), -2.0 * x * e1, (4.0 * x * x - 2.0) * e1);
        let [value, d1, d2, d3] = erf_squared_derivatives(x);
        assert_close(value, erf_squared(x), 1e-12, "value");
        assert_close(d1, 2.0 * e * e1, ANALYTIC_TOL, "(erf²)'");
        assert_close(d2, 2.0 * (e1 * e1 + e * e2), ANALYTIC_TOL, "(erf²)''");
        assert_close(d3, 2.0 * (3.0 * e1 * e2 + e * e3), ANALYTIC_TOL, "(erf²)'''");
        let (_, _, hessian) = normal_cdf_hessian(x);
        let fd = fd_jacobian(|p| vec![normal_cdf_grad(p[0]).1], &[x]);
        assert_close(hessian[0][0], fd[0][0], FD_HESSIAN_TOL, "Φ'' against central differences");
    }

    #[test]
    fn calls_by_registered_paths(x in coordinate(), y in coordinate()) {
        let (value, _, hessian) = registered_by_paths_hessian(x, y);
        assert_close(value, registered_by_paths(x, y), 1e-12, "value");
        check_hessian(&hessian, &registered_by_paths_expected(x, y), |p| {
            let (_, g) = registered_by_paths_grad(p[0], p[1]);
            vec![g.0, g.1]
        }, &[x, y], "registered_by_paths");
    }

    #[test]
    fn callees_with_iterator_chains_and_push(
        x in prop::collection::vec(coordinate().prop_filter("away from 0", |v| v.abs() > 0.1), 1..5),
    ) {
        let (value, _, hessian) = through_chains_hessian(&x);
        assert_close(value, through_chains(&x), 1e-12, "value");
        check_hessian(&hessian, &through_chains_expected(&x), |p| through_chains_grad(p).1, &x, "through_chains");
    }

    #[test]
    fn custom_gradients_with_iterator_chains(
        x in prop::collection::vec(coordinate(), 1..5),
        a in coordinate(),
    ) {
        let (value, _, hessian) = scaled_squares_hessian(&x, a);
        assert_close(value, scaled_squares(&x, a), 1e-12, "value");
        let mut point = x.clone();
        point.push(a);
        check_hessian(&hessian, &scaled_squares_expected(&x, a), |p| {
            let n = p.len() - 1;
            let (_, (mut g, ga)) = scaled_squares_grad(&p[..n], p[n]);
            g.push(ga);
            g
        }, &point, "scaled_squares");
    }

    #[test]
    fn registered_functions_of_slices(
        ab in prop::collection::vec(coordinate(), 2..7).prop_filter("even", |v| v.len() % 2 == 0),
    ) {
        let n = ab.len() / 2;
        let (a, b) = ab.split_at(n);
        let (value, _, hessian) = dot_energy_hessian(a, b);
        assert_close(value, dot_energy(a, b), 1e-12, "value");
        check_hessian(&hessian, &dot_energy_expected(a, b), |p| {
            let (_, (mut ga, gb)) = dot_energy_grad(&p[..n], &p[n..]);
            ga.extend(gb);
            ga
        }, &ab, "dot_energy");
    }

    #[test]
    fn registered_gradients_that_call_their_functions(x in coordinate(), y in coordinate()) {
        prop_assume!(x.abs() + y.abs() > 0.1);
        let (value, _, hessian) = self_referencing_hessian(x, y);
        assert_close(value, self_referencing(x, y), 1e-12, "value");
        check_hessian(&hessian, &self_referencing_expected(x, y), |p| {
            let (_, g) = self_referencing_grad(p[0], p[1]);
            vec![g.0, g.1]
        }, &[x, y], "self_referencing");
    }
}
