//! A matrix made of arrays the body names (`let ends = [u, b];` of two `[f64; 3]` points, `[p, q, r]` of a
//! triangle's corners): a `[[f64; 3]; 2]` whose rows are copies of theirs, as in Rust. Values against the
//! plain functions, gradients against central differences, Hessians against differences of `_grad`.

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

/// A rod of two end points and the segments of a polyline between them (trial47's form).
#[differentiable(order = 2)]
fn rod(x: &[f64]) -> f64 {
    let u = [x[0], x[1], x[2]];
    let b = [x[3], x[4], x[5]];
    let ends = [u, b];
    let mut prev = ends[0];
    let mut s = 0.0;
    for k in 0..2 {
        let p = [x[k] * x[k + 1], x[k + 2], x[k + 3].sin()];
        s += (p[0] - prev[0]) * (p[1] - prev[1]) + p[2] * prev[2];
        prev = p;
    }
    s + prev[2] * ends[1][2] + ends[1][0] * ends[0][1]
}

fn rod_plain(x: &[f64]) -> f64 {
    let ends = [[x[0], x[1], x[2]], [x[3], x[4], x[5]]];
    let mut prev = ends[0];
    let mut s = 0.0;
    for k in 0..2 {
        let p = [x[k] * x[k + 1], x[k + 2], x[k + 3].sin()];
        s += (p[0] - prev[0]) * (p[1] - prev[1]) + p[2] * prev[2];
        prev = p;
    }
    s + prev[2] * ends[1][2] + ends[1][0] * ends[0][1]
}

#[test]
fn a_matrix_of_two_named_points() {
    let mut inputs = Inputs(47_101);
    for _ in 0..12 {
        let x = inputs.vec(6);
        let (value, grad) = rod_grad(&x);
        assert_eq!(value, rod_plain(&x), "value at {x:?}");
        assert_fd_gradient(rod_plain, &x, &grad, "rod_grad");
        let (_, _, h) = rod_hessian(&x);
        assert_hessian_fd(&h, |y| rod_grad(y).1, &x, 1e-6, "rod_hessian");
    }
}

/// The area of a triangle of three corners passed as points, through a matrix of them.
#[differentiable(wrt(p, q, r))]
fn area(p: [f64; 2], q: [f64; 2], r: [f64; 2], scale: f64) -> f64 {
    let tri = [p, q, r];
    let mut twice = 0.0;
    for k in 0..3 {
        let next = (k + 1) % 3;
        twice += tri[k][0] * tri[next][1] - tri[next][0] * tri[k][1];
    }
    0.5 * scale * twice
}

#[test]
fn a_matrix_of_array_parameters() {
    let mut inputs = Inputs(47_102);
    for _ in 0..12 {
        let v = inputs.vec(6);
        let (p, q, r) = ([v[0], v[1]], [v[2], v[3]], [v[4], v[5]]);
        let (value, (gp, gq, gr)) = area_grad(p, q, r, 2.0);
        assert_eq!(value, area(p, q, r, 2.0), "value at {v:?}");
        let expected = (q[0] - p[0]) * (r[1] - p[1]) - (r[0] - p[0]) * (q[1] - p[1]);
        assert_close(
            value,
            expected,
            1e-12,
            "twice the signed area, scaled by 2 and halved",
        );
        // d/dp of the cross product, by hand.
        assert_all_close(&gp, &[q[1] - r[1], r[0] - q[0]], 1e-12, "d area / dp");
        assert_all_close(&gq, &[r[1] - p[1], p[0] - r[0]], 1e-12, "d area / dq");
        assert_all_close(&gr, &[p[1] - q[1], q[0] - p[0]], 1e-12, "d area / dr");
    }
}

/// The rows are copies: writing a source after the matrix is made, or the matrix after, leaves the
/// other as it was.
#[differentiable(order = 2)]
fn copies(x: &[f64]) -> f64 {
    let mut u = [x[0], x[1]];
    let v = [0.0; 2];
    let mut m = [u, v, u];
    u[0] = x[1] * x[1];
    m[1][1] = x[0] * u[0];
    m[2][0] *= 3.0;
    m[0][0] * m[1][1] + m[2][0] * u[0] + m[1][0] + m[2][1].exp()
}

fn copies_plain(x: &[f64]) -> f64 {
    let mut u = [x[0], x[1]];
    let v = [0.0; 2];
    let mut m = [u, v, u];
    u[0] = x[1] * x[1];
    m[1][1] = x[0] * u[0];
    m[2][0] *= 3.0;
    m[0][0] * m[1][1] + m[2][0] * u[0] + m[1][0] + m[2][1].exp()
}

#[test]
fn the_rows_are_copies_of_the_named_arrays() {
    let mut inputs = Inputs(47_103);
    for _ in 0..12 {
        let x = inputs.vec(2);
        let (value, grad) = copies_grad(&x);
        assert_eq!(value, copies_plain(&x), "value at {x:?}");
        // x0 * x0 x1^2 + 3 x0 x1^2 + exp(x1)
        let expected = [
            2.0 * x[0] * x[1] * x[1] + 3.0 * x[1] * x[1],
            2.0 * x[0] * x[0] * x[1] + 6.0 * x[0] * x[1] + x[1].exp(),
        ];
        assert_all_close(&grad, &expected, 1e-12, "copies_grad");
        let (_, _, h) = copies_hessian(&x);
        assert_hessian_fd(&h, |y| copies_grad(y).1, &x, 1e-6, "copies_hessian");
    }
}
