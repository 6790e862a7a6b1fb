//! Helpers shared by the integration tests: an independent central difference, tolerant comparisons,
//! and proptest strategies for inputs inside a function's domain.
//!
//! Every test crate under `tests/` includes this module with `mod common;` and uses only part of it.

// Each test crate compiles its own copy of this module and uses a different part of it.
#![allow(dead_code)]

pub mod contract;
pub mod probe;

use autodiff::check_gradient;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// One body twice: `$name` with the attributes given (`#[differentiable(order = 2)]`), `$plain` as
/// written, without them: the oracle for a function's value, sharing its text but not the macro. A test
/// crate that uses it declares `#[macro_use] mod common;`.
#[allow(unused_macros)]
macro_rules! twin {
    ($(#[$attr:meta])* fn $name:ident / $plain:ident ($($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        $(#[$attr])*
        fn $name($($arg: $ty),*) -> $ret $body
        fn $plain($($arg: $ty),*) -> $ret $body
    };
}

/// A small deterministic generator of inputs in `[-1, 1)`, seeded by each test (a 64-bit linear
/// congruential generator with Knuth's MMIX constants; no code shared with the library).
pub struct Inputs(pub u64);

impl Inputs {
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    pub fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.next()).collect()
    }

    pub fn rows(&mut self, m: usize, n: usize) -> Vec<Vec<f64>> {
        (0..m).map(|_| self.vec(n)).collect()
    }
}

/// The proptest configuration of the suite: few cases, so the whole suite stays fast, no regression
/// files written into the source tree, and a fixed seed, so that a run of CI is reproducible (a random
/// point that lands within a finite-difference step of a function's kink fails one run in many, and CI
/// must not flake). To explore other points, set `PROPTEST_RNG_SEED` (a number) or
/// `PROPTEST_RNG_SEED=random` (see [`seed`]).
pub fn config() -> Config {
    Config {
        failure_persistence: None,
        rng_seed: seed(),
        ..Config::with_cases(64)
    }
}

/// The seed of [`config`]: `PROPTEST_RNG_SEED=<u64>` picks another fixed one, `PROPTEST_RNG_SEED=random` a
/// random one per run (proptest prints the failing input, not the seed, so rerun with a number to
/// reproduce a campaign's failure).
pub fn seed() -> proptest::test_runner::RngSeed {
    use proptest::test_runner::RngSeed;
    match std::env::var("PROPTEST_RNG_SEED") {
        Ok(v) if v == "random" => RngSeed::Random,
        Ok(v) => v.parse().map_or(RngSeed::Fixed(2026), RngSeed::Fixed),
        Err(_) => RngSeed::Fixed(2026),
    }
}

/// The tolerance of [`check_gradient`] against central differences: those are good to about `1e-9`
/// relative for smooth functions, so `1e-6` separates right gradients from wrong ones.
pub const FD_TOL: f64 = 1e-6;

/// The tolerance of a generated `f64` derivative against a hand-written formula for it: both are exact
/// formulas evaluated in floating point, differing only in rounding.
pub const ANALYTIC_TOL: f64 = 1e-10;

/// The same for `f32`.
pub const ANALYTIC_TOL_F32: f64 = 1e-5;

/// `|actual - expected| / max(1, |actual|, |expected|)`, the error measure of `check_gradient`; 0 for
/// equal infinities, NaN when either side is NaN or the two are opposite infinities.
pub fn relative_error(actual: f64, expected: f64) -> f64 {
    if actual == expected {
        // Equal infinities compare equal, and are no error.
        return 0.0;
    }
    (actual - expected).abs() / 1.0_f64.max(actual.abs()).max(expected.abs())
}

/// Asserts that `actual` is within `tol` of `expected` in [`relative_error`]; NaN never passes.
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, tol: f64, what: &str) {
    let error = relative_error(actual, expected);
    assert!(
        error <= tol,
        "{what}: got {actual:e}, expected {expected:e} (relative error {error:e}, tolerance {tol:e})"
    );
}

/// Asserts [`assert_close`] component by component.
#[track_caller]
pub fn assert_all_close(actual: &[f64], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths differ");
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        assert_close(a, e, tol, &format!("{what}, component {i}"));
    }
}

/// Asserts that `grad` is the gradient of `f` at `x` by central finite differences
/// ([`autodiff::check_gradient`], tolerance [`FD_TOL`]).
#[track_caller]
pub fn assert_fd_gradient(f: impl Fn(&[f64]) -> f64, x: &[f64], grad: &[f64], what: &str) {
    let check = check_gradient(f, x, grad);
    assert!(check.is_ok(FD_TOL), "{what} at {x:?}: {check}");
}

/// Column `i` of a Hessian: differences of `grad` (a gradient over a flat vector of inputs, such as a
/// struct's `to_flat` view) along input `i` of `x`, by the fourth-order central formula
/// `(8 (g(x + h) - g(x - h)) - (g(x + 2h) - g(x - 2h))) / 12h`. The second-order one,
/// `(g(x + h) - g(x - h)) / 2h`, is off by `h^2 g'''/6`: up to `5e-6` relative on `sin` of a product of
/// `sin`s near `|x| = 3` (`tests/forms.rs::arrays_that_calls_return_chosen_by_if_and_match` failed on such a
/// point while the Hessian agreed with a Richardson-extrapolated difference to `1e-10`).
pub fn hessian_column(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], i: usize) -> Vec<f64> {
    let h = 1e-5 * x[i].abs().max(1.0);
    let at = |s: f64| {
        let mut y = x.to_vec();
        y[i] += s * h;
        grad(&y)
    };
    let (above, below) = (at(1.0), at(-1.0));
    let (above2, below2) = (at(2.0), at(-2.0));
    (0..above.len())
        .map(|k| (8.0 * (above[k] - below[k]) - (above2[k] - below2[k])) / (12.0 * h))
        .collect()
}

/// Every column of the Hessian `h` against [`hessian_column`] of the gradient `grad` at the flat point `at`.
pub fn assert_hessian_fd(
    h: &[Vec<f64>],
    grad: impl Fn(&[f64]) -> Vec<f64>,
    at: &[f64],
    tol: f64,
    what: &str,
) {
    assert_eq!(
        h.len(),
        at.len(),
        "{what}: {} rows for {} inputs",
        h.len(),
        at.len()
    );
    for (i, row) in h.iter().enumerate() {
        assert_all_close(row, &hessian_column(&grad, at, i), tol, what);
    }
}

/// The Jacobian of `f` over the flat inputs `x` by central differences (`hessian_column` differences any
/// vector function along one input), rows the outputs; of a gradient, the Hessian.
pub fn fd_jacobian(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let columns: Vec<Vec<f64>> = (0..x.len()).map(|j| hessian_column(&f, x, j)).collect();
    let rows = columns.first().map_or(0, Vec::len);
    (0..rows)
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect()
}

/// Asserts that two Jacobians agree entry by entry to central differences' accuracy (`1e-6` relative).
#[track_caller]
pub fn assert_jacobian(actual: &[Vec<f64>], expected: &[Vec<f64>], what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: rows");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert_all_close(a, e, 1e-6, &format!("{what}, row {i}"));
    }
}

/// Checks a function of one scalar at `order = K` against its derivatives by hand at `x` (`by_hand[k]` the
/// k-th): `derivatives` (its `f_derivatives(x)`) and its value, and the second derivative by central
/// differences of `grad` (its `f_grad`) against `by_hand[2]` and against `second` (its `f_hessian(x)`'s entry).
#[track_caller]
pub fn check_by_hand(
    what: &str,
    x: f64,
    by_hand: &[f64],
    f: impl Fn(f64) -> f64,
    grad: impl Fn(f64) -> (f64, f64),
    derivatives: &[f64],
    second: f64,
) {
    assert_all_close(derivatives, by_hand, 1e-12, what);
    assert_all_close(&[f(x)], &by_hand[..1], 1e-12, &format!("{what}: value"));
    let differences = central_difference(|x| grad(x).1, x);
    assert_all_close(
        &[by_hand[2]],
        &[differences],
        1e-6,
        &format!("{what}: against differences of f_grad"),
    );
    assert_all_close(
        &[second],
        &[differences],
        1e-6,
        &format!("{what}: its Hessian against differences of f_grad"),
    );
}

/// The gradient of an `f(x: &[f64], c: f64)`, as `f_grad` returns it.
pub type SliceAndScalarGrad = (f64, (Vec<f64>, f64));

/// Checks one `f(x: &[f64], c: f64)` through its `_grad` and `_hessian`: the value is the plain body's
/// (`plain`, the same text without the macro: [`twin!`]) to the bit, the gradient matches central
/// differences of `plain`, and the Hessian central differences of the gradient.
#[track_caller]
pub fn check_slice_and_scalar(
    what: &str,
    f: impl Fn(&[f64], f64) -> f64,
    plain: impl Fn(&[f64], f64) -> f64,
    grad: impl Fn(&[f64], f64) -> SliceAndScalarGrad,
    hessian: impl Fn(&[f64], f64) -> (f64, (Vec<f64>, f64), Vec<Vec<f64>>),
    x: &[f64],
    c: f64,
) {
    let n = x.len();
    let (value, (gx, gc)) = grad(x, c);
    assert_eq!(value, plain(x, c), "{what}: the value of _grad");
    assert_eq!(value, f(x, c), "{what}: the value");
    let flat: Vec<f64> = x.iter().copied().chain([c]).collect();
    let g: Vec<f64> = gx.iter().copied().chain([gc]).collect();
    assert_fd_gradient(|p| plain(&p[..n], p[n]), &flat, &g, what);
    let (_, _, h) = hessian(x, c);
    let flat_grad = |p: &[f64]| {
        let (_, (gx, gc)) = grad(&p[..n], p[n]);
        gx.iter().copied().chain([gc]).collect::<Vec<f64>>()
    };
    assert_jacobian(&h, &fd_jacobian(flat_grad, &flat), what);
}

/// The central difference `(f(x + h) - f(x - h)) / 2h` of a function of one variable, with a step scaled
/// to `x` as `check_gradient` does: written here independently of the crate, for derivatives of
/// derivatives and for `f32` code, which `check_gradient` does not take.
pub fn central_difference(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = f64::EPSILON.cbrt() * x.abs().max(1.0);
    let (above, below) = (x + h, x - h);
    (f(above) - f(below)) / (above - below)
}

/// `a · b`.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// Asserts that `actual` is `grad · tangent` within `tol`, relative to the sum of the terms' sizes:
/// a `_jvp` sums the same terms in its own order and precision, and the terms may cancel.
#[track_caller]
pub fn assert_dot(actual: f64, grad: &[f64], tangent: &[f64], tol: f64, what: &str) {
    let expected = dot(grad, tangent);
    let scale: f64 = grad.iter().zip(tangent).map(|(g, t)| (g * t).abs()).sum();
    let error = (actual - expected).abs() / scale.max(1.0);
    assert!(
        error <= tol,
        "{what}: got {actual:e}, expected {expected:e} (error {error:e} relative to the terms, tolerance {tol:e})"
    );
}

/// The logistic function `1 / (1 + e^-x)`, the derivative of softplus and of the logistic loss.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

// ---- gradients and tangents of any shape the generated code uses ----

/// A gradient `G` or a tuple return `R` as the generated code passes it (one float, or a tuple of
/// floats), seen as its components.
pub trait Components: Copy {
    /// The components in order, as `f64`.
    fn to_vec(self) -> Vec<f64>;
    /// A value of this type from the first components of `c`.
    fn from_components(c: &[f64]) -> Self;
}

impl Components for f64 {
    fn to_vec(self) -> Vec<f64> {
        vec![self]
    }
    fn from_components(c: &[f64]) -> Self {
        c[0]
    }
}

impl Components for f32 {
    fn to_vec(self) -> Vec<f64> {
        vec![self.into()]
    }
    fn from_components(c: &[f64]) -> Self {
        c[0] as f32
    }
}

impl<A: Components, B: Components> Components for (A, B) {
    fn to_vec(self) -> Vec<f64> {
        [self.0.to_vec(), self.1.to_vec()].concat()
    }
    fn from_components(c: &[f64]) -> Self {
        (A::from_components(c), B::from_components(&c[1..]))
    }
}

impl<A: Components, B: Components, C: Components> Components for (A, B, C) {
    fn to_vec(self) -> Vec<f64> {
        [self.0.to_vec(), self.1.to_vec(), self.2.to_vec()].concat()
    }
    fn from_components(c: &[f64]) -> Self {
        (
            A::from_components(c),
            B::from_components(&c[1..]),
            C::from_components(&c[2..]),
        )
    }
}

/// The cotangent with which [`check_scalar`] calls `_vjp`: not 1, so that a `_vjp` ignoring its `d_ret`
/// is caught.
pub const COTANGENT: f64 = -1.75;

/// Checks a function with one `f64` output at `at`, given what its `_grad` returned and ways to call its
/// `_vjp` (with a cotangent) and its `_jvp` (with a tangent):
///
/// - the value of `_grad`, `_vjp` and `_jvp` is exactly the primal's;
/// - the gradient agrees with the hand-written `partials` ([`ANALYTIC_TOL`]);
/// - the gradient agrees with central differences of the primal ([`FD_TOL`]);
/// - `_vjp` with [`COTANGENT`] gives the gradient times it;
/// - `_jvp` along the first components of `tangent` is the gradient's inner product with them.
#[track_caller]
pub fn check_scalar<G: Components>(
    what: &str,
    primal: impl Fn(&[f64]) -> f64,
    at: &[f64],
    ((value, grad), vjp, jvp): ((f64, G), impl Fn(f64) -> (f64, G), impl Fn(G) -> (f64, f64)),
    partials: &[f64],
    tangent: &[f64],
) {
    let what = |check: &str| format!("{what} at {at:?}: {check}");
    let primal_value = primal(at);
    assert_eq!(value, primal_value, "{}", what("the value of _grad"));
    let grad = grad.to_vec();
    assert_all_close(&grad, partials, ANALYTIC_TOL, &what("gradient vs partials"));
    assert_fd_gradient(&primal, at, &grad, &what("gradient vs central differences"));

    let (vjp_value, vjp_grad) = vjp(COTANGENT);
    assert_eq!(vjp_value, primal_value, "{}", what("the value of _vjp"));
    let scaled: Vec<f64> = grad.iter().map(|g| COTANGENT * g).collect();
    assert_all_close(
        &vjp_grad.to_vec(),
        &scaled,
        ANALYTIC_TOL,
        &what("vjp vs gradient"),
    );

    let tangent = &tangent[..grad.len()];
    let (jvp_value, jvp_dot) = jvp(G::from_components(tangent));
    assert_eq!(jvp_value, primal_value, "{}", what("the value of _jvp"));
    assert_dot(
        jvp_dot,
        &grad,
        tangent,
        ANALYTIC_TOL,
        &what("jvp vs gradient"),
    );
}

/// [`check_scalar`] for `f32` code: the partials are evaluated in `f64` at the same (rounded) inputs and
/// compared with [`ANALYTIC_TOL_F32`]; finite differences in `f32` are too coarse to help.
#[track_caller]
pub fn check_scalar_f32<G: Components>(
    primal_value: f32,
    ((value, grad), vjp, jvp): ((f32, G), impl Fn(f32) -> (f32, G), impl Fn(G) -> (f32, f32)),
    partials: &[f64],
    tangent: &[f64],
) {
    assert_eq!(value, primal_value, "the value of _grad at f32");
    let grad = grad.to_vec();
    assert_all_close(
        &grad,
        partials,
        ANALYTIC_TOL_F32,
        "f32 gradient vs partials",
    );

    let (vjp_value, vjp_grad) = vjp(COTANGENT as f32);
    assert_eq!(vjp_value, primal_value, "the value of _vjp at f32");
    let scaled: Vec<f64> = grad.iter().map(|g| COTANGENT * g).collect();
    assert_all_close(
        &vjp_grad.to_vec(),
        &scaled,
        ANALYTIC_TOL_F32,
        "f32 vjp vs gradient",
    );

    let tangent = G::from_components(tangent);
    let (jvp_value, jvp_dot) = jvp(tangent);
    assert_eq!(jvp_value, primal_value, "the value of _jvp at f32");
    let tangent = tangent.to_vec();
    assert_dot(
        jvp_dot.into(),
        &grad,
        &tangent,
        ANALYTIC_TOL_F32,
        "f32 jvp vs gradient",
    );
}

/// Checks a function with a tuple of outputs `R` at `at`, whose Jacobian written by hand is `jacobian`
/// (`jacobian[i][j]` is the derivative of output `i` in input `j`):
///
/// - `_vjp` with each unit cotangent gives that row of the Jacobian, which also agrees with central
///   differences of that output, and the exact primal value;
/// - `_vjp` with the cotangent `cotangent` gives `Jᵀ cotangent`;
/// - `_jvp` with the tangent `tangent` gives the exact primal value and `J tangent`.
#[track_caller]
pub fn check_tuple<R: Components, G: Components>(
    what: &str,
    primal: impl Fn(&[f64]) -> R,
    at: &[f64],
    jacobian: &[Vec<f64>],
    vjp: impl Fn(R) -> (R, G),
    jvp: impl Fn(G) -> (R, R),
    (cotangent, tangent): (&[f64], &[f64]),
) {
    let what = |check: &str| format!("{what} at {at:?}: {check}");
    let primal_value = primal(at).to_vec();
    let outputs = primal_value.len();
    assert_eq!(jacobian.len(), outputs, "{}", what("rows of the Jacobian"));
    for (i, row) in jacobian.iter().enumerate() {
        let mut unit = vec![0.0; outputs];
        unit[i] = 1.0;
        let (value, grad) = vjp(R::from_components(&unit));
        assert_eq!(
            value.to_vec(),
            primal_value,
            "{}",
            what("the value of _vjp")
        );
        let grad = grad.to_vec();
        assert_all_close(
            &grad,
            row,
            ANALYTIC_TOL,
            &what(&format!("vjp of output {i}")),
        );
        let output_i = |x: &[f64]| primal(x).to_vec()[i];
        assert_fd_gradient(
            output_i,
            at,
            &grad,
            &what(&format!("vjp of output {i} vs central differences")),
        );
    }

    let cotangent = &cotangent[..outputs];
    let (_, grad) = vjp(R::from_components(cotangent));
    let inputs = grad.to_vec().len();
    let expected: Vec<f64> = (0..inputs)
        .map(|j| (0..outputs).map(|i| cotangent[i] * jacobian[i][j]).sum())
        .collect();
    assert_all_close(
        &grad.to_vec(),
        &expected,
        ANALYTIC_TOL,
        &what("vjp with a mixed cotangent"),
    );

    let tangent = &tangent[..inputs];
    let (value, dot_out) = jvp(G::from_components(tangent));
    assert_eq!(
        value.to_vec(),
        primal_value,
        "{}",
        what("the value of _jvp")
    );
    for (i, (row, &actual)) in jacobian.iter().zip(&dot_out.to_vec()).enumerate() {
        assert_dot(
            actual,
            row,
            tangent,
            ANALYTIC_TOL,
            &what(&format!("jvp of output {i}")),
        );
    }
}

/// Tangents and cotangents with up to three components, for [`check_scalar`] and [`check_tuple`].
pub fn tangents() -> impl Strategy<Value = [f64; 3]> {
    prop::array::uniform3(tangent())
}

/// A fixed tangent for tests at chosen points.
pub const TANGENT: [f64; 3] = [0.7, -1.3, 0.4];

// ---- strategies: inputs inside a function's domain, away from its edges ----

/// Inputs of moderate size, where every smooth function of the suite is well conditioned.
pub fn moderate() -> impl Strategy<Value = f64> {
    -3.0..3.0_f64
}

/// Strictly positive inputs, for `ln`, `sqrt`, `powf` bases.
pub fn positive() -> impl Strategy<Value = f64> {
    0.1..10.0_f64
}

/// Inputs of `asin`, `acos`, `atanh`: inside (-1, 1), away from the ends where the derivative blows up.
pub fn open_unit() -> impl Strategy<Value = f64> {
    -0.95..0.95_f64
}

/// Inputs of `acosh`: above 1, away from it.
pub fn above_one() -> impl Strategy<Value = f64> {
    1.05..10.0_f64
}

/// Inputs of `tan`: inside (-π/2, π/2), away from the poles.
pub fn tan_domain() -> impl Strategy<Value = f64> {
    -1.3..1.3_f64
}

/// Inputs away from 0 on either side, for `abs`, `signum`, `recip`, `cbrt` and divisors.
pub fn nonzero() -> impl Strategy<Value = f64> {
    prop_oneof![-5.0..-0.1_f64, 0.1..5.0_f64]
}

/// Inputs at least `1e-3` away from the jumps of `floor`, `ceil`, `trunc` (integers) and `round`
/// (half-integers), so that central differences see a flat function.
pub fn away_from_jumps() -> impl Strategy<Value = f64> {
    (-5.0..5.0_f64).prop_filter("near a jump of floor, ceil, round or trunc", |x| {
        let twice = 2.0 * x;
        (twice - twice.round()).abs() > 2e-3
    })
}

/// Pairs `(x, y)` at least `1e-3` apart, so `max` and `min` are differentiable there.
pub fn distinct_pair() -> impl Strategy<Value = (f64, f64)> {
    (moderate(), moderate()).prop_filter("a tie of max or min", |(x, y)| (x - y).abs() > 1e-3)
}

/// Tangents for `_jvp` and cotangents for `_vjp`.
pub fn tangent() -> impl Strategy<Value = f64> {
    -2.0..2.0_f64
}

// ---- arrays and loops: shared by tests/loops.rs and tests/arrays.rs ----

/// A vector with a length in `len` and elements from `element`, with a tangent of the same length, for
/// the `_jvp` of a function of a slice.
pub fn vec_with_tangent(
    element: impl Strategy<Value = f64> + 'static,
    len: std::ops::Range<usize>,
) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    let element = element.boxed();
    len.prop_flat_map(move |n| {
        (
            prop::collection::vec(element.clone(), n),
            prop::collection::vec(tangent(), n),
        )
    })
}

/// The smallest distance between two of `xs` (infinite for fewer than two): data-dependent control flow
/// (a sort, a maximum) is piecewise smooth, and central differences see a kink unless the inputs are
/// farther apart than their step.
pub fn min_gap(xs: &[f64]) -> f64 {
    let mut gap = f64::INFINITY;
    for (i, a) in xs.iter().enumerate() {
        for b in &xs[i + 1..] {
            gap = gap.min((a - b).abs());
        }
    }
    gap
}

/// Asserts that the directional derivative `jvp_dot` of `_jvp` along `tangent` is `grad · tangent`, to
/// [`ANALYTIC_TOL`] relative to the size of the terms `|grad_i tangent_i|` (at least 1), so that
/// cancellation in a long sum is no error.
#[track_caller]
pub fn assert_jvp_is_grad_dot(jvp_dot: f64, grad: &[f64], tangent: &[f64], what: &str) {
    assert_eq!(grad.len(), tangent.len(), "{what}: tangent length");
    let expected = dot(grad, tangent);
    let scale = grad
        .iter()
        .zip(tangent)
        .map(|(g, t)| (g * t).abs())
        .sum::<f64>()
        .max(1.0);
    let error = (jvp_dot - expected).abs() / scale;
    assert!(
        error <= ANALYTIC_TOL,
        "{what}: jvp {jvp_dot:e}, gradient · tangent {expected:e} (error {error:e} of the terms' size {scale:e})"
    );
}

/// Checks a function with one `f64` output whose active inputs, flattened in declaration order, are `at`:
///
/// - the value of `_grad` and of `_jvp` is exactly `primal(at)`;
/// - the gradient agrees with central differences of `primal` ([`FD_TOL`]);
/// - `_jvp` along `tangent` is the gradient's inner product with it ([`assert_jvp_is_grad_dot`]).
#[track_caller]
pub fn check_flat(
    what: &str,
    primal: impl Fn(&[f64]) -> f64,
    at: &[f64],
    (value, grad): (f64, &[f64]),
    (jvp_value, jvp_dot): (f64, f64),
    tangent: &[f64],
) {
    let primal_value = primal(at);
    assert_eq!(value, primal_value, "{what} at {at:?}: the value of _grad");
    assert_eq!(
        jvp_value, primal_value,
        "{what} at {at:?}: the value of _jvp"
    );
    assert_fd_gradient(&primal, at, grad, what);
    assert_jvp_is_grad_dot(jvp_dot, grad, tangent, &format!("{what} at {at:?}"));
}

/// The inputs `x` seeded along `v` as dual numbers `x_i + v_i ε`: a `_grad` run on them gives the
/// gradient in the `re` parts and the Hessian times `v` in the `eps` parts.
pub fn seeded(x: &[f64], v: &[f64]) -> Vec<autodiff::Dual<f64>> {
    assert_eq!(x.len(), v.len(), "seeded: x and v lengths");
    x.iter()
        .zip(v)
        .map(|(&x, &v)| autodiff::Dual::new(x, v))
        .collect()
}

/// The `re` and the `eps` parts of dual numbers.
pub fn split_duals(duals: &[autodiff::Dual<f64>]) -> (Vec<f64>, Vec<f64>) {
    (
        duals.iter().map(|d| d.re).collect(),
        duals.iter().map(|d| d.eps).collect(),
    )
}

/// The product of a matrix, given by its rows, and a vector.
pub fn mat_vec(rows: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    rows.iter().map(|row| dot(row, v)).collect()
}

/// Several points of `n` coordinates in `[lo, hi)`, from `seed`.
pub fn points(seed: u64, n: usize, count: usize, lo: f64, hi: f64) -> Vec<Vec<f64>> {
    let mut r = Inputs(seed);
    (0..count)
        .map(|_| {
            (0..n)
                .map(|_| lo + (hi - lo) * (r.next() + 1.0) / 2.0)
                .collect()
        })
        .collect()
}

/// `c · (J t)` (from `_jvp`) against `(c J) · t` (from `_vjp`).
#[track_caller]
pub fn check_dual(what: &str, c: &[f64], jt: &[f64], cj: &[f64], t: &[f64]) {
    let (a, b) = (dot(c, jt), dot(cj, t));
    let scale: f64 = cj.iter().zip(t).map(|(g, t)| (g * t).abs()).sum::<f64>();
    assert!(
        (a - b).abs() <= 1e-11 * scale.max(1.0),
        "{what}: c·(J t) = {a:e} but (c J)·t = {b:e}"
    );
}

/// A Jacobian against central differences of the function.
#[track_caller]
pub fn check_jacobian(what: &str, x: &[f64], j: &[Vec<f64>], f: impl Fn(&[f64]) -> Vec<f64>) {
    let by_differences = fd_jacobian(f, x);
    assert_eq!(j.len(), by_differences.len(), "{what}: rows");
    for (i, (a, e)) in j.iter().zip(&by_differences).enumerate() {
        assert_all_close(a, e, 1e-6, &format!("{what} at {x:?}: row {i}"));
    }
}

/// `_grad_into` against `_grad`: the same bits.
#[track_caller]
pub fn same_bits(into: &[f64], grad: &[f64], what: &str) {
    let a: Vec<u64> = into.iter().map(|v| v.to_bits()).collect();
    let b: Vec<u64> = grad.iter().map(|v| v.to_bits()).collect();
    assert_eq!(a, b, "{what}: _grad_into is not bit for bit _grad");
}

/// A tangent or cotangent of `n` components, not aligned with any axis.
pub fn wave(n: usize, phase: f64) -> Vec<f64> {
    (0..n).map(|i| (0.9 * i as f64 + phase).sin()).collect()
}

/// The first `N` components of `v` as an array.
pub fn arr<const N: usize>(v: &[f64]) -> [f64; N] {
    let mut a = [0.0; N];
    a.copy_from_slice(&v[..N]);
    a
}
