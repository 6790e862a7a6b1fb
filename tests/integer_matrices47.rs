//! Matrices of integers as data, iterated (session 47: `for &[a, b] in edges`, `for tri in tris.iter()`,
//! `for (t, tri) in tris.iter().enumerate()`, `for &j in nbrs[i].iter()`, `let row = &nbrs[i];` then
//! `for &j in row.iter()`, were errors), in parameters and in `#[no_grad]` fields of a `Differentiable`
//! struct (`Vec<[usize; 3]>`, `Vec<Vec<usize>>`, `[[usize; 2]; 2]`), at first order and at `order = 2`
//! and `order = 3`. Each function is checked against a plain-Rust twin (its value), central differences
//! (its gradient) and central differences of its gradient (its Hessian), and `_grad_into` against `_grad`.
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

// ---------------------------------------------------------------------------------------------------
// A spring network over `edges: &[[usize; 2]]` (2-D positions, one rest length per edge).

twin! {
    #[differentiable(wrt(x), order = 2)]
    fn springs / springs_plain(x: &[f64], rest: &[f64], edges: &[[usize; 2]]) -> f64 {
        let mut s = 0.0;
        for (e, &[a, b]) in edges.iter().enumerate() {
            // A loop edge holds no spring.
            if a == b {
                continue;
            }
            let dx = x[2 * b] - x[2 * a];
            let dy = x[2 * b + 1] - x[2 * a + 1];
            let len = (dx * dx + dy * dy).sqrt();
            let d = len - rest[e];
            s += 0.5 * d * d;
        }
        s
    }
}

twin! {
    /// The same network, by whole rows (`(seen, &edge)` of `.enumerate()`), with an anchor on node 0, stopping at the
    /// first edge past `limit`.
    #[differentiable(order = 2)]
    fn anchored / anchored_plain(x: &[f64], edges: &[[usize; 2]], limit: usize) -> f64 {
        let mut s = x[0] * x[0] + x[1] * x[1];
        for (seen, &edge) in edges.iter().enumerate() {
            if seen == limit {
                break;
            }
            let dx = x[2 * edge[1]] - x[2 * edge[0]];
            let dy = x[2 * edge[1] + 1] - x[2 * edge[0] + 1];
            s += (dx * dx + dy * dy).sqrt() * (1.0 + 0.1 * x[2 * edge[0]]);
        }
        s
    }
}

const EDGES: [[usize; 2]; 6] = [[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [1, 1]];

fn positions(seed: u64, n: usize) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    (0..12)
        .map(|_| {
            // Nodes near the corners of a square, so no spring has length zero.
            (0..n)
                .map(|k| {
                    let corner = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0], [1.0, 3.0]];
                    corner[(k / 2) % 5][k % 2] + 0.4 * inputs.next()
                })
                .collect()
        })
        .collect()
}

#[test]
fn springs_over_edges_match_differences() {
    let rest = [1.5, 2.5, 1.0, 2.0, 2.5, 1.0];
    for x in positions(47_001, 8) {
        let f = |y: &[f64]| springs_plain(y, &rest, &EDGES);
        let grad = |y: &[f64]| springs_grad(y, &rest, &EDGES).1;
        let (v, g) = springs_grad(&x, &rest, &EDGES);
        assert_close(v, f(&x), 1e-12, "springs: value");
        assert_eq!(springs(&x, &rest, &EDGES), f(&x), "springs: primal");
        assert_fd_gradient(f, &x, &g, "springs: gradient");
        let mut into = vec![0.0; 8];
        let v2 = springs_grad_into(&x, &rest, &EDGES, &mut into);
        assert_eq!((v2, &into), (v, &g), "springs: grad_into");
        let (vh, gh, h) = springs_hessian(&x, &rest, &EDGES);
        assert_close(vh, v, 1e-12, "springs: hessian's value");
        assert_all_close(&gh, &g, 1e-12, "springs: hessian's gradient");
        assert_hessian_fd(&h, grad, &x, 1e-6, "springs: hessian");
    }
}

#[test]
fn anchored_springs_by_whole_rows_with_break_match_differences() {
    // (Edge 5 is a loop, `[1, 1]`, of length zero, where `sqrt` has no derivative.)
    for limit in [0, 3, 5] {
        for x in positions(47_002, 8) {
            let f = |y: &[f64]| anchored_plain(y, &EDGES, limit);
            let (v, g) = anchored_grad(&x, &EDGES, limit);
            assert_close(v, f(&x), 1e-12, "anchored: value");
            assert_eq!(anchored(&x, &EDGES, limit), f(&x), "anchored: primal");
            // Only the first `limit` edges count: a gradient that ignored `break` would differ.
            assert_fd_gradient(f, &x, &g, "anchored: gradient");
            let mut into = vec![0.0; 8];
            anchored_grad_into(&x, &EDGES, limit, &mut into);
            assert_eq!(into, g, "anchored: grad_into");
            let (_, _, h) = anchored_hessian(&x, &EDGES, limit);
            assert_hessian_fd(
                &h,
                |y| anchored_grad(y, &EDGES, limit).1,
                &x,
                1e-6,
                "anchored: hessian",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// A triangle mesh: squared areas and a Dirichlet energy of a vertex field `u` over `tris`.

twin! {
    #[differentiable(order = 2)]
    fn dirichlet / dirichlet_plain(p: &[f64], u: &[f64], tris: &[[usize; 3]]) -> f64 {
        let mut s = 0.0;
        for (t, tri) in tris.iter().enumerate() {
            let ux = p[2 * tri[1]] - p[2 * tri[0]];
            let uy = p[2 * tri[1] + 1] - p[2 * tri[0] + 1];
            let vx = p[2 * tri[2]] - p[2 * tri[0]];
            let vy = p[2 * tri[2] + 1] - p[2 * tri[0] + 1];
            let area = 0.5 * (ux * vy - uy * vx);
            let mut grad2 = 0.0;
            for &[a, b] in &[[tri[0], tri[1]], [tri[1], tri[2]], [tri[2], tri[0]]] {
                grad2 += (u[a] - u[b]) * (u[a] - u[b]);
            }
            s += (1.0 + 0.1 * t as f64) * area * area + area * grad2;
        }
        s
    }
}

twin! {
    /// Rows copied (`for &tri in tris`), iterated backwards, the corners read from the copy.
    #[differentiable(order = 2)]
    fn areas_rev / areas_rev_plain(p: &[f64], tris: &[[usize; 3]]) -> f64 {
        let mut s = 0.0;
        let mut k = 1.0;
        for &tri in tris.iter().rev() {
            let (a, b, c) = (tri[0], tri[1], tri[2]);
            let cross = (p[2 * b] - p[2 * a]) * (p[2 * c + 1] - p[2 * a + 1])
                - (p[2 * b + 1] - p[2 * a + 1]) * (p[2 * c] - p[2 * a]);
            s += k * cross.sin();
            k += 1.0;
        }
        s
    }
}

const TRIS: [[usize; 3]; 3] = [[0, 1, 2], [0, 2, 3], [2, 4, 3]];

#[test]
fn dirichlet_energy_over_tris_matches_differences() {
    let mut inputs = Inputs(47_003);
    for p in positions(47_004, 10) {
        let u = inputs.vec(5);
        let f = |y: &[f64]| dirichlet_plain(y, &u, &TRIS);
        let (v, (gp, gu)) = dirichlet_grad(&p, &u, &TRIS);
        assert_close(v, f(&p), 1e-12, "dirichlet: value");
        assert_eq!(dirichlet(&p, &u, &TRIS), f(&p), "dirichlet: primal");
        assert_fd_gradient(f, &p, &gp, "dirichlet: gradient in p");
        assert_fd_gradient(
            |w| dirichlet_plain(&p, w, &TRIS),
            &u,
            &gu,
            "dirichlet: gradient in u",
        );
        let (mut ip, mut iu) = (vec![0.0; 10], vec![0.0; 5]);
        dirichlet_grad_into(&p, &u, &TRIS, (&mut ip, &mut iu));
        assert_eq!((&ip, &iu), (&gp, &gu), "dirichlet: grad_into");
        // The Hessian over (p, u), flat: against differences of the flat gradient.
        let (_, _, h) = dirichlet_hessian(&p, &u, &TRIS);
        let flat: Vec<f64> = p.iter().chain(&u).copied().collect();
        let grad = |y: &[f64]| {
            let (_, (a, b)) = dirichlet_grad(&y[..10], &y[10..], &TRIS);
            a.into_iter().chain(b).collect::<Vec<f64>>()
        };
        assert_hessian_fd(&h, grad, &flat, 1e-6, "dirichlet: hessian");
    }
}

#[test]
fn areas_over_copied_rows_backwards_match_differences() {
    for p in positions(47_005, 10) {
        let f = |y: &[f64]| areas_rev_plain(y, &TRIS);
        let (v, g) = areas_rev_grad(&p, &TRIS);
        assert_close(v, f(&p), 1e-12, "areas_rev: value");
        assert_eq!(areas_rev(&p, &TRIS), f(&p), "areas_rev: primal");
        assert_fd_gradient(f, &p, &g, "areas_rev: gradient");
        let mut into = vec![0.0; 10];
        areas_rev_grad_into(&p, &TRIS, &mut into);
        assert_eq!(into, g, "areas_rev: grad_into");
        let (_, _, h) = areas_rev_hessian(&p, &TRIS);
        assert_hessian_fd(
            &h,
            |y| areas_rev_grad(y, &TRIS).1,
            &p,
            1e-6,
            "areas_rev: hessian",
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// Graph Laplacian smoothing over ragged neighbour lists `nbrs: &[Vec<usize>]`.

twin! {
    #[differentiable(order = 2)]
    fn smoothing / smoothing_plain(h: &[f64], nbrs: &[Vec<usize>]) -> f64 {
        let mut s = 0.0;
        for i in 0..h.len() {
            let row = &nbrs[i];
            if row.is_empty() {
                continue;
            }
            let mut mean = 0.0;
            for &j in row.iter() {
                mean += h[j];
            }
            mean /= row.len() as f64;
            let d = h[i] - mean;
            s += d * d;
            for &j in &nbrs[i] {
                s += 0.1 * (h[i] * h[j]).sin();
            }
            for j in nbrs[i].iter() {
                s += 0.01 * h[*j] * h[*j] * h[i];
            }
        }
        s
    }
}

twin! {
    /// Rows bound by the loop (`for (i, row) in nbrs.iter().enumerate()`), then iterated themselves.
    #[differentiable]
    fn weighted_edges / weighted_edges_plain(h: &[f64], nbrs: &[Vec<usize>]) -> f64 {
        let mut s = 0.0;
        for (i, row) in nbrs.iter().enumerate() {
            for &j in row.iter() {
                if j < i {
                    continue;
                }
                s += (h[i] - h[j]).tanh();
            }
        }
        s
    }
}

twin! {
    /// An `order = 2` caller of the first-order function above.
    #[differentiable(order = 2)]
    fn wrapped / wrapped_plain(h: &[f64], nbrs: &[Vec<usize>]) -> f64 {
        weighted_edges(h, nbrs) * weighted_edges(h, nbrs) + h[0] * h[1]
    }
}

fn graph() -> Vec<Vec<usize>> {
    vec![
        vec![1, 2],
        vec![0, 3],
        vec![0, 3, 4],
        vec![1, 2],
        vec![],
        vec![2, 0],
    ]
}

#[test]
fn laplacian_smoothing_over_neighbours_matches_differences() {
    let nbrs = graph();
    let mut inputs = Inputs(47_006);
    for _ in 0..12 {
        let h = inputs.vec(6);
        let f = |y: &[f64]| smoothing_plain(y, &nbrs);
        let (v, g) = smoothing_grad(&h, &nbrs);
        assert_close(v, f(&h), 1e-12, "smoothing: value");
        assert_eq!(smoothing(&h, &nbrs), f(&h), "smoothing: primal");
        assert_fd_gradient(f, &h, &g, "smoothing: gradient");
        let mut into = vec![0.0; 6];
        smoothing_grad_into(&h, &nbrs, &mut into);
        assert_eq!(into, g, "smoothing: grad_into");
        let (_, _, hess) = smoothing_hessian(&h, &nbrs);
        assert_hessian_fd(
            &hess,
            |y| smoothing_grad(y, &nbrs).1,
            &h,
            1e-6,
            "smoothing: hessian",
        );
    }
}

#[test]
fn rows_bound_by_a_loop_and_an_order_2_caller_match_differences() {
    let nbrs = graph();
    let mut inputs = Inputs(47_007);
    for _ in 0..12 {
        let h = inputs.vec(6);
        let f = |y: &[f64]| weighted_edges_plain(y, &nbrs);
        let (v, g) = weighted_edges_grad(&h, &nbrs);
        assert_close(v, f(&h), 1e-12, "weighted_edges: value");
        assert_fd_gradient(f, &h, &g, "weighted_edges: gradient");
        let mut into = vec![0.0; 6];
        weighted_edges_grad_into(&h, &nbrs, &mut into);
        assert_eq!(into, g, "weighted_edges: grad_into");
        let (v, g, hess) = wrapped_hessian(&h, &nbrs);
        assert_close(v, wrapped_plain(&h, &nbrs), 1e-12, "wrapped: value");
        assert_eq!(
            wrapped(&h, &nbrs),
            wrapped_plain(&h, &nbrs),
            "wrapped: primal"
        );
        assert_fd_gradient(|y| wrapped_plain(y, &nbrs), &h, &g, "wrapped: gradient");
        assert_hessian_fd(
            &hess,
            |y| wrapped_grad(y, &nbrs).1,
            &h,
            1e-6,
            "wrapped: hessian",
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// Third order: the spring energy along a direction, `f(t) = springs(x + t d)`.

twin! {
    #[differentiable(wrt(t), order = 3)]
    fn along / along_plain(t: f64, x: &[f64], d: &[f64], edges: &[[usize; 2]]) -> f64 {
        let mut s = 0.0;
        for edge in edges.iter() {
            let (a, b) = (edge[0], edge[1]);
            if a == b {
                continue;
            }
            let dx = (x[2 * b] + t * d[2 * b]) - (x[2 * a] + t * d[2 * a]);
            let dy = (x[2 * b + 1] + t * d[2 * b + 1]) - (x[2 * a + 1] + t * d[2 * a + 1]);
            s += (dx * dx + dy * dy).sqrt();
        }
        s
    }
}

#[test]
fn third_derivative_along_a_direction_matches_differences() {
    let mut inputs = Inputs(47_008);
    for x in positions(47_009, 8) {
        let d = inputs.vec(8);
        let t = 0.3 * inputs.next();
        let [f0, f1, f2, f3] = along_derivatives(t, &x, &d, &EDGES);
        assert_close(f0, along_plain(t, &x, &d, &EDGES), 1e-12, "along: value");
        assert_eq!(
            along(t, &x, &d, &EDGES),
            along_plain(t, &x, &d, &EDGES),
            "along: primal"
        );
        let step = 1e-4;
        let plain = |t: f64| along_plain(t, &x, &d, &EDGES);
        let grad = |t: f64| along_grad(t, &x, &d, &EDGES).1;
        assert_close(
            f1,
            (plain(t + step) - plain(t - step)) / (2.0 * step),
            1e-6,
            "along: f'",
        );
        assert_close(
            f2,
            (grad(t + step) - grad(t - step)) / (2.0 * step),
            1e-6,
            "along: f''",
        );
        let second = (grad(t + step) - 2.0 * grad(t) + grad(t - step)) / (step * step);
        assert_close(f3, second, 1e-4, "along: f'''");
    }
}

// ---------------------------------------------------------------------------------------------------
// A mesh struct whose `#[no_grad]` fields hold matrices of integers.

#[derive(Differentiable, Clone, Debug, PartialEq)]
pub struct Mesh {
    pub pos: Vec<f64>,
    #[no_grad]
    pub tris: Vec<[usize; 3]>,
    #[no_grad]
    pub nbrs: Vec<Vec<usize>>,
    #[no_grad]
    pub pins: [[usize; 2]; 2],
}

impl Mesh {
    /// Squared areas by index (`self.tris[t][0]`), a smoothing term by whole rows, pinned nodes.
    #[differentiable(wrt(self), order = 2)]
    pub fn energy(&self) -> f64 {
        let mut s = 0.0;
        for t in 0..self.tris.len() {
            let (a, b, c) = (self.tris[t][0], self.tris[t][1], self.tris[t][2]);
            let cross = (self.pos[2 * b] - self.pos[2 * a])
                * (self.pos[2 * c + 1] - self.pos[2 * a + 1])
                - (self.pos[2 * b + 1] - self.pos[2 * a + 1]) * (self.pos[2 * c] - self.pos[2 * a]);
            s += 0.25 * cross * cross;
        }
        for i in 0..self.nbrs.len() {
            let n = self.nbrs[i].len() as f64;
            for &j in self.nbrs[i].iter() {
                let d = self.pos[2 * i] - self.pos[2 * j];
                s += d * d / n;
            }
        }
        for k in 0..self.pins.len() {
            let node = self.pins[k][0];
            let d = self.pos[2 * node + 1] - self.pins[k][1] as f64;
            s += d * d;
        }
        s
    }
}

/// A free function of `&Mesh`, iterating its triangles whole.
#[differentiable(order = 2)]
pub fn perimeter(m: &Mesh, scale: f64) -> f64 {
    let mut s = 0.0;
    for tri in m.tris.iter() {
        for &[a, b] in &[[tri[0], tri[1]], [tri[1], tri[2]], [tri[2], tri[0]]] {
            let dx = m.pos[2 * b] - m.pos[2 * a];
            let dy = m.pos[2 * b + 1] - m.pos[2 * a + 1];
            s += scale * (dx * dx + dy * dy).sqrt();
        }
    }
    for (i, row) in m.nbrs.iter().enumerate() {
        for &j in row {
            s += 0.1 * (m.pos[2 * i] * m.pos[2 * j + 1]).sin();
        }
    }
    s
}

fn energy_plain(m: &Mesh) -> f64 {
    let p = &m.pos;
    let mut s = 0.0;
    for &[a, b, c] in &m.tris {
        let cross = (p[2 * b] - p[2 * a]) * (p[2 * c + 1] - p[2 * a + 1])
            - (p[2 * b + 1] - p[2 * a + 1]) * (p[2 * c] - p[2 * a]);
        s += 0.25 * cross * cross;
    }
    for (i, row) in m.nbrs.iter().enumerate() {
        for &j in row {
            let d = p[2 * i] - p[2 * j];
            s += d * d / row.len() as f64;
        }
    }
    for [node, y] in m.pins {
        let d = p[2 * node + 1] - y as f64;
        s += d * d;
    }
    s
}

fn perimeter_plain(m: &Mesh, scale: f64) -> f64 {
    let p = &m.pos;
    let mut s = 0.0;
    for &[a, b, c] in &m.tris {
        for [u, v] in [[a, b], [b, c], [c, a]] {
            let (dx, dy) = (p[2 * v] - p[2 * u], p[2 * v + 1] - p[2 * u + 1]);
            s += scale * (dx * dx + dy * dy).sqrt();
        }
    }
    for (i, row) in m.nbrs.iter().enumerate() {
        for &j in row {
            s += 0.1 * (p[2 * i] * p[2 * j + 1]).sin();
        }
    }
    s
}

fn mesh(pos: Vec<f64>) -> Mesh {
    Mesh {
        pos,
        tris: TRIS.to_vec(),
        nbrs: vec![vec![1, 3], vec![0, 2], vec![1, 3, 4], vec![0, 2], vec![2]],
        pins: [[0, 1], [4, 2]],
    }
}

#[test]
fn mesh_method_energy_over_integer_matrix_fields_matches_differences() {
    for pos in positions(47_010, 10) {
        let m = mesh(pos.clone());
        let at = |p: &[f64]| mesh(p.to_vec());
        let (v, g) = m.energy_grad();
        assert_close(v, energy_plain(&m), 1e-12, "energy: value");
        assert_fd_gradient(|p| energy_plain(&at(p)), &pos, &g.pos, "energy: gradient");
        // The `#[no_grad]` fields are copied into the gradient, untouched.
        assert_eq!((&g.tris, &g.nbrs, g.pins), (&m.tris, &m.nbrs, m.pins));
        let mut into = m.clone();
        into.pos = vec![7.0; 10];
        let v2 = m.energy_grad_into(&mut into);
        assert_eq!((v2, &into), (v, &g), "energy: grad_into");
        let (vh, _, h) = m.energy_hessian();
        assert_close(vh, v, 1e-12, "energy: hessian's value");
        assert_hessian_fd(
            &h,
            |p| at(p).energy_grad().1.pos,
            &pos,
            1e-6,
            "energy: hessian",
        );
    }
}

#[test]
fn free_function_of_a_mesh_matches_differences() {
    let mut inputs = Inputs(47_011);
    for pos in positions(47_012, 10) {
        let scale = 1.0 + 0.5 * inputs.next();
        let m = mesh(pos.clone());
        let (v, (gm, gs)) = perimeter_grad(&m, scale);
        assert_close(v, perimeter_plain(&m, scale), 1e-12, "perimeter: value");
        assert_fd_gradient(
            |p| perimeter_plain(&mesh(p.to_vec()), scale),
            &pos,
            &gm.pos,
            "perimeter: d/dpos",
        );
        assert_fd_gradient(
            |s| perimeter_plain(&m, s[0]),
            &[scale],
            &[gs],
            "perimeter: d/dscale",
        );
        let (mut im, mut is) = (m.clone(), 0.0);
        perimeter_grad_into(&m, scale, (&mut im, &mut is));
        assert_eq!((&im, is), (&gm, gs), "perimeter: grad_into");
        // The Hessian over (pos, scale), flat.
        let (_, _, h) = perimeter_hessian(&m, scale);
        let flat: Vec<f64> = pos.iter().copied().chain([scale]).collect();
        let grad = |y: &[f64]| {
            let (_, (g, s)) = perimeter_grad(&mesh(y[..10].to_vec()), y[10]);
            g.pos.into_iter().chain([s]).collect::<Vec<f64>>()
        };
        assert_hessian_fd(&h, grad, &flat, 1e-6, "perimeter: hessian");
    }
}

// ---------------------------------------------------------------------------------------------------
// Pooling over sets of a struct's `#[no_grad] sets: Vec<Vec<usize>>` (until session 47 the UI case
// `tests/ui/structs/integer-matrix-field.rs`, an error), by index at first order.

#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Graph {
    pub w: Vec<f64>,
    #[no_grad]
    pub sets: Vec<Vec<usize>>,
}

#[differentiable]
pub fn pooled(p: &Graph, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.sets.len() {
        for j in 0..p.sets[i].len() {
            s += p.w[i] * x[p.sets[i][j]].sin();
        }
    }
    s
}

fn pooled_plain(p: &Graph, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, set) in p.sets.iter().enumerate() {
        for &j in set {
            s += p.w[i] * x[j].sin();
        }
    }
    s
}

#[test]
fn pooled_sets_of_a_struct_match_differences() {
    let sets = vec![vec![0, 2], vec![1], vec![], vec![3, 0, 1]];
    let mut inputs = Inputs(47_013);
    for _ in 0..12 {
        let (w, x) = (inputs.vec(4), inputs.vec(4));
        let at = |w: &[f64]| Graph {
            w: w.to_vec(),
            sets: sets.clone(),
        };
        let p = at(&w);
        let (v, (gp, gx)) = pooled_grad(&p, &x);
        assert_close(v, pooled_plain(&p, &x), 1e-12, "pooled: value");
        assert_fd_gradient(|w| pooled_plain(&at(w), &x), &w, &gp.w, "pooled: d/dw");
        assert_fd_gradient(|y| pooled_plain(&p, y), &x, &gx, "pooled: d/dx");
        assert_eq!(gp.sets, sets);
        let (mut ip, mut ix) = (p.clone(), vec![0.0; 4]);
        pooled_grad_into(&p, &x, (&mut ip, &mut ix));
        assert_eq!((&ip, &ix), (&gp, &gx), "pooled: grad_into");
    }
}

// ---------------------------------------------------------------------------------------------------
// A matrix of integers made in the body, iterated by rows (it compiled before this session's work too).

twin! {
    #[differentiable(order = 2)]
    fn local_edges / local_edges_plain(x: &[f64]) -> f64 {
        let edges = vec![[0usize, 1], [1, 2], [2, 0]];
        let mut s = 0.0;
        for &[a, b] in &edges {
            s += x[a] * x[b].sin();
        }
        s
    }
}

#[test]
fn a_local_matrix_of_integers_matches_differences() {
    let mut inputs = Inputs(47_014);
    for _ in 0..12 {
        let x = inputs.vec(3);
        let (v, g) = local_edges_grad(&x);
        assert_close(v, local_edges_plain(&x), 1e-12, "local_edges: value");
        assert_eq!(
            local_edges(&x),
            local_edges_plain(&x),
            "local_edges: primal"
        );
        assert_fd_gradient(local_edges_plain, &x, &g, "local_edges: gradient");
        let mut into = vec![0.0; 3];
        local_edges_grad_into(&x, &mut into);
        assert_eq!(into, g, "local_edges: grad_into");
        let (_, _, h) = local_edges_hessian(&x);
        assert_hessian_fd(
            &h,
            |y| local_edges_grad(y).1,
            &x,
            1e-6,
            "local_edges: hessian",
        );
    }
}
