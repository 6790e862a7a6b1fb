//! The components of a call's tuple result, whose types the macro cannot see (`let (a, b) = g(x);`):
//! where a component meets a float in arithmetic, in a float function or as a value stored into a float
//! array, it is a float of that type (`activity.rs`, `component_use`), and the reverse sweep makes the
//! zero adjoint of the other components as `0.0` rather than by calling `g` again for the type
//! (`zero_like(&t.0)`). Components met by nothing of a known kind keep `zero_like`.
//!
//! Each function is checked at seeded random inputs against its gradient written by hand where it is
//! short, against central differences, and its `_jvp` (forward mode, a separate emitter) against its
//! `_grad`; the generic one also at `f32` and on `Dual<f64>` (second derivatives through the calls).

mod common;

use autodiff::{differentiable, Dual, Float};
use common::*;
use proptest::prelude::*;

#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

#[differentiable]
fn polar_generic<T: Float>(r: T, t: T) -> (T, T) {
    (r * t.cos(), r * t.sin())
}

/// `2 a + c` with `(a, b) = polar(r, t)`, `(c, _) = polar(a, b)`: the second call's second component is
/// never read, its first meets `2 a`.
#[differentiable]
fn one_component_read(r: f64, t: f64) -> f64 {
    let (a, b) = polar(r, t);
    let (c, _) = polar(a, b);
    2.0 * a + c
}

/// `a r + d t + c` with `(a, b) = polar(r, t)`, `(c, d) = polar(a, b)`, generic: the components are `T`,
/// told by `a * r` and `d * t`.
#[differentiable]
fn generic_components<T: Float>(r: T, t: T) -> T {
    let (a, b) = polar_generic(r, t);
    let (c, d) = polar_generic(a, b);
    a * r + d * t + c
}

/// `±b` by the sign of `a r`, with `(a, b) = polar(r, t)`, generic: `a` is told to be a `T` by `a * r`, but
/// no adjoint reaches it (the product is only compared), so the zero of its component is what the
/// callee's adjoint receives: it must be a `T` (`<T as Zero>::zero()`), not `0.0`.
#[differentiable]
fn component_told_but_constant<T: Float>(r: T, t: T) -> T {
    let (a, b) = polar_generic(r, t);
    let c = a * r;
    if c > T::zero() {
        b
    } else {
        -b
    }
}

/// The hand-written gradient of `generic_components` (and of `one_component_read` below, as `partials`
/// of its own).
fn generic_partials(r: f64, t: f64) -> [f64; 2] {
    let (a, b) = (r * t.cos(), r * t.sin());
    // f = a r + t a sin b + a cos b.
    let f_a = r + t * b.sin() + b.cos();
    let f_b = t * a * b.cos() - a * b.sin();
    [
        a + f_a * t.cos() + f_b * t.sin(),
        a * b.sin() - f_a * r * t.sin() + f_b * r * t.cos(),
    ]
}

/// A rotation field `(p0 u - p1 v, p1 u + p0 v)`, the right-hand side of `heun`.
#[differentiable]
fn rotation(p: &[f64], u: f64, v: f64) -> (f64, f64) {
    (p[0] * u - p[1] * v, p[1] * u + p[0] * v)
}

/// `u v` after `steps` Heun steps from (p[2], p[3]); the second stage's components are read only by
/// the update, where they meet the first stage's.
#[differentiable]
fn heun(p: &[f64], steps: usize) -> f64 {
    let h = 0.05;
    let mut u = p[2];
    let mut v = p[3];
    for _ in 0..steps {
        let (k1u, k1v) = rotation(p, u, v);
        let (k2u, k2v) = rotation(p, u + h * k1u, v + h * k1v);
        u += 0.5 * h * (k1u + k2u);
        v += 0.5 * h * (k1v + k2v);
    }
    u * v
}

/// Components told by a store into a float array and by a float function (`max`), beside one that is
/// read only by a comparison (not told: `zero_like`).
#[differentiable]
fn stored_and_compared(r: f64, t: f64) -> f64 {
    let mut z = [0.0; 2];
    let (a, b) = polar(r, t);
    z[0] = b;
    let (c, d) = polar(z[0], a);
    z[1] = d.max(-10.0);
    let (e, g) = polar(r, 0.5);
    let sign = if e > 0.0 { 1.0 } else { -1.0 };
    z[0] * z[1] + c * sign + g
}

/// `2 a b + b` through a call, at `order = 2`.
#[differentiable(order = 2)]
fn second_order(r: f64, t: f64) -> f64 {
    let (a, b) = polar(r, t);
    2.0 * a * b + b
}

fn one_component_partials(r: f64, t: f64) -> [f64; 2] {
    // f = 2 a + a cos b.
    let (a, b) = (r * t.cos(), r * t.sin());
    let (f_a, f_b) = (2.0 + b.cos(), -a * b.sin());
    [
        f_a * t.cos() + f_b * t.sin(),
        -f_a * r * t.sin() + f_b * r * t.cos(),
    ]
}

/// The gradient of a function of `x` by `grad`, checked against central differences and its `jvp`
/// along `tangent`.
fn check_by_differences(
    what: &str,
    primal: impl Fn(&[f64]) -> f64,
    x: &[f64],
    (value, grad): (f64, Vec<f64>),
    jvp_dot: f64,
    tangent: &[f64],
) {
    assert_eq!(value, primal(x), "{what}: the value of _grad");
    assert_fd_gradient(&primal, x, &grad, &format!("{what} at {x:?}"));
    assert_dot(
        jvp_dot,
        &grad,
        tangent,
        ANALYTIC_TOL,
        &format!("{what}: jvp vs gradient"),
    );
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_component_never_read_gets_a_zero_adjoint(r in moderate(), t in moderate(), dt in tangents()) {
        let x = [r, t];
        check_scalar(
            "one_component_read",
            |x| one_component_read(x[0], x[1]),
            &x,
            (
                one_component_read_grad(r, t),
                |d| one_component_read_vjp(r, t, d),
                |(a, b)| one_component_read_jvp(r, t, (a, b)),
            ),
            &one_component_partials(r, t),
            &dt,
        );
    }

    #[test]
    fn generic_components_are_of_the_type_parameter(r in moderate(), t in moderate(), dt in tangents()) {
        let x = [r, t];
        check_scalar(
            "generic_components",
            |x| generic_components(x[0], x[1]),
            &x,
            (
                generic_components_grad(r, t),
                |d| generic_components_vjp(r, t, d),
                |(a, b)| generic_components_jvp(r, t, (a, b)),
            ),
            &generic_partials(r, t),
            &dt,
        );
        let (r32, t32) = (r as f32, t as f32);
        check_scalar_f32(
            generic_components(r32, t32),
            (
                generic_components_grad(r32, t32),
                |d| generic_components_vjp(r32, t32, d),
                |(a, b)| generic_components_jvp(r32, t32, (a, b)),
            ),
            &generic_partials(f64::from(r32), f64::from(t32)),
            &dt,
        );
        // On duals seeded along (1, 0): the tangent of the gradient is the Hessian's first column,
        // against central differences of the hand-written gradient.
        let (_, (gr, gt)) = generic_components_grad(Dual::new(r, 1.0), Dual::new(t, 0.0));
        let column = hessian_column(|x| generic_partials(x[0], x[1]).to_vec(), &x, 0);
        assert_all_close(&[gr.eps, gt.eps], &column, 1e-6, "Hessian column on duals");
    }

    #[test]
    fn a_component_told_but_given_no_adjoint_gets_a_zero_of_its_type(
        r in moderate(),
        t in moderate(),
        dt in tangents(),
    ) {
        // f = ±r sin t.
        let sign = if r * t.cos() * r > 0.0 { 1.0 } else { -1.0 };
        let partials = [sign * t.sin(), sign * r * t.cos()];
        check_scalar(
            "component_told_but_constant",
            |x| component_told_but_constant(x[0], x[1]),
            &[r, t],
            (
                component_told_but_constant_grad(r, t),
                |d| component_told_but_constant_vjp(r, t, d),
                |(a, b)| component_told_but_constant_jvp(r, t, (a, b)),
            ),
            &partials,
            &dt,
        );
        let (_, (gr, gt)) = component_told_but_constant_grad(r as f32, t as f32);
        let (r32, t32) = (f64::from(r as f32), f64::from(t as f32));
        let sign32 = if r32 * t32.cos() * r32 > 0.0 { 1.0 } else { -1.0 };
        assert_all_close(
            &[f64::from(gr), f64::from(gt)],
            &[sign32 * t32.sin(), sign32 * r32 * t32.cos()],
            ANALYTIC_TOL_F32,
            "component_told_but_constant at f32",
        );
    }

    #[test]
    fn stages_of_a_loop_read_through_components(
        p in proptest::collection::vec(-0.8..0.8f64, 4),
        steps in 0usize..12,
        dt in proptest::collection::vec(-1.0..1.0f64, 4),
    ) {
        let (value, grad) = heun_grad(&p, steps);
        let (_, dot) = heun_jvp(&p, steps, dt.clone());
        check_by_differences("heun", |x| heun(x, steps), &p, (value, grad), dot, &dt);
    }

    #[test]
    fn components_told_by_stores_and_float_functions(r in moderate(), t in moderate(), dt in tangents()) {
        let x = [r, t];
        let (value, (gr, gt)) = stored_and_compared_grad(r, t);
        let (_, dot) = stored_and_compared_jvp(r, t, (dt[0], dt[1]));
        check_by_differences(
            "stored_and_compared",
            |x| stored_and_compared(x[0], x[1]),
            &x,
            (value, vec![gr, gt]),
            dot,
            &dt[..2],
        );
    }

    #[test]
    fn second_order_through_components(r in moderate(), t in moderate()) {
        let x = [r, t];
        let (value, (gr, gt), hessian) = second_order_hessian(r, t);
        assert_eq!(value, second_order(r, t));
        // f = 2 r² cos t sin t + r sin t = r² sin 2t + r sin t.
        let grad = [2.0 * r * (2.0 * t).sin() + t.sin(), 2.0 * r * r * (2.0 * t).cos() + r * t.cos()];
        assert_all_close(&[gr, gt], &grad, ANALYTIC_TOL, "second_order gradient");
        for (i, row) in hessian.iter().enumerate() {
            let column = hessian_column(
                |x| {
                    let (_, (a, b)) = second_order_grad(x[0], x[1]);
                    vec![a, b]
                },
                &x,
                i,
            );
            assert_all_close(row, &column, 1e-6, "second_order Hessian");
        }
    }
}

/// The reverse sweeps at a fixed point, by hand: Heun with one step, p = (a, b, u0, v0).
#[test]
fn one_heun_step_by_hand() {
    let p = [0.3, -0.2, 1.5, 0.7];
    let (_, grad) = heun_grad(&p, 1);
    let h = 0.05;
    // One step is linear in (u0, v0): (u1, v1) = M (u0, v0) with M = I + h/2 (A + A (I + h A)) = I + h A
    // + h²/2 A², A = [[a, -b], [b, a]].
    let (a, b) = (p[0], p[1]);
    let a2 = [[a * a - b * b, -2.0 * a * b], [2.0 * a * b, a * a - b * b]];
    let m = [
        [
            1.0 + h * a + h * h / 2.0 * a2[0][0],
            -h * b + h * h / 2.0 * a2[0][1],
        ],
        [
            h * b + h * h / 2.0 * a2[1][0],
            1.0 + h * a + h * h / 2.0 * a2[1][1],
        ],
    ];
    let (u1, v1) = (
        m[0][0] * p[2] + m[0][1] * p[3],
        m[1][0] * p[2] + m[1][1] * p[3],
    );
    // f = u1 v1: d/du0 = v1 M00 + u1 M10, d/dv0 = v1 M01 + u1 M11.
    let expected_state = [v1 * m[0][0] + u1 * m[1][0], v1 * m[0][1] + u1 * m[1][1]];
    assert_all_close(
        &grad[2..],
        &expected_state,
        ANALYTIC_TOL,
        "heun d/d(u0, v0)",
    );
    assert_fd_gradient(|x| heun(x, 1), &p, &grad, "heun, one step");
}
