//! `order = 2` through a matrix field passed on whole to a function of a matrix (`layer(&p.w, x)` of a
//! `Vec<Vec<f64>>` field, `grid(&p.m, x)` of a `[[f64; 3]; 2]` one): the callee's `__g_pairs` takes the
//! matrix as the field's shape and its part of the values view (`values::matrix_window`). Gradients,
//! tangents and Hessians against central differences of the gradient and the formulas, at first order too.

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
