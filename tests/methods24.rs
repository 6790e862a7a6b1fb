//! Methods and `Differentiable` parameter structs at every order, probed as a user writes them: methods of
//! generic `impl`s with `order = 2` (reading no float field, reading a matrix field), `wrt(self, x)`, `self`
//! by value, calls of `Self::helper(..)` and `self.other(..)`, `_hessian`/`_hvp`/`_jacobian`/`_grad_into`
//! on methods, nested structs, array fields, generic structs, the `Differentiable` trait on nested structs
//! with `#[no_grad]` fields, `autodiff::optim` and `check_gradient_of` on such structs.
//!
//! Gradients are checked against central differences of the primal (and a formula where short) on many
//! inputs; Hessians against central differences of the generated gradient.

// Differentiable bodies index their arrays (`for i in 0..n`), the form under test.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{check_gradient_of, differentiable, Differentiable, Float};
use common::*;

/// Asserts that `hessian` (rows over the flat inputs `x`) is the Jacobian of `grad` at `x` by central
/// differences, and symmetric.
#[track_caller]
fn assert_hessian(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], hessian: &[Vec<f64>], what: &str) {
    assert_eq!(hessian.len(), x.len(), "{what}: Hessian rows");
    let expected = fd_jacobian(grad, x);
    assert_jacobian(hessian, &expected, what);
    for i in 0..x.len() {
        for j in 0..i {
            assert_close(
                hessian[i][j],
                hessian[j][i],
                1e-9,
                &format!("{what}: symmetry {i},{j}"),
            );
        }
    }
}

/// Asserts that `product` is `hessian · v`.
#[track_caller]
fn assert_product(hessian: &[Vec<f64>], v: &[f64], product: &[f64], what: &str) {
    let expected: Vec<f64> = hessian.iter().map(|row| dot(row, v)).collect();
    assert_all_close(product, &expected, 1e-9, what);
}

/// Methods of a generic `impl` at `order = 2`.
mod generic_impl {
    use super::*;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Model<T: Float> {
        pub w: Vec<T>,
        pub b: T,
        #[no_grad]
        pub n: usize,
    }

    impl<T: Float> Model<T> {
        /// `Σ_i x_i` over the first `n` inputs: no float field of `self` is read, `self` differentiated.
        #[differentiable(wrt(self), order = 2)]
        pub fn count(&self, x: &[T]) -> T {
            let mut s = T::zero();
            for i in 0..self.n {
                s = s + x[i] * x[i];
            }
            s
        }

        /// The same with `x` differentiated too: the Hessian is over `x`, zeros for the fields.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn count_x(&self, x: &[T]) -> T {
            let mut s = T::zero();
            for i in 0..self.n {
                s = s + (x[i] * x[i]).sin();
            }
            s
        }

        /// `b Σ_i sin(w_i x_i)`, both differentiated.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn energy(&self, x: &[T]) -> T {
            let mut s = T::zero();
            for i in 0..self.w.len() {
                s = s + (self.w[i] * x[i]).sin();
            }
            s * self.b
        }
    }

    fn model(inputs: &mut Inputs) -> Model<f64> {
        Model {
            w: inputs.vec(3),
            b: inputs.next(),
            n: 2,
        }
    }

    #[test]
    fn a_method_reading_no_float_field_has_zero_derivatives_in_self() {
        let mut inputs = Inputs(11);
        for _ in 0..20 {
            let m = model(&mut inputs);
            let x = inputs.vec(3);
            let expected = x[0] * x[0] + x[1] * x[1];
            let (value, g) = m.count_grad(&x);
            assert_close(value, expected, ANALYTIC_TOL, "count");
            assert!(g.to_flat().iter().all(|&d| d == 0.0), "{g:?}");
            assert_eq!(g.n, m.n, "a #[no_grad] field is copied");
            let v = Model {
                w: inputs.vec(3),
                b: inputs.next(),
                n: 2,
            };
            let (value, g, hv) = m.count_hvp(&x, v);
            assert_close(value, expected, ANALYTIC_TOL, "count_hvp value");
            assert!(g.to_flat().iter().chain(&hv.to_flat()).all(|&d| d == 0.0));
            let (value, g, h) = m.count_hessian(&x);
            assert_close(value, expected, ANALYTIC_TOL, "count_hessian value");
            assert!(g.to_flat().iter().all(|&d| d == 0.0));
            assert_eq!(h.len(), 4);
            assert!(
                h.iter()
                    .all(|row| row.len() == 4 && row.iter().all(|&d| d == 0.0)),
                "{h:?}"
            );
        }
    }

    #[test]
    fn a_method_reading_no_float_field_beside_a_differentiated_slice() {
        let mut inputs = Inputs(12);
        for _ in 0..20 {
            let m = model(&mut inputs);
            let x = inputs.vec(3);
            let flat = |m: &Model<f64>, x: &[f64]| [m.to_flat(), x.to_vec()].concat();
            let grad = |z: &[f64]| {
                let (_, (gm, gx)) = m.from_flat(&z[..4]).count_x_grad(&z[4..]);
                flat(&gm, &gx)
            };
            let z = flat(&m, &x);
            let (value, g, h) = m.count_x_hessian(&x);
            assert_close(value, m.count_x(&x), ANALYTIC_TOL, "value");
            assert_fd_gradient(
                |z| m.from_flat(&z[..4]).count_x(&z[4..]),
                &z,
                &grad(&z),
                "count_x",
            );
            assert_all_close(&flat(&g.0, &g.1), &grad(&z), 1e-12, "hessian's gradient");
            assert_hessian(grad, &z, &h, "count_x");
            let (vm, vx) = (model(&mut inputs), inputs.vec(3));
            let (_, _, (hm, hx)) = m.count_x_hvp(&x, (vm.clone(), vx.clone()));
            assert_product(&h, &flat(&vm, &vx), &flat(&hm, &hx), "count_x_hvp");
        }
    }

    #[test]
    fn a_method_reading_float_fields() {
        let mut inputs = Inputs(13);
        for _ in 0..20 {
            let m = model(&mut inputs);
            let x = inputs.vec(3);
            let flat = |m: &Model<f64>, x: &[f64]| [m.to_flat(), x.to_vec()].concat();
            let value = |z: &[f64]| m.from_flat(&z[..4]).energy(&z[4..]);
            let grad = |z: &[f64]| {
                let (_, (gm, gx)) = m.from_flat(&z[..4]).energy_grad(&z[4..]);
                flat(&gm, &gx)
            };
            let z = flat(&m, &x);
            assert_fd_gradient(value, &z, &grad(&z), "energy");
            let (_, _, h) = m.energy_hessian(&x);
            assert_hessian(grad, &z, &h, "energy");
        }
    }
}

/// A method of a generic `impl` reading a matrix field at `order = 2`.
mod generic_matrix {
    use super::*;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Layer<T: Float> {
        pub w: Vec<Vec<T>>,
        pub b: Vec<T>,
    }

    impl<T: Float> Layer<T> {
        /// `Σ_h tanh(b_h + Σ_j w_hj x_j)`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn activation(&self, x: &[T]) -> T {
            let mut total = T::zero();
            for h in 0..self.w.len() {
                let mut s = self.b[h];
                for j in 0..x.len() {
                    s = s + self.w[h][j] * x[j];
                }
                total = total + s.tanh();
            }
            total
        }
    }

    /// Matrices of fixed-size rows, and a `#[no_grad]` matrix.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Grid<T: Float> {
        pub m: [[T; 3]; 2],
        pub rows: Vec<[T; 2]>,
        #[no_grad]
        pub weights: Vec<Vec<T>>,
    }

    impl<T: Float> Grid<T> {
        /// `Σ_ij weights_ij sin(m_ij x) + Σ_k rows_k0 rows_k1 x²`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn energy(&self, x: T) -> T {
            let mut s = T::zero();
            for i in 0..2 {
                for j in 0..3 {
                    s = s + self.weights[i][j] * (self.m[i][j] * x).sin();
                }
            }
            for k in 0..self.rows.len() {
                s = s + self.rows[k][0] * self.rows[k][1] * x * x;
            }
            s
        }
    }

    /// A free generic function of the same struct.
    #[differentiable(order = 2)]
    pub fn grid_free<T: Float>(g: &Grid<T>, x: T) -> T {
        let mut s = T::zero();
        for i in 0..2 {
            for j in 0..3 {
                s = s + g.m[i][j] * g.m[i][j] * x.cos() * g.weights[j % 2][i];
            }
        }
        s + g.rows[0][1] * x
    }

    #[test]
    fn fixed_size_rows_and_a_no_grad_matrix_at_order_two() {
        let mut inputs = Inputs(22);
        for _ in 0..10 {
            let fixed = |inputs: &mut Inputs| [inputs.next(), inputs.next(), inputs.next()];
            let g = Grid {
                m: [fixed(&mut inputs), fixed(&mut inputs)],
                rows: vec![
                    [inputs.next(), inputs.next()],
                    [inputs.next(), inputs.next()],
                ],
                weights: inputs.rows(2, 3),
            };
            let x = inputs.next();
            let n = g.to_flat().len();
            assert_eq!(n, 10, "m and rows, not the #[no_grad] weights");
            let z = [g.to_flat(), vec![x]].concat();
            for (name, value, grad, hessian) in [
                (
                    "energy",
                    Box::new(|z: &[f64]| g.from_flat(&z[..n]).energy(z[n]))
                        as Box<dyn Fn(&[f64]) -> f64>,
                    Box::new(|z: &[f64]| {
                        let (_, (a, b)) = g.from_flat(&z[..n]).energy_grad(z[n]);
                        [a.to_flat(), vec![b]].concat()
                    }) as Box<dyn Fn(&[f64]) -> Vec<f64>>,
                    g.energy_hessian(x).2,
                ),
                (
                    "grid_free",
                    Box::new(|z: &[f64]| grid_free(&g.from_flat(&z[..n]), z[n])),
                    Box::new(|z: &[f64]| {
                        let (_, (a, b)) = grid_free_grad(&g.from_flat(&z[..n]), z[n]);
                        [a.to_flat(), vec![b]].concat()
                    }),
                    grid_free_hessian(&g, x).2,
                ),
            ] {
                assert_fd_gradient(&value, &z, &grad(&z), name);
                assert_hessian(&grad, &z, &hessian, name);
            }
            let (_, (gg, _), _) = g.energy_hessian(x);
            assert_eq!(gg.weights, g.weights, "a #[no_grad] field is copied");
        }
    }

    #[test]
    fn the_hessian_of_a_method_reading_a_matrix_field() {
        let mut inputs = Inputs(21);
        for _ in 0..10 {
            let l = Layer {
                w: inputs.rows(2, 3),
                b: inputs.vec(2),
            };
            let x = inputs.vec(3);
            let n = l.to_flat().len();
            let flat = |l: &Layer<f64>, x: &[f64]| [l.to_flat(), x.to_vec()].concat();
            let value = |z: &[f64]| l.from_flat(&z[..n]).activation(&z[n..]);
            let grad = |z: &[f64]| {
                let (_, (gl, gx)) = l.from_flat(&z[..n]).activation_grad(&z[n..]);
                flat(&gl, &gx)
            };
            let z = flat(&l, &x);
            assert_fd_gradient(value, &z, &grad(&z), "activation");
            let (v, g, h) = l.activation_hessian(&x);
            assert_close(v, l.activation(&x), ANALYTIC_TOL, "value");
            assert_all_close(&flat(&g.0, &g.1), &grad(&z), 1e-12, "hessian's gradient");
            assert_hessian(grad, &z, &h, "activation");
        }
    }
}

/// Methods of a non-generic `impl`: `wrt(self, x)`, `self` by value, `Self::helper(..)` and
/// `self.other(..)` at `order = 2`, `_grad_into` and `_jacobian`.
mod plain_impl {
    use super::*;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Spring {
        pub k: f64,
        pub rest: [f64; 2],
        #[no_grad]
        pub scale: f64,
    }

    impl Spring {
        /// `k (x0 - r0)² + k (x1 - r1)² ` scaled, through `Self::square`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn energy(&self, x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..2 {
                s += self.k * Self::square(x[i] - self.rest[i]);
            }
            s * self.scale
        }

        #[differentiable]
        fn square(u: f64) -> f64 {
            u * u
        }

        /// `energy` plus a sine, through `self.energy(..)`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn wobbly(&self, x: &[f64]) -> f64 {
            self.energy(x) + (self.k * x[0]).sin()
        }

        /// `self` taken by value.
        #[differentiable(wrt(self, t), order = 2)]
        pub fn by_value(self, t: f64) -> f64 {
            (self.k * t).cos() * self.rest[0] + self.rest[1] * t * t
        }

        /// A vector output: the Jacobian over `self` and `x`.
        #[differentiable(wrt(self, x))]
        pub fn forces(&self, x: &[f64]) -> Vec<f64> {
            let mut f = vec![0.0; 2];
            for i in 0..2 {
                f[i] = -self.k * (x[i] - self.rest[i]) * self.scale;
            }
            f
        }
    }

    fn spring(inputs: &mut Inputs) -> Spring {
        Spring {
            k: inputs.next() + 2.0,
            rest: [inputs.next(), inputs.next()],
            scale: 1.5,
        }
    }

    fn flat(s: &Spring, x: &[f64]) -> Vec<f64> {
        [s.to_flat(), x.to_vec()].concat()
    }

    #[test]
    fn energy_and_wobbly_at_order_two() {
        let mut inputs = Inputs(31);
        for _ in 0..20 {
            let s = spring(&mut inputs);
            let x = inputs.vec(2);
            let z = flat(&s, &x);
            // energy, analytic gradient.
            let (value, (gs, gx)) = s.energy_grad(&x);
            let d = [x[0] - s.rest[0], x[1] - s.rest[1]];
            assert_close(
                value,
                1.5 * s.k * (d[0] * d[0] + d[1] * d[1]),
                ANALYTIC_TOL,
                "energy",
            );
            assert_close(
                gs.k,
                1.5 * (d[0] * d[0] + d[1] * d[1]),
                ANALYTIC_TOL,
                "d/dk",
            );
            assert_close(gs.rest[1], -3.0 * s.k * d[1], ANALYTIC_TOL, "d/drest1");
            assert_close(gx[0], 3.0 * s.k * d[0], ANALYTIC_TOL, "d/dx0");
            assert_eq!(gs.scale, s.scale, "a #[no_grad] field is copied");
            for (name, value, grad, hessian) in [
                (
                    "energy",
                    Box::new(|z: &[f64]| s.from_flat(&z[..3]).energy(&z[3..]))
                        as Box<dyn Fn(&[f64]) -> f64>,
                    Box::new(|z: &[f64]| {
                        let (_, (a, b)) = s.from_flat(&z[..3]).energy_grad(&z[3..]);
                        flat(&a, &b)
                    }) as Box<dyn Fn(&[f64]) -> Vec<f64>>,
                    s.energy_hessian(&x).2,
                ),
                (
                    "wobbly",
                    Box::new(|z: &[f64]| s.from_flat(&z[..3]).wobbly(&z[3..])),
                    Box::new(|z: &[f64]| {
                        let (_, (a, b)) = s.from_flat(&z[..3]).wobbly_grad(&z[3..]);
                        flat(&a, &b)
                    }),
                    s.wobbly_hessian(&x).2,
                ),
            ] {
                assert_fd_gradient(&value, &z, &grad(&z), name);
                assert_hessian(&grad, &z, &hessian, name);
            }
            let v = (spring(&mut inputs), inputs.vec(2));
            let (_, _, (ps, px)) = s.wobbly_hvp(&x, v.clone());
            let h = s.wobbly_hessian(&x).2;
            let mut vflat = flat(&v.0, &v.1);
            // The direction's `#[no_grad]` field is no input.
            vflat.truncate(5);
            assert_product(&h, &vflat, &flat(&ps, &px), "wobbly_hvp");
        }
    }

    #[test]
    fn self_by_value_at_order_two() {
        let mut inputs = Inputs(32);
        for _ in 0..20 {
            let s = spring(&mut inputs);
            let t = inputs.next();
            let z = [s.to_flat(), vec![t]].concat();
            let grad = |z: &[f64]| {
                let (_, (a, b)) = s.from_flat(&z[..3]).by_value_grad(z[3]);
                [a.to_flat(), vec![b]].concat()
            };
            assert_fd_gradient(
                |z| s.from_flat(&z[..3]).by_value(z[3]),
                &z,
                &grad(&z),
                "by_value",
            );
            let (_, _, h) = s.clone().by_value_hessian(t);
            assert_hessian(grad, &z, &h, "by_value");
        }
    }

    #[test]
    fn grad_into_and_jacobian_of_methods() {
        let mut inputs = Inputs(33);
        for _ in 0..20 {
            let s = spring(&mut inputs);
            let x = inputs.vec(2);
            let (value, (gs, gx)) = s.energy_grad(&x);
            let mut bs = s.zero_like();
            let mut bx = vec![7.0; 2];
            let into = s.energy_grad_into(&x, (&mut bs, &mut bx));
            assert_eq!(into, value);
            assert_eq!(bs.to_flat(), gs.to_flat());
            assert_eq!(bx, gx);
            let j = s.forces_jacobian(&x);
            let z = flat(&s, &x);
            let expected = fd_jacobian(|z| s.from_flat(&z[..3]).forces(&z[3..]), &z);
            assert_jacobian(&j, &expected, "forces_jacobian");
        }
    }
}

/// Nested structs and array fields in a free function at `order = 2`, and the trait on them.
mod nested {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Differentiable)]
    pub struct Inner {
        pub a: [f64; 3],
        #[no_grad]
        pub tag: usize,
        pub c: f64,
    }

    #[derive(Clone, Debug, PartialEq, Differentiable)]
    pub struct Outer {
        pub inner: Inner,
        pub v: Vec<f64>,
        #[no_grad]
        pub fixed: Vec<f64>,
    }

    /// `c Σ a_i v_i x + Σ fixed_i v_i²`.
    #[differentiable(wrt(p, x), order = 2)]
    pub fn nested_energy(p: &Outer, x: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..3 {
            s += p.inner.a[i] * p.v[i] * x;
        }
        let mut t = 0.0;
        for i in 0..3 {
            t += p.fixed[i] * p.v[i] * p.v[i];
        }
        s * p.inner.c + t
    }

    fn outer(inputs: &mut Inputs) -> Outer {
        Outer {
            inner: Inner {
                a: [inputs.next(), inputs.next(), inputs.next()],
                tag: 4,
                c: inputs.next(),
            },
            v: inputs.vec(3),
            fixed: inputs.vec(3),
        }
    }

    #[test]
    fn gradient_and_hessian_of_a_nested_struct() {
        let mut inputs = Inputs(41);
        for _ in 0..20 {
            let p = outer(&mut inputs);
            let x = inputs.next();
            let n = p.to_flat().len();
            assert_eq!(n, 7);
            let z = [p.to_flat(), vec![x]].concat();
            let grad = |z: &[f64]| {
                let (_, (g, gx)) = nested_energy_grad(&p.from_flat(&z[..n]), z[n]);
                [g.to_flat(), vec![gx]].concat()
            };
            assert_fd_gradient(
                |z| nested_energy(&p.from_flat(&z[..n]), z[n]),
                &z,
                &grad(&z),
                "nested",
            );
            let (value, (g, _), h) = nested_energy_hessian(&p, x);
            assert_close(value, nested_energy(&p, x), ANALYTIC_TOL, "value");
            assert_eq!(g.inner.tag, 4);
            assert_eq!(g.fixed, p.fixed);
            assert_hessian(grad, &z, &h, "nested");
        }
    }

    #[test]
    fn the_trait_on_nested_structs_with_no_grad_fields() {
        let mut inputs = Inputs(42);
        let p = outer(&mut inputs);
        let flat = p.to_flat();
        let expected: Vec<f64> = p
            .inner
            .a
            .iter()
            .copied()
            .chain([p.inner.c])
            .chain(p.v.iter().copied())
            .collect();
        assert_eq!(
            flat, expected,
            "the differentiable fields in declaration order"
        );
        let q = p.from_flat(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
        assert_eq!(q.inner.a, [1.0, 2.0, 3.0]);
        assert_eq!(q.inner.c, 4.0);
        assert_eq!(q.v, vec![5.0, 6.0, 7.0]);
        assert_eq!(
            (q.inner.tag, &q.fixed),
            (p.inner.tag, &p.fixed),
            "#[no_grad] fields copied"
        );
        let z = p.zero_like();
        assert!(z.to_flat().iter().all(|&d| d == 0.0));
        assert_eq!((z.inner.tag, &z.fixed), (p.inner.tag, &p.fixed));
        let mut s = q.clone();
        s.scale(2.0);
        assert_eq!(s.to_flat(), vec![2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]);
        assert_eq!(s.fixed, p.fixed, "scale leaves #[no_grad] fields");
        s.add_assign(&q);
        assert_eq!(s.to_flat(), vec![3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0]);
        assert_eq!(s.fixed, p.fixed, "add_assign leaves #[no_grad] fields");
    }

    #[test]
    fn check_gradient_of_and_optim_on_a_nested_struct() {
        use autodiff::optim::{Lbfgs, Minimizer};
        let mut inputs = Inputs(43);
        let p = outer(&mut inputs);
        let x = 0.7;
        let (_, (g, _)) = nested_energy_grad(&p, x);
        let check = check_gradient_of(|p: &Outer| nested_energy(p, x), &p, &g);
        assert!(check.is_ok(FD_TOL), "{check}");
        // A wrong gradient is caught.
        let mut wrong = g.clone();
        wrong.inner.c += 0.5;
        assert!(!check_gradient_of(|p: &Outer| nested_energy(p, x), &p, &wrong).is_ok(FD_TOL));
        // A convex objective of the struct: Σ (flat_i - 1)² through a method-free function.
        let (best, minimum) = Lbfgs::default().minimize_params(|q: &Outer| bowl_grad(q), &p);
        assert!(bowl(&best) < 1e-10, "{best:?}");
        assert!(minimum.converged, "{minimum:?}");
        for d in best.to_flat() {
            assert!((d - 1.0).abs() < 1e-6, "{best:?}");
        }
        assert_eq!(best.fixed, p.fixed);
    }

    /// `Σ (a_i - 1)² + (c - 1)² + Σ (v_i - 1)²`.
    #[differentiable]
    pub fn bowl(p: &Outer) -> f64 {
        let mut s = (p.inner.c - 1.0) * (p.inner.c - 1.0);
        for i in 0..3 {
            s += (p.inner.a[i] - 1.0) * (p.inner.a[i] - 1.0) + (p.v[i] - 1.0) * (p.v[i] - 1.0);
        }
        s
    }
}

/// A generic struct `S<T>` in a generic function at `order = 2` (its derivatives at `Dual<T>`).
mod generic_struct {
    use super::*;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Quad<T: Float> {
        pub a: T,
        pub c: [T; 2],
        #[no_grad]
        pub power: i32,
    }

    /// `a x^power + c0 x + c1 sin(x a)`.
    #[differentiable(order = 2)]
    pub fn quad<T: Float>(q: &Quad<T>, x: T) -> T {
        q.a * x.powi(q.power) + q.c[0] * x + q.c[1] * (x * q.a).sin()
    }

    #[test]
    fn gradient_and_hessian_of_a_generic_struct() {
        let mut inputs = Inputs(51);
        for _ in 0..20 {
            let q = Quad {
                a: inputs.next(),
                c: [inputs.next(), inputs.next()],
                power: 3,
            };
            let x = inputs.next();
            let z = [q.to_flat(), vec![x]].concat();
            let grad = |z: &[f64]| {
                let (_, (g, gx)) = quad_grad(&q.from_flat(&z[..3]), z[3]);
                [g.to_flat(), vec![gx]].concat()
            };
            let (_, (g, gx)) = quad_grad(&q, x);
            assert_close(
                gx,
                3.0 * q.a * x * x + q.c[0] + q.c[1] * q.a * (x * q.a).cos(),
                ANALYTIC_TOL,
                "d/dx",
            );
            assert_close(
                g.a,
                x.powi(3) + q.c[1] * x * (x * q.a).cos(),
                ANALYTIC_TOL,
                "d/da",
            );
            assert_fd_gradient(|z| quad(&q.from_flat(&z[..3]), z[3]), &z, &grad(&z), "quad");
            let (_, _, h) = quad_hessian(&q, x);
            assert_hessian(grad, &z, &h, "quad");
        }
    }
}

/// A `#[no_grad]` integer field read as `powi`'s exponent: a constant of its declared type at every order,
/// in a callee a struct is passed to on whole, in a method and in a generic function.
mod exponents {
    use super::*;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Poly {
        pub a: f64,
        #[no_grad]
        pub n: i32,
    }

    /// `a x^n`, at first order only: an `order = 2` caller passes the struct on whole.
    #[differentiable]
    pub fn term(p: &Poly, x: f64) -> f64 {
        p.a * x.powi(p.n)
    }

    /// `a² x^n + x^n`.
    #[differentiable(order = 2)]
    pub fn poly(p: &Poly, x: f64) -> f64 {
        term(p, x) * p.a + x.powi(p.n)
    }

    impl Poly {
        /// `a x^(n + 1)`, through `self.n` read directly as an exponent.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn raised(&self, x: f64) -> f64 {
            self.a * x.powi(self.n) * x
        }
    }

    #[test]
    fn integer_exponents_read_from_fields() {
        let mut inputs = Inputs(61);
        for n in [0, 1, 2, 3, 5] {
            for _ in 0..5 {
                let p = Poly {
                    a: inputs.next(),
                    n,
                };
                let x = inputs.next();
                let (nf, a) = (f64::from(n), p.a);
                let (value, (gp, gx)) = poly_grad(&p, x);
                assert_close(value, (a * a + 1.0) * x.powi(n), ANALYTIC_TOL, "poly");
                assert_close(gp.a, 2.0 * a * x.powi(n), ANALYTIC_TOL, "d/da");
                let dx = if n == 0 {
                    0.0
                } else {
                    (a * a + 1.0) * nf * x.powi(n - 1)
                };
                assert_close(gx, dx, ANALYTIC_TOL, "d/dx");
                assert_eq!(gp.n, n);
                let z = [a, x];
                let grad = |z: &[f64]| {
                    let (_, (g, gx)) = poly_grad(&Poly { a: z[0], n }, z[1]);
                    vec![g.a, gx]
                };
                assert_fd_gradient(|z| poly(&Poly { a: z[0], n }, z[1]), &z, &grad(&z), "poly");
                assert_hessian(grad, &z, &poly_hessian(&p, x).2, "poly");
                let grad = |z: &[f64]| {
                    let (_, (g, gx)) = Poly { a: z[0], n }.raised_grad(z[1]);
                    vec![g.a, gx]
                };
                assert_fd_gradient(
                    |z| Poly { a: z[0], n }.raised(z[1]),
                    &z,
                    &grad(&z),
                    "raised",
                );
                assert_hessian(grad, &z, &p.raised_hessian(x).2, "raised");
            }
        }
    }
}

/// `#[no_grad]` fields of integers read as a user writes them: elements converted by `as f64` only,
/// followed through `.zip(..)`, `.enumerate()` and closures, and a name that shadows an element.
mod integer_fields {
    use super::*;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Sparse {
        pub w: Vec<f64>,
        #[no_grad]
        pub idx: Vec<usize>,
        #[no_grad]
        pub counts: Vec<u32>,
    }

    /// `Σ_k counts_k w_k x_k²`: `counts` read only as `counts[k] as f64`.
    #[differentiable(order = 2)]
    pub fn weighted(p: &Sparse, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for k in 0..p.w.len() {
            s += p.counts[k] as f64 * p.w[k] * x[k] * x[k];
        }
        s
    }

    /// `Σ_k w_k sin(x[idx_k])` through `zip`.
    #[differentiable(order = 2)]
    pub fn gathered(p: &Sparse, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (&j, &w) in p.idx.iter().zip(p.w.iter()) {
            s += w * x[j].sin();
        }
        s
    }

    /// The same through `enumerate` and a closure.
    #[differentiable]
    pub fn gathered_closure(p: &Sparse, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (k, &j) in p.idx.iter().enumerate() {
            s += p.w[k] * x[j].sin();
        }
        s + p.idx.iter().map(|&j| x[j] * x[j]).sum::<f64>()
    }

    /// A local bound to an element of the float field `w`, then the same name bound by a loop over
    /// indexes: the index does not make `w` integers.
    #[differentiable]
    pub fn shadowed(p: &Sparse, x: &[f64]) -> f64 {
        let j = p.w[0];
        let mut s = j * x[0];
        for j in 0..x.len() {
            s += p.w[j] * x[j];
        }
        s
    }

    fn sparse(inputs: &mut Inputs) -> Sparse {
        Sparse {
            w: inputs.vec(3),
            idx: vec![2, 0, 2],
            counts: vec![1, 3, 2],
        }
    }

    #[test]
    fn integer_fields_as_users_read_them() {
        let mut inputs = Inputs(71);
        for _ in 0..20 {
            let p = sparse(&mut inputs);
            let x = inputs.vec(3);
            let z = [p.to_flat(), x.clone()].concat();
            let at = |z: &[f64]| p.from_flat(&z[..3]);
            // weighted, with a formula.
            let (value, (g, gx)) = weighted_grad(&p, &x);
            let c = [1.0, 3.0, 2.0];
            let expected: f64 = (0..3).map(|k| c[k] * p.w[k] * x[k] * x[k]).sum();
            assert_close(value, expected, ANALYTIC_TOL, "weighted");
            assert_eq!(value, weighted(&p, &x));
            for k in 0..3 {
                assert_close(g.w[k], c[k] * x[k] * x[k], ANALYTIC_TOL, "weighted: w");
                assert_close(
                    gx[k],
                    2.0 * c[k] * p.w[k] * x[k],
                    ANALYTIC_TOL,
                    "weighted: x",
                );
            }
            assert_eq!((&g.idx, &g.counts), (&p.idx, &p.counts));
            let grad = |z: &[f64]| {
                let (_, (g, gx)) = weighted_grad(&at(z), &z[3..]);
                [g.to_flat(), gx].concat()
            };
            assert_hessian(grad, &z, &weighted_hessian(&p, &x).2, "weighted");
            // gathered, against differences.
            let grad = |z: &[f64]| {
                let (_, (g, gx)) = gathered_grad(&at(z), &z[3..]);
                [g.to_flat(), gx].concat()
            };
            assert_fd_gradient(|z| gathered(&at(z), &z[3..]), &z, &grad(&z), "gathered");
            assert_hessian(grad, &z, &gathered_hessian(&p, &x).2, "gathered");
            for (name, f, g) in [
                (
                    "gathered_closure",
                    gathered_closure as fn(&Sparse, &[f64]) -> f64,
                    gathered_closure_grad as fn(&Sparse, &[f64]) -> (f64, (Sparse, Vec<f64>)),
                ),
                ("shadowed", shadowed, shadowed_grad),
            ] {
                let (_, (gp, gx)) = g(&p, &x);
                assert_fd_gradient(
                    |z| f(&at(z), &z[3..]),
                    &z,
                    &[gp.to_flat(), gx].concat(),
                    name,
                );
            }
        }
    }
}

/// What were UI errors before: a matrix field of a constant struct at `order = 2` (`wrt(x)`), and a
/// `#[no_grad]` integer array read only as `p.data[i] as f64`.
mod former_errors {
    use super::*;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Dense {
        pub w: Vec<Vec<f64>>,
        pub b: Vec<f64>,
    }

    /// `w00 x² + b0 + sin(w10 x)`, the struct constant.
    #[differentiable(wrt(x), order = 3)]
    pub fn second(p: &Dense, x: f64) -> f64 {
        p.w[0][0] * x * x + p.b[0] + (p.w[1][0] * x).sin()
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Model {
        pub w: Vec<f64>,
        #[no_grad]
        pub data: Vec<usize>,
    }

    /// `w0 x data1`.
    #[differentiable(order = 2)]
    pub fn predict(p: &Model, x: f64) -> f64 {
        p.w[0] * x * p.data[1] as f64
    }

    #[test]
    fn a_constant_struct_with_a_matrix_field_at_order_three() {
        let mut inputs = Inputs(81);
        for _ in 0..20 {
            let d = Dense {
                w: inputs.rows(2, 2),
                b: inputs.vec(2),
            };
            let x = inputs.next();
            let (a, c) = (d.w[0][0], d.w[1][0]);
            let [f, f1, f2, f3] = second_derivatives(&d, x);
            assert_close(f, a * x * x + d.b[0] + (c * x).sin(), ANALYTIC_TOL, "f");
            assert_eq!(f, second(&d, x));
            assert_close(f1, 2.0 * a * x + c * (c * x).cos(), ANALYTIC_TOL, "f'");
            assert_close(f2, 2.0 * a - c * c * (c * x).sin(), ANALYTIC_TOL, "f''");
            assert_close(f3, -c * c * c * (c * x).cos(), ANALYTIC_TOL, "f'''");
            let (_, g, h) = second_hessian(&d, x);
            assert_close(g, f1, ANALYTIC_TOL, "hessian's gradient");
            assert_close(
                h[0][0],
                central_difference(|x| second_grad(&d, x).1, x),
                1e-6,
                "f'' by differences",
            );
        }
    }

    #[test]
    fn an_integer_array_read_as_floats() {
        let mut inputs = Inputs(82);
        for _ in 0..20 {
            let p = Model {
                w: inputs.vec(2),
                data: vec![4, 7],
            };
            let x = inputs.next();
            let (value, (g, gx)) = predict_grad(&p, x);
            assert_close(value, 7.0 * p.w[0] * x, ANALYTIC_TOL, "predict");
            assert_all_close(&g.w, &[7.0 * x, 0.0], ANALYTIC_TOL, "d/dw");
            assert_close(gx, 7.0 * p.w[0], ANALYTIC_TOL, "d/dx");
            assert_eq!(g.data, p.data);
            let z = [p.to_flat(), vec![x]].concat();
            let grad = |z: &[f64]| {
                let (_, (g, gx)) = predict_grad(&p.from_flat(&z[..2]), z[2]);
                [g.to_flat(), vec![gx]].concat()
            };
            assert_fd_gradient(
                |z| predict(&p.from_flat(&z[..2]), z[2]),
                &z,
                &grad(&z),
                "predict",
            );
            assert_hessian(grad, &z, &predict_hessian(&p, x).2, "predict");
        }
    }
}

/// A method of a generic `impl` calling an associated function (`Self::helper(..)`) at `order = 2`.
mod generic_helper {
    use super::*;

    #[derive(Clone, Debug, Differentiable)]
    pub struct Well<T: Float> {
        pub depth: T,
        pub width: T,
    }

    impl<T: Float> Well<T> {
        #[differentiable]
        fn bump(u: T) -> T {
            (-(u * u)).exp()
        }

        /// `-depth · bump(x / width)`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn potential(&self, x: T) -> T {
            -self.depth * Self::bump(x / self.width)
        }
    }

    #[test]
    fn an_associated_function_called_at_order_two() {
        let mut inputs = Inputs(91);
        for _ in 0..20 {
            let w = Well {
                depth: inputs.next(),
                width: inputs.next() + 2.0,
            };
            let x = inputs.next();
            let z = vec![w.depth, w.width, x];
            let at = |z: &[f64]| Well {
                depth: z[0],
                width: z[1],
            };
            let grad = |z: &[f64]| {
                let (_, (g, gx)) = at(z).potential_grad(z[2]);
                vec![g.depth, g.width, gx]
            };
            let u = x / w.width;
            let (value, (g, gx)) = w.potential_grad(x);
            assert_close(value, -w.depth * (-u * u).exp(), ANALYTIC_TOL, "potential");
            assert_close(g.depth, -(-u * u).exp(), ANALYTIC_TOL, "d/ddepth");
            assert_close(
                gx,
                2.0 * w.depth * u / w.width * (-u * u).exp(),
                ANALYTIC_TOL,
                "d/dx",
            );
            assert_fd_gradient(|z| at(z).potential(z[2]), &z, &grad(&z), "potential");
            assert_hessian(grad, &z, &w.potential_hessian(x).2, "potential");
        }
    }
}
