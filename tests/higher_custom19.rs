//! Nested custom gradients at `order = K`, checked against an independent reference.
//!
//! `fuzz/order2/known.txt` lists the callers of `cube_third`, `nested_pair`, `quantised_square`,
//! `clipped_cube` (tests/higher_custom.rs) and `outer_pair` (tests/probe_higher16.rs) as Hessians that
//! differ from central differences of `f_grad` by design: their closures call another custom function,
//! whose deliberately false closure, not its forward code, differentiates its value there (API.md). This
//! file checks that claim with a reference that shares no code with the macro: the outer closure (the
//! gradient, for `dy = 1`) written by hand, generic over [`Num`], run on `Dual<f64>` (one column of the
//! Hessian per seeded input) and `Dual<Dual<f64>>` (third derivatives), where [`Num`] applies each nested
//! custom rule explicitly: the value from the nested function's forward code, the tangent the inner
//! product of its closure's cotangents for `dy = 1` with the input tangents, itself differentiated through
//! the values the closure captures.
//!
//! For a nested closure linear in its cotangent (`doubled_slope`, `tripled_product`, `rounded`,
//! `scaled_product`: every true vector-Jacobian product is), that is what `jax.grad(jax.grad(f))` gives for
//! `jax.custom_vjp` functions (worked out by hand below, `*_by_hand`). `jax.hessian` (`jacfwd` over
//! `jacrev`) raises there: `custom_vjp` precludes forward mode, and the nested call inside the backward
//! rule meets the outer `jvp` alone. For a nested closure *not* linear in its cotangent (`clipped`, a
//! clipped gradient), reverse-over-reverse feeds the nested closure the cotangent that reaches it (3 in
//! `clipped_cube`, clipped to 1: F'' = 2x), where forward over reverse, as here, takes its slope for
//! `dy = 1` (0.5: F'' = 3x), as `f_jvp` of a custom function does (API.md); the test pins the latter
//! and says so.

#![allow(clippy::type_complexity)]

mod common;

use autodiff::{custom_gradient, differentiable, Dual, Float};
use common::probe::*;

const POINTS: usize = 24;

// ---- the functions, as tests/higher_custom.rs and tests/probe_higher16.rs write them ----

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

#[differentiable(order = 3)]
fn through_nested<T: Float>(x: T) -> T {
    cube_third(x)
}

/// The product, with a closure that scales each partial by 3.
#[custom_gradient]
fn tripled_product<T: Float>(a: T, b: T) -> (T, impl Fn(T) -> (T, T)) {
    let three = T::from(3.0).unwrap();
    (a * b, move |dy: T| (three * dy * b, three * dy * a))
}

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

/// Straight-through `round`: the value rounded, the gradient 1.
#[custom_gradient]
fn rounded<T: Float>(v: T) -> (T, impl Fn(T) -> T) {
    (v.round(), |dy: T| dy)
}

#[custom_gradient]
fn quantised_square<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    let two = T::from(2.0).unwrap();
    (x * x, move |dy: T| dy * two * rounded(x))
}

#[differentiable(order = 3)]
fn through_quantised<T: Float>(x: T) -> T {
    quantised_square(x)
}

/// The identity, with the gradient `0.5 dy` clipped to [-1, 1]: not linear in `dy`.
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

/// The product, claiming d/da = 2b, d/db = a.
#[custom_gradient]
fn scaled_product<T: Float>(a: T, b: T) -> (T, impl Fn(T) -> (T, T)) {
    (a * b, move |dy: T| (dy * b * T::from(2.0).unwrap(), dy * a))
}

#[custom_gradient]
fn outer_pair<T: Float>(x: T, y: T) -> (T, impl Fn(T) -> (T, T)) {
    (x * x * y, move |dy: T| {
        (
            dy * scaled_product(x, y) * T::from(2.0).unwrap(),
            dy * x * x,
        )
    })
}

#[differentiable(order = 2)]
fn outer_pair_energy<T: Float>(x: T, y: T) -> T {
    outer_pair(x, y)
}

#[differentiable(order = 3)]
fn through_outer_pair<T: Float>(x: T) -> T {
    outer_pair(x, x * x)
}

// ---- the reference ----

/// A float on which each nested custom function is its forward code's value with its closure's slope.
trait Num: Float {
    fn lift(v: f64) -> Self;
    fn doubled_slope(self) -> Self;
    fn rounded(self) -> Self;
    fn clipped(self) -> Self;
    fn tripled_product(a: Self, b: Self) -> Self;
    fn scaled_product(a: Self, b: Self) -> Self;
}

impl Num for f64 {
    fn lift(v: f64) -> Self {
        v
    }
    fn doubled_slope(self) -> Self {
        self
    }
    fn rounded(self) -> Self {
        self.round()
    }
    fn clipped(self) -> Self {
        self
    }
    fn tripled_product(a: Self, b: Self) -> Self {
        a * b
    }
    fn scaled_product(a: Self, b: Self) -> Self {
        a * b
    }
}

impl<T: Num> Num for Dual<T> {
    fn lift(v: f64) -> Self {
        Dual::new(T::lift(v), T::zero())
    }
    fn doubled_slope(self) -> Self {
        Dual::new(self.re.doubled_slope(), self.eps * T::lift(2.0))
    }
    fn rounded(self) -> Self {
        Dual::new(self.re.rounded(), self.eps)
    }
    /// The closure for `dy = 1`: 0.5 clipped to [-1, 1].
    fn clipped(self) -> Self {
        Dual::new(self.re.clipped(), self.eps * T::lift(0.5))
    }
    fn tripled_product(a: Self, b: Self) -> Self {
        let three = T::lift(3.0);
        Dual::new(
            T::tripled_product(a.re, b.re),
            three * b.re * a.eps + three * a.re * b.eps,
        )
    }
    fn scaled_product(a: Self, b: Self) -> Self {
        Dual::new(
            T::scaled_product(a.re, b.re),
            T::lift(2.0) * b.re * a.eps + a.re * b.eps,
        )
    }
}

/// The gradients, as the outer closures give them for `dy = 1`.
fn cube_third_gradient<T: Num>(x: T) -> T {
    (x * x).doubled_slope()
}

fn nested_pair_gradient<T: Num>(x: T, y: T) -> [T; 2] {
    [T::tripled_product(y, x), T::tripled_product(x, x)]
}

fn quantised_gradient<T: Num>(x: T) -> T {
    T::lift(2.0) * x.rounded()
}

fn clipped_gradient<T: Num>(x: T) -> T {
    T::lift(3.0) * (x * x).clipped()
}

fn outer_pair_gradient<T: Num>(x: T, y: T) -> [T; 2] {
    [T::scaled_product(x, y) * T::lift(2.0), x * x]
}

/// F(x) = outer_pair(x, x²): F' = g_x + g_y · 2x.
fn through_outer_pair_gradient<T: Num>(x: T) -> T {
    let [gx, gy] = outer_pair_gradient(x, x * x);
    gx + gy * T::lift(2.0) * x
}

/// The Jacobian of `gradient` at `x`, one column per seeded input, on `Dual<f64>`.
fn reference_hessian<const N: usize>(
    gradient: fn([Dual<f64>; N]) -> [Dual<f64>; N],
    x: &[f64],
) -> Vec<Vec<f64>> {
    let mut h = vec![vec![0.0; N]; N];
    for (c, _) in x.iter().enumerate() {
        let seeded: [Dual<f64>; N] =
            std::array::from_fn(|i| Dual::new(x[i], if i == c { 1.0 } else { 0.0 }));
        for (r, g) in gradient(seeded).iter().enumerate() {
            h[r][c] = g.eps;
        }
    }
    h
}

/// The first two derivatives of the one-input `gradient` at `x` (F'' and F'''), on `Dual<Dual<f64>>`.
fn reference_derivatives(gradient: fn(Dual<Dual<f64>>) -> Dual<Dual<f64>>, x: f64) -> [f64; 2] {
    let seeded = Dual::new(Dual::new(x, 1.0), Dual::new(1.0, 0.0));
    let g = gradient(seeded);
    [g.eps.re, g.eps.eps]
}

/// The Hessian of a probe of one input checked against the reference, the reference against a formula by
/// hand (reverse over reverse, `jax.grad(jax.grad(f))`) where `by_hand` is given.
#[track_caller]
fn one_input(
    name: &str,
    hessian: fn(f64) -> (f64, f64, Vec<Vec<f64>>),
    gradient: fn([Dual<f64>; 1]) -> [Dual<f64>; 1],
    by_hand: Option<fn(f64) -> f64>,
    lo: f64,
    hi: f64,
) {
    let mut rng = Lcg::new(seed_of(name));
    for _ in 0..POINTS {
        let x = rng.uniform(lo, hi);
        let (_, _, h) = hessian(x);
        let want = reference_hessian(gradient, &[x]);
        assert_near(h[0][0], want[0][0], 1e-13, 0.0, &format!("{name} at {x}"));
        if let Some(by_hand) = by_hand {
            assert_near(
                want[0][0],
                by_hand(x),
                1e-13,
                0.0,
                &format!("{name} by hand at {x}"),
            );
        }
    }
}

#[test]
fn cube_third_follows_the_nested_closure_to_third_order() {
    // jax.grad(jax.grad): the cotangent 1 reaches doubled_slope, whose closure gives 2, times 2x: 4x.
    one_input(
        "through_nested",
        through_nested_hessian,
        |[x]| [cube_third_gradient(x)],
        Some(|x| 4.0 * x),
        -2.0,
        2.0,
    );
    let mut rng = Lcg::new(seed_of("through_nested third"));
    for _ in 0..POINTS {
        let x = rng.uniform(-2.0, 2.0);
        let d = through_nested_derivatives(x);
        let [second, third] = reference_derivatives(cube_third_gradient, x);
        assert_vec_near(&d[2..], &[second, third], 1e-13, "through_nested F'', F'''");
        assert_vec_near(&[second, third], &[4.0 * x, 4.0], 1e-13, "by hand");
    }
}

#[test]
fn nested_pair_follows_the_nested_partials() {
    // jax.grad over each gradient entry: d tripled_product(y, x) = 3x dy + 3y dx; d tripled_product(x, x)
    // = 6x dx.
    let mut rng = Lcg::new(seed_of("through_nested_pair"));
    for _ in 0..POINTS {
        let (x, y) = (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0));
        let (_, _, h) = through_nested_pair_hessian(x, y);
        let want = reference_hessian(|[x, y]| nested_pair_gradient(x, y), &[x, y]);
        for r in 0..2 {
            assert_vec_near(&h[r], &want[r], 1e-13, "through_nested_pair");
        }
        assert_vec_near(&want[0], &[3.0 * y, 3.0 * x], 1e-13, "row 0 by hand");
        assert_vec_near(&want[1], &[6.0 * x, 0.0], 1e-13, "row 1 by hand");
    }
}

#[test]
fn quantised_square_follows_the_straight_through_closure() {
    // The straight-through closure gives 1 where round's forward code gives 0: F'' = 2, F''' = 0.
    one_input(
        "through_quantised",
        through_quantised_hessian,
        |[x]| [quantised_gradient(x)],
        Some(|_| 2.0),
        -3.0,
        3.0,
    );
    for x in [-2.3, -0.6, 0.2, 1.4] {
        let d = through_quantised_derivatives(x);
        let reference = reference_derivatives(quantised_gradient, x);
        assert_vec_near(&d[2..], &reference, 1e-13, "through_quantised F'', F'''");
    }
}

#[test]
fn clipped_cube_takes_the_nested_slope_for_a_unit_cotangent() {
    // Forward over reverse: 3 · clipped's slope for dy = 1 (0.5) · 2x = 3x, as `clipped_jvp` gives.
    // (`jax.grad(jax.grad)` would give clipped's closure at the cotangent 3 that reaches it, clipped to 1:
    // 2x. The two agree only for closures linear in the cotangent.)
    one_input(
        "through_clipped",
        through_clipped_hessian,
        |[x]| [clipped_gradient(x)],
        Some(|x| 3.0 * x),
        -2.0,
        2.0,
    );
    for x in [-1.5, 0.5, 1.25] {
        let (_, tangent) = clipped_jvp(x * x, 2.0 * x);
        assert_near(3.0 * tangent, 3.0 * x, 1e-14, 0.0, "3 clipped_jvp(x², 2x)");
    }
}

#[test]
fn outer_pair_follows_the_nested_partials_to_third_order() {
    // Two inputs: d(2 scaled_product(x, y)) = 2 (2y dx + x dy); d(x²) = 2x dx.
    let mut rng = Lcg::new(seed_of("outer_pair_energy"));
    for _ in 0..POINTS {
        let (x, y) = (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0));
        let (_, _, h) = outer_pair_energy_hessian(x, y);
        let want = reference_hessian(|[x, y]| outer_pair_gradient(x, y), &[x, y]);
        for r in 0..2 {
            assert_vec_near(&h[r], &want[r], 1e-13, "outer_pair_energy");
        }
        assert_vec_near(&want[0], &[4.0 * y, 2.0 * x], 1e-13, "row 0 by hand");
        assert_vec_near(&want[1], &[2.0 * x, 0.0], 1e-13, "row 1 by hand");
    }
    // Along (x, x²): F' = 2 s + 2x³ with s' = 2y + x · 2x = 4x²: F'' = 14x², F''' = 28x.
    let mut rng = Lcg::new(seed_of("through_outer_pair"));
    for _ in 0..POINTS {
        let x = rng.uniform(-2.0, 2.0);
        let d = through_outer_pair_derivatives(x);
        let reference = reference_derivatives(through_outer_pair_gradient, x);
        assert_vec_near(&d[2..], &reference, 1e-12, "through_outer_pair F'', F'''");
        assert_vec_near(&reference, &[14.0 * x * x, 28.0 * x], 1e-12, "by hand");
    }
}
