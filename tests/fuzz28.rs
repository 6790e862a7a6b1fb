//! Forms the differential fuzzer's `--vecs` mode (`fuzz/src/gen/vecs.rs`: local `Vec`s used as stacks,
//! slice locals rebound to other windows) found wrong or not compiling in the campaign of seeds 28301 to
//! 28399. Each function is checked against the same body without the macro (`plain_*`, [`twin!`]), its
//! gradient against central differences and its Hessian against central differences of the gradient, on
//! many random inputs, and against its derivatives by hand, `_jvp` included.
//!
//! A `Vec` made empty (`Vec::new()`, `Vec::with_capacity(k)`) whose elements are read (popped) earlier in
//! the body's text than the first push: its tangent in `f_jvp` was a bare `Vec::new()`, typed only by
//! what was pushed into it, and the first read's tangent (`__dot_p * a`, pushed back) could not be typed
//! (`error[E0282]: type annotations needed` at the attribute; `autodiff-fuzz --vecs --seed 28302`,
//! programs p57, p116, p223, p232 and p309). The tangent is now made as a copy of the empty primal.
//!
//! A local `Vec` passed to a differentiable function and pushed after the call: `f_grad` panicked with
//! "the gradient buffer of `xs` has length 2 but `xs` has length 1" (`autodiff-fuzz --vecs --seed 28303`,
//! p84), the callee's `vjp_into` given the `Vec`'s whole adjoint buffer, of its final length, beside the
//! `Vec` as the call found it. It is now given the part the `Vec` had at the call; and so is a callee's
//! `vjp` writing the `Vec` as an output parameter (`scale(&mut s, c); s.push(..)`: "the cotangent of
//! `out` has length 2 but `out` has length 1").

// The fuzzer's forms are under test: `acc = acc + ..` and loops that index by range.
#![allow(clippy::assign_op_pattern, clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff::differentiable;
use common::{assert_all_close, check_slice_and_scalar, config, Inputs, ANALYTIC_TOL as TOL};
use proptest::prelude::*;

twin! {
    /// `c + Σ_{i≥1} (1.5 - c x_{i-1}) x_i + sin x_{i-1}`: the stack drained by `while let` at the top of
    /// each iteration, before the pushes of the iteration (one of them constant in `c`), its elements read
    /// as `1.5 - p`.
    #[differentiable(order = 2)]
    fn drained_first / plain_drained_first(x: &[f64], c: f64) -> f64 {
        let mut s: Vec<f64> = Vec::with_capacity(4);
        let mut acc = c;
        for &v in x {
            while let Some(p) = s.pop() {
                acc += (1.5 - p) * v;
            }
            s.push(v * c);
            s.push(v.sin());
        }
        acc
    }
}

twin! {
    /// `c 2^{1-n} + Σ_{i≥1} 2^{i+1-n} (c x_{i-1} / (1 + x_i²) + 2 - c x_{i-1})`: `if let Some(p) =
    /// s.pop()` of a `Vec` not yet pushed (the fuzzer's p116), pushed after the pop.
    #[differentiable(order = 2)]
    fn popped_before_pushed / plain_popped_before_pushed(x: &[f64], c: f64) -> f64 {
        let mut s: Vec<f64> = Vec::new();
        let mut acc = c;
        for &v in x {
            if let Some(p) = s.pop() {
                acc = acc * 0.5 + (p / (1.0 + v * v) + (2.0 - p));
            }
            s.push(v * c);
        }
        acc
    }
}

twin! {
    /// `c + (1 - sin x_0) + (1 - sin(c x_0)) + (1 - sin(c² x_0))`, over `Vec::new()` with its type left
    /// to inference: a stack drained by `while let` that pushes back `p c` for its first two pops.
    #[differentiable(order = 2)]
    fn drained_and_repushed / plain_drained_and_repushed(x: &[f64], c: f64) -> f64 {
        let mut s = Vec::new();
        s.push(x[0]);
        let mut acc = c;
        let mut k = 0;
        while let Some(p) = s.pop() {
            acc = acc + (1.0 - p.sin());
            if k < 2 {
                s.push(p * c);
            }
            k += 1;
        }
        acc
    }
}

/// `c Σ q²` of a slice.
#[differentiable(order = 2)]
fn scaled_squares(xs: &[f64], c: f64) -> f64 {
    let mut t = 0.0;
    for &q in xs {
        t += q * q;
    }
    t * c
}

twin! {
    /// `c² Σ_i x_i (1 + Σ_{j<i} x_j²)`: the stack passed to a call at every iteration, then pushed.
    #[differentiable(order = 2)]
    fn calls_between_pushes / plain_calls_between_pushes(x: &[f64], c: f64) -> f64 {
        let mut s = vec![c];
        let mut acc = 0.0;
        for &v in x {
            acc += scaled_squares(&s, v) * c;
            s.push(v * c);
        }
        acc / c
    }
}

twin! {
    /// `c Σ x_j² + Σ_{j<n-1} x_j + c x_{n-1} + c`: the stack passed to a call, then popped and pushed
    /// past its length at the call.
    #[differentiable(order = 2)]
    fn call_then_pop / plain_call_then_pop(x: &[f64], c: f64) -> f64 {
        let mut s = x.to_vec();
        let h = scaled_squares(&s, c);
        let p = s.pop().unwrap();
        s.push(p * c);
        s.push(c);
        let mut t = 0.0;
        for i in 0..s.len() {
            t += s[i];
        }
        h + t
    }
}

/// Every element of `out` times `c`, in place.
#[differentiable(order = 2)]
fn scale_in_place(out: &mut [f64], c: f64) {
    for i in 0..out.len() {
        out[i] = out[i] * c;
    }
}

twin! {
    /// `c² Σ x_j² + c⁴`: a copy of `x` scaled in place by a call, then pushed past its length at the call.
    #[differentiable(order = 2)]
    fn scaled_then_pushed / plain_scaled_then_pushed(x: &[f64], c: f64) -> f64 {
        let mut s = x.to_vec();
        scale_in_place(&mut s, c);
        s.push(c * c);
        let mut t = 0.0;
        for i in 0..s.len() {
            t += s[i] * s[i];
        }
        t
    }
}

/// The gradients by hand, over `(x, c)`.
fn by_hand(which: usize, x: &[f64], c: f64) -> (f64, Vec<f64>, f64) {
    let n = x.len();
    let mut gx = vec![0.0; n];
    match which {
        0 => {
            let mut v = c;
            let mut gc = 1.0;
            for i in 1..n {
                v += (1.5 - c * x[i - 1] + 1.5 - x[i - 1].sin()) * x[i];
                gc -= x[i - 1] * x[i];
                gx[i - 1] -= (c + x[i - 1].cos()) * x[i];
                gx[i] += 3.0 - c * x[i - 1] - x[i - 1].sin();
            }
            (v, gx, gc)
        }
        1 => {
            // Term i: w_i (c x_{i-1} / (1 + x_i²) + 2 - c x_{i-1}).
            let w = |i: usize| 0.5f64.powi((n - 1 - i) as i32);
            let mut v = c * 0.5f64.powi(n as i32 - 1);
            let mut gc = 0.5f64.powi(n as i32 - 1);
            for i in 1..n {
                let (p, q) = (x[i - 1], x[i]);
                let d = 1.0 + q * q;
                v += w(i) * (c * p / d + 2.0 - c * p);
                gc += w(i) * (p / d - p);
                gx[i - 1] += w(i) * (c / d - c);
                gx[i] -= w(i) * c * p * 2.0 * q / (d * d);
            }
            (v, gx, gc)
        }
        3 => {
            let mut v = 0.0;
            let mut gc = 0.0;
            let mut sum_sq = 0.0;
            for i in 0..n {
                v += c * c * x[i] * (1.0 + sum_sq);
                gc += 2.0 * c * x[i] * (1.0 + sum_sq);
                gx[i] += c * c * (1.0 + sum_sq);
                for j in 0..i {
                    gx[j] += c * c * x[i] * 2.0 * x[j];
                }
                sum_sq += x[i] * x[i];
            }
            (v, gx, gc)
        }
        4 => {
            let sum_sq: f64 = x.iter().map(|q| q * q).sum();
            let v = c * sum_sq + x[..n - 1].iter().sum::<f64>() + c * x[n - 1] + c;
            for j in 0..n {
                gx[j] = 2.0 * c * x[j] + if j + 1 < n { 1.0 } else { c };
            }
            (v, gx, sum_sq + x[n - 1] + 1.0)
        }
        5 => {
            let sum_sq: f64 = x.iter().map(|q| q * q).sum();
            for j in 0..n {
                gx[j] = 2.0 * c * c * x[j];
            }
            (
                c * c * sum_sq + c.powi(4),
                gx,
                2.0 * c * sum_sq + 4.0 * c.powi(3),
            )
        }
        _ => {
            let x0 = x[0];
            let v = c + 3.0 - x0.sin() - (c * x0).sin() - (c * c * x0).sin();
            gx[0] = -(x0.cos() + c * (c * x0).cos() + c * c * (c * c * x0).cos());
            let gc = 1.0 - x0 * (c * x0).cos() - 2.0 * c * x0 * (c * c * x0).cos();
            (v, gx, gc)
        }
    }
}

type Grad = fn(&[f64], f64) -> (f64, (Vec<f64>, f64));
type Jvp = fn(&[f64], f64, (Vec<f64>, f64)) -> (f64, f64);

#[test]
fn stacks_read_before_their_first_push_by_hand() {
    let items: [(&str, Grad, Jvp); 6] = [
        ("drained_first", drained_first_grad, drained_first_jvp),
        (
            "popped_before_pushed",
            popped_before_pushed_grad,
            popped_before_pushed_jvp,
        ),
        (
            "drained_and_repushed",
            drained_and_repushed_grad,
            drained_and_repushed_jvp,
        ),
        (
            "calls_between_pushes",
            calls_between_pushes_grad,
            calls_between_pushes_jvp,
        ),
        ("call_then_pop", call_then_pop_grad, call_then_pop_jvp),
        (
            "scaled_then_pushed",
            scaled_then_pushed_grad,
            scaled_then_pushed_jvp,
        ),
    ];
    let mut inputs = Inputs(28_301);
    for n in 1..6 {
        for _ in 0..8 {
            let x = inputs.vec(n);
            // Away from 0: `calls_between_pushes` divides by it.
            let c = 0.5 + inputs.next().abs();
            let t = inputs.vec(n);
            let tc = inputs.next();
            for (k, (what, grad, jvp)) in items.iter().enumerate() {
                let (v, gx, gc) = by_hand(k, &x, c);
                let (value, (ax, ac)) = grad(&x, c);
                assert_all_close(&[value], &[v], TOL, what);
                assert_all_close(&ax, &gx, TOL, what);
                assert_all_close(&[ac], &[gc], TOL, what);
                let dot: f64 = gx.iter().zip(&t).map(|(g, t)| g * t).sum::<f64>() + gc * tc;
                let (value, tangent) = jvp(&x, c, (t.clone(), tc));
                assert_all_close(&[value, tangent], &[v, dot], TOL, what);
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn stacks_read_before_their_first_push(
        x in prop::collection::vec(-1.5..1.5f64, 1..6),
        c in -1.5..1.5f64,
    ) {
        check_slice_and_scalar("drained_first", drained_first, plain_drained_first,
            drained_first_grad, drained_first_hessian, &x, c);
        check_slice_and_scalar("popped_before_pushed", popped_before_pushed, plain_popped_before_pushed,
            popped_before_pushed_grad, popped_before_pushed_hessian, &x, c);
        check_slice_and_scalar("drained_and_repushed", drained_and_repushed, plain_drained_and_repushed,
            drained_and_repushed_grad, drained_and_repushed_hessian, &x, c);
        check_slice_and_scalar("call_then_pop", call_then_pop, plain_call_then_pop,
            call_then_pop_grad, call_then_pop_hessian, &x, c);
        check_slice_and_scalar("scaled_then_pushed", scaled_then_pushed, plain_scaled_then_pushed,
            scaled_then_pushed_grad, scaled_then_pushed_hessian, &x, c);
    }

    #[test]
    fn a_stack_passed_to_calls_between_pushes(
        x in prop::collection::vec(-1.5..1.5f64, 1..6),
        c in 0.5..1.5f64,
    ) {
        check_slice_and_scalar("calls_between_pushes", calls_between_pushes, plain_calls_between_pushes,
            calls_between_pushes_grad, calls_between_pushes_hessian, &x, c);
    }
}
