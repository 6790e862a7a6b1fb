//! `order = K` on functions of parameter structs with matrix fields (`p.w[h][j]` of a `Vec<Vec<f64>>` or
//! a `[[f64; N]; M]`, a nested MLP's layer weights), read through the struct's values view
//! (`struct_whole.rs`): each function's Hessian against central differences of its generated gradient,
//! and the gradient against central differences of the primal, on several inputs.

// Differentiable bodies index their matrices (`for j in 0..n`), the form under test.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::*;

/// One dense layer: a weight matrix with one row per unit, and a bias per unit.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Dense {
    w: Vec<Vec<f64>>,
    b: Vec<f64>,
}

/// A fixed-size matrix field beside a scalar and a constant.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Grid {
    a: f64,
    m: [[f64; 3]; 2],
    #[no_grad]
    scale: f64,
}

/// Two layers, one nested inside the other struct.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Net {
    l1: Dense,
    v: Vec<f64>,
}

/// `Σ_h tanh(b_h + Σ_j w_hj x_j)`.
#[differentiable(order = 2)]
fn layer(p: &Dense, x: &[f64]) -> f64 {
    let mut total = 0.0;
    for h in 0..p.w.len() {
        let mut s = p.b[h];
        for j in 0..x.len() {
            s += p.w[h][j] * x[j];
        }
        total += s.tanh();
    }
    total
}

/// `Σ_ij m_ij² a x^(i + j)` scaled by a constant.
#[differentiable(order = 2)]
fn grid(p: &Grid, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        for j in 0..3 {
            s += p.m[i][j] * p.m[i][j] * p.a * x.powi((i + j) as i32);
        }
    }
    s * p.scale
}

/// A nested struct's matrix field (`p.l1.w[h][j]`): `Σ_h v_h sin(b_h + Σ_j w_hj x_j)`.
#[differentiable(order = 2)]
fn net(p: &Net, x: &[f64]) -> f64 {
    let mut total = 0.0;
    for h in 0..p.v.len() {
        let mut s = p.l1.b[h];
        for j in 0..x.len() {
            s += p.l1.w[h][j] * x[j];
        }
        total += p.v[h] * s.sin();
    }
    total
}

/// Rows read as slices (`p.w[h].len()`, `p.w[h].iter()`, `&p.w[h]`) of a ragged matrix.
#[differentiable(order = 2)]
fn rows(p: &Dense, x: f64) -> f64 {
    let mut total = 0.0;
    for h in 0..p.w.len() {
        let row = &p.w[h];
        let mut s = 0.0;
        for j in 0..p.w[h].len() {
            s += row[j] * row[j] * x;
        }
        for v in p.w[h].iter() {
            s += v.exp();
        }
        total += s * p.b[h];
    }
    total
}

/// Fields with their copies: a `Vec` field cloned (`let w = p.w.clone();`) and an array field copied
/// (`let k = p.k;`), then read by index: `b Σ_i w_i x_i k_(i mod 2)²`.
#[differentiable(order = 2)]
fn copies(p: &Copied, x: &[f64]) -> f64 {
    let w = p.w.clone();
    let k = p.k;
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i] * k[i % 2] * k[i % 2];
    }
    s * p.b
}

/// A `Vec`, an array and a scalar field, which `copies` copies.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Copied {
    w: Vec<f64>,
    k: [f64; 2],
    b: f64,
}

/// A matrix field read inside `vec![..]` and by elements of two rows: `(w_00 w_11 - w_01 w_10) x²`.
#[allow(clippy::useless_vec)] // (`vec![..]` is the form under test)
#[differentiable(order = 2)]
fn determinant(p: &Dense, x: f64) -> f64 {
    let d = vec![p.w[0][0] * p.w[1][1], p.w[0][1] * p.w[1][0]];
    (d[0] - d[1]) * x * x
}

/// A matrix field read by a method, `self.w[h][0]`.
impl Dense {
    #[differentiable(wrt(self, x), order = 2)]
    fn first_column(&self, x: f64) -> f64 {
        let mut s = 0.0;
        for h in 0..self.b.len() {
            s += self.w[h][0] * self.w[h][0] * x * self.b[h];
        }
        s
    }
}

/// A first-order function reading a matrix field, which an `order = 2` caller passes its struct to.
#[differentiable]
fn forward(p: &Dense, x: &[f64], h: usize) -> f64 {
    let mut s = p.b[h];
    for j in 0..x.len() {
        s += p.w[h][j] * x[j];
    }
    s
}

/// `Σ_h forward(p, x, h)²`.
#[differentiable(order = 2)]
fn squares(p: &Dense, x: &[f64]) -> f64 {
    let mut total = 0.0;
    for h in 0..p.b.len() {
        let s = forward(p, x, h);
        total += s * s;
    }
    total
}

/// A first-order callee returning a `Vec`, reading a matrix field.
#[differentiable]
fn two_units(p: &Dense, x: f64) -> Vec<f64> {
    let first = p.w[0][0] * x + p.b[0];
    let second = p.w[1][1] * x + p.b[1];
    vec![first, second]
}

/// `u_0 u_1 sin x` of `two_units`, passed the struct on whole.
#[differentiable(order = 2)]
fn through_units(p: &Dense, x: f64) -> f64 {
    let y = two_units(p, x);
    y[0] * y[1] * x.sin()
}

impl Dense {
    /// A first-order method with outputs reading a matrix field of `self`.
    #[differentiable(wrt(self))]
    fn apply_into(&self, x: f64, out: &mut [f64]) {
        out[0] = self.w[0][1] * x + self.b[0];
        out[1] = self.w[1][0] * x * x;
    }

    /// `o_0 o_1` of `apply_into`.
    #[differentiable(wrt(self, x), order = 2)]
    fn applied(&self, x: f64) -> f64 {
        let mut out = vec![0.0; 2];
        self.apply_into(x, &mut out);
        out[0] * out[1]
    }
}

/// Checks `value`, `grad` and `hessian` of a function over the flat inputs `[p.to_flat(), rest]` at
/// `flat`: the gradient against central differences of `value`, the Hessian against central differences
/// of `grad`.
fn check(
    what: &str,
    flat: &[f64],
    value: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> Vec<f64>,
    hessian: impl Fn(&[f64]) -> (f64, Vec<Vec<f64>>),
) {
    let g = grad(flat);
    assert_fd_gradient(&value, flat, &g, what);
    let (v, h) = hessian(flat);
    assert_close(v, value(flat), ANALYTIC_TOL, what);
    assert_jacobian(&h, &fd_jacobian(&grad, flat), what);
}

/// A dense layer of `rows` rows of `cols` columns from `inputs`.
fn dense(inputs: &mut Inputs, rows: usize, cols: usize) -> Dense {
    Dense {
        w: inputs.rows(rows, cols),
        b: inputs.vec(rows),
    }
}

#[test]
fn a_fixed_size_matrix_field() {
    let mut inputs = Inputs(21);
    for _ in 0..4 {
        let p = Grid {
            a: inputs.next(),
            m: [
                [inputs.next(), inputs.next(), inputs.next()],
                [inputs.next(), inputs.next(), inputs.next()],
            ],
            scale: 1.5,
        };
        let mut flat = p.to_flat();
        flat.push(inputs.next());
        let n = flat.len() - 1;
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "grid",
            &flat,
            |f| grid(&at(f), f[n]),
            |f| {
                let (_, (g, gx)) = grid_grad(&at(f), f[n]);
                let mut g = g.to_flat();
                g.push(gx);
                g
            },
            |f| {
                let (v, _, h) = grid_hessian(&at(f), f[n]);
                (v, h)
            },
        );
    }
}

#[test]
fn a_nested_structs_matrix_field() {
    let mut inputs = Inputs(22);
    for _ in 0..4 {
        let p = Net {
            l1: dense(&mut inputs, 2, 3),
            v: inputs.vec(2),
        };
        let mut flat = p.to_flat();
        let n = flat.len();
        flat.extend(inputs.vec(3));
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "net",
            &flat,
            |f| net(&at(f), &f[n..]),
            |f| {
                let (_, (g, gx)) = net_grad(&at(f), &f[n..]);
                [g.to_flat(), gx].concat()
            },
            |f| {
                let (v, _, h) = net_hessian(&at(f), &f[n..]);
                (v, h)
            },
        );
    }
}

#[test]
fn a_method_reading_a_matrix_field() {
    let mut inputs = Inputs(23);
    for _ in 0..4 {
        let p = dense(&mut inputs, 3, 2);
        let mut flat = p.to_flat();
        flat.push(inputs.next());
        let n = flat.len() - 1;
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "first_column",
            &flat,
            |f| at(f).first_column(f[n]),
            |f| {
                let (_, (g, gx)) = at(f).first_column_grad(f[n]);
                let mut g = g.to_flat();
                g.push(gx);
                g
            },
            |f| {
                let (v, _, h) = at(f).first_column_hessian(f[n]);
                (v, h)
            },
        );
    }
}

#[test]
fn a_layer_of_vec_rows() {
    let mut inputs = Inputs(20);
    for _ in 0..4 {
        let p = dense(&mut inputs, 3, 2);
        let mut flat = p.to_flat();
        let n = flat.len();
        flat.extend(inputs.vec(2));
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "layer",
            &flat,
            |f| layer(&at(f), &f[n..]),
            |f| {
                let (_, (g, gx)) = layer_grad(&at(f), &f[n..]);
                [g.to_flat(), gx].concat()
            },
            |f| {
                let (v, _, h) = layer_hessian(&at(f), &f[n..]);
                (v, h)
            },
        );
        // The Hessian-vector product along a direction of struct and slice: `H v`.
        let v = inputs.vec(flat.len());
        let (_, _, h) = layer_hessian(&p, &flat[n..]);
        let (_, _, (hp, hx)) = layer_hvp(&p, &flat[n..], (p.from_flat(&v[..n]), v[n..].to_vec()));
        let product: Vec<f64> = h.iter().map(|row| dot(row, &v)).collect();
        assert_all_close(
            &[hp.to_flat(), hx].concat(),
            &product,
            ANALYTIC_TOL,
            "layer_hvp",
        );
    }
}

#[test]
fn a_first_order_callee_reading_a_matrix_field() {
    let mut inputs = Inputs(24);
    for _ in 0..4 {
        let p = dense(&mut inputs, 3, 2);
        let mut flat = p.to_flat();
        let n = flat.len();
        flat.extend(inputs.vec(2));
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "squares",
            &flat,
            |f| squares(&at(f), &f[n..]),
            |f| {
                let (_, (g, gx)) = squares_grad(&at(f), &f[n..]);
                [g.to_flat(), gx].concat()
            },
            |f| {
                let (v, _, h) = squares_hessian(&at(f), &f[n..]);
                (v, h)
            },
        );
    }
}

#[test]
fn rows_of_a_ragged_matrix_read_as_slices() {
    let mut inputs = Inputs(25);
    for _ in 0..4 {
        let p = Dense {
            w: vec![inputs.vec(2), inputs.vec(1), inputs.vec(3)],
            b: inputs.vec(3),
        };
        let mut flat = p.to_flat();
        flat.push(inputs.next());
        let n = flat.len() - 1;
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "rows",
            &flat,
            |f| rows(&at(f), f[n]),
            |f| {
                let (_, (g, gx)) = rows_grad(&at(f), f[n]);
                let mut g = g.to_flat();
                g.push(gx);
                g
            },
            |f| {
                let (v, _, h) = rows_hessian(&at(f), f[n]);
                (v, h)
            },
        );
        // By hand: d/dx = Σ_h b_h Σ_j w_hj².
        let (_, (_, gx)) = rows_grad(&p, flat[n]);
        let by_hand: f64 = (p.w.iter().zip(&p.b))
            .map(|(row, b)| b * row.iter().map(|w| w * w).sum::<f64>())
            .sum();
        assert_close(gx, by_hand, ANALYTIC_TOL, "rows: d/dx by hand");
    }
}

#[test]
fn copied_fields() {
    let mut inputs = Inputs(26);
    for _ in 0..4 {
        let p = Copied {
            w: inputs.vec(3),
            k: [inputs.next(), inputs.next()],
            b: inputs.next(),
        };
        let mut flat = p.to_flat();
        let n = flat.len();
        flat.extend(inputs.vec(3));
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "copies",
            &flat,
            |f| copies(&at(f), &f[n..]),
            |f| {
                let (_, (g, gx)) = copies_grad(&at(f), &f[n..]);
                [g.to_flat(), gx].concat()
            },
            |f| {
                let (v, _, h) = copies_hessian(&at(f), &f[n..]);
                (v, h)
            },
        );
    }
}

#[test]
fn a_matrix_field_read_inside_vec() {
    let mut inputs = Inputs(27);
    for _ in 0..4 {
        let p = dense(&mut inputs, 2, 2);
        let mut flat = p.to_flat();
        flat.push(inputs.next());
        let n = flat.len() - 1;
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "determinant",
            &flat,
            |f| determinant(&at(f), f[n]),
            |f| {
                let (_, (g, gx)) = determinant_grad(&at(f), f[n]);
                let mut g = g.to_flat();
                g.push(gx);
                g
            },
            |f| {
                let (v, _, h) = determinant_hessian(&at(f), f[n]);
                (v, h)
            },
        );
        // By hand: d²/dw_00 dx = 2 w_11 x.
        let (_, _, h) = determinant_hessian(&p, flat[n]);
        assert_close(
            h[0][n],
            2.0 * p.w[1][1] * flat[n],
            ANALYTIC_TOL,
            "determinant: by hand",
        );
    }
}

#[test]
fn callees_reading_matrix_fields() {
    let mut inputs = Inputs(28);
    for _ in 0..4 {
        let p = dense(&mut inputs, 2, 2);
        let mut flat = p.to_flat();
        flat.push(inputs.next());
        let n = flat.len() - 1;
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "through_units",
            &flat,
            |f| through_units(&at(f), f[n]),
            |f| {
                let (_, (g, gx)) = through_units_grad(&at(f), f[n]);
                let mut g = g.to_flat();
                g.push(gx);
                g
            },
            |f| {
                let (v, _, h) = through_units_hessian(&at(f), f[n]);
                (v, h)
            },
        );
        check(
            "applied",
            &flat,
            |f| at(f).applied(f[n]),
            |f| {
                let (_, (g, gx)) = at(f).applied_grad(f[n]);
                let mut g = g.to_flat();
                g.push(gx);
                g
            },
            |f| {
                let (v, _, h) = at(f).applied_hessian(f[n]);
                (v, h)
            },
        );
    }
}
