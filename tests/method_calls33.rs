//! A parameter struct's method called on the parameter (`a.apply(x)`, `a.energy(x)` for `a: &Affine`),
//! outside the struct's `impl`: API.md's "Methods and parameter structs" differentiates calls of
//! differentiable methods, and users write them with the dot. It was a spanned error ("write
//! `Affine::apply(p, ..)`"), with a cascade of "`y` is not known here to hold a slice" after it; the macro
//! now writes the call by the method's path itself (`method_paths.rs`).
//!
//! Every function is checked against analytic derivatives worked out by hand and against central
//! differences (`common`, no code shared with the macro), at several seeded points; `order = 2` items
//! against central differences of the gradient and `_hvp` against the Hessian's columns.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable, Float};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Affine {
    pub m: [[f64; 2]; 2],
    pub b: [f64; 2],
    #[no_grad]
    pub n: usize,
}

impl Affine {
    /// `y = m x + b`, a `Vec` result.
    #[differentiable(wrt(self, x), order = 2)]
    pub fn apply(&self, x: &[f64; 2]) -> Vec<f64> {
        let mut y = vec![0.0; 2];
        for i in 0..2 {
            y[i] = self.b[i];
            for j in 0..2 {
                y[i] += self.m[i][j] * x[j];
            }
        }
        y
    }

    /// `b0 x0 x1 + m11 x1`.
    #[differentiable(wrt(self, x), order = 2)]
    pub fn energy(&self, x: &[f64; 2]) -> f64 {
        self.b[0] * x[0] * x[1] + self.m[1][1] * x[1]
    }

    /// A plain method (not differentiable) of the struct: an integer.
    pub fn count(&self) -> usize {
        self.n
    }
}

fn affine(flat: &[f64]) -> Affine {
    Affine {
        m: [[flat[0], flat[1]], [flat[2], flat[3]]],
        b: [flat[4], flat[5]],
        n: 3,
    }
}

fn flat(a: &Affine) -> Vec<f64> {
    vec![a.m[0][0], a.m[0][1], a.m[1][0], a.m[1][1], a.b[0], a.b[1]]
}

/// `|y0|^2 + sin(y1) + energy`, the struct differentiated, `order = 2`.
#[differentiable(wrt(a), order = 2)]
pub fn affine_loss(a: &Affine, x: &[f64; 2]) -> f64 {
    let y = a.apply(x);
    y[0] * y[0] + y[1].sin() + (a).energy(x)
}

/// The same with the struct constant and `x` differentiated (first order: a constant struct's methods
/// with arguments are called by their path too), a plain method as a loop bound.
#[differentiable(wrt(x))]
pub fn affine_in_x(a: &Affine, x: &[f64; 2]) -> f64 {
    let mut s = 0.0;
    for _ in 0..a.count() {
        s += a.energy(x);
    }
    let y = a.apply(x);
    s * y[1]
}

/// Both differentiated; the result of one method passed to another.
#[differentiable]
pub fn both(a: &Affine, x: [f64; 2]) -> f64 {
    let y = a.apply(&x);
    let z = [y[0], y[1]];
    a.energy(&z) - a.energy(&x)
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Weights<T> {
    pub w: Vec<T>,
}

impl<T: Float> Weights<T> {
    /// `sum w_i x_i^2`.
    #[differentiable(wrt(self, x))]
    pub fn dot(&self, x: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..x.len() {
            s = s + self.w[i] * x[i] * x[i];
        }
        s
    }
}

/// A generic struct's method: called as `Weights::<T>::dot(g, x)`.
#[differentiable]
pub fn weighted<T: Float>(g: &Weights<T>, x: &[T]) -> T {
    g.dot(x) * x[0]
}

#[test]
fn a_struct_method_by_the_dot_differentiates_the_struct() {
    let mut r = Inputs(3301);
    for _ in 0..5 {
        let p = r.vec(6);
        let x = [r.next(), r.next()];
        let a = affine(&p);
        let (v, g) = affine_loss_grad(&a, &x);
        let y0 = a.b[0] + a.m[0][0] * x[0] + a.m[0][1] * x[1];
        let y1 = a.b[1] + a.m[1][0] * x[0] + a.m[1][1] * x[1];
        let e = a.b[0] * x[0] * x[1] + a.m[1][1] * x[1];
        assert_close(v, y0 * y0 + y1.sin() + e, 1e-12, "affine_loss value");
        // By hand: d/dm0j = 2 y0 x_j, d/dm1j = cos(y1) x_j (+ x1 for m11), d/db0 = 2 y0 + x0 x1,
        // d/db1 = cos(y1).
        let by_hand = [
            2.0 * y0 * x[0],
            2.0 * y0 * x[1],
            y1.cos() * x[0],
            y1.cos() * x[1] + x[1],
            2.0 * y0 + x[0] * x[1],
            y1.cos(),
        ];
        assert_all_close(&flat(&g), &by_hand, 1e-12, "affine_loss gradient by hand");
        assert_fd_gradient(
            |q| affine_loss(&affine(q), &x),
            &p,
            &flat(&g),
            "affine_loss",
        );
        let (hv, hg, h) = affine_loss_hessian(&a, &x);
        assert_close(hv, v, 1e-12, "affine_loss_hessian value");
        assert_all_close(&flat(&hg), &by_hand, 1e-12, "affine_loss_hessian gradient");
        assert_hessian_fd(
            &h,
            |q| flat(&affine_loss_grad(&affine(q), &x).1),
            &p,
            1e-6,
            "affine_loss Hessian",
        );
        // The one nonzero second derivatives by hand: d2/dm0j dm0k = 2 x_j x_k, d2/dm1j dm1k =
        // -sin(y1) x_j x_k, and the b's against the m's of their row.
        assert_close(h[0][1], 2.0 * x[0] * x[1], 1e-10, "d2/dm00 dm01");
        assert_close(h[2][3], -y1.sin() * x[0] * x[1], 1e-10, "d2/dm10 dm11");
        assert_close(h[5][5], -y1.sin(), 1e-10, "d2/db1 db1");
        for k in 0..6 {
            let mut e = vec![0.0; 6];
            e[k] = 1.0;
            let (_, _, hvk) = affine_loss_hvp(&a, &x, affine(&e));
            let column: Vec<f64> = (0..6).map(|i| h[i][k]).collect();
            assert_all_close(&flat(&hvk), &column, 1e-10, "affine_loss_hvp column");
        }
    }
}

#[test]
fn a_constant_struct_method_by_the_dot_differentiates_its_arguments() {
    let mut r = Inputs(3302);
    for _ in 0..5 {
        let a = affine(&r.vec(6));
        let x = [r.next(), r.next()];
        let (v, g) = affine_in_x_grad(&a, &x);
        let e = a.b[0] * x[0] * x[1] + a.m[1][1] * x[1];
        let y1 = a.b[1] + a.m[1][0] * x[0] + a.m[1][1] * x[1];
        assert_close(v, 3.0 * e * y1, 1e-12, "affine_in_x value");
        let de = [a.b[0] * x[1], a.b[0] * x[0] + a.m[1][1]];
        let by_hand = [
            3.0 * (de[0] * y1 + e * a.m[1][0]),
            3.0 * (de[1] * y1 + e * a.m[1][1]),
        ];
        assert_all_close(&g, &by_hand, 1e-12, "affine_in_x gradient by hand");
        assert_fd_gradient(|q| affine_in_x(&a, &[q[0], q[1]]), &x, &g, "affine_in_x");
    }
}

#[test]
fn methods_chained_through_a_local_array() {
    let mut r = Inputs(3303);
    for _ in 0..5 {
        let p = r.vec(6);
        let x = [r.next(), r.next()];
        let a = affine(&p);
        let (v, (ga, gx)) = both_grad(&a, x);
        assert_close(
            v,
            {
                let y = a.apply(&x);
                a.energy(&[y[0], y[1]]) - a.energy(&x)
            },
            1e-12,
            "both value",
        );
        let mut at = p.clone();
        at.extend_from_slice(&x);
        let mut grad = flat(&ga);
        grad.extend_from_slice(&gx);
        assert_fd_gradient(|q| both(&affine(&q[..6]), [q[6], q[7]]), &at, &grad, "both");
    }
}

#[test]
fn a_generic_struct_method_by_the_dot() {
    let mut r = Inputs(3304);
    for _ in 0..5 {
        let w = r.vec(3);
        let x = r.vec(3);
        let g = Weights { w: w.clone() };
        let (v, (gw, gx)) = weighted_grad(&g, &x);
        let d: f64 = (0..3).map(|i| w[i] * x[i] * x[i]).sum();
        assert_close(v, d * x[0], 1e-12, "weighted value");
        let by_hand_w: Vec<f64> = (0..3).map(|i| x[i] * x[i] * x[0]).collect();
        let mut by_hand_x: Vec<f64> = (0..3).map(|i| 2.0 * w[i] * x[i] * x[0]).collect();
        by_hand_x[0] += d;
        assert_all_close(&gw.w, &by_hand_w, 1e-12, "weighted gradient of w");
        assert_all_close(&gx, &by_hand_x, 1e-12, "weighted gradient of x");
        // On f32 too.
        let g32 = Weights {
            w: w.iter().map(|&v| v as f32).collect(),
        };
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (_, (_, gx32)) = weighted_grad(&g32, &x32);
        let gx32: Vec<f64> = gx32.iter().map(|&v| v as f64).collect();
        assert_all_close(&gx32, &by_hand_x, 1e-5, "weighted gradient of x, f32");
    }
}
