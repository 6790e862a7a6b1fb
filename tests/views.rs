//! Reads through views (`autodiff-macros/src/views.rs`): a loop's reads at its index plus an offset it does
//! not change go through a sub-slice taken before the loop. Checked here where the offsets and ranges make
//! the sub-slice easy to get wrong: a packed triangle read by a counter (GMM's; not through a view) beside
//! reads that are, a reversed loop, an inclusive range, ranges that start past zero, and loops that do
//! not run with offsets past the end of the array (where taking the sub-slice would panic). Values equal
//! the function's own, gradients match central differences, tangents the gradients, and Hessians
//! (`order = 2`) central differences of `_grad`, at many random points.

// Index loops, counters and empty ranges are what is under test.
#![allow(
    clippy::needless_range_loop,
    clippy::explicit_counter_loop,
    clippy::eq_op,
    clippy::reversed_empty_ranges
)]

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, config, fd_jacobian, ANALYTIC_TOL};
use proptest::prelude::*;

/// `|q|^2` for `q = diag(e^a) c + L c`, `L` strictly lower triangular and packed row by row in `l`
/// (read by a counter, as GMM reads it).
#[differentiable(order = 2)]
fn packed_triangle(a: &[f64], l: &[f64], c: &[f64]) -> f64 {
    let d = c.len();
    let mut q = vec![0.0; d];
    for j in 0..d {
        q[j] = a[j].exp() * c[j];
    }
    let mut li = 0;
    for i in 0..d {
        for j in i + 1..d {
            q[j] += l[li] * c[i];
            li += 1;
        }
    }
    let mut s = 0.0;
    for j in 0..d {
        s += q[j] * q[j];
    }
    s
}

/// A reversed loop reading `x[i + 1]` and `y[i]`, an inclusive range at an offset, and a range that starts
/// past zero reading a row of a matrix.
#[differentiable(order = 2)]
fn offsets(x: &[f64], y: &[f64], off: usize, cols: usize) -> f64 {
    let n = y.len();
    let mut s = 0.0;
    for i in (0..n - 1).rev() {
        s = s * 0.5 + x[i + 1] * y[i];
    }
    for i in 1..=2 {
        s += x[off + i] * x[off + i];
    }
    for r in 0..2 {
        for c in 1..cols {
            s += (x[r * cols + c] * y[c]).sin();
        }
    }
    s
}

/// Loops that do not run, whose offsets point past the end of `x`: nothing may be read or sliced.
#[differentiable]
fn loops_that_do_not_run(x: &[f64], start: usize) -> f64 {
    let mut s = x[0] * x[0];
    for i in start..start {
        s += x[1000 + i];
    }
    for i in 0..start - start {
        s += x[x.len() + 5 + i];
    }
    let mut k = x.len() + 10;
    for i in 3..2 {
        s += x[k] * x[i];
        k += 1;
    }
    s
}

/// Reads of `n` elements from `off` and from 1: where `off + n` passes the end of `x`, the reads fail,
/// and so must the views that replace them (taken before the loop, cut to the trip count); where
/// `n` is 0, nothing is read or sliced, whatever `off`.
#[differentiable]
fn runs_past_the_end(x: &[f64], off: usize, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[off + i] * x[off + i];
    }
    for i in 1..n {
        s += x[i].sin();
    }
    s
}

#[track_caller]
fn check_hessian(hessian: &[Vec<f64>], grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], what: &str) {
    let fd = fd_jacobian(grad, x);
    for i in 0..x.len() {
        for j in 0..x.len() {
            assert_close(
                hessian[i][j],
                fd[i][j],
                1e-6,
                &format!("{what}: H[{i}][{j}]"),
            );
        }
    }
}

/// Splits the flat inputs of `packed_triangle` of dimension `d`: `a` (d), `l` (d (d - 1) / 2), `c` (d).
fn split(p: &[f64], d: usize) -> (&[f64], &[f64], &[f64]) {
    let (a, rest) = p.split_at(d);
    let (l, c) = rest.split_at(d * (d - 1) / 2);
    (a, l, c)
}

fn triangle_flat(p: &[f64], d: usize) -> f64 {
    let (a, l, c) = split(p, d);
    packed_triangle(a, l, c)
}

fn triangle_grad_flat(p: &[f64], d: usize) -> Vec<f64> {
    let (a, l, c) = split(p, d);
    let (_, (ga, gl, gc)) = packed_triangle_grad(a, l, c);
    [ga, gl, gc].concat()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn packed_triangle_derivatives(d in 1usize..6, seed in prop::collection::vec(-1.0..1.0f64, 40)) {
        let p: Vec<f64> = seed[..2 * d + d * (d - 1) / 2].to_vec();
        let (a, l, c) = split(&p, d);
        let (value, _) = packed_triangle_grad(a, l, c);
        assert_eq!(value, packed_triangle(a, l, c));
        let grad = triangle_grad_flat(&p, d);
        assert_fd_gradient(|p| triangle_flat(p, d), &p, &grad, "packed_triangle");
        let t: Vec<f64> = (0..p.len()).map(|i| 0.3 - 0.1 * i as f64).collect();
        let (ta, rest) = t.split_at(d);
        let (tl, tc) = rest.split_at(d * (d - 1) / 2);
        let (_, tangent) = packed_triangle_jvp(a, l, c, (ta.to_vec(), tl.to_vec(), tc.to_vec()));
        let dot: f64 = grad.iter().zip(&t).map(|(g, t)| g * t).sum();
        assert_close(tangent, dot, ANALYTIC_TOL, "packed_triangle tangent");
        let (_, _, hessian) = packed_triangle_hessian(a, l, c);
        check_hessian(&hessian, |p| triangle_grad_flat(p, d), &p, "packed_triangle");
    }

    #[test]
    fn offsets_derivatives(
        cols in 2usize..5,
        off in 0usize..3,
        seed in prop::collection::vec(-1.0..1.0f64, 40),
    ) {
        // x needs 2 cols elements for the rows, off + 3 for the inclusive range, n = cols for y.
        let nx = (2 * cols).max(off + 3);
        let (x, y) = (seed[..nx].to_vec(), seed[20..20 + cols].to_vec());
        let (value, (gx, gy)) = offsets_grad(&x, &y, off, cols);
        assert_eq!(value, offsets(&x, &y, off, cols));
        assert_fd_gradient(|x| offsets(x, &y, off, cols), &x, &gx, "offsets in x");
        assert_fd_gradient(|y| offsets(&x, y, off, cols), &y, &gy, "offsets in y");
        let (tx, ty) = (vec![0.5; x.len()], vec![-0.25; y.len()]);
        let (_, tangent) = offsets_jvp(&x, &y, off, cols, (tx.clone(), ty.clone()));
        let dot: f64 = gx.iter().zip(&tx).chain(gy.iter().zip(&ty)).map(|(g, t)| g * t).sum();
        assert_close(tangent, dot, ANALYTIC_TOL, "offsets tangent");
        let (_, _, hessian) = offsets_hessian(&x, &y, off, cols);
        let flat = [&x[..], &y[..]].concat();
        let grad = |p: &[f64]| {
            let (x, y) = p.split_at(nx);
            let (_, (gx, gy)) = offsets_grad(x, y, off, cols);
            [gx, gy].concat()
        };
        check_hessian(&hessian, grad, &flat, "offsets");
    }

    #[test]
    fn loops_that_do_not_run_slice_nothing(x in prop::collection::vec(-1.0..1.0f64, 1..5), start in 0usize..4) {
        let (value, grad) = loops_that_do_not_run_grad(&x, start);
        assert_eq!(value, loops_that_do_not_run(&x, start));
        let mut expected = vec![0.0; x.len()];
        expected[0] = 2.0 * x[0];
        assert_eq!(grad, expected);
        let (_, tangent) = loops_that_do_not_run_jvp(&x, start, vec![1.0; x.len()]);
        assert_close(tangent, 2.0 * x[0], ANALYTIC_TOL, "tangent");
    }

    #[test]
    fn views_fail_exactly_where_the_reads_do(
        x in prop::collection::vec(-1.0..1.0f64, 1..8),
        off in 0usize..10,
        n in 0usize..10,
    ) {
        let fails = |f: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
        let reads_fail = (n > 0 && off + n > x.len()) || n > x.len();
        assert_eq!(fails(&|| { runs_past_the_end(&x, off, n); }), reads_fail, "the primal");
        assert_eq!(fails(&|| { runs_past_the_end_grad(&x, off, n); }), reads_fail, "_grad");
        assert_eq!(
            fails(&|| { runs_past_the_end_jvp(&x, off, n, vec![1.0; x.len()]); }),
            reads_fail,
            "_jvp"
        );
        if !reads_fail {
            let (value, grad) = runs_past_the_end_grad(&x, off, n);
            assert_eq!(value, runs_past_the_end(&x, off, n));
            let mut expected = vec![0.0; x.len()];
            for i in 0..n {
                expected[off + i] += 2.0 * x[off + i];
            }
            for i in 1..n {
                expected[i] += x[i].cos();
            }
            for (g, e) in grad.iter().zip(&expected) {
                assert_close(*g, *e, ANALYTIC_TOL, "runs_past_the_end gradient");
            }
            assert_fd_gradient(|x| runs_past_the_end(x, off, n), &x, &grad, "runs_past_the_end");
        }
    }
}
