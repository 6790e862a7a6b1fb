//! Fields and parameter structs passed on whole, at first order and `order = 2`: an array field both
//! indexed and passed to a callee of `&[f64; N]` (the hidden function over the struct's values view
//! passes it in the field's shape, `__private::field_window`), and structs passed on whole to callees
//! whose hidden function cannot be made (a callee writing output parameters and reading a matrix field,
//! one returning a tuple, one passing a field on whole): their stand-ins keep the callers' first order
//! building. Every gradient is checked against central differences over the flat view `[p.to_flat(), x]`
//! (`tests/common/probe.rs`), `_grad_into` into buffers full of NaN, `_jvp` against the gradient.

// The bodies index their slices as users write them; the probes' closures take their types from the items.
#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::probe::*;

const POINTS: usize = 8;

#[derive(Clone, Debug, Differentiable)]
struct Joint {
    k: [f64; 3],
    a: f64,
}

fn joint(v: &[f64]) -> Joint {
    Joint {
        k: [v[0], v[1], v[2]],
        a: v[3],
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Grid {
    m: [[f64; 2]; 2],
    a: f64,
}

fn grid(v: &[f64]) -> Grid {
    Grid {
        m: [[v[0], v[1]], [v[2], v[3]]],
        a: v[4],
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Outer {
    inner: Joint,
    b: f64,
}

fn outer(v: &[f64]) -> Outer {
    Outer {
        inner: joint(&v[..4]),
        b: v[4],
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Vec<Vec<f64>>,
    b: Vec<f64>,
}

fn layer(v: &[f64]) -> Layer {
    Layer {
        w: vec![vec![v[0], v[1]], vec![v[2], v[3]]],
        b: vec![v[4], v[5]],
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Lin {
    w: Vec<f64>,
    b: f64,
}

fn lin(v: &[f64]) -> Lin {
    Lin {
        w: vec![v[0], v[1]],
        b: v[2],
    }
}

/// `[p.to_flat(), x]` split back: the struct built by `make` from the first `n` numbers, and `x`.
fn split<P>(v: &[f64], n: usize, make: fn(&[f64]) -> P) -> (P, f64) {
    (make(&v[..n]), v[n])
}

/// The flat view `[g.to_flat(), d]` of a gradient `(g, d)`.
fn flat<P: Differentiable>((g, d): (P, f64)) -> Flat {
    let mut f = g.to_flat();
    f.push(d);
    f
}

/// A probe of `f(p, x)` through `[p.to_flat(), x]`: `f_grad`, `f_jvp` and `f_grad_into` (into buffers of
/// NaN) given as the generated items are.
#[allow(clippy::too_many_arguments)]
fn probe_px<'a, P: Differentiable + 'a>(
    name: &'a str,
    n: usize,
    make: fn(&[f64]) -> P,
    f: impl Fn(&P, f64) -> f64 + 'a,
    grad: impl Fn(&P, f64) -> (f64, (P, f64)) + 'a,
    jvp: impl Fn(&P, f64, (P, f64)) -> (f64, f64) + 'a,
    into: impl Fn(&P, f64, (&mut P, &mut f64)) -> f64 + 'a,
) -> Probe<'a> {
    Probe::new(name, move |v| {
        let (p, x) = split(v, n, make);
        f(&p, x)
    })
    .grad(move |v| {
        let (p, x) = split(v, n, make);
        let (e, g) = grad(&p, x);
        (e, flat(g))
    })
    .jvp(move |v, t| {
        let (p, x) = split(v, n, make);
        jvp(&p, x, split(t, n, make))
    })
    .grad_into(move |v| {
        let (p, x) = split(v, n, make);
        let (mut g, mut d) = (make(&vec![GARBAGE; n]), GARBAGE);
        let e = into(&p, x, (&mut g, &mut d));
        (e, flat((g, d)))
    })
}

/// `f_hessian` of `f(p, x)` through `[p.to_flat(), x]`.
fn hessian_px<P: Differentiable>(
    n: usize,
    make: fn(&[f64]) -> P,
    h: fn(&P, f64) -> (f64, (P, f64), Vec<Vec<f64>>),
) -> impl Fn(&[f64]) -> (f64, Flat, Vec<Flat>) {
    move |v| {
        let (p, x) = split(v, n, make);
        let (e, g, m) = h(&p, x);
        (e, flat(g), m)
    }
}

// --- An array field both indexed and passed on in its own type (rustc's E0308 before: the hidden
// function held the field as a `&[f64]`, `expected &[f64; 3], found &&[f64]`).

#[differentiable]
fn use_k(k: &[f64; 3], x: f64) -> f64 {
    k[0] * x + k[2] * x * x
}

#[differentiable]
fn use_slice(k: &[f64], x: f64) -> f64 {
    k[0] * x + k[2] * x * x
}

#[differentiable]
fn use_grid(m: &[[f64; 2]; 2], x: f64) -> f64 {
    m[0][1] * x + m[1][0] * x * x
}

/// `k0 x + k2 x^2 + k1 a`.
#[differentiable]
fn array_field_to_array(p: &Joint, x: f64) -> f64 {
    use_k(&p.k, x) + p.k[1] * p.a
}

/// The same at `order = 2`.
#[differentiable(order = 2)]
fn array_field_to_array_twice(p: &Joint, x: f64) -> f64 {
    use_k(&p.k, x) + p.k[1] * p.a
}

#[differentiable]
fn array_field_to_slice(p: &Joint, x: f64) -> f64 {
    use_slice(&p.k, x) + p.k[1] * p.a
}

#[differentiable]
fn matrix_field_to_matrix(p: &Grid, x: f64) -> f64 {
    use_grid(&p.m, x) + p.m[1][1] * p.a
}

#[differentiable]
fn nested_array_field(p: &Outer, x: f64) -> f64 {
    use_k(&p.inner.k, x) + p.inner.k[1] * p.b
}

#[differentiable]
fn by_value_array_field(p: Joint, x: f64) -> f64 {
    use_k(&p.k, x) + p.k[1] * p.a
}

impl Joint {
    #[differentiable(wrt(self, x))]
    fn method_array_field(&self, x: f64) -> f64 {
        use_k(&self.k, x) + self.k[1] * self.a
    }
}

/// An `order = 2` caller passing the struct on whole to a first-order function with such a field.
#[differentiable(order = 2)]
fn passes_joint_on(p: &Joint, x: f64) -> f64 {
    array_field_to_array(p, x) * x
}

/// `k0 x + k2 x^2 + k1 a` and its gradient over `(k, a, x)`.
fn joint_formula(v: &[f64]) -> Flat {
    let (k, a, x) = ([v[0], v[1], v[2]], v[3], v[4]);
    vec![x, a, x * x, k[1], k[0] + 2.0 * k[2] * x]
}

#[test]
fn an_array_field_passed_to_a_callee_of_its_array_type() {
    probe_px(
        "array_field_to_array",
        4,
        joint,
        array_field_to_array,
        array_field_to_array_grad,
        array_field_to_array_jvp,
        array_field_to_array_grad_into,
    )
    .analytic(joint_formula)
    .run(POINTS, range(5, -1.5, 1.5));
    probe_px(
        "array_field_to_array_twice",
        4,
        joint,
        array_field_to_array_twice,
        array_field_to_array_twice_grad,
        array_field_to_array_twice_jvp,
        array_field_to_array_twice_grad_into,
    )
    .analytic(joint_formula)
    .hessian(hessian_px(4, joint, array_field_to_array_twice_hessian))
    .run(POINTS, range(5, -1.5, 1.5));
}

#[test]
fn an_array_field_passed_to_a_callee_of_a_slice() {
    probe_px(
        "array_field_to_slice",
        4,
        joint,
        array_field_to_slice,
        array_field_to_slice_grad,
        array_field_to_slice_jvp,
        array_field_to_slice_grad_into,
    )
    .analytic(joint_formula)
    .run(POINTS, range(5, -1.5, 1.5));
}

#[test]
fn a_matrix_field_passed_to_a_callee_of_its_type() {
    probe_px(
        "matrix_field_to_matrix",
        5,
        grid,
        matrix_field_to_matrix,
        matrix_field_to_matrix_grad,
        matrix_field_to_matrix_jvp,
        matrix_field_to_matrix_grad_into,
    )
    .analytic(|v| {
        let x = v[5];
        vec![0.0, x, x * x, v[4], v[3], v[1] + 2.0 * v[2] * x]
    })
    .run(POINTS, range(6, -1.5, 1.5));
}

#[test]
fn a_nested_structs_array_field_passed_on() {
    probe_px(
        "nested_array_field",
        5,
        outer,
        nested_array_field,
        nested_array_field_grad,
        nested_array_field_jvp,
        nested_array_field_grad_into,
    )
    .analytic(|v| {
        let mut g = joint_formula(&[v[0], v[1], v[2], v[4], v[5]]);
        // (k, b, x): the inner `a` is not read.
        g.insert(3, 0.0);
        g
    })
    .run(POINTS, range(6, -1.5, 1.5));
}

#[test]
fn an_array_field_of_a_struct_taken_by_value_or_of_self() {
    probe_px(
        "by_value_array_field",
        4,
        joint,
        |p, x| by_value_array_field(p.clone(), x),
        |p, x| by_value_array_field_grad(p.clone(), x),
        |p, x, t| by_value_array_field_jvp(p.clone(), x, t),
        |p, x, g| by_value_array_field_grad_into(p.clone(), x, g),
    )
    .analytic(joint_formula)
    .run(POINTS, range(5, -1.5, 1.5));
    probe_px(
        "method_array_field",
        4,
        joint,
        Joint::method_array_field,
        Joint::method_array_field_grad,
        Joint::method_array_field_jvp,
        Joint::method_array_field_grad_into,
    )
    .analytic(joint_formula)
    .run(POINTS, range(5, -1.5, 1.5));
}

#[test]
fn order_2_through_a_first_order_function_with_an_array_field() {
    probe_px(
        "passes_joint_on",
        4,
        joint,
        passes_joint_on,
        passes_joint_on_grad,
        passes_joint_on_jvp,
        passes_joint_on_grad_into,
    )
    .analytic(|v| {
        let x = v[4];
        let inner = joint_formula(v);
        let value = v[0] * x + v[2] * x * x + v[1] * v[3];
        let mut g: Flat = inner.iter().map(|d| d * x).collect();
        g[4] += value;
        g
    })
    .hessian(hessian_px(4, joint, passes_joint_on_hessian))
    .run(POINTS, range(5, -1.5, 1.5));
}

// --- Structs passed on whole to callees without a hidden function of their own (rustc's unresolved
// `__n9_whole` at the caller before: a callee writing an output parameter and reading a matrix field).

/// `out = [w00 x0 + b0, w11 x1 + b1]`.
#[differentiable]
fn affine_into(p: &Layer, x: &[f64], out: &mut [f64]) {
    out[0] = p.w[0][0] * x[0] + p.b[0];
    out[1] = p.w[1][1] * x[1] + p.b[1];
}

/// `(w00 x + b0)^2 + (w11 x + b1) (w01 + w10)`.
#[differentiable]
fn through_outputs_and_a_matrix(p: &Layer, x: f64) -> f64 {
    let xs = [x, x];
    let mut out = vec![0.0; 2];
    affine_into(p, &xs, &mut out);
    out[0] * out[0] + out[1] * (p.w[0][1] + p.w[1][0])
}

/// `out = [w0 x + b, w1 x]`.
#[differentiable]
fn lin_into(p: &Lin, x: f64, out: &mut [f64]) {
    out[0] = p.w[0] * x + p.b;
    out[1] = p.w[1] * x;
}

#[differentiable]
fn through_outputs(p: &Lin, x: f64) -> f64 {
    let mut out = vec![0.0; 2];
    lin_into(p, x, &mut out);
    out[0] * out[1]
}

/// The same at `order = 2`, through `lin_into`'s hidden function (its generic copy).
#[differentiable(order = 2)]
fn through_outputs_twice(p: &Lin, x: f64) -> f64 {
    let mut out = vec![0.0; 2];
    lin_into(p, x, &mut out);
    out[0] * out[1]
}

/// An array field passed on in a callee with outputs.
#[differentiable]
fn joint_into(p: &Joint, x: f64, out: &mut [f64]) {
    out[0] = use_k(&p.k, x);
    out[1] = p.k[1] * p.a;
}

#[differentiable]
fn through_joint_outputs(p: &Joint, x: f64) -> f64 {
    let mut out = vec![0.0; 2];
    joint_into(p, x, &mut out);
    out[0] + out[1]
}

/// A callee returning a tuple, reading a matrix field.
#[differentiable]
fn pair(p: &Layer, x: f64) -> (f64, f64) {
    (p.w[0][0] * x, p.b[1] * x)
}

#[differentiable]
fn through_a_pair(p: &Layer, x: f64) -> f64 {
    let (a, b) = pair(p, x);
    a * b + p.w[1][1]
}

/// A callee returning a `Vec`, reading a matrix field.
#[differentiable]
fn rows(p: &Layer, x: f64) -> Vec<f64> {
    let first = p.w[0][0] * x + p.b[0];
    let second = p.w[1][0] * x + p.b[1];
    vec![first, second]
}

#[differentiable]
fn through_rows(p: &Layer, x: f64) -> f64 {
    let y = rows(p, x);
    y[0] * y[1]
}

#[differentiable]
fn slice_dot(a: &[f64], b: &[f64]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// A callee with outputs that passes a field on whole.
#[differentiable]
fn field_on_into(p: &Layer, x: &[f64], out: &mut [f64]) {
    out[0] = slice_dot(&p.b, x);
}

#[differentiable]
fn through_a_field_passed_on(p: &Layer, x: f64) -> f64 {
    let xs = [x, 2.0 * x];
    let mut out = vec![0.0; 1];
    field_on_into(p, &xs, &mut out);
    out[0] * out[0]
}

impl Layer {
    /// A method with outputs reading a matrix field of `self`.
    #[differentiable(wrt(self))]
    fn apply_into(&self, x: f64, out: &mut [f64]) {
        out[0] = self.w[0][0] * x + self.b[0];
        out[1] = self.w[1][1] * x * x;
    }

    #[differentiable(wrt(self, x))]
    fn applied(&self, x: f64) -> f64 {
        let mut out = vec![0.0; 2];
        self.apply_into(x, &mut out);
        out[0] * out[1]
    }
}

#[test]
fn a_struct_passed_to_a_callee_with_outputs_reading_a_matrix_field() {
    probe_px(
        "through_outputs_and_a_matrix",
        6,
        layer,
        through_outputs_and_a_matrix,
        through_outputs_and_a_matrix_grad,
        through_outputs_and_a_matrix_jvp,
        through_outputs_and_a_matrix_grad_into,
    )
    .analytic(|v| {
        let (w, b, x) = ([[v[0], v[1]], [v[2], v[3]]], [v[4], v[5]], v[6]);
        let (o0, o1, s) = (w[0][0] * x + b[0], w[1][1] * x + b[1], w[0][1] + w[1][0]);
        vec![
            2.0 * o0 * x,
            o1,
            o1,
            s * x,
            2.0 * o0,
            s,
            2.0 * o0 * w[0][0] + s * w[1][1],
        ]
    })
    .run(POINTS, range(7, -1.5, 1.5));
}

#[test]
fn a_struct_passed_to_a_callee_with_outputs() {
    let formula = |v: &[f64]| {
        let (w, b, x) = ([v[0], v[1]], v[2], v[3]);
        let (o0, o1) = (w[0] * x + b, w[1] * x);
        vec![x * o1, o0 * x, o1, w[0] * o1 + o0 * w[1]]
    };
    probe_px(
        "through_outputs",
        3,
        lin,
        through_outputs,
        through_outputs_grad,
        through_outputs_jvp,
        through_outputs_grad_into,
    )
    .analytic(formula)
    .run(POINTS, range(4, -1.5, 1.5));
    probe_px(
        "through_outputs_twice",
        3,
        lin,
        through_outputs_twice,
        through_outputs_twice_grad,
        through_outputs_twice_jvp,
        through_outputs_twice_grad_into,
    )
    .analytic(formula)
    .hessian(hessian_px(3, lin, through_outputs_twice_hessian))
    .run(POINTS, range(4, -1.5, 1.5));
    // The callee's own items, its output checked against its formula.
    let p = lin(&[0.5, -1.25, 0.75]);
    let mut out = [GARBAGE; 2];
    let (dp, dx) = lin_into_vjp(&p, 1.5, &mut out, &[1.0, 2.0]);
    assert_vec_near(&out, &[0.5 * 1.5 + 0.75, -1.25 * 1.5], 1e-15, "lin_into");
    assert_vec_near(
        &flat((dp, dx)),
        &[1.5, 3.0, 1.0, 0.5 - 2.5],
        1e-15,
        "lin_into_vjp",
    );
}

#[test]
fn a_struct_passed_to_a_callee_with_outputs_passing_an_array_field_on() {
    probe_px(
        "through_joint_outputs",
        4,
        joint,
        through_joint_outputs,
        through_joint_outputs_grad,
        through_joint_outputs_jvp,
        through_joint_outputs_grad_into,
    )
    .analytic(joint_formula)
    .run(POINTS, range(5, -1.5, 1.5));
}

#[test]
fn a_struct_passed_to_callees_returning_a_tuple_or_a_vec() {
    probe_px(
        "through_a_pair",
        6,
        layer,
        through_a_pair,
        through_a_pair_grad,
        through_a_pair_jvp,
        through_a_pair_grad_into,
    )
    .analytic(|v| {
        let (w00, b1, x) = (v[0], v[5], v[6]);
        vec![
            b1 * x * x,
            0.0,
            0.0,
            1.0,
            0.0,
            w00 * x * x,
            2.0 * w00 * b1 * x,
        ]
    })
    .run(POINTS, range(7, -1.5, 1.5));
    probe_px(
        "through_rows",
        6,
        layer,
        through_rows,
        through_rows_grad,
        through_rows_jvp,
        through_rows_grad_into,
    )
    .analytic(|v| {
        let (w00, w10, b0, b1, x) = (v[0], v[2], v[4], v[5], v[6]);
        let (y0, y1) = (w00 * x + b0, w10 * x + b1);
        vec![x * y1, 0.0, y0 * x, 0.0, y1, y0, w00 * y1 + y0 * w10]
    })
    .run(POINTS, range(7, -1.5, 1.5));
}

#[test]
fn a_struct_passed_to_a_callee_with_outputs_passing_a_field_on_whole() {
    probe_px(
        "through_a_field_passed_on",
        6,
        layer,
        through_a_field_passed_on,
        through_a_field_passed_on_grad,
        through_a_field_passed_on_jvp,
        through_a_field_passed_on_grad_into,
    )
    .analytic(|v| {
        let (b0, b1, x) = (v[4], v[5], v[6]);
        let o = b0 * x + 2.0 * b1 * x;
        vec![
            0.0,
            0.0,
            0.0,
            0.0,
            2.0 * o * x,
            4.0 * o * x,
            2.0 * o * (b0 + 2.0 * b1),
        ]
    })
    .run(POINTS, range(7, -1.5, 1.5));
}

#[test]
fn a_method_calling_a_method_with_outputs_reading_a_matrix_field() {
    probe_px(
        "applied",
        6,
        layer,
        Layer::applied,
        Layer::applied_grad,
        Layer::applied_jvp,
        Layer::applied_grad_into,
    )
    .analytic(|v| {
        let (w00, w11, b0, x) = (v[0], v[3], v[4], v[6]);
        let (o0, o1) = (w00 * x + b0, w11 * x * x);
        vec![
            x * o1,
            0.0,
            0.0,
            o0 * x * x,
            o1,
            0.0,
            w00 * o1 + o0 * 2.0 * w11 * x,
        ]
    })
    .run(POINTS, range(7, -1.5, 1.5));
}
