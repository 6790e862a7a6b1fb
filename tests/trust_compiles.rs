//! Valid programs whose generated code once failed to compile (or made the macro panic), each checked
//! against an independent oracle: the derivative written by hand, or central differences.
//!
//! This file imports no float trait (`Float` is named by its path): with `num_traits::Float` in scope,
//! rustc resolves a method call on an untyped float literal (`1.0.max(0.5)`) through the trait, and a
//! generated literal that lost its type would go unnoticed.

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
