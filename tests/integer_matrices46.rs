//! Parameters holding matrices of integers (a mesh's triangles `&[[usize; 3]]`, a graph's edges
//! `&[[usize; 2]]`, neighbour lists `&[Vec<usize>]`), read by index in differentiable bodies (session
//! 46: they were an error), at first and second order, against central differences.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;

#[differentiable]
fn edge_products(x: &[f64], edges: &[[usize; 2]]) -> f64 {
    let mut s = 0.0;
    for e in 0..edges.len() {
        s += x[edges[e][0]] * x[edges[e][1]].sin();
    }
    s
}

/// Sum of squared signed areas of a triangle mesh, its corners read from a copied row.
#[differentiable(order = 2)]
fn squared_areas(p: &[f64], tris: &[[usize; 3]]) -> f64 {
    let mut s = 0.0;
    for t in 0..tris.len() {
        let tri = tris[t];
        let (a, b, c) = (tri[0], tri[1], tri[2]);
        let ux = p[2 * b] - p[2 * a];
        let uy = p[2 * b + 1] - p[2 * a + 1];
        let vx = p[2 * c] - p[2 * a];
        let vy = p[2 * c + 1] - p[2 * a + 1];
        let area = 0.5 * (ux * vy - uy * vx);
        s += area * area;
    }
    s
}

#[differentiable(order = 2)]
fn smoothed(x: &[f64], edges: &[[usize; 2]]) -> f64 {
    edge_products(x, edges).tanh() + x[0] * x[0]
}

/// A graph Laplacian energy over ragged neighbour lists.
#[differentiable(order = 2)]
fn laplacian_energy(h: &[f64], nbrs: &[Vec<usize>]) -> f64 {
    let mut s = 0.0;
    for i in 0..h.len() {
        for k in 0..nbrs[i].len() {
            let d = h[i] - h[nbrs[i][k]];
            s += d * d * (1.0 + 0.1 * h[i]);
        }
    }
    s
}

fn central(f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6;
    let (mut a, mut b) = (x.to_vec(), x.to_vec());
    a[i] += h;
    b[i] -= h;
    (f(&a) - f(&b)) / (2.0 * h)
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn edge_products_gradient_matches_differences() {
    let edges = [[0usize, 1], [1, 2], [3, 0], [2, 2]];
    for x in common::points(46_001, 4, 12, -2.0, 2.0) {
        let (v, g) = edge_products_grad(&x, &edges);
        assert!(close(v, edge_products(&x, &edges), 1e-12));
        for i in 0..4 {
            let fd = central(&|y| edge_products(y, &edges), &x, i);
            assert!(close(g[i], fd, 1e-6), "{i}: {} {fd}", g[i]);
        }
    }
}

#[test]
fn squared_areas_gradient_and_hessian_match_differences() {
    let tris = [[0usize, 1, 2], [1, 3, 2], [0, 3, 1]];
    for p in common::points(46_002, 8, 10, -2.0, 2.0) {
        let (v, g, h) = squared_areas_hessian(&p, &tris);
        assert!(close(v, squared_areas(&p, &tris), 1e-12));
        for i in 0..8 {
            let fd = central(&|y| squared_areas(y, &tris), &p, i);
            assert!(close(g[i], fd, 1e-6), "{i}: {} {fd}", g[i]);
            for j in 0..8 {
                let fd = central(&|y| squared_areas_grad(y, &tris).1[j], &p, i);
                assert!(close(h[i][j], fd, 1e-5), "{i} {j}: {} {fd}", h[i][j]);
            }
        }
    }
}

#[test]
fn a_caller_at_order_2_reaches_a_first_order_function_of_edges() {
    let edges = [[0usize, 1], [1, 2], [3, 0]];
    for x in common::points(46_003, 4, 10, -2.0, 2.0) {
        let (_, g, h) = smoothed_hessian(&x, &edges);
        for i in 0..4 {
            let fd = central(&|y| smoothed(y, &edges), &x, i);
            assert!(close(g[i], fd, 1e-6), "{i}: {} {fd}", g[i]);
            for j in 0..4 {
                let fd = central(&|y| smoothed_grad(y, &edges).1[j], &x, i);
                assert!(close(h[i][j], fd, 1e-5), "{i} {j}: {} {fd}", h[i][j]);
            }
        }
    }
}

#[test]
fn laplacian_energy_over_ragged_neighbours_matches_differences() {
    let nbrs = vec![vec![1usize, 2], vec![0], vec![], vec![0, 1, 2]];
    for h in common::points(46_004, 4, 10, -2.0, 2.0) {
        let (_, g, hess) = laplacian_energy_hessian(&h, &nbrs);
        for i in 0..4 {
            let fd = central(&|y| laplacian_energy(y, &nbrs), &h, i);
            assert!(close(g[i], fd, 1e-6), "{i}: {} {fd}", g[i]);
            for j in 0..4 {
                let fd = central(&|y| laplacian_energy_grad(y, &nbrs).1[j], &h, i);
                assert!(close(hess[i][j], fd, 1e-5), "{i} {j}: {} {fd}", hess[i][j]);
            }
        }
    }
}
