//! Nested arrays deeper than a matrix, as parameters: `[[[T; K]; M]; N]` (by value and by reference, `f32`,
//! `f64` and generic) and `Vec`s of `Vec`s of `Vec`s (`&[Vec<Vec<T>>]`, `Vec<Vec<Vec<T>>>`, ragged), read
//! `x[i][j][k]`, asked their lengths at every level, their rows of floats passed to calls and iterated
//! (also by reference at `order = 2`), passed whole to calls, copied and written; and made in the body
//! (`[[[0.0; 2]; 3]; 2]`, written out, `vec![vec![vec![..; k]; m]; n]`). Gradients, tangents,
//! Hessians and Jacobians are checked against derivatives by hand and central finite differences of the
//! primal, flattened row-major as API.md says, on random inputs and shapes.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{
    assert_all_close, assert_close, assert_dot, assert_fd_gradient, assert_jacobian, config,
    fd_jacobian, hessian_column, ANALYTIC_TOL, ANALYTIC_TOL_F32,
};
use proptest::prelude::*;

/// A function ported from Enzyme's tests, over a `2 x 2 x 2` cube of `f32` taken by value:
/// `Σ (i + 2j + 3k + 1) x[i][j][k]² + x[0][1][1] x[1][0][0]`.
#[differentiable]
fn enzyme_cube(x: [[[f32; 2]; 2]; 2]) -> f32 {
    let mut s = 0.0;
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..2 {
                s += (i + 2 * j + 3 * k + 1) as f32 * x[i][j][k] * x[i][j][k];
            }
        }
    }
    s + x[0][1][1] * x[1][0][0]
}

/// A `2 x 3 x 2` array by reference, with lengths asked at every level, a row of floats passed to a call
/// (of a generic function of another crate, `adlib::weighted_sines`: `Σ aᵢ sin(bᵢ)`) and another iterated
/// by reference; taken to second order.
#[differentiable(order = 2)]
fn field(x: &[[[f64; 2]; 3]; 2], w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        for j in 0..x[i].len() {
            for k in 0..x[i][j].len() {
                s += (x[i][j][k] * w).sin() * x[1 - i][j][k];
            }
            s += adlib::weighted_sines(&x[i][j], &[w, 1.0]).powi(2);
        }
    }
    for v in x[1][2].iter() {
        s += v * v * w;
    }
    s
}

/// The same sum of squares, generic over the float type.
#[differentiable(order = 2)]
fn cube_generic<T: Float>(x: &[[[T; 2]; 2]; 2]) -> T {
    let mut s = T::zero();
    for i in 0..2 {
        for j in 0..2 {
            s = s + x[i][j][0] * x[i][j][1] + (x[1 - i][j][0] * x[i][1 - j][1]).sin();
        }
    }
    s
}

/// `Σ (k + 1) v[i][j][k]³` over a ragged array, its rows iterated by value.
#[differentiable]
fn ragged_total(v: &[Vec<Vec<f64>>]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        for j in 0..v[i].len() {
            let mut k = 0.0;
            for &a in &v[i][j] {
                k += 1.0;
                s += k * a * a * a;
            }
        }
    }
    s
}

/// An owned ragged array, passed whole to a call, its rows to another, and a copy written.
#[differentiable(order = 2)]
fn ragged_owned(v: Vec<Vec<Vec<f64>>>, w: &[f64]) -> f64 {
    let mut s = ragged_total(&v);
    let mut y = v.clone();
    for i in 0..v.len() {
        for j in 0..v[i].len() {
            s += adlib::weighted_sines(&v[i][j], w).tanh();
            y[i][j][0] = y[i][j][0] * w[1] + s * 0.1;
        }
    }
    for i in 0..y.len() {
        for j in 0..y[i].len() {
            s += y[i][j][0] * y[i][j][y[i][j].len() - 1];
        }
    }
    s
}

/// Read by a function without `order = K`, which the `order = 2` caller below reaches through its
/// generic copy.
#[differentiable]
fn corners(x: &[[[f64; 2]; 2]; 2]) -> f64 {
    x[0][1][1] * x[1][0][0] + x[1][1][0].exp()
}

#[differentiable(order = 2)]
fn corners_caller(x: &[[[f64; 2]; 2]; 2], a: f64) -> f64 {
    corners(x) * a + cube_generic(x)
}

/// A vector output of a nested array, for `f_jacobian` (columns row-major).
#[differentiable]
fn slabs(x: &[[[f64; 2]; 2]; 2]) -> Vec<f64> {
    let mut out = vec![0.0; 2];
    for i in 0..2 {
        out[i] = x[i][0][0] * x[i][1][1] - x[i][0][1].sin() * x[1 - i][1][0];
    }
    out
}

/// Nested arrays deeper than a matrix made in the body: a Rust array of zeros filled by a loop nest, one
/// written out, and a `Vec` of `Vec`s of `Vec`s of a length `n`, written `+=`; taken to second order.
#[differentiable(order = 2)]
fn deep_locals(x: &[f64], n: usize) -> f64 {
    let mut t = [[[0.0; 2]; 3]; 2];
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..2 {
                t[i][j][k] = x[(i + j + k) % x.len()] * (k as f64 + 1.0);
            }
        }
    }
    let w = [
        [[x[0], x[1]], [x[1], x[0]]],
        [[x[0] * x[1], 1.0], [2.0, x[1]]],
    ];
    let mut v = vec![vec![vec![x[0]; 2]; n]; 2];
    v[1][n - 1][1] += x[1].sin() * x[0];
    let mut s = 0.0;
    for i in 0..t.len() {
        for j in 0..t[i].len() {
            for k in 0..t[i][j].len() {
                s += t[i][j][k] * t[1 - i][j][k];
            }
        }
    }
    for i in 0..2 {
        for j in 0..2 {
            s += w[i][j][0] * w[j][i][1];
        }
    }
    s + v[1][n - 1][1] * v[0][0][0] + (v.len() * v[1].len()) as f64
}

type Cube = [[[f64; 2]; 3]; 2];

fn cube_from(flat: &[f64]) -> Cube {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| std::array::from_fn(|k| flat[i * 6 + j * 2 + k]))
    })
}

fn small_from(flat: &[f64]) -> [[[f64; 2]; 2]; 2] {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| std::array::from_fn(|k| flat[i * 4 + j * 2 + k]))
    })
}

fn flat_of<const K: usize, const M: usize, const N: usize>(x: &[[[f64; K]; M]; N]) -> Vec<f64> {
    x.iter().flatten().flatten().copied().collect()
}

fn ragged_from(shape: &[Vec<usize>], flat: &[f64]) -> Vec<Vec<Vec<f64>>> {
    let mut k = 0;
    shape
        .iter()
        .map(|rows| {
            rows.iter()
                .map(|&n| {
                    k += n;
                    flat[k - n..k].to_vec()
                })
                .collect()
        })
        .collect()
}

fn ragged_flat(v: &[Vec<Vec<f64>>]) -> Vec<f64> {
    v.iter().flatten().flatten().copied().collect()
}

/// Shapes of ragged arrays: up to three slabs of up to three rows of one to four floats, and the floats.
fn ragged_inputs() -> impl Strategy<Value = (Vec<Vec<usize>>, Vec<f64>)> {
    prop::collection::vec(prop::collection::vec(1usize..5, 0..4), 0..4).prop_flat_map(|shape| {
        let n = shape.iter().flatten().sum::<usize>();
        (Just(shape), prop::collection::vec(-1.5..1.5f64, n))
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn enzyme_cube_f32_against_its_derivative(flat in prop::collection::vec(-2.0..2.0f32, 8), t in prop::collection::vec(-1.0..1.0f32, 8)) {
        let at = |flat: &[f32]| -> [[[f32; 2]; 2]; 2] {
            std::array::from_fn(|i| std::array::from_fn(|j| std::array::from_fn(|k| flat[i * 4 + j * 2 + k])))
        };
        let x = at(&flat);
        let mut partials = vec![0.0f64; 8];
        for n in 0..8 {
            let (i, j, k) = (n / 4, n / 2 % 2, n % 2);
            partials[n] = 2.0 * (i + 2 * j + 3 * k + 1) as f64 * f64::from(flat[n]);
        }
        partials[3] += f64::from(flat[4]);
        partials[4] += f64::from(flat[3]);
        let (value, grad) = enzyme_cube_grad(x);
        prop_assert_eq!(value, enzyme_cube(x));
        let grad: Vec<f64> = grad.iter().flatten().flatten().map(|&g| f64::from(g)).collect();
        assert_all_close(&grad, &partials, ANALYTIC_TOL_F32, "enzyme_cube_grad");
        let (_, vjp) = enzyme_cube_vjp(x, -1.5);
        let vjp: Vec<f64> = vjp.iter().flatten().flatten().map(|&g| f64::from(g)).collect();
        let scaled: Vec<f64> = partials.iter().map(|p| -1.5 * p).collect();
        assert_all_close(&vjp, &scaled, ANALYTIC_TOL_F32, "enzyme_cube_vjp");
        let (value, jvp) = enzyme_cube_jvp(x, at(&t));
        prop_assert_eq!(value, enzyme_cube(x));
        let t: Vec<f64> = t.iter().map(|&v| f64::from(v)).collect();
        assert_dot(f64::from(jvp), &partials, &t, ANALYTIC_TOL_F32, "enzyme_cube_jvp");
    }

    #[test]
    fn field_first_and_second_order(flat in prop::collection::vec(-1.5..1.5f64, 12), w in -1.5..1.5f64, t in prop::collection::vec(-1.0..1.0f64, 13)) {
        let x = cube_from(&flat);
        let primal = |p: &[f64]| field(&cube_from(&p[..12]), p[12]);
        let at = [flat.clone(), vec![w]].concat();
        let (value, (gx, gw)) = field_grad(&x, w);
        prop_assert_eq!(value, field(&x, w));
        let grad = [flat_of(&gx), vec![gw]].concat();
        assert_fd_gradient(primal, &at, &grad, "field_grad");

        let (value, jvp) = field_jvp(&x, w, (cube_from(&t[..12]), t[12]));
        prop_assert_eq!(value, field(&x, w));
        assert_dot(jvp, &grad, &t, ANALYTIC_TOL, "field_jvp");

        // The Hessian, row-major over (x[0][0][0], .., x[1][2][1], w), against differences of the gradient.
        let gradient = |p: &[f64]| {
            let (_, (gx, gw)) = field_grad(&cube_from(&p[..12]), p[12]);
            [flat_of(&gx), vec![gw]].concat()
        };
        let (value, (hx, hw), hessian) = field_hessian(&x, w);
        prop_assert_eq!(value, field(&x, w));
        assert_all_close(&[flat_of(&hx), vec![hw]].concat(), &grad, ANALYTIC_TOL, "field_hessian's gradient");
        prop_assert_eq!(hessian.len(), 13);
        for i in 0..13 {
            assert_all_close(&hessian[i], &hessian_column(gradient, &at, i), 1e-5, &format!("field_hessian column {i}"));
        }
        let (_, _, (vx, vw)) = field_hvp(&x, w, (cube_from(&t[..12]), t[12]));
        let expected: Vec<f64> = (0..13).map(|i| common::dot(&hessian[i], &t)).collect();
        assert_all_close(&[flat_of(&vx), vec![vw]].concat(), &expected, 1e-9, "field_hvp");
    }

    #[test]
    fn generic_cube_on_f64_f32_and_its_caller(flat in prop::collection::vec(-1.5..1.5f64, 8), a in -2.0..2.0f64) {
        let x = small_from(&flat);
        let (value, g) = cube_generic_grad(&x);
        prop_assert_eq!(value, cube_generic(&x));
        let primal = |p: &[f64]| cube_generic(&small_from(p));
        assert_fd_gradient(primal, &flat, &flat_of(&g), "cube_generic_grad");
        let x32 = x.map(|s| s.map(|r| r.map(|v| v as f32)));
        let (_, g32) = cube_generic_grad(&x32);
        let g32: Vec<f64> = g32.iter().flatten().flatten().map(|&v| f64::from(v)).collect();
        assert_all_close(&g32, &flat_of(&cube_generic_grad(&x32.map(|s| s.map(|r| r.map(f64::from)))).1), ANALYTIC_TOL_F32, "cube_generic_grad on f32");

        // Through `corners`' generic copy: the Hessian over (x.., a) against differences of the gradient.
        let at = [flat.clone(), vec![a]].concat();
        let gradient = |p: &[f64]| {
            let (_, (gx, ga)) = corners_caller_grad(&small_from(&p[..8]), p[8]);
            [flat_of(&gx), vec![ga]].concat()
        };
        let (value, _, hessian) = corners_caller_hessian(&x, a);
        prop_assert_eq!(value, corners_caller(&x, a));
        assert_fd_gradient(|p: &[f64]| corners_caller(&small_from(&p[..8]), p[8]), &at, &gradient(&at), "corners_caller_grad");
        for i in 0..9 {
            assert_all_close(&hessian[i], &hessian_column(gradient, &at, i), 1e-5, &format!("corners_caller_hessian column {i}"));
        }
    }

    #[test]
    fn ragged_arrays((shape, flat) in ragged_inputs(), w0 in -1.0..1.0f64, w1 in -1.0..1.0f64) {
        let v = ragged_from(&shape, &flat);
        // `ragged_total` by hand: 3 (k + 1) v².
        let mut partials = Vec::new();
        for row in v.iter().flatten() {
            for (k, a) in row.iter().enumerate() {
                partials.push(3.0 * (k as f64 + 1.0) * a * a);
            }
        }
        let (value, g) = ragged_total_grad(&v);
        prop_assert_eq!(value, ragged_total(&v));
        assert_all_close(&ragged_flat(&g), &partials, ANALYTIC_TOL, "ragged_total_grad");
        prop_assert_eq!(g.iter().map(Vec::len).collect::<Vec<_>>(), v.iter().map(Vec::len).collect::<Vec<_>>());

        // Rows of up to four floats against a `w` of four.
        let w = [w0, w1, 0.5, -0.25];
        let primal = |p: &[f64]| ragged_owned(ragged_from(&shape, &p[..flat.len()]), &p[flat.len()..]);
        let at = [flat.clone(), w.to_vec()].concat();
        let (value, (gv, gw)) = ragged_owned_grad(v.clone(), &w);
        prop_assert_eq!(value, ragged_owned(v.clone(), &w));
        let grad = [ragged_flat(&gv), gw].concat();
        assert_fd_gradient(primal, &at, &grad, "ragged_owned_grad");
        let tangent: Vec<f64> = (0..at.len()).map(|i| ((i * 7 % 5) as f64 - 2.0) * 0.3).collect();
        let (_, jvp) = ragged_owned_jvp(v.clone(), &w, (ragged_from(&shape, &tangent[..flat.len()]), tangent[flat.len()..].to_vec()));
        assert_dot(jvp, &grad, &tangent, 1e-9, "ragged_owned_jvp");
        let gradient = |p: &[f64]| {
            let (_, (gv, gw)) = ragged_owned_grad(ragged_from(&shape, &p[..flat.len()]), &p[flat.len()..]);
            [ragged_flat(&gv), gw].concat()
        };
        let (_, _, hessian) = ragged_owned_hessian(v.clone(), &w);
        prop_assert_eq!(hessian.len(), at.len());
        for i in 0..at.len() {
            assert_all_close(&hessian[i], &hessian_column(gradient, &at, i), 1e-5, &format!("ragged_owned_hessian column {i}"));
        }
    }

    #[test]
    fn nested_arrays_made_in_the_body(x in prop::collection::vec(-1.5..1.5f64, 2), n in 1usize..4) {
        let primal = |p: &[f64]| deep_locals(p, n);
        let grad = |p: &[f64]| deep_locals_grad(p, n).1;
        let (value, g) = deep_locals_grad(&x, n);
        prop_assert_eq!(value, deep_locals(&x, n));
        assert_fd_gradient(primal, &x, &g, "deep_locals_grad");
        let (_, jvp) = deep_locals_jvp(&x, n, vec![0.5, -1.0]);
        assert_dot(jvp, &g, &[0.5, -1.0], ANALYTIC_TOL, "deep_locals_jvp");
        let (_, _, hessian) = deep_locals_hessian(&x, n);
        for i in 0..2 {
            assert_all_close(&hessian[i], &hessian_column(grad, &x, i), 1e-5, &format!("deep_locals_hessian column {i}"));
        }
    }

    #[test]
    fn jacobian_columns_are_row_major(flat in prop::collection::vec(-1.5..1.5f64, 8)) {
        let x = small_from(&flat);
        let jacobian = slabs_jacobian(&x);
        let expected = fd_jacobian(|p: &[f64]| slabs(&small_from(p)), &flat);
        assert_jacobian(&jacobian, &expected, "slabs_jacobian");
        // By hand: output 0 in x[0][0][0] is x[0][1][1].
        assert_close(jacobian[0][0], flat[3], ANALYTIC_TOL, "d out[0] / d x[0][0][0]");
    }
}
