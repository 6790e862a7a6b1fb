//! Calls of functions with output parameters (`rhs(&y, p, &mut k)`) inside differentiable bodies: the
//! buffer written by the call, read after it, written again, passed to two calls, read by the callee
//! before it writes (`out[i] += ..`), in loops and branches. Every gradient and tangent is checked
//! against central finite differences on random inputs, and against derivatives worked out by hand.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_close, assert_fd_gradient, central_difference, config};
use proptest::prelude::*;

/// Lotka-Volterra's right-hand side, written into `dydt`.
#[differentiable]
fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - y[0] * y[1];
    dydt[1] = y[0] * y[1] - p[1] * y[1];
}

/// Explicit Euler through `rhs`: the buffer `k` is overwritten by the call in every step.
#[differentiable]
fn euler(y0: &[f64], p: &[f64], h: f64, steps: usize) -> f64 {
    let mut y = y0.to_vec();
    let mut k = vec![0.0; 2];
    for _ in 0..steps {
        rhs(&y, p, &mut k);
        for i in 0..2 {
            y[i] += h * k[i];
        }
    }
    y[0] + y[1] * y[1]
}

/// Adds `a * x` into `acc`: the callee reads the buffer's incoming value.
#[differentiable]
fn axpy_into(a: f64, x: &[f64], acc: &mut [f64]) {
    for i in 0..x.len() {
        acc[i] += a * x[i];
    }
}

/// Writes only the first element, and returns a value too.
#[differentiable]
fn first_and_norm(x: &[f64], out: &mut [f64]) -> f64 {
    out[0] = x[0].sin();
    x[0] * x[0] + x[1]
}

/// An output and an array result.
#[differentiable]
fn product_and_pair(x: &[f64], out: &mut [f64]) -> Vec<f64> {
    out[0] = x[0] * x[1];
    vec![x[0].sin(), x[1] * 2.0]
}

/// A call whose array result is dropped: only its output matters.
#[differentiable]
fn drops_the_result(x: &[f64]) -> f64 {
    let mut o = vec![0.0; 1];
    let _ = product_and_pair(x, &mut o);
    o[0] * x[0]
}

/// Buffers made inside the loop body (a `Vec` and a fixed-size array), and a `while` loop that stops early.
#[differentiable]
fn buffers_in_the_body(y0: &[f64], p: &[f64], h: f64, steps: usize) -> f64 {
    let mut y = [y0[0], y0[1]];
    let mut i = 0;
    while i < steps {
        let mut k = vec![0.0; 2];
        rhs(&y, p, &mut k);
        let mut r = [0.0; 2];
        rotate(h, &[k[0], k[1]], &mut r);
        y[0] += h * r[0];
        y[1] += h * r[1];
        if y[0] > 3.0 {
            break;
        }
        i += 1;
    }
    y[0] * y[1]
}

/// A fixed-size output.
#[differentiable]
fn rotate(t: f64, v: &[f64; 2], out: &mut [f64; 2]) {
    out[0] = t.cos() * v[0] - t.sin() * v[1];
    out[1] = t.sin() * v[0] + t.cos() * v[1];
}

/// The buffer is read after the call, written again, then passed to a second call that reads its
/// incoming value.
#[differentiable]
fn read_write_twice(x: &[f64], a: f64) -> f64 {
    let mut k = vec![0.0; 2];
    rhs(x, x, &mut k);
    let s = k[0] * k[1];
    k[1] = s * a;
    axpy_into(a, x, &mut k);
    axpy_into(s, x, &mut k);
    k[0] * k[0] + k[1]
}

/// A call in one branch only, in a loop, with the buffer's old value read before the call.
#[differentiable]
fn branchy(x: &[f64], a: f64, n: usize) -> f64 {
    let mut k = vec![x[0], x[1]];
    let mut total = 0.0;
    for i in 0..n {
        let before = k[0] * k[1];
        if i % 2 == 0 {
            axpy_into(a, x, &mut k);
        } else {
            rhs(x, &k.clone(), &mut k);
        }
        total += before * k[1];
    }
    total + k[0]
}

/// The callee's value used, the untouched element passed through the call.
#[differentiable]
fn partial_write(x: &[f64]) -> f64 {
    let mut out = vec![x[1], x[0] * x[1]];
    let v = first_and_norm(x, &mut out);
    v * out[0] + out[1]
}

/// A fixed-size buffer in a loop, written by the call each iteration and fed back as its input.
#[differentiable]
fn spin(t: f64, v: &[f64; 2], steps: usize) -> f64 {
    let mut a = [v[0], v[1]];
    let mut b = [0.0; 2];
    for _ in 0..steps {
        rotate(t, &a, &mut b);
        a[0] = b[0] * 0.9;
        a[1] = b[1] + 0.1 * b[0];
    }
    a[0] * a[1] + b[0]
}

/// The caller's own output parameter passed on to a call, then written further.
#[differentiable]
fn step_into(y: &[f64], p: &[f64], h: f64, next: &mut [f64]) {
    rhs(y, p, &mut *next);
    for i in 0..2 {
        next[i] = y[i] + h * next[i];
    }
}

/// Two levels: a caller of `step_into`.
#[differentiable]
fn two_steps(y: &[f64], p: &[f64], h: f64) -> f64 {
    let mut a = vec![0.0; 2];
    let mut b = vec![0.0; 2];
    step_into(y, p, h, &mut a);
    step_into(&a, p, h, &mut b);
    b[0] * b[1]
}

/// A float output (`&mut f64`): written, then read back.
#[differentiable]
fn energy_into(x: &[f64], k: f64, e: &mut f64) {
    *e = 0.5 * k * x[0] * x[0];
    *e += x[1] * *e;
}

/// A float output whose incoming value is read: it is an input too.
#[differentiable]
fn scale_into(a: f64, acc: &mut f64) -> f64 {
    *acc = *acc * a + a.sin();
    a * a
}

/// Float locals, an element of a local array and the caller's own float output passed `&mut`, in a
/// loop and a branch.
#[differentiable]
fn uses_float_outputs(x: &[f64], k: f64, out: &mut f64) -> f64 {
    let mut e = 0.0;
    energy_into(x, k, &mut e);
    let mut acc = e;
    let mut parts = [1.0, x[1]];
    for i in 0..2 {
        let v = scale_into(x[i], &mut acc);
        if v > 0.3 {
            scale_into(k, &mut parts[i]);
        }
        acc += v * parts[i];
    }
    scale_into(acc, &mut *out);
    acc * e + parts[0] * parts[1]
}

/// A float local changed only through `&mut`, in a loop and in a branch.
#[differentiable]
fn only_through_calls(x: &[f64], k: f64) -> f64 {
    let mut acc = x[0];
    for i in 0..x.len() {
        scale_into(x[i], &mut acc);
    }
    let mut b = k;
    if acc > 0.0 {
        scale_into(acc, &mut b);
    }
    acc + b
}

/// A float output read inside `vec![..]` (its incoming value is an input) and copied into a buffer passed on.
#[allow(clippy::useless_vec)] // `vec![..]` is the case tested: the macro reads inside its tokens
#[differentiable]
fn spread_into(xs: &[f64], s: f64, e: &mut f64) -> f64 {
    let mut copies = vec![*e; 3];
    copies[1] += s;
    rotate(s, &[copies[0], copies[1]], &mut [0.0; 2]);
    *e = copies[1] * xs[0];
    copies[2] + *e
}

/// A float local bound to a call's result and then passed `&mut` (it is a float, not an array).
#[differentiable]
fn call_result_passed_on(xs: &[f64], a: f64) -> f64 {
    let mut t = spread_into(xs, a, &mut 0.5);
    let u = spread_into(xs, t, &mut t);
    t * u
}

/// Sub-slices of a local fixed-size array as output buffers: two right-hand sides written side by side (the second
/// reads a copy of the first's window), and an element the calls leave alone.
#[differentiable]
fn stacked_rhs(y: &[f64], p: &[f64]) -> f64 {
    let mut k = [1.0; 5];
    k[0] = y[0] * p[1];
    rhs(y, p, &mut k[1..3]);
    let a = [k[1], k[2]];
    rhs(&a, p, &mut k[3..]);
    k[0] * k[3] + k[1] * k[2] + k[4]
}

/// Windows that move in a loop (`a..b` and `a..=b`), one written by a callee that reads its incoming
/// values.
#[differentiable]
fn stages(y: &[f64], p: &[f64], a: f64, n: usize) -> f64 {
    let mut k = vec![0.0; 2 * n + 2];
    k[0] = y[0];
    k[1] = y[1];
    for s in 0..n {
        let prev = [k[2 * s], k[2 * s + 1]];
        rhs(&prev, p, &mut k[2 * s + 2..2 * s + 4]);
        axpy_into(a, &prev, &mut k[2 * s + 2..=2 * s + 3]);
    }
    let mut total = 0.0;
    for i in 0..k.len() {
        total += k[i] * k[i];
    }
    total
}

/// Windows of the caller's own output parameter (`&mut out[2..]`, `&mut out[..2]`).
#[differentiable]
fn state_and_rate(y: &[f64], p: &[f64], out: &mut [f64]) {
    out[0] = y[0] * y[1];
    out[1] = y[1].sin();
    rhs(y, p, &mut out[2..]);
    axpy_into(p[0], y, &mut out[..2]);
}

/// The caller's output parameters passed on bare (`rhs(y, p, out)`, `scale_into(a, acc)`): implicit
/// reborrows, which the callee writes.
#[differentiable]
fn rhs_scaled(y: &[f64], p: &[f64], s: f64, out: &mut [f64], acc: &mut f64) -> f64 {
    rhs(y, p, out);
    for i in 0..2 {
        out[i] *= s;
    }
    let v = scale_into(s, acc);
    v * out[0] + *acc
}

fn flat(f: impl Fn(&[f64]) -> f64) -> impl Fn(&[f64]) -> f64 {
    f
}

/// Adds `sin s` into the float output `e`, returns `s²`.
#[differentiable]
fn accumulate_sin<T: autodiff::Float>(s: T, e: &mut T) -> T {
    *e = *e + s.sin();
    s * s
}

/// An element of a `Vec` made in an outer loop's body passed as the output of a call in an inner loop:
/// the reservation of the tape of the `Vec` stored at the call named it before the outer loop, where it
/// does not exist (rustc's E0425; found by autodiff-fuzz --forms, seed 9502). Each outer iteration adds
/// `2 a²` and `2 a sin a`: `f = 4 a² + 4 a sin a`.
/// (A `Vec`, not an array, on purpose: a fixed-size array's tape is not reserved by its length.)
#[differentiable(order = 2)]
#[allow(clippy::useless_vec)]
fn outputs_in_a_nested_loop(a: f64) -> f64 {
    let mut t = 0.0;
    for i in 0..2 {
        let mut acc = vec![0.0; 3];
        for _ in 0..2 {
            t += accumulate_sin(a, &mut acc[i]);
        }
        t += acc[i] * a;
    }
    t
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn an_element_of_a_vec_made_in_an_outer_loop_as_a_calls_output(a in -2.0f64..2.0) {
        let (value, g) = outputs_in_a_nested_loop_grad(a);
        assert_close(value, 4.0 * a * a + 4.0 * a * a.sin(), 1e-12, "value");
        let by_hand = 8.0 * a + 4.0 * a.sin() + 4.0 * a * a.cos();
        assert_close(g, by_hand, 1e-12, "gradient by hand");
        assert_fd_gradient(|x| outputs_in_a_nested_loop(x[0]), &[a], &[g], "outputs_in_a_nested_loop");
        let (_, h) = outputs_in_a_nested_loop_jvp(a, 1.0);
        assert_close(h, by_hand, 1e-12, "tangent");
        let (_, _, hessian) = outputs_in_a_nested_loop_hessian(a);
        let second = 8.0 + 8.0 * a.cos() - 4.0 * a * a.sin();
        assert_close(hessian[0][0], second, 1e-10, "Hessian by hand");
        let d = central_difference(|x| outputs_in_a_nested_loop_grad(x).1, a);
        assert_close(hessian[0][0], d, 1e-6, "Hessian against differences of the gradient");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn euler_gradient_matches_finite_differences(
        y0 in prop::collection::vec(0.2f64..1.5, 2),
        p in prop::collection::vec(0.2f64..1.5, 2),
        h in 0.01f64..0.2,
        steps in 0usize..6,
    ) {
        let (value, (dy0, dp, dh)) = euler_grad(&y0, &p, h, steps);
        assert_close(value, euler(&y0, &p, h, steps), 1e-14, "value");
        let x: Vec<f64> = [y0.clone(), p.clone(), vec![h]].concat();
        let f = flat(|x: &[f64]| euler(&x[..2], &x[2..4], x[4], steps));
        assert_fd_gradient(f, &x, &[dy0.clone(), dp.clone(), vec![dh]].concat(), "euler");
        // Forward mode: the directional derivative along each input.
        for j in 0..5 {
            let mut t = [0.0; 5];
            t[j] = 1.0;
            let (v, dot) = euler_jvp(&y0, &p, h, steps, (t[..2].to_vec(), t[2..4].to_vec(), t[4]));
            assert_close(v, value, 1e-14, "jvp value");
            let g = [dy0.clone(), dp.clone(), vec![dh]].concat();
            assert_close(dot, g[j], 1e-10, "jvp against vjp");
        }
        // `_grad_into` and `_vjp`.
        let (mut gy, mut gp, mut gh) = (vec![f64::NAN; 2], vec![f64::NAN; 2], f64::NAN);
        let v = euler_grad_into(&y0, &p, h, steps, (&mut gy, &mut gp, &mut gh));
        assert_close(v, value, 1e-14, "grad_into value");
        assert_all_close(&gy, &dy0, 1e-14, "grad_into y0");
        assert_all_close(&gp, &dp, 1e-14, "grad_into p");
        let (_, (vy, _, _)) = euler_vjp(&y0, &p, h, steps, 2.0);
        assert_all_close(&vy, &dy0.iter().map(|g| 2.0 * g).collect::<Vec<_>>(), 1e-14, "vjp");
    }

    #[test]
    fn euler_one_step_by_hand(y0 in prop::collection::vec(0.2f64..1.5, 2), p in prop::collection::vec(0.2f64..1.5, 2), h in 0.01f64..0.2) {
        // y1 = y0 + h f(y0); result y1[0] + y1[1]^2.
        let (y, q) = (&y0, &p);
        let f1 = [q[0] * y[0] - y[0] * y[1], y[0] * y[1] - q[1] * y[1]];
        let y1 = [y[0] + h * f1[0], y[1] + h * f1[1]];
        let (d0, d1) = (1.0, 2.0 * y1[1]);
        let dy0 = [
            d0 * (1.0 + h * (q[0] - y[1])) + d1 * h * y[1],
            d0 * (-h * y[0]) + d1 * (1.0 + h * (y[0] - q[1])),
        ];
        let (_, (gy, gp, gh)) = euler_grad(&y0, &p, h, 1);
        assert_all_close(&gy, &dy0, 1e-12, "d/dy0");
        assert_all_close(&gp, &[d0 * h * y[0], -d1 * h * y[1]], 1e-12, "d/dp");
        assert_close(gh, d0 * f1[0] + d1 * f1[1], 1e-12, "d/dh");
    }

    #[test]
    fn buffers_read_rewritten_and_passed_twice(x in prop::collection::vec(-1.5f64..1.5, 2), a in -1.5f64..1.5) {
        let (value, (gx, ga)) = read_write_twice_grad(&x, a);
        assert_close(value, read_write_twice(&x, a), 1e-14, "value");
        let all = [x.clone(), vec![a]].concat();
        assert_fd_gradient(|v: &[f64]| read_write_twice(&v[..2], v[2]), &all, &[gx.clone(), vec![ga]].concat(), "read_write_twice");
        let (_, dot) = read_write_twice_jvp(&x, a, (vec![0.3, -0.7], 0.5));
        assert_close(dot, 0.3 * gx[0] - 0.7 * gx[1] + 0.5 * ga, 1e-10, "jvp");
    }

    #[test]
    fn calls_in_branches_and_loops(x in prop::collection::vec(-1.2f64..1.2, 2), a in -1.2f64..1.2, n in 0usize..5) {
        let (value, (gx, ga)) = branchy_grad(&x, a, n);
        assert_close(value, branchy(&x, a, n), 1e-14, "value");
        let all = [x.clone(), vec![a]].concat();
        assert_fd_gradient(|v: &[f64]| branchy(&v[..2], v[2], n), &all, &[gx.clone(), vec![ga]].concat(), "branchy");
        let (_, dot) = branchy_jvp(&x, a, n, (vec![1.0, 0.0], 0.0));
        assert_close(dot, gx[0], 1e-10, "jvp");
    }

    #[test]
    fn an_element_the_callee_leaves_alone_keeps_its_derivative(x in prop::collection::vec(-1.5f64..1.5, 2)) {
        let (value, g) = partial_write_grad(&x);
        assert_close(value, partial_write(&x), 1e-14, "value");
        // v = x0² + x1, out = [sin x0, x0 x1]: f = v sin x0 + x0 x1.
        let by_hand = [
            2.0 * x[0] * x[0].sin() + (x[0] * x[0] + x[1]) * x[0].cos() + x[1],
            x[0].sin() + x[0],
        ];
        assert_all_close(&g, &by_hand, 1e-12, "by hand");
        let (_, dot) = partial_write_jvp(&x, vec![0.0, 1.0]);
        assert_close(dot, by_hand[1], 1e-12, "jvp");
    }

    #[test]
    fn fixed_size_buffers_in_a_loop(t in -2.0f64..2.0, v in prop::array::uniform2(-1.5f64..1.5), steps in 0usize..5) {
        let (value, (gt, gv)) = spin_grad(t, &v, steps);
        assert_close(value, spin(t, &v, steps), 1e-14, "value");
        let dt = central_difference(|s| spin(s, &v, steps), t);
        assert_close(gt, dt, 1e-7, "d/dt");
        let all = [t, v[0], v[1]];
        assert_fd_gradient(|w: &[f64]| spin(w[0], &[w[1], w[2]], steps), &all, &[gt, gv[0], gv[1]], "spin");
        let (_, dot) = spin_jvp(t, &v, steps, (1.0, [0.0; 2]));
        assert_close(dot, gt, 1e-10, "jvp");
    }

    #[test]
    fn output_parameters_passed_on(y in prop::collection::vec(0.2f64..1.5, 2), p in prop::collection::vec(0.2f64..1.5, 2), h in 0.01f64..0.3) {
        let (value, (gy, gp, gh)) = two_steps_grad(&y, &p, h);
        assert_close(value, two_steps(&y, &p, h), 1e-14, "value");
        let all = [y.clone(), p.clone(), vec![h]].concat();
        assert_fd_gradient(|w: &[f64]| two_steps(&w[..2], &w[2..4], w[4]), &all, &[gy.clone(), gp.clone(), vec![gh]].concat(), "two_steps");
        // `step_into`'s own vjp and jvp, with a cotangent on its output.
        let d = [0.5, -2.0];
        let mut next = vec![0.0; 2];
        // `next` is passed on to a call, which may read it: its incoming value is an input, with a zero
        // gradient here (`rhs` overwrites it).
        let (vy, vp, vh, vnext) = step_into_vjp(&y, &p, h, &mut next, &d);
        prop_assert_eq!(vnext, vec![0.0; 2]);
        let mut expected = vec![0.0; 2];
        step_into(&y, &p, h, &mut expected);
        prop_assert_eq!(&next, &expected);
        let g = |w: &[f64]| {
            let mut out = vec![0.0; 2];
            step_into(&w[..2], &w[2..4], w[4], &mut out);
            d[0] * out[0] + d[1] * out[1]
        };
        assert_fd_gradient(g, &all, &[vy, vp, vec![vh]].concat(), "step_into_vjp");
        let mut tangent = vec![f64::NAN; 2];
        step_into_jvp(&y, &p, h, &mut next, (vec![1.0, 0.0], vec![0.0; 2], 0.0, vec![7.0; 2]), &mut tangent);
        let fd0 = central_difference(|s| { let mut o = vec![0.0; 2]; step_into(&[s, y[1]], &p, h, &mut o); o[0] }, y[0]);
        assert_close(tangent[0], fd0, 1e-7, "step_into_jvp");
    }

    #[test]
    fn buffers_made_in_the_loop_body(
        y0 in prop::collection::vec(0.2f64..1.5, 2),
        p in prop::collection::vec(0.2f64..1.5, 2),
        h in 0.05f64..0.5,
        steps in 0usize..6,
    ) {
        let (value, (gy, gp, gh)) = buffers_in_the_body_grad(&y0, &p, h, steps);
        assert_close(value, buffers_in_the_body(&y0, &p, h, steps), 1e-14, "value");
        let all = [y0.clone(), p.clone(), vec![h]].concat();
        let f = |w: &[f64]| buffers_in_the_body(&w[..2], &w[2..4], w[4], steps);
        assert_fd_gradient(f, &all, &[gy.clone(), gp.clone(), vec![gh]].concat(), "buffers_in_the_body");
        let (_, dot) = buffers_in_the_body_jvp(&y0, &p, h, steps, (vec![0.0; 2], vec![0.0; 2], 1.0));
        assert_close(dot, gh, 1e-10, "jvp");
    }

    #[test]
    fn float_locals_changed_only_through_calls(x in prop::collection::vec(-1.5f64..1.5, 1..4), k in -1.5f64..1.5) {
        let (value, (gx, gk)) = only_through_calls_grad(&x, k);
        assert_close(value, only_through_calls(&x, k), 1e-14, "value");
        let all = [x.clone(), vec![k]].concat();
        let n = x.len();
        assert_fd_gradient(|w: &[f64]| only_through_calls(&w[..n], w[n]), &all, &[gx.clone(), vec![gk]].concat(), "only_through_calls");
        let (_, dot) = only_through_calls_jvp(&x, k, (vec![0.0; n], 1.0));
        assert_close(dot, gk, 1e-10, "jvp");
    }

    #[test]
    fn float_outputs_read_in_vec_and_call_results_passed_on(xs in prop::collection::vec(-1.5f64..1.5, 1..3), a in -1.5f64..1.5, e in -1.5f64..1.5) {
        // spread_into: e' = (e + s) x0, value e + e'.
        let mut out = e;
        let (_, (gx, gs, ge)) = spread_into_vjp(&xs, a, &mut out, 1.0, 0.0);
        assert_close(out, (e + a) * xs[0], 1e-14, "the output");
        assert_close(ge, 1.0 + xs[0], 1e-12, "d/de: the incoming value read in vec![..]");
        assert_close(gs, xs[0], 1e-12, "d/ds");
        assert_close(gx[0], e + a, 1e-12, "d/dx0");
        let (value, (g, ga)) = call_result_passed_on_grad(&xs, a);
        assert_close(value, call_result_passed_on(&xs, a), 1e-14, "value");
        let n = xs.len();
        let all = [xs.clone(), vec![a]].concat();
        assert_fd_gradient(|w: &[f64]| call_result_passed_on(&w[..n], w[n]), &all, &[g, vec![ga]].concat(), "call_result_passed_on");
    }

    #[test]
    fn a_dropped_array_result(x in prop::collection::vec(-1.5f64..1.5, 2)) {
        let (value, g) = drops_the_result_grad(&x);
        assert_close(value, x[0] * x[0] * x[1], 1e-14, "value");
        assert_close(value, drops_the_result(&x), 1e-14, "the primal");
        assert_all_close(&g, &[2.0 * x[0] * x[1], x[0] * x[0]], 1e-12, "by hand");
        let (_, dot) = drops_the_result_jvp(&x, vec![0.5, 1.0]);
        assert_close(dot, 0.5 * g[0] + g[1], 1e-12, "jvp");
    }

    #[test]
    fn float_outputs(x in prop::collection::vec(-1.5f64..1.5, 2), k in 0.2f64..2.0, o in -1.0f64..1.0, d in -1.0f64..1.0) {
        // The callee's own items: e = k x0² / 2 (1 + x1).
        let e = |x: &[f64], k: f64| 0.5 * k * x[0] * x[0] * (1.0 + x[1]);
        let mut out = f64::NAN;
        let (gx, gk) = energy_into_vjp(&x, k, &mut out, d);
        assert_close(out, e(&x, k), 1e-14, "energy_into writes its output");
        assert_all_close(&gx, &[d * k * x[0] * (1.0 + x[1]), d * 0.5 * k * x[0] * x[0]], 1e-12, "d e / dx");
        assert_close(gk, d * 0.5 * x[0] * x[0] * (1.0 + x[1]), 1e-12, "d e / dk");
        let mut tangent = f64::NAN;
        energy_into_jvp(&x, k, &mut out, (vec![1.0, 0.0], 0.0), &mut tangent);
        assert_close(tangent, k * x[0] * (1.0 + x[1]), 1e-12, "jvp");
        // An output read before written has a gradient, a float; and f_grad of the returned value.
        let mut acc = o;
        let (v, (da, dacc)) = scale_into_vjp(k, &mut acc, 2.0, d);
        assert_close(v, k * k, 1e-14, "value");
        assert_close(acc, o * k + k.sin(), 1e-14, "the output");
        assert_close(da, 2.0 * 2.0 * k + d * (o + k.cos()), 1e-12, "d/da");
        assert_close(dacc, d * k, 1e-12, "d/d acc");
        let mut acc = o;
        let (_, (ga, gacc)) = scale_into_grad(k, &mut acc);
        assert_close(ga, 2.0 * k, 1e-12, "grad: outputs' cotangents are zero");
        assert_close(gacc, 0.0, 1e-12, "grad of the incoming value");
        let (mut ba, mut bacc) = (f64::NAN, f64::NAN);
        let mut acc = o;
        scale_into_grad_into(k, &mut acc, (&mut ba, &mut bacc));
        assert_close(ba, ga, 1e-14, "grad_into");
        assert_close(bacc, 0.0, 1e-14, "grad_into");
        let mut acc = o;
        let mut t_acc = f64::NAN;
        let (_, tv) = scale_into_jvp(k, &mut acc, (0.5, 1.0), &mut t_acc);
        assert_close(tv, 0.5 * 2.0 * k, 1e-12, "jvp of the value");
        assert_close(t_acc, 0.5 * (o + k.cos()) + k, 1e-12, "jvp of the output");

        // Calls with float locals, an element, and the caller's own float output.
        let mut out = o;
        let (value, (g, gk, gout)) = uses_float_outputs_vjp(&x, k, &mut out, 1.0, d);
        let mut expected_out = o;
        assert_close(value, uses_float_outputs(&x, k, &mut expected_out), 1e-14, "value");
        assert_close(out, expected_out, 1e-14, "the caller's output");
        let all = [x.clone(), vec![k, o]].concat();
        let f = |w: &[f64]| {
            let mut out = w[3];
            let v = uses_float_outputs(&w[..2], w[2], &mut out);
            v + d * out
        };
        assert_fd_gradient(f, &all, &[g.clone(), vec![gk, gout]].concat(), "uses_float_outputs");
        let mut out = o;
        let mut t_out = f64::NAN;
        let (_, tv) = uses_float_outputs_jvp(&x, k, &mut out, (vec![0.0, 1.0], 0.5, -1.0), &mut t_out);
        let h = |s: f64| {
            let mut out = o - s;
            let v = uses_float_outputs(&[x[0], x[1] + s], k + 0.5 * s, &mut out);
            v + d * out
        };
        assert_close(tv + d * t_out, central_difference(h, 0.0), 1e-6, "jvp");
    }

    #[test]
    fn sub_slices_as_output_buffers(y in prop::collection::vec(0.2f64..1.5, 2), p in prop::collection::vec(0.2f64..1.5, 2), a in -1.5f64..1.5, n in 0usize..4) {
        // By hand: k0 = y0 p1, k[1..3] = f(y), k[3..5] = f(f(y)).
        let f = |y: [f64; 2]| [p[0] * y[0] - y[0] * y[1], y[0] * y[1] - p[1] * y[1]];
        let k1 = f([y[0], y[1]]);
        let k2 = f(k1);
        let (value, (gy, gp)) = stacked_rhs_grad(&y, &p);
        assert_close(value, y[0] * p[1] * k2[0] + k1[0] * k1[1] + k2[1], 1e-14, "value");
        let all = [y.clone(), p.clone()].concat();
        let g = [gy.clone(), gp.clone()].concat();
        assert_fd_gradient(|w: &[f64]| stacked_rhs(&w[..2], &w[2..]), &all, &g, "stacked_rhs");
        for (j, t) in [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.5, -1.0]].iter().enumerate() {
            let (v, dot) = stacked_rhs_jvp(&y, &p, (t[..2].to_vec(), t[2..].to_vec()));
            assert_close(v, value, 1e-14, "jvp value");
            assert_close(dot, common::dot(&g, t), 1e-10, &format!("jvp {j}"));
        }

        let (value, (gy, gp, ga)) = stages_grad(&y, &p, a, n);
        assert_close(value, stages(&y, &p, a, n), 1e-14, "value");
        let all = [y.clone(), p.clone(), vec![a]].concat();
        let g = [gy, gp, vec![ga]].concat();
        assert_fd_gradient(|w: &[f64]| stages(&w[..2], &w[2..4], w[4], n), &all, &g, "stages");
        let t = [0.3, -0.2, 0.5, 1.0, -0.7];
        let (_, dot) = stages_jvp(&y, &p, a, n, (t[..2].to_vec(), t[2..4].to_vec(), t[4]));
        common::assert_dot(dot, &g, &t, 1e-10, "stages jvp");
    }

    #[test]
    fn sub_slices_of_an_output_parameter(y in prop::collection::vec(0.2f64..1.5, 2), p in prop::collection::vec(0.2f64..1.5, 2), d in prop::collection::vec(-1.0f64..1.0, 4)) {
        let by_hand = |y: &[f64], p: &[f64]| [
            y[0] * y[1] + p[0] * y[0],
            y[1].sin() + p[0] * y[1],
            p[0] * y[0] - y[0] * y[1],
            y[0] * y[1] - p[1] * y[1],
        ];
        let mut out = vec![f64::NAN; 4];
        state_and_rate(&y, &p, &mut out);
        assert_all_close(&out, &by_hand(&y, &p), 1e-14, "the primal");
        let mut out = vec![0.0; 4];
        let (gy, gp, gout) = state_and_rate_vjp(&y, &p, &mut out, &d);
        assert_all_close(&out, &by_hand(&y, &p), 1e-14, "vjp writes the output");
        prop_assert_eq!(gout, vec![0.0; 4]);
        let all = [y.clone(), p.clone()].concat();
        let g = [gy, gp].concat();
        let f = |w: &[f64]| common::dot(&by_hand(&w[..2], &w[2..]), &d);
        assert_fd_gradient(f, &all, &g, "state_and_rate_vjp");
        let t = [0.5, -1.0, 0.25, 2.0];
        let mut tangent = vec![f64::NAN; 4];
        state_and_rate_jvp(&y, &p, &mut out, (t[..2].to_vec(), t[2..].to_vec(), vec![3.0; 4]), &mut tangent);
        common::assert_dot(common::dot(&tangent, &d), &g, &t, 1e-10, "state_and_rate_jvp");
        // Its Jacobian: rows the four outputs, columns y, p and the incoming `out` (read by the callees).
        let jacobian = state_and_rate_jacobian(&y, &p, &mut out);
        prop_assert_eq!(jacobian.len(), 4);
        for (i, row) in jacobian.iter().enumerate() {
            prop_assert_eq!(row.len(), 8);
            let fd: Vec<f64> = (0..4).map(|j| central_difference(|s| {
                let mut w = all.clone();
                w[j] = s;
                by_hand(&w[..2], &w[2..])[i]
            }, all[j])).collect();
            assert_all_close(&row[..4], &fd, 1e-7, &format!("jacobian row {i}"));
            assert_all_close(&row[4..], &[0.0; 4], 0.0, "the incoming output");
        }
    }

    #[test]
    fn output_parameters_passed_on_bare(y in prop::collection::vec(0.2f64..1.5, 2), p in prop::collection::vec(0.2f64..1.5, 2), s in -1.5f64..1.5, o in -1.0f64..1.0, d in prop::collection::vec(-1.0f64..1.0, 3)) {
        // out = s f(y), acc' = acc s + sin s, value = s² out0 + acc'.
        let by_hand = |y: &[f64], p: &[f64], s: f64, acc: f64| {
            let out = [s * (p[0] * y[0] - y[0] * y[1]), s * (y[0] * y[1] - p[1] * y[1])];
            let acc = acc * s + s.sin();
            (s * s * out[0] + acc, out, acc)
        };
        let mut out = vec![f64::NAN; 2];
        let mut acc = o;
        let (value, (gy, gp, gs, gout, gacc)) = rhs_scaled_vjp(&y, &p, s, &mut out, &mut acc, d[0], &d[1..], d[2]);
        let (v, o2, a2) = by_hand(&y, &p, s, o);
        assert_close(value, v, 1e-14, "value");
        let (mut primal_out, mut primal_acc) = (vec![0.0; 2], o);
        assert_close(rhs_scaled(&y, &p, s, &mut primal_out, &mut primal_acc), v, 1e-14, "the primal");
        assert_all_close(&primal_out, &o2, 1e-14, "the primal's out");
        assert_all_close(&out, &o2, 1e-14, "out");
        assert_close(acc, a2, 1e-14, "acc");
        // `out` passed on may be read by the callee: its incoming value is an input, here with no effect.
        prop_assert_eq!(gout, vec![0.0; 2]);
        let all = [y.clone(), p.clone(), vec![s, o]].concat();
        let f = |w: &[f64]| {
            let (v, out, acc) = by_hand(&w[..2], &w[2..4], w[4], w[5]);
            d[0] * v + d[1] * out[0] + d[2] * out[1] + d[2] * acc
        };
        let g = [gy, gp, vec![gs, gacc]].concat();
        assert_fd_gradient(f, &all, &g, "rhs_scaled_vjp");
        let t = [0.5, -1.0, 0.25, 2.0, 0.7, -0.3];
        let (mut t_out, mut t_acc) = (vec![f64::NAN; 2], f64::NAN);
        let mut acc = o;
        let (_, t_value) = rhs_scaled_jvp(&y, &p, s, &mut out, &mut acc, (t[..2].to_vec(), t[2..4].to_vec(), t[4], vec![9.0; 2], t[5]), &mut t_out, &mut t_acc);
        let along = d[0] * t_value + d[1] * t_out[0] + d[2] * t_out[1] + d[2] * t_acc;
        common::assert_dot(along, &g, &t, 1e-10, "rhs_scaled_jvp");
    }

}
