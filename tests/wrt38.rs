//! `order = K` of a function whose float parameter outside `wrt(..)` goes to a plain helper (no
//! derivatives) whose value is a `Vec`, an array or a tuple, that takes a tuple or that writes an output
//! (`fill(c, &mut v)`): `#[differentiable(wrt(w),
//! order = 2)] fn loss(w: &[f64], data: &[f64])` with `let m = moments(data);`. Until session 38 its
//! generic copy called the helper through its copy (`<features as GenericCopy>::Copy::call(c)`), which a
//! plain function has not: rustc's E0573 "expected type, found function". The copy now calls such a helper
//! through `copy_or_as_written!` (the helper's copy where it has derivatives, else the helper as written
//! on the constant values of its arguments, the value lifted as a whole, an output written back), and the
//! copy's hidden sweeps keep
//! the parameters outside `wrt(..)` constant there, as the first order's do (`maybe::copy_unplanned`).
//!
//! Checked against analytic derivatives, central differences of the value (gradients) and of `_grad`
//! (Hessians), at seeded points; also through an `order = 2` caller passing constants for `c`.

mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, hessian_column, Inputs};

/// Plain helpers: no derivatives.
fn features(c: f64) -> Vec<f64> {
    vec![c, c * c]
}

fn features_array(c: f64) -> [f64; 2] {
    [c, c * c]
}

fn pair(c: f64) -> (f64, f64) {
    (c, c * c)
}

fn product(t: (f64, f64)) -> f64 {
    t.0 * t.1
}

fn fill(c: f64, out: &mut [f64]) {
    out[0] = c;
    out[1] = 2.0 * c * c;
}

fn moments(data: &[f64]) -> Vec<f64> {
    let n = data.len() as f64;
    let mean = data.iter().sum::<f64>() / n;
    vec![mean, data.iter().map(|d| d * d).sum::<f64>() / n]
}

#[differentiable(wrt(a), order = 2)]
fn vec_2(a: f64, c: f64) -> f64 {
    let v = features(c);
    a.sin() * v[0] + a * a * a * v[1]
}

#[differentiable(wrt(a), order = 2)]
fn array_2(a: f64, c: f64) -> f64 {
    let v = features_array(c);
    a.exp() * v[0] + a * a * v[1]
}

#[differentiable(wrt(a), order = 2)]
fn pair_2(a: f64, c: f64) -> f64 {
    let (p, q) = pair(c);
    a.cos() * p + a * a * a * q
}

#[differentiable(wrt(a), order = 2)]
fn tuple_argument_2(a: f64, c: f64) -> f64 {
    a * a * a * product((0.5, c))
}

/// Writing an output: an array, and a `Vec` whose other element keeps its value.
#[differentiable(wrt(a), order = 2)]
fn output_2(a: f64, c: f64) -> f64 {
    let mut v = [0.0; 2];
    fill(c, &mut v);
    a * v[0] + a * a * a * v[1]
}

#[differentiable(wrt(a), order = 2)]
fn output_vec_2(a: f64, c: f64) -> f64 {
    let mut v = vec![1.5; 3];
    fill(c * 0.5, &mut v);
    a.sin() * v[0] + a * a * v[1] + a * v[2]
}

/// Two differentiated parameters beside the excluded one: a 2×2 Hessian.
#[differentiable(wrt(a, b), order = 2)]
fn two_2(a: f64, b: f64, c: f64) -> f64 {
    let v = features(c);
    a * b * v[0] + b * b * b * v[1]
}

/// The loss shape: weights differentiated, data through a plain feature function.
#[differentiable(wrt(w), order = 2)]
fn loss_2(w: &[f64], data: &[f64]) -> f64 {
    let m = moments(data);
    let r = w[0] * m[0] + w[1] * m[1] - 1.0;
    r * r
}

/// Second order through the copies' hidden sweeps, with `c` a constant of the caller.
#[differentiable(order = 2)]
fn caller_2(x: f64) -> f64 {
    vec_2(x * x, 2.0) + array_2(x, 0.5) + pair_2(x.sin(), -1.5) + tuple_argument_2(x, 3.0)
}

#[differentiable(order = 2)]
fn output_caller_2(x: f64) -> f64 {
    output_2(x * x, 0.5) * output_vec_2(x, -1.0)
}

/// `x ↦ f(x)`'s second derivative by differences of its first, `d`.
fn second_by_differences(d: impl Fn(f64) -> f64, x: f64) -> f64 {
    hessian_column(|p| vec![d(p[0])], &[x], 0)[0]
}

#[test]
fn plain_helpers_of_arrays_and_tuples_at_order_2() {
    let mut inputs = Inputs(38_001);
    for _ in 0..16 {
        let (a, c) = (2.0 * inputs.next(), 2.0 * inputs.next());

        let f = |a: f64| a.sin() * c + a * a * a * c * c;
        let (v, g, h) = vec_2_hessian(a, c);
        assert_close(v, f(a), 1e-12, "vec_2");
        assert_close(vec_2(a, c), v, 1e-12, "vec_2 as written");
        assert_close(g, a.cos() * c + 3.0 * a * a * c * c, 1e-12, "vec_2'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "vec_2");
        assert_close(h[0][0], -a.sin() * c + 6.0 * a * c * c, 1e-10, "vec_2''");
        let fd = second_by_differences(|a| vec_2_grad(a, c).1, a);
        assert_close(h[0][0], fd, 1e-6, "vec_2'' by differences");
        assert_close(
            vec_2_derivatives(a, c)[2],
            h[0][0],
            1e-12,
            "vec_2 derivatives",
        );

        let f = |a: f64| a.exp() * c + a * a * c * c;
        let (v, g, h) = array_2_hessian(a, c);
        assert_close(v, f(a), 1e-12, "array_2");
        assert_close(g, a.exp() * c + 2.0 * a * c * c, 1e-12, "array_2'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "array_2");
        assert_close(h[0][0], a.exp() * c + 2.0 * c * c, 1e-10, "array_2''");
        let fd = second_by_differences(|a| array_2_grad(a, c).1, a);
        assert_close(h[0][0], fd, 1e-6, "array_2'' by differences");

        let f = |a: f64| a.cos() * c + a * a * a * c * c;
        let (v, g, h) = pair_2_hessian(a, c);
        assert_close(v, f(a), 1e-12, "pair_2");
        assert_close(g, -a.sin() * c + 3.0 * a * a * c * c, 1e-12, "pair_2'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "pair_2");
        assert_close(h[0][0], -a.cos() * c + 6.0 * a * c * c, 1e-10, "pair_2''");
        let fd = second_by_differences(|a| pair_2_grad(a, c).1, a);
        assert_close(h[0][0], fd, 1e-6, "pair_2'' by differences");

        let f = |a: f64| 0.5 * c * a * a * a;
        let (v, g, h) = tuple_argument_2_hessian(a, c);
        assert_close(v, f(a), 1e-12, "tuple_argument_2");
        assert_close(g, 1.5 * c * a * a, 1e-12, "tuple_argument_2'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "tuple_argument_2");
        assert_close(h[0][0], 3.0 * c * a, 1e-10, "tuple_argument_2''");
        let fd = second_by_differences(|a| tuple_argument_2_grad(a, c).1, a);
        assert_close(h[0][0], fd, 1e-6, "tuple_argument_2'' by differences");
    }
}

#[test]
fn plain_helpers_writing_outputs_at_order_2() {
    let mut inputs = Inputs(38_005);
    for _ in 0..16 {
        let (a, c) = (2.0 * inputs.next(), 2.0 * inputs.next());

        // v = [c, 2c²].
        let f = |a: f64| a * c + 2.0 * a * a * a * c * c;
        let (v, g, h) = output_2_hessian(a, c);
        assert_close(v, f(a), 1e-12, "output_2");
        assert_close(output_2(a, c), v, 1e-12, "output_2 as written");
        assert_close(g, c + 6.0 * a * a * c * c, 1e-12, "output_2'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "output_2");
        assert_close(h[0][0], 12.0 * a * c * c, 1e-10, "output_2''");
        let fd = second_by_differences(|a| output_2_grad(a, c).1, a);
        assert_close(h[0][0], fd, 1e-6, "output_2'' by differences");

        // v = [c/2, c²/2, 1.5].
        let (p, q) = (0.5 * c, 0.5 * c * c);
        let f = |a: f64| a.sin() * p + a * a * q + 1.5 * a;
        let (v, g, h) = output_vec_2_hessian(a, c);
        assert_close(v, f(a), 1e-12, "output_vec_2");
        assert_close(output_vec_2(a, c), v, 1e-12, "output_vec_2 as written");
        assert_close(g, a.cos() * p + 2.0 * a * q + 1.5, 1e-12, "output_vec_2'");
        assert_fd_gradient(|p| f(p[0]), &[a], &[g], "output_vec_2");
        assert_close(h[0][0], -a.sin() * p + 2.0 * q, 1e-10, "output_vec_2''");
        let fd = second_by_differences(|a| output_vec_2_grad(a, c).1, a);
        assert_close(h[0][0], fd, 1e-6, "output_vec_2'' by differences");
        let (_, t) = output_vec_2_jvp(a, c, -0.8);
        assert_close(t, -0.8 * g, 1e-12, "output_vec_2_jvp");
    }
    // output_2(x², 0.5) · output_vec_2(x, -1): (0.5 y + 0.5 y³)(sin(x)·(-0.5) + 0.5 x² + 1.5 x), y = x².
    let (u, du, ddu) = (
        |x: f64| 0.5 * x * x + 0.5 * x.powi(6),
        |x: f64| x + 3.0 * x.powi(5),
        |x: f64| 1.0 + 15.0 * x.powi(4),
    );
    let (w, dw, ddw) = (
        |x: f64| -0.5 * x.sin() + 0.5 * x * x + 1.5 * x,
        |x: f64| -0.5 * x.cos() + x + 1.5,
        |x: f64| 0.5 * x.sin() + 1.0,
    );
    for _ in 0..16 {
        let x = 1.6 * inputs.next() - 0.8;
        let (v, g, h) = output_caller_2_hessian(x);
        assert_close(v, u(x) * w(x), 1e-12, "output_caller_2");
        assert_close(output_caller_2(x), v, 1e-12, "output_caller_2 as written");
        assert_close(g, du(x) * w(x) + u(x) * dw(x), 1e-10, "output_caller_2'");
        assert_fd_gradient(|p| u(p[0]) * w(p[0]), &[x], &[g], "output_caller_2");
        let d2 = ddu(x) * w(x) + 2.0 * du(x) * dw(x) + u(x) * ddw(x);
        assert_close(h[0][0], d2, 1e-9, "output_caller_2''");
        let fd = second_by_differences(|x| output_caller_2_grad(x).1, x);
        assert_close(h[0][0], fd, 1e-6, "output_caller_2'' by differences");
    }
}

#[test]
fn two_differentiated_parameters_beside_an_excluded_one() {
    let mut inputs = Inputs(38_002);
    for _ in 0..16 {
        let (a, b, c) = (inputs.next(), inputs.next(), 2.0 * inputs.next());
        let f = |p: &[f64]| p[0] * p[1] * c + p[1].powi(3) * c * c;
        let (v, (ga, gb), h) = two_2_hessian(a, b, c);
        assert_close(v, f(&[a, b]), 1e-12, "two_2");
        assert_close(two_2(a, b, c), v, 1e-12, "two_2 as written");
        assert_close(ga, b * c, 1e-12, "d/da");
        assert_close(gb, a * c + 3.0 * b * b * c * c, 1e-12, "d/db");
        assert_fd_gradient(f, &[a, b], &[ga, gb], "two_2");
        let by_hand = [[0.0, c], [c, 6.0 * b * c * c]];
        let grad = |p: &[f64]| {
            let (_, (ga, gb)) = two_2_grad(p[0], p[1], c);
            vec![ga, gb]
        };
        for i in 0..2 {
            let column = hessian_column(grad, &[a, b], i);
            for k in 0..2 {
                assert_close(h[k][i], by_hand[k][i], 1e-10, "two_2 Hessian");
                assert_close(h[k][i], column[k], 1e-6, "two_2 Hessian by differences");
            }
        }
    }
}

#[test]
fn a_loss_over_data_made_by_a_plain_feature_function_at_order_2() {
    let mut inputs = Inputs(38_003);
    for _ in 0..16 {
        let w = [inputs.next(), inputs.next()];
        let data = inputs.vec(5);
        let n = data.len() as f64;
        let m = [
            data.iter().sum::<f64>() / n,
            data.iter().map(|d| d * d).sum::<f64>() / n,
        ];
        let f = |w: &[f64]| (w[0] * m[0] + w[1] * m[1] - 1.0).powi(2);
        let (v, g, h) = loss_2_hessian(&w, &data);
        assert_close(v, f(&w), 1e-12, "loss_2");
        let r = w[0] * m[0] + w[1] * m[1] - 1.0;
        assert_close(g[0], 2.0 * r * m[0], 1e-12, "dloss/dw0");
        assert_close(g[1], 2.0 * r * m[1], 1e-12, "dloss/dw1");
        assert_fd_gradient(f, &w, &g, "loss_2");
        let grad = |p: &[f64]| loss_2_grad(p, &data).1;
        for i in 0..2 {
            let column = hessian_column(grad, &w, i);
            for k in 0..2 {
                assert_close(h[k][i], 2.0 * m[k] * m[i], 1e-10, "loss_2 Hessian");
                assert_close(h[k][i], column[k], 1e-6, "loss_2 Hessian by differences");
            }
        }
    }
}

#[test]
fn an_order_2_caller_passing_constants_through_the_copies() {
    // vec_2(x², 2) + array_2(x, 0.5) + pair_2(sin x, -1.5) + tuple_argument_2(x, 3).
    let f = |x: f64| {
        let y = x * x;
        let s = x.sin();
        (y.sin() * 2.0 + y.powi(3) * 4.0)
            + (x.exp() * 0.5 + x * x * 0.25)
            + (s.cos() * -1.5 + s.powi(3) * 2.25)
            + 1.5 * x.powi(3)
    };
    let d1 = |x: f64| {
        let (y, s, k) = (x * x, x.sin(), x.cos());
        2.0 * x * (2.0 * y.cos() + 12.0 * y * y)
            + (0.5 * x.exp() + 0.5 * x)
            + k * (1.5 * s.sin() + 6.75 * s * s)
            + 4.5 * x * x
    };
    let d2 = |x: f64| {
        let (y, s, k) = (x * x, x.sin(), x.cos());
        2.0 * (2.0 * y.cos() + 12.0 * y * y)
            + 4.0 * y * (-2.0 * y.sin() + 24.0 * y)
            + (0.5 * x.exp() + 0.5)
            - s * (1.5 * s.sin() + 6.75 * s * s)
            + k * k * (1.5 * s.cos() + 13.5 * s)
            + 9.0 * x
    };
    let mut inputs = Inputs(38_004);
    for _ in 0..16 {
        let x = 1.6 * inputs.next() - 0.8;
        let (v, g, h) = caller_2_hessian(x);
        assert_close(v, f(x), 1e-12, "caller_2");
        assert_close(caller_2(x), v, 1e-12, "caller_2 as written");
        assert_close(g, d1(x), 1e-10, "caller_2'");
        assert_fd_gradient(|p| f(p[0]), &[x], &[g], "caller_2");
        assert_close(h[0][0], d2(x), 1e-9, "caller_2''");
        let fd = second_by_differences(|x| caller_2_grad(x).1, x);
        assert_close(h[0][0], fd, 1e-6, "caller_2'' by differences");
    }
}

/// Callees WITH derivatives whose value is a `Vec` or an array (a tuple: below): the hidden sweeps of a function whose
/// `wrt(..)` leaves `c` out run their derivatives (chosen at compile time, `found_of!`), so a caller may
/// differentiate `c` through it. (Session 37 kept `c` constant there, and such a caller was
/// `require_through!`'s compile error.)
#[differentiable]
fn dfeatures(c: f64) -> Vec<f64> {
    vec![c.sin(), c * c]
}

#[differentiable]
fn dfeatures_array(c: f64) -> [f64; 2] {
    [c.exp(), c * c * c]
}

#[differentiable(wrt(a))]
fn through_dvec(a: f64, c: f64) -> f64 {
    let v = dfeatures(c);
    a * v[0] + a * a * v[1]
}

#[differentiable(wrt(a))]
fn through_darray(a: f64, c: f64) -> f64 {
    let v = dfeatures_array(c);
    a * v[0] * v[1]
}

/// Differentiates `c` through both, and passes a constant to the plain helper's function beside them.
#[differentiable]
fn differentiating_c(x: f64, c: f64) -> f64 {
    through_dvec(x, c * c) + through_darray(x * 0.5, c) + vec_2(x, 1.5)
}

#[differentiable(wrt(a), order = 2)]
fn through_dvec_2(a: f64, c: f64) -> f64 {
    let v = dfeatures(c);
    a * v[0] + a * a * v[1]
}

#[differentiable(order = 2)]
fn differentiating_c_2(x: f64, c: f64) -> f64 {
    through_dvec_2(x, c) * c
}

#[test]
fn a_caller_differentiates_an_excluded_parameter_through_callees_with_derivatives() {
    // through_dvec(x, c²) = x sin(c²) + x² c⁴; through_darray(x/2, c) = (x/2) e^c c³; vec_2(x, 1.5).
    let f = |p: &[f64]| {
        let (x, c) = (p[0], p[1]);
        x * (c * c).sin()
            + x * x * c.powi(4)
            + 0.5 * x * c.exp() * c.powi(3)
            + x.sin() * 1.5
            + x.powi(3) * 2.25
    };
    let mut inputs = Inputs(38_006);
    for _ in 0..16 {
        let (x, c) = (2.0 * inputs.next(), 1.5 * inputs.next());
        let (v, (gx, gc)) = differentiating_c_grad(x, c);
        assert_close(v, f(&[x, c]), 1e-12, "differentiating_c");
        assert_close(
            differentiating_c(x, c),
            v,
            1e-12,
            "differentiating_c as written",
        );
        let dx = (c * c).sin()
            + 2.0 * x * c.powi(4)
            + 0.5 * c.exp() * c.powi(3)
            + x.cos() * 1.5
            + 6.75 * x * x;
        let dc = x * (c * c).cos() * 2.0 * c
            + 4.0 * x * x * c.powi(3)
            + 0.5 * x * c.exp() * (c.powi(3) + 3.0 * c * c);
        assert_close(gx, dx, 1e-10, "d/dx");
        assert_close(gc, dc, 1e-10, "d/dc");
        assert_fd_gradient(f, &[x, c], &[gx, gc], "differentiating_c");
        let (_, t) = differentiating_c_jvp(x, c, (0.3, -0.7));
        assert_close(t, 0.3 * dx - 0.7 * dc, 1e-10, "differentiating_c_jvp");
    }
}

#[test]
fn an_order_2_caller_differentiates_an_excluded_parameter_through_a_callee_with_derivatives() {
    // (x sin c + x² c²) c.
    let f = |p: &[f64]| (p[0] * p[1].sin() + p[0] * p[0] * p[1] * p[1]) * p[1];
    let mut inputs = Inputs(38_007);
    for _ in 0..16 {
        let (x, c) = (2.0 * inputs.next(), 2.0 * inputs.next());
        let (v, (gx, gc), h) = differentiating_c_2_hessian(x, c);
        assert_close(v, f(&[x, c]), 1e-12, "differentiating_c_2");
        assert_close(
            differentiating_c_2(x, c),
            v,
            1e-12,
            "differentiating_c_2 as written",
        );
        let dx = c * c.sin() + 2.0 * x * c.powi(3);
        let dc = x * (c.sin() + c * c.cos()) + 3.0 * x * x * c * c;
        assert_close(gx, dx, 1e-10, "d/dx");
        assert_close(gc, dc, 1e-10, "d/dc");
        assert_fd_gradient(f, &[x, c], &[gx, gc], "differentiating_c_2");
        let by_hand = [
            [2.0 * c.powi(3), c.sin() + c * c.cos() + 6.0 * x * c * c],
            [
                c.sin() + c * c.cos() + 6.0 * x * c * c,
                x * (2.0 * c.cos() - c * c.sin()) + 6.0 * x * x * c,
            ],
        ];
        let grad = |p: &[f64]| {
            let (_, (gx, gc)) = differentiating_c_2_grad(p[0], p[1]);
            vec![gx, gc]
        };
        for i in 0..2 {
            let column = hessian_column(grad, &[x, c], i);
            for k in 0..2 {
                assert_close(h[k][i], by_hand[k][i], 1e-9, "differentiating_c_2 Hessian");
                assert_close(
                    h[k][i],
                    column[k],
                    1e-6,
                    "differentiating_c_2 Hessian by differences",
                );
            }
        }
    }
}

/// A callee with derivatives whose value is a tuple: planned as the `Vec` and array ones are.
#[differentiable]
fn dpair(c: f64) -> (f64, f64) {
    (c.sin(), c * c)
}

#[differentiable(wrt(a))]
fn through_dpair(a: f64, c: f64) -> f64 {
    let (p, q) = dpair(c);
    a * p + a * a * q
}

#[differentiable(wrt(a), order = 2)]
fn through_dpair_2(a: f64, c: f64) -> f64 {
    let (p, q) = dpair(c);
    a * p + a * a * q
}

#[differentiable]
fn differentiating_c_of_a_pair(x: f64, c: f64) -> f64 {
    through_dpair(x, c * 0.5) + through_dpair(x, 1.5) + pair_2(x, 0.5)
}

#[differentiable(order = 2)]
fn differentiating_c_of_a_pair_2(x: f64, c: f64) -> f64 {
    through_dpair_2(x, c) * x
}

#[test]
fn a_caller_differentiates_an_excluded_parameter_through_a_callee_of_a_tuple() {
    // through_dpair(a, c) = a sin c + a² c².
    let t = |a: f64, c: f64| a * c.sin() + a * a * c * c;
    let f = |p: &[f64]| {
        let (x, c) = (p[0], p[1]);
        t(x, 0.5 * c) + t(x, 1.5) + x.cos() * 0.5 + x.powi(3) * 0.25
    };
    let g = |p: &[f64]| t(p[0], p[1]) * p[0];
    let mut inputs = Inputs(38_008);
    for _ in 0..16 {
        let (x, c) = (2.0 * inputs.next(), 2.0 * inputs.next());
        let (v, (gx, gc)) = differentiating_c_of_a_pair_grad(x, c);
        assert_close(v, f(&[x, c]), 1e-12, "differentiating_c_of_a_pair");
        assert_close(differentiating_c_of_a_pair(x, c), v, 1e-12, "as written");
        let h = 0.5 * c;
        let dx = h.sin() + 2.0 * x * h * h + 1.5f64.sin() + 2.0 * x * 2.25 - x.sin() * 0.5
            + 0.75 * x * x;
        let dc = 0.5 * (x * h.cos() + 2.0 * x * x * h);
        assert_close(gx, dx, 1e-10, "d/dx");
        assert_close(gc, dc, 1e-10, "d/dc");
        assert_fd_gradient(f, &[x, c], &[gx, gc], "differentiating_c_of_a_pair");
        let (_, tan) = differentiating_c_of_a_pair_jvp(x, c, (-0.4, 0.9));
        assert_close(
            tan,
            -0.4 * dx + 0.9 * dc,
            1e-10,
            "differentiating_c_of_a_pair_jvp",
        );

        let (v, (gx, gc), hess) = differentiating_c_of_a_pair_2_hessian(x, c);
        assert_close(v, g(&[x, c]), 1e-12, "differentiating_c_of_a_pair_2");
        assert_close(differentiating_c_of_a_pair_2(x, c), v, 1e-12, "as written");
        // x² sin c + x³ c².
        let (dx, dc) = (
            2.0 * x * c.sin() + 3.0 * x * x * c * c,
            x * x * c.cos() + 2.0 * x.powi(3) * c,
        );
        assert_close(gx, dx, 1e-10, "d/dx of the order-2 caller");
        assert_close(gc, dc, 1e-10, "d/dc of the order-2 caller");
        assert_fd_gradient(g, &[x, c], &[gx, gc], "differentiating_c_of_a_pair_2");
        let by_hand = [
            [
                2.0 * c.sin() + 6.0 * x * c * c,
                2.0 * x * c.cos() + 6.0 * x * x * c,
            ],
            [
                2.0 * x * c.cos() + 6.0 * x * x * c,
                -x * x * c.sin() + 2.0 * x.powi(3),
            ],
        ];
        let grad = |p: &[f64]| {
            let (_, (gx, gc)) = differentiating_c_of_a_pair_2_grad(p[0], p[1]);
            vec![gx, gc]
        };
        for i in 0..2 {
            let column = hessian_column(grad, &[x, c], i);
            for k in 0..2 {
                assert_close(hess[k][i], by_hand[k][i], 1e-9, "Hessian");
                assert_close(hess[k][i], column[k], 1e-6, "Hessian by differences");
            }
        }
    }
}
