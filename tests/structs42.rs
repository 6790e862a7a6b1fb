//! `Differentiable` structs and `#[no_grad]` fields (structs42):
//! - a struct's `Vec`, array or matrix field passed on whole to a GENERIC differentiable function
//!   (`horner<T: Float>(c: &[T], x: T)`, `quad_form<T: Float>(m: &[Vec<T>], x: &[T])`) from a function of
//!   the struct at `order = 2` (its hidden `__f_pairs`, `struct_whole::pairs::plain`, was made only for
//!   functions without type parameters: rustc's E0432 on `__horner_pairs`);
//!
//! Gradients are checked against central differences of the plain functions on seeded points (and by hand
//! where easy), Hessians against central differences of `_grad`.

#![allow(dead_code, clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable, Float};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, points};

/// Checks a function of flat inputs at each point: `grad` (value, gradient) against central differences
/// of `f`, and `hessian` (value, gradient, Hessian) against `grad` and central differences of it.
#[track_caller]
fn check_order2(
    what: &str,
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    pts: &[Vec<f64>],
) {
    assert!(pts.len() >= 10);
    for x in pts {
        let (v, g) = grad(x);
        assert_close(
            v,
            f(x),
            1e-12,
            &format!("{what}: the value of _grad at {x:?}"),
        );
        assert_fd_gradient(&f, x, &g, &format!("{what}_grad"));
        let (hv, hg, h) = hessian(x);
        assert_close(hv, v, 1e-12, &format!("{what}: the value of _hessian"));
        assert_all_close(&hg, &g, 1e-10, &format!("{what}: the gradient of _hessian"));
        assert_hessian_fd(
            &h,
            |y| grad(y).1,
            x,
            1e-5,
            &format!("{what}_hessian at {x:?}"),
        );
        // A Hessian is symmetric.
        for i in 0..h.len() {
            for j in 0..i {
                assert_close(h[i][j], h[j][i], 1e-10, &format!("{what}: symmetry"));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// 1. Fields passed on whole to generic functions at `order = 2`.

/// Horner's rule, generic over its float type.
#[differentiable]
pub fn horner<T: Float>(c: &[T], x: T) -> T {
    let mut acc = T::zero();
    for &ci in c.iter().rev() {
        acc = acc * x + ci;
    }
    acc
}

/// `x^T m x`, generic, of a matrix.
#[differentiable]
pub fn quad_form<T: Float>(m: &[Vec<T>], x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..m.len() {
        for j in 0..x.len() {
            s = s + x[i] * m[i][j] * x[j];
        }
    }
    s
}

/// A polynomial's coefficients (a `Vec` and an array) and a scale.
#[derive(Clone, Debug, Differentiable)]
pub struct Poly {
    pub c: Vec<f64>,
    pub d: [f64; 3],
    pub s: f64,
}

/// The `Vec` and the array field by reference to the generic helper, every input active.
#[differentiable(order = 2)]
pub fn poly_at(p: &Poly, x: f64) -> f64 {
    (horner(&p.c, x) * p.s).sin() + horner(&p.d, x) * x
}

impl Poly {
    /// A method with `wrt(self)`, the same helper.
    #[differentiable(wrt(self), order = 2)]
    pub fn at(&self, x: f64) -> f64 {
        let h = horner(&self.c, x);
        h * h * self.s + horner(&self.d, 0.5 * x)
    }
}

fn horner_plain(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, ci| acc * x + ci)
}

/// `[c0 c1 c2 c3, d0 d1 d2, s, x]` as the polynomial and `x`.
fn poly_of(z: &[f64]) -> (Poly, f64) {
    let p = Poly {
        c: z[..4].to_vec(),
        d: [z[4], z[5], z[6]],
        s: z[7],
    };
    (p, z[8])
}

#[test]
fn vec_and_array_fields_to_a_generic_helper_at_order_2() {
    let pts = points(42_001, 9, 12, -1.0, 1.0);
    let f = |z: &[f64]| {
        let (p, x) = poly_of(z);
        (horner_plain(&p.c, x) * p.s).sin() + horner_plain(&p.d, x) * x
    };
    check_order2(
        "poly_at",
        f,
        |z| {
            let (p, x) = poly_of(z);
            let (v, (gp, gx)) = poly_at_grad(&p, x);
            let mut g = gp.to_flat();
            g.push(gx);
            (v, g)
        },
        |z| {
            let (p, x) = poly_of(z);
            let (v, (gp, gx), h) = poly_at_hessian(&p, x);
            let mut g = gp.to_flat();
            g.push(gx);
            (v, g, h)
        },
        &pts,
    );
    // The gradient in `x` by hand: cos(h s) s h' + h_d + x h_d'.
    for z in &pts {
        let (p, x) = poly_of(z);
        let dh = |c: &[f64]| {
            (1..c.len())
                .map(|i| i as f64 * c[i] * x.powi(i as i32 - 1))
                .sum::<f64>()
        };
        let expected = (horner_plain(&p.c, x) * p.s).cos() * p.s * dh(&p.c)
            + horner_plain(&p.d, x)
            + x * dh(&p.d);
        assert_close(
            poly_at_grad(&p, x).1 .1,
            expected,
            1e-12,
            "poly_at_grad in x by hand",
        );
    }
}

#[test]
fn a_method_passes_its_fields_to_a_generic_helper_at_order_2() {
    let pts = points(42_002, 9, 12, -1.0, 1.0);
    let x_of = |z: &[f64]| z[8];
    let f = |z: &[f64]| {
        let (p, x) = poly_of(z);
        let h = horner_plain(&p.c, x);
        h * h * p.s + horner_plain(&p.d, 0.5 * x)
    };
    // `wrt(self)`: the flat inputs are the struct's, `x` fixed.
    for (k, z) in pts.iter().enumerate() {
        let x = x_of(z);
        let fp = |w: &[f64]| {
            let mut y = w.to_vec();
            y.push(x);
            f(&y)
        };
        let grad = |w: &[f64]| {
            let (p, _) = poly_of(&[w, &[x]].concat());
            let (v, g) = p.at_grad(x);
            (v, g.to_flat())
        };
        let hessian = |w: &[f64]| {
            let (p, _) = poly_of(&[w, &[x]].concat());
            let (v, g, h) = p.at_hessian(x);
            (v, g.to_flat(), h)
        };
        check_order2(
            "Poly::at",
            fp,
            grad,
            hessian,
            &points(42_100 + k as u64, 8, 10, -1.0, 1.0),
        );
    }
}

/// A quadratic form's matrix and a scale.
#[derive(Clone, Debug, Differentiable)]
pub struct Form {
    pub m: Vec<Vec<f64>>,
    pub k: f64,
}

/// The matrix field by reference to the generic helper of a matrix.
#[differentiable(order = 2)]
pub fn form_energy(p: &Form, x: &[f64]) -> f64 {
    let q = quad_form(&p.m, x);
    p.k * q * q + q.sin()
}

/// `[m00 m01 m10 m11, k, x0 x1]`.
fn form_of(z: &[f64]) -> (Form, Vec<f64>) {
    let p = Form {
        m: vec![vec![z[0], z[1]], vec![z[2], z[3]]],
        k: z[4],
    };
    (p, z[5..7].to_vec())
}

#[test]
fn a_matrix_field_to_a_generic_helper_at_order_2() {
    let pts = points(42_003, 7, 12, -1.0, 1.0);
    let f = |z: &[f64]| {
        let (p, x) = form_of(z);
        let mut q = 0.0;
        for i in 0..2 {
            for j in 0..2 {
                q += x[i] * p.m[i][j] * x[j];
            }
        }
        p.k * q * q + q.sin()
    };
    check_order2(
        "form_energy",
        f,
        |z| {
            let (p, x) = form_of(z);
            let (v, (gp, gx)) = form_energy_grad(&p, &x);
            let mut g = gp.to_flat();
            g.extend(gx);
            (v, g)
        },
        |z| {
            let (p, x) = form_of(z);
            let (v, (gp, gx), h) = form_energy_hessian(&p, &x);
            let mut g = gp.to_flat();
            g.extend(gx);
            (v, g, h)
        },
        &pts,
    );
}
