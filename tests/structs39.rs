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
        assert_all_close(
            &[value, mlp_loss(&m, &xs, &ys)],
            &[by_hand(&point); 2],
            1e-12,
            "value",
        );
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

// ---- 2. a nested struct field passed on whole (`dense_layer(&m.hidden, ..)`), a `#[no_grad]` size

#[derive(Clone, Debug, Differentiable)]
pub struct Dense {
    pub w: Vec<f64>,
    pub b: Vec<f64>,
    #[no_grad]
    pub n_in: usize,
}

#[derive(Clone, Debug, Differentiable)]
pub struct Model {
    pub hidden: Dense,
    pub out: Dense,
}

/// One dense layer of a struct, its activation chosen by `kind`, written into `out`.
#[differentiable]
fn dense_layer(layer: &Dense, x: &[f64], kind: u8, out: &mut [f64]) {
    for o in 0..layer.b.len() {
        let mut z = layer.b[o];
        for i in 0..layer.n_in {
            z += layer.w[o * layer.n_in + i] * x[i];
        }
        out[o] = match kind {
            0 => z.tanh(),
            _ => z,
        };
    }
}

/// Both layers passed on whole to `dense_layer`.
#[differentiable]
fn model_predict(m: &Model, x: &[f64]) -> f64 {
    let mut h = vec![0.0; m.hidden.b.len()];
    dense_layer(&m.hidden, x, 0, &mut h);
    let mut y = vec![0.0; 1];
    dense_layer(&m.out, &h, 1, &mut y);
    y[0]
}

#[differentiable(order = 2, wrt(m))]
fn model_loss(m: &Model, xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let r = model_predict(m, x) - y;
        total += r * r;
    }
    total / ys.len() as f64
}

/// 2 inputs, 2 hidden (tanh), 1 output (linear): 4 + 2 + 2 + 1 parameters.
fn model(v: &[f64]) -> Model {
    Model {
        hidden: Dense {
            w: v[0..4].to_vec(),
            b: v[4..6].to_vec(),
            n_in: 2,
        },
        out: Dense {
            w: v[6..8].to_vec(),
            b: v[8..9].to_vec(),
            n_in: 2,
        },
    }
}

fn model_loss_by_hand(v: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for (x, y) in xs.iter().zip(ys) {
        let h0 = (v[4] + v[0] * x[0] + v[1] * x[1]).tanh();
        let h1 = (v[5] + v[2] * x[0] + v[3] * x[1]).tanh();
        let out = v[8] + v[6] * h0 + v[7] * h1;
        total += (out - y) * (out - y);
    }
    total / ys.len() as f64
}

#[test]
fn a_nested_struct_field_passed_on_whole_to_a_layer() {
    let mut inputs = Inputs(3902);
    for _ in 0..8 {
        let point = inputs.vec(9);
        let (xs, ys) = batch(&mut inputs);
        let m = model(&point);
        let by_hand = |v: &[f64]| model_loss_by_hand(v, &xs, &ys);
        let grad = |v: &[f64]| model_loss_grad(&model(v), &xs, &ys).1.to_flat();
        let (value, g) = model_loss_grad(&m, &xs, &ys);
        assert_all_close(
            &[value, model_loss(&m, &xs, &ys)],
            &[by_hand(&point); 2],
            1e-12,
            "value",
        );
        assert_fd_gradient(by_hand, &point, &g.to_flat(), "model_loss");
        let (value, g2, h) = model_loss_hessian(&m, &xs, &ys);
        assert_all_close(&[value], &[by_hand(&point)], 1e-12, "hessian's value");
        assert_all_close(&g2.to_flat(), &g.to_flat(), 1e-12, "hessian's gradient");
        assert_hessian_fd(&h, grad, &point, 1e-6, "model_loss Hessian");
        let direction = inputs.vec(9);
        let (_, _, hv) = model_loss_hvp(&m, &xs, &ys, m.from_flat(&direction));
        let product: Vec<f64> = h
            .iter()
            .map(|row| row.iter().zip(&direction).map(|(a, b)| a * b).sum())
            .collect();
        assert_all_close(&hv.to_flat(), &product, 1e-9, "hvp against the Hessian");
    }
}

// ---- 3. a field passed on whole to a slice helper returning a float, from a function with an output

#[derive(Clone, Debug, Differentiable)]
pub struct Pair {
    pub a: f64,
    pub b: Vec<f64>,
}

/// A callee with an output that passes a field on whole (`slice_dot(&p.b, x)`).
#[differentiable]
fn field_into(p: &Pair, x: &[f64], out: &mut [f64]) {
    out[0] = p.a * slice_dot(&p.b, x);
    out[1] = (slice_dot(&p.b, &p.b) + x[0]).sin();
}

#[differentiable(order = 2)]
fn through_field_into(p: &Pair, x: f64) -> f64 {
    let xs = [x, 2.0 * x, x * x];
    let mut out = vec![0.0; 2];
    field_into(p, &xs, &mut out);
    out[0] * out[0] + out[1] * x
}

fn through_field_into_by_hand(v: &[f64]) -> f64 {
    let (a, b, x) = (v[0], &v[1..4], v[4]);
    let xs = [x, 2.0 * x, x * x];
    let dot: f64 = b.iter().zip(&xs).map(|(p, q)| p * q).sum();
    let bb: f64 = b.iter().map(|p| p * p).sum();
    let o0 = a * dot;
    let o1 = (bb + x).sin();
    o0 * o0 + o1 * x
}

#[test]
fn a_field_passed_on_whole_to_a_slice_helper_from_a_function_with_an_output() {
    let mut inputs = Inputs(3903);
    for _ in 0..8 {
        let point = inputs.vec(5);
        let pair = |v: &[f64]| Pair {
            a: v[0],
            b: v[1..4].to_vec(),
        };
        let flat_grad = |v: &[f64]| {
            let (_, (gp, gx)) = through_field_into_grad(&pair(v), v[4]);
            let mut g = gp.to_flat();
            g.push(gx);
            g
        };
        let (value, _) = through_field_into_grad(&pair(&point), point[4]);
        assert_all_close(
            &[value, through_field_into(&pair(&point), point[4])],
            &[through_field_into_by_hand(&point); 2],
            1e-12,
            "value",
        );
        assert_fd_gradient(
            through_field_into_by_hand,
            &point,
            &flat_grad(&point),
            "through_field_into",
        );
        let (_, _, h) = through_field_into_hessian(&pair(&point), point[4]);
        assert_hessian_fd(&h, flat_grad, &point, 1e-6, "through_field_into Hessian");
        let d = inputs.vec(5);
        let (_, _, (hp, hx)) = through_field_into_hvp(&pair(&point), point[4], (pair(&d), d[4]));
        let mut hv = hp.to_flat();
        hv.push(hx);
        let product: Vec<f64> = h
            .iter()
            .map(|row| row.iter().zip(&d).map(|(a, b)| a * b).sum())
            .collect();
        assert_all_close(&hv, &product, 1e-9, "hvp against the Hessian");
    }
}

// ---- 4. first order of functions passing fields on whole to callees without a real `__g_pairs`: a callee
// that returns a float and writes an output (a stand-in `__weigh_pairs`, whose generic copy is a compile
// error once an `order = K` caller instantiates it), one of another module (not read from the source: no
// hidden function, stand-ins as before) and a plain helper without derivatives on a constant field.

#[derive(Clone, Debug, Differentiable)]
pub struct Weighed {
    pub w: Vec<f64>,
    pub t: f64,
}

#[differentiable]
fn weigh(w: &[f64], out: &mut [f64]) -> f64 {
    out[0] = w[0] * w[1];
    w[0] + w[1]
}

#[differentiable]
fn weighed(p: &Weighed, x: f64) -> f64 {
    let mut o = vec![0.0; 1];
    let s = weigh(&p.w, &mut o);
    s * x + o[0] * p.t
}

mod elsewhere {
    use autodiff::differentiable;

    #[differentiable]
    pub fn norm2(w: &[f64]) -> f64 {
        w[0] * w[0] + w[1] * w[1]
    }
}

use elsewhere::norm2;

#[differentiable]
fn imported(p: &Weighed, x: f64) -> f64 {
    norm2(&p.w) * x + p.t
}

fn count_positive(w: &[f64]) -> usize {
    w.iter().filter(|v| **v > 0.0).count()
}

#[differentiable]
fn counted(p: &Weighed, x: f64) -> f64 {
    let n: usize = count_positive(&p.w);
    n as f64 * x * p.t
}

/// The `_grad` of a function of a `Weighed` and a float.
type WeighedGrad = dyn Fn(&Weighed, f64) -> (f64, (Weighed, f64));

#[test]
fn first_orders_beside_callees_without_a_real_pairs_function() {
    let mut inputs = Inputs(3904);
    for _ in 0..8 {
        let point = inputs.vec(4);
        let weighed_struct = |v: &[f64]| Weighed {
            w: v[0..2].to_vec(),
            t: v[2],
        };
        let flat = |f: &WeighedGrad, v: &[f64]| {
            let (_, (gp, gx)) = f(&weighed_struct(v), v[3]);
            let mut g = gp.to_flat();
            g.push(gx);
            g
        };
        let value = |f: fn(&Weighed, f64) -> f64, v: &[f64]| f(&weighed_struct(v), v[3]);
        let by_hand = |v: &[f64]| (v[0] + v[1]) * v[3] + v[0] * v[1] * v[2];
        assert_all_close(
            &[value(weighed, &point)],
            &[by_hand(&point)],
            1e-12,
            "weighed",
        );
        assert_fd_gradient(by_hand, &point, &flat(&weighed_grad, &point), "weighed");
        let by_hand = |v: &[f64]| (v[0] * v[0] + v[1] * v[1]) * v[3] + v[2];
        assert_all_close(
            &[value(imported, &point)],
            &[by_hand(&point)],
            1e-12,
            "imported",
        );
        assert_fd_gradient(by_hand, &point, &flat(&imported_grad, &point), "imported");
        // Away from the count's steps (`w` at zero), where central differences see a constant count.
        if point[0].abs() > 1e-3 && point[1].abs() > 1e-3 {
            let by_hand = |v: &[f64]| {
                let n = v[0..2].iter().filter(|w| **w > 0.0).count() as f64;
                n * v[3] * v[2]
            };
            assert_all_close(
                &[value(counted, &point)],
                &[by_hand(&point)],
                1e-12,
                "counted",
            );
            assert_fd_gradient(by_hand, &point, &flat(&counted_grad, &point), "counted");
        }
    }
}
