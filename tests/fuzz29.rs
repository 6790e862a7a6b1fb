//! Session 29, found by the fuzzer's `--vecs` mode with the forms of session 28 turned on:
//! 1. a slice local rebound in a loop to windows of a slice that was itself rebound BEFORE the local's
//!    `let` (a `mut xs: &[f64]` parameter after `xs = &xs[1..];`, or a slice local after `y = &y[1..];`)
//!    was not followed as a view (its source was "assigned" somewhere in the function), so its windows
//!    were copied into a buffer of the first window's length: `--vecs --seed 29301` p19 panicked with "a
//!    `#[differentiable]` function assigned a `Vec` of another length to `view7` in a loop". A source
//!    assigned only outside the local's scope holds one slice wherever the local is alive, and a `mut`
//!    slice parameter is bound once (by the `let` that opens the body), so the local is a view of it now.
//! 2. a view rebound in a loop to a window of a sub-slice whose range has an end (`view = &xs[..k][t..];`)
//!    was not followed either (only `&xs[a..][r]` was one range of `xs`) and panicked the same way; where the
//!    inner range has no end, `&xs[a..b][c..]` is `&xs[a + c..b]`, which panics where the two would.
//!
//! Every function is checked against analytic derivatives and central differences (`common`, no code
//! shared with the macro) at several points, and at `order = 2` its Hessian against differences of its
//! gradient.

#![allow(clippy::needless_range_loop, clippy::redundant_slicing)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs, ANALYTIC_TOL,
};

#[differentiable(order = 2)]
fn after_rebind(a: f64, mut xs: &[f64]) -> f64 {
    let mut acc = 0.0;
    xs = &xs[1..];
    let mut view = &xs[..2];
    for t in 0..2 {
        acc += a * view[0] * view[view.len() - 1];
        view = &xs[t + 1..t + 2];
    }
    acc + view[0] * xs[0]
}

#[differentiable(order = 2)]
fn trimmed_then_viewed(mut xs: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    while xs.len() > 3 {
        s += xs[0] * w;
        xs = &xs[1..];
    }
    let mut view = &xs[..1];
    for t in 0..3 {
        s += view[0] * view[view.len() - 1] * (t as f64 + 1.0);
        view = &xs[t..];
    }
    s + view[0]
}

#[differentiable(order = 2)]
fn local_rebound_then_viewed(xs: &[f64], ys: &[f64]) -> f64 {
    let mut y = &ys[..];
    y = &y[1..];
    let mut view = &xs[..2];
    let mut s = 0.0;
    for t in 0..2 {
        s += view[0] * view[1].sin();
        view = &y[t..t + 2];
    }
    s * view[1]
}

#[differentiable(order = 2)]
fn windows_of_a_prefix(a: f64, xs: &[f64], k: usize) -> f64 {
    let mut acc = 0.0;
    let mut view = &xs[..1];
    for t in 0..3 {
        acc += a * view[0] * view[view.len() - 1];
        view = &xs[..k][t..];
    }
    acc + view[0]
}

#[test]
fn view_of_a_mut_slice_parameter_rebound_before() {
    let mut inputs = Inputs(2901);
    for _ in 0..8 {
        let a = 2.0 * inputs.next();
        let x: Vec<f64> = (0..5).map(|_| 2.0 * inputs.next()).collect();
        // xs = x[1..]; windows x[1..3], then [x2], then [x3]: a (x1 x2 + x2^2) + x3 x1.
        let value = a * (x[1] * x[2] + x[2] * x[2]) + x[3] * x[1];
        let (v, (da, dx)) = after_rebind_grad(a, &x);
        assert_close(v, value, ANALYTIC_TOL, "after_rebind");
        assert_close(
            da,
            x[1] * x[2] + x[2] * x[2],
            ANALYTIC_TOL,
            "after_rebind' a",
        );
        let expected = [0.0, a * x[2] + x[3], a * (x[1] + 2.0 * x[2]), x[1], 0.0];
        assert_all_close(&dx, &expected, ANALYTIC_TOL, "after_rebind' xs");
        assert_fd_gradient(|p| after_rebind(a, p), &x, &dx, "after_rebind' fd");
        let (_, _, m) = after_rebind_hessian(a, &x);
        let flat = |p: &[f64]| {
            let (_, (da, dx)) = after_rebind_grad(p[0], &p[1..]);
            std::iter::once(da).chain(dx).collect::<Vec<f64>>()
        };
        let at: Vec<f64> = std::iter::once(a).chain(x.iter().copied()).collect();
        assert_hessian_fd(&m, flat, &at, 1e-6, "after_rebind'' fd");
    }
}

#[test]
fn view_of_a_slice_parameter_trimmed_in_a_loop_before() {
    let mut inputs = Inputs(2902);
    for _ in 0..8 {
        let w = 2.0 * inputs.next();
        let x: Vec<f64> = (0..6).map(|_| 2.0 * inputs.next()).collect();
        // xs = x[3..6] after the while; windows [x3], x[3..6], x[4..6], x[5..6].
        let value =
            w * (x[0] + x[1] + x[2]) + x[3] * x[3] + 2.0 * x[3] * x[5] + 3.0 * x[4] * x[5] + x[5];
        let (v, (dx, dw)) = trimmed_then_viewed_grad(&x, w);
        assert_close(v, value, ANALYTIC_TOL, "trimmed");
        assert_close(dw, x[0] + x[1] + x[2], ANALYTIC_TOL, "trimmed' w");
        let expected = [
            w,
            w,
            w,
            2.0 * x[3] + 2.0 * x[5],
            3.0 * x[5],
            2.0 * x[3] + 3.0 * x[4] + 1.0,
        ];
        assert_all_close(&dx, &expected, ANALYTIC_TOL, "trimmed' xs");
        assert_fd_gradient(|p| trimmed_then_viewed(p, w), &x, &dx, "trimmed' fd");
        let (_, _, m) = trimmed_then_viewed_hessian(&x, w);
        let flat = |p: &[f64]| {
            let (_, (dx, dw)) = trimmed_then_viewed_grad(&p[..6], p[6]);
            dx.into_iter().chain([dw]).collect::<Vec<f64>>()
        };
        let at: Vec<f64> = x.iter().copied().chain([w]).collect();
        assert_hessian_fd(&m, flat, &at, 1e-6, "trimmed'' fd");
    }
}

#[test]
fn view_of_a_slice_local_rebound_before() {
    let mut inputs = Inputs(2903);
    for _ in 0..8 {
        let x: Vec<f64> = (0..3).map(|_| 2.0 * inputs.next()).collect();
        let y: Vec<f64> = (0..4).map(|_| 2.0 * inputs.next()).collect();
        // y' = y[1..]; windows x[0..2], y[1..3], y[2..4]: (x0 sin x1 + y1 sin y2) y3.
        let inner = x[0] * x[1].sin() + y[1] * y[2].sin();
        let (v, (dx, dy)) = local_rebound_then_viewed_grad(&x, &y);
        assert_close(v, inner * y[3], ANALYTIC_TOL, "local_rebound");
        let ex = [x[1].sin() * y[3], x[0] * x[1].cos() * y[3], 0.0];
        let ey = [0.0, y[2].sin() * y[3], y[1] * y[2].cos() * y[3], inner];
        assert_all_close(&dx, &ex, ANALYTIC_TOL, "local_rebound' xs");
        assert_all_close(&dy, &ey, ANALYTIC_TOL, "local_rebound' ys");
        assert_fd_gradient(
            |p| local_rebound_then_viewed(p, &y),
            &x,
            &dx,
            "local' xs fd",
        );
        assert_fd_gradient(
            |p| local_rebound_then_viewed(&x, p),
            &y,
            &dy,
            "local' ys fd",
        );
        let (_, _, m) = local_rebound_then_viewed_hessian(&x, &y);
        let flat = |p: &[f64]| {
            let (_, (dx, dy)) = local_rebound_then_viewed_grad(&p[..3], &p[3..]);
            dx.into_iter().chain(dy).collect::<Vec<f64>>()
        };
        let at: Vec<f64> = x.iter().chain(&y).copied().collect();
        assert_hessian_fd(&m, flat, &at, 1e-6, "local_rebound'' fd");
    }
}

#[test]
fn view_of_a_window_of_a_prefix() {
    let mut inputs = Inputs(2904);
    for k in 3..=5 {
        for _ in 0..6 {
            let a = 2.0 * inputs.next();
            let x: Vec<f64> = (0..5).map(|_| 2.0 * inputs.next()).collect();
            // Windows [x0], x[0..k], x[1..k], x[2..k]: a (x0^2 + x0 x_(k-1) + x1 x_(k-1)) + x2.
            let l = x[k - 1];
            let value = a * (x[0] * x[0] + x[0] * l + x[1] * l) + x[2];
            let (v, (da, dx)) = windows_of_a_prefix_grad(a, &x, k);
            assert_close(v, value, ANALYTIC_TOL, "prefix");
            assert_close(
                da,
                x[0] * x[0] + x[0] * l + x[1] * l,
                ANALYTIC_TOL,
                "prefix' a",
            );
            let mut expected = vec![0.0; 5];
            expected[0] += a * (2.0 * x[0] + l);
            expected[1] += a * l;
            expected[k - 1] += a * (x[0] + x[1]);
            expected[2] += 1.0;
            assert_all_close(&dx, &expected, ANALYTIC_TOL, "prefix' xs");
            assert_fd_gradient(|p| windows_of_a_prefix(a, p, k), &x, &dx, "prefix' fd");
            let (_, _, m) = windows_of_a_prefix_hessian(a, &x, k);
            let flat = |p: &[f64]| {
                let (_, (da, dx)) = windows_of_a_prefix_grad(p[0], &p[1..], k);
                std::iter::once(da).chain(dx).collect::<Vec<f64>>()
            };
            let at: Vec<f64> = std::iter::once(a).chain(x.iter().copied()).collect();
            assert_hessian_fd(&m, flat, &at, 1e-6, "prefix'' fd");
        }
    }
}

// Where the two fixes of this session meet (gaps29's views of views, this file's sources rebound before
// the local's `let`): a source assigned AFTER the loop, while the local is alive, is a view itself.
#[differentiable(order = 2)]
fn source_assigned_after<'a>(x: &'a [f64], mut y: &'a [f64]) -> f64 {
    let mut input = &x[..];
    let mut s = 0.0;
    for t in 0..3 {
        s += input[0] * input[input.len() - 1];
        input = &y[t..];
    }
    y = &x[1..];
    s + input[0] * y[0]
}

#[differentiable(order = 2)]
fn parameter_trimmed_after(a: f64, mut xs: &[f64]) -> f64 {
    let mut acc = 0.0;
    let mut view = &xs[..2];
    for t in 0..2 {
        acc += a * view[0];
        view = &xs[t..t + 1];
    }
    xs = &xs[1..];
    acc + view[0] + xs[0]
}

#[test]
fn sources_assigned_after_the_loop() {
    let mut inputs = Inputs(2905);
    for _ in 0..8 {
        let x: Vec<f64> = (0..3).map(|_| 2.0 * inputs.next()).collect();
        let y: Vec<f64> = (0..4).map(|_| 2.0 * inputs.next()).collect();
        // Windows x[..], y[0..], y[1..], then y[2..]; y = x[1..] after: x0 x2 + y0 y3 + y1 y3 + y2 x1.
        let value = x[0] * x[2] + y[0] * y[3] + y[1] * y[3] + y[2] * x[1];
        let (v, (dx, dy)) = source_assigned_after_grad(&x, &y);
        assert_close(v, value, ANALYTIC_TOL, "source_assigned_after");
        assert_all_close(&dx, &[x[2], y[2], x[0]], ANALYTIC_TOL, "after' x");
        assert_all_close(
            &dy,
            &[y[3], y[3], x[1], y[0] + y[1]],
            ANALYTIC_TOL,
            "after' y",
        );
        assert_fd_gradient(|p| source_assigned_after(p, &y), &x, &dx, "after' x fd");
        assert_fd_gradient(|p| source_assigned_after(&x, p), &y, &dy, "after' y fd");
        let (_, _, m) = source_assigned_after_hessian(&x, &y);
        let flat = |p: &[f64]| {
            let (_, (dx, dy)) = source_assigned_after_grad(&p[..3], &p[3..]);
            dx.into_iter().chain(dy).collect::<Vec<f64>>()
        };
        let at: Vec<f64> = x.iter().chain(&y).copied().collect();
        assert_hessian_fd(&m, flat, &at, 1e-6, "source_assigned_after'' fd");

        let a = 2.0 * inputs.next();
        let xs: Vec<f64> = (0..4).map(|_| 2.0 * inputs.next()).collect();
        // Windows xs[..2], xs[0..1], then xs[1..2]; xs = xs[1..] after: 2 a x0 + 2 x1.
        let (v, (da, dx)) = parameter_trimmed_after_grad(a, &xs);
        assert_close(
            v,
            2.0 * a * xs[0] + 2.0 * xs[1],
            ANALYTIC_TOL,
            "trimmed_after",
        );
        assert_close(da, 2.0 * xs[0], ANALYTIC_TOL, "trimmed_after' a");
        assert_all_close(
            &dx,
            &[2.0 * a, 2.0, 0.0, 0.0],
            ANALYTIC_TOL,
            "trimmed_after' xs",
        );
        assert_fd_gradient(
            |p| parameter_trimmed_after(a, p),
            &xs,
            &dx,
            "trimmed_after' fd",
        );
        let (_, _, m) = parameter_trimmed_after_hessian(a, &xs);
        let flat = |p: &[f64]| {
            let (_, (da, dx)) = parameter_trimmed_after_grad(p[0], &p[1..]);
            std::iter::once(da).chain(dx).collect::<Vec<f64>>()
        };
        let at: Vec<f64> = std::iter::once(a).chain(xs.iter().copied()).collect();
        assert_hessian_fd(&m, flat, &at, 1e-6, "trimmed_after'' fd");
    }
}
