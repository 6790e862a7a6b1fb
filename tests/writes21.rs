//! What counts as writing an output parameter before reading it (API.md, "Output parameters": `G` holds the
//! output only when the body reads its incoming value), through calls and `zip`-bounded loops:
//! - a callee that writes the output whole (`softmax_into(x, out)`) is, to its caller, a call that may read
//!   it: a macro sees one item at a time, so the caller's `G` keeps `out`, whose gradient is then zero; a
//!   callee that does read it (`accumulate(x, out)`) gives that gradient through;
//! - `for (o, a) in out.iter_mut().zip(x)` writes `out[..min(out.len(), x.len())]`: when `x` is shorter the
//!   tail keeps its incoming value, so a later read of the whole buffer keeps `out` in `G` (with the tail's
//!   gradient), while a later loop over the same run reads only what the first wrote.
//!
//! `G` is pinned by `fn` pointers of API.md's types; gradients against central differences of the primal
//! (of `d_ret * ret + d_out . out`), with output buffers full of NaN where `G` leaves the output out.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod common;

use autodiff::differentiable;
use common::probe::*;

// ---- Part 1: a callee that writes the output whole, a callee that reads it ----

/// A softmax written into `out`: every element written before any is read, so `G` is `x`'s alone.
#[differentiable]
fn softmax_into(x: &[f64], out: &mut [f64]) {
    let mut m = x[0];
    for i in 1..x.len() {
        m = m.max(x[i]);
    }
    let mut s = 0.0;
    for i in 0..out.len() {
        out[i] = (x[i] - m).exp();
        s += out[i];
    }
    for i in 0..out.len() {
        out[i] /= s;
    }
}

/// The log-probability of the first class, through `softmax_into`: the caller cannot see that the callee
/// writes `out` before reading it, so `G` keeps `out` (its gradient zero: the callee reads nothing of it).
#[differentiable]
fn log_first(x: &[f64], out: &mut [f64]) -> f64 {
    softmax_into(x, out);
    out[0].ln() + x[1] * out[1]
}

/// The same through `&mut *out`, then a write of the caller's own after the call.
#[differentiable]
fn log_first_reborrowed(x: &[f64], out: &mut [f64]) -> f64 {
    softmax_into(x, &mut *out);
    out[2] = out[0] * x[2];
    out[0].ln() + out[2]
}

/// A callee that reads the incoming value (`out[i] += ..`).
#[differentiable]
fn accumulate(x: &[f64], out: &mut [f64]) {
    for i in 0..out.len() {
        out[i] += x[i] * x[i];
    }
}

/// Through `accumulate`: the incoming value's gradient must come through the call.
#[differentiable]
fn accumulated(x: &[f64], out: &mut [f64]) -> f64 {
    accumulate(x, out);
    out[0] * out[1] + out[2].sin()
}

/// The caller's own whole write before the call: `G` without `out`, whatever the callee does.
#[differentiable]
fn written_then_accumulated(x: &[f64], out: &mut [f64]) -> f64 {
    out.fill(x[0]);
    accumulate(x, out);
    out[0] * out[1] + out[2].sin()
}

#[test]
fn part1_signatures() {
    // The callee's own analysis: written whole, `G` is `x`'s.
    let _: fn(&[f64], &mut [f64], &[f64]) -> Vec<f64> = softmax_into_vjp;
    // Its callers cannot see that: `G` keeps `out`.
    type G = (Vec<f64>, Vec<f64>);
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, G) = log_first_vjp;
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, G) = log_first_reborrowed_vjp;
    let _: fn(&[f64], &mut [f64]) -> (f64, G) = log_first_grad;
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, G) = accumulated_vjp;
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, Vec<f64>) = written_then_accumulated_vjp;
}

#[test]
fn part1_a_callee_that_writes_whole_gives_the_incoming_value_a_zero_gradient() {
    check_read("log_first", 3, 3, &log_first, &log_first_vjp);
    check_read(
        "log_first_reborrowed",
        3,
        3,
        &log_first_reborrowed,
        &log_first_reborrowed_vjp,
    );
    // With NaN going in: the value, the outputs and the gradient of `x` are finite, `out`'s zero.
    let mut lcg = Lcg::new(seed_of("log_first NaN"));
    for _ in 0..8 {
        let x = lcg.vec(3, -1.5, 1.5);
        let d_out = lcg.vec(3, -1.0, 1.0);
        let scalar = |v: &[f64]| {
            let mut out = vec![f64::NAN; 3];
            let r = log_first(v, &mut out);
            0.7 * r + dot(&d_out, &out)
        };
        let fd = fd_gradient(&scalar, &x);
        let mut out = vec![f64::NAN; 3];
        let (value, (gx, gout)) = log_first_vjp(&x, &mut out, 0.7, &d_out);
        assert!(value.is_finite() && out.iter().all(|v| v.is_finite()));
        assert_vec_near(&gx, &fd, 1e-6, "log_first with NaN: gradient of x");
        assert_eq!(gout, vec![0.0; 3], "log_first with NaN: gradient of out");
        let mut out = vec![f64::NAN; 3];
        let (_, (gx, gout)) = log_first_grad(&x, &mut out);
        let scalar = |v: &[f64]| log_first(v, &mut [f64::NAN; 3]);
        assert_vec_near(&gx, &fd_gradient(&scalar, &x), 1e-6, "log_first_grad");
        assert_eq!(gout, vec![0.0; 3], "log_first_grad: gradient of out");
    }
}

#[test]
fn part1_a_callee_that_reads_gives_the_incoming_value_its_gradient() {
    check_read("accumulated", 3, 3, &accumulated, &accumulated_vjp);
    check_written(
        "written_then_accumulated",
        3,
        3,
        &written_then_accumulated,
        &written_then_accumulated_vjp,
    );
    // The incoming value's gradient is not zero: dropping it would be caught.
    let mut out = vec![0.5, -0.25, 1.0];
    let (_, (_, gout)) = accumulated_vjp(&[0.1, 0.2, 0.3], &mut out, 1.0, &[0.0; 3]);
    assert!(gout.iter().all(|g| g.abs() > 1e-3), "{gout:?}");
}

// ---- Part 2: `zip`-bounded `iter_mut` loops ----

/// `out[..min(out.len(), x.len())]` written, then all of `out` read: where `x` is shorter, the tail is the
/// incoming value, so `G` keeps `out`.
#[differentiable]
fn zip_then_sum(x: &[f64], out: &mut [f64]) -> f64 {
    for (o, a) in out.iter_mut().zip(x) {
        *o = a * a;
    }
    let mut s = 0.0;
    for i in 0..out.len() {
        s += out[i] * x[0];
    }
    s
}

/// Written by one `zip` loop, then read and written again by another over the same run: `G` is `x`'s.
#[differentiable]
fn zip_twice(x: &[f64], out: &mut [f64]) -> f64 {
    for (o, a) in out.iter_mut().zip(x) {
        *o = a.sin();
    }
    let mut s = 0.0;
    for (o, a) in out.iter_mut().zip(x) {
        *o *= a;
        s += *o * *o;
    }
    s
}

/// As written by hand: the counted loop the `zip` loop stands for, then a read of the same run.
#[differentiable]
fn min_run(x: &[f64], out: &mut [f64]) -> f64 {
    for i in 0..usize::min(out.len(), x.len()) {
        out[i] = x[i] * x[0];
    }
    let mut s = 0.0;
    for i in 0..usize::min(out.len(), x.len()) {
        s += out[i].exp();
    }
    s
}

/// The `zip` loop's run, then the rest of the buffer from where it ended: written whole, `G` is `x`'s.
#[differentiable]
fn zip_then_rest(x: &[f64], out: &mut [f64]) -> f64 {
    for (o, a) in out.iter_mut().zip(x) {
        *o = a.cos();
    }
    for i in usize::min(out.len(), x.len())..out.len() {
        out[i] = x[0] * x[1];
    }
    let mut s = 0.0;
    for i in 0..out.len() {
        s += out[i] * out[i] * x[1];
    }
    s
}

#[test]
fn part2_signatures() {
    type G = (Vec<f64>, Vec<f64>);
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, G) = zip_then_sum_vjp;
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, Vec<f64>) = zip_twice_vjp;
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, Vec<f64>) = min_run_vjp;
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, Vec<f64>) = zip_then_rest_vjp;
}

#[test]
fn part2_zip_bounded_loops_against_differences() {
    // `x` as long as `out`, longer, and shorter (the tail's incoming value then reaches the result).
    for (nx, nout) in [(3, 3), (4, 3), (2, 4)] {
        check_read("zip_then_sum", nx, nout, &zip_then_sum, &zip_then_sum_vjp);
    }
    let mut out = vec![1.0; 4];
    let (_, (_, gout)) = zip_then_sum_vjp(&[0.5, 0.3], &mut out, 1.0, &[0.0; 4]);
    assert_eq!(
        gout,
        vec![0.0, 0.0, 0.5, 0.5],
        "the tail's incoming value is read"
    );
    for (nx, nout) in [(3, 3), (4, 3)] {
        check_written("zip_twice", nx, nout, &zip_twice, &zip_twice_vjp);
        check_written("min_run", nx, nout, &min_run, &min_run_vjp);
    }
    for (nx, nout) in [(3, 3), (4, 3), (2, 4)] {
        check_written(
            "zip_then_rest",
            nx,
            nout,
            &zip_then_rest,
            &zip_then_rest_vjp,
        );
    }
}
