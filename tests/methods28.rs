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

/// The forms of API.md's methods section, as a user writes them.
mod forms {
    use super::*;
    use autodiff::optim::{Lbfgs, Minimizer};

    /// `f(x) = Σ_i w_i sin(x_i) + b`, in a generic `impl`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Layer<T: Float> {
        pub w: Vec<T>,
        pub b: T,
        #[no_grad]
        pub n: usize,
    }

    impl<T: Float> Layer<T> {
        /// Differentiated in `self` and `x`.
        #[differentiable(wrt(self, x))]
        pub fn out(&self, x: &[T]) -> T {
            let mut s = self.b;
            for i in 0..self.n {
                s = s + self.w[i] * x[i].sin();
            }
            s
        }

        /// `self` constant, `x` differentiated, at `order = 2`, with `T::from`.
        #[differentiable(order = 2)]
        pub fn smooth(&self, x: T) -> T {
            let half = T::from(0.5).unwrap();
            half * x * x + self.b * x.cos()
        }
    }

    #[test]
    fn a_generic_impl_with_wrt_self_and_order_two() {
        for p in points(28_101, 4, 6) {
            let layer = Layer {
                w: vec![p[0], p[1]],
                b: p[2],
                n: 2,
            };
            let x = [p[3], 0.5 * p[0]];
            let (value, (g, gx)) = layer.out_grad(&x);
            let plain = |q: &[f64]| q[2] + q[0] * q[3].sin() + q[1] * q[4].sin();
            let flat = [p[0], p[1], p[2], x[0], x[1]];
            assert_close(value, plain(&flat), ANALYTIC_TOL, "out");
            assert_eq!(layer.out(&x), value);
            assert_eq!(g.n, 2, "a #[no_grad] field is copied");
            let grad = [g.w[0], g.w[1], g.b, gx[0], gx[1]];
            let exact = [
                x[0].sin(),
                x[1].sin(),
                1.0,
                p[0] * x[0].cos(),
                p[1] * x[1].cos(),
            ];
            assert_all_close(&grad, &exact, ANALYTIC_TOL, "out_grad");
            assert_fd_gradient(plain, &flat, &grad, "out");
            // f32.
            let layer32 = Layer {
                w: vec![p[0] as f32, p[1] as f32],
                b: p[2] as f32,
                n: 2,
            };
            let (_, (g32, _)) = layer32.out_grad(&[x[0] as f32, x[1] as f32]);
            assert_close(g32.w[0] as f64, exact[0], ANALYTIC_TOL_F32, "out_grad f32");
            // smooth: x²/2 + b cos x.
            let d = layer.smooth_derivatives(p[3]);
            assert_eq!(layer.smooth(p[3]), d[0]);
            let x = p[3];
            assert_all_close(
                &d,
                &[
                    0.5 * x * x + layer.b * x.cos(),
                    x - layer.b * x.sin(),
                    1.0 - layer.b * x.cos(),
                ],
                ANALYTIC_TOL,
                "smooth_derivatives",
            );
        }
    }

    #[derive(Clone, Copy, Debug, Differentiable)]
    pub struct Point {
        pub x: f64,
        pub y: f64,
    }

    /// A parameter struct holding an array, a nested struct, a `Vec` and a `#[no_grad]` field.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Body {
        pub centre: Point,
        pub radii: [f64; 3],
        pub weights: Vec<f64>,
        pub scale: f64,
        #[no_grad]
        pub count: usize,
    }

    /// A free differentiable function a method passes `self` to (API.md's `mse(self, ..)`).
    #[differentiable(wrt(b))]
    pub fn spread(b: &Body, t: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..b.count {
            s += b.weights[i] * (b.radii[i] * t).sin();
        }
        s * b.scale + b.centre.x * b.centre.y
    }

    impl Point {
        /// `self` by value, differentiated: `x² y + sin(x)`.
        #[differentiable(wrt(self))]
        pub fn cubic(self) -> f64 {
            self.x * self.x * self.y + self.x.sin()
        }

        /// `self` by value calling a method by reference, and an associated function.
        #[differentiable(wrt(self, t))]
        pub fn moved(self, t: f64) -> f64 {
            self.cubic() * t + Self::square(t)
        }

        #[differentiable]
        pub fn square(t: f64) -> f64 {
            t * t
        }

        /// A pair result: its `_vjp`, `_jvp` and `_jacobian`.
        #[differentiable(wrt(self, t))]
        pub fn rotate(&self, t: f64) -> [f64; 2] {
            [
                self.x * t.cos() - self.y * t.sin(),
                self.x * t.sin() + self.y * t.cos(),
            ]
        }

        /// A tuple result.
        #[differentiable]
        pub fn polar(&self, r: f64, t: f64) -> (f64, f64) {
            (self.x + r * t.cos(), self.y + r * t.sin())
        }
    }

    impl Body {
        /// Calls a free differentiable function with `self`.
        #[differentiable(wrt(self), order = 2)]
        pub fn energy(&self, t: f64) -> f64 {
            spread(self, t) + self.centre.x * self.scale
        }

        /// Reads the nested struct, the array and the `Vec`; `wrt(self, x)` with `x` a slice; `_grad_into`.
        #[differentiable(wrt(self, x))]
        pub fn fit(&self, x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() {
                let r = self.radii[i] * x[i] - self.weights[i] + self.centre.y;
                s += r * r;
            }
            s * self.scale
        }

        /// A method of a constant `self` over `w`, for `optim`: Σ (w_i - r_i)² scale.
        #[differentiable(wrt(w))]
        pub fn bowl(&self, w: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..w.len() {
                s += (w[i] - self.radii[i]) * (w[i] - self.radii[i]);
            }
            s * self.scale
        }

        /// A `Vec` result over `x`: its `_jacobian`.
        #[differentiable(wrt(x))]
        pub fn warp(&self, x: &[f64]) -> Vec<f64> {
            let mut out = vec![0.0; x.len()];
            for i in 0..x.len() {
                out[i] = self.weights[i] * x[i] * x[i] + self.centre.x * x[0];
            }
            out
        }

        /// An output parameter.
        #[differentiable(wrt(x))]
        pub fn residual(&self, x: &[f64], out: &mut [f64]) {
            for i in 0..x.len() {
                out[i] = (self.radii[i] * x[i]).tanh() - self.weights[i];
            }
        }
    }

    fn body(p: &[f64]) -> Body {
        Body {
            centre: Point { x: p[0], y: p[1] },
            radii: [p[2], p[3], 0.5],
            weights: vec![p[4], p[5], -0.25],
            scale: 1.5 + 0.25 * p[0],
            count: 3,
        }
    }

    #[test]
    fn self_by_value_struct_literals_and_associated_functions() {
        for p in points(28_102, 3, 8) {
            let point = Point { x: p[0], y: p[1] };
            let t = p[2];
            let (value, g) = point.cubic_grad();
            assert_close(value, point.cubic(), ANALYTIC_TOL, "cubic");
            let exact = [2.0 * p[0] * p[1] + p[0].cos(), p[0] * p[0]];
            assert_all_close(&[g.x, g.y], &exact, ANALYTIC_TOL, "cubic_grad");
            let (value, (g, gt)) = point.moved_grad(t);
            assert_close(value, point.moved(t), ANALYTIC_TOL, "moved");
            assert_all_close(
                &[g.x, g.y, gt],
                &[exact[0] * t, exact[1] * t, point.cubic() + 2.0 * t],
                ANALYTIC_TOL,
                "moved_grad",
            );
            let plain = |q: &[f64]| (q[0] * q[0] * q[1] + q[0].sin()) * q[2] + q[2] * q[2];
            assert_fd_gradient(plain, &p, &[g.x, g.y, gt], "moved");
            let (value, _) = Point::square_grad(t);
            assert_eq!(value, t * t);
        }
    }

    #[test]
    fn jacobians_of_array_and_tuple_results() {
        for p in points(28_103, 4, 6) {
            let point = Point { x: p[0], y: p[1] };
            let t = p[2];
            let plain = |q: &[f64]| {
                vec![
                    q[0] * q[2].cos() - q[1] * q[2].sin(),
                    q[0] * q[2].sin() + q[1] * q[2].cos(),
                ]
            };
            let j = point.rotate_jacobian(t);
            assert_jacobian(&j, &fd_jacobian(plain, &p[..3]), "rotate_jacobian");
            let (value, (g, gt)) = point.rotate_vjp(t, [0.5, -2.0]);
            assert_eq!(value, point.rotate(t));
            let expected: Vec<f64> = (0..3).map(|k| 0.5 * j[0][k] - 2.0 * j[1][k]).collect();
            assert_all_close(&[g.x, g.y, gt], &expected, 1e-12, "rotate_vjp");
            // `self` is constant without `wrt(self)`: the gradient is over (r, t).
            let (value, (dr, dt)) = point.polar_vjp(p[3], t, (1.0, 0.0));
            assert_eq!(value, point.polar(p[3], t));
            assert_all_close(
                &[dr, dt],
                &[t.cos(), -p[3] * t.sin()],
                ANALYTIC_TOL,
                "polar_vjp",
            );
            let (_, (dr, dt)) = point.polar_vjp(p[3], t, (0.0, 1.0));
            assert_all_close(
                &[dr, dt],
                &[t.sin(), p[3] * t.cos()],
                ANALYTIC_TOL,
                "polar_vjp",
            );
        }
    }

    #[test]
    fn parameter_structs_with_arrays_nested_structs_and_vecs() {
        for p in points(28_104, 7, 6) {
            let b = body(&p);
            let t = p[6];
            // energy = spread(b, t) + centre.x scale.
            let plain = |q: &[f64]| {
                let b = body(q);
                let mut s = 0.0;
                for i in 0..3 {
                    s += b.weights[i] * (b.radii[i] * t).sin();
                }
                s * b.scale + b.centre.x * b.centre.y + b.centre.x * b.scale
            };
            let (value, g) = b.energy_grad(t);
            assert_close(value, b.energy(t), ANALYTIC_TOL, "energy");
            assert_close(value, plain(&p), ANALYTIC_TOL, "energy, plain");
            assert_eq!(g.count, 3);
            // Over the flat view (centre.x, centre.y, radii, weights, scale), by hand.
            let mut s = 0.0;
            for i in 0..3 {
                s += b.weights[i] * (b.radii[i] * t).sin();
            }
            let mut exact = vec![b.centre.y + b.scale, b.centre.x];
            exact.extend((0..3).map(|i| b.weights[i] * t * (b.radii[i] * t).cos() * b.scale));
            exact.extend((0..3).map(|i| (b.radii[i] * t).sin() * b.scale));
            exact.push(s + b.centre.x);
            assert_all_close(&g.to_flat(), &exact, ANALYTIC_TOL, "energy_grad");
            // The Hessian over the flat view, against differences of the gradient.
            let (_, _, h) = b.energy_hessian(t);
            let grad = |flat: &[f64]| b.from_flat(flat).energy_grad(t).1.to_flat();
            assert_hessian(grad, &b.to_flat(), &h, "energy_hessian");

            // fit, and its _grad_into.
            let x = [p[5], -p[4], 0.5 * p[3]];
            let fit = |b: &Body, x: &[f64]| {
                let mut s = 0.0;
                for i in 0..3 {
                    let r = b.radii[i] * x[i] - b.weights[i] + b.centre.y;
                    s += r * r;
                }
                s * b.scale
            };
            let (value, (g, gx)) = b.fit_grad(&x);
            assert_close(value, fit(&b, &x), ANALYTIC_TOL, "fit");
            assert_eq!(b.fit(&x), value);
            let flat: Vec<f64> = b.to_flat().into_iter().chain(x).collect();
            let n = b.to_flat().len();
            let grad: Vec<f64> = g.to_flat().into_iter().chain(gx.iter().copied()).collect();
            assert_fd_gradient(
                |q: &[f64]| fit(&b.from_flat(&q[..n]), &q[n..]),
                &flat,
                &grad,
                "fit",
            );
            let mut into_b = b.clone();
            let mut into_x = [f64::NAN; 3];
            let value_into = b.fit_grad_into(&x, (&mut into_b, &mut into_x));
            assert_eq!(value_into, value);
            assert_eq!(into_b.to_flat(), g.to_flat());
            assert_eq!(into_x.to_vec(), gx);
        }
    }

    #[test]
    fn jacobians_outputs_and_optim_on_methods() {
        for p in points(28_105, 7, 6) {
            let b = body(&p);
            let x = [p[6], p[5], 0.3];
            let warp = |q: &[f64]| {
                (0..3)
                    .map(|i| b.weights[i] * q[i] * q[i] + b.centre.x * q[0])
                    .collect::<Vec<f64>>()
            };
            assert_jacobian(
                &b.warp_jacobian(&x),
                &fd_jacobian(warp, &x),
                "warp_jacobian",
            );
            let mut out = [0.0; 3];
            let j = b.residual_jacobian(&x, &mut out);
            let residual = |q: &[f64]| {
                (0..3)
                    .map(|i| (b.radii[i] * q[i]).tanh() - b.weights[i])
                    .collect::<Vec<f64>>()
            };
            assert_all_close(&out, &residual(&x), ANALYTIC_TOL, "residual");
            let mut again = [0.0; 3];
            b.residual(&x, &mut again);
            assert_eq!(again, out);
            assert_jacobian(&j, &fd_jacobian(residual, &x), "residual_jacobian");
        }
        // Lbfgs on a method's `_grad`: the minimum of Σ (w_i - r_i)² is at the radii.
        let b = body(&[0.1, 0.2, 0.3, -0.4, 0.5, 0.6]);
        let minimum = Lbfgs::default().minimize(|w| b.bowl_grad(w), &[0.0, 0.0, 0.0]);
        assert!(minimum.converged, "{minimum:?}");
        assert_all_close(&minimum.x, &b.radii, 1e-6, "bowl's minimum");
        assert_close(b.bowl(&minimum.x), 0.0, 1e-10, "bowl at its minimum");
    }
}

/// Calls between methods differentiated in `self`, across a trait's `impl` and the inherent one, and the
/// workaround for a constant reaching a plain helper from a method with `wrt(..)`.
mod calls_in_self {
    use super::*;

    pub trait Score {
        fn score(&self, x: f64) -> f64;
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Net {
        pub w: Vec<f64>,
        pub c: f64,
    }

    /// A plain helper, without derivatives.
    pub fn bump(a: f64, t: f64) -> f64 {
        a * t.sin()
    }

    impl Net {
        /// `Σ w_i x^(i+1)`, differentiated in `self` and `x`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn poly(&self, x: f64) -> f64 {
            let mut s = 0.0;
            let mut power = x;
            for i in 0..self.w.len() {
                s += self.w[i] * power;
                power *= x;
            }
            s
        }

        /// The trait's method called from an inherent one, both in `self`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn twice(&self, x: f64) -> f64 {
            self.score(x) * self.c
        }

        /// `wrt(u)`: `t` is a constant passed to a plain helper, through `stop_gradient` (without it,
        /// the error at the call says to write this: `maybe.rs` takes free functions only).
        #[differentiable(wrt(u))]
        pub fn g(&self, u: &[f64], t: f64) -> f64 {
            u[0] * u[0] * self.c + bump(0.5, autodiff::stop_gradient(t))
        }
    }

    #[differentiable]
    impl Score for Net {
        /// `poly(x) c + sin(c x)`: an inherent method in `self` from the trait's.
        #[differentiable(wrt(self, x), order = 2)]
        fn score(&self, x: f64) -> f64 {
            self.poly(x) * self.c + (self.c * x).sin()
        }
    }

    fn score(q: &[f64]) -> f64 {
        // (w0, w1, w2, c, x)
        let (c, x) = (q[3], q[4]);
        (q[0] * x + q[1] * x * x + q[2] * x * x * x) * c + (c * x).sin()
    }

    #[test]
    fn trait_and_inherent_methods_call_each_other_in_self() {
        for p in points(28_201, 5, 8) {
            let net = Net {
                w: vec![p[0], p[1], p[2]],
                c: p[3],
            };
            let x = p[4];
            let (value, (g, gx)) = net.score_grad(x);
            assert_close(value, score(&p), ANALYTIC_TOL, "score");
            assert_eq!(Score::score(&net, x), value);
            let poly = p[0] * x + p[1] * x * x + p[2] * x * x * x;
            let c = p[3];
            let exact = [
                x * c,
                x * x * c,
                x * x * x * c,
                poly + x * (c * x).cos(),
                (p[0] + 2.0 * p[1] * x + 3.0 * p[2] * x * x) * c + c * (c * x).cos(),
            ];
            let grad = [g.w[0], g.w[1], g.w[2], g.c, gx];
            assert_all_close(&grad, &exact, ANALYTIC_TOL, "score_grad");
            assert_fd_gradient(score, &p, &grad, "score");
            let (_, _, h) = net.score_hessian(x);
            let grad_at = |q: &[f64]| {
                let net = Net {
                    w: q[..3].to_vec(),
                    c: q[3],
                };
                let (_, (g, gx)) = net.score_grad(q[4]);
                vec![g.w[0], g.w[1], g.w[2], g.c, gx]
            };
            assert_hessian(grad_at, &p, &h, "score_hessian");
            // twice = score c.
            let (value, (g, gx)) = net.twice_grad(x);
            assert_close(value, net.twice(x), ANALYTIC_TOL, "twice");
            let twice = |q: &[f64]| score(q) * q[3];
            assert_fd_gradient(twice, &p, &[g.w[0], g.w[1], g.w[2], g.c, gx], "twice");
            let (_, _, h) = net.twice_hessian(x);
            let grad_at = |q: &[f64]| {
                let net = Net {
                    w: q[..3].to_vec(),
                    c: q[3],
                };
                let (_, (g, gx)) = net.twice_grad(q[4]);
                vec![g.w[0], g.w[1], g.w[2], g.c, gx]
            };
            assert_hessian(grad_at, &p, &h, "twice_hessian");
            // g: 2 u0 c over u, t constant.
            let u = [p[0], p[1]];
            let (value, gu) = net.g_grad(&u, x);
            assert_close(value, net.g(&u, x), ANALYTIC_TOL, "g");
            assert_close(
                value,
                u[0] * u[0] * c + 0.5 * x.sin(),
                ANALYTIC_TOL,
                "g, plain",
            );
            assert_all_close(&gu, &[2.0 * u[0] * c, 0.0], ANALYTIC_TOL, "g_grad");
        }
    }
}

/// More forms in a trait's `impl`: the attribute by its path, a tuple parameter holding an array, a method
/// generic over its own float type, `wrt(x)` with an iterator, and a trait and type declared in a body.
mod trait_forms {
    use super::*;

    pub trait Shape {
        fn pair(&self, p: (f64, [f64; 2])) -> f64;
        fn cube<S: Float>(&self, x: S) -> S;
        fn sweep(&self, x: &[f64], t: f64) -> f64;
    }

    pub struct Scaled {
        pub k: f64,
    }

    #[autodiff::differentiable]
    impl Shape for Scaled {
        /// `a v0 v1 k`.
        #[autodiff::differentiable]
        fn pair(&self, p: (f64, [f64; 2])) -> f64 {
            let (a, v) = p;
            a * v[0] * v[1] * self.k
        }

        /// `x³ + sin x`, generic over the method's own float type.
        #[differentiable(order = 2)]
        fn cube<T: Float>(&self, x: T) -> T {
            x * x * x + x.sin()
        }

        /// `t Σ x_i²` over `x` alone.
        #[differentiable(wrt(x))]
        fn sweep(&self, x: &[f64], t: f64) -> f64 {
            let mut s = 0.0;
            for &v in x.iter() {
                s += v * v * t;
            }
            s * self.k
        }
    }

    #[test]
    fn tuples_generic_methods_and_iterators_in_a_trait_impl() {
        for p in points(28_301, 4, 8) {
            let s = Scaled {
                k: 1.0 + 0.5 * p[3],
            };
            let k = s.k;
            let (a, v) = (p[0], [p[1], p[2]]);
            let (value, (ga, gv)) = s.pair_grad((a, v));
            assert_close(value, s.pair((a, v)), ANALYTIC_TOL, "pair");
            let grad = [ga, gv[0], gv[1]];
            let exact = [v[0] * v[1] * k, a * v[1] * k, a * v[0] * k];
            assert_all_close(&grad, &exact, ANALYTIC_TOL, "pair_grad");
            assert_fd_gradient(|q| q[0] * q[1] * q[2] * k, &p[..3], &grad, "pair");

            let x = p[0];
            let d = s.cube_derivatives(x);
            let by_hand = [
                x * x * x + x.sin(),
                3.0 * x * x + x.cos(),
                6.0 * x - x.sin(),
            ];
            assert_all_close(&d, &by_hand, ANALYTIC_TOL, "cube_derivatives");
            assert_eq!(s.cube(x), d[0]);
            let (_, slope) = s.cube_grad(x as f32);
            assert_close(slope as f64, by_hand[1], ANALYTIC_TOL_F32, "cube' f32");

            let xs = [p[1], p[2], p[3]];
            let t = p[0];
            let (value, g) = s.sweep_grad(&xs, t);
            assert_close(value, s.sweep(&xs, t), ANALYTIC_TOL, "sweep");
            let exact: Vec<f64> = xs.iter().map(|v| 2.0 * v * t * k).collect();
            assert_all_close(&g, &exact, ANALYTIC_TOL, "sweep_grad");
            let plain = |q: &[f64]| q.iter().map(|v| v * v * t).sum::<f64>() * k;
            assert_fd_gradient(plain, &xs, &g, "sweep");
        }
    }

    #[test]
    fn a_trait_impl_declared_in_a_function_body() {
        trait Local {
            fn f(&self, x: f64) -> f64;
        }
        struct Cell {
            c: f64,
        }
        #[differentiable]
        impl Local for Cell {
            #[differentiable]
            fn f(&self, x: f64) -> f64 {
                self.c * (0.5 * x).exp()
            }
        }
        for p in points(28_302, 2, 6) {
            let cell = Cell { c: p[0] };
            let (value, slope) = cell.f_grad(p[1]);
            assert_close(value, cell.f(p[1]), ANALYTIC_TOL, "f");
            assert_close(slope, 0.5 * p[0] * (0.5 * p[1]).exp(), ANALYTIC_TOL, "f'");
            let fd = central_difference(|x| p[0] * (0.5 * x).exp(), p[1]);
            assert_close(slope, fd, FD_TOL, "f' fd");
        }
    }
}

/// `Self::helper` from a generic `impl` in `self`, `_jacobian` over `self`'s flat view, `_grad_into` of
/// `self` alone, `_hvp` with a struct direction.
mod self_views {
    use super::*;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Gen<T: Float> {
        pub w: Vec<T>,
        pub c: T,
    }

    impl<T: Float> Gen<T> {
        /// `x² c + w0 x`.
        #[differentiable(wrt(self, x))]
        pub fn f(&self, x: T) -> T {
            Self::sq(x) * self.c + self.w[0] * x
        }

        #[differentiable]
        pub fn sq(x: T) -> T {
            x * x
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Pair {
        pub w: Vec<f64>,
        pub c: f64,
    }

    impl Pair {
        /// `[w0 x + c, w1 c]`.
        #[differentiable(wrt(self))]
        pub fn out(&self, x: f64) -> Vec<f64> {
            let mut o = vec![0.0; 2];
            o[0] = self.w[0] * x + self.c;
            o[1] = self.w[1] * self.c;
            o
        }

        /// `w0 w1 x + c²`.
        #[differentiable(wrt(self), order = 2)]
        pub fn e(&self, x: f64) -> f64 {
            self.w[0] * self.w[1] * x + self.c * self.c
        }
    }

    #[test]
    fn flat_views_of_self() {
        for p in points(28_401, 4, 8) {
            let (x, c) = (p[0], p[1]);
            let gen = Gen { w: vec![p[2]], c };
            let (value, (g, gx)) = gen.f_grad(x);
            assert_close(value, gen.f(x), ANALYTIC_TOL, "f");
            assert_eq!(Gen::<f64>::sq(x), x * x);
            assert_all_close(
                &[g.w[0], g.c, gx],
                &[x, x * x, 2.0 * x * c + p[2]],
                ANALYTIC_TOL,
                "f_grad",
            );
            assert_fd_gradient(
                |q| q[0] * q[0] * q[1] + q[2] * q[0],
                &[x, c, p[2]],
                &[gx, g.c, g.w[0]],
                "f",
            );

            let pair = Pair {
                w: vec![p[2], p[3]],
                c,
            };
            let j = pair.out_jacobian(x);
            assert_eq!(pair.out(x), vec![p[2] * x + c, p[3] * c]);
            let out = |q: &[f64]| vec![q[0] * x + q[2], q[1] * q[2]];
            assert_jacobian(&j, &fd_jacobian(out, &pair.to_flat()), "out_jacobian");
            assert_all_close(&j[0], &[x, 0.0, 1.0], ANALYTIC_TOL, "out_jacobian row 0");
            assert_all_close(&j[1], &[0.0, c, p[3]], ANALYTIC_TOL, "out_jacobian row 1");

            let mut g = Pair {
                w: vec![f64::NAN; 2],
                c: f64::NAN,
            };
            let value = pair.e_grad_into(x, &mut g);
            assert_close(value, pair.e(x), ANALYTIC_TOL, "e");
            let exact = [p[3] * x, p[2] * x, 2.0 * c];
            assert_all_close(&g.to_flat(), &exact, ANALYTIC_TOL, "e_grad_into");
            let e = |q: &[f64]| q[0] * q[1] * x + q[2] * q[2];
            assert_fd_gradient(e, &pair.to_flat(), &exact, "e");
            // H = [[0, x, 0], [x, 0, 0], [0, 0, 2]].
            let direction = Pair {
                w: vec![0.7, -0.4],
                c: 1.3,
            };
            let (_, _, hv) = pair.e_hvp(x, direction);
            assert_all_close(
                &hv.to_flat(),
                &[-0.4 * x, 0.7 * x, 2.6],
                ANALYTIC_TOL,
                "e_hvp",
            );
        }
    }
}
