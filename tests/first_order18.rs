//! First-order failures found by probes: a matrix field of a parameter struct read inside `vec![..]`, a
//! row `[T; N]` of a matrix bound by `let` and passed by value, and `chunks_exact(k).enumerate()`. Every
//! derivative is checked against central differences (`common::probe`) at seeded points.

// The functions are written as the reports wrote them.
#![allow(
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::useless_vec
)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::probe::*;

const POINTS: usize = 12;

#[derive(Clone, Debug, Differentiable)]
pub struct Layer {
    pub w: Vec<Vec<f64>>,
    pub b: Vec<f64>,
}

// `p.w[0][0]` read only inside `vec![..]`: the scan for fields indexed twice (matrices) did not look
// into a macro's arguments, so `__p_w` was taken for a slice and its second index was the error
// "`__p_w` is not known here to hold a slice, ..".
#[differentiable]
pub fn rows(p: &Layer, x: f64) -> Vec<f64> {
    vec![p.w[0][0] * x + p.b[0], p.b[1]]
}

// The same inside a scalar function, with both rows of the matrix read.
#[differentiable]
pub fn rows_product(p: &Layer, x: f64) -> f64 {
    let y = vec![
        p.w[0][0] * x + p.b[0],
        p.w[1][1] * p.b[1] + p.w[1][0] * x * x,
    ];
    y[0] * y[1]
}

/// `[w00, w01, w10, w11, b0, b1, x]`.
fn layer_of(v: &[f64]) -> (Layer, f64) {
    let p = Layer {
        w: vec![v[0..2].to_vec(), v[2..4].to_vec()],
        b: v[4..6].to_vec(),
    };
    (p, v[6])
}

fn flat_layer(g: &Layer, gx: f64) -> Vec<f64> {
    let mut v: Vec<f64> = g.w.concat();
    v.extend(&g.b);
    v.push(gx);
    v
}

#[test]
fn a_matrix_field_read_inside_vec_is_differentiated() {
    let sample = |rng: &mut Lcg| rng.vec(7, -2.0, 2.0);
    check_vector(
        "rows",
        POINTS,
        sample,
        &|v| {
            let (p, x) = layer_of(v);
            rows(&p, x)
        },
        &|v, c| {
            let (p, x) = layer_of(v);
            let (y, (gp, gx)) = rows_vjp(&p, x, c.to_vec());
            (y, flat_layer(&gp, gx))
        },
        &|v, t| {
            let (p, x) = layer_of(v);
            let (tp, tx) = layer_of(t);
            rows_jvp(&p, x, (tp, tx))
        },
        None,
    );
    Probe::new("rows_product", |v| {
        let (p, x) = layer_of(v);
        rows_product(&p, x)
    })
    .grad(|v| {
        let (p, x) = layer_of(v);
        let (y, (gp, gx)) = rows_product_grad(&p, x);
        (y, flat_layer(&gp, gx))
    })
    .jvp(|v, t| {
        let (p, x) = layer_of(v);
        let (tp, tx) = layer_of(t);
        rows_product_jvp(&p, x, (tp, tx))
    })
    .analytic(|v| {
        let (w00, w10, w11, b0, b1, x) = (v[0], v[2], v[3], v[4], v[5], v[6]);
        let (y0, y1) = (w00 * x + b0, w11 * b1 + w10 * x * x);
        // [w00, w01, w10, w11, b0, b1, x]
        vec![
            x * y1,
            0.0,
            y0 * x * x,
            y0 * b1,
            y1,
            y0 * w11,
            w00 * y1 + y0 * 2.0 * w10 * x,
        ]
    })
    .run(POINTS, |rng| rng.vec(7, -2.0, 2.0));
}

#[differentiable(order = 2)]
pub fn by_value(a: [f64; 3]) -> f64 {
    a[0] * a[1] + a[2]
}

// `let r = pos[1]; by_value(r)`: the local is a window of the flat matrix, which a call took as the
// reference a window stands for (`&[f64; 3]`): rustc's E0308 at a callee taking `[f64; 3]`.
#[differentiable(order = 2)]
pub fn row_by_value(pos: &[[f64; 3]]) -> f64 {
    let r = pos[1];
    by_value(r) * pos[0][2] + by_value(pos[2])
}

fn rows_of(v: &[f64]) -> Vec<[f64; 3]> {
    v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect()
}

#[test]
fn a_row_bound_by_let_is_passed_by_value() {
    Probe::new("row_by_value", |v| row_by_value(&rows_of(v)))
        .grad(|v| {
            let (y, g) = row_by_value_grad(&rows_of(v));
            (y, g.concat())
        })
        .jvp(|v, t| row_by_value_jvp(&rows_of(v), rows_of(t)))
        .hessian(|v| {
            let (y, g, h) = row_by_value_hessian(&rows_of(v));
            (y, g.concat(), h)
        })
        .analytic(|v| {
            let (a, c, d) = (&v[0..3], &v[3..6], &v[6..9]);
            let f1 = c[0] * c[1] + c[2];
            vec![
                0.0,
                0.0,
                f1,
                c[1] * a[2],
                c[0] * a[2],
                a[2],
                d[1],
                d[0],
                1.0,
            ]
        })
        .run(POINTS, |rng| rng.vec(9, -2.0, 2.0));
}

// `for (i, c) in p.chunks_exact(2).enumerate()`: rejected ("this iterator is not supported"), though
// `for c in p.chunks_exact(2)` with a counter worked.
#[differentiable(order = 2)]
pub fn pairs(p: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, c) in p.chunks_exact(2).enumerate() {
        s += (i as f64 + 1.0) * c[0] * c[1];
    }
    s
}

// The same as an iterator chain.
#[differentiable(order = 2)]
pub fn pairs_chain(p: &[f64]) -> f64 {
    p.chunks(2)
        .enumerate()
        .map(|(i, c)| (i as f64 + 1.0) * c[0] * c[c.len() - 1])
        .sum()
}

/// The gradient of `sum_i (i + 1) c_i0 c_i1` over the whole pairs of `p` (a last odd element unread,
/// as `chunks_exact` leaves it); with `last` the last element of each chunk (`chunks`) in place of `c_i1`.
fn pairs_gradient(p: &[f64], chunks: bool) -> Vec<f64> {
    let mut g = vec![0.0; p.len()];
    for i in 0..p.len() / 2 {
        let k = i as f64 + 1.0;
        g[2 * i] += k * p[2 * i + 1];
        g[2 * i + 1] += k * p[2 * i];
    }
    if chunks && p.len() % 2 == 1 {
        let n = p.len() - 1;
        g[n] += 2.0 * (n / 2 + 1) as f64 * p[n];
    }
    g
}

#[test]
fn chunks_exact_enumerated_in_a_for() {
    for n in [6, 7] {
        slice("pairs", pairs, pairs_grad, pairs_jvp, pairs_grad_into)
            .hessian(pairs_hessian)
            .analytic(|p| pairs_gradient(p, false))
            .run(POINTS, |rng| rng.vec(n, -2.0, 2.0));
        slice(
            "pairs_chain",
            pairs_chain,
            pairs_chain_grad,
            pairs_chain_jvp,
            pairs_chain_grad_into,
        )
        .hessian(pairs_chain_hessian)
        .analytic(|p| pairs_gradient(p, true))
        .run(POINTS, |rng| rng.vec(n, -2.0, 2.0));
    }
}
