//! A cast of a float to its own type (`e as f64` in an `f64` function) inside a callee that an `order = K`
//! caller reaches, where the operand is no float parameter or `let` of one: an element of a local `Vec` or
//! array, of a matrix parameter, a tuple's part, a struct's field, a name bound twice, the result of a method
//! chain or of a call, a value rounded to `f32`. The callee's generic copy runs on dual numbers, and the cast
//! took the value through `f64`, dropping its tangent: wrong Hessians and higher derivatives. Checked against
//! derivatives by hand and central differences of `f_grad` (themselves checked against differences of `f`).

#![allow(clippy::needless_range_loop, clippy::unnecessary_cast)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{
    assert_all_close, assert_fd_gradient, central_difference, check_by_hand, hessian_column,
};

/// Central differences of the gradient against `hessian`, and of `f` against `grad`, at `x`; and `hessian`,
/// `grad` and `value` against the derivatives by hand.
#[track_caller]
fn check(
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> Vec<f64>,
    (value, gradient, hessian): (f64, Vec<f64>, Vec<Vec<f64>>),
    by_hand: (f64, Vec<f64>, Vec<Vec<f64>>),
    x: &[f64],
    what: &str,
) {
    assert_all_close(&[value], &[by_hand.0], 1e-12, &format!("{what}: value"));
    assert_all_close(&gradient, &by_hand.1, 1e-12, &format!("{what}: gradient"));
    for i in 0..x.len() {
        assert_all_close(
            &hessian[i],
            &by_hand.2[i],
            1e-12,
            &format!("{what}: Hessian row {i} by hand at {x:?}"),
        );
    }
    assert_fd_gradient(&f, x, &grad(x), what);
    for i in 0..x.len() {
        let column = hessian_column(&grad, x, i);
        let ours: Vec<f64> = hessian.iter().map(|row| row[i]).collect();
        assert_all_close(
            &ours,
            &column,
            1e-6,
            &format!("{what}: Hessian column {i} against differences of f_grad at {x:?}"),
        );
    }
}

/// Points of two inputs, away from zero.
const POINTS: [[f64; 2]; 5] = [
    [-1.3, 0.7],
    [-0.4, -1.1],
    [0.6, 0.9],
    [1.2, -0.3],
    [2.1, 1.4],
];

// ---- a local Vec's element

#[differentiable]
#[allow(clippy::useless_vec)] // the form under test
fn vec_element(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 2];
    v[0] = x[0] * x[0];
    v[1] = x[1];
    v[0] as f64 * v[1] as f64
}

#[differentiable(order = 2)]
fn through_vec_element(x: &[f64]) -> f64 {
    vec_element(x) * x[0]
}

#[test]
fn a_local_vecs_element_cast_in_a_callee() {
    for [a, b] in POINTS {
        // a^3 b.
        let by_hand = (
            a * a * a * b,
            vec![3.0 * a * a * b, a * a * a],
            vec![vec![6.0 * a * b, 3.0 * a * a], vec![3.0 * a * a, 0.0]],
        );
        check(
            through_vec_element,
            |x| through_vec_element_grad(x).1,
            through_vec_element_hessian(&[a, b]),
            by_hand,
            &[a, b],
            "through_vec_element",
        );
    }
}

// ---- a local array's element

#[differentiable]
fn array_element(x: f64) -> f64 {
    let mut a = [0.0; 3];
    a[1] = x * x;
    a[2] = x;
    a[1] as f64 * a[2]
}

#[differentiable(order = 3)]
fn through_array_element(x: f64) -> f64 {
    array_element(x) * x
}

#[test]
fn a_local_arrays_element_cast_in_a_callee() {
    for [x, _] in POINTS {
        // x^4.
        let by_hand = [x.powi(4), 4.0 * x.powi(3), 12.0 * x * x, 24.0 * x];
        check_by_hand(
            "through_array_element",
            x,
            &by_hand,
            through_array_element,
            through_array_element_grad,
            &through_array_element_derivatives(x),
            through_array_element_hessian(x).2[0][0],
        );
    }
}

// ---- a matrix parameter's element

#[differentiable]
fn matrix_element(m: &[Vec<f64>]) -> f64 {
    m[0][1] as f64 * m[1][0]
}

#[differentiable(order = 2)]
fn through_matrix_element(m: &[Vec<f64>]) -> f64 {
    matrix_element(m) * m[0][1]
}

#[differentiable]
fn array_matrix_element(m: [[f64; 2]; 2]) -> f64 {
    m[1][1] as f64 * m[0][0]
}

#[differentiable(order = 2)]
fn through_array_matrix_element(m: [[f64; 2]; 2]) -> f64 {
    array_matrix_element(m) * m[1][1]
}

#[test]
fn a_matrix_parameters_element_cast_in_a_callee() {
    let rows = |x: &[f64]| vec![vec![x[0], x[1]], vec![x[2], x[3]]];
    let array = |x: &[f64]| [[x[0], x[1]], [x[2], x[3]]];
    for [a, b] in POINTS {
        let x = [0.5 * a - b, a, b, a * b + 0.3];
        // m01^2 m10 over [m00, m01, m10, m11].
        let (m01, m10) = (x[1], x[2]);
        let mut h = vec![vec![0.0; 4]; 4];
        h[1][1] = 2.0 * m10;
        h[1][2] = 2.0 * m01;
        h[2][1] = 2.0 * m01;
        let by_hand = (
            m01 * m01 * m10,
            vec![0.0, 2.0 * m01 * m10, m01 * m01, 0.0],
            h,
        );
        let (v, g, h) = through_matrix_element_hessian(&rows(&x));
        check(
            |x| through_matrix_element(&rows(x)),
            |x| through_matrix_element_grad(&rows(x)).1.concat(),
            (v, g.concat(), h),
            by_hand,
            &x,
            "through_matrix_element",
        );
        // m11^2 m00.
        let (m00, m11) = (x[0], x[3]);
        let mut h = vec![vec![0.0; 4]; 4];
        h[3][3] = 2.0 * m00;
        h[0][3] = 2.0 * m11;
        h[3][0] = 2.0 * m11;
        let by_hand = (
            m11 * m11 * m00,
            vec![m11 * m11, 0.0, 0.0, 2.0 * m11 * m00],
            h,
        );
        let (v, g, h) = through_array_matrix_element_hessian(array(&x));
        check(
            |x| through_array_matrix_element(array(x)),
            |x| through_array_matrix_element_grad(array(x)).1.concat(),
            (v, g.concat(), h),
            by_hand,
            &x,
            "through_array_matrix_element",
        );
    }
}

// ---- a tuple's part: a parameter's, a local's

#[differentiable]
fn tuple_part(p: (f64, f64)) -> f64 {
    p.0 as f64 * p.1
}

#[differentiable(order = 2)]
fn through_tuple_part(x: f64, y: f64) -> f64 {
    tuple_part((x * x, y)) * x
}

#[differentiable]
fn local_tuple_part(x: f64) -> f64 {
    let t = (x * x, x + 1.0);
    t.0 as f64 * t.1
}

#[differentiable(order = 3)]
fn through_local_tuple_part(x: f64) -> f64 {
    local_tuple_part(x) * x
}

#[test]
fn a_tuples_part_cast_in_a_callee() {
    for [x, y] in POINTS {
        // x^3 y.
        let by_hand = (
            x * x * x * y,
            vec![3.0 * x * x * y, x * x * x],
            vec![vec![6.0 * x * y, 3.0 * x * x], vec![3.0 * x * x, 0.0]],
        );
        let (v, (gx, gy), h) = through_tuple_part_hessian(x, y);
        check(
            |p| through_tuple_part(p[0], p[1]),
            |p| {
                let (_, (gx, gy)) = through_tuple_part_grad(p[0], p[1]);
                vec![gx, gy]
            },
            (v, vec![gx, gy], h),
            by_hand,
            &[x, y],
            "through_tuple_part",
        );
        // x^4 + x^3.
        let by_hand = [
            x.powi(4) + x.powi(3),
            4.0 * x.powi(3) + 3.0 * x * x,
            12.0 * x * x + 6.0 * x,
            24.0 * x + 6.0,
        ];
        check_by_hand(
            "through_local_tuple_part",
            x,
            &by_hand,
            through_local_tuple_part,
            through_local_tuple_part_grad,
            &through_local_tuple_part_derivatives(x),
            through_local_tuple_part_hessian(x).2[0][0],
        );
    }
}

// ---- a struct's field

#[derive(Clone, Debug, Differentiable)]
pub struct Pair {
    pub a: f64,
    pub b: f64,
}

#[differentiable]
fn field(p: &Pair) -> f64 {
    p.a as f64 * p.b
}

#[differentiable(order = 2)]
fn through_field(p: &Pair) -> f64 {
    field(p) * p.a
}

/// A field read only converted to a float by a function of `order = K` itself, beside an integer field
/// read so (`#[no_grad]`) and a `#[no_grad]` float field.
#[derive(Clone, Debug, Differentiable)]
pub struct Scaled {
    pub a: f64,
    pub b: f64,
    #[no_grad]
    pub n: usize,
    #[no_grad]
    pub c: f64,
}

#[differentiable(order = 2)]
fn scaled(p: &Scaled) -> f64 {
    (p.a as f64) * (p.a as f64) * p.b * (p.n as f64) + p.c as f64 * p.b
}

#[test]
fn a_struct_fields_cast_in_a_callee() {
    let pair = |x: &[f64]| Pair { a: x[0], b: x[1] };
    for [a, b] in POINTS {
        // a^2 b.
        let by_hand = (
            a * a * b,
            vec![2.0 * a * b, a * a],
            vec![vec![2.0 * b, 2.0 * a], vec![2.0 * a, 0.0]],
        );
        let (v, g, h) = through_field_hessian(&pair(&[a, b]));
        check(
            |x| through_field(&pair(x)),
            |x| {
                let g = through_field_grad(&pair(x)).1;
                vec![g.a, g.b]
            },
            (v, vec![g.a, g.b], h),
            by_hand,
            &[a, b],
            "through_field",
        );
        // n a^2 b + c b over [a, b] (`n` and `c` are `#[no_grad]`: zeros in the gradient and Hessian).
        let (n, c) = (3usize, 0.25);
        let nf = n as f64;
        let scaled_of = |x: &[f64]| Scaled {
            a: x[0],
            b: x[1],
            n,
            c,
        };
        let by_hand = (
            nf * a * a * b + c * b,
            vec![2.0 * nf * a * b, nf * a * a + c, 0.0, 0.0],
            vec![
                vec![2.0 * nf * b, 2.0 * nf * a, 0.0, 0.0],
                vec![2.0 * nf * a, 0.0, 0.0, 0.0],
                vec![0.0; 4],
                vec![0.0; 4],
            ],
        );
        assert_all_close(
            &[scaled(&scaled_of(&[a, b]))],
            &[by_hand.0],
            1e-12,
            "scaled",
        );
        let (v, g, h) = scaled_hessian(&scaled_of(&[a, b]));
        assert_all_close(&[v], &[by_hand.0], 1e-12, "scaled: value");
        assert_all_close(&[g.a, g.b], &by_hand.1[..2], 1e-12, "scaled: gradient");
        // The Hessian over the flat view (`a`, `b`, and zeros at `#[no_grad]` floats).
        assert!(h.len() >= 2, "scaled: Hessian of {} rows", h.len());
        for (i, row) in h.iter().enumerate() {
            assert_all_close(row, &by_hand.2[i][..row.len()], 1e-12, "scaled: Hessian");
        }
        let grad = |x: &[f64]| {
            let g = scaled_grad(&scaled_of(x)).1;
            vec![g.a, g.b]
        };
        for i in 0..2 {
            let column = hessian_column(grad, &[a, b], i);
            assert_all_close(
                &[h[0][i], h[1][i]],
                &column,
                1e-6,
                "scaled: against differences of f_grad",
            );
        }
    }
}

// The first order read such a field's cast as a constant too (`field_grad` gave 0 for `a`): an active
// value of a kind the syntax does not tell, cast to a float, is a float (`activity.rs`).
#[differentiable]
fn call_result_squared(x: f64) -> f64 {
    let c = cube(x);
    let d = c * c;
    d as f64 + c.powi(2) as f64
}

#[test]
fn a_struct_fields_cast_at_first_order() {
    for [a, b] in POINTS {
        let (v, g) = field_grad(&Pair { a, b });
        assert_all_close(&[v, g.a, g.b], &[a * b, b, a], 1e-12, "field_grad");
        let fd = [
            central_difference(|a| field(&Pair { a, b }), a),
            central_difference(|b| field(&Pair { a, b }), b),
        ];
        assert_all_close(&[g.a, g.b], &fd, 1e-6, "field_grad against differences");
    }
}

#[test]
fn an_expression_of_a_calls_result_cast_at_first_order() {
    for [x, _] in POINTS {
        // 2 x^6.
        let (v, g) = call_result_squared_grad(x);
        assert_all_close(
            &[v, g],
            &[2.0 * x.powi(6), 12.0 * x.powi(5)],
            1e-12,
            "call_result_squared_grad",
        );
        let fd = central_difference(call_result_squared, x);
        assert_all_close(&[g], &[fd], 1e-6, "against differences");
    }
}

// ---- a name bound twice

#[differentiable]
fn cube(x: f64) -> f64 {
    x * x * x
}

#[differentiable]
fn bound_twice(x: f64) -> f64 {
    let y = x * x;
    let y = y + 1.0;
    y as f64 * x
}

#[differentiable]
fn bound_twice_to_a_call(x: f64) -> f64 {
    let y = cube(x);
    let y = y * 2.0;
    y as f64 * x
}

#[differentiable(order = 3)]
fn through_bound_twice(x: f64) -> f64 {
    bound_twice(x) * x + bound_twice_to_a_call(x)
}

#[test]
fn a_name_bound_twice_cast_in_a_callee() {
    for [x, _] in POINTS {
        // (x^2 + 1) x^2 + 2 x^4 = 3 x^4 + x^2.
        let by_hand = [
            3.0 * x.powi(4) + x * x,
            12.0 * x.powi(3) + 2.0 * x,
            36.0 * x * x + 2.0,
            72.0 * x,
        ];
        check_by_hand(
            "through_bound_twice",
            x,
            &by_hand,
            through_bound_twice,
            through_bound_twice_grad,
            &through_bound_twice_derivatives(x),
            through_bound_twice_hessian(x).2[0][0],
        );
    }
}

// ---- a method chain's result, a call's

#[differentiable]
fn chain(p: (f64, f64)) -> f64 {
    (p.0 * p.1).exp() as f64
}

#[differentiable]
fn call_chain(x: f64) -> f64 {
    cube(x).powi(2) as f64
}

#[differentiable(order = 2)]
fn through_chain(x: f64, y: f64) -> f64 {
    chain((x, y)) * x + call_chain(x) * y
}

#[test]
fn a_method_chains_result_cast_in_a_callee() {
    for [x, y] in POINTS {
        // x e^(xy) + x^6 y.
        let e = (x * y).exp();
        let by_hand = (
            x * e + x.powi(6) * y,
            vec![
                e * (1.0 + x * y) + 6.0 * x.powi(5) * y,
                x * x * e + x.powi(6),
            ],
            vec![
                vec![
                    e * y * (2.0 + x * y) + 30.0 * x.powi(4) * y,
                    e * x * (2.0 + x * y) + 6.0 * x.powi(5),
                ],
                vec![e * x * (2.0 + x * y) + 6.0 * x.powi(5), x.powi(3) * e],
            ],
        );
        let (v, (gx, gy), h) = through_chain_hessian(x, y);
        check(
            |p| through_chain(p[0], p[1]),
            |p| {
                let (_, (gx, gy)) = through_chain_grad(p[0], p[1]);
                vec![gx, gy]
            },
            (v, vec![gx, gy], h),
            by_hand,
            &[x, y],
            "through_chain",
        );
    }
}

// ---- a value rounded to `f32` and back (the derivative of rounding taken as 1)

#[differentiable(order = 2)]
fn rounded(x: f64) -> f64 {
    let y = (x * x) as f32;
    y as f64 * x + (x * x) as f32 as f64
}

#[differentiable(order = 2)]
fn through_rounded(x: f64) -> f64 {
    rounded(x) * x
}

#[test]
fn a_value_rounded_to_f32_and_back_in_a_callee() {
    for [x, _] in POINTS {
        // x^4 + x^3 with the values rounded, the rounding's derivative 1: the second derivative of
        // r(x^2) x^2 + r(x^2) x is 12 x^2 + 6 x exactly.
        let d = through_rounded_derivatives(x);
        assert_all_close(&[through_rounded(x)], &d[..1], 1e-12, "value");
        assert_all_close(
            &d[..2],
            &[x.powi(4) + x.powi(3), 4.0 * x.powi(3) + 3.0 * x * x],
            1e-6,
            "value and f'",
        );
        assert_all_close(&d[2..], &[12.0 * x * x + 6.0 * x], 1e-6, "f''");
    }
}
