//! method_fields46: `order = K` on a function calling a first-order method (or free function) of a
//! parameter struct that passes a FIELD on whole to a free `#[differentiable]` function
//! (`dot(&self.w, x)`), API.md's "higher order everywhere". The method's hidden function over the
//! struct's values view (`__pred_whole`) calls the callee's `__dot_pairs`, made only where the source
//! shows the callee beside the method (a function of its module, or an associated function of its own
//! `impl`, `Self::h(&self.w, x)`); before, a method was never found there and an `order = 2` caller met
//! "this method has no generic copy" at its call.
//!
//! Forms: a `Vec<f64>` field, an array field `[f64; 3]`, a nested-array field `[[f64; 3]; 3]`, a nested
//! struct's field and the nested struct itself, a callee reached as `Self::h`, callees returning a float,
//! an array (`solve3`, trial44's portfolio with the fields passed on whole) and a tuple, the free-function
//! form `pred2(m: &Lin, x)` with the struct differentiated and kept constant, all with callers
//! differentiating the struct (`wrt(self)`). For each: the value against a plain computation, `_grad`
//! against central differences at seeded points, and the `order = 2` caller's `_hessian` against central
//! differences of its `_grad` (and for symmetry, and not zero), `_hvp` against the Hessian times `v`.
//! Not supported (one error at the caller's call, tests/ui/signature/order-callee-passing-a-field-on-whole.rs):
//! a caller keeping `self` constant, and a callee imported from another module.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_close, assert_fd_gradient, hessian_column, points};

/// The value and gradient `value_grad(x)` against `plain(x)` and central differences of it, and the
/// Hessian `hessian(x)` (with its value) against central differences of the gradient and for symmetry, at
/// each point.
#[track_caller]
fn check(
    what: &str,
    pts: &[Vec<f64>],
    plain: impl Fn(&[f64]) -> f64,
    value_grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: impl Fn(&[f64]) -> (f64, Vec<Vec<f64>>),
) {
    assert!(pts.len() >= 10, "{what}: at least ten points");
    for x in pts {
        let (v, g) = value_grad(x);
        assert_close(v, plain(x), 1e-12, &format!("{what}: value at {x:?}"));
        assert_fd_gradient(&plain, x, &g, &format!("{what}: _grad"));
        let (hv, h) = hessian(x);
        assert_close(hv, v, 1e-12, &format!("{what}: _hessian's value"));
        assert_eq!(h.len(), x.len(), "{what}: Hessian rows");
        let grad = |y: &[f64]| value_grad(y).1;
        for j in 0..x.len() {
            let column = hessian_column(grad, x, j);
            for i in 0..x.len() {
                let at = format!("{what}: H[{i}][{j}] at {x:?}");
                assert_close(h[i][j], column[i], 1e-6, &at);
                assert_close(h[i][j], h[j][i], 1e-12, &format!("{at} symmetric"));
            }
        }
        // Not a Hessian of zeros (a test that cannot fail).
        assert!(h.iter().flatten().any(|v| v.abs() > 1e-3), "{what}: H ≠ 0");
    }
}

/// `_hvp(v)` against `H v` of `_hessian`.
#[track_caller]
fn check_hvp(what: &str, h: &[Vec<f64>], v: &[f64], hv: &[f64]) {
    let expected: Vec<f64> = h
        .iter()
        .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
        .collect();
    assert_all_close(hv, &expected, 1e-10, what);
}

/// `Σ sin(a_i b_i) + a_i b_i` (the callees `sdot` of the modules below, each beside its callers: a
/// field passed on whole reaches a callee of the caller's own module).
fn sdot_plain(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| (a * b).sin() + a * b).sum()
}

fn quad3_plain(m: &[[f64; 3]; 3], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            s += x[i] * m[i][j] * x[j] + 0.5 * m[i][j] * m[i][j];
        }
    }
    s
}

fn weigh3_plain(k: &[f64; 3], x: &[f64]) -> f64 {
    (0..3).map(|i| k[i] * (k[i] * x[i] / 4.0).exp()).sum()
}

const X: [f64; 3] = [0.7, -0.4, 1.1];

// ---------------------------------------------------------------------------------------------------
// (1) A `Vec<f64>` field passed on whole by a method with `wrt(self)`, its caller with `wrt(self)` at
// `order = 2` (the minimal case of the report), and the same pair with a constant `self`.

mod vec_field {
    use super::*;

    /// `Σ sin(a_i b_i) + a_i b_i`: nonlinear in both, so that a caller's Hessian is not that of a square
    /// alone.
    #[differentiable]
    pub fn sdot(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += (a[i] * b[i]).sin() + a[i] * b[i];
        }
        s
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct Lin {
        pub w: Vec<f64>,
        pub b: f64,
    }

    impl Lin {
        #[differentiable(wrt(self))]
        pub fn pred(&self, x: &[f64]) -> f64 {
            sdot(&self.w, x) + self.b
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, x: &[f64], y: f64) -> f64 {
            let p = self.pred(x);
            (p - y) * (p - y)
        }
    }

    fn lin(p: &[f64]) -> Lin {
        Lin {
            w: p[..3].to_vec(),
            b: p[3],
        }
    }

    fn plain(m: &Lin, x: &[f64], y: f64) -> f64 {
        let p = sdot_plain(&m.w, x) + m.b;
        (p - y) * (p - y)
    }

    #[test]
    fn wrt_self() {
        let y = 0.3;
        let pts = points(46_001, 4, 12, -1.0, 1.0);
        check(
            "vec_field::loss",
            &pts,
            |p| plain(&lin(p), &X, y),
            |p| {
                let (v, g) = lin(p).loss_grad(&X, y);
                (v, g.to_flat())
            },
            |p| {
                let (v, _, h) = lin(p).loss_hessian(&X, y);
                (v, h)
            },
        );
        for p in &pts {
            let m = lin(p);
            assert_close(m.loss(&X, y), plain(&m, &X, y), 1e-12, "vec_field::loss");
            let (_, _, h) = m.loss_hessian(&X, y);
            let v = [0.3, -0.2, 0.5, 0.9];
            let (value, g, hv) = m.loss_hvp(&X, y, m.from_flat(&v));
            assert_close(value, plain(&m, &X, y), 1e-12, "vec_field::loss_hvp value");
            assert_all_close(
                &g.to_flat(),
                &m.loss_grad(&X, y).1.to_flat(),
                1e-12,
                "hvp grad",
            );
            check_hvp("vec_field::loss_hvp", &h, &v, &hv.to_flat());
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) The free-function form: `pred2(m: &Lin, x)` without `order`, called by `loss2` at `order = 2`.

mod free_function {
    pub use super::vec_field::Lin;
    use super::*;

    /// `sdot` of this module (a callee passed a field on whole is a function of the caller's module).
    #[differentiable]
    pub fn sdot2(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += (a[i] * b[i]).sin() + a[i] * b[i];
        }
        s
    }

    #[differentiable]
    pub fn pred2(m: &Lin, x: &[f64]) -> f64 {
        sdot2(&m.w, x) + m.b
    }

    #[differentiable(order = 2)]
    pub fn loss2(m: &Lin, x: &[f64], y: f64) -> f64 {
        let p = pred2(m, x);
        (p - y) * (p - y)
    }

    /// The struct constant: differentiated in `x`.
    #[differentiable(wrt(x))]
    pub fn pred2_x(m: &Lin, x: &[f64]) -> f64 {
        sdot2(&m.w, x) * m.b
    }

    #[differentiable(wrt(x), order = 2)]
    pub fn loss2_x(m: &Lin, x: &[f64], y: f64) -> f64 {
        let p = pred2_x(m, x);
        (p - y) * (p - y) + p
    }

    #[test]
    fn a_constant_struct() {
        let y = 0.3;
        let m = Lin {
            w: vec![0.8, -0.6, 1.3],
            b: 1.2,
        };
        let plain = |x: &[f64]| {
            let p = sdot_plain(&m.w, x) * m.b;
            (p - y) * (p - y) + p
        };
        let pts = points(46_007, 3, 12, -1.0, 1.0);
        for x in &pts {
            assert_close(loss2_x(&m, x, y), plain(x), 1e-12, "free_function::loss2_x");
        }
        check(
            "free_function::loss2_x",
            &pts,
            plain,
            |x| loss2_x_grad(&m, x, y),
            |x| {
                let (v, _, h) = loss2_x_hessian(&m, x, y);
                (v, h)
            },
        );
    }

    #[test]
    fn through_a_free_function() {
        let y = -0.2;
        let lin = |p: &[f64]| Lin {
            w: p[..3].to_vec(),
            b: p[3],
        };
        let plain = |p: &[f64]| {
            let q = sdot_plain(&p[..3], &X) + p[3];
            (q - y) * (q - y)
        };
        let pts = points(46_003, 4, 12, -1.0, 1.0);
        for p in &pts {
            assert_close(
                loss2(&lin(p), &X, y),
                plain(p),
                1e-12,
                "free_function::loss2",
            );
        }
        check(
            "free_function::loss2",
            &pts,
            plain,
            |p| {
                let (v, (g, _, _)) = loss2_grad(&lin(p), &X, y);
                (v, g.to_flat())
            },
            |p| {
                let (v, _, h) = loss2_hessian(&lin(p), &X, y);
                // Over `m`'s flat view, then `x` and `y`: the struct's block.
                (v, h[..4].iter().map(|r| r[..4].to_vec()).collect())
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) An array field `[f64; 3]` to a callee taking `&[f64; 3]`, a nested-array field `[[f64; 3]; 3]`, and
// an associated function reached as `Self::h(&self.w, x)`.

mod array_fields {
    use super::*;

    /// `xᵀ m x` with `m` a matrix of three rows, plus `Σ m_ij²`.
    #[differentiable]
    pub fn quad3(m: &[[f64; 3]; 3], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                s += x[i] * m[i][j] * x[j] + 0.5 * m[i][j] * m[i][j];
            }
        }
        s
    }

    /// `Σ k_i exp(k_i x_i / 4)` of a fixed-size array.
    #[differentiable]
    pub fn weigh3(k: &[f64; 3], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..3 {
            s += k[i] * (k[i] * x[i] / 4.0).exp();
        }
        s
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct Quad {
        pub k: [f64; 3],
        pub m: [[f64; 3]; 3],
        pub w: Vec<f64>,
    }

    impl Quad {
        #[differentiable]
        pub fn h(a: &[f64], x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..a.len() {
                s += a[i].cos() * x[i];
            }
            s
        }

        /// Of a slice of indices beside the field: no real `__pick_pairs` (`pairs::plain` takes slices of
        /// floats only), its stand-ins in its place, so that `picked`'s first order builds.
        #[differentiable]
        pub fn pick(a: &[f64], idx: &[usize]) -> f64 {
            let mut s = 0.0;
            for &i in idx {
                s += a[i] * a[i];
            }
            s
        }

        #[differentiable(wrt(self))]
        pub fn picked(&self) -> f64 {
            Self::pick(&self.w, &[0, 2]) * self.k[1]
        }

        #[differentiable(wrt(self))]
        pub fn energy(&self, x: &[f64]) -> f64 {
            weigh3(&self.k, x) + quad3(&self.m, x) + Self::h(&self.w, x)
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn total(&self, x: &[f64]) -> f64 {
            let e = self.energy(x);
            e * e / 10.0
        }
    }

    fn quad(p: &[f64]) -> Quad {
        Quad {
            k: [p[0], p[1], p[2]],
            m: common::contract::nested(&p[3..12]),
            w: p[12..15].to_vec(),
        }
    }

    fn plain(q: &Quad, x: &[f64]) -> f64 {
        let h: f64 = q.w.iter().zip(x).map(|(a, x)| a.cos() * x).sum();
        let e = weigh3_plain(&q.k, x) + quad3_plain(&q.m, x) + h;
        e * e / 10.0
    }

    #[test]
    fn a_callee_without_pairs_keeps_the_first_order() {
        for p in points(46_008, 15, 10, -1.0, 1.0) {
            let q = quad(&p);
            let plain = |p: &[f64]| (p[12] * p[12] + p[14] * p[14]) * p[1];
            assert_close(q.picked(), plain(&p), 1e-12, "array_fields::picked");
            let (v, g) = q.picked_grad();
            assert_close(v, plain(&p), 1e-12, "array_fields::picked_grad value");
            assert_fd_gradient(plain, &p, &g.to_flat(), "array_fields::picked_grad");
        }
    }

    #[test]
    fn array_and_matrix_fields() {
        let pts = points(46_004, 15, 10, -1.0, 1.0);
        check(
            "array_fields::total",
            &pts,
            |p| plain(&quad(p), &X),
            |p| {
                let (v, g) = quad(p).total_grad(&X);
                (v, g.to_flat())
            },
            |p| {
                let (v, _, h) = quad(p).total_hessian(&X);
                (v, h)
            },
        );
        for p in &pts {
            let q = quad(p);
            assert_close(q.total(&X), plain(&q, &X), 1e-12, "array_fields::total");
            let (_, _, h) = q.total_hessian(&X);
            let v = common::wave(15, 0.4);
            let (_, _, hv) = q.total_hvp(&X, q.from_flat(&v));
            check_hvp("array_fields::total_hvp", &h, &v, &hv.to_flat());
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) A nested struct's field passed on whole (`sdot(&self.inner.w, x)`), and the nested struct itself
// (`inner_energy(&self.inner, x)`).

mod nested {
    use super::*;

    /// `Σ sin(a_i b_i) + a_i b_i`: nonlinear in both, so that a caller's Hessian is not that of a square
    /// alone.
    #[differentiable]
    pub fn sdot(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += (a[i] * b[i]).sin() + a[i] * b[i];
        }
        s
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct Inner {
        pub w: [f64; 3],
        pub s: f64,
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct Outer {
        pub c: f64,
        pub inner: Inner,
    }

    /// A function of the nested struct, which a method passes its field `inner` on whole.
    #[differentiable]
    pub fn inner_energy(q: &Inner, x: &[f64]) -> f64 {
        q.s * q.s * x[0] + q.w[1] * x[2]
    }

    impl Outer {
        #[differentiable(wrt(self))]
        pub fn score(&self, x: &[f64]) -> f64 {
            self.c * sdot(&self.inner.w, x) + self.inner.s + inner_energy(&self.inner, x)
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn fit(&self, x: &[f64]) -> f64 {
            let s = self.score(x);
            (s - 1.0).powi(2)
        }
    }

    fn outer(p: &[f64]) -> Outer {
        Outer {
            c: p[0],
            inner: Inner {
                w: [p[1], p[2], p[3]],
                s: p[4],
            },
        }
    }

    #[test]
    fn a_nested_field() {
        let pts = points(46_005, 5, 12, -1.0, 1.0);
        let plain = |p: &[f64]| {
            let energy = p[4] * p[4] * X[0] + p[2] * X[2];
            (p[0] * sdot_plain(&p[1..4], &X) + p[4] + energy - 1.0).powi(2)
        };
        for p in &pts {
            assert_close(outer(p).fit(&X), plain(p), 1e-12, "nested::fit");
        }
        check(
            "nested::fit",
            &pts,
            plain,
            |p| {
                let (v, g) = outer(p).fit_grad(&X);
                (v, g.to_flat())
            },
            |p| {
                let (v, _, h) = outer(p).fit_hessian(&X);
                (v, h)
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) trial44's portfolio (`Market::weights` solving by Cramer's rule), its fields passed on whole to
// `solve3`, which returns `[f64; 3]` (trial44 copied them into locals first), and a callee returning a
// tuple; `utility` at `order = 2`.

mod portfolio {
    use super::*;

    #[differentiable]
    pub fn det3(m: &[[f64; 3]; 3]) -> f64 {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }

    #[differentiable]
    pub fn solve3(m: &[[f64; 3]; 3], b: &[f64; 3]) -> [f64; 3] {
        let d = det3(m);
        let mut x = [0.0; 3];
        for k in 0..3 {
            let mut mk = *m;
            for i in 0..3 {
                mk[i][k] = b[i];
            }
            x[k] = det3(&mk) / d;
        }
        x
    }

    /// The mean and the spread of `mu`, as a tuple.
    #[differentiable]
    pub fn moments(mu: &[f64; 3]) -> (f64, f64) {
        let mean = (mu[0] + mu[1] + mu[2]) / 3.0;
        let mut s = 0.0;
        for i in 0..3 {
            s += (mu[i] - mean) * (mu[i] - mean);
        }
        (mean, s)
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Market {
        pub mu: [f64; 3],
        pub cov: [[f64; 3]; 3],
        #[no_grad]
        pub id: usize,
    }

    impl Market {
        #[differentiable(wrt(self))]
        pub fn weights(&self, gamma: f64) -> [f64; 3] {
            let a = solve3(&self.cov, &self.mu);
            let b = solve3(&self.cov, &[1.0, 1.0, 1.0]);
            let (sa, sb) = (a[0] + a[1] + a[2], b[0] + b[1] + b[2]);
            let eta = (1.0 - sa / gamma) / sb;
            [
                a[0] / gamma + eta * b[0],
                a[1] / gamma + eta * b[1],
                a[2] / gamma + eta * b[2],
            ]
        }

        #[differentiable(wrt(self))]
        pub fn spread(&self) -> f64 {
            let (mean, s) = moments(&self.mu);
            mean * s
        }

        #[differentiable(wrt(cov, w))]
        pub fn risk(cov: &[[f64; 3]; 3], w: &[f64; 3]) -> f64 {
            let mut s = 0.0;
            for i in 0..3 {
                for j in 0..3 {
                    s += w[i] * cov[i][j] * w[j];
                }
            }
            s
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn utility(&self, gamma: f64) -> f64 {
            let w = self.weights(gamma);
            let ret = w[0] * self.mu[0] + w[1] * self.mu[1] + w[2] * self.mu[2];
            ret - 0.5 * gamma * Self::risk(&self.cov, &w) + self.spread()
        }
    }

    /// The free-function form at `order = 2` itself: `Σ_i a_i μ_i` of `a = Σ⁻¹ μ` (`solve3` returning an array).
    #[differentiable(wrt(m), order = 2)]
    pub fn sharpe(m: &Market) -> f64 {
        let a = solve3(&m.cov, &m.mu);
        a[0] * m.mu[0] + a[1] * m.mu[1] + a[2] * m.mu[2]
    }

    fn market(p: &[f64]) -> Market {
        let l = [
            [0.3 + 0.05 * p[0], 0.0, 0.0],
            [0.05 * p[1], 0.25, 0.0],
            [0.05 * p[2], 0.05 * p[3], 0.2],
        ];
        let mut cov = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                cov[i][j] = (0..3).map(|k| l[i][k] * l[j][k]).sum::<f64>();
            }
        }
        Market {
            mu: [0.05 + 0.02 * p[4], 0.07 + 0.02 * p[5], 0.04],
            cov,
            id: 7,
        }
    }

    /// `utility` by hand: the weights solved by Gaussian elimination.
    fn plain(m: &Market, gamma: f64) -> f64 {
        let solve = |b: [f64; 3]| {
            let mut a = m.cov;
            let mut b = b;
            for k in 0..3 {
                for i in k + 1..3 {
                    let f = a[i][k] / a[k][k];
                    for j in k..3 {
                        a[i][j] -= f * a[k][j];
                    }
                    b[i] -= f * b[k];
                }
            }
            let mut x = [0.0; 3];
            for i in (0..3).rev() {
                let s: f64 = (i + 1..3).map(|j| a[i][j] * x[j]).sum();
                x[i] = (b[i] - s) / a[i][i];
            }
            x
        };
        let (a, b) = (solve(m.mu), solve([1.0; 3]));
        let (sa, sb): (f64, f64) = (a.iter().sum(), b.iter().sum());
        let eta = (1.0 - sa / gamma) / sb;
        let w: Vec<f64> = (0..3).map(|i| a[i] / gamma + eta * b[i]).collect();
        let ret: f64 = (0..3).map(|i| w[i] * m.mu[i]).sum();
        let mut risk = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                risk += w[i] * m.cov[i][j] * w[j];
            }
        }
        let mean = m.mu.iter().sum::<f64>() / 3.0;
        let s: f64 = m.mu.iter().map(|v| (v - mean) * (v - mean)).sum();
        ret - 0.5 * gamma * risk + mean * s
    }

    #[test]
    fn a_free_function_passing_fields_to_an_array_returning_one() {
        let base = market(&[0.0; 6]);
        let pts: Vec<Vec<f64>> = points(46_009, 6, 10, -1.0, 1.0)
            .iter()
            .map(|p| market(p).to_flat())
            .collect();
        let at = |x: &[f64]| base.from_flat(x);
        // μᵀ Σ⁻¹ μ by Gaussian elimination.
        let plain = |x: &[f64]| {
            let m = at(x);
            let (mut a, mut b) = (m.cov, m.mu);
            for k in 0..3 {
                for i in k + 1..3 {
                    let f = a[i][k] / a[k][k];
                    for j in k..3 {
                        a[i][j] -= f * a[k][j];
                    }
                    b[i] -= f * b[k];
                }
            }
            let mut y = [0.0; 3];
            for i in (0..3).rev() {
                let s: f64 = (i + 1..3).map(|j| a[i][j] * y[j]).sum();
                y[i] = (b[i] - s) / a[i][i];
            }
            (0..3).map(|i| y[i] * m.mu[i]).sum::<f64>()
        };
        for x in &pts {
            assert_close(sharpe(&at(x)), plain(x), 1e-10, "portfolio::sharpe");
        }
        check(
            "portfolio::sharpe",
            &pts,
            plain,
            |x| {
                let (v, g) = sharpe_grad(&at(x));
                (v, g.to_flat())
            },
            |x| {
                let (v, _, h) = sharpe_hessian(&at(x));
                (v, h)
            },
        );
    }

    #[test]
    fn utility_with_fields_passed_on_whole() {
        let gamma = 2.5;
        let base = market(&[0.0; 6]);
        let pts: Vec<Vec<f64>> = points(46_006, 6, 10, -1.0, 1.0)
            .iter()
            .map(|p| market(p).to_flat())
            .collect();
        let at = |x: &[f64]| base.from_flat(x);
        for x in &pts {
            let m = at(x);
            assert_close(
                m.utility(gamma),
                plain(&m, gamma),
                1e-10,
                "portfolio::utility",
            );
            let w = m.weights(gamma);
            assert_close(w.iter().sum::<f64>(), 1.0, 1e-12, "fully invested");
        }
        check(
            "portfolio::utility",
            &pts,
            |x| plain(&at(x), gamma),
            |x| {
                let (v, g) = at(x).utility_grad(gamma);
                assert_eq!(g.id, 7, "the #[no_grad] field copied");
                (v, g.to_flat())
            },
            |x| {
                let (v, _, h) = at(x).utility_hessian(gamma);
                (v, h)
            },
        );
        for x in &pts {
            let m = at(x);
            let (_, _, h) = m.utility_hessian(gamma);
            let v = common::wave(x.len(), 0.2);
            let (_, _, hv) = m.utility_hvp(gamma, m.from_flat(&v));
            check_hvp("portfolio::utility_hvp", &h, &v, &hv.to_flat());
        }
    }
}
