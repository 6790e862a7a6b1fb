//! `order = 2` on `f64` functions written in the forms of issue 11 that the generic copy must rewrite: loops
//! that bind elements by reference (`for v in w.iter()`) over locals, over the rows of matrices (parameters
//! and locals, `for row in m.iter() { for v in row.iter() .. }`) and over integer arrays (`x[*i]`), and
//! closures that call other closures. Gradients against central differences of the primal, Hessians
//! against central differences of the gradient, on random inputs.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_fd_gradient, config, hessian_column};
use proptest::prelude::*;

/// Rows of a matrix parameter and of a local matrix, and their floats, iterated by reference.
#[differentiable(order = 2)]
fn rows_by_reference(m: Vec<Vec<f64>>, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for row in m.iter() {
        for v in row.iter() {
            s += v * v * x[0];
        }
    }
    let mut local = vec![vec![0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            local[i][j] = x[i] * x[j] + m[0][j];
        }
    }
    for (i, row) in local.iter().enumerate() {
        for v in row.iter() {
            s += (v * i as f64).sin();
        }
    }
    s
}

/// An integer array, a parameter and a local copy, iterated by reference as indexes.
#[differentiable(order = 2)]
fn indexes_by_reference(x: &[f64], idx: &[usize]) -> f64 {
    let mut s = 0.0;
    for i in idx.iter() {
        s += x[*i] * x[*i] * x[0];
    }
    let local = idx.to_vec();
    for j in local.iter() {
        s += x[*j].exp();
    }
    s
}

/// A closure capturing a parameter, called by another closure, which is called and given to `.map(..)`.
#[differentiable(order = 2)]
fn closures_calling_closures(x: &[f64], k: f64) -> f64 {
    let scale = |v: f64| v * k;
    let sq = |v: f64| scale(v) * scale(v);
    x.iter().map(|&v| sq(v)).sum::<f64>() + x.iter().copied().map(sq).fold(0.0, |a, b| a + b * b)
}

/// Checks `grad` (a gradient over the flat inputs) against central differences of `primal`, and the
/// Hessian `hessian` against central differences of `grad`.
fn check(
    what: &str,
    primal: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> Vec<f64>,
    hessian: &[Vec<f64>],
    at: &[f64],
) {
    assert_fd_gradient(&primal, at, &grad(at), what);
    assert_eq!(hessian.len(), at.len(), "{what}: Hessian rows");
    for i in 0..at.len() {
        let column = hessian_column(&grad, at, i);
        assert_all_close(
            &hessian[i],
            &column,
            1e-5,
            &format!("{what}: Hessian column {i}"),
        );
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn loops_by_reference_at_second_order(flat in prop::collection::vec(-1.5..1.5f64, 6), x in prop::collection::vec(-1.5..1.5f64, 2)) {
        let matrix = |p: &[f64]| vec![p[..2].to_vec(), p[2..4].to_vec(), p[4..6].to_vec()];
        let at = [flat.clone(), x.clone()].concat();
        let primal = |p: &[f64]| rows_by_reference(matrix(&p[..6]), &p[6..]);
        let grad = |p: &[f64]| {
            let (_, (gm, gx)) = rows_by_reference_grad(matrix(&p[..6]), &p[6..]);
            [gm.concat(), gx].concat()
        };
        let (value, _, hessian) = rows_by_reference_hessian(matrix(&flat), &x);
        prop_assert_eq!(value, rows_by_reference(matrix(&flat), &x));
        check("rows_by_reference", primal, grad, &hessian, &at);
    }

    #[test]
    fn indexes_by_reference_at_second_order(x in prop::collection::vec(-1.5..1.5f64, 3), idx in prop::collection::vec(0usize..3, 0..5)) {
        let primal = |p: &[f64]| indexes_by_reference(p, &idx);
        let grad = |p: &[f64]| indexes_by_reference_grad(p, &idx).1;
        let (value, _, hessian) = indexes_by_reference_hessian(&x, &idx);
        prop_assert_eq!(value, indexes_by_reference(&x, &idx));
        check("indexes_by_reference", primal, grad, &hessian, &x);
    }

    #[test]
    fn closures_calling_closures_at_second_order(x in prop::collection::vec(-1.5..1.5f64, 1..4), k in -1.5..1.5f64) {
        let n = x.len();
        let at = [x.clone(), vec![k]].concat();
        let primal = |p: &[f64]| closures_calling_closures(&p[..n], p[n]);
        let grad = |p: &[f64]| {
            let (_, (gx, gk)) = closures_calling_closures_grad(&p[..n], p[n]);
            [gx, vec![gk]].concat()
        };
        let (value, _, hessian) = closures_calling_closures_hessian(&x, k);
        prop_assert_eq!(value, closures_calling_closures(&x, k));
        check("closures_calling_closures", primal, grad, &hessian, &at);
    }
}
