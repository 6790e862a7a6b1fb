//! Issue 8's smaller holes at `order = K`: second derivatives at the singular points of `sqrt`, `cbrt`,
//! `powf` and `ln` (the limits, as JAX gives them, not NaN), `copy_from_slice` and `fill` in a callee of an
//! `order = K` function (its generic copy), a sub-slice receiver out of range (it panics before anything is
//! written, as the function does), and casts inside active expressions at `order = 2`. Every Hessian is
//! checked against central differences of `f_grad` at many random points, and against its formula.

// Index loops, local `Vec`s and a `&Vec` parameter are the constructs under test.
#![allow(clippy::needless_range_loop, clippy::useless_vec, clippy::ptr_arg)]

mod common;

use autodiff::differentiable;
use common::probe::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

const POINTS: usize = 40;

// ---------------------------------------------------------------------------------------------------
// 1. Roots, powers and logarithms at 0.

#[differentiable(order = 2)]
fn root(x: f64) -> f64 {
    x.sqrt()
}

#[differentiable(order = 2)]
fn half_power(x: f64) -> f64 {
    x.powf(0.5)
}

#[differentiable(order = 2)]
fn cube_root(x: f64) -> f64 {
    x.cbrt()
}

#[differentiable(order = 2)]
fn log(x: f64) -> f64 {
    x.ln()
}

#[differentiable(order = 2)]
fn absolute(x: f64) -> f64 {
    x.abs()
}

/// The root scaled: the cotangent reaching `sqrt` is 3, not the seed 1.
#[differentiable(order = 2)]
fn scaled_root(x: f64) -> f64 {
    3.0 * x.sqrt() + x
}

/// Two inputs through every rule of this part.
#[differentiable(order = 2)]
fn mixed(x: f64, y: f64) -> f64 {
    x.sqrt() * y + y.powf(0.5) * x.cbrt() + (x * y).ln() + x.powf(1.5) * y.abs()
}

#[differentiable(order = 3)]
fn root3(x: f64) -> f64 {
    x.sqrt()
}

/// The values of `f_derivatives` at 0, each against the limit of the formula, where the limit exists
/// (JAX's `grad(grad(f))` at 0, float64, gives the same).
#[test]
fn second_derivatives_at_zero_are_the_limits() {
    assert_eq!(
        root_derivatives(0.0),
        [0.0, f64::INFINITY, f64::NEG_INFINITY]
    );
    // `-0.0`: the root is `-0.0`; slope and curvature as at `+0.0` (sqrt has no left side).
    assert_eq!(
        root_derivatives(-0.0)[1..],
        [f64::INFINITY, f64::NEG_INFINITY]
    );
    assert_eq!(
        half_power_derivatives(0.0),
        [0.0, f64::INFINITY, f64::NEG_INFINITY]
    );
    assert_eq!(
        cube_root_derivatives(0.0),
        [0.0, f64::INFINITY, f64::NEG_INFINITY]
    );
    // cbrt'' = -2 / (9 x^(5/3)) is positive for x < 0: its limit from the left is +inf.
    assert_eq!(
        cube_root_derivatives(-0.0)[1..],
        [f64::INFINITY, f64::INFINITY]
    );
    assert_eq!(
        log_derivatives(0.0),
        [f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY]
    );
    assert_eq!(
        log_derivatives(-0.0)[1..],
        [f64::NEG_INFINITY, f64::NEG_INFINITY]
    );
    // abs: slope 1 at +0.0 and -1 at -0.0 (docs/conventions.md), curvature 0 on both.
    assert_eq!(absolute_derivatives(0.0), [absolute(0.0), 1.0, 0.0]);
    assert_eq!(absolute_derivatives(-0.0)[1..], [-1.0, 0.0]);
    assert_eq!(
        scaled_root_derivatives(0.0),
        [0.0, f64::INFINITY, f64::NEG_INFINITY]
    );
    // The Hessian and the Hessian-vector product agree with f_derivatives.
    let (_, g, h) = root_hessian(0.0);
    assert_eq!((g, h[0][0]), (f64::INFINITY, f64::NEG_INFINITY));
    let (_, _, hv) = root_hvp(0.0, 1.0);
    assert_eq!(hv, f64::NEG_INFINITY);
    let (_, _, h) = half_power_hessian(0.0);
    assert_eq!(h[0][0], f64::NEG_INFINITY);
    // The first order at 0 is as before: +inf, and a zero tangent gives 0.
    assert_eq!(root_grad(0.0), (0.0, f64::INFINITY));
    assert_eq!(root_jvp(0.0, 0.0), (0.0, 0.0));
    assert_eq!(half_power_grad(0.0), (0.0, f64::INFINITY));
    assert_eq!(
        half_power_vjp(0.0, 0.0),
        (0.0, 0.0),
        "a zero adjoint meets the infinite slope as 0"
    );
    assert_eq!(cube_root_grad(0.0), (0.0, f64::INFINITY));
}

#[test]
fn third_derivative_of_the_root() {
    // sqrt''' = 3 / (8 x^(5/2)).
    let mut rng = Lcg::new(seed_of("root3"));
    for _ in 0..POINTS {
        let x = rng.uniform(0.05, 4.0);
        let d = root3_derivatives(x);
        assert_eq!(d[0], root3(x));
        assert_near(d[1], 0.5 / x.sqrt(), 1e-12, 1.0, "sqrt'");
        assert_near(d[2], -0.25 * x.powf(-1.5), 1e-12, 1.0, "sqrt''");
        assert_near(d[3], 0.375 * x.powf(-2.5), 1e-12, 1.0, "sqrt'''");
    }
}

#[test]
fn roots_powers_and_logarithms_away_from_zero() {
    one("root", root, root_grad, root_jvp, root_grad_into)
        .hessian(hess1(root_hessian, root_derivatives))
        .analytic(|x| vec![0.5 / x[0].sqrt()])
        .run(POINTS, range(1, 0.05, 5.0));
    one(
        "half_power",
        half_power,
        half_power_grad,
        half_power_jvp,
        half_power_grad_into,
    )
    .hessian(hess1(half_power_hessian, half_power_derivatives))
    .analytic(|x| vec![0.5 / x[0].sqrt()])
    .run(POINTS, range(1, 0.05, 5.0));
    one(
        "cube_root",
        cube_root,
        cube_root_grad,
        cube_root_jvp,
        cube_root_grad_into,
    )
    .hessian(hess1(cube_root_hessian, cube_root_derivatives))
    .analytic(|x| vec![1.0 / (3.0 * x[0].cbrt().powi(2))])
    .run(POINTS, away_from(1, -5.0, 5.0, 100.0, 0.0));
    one("log", log, log_grad, log_jvp, log_grad_into)
        .hessian(hess1(log_hessian, log_derivatives))
        .analytic(|x| vec![1.0 / x[0]])
        .run(POINTS, range(1, 0.05, 5.0));
    one(
        "scaled_root",
        scaled_root,
        scaled_root_grad,
        scaled_root_jvp,
        scaled_root_grad_into,
    )
    .hessian(hess1(scaled_root_hessian, scaled_root_derivatives))
    .analytic(|x| vec![1.5 / x[0].sqrt() + 1.0])
    .run(POINTS, range(1, 0.05, 5.0));
    two("mixed", mixed, mixed_grad, mixed_jvp, mixed_grad_into)
        .hessian(hess2(mixed_hessian))
        .run(POINTS, away_from(2, 0.05, 4.0, 100.0, 0.0));
    // The formulas of the second derivatives, at random points.
    let mut rng = Lcg::new(seed_of("formulas"));
    for _ in 0..POINTS {
        let x = rng.uniform(0.05, 5.0);
        let what = format!("at {x}");
        assert_near(
            root_derivatives(x)[2],
            -0.25 * x.powf(-1.5),
            1e-12,
            1.0,
            &what,
        );
        assert_near(
            half_power_derivatives(x)[2],
            -0.25 * x.powf(-1.5),
            1e-12,
            1.0,
            &what,
        );
        assert_near(log_derivatives(x)[2], -1.0 / (x * x), 1e-12, 1.0, &what);
        let c = rng.uniform(-5.0, 5.0);
        assert_near(
            cube_root_derivatives(c)[2],
            -2.0 / (9.0 * c.cbrt().powi(5)),
            1e-12,
            1.0,
            &format!("cbrt'' at {c}"),
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 2. `copy_from_slice`, `clone_from_slice` and `fill` in callees without `order = K`: their generic copies.

/// Copies of the whole input and of a local, then an update in place.
#[differentiable]
fn copied_energy(x: &[f64]) -> f64 {
    let mut u = vec![0.0; x.len()];
    u.copy_from_slice(x);
    u[0] *= 2.0;
    let mut w = vec![0.0; x.len()];
    w.copy_from_slice(&u);
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * w[i] * x[i];
    }
    s
}

/// Sub-slice copies, a clone and a fill of a sub-slice with an active value.
#[differentiable]
fn windowed(x: &[f64]) -> f64 {
    let mut u = [0.0; 3];
    u[1..].copy_from_slice(&x[..2]);
    u[0] = x[2].sin();
    let mut v = vec![0.0; 2];
    v.clone_from_slice(&x[1..3]);
    v[1..].fill(x[0] * x[1]);
    u[0] * u[1] * u[2] + v[0] * v[1]
}

/// An output parameter copied into, in a helper returning `()`.
#[differentiable]
fn shifted(x: &[f64], out: &mut [f64]) {
    out[0] = x[2];
    out[1..].copy_from_slice(&x[..2]);
}

#[differentiable(order = 2)]
fn through_copies(x: &[f64]) -> f64 {
    let mut o = [0.0; 3];
    shifted(x, &mut o);
    copied_energy(x) + windowed(x).exp() + o[0] * o[1] * o[2].cos()
}

fn through_copies_by_hand(x: &[f64]) -> Vec<f64> {
    // copied_energy = 4 x0^3 + x1^3 + x2^3.
    let e = [12.0 * x[0] * x[0], 3.0 * x[1] * x[1], 3.0 * x[2] * x[2]];
    // windowed = sin(x2) x0 x1 + x1 x0 x1.
    let w = x[2].sin() * x[0] * x[1] + x[0] * x[1] * x[1];
    let dw = [
        x[2].sin() * x[1] + x[1] * x[1],
        x[2].sin() * x[0] + 2.0 * x[0] * x[1],
        x[2].cos() * x[0] * x[1],
    ];
    // o = (x2, x0, x1): x2 x0 cos(x1).
    let o = [
        x[2] * x[1].cos(),
        -x[2] * x[0] * x[1].sin(),
        x[0] * x[1].cos(),
    ];
    (0..3).map(|i| e[i] + w.exp() * dw[i] + o[i]).collect()
}

#[test]
fn copies_in_callees_at_order_2() {
    slice(
        "through_copies",
        through_copies,
        through_copies_grad,
        through_copies_jvp,
        through_copies_grad_into,
    )
    .hessian(hess_slice(through_copies_hessian))
    .analytic(through_copies_by_hand)
    .run(POINTS, range(3, -1.5, 1.5));
    // The callees' own first order is unchanged.
    slice(
        "copied_energy",
        copied_energy,
        copied_energy_grad,
        copied_energy_jvp,
        copied_energy_grad_into,
    )
    .run(POINTS, range(3, -1.5, 1.5));
    slice(
        "windowed",
        windowed,
        windowed_grad,
        windowed_jvp,
        windowed_grad_into,
    )
    .run(POINTS, range(3, -1.5, 1.5));
}

// ---------------------------------------------------------------------------------------------------
// 3. A sub-slice receiver out of range panics as taking the sub-slice does, before anything is written.

#[differentiable]
fn local_window(x: &[f64], k: usize) -> f64 {
    let mut u = [0.0; 4];
    u[k..k + 3].copy_from_slice(&x[..3]);
    u[0] * u[1] + u[2] * u[3]
}

#[differentiable]
fn filled_window(x: &[f64], k: usize) -> f64 {
    let mut u = vec![1.0; 4];
    u[k..].fill(x[0] * x[1]);
    u[0] * u[3] + x[2]
}

#[differentiable(order = 2)]
fn local_window_o2(x: &[f64], k: usize) -> f64 {
    let mut u = [0.0; 4];
    u[k..k + 3].copy_from_slice(&x[..3]);
    u[0] * u[1] + u[2] * u[3]
}

#[differentiable]
fn into_window(x: &[f64], out: &mut [f64]) {
    out[1..4].copy_from_slice(&x[..3]);
}

/// Runs `f`, which must panic with a message containing `expected`.
#[track_caller]
fn assert_panics(expected: &str, f: impl FnOnce()) {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("no panic");
    let message = err
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        message.contains(expected),
        "panicked with {message:?}, not {expected:?}"
    );
}

#[test]
fn receivers_out_of_range_panic_before_any_write() {
    let x = [0.5, -0.25, 2.0];
    let end = "range end index 5 out of range for slice of length 4";
    // In range: the gradient, and the Hessian of the copy at order 2.
    for k in 0..2 {
        let (v, g) = local_window_grad(&x, k);
        assert_eq!(v, local_window(&x, k));
        let fd = fd_gradient(&|x: &[f64]| local_window(x, k), &x);
        assert_vec_near(&g, &fd, 1e-6, "local_window");
        let (_, g2, h) = local_window_o2_hessian(&x, k);
        assert_vec_near(&g2, &g, 1e-12, "local_window_o2's gradient");
        let columns = fd_columns(&|y: &[f64]| local_window_o2_grad(y, k).1, &x);
        for i in 0..3 {
            for j in 0..3 {
                assert_near(
                    h[i][j],
                    columns[j][i],
                    1e-6,
                    1.0,
                    "local_window_o2's Hessian",
                );
            }
        }
    }
    assert_panics(end, || {
        local_window(&x, 2);
    });
    assert_panics(end, || {
        local_window_grad(&x, 2);
    });
    assert_panics(end, || {
        local_window_vjp(&x, 2, 1.0);
    });
    assert_panics(end, || {
        local_window_jvp(&x, 2, vec![1.0; 3]);
    });
    assert_panics(end, || {
        local_window_o2_hessian(&x, 2);
    });
    assert_panics(end, || {
        local_window_o2_hvp(&x, 2, vec![1.0; 3]);
    });
    // The gradient buffer is only cleared (as `_grad_into` does first, before the body): the panic comes
    // before the sweeps write anything into it.
    let mut g = [7.0; 3];
    assert_panics(end, || {
        local_window_grad_into(&x, 2, &mut g);
    });
    assert_eq!(g, [0.0; 3]);

    let start = "range start index 5 out of range for slice of length 4";
    assert_panics(start, || {
        filled_window(&x, 5);
    });
    assert_panics(start, || {
        filled_window_grad(&x, 5);
    });
    assert_panics(start, || {
        filled_window_jvp(&x, 5, vec![1.0; 3]);
    });
    let mut g = [7.0; 3];
    assert_panics(start, || {
        filled_window_grad_into(&x, 5, &mut g);
    });
    assert_eq!(g, [0.0; 3]);
    let (v, g) = filled_window_grad(&x, 4);
    assert_eq!(v, filled_window(&x, 4));
    assert_vec_near(&g, &[0.0, 0.0, 1.0], 1e-15, "filled_window, nothing filled");
    let (_, g) = filled_window_grad(&x, 3);
    assert_vec_near(&g, &[x[1], x[0], 1.0], 1e-15, "filled_window, u[3] filled");

    // An output parameter: left as it was, as the function leaves it.
    let end = "range end index 4 out of range for slice of length 3";
    let mut out = [7.0; 3];
    assert_panics(end, || into_window(&x, &mut out));
    assert_eq!(out, [7.0; 3]);
    assert_panics(end, || {
        into_window_vjp(&x, &mut out, &[1.0; 3]);
    });
    assert_eq!(out, [7.0; 3]);
    // The tangent buffer is cleared first, as `_jvp` does before the body, and nothing more.
    let mut d_out = [7.0; 3];
    assert_panics(end, || {
        into_window_jvp(&x, &mut out, vec![1.0; 3], &mut d_out);
    });
    assert_eq!((out, d_out), ([7.0; 3], [0.0; 3]));
}

// ---------------------------------------------------------------------------------------------------
// 4. Slices of tuples as data, and integer casts inside active expressions, at `order = 2`.

/// A sparse vector `(index, value)` dotted with the squares of `w`.
#[differentiable(order = 2)]
fn sparse_squares(w: &[f64], r: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for &(i, v) in r {
        s += w[i] * w[i] * v;
    }
    s
}

/// A graph's weighted edges `(i, j, c)` in a `&Vec`: destructured, and read by field.
#[differentiable(order = 2)]
fn edge_energy(w: &[f64], e: &Vec<(usize, usize, f64)>) -> f64 {
    let mut s = 0.0;
    for t in 0..e.len() {
        let (i, j, c) = e[t];
        s += c * (w[i] - w[j]).powi(2) + e[t].2 * w[e[t].0].sin();
    }
    s
}

/// An iterator chain over the tuples, and an enumerated loop with an index cast into the product.
#[differentiable(order = 2)]
fn mapped_tuples(w: &[f64], r: &[(usize, f64)]) -> f64 {
    let a = r.iter().map(|&(i, v)| w[i].exp() * v).sum::<f64>();
    let mut b = 0.0;
    for (k, (i, _)) in r.iter().enumerate() {
        b += w[*i] * k as f64;
    }
    a + b
}

/// Fixed arrays of tuples taken by value.
#[differentiable(order = 2)]
fn weighted_pairs(x: f64, r: [(f64, usize); 2], q: [(f64, f64); 2]) -> f64 {
    let mut s = 0.0;
    for k in 0..2 {
        let (c, p) = r[k];
        s += c * x.powi(p as i32) + q[k].0 * (q[k].1 * x).sin();
    }
    s
}

/// Integer casts inside active expressions: `i as f64`, `n as f64`, and a float truncated through an
/// integer (a constant).
#[differentiable(order = 2)]
fn cast_terms(x: f64, y: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let k = i as f64;
        s += k * x * y + (k + x).sin() * (n as f64) + (i as i32 + 1) as f64 * y * y;
    }
    let whole = (x * 3.0) as i64 as f64;
    s + whole * y * x
}

#[test]
fn tuple_slices_at_order_2() {
    let r = vec![(0usize, 1.5), (2, -0.5), (0, 2.0), (3, 0.25)];
    let e = vec![(0usize, 1usize, 2.0), (1, 3, 0.5), (3, 2, -1.0)];
    Probe::new("sparse_squares", |w| sparse_squares(w, &r))
        .grad(|w| sparse_squares_grad(w, &r))
        .hessian(|w| sparse_squares_hessian(w, &r))
        .analytic(|w| {
            let mut g = vec![0.0; 4];
            for &(i, v) in &r {
                g[i] += 2.0 * w[i] * v;
            }
            g
        })
        .run(POINTS, range(4, -1.5, 1.5));
    // The Hessian exactly: diag(2 Σ v) per index.
    let (_, _, h) = sparse_squares_hessian(&[0.1, 0.2, 0.3, 0.4], &r);
    assert_eq!(h[0], [7.0, 0.0, 0.0, 0.0]);
    assert_eq!(h[1], [0.0; 4]);
    assert_eq!(h[2][2], -1.0);
    assert_eq!(h[3][3], 0.5);
    let (_, _, hv) = sparse_squares_hvp(&[0.1, 0.2, 0.3, 0.4], &r, vec![1.0, 1.0, 1.0, 1.0]);
    assert_eq!(hv, [7.0, 0.0, -1.0, 0.5]);

    Probe::new("edge_energy", |w| edge_energy(w, &e))
        .grad(|w| edge_energy_grad(w, &e))
        .hessian(|w| edge_energy_hessian(w, &e))
        .run(POINTS, range(4, -1.5, 1.5));
    Probe::new("mapped_tuples", |w| mapped_tuples(w, &r))
        .grad(|w| mapped_tuples_grad(w, &r))
        .hessian(|w| mapped_tuples_hessian(w, &r))
        .analytic(|w| {
            let mut g = vec![0.0; 4];
            for (k, &(i, v)) in r.iter().enumerate() {
                g[i] += w[i].exp() * v + k as f64;
            }
            g
        })
        .run(POINTS, range(4, -1.5, 1.5));

    let pairs = [(1.5, 2usize), (-0.5, 3)];
    let q = [(0.7, 1.3), (-1.1, 0.4)];
    let hessian = |x: &[f64]| {
        let (v, g, h) = weighted_pairs_hessian(x[0], pairs, q);
        (v, vec![g], h)
    };
    Probe::new("weighted_pairs", |x| weighted_pairs(x[0], pairs, q))
        .grad(|x| {
            let (v, g) = weighted_pairs_grad(x[0], pairs, q);
            (v, vec![g])
        })
        .hessian(hessian)
        .analytic(|x| {
            let x = x[0];
            vec![3.0 * x - 1.5 * x * x + 0.7 * 1.3 * (1.3 * x).cos() - 1.1 * 0.4 * (0.4 * x).cos()]
        })
        .run(POINTS, range(1, -2.0, 2.0));
    let mut rng = Lcg::new(seed_of("weighted_pairs_derivatives"));
    for _ in 0..POINTS {
        let x = rng.uniform(-2.0, 2.0);
        let d = weighted_pairs_derivatives(x, pairs, q);
        let second =
            3.0 - 3.0 * x - 0.7 * 1.3 * 1.3 * (1.3 * x).sin() + 1.1 * 0.4 * 0.4 * (0.4 * x).sin();
        assert_near(
            d[2],
            second,
            1e-12,
            1.0,
            &format!("weighted_pairs'' at {x}"),
        );
    }
}

#[test]
fn integer_casts_at_order_2() {
    for n in [0usize, 1, 4] {
        Probe::new("cast_terms", move |x| cast_terms(x[0], x[1], n))
            .grad(move |x| {
                let (v, (a, b)) = cast_terms_grad(x[0], x[1], n);
                (v, vec![a, b])
            })
            .hessian(move |x| {
                let (v, (a, b), h) = cast_terms_hessian(x[0], x[1], n);
                (v, vec![a, b], h)
            })
            .analytic(move |x| {
                let (x, y) = (x[0], x[1]);
                let whole = (x * 3.0) as i64 as f64;
                let (mut dx, mut dy) = (whole * y, whole * x);
                for i in 0..n {
                    let k = i as f64;
                    dx += k * y + (k + x).cos() * n as f64;
                    dy += k * x + 2.0 * (i as f64 + 1.0) * y;
                }
                vec![dx, dy]
            })
            .run(POINTS, away_from(2, -2.0, 2.0, 1.0 / 3.0, 0.0));
    }
}

/// An output parameter covered by a sub-slice copy and a sub-slice fill, at `order = 2`: the generic
/// copy's body (sub-slice receivers checked by `window_len`) must read the same incoming values as the
/// function's (none), or the Hessian's items do not compile (`tests/outputs20.rs::split_copy` in the
/// order-2 census).
#[differentiable(order = 2)]
fn split_copy_o2(x: &[f64], out: &mut [f64]) -> f64 {
    let k = 2;
    out[..k].copy_from_slice(&x[..k]);
    out[k..].fill(x[0] * x[1]);
    out[3] += out[0];
    out[1] * out[3]
}

#[test]
fn sub_slice_covered_output_at_order_2() {
    let mut g = common::Inputs(2204);
    for _ in 0..40 {
        let x = g.vec(3);
        let (a, b) = (x[0], x[1]);
        let mut out = [7.0; 5];
        let (v, grad, h) = split_copy_o2_hessian(&x, &mut out);
        // f = b (a b + a) = a b^2 + a b.
        let close = |p: f64, q: f64| (p - q).abs() <= 1e-12 * (1.0 + q.abs());
        assert!(close(v, a * b * b + a * b), "value at {x:?}");
        assert!(close(grad[0], b * b + b) && close(grad[1], 2.0 * a * b + a) && grad[2] == 0.0);
        let want = [
            [0.0, 2.0 * b + 1.0, 0.0],
            [2.0 * b + 1.0, 2.0 * a, 0.0],
            [0.0; 3],
        ];
        for i in 0..3 {
            for j in 0..3 {
                assert!(
                    close(h[i][j], want[i][j]),
                    "H[{i}][{j}] at {x:?}: {}",
                    h[i][j]
                );
            }
        }
        let mut plain = [7.0; 5];
        assert_eq!(
            v,
            split_copy_o2(&x, &mut plain),
            "value against the function at {x:?}"
        );
        assert_eq!(out, plain, "the outputs as the function writes them");
        assert_eq!(out, [a, b, a * b, a * b + a, a * b]);
    }
}
