//! Inactive matrices read by element in place (`matrix_reads.rs`): a data matrix `x: &[Vec<f64>]` (or
//! `[[f64; 3]; 3]`, or `&[Vec<T>]` of a generic `T: Float`) that `wrt(..)` leaves out, read `x[i][j]`, is
//! read where it is, `__matrix_x[i][j]`, instead of copied flat with its row offsets at every call. Every
//! function here is checked against central differences of its value at seeded points and against its
//! gradient written by hand; `_grad_into` against `_grad` bit for bit and for its allocations (none, as the
//! function makes none); `_jvp` against the gradient; the Hessian of `order = 2` against the one written by
//! hand and differences of `_grad`; and a ragged matrix read past a row's end panics in the generated
//! items as in the function (the flat copy read the next row's first element instead).

mod common;
#[path = "common/counting.rs"]
mod counting;

use autodiff::{differentiable, Float};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, dot, Inputs};
use counting::allocations_during;

/// The reference adjoint (feature `reference-adjoint`) reads every matrix flat and stores on tapes, which
/// allocate: the reverse sweeps' allocation counts are those of the optimised adjoint.
const OPTIMISED: bool = !cfg!(feature = "reference-adjoint");

/// Asserts that the reverse sweep `case` allocated nothing (`n` times), in the optimised adjoint.
#[track_caller]
fn assert_allocates_nothing(case: &str, n: usize) {
    assert!(n == 0 || !OPTIMISED, "{case} allocated {n} times");
}

/// Least squares, `Σ_i (x_i · w - y_i)^2`, the data read by element in a double loop.
#[differentiable(wrt(w), order = 2)]
fn lsq(w: &[f64], x: &[Vec<f64>], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut p = 0.0;
        for j in 0..w.len() {
            p += x[i][j] * w[j];
        }
        let r = p - y[i];
        s += r * r;
    }
    s
}

/// The same with the rows zipped with `w`, and one element read besides (a bias column).
#[differentiable(wrt(w))]
fn lsq_rows(w: &[f64], x: &[Vec<f64>], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let p: f64 = x[i].iter().zip(w).map(|(a, b)| a * b).sum();
        let r = p + x[i][0] * w[0] - y[i];
        s += r * r;
    }
    s
}

/// Logistic loss, `Σ_i ln(1 + exp(-y_i x_i · w))`: the elements needed again in a reverse sweep that is not
/// fused into the forward one (a nonlinear function of the row's sum), the rows taken from the last.
#[differentiable(wrt(w))]
fn logistic(w: &[f64], x: &[Vec<f64>], y: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for k in 0..n {
        let i = n - 1 - k;
        let mut z = 0.0;
        for j in 0..w.len() {
            if x[i][j] > 0.0 {
                z += x[i][j] * w[j];
            } else {
                z += 0.5 * x[i][j] * w[j].sin();
            }
        }
        s += (1.0 + (-y[i] * z).exp()).ln();
    }
    s
}

/// `lsq` through its companion, differentiated in the data too: `lsq`'s own items read `x` in place, the
/// companion's sweeps through every parameter (`__vjp_all`) read it flat, from the same lowered function.
#[differentiable]
fn lsq_in_all(w: &[f64], x: &[Vec<f64>], y: &[f64]) -> f64 {
    lsq(w, x, y)
}

/// A ragged matrix read to each row's own length: `Σ_i tanh(Σ_{j < |x_i|} x_ij w_j)` (by index, the form
/// under test: `x[i].len()`).
#[allow(clippy::needless_range_loop)]
#[differentiable(wrt(w))]
fn ragged(w: &[f64], x: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut z = 0.0;
        for j in 0..x[i].len() {
            z += x[i][j] * w[j];
        }
        s += z.tanh();
    }
    s
}

/// A quadratic form `w^T A w` of a constant fixed-size matrix.
#[differentiable(wrt(w))]
fn quad(w: &[f64; 3], a: [[f64; 3]; 3]) -> f64 {
    let mut s = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            s += w[i] * a[i][j] * w[j];
        }
    }
    s
}

/// Least squares over a generic float, with `order = 2`.
#[differentiable(wrt(w), order = 2)]
fn lsq_t<T: Float>(w: &[T], x: &[Vec<T>], y: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..x.len() {
        let mut p = T::zero();
        for j in 0..w.len() {
            p = p + x[i][j] * w[j];
        }
        let r = p - y[i];
        s = s + r * r;
    }
    s
}

/// A data set of `m` rows of `n` features and `m` targets.
fn data(seed: u64, m: usize, n: usize) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut r = Inputs(seed);
    (r.rows(m, n), r.vec(m))
}

/// `X w - y`.
fn residuals(w: &[f64], x: &[Vec<f64>], y: &[f64]) -> Vec<f64> {
    x.iter().zip(y).map(|(row, yi)| dot(row, w) - yi).collect()
}

/// `2 X^T (X w - y)`, by hand.
fn lsq_by_hand(w: &[f64], x: &[Vec<f64>], y: &[f64]) -> Vec<f64> {
    let r = residuals(w, x, y);
    (0..w.len())
        .map(|j| 2.0 * x.iter().zip(&r).map(|(row, ri)| row[j] * ri).sum::<f64>())
        .collect()
}

/// `2 X^T X`, by hand.
fn lsq_hessian_by_hand(x: &[Vec<f64>], n: usize) -> Vec<Vec<f64>> {
    (0..n)
        .map(|a| {
            (0..n)
                .map(|b| 2.0 * x.iter().map(|row| row[a] * row[b]).sum::<f64>())
                .collect()
        })
        .collect()
}

#[test]
fn least_squares_read_by_element_matches_by_hand_and_differences() {
    for seed in 0..12u64 {
        let (x, y) = data(4300 + seed, 7, 4);
        let w = Inputs(9100 + seed).vec(4);
        let (value, grad) = lsq_grad(&w, &x, &y);
        let what = format!("lsq seed {seed}");
        assert_close(value, lsq(&w, &x, &y), 1e-12, &what);
        assert_all_close(&grad, &lsq_by_hand(&w, &x, &y), 1e-10, &what);
        assert_fd_gradient(|w| lsq(w, &x, &y), &w, &grad, &what);
        // The same for the generic copy at `f64`.
        let (value_t, grad_t) = lsq_t_grad(&w, &x, &y);
        assert_close(value_t, value, 1e-12, &what);
        assert_all_close(&grad_t, &grad, 1e-12, &what);
        // Forward mode: the derivative along `t` is the gradient's dot product with it.
        let t = Inputs(700 + seed).vec(4);
        let (v, d) = lsq_jvp(&w, &x, &y, t.clone());
        assert_close(v, value, 1e-12, &what);
        assert_close(d, dot(&grad, &t), 1e-10, &what);
        let (_, d_t) = lsq_t_jvp(&w, &x, &y, t.clone());
        assert_close(d_t, dot(&grad, &t), 1e-10, &what);
    }
}

#[test]
fn a_caller_differentiating_through_the_data_matrix_gets_its_gradient() {
    for seed in 0..10u64 {
        let (x, y) = data(5000 + seed, 5, 3);
        let w = Inputs(9600 + seed).vec(3);
        let what = format!("lsq_in_all seed {seed}");
        let (value, (gw, gx, gy)) = lsq_in_all_grad(&w, &x, &y);
        assert_close(value, lsq(&w, &x, &y), 1e-12, &what);
        assert_all_close(&gw, &lsq_by_hand(&w, &x, &y), 1e-10, &what);
        // d/dx_ij = 2 r_i w_j, d/dy_i = -2 r_i.
        let r = residuals(&w, &x, &y);
        for (i, row) in gx.iter().enumerate() {
            let expected: Vec<f64> = w.iter().map(|wj| 2.0 * r[i] * wj).collect();
            assert_all_close(row, &expected, 1e-10, &what);
        }
        let expected: Vec<f64> = r.iter().map(|ri| -2.0 * ri).collect();
        assert_all_close(&gy, &expected, 1e-10, &what);
        // Central differences in the data, row by row.
        for i in 0..x.len() {
            let f = |row: &[f64]| {
                let mut x = x.clone();
                x[i] = row.to_vec();
                lsq_in_all(&w, &x, &y)
            };
            assert_fd_gradient(f, &x[i], &gx[i], &what);
        }
    }
}

#[test]
fn rows_and_elements_together_match_by_hand_and_differences() {
    for seed in 0..12u64 {
        let (x, y) = data(4400 + seed, 6, 3);
        let w = Inputs(9200 + seed).vec(3);
        let (value, grad) = lsq_rows_grad(&w, &x, &y);
        let what = format!("lsq_rows seed {seed}");
        assert_close(value, lsq_rows(&w, &x, &y), 1e-12, &what);
        // `r_i = x_i · w + x_i0 w_0 - y_i`: d/dw_j = Σ 2 r_i (x_ij + [j = 0] x_i0).
        let r: Vec<f64> = (0..x.len())
            .map(|i| dot(&x[i], &w) + x[i][0] * w[0] - y[i])
            .collect();
        let by_hand: Vec<f64> = (0..3)
            .map(|j| {
                (0..x.len())
                    .map(|i| 2.0 * r[i] * (x[i][j] + if j == 0 { x[i][0] } else { 0.0 }))
                    .sum()
            })
            .collect();
        assert_all_close(&grad, &by_hand, 1e-10, &what);
        assert_fd_gradient(|w| lsq_rows(w, &x, &y), &w, &grad, &what);
        let t = Inputs(800 + seed).vec(3);
        let (_, d) = lsq_rows_jvp(&w, &x, &y, t.clone());
        assert_close(d, dot(&grad, &t), 1e-10, &what);
    }
}

#[test]
fn logistic_loss_read_by_element_in_reverse_matches_by_hand_and_differences() {
    for seed in 0..12u64 {
        let (x, mut y) = data(4500 + seed, 5, 4);
        for v in &mut y {
            *v = v.signum();
        }
        let w = Inputs(9300 + seed).vec(4);
        let (value, grad) = logistic_grad(&w, &x, &y);
        let what = format!("logistic seed {seed}");
        assert_close(value, logistic(&w, &x, &y), 1e-12, &what);
        // d/dw_j = Σ_i -y_i σ(-y_i z_i) dz_i/dw_j, dz_i/dw_j = x_ij (x_ij > 0) or 0.5 x_ij cos w_j.
        let mut by_hand = vec![0.0; 4];
        for i in 0..x.len() {
            let z: f64 = (0..4)
                .map(|j| match x[i][j] > 0.0 {
                    true => x[i][j] * w[j],
                    false => 0.5 * x[i][j] * w[j].sin(),
                })
                .sum();
            let s = 1.0 / (1.0 + (y[i] * z).exp());
            for j in 0..4 {
                let dz = match x[i][j] > 0.0 {
                    true => x[i][j],
                    false => 0.5 * x[i][j] * w[j].cos(),
                };
                by_hand[j] += -y[i] * s * dz;
            }
        }
        assert_all_close(&grad, &by_hand, 1e-10, &what);
        assert_fd_gradient(|w| logistic(w, &x, &y), &w, &grad, &what);
        let t = Inputs(900 + seed).vec(4);
        let (_, d) = logistic_jvp(&w, &x, &y, t.clone());
        assert_close(d, dot(&grad, &t), 1e-10, &what);
    }
}

#[test]
fn rows_read_to_their_own_lengths_match_by_hand_and_differences() {
    for seed in 0..12u64 {
        let mut r = Inputs(4900 + seed);
        let x: Vec<Vec<f64>> = (0..6).map(|i| r.vec(1 + (i + seed as usize) % 4)).collect();
        let w = r.vec(4);
        let (value, grad) = ragged_grad(&w, &x);
        let what = format!("ragged seed {seed}");
        assert_close(value, ragged(&w, &x), 1e-12, &what);
        let mut by_hand = vec![0.0; 4];
        for row in &x {
            let z: f64 = row.iter().zip(&w).map(|(a, b)| a * b).sum();
            let d = 1.0 - z.tanh() * z.tanh();
            for (j, a) in row.iter().enumerate() {
                by_hand[j] += d * a;
            }
        }
        assert_all_close(&grad, &by_hand, 1e-12, &what);
        assert_fd_gradient(|w| ragged(w, &x), &w, &grad, &what);
        let t = r.vec(4);
        let (_, d) = ragged_jvp(&w, &x, t.clone());
        assert_close(d, dot(&grad, &t), 1e-12, &what);
        let mut buffer = vec![0.0; 4];
        let into = ragged_grad_into(&w, &x, &mut buffer);
        assert_eq!(into.to_bits(), value.to_bits(), "{what}");
        assert_eq!(buffer, grad, "{what}");
        let n = allocations_during(|| {
            std::hint::black_box(ragged_grad_into(&w, &x, &mut buffer));
        });
        assert_allocates_nothing("ragged_grad_into", n);
    }
}

#[test]
fn quadratic_form_of_a_constant_fixed_size_matrix_matches_by_hand_and_differences() {
    for seed in 0..12u64 {
        let mut r = Inputs(4600 + seed);
        let a = [
            [r.next(), r.next(), r.next()],
            [r.next(), r.next(), r.next()],
            [r.next(), r.next(), r.next()],
        ];
        let w = [r.next(), r.next(), r.next()];
        let (value, grad) = quad_grad(&w, a);
        let what = format!("quad seed {seed}");
        assert_close(value, quad(&w, a), 1e-12, &what);
        // (A + A^T) w.
        let by_hand: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| (a[i][j] + a[j][i]) * w[j]).sum())
            .collect();
        assert_all_close(&grad, &by_hand, 1e-12, &what);
        let f = |w: &[f64]| quad(&[w[0], w[1], w[2]], a);
        assert_fd_gradient(f, &w, &grad, &what);
        let t = [r.next(), r.next(), r.next()];
        let (_, d) = quad_jvp(&w, a, t);
        assert_close(d, dot(&grad, &t), 1e-12, &what);
    }
}

#[test]
fn hessians_of_least_squares_are_two_x_transpose_x() {
    for seed in 0..10u64 {
        let (x, y) = data(4700 + seed, 6, 3);
        let w = Inputs(9400 + seed).vec(3);
        let what = format!("lsq hessian seed {seed}");
        let by_hand = lsq_hessian_by_hand(&x, 3);
        let (value, grad, h) = lsq_hessian(&w, &x, &y);
        assert_close(value, lsq(&w, &x, &y), 1e-12, &what);
        assert_all_close(&grad, &lsq_by_hand(&w, &x, &y), 1e-10, &what);
        for (row, expected) in h.iter().zip(&by_hand) {
            assert_all_close(row, expected, 1e-10, &what);
        }
        assert_hessian_fd(&h, |w| lsq_grad(w, &x, &y).1, &w, 1e-6, &what);
        let (_, _, h_t) = lsq_t_hessian(&w, &x, &y);
        for (row, expected) in h_t.iter().zip(&by_hand) {
            assert_all_close(row, expected, 1e-10, &what);
        }
        // Hessian times v.
        let v = Inputs(600 + seed).vec(3);
        let (_, _, hv) = lsq_hvp(&w, &x, &y, v.clone());
        let expected: Vec<f64> = by_hand.iter().map(|row| dot(row, &v)).collect();
        assert_all_close(&hv, &expected, 1e-10, &what);
    }
}

#[test]
fn grad_into_equals_grad_bit_for_bit_and_allocates_nothing() {
    let (x, y) = data(4800, 50, 6);
    let w = Inputs(9500).vec(6);
    let mut buffer = vec![0.0; 6];
    let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits());
    let primal = allocations_during(|| {
        std::hint::black_box(lsq(&w, &x, &y));
    });
    assert_eq!(primal, 0, "lsq");

    let (value, grad) = lsq_grad(&w, &x, &y);
    let into = lsq_grad_into(&w, &x, &y, &mut buffer);
    assert_eq!(into.to_bits(), value.to_bits(), "lsq");
    assert!(same(&buffer, &grad), "lsq: {buffer:?} against {grad:?}");
    let n = allocations_during(|| {
        std::hint::black_box(lsq_grad_into(&w, &x, &y, &mut buffer));
    });
    assert_allocates_nothing("lsq_grad_into", n);

    let (value, grad) = lsq_rows_grad(&w, &x, &y);
    let into = lsq_rows_grad_into(&w, &x, &y, &mut buffer);
    assert_eq!(into.to_bits(), value.to_bits(), "lsq_rows");
    assert!(same(&buffer, &grad), "lsq_rows");
    let n = allocations_during(|| {
        std::hint::black_box(lsq_rows_grad_into(&w, &x, &y, &mut buffer));
    });
    assert_allocates_nothing("lsq_rows_grad_into", n);

    let (value, grad) = logistic_grad(&w, &x, &y);
    let into = logistic_grad_into(&w, &x, &y, &mut buffer);
    assert_eq!(into.to_bits(), value.to_bits(), "logistic");
    assert!(same(&buffer, &grad), "logistic");

    let (value, grad) = lsq_t_grad(&w, &x, &y);
    let into = lsq_t_grad_into(&w, &x, &y, &mut buffer);
    assert_eq!(into.to_bits(), value.to_bits(), "lsq_t");
    assert!(same(&buffer, &grad), "lsq_t");
    let n = allocations_during(|| {
        std::hint::black_box(lsq_t_grad_into(&w, &x, &y, &mut buffer));
    });
    assert_allocates_nothing("lsq_t_grad_into", n);

    let a = [[0.5, -0.25, 1.0], [0.75, 0.1, -0.3], [0.2, 0.4, -0.9]];
    let v = [0.3, -0.7, 1.1];
    let mut g3 = [0.0; 3];
    let (value, grad) = quad_grad(&v, a);
    assert_eq!(quad_grad_into(&v, a, &mut g3).to_bits(), value.to_bits());
    assert!(same(&g3, &grad), "quad");
    let n = allocations_during(|| {
        std::hint::black_box(quad_grad_into(&v, a, &mut g3));
    });
    assert_allocates_nothing("quad_grad_into", n);

    // The forward mode reads the data matrix in place too: no allocation but the tangent's clone.
    let t = vec![0.5; 6];
    let n = allocations_during(|| {
        std::hint::black_box(lsq_jvp(&w, &x, &y, t.clone()));
    });
    assert_eq!(n, 1, "lsq_jvp (the tangent's clone)");
}

/// A ragged matrix whose short row is read past its end: the function panics, and so does each
/// generated item (reading the flat copy, they read the next row's first element instead).
#[test]
fn a_column_past_a_ragged_rows_end_panics_as_in_the_function() {
    let x = vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0], vec![6.0, 7.0, 8.0]];
    let (w, y) = (vec![0.5, -0.5, 0.25], vec![1.0, 2.0, 3.0]);
    let panics = |f: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    use std::hint::black_box;
    assert!(
        panics(&|| {
            black_box(lsq(&w, &x, &y));
        }),
        "lsq"
    );
    assert!(
        panics(&|| {
            black_box(lsq_jvp(&w, &x, &y, vec![1.0; 3]));
        }),
        "lsq_jvp"
    );
    // The reverse sweeps (the reference adjoint reads the matrix flat).
    let reverse: [(&str, &dyn Fn()); 5] = [
        ("lsq_grad", &|| drop(black_box(lsq_grad(&w, &x, &y)))),
        ("lsq_vjp", &|| drop(black_box(lsq_vjp(&w, &x, &y, 1.0)))),
        ("lsq_grad_into", &|| {
            black_box(lsq_grad_into(&w, &x, &y, &mut [0.0; 3]));
        }),
        ("lsq_t_grad", &|| drop(black_box(lsq_t_grad(&w, &x, &y)))),
        ("logistic_grad", &|| {
            drop(black_box(logistic_grad(&w, &x, &y)))
        }),
    ];
    for (name, item) in reverse {
        assert!(panics(item) || !OPTIMISED, "{name} read past the short row");
    }
    // A matrix whose rows are long enough is read as the function reads it, extra columns unread.
    let long = vec![
        vec![1.0, 2.0, 3.0, 9.0],
        vec![4.0, 5.0, 6.0],
        vec![6.0, 7.0, 8.0],
    ];
    let (value, grad) = lsq_grad(&w, &long, &y);
    assert_close(value, lsq(&w, &long, &y), 1e-12, "lsq, long rows");
    assert_all_close(&grad, &lsq_by_hand(&w, &long, &y), 1e-12, "lsq, long rows");
}
