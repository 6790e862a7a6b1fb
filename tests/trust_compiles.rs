//! Valid programs whose generated code once failed to compile (or made the macro panic), each checked
//! against an independent oracle: the derivative written by hand, or central differences.
//!
//! This file imports no float trait (`Float` is named by its path): with `num_traits::Float` in scope,
//! rustc resolves a method call on an untyped float literal (`1.0.max(0.5)`) through the trait, and a
//! generated literal that lost its type would go unnoticed.

// Index loops and late initialisation are the forms the programs were written in.
#![allow(
    clippy::needless_range_loop,
    clippy::needless_late_init,
    clippy::vec_init_then_push
)]

mod common;

use autodiff::differentiable;
use common::*;
use proptest::prelude::*;

// ---- raw identifiers ----

/// A function and its parameter named by raw identifiers: the generated items are `loop_grad`, ..
#[differentiable]
fn r#loop(r#in: f64) -> f64 {
    r#in * r#in.sin()
}

/// Raw identifiers as parameters, locals and a loop's carried value (whose tape name derives from it).
#[differentiable]
fn raw_names(r#type: &[f64], r#in: f64) -> f64 {
    let mut r#match = r#in;
    for i in 0..r#type.len() {
        r#match = r#match * r#type[i] + r#in;
    }
    r#match.sin()
}

/// The same with `order = 2`, whose generic shadow is named after the function.
#[differentiable(order = 2)]
fn r#fn(r#in: f64, r#ref: f64) -> f64 {
    r#in * r#in.sin() * r#ref
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn raw_identifiers(x in moderate(), y in moderate(), w in prop::collection::vec(-1.5..1.5_f64, 0..4), t in tangents()) {
        check_scalar(
            "r#loop",
            |v| r#loop(v[0]),
            &[x],
            (loop_grad(x), |c| loop_vjp(x, c), |t| loop_jvp(x, t)),
            &[x.sin() + x * x.cos()],
            &t,
        );

        let (value, (dw, dx)) = raw_names_grad(&w, x);
        assert_eq!(value, raw_names(&w, x));
        let at: Vec<f64> = w.iter().copied().chain([x]).collect();
        let grad: Vec<f64> = dw.iter().copied().chain([dx]).collect();
        assert_fd_gradient(|v| raw_names(&v[..w.len()], v[w.len()]), &at, &grad, "raw_names");

        let (value, grad, hv) = fn_hvp(x, y, (t[0], t[1]));
        assert_eq!(value, r#fn(x, y));
        let d_in = x.sin() + x * x.cos();
        assert_all_close(&grad.to_vec(), &[d_in * y, x * x.sin()], ANALYTIC_TOL, "r#fn gradient");
        // f = g(x) y with g = x sin x: H = [[g'' y, g'], [g', 0]].
        let g2 = 2.0 * x.cos() - x * x.sin();
        let expected = [g2 * y * t[0] + d_in * t[1], d_in * t[0]];
        assert_all_close(&hv.to_vec(), &expected, ANALYTIC_TOL, "r#fn Hessian-vector product");
    }
}

// ---- items ----

/// A `const` after an `if` whose `else` returns early: the statements after the `if` are lowered once
/// for each branch that reaches them, and the item must still be declared once.
#[differentiable]
fn const_after_early_return(a: f64) -> f64 {
    let y;
    if a > 0.0 {
        y = a * a;
    } else {
        if a < -2.0 {
            return -a;
        }
        y = a.sin();
    }
    const K: f64 = 2.5;
    K * y
}

fn const_after_early_return_derivative(a: f64) -> f64 {
    if a > 0.0 {
        5.0 * a
    } else if a < -2.0 {
        -1.0
    } else {
        2.5 * a.cos()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn const_item_in_every_branch(a in -4.0..4.0_f64, t in tangents()) {
        prop_assume!(a.abs() > 1e-3 && (a + 2.0).abs() > 1e-3);
        check_scalar(
            "const_after_early_return",
            |v| const_after_early_return(v[0]),
            &[a],
            (
                const_after_early_return_grad(a),
                |c| const_after_early_return_vjp(a, c),
                |t| const_after_early_return_jvp(a, t),
            ),
            &[const_after_early_return_derivative(a)],
            &t,
        );
    }
}

// ---- array results that no active input reaches ----

/// A returned `Vec` that does not depend on the active input.
#[differentiable]
fn constant_vec(_a: f64) -> Vec<f64> {
    let z = vec![1.0; 2];
    z
}

/// The same where the input decides the elements only through a comparison (zero derivative).
#[differentiable]
fn steps(a: f64, n: usize) -> Vec<f64> {
    let mut z = vec![0.0; n];
    for i in 0..n {
        z[i] = if a > i as f64 { 1.0 } else { -1.0 };
    }
    z
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn constant_array_results(a in moderate(), n in 0..5_usize, c in tangent(), t in tangent()) {
        assert_eq!(constant_vec_vjp(a, vec![c, c]), (constant_vec(a), 0.0));
        assert_eq!(constant_vec_jvp(a, t), (vec![1.0, 1.0], vec![0.0, 0.0]));
        prop_assume!((a - a.round()).abs() > 1e-6);
        let value = steps(a, n);
        assert_eq!(steps_vjp(a, n, vec![c; n]), (value.clone(), 0.0));
        assert_eq!(steps_jvp(a, n, t), (value, vec![0.0; n]));
        // Central differences agree: the result is flat in `a` away from the integers.
        for i in 0..n {
            let h = 1e-7;
            assert_eq!(steps(a + h, n)[i], steps(a - h, n)[i]);
        }
    }
}

// ---- `let` annotations: the declared type reaches the generated code ----

/// A constant declared `f64`, then a method on it: the generated code has no annotation, so the literal
/// must carry the type.
#[differentiable]
fn annotated_constant(a: f64) -> f64 {
    let s: f64 = 1.0;
    let n: f64 = -0.25;
    a * s.max(0.5) + n.abs() * a.sin()
}

/// An array declared `Vec<f64>` whose elements are literals.
#[differentiable]
fn annotated_vec(a: f64) -> f64 {
    let z: Vec<f64> = vec![0.5; 2];
    let w: [f64; 2] = [0.25, 2.0];
    a * z[0].exp() + w[1].ln() * a * a
}

/// A value of literals alone, declared `f64`, and a tuple of constants declared `(f64, f32)`.
#[differentiable]
fn annotated_value(a: f64) -> f64 {
    let s: f64 = 1.5 * 2.0;
    let (p, q): (f64, f32) = (0.5, 2.0);
    a * s.sqrt() + p.exp() * a * f64::from(q.sqrt())
}

/// The same in an `f32` function, in a loop whose carried value starts from a declared constant.
#[differentiable]
fn annotated_f32(a: f32, n: usize) -> f32 {
    let mut acc: f32 = 0.5;
    for _ in 0..n {
        let k: f32 = 2.0 * 0.5;
        acc = acc * a + k.exp();
    }
    acc
}

/// And in a function with `order = 2`, whose generic shadow rewrites the annotation.
#[differentiable(order = 2)]
fn annotated_order2(a: f64) -> f64 {
    let s: f64 = 1.0;
    let z: Vec<f64> = vec![0.5; 2];
    a * a * s.max(0.5) * z[1].exp()
}

// ---- `Vec::new()` and `Vec::with_capacity(n)` with a declared type ----

#[differentiable]
fn annotated_new(a: f64) -> f64 {
    let mut z: Vec<f64> = Vec::new();
    z.push(a * a);
    z.push(a.sin());
    z[0] + z[1] * z[0]
}

#[differentiable]
fn annotated_with_capacity<T: autodiff::Float>(x: &[T]) -> T {
    let mut z: Vec<T> = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        z.push(x[i] * x[i]);
    }
    let mut s = T::zero();
    for i in 0..z.len() {
        s = s + z[i] * x[i];
    }
    s
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn let_annotations(a in moderate(), n in 0..4_usize, t in tangents()) {
        check_scalar(
            "annotated_constant",
            |v| annotated_constant(v[0]),
            &[a],
            (annotated_constant_grad(a), |c| annotated_constant_vjp(a, c), |t| annotated_constant_jvp(a, t)),
            &[1.0 + 0.25 * a.cos()],
            &t,
        );
        check_scalar(
            "annotated_vec",
            |v| annotated_vec(v[0]),
            &[a],
            (annotated_vec_grad(a), |c| annotated_vec_vjp(a, c), |t| annotated_vec_jvp(a, t)),
            &[0.5_f64.exp() + 2.0 * 2.0_f64.ln() * a],
            &t,
        );
        check_scalar(
            "annotated_value",
            |v| annotated_value(v[0]),
            &[a],
            (annotated_value_grad(a), |c| annotated_value_vjp(a, c), |t| annotated_value_jvp(a, t)),
            &[3.0_f64.sqrt() + 0.5_f64.exp() * f64::from(2.0_f32.sqrt())],
            &t,
        );
        // acc_n = 0.5 a^n + e (a^(n-1) + .. + 1): d/da by hand.
        let a32 = a as f32;
        let e = 1.0_f64.exp();
        let ad = f64::from(a32);
        let derivative = 0.5 * n as f64 * ad.powi(n as i32 - 1)
            + e * (1..n).map(|k| k as f64 * ad.powi(k as i32 - 1)).sum::<f64>();
        check_scalar_f32(
            annotated_f32(a32, n),
            (
                annotated_f32_grad(a32, n),
                |c| annotated_f32_vjp(a32, n, c),
                |t| annotated_f32_jvp(a32, n, t),
            ),
            &[derivative],
            &t,
        );
        let (value, grad, hv) = annotated_order2_hvp(a, t[0]);
        let k = 0.5_f64.exp();
        assert_eq!(value, annotated_order2(a));
        assert_close(grad, 2.0 * a * k, ANALYTIC_TOL, "annotated_order2 gradient");
        assert_close(hv, 2.0 * k * t[0], ANALYTIC_TOL, "annotated_order2 hvp");
        check_scalar(
            "annotated_new",
            |v| annotated_new(v[0]),
            &[a],
            (annotated_new_grad(a), |c| annotated_new_vjp(a, c), |t| annotated_new_jvp(a, t)),
            &[2.0 * a + a.cos() * a * a + a.sin() * 2.0 * a],
            &t,
        );
    }

    #[test]
    fn typed_vec_constructors((x, tx) in vec_with_tangent(moderate(), 0..5)) {
        let (value, grad) = annotated_with_capacity_grad(&x);
        assert_eq!(value, annotated_with_capacity(&x));
        let cubes: Vec<f64> = x.iter().map(|v| 3.0 * v * v).collect();
        assert_all_close(&grad, &cubes, ANALYTIC_TOL, "annotated_with_capacity gradient");
        assert_fd_gradient(annotated_with_capacity, &x, &grad, "annotated_with_capacity");
        let (_, dot) = annotated_with_capacity_jvp(&x, tx.clone());
        assert_dot(dot, &grad, &tx, ANALYTIC_TOL, "annotated_with_capacity jvp");
        // f32 and dual numbers run the same generic code.
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (_, grad32) = annotated_with_capacity_grad(&x32);
        let grad32: Vec<f64> = grad32.iter().map(|&g| f64::from(g)).collect();
        let cubes32: Vec<f64> = x32.iter().map(|&v| 3.0 * f64::from(v) * f64::from(v)).collect();
        assert_all_close(&grad32, &cubes32, ANALYTIC_TOL_F32, "annotated_with_capacity f32 gradient");
    }
}

// ---- zeros take their type from the value they are the derivative of ----

#[differentiable]
fn square<T: autodiff::Float>(b: T) -> T {
    b * b
}

/// An accumulator that starts from a constant and adds a call's result in a loop: its tangent starts
/// as a zero whose type nothing near it settles.
#[differentiable]
fn accumulate_calls<T: autodiff::Float>(b: T) -> T {
    let mut acc: T = T::from(0.0).unwrap();
    for _ in 0..4 {
        acc = acc + square(b);
    }
    acc * b
}

/// The same in an `f64` function with `order = 2`, whose generic shadow is differentiated twice.
#[differentiable(order = 2)]
fn accumulate_calls_order2(b: f64) -> f64 {
    let mut acc: f64 = 0.0;
    for _ in 0..4 {
        acc += square(b);
    }
    acc * b
}

/// The same through a `while` loop and a branch that keeps the accumulator.
#[differentiable]
fn accumulate_some<T: autodiff::Float>(b: &[T]) -> T {
    let mut acc = T::zero();
    let mut i = 0;
    while i < b.len() {
        if b[i] > acc {
            acc = square(b[i]);
        }
        i += 1;
    }
    acc
}

/// `log Σ exp z[k]`, shifted by the maximum.
#[differentiable]
fn logsumexp(z: &[f64]) -> f64 {
    let mut m = z[0];
    for k in 1..z.len() {
        if z[k] > m {
            m = z[k];
        }
    }
    let mut s = 0.0;
    for k in 0..z.len() {
        s += (z[k] - m).exp();
    }
    m + s.ln()
}

/// The shape of ADBench's GMM objective (unit covariances): for each point, one term per component in a
/// local array, whose `logsumexp` is accumulated.
#[differentiable]
fn gmm_like(alphas: &[f64], means: &[f64], x: &[f64], d: usize) -> f64 {
    let k = alphas.len();
    let n = x.len() / d;
    let mut main_term = vec![0.0; k];
    let mut loss = 0.0;
    for i in 0..n {
        for c in 0..k {
            let mut sq = 0.0;
            for j in 0..d {
                let diff = x[i * d + j] - means[c * d + j];
                sq += diff * diff;
            }
            main_term[c] = alphas[c] - 0.5 * sq;
        }
        loss += logsumexp(&main_term);
    }
    loss - (n as f64) * logsumexp(alphas)
}

/// An input and its tangent.
type WithTangent = (Vec<f64>, Vec<f64>);

/// A GMM problem: `d` dimensions, `k` components, `n` points, each input with a tangent.
fn gmm_problem() -> impl Strategy<Value = (usize, [WithTangent; 3])> {
    (1..4_usize, 1..4_usize, 1..4_usize).prop_flat_map(|(d, k, n)| {
        let input = move |len: usize| {
            (
                prop::collection::vec(-2.0..2.0_f64, len),
                prop::collection::vec(tangent(), len),
            )
        };
        (Just(d), [input(k), input(k * d), input(n * d)])
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn zeros_typed_by_their_primal(b in moderate(), t in tangent(), xs in prop::collection::vec(moderate(), 1..5)) {
        // 4 b² · b = 4 b³.
        let (value, grad) = accumulate_calls_grad(b);
        assert_eq!(value, accumulate_calls(b));
        assert_close(grad, 12.0 * b * b, ANALYTIC_TOL, "accumulate_calls gradient");
        let (_, dot) = accumulate_calls_jvp(b, t);
        assert_close(dot, 12.0 * b * b * t, ANALYTIC_TOL, "accumulate_calls jvp");
        let (_, dot32) = accumulate_calls_jvp(b as f32, t as f32);
        let b32 = f64::from(b as f32);
        assert_close(f64::from(dot32), 12.0 * b32 * b32 * f64::from(t as f32), ANALYTIC_TOL_F32, "f32 jvp");

        let (value, grad, hv) = accumulate_calls_order2_hvp(b, t);
        assert_eq!(value, accumulate_calls_order2(b));
        assert_close(grad, 12.0 * b * b, ANALYTIC_TOL, "accumulate_calls_order2 gradient");
        assert_close(hv, 24.0 * b * t, ANALYTIC_TOL, "accumulate_calls_order2 hvp");
        let (_, dot) = accumulate_calls_order2_jvp(b, t);
        assert_close(dot, 12.0 * b * b * t, ANALYTIC_TOL, "accumulate_calls_order2 jvp");

        prop_assume!(min_gap(&xs) > 1e-3 && xs.iter().all(|x| x.abs() > 1e-3));
        let (value, grad) = accumulate_some_grad(&xs);
        assert_eq!(value, accumulate_some(&xs));
        assert_fd_gradient(accumulate_some, &xs, &grad, "accumulate_some");
        let tx: Vec<f64> = (0..xs.len()).map(|i| TANGENT[i % 3]).collect();
        let (_, dot) = accumulate_some_jvp(&xs, tx.clone());
        assert_dot(dot, &grad, &tx, ANALYTIC_TOL, "accumulate_some jvp");
    }

    #[test]
    fn gmm_objective((d, [(alphas, ta), (means, tm), (x, tx)]) in gmm_problem()) {
        let (k, dk) = (alphas.len(), means.len());
        let split = |v: &[f64]| (v[..k].to_vec(), v[k..k + dk].to_vec(), v[k + dk..].to_vec());
        let objective = |v: &[f64]| {
            let (a, m, x) = split(v);
            gmm_like(&a, &m, &x, d)
        };
        let at: Vec<f64> = [alphas.clone(), means.clone(), x.clone()].concat();
        let tangent = [ta.clone(), tm.clone(), tx.clone()].concat();

        // The tangent against a central difference along it.
        let (value, dot) = gmm_like_jvp(&alphas, &means, &x, d, (ta, tm, tx));
        assert_eq!(value, gmm_like(&alphas, &means, &x, d));
        let along = |h: f64| {
            let moved: Vec<f64> = at.iter().zip(&tangent).map(|(v, t)| v + h * t).collect();
            objective(&moved)
        };
        assert_close(dot, central_difference(along, 0.0), 1e-6, "gmm_like jvp vs central difference");

        // The gradient against central differences, with one point and with several (`main_term` is
        // overwritten for each point after `logsumexp` read it: the reverse sweep reads the copy stored at
        // the call).
        let (value, (ga, gm, gx)) = gmm_like_grad(&alphas, &means, &x, d);
        assert_eq!(value, gmm_like(&alphas, &means, &x, d));
        let grad = [ga, gm, gx].concat();
        assert_fd_gradient(objective, &at, &grad, "gmm_like gradient");
        assert_dot(dot, &grad, &tangent, ANALYTIC_TOL, "gmm_like jvp vs gradient");
    }
}

/// Two points of one dimension: `logsumexp` must see each point's `main_term`.
#[test]
fn gmm_gradient_several_points() {
    let (alphas, means, x) = ([0.3, -0.2], [0.1, 0.8], [0.5, -0.4]);
    let at: Vec<f64> = [&alphas[..], &means[..], &x[..]].concat();
    let (_, (ga, gm, gx)) = gmm_like_grad(&alphas, &means, &x, 1);
    let grad = [ga, gm, gx].concat();
    assert_fd_gradient(
        |v| gmm_like(&v[..2], &v[2..4], &v[4..], 1),
        &at,
        &grad,
        "gmm_like gradient",
    );
}

// ---- calls through a function pointer ----

/// A call through a function-pointer parameter, held constant by `stop_gradient` (an unwrapped call
/// with an active argument is a compile error: `tests/ui/activity/call-through-parameter.rs`), and one
/// whose arguments are constants, which needs no derivative.
#[differentiable]
fn weighted(f: fn(f64) -> f64, x: f64, n: usize) -> f64 {
    x * autodiff::stop_gradient(f(x)) + f(n as f64) * x.sin()
}

fn cube(v: f64) -> f64 {
    v * v * v
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn function_pointer_calls(x in moderate(), n in 0..4_usize, t in tangents()) {
        let k = cube(n as f64);
        check_scalar(
            "weighted",
            |v| cube(x) * v[0] + k * v[0].sin(),
            &[x],
            (weighted_grad(cube, x, n), |c| weighted_vjp(cube, x, n, c), |t| weighted_jvp(cube, x, n, t)),
            &[cube(x) + k * x.cos()],
            &t,
        );
        assert_eq!(weighted(cube, x, n), x * cube(x) + k * x.sin());
    }
}

// ---- `return` inside a loop that gives a value ----

/// `return` inside a `loop` whose `break` gives the value of a `let`.
#[differentiable]
fn return_from_loop_value(a: f64) -> f64 {
    let mut b = a;
    let r = loop {
        if b > 1.0 {
            return b * a;
        }
        b += 0.75;
        if b > 0.0 {
            break b * b;
        }
    };
    r * a
}

fn return_from_loop_value_oracle(a: f64) -> (f64, f64) {
    // Each pass adds 0.75 until b > 1 (return b a) or b > 0 (break b²); b = a + 0.75 m after m passes.
    let mut m = 0.0;
    loop {
        let b = a + 0.75 * m;
        if b > 1.0 {
            return (b * a, b + a);
        }
        let next = b + 0.75;
        if next > 0.0 {
            return (next * next * a, 2.0 * next * a + next * next);
        }
        m += 1.0;
    }
}

/// The same inside an outer loop, with a typed pattern.
#[differentiable]
fn return_from_inner_loop_value(a: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut b = a * (i as f64 + 1.0);
        let r: f64 = loop {
            if b > 2.0 {
                return s + b;
            }
            b = b * 0.5 + 1.0;
            if b > 1.0 {
                break b.sin();
            }
        };
        s += r;
    }
    s
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn return_inside_value_loop(a in -3.0..3.0_f64, n in 0..4_usize, t in tangents()) {
        let (_, derivative) = return_from_loop_value_oracle(a);
        check_scalar(
            "return_from_loop_value",
            |v| return_from_loop_value(v[0]),
            &[a],
            (return_from_loop_value_grad(a), |c| return_from_loop_value_vjp(a, c), |t| return_from_loop_value_jvp(a, t)),
            &[derivative],
            &t,
        );
        let (value, grad) = return_from_inner_loop_value_grad(a, n);
        assert_eq!(value, return_from_inner_loop_value(a, n));
        let h = 1e-6;
        let f = |x: f64| return_from_inner_loop_value(x, n);
        // Away from the points where a comparison flips, where central differences see a jump.
        if (f(a + h) - 2.0 * f(a) + f(a - h)).abs() < 1e-6 {
            assert_fd_gradient(|v| f(v[0]), &[a], &[grad], "return_from_inner_loop_value");
        }
        let (_, dot) = return_from_inner_loop_value_jvp(a, n, t[0]);
        assert_close(dot, grad * t[0], ANALYTIC_TOL, "return_from_inner_loop_value jvp");
    }
}

// ---- arrays made by a call or a copy inside a branch (after an early return) or a loop body ----

#[differentiable]
fn pair(a: f64) -> Vec<f64> {
    vec![a, a * a]
}

/// After an early return, the rest of the function is the `else` branch: the array a call makes there
/// is out of scope in the reverse sweep, which sizes its adjoint by the stored length.
#[differentiable]
fn call_after_return(a: f64) -> f64 {
    if a > 2.0 {
        return a;
    }
    let z = pair(a);
    z[0] * z[1].sin()
}

/// The same with copies of a local array (`.clone()` and `.to_vec()`).
#[differentiable]
fn copy_after_return(a: f64) -> f64 {
    let z2 = vec![a, 2.0 * a];
    if a > 2.0 {
        return a;
    }
    let z = z2.clone();
    let w = z.to_vec();
    z[0] * w[1]
}

/// An array made by a call in every iteration of a loop.
#[differentiable]
fn call_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let z = pair(x[i]);
        s += z[0] * z[1];
    }
    s
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arrays_made_in_regions(a in moderate(), t in tangents(), (x, tx) in vec_with_tangent(moderate(), 0..5)) {
        prop_assume!((a - 2.0).abs() > 1e-3);
        let (d_call, d_copy) = if a > 2.0 {
            (1.0, 1.0)
        } else {
            ((a * a).sin() + 2.0 * a * a * (a * a).cos(), 4.0 * a)
        };
        check_scalar(
            "call_after_return",
            |v| call_after_return(v[0]),
            &[a],
            (call_after_return_grad(a), |c| call_after_return_vjp(a, c), |t| call_after_return_jvp(a, t)),
            &[d_call],
            &t,
        );
        check_scalar(
            "copy_after_return",
            |v| copy_after_return(v[0]),
            &[a],
            (copy_after_return_grad(a), |c| copy_after_return_vjp(a, c), |t| copy_after_return_jvp(a, t)),
            &[d_copy],
            &t,
        );
        let (value, grad) = call_in_loop_grad(&x);
        assert_eq!(value, call_in_loop(&x));
        let cubes: Vec<f64> = x.iter().map(|v| 3.0 * v * v).collect();
        assert_all_close(&grad, &cubes, ANALYTIC_TOL, "call_in_loop gradient");
        assert_fd_gradient(call_in_loop, &x, &grad, "call_in_loop");
        let (_, dot) = call_in_loop_jvp(&x, tx.clone());
        assert_dot(dot, &grad, &tx, ANALYTIC_TOL, "call_in_loop jvp");
    }
}

// ---- zeros of untyped floats (found by `autodiff-fuzz --seed 1`) ----

#[autodiff::custom_gradient]
fn sine_times(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let (s, c) = (x.sin(), x.cos());
    (s * y, move |dy: f64| (dy * c * y, dy * s))
}

/// Nested `let = loop` with break values, an untyped `1.0` among them, and an annotated local `Vec` made
/// in the loop body: the zeros of the break value and of the `Vec`'s adjoint had no type rustc could
/// settle (E0283).
#[differentiable]
fn nested_break_values(b: f64, xs: &[f64]) -> f64 {
    let mut k1 = 0;
    let mut acc = 0.0;
    let t2 = loop {
        let mut k3 = 0;
        let t4 = loop {
            let t5 = sine_times(1.0, xs[2]);
            k3 += 1;
            if k3 >= 1 {
                break t5;
            }
        };
        let mut arr: Vec<f64> = vec![0.0; xs.len()];
        arr[k1 % 3] += t4.sin();
        acc += arr[k1 % 3] * b;
        k1 += 1;
        if k1 >= 4 {
            break 1.0;
        }
    };
    acc * t2
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn untyped_break_values(b in -2.0f64..2.0, xs in prop::collection::vec(-2.0f64..2.0, 3..5)) {
        let (value, (db, dxs)) = nested_break_values_grad(b, &xs);
        prop_assert_eq!(value, nested_break_values(b, &xs));
        let at: Vec<f64> = std::iter::once(b).chain(xs.iter().copied()).collect();
        let grad: Vec<f64> = std::iter::once(db).chain(dxs).collect();
        assert_fd_gradient(|v| nested_break_values(v[0], &v[1..]), &at, &grad, "nested_break_values");
    }
}

/// The result of a call accumulated inside a loop that reads it: the loop's accumulator for it starts from
/// a zero of the call's result type (it was an untyped `Zero::zero()`, E0283; `autodiff-fuzz --seed 2`).
#[differentiable]
fn call_result_read_in_a_loop(xs: &[f64]) -> f64 {
    let pair = vec![xs[1]; 2];
    let t = 1.0;
    let s = scale_first(&pair, 1.0);
    let mut acc = t + s;
    for i in 0..3 {
        let row = [t, s];
        acc += row[1] * (i as f64);
    }
    acc
}

#[differentiable]
fn scale_first<T: autodiff::Float>(xs: &[T], s: T) -> T {
    xs[0] * xs[1] * s
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn call_results_read_in_loops(xs in prop::collection::vec(-2.0f64..2.0, 2..5)) {
        let (value, grad) = call_result_read_in_a_loop_grad(&xs);
        prop_assert_eq!(value, call_result_read_in_a_loop(&xs));
        assert_fd_gradient(call_result_read_in_a_loop, &xs, &grad, "call_result_read_in_a_loop");
    }
}

#[autodiff::custom_gradient]
fn tanh_custom<T: autodiff::Float>(x: T) -> (T, impl Fn(T) -> T) {
    let t = x.tanh();
    (t, move |dy: T| dy * (T::one() - t * t))
}

/// A `loop` whose break value is a power of a custom gradient's result: the adjoint of the carried break
/// value starts from a zero of its type (it was an untyped `Zero::zero()`, E0283; `autodiff-fuzz --seed 3`).
#[differentiable]
fn break_value_of_a_call(ys: &[f64]) -> f64 {
    let mut k = 0;
    let t = loop {
        let v = tanh_custom(ys[ys.len() - 1 - k]);
        k += 1;
        if k >= 2 {
            break v.powi(3);
        }
    };
    t * ys[0]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn break_values_of_calls(ys in prop::collection::vec(-2.0f64..2.0, 2..5)) {
        let (value, grad) = break_value_of_a_call_grad(&ys);
        prop_assert_eq!(value, break_value_of_a_call(&ys));
        assert_fd_gradient(break_value_of_a_call, &ys, &grad, "break_value_of_a_call");
    }
}

/// A local array of a call's result, made inside a branch: its adjoint buffer's zeros take the type of that
/// result (an untyped `[Zero::zero(); 3]` was E0283; `autodiff-fuzz --seed 2` and `--seed 3`).
#[differentiable]
fn array_of_a_call_in_a_branch(a: f64, xs: &[f64]) -> f64 {
    let t = scale_first(xs, a);
    let mut s = a;
    for i in 0..3 {
        s += match i {
            0 => a.atan(),
            1..=2 => {
                let row = [t.sin(); 3];
                row[i] * a
            }
            _ => a,
        };
    }
    s
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arrays_of_call_results_in_branches(a in -2.0f64..2.0, xs in prop::collection::vec(-2.0f64..2.0, 2..5)) {
        let (value, (da, dxs)) = array_of_a_call_in_a_branch_grad(a, &xs);
        prop_assert_eq!(value, array_of_a_call_in_a_branch(a, &xs));
        let at: Vec<f64> = std::iter::once(a).chain(xs.iter().copied()).collect();
        let grad: Vec<f64> = std::iter::once(da).chain(dxs).collect();
        assert_fd_gradient(|v| array_of_a_call_in_a_branch(v[0], &v[1..]), &at, &grad, "array_of_a_call_in_a_branch");
    }
}

// ---- lints of long signatures ----

/// Eight parameters: the generated items have nine or ten, and the companion's too; they carry their own
/// `allow(clippy::too_many_arguments)`, so a user's `-D warnings` run needs nothing on the module.
#[differentiable]
#[allow(clippy::too_many_arguments)]
pub fn eight_inputs(a: f64, b: f64, c: f64, d: f64, e: f64, f: f64, g: f64, h: f64) -> f64 {
    a * b + c * d + e * f + g * h
}

#[differentiable]
fn calls_eight_inputs(a: f64) -> f64 {
    eight_inputs(a, a, a, a, a, a, a, a) * a
}

#[test]
fn long_signatures() {
    // 4a² · a = 4a³: 12a².
    assert_eq!(
        calls_eight_inputs_grad(1.5),
        (calls_eight_inputs(1.5), 27.0)
    );
    assert_eq!(eight_inputs(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0), 100.0);
}

// ---- integer buffers the body updates ----

/// A `&mut [usize]` the body reads and writes (a cursor, a permutation): never differentiated. It was
/// rejected with a misleading "bind the value to a name first".
#[differentiable(wrt(a))]
fn advance_and_pick(a: &[f64], cursor: &mut [usize]) -> f64 {
    let i = cursor[0];
    cursor[0] = i + 1;
    a[i] * a[cursor[0]]
}

#[test]
fn integer_buffers_are_written_in_place() {
    let a = [2.0, 3.0, 5.0];
    let mut cursor = [0usize];
    let (value, grad) = advance_and_pick_grad(&a, &mut cursor);
    assert_eq!((value, grad, cursor), (6.0, vec![3.0, 2.0, 0.0], [1]));
    let mut cursor = [1usize];
    assert_eq!(advance_and_pick(&a, &mut cursor), 15.0);
    let mut cursor = [1usize];
    let (_, tangent) = advance_and_pick_jvp(&a, &mut cursor, vec![1.0, 1.0, 1.0]);
    assert_eq!((tangent, cursor), (8.0, [2]));
}

// ---- iterator chains inside `vec!` (found by `autodiff-fuzz --forms --seed 1`) ----

/// A chain as the value or an element of `vec![..]`: the macro's arguments are rewritten like any
/// expression (they were left as chains, which the fence rejects).
#[differentiable(order = 2)]
#[allow(clippy::useless_vec)] // `vec!` is the form under test
fn chains_in_vec_macros(xs: &[f64]) -> f64 {
    let repeated = vec![xs.iter().map(|&el| el.tanh()).sum::<f64>(); xs.len()];
    let listed = vec![1.0, xs.iter().fold(0.0, |acc, &el| acc + el * el)];
    repeated[0] * listed[1]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn chains_in_vec_macros_by_hand(xs in prop::collection::vec(-2.0f64..2.0, 1..5)) {
        let (value, grad) = chains_in_vec_macros_grad(&xs);
        prop_assert_eq!(value, chains_in_vec_macros(&xs));
        let s: f64 = xs.iter().map(|v| v.tanh()).sum();
        let q: f64 = xs.iter().map(|v| v * v).sum();
        for (i, g) in grad.iter().enumerate() {
            let by_hand = (1.0 - xs[i].tanh().powi(2)) * q + s * 2.0 * xs[i];
            assert_close(*g, by_hand, 1e-12, "chains_in_vec_macros");
        }
        assert_fd_gradient(chains_in_vec_macros, &xs, &grad, "chains_in_vec_macros");
    }
}

/// A sub-slice of an array made inside a loop body, iterated there: its adjoint buffer is sized by its own
/// length, read where it was made (it named the source, out of scope in the reverse sweep: E0425; found by
/// `autodiff-fuzz --forms --seed 3`).
#[differentiable]
fn window_of_a_local_in_a_loop(a: f64, xs: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..xs.len() - 1 {
        let mut row = vec![a; xs.len()];
        row[i + 1] += xs[i];
        total += row[1..].iter().fold(0.0, |acc, &el| acc + el * el);
    }
    total
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn windows_of_locals_in_loops(a in -2.0f64..2.0, xs in prop::collection::vec(-2.0f64..2.0, 2..5)) {
        let (value, (da, dxs)) = window_of_a_local_in_a_loop_grad(a, &xs);
        prop_assert_eq!(value, window_of_a_local_in_a_loop(a, &xs));
        let at: Vec<f64> = std::iter::once(a).chain(xs.iter().copied()).collect();
        let grad: Vec<f64> = std::iter::once(da).chain(dxs).collect();
        assert_fd_gradient(|v| window_of_a_local_in_a_loop(v[0], &v[1..]), &at, &grad, "window_of_a_local_in_a_loop");
    }
}

// ---- arrays returned by a call inside a loop or branch body ----

/// A rotation by `a`, row by row.
#[differentiable]
fn rotation(a: f64) -> [f64; 4] {
    [a.cos(), -a.sin(), a.sin(), a.cos()]
}

/// `[T; N]` returned by a call bound inside a loop body: the result's adjoint buffer, made in the loop's
/// reverse, is a `Vec`, and the callee's `vjp` takes `[f64; 4]` (E0308 in the generated code).
#[differentiable]
fn rotations_summed(x: &[f64], a: f64) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let r = rotation(a * k as f64);
        for i in 0..2 {
            s += r[i * 2] * x[0] + r[i * 2 + 1] * x[1];
        }
    }
    s
}

/// The same inside a branch, which is a region of its own in the reverse sweep.
#[differentiable]
fn rotation_in_a_branch(x: &[f64; 2], a: f64) -> f64 {
    if a > 0.0 {
        let r = rotation(a);
        r[0] * x[0] + r[1] * x[1]
    } else {
        x[0] * a
    }
}

/// A generic callee returning `[T; 2]`, called in a loop of a generic function.
#[differentiable]
fn polar<T: autodiff::Float>(a: T) -> [T; 2] {
    [a.cos(), a.sin()]
}

#[differentiable]
fn polar_walk<T: autodiff::Float>(a: T, n: usize) -> T {
    let mut angle = a;
    let mut total = a;
    for _ in 0..n {
        let p = polar(angle);
        total = total + p[0] * p[1];
        angle = angle * p[0];
    }
    total
}

/// Copies of fixed-size arrays inside a loop body: `let mut b = a;` of a local `[T; 2]`, and a call's
/// result declared `[f64; 2]` and its `.clone()`. Their adjoint buffers are `[0.0; N]` (there was no
/// length to size them by: "an array made inside a loop or branch .. cannot be differentiated yet").
#[differentiable]
#[allow(clippy::clone_on_copy)] // `.clone()` is the form under test
fn fixed_copies_in_a_loop(x: f64, y: f64) -> f64 {
    let a = [x, 2.0 * y];
    let mut s = 0.0;
    for i in 0..2 {
        let mut b = a;
        b[i] += x * y;
        let r: [f64; 4] = rotation(b[0] * i as f64);
        let c = r.clone();
        s += b[0] * b[1] + c[0] * r[2];
    }
    s
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arrays_returned_by_calls_in_loops(x in prop::collection::vec(-2.0f64..2.0, 2), a in moderate(), t in tangents()) {
        let (value, (dx, da)) = rotations_summed_grad(&x, a);
        let (jvp_value, dot) = rotations_summed_jvp(&x, a, (t[..2].to_vec(), t[2]));
        let at = [x[0], x[1], a];
        let grad = [dx[0], dx[1], da];
        let primal = |v: &[f64]| rotations_summed(&v[..2], v[2]);
        check_flat("rotations_summed", primal, &at, (value, &grad), (jvp_value, dot), &t);
        // s = sum over k of (cos + sin)(a k) x0 + (cos - sin)(a k) x1.
        let (mut d0, mut d1, mut d_a) = (0.0, 0.0, 0.0);
        for k in 0..3 {
            let (s, c) = (a * k as f64).sin_cos();
            d0 += c + s;
            d1 += c - s;
            d_a += k as f64 * ((c - s) * x[0] - (s + c) * x[1]);
        }
        assert_all_close(&grad, &[d0, d1, d_a], ANALYTIC_TOL, "rotations_summed by hand");
    }

    #[test]
    fn arrays_returned_by_calls_in_branches(x0 in moderate(), x1 in moderate(), a in nonzero(), t in tangents()) {
        let (value, (dx, da)) = rotation_in_a_branch_grad(&[x0, x1], a);
        let (jvp_value, dot) = rotation_in_a_branch_jvp(&[x0, x1], a, ([t[0], t[1]], t[2]));
        let primal = |v: &[f64]| rotation_in_a_branch(&[v[0], v[1]], v[2]);
        let grad = [dx[0], dx[1], da];
        check_flat("rotation_in_a_branch", primal, &[x0, x1, a], (value, &grad), (jvp_value, dot), &t);
        let by_hand = if a > 0.0 {
            [a.cos(), -a.sin(), -a.sin() * x0 - a.cos() * x1]
        } else {
            [a, 0.0, x0]
        };
        assert_all_close(&grad, &by_hand, ANALYTIC_TOL, "rotation_in_a_branch by hand");
    }

    #[test]
    fn fixed_copies_in_loops(x in moderate(), y in moderate(), t in tangents()) {
        let (value, (dx, dy)) = fixed_copies_in_a_loop_grad(x, y);
        let (jvp_value, dot) = fixed_copies_in_a_loop_jvp(x, y, (t[0], t[1]));
        let primal = |v: &[f64]| fixed_copies_in_a_loop(v[0], v[1]);
        check_flat("fixed_copies_in_a_loop", primal, &[x, y], (value, &[dx, dy]), (jvp_value, dot), &t[..2]);
        // s = (x + x y) 2y + x (2y + x y) + cos(x) sin(x), the first iteration's rotation adding 0.
        let by_hand = [2.0 * y * (1.0 + y) + 2.0 * y + 2.0 * x * y + (2.0 * x).cos(), 2.0 * x + 4.0 * x * y + 2.0 * x + x * x];
        assert_all_close(&[dx, dy], &by_hand, ANALYTIC_TOL, "fixed_copies_in_a_loop by hand");
    }

    #[test]
    fn generic_arrays_returned_by_calls_in_loops(a in -1.5f64..1.5, n in 0usize..4, t in tangent()) {
        let (value, da) = polar_walk_grad(a, n);
        let (jvp_value, dot) = polar_walk_jvp(a, n, t);
        check_flat("polar_walk", |v| polar_walk(v[0], n), &[a], (value, &[da]), (jvp_value, dot), &[t]);
        let (value32, da32) = polar_walk_grad(a as f32, n);
        assert_eq!(value32, polar_walk(a as f32, n));
        assert_close(f64::from(da32), da, 1e-3, "polar_walk at f32");
    }
}

// ---- tuples as the value of an `if` or `match` ----

/// Two outputs of one input.
#[differentiable]
fn sine_and_square(a: f64) -> (f64, f64) {
    (a.sin(), a * a)
}

/// Three outputs of two inputs.
#[differentiable]
fn three_of(a: f64, b: f64) -> (f64, f64, f64) {
    (a * b, a.cos(), b.exp())
}

/// A call's tuple as the value of an `if`, destructured by the `let` ("the macro cannot tell the shape of
/// this tuple"): the `if` yields one value per component.
#[differentiable]
fn tuple_of_calls_chosen(a: f64, b: f64) -> f64 {
    let (x, y) = if a > b {
        sine_and_square(a)
    } else {
        sine_and_square(2.0 * a)
    };
    x * y + b
}

/// Tuple literals as the branches' values, also in the generic shadow that `order = 2` differentiates.
#[differentiable(order = 2)]
fn tuple_literals_chosen(a: f64, b: f64) -> f64 {
    let (x, y) = if a > b { (a, b) } else { (b * a, a) };
    x * y.sin()
}

/// A `match` whose arms give a literal, a call, and a nested `if` of both; three components.
#[differentiable]
fn tuples_matched(a: f64, b: f64, k: usize) -> f64 {
    let (x, y, z) = match k {
        0 => (a, b, a * b),
        1 => three_of(b, a),
        _ => {
            if a > 0.0 {
                three_of(a * b, b)
            } else {
                (b, 1.0, a)
            }
        }
    };
    x * y.exp() + z
}

/// Tuple-valued `if`s inside a loop body, one of them typed by the `let`.
#[differentiable]
fn tuples_chosen_in_a_loop(a: f64, b: f64, n: usize) -> f64 {
    let mut acc = a;
    for i in 0..n {
        let (x, y): (f64, f64) = if i % 2 == 0 {
            sine_and_square(acc)
        } else {
            (acc * b, b)
        };
        acc = 0.5 * x + 0.25 * y;
    }
    acc
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn tuples_of_calls_as_values_of_ifs(a in moderate(), b in moderate(), t in tangents()) {
        prop_assume!((a - b).abs() > 1e-3);
        let u = if a > b { a } else { 2.0 * a };
        let scale = if a > b { 1.0 } else { 2.0 };
        let da = scale * (2.0 * u * u.sin() + u * u * u.cos());
        check_scalar(
            "tuple_of_calls_chosen",
            |v| tuple_of_calls_chosen(v[0], v[1]),
            &[a, b],
            (tuple_of_calls_chosen_grad(a, b), |c| tuple_of_calls_chosen_vjp(a, b, c), |t| tuple_of_calls_chosen_jvp(a, b, t)),
            &[da, 1.0],
            &t,
        );
    }

    #[test]
    fn tuple_literals_as_values_of_ifs(a in moderate(), b in moderate(), t in tangents()) {
        prop_assume!((a - b).abs() > 1e-3);
        let partials = if a > b {
            [b.sin(), a * b.cos()]
        } else {
            [b * a.sin() + a * b * a.cos(), a * a.sin()]
        };
        check_scalar(
            "tuple_literals_chosen",
            |v| tuple_literals_chosen(v[0], v[1]),
            &[a, b],
            (tuple_literals_chosen_grad(a, b), |c| tuple_literals_chosen_vjp(a, b, c), |t| tuple_literals_chosen_jvp(a, b, t)),
            &partials,
            &t,
        );
        let (_, _, hv) = tuple_literals_chosen_hvp(a, b, (t[0], t[1]));
        let hessian = if a > b {
            [[0.0, b.cos()], [b.cos(), -a * b.sin()]]
        } else {
            let (s, c) = a.sin_cos();
            [[2.0 * b * c - a * b * s, s + a * c], [s + a * c, 0.0]]
        };
        let expected = [
            hessian[0][0] * t[0] + hessian[0][1] * t[1],
            hessian[1][0] * t[0] + hessian[1][1] * t[1],
        ];
        assert_all_close(&[hv.0, hv.1], &expected, ANALYTIC_TOL, "tuple_literals_chosen: Hessian-vector product");
    }

    #[test]
    fn tuples_as_values_of_matches(a in -1.5f64..1.5, b in -1.5f64..1.5, k in 0usize..3, t in tangents()) {
        prop_assume!(a.abs() > 1e-3);
        let (value, (da, db)) = tuples_matched_grad(a, b, k);
        let (jvp_value, dot) = tuples_matched_jvp(a, b, k, (t[0], t[1]));
        let primal = |v: &[f64]| tuples_matched(v[0], v[1], k);
        check_flat("tuples_matched", primal, &[a, b], (value, &[da, db]), (jvp_value, dot), &t[..2]);
        let by_hand = match k {
            0 => [b.exp() + b, a * b.exp() + a],
            // x = a b, y = cos b, z = exp a.
            1 => {
                let e = b.cos().exp();
                [b * e + a.exp(), a * e - a * b * b.sin() * e]
            }
            // x = a b², y = cos(a b), z = exp b.
            _ if a > 0.0 => {
                let (e, s) = ((a * b).cos().exp(), (a * b).sin());
                [b * b * e - a * b * b * b * s * e, 2.0 * a * b * e - a * a * b * b * s * e + b.exp()]
            }
            _ => [1.0, 1.0_f64.exp()],
        };
        assert_all_close(&[da, db], &by_hand, ANALYTIC_TOL, "tuples_matched by hand");
    }

    #[test]
    fn tuples_as_values_of_ifs_in_loops(a in moderate(), b in moderate(), n in 0usize..5, t in tangents()) {
        let (value, (da, db)) = tuples_chosen_in_a_loop_grad(a, b, n);
        let (jvp_value, dot) = tuples_chosen_in_a_loop_jvp(a, b, n, (t[0], t[1]));
        let primal = |v: &[f64]| tuples_chosen_in_a_loop(v[0], v[1], n);
        check_flat("tuples_chosen_in_a_loop", primal, &[a, b], (value, &[da, db]), (jvp_value, dot), &t[..2]);
    }
}

// ---- `.is_empty()` and `.to_vec()` of a call's result ----

/// `.is_empty()` of a slice parameter and of a local `Vec`: an inactive bool, as `.len() == 0`.
#[differentiable]
fn ends_unless_empty(x: &[f64], a: f64) -> f64 {
    let mut kept = Vec::new();
    if !x.is_empty() {
        kept.push(x[0] * a);
        kept.push(x[x.len() - 1]);
    }
    if kept.is_empty() {
        a * a
    } else {
        kept[0] * kept[1]
    }
}

/// `.is_empty()` of a matrix parameter and of its rows.
#[differentiable]
fn corner_unless_empty(m: &[Vec<f64>], a: f64) -> f64 {
    if m.is_empty() || m[0].is_empty() {
        a
    } else {
        m[0][0] * a
    }
}

/// `.to_vec()` of an array a call returns, at the top level and inside a loop body.
#[differentiable]
fn rotation_copied(a: f64, n: usize) -> f64 {
    let v = rotation(a).to_vec();
    let mut total = v[0] * v[1] + v[3];
    for k in 0..n {
        let w = rotation(a * k as f64).to_vec();
        total += w[2] * w[k % 4];
    }
    total
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn is_empty_of_slices_and_vecs(x in prop::collection::vec(-2.0f64..2.0, 0..4), a in moderate(), t in tangents()) {
        let (value, (dx, da)) = ends_unless_empty_grad(&x, a);
        let tangent: Vec<f64> = (0..x.len()).map(|i| t[i % 3]).collect();
        let (jvp_value, dot) = ends_unless_empty_jvp(&x, a, (tangent.clone(), t[2]));
        let at: Vec<f64> = x.iter().copied().chain([a]).collect();
        let grad: Vec<f64> = dx.iter().copied().chain([da]).collect();
        let all_tangents: Vec<f64> = tangent.iter().copied().chain([t[2]]).collect();
        let n = x.len();
        let primal = |v: &[f64]| ends_unless_empty(&v[..n], v[n]);
        check_flat("ends_unless_empty", primal, &at, (value, &grad), (jvp_value, dot), &all_tangents);
        let mut by_hand = vec![0.0; n + 1];
        if n == 0 {
            by_hand[0] = 2.0 * a;
        } else {
            by_hand[0] += a * x[n - 1];
            by_hand[n - 1] += x[0] * a;
            by_hand[n] = x[0] * x[n - 1];
        }
        assert_all_close(&grad, &by_hand, ANALYTIC_TOL, "ends_unless_empty by hand");
    }

    #[test]
    fn is_empty_of_matrices(rows in 0usize..3, cols in 0usize..3, a in moderate(), t in tangent()) {
        let m: Vec<Vec<f64>> = (0..rows).map(|i| (0..cols).map(|j| 0.5 + i as f64 - j as f64).collect()).collect();
        let (value, (dm, da)) = corner_unless_empty_grad(&m, a);
        let (jvp_value, dot) = corner_unless_empty_jvp(&m, a, (m.clone(), t));
        prop_assert_eq!(value, corner_unless_empty(&m, a));
        prop_assert_eq!(jvp_value, value);
        let corner = rows > 0 && cols > 0;
        prop_assert_eq!(da, if corner { m[0][0] } else { 1.0 });
        if corner {
            prop_assert_eq!(dm[0][0], a);
        }
        let along_m = if corner { m[0][0] * a } else { 0.0 };
        assert_close(dot, along_m + da * t, ANALYTIC_TOL, "corner_unless_empty jvp");
    }

    #[test]
    fn to_vec_of_call_results(a in moderate(), n in 0usize..5, t in tangent()) {
        let (value, da) = rotation_copied_grad(a, n);
        let (jvp_value, dot) = rotation_copied_jvp(a, n, t);
        check_flat("rotation_copied", |v| rotation_copied(v[0], n), &[a], (value, &[da]), (jvp_value, dot), &[t]);
    }
}

// ---- functions of the user's own named like a generated derivative ----

/// A `#[differentiable]` function whose name ends in `_grad`, returning a float: differentiated through
/// like any other (only a destructured call of such a name is taken for a generated derivative).
#[differentiable]
fn slope_grad(x: f64) -> f64 {
    x * x.sin()
}

#[differentiable]
fn through_slope_grad(x: f64) -> f64 {
    slope_grad(x) * x
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn calls_of_functions_named_like_derivatives(x in moderate(), t in tangents()) {
        let partial = 2.0 * x * x.sin() + x * x * x.cos();
        check_scalar(
            "through_slope_grad",
            |v| through_slope_grad(v[0]),
            &[x],
            (through_slope_grad_grad(x), |c| through_slope_grad_vjp(x, c), |t| through_slope_grad_jvp(x, t)),
            &[partial],
            &t,
        );
    }
}

/// Found by the fuzzer (`--seed 4 --forms`): an iterator chain inside `vec![..]` made the first-order
/// generic copy of a leaf function, which does not compile for iterators (`shadow::shadowable` did not look
/// inside `vec!`).
#[differentiable]
#[allow(clippy::useless_vec)]
fn sum_in_vec(xs: &[f64]) -> f64 {
    let arr = vec![xs.iter().map(|&v| v.tanh()).sum::<f64>(); 4];
    arr[0] * arr[3]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn iterator_chains_inside_vec(a in moderate(), b in moderate(), c in moderate()) {
        let xs = [a, b, c];
        let s: f64 = xs.iter().map(|v| v.tanh()).sum();
        let expected: Vec<f64> = xs.iter().map(|v| 2.0 * s * (1.0 - v.tanh() * v.tanh())).collect();
        let (value, grad) = sum_in_vec_grad(&xs);
        assert_close(value, s * s, ANALYTIC_TOL, "value");
        assert_all_close(&grad, &expected, ANALYTIC_TOL, "gradient");
        assert_fd_gradient(sum_in_vec, &xs, &grad, "sum_in_vec");
        let tangent = [0.3, -0.7, 1.1];
        let (_, dot) = sum_in_vec_jvp(&xs, tangent.to_vec());
        assert_close(dot, common::dot(&expected, &tangent), ANALYTIC_TOL, "tangent");
    }
}
