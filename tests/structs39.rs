//! `order = 2` on a function that passes its parameter struct on whole to a function without `order = K`
//! which passes a FIELD of it on whole to a third function (`predict(m, x)` calling `dense(&m.w1, ..)`):
//! the middle function's hidden function over the struct's values view is made at first order, calling the
//! third function's `__g_pairs`. Gradients against central differences of the value, Hessians and
//! Hessian-vector products against central differences of `_grad`, on seeded points.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_fd_gradient, assert_hessian_fd, Inputs};

// ---- 1. an MLP whose `predict` passes `Vec` fields to a slice helper writing an output

#[derive(Clone, Debug, Differentiable)]
pub struct Net {
    pub w1: Vec<f64>,
    pub b1: Vec<f64>,
    pub w2: Vec<f64>,
    pub b2: f64,
    #[no_grad]
    pub n_in: usize,
}

/// One dense layer of slices, `out = tanh(w x + b)`, written into `out`.
#[differentiable]
fn dense(w: &[f64], b: &[f64], x: &[f64], out: &mut [f64]) {
    let n_in = x.len();
    for o in 0..b.len() {
        let mut z = b[o];
        for i in 0..n_in {
            z += w[o * n_in + i] * x[i];
        }
        out[o] = z.tanh();
    }
}

/// A dot product of two slices.
#[differentiable]
fn slice_dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

/// The network's output: the hidden layer by `dense`, the output by `slice_dot`.
#[differentiable]
fn predict(m: &Net, x: &[f64]) -> f64 {
    let mut h = vec![0.0; m.b1.len()];
    dense(&m.w1, &m.b1, x, &mut h);
    slice_dot(&m.w2, &h) + m.b2
}

/// Squared error over a batch (`order = 2` here only).
#[differentiable(order = 2, wrt(m))]
fn mlp_loss(m: &Net, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let r = predict(m, x) - y;
        total += r * r;
    }
    total / ys.len() as f64
}

/// 2 inputs, 3 hidden units: 6 + 3 + 3 + 1 parameters.
fn net(v: &[f64]) -> Net {
    Net {
        w1: v[0..6].to_vec(),
        b1: v[6..9].to_vec(),
        w2: v[9..12].to_vec(),
        b2: v[12],
        n_in: 2,
    }
}

/// The same loss by hand, sharing no code with the macro.
fn mlp_loss_by_hand(v: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let mut out = v[12];
        for o in 0..3 {
            let z = v[6 + o] + v[2 * o] * x[0] + v[2 * o + 1] * x[1];
            out += v[9 + o] * z.tanh();
        }
        total += (out - y) * (out - y);
    }
    total / ys.len() as f64
}

fn batch(inputs: &mut Inputs) -> (Vec<Vec<f64>>, Vec<f64>) {
    (inputs.rows(3, 2), inputs.vec(3))
}

#[test]
fn an_mlp_passing_vec_fields_to_a_helper_with_an_output() {
    let mut inputs = Inputs(3901);
    for _ in 0..8 {
        let point = inputs.vec(13);
        let (xs, ys) = batch(&mut inputs);
        let m = net(&point);
        let by_hand = |v: &[f64]| mlp_loss_by_hand(v, &xs, &ys);
        let grad = |v: &[f64]| mlp_loss_grad(&net(v), &xs, &ys).1.to_flat();
        let (value, g) = mlp_loss_grad(&m, &xs, &ys);
        assert_all_close(&[value, mlp_loss(&m, &xs, &ys)], &[by_hand(&point); 2], 1e-12, "value");
        assert_fd_gradient(by_hand, &point, &g.to_flat(), "mlp_loss");
        let (value, g2, h) = mlp_loss_hessian(&m, &xs, &ys);
        assert_all_close(&[value], &[by_hand(&point)], 1e-12, "hessian's value");
        assert_all_close(&g2.to_flat(), &g.to_flat(), 1e-12, "hessian's gradient");
        assert_hessian_fd(&h, grad, &point, 1e-6, "mlp_loss Hessian");
        let direction = inputs.vec(13);
        let (value, g3, hv) = mlp_loss_hvp(&m, &xs, &ys, m.from_flat(&direction));
        assert_all_close(&[value], &[by_hand(&point)], 1e-12, "hvp's value");
        assert_all_close(&g3.to_flat(), &g.to_flat(), 1e-12, "hvp's gradient");
        let product: Vec<f64> = h
            .iter()
            .map(|row| row.iter().zip(&direction).map(|(a, b)| a * b).sum())
            .collect();
        assert_all_close(&hv.to_flat(), &product, 1e-9, "hvp against the Hessian");
    }
}
