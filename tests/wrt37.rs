//! A float parameter outside `wrt(..)` passed to a plain helper (no derivatives) whose value is an array, a
//! `Vec` or a tuple, that takes a tuple, or that writes an output parameter: `#[differentiable(wrt(w))] fn
//! loss(w: &[f64], data: &[f64])` with `let f = features(data[0]);`, the common shape of a loss over data
//! made by a plain feature function. Until session 37 each was rustc's E0277 "this function has no
//! derivative, and a differentiable function calls it with a differentiated argument", though no argument
//! was differentiated: the hidden sweeps through which other differentiable functions call the function
//! differentiate every float parameter, and `maybe.rs` chooses a plain callee at compile time only for calls
//! whose value is one float. Now the hidden sweeps of such a function keep the parameters outside `wrt(..)`
//! constant (`maybe::constant_through`), and a caller that differentiates one of them is a compile error at
//! its call (`tests/ui/calls/differentiated-through-a-constant-parameter.rs`), never a zero derivative.
//!
//! Checked against analytic derivatives and central differences (`common`, no code shared with the
//! macro) at seeded points, directly and through callers that pass constants for those parameters.

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_close, assert_fd_gradient, Inputs};

/// Plain helpers: no derivatives.
fn features(c: f64) -> Vec<f64> {
    vec![c, c * c]
}

fn features_array(c: f64) -> [f64; 2] {
    [c, c * c]
}

fn fill(c: f64, out: &mut [f64]) {
    out[0] = c;
    out[1] = 2.0 * c;
}

fn pair(c: f64) -> (f64, f64) {
    (c, c * c)
}

fn product(t: (f64, f64)) -> f64 {
    t.0 * t.1
}

fn moments(data: &[f64]) -> Vec<f64> {
    let n = data.len() as f64;
    let mean = data.iter().sum::<f64>() / n;
    vec![mean, data.iter().map(|d| d * d).sum::<f64>() / n]
}

#[differentiable(wrt(a))]
fn through_vec(a: f64, c: f64) -> f64 {
    let v = features(c);
    a * v[0] + a * a * v[1]
}

#[differentiable(wrt(a))]
fn through_array(a: f64, c: f64) -> f64 {
    let v = features_array(c);
    a.sin() * v[0] + a * a * v[1]
}

#[differentiable(wrt(a))]
fn through_output(a: f64, c: f64) -> f64 {
    let mut v = [0.0; 2];
    fill(c, &mut v);
    a * v[0] + a * a * a * v[1]
}

#[differentiable(wrt(a))]
fn through_pair(a: f64, c: f64) -> f64 {
    let (p, q) = pair(c);
    a * p + a.exp() * q
}

#[differentiable(wrt(a))]
fn through_tuple_argument(a: f64, c: f64) -> f64 {
    a * a * product((0.5, c))
}

/// The loss shape: weights differentiated, data through a plain feature function.
#[differentiable(wrt(w))]
fn loss(w: &[f64], data: &[f64]) -> f64 {
    let m = moments(data);
    let r = w[0] * m[0] + w[1] * m[1] - 1.0;
    r * r
}

/// Calls the functions above with constants where they leave parameters out of `wrt(..)`: through their
/// hidden sweeps.
#[differentiable]
fn caller(x: f64) -> f64 {
    through_vec(x * x, 2.0)
        + through_array(x, 0.5)
        + through_output(x, -1.5)
        + through_pair(x.sin(), 3.0)
        + through_tuple_argument(x, 0.25)
}

#[differentiable]
fn loss_caller(w: &[f64]) -> f64 {
    let data = [0.5, 1.5, -0.25];
    loss(w, &data) * w[0]
}

#[test]
fn excluded_parameters_through_plain_helpers_of_arrays_tuples_and_outputs() {
    let mut inputs = Inputs(37_001);
    for _ in 0..16 {
        let (a, c) = (2.0 * inputs.next(), 2.0 * inputs.next());
        let f = |a: f64| a * c + a * a * c * c;
        let (v, g) = through_vec_grad(a, c);
        assert_close(v, f(a), 1e-12, "through_vec");
        assert_close(g, c + 2.0 * a * c * c, 1e-12, "through_vec'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "through_vec");
        let (_, t) = through_vec_jvp(a, c, 0.7);
        assert_close(t, 0.7 * (c + 2.0 * a * c * c), 1e-12, "through_vec_jvp");

        let f = |a: f64| a.sin() * c + a * a * c * c;
        let (v, g) = through_array_grad(a, c);
        assert_close(v, f(a), 1e-12, "through_array");
        assert_close(g, a.cos() * c + 2.0 * a * c * c, 1e-12, "through_array'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "through_array");

        let f = |a: f64| a * c + 2.0 * a * a * a * c;
        let (v, g) = through_output_grad(a, c);
        assert_close(v, f(a), 1e-12, "through_output");
        assert_close(g, c + 6.0 * a * a * c, 1e-12, "through_output'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "through_output");

        let f = |a: f64| a * c + a.exp() * c * c;
        let (v, g) = through_pair_grad(a, c);
        assert_close(v, f(a), 1e-12, "through_pair");
        assert_close(g, c + a.exp() * c * c, 1e-12, "through_pair'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "through_pair");
        let (_, g) = through_pair_vjp(a, c, -1.25);
        assert_close(g, -1.25 * (c + a.exp() * c * c), 1e-12, "through_pair_vjp");

        let f = |a: f64| a * a * 0.5 * c;
        let (v, g) = through_tuple_argument_grad(a, c);
        assert_close(v, f(a), 1e-12, "through_tuple_argument");
        assert_close(g, a * c, 1e-12, "through_tuple_argument'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "through_tuple_argument");
    }
}

#[test]
fn a_loss_over_data_made_by_a_plain_feature_function() {
    let mut inputs = Inputs(37_002);
    for _ in 0..16 {
        let w = [inputs.next(), inputs.next()];
        let data = inputs.vec(5);
        let n = data.len() as f64;
        let (m0, m1) = (
            data.iter().sum::<f64>() / n,
            data.iter().map(|d| d * d).sum::<f64>() / n,
        );
        let f = |w: &[f64]| (w[0] * m0 + w[1] * m1 - 1.0).powi(2);
        let (v, g) = loss_grad(&w, &data);
        assert_close(v, f(&w), 1e-12, "loss");
        let r = w[0] * m0 + w[1] * m1 - 1.0;
        assert_close(g[0], 2.0 * r * m0, 1e-12, "dloss/dw0");
        assert_close(g[1], 2.0 * r * m1, 1e-12, "dloss/dw1");
        assert_fd_gradient(f, &w, &g, "loss");

        // Through the hidden sweeps, with the data a constant of the caller.
        let (m0, m1) = (0.5833333333333334, (0.25 + 2.25 + 0.0625) / 3.0);
        let h = |w: &[f64]| (w[0] * m0 + w[1] * m1 - 1.0).powi(2) * w[0];
        let (v, g) = loss_caller_grad(&w);
        assert_close(v, h(&w), 1e-12, "loss_caller");
        assert_fd_gradient(h, &w, &g, "loss_caller");
    }
}

#[test]
fn callers_passing_constants_through_the_hidden_sweeps() {
    let f = |x: f64| {
        let y = x * x;
        (y * 2.0 + y * y * 4.0)
            + (x.sin() * 0.5 + x * x * 0.25)
            + (x * -1.5 + 2.0 * x * x * x * -1.5)
            + (x.sin() * 3.0 + x.sin().exp() * 9.0)
            + x * x * 0.5 * 0.25
    };
    let mut inputs = Inputs(37_003);
    for _ in 0..16 {
        let x = 2.0 * inputs.next() - 1.0;
        let (v, g) = caller_grad(x);
        assert_close(v, f(x), 1e-12, "caller");
        assert_close(caller(x), v, 1e-12, "caller as written");
        let by_hand = 4.0 * x
            + 16.0 * x.powi(3)
            + (0.5 * x.cos() + 0.5 * x)
            + (-1.5 - 9.0 * x * x)
            + x.cos() * (3.0 + 9.0 * x.sin().exp())
            + 0.25 * x;
        assert_close(g, by_hand, 1e-10, "caller'");
        assert_fd_gradient(|p| f(p[0]), &[x], &[g], "caller");
        let (_, t) = caller_jvp(x, -0.6);
        assert_close(t, -0.6 * by_hand, 1e-10, "caller_jvp");
    }
}

/// A parameter struct whose field's value, computed on, is cast to an integer (a loop bound): until session
/// 37 its generic copy (made for `order = K` callers, reading the fields in its float type) cast that float
/// type with `as` (rustc's E0605), which broke the function's first order. Such a function now has no copy
/// (`expand.rs` `casts_to_an_integer`).
#[derive(Clone, Debug, Differentiable)]
struct Bins {
    w: Vec<f64>,
    b: Vec<f64>,
}

#[differentiable]
fn binned(p: &Bins, x: f64) -> f64 {
    let n = (p.w[0].abs() * 3.0) as usize;
    let mut s = 0.0;
    for k in 0..n {
        s += p.b[k % p.b.len()] * x;
    }
    s * p.w[1]
}

#[test]
fn a_field_cast_to_an_integer_in_a_function_of_a_parameter_struct() {
    let mut inputs = Inputs(37_004);
    for _ in 0..16 {
        let p = Bins {
            w: vec![1.7 * inputs.next(), inputs.next()],
            b: inputs.vec(3),
        };
        let x = inputs.next();
        let n = (p.w[0].abs() * 3.0) as usize;
        let sum_b: f64 = (0..n).map(|k| p.b[k % 3]).sum();
        let (v, (g, gx)) = binned_grad(&p, x);
        assert_close(v, sum_b * x * p.w[1], 1e-12, "binned");
        assert_close(gx, sum_b * p.w[1], 1e-12, "d/dx");
        // The bound is piecewise constant in w[0]: a zero derivative there, as in JAX.
        assert_close(g.w[0], 0.0, 0.0, "d/dw0");
        assert_close(g.w[1], sum_b * x, 1e-12, "d/dw1");
        for (k, gb) in g.b.iter().enumerate() {
            let count = (0..n).filter(|j| j % 3 == k).count() as f64;
            assert_close(*gb, count * x * p.w[1], 1e-12, "d/db");
        }
        let f = |q: &[f64]| {
            let pb = Bins {
                w: vec![p.w[0], q[0]],
                b: q[1..4].to_vec(),
            };
            binned(&pb, q[4])
        };
        let at = [p.w[1], p.b[0], p.b[1], p.b[2], x];
        let grad = [g.w[1], g.b[0], g.b[1], g.b[2], gx];
        assert_fd_gradient(f, &at, &grad, "binned");
    }
}
