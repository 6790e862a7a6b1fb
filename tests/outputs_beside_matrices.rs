//! Output parameters beside a matrix parameter (`fn f(m: &[Vec<f64>], x: &[f64], out: &mut [f64])`):
//! `f_vjp` with the outputs' cotangents, `f_jvp` writing their tangents, `f_grad` (outputs' cotangents
//! zero), `f_jacobian`, a caller passing a matrix and a buffer, and `order = 2`. Against central finite
//! differences and the derivatives worked out by hand.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_dot, assert_fd_gradient, central_difference, dot,
    hessian_column,
};
use proptest::prelude::*;

/// `out[i] = sin(Σ_j m[i][j] x[j])`.
#[differentiable]
fn mat_vec_into(m: &[Vec<f64>], x: &[f64], out: &mut [f64]) {
    for i in 0..m.len() {
        let mut s = 0.0;
        for j in 0..x.len() {
            s += m[i][j] * x[j];
        }
        out[i] = s.sin();
    }
}

fn mat_vec_by_hand(m: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    m.iter().map(|row| dot(row, x).sin()).collect()
}

/// Accumulates into `out` (its incoming value read) and returns a float.
#[differentiable]
fn row_products(m: &[Vec<f64>], out: &mut [f64]) -> f64 {
    for i in 0..m.len() {
        out[i] += m[i][0] * m[i][1];
    }
    out[0] * m[1][1]
}

fn row_products_by_hand(m: &[Vec<f64>], o: &[f64]) -> (f64, Vec<f64>) {
    let out: Vec<f64> = (0..2).map(|i| o[i] + m[i][0] * m[i][1]).collect();
    (out[0] * m[1][1], out)
}

/// A caller passing a matrix on whole and a local buffer to be written.
#[differentiable]
fn through_a_call(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut k = vec![0.0; 2];
    mat_vec_into(m, x, &mut k);
    k[0] * k[1] + x[0]
}

/// A fixed-size matrix beside a fixed-size output.
#[differentiable]
fn fixed_matrix_into(m: &[[f64; 2]; 2], out: &mut [f64; 2]) -> f64 {
    for i in 0..2 {
        out[i] = m[i][0].exp() - m[i][1] * m[0][i];
    }
    out[0] * out[1]
}

fn fixed_matrix_by_hand(m: &[Vec<f64>]) -> (f64, [f64; 2]) {
    let out = [
        m[0][0].exp() - m[0][1] * m[0][0],
        m[1][0].exp() - m[1][1] * m[0][1],
    ];
    (out[0] * out[1], out)
}

/// `row_products` at second order.
#[differentiable(order = 2)]
fn row_products_twice(m: &[Vec<f64>], out: &mut [f64]) -> f64 {
    for i in 0..m.len() {
        out[i] += m[i][0] * m[i][1];
    }
    out[0] * m[1][1]
}

fn matrix() -> impl Strategy<Value = Vec<Vec<f64>>> {
    prop::collection::vec(prop::collection::vec(-1.5f64..1.5, 2), 2)
}

fn unflatten(w: &[f64]) -> Vec<Vec<f64>> {
    vec![w[0..2].to_vec(), w[2..4].to_vec()]
}

proptest! {
    #![proptest_config(common::config())]

    #[test]
    fn an_output_beside_a_matrix(m in matrix(), x in prop::collection::vec(-1.5f64..1.5, 2), d in prop::collection::vec(-1.0f64..1.0, 2), t in prop::collection::vec(-1.0f64..1.0, 6)) {
        let by_hand = mat_vec_by_hand(&m, &x);
        let mut out = vec![f64::NAN; 2];
        mat_vec_into(&m, &x, &mut out);
        assert_all_close(&out, &by_hand, 1e-14, "the primal");
        let mut out = vec![f64::NAN; 2];
        let (gm, gx) = mat_vec_into_vjp(&m, &x, &mut out, &d);
        assert_all_close(&out, &by_hand, 1e-14, "vjp writes out");
        let all = [m.concat(), x.clone()].concat();
        let f = |w: &[f64]| dot(&mat_vec_by_hand(&unflatten(&w[..4]), &w[4..]), &d);
        let g = [gm.concat(), gx].concat();
        assert_fd_gradient(f, &all, &g, "mat_vec_into_vjp");
        // By hand: d/dm[i][j] = d_i cos(m_i · x) x_j.
        for i in 0..2 {
            for j in 0..2 {
                assert_close(g[2 * i + j], d[i] * dot(&m[i], &x).cos() * x[j], 1e-12, "by hand");
            }
        }
        let mut t_out = vec![f64::NAN; 2];
        mat_vec_into_jvp(&m, &x, &mut out, (unflatten(&t[..4]), t[4..].to_vec()), &mut t_out);
        assert_dot(dot(&t_out, &d), &g, &t, 1e-10, "mat_vec_into_jvp");
        let jacobian = mat_vec_into_jacobian(&m, &x, &mut out);
        prop_assert_eq!(jacobian.len(), 2);
        for (i, row) in jacobian.iter().enumerate() {
            let fd: Vec<f64> = (0..6).map(|j| central_difference(|s| {
                let mut w = all.clone();
                w[j] = s;
                mat_vec_by_hand(&unflatten(&w[..4]), &w[4..])[i]
            }, all[j])).collect();
            assert_all_close(row, &fd, 1e-7, &format!("jacobian row {i}"));
        }
    }

    #[test]
    fn an_accumulated_output_beside_a_matrix(m in matrix(), o in prop::collection::vec(-1.5f64..1.5, 2), d in prop::collection::vec(-1.0f64..1.0, 3), t in prop::collection::vec(-1.0f64..1.0, 6)) {
        let (value, out_by_hand) = row_products_by_hand(&m, &o);
        let mut out = o.clone();
        assert_close(row_products(&m, &mut out), value, 1e-14, "the primal");
        let mut out = o.clone();
        let (v, (gm, gout)) = row_products_vjp(&m, &mut out, d[0], &d[1..]);
        assert_close(v, value, 1e-14, "vjp value");
        assert_all_close(&out, &out_by_hand, 1e-14, "vjp writes out");
        let all = [m.concat(), o.clone()].concat();
        let f = |w: &[f64]| {
            let (v, out) = row_products_by_hand(&unflatten(&w[..4]), &w[4..]);
            d[0] * v + dot(&d[1..], &out)
        };
        let g = [gm.concat(), gout].concat();
        assert_fd_gradient(f, &all, &g, "row_products_vjp");
        let mut out = o.clone();
        let (v, (gm, gout)) = row_products_grad(&m, &mut out);
        assert_close(v, value, 1e-14, "grad value");
        assert_fd_gradient(|w: &[f64]| row_products_by_hand(&unflatten(&w[..4]), &w[4..]).0, &all, &[gm.concat(), gout].concat(), "row_products_grad");
        let mut out = o.clone();
        let mut t_out = vec![f64::NAN; 2];
        let (_, t_value) = row_products_jvp(&m, &mut out, (unflatten(&t[..4]), t[4..].to_vec()), &mut t_out);
        assert_dot(d[0] * t_value + dot(&d[1..], &t_out), &g, &t, 1e-10, "row_products_jvp");
    }

    #[test]
    fn a_caller_passing_a_matrix_and_a_buffer(m in matrix(), x in prop::collection::vec(-1.5f64..1.5, 2), t in prop::collection::vec(-1.0f64..1.0, 6)) {
        let by_hand = |m: &[Vec<f64>], x: &[f64]| {
            let k = mat_vec_by_hand(m, x);
            k[0] * k[1] + x[0]
        };
        assert_close(through_a_call(&m, &x), by_hand(&m, &x), 1e-14, "the primal");
        let (v, (gm, gx)) = through_a_call_grad(&m, &x);
        assert_close(v, by_hand(&m, &x), 1e-14, "value");
        let all = [m.concat(), x.clone()].concat();
        let g = [gm.concat(), gx].concat();
        assert_fd_gradient(|w: &[f64]| by_hand(&unflatten(&w[..4]), &w[4..]), &all, &g, "through_a_call_grad");
        let (_, t_value) = through_a_call_jvp(&m, &x, (unflatten(&t[..4]), t[4..].to_vec()));
        assert_dot(t_value, &g, &t, 1e-10, "through_a_call_jvp");
    }

    #[test]
    fn a_fixed_size_output_beside_a_fixed_size_matrix(m in matrix(), d in prop::collection::vec(-1.0f64..1.0, 3), t in prop::collection::vec(-1.0f64..1.0, 4)) {
        let fixed = [[m[0][0], m[0][1]], [m[1][0], m[1][1]]];
        let (value, out_by_hand) = fixed_matrix_by_hand(&m);
        let mut out = [f64::NAN; 2];
        assert_close(fixed_matrix_into(&fixed, &mut out), value, 1e-14, "the primal");
        // `out` is written whole (`0..2` of a `[f64; 2]`) before it is read: its incoming value is no input,
        // so `G` is `m`'s alone (API.md), and a NaN going in shows nowhere.
        let mut out = [f64::NAN; 2];
        let (v, gm) = fixed_matrix_into_vjp(&fixed, &mut out, d[0], &[d[1], d[2]]);
        assert_close(v, value, 1e-14, "vjp value");
        assert_all_close(&out, &out_by_hand, 1e-14, "vjp writes out");
        let f = |w: &[f64]| {
            let (v, o) = fixed_matrix_by_hand(&unflatten(w));
            d[0] * v + d[1] * o[0] + d[2] * o[1]
        };
        let g = gm.concat();
        assert_fd_gradient(f, &m.concat(), &g, "fixed_matrix_into_vjp");
        let mut t_out = [f64::NAN; 2];
        let tangent = [[t[0], t[1]], [t[2], t[3]]];
        let (_, t_value) = fixed_matrix_into_jvp(&fixed, &mut [f64::NAN; 2], tangent, &mut t_out);
        assert_dot(d[0] * t_value + d[1] * t_out[0] + d[2] * t_out[1], &g, &t, 1e-10, "fixed_matrix_into_jvp");
    }

    #[test]
    fn an_output_beside_a_matrix_at_second_order(m in matrix(), o in prop::collection::vec(-1.5f64..1.5, 2)) {
        let mut out = o.clone();
        assert_close(row_products_twice(&m, &mut out), row_products_by_hand(&m, &o).0, 1e-14, "the primal");
        let mut out = o.clone();
        let (value, (gm, gout), hessian) = row_products_twice_hessian(&m, &mut out);
        let (by_hand, out_by_hand) = row_products_by_hand(&m, &o);
        assert_close(value, by_hand, 1e-14, "value");
        assert_all_close(&out, &out_by_hand, 1e-14, "f_hessian writes out as one call does");
        let all = [m.concat(), o.clone()].concat();
        assert_fd_gradient(|w: &[f64]| row_products_by_hand(&unflatten(&w[..4]), &w[4..]).0, &all, &[gm.concat(), gout].concat(), "gradient");
        let grad = |w: &[f64]| {
            let (_, (gm, gout)) = row_products_twice_grad(&unflatten(&w[..4]), &mut w[4..].to_vec());
            [gm.concat(), gout].concat()
        };
        prop_assert_eq!(hessian.len(), 6);
        for i in 0..6 {
            let column = hessian_column(grad, &all, i);
            for j in 0..6 {
                assert_close(hessian[j][i], column[j], 1e-6, &format!("hessian[{j}][{i}]"));
            }
        }
    }
}
