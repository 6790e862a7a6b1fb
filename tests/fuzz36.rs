//! A tuple holding an array passed to a differentiable function, computed only from a float parameter that
//! `wrt(..)` leaves out (found by `autodiff-fuzz --forms --sugar --seed 36003`, program 90). Such a call
//! goes to the callee's split copy (`tuples.rs`, `pass_parts`) unless the tuple is read as constants; a
//! parameter outside `wrt(..)` was read as a constant, so the call went to the callee as written, which has
//! no derivatives under its own name: a "no derivative" error at first order and rustc's E0573 at
//! `order = 2`. But the items other differentiable functions call (the hidden sweeps) differentiate every
//! float parameter, so such a tuple is differentiated there: it now goes to the split copy. A tuple made
//! constant by `stop_gradient(..)` still goes to a plain function as written (with or without `wrt(..)`;
//! without it, it went to a missing `__plain_weight_split` before).
//!
//! Forward mode lost the tangent a loop's body yields for a carried value where that value was made before
//! the loop (`(s, t) = (t, u);`, `t = a;`, copies with no value of the body between): `f_jvp` took it as
//! zero, a wrong tangent while `f_grad` was right (`--forms --sugar --seed 36016`, program 11).
//!
//! A name bound by a tuple pattern (`let (p0, p1) = (p.0, p.1[0]);`) or written by a destructuring
//! assignment (`(s, t) = (u, v);`) was not read as computed from a parameter, so a call whose arguments
//! were all such names went to the callee as written (`__array` not found, and a "no derivative" error;
//! `--forms --sugar --seed 36024`, program 93, in a nested `fn`).
//!
//! `let (t, u) = match k { n if n < 1 => pair(..), _ => pair(..) };`, a `match` with a guard whose arms are
//! calls returning a tuple, was "the macro cannot tell the shape of this tuple" (`--seed 36028`, program
//! 36): the guard is rewritten into a block ending in an `if`, and only an `if` or `match` written as the
//! value itself had its tuple split into one value per component.
//!
//! Checked against the analytic derivatives and central differences (`common`, no code shared with the
//! macro), and at `order = 2` against differences of the gradient.

mod common;

use autodiff::{differentiable, stop_gradient, Float};
use common::{assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

#[differentiable]
fn weighted<T: Float>(xs: &[T], s: T, p: (T, [T; 1])) -> T {
    let (p0, p1) = (p.0, p.1[0]);
    xs.iter()
        .map(|&v| v.sin())
        .fold(T::zero(), |acc, y| acc + y)
        * p0
        + s * p1
}

/// Every argument of the call computed from `xs`, outside `wrt(..)`.
#[differentiable(wrt(a), order = 2)]
fn tuple_outside_wrt(a: f64, xs: &[f64]) -> f64 {
    let m = xs[1] * xs[3];
    let t = weighted(&xs[0..3], xs[2], (m, [xs[0].sin()]));
    a * a * t
}

/// Differentiates `tuple_outside_wrt` in `xs` too, through its hidden sweeps.
#[differentiable(order = 2)]
fn through_hidden_sweeps(a: f64, xs: &[f64]) -> f64 {
    tuple_outside_wrt(a, xs) + xs[3] * a
}

/// `(s, t, _) = (t, u, ..)` in a loop: `t` copies `u`, made before the loop, and `s` copies `t`.
#[differentiable(order = 2)]
fn carried_copies(a: f64, xs: &[f64], n: usize) -> f64 {
    let u = a * a;
    let mut t = xs[1] * 3.0;
    let mut s: f64 = 1.6;
    for _ in 0..n {
        (s, t, _) = (t, u, xs[0].atan());
    }
    s * xs[0] + t
}

/// A parameter copied into a carried value (`t = a;`) after the statement that reads it.
#[differentiable(order = 2)]
fn carried_parameter(a: f64, b: f64) -> f64 {
    let mut s = b;
    let mut t = 0.5;
    for _ in 0..3 {
        s *= t;
        t = a;
    }
    s
}

#[differentiable]
fn scaled_pair<T: Float>(s: T, p: (T, [T; 1])) -> T {
    p.0 * s + p.1[0] * s * s
}

/// Every argument of the calls is a name a tuple pattern binds or a destructuring assignment writes.
#[differentiable(order = 2)]
fn from_tuple_patterns(a: f64, b: f64) -> f64 {
    let (u, v) = (a * b, b.sin());
    let (mut s, mut t) = (0.5, 0.25);
    let w = scaled_pair(v, (s + 1.0, [u]));
    (s, t) = (u, v * t * 4.0);
    w + scaled_pair(s, (t, [2.0]))
}

#[differentiable]
fn pair<T: Float>(xs: &[T], s: T) -> (T, T) {
    (xs[0] * s, s * s)
}

/// A tuple-valued call in each arm of a `match` with a guard.
#[differentiable(order = 2)]
fn pairs_chosen_by_a_guard(a: f64, xs: &[f64], k: usize) -> f64 {
    let (t, u) = match k % 3 {
        n if n < 1 => pair(xs, -a),
        _ => pair(xs, xs[1]),
    };
    t + u * a
}

fn plain_weight(p: (f64, [f64; 1])) -> f64 {
    p.0 * p.1[0]
}

/// A tuple made constant by `stop_gradient`, to a plain function.
#[differentiable]
fn stopped_tuple(a: f64, t: f64) -> f64 {
    a * t * plain_weight((stop_gradient(t), [2.0]))
}

/// The same outside `wrt(..)`.
#[differentiable(wrt(a))]
fn stopped_outside_wrt(a: f64, t: f64) -> f64 {
    a * a * plain_weight((stop_gradient(t), [2.0]))
}

/// `weighted(&xs[0..3], xs[2], (xs[1] xs[3], [sin x0]))` and its gradient in `xs`, by hand.
fn weighted_by_hand(xs: &[f64]) -> (f64, [f64; 4]) {
    let s = xs[0].sin() + xs[1].sin() + xs[2].sin();
    let m = xs[1] * xs[3];
    let value = s * m + xs[2] * xs[0].sin();
    let grad = [
        xs[0].cos() * m + xs[2] * xs[0].cos(),
        xs[1].cos() * m + s * xs[3],
        xs[2].cos() * m + xs[0].sin(),
        s * xs[1],
    ];
    (value, grad)
}

#[test]
fn a_tuple_of_parameters_outside_wrt() {
    let mut inputs = Inputs(36_101);
    for _ in 0..16 {
        let (a, xs) = (inputs.next(), inputs.vec(4));
        let (t, dt) = weighted_by_hand(&xs);
        let (v, g) = tuple_outside_wrt_grad(a, &xs);
        assert_close(v, tuple_outside_wrt(a, &xs), 1e-12, "value");
        assert_close(v, a * a * t, 1e-12, "value by hand");
        assert_close(g, 2.0 * a * t, 1e-12, "d/da");
        assert_fd_gradient(
            |p| tuple_outside_wrt(p[0], &xs),
            &[a],
            &[g],
            "tuple_outside_wrt",
        );
        let (_, _, h) = tuple_outside_wrt_hessian(a, &xs);
        assert_close(h[0][0], 2.0 * t, 1e-10, "d2/da2");
        assert_hessian_fd(
            &h,
            |p| vec![tuple_outside_wrt_grad(p[0], &xs).1],
            &[a],
            1e-6,
            "tuple_outside_wrt Hessian",
        );

        // All of it, through the hidden sweeps.
        let (v, (ga, gx)) = through_hidden_sweeps_grad(a, &xs);
        assert_close(v, a * a * t + xs[3] * a, 1e-12, "value by hand");
        assert_close(ga, 2.0 * a * t + xs[3], 1e-12, "d/da");
        for k in 0..4 {
            let extra = if k == 3 { a } else { 0.0 };
            assert_close(gx[k], a * a * dt[k] + extra, 1e-10, "d/dx");
        }
        let mut point = vec![a];
        point.extend(&xs);
        let mut flat = vec![ga];
        flat.extend(&gx);
        let value = |p: &[f64]| through_hidden_sweeps(p[0], &p[1..]);
        assert_fd_gradient(value, &point, &flat, "through_hidden_sweeps");
        let (_, _, h) = through_hidden_sweeps_hessian(a, &xs);
        let grad = |p: &[f64]| {
            let (ga, gx) = through_hidden_sweeps_grad(p[0], &p[1..]).1;
            let mut flat = vec![ga];
            flat.extend(gx);
            flat
        };
        assert_hessian_fd(&h, grad, &point, 1e-6, "through_hidden_sweeps Hessian");
        // The row of `a` by hand: 2 t, then 2 a dt/dx (+ 1 for x3).
        assert_close(h[0][0], 2.0 * t, 1e-10, "d2/da2");
        for k in 0..4 {
            let extra = if k == 3 { 1.0 } else { 0.0 };
            assert_close(h[0][k + 1], 2.0 * a * dt[k] + extra, 1e-10, "d2/da dx");
        }
    }
}

#[test]
fn a_tuple_made_constant_by_stop_gradient() {
    let mut inputs = Inputs(36_102);
    for _ in 0..16 {
        let (a, t) = (inputs.next(), inputs.next());
        // The value is 2 a t^2, of which `stop_gradient` holds one `t` constant.
        let (v, (ga, gt)) = stopped_tuple_grad(a, t);
        assert_close(v, stopped_tuple(a, t), 1e-12, "value");
        assert_close(v, 2.0 * a * t * t, 1e-12, "value by hand");
        assert_close(ga, 2.0 * t * t, 1e-12, "d/da");
        assert_close(gt, 2.0 * a * t, 1e-12, "d/dt, one factor held");
        assert_fd_gradient(|p| stopped_tuple(p[0], t), &[a], &[ga], "stopped_tuple");
        // Along `t`, central differences of the function with the held factor fixed.
        let held = |s: f64| a * s * plain_weight((t, [2.0]));
        assert_fd_gradient(|p| held(p[0]), &[t], &[gt], "stopped_tuple, t held");

        let (v, g) = stopped_outside_wrt_grad(a, t);
        assert_close(v, 2.0 * a * a * t, 1e-12, "value by hand");
        assert_close(g, 4.0 * a * t, 1e-12, "d/da");
        assert_fd_gradient(
            |p| stopped_outside_wrt(p[0], t),
            &[a],
            &[g],
            "stopped_outside_wrt",
        );
    }
}

#[test]
fn tangents_of_values_copied_into_carried_ones() {
    let mut inputs = Inputs(36_103);
    for _ in 0..16 {
        let (a, xs) = (inputs.next(), inputs.vec(2));
        let (ta, tx) = (inputs.next(), inputs.vec(2));
        for n in 1..=3 {
            // One trip: s = 3 x1, t = a^2; two or more: s = t = a^2.
            let (value, by_hand) = if n == 1 {
                (
                    3.0 * xs[1] * xs[0] + a * a,
                    [2.0 * a, 3.0 * xs[1], 3.0 * xs[0]],
                )
            } else {
                (
                    a * a * xs[0] + a * a,
                    [2.0 * a * xs[0] + 2.0 * a, a * a, 0.0],
                )
            };
            let (v, (ga, gx)) = carried_copies_grad(a, &xs, n);
            assert_close(v, carried_copies(a, &xs, n), 1e-12, "value");
            assert_close(v, value, 1e-12, "value by hand");
            let flat = [ga, gx[0], gx[1]];
            for k in 0..3 {
                assert_close(flat[k], by_hand[k], 1e-12, "gradient by hand");
            }
            let point = [a, xs[0], xs[1]];
            let value_at = |p: &[f64]| carried_copies(p[0], &p[1..], n);
            assert_fd_gradient(value_at, &point, &flat, "carried_copies");
            let (v, dv) = carried_copies_jvp(a, &xs, n, (ta, tx.clone()));
            assert_close(v, value, 1e-12, "value of f_jvp");
            let along = by_hand[0] * ta + by_hand[1] * tx[0] + by_hand[2] * tx[1];
            assert_close(dv, along, 1e-12, "f_jvp");
            let (_, _, h) = carried_copies_hessian(a, &xs, n);
            let grad = |p: &[f64]| {
                let (ga, gx) = carried_copies_grad(p[0], &p[1..], n).1;
                vec![ga, gx[0], gx[1]]
            };
            assert_hessian_fd(&h, grad, &point, 1e-6, "carried_copies Hessian");
            let hessian = if n == 1 {
                [[2.0, 0.0, 0.0], [0.0, 0.0, 3.0], [0.0, 3.0, 0.0]]
            } else {
                [
                    [2.0 * xs[0] + 2.0, 2.0 * a, 0.0],
                    [2.0 * a, 0.0, 0.0],
                    [0.0; 3],
                ]
            };
            for (row, want) in h.iter().zip(&hessian) {
                for (&got, &want) in row.iter().zip(want) {
                    assert_close(got, want, 1e-10, "Hessian by hand");
                }
            }
        }

        // 0.5 a^2 b.
        let b = xs[0];
        let (v, (ga, gb)) = carried_parameter_grad(a, b);
        assert_close(v, 0.5 * a * a * b, 1e-12, "value by hand");
        assert_close(ga, a * b, 1e-12, "d/da");
        assert_close(gb, 0.5 * a * a, 1e-12, "d/db");
        let value_at = |p: &[f64]| carried_parameter(p[0], p[1]);
        assert_fd_gradient(value_at, &[a, b], &[ga, gb], "carried_parameter");
        let (_, dv) = carried_parameter_jvp(a, b, (ta, tx[0]));
        assert_close(dv, a * b * ta + 0.5 * a * a * tx[0], 1e-12, "f_jvp");
        let (_, _, h) = carried_parameter_hessian(a, b);
        let grad = |p: &[f64]| {
            let (ga, gb) = carried_parameter_grad(p[0], p[1]).1;
            vec![ga, gb]
        };
        assert_hessian_fd(&h, grad, &[a, b], 1e-6, "carried_parameter Hessian");
        assert_close(h[0][0], b, 1e-10, "d2/da2");
        assert_close(h[0][1], a, 1e-10, "d2/da db");
        assert_close(h[1][1], 0.0, 1e-10, "d2/db2");
    }
}

#[test]
fn tuples_of_names_bound_by_tuple_patterns() {
    let mut inputs = Inputs(36_104);
    for _ in 0..16 {
        let (a, b) = (inputs.next(), inputs.next());
        let (u, v) = (a * b, b.sin());
        let value = 1.5 * v + u * v * v + u * v + 2.0 * u * u;
        let (du, dv) = (v * v + v + 4.0 * u, 1.5 + 2.0 * u * v + u);
        let (f, (ga, gb)) = from_tuple_patterns_grad(a, b);
        assert_close(f, from_tuple_patterns(a, b), 1e-12, "value");
        assert_close(f, value, 1e-12, "value by hand");
        assert_close(ga, b * du, 1e-12, "d/da");
        assert_close(gb, a * du + b.cos() * dv, 1e-12, "d/db");
        let value_at = |p: &[f64]| from_tuple_patterns(p[0], p[1]);
        assert_fd_gradient(value_at, &[a, b], &[ga, gb], "from_tuple_patterns");
        let (_, _, h) = from_tuple_patterns_hessian(a, b);
        let grad = |p: &[f64]| {
            let (ga, gb) = from_tuple_patterns_grad(p[0], p[1]).1;
            vec![ga, gb]
        };
        assert_hessian_fd(&h, grad, &[a, b], 1e-6, "from_tuple_patterns Hessian");
        // d2/da2 = b d(du)/da = b (4 b).
        assert_close(h[0][0], 4.0 * b * b, 1e-10, "d2/da2");
    }
}

#[test]
fn tuples_of_calls_chosen_by_a_guard() {
    let mut inputs = Inputs(36_105);
    for _ in 0..16 {
        let (a, xs) = (inputs.next(), inputs.vec(2));
        for k in 0..3 {
            // k = 0: (-a x0, a^2); else (x0 x1, x1^2).
            let (value, by_hand, hessian) = if k == 0 {
                (
                    -a * xs[0] + a * a * a,
                    [-xs[0] + 3.0 * a * a, -a, 0.0],
                    [[6.0 * a, -1.0, 0.0], [-1.0, 0.0, 0.0], [0.0; 3]],
                )
            } else {
                (
                    xs[0] * xs[1] + a * xs[1] * xs[1],
                    [xs[1] * xs[1], xs[1], xs[0] + 2.0 * a * xs[1]],
                    [
                        [0.0, 0.0, 2.0 * xs[1]],
                        [0.0, 0.0, 1.0],
                        [2.0 * xs[1], 1.0, 2.0 * a],
                    ],
                )
            };
            let (v, (ga, gx)) = pairs_chosen_by_a_guard_grad(a, &xs, k);
            assert_close(v, pairs_chosen_by_a_guard(a, &xs, k), 1e-12, "value");
            assert_close(v, value, 1e-12, "value by hand");
            let flat = [ga, gx[0], gx[1]];
            for i in 0..3 {
                assert_close(flat[i], by_hand[i], 1e-12, "gradient by hand");
            }
            let point = [a, xs[0], xs[1]];
            let value_at = |p: &[f64]| pairs_chosen_by_a_guard(p[0], &p[1..], k);
            assert_fd_gradient(value_at, &point, &flat, "pairs_chosen_by_a_guard");
            let (_, _, h) = pairs_chosen_by_a_guard_hessian(a, &xs, k);
            let grad = |p: &[f64]| {
                let (ga, gx) = pairs_chosen_by_a_guard_grad(p[0], &p[1..], k).1;
                vec![ga, gx[0], gx[1]]
            };
            assert_hessian_fd(&h, grad, &point, 1e-6, "pairs_chosen_by_a_guard Hessian");
            for (row, want) in h.iter().zip(&hessian) {
                for (&got, &want) in row.iter().zip(want) {
                    assert_close(got, want, 1e-10, "Hessian by hand");
                }
            }
        }
    }
}
