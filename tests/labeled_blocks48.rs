//! Labeled blocks whose value is their tail (`let t = 'b: { a * 2.0 };`), with or without a `break 'b v`
//! beside it, as a `let`'s value, an operand, the function's value and a statement. Values against the
//! plain functions, gradients against central differences and analytic derivatives, Hessians against
//! differences of `_grad`.

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, assert_hessian_fd, central_difference, Inputs};

/// The value is the tail alone: no `break` at all (autodiff-fuzz `--forms --sugar --seed 47002`).
// (`unused_labels`: rustc's lint on a label no `break` names, which is the form tested.)
#[allow(unused_labels)]
#[differentiable(order = 2)]
fn doubled(a: f64) -> f64 {
    let t = 'b: { a * 2.0 };
    t * a
}

#[test]
fn a_block_without_a_break_gives_its_tail() {
    let mut inputs = Inputs(48_001);
    for _ in 0..10 {
        let a = inputs.next();
        let (value, d) = doubled_grad(a);
        assert_eq!(value, doubled(a));
        assert_close(value, 2.0 * a * a, 1e-15, "doubled");
        assert_close(d, 4.0 * a, 1e-12, "doubled_grad");
        let (_, _, h) = doubled_hessian(a);
        assert_close(h[0][0], 4.0, 1e-12, "doubled_hessian");
    }
}

fn sweep_plain(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x {
        if *v > 1.5 {
            return s * x[0];
        }
        s += v * v;
    }
    s.sin() + x[0]
}

/// The function's value is a labeled block, left by a `break` out of a loop or through its tail.
#[differentiable(order = 2)]
fn sweep(x: &[f64]) -> f64 {
    'done: {
        let mut s = 0.0;
        for v in x {
            if *v > 1.5 {
                break 'done s * x[0];
            }
            s += v * v;
        }
        s.sin() + x[0]
    }
}

#[test]
fn the_function_value_as_a_labeled_block() {
    let mut inputs = Inputs(48_002);
    for round in 0..12 {
        let mut x = inputs.vec(5);
        if round % 2 == 0 {
            x[3] = 2.0;
        }
        let (value, grad) = sweep_grad(&x);
        assert_eq!(value, sweep_plain(&x), "value at {x:?}");
        assert_fd_gradient(sweep_plain, &x, &grad, "sweep_grad");
        let (_, _, h) = sweep_hessian(&x);
        assert_hessian_fd(&h, |y| sweep_grad(y).1, &x, 1e-6, "sweep_hessian");
    }
}

fn operand_plain(a: f64, b: f64) -> f64 {
    let u = a.sin();
    let t = if u > 0.0 { u * b } else { a - b };
    a * t + (b * b).exp()
}

/// An operand (`a * 'b: {..}`) whose tail is an `if` with an `else`, and a `let` of a call's value.
#[allow(unused_labels)]
#[differentiable(order = 2)]
fn operand(a: f64, b: f64) -> f64 {
    a * 'b: {
        let u = a.sin();
        if u > 0.0 {
            u * b
        } else {
            a - b
        }
    } + 'c: { (b * b).exp() }
}

#[test]
fn labeled_blocks_as_operands() {
    let mut inputs = Inputs(48_003);
    for _ in 0..12 {
        let (a, b) = (3.0 * inputs.next(), inputs.next());
        let (value, (da, db)) = operand_grad(a, b);
        assert_eq!(value, operand(a, b));
        assert_close(value, operand_plain(a, b), 1e-14, "operand");
        assert_close(
            da,
            central_difference(|a| operand_plain(a, b), a),
            1e-6,
            "d/da",
        );
        assert_close(
            db,
            central_difference(|b| operand_plain(a, b), b),
            1e-6,
            "d/db",
        );
        let pair = |y: &[f64]| {
            let (_, (da, db)) = operand_grad(y[0], y[1]);
            vec![da, db]
        };
        let (_, _, h) = operand_hessian(a, b);
        assert_hessian_fd(&h, pair, &[a, b], 1e-6, "operand_hessian");
    }
}

fn guarded_plain(a: f64, xs: &[f64; 2]) -> f64 {
    let t = if a < 0.3 { 1.0 + xs[1] } else { a * a };
    a * t + xs[0]
}

/// A value out of a nested loop or the tail, differentiated with respect to `a` only, beside a
/// `&[f64; 2]` it reads (its generic copy's `jvp_out` once took that array's tangent as `[T; 2]` where
/// the calls pass the `Vec` of `companion::passed_on`: E0308, autodiff-fuzz seed 47002, p90).
#[differentiable(wrt(a))]
fn guarded(a: f64, xs: &[f64; 2]) -> f64 {
    let t: f64 = 'b: {
        for _ in 0..4 {
            if a < 0.3 {
                break 'b 1.0 + xs[1];
            }
        }
        a * a
    };
    a * t + xs[0]
}

#[test]
fn a_value_out_of_a_loop_or_the_tail() {
    let mut inputs = Inputs(48_004);
    for _ in 0..12 {
        let (a, xs) = (inputs.next(), [inputs.next(), inputs.next()]);
        let (value, d) = guarded_grad(a, &xs);
        assert_eq!(value, guarded_plain(a, &xs));
        let expected = if a < 0.3 { 1.0 + xs[1] } else { 3.0 * a * a };
        assert_close(d, expected, 1e-12, "guarded_grad");
        assert_close(
            d,
            central_difference(|a| guarded_plain(a, &xs), a),
            1e-6,
            "differences",
        );
    }
}

fn skipped_plain(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, v) in x.iter().enumerate() {
        if k % 2 != 1 {
            s += v * x[0];
        }
        if s <= 100.0 {
            s *= 1.1;
        }
    }
    s
}

/// Statements: a labeled block whose tail is a compound assignment, and one whose tail is a value
/// that nothing reads.
#[differentiable(order = 2)]
fn skipped(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, v) in x.iter().enumerate() {
        'odd: {
            if k % 2 == 1 {
                break 'odd;
            }
            s += v * x[0]
        }
        'scale: {
            if s > 100.0 {
                break 'scale;
            }
            s *= 1.1;
        }
    }
    s
}

#[test]
fn labeled_blocks_as_statements() {
    let mut inputs = Inputs(48_005);
    for _ in 0..10 {
        let x = inputs.vec(5);
        let (value, grad) = skipped_grad(&x);
        assert_close(value, skipped_plain(&x), 1e-14, "skipped");
        assert_fd_gradient(skipped_plain, &x, &grad, "skipped_grad");
        let (_, _, h) = skipped_hessian(&x);
        assert_hessian_fd(&h, |y| skipped_grad(y).1, &x, 1e-6, "skipped_hessian");
    }
}
