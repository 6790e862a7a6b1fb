//! Output parameters on associated functions and methods (API.md "Output parameters" and "Methods and
//! parameter structs"): `Model::rhs_vjp(y, p, dydt, d_dydt)`, `spring.force_jvp(x, out, tangent, d_out)`,
//! `f_jacobian`, calls `Self::rhs(&y, p, &mut k)`, `self.force(x, &mut f)` and `Model::rhs(..)` from a free
//! function, an output passed on bare (`self.force(x, out)`), `order = 2`, and a `self` differentiated
//! (`wrt(self)`). Checked against Jacobians worked out by hand and central differences.

// Differentiable bodies index their slices, as the macro reads them.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable, Float};
use common::*;
use proptest::prelude::*;

struct Model;

impl Model {
    /// Lotka-Volterra's right-hand side.
    #[differentiable]
    fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
        dydt[0] = p[0] * y[0] - p[1] * y[0] * y[1];
        dydt[1] = p[2] * y[0] * y[1] - p[3] * y[1];
    }

    /// A residual written into `r`, and its squared norm returned.
    #[differentiable]
    fn residual(x: &[f64], r: &mut [f64]) -> f64 {
        let mut norm = 0.0;
        for i in 0..x.len() {
            r[i] = x[i] * x[i] - 2.0;
            norm += r[i] * r[i];
        }
        norm
    }

    /// An output read before it is written (an input too) and a float output.
    #[differentiable]
    fn accumulate(a: f64, acc: &mut [f64; 3], e: &mut f64) {
        for i in 0..3 {
            acc[i] += a * (i as f64 + 1.0);
        }
        *e = a * acc[0];
    }

    /// Euler steps through `Self::rhs`, its buffer overwritten in every step.
    #[differentiable]
    fn euler(y0: &[f64], p: &[f64], h: f64) -> f64 {
        let mut y = y0.to_vec();
        let mut k = vec![0.0; 2];
        for _ in 0..3 {
            Self::rhs(&y, p, &mut k);
            for i in 0..2 {
                y[i] += h * k[i];
            }
        }
        y[0] * y[1]
    }

    /// Its own output passed on bare to `Self::rhs`, then read and written again.
    #[differentiable]
    fn damped_rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
        Self::rhs(y, p, dydt);
        dydt[0] -= 0.5 * dydt[1] * y[0];
    }

    /// `order = 2` through `Self::rhs`.
    #[differentiable(order = 2)]
    fn euler_curved(y0: &[f64], p: &[f64], h: f64) -> f64 {
        let mut k = [0.0; 2];
        Self::rhs(y0, p, &mut k);
        ((y0[0] + h * k[0]) * (y0[1] + h * k[1])).sin()
    }

    /// `order = 2` on an associated function with an output of its own.
    #[differentiable(order = 2)]
    fn cubes_into(x: &[f64], out: &mut [f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            out[i] = x[i] * x[i];
            s += out[i] * x[i];
        }
        s
    }
}

/// A free function calling the associated function by its type's name.
#[differentiable]
fn free_step(y0: &[f64], p: &[f64], h: f64) -> f64 {
    let mut k = [0.0; 2];
    Model::rhs(y0, p, &mut k);
    (y0[0] + h * k[0]) * (y0[1] + h * k[1])
}

/// The same at `order = 2`.
#[differentiable(order = 2)]
fn free_step_curved(y0: &[f64], p: &[f64], h: f64) -> f64 {
    let mut k = [0.0; 2];
    Model::rhs(y0, p, &mut k);
    ((y0[0] + h * k[0]) * (y0[1] + h * k[1])).exp()
}

/// A constant `self`, which does not derive `Differentiable`.
struct Spring {
    k: f64,
    rest: f64,
}

impl Spring {
    #[differentiable]
    fn force(&self, x: &[f64], out: &mut [f64]) {
        let n = x.len();
        for i in 0..n {
            out[i] = -self.k * (x[i] - self.rest) * x[(i + 1) % n];
        }
    }

    /// A float output beside a returned float.
    #[differentiable]
    fn potential(&self, x: f64, e: &mut f64) -> f64 {
        *e = 0.5 * self.k * (x - self.rest).powi(2);
        x * *e
    }

    /// Calls `self.force` with a local buffer.
    #[differentiable]
    fn energy(&self, x: &[f64]) -> f64 {
        let mut f = vec![0.0; x.len()];
        self.force(x, &mut f);
        let mut s = 0.0;
        for i in 0..x.len() {
            s += f[i] * f[i] * x[i];
        }
        s
    }

    /// Passes its own output on bare to `self.force`.
    #[differentiable]
    fn force_with_drag(&self, x: &[f64], out: &mut [f64]) {
        self.force(x, out);
        for i in 0..x.len() {
            out[i] -= 0.1 * x[i] * out[i];
        }
    }

    /// `order = 2` through `self.force`.
    #[differentiable(order = 2)]
    fn energy_curved(&self, x: &[f64]) -> f64 {
        let mut f = vec![0.0; x.len()];
        self.force(x, &mut f);
        let mut s = 0.0;
        for i in 0..x.len() {
            s += (f[i] * x[i]).tanh();
        }
        s
    }

    /// `order = 2` on a method with an output of its own.
    #[differentiable(order = 2)]
    fn work(&self, x: &[f64], out: &mut [f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            out[i] = self.k * x[i].sin();
            s += out[i] * x[i];
        }
        s
    }
}

/// A `self` differentiated: its gradient is a `Layer`.
#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

impl Layer {
    #[differentiable(wrt(self, x))]
    fn apply_into(&self, x: &[f64], out: &mut [f64]) {
        for i in 0..x.len() {
            out[i] = (self.w[i % 2] * x[i] + self.b).tanh();
        }
    }

    #[differentiable(wrt(self))]
    fn loss(&self, x: &[f64]) -> f64 {
        let mut o = vec![0.0; x.len()];
        self.apply_into(x, &mut o);
        let mut s = 0.0;
        for i in 0..x.len() {
            s += o[i] * o[i];
        }
        s
    }
}

impl Layer {
    /// `order = 2` in `self` through `self.apply_into(x, &mut o)`.
    #[differentiable(wrt(self), order = 2)]
    fn loss_curved(&self, x: &[f64]) -> f64 {
        let mut o = vec![0.0; x.len()];
        self.apply_into(x, &mut o);
        let mut s = 0.0;
        for i in 0..x.len() {
            s += (o[i] * x[i]).sin();
        }
        s
    }

    /// `order = 2` in `self` with an output of its own.
    #[differentiable(wrt(self), order = 2)]
    fn shifted_into(&self, x: &[f64], out: &mut [f64]) -> f64 {
        out[0] = self.b * x[0] * self.w[1];
        out[0] * self.w[0]
    }
}

impl Spring {
    /// `order = 2` with a float output.
    #[differentiable(order = 2)]
    fn potential_curved(&self, x: f64, e: &mut f64) -> f64 {
        *e = 0.5 * self.k * (x - self.rest).powi(2);
        (x * *e).sin()
    }
}

impl Layer {
    /// A float output, differentiated in `self`.
    #[differentiable(wrt(self))]
    fn bias_energy(&self, x: f64, e: &mut f64) -> f64 {
        *e = self.b * x * x;
        *e * self.w[0]
    }
}

/// A constant `self` taken by value, calling a method that takes `&self`, and with an output of its own.
#[derive(Clone, Copy)]
struct Gain {
    k: f64,
}

impl Gain {
    #[differentiable]
    fn product_into(&self, x: &[f64], out: &mut [f64]) {
        out[0] = self.k * x[0] * x[1];
    }

    #[differentiable]
    fn energy(self, x: &[f64]) -> f64 {
        let mut f = [0.0; 1];
        self.product_into(x, &mut f);
        f[0] * x[0]
    }

    #[differentiable]
    fn owned_into(self, x: &[f64], out: &mut [f64]) -> f64 {
        out[0] = self.k * x[0] * x[1];
        out[0] * x[0]
    }

    /// The callee named by `Self::`, `self` passed explicitly.
    #[differentiable]
    fn by_path(&self, x: &[f64]) -> f64 {
        let mut f = [0.0; 1];
        Self::product_into(self, x, &mut f);
        f[0] * f[0]
    }
}

/// A free function of a parameter struct with an output.
#[differentiable]
fn layer_into(p: &Layer, x: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = p.w[i % 2] * x[i] * x[i] + p.b;
    }
}

/// A generic `impl`.
struct Oscillator<T>(T);

impl<T: Float> Oscillator<T> {
    #[differentiable]
    fn rhs(y: &[T], out: &mut [T]) {
        out[0] = y[1];
        out[1] = -y[0] * y[0] * y[1];
    }

    #[differentiable]
    fn step(y: &[T], h: T) -> T {
        let mut k = vec![T::zero(); 2];
        Self::rhs(y, &mut k);
        (y[0] + h * k[0]) * (y[1] + h * k[1])
    }
}

/// A constant `self` in a generic `impl`.
struct Stiffness<T> {
    k: T,
}

impl<T: Float> Stiffness<T> {
    #[differentiable]
    fn force(&self, x: &[T], out: &mut [T]) {
        out[0] = self.k * x[0] * x[0];
        out[1] = self.k * x[0] * x[1];
    }

    #[differentiable]
    fn energy(&self, x: &[T]) -> T {
        let mut f = vec![T::zero(); 2];
        self.force(x, &mut f);
        f[0] * f[1]
    }

    #[differentiable(order = 2)]
    fn cubed_into(&self, x: &[T], out: &mut [T]) -> T {
        out[0] = self.k * x[0] * x[0];
        out[0] * x[0]
    }
}

/// `dᵀJ` and `J t` for the Jacobian `jacobian` (rows the outputs).
fn products(jacobian: &[Vec<f64>], d: &[f64], t: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let columns = jacobian.first().map_or(0, Vec::len);
    let vjp = (0..columns)
        .map(|j| jacobian.iter().zip(d).map(|(row, d)| row[j] * d).sum())
        .collect();
    let jvp = jacobian.iter().map(|row| dot(row, t)).collect();
    (vjp, jvp)
}

/// Asserts that `vjp` is `dᵀJ` and `jvp` is `J t` for the Jacobian `jacobian`, to central differences'
/// accuracy.
#[track_caller]
fn assert_products(
    jacobian: &[Vec<f64>],
    (d, vjp): (&[f64], &[f64]),
    (t, jvp): (&[f64], &[f64]),
    what: &str,
) {
    let (expected_vjp, expected_jvp) = products(jacobian, d, t);
    assert_all_close(vjp, &expected_vjp, 1e-6, &format!("{what}: vjp"));
    assert_all_close(jvp, &expected_jvp, 1e-6, &format!("{what}: jvp"));
}

/// Asserts that `hessian` is the Jacobian of `grad` at `x` by central differences.
#[track_caller]
fn assert_hessian(hessian: &[Vec<f64>], grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], what: &str) {
    assert_eq!(hessian.len(), x.len(), "{what}: rows");
    for j in 0..x.len() {
        let column = hessian_column(&grad, x, j);
        let entries: Vec<f64> = hessian.iter().map(|row| row[j]).collect();
        assert_all_close(&entries, &column, 1e-5, &format!("{what}, column {j}"));
    }
}

/// Lotka-Volterra's Jacobian by hand; columns `y0, y1, p0, .., p3`.
fn lv_jacobian(y: &[f64], p: &[f64]) -> Vec<Vec<f64>> {
    vec![
        vec![
            p[0] - p[1] * y[1],
            -p[1] * y[0],
            y[0],
            -y[0] * y[1],
            0.0,
            0.0,
        ],
        vec![
            p[2] * y[1],
            p[2] * y[0] - p[3],
            0.0,
            0.0,
            y[0] * y[1],
            -y[1],
        ],
    ]
}

fn spring(k: f64, rest: f64) -> Spring {
    Spring { k, rest }
}

fn layer(flat: &[f64]) -> Layer {
    Layer {
        w: flat[..2].to_vec(),
        b: flat[2],
    }
}

fn lv(y: &[f64], p: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; 2];
    Model::rhs(y, p, &mut out);
    out
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn an_associated_function_writing_an_output(
        y in prop::collection::vec(0.1f64..2.0, 2),
        p in prop::collection::vec(0.1f64..2.0, 4),
        d in prop::collection::vec(tangent(), 2),
        t in prop::collection::vec(tangent(), 6),
    ) {
        let jacobian = lv_jacobian(&y, &p);
        let mut out = [f64::NAN; 2];
        let (dy, dp) = Model::rhs_vjp(&y, &p, &mut out, &d);
        prop_assert_eq!(out.to_vec(), lv(&y, &p), "the vjp writes the output");
        let mut tangent_out = [f64::NAN; 2];
        Model::rhs_jvp(&y, &p, &mut out, (t[..2].to_vec(), t[2..].to_vec()), &mut tangent_out);
        let (vjp, jvp) = products(&jacobian, &d, &t);
        assert_all_close(&[dy, dp].concat(), &vjp, ANALYTIC_TOL, "Model::rhs_vjp");
        assert_all_close(&tangent_out, &jvp, ANALYTIC_TOL, "Model::rhs_jvp");
        let mut out = [f64::NAN; 2];
        let by_jacobian = Model::rhs_jacobian(&y, &p, &mut out);
        prop_assert_eq!(out.to_vec(), lv(&y, &p), "f_jacobian leaves the output as one call does");
        for (row, expected) in by_jacobian.iter().zip(&jacobian) {
            assert_all_close(row, expected, ANALYTIC_TOL, "Model::rhs_jacobian");
        }
    }

    #[test]
    fn an_associated_function_returning_a_float_beside_its_output(
        x in prop::collection::vec(moderate(), 1..5),
        d_ret in tangent(),
    ) {
        let n = x.len();
        let mut r = vec![0.0; n];
        let (norm, grad) = Model::residual_grad(&x, &mut r);
        prop_assert_eq!(norm, Model::residual(&x, &mut vec![0.0; n]));
        let by_hand: Vec<f64> = x.iter().map(|x| 4.0 * x * (x * x - 2.0)).collect();
        assert_all_close(&grad, &by_hand, ANALYTIC_TOL, "Model::residual_grad");
        assert_fd_gradient(|x| Model::residual(x, &mut vec![0.0; x.len()]), &x, &grad, "Model::residual");
        let d_r: Vec<f64> = (0..n).map(|i| i as f64 - 1.0).collect();
        let (value, g) = Model::residual_vjp(&x, &mut r, d_ret, &d_r);
        prop_assert_eq!(value, norm);
        let both: Vec<f64> = (0..n).map(|i| d_ret * by_hand[i] + d_r[i] * 2.0 * x[i]).collect();
        assert_all_close(&g, &both, ANALYTIC_TOL, "Model::residual_vjp with both cotangents");
    }

    #[test]
    fn an_output_read_first_and_a_float_output(
        a in moderate(),
        acc in prop::array::uniform3(moderate()),
        d_acc in prop::array::uniform3(tangent()),
        d_e in tangent(),
        t in prop::collection::vec(tangent(), 4),
    ) {
        // acc'[i] = acc[i] + (i + 1) a, e = a acc'[0].
        let (mut out, mut e) = (acc, f64::NAN);
        let (da, dacc) = Model::accumulate_vjp(a, &mut out, &mut e, &d_acc, d_e);
        let (mut expected, mut expected_e) = (acc, 0.0);
        Model::accumulate(a, &mut expected, &mut expected_e);
        prop_assert_eq!((out, e), (expected, expected_e));
        let jacobian = vec![
            vec![1.0, 1.0, 0.0, 0.0],
            vec![2.0, 0.0, 1.0, 0.0],
            vec![3.0, 0.0, 0.0, 1.0],
            vec![acc[0] + 2.0 * a, a, 0.0, 0.0],
        ];
        let d = [d_acc[0], d_acc[1], d_acc[2], d_e];
        let (mut out, mut e) = (acc, f64::NAN);
        let (mut tangent_acc, mut tangent_e) = ([f64::NAN; 3], f64::NAN);
        Model::accumulate_jvp(a, &mut out, &mut e, (t[0], [t[1], t[2], t[3]]), &mut tangent_acc, &mut tangent_e);
        let mut vjp = vec![da];
        vjp.extend(dacc);
        let mut jvp = tangent_acc.to_vec();
        jvp.push(tangent_e);
        let (expected_vjp, expected_jvp) = products(&jacobian, &d, &t);
        assert_all_close(&vjp, &expected_vjp, ANALYTIC_TOL, "Model::accumulate_vjp");
        assert_all_close(&jvp, &expected_jvp, ANALYTIC_TOL, "Model::accumulate_jvp");
    }

    #[test]
    fn calls_of_an_associated_function_with_an_output(
        y in prop::collection::vec(0.1f64..2.0, 2),
        p in prop::collection::vec(0.1f64..2.0, 4),
        h in 0.01f64..0.3,
        t in prop::collection::vec(tangent(), 7),
    ) {
        let flat: Vec<f64> = y.iter().chain(&p).copied().chain([h]).collect();
        // `Self::rhs(&y, p, &mut k)` in a loop, and `Model::rhs(..)` from a free function.
        let (value, (dy, dp, dh)) = Model::euler_grad(&y, &p, h);
        prop_assert_eq!(value, Model::euler(&y, &p, h));
        let grad: Vec<f64> = [dy, dp, vec![dh]].concat();
        assert_fd_gradient(|q| Model::euler(&q[..2], &q[2..6], q[6]), &flat, &grad, "Model::euler");
        let (_, dot) = Model::euler_jvp(&y, &p, h, (t[..2].to_vec(), t[2..6].to_vec(), t[6]));
        assert_dot(dot, &grad, &t, 1e-12, "Model::euler_jvp");
        let (value, (dy, dp, dh)) = free_step_grad(&y, &p, h);
        prop_assert_eq!(value, free_step(&y, &p, h));
        // (y0 + h k0)(y1 + h k1) with k = rhs(y, p): by hand through the Jacobian of `rhs`.
        let k = lv(&y, &p);
        let (a, b) = (y[0] + h * k[0], y[1] + h * k[1]);
        let jacobian = lv_jacobian(&y, &p);
        let mut by_hand: Vec<f64> = (0..6)
            .map(|j| b * h * jacobian[0][j] + a * h * jacobian[1][j])
            .collect();
        by_hand[0] += b;
        by_hand[1] += a;
        by_hand.push(b * k[0] + a * k[1]);
        assert_all_close(&[dy, dp, vec![dh]].concat(), &by_hand, ANALYTIC_TOL, "free_step_grad");
    }

    #[test]
    fn an_output_passed_on_bare_to_an_associated_function(
        y in prop::collection::vec(0.1f64..2.0, 2),
        p in prop::collection::vec(0.1f64..2.0, 4),
        incoming in prop::collection::vec(moderate(), 2),
        d in prop::collection::vec(tangent(), 2),
        t in prop::collection::vec(tangent(), 8),
    ) {
        // Passed on to a call, the output's incoming value is an input too (`Self::rhs` overwrites it:
        // a zero column).
        let flat: Vec<f64> = [&y[..], &p, &incoming].concat();
        let primal = |q: &[f64]| {
            let mut out = q[6..].to_vec();
            Model::damped_rhs(&q[..2], &q[2..6], &mut out);
            out
        };
        let jacobian = fd_jacobian(primal, &flat);
        let mut out = incoming.clone();
        let (dy, dp, d_incoming) = Model::damped_rhs_vjp(&y, &p, &mut out, &d);
        prop_assert_eq!(&out, &primal(&flat));
        let mut tangent_out = [f64::NAN; 2];
        let tangent = (t[..2].to_vec(), t[2..6].to_vec(), t[6..].to_vec());
        Model::damped_rhs_jvp(&y, &p, &mut out, tangent, &mut tangent_out);
        let vjp = [dy, dp, d_incoming].concat();
        assert_products(&jacobian, (&d, &vjp), (&t, &tangent_out), "Model::damped_rhs");
        let mut out = incoming.clone();
        assert_jacobian(&Model::damped_rhs_jacobian(&y, &p, &mut out), &jacobian, "Model::damped_rhs_jacobian");
    }

    #[test]
    fn second_order_through_an_associated_function_with_an_output(
        y in prop::collection::vec(0.1f64..1.5, 2),
        p in prop::collection::vec(0.1f64..1.5, 4),
        h in 0.01f64..0.3,
    ) {
        let flat: Vec<f64> = y.iter().chain(&p).copied().chain([h]).collect();
        let (value, _, hessian) = Model::euler_curved_hessian(&y, &p, h);
        prop_assert_eq!(value, Model::euler_curved(&y, &p, h));
        let grad = |q: &[f64]| {
            let (_, (dy, dp, dh)) = Model::euler_curved_grad(&q[..2], &q[2..6], q[6]);
            [dy, dp, vec![dh]].concat()
        };
        assert_hessian(&hessian, grad, &flat, "Model::euler_curved_hessian");
        let (value, _, hessian) = free_step_curved_hessian(&y, &p, h);
        prop_assert_eq!(value, free_step_curved(&y, &p, h));
        let grad = |q: &[f64]| {
            let (_, (dy, dp, dh)) = free_step_curved_grad(&q[..2], &q[2..6], q[6]);
            [dy, dp, vec![dh]].concat()
        };
        assert_hessian(&hessian, grad, &flat, "free_step_curved_hessian");
    }

    #[test]
    fn second_order_of_an_associated_function_with_its_own_output(x in prop::collection::vec(moderate(), 1..5)) {
        // sum x³, its Hessian diag(6x); the output written as one call writes it.
        let mut out = vec![f64::NAN; x.len()];
        let (value, grad, hessian) = Model::cubes_into_hessian(&x, &mut out);
        prop_assert_eq!(value, Model::cubes_into(&x, &mut vec![0.0; x.len()]));
        prop_assert_eq!(out, x.iter().map(|x| x * x).collect::<Vec<f64>>());
        assert_all_close(&grad, &x.iter().map(|x| 3.0 * x * x).collect::<Vec<f64>>(), ANALYTIC_TOL, "gradient");
        for i in 0..x.len() {
            for j in 0..x.len() {
                let by_hand = if i == j { 6.0 * x[i] } else { 0.0 };
                assert_close(hessian[i][j], by_hand, ANALYTIC_TOL, "Model::cubes_into_hessian");
            }
        }
    }

    #[test]
    fn a_method_writing_an_output(
        k in moderate(),
        rest in moderate(),
        x in prop::collection::vec(moderate(), 1..5),
        d in prop::collection::vec(tangent(), 4),
        t in prop::collection::vec(tangent(), 4),
    ) {
        let (s, n) = (spring(k, rest), x.len());
        let primal = |q: &[f64]| {
            let mut out = vec![0.0; q.len()];
            s.force(q, &mut out);
            out
        };
        // out[i] = -k (x[i] - rest) x[i + 1]: by hand.
        let mut jacobian = vec![vec![0.0; n]; n];
        for i in 0..n {
            let next = (i + 1) % n;
            jacobian[i][i] += -k * x[next];
            jacobian[i][next] += -k * (x[i] - rest);
        }
        assert_jacobian(&fd_jacobian(primal, &x), &jacobian, "by hand against differences");
        let mut out = vec![f64::NAN; n];
        let dx = s.force_vjp(&x, &mut out, &d[..n]);
        prop_assert_eq!(&out, &primal(&x));
        let mut tangent_out = vec![f64::NAN; n];
        s.force_jvp(&x, &mut out, t[..n].to_vec(), &mut tangent_out);
        assert_products(&jacobian, (&d[..n], &dx), (&t[..n], &tangent_out), "Spring::force");
        assert_jacobian(&s.force_jacobian(&x, &mut out), &jacobian, "Spring::force_jacobian");
    }

    #[test]
    fn a_method_with_a_float_output(k in moderate(), rest in moderate(), x in moderate(), d_ret in tangent(), d_e in tangent()) {
        let s = spring(k, rest);
        // e = k (x - rest)² / 2, returned x e.
        let e = 0.5 * k * (x - rest).powi(2);
        let (de_dx, dret_dx) = (k * (x - rest), e + x * k * (x - rest));
        let mut out = f64::NAN;
        let (value, dx) = s.potential_vjp(x, &mut out, d_ret, d_e);
        prop_assert_eq!((value, out), (s.potential(x, &mut 0.0), e));
        assert_close(dx, d_ret * dret_dx + d_e * de_dx, ANALYTIC_TOL, "Spring::potential_vjp");
        let (value, slope) = s.potential_grad(x, &mut out);
        prop_assert_eq!(value, x * e);
        assert_close(slope, dret_dx, ANALYTIC_TOL, "Spring::potential_grad");
        let mut tangent_e = f64::NAN;
        let (_, tangent_ret) = s.potential_jvp(x, &mut out, 0.5, &mut tangent_e);
        assert_close(tangent_ret, 0.5 * dret_dx, ANALYTIC_TOL, "Spring::potential_jvp, the value");
        assert_close(tangent_e, 0.5 * de_dx, ANALYTIC_TOL, "Spring::potential_jvp, the output");
    }

    #[test]
    fn methods_calling_a_method_with_an_output(
        k in moderate(),
        rest in moderate(),
        x in prop::collection::vec(moderate(), 1..5),
        d in prop::collection::vec(tangent(), 4),
        t in prop::collection::vec(tangent(), 4),
    ) {
        let (s, n) = (spring(k, rest), x.len());
        // `self.force(x, &mut f)` with a local buffer.
        let (value, grad) = s.energy_grad(&x);
        prop_assert_eq!(value, s.energy(&x));
        assert_fd_gradient(|q| s.energy(q), &x, &grad, "Spring::energy");
        let (_, dot) = s.energy_jvp(&x, t[..n].to_vec());
        assert_dot(dot, &grad, &t[..n], 1e-12, "Spring::energy_jvp");
        // `self.force(x, out)`, its own output passed on bare: its incoming value is an input too.
        let flat: Vec<f64> = [&x[..], &d[..n]].concat();
        let primal = |q: &[f64]| {
            let mut out = q[n..].to_vec();
            s.force_with_drag(&q[..n], &mut out);
            out
        };
        let jacobian = fd_jacobian(primal, &flat);
        let mut out = d[..n].to_vec();
        let (dx, d_incoming) = s.force_with_drag_vjp(&x, &mut out, &d[..n]);
        prop_assert_eq!(&out, &primal(&flat));
        let mut tangent_out = vec![f64::NAN; n];
        s.force_with_drag_jvp(&x, &mut out, (t[..n].to_vec(), t[..n].to_vec()), &mut tangent_out);
        let tangent = [&t[..n], &t[..n]].concat();
        assert_products(&jacobian, (&d[..n], &[dx, d_incoming].concat()), (&tangent, &tangent_out), "Spring::force_with_drag");
    }

    #[test]
    fn second_order_of_methods_with_outputs(
        k in moderate(),
        rest in moderate(),
        x in prop::collection::vec(moderate(), 1..5),
    ) {
        let (s, n) = (spring(k, rest), x.len());
        let (value, _, hessian) = s.energy_curved_hessian(&x);
        prop_assert_eq!(value, s.energy_curved(&x));
        assert_hessian(&hessian, |q| s.energy_curved_grad(q).1, &x, "Spring::energy_curved_hessian");
        // sum k x sin x: the Hessian is diag(k (2 cos x - x sin x)).
        let mut out = vec![f64::NAN; n];
        let (value, _, hessian) = s.work_hessian(&x, &mut out);
        prop_assert_eq!(value, s.work(&x, &mut vec![0.0; n]));
        prop_assert_eq!(out, x.iter().map(|x| k * x.sin()).collect::<Vec<f64>>());
        for i in 0..n {
            for j in 0..n {
                let by_hand = if i == j { k * (2.0 * x[i].cos() - x[i] * x[i].sin()) } else { 0.0 };
                assert_close(hessian[i][j], by_hand, ANALYTIC_TOL, "Spring::work_hessian");
            }
        }
    }

    #[test]
    fn a_method_differentiated_in_self_writing_an_output(
        q in prop::collection::vec(moderate(), 3),
        x in prop::collection::vec(moderate(), 1..5),
        d in prop::collection::vec(tangent(), 4),
        t in prop::collection::vec(tangent(), 7),
    ) {
        let (l, n) = (layer(&q), x.len());
        let flat: Vec<f64> = q.iter().chain(&x).copied().collect();
        let primal = |f: &[f64]| {
            let mut out = vec![0.0; f.len() - 3];
            layer(&f[..3]).apply_into(&f[3..], &mut out);
            out
        };
        let jacobian = fd_jacobian(primal, &flat);
        let mut out = vec![f64::NAN; n];
        let (dl, dx) = l.apply_into_vjp(&x, &mut out, &d[..n]);
        prop_assert_eq!(&out, &primal(&flat));
        let mut tangent_out = vec![f64::NAN; n];
        l.apply_into_jvp(&x, &mut out, (layer(&t[..3]), t[3..3 + n].to_vec()), &mut tangent_out);
        let vjp = [dl.to_flat(), dx].concat();
        assert_products(&jacobian, (&d[..n], &vjp), (&t[..3 + n], &tangent_out), "Layer::apply_into");
        assert_jacobian(&l.apply_into_jacobian(&x, &mut out), &jacobian, "Layer::apply_into_jacobian");
        // `self.apply_into(x, &mut o)` from a method differentiated in `self`.
        let (value, grad) = l.loss_grad(&x);
        prop_assert_eq!(value, l.loss(&x));
        assert_fd_gradient(|f| layer(f).loss(&x), &q, &grad.to_flat(), "Layer::loss");
    }

    #[test]
    fn a_free_function_of_a_parameter_struct_writing_an_output(
        q in prop::collection::vec(moderate(), 3),
        x in prop::collection::vec(moderate(), 1..5),
        d in prop::collection::vec(tangent(), 4),
        t in prop::collection::vec(tangent(), 7),
    ) {
        let n = x.len();
        let flat: Vec<f64> = q.iter().chain(&x).copied().collect();
        let primal = |f: &[f64]| {
            let mut out = vec![0.0; f.len() - 3];
            layer_into(&layer(&f[..3]), &f[3..], &mut out);
            out
        };
        let jacobian = fd_jacobian(primal, &flat);
        let mut out = vec![f64::NAN; n];
        let (dl, dx) = layer_into_vjp(&layer(&q), &x, &mut out, &d[..n]);
        prop_assert_eq!(&out, &primal(&flat));
        let mut tangent_out = vec![f64::NAN; n];
        layer_into_jvp(&layer(&q), &x, &mut out, (layer(&t[..3]), t[3..3 + n].to_vec()), &mut tangent_out);
        let vjp = [dl.to_flat(), dx].concat();
        assert_products(&jacobian, (&d[..n], &vjp), (&t[..3 + n], &tangent_out), "layer_into");
    }

    #[test]
    fn a_generic_impl(y in prop::collection::vec(moderate(), 2), h in 0.01f64..0.3) {
        // (y0 + h y1)(y1 - h y0² y1).
        let (value, (dy, dh)) = Oscillator::<f64>::step_grad(&y, h);
        let (a, b) = (y[0] + h * y[1], y[1] - h * y[0] * y[0] * y[1]);
        prop_assert_eq!(value, Oscillator::<f64>::step(&y, h));
        let by_hand = [
            b - a * 2.0 * h * y[0] * y[1],
            h * b + a * (1.0 - h * y[0] * y[0]),
            y[1] * b - a * y[0] * y[0] * y[1],
        ];
        assert_all_close(&[dy, vec![dh]].concat(), &by_hand, ANALYTIC_TOL, "Oscillator::step_grad");
        let y32: Vec<f32> = y.iter().map(|v| *v as f32).collect();
        let (_, (dy32, _)) = Oscillator::<f32>::step_grad(&y32, h as f32);
        for (g, e) in dy32.iter().zip(&by_hand) {
            assert_close(f64::from(*g), *e, 1e-3, "Oscillator::<f32>::step_grad");
        }
    }

    #[test]
    fn second_order_of_methods_differentiated_in_self_with_outputs(
        q in prop::collection::vec(moderate(), 3),
        x in prop::collection::vec(moderate(), 1..5),
    ) {
        let l = layer(&q);
        let (value, grad, hessian) = l.loss_curved_hessian(&x);
        prop_assert_eq!(value, l.loss_curved(&x));
        assert_fd_gradient(|f| layer(f).loss_curved(&x), &q, &grad.to_flat(), "Layer::loss_curved");
        assert_hessian(&hessian, |f| layer(f).loss_curved_grad(&x).1.to_flat(), &q, "Layer::loss_curved_hessian");
        // out[0] = b x0 w1, returned b x0 w1 w0: in (w0, w1, b), the Hessian is x0 times the
        // off-diagonal ones, (w1, w0, ..) of the products.
        let mut out = [f64::NAN];
        let (value, grad, hessian) = l.shifted_into_hessian(&x, &mut out);
        let (w0, w1, b, x0) = (q[0], q[1], q[2], x[0]);
        prop_assert_eq!(out[0], b * x0 * w1);
        prop_assert_eq!(value, l.shifted_into(&x, &mut [0.0]));
        assert_all_close(&grad.to_flat(), &[b * x0 * w1, b * x0 * w0, x0 * w0 * w1], ANALYTIC_TOL, "gradient");
        let by_hand = [[0.0, b * x0, x0 * w1], [b * x0, 0.0, x0 * w0], [x0 * w1, x0 * w0, 0.0]];
        for i in 0..3 {
            assert_all_close(&hessian[i], &by_hand[i], ANALYTIC_TOL, "Layer::shifted_into_hessian");
        }
    }

    #[test]
    fn a_constant_self_taken_by_value(k in moderate(), x in prop::collection::vec(moderate(), 2), d_ret in tangent(), d_out in tangent()) {
        let g = Gain { k };
        // k x0² x1, through `self.product_into(x, &mut f)` and with its own output.
        let by_hand = [2.0 * k * x[0] * x[1], k * x[0] * x[0]];
        let (value, grad) = g.energy_grad(&x);
        prop_assert_eq!(value, g.energy(&x));
        assert_all_close(&grad, &by_hand, ANALYTIC_TOL, "Gain::energy_grad");
        let (_, dot) = g.energy_jvp(&x, vec![0.5, -1.0]);
        assert_dot(dot, &by_hand, &[0.5, -1.0], 1e-12, "Gain::energy_jvp");
        let mut out = [f64::NAN];
        let (value, dx) = g.owned_into_vjp(&x, &mut out, d_ret, &[d_out]);
        prop_assert_eq!((value, out[0]), (g.owned_into(&x, &mut [0.0]), k * x[0] * x[1]));
        let expected = [d_ret * by_hand[0] + d_out * k * x[1], d_ret * by_hand[1] + d_out * k * x[0]];
        assert_all_close(&dx, &expected, ANALYTIC_TOL, "Gain::owned_into_vjp");
        // (k x0 x1)² by `Self::product_into(self, x, &mut f)`.
        let (value, grad) = g.by_path_grad(&x);
        let f = k * x[0] * x[1];
        prop_assert_eq!(value, g.by_path(&x));
        assert_all_close(&grad, &[2.0 * f * k * x[1], 2.0 * f * k * x[0]], ANALYTIC_TOL, "Gain::by_path_grad");
    }

    #[test]
    fn a_constant_self_in_a_generic_impl(k in moderate(), x in prop::collection::vec(moderate(), 2), d in prop::collection::vec(tangent(), 2)) {
        let s = Stiffness { k };
        // (k x0², k x0 x1): the Jacobian by hand.
        let jacobian = vec![vec![2.0 * k * x[0], 0.0], vec![k * x[1], k * x[0]]];
        let mut out = [f64::NAN; 2];
        let dx = s.force_vjp(&x, &mut out, &d);
        prop_assert_eq!(out, [k * x[0] * x[0], k * x[0] * x[1]]);
        let mut tangent_out = [f64::NAN; 2];
        s.force_jvp(&x, &mut out, d.clone(), &mut tangent_out);
        let (vjp, jvp) = products(&jacobian, &d, &d);
        assert_all_close(&dx, &vjp, ANALYTIC_TOL, "Stiffness::force_vjp");
        assert_all_close(&tangent_out, &jvp, ANALYTIC_TOL, "Stiffness::force_jvp");
        assert_jacobian(&s.force_jacobian(&x, &mut out), &jacobian, "Stiffness::force_jacobian");
        // k² x0³ x1.
        let (value, grad) = s.energy_grad(&x);
        prop_assert_eq!(value, s.energy(&x));
        let by_hand = [3.0 * k * k * x[0] * x[0] * x[1], k * k * x[0].powi(3)];
        assert_all_close(&grad, &by_hand, ANALYTIC_TOL, "Stiffness::energy_grad");
        let s32 = Stiffness { k: k as f32 };
        let x32: Vec<f32> = x.iter().map(|v| *v as f32).collect();
        let (_, grad32) = s32.energy_grad(&x32);
        for (g, e) in grad32.iter().zip(&by_hand) {
            assert_close(f64::from(*g), *e, 1e-3, "Stiffness::<f32>::energy_grad");
        }
        // k x0³: the Hessian 6 k x0 in x0.
        let mut out = [f64::NAN];
        let (value, grad, hessian) = s.cubed_into_hessian(&x, &mut out);
        prop_assert_eq!((value, out[0]), (s.cubed_into(&x, &mut [0.0]), k * x[0] * x[0]));
        assert_all_close(&grad, &[3.0 * k * x[0] * x[0], 0.0], ANALYTIC_TOL, "Stiffness::cubed_into_grad");
        assert_all_close(&hessian[0], &[6.0 * k * x[0], 0.0], ANALYTIC_TOL, "Stiffness::cubed_into_hessian");
        assert_all_close(&hessian[1], &[0.0, 0.0], ANALYTIC_TOL, "Stiffness::cubed_into_hessian");
    }

    #[test]
    fn float_outputs_at_second_order_and_in_self(k in moderate(), rest in moderate(), x in moderate(), q in prop::collection::vec(moderate(), 3)) {
        // sin(x e) with e = k (x - rest)² / 2: f'' by differences of f'.
        let s = spring(k, rest);
        let mut e = f64::NAN;
        let (value, slope, hessian) = s.potential_curved_hessian(x, &mut e);
        prop_assert_eq!((value, e), (s.potential_curved(x, &mut 0.0), 0.5 * k * (x - rest).powi(2)));
        let inner = 0.5 * k * (x - rest).powi(2) + x * k * (x - rest);
        assert_close(slope, (x * e).cos() * inner, ANALYTIC_TOL, "Spring::potential_curved_grad");
        // u = x e, u' = inner, u'' = 2 k (x - rest) + k x: f'' = cos(u) u'' - sin(u) u'².
        let u = x * e;
        let by_hand = u.cos() * (2.0 * k * (x - rest) + k * x) - u.sin() * inner * inner;
        assert_close(hessian[0][0], by_hand, ANALYTIC_TOL, "Spring::potential_curved_hessian");
        let fd = central_difference(|v| s.potential_curved_grad(v, &mut 0.0).1, x);
        assert_close(hessian[0][0], fd, 1e-5, "Spring::potential_curved_hessian against differences");
        // e = b x², returned b x² w0: in (w0, w1, b), with the output's cotangent too.
        let l = layer(&q);
        let mut e = f64::NAN;
        let (value, grad) = l.bias_energy_vjp(x, &mut e, 1.0, 0.5);
        prop_assert_eq!((value, e), (l.bias_energy(x, &mut 0.0), q[2] * x * x));
        let by_hand = [q[2] * x * x, 0.0, x * x * q[0] + 0.5 * x * x];
        assert_all_close(&grad.to_flat(), &by_hand, ANALYTIC_TOL, "Layer::bias_energy_vjp");
    }
}
