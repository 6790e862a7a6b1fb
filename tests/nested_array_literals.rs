//! Nested arrays made in a differentiable body (`[[x[0], x[1]], [x[2], x[3]]]`, `[[0.0; 3]; 3]`): read,
//! written, their rows passed to calls, in reverse and forward mode and at `order = 2`. Checked against
//! hand-written derivatives and central differences.

// Differentiable bodies index their arrays, as the macro reads them.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::*;
use proptest::prelude::*;

/// The determinant of a 2 x 2 matrix written out as rows.
#[differentiable]
fn det2(x: &[f64]) -> f64 {
    let m = [[x[0], x[1]], [x[2], x[3]]];
    let mut s = 0.0;
    for i in 0..2 {
        let sign = if i == 0 { 1.0 } else { -1.0 };
        s += sign * m[i][0] * m[1 - i][1];
    }
    s
}

/// Annotated, of scalars, with a row written `[v; 2]`.
#[differentiable]
fn annotated(a: f64, b: f64) -> f64 {
    let m: [[f64; 2]; 3] = [[a, b], [b * a, 1.0], [a; 2]];
    m[0][0] * m[1][1] - m[0][1] * m[1][0] + m[2][1] * m[2][0]
}

#[differentiable]
fn row_dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// A `[[0.0; 3]; 3]` written element by element, its rows passed to `row_dot`; at second order.
#[differentiable(order = 2)]
fn gram(x: &[f64]) -> f64 {
    let mut m = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = x[i] * x[j] + (x[i] - x[j]).sin();
        }
    }
    let mut s = 0.0;
    for i in 0..3 {
        s += row_dot(&m[i], &m[(i + 1) % 3]);
    }
    s
}

/// `gram` written without nested arrays, as an independent reference.
fn gram_by_hand(x: &[f64]) -> f64 {
    let entry = |i: usize, j: usize| x[i] * x[j] + (x[i] - x[j]).sin();
    (0..3)
        .map(|i| {
            (0..3)
                .map(|j| entry(i, j) * entry((i + 1) % 3, j))
                .sum::<f64>()
        })
        .sum()
}

#[differentiable]
fn det_of(m: [[f64; 2]; 2]) -> f64 {
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}

#[differentiable]
fn weighted_squares(m: &[[f64; 3]; 2]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        for j in 0..3 {
            s += m[i][j] * m[i][j] * (i + j + 1) as f64;
        }
    }
    s
}

/// Nested arrays made in the body and passed whole to calls, by value and by reference (was an error
/// saying to pass their rows): `det [[x0, x1], [x1 x2, sin x0]] + Σ (i + j + 1) z[i][j]²` with `z` zero
/// but `z[0][0] = x1`, `z[1][2] = x0 x2`.
#[differentiable(order = 2)]
fn passed_whole(x: &[f64]) -> f64 {
    let m = [[x[0], x[1]], [x[1] * x[2], x[0].sin()]];
    let mut z = [[0.0; 3]; 2];
    z[0][0] = x[1];
    z[1][2] = x[0] * x[2];
    det_of(m) + weighted_squares(&z)
}

fn passed_whole_by_hand(x: &[f64]) -> f64 {
    x[0] * x[0].sin() - x[1] * x[1] * x[2] + x[1] * x[1] + 4.0 * (x[0] * x[2]).powi(2)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_nested_array_passed_whole_to_calls(x in prop::array::uniform3(moderate()), t in tangents()) {
        let (value, grad) = passed_whole_grad(&x);
        prop_assert_eq!(value, passed_whole(&x));
        assert_close(value, passed_whole_by_hand(&x), 1e-12, "value by hand");
        assert_fd_gradient(passed_whole_by_hand, &x, &grad, "passed_whole_grad");
        let (value, tangent) = passed_whole_jvp(&x, t.to_vec());
        prop_assert_eq!(value, passed_whole(&x));
        assert_dot(tangent, &grad, &t, ANALYTIC_TOL, "passed_whole_jvp");
        let (_, _, hessian) = passed_whole_hessian(&x);
        assert_jacobian(&hessian, &fd_jacobian(|y| passed_whole_grad(y).1, &x), "passed_whole Hessian");
    }

    #[test]
    fn a_matrix_of_rows_written_out(x in prop::array::uniform4(moderate()), t in prop::array::uniform4(moderate())) {
        let (value, grad) = det2_grad(&x);
        prop_assert_eq!(value, x[0] * x[3] - x[2] * x[1]);
        assert_all_close(&grad, &[x[3], -x[2], -x[1], x[0]], ANALYTIC_TOL, "det2_grad");
        assert_fd_gradient(det2, &x, &grad, "det2_grad");
        let (value, tangent) = det2_jvp(&x, t.to_vec());
        prop_assert_eq!(value, det2(&x));
        assert_dot(tangent, &grad, &t, ANALYTIC_TOL, "det2_jvp");
    }

    #[test]
    fn an_annotated_matrix_of_scalars(a in moderate(), b in moderate()) {
        let (value, (ga, gb)) = annotated_grad(a, b);
        prop_assert_eq!(value, annotated(a, b));
        // a - b² a + a²
        assert_all_close(&[ga, gb], &[1.0 - b * b + 2.0 * a, -2.0 * a * b], ANALYTIC_TOL, "annotated_grad");
    }

    #[test]
    fn a_matrix_written_in_loops_at_second_order(x in prop::array::uniform3(moderate()), v in tangents()) {
        prop_assert!((gram(&x) - gram_by_hand(&x)).abs() <= 1e-12 * gram_by_hand(&x).abs().max(1.0));
        let (value, grad) = gram_grad(&x);
        prop_assert_eq!(value, gram(&x));
        assert_fd_gradient(gram_by_hand, &x, &grad, "gram_grad");
        let (_, _, hessian) = gram_hessian(&x);
        for i in 0..3 {
            let column = hessian_column(|y| gram_grad(y).1, &x, i);
            assert_all_close(&hessian[i], &column, 1e-5, "gram Hessian vs differences of the gradient");
        }
        let (_, _, hv) = gram_hvp(&x, v.to_vec());
        let expected: Vec<f64> = (0..3).map(|i| dot(&hessian[i], &v)).collect();
        assert_all_close(&hv, &expected, 1e-9, "gram_hvp");
    }
}
