//! Evaluation order of assignments: Rust evaluates an assignment's value before its place, and for a
//! compound assignment of primitives (`a op= b` of floats and integers) the right operand before it reads
//! the place (the Reference, "Compound assignment expressions"). A right side that assigns the left's
//! variable (`s += { s = 2.0 * b; s * a }`) must leave the value rustc computes: the lowering read the
//! place first and gave another value and gradient.
//!
//! The same for `order = K`'s generic copy (`f_hessian`), which wrote `a op= b` as `a = a op (b)`, and for
//! a `while` condition that assigns (`while { k += 1; k < 3 } { .. }`), whose writes the lowering lost (the
//! gradient never returned).
//!
//! Every function is checked against a plain copy of its body without the attribute (`*_plain`), against
//! itself as the macro leaves it, its gradient against central differences of the plain copy, and its
//! Hessian against central differences of the gradient, at many points.

// The assignments whose values are overwritten are what these functions test.
#![allow(
    unused_assignments,
    clippy::assign_op_pattern,
    clippy::no_effect,
    clippy::blocks_in_conditions,
    clippy::needless_range_loop,
    clippy::useless_vec
)]

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, hessian_column, Inputs, ANALYTIC_TOL};

const POINTS: usize = 40;

/// Points `(a, b)` with `a` in `[0.5, 1.5)` (a positive base for `powf`) and `b` in `[-1, 1)`.
fn points(seed: u64) -> Vec<(f64, f64)> {
    let mut inputs = Inputs(seed);
    (0..POINTS)
        .map(|_| (1.0 + 0.5 * inputs.next(), inputs.next()))
        .collect()
}

/// What `f_hessian` of a function of two floats returns.
type Hessian2 = (f64, (f64, f64), Vec<Vec<f64>>);

/// Checks `grad` (the `_grad` of `f`) against `f`, its plain copy and central differences of the copy,
/// and `hessian` (`order = 2`'s `_hessian`: the generic copy on dual numbers) against the same and
/// central differences of `grad`.
#[track_caller]
fn check2(
    f: fn(f64, f64) -> f64,
    plain: fn(f64, f64) -> f64,
    grad: fn(f64, f64) -> (f64, (f64, f64)),
    hessian: fn(f64, f64) -> Hessian2,
    seed: u64,
    what: &str,
) {
    for (a, b) in points(seed) {
        let expected = plain(a, b);
        assert_eq!(
            f(a, b),
            expected,
            "{what}: the function as the macro leaves it at ({a}, {b})"
        );
        let (value, (da, db)) = grad(a, b);
        assert_close(
            value,
            expected,
            ANALYTIC_TOL,
            &format!("{what}: value at ({a}, {b})"),
        );
        assert_fd_gradient(|x| plain(x[0], x[1]), &[a, b], &[da, db], what);
        let (value, (ha, hb), h) = hessian(a, b);
        assert_close(
            value,
            expected,
            ANALYTIC_TOL,
            &format!("{what}: f_hessian's value"),
        );
        assert_close(ha, da, ANALYTIC_TOL, &format!("{what}: f_hessian's d/da"));
        assert_close(hb, db, ANALYTIC_TOL, &format!("{what}: f_hessian's d/db"));
        let g = |x: &[f64]| {
            let (_, (da, db)) = grad(x[0], x[1]);
            vec![da, db]
        };
        for i in 0..2 {
            let column = hessian_column(g, &[a, b], i);
            for j in 0..2 {
                assert_close(
                    h[j][i],
                    column[j],
                    1e-5,
                    &format!("{what}: f_hessian[{j}][{i}]"),
                );
            }
        }
    }
}

// ---- A scalar's compound assignment whose right side assigns the scalar ----

/// `s += { s = 2b; s a }`: `s` is `2b` when it is read, `2b + 2ab`.
#[differentiable(order = 2)]
fn compound_reassigned(a: f64, b: f64) -> f64 {
    let mut s = a;
    s += {
        s = b * 2.0;
        s * a
    };
    s
}

fn compound_reassigned_plain(a: f64, b: f64) -> f64 {
    let mut s = a;
    s += {
        s = b * 2.0;
        s * a
    };
    s
}

/// `x *= { x += 1; x }`: `(a + 1)²` (`x` is `a + 1` when read), times `b`.
#[differentiable(order = 2)]
fn compound_self(a: f64, b: f64) -> f64 {
    let mut x = a;
    x *= {
        x += 1.0;
        x
    };
    x * b
}

fn compound_self_plain(a: f64, b: f64) -> f64 {
    let mut x = a;
    x *= {
        x += 1.0;
        x
    };
    x * b
}

/// Each operator, in a loop: `s op= { s = ..; .. }` reads the `s` the right side left.
#[differentiable(order = 2)]
fn compound_in_loop(a: f64, b: f64) -> f64 {
    let mut s = a;
    for k in 0..3 {
        let w = k as f64 + 1.0;
        s -= {
            s = s * b + w;
            a * w
        };
        s /= {
            s *= a;
            2.0 + b * b
        };
    }
    s
}

fn compound_in_loop_plain(a: f64, b: f64) -> f64 {
    let mut s = a;
    for k in 0..3 {
        let w = k as f64 + 1.0;
        s -= {
            s = s * b + w;
            a * w
        };
        s /= {
            s *= a;
            2.0 + b * b
        };
    }
    s
}

/// An integer's compound assignment whose right side assigns it, then used as an index.
#[differentiable(order = 2)]
fn integer_compound(a: f64, b: f64) -> f64 {
    let v = [a, b, a * b, a + b];
    let mut i = 0;
    i += {
        i = 2;
        1
    };
    v[i] * a
}

fn integer_compound_plain(a: f64, b: f64) -> f64 {
    let v = [a, b, a * b, a + b];
    let mut i = 0;
    i += {
        i = 2;
        1
    };
    v[i] * a
}

// ---- An element's compound assignment whose right side writes the element ----

/// `v[0] += { v[0] = ab; b }` of a `Vec`: `ab + b`.
#[differentiable(order = 2)]
fn element_reassigned(a: f64, b: f64) -> f64 {
    let mut v = vec![0.0; 2];
    v[0] = a * a;
    v[1] = b;
    v[0] += {
        v[0] = a * b;
        b
    };
    v[0] * v[1] + v[0]
}

fn element_reassigned_plain(a: f64, b: f64) -> f64 {
    let mut v = vec![0.0; 2];
    v[0] = a * a;
    v[1] = b;
    v[0] += {
        v[0] = a * b;
        b
    };
    v[0] * v[1] + v[0]
}

/// The same of a fixed-size array, with `-=` and `*=`.
#[differentiable(order = 2)]
fn array_element_reassigned(a: f64, b: f64) -> f64 {
    let mut v = [0.0; 2];
    v[0] = a * a;
    v[0] -= {
        v[0] = a * b;
        b
    };
    v[1] = a;
    v[1] *= {
        v[1] += b;
        v[1]
    };
    v[0] + v[1]
}

fn array_element_reassigned_plain(a: f64, b: f64) -> f64 {
    let mut v = [0.0; 2];
    v[0] = a * a;
    v[0] -= {
        v[0] = a * b;
        b
    };
    v[1] = a;
    v[1] *= {
        v[1] += b;
        v[1]
    };
    v[0] + v[1]
}

// ---- Other orders: operands, arguments, shadowing blocks ----

/// `x = x * { x += 1; x }`: the left operand is read before the right one changes `x`: `a (a + 1)`.
#[differentiable(order = 2)]
fn operand_then_block(a: f64, b: f64) -> f64 {
    let mut x = a;
    x = x * {
        x += b;
        x
    };
    x
}

fn operand_then_block_plain(a: f64, b: f64) -> f64 {
    let mut x = a;
    x = x * {
        x += b;
        x
    };
    x
}

/// `x + { x = 3x; x }`: the left operand is `a`.
#[differentiable(order = 2)]
fn left_operand_first(a: f64, b: f64) -> f64 {
    let mut x = a;
    x + {
        x = 3.0 * x * b;
        x
    }
}

fn left_operand_first_plain(a: f64, b: f64) -> f64 {
    let mut x = a;
    x + {
        x = 3.0 * x * b;
        x
    }
}

/// A method's receiver is read before its argument changes it: `a.powf(a + b)`.
#[differentiable(order = 2)]
fn receiver_first(a: f64, b: f64) -> f64 {
    let mut x = a;
    x.powf({
        x += b;
        x
    })
}

fn receiver_first_plain(a: f64, b: f64) -> f64 {
    let mut x = a;
    x.powf({
        x += b;
        x
    })
}

/// A function of two variables, called below.
#[differentiable(order = 2)]
fn weigh(p: f64, q: f64) -> f64 {
    p * p * q + q.sin()
}

/// Arguments are evaluated left to right: `weigh(a, 2a)` then `x` is `2a`.
#[differentiable(order = 2)]
fn arguments_in_order(a: f64, b: f64) -> f64 {
    let mut x = a;
    let y = weigh(x, {
        x = 2.0 * x + b;
        x
    });
    y + weigh(
        {
            x *= b;
            x
        },
        x,
    )
}

fn arguments_in_order_plain(a: f64, b: f64) -> f64 {
    let mut x = a;
    let y = weigh(x, {
        x = 2.0 * x + b;
        x
    });
    y + weigh(
        {
            x *= b;
            x
        },
        x,
    )
}

/// A `let` whose block shadows the name it is bound to, and reads the outer one.
#[allow(clippy::shadow_unrelated)]
#[differentiable(order = 2)]
fn shadowing_block(a: f64, b: f64) -> f64 {
    let x = a * b;
    let x = {
        let x = x + a;
        x * x
    } * x;
    x + a
}

#[allow(clippy::shadow_unrelated)]
fn shadowing_block_plain(a: f64, b: f64) -> f64 {
    let x = a * b;
    let x = {
        let x = x + a;
        x * x
    } * x;
    x + a
}

#[test]
fn a_compound_assignment_reads_its_scalar_after_its_right_side() {
    check2(
        compound_reassigned,
        compound_reassigned_plain,
        compound_reassigned_grad,
        compound_reassigned_hessian,
        1,
        "compound_reassigned",
    );
    check2(
        compound_self,
        compound_self_plain,
        compound_self_grad,
        compound_self_hessian,
        2,
        "compound_self",
    );
    check2(
        compound_in_loop,
        compound_in_loop_plain,
        compound_in_loop_grad,
        compound_in_loop_hessian,
        3,
        "compound_in_loop",
    );
    check2(
        integer_compound,
        integer_compound_plain,
        integer_compound_grad,
        integer_compound_hessian,
        4,
        "integer_compound",
    );
}

/// By hand: `compound_reassigned` is `2b + 2ab`, `compound_self` is `(a + 1)² b`.
#[test]
fn compound_assignments_by_hand() {
    for (a, b) in points(5) {
        let (value, (da, db)) = compound_reassigned_grad(a, b);
        assert_close(value, 2.0 * b + 2.0 * a * b, ANALYTIC_TOL, "value");
        assert_close(da, 2.0 * b, ANALYTIC_TOL, "d/da");
        assert_close(db, 2.0 + 2.0 * a, ANALYTIC_TOL, "d/db");
        let (value, (da, db)) = compound_self_grad(a, b);
        assert_close(value, (a + 1.0) * (a + 1.0) * b, ANALYTIC_TOL, "value");
        assert_close(da, 2.0 * (a + 1.0) * b, ANALYTIC_TOL, "d/da");
        assert_close(db, (a + 1.0) * (a + 1.0), ANALYTIC_TOL, "d/db");
    }
}

#[test]
fn a_compound_assignment_reads_its_element_after_its_right_side() {
    check2(
        element_reassigned,
        element_reassigned_plain,
        element_reassigned_grad,
        element_reassigned_hessian,
        6,
        "element_reassigned",
    );
    check2(
        array_element_reassigned,
        array_element_reassigned_plain,
        array_element_reassigned_grad,
        array_element_reassigned_hessian,
        7,
        "array_element_reassigned",
    );
}

#[test]
fn operands_and_arguments_left_to_right() {
    check2(
        operand_then_block,
        operand_then_block_plain,
        operand_then_block_grad,
        operand_then_block_hessian,
        8,
        "operand_then_block",
    );
    check2(
        left_operand_first,
        left_operand_first_plain,
        left_operand_first_grad,
        left_operand_first_hessian,
        9,
        "left_operand_first",
    );
    check2(
        receiver_first,
        receiver_first_plain,
        receiver_first_grad,
        receiver_first_hessian,
        10,
        "receiver_first",
    );
    check2(
        arguments_in_order,
        arguments_in_order_plain,
        arguments_in_order_grad,
        arguments_in_order_hessian,
        11,
        "arguments_in_order",
    );
    check2(
        shadowing_block,
        shadowing_block_plain,
        shadowing_block_grad,
        shadowing_block_hessian,
        12,
        "shadowing_block",
    );
}

// ---- Outputs, fields, matrices ----

/// An output element's compound assignment whose right side writes it: `out[0]` is `b (a + 1)`.
#[differentiable(order = 2)]
fn output_element(a: f64, b: f64, out: &mut [f64]) -> f64 {
    out[0] = a;
    out[0] *= {
        out[0] = b;
        a + 1.0
    };
    out[0] * a
}

fn output_element_plain(a: f64, b: f64, out: &mut [f64]) -> f64 {
    out[0] = a;
    out[0] *= {
        out[0] = b;
        a + 1.0
    };
    out[0] * a
}

/// A `&mut f64` output's compound assignment whose right side writes it: `a² + a b`.
#[differentiable(order = 2)]
fn output_float(a: f64, b: f64, r: &mut f64) -> f64 {
    *r = a;
    *r += {
        *r = a * a;
        a * b
    };
    *r * b
}

fn output_float_plain(a: f64, b: f64, r: &mut f64) -> f64 {
    *r = a;
    *r += {
        *r = a * a;
        a * b
    };
    *r * b
}

/// A matrix element's compound assignment whose right side writes it.
#[differentiable(order = 2)]
fn matrix_element(a: f64, b: f64) -> f64 {
    let mut m = vec![vec![0.0; 2]; 2];
    m[1][0] = a;
    m[1][0] += {
        m[1][0] = a * b;
        b
    };
    m[1][0] * m[1][0] + m[0][1]
}

fn matrix_element_plain(a: f64, b: f64) -> f64 {
    let mut m = vec![vec![0.0; 2]; 2];
    m[1][0] = a;
    m[1][0] += {
        m[1][0] = a * b;
        b
    };
    m[1][0] * m[1][0] + m[0][1]
}

#[test]
fn outputs_and_matrices_after_their_right_side() {
    for (a, b) in points(13) {
        let mut expected_out = [0.0];
        let expected = output_element_plain(a, b, &mut expected_out);
        let mut out = [f64::NAN];
        assert_eq!(output_element(a, b, &mut out), expected, "output_element");
        assert_eq!(out, expected_out, "output_element's output");
        let mut out = [f64::NAN];
        let (value, (da, db)) = output_element_grad(a, b, &mut out);
        assert_close(value, expected, ANALYTIC_TOL, "output_element: value");
        assert_close(
            out[0],
            expected_out[0],
            ANALYTIC_TOL,
            "output_element: output",
        );
        let f = |x: &[f64]| output_element_plain(x[0], x[1], &mut [0.0]);
        assert_fd_gradient(f, &[a, b], &[da, db], "output_element");

        let mut expected_r = 0.0;
        let expected = output_float_plain(a, b, &mut expected_r);
        let mut r = f64::NAN;
        assert_eq!(output_float(a, b, &mut r), expected, "output_float");
        assert_eq!(r, expected_r, "output_float's output");
        let mut r = f64::NAN;
        let (value, (da, db)) = output_float_grad(a, b, &mut r);
        assert_close(value, expected, ANALYTIC_TOL, "output_float: value");
        assert_close(r, expected_r, ANALYTIC_TOL, "output_float: output");
        let f = |x: &[f64]| output_float_plain(x[0], x[1], &mut 0.0);
        assert_fd_gradient(f, &[a, b], &[da, db], "output_float");
    }
    check2(
        matrix_element,
        matrix_element_plain,
        matrix_element_grad,
        matrix_element_hessian,
        14,
        "matrix_element",
    );
}

// ---- A right side that writes the place through a call ----

/// Multiplies `*s` by `a` (reading it first: `*s` is an input too).
#[differentiable(order = 2)]
fn bump(s: &mut f64, a: f64) -> f64 {
    *s *= a;
    a + 1.0
}

/// Multiplies `v[0]` by `a`.
#[differentiable(order = 2)]
fn bump_first(v: &mut [f64], a: f64) -> f64 {
    v[0] *= a;
    a + 1.0
}

/// `s += bump(&mut s, a)`: the call writes `s` before the addition reads it: `ab + a + 1`.
#[differentiable(order = 2)]
fn call_writes_scalar(a: f64, b: f64) -> f64 {
    let mut s = b;
    s += bump(&mut s, a);
    s
}

fn call_writes_scalar_plain(a: f64, b: f64) -> f64 {
    let mut s = b;
    s += bump(&mut s, a);
    s
}

/// `v[0] += bump_first(&mut v, a)`: `(ab + a + 1) a`.
#[differentiable(order = 2)]
fn call_writes_element(a: f64, b: f64) -> f64 {
    let mut v = vec![b, a];
    v[0] += bump_first(&mut v, a);
    v[0] * v[1]
}

fn call_writes_element_plain(a: f64, b: f64) -> f64 {
    let mut v = vec![b, a];
    v[0] += bump_first(&mut v, a);
    v[0] * v[1]
}

#[test]
fn a_call_on_the_right_side_writes_the_place_first() {
    check2(
        call_writes_scalar,
        call_writes_scalar_plain,
        call_writes_scalar_grad,
        call_writes_scalar_hessian,
        16,
        "call_writes_scalar",
    );
    check2(
        call_writes_element,
        call_writes_element_plain,
        call_writes_element_grad,
        call_writes_element_hessian,
        17,
        "call_writes_element",
    );
}

// ---- More orders: tuples, array literals, conditions, reads by index ----

/// A tuple's and an array literal's elements left to right, and a block before the operand it precedes.
#[differentiable(order = 2)]
fn elements_in_order(a: f64, b: f64) -> f64 {
    let mut x = a;
    let (p, q) = (x, {
        x = 2.0 * x + b;
        x
    });
    let w = [x, {
        x *= b;
        x
    }];
    let y = {
        x += 1.0;
        x
    } * x;
    p * q + w[0] * w[1] + y
}

fn elements_in_order_plain(a: f64, b: f64) -> f64 {
    let mut x = a;
    let (p, q) = (x, {
        x = 2.0 * x + b;
        x
    });
    let w = [x, {
        x *= b;
        x
    }];
    let y = {
        x += 1.0;
        x
    } * x;
    p * q + w[0] * w[1] + y
}

/// A condition that assigns, then the branch reads the name.
#[differentiable(order = 2)]
fn condition_assigns(a: f64, b: f64) -> f64 {
    let mut s = a;
    let mut t = 0.0;
    if {
        s = s * b + 1.0;
        s > 0.5
    } {
        t += s * a;
    } else {
        t -= s;
    }
    let mut k = 0;
    while {
        s += 0.25;
        k += 1;
        k < 3
    } {
        t += s * s;
    }
    t + s
}

fn condition_assigns_plain(a: f64, b: f64) -> f64 {
    let mut s = a;
    let mut t = 0.0;
    if {
        s = s * b + 1.0;
        s > 0.5
    } {
        t += s * a;
    } else {
        t -= s;
    }
    let mut k = 0;
    while {
        s += 0.25;
        k += 1;
        k < 3
    } {
        t += s * s;
    }
    t + s
}

/// Reads by index whose index changes in between, and an element read before a block writes it.
#[differentiable(order = 2)]
fn reads_in_order(a: f64, b: f64) -> f64 {
    let mut v = vec![a, b, a * b];
    let mut i = 0;
    let r = v[i] * {
        i += 1;
        v[i]
    };
    let s = v[2] + {
        v[2] = a + b;
        v[2] * v[i]
    };
    r + s * v[2]
}

fn reads_in_order_plain(a: f64, b: f64) -> f64 {
    let mut v = vec![a, b, a * b];
    let mut i = 0;
    let r = v[i] * {
        i += 1;
        v[i]
    };
    let s = v[2] + {
        v[2] = a + b;
        v[2] * v[i]
    };
    r + s * v[2]
}

#[test]
fn tuple_and_array_elements_in_order() {
    check2(
        elements_in_order,
        elements_in_order_plain,
        elements_in_order_grad,
        elements_in_order_hessian,
        18,
        "elements_in_order",
    );
}

#[test]
fn conditions_that_assign() {
    check2(
        condition_assigns,
        condition_assigns_plain,
        condition_assigns_grad,
        condition_assigns_hessian,
        19,
        "condition_assigns",
    );
}

#[test]
fn reads_by_index_in_order() {
    check2(
        reads_in_order,
        reads_in_order_plain,
        reads_in_order_grad,
        reads_in_order_hessian,
        20,
        "reads_in_order",
    );
}
