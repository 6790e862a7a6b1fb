//! Output parameters (`&mut [T]`): written by the body, their final values are part of the result.
//! `f_vjp` takes a cotangent per output after `d_ret`, `f_jvp` writes each output's tangent into a buffer;
//! checked against Jacobians worked out by hand and central finite differences.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_close, central_difference, config};
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
