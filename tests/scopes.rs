//! A block's `let`s end with the block, also where the statements after it are lowered inside the branches
//! of something in it that can `return` (a loop with an early `return`, an `if` or `match` that returns):
//! the macro moves those statements into the "did not return" branch, whose own scope sits above the
//! block's. A `let t` in the block that shadows an outer `t` must not be what the statements after the
//! block read (found by the differential fuzzer, seed 9805: `f_grad`'s value was the inner `t`'s).
//!
//! Every function is checked against itself as written (its value, which rustc computes from the source,
//! shares nothing with the macro), central differences and its derivatives by hand, at many points.

// The shadowing and the early returns are what these functions test.
#![allow(unused_assignments, clippy::needless_return, clippy::shadow_unrelated)]

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, config, moderate, ANALYTIC_TOL};
use proptest::prelude::*;

/// A shadowing `let` in an `if` block holding a loop that can return: after the block, `t` is the
/// outer one again. `t` is `b` unless `a < 0` and the loop returns (it never does: `i > 1` in `0..2`).
#[differentiable(order = 2)]
fn shadowed_in_if(a: f64, b: f64) -> f64 {
    let t = b * b;
    if a < 0.0 {
        let mut t = a * a;
        for i in 0..2 {
            if i > 1 {
                return 2.7;
            }
            t += a;
        }
        if t > 100.0 {
            return t;
        }
    }
    t + a
}

/// The same in a `match` arm, where the loop does return for `k == 1` once `a` is large.
#[differentiable]
fn shadowed_in_arm(a: f64, b: f64, k: usize) -> f64 {
    let t = a * b;
    match k {
        0 => {
            let t = a.sin();
            for i in 0..3 {
                if t > 5.0 + i as f64 {
                    return t;
                }
            }
        }
        1 => {
            let mut t = b.exp();
            let mut i = 0;
            while i < 3 {
                t *= 0.5;
                if a > 2.0 {
                    return t * a;
                }
                i += 1;
            }
        }
        _ => {}
    }
    t * t
}

/// A bare block whose loop can return, then the outer `t`.
#[differentiable]
fn shadowed_in_block(a: f64, b: f64) -> f64 {
    let t = a + b;
    {
        let t = a * 3.0;
        let mut s = 0.0;
        for i in 0..4 {
            s += t * i as f64;
            if s > 1.0e6 {
                return s;
            }
        }
    }
    t * b
}

/// Inside a loop body: an `if` block shadows `t` and holds a loop that can return; the statement after it
/// in the same iteration reads the outer `t` (the loop's carried value).
#[differentiable]
fn shadowed_in_loop_body(a: f64, b: f64) -> f64 {
    let mut t = a;
    for j in 0..3 {
        if j % 2 == 0 {
            let t = b * j as f64;
            for i in 0..2 {
                if t + i as f64 > 1.0e6 {
                    return t;
                }
            }
        }
        t = t * b + 1.0;
    }
    t
}

/// Two levels: a block inside an `if` block, each shadowing `t`, the inner one holding the returning loop.
#[differentiable]
fn shadowed_twice(a: f64, b: f64) -> f64 {
    let t = a * b;
    if b > -10.0 {
        let t = t + 1.0;
        {
            let t = a.cos();
            for i in 0..2 {
                if t > 2.0 + i as f64 {
                    return 0.0;
                }
            }
        }
        return t * a;
    }
    t
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_outer_binding_after_an_if_block(a in moderate(), b in moderate()) {
        let (value, (da, db)) = shadowed_in_if_grad(a, b);
        assert_eq!(value, shadowed_in_if(a, b));
        assert_close(value, b * b + a, ANALYTIC_TOL, "value");
        assert_close(da, 1.0, ANALYTIC_TOL, "d/da");
        assert_close(db, 2.0 * b, ANALYTIC_TOL, "d/db");
        let (_, _, h) = shadowed_in_if_hessian(a, b);
        assert_close(h[1][1], 2.0, ANALYTIC_TOL, "d2/db2");
        assert_close(h[0][0] + h[0][1] + h[1][0], 0.0, ANALYTIC_TOL, "the other entries");
    }

    #[test]
    fn the_outer_binding_after_a_match_arm(a in moderate(), b in moderate(), k in 0..3_usize) {
        let (value, (da, db)) = shadowed_in_arm_grad(a, b, k);
        assert_eq!(value, shadowed_in_arm(a, b, k));
        if !(k == 1 && a > 2.0) {
            // Not returned: `(a b)²`.
            assert_close(da, 2.0 * a * b * b, ANALYTIC_TOL, "d/da");
            assert_close(db, 2.0 * a * a * b, ANALYTIC_TOL, "d/db");
        }
        if (a - 2.0).abs() > 1e-3 {
            assert_fd_gradient(|x| shadowed_in_arm(x[0], x[1], k), &[a, b], &[da, db], "shadowed_in_arm");
        }
    }

    #[test]
    fn the_outer_binding_after_a_block(a in moderate(), b in moderate()) {
        let (value, (da, db)) = shadowed_in_block_grad(a, b);
        assert_eq!(value, shadowed_in_block(a, b));
        assert_close(da, b, ANALYTIC_TOL, "d/da");
        assert_close(db, a + 2.0 * b, ANALYTIC_TOL, "d/db");
    }

    #[test]
    fn the_carried_binding_after_an_if_block_in_a_loop(a in moderate(), b in moderate()) {
        let (value, (da, db)) = shadowed_in_loop_body_grad(a, b);
        assert_eq!(value, shadowed_in_loop_body(a, b));
        // t = ((a b + 1) b + 1) b + 1 = a b³ + b² + b + 1
        assert_close(value, a * b * b * b + b * b + b + 1.0, ANALYTIC_TOL, "value");
        assert_close(da, b * b * b, ANALYTIC_TOL, "d/da");
        assert_close(db, 3.0 * a * b * b + 2.0 * b + 1.0, ANALYTIC_TOL, "d/db");
    }

    #[test]
    fn the_middle_binding_after_a_nested_block(a in moderate(), b in moderate()) {
        let (value, (da, db)) = shadowed_twice_grad(a, b);
        assert_eq!(value, shadowed_twice(a, b));
        // (a b + 1) a for b > -10 (always here).
        assert_close(da, 2.0 * a * b + 1.0, ANALYTIC_TOL, "d/da");
        assert_close(db, a * a, ANALYTIC_TOL, "d/db");
        assert_fd_gradient(|x| shadowed_twice(x[0], x[1]), &[a, b], &[da, db], "shadowed_twice");
    }
}
