//! Calls between differentiable functions: in the same module, in other modules by path (`helpers::f`,
//! `crate::..`, `self::..`, `super::..`), generic callees (with and without a turbofish), callees taking
//! slices and arrays or returning tuples, arrays and `Vec`s; chains of calls (f calls g calls h), calls
//! inside loops and branches, mutual recursion, and differentiable functions declared inside a function
//! body.
//!
//! Each caller is checked at random inputs against its derivative written by hand and central differences
//! (`autodiff::check_gradient`), and its `_vjp` and `_jvp` against its `_grad` (`common::check_scalar`).
//! Generic callers also run at `f32`, and at `autodiff::Dual<f64>` for second derivatives through the
//! calls (forward over reverse), `Dual<Dual<f64>>` for third. Calls across crates are in
//! `tests/cross_crate.rs`, calls of custom and registered gradients in `tests/custom.rs`.

mod common;

use autodiff::{differentiable, stop_gradient, Dual, Float};
use common::*;
use proptest::prelude::*;

mod helpers {
    use autodiff::{differentiable, Float};

    #[differentiable]
    pub fn square<T: Float>(x: T) -> T {
        x * x
    }

    #[differentiable]
    pub fn sumsq(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += v * v;
        }
        s
    }

    #[differentiable]
    pub fn polar(r: f64, t: f64) -> (f64, f64) {
        (r * t.cos(), r * t.sin())
    }

    #[differentiable]
    pub fn scaled(x: &[f64], a: f64) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            out[i] = a * x[i];
        }
        out
    }

    /// A module below: calls up through `super::`.
    pub mod deep {
        use autodiff::{differentiable, Float};

        #[differentiable]
        pub fn cube<T: Float>(x: T) -> T {
            x * super::square(x)
        }
    }
}

use helpers::{polar, scaled, square, sumsq};

// ---- the first smoke test's callers ----

#[differentiable]
fn uses_square(x: f64, y: f64) -> f64 {
    square(x) * y + helpers::square(y)
}

#[differentiable]
fn uses_generic<T: Float>(x: T) -> T {
    square::<T>(x.sin())
}

#[differentiable]
fn uses_slices(x: &[f64], a: f64) -> f64 {
    let v: Vec<f64> = scaled(x, a);
    sumsq(&v) + sumsq(x)
}

#[differentiable]
fn uses_tuple(r: f64, t: f64) -> f64 {
    let (a, b) = polar(r, t);
    a * b
}

#[differentiable(wrt(x))]
fn uses_int(x: f64, n: i32) -> f64 {
    square(x.powi(n))
}

#[test]
fn calls() {
    let (v, (dx, dy)) = uses_square_grad(3.0, 2.0);
    assert_eq!(v, uses_square(3.0, 2.0));
    assert_eq!((dx, dy), (12.0, 9.0 + 4.0));
    let (_, t) = uses_square_jvp(3.0, 2.0, (1.0, 0.0));
    assert_eq!(t, 12.0);
    let (v, g) = uses_generic_grad(0.5f64);
    assert!((v - 0.5f64.sin().powi(2)).abs() < 1e-15);
    assert!((g - 2.0 * 0.5f64.sin() * 0.5f64.cos()).abs() < 1e-15);
    let x = [1.0, 2.0];
    let (v, (gx, ga)) = uses_slices_grad(&x, 3.0);
    assert_eq!(v, uses_slices(&x, 3.0));
    assert_eq!(gx, vec![2.0 * 9.0 + 2.0, 4.0 * 9.0 + 4.0]);
    assert_eq!(ga, 2.0 * 3.0 * 5.0);
    let (_, tt) = uses_slices_jvp(&x, 3.0, (vec![1.0, 0.0], 0.0));
    assert_eq!(tt, gx[0]);
    let (v, (dr, dt)) = uses_tuple_grad(2.0, 0.3);
    assert_eq!(v, uses_tuple(2.0, 0.3));
    // f = r^2 cos t sin t = r^2 sin(2t)/2
    assert!((dr - 2.0 * (0.6f64).sin()).abs() < 1e-12);
    assert!((dt - 4.0 * (0.6f64).cos()).abs() < 1e-12);
    assert_eq!(uses_generic(0.5f64), 0.5f64.sin().powi(2));
    assert_eq!(uses_int(1.5, 3), 1.5f64.powi(6));
    let (_, g) = uses_int_grad(1.5, 3);
    assert!((g - 6.0 * 1.5f64.powi(5)).abs() < 1e-9);
}

// ---- a chain: chain calls link, link calls leaf ----

/// `x sin x`.
#[differentiable]
fn leaf<T: Float>(x: T) -> T {
    x.sin() * x
}

/// `leaf(x y) + y`.
#[differentiable]
fn link<T: Float>(x: T, y: T) -> T {
    leaf(x * y) + y
}

/// `link(x, y) · link(y, x)`: each argument reaches `leaf` along two paths.
#[differentiable]
fn chain<T: Float>(x: T, y: T) -> T {
    link(x, y) * link(y, x)
}

/// `leaf'(u) = sin u + u cos u`.
fn leaf_slope(u: f64) -> f64 {
    u.sin() + u * u.cos()
}

fn chain_gradient(x: f64, y: f64) -> [f64; 2] {
    let u = x * y;
    let (leaf_u, slope) = (u * u.sin(), leaf_slope(u));
    let (a, b) = (leaf_u + y, leaf_u + x);
    [
        y * slope * b + a * (y * slope + 1.0),
        (x * slope + 1.0) * b + a * x * slope,
    ]
}

// ---- calls in loops ----

/// One step of Horner's scheme.
#[differentiable]
fn horner_step(acc: f64, x: f64, c: f64) -> f64 {
    acc * x + c
}

/// The polynomial `c₀ xⁿ⁻¹ + … + cₙ₋₁` by a call per coefficient in a `for` over the slice.
#[differentiable]
fn horner(x: f64, c: &[f64]) -> f64 {
    let mut acc = 0.0;
    for &ci in c {
        acc = horner_step(acc, x, ci);
    }
    acc
}

fn horner_gradient(x: f64, c: &[f64]) -> (f64, Vec<f64>) {
    let n = c.len();
    let slope = (0..n.saturating_sub(1))
        .map(|i| c[i] * (n - 1 - i) as f64 * x.powi((n - 2 - i) as i32))
        .sum();
    (slope, (0..n).map(|i| x.powi((n - 1 - i) as i32)).collect())
}

/// `√x`.
#[differentiable]
fn root(x: f64) -> f64 {
    x.sqrt()
}

/// Square roots while the value is above 2: a `while` whose condition reads the callee's results.
#[differentiable]
fn roots_while_above_two(x: f64) -> f64 {
    let mut y = x;
    while y > 2.0 {
        y = root(y);
    }
    y
}

/// The number of roots `roots_while_above_two` takes, and the smallest distance of an iterate from 2.
fn roots_taken(x: f64) -> (i32, f64) {
    let (mut y, mut k, mut gap) = (x, 0, (x - 2.0).abs());
    while y > 2.0 {
        y = y.sqrt();
        k += 1;
        gap = gap.min((y - 2.0).abs());
    }
    (k, gap)
}

/// The mean of `x`.
#[differentiable]
fn mean(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        s += v;
    }
    s / x.len() as f64
}

/// `Σ (xᵢ - mean x)²`: a call before the loop, and one in each iteration.
#[differentiable]
fn centred_sumsq(x: &[f64]) -> f64 {
    let m = mean(x);
    let mut s = 0.0;
    for &v in x {
        s += square(v - m);
    }
    s
}

// ---- calls in branches ----

/// An early `return` of a call, a `match` choosing among calls, and an `if` on the result.
#[differentiable(wrt(x))]
fn piecewise(x: f64, k: u8) -> f64 {
    if x < -1.0 {
        return helpers::deep::cube(x);
    }
    let y = match k {
        0 => leaf(x) + 2.0,
        1 | 2 => 2.0 * square(x),
        _ => link(x, 0.5),
    };
    if x > 1.0 {
        y.ln()
    } else {
        y
    }
}

/// The value and slope of `piecewise`, by hand.
fn piecewise_reference(x: f64, k: u8) -> (f64, f64) {
    if x < -1.0 {
        return (x * x * x, 3.0 * x * x);
    }
    let (y, dy) = match k {
        0 => (x * x.sin() + 2.0, leaf_slope(x)),
        1 | 2 => (2.0 * x * x, 4.0 * x),
        _ => ((0.5 * x) * (0.5 * x).sin() + 0.5, 0.5 * leaf_slope(0.5 * x)),
    };
    if x > 1.0 {
        (y.ln(), dy / y)
    } else {
        (y, dy)
    }
}

// ---- paths, nested calls, arrays ----

/// Calls by `crate::`, `self::` and `super::` paths, with a turbofish, of constants only, and a method
/// on a call's result: `x² + x³ + sin(x²) + 4`.
#[differentiable]
fn paths(x: f64) -> f64 {
    crate::helpers::square(x) + self::helpers::deep::cube(x) + square::<f64>(x).sin() + square(2.0)
}

/// Calls as arguments of calls: `x⁴ + sin³(x²)`.
#[differentiable]
fn nested(x: f64) -> f64 {
    square(square(x)) + helpers::deep::cube(square(x).sin())
}

/// The point `(x cos t, x sin t)` as an array.
#[differentiable]
fn rotated(x: f64, t: f64) -> [f64; 2] {
    [x * t.cos(), x * t.sin()]
}

/// The Euclidean norm of a 3-vector.
#[differentiable]
fn norm3(v: &[f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// A callee returning an array, and a local array passed on as `&[f64; 3]`: `x √(1 + t²)`.
#[differentiable]
fn arrays(x: f64, t: f64) -> f64 {
    // The annotation is needed: see wip/BUGS-loops.md, 5.
    let r: [f64; 2] = rotated(x, t);
    let v = [r[0], r[1], x * t];
    norm3(&v)
}

/// A local `Vec` of active values passed on as `&[f64]`: `y² + y⁴ + x²`.
#[differentiable]
fn local_vec(x: f64, y: f64) -> f64 {
    let v = vec![y, y * y, x];
    sumsq(&v)
}

// ---- mutual recursion, wrt ----

/// `even` and `odd` call each other (direct recursion is a compile error, `tests/ui/custom/recursion.rs`;
/// mutual recursion goes through the companion types and works).
#[differentiable]
fn even(x: f64, n: usize) -> f64 {
    if n == 0 {
        x
    } else {
        odd(x * 2.0, n - 1)
    }
}

#[differentiable]
fn odd(x: f64, n: usize) -> f64 {
    if n == 0 {
        x.sin()
    } else {
        even(x + 1.0, n - 1)
    }
}

/// `even(x, n)` and its slope, by hand: the argument is `a x + b` as the calls alternate.
fn even_reference(x: f64, n: usize) -> (f64, f64) {
    let (mut a, mut b) = (1.0, 0.0);
    for step in 0..n {
        if step.is_multiple_of(2) {
            (a, b) = (2.0 * a, 2.0 * b);
        } else {
            b += 1.0;
        }
    }
    let u = a * x + b;
    if n.is_multiple_of(2) {
        (u, a)
    } else {
        (u.sin(), a * u.cos())
    }
}

/// A callee with `wrt(x)`: `a` is a constant to it.
#[differentiable(wrt(x))]
fn scale_by(x: f64, a: f64) -> f64 {
    a * x
}

/// A caller passing its constant `y` to the callee's constant `a`, and to the active `t` of `polar`
/// (whose gradient there is dropped): `y x² + x cos y`, differentiated in `x` only.
#[differentiable(wrt(x))]
fn wrt_caller(x: f64, y: f64) -> f64 {
    let (a, _) = polar(x, y);
    scale_by(square(x), y) + a
}

/// An active value passed to a callee's constant parameter through `stop_gradient`: `x sg(y) + y`.
/// (Without `stop_gradient` this does not compile: wip/BUGS-calls.md.)
#[differentiable]
fn stopped(x: f64, y: f64) -> f64 {
    scale_by(x, stop_gradient(y)) + y
}

// ---- properties ----

/// A point where `piecewise` is smooth: away from its kinks at -1 and 1 by more than a difference step.
fn away_from_kinks() -> impl Strategy<Value = f64> {
    moderate().prop_filter("near a kink of piecewise", |x| {
        (x + 1.0).abs() > 1e-3 && (x - 1.0).abs() > 1e-3
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_chain_of_calls(x in moderate(), y in moderate(), t in tangents()) {
        check_scalar(
            "chain",
            |p| chain(p[0], p[1]),
            &[x, y],
            (chain_grad(x, y), |d| chain_vjp(x, y, d), |v| chain_jvp(x, y, v)),
            &chain_gradient(x, y),
            &t,
        );
    }

    /// In a smaller domain: `f32` rounding in `sin(x y)` and the cancellations of the chain rule
    /// grow with `|x y|`.
    #[test]
    fn a_chain_of_calls_in_f32(x in -1.2..1.2_f64, y in -1.2..1.2_f64, t in tangents()) {
        let (x, y) = (x as f32, y as f32);
        check_scalar_f32(
            chain(x, y),
            (chain_grad(x, y), |d| chain_vjp(x, y, d), |v| chain_jvp(x, y, v)),
            &chain_gradient(x.into(), y.into()),
            &t,
        );
    }

    /// Forward over reverse through three levels of calls: column `j` of the Hessian in the `eps` of the
    /// gradient on duals seeded along `e_j`, against central differences of the `f64` gradient; and the
    /// Hessian is symmetric.
    #[test]
    fn second_order_through_a_chain(x in moderate(), y in moderate()) {
        let gradient = chain_gradient(x, y);
        let mut hessian = [[0.0; 2]; 2];
        for (j, seed) in [[1.0, 0.0], [0.0, 1.0]].into_iter().enumerate() {
            let (value, (gx, gy)) = chain_grad::<Dual<f64>>(Dual::new(x, seed[0]), Dual::new(y, seed[1]));
            prop_assert_eq!(value.re, chain(x, y));
            assert_all_close(&[gx.re, gy.re], &gradient, ANALYTIC_TOL, "re of the dual gradient");
            let along = |h: f64| chain_grad(x + h * seed[0], y + h * seed[1]).1;
            let differences = [
                central_difference(|h| along(h).0, 0.0),
                central_difference(|h| along(h).1, 0.0),
            ];
            assert_all_close(&[gx.eps, gy.eps], &differences, FD_TOL, "Hessian column");
            hessian[0][j] = gx.eps;
            hessian[1][j] = gy.eps;
        }
        assert_close(hessian[0][1], hessian[1][0], ANALYTIC_TOL, "symmetry of the Hessian");
    }

    /// `sin² x` through a generic callee: first derivative at `f32` and `f64`, second at `Dual<f64>`
    /// (`2 cos 2x`), third at `Dual<Dual<f64>>` (`-4 sin 2x`), and `_jvp` on duals.
    #[test]
    fn a_generic_callee_at_every_float_type(x in moderate(), t in tangent()) {
        check_scalar(
            "uses_generic",
            |p| uses_generic(p[0]),
            &[x],
            (uses_generic_grad(x), |d| uses_generic_vjp(x, d), |v| uses_generic_jvp(x, v)),
            &[(2.0 * x).sin()],
            &[t],
        );
        let xf = x as f32;
        check_scalar_f32(
            uses_generic(xf),
            (uses_generic_grad(xf), |d| uses_generic_vjp(xf, d), |v| uses_generic_jvp(xf, v)),
            &[(2.0 * f64::from(xf)).sin()],
            &[t],
        );
        let (value, slope) = uses_generic_grad(Dual::new(x, 1.0));
        assert_close(value.eps, (2.0 * x).sin(), ANALYTIC_TOL, "first derivative of the value");
        assert_close(slope.re, (2.0 * x).sin(), ANALYTIC_TOL, "first derivative");
        assert_close(slope.eps, 2.0 * (2.0 * x).cos(), ANALYTIC_TOL, "second derivative");
        let (_, tangent_out) = uses_generic_jvp(Dual::new(x, 1.0), Dual::new(1.0, 0.0));
        assert_close(tangent_out.eps, 2.0 * (2.0 * x).cos(), ANALYTIC_TOL, "second by jvp on duals");
        let third = uses_generic_grad(Dual::new(Dual::new(x, 1.0), Dual::new(1.0, 0.0))).1;
        assert_close(third.eps.eps, -4.0 * (2.0 * x).sin(), ANALYTIC_TOL, "third derivative");
    }

    #[test]
    fn calls_in_a_for_loop(
        x in moderate(),
        (c, tc) in vec_with_tangent(moderate(), 0..7),
        tx in tangent(),
    ) {
        let (value, (gx, gc)) = horner_grad(x, &c);
        let (slope, powers) = horner_gradient(x, &c);
        assert_close(gx, slope, ANALYTIC_TOL, "horner: d/dx");
        assert_all_close(&gc, &powers, ANALYTIC_TOL, "horner: d/dc");
        let n = c.len();
        let at = [&[x], c.as_slice()].concat();
        check_flat(
            "horner",
            |p| horner(p[0], &p[1..]),
            &at,
            (value, &[&[gx], gc.as_slice()].concat()),
            horner_jvp(x, &c, (tx, tc.clone())),
            &[&[tx], tc.as_slice()].concat(),
        );
        let (_, (vx, vc)) = horner_vjp(x, &c, COTANGENT);
        assert_close(vx, COTANGENT * gx, ANALYTIC_TOL, "horner: vjp in x");
        let scaled_gc: Vec<f64> = gc.iter().map(|g| COTANGENT * g).collect();
        assert_all_close(&vc, &scaled_gc, ANALYTIC_TOL, "horner: vjp in c");
        prop_assert_eq!(vc.len(), n);
    }

    #[test]
    fn calls_in_a_while_loop(x in 0.1..100.0_f64, t in tangent()) {
        let (k, gap) = roots_taken(x);
        prop_assume!(gap > 1e-3);
        let exponent = 0.5_f64.powi(k);
        check_scalar(
            "roots_while_above_two",
            |p| roots_while_above_two(p[0]),
            &[x],
            (
                roots_while_above_two_grad(x),
                |d| roots_while_above_two_vjp(x, d),
                |v| roots_while_above_two_jvp(x, v),
            ),
            &[exponent * x.powf(exponent - 1.0)],
            &[t],
        );
    }

    /// The gradient of `Σ (xᵢ - m)²` is `2 (xᵢ - m)`: the path through `mean` contributes `Σ (xⱼ - m) = 0`.
    #[test]
    fn a_call_before_and_in_a_loop((x, t) in vec_with_tangent(moderate(), 1..7)) {
        let (value, grad) = centred_sumsq_grad(&x);
        let m = x.iter().sum::<f64>() / x.len() as f64;
        let expected: Vec<f64> = x.iter().map(|v| 2.0 * (v - m)).collect();
        assert_all_close(&grad, &expected, ANALYTIC_TOL, "centred_sumsq");
        check_flat(
            "centred_sumsq",
            centred_sumsq,
            &x,
            (value, &grad),
            centred_sumsq_jvp(&x, t.clone()),
            &t,
        );
    }

    #[test]
    fn calls_in_branches(x in away_from_kinks(), k in 0..4u8, t in tangent()) {
        let (value, slope) = piecewise_reference(x, k);
        assert_close(piecewise(x, k), value, ANALYTIC_TOL, "piecewise: value");
        check_scalar(
            "piecewise",
            |p| piecewise(p[0], k),
            &[x],
            (piecewise_grad(x, k), |d| piecewise_vjp(x, k, d), |v| piecewise_jvp(x, k, v)),
            &[slope],
            &[t],
        );
    }

    #[test]
    fn calls_by_path_and_nested_calls(x in moderate(), t in tangent()) {
        check_scalar(
            "paths",
            |p| paths(p[0]),
            &[x],
            (paths_grad(x), |d| paths_vjp(x, d), |v| paths_jvp(x, v)),
            &[2.0 * x + 3.0 * x * x + 2.0 * x * (x * x).cos()],
            &[t],
        );
        let s = (x * x).sin();
        check_scalar(
            "nested",
            |p| nested(p[0]),
            &[x],
            (nested_grad(x), |d| nested_vjp(x, d), |v| nested_jvp(x, v)),
            &[4.0 * x.powi(3) + 6.0 * x * s * s * (x * x).cos()],
            &[t],
        );
    }

    #[test]
    fn callees_of_arrays_and_vecs(x in positive(), t in moderate(), y in moderate(), v in tangents()) {
        let norm = (1.0 + t * t).sqrt();
        check_scalar(
            "arrays",
            |p| arrays(p[0], p[1]),
            &[x, t],
            (arrays_grad(x, t), |d| arrays_vjp(x, t, d), |w| arrays_jvp(x, t, w)),
            &[norm, x * t / norm],
            &v,
        );
        check_scalar(
            "local_vec",
            |p| local_vec(p[0], p[1]),
            &[x, y],
            (local_vec_grad(x, y), |d| local_vec_vjp(x, y, d), |w| local_vec_jvp(x, y, w)),
            &[2.0 * x, 2.0 * y + 4.0 * y.powi(3)],
            &v,
        );
    }

    #[test]
    fn callees_returning_tuples_and_vecs(r in moderate(), t in moderate(), a in moderate(), v in tangents()) {
        let (s, c) = t.sin_cos();
        check_scalar(
            "uses_tuple",
            |p| uses_tuple(p[0], p[1]),
            &[r, t],
            (uses_tuple_grad(r, t), |d| uses_tuple_vjp(r, t, d), |w| uses_tuple_jvp(r, t, w)),
            &[2.0 * r * s * c, r * r * (c * c - s * s)],
            &v,
        );
        let x = [r, t];
        let (value, (gx, ga)) = uses_slices_grad(&x, a);
        let k = a * a + 1.0;
        assert_all_close(&gx, &[2.0 * k * r, 2.0 * k * t], ANALYTIC_TOL, "uses_slices: d/dx");
        assert_close(ga, 2.0 * a * (r * r + t * t), ANALYTIC_TOL, "uses_slices: d/da");
        check_flat(
            "uses_slices",
            |p| uses_slices(&p[..2], p[2]),
            &[r, t, a],
            (value, &[gx[0], gx[1], ga]),
            uses_slices_jvp(&x, a, (v[..2].to_vec(), v[2])),
            &v,
        );
    }

    #[test]
    fn mutual_recursion(x in moderate(), n in 0..6usize, t in tangent()) {
        let (value, slope) = even_reference(x, n);
        assert_close(even(x, n), value, ANALYTIC_TOL, "even: value");
        check_scalar(
            "even",
            |p| even(p[0], n),
            &[x],
            (even_grad(x, n), |d| even_vjp(x, n, d), |v| even_jvp(x, n, v)),
            &[slope],
            &[t],
        );
    }

    #[test]
    fn constants_passed_to_callees(x in moderate(), y in moderate(), v in tangents()) {
        check_scalar(
            "wrt_caller",
            |p| wrt_caller(p[0], y),
            &[x],
            (wrt_caller_grad(x, y), |d| wrt_caller_vjp(x, y, d), |w| wrt_caller_jvp(x, y, w)),
            &[2.0 * x * y + y.cos()],
            &v,
        );
        // `stop_gradient(y)` is a constant: the gradient is that of `x c + y` at `c = y`.
        let (value, (dx, dy)) = stopped_grad(x, y);
        prop_assert_eq!(value, stopped(x, y));
        prop_assert_eq!((dx, dy), (y, 1.0));
        let (_, tangent_out) = stopped_jvp(x, y, (v[0], v[1]));
        assert_close(tangent_out, y * v[0] + v[1], ANALYTIC_TOL, "stopped: jvp");
    }
}

/// Differentiable functions declared inside a function body call each other through their companion
/// types, which a module could not see.
#[test]
fn functions_declared_in_a_body() {
    #[differentiable]
    fn inner_exp(x: f64) -> f64 {
        x.exp()
    }

    #[differentiable]
    fn inner_caller(x: f64) -> f64 {
        inner_exp(x) * x + square(x)
    }

    for x in [-1.5, 0.0, 0.7, 2.0] {
        let (value, slope) = inner_caller_grad(x);
        assert_eq!(value, inner_caller(x));
        assert_close(
            slope,
            x.exp() * (1.0 + x) + 2.0 * x,
            ANALYTIC_TOL,
            "inner_caller",
        );
        assert_fd_gradient(|p| inner_caller(p[0]), &[x], &[slope], "inner_caller");
    }
}

// ---- calls that add into the caller's adjoints (`vjp_into`) ----

/// Callees of every kind that `vjp_into` treats differently: a plain function whose reverse sweep runs
/// straight into the caller's buffers (`weighted`, `spread`), one that writes its own parameter
/// (`overwrites`), one with a fixed-size array (`fixed`), one restricted by `wrt` (`restricted`) and a
/// generic one (`generic_dot`), each reached through `vjp`'s cotangents instead.
mod into_callees {
    use autodiff::{differentiable, Float};

    #[differentiable]
    pub fn weighted(w: &[f64], data: &[f64], a: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..w.len() {
            s += w[i] * data[i] * a + (w[i] - data[i]).sin();
        }
        s * a
    }

    /// Reads the first element through several paths, so its cotangent is built from several
    /// contributions inside the callee.
    #[differentiable]
    pub fn spread(x: &[f64], y: &[f64]) -> f64 {
        let mut s = x[0] * y[0];
        for i in 1..x.len() {
            s += x[i] * x[0] - y[i] * y[i - 1];
        }
        s
    }

    #[differentiable]
    pub fn overwrites(mut v: [f64; 3], s: f64) -> f64 {
        v[0] = v[0] * v[1] + s;
        v[1] = v[0].exp();
        v[0] + v[1] * v[2]
    }

    #[differentiable]
    pub fn fixed(p: &[f64; 3], s: f64) -> f64 {
        p[0] * s + p[1] * p[2] * s
    }

    #[differentiable(wrt(x))]
    pub fn restricted(x: &[f64], c: f64) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += (v * c).cos();
        }
        s
    }

    /// Takes `&Vec`: an array stored at the call comes back as one.
    #[differentiable]
    #[allow(clippy::ptr_arg)]
    pub fn by_vec(v: &Vec<f64>) -> f64 {
        v[0] * v[1].sin()
    }

    #[differentiable]
    pub fn generic_dot<T: Float>(x: &[T], y: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..x.len() {
            s = s + x[i] * y[i];
        }
        s
    }
}

use into_callees::{by_vec, fixed, generic_dot, overwrites, restricted, spread, weighted};

/// Calls in a loop, into a parameter's buffer, a local array's and scalars', with the same array passed
/// twice, a sub-slice, a fixed array and arguments whose adjoint is already partly accumulated.
#[differentiable]
fn calls_into_buffers(p: &[f64], q: f64) -> f64 {
    let mut z = vec![0.0; 4];
    let mut total = 0.0;
    for k in 0..4 {
        z[k] = p[k] * q + z[(k + 3) % 4];
        total += weighted(p, &z, q);
        total += spread(&z, &z) * 0.5;
        total += spread(&p[1..4], &z[0..3]);
        total += generic_dot(&z, p) * q;
        total += by_vec(&z);
    }
    let a = [p[0], z[1], q];
    total += fixed(&a, q) + overwrites(a, z[2]) + restricted(&z, q) + restricted(p, z[3]);
    total + weighted(&z, p, total.sin())
}

/// `data` is inactive here: the callees' `vjp_into` gets no buffer for it (a scratch one is made).
#[differentiable(wrt(p, q))]
fn calls_with_inactive_data(p: &[f64], data: &[f64], q: f64) -> f64 {
    weighted(data, p, q) + weighted(p, data, 1.5) + spread(data, p) * spread(p, data)
}

#[test]
fn calls_add_into_the_callers_adjoints() {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut uniform = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..20 {
        let p: Vec<f64> = (0..5).map(|_| uniform()).collect();
        let q = uniform();
        let data: Vec<f64> = (0..5).map(|_| uniform()).collect();
        let p4 = &p[..4];
        let (value, (gp, gq)) = calls_into_buffers_grad(p4, q);
        assert_eq!(value, calls_into_buffers(p4, q));
        let f = |x: &[f64]| calls_into_buffers(&x[..4], x[4]);
        let x = [p4, &[q]].concat();
        assert_fd_gradient(f, &x, &[&gp[..], &[gq]].concat(), "calls_into_buffers");
        let (mut bp, mut bq) = (vec![f64::NAN; 4], f64::NAN);
        calls_into_buffers_grad_into(p4, q, (&mut bp, &mut bq));
        assert_eq!((bp, bq), (gp, gq));

        let (value, (gp, gq)) = calls_with_inactive_data_grad(&p, &data, q);
        assert_eq!(value, calls_with_inactive_data(&p, &data, q));
        let f = |x: &[f64]| calls_with_inactive_data(&x[..5], &data, x[5]);
        let x = [&p[..], &[q]].concat();
        assert_fd_gradient(
            f,
            &x,
            &[&gp[..], &[gq]].concat(),
            "calls_with_inactive_data",
        );
    }
}

// ---- calls whose gradient is stored at the call ----

/// Callees with a float value, called with arrays that the caller writes after the call: the forward
/// sweep stores the callee's gradient at the call and the reverse sweep scales it by the cotangent of
/// the value (`reverse/call_gradient.rs`), instead of storing the arrays and running the callee again.
mod stored_callees {
    use autodiff::{differentiable, Float};

    #[differentiable]
    pub fn lse(z: &[f64]) -> f64 {
        let mut max = z[0];
        for &v in z {
            max = max.max(v);
        }
        let mut sum = 0.0;
        for &v in z {
            sum += (v - max).exp();
        }
        max + sum.ln()
    }

    #[differentiable]
    pub fn lse_generic<T: Float>(z: &[T]) -> T {
        let mut max = z[0];
        for &v in z {
            max = max.max(v);
        }
        let mut sum = T::zero();
        for &v in z {
            sum = sum + (v - max).exp();
        }
        max + sum.ln()
    }

    /// Two arrays, both differentiated.
    #[differentiable]
    pub fn pair(a: &[f64], b: &[f64]) -> f64 {
        let mut s = a[0] * a[0];
        for i in 0..a.len() {
            s += a[i] * b[i].sin();
        }
        s
    }

    /// The second array is data.
    #[differentiable(wrt(a))]
    pub fn weighted_by(a: &[f64], w: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * a[i] * w[i];
        }
        s
    }
}

use stored_callees::{lse, lse_generic, pair, weighted_by};

/// Softmax cross-entropy as users write it: one row of logits rewritten per example, passed to `lse`,
/// read again after the call (`z[labels[j]]`).
#[differentiable(wrt(w))]
fn rows_through_a_call(w: &[f64], data: &[f64], labels: &[usize], d: usize, k: usize) -> f64 {
    let m = labels.len();
    let mut z = vec![0.0; k];
    let mut total = 0.0;
    for j in 0..m {
        for c in 0..k {
            let mut s = 0.0;
            for i in 0..d {
                s += w[c * d + i] * data[j * d + i];
            }
            z[c] = s;
        }
        total += lse(&z) - z[labels[j]];
    }
    total / m as f64
}

/// The gradient of `rows_through_a_call`, by hand: `(softmax(z_j) - e_{y_j}) x_jᵀ / m`.
fn rows_through_a_call_gradient(
    w: &[f64],
    data: &[f64],
    labels: &[usize],
    d: usize,
    k: usize,
) -> Vec<f64> {
    let m = labels.len();
    let mut g = vec![0.0; k * d];
    for (j, &label) in labels.iter().enumerate() {
        let x = &data[j * d..(j + 1) * d];
        let z: Vec<f64> = (0..k)
            .map(|c| (0..d).map(|i| w[c * d + i] * x[i]).sum())
            .collect();
        let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = z.iter().map(|v| (v - max).exp()).sum();
        for c in 0..k {
            let p = (z[c] - max).exp() / sum - if c == label { 1.0 } else { 0.0 };
            for i in 0..d {
                g[c * d + i] += p * x[i] / m as f64;
            }
        }
    }
    g
}

/// Arrays written before and after each call, in every iteration: two differentiated arrays passed to
/// one callee, one array written again right after the call, a call in a branch taken every other
/// iteration, a callee with a data array beside a differentiated one, a value used twice (kept for the
/// reverse sweep), and one passed on bare (not known to be a float: run again in joint mode).
#[differentiable(wrt(x))]
fn rows_around_calls(x: &[f64], weights: &[f64], n: usize) -> f64 {
    let mut a = vec![0.0; 3];
    let mut b = vec![0.0; 3];
    let mut total = 0.0;
    for step in 0..n {
        for i in 0..3 {
            a[i] = x[(step + i) % x.len()] * (0.5 + 0.25 * i as f64) + a[i] * 0.5;
            b[i] = (x[(2 * step + i) % x.len()] - b[(i + 1) % 3]).sin();
        }
        let y = pair(&a, &b);
        total += 0.1 * y * y - a[0];
        a[1] *= b[2];
        if step % 2 == 0 {
            total += 0.3 * lse(&b);
        }
        total += weighted_by(&a, weights) * 0.25;
        let bare = lse(&a);
        b[0] += bare.cos() * 0.1 + total.sin() * 0.01;
    }
    total + b[0] * a[2]
}

/// A generic caller, for second derivatives through a stored gradient (on `Dual<f64>`) and `f32`.
#[differentiable(order = 2)]
fn rows_generic<T: Float>(x: &[T]) -> T {
    let mut z = vec![T::zero(); 3];
    let mut total = T::zero();
    for j in 0..x.len() - 2 {
        for c in 0..3 {
            z[c] = x[j + c] * x[j];
        }
        total = total + lse_generic(&z) * x[j];
    }
    total
}

fn rows_and_labels() -> impl Strategy<Value = (Vec<f64>, Vec<f64>, Vec<usize>)> {
    // k = 3 classes, d = 2 features, 1 to 5 examples.
    (1usize..6).prop_flat_map(|m| {
        (
            prop::collection::vec(-2.0..2.0, 6),
            prop::collection::vec(-2.0..2.0, 2 * m),
            prop::collection::vec(0usize..3, m),
        )
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_row_rewritten_per_example_through_a_call(
        (w, data, labels) in rows_and_labels()
    ) {
        let (value, grad) = rows_through_a_call_grad(&w, &data, &labels, 2, 3);
        assert_eq!(value, rows_through_a_call(&w, &data, &labels, 2, 3));
        let expected = rows_through_a_call_gradient(&w, &data, &labels, 2, 3);
        assert_all_close(&grad, &expected, ANALYTIC_TOL, "rows_through_a_call");
        assert_fd_gradient(
            |w| rows_through_a_call(w, &data, &labels, 2, 3),
            &w,
            &grad,
            "rows_through_a_call",
        );
        let mut into = vec![f64::NAN; 6];
        rows_through_a_call_grad_into(&w, &data, &labels, 2, 3, &mut into);
        assert_eq!(into, grad);
        let (_, scaled) = rows_through_a_call_vjp(&w, &data, &labels, 2, 3, -0.75);
        let expected: Vec<f64> = grad.iter().map(|g| -0.75 * g).collect();
        assert_all_close(&scaled, &expected, ANALYTIC_TOL, "rows_through_a_call_vjp");
    }

    #[test]
    fn arrays_written_around_calls(
        x in prop::collection::vec(-1.5..1.5, 2..6),
        weights in prop::collection::vec(0.1..2.0, 3),
        n in 0usize..6,
    ) {
        let (value, grad) = rows_around_calls_grad(&x, &weights, n);
        assert_eq!(value, rows_around_calls(&x, &weights, n));
        assert_fd_gradient(|x| rows_around_calls(x, &weights, n), &x, &grad, "rows_around_calls");
        let mut into = vec![f64::NAN; x.len()];
        rows_around_calls_grad_into(&x, &weights, n, &mut into);
        assert_eq!(into, grad);
        // The `order = 2` generic caller: its Hessian-vector product against central differences of
        // its gradient, and `f32` against `f64`.
        if x.len() >= 3 {
            let (value, grad) = rows_generic_grad(&x);
            assert_eq!(value, rows_generic(&x));
            assert_fd_gradient(rows_generic, &x, &grad, "rows_generic");
            let v: Vec<f64> = (0..x.len()).map(|i| 0.5 - 0.25 * i as f64).collect();
            let (_, _, hv) = rows_generic_hvp(&x, v.clone());
            let mut expected = vec![0.0; x.len()];
            for (i, vi) in v.iter().enumerate() {
                let column = hessian_column(|x| rows_generic_grad(x).1, &x, i);
                for (e, h) in expected.iter_mut().zip(column) {
                    *e += h * vi;
                }
            }
            for (a, e) in hv.iter().zip(&expected) {
                assert!((a - e).abs() <= 1e-5 * (1.0 + e.abs()), "hvp {hv:?} vs {expected:?}");
            }
            let x32: Vec<f32> = x.iter().map(|v| *v as f32).collect();
            let (_, grad32) = rows_generic_grad(&x32);
            let (_, grad64) = rows_generic_grad(&x32.iter().map(|v| f64::from(*v)).collect::<Vec<_>>());
            for (a, e) in grad32.iter().zip(&grad64) {
                assert!((f64::from(*a) - e).abs() <= 1e-3 * (1.0 + e.abs()), "{grad32:?} vs {grad64:?}");
            }
        }
    }
}

/// A custom gradient that clips the cotangent (as JAX's `custom_vjp` gradient-clipping example does): its
/// vector-Jacobian product is not linear in the cotangent, so no caller may store its gradient at the
/// cotangent one and scale it.
#[autodiff::custom_gradient]
fn clipped_sum(z: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64>) {
    let n = z.len();
    (z.iter().sum(), move |dy| vec![dy.clamp(-1.0, 1.0); n])
}

/// A `#[differentiable]` function that calls one: not linear in the cotangent either.
#[differentiable]
fn calls_clipped(z: &[f64]) -> f64 {
    2.0 * clipped_sum(z)
}

/// Rows rewritten around calls of nonlinear callees (through the custom gradient directly, and through a
/// differentiable function calling it), besides a linear one (`lse`).
#[differentiable]
fn rows_through_clipped_calls(x: f64) -> f64 {
    let mut z = vec![0.0; 2];
    let mut total = 0.0;
    for step in 0..3 {
        z[0] = x * (step as f64 + 1.0);
        z[1] = 2.0 * x;
        total += 3.0 * clipped_sum(&z) + 0.5 * calls_clipped(&z) + lse(&z) * 1.0;
        z[1] = 0.0;
    }
    total + z[1]
}

#[test]
fn calls_whose_gradient_clips_the_cotangent_run_it_again() {
    for x in [-0.7, 0.2, 1.3] {
        let (value, slope) = rows_through_clipped_calls_grad(x);
        assert_eq!(value, rows_through_clipped_calls(x));
        // Each clipped call sees its cotangent clipped to 1 (3 and 0.5 * 2 = 1): d/dx of z[0] + z[1]
        // through it is (step + 1) + 2, twice per step; `lse` adds softmax(z) · dz/dx.
        let mut expected = 0.0;
        for step in 0..3 {
            let c = step as f64 + 1.0;
            let z = [x * c, 2.0 * x];
            let (e0, e1) = (z[0].exp(), z[1].exp());
            expected += 2.0 * (c + 2.0) + (e0 * c + e1 * 2.0) / (e0 + e1);
        }
        assert_close(slope, expected, ANALYTIC_TOL, "rows_through_clipped_calls");
    }
}

/// A parameter taken by reference passed on through a copy of it (`let b = *a; weighted_sum(&b)`, which
/// reads `a`) and bare (`weighted_sum(a)`): passed as the reference it is (was rustc's "expected `&[f64]`,
/// found `&&[f64; 3]`" in generated code), at `order = 2`.
#[differentiable]
fn weighted_sum(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &x) in v.iter().enumerate() {
        s += x * x * (i + 1) as f64;
    }
    s
}

// `&w` of a reference as written (what is tested).
#[allow(clippy::needless_borrow)]
#[differentiable(order = 2)]
fn through_a_copy(a: &[f64; 3], w: &Vec<f64>) -> f64 {
    let b = *a;
    weighted_sum(&b) * b[1] + weighted_sum(a) + weighted_sum(&w) * a[0]
}

fn through_a_copy_by_hand(x: &[f64]) -> f64 {
    let ws = |v: &[f64]| -> f64 {
        v.iter()
            .enumerate()
            .map(|(i, v)| v * v * (i + 1) as f64)
            .sum()
    };
    ws(&x[..3]) * x[1] + ws(&x[..3]) + ws(&x[3..]) * x[0]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_reference_parameter_passed_through_a_copy(x in prop::array::uniform5(moderate())) {
        let (a, w) = ([x[0], x[1], x[2]], vec![x[3], x[4]]);
        let (value, (ga, gw), hessian) = through_a_copy_hessian(&a, &w);
        prop_assert_eq!(value, through_a_copy(&a, &w));
        assert_close(value, through_a_copy_by_hand(&x), 1e-12, "value by hand");
        let grad: Vec<f64> = ga.iter().chain(&gw).copied().collect();
        assert_fd_gradient(through_a_copy_by_hand, &x, &grad, "gradient");
        let flat_grad = |y: &[f64]| {
            let (_, (ga, gw)) = through_a_copy_grad(&[y[0], y[1], y[2]], &vec![y[3], y[4]]);
            ga.iter().chain(&gw).copied().collect::<Vec<f64>>()
        };
        assert_jacobian(&hessian, &fd_jacobian(flat_grad, &x), "Hessian");
    }
}

/// A call's result whose type the macro cannot see (an array, a tuple) passed whole to calls more than
/// once: its two cotangents are added by their type (they were added by `+`, rustc's E0369 "cannot add
/// `[f64; 3]` to `[f64; 3]`" in the generated code, at first order and in `order = 2`'s copy).
mod call_results_passed_twice {
    use autodiff::differentiable;

    #[differentiable]
    pub fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    #[differentiable]
    pub fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
    }

    /// `|o - c|²`, the difference passed twice to one call.
    #[differentiable]
    pub fn dist2(o: [f64; 3], c: [f64; 3]) -> f64 {
        let oc = sub(o, c);
        dot3(oc, oc)
    }

    /// `(o - c)·o + (o - c)·c`, the difference passed to two calls.
    #[differentiable]
    pub fn two_calls(o: [f64; 3], c: [f64; 3]) -> f64 {
        let oc = sub(o, c);
        dot3(oc, o) + dot3(oc, c)
    }

    #[differentiable]
    pub fn pair(a: f64) -> (f64, f64) {
        (a * a, a.sin())
    }

    #[differentiable]
    pub fn cross(p: (f64, f64), q: (f64, f64)) -> f64 {
        p.0 * q.1 + p.1 * q.0
    }

    /// A tuple result passed twice: `2 a² sin a`.
    #[differentiable]
    pub fn tuple_twice(a: f64) -> f64 {
        let p = pair(a);
        cross(p, p)
    }

    /// At `order = 2`: `|o - c|² ((o - c)·o)`.
    #[differentiable(order = 2)]
    pub fn product(o: [f64; 3], c: [f64; 3]) -> f64 {
        let oc = sub(o, c);
        dot3(oc, oc) * dot3(oc, o)
    }
}

#[test]
fn call_results_passed_twice_to_calls() {
    use call_results_passed_twice::*;
    let mut inputs = Inputs(4140);
    for _ in 0..20 {
        let (o, c) = (
            [inputs.next(), inputs.next(), inputs.next()],
            [inputs.next(), inputs.next(), inputs.next()],
        );
        let d: Vec<f64> = (0..3).map(|k| o[k] - c[k]).collect();
        let (v, (go, gc)) = dist2_grad(o, c);
        assert_eq!(v, dist2(o, c));
        for k in 0..3 {
            assert_close(go[k], 2.0 * d[k], 1e-15, "dist2 d o");
            assert_close(gc[k], -2.0 * d[k], 1e-15, "dist2 d c");
        }
        // (o - c)·(o + c) = |o|² - |c|².
        let (v, (go, gc)) = two_calls_grad(o, c);
        assert_eq!(v, two_calls(o, c));
        for k in 0..3 {
            assert_close(go[k], 2.0 * o[k], 1e-15, "two_calls d o");
            assert_close(gc[k], -2.0 * c[k], 1e-15, "two_calls d c");
        }
        let a = o[0] * 3.0;
        let (v, g) = tuple_twice_grad(a);
        assert_eq!(v, tuple_twice(a));
        let by_hand = 4.0 * a * a.sin() + 2.0 * a * a * a.cos();
        assert_close(g, by_hand, 1e-14, "tuple_twice");
        // f = q p with q = |d|², p = d·o: the Hessian by central differences of the gradient.
        let flat = |x: &[f64]| ([x[0], x[1], x[2]], [x[3], x[4], x[5]]);
        let grad = |x: &[f64]| {
            let (o, c) = flat(x);
            let (_, (go, gc)) = product_grad(o, c);
            [go, gc].concat()
        };
        let x: Vec<f64> = o.iter().chain(&c).copied().collect();
        let (v, g, h) = product_hessian(o, c);
        assert_eq!(v, product(o, c));
        assert_all_close(&[g.0, g.1].concat(), &grad(&x), 1e-14, "product gradient");
        assert_fd_gradient(
            |x: &[f64]| {
                let (o, c) = flat(x);
                product(o, c)
            },
            &x,
            &grad(&x),
            "product",
        );
        assert_jacobian(&h, &fd_jacobian(grad, &x), "product Hessian");
    }
}
