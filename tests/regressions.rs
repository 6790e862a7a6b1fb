//! Cases from bug reports (wip/BUGS-*.md of the session that fixed them): integer slice parameters,
//! tuples returned from inside a loop, a `loop` left only by `return`, a call's `Vec` result used as an array.
// The functions reproduce the bug reports as they were written.
// `vec![p.b, 2.0 * p.b]` reproduces a report about fields read inside `vec!`.
#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::useless_vec
)]

use autodiff::{check_gradient, custom_gradient, differentiable, Float};

#[differentiable(wrt(w))]
pub fn loss(w: &[f64], data: &[f64], labels: &[usize]) -> f64 {
    let mut s = 0.0;
    for b in 0..labels.len() {
        s += w[labels[b]] * data[b];
    }
    s
}

#[differentiable]
pub fn first_pair(x: &[f64]) -> (f64, f64) {
    for i in 0..x.len() {
        if x[i] > 1.0 {
            return (x[i], x[i] * 2.0);
        }
    }
    (0.0, 0.0)
}

#[differentiable]
pub fn until_big(x: f64) -> f64 {
    let mut y = x;
    loop {
        y = y * 2.0;
        if y > 10.0 {
            return y * x;
        }
    }
}

#[differentiable]
pub fn squares(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        out.push(v * v);
    }
    out
}

#[differentiable]
pub fn sum_of_fourth_powers(x: &[f64]) -> f64 {
    let v = squares(x);
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[test]
fn fixes() {
    let (v, g) = loss_grad(&[1.0, 2.0], &[3.0, 4.0], &[1, 0]);
    assert_eq!(v, loss(&[1.0, 2.0], &[3.0, 4.0], &[1, 0]));
    assert_eq!(g, vec![4.0, 3.0]);
    let (v, g) = first_pair_vjp(&[0.5, 2.0], (1.0, 1.0));
    assert_eq!(v, first_pair(&[0.5, 2.0]));
    assert_eq!(g, vec![0.0, 3.0]);
    let (v, g) = until_big_grad(3.0);
    assert_eq!(v, until_big(3.0));
    assert_eq!(g, 24.0); // f = (4x) x at x = 3
    let (v, g) = sum_of_fourth_powers_grad(&[1.0, 2.0]);
    assert_eq!((v, g), (sum_of_fourth_powers(&[1.0, 2.0]), vec![4.0, 32.0]));
    assert_eq!(squares(&[3.0]), vec![9.0]);
}

// wip/BUGS-calls.md: a caller differentiates through every float parameter of a `wrt(..)` callee.
#[differentiable(wrt(x))]
pub fn restricted(x: f64, y: f64) -> f64 {
    x * y.sin()
}

#[differentiable]
pub fn calls_restricted(a: f64) -> f64 {
    restricted(a, a)
}

#[differentiable]
pub fn sumsq(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        s += v * v;
    }
    s
}

// A local fixed-size array passed to a callee taking `&[f64]`.
#[differentiable]
pub fn local_array(x: f64, y: f64) -> f64 {
    let v = [y, y * y, x];
    sumsq(&v)
}

// A custom gradient with a `Vec` output.
#[custom_gradient]
pub fn scale(x: &[f64], a: f64) -> (Vec<f64>, impl Fn(Vec<f64>) -> (Vec<f64>, f64)) {
    let xs = x.to_vec();
    let out: Vec<f64> = x.iter().map(|v| a * v).collect();
    (out, move |dy: Vec<f64>| {
        (
            dy.iter().map(|d| d * a).collect(),
            dy.iter().zip(&xs).map(|(d, v)| d * v).sum(),
        )
    })
}

#[differentiable]
pub fn sum_of_scaled_squares(x: &[f64], a: f64) -> f64 {
    let v: Vec<f64> = scale(x, a);
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

// Higher derivatives use a custom gradient, even a deliberately wrong one.
#[custom_gradient]
pub fn doubled_slope<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    (x * x, move |dy: T| dy * x * T::from(4.0).unwrap()) // the true slope is 2x
}

#[differentiable(order = 3)]
pub fn uses_doubled<T: Float>(x: T) -> T {
    doubled_slope(x)
}

#[test]
fn calls_and_custom_fixes() {
    let (v, g) = calls_restricted_grad(0.7);
    assert_eq!(v, calls_restricted(0.7));
    assert!((g - (0.7f64.sin() + 0.7 * 0.7f64.cos())).abs() < 1e-15);
    assert_eq!(calls_restricted_jvp(0.7, 1.0).1, g);
    assert_eq!(
        local_array_grad(0.5, 2.0),
        (local_array(0.5, 2.0), (1.0, 36.0))
    );
    assert_eq!(local_array_jvp(0.5, 2.0, (0.0, 1.0)).1, 36.0);
    let x = [1.0, 2.0];
    let (v, (gx, ga)) = sum_of_scaled_squares_grad(&x, 3.0);
    assert_eq!(v, sum_of_scaled_squares(&x, 3.0));
    assert_eq!(gx, vec![2.0 * 9.0 * 1.0, 2.0 * 9.0 * 2.0]);
    assert_eq!(ga, 2.0 * 3.0 * 5.0);
    assert_eq!(
        sum_of_scaled_squares_jvp(&x, 3.0, (vec![1.0, 0.0], 0.0)).1,
        gx[0]
    );
    assert_eq!(
        scale_jvp(&x, 3.0, (vec![1.0, 1.0], 1.0)).1,
        vec![3.0 + 1.0, 3.0 + 2.0]
    );
    // f = x² with the slope declared as 4x: f' = 4x, f'' = 4, f''' = 0.
    assert_eq!(uses_doubled_derivatives(1.5), [2.25, 6.0, 4.0, 0.0]);
    assert_eq!(uses_doubled(1.5), 2.25);
}

// wip/BUGS-docs.md: arrays made inside a loop body or a branch.

#[differentiable]
pub fn per_row_softmax_max(x: &[f64], rows: usize) -> f64 {
    let cols = x.len() / rows;
    let mut total = 0.0;
    for r in 0..rows {
        let mut e = vec![0.0; cols];
        let mut s = 0.0;
        for c in 0..cols {
            e[c] = x[r * cols + c].exp();
            s += e[c];
        }
        for c in 0..cols {
            total += e[c] / s * x[r * cols + c];
        }
    }
    total
}

#[differentiable]
pub fn fixed_inside(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        let t = [x[i], x[i] * x[i], 1.0];
        if t[0] > 0.0 {
            let u = [t[1] * 2.0, t[0]];
            total += u[0] * u[1];
        } else {
            total += t[2] * t[1];
        }
    }
    total
}

#[test]
fn arrays_made_in_regions() {
    let x = [0.3, -1.2, 0.8, 2.0, -0.5, 0.1];
    let (v, g) = per_row_softmax_max_grad(&x, 2);
    assert_eq!(v, per_row_softmax_max(&x, 2));
    let c = check_gradient(|x| per_row_softmax_max(x, 2), &x, &g);
    assert!(c.is_ok(1e-6), "{c}");
    let (v, g) = fixed_inside_grad(&x);
    assert_eq!(v, fixed_inside(&x));
    let c = check_gradient(fixed_inside, &x, &g);
    assert!(c.is_ok(1e-6), "{c}");
}

// The sliding window of reverse loops (reads at constant offsets from the index): a three-point stencil,
// a gap of two, and a range that may be empty.
#[differentiable]
pub fn stencil_energy(x: &[f64]) -> f64 {
    let mut e = 0.0;
    for i in 1..x.len() - 1 {
        let lap = x[i - 1] - 2.0 * x[i] + x[i + 1];
        e += lap * lap * x[i];
    }
    e
}

#[differentiable]
pub fn gap_two(x: &[f64], from: usize) -> f64 {
    let mut e = 0.0;
    for i in from..x.len() - 2 {
        e += x[i] * x[i + 2].sin();
    }
    e
}

#[test]
fn sliding_windows() {
    let x = [0.3, -1.2, 0.8, 2.0, -0.5, 0.1, 1.7];
    let (v, g) = stencil_energy_grad(&x);
    assert_eq!(v, stencil_energy(&x));
    let c = check_gradient(stencil_energy, &x, &g);
    assert!(c.is_ok(1e-6), "{c}");
    for from in [0, 2, 5, 9] {
        let (v, g) = gap_two_grad(&x, from.min(5));
        assert_eq!(v, gap_two(&x, from.min(5)));
        let c = check_gradient(|x| gap_two(x, from.min(5)), &x, &g);
        assert!(c.is_ok(1e-6), "{c}");
    }
}

// An accumulating outer loop around an inner loop that stores on a tape: the outer iterations must still
// be reversed backwards, since the inner tapes are popped in reverse.
#[differentiable]
pub fn rows_of_products(x: &[f64], cols: usize) -> f64 {
    let mut total = 0.0;
    for r in 0..x.len() / cols {
        let mut p = 1.0;
        for c in 0..cols {
            p *= x[r * cols + c];
        }
        total += p;
    }
    total * 2.0
}

#[test]
fn nested_tapes_keep_the_order() {
    let x = [0.3, -1.2, 0.8, 2.0, -0.5, 0.1, 1.7, 0.9, -0.4];
    let (v, g) = rows_of_products_grad(&x, 3);
    assert_eq!(v, rows_of_products(&x, 3));
    let c = check_gradient(|x| rows_of_products(x, 3), &x, &g);
    assert!(c.is_ok(1e-6), "{c}");
}

// wip/BUGS-edges.md: a fused loop keeps the gradient of an outer scalar it reads; a window is not used for
// reads under a guard.
#[differentiable]
pub fn scalar_param(a: f64, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += a * x[i];
    }
    s
}

#[differentiable]
pub fn two_loops(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    let mut t = 0.0;
    for i in 0..x.len() {
        t += s * x[i];
    }
    t
}

#[differentiable]
pub fn guarded_neighbours(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        if i >= 1 {
            s += x[i] * x[i - 1];
        }
        if i + 1 < x.len() {
            s += x[i] * x[i + 1].sin();
        }
    }
    s
}

#[test]
fn fused_outer_scalars_and_guarded_windows() {
    let x = [0.5, -0.4, 1.1];
    let (v, (ga, gx)) = scalar_param_grad(0.8, &x);
    assert_eq!(v, scalar_param(0.8, &x));
    assert!((ga - 1.2).abs() < 1e-12, "{ga}");
    assert!(gx.iter().all(|g| (g - 0.8).abs() < 1e-12));
    let c = check_gradient(two_loops, &x, &two_loops_grad(&x).1);
    assert!(c.is_ok(1e-6), "{c}");
    let c = check_gradient(guarded_neighbours, &x, &guarded_neighbours_grad(&x).1);
    assert!(c.is_ok(1e-6), "{c}");
    assert_eq!(
        guarded_neighbours_grad(&[0.3]).0,
        guarded_neighbours(&[0.3])
    );
}

/// A helper whose result type the macro cannot see at its call.
#[differentiable]
fn offset<T: Float>(xs: &[T], s: T) -> T {
    xs[0] * s
}

/// A value carried through a loop whose reverse runs inside its forward sweep, started from a call's result
/// (a type the syntax does not settle) and read by nothing after the loop: its zero adjoint, declared before
/// the loop, was typed by the carried value's name, declared only at the loop (E0425; found by
/// `autodiff-fuzz --seed 57 --programs 500`).
#[differentiable]
fn dead_carried_from_a_call<T: Float>(b: T, xs: &[T]) -> T {
    let mut t = offset(xs, b);
    for (i, &_v) in xs.iter().enumerate() {
        t = t + T::from(i).unwrap();
    }
    b * b * xs[1]
}

#[test]
fn a_dead_carried_value_started_by_a_call() {
    for x in [[0.5, -1.5, 2.0, 0.25], [1.5, 0.75, -0.5, 3.0]] {
        let (b, xs) = (x[0], &x[1..]);
        let (value, (gb, gxs)) = dead_carried_from_a_call_grad(b, xs);
        assert_eq!(value, b * b * xs[1]);
        assert!((gb - 2.0 * b * xs[1]).abs() < 1e-12, "{gb}");
        assert_eq!(gxs, vec![0.0, b * b, 0.0]);
        let g: Vec<f64> = [vec![gb], gxs].concat();
        let c = check_gradient(|p| dead_carried_from_a_call(p[0], &p[1..]), &x, &g);
        assert!(c.is_ok(1e-6), "{c}");
    }
}

/// `order = 2` on loops that bind a slice parameter's floats by reference (`for v in x.iter()`, `(i, v)`
/// over an `enumerate`, `(a, b)` over a `zip`): the generic copy takes them out of their references (the
/// contract audit found `cannot multiply &__S by &__S` there, where the first order compiled).
#[differentiable(order = 2)]
fn cubes_by_reference(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        s += v * v * *v;
    }
    for (i, v) in x.iter().enumerate() {
        s += v * i as f64;
    }
    s
}

#[differentiable]
fn neighbours_by_reference(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(&x[1..]) {
        s += a * b;
    }
    s
}

/// An `order = 2` caller of a first-order callee whose loop binds by reference.
#[differentiable(order = 2)]
fn calls_neighbours_by_reference(x: &[f64]) -> f64 {
    neighbours_by_reference(x) * x[0]
}

#[test]
fn second_order_of_loops_binding_floats_by_reference() {
    let x = [0.5, -1.25, 2.0];
    let (value, grad, hessian) = cubes_by_reference_hessian(&x);
    assert_eq!(value, cubes_by_reference(&x));
    assert_eq!(grad, vec![0.75, 3.0 * 1.5625 + 1.0, 12.0 + 2.0]);
    assert_eq!(
        hessian,
        vec![
            vec![3.0, 0.0, 0.0],
            vec![0.0, -7.5, 0.0],
            vec![0.0, 0.0, 12.0]
        ]
    );
    let (x0, x1, x2) = (x[0], x[1], x[2]);
    let (value, grad, hessian) = calls_neighbours_by_reference_hessian(&x);
    assert_eq!(value, calls_neighbours_by_reference(&x));
    let p = x0 * x1 + x1 * x2;
    assert_eq!(grad, vec![p + x0 * x1, x0 * (x0 + x2), x0 * x1]);
    assert_eq!(
        hessian,
        vec![
            vec![2.0 * x1, 2.0 * x0 + x2, x1],
            vec![2.0 * x0 + x2, 0.0, x0],
            vec![x1, x0, 0.0],
        ]
    );
}

/// The callee of `copies_a_typed_array` (`autodiff-fuzz --seed 9102`, program 15).
#[differentiable]
fn scaled_second(xs: &[f64], s: f64) -> f64 {
    xs[1] * s
}

/// A fixed-size array declared `[f64; 3]`, copied in a loop body: the adjoint buffer of the copy was
/// `[Zero::zero(); 3]`, whose type nothing fixed in the generic copy (made for `order = K` callers) when
/// the copy's elements are only written from a value that is then dropped: "type annotations needed".
/// The declared type now types the array's elements, and its copies'.
// The copy is written and never read, as the fuzzer wrote it.
#[allow(unused_assignments)]
#[differentiable]
fn copies_a_typed_array(a: f64, b: f64, ys: &[f64]) -> f64 {
    let mut k = 0;
    let mut kept = 0.0;
    while k < 2 {
        let zeros: [f64; 3] = [0.0; 3];
        let t = scaled_second(ys, 1.6 * a);
        let mut copy = zeros;
        copy[k + 1] += (t + copy[k + 1]).sin();
        kept += t * b;
        k += 1;
    }
    b.sin() + kept + a
}

#[differentiable(order = 2)]
fn calls_copies_a_typed_array(a: f64, b: f64, ys: &[f64]) -> f64 {
    copies_a_typed_array(a, b, ys) * a
}

#[test]
fn a_copy_of_a_declared_fixed_array_in_a_loop_has_typed_adjoint_zeros() {
    let ys = [0.5, -0.75, 2.0];
    for (a, b) in [(0.3, 0.4), (-1.2, 0.9), (2.0, -0.5)] {
        // kept = 2 b (1.6 a ys[1]); f = sin(b) + kept + a.
        let (value, (da, db, dys)) = copies_a_typed_array_grad(a, b, &ys);
        assert!((value - (b.sin() + 3.2 * a * b * ys[1] + a)).abs() < 1e-12);
        assert!((da - (3.2 * b * ys[1] + 1.0)).abs() < 1e-12);
        assert!((db - (b.cos() + 3.2 * a * ys[1])).abs() < 1e-12);
        assert!(dys[0] == 0.0 && dys[2] == 0.0 && (dys[1] - 3.2 * a * b).abs() < 1e-12);
        let value = calls_copies_a_typed_array(a, b, &ys);
        assert!((value - copies_a_typed_array(a, b, &ys) * a).abs() < 1e-12);
        // Second order through the generic copy: central differences of the gradient.
        let (_, _, hessian) = calls_copies_a_typed_array_hessian(a, b, &ys);
        let grad = |a: f64, b: f64| {
            let (_, (da, db, _)) = calls_copies_a_typed_array_grad(a, b, &ys);
            [da, db]
        };
        let h = 1e-5;
        let (ga, gb) = (
            [grad(a + h, b), grad(a - h, b)],
            [grad(a, b + h), grad(a, b - h)],
        );
        for j in 0..2 {
            let column_a = (ga[0][j] - ga[1][j]) / (2.0 * h);
            let column_b = (gb[0][j] - gb[1][j]) / (2.0 * h);
            assert!((hessian[0][j] - column_a).abs() < 1e-6, "{hessian:?}");
            assert!((hessian[1][j] - column_b).abs() < 1e-6, "{hessian:?}");
        }
    }
}

/// A function whose name ends in `_` (`tests/probe_ported.rs` found it): its generated items (`id__grad`,
/// `id__hessian`, ..) are not snake case, which warned in the user's crate (and failed `clippy -D
/// warnings`); they now allow it, as the user's own name is the user's business.
#[differentiable(order = 2)]
fn id_(x: f64, v: &[f64]) -> f64 {
    x * x * v[0] + v[1]
}

#[test]
fn a_name_ending_in_an_underscore_derives_without_warnings() {
    let v = [3.0, -2.0];
    let (value, (dx, dv)) = id__grad(1.5, &v);
    assert_eq!(value, id_(1.5, &v));
    assert_eq!(value, 1.5 * 1.5 * 3.0 - 2.0);
    assert_eq!((dx, &dv), (2.0 * 1.5 * 3.0, &vec![1.5 * 1.5, 1.0]));
    let (_, _, hessian) = id__hessian(1.5, &v);
    assert_eq!(hessian[0], vec![6.0, 3.0, 0.0]);
    let mut buffers = (f64::NAN, vec![f64::NAN; 2]);
    id__grad_into(1.5, &v, (&mut buffers.0, &mut buffers.1));
    assert_eq!(buffers, (dx, dv));
}

// A `.fold(..)` whose closure types its accumulator (`|m: f64, v| m.max(..)`) with an untyped initial
// value: the generated loop kept `let mut acc = 0.0;` and dropped the annotation, so `m.max(..)` was a
// method call on an ambiguous `{float}` in the generated code (E0689). In a module of its own, without
// `Float` in scope (whose `max` would settle the type). At `order = 2` every item goes through the
// generic copy, which typed it already.
pub mod typed_fold {
    use autodiff::differentiable;

    #[differentiable]
    pub fn norm_inf(x: &[f64]) -> f64 {
        x.iter().fold(0.0, |m: f64, v| m.max(v.abs()))
    }
}

#[test]
fn a_fold_closure_annotating_its_accumulator_types_the_generated_accumulator() {
    let x = [0.5, -3.0, 2.0];
    let (v, g) = typed_fold::norm_inf_grad(&x);
    assert_eq!(v, 3.0);
    assert_eq!(g, vec![0.0, -1.0, 0.0]);
    let (_, d) = typed_fold::norm_inf_jvp(&x, vec![1.0, 2.0, 3.0]);
    assert_eq!(d, -2.0);
}

/// A parameter struct with an integer field that the bodies below use only as a length.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Sized2 {
    pub w: Vec<f64>,
    pub b: f64,
    #[no_grad]
    pub n: usize,
}

#[differentiable(wrt(p, x))]
pub fn sized_into(p: &Sized2, x: &[f64], y: &mut [f64]) {
    for i in 0..y.len() {
        y[i] = p.w[i] * x[i] + p.b;
    }
}

// `let n = p.n; vec![0.0; n]` with `p` passed on whole to a call: the hidden function over the struct's
// values view took `n` for a float (a `vec!` length was not among the integer uses), and read it from the
// view: `vec![0.0; n]` with `n: f64` in the generated code (E0308).
#[differentiable(wrt(p))]
pub fn sized_through_call(p: &Sized2, x: &[f64]) -> f64 {
    let n = p.n;
    let mut y = vec![0.0; n];
    sized_into(p, x, &mut y);
    y[0] * y[1]
}

// `vec![0.0; p.n]` read the field inside the macro's tokens, which the struct's rewriting did not visit:
// a spanned "named fields are not supported" error on a read that API.md allows.
#[differentiable(order = 2, wrt(p))]
pub fn sized_vec_of_field(p: &Sized2, x: &[f64]) -> f64 {
    let mut y = vec![0.0; p.n];
    let z = vec![p.b, 2.0 * p.b];
    for i in 0..y.len() {
        y[i] = p.w[i] * x[i] + z[i];
    }
    y[0] * y[1]
}

#[test]
fn an_integer_field_used_as_a_vec_length_stays_an_integer() {
    let p = Sized2 {
        w: vec![1.0, 2.0],
        b: 0.5,
        n: 2,
    };
    let x = [1.0, -3.0];
    // y = (w0 x0 + b, w1 x1 + b) = (1.5, -5.5).
    let (v, g) = sized_through_call_grad(&p, &x);
    assert_eq!(v, 1.5 * -5.5);
    assert_eq!(g.w, vec![x[0] * -5.5, 1.5 * x[1]]);
    assert_eq!(g.b, -5.5 + 1.5);
    assert_eq!(g.n, 2);
    // y = (w0 x0 + b, w1 x1 + 2b) = (1.5, -5).
    let (v, g, h) = sized_vec_of_field_hessian(&p, &x);
    assert_eq!(v, -7.5);
    assert_eq!((g.w, g.b), (vec![-5.0, -4.5], -5.0 + 2.0 * 1.5));
    assert_eq!(
        h,
        vec![
            vec![0.0, x[0] * x[1], 2.0 * x[0]],
            vec![x[0] * x[1], 0.0, x[1]],
            vec![2.0 * x[0], x[1], 4.0],
        ]
    );
}

/// Back substitution for an upper triangular `u`, by `(0..n).rev()`.
#[differentiable]
pub fn back_substitute(u: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut s = b[i];
        for j in i + 1..n {
            s -= u[i][j] * x[j];
        }
        x[i] = s / u[i][i];
    }
    x
}

// An `order = 2` caller of an `f64` function that loops over `(0..n).rev()`: the callee had no generic
// copy (`.rev()` was taken for an iterator handing out references), and the error's advice, to give the
// callee `order = 2`, is refused for a function returning a `Vec`.
#[differentiable(order = 2)]
pub fn back_substituted_sum(u: &[Vec<f64>], b: &[f64]) -> f64 {
    let x = back_substitute(u, b);
    x[0] + 2.0 * x[1]
}

#[test]
fn an_order_2_caller_reaches_an_f64_callee_over_a_reversed_range() {
    let u = vec![vec![2.0, 1.0], vec![0.0, 4.0]];
    let b = [1.0, 2.0];
    // x1 = b1 / u11, x0 = (b0 - u01 x1) / u00; f = x0 + 2 x1 = b0 / u00 + b1 (2 - u01 / u00) / u11.
    let (v, (_, gb), h) = back_substituted_sum_hessian(&u, &b);
    assert_eq!(v, (1.0 - 0.5) / 2.0 + 2.0 * 0.5);
    assert_eq!(gb, vec![0.5, (2.0 - 0.5) / 4.0]);
    // Columns (u00, u01, u10, u11, b0, b1); d2f/du00db0 = -1/u00^2.
    assert_eq!(h[0][4], -0.25);
    assert_eq!(h[4][5], 0.0);
}

// A method called on a float output parameter `y: &mut f64` (`y.sqrt()`, which Rust auto-derefs): the
// macro holds such an output as a slice of one element and rewrote `*y` into `y[0]`, but not a bare
// receiver, so `y.sqrt()` got the spanned error "`.sqrt()` is not supported on a slice or `Vec`".
#[differentiable]
pub fn norm_into(x: &[f64], y: &mut f64) {
    *y = 0.0;
    for &v in x {
        *y += v * v;
    }
    *y = y.sqrt();
}

#[test]
fn a_method_on_a_float_output_parameter_reads_its_value() {
    let x = [0.6, -0.8, 1.2];
    let r = (0.36_f64 + 0.64 + 1.44).sqrt();
    // The incoming `y` is not read (`*y = 0.0` comes before the loop's `+=`): no gradient for it, as
    // API.md's `G` says, and a NaN going in shows nowhere.
    let mut y = f64::NAN;
    let gx: Vec<f64> = norm_into_vjp(&x, &mut y, 1.0);
    assert_eq!(y, r);
    for i in 0..3 {
        assert!((gx[i] - x[i] / r).abs() < 1e-15, "{gx:?}");
    }
}
