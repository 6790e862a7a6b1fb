//! An outside tester's probe of `order = K` everywhere API.md promises it, written as a user would:
//! Newton's method driven by `_hessian`; `_derivatives` of order 3 and 4 of special functions written as
//! series and loops (a Taylor series in a `while` loop, Horner over a coefficient slice, a continued
//! fraction, a recursion); TensorFlow's `log1pexp` custom gradient and its straight-through and clipped
//! cousins at order 2 and 3 (the values `jax.hessian` of the `custom_vjp` gives, worked out by hand); a
//! registered gradient of a plain function of a module of ours at order 3 and 4; Hessians of methods with
//! `wrt(self)`, of matrices `[[f64; 2]; 2]` and `&[Vec<f64>]` (flattened row-major); `f32` at order 2;
//! generic functions at order 3 run on `Dual<Dual<f64>>` too; early `return`, `match`, `loop` with
//! `break` value and shadowing in blocks.
//!
//! Every Hessian is checked against central differences of the generated `_grad` (`Probe`) and against a
//! formula or the function itself run on nested `Dual`s (an oracle sharing no code with the emitters).

#![allow(
    clippy::needless_range_loop,
    clippy::needless_return,
    clippy::type_complexity,
    clippy::excessive_precision,
    clippy::assign_op_pattern
)]

mod common;

use autodiff::{custom_gradient, differentiable, gradient_of, Differentiable, Dual, Float};
use common::probe::*;

const POINTS: usize = 24;

/// `d` (f, f', .., f⁽ᴺ⁻¹⁾) against `f`, the formula `exact` and each entry from `fd_from` on against central
/// differences of the entry before it, at `POINTS` inputs drawn from `sample`.
#[track_caller]
fn check_derivatives<const N: usize>(
    name: &str,
    f: &dyn Fn(f64) -> f64,
    d: &dyn Fn(f64) -> [f64; N],
    exact: &dyn Fn(f64) -> [f64; N],
    tol: f64,
    fd_from: usize,
    sample: impl Fn(&mut Lcg) -> f64,
) {
    let mut rng = Lcg::new(seed_of(name));
    for _ in 0..POINTS {
        let x = sample(&mut rng);
        let ds = d(x);
        assert_near(
            ds[0],
            f(x),
            1e-13,
            0.0,
            &format!("{name} at {x}: the value"),
        );
        let want = exact(x);
        let scale = want.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        for k in 0..N {
            assert_near(
                ds[k],
                want[k],
                tol,
                scale,
                &format!("{name} at {x}: derivative {k}"),
            );
        }
        for k in fd_from..N {
            let fd = fd1(&|y| d(y)[k - 1], x, 1e-6);
            assert_near(
                ds[k],
                fd,
                1e-5,
                scale,
                &format!("{name} at {x}: derivative {k} by differences"),
            );
        }
    }
}

fn within(lo: f64, hi: f64) -> impl Fn(&mut Lcg) -> f64 {
    move |r| r.uniform(lo, hi)
}

// ---------------------------------------------------------------------------------------------------
// Newton's method on a 2-d function with `_hessian`.
// ---------------------------------------------------------------------------------------------------

/// A smooth strictly convex bowl: `exp(x + y - 1) + (x - 2y)² + x⁴ / 4`.
#[differentiable(order = 2)]
fn bowl(x: f64, y: f64) -> f64 {
    (x + y - 1.0).exp() + (x - 2.0 * y).powi(2) + 0.25 * x.powi(4)
}

fn bowl_hessian_by_hand(x: f64, y: f64) -> Vec<Vec<f64>> {
    let e = (x + y - 1.0).exp();
    vec![vec![e + 2.0 + 3.0 * x * x, e - 4.0], vec![e - 4.0, e + 8.0]]
}

#[test]
fn newton_on_a_bowl_converges_quadratically() {
    Probe::new("bowl", |v| bowl(v[0], v[1]))
        .grad(|v| {
            let (f, g) = bowl_grad(v[0], v[1]);
            (f, vec![g.0, g.1])
        })
        .hessian(hess2(bowl_hessian))
        .run(POINTS, range(2, -2.0, 2.0));
    let mut rng = Lcg::new(7);
    for _ in 0..POINTS {
        let (x, y) = (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5));
        let (_, _, h) = bowl_hessian(x, y);
        assert_vec_near(
            &h.concat(),
            &bowl_hessian_by_hand(x, y).concat(),
            1e-12,
            "bowl H by hand",
        );
    }
    let (mut x, mut y) = (2.0, -1.0);
    let mut steps = Vec::new();
    for _ in 0..30 {
        let (_, (gx, gy), h) = bowl_hessian(x, y);
        let det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
        let dx = (h[1][1] * gx - h[0][1] * gy) / det;
        let dy = (h[0][0] * gy - h[1][0] * gx) / det;
        x -= dx;
        y -= dy;
        steps.push(dx.hypot(dy));
        if dx.hypot(dy) < 1e-14 {
            break;
        }
    }
    let (_, (gx, gy)) = bowl_grad(x, y);
    assert!(
        gx.hypot(gy) < 1e-12,
        "Newton ends at a stationary point: {gx}, {gy}"
    );
    // Quadratic convergence: once small, each step is at most about the square of the one before.
    let n = steps.len();
    assert!(n < 15, "Newton took {n} steps: {steps:?}");
    assert!(
        steps[n - 2] < 1e-6 && steps[n - 1] < 10.0 * steps[n - 2].powi(2) + 1e-15,
        "{steps:?}"
    );
}

// ---------------------------------------------------------------------------------------------------
// `_derivatives` of special functions written as series, loops, fractions and recursions.
// ---------------------------------------------------------------------------------------------------

/// `exp` by its Taylor series, summed in a `while` loop until the term is negligible.
#[differentiable(order = 4)]
fn exp_series(x: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut k = 1;
    while k < 40 {
        term *= x / k as f64;
        sum += term;
        k += 1;
    }
    sum
}

#[test]
fn taylor_series_in_a_while_loop_to_the_fourth_derivative() {
    check_derivatives(
        "exp_series",
        &exp_series,
        &exp_series_derivatives,
        &|x| [x.exp(); 5],
        1e-12,
        1,
        within(-2.0, 2.0),
    );
}

/// A polynomial by Horner's rule over its coefficients (highest first), differentiated in `x` only.
#[differentiable(wrt(x), order = 4)]
fn horner(x: f64, c: &[f64]) -> f64 {
    let mut acc = 0.0;
    for &a in c {
        acc = acc * x + a;
    }
    acc
}

const COEFFS: [f64; 6] = [0.5, -1.0, 2.0, 0.25, -3.0, 1.5];

fn poly_derivatives_by_hand(x: f64, c: &[f64]) -> [f64; 5] {
    // Coefficient of x^p is c[n - 1 - p]; the k-th derivative of x^p is p!/(p-k)! x^(p-k).
    let n = c.len();
    let mut out = [0.0; 5];
    for k in 0..5 {
        for p in k..n {
            let falling: f64 = (p - k + 1..=p).map(|v| v as f64).product();
            out[k] += c[n - 1 - p] * falling * x.powi((p - k) as i32);
        }
    }
    out
}

#[test]
fn horner_over_a_coefficient_slice_to_the_fourth_derivative() {
    check_derivatives(
        "horner",
        &|x| horner(x, &COEFFS),
        &|x| horner_derivatives(x, &COEFFS),
        &|x| poly_derivatives_by_hand(x, &COEFFS),
        1e-12,
        1,
        within(-2.0, 2.0),
    );
}

/// `tan` by Lambert's continued fraction, evaluated from its tail: `x / (1 - x²/(3 - x²/(5 - ..)))`.
#[differentiable(order = 4)]
fn tan_fraction(x: f64) -> f64 {
    let x2 = x * x;
    let mut t = 0.0;
    for k in (1..20).rev() {
        t = x2 / ((2 * k + 1) as f64 - t);
    }
    x / (1.0 - t)
}

fn tan_by_hand(x: f64) -> [f64; 5] {
    let t = x.tan();
    let s = 1.0 + t * t;
    [
        t,
        s,
        2.0 * t * s,
        2.0 * s * (1.0 + 3.0 * t * t),
        8.0 * t * s * (2.0 + 3.0 * t * t),
    ]
}

#[test]
fn continued_fraction_to_the_fourth_derivative() {
    check_derivatives(
        "tan_fraction",
        &tan_fraction,
        &tan_fraction_derivatives,
        &tan_by_hand,
        1e-11,
        1,
        within(-1.2, 1.2),
    );
}

/// `exp` by halving and squaring, recursively: `exp(x) = exp(x / 2)²`, a short series at the bottom.
#[differentiable(order = 4)]
fn exp_halving(x: f64, depth: usize) -> f64 {
    if depth == 0 {
        return 1.0
            + x * (1.0
                + x / 2.0 * (1.0 + x / 3.0 * (1.0 + x / 4.0 * (1.0 + x / 5.0 * (1.0 + x / 6.0)))));
    }
    let h = exp_halving(x / 2.0, depth - 1);
    h * h
}

#[test]
fn recursion_to_the_fourth_derivative() {
    check_derivatives(
        "exp_halving",
        &|x| exp_halving(x, 12),
        &|x| exp_halving_derivatives(x, 12),
        &|x| [x.exp(); 5],
        1e-9,
        1,
        within(-2.0, 2.0),
    );
}

// ---------------------------------------------------------------------------------------------------
// Custom gradients at order 2 and 3: what `jax.hessian` of the `custom_vjp` gives, by hand.
// ---------------------------------------------------------------------------------------------------

/// TensorFlow's `log1pexp`, as its documentation writes it, for `f64`.
#[custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

/// `log1pexp(x) * cos(x)`: the closure's captured `e` carries the tangent of `x`.
#[differentiable(order = 3)]
fn softplus_wave(x: f64) -> f64 {
    log1pexp(x) * x.cos()
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn softplus_wave_by_hand(x: f64) -> [f64; 4] {
    // L = ln(1 + e^x), L' = s, L'' = s(1-s), L''' = s(1-s)(1-2s); (L cos)''' by Leibniz.
    let s = logistic(x);
    let l = [
        (1.0 + x.exp()).ln(),
        s,
        s * (1.0 - s),
        s * (1.0 - s) * (1.0 - 2.0 * s),
    ];
    let c = [x.cos(), -x.sin(), -x.cos(), x.sin()];
    let binom = [
        [1.0, 0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 0.0],
        [1.0, 2.0, 1.0, 0.0],
        [1.0, 3.0, 3.0, 1.0],
    ];
    let mut out = [0.0; 4];
    for n in 0..4 {
        for k in 0..=n {
            out[n] += binom[n][k] * l[k] * c[n - k];
        }
    }
    out
}

#[test]
fn log1pexp_written_for_f64_at_third_order() {
    check_derivatives(
        "softplus_wave",
        &softplus_wave,
        &softplus_wave_derivatives,
        &softplus_wave_by_hand,
        1e-12,
        1,
        within(-6.0, 6.0),
    );
    Probe::new("softplus_wave", |v| softplus_wave(v[0]))
        .grad(|v| {
            let (f, g) = softplus_wave_grad(v[0]);
            (f, vec![g])
        })
        .hessian(hess1(softplus_wave_hessian, softplus_wave_derivatives))
        .analytic(|v| vec![softplus_wave_by_hand(v[0])[1]])
        .run(POINTS, range(1, -6.0, 6.0));
    // The Hessian-vector product of one input is the second derivative times v.
    let (_, _, hv) = softplus_wave_hvp(0.75, 2.0);
    assert_near(
        hv,
        2.0 * softplus_wave_by_hand(0.75)[2],
        1e-12,
        0.0,
        "softplus_wave_hvp",
    );
}

/// Straight-through `round`: the value rounds, the cotangent passes unchanged.
#[custom_gradient]
fn round_ste(x: f64) -> (f64, impl Fn(f64) -> f64) {
    (x.round(), move |dy| dy)
}

/// `q(x) sin(x)` with `q` the straight-through round. `jax.hessian` differentiates the closure (the
/// identity) and the value through its forward code (`round`, slope 0): f' = sin x + q cos x,
/// f'' = cos x - q sin x (q's tangent is round's, 0), f''' = -sin x - q cos x.
#[differentiable(order = 3)]
fn rounded_wave(x: f64) -> f64 {
    round_ste(x) * x.sin()
}

fn rounded_wave_by_hand(x: f64) -> [f64; 4] {
    let q = x.round();
    [
        q * x.sin(),
        x.sin() + q * x.cos(),
        x.cos() - q * x.sin(),
        -x.sin() - q * x.cos(),
    ]
}

#[test]
fn straight_through_round_at_second_and_third_order() {
    let away = |r: &mut Lcg| away_from(1, -4.0, 4.0, 1.0, 0.5)(r)[0];
    check_derivatives(
        "rounded_wave",
        &rounded_wave,
        &rounded_wave_derivatives,
        &rounded_wave_by_hand,
        1e-12,
        2,
        away,
    );
    // Not the derivative of f (a straight-through gradient), but the Jacobian of f_grad.
    Probe::new("rounded_wave", |v| rounded_wave(v[0]))
        .grad(|v| {
            let (f, g) = rounded_wave_grad(v[0]);
            (f, vec![g])
        })
        .hessian(hess1(rounded_wave_hessian, rounded_wave_derivatives))
        .analytic(|v| vec![rounded_wave_by_hand(v[0])[1]])
        .no_fd()
        .run(POINTS, away_from(1, -4.0, 4.0, 1.0, 0.5));
}

/// The cotangent clipped to [-1, 1] on its way back (the "clip gradient" trick).
#[custom_gradient]
fn clip_gradient(x: f64) -> (f64, impl Fn(f64) -> f64) {
    (x, move |dy| dy.clamp(-1.0, 1.0))
}

/// `3 sin(c(x))` with `c` the clipped identity: f' = clamp(3 cos x, -1, 1). The cotangent `3 cos x` is a
/// function of `x`, which `jax.hessian` differentiates through the clamp: f'' = -3 sin x where
/// |3 cos x| < 1, else 0; f''' = -3 cos x there, else 0.
#[differentiable(order = 3)]
fn clipped_wave(x: f64) -> f64 {
    3.0 * clip_gradient(x).sin()
}

fn clipped_wave_by_hand(x: f64) -> [f64; 4] {
    let inside = (3.0 * x.cos()).abs() < 1.0;
    [
        3.0 * x.sin(),
        (3.0 * x.cos()).clamp(-1.0, 1.0),
        if inside { -3.0 * x.sin() } else { 0.0 },
        if inside { -3.0 * x.cos() } else { 0.0 },
    ]
}

#[test]
fn clipped_gradient_at_second_and_third_order() {
    // Away from the clipping points, where 3 cos x = ±1.
    let sample = |r: &mut Lcg| loop {
        let x = r.uniform(-3.0, 3.0);
        if ((3.0 * x.cos()).abs() - 1.0).abs() > 0.05 {
            break x;
        }
    };
    // f_derivatives is f_grad on nested duals: f' is f_grad's clamp(3 cos x) (1 at x = 0.3, where
    // 3 cos x = 2.87), not the forward-mode 3 cos x that f_jvp's closure at dy = 1 gives.
    let d = clipped_wave_derivatives(0.3);
    assert_near(d[1], 1.0, 1e-12, 0.0, "clipped_wave_derivatives[1]");
    let mut rng = Lcg::new(11);
    for _ in 0..POINTS {
        let x = sample(&mut rng);
        let want = clipped_wave_by_hand(x);
        let (v, g, h) = clipped_wave_hessian(x);
        assert_near(v, want[0], 1e-13, 0.0, "clipped_wave value");
        assert_eq!(
            v,
            clipped_wave(x),
            "clipped_wave_hessian's value is the function's"
        );
        assert_near(g, want[1], 1e-13, 0.0, "clipped_wave gradient");
        assert_near(
            h[0][0],
            want[2],
            1e-12,
            0.0,
            &format!("clipped_wave Hessian at {x}"),
        );
        let fd = fd1(&|y| clipped_wave_grad(y).1, x, 1e-6);
        assert_near(
            h[0][0],
            fd,
            1e-6,
            1.0,
            &format!("clipped_wave Hessian by differences at {x}"),
        );
        let (_, _, hv) = clipped_wave_hvp(x, 1.0);
        assert_near(hv, want[2], 1e-12, 0.0, "clipped_wave_hvp");
        let d = clipped_wave_derivatives(x);
        for (k, (got, want)) in d.iter().zip(&want).enumerate() {
            assert_near(
                *got,
                *want,
                1e-12,
                0.0,
                &format!("clipped_wave_derivatives[{k}] at {x}"),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// The oracle of nested duals: a generic function run on `Dual<Dual<..>>` with every tangent seeded 1
// gives its n-th derivative in the top coefficient (no code of the emitters involved).
// ---------------------------------------------------------------------------------------------------

trait Lift: Float {
    /// `x + ε₁ + .. + εₙ`.
    fn var(x: f64) -> Self;
    /// `x + e_i ε₁` / `x + e_j ε₂` ...: the variable of input `k` seeded in the tangents listed in `seeds`.
    fn seeded(x: f64, seeds: &[bool]) -> Self;
    /// The coefficient of `ε₁ ε₂ .. εₙ`.
    fn top(self) -> f64;
    /// The constant `c`.
    fn c(c: f64) -> Self {
        Self::seeded(c, &[false; 8])
    }
}

impl Lift for f64 {
    fn var(x: f64) -> Self {
        x
    }
    fn seeded(x: f64, _: &[bool]) -> Self {
        x
    }
    fn top(self) -> f64 {
        self
    }
}

impl<T: Lift> Lift for Dual<T> {
    fn var(x: f64) -> Self {
        Dual::new(T::var(x), T::one())
    }
    fn seeded(x: f64, seeds: &[bool]) -> Self {
        let (last, inner) = seeds.split_last().expect("a seed for each level");
        Dual::new(
            T::seeded(x, inner),
            if *last { T::one() } else { T::zero() },
        )
    }
    fn top(self) -> f64 {
        self.eps.top()
    }
}

/// `[f(x), f'(x), .., f⁽⁴⁾(x)]` of a generic `f` by running it on nested duals.
macro_rules! to_fourth_by_duals {
    ($f:ident, $x:expr) => {
        [
            $f($x),
            $f(Dual::<f64>::var($x)).top(),
            $f(D2::var($x)).top(),
            $f(D3::var($x)).top(),
            $f(D4::var($x)).top(),
        ]
    };
}

type D2 = Dual<Dual<f64>>;
type D3 = Dual<D2>;
type D4 = Dual<D3>;

/// The Hessian of a generic function of a flat vector by nested duals: H[i][j] = f(x + e_i ε₁ + e_j ε₂)'s ε₁ε₂.
fn hessian_by_duals(f: &dyn Fn(&[D2]) -> D2, x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let v: Vec<D2> = (0..n)
                        .map(|k| D2::seeded(x[k], &[k == i, k == j]))
                        .collect();
                    f(&v).top()
                })
                .collect()
        })
        .collect()
}

/// `f_hessian`'s result `(f, g, h)` after checking `h` against [`hessian_by_duals`] of `generic` at `x`.
#[track_caller]
fn checked_by_duals(
    (f, g, h): (f64, Flat, Vec<Flat>),
    generic: &dyn Fn(&[D2]) -> D2,
    x: &[f64],
    what: &str,
) -> (f64, Flat, Vec<Flat>) {
    let oracle = hessian_by_duals(generic, x);
    assert_vec_near(
        &h.concat(),
        &oracle.concat(),
        1e-11,
        &format!("{what} by duals"),
    );
    (f, g, h)
}

/// The probe of a function of two scalars with `order = 2`, its Hessian also against nested duals.
fn two_by_duals<'a>(
    name: &'a str,
    f: fn(f64, f64) -> f64,
    g: fn(f64, f64) -> (f64, Two),
    h: fn(f64, f64) -> (f64, Two, Vec<Vec<f64>>),
    generic: impl Fn(&[D2]) -> D2 + 'a,
) -> Probe<'a> {
    Probe::new(name, move |v| f(v[0], v[1]))
        .grad(move |v| {
            let (f, g) = g(v[0], v[1]);
            (f, vec![g.0, g.1])
        })
        .hessian(move |v| checked_by_duals(hess2(h)(v), &generic, v, name))
}

// ---------------------------------------------------------------------------------------------------
// A gradient registered for a plain function of a module of ours, at order 3 and 4.
// ---------------------------------------------------------------------------------------------------

mod special {
    /// The logistic function: plain Rust, no attribute.
    pub fn logistic(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// A Gaussian bump of width `w`: plain Rust of two floats.
    pub fn bump(x: f64, w: f64) -> f64 {
        (-(x * x) / (w * w)).exp()
    }
}

/// Registered as TensorFlow's users write it: the gradient calls the function itself.
#[gradient_of(special::logistic)]
fn logistic_gradient(x: f64, dy: f64) -> f64 {
    let s = special::logistic(x);
    dy * s * (1.0 - s)
}

#[gradient_of(special::bump)]
fn bump_gradient(x: f64, w: f64, dy: f64) -> (f64, f64) {
    let b = (-(x * x) / (w * w)).exp();
    (
        dy * b * (-2.0 * x / (w * w)),
        dy * b * (2.0 * x * x / (w * w * w)),
    )
}

/// `x σ(2x)`, the "swish" unit with a registered σ.
#[differentiable(order = 3)]
fn swish(x: f64) -> f64 {
    x * special::logistic(2.0 * x)
}

/// The same at order 4.
#[differentiable(order = 4)]
fn swish4(x: f64) -> f64 {
    x * special::logistic(2.0 * x)
}

fn swish_by_hand(x: f64) -> [f64; 5] {
    // σ' = σ(1-σ), σ'' = σ'(1-2σ), σ''' = σ'(1-6σ+6σ²), σ'''' = σ'(1-2σ)(1-12σ+12σ²);
    // (x σ(2x))^(n) = n 2^(n-1) σ^(n-1)(2x) + x 2^n σ^(n)(2x).
    let s = logistic(2.0 * x);
    let d1 = s * (1.0 - s);
    let sig = [
        s,
        d1,
        d1 * (1.0 - 2.0 * s),
        d1 * (1.0 - 6.0 * s + 6.0 * s * s),
        d1 * (1.0 - 2.0 * s) * (1.0 - 12.0 * s + 12.0 * s * s),
    ];
    let mut out = [x * s, 0.0, 0.0, 0.0, 0.0];
    for n in 1..5 {
        let p = 2.0_f64.powi(n as i32 - 1);
        out[n] = n as f64 * p * sig[n - 1] + x * 2.0 * p * sig[n];
    }
    out
}

#[test]
fn registered_gradient_of_a_plain_function_at_third_order() {
    check_derivatives(
        "swish",
        &swish,
        &swish_derivatives,
        &|x| swish_by_hand(x)[..4].try_into().unwrap(),
        1e-12,
        1,
        within(-4.0, 4.0),
    );
}

#[test]
fn registered_gradient_of_a_plain_function_at_fourth_order() {
    check_derivatives(
        "swish4",
        &swish4,
        &swish4_derivatives,
        &swish_by_hand,
        1e-11,
        1,
        within(-4.0, 4.0),
    );
}

/// Two registered functions of two inputs each, at order 2 over both inputs.
#[differentiable(order = 2)]
fn bumpy(x: f64, w: f64) -> f64 {
    special::bump(x, w) * special::logistic(x * w)
}

#[test]
fn registered_gradients_of_two_inputs_at_second_order() {
    let generic = |v: &[D2]| {
        let (x, w) = (v[0], v[1]);
        (-(x * x) / (w * w)).exp() / (D2::c(1.0) + (-(x * w)).exp())
    };
    two_by_duals("bumpy", bumpy, bumpy_grad, bumpy_hessian, generic)
        .run(POINTS, range(2, 0.5, 2.0));
}

/// A registration of two floats at order 6 with the width held constant: the Taylor series of the value
/// on five nested duals needs three Gauss–Legendre nodes.
#[differentiable(wrt(x), order = 6)]
fn bump6(x: f64, w: f64) -> f64 {
    special::bump(x, w)
}

/// The gradient that calls its own function, at the highest order (8): the budget keeps the recursion
/// finite.
#[differentiable(order = 8)]
fn logistic8(x: f64) -> f64 {
    special::logistic(x)
}

#[test]
fn registered_gradients_at_sixth_and_eighth_order() {
    // Order 8 through a gradient calling its function evaluates the gradient 144 times on seven nested
    // duals (4 nodes, then 3, 3, 2, 2, 1 at the orders below): a few points.
    // σ⁽⁷⁾ and σ⁽⁸⁾ at 0 from the Taylor series of tanh: σ(x) = 1/2 + tanh(x/2)/2, and
    // tanh x = x - x³/3 + 2x⁵/15 - 17x⁷/315 + ..: σ⁽⁷⁾(0) = 7! (-17/315) / 2⁸, σ⁽⁸⁾(0) = 0.
    let d = logistic8_derivatives(0.0);
    assert_eq!(d[0], logistic8(0.0));
    let mut expected = [0.5, 0.25, 0.0, -1.0 / 8.0, 0.0, 0.25, 0.0, 0.0, 0.0];
    expected[7] = 5040.0 * (-17.0 / 315.0) / 256.0;
    assert_vec_near(&d, &expected, 1e-12, "logistic8 at 0");
    let x = -0.4;
    let d = logistic8_derivatives(x);
    let by_duals = (D4::c(1.0) / (D4::c(1.0) + (-D4::var(x)).exp())).top();
    assert_near(
        d[4],
        by_duals,
        1e-11,
        1.0,
        &format!("logistic8 fourth derivative at {x}"),
    );
    let fd = fd1(&|y| logistic8_derivatives(y)[7], x, 1e-5);
    assert_near(
        d[8],
        fd,
        1e-4,
        d[8].abs().max(1.0),
        &format!("logistic8 eighth derivative at {x}"),
    );
    let mut rng = Lcg::new(5);
    for _ in 0..POINTS {
        let (x, w) = (rng.uniform(-2.0, 2.0), rng.uniform(0.5, 2.0));
        let d = bump6_derivatives(x, w);
        let v = D4::var(x);
        let by_duals = (-(v * v) / D4::c(w * w)).exp().top();
        assert_near(d[0], bump6(x, w), 1e-14, 0.0, "bump6 value");
        assert_near(
            d[4],
            by_duals,
            1e-10,
            d[4].abs(),
            "bump6 fourth derivative by duals",
        );
        for k in 1..7 {
            let fd = fd1(&|y| bump6_derivatives(y, w)[k - 1], x, 1e-6);
            assert_near(
                d[k],
                fd,
                1e-5,
                d[k].abs().max(1.0),
                &format!("bump6 derivative {k} at {x}, {w}"),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Hessians through methods with `wrt(self)`, and of matrices flattened row-major.
// ---------------------------------------------------------------------------------------------------

#[derive(Clone, Debug, Differentiable)]
struct Spring {
    k: f64,
    rest: f64,
    anchor: [f64; 2],
    #[no_grad]
    label: u32,
}

impl Spring {
    fn from_flat_values(v: &[f64]) -> Spring {
        Spring {
            k: v[0],
            rest: v[1],
            anchor: [v[2], v[3]],
            label: 7,
        }
    }

    #[differentiable(wrt(p))]
    fn length(&self, p: &[f64]) -> f64 {
        ((p[0] - self.anchor[0]).powi(2) + (p[1] - self.anchor[1]).powi(2)).sqrt()
    }

    /// The energy of the spring stretched to `p`, differentiated in the spring's parameters.
    #[differentiable(wrt(self), order = 2)]
    fn energy(&self, p: &[f64]) -> f64 {
        let dx = p[0] - self.anchor[0];
        let dy = p[1] - self.anchor[1];
        let len = (dx * dx + dy * dy).sqrt();
        0.5 * self.k * (len - self.rest).powi(2)
    }

    /// The same energy in the spring and the point together, through the method above.
    #[differentiable(wrt(self, p), order = 2)]
    fn energy_at(&self, p: &[f64]) -> f64 {
        self.energy(p) + 0.1 * self.k * p[0] * p[1]
    }

    /// In the point only, `self` constant: a Newton step on the point.
    #[differentiable(wrt(p), order = 2)]
    fn potential(&self, p: &[f64]) -> f64 {
        let stretch = self.length(p) - self.rest;
        0.5 * self.k * stretch * stretch + 0.05 * (p[0] * p[0] + p[1] * p[1]).powi(2)
    }
}

/// The spring energy on nested duals, the oracle: (k, rest, a0, a1, p0, p1).
fn spring_energy_generic<T: Float>(v: &[T]) -> T {
    let dx = v[4] - v[2];
    let dy = v[5] - v[3];
    let len = (dx * dx + dy * dy).sqrt();
    T::from(0.5).unwrap() * v[0] * (len - v[1]).powi(2)
}

fn spring_sample(r: &mut Lcg) -> Flat {
    vec![
        r.uniform(0.5, 3.0),
        r.uniform(0.2, 1.0),
        r.uniform(-1.0, 1.0),
        r.uniform(-1.0, 1.0),
    ]
}

#[test]
fn hessian_of_a_method_in_self() {
    let p = [1.7, -0.9];
    Probe::new("Spring::energy", move |v| {
        Spring::from_flat_values(v).energy(&p)
    })
    .grad(move |v| {
        let (f, g) = Spring::from_flat_values(v).energy_grad(&p);
        assert_eq!(g.label, 7, "a #[no_grad] field is copied");
        (f, g.to_flat())
    })
    .hessian(move |v| {
        let s = Spring::from_flat_values(v);
        let (f, g, h) = s.energy_hessian(&p);
        let oracle = hessian_by_duals(
            &|w: &[D2]| {
                let all = [w[0], w[1], w[2], w[3], D2::c(p[0]), D2::c(p[1])];
                spring_energy_generic(&all)
            },
            v,
        );
        assert_vec_near(
            &h.concat(),
            &oracle.concat(),
            1e-11,
            "Spring::energy by duals",
        );
        let (_, _, hv) = s.energy_hvp(&p, Spring::from_flat_values(&[1.0, -0.5, 0.25, 2.0]));
        let want: Vec<f64> = h
            .iter()
            .map(|row| dot(row, &[1.0, -0.5, 0.25, 2.0]))
            .collect();
        assert_vec_near(&hv.to_flat(), &want, 1e-11, "Spring::energy_hvp");
        (f, g.to_flat(), h)
    })
    .run(POINTS, spring_sample);
}

#[test]
fn hessian_of_a_method_in_self_and_a_slice() {
    Probe::new("Spring::energy_at", |v| {
        Spring::from_flat_values(v).energy_at(&v[4..])
    })
    .grad(|v| {
        let (f, (gs, gp)) = Spring::from_flat_values(v).energy_at_grad(&v[4..]);
        (f, [gs.to_flat(), gp].concat())
    })
    .hessian(|v| {
        let (f, (gs, gp), h) = Spring::from_flat_values(v).energy_at_hessian(&v[4..]);
        let oracle = hessian_by_duals(
            &|w: &[D2]| spring_energy_generic(w) + D2::c(0.1) * w[0] * w[4] * w[5],
            v,
        );
        assert_vec_near(
            &h.concat(),
            &oracle.concat(),
            1e-11,
            "Spring::energy_at by duals",
        );
        (f, [gs.to_flat(), gp].concat(), h)
    })
    .run(POINTS, |r| {
        let mut v = spring_sample(r);
        v.extend([r.uniform(1.0, 2.0), r.uniform(-2.0, -1.0)]);
        v
    });
}

#[test]
fn newton_on_a_method_with_a_constant_self() {
    let s = Spring {
        k: 2.0,
        rest: 0.5,
        anchor: [0.3, -0.2],
        label: 1,
    };
    Probe::new("Spring::potential", |v| s.potential(v))
        .grad(|v| s.potential_grad(v))
        .hessian(|v| s.potential_hessian(v))
        .run(POINTS, range(2, -2.0, 2.0));
    let mut p = vec![1.5, 1.0];
    for _ in 0..40 {
        let (_, g, h) = s.potential_hessian(&p);
        let det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
        p[0] -= (h[1][1] * g[0] - h[0][1] * g[1]) / det;
        p[1] -= (h[0][0] * g[1] - h[1][0] * g[0]) / det;
    }
    let (_, g) = s.potential_grad(&p);
    assert!(
        norm(&g) < 1e-12,
        "Newton on the method ends at a stationary point: {g:?}"
    );
}

/// A function of a 2×2 matrix: `ln(1 + det²) + sin(m01) m10 + tr(m)³`.
#[differentiable(order = 2)]
fn det_energy(m: [[f64; 2]; 2]) -> f64 {
    let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    let tr = m[0][0] + m[1][1];
    (1.0 + det * det).ln() + m[0][1].sin() * m[1][0] + tr * tr * tr
}

fn det_energy_generic<T: Float>(v: &[T]) -> T {
    let det = v[0] * v[3] - v[1] * v[2];
    let tr = v[0] + v[3];
    (T::one() + det * det).ln() + v[1].sin() * v[2] + tr * tr * tr
}

#[test]
fn hessian_of_a_nested_array_row_major() {
    let m = |v: &[f64]| [[v[0], v[1]], [v[2], v[3]]];
    Probe::new("det_energy", move |v| det_energy(m(v)))
        .grad(move |v| {
            let (f, g) = det_energy_grad(m(v));
            (f, g.concat())
        })
        .hessian(move |v| {
            let (f, g, h) = det_energy_hessian(m(v));
            assert_vec_near(
                &h.concat(),
                &hessian_by_duals(&det_energy_generic, v).concat(),
                1e-11,
                "det_energy by duals",
            );
            (f, g.concat(), h)
        })
        .run(POINTS, range(4, -1.5, 1.5));
}

/// `Σᵢ tanh(Σⱼ mᵢⱼ vⱼ)² + m₀₀ m₁₂`, differentiated in the rows `m` only.
#[differentiable(wrt(m), order = 2)]
fn rows_energy(m: &[Vec<f64>], v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        let mut r = 0.0;
        for j in 0..m[i].len() {
            r += m[i][j] * v[j];
        }
        s += r.tanh().powi(2);
    }
    s + m[0][0] * m[1][2]
}

#[test]
fn hessian_of_rows_row_major() {
    let v = [0.7, -1.2, 0.4];
    let rows = |w: &[f64]| vec![w[..3].to_vec(), w[3..].to_vec()];
    let generic = move |w: &[D2]| {
        let mut s = D2::c(0.0);
        for i in 0..2 {
            let mut r = D2::c(0.0);
            for j in 0..3 {
                r = r + w[3 * i + j] * D2::c(v[j]);
            }
            s = s + r.tanh().powi(2);
        }
        s + w[0] * w[5]
    };
    Probe::new("rows_energy", move |w| rows_energy(&rows(w), &v))
        .grad(move |w| {
            let (f, g) = rows_energy_grad(&rows(w), &v);
            (f, g.concat())
        })
        .hessian(move |w| {
            let (f, g, h) = rows_energy_hessian(&rows(w), &v);
            assert_vec_near(
                &h.concat(),
                &hessian_by_duals(&generic, w).concat(),
                1e-11,
                "rows_energy by duals",
            );
            (f, g.concat(), h)
        })
        .run(POINTS, range(6, -1.0, 1.0));
}

// ---------------------------------------------------------------------------------------------------
// `f32` at order 2; generic functions at order 3, also on `Dual<Dual<f64>>`; control flow.
// ---------------------------------------------------------------------------------------------------

/// `sin(x y) + eˣ y²` in `f32`.
#[differentiable(order = 2)]
fn wave32(x: f32, y: f32) -> f32 {
    let s = (x * y).sin();
    s + x.exp() * y * y
}

#[test]
fn f32_hessian_against_the_formula() {
    let mut rng = Lcg::new(32);
    for _ in 0..POINTS {
        let (x, y) = (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5));
        let (v, (gx, gy), h) = wave32_hessian(x as f32, y as f32);
        // The formula in f64 at the f32 inputs.
        let (x, y) = (x as f32 as f64, y as f32 as f64);
        let (s, c, e) = ((x * y).sin(), (x * y).cos(), x.exp());
        let want_h = [
            [-y * y * s + e * y * y, c - x * y * s + 2.0 * e * y],
            [c - x * y * s + 2.0 * e * y, -x * x * s + 2.0 * e],
        ];
        let tol = 2e-5;
        assert_near(v as f64, s + e * y * y, tol, 0.0, "wave32 value");
        assert_near(
            v as f64,
            wave32(x as f32, y as f32) as f64,
            1e-6,
            0.0,
            "wave32 value as the function",
        );
        assert_near(gx as f64, y * c + e * y * y, tol, 0.0, "wave32 d/dx");
        assert_near(gy as f64, x * c + 2.0 * e * y, tol, 0.0, "wave32 d/dy");
        for i in 0..2 {
            for j in 0..2 {
                assert_near(
                    h[i][j] as f64,
                    want_h[i][j],
                    tol,
                    0.0,
                    &format!("wave32 H[{i}][{j}] at {x}, {y}"),
                );
            }
        }
        // f_hvp in f32 agrees with the Hessian's rows.
        let (_, _, (hx, hy)) = wave32_hvp(x as f32, y as f32, (1.0, -2.0));
        assert_near(
            hx as f64,
            want_h[0][0] - 2.0 * want_h[0][1],
            5e-5,
            0.0,
            "wave32_hvp x",
        );
        assert_near(
            hy as f64,
            want_h[1][0] - 2.0 * want_h[1][1],
            5e-5,
            0.0,
            "wave32_hvp y",
        );
    }
}

/// A generic function at order 3 with early `return`, `match`, `loop` with `break` value and shadowing in
/// blocks.
#[differentiable(order = 3)]
fn branchy<T: Float>(x: T, mode: u8) -> T {
    if x > T::from(2.5).unwrap() {
        return x.ln() * x;
    }
    let y = match mode {
        0 => x.sin(),
        1 | 2 => x * x * x,
        _ => x.exp(),
    };
    let z = {
        let y = y * T::from(2.0).unwrap();
        let x = x + y;
        x * x
    };
    let mut acc = x;
    let mut k = 0;
    let w = loop {
        acc = acc * T::from(0.5).unwrap()
            + (x * T::from(k as f64).unwrap()).cos() * T::from(0.1).unwrap();
        k += 1;
        if k == 5 {
            break acc * x;
        }
    };
    z + w
}

/// The third derivative of `branchy` by four nested duals run on the function itself.
fn branchy_by_duals(x: f64, mode: u8) -> [f64; 4] {
    [
        branchy(x, mode),
        branchy(Dual::<f64>::var(x), mode).top(),
        branchy(D2::var(x), mode).top(),
        branchy(D3::var(x), mode).top(),
    ]
}

#[test]
fn control_flow_at_third_order_against_nested_duals() {
    for mode in 0..4u8 {
        let mut rng = Lcg::new(40 + mode as u64);
        for _ in 0..POINTS {
            // Both sides of the early return, away from the jump at 2.5.
            let x = loop {
                let x = rng.uniform(-2.0, 4.0);
                if (x - 2.5).abs() > 0.05 {
                    break x;
                }
            };
            let d = branchy_derivatives(x, mode);
            let want = branchy_by_duals(x, mode);
            assert_vec_near(&d, &want, 1e-11, &format!("branchy({x}, {mode})"));
            for k in 1..4 {
                let fd = fd1(&|y| branchy_derivatives(y, mode)[k - 1], x, 1e-6);
                assert_near(
                    d[k],
                    fd,
                    1e-5,
                    d[k].abs().max(1.0),
                    &format!("branchy({x}, {mode}) derivative {k}"),
                );
            }
        }
    }
}

#[test]
fn generic_items_at_third_order_run_on_nested_duals() {
    // `f_derivatives` itself on `Dual<Dual<f64>>`: each entry carries the next two derivatives.
    for mode in [0u8, 3] {
        for x in [-1.25, 0.5, 1.75, 3.0] {
            let d = branchy_derivatives(D2::var(x), mode);
            let want: Vec<f64> = (0..6)
                .map(|n| match n {
                    0 => branchy(x, mode),
                    1 => branchy(Dual::<f64>::var(x), mode).top(),
                    2 => branchy(D2::var(x), mode).top(),
                    3 => branchy(D3::var(x), mode).top(),
                    4 => branchy(D4::var(x), mode).top(),
                    _ => branchy(Dual::<D4>::var(x), mode).top(),
                })
                .collect();
            for k in 0..4 {
                let parts = [
                    (d[k].re.re, want[k], "re.re"),
                    (d[k].re.eps, want[k + 1], "re.eps"),
                    (d[k].eps.re, want[k + 1], "eps.re"),
                    (d[k].eps.eps, want[k + 2], "eps.eps"),
                ];
                for (got, expected, part) in parts {
                    let what = format!("{part} of entry {k} at {x}");
                    assert_near(got, expected, 1e-10, expected.abs(), &what);
                }
            }
            // `f_hessian` on duals: its tangent is the third derivative.
            let (_, _, h) = branchy_hessian(Dual::new(x, 1.0), mode);
            assert_near(
                h[0][0].eps,
                want[3],
                1e-10,
                want[3].abs(),
                "f_hessian on Dual",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// `f64` functions at order 3 and 4 calling other `f64` functions across modules, with iterator chains,
// closures, nested `fn`s and output parameters.
// ---------------------------------------------------------------------------------------------------

mod kernels {
    use autodiff::differentiable;

    /// A Gaussian kernel sum over fixed centres, by an iterator chain with a closure.
    #[differentiable]
    pub fn kernel_sum(x: f64, centres: &[f64]) -> f64 {
        centres.iter().map(|&c| (-(x - c) * (x - c)).exp()).sum()
    }

    pub mod inner {
        use autodiff::differentiable;

        /// A rational function with a nested `fn` and a local closure.
        #[differentiable]
        pub fn rational(x: f64) -> f64 {
            fn denom(v: f64) -> f64 {
                1.0 + v * v
            }
            let sq = |v: f64| v * v;
            sq(x + 1.0) / denom(x)
        }
    }
}

const CENTRES: [f64; 3] = [-1.0, 0.25, 1.5];

/// `kernel_sum(x) · rational(x)`, each from another module, with a fold.
#[differentiable(wrt(x), order = 4)]
fn kernel_mix(x: f64, centres: &[f64]) -> f64 {
    let k = kernels::kernel_sum(x, centres);
    let r = kernels::inner::rational(x);
    centres.iter().fold(k * r, |acc, &c| acc + 0.01 * c * x)
}

fn kernel_mix_generic<T: Lift>(x: T) -> T {
    let mut k = T::c(0.0);
    for c in CENTRES {
        k = k + (-(x - T::c(c)) * (x - T::c(c))).exp();
    }
    let r = (x + T::c(1.0)) * (x + T::c(1.0)) / (T::c(1.0) + x * x);
    let mut acc = k * r;
    for c in CENTRES {
        acc = acc + T::c(0.01 * c) * x;
    }
    acc
}

#[test]
fn calls_across_modules_to_the_fourth_derivative() {
    check_derivatives(
        "kernel_mix",
        &|x| kernel_mix(x, &CENTRES),
        &|x| kernel_mix_derivatives(x, &CENTRES),
        &|x| to_fourth_by_duals!(kernel_mix_generic, x),
        1e-11,
        1,
        within(-2.0, 2.0),
    );
}

/// A residual written into an output parameter, and its squared norm returned: order 2 of the float.
#[differentiable(order = 2)]
fn residual_norm(p: &[f64], r: &mut [f64]) -> f64 {
    r[0] = p[0] * p[0] - p[1];
    r[1] = (p[0] * p[1]).sin();
    r[2] = p[1].exp() - 2.0;
    r[0] * r[0] + r[1] * r[1] + r[2] * r[2]
}

#[test]
fn hessian_of_a_function_with_an_output_parameter() {
    let generic = |w: &[D2]| {
        let r0 = w[0] * w[0] - w[1];
        let r1 = (w[0] * w[1]).sin();
        let r2 = w[1].exp() - D2::c(2.0);
        r0 * r0 + r1 * r1 + r2 * r2
    };
    Probe::new("residual_norm", |p| residual_norm(p, &mut [0.0; 3]))
        .grad(|p| {
            let mut r = [GARBAGE; 3];
            let (f, g) = residual_norm_grad(p, &mut r);
            assert_eq!(r[0], p[0] * p[0] - p[1], "the output written by f_grad");
            (f, g)
        })
        .hessian(move |p| {
            let mut r = [GARBAGE; 3];
            let (f, g, h) = residual_norm_hessian(p, &mut r);
            assert_eq!(r[2], p[1].exp() - 2.0, "the output written by f_hessian");
            assert_vec_near(
                &h.concat(),
                &hessian_by_duals(&generic, p).concat(),
                1e-11,
                "residual_norm by duals",
            );
            (f, g, h)
        })
        .run(POINTS, range(2, -1.5, 1.5));
}

#[test]
fn registered_gradients_on_nan_and_infinite_inputs_give_nan_not_a_panic() {
    let (v, g, h) = bumpy_hessian(f64::NAN, 1.0);
    assert!(
        v.is_nan() && g.0.is_nan() && h[0][0].is_nan(),
        "{v} {g:?} {h:?}"
    );
    let d = swish_derivatives(f64::NAN);
    assert!(d.iter().all(|v| v.is_nan()), "{d:?}");
    // At an infinite input the tangent parts of the argument are `∞ - ∞`: the registered function's
    // value on duals is not finite either (NaN where `swish4(∞)` is ∞), and nothing panics. (The third
    // and fourth derivatives may come out 0, their limits at +∞: a product skips the zero tangent of one
    // factor where the other's value is infinite, as JAX's symbolic zeros do; never a finite non-zero.)
    let d = swish4_derivatives(f64::INFINITY);
    assert!(d[..3].iter().all(|v| !v.is_finite()), "{d:?}");
    assert!(d[3..].iter().all(|v| !v.is_finite() || *v == 0.0), "{d:?}");
}

// ---------------------------------------------------------------------------------------------------
// More registrations at order 3 and 4: a slice parameter, an integer parameter, a gradient calling its
// two-input function, an `f32` function; a nested custom gradient of two inputs at order 4.
// ---------------------------------------------------------------------------------------------------

mod plain {
    /// `Σ aᵢ bᵢ`, plain Rust.
    pub fn weighted(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(p, q)| p * q).sum()
    }

    /// `xⁿ / n!`, plain Rust with an integer parameter.
    pub fn term(n: u32, x: f64) -> f64 {
        x.powi(n as i32) / (1..=n).map(f64::from).product::<f64>()
    }

    /// `√(x² + y²)`, plain Rust.
    pub fn radius(x: f64, y: f64) -> f64 {
        (x * x + y * y).sqrt()
    }

    /// `ln(1 + x²)` in `f32`.
    pub fn soft32(x: f32) -> f32 {
        (1.0 + x * x).ln()
    }
}

#[gradient_of(plain::weighted)]
fn weighted_vjp(a: &[f64], b: &[f64], dy: f64) -> (Vec<f64>, Vec<f64>) {
    (
        b.iter().map(|v| dy * v).collect(),
        a.iter().map(|v| dy * v).collect(),
    )
}

#[gradient_of(plain::term)]
fn term_vjp(n: u32, x: f64, dy: f64) -> f64 {
    if n == 0 {
        0.0
    } else {
        dy * x.powi(n as i32 - 1) / (1..n).map(f64::from).product::<f64>()
    }
}

#[gradient_of(plain::radius)]
fn radius_vjp(x: f64, y: f64, dy: f64) -> (f64, f64) {
    let r = plain::radius(x, y);
    (dy * x / r, dy * y / r)
}

#[gradient_of(plain::soft32)]
fn soft32_vjp(x: f32, dy: f32) -> f32 {
    dy * 2.0 * x / (1.0 + x * x)
}

/// `(x, x²)·(1, sin x) + x⁵/5! + √(x² + 4)`: three registrations at order 4.
#[differentiable(order = 4)]
fn registered_mix(x: f64) -> f64 {
    let a = [x, x * x];
    let b = [1.0, x.sin()];
    plain::weighted(&a, &b) + plain::term(5, x) + plain::radius(x, 2.0)
}

fn registered_mix_generic<T: Lift>(x: T) -> T {
    x + x * x * x.sin() + x.powi(5) / T::c(120.0) + (x * x + T::c(4.0)).sqrt()
}

#[test]
fn registrations_of_slices_integers_and_self_calls_at_fourth_order() {
    check_derivatives(
        "registered_mix",
        &registered_mix,
        &registered_mix_derivatives,
        &|x| to_fourth_by_duals!(registered_mix_generic, x),
        1e-11,
        1,
        within(-2.0, 2.0),
    );
}

/// The radius of two active inputs at order 3: its Hessian, and f_derivatives along x with y held.
#[differentiable(order = 3)]
fn radius_cubed(x: f64, y: f64) -> f64 {
    let r = plain::radius(x, y);
    r * r * r
}

#[test]
fn a_self_calling_registration_of_two_inputs_at_third_order() {
    let generic = |w: &[D2]| {
        let r = (w[0] * w[0] + w[1] * w[1]).sqrt();
        r * r * r
    };
    two_by_duals(
        "radius_cubed",
        radius_cubed,
        radius_cubed_grad,
        radius_cubed_hessian,
        generic,
    )
    .run(POINTS, range(2, 0.3, 2.0));
}

/// `soft32(x) x` in `f32` at order 3.
#[differentiable(order = 3)]
fn soft32_times(x: f32) -> f32 {
    plain::soft32(x) * x
}

#[test]
fn an_f32_registration_at_third_order() {
    for x in [-1.5_f32, -0.3, 0.8, 2.0] {
        let d = soft32_times_derivatives(x);
        assert_eq!(d[0], soft32_times(x));
        let x = x as f64;
        let l = (1.0 + x * x).ln();
        let q = 1.0 + x * x;
        // (x ln(1 + x²))' = ln q + 2x²/q; '' = 2x/q + 4x/q - 4x³/q² = 6x/q - 4x³/q²;
        // ''' = 6/q - 12x²/q² - 12x²/q² + 16x⁴/q³.
        let want = [
            x * l,
            l + 2.0 * x * x / q,
            6.0 * x / q - 4.0 * x * x * x / (q * q),
            6.0 / q - 24.0 * x * x / (q * q) + 16.0 * x.powi(4) / (q * q * q),
        ];
        for k in 0..4 {
            assert_near(
                d[k] as f64,
                want[k],
                1e-5,
                0.0,
                &format!("soft32_times derivative {k} at {x}"),
            );
        }
    }
}

/// A custom gradient of two inputs whose closure calls another custom gradient of two inputs: order 4
/// differentiates the nested one by its own closure.
#[custom_gradient]
fn scaled_product<T: Float>(a: T, b: T) -> (T, impl Fn(T) -> (T, T)) {
    // Claims d/da = 2b, d/db = a: not the product's derivative (b, a), on purpose.
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

#[differentiable(order = 3)]
fn through_outer_pair<T: Float>(x: T) -> T {
    outer_pair(x, x * x)
}

#[test]
fn a_nested_custom_gradient_of_two_inputs_at_third_order() {
    // F(x) = outer_pair(x, x²). Its gradient: ∂x = 2·s(x, x²), ∂y = x², F' = 2 s + 2x · x² where s, the
    // value of scaled_product(x, y) in the closure, follows scaled_product's closure along the path
    // (x, x²): ds/dx = 2y + x · 2x = 4x², s'' = 8x, with s = x³ at the value. F' = 2s + 2x³.
    for x in [-1.25_f64, 0.5, 1.5] {
        let d = through_outer_pair_derivatives(x);
        let want = [
            x.powi(4),
            2.0 * x.powi(3) + 2.0 * x.powi(3),
            8.0 * x * x + 6.0 * x * x,
            16.0 * x + 12.0 * x,
        ];
        assert_vec_near(&d, &want, 1e-12, &format!("through_outer_pair at {x}"));
    }
}

/// At order 4 the value of `scaled_product` in the closure would need its third-order terms, which for a
/// closure that is not the gradient of a function (`(2b, a)`) depend on the path: the straight line from
/// the arguments' values gives s⁽³⁾ = 9, the chain rule along (x, x²) gives 8. Refused at run time.
#[differentiable(order = 4)]
fn through_outer_pair_fourth<T: Float>(x: T) -> T {
    outer_pair(x, x * x)
}

#[test]
#[should_panic(expected = "of several inputs inside another custom gradient's closure")]
fn a_nested_custom_gradient_of_two_inputs_beyond_third_order_panics() {
    through_outer_pair_fourth_derivatives(0.5);
}
