//! methods37: `order = K` on methods wherever API.md promises it ("Methods and parameter structs", "Higher
//! order"): a method of a generic `impl` (`impl<T: Float> Model<T>`) that calls other methods
//! (`self.other(x)`, a chain of them, `Self::helper(x)`, a method writing an output parameter), reads an
//! integer field by `T::from(self.k)`, or takes `self` by value, at `order = 2` and `order = 3`; its
//! `f_grad` is run on the struct over dual numbers (`Model<Dual<T>>`, `higher::mapped_items`).
//!
//! Every gradient is checked against the derivative worked out by hand and central differences at
//! seeded points; every Hessian (`_hessian`, and `_hvp` against it) by hand, against central differences
//! of the generated `_grad`, and for symmetry; `_derivatives` at order 3 by hand and by differences of
//! its own lower entries.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod common;

use autodiff::Differentiable;
use common::probe::{
    assert_near, assert_vec_near, check_third_at, dot, fd_columns, fd_gradient, Lcg,
};

/// The gradient `g` against central differences of `f` at `x`.
#[track_caller]
fn fd_check(what: &str, f: &dyn Fn(&[f64]) -> f64, x: &[f64], g: &[f64]) {
    assert_vec_near(g, &fd_gradient(f, x), 1e-6, &format!("{what} at {x:?}"));
}

/// The Hessian `h` against `by_hand`, against central differences of the gradient `g` at `x`, and
/// symmetric.
#[track_caller]
fn hess_check(
    what: &str,
    g: &dyn Fn(&[f64]) -> Vec<f64>,
    x: &[f64],
    h: &[Vec<f64>],
    by_hand: &[Vec<f64>],
) {
    let cols = fd_columns(g, x);
    assert_eq!(h.len(), x.len(), "{what}: rows");
    let scale = h
        .iter()
        .flat_map(|r| r.iter())
        .fold(1.0_f64, |m, v| m.max(v.abs()));
    for i in 0..x.len() {
        assert_eq!(h[i].len(), x.len(), "{what}: columns");
        for j in 0..x.len() {
            let at = format!("{what} at {x:?}: H[{i}][{j}]");
            assert_near(
                h[i][j],
                by_hand[i][j],
                1e-10,
                scale,
                &format!("{at} by hand"),
            );
            assert_near(h[i][j], cols[j][i], 1e-5, scale, &at);
            assert_near(h[i][j], h[j][i], 1e-12, scale, &format!("{at} symmetric"));
        }
    }
}

fn mat_vec(h: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    h.iter().map(|r| dot(r, v)).collect()
}

fn zeros(n: usize) -> Vec<Vec<f64>> {
    vec![vec![0.0; n]; n]
}

// ---------------------------------------------------------------------------------------------------
// A generic `impl` whose `order = 2` and `order = 3` methods call other methods.
// ---------------------------------------------------------------------------------------------------

pub mod generic_impl {
    use autodiff::{differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Inner<T: Float> {
        pub a: [T; 2],
        pub s: T,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Model<T: Float> {
        pub w: Vec<T>,
        pub inner: Inner<T>,
        pub b: T,
        #[no_grad]
        pub k: usize,
    }

    impl<T: Float> Model<T> {
        /// `w · x`.
        #[differentiable(wrt(self))]
        pub fn dotw(&self, x: &[T]) -> T {
            let mut acc = T::zero();
            for i in 0..x.len() {
                acc = acc + self.w[i] * x[i];
            }
            acc
        }

        /// `a0 x + s x²`.
        #[differentiable(wrt(self, x))]
        pub fn feature(&self, x: T) -> T {
            self.inner.a[0] * x + self.inner.s * x * x
        }

        /// `F(x) b`, through `feature`.
        #[differentiable(wrt(self, x))]
        pub fn level2(&self, x: T) -> T {
            self.feature(x) * self.b
        }

        /// `u² + u`.
        #[differentiable]
        pub fn scale(u: T) -> T {
            u * u + u
        }

        /// `out_i = w_i x_i + a_{i % 2} s`, an output parameter.
        #[differentiable(wrt(self))]
        pub fn features(&self, x: &[T], out: &mut [T]) {
            for i in 0..out.len() {
                out[i] = self.w[i] * x[i] + self.inner.a[i % 2] * self.inner.s;
            }
        }

        /// `(w · x)² + sin b`, differentiated in `self`.
        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, x: &[T]) -> T {
            let a = self.dotw(x);
            a * a + self.b.sin()
        }

        /// `(w · x)² x0`, `self` constant.
        #[differentiable(order = 2)]
        pub fn loss_x(&self, x: &[T]) -> T {
            let a = self.dotw(x);
            a * a * x[0]
        }

        /// `k Σ f_i² + sin s` of the output parameter's `f`, the count by `T::from`.
        #[differentiable(wrt(self), order = 2)]
        pub fn fit(&self, x: &[T]) -> T {
            let mut f = vec![T::zero(); x.len()];
            self.features(x, &mut f);
            let k = T::from(self.k).unwrap();
            f.iter().fold(T::zero(), |acc, &v| acc + v * v) * k + self.inner.s.sin()
        }

        /// `scale(level2(x)) + b x`: a method calling a method calling a method, and `Self::scale`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn chain(&self, x: T) -> T {
            Self::scale(self.level2(x)) + self.b * x
        }

        /// `F(x)³ + x² + x`, `self` constant, to order 3.
        #[differentiable(wrt(x), order = 3)]
        pub fn energy(&self, x: T) -> T {
            let f = self.feature(x);
            f * f * f + Self::scale(x)
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Spring<T: Float> {
        pub k: T,
    }

    impl<T: Float> Spring<T> {
        /// `k x²`.
        #[differentiable(wrt(self, x))]
        pub fn stretch(&self, x: T) -> T {
            self.k * x * x
        }

        /// `k x² + e^k x`, `self` taken by value.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn energy(self, x: T) -> T {
            self.stretch(x) + self.k.exp() * x
        }
    }
}

use generic_impl::{Inner, Model, Spring};

fn model(rng: &mut Lcg, n: usize, k: usize) -> Model<f64> {
    Model {
        w: rng.vec(n, -1.0, 1.0),
        inner: Inner {
            a: [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
            s: rng.uniform(-1.0, 1.0),
        },
        b: rng.uniform(-1.0, 1.0),
        k,
    }
}

/// The flat view's places: `w` (n), `a0`, `a1`, `s`, `b`.
fn places(n: usize) -> (usize, usize, usize, usize) {
    (n, n + 1, n + 2, n + 3)
}

#[test]
fn generic_impl_wrt_self_calling_a_method() {
    let mut rng = Lcg::new(3701);
    for _ in 0..5 {
        let n = 3;
        let x = rng.vec(n, -1.5, 1.5);
        let p = model(&mut rng, n, 2);
        let flat = p.to_flat();
        let f = |v: &[f64]| p.from_flat(v).loss(&x);
        let grad = |v: &[f64]| p.from_flat(v).loss_grad(&x).1.to_flat();
        let (value, g) = p.loss_grad(&x);
        assert_near(value, p.loss(&x), 1e-12, 1.0, "value");
        assert_eq!(g.k, 2, "the #[no_grad] field copied");
        fd_check("Model::loss_grad", &f, &flat, &g.to_flat());
        let a = dot(&p.w, &x);
        let (_, _, _, ib) = places(n);
        let mut by_hand = vec![0.0; n + 4];
        for i in 0..n {
            by_hand[i] = 2.0 * a * x[i];
        }
        by_hand[ib] = p.b.cos();
        assert_vec_near(&g.to_flat(), &by_hand, 1e-12, "Model::loss_grad by hand");
        let mut h_hand = zeros(n + 4);
        for i in 0..n {
            for j in 0..n {
                h_hand[i][j] = 2.0 * x[i] * x[j];
            }
        }
        h_hand[ib][ib] = -p.b.sin();
        let (hv, hg, h) = p.loss_hessian(&x);
        assert_near(hv, value, 1e-12, 1.0, "hessian value");
        assert_vec_near(&hg.to_flat(), &g.to_flat(), 1e-12, "hessian gradient");
        hess_check("Model::loss_hessian", &grad, &flat, &h, &h_hand);
        let dir = p.from_flat(&rng.vec(n + 4, -1.0, 1.0));
        let (pv, pg, hvp) = p.loss_hvp(&x, dir.clone());
        assert_near(pv, value, 1e-12, 1.0, "hvp value");
        assert_vec_near(&pg.to_flat(), &g.to_flat(), 1e-12, "hvp gradient");
        assert_eq!(hvp.k, 2, "the product's #[no_grad] field copied");
        assert_vec_near(
            &hvp.to_flat(),
            &mat_vec(&h, &dir.to_flat()),
            1e-10,
            "Model::loss_hvp",
        );
    }
}

#[test]
fn generic_impl_constant_self_calling_a_method() {
    let mut rng = Lcg::new(3702);
    for _ in 0..5 {
        let n = 3;
        let p = model(&mut rng, n, 1);
        let x = rng.vec(n, -1.5, 1.5);
        let f = |v: &[f64]| p.loss_x(v);
        let grad = |v: &[f64]| p.loss_x_grad(v).1;
        let (value, g) = p.loss_x_grad(&x);
        assert_near(value, p.loss_x(&x), 1e-12, 1.0, "value");
        fd_check("Model::loss_x_grad", &f, &x, &g);
        let a = dot(&p.w, &x);
        let w = &p.w;
        let by_hand: Vec<f64> = (0..n)
            .map(|j| 2.0 * a * w[j] * x[0] + if j == 0 { a * a } else { 0.0 })
            .collect();
        assert_vec_near(&g, &by_hand, 1e-12, "Model::loss_x_grad by hand");
        let delta = |i: usize| if i == 0 { 1.0 } else { 0.0 };
        let h_hand: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        2.0 * w[i] * w[j] * x[0] + 2.0 * a * (w[i] * delta(j) + w[j] * delta(i))
                    })
                    .collect()
            })
            .collect();
        let (_, hg, h) = p.loss_x_hessian(&x);
        assert_vec_near(&hg, &g, 1e-12, "hessian gradient");
        hess_check("Model::loss_x_hessian", &grad, &x, &h, &h_hand);
        let dir = rng.vec(n, -1.0, 1.0);
        let (_, _, hvp) = p.loss_x_hvp(&x, dir.clone());
        assert_vec_near(&hvp, &mat_vec(&h, &dir), 1e-10, "Model::loss_x_hvp");
    }
}

#[test]
fn generic_impl_through_an_output_parameter_and_an_integer_field() {
    let mut rng = Lcg::new(3703);
    for k in [1usize, 3] {
        for _ in 0..3 {
            let n = 4;
            let x = rng.vec(n, -1.5, 1.5);
            let p = model(&mut rng, n, k);
            let flat = p.to_flat();
            let f = |v: &[f64]| p.from_flat(v).fit(&x);
            let grad = |v: &[f64]| p.from_flat(v).fit_grad(&x).1.to_flat();
            let (value, g) = p.fit_grad(&x);
            assert_near(value, p.fit(&x), 1e-12, 1.0, "value");
            assert_eq!(g.k, k);
            fd_check("Model::fit_grad", &f, &flat, &g.to_flat());
            // f_i = w_i x_i + a_{i%2} s: its gradient and its second derivative over (a_{i%2}, s).
            let (ia0, _, is, _) = places(n);
            let (a, s, kf) = (p.inner.a, p.inner.s, k as f64);
            let mut by_hand = vec![0.0; n + 4];
            let mut h_hand = zeros(n + 4);
            for i in 0..n {
                let fi = p.w[i] * x[i] + a[i % 2] * s;
                let mut df = vec![0.0; n + 4];
                df[i] = x[i];
                df[ia0 + i % 2] = s;
                df[is] = a[i % 2];
                for r in 0..n + 4 {
                    by_hand[r] += 2.0 * kf * fi * df[r];
                    for c in 0..n + 4 {
                        h_hand[r][c] += 2.0 * kf * df[r] * df[c];
                    }
                }
                h_hand[ia0 + i % 2][is] += 2.0 * kf * fi;
                h_hand[is][ia0 + i % 2] += 2.0 * kf * fi;
            }
            by_hand[is] += s.cos();
            h_hand[is][is] -= s.sin();
            assert_vec_near(&g.to_flat(), &by_hand, 1e-12, "Model::fit_grad by hand");
            let (_, hg, h) = p.fit_hessian(&x);
            assert_vec_near(&hg.to_flat(), &g.to_flat(), 1e-12, "hessian gradient");
            hess_check("Model::fit_hessian", &grad, &flat, &h, &h_hand);
            let dir = p.from_flat(&rng.vec(n + 4, -1.0, 1.0));
            let (_, _, hvp) = p.fit_hvp(&x, dir.clone());
            assert_vec_near(
                &hvp.to_flat(),
                &mat_vec(&h, &dir.to_flat()),
                1e-10,
                "Model::fit_hvp",
            );
        }
    }
}

#[test]
fn generic_impl_chain_of_methods_and_an_associated_function() {
    let mut rng = Lcg::new(3704);
    for _ in 0..5 {
        let n = 2;
        let p = model(&mut rng, n, 1);
        let x = rng.uniform(-1.2, 1.2);
        let m = n + 4;
        // The inputs: the flat view of `self`, then `x`.
        let mut at = p.to_flat();
        at.push(x);
        let split = |v: &[f64]| (p.from_flat(&v[..m]), v[m]);
        let f = |v: &[f64]| {
            let (q, x) = split(v);
            q.chain(x)
        };
        let grad = |v: &[f64]| {
            let (q, x) = split(v);
            let (_, (gs, gx)) = q.chain_grad(x);
            let mut flat = gs.to_flat();
            flat.push(gx);
            flat
        };
        let (value, (gs, gx)) = p.chain_grad(x);
        assert_near(value, p.chain(x), 1e-12, 1.0, "value");
        let mut g = gs.to_flat();
        g.push(gx);
        fd_check("Model::chain_grad", &f, &at, &g);
        // C = L² + L + b x, L = b F, F = a0 x + s x².
        let (ia0, _, is, ib) = places(n);
        let ix = m;
        let (a0, s, b) = (p.inner.a[0], p.inner.s, p.b);
        let ff = a0 * x + s * x * x;
        let l = b * ff;
        let mut dl = vec![0.0; m + 1];
        dl[ia0] = b * x;
        dl[is] = b * x * x;
        dl[ib] = ff;
        dl[ix] = b * (a0 + 2.0 * s * x);
        let mut by_hand: Vec<f64> = dl.iter().map(|d| (2.0 * l + 1.0) * d).collect();
        by_hand[ib] += x;
        by_hand[ix] += b;
        assert_vec_near(&g, &by_hand, 1e-12, "Model::chain_grad by hand");
        let mut d2l = zeros(m + 1);
        let mut pair = |i: usize, j: usize, v: f64| {
            d2l[i][j] += v;
            if i != j {
                d2l[j][i] += v;
            }
        };
        pair(ib, ia0, x);
        pair(ib, is, x * x);
        pair(ib, ix, a0 + 2.0 * s * x);
        pair(ia0, ix, b);
        pair(is, ix, 2.0 * b * x);
        pair(ix, ix, 2.0 * b * s);
        let mut h_hand = zeros(m + 1);
        for i in 0..=m {
            for j in 0..=m {
                h_hand[i][j] = 2.0 * dl[i] * dl[j] + (2.0 * l + 1.0) * d2l[i][j];
            }
        }
        h_hand[ib][ix] += 1.0;
        h_hand[ix][ib] += 1.0;
        let (_, (hgs, hgx), h) = p.chain_hessian(x);
        assert_vec_near(&hgs.to_flat(), &gs.to_flat(), 1e-12, "hessian gradient");
        assert_near(hgx, gx, 1e-12, 1.0, "hessian gradient in x");
        hess_check("Model::chain_hessian", &grad, &at, &h, &h_hand);
        let dir = rng.vec(m + 1, -1.0, 1.0);
        let (_, _, (hs, hx)) = p.chain_hvp(x, (p.from_flat(&dir[..m]), dir[m]));
        let mut hvp = hs.to_flat();
        hvp.push(hx);
        assert_vec_near(&hvp, &mat_vec(&h, &dir), 1e-10, "Model::chain_hvp");
    }
}

#[test]
fn generic_impl_third_order_with_a_constant_self() {
    let mut rng = Lcg::new(3705);
    for _ in 0..5 {
        let p = model(&mut rng, 2, 1);
        let x = rng.uniform(-1.2, 1.2);
        let (a0, s) = (p.inner.a[0], p.inner.s);
        let f = a0 * x + s * x * x;
        let f1 = a0 + 2.0 * s * x;
        let f2 = 2.0 * s;
        let by_hand = [
            f * f * f + x * x + x,
            3.0 * f * f * f1 + 2.0 * x + 1.0,
            6.0 * f * f1 * f1 + 3.0 * f * f * f2 + 2.0,
            6.0 * f1 * f1 * f1 + 18.0 * f * f1 * f2,
        ];
        let d = p.energy_derivatives(x);
        for k in 0..4 {
            let scale = by_hand[k].abs().max(1.0);
            assert_near(
                d[k],
                by_hand[k],
                1e-10,
                scale,
                &format!("energy^({k}) at {x}"),
            );
        }
        assert_near(d[0], p.energy(x), 1e-12, 1.0, "value");
        check_third_at("Model::energy_derivatives", &|y| p.energy_derivatives(y), x);
        let (_, g, h) = p.energy_hessian(x);
        assert_near(
            g,
            by_hand[1],
            1e-10,
            by_hand[1].abs().max(1.0),
            "hessian gradient",
        );
        assert_near(
            h[0][0],
            by_hand[2],
            1e-10,
            by_hand[2].abs().max(1.0),
            "hessian",
        );
    }
}

#[test]
fn generic_impl_self_by_value() {
    let mut rng = Lcg::new(3706);
    for _ in 0..5 {
        let k = rng.uniform(-1.0, 1.0);
        let x = rng.uniform(-1.5, 1.5);
        let sp = Spring { k };
        let f = |v: &[f64]| Spring { k: v[0] }.energy(v[1]);
        let grad = |v: &[f64]| {
            let (_, (gs, gx)) = Spring { k: v[0] }.energy_grad(v[1]);
            vec![gs.k, gx]
        };
        let (value, (gs, gx)) = sp.clone().energy_grad(x);
        assert_near(value, sp.clone().energy(x), 1e-12, 1.0, "value");
        let g = [gs.k, gx];
        fd_check("Spring::energy_grad", &f, &[k, x], &g);
        let e = k.exp();
        assert_vec_near(&g, &[x * x + e * x, 2.0 * k * x + e], 1e-12, "by hand");
        let h_hand = vec![vec![e * x, 2.0 * x + e], vec![2.0 * x + e, 2.0 * k]];
        let (_, _, h) = sp.clone().energy_hessian(x);
        hess_check("Spring::energy_hessian", &grad, &[k, x], &h, &h_hand);
        let (_, _, (hs, hx)) = sp.energy_hvp(x, (Spring { k: 0.5 }, -1.5));
        assert_vec_near(
            &[hs.k, hx],
            &mat_vec(&h, &[0.5, -1.5]),
            1e-10,
            "Spring::energy_hvp",
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// A method keeping `self` constant at `order = 2` that passes it on whole: to a free function with
// `order = 2` that differentiates its struct (reached through that function's copy with the struct
// constant, its fields read in the copy's float type), to another method (`self.m(x)`), and, at
// `order = 2`, helpers written for `f64` without `order = 2` called from a method differentiated in
// `self`.
// ---------------------------------------------------------------------------------------------------

pub mod constant_self {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Cfg {
        pub a: f64,
        pub w: Vec<f64>,
        #[no_grad]
        pub n: usize,
    }

    /// `a s² + w0 s`, the struct differentiated, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn hp(p: &Cfg, s: f64) -> f64 {
        p.a * s * s + p.w[0] * s
    }

    /// `s sin s`, written for `f64` without `order = 2`.
    #[differentiable]
    pub fn plain(s: f64) -> f64 {
        s.sin() * s
    }

    /// `Σ w_i s^(i+1)`, of the struct, without `order = 2`.
    #[differentiable]
    pub fn weights(p: &Cfg, s: f64) -> f64 {
        let mut acc = 0.0;
        let mut power = s;
        for i in 0..p.w.len() {
            acc += p.w[i] * power;
            power *= s;
        }
        acc
    }

    impl Cfg {
        /// `a e^s + w1`.
        #[differentiable(wrt(self, s), order = 2)]
        pub fn m(&self, s: f64) -> f64 {
            self.a * s.exp() + self.w[1]
        }

        /// `hp(self, x) x = a x³ + w0 x²`, `self` constant.
        #[differentiable(wrt(x), order = 2)]
        pub fn through_free(&self, x: f64) -> f64 {
            hp(self, x) * x
        }

        /// `m(x) x = a x e^x + w1 x`, `self` constant.
        #[differentiable(wrt(x), order = 3)]
        pub fn through_method(&self, x: f64) -> f64 {
            self.m(x) * x
        }

        /// `plain(a x) + weights(self, x) + n`, differentiated in `self` and `x`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn through_plain(&self, x: f64) -> f64 {
            plain(self.a * x) + weights(self, x) + self.n as f64
        }
    }
}

use constant_self::Cfg;

fn cfg(rng: &mut Lcg) -> Cfg {
    Cfg {
        a: rng.uniform(-1.0, 1.0),
        w: rng.vec(3, -1.0, 1.0),
        n: 2,
    }
}

#[test]
fn constant_self_passed_on_whole_at_order_2() {
    let mut rng = Lcg::new(3707);
    for _ in 0..5 {
        let c = cfg(&mut rng);
        let x = rng.uniform(-1.5, 1.5);
        let (a, w0, w1) = (c.a, c.w[0], c.w[1]);
        // a x³ + w0 x².
        let (value, g) = c.through_free_grad(x);
        assert_near(value, c.through_free(x), 1e-12, 1.0, "value");
        let fd = fd_gradient(&|v: &[f64]| c.through_free(v[0]), &[x]);
        assert_near(g, fd[0], 1e-6, 1.0, "through_free_grad by differences");
        assert_near(
            g,
            3.0 * a * x * x + 2.0 * w0 * x,
            1e-12,
            1.0,
            "through_free_grad",
        );
        let (_, hg, h) = c.through_free_hessian(x);
        assert_near(hg, g, 1e-12, 1.0, "hessian gradient");
        let fd_h = fd_gradient(&|v: &[f64]| c.through_free_grad(v[0]).1, &[x]);
        assert_near(
            h[0][0],
            6.0 * a * x + 2.0 * w0,
            1e-12,
            1.0,
            "through_free_hessian",
        );
        assert_near(
            h[0][0],
            fd_h[0],
            1e-5,
            1.0,
            "through_free_hessian by differences",
        );
        let (_, _, hv) = c.through_free_hvp(x, 0.5);
        assert_near(hv, 0.5 * h[0][0], 1e-12, 1.0, "through_free_hvp");
        // a x e^x + w1 x, to order 3.
        let e = x.exp();
        let by_hand = [
            a * x * e + w1 * x,
            a * e * (1.0 + x) + w1,
            a * e * (2.0 + x),
            a * e * (3.0 + x),
        ];
        let d = c.through_method_derivatives(x);
        for k in 0..4 {
            let scale = by_hand[k].abs().max(1.0);
            assert_near(
                d[k],
                by_hand[k],
                1e-10,
                scale,
                &format!("through_method^({k})"),
            );
        }
        check_third_at(
            "Cfg::through_method_derivatives",
            &|y| c.through_method_derivatives(y),
            x,
        );
        let (_, g, h) = c.through_method_hessian(x);
        let fd_h = fd_gradient(&|v: &[f64]| c.through_method_grad(v[0]).1, &[x]);
        assert_near(g, by_hand[1], 1e-12, 1.0, "through_method_grad");
        assert_near(
            h[0][0],
            fd_h[0],
            1e-5,
            1.0,
            "through_method_hessian by differences",
        );
    }
}

#[test]
fn helpers_without_order_2_from_a_method_at_order_2() {
    let mut rng = Lcg::new(3708);
    for _ in 0..5 {
        let c = cfg(&mut rng);
        let x = rng.uniform(-1.2, 1.2);
        // The inputs: a, w0, w1, w2, x. f = (a x) sin(a x) + Σ w_i x^(i+1) + n.
        let mut at = c.to_flat();
        at.push(x);
        let split = |v: &[f64]| (c.from_flat(&v[..4]), v[4]);
        let f = |v: &[f64]| {
            let (q, x) = split(v);
            q.through_plain(x)
        };
        let grad = |v: &[f64]| {
            let (q, x) = split(v);
            let (_, (gs, gx)) = q.through_plain_grad(x);
            let mut flat = gs.to_flat();
            flat.push(gx);
            flat
        };
        let (value, (gs, gx)) = c.through_plain_grad(x);
        assert_near(value, c.through_plain(x), 1e-12, 1.0, "value");
        assert_eq!(gs.n, 2, "the #[no_grad] field copied");
        let mut g = gs.to_flat();
        g.push(gx);
        fd_check("Cfg::through_plain_grad", &f, &at, &g);
        // u = a x: d(u sin u) = (sin u + u cos u) du; d² = (2 cos u - u sin u) du².
        let u = c.a * x;
        let (p1, p2) = (u.sin() + u * u.cos(), 2.0 * u.cos() - u * u.sin());
        let w = &c.w;
        let by_hand = [
            p1 * x,
            x,
            x * x,
            x * x * x,
            p1 * c.a + w[0] + 2.0 * w[1] * x + 3.0 * w[2] * x * x,
        ];
        assert_vec_near(&g, &by_hand, 1e-12, "Cfg::through_plain_grad by hand");
        let mut h_hand = zeros(5);
        h_hand[0][0] = p2 * x * x;
        h_hand[0][4] = p2 * c.a * x + p1;
        h_hand[4][0] = h_hand[0][4];
        h_hand[1][4] = 1.0;
        h_hand[4][1] = 1.0;
        h_hand[2][4] = 2.0 * x;
        h_hand[4][2] = 2.0 * x;
        h_hand[3][4] = 3.0 * x * x;
        h_hand[4][3] = 3.0 * x * x;
        h_hand[4][4] = p2 * c.a * c.a + 2.0 * w[1] + 6.0 * w[2] * x;
        let (_, _, h) = c.through_plain_hessian(x);
        hess_check("Cfg::through_plain_hessian", &grad, &at, &h, &h_hand);
        let dir = rng.vec(5, -1.0, 1.0);
        let (_, _, (hs, hx)) = c.through_plain_hvp(x, (c.from_flat(&dir[..4]), dir[4]));
        let mut hvp = hs.to_flat();
        hvp.push(hx);
        assert_vec_near(&hvp, &mat_vec(&h, &dir), 1e-10, "Cfg::through_plain_hvp");
    }
}

// ---------------------------------------------------------------------------------------------------
// A method keeping `self` constant at `order = 2` that passes fields on whole: a `Vec` field to a slice
// function, the nested struct to a free function and to its own method by its path, beside a call of a
// method differentiated in `self` and `self` passed to a free function of the struct.
// ---------------------------------------------------------------------------------------------------

pub mod constant_self_fields {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct N {
        pub b: f64,
        pub v: Vec<f64>,
    }

    impl N {
        /// `b s² + v0`.
        #[differentiable(wrt(self, s), order = 2)]
        pub fn nm(&self, s: f64) -> f64 {
            self.b * s * s + self.v[0]
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct S {
        pub a: f64,
        pub w: Vec<f64>,
        pub inner: N,
        #[no_grad]
        pub n: usize,
    }

    /// `b sin s`.
    #[differentiable(order = 2)]
    pub fn hn(q: &N, s: f64) -> f64 {
        q.b * s.sin()
    }

    /// `xs0 s xs1`.
    #[differentiable(order = 2)]
    pub fn hs(xs: &[f64], s: f64) -> f64 {
        xs[0] * s * xs[1]
    }

    /// `a s² + w0 s`.
    #[differentiable(order = 2)]
    pub fn hp(p: &S, s: f64) -> f64 {
        p.a * s * s + p.w[0] * s
    }

    impl S {
        /// `a e^s + w1`.
        #[differentiable(wrt(self, s), order = 2)]
        pub fn m(&self, s: f64) -> f64 {
            self.a * s.exp() + self.w[1]
        }

        /// `w0 w1 x²`.
        #[differentiable(wrt(x), order = 2)]
        pub fn slice_field(&self, x: f64) -> f64 {
            hs(&self.w, x) * x
        }

        /// `b x sin x + b x² + v0 + a e^x + w1 + n (a x² + w0 x)`, to order 3.
        #[differentiable(wrt(x), order = 3)]
        pub fn nested_field(&self, x: f64) -> f64 {
            hn(&self.inner, x) * x + N::nm(&self.inner, x) + self.m(x) + hp(self, x) * self.n as f64
        }
    }
}

#[test]
fn constant_self_passing_fields_on_whole_at_order_2() {
    use constant_self_fields::{N, S};
    let mut rng = Lcg::new(3709);
    for _ in 0..5 {
        let s = S {
            a: rng.uniform(-1.0, 1.0),
            w: rng.vec(2, -1.0, 1.0),
            inner: N {
                b: rng.uniform(-1.0, 1.0),
                v: rng.vec(1, -1.0, 1.0),
            },
            n: 2,
        };
        let x = rng.uniform(-1.5, 1.5);
        let (w0, w1) = (s.w[0], s.w[1]);
        let (value, g) = s.slice_field_grad(x);
        assert_near(value, s.slice_field(x), 1e-12, 1.0, "value");
        assert_near(g, 2.0 * w0 * w1 * x, 1e-12, 1.0, "slice_field_grad");
        let fd = fd_gradient(&|v: &[f64]| s.slice_field(v[0]), &[x]);
        assert_near(g, fd[0], 1e-6, 1.0, "slice_field_grad by differences");
        let (_, _, h) = s.slice_field_hessian(x);
        assert_near(h[0][0], 2.0 * w0 * w1, 1e-12, 1.0, "slice_field_hessian");
        let fd_h = fd_gradient(&|v: &[f64]| s.slice_field_grad(v[0]).1, &[x]);
        assert_near(
            h[0][0],
            fd_h[0],
            1e-5,
            1.0,
            "slice_field_hessian by differences",
        );
        let (a, b, n) = (s.a, s.inner.b, s.n as f64);
        let (sin, cos, e) = (x.sin(), x.cos(), x.exp());
        let by_hand = [
            b * x * sin + b * x * x + s.inner.v[0] + a * e + w1 + n * (a * x * x + w0 * x),
            b * (sin + x * cos) + 2.0 * b * x + a * e + n * (2.0 * a * x + w0),
            b * (2.0 * cos - x * sin) + 2.0 * b + a * e + 2.0 * n * a,
            b * (-3.0 * sin - x * cos) + a * e,
        ];
        let d = s.nested_field_derivatives(x);
        for k in 0..4 {
            let scale = by_hand[k].abs().max(1.0);
            assert_near(
                d[k],
                by_hand[k],
                1e-10,
                scale,
                &format!("nested_field^({k})"),
            );
        }
        check_third_at(
            "S::nested_field_derivatives",
            &|y| s.nested_field_derivatives(y),
            x,
        );
        let (_, g, h) = s.nested_field_hessian(x);
        assert_near(
            g,
            by_hand[1],
            1e-12,
            by_hand[1].abs().max(1.0),
            "nested_field_grad",
        );
        let fd_h = fd_gradient(&|v: &[f64]| s.nested_field_grad(v[0]).1, &[x]);
        assert_near(
            h[0][0],
            fd_h[0],
            1e-5,
            h[0][0].abs().max(1.0),
            "nested_field_hessian by differences",
        );
        let (_, _, hv) = s.nested_field_hvp(x, -0.5);
        assert_near(hv, -0.5 * h[0][0], 1e-12, 1.0, "nested_field_hvp");
    }
}

// ---------------------------------------------------------------------------------------------------
// `T::from(self.k as f64).unwrap()` in generic code: the count converted through `f64`, at first and
// second order, in a method of a generic `impl` and in a free generic function, and to order 3.
// ---------------------------------------------------------------------------------------------------

pub mod converted_counts {
    use autodiff::{differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Counted<T: Float> {
        pub a: T,
        #[no_grad]
        pub k: usize,
        #[no_grad]
        pub c: f32,
    }

    impl<T: Float> Counted<T> {
        /// `k a x² + c x` (`c` an `f32` converted through `f64`), first order.
        #[differentiable(wrt(self, x))]
        pub fn first(&self, x: T) -> T {
            T::from(self.k as f64).unwrap() * self.a * x * x + T::from(self.c as f64).unwrap() * x
        }

        /// The same at `order = 2`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn second(&self, x: T) -> T {
            T::from(self.k as f64).unwrap() * self.a * x * x + T::from(self.c as f64).unwrap() * x
        }

        /// `k a x³`, `self` constant, to order 3.
        #[differentiable(wrt(x), order = 3)]
        pub fn third(&self, x: T) -> T {
            T::from(self.k as f64).expect("a count") * self.a * x * x * x
        }
    }

    /// `k a x² + c x` of a free generic function at `order = 2`.
    #[differentiable(order = 2)]
    pub fn free<T: Float>(p: &Counted<T>, x: T) -> T {
        T::from(p.k as f64).unwrap() * p.a * x * x + T::from(p.c as f64).unwrap() * x
    }
}

#[test]
fn t_from_a_field_cast_to_f64() {
    use converted_counts::{free, free_grad, free_hessian, Counted};
    let mut rng = Lcg::new(3710);
    for k in [1usize, 4] {
        for _ in 0..3 {
            let p = Counted {
                a: rng.uniform(-1.0, 1.0),
                k,
                c: rng.uniform(-1.0, 1.0) as f32,
            };
            let x = rng.uniform(-1.5, 1.5);
            let (a, kf, c) = (p.a, k as f64, p.c as f64);
            let value = kf * a * x * x + c * x;
            let by_hand = [kf * x * x, 2.0 * kf * a * x + c];
            let h_hand = vec![vec![0.0, 2.0 * kf * x], vec![2.0 * kf * x, 2.0 * kf * a]];
            let f = |v: &[f64]| {
                Counted {
                    a: v[0],
                    ..p.clone()
                }
                .second(v[1])
            };
            for (what, (r, (gs, gx))) in [
                ("first_grad", p.first_grad(x)),
                ("second_grad", p.second_grad(x)),
                ("free_grad", free_grad(&p, x)),
            ] {
                assert_near(r, value, 1e-12, 1.0, what);
                assert_eq!(
                    (gs.k, gs.c),
                    (k, p.c),
                    "{what}: the #[no_grad] fields copied"
                );
                assert_vec_near(&[gs.a, gx], &by_hand, 1e-12, what);
                fd_check(what, &f, &[a, x], &[gs.a, gx]);
            }
            assert_near(free(&p, x), value, 1e-12, 1.0, "free");
            let grad = |v: &[f64]| {
                let (_, (gs, gx)) = Counted {
                    a: v[0],
                    ..p.clone()
                }
                .second_grad(v[1]);
                vec![gs.a, gx]
            };
            let (_, _, h) = p.second_hessian(x);
            hess_check("Counted::second_hessian", &grad, &[a, x], &h, &h_hand);
            let (_, _, h) = free_hessian(&p, x);
            hess_check("free_hessian", &grad, &[a, x], &h, &h_hand);
            let d = p.third_derivatives(x);
            let third = [
                kf * a * x * x * x,
                3.0 * kf * a * x * x,
                6.0 * kf * a * x,
                6.0 * kf * a,
            ];
            for j in 0..4 {
                assert_near(
                    d[j],
                    third[j],
                    1e-12,
                    third[j].abs().max(1.0),
                    &format!("third^({j})"),
                );
            }
            check_third_at("Counted::third_derivatives", &|y| p.third_derivatives(y), x);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// In an `impl` without float type parameters, `order = 2` methods calling, through their generic copies,
// methods that iterate a field of `self` by reference (`for v in self.w.iter()`, with `.enumerate()`),
// a chain of methods, and `self` taken by value.
// ---------------------------------------------------------------------------------------------------

pub mod plain_impl {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Wts {
        pub w: Vec<f64>,
        pub b: f64,
    }

    impl Wts {
        /// `b x²`.
        #[differentiable]
        pub fn leaf(&self, x: f64) -> f64 {
            self.b * x * x
        }

        /// `leaf(x) x + b`.
        #[differentiable]
        pub fn mid(&self, x: f64) -> f64 {
            self.leaf(x) * x + self.b
        }

        /// `Σ w_i x`, iterating the field by reference.
        #[differentiable]
        pub fn iter_sum(&self, x: f64) -> f64 {
            let mut s = 0.0;
            for v in self.w.iter() {
                s += v * x;
            }
            s
        }

        /// `Σ (i + 1) sin(w_i x)`, by reference with `.enumerate()`, `*v`.
        #[differentiable]
        pub fn iter_weighted(&self, x: f64) -> f64 {
            let mut s = 0.0;
            for (i, v) in self.w.iter().enumerate() {
                s += (i as f64 + 1.0) * (*v * x).sin();
            }
            s
        }

        /// `b sin x`, `self` by value.
        #[differentiable]
        pub fn by_value(self, x: f64) -> f64 {
            self.b * x.sin()
        }

        /// `mid(x) x = b x⁴ + b x`: a method calling a method calling a method.
        #[differentiable(order = 3)]
        pub fn chain(&self, x: f64) -> f64 {
            self.mid(x) * x
        }

        /// `(Σ w_i) x² + Σ (i + 1) sin(w_i x)`.
        #[differentiable(order = 2)]
        pub fn iterated(&self, x: f64) -> f64 {
            self.iter_sum(x) * x + self.iter_weighted(x)
        }

        /// `b x sin x`, `self` by value.
        #[differentiable(order = 3)]
        pub fn valued(self, x: f64) -> f64 {
            self.by_value(x) * x
        }
    }
}

#[test]
fn plain_impl_methods_without_copies_before() {
    use plain_impl::Wts;
    let mut rng = Lcg::new(3711);
    for _ in 0..5 {
        let p = Wts {
            w: rng.vec(3, -1.0, 1.0),
            b: rng.uniform(-1.0, 1.0),
        };
        let x = rng.uniform(-1.5, 1.5);
        let b = p.b;
        // chain: b x⁴ + b x.
        let chain = [
            b * x.powi(4) + b * x,
            4.0 * b * x.powi(3) + b,
            12.0 * b * x * x,
            24.0 * b * x,
        ];
        let d = p.chain_derivatives(x);
        for k in 0..4 {
            assert_near(
                d[k],
                chain[k],
                1e-10,
                chain[k].abs().max(1.0),
                &format!("chain^({k})"),
            );
        }
        check_third_at("Wts::chain_derivatives", &|y| p.chain_derivatives(y), x);
        // iterated: W x² + Σ (i + 1) sin(w_i x).
        let sum: f64 = p.w.iter().sum();
        let (mut g, mut h) = (2.0 * sum * x, 2.0 * sum);
        for (i, w) in p.w.iter().enumerate() {
            let k = i as f64 + 1.0;
            g += k * w * (w * x).cos();
            h -= k * w * w * (w * x).sin();
        }
        let (value, dx) = p.iterated_grad(x);
        assert_near(value, p.iterated(x), 1e-12, 1.0, "iterated value");
        assert_near(dx, g, 1e-12, g.abs().max(1.0), "iterated_grad");
        let fd = fd_gradient(&|v: &[f64]| p.iterated(v[0]), &[x]);
        assert_near(dx, fd[0], 1e-6, 1.0, "iterated_grad by differences");
        let (_, hg, hm) = p.iterated_hessian(x);
        assert_near(hg, dx, 1e-12, 1.0, "iterated hessian gradient");
        assert_near(hm[0][0], h, 1e-10, h.abs().max(1.0), "iterated_hessian");
        let fd_h = fd_gradient(&|v: &[f64]| p.iterated_grad(v[0]).1, &[x]);
        assert_near(
            hm[0][0],
            fd_h[0],
            1e-5,
            h.abs().max(1.0),
            "iterated_hessian by differences",
        );
        let (_, _, hv) = p.iterated_hvp(x, 2.0);
        assert_near(hv, 2.0 * h, 1e-10, h.abs().max(1.0), "iterated_hvp");
        // valued: b x sin x.
        let (s, c) = (x.sin(), x.cos());
        let valued = [
            b * x * s,
            b * (s + x * c),
            b * (2.0 * c - x * s),
            b * (-3.0 * s - x * c),
        ];
        let d = p.clone().valued_derivatives(x);
        for k in 0..4 {
            assert_near(
                d[k],
                valued[k],
                1e-10,
                valued[k].abs().max(1.0),
                &format!("valued^({k})"),
            );
        }
        check_third_at(
            "Wts::valued_derivatives",
            &|y| p.clone().valued_derivatives(y),
            x,
        );
        let (_, _, hm) = p.clone().valued_hessian(x);
        assert_near(hm[0][0], valued[2], 1e-10, 1.0, "valued_hessian");
    }
}
