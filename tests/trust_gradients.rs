//! Programs that once got a silently wrong derivative, each checked against an oracle that shares no code
//! with the macro: a derivative worked out by hand, and central finite differences at many points.

// Indexed loops are the form users write and what these programs test.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_close, assert_fd_gradient, config, ANALYTIC_TOL};
use proptest::prelude::*;

#[differentiable]
fn sumsq(z: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..z.len() {
        s += z[j] * z[j];
    }
    s
}

/// The softmax cross-entropy shape: a row rewritten for each example and passed to a helper. The
/// callee's adjoint must see the row as it was at each call, not its final contents.
#[differentiable(wrt(th))]
fn rows_rewritten(th: &[f64], k: usize, m: usize) -> f64 {
    let mut z = vec![0.0; k];
    let mut loss = 0.0;
    for i in 0..m {
        for j in 0..k {
            z[j] = th[j] * (i as f64 + 1.0);
        }
        loss += sumsq(&z);
    }
    loss
}

#[test]
fn array_passed_to_a_call_then_rewritten_in_a_loop() {
    let th = [0.5, -1.0, 2.0];
    let (value, grad) = rows_rewritten_grad(&th, 3, 2);
    // Σ_i Σ_j (th_j (i + 1))² = 5 Σ th², gradient 10 th.
    assert_close(value, 5.0 * 5.25, ANALYTIC_TOL, "value");
    assert_all_close(&grad, &[5.0, -10.0, 20.0], ANALYTIC_TOL, "gradient");
}

#[differentiable]
fn first_squared(z: &[f64]) -> f64 {
    z[0] * z[0]
}

#[differentiable]
fn written_after_the_call(x: f64) -> f64 {
    let mut z = vec![0.0; 1];
    z[0] = x;
    let w = first_squared(&z);
    z[0] = 3.0 * x;
    w + z[0]
}

#[test]
fn array_passed_to_a_call_then_written_in_straight_line_code() {
    // x² + 3x: the call saw z = [x].
    assert_eq!(written_after_the_call(1.0), 4.0);
    assert_eq!(written_after_the_call_grad(1.0), (4.0, 5.0));
    assert_eq!(written_after_the_call_grad(-2.0), (-2.0, -1.0));
}

/// A fixed-size array, passed twice with a write in between, under a branch.
#[differentiable]
fn pairs(a: &[f64; 2]) -> f64 {
    a[0] * a[1].sin()
}

#[differentiable]
fn fixed_rewritten(x: f64, y: f64) -> f64 {
    let mut p = [x, y];
    let first = pairs(&p);
    let mut s = first;
    if x > 0.0 {
        p[1] = x * y;
        s += pairs(&p);
    }
    p[0] = y;
    s + pairs(&p)
}

fn fixed_rewritten_by_hand(x: f64, y: f64) -> (f64, f64) {
    // x sin y + [x > 0] x sin(xy) + y sin(p1), p1 = xy if x > 0 else y.
    let mut dx = y.sin();
    let mut dy = x * y.cos();
    if x > 0.0 {
        dx += (x * y).sin() + x * y * (x * y).cos();
        dy += x * x * (x * y).cos();
        dx += y * y * (x * y).cos();
        dy += (x * y).sin() + y * x * (x * y).cos();
    } else {
        dy += y.sin() + y * y.cos();
    }
    (dx, dy)
}

/// An array made inside a branch, passed to a call.
#[differentiable]
fn made_in_a_branch(a: f64, b: f64) -> f64 {
    let mut s = b;
    if a > 0.0 {
        let z = vec![a; 2];
        s += sumsq(&z);
    }
    s * b
}

/// An array made in a loop body and rewritten after the call in the same iteration.
#[differentiable]
fn made_in_a_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let mut z = vec![x[i]; 3];
        z[1] = x[i] * 2.0;
        s += sumsq(&z);
        z[0] = s;
        s += z[0] * 0.5;
    }
    s
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn rows_rewritten_matches_finite_differences(th in prop::collection::vec(-2.0f64..2.0, 1..6), m in 1usize..4) {
        let k = th.len();
        let (_, grad) = rows_rewritten_grad(&th, k, m);
        assert_fd_gradient(|t| rows_rewritten(t, k, m), &th, &grad, "rows_rewritten");
        let scale: f64 = (1..=m).map(|i| (i * i) as f64).sum();
        let expected: Vec<f64> = th.iter().map(|t| 2.0 * scale * t).collect();
        assert_all_close(&grad, &expected, ANALYTIC_TOL, "rows_rewritten by hand");
    }

    #[test]
    fn fixed_array_rewritten_between_calls(x in -2.0f64..2.0, y in -2.0f64..2.0) {
        let (value, (dx, dy)) = fixed_rewritten_grad(x, y);
        assert_eq!(value, fixed_rewritten(x, y));
        let (ex, ey) = fixed_rewritten_by_hand(x, y);
        assert_close(dx, ex, 1e-9, "d/dx");
        assert_close(dy, ey, 1e-9, "d/dy");
        let (_, tangent) = fixed_rewritten_jvp(x, y, (0.3, -0.7));
        assert_close(tangent, 0.3 * ex - 0.7 * ey, 1e-9, "jvp");
    }

    #[test]
    fn array_made_in_a_branch_and_passed(a in -2.0f64..2.0, b in -2.0f64..2.0) {
        let (value, (da, db)) = made_in_a_branch_grad(a, b);
        assert_eq!(value, made_in_a_branch(a, b));
        let (ea, eb) = if a > 0.0 { (4.0 * a * b, b + 2.0 * a * a + b) } else { (0.0, 2.0 * b) };
        assert_close(da, ea, 1e-10, "d/da");
        assert_close(db, eb, 1e-10, "d/db");
    }

    #[test]
    fn array_made_in_a_loop_and_passed(x in prop::collection::vec(-1.0f64..1.0, 1..5)) {
        let (_, grad) = made_in_a_loop_grad(&x);
        assert_fd_gradient(made_in_a_loop, &x, &grad, "made_in_a_loop");
    }
}

/// A float taken by reference is active, as one taken by value.
#[differentiable]
fn by_reference(x: &f64, y: f64) -> f64 {
    x * y + (*x).sin()
}

#[differentiable]
fn by_reference_generic<T: autodiff::Float>(x: &T, y: &T) -> T {
    *x * *y + x.exp()
}

#[test]
fn float_parameters_by_reference_are_active() {
    let (value, (dx, dy)) = by_reference_grad(&2.0, 3.0);
    assert_eq!(value, by_reference(&2.0, 3.0));
    assert_close(dx, 3.0 + 2.0f64.cos(), ANALYTIC_TOL, "d/dx");
    assert_close(dy, 2.0, ANALYTIC_TOL, "d/dy");
    let (_, tangent) = by_reference_jvp(&2.0, 3.0, (1.0, 0.5));
    assert_close(tangent, dx + 0.5 * dy, ANALYTIC_TOL, "jvp");
    let (value, (dx, dy)) = by_reference_generic_grad(&0.5f32, &-1.5f32);
    assert_eq!(value, by_reference_generic(&0.5f32, &-1.5f32));
    assert!((dx - (-1.5 + 0.5f32.exp())).abs() < 1e-6 && (dy - 0.5).abs() < 1e-6);
}

#[differentiable]
fn through_reference(a: f64, b: f64) -> f64 {
    let c = a * b;
    by_reference(&c, a) + by_reference(&a, 2.0)
}

#[differentiable(order = 2)]
fn cubic_by_reference(x: &f64) -> f64 {
    x * x * x
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn calls_pass_floats_by_reference(a in -2.0f64..2.0, b in -2.0f64..2.0) {
        let (value, (da, db)) = through_reference_grad(a, b);
        assert_eq!(value, through_reference(a, b));
        // (ab) a + sin(ab) + 2a + sin a
        let ea = 2.0 * a * b + b * (a * b).cos() + 2.0 + a.cos();
        let eb = a * a + a * (a * b).cos();
        assert_close(da, ea, 1e-10, "d/da");
        assert_close(db, eb, 1e-10, "d/db");
        let (_, tangent) = through_reference_jvp(a, b, (1.0, -1.0));
        assert_close(tangent, ea - eb, 1e-10, "jvp");
    }

    #[test]
    fn second_order_of_a_reference_parameter(x in -2.0f64..2.0) {
        let (_, g, hv) = cubic_by_reference_hvp(&x, 1.0);
        assert_close(g, 3.0 * x * x, 1e-12, "gradient");
        assert_close(hv, 6.0 * x, 1e-12, "hvp");
        let [f, d1, d2] = cubic_by_reference_derivatives(&x);
        assert_eq!(f, cubic_by_reference(&x));
        assert_close(d1, 3.0 * x * x, 1e-12, "f'");
        assert_close(d2, 6.0 * x, 1e-12, "f''");
    }
}

#[differentiable(order = 2)]
fn quartic_by_reference<T: autodiff::Float>(x: &T, y: T) -> T {
    let x2 = *x * *x;
    x2 * x2 * y
}

#[test]
fn second_order_of_a_generic_reference_parameter() {
    let (x, y) = (1.5, -0.5);
    let (value, (gx, gy), (hx, hy)) = quartic_by_reference_hvp(&x, y, (1.0, 0.0));
    assert_eq!(value, quartic_by_reference(&x, y));
    assert_close(gx, 4.0 * x * x * x * y, 1e-12, "d/dx");
    assert_close(gy, x.powi(4), 1e-12, "d/dy");
    assert_close(hx, 12.0 * x * x * y, 1e-12, "d2/dx2");
    assert_close(hy, 4.0 * x * x * x, 1e-12, "d2/dxdy");
}

#[differentiable]
fn sum_pair<T: autodiff::Float>(v: &[T; 2]) -> T {
    v[0] + v[1]
}

/// `&[x, y]` and `&{ p }` passed to a call: a temporary array, differentiated like a named one.
#[differentiable]
fn reference_to_a_literal(x: f64, y: f64) -> f64 {
    sum_pair(&[x, y]) * x
}

#[differentiable]
fn reference_to_a_block(x: f64, y: f64) -> f64 {
    let p = [x, y * y];
    x + sum_pair(&{ p })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn references_to_temporary_arrays(x in -2.0f64..2.0, y in -2.0f64..2.0) {
        let (value, (dx, dy)) = reference_to_a_literal_grad(x, y);
        assert_eq!(value, reference_to_a_literal(x, y));
        assert_close(dx, 2.0 * x + y, 1e-12, "d/dx");
        assert_close(dy, x, 1e-12, "d/dy");
        let (value, (dx, dy)) = reference_to_a_block_grad(x, y);
        assert_eq!(value, reference_to_a_block(x, y));
        assert_close(dx, 2.0, 1e-12, "d/dx");
        assert_close(dy, 2.0 * y, 1e-12, "d/dy");
    }
}

#[differentiable]
fn quotient(x: f64, y: f64) -> f64 {
    x / y
}

#[differentiable]
fn quotient_times_zero(x: f64, y: f64) -> f64 {
    (x / y) * 0.0 + x
}

#[test]
fn a_zero_tangent_contributes_nothing_where_a_partial_overflows() {
    // d(x/y)/dy = -x/y² overflows at y = 1e-160, but the tangent (1, 0) never moves y.
    let (_, tangent) = quotient_jvp(1.0, 1e-160, (1.0, 0.0));
    assert_close(tangent, 1e160, 1e-15, "jvp of x / y along x");
    // Reverse mode: a zero cotangent for x / y sends nothing to y.
    let (value, (dx, dy)) = quotient_times_zero_grad(1.0, 1e-160);
    assert_eq!(value, quotient_times_zero(1.0, 1e-160));
    assert_eq!((dx, dy), (1.0, 0.0));
    // Away from the overflow the rule is the usual one.
    let (value, (dx, dy)) = quotient_grad(3.0, -2.0);
    assert_eq!((value, dx, dy), (quotient(3.0, -2.0), -0.5, -0.75));
}

#[differentiable(order = 2)]
fn abs_of_negated_square(x: f64) -> f64 {
    (-x * x).abs()
}

#[differentiable]
fn abs_of(x: f64) -> f64 {
    x.abs()
}

#[test]
fn abs_takes_its_slope_from_the_sign_bit() {
    assert_eq!(abs_of_grad(0.0), (abs_of(0.0), 1.0), "JAX's value at +0.0");
    assert_eq!(abs_of_grad(-0.0).1, -1.0, "Enzyme's value at -0.0");
    assert_eq!(abs_of_jvp(-0.0, 1.0).1, -1.0);
    // |-x²| = x²: first derivative 0 and second derivative 2 at 0, as everywhere.
    let [f, d1, d2] = abs_of_negated_square_derivatives(0.0);
    assert_eq!((f, d1, d2), (0.0, 0.0, 2.0));
    let [_, d1, d2] = abs_of_negated_square_derivatives(0.75);
    assert_close(d1, 1.5, ANALYTIC_TOL, "f' at 0.75");
    assert_close(d2, 2.0, ANALYTIC_TOL, "f'' at 0.75");
    assert_eq!(abs_of_negated_square(0.5), 0.25);
}
