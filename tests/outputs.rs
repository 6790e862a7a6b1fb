//! Output parameters (`&mut [T]`): written by the body, their final values are part of the result.
//! `f_vjp` takes a cotangent per output after `d_ret`, `f_jvp` writes each output's tangent into a buffer;
//! checked against Jacobians worked out by hand and central finite differences.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_jacobian, central_difference,
    config, fd_jacobian,
};
use proptest::prelude::*;

/// Lotka-Volterra's right-hand side, as an ODE solver wants it: the result written into `dydt`.
#[differentiable]
fn lotka_volterra(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dydt[1] = p[2] * y[0] * y[1] - p[3] * y[1];
}

/// A residual with a returned norm: both results.
#[differentiable]
fn residual(x: &[f64], r: &mut [f64]) -> f64 {
    let mut norm = 0.0;
    for i in 0..x.len() {
        r[i] = x[i] * x[i] - 2.0;
        norm += r[i] * r[i];
    }
    norm
}

/// An output whose incoming value is read (`+=`): it is an input too, with a gradient.
#[differentiable]
fn accumulate_into(a: f64, acc: &mut [f64; 3]) {
    for i in 0..3 {
        acc[i] += a * (i as f64 + 1.0);
    }
    acc[0] *= a;
}

fn lv_jacobian(y: &[f64], p: &[f64]) -> [[f64; 6]; 2] {
    // columns: y0, y1, p0, p1, p2, p3
    [
        [
            p[0] - p[1] * y[1],
            -p[1] * y[0],
            y[0],
            -y[0] * y[1],
            0.0,
            0.0,
        ],
        [
            p[2] * y[1],
            p[2] * y[0] - p[3],
            0.0,
            0.0,
            y[0] * y[1],
            -y[1],
        ],
    ]
}

/// An output written whole by a loop over `0..y.len()` before anything reads it (`fill!(y, 0)`), then
/// built from itself: its incoming value is no input (API.md: "an input only if the body reads it before
/// writing it"), so `_vjp`'s gradient is `x`'s alone. `y[1] = s²`, `y[2] = (s + s²)²`, `s = sin x`.
#[differentiable]
fn prefix_squares(y: &mut [f64], x: f64) {
    for i in 0..y.len() {
        y[i] = 0.0;
    }
    for i in 1..y.len() {
        y[i] = (x.sin() + y[i - 1]).powi(2);
    }
}

/// A scratch buffer written whole (each entry after a `let` of the iteration) and read back: `f_grad` and
/// `f_hessian` are in `x` alone. `f = Σ x³`.
#[differentiable(order = 2)]
fn scratch_cubes(x: &[f64], work: &mut [f64]) -> f64 {
    for i in 0..work.len() {
        let sq = x[i] * x[i];
        work[i] = sq;
    }
    let mut s = 0.0;
    for i in 0..work.len() {
        s += work[i] * x[i];
    }
    s
}

/// Not written whole: the loop may skip an entry (`continue` before the write), so the incoming value stays
/// an input, read by the second loop: `y[1] = y₁ x`, `y[i] = i x²` otherwise.
#[differentiable]
fn skips_one(y: &mut [f64], x: f64) {
    for i in 0..y.len() {
        if i == 1 {
            continue;
        }
        y[i] = x * i as f64;
    }
    for i in 0..y.len() {
        y[i] *= x;
    }
}

/// Not written whole either: the loop starts at 1, so `y[0]`'s incoming value is read: `y[0] = y₀ x`.
#[differentiable]
fn from_one(y: &mut [f64], x: f64) {
    for i in 1..y.len() {
        y[i] = x;
    }
    for i in 0..y.len() {
        y[i] *= x;
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn an_output_written_whole_by_a_loop_is_no_input(x in -2.0f64..2.0, c in proptest::array::uniform3(-1.0f64..1.0)) {
        let (s, ds) = (x.sin(), x.cos());
        let want = [0.0, s * s, (s + s * s).powi(2)];
        let dwant = [0.0, 2.0 * s * ds, 2.0 * (s + s * s) * (1.0 + 2.0 * s) * ds];
        // Whatever the buffer holds when called (NaN would show any use of it).
        let mut y = vec![f64::NAN; 3];
        // The gradient is `x`'s alone: an `f64`, not a tuple with the buffer's.
        let gx: f64 = prefix_squares_vjp(&mut y, x, &c);
        assert_all_close(&y, &want, 1e-12, "prefix_squares_vjp's outputs");
        let by_hand: f64 = (0..3).map(|i| c[i] * dwant[i]).sum();
        assert_close(gx, by_hand, 1e-10, "prefix_squares_vjp");
        let at = |x: f64| {
            let mut y = vec![f64::NAN; 3];
            prefix_squares(&mut y, x);
            (0..3).map(|i| c[i] * y[i]).sum::<f64>()
        };
        assert_close(gx, central_difference(at, x), 1e-6, "prefix_squares_vjp against differences");
        let mut d = vec![f64::NAN; 3];
        prefix_squares_jvp(&mut [f64::NAN; 3], x, 1.0, &mut d);
        assert_all_close(&d, &dwant, 1e-10, "prefix_squares_jvp");
        let j = prefix_squares_jacobian(&mut [f64::NAN; 3], x);
        assert_all_close(&j.iter().map(|row| row[0]).collect::<Vec<_>>(), &dwant, 1e-10, "prefix_squares_jacobian");
    }

    #[test]
    fn a_scratch_buffer_written_whole_is_no_input(x in proptest::array::uniform3(-2.0f64..2.0)) {
        let mut work = vec![f64::NAN; 3];
        let (value, g): (f64, Vec<f64>) = scratch_cubes_grad(&x, &mut work);
        assert_close(value, x.iter().map(|v| v.powi(3)).sum(), 1e-12, "scratch_cubes");
        let by_hand: Vec<f64> = x.iter().map(|v| 3.0 * v * v).collect();
        assert_all_close(&g, &by_hand, 1e-12, "scratch_cubes_grad");
        assert_fd_gradient(|x| scratch_cubes(x, &mut [f64::NAN; 3]), &x, &g, "scratch_cubes");
        let (_, _, h) = scratch_cubes_hessian(&x, &mut [f64::NAN; 3]);
        let gradient = |x: &[f64]| scratch_cubes_grad(x, &mut [f64::NAN; 3]).1;
        assert_jacobian(&h, &fd_jacobian(gradient, &x), "scratch_cubes_hessian");
        for i in 0..3 {
            assert_close(h[i][i], 6.0 * x[i], 1e-12, "scratch_cubes_hessian's diagonal");
        }
    }

    #[test]
    fn an_output_not_written_whole_stays_an_input(x in -2.0f64..2.0, y0 in proptest::array::uniform3(-1.0f64..1.0), c in proptest::array::uniform3(-1.0f64..1.0)) {
        let mut y = y0.to_vec();
        skips_one(&mut y, x);
        assert_all_close(&y, &[0.0, y0[1] * x, 2.0 * x * x], 1e-12, "skips_one");
        let mut y = y0.to_vec();
        let (gy, gx): (Vec<f64>, f64) = skips_one_vjp(&mut y, x, &c);
        assert_all_close(&y, &[0.0, y0[1] * x, 2.0 * x * x], 1e-12, "skips_one_vjp's outputs");
        assert_all_close(&gy, &[0.0, c[1] * x, 0.0], 1e-12, "skips_one_vjp in y");
        assert_close(gx, c[1] * y0[1] + c[2] * 4.0 * x, 1e-12, "skips_one_vjp in x");
        let mut y = y0.to_vec();
        from_one(&mut y, x);
        assert_all_close(&y, &[y0[0] * x, x * x, x * x], 1e-12, "from_one");
        let mut y = y0.to_vec();
        let (gy, gx): (Vec<f64>, f64) = from_one_vjp(&mut y, x, &c);
        assert_all_close(&y, &[y0[0] * x, x * x, x * x], 1e-12, "from_one_vjp's outputs");
        assert_all_close(&gy, &[c[0] * x, 0.0, 0.0], 1e-12, "from_one_vjp in y");
        assert_close(gx, c[0] * y0[0] + 2.0 * x * (c[1] + c[2]), 1e-12, "from_one_vjp in x");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn lotka_volterra_vjp_and_jvp(
        y in prop::collection::vec(0.1f64..2.0, 2),
        p in prop::collection::vec(0.1f64..2.0, 4),
        d in prop::collection::vec(-1.0f64..1.0, 2),
        t in prop::collection::vec(-1.0f64..1.0, 6),
    ) {
        let jacobian = lv_jacobian(&y, &p);
        let mut out = [0.0; 2];
        let (dy, dp) = lotka_volterra_vjp(&y, &p, &mut out, &d);
        let mut expected_out = [0.0; 2];
        lotka_volterra(&y, &p, &mut expected_out);
        prop_assert_eq!(out, expected_out, "the vjp writes the outputs");
        let vjp: Vec<f64> = (0..6).map(|j| d[0] * jacobian[0][j] + d[1] * jacobian[1][j]).collect();
        assert_all_close(&[dy, dp].concat(), &vjp, 1e-12, "vjp");

        let mut tangent_out = [f64::NAN; 2];
        lotka_volterra_jvp(&y, &p, &mut out, (t[..2].to_vec(), t[2..].to_vec()), &mut tangent_out);
        let jvp: Vec<f64> = (0..2).map(|i| (0..6).map(|j| jacobian[i][j] * t[j]).sum()).collect();
        assert_all_close(&tangent_out, &jvp, 1e-12, "jvp");
    }

    #[test]
    fn residual_gradient_and_outputs(x in prop::collection::vec(-2.0f64..2.0, 1..5)) {
        let n = x.len();
        let mut r = vec![0.0; n];
        // `f_grad`: the gradient of the returned norm, the outputs' cotangents taken as zero.
        let (norm, grad) = residual_grad(&x, &mut r);
        let mut r2 = vec![0.0; n];
        prop_assert_eq!(norm, residual(&x, &mut r2));
        for i in 0..n {
            assert_close(grad[i], 4.0 * x[i] * (x[i] * x[i] - 2.0), 1e-12, "d norm / dx");
            let fd = central_difference(|v| {
                let mut moved = x.clone();
                moved[i] = v;
                residual(&moved, &mut vec![0.0; n])
            }, x[i]);
            assert_close(grad[i], fd, 1e-7, "finite differences");
        }
        // `f_vjp` with a cotangent on the residual too.
        let d_r: Vec<f64> = (0..n).map(|i| i as f64 - 1.0).collect();
        let (_, g) = residual_vjp(&x, &mut r, 0.5, &d_r);
        for i in 0..n {
            let by_hand = 0.5 * 4.0 * x[i] * (x[i] * x[i] - 2.0) + d_r[i] * 2.0 * x[i];
            assert_close(g[i], by_hand, 1e-12, "vjp with both cotangents");
        }
    }

    #[test]
    fn an_output_read_before_written_is_an_input(a in -2.0f64..2.0, acc in prop::array::uniform3(-2.0f64..2.0)) {
        // acc'[0] = a (acc0 + a), acc'[1] = acc1 + 2a, acc'[2] = acc2 + 3a.
        let d = [0.5, -1.0, 2.0];
        let mut out = acc;
        let (da, dacc) = accumulate_into_vjp(a, &mut out, &d);
        let mut expected = acc;
        accumulate_into(a, &mut expected);
        prop_assert_eq!(out, expected);
        assert_close(da, d[0] * (acc[0] + 2.0 * a) + 2.0 * d[1] + 3.0 * d[2], 1e-12, "d/da");
        assert_all_close(&dacc, &[d[0] * a, d[1], d[2]], 1e-12, "d/d acc");
        let mut tangent = [0.0; 3];
        let mut out = acc;
        accumulate_into_jvp(a, &mut out, (1.0, [0.0, 1.0, 0.0]), &mut tangent);
        assert_all_close(&tangent, &[acc[0] + 2.0 * a, 3.0, 3.0], 1e-12, "jvp");
    }
}
