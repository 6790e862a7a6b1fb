//! Soundness of "does the body read an output parameter's incoming value?" (API.md, "Output parameters":
//! the incoming value is an input only if the body reads it before writing it, and `G` holds the output only
//! then). Each function here reads an element whose write may not have happened, or whose index moved after
//! the write: `G` must hold the output (pinned by `fn` pointers of API.md's types), and the gradient of
//! `d_ret * ret + d_out . out` must match central differences of the primal with the incoming value of the
//! output as an input.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod common;

use autodiff::differentiable;
use common::probe::*;

// ---- Part 1: writes that may not happen, indices that move ----

/// A closure moves the index between the write and the read: `out[1]` is the incoming value.
#[differentiable]
fn closure_moves(x: &[f64], out: &mut [f64]) -> f64 {
    let mut i = 0;
    out[i] = x[0] * x[1];
    let mut bump = || i += 1;
    bump();
    out[i] * x[0]
}

/// A write on the right of `&&` runs only when the left holds.
#[differentiable]
fn short_circuit(x: &[f64], out: &mut [f64]) -> f64 {
    let _ = x[0] > 0.0 && {
        out[0] = x[1] * x[1];
        true
    };
    out[0] * x[1]
}

#[test]
fn part1_signatures_hold_the_output() {
    type G = (Vec<f64>, Vec<f64>);
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, G) = closure_moves_vjp;
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, G) = short_circuit_vjp;
}

#[test]
fn part1_gradients_against_differences() {
    check_read("closure_moves", 2, 2, &closure_moves, &closure_moves_vjp);
    check_read("short_circuit", 2, 2, &short_circuit, &short_circuit_vjp);
}

// ---- Part 2: more programs write before they read: `G` without the output ----

/// Back substitution `U out = b` for an upper-triangular `U` (row-major `n x n`, diagonal kept away from
/// zero): the inner loop reads `out[j]` for `j > i`, each written by an earlier (higher) iteration.
#[differentiable]
fn back_sub(u: &[f64], b: &[f64], out: &mut [f64]) -> f64 {
    let n = b.len();
    for i in (0..n).rev() {
        let mut t = b[i];
        for j in i + 1..n {
            t -= u[i * n + j] * out[j];
        }
        out[i] = t / (2.0 + u[i * n + i] * u[i * n + i]);
    }
    let mut s = 0.0;
    for i in 0..n {
        s += out[i] * out[i];
    }
    s
}

/// A suffix scan: `out[n - 1]` first, then each element from the one above it.
#[differentiable]
fn suffix_scan(x: &[f64], out: &mut [f64]) -> f64 {
    let n = x.len();
    out[n - 1] = x[n - 1];
    for i in (0..n - 1).rev() {
        out[i] = out[i + 1] * x[i].cos() + x[i];
    }
    let mut s = out[n - 1];
    for i in 0..n - 1 {
        s += out[i] * x[i];
    }
    s
}

/// Two sub-slices that together cover the buffer, then a read of each half.
#[differentiable]
fn split_copy(x: &[f64], out: &mut [f64]) -> f64 {
    let k = 2;
    out[..k].copy_from_slice(&x[..k]);
    out[k..].fill(x[0] * x[1]);
    out[3] += out[0];
    out[1] * out[3]
}

/// Two loops over `0..k` and `k..out.len()`, then the whole buffer read.
#[differentiable]
fn two_loops(x: &[f64], out: &mut [f64]) -> f64 {
    let k = 2;
    for i in 0..k {
        out[i] = x[i] * x[i];
    }
    for i in k..out.len() {
        out[i] = x[i].sin() + x[0];
    }
    let total: f64 = out.iter().map(|v| v * v).sum();
    total
}

/// A softmax: the later loops read the run the first wrote (over `0..z.len()`, not `out.len()`; a read of
/// `p[0]` after it would read the incoming value when `z` is empty).
#[differentiable]
fn softmax_run(z: &[f64], p: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..z.len() {
        p[i] = z[i].exp();
        s += p[i];
    }
    for i in 0..z.len() {
        p[i] /= s;
    }
    let mut e = 0.0;
    for i in 0..z.len() {
        e += p[i] * z[i];
    }
    e
}

/// Shifted writes: `out[0]`, then `out[i + 1]` from `out[i]`, then the whole buffer read.
#[differentiable]
fn shifted_scan(x: &[f64], out: &mut [f64]) -> f64 {
    out[0] = x[0];
    for i in 0..out.len() - 1 {
        out[i + 1] = out[i] * 0.5 + x[i + 1] * x[i];
    }
    let total: f64 = out.iter().sum();
    total
}

/// Writes in both branches of an `if`: the whole buffer either way.
#[differentiable]
fn both_branches(x: &[f64], out: &mut [f64]) -> f64 {
    if x[0] > 0.0 {
        out.fill(x[1] * x[0]);
    } else {
        for i in 0..out.len() {
            out[i] = x[i] * x[1];
        }
    }
    let total: f64 = out.iter().map(|v| v.sin()).sum();
    total
}

/// A `while` counter over `0..n`, `n` the output's length through a `let`: the whole buffer, then read.
#[differentiable]
fn counted(x: &[f64], out: &mut [f64]) -> f64 {
    let n = out.len();
    let mut i = 0;
    while i < n {
        out[i] = x[i] * x[i] + 1.0;
        i += 1;
    }
    let total: f64 = out.iter().map(|v| v.ln() * v).sum();
    total
}

/// A sub-slice written with bounds the analysis does not follow (`x.len() - 1`, the whole of `out` here):
/// still no read, as in the loop the macro makes of it (both must agree, or `order = 2` does not compile).
#[differentiable]
fn prefix_fill(x: &[f64], out: &mut [f64]) -> f64 {
    out[..x.len() - 1].fill(x[0] * x[1]);
    x[0].sin() * x[1]
}

#[test]
fn part2_signatures_leave_the_output_out() {
    type V = fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, Vec<f64>);
    let _: fn(&[f64], &[f64], &mut [f64], f64, &[f64]) -> (f64, (Vec<f64>, Vec<f64>)) =
        back_sub_vjp;
    let _: V = suffix_scan_vjp;
    let _: V = split_copy_vjp;
    let _: V = two_loops_vjp;
    let _: V = softmax_run_vjp;
    let _: V = shifted_scan_vjp;
    let _: V = both_branches_vjp;
    let _: V = counted_vjp;
    let _: V = prefix_fill_vjp;
    let _: fn(&[f64], &mut [f64]) -> (f64, Vec<f64>) = two_loops_grad;
}

#[test]
fn part2_gradients_against_differences() {
    let n = 4;
    check_written(
        "back_sub",
        n * n + n,
        n,
        &|v, out| back_sub(&v[..n * n], &v[n * n..], out),
        &|v, out, r, d| {
            let (value, (gu, gb)) = back_sub_vjp(&v[..n * n], &v[n * n..], out, r, d);
            (value, gu.into_iter().chain(gb).collect())
        },
    );
    check_written("suffix_scan", 5, 5, &suffix_scan, &suffix_scan_vjp);
    check_written("split_copy", 5, 5, &split_copy, &split_copy_vjp);
    check_written("two_loops", 5, 5, &two_loops, &two_loops_vjp);
    check_written("softmax_run", 4, 4, &softmax_run, &softmax_run_vjp);
    check_written("shifted_scan", 5, 5, &shifted_scan, &shifted_scan_vjp);
    check_written("both_branches", 5, 5, &both_branches, &both_branches_vjp);
    check_written("counted", 5, 5, &counted, &counted_vjp);
    check_written("prefix_fill", 2, 1, &prefix_fill, &prefix_fill_vjp);
}
