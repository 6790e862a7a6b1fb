//! probe36: this round's extended API (`f_grad_into`, output parameters, `f_jacobian`, methods and
//! `#[derive(Differentiable)]` structs, the wider body forms, `order = K` everywhere) tried in
//! combination, as a demanding new user would, from API.md alone: a generic method with `wrt(self)` at
//! `order = 2` calling a method that writes an output parameter from a nested struct; `f_jacobian` of
//! arrays built in a `match`; `f_grad_into` of a struct with `#[no_grad]` `Vec` fields; recursion at
//! `order = 3` through `f_derivatives`; closures capturing struct fields; iterator chains over matrix
//! rows; `f32` at `order = 2`; and more (each module's doc line says what it combines).
//!
//! Every gradient is checked against central differences and, where it is easy, a derivative worked out
//! by hand, at seeded points; every Hessian against central differences of the generated `_grad` (and by
//! hand where easy); `f_grad_into` against `f_grad` with NaN-filled buffers; vector results through
//! `f_jacobian` against central differences of the function.

// The forms a new user writes: index loops, `a = a * b`, closures named and passed, `&Vec` parameters.
#![allow(
    dead_code,
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::redundant_closure,
    clippy::type_complexity,
    clippy::too_many_arguments,
    clippy::let_and_return,
    clippy::ptr_arg,
    clippy::excessive_precision,
    clippy::manual_abs_diff
)]

mod common;

use autodiff::Differentiable;
use common::probe::{
    assert_near, assert_vec_near, check_third_at, dot, fd1, fd_columns, fd_gradient, Lcg,
};

/// The gradient `g` against central differences of `f` at `x`.
#[track_caller]
fn fd_check(what: &str, f: &dyn Fn(&[f64]) -> f64, x: &[f64], g: &[f64]) {
    assert_vec_near(g, &fd_gradient(f, x), 1e-6, &format!("{what} at {x:?}"));
}

/// The Hessian `h` against central differences of the gradient `g` at `x`, and symmetric.
#[track_caller]
fn hess_check(what: &str, g: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], h: &[Vec<f64>]) {
    let cols = fd_columns(g, x);
    assert_eq!(h.len(), x.len(), "{what}: rows");
    let scale = h
        .iter()
        .flat_map(|r| r.iter())
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    for i in 0..x.len() {
        assert_eq!(h[i].len(), x.len(), "{what}: columns");
        for j in 0..x.len() {
            let at = format!("{what} at {x:?}: H[{i}][{j}]");
            assert_near(h[i][j], cols[j][i], 1e-5, scale, &at);
            assert_near(h[i][j], h[j][i], 1e-9, scale, &format!("{at} symmetric"));
        }
    }
}

/// A Jacobian (rows are outputs) against central differences of `f` at `x`.
#[track_caller]
fn jac_check(what: &str, f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], jac: &[Vec<f64>]) {
    let cols = fd_columns(f, x);
    let m = cols[0].len();
    assert_eq!(jac.len(), m, "{what}: rows");
    for i in 0..m {
        assert_eq!(jac[i].len(), x.len(), "{what}: columns of row {i}");
        for j in 0..x.len() {
            let at = format!("{what} at {x:?}: J[{i}][{j}]");
            assert_near(jac[i][j], cols[j][i], 1e-6, 1.0, &at);
        }
    }
}

fn mat_vec(h: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    h.iter().map(|r| dot(r, v)).collect()
}

fn flat2(m: &[Vec<f64>]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

// ---------------------------------------------------------------------------------------------------
// A generic method with `wrt(self)` at `order = 2` calling a method that writes an output parameter
// from a nested generic struct with a `#[no_grad]` field.
// ---------------------------------------------------------------------------------------------------

pub mod nested_methods {
    use autodiff::{differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Inner<T: Float> {
        pub a: [T; 2],
        pub s: T,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Outer<T: Float> {
        pub inner: Inner<T>,
        pub w: Vec<T>,
        #[no_grad]
        pub k: usize,
    }

    // Written for `Outer<f64>`; `impl<T: Float> Outer<T>` with `loss` at `order = 2` calling
    // `self.features(..)` works too (tests/methods37.rs, `Model::fit`).
    impl Outer<f64> {
        /// An output parameter written from the nested struct's fields.
        #[differentiable(wrt(self))]
        pub fn features(&self, x: &[f64], out: &mut [f64]) {
            for i in 0..out.len() {
                out[i] = self.w[i] * x[i] + self.inner.a[i % 2] * self.inner.s;
            }
        }

        /// `k Σ f_i² + sin s`, the features through the output parameter, summed by a `fold`.
        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, x: &[f64]) -> f64 {
            let mut f = vec![0.0; x.len()];
            self.features(x, &mut f);
            let k = self.k as f64;
            f.iter().fold(0.0, |acc, &v| acc + v * v) * k + self.inner.s.sin()
        }
    }
}

#[test]
fn generic_method_at_order_2_through_an_output_parameter_method() {
    use nested_methods::{Inner, Outer};
    let mut rng = Lcg::new(3601);
    for _ in 0..5 {
        let x = rng.vec(4, -1.5, 1.5);
        let p = Outer {
            inner: Inner {
                a: [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
                s: rng.uniform(-1.0, 1.0),
            },
            w: rng.vec(4, -1.0, 1.0),
            k: 3,
        };
        let flat = p.to_flat();
        let f = |v: &[f64]| p.from_flat(v).loss(&x);
        let grad = |v: &[f64]| p.from_flat(v).loss_grad(&x).1.to_flat();
        let (value, g) = p.loss_grad(&x);
        assert_near(value, p.loss(&x), 1e-12, 1.0, "value");
        assert_eq!(g.k, 3, "the #[no_grad] field copied");
        fd_check("Outer::loss_grad", &f, &flat, &g.to_flat());
        // By hand: f_i = w_i x_i + a_{i%2} s.
        let (a, s, k) = (p.inner.a, p.inner.s, 3.0);
        let fi: Vec<f64> = (0..4).map(|i| p.w[i] * x[i] + a[i % 2] * s).collect();
        let mut by_hand = vec![0.0; 7];
        for i in 0..4 {
            by_hand[i % 2] += 2.0 * k * fi[i] * s;
            by_hand[2] += 2.0 * k * fi[i] * a[i % 2];
            by_hand[3 + i] = 2.0 * k * fi[i] * x[i];
        }
        by_hand[2] += s.cos();
        assert_vec_near(&g.to_flat(), &by_hand, 1e-12, "Outer::loss_grad by hand");
        let (hv, hg, h) = p.loss_hessian(&x);
        assert_near(hv, value, 1e-12, 1.0, "hessian value");
        assert_vec_near(&hg.to_flat(), &g.to_flat(), 1e-12, "hessian gradient");
        hess_check("Outer::loss_hessian", &grad, &flat, &h);
        let dir = p.from_flat(&rng.vec(7, -1.0, 1.0));
        let (_, _, hvp) = p.loss_hvp(&x, dir.clone());
        assert_vec_near(&hvp.to_flat(), &mat_vec(&h, &dir.to_flat()), 1e-10, "hvp");
        // The output-parameter method's Jacobian over `self`.
        let jac = p.features_jacobian(&x, &mut [0.0; 4]);
        let feats = |v: &[f64]| {
            let mut o = vec![0.0; 4];
            p.from_flat(v).features(&x, &mut o);
            o
        };
        jac_check("Outer::features_jacobian", &feats, &flat, &jac);
    }
}

// ---------------------------------------------------------------------------------------------------
// `f_jacobian` of functions returning an array built in a `match` (with `|` and ranges), an `if`, and an
// early `return` from a loop.
// ---------------------------------------------------------------------------------------------------

pub mod match_arrays {
    use autodiff::differentiable;

    #[differentiable]
    pub fn piece(x: [f64; 2], mode: usize) -> [f64; 3] {
        let r = match mode {
            0 | 1 => [x[0] * x[1], x[0].sin(), x[1]],
            2..=4 => {
                let s = x[0] + x[1];
                [s, s * s, x[0].exp()]
            }
            _ => [x[1]; 3],
        };
        r
    }

    /// The `match` as the tail, an arm holding an `if` whose branches are arrays, byte ranges.
    #[differentiable]
    pub fn piece_tail(x: &[f64], mode: u8) -> [f64; 2] {
        if x.len() < 2 {
            return [x[0], x[0]];
        }
        match mode {
            b'a'..=b'f' => [x[0] * x[1], x.iter().sum()],
            _ => {
                if x[0] > 0.0 {
                    [x[0].sqrt(), x[1] * x[2]]
                } else {
                    [x[0] * x[0], -x[1]]
                }
            }
        }
    }

    /// An array returned early from inside a loop, found by an active test.
    #[differentiable]
    pub fn first_above(x: &[f64], level: f64) -> [f64; 2] {
        let mut out = [level, 0.0];
        for i in 0..x.len() {
            if x[i] > level {
                out = [x[i] * level, (x[i] - level).powi(2)];
                break;
            }
        }
        out
    }
}

#[test]
fn jacobians_of_arrays_built_in_match_if_and_return() {
    use match_arrays::*;
    let mut rng = Lcg::new(3602);
    for _ in 0..5 {
        let v = rng.vec(3, 0.2, 1.5);
        for mode in [0, 1, 3, 4, 9] {
            let jac = piece_jacobian([v[0], v[1]], mode);
            let f = |y: &[f64]| piece([y[0], y[1]], mode).to_vec();
            jac_check(&format!("piece_jacobian mode {mode}"), &f, &v[..2], &jac);
        }
        let jac = piece_jacobian([v[0], v[1]], 2);
        let s = v[0] + v[1];
        let by_hand = [[1.0, 1.0], [2.0 * s, 2.0 * s], [v[0].exp(), 0.0]];
        for i in 0..3 {
            assert_vec_near(&jac[i], &by_hand[i], 1e-12, "piece by hand");
        }
        for mode in [b'a', b'c', b'f', b'z'] {
            for sign in [1.0, -1.0] {
                let x = [sign * v[0], v[1], v[2]];
                let jac = piece_tail_jacobian(&x, mode);
                let f = |y: &[f64]| piece_tail(y, mode).to_vec();
                jac_check(&format!("piece_tail_jacobian {mode}"), &f, &x, &jac);
            }
        }
        let x = rng.vec(4, -1.0, 1.0);
        let level = 0.3;
        if x.iter().all(|a| (a - level).abs() > 1e-3) {
            let jac = first_above_jacobian(&x, level);
            let mut flat = x.clone();
            flat.push(level);
            let f = |y: &[f64]| first_above(&y[..4], y[4]).to_vec();
            jac_check("first_above_jacobian", &f, &flat, &jac);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// `f_grad_into` of a struct parameter with `#[no_grad]` `Vec` fields (indices and weights), at
// `order = 2`, next to a slice.
// ---------------------------------------------------------------------------------------------------

pub mod sparse {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Sparse {
        pub vals: Vec<f64>,
        pub bias: f64,
        #[no_grad]
        pub idx: Vec<usize>,
        #[no_grad]
        pub weights: Vec<f64>,
    }

    /// `(b + Σ_k v_k x_{idx_k} w_k)² + Σ v_k³`.
    #[differentiable(order = 2)]
    pub fn sparse_dot(p: &Sparse, x: &[f64]) -> f64 {
        let mut s = p.bias;
        for (k, &i) in p.idx.iter().enumerate() {
            s += p.vals[k] * x[i] * p.weights[k];
        }
        s * s + p.vals.iter().map(|v| v.powi(3)).sum::<f64>()
    }
}

#[test]
fn grad_into_of_a_struct_with_no_grad_vec_fields() {
    use sparse::*;
    let mut rng = Lcg::new(3603);
    for _ in 0..5 {
        let p = Sparse {
            vals: rng.vec(3, -1.0, 1.0),
            bias: rng.uniform(-1.0, 1.0),
            idx: vec![2, 0, 2],
            weights: rng.vec(3, 0.5, 2.0),
        };
        let x = rng.vec(3, -1.0, 1.0);
        let (value, (gp, gx)) = sparse_dot_grad(&p, &x);
        let mut bp = Sparse {
            vals: vec![f64::NAN; 3],
            bias: f64::NAN,
            idx: vec![7, 7, 7],
            weights: vec![-1.0; 3],
        };
        let mut bx = vec![f64::NAN; 3];
        let into = sparse_dot_grad_into(&p, &x, (&mut bp, &mut bx));
        assert_eq!(into, value);
        assert_vec_near(&bp.to_flat(), &gp.to_flat(), 1e-14, "grad_into struct");
        assert_vec_near(&bx, &gx, 1e-14, "grad_into slice");
        assert_eq!(gp.idx, p.idx, "no_grad idx copied into the gradient");
        assert_eq!(
            gp.weights, p.weights,
            "no_grad weights copied into the gradient"
        );
        // Flat view: vals, bias, then x.
        let n = 4;
        let mut flat = p.to_flat();
        flat.extend_from_slice(&x);
        let f = |v: &[f64]| sparse_dot(&p.from_flat(&v[..n]), &v[n..]);
        let grad = |v: &[f64]| {
            let (_, (a, b)) = sparse_dot_grad(&p.from_flat(&v[..n]), &v[n..]);
            let mut g = a.to_flat();
            g.extend(b);
            g
        };
        let g = grad(&flat);
        fd_check("sparse_dot_grad", &f, &flat, &g);
        // By hand.
        let s = p.bias
            + (0..3)
                .map(|k| p.vals[k] * x[p.idx[k]] * p.weights[k])
                .sum::<f64>();
        for k in 0..3 {
            let e = 2.0 * s * x[p.idx[k]] * p.weights[k] + 3.0 * p.vals[k] * p.vals[k];
            assert_near(gp.vals[k], e, 1e-12, 1.0, "d/dv by hand");
        }
        assert_near(gp.bias, 2.0 * s, 1e-12, 1.0, "d/db by hand");
        let (_, _, h) = sparse_dot_hessian(&p, &x);
        hess_check("sparse_dot_hessian", &grad, &flat, &h);
    }
}

// ---------------------------------------------------------------------------------------------------
// Recursion (direct and mutual) at `order = 3`, through `f_derivatives`.
// ---------------------------------------------------------------------------------------------------

pub mod recursion3 {
    use autodiff::differentiable;

    /// `t_0 = x`, `t_n = sin t_{n-1} + x/2`.
    #[differentiable(order = 3)]
    pub fn tower(x: f64, n: usize) -> f64 {
        if n == 0 {
            x
        } else {
            tower(x, n - 1).sin() + 0.5 * x
        }
    }

    #[differentiable(order = 3)]
    pub fn even(x: f64, n: u32) -> f64 {
        if n == 0 {
            x.cos()
        } else {
            x * odd(x, n - 1)
        }
    }

    #[differentiable(order = 3)]
    pub fn odd(x: f64, n: u32) -> f64 {
        match n {
            0 => x.sin(),
            _ => even(x, n - 1) + x * x,
        }
    }
}

#[test]
fn recursion_at_order_3() {
    use recursion3::*;
    let mut rng = Lcg::new(3604);
    for _ in 0..5 {
        let x = rng.uniform(-2.0, 2.0);
        for n in 0..4 {
            check_third_at(&format!("tower n={n}"), &|y| tower_derivatives(y, n), x);
            check_third_at(
                &format!("even n={n}"),
                &|y| even_derivatives(y, n as u32),
                x,
            );
            check_third_at(&format!("odd n={n}"), &|y| odd_derivatives(y, n as u32), x);
            let d = tower_derivatives(x, n);
            assert_near(d[0], tower(x, n), 1e-14, 1.0, "tower value");
            let (_, g) = tower_grad(x, n);
            assert_near(d[1], g, 1e-12, 1.0, "tower first derivative");
        }
        // By hand: tower(x, 1) = sin x + x/2; odd(x, 1) = cos x + x².
        let d = tower_derivatives(x, 1);
        let e = [x.sin() + 0.5 * x, x.cos() + 0.5, -x.sin(), -x.cos()];
        assert_vec_near(&d, &e, 1e-12, "tower(x, 1) by hand");
        let d = odd_derivatives(x, 1);
        let e = [x.cos() + x * x, -x.sin() + 2.0 * x, -x.cos() + 2.0, x.sin()];
        assert_vec_near(&d, &e, 1e-12, "odd(x, 1) by hand");
        // even(x, 2) = x (cos x + x²) = x cos x + x³.
        let d = even_derivatives(x, 2);
        let e = [
            x * x.cos() + x.powi(3),
            x.cos() - x * x.sin() + 3.0 * x * x,
            -2.0 * x.sin() - x * x.cos() + 6.0 * x,
            -3.0 * x.cos() + x * x.sin() + 6.0,
        ];
        assert_vec_near(&d, &e, 1e-12, "even(x, 2) by hand");
    }
}

// ---------------------------------------------------------------------------------------------------
// Closures capturing struct fields (a function and a method), the closure called in an iterator chain
// over a sub-slice bounded by a `#[no_grad]` field.
// ---------------------------------------------------------------------------------------------------

pub mod captures {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Quad {
        pub a: f64,
        pub b: [f64; 2],
        #[no_grad]
        pub n: usize,
    }

    /// `Σ_{v in xs[..n]} a v² + sin(b0) v + b1`.
    #[differentiable(wrt(p), order = 2)]
    pub fn cap(p: &Quad, xs: &[f64]) -> f64 {
        let f = |v: f64| p.a * v * v + p.b[0].sin() * v + p.b[1];
        xs[..p.n].iter().map(|&v| f(v)).sum::<f64>()
    }

    impl Quad {
        /// `g(x) g(cos x)` with `g(t) = a t + b1 t²` capturing `self`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn eval(&self, x: f64) -> f64 {
            let g = |t: f64| self.a * t + self.b[1] * t * t;
            g(x) * g(x.cos())
        }
    }
}

#[test]
fn closures_capturing_struct_fields() {
    use captures::*;
    let mut rng = Lcg::new(3605);
    for _ in 0..5 {
        let p = Quad {
            a: rng.uniform(-1.0, 1.0),
            b: [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
            n: 3,
        };
        let xs = rng.vec(5, -1.0, 1.0);
        let flat = p.to_flat();
        let f = |v: &[f64]| cap(&p.from_flat(v), &xs);
        let grad = |v: &[f64]| cap_grad(&p.from_flat(v), &xs).1.to_flat();
        let g = grad(&flat);
        fd_check("cap_grad", &f, &flat, &g);
        let s1: f64 = xs[..3].iter().sum();
        let s2: f64 = xs[..3].iter().map(|v| v * v).sum();
        assert_vec_near(&g, &[s2, p.b[0].cos() * s1, 3.0], 1e-12, "cap by hand");
        let (_, _, h) = cap_hessian(&p, &xs);
        hess_check("cap_hessian", &grad, &flat, &h);
        assert_near(
            h[1][1],
            -p.b[0].sin() * s1,
            1e-12,
            1.0,
            "cap H[1][1] by hand",
        );

        let x = rng.uniform(-1.5, 1.5);
        let mut flat = p.to_flat();
        flat.push(x);
        let f = |v: &[f64]| p.from_flat(&v[..3]).eval(v[3]);
        let grad = |v: &[f64]| {
            let (_, (gp, gx)) = p.from_flat(&v[..3]).eval_grad(v[3]);
            let mut g = gp.to_flat();
            g.push(gx);
            g
        };
        fd_check("Quad::eval_grad", &f, &flat, &grad(&flat));
        let (_, _, h) = p.eval_hessian(x);
        hess_check("Quad::eval_hessian", &grad, &flat, &h);
    }
}

// ---------------------------------------------------------------------------------------------------
// Iterator chains over `&[Vec<f64>]` rows (`zip`, `enumerate`, `fold`, `product`) at `order = 2`.
// ---------------------------------------------------------------------------------------------------

pub mod rows {
    use autodiff::differentiable;

    /// `Σ_r (row_r · v)²`.
    #[differentiable(order = 2)]
    pub fn rows_quad(m: &[Vec<f64>], v: &[f64]) -> f64 {
        m.iter()
            .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum::<f64>().powi(2))
            .sum()
    }

    /// `Σ_i m_ii Π_j m_ij` by a `fold` over enumerated rows.
    #[differentiable(order = 2)]
    pub fn rows_enum(m: &[Vec<f64>]) -> f64 {
        m.iter().enumerate().fold(0.0, |acc, (i, row)| {
            acc + row[i] * row.iter().product::<f64>()
        })
    }

    /// Row norms of a `Vec<Vec<f64>>` by value, as a `Vec`.
    #[differentiable]
    pub fn row_norms(m: Vec<Vec<f64>>) -> Vec<f64> {
        m.iter()
            .map(|r| r.iter().map(|a| a * a).sum::<f64>().sqrt())
            .collect()
    }
}

#[test]
fn iterator_chains_over_matrix_rows() {
    use rows::*;
    let mut rng = Lcg::new(3606);
    let shape = |v: &[f64]| -> Vec<Vec<f64>> { v.chunks(3).map(|c| c.to_vec()).collect() };
    for _ in 0..5 {
        let flat = rng.vec(9, -1.0, 1.0);
        let v = rng.vec(3, -1.0, 1.0);
        let m = shape(&flat);
        let mut all = flat.clone();
        all.extend_from_slice(&v);
        let f = |y: &[f64]| rows_quad(&shape(&y[..9]), &y[9..]);
        let grad = |y: &[f64]| {
            let (_, (gm, gv)) = rows_quad_grad(&shape(&y[..9]), &y[9..]);
            let mut g = flat2(&gm);
            g.extend(gv);
            g
        };
        fd_check("rows_quad_grad", &f, &all, &grad(&all));
        let (_, _, h) = rows_quad_hessian(&m, &v);
        hess_check("rows_quad_hessian", &grad, &all, &h);

        let f = |y: &[f64]| rows_enum(&shape(y));
        let grad = |y: &[f64]| flat2(&rows_enum_grad(&shape(y)).1);
        fd_check("rows_enum_grad", &f, &flat, &grad(&flat));
        let (_, _, h) = rows_enum_hessian(&m);
        hess_check("rows_enum_hessian", &grad, &flat, &h);

        let jac = row_norms_jacobian(m.clone());
        let f = |y: &[f64]| row_norms(shape(y));
        jac_check("row_norms_jacobian", &f, &flat, &jac);
    }
}

// ---------------------------------------------------------------------------------------------------
// `f32` at `order = 2`: a log-sum-exp with a temperature over an array, against the same in `f64`.
// ---------------------------------------------------------------------------------------------------

pub mod single {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn lse32(x: &[f32; 3], t: f32) -> f32 {
        let m = x.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        let z: f32 = x.iter().map(|&v| ((v - m) / t).exp()).sum();
        t * z.ln() + m
    }

    #[differentiable(order = 2)]
    pub fn lse64(x: &[f64; 3], t: f64) -> f64 {
        let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let z: f64 = x.iter().map(|&v| ((v - m) / t).exp()).sum();
        t * z.ln() + m
    }

    /// An `f32` closure bound to a local, `.product()` of `f32`, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn prod32(x: &[f32]) -> f32 {
        let sq = |v: f32| 1.0 + v * v;
        x.iter().map(|&v| sq(v)).product::<f32>().ln()
    }
}

#[test]
fn f32_at_order_2() {
    use single::*;
    let mut rng = Lcg::new(3607);
    for _ in 0..5 {
        let v = rng.vec(4, -1.0, 1.0);
        let (x, t) = ([v[0], v[1], v[2]], 0.5 + v[3].abs());
        let flat = [x[0], x[1], x[2], t];
        let grad = |y: &[f64]| {
            let (_, (gx, gt)) = lse64_grad(&[y[0], y[1], y[2]], y[3]);
            vec![gx[0], gx[1], gx[2], gt]
        };
        let f = |y: &[f64]| lse64(&[y[0], y[1], y[2]], y[3]);
        fd_check("lse64_grad", &f, &flat, &grad(&flat));
        let (_, _, h64) = lse64_hessian(&x, t);
        hess_check("lse64_hessian", &grad, &flat, &h64);
        let x32 = x.map(|a| a as f32);
        let (v32, (gx, gt), h32) = lse32_hessian(&x32, t as f32);
        assert_near(v32 as f64, f(&flat), 1e-5, 1.0, "lse32 value");
        let g = grad(&flat);
        let g32 = [gx[0] as f64, gx[1] as f64, gx[2] as f64, gt as f64];
        assert_vec_near(&g32, &g, 1e-5, "lse32 gradient");
        for i in 0..4 {
            let row: Vec<f64> = h32[i].iter().map(|&a| a as f64).collect();
            assert_vec_near(&row, &h64[i], 1e-4, "lse32 Hessian row");
        }
        let (_, _, hv) = lse32_hvp(&x32, t as f32, ([1.0, 0.0, 0.0], 0.0));
        assert_near(hv.0[1] as f64, h64[0][1], 1e-4, 1.0, "lse32 hvp");

        let xs: Vec<f32> = v.iter().map(|&a| a as f32).collect();
        let (_, g, h) = prod32_hessian(&xs);
        for i in 0..4 {
            let vi = v[i];
            let ei = 2.0 * vi / (1.0 + vi * vi);
            assert_near(g[i] as f64, ei, 1e-5, 1.0, "prod32 gradient by hand");
            let hii = (2.0 - 2.0 * vi * vi) / (1.0 + vi * vi).powi(2);
            assert_near(h[i][i] as f64, hii, 1e-4, 1.0, "prod32 Hessian by hand");
            for j in 0..4 {
                if j != i {
                    assert!(h[i][j].abs() < 1e-5, "prod32 off-diagonal {i},{j}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Recursion on sub-slices with a nested `fn` item as the leaf, at `order = 2`.
// ---------------------------------------------------------------------------------------------------

pub mod halves {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn split(x: &[f64]) -> f64 {
        fn leaf(v: &[f64]) -> f64 {
            v.iter().map(|a| a.exp()).sum()
        }
        if x.len() <= 2 {
            return leaf(x);
        }
        let m = x.len() / 2;
        let r = split(&x[m..]);
        split(&x[..m]) * (1.0 + r * r).ln()
    }
}

#[test]
fn sub_slice_recursion_with_a_nested_fn() {
    use halves::*;
    let mut rng = Lcg::new(3608);
    for n in [1, 2, 3, 5, 7] {
        let x = rng.vec(n, -1.0, 1.0);
        let grad = |y: &[f64]| split_grad(y).1;
        fd_check("split_grad", &split, &x, &grad(&x));
        let (_, _, h) = split_hessian(&x);
        hess_check("split_hessian", &grad, &x, &h);
    }
}

// ---------------------------------------------------------------------------------------------------
// `T::from(p.k).unwrap()` of a `#[no_grad]` count, and `T::from(p.a).unwrap()` of a float field, in a
// generic `impl` and a generic free function, at first and second order. Found by this probe: each was
// the error "`T::from` has no known derivative" (the macro cannot tell the two fields apart), then, in
// the free function at `order = 2`, rustc's E0308 (`if` and `else` of `T` and `f64`) and E0605, and once
// those compiled, the Hessian through a float field read by `T::from` in a generic `impl` was zeros.
// ---------------------------------------------------------------------------------------------------

pub mod from_fields {
    use autodiff::{differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Scaled<T: Float> {
        pub w: Vec<T>,
        pub a: T,
        #[no_grad]
        pub k: usize,
    }

    impl<T: Float> Scaled<T> {
        /// `k a Σ w_i x_i` with the count converted by `T::from`.
        #[differentiable(wrt(self))]
        pub fn first(&self, x: &[T]) -> T {
            let k = T::from(self.k).unwrap();
            let mut s = T::zero();
            for i in 0..x.len() {
                s = s + self.w[i] * x[i];
            }
            k * self.a * s
        }

        /// `(k / (k + 1)) a² Σ w_i² x_i` (`.expect`), at `order = 2`.
        #[differentiable(wrt(self), order = 2)]
        pub fn second(&self, x: &[T]) -> T {
            let k = T::from(self.k).expect("a count");
            let frac = k / (k + T::one());
            let s = self
                .w
                .iter()
                .zip(x)
                .fold(T::zero(), |acc, (&w, &v)| acc + w * w * v);
            frac * self.a * self.a * s
        }

        /// The float field itself through `T::from`: `a³ w₀ + k w₁`.
        #[differentiable(wrt(self), order = 2)]
        pub fn float_field(&self) -> T {
            let a = T::from(self.a).unwrap();
            a * a * a * self.w[0] + T::from(self.k).unwrap() * self.w[1]
        }
    }

    /// A free generic function, both conversions, at `order = 2`.
    #[differentiable(wrt(p), order = 2)]
    pub fn free<T: Float>(p: &Scaled<T>, x: &[T]) -> T {
        let k = T::from(p.k).unwrap();
        let a = T::from(p.a).unwrap();
        (k * a * a * p.w[0] * x[0]).sin() + p.w[1] * x[1]
    }
}

#[test]
fn conversions_of_fields_by_from() {
    use from_fields::*;
    let mut rng = Lcg::new(3609);
    for _ in 0..5 {
        let p = Scaled {
            w: rng.vec(3, -1.0, 1.0),
            a: rng.uniform(-1.5, 1.5),
            k: 3,
        };
        let x = rng.vec(3, -1.0, 1.0);
        let flat = p.to_flat();
        let s: f64 = (0..3).map(|i| p.w[i] * x[i]).sum();

        let (value, g) = p.first_grad(&x);
        assert_near(value, p.first(&x), 1e-14, 1.0, "first value");
        assert_eq!(g.k, 3);
        let f = |v: &[f64]| p.from_flat(v).first(&x);
        fd_check("Scaled::first_grad", &f, &flat, &g.to_flat());
        let mut by_hand: Vec<f64> = x.iter().map(|xi| 3.0 * p.a * xi).collect();
        by_hand.push(3.0 * s);
        assert_vec_near(&g.to_flat(), &by_hand, 1e-12, "Scaled::first by hand");

        for (name, f, grad, hess) in [
            (
                "second",
                Box::new(|q: &Scaled<f64>| q.second(&x)) as Box<dyn Fn(&Scaled<f64>) -> f64>,
                Box::new(|q: &Scaled<f64>| q.second_grad(&x).1.to_flat())
                    as Box<dyn Fn(&Scaled<f64>) -> Vec<f64>>,
                Box::new(|q: &Scaled<f64>| q.second_hessian(&x).2)
                    as Box<dyn Fn(&Scaled<f64>) -> Vec<Vec<f64>>>,
            ),
            (
                "float_field",
                Box::new(|q: &Scaled<f64>| q.float_field()),
                Box::new(|q: &Scaled<f64>| q.float_field_grad().1.to_flat()),
                Box::new(|q: &Scaled<f64>| q.float_field_hessian().2),
            ),
            (
                "free",
                Box::new(|q: &Scaled<f64>| free(q, &x)),
                Box::new(|q: &Scaled<f64>| free_grad(q, &x).1.to_flat()),
                Box::new(|q: &Scaled<f64>| free_hessian(q, &x).2),
            ),
        ] {
            let fv = |v: &[f64]| f(&p.from_flat(v));
            let gv = |v: &[f64]| grad(&p.from_flat(v));
            fd_check(name, &fv, &flat, &gv(&flat));
            hess_check(name, &gv, &flat, &hess(&p));
        }
        // By hand: float_field = a³ w₀ + 3 w₁ over (w₀, w₁, w₂, a).
        let h = p.float_field_hessian().2;
        let a = p.a;
        let e = [
            [0.0, 0.0, 0.0, 3.0 * a * a],
            [0.0; 4],
            [0.0; 4],
            [3.0 * a * a, 0.0, 0.0, 6.0 * a * p.w[0]],
        ];
        for i in 0..4 {
            assert_vec_near(&h[i], &e[i], 1e-12, "float_field Hessian by hand");
        }
        let (_, g) = p.float_field_grad();
        assert_vec_near(
            &g.to_flat(),
            &[a * a * a, 3.0, 0.0, 3.0 * a * a * p.w[0]],
            1e-12,
            "float_field gradient by hand",
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// Second round: output parameters at `order = 2` and through `f_jacobian` of methods; registered and
// custom gradients at orders 2 and 3 inside iterator chains and methods; nested arrays with nested fns.
// ---------------------------------------------------------------------------------------------------

pub mod round2 {
    use autodiff::{custom_gradient, differentiable, gradient_of, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Lin {
        pub m: [[f64; 2]; 2],
        pub b: [f64; 2],
        #[no_grad]
        pub tag: u8,
    }

    impl Lin {
        /// `out = tanh(M x + b)`, a closure for the activation, `wrt(self, x)`.
        #[differentiable(wrt(self, x))]
        pub fn apply(&self, x: &[f64; 2], out: &mut [f64; 2]) {
            let act = |v: f64| v.tanh();
            for i in 0..2 {
                let mut s = self.b[i];
                for j in 0..2 {
                    s += self.m[i][j] * x[j];
                }
                out[i] = act(s);
            }
        }
    }

    /// A residual written into an output buffer, its squared norm returned, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn resid_norm(x: &[f64], r: &mut [f64]) -> f64 {
        for i in 0..r.len() {
            r[i] = x[i] * x[(i + 1) % x.len()] - (i as f64).cos();
        }
        r.iter().map(|v| v * v).sum()
    }

    /// Accumulates into an output buffer whose incoming value is read (`+=`), and returns a float.
    #[differentiable]
    pub fn accumulate(x: &[f64], acc: &mut [f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..acc.len() {
            acc[i] += x[i].exp() * acc[i];
            total += acc[i];
        }
        total
    }

    /// `libm::erf` with its gradient registered here.
    #[gradient_of(libm::erf)]
    pub fn erf_grad(x: f64, dy: f64) -> f64 {
        dy * 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp()
    }

    /// The registered function at `order = 3`, composed.
    #[differentiable(order = 3)]
    pub fn erf_sq(x: f64) -> f64 {
        let e = libm::erf(0.5 * x);
        e * e + x
    }

    /// A two-input custom gradient (the true one), `order = 2` callers.
    #[custom_gradient]
    pub fn mulsin(a: f64, b: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let (sa, ca) = (a.sin(), a.cos());
        (sa * b, move |dy| (dy * ca * b, dy * sa))
    }

    /// The custom gradient in an iterator chain over two zipped slices.
    #[differentiable(order = 2)]
    pub fn chain_custom(a: &[f64], b: &[f64]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(&p, &q)| mulsin(p, q))
            .sum::<f64>()
            .powi(2)
    }

    impl Lin {
        /// The registered and the custom gradient in a method at `order = 2`.
        #[differentiable(wrt(self), order = 2)]
        pub fn special(&self) -> f64 {
            libm::erf(self.m[0][1] * self.b[0]) + mulsin(self.m[1][0], self.b[1]) * self.m[0][0]
        }
    }

    /// Nested arrays, rows handed to a nested fn by reference, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn rows_nested(m: [[f64; 3]; 2], w: &[f64; 3]) -> f64 {
        fn row_dot(r: &[f64; 3], w: &[f64; 3]) -> f64 {
            r[0] * w[0] + r[1] * w[1] + r[2] * w[2]
        }
        let a = row_dot(&m[0], w);
        let b = row_dot(&m[1], w);
        a * b + (a - b).exp()
    }
}

#[test]
fn output_parameters_registered_and_custom_gradients_at_higher_order() {
    use round2::*;
    let mut rng = Lcg::new(3610);
    for _ in 0..5 {
        // Lin::apply_jacobian over (self: m00 m01 m10 m11 b0 b1, x0 x1).
        let v = rng.vec(8, -1.0, 1.0);
        let lin = Lin {
            m: [[v[0], v[1]], [v[2], v[3]]],
            b: [v[4], v[5]],
            tag: 7,
        };
        let x = [v[6], v[7]];
        let jac = lin.apply_jacobian(&x, &mut [0.0; 2]);
        let f = |y: &[f64]| {
            let mut o = [0.0; 2];
            lin.from_flat(&y[..6]).apply(&[y[6], y[7]], &mut o);
            o.to_vec()
        };
        jac_check("Lin::apply_jacobian", &f, &v, &jac);
        let mut o = [f64::NAN; 2];
        let (gl, gx) = lin.apply_vjp(&x, &mut o, &[1.0, -0.5]);
        assert_eq!(gl.tag, 7);
        let mut from_vjp = gl.to_flat();
        from_vjp.extend_from_slice(&gx);
        let expected: Vec<f64> = (0..8).map(|j| jac[0][j] - 0.5 * jac[1][j]).collect();
        assert_vec_near(&from_vjp, &expected, 1e-12, "Lin::apply_vjp");

        // resid_norm at order 2: gradient and Hessian of the returned float.
        let xs = rng.vec(3, -1.0, 1.0);
        let f = |y: &[f64]| resid_norm(y, &mut [0.0; 3]);
        let grad = |y: &[f64]| resid_norm_grad(y, &mut [0.0; 3]).1;
        fd_check("resid_norm_grad", &f, &xs, &grad(&xs));
        let mut r = [f64::NAN; 3];
        let (_, _, h) = resid_norm_hessian(&xs, &mut r);
        hess_check("resid_norm_hessian", &grad, &xs, &h);
        let mut r2 = [0.0; 3];
        resid_norm(&xs, &mut r2);
        assert_vec_near(&r, &r2, 1e-14, "resid_norm_hessian writes the residual");

        // accumulate: G holds the incoming `acc`.
        let acc0 = rng.vec(3, -1.0, 1.0);
        let mut flat = xs.clone();
        flat.extend_from_slice(&acc0);
        let (d_ret, d_out) = (0.7, [0.3, -1.0, 0.5]);
        let f = |y: &[f64]| {
            let mut acc = y[3..].to_vec();
            let t = accumulate(&y[..3], &mut acc);
            d_ret * t + dot(&d_out, &acc)
        };
        let mut acc = acc0.clone();
        let (_, (gx, gacc)) = accumulate_vjp(&xs, &mut acc, d_ret, &d_out);
        let mut g = gx.clone();
        g.extend(gacc);
        fd_check("accumulate_vjp", &f, &flat, &g);

        // erf at order 3.
        let t = rng.uniform(-2.0, 2.0);
        check_third_at("erf_sq", &|y| erf_sq_derivatives(y), t);
        let e = libm::erf(0.5 * t);
        let de = (-(0.25 * t * t)).exp() / std::f64::consts::PI.sqrt();
        let d = erf_sq_derivatives(t);
        assert_near(d[1], 2.0 * e * de + 1.0, 1e-12, 1.0, "erf_sq' by hand");
        let d2 = 2.0 * de * de + 2.0 * e * (-0.5 * t * de);
        assert_near(d[2], d2, 1e-12, 1.0, "erf_sq'' by hand");

        // The custom gradient in a chain, at order 2.
        let ab = rng.vec(6, -1.5, 1.5);
        let f = |y: &[f64]| chain_custom(&y[..3], &y[3..]);
        let grad = |y: &[f64]| {
            let (_, (ga, gb)) = chain_custom_grad(&y[..3], &y[3..]);
            ga.into_iter().chain(gb).collect::<Vec<_>>()
        };
        fd_check("chain_custom_grad", &f, &ab, &grad(&ab));
        let (_, _, h) = chain_custom_hessian(&ab[..3], &ab[3..]);
        hess_check("chain_custom_hessian", &grad, &ab, &h);

        // The method with both at order 2.
        let flat = lin.to_flat();
        let f = |y: &[f64]| lin.from_flat(y).special();
        let grad = |y: &[f64]| lin.from_flat(y).special_grad().1.to_flat();
        fd_check("Lin::special_grad", &f, &flat, &grad(&flat));
        let (_, _, h) = lin.special_hessian();
        hess_check("Lin::special_hessian", &grad, &flat, &h);

        // Nested arrays with a nested fn at order 2, flattened row-major then w.
        let y = rng.vec(9, -1.0, 1.0);
        let split = |y: &[f64]| ([[y[0], y[1], y[2]], [y[3], y[4], y[5]]], [y[6], y[7], y[8]]);
        let f = |y: &[f64]| {
            let (m, w) = split(y);
            rows_nested(m, &w)
        };
        let grad = |y: &[f64]| {
            let (m, w) = split(y);
            let (_, (gm, gw)) = rows_nested_grad(m, &w);
            gm.iter()
                .flatten()
                .chain(gw.iter())
                .copied()
                .collect::<Vec<_>>()
        };
        fd_check("rows_nested_grad", &f, &y, &grad(&y));
        let (m, w) = split(&y);
        let (_, _, h) = rows_nested_hessian(m, &w);
        hess_check("rows_nested_hessian", &grad, &y, &h);
    }
}

// ---------------------------------------------------------------------------------------------------
// Third round: tuples, owned `Vec`s and structs by value at `order = 2` with `f_grad_into`; generic
// helpers on sub-slices; `while` in `f32`; labelled loops with `match` ranges; recursion on arrays.
// ---------------------------------------------------------------------------------------------------

pub mod round3 {
    use autodiff::{differentiable, Differentiable, Float};

    /// `Π (sin v + 2)` over `[x, x + 1, 2x - 0.5]` by `.map(..).product()`, at `order = 3`.
    #[differentiable(order = 3)]
    pub fn prod3(x: f64) -> f64 {
        let r = [x, x + 1.0, 2.0 * x - 0.5];
        r.iter().map(|v| v.sin() + 2.0).product()
    }

    /// A tuple parameter destructured, beside a slice, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn tup(t: (f64, f64), w: &[f64]) -> f64 {
        let (a, b) = t;
        w.iter()
            .enumerate()
            .map(|(i, &v)| (a * v + b * i as f64).tanh())
            .sum::<f64>()
            * a
    }

    /// An owned `Vec` modified in a loop, then folded, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn smooth(mut v: Vec<f64>) -> f64 {
        for i in 1..v.len() {
            v[i] = 0.5 * (v[i] + v[i - 1] * v[i - 1]);
        }
        v.iter().fold(0.0, |acc, &x| acc + x.powi(3))
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Model {
        pub w: [f64; 3],
        pub c: f64,
        #[no_grad]
        pub scale: f64,
    }

    /// A struct taken by value and `mut`, written, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn by_value(mut p: Model, x: f64) -> f64 {
        p.c = p.c * p.scale + x;
        p.w[0] * p.c * p.c + p.w[1] * (p.w[2] * x).sin()
    }

    /// A generic helper, on sub-slices of one slice.
    #[differentiable]
    pub fn dotg<T: Float>(a: &[T], b: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..a.len() {
            s = s + a[i] * b[i];
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn halves_dot(x: &[f64]) -> f64 {
        let m = x.len() / 2;
        let d = dotg(&x[..m], &x[m..2 * m]);
        d * d + dotg(&x[1..], &x[1..])
    }

    /// Newton's square root in `f32` in a `while` with an active test, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn nsqrt32(a: f32) -> f32 {
        let mut x = a.max(1.0);
        let mut k = 0;
        while k < 40 && (x * x - a).abs() > 1e-6 * a {
            x = 0.5 * (x + a / x);
            k += 1;
        }
        x
    }

    /// A band of weights found by a `match` with `|` and ranges, in labelled loops with `continue` and
    /// `break` to the outer label.
    #[differentiable(order = 2)]
    pub fn banded(x: &[f64]) -> f64 {
        let n = x.len();
        let mut s = 0.0;
        'rows: for i in 0..n {
            let mut j = 0;
            loop {
                if j >= n {
                    continue 'rows;
                }
                let d = if i > j { i - j } else { j - i };
                let w = match d {
                    0 => 2.0,
                    1 | 2 => -0.5,
                    3..=5 => 0.1,
                    _ => 0.0,
                };
                s += w * x[i] * x[j];
                if i == 6 {
                    break 'rows;
                }
                j += 1;
            }
        }
        s
    }

    /// A closure capturing an active local, in a `fold` with a tuple accumulator (mean and variance).
    #[differentiable(order = 2)]
    pub fn shifted_var(x: &[f64], shift: f64) -> f64 {
        let c = shift * shift;
        let f = |v: f64| v - c;
        let (s, q) = x
            .iter()
            .fold((0.0, 0.0), |(s, q), &v| (s + f(v), q + f(v) * f(v)));
        let n = x.len() as f64;
        q / n - (s / n) * (s / n)
    }

    /// Rows' tails `&m[i][1..]` iterated, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn tails(m: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for i in 0..m.len() {
            let t: f64 = m[i][1..].iter().map(|v| v * m[i][0]).sum();
            s += t * t;
        }
        s
    }

    /// A complex power by recursion on arrays, its Jacobian.
    #[differentiable]
    pub fn cpow(z: [f64; 2], n: u32) -> [f64; 2] {
        if n == 0 {
            return [1.0, 0.0];
        }
        let w = cpow(z, n - 1);
        [w[0] * z[0] - w[1] * z[1], w[0] * z[1] + w[1] * z[0]]
    }

    /// A constant fixed-size array beside an output parameter and a struct (rustc's E0283 in the
    /// generated code until this probe's fix in `companion.rs`).
    #[differentiable(wrt(p))]
    pub fn weigh_out(p: &Model, x: &[f64; 3], out: &mut [f64]) {
        for i in 0..3 {
            out[i] = p.w[i] * x[i] + p.c;
        }
    }
}

#[test]
fn tuples_owned_values_generic_helpers_and_loops() {
    use round3::*;
    let mut rng = Lcg::new(3611);
    for _ in 0..5 {
        let t = rng.uniform(-1.5, 1.5);
        check_third_at("prod3", &|y| prod3_derivatives(y), t);
        let fs = [
            t.sin() + 2.0,
            (t + 1.0).sin() + 2.0,
            (2.0 * t - 0.5).sin() + 2.0,
        ];
        let ds = [t.cos(), (t + 1.0).cos(), 2.0 * (2.0 * t - 0.5).cos()];
        let d1 = ds[0] * fs[1] * fs[2] + fs[0] * ds[1] * fs[2] + fs[0] * fs[1] * ds[2];
        assert_near(prod3_derivatives(t)[1], d1, 1e-12, 1.0, "prod3' by hand");

        // tup: (a, b, w0, w1, w2).
        let v = rng.vec(5, -1.0, 1.0);
        let f = |y: &[f64]| tup((y[0], y[1]), &y[2..]);
        let grad = |y: &[f64]| {
            let (_, ((ga, gb), gw)) = tup_grad((y[0], y[1]), &y[2..]);
            let mut g = vec![ga, gb];
            g.extend(gw);
            g
        };
        fd_check("tup_grad", &f, &v, &grad(&v));
        let (_, _, h) = tup_hessian((v[0], v[1]), &v[2..]);
        hess_check("tup_hessian", &grad, &v, &h);
        // (The tuple parameter's buffer is `&mut (f64, f64)`, `<G as &mut>` of its gradient.)
        let (mut gt, mut gw) = ((f64::NAN, f64::NAN), vec![f64::NAN; 3]);
        let value = tup_grad_into((v[0], v[1]), &v[2..], (&mut gt, &mut gw));
        let (ga, gb) = gt;
        assert_eq!(value, f(&v));
        assert_vec_near(
            &[ga, gb, gw[0], gw[1], gw[2]],
            &grad(&v),
            1e-14,
            "tup_grad_into",
        );

        // smooth, an owned mut Vec.
        let x = rng.vec(4, -1.0, 1.0);
        let grad = |y: &[f64]| smooth_grad(y.to_vec()).1;
        fd_check("smooth_grad", &|y| smooth(y.to_vec()), &x, &grad(&x));
        let (_, _, h) = smooth_hessian(x.clone());
        hess_check("smooth_hessian", &grad, &x, &h);
        let mut buf = vec![f64::NAN; 4];
        smooth_grad_into(x.clone(), &mut buf);
        assert_vec_near(&buf, &grad(&x), 1e-14, "smooth_grad_into");

        // by_value: (w0, w1, w2, c, x).
        let p = Model {
            w: [v[0], v[1], v[2]],
            c: v[3],
            scale: 1.5,
        };
        let xv = v[4];
        let mut flat = p.to_flat();
        flat.push(xv);
        let f = |y: &[f64]| by_value(p.from_flat(&y[..4]), y[4]);
        let grad = |y: &[f64]| {
            let (_, (gp, gx)) = by_value_grad(p.from_flat(&y[..4]), y[4]);
            let mut g = gp.to_flat();
            g.push(gx);
            g
        };
        fd_check("by_value_grad", &f, &flat, &grad(&flat));
        let (_, _, h) = by_value_hessian(p.clone(), xv);
        hess_check("by_value_hessian", &grad, &flat, &h);
        let mut gp = Model {
            w: [f64::NAN; 3],
            c: f64::NAN,
            scale: 0.0,
        };
        let mut gx = f64::NAN;
        by_value_grad_into(p.clone(), xv, (&mut gp, &mut gx));
        let mut got = gp.to_flat();
        got.push(gx);
        assert_vec_near(&got, &grad(&flat), 1e-14, "by_value_grad_into");
        let c = p.c * 1.5 + xv;
        assert_near(
            gx,
            2.0 * p.w[0] * c + p.w[1] * p.w[2] * (p.w[2] * xv).cos(),
            1e-12,
            1.0,
            "d/dx by hand",
        );

        // halves_dot.
        let x = rng.vec(5, -1.0, 1.0);
        let grad = |y: &[f64]| halves_dot_grad(y).1;
        fd_check("halves_dot_grad", &halves_dot, &x, &grad(&x));
        let (_, _, h) = halves_dot_hessian(&x);
        hess_check("halves_dot_hessian", &grad, &x, &h);

        // nsqrt32 against 1/(2 sqrt a) and -1/(4 a^{3/2}).
        let a = rng.uniform(0.5, 4.0);
        let d = nsqrt32_derivatives(a as f32);
        assert_near(d[0] as f64, a.sqrt(), 1e-5, 1.0, "nsqrt32");
        assert_near(d[1] as f64, 0.5 / a.sqrt(), 1e-4, 1.0, "nsqrt32'");
        assert_near(d[2] as f64, -0.25 / a.powf(1.5), 1e-3, 1.0, "nsqrt32''");

        // banded.
        for n in [3, 5, 8] {
            let x = rng.vec(n, -1.0, 1.0);
            let grad = |y: &[f64]| banded_grad(y).1;
            fd_check("banded_grad", &banded, &x, &grad(&x));
            let (_, _, h) = banded_hessian(&x);
            hess_check("banded_hessian", &grad, &x, &h);
        }

        // shifted_var: (x0..x3, shift); the variance does not depend on the shift.
        let y = rng.vec(5, -1.0, 1.0);
        let f = |y: &[f64]| shifted_var(&y[..4], y[4]);
        let grad = |y: &[f64]| {
            let (_, (gx, gs)) = shifted_var_grad(&y[..4], y[4]);
            let mut g = gx;
            g.push(gs);
            g
        };
        let g = grad(&y);
        fd_check("shifted_var_grad", &f, &y, &g);
        assert!(g[4].abs() < 1e-12, "shift's derivative {}", g[4]);
        let mean = y[..4].iter().sum::<f64>() / 4.0;
        for i in 0..4 {
            assert_near(
                g[i],
                2.0 * (y[i] - mean) / 4.0,
                1e-12,
                1.0,
                "variance by hand",
            );
        }
        let (_, _, h) = shifted_var_hessian(&y[..4], y[4]);
        hess_check("shifted_var_hessian", &grad, &y, &h);

        // tails over a 3 x 3 matrix.
        let flat = rng.vec(9, -1.0, 1.0);
        let shape = |v: &[f64]| -> Vec<Vec<f64>> { v.chunks(3).map(|c| c.to_vec()).collect() };
        let grad = |v: &[f64]| flat2(&tails_grad(&shape(v)).1);
        fd_check("tails_grad", &|v| tails(&shape(v)), &flat, &grad(&flat));
        let (_, _, h) = tails_hessian(&shape(&flat));
        hess_check("tails_hessian", &grad, &flat, &h);

        // cpow's Jacobian: z^n is holomorphic, so J = [[Re n z^{n-1}, -Im], [Im, Re]].
        let z = rng.vec(2, -1.0, 1.0);
        for n in 0..4 {
            let jac = cpow_jacobian([z[0], z[1]], n);
            let f = |y: &[f64]| cpow([y[0], y[1]], n).to_vec();
            jac_check(&format!("cpow_jacobian n={n}"), &f, &z, &jac);
            if n > 0 {
                let w = cpow([z[0], z[1]], n - 1);
                let (re, im) = (n as f64 * w[0], n as f64 * w[1]);
                assert_vec_near(&jac[0], &[re, -im], 1e-12, "cpow J row 0 by hand");
                assert_vec_near(&jac[1], &[im, re], 1e-12, "cpow J row 1 by hand");
            }
        }

        // weigh_out: the Jacobian over (w0, w1, w2, c).
        let xs = [v[0], v[1], v[2]];
        let jac = weigh_out_jacobian(&p, &xs, &mut [0.0; 3]);
        let f = |y: &[f64]| {
            let mut o = vec![0.0; 3];
            weigh_out(&p.from_flat(y), &xs, &mut o);
            o
        };
        jac_check("weigh_out_jacobian", &f, &p.to_flat(), &jac);
        let mut o = vec![f64::NAN; 3];
        let mut t = vec![f64::NAN; 3];
        let dir = p.from_flat(&[0.1, 0.2, 0.3, 1.0]);
        weigh_out_jvp(&p, &xs, &mut o, dir, &mut t);
        for i in 0..3 {
            assert_near(
                t[i],
                0.1 * (i + 1) as f64 * xs[i] + 1.0,
                1e-12,
                1.0,
                "weigh_out_jvp",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Fourth round: generic `impl`s calling associated functions at `order = 2`; `Vec` values of a `match`;
// methods chaining over matrix fields; custom gradients and `break value` at `order = 3`; a struct
// passed on whole from a method (API.md's `Mlp`), with `#[no_grad]` data.
// ---------------------------------------------------------------------------------------------------

pub mod round4 {
    use autodiff::{custom_gradient, differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Poly<T: Float> {
        pub c: [T; 3],
        #[no_grad]
        pub n: usize,
    }

    impl<T: Float> Poly<T> {
        /// A helper of the float type alone.
        #[differentiable]
        pub fn bump(x: T) -> T {
            x * x / (T::one() + x * x)
        }

        /// `wrt(self, x)` at `order = 2`, calling `Self::bump`, the count by `T::from`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn eval(&self, x: T) -> T {
            let n = T::from(self.n).unwrap();
            (self.c[0] + self.c[1] * x + self.c[2] * x * x) * Self::bump(x) * n
        }
    }

    /// A `Vec` as the value of a `match` (outside loops), its Jacobian.
    #[differentiable]
    pub fn pick(x: &[f64], k: usize) -> Vec<f64> {
        let v = match k % 3 {
            0 => x.iter().map(|a| a * a).collect(),
            1 => vec![x[0] + x[1], x[1] * x[2]],
            _ => x.to_vec(),
        };
        v
    }

    /// An array returned early from a `match` arm (no loop), its Jacobian.
    #[differentiable]
    pub fn early(x: [f64; 2], k: i32) -> [f64; 2] {
        match k {
            i32::MIN..=-1 => return [x[1], x[0]],
            0 => {}
            _ => return [x[0] * x[1], x[0] - x[1]],
        }
        [x[0].exp(), x[1].ln_1p()]
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Grid {
        pub m: Vec<Vec<f64>>,
        pub bias: Vec<f64>,
        #[no_grad]
        pub active: Vec<bool>,
    }

    impl Grid {
        /// An iterator chain over a matrix field's rows, a `#[no_grad]` mask, at `order = 2`.
        #[differentiable(wrt(self), order = 2)]
        pub fn energy(&self, x: &[f64]) -> f64 {
            let mut e = 0.0;
            for i in 0..self.m.len() {
                if self.active[i] {
                    let r: f64 = self.m[i].iter().zip(x).map(|(a, b)| a * b).sum();
                    e += (r + self.bias[i]).powi(2);
                }
            }
            e
        }
    }

    /// `softsign` with its own gradient, whose closure captures a value.
    #[custom_gradient]
    pub fn softsign(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let d = 1.0 + x.abs();
        (x / d, move |dy| dy / (d * d))
    }

    /// The custom gradient at `order = 3`.
    #[differentiable(order = 3)]
    pub fn soft3(x: f64) -> f64 {
        softsign(2.0 * x) * x
    }

    /// A fixed point `x = a cos x` by `loop` with `break value`, at `order = 3`.
    #[differentiable(order = 3)]
    pub fn fixed(a: f64) -> f64 {
        let mut x = 0.5;
        let mut k = 0;
        let r = loop {
            let next = a * x.cos();
            k += 1;
            if k >= 200 {
                break next;
            }
            x = next;
        };
        r
    }

    /// Three `f64` functions in a chain: the middle one first order only.
    #[differentiable]
    pub fn inner(x: f64, y: f64) -> f64 {
        (x * y).sin() + y
    }

    #[differentiable]
    pub fn middle(v: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 1..v.len() {
            s += inner(v[i - 1], v[i]);
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn outer(v: &[f64]) -> f64 {
        let m = middle(v);
        m * m + middle(&v[1..])
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Mlp {
        pub w1: Vec<f64>,
        pub b1: Vec<f64>,
        pub w2: Vec<f64>,
        pub b2: f64,
        #[no_grad]
        pub hidden: usize,
    }

    /// API.md's `mse` written out: a hidden layer of `tanh`.
    #[differentiable(wrt(p))]
    pub fn mse(p: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for k in 0..xs.len() {
            let mut out = p.b2;
            for j in 0..p.hidden {
                out += p.w2[j] * (p.w1[j] * xs[k] + p.b1[j]).tanh();
            }
            loss += (out - ys[k]) * (out - ys[k]);
        }
        loss / xs.len() as f64
    }

    impl Mlp {
        /// API.md's method passing `self` on whole, at `order = 2`, with a penalty on its fields.
        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
            let penalty: f64 = self.w1.iter().map(|w| w * w).sum();
            mse(self, xs, ys) + 0.01 * penalty
        }
    }

    /// A method taking `self` by value with `self` constant, at `order = 3` in `x`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Shift {
        pub s: f64,
    }

    impl Shift {
        #[differentiable(wrt(x), order = 3)]
        pub fn at(self, x: f64) -> f64 {
            ((x - self.s) * x).exp()
        }
    }
}

#[test]
fn generic_impls_vec_matches_custom_third_order_and_whole_structs() {
    use round4::*;
    let mut rng = Lcg::new(3612);
    for _ in 0..5 {
        let v = rng.vec(4, -1.0, 1.0);
        let p = Poly {
            c: [v[0], v[1], v[2]],
            n: 2,
        };
        let x = v[3];
        let mut flat = p.to_flat();
        flat.push(x);
        let f = |y: &[f64]| p.from_flat(&y[..3]).eval(y[3]);
        let grad = |y: &[f64]| {
            let (_, (gp, gx)) = p.from_flat(&y[..3]).eval_grad(y[3]);
            let mut g = gp.to_flat();
            g.push(gx);
            g
        };
        let g = grad(&flat);
        fd_check("Poly::eval_grad", &f, &flat, &g);
        let b = x * x / (1.0 + x * x);
        assert_vec_near(
            &g[..3],
            &[2.0 * b, 2.0 * x * b, 2.0 * x * x * b],
            1e-12,
            "Poly by hand",
        );
        let (_, _, h) = p.eval_hessian(x);
        hess_check("Poly::eval_hessian", &grad, &flat, &h);

        let x3 = rng.vec(3, 0.1, 1.5);
        for k in 0..3 {
            let jac = pick_jacobian(&x3, k);
            jac_check(&format!("pick_jacobian {k}"), &|y| pick(y, k), &x3, &jac);
        }
        for k in [-5, 0, 3] {
            let jac = early_jacobian([x3[0], x3[1]], k);
            let f = |y: &[f64]| early([y[0], y[1]], k).to_vec();
            jac_check(&format!("early_jacobian {k}"), &f, &x3[..2], &jac);
        }

        let g0 = Grid {
            m: vec![
                rng.vec(2, -1.0, 1.0),
                rng.vec(2, -1.0, 1.0),
                rng.vec(2, -1.0, 1.0),
            ],
            bias: rng.vec(3, -1.0, 1.0),
            active: vec![true, false, true],
        };
        let xs = rng.vec(2, -1.0, 1.0);
        let flat = g0.to_flat();
        let f = |y: &[f64]| g0.from_flat(y).energy(&xs);
        let grad = |y: &[f64]| g0.from_flat(y).energy_grad(&xs).1.to_flat();
        let g = grad(&flat);
        fd_check("Grid::energy_grad", &f, &flat, &g);
        // The inactive row has no gradient; the mask is copied.
        assert_eq!(&g[2..4], &[0.0, 0.0]);
        assert_eq!(g0.energy_grad(&xs).1.active, g0.active);
        let (_, _, h) = g0.energy_hessian(&xs);
        hess_check("Grid::energy_hessian", &grad, &flat, &h);

        let t = rng.uniform(0.1, 2.0) * if rng.unit() < 0.5 { -1.0 } else { 1.0 };
        check_third_at("soft3", &|y| soft3_derivatives(y), t);
        let d = soft3_derivatives(t);
        let u = 2.0 * t;
        let s = u / (1.0 + u.abs());
        assert_near(
            d[1],
            s + 2.0 * t / (1.0 + u.abs()).powi(2),
            1e-12,
            1.0,
            "soft3' by hand",
        );

        let a = rng.uniform(0.2, 0.8);
        check_third_at("fixed", &|y| fixed_derivatives(y), a);
        // Implicit: x = a cos x gives x' = cos x / (1 + a sin x).
        let d = fixed_derivatives(a);
        let xstar = d[0];
        assert_near(
            d[1],
            xstar.cos() / (1.0 + a * xstar.sin()),
            1e-10,
            1.0,
            "fixed' implicit",
        );

        let w = rng.vec(4, -1.0, 1.0);
        let grad = |y: &[f64]| outer_grad(y).1;
        fd_check("outer_grad", &outer, &w, &grad(&w));
        let (_, _, h) = outer_hessian(&w);
        hess_check("outer_hessian", &grad, &w, &h);

        let mlp = Mlp {
            w1: rng.vec(3, -1.0, 1.0),
            b1: rng.vec(3, -1.0, 1.0),
            w2: rng.vec(3, -1.0, 1.0),
            b2: rng.uniform(-1.0, 1.0),
            hidden: 3,
        };
        let xs = rng.vec(4, -1.0, 1.0);
        let ys = rng.vec(4, -1.0, 1.0);
        let flat = mlp.to_flat();
        let f = |y: &[f64]| mlp.from_flat(y).loss(&xs, &ys);
        let grad = |y: &[f64]| mlp.from_flat(y).loss_grad(&xs, &ys).1.to_flat();
        fd_check("Mlp::loss_grad", &f, &flat, &grad(&flat));
        let (_, _, h) = mlp.loss_hessian(&xs, &ys);
        hess_check("Mlp::loss_hessian", &grad, &flat, &h);
        let (_, gm) = mse_grad(&mlp, &xs, &ys);
        let check = autodiff::check_gradient_of(|q: &Mlp| mse(q, &xs, &ys), &mlp, &gm);
        assert!(
            check.is_ok(1e-6),
            "check_gradient_of mse: {}",
            check.max_rel_error
        );

        let sh = Shift {
            s: rng.uniform(-1.0, 1.0),
        };
        let xv = rng.uniform(-1.0, 1.0);
        check_third_at("Shift::at", &|y| sh.clone().at_derivatives(y), xv);
        let e = ((xv - sh.s) * xv).exp();
        let q = 2.0 * xv - sh.s;
        assert_near(
            sh.clone().at_derivatives(xv)[2],
            e * (q * q + 2.0),
            1e-12,
            1.0,
            "at'' by hand",
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// Fifth round: recursion in methods, `match` on a `#[no_grad]` mode field, output parameters read and
// written in methods at `order = 2`, generic structs passed on whole with converted counts, `f32`
// structs at `order = 2`, chains with `skip`/`take`/`filter`, `Vec`s grown with `continue`.
// ---------------------------------------------------------------------------------------------------

pub mod round5 {
    use autodiff::{differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Osc {
        pub k: f64,
        pub d: [f64; 2],
        #[no_grad]
        pub mode: u8,
    }

    impl Osc {
        /// Recursion through `self`, `wrt(self, x)` at `order = 2`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn depth(&self, x: f64, n: usize) -> f64 {
            if n == 0 {
                return x * self.k;
            }
            (self.depth(x, n - 1) * self.d[0]).sin() + self.d[1] * x
        }

        /// A `match` on the `#[no_grad]` mode with ranges and `|`.
        #[differentiable(wrt(self), order = 2)]
        pub fn by_mode(&self, x: f64) -> f64 {
            match self.mode {
                0 | 1 => self.k * x * x,
                2..=9 => (self.k * x).cos() * self.d[0],
                _ => self.d[0] * self.d[1] * self.k,
            }
        }

        /// An output buffer read before it is written (`state[i] += ..`), the float returned at
        /// `order = 2`, with a nested `fn`.
        #[differentiable(wrt(self, state), order = 2)]
        pub fn relax(&self, state: &mut [f64]) -> f64 {
            fn sq(v: &[f64]) -> f64 {
                let mut s = 0.0;
                for a in v {
                    s += a * a;
                }
                s
            }
            for i in 0..state.len() {
                state[i] += self.k * (self.d[i % 2] - state[i]);
            }
            sq(state) + self.k * sq(&state[1..])
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Net<T: Float> {
        pub w: Vec<T>,
        #[no_grad]
        pub n: usize,
    }

    #[differentiable]
    pub fn net_dot<T: Float>(p: &Net<T>, x: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..p.n {
            s = s + p.w[i] * x[i];
        }
        s
    }

    /// A generic struct passed on whole, its count converted, at `order = 2`.
    #[differentiable(wrt(p), order = 2)]
    pub fn net_loss<T: Float>(p: &Net<T>, x: &[T]) -> T {
        let d = net_dot(p, x);
        let n = T::from(p.n).unwrap();
        d * d / n + p.w[0].sin()
    }

    /// `skip`, `take` and `filter` in a chain over a slice.
    #[differentiable(order = 2)]
    pub fn chain_adapt(x: &[f64]) -> f64 {
        let a: f64 = x.iter().skip(1).take(3).map(|v| v * v).sum();
        let b: f64 = x.iter().filter(|v| **v > 0.0).map(|v| v.exp()).sum();
        a * b
    }

    /// A `Vec` grown by `push` in a loop with `continue`, its Jacobian.
    #[differentiable]
    pub fn grown(x: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        for i in 0..x.len() {
            if i % 2 == 1 {
                continue;
            }
            out.push(x[i] * x[(i + 1) % x.len()]);
        }
        out
    }
}

#[test]
fn recursive_methods_modes_buffers_and_generic_wholes() {
    use round5::*;
    let mut rng = Lcg::new(3613);
    for _ in 0..5 {
        let v = rng.vec(4, -1.0, 1.0);
        for mode in [0, 1, 5, 12] {
            let o = Osc {
                k: v[0],
                d: [v[1], v[2]],
                mode,
            };
            let flat = o.to_flat();
            let f = |y: &[f64]| o.from_flat(y).by_mode(v[3]);
            let grad = |y: &[f64]| o.from_flat(y).by_mode_grad(v[3]).1.to_flat();
            fd_check("Osc::by_mode_grad", &f, &flat, &grad(&flat));
            let (_, _, h) = o.by_mode_hessian(v[3]);
            hess_check("Osc::by_mode_hessian", &grad, &flat, &h);
        }
        let o = Osc {
            k: v[0],
            d: [v[1], v[2]],
            mode: 0,
        };
        for n in 0..3 {
            let mut flat = o.to_flat();
            flat.push(v[3]);
            let f = |y: &[f64]| o.from_flat(&y[..3]).depth(y[3], n);
            let grad = |y: &[f64]| {
                let (_, (go, gx)) = o.from_flat(&y[..3]).depth_grad(y[3], n);
                let mut g = go.to_flat();
                g.push(gx);
                g
            };
            fd_check("Osc::depth_grad", &f, &flat, &grad(&flat));
            let (_, _, h) = o.depth_hessian(v[3], n);
            hess_check("Osc::depth_hessian", &grad, &flat, &h);
        }
        // relax: G = (self, incoming state).
        let s0 = rng.vec(3, -1.0, 1.0);
        let mut flat = o.to_flat();
        flat.extend_from_slice(&s0);
        let f = |y: &[f64]| o.from_flat(&y[..3]).relax(&mut y[3..].to_vec());
        let grad = |y: &[f64]| {
            let mut s = y[3..].to_vec();
            let (_, (go, gs)) = o.from_flat(&y[..3]).relax_grad(&mut s);
            let mut g = go.to_flat();
            g.extend(gs);
            g
        };
        fd_check("Osc::relax_grad", &f, &flat, &grad(&flat));
        let mut s = s0.clone();
        let (_, _, h) = o.relax_hessian(&mut s);
        hess_check("Osc::relax_hessian", &grad, &flat, &h);
        let mut after = s0.clone();
        o.relax(&mut after);
        assert_vec_near(
            &s,
            &after,
            1e-14,
            "relax_hessian leaves the state as relax does",
        );

        let p = Net {
            w: rng.vec(3, -1.0, 1.0),
            n: 3,
        };
        let x = rng.vec(3, -1.0, 1.0);
        let flat = p.to_flat();
        let f = |y: &[f64]| net_loss(&p.from_flat(y), &x);
        let grad = |y: &[f64]| net_loss_grad(&p.from_flat(y), &x).1.to_flat();
        let g = grad(&flat);
        fd_check("net_loss_grad", &f, &flat, &g);
        let d: f64 = (0..3).map(|i| p.w[i] * x[i]).sum();
        let mut by_hand: Vec<f64> = x.iter().map(|xi| 2.0 * d * xi / 3.0).collect();
        by_hand[0] += p.w[0].cos();
        assert_vec_near(&g, &by_hand, 1e-12, "net_loss by hand");
        let (_, _, h) = net_loss_hessian(&p, &x);
        hess_check("net_loss_hessian", &grad, &flat, &h);
        // And in `f32`.
        let p32 = Net {
            w: p.w.iter().map(|&a| a as f32).collect(),
            n: 3,
        };
        let x32: Vec<f32> = x.iter().map(|&a| a as f32).collect();
        let (_, g32, h32) = net_loss_hessian(&p32, &x32);
        for i in 0..3 {
            assert_near(g32.w[i] as f64, g[i], 1e-5, 1.0, "net_loss f32 gradient");
            for j in 0..3 {
                assert_near(h32[i][j] as f64, h[i][j], 1e-4, 1.0, "net_loss f32 Hessian");
            }
        }

        let y = rng.vec(5, -1.0, 1.0);
        if y.iter().all(|a| a.abs() > 1e-3) {
            let grad = |z: &[f64]| chain_adapt_grad(z).1;
            fd_check("chain_adapt_grad", &chain_adapt, &y, &grad(&y));
            let (_, _, h) = chain_adapt_hessian(&y);
            hess_check("chain_adapt_hessian", &grad, &y, &h);
        }
        let jac = grown_jacobian(&y);
        jac_check("grown_jacobian", &grown, &y, &jac);
    }
}

// ---------------------------------------------------------------------------------------------------
// Sixth round, names: parameters named as the generated items' own (`v`, `grad`, `d_ret`, `tangent`,
// `d_out`), closures whose parameters shadow active parameters, a nested `fn` with the name of a
// top-level differentiable one, two struct parameters of one type, a local named as a field.
// ---------------------------------------------------------------------------------------------------

pub mod names {
    use autodiff::{differentiable, Differentiable};

    /// Every parameter named as a generated item names its own.
    #[differentiable(order = 2)]
    pub fn clash(v: &[f64], grad: f64, d_ret: f64, tangent: f64) -> f64 {
        v.iter().map(|a| a * grad).sum::<f64>() * d_ret.sin() + tangent * tangent * grad
    }

    /// An output parameter named `d_out` and an input named `d_ret`.
    #[differentiable]
    pub fn clash_out(d_ret: &[f64], d_out: &mut [f64]) {
        for i in 0..d_out.len() {
            d_out[i] = d_ret[i] * d_ret[(i + 1) % d_ret.len()];
        }
    }

    /// The closure's parameter `x` shadows the active parameter `x`.
    #[differentiable(order = 2)]
    pub fn shadowing(x: f64, y: f64) -> f64 {
        let f = |x: f64| x * x * y;
        let x2 = f(x + 1.0);
        // (`let y = x * 3.0; f(y)` is refused with a spanned error: the closure reads `y`, bound again.)
        let z = x * 3.0;
        x2 + f(z)
    }

    #[differentiable]
    pub fn helper(a: f64) -> f64 {
        a.exp()
    }

    /// A nested `fn helper` hides the top-level one inside this body.
    #[differentiable(order = 2)]
    pub fn hides(a: f64) -> f64 {
        fn helper(a: f64) -> f64 {
            a * a * a
        }
        helper(a) + a
    }

    /// The top-level `helper` called from a nested `fn` of another name.
    #[differentiable(order = 2)]
    pub fn reaches(a: f64) -> f64 {
        fn twice(a: f64) -> f64 {
            2.0 * helper(a)
        }
        twice(a) * a
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct P {
        pub w: [f64; 2],
        pub b: f64,
    }

    /// Two struct parameters of one type, and locals named as their fields.
    #[differentiable(order = 2)]
    pub fn two_structs(p: &P, q: &P) -> f64 {
        let w = p.w[0] * q.w[1];
        let b = q.b - p.b;
        w * b + p.w[1] * q.w[0] * w
    }
}

#[test]
fn names_of_generated_items_and_shadowing() {
    use names::*;
    let mut rng = Lcg::new(3614);
    for _ in 0..5 {
        let y = rng.vec(6, -1.0, 1.0);
        let f = |z: &[f64]| clash(&z[..3], z[3], z[4], z[5]);
        let grad = |z: &[f64]| {
            let (_, (gv, gg, gd, gt)) = clash_grad(&z[..3], z[3], z[4], z[5]);
            let mut g = gv;
            g.extend([gg, gd, gt]);
            g
        };
        let g = grad(&y);
        fd_check("clash_grad", &f, &y, &g);
        let s: f64 = y[..3].iter().sum();
        assert_near(g[4], s * y[3] * y[4].cos(), 1e-12, 1.0, "d/d d_ret by hand");
        let (_, _, h) = clash_hessian(&y[..3], y[3], y[4], y[5]);
        hess_check("clash_hessian", &grad, &y, &h);
        let dir = (vec![0.1, 0.2, 0.3], 1.0, -1.0, 0.5);
        let (_, _, hv) = clash_hvp(&y[..3], y[3], y[4], y[5], dir);
        let expected = mat_vec(&h, &[0.1, 0.2, 0.3, 1.0, -1.0, 0.5]);
        let mut got = hv.0.clone();
        got.extend([hv.1, hv.2, hv.3]);
        assert_vec_near(&got, &expected, 1e-10, "clash_hvp");

        let jac = clash_out_jacobian(&y[..3], &mut [0.0; 3]);
        let f = |z: &[f64]| {
            let mut o = vec![0.0; 3];
            clash_out(z, &mut o);
            o
        };
        jac_check("clash_out_jacobian", &f, &y[..3], &jac);

        let (x, yy) = (y[0], y[1]);
        let grad = |z: &[f64]| {
            let (_, (a, b)) = shadowing_grad(z[0], z[1]);
            vec![a, b]
        };
        let g = grad(&[x, yy]);
        fd_check("shadowing_grad", &|z| shadowing(z[0], z[1]), &[x, yy], &g);
        // (x + 1)² y + 9 x² y.
        let by_hand = [
            2.0 * (x + 1.0) * yy + 18.0 * x * yy,
            (x + 1.0).powi(2) + 9.0 * x * x,
        ];
        assert_vec_near(&g, &by_hand, 1e-12, "shadowing by hand");
        let (_, _, h) = shadowing_hessian(x, yy);
        hess_check("shadowing_hessian", &grad, &[x, yy], &h);

        let a = y[2];
        let (_, d) = hides_grad(a);
        assert_near(
            d,
            3.0 * a * a + 1.0,
            1e-12,
            1.0,
            "hides uses the nested helper",
        );
        let d = hides_derivatives(a);
        assert_near(d[2], 6.0 * a, 1e-12, 1.0, "hides''");
        let (_, d) = reaches_grad(a);
        assert_near(d, 2.0 * a.exp() * (a + 1.0), 1e-12, 1.0, "reaches by hand");
        let d = reaches_derivatives(a);
        assert_near(d[2], 2.0 * a.exp() * (a + 2.0), 1e-12, 1.0, "reaches''");

        let p = P {
            w: [y[0], y[1]],
            b: y[2],
        };
        let q = P {
            w: [y[3], y[4]],
            b: y[5],
        };
        let split = |z: &[f64]| (p.from_flat(&z[..3]), q.from_flat(&z[3..]));
        let f = |z: &[f64]| {
            let (a, b) = split(z);
            two_structs(&a, &b)
        };
        let grad = |z: &[f64]| {
            let (a, b) = split(z);
            let (_, (ga, gb)) = two_structs_grad(&a, &b);
            let mut g = ga.to_flat();
            g.extend(gb.to_flat());
            g
        };
        fd_check("two_structs_grad", &f, &y, &grad(&y));
        let (_, _, h) = two_structs_hessian(&p, &q);
        hess_check("two_structs_hessian", &grad, &y, &h);
    }
}

// ---------------------------------------------------------------------------------------------------
// Seventh round, where a wrong derivative would hide: one array passed as two parameters, an output
// buffer written by two calls in turn, elements overwritten in place many times, float `%`, every
// two-argument float function with both arguments active at `order = 2`.
// ---------------------------------------------------------------------------------------------------

pub mod aliasing {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn pair(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * b[(i + 1) % b.len()].sin();
        }
        s
    }

    /// One slice passed as both parameters.
    #[differentiable(order = 2)]
    pub fn same(x: &[f64]) -> f64 {
        pair(x, x) * pair(&x[1..], x)
    }

    #[differentiable]
    pub fn scale_into(k: f64, y: &mut [f64]) {
        for i in 0..y.len() {
            y[i] = y[i] * k + 0.1;
        }
    }

    /// An output buffer written, then rewritten by two calls reading it.
    #[differentiable]
    pub fn twice(x: &[f64], out: &mut [f64]) {
        for i in 0..out.len() {
            out[i] = x[i].sin();
        }
        scale_into(x[0], out);
        scale_into(x[1] * x[1], out);
    }

    /// Elements overwritten in place many times (`v[i] *= v[i]`, `v[j] += v[i]`).
    #[differentiable(order = 2)]
    pub fn inplace(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        for _ in 0..3 {
            for i in 0..v.len() {
                v[i] *= 0.5 + 0.1 * v[i];
                let j = (i + 1) % v.len();
                v[j] += 0.3 * v[i];
            }
        }
        v.iter().sum()
    }

    /// `%` on floats, both operands active, away from jumps.
    #[differentiable(order = 2)]
    pub fn fmod(a: f64, b: f64) -> f64 {
        (a % b) * a
    }

    /// Both arguments active: `powf`, `atan2`, `hypot`, `mul_add`, `max`, `min`, `clamp`, `log`.
    #[differentiable(order = 2)]
    pub fn binaries(x: &[f64; 3]) -> f64 {
        let (a, b, c) = (x[0], x[1], x[2]);
        a.powf(b)
            + b.atan2(c)
            + a.hypot(c)
            + a.mul_add(b, c) * c
            + a.max(b) * c.min(b)
            + c.clamp(b - 2.0, a + 2.0) * b
            + a.log(b + 3.0)
    }
}

#[test]
fn aliasing_in_place_and_binary_functions() {
    use aliasing::*;
    let mut rng = Lcg::new(3615);
    for _ in 0..5 {
        let x = rng.vec(4, -1.0, 1.0);
        let grad = |y: &[f64]| same_grad(y).1;
        fd_check("same_grad", &same, &x, &grad(&x));
        let (_, _, h) = same_hessian(&x);
        hess_check("same_hessian", &grad, &x, &h);

        let jac = twice_jacobian(&x, &mut [0.0; 4]);
        let f = |y: &[f64]| {
            let mut o = vec![f64::NAN; 4];
            twice(y, &mut o);
            o
        };
        jac_check("twice_jacobian", &f, &x, &jac);
        // By hand: out_i = (sin x_i k0 + 0.1) k1 + 0.1 with k0 = x0, k1 = x1².
        let (k0, k1) = (x[0], x[1] * x[1]);
        for i in 0..4 {
            let mut row = vec![0.0; 4];
            row[i] += x[i].cos() * k0 * k1;
            row[0] += x[i].sin() * k1;
            row[1] += (x[i].sin() * k0 + 0.1) * 2.0 * x[1];
            assert_vec_near(&jac[i], &row, 1e-12, "twice by hand");
        }

        let grad = |y: &[f64]| inplace_grad(y).1;
        fd_check("inplace_grad", &inplace, &x, &grad(&x));
        let (_, _, h) = inplace_hessian(&x);
        hess_check("inplace_hessian", &grad, &x, &h);

        let (a, b) = (rng.uniform(1.0, 5.0), rng.uniform(0.7, 1.3));
        if ((a / b) - (a / b).round()).abs() > 0.05 {
            let grad = |y: &[f64]| {
                let (_, (p, q)) = fmod_grad(y[0], y[1]);
                vec![p, q]
            };
            let g = grad(&[a, b]);
            fd_check("fmod_grad", &|y| fmod(y[0], y[1]), &[a, b], &g);
            let r = a % b;
            let by_hand = [r + a, -(a / b).trunc() * a];
            assert_vec_near(&g, &by_hand, 1e-12, "fmod by hand");
            let (_, _, h) = fmod_hessian(a, b);
            hess_check("fmod_hessian", &grad, &[a, b], &h);
        }

        let y = [
            rng.uniform(0.5, 2.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.5, 1.5),
        ];
        let away = (y[0] - y[1]).abs() > 1e-2
            && (y[2] - y[1] + 2.0).abs() > 1e-2
            && (y[2] - y[0] - 2.0).abs() > 1e-2
            && (y[2] - y[1]).abs() > 1e-2;
        if away {
            let grad = |z: &[f64]| binaries_grad(&[z[0], z[1], z[2]]).1.to_vec();
            let f = |z: &[f64]| binaries(&[z[0], z[1], z[2]]);
            fd_check("binaries_grad", &f, &y, &grad(&y));
            let (_, _, h) = binaries_hessian(&y);
            hess_check("binaries_hessian", &grad, &y, &h);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// A tuple of constants passed by value to a plain helper (no derivatives) at `order = 2`: the known
// left-alone case `plaint((0.5, stop_gradient(c)))`, which compiled at first order but was rustc's E0308
// at `order = 2` (the generic copy passed `(f64, __S)` to the helper). Fixed by this probe
// (`expand::plain_calls`, `shadow`, `__private::plain_tuple`).
// ---------------------------------------------------------------------------------------------------

pub mod plain_tuples {
    use autodiff::{differentiable, stop_gradient};

    /// Plain helpers over tuples of floats: no derivatives.
    pub fn plaint(t: (f64, f64)) -> f64 {
        t.0 * t.1
    }

    pub fn plaint3(t: (f64, f64, f64)) -> f64 {
        t.0 * t.1 + t.2
    }

    #[differentiable(wrt(x), order = 2)]
    pub fn scaled(x: f64, c: f64) -> f64 {
        x * x * plaint((0.5, stop_gradient(c)))
    }

    /// A tuple bound first, of three; the result also in a condition (its values only).
    #[differentiable(wrt(x), order = 2)]
    pub fn bound(x: f64, c: f64) -> f64 {
        let t = (0.5, stop_gradient(c), 2.0);
        let s = x.sin() * plaint3(t);
        if plaint((c, stop_gradient(x))) > 0.0 {
            s * x
        } else {
            s
        }
    }

    /// Both in an `order = 2` caller of the two.
    #[differentiable(order = 2)]
    pub fn caller(x: f64) -> f64 {
        scaled(x, 1.5) + bound(x, -0.5)
    }
}

#[test]
fn tuples_to_plain_helpers_at_order_2() {
    use plain_tuples::*;
    let mut rng = Lcg::new(3616);
    for _ in 0..5 {
        let (x, c) = (rng.uniform(-2.0, 2.0), rng.uniform(-2.0, 2.0));
        let d = scaled_derivatives(x, c);
        let e = [x * x * 0.5 * c, x * c, c];
        assert_vec_near(&d, &e, 1e-12, "scaled by hand");
        let k = 0.5 * c + 2.0;
        let d = bound_derivatives(x, c);
        let e = if c * x > 0.0 {
            [
                x * x.sin() * k,
                (x.sin() + x * x.cos()) * k,
                (2.0 * x.cos() - x * x.sin()) * k,
            ]
        } else {
            [x.sin() * k, x.cos() * k, -x.sin() * k]
        };
        assert_vec_near(&d, &e, 1e-12, "bound by hand");
        let (_, g) = bound_grad(x, c);
        assert_near(g, e[1], 1e-12, 1.0, "bound_grad");
        let d = caller_derivatives(x);
        let f = |y: f64| caller(y);
        assert_near(
            d[1],
            fd1(&f, x, 1e-6),
            1e-6,
            d[1].abs(),
            "caller' against differences",
        );
        let g = |y: f64| caller_grad(y).1;
        assert_near(
            d[2],
            fd1(&g, x, 1e-6),
            1e-6,
            d[2].abs(),
            "caller'' against differences",
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// Eighth round: generated items run on `Dual` (a directional derivative of `_grad` against the Hessian);
// a least-squares fit of a struct by `Lbfgs::minimize_params` over a method's `_grad`, checked against
// the normal equations; an owned matrix written and passed whole at `order = 2`; `.rev()`/`step_by` in a
// method at `order = 2`; a `while` with an early `return` and module constants at `order = 3`.
// ---------------------------------------------------------------------------------------------------

pub mod round8 {
    use autodiff::{differentiable, Differentiable, Float};

    /// Generic, its `_grad` run on `Dual<f64>`.
    #[differentiable(order = 2)]
    pub fn rosen<T: Float>(x: &[T]) -> T {
        let mut s = T::zero();
        let hundred = T::from(100.0).unwrap();
        for i in 0..x.len() - 1 {
            let a = x[i + 1] - x[i] * x[i];
            let b = T::one() - x[i];
            s = s + hundred * a * a + b * b;
        }
        s
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Line {
        pub slope: f64,
        pub icept: f64,
        #[no_grad]
        pub weights: Vec<f64>,
    }

    impl Line {
        /// A weighted least-squares loss, `wrt(self)`, at `order = 2`.
        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
            xs.iter()
                .zip(ys)
                .enumerate()
                .map(|(i, (&x, &y))| self.weights[i] * (self.slope * x + self.icept - y).powi(2))
                .sum()
        }

        /// `.rev()` and `.step_by(2)` loops in a method at `order = 2`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn strided(&self, x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in (0..x.len()).rev() {
                s = s * self.slope + x[i];
            }
            for i in (0..x.len()).step_by(2) {
                s += self.icept * x[i] * x[i];
            }
            s
        }
    }

    /// (`m.iter().flatten()` is refused with a spanned error naming the chains that work.)
    #[differentiable]
    pub fn frob(m: &[Vec<f64>]) -> f64 {
        m.iter().map(|r| r.iter().map(|a| a * a).sum::<f64>()).sum()
    }

    /// An owned matrix parameter written element by element, then passed whole, at `order = 2`.
    #[differentiable(order = 2)]
    pub fn gram(mut m: Vec<Vec<f64>>) -> f64 {
        for i in 0..m.len() {
            for j in 0..m[i].len() {
                m[i][j] = m[i][j] * m[(i + 1) % m.len()][j];
            }
        }
        frob(&m).sqrt()
    }

    const TOL: f64 = 1e-13;
    const HALF: f64 = 0.5;

    /// The cube root by Newton in a `while`, with an early `return` at zero, at `order = 3`.
    #[differentiable(order = 3)]
    pub fn cbrt_newton(a: f64) -> f64 {
        if a == 0.0 {
            return 0.0;
        }
        let mut x = a.abs().max(1.0);
        let mut k = 0;
        while k < 100 {
            let next = x - (x * x * x - a.abs()) / (3.0 * x * x);
            if (next - x).abs() < TOL * x {
                return a.signum() * next;
            }
            x = next;
            k += 1;
        }
        a.signum() * x * (HALF + HALF)
    }
}

#[test]
fn duals_optimisers_owned_matrices_strides_and_constants() {
    use autodiff::optim::{Lbfgs, Minimizer};
    use autodiff::Dual;
    use round8::*;
    let mut rng = Lcg::new(3617);
    for _ in 0..5 {
        let x = rng.vec(3, -1.5, 1.5);
        let (_, _, h) = rosen_hessian(&x);
        let dir = rng.vec(3, -1.0, 1.0);
        let xd: Vec<Dual<f64>> = x.iter().zip(&dir).map(|(&a, &t)| Dual::new(a, t)).collect();
        let (_, gd) = rosen_grad(&xd);
        let along: Vec<f64> = gd.iter().map(|g| g.eps).collect();
        assert_vec_near(
            &along,
            &mat_vec(&h, &dir),
            1e-10,
            "rosen_grad on Dual = H v",
        );

        let line = Line {
            slope: rng.uniform(-1.0, 1.0),
            icept: rng.uniform(-1.0, 1.0),
            weights: rng.vec(6, 0.5, 2.0),
        };
        let xs = rng.vec(6, -2.0, 2.0);
        let ys: Vec<f64> = xs
            .iter()
            .map(|x| 0.7 * x - 0.3 + 0.1 * (3.0 * x).sin())
            .collect();
        let flat = line.to_flat();
        let f = |y: &[f64]| line.from_flat(y).loss(&xs, &ys);
        let grad = |y: &[f64]| line.from_flat(y).loss_grad(&xs, &ys).1.to_flat();
        fd_check("Line::loss_grad", &f, &flat, &grad(&flat));
        let (_, _, h) = line.loss_hessian(&xs, &ys);
        hess_check("Line::loss_hessian", &grad, &flat, &h);
        // The normal equations: H/2 [m, c] = [Σ w x y, Σ w y].
        let (sx, sy) = (
            (0..6).map(|i| line.weights[i] * xs[i] * ys[i]).sum::<f64>(),
            (0..6).map(|i| line.weights[i] * ys[i]).sum::<f64>(),
        );
        let (a, b, d) = (h[0][0] / 2.0, h[0][1] / 2.0, h[1][1] / 2.0);
        let det = a * d - b * b;
        let (m, c) = ((d * sx - b * sy) / det, (a * sy - b * sx) / det);
        let (fit, minimum) =
            Lbfgs::default().minimize_params(|p: &Line| p.loss_grad(&xs, &ys), &line);
        // (The line search may stop at the precision of rounding before the default tolerance:
        // `Stop::LineSearchFailed` with a gradient of 1e-8, as the docs say.)
        assert!(minimum.gradient_norm < 1e-6, "{minimum:?}");
        assert_near(fit.slope, m, 1e-6, 1.0, "fitted slope");
        assert_near(fit.icept, c, 1e-6, 1.0, "fitted intercept");
        assert_eq!(fit.weights, line.weights);

        let xv = rng.vec(5, -1.0, 1.0);
        let mut all = line.to_flat();
        all.extend_from_slice(&xv);
        let f = |y: &[f64]| line.from_flat(&y[..2]).strided(&y[2..]);
        let grad = |y: &[f64]| {
            let (_, (gl, gx)) = line.from_flat(&y[..2]).strided_grad(&y[2..]);
            let mut g = gl.to_flat();
            g.extend(gx);
            g
        };
        fd_check("Line::strided_grad", &f, &all, &grad(&all));
        let (_, _, h) = line.strided_hessian(&xv);
        hess_check("Line::strided_hessian", &grad, &all, &h);

        let mflat = rng.vec(6, -1.0, 1.0);
        let shape = |v: &[f64]| -> Vec<Vec<f64>> { v.chunks(3).map(|c| c.to_vec()).collect() };
        let grad = |v: &[f64]| flat2(&gram_grad(shape(v)).1);
        fd_check("gram_grad", &|v| gram(shape(v)), &mflat, &grad(&mflat));
        let (_, _, h) = gram_hessian(shape(&mflat));
        hess_check("gram_hessian", &grad, &mflat, &h);

        let a = rng.uniform(0.3, 3.0) * if rng.unit() < 0.5 { -1.0 } else { 1.0 };
        let d = cbrt_newton_derivatives(a);
        let c = a.cbrt();
        let e = [
            c,
            c / (3.0 * a),
            -2.0 * c / (9.0 * a * a),
            10.0 * c / (27.0 * a * a * a),
        ];
        assert_vec_near(&d, &e, 1e-8, "cbrt_newton by hand");
        check_third_at("cbrt_newton", &|y| cbrt_newton_derivatives(y), a);
    }
}

// ---------------------------------------------------------------------------------------------------
// Ninth round: a nested struct field passed on whole from a method at `order = 2`; a method's `f_jvp`
// with a struct tangent; `&f64`, `&Vec<f64>` and `Vec<f64>` parameters at `order = 2` with
// `f_grad_into`; a generic matrix function in `f32` at `order = 2`.
// ---------------------------------------------------------------------------------------------------

pub mod round9 {
    use autodiff::{differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Inner {
        pub a: [f64; 2],
        pub s: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Outer {
        pub inner: Inner,
        pub w: Vec<f64>,
    }

    #[differentiable(order = 2)]
    pub fn inner_energy(q: &Inner, x: f64) -> f64 {
        (q.a[0] * x + q.a[1]).powi(2) * q.s.exp()
    }

    impl Outer {
        /// The nested struct passed on whole to a free function, at `order = 2`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn total(&self, x: f64) -> f64 {
            inner_energy(&self.inner, x) + self.w.iter().map(|v| v * x).sum::<f64>().sin()
        }
    }

    /// `&f64`, `&Vec<f64>` and `Vec<f64>` parameters at `order = 2`.
    #[differentiable(order = 2)]
    pub fn refs(a: &f64, v: &Vec<f64>, w: Vec<f64>) -> f64 {
        let mut s = *a;
        for i in 0..v.len() {
            s += v[i] * w[i] * *a;
        }
        s * s
    }

    /// A generic function of a matrix, run in `f32` and `f64`.
    #[differentiable(order = 2)]
    pub fn quad_form<T: Float>(m: &[Vec<T>], x: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..m.len() {
            for j in 0..x.len() {
                s = s + x[i] * m[i][j] * x[j];
            }
        }
        s * s
    }
}

#[test]
fn nested_wholes_struct_tangents_references_and_f32_matrices() {
    use round9::*;
    let mut rng = Lcg::new(3618);
    for _ in 0..5 {
        let v = rng.vec(7, -1.0, 1.0);
        let o = Outer {
            inner: Inner {
                a: [v[0], v[1]],
                s: v[2],
            },
            w: v[3..6].to_vec(),
        };
        let x = v[6];
        let mut flat = o.to_flat();
        flat.push(x);
        let f = |y: &[f64]| o.from_flat(&y[..6]).total(y[6]);
        let grad = |y: &[f64]| {
            let (_, (go, gx)) = o.from_flat(&y[..6]).total_grad(y[6]);
            let mut g = go.to_flat();
            g.push(gx);
            g
        };
        let g = grad(&flat);
        fd_check("Outer::total_grad", &f, &flat, &g);
        let (_, _, h) = o.total_hessian(x);
        hess_check("Outer::total_hessian", &grad, &flat, &h);
        let dir = o.from_flat(&[0.3, -0.2, 0.1, 1.0, 0.5, -0.5]);
        let (value, along) = o.total_jvp(x, (dir.clone(), 0.7));
        assert_near(value, o.total(x), 1e-14, 1.0, "total_jvp value");
        let mut t = dir.to_flat();
        t.push(0.7);
        assert_near(
            along,
            dot(&g, &t),
            1e-12,
            1.0,
            "total_jvp against the gradient",
        );

        let y = rng.vec(7, -1.0, 1.0);
        let f = |z: &[f64]| refs(&z[0], &z[1..4].to_vec(), z[4..].to_vec());
        let grad = |z: &[f64]| {
            let (_, (ga, gv, gw)) = refs_grad(&z[0], &z[1..4].to_vec(), z[4..].to_vec());
            let mut g = vec![ga];
            g.extend(gv);
            g.extend(gw);
            g
        };
        fd_check("refs_grad", &f, &y, &grad(&y));
        let (_, _, h) = refs_hessian(&y[0], &y[1..4].to_vec(), y[4..].to_vec());
        hess_check("refs_hessian", &grad, &y, &h);
        let (mut ga, mut gv, mut gw) = (f64::NAN, vec![f64::NAN; 3], vec![f64::NAN; 3]);
        refs_grad_into(
            &y[0],
            &y[1..4].to_vec(),
            y[4..].to_vec(),
            (&mut ga, &mut gv, &mut gw),
        );
        let mut got = vec![ga];
        got.extend(&gv);
        got.extend(&gw);
        assert_vec_near(&got, &grad(&y), 1e-14, "refs_grad_into");

        let mflat = rng.vec(9, -1.0, 1.0);
        let xs = rng.vec(3, -1.0, 1.0);
        let shape = |z: &[f64]| -> Vec<Vec<f64>> { z.chunks(3).map(|c| c.to_vec()).collect() };
        let mut all = mflat.clone();
        all.extend_from_slice(&xs);
        let grad = |z: &[f64]| {
            let (_, (gm, gx)) = quad_form_grad(&shape(&z[..9]), &z[9..]);
            let mut g = flat2(&gm);
            g.extend(gx);
            g
        };
        let f = |z: &[f64]| quad_form(&shape(&z[..9]), &z[9..]);
        fd_check("quad_form_grad", &f, &all, &grad(&all));
        let (_, _, h) = quad_form_hessian(&shape(&mflat), &xs);
        hess_check("quad_form_hessian", &grad, &all, &h);
        let m32: Vec<Vec<f32>> = shape(&mflat)
            .iter()
            .map(|r| r.iter().map(|&a| a as f32).collect())
            .collect();
        let x32: Vec<f32> = xs.iter().map(|&a| a as f32).collect();
        let (_, _, h32) = quad_form_hessian(&m32, &x32);
        for i in 0..12 {
            for j in 0..12 {
                assert_near(
                    h32[i][j] as f64,
                    h[i][j],
                    1e-4,
                    1.0,
                    "quad_form f32 Hessian",
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Tenth round, whole programs: an ODE right-hand side of a parameter struct writing an output buffer,
// integrated by RK4 in a method returning the final state (its Jacobian over the struct), and a loss
// over it at `order = 2`; a two-layer network with a matrix field, a closure activation and a
// `#[no_grad]` layer size, its loss at `order = 2` and its `f_grad_into` in a training step.
// ---------------------------------------------------------------------------------------------------

pub mod programs {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Lotka {
        pub alpha: f64,
        pub beta: f64,
        pub gamma: f64,
        pub delta: f64,
        #[no_grad]
        pub steps: usize,
    }

    /// The Lotka–Volterra right-hand side into an output buffer.
    #[differentiable(wrt(p, y))]
    pub fn rhs(p: &Lotka, y: &[f64; 2], dydt: &mut [f64; 2]) {
        dydt[0] = p.alpha * y[0] - p.beta * y[0] * y[1];
        dydt[1] = p.delta * y[0] * y[1] - p.gamma * y[1];
    }

    impl Lotka {
        /// RK4 over `steps` steps of `h`, the state an array carried by the loop.
        #[differentiable(wrt(self, y0))]
        pub fn flow(&self, y0: [f64; 2], h: f64) -> [f64; 2] {
            let mut y = y0;
            for _ in 0..self.steps {
                let mut k1 = [0.0; 2];
                let mut k2 = [0.0; 2];
                let mut k3 = [0.0; 2];
                let mut k4 = [0.0; 2];
                rhs(self, &y, &mut k1);
                let y1 = [y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]];
                rhs(self, &y1, &mut k2);
                let y2 = [y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]];
                rhs(self, &y2, &mut k3);
                let y3 = [y[0] + h * k3[0], y[1] + h * k3[1]];
                rhs(self, &y3, &mut k4);
                for i in 0..2 {
                    y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
                }
            }
            y
        }

        /// A fit of the final state to a target, at `order = 2` (the whole RK4 inside).
        #[differentiable(wrt(self), order = 2)]
        pub fn misfit(&self, y0: [f64; 2], target: [f64; 2]) -> f64 {
            let h = 0.05;
            let mut y = y0;
            for _ in 0..self.steps {
                let mut k1 = [0.0; 2];
                let mut k2 = [0.0; 2];
                rhs(self, &y, &mut k1);
                let mid = [y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]];
                rhs(self, &mid, &mut k2);
                y = [y[0] + h * k2[0], y[1] + h * k2[1]];
            }
            (y[0] - target[0]).powi(2) + (y[1] - target[1]).powi(2)
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Net {
        pub w1: Vec<Vec<f64>>,
        pub b1: Vec<f64>,
        pub w2: Vec<f64>,
        pub b2: f64,
        #[no_grad]
        pub hidden: usize,
    }

    impl Net {
        /// Forward pass of one input, a closure activation, the hidden layer into a local `Vec`.
        #[differentiable(wrt(self), order = 2)]
        pub fn predict(&self, x: &[f64]) -> f64 {
            let act = |z: f64| z / (1.0 + z.abs());
            let mut h = vec![0.0; self.hidden];
            for j in 0..self.hidden {
                let z: f64 = self.w1[j].iter().zip(x).map(|(w, v)| w * v).sum();
                h[j] = act(z + self.b1[j]);
            }
            h.iter().zip(&self.w2).map(|(a, b)| a * b).sum::<f64>() + self.b2
        }
    }

    /// A field zipped by reference, `x.iter().zip(&p.w2)` in a chain and in a `for` (this probe: was
    /// refused, "this iterator is not supported", the field taken for a whole value), at `order = 2`.
    #[differentiable(wrt(p), order = 2)]
    pub fn zipped_field(p: &Net, x: &[f64]) -> f64 {
        let a: f64 = x.iter().zip(&p.w2).map(|(u, w)| u * w).sum();
        let mut b = 0.0;
        for (u, w) in x.iter().zip(&p.b1) {
            b += (u * w).sin();
        }
        a * b + p.b2
    }

    /// The mean squared error over rows of data, calling the method, at `order = 2`.
    #[differentiable(wrt(net), order = 2)]
    pub fn net_mse(net: &Net, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..ys.len() {
            let e = net.predict(&xs[i]) - ys[i];
            s += e * e;
        }
        s / ys.len() as f64
    }
}

#[test]
fn whole_programs_ode_and_network() {
    use programs::*;
    let mut rng = Lcg::new(3619);
    for _ in 0..3 {
        let p = Lotka {
            alpha: rng.uniform(0.5, 1.5),
            beta: rng.uniform(0.2, 0.6),
            gamma: rng.uniform(0.5, 1.5),
            delta: rng.uniform(0.2, 0.6),
            steps: 8,
        };
        let y0 = [rng.uniform(0.5, 2.0), rng.uniform(0.5, 2.0)];
        let mut flat = p.to_flat();
        flat.extend_from_slice(&y0);
        let jac = p.flow_jacobian(y0, 0.05);
        let f = |z: &[f64]| p.from_flat(&z[..4]).flow([z[4], z[5]], 0.05).to_vec();
        jac_check("Lotka::flow_jacobian", &f, &flat, &jac);
        let jr = rhs_jacobian(&p, &y0, &mut [0.0; 2]);
        let by_hand = [
            [
                y0[0],
                -y0[0] * y0[1],
                0.0,
                0.0,
                p.alpha - p.beta * y0[1],
                -p.beta * y0[0],
            ],
            [
                0.0,
                0.0,
                -y0[1],
                y0[0] * y0[1],
                p.delta * y0[1],
                p.delta * y0[0] - p.gamma,
            ],
        ];
        for i in 0..2 {
            assert_vec_near(&jr[i], &by_hand[i], 1e-12, "rhs_jacobian by hand");
        }
        let target = [1.0, 1.2];
        let flat = p.to_flat();
        let f = |z: &[f64]| p.from_flat(z).misfit(y0, target);
        let grad = |z: &[f64]| p.from_flat(z).misfit_grad(y0, target).1.to_flat();
        fd_check("Lotka::misfit_grad", &f, &flat, &grad(&flat));
        let (_, _, h) = p.misfit_hessian(y0, target);
        hess_check("Lotka::misfit_hessian", &grad, &flat, &h);

        let hidden = 3;
        let net = Net {
            w1: (0..hidden).map(|_| rng.vec(2, -1.0, 1.0)).collect(),
            b1: rng.vec(hidden, -0.5, 0.5),
            w2: rng.vec(hidden, -1.0, 1.0),
            b2: rng.uniform(-0.5, 0.5),
            hidden,
        };
        let xs: Vec<Vec<f64>> = (0..4).map(|_| rng.vec(2, -1.0, 1.0)).collect();
        let ys = rng.vec(4, -1.0, 1.0);
        let flat = net.to_flat();
        let f = |z: &[f64]| net_mse(&net.from_flat(z), &xs, &ys);
        let grad = |z: &[f64]| net_mse_grad(&net.from_flat(z), &xs, &ys).1.to_flat();
        let g = grad(&flat);
        fd_check("net_mse_grad", &f, &flat, &g);
        let (_, _, h) = net_mse_hessian(&net, &xs, &ys);
        hess_check("net_mse_hessian", &grad, &flat, &h);
        // A training step through `f_grad_into` into a buffer reused across steps.
        let mut buffer = net.zero_like();
        let mut params = net.clone();
        let before = net_mse(&params, &xs, &ys);
        for _ in 0..20 {
            net_mse_grad_into(&params, &xs, &ys, &mut buffer);
            buffer.scale(-0.1);
            params.add_assign(&buffer);
        }
        assert!(
            net_mse(&params, &xs, &ys) < before,
            "the training steps lower the loss"
        );
        assert_eq!(params.hidden, hidden);
        let x3 = rng.vec(3, -1.0, 1.0);
        let f = |z: &[f64]| zipped_field(&net.from_flat(z), &x3);
        let grad = |z: &[f64]| zipped_field_grad(&net.from_flat(z), &x3).1.to_flat();
        let g = grad(&flat);
        fd_check("zipped_field_grad", &f, &flat, &g);
        let a: f64 = (0..3).map(|i| x3[i] * net.w2[i]).sum();
        let b: f64 = (0..3).map(|i| (x3[i] * net.b1[i]).sin()).sum();
        let gz = zipped_field_grad(&net, &x3).1;
        for i in 0..3 {
            assert_near(gz.w2[i], x3[i] * b, 1e-12, 1.0, "d/dw2 by hand");
            assert_near(
                gz.b1[i],
                a * x3[i] * (x3[i] * net.b1[i]).cos(),
                1e-12,
                1.0,
                "d/db1",
            );
        }
        let (_, _, h) = zipped_field_hessian(&net, &x3);
        hess_check("zipped_field_hessian", &grad, &flat, &h);
        let (_, gp) = params.predict_grad(&xs[0]);
        let fp = |z: &[f64]| params.from_flat(z).predict(&xs[0]);
        fd_check("Net::predict_grad", &fp, &params.to_flat(), &gp.to_flat());
    }
}

// ---------------------------------------------------------------------------------------------------
// Eleventh round: a generic method with `self` constant at `order = 3` through `f_derivatives` (its count
// by `T::from`); a two-input custom gradient at `order = 3`; `f_jacobian` of a generic method returning
// a `Vec<T>`; fields zipped by reference in other shapes (two structs, a matrix field's row, an array).
// ---------------------------------------------------------------------------------------------------

pub mod round11 {
    use autodiff::{differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Cheb<T: Float> {
        pub c: Vec<T>,
        #[no_grad]
        pub n: usize,
    }

    impl<T: Float> Cheb<T> {
        /// `Σ c_k T_k(x)` by the recurrence, scaled by `n`, `self` constant, at `order = 3`.
        #[differentiable(wrt(x), order = 3)]
        pub fn eval(&self, x: T) -> T {
            let two = T::from(2.0).unwrap();
            let mut t0 = T::one();
            let mut t1 = x;
            let mut s = self.c[0] * t0 + self.c[1] * t1;
            for k in 2..self.c.len() {
                let t2 = two * x * t1 - t0;
                s = s + self.c[k] * t2;
                t0 = t1;
                t1 = t2;
            }
            s * T::from(self.n).unwrap()
        }

        /// The terms as a `Vec<T>`, `wrt(self, x)`: its Jacobian.
        #[differentiable(wrt(self, x))]
        pub fn terms(&self, x: T) -> Vec<T> {
            let mut out = Vec::new();
            for k in 0..self.c.len() {
                out.push(self.c[k] * x.powi(k as i32));
            }
            out
        }
    }

    /// Fields zipped by reference: two structs, a matrix field's row, an array field.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Bag {
        pub w: Vec<f64>,
        pub m: Vec<Vec<f64>>,
        pub a: [f64; 2],
    }

    #[differentiable(order = 2)]
    pub fn bags(p: &Bag, q: &Bag, x: &[f64]) -> f64 {
        let d: f64 = p.w.iter().zip(&q.w).map(|(a, b)| a * b).sum();
        let mut r = 0.0;
        for i in 0..p.m.len() {
            r += x
                .iter()
                .zip(&p.m[i])
                .map(|(a, b)| a * b)
                .sum::<f64>()
                .powi(2);
        }
        let e: f64 = x.iter().zip(&q.a).map(|(a, b)| a * b).sum();
        d * r + e.exp()
    }

    /// A two-input custom gradient at `order = 3`.
    #[differentiable(order = 3)]
    pub fn custom3(x: f64) -> f64 {
        super::round2::mulsin(x, x * x) + x
    }
}

#[test]
fn generic_third_order_methods_custom_third_order_and_zipped_fields() {
    use round11::*;
    let mut rng = Lcg::new(3620);
    for _ in 0..5 {
        let ch = Cheb {
            c: rng.vec(4, -1.0, 1.0),
            n: 2,
        };
        let x = rng.uniform(-1.0, 1.0);
        check_third_at("Cheb::eval", &|y| ch.eval_derivatives(y), x);
        // T_0..T_3 = 1, x, 2x² - 1, 4x³ - 3x; times 2.
        let c = &ch.c;
        let e = [
            2.0 * (c[0]
                + c[1] * x
                + c[2] * (2.0 * x * x - 1.0)
                + c[3] * (4.0 * x.powi(3) - 3.0 * x)),
            2.0 * (c[1] + c[2] * 4.0 * x + c[3] * (12.0 * x * x - 3.0)),
            2.0 * (c[2] * 4.0 + c[3] * 24.0 * x),
            2.0 * c[3] * 24.0,
        ];
        assert_vec_near(&ch.eval_derivatives(x), &e, 1e-12, "Cheb::eval by hand");

        let mut flat = ch.to_flat();
        flat.push(x);
        let jac = ch.terms_jacobian(x);
        let f = |y: &[f64]| ch.from_flat(&y[..4]).terms(y[4]);
        jac_check("Cheb::terms_jacobian", &f, &flat, &jac);

        let mk = |r: &mut Lcg| Bag {
            w: r.vec(3, -1.0, 1.0),
            m: vec![r.vec(2, -1.0, 1.0), r.vec(2, -1.0, 1.0)],
            a: [r.uniform(-1.0, 1.0), r.uniform(-1.0, 1.0)],
        };
        let (p, q) = (mk(&mut rng), mk(&mut rng));
        let xs = rng.vec(2, -1.0, 1.0);
        let mut all = p.to_flat();
        all.extend(q.to_flat());
        let n = p.to_flat().len();
        let f = |y: &[f64]| {
            bags(
                &p.from_flat(&y[..n]),
                &q.from_flat(&y[n..2 * n]),
                &y[2 * n..],
            )
        };
        let grad = |y: &[f64]| {
            let (_, (gp, gq, gx)) = bags_grad(
                &p.from_flat(&y[..n]),
                &q.from_flat(&y[n..2 * n]),
                &y[2 * n..],
            );
            let mut g = gp.to_flat();
            g.extend(gq.to_flat());
            g.extend(gx);
            g
        };
        all.extend_from_slice(&xs);
        fd_check("bags_grad", &f, &all, &grad(&all));
        let (_, _, h) = bags_hessian(&p, &q, &xs);
        hess_check("bags_hessian", &grad, &all, &h);

        let t = rng.uniform(-1.5, 1.5);
        check_third_at("custom3", &|y| custom3_derivatives(y), t);
        let d = custom3_derivatives(t);
        // sin(x) x² + x.
        let e1 = t.cos() * t * t + 2.0 * t * t.sin() + 1.0;
        let e2 = -t.sin() * t * t + 4.0 * t * t.cos() + 2.0 * t.sin();
        assert_near(d[1], e1, 1e-12, 1.0, "custom3' by hand");
        assert_near(d[2], e2, 1e-12, 1.0, "custom3'' by hand");
    }
}

// ---------------------------------------------------------------------------------------------------
// `T::from(x).unwrap()` of a parameter of the float type itself (the identity, a conversion as this
// probe's fix lowers it; was "`T::from` has no known derivative"), at `order = 3`.
// ---------------------------------------------------------------------------------------------------

pub mod own_from {
    use autodiff::{differentiable, Float};

    #[differentiable(order = 3)]
    pub fn own<T: Float>(x: T) -> T {
        let y = T::from(x).unwrap();
        y * y * x.sin()
    }
}

#[test]
fn from_of_the_own_float_type_at_order_3() {
    use own_from::*;
    let mut rng = Lcg::new(3621);
    for _ in 0..5 {
        let x = rng.uniform(-2.0, 2.0);
        let d = own_derivatives(x);
        let (s, c) = (x.sin(), x.cos());
        let e = [
            x * x * s,
            2.0 * x * s + x * x * c,
            2.0 * s + 4.0 * x * c - x * x * s,
            6.0 * c - 6.0 * x * s - x * x * c,
        ];
        assert_vec_near(&d, &e, 1e-12, "own by hand");
        check_third_at("own", &|y| own_derivatives(y), x);
        let (_, g) = own_grad(x as f32);
        assert_near(g as f64, e[1], 1e-5, 1.0, "own in f32");
    }
}

// ---------------------------------------------------------------------------------------------------
// Fields zipped by reference in a generic `impl` and a generic free function at `order = 2`, with a
// count converted by `T::from` (the two fixes of this probe together).
// ---------------------------------------------------------------------------------------------------

pub mod zipped_generic {
    use autodiff::{differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Lin<T: Float> {
        pub w: Vec<T>,
        pub b: T,
        #[no_grad]
        pub n: usize,
    }

    impl<T: Float> Lin<T> {
        #[differentiable(wrt(self), order = 2)]
        pub fn score(&self, x: &[T]) -> T {
            let s = x
                .iter()
                .zip(&self.w)
                .fold(T::zero(), |acc, (&a, &w)| acc + a * w);
            (s + self.b).tanh() * T::from(self.n).unwrap()
        }
    }

    #[differentiable(wrt(p), order = 2)]
    pub fn score_free<T: Float>(p: &Lin<T>, x: &[T]) -> T {
        let mut s = p.b;
        for (a, w) in x.iter().zip(&p.w) {
            s = s + *a * *w * *w;
        }
        s.sin() / T::from(p.n).unwrap()
    }
}

#[test]
fn zipped_fields_in_generic_code_at_order_2() {
    use zipped_generic::*;
    let mut rng = Lcg::new(3622);
    for _ in 0..5 {
        let p = Lin {
            w: rng.vec(3, -1.0, 1.0),
            b: rng.uniform(-1.0, 1.0),
            n: 2,
        };
        let x = rng.vec(3, -1.0, 1.0);
        let flat = p.to_flat();
        let f = |y: &[f64]| p.from_flat(y).score(&x);
        let grad = |y: &[f64]| p.from_flat(y).score_grad(&x).1.to_flat();
        let g = grad(&flat);
        fd_check("Lin::score_grad", &f, &flat, &g);
        let s: f64 = (0..3).map(|i| x[i] * p.w[i]).sum::<f64>() + p.b;
        let d = 2.0 * (1.0 - s.tanh().powi(2));
        assert_vec_near(
            &g,
            &[d * x[0], d * x[1], d * x[2], d],
            1e-12,
            "score by hand",
        );
        let (_, _, h) = p.score_hessian(&x);
        hess_check("Lin::score_hessian", &grad, &flat, &h);

        let f = |y: &[f64]| score_free(&p.from_flat(y), &x);
        let grad = |y: &[f64]| score_free_grad(&p.from_flat(y), &x).1.to_flat();
        fd_check("score_free_grad", &f, &flat, &grad(&flat));
        let (_, _, h) = score_free_hessian(&p, &x);
        hess_check("score_free_hessian", &grad, &flat, &h);
    }
}
