//! Session 38's fuzzing finds, each shrunk by hand.
//!
//! An array literal chosen by an `if` or `match` whose element is itself an `if` or `match` giving a call
//! (`if n > 2 { [if n > 1 { a } else { g(a) }, 0.5] } else { [0.5, a] }`, seed 37501 p143 of
//! `--forms --sugar`) did not compile: the lowering took the inner branch's call for the array the outer
//! one gives (`branch_array` reached into the literal's elements), so the inner `if` gave an array in one
//! branch and a float in the other ("this `if` or `match` gives an array in one branch .."; inside a loop
//! "an array cannot be carried out of a loop .."). The generic copy of every `f64` function writes its
//! literals as calls (`lit::<__S>(2.5)`), so a literal there failed too, at first order. Only a branching
//! or a block in tail position gives a branch's value on now (`lower.rs`, `lower_branch_tail`). The same
//! for a call in the condition of such an `if` (seed 38003 p79) or the scrutinee of such a `match`
//! (`without_branch_array`).
//!
//! Checked against the analytic derivatives and central differences (`common`, no code shared with the
//! macro), and at `order = 2` against differences of the gradient.

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

#[differentiable(order = 2)]
fn square(a: f64) -> f64 {
    a * a
}

/// For `n > 2`: `[g, 0.5]` with `g = a^2` (`n > 1`); else `[0.5, a]`; the result `e0 e1 + e0`.
#[differentiable]
fn chosen_with_a_chosen_call(a: f64, n: usize) -> f64 {
    let arr = if n > 2 {
        [if n > 1 { square(a) } else { a }, 0.5]
    } else {
        [0.5, a]
    };
    arr[0] * arr[1] + arr[0]
}

/// The same element a literal in its other branch (`lit::<__S>(2.5)` in the generic copy), under `match`
/// in a loop, and at `order = 2`: `sum over i < n of e0 e1 + e0`, with `[a^2 or 2.5, 0.5]` at `i % 3 == 0`
/// (`a^2` where `n > 1`), else `[0.5, a]`.
#[differentiable(order = 2)]
fn chosen_in_a_loop(a: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let arr = match i % 3 {
            0 => [if n > 1 { square(a) } else { 2.5 }, 0.5],
            _ => [0.5, a],
        };
        s += arr[0] * arr[1] + arr[0];
    }
    s
}

/// A call in the condition of an `if` choosing arrays, in an arm of a `match` there (seed 38003 p79 of
/// `--forms --sugar`, whose arm gave a literal, `lit::<__S>(0.8)` in the generic copy): `a (a + 0.5)`
/// where `a > m`, else `m (m + 0.5)`, with `m = a` where `n == 4`, else `a^2`.
#[differentiable(order = 2)]
fn chosen_by_a_call_in_the_condition(a: f64, n: usize) -> f64 {
    let arr = if a
        > (match n {
            4 => a,
            _ => square(a),
        }) {
        [a, 0.5]
    } else {
        [
            match n {
                4 => a,
                _ => square(a),
            },
            0.5,
        ]
    };
    arr[0] * (arr[0] + arr[1])
}

/// `chosen_in_a_loop` by hand: its value and first and second derivatives in `a`.
fn chosen_in_a_loop_by_hand(a: f64, n: usize) -> [f64; 3] {
    let zeros = (0..n).filter(|i| i % 3 == 0).count() as f64;
    let others = n as f64 - zeros;
    // `1.5 e0` at the zeros, `0.5 a + 0.5` elsewhere.
    let (e0, d0, dd0) = if n > 1 {
        (a * a, 2.0 * a, 2.0)
    } else {
        (2.5, 0.0, 0.0)
    };
    [
        zeros * 1.5 * e0 + others * (0.5 * a + 0.5),
        zeros * 1.5 * d0 + others * 0.5,
        zeros * 1.5 * dd0,
    ]
}

#[test]
fn arrays_chosen_with_a_chosen_element() {
    let mut inputs = Inputs(38_001);
    for _ in 0..12 {
        let a = 2.0 * inputs.next();
        for n in [1, 2, 3, 4] {
            let (v, g) = chosen_with_a_chosen_call_grad(a, n);
            let (value, slope) = if n > 2 {
                (1.5 * a * a, 3.0 * a)
            } else {
                (0.5 * a + 0.5, 0.5)
            };
            assert_close(v, chosen_with_a_chosen_call(a, n), 1e-12, "value");
            assert_close(v, value, 1e-12, "value by hand");
            assert_close(g, slope, 1e-12, "derivative by hand");
            assert_fd_gradient(
                |p| chosen_with_a_chosen_call(p[0], n),
                &[a],
                &[g],
                "chosen_with_a_chosen_call",
            );

            let [value, slope, curvature] = chosen_in_a_loop_by_hand(a, n);
            let (v, g) = chosen_in_a_loop_grad(a, n);
            assert_close(v, chosen_in_a_loop(a, n), 1e-12, "value in a loop");
            assert_close(v, value, 1e-12, "value in a loop by hand");
            assert_close(g, slope, 1e-12, "derivative in a loop by hand");
            assert_fd_gradient(
                |p| chosen_in_a_loop(p[0], n),
                &[a],
                &[g],
                "chosen_in_a_loop",
            );
            let (hv, hg, h) = chosen_in_a_loop_hessian(a, n);
            assert_close(hv, v, 1e-12, "value of the Hessian");
            assert_close(hg, g, 1e-12, "gradient of the Hessian");
            assert_close(h[0][0], curvature, 1e-12, "second derivative by hand");
            let grad = |p: &[f64]| vec![chosen_in_a_loop_grad(p[0], n).1];
            assert_hessian_fd(&h, grad, &[a], 1e-6, "chosen_in_a_loop");
            let (m, dm, ddm) = if n == 4 {
                (a, 1.0, 0.0)
            } else {
                (a * a, 2.0 * a, 2.0)
            };
            let (e, de, dde) = if a > m { (a, 1.0, 0.0) } else { (m, dm, ddm) };
            let (v, g) = chosen_by_a_call_in_the_condition_grad(a, n);
            assert_close(
                v,
                chosen_by_a_call_in_the_condition(a, n),
                1e-12,
                "value, condition",
            );
            assert_close(v, e * (e + 0.5), 1e-12, "value by hand, condition");
            assert_close(
                g,
                de * (2.0 * e + 0.5),
                1e-12,
                "derivative by hand, condition",
            );
            assert_fd_gradient(
                |p| chosen_by_a_call_in_the_condition(p[0], n),
                &[a],
                &[g],
                "chosen_by_a_call_in_the_condition",
            );
            let (_, _, h) = chosen_by_a_call_in_the_condition_hessian(a, n);
            let by_hand = dde * (2.0 * e + 0.5) + 2.0 * de * de;
            assert_close(
                h[0][0],
                by_hand,
                1e-12,
                "second derivative by hand, condition",
            );
            let grad = |p: &[f64]| vec![chosen_by_a_call_in_the_condition_grad(p[0], n).1];
            assert_hessian_fd(&h, grad, &[a], 1e-6, "chosen_by_a_call_in_the_condition");

            let [d0, d1, d2] = chosen_in_a_loop_derivatives(a, n);
            assert_close(d0, value, 1e-12, "f of the derivatives");
            assert_close(d1, slope, 1e-12, "f' of the derivatives");
            assert_close(d2, curvature, 1e-12, "f'' of the derivatives");
        }
    }
}
