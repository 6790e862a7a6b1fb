//! Methods as a user writes them from API.md's "Methods and parameter structs": methods of a trait's
//! `impl` (`#[differentiable]` on the block puts their derivatives in an inherent `impl` beside it), `wrt(..)`
//! on methods whose constants reach plain helpers, and the forms of the section (generic `impl`s, `self` by
//! value, `wrt(self, x)`, `Self::helper`, parameter structs holding `Vec`s, arrays and nested structs,
//! `_grad_into`, `_jacobian`, `optim`).
//!
//! Every gradient is checked against a derivative written by hand and central differences of the
//! function as written, at several points; Hessians against central differences of the gradient.

// Differentiable bodies index their arrays (`for i in 0..n`), the form under test.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable, Float};
use common::*;

/// Points in `[-2, 2)`, `n` coordinates each, from a fixed seed.
fn points(seed: u64, n: usize, count: usize) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    (0..count)
        .map(|_| inputs.vec(n).iter().map(|v| 2.0 * v).collect())
        .collect()
}

/// Asserts that `hessian` (rows over the flat inputs `x`) is the Jacobian of `grad` at `x` by central
/// differences, and symmetric.
#[track_caller]
fn assert_hessian(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], hessian: &[Vec<f64>], what: &str) {
    assert_eq!(hessian.len(), x.len(), "{what}: Hessian rows");
    assert_jacobian(hessian, &fd_jacobian(grad, x), what);
    for i in 0..x.len() {
        for j in 0..i {
            assert_close(
                hessian[i][j],
                hessian[j][i],
                1e-9,
                &format!("{what}: symmetry"),
            );
        }
    }
}

/// Methods of a trait's `impl`: `#[differentiable]` on the block and on each method.
mod trait_impls {
    use super::*;

    pub trait Energy {
        fn energy(&self, x: f64) -> f64;
        fn force(&self, x: f64, y: f64) -> f64;
    }

    pub struct Spring {
        pub k: f64,
    }

    impl Spring {
        /// An inherent method the trait's methods call, and which calls them.
        #[differentiable(order = 2)]
        pub fn base(&self, y: f64) -> f64 {
            self.k * y.sin()
        }

        #[differentiable(order = 2)]
        pub fn helper(x: f64) -> f64 {
            (0.5 * x).exp()
        }

        /// `2 energy(x) + helper(x)`: an inherent method calling the trait's.
        #[differentiable(order = 2)]
        pub fn total(&self, x: f64) -> f64 {
            self.energy(x) * 2.0 + Self::helper(x)
        }
    }

    #[differentiable]
    impl Energy for Spring {
        /// `k x² / 2 + e^(x/2)`.
        #[differentiable(order = 2)]
        fn energy(&self, x: f64) -> f64 {
            0.5 * self.k * x * x + Self::helper(x)
        }

        /// `energy(x) y + k sin y + e^(xy/2)`: another method of the trait, one of the inherent `impl`,
        /// an associated function by the type's name.
        #[differentiable(order = 2)]
        fn force(&self, x: f64, y: f64) -> f64 {
            self.energy(x) * y + self.base(y) + Spring::helper(x * y)
        }
    }

    /// The trait's methods as written, without the macro: the oracle's values.
    fn energy(k: f64, x: f64) -> f64 {
        0.5 * k * x * x + (0.5 * x).exp()
    }

    fn force(k: f64, x: f64, y: f64) -> f64 {
        energy(k, x) * y + k * y.sin() + (0.5 * x * y).exp()
    }

    #[test]
    fn a_trait_method_and_its_calls_at_order_two() {
        for p in points(28_001, 3, 8) {
            let spring = Spring { k: 1.5 + p[2] };
            let (k, x, y) = (spring.k, p[0], p[1]);
            // The trait's method is the user's, as written.
            let as_trait: &dyn Energy = &spring;
            assert_eq!(as_trait.energy(x), energy(k, x));
            // energy' = k x + e^(x/2)/2, energy'' = k + e^(x/2)/4.
            let (value, slope) = spring.energy_grad(x);
            assert_close(value, energy(k, x), ANALYTIC_TOL, "energy");
            let exact = k * x + 0.5 * (0.5 * x).exp();
            assert_close(slope, exact, ANALYTIC_TOL, "energy'");
            assert_close(
                slope,
                central_difference(|x| energy(k, x), x),
                FD_TOL,
                "energy' fd",
            );
            let d = spring.energy_derivatives(x);
            assert_all_close(
                &d,
                &[energy(k, x), exact, k + 0.25 * (0.5 * x).exp()],
                ANALYTIC_TOL,
                "energy_derivatives",
            );
            let (_, tangent) = spring.energy_jvp(x, 0.7);
            assert_close(tangent, 0.7 * exact, ANALYTIC_TOL, "energy_jvp");

            // force: by hand, and against differences of the plain function and of the gradient.
            let (value, (gx, gy)) = spring.force_grad(x, y);
            assert_close(value, force(k, x, y), ANALYTIC_TOL, "force");
            assert_close(spring.force(x, y), value, ANALYTIC_TOL, "the trait's force");
            let e = (0.5 * x * y).exp();
            assert_close(gx, exact * y + 0.5 * y * e, ANALYTIC_TOL, "force_x");
            assert_close(
                gy,
                energy(k, x) + k * y.cos() + 0.5 * x * e,
                ANALYTIC_TOL,
                "force_y",
            );
            assert_fd_gradient(|q| force(k, q[0], q[1]), &[x, y], &[gx, gy], "force");
            let (_, _, h) = spring.force_hessian(x, y);
            let grad = |q: &[f64]| {
                let (_, (gx, gy)) = spring.force_grad(q[0], q[1]);
                vec![gx, gy]
            };
            assert_hessian(grad, &[x, y], &h, "force_hessian");
            let (_, _, hv) = spring.force_hvp(x, y, (0.3, -1.1));
            assert_all_close(
                &[hv.0, hv.1],
                &[dot(&h[0], &[0.3, -1.1]), dot(&h[1], &[0.3, -1.1])],
                1e-9,
                "force_hvp",
            );

            // An inherent method calling the trait's: 2 energy'' + e^(x/2)/4.
            let (value, _, h) = spring.total_hessian(x);
            assert_close(spring.total(x), value, ANALYTIC_TOL, "total");
            let second = 2.0 * (k + 0.25 * (0.5 * x).exp()) + 0.25 * (0.5 * x).exp();
            assert_close(h[0][0], second, ANALYTIC_TOL, "total''");
        }
    }

    /// A trait in another module, named by its path (not imported); a generic trait `impl` with an
    /// associated type in the signature and `where` clause.
    pub mod shapes {
        pub trait Potential<T> {
            type Scalar;
            fn potential(&self, x: Self::Scalar, y: T) -> T;
        }
    }

    pub struct Model<T> {
        pub k: T,
        pub w: Vec<T>,
    }

    #[differentiable]
    impl<T: Float> shapes::Potential<T> for Model<T>
    where
        T: Copy,
    {
        type Scalar = T;

        /// `k x sin y + Σ w_i x^i` (i from 1), at `order = 2`.
        #[differentiable(order = 2)]
        fn potential(&self, x: Self::Scalar, y: T) -> T {
            let mut s = self.k * x * y.sin();
            let mut power = x;
            for i in 0..self.w.len() {
                s = s + self.w[i] * power;
                power = power * x;
            }
            s
        }
    }

    #[test]
    fn a_generic_trait_impl_with_an_associated_type() {
        for p in points(28_002, 2, 8) {
            let model = Model {
                k: 0.8,
                w: vec![0.5, -0.25, 0.125],
            };
            let (x, y) = (p[0], p[1]);
            let plain =
                |x: f64, y: f64| 0.8 * x * y.sin() + 0.5 * x - 0.25 * x * x + 0.125 * x * x * x;
            let (value, (gx, gy)) = model.potential_grad(x, y);
            assert_close(value, plain(x, y), ANALYTIC_TOL, "potential");
            assert_eq!(shapes::Potential::potential(&model, x, y), value);
            let exact_x = 0.8 * y.sin() + 0.5 - 0.5 * x + 0.375 * x * x;
            assert_close(gx, exact_x, ANALYTIC_TOL, "potential_x");
            assert_close(gy, 0.8 * x * y.cos(), ANALYTIC_TOL, "potential_y");
            assert_fd_gradient(|q| plain(q[0], q[1]), &[x, y], &[gx, gy], "potential");
            let (_, _, h) = model.potential_hessian(x, y);
            let exact = [
                [-0.5 + 0.75 * x, 0.8 * y.cos()],
                [0.8 * y.cos(), -0.8 * x * y.sin()],
            ];
            for i in 0..2 {
                assert_all_close(&h[i], &exact[i], ANALYTIC_TOL, "potential_hessian");
            }
            // The same `impl` at `f32`.
            let model32 = Model {
                k: 0.8f32,
                w: vec![0.5f32, -0.25, 0.125],
            };
            let (_, (gx32, gy32)) = model32.potential_grad(x as f32, y as f32);
            assert_close(gx32 as f64, exact_x, ANALYTIC_TOL_F32, "potential_x f32");
            assert_close(
                gy32 as f64,
                0.8 * x * y.cos(),
                ANALYTIC_TOL_F32,
                "potential_y f32",
            );
        }
    }

    pub trait Fit {
        fn loss(&self, x: f64) -> f64;
        fn scaled(self, x: f64) -> f64;
    }

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct Line {
        pub a: f64,
        pub b: f64,
    }

    #[differentiable]
    impl Fit for Line {
        /// `(a x + b - 1)²`, differentiated in `self` and `x`.
        #[differentiable(wrt(self, x), order = 2)]
        fn loss(&self, x: f64) -> f64 {
            let r = self.a * x + self.b - 1.0;
            r * r
        }

        /// `self` by value, constant: `a sin(b x)`.
        #[differentiable]
        fn scaled(self, x: f64) -> f64 {
            self.a * (self.b * x).sin()
        }
    }

    #[test]
    fn wrt_self_and_self_by_value_in_a_trait_impl() {
        for p in points(28_003, 3, 8) {
            let line = Line { a: p[0], b: p[1] };
            let x = p[2];
            let r = line.a * x + line.b - 1.0;
            let (value, (g, gx)) = line.loss_grad(x);
            assert_close(value, r * r, ANALYTIC_TOL, "loss");
            assert_eq!(line.loss(x), value);
            assert_all_close(
                &[g.a, g.b, gx],
                &[2.0 * r * x, 2.0 * r, 2.0 * r * line.a],
                ANALYTIC_TOL,
                "loss_grad",
            );
            let plain = |q: &[f64]| {
                let r = q[0] * q[2] + q[1] - 1.0;
                r * r
            };
            assert_fd_gradient(plain, &p, &[g.a, g.b, gx], "loss");
            // The Hessian over (a, b, x): that of (a x + b - 1)².
            let (_, _, h) = line.loss_hessian(x);
            let grad = |q: &[f64]| {
                let (_, (g, gx)) = Line { a: q[0], b: q[1] }.loss_grad(q[2]);
                vec![g.a, g.b, gx]
            };
            assert_hessian(grad, &p, &h, "loss_hessian");
            let (value, slope) = line.scaled_grad(x);
            assert_close(value, line.a * (line.b * x).sin(), ANALYTIC_TOL, "scaled");
            assert_close(
                slope,
                line.a * line.b * (line.b * x).cos(),
                ANALYTIC_TOL,
                "scaled'",
            );
            assert_eq!(Fit::scaled(line, x), value);
        }
    }
}
