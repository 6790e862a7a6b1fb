//! The adjoint of a row or sub-slice that is the only use of a parameter is a view into the parameter's
//! adjoint (`views::window_views`): the reverse sweep adds into `&mut __d_m[a..b]` where it added into a
//! zeroed buffer of the window's own, made per iteration, then added into the parameter's. Every function
//! here is checked against central differences of its value at seeded points, against a gradient written
//! by hand, and (where the function lends slices of a slice parameter) for its allocations: `_grad_into`
//! allocates nothing that the function does not.

mod common;
#[path = "common/counting.rs"]
mod counting;

use autodiff::differentiable;
use common::{assert_all_close, assert_fd_gradient, points, Inputs};
use counting::allocations_during;

/// `Σ_i x_i Σ_j m_ij x_j`, each row taken once per row.
#[differentiable]
fn quad_hoisted(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        let r = &m[i];
        for j in 0..x.len() {
            s += r[j] * x[j] * x[i];
        }
    }
    s
}

/// The same, the row taken again at every element.
#[differentiable]
fn quad_inner(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..x.len() {
            let r = &m[i];
            s += r[j] * x[j] * x[i];
        }
    }
    s
}

/// A tanh layer summed: the rows iterated, each zipped with `x`.
#[differentiable]
fn layer(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for row in m {
        let z: f64 = row.iter().zip(x).map(|(a, b)| a * b).sum();
        s += z.tanh();
    }
    s
}

/// Smoothness of a signal: each sub-slice of three lent to a helper, in a loop.
#[differentiable]
fn curvature(w: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..w.len() - 2 {
        s += bend(&w[k..k + 3]);
    }
    s
}

#[differentiable]
fn bend(t: &[f64]) -> f64 {
    let d = t[0] - 2.0 * t[1] + t[2];
    d * d
}

/// A sub-slice taken in a branch, then read and iterated.
#[differentiable]
fn tail_energy(w: &[f64], skip: bool) -> f64 {
    let mut s = w.len() as f64;
    if skip {
        let t = &w[1..];
        s += t[0] * t[1];
        for v in t {
            s += v.sin();
        }
    } else {
        s += 1.0;
    }
    s
}

/// The row of a matrix lent to a helper that reads it with another array (by index: the user's form here).
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn scores(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        s += (dot(&m[i], x) - 0.5).powi(2);
    }
    s
}

#[differentiable]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..a.len() {
        s += a[j] * b[j];
    }
    s
}

/// `[m.flatten(), x]`, and the gradient back in the matrix's shape.
fn flat(m: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    m.iter().flatten().chain(x).copied().collect()
}

fn unflat(v: &[f64], rows: usize, cols: usize) -> (Vec<Vec<f64>>, Vec<f64>) {
    let m = v[..rows * cols].chunks(cols).map(<[f64]>::to_vec).collect();
    (m, v[rows * cols..].to_vec())
}

type MatrixFn = fn(&[Vec<f64>], &[f64]) -> f64;
type MatrixGrad = fn(&[Vec<f64>], &[f64]) -> (f64, (Vec<Vec<f64>>, Vec<f64>));

#[test]
fn rows_of_an_active_matrix_against_differences_and_by_hand() {
    let cases: [(&str, MatrixFn, MatrixGrad); 5] = [
        ("quad_hoisted", quad_hoisted, quad_hoisted_grad),
        ("quad_inner", quad_inner, quad_inner_grad),
        ("layer", layer, layer_grad),
        ("scores", scores, scores_grad),
        (
            "quad_hoisted (same as quad_inner)",
            quad_inner,
            quad_hoisted_grad,
        ),
    ];
    let (rows, cols) = (4, 4);
    for (name, f, grad) in cases {
        for p in points(42_001, rows * cols + cols, 12, -1.5, 1.5) {
            let (m, x) = unflat(&p, rows, cols);
            let (value, (dm, dx)) = grad(&m, &x);
            assert!(
                (value - f(&m, &x)).abs() <= 1e-12 * (1.0 + value.abs()),
                "{name}"
            );
            let g = flat(&dm, &dx);
            assert_fd_gradient(
                |v| {
                    let (m, x) = unflat(v, rows, cols);
                    f(&m, &x)
                },
                &p,
                &g,
                name,
            );
        }
    }
    // By hand: d/dm_ij of x_i m_ij x_j is x_i x_j; d/dx_k is Σ_j m_kj x_j + Σ_i x_i m_ik.
    let mut r = Inputs(42_002);
    for _ in 0..10 {
        let (m, x) = (r.rows(3, 3), r.vec(3));
        let (_, (dm, dx)) = quad_hoisted_grad(&m, &x);
        for i in 0..3 {
            for j in 0..3 {
                assert!((dm[i][j] - x[i] * x[j]).abs() < 1e-12);
            }
            let by_hand: f64 = (0..3).map(|j| m[i][j] * x[j] + x[j] * m[j][i]).sum();
            assert!((dx[i] - by_hand).abs() < 1e-12);
        }
        // d/dm_ij of tanh(z_i) is (1 - tanh² z_i) x_j.
        let (_, (dm, _)) = layer_grad(&m, &x);
        for i in 0..3 {
            let t = common::dot(&m[i], &x).tanh();
            for j in 0..3 {
                assert!((dm[i][j] - (1.0 - t * t) * x[j]).abs() < 1e-12);
            }
        }
    }
}

#[test]
fn sub_slices_of_a_slice_parameter_against_differences_and_by_hand() {
    for p in points(42_003, 7, 12, -2.0, 2.0) {
        let (value, g) = curvature_grad(&p);
        assert!((value - curvature(&p)).abs() <= 1e-12 * (1.0 + value.abs()));
        assert_fd_gradient(curvature, &p, &g, "curvature");
        // By hand: each bend d_k = w_k - 2 w_{k+1} + w_{k+2} adds 2 d_k (1, -2, 1) at k.
        let mut by_hand = vec![0.0; p.len()];
        for k in 0..p.len() - 2 {
            let d = p[k] - 2.0 * p[k + 1] + p[k + 2];
            by_hand[k] += 2.0 * d;
            by_hand[k + 1] -= 4.0 * d;
            by_hand[k + 2] += 2.0 * d;
        }
        assert_all_close(&g, &by_hand, 1e-12, "curvature by hand");
        for skip in [true, false] {
            let (_, g) = tail_energy_grad(&p, skip);
            assert_fd_gradient(|w| tail_energy(w, skip), &p, &g, "tail_energy");
            let mut by_hand = vec![0.0; p.len()];
            if skip {
                by_hand[1] += p[2];
                by_hand[2] += p[1];
                for k in 1..p.len() {
                    by_hand[k] += p[k].cos();
                }
            }
            assert_all_close(&g, &by_hand, 1e-12, "tail_energy by hand");
        }
    }
}

#[test]
fn grad_into_of_sub_slices_allocates_nothing() {
    let w: Vec<f64> = Inputs(42_004).vec(64);
    let mut g = vec![f64::NAN; w.len()];
    let value = curvature_grad_into(&w, &mut g);
    let (expected, expected_g) = curvature_grad(&w);
    assert_eq!(value.to_bits(), expected.to_bits());
    assert_eq!(g, expected_g);
    let n = allocations_during(|| {
        curvature_grad_into(&w, &mut g);
    });
    assert_eq!(n, 0, "curvature_grad_into allocated {n} times");
    let n = allocations_during(|| {
        tail_energy_grad_into(&w, true, &mut g);
    });
    assert_eq!(n, 0, "tail_energy_grad_into allocated {n} times");
}
