//! `#[no_grad]` fields whose declared type holds no float (an enum, a flag, an integer) are constants of
//! the body where the file declares the struct (`context::declared_constant_field`): `match p.act { .. }`,
//! `if p.flag`, `p.kind == Kind::A`, `p.n as f64`, the field passed to a plain helper or to another
//! differentiable function taking the enum. Before, `match self.act` on such a field was "a `match` on a
//! value that depends on the differentiated inputs", and `p.act == Act::Tanh` a type error. Gradients are
//! checked against central differences of the plain functions on seeded points (and by hand where easy),
//! Hessians against central differences of `_grad`, `_grad_into` against `_grad`.

#![allow(dead_code, clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

/// An activation: a constant of each layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Act {
    Tanh,
    Relu,
    Identity,
    LeakyRelu(f64),
}

/// The slope of a leaky ReLU below zero, a plain helper of the enum (no derivative).
fn leak(act: Act) -> f64 {
    match act {
        Act::LeakyRelu(s) => s,
        _ => 0.0,
    }
}

/// The activation, a differentiable function of the float taking the enum as data.
#[differentiable(order = 2)]
pub fn activate(z: f64, act: Act) -> f64 {
    match act {
        Act::Tanh => z.tanh(),
        Act::Relu => z.max(0.0),
        Act::Identity => z,
        // (The slope by a plain helper; a pattern binding it, `Act::LeakyRelu(s) =>`: tests/structs42.rs.)
        _ => {
            if z > 0.0 {
                z
            } else {
                leak(act) * z
            }
        }
    }
}

/// One unit: weights, a bias, an activation.
#[derive(Clone, Debug, Differentiable)]
pub struct Layer {
    pub w: Vec<f64>,
    pub b: f64,
    #[no_grad]
    pub act: Act,
}

impl Layer {
    /// The repro of the task: `match self.act` in a method with `wrt(self)`.
    #[differentiable(wrt(self))]
    pub fn forward(&self, x: &[f64]) -> f64 {
        let mut z = self.b;
        for i in 0..x.len() {
            z += self.w[i] * x[i];
        }
        match self.act {
            Act::Tanh => z.tanh(),
            Act::Relu => z.max(0.0),
            Act::Identity => z,
            _ => {
                if z > 0.0 {
                    z
                } else {
                    leak(self.act) * z
                }
            }
        }
    }

    /// Passes `self` on whole to `forward`.
    #[differentiable(wrt(self))]
    pub fn loss(&self, x: &[f64], y: f64) -> f64 {
        let r = self.forward(x) - y;
        0.5 * r * r
    }
}

/// The plain layer, the oracle.
fn layer_plain(w: &[f64], b: f64, act: Act, x: &[f64]) -> f64 {
    let z = b + w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
    match act {
        Act::Tanh => z.tanh(),
        Act::Relu => z.max(0.0),
        Act::Identity => z,
        Act::LeakyRelu(s) => {
            if z > 0.0 {
                z
            } else {
                s * z
            }
        }
    }
}

/// The derivative of the activation at `z`.
fn act_slope(act: Act, z: f64) -> f64 {
    match act {
        Act::Tanh => 1.0 - z.tanh() * z.tanh(),
        Act::Relu => (z > 0.0) as i32 as f64,
        Act::Identity => 1.0,
        Act::LeakyRelu(s) => {
            if z > 0.0 {
                1.0
            } else {
                s
            }
        }
    }
}

/// A free function of the layer, `wrt(p)`: the enum compared and passed to the helper and to `activate`.
#[differentiable(wrt(p))]
pub fn unit(p: &Layer, x: &[f64]) -> f64 {
    let mut z = p.b;
    for i in 0..x.len() {
        z += p.w[i] * x[i];
    }
    if p.act == Act::Identity {
        z
    } else {
        activate(z, p.act) + 0.0 * leak(p.act)
    }
}

/// By default activity (every parameter active), at `order = 2`.
#[differentiable(order = 2)]
pub fn unit2(p: &Layer, x: &[f64]) -> f64 {
    let mut z = p.b;
    for i in 0..x.len() {
        z += p.w[i] * x[i];
    }
    let a = match p.act {
        Act::Tanh => z.tanh(),
        Act::Relu => z.max(0.0),
        Act::Identity => z,
        _ => {
            if z > 0.0 {
                z
            } else {
                leak(p.act) * z
            }
        }
    };
    a * a
}

/// The same unit at `order = 2` with `wrt(p)`, which `Mlp`'s loss calls with each layer passed on whole.
#[differentiable(order = 2, wrt(p))]
pub fn unit_o2(p: &Layer, x: &[f64]) -> f64 {
    let mut z = p.b;
    for i in 0..x.len() {
        z += p.w[i] * x[i];
    }
    let slope = leak(p.act);
    if slope > 0.0 {
        if z > 0.0 {
            z
        } else {
            slope * z
        }
    } else {
        activate(z, p.act)
    }
}

/// How the loss is taken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Squared,
    Absolute,
}

/// Two hidden units and an output unit, nested `Differentiable` structs, with constant fields of its own:
/// a count, a flag, an enum.
#[derive(Clone, Debug, Differentiable)]
pub struct Mlp {
    pub h1: Layer,
    pub h2: Layer,
    pub out: Layer,
    #[no_grad]
    pub n: usize,
    #[no_grad]
    pub average: bool,
    #[no_grad]
    pub kind: Kind,
}

/// The loss over `m.n` examples of two inputs: each layer passed on whole, the output layer's activation
/// read through the nested path `m.out.act`, the count converted by `as`, the flag a condition, the enum
/// compared.
#[differentiable(order = 2)]
pub fn mlp_loss(m: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..m.n {
        let x = [xs[2 * k], xs[2 * k + 1]];
        let h = [unit_o2(&m.h1, &x), unit_o2(&m.h2, &x)];
        let mut o = unit_o2(&m.out, &h);
        if m.out.act == Act::Identity {
            o += 0.0;
        }
        let r = o - ys[k];
        s += if m.kind == Kind::Squared {
            r * r
        } else {
            r.abs()
        };
    }
    if m.average {
        s / m.n as f64
    } else {
        s
    }
}

impl Mlp {
    /// A method passing `self` on whole.
    #[differentiable(wrt(self), order = 2)]
    pub fn loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
        mlp_loss(self, xs, ys)
    }
}

/// The plain loss, the oracle.
fn mlp_plain(m: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..m.n {
        let x = [xs[2 * k], xs[2 * k + 1]];
        let h = [
            layer_plain(&m.h1.w, m.h1.b, m.h1.act, &x),
            layer_plain(&m.h2.w, m.h2.b, m.h2.act, &x),
        ];
        let r = layer_plain(&m.out.w, m.out.b, m.out.act, &h) - ys[k];
        s += if m.kind == Kind::Squared {
            r * r
        } else {
            r.abs()
        };
    }
    if m.average {
        s / m.n as f64
    } else {
        s
    }
}

/// First order only, its enum read by `match` and by a plain helper; an `order = 2` caller passes it the
/// layer on whole (through the hidden function over the struct's values).
#[differentiable]
pub fn unit_first(p: &Layer, x: &[f64]) -> f64 {
    let mut z = p.b;
    for i in 0..x.len() {
        z += p.w[i] * x[i];
    }
    match p.act {
        Act::Tanh => z.tanh(),
        Act::Relu => z.max(0.0),
        Act::Identity => z,
        _ => {
            if z > 0.0 {
                z
            } else {
                leak(p.act) * z
            }
        }
    }
}

#[differentiable(order = 2)]
pub fn unit_squared(p: &Layer, x: &[f64]) -> f64 {
    let u = unit_first(p, x);
    u * u + p.b * x[0]
}

impl Layer {
    /// Each input through the unit scaled: a `Vec` result, whose Jacobian in `self` is made.
    #[differentiable(wrt(self))]
    pub fn scaled(&self, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            let z = self.w[i] * x[i] + self.b;
            out[i] = if self.act == Act::Tanh { z.tanh() } else { z };
        }
        out
    }
}

/// Constant fields of other types: a `String`, a flag and an integer, read by a method at `order = 2`.
#[derive(Clone, Debug, Differentiable)]
pub struct Tagged {
    pub a: f64,
    pub b: f64,
    #[no_grad]
    pub name: String,
    #[no_grad]
    pub on: bool,
    #[no_grad]
    pub k: i32,
}

impl Tagged {
    #[differentiable(wrt(self), order = 2)]
    pub fn energy(&self, x: f64) -> f64 {
        let s = if self.on { self.a * x } else { self.b };
        let t = if self.name == "square" {
            s * s
        } else {
            s.sin()
        };
        t * self.b + self.k as f64 * self.a * self.a
    }
}

fn energy_plain(a: f64, b: f64, name: &str, on: bool, k: i32, x: f64) -> f64 {
    let s = if on { a * x } else { b };
    let t = if name == "square" { s * s } else { s.sin() };
    t * b + k as f64 * a * a
}

const ACTS: [Act; 4] = [Act::Tanh, Act::Relu, Act::Identity, Act::LeakyRelu(0.1)];

fn layer(inputs: &mut Inputs, n: usize, act: Act) -> Layer {
    Layer {
        w: inputs.vec(n),
        b: inputs.next(),
        act,
    }
}

fn mlp(inputs: &mut Inputs, k: usize) -> Mlp {
    Mlp {
        h1: layer(inputs, 2, ACTS[k % 4]),
        h2: layer(inputs, 2, ACTS[(k + 1) % 4]),
        out: layer(inputs, 2, ACTS[(k + 2) % 4]),
        n: 1 + k % 3,
        average: k.is_multiple_of(2),
        kind: if k.is_multiple_of(3) {
            Kind::Absolute
        } else {
            Kind::Squared
        },
    }
}

#[test]
fn a_method_matches_on_its_enum_field() {
    let mut inputs = Inputs(41_001);
    for k in 0..12 {
        let act = ACTS[k % 4];
        let l = layer(&mut inputs, 3, act);
        let x = inputs.vec(3);
        let (v, g) = l.forward_grad(&x);
        assert_close(v, layer_plain(&l.w, l.b, act, &x), 1e-12, "forward");
        assert_eq!(g.act, act, "the gradient copies the enum field");
        let f = |flat: &[f64]| {
            let p = l.from_flat(flat);
            layer_plain(&p.w, p.b, act, &x)
        };
        assert_fd_gradient(f, &l.to_flat(), &g.to_flat(), "forward_grad");
        // By hand: the activation's slope times (x, 1).
        let z = l.b + l.w.iter().zip(&x).map(|(a, b)| a * b).sum::<f64>();
        let slope = act_slope(act, z);
        let mut expected: Vec<f64> = x.iter().map(|xi| slope * xi).collect();
        expected.push(slope);
        assert_all_close(&g.to_flat(), &expected, 1e-12, "forward_grad by hand");
        // `loss` passes `self` on whole to `forward`.
        let y = inputs.next();
        let (lv, lg) = l.loss_grad(&x, y);
        assert_close(lv, 0.5 * (v - y) * (v - y), 1e-12, "loss");
        let scaled: Vec<f64> = expected.iter().map(|e| (v - y) * e).collect();
        assert_all_close(&lg.to_flat(), &scaled, 1e-12, "loss_grad by hand");
        assert_eq!(lg.act, act);
    }
}

#[test]
fn a_free_function_compares_and_passes_on_its_enum_field() {
    let mut inputs = Inputs(41_002);
    for k in 0..12 {
        let act = ACTS[k % 4];
        let l = layer(&mut inputs, 3, act);
        let x = inputs.vec(3);
        let (v, g) = unit_grad(&l, &x);
        assert_close(v, layer_plain(&l.w, l.b, act, &x), 1e-12, "unit");
        assert_eq!(g.act, act);
        let f = |flat: &[f64]| {
            let p = l.from_flat(flat);
            layer_plain(&p.w, p.b, act, &x)
        };
        assert_fd_gradient(f, &l.to_flat(), &g.to_flat(), "unit_grad");
        let (_, gm) = l.forward_grad(&x);
        assert_all_close(
            &g.to_flat(),
            &gm.to_flat(),
            1e-12,
            "unit_grad against forward_grad",
        );
        // `_grad_into` writes the same gradient, the enum copied.
        let mut into = Layer {
            w: vec![7.0; 3],
            b: 7.0,
            act: Act::Identity,
        };
        let vi = unit_grad_into(&l, &x, &mut into);
        assert_eq!(vi, v);
        assert_eq!(into.act, act, "grad_into copies the enum field");
        assert_all_close(&into.to_flat(), &g.to_flat(), 0.0, "unit_grad_into");
    }
}

#[test]
fn every_parameter_active_at_order_2() {
    let mut inputs = Inputs(41_003);
    for k in 0..12 {
        let act = ACTS[k % 4];
        let l = layer(&mut inputs, 2, act);
        let x = inputs.vec(2);
        let plain = |p: &Layer, x: &[f64]| layer_plain(&p.w, p.b, act, x).powi(2);
        let (v, (gl, gx)) = unit2_grad(&l, &x);
        assert_close(v, plain(&l, &x), 1e-12, "unit2");
        assert_eq!(gl.act, act);
        // Flat inputs: the layer's (w, b), then x.
        let mut at = l.to_flat();
        at.extend_from_slice(&x);
        let f = |flat: &[f64]| plain(&l.from_flat(&flat[..3]), &flat[3..]);
        let mut flat_grad = gl.to_flat();
        flat_grad.extend_from_slice(&gx);
        assert_fd_gradient(f, &at, &flat_grad, "unit2_grad");
        let grad = |flat: &[f64]| {
            let (_, (gl, gx)) = unit2_grad(&l.from_flat(&flat[..3]), &flat[3..]);
            let mut g = gl.to_flat();
            g.extend_from_slice(&gx);
            g
        };
        let (vh, gh, h) = unit2_hessian(&l, &x);
        assert_close(vh, v, 1e-12, "unit2_hessian's value");
        assert_eq!(gh.0.act, act);
        assert_hessian_fd(&h, grad, &at, 1e-6, "unit2_hessian");
        // `_hvp` against the Hessian's product.
        let dir = inputs.vec(5);
        let (_, _, (hl, hx)) = unit2_hvp(&l, &x, (l.from_flat(&dir[..3]), dir[3..].to_vec()));
        let mut hv = hl.to_flat();
        hv.extend_from_slice(&hx);
        let expected: Vec<f64> = h.iter().map(|row| common::dot(row, &dir)).collect();
        assert_all_close(&hv, &expected, 1e-10, "unit2_hvp");
    }
}

#[test]
fn an_mlp_of_layers_with_enum_activations() {
    let mut inputs = Inputs(41_004);
    for k in 0..12 {
        let m = mlp(&mut inputs, k);
        let xs = inputs.vec(2 * m.n);
        let ys = inputs.vec(m.n);
        let (v, g) = m.loss_grad(&xs, &ys);
        assert_close(v, mlp_plain(&m, &xs, &ys), 1e-12, "loss");
        assert_eq!(
            (g.n, g.average, g.kind, g.h1.act, g.h2.act, g.out.act),
            (m.n, m.average, m.kind, m.h1.act, m.h2.act, m.out.act),
            "the gradient copies every constant field"
        );
        let f = |flat: &[f64]| mlp_plain(&m.from_flat(flat), &xs, &ys);
        assert_fd_gradient(f, &m.to_flat(), &g.to_flat(), "loss_grad");
        let (vf, (gf, _, _)) = mlp_loss_grad(&m, &xs, &ys);
        assert_eq!(vf, v);
        assert_all_close(&gf.to_flat(), &g.to_flat(), 1e-12, "mlp_loss_grad");
        let grad = |flat: &[f64]| m.from_flat(flat).loss_grad(&xs, &ys).1.to_flat();
        let (vh, gh, h) = m.loss_hessian(&xs, &ys);
        assert_close(vh, v, 1e-12, "loss_hessian's value");
        assert_all_close(
            &gh.to_flat(),
            &g.to_flat(),
            1e-12,
            "loss_hessian's gradient",
        );
        assert_hessian_fd(&h, grad, &m.to_flat(), 1e-6, "loss_hessian");
    }
}

#[test]
fn a_first_order_callee_of_an_order_2_caller() {
    let mut inputs = Inputs(41_005);
    for k in 0..12 {
        let act = ACTS[k % 4];
        let l = layer(&mut inputs, 2, act);
        let x = inputs.vec(2);
        let plain = |p: &Layer, x: &[f64]| layer_plain(&p.w, p.b, act, x).powi(2) + p.b * x[0];
        let (v, (gl, gx)) = unit_squared_grad(&l, &x);
        assert_close(v, plain(&l, &x), 1e-12, "unit_squared");
        assert_eq!(gl.act, act);
        let mut at = l.to_flat();
        at.extend_from_slice(&x);
        let f = |flat: &[f64]| plain(&l.from_flat(&flat[..3]), &flat[3..]);
        let mut flat_grad = gl.to_flat();
        flat_grad.extend_from_slice(&gx);
        assert_fd_gradient(f, &at, &flat_grad, "unit_squared_grad");
        let grad = |flat: &[f64]| {
            let (_, (gl, gx)) = unit_squared_grad(&l.from_flat(&flat[..3]), &flat[3..]);
            let mut g = gl.to_flat();
            g.extend_from_slice(&gx);
            g
        };
        let (_, _, h) = unit_squared_hessian(&l, &x);
        assert_hessian_fd(&h, grad, &at, 1e-6, "unit_squared_hessian");
        // And `unit_first` itself, by hand.
        let (_, (g1, gx1)) = unit_first_grad(&l, &x);
        let z = l.b + l.w[0] * x[0] + l.w[1] * x[1];
        let slope = act_slope(act, z);
        assert_all_close(
            &g1.to_flat(),
            &[slope * x[0], slope * x[1], slope],
            1e-12,
            "unit_first_grad",
        );
        assert_all_close(
            &gx1,
            &[slope * l.w[0], slope * l.w[1]],
            1e-12,
            "unit_first_grad in x",
        );
    }
}

#[test]
fn the_jacobian_of_a_method_comparing_its_enum() {
    let mut inputs = Inputs(41_006);
    for k in 0..12 {
        let act = ACTS[k % 4];
        let l = layer(&mut inputs, 3, act);
        let x = inputs.vec(3);
        let jacobian = l.scaled_jacobian(&x);
        let expected = common::fd_jacobian(|q| l.from_flat(q).scaled(&x), &l.to_flat());
        common::assert_jacobian(&jacobian, &expected, "Layer::scaled_jacobian");
        // By hand: d out_i / d w_j = [i == j] s_i x_i, d out_i / d b = s_i.
        for i in 0..3 {
            let z = l.w[i] * x[i] + l.b;
            let s = if act == Act::Tanh {
                1.0 - z.tanh().powi(2)
            } else {
                1.0
            };
            for j in 0..3 {
                let e = if i == j { s * x[i] } else { 0.0 };
                assert_close(jacobian[i][j], e, 1e-12, "scaled_jacobian by hand");
            }
            assert_close(jacobian[i][3], s, 1e-12, "scaled_jacobian by hand, b");
        }
    }
}

#[test]
fn grad_into_of_a_method_and_of_the_mlp() {
    let mut inputs = Inputs(41_007);
    for k in 0..12 {
        let m = mlp(&mut inputs, k);
        let xs = inputs.vec(2 * m.n);
        let ys = inputs.vec(m.n);
        let (v, g) = m.loss_grad(&xs, &ys);
        let mut into = m.zero_like();
        into.kind = Kind::Squared;
        into.out.act = Act::Relu;
        let vi = m.loss_grad_into(&xs, &ys, &mut into);
        assert_eq!(vi, v);
        assert_eq!((into.kind, into.out.act, into.n), (m.kind, m.out.act, m.n));
        assert_all_close(&into.to_flat(), &g.to_flat(), 0.0, "Mlp::loss_grad_into");
        let l = &m.h1;
        let x = inputs.vec(2);
        let (lv, lg) = l.forward_grad(&x);
        let mut lin = l.zero_like();
        lin.act = Act::Identity;
        assert_eq!(l.forward_grad_into(&x, &mut lin), lv);
        assert_eq!(lin.act, l.act);
        assert_all_close(
            &lin.to_flat(),
            &lg.to_flat(),
            0.0,
            "Layer::forward_grad_into",
        );
    }
}

#[test]
fn a_string_a_flag_and_an_integer_field_at_order_2() {
    let mut inputs = Inputs(41_008);
    for k in 0..12_i32 {
        let t = Tagged {
            a: inputs.next(),
            b: inputs.next(),
            name: if k % 2 == 0 {
                "square".to_string()
            } else {
                "sine".to_string()
            },
            on: k % 3 != 0,
            k: k - 5,
        };
        let x = inputs.next();
        let plain = |flat: &[f64]| energy_plain(flat[0], flat[1], &t.name, t.on, t.k, x);
        let (v, g) = t.energy_grad(x);
        assert_close(v, plain(&[t.a, t.b]), 1e-12, "energy");
        assert_eq!(
            (&g.name, g.on, g.k),
            (&t.name, t.on, t.k),
            "the gradient copies the constants"
        );
        assert_fd_gradient(plain, &t.to_flat(), &g.to_flat(), "energy_grad");
        let grad = |flat: &[f64]| t.from_flat(flat).energy_grad(x).1.to_flat();
        let (vh, gh, h) = t.energy_hessian(x);
        assert_close(vh, v, 1e-12, "energy_hessian's value");
        assert_all_close(
            &gh.to_flat(),
            &g.to_flat(),
            1e-12,
            "energy_hessian's gradient",
        );
        assert_hessian_fd(&h, grad, &t.to_flat(), 1e-6, "energy_hessian");
        let mut into = t.zero_like();
        into.name.clear();
        into.on = !t.on;
        assert_eq!(t.energy_grad_into(x, &mut into), v);
        assert_eq!((&into.name, into.on, into.k), (&t.name, t.on, t.k));
        assert_all_close(&into.to_flat(), &g.to_flat(), 0.0, "energy_grad_into");
    }
}
