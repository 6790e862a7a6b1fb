//! Forms the differential fuzzer found wrong or not compiling in the campaign of seeds 25001 to 25060
//! (`autodiff-fuzz --sugar`, `--forms`, `--scratch --reference`). Each function is checked against the
//! same body without the macro (`plain_*`, the same text), its gradient against central differences and
//! its Hessian against central differences of the gradient, on many random inputs; where the function
//! is simple enough, against its derivatives by hand too.
//!
//! `let v = loop { .. }` whose body jumps to a label outside it (`continue 'rows` of an outer `for`,
//! `break 'b v` of a labeled block around it) and leaves by its own `break value`: it was the error "a
//! loop inside an expression cannot jump to `'b23`: make the loop a statement of its own"
//! (`autodiff-fuzz --sugar --seed 25008`, program p7; the UI case fence/label-jump-out-of-let-loop, from
//! `--seed 24025` p12, pinned it as an error). `sugar.rs` now makes the loop's value a variable and the
//! loop a statement, which the loop-label pass rewrites as any other.

// The loops that never loop and index by range are the forms under test.
#![allow(clippy::never_loop, clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_fd_gradient, check_slice_and_scalar, config};
use proptest::prelude::*;

/// `continue 'rows` out of `let t = loop { .. }`: the sum of `2 x[i]` over the `x[i] <= 0.5`.
#[differentiable(order = 2)]
fn skip_large(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'rows: for i in 0..x.len() {
        let mut k = 0;
        let t = loop {
            if x[i] > 0.5 {
                continue 'rows;
            }
            k += 1;
            if k >= 2 {
                break x[i] * 2.0;
            }
        };
        s += t;
    }
    s
}

twin! {
    /// The fuzzer's shape: `break 'b v` of a labeled block out of `let t = loop { .. }` inside a `for`.
    #[differentiable(order = 2)]
    fn block_jump / plain_block_jump(x: &[f64], c: f64) -> f64 {
        let mut s = 0.5;
        let v: f64 = 'b: {
            for i in 0..x.len() {
                let mut k = 0;
                let t = loop {
                    if x[k % x.len()] * c > 0.7 {
                        break 'b x[i] * c + s;
                    }
                    k += 1;
                    if k >= 2 {
                        break (c + x[i]).cos();
                    }
                };
                s = s * c + t;
            }
            s * s
        };
        v * c + s
    }
}

twin! {
    /// A labeled `let t = 'inner: loop { .. }` left by `break 'inner v` and `break v`, with `break 'outer`
    /// and `continue 'outer` to a `while` two loops out, and a tuple value.
    #[differentiable(order = 2)]
    fn two_levels / plain_two_levels(x: &[f64], c: f64) -> f64 {
        let mut s: f64 = 0.25;
        let mut j = 0;
        'outer: while j < x.len() {
            j += 1;
            for i in 0..x.len() {
                let mut k = 0;
                let (t, u) = 'inner: loop {
                    k += 1;
                    if x[i] * c > 1.2 {
                        break 'outer;
                    }
                    if x[(i + k) % x.len()] < -0.9 {
                        continue 'outer;
                    }
                    if k >= 3 {
                        break 'inner (x[i] * c, s.sin());
                    }
                    if x[i] + c > 1.0 {
                        break (c * c, x[i]);
                    }
                };
                s = s * (0.5 * c) + t * u;
            }
        }
        s
    }
}

twin! {
    /// Two `let` loops, one inside the other, both left by `continue 'rows` (the inner one from a `match`
    /// arm), each by its own `break value`.
    #[differentiable(order = 2)]
    fn nested_let_loops / plain_nested_let_loops(x: &[f64], c: f64) -> f64 {
        let mut s = 0.5;
        'rows: for i in 0..x.len() {
            let mut k = 0;
            let a = loop {
                k += 1;
                let b = loop {
                    match k {
                        1 if x[i] < -0.9 => continue 'rows,
                        2 => break x[i] * c,
                        _ => break c.sin(),
                    }
                };
                if k >= 2 {
                    break b * s;
                }
            };
            s = s * 0.5 + a;
        }
        s
    }
}

/// Does any branch of the functions above sit within `eps` of an input (where differences straddle it)?
fn near_branch(x: &[f64], c: f64) -> bool {
    let eps = 1e-3;
    let n = x.len();
    (0..n).any(|i| {
        (x[i] * c - 0.7).abs() < eps
            || (x[i] * c - 1.2).abs() < eps
            || (x[i] + 0.9).abs() < eps
            || (x[i] + c - 1.0).abs() < eps
            || (x[i] - 0.5).abs() < eps
    })
}

proptest! {
    #![proptest_config(config())]

    /// `continue 'rows` out of a `let` loop: the value and gradient by hand (2 for each `x[i] <= 0.5`,
    /// 0 for the others), a zero Hessian, and the gradient against differences.
    #[test]
    fn continue_out_of_a_let_loop(x in prop::collection::vec(-1.5..1.5f64, 1..8)) {
        prop_assume!(!near_branch(&x, 1.0));
        let (value, g) = skip_large_grad(&x);
        let by_hand: f64 = x.iter().filter(|&&v| v <= 0.5).map(|v| 2.0 * v).sum();
        prop_assert!((value - by_hand).abs() < 1e-12, "{value} vs {by_hand}");
        let expected: Vec<f64> = x.iter().map(|&v| if v <= 0.5 { 2.0 } else { 0.0 }).collect();
        assert_all_close(&g, &expected, 1e-12, "skip_large_grad");
        assert_fd_gradient(skip_large, &x, &g, "skip_large");
        let (_, _, h) = skip_large_hessian(&x);
        for row in &h {
            assert_all_close(row, &vec![0.0; x.len()], 1e-12, "skip_large_hessian");
        }
    }

    #[test]
    fn break_to_a_labeled_block_out_of_a_let_loop(
        x in prop::collection::vec(-1.5..1.5f64, 1..7),
        c in -1.5..1.5f64,
    ) {
        prop_assume!(!near_branch(&x, c));
        check_slice_and_scalar(
"block_jump", block_jump, plain_block_jump, block_jump_grad, block_jump_hessian, &x, c);
    }

    #[test]
    fn jumps_two_loops_out_of_a_labeled_let_loop(
        x in prop::collection::vec(-1.5..1.5f64, 1..6),
        c in -1.5..1.5f64,
    ) {
        prop_assume!(!near_branch(&x, c));
        check_slice_and_scalar(
"two_levels", two_levels, plain_two_levels, two_levels_grad, two_levels_hessian, &x, c);
    }

    #[test]
    fn let_loops_nested_and_left_from_a_match(
        x in prop::collection::vec(-1.5..1.5f64, 1..6),
        c in -1.5..1.5f64,
    ) {
        prop_assume!(!near_branch(&x, c));
        check_slice_and_scalar(
"nested_let_loops", nested_let_loops, plain_nested_let_loops, nested_let_loops_grad, nested_let_loops_hessian, &x, c);
    }
}

/// `block_jump` by hand where no element takes the jump (`x[i] c <= 0.7` for all): each `t` is
/// `cos(c + x[i])`, `s` the Horner fold of them from 0.5, the result `s² c + s`.
#[test]
fn block_jump_by_hand() {
    let points: [(&[f64], f64); 4] = [
        (&[0.3, -0.2, 0.1], 0.9),
        (&[-1.0, 0.4], -0.5),
        (&[0.2], 1.1),
        (&[0.5, 0.5, -0.4, 0.1], 0.3),
    ];
    for (x, c) in points {
        assert!(x.iter().all(|v| v * c <= 0.7));
        // s and its derivatives along x[j] and c, by the Horner recurrence.
        let n = x.len();
        let (mut s, mut ds, mut dsc) = (0.5, vec![0.0; n], 0.0);
        for i in 0..n {
            let t = (c + x[i]).cos();
            let dt = -(c + x[i]).sin();
            for d in ds.iter_mut() {
                *d *= c;
            }
            ds[i] += dt;
            dsc = dsc * c + s + dt;
            s = s * c + t;
        }
        let value = s * s * c + s;
        let scale = 2.0 * s * c + 1.0;
        let gx: Vec<f64> = ds.iter().map(|d| scale * d).collect();
        let gc = scale * dsc + s * s;
        let (v, (g, g_c)) = block_jump_grad(x, c);
        assert!((v - value).abs() < 1e-12, "{v} vs {value}");
        assert_all_close(&g, &gx, 1e-10, "block_jump_grad x");
        assert_all_close(&[g_c], &[gc], 1e-10, "block_jump_grad c");
    }
}
