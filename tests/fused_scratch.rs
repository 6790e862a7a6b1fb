//! Loops whose reverse runs inside their forward sweep (`Order::Fused`, `reverse/plan.rs`) while they
//! use local arrays: scratch arrays each iteration writes whole before reading (GMM's `centered` and
//! `main_term`), and arrays made before the loop that it only reads (GMM's `q_diag`). Their adjoint
//! buffers are declared before the loop and each iteration's reverse runs right after it, so the tapes
//! hold one iteration's values instead of every iteration's.
//!
//! The other functions are near misses that must not be fused, each of which a fused reverse would get
//! wrong: a scratch element carried from one iteration to the next, a scratch array written in part, or
//! only under a branch, or read by its own writer, a scratch array read after the loop, a read-only local
//! written after the loop. Every gradient is checked against central differences on random inputs, and
//! `f_grad_into` against `f_grad` into buffers filled with NaN.

// Index loops are the style under test, and a `Vec` of one element the scratch array a user might make.
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

mod common;

use autodiff::differentiable;
use common::*;
use proptest::prelude::*;

/// Fused: `c` is written whole at the top of each iteration, then read (twice per element).
#[differentiable]
fn scratch_whole(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] * w[j];
        }
        let mut t = 0.0;
        for j in 0..n {
            t += c[j].sin() * c[n - 1 - j];
        }
        s += t;
    }
    s
}

/// Fused: as `scratch_whole`, the writer running to `c.len()`, read in the body (a read of the length is
/// no read of the values).
#[differentiable]
fn scratch_to_its_length(x: &[f64], w: &[f64]) -> f64 {
    let mut c = vec![0.0; w.len()];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..c.len() {
            c[j] = x[p] * w[j];
        }
        let mut t = 0.0;
        for j in 0..c.len() {
            t += c[j].sin() * c[c.len() - 1 - j];
        }
        s += t;
    }
    s
}

/// Not fused: the writer to `c.len() - 1` leaves the last element, which holds a value from before the loop.
#[differentiable]
fn short_of_its_length(x: &[f64], w: &[f64]) -> f64 {
    let mut c = vec![0.0; w.len()];
    c[w.len() - 1] = x[0].sin();
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..c.len() - 1 {
            c[j] = x[p] * w[j];
        }
        let mut t = 0.0;
        for j in 0..c.len() {
            t += c[j] * c[j].cos();
        }
        s += t;
    }
    s
}

/// `ln Σ exp`, a helper the GMM shape calls on its scratch array.
#[differentiable]
fn lse(z: &[f64]) -> f64 {
    let mut max = z[0];
    for &v in z {
        max = max.max(v);
    }
    let mut sum = 0.0;
    for &v in z {
        sum += (v - max).exp();
    }
    max + sum.ln()
}

/// Fused, GMM's shape: a read-only local `q` made before the loop (and read again after it), scratch
/// arrays written whole in a nested loop, one passed to a call.
#[differentiable]
fn mixture(x: &[f64], w: &[f64], mu: &[f64]) -> f64 {
    let k = mu.len();
    let d = w.len();
    let mut q = vec![0.0; d];
    for j in 0..d {
        q[j] = w[j].exp();
    }
    let mut centered = vec![0.0; d];
    let mut terms = vec![0.0; k];
    let mut total = 0.0;
    for p in 0..x.len() {
        for c in 0..k {
            for j in 0..d {
                centered[j] = q[j] * (x[p] - mu[c]);
            }
            let mut norm = 0.0;
            for j in 0..d {
                norm += centered[j] * centered[j];
            }
            terms[c] = -0.5 * norm;
        }
        total -= lse(&terms);
    }
    let mut prior = 0.0;
    for j in 0..d {
        prior += q[j] * q[j];
    }
    total + 0.1 * prior
}

/// Not fused: `c[0]` is read before it is written, so each iteration reads the last one's value.
#[differentiable]
fn carried_in_memory(x: &[f64]) -> f64 {
    let mut c = vec![0.0; 1];
    c[0] = x[0];
    let mut s = 0.0;
    for p in 0..x.len() {
        s += c[0] * x[p];
        c[0] = x[p].sin();
    }
    s
}

/// Not fused: the writer leaves the last element, which holds a value from before the loop.
#[differentiable]
fn written_in_part(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    c[n - 1] = x[0] * x[0];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n - 1 {
            c[j] = x[p] * w[j];
        }
        let mut t = 0.0;
        for j in 0..n {
            t += c[j] * c[j].cos();
        }
        s += t;
    }
    s
}

/// Not fused: the writer reads the element it overwrites (a running mix of the iterations).
#[differentiable]
fn writer_reads_itself(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = 0.5 * c[j] + x[p] * w[j];
        }
        let mut t = 0.0;
        for j in 0..n {
            t += c[j].sin();
        }
        s += t;
    }
    s
}

/// Not fused: the scratch array is written only where `x[p] > 0`; elsewhere it keeps the last value.
#[differentiable]
fn written_under_a_branch(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        if x[p] > 0.0 {
            for j in 0..n {
                c[j] = x[p] * w[j];
            }
        }
        let mut t = 0.0;
        for j in 0..n {
            t += c[j] * w[j];
        }
        s += t;
    }
    s
}

/// Not fused: the last iteration's scratch values are read after the loop.
#[differentiable]
fn read_after_the_loop(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] * w[j];
        }
        let mut t = 0.0;
        for j in 0..n {
            t += c[j] * c[j];
        }
        s += t;
    }
    s + c[0].exp()
}

/// The first loop reads `q` and must not be fused: `q` is overwritten after it, and read again.
#[differentiable]
fn overwritten_after(x: &[f64]) -> f64 {
    let n = x.len();
    let mut q = vec![0.0; n];
    for j in 0..n {
        q[j] = x[j].exp();
    }
    let mut s = 0.0;
    for p in 0..n {
        s += q[p] * x[(p + 1) % n];
    }
    for j in 0..n {
        q[j] *= x[j];
    }
    let mut t = 0.0;
    for j in 0..n {
        t += q[j].cos();
    }
    s + t
}

/// Two loops share a scratch array: the second writes it whole again (and may be fused), the first's
/// values are read by nothing after it but the second's writer.
#[differentiable]
fn two_loops_one_scratch(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut c = vec![0.0; n];
    let mut s = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] + w[j];
        }
        let mut u = 0.0;
        for j in 0..n {
            u += c[j] * c[j] * x[p];
        }
        s += u;
    }
    let mut t = 0.0;
    for p in 0..x.len() {
        for j in 0..n {
            c[j] = x[p] * w[j];
        }
        let mut u = 0.0;
        for j in 0..n {
            u += c[j].tanh();
        }
        t += u;
    }
    s + t
}

/// Two fused loops read the same local `q`: its adjoint buffer is declared before the first (found
/// while writing these tests: declared before the second, the first's reverse could not name it).
#[differentiable]
fn shared_read_only(x: &[f64], w: &[f64]) -> f64 {
    let n = w.len();
    let mut q = vec![0.0; n];
    for j in 0..n {
        q[j] = w[j].sin();
    }
    let mut s = 0.0;
    for p in 0..x.len() {
        s += q[p % n] * x[p];
    }
    let mut t = 0.0;
    for p in 0..x.len() {
        t += (q[(p + 1) % n] * x[p]).exp();
    }
    s + t
}

type Grad2 = fn(&[f64], &[f64]) -> (f64, (Vec<f64>, Vec<f64>));
type Into2 = fn(&[f64], &[f64], (&mut [f64], &mut [f64])) -> f64;

/// Checks `grad` and `grad_into` of a function of two arrays against central differences at `(x, w)`.
fn check2(
    f: fn(&[f64], &[f64]) -> f64,
    grad: Grad2,
    into: Into2,
    x: &[f64],
    w: &[f64],
    what: &str,
) {
    let (value, (gx, gw)) = grad(x, w);
    assert_close(value, f(x, w), ANALYTIC_TOL, what);
    assert_fd_gradient(|x| f(x, w), x, &gx, &format!("{what}, d/dx"));
    assert_fd_gradient(|w| f(x, w), w, &gw, &format!("{what}, d/dw"));
    let (mut ix, mut iw) = (vec![f64::NAN; x.len()], vec![f64::NAN; w.len()]);
    let v = into(x, w, (&mut ix, &mut iw));
    assert_close(v, value, ANALYTIC_TOL, what);
    assert_all_close(&ix, &gx, ANALYTIC_TOL, &format!("{what}, grad_into x"));
    assert_all_close(&iw, &gw, ANALYTIC_TOL, &format!("{what}, grad_into w"));
}

fn floats(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<f64>> {
    proptest::collection::vec(-1.5..1.5f64, len)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fused_scratch_arrays(x in floats(1..6), w in floats(1..5)) {
        check2(scratch_whole, scratch_whole_grad, scratch_whole_grad_into, &x, &w, "scratch_whole");
        check2(two_loops_one_scratch, two_loops_one_scratch_grad, two_loops_one_scratch_grad_into, &x, &w,
            "two_loops_one_scratch");
        check2(shared_read_only, shared_read_only_grad, shared_read_only_grad_into, &x, &w, "shared_read_only");
        check2(scratch_to_its_length, scratch_to_its_length_grad, scratch_to_its_length_grad_into, &x, &w,
            "scratch_to_its_length");
        check2(short_of_its_length, short_of_its_length_grad, short_of_its_length_grad_into, &x, &w,
            "short_of_its_length");
    }

    #[test]
    fn the_mixture_shape(x in floats(1..6), w in floats(1..4), mu in floats(1..4)) {
        let (value, (gx, gw, gmu)) = mixture_grad(&x, &w, &mu);
        assert_close(value, mixture(&x, &w, &mu), ANALYTIC_TOL, "mixture");
        assert_fd_gradient(|x| mixture(x, &w, &mu), &x, &gx, "mixture, d/dx");
        assert_fd_gradient(|w| mixture(&x, w, &mu), &w, &gw, "mixture, d/dw");
        assert_fd_gradient(|mu| mixture(&x, &w, mu), &mu, &gmu, "mixture, d/dmu");
        let (mut ix, mut iw, mut imu) =
            (vec![f64::NAN; x.len()], vec![f64::NAN; w.len()], vec![f64::NAN; mu.len()]);
        mixture_grad_into(&x, &w, &mu, (&mut ix, &mut iw, &mut imu));
        assert_all_close(&ix, &gx, ANALYTIC_TOL, "mixture, grad_into x");
        assert_all_close(&iw, &gw, ANALYTIC_TOL, "mixture, grad_into w");
        assert_all_close(&imu, &gmu, ANALYTIC_TOL, "mixture, grad_into mu");
    }

    #[test]
    fn scratch_arrays_that_carry_values_between_iterations(x in floats(1..6), w in floats(2..5)) {
        let (_, gx) = carried_in_memory_grad(&x);
        assert_fd_gradient(carried_in_memory, &x, &gx, "carried_in_memory");
        check2(written_in_part, written_in_part_grad, written_in_part_grad_into, &x, &w, "written_in_part");
        check2(writer_reads_itself, writer_reads_itself_grad, writer_reads_itself_grad_into, &x, &w,
            "writer_reads_itself");
        check2(written_under_a_branch, written_under_a_branch_grad, written_under_a_branch_grad_into, &x, &w,
            "written_under_a_branch");
        check2(read_after_the_loop, read_after_the_loop_grad, read_after_the_loop_grad_into, &x, &w,
            "read_after_the_loop");
    }

    #[test]
    fn a_local_overwritten_after_the_loop_that_reads_it(x in floats(1..7)) {
        let (value, gx) = overwritten_after_grad(&x);
        assert_close(value, overwritten_after(&x), ANALYTIC_TOL, "overwritten_after");
        assert_fd_gradient(overwritten_after, &x, &gx, "overwritten_after");
    }
}

/// The branch of `written_under_a_branch` away from its kink: a point where some `x[p]` are negative,
/// so iterations read the scratch values an earlier iteration left, checked against a formula.
#[test]
fn a_scratch_array_left_by_an_earlier_iteration() {
    // x = [0.5, -0.3, 0.8], w = [1.0, 2.0]: iterations 0 and 2 write c = x[p] w; iteration 1 reads
    // iteration 0's c. s = Σ_p Σ_j c_j w_j = (0.5 + 0.5 + 0.8) |w|², so ds/dx0 = 2 |w|², ds/dx1 = 0,
    // ds/dx2 = |w|², ds/dw = 2 (0.5 + 0.5 + 0.8) w.
    let (x, w) = ([0.5, -0.3, 0.8], [1.0, 2.0]);
    let (value, (gx, gw)) = written_under_a_branch_grad(&x, &w);
    assert_close(value, 1.8 * 5.0, ANALYTIC_TOL, "value");
    assert_all_close(&gx, &[10.0, 0.0, 5.0], ANALYTIC_TOL, "d/dx");
    assert_all_close(&gw, &[3.6, 7.2], ANALYTIC_TOL, "d/dw");
}
