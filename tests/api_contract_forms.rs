//! The contract audit (`API.md`), part four: each form a differentiable body may contain, written as a
//! user writes it, in a function with `order = 2`, so that every form is checked at order 1 (`_grad`,
//! `_vjp`, `_jvp`, `_grad_into` against central differences) and at order 2 (`_hessian` against
//! differences of `_grad`, `_hvp` against `_hessian`) at several inputs, with analytic gradients where the
//! form's function has a short one.

// The forms are written as `API.md` lists them: `s = s + ..` beside `s += ..`, a matrix as a `Vec` of
// `Vec`s made by `vec![vec![..], ..]`, indexed loops.
#![allow(
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::assign_op_pattern,
    clippy::useless_vec
)]

mod common;

use autodiff::{custom_gradient, differentiable, Float};
use common::contract::{audit, Items, GARBAGE};
use common::{assert_close, central_difference, ANALYTIC_TOL};

/// The generated items of `fn f(x: &[f64]) -> f64` at `order = 2`, bound to the types `API.md` gives.
struct SliceItems {
    primal: fn(&[f64]) -> f64,
    grad: fn(&[f64]) -> (f64, Vec<f64>),
    vjp: fn(&[f64], f64) -> (f64, Vec<f64>),
    jvp: fn(&[f64], Vec<f64>) -> (f64, f64),
    grad_into: fn(&[f64], &mut [f64]) -> f64,
    hvp: fn(&[f64], Vec<f64>) -> (f64, Vec<f64>, Vec<f64>),
    hessian: fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
}

/// `SliceItems` of `f`: `f`, `f_grad`, `f_vjp`, `f_jvp`, `f_grad_into`, `f_hvp`, `f_hessian`.
macro_rules! slice_items {
    ($f:ident, $grad:ident, $vjp:ident, $jvp:ident, $into:ident, $hvp:ident, $hessian:ident) => {
        SliceItems {
            primal: $f,
            grad: $grad,
            vjp: $vjp,
            jvp: $jvp,
            grad_into: $into,
            hvp: $hvp,
            hessian: $hessian,
        }
    };
}

/// Audits the items of a function of one slice at `points`, against `analytic` where given.
#[track_caller]
fn audit_slice(
    what: &str,
    f: SliceItems,
    analytic: Option<&dyn Fn(&[f64]) -> Vec<f64>>,
    points: &[Vec<f64>],
) {
    audit(
        &Items {
            what,
            primal: &|x| (f.primal)(x),
            grad: &|x| (f.grad)(x),
            vjp: &|x, d| (f.vjp)(x, d),
            jvp: &|x, t| (f.jvp)(x, t.to_vec()),
            grad_into: &|x| {
                let mut g = vec![GARBAGE; x.len()];
                ((f.grad_into)(x, &mut g), g)
            },
            hvp: Some(&|x, t| (f.hvp)(x, t.to_vec())),
            hessian: Some(&|x| (f.hessian)(x)),
            analytic,
        },
        points,
    );
}

/// Inputs of three to five elements away from every form's kinks, in the domains of its functions.
fn points() -> Vec<Vec<f64>> {
    vec![
        vec![0.3, 0.7, 0.45],
        vec![0.62, 0.21, 0.83, 0.37],
        vec![0.55, 0.9, 0.15, 0.72, 0.33],
    ]
}

// ---------------------------------------------------------------- let, const, shadowing, assignment

#[differentiable(order = 2)]
fn lets(x: &[f64]) -> f64 {
    const HALF: f64 = 0.5;
    let (a, b) = (x[0], x[1] * HALF);
    let a = a * a;
    let mut s = -a + b;
    s += a * b;
    s *= 1.5;
    s -= b / 3.0;
    s /= 2.0;
    s = s + x[0].sin();
    s
}

#[test]
fn let_const_shadowing_and_assignment() {
    let items = slice_items!(
        lets,
        lets_grad,
        lets_vjp,
        lets_jvp,
        lets_grad_into,
        lets_hvp,
        lets_hessian
    );
    let analytic = |x: &[f64]| {
        let (a, b) = (x[0], x[1] * 0.5);
        let mut g = vec![0.0; x.len()];
        g[0] = 0.75 * (-2.0 * a + 2.0 * a * b) + a.cos();
        g[1] = 0.5 * (0.75 * (1.0 + a * a) - 1.0 / 6.0);
        g
    };
    audit_slice(
        "let, const, shadowing, compound assignment",
        items,
        Some(&analytic),
        &points(),
    );
}

// ------------------------------------------------------------ comparisons, if, match, casts

#[differentiable(order = 2)]
fn branches(x: &[f64]) -> f64 {
    let n = x.len();
    let k = match n {
        0 | 1 => 0,
        2..=3 => 1,
        _ => 2,
    };
    let scale = if x[0] > 0.5 && x[1] < 1.0 || k == 2 {
        2.0
    } else {
        -1.0
    };
    let y = if x[0] * x[1] >= 0.2 {
        x[0] * x[1]
    } else {
        x[0].exp()
    };
    scale * y + k as f64 * x[1] * x[2]
}

#[test]
fn comparisons_if_match_and_casts() {
    let items = slice_items!(
        branches,
        branches_grad,
        branches_vjp,
        branches_jvp,
        branches_grad_into,
        branches_hvp,
        branches_hessian
    );
    audit_slice(
        "&&, ||, if as an expression, match with | and ranges, casts",
        items,
        None,
        &points(),
    );
}

// -------------------------------------------------------------------------------------- loops

#[differentiable(order = 2)]
fn ranges(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i];
    }
    for i in 1..=n - 1 {
        s += x[i] * x[i - 1];
    }
    for i in (0..n).rev() {
        s = s * 0.5 + x[i];
    }
    for i in (0..n).step_by(2) {
        s += x[i].sin();
    }
    s
}

#[differentiable(order = 2)]
fn slice_loops(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        s += v * v;
    }
    for v in x.iter() {
        s += v.sin();
    }
    for (i, v) in x.iter().enumerate() {
        s += *v * i as f64 * s.cos();
    }
    for (a, b) in x.iter().zip(&x[1..]) {
        s += a * b;
    }
    s
}

#[differentiable(order = 2)]
fn while_loop_break(x: &[f64]) -> f64 {
    let mut i = 0;
    let mut s = 0.0;
    while i < x.len() {
        s += x[i] * x[i];
        i += 1;
    }
    let mut j = 0;
    loop {
        if j >= x.len() {
            break;
        }
        j += 1;
        if j % 2 == 0 {
            continue;
        }
        s *= 1.0 + x[j - 1] * 0.1;
    }
    if s > 1e6 {
        return s;
    }
    s.sqrt()
}

#[test]
fn for_over_ranges_and_slices_while_loop_and_early_return() {
    let items = slice_items!(
        ranges,
        ranges_grad,
        ranges_vjp,
        ranges_jvp,
        ranges_grad_into,
        ranges_hvp,
        ranges_hessian
    );
    audit_slice(
        "for over a..b, a..=b, .rev(), .step_by(k)",
        items,
        None,
        &points(),
    );
    let items = slice_items!(
        slice_loops,
        slice_loops_grad,
        slice_loops_vjp,
        slice_loops_jvp,
        slice_loops_grad_into,
        slice_loops_hvp,
        slice_loops_hessian
    );
    audit_slice(
        "for &v in x, x.iter(), .enumerate(), .zip(..)",
        items,
        None,
        &points(),
    );
    let items = slice_items!(
        while_loop_break,
        while_loop_break_grad,
        while_loop_break_vjp,
        while_loop_break_jvp,
        while_loop_break_grad_into,
        while_loop_break_hvp,
        while_loop_break_hessian
    );
    audit_slice(
        "while, loop with break and continue, early return",
        items,
        None,
        &points(),
    );
    // The early return taken.
    let big = [1e3, 1e3, 1e3];
    let (v, g) = while_loop_break_grad(&big);
    assert_eq!(
        v,
        while_loop_break(&big),
        "while_loop_break_grad: the early return's value"
    );
    common::assert_fd_gradient(
        while_loop_break,
        &big,
        &g,
        "while_loop_break_grad after the early return",
    );
}

// ------------------------------------------------------------- constants, deref, generic forms

#[differentiable(order = 2)]
fn constants(x: &[f64]) -> f64 {
    let mut hi = f64::NEG_INFINITY;
    let mut lo = f64::INFINITY;
    for &v in x {
        hi = hi.max(v);
        lo = lo.min(v);
    }
    let r = x[0];
    std::f64::consts::PI * r * r
        + hi * 2.
        + lo * 1e-1
        + (x[1] + f64::EPSILON).ln() * std::f64::consts::E
}

#[differentiable(order = 2)]
fn generic_forms<T: Float>(x: &[T]) -> T {
    let mut s = T::zero();
    let mut p = T::one();
    for i in 0..x.len() {
        s = s + x[i] * T::from(i + 1).unwrap();
        p = p * (T::one() + x[i] / T::from(2.5).unwrap());
    }
    s * p
}

#[test]
fn constants_deref_and_generic_forms() {
    let items = slice_items!(
        constants,
        constants_grad,
        constants_vjp,
        constants_jvp,
        constants_grad_into,
        constants_hvp,
        constants_hessian
    );
    audit_slice(
        "std::f64::consts, INFINITY, NEG_INFINITY, EPSILON, *r, literals",
        items,
        None,
        &points(),
    );
    let items = slice_items!(
        generic_forms,
        generic_forms_grad,
        generic_forms_vjp,
        generic_forms_jvp,
        generic_forms_grad_into,
        generic_forms_hvp,
        generic_forms_hessian
    );
    audit_slice(
        "T::from(..).unwrap(), T::one(), T::zero()",
        items,
        None,
        &points(),
    );
}

// ------------------------------------------------------------------------------- arrays and Vecs

#[differentiable]
fn sum_sq(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[differentiable]
fn arr3(v: &[f64; 3]) -> f64 {
    v[0] * v[1] + v[2].sin()
}

#[differentiable(order = 2)]
fn arrays(x: &[f64]) -> f64 {
    let a = [x[0] * 2.0, x[1], x[0] * x[1]];
    let mut w = vec![0.0; x.len()];
    for i in 0..w.len() {
        w[i] = x[i] * a[i % 3];
    }
    let mut b = [0.0; 3];
    b[0] = w[0];
    b[1] = a[2].sin();
    b[2] = w[w.len() - 1];
    sum_sq(&w) + arr3(&b) + arr3(&a)
}

#[test]
fn array_literals_local_vecs_and_passing_them() {
    let items = slice_items!(
        arrays,
        arrays_grad,
        arrays_vjp,
        arrays_jvp,
        arrays_grad_into,
        arrays_hvp,
        arrays_hessian
    );
    audit_slice(
        "array literals, vec![0.0; n], [0.0; 3], index writes, passing as &[T] and &[T; N]",
        items,
        None,
        &points(),
    );
}

// ------------------------------------------------------------------------------ calls of all kinds

mod special {
    use autodiff::{differentiable, Float};

    /// A generic callee in another module.
    #[differentiable]
    pub fn bump<T: Float>(x: T, mu: T) -> T {
        let d = x - mu;
        (-d * d).exp()
    }
}

#[custom_gradient]
fn softsign(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let d = 1.0 + x.abs();
    (x / d, move |dy| dy / (d * d))
}

#[differentiable(order = 2)]
fn calls(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += special::bump(x[i], 0.5) * softsign(x[i] - 0.2);
    }
    s + adlib::softplus(x[0], 2.0) + adlib::sumsq(x)
}

#[test]
fn calls_of_generic_custom_other_module_and_other_crate_functions() {
    let items = slice_items!(
        calls,
        calls_grad,
        calls_vjp,
        calls_jvp,
        calls_grad_into,
        calls_hvp,
        calls_hessian
    );
    audit_slice(
        "calls: generic in a module, custom, another crate's",
        items,
        None,
        &points(),
    );
}

// ---------------------------------------------------------------------------------- float methods

#[differentiable(order = 2)]
fn trig(x: &[f64]) -> f64 {
    let (u, v) = (x[0], x[1]);
    u.sin()
        + u.cos() * v
        + (u * v).tan()
        + u.asin()
        + v.acos() * u
        + (u + v).atan()
        + u.sinh() * v.cosh()
        + (u - v).tanh()
        + (u * 3.0).asinh()
        + (1.5 + u * v).acosh()
        + (u * v).atanh()
}

#[differentiable(order = 2)]
fn exps_and_logs(x: &[f64]) -> f64 {
    let (u, v) = (x[0], x[1]);
    u.exp() * v
        + v.exp2()
        + (u * v).exp_m1()
        + (u + 1.0).ln() * v
        + (v + 2.0).log(3.0)
        + u.log2()
        + v.log10() * u
        + (u * v).ln_1p()
        + u.powi(3) * v
        + u.powf(v)
        + v.powf(1.7)
        + (u + v).sqrt()
        + (u - 3.0 * v).cbrt()
        + (u + v).recip()
}

#[differentiable(order = 2)]
fn piecewise(x: &[f64]) -> f64 {
    let (u, v) = (x[0], x[1]);
    (u - v).abs() * u
        + u.hypot(v)
        + v.atan2(u)
        + u.mul_add(v, u * u)
        + (u * 2.0).max(v) * v
        + u.min(v * 0.5) * u
        + (u * 3.0).clamp(0.5, 2.0) * v
        + (u - v).signum() * u * v
        + ((u * 10.0).floor() + (v * 10.0).ceil() + (u * 7.0).round() + (v * 7.0).trunc()) * u * v
}

#[test]
fn float_methods() {
    // u, v in (0, 1), u v < 1, away from kinks.
    let pts = vec![vec![0.33, 0.57], vec![0.61, 0.24], vec![0.18, 0.81]];
    let items = slice_items!(
        trig,
        trig_grad,
        trig_vjp,
        trig_jvp,
        trig_grad_into,
        trig_hvp,
        trig_hessian
    );
    audit_slice("sin .. atanh", items, None, &pts);
    let items = slice_items!(
        exps_and_logs,
        exps_and_logs_grad,
        exps_and_logs_vjp,
        exps_and_logs_jvp,
        exps_and_logs_grad_into,
        exps_and_logs_hvp,
        exps_and_logs_hessian
    );
    audit_slice("exp .. recip", items, None, &pts);
    let items = slice_items!(
        piecewise,
        piecewise_grad,
        piecewise_vjp,
        piecewise_jvp,
        piecewise_grad_into,
        piecewise_hvp,
        piecewise_hessian
    );
    audit_slice(
        "abs, hypot, atan2, mul_add, max, min, clamp, signum, floor, ceil, round, trunc",
        items,
        None,
        &pts,
    );
}

// ------------------------------------------------------------ iterator chains, closures, sub-slices

#[differentiable(order = 2)]
fn chains(x: &[f64]) -> f64 {
    let a: f64 = x.iter().sum();
    let b: f64 = x.iter().map(|v| v * v).sum();
    let c: f64 = x.iter().zip(x.iter()).map(|(p, q)| p * q.sin()).sum();
    let d: f64 = x.iter().enumerate().map(|(i, v)| v * i as f64).sum();
    let e = x.iter().fold(1.0, |acc, v| acc * 0.5 + v);
    let f: f64 = x.iter().map(|v| 1.0 + v * 0.1).product();
    let g: f64 = x.iter().copied().map(|v| v.exp()).sum();
    a * b + c + d + e * f + g
}

#[differentiable(order = 2)]
fn closures(x: &[f64]) -> f64 {
    let sq = |v: f64| v * v;
    let lin = |a: f64, b: f64| a * 2.0 + b.sin();
    let mut s = 0.0;
    for i in 0..x.len() {
        s += sq(x[i]) * lin(x[i], x[0]);
    }
    s
}

#[differentiable(order = 2)]
fn sub_slices(x: &[f64]) -> f64 {
    let head = &x[0..2];
    let tail = &x[1..];
    let mut s = head[0] * head[1];
    for &v in tail {
        s += v * v * v;
    }
    s + sum_sq(&x[2..]) + tail.iter().map(|v| v.sin()).sum::<f64>()
}

#[test]
fn iterator_chains_closures_and_sub_slices() {
    let items = slice_items!(
        chains,
        chains_grad,
        chains_vjp,
        chains_jvp,
        chains_grad_into,
        chains_hvp,
        chains_hessian
    );
    let analytic = |x: &[f64]| {
        let n = x.len();
        let a: f64 = x.iter().sum();
        let b: f64 = x.iter().map(|v| v * v).sum();
        let mut e = 1.0;
        for v in x {
            e = e * 0.5 + v;
        }
        let f: f64 = x.iter().map(|v| 1.0 + v * 0.1).product();
        (0..n)
            .map(|i| {
                let de = 0.5f64.powi((n - 1 - i) as i32);
                let df = f / (1.0 + x[i] * 0.1) * 0.1;
                b + a * 2.0 * x[i]
                    + x[i].sin()
                    + x[i] * x[i].cos()
                    + i as f64
                    + de * f
                    + e * df
                    + x[i].exp()
            })
            .collect()
    };
    audit_slice(
        "sum, map, zip, enumerate, fold, product, copied",
        items,
        Some(&analytic),
        &points(),
    );
    let items = slice_items!(
        closures,
        closures_grad,
        closures_vjp,
        closures_jvp,
        closures_grad_into,
        closures_hvp,
        closures_hessian
    );
    audit_slice("closures bound to locals", items, None, &points());
    let items = slice_items!(
        sub_slices,
        sub_slices_grad,
        sub_slices_vjp,
        sub_slices_jvp,
        sub_slices_grad_into,
        sub_slices_hvp,
        sub_slices_hessian
    );
    audit_slice(
        "&x[a..b], &x[a..] read, iterated and passed",
        items,
        None,
        &points(),
    );
}

// ------------------------------------------------------------------ matrices and arrays as values

#[differentiable(order = 2)]
fn local_matrices(x: &[f64]) -> f64 {
    let m = vec![vec![x[0], x[1]], vec![x[2], x[0] * x[1]]];
    let mut g = vec![vec![0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            g[i][j] = m[i][j] * m[j][i] + m[i][0];
        }
    }
    let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    det + g[0][1] * g[1][0] + g[1][1]
}

#[differentiable]
fn early(x: &[f64]) -> [f64; 2] {
    if x[0] > 0.5 {
        return [x[0] * x[1], x[1]];
    }
    [x[1], x[0] * 2.0]
}

#[differentiable(order = 2)]
fn arrays_as_values(x: &[f64]) -> f64 {
    let a = if x[0] > 0.4 {
        [x[0], x[1] * x[1]]
    } else {
        [x[1], x[0]]
    };
    let b = match x.len() {
        3 => [x[2], a[0]],
        4 | 5 => [a[1] * x[3], x[2]],
        _ => [0.0, 0.0],
    };
    let e = early(x);
    a[0] * b[1] + a[1] * b[0] + e[0] * e[1].sin()
}

#[test]
fn matrices_and_arrays_as_values() {
    let items = slice_items!(
        local_matrices,
        local_matrices_grad,
        local_matrices_vjp,
        local_matrices_jvp,
        local_matrices_grad_into,
        local_matrices_hvp,
        local_matrices_hessian
    );
    audit_slice(
        "local Vec<Vec<f64>> indexed m[i][j]",
        items,
        None,
        &points(),
    );
    let items = slice_items!(
        arrays_as_values,
        arrays_as_values_grad,
        arrays_as_values_vjp,
        arrays_as_values_jvp,
        arrays_as_values_grad_into,
        arrays_as_values_hvp,
        arrays_as_values_hessian
    );
    audit_slice(
        "arrays as the value of if, match, early return",
        items,
        None,
        &points(),
    );
}

// ------------------------------------------------------------------ nested fn items, recursion

#[differentiable(order = 2)]
fn nested_fn(x: &[f64]) -> f64 {
    fn wave(v: f64, k: f64) -> f64 {
        (v * k).sin() * v
    }
    let mut s = 0.0;
    for i in 0..x.len() {
        s += wave(x[i], i as f64 + 1.0);
    }
    s
}

/// Horner's scheme by recursion: `1 + x + x² + ... + x^n`.
#[differentiable(order = 2)]
fn geometric(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        1.0 + x * geometric(x, n - 1)
    }
}

/// Mutual recursion: `even(x, n)` and `odd(x, n)` alternate `sin` and `cos`.
#[differentiable(order = 2)]
fn even(x: f64, n: u32) -> f64 {
    if n == 0 {
        x
    } else {
        odd(x, n - 1).sin()
    }
}

#[differentiable(order = 2)]
fn odd(x: f64, n: u32) -> f64 {
    if n == 0 {
        x * x
    } else {
        even(x, n - 1).cos()
    }
}

#[test]
fn nested_fn_items_and_recursion() {
    let items = slice_items!(
        nested_fn,
        nested_fn_grad,
        nested_fn_vjp,
        nested_fn_jvp,
        nested_fn_grad_into,
        nested_fn_hvp,
        nested_fn_hessian
    );
    let analytic = |x: &[f64]| {
        (0..x.len())
            .map(|i| {
                let k = i as f64 + 1.0;
                (x[i] * k).sin() + x[i] * k * (x[i] * k).cos()
            })
            .collect()
    };
    audit_slice(
        "fn items nested in the body",
        items,
        Some(&analytic),
        &points(),
    );

    let _: fn(f64, u32) -> [f64; 3] = geometric_derivatives;
    let _: fn(f64, u32) -> [f64; 3] = even_derivatives;
    for x in [-0.7, 0.3, 1.2] {
        let n = 4;
        let d = geometric_derivatives(x, n);
        let d1: f64 = (1..=n).map(|k| k as f64 * x.powi(k as i32 - 1)).sum();
        let d2: f64 = (2..=n)
            .map(|k| (k * (k - 1)) as f64 * x.powi(k as i32 - 2))
            .sum();
        assert_close(d[0], geometric(x, n), ANALYTIC_TOL, "geometric: value");
        assert_close(d[1], d1, ANALYTIC_TOL, "geometric: f'");
        assert_close(d[2], d2, ANALYTIC_TOL, "geometric: f''");
        for n in [0, 1, 3, 4] {
            let d = even_derivatives(x, n);
            assert_eq!(d[0], even(x, n), "even: value");
            assert_close(
                d[1],
                central_difference(|y| even(y, n), x),
                1e-8,
                "even: f'",
            );
            assert_close(
                d[2],
                central_difference(|y| even_grad(y, n).1, x),
                1e-6,
                "even: f''",
            );
            let (_, g) = odd_grad(x, n);
            assert_close(g, central_difference(|y| odd(y, n), x), 1e-8, "odd: f'");
        }
    }
}
