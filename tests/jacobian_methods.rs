//! `f_jacobian` of methods, associated functions and functions of parameter structs (API.md: rows are the
//! outputs, columns the active inputs flattened in declaration order; a struct's columns are its flat view,
//! `Differentiable::to_flat`). Both of its modes are taken (more outputs than columns: one `_jvp` per
//! column; fewer: one `_vjp` per row), each checked against central differences of the function.

// Differentiable bodies index their slices, as the macro reads them.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::*;
use proptest::prelude::*;

struct Field {
    k: f64,
}

impl Field {
    /// `self` constant: columns are `x`'s.
    #[differentiable]
    fn forces(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            out[i] = self.k * x[i] * x[i] + (x[i] * x[(i + 1) % x.len()]).sin();
        }
        out
    }

    /// An associated function with five outputs of two columns: forward mode.
    #[differentiable]
    fn spread(a: f64, b: f64) -> [f64; 5] {
        [a * b, a.sin(), b.exp() * a, a - b, (a * a + b * b).sqrt()]
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Affine {
    w: Vec<f64>,
    b: f64,
}

impl Affine {
    /// Differentiated in `self`: columns are `w[0], w[1], b`.
    #[differentiable(wrt(self))]
    fn apply(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            out[i] = (self.w[i % 2] * x[i] + self.b).tanh();
        }
        out
    }
}

/// A struct by reference beside a slice: columns `w[0], w[1], b, x[0], ..`.
#[differentiable]
fn predict(p: &Affine, x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..x.len() {
        out[i] = p.w[i % 2] * x[i] * x[i] + p.b * x[i];
    }
    out
}

/// A struct by value beside a scalar, an array result.
#[differentiable]
fn owned(p: Affine, t: f64) -> [f64; 3] {
    [p.w[0] * t, p.b * t * t, p.w[1].cos() * t]
}

fn affine(flat: &[f64]) -> Affine {
    Affine {
        w: flat[..2].to_vec(),
        b: flat[2],
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_method_with_a_constant_self(k in moderate(), x in prop::collection::vec(moderate(), 1..5)) {
        let field = Field { k };
        let jacobian = field.forces_jacobian(&x);
        assert_jacobian(&jacobian, &fd_jacobian(|y| field.forces(y), &x), "Field::forces_jacobian");
    }

    #[test]
    fn an_associated_function_in_forward_mode(a in positive(), b in moderate()) {
        let jacobian = Field::spread_jacobian(a, b);
        let expected = fd_jacobian(|y| Field::spread(y[0], y[1]).to_vec(), &[a, b]);
        assert_jacobian(&jacobian, &expected, "Field::spread_jacobian");
        let r = (a * a + b * b).sqrt();
        assert_all_close(&jacobian[4], &[a / r, b / r], ANALYTIC_TOL, "the norm's row");
    }

    #[test]
    fn a_method_in_self(p in prop::collection::vec(moderate(), 3), x in prop::collection::vec(moderate(), 1..6)) {
        let jacobian = affine(&p).apply_jacobian(&x);
        let expected = fd_jacobian(|q| affine(q).apply(&x), &p);
        assert_jacobian(&jacobian, &expected, "Affine::apply_jacobian");
        prop_assert_eq!(jacobian[0].len(), affine(&p).to_flat().len());
    }

    #[test]
    fn a_struct_beside_a_slice(p in prop::collection::vec(moderate(), 3), x in prop::collection::vec(moderate(), 1..6)) {
        let jacobian = predict_jacobian(&affine(&p), &x);
        let flat: Vec<f64> = p.iter().chain(&x).copied().collect();
        let expected = fd_jacobian(|q| predict(&affine(&q[..3]), &q[3..]), &flat);
        assert_jacobian(&jacobian, &expected, "predict_jacobian");
    }

    #[test]
    fn a_struct_by_value(p in prop::collection::vec(moderate(), 3), t in moderate()) {
        let jacobian = owned_jacobian(affine(&p), t);
        let mut flat = p.clone();
        flat.push(t);
        let expected = fd_jacobian(|q| owned(affine(&q[..3]), q[3]).to_vec(), &flat);
        assert_jacobian(&jacobian, &expected, "owned_jacobian");
    }
}
