//! Forms of numeric Rust that were a "not supported" error, differentiated as written: the end elements
//! of a slice, array or `Vec` unwrapped (`*x.last().unwrap()`, `*x.first().unwrap()`,
//! `x.last().copied().unwrap()`, `x.first().expect(..)`); `.for_each(|v| ..)` (also after
//! `.enumerate()`, `.zip(..)`, `.map(..)`) adding to a captured local; a row of a nested array three
//! levels deep bound by `let`; a local `Vec` used as a stack (`s.pop().unwrap()`, `if let Some(v) =
//! s.pop()`, `while let Some(v) = s.pop()`, `s.pop();`). And a wrong gradient fixed: constants pushed
//! between active values.
//!
//! Each function has `order = 2`. At several points each, its `_grad` is checked against the derivative
//! by hand and against central differences of the function, its `_vjp` against the gradient times a
//! cotangent, its `_jvp` against the gradient's inner product with a tangent, and its `_hessian` against
//! central differences of `_grad` (and, where it is short, the Hessian by hand).

// The forms under test are the ones users write, which clippy would rewrite.
#![allow(
    clippy::needless_range_loop,
    clippy::unnecessary_fold,
    clippy::clone_on_copy,
    clippy::needless_borrow
)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_dot, assert_fd_gradient, assert_jacobian, fd_jacobian, Inputs,
    ANALYTIC_TOL,
};

const POINTS: usize = 16;

/// The cotangent `_vjp` is called with: not 1, so that a `_vjp` ignoring it shows.
const COTANGENT: f64 = -1.75;

/// Checks a function of one slice at `x` through all its items: the value of each against the plain
/// function `f`, `_grad` against `by_hand` and central differences of `f`, `_vjp` against the gradient
/// times [`COTANGENT`], `_jvp` along `tangent` against the gradient's inner product with it, and the
/// Hessian against central differences of `_grad` (and `hessian_by_hand` where given).
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
#[track_caller]
fn check(
    what: &str,
    x: &[f64],
    tangent: &[f64],
    f: fn(&[f64]) -> f64,
    grad: fn(&[f64]) -> (f64, Vec<f64>),
    vjp: fn(&[f64], f64) -> (f64, Vec<f64>),
    jvp: fn(&[f64], Vec<f64>) -> (f64, f64),
    hessian: fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    by_hand: &[f64],
    hessian_by_hand: Option<Vec<Vec<f64>>>,
) {
    let what = |check: &str| format!("{what} at {x:?}: {check}");
    let value = f(x);
    let (v, g) = grad(x);
    assert_eq!(v, value, "{}", what("the value of _grad"));
    assert_all_close(&g, by_hand, ANALYTIC_TOL, &what("gradient by hand"));
    assert_fd_gradient(f, x, &g, &what("gradient vs central differences"));
    let (v, d) = vjp(x, COTANGENT);
    assert_eq!(v, value, "{}", what("the value of _vjp"));
    let scaled: Vec<f64> = g.iter().map(|g| COTANGENT * g).collect();
    assert_all_close(&d, &scaled, ANALYTIC_TOL, &what("_vjp vs gradient"));
    let (v, dot) = jvp(x, tangent.to_vec());
    assert_eq!(v, value, "{}", what("the value of _jvp"));
    assert_dot(dot, &g, tangent, 1e-12, &what("_jvp vs gradient"));
    let (v, g2, h) = hessian(x);
    assert_eq!(v, value, "{}", what("the value of _hessian"));
    assert_all_close(&g2, &g, ANALYTIC_TOL, &what("the gradient of _hessian"));
    assert_jacobian(
        &h,
        &fd_jacobian(|p| grad(p).1, x),
        &what("the Hessian vs central differences of _grad"),
    );
    if let Some(expected) = hessian_by_hand {
        for (i, (row, e)) in h.iter().zip(&expected).enumerate() {
            assert_all_close(
                row,
                e,
                ANALYTIC_TOL,
                &what(&format!("Hessian row {i} by hand")),
            );
        }
    }
}

/// `n` inputs in `[-1.5, 1.5)` and a tangent.
fn point(inputs: &mut Inputs, n: usize) -> (Vec<f64>, Vec<f64>) {
    let x = inputs.vec(n).iter().map(|v| 1.5 * v).collect();
    (x, inputs.vec(n))
}

/// Row `i` of a zero matrix of side `n` with `entries` (column, value) added.
fn sparse(n: usize, entries: &[(usize, usize, f64)]) -> Vec<Vec<f64>> {
    let mut h = vec![vec![0.0; n]; n];
    for &(i, j, v) in entries {
        h[i][j] += v;
    }
    h
}

// ---------------------------------------------------------------------------------------------------
// 1. The end elements unwrapped: `x.last()`, `x.first()`.

/// `x_{n-1} sin(x_0) + x_{n-1}²`: by `*x.last().unwrap()`, `*x.first().unwrap()` and
/// `x.last().copied().unwrap()` of a slice.
#[differentiable(order = 2)]
fn ends_of_slice(x: &[f64]) -> f64 {
    let last = *x.last().unwrap();
    last * x.first().unwrap().sin() + x.last().copied().unwrap() * last
}

/// `(x_0 + x_2)·(x_0 x_2)` over a local `Vec` of squares doubled: `2x_0² · 2x_2²` summed the other way,
/// the `Vec` grown by `.push`, its ends read by reference (`x.last().unwrap()` bound and read as `*top`,
/// `.expect(..)`) and by `.cloned()`.
#[differentiable(order = 2)]
fn ends_of_local_vec(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    for &u in x {
        v.push(2.0 * u * u);
    }
    let first = v.first().expect("three inputs").clone();
    let top = v.last().unwrap();
    *top * first + v.first().cloned().unwrap() * 0.5
}

/// `x_0 · x_3 · a_2` over an array `[x_1, x_2, x_3]`: `*a.last().unwrap()` of a local array and of a
/// fixed-size parameter `p: &[f64; 4]` (the function's only input).
#[differentiable(order = 2)]
fn ends_of_arrays(p: &[f64; 4]) -> f64 {
    let a = [p[1], p[2], p[3]];
    let l = *a.last().unwrap();
    *p.first().unwrap() * *p.last().unwrap() * l - a.first().copied().unwrap()
}

#[test]
fn end_elements_unwrapped() {
    let mut inputs = Inputs(27_01);
    for _ in 0..POINTS {
        let (x, t) = point(&mut inputs, 3);
        let (a, c) = (x[0], x[2]);
        check(
            "ends_of_slice",
            &x,
            &t,
            ends_of_slice,
            ends_of_slice_grad,
            ends_of_slice_vjp,
            ends_of_slice_jvp,
            ends_of_slice_hessian,
            &[c * a.cos(), 0.0, a.sin() + 2.0 * c],
            Some(sparse(
                3,
                &[
                    (0, 0, -c * a.sin()),
                    (0, 2, a.cos()),
                    (2, 0, a.cos()),
                    (2, 2, 2.0),
                ],
            )),
        );
        // 4 x_0² x_2² + x_0².
        check(
            "ends_of_local_vec",
            &x,
            &t,
            ends_of_local_vec,
            ends_of_local_vec_grad,
            ends_of_local_vec_vjp,
            ends_of_local_vec_jvp,
            ends_of_local_vec_hessian,
            &[8.0 * a * c * c + 2.0 * a, 0.0, 8.0 * a * a * c],
            Some(sparse(
                3,
                &[
                    (0, 0, 8.0 * c * c + 2.0),
                    (0, 2, 16.0 * a * c),
                    (2, 0, 16.0 * a * c),
                    (2, 2, 8.0 * a * a),
                ],
            )),
        );

        let (p, t) = point(&mut inputs, 4);
        let f = |p: &[f64]| ends_of_arrays(&[p[0], p[1], p[2], p[3]]);
        let (value, g) = ends_of_arrays_grad(&[p[0], p[1], p[2], p[3]]);
        assert_eq!(value, f(&p));
        let by_hand = [p[3] * p[3], -1.0, 0.0, 2.0 * p[0] * p[3]];
        assert_all_close(
            &g,
            &by_hand,
            ANALYTIC_TOL,
            "ends_of_arrays: gradient by hand",
        );
        assert_fd_gradient(f, &p, &g, "ends_of_arrays: gradient vs central differences");
        let (value, d) = ends_of_arrays_vjp(&[p[0], p[1], p[2], p[3]], COTANGENT);
        assert_eq!(value, f(&p));
        let scaled: Vec<f64> = g.iter().map(|g| COTANGENT * g).collect();
        assert_all_close(&d, &scaled, ANALYTIC_TOL, "ends_of_arrays: _vjp");
        let (value, dot) = ends_of_arrays_jvp(&[p[0], p[1], p[2], p[3]], [t[0], t[1], t[2], t[3]]);
        assert_eq!(value, f(&p));
        assert_dot(dot, &g, &t, 1e-12, "ends_of_arrays: _jvp");
        let (_, _, h) = ends_of_arrays_hessian(&[p[0], p[1], p[2], p[3]]);
        let expected = sparse(
            4,
            &[(0, 3, 2.0 * p[3]), (3, 0, 2.0 * p[3]), (3, 3, 2.0 * p[0])],
        );
        assert_jacobian(&h, &expected, "ends_of_arrays: Hessian by hand");
        let differences = fd_jacobian(
            |p| ends_of_arrays_grad(&[p[0], p[1], p[2], p[3]]).1.to_vec(),
            &p,
        );
        assert_jacobian(
            &h,
            &differences,
            "ends_of_arrays: Hessian vs differences of _grad",
        );
    }
}

#[differentiable]
fn last_of(x: &[f64]) -> f64 {
    *x.last().unwrap() * 2.0
}

#[differentiable]
fn first_of_local(x: &[f64]) -> f64 {
    let v: Vec<f64> = x.iter().map(|u| u * u).collect();
    v.first().copied().unwrap()
}

/// An empty slice panics in each generated item, where `unwrap` panics in the function.
#[test]
fn an_empty_slice_panics_in_every_item() {
    let panics = |f: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    assert!(panics(&|| {
        last_of(&[]);
    }));
    assert!(panics(&|| {
        last_of_grad(&[]);
    }));
    assert!(panics(&|| {
        last_of_vjp(&[], 1.0);
    }));
    assert!(panics(&|| {
        last_of_jvp(&[], vec![]);
    }));
    assert!(panics(&|| {
        first_of_local_grad(&[]);
    }));
    assert!(panics(&|| {
        first_of_local_jvp(&[], vec![]);
    }));
    // And on one element, the element is both ends.
    assert_eq!(last_of_grad(&[3.0]), (6.0, vec![2.0]));
    assert_eq!(first_of_local_grad(&[3.0]), (9.0, vec![6.0]));
}

// ---------------------------------------------------------------------------------------------------
// 2. `.for_each(..)` adding to a captured local.

/// `Σ x_i² + Σ i x_i + Σ x_i x_{i+1}`: `.for_each` over `.iter()`, `.iter().enumerate()` (a block body)
/// and `.zip(..)`, each adding to the same local.
#[differentiable(order = 2)]
fn for_each_sums(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    x.iter().for_each(|v| acc += v * v);
    x.iter().enumerate().for_each(|(i, &v)| {
        let w = i as f64;
        acc += w * v;
    });
    x.iter()
        .zip(x.iter().skip(1))
        .for_each(|(a, b): (&f64, &f64)| acc += a * b);
    acc
}

/// `Π (1 + x_i²)` by `.for_each` over `.map(..)` of a range, then the product's `sin`.
#[differentiable(order = 2)]
fn for_each_product(x: &[f64]) -> f64 {
    let mut p = 1.0;
    (0..x.len()).map(|i| x[i] * x[i]).for_each(|s| p *= 1.0 + s);
    p.sin()
}

#[test]
fn for_each_adds_to_a_captured_local() {
    let mut inputs = Inputs(27_02);
    for n in [1, 2, 3, 5] {
        for _ in 0..POINTS / 2 {
            let (x, t) = point(&mut inputs, n);
            let by_hand: Vec<f64> = (0..n)
                .map(|i| {
                    let left = if i > 0 { x[i - 1] } else { 0.0 };
                    let right = if i + 1 < n { x[i + 1] } else { 0.0 };
                    2.0 * x[i] + i as f64 + left + right
                })
                .collect();
            let mut hessian = vec![vec![0.0; n]; n];
            for i in 0..n {
                hessian[i][i] = 2.0;
                if i + 1 < n {
                    hessian[i][i + 1] = 1.0;
                    hessian[i + 1][i] = 1.0;
                }
            }
            check(
                "for_each_sums",
                &x,
                &t,
                for_each_sums,
                for_each_sums_grad,
                for_each_sums_vjp,
                for_each_sums_jvp,
                for_each_sums_hessian,
                &by_hand,
                Some(hessian),
            );

            let p: f64 = x.iter().map(|v| 1.0 + v * v).product();
            let by_hand: Vec<f64> = x
                .iter()
                .map(|v| p.cos() * p * 2.0 * v / (1.0 + v * v))
                .collect();
            check(
                "for_each_product",
                &x,
                &t,
                for_each_product,
                for_each_product_grad,
                for_each_product_vjp,
                for_each_product_jvp,
                for_each_product_hessian,
                &by_hand,
                None,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// 3. Pushes of constants between pushes of active values: each active value's adjoint is its own slot's.
// (The reverse sweep moved its push counter back only at an active value, so that `s.push(v);
// s.push(1.0);` gave `x_i` the adjoint of the slot after its own: `[4, 5, 6]` for `[1, 3, 5]` below.)

/// `Σ_i (2i + 1) x_i² + Σ_i (2i + 2)` (0-based), the squares pushed between constants, weighted by
/// position; and a constant pushed only where `x_i > 0`, which shifts the slots after it.
#[differentiable(order = 2)]
fn pushes_between_constants(x: &[f64]) -> f64 {
    let mut s = Vec::new();
    for &v in x {
        s.push(v * v);
        s.push(1.0);
    }
    let mut t = Vec::new();
    for &v in x {
        if v > 0.0 {
            t.push(2.0);
        }
        t.push(v);
    }
    let mut total = 0.0;
    for i in 0..s.len() {
        total += s[i] * (i as f64 + 1.0);
    }
    for j in 0..t.len() {
        total += t[j] * (j as f64).sin();
    }
    total
}

#[test]
fn pushes_of_constants_keep_the_slots() {
    let mut inputs = Inputs(27_03);
    for n in [1, 2, 4] {
        for _ in 0..POINTS / 2 {
            let (x, tangent) = point(&mut inputs, n);
            // The slot of `x_i` in `t`: the values before it, and a constant before it where positive.
            let mut slot = 0;
            let mut by_hand = Vec::new();
            let mut hessian = vec![vec![0.0; n]; n];
            for (i, &v) in x.iter().enumerate() {
                if v > 0.0 {
                    slot += 1;
                }
                by_hand.push((2 * i + 1) as f64 * 2.0 * v + (slot as f64).sin());
                hessian[i][i] = (2 * i + 1) as f64 * 2.0;
                slot += 1;
            }
            check(
                "pushes_between_constants",
                &x,
                &tangent,
                pushes_between_constants,
                pushes_between_constants_grad,
                pushes_between_constants_vjp,
                pushes_between_constants_jvp,
                pushes_between_constants_hessian,
                &by_hand,
                Some(hessian),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// 4. A row of a nested array three levels deep bound by `let`.

type Cube = [[[f64; 2]; 3]; 4];

/// `Σ_i Σ_j sin(c m_ij0) m_ij1 + m_{k,2,1}²`: `let row = m[i];` read `row[j][0]`, `row[j][1]` and
/// `row.len()`, and a row bound at an index `k` that changes after the `let` (the row stays the one at
/// the `let`).
#[differentiable(order = 2)]
fn nested_rows(m: &[[[f64; 2]; 3]; 4], c: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        let row = m[i];
        for j in 0..row.len() {
            s += (row[j][0] * c).sin() * row[j][1];
        }
    }
    let mut k = 1;
    let other = m[k];
    k += 1;
    s + other[2][1] * other[2][1] * (k as f64)
}

fn cube(p: &[f64]) -> Cube {
    let mut m = [[[0.0; 2]; 3]; 4];
    for i in 0..4 {
        for j in 0..3 {
            for k in 0..2 {
                m[i][j][k] = p[6 * i + 2 * j + k];
            }
        }
    }
    m
}

fn flat(m: &Cube, c: f64) -> Vec<f64> {
    let mut out: Vec<f64> = m.iter().flatten().flatten().copied().collect();
    out.push(c);
    out
}

#[test]
fn a_row_of_a_cube_bound_by_let() {
    let mut inputs = Inputs(27_04);
    for _ in 0..POINTS {
        let (p, t) = point(&mut inputs, 25);
        let (m, c) = (cube(&p), p[24]);
        let f = |p: &[f64]| nested_rows(&cube(p), p[24]);
        let (value, (gm, gc)) = nested_rows_grad(&m, c);
        assert_eq!(value, f(&p), "nested_rows: the value of _grad");
        let mut by_hand = vec![0.0; 25];
        for i in 0..4 {
            for j in 0..3 {
                let (a, b) = (m[i][j][0], m[i][j][1]);
                by_hand[6 * i + 2 * j] = c * (a * c).cos() * b;
                by_hand[6 * i + 2 * j + 1] = (a * c).sin();
                by_hand[24] += a * (a * c).cos() * b;
            }
        }
        by_hand[6 + 2 * 2 + 1] += 2.0 * 2.0 * m[1][2][1];
        let g = flat(&gm, gc);
        assert_all_close(&g, &by_hand, ANALYTIC_TOL, "nested_rows: gradient by hand");
        assert_fd_gradient(f, &p, &g, "nested_rows: gradient vs central differences");
        let (value, (vm, vc)) = nested_rows_vjp(&m, c, COTANGENT);
        assert_eq!(value, f(&p));
        let scaled: Vec<f64> = g.iter().map(|g| COTANGENT * g).collect();
        assert_all_close(&flat(&vm, vc), &scaled, ANALYTIC_TOL, "nested_rows: _vjp");
        let (value, dot) = nested_rows_jvp(&m, c, (cube(&t), t[24]));
        assert_eq!(value, f(&p));
        assert_dot(dot, &g, &t, 1e-12, "nested_rows: _jvp");
        let (_, _, h) = nested_rows_hessian(&m, c);
        let differences = fd_jacobian(
            |p| {
                let (_, (gm, gc)) = nested_rows_grad(&cube(p), p[24]);
                flat(&gm, gc)
            },
            &p,
        );
        assert_jacobian(
            &h,
            &differences,
            "nested_rows: Hessian vs differences of _grad",
        );
    }
}

/// A row of an array of matrices at an index given, bound and not read: out of range, it panics at the
/// `let` in each generated item as in the function.
#[differentiable]
#[allow(unused_variables)]
fn unread_row(m: &[[[f64; 2]; 2]; 2], i: usize) -> f64 {
    let row = m[i];
    m[0][1][1] * m[0][1][1]
}

#[test]
fn a_row_out_of_range_panics_at_the_let() {
    let m = [[[1.0, 2.0], [3.0, 4.0]]; 2];
    assert_eq!(unread_row_grad(&m, 1).1[0][1][1], 8.0);
    let panics = |f: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    assert!(panics(&|| {
        unread_row(&m, 2);
    }));
    assert!(panics(&|| {
        unread_row_grad(&m, 2);
    }));
    assert!(panics(&|| {
        unread_row_jvp(&m, 2, [[[0.0; 2]; 2]; 2]);
    }));
}

// ---------------------------------------------------------------------------------------------------
// 5. A local `Vec` used as a stack: `s.pop().unwrap()`, `if let Some(v) = s.pop()`, `while let Some(v) =
// s.pop()`. The popped value's adjoint goes back into the slot it came from, and a push after the pop
// writes that slot again.

/// `x_0² + 2x_1² + 2x_2²x_3² + x_3²` of four inputs: pops by `.unwrap()` and `.expect(..)`, a push into a
/// slot given back, a constant pushed and popped, then the rest of the stack read by index.
#[differentiable(order = 2)]
fn stack_pops(x: &[f64]) -> f64 {
    let mut s = Vec::new();
    for &v in x {
        s.push(v * v);
    }
    let a = s.pop().unwrap();
    let b = s.pop().expect("four inputs");
    s.push(a * b);
    s.push(2.0);
    let c = s.pop().unwrap();
    let d = s.pop().unwrap();
    let mut t = 0.0;
    for i in 0..s.len() {
        t += s[i] * (i as f64 + 1.0);
    }
    t + c * d + a
}

/// `2 Σ_i (n - i) sin x_i`: the stack drained by `while let`, the last element first, then an `if let`
/// on the empty stack taking its `else`.
#[differentiable(order = 2)]
fn stack_drained(x: &[f64]) -> f64 {
    let mut s = Vec::new();
    for &v in x {
        s.push(v.sin());
    }
    let mut acc = 0.0;
    let mut k = 1.0;
    while let Some(v) = s.pop() {
        acc += v * k;
        k += 1.0;
    }
    if let Some(w) = s.pop() {
        acc += w;
    } else {
        acc *= 2.0;
    }
    acc
}

/// `Σ_{v > 0} v³ + 0.1 (e + Σ_i exp(e_i))`, `e_i = v² + v` where `v = x_i > 0`, else `v²`: in a loop, the
/// top popped under a branch and a new value pushed into its slot; the stack (made by `vec![1.0]`)
/// drained by `while let` with `mut` binding; an `if let` that pops.
#[differentiable(order = 2)]
fn stack_reused(x: &[f64]) -> f64 {
    let mut s = vec![1.0];
    let mut acc = 0.0;
    for &v in x {
        s.push(v * v);
        if v > 0.0 {
            let top = s.pop().unwrap();
            acc += top * v;
            s.push(top + v);
        }
    }
    s.push(0.0);
    if let Some(zero) = s.pop() {
        acc += zero;
    }
    while let Some(mut t) = s.pop() {
        t = t.exp();
        acc += t * 0.1;
    }
    acc
}

/// `Σ_i 0.5^i x_i²`: a stack of indexes (no derivative), drained by `while let`.
#[differentiable(order = 2)]
fn index_stack(x: &[f64]) -> f64 {
    let mut todo: Vec<usize> = Vec::new();
    for i in 0..x.len() {
        todo.push(i);
    }
    let mut acc = 0.0;
    while let Some(i) = todo.pop() {
        acc = acc * 0.5 + x[i] * x[i];
    }
    acc
}

#[test]
fn a_vec_used_as_a_stack() {
    let mut inputs = Inputs(27_05);
    for _ in 0..POINTS {
        let (x, t) = point(&mut inputs, 4);
        let (x0, x1, x2, x3) = (x[0], x[1], x[2], x[3]);
        check(
            "stack_pops",
            &x,
            &t,
            stack_pops,
            stack_pops_grad,
            stack_pops_vjp,
            stack_pops_jvp,
            stack_pops_hessian,
            &[
                2.0 * x0,
                4.0 * x1,
                4.0 * x2 * x3 * x3,
                4.0 * x2 * x2 * x3 + 2.0 * x3,
            ],
            Some(sparse(
                4,
                &[
                    (0, 0, 2.0),
                    (1, 1, 4.0),
                    (2, 2, 4.0 * x3 * x3),
                    (2, 3, 8.0 * x2 * x3),
                    (3, 2, 8.0 * x2 * x3),
                    (3, 3, 4.0 * x2 * x2 + 2.0),
                ],
            )),
        );
    }
    for n in [1, 2, 3, 6] {
        for _ in 0..POINTS / 2 {
            let (x, t) = point(&mut inputs, n);
            let weight = |i: usize| 2.0 * (n - i) as f64;
            let diagonal = |d: Vec<f64>| {
                let mut h = vec![vec![0.0; n]; n];
                for (i, v) in d.into_iter().enumerate() {
                    h[i][i] = v;
                }
                h
            };
            check(
                "stack_drained",
                &x,
                &t,
                stack_drained,
                stack_drained_grad,
                stack_drained_vjp,
                stack_drained_jvp,
                stack_drained_hessian,
                &(0..n).map(|i| weight(i) * x[i].cos()).collect::<Vec<_>>(),
                Some(diagonal((0..n).map(|i| -weight(i) * x[i].sin()).collect())),
            );

            let grad: Vec<f64> = x
                .iter()
                .map(|&v| {
                    if v > 0.0 {
                        3.0 * v * v + 0.1 * (v * v + v).exp() * (2.0 * v + 1.0)
                    } else {
                        0.1 * (v * v).exp() * 2.0 * v
                    }
                })
                .collect();
            let second: Vec<f64> = x
                .iter()
                .map(|&v| {
                    if v > 0.0 {
                        let e = (v * v + v).exp();
                        6.0 * v + 0.1 * e * ((2.0 * v + 1.0).powi(2) + 2.0)
                    } else {
                        0.1 * (v * v).exp() * (4.0 * v * v + 2.0)
                    }
                })
                .collect();
            if x.iter().all(|v| v.abs() > 1e-3) {
                check(
                    "stack_reused",
                    &x,
                    &t,
                    stack_reused,
                    stack_reused_grad,
                    stack_reused_vjp,
                    stack_reused_jvp,
                    stack_reused_hessian,
                    &grad,
                    Some(diagonal(second)),
                );
            }

            check(
                "index_stack",
                &x,
                &t,
                index_stack,
                index_stack_grad,
                index_stack_vjp,
                index_stack_jvp,
                index_stack_hessian,
                &(0..n)
                    .map(|i| 2.0 * 0.5f64.powi(i as i32) * x[i])
                    .collect::<Vec<_>>(),
                Some(diagonal(
                    (0..n).map(|i| 2.0 * 0.5f64.powi(i as i32)).collect(),
                )),
            );
        }
    }
}

/// `2 x_3 + x_0 x_3` of four inputs: pops from a copy of the input (`x.to_vec()`), one of them the
/// statement `s.pop();`, whose element nothing reads.
#[differentiable(order = 2)]
fn stack_of_a_copy(x: &[f64]) -> f64 {
    let mut s = x.to_vec();
    let a = s.pop().unwrap();
    s.pop();
    a * s.len() as f64 + s[0] * a
}

/// `2 x_0 x_1`: a pop from `vec![0.0; 3]` after a store into it, and a push into the slot given back.
#[differentiable(order = 2)]
fn stack_of_zeros(x: &[f64]) -> f64 {
    let mut s = vec![0.0; 3];
    s[1] = x[0];
    let v = s.pop().unwrap();
    s.push(x[1] * 2.0);
    let w = s.pop().unwrap();
    v + w * s[1]
}

#[test]
fn stacks_made_by_copies() {
    let mut inputs = Inputs(27_06);
    for _ in 0..POINTS {
        let (x, t) = point(&mut inputs, 4);
        check(
            "stack_of_a_copy",
            &x,
            &t,
            stack_of_a_copy,
            stack_of_a_copy_grad,
            stack_of_a_copy_vjp,
            stack_of_a_copy_jvp,
            stack_of_a_copy_hessian,
            &[x[3], 0.0, 0.0, 2.0 + x[0]],
            Some(sparse(4, &[(0, 3, 1.0), (3, 0, 1.0)])),
        );
        check(
            "stack_of_zeros",
            &x[..2],
            &t[..2],
            stack_of_zeros,
            stack_of_zeros_grad,
            stack_of_zeros_vjp,
            stack_of_zeros_jvp,
            stack_of_zeros_hessian,
            &[2.0 * x[1], 2.0 * x[0]],
            Some(sparse(2, &[(0, 1, 2.0), (1, 0, 2.0)])),
        );
    }
}

/// One pop too many.
#[differentiable]
fn pops_past_the_bottom(x: &[f64]) -> f64 {
    let mut s = Vec::new();
    s.push(x[0]);
    let a = s.pop().unwrap();
    let b = s.pop().unwrap();
    a * b
}

#[test]
fn a_pop_of_an_empty_vec_panics_in_every_item() {
    let panics = |f: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    assert!(panics(&|| {
        pops_past_the_bottom(&[2.0]);
    }));
    assert!(panics(&|| {
        pops_past_the_bottom_grad(&[2.0]);
    }));
    assert!(panics(&|| {
        pops_past_the_bottom_vjp(&[2.0], 1.0);
    }));
    assert!(panics(&|| {
        pops_past_the_bottom_jvp(&[2.0], vec![1.0]);
    }));
}

// ---------------------------------------------------------------------------------------------------
// 6. The element `max_by`/`min_by` select (the last of equal maxima, the first of equal minima: Rust's
// choice, docs/conventions.md), and `max()`/`min()` of integers.

/// `2 max(x) + min(x)² + 10 min(x) + e^{max(x)}`: by `*x.iter().max_by(partial_cmp)`, `.copied().min_by(
/// total_cmp)`, a reversed comparator (`|&a, &b| b.partial_cmp(&a)`, a minimum) bound by reference and read
/// through `*`, and `f64::total_cmp`.
#[differentiable(order = 2)]
fn extremes(x: &[f64]) -> f64 {
    let m = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    let n = x.iter().copied().min_by(|a, b| a.total_cmp(b)).unwrap();
    let o = x
        .iter()
        .max_by(|&a, &b| b.partial_cmp(&a).unwrap())
        .unwrap();
    let e = x.iter().copied().max_by(f64::total_cmp).unwrap().exp();
    m * 2.0 + n * n + *o * 10.0 + e
}

/// `x_{max k} · x_{min k} + x_{max k}²` over integer indexes `k` (`.copied().max()`, `.iter().min()`),
/// which have no derivative.
#[differentiable(order = 2)]
fn integer_extremes(x: &[f64], k: &[usize]) -> f64 {
    let hi = k.iter().copied().max().unwrap();
    let lo = *k.iter().min().unwrap();
    x[hi] * x[lo] + x[hi] * x[hi]
}

#[test]
fn the_element_max_by_and_min_by_select() {
    let mut inputs = Inputs(27_07);
    for n in [1, 2, 3, 7] {
        for _ in 0..POINTS / 2 {
            let (x, t) = point(&mut inputs, n);
            // The inputs are distinct draws: no ties (checked), so differences see one element each.
            let hi = (0..n).fold(0, |b, i| if x[i] > x[b] { i } else { b });
            let lo = (0..n).fold(0, |b, i| if x[i] < x[b] { i } else { b });
            let mut grad = vec![0.0; n];
            grad[hi] += 2.0 + x[hi].exp();
            grad[lo] += 2.0 * x[lo] + 10.0;
            let mut h = vec![vec![0.0; n]; n];
            h[hi][hi] += x[hi].exp();
            h[lo][lo] += 2.0;
            check(
                "extremes",
                &x,
                &t,
                extremes,
                extremes_grad,
                extremes_vjp,
                extremes_jvp,
                extremes_hessian,
                &grad,
                Some(h),
            );
        }
    }
    // Ties: `max_by` gives the derivative to the last of equal maxima, `min_by` to the first of equal
    // minima (and the reversed comparator, a `max_by`, to the last of the minima).
    let x = [1.0, 3.0, -2.0, 3.0, -2.0, 0.5];
    let (value, grad) = extremes_grad(&x);
    assert_eq!(value, extremes(&x));
    let e = 3.0f64.exp();
    assert_eq!(grad, vec![0.0, 0.0, -4.0, 2.0 + e, 10.0, 0.0]);
    // `total_cmp`: `-0.0 < 0.0`, so its maximum (`e`'s, slope 1) is the `0.0` wherever it stands; for
    // `partial_cmp` the two zeros are equal, and the last is the maximum (`m`'s, slope 2).
    let (_, grad) = extremes_grad(&[0.0, -0.0, -1.0]);
    assert_eq!(grad, vec![1.0, 2.0, 8.0]);
    let (_, grad) = extremes_grad(&[-0.0, 0.0, -1.0]);
    assert_eq!(grad, vec![0.0, 3.0, 8.0]);
    // A NaN panics where `partial_cmp(..).unwrap()` does, in each item; one element is compared with nothing.
    let panics = |f: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
    assert!(panics(&|| {
        extremes(&[1.0, f64::NAN]);
    }));
    assert!(panics(&|| {
        extremes_grad(&[1.0, f64::NAN]);
    }));
    assert!(panics(&|| {
        extremes_jvp(&[1.0, f64::NAN], vec![1.0, 1.0]);
    }));
    assert!(!panics(&|| {
        extremes_grad(&[f64::NAN]);
    }));
    assert!(panics(&|| {
        extremes_grad(&[]);
    }));

    let mut inputs = Inputs(27_08);
    for _ in 0..POINTS {
        let (x, tangent) = point(&mut inputs, 4);
        for k in [vec![2, 0, 3, 0], vec![1], vec![3, 3, 2]] {
            let (hi, lo) = (*k.iter().max().unwrap(), *k.iter().min().unwrap());
            let f = |p: &[f64]| integer_extremes(p, &k);
            let (value, g) = integer_extremes_grad(&x, &k);
            assert_eq!(value, f(&x));
            let mut by_hand = vec![0.0; 4];
            by_hand[hi] += x[lo] + 2.0 * x[hi];
            by_hand[lo] += x[hi];
            assert_all_close(
                &g,
                &by_hand,
                ANALYTIC_TOL,
                "integer_extremes: gradient by hand",
            );
            assert_fd_gradient(
                f,
                &x,
                &g,
                "integer_extremes: gradient vs central differences",
            );
            let (value, dot) = integer_extremes_jvp(&x, &k, tangent.clone());
            assert_eq!(value, f(&x));
            assert_dot(dot, &g, &tangent, 1e-12, "integer_extremes: _jvp");
            let (_, d) = integer_extremes_vjp(&x, &k, COTANGENT);
            let scaled: Vec<f64> = g.iter().map(|g| COTANGENT * g).collect();
            assert_all_close(&d, &scaled, ANALYTIC_TOL, "integer_extremes: _vjp");
            let (_, _, h) = integer_extremes_hessian(&x, &k);
            let differences = fd_jacobian(|p| integer_extremes_grad(p, &k).1, &x);
            assert_jacobian(
                &h,
                &differences,
                "integer_extremes: Hessian vs differences of _grad",
            );
        }
    }
}
