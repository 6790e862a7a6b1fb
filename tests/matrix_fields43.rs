//! A matrix field of an `f32` struct, or of a struct generic over its float type, passed on whole to a
//! function generic over its float type, at `order = 2`.
//!
//! The caller's hidden function over the struct's values calls the callee's `__f_pairs` with the field
//! itself (its shape) beside its part of the values view. The shape was typed `[Vec<f64>]` whatever the
//! field held, so an `f32` field, or a `T` field of a generic struct, was rustc's E0308 inside the
//! generated code (`struct_whole.rs`, `pairs::plain`); each shape now has a float type parameter of its
//! own. Checked: the `f64` forms against central differences of their gradients and against the
//! gradient by hand; the `f32` forms against the `f64` ones.

#![allow(clippy::needless_range_loop)] // the derivatives by hand are index arithmetic

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, points};
use num_traits::Float;

/// `Σ_i tanh(Σ_j w[i][j] x[j])`: generic over its float type, a matrix by reference.
#[differentiable(order = 2)]
pub fn squashed_rows<T: Float>(w: &[Vec<T>], x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..w.len() {
        let mut z = T::zero();
        for j in 0..x.len() {
            z = z + w[i][j] * x[j];
        }
        s = s + z.tanh();
    }
    s
}

/// `xᵀ m x` over a fixed-size matrix.
#[differentiable(order = 2)]
pub fn form<T: Float>(m: &[[T; 2]; 2], x: &[T]) -> T {
    let mut q = T::zero();
    for i in 0..2 {
        for j in 0..2 {
            q = q + x[i] * m[i][j] * x[j];
        }
    }
    q
}

#[derive(Clone, Debug, Differentiable)]
pub struct Net32 {
    pub w: Vec<Vec<f32>>,
    pub b: f32,
}

#[derive(Clone, Debug, Differentiable)]
pub struct Net64 {
    pub w: Vec<Vec<f64>>,
    pub b: f64,
}

#[derive(Clone, Debug, Differentiable)]
pub struct GenericNet<T: Float> {
    pub w: Vec<Vec<T>>,
    pub b: T,
}

#[derive(Clone, Debug, Differentiable)]
pub struct Form32 {
    pub m: [[f32; 2]; 2],
    pub k: f32,
}

#[differentiable(order = 2)]
pub fn loss32(n: &Net32, x: &[f32]) -> f32 {
    let s = squashed_rows(&n.w, x) + n.b;
    s * s + n.b.sin()
}

#[differentiable(order = 2)]
pub fn loss64(n: &Net64, x: &[f64]) -> f64 {
    let s = squashed_rows(&n.w, x) + n.b;
    s * s + n.b.sin()
}

#[differentiable(order = 2)]
pub fn generic_loss<T: Float>(n: &GenericNet<T>, x: &[T]) -> T {
    let s = squashed_rows(&n.w, x) + n.b;
    s * s + n.b.sin()
}

#[differentiable(order = 2)]
pub fn form_energy32(p: &Form32, x: &[f32]) -> f32 {
    let q = form(&p.m, x);
    p.k * q * q + q.sin()
}

/// Three rows of two, then `b`, then `x`: the nine inputs of the `Net` forms, flat.
fn net_of(z: &[f64]) -> (Vec<Vec<f64>>, f64, Vec<f64>) {
    let w = vec![z[0..2].to_vec(), z[2..4].to_vec(), z[4..6].to_vec()];
    (w, z[6], z[7..9].to_vec())
}

/// The loss by hand, and its gradient over the flat inputs.
fn loss_by_hand(z: &[f64]) -> (f64, Vec<f64>) {
    let (w, b, x) = net_of(z);
    let zs: Vec<f64> = w.iter().map(|r| r[0] * x[0] + r[1] * x[1]).collect();
    let s = zs.iter().map(|z| z.tanh()).sum::<f64>() + b;
    let mut g = vec![0.0; 9];
    let mut gx = [0.0; 2];
    for (i, (row, zi)) in w.iter().zip(&zs).enumerate() {
        let slope = 2.0 * s * (1.0 - zi.tanh() * zi.tanh());
        g[2 * i] = slope * x[0];
        g[2 * i + 1] = slope * x[1];
        gx[0] += slope * row[0];
        gx[1] += slope * row[1];
    }
    g[6] = 2.0 * s + b.cos();
    g[7] = gx[0];
    g[8] = gx[1];
    (s * s + b.sin(), g)
}

fn grad64(z: &[f64]) -> (f64, Vec<f64>) {
    let (w, b, x) = net_of(z);
    let (v, (gn, gx)) = loss64_grad(&Net64 { w, b }, &x);
    let mut g = gn.to_flat();
    g.extend(gx);
    (v, g)
}

fn hessian64(z: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let (w, b, x) = net_of(z);
    let (v, (gn, gx), h) = loss64_hessian(&Net64 { w, b }, &x);
    let mut g = gn.to_flat();
    g.extend(gx);
    (v, g, h)
}

#[test]
fn an_f64_matrix_field_to_a_generic_helper_at_order_2_matches_differences() {
    for z in points(43_001, 9, 12, -1.0, 1.0) {
        let (v, g) = grad64(&z);
        let (hand, hand_g) = loss_by_hand(&z);
        assert_close(v, hand, 1e-12, "loss64: value");
        assert_all_close(
            &g,
            &hand_g,
            1e-10,
            "loss64_grad against the gradient by hand",
        );
        assert_fd_gradient(|y| loss_by_hand(y).0, &z, &g, "loss64_grad");
        let (hv, hg, h) = hessian64(&z);
        assert_close(hv, v, 1e-12, "loss64_hessian: value");
        assert_all_close(&hg, &g, 1e-10, "loss64_hessian: gradient");
        assert_hessian_fd(&h, |y| grad64(y).1, &z, 1e-5, "loss64_hessian");
    }
}

#[test]
fn a_generic_struct_with_a_matrix_field_at_order_2_matches_differences() {
    for z in points(43_002, 9, 12, -1.0, 1.0) {
        let (w, b, x) = net_of(&z);
        let n = GenericNet { w, b };
        let (v, (gn, gx), h) = generic_loss_hessian(&n, &x);
        let mut g = gn.to_flat();
        g.extend(gx);
        let (hand, hand_g) = loss_by_hand(&z);
        assert_close(v, hand, 1e-12, "generic_loss: value");
        assert_all_close(&g, &hand_g, 1e-10, "generic_loss_hessian: gradient by hand");
        let (_, _, h64) = hessian64(&z);
        for (row, row64) in h.iter().zip(&h64) {
            assert_all_close(row, row64, 1e-12, "generic_loss_hessian against loss64's");
        }
        assert_hessian_fd(&h, |y| grad64(y).1, &z, 1e-5, "generic_loss_hessian");
    }
}

/// The `f32` forms against the `f64` ones, to `f32` precision.
#[test]
fn f32_matrix_fields_to_generic_helpers_at_order_2_match_the_f64_forms() {
    for z in points(43_003, 9, 12, -1.0, 1.0) {
        let (w, b, x) = net_of(&z);
        let (v64, g64, h64) = hessian64(&z);
        let narrow = |v: &[f64]| v.iter().map(|&a| a as f32).collect::<Vec<f32>>();
        let n32 = Net32 {
            w: w.iter().map(|r| narrow(r)).collect(),
            b: b as f32,
        };
        let (v, (gn, gx), h) = loss32_hessian(&n32, &narrow(&x));
        let mut g: Vec<f64> = gn.to_flat();
        g.extend(gx.iter().map(|&a| f64::from(a)));
        let scale = 1.0 + v64.abs();
        assert_close(f64::from(v), v64, 1e-5 * scale, "loss32: value");
        assert_all_close(&g, &g64, 1e-4 * scale, "loss32_hessian: gradient");
        for (row, row64) in h.iter().zip(&h64) {
            let row: Vec<f64> = row.iter().map(|&a| f64::from(a)).collect();
            assert_all_close(&row, row64, 1e-3 * scale, "loss32_hessian against loss64's");
        }
        // The generic struct at `f32`.
        let g32 = GenericNet {
            w: n32.w.clone(),
            b: n32.b,
        };
        let (gv, _, gh) = generic_loss_hessian(&g32, &narrow(&x));
        assert!(
            (gv - v).abs() <= 1e-6 * (1.0 + v.abs()),
            "generic_loss at f32: {gv} against {v}"
        );
        for (row, row32) in gh.iter().zip(&h) {
            for (a, b) in row.iter().zip(row32) {
                assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()), "{a} against {b}");
            }
        }
    }
}

/// A fixed-size matrix field of an `f32` struct: `k q² + sin q`, `q = xᵀ m x`, against its Hessian by hand
/// at `f64` precision.
#[test]
fn an_f32_fixed_size_matrix_field_at_order_2_matches_the_hessian_by_hand() {
    for z in points(43_004, 7, 12, -1.0, 1.0) {
        let m = [[z[0], z[1]], [z[2], z[3]]];
        let (k, x) = (z[4], [z[5], z[6]]);
        let p = Form32 {
            m: m.map(|r| r.map(|a| a as f32)),
            k: k as f32,
        };
        let (v, (gp, gx), h) = form_energy32_hessian(&p, &[x[0] as f32, x[1] as f32]);
        // Inputs m00, m01, m10, m11, k, x0, x1; q and its gradient and Hessian by hand.
        let q: f64 = (0..2)
            .flat_map(|i| (0..2).map(move |j| (i, j)))
            .map(|(i, j)| x[i] * m[i][j] * x[j])
            .sum();
        let mut dq = [0.0; 7];
        let mut d2q = [[0.0; 7]; 7];
        for i in 0..2 {
            for j in 0..2 {
                dq[2 * i + j] = x[i] * x[j];
                dq[5 + i] += m[i][j] * x[j];
                dq[5 + j] += x[i] * m[i][j];
                // ∂²q/∂m_ij∂x_i = x_j, ∂²q/∂m_ij∂x_j = x_i, ∂²q/∂x_i∂x_j = m_ij + m_ji.
                d2q[2 * i + j][5 + i] += x[j];
                d2q[2 * i + j][5 + j] += x[i];
                d2q[5 + i][5 + j] += m[i][j] + m[j][i];
            }
        }
        // The (m, x) block was filled above the diagonal only.
        for a in 0..4 {
            for b in 5..7 {
                d2q[b][a] = d2q[a][b];
            }
        }
        let value = k * q * q + q.sin();
        let outer = 2.0 * k * q + q.cos(); // ∂f/∂q
        let curve = 2.0 * k - q.sin(); // ∂²f/∂q²
        let mut grad = [0.0; 7];
        for a in 0..7 {
            grad[a] = outer * dq[a];
        }
        grad[4] = q * q;
        let mut hand = [[0.0; 7]; 7];
        for a in 0..7 {
            for b in 0..7 {
                hand[a][b] = curve * dq[a] * dq[b] + outer * d2q[a][b];
            }
        }
        for a in 0..7 {
            hand[a][4] = 2.0 * q * dq[a];
            hand[4][a] = 2.0 * q * dq[a];
        }
        hand[4][4] = 0.0;
        let scale = 1.0 + value.abs();
        assert_close(f64::from(v), value, 1e-5 * scale, "form_energy32: value");
        let mut g: Vec<f64> = gp.to_flat();
        g.extend(gx.iter().map(|&a| f64::from(a)));
        assert_all_close(&g, &grad, 1e-4 * scale, "form_energy32_hessian: gradient");
        for (row, hand_row) in h.iter().zip(&hand) {
            let row: Vec<f64> = row.iter().map(|&a| f64::from(a)).collect();
            assert_all_close(
                &row,
                hand_row,
                1e-3 * scale,
                "form_energy32_hessian by hand",
            );
        }
    }
}
