//! Calls across crates: the differentiable functions of this crate call those that the library crate
//! `adlib` (`tests/adlib/`) exports, imported (`use adlib::softplus;`) and by path (`adlib::softplus(..)`),
//! and a plain function of `adlib` with a gradient registered here (`#[gradient_of(adlib::plain_dot)]`).
//!
//! Each is checked against central differences (`autodiff::check_gradient`) and against its derivative
//! written by hand, at random inputs; `_vjp` and `_jvp` against `_grad`; the generic caller also at `f32`
//! and, for second derivatives, at `autodiff::Dual<f64>`.

mod common;

use adlib::{bump, log1pexp, plain_dot, polar, scaled, softplus, sumsq, weighted_sines};
use autodiff::{differentiable, gradient_of, Dual, Float};
use common::*;
use proptest::prelude::*;

// ---- the callers ----

/// `softplus(x, 2) · bump(y, x)`, through imported names.
#[differentiable]
fn imported(x: f64, y: f64) -> f64 {
    softplus(x, 2.0) * bump(y, x)
}

/// The same functions called by their path in `adlib`, one with a turbofish.
#[differentiable]
fn by_path(x: f64, beta: f64) -> f64 {
    adlib::softplus(x, beta) + adlib::bump::<f64>(x, 0.5)
}

/// A generic caller of a generic callee, by path and imported.
#[differentiable]
fn generic_caller<T: Float>(x: T, mu: T) -> T {
    adlib::bump(x * x, mu) + bump::<T>(x, T::one())
}

/// A callee returning a `Vec`, callees taking slices, and one in a module of `adlib` by its path:
/// `4 Σ xᵢ² + Σ wᵢ sin xᵢ + var(x)`.
#[differentiable]
fn slices(w: &[f64], x: &[f64]) -> f64 {
    let doubled: Vec<f64> = scaled(x, 2.0);
    sumsq(&doubled) + weighted_sines(w, x) + adlib::stats::variance(x)
}

/// A callee returning a tuple, and a custom gradient of `adlib`: `a² b + ln(1 + eᵇ)` at
/// `(a, b) = (r cos t, r sin t)`.
#[differentiable]
fn tuple(r: f64, t: f64) -> f64 {
    let (a, b) = adlib::polar(r, t);
    a * a * b + log1pexp(b)
}

/// A plain function of another crate, given its gradient here.
#[gradient_of(adlib::plain_dot)]
fn plain_dot_vjp(a: &[f64], b: &[f64], dy: f64) -> (Vec<f64>, Vec<f64>) {
    (
        b.iter().map(|v| v * dy).collect(),
        a.iter().map(|v| v * dy).collect(),
    )
}

/// The registered `plain_dot`, also with one slice in both places: `sin(a · b) + a · a`.
#[differentiable]
fn registered(a: &[f64], b: &[f64]) -> f64 {
    plain_dot(a, b).sin() + plain_dot(a, a)
}

/// A chain across both crates and the registered gradient: `scaled` (adlib) then `plain_dot`
/// (registered here): `c Σ xᵢ²`.
#[differentiable]
fn scaled_dot(x: &[f64], c: f64) -> f64 {
    let s: Vec<f64> = scaled(x, c);
    plain_dot(&s, x)
}

/// `adlib::softplus` (which calls `adlib::log1pexp`) in a loop: `y ← softplus(y, 1) - 1`, `n` times.
#[differentiable(wrt(x))]
fn iterated(x: f64, n: usize) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y = softplus(y, 1.0) - 1.0;
    }
    y
}

/// A branch between two callees of `adlib`.
#[differentiable]
fn branch(x: f64, y: f64) -> f64 {
    if x > y {
        let (a, b) = polar(x, y);
        a + b
    } else {
        bump(x, y) * 3.0
    }
}

// ---- the derivatives written by hand ----

/// `ln(1 + eˣ)`, the reference.
fn ln1pexp(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// `exp(-u² / 2)`.
fn gauss(u: f64) -> f64 {
    (-0.5 * u * u).exp()
}

fn imported_gradient(x: f64, y: f64) -> [f64; 2] {
    let (sp, g, u) = (ln1pexp(2.0 * x) / 2.0, gauss(y - x), y - x);
    [sigmoid(2.0 * x) * g + sp * g * u, -sp * g * u]
}

fn by_path_gradient(x: f64, beta: f64) -> [f64; 2] {
    let s = sigmoid(beta * x);
    [
        s - (x - 0.5) * gauss(x - 0.5),
        x * s / beta - ln1pexp(beta * x) / (beta * beta),
    ]
}

fn generic_caller_gradient(x: f64, mu: f64) -> [f64; 2] {
    let (u, g1, g2) = (x * x - mu, gauss(x * x - mu), gauss(x - 1.0));
    [-2.0 * x * u * g1 - (x - 1.0) * g2, u * g1]
}

fn generic_caller_hessian(x: f64, mu: f64) -> [[f64; 2]; 2] {
    let (u, g1, g2) = (x * x - mu, gauss(x * x - mu), gauss(x - 1.0));
    let xx = (-2.0 * u - 4.0 * x * x + 4.0 * x * x * u * u) * g1 + ((x - 1.0).powi(2) - 1.0) * g2;
    let x_mu = 2.0 * x * (1.0 - u * u) * g1;
    let mu_mu = (u * u - 1.0) * g1;
    [[xx, x_mu], [x_mu, mu_mu]]
}

fn slices_gradient(w: &[f64], x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    (
        x.iter().map(|v| v.sin()).collect(),
        w.iter()
            .zip(x)
            .map(|(w, x)| 8.0 * x + w * x.cos() + 2.0 * (x - mean) / n)
            .collect(),
    )
}

fn tuple_gradient(r: f64, t: f64) -> [f64; 2] {
    let (a, b) = (r * t.cos(), r * t.sin());
    let (da, db) = (2.0 * a * b, a * a + sigmoid(b));
    [
        da * t.cos() + db * t.sin(),
        -da * r * t.sin() + db * r * t.cos(),
    ]
}

fn registered_gradient(a: &[f64], b: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let c = dot(a, b).cos();
    (
        a.iter().zip(b).map(|(a, b)| c * b + 2.0 * a).collect(),
        a.iter().map(|a| c * a).collect(),
    )
}

/// `iterated` and its derivative by the chain rule, step by step.
fn iterated_reference(x: f64, n: usize) -> (f64, f64) {
    let (mut y, mut dy) = (x, 1.0);
    for _ in 0..n {
        dy *= sigmoid(y);
        y = ln1pexp(y) - 1.0;
    }
    (y, dy)
}

fn branch_gradient(x: f64, y: f64) -> [f64; 2] {
    if x > y {
        [y.cos() + y.sin(), -x * y.sin() + x * y.cos()]
    } else {
        let g = gauss(x - y);
        [-3.0 * (x - y) * g, 3.0 * (x - y) * g]
    }
}

// ---- checks ----

/// Checks a function with slice inputs `(a, b)` of one output: its value, its gradient against the one
/// written by hand and central differences (over `a` then `b`, flattened), and `_jvp` along `(ta, tb)`.
#[track_caller]
fn check_two_slices(
    what: &str,
    primal: impl Fn(&[f64], &[f64]) -> f64,
    (a, b): (&[f64], &[f64]),
    (value, (ga, gb)): (f64, (Vec<f64>, Vec<f64>)),
    (expected_a, expected_b): (Vec<f64>, Vec<f64>),
    jvp: (f64, f64),
    (ta, tb): (&[f64], &[f64]),
) {
    let n = a.len();
    let flat_primal = |p: &[f64]| primal(&p[..n], &p[n..]);
    let at = [a, b].concat();
    assert_all_close(
        &ga,
        &expected_a,
        ANALYTIC_TOL,
        &format!("{what}: first gradient"),
    );
    assert_all_close(
        &gb,
        &expected_b,
        ANALYTIC_TOL,
        &format!("{what}: second gradient"),
    );
    check_flat(
        what,
        flat_primal,
        &at,
        (value, &[ga, gb].concat()),
        jvp,
        &[ta, tb].concat(),
    );
}

/// Two vectors of one random length in 1..6, and a tangent for each.
fn two_vectors() -> impl Strategy<Value = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>)> {
    (1..6usize).prop_flat_map(|n| {
        (
            prop::collection::vec(moderate(), n),
            prop::collection::vec(moderate(), n),
            prop::collection::vec(tangent(), n),
            prop::collection::vec(tangent(), n),
        )
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn imported_names(x in moderate(), y in moderate(), t in tangents()) {
        check_scalar(
            "imported",
            |p| imported(p[0], p[1]),
            &[x, y],
            (imported_grad(x, y), |d| imported_vjp(x, y, d), |v| imported_jvp(x, y, v)),
            &imported_gradient(x, y),
            &t,
        );
    }

    #[test]
    fn paths_into_the_other_crate(x in moderate(), beta in positive(), t in tangents()) {
        check_scalar(
            "by_path",
            |p| by_path(p[0], p[1]),
            &[x, beta],
            (by_path_grad(x, beta), |d| by_path_vjp(x, beta, d), |v| by_path_jvp(x, beta, v)),
            &by_path_gradient(x, beta),
            &t,
        );
    }

    #[test]
    fn generic_caller_of_a_generic_callee(x in moderate(), mu in moderate(), t in tangents()) {
        check_scalar(
            "generic_caller::<f64>",
            |p| generic_caller(p[0], p[1]),
            &[x, mu],
            (
                generic_caller_grad(x, mu),
                |d| generic_caller_vjp(x, mu, d),
                |v| generic_caller_jvp(x, mu, v),
            ),
            &generic_caller_gradient(x, mu),
            &t,
        );
        let (xf, muf) = (x as f32, mu as f32);
        check_scalar_f32(
            generic_caller(xf, muf),
            (
                generic_caller_grad(xf, muf),
                |d| generic_caller_vjp(xf, muf, d),
                |v| generic_caller_jvp(xf, muf, v),
            ),
            &generic_caller_gradient(xf.into(), muf.into()),
            &t,
        );
    }

    /// Forward over reverse through the calls: `_grad` on duals seeded along `e_j` gives column `j` of
    /// the Hessian, against the formula and central differences of the generated gradient.
    #[test]
    fn second_order_across_crates(x in moderate(), mu in moderate()) {
        let expected = generic_caller_hessian(x, mu);
        let gradient = generic_caller_gradient(x, mu);
        for (j, seed) in [[1.0, 0.0], [0.0, 1.0]].into_iter().enumerate() {
            let (value, (gx, gmu)) =
                generic_caller_grad::<Dual<f64>>(Dual::new(x, seed[0]), Dual::new(mu, seed[1]));
            prop_assert_eq!(value.re, generic_caller(x, mu));
            assert_all_close(&[gx.re, gmu.re], &gradient, ANALYTIC_TOL, "re of the dual gradient");
            let column = [gx.eps, gmu.eps];
            let expected_column = [expected[0][j], expected[1][j]];
            assert_all_close(&column, &expected_column, ANALYTIC_TOL, "Hessian column by duals");
            let shifted = |h: f64| {
                let (x, mu) = (x + h * seed[0], mu + h * seed[1]);
                generic_caller_grad(x, mu).1
            };
            let differences = [
                central_difference(|h| shifted(h).0, 0.0),
                central_difference(|h| shifted(h).1, 0.0),
            ];
            assert_all_close(&column, &differences, FD_TOL, "Hessian column by differences");
        }
    }

    #[test]
    fn slices_vecs_and_a_module_path((w, x, tw, tx) in two_vectors()) {
        check_two_slices(
            "slices",
            slices,
            (&w, &x),
            slices_grad(&w, &x),
            slices_gradient(&w, &x),
            slices_jvp(&w, &x, (tw.clone(), tx.clone())),
            (&tw, &tx),
        );
    }

    #[test]
    fn tuple_result_and_custom_gradient(r in positive(), t in moderate(), v in tangents()) {
        check_scalar(
            "tuple",
            |p| tuple(p[0], p[1]),
            &[r, t],
            (tuple_grad(r, t), |d| tuple_vjp(r, t, d), |v| tuple_jvp(r, t, v)),
            &tuple_gradient(r, t),
            &v,
        );
    }

    #[test]
    fn registered_gradient_of_a_plain_function((a, b, ta, tb) in two_vectors()) {
        check_two_slices(
            "registered",
            registered,
            (&a, &b),
            registered_grad(&a, &b),
            registered_gradient(&a, &b),
            registered_jvp(&a, &b, (ta.clone(), tb.clone())),
            (&ta, &tb),
        );
    }

    #[test]
    fn chain_through_both_crates(
        (x, tx) in vec_with_tangent(moderate(), 1..6),
        c in moderate(),
        tc in tangent(),
    ) {
        let (value, (gx, gc)) = scaled_dot_grad(&x, c);
        let expected: Vec<f64> = x.iter().map(|x| 2.0 * c * x).collect();
        assert_all_close(&gx, &expected, ANALYTIC_TOL, "scaled_dot: d/dx");
        assert_close(gc, dot(&x, &x), ANALYTIC_TOL, "scaled_dot: d/dc");
        let n = x.len();
        check_flat(
            "scaled_dot",
            |p| scaled_dot(&p[..n], p[n]),
            &[x.as_slice(), &[c]].concat(),
            (value, &[gx.as_slice(), &[gc]].concat()),
            scaled_dot_jvp(&x, c, (tx.clone(), tc)),
            &[tx.as_slice(), &[tc]].concat(),
        );
    }

    #[test]
    fn calls_in_a_loop(x in moderate(), n in 0..6usize, t in tangent()) {
        let (expected_value, expected_slope) = iterated_reference(x, n);
        let (value, slope) = iterated_grad(x, n);
        assert_close(value, expected_value, ANALYTIC_TOL, "iterated: value");
        assert_close(slope, expected_slope, ANALYTIC_TOL, "iterated: slope");
        check_scalar(
            "iterated",
            |p| iterated(p[0], n),
            &[x],
            ((value, slope), |d| iterated_vjp(x, n, d), |v| iterated_jvp(x, n, v)),
            &[expected_slope],
            &[t],
        );
    }

    #[test]
    fn calls_in_branches((x, y) in distinct_pair(), t in tangents()) {
        check_scalar(
            "branch",
            |p| branch(p[0], p[1]),
            &[x, y],
            (branch_grad(x, y), |d| branch_vjp(x, y, d), |v| branch_jvp(x, y, v)),
            &branch_gradient(x, y),
            &t,
        );
    }
}

/// `adlib::log1pexp`'s custom gradient is used through `adlib::softplus` and the caller here: where
/// `eˣ` overflows, the gradient stays exact instead of becoming NaN.
#[test]
fn the_other_crates_custom_gradient_is_used() {
    let (value, (dx, dbeta)) = by_path_grad(800.0, 1.0);
    assert_eq!(value, 800.0 + gauss(799.5));
    assert_eq!(dx, 1.0 - 799.5 * gauss(799.5));
    assert!(dbeta.is_finite(), "d/dβ = {dbeta}");
    assert_eq!(iterated_grad(900.0, 3), (897.0, 1.0));
}

/// The functions of `adlib` stay callable as written, and the registered gradient does not change
/// `plain_dot`.
#[test]
fn the_functions_stay_as_written() {
    assert_eq!(plain_dot(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
    assert_eq!(sumsq(&[3.0, 4.0]), 25.0);
    assert_eq!(scaled(&[1.0, 2.0], 3.0), vec![3.0, 6.0]);
    assert_eq!(polar(2.0, 0.0), (2.0, 0.0));
    assert_eq!(adlib::stats::mean(&[1.0, 2.0, 6.0]), 3.0);
    assert_eq!(weighted_sines(&[2.0f32], &[0.0]), 0.0);
    assert_eq!(registered(&[1.0, 2.0], &[0.0, 0.0]), 5.0);
}
