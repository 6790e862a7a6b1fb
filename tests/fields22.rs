//! `order = 2` through a matrix field passed on whole to a function of a matrix (`layer(&p.w, x)` of a
//! `Vec<Vec<f64>>` field, `grid(&p.m, x)` of a `[[f64; 3]; 2]` one): the callee's `__g_pairs` takes the
//! matrix as the field's shape and its part of the values view (`values::matrix_window`). Gradients,
//! tangents and Hessians against central differences of the gradient and the formulas, at first order too.
//! Also fields passed on whole to associated functions and methods, and methods calling by a module's path.

// The differentiated functions index their matrices as they are written.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::probe::{self, Lcg, Probe};
use common::*;

/// `Σ_ij w_ij x_j`, of a matrix of rows of any lengths.
#[differentiable]
fn layer(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        for j in 0..w[i].len() {
            s += w[i][j] * x[j];
        }
    }
    s
}

/// `Σ_ij m_ij³ x_j`, of a fixed-size matrix: a curvature of its own.
#[differentiable]
fn grid(m: &[[f64; 3]; 2], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        for j in 0..3 {
            s += m[i][j] * m[i][j] * m[i][j] * x[j];
        }
    }
    s
}

#[derive(Clone, Debug, Differentiable)]
struct Dense {
    w: Vec<Vec<f64>>,
    b: f64,
}

/// `tanh(Σ w_ij x_j + b)`.
#[differentiable(wrt(p), order = 2)]
fn dense(p: &Dense, x: &[f64]) -> f64 {
    (layer(&p.w, x) + p.b).tanh()
}

/// `dense` at first order.
#[differentiable(wrt(p))]
fn dense_first(p: &Dense, x: &[f64]) -> f64 {
    (layer(&p.w, x) + p.b).tanh()
}

/// `(Σ w_ij x_j + b)²` in `p` and `x`.
#[differentiable(wrt(p, x), order = 2)]
fn dense_both(p: &Dense, x: &[f64]) -> f64 {
    let z = layer(&p.w, x) + p.b;
    z * z
}

#[derive(Clone, Debug, Differentiable)]
struct Grid {
    m: [[f64; 3]; 2],
    k: f64,
}

/// `k Σ m_ij³ x_j + m_00 k`.
#[differentiable(wrt(g), order = 2)]
fn on_grid(g: &Grid, x: &[f64]) -> f64 {
    g.k * grid(&g.m, x) + g.m[0][0] * g.k
}

const X: [f64; 3] = [0.4, -1.1, 0.7];

/// Rows of lengths 3 and 2, then `b`.
fn dense_at(v: &[f64]) -> Dense {
    Dense {
        w: vec![v[..3].to_vec(), v[3..5].to_vec()],
        b: v[5],
    }
}

fn grid_at(v: &[f64]) -> Grid {
    Grid {
        m: [[v[0], v[1], v[2]], [v[3], v[4], v[5]]],
        k: v[6],
    }
}

/// `∂z/∂(w, b)` of `z = Σ w_ij x_j + b` with rows of lengths 3 and 2.
fn dz_dense() -> Vec<f64> {
    vec![X[0], X[1], X[2], X[0], X[1], 1.0]
}

#[test]
fn a_vec_matrix_field_passed_on_whole_at_order_2() {
    let u = dz_dense();
    Probe::new("dense", |v| dense(&dense_at(v), &X))
        .grad(|v| {
            let (value, g) = dense_grad(&dense_at(v), &X);
            (value, g.to_flat())
        })
        .jvp(|v, t| dense_jvp(&dense_at(v), &X, dense_at(t)))
        .hessian(|v| {
            let (value, g, h) = dense_hessian(&dense_at(v), &X);
            (value, g.to_flat(), h)
        })
        .analytic(|v| {
            let dz = 1.0 - probe::dot(&u, v).tanh().powi(2);
            u.iter().map(|a| dz * a).collect()
        })
        .run(32, probe::range(6, -1.5, 1.5));
    Probe::new("dense_first", |v| dense_first(&dense_at(v), &X))
        .grad(|v| {
            let (value, g) = dense_first_grad(&dense_at(v), &X);
            (value, g.to_flat())
        })
        .jvp(|v, t| dense_first_jvp(&dense_at(v), &X, dense_at(t)))
        .run(16, probe::range(6, -1.5, 1.5));
    // tanh(u · v): Hessian -2 tanh z (1 - tanh² z) u uᵀ; `hvp` its product.
    let mut rng = Lcg::new(probe::seed_of("fields22 dense by hand"));
    for _ in 0..32 {
        let (v, d) = (rng.vec(6, -1.5, 1.5), rng.vec(6, -1.0, 1.0));
        let t = probe::dot(&u, &v).tanh();
        let s = -2.0 * t * (1.0 - t * t);
        let (_, _, h) = dense_hessian(&dense_at(&v), &X);
        for (i, row) in h.iter().enumerate() {
            let by_hand: Vec<f64> = u.iter().map(|b| s * u[i] * b).collect();
            assert_all_close(row, &by_hand, 1e-9, "dense Hessian by hand");
        }
        let (value, g, hv) = dense_hvp(&dense_at(&v), &X, dense_at(&d));
        assert_close(value, t, 1e-12, "dense_hvp value");
        let gu: Vec<f64> = u.iter().map(|a| (1.0 - t * t) * a).collect();
        assert_all_close(&g.to_flat(), &gu, 1e-10, "dense_hvp gradient");
        let ud = probe::dot(&u, &d);
        let product: Vec<f64> = u.iter().map(|a| s * a * ud).collect();
        assert_all_close(&hv.to_flat(), &product, 1e-9, "dense_hvp product");
    }
}

#[test]
fn a_vec_matrix_field_passed_on_whole_in_both_at_order_2() {
    // z² over (w, b, x): gradient 2z ∇z; Hessian 2 ∇z ∇zᵀ plus 2z at (w_ij, x_j).
    let flat = |g: &Dense, gx: &[f64]| [g.to_flat(), gx.to_vec()].concat();
    Probe::new("dense_both", |v| dense_both(&dense_at(v), &v[6..]))
        .grad(|v| {
            let (value, (g, gx)) = dense_both_grad(&dense_at(v), &v[6..]);
            (value, flat(&g, &gx))
        })
        .jvp(|v, t| dense_both_jvp(&dense_at(v), &v[6..], (dense_at(t), t[6..].to_vec())))
        .hessian(|v| {
            let (value, (g, gx), h) = dense_both_hessian(&dense_at(v), &v[6..]);
            (value, flat(&g, &gx), h)
        })
        .run(32, probe::range(9, -1.5, 1.5));
}

#[test]
fn an_array_matrix_field_passed_on_whole_at_order_2() {
    let formula = |v: &[f64]| {
        let k = v[6];
        let mut g = vec![0.0; 7];
        let mut s = 0.0;
        for i in 0..2 {
            for j in 0..3 {
                let m = v[3 * i + j];
                g[3 * i + j] = 3.0 * k * m * m * X[j];
                s += m * m * m * X[j];
            }
        }
        g[0] += k;
        g[6] = s + v[0];
        g
    };
    Probe::new("on_grid", |v| on_grid(&grid_at(v), &X))
        .grad(|v| {
            let (value, g) = on_grid_grad(&grid_at(v), &X);
            (value, g.to_flat())
        })
        .jvp(|v, t| on_grid_jvp(&grid_at(v), &X, grid_at(t)))
        .hessian(|v| {
            let (value, g, h) = on_grid_hessian(&grid_at(v), &X);
            (value, g.to_flat(), h)
        })
        .analytic(formula)
        .run(32, probe::range(7, -1.5, 1.5));
}

#[derive(Clone, Debug, Differentiable)]
struct Lin {
    w: Vec<f64>,
    m: Vec<Vec<f64>>,
    b: f64,
}

impl Lin {
    /// `a · x`, an associated function of slices.
    #[differentiable]
    fn sdot(a: &[f64], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * x[i];
        }
        s
    }

    /// `Σ_ij m_ij² x_j`, an associated function of a matrix.
    #[differentiable]
    fn squares(m: &[Vec<f64>], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..m.len() {
            for j in 0..m[i].len() {
                s += m[i][j] * m[i][j] * x[j];
            }
        }
        s
    }

    /// `b (a · x)`: a method taking a slice beside `self`.
    #[differentiable(wrt(self, a))]
    fn scaled(&self, a: &[f64], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * x[i];
        }
        self.b * s
    }

    /// `(w · x + b)²` through `Self::sdot(&self.w, x)`.
    #[differentiable(wrt(self), order = 2)]
    fn by_assoc(&self, x: &[f64]) -> f64 {
        let z = Self::sdot(&self.w, x) + self.b;
        z * z
    }

    /// `(b (w · x))²` through `self.scaled(&self.w, x)`.
    #[differentiable(wrt(self), order = 2)]
    fn by_method(&self, x: &[f64]) -> f64 {
        let z = self.scaled(&self.w, x);
        z * z
    }

    /// `b Σ m_ij² x_j` through `Self::squares(&self.m, x)`.
    #[differentiable(wrt(self), order = 2)]
    fn by_assoc_matrix(&self, x: &[f64]) -> f64 {
        self.b * Self::squares(&self.m, x)
    }
}

/// `(w · x + b)²` through `Lin::sdot(&p.w, x)`, by the type's name, from a free function.
#[differentiable(wrt(p), order = 2)]
fn by_type_name(p: &Lin, x: &[f64]) -> f64 {
    let z = Lin::sdot(&p.w, x) + p.b;
    z * z
}

/// `(b (w · x))²` through `Lin::scaled(p, &p.w, x)`, a method by its path with the struct and its field.
#[differentiable(wrt(p), order = 2)]
fn by_method_path(p: &Lin, x: &[f64]) -> f64 {
    let z = Lin::scaled(p, &p.w, x);
    z * z
}

/// `(w[0..3], m in rows of lengths 2 and 1, b)`.
fn lin_at(v: &[f64]) -> Lin {
    Lin {
        w: v[..3].to_vec(),
        m: vec![v[3..5].to_vec(), vec![v[5]]],
        b: v[6],
    }
}

/// The probe of a method `f` of `Lin` at `X` with its `_grad`, `_jvp` and `_hessian`, and its gradient by
/// a formula.
macro_rules! lin_probe {
    ($name:literal, $f:path, $grad:path, $jvp:path, $hessian:path, $formula:expr) => {
        Probe::new($name, |v| $f(&lin_at(v), &X))
            .grad(|v| {
                let (value, g) = $grad(&lin_at(v), &X);
                (value, g.to_flat())
            })
            .jvp(|v, t| $jvp(&lin_at(v), &X, lin_at(t)))
            .hessian(|v| {
                let (value, g, h) = $hessian(&lin_at(v), &X);
                (value, g.to_flat(), h)
            })
            .analytic($formula)
            .run(32, probe::range(7, -1.5, 1.5))
    };
}

#[test]
fn a_field_passed_on_whole_to_an_associated_function_at_order_2() {
    // z = w · x + b: gradient 2z (x, 0, 0, 0, 1).
    let formula = |v: &[f64]| {
        let z = probe::dot(&v[..3], &X) + v[6];
        vec![
            2.0 * z * X[0],
            2.0 * z * X[1],
            2.0 * z * X[2],
            0.0,
            0.0,
            0.0,
            2.0 * z,
        ]
    };
    lin_probe!(
        "by_assoc",
        Lin::by_assoc,
        Lin::by_assoc_grad,
        Lin::by_assoc_jvp,
        Lin::by_assoc_hessian,
        formula
    );
    lin_probe!(
        "by_type_name",
        by_type_name,
        by_type_name_grad,
        by_type_name_jvp,
        by_type_name_hessian,
        formula
    );
    // Hessian 2 ∇z ∇zᵀ.
    let mut rng = Lcg::new(probe::seed_of("fields22 by_assoc by hand"));
    for _ in 0..16 {
        let v = rng.vec(7, -1.5, 1.5);
        let dz = [X[0], X[1], X[2], 0.0, 0.0, 0.0, 1.0];
        let (_, _, h) = lin_at(&v).by_assoc_hessian(&X);
        let (_, _, by_name) = by_type_name_hessian(&lin_at(&v), &X);
        for i in 0..7 {
            let row: Vec<f64> = dz.iter().map(|b| 2.0 * dz[i] * b).collect();
            assert_all_close(&h[i], &row, 1e-10, "by_assoc Hessian by hand");
            assert_all_close(&by_name[i], &row, 1e-10, "by_type_name Hessian by hand");
        }
    }
}

#[test]
fn a_field_passed_on_whole_to_a_method_at_order_2() {
    // z = b (w · x): gradient 2z (b x, 0, 0, 0, w · x).
    let formula = |v: &[f64]| {
        let d = probe::dot(&v[..3], &X);
        let z = v[6] * d;
        let b = v[6];
        vec![
            2.0 * z * b * X[0],
            2.0 * z * b * X[1],
            2.0 * z * b * X[2],
            0.0,
            0.0,
            0.0,
            2.0 * z * d,
        ]
    };
    lin_probe!(
        "by_method",
        Lin::by_method,
        Lin::by_method_grad,
        Lin::by_method_jvp,
        Lin::by_method_hessian,
        formula
    );
    lin_probe!(
        "by_method_path",
        by_method_path,
        by_method_path_grad,
        by_method_path_jvp,
        by_method_path_hessian,
        formula
    );
}

#[test]
fn a_matrix_field_passed_on_whole_to_an_associated_function_at_order_2() {
    // b Σ m_ij² x_j over (m, b): ∂/∂m_ij = 2 b m_ij x_j, ∂/∂b = Σ m_ij² x_j.
    lin_probe!(
        "by_assoc_matrix",
        Lin::by_assoc_matrix,
        Lin::by_assoc_matrix_grad,
        Lin::by_assoc_matrix_jvp,
        Lin::by_assoc_matrix_hessian,
        |v: &[f64]| {
            let (b, m) = (v[6], [v[3], v[4], v[5]]);
            let x = [X[0], X[1], X[0]];
            let mut g = vec![0.0; 7];
            for k in 0..3 {
                g[3 + k] = 2.0 * b * m[k] * x[k];
                g[6] += m[k] * m[k] * x[k];
            }
            g
        }
    );
}

mod shapes {
    use autodiff::differentiable;

    /// `x³`.
    #[differentiable]
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

mod outside {
    /// `a cos b + b²`, a function without derivatives of its own.
    pub fn blend(a: f64, b: f64) -> f64 {
        a * b.cos() + b * b
    }
}

#[autodiff::gradient_of(outside::blend)]
fn blend_vjp(a: f64, b: f64, dy: f64) -> (f64, f64) {
    (dy * b.cos(), dy * (-a * b.sin() + 2.0 * b))
}

#[derive(Clone, Debug, Differentiable)]
struct Coef {
    a: f64,
    b: f64,
}

impl Coef {
    /// `a x³ + b x`: a method calling a module's function by its path, without `order = K`.
    #[differentiable(wrt(x))]
    fn curve(&self, x: f64) -> f64 {
        self.a * shapes::cube(x) + self.b * x
    }

    /// `x curve(x)`.
    #[differentiable(wrt(x), order = 2)]
    fn curve_twice(&self, x: f64) -> f64 {
        self.curve(x) * x
    }

    /// `a blend(x, b)`: a method calling a registered function by its path, without `order = K`.
    #[differentiable(wrt(x))]
    fn blended(&self, x: f64) -> f64 {
        self.a * outside::blend(x, self.b)
    }

    /// `x blended(x)`.
    #[differentiable(wrt(x), order = 2)]
    fn blended_twice(&self, x: f64) -> f64 {
        self.blended(x) * x
    }

    /// `a blend(x, b)` in `self` and `x`.
    #[differentiable(wrt(self, x), order = 2)]
    fn blended_in_self(&self, x: f64) -> f64 {
        self.a * outside::blend(x, self.b)
    }

    /// `Σ a x_i³` in a `fold`, by a path, without `order = K`.
    #[differentiable(wrt(x))]
    fn folded(&self, x: &[f64]) -> f64 {
        x.iter()
            .fold(0.0, |acc, &xi| acc + shapes::cube(xi) * self.a)
    }

    /// `x_0 folded(x)`.
    #[differentiable(wrt(x), order = 2)]
    fn folded_twice(&self, x: &[f64]) -> f64 {
        self.folded(x) * x[0]
    }
}

/// `a x³ + blend(x, b)`: a free function of a parameter struct calling by paths, without `order = K`.
#[differentiable(wrt(x))]
fn by_paths(p: &Coef, x: f64) -> f64 {
    p.a * shapes::cube(x) + outside::blend(x, p.b)
}

impl Coef {
    /// `x by_paths(self, x)`, `self` constant: `by_paths`'s copy keeps its struct constant.
    #[differentiable(wrt(x), order = 2)]
    fn by_paths_twice(&self, x: f64) -> f64 {
        by_paths(self, x) * x
    }
}

#[test]
fn a_method_calling_by_a_modules_path_has_a_copy_for_order_2_callers() {
    let coef = |v: &[f64]| Coef { a: v[0], b: v[1] };
    let mut rng = Lcg::new(probe::seed_of("fields22 paths in methods"));
    for _ in 0..48 {
        let v = rng.vec(3, -1.5, 1.5);
        let (c, x) = (coef(&v), v[2]);
        let (a, b) = (c.a, c.b);
        // x (a x³ + b x) = a x⁴ + b x²: d = 4a x³ + 2b x, d² = 12 a x² + 2b.
        let (value, g, h) = c.curve_twice_hessian(x);
        assert_close(value, a * x.powi(4) + b * x * x, 1e-12, "curve_twice");
        assert_close(c.curve_twice(x), value, 1e-12, "curve_twice's primal");
        assert_close(g, 4.0 * a * x.powi(3) + 2.0 * b * x, 1e-10, "curve_twice'");
        assert_close(h[0][0], 12.0 * a * x * x + 2.0 * b, 1e-9, "curve_twice''");
        // x a blend(x, b) = a (x² cos b + x b²): d = a (2x cos b + b²), d² = 2a cos b.
        let bd = b.cos();
        let (value, g, h) = c.blended_twice_hessian(x);
        assert_close(value, x * a * outside::blend(x, b), 1e-12, "blended_twice");
        assert_close(c.blended_twice(x), value, 1e-12, "blended_twice's primal");
        assert_close(g, a * (2.0 * x * bd + b * b), 1e-10, "blended_twice'");
        assert_close(h[0][0], 2.0 * a * bd, 1e-9, "blended_twice''");
        // a blend(x, b) over (a, b, x): gradient (blend, a (-x sin b + 2b), a cos b).
        let (value, (gs, gx), h) = c.blended_in_self_hessian(x);
        assert_close(value, a * outside::blend(x, b), 1e-12, "blended_in_self");
        let grad = [
            outside::blend(x, b),
            a * (-x * b.sin() + 2.0 * b),
            a * b.cos(),
        ];
        assert_all_close(&[gs.a, gs.b, gx], &grad, 1e-10, "blended_in_self gradient");
        let by_hand = [
            [0.0, -x * b.sin() + 2.0 * b, b.cos()],
            [
                -x * b.sin() + 2.0 * b,
                a * (-x * b.cos() + 2.0),
                -a * b.sin(),
            ],
            [b.cos(), -a * b.sin(), 0.0],
        ];
        for (row, hand) in h.iter().zip(&by_hand) {
            assert_all_close(row, hand, 1e-9, "blended_in_self Hessian by hand");
        }
        // x (a x³ + blend(x, b)): d = 4a x³ + 2x cos b + b², d² = 12 a x² + 2 cos b.
        let (value, g, h) = c.by_paths_twice_hessian(x);
        assert_close(value, x * by_paths(&c, x), 1e-12, "by_paths_twice");
        assert_close(c.by_paths_twice(x), value, 1e-12, "by_paths_twice's primal");
        assert_close(
            g,
            4.0 * a * x.powi(3) + 2.0 * x * bd + b * b,
            1e-10,
            "by_paths_twice'",
        );
        assert_close(
            h[0][0],
            12.0 * a * x * x + 2.0 * bd,
            1e-9,
            "by_paths_twice''",
        );
    }
    // A slice: Hessians against central differences of the gradient.
    let c = Coef { a: 0.7, b: -0.4 };
    Probe::new("folded_twice", |v| c.folded_twice(v))
        .grad(|v| c.folded_twice_grad(v))
        .jvp(|v, t| c.folded_twice_jvp(v, t.to_vec()))
        .hessian(|v| c.folded_twice_hessian(v))
        .analytic(|v| {
            let s: f64 = v.iter().map(|x| c.a * x * x * x).sum();
            let mut g: Vec<f64> = v.iter().map(|x| 3.0 * c.a * x * x * v[0]).collect();
            g[0] += s;
            g
        })
        .run(32, probe::range(3, -1.5, 1.5));
    Probe::new("blended_in_self", |v| {
        Coef { a: v[0], b: v[1] }.blended_in_self(v[2])
    })
    .grad(|v| {
        let (value, (g, gx)) = Coef { a: v[0], b: v[1] }.blended_in_self_grad(v[2]);
        (value, vec![g.a, g.b, gx])
    })
    .hessian(|v| {
        let (value, (g, gx), h) = Coef { a: v[0], b: v[1] }.blended_in_self_hessian(v[2]);
        (value, vec![g.a, g.b, gx], h)
    })
    .run(32, probe::range(3, -1.5, 1.5));
}
