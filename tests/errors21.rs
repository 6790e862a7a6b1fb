//! errors21: a row of a constant matrix from outside the function bound to a local without a type
//! (`let row = DESIGN[i];`), passed on by reference (`dot3(&row, x)`) or read by index (`row[j]`), in a
//! loop and outside one, at first order and at `order = 2`. It was rustc's E0308 in the generic copy (`constant::<__S, _>(DESIGN[i])`
//! was taken for a call that makes an array). Every gradient is checked against central differences and
//! against the derivative worked out by hand; the Hessians against central differences of `f_grad` and
//! the exact ones.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::probe::*;

const POINTS: usize = 12;

pub const DESIGN: [[f64; 3]; 2] = [[1.0, 0.5, -1.0], [0.3, 2.0, 0.1]];

pub static WEIGHTS: [[f64; 3]; 3] = [[0.2, -0.4, 1.5], [2.0, 0.0, 0.7], [-1.1, 0.9, 0.3]];

mod tables {
    pub const SHIFT: [[f64; 3]; 2] = [[0.5, 0.25, 0.125], [-1.0, 1.0, -1.0]];
}

#[differentiable(order = 2)]
pub fn dot3(row: &[f64; 3], x: &[f64]) -> f64 {
    row[0] * x[0] + row[1] * x[1] + row[2] * x[2]
}

/// The brief's program, first order only.
#[differentiable]
pub fn b(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..2 {
        let row = DESIGN[i];
        f += dot3(&row, x);
    }
    f
}

/// Least squares over the rows: `Σ (D_i·x - 1)²`, each row an untyped local.
#[differentiable(order = 2)]
pub fn rows_in_loop(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..2 {
        let row = DESIGN[i];
        let r = dot3(&row, x) - 1.0;
        f += r * r;
    }
    f
}

/// Outside a loop: one row of a `const`, one of a `static`, one through a module.
#[differentiable(order = 2)]
pub fn rows_straight(x: &[f64]) -> f64 {
    let a = DESIGN[1];
    let w = WEIGHTS[2];
    let s = tables::SHIFT[0];
    dot3(&a, x) * dot3(&w, x) + dot3(&s, x).sin()
}

/// The row of a loop over `0..3` bound in a nested loop, and used twice.
#[differentiable(order = 2)]
pub fn rows_nested(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for k in 0..2 {
        for i in 0..3 {
            let row = WEIGHTS[i];
            let d = dot3(&row, x);
            f += (d * x[k]).exp() * 0.1 + dot3(&row, x) * d;
        }
    }
    f
}

/// The untyped row read by index (`row[j]`) as the matrix is, beside passed on.
#[differentiable(order = 2)]
pub fn rows_indexed(x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..3 {
        let row = WEIGHTS[i];
        let mut s = 0.0;
        for j in 0..3 {
            s += row[j] * x[j] * x[j];
        }
        f += s * dot3(&row, x) + (row[i] * x[i]).tanh();
    }
    f
}

fn d(row: &[f64; 3], x: &[f64]) -> f64 {
    row[0] * x[0] + row[1] * x[1] + row[2] * x[2]
}

/// `slice(..)` and `f_hessian` of a function of one slice.
macro_rules! sl {
    ($f:ident, $g:ident, $j:ident, $gi:ident) => {
        slice(stringify!($f), $f, $g, $j, $gi)
    };
    ($f:ident, $g:ident, $j:ident, $gi:ident, $h:ident) => {
        slice(stringify!($f), $f, $g, $j, $gi).hessian($h)
    };
}

#[test]
fn brief_program() {
    sl!(b, b_grad, b_jvp, b_grad_into)
        .analytic(|_| (0..3).map(|j| DESIGN[0][j] + DESIGN[1][j]).collect())
        .run(POINTS, |r| r.vec(3, -2.0, 2.0));
}

#[test]
fn rows_bound_in_a_loop() {
    sl!(
        rows_in_loop,
        rows_in_loop_grad,
        rows_in_loop_jvp,
        rows_in_loop_grad_into,
        rows_in_loop_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; 3];
        for row in DESIGN {
            let r = d(&row, x) - 1.0;
            for j in 0..3 {
                g[j] += 2.0 * r * row[j];
            }
        }
        g
    })
    .run(POINTS, |r| r.vec(3, -2.0, 2.0));
    // The Hessian is 2 DᵀD everywhere.
    let (_, _, h) = rows_in_loop_hessian(&[0.1, -0.2, 0.3]);
    for i in 0..3 {
        for j in 0..3 {
            let e: f64 = DESIGN.iter().map(|row| 2.0 * row[i] * row[j]).sum();
            assert_near(h[i][j], e, 1e-12, 0.0, "rows_in_loop: H = 2 DᵀD");
        }
    }
}

#[test]
fn rows_bound_outside_a_loop() {
    sl!(
        rows_straight,
        rows_straight_grad,
        rows_straight_jvp,
        rows_straight_grad_into,
        rows_straight_hessian
    )
    .analytic(|x| {
        let (a, w, s) = (DESIGN[1], WEIGHTS[2], tables::SHIFT[0]);
        let (da, dw, ds) = (d(&a, x), d(&w, x), d(&s, x));
        (0..3)
            .map(|j| a[j] * dw + da * w[j] + ds.cos() * s[j])
            .collect()
    })
    .run(POINTS, |r| r.vec(3, -2.0, 2.0));
    // H = a wᵀ + w aᵀ - sin(s·x) s sᵀ.
    let x = [0.4, -0.7, 1.2];
    let (_, _, h) = rows_straight_hessian(&x);
    let (a, w, s) = (DESIGN[1], WEIGHTS[2], tables::SHIFT[0]);
    for i in 0..3 {
        for j in 0..3 {
            let e = a[i] * w[j] + w[i] * a[j] - d(&s, &x).sin() * s[i] * s[j];
            assert_near(h[i][j], e, 1e-12, 1.0, "rows_straight: exact Hessian");
        }
    }
}

#[test]
fn rows_bound_in_nested_loops() {
    sl!(
        rows_nested,
        rows_nested_grad,
        rows_nested_jvp,
        rows_nested_grad_into,
        rows_nested_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; 3];
        for k in 0..2 {
            for row in WEIGHTS {
                let dv = d(&row, x);
                let e = (dv * x[k]).exp() * 0.1;
                for j in 0..3 {
                    g[j] += e * x[k] * row[j] + 2.0 * dv * row[j];
                }
                g[k] += e * dv;
            }
        }
        g
    })
    .run(POINTS, |r| r.vec(3, -1.0, 1.0));
}

#[test]
fn rows_read_by_index() {
    sl!(
        rows_indexed,
        rows_indexed_grad,
        rows_indexed_jvp,
        rows_indexed_grad_into,
        rows_indexed_hessian
    )
    .analytic(|x| {
        let mut g = vec![0.0; 3];
        for i in 0..3 {
            let row = WEIGHTS[i];
            let s: f64 = (0..3).map(|j| row[j] * x[j] * x[j]).sum();
            let dv = d(&row, x);
            for j in 0..3 {
                g[j] += 2.0 * row[j] * x[j] * dv + s * row[j];
            }
            let t = (row[i] * x[i]).tanh();
            g[i] += (1.0 - t * t) * row[i];
        }
        g
    })
    .run(POINTS, |r| r.vec(3, -1.5, 1.5));
}

// ---------------------------------------------------------------------------------------------------
// An output's `iter_mut()` zipped with rows (`&[Vec<f64>]`, not `Copy`; and `&[[f64; 2]]`): each row is
// bound by reference (`let row = &rows[i];`) in the counted loop the macro writes. Moved out of the slice
// it was rustc's E0507 in the generated code.

/// `out_i = sin(rows_i · x)`.
#[differentiable]
pub fn rows_out(rows: &[Vec<f64>], x: &[f64], out: &mut [f64]) {
    for (o, row) in out.iter_mut().zip(rows) {
        let mut s = 0.0;
        for j in 0..row.len() {
            s += row[j] * x[j];
        }
        *o = s.sin();
    }
}

/// `out_i = (r_i0 x_0 + r_i1 x_1) x_i` of fixed-size rows, enumerated.
#[differentiable]
pub fn pairs_out(rows: &[[f64; 2]], x: &[f64], out: &mut [f64]) {
    for (i, (o, r)) in out.iter_mut().zip(rows.iter()).enumerate() {
        *o = (r[0] * x[0] + r[1] * x[1]) * x[i];
    }
}

/// The Jacobian of an output function of `(rows, x)`, its inputs flat as `[rows.., x..]`.
fn check_rows_jacobian(
    what: &str,
    j: &[Vec<f64>],
    flat: &[f64],
    primal: impl Fn(&[f64]) -> Vec<f64>,
    analytic: &[Vec<f64>],
) {
    common::assert_jacobian(
        j,
        &common::fd_jacobian(primal, flat),
        &format!("{what} vs FD"),
    );
    common::assert_jacobian(j, analytic, &format!("{what} vs by hand"));
}

#[test]
fn output_zipped_with_vec_rows() {
    let mut rng = Lcg::new(21);
    for _ in 0..POINTS {
        let (n, m) = (3, 2);
        let flat_rows = rng.vec(n * m, -1.5, 1.5);
        let rows: Vec<Vec<f64>> = flat_rows.chunks(m).map(<[f64]>::to_vec).collect();
        let x = rng.vec(m, -1.5, 1.5);
        let mut out = vec![0.0; n];
        let j = rows_out_jacobian(&rows, &x, &mut out);
        let flat: Vec<f64> = flat_rows.iter().chain(&x).copied().collect();
        let primal = |v: &[f64]| {
            let rows: Vec<Vec<f64>> = v[..n * m].chunks(m).map(<[f64]>::to_vec).collect();
            let mut o = vec![0.0; n];
            rows_out(&rows, &v[n * m..], &mut o);
            o
        };
        let analytic: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let c = (0..m).map(|k| rows[i][k] * x[k]).sum::<f64>().cos();
                let mut row = vec![0.0; n * m + m];
                for k in 0..m {
                    row[i * m + k] = c * x[k];
                    row[n * m + k] = c * rows[i][k];
                }
                row
            })
            .collect();
        check_rows_jacobian("rows_out", &j, &flat, primal, &analytic);
        let expected: Vec<f64> = (0..n)
            .map(|i| (0..m).map(|k| rows[i][k] * x[k]).sum::<f64>().sin())
            .collect();
        common::assert_all_close(&out, &expected, 1e-15, "rows_out: outputs written");
    }
}

#[test]
fn output_zipped_with_array_rows() {
    let mut rng = Lcg::new(22);
    for _ in 0..POINTS {
        let n = 2;
        let flat_rows = rng.vec(2 * n, -1.5, 1.5);
        let rows: Vec<[f64; 2]> = flat_rows.chunks(2).map(|c| [c[0], c[1]]).collect();
        let x = rng.vec(2, -1.5, 1.5);
        let mut out = vec![0.0; n];
        let j = pairs_out_jacobian(&rows, &x, &mut out);
        let flat: Vec<f64> = flat_rows.iter().chain(&x).copied().collect();
        let primal = |v: &[f64]| {
            let rows: Vec<[f64; 2]> = v[..2 * n].chunks(2).map(|c| [c[0], c[1]]).collect();
            let mut o = vec![0.0; n];
            pairs_out(&rows, &v[2 * n..], &mut o);
            o
        };
        let analytic: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let s = rows[i][0] * x[0] + rows[i][1] * x[1];
                let mut row = vec![0.0; 2 * n + 2];
                for k in 0..2 {
                    row[2 * i + k] = x[k] * x[i];
                    row[2 * n + k] = rows[i][k] * x[i];
                }
                row[2 * n + i] += s;
                row
            })
            .collect();
        check_rows_jacobian("pairs_out", &j, &flat, primal, &analytic);
    }
}
