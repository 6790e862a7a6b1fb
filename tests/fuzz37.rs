//! Session 37's fuzzing finds and the known failures it fixed, each shrunk by hand.
//!
//! A tuple holding an array and a part made constant by `stop_gradient(..)`, passed to a plain function
//! (`plain_weight((stop_gradient(t), [2.0]))`, `tests/fuzz36.rs::stopped_tuple`), did not compile at
//! `order = 2`: the generic copy kept a constant tuple as written only where it held literals and integer
//! parameters (`shadow.rs`, `constant_tuple`), so it rewrote `stop_gradient(t)` into the copy's float type
//! inside a tuple whose type is the plain function's (rustc's E0308). Such a part is now passed as its value
//! in the callee's float type (`Rewrite::stopped_values`), by value and by reference.
//!
//! Checked against the analytic derivatives and central differences (`common`, no code shared with the
//! macro), and at `order = 2` against differences of the gradient.

mod common;

use autodiff::{differentiable, stop_gradient};
use common::{assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

fn plain_weight(p: (f64, [f64; 1])) -> f64 {
    p.0 * p.1[0]
}

fn plain_sum(p: &(f64, f64)) -> f64 {
    p.0 + p.1
}

/// `tests/fuzz36.rs::stopped_tuple` at `order = 2`: a t (2 t), one `t` held.
#[differentiable(order = 2)]
fn stopped_tuple_twice(a: f64, t: f64) -> f64 {
    a * t * plain_weight((stop_gradient(t), [2.0]))
}

/// The same outside `wrt(..)`: a^2 (2 t).
#[differentiable(wrt(a), order = 2)]
fn stopped_outside_wrt_twice(a: f64, t: f64) -> f64 {
    a * a * plain_weight((stop_gradient(t), [2.0]))
}

/// A tuple of floats by reference, one part stopped: a t (t + 2), one `t` held.
#[differentiable(order = 2)]
fn stopped_reference(a: f64, t: f64) -> f64 {
    a * t * plain_sum(&(stop_gradient(t * a), 2.0))
}

#[test]
fn stopped_tuple_parts_at_order_2() {
    let mut inputs = Inputs(37_001);
    for _ in 0..16 {
        let (a, t) = (inputs.next(), inputs.next());

        let (v, (ga, gt)) = stopped_tuple_twice_grad(a, t);
        assert_close(v, stopped_tuple_twice(a, t), 1e-12, "value");
        assert_close(v, 2.0 * a * t * t, 1e-12, "value by hand");
        assert_close(ga, 2.0 * t * t, 1e-12, "d/da");
        assert_close(gt, 2.0 * a * t, 1e-12, "d/dt, one factor held");
        let held = |p: &[f64]| p[0] * p[1] * plain_weight((t, [2.0]));
        assert_fd_gradient(held, &[a, t], &[ga, gt], "stopped_tuple_twice");
        let (hv, hg, h) = stopped_tuple_twice_hessian(a, t);
        assert_close(hv, v, 1e-12, "value of the Hessian");
        assert_close(hg.0, ga, 1e-12, "gradient of the Hessian");
        let by_hand = [[0.0, 2.0 * t], [2.0 * t, 0.0]];
        for (row, expected) in h.iter().zip(by_hand) {
            for (&x, y) in row.iter().zip(expected) {
                assert_close(x, y, 1e-12, "Hessian by hand");
            }
        }
        // Differences of the gradient, along `a` alone (along `t` the held factor moves).
        let grad_a = |p: &[f64]| vec![stopped_tuple_twice_grad(p[0], t).1 .0];
        assert_hessian_fd(&[vec![h[0][0]]], grad_a, &[a], 1e-6, "stopped_tuple_twice");

        let (v, g) = stopped_outside_wrt_twice_grad(a, t);
        assert_close(v, stopped_outside_wrt_twice(a, t), 1e-12, "value");
        assert_close(v, 2.0 * a * a * t, 1e-12, "value by hand");
        assert_close(g, 4.0 * a * t, 1e-12, "d/da");
        assert_fd_gradient(
            |p| stopped_outside_wrt_twice(p[0], t),
            &[a],
            &[g],
            "stopped_outside_wrt_twice",
        );
        let (_, _, h) = stopped_outside_wrt_twice_hessian(a, t);
        assert_close(h[0][0], 4.0 * t, 1e-12, "Hessian by hand");
        let grad = |p: &[f64]| vec![stopped_outside_wrt_twice_grad(p[0], t).1];
        assert_hessian_fd(&h, grad, &[a], 1e-6, "stopped_outside_wrt_twice");

        let (v, (ga, gt)) = stopped_reference_grad(a, t);
        assert_close(v, stopped_reference(a, t), 1e-12, "value");
        assert_close(v, a * t * (t * a + 2.0), 1e-12, "value by hand");
        assert_close(ga, t * (t * a + 2.0), 1e-12, "d/da, one factor held");
        assert_close(gt, a * (t * a + 2.0), 1e-12, "d/dt, one factor held");
        let s = t * a;
        let held = |p: &[f64]| p[0] * p[1] * plain_sum(&(s, 2.0));
        assert_fd_gradient(held, &[a, t], &[ga, gt], "stopped_reference");
        let (_, _, h) = stopped_reference_hessian(a, t);
        let by_hand = [[0.0, s + 2.0], [s + 2.0, 0.0]];
        for (row, expected) in h.iter().zip(by_hand) {
            for (&x, y) in row.iter().zip(expected) {
                assert_close(x, y, 1e-12, "Hessian by hand");
            }
        }
    }
}
