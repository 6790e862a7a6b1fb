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

/// `_vjp` of a function `(x, out) -> f64` whose `G` holds `out`, against central differences over `x`
/// and the incoming `out` together, at several points, with random cotangents.
fn check_read(
    name: &str,
    nx: usize,
    nout: usize,
    f: &dyn Fn(&[f64], &mut [f64]) -> f64,
    vjp: &dyn Fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, (Vec<f64>, Vec<f64>)),
) {
    let mut lcg = Lcg::new(seed_of(name));
    for _ in 0..6 {
        let flat = lcg.vec(nx + nout, -1.5, 1.5);
        let d_ret = lcg.uniform(-1.0, 1.0);
        let d_out = lcg.vec(nout, -1.0, 1.0);
        let scalar = |v: &[f64]| {
            let mut out = v[nx..].to_vec();
            let r = f(&v[..nx], &mut out);
            d_ret * r + dot(&d_out, &out)
        };
        let fd = fd_gradient(&scalar, &flat);
        let mut out = flat[nx..].to_vec();
        let (value, (gx, gout)) = vjp(&flat[..nx], &mut out, d_ret, &d_out);
        let mut primal_out = flat[nx..].to_vec();
        let primal = f(&flat[..nx], &mut primal_out);
        assert_near(value, primal, 1e-12, 1.0, &format!("{name}: value"));
        assert_vec_near(&out, &primal_out, 1e-12, &format!("{name}: out"));
        let got: Vec<f64> = gx.iter().chain(&gout).copied().collect();
        assert_vec_near(&got, &fd, 1e-6, &format!("{name}: gradient at {flat:?}"));
    }
}

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
