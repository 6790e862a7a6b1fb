//! A trust probe written as a new user would: test functions of other AD projects' suites and of the
//! optimisation literature, written anew in plain Rust from their mathematics (no code copied), each
//! checked at first order and at `order = 2`.
//!
//! - Moré, Garbow and Hillstrom's test problems not ported before: Freudenstein–Roth, Powell badly
//!   scaled, Brown badly scaled, Jennrich–Sampson, helical valley (its angle a helper with an early
//!   `return`), Bard, Gaussian, Gulf research (an active exponent of an `abs`), Box 3-D, Powell singular
//!   (residuals into an output parameter, a singular Hessian at the minimum), Wood (an array
//!   destructured), Kowalik–Osborne (the data a constant matrix outside the function, `KOWALIK[i][j]`),
//!   Brown–Dennis, Biggs EXP6, Watson, extended Powell (`chunks(4)`), penalty I and II, variably
//!   dimensioned, discrete boundary value and integral equation, Broyden tridiagonal and banded, linear
//!   full rank and rank 1; the gradient zero and the Hessian `2 JᵀJ` at the known zero-residual minima.
//! - Griewank and Walther's running examples: the first chapter's evaluation procedure, the lighthouse
//!   (a tuple result and its Jacobian), Speelpenning's product through a `Vec` of prefixes, the Helmholtz
//!   energy, a fixed-point iteration whose derivative converges to the implicit one.
//! - JAX's `api_test.py` / `lax_autodiff_test.py` forms as loops: `fori_loop`, `while_loop`, `scan`,
//!   `cummax`, `cumlogsumexp`, `reduce_window` max pooling, `sort`, `rem`/`pow`, the double-`where`,
//!   `dynamic_update_slice`, `clamp`/`select`, a `custom_vjp`, top-2, row log-sum-exp.
//! - Enzyme's `integrateexp`, `sum`, `recurse`, `wcontinue`, a triangular double loop and the GMM
//!   benchmark's objective in one dimension.
//! - Stan's math library: `log1m_exp`, `log_diff_exp`, `log_mix`, `log_inv_logit`, `binomial_logit`,
//!   `Phi_approx`, `inv_cloglog`, the Cauchy, logistic, Gumbel, double-exponential, lognormal, Weibull,
//!   Pareto II and Fréchet log densities, `ordered_logistic`, `categorical_logit`, the simplex, ordered,
//!   bounded, unit-vector and correlation transforms with their log Jacobians, `gp_exp_quad_cov`,
//!   `squared_distance`.
//! - `found`: the minimal programs of what failed (a constant matrix from outside read as `A[i][j]`,
//!   `for v in x` over an array held by value in the generic copy, `return;` in a loop of a `()`
//!   function, constant arrays from outside and their rows passed to calls, `W` and `&A[i]`) and one
//!   that now works (an untyped literal assigned to a carried float at `order = 2`).
//!
//! Every gradient is checked against central differences (`common::probe`) at seeded points, many also
//! against a derivative worked out by hand; `f_jvp` against the gradient, `f_grad_into` with NaN-filled
//! buffers, and `f_hessian` against central differences of `f_grad`.

// The forms of the ported formulas: index loops, explicit returns, a manual clamp in `bard`, a swap
// through a temporary and `if i >= 5 { i - 5 } else { 0 }` as the papers write them.
#![allow(
    clippy::implicit_saturating_sub,
    clippy::manual_swap,
    clippy::needless_range_loop,
    clippy::needless_return,
    clippy::type_complexity,
    clippy::excessive_precision,
    clippy::manual_clamp,
    clippy::approx_constant,
    clippy::ptr_arg
)]

mod common;

use common::probe::*;

const POINTS: usize = 12;

/// `slice(..)` and `f_hessian` of a function of one slice in module `$m`.
macro_rules! sl {
    ($m:ident :: $f:ident, $g:ident, $j:ident, $gi:ident, $h:ident) => {
        slice(stringify!($f), $m::$f, $m::$g, $m::$j, $m::$gi).hessian($m::$h)
    };
}

/// A probe of a function of one array `&[f64; N]`, with `f_hessian`.
fn arr<'a, const N: usize>(
    name: &'a str,
    f: fn(&[f64; N]) -> f64,
    g: fn(&[f64; N]) -> (f64, [f64; N]),
    j: fn(&[f64; N], [f64; N]) -> (f64, f64),
    gi: fn(&[f64; N], &mut [f64; N]) -> f64,
    h: fn(&[f64; N]) -> (f64, [f64; N], Vec<Vec<f64>>),
) -> Probe<'a> {
    let a = |x: &[f64]| -> [f64; N] { x.try_into().expect("N inputs") };
    Probe::new(name, move |x| f(&a(x)))
        .grad(move |x| {
            let (v, d) = g(&a(x));
            (v, d.to_vec())
        })
        .jvp(move |x, t| j(&a(x), a(t)))
        .grad_into(move |x| {
            let mut d = [GARBAGE; N];
            let v = gi(&a(x), &mut d);
            (v, d.to_vec())
        })
        .hessian(move |x| {
            let (v, d, m) = h(&a(x));
            (v, d.to_vec(), m)
        })
}

/// A probe of a function of three scalars, with `f_hessian`.
fn three<'a>(
    name: &'a str,
    f: fn(f64, f64, f64) -> f64,
    g: fn(f64, f64, f64) -> (f64, (f64, f64, f64)),
    h: fn(f64, f64, f64) -> (f64, (f64, f64, f64), Vec<Vec<f64>>),
) -> Probe<'a> {
    Probe::new(name, move |x| f(x[0], x[1], x[2]))
        .grad(move |x| {
            let (v, d) = g(x[0], x[1], x[2]);
            (v, vec![d.0, d.1, d.2])
        })
        .hessian(move |x| {
            let (v, d, m) = h(x[0], x[1], x[2]);
            (v, vec![d.0, d.1, d.2], m)
        })
}

/// The gradient zero and the Hessian `2 JᵀJ` (JᵀJ from the residuals' Jacobian by central
/// differences) at a zero-residual minimum `x`.
#[track_caller]
fn at_minimum(
    name: &str,
    x: &[f64],
    grad: &dyn Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: &dyn Fn(&[f64]) -> Vec<Vec<f64>>,
    residuals: &dyn Fn(&[f64]) -> Vec<f64>,
) {
    let (v, g) = grad(x);
    assert_near(v, 0.0, 1e-12, 0.0, &format!("{name}: f at its minimum"));
    for (i, gi) in g.iter().enumerate() {
        assert_near(
            *gi,
            0.0,
            1e-9,
            0.0,
            &format!("{name}: g[{i}] at its minimum"),
        );
    }
    let columns = fd_columns(residuals, x);
    let h = hessian(x);
    for i in 0..x.len() {
        for j in 0..x.len() {
            let jtj: f64 = 2.0 * dot(&columns[i], &columns[j]);
            assert_near(
                h[i][j],
                jtj,
                1e-6,
                jtj.abs(),
                &format!("{name}: H[{i}][{j}] = 2 JᵀJ"),
            );
        }
    }
}
// ---------------------------------------------------------------------------------------------------
// What this probe found, minimised.
// ---------------------------------------------------------------------------------------------------

pub mod found {
    use autodiff::differentiable;

    /// A constant matrix from outside the function.
    pub const A: [[f64; 3]; 3] = [[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]];

    /// `xᵀ A x / 2` of the outside matrix read `A[i][j]` (was: "`A` is not known here to hold a
    /// slice"; then the generic copy's `constant(A[i])[j]`).
    #[differentiable(order = 2)]
    pub fn quad_const(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                s += x[i] * A[i][j] * x[j];
            }
        }
        0.5 * s
    }

    /// An untyped literal assigned to a carried float in a loop, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn reset_sum(x: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut best = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i];
            if s > 4.0 {
                best += s;
                s = 1.0;
            }
        }
        best + s
    }

    /// `for v in x` over an array taken by value (was: the generic copy's `for &v in x`, a mismatched
    /// type), and over a local `Vec` made by value.
    #[differentiable(order = 2)]
    pub fn arr_by_value(x: [f64; 3]) -> f64 {
        let mut s = 0.0;
        for v in x {
            s += v * v.sin();
        }
        let w = vec![x[0] * x[1], x[2]];
        for v in w {
            s += v.exp();
        }
        s
    }

    /// A constant array from outside.
    pub const W: [f64; 3] = [1.0, 0.5, -1.0];

    /// A callee keeping its array parameter constant (`wrt(x)`).
    #[differentiable(order = 2, wrt(x))]
    pub fn weighted(x: f64, w: [f64; 3]) -> f64 {
        x * w[0] + x * x * w[1]
    }

    /// Constant arrays from outside passed on, whole and as a row of a matrix (`A[1]`): the callee's
    /// slot `()` (was: `[f64; 3]: Constant<__S>` unsatisfied in the generic copy).
    #[differentiable(order = 2)]
    pub fn passes_constants(x: f64) -> f64 {
        weighted(x, W) + weighted(x, A[1])
    }

    /// A function of two slices.
    #[differentiable(order = 2)]
    pub fn slice_dot2(w: &[f64], x: &[f64]) -> f64 {
        w[0] * x[0] + w[1] * x[1]
    }

    /// Constant arrays from outside passed to an active slice parameter: the slot a `Vec` of zeros.
    #[differentiable(order = 2)]
    pub fn constants_as_slices(x: &[f64]) -> f64 {
        slice_dot2(&W, x) * slice_dot2(&A[0], x)
    }

    /// `return;` in a loop of a `()` function (was: `(): Zero` not satisfied).
    #[differentiable]
    pub fn fill_until(x: &[f64], out: &mut [f64]) {
        for i in 0..x.len() {
            if x[i] > 10.0 {
                return;
            }
            out[i] = x[i] * x[i];
        }
    }

    /// The `()` function called at `order = 2`.
    #[differentiable(order = 2)]
    pub fn uses_fill(x: &[f64]) -> f64 {
        let mut buf = vec![0.0; x.len()];
        fill_until(x, &mut buf);
        let mut s = 0.0;
        for i in 0..buf.len() {
            s += buf[i] * x[i];
        }
        s
    }
}

#[test]
fn found_constant_matrix() {
    sl!(
        found::quad_const,
        quad_const_grad,
        quad_const_jvp,
        quad_const_grad_into,
        quad_const_hessian
    )
    .analytic(|x| {
        (0..3)
            .map(|i| (0..3).map(|j| found::A[i][j] * x[j]).sum())
            .collect()
    })
    .run(POINTS, |r| r.vec(3, -2.0, 2.0));
    let (_, _, h) = found::quad_const_hessian(&[0.3, -0.1, 0.7]);
    for i in 0..3 {
        for j in 0..3 {
            assert_near(h[i][j], found::A[i][j], 1e-12, 0.0, "quad_const: H = A");
        }
    }
}

#[test]
fn found_constant_arrays_passed_on() {
    Probe::new("passes_constants", |x| found::passes_constants(x[0]))
        .grad(|x| {
            let (v, g) = found::passes_constants_grad(x[0]);
            (v, vec![g])
        })
        .hessian(|x| {
            let (v, g, h) = found::passes_constants_hessian(x[0]);
            (v, vec![g], h)
        })
        .analytic(|x| vec![1.0 + x[0] + 1.0 + 6.0 * x[0]])
        .run(POINTS, |r| vec![r.uniform(-2.0, 2.0)]);
    sl!(
        found::constants_as_slices,
        constants_as_slices_grad,
        constants_as_slices_jvp,
        constants_as_slices_grad_into,
        constants_as_slices_hessian
    )
    .analytic(|x| {
        let (a, b) = (
            found::W[0] * x[0] + found::W[1] * x[1],
            found::A[0][0] * x[0] + found::A[0][1] * x[1],
        );
        (0..2)
            .map(|j| found::W[j] * b + a * found::A[0][j])
            .collect()
    })
    .run(POINTS, |r| r.vec(2, -2.0, 2.0));
}

#[test]
fn found_literal_reset() {
    sl!(
        found::reset_sum,
        reset_sum_grad,
        reset_sum_jvp,
        reset_sum_grad_into,
        reset_sum_hessian
    )
    .analytic(|x| {
        // Which squares reach the result: those after the last reset, and all of those before it
        // through `best`; a reset replaces `s` by the constant 1.
        let mut s = 0.0;
        let mut g = vec![0.0; x.len()];
        let mut open: Vec<usize> = Vec::new();
        for i in 0..x.len() {
            s += x[i] * x[i];
            open.push(i);
            if s > 4.0 {
                for &k in &open {
                    g[k] += 2.0 * x[k];
                }
                open.clear();
                s = 1.0;
            }
        }
        for &k in &open {
            g[k] += 2.0 * x[k];
        }
        g
    })
    .run(POINTS, |r| r.vec(6, -2.0, 2.0));
}

#[test]
fn found_array_by_value() {
    Probe::new("arr_by_value", |x| found::arr_by_value([x[0], x[1], x[2]]))
        .grad(|x| {
            let (v, g) = found::arr_by_value_grad([x[0], x[1], x[2]]);
            (v, g.to_vec())
        })
        .hessian(|x| {
            let (v, g, h) = found::arr_by_value_hessian([x[0], x[1], x[2]]);
            (v, g.to_vec(), h)
        })
        .analytic(|x| {
            let d = |v: f64| v.sin() + v * v.cos();
            let e = (x[0] * x[1]).exp();
            vec![d(x[0]) + x[1] * e, d(x[1]) + x[0] * e, d(x[2]) + x[2].exp()]
        })
        .run(POINTS, |r| r.vec(3, -2.0, 2.0));
}

#[test]
fn found_return_in_unit_function() {
    sl!(
        found::uses_fill,
        uses_fill_grad,
        uses_fill_jvp,
        uses_fill_grad_into,
        uses_fill_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for i in 0..x.len() {
            if x[i] > 10.0 {
                break;
            }
            g[i] = 3.0 * x[i] * x[i];
        }
        g
    })
    .run(POINTS, |r| {
        let mut x = r.vec(6, -2.0, 2.0);
        let k = (r.unit() * 6.0) as usize;
        x[k.min(5)] = 11.0 + r.unit();
        x
    });
    // The output's vjp: the entries written before the `return` only.
    let x = [1.0, 2.0, 12.0, 3.0];
    let mut out = [0.5; 4];
    let g = found::fill_until_vjp(&x, &mut out, &[1.0, 1.0, 1.0, 1.0]);
    assert_eq!(out, [1.0, 4.0, 0.5, 0.5]);
    assert_vec_near(&g, &[2.0, 4.0, 0.0, 0.0], 1e-12, "fill_until's vjp");
}
// ---------------------------------------------------------------------------------------------------
// Moré, Garbow and Hillstrom (1981), "Testing unconstrained optimization software": sums of squares of
// residuals, each written from the paper's formulas as a Rust user writes least squares.
// ---------------------------------------------------------------------------------------------------

pub mod mgh {
    use autodiff::differentiable;

    /// Problem 2, Freudenstein and Roth: two cubic residuals in `x2` (minimum 0 at `(5, 4)`).
    #[differentiable(order = 2)]
    pub fn freudenstein_roth(x: &[f64]) -> f64 {
        let r1 = -13.0 + x[0] + ((5.0 - x[1]) * x[1] - 2.0) * x[1];
        let r2 = -29.0 + x[0] + ((x[1] + 1.0) * x[1] - 14.0) * x[1];
        r1 * r1 + r2 * r2
    }

    /// Problem 3, Powell badly scaled: `1e4 x1 x2 - 1` and `e^-x1 + e^-x2 - 1.0001`.
    #[differentiable(order = 2)]
    pub fn powell_badly_scaled(x1: f64, x2: f64) -> f64 {
        let r1 = 1.0e4 * x1 * x2 - 1.0;
        let r2 = (-x1).exp() + (-x2).exp() - 1.0001;
        r1.powi(2) + r2.powi(2)
    }

    /// Problem 4, Brown badly scaled (minimum 0 at `(1e6, 2e-6)`).
    #[differentiable(order = 2)]
    pub fn brown_badly_scaled(x: &[f64; 2]) -> f64 {
        let r = [x[0] - 1.0e6, x[1] - 2.0e-6, x[0] * x[1] - 2.0];
        let mut f = 0.0;
        for v in r {
            f += v * v;
        }
        f
    }

    /// Problem 6, Jennrich and Sampson, `m = 10`: `r_i = 2 + 2i - (e^{i x1} + e^{i x2})`.
    #[differentiable(order = 2)]
    pub fn jennrich_sampson(x: &[f64]) -> f64 {
        (1..=10)
            .map(|i| {
                let t = i as f64;
                let r = 2.0 + 2.0 * t - ((t * x[0]).exp() + (t * x[1]).exp());
                r * r
            })
            .sum()
    }

    /// Problem 7's angle: `atan(x2 / x1) / 2π`, shifted by one half for `x1 < 0`.
    #[differentiable(order = 2)]
    pub fn theta(x1: f64, x2: f64) -> f64 {
        let t = (x2 / x1).atan() / (2.0 * std::f64::consts::PI);
        if x1 < 0.0 {
            return t + 0.5;
        }
        t
    }

    /// Problem 7, helical valley (minimum 0 at `(1, 0, 0)`).
    #[differentiable(order = 2)]
    pub fn helical_valley(x: &[f64; 3]) -> f64 {
        let r1 = 10.0 * (x[2] - 10.0 * theta(x[0], x[1]));
        let r2 = 10.0 * ((x[0] * x[0] + x[1] * x[1]).sqrt() - 1.0);
        let r3 = x[2];
        r1 * r1 + r2 * r2 + r3 * r3
    }

    /// Problem 8's data.
    pub const BARD_Y: [f64; 15] = [
        0.14, 0.18, 0.22, 0.25, 0.29, 0.32, 0.35, 0.39, 0.37, 0.58, 0.73, 0.96, 1.34, 2.10, 4.39,
    ];

    /// Problem 8, Bard: `y_i - (x1 + u_i / (v_i x2 + w_i x3))`, `u = i`, `v = 16 - i`, `w = min(u, v)`.
    #[differentiable(order = 2)]
    pub fn bard(x: &[f64]) -> f64 {
        let mut f = 0.0;
        for i in 0..15 {
            let u = (i + 1) as f64;
            let v = (15 - i) as f64;
            let w = if u < v { u } else { v };
            let r = BARD_Y[i] - (x[0] + u / (v * x[1] + w * x[2]));
            f += r * r;
        }
        f
    }

    /// Problem 9's data, symmetric about its middle.
    pub const GAUSS_Y: [f64; 15] = [
        0.0009, 0.0044, 0.0175, 0.0540, 0.1295, 0.2420, 0.3521, 0.3989, 0.3521, 0.2420, 0.1295,
        0.0540, 0.0175, 0.0044, 0.0009,
    ];

    /// Problem 9, Gaussian: `x1 exp(-x2 (t_i - x3)² / 2) - y_i`, `t_i = (8 - i) / 2`.
    #[differentiable(order = 2)]
    pub fn gaussian(x: &[f64]) -> f64 {
        let mut f = 0.0;
        for i in 0..GAUSS_Y.len() {
            let t = (7.0 - i as f64) / 2.0;
            let d = t - x[2];
            let r = x[0] * (-0.5 * x[1] * d * d).exp() - GAUSS_Y[i];
            f += r * r;
        }
        f
    }

    /// Problem 11, Gulf research and development, `m = 20`: `exp(-|y_i - x2|^x3 / x1) - t_i`, an
    /// exponent that is active and an `abs`.
    #[differentiable(order = 2)]
    pub fn gulf(x: &[f64]) -> f64 {
        let m = 20;
        let mut f = 0.0;
        for i in 1..=m {
            let t = i as f64 / 100.0;
            let y = 25.0 + (-50.0 * t.ln()).powf(2.0 / 3.0);
            let r = (-(y - x[1]).abs().powf(x[2]) / x[0]).exp() - t;
            f += r * r;
        }
        f
    }

    /// Problem 12, Box three-dimensional, `m = 10` (minimum 0 at `(1, 10, 1)`).
    #[differentiable(order = 2)]
    pub fn box3d(x: &[f64]) -> f64 {
        let mut f = 0.0;
        let mut i = 1;
        while i <= 10 {
            let t = 0.1 * i as f64;
            let r = (-t * x[0]).exp() - (-t * x[1]).exp() - x[2] * ((-t).exp() - (-10.0 * t).exp());
            f += r * r;
            i += 1;
        }
        f
    }

    /// Problem 13's residuals, into an output (MINPACK's `fcn` form).
    #[differentiable]
    pub fn powell_singular_residuals(x: &[f64], r: &mut [f64]) {
        r[0] = x[0] + 10.0 * x[1];
        r[1] = 5f64.sqrt() * (x[2] - x[3]);
        r[2] = (x[1] - 2.0 * x[2]).powi(2);
        r[3] = 10f64.sqrt() * (x[0] - x[3]).powi(2);
    }

    /// Problem 13, Powell singular: its residuals summed (minimum 0 at the origin, a singular Hessian).
    #[differentiable(order = 2)]
    pub fn powell_singular(x: &[f64]) -> f64 {
        let mut r = [0.0; 4];
        powell_singular_residuals(x, &mut r);
        r.iter().map(|v| v * v).sum()
    }

    /// Problem 14, Wood (minimum 0 at `(1, 1, 1, 1)`).
    #[differentiable(order = 2)]
    pub fn wood(x: &[f64; 4]) -> f64 {
        let [x1, x2, x3, x4] = *x;
        let r = [
            10.0 * (x2 - x1 * x1),
            1.0 - x1,
            90f64.sqrt() * (x4 - x3 * x3),
            1.0 - x3,
            10f64.sqrt() * (x2 + x4 - 2.0),
            (x2 - x4) / 10f64.sqrt(),
        ];
        let mut f = 0.0;
        for k in 0..6 {
            f += r[k] * r[k];
        }
        f
    }

    /// Problem 15's data.
    pub const KOWALIK: [[f64; 2]; 11] = [
        [0.1957, 4.0],
        [0.1947, 2.0],
        [0.1735, 1.0],
        [0.1600, 0.5],
        [0.0844, 0.25],
        [0.0627, 0.167],
        [0.0456, 0.125],
        [0.0342, 0.1],
        [0.0323, 0.0833],
        [0.0235, 0.0714],
        [0.0246, 0.0625],
    ];

    /// Problem 15, Kowalik and Osborne: `y_i - x1 (u² + u x2) / (u² + u x3 + x4)`, the data a constant
    /// matrix outside the function read as `KOWALIK[i][j]`.
    #[differentiable(order = 2)]
    pub fn kowalik_osborne(x: &[f64]) -> f64 {
        let mut f = 0.0;
        for i in 0..11 {
            let y = KOWALIK[i][0];
            let u = KOWALIK[i][1];
            let r = y - x[0] * (u * u + u * x[1]) / (u * u + u * x[2] + x[3]);
            f += r * r;
        }
        f
    }

    /// Problem 16, Brown and Dennis, `m = 20`: each residual itself a sum of two squares.
    #[differentiable(order = 2)]
    pub fn brown_dennis(x: &[f64]) -> f64 {
        let mut f = 0.0;
        for i in 1..=20 {
            let t = i as f64 / 5.0;
            let a = x[0] + t * x[1] - t.exp();
            let b = x[2] + x[3] * t.sin() - t.cos();
            let r = a * a + b * b;
            f += r * r;
        }
        f
    }

    /// Problem 18, Biggs EXP6, `m = 13` (minimum 0 at `(1, 10, 1, 5, 4, 3)`).
    #[differentiable(order = 2)]
    pub fn biggs_exp6(x: &[f64]) -> f64 {
        let mut f = 0.0;
        for i in 1..=13 {
            let t = 0.1 * i as f64;
            let y = (-t).exp() - 5.0 * (-10.0 * t).exp() + 3.0 * (-4.0 * t).exp();
            let r =
                x[2] * (-t * x[0]).exp() - x[3] * (-t * x[1]).exp() + x[5] * (-t * x[4]).exp() - y;
            f += r * r;
        }
        f
    }

    /// Problem 20, Watson: 29 polynomial residuals in `t_i = i / 29`, then `x1` and `x2 - x1² - 1`.
    #[differentiable(order = 2)]
    pub fn watson(x: &[f64]) -> f64 {
        let n = x.len();
        let mut f = 0.0;
        for i in 1..=29 {
            let t = i as f64 / 29.0;
            let mut s1 = 0.0;
            let mut dx = 1.0;
            for j in 1..n {
                s1 += j as f64 * dx * x[j];
                dx *= t;
            }
            let mut s2 = 0.0;
            let mut dx = 1.0;
            for j in 0..n {
                s2 += dx * x[j];
                dx *= t;
            }
            let r = s1 - s2 * s2 - 1.0;
            f += r * r;
        }
        f + x[0] * x[0] + (x[1] - x[0] * x[0] - 1.0).powi(2)
    }

    /// Problem 22, extended Powell singular: problem 13 on each block of four.
    #[differentiable(order = 2)]
    pub fn extended_powell(x: &[f64]) -> f64 {
        let mut f = 0.0;
        for b in x.chunks(4) {
            f += (b[0] + 10.0 * b[1]).powi(2)
                + 5.0 * (b[2] - b[3]).powi(2)
                + (b[1] - 2.0 * b[2]).powi(4)
                + 10.0 * (b[0] - b[3]).powi(4);
        }
        f
    }

    /// Problem 23, penalty function I: `sqrt(1e-5) (x_i - 1)` and `Σ x_j² - 1/4`.
    #[differentiable(order = 2)]
    pub fn penalty1(x: &[f64]) -> f64 {
        let a = 1.0e-5;
        let mut f = 0.0;
        let mut sq = 0.0;
        for &v in x {
            f += a * (v - 1.0) * (v - 1.0);
            sq += v * v;
        }
        f + (sq - 0.25) * (sq - 0.25)
    }

    /// Problem 24, penalty function II.
    #[differentiable(order = 2)]
    pub fn penalty2(x: &[f64]) -> f64 {
        let n = x.len();
        let a: f64 = 1.0e-5;
        let sa = a.sqrt();
        let mut f = (x[0] - 0.2).powi(2);
        for i in 1..n {
            let y = ((i + 1) as f64 / 10.0).exp() + (i as f64 / 10.0).exp();
            let r = sa * ((x[i] / 10.0).exp() + (x[i - 1] / 10.0).exp() - y);
            f += r * r;
        }
        for i in 1..n {
            let r = sa * ((x[i] / 10.0).exp() - (-0.1f64).exp());
            f += r * r;
        }
        let mut s = 0.0;
        for j in 0..n {
            s += (n - j) as f64 * x[j] * x[j];
        }
        f + (s - 1.0) * (s - 1.0)
    }

    /// Problem 25, variably dimensioned: `x_i - 1`, `Σ j (x_j - 1)` and its square.
    #[differentiable(order = 2)]
    pub fn variably_dimensioned(x: &[f64]) -> f64 {
        let s: f64 = x
            .iter()
            .enumerate()
            .map(|(j, v)| (j + 1) as f64 * (v - 1.0))
            .sum();
        let r: f64 = x.iter().map(|v| (v - 1.0) * (v - 1.0)).sum();
        r + s * s + s.powi(4)
    }

    /// Problem 28, discrete boundary value: `x_0 = x_{n+1} = 0` read through a helper.
    #[differentiable(order = 2)]
    pub fn boundary_value(x: &[f64]) -> f64 {
        let n = x.len();
        let h = 1.0 / (n + 1) as f64;
        let mut f = 0.0;
        for i in 0..n {
            let t = (i + 1) as f64 * h;
            let left = if i == 0 { 0.0 } else { x[i - 1] };
            let right = if i + 1 == n { 0.0 } else { x[i + 1] };
            let r = 2.0 * x[i] - left - right + h * h * (x[i] + t + 1.0).powi(3) / 2.0;
            f += r * r;
        }
        f
    }

    /// Problem 29, discrete integral equation: the two partial sums of each residual over the others.
    #[differentiable(order = 2)]
    pub fn integral_equation(x: &[f64]) -> f64 {
        let n = x.len();
        let h = 1.0 / (n + 1) as f64;
        let mut f = 0.0;
        for i in 0..n {
            let ti = (i + 1) as f64 * h;
            let mut below = 0.0;
            let mut above = 0.0;
            for j in 0..n {
                let tj = (j + 1) as f64 * h;
                let c = (x[j] + tj + 1.0).powi(3);
                if j <= i {
                    below += tj * c;
                } else {
                    above += (1.0 - tj) * c;
                }
            }
            let r = x[i] + h * ((1.0 - ti) * below + ti * above) / 2.0;
            f += r * r;
        }
        f
    }

    /// Problem 30, Broyden tridiagonal.
    #[differentiable(order = 2)]
    pub fn broyden_tridiagonal(x: &[f64]) -> f64 {
        let n = x.len();
        let mut f = 0.0;
        for i in 0..n {
            let mut r = (3.0 - 2.0 * x[i]) * x[i] + 1.0;
            if i > 0 {
                r -= x[i - 1];
            }
            if i + 1 < n {
                r -= 2.0 * x[i + 1];
            }
            f += r * r;
        }
        f
    }

    /// Problem 31, Broyden banded: the band `max(0, i - 5) ..= min(n - 1, i + 1)` without `i`.
    #[differentiable(order = 2)]
    pub fn broyden_banded(x: &[f64]) -> f64 {
        let n = x.len();
        let mut f = 0.0;
        for i in 0..n {
            let lo = if i >= 5 { i - 5 } else { 0 };
            let hi = (i + 1).min(n - 1);
            let mut r = x[i] * (2.0 + 5.0 * x[i] * x[i]) + 1.0;
            for j in lo..=hi {
                if j != i {
                    r -= x[j] * (1.0 + x[j]);
                }
            }
            f += r * r;
        }
        f
    }

    /// Problem 32, linear function of full rank, `m = n + 2`.
    #[differentiable(order = 2)]
    pub fn linear_full_rank(x: &[f64]) -> f64 {
        let n = x.len();
        let m = n + 2;
        let s: f64 = x.iter().sum();
        let c = 2.0 * s / m as f64 + 1.0;
        let mut f = 0.0;
        for &v in x {
            f += (v - c) * (v - c);
        }
        f + (m - n) as f64 * c * c
    }

    /// Problem 33, linear function of rank 1, `m = n + 1`: `i Σ j x_j - 1`.
    #[differentiable(order = 2)]
    pub fn linear_rank1(x: &[f64]) -> f64 {
        let m = x.len() + 1;
        let s = x
            .iter()
            .enumerate()
            .fold(0.0, |acc, (j, v)| acc + (j + 1) as f64 * v);
        let mut f = 0.0;
        for i in 1..=m {
            let r = i as f64 * s - 1.0;
            f += r * r;
        }
        f
    }
}
// ---------------------------------------------------------------------------------------------------
// Griewank and Walther, "Evaluating Derivatives" (2008): the book's running examples.
// ---------------------------------------------------------------------------------------------------

pub mod griewank {
    use autodiff::differentiable;

    /// The evaluation procedure of the book's first chapter:
    /// `y = [sin(x1 / x2) + x1 / x2 - e^{x2}] [x1 / x2 - e^{x2}]`, intermediates named `v`.
    #[differentiable(order = 2)]
    pub fn table_1_1(x1: f64, x2: f64) -> f64 {
        let v1 = x1 / x2;
        let v2 = v1.sin();
        let v3 = x2.exp();
        let v4 = v1 - v3;
        let v5 = v2 + v4;
        v5 * v4
    }

    /// The lighthouse (chapter 2): the spot where the beam meets the quay line `y2 = γ y1`, from
    /// `(ν, γ, ω, t)`.
    #[differentiable]
    pub fn lighthouse(nu: f64, gamma: f64, omega: f64, t: f64) -> (f64, f64) {
        let s = (omega * t).tan();
        let y1 = nu * s / (gamma - s);
        (y1, gamma * y1)
    }

    /// The lighthouse's distance from the origin along the quay, for `order = 2`.
    #[differentiable(order = 2)]
    pub fn lighthouse_distance(p: &[f64; 4]) -> f64 {
        let (y1, y2) = lighthouse(p[0], p[1], p[2], p[3]);
        (y1 * y1 + y2 * y2).sqrt()
    }

    /// Speelpenning's product, with a `while` over the factors and the running product kept in a
    /// `Vec` of prefixes as the book's tape would.
    #[differentiable(order = 2)]
    pub fn speelpenning(x: &[f64]) -> f64 {
        let n = x.len();
        let mut prefix = vec![1.0; n + 1];
        let mut i = 0;
        while i < n {
            prefix[i + 1] = prefix[i] * x[i];
            i += 1;
        }
        prefix[n]
    }

    /// The Helmholtz energy of a mixture (the book's chapter 3 test function): `R T Σ x_i ln(x_i / (1 -
    /// bᵀx)) - xᵀAx / (√8 bᵀx) ln((1 + (1 + √2) bᵀx) / (1 + (1 - √2) bᵀx))`.
    #[differentiable(order = 2)]
    pub fn helmholtz(x: &[f64], b: &[f64], a: &[Vec<f64>]) -> f64 {
        let rt = 1.3;
        let n = x.len();
        let mut bx = 0.0;
        for i in 0..n {
            bx += b[i] * x[i];
        }
        let mut xax = 0.0;
        for i in 0..n {
            for j in 0..n {
                xax += x[i] * a[i][j] * x[j];
            }
        }
        let mut entropy = 0.0;
        for &xi in x {
            entropy += xi * (xi / (1.0 - bx)).ln();
        }
        let r2 = 2f64.sqrt();
        rt * entropy
            - xax / (8f64.sqrt() * bx) * ((1.0 + (1.0 + r2) * bx) / (1.0 + (1.0 - r2) * bx)).ln()
    }

    /// The book's fixed-point example: `z = φ(z, x)` iterated to a fixed count, here `z = cos(x z) / 2 +
    /// x`, whose derivative the iteration's derivative converges to.
    #[differentiable(order = 2)]
    pub fn fixed_point(x: f64) -> f64 {
        let mut z = 0.0;
        for _ in 0..60 {
            z = 0.5 * (x * z).cos() + x;
        }
        z
    }
}

// ---------------------------------------------------------------------------------------------------
// JAX: the functions of `tests/api_test.py` and `tests/lax_autodiff_test.py`, as loops.
// ---------------------------------------------------------------------------------------------------

pub mod jax {
    use autodiff::{custom_gradient, differentiable};

    /// `api_test.py` `test_grad_argnums`-style: `sin(x) cos(y) + x y²`, both arguments active.
    #[differentiable(order = 2)]
    pub fn sin_cos_xy(x: f64, y: f64) -> f64 {
        x.sin() * y.cos() + x * y * y
    }

    /// `lax.fori_loop(0, n, lambda i, c: c * x + i, 1.)`: a carry updated from the index.
    #[differentiable(order = 2)]
    pub fn fori_affine(x: f64, n: usize) -> f64 {
        let mut c = 1.0;
        for i in 0..n {
            c = c * x + i as f64;
        }
        c
    }

    /// `lax.while_loop` with a float condition: doubles `x` until it passes 10 (a data-dependent trip).
    #[differentiable(order = 2)]
    pub fn while_doubling(x: f64) -> f64 {
        let mut v = x;
        let mut k = 0;
        while v.abs() < 10.0 && k < 50 {
            v = v * 2.0 + 0.1 * v.sin();
            k += 1;
        }
        v
    }

    /// `lax.scan` of an RNN-like carry `h = tanh(w h + u x_t)`, the outputs summed.
    #[differentiable(order = 2)]
    pub fn scan_rnn(w: f64, u: f64, xs: &[f64]) -> f64 {
        let mut h = 0.0;
        let mut total = 0.0;
        for &x in xs {
            h = (w * h + u * x).tanh();
            total += h;
        }
        total
    }

    /// `lax.cummax` then a weighted sum: the derivative goes to the running maximum's position.
    #[differentiable(order = 2)]
    pub fn cummax_weighted(x: &[f64]) -> f64 {
        let mut m = x[0];
        let mut s = m;
        for i in 1..x.len() {
            m = m.max(x[i]);
            s += (i + 1) as f64 * m;
        }
        s
    }

    /// `lax.cumlogsumexp`: the running log-sum-exp, stabilised by the running maximum, summed.
    #[differentiable(order = 2)]
    pub fn cumlogsumexp(x: &[f64]) -> f64 {
        let mut acc = x[0];
        let mut total = acc;
        for &v in &x[1..] {
            let hi = acc.max(v);
            acc = hi + ((acc - hi).exp() + (v - hi).exp()).ln();
            total += acc;
        }
        total
    }

    /// `lax.reduce_window` max pooling of width 3, stride 2, then squares summed.
    #[differentiable(order = 2)]
    pub fn max_pool(x: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut start = 0;
        while start + 3 <= x.len() {
            let mut m = x[start];
            for k in start + 1..start + 3 {
                if x[k] > m {
                    m = x[k];
                }
            }
            s += m * m;
            start += 2;
        }
        s
    }

    /// `lax.sort` then a position-weighted sum (a selection sort on a copy).
    #[differentiable(order = 2)]
    pub fn sort_weighted(x: &[f64]) -> f64 {
        let mut a = x.to_vec();
        let n = a.len();
        for i in 0..n {
            let mut k = i;
            for j in i + 1..n {
                if a[j] < a[k] {
                    k = j;
                }
            }
            let t = a[i];
            a[i] = a[k];
            a[k] = t;
        }
        let mut s = 0.0;
        for (i, v) in a.iter().enumerate() {
            s += (i as f64 + 1.0).sqrt() * v;
        }
        s
    }

    /// `lax.rem` and `lax.pow` with both arguments active.
    #[differentiable(order = 2)]
    pub fn rem_pow(x: f64, y: f64) -> f64 {
        (x % 1.5) * x.powf(y)
    }

    /// `jnp.where` with the double-where trick: `sqrt` only reached where its argument is positive.
    #[differentiable(order = 2)]
    pub fn safe_sqrt_sum(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            let safe = if v > 0.0 { v } else { 1.0 };
            s += if v > 0.0 { safe.sqrt() } else { 0.0 };
        }
        s
    }

    /// `lax.dynamic_update_slice` then `dynamic_slice`: a window of `y` written into a copy of `x`
    /// at an offset, a window read back and weighted.
    #[differentiable(order = 2)]
    pub fn dynamic_update(x: &[f64], y: &[f64], at: usize) -> f64 {
        let mut z = x.to_vec();
        for k in 0..y.len() {
            z[at + k] = y[k] * y[k];
        }
        let mut s = 0.0;
        for k in 1..z.len() - 1 {
            s += z[k] * z[k + 1];
        }
        s
    }

    /// `lax.clamp` and `lax.select`: a clamped value times an element selected by sign.
    #[differentiable(order = 2)]
    pub fn clamp_select(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            let c = x[i].clamp(-1.0, 1.0);
            let sel = if x[i] > 0.0 { x[i].exp() } else { x[i] * x[i] };
            s += c * sel;
        }
        s
    }

    /// The `custom_vjp` of the JAX docs, `f(x, y) = sin(x) y` with its cotangents written out.
    #[custom_gradient]
    pub fn sin_times(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let (s, c) = (x.sin(), x.cos());
        (s * y, move |g| (c * y * g, s * g))
    }

    /// The custom rule used inside a loop and squared.
    #[differentiable(order = 2)]
    pub fn uses_sin_times(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 1 {
            let v = sin_times(x[i], x[i + 1]);
            s += v * v;
        }
        s
    }

    /// `jnp.linalg.norm` of `A x - b` with `A` a `Vec<Vec<f64>>`, and `jnp.dot` by iterator chains.
    #[differentiable(order = 2)]
    pub fn residual_norm(a: &[Vec<f64>], x: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for (row, bi) in a.iter().zip(b.iter()) {
            let ax: f64 = row.iter().zip(x.iter()).map(|(aij, xj)| aij * xj).sum();
            s += (ax - bi) * (ax - bi);
        }
        s.sqrt()
    }

    /// `lax_autodiff_test.py` `testTopK`-ish: the two largest values' product, found by one pass.
    #[differentiable(order = 2)]
    pub fn top2_product(x: &[f64]) -> f64 {
        let (mut first, mut second) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for &v in x {
            if v > first {
                second = first;
                first = v;
            } else if v > second {
                second = v;
            }
        }
        first * second
    }

    /// `jax.nn.logsumexp` over `jnp.stack` rows: the rows' log-sum-exps summed, early `return` on an
    /// empty input.
    #[differentiable(order = 2)]
    pub fn rows_lse(m: &[Vec<f64>]) -> f64 {
        if m.is_empty() {
            return 0.0;
        }
        let mut total = 0.0;
        for row in m {
            let hi = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let s: f64 = row.iter().map(|v| (v - hi).exp()).sum();
            total += hi + s.ln();
        }
        total
    }
}

// ---------------------------------------------------------------------------------------------------
// Enzyme's integration tests and benchmarks not ported before.
// ---------------------------------------------------------------------------------------------------

pub mod enzyme {
    use autodiff::differentiable;

    /// `integrateexp.cpp`: forward Euler on `y' = -y` from `y(0) = x`, `n` steps to `t = 1`.
    #[differentiable(order = 2)]
    pub fn integrate_exp(x: f64, n: usize) -> f64 {
        let dt = 1.0 / n as f64;
        let mut y = x;
        for _ in 0..n {
            y -= dt * y;
        }
        y
    }

    /// `sum.c` with `x²`: a plain loop over a slice.
    #[differentiable(order = 2)]
    pub fn sum_sq(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i];
        }
        s
    }

    /// `recurse.c`: a recursive sum of `x_i * x_{i+1}` down the slice.
    #[differentiable(order = 2)]
    pub fn recurse(x: &[f64], i: usize) -> f64 {
        if i + 1 >= x.len() {
            return 0.0;
        }
        x[i] * x[i + 1] + recurse(x, i + 1)
    }

    /// `wcontinue.c`: a `while` that skips negative entries with `continue` and stops at a large one.
    #[differentiable(order = 2)]
    pub fn wcontinue(x: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut i = 0;
        while i < x.len() {
            let v = x[i];
            i += 1;
            if v < 0.0 {
                continue;
            }
            if v > 3.0 {
                break;
            }
            s += v.sin() * v;
        }
        s
    }

    /// `dbl_loop`: a doubly nested loop with an inner bound from the outer index, a triangle.
    #[differentiable(order = 2)]
    pub fn triangle(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            for j in 0..=i {
                s += x[i] * (x[j] * 0.5).cos();
            }
        }
        s
    }

    /// The GMM benchmark's objective for one component in one dimension, written with helpers:
    /// `Σ_i logsumexp_k(α_k - (x_i - μ_k)² e^{2 q_k} / 2 + q_k)`.
    #[differentiable(order = 2)]
    pub fn gmm1d(alpha: &[f64], mu: &[f64], q: &[f64], xs: &[f64]) -> f64 {
        let k = alpha.len();
        let mut total = 0.0;
        for &x in xs {
            let mut terms = vec![0.0; k];
            for c in 0..k {
                let d = (x - mu[c]) * q[c].exp();
                terms[c] = alpha[c] - 0.5 * d * d + q[c];
            }
            total += lse(&terms);
        }
        total - xs.len() as f64 * lse(alpha)
    }

    /// The log-sum-exp helper of the GMM benchmark.
    #[differentiable(order = 2)]
    pub fn lse(v: &[f64]) -> f64 {
        let mut hi = v[0];
        for &a in v {
            hi = hi.max(a);
        }
        let mut s = 0.0;
        for &a in v {
            s += (a - hi).exp();
        }
        hi + s.ln()
    }
}

// ---------------------------------------------------------------------------------------------------
// Stan's math library: scalar functions, log densities and the constraining transforms.
// ---------------------------------------------------------------------------------------------------

pub mod stan {
    use autodiff::differentiable;
    use std::f64::consts::{LN_2, PI};

    /// `log1m_exp(a) = ln(1 - e^a)` for `a < 0`, by Stan's two branches.
    #[differentiable(order = 2)]
    pub fn log1m_exp(a: f64) -> f64 {
        if a > -0.693147 {
            (-a.exp_m1()).ln()
        } else {
            (-a.exp()).ln_1p()
        }
    }

    /// `log_diff_exp(x, y) = ln(e^x - e^y)`, `x > y`.
    #[differentiable(order = 2)]
    pub fn log_diff_exp(x: f64, y: f64) -> f64 {
        x + log1m_exp(y - x)
    }

    /// `log_mix(θ, λ1, λ2) = ln(θ e^{λ1} + (1 - θ) e^{λ2})`.
    #[differentiable(order = 2)]
    pub fn log_mix(theta: f64, l1: f64, l2: f64) -> f64 {
        let hi = l1.max(l2);
        hi + (theta * (l1 - hi).exp() + (1.0 - theta) * (l2 - hi).exp()).ln()
    }

    /// `log_inv_logit(u) = -softplus(-u)`, by branches as Stan writes it.
    #[differentiable(order = 2)]
    pub fn log_inv_logit(u: f64) -> f64 {
        if u < 0.0 {
            u - u.exp().ln_1p()
        } else {
            -(-u).exp().ln_1p()
        }
    }

    /// `binomial_logit_lpmf(n | N, α)` without its constant: `n ln σ(α) + (N - n) ln(1 - σ(α))`.
    #[differentiable(order = 2)]
    pub fn binomial_logit(alpha: &[f64], n: &[u32], total: &[u32]) -> f64 {
        let mut lp = 0.0;
        for i in 0..alpha.len() {
            let a = alpha[i];
            lp += n[i] as f64 * log_inv_logit(a) + (total[i] - n[i]) as f64 * log_inv_logit(-a);
        }
        lp
    }

    /// `Phi_approx(x) = inv_logit(0.07056 x³ + 1.5976 x)`.
    #[differentiable(order = 2)]
    pub fn phi_approx(x: f64) -> f64 {
        let z = 0.07056 * x.powi(3) + 1.5976 * x;
        1.0 / (1.0 + (-z).exp())
    }

    /// `inv_cloglog(x) = 1 - exp(-exp(x))`.
    #[differentiable(order = 2)]
    pub fn inv_cloglog(x: f64) -> f64 {
        1.0 - (-x.exp()).exp()
    }

    /// `cauchy_lpdf(y | μ, σ)`, summed over `y`.
    #[differentiable(order = 2)]
    pub fn cauchy_lpdf(y: &[f64], mu: f64, sigma: f64) -> f64 {
        let mut lp = 0.0;
        for &v in y {
            let z = (v - mu) / sigma;
            lp -= PI.ln() + sigma.ln() + z.mul_add(z, 1.0).ln();
        }
        lp
    }

    /// `logistic_lpdf(y | μ, σ)`.
    #[differentiable(order = 2)]
    pub fn logistic_lpdf(y: f64, mu: f64, sigma: f64) -> f64 {
        let z = (y - mu) / sigma;
        -z - sigma.ln() - 2.0 * (-z).exp().ln_1p()
    }

    /// `gumbel_lpdf(y | μ, β)`.
    #[differentiable(order = 2)]
    pub fn gumbel_lpdf(y: f64, mu: f64, beta: f64) -> f64 {
        let z = (y - mu) / beta;
        -beta.ln() - z - (-z).exp()
    }

    /// `double_exponential_lpdf(y | μ, σ)`: `|y - μ|`, with its kink away from the sampled points.
    #[differentiable(order = 2)]
    pub fn double_exponential_lpdf(y: &[f64], mu: f64, sigma: f64) -> f64 {
        y.iter()
            .map(|&v| -LN_2 - sigma.ln() - (v - mu).abs() / sigma)
            .sum()
    }

    /// `lognormal_lpdf(y | μ, σ)`.
    #[differentiable(order = 2)]
    pub fn lognormal_lpdf(y: f64, mu: f64, sigma: f64) -> f64 {
        let ly = y.ln();
        let z = (ly - mu) / sigma;
        -0.5 * (2.0 * PI).ln() - sigma.ln() - ly - 0.5 * z * z
    }

    /// `weibull_lpdf(y | α, σ)`.
    #[differentiable(order = 2)]
    pub fn weibull_lpdf(y: f64, alpha: f64, sigma: f64) -> f64 {
        alpha.ln() - sigma.ln() + (alpha - 1.0) * (y / sigma).ln() - (y / sigma).powf(alpha)
    }

    /// `pareto_type_2_lpdf(y | μ, λ, α)`.
    #[differentiable(order = 2)]
    pub fn pareto2_lpdf(y: f64, lambda: f64, alpha: f64) -> f64 {
        alpha.ln() - lambda.ln() - (alpha + 1.0) * ((y - 0.0) / lambda).ln_1p()
    }

    /// `frechet_lpdf(y | α, σ)`.
    #[differentiable(order = 2)]
    pub fn frechet_lpdf(y: f64, alpha: f64, sigma: f64) -> f64 {
        alpha.ln() - y.ln() * (1.0 + alpha) + alpha * sigma.ln() - (sigma / y).powf(alpha)
    }

    /// `ordered_logistic_lpmf(k | η, c)`: cutpoints `c`, the category's two neighbours by `match` (a
    /// guard `k if k == last` is a spanned error: tests/ui/fence/match-guard.rs).
    #[differentiable(order = 2)]
    pub fn ordered_logistic(eta: f64, c: &[f64], k: usize) -> f64 {
        let inv_logit = |u: f64| 1.0 / (1.0 + (-u).exp());
        let last = c.len();
        match k {
            0 => (1.0 - inv_logit(eta - c[0])).ln(),
            _ => {
                if k == last {
                    inv_logit(eta - c[last - 1]).ln()
                } else {
                    (inv_logit(eta - c[k - 1]) - inv_logit(eta - c[k])).ln()
                }
            }
        }
    }

    /// `categorical_logit_lpmf(y | β)` summed over observed categories.
    #[differentiable(order = 2)]
    pub fn categorical_logit(beta: &[f64], ys: &[usize]) -> f64 {
        let hi = beta.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lse = hi + beta.iter().map(|b| (b - hi).exp()).sum::<f64>().ln();
        let mut lp = 0.0;
        for &y in ys {
            lp += beta[y] - lse;
        }
        lp
    }

    /// `simplex_constrain` by stick breaking with its log Jacobian: `K - 1` free values to a simplex of
    /// `K`, the result `Σ w_k ln p_k + log|J|` (a Dirichlet-like target).
    #[differentiable(order = 2)]
    pub fn simplex_target(y: &[f64], w: &[f64]) -> f64 {
        let km1 = y.len();
        let mut stick = 1.0;
        let mut lj = 0.0;
        let mut lp = 0.0;
        for k in 0..km1 {
            let adj = y[k] - ((km1 - k) as f64).ln();
            let z = 1.0 / (1.0 + (-adj).exp());
            let p = stick * z;
            lj += stick.ln() + z.ln() + (1.0 - z).ln();
            lp += w[k] * p.ln();
            stick -= p;
        }
        lp + w[km1] * stick.ln() + lj
    }

    /// `ordered_constrain` with its log Jacobian: `x_0 = y_0`, `x_k = x_{k-1} + e^{y_k}`; the target a
    /// normal log density of the ordered values.
    #[differentiable(order = 2)]
    pub fn ordered_target(y: &[f64]) -> f64 {
        let mut x = vec![0.0; y.len()];
        x[0] = y[0];
        let mut lj = 0.0;
        for k in 1..y.len() {
            x[k] = x[k - 1] + y[k].exp();
            lj += y[k];
        }
        let mut lp = 0.0;
        for (k, v) in x.iter().enumerate() {
            let d = v - k as f64;
            lp -= 0.5 * d * d;
        }
        lp + lj
    }

    /// `lub_constrain(y, lb, ub)` with its log Jacobian, on each element, then a quadratic target.
    #[differentiable(order = 2)]
    pub fn lub_target(y: &[f64], lb: f64, ub: f64) -> f64 {
        let mut lp = 0.0;
        for &v in y {
            let s = 1.0 / (1.0 + (-v).exp());
            let x = lb + (ub - lb) * s;
            lp += (ub - lb).ln() + s.ln() + (1.0 - s).ln();
            lp -= (x - 0.3) * (x - 0.3);
        }
        lp
    }

    /// `unit_vector_constrain` with Stan's `-r²/2` term: `x = y / |y|`, then `x · a`.
    #[differentiable(order = 2)]
    pub fn unit_vector_target(y: &[f64], a: &[f64]) -> f64 {
        let r2: f64 = y.iter().map(|v| v * v).sum();
        let r = r2.sqrt();
        let mut lp = -0.5 * r2;
        for i in 0..y.len() {
            lp += a[i] * y[i] / r;
        }
        lp
    }

    /// `gp_exp_quad_cov` summed against weights: `σ² exp(-|x_i - x_j|² / (2 ℓ²))`.
    #[differentiable(order = 2)]
    pub fn exp_quad_cov(x: &[f64], sigma: f64, ell: f64) -> f64 {
        let n = x.len();
        let mut s = 0.0;
        for i in 0..n {
            for j in 0..n {
                let d = x[i] - x[j];
                s += sigma * sigma * (-d * d / (2.0 * ell * ell)).exp() * (1.0 + (i * j) as f64);
            }
        }
        s
    }

    /// `squared_distance(a, b)` and `dot_self`, one of each.
    #[differentiable(order = 2)]
    pub fn sq_distance_dot_self(a: &[f64; 3], b: &[f64; 3]) -> f64 {
        let mut d = 0.0;
        let mut ds = 0.0;
        for i in 0..3 {
            d += (a[i] - b[i]) * (a[i] - b[i]);
            ds += a[i] * a[i];
        }
        d * ds
    }

    /// `corr_constrain(y) = tanh(y)` with its log Jacobian `ln(1 - tanh²)`, then an LKJ-like target
    /// `η ln(1 - x²)`.
    #[differentiable(order = 2)]
    pub fn corr_target(y: f64, eta: f64) -> f64 {
        let x = y.tanh();
        let lj = (1.0 - x * x).ln();
        (eta - 1.0) * (1.0 - x * x).ln() + lj
    }
}
// ---------------------------------------------------------------------------------------------------
// Second pass: the same sources in the forms a Rust user reaches for next (helpers returning arrays and
// `Vec`s, closures over active values, a Cholesky factor in a local matrix, `loop` with a value, labels,
// `match` on ranges, a parameter struct).
// ---------------------------------------------------------------------------------------------------

pub mod more {
    use autodiff::{differentiable, Differentiable};

    /// A constant design matrix from outside.
    pub const DESIGN: [[f64; 3]; 4] = [
        [1.0, 0.5, -1.0],
        [0.3, 2.0, 0.1],
        [-0.7, 0.2, 1.5],
        [1.1, -0.4, 0.6],
    ];

    /// The dot product of a row and `x`.
    #[differentiable(order = 2)]
    pub fn dot3(row: &[f64; 3], x: &[f64]) -> f64 {
        row[0] * x[0] + row[1] * x[1] + row[2] * x[2]
    }

    /// MGH's linear least squares with the rows of an outside matrix passed to a helper, `&DESIGN[i]`.
    #[differentiable(order = 2)]
    pub fn design_rows(x: &[f64]) -> f64 {
        let mut f = 0.0;
        for i in 0..4 {
            let r = dot3(&DESIGN[i], x) - 1.0;
            f += r * r;
        }
        f
    }

    /// The same with each row copied to a typed local first (`let row: [f64; 3] = DESIGN[i];`); untyped,
    /// `let row = DESIGN[i];`, in tests/errors21.rs.
    #[differentiable(order = 2)]
    pub fn design_rows_typed(x: &[f64]) -> f64 {
        let mut f = 0.0;
        for i in 0..4 {
            let row: [f64; 3] = DESIGN[i];
            let r = dot3(&row, x) - 1.0;
            f += r * r;
        }
        f
    }

    /// Stan's `multi_normal_cholesky_lpdf` of a GP: the squared-exponential covariance of `ts` with
    /// hyperparameters `(ln ℓ, ln σ)` and a jitter, its Cholesky factor in a local matrix, forward
    /// substitution, `-½ |L⁻¹ y|² - Σ ln L_ii`.
    #[differentiable(order = 2)]
    pub fn gp_nll(hyper: &[f64], ts: &[f64], ys: &[f64]) -> f64 {
        let n = ts.len();
        let ell = hyper[0].exp();
        let s2 = (2.0 * hyper[1]).exp();
        let mut k = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                let d = (ts[i] - ts[j]) / ell;
                k[i][j] = s2 * (-0.5 * d * d).exp();
            }
            k[i][i] += 0.1;
        }
        let mut l = vec![vec![0.0; n]; n];
        for j in 0..n {
            let mut s = k[j][j];
            for p in 0..j {
                s -= l[j][p] * l[j][p];
            }
            l[j][j] = s.sqrt();
            for i in j + 1..n {
                let mut t = k[i][j];
                for p in 0..j {
                    t -= l[i][p] * l[j][p];
                }
                l[i][j] = t / l[j][j];
            }
        }
        let mut z = vec![0.0; n];
        let mut logdet = 0.0;
        for i in 0..n {
            let mut t = ys[i];
            for p in 0..i {
                t -= l[i][p] * z[p];
            }
            z[i] = t / l[i][i];
            logdet += l[i][i].ln();
        }
        let mut q = 0.0;
        for v in z.iter() {
            q += v * v;
        }
        0.5 * q + logdet
    }

    /// Complex multiplication as a helper returning an array.
    #[differentiable]
    pub fn cmul(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
        [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
    }

    /// `|z_n|²` of `z ← z² + c` from `z = 0`, a fixed number of steps (JAX's `fori_loop` with a pair
    /// carry), through the array helper.
    #[differentiable(order = 2)]
    pub fn quadratic_map(c: &[f64; 2], steps: usize) -> f64 {
        let mut z = [0.0, 0.0];
        for _ in 0..steps {
            let sq = cmul(z, z);
            z = [sq[0] + c[0], sq[1] + c[1]];
        }
        z[0] * z[0] + z[1] * z[1]
    }

    /// A softmax helper returning a `Vec`.
    #[differentiable]
    pub fn softmax(v: &[f64]) -> Vec<f64> {
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = v.iter().map(|a| (a - hi).exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|a| a / s).collect()
    }

    /// Cross-entropy of the softmax helper's result against soft targets.
    #[differentiable(order = 2)]
    pub fn soft_xent(v: &[f64], target: &[f64]) -> f64 {
        let p = softmax(v);
        let mut l = 0.0;
        for i in 0..p.len() {
            l -= target[i] * p[i].ln();
        }
        l
    }

    /// MGH-style exponential fit with the model a closure over the active parameters.
    #[differentiable(order = 2)]
    pub fn exp_fit(x: &[f64], ts: &[f64], ys: &[f64]) -> f64 {
        let model = |t: f64| x[0] * (-x[1] * t).exp() + x[2];
        let mut f = 0.0;
        for i in 0..ts.len() {
            let r = model(ts[i]) - ys[i];
            f += r * r;
        }
        f
    }

    /// In-place prefix products and sums: `a[i] *= a[i - 1]`, `a[i] += ..`.
    #[differentiable(order = 2)]
    pub fn prefix_in_place(x: &[f64]) -> f64 {
        let mut a = x.to_vec();
        for i in 1..a.len() {
            a[i] *= a[i - 1];
        }
        let mut b = x.to_vec();
        for i in 1..b.len() {
            b[i] += b[i - 1] * 0.5;
        }
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] + b[i] * b[i];
        }
        s
    }

    /// `loop` with a value from `break`: the first partial sum of squares past a threshold, else the
    /// total.
    #[differentiable(order = 2)]
    pub fn break_value(x: &[f64]) -> f64 {
        let mut i = 0;
        let mut s = 0.0;
        let r = loop {
            if i == x.len() {
                break s;
            }
            s += x[i] * x[i];
            if s > 3.0 {
                break s * x[i];
            }
            i += 1;
        };
        r + 1.0
    }

    /// A labelled `break` out of a pair search: the product of the first pair closer than 0.3, or 0.
    #[differentiable(order = 2)]
    pub fn first_close(x: &[f64]) -> f64 {
        let mut found = 0.0;
        'outer: for i in 0..x.len() {
            for j in i + 1..x.len() {
                if (x[i] - x[j]).abs() < 0.3 {
                    found = x[i] * x[j];
                    break 'outer;
                }
            }
        }
        found
    }

    /// A piecewise cubic by `match` on the segment index's range.
    #[differentiable(order = 2)]
    pub fn piecewise(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, &v) in x.iter().enumerate() {
            s += match i {
                0..=1 => v * v * v,
                2 | 3 => v.sin() * v,
                _ => v.exp() / (i as f64),
            };
        }
        s
    }

    /// `powi` with an integer exponent from the loop.
    #[differentiable(order = 2)]
    pub fn powers(x: f64, n: i32) -> f64 {
        let mut s = 0.0;
        for k in -n..=n {
            if k != 0 {
                s += x.powi(k) / k as f64;
            }
        }
        s
    }

    /// A normal model's parameters, as Stan's unconstrained ones.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Normal {
        pub mu: f64,
        pub log_sigma: f64,
    }

    /// The normal's negative log-likelihood of `ys`, a function of the struct.
    #[differentiable(order = 2, wrt(p))]
    pub fn normal_nll(p: &Normal, ys: &[f64]) -> f64 {
        let s = p.log_sigma.exp();
        let mut l = ys.len() as f64 * p.log_sigma;
        for &y in ys {
            let z = (y - p.mu) / s;
            l += 0.5 * z * z;
        }
        l
    }

    /// A nested helper `fn` in the body, called in a loop: Stan's `log1p_exp`.
    #[differentiable(order = 2)]
    pub fn softplus_sum(x: &[f64]) -> f64 {
        fn log1p_exp(a: f64) -> f64 {
            if a > 0.0 {
                a + (-a).exp().ln_1p()
            } else {
                a.exp().ln_1p()
            }
        }
        let mut s = 0.0;
        for &v in x {
            s += log1p_exp(v) * v;
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------------
// Third pass: a least-squares problem as a struct with a method, generic and `f32` versions, tuple
// parameters and accumulators, reversed and strided iterators.
// ---------------------------------------------------------------------------------------------------

pub mod third {
    use autodiff::{differentiable, Float};

    /// MGH problem 10's family as a user's struct: data fields, a method of the parameters.
    pub struct ExpFit {
        /// The abscissae.
        pub ts: Vec<f64>,
        /// The observations.
        pub ys: Vec<f64>,
    }

    impl ExpFit {
        /// Meyer's model `x1 exp(x2 / (t + x3))`, scaled to unit data, its residuals' squares summed.
        #[differentiable(order = 2)]
        pub fn meyer(&self, x: &[f64]) -> f64 {
            let mut f = 0.0;
            for i in 0..self.ts.len() {
                let r = x[0] * (x[1] / (self.ts[i] + x[2])).exp() - self.ys[i];
                f += r * r;
            }
            f
        }
    }

    /// MGH problem 1 generically: the extended Rosenbrock of pairs, `T::from(..)` constants.
    #[differentiable(order = 2)]
    pub fn rosenbrock_pairs<T: Float>(x: &[T]) -> T {
        let hundred = T::from(100.0).unwrap();
        let mut f = T::zero();
        for k in 0..x.len() / 2 {
            let (a, b) = (x[2 * k], x[2 * k + 1]);
            f = f + hundred * (b - a * a) * (b - a * a) + (T::one() - a) * (T::one() - a);
        }
        f
    }

    /// MGH problem 12 in `f32`.
    #[differentiable(order = 2)]
    pub fn box3d_f32(x: &[f32]) -> f32 {
        let mut f = 0.0;
        for i in 1..=10 {
            let t = 0.1 * i as f32;
            let r = (-t * x[0]).exp() - (-t * x[1]).exp() - x[2] * ((-t).exp() - (-10.0 * t).exp());
            f += r * r;
        }
        f
    }

    /// A point as a tuple parameter: Beale-like residuals of `(x, y)`.
    #[differentiable(order = 2)]
    pub fn tuple_point(p: (f64, f64)) -> f64 {
        let (x, y) = p;
        let r1 = 1.5 - x + x * y;
        let r2 = 2.25 - x + x * y * y;
        r1 * r1 + r2 * r2
    }

    /// Horner with active coefficients by `rev().enumerate()`, weighted by position.
    #[differentiable(order = 2)]
    pub fn horner_rev(c: &[f64], x: f64) -> f64 {
        let mut acc = 0.0;
        for (k, &ck) in c.iter().rev().enumerate() {
            acc = acc * x + ck * (1.0 + 0.1 * k as f64);
        }
        acc
    }

    /// Mean and second moment in one `fold` over a tuple accumulator, then the variance.
    #[differentiable(order = 2)]
    pub fn fold_variance(x: &[f64]) -> f64 {
        let (s, s2) = x.iter().fold((0.0, 0.0), |(a, b), &v| (a + v, b + v * v));
        let n = x.len() as f64;
        s2 / n - (s / n) * (s / n)
    }

    /// Every other element after the first, over a strided range of indexes (`x.iter().skip(1).step_by(2)`
    /// is a spanned error: tests/ui/chains/slice-iterator-rev-step.rs).
    #[differentiable(order = 2)]
    pub fn strided(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in (1..x.len()).step_by(2) {
            let v = x[i];
            s += v.sin() * v;
        }
        s
    }

    /// A pair ordered by an `if` giving a tuple, then an asymmetric function of it.
    #[differentiable(order = 2)]
    pub fn ordered_pair(x: f64, y: f64) -> f64 {
        let (lo, hi) = if x < y { (x, y) } else { (y, x) };
        hi.exp() - lo * lo
    }

    /// An early `return` from inside nested loops: the first row whose sum passes a threshold, weighted.
    #[differentiable(order = 2)]
    pub fn first_heavy(m: &[Vec<f64>]) -> f64 {
        for i in 0..m.len() {
            let mut s = 0.0;
            for j in 0..m[i].len() {
                s += m[i][j] * m[i][j];
                if s > 2.0 {
                    return s * (i + 1) as f64;
                }
            }
        }
        -1.0
    }
}

// ---------------------------------------------------------------------------------------------------
// The checks.
// ---------------------------------------------------------------------------------------------------

#[test]
fn mgh_freudenstein_roth() {
    sl!(
        mgh::freudenstein_roth,
        freudenstein_roth_grad,
        freudenstein_roth_jvp,
        freudenstein_roth_grad_into,
        freudenstein_roth_hessian
    )
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        let r1 = -13.0 + a + ((5.0 - b) * b - 2.0) * b;
        let r2 = -29.0 + a + ((b + 1.0) * b - 14.0) * b;
        let d1 = 10.0 * b - 3.0 * b * b - 2.0;
        let d2 = 3.0 * b * b + 2.0 * b - 14.0;
        vec![2.0 * (r1 + r2), 2.0 * (r1 * d1 + r2 * d2)]
    })
    .run(POINTS, |r| r.vec(2, -3.0, 6.0));
    at_minimum(
        "freudenstein_roth",
        &[5.0, 4.0],
        &mgh::freudenstein_roth_grad,
        &|x| mgh::freudenstein_roth_hessian(x).2,
        &|x| {
            let (a, b) = (x[0], x[1]);
            vec![
                -13.0 + a + ((5.0 - b) * b - 2.0) * b,
                -29.0 + a + ((b + 1.0) * b - 14.0) * b,
            ]
        },
    );
}

#[test]
fn mgh_powell_badly_scaled() {
    two(
        "powell_badly_scaled",
        mgh::powell_badly_scaled,
        mgh::powell_badly_scaled_grad,
        mgh::powell_badly_scaled_jvp,
        mgh::powell_badly_scaled_grad_into,
    )
    .hessian(hess2(mgh::powell_badly_scaled_hessian))
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        let r1 = 1e4 * a * b - 1.0;
        let r2 = (-a).exp() + (-b).exp() - 1.0001;
        vec![
            2.0 * (r1 * 1e4 * b - r2 * (-a).exp()),
            2.0 * (r1 * 1e4 * a - r2 * (-b).exp()),
        ]
    })
    .run(POINTS, |r| {
        vec![r.uniform(-1e-3, 1e-3), r.uniform(0.0, 10.0)]
    });
}

#[test]
fn mgh_brown_badly_scaled() {
    arr(
        "brown_badly_scaled",
        mgh::brown_badly_scaled,
        mgh::brown_badly_scaled_grad,
        mgh::brown_badly_scaled_jvp,
        mgh::brown_badly_scaled_grad_into,
        mgh::brown_badly_scaled_hessian,
    )
    .analytic(|x| {
        let r3 = x[0] * x[1] - 2.0;
        vec![
            2.0 * (x[0] - 1e6) + 2.0 * r3 * x[1],
            2.0 * (x[1] - 2e-6) + 2.0 * r3 * x[0],
        ]
    })
    .run(POINTS, |r| {
        vec![1e6 + r.uniform(-3.0, 3.0), 2e-6 + r.uniform(-1e-6, 1e-6)]
    });
    let (v, g) = mgh::brown_badly_scaled_grad(&[1e6, 2e-6]);
    assert_eq!(v, 0.0);
    assert_eq!(g, [0.0, 0.0]);
}

#[test]
fn mgh_jennrich_sampson() {
    sl!(
        mgh::jennrich_sampson,
        jennrich_sampson_grad,
        jennrich_sampson_jvp,
        jennrich_sampson_grad_into,
        jennrich_sampson_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; 2];
        for i in 1..=10 {
            let t = i as f64;
            let r = 2.0 + 2.0 * t - ((t * x[0]).exp() + (t * x[1]).exp());
            g[0] -= 2.0 * r * t * (t * x[0]).exp();
            g[1] -= 2.0 * r * t * (t * x[1]).exp();
        }
        g
    })
    .run(POINTS, |r| r.vec(2, -0.5, 0.4));
}

#[test]
fn mgh_helical_valley() {
    arr(
        "helical_valley",
        mgh::helical_valley,
        mgh::helical_valley_grad,
        mgh::helical_valley_jvp,
        mgh::helical_valley_grad_into,
        mgh::helical_valley_hessian,
    )
    .analytic(|x| {
        // dθ/dx1 = -x2 / (2π r²), dθ/dx2 = x1 / (2π r²), on both sides of x1 = 0.
        let pi2 = 2.0 * std::f64::consts::PI;
        let rr = x[0] * x[0] + x[1] * x[1];
        let mut t = (x[1] / x[0]).atan() / pi2;
        if x[0] < 0.0 {
            t += 0.5;
        }
        let r1 = 10.0 * (x[2] - 10.0 * t);
        let r2 = 10.0 * (rr.sqrt() - 1.0);
        let (tx1, tx2) = (-x[1] / (pi2 * rr), x[0] / (pi2 * rr));
        vec![
            2.0 * r1 * (-100.0 * tx1) + 2.0 * r2 * 10.0 * x[0] / rr.sqrt(),
            2.0 * r1 * (-100.0 * tx2) + 2.0 * r2 * 10.0 * x[1] / rr.sqrt(),
            2.0 * r1 * 10.0 + 2.0 * x[2],
        ]
    })
    .run(POINTS, |r| loop {
        let x = r.vec(3, -2.0, 2.0);
        if x[0].abs() > 0.1 {
            break x;
        }
    });
    at_minimum(
        "helical_valley",
        &[1.0, 0.0, 0.0],
        &|x| {
            let (v, g) = mgh::helical_valley_grad(&[x[0], x[1], x[2]]);
            (v, g.to_vec())
        },
        &|x| mgh::helical_valley_hessian(&[x[0], x[1], x[2]]).2,
        &|x| {
            let t = (x[1] / x[0]).atan() / (2.0 * std::f64::consts::PI);
            vec![
                10.0 * (x[2] - 10.0 * t),
                10.0 * ((x[0] * x[0] + x[1] * x[1]).sqrt() - 1.0),
                x[2],
            ]
        },
    );
}

#[test]
fn mgh_bard() {
    sl!(mgh::bard, bard_grad, bard_jvp, bard_grad_into, bard_hessian)
        .analytic(|x| {
            let mut g = vec![0.0; 3];
            for i in 0..15 {
                let u = (i + 1) as f64;
                let v = (15 - i) as f64;
                let w = u.min(v);
                let den = v * x[1] + w * x[2];
                let r = mgh::BARD_Y[i] - (x[0] + u / den);
                g[0] -= 2.0 * r;
                g[1] += 2.0 * r * u * v / (den * den);
                g[2] += 2.0 * r * u * w / (den * den);
            }
            g
        })
        .run(POINTS, |r| {
            vec![
                r.uniform(-1.0, 1.0),
                r.uniform(0.5, 3.0),
                r.uniform(0.5, 3.0),
            ]
        });
}

#[test]
fn mgh_gaussian() {
    sl!(
        mgh::gaussian,
        gaussian_grad,
        gaussian_jvp,
        gaussian_grad_into,
        gaussian_hessian
    )
    .run(POINTS, |r| {
        vec![
            r.uniform(0.2, 0.6),
            r.uniform(0.5, 1.5),
            r.uniform(-0.5, 0.5),
        ]
    });
}

#[test]
fn mgh_gulf() {
    sl!(mgh::gulf, gulf_grad, gulf_jvp, gulf_grad_into, gulf_hessian).run(POINTS, |r| {
        vec![
            r.uniform(5.0, 50.0),
            r.uniform(10.0, 40.0),
            r.uniform(0.5, 2.0),
        ]
    });
    // Near the minimum (50, 25, 1.5): the residuals vanish there.
    let (v, g) = mgh::gulf_grad(&[50.0, 25.0, 1.5]);
    assert!(v < 1e-20, "gulf at its minimum: {v:e}");
    for gi in g {
        assert!(gi.abs() < 1e-9, "gulf's gradient at its minimum: {gi:e}");
    }
}

#[test]
fn mgh_box3d() {
    sl!(
        mgh::box3d,
        box3d_grad,
        box3d_jvp,
        box3d_grad_into,
        box3d_hessian
    )
    .run(POINTS, |r| {
        vec![
            r.uniform(0.0, 3.0),
            r.uniform(5.0, 15.0),
            r.uniform(-2.0, 3.0),
        ]
    });
    let e = |t: f64, a: f64| (-t * a).exp();
    at_minimum(
        "box3d",
        &[1.0, 10.0, 1.0],
        &mgh::box3d_grad,
        &|x| mgh::box3d_hessian(x).2,
        &|x| {
            (1..=10)
                .map(|i| {
                    let t = 0.1 * i as f64;
                    e(t, x[0]) - e(t, x[1]) - x[2] * (e(t, 1.0) - e(t, 10.0))
                })
                .collect()
        },
    );
}

fn powell_r(x: &[f64]) -> Vec<f64> {
    vec![
        x[0] + 10.0 * x[1],
        5f64.sqrt() * (x[2] - x[3]),
        (x[1] - 2.0 * x[2]).powi(2),
        10f64.sqrt() * (x[0] - x[3]).powi(2),
    ]
}

#[test]
fn mgh_powell_singular() {
    sl!(
        mgh::powell_singular,
        powell_singular_grad,
        powell_singular_jvp,
        powell_singular_grad_into,
        powell_singular_hessian
    )
    .analytic(|x| {
        let (a, b, c, d) = (x[0], x[1], x[2], x[3]);
        vec![
            2.0 * (a + 10.0 * b) + 40.0 * (a - d).powi(3),
            20.0 * (a + 10.0 * b) + 4.0 * (b - 2.0 * c).powi(3),
            10.0 * (c - d) - 8.0 * (b - 2.0 * c).powi(3),
            -10.0 * (c - d) - 40.0 * (a - d).powi(3),
        ]
    })
    .run(POINTS, |r| r.vec(4, -2.0, 2.0));
    at_minimum(
        "powell_singular",
        &[0.0; 4],
        &mgh::powell_singular_grad,
        &|x| mgh::powell_singular_hessian(x).2,
        &powell_r,
    );
    // The residuals' Jacobian by `f_jacobian` of the output-parameter form.
    let x = [3.0, -1.0, 0.5, 1.0];
    let j = mgh::powell_singular_residuals_jacobian(&x, &mut [0.0; 4]);
    let fd = fd_columns(&powell_r, &x);
    for i in 0..4 {
        for k in 0..4 {
            assert_near(
                j[i][k],
                fd[k][i],
                1e-6,
                1.0,
                "powell_singular_residuals' Jacobian",
            );
        }
    }
}

#[test]
fn mgh_wood() {
    arr(
        "wood",
        mgh::wood,
        mgh::wood_grad,
        mgh::wood_jvp,
        mgh::wood_grad_into,
        mgh::wood_hessian,
    )
    .analytic(|x| {
        let (a, b, c, d) = (x[0], x[1], x[2], x[3]);
        vec![
            -400.0 * a * (b - a * a) - 2.0 * (1.0 - a),
            200.0 * (b - a * a) + 20.0 * (b + d - 2.0) + 0.2 * (b - d),
            -360.0 * c * (d - c * c) - 2.0 * (1.0 - c),
            180.0 * (d - c * c) + 20.0 * (b + d - 2.0) - 0.2 * (b - d),
        ]
    })
    .run(POINTS, |r| r.vec(4, -3.0, 3.0));
    let (v, g) = mgh::wood_grad(&[1.0; 4]);
    assert_near(v, 0.0, 1e-14, 0.0, "wood at its minimum");
    assert_vec_near(&g, &[0.0; 4], 1e-12, "wood's gradient at its minimum");
    // The standard start (-3, -1, -3, -1): f = 19192.
    assert_near(
        mgh::wood(&[-3.0, -1.0, -3.0, -1.0]),
        19192.0,
        1e-12,
        0.0,
        "wood at x0",
    );
}

#[test]
fn mgh_kowalik_osborne() {
    sl!(
        mgh::kowalik_osborne,
        kowalik_osborne_grad,
        kowalik_osborne_jvp,
        kowalik_osborne_grad_into,
        kowalik_osborne_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; 4];
        for row in mgh::KOWALIK {
            let (y, u) = (row[0], row[1]);
            let num = u * u + u * x[1];
            let den = u * u + u * x[2] + x[3];
            let r = y - x[0] * num / den;
            g[0] -= 2.0 * r * num / den;
            g[1] -= 2.0 * r * x[0] * u / den;
            g[2] += 2.0 * r * x[0] * num * u / (den * den);
            g[3] += 2.0 * r * x[0] * num / (den * den);
        }
        g
    })
    .run(POINTS, |r| {
        vec![
            r.uniform(0.1, 0.5),
            r.uniform(0.1, 0.5),
            r.uniform(0.1, 0.5),
            r.uniform(0.1, 0.5),
        ]
    });
}

#[test]
fn mgh_brown_dennis() {
    sl!(
        mgh::brown_dennis,
        brown_dennis_grad,
        brown_dennis_jvp,
        brown_dennis_grad_into,
        brown_dennis_hessian
    )
    .run(POINTS, |r| r.vec(4, -5.0, 5.0));
}

#[test]
fn mgh_biggs_exp6() {
    sl!(
        mgh::biggs_exp6,
        biggs_exp6_grad,
        biggs_exp6_jvp,
        biggs_exp6_grad_into,
        biggs_exp6_hessian
    )
    .run(POINTS, |r| r.vec(6, 0.5, 5.0));
    let (v, g) = mgh::biggs_exp6_grad(&[1.0, 10.0, 1.0, 5.0, 4.0, 3.0]);
    assert!(v < 1e-28, "biggs at its minimum: {v:e}");
    assert_vec_near(&g, &[0.0; 6], 1e-12, "biggs' gradient at its minimum");
}

#[test]
fn mgh_watson() {
    sl!(
        mgh::watson,
        watson_grad,
        watson_jvp,
        watson_grad_into,
        watson_hessian
    )
    .run(POINTS, |r| r.vec(6, -1.0, 1.0));
    // At the standard start 0: f = 30.
    assert_near(mgh::watson(&[0.0; 6]), 30.0, 1e-12, 0.0, "watson at x0");
}

#[test]
fn mgh_extended_powell() {
    sl!(
        mgh::extended_powell,
        extended_powell_grad,
        extended_powell_jvp,
        extended_powell_grad_into,
        extended_powell_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for b in 0..x.len() / 4 {
            let (a, p, c, d) = (x[4 * b], x[4 * b + 1], x[4 * b + 2], x[4 * b + 3]);
            g[4 * b] = 2.0 * (a + 10.0 * p) + 40.0 * (a - d).powi(3);
            g[4 * b + 1] = 20.0 * (a + 10.0 * p) + 4.0 * (p - 2.0 * c).powi(3);
            g[4 * b + 2] = 10.0 * (c - d) - 8.0 * (p - 2.0 * c).powi(3);
            g[4 * b + 3] = -10.0 * (c - d) - 40.0 * (a - d).powi(3);
        }
        g
    })
    .run(POINTS, |r| r.vec(8, -2.0, 2.0));
}

#[test]
fn mgh_penalties() {
    sl!(
        mgh::penalty1,
        penalty1_grad,
        penalty1_jvp,
        penalty1_grad_into,
        penalty1_hessian
    )
    .analytic(|x| {
        let sq: f64 = x.iter().map(|v| v * v).sum();
        x.iter()
            .map(|v| 2e-5 * (v - 1.0) + 4.0 * (sq - 0.25) * v)
            .collect()
    })
    .run(POINTS, |r| r.vec(5, -1.0, 1.0));
    sl!(
        mgh::penalty2,
        penalty2_grad,
        penalty2_jvp,
        penalty2_grad_into,
        penalty2_hessian
    )
    .run(POINTS, |r| r.vec(5, -1.0, 1.0));
}

#[test]
fn mgh_variably_dimensioned() {
    sl!(
        mgh::variably_dimensioned,
        variably_dimensioned_grad,
        variably_dimensioned_jvp,
        variably_dimensioned_grad_into,
        variably_dimensioned_hessian
    )
    .analytic(|x| {
        let s: f64 = x
            .iter()
            .enumerate()
            .map(|(j, v)| (j + 1) as f64 * (v - 1.0))
            .sum();
        x.iter()
            .enumerate()
            .map(|(j, v)| 2.0 * (v - 1.0) + (2.0 * s + 4.0 * s.powi(3)) * (j + 1) as f64)
            .collect()
    })
    .run(POINTS, |r| r.vec(5, -1.0, 2.0));
}

#[test]
fn mgh_boundary_and_integral() {
    sl!(
        mgh::boundary_value,
        boundary_value_grad,
        boundary_value_jvp,
        boundary_value_grad_into,
        boundary_value_hessian
    )
    .run(POINTS, |r| r.vec(6, -1.0, 1.0));
    sl!(
        mgh::integral_equation,
        integral_equation_grad,
        integral_equation_jvp,
        integral_equation_grad_into,
        integral_equation_hessian
    )
    .run(POINTS, |r| r.vec(6, -1.0, 1.0));
}

#[test]
fn mgh_broyden() {
    sl!(
        mgh::broyden_tridiagonal,
        broyden_tridiagonal_grad,
        broyden_tridiagonal_jvp,
        broyden_tridiagonal_grad_into,
        broyden_tridiagonal_hessian
    )
    .run(POINTS, |r| r.vec(6, -1.5, 1.5));
    sl!(
        mgh::broyden_banded,
        broyden_banded_grad,
        broyden_banded_jvp,
        broyden_banded_grad_into,
        broyden_banded_hessian
    )
    .run(POINTS, |r| r.vec(9, -1.5, 1.5));
}

#[test]
fn mgh_linear() {
    sl!(
        mgh::linear_full_rank,
        linear_full_rank_grad,
        linear_full_rank_jvp,
        linear_full_rank_grad_into,
        linear_full_rank_hessian
    )
    .run(POINTS, |r| r.vec(5, -2.0, 2.0));
    sl!(
        mgh::linear_rank1,
        linear_rank1_grad,
        linear_rank1_jvp,
        linear_rank1_grad_into,
        linear_rank1_hessian
    )
    .analytic(|x| {
        let m = x.len() + 1;
        let s: f64 = x.iter().enumerate().map(|(j, v)| (j + 1) as f64 * v).sum();
        let c: f64 = (1..=m).map(|i| 2.0 * (i as f64 * s - 1.0) * i as f64).sum();
        (0..x.len()).map(|j| c * (j + 1) as f64).collect()
    })
    .run(POINTS, |r| r.vec(5, -2.0, 2.0));
}

// --- Griewank and Walther ---

#[test]
fn griewank_table_1_1() {
    two(
        "table_1_1",
        griewank::table_1_1,
        griewank::table_1_1_grad,
        griewank::table_1_1_jvp,
        griewank::table_1_1_grad_into,
    )
    .hessian(hess2(griewank::table_1_1_hessian))
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        let v1 = a / b;
        let v4 = v1 - b.exp();
        let v5 = v1.sin() + v4;
        let (dv1a, dv1b) = (1.0 / b, -a / (b * b));
        let dv4 = (dv1a, dv1b - b.exp());
        let dv5 = (v1.cos() * dv1a + dv4.0, v1.cos() * dv1b + dv4.1);
        vec![dv5.0 * v4 + v5 * dv4.0, dv5.1 * v4 + v5 * dv4.1]
    })
    .run(POINTS, |r| vec![r.uniform(-3.0, 3.0), r.uniform(0.5, 2.0)]);
    // The book's point (x1, x2) = (1.5, 0.5).
    let (v, _) = griewank::table_1_1_grad(1.5, 0.5);
    let e = 0.5f64.exp();
    assert_near(
        v,
        ((3.0f64).sin() + 3.0 - e) * (3.0 - e),
        1e-14,
        0.0,
        "table 1.1's value",
    );
}

fn lighthouse_flat(p: &[f64]) -> Vec<f64> {
    let (a, b) = griewank::lighthouse(p[0], p[1], p[2], p[3]);
    vec![a, b]
}

#[test]
fn griewank_lighthouse() {
    let sample = |r: &mut Lcg| {
        vec![
            r.uniform(0.5, 3.0),
            r.uniform(1.5, 3.0),
            r.uniform(0.2, 1.0),
            r.uniform(0.1, 1.0),
        ]
    };
    check_vector(
        "lighthouse",
        POINTS,
        sample,
        &lighthouse_flat,
        &|p, c| {
            let (y, g) = griewank::lighthouse_vjp(p[0], p[1], p[2], p[3], (c[0], c[1]));
            (vec![y.0, y.1], vec![g.0, g.1, g.2, g.3])
        },
        &|p, t| {
            let (y, d) = griewank::lighthouse_jvp(p[0], p[1], p[2], p[3], (t[0], t[1], t[2], t[3]));
            (vec![y.0, y.1], vec![d.0, d.1])
        },
        None,
    );
    // The book's closed form of ∂y1/∂t: ν γ ω sec²(ωt) / (γ - tan ωt)².
    let (nu, gamma, omega, t) = (2.0, 2.5, 0.6, 0.7);
    let (_, d) = griewank::lighthouse_jvp(nu, gamma, omega, t, (0.0, 0.0, 0.0, 1.0));
    let s = (omega * t).tan();
    let sec2 = 1.0 + s * s;
    let dy1 = nu * gamma * omega * sec2 / ((gamma - s) * (gamma - s));
    assert_near(d.0, dy1, 1e-13, 0.0, "lighthouse dy1/dt");
    assert_near(d.1, gamma * dy1, 1e-13, 0.0, "lighthouse dy2/dt");
    arr(
        "lighthouse_distance",
        griewank::lighthouse_distance,
        griewank::lighthouse_distance_grad,
        griewank::lighthouse_distance_jvp,
        griewank::lighthouse_distance_grad_into,
        griewank::lighthouse_distance_hessian,
    )
    .run(POINTS, sample);
}

#[test]
fn griewank_speelpenning() {
    sl!(
        griewank::speelpenning,
        speelpenning_grad,
        speelpenning_jvp,
        speelpenning_grad_into,
        speelpenning_hessian
    )
    .analytic(|x| {
        (0..x.len())
            .map(|i| (0..x.len()).filter(|&j| j != i).map(|j| x[j]).product())
            .collect()
    })
    .run(POINTS, |r| r.vec(6, -1.5, 1.5));
    // With a zero factor: only its own partial survives.
    let (_, g) = griewank::speelpenning_grad(&[2.0, 0.0, 3.0]);
    assert_eq!(g, vec![0.0, 6.0, 0.0]);
    let (_, _, h) = griewank::speelpenning_hessian(&[2.0, 0.0, 3.0]);
    assert_eq!(h[0][2], 0.0);
    assert_eq!(h[0][1], 3.0);
    assert_eq!(h[1][2], 2.0);
}

#[test]
fn griewank_helmholtz() {
    let b = vec![0.2, 0.1, 0.15, 0.05];
    let a: Vec<Vec<f64>> = (0..4)
        .map(|i| {
            (0..4)
                .map(|j| 0.5 + 0.1 * (i + j) as f64 + if i == j { 1.0 } else { 0.0 })
                .collect()
        })
        .collect();
    let (bb, aa) = (b.clone(), a.clone());
    Probe::new("helmholtz", move |x| griewank::helmholtz(x, &bb, &aa))
        .grad({
            let (b, a) = (b.clone(), a.clone());
            move |x| {
                let (v, (gx, _, _)) = griewank::helmholtz_grad(x, &b, &a);
                (v, gx)
            }
        })
        .analytic({
            let (b, a) = (b.clone(), a.clone());
            move |x| {
                let n = x.len();
                let bx: f64 = (0..n).map(|i| b[i] * x[i]).sum();
                let xax: f64 = (0..n)
                    .map(|i| (0..n).map(|j| x[i] * a[i][j] * x[j]).sum::<f64>())
                    .sum();
                let sx: f64 = x.iter().sum();
                let r2 = 2f64.sqrt();
                let l = ((1.0 + (1.0 + r2) * bx) / (1.0 + (1.0 - r2) * bx)).ln();
                let dl =
                    (1.0 + r2) / (1.0 + (1.0 + r2) * bx) - (1.0 - r2) / (1.0 + (1.0 - r2) * bx);
                let c = 8f64.sqrt();
                (0..n)
                    .map(|k| {
                        let ent = (x[k] / (1.0 - bx)).ln() + 1.0 + sx * b[k] / (1.0 - bx);
                        let ax: f64 = (0..n).map(|j| (a[k][j] + a[j][k]) * x[j]).sum();
                        let q = ax / (c * bx) - xax * b[k] / (c * bx * bx);
                        1.3 * ent - q * l - xax / (c * bx) * dl * b[k]
                    })
                    .collect()
            }
        })
        .hessian(move |x| {
            let (v, (gx, _, _), h) = griewank::helmholtz_hessian(x, &b, &a);
            // The Hessian's block over `x` (the first 4 of 4 + 4 + 16 active inputs).
            (v, gx, h[..4].iter().map(|row| row[..4].to_vec()).collect())
        })
        .run(POINTS, |r| r.vec(4, 0.1, 1.0));
}

#[test]
fn griewank_fixed_point() {
    one(
        "fixed_point",
        griewank::fixed_point,
        griewank::fixed_point_grad,
        griewank::fixed_point_jvp,
        griewank::fixed_point_grad_into,
    )
    .hessian(hess1(
        griewank::fixed_point_hessian,
        griewank::fixed_point_derivatives,
    ))
    .analytic(|x| {
        // The implicit derivative of z = cos(x z) / 2 + x: dz/dx = (1 - z sin(xz) / 2) / (1 + x sin(xz) / 2).
        let z = griewank::fixed_point(x[0]);
        let s = (x[0] * z).sin();
        vec![(1.0 - 0.5 * z * s) / (1.0 + 0.5 * x[0] * s)]
    })
    .run(POINTS, |r| vec![r.uniform(-0.6, 0.6)]);
}

// --- JAX ---

#[test]
fn jax_scalars() {
    two(
        "sin_cos_xy",
        jax::sin_cos_xy,
        jax::sin_cos_xy_grad,
        jax::sin_cos_xy_jvp,
        jax::sin_cos_xy_grad_into,
    )
    .hessian(hess2(jax::sin_cos_xy_hessian))
    .analytic(|x| {
        vec![
            x[0].cos() * x[1].cos() + x[1] * x[1],
            -x[0].sin() * x[1].sin() + 2.0 * x[0] * x[1],
        ]
    })
    .run(POINTS, |r| r.vec(2, -3.0, 3.0));
    two(
        "rem_pow",
        jax::rem_pow,
        jax::rem_pow_grad,
        jax::rem_pow_jvp,
        jax::rem_pow_grad_into,
    )
    .hessian(hess2(jax::rem_pow_hessian))
    .analytic(|x| {
        let (a, b) = (x[0], x[1]);
        let m = a % 1.5;
        vec![a.powf(b) + m * b * a.powf(b - 1.0), m * a.powf(b) * a.ln()]
    })
    .run(POINTS, |r| loop {
        let x = vec![r.uniform(0.2, 4.0), r.uniform(-2.0, 2.0)];
        if (x[0] % 1.5).min(1.5 - x[0] % 1.5) > 1e-3 {
            break x;
        }
    });
}

#[test]
fn jax_fori_and_while() {
    for n in [0, 1, 4, 7] {
        let f = move |x: &[f64]| jax::fori_affine(x[0], n);
        Probe::new("fori_affine", f)
            .grad(move |x| {
                let (v, g) = jax::fori_affine_grad(x[0], n);
                (v, vec![g])
            })
            .jvp(move |x, t| jax::fori_affine_jvp(x[0], n, t[0]))
            .hessian(move |x| {
                let (v, g, h) = jax::fori_affine_hessian(x[0], n);
                let d = jax::fori_affine_derivatives(x[0], n);
                assert_near(d[2], h[0][0], 1e-12, 1.0, "fori_affine f''");
                (v, vec![g], h)
            })
            .analytic(move |x| {
                // c_n = x^n + Σ_i i x^{n-1-i}: d/dx = n x^{n-1} + Σ_i i (n-1-i) x^{n-2-i}.
                let mut d = if n > 0 {
                    n as f64 * x[0].powi(n as i32 - 1)
                } else {
                    0.0
                };
                for i in 0..n {
                    let k = n - 1 - i;
                    if k > 0 {
                        d += i as f64 * k as f64 * x[0].powi(k as i32 - 1);
                    }
                }
                vec![d]
            })
            .run(POINTS, |r| vec![r.uniform(-1.5, 1.5)]);
    }
    one(
        "while_doubling",
        jax::while_doubling,
        jax::while_doubling_grad,
        jax::while_doubling_jvp,
        jax::while_doubling_grad_into,
    )
    .hessian(hess1(
        jax::while_doubling_hessian,
        jax::while_doubling_derivatives,
    ))
    .run(POINTS, |r| loop {
        // Away from the points where the trip count changes.
        let x = r.uniform(0.3, 9.0);
        let ok = [x * (1.0 - 1e-4), x * (1.0 + 1e-4)]
            .iter()
            .all(|&y| trips(y) == trips(x));
        if ok {
            break vec![x];
        }
    });
}

fn trips(x: f64) -> usize {
    let mut v = x;
    let mut k = 0;
    while v.abs() < 10.0 && k < 50 {
        v = v * 2.0 + 0.1 * v.sin();
        k += 1;
    }
    k
}

#[test]
fn jax_scan_rnn() {
    let xs = vec![0.5, -1.0, 0.3, 2.0, -0.7];
    let xs2 = xs.clone();
    let xs3 = xs.clone();
    Probe::new("scan_rnn", move |p| jax::scan_rnn(p[0], p[1], &xs))
        .grad(move |p| {
            let (v, (gw, gu, _)) = jax::scan_rnn_grad(p[0], p[1], &xs2);
            (v, vec![gw, gu])
        })
        .hessian(move |p| {
            let (v, (gw, gu, _), h) = jax::scan_rnn_hessian(p[0], p[1], &xs3);
            (
                v,
                vec![gw, gu],
                vec![h[0][..2].to_vec(), h[1][..2].to_vec()],
            )
        })
        .run(POINTS, |r| r.vec(2, -1.5, 1.5));
}

#[test]
fn jax_cumulative() {
    sl!(
        jax::cummax_weighted,
        cummax_weighted_grad,
        cummax_weighted_jvp,
        cummax_weighted_grad_into,
        cummax_weighted_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        let mut k = 0;
        g[0] = 1.0;
        for i in 1..x.len() {
            if x[i] > x[k] {
                k = i;
            }
            g[k] += (i + 1) as f64;
        }
        g
    })
    .run(POINTS, |r| r.vec(6, -2.0, 2.0));
    sl!(
        jax::cumlogsumexp,
        cumlogsumexp_grad,
        cumlogsumexp_jvp,
        cumlogsumexp_grad_into,
        cumlogsumexp_hessian
    )
    .analytic(|x| {
        // d/dx_j Σ_k lse(x_0..=x_k) = Σ_{k >= j} softmax_k(x)_j.
        let n = x.len();
        let mut g = vec![0.0; n];
        for k in 0..n {
            let z: f64 = x[..=k].iter().map(|v| v.exp()).sum();
            for j in 0..=k {
                g[j] += x[j].exp() / z;
            }
        }
        g
    })
    .run(POINTS, |r| r.vec(6, -3.0, 3.0));
}

#[test]
fn jax_windows_and_sort() {
    sl!(
        jax::max_pool,
        max_pool_grad,
        max_pool_jvp,
        max_pool_grad_into,
        max_pool_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        let mut s = 0;
        while s + 3 <= x.len() {
            let mut k = s;
            for j in s + 1..s + 3 {
                if x[j] > x[k] {
                    k = j;
                }
            }
            g[k] += 2.0 * x[k];
            s += 2;
        }
        g
    })
    .run(POINTS, |r| r.vec(9, -2.0, 2.0));
    sl!(
        jax::sort_weighted,
        sort_weighted_grad,
        sort_weighted_jvp,
        sort_weighted_grad_into,
        sort_weighted_hessian
    )
    .analytic(|x| {
        let mut idx: Vec<usize> = (0..x.len()).collect();
        idx.sort_by(|&a, &b| x[a].partial_cmp(&x[b]).unwrap());
        let mut g = vec![0.0; x.len()];
        for (rank, &i) in idx.iter().enumerate() {
            g[i] = (rank as f64 + 1.0).sqrt();
        }
        g
    })
    .run(POINTS, |r| r.vec(7, -2.0, 2.0));
    sl!(
        jax::top2_product,
        top2_product_grad,
        top2_product_jvp,
        top2_product_grad_into,
        top2_product_hessian
    )
    .analytic(|x| {
        let mut idx: Vec<usize> = (0..x.len()).collect();
        idx.sort_by(|&a, &b| x[b].partial_cmp(&x[a]).unwrap());
        let mut g = vec![0.0; x.len()];
        g[idx[0]] = x[idx[1]];
        g[idx[1]] = x[idx[0]];
        g
    })
    .run(POINTS, |r| r.vec(5, -2.0, 2.0));
}

#[test]
fn jax_where_and_select() {
    sl!(
        jax::safe_sqrt_sum,
        safe_sqrt_sum_grad,
        safe_sqrt_sum_jvp,
        safe_sqrt_sum_grad_into,
        safe_sqrt_sum_hessian
    )
    .analytic(|x| {
        x.iter()
            .map(|&v| if v > 0.0 { 0.5 / v.sqrt() } else { 0.0 })
            .collect()
    })
    .run(POINTS, |r| loop {
        let x = r.vec(5, -2.0, 2.0);
        if x.iter().all(|v| v.abs() > 0.05) {
            break x;
        }
    });
    // The gradient at 0 and below is 0, never NaN (the double-where's point).
    let (_, g) = jax::safe_sqrt_sum_grad(&[0.0, -1.0, 4.0]);
    assert_eq!(g, vec![0.0, 0.0, 0.25]);
    sl!(
        jax::clamp_select,
        clamp_select_grad,
        clamp_select_jvp,
        clamp_select_grad_into,
        clamp_select_hessian
    )
    .analytic(|x| {
        x.iter()
            .map(|&v| {
                let c = v.clamp(-1.0, 1.0);
                let dc = if v.abs() < 1.0 { 1.0 } else { 0.0 };
                let (s, ds) = if v > 0.0 {
                    (v.exp(), v.exp())
                } else {
                    (v * v, 2.0 * v)
                };
                dc * s + c * ds
            })
            .collect()
    })
    .run(POINTS, |r| loop {
        let x = r.vec(6, -2.0, 2.0);
        if x.iter()
            .all(|v| v.abs() > 0.01 && (v.abs() - 1.0).abs() > 0.01)
        {
            break x;
        }
    });
}

#[test]
fn jax_dynamic_update() {
    let at = 2;
    Probe::new("dynamic_update", move |p| {
        jax::dynamic_update(&p[..6], &p[6..], at)
    })
    .grad(move |p| {
        let (v, (gx, gy)) = jax::dynamic_update_grad(&p[..6], &p[6..], at);
        (v, [gx, gy].concat())
    })
    .hessian(move |p| {
        let (v, (gx, gy), h) = jax::dynamic_update_hessian(&p[..6], &p[6..], at);
        (v, [gx, gy].concat(), h)
    })
    .analytic(move |p| {
        let (x, y) = (&p[..6], &p[6..]);
        let mut z = x.to_vec();
        for k in 0..y.len() {
            z[at + k] = y[k] * y[k];
        }
        let mut gz = vec![0.0; 6];
        for k in 1..5 {
            gz[k] += z[k + 1];
            gz[k + 1] += z[k];
        }
        let mut g = gz.clone();
        for k in 0..y.len() {
            g[at + k] = 0.0;
            g.push(2.0 * y[k] * gz[at + k]);
        }
        g
    })
    .run(POINTS, |r| r.vec(8, -2.0, 2.0));
}

#[test]
fn jax_custom_vjp() {
    sl!(
        jax::uses_sin_times,
        uses_sin_times_grad,
        uses_sin_times_jvp,
        uses_sin_times_grad_into,
        uses_sin_times_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for i in 0..x.len() - 1 {
            let v = x[i].sin() * x[i + 1];
            g[i] += 2.0 * v * x[i].cos() * x[i + 1];
            g[i + 1] += 2.0 * v * x[i].sin();
        }
        g
    })
    .run(POINTS, |r| r.vec(5, -2.0, 2.0));
}

#[test]
fn jax_matrices() {
    let a: Vec<Vec<f64>> = vec![
        vec![1.0, 2.0, -1.0],
        vec![0.5, -0.3, 2.0],
        vec![1.5, 0.0, 1.0],
        vec![-1.0, 1.0, 0.2],
    ];
    let b = vec![0.3, -0.2, 1.0, 0.5];
    let (a1, b1, a2, b2, a3, b3) = (
        a.clone(),
        b.clone(),
        a.clone(),
        b.clone(),
        a.clone(),
        b.clone(),
    );
    Probe::new("residual_norm", move |x| jax::residual_norm(&a1, x, &b1))
        .grad(move |x| {
            let (v, (_, gx, _)) = jax::residual_norm_grad(&a2, x, &b2);
            (v, gx)
        })
        .analytic(move |x| {
            let r: Vec<f64> = (0..4).map(|i| dot(&a3[i], x) - b3[i]).collect();
            let n = norm(&r);
            (0..3)
                .map(|j| (0..4).map(|i| a3[i][j] * r[i]).sum::<f64>() / n)
                .collect()
        })
        .run(POINTS, |r| r.vec(3, -2.0, 2.0));
    // The full Hessian over (a, x, b), all active: 12 + 3 + 4 inputs.
    let flat = |p: &[f64]| -> (Vec<Vec<f64>>, Vec<f64>, Vec<f64>) {
        (
            p[..12].chunks(3).map(|c| c.to_vec()).collect(),
            p[12..15].to_vec(),
            p[15..].to_vec(),
        )
    };
    Probe::new("residual_norm_all", move |p| {
        let (a, x, b) = flat(p);
        jax::residual_norm(&a, &x, &b)
    })
    .grad(move |p| {
        let (a, x, b) = flat(p);
        let (v, (ga, gx, gb)) = jax::residual_norm_grad(&a, &x, &b);
        (v, [ga.concat(), gx, gb].concat())
    })
    .hessian(move |p| {
        let (a, x, b) = flat(p);
        let (v, (ga, gx, gb), h) = jax::residual_norm_hessian(&a, &x, &b);
        (v, [ga.concat(), gx, gb].concat(), h)
    })
    .run(POINTS, |r| r.vec(19, -2.0, 2.0));
    let m = vec![vec![0.1, 2.0, -1.0], vec![0.4, 0.3, 0.0]];
    let (_, g) = jax::rows_lse_grad(&m);
    for (row, grow) in m.iter().zip(&g) {
        let z: f64 = row.iter().map(|v| v.exp()).sum();
        let soft: Vec<f64> = row.iter().map(|v| v.exp() / z).collect();
        assert_vec_near(grow, &soft, 1e-12, "rows_lse: softmax rows");
    }
    let (_, _, h) = jax::rows_lse_hessian(&m);
    let cols = fd_columns(
        &|p: &[f64]| {
            jax::rows_lse_grad(&[p[..3].to_vec(), p[3..].to_vec()])
                .1
                .concat()
        },
        &m.concat(),
    );
    for i in 0..6 {
        for j in 0..6 {
            assert_near(h[i][j], cols[j][i], 1e-6, 1.0, "rows_lse's Hessian");
        }
    }
}

// --- Enzyme ---

#[test]
fn enzyme_integrate_exp() {
    for n in [1, 10, 100] {
        let (v, g) = enzyme::integrate_exp_grad(2.0, n);
        let k = (1.0 - 1.0 / n as f64).powi(n as i32);
        assert_near(v, 2.0 * k, 1e-12, 0.0, "integrate_exp's value");
        assert_near(g, k, 1e-12, 0.0, "integrate_exp's derivative");
        let (_, _, h) = enzyme::integrate_exp_hessian(2.0, n);
        assert_eq!(h[0][0], 0.0);
    }
}

#[test]
fn enzyme_loops() {
    sl!(
        enzyme::sum_sq,
        sum_sq_grad,
        sum_sq_jvp,
        sum_sq_grad_into,
        sum_sq_hessian
    )
    .analytic(|x| x.iter().map(|v| 2.0 * v).collect())
    .run(POINTS, |r| r.vec(5, -2.0, 2.0));
    let rec = |x: &[f64]| enzyme::recurse(x, 0);
    Probe::new("recurse", rec)
        .grad(|x| enzyme::recurse_grad(x, 0))
        .hessian(|x| enzyme::recurse_hessian(x, 0))
        .analytic(|x| {
            let n = x.len();
            (0..n)
                .map(|i| {
                    (if i > 0 { x[i - 1] } else { 0.0 }) + (if i + 1 < n { x[i + 1] } else { 0.0 })
                })
                .collect()
        })
        .run(POINTS, |r| r.vec(6, -2.0, 2.0));
    sl!(
        enzyme::wcontinue,
        wcontinue_grad,
        wcontinue_jvp,
        wcontinue_grad_into,
        wcontinue_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for (i, &v) in x.iter().enumerate() {
            if v < 0.0 {
                continue;
            }
            if v > 3.0 {
                break;
            }
            g[i] = v.sin() + v * v.cos();
        }
        g
    })
    .run(POINTS, |r| loop {
        let x = r.vec(7, -1.0, 4.0);
        if x.iter().all(|v| v.abs() > 0.01 && (v - 3.0).abs() > 0.01) {
            break x;
        }
    });
    sl!(
        enzyme::triangle,
        triangle_grad,
        triangle_jvp,
        triangle_grad_into,
        triangle_hessian
    )
    .analytic(|x| {
        let n = x.len();
        let mut g = vec![0.0; n];
        for i in 0..n {
            for j in 0..=i {
                g[i] += (x[j] * 0.5).cos();
                g[j] -= x[i] * 0.5 * (x[j] * 0.5).sin();
            }
        }
        g
    })
    .run(POINTS, |r| r.vec(5, -2.0, 2.0));
}

#[test]
fn enzyme_gmm() {
    let xs = vec![0.3, -1.2, 2.0, 0.8, -0.1];
    let (xs1, xs2) = (xs.clone(), xs.clone());
    let split = |p: &[f64]| (p[..3].to_vec(), p[3..6].to_vec(), p[6..].to_vec());
    Probe::new("gmm1d", move |p| {
        let (a, m, q) = split(p);
        enzyme::gmm1d(&a, &m, &q, &xs)
    })
    .grad(move |p| {
        let (a, m, q) = split(p);
        let (v, (ga, gm, gq, _)) = enzyme::gmm1d_grad(&a, &m, &q, &xs1);
        (v, [ga, gm, gq].concat())
    })
    .hessian(move |p| {
        let (a, m, q) = split(p);
        let (v, (ga, gm, gq, _), h) = enzyme::gmm1d_hessian(&a, &m, &q, &xs2);
        (
            v,
            [ga, gm, gq].concat(),
            h[..9].iter().map(|row| row[..9].to_vec()).collect(),
        )
    })
    .run(POINTS, |r| r.vec(9, -1.0, 1.0));
}

// --- Stan ---

#[test]
fn stan_scalars() {
    one(
        "log1m_exp",
        stan::log1m_exp,
        stan::log1m_exp_grad,
        stan::log1m_exp_jvp,
        stan::log1m_exp_grad_into,
    )
    .hessian(hess1(stan::log1m_exp_hessian, stan::log1m_exp_derivatives))
    .analytic(|a| vec![-1.0 / (-a[0]).exp_m1()])
    .run(POINTS, |r| vec![-(r.uniform(0.01, 5.0))]);
    two(
        "log_diff_exp",
        stan::log_diff_exp,
        stan::log_diff_exp_grad,
        stan::log_diff_exp_jvp,
        stan::log_diff_exp_grad_into,
    )
    .hessian(hess2(stan::log_diff_exp_hessian))
    .analytic(|p| {
        let d = p[0].exp() - p[1].exp();
        vec![p[0].exp() / d, -p[1].exp() / d]
    })
    .run(POINTS, |r| {
        let y = r.uniform(-3.0, 3.0);
        vec![y + r.uniform(0.05, 4.0), y]
    });
    one(
        "log_inv_logit",
        stan::log_inv_logit,
        stan::log_inv_logit_grad,
        stan::log_inv_logit_jvp,
        stan::log_inv_logit_grad_into,
    )
    .hessian(hess1(
        stan::log_inv_logit_hessian,
        stan::log_inv_logit_derivatives,
    ))
    .analytic(|u| vec![1.0 / (1.0 + u[0].exp())])
    .run(POINTS, |r| vec![r.uniform(-8.0, 8.0)]);
    one(
        "phi_approx",
        stan::phi_approx,
        stan::phi_approx_grad,
        stan::phi_approx_jvp,
        stan::phi_approx_grad_into,
    )
    .hessian(hess1(
        stan::phi_approx_hessian,
        stan::phi_approx_derivatives,
    ))
    .analytic(|x| {
        let z = 0.07056 * x[0].powi(3) + 1.5976 * x[0];
        let s = 1.0 / (1.0 + (-z).exp());
        vec![s * (1.0 - s) * (3.0 * 0.07056 * x[0] * x[0] + 1.5976)]
    })
    .run(POINTS, |r| vec![r.uniform(-4.0, 4.0)]);
    one(
        "inv_cloglog",
        stan::inv_cloglog,
        stan::inv_cloglog_grad,
        stan::inv_cloglog_jvp,
        stan::inv_cloglog_grad_into,
    )
    .hessian(hess1(
        stan::inv_cloglog_hessian,
        stan::inv_cloglog_derivatives,
    ))
    .analytic(|x| vec![(x[0] - x[0].exp()).exp()])
    .run(POINTS, |r| vec![r.uniform(-4.0, 2.0)]);
    two(
        "corr_target",
        stan::corr_target,
        stan::corr_target_grad,
        stan::corr_target_jvp,
        stan::corr_target_grad_into,
    )
    .hessian(hess2(stan::corr_target_hessian))
    .analytic(|p| {
        let t = p[0].tanh();
        vec![-2.0 * t * p[1], (1.0 - t * t).ln()]
    })
    .run(POINTS, |r| vec![r.uniform(-2.0, 2.0), r.uniform(0.5, 3.0)]);
}

#[test]
fn stan_three_argument_densities() {
    three(
        "log_mix",
        stan::log_mix,
        stan::log_mix_grad,
        stan::log_mix_hessian,
    )
    .analytic(|p| {
        let (t, a, b) = (p[0], p[1].exp(), p[2].exp());
        let m = t * a + (1.0 - t) * b;
        vec![(a - b) / m, t * a / m, (1.0 - t) * b / m]
    })
    .run(POINTS, |r| {
        vec![
            r.uniform(0.05, 0.95),
            r.uniform(-3.0, 3.0),
            r.uniform(-3.0, 3.0),
        ]
    });
    three(
        "logistic_lpdf",
        stan::logistic_lpdf,
        stan::logistic_lpdf_grad,
        stan::logistic_lpdf_hessian,
    )
    .analytic(|p| {
        let (y, mu, s) = (p[0], p[1], p[2]);
        let z = (y - mu) / s;
        let t = (1.0 - (-z).exp()) / (1.0 + (-z).exp()); // tanh(z / 2)
        vec![-t / s, t / s, (z * t - 1.0) / s]
    })
    .run(POINTS, |r| {
        vec![
            r.uniform(-3.0, 3.0),
            r.uniform(-1.0, 1.0),
            r.uniform(0.3, 3.0),
        ]
    });
    three(
        "gumbel_lpdf",
        stan::gumbel_lpdf,
        stan::gumbel_lpdf_grad,
        stan::gumbel_lpdf_hessian,
    )
    .analytic(|p| {
        let (y, mu, b) = (p[0], p[1], p[2]);
        let z = (y - mu) / b;
        let e = (-z).exp();
        vec![(e - 1.0) / b, (1.0 - e) / b, (-1.0 + z - z * e) / b]
    })
    .run(POINTS, |r| {
        vec![
            r.uniform(-3.0, 3.0),
            r.uniform(-1.0, 1.0),
            r.uniform(0.3, 3.0),
        ]
    });
    three(
        "lognormal_lpdf",
        stan::lognormal_lpdf,
        stan::lognormal_lpdf_grad,
        stan::lognormal_lpdf_hessian,
    )
    .analytic(|p| {
        let (y, mu, s) = (p[0], p[1], p[2]);
        let z = (y.ln() - mu) / s;
        vec![-1.0 / y - z / (s * y), z / s, -1.0 / s + z * z / s]
    })
    .run(POINTS, |r| {
        vec![
            r.uniform(0.1, 5.0),
            r.uniform(-1.0, 1.0),
            r.uniform(0.3, 3.0),
        ]
    });
    three(
        "weibull_lpdf",
        stan::weibull_lpdf,
        stan::weibull_lpdf_grad,
        stan::weibull_lpdf_hessian,
    )
    .run(POINTS, |r| {
        vec![
            r.uniform(0.1, 5.0),
            r.uniform(0.5, 3.0),
            r.uniform(0.3, 3.0),
        ]
    });
    three(
        "pareto2_lpdf",
        stan::pareto2_lpdf,
        stan::pareto2_lpdf_grad,
        stan::pareto2_lpdf_hessian,
    )
    .run(POINTS, |r| {
        vec![
            r.uniform(0.1, 5.0),
            r.uniform(0.5, 3.0),
            r.uniform(0.3, 3.0),
        ]
    });
    three(
        "frechet_lpdf",
        stan::frechet_lpdf,
        stan::frechet_lpdf_grad,
        stan::frechet_lpdf_hessian,
    )
    .run(POINTS, |r| {
        vec![
            r.uniform(0.1, 5.0),
            r.uniform(0.5, 3.0),
            r.uniform(0.3, 3.0),
        ]
    });
}

#[test]
fn stan_vector_densities() {
    let y = vec![0.3, -1.0, 2.5, 0.7];
    let (y1, y2, y3) = (y.clone(), y.clone(), y.clone());
    Probe::new("cauchy_lpdf", move |p| stan::cauchy_lpdf(&y, p[0], p[1]))
        .grad(move |p| {
            let (v, (_, gm, gs)) = stan::cauchy_lpdf_grad(&y1, p[0], p[1]);
            (v, vec![gm, gs])
        })
        .hessian(move |p| {
            let (v, (_, gm, gs), h) = stan::cauchy_lpdf_hessian(&y2, p[0], p[1]);
            (
                v,
                vec![gm, gs],
                h[4..].iter().map(|row| row[4..].to_vec()).collect(),
            )
        })
        .analytic(move |p| {
            let (mu, s) = (p[0], p[1]);
            let mut g = vec![0.0; 2];
            for &v in &y3 {
                let d = v - mu;
                g[0] += 2.0 * d / (s * s + d * d);
                g[1] += -1.0 / s + 2.0 * d * d / (s * (s * s + d * d));
            }
            g
        })
        .run(POINTS, |r| vec![r.uniform(-1.0, 1.0), r.uniform(0.3, 3.0)]);
    let y = vec![0.3, -1.0, 2.5, 0.7];
    let (y1, y2, y3) = (y.clone(), y.clone(), y.clone());
    Probe::new("double_exponential_lpdf", move |p| {
        stan::double_exponential_lpdf(&y, p[0], p[1])
    })
    .grad(move |p| {
        let (v, (_, gm, gs)) = stan::double_exponential_lpdf_grad(&y1, p[0], p[1]);
        (v, vec![gm, gs])
    })
    .hessian(move |p| {
        let (v, (_, gm, gs), h) = stan::double_exponential_lpdf_hessian(&y2, p[0], p[1]);
        (
            v,
            vec![gm, gs],
            h[4..].iter().map(|row| row[4..].to_vec()).collect(),
        )
    })
    .analytic(move |p| {
        let (mu, s) = (p[0], p[1]);
        let mut g = vec![0.0; 2];
        for &v in &y3 {
            g[0] += (v - mu).signum() / s;
            g[1] += -1.0 / s + (v - mu).abs() / (s * s);
        }
        g
    })
    .run(POINTS, |r| vec![r.uniform(-0.9, -0.1), r.uniform(0.3, 3.0)]);
    let n = vec![3u32, 0, 7, 5];
    let total = vec![10u32, 4, 7, 9];
    let (n1, t1, n2, t2, n3, t3) = (
        n.clone(),
        total.clone(),
        n.clone(),
        total.clone(),
        n.clone(),
        total.clone(),
    );
    Probe::new("binomial_logit", move |a| {
        stan::binomial_logit(a, &n, &total)
    })
    .grad(move |a| stan::binomial_logit_grad(a, &n1, &t1))
    .hessian(move |a| stan::binomial_logit_hessian(a, &n2, &t2))
    .analytic(move |a| {
        (0..a.len())
            .map(|i| n3[i] as f64 - t3[i] as f64 / (1.0 + (-a[i]).exp()))
            .collect()
    })
    .run(POINTS, |r| r.vec(4, -4.0, 4.0));
}

#[test]
fn stan_categorical() {
    let c = vec![-1.0, 0.5, 2.0];
    for k in 0..=3 {
        let (c1, c2) = (c.clone(), c.clone());
        let cc = c.clone();
        Probe::new("ordered_logistic", move |p| {
            stan::ordered_logistic(p[0], &p[1..], k)
        })
        .grad(move |p| {
            let (v, (ge, gc)) = stan::ordered_logistic_grad(p[0], &p[1..], k);
            ([v].to_vec()[0], [vec![ge], gc].concat())
        })
        .hessian(move |p| {
            let (v, (ge, gc), h) = stan::ordered_logistic_hessian(p[0], &p[1..], k);
            (v, [vec![ge], gc].concat(), h)
        })
        .run(POINTS, move |r| {
            let _ = (&c1, &c2);
            let mut p = vec![r.uniform(-2.0, 3.0)];
            p.extend(cc.iter().map(|v| v + r.uniform(-0.2, 0.2)));
            p
        });
    }
    let ys = vec![0usize, 2, 2, 1, 3];
    let (ys1, ys2, ys3) = (ys.clone(), ys.clone(), ys.clone());
    Probe::new("categorical_logit", move |b| {
        stan::categorical_logit(b, &ys)
    })
    .grad(move |b| stan::categorical_logit_grad(b, &ys1))
    .hessian(move |b| stan::categorical_logit_hessian(b, &ys2))
    .analytic(move |b| {
        let z: f64 = b.iter().map(|v| v.exp()).sum();
        let mut g: Vec<f64> = b
            .iter()
            .map(|v| -(ys3.len() as f64) * v.exp() / z)
            .collect();
        for &y in &ys3 {
            g[y] += 1.0;
        }
        g
    })
    .run(POINTS, |r| r.vec(4, -2.0, 2.0));
}

#[test]
fn stan_transforms() {
    let w = vec![1.5, 0.7, 2.0, 1.2];
    let (w1, w2, w3) = (w.clone(), w.clone(), w.clone());
    Probe::new("simplex_target", move |y| stan::simplex_target(y, &w))
        .grad(move |y| {
            let (v, (gy, _)) = stan::simplex_target_grad(y, &w1);
            (v, gy)
        })
        .hessian(move |y| {
            let (v, (gy, _), h) = stan::simplex_target_hessian(y, &w2);
            (v, gy, h[..3].iter().map(|row| row[..3].to_vec()).collect())
        })
        .run(POINTS, |r| r.vec(3, -2.0, 2.0));
    // The stick-breaking simplex sums to one, and its log Jacobian makes `Σ w ln p` a Dirichlet(w + 1):
    // the target's gradient vanishes where p = w / Σ w.
    let _ = w3;
    sl!(
        stan::ordered_target,
        ordered_target_grad,
        ordered_target_jvp,
        ordered_target_grad_into,
        ordered_target_hessian
    )
    .analytic(|y| {
        let n = y.len();
        let mut x = vec![y[0]; n];
        for k in 1..n {
            x[k] = x[k - 1] + y[k].exp();
        }
        // dlp/dx_k = -(x_k - k); x_k depends on y_j (j <= k) by 1 (j = 0) or e^{y_j}.
        let gx: Vec<f64> = (0..n).map(|k| -(x[k] - k as f64)).collect();
        (0..n)
            .map(|j| {
                let tail: f64 = gx[j..].iter().sum();
                if j == 0 {
                    tail
                } else {
                    tail * y[j].exp() + 1.0
                }
            })
            .collect()
    })
    .run(POINTS, |r| r.vec(5, -2.0, 1.0));
    Probe::new("lub_target", |p| stan::lub_target(&p[..4], p[4], p[5]))
        .grad(|p| {
            let (v, (gy, gl, gu)) = stan::lub_target_grad(&p[..4], p[4], p[5]);
            (v, [gy, vec![gl, gu]].concat())
        })
        .hessian(|p| {
            let (v, (gy, gl, gu), h) = stan::lub_target_hessian(&p[..4], p[4], p[5]);
            (v, [gy, vec![gl, gu]].concat(), h)
        })
        .run(POINTS, |r| {
            let mut p = r.vec(4, -3.0, 3.0);
            p.push(r.uniform(-2.0, -0.5));
            p.push(r.uniform(0.5, 2.0));
            p
        });
    let a = vec![0.3, -1.0, 0.8];
    let (a1, a2, a3) = (a.clone(), a.clone(), a.clone());
    Probe::new("unit_vector_target", move |y| {
        stan::unit_vector_target(y, &a)
    })
    .grad(move |y| {
        let (v, (gy, _)) = stan::unit_vector_target_grad(y, &a1);
        (v, gy)
    })
    .hessian(move |y| {
        let (v, (gy, _), h) = stan::unit_vector_target_hessian(y, &a2);
        (v, gy, h[..3].iter().map(|row| row[..3].to_vec()).collect())
    })
    .analytic(move |y| {
        let r = norm(y);
        let ay = dot(&a3, y);
        (0..3)
            .map(|i| -y[i] + a3[i] / r - ay * y[i] / (r * r * r))
            .collect()
    })
    .run(POINTS, |r| r.vec(3, -2.0, 2.0));
}

#[test]
fn stan_kernels() {
    Probe::new("exp_quad_cov", |p| stan::exp_quad_cov(&p[..4], p[4], p[5]))
        .grad(|p| {
            let (v, (gx, gs, gl)) = stan::exp_quad_cov_grad(&p[..4], p[4], p[5]);
            (v, [gx, vec![gs, gl]].concat())
        })
        .hessian(|p| {
            let (v, (gx, gs, gl), h) = stan::exp_quad_cov_hessian(&p[..4], p[4], p[5]);
            (v, [gx, vec![gs, gl]].concat(), h)
        })
        .run(POINTS, |r| {
            let mut p = r.vec(4, -2.0, 2.0);
            p.push(r.uniform(0.5, 2.0));
            p.push(r.uniform(0.5, 2.0));
            p
        });
    Probe::new("sq_distance_dot_self", |p| {
        stan::sq_distance_dot_self(&[p[0], p[1], p[2]], &[p[3], p[4], p[5]])
    })
    .grad(|p| {
        let (v, (ga, gb)) =
            stan::sq_distance_dot_self_grad(&[p[0], p[1], p[2]], &[p[3], p[4], p[5]]);
        (v, [ga, gb].concat())
    })
    .hessian(|p| {
        let (v, (ga, gb), h) =
            stan::sq_distance_dot_self_hessian(&[p[0], p[1], p[2]], &[p[3], p[4], p[5]]);
        (v, [ga, gb].concat(), h)
    })
    .analytic(|p| {
        let d: f64 = (0..3).map(|i| (p[i] - p[i + 3]).powi(2)).sum();
        let s: f64 = (0..3).map(|i| p[i] * p[i]).sum();
        let mut g = vec![0.0; 6];
        for i in 0..3 {
            g[i] = 2.0 * (p[i] - p[i + 3]) * s + d * 2.0 * p[i];
            g[i + 3] = -2.0 * (p[i] - p[i + 3]) * s;
        }
        g
    })
    .run(POINTS, |r| r.vec(6, -2.0, 2.0));
}

// --- second pass ---

#[test]
fn more_design_rows() {
    sl!(
        more::design_rows,
        design_rows_grad,
        design_rows_jvp,
        design_rows_grad_into,
        design_rows_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; 3];
        for row in more::DESIGN {
            let r = dot(&row, x) - 1.0;
            for j in 0..3 {
                g[j] += 2.0 * r * row[j];
            }
        }
        g
    })
    .run(POINTS, |r| r.vec(3, -2.0, 2.0));
}

#[test]
fn more_design_rows_typed() {
    sl!(
        more::design_rows_typed,
        design_rows_typed_grad,
        design_rows_typed_jvp,
        design_rows_typed_grad_into,
        design_rows_typed_hessian
    )
    .analytic(|x| more::design_rows_grad(x).1)
    .run(POINTS, |r| r.vec(3, -2.0, 2.0));
    // Both against 2 DᵀD.
    let (_, _, h) = more::design_rows_typed_hessian(&[0.1, 0.2, 0.3]);
    for i in 0..3 {
        for j in 0..3 {
            let e: f64 = more::DESIGN.iter().map(|row| 2.0 * row[i] * row[j]).sum();
            assert_near(h[i][j], e, 1e-12, 0.0, "design_rows_typed: H = 2 DᵀD");
        }
    }
}

#[test]
fn more_gp_nll() {
    let ts = vec![0.0, 0.4, 1.1, 1.5, 2.3];
    let ys = vec![0.2, 0.5, -0.3, 0.1, 0.9];
    let (t1, y1, t2, y2) = (ts.clone(), ys.clone(), ts.clone(), ys.clone());
    Probe::new("gp_nll", move |h| more::gp_nll(h, &ts, &ys))
        .grad(move |h| {
            let (v, (gh, _, _)) = more::gp_nll_grad(h, &t1, &y1);
            (v, gh)
        })
        .hessian(move |h| {
            let (v, (gh, _, _), m) = more::gp_nll_hessian(h, &t2, &y2);
            (v, gh, m[..2].iter().map(|row| row[..2].to_vec()).collect())
        })
        .run(POINTS, |r| vec![r.uniform(-1.0, 0.7), r.uniform(-1.0, 0.5)]);
}

#[test]
fn more_quadratic_map() {
    for steps in [1, 3, 5] {
        Probe::new("quadratic_map", move |c| {
            more::quadratic_map(&[c[0], c[1]], steps)
        })
        .grad(move |c| {
            let (v, g) = more::quadratic_map_grad(&[c[0], c[1]], steps);
            (v, g.to_vec())
        })
        .hessian(move |c| {
            let (v, g, h) = more::quadratic_map_hessian(&[c[0], c[1]], steps);
            (v, g.to_vec(), h)
        })
        .analytic(move |c| {
            // z and dz/dc (complex) by the recurrence z' = 2 z dz + 1.
            let (mut zr, mut zi, mut dr, mut di) = (0.0, 0.0, 0.0, 0.0);
            for _ in 0..steps {
                let (ndr, ndi) = (2.0 * (zr * dr - zi * di) + 1.0, 2.0 * (zr * di + zi * dr));
                let (nzr, nzi) = (zr * zr - zi * zi + c[0], 2.0 * zr * zi + c[1]);
                (zr, zi, dr, di) = (nzr, nzi, ndr, ndi);
            }
            // |z|² by (Re c, Im c): holomorphic z, so d/dRe = 2 Re(conj(z) dz), d/dIm = 2 Re(conj(z) i dz).
            vec![2.0 * (zr * dr + zi * di), 2.0 * (zi * dr - zr * di)]
        })
        .run(POINTS, |r| r.vec(2, -1.0, 0.5));
    }
}

#[test]
fn more_soft_xent() {
    let t = vec![0.1, 0.6, 0.3, 0.0];
    let (t1, t2, t3) = (t.clone(), t.clone(), t.clone());
    Probe::new("soft_xent", move |v| more::soft_xent(v, &t))
        .grad(move |v| {
            let (l, (gv, _)) = more::soft_xent_grad(v, &t1);
            (l, gv)
        })
        .hessian(move |v| {
            let (l, (gv, _), h) = more::soft_xent_hessian(v, &t2);
            (l, gv, h[..4].iter().map(|row| row[..4].to_vec()).collect())
        })
        .analytic(move |v| {
            let z: f64 = v.iter().map(|a| a.exp()).sum();
            let ts: f64 = t3.iter().sum();
            (0..4).map(|i| ts * v[i].exp() / z - t3[i]).collect()
        })
        .run(POINTS, |r| r.vec(4, -2.0, 2.0));
}

#[test]
fn more_exp_fit() {
    let ts = vec![0.0, 0.5, 1.0, 2.0, 3.0];
    let ys = vec![2.0, 1.4, 1.1, 0.7, 0.6];
    let (t1, y1, t2, y2, t3, y3) = (
        ts.clone(),
        ys.clone(),
        ts.clone(),
        ys.clone(),
        ts.clone(),
        ys.clone(),
    );
    Probe::new("exp_fit", move |x| more::exp_fit(x, &ts, &ys))
        .grad(move |x| {
            let (v, (gx, _, _)) = more::exp_fit_grad(x, &t1, &y1);
            (v, gx)
        })
        .hessian(move |x| {
            let (v, (gx, _, _), h) = more::exp_fit_hessian(x, &t2, &y2);
            (v, gx, h[..3].iter().map(|row| row[..3].to_vec()).collect())
        })
        .analytic(move |x| {
            let mut g = vec![0.0; 3];
            for i in 0..5 {
                let e = (-x[1] * t3[i]).exp();
                let r = x[0] * e + x[2] - y3[i];
                g[0] += 2.0 * r * e;
                g[1] -= 2.0 * r * x[0] * t3[i] * e;
                g[2] += 2.0 * r;
            }
            g
        })
        .run(POINTS, |r| r.vec(3, -1.0, 2.0));
}

#[test]
fn more_in_place_and_control() {
    sl!(
        more::prefix_in_place,
        prefix_in_place_grad,
        prefix_in_place_jvp,
        prefix_in_place_grad_into,
        prefix_in_place_hessian
    )
    .run(POINTS, |r| r.vec(5, -1.5, 1.5));
    sl!(
        more::break_value,
        break_value_grad,
        break_value_jvp,
        break_value_grad_into,
        break_value_hessian
    )
    .analytic(|x| {
        let mut s = 0.0;
        let mut g = vec![0.0; x.len()];
        for i in 0..x.len() {
            s += x[i] * x[i];
            if s > 3.0 {
                for k in 0..=i {
                    g[k] = 2.0 * x[k] * x[i];
                }
                g[i] += s;
                return g;
            }
        }
        x.iter().map(|v| 2.0 * v).collect()
    })
    .run(POINTS, |r| loop {
        let x = r.vec(5, -1.5, 1.5);
        let mut s = 0.0;
        let ok = x.iter().all(|v| {
            s += v * v;
            (s - 3.0).abs() > 1e-3
        });
        if ok {
            break x;
        }
    });
    sl!(
        more::first_close,
        first_close_grad,
        first_close_jvp,
        first_close_grad_into,
        first_close_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                if (x[i] - x[j]).abs() < 0.3 {
                    g[i] = x[j];
                    g[j] = x[i];
                    return g;
                }
            }
        }
        g
    })
    .run(POINTS, |r| loop {
        let x = r.vec(5, -2.0, 2.0);
        let ok = (0..5).all(|i| (i + 1..5).all(|j| ((x[i] - x[j]).abs() - 0.3).abs() > 1e-3));
        if ok {
            break x;
        }
    });
    sl!(
        more::piecewise,
        piecewise_grad,
        piecewise_jvp,
        piecewise_grad_into,
        piecewise_hessian
    )
    .analytic(|x| {
        x.iter()
            .enumerate()
            .map(|(i, &v)| match i {
                0..=1 => 3.0 * v * v,
                2 | 3 => v.cos() * v + v.sin(),
                _ => v.exp() / i as f64,
            })
            .collect()
    })
    .run(POINTS, |r| r.vec(6, -2.0, 2.0));
    sl!(
        more::softplus_sum,
        softplus_sum_grad,
        softplus_sum_jvp,
        softplus_sum_grad_into,
        softplus_sum_hessian
    )
    .analytic(|x| {
        x.iter()
            .map(|&v| {
                let sp = (1.0 + v.exp()).ln();
                sp + v / (1.0 + (-v).exp())
            })
            .collect()
    })
    .run(POINTS, |r| r.vec(5, -4.0, 4.0));
}

#[test]
fn more_powers() {
    for n in [1, 2, 4] {
        Probe::new("powers", move |x| more::powers(x[0], n))
            .grad(move |x| {
                let (v, g) = more::powers_grad(x[0], n);
                (v, vec![g])
            })
            .hessian(move |x| {
                let (v, g, h) = more::powers_hessian(x[0], n);
                (v, vec![g], h)
            })
            .analytic(move |x| {
                let d: f64 = (-n..=n).filter(|&k| k != 0).map(|k| x[0].powi(k - 1)).sum();
                vec![d]
            })
            .run(POINTS, |r| vec![r.uniform(0.3, 2.0)]);
    }
}

#[test]
fn more_struct_params() {
    use autodiff::Differentiable;
    let ys = vec![0.3, -1.0, 2.5, 0.7, 1.1];
    let (y1, y2, y3) = (ys.clone(), ys.clone(), ys.clone());
    let p = |x: &[f64]| more::Normal {
        mu: x[0],
        log_sigma: x[1],
    };
    Probe::new("normal_nll", move |x| more::normal_nll(&p(x), &ys))
        .grad(move |x| {
            let (v, g) = more::normal_nll_grad(&p(x), &y1);
            (v, g.to_flat())
        })
        .hessian(move |x| {
            let (v, g, h) = more::normal_nll_hessian(&p(x), &y2);
            (v, g.to_flat(), h)
        })
        .analytic(move |x| {
            let s = x[1].exp();
            let mut g = vec![y3.len() as f64, 0.0];
            g.swap(0, 1);
            for &y in &y3 {
                let z = (y - x[0]) / s;
                g[0] -= z / s;
                g[1] -= z * z;
            }
            g
        })
        .run(POINTS, |r| vec![r.uniform(-1.0, 1.0), r.uniform(-1.0, 1.0)]);
}

// --- third pass ---

#[test]
fn third_meyer_method() {
    let fit = third::ExpFit {
        ts: (1..=8).map(|i| 0.5 * i as f64).collect(),
        ys: (1..=8)
            .map(|i| 2.0 * (1.0 / (0.5 * i as f64 + 1.0)).exp())
            .collect(),
    };
    let fit = &fit;
    Probe::new("meyer", move |x| fit.meyer(x))
        .grad(move |x| fit.meyer_grad(x))
        .hessian(move |x| fit.meyer_hessian(x))
        .analytic(move |x| {
            let mut g = vec![0.0; 3];
            for i in 0..fit.ts.len() {
                let d = fit.ts[i] + x[2];
                let e = (x[1] / d).exp();
                let r = x[0] * e - fit.ys[i];
                g[0] += 2.0 * r * e;
                g[1] += 2.0 * r * x[0] * e / d;
                g[2] -= 2.0 * r * x[0] * e * x[1] / (d * d);
            }
            g
        })
        .run(POINTS, |r| {
            vec![
                r.uniform(0.5, 3.0),
                r.uniform(0.2, 2.0),
                r.uniform(0.2, 2.0),
            ]
        });
    let (v, g) = fit.meyer_grad(&[2.0, 1.0, 1.0]);
    assert!(v < 1e-28);
    assert_vec_near(&g, &[0.0; 3], 1e-12, "meyer at its zero-residual point");
}

#[test]
fn third_generic_and_f32() {
    sl!(
        third::rosenbrock_pairs,
        rosenbrock_pairs_grad,
        rosenbrock_pairs_jvp,
        rosenbrock_pairs_grad_into,
        rosenbrock_pairs_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; x.len()];
        for k in 0..x.len() / 2 {
            let (a, b) = (x[2 * k], x[2 * k + 1]);
            g[2 * k] = -400.0 * a * (b - a * a) - 2.0 * (1.0 - a);
            g[2 * k + 1] = 200.0 * (b - a * a);
        }
        g
    })
    .run(POINTS, |r| r.vec(6, -2.0, 2.0));
    // f32 against the f64 version's derivatives, to f32 precision.
    let x = [1.5f32, 8.0, 0.7];
    let (_, g) = third::box3d_f32_grad(&x);
    let (_, _, h) = third::box3d_f32_hessian(&x);
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let (_, g64) = mgh::box3d_grad(&x64);
    let (_, _, h64) = mgh::box3d_hessian(&x64);
    for i in 0..3 {
        assert_near(g[i] as f64, g64[i], 1e-4, 1.0, "box3d_f32's gradient");
        for j in 0..3 {
            assert_near(h[i][j] as f64, h64[i][j], 1e-4, 1.0, "box3d_f32's Hessian");
        }
    }
}

#[test]
fn third_tuples_and_iterators() {
    Probe::new("tuple_point", |p| third::tuple_point((p[0], p[1])))
        .grad(|p| {
            let (v, g) = third::tuple_point_grad((p[0], p[1]));
            (v, vec![g.0, g.1])
        })
        .hessian(|p| {
            let (v, g, h) = third::tuple_point_hessian((p[0], p[1]));
            (v, vec![g.0, g.1], h)
        })
        .analytic(|p| {
            let (x, y) = (p[0], p[1]);
            let r1 = 1.5 - x + x * y;
            let r2 = 2.25 - x + x * y * y;
            vec![
                2.0 * r1 * (y - 1.0) + 2.0 * r2 * (y * y - 1.0),
                2.0 * r1 * x + 4.0 * r2 * x * y,
            ]
        })
        .run(POINTS, |r| r.vec(2, -2.0, 2.0));
    Probe::new("horner_rev", |p| third::horner_rev(&p[..4], p[4]))
        .grad(|p| {
            let (v, (gc, gx)) = third::horner_rev_grad(&p[..4], p[4]);
            (v, [gc, vec![gx]].concat())
        })
        .hessian(|p| {
            let (v, (gc, gx), h) = third::horner_rev_hessian(&p[..4], p[4]);
            (v, [gc, vec![gx]].concat(), h)
        })
        .analytic(|p| {
            // acc = Σ_k c_{3-k} w_k x^{3-k}, w_k = 1 + k/10.
            let x = p[4];
            let mut g = vec![0.0; 5];
            for k in 0..4 {
                let w = 1.0 + 0.1 * k as f64;
                let e = 3 - k as i32;
                g[3 - k] = w * x.powi(e);
                if e > 0 {
                    g[4] += p[3 - k] * w * e as f64 * x.powi(e - 1);
                }
            }
            g
        })
        .run(POINTS, |r| r.vec(5, -2.0, 2.0));
    sl!(
        third::fold_variance,
        fold_variance_grad,
        fold_variance_jvp,
        fold_variance_grad_into,
        fold_variance_hessian
    )
    .analytic(|x| {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        x.iter().map(|v| 2.0 * (v - m) / n).collect()
    })
    .run(POINTS, |r| r.vec(5, -2.0, 2.0));
    sl!(
        third::strided,
        strided_grad,
        strided_jvp,
        strided_grad_into,
        strided_hessian
    )
    .analytic(|x| {
        (0..x.len())
            .map(|i| {
                if i % 2 == 1 {
                    x[i].sin() + x[i] * x[i].cos()
                } else {
                    0.0
                }
            })
            .collect()
    })
    .run(POINTS, |r| r.vec(6, -2.0, 2.0));
    two(
        "ordered_pair",
        third::ordered_pair,
        third::ordered_pair_grad,
        third::ordered_pair_jvp,
        third::ordered_pair_grad_into,
    )
    .hessian(hess2(third::ordered_pair_hessian))
    .analytic(|p| {
        if p[0] < p[1] {
            vec![-2.0 * p[0], p[1].exp()]
        } else {
            vec![p[0].exp(), -2.0 * p[1]]
        }
    })
    .run(POINTS, |r| r.vec(2, -2.0, 2.0));
}

#[test]
fn third_first_heavy() {
    let shape = |p: &[f64]| -> Vec<Vec<f64>> { p.chunks(3).map(|c| c.to_vec()).collect() };
    Probe::new("first_heavy", move |p| third::first_heavy(&shape(p)))
        .grad(move |p| {
            let (v, g) = third::first_heavy_grad(&shape(p));
            (v, g.concat())
        })
        .hessian(move |p| {
            let (v, g, h) = third::first_heavy_hessian(&shape(p));
            (v, g.concat(), h)
        })
        .analytic(move |p| {
            let m = shape(p);
            let mut g = vec![0.0; p.len()];
            for i in 0..m.len() {
                let mut s = 0.0;
                for j in 0..m[i].len() {
                    s += m[i][j] * m[i][j];
                    if s > 2.0 {
                        for k in 0..=j {
                            g[3 * i + k] = 2.0 * m[i][k] * (i + 1) as f64;
                        }
                        return g;
                    }
                }
            }
            g
        })
        .run(POINTS, |r| loop {
            let p = r.vec(9, -1.2, 1.2);
            let ok = p.chunks(3).all(|c| {
                let mut s = 0.0;
                c.iter().all(|v| {
                    s += v * v;
                    (s - 2.0).abs() > 1e-3
                })
            });
            if ok {
                break p;
            }
        });
}
