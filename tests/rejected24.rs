//! Valid Rust that `#[differentiable]` used to reject, now differentiated: a whole `Vec` assigned in a loop
//! (the double buffer `cur = next;`) and `std::mem::swap` of two buffers or two floats; `break 'outer v`
//! out of a loop nested in a labeled `loop`; zips with a reversed side (`a.iter().rev().zip(b.iter())`); a
//! plain helper's integer result as an index; a lowercase `const` of the body as a `match` pattern; and an
//! integer written beside the float result into a `&mut [usize]` parameter (`-> (f64, usize)` is an error).
//! Each function has `order = 2`: its value is compared with the same body without the macro, its gradient
//! (`_grad`, `_grad_into`) with central differences of that body, and its Hessian with central differences of
//! `_grad`, on many random inputs.

// The forms under test are the ones users write, which clippy would rewrite; a lowercase `const` is one.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_swap,
    clippy::never_loop,
    non_upper_case_globals
)]

mod common;

use autodiff::differentiable;
use common::{assert_fd_gradient, assert_jacobian, fd_jacobian, Inputs};

const POINTS: usize = 40;

/// Checks a function of one slice at `x`: its value against `plain` (the same body without the macro), its
/// gradient against central differences of `plain`, `_grad_into` against `_grad`, `_jvp` against the
/// gradient, and its Hessian against central differences of `_grad`.
#[track_caller]
fn check(
    what: &str,
    x: &[f64],
    plain: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    grad_into: impl Fn(&[f64], &mut [f64]) -> f64,
    hessian: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    jvp: impl Fn(&[f64], Vec<f64>) -> (f64, f64),
) {
    let (value, g) = grad(x);
    assert_eq!(value, plain(x), "{what}: the value at {x:?}");
    assert_fd_gradient(&plain, x, &g, &format!("{what}: _grad"));
    let mut into = vec![7.0; x.len()];
    assert_eq!(grad_into(x, &mut into), value, "{what}: _grad_into's value");
    assert_eq!(into, g, "{what}: _grad_into at {x:?}");
    let tangent: Vec<f64> = (0..x.len()).map(|i| (i as f64 * 0.7).sin() + 0.5).collect();
    let (j_value, derivative) = jvp(x, tangent.clone());
    assert_eq!(j_value, value, "{what}: _jvp's value at {x:?}");
    common::assert_dot(
        derivative,
        &g,
        &tangent,
        1e-10,
        &format!("{what}: _jvp at {x:?}"),
    );
    let (h_value, h_grad, h) = hessian(x);
    assert_eq!(h_value, value, "{what}: _hessian's value at {x:?}");
    common::assert_all_close(&h_grad, &g, 1e-12, &format!("{what}: _hessian's gradient"));
    assert_jacobian(
        &h,
        &fd_jacobian(|x| grad(x).1, x),
        &format!("{what}: the Hessian at {x:?} vs differences of the gradient"),
    );
}

/// `check` of the generated family `f_grad`, `f_grad_into`, `f_hessian`, `f_jvp` of a function of one slice.
macro_rules! check_family {
    ($x:expr, $plain:expr, $grad:ident, $grad_into:ident, $hessian:ident, $jvp:ident) => {
        check(
            stringify!($grad),
            $x,
            $plain,
            |x| $grad(x),
            |x, g| $grad_into(x, g),
            |x| $hessian(x),
            |x, t| $jvp(x, t),
        )
    };
}

// ---------------------------------------------------------------------------------------------------
// 1. A whole `Vec` assigned in a loop, and `std::mem::swap`.

/// Three steps of a nonlinear stencil, double-buffered: a fresh `next` each step, then `cur = next;`.
#[differentiable(order = 2)]
fn diffuse(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    for _ in 0..3 {
        let mut next = vec![0.0; n];
        for i in 0..n {
            let left = if i > 0 { cur[i - 1] } else { 0.0 };
            next[i] = 0.5 * cur[i] + 0.25 * left + 0.1 * cur[i] * cur[i];
        }
        cur = next;
    }
    cur.iter().map(|v| v * v).sum()
}

fn diffuse_plain(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    for _ in 0..3 {
        let mut next = vec![0.0; n];
        for i in 0..n {
            let left = if i > 0 { cur[i - 1] } else { 0.0 };
            next[i] = 0.5 * cur[i] + 0.25 * left + 0.1 * cur[i] * cur[i];
        }
        cur = next;
    }
    cur.iter().map(|v| v * v).sum()
}

/// The same steps with one second buffer made before the loop, the two swapped by `std::mem::swap`.
#[differentiable(order = 2)]
fn swapped(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 0..n {
            next[i] = cur[i].sin() + 0.5 * cur[(i + 1) % n] * cur[i];
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur[0] * next[n - 1] + cur.iter().sum::<f64>()
}

fn swapped_plain(x: &[f64]) -> f64 {
    let n = x.len();
    let mut cur = x.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..3 {
        for i in 0..n {
            next[i] = cur[i].sin() + 0.5 * cur[(i + 1) % n] * cur[i];
        }
        std::mem::swap(&mut cur, &mut next);
    }
    cur[0] * next[n - 1] + cur.iter().sum::<f64>()
}

/// Two floats swapped by `std::mem::swap`, in a loop (a recurrence) and after it.
#[differentiable(order = 2)]
fn swapped_floats(x: &[f64]) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    for k in 0..4 {
        a = a * 0.5 + b.sin() + k as f64;
        std::mem::swap(&mut a, &mut b);
    }
    if a > b {
        std::mem::swap(&mut a, &mut b);
    }
    a * 2.0 + b * b
}

fn swapped_floats_plain(x: &[f64]) -> f64 {
    let mut a = x[0];
    let mut b = x[1];
    for k in 0..4 {
        a = a * 0.5 + b.sin() + k as f64;
        std::mem::swap(&mut a, &mut b);
    }
    if a > b {
        std::mem::swap(&mut a, &mut b);
    }
    a * 2.0 + b * b
}

/// A fixed-size array assigned whole in a loop (which worked before; kept beside the `Vec` forms).
#[differentiable(order = 2)]
fn array_steps(x: &[f64]) -> f64 {
    let mut cur = [x[0], x[1], x[2]];
    for _ in 0..3 {
        let mut next = [0.0; 3];
        for i in 0..3 {
            next[i] = cur[i].sin() + 0.5 * cur[(i + 1) % 3];
        }
        cur = next;
    }
    cur[0] * cur[1] + cur[2]
}

fn array_steps_plain(x: &[f64]) -> f64 {
    let mut cur = [x[0], x[1], x[2]];
    for _ in 0..3 {
        let mut next = [0.0; 3];
        for i in 0..3 {
            next[i] = cur[i].sin() + 0.5 * cur[(i + 1) % 3];
        }
        cur = next;
    }
    cur[0] * cur[1] + cur[2]
}

/// A `Vec` cloned, changed in one element and assigned back in a loop (rejected before, with the matrix
/// form `tests/ui/arrays/vec-assigned-whole-in-loop.rs` still pins).
#[differentiable(order = 2)]
fn relaxed(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    for _ in 0..3 {
        let mut next = y.clone();
        next[0] = 0.5 * (y[0] + y[1]) * y[2];
        next[1] = y[0].sin();
        y = next;
    }
    y[0] + y[1] * y[2]
}

fn relaxed_plain(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    for _ in 0..3 {
        let mut next = y.clone();
        next[0] = 0.5 * (y[0] + y[1]) * y[2];
        next[1] = y[0].sin();
        y = next;
    }
    y[0] + y[1] * y[2]
}

#[test]
fn whole_buffers_assigned_and_swapped_in_loops() {
    let mut inputs = Inputs(2401);
    for point in 0..POINTS {
        let x = inputs.vec(3 + point % 4);
        check_family!(
            &x,
            diffuse_plain,
            diffuse_grad,
            diffuse_grad_into,
            diffuse_hessian,
            diffuse_jvp
        );
        check_family!(
            &x,
            swapped_plain,
            swapped_grad,
            swapped_grad_into,
            swapped_hessian,
            swapped_jvp
        );
        check_family!(
            &x,
            swapped_floats_plain,
            swapped_floats_grad,
            swapped_floats_grad_into,
            swapped_floats_hessian,
            swapped_floats_jvp
        );
        check_family!(
            &x,
            array_steps_plain,
            array_steps_grad,
            array_steps_grad_into,
            array_steps_hessian,
            array_steps_jvp
        );
        check_family!(
            &x,
            relaxed_plain,
            relaxed_grad,
            relaxed_grad_into,
            relaxed_hessian,
            relaxed_jvp
        );
    }
}

/// A `Vec` whose length the assignment would change: the function runs as written, its derivatives panic
/// (they copy the new elements into the old buffer), never give a wrong gradient.
#[differentiable]
fn growing(x: &[f64]) -> f64 {
    let mut cur = x.to_vec();
    for _ in 0..2 {
        let mut next = vec![0.0; cur.len() + 1];
        for i in 0..cur.len() {
            next[i] = cur[i] * 2.0;
        }
        cur = next;
    }
    cur.iter().sum()
}

#[test]
fn a_vec_assigned_another_length_panics_in_the_derivatives() {
    assert_eq!(growing(&[1.0, 2.0]), 12.0);
    let panic = std::panic::catch_unwind(|| growing_grad(&[1.0, 2.0])).unwrap_err();
    let message = panic.downcast_ref::<String>().expect("a message");
    assert!(message.contains("of another length to `cur`"), "{message}");
}

// ---------------------------------------------------------------------------------------------------
// 2. `break 'outer value` from a loop nested in a labeled `loop`.

/// The first element above a threshold, scaled, searched in rounds; the loop's own `break` gives another
/// value after three rounds.
#[differentiable(order = 2)]
fn search(x: &[f64]) -> f64 {
    let t = x[0] * x[0];
    let mut round = 0usize;
    let r = 'outer: loop {
        for i in 1..x.len() {
            if x[i] * (round as f64 + 1.0) > t {
                break 'outer x[i] * t + (round as f64);
            }
        }
        round += 1;
        if round > 2 {
            break t.sin() * x[1];
        }
    };
    r * r + x[1]
}

fn search_plain(x: &[f64]) -> f64 {
    let t = x[0] * x[0];
    let mut round = 0usize;
    let r = 'outer: loop {
        for i in 1..x.len() {
            if x[i] * (round as f64 + 1.0) > t {
                break 'outer x[i] * t + (round as f64);
            }
        }
        round += 1;
        if round > 2 {
            break t.sin() * x[1];
        }
    };
    r * r + x[1]
}

/// A pair carried out of two nested loops, used as a statement's value and as the function's tail.
#[differentiable(order = 2)]
fn first_pair(x: &[f64]) -> f64 {
    let n = x.len();
    let (a, b) = 'scan: loop {
        for i in 0..n {
            for j in (i + 1)..n {
                if x[i] * x[j] > 0.1 {
                    break 'scan (x[i], x[j].exp());
                }
            }
        }
        break 'scan (x[0], x[n - 1]);
    };
    let mut s = a * b;
    s += 'tail: loop {
        let mut k = 0;
        while k < n {
            if x[k] < 0.0 {
                break 'tail x[k] * s;
            }
            k += 1;
        }
        break s.cos();
    };
    s
}

fn first_pair_plain(x: &[f64]) -> f64 {
    let n = x.len();
    let (a, b) = 'scan: loop {
        for i in 0..n {
            for j in (i + 1)..n {
                if x[i] * x[j] > 0.1 {
                    break 'scan (x[i], x[j].exp());
                }
            }
        }
        break 'scan (x[0], x[n - 1]);
    };
    let mut s = a * b;
    s += 'tail: loop {
        let mut k = 0;
        while k < n {
            if x[k] < 0.0 {
                break 'tail x[k] * s;
            }
            k += 1;
        }
        break s.cos();
    };
    s
}

/// The labeled loop as the function's tail (`tests/ui/fence/label-break-value.rs` pinned its error before).
#[differentiable(order = 2)]
fn first_large(x: &[f64]) -> f64 {
    'search: loop {
        for &v in x {
            if v > 0.5 {
                break 'search v * v;
            }
        }
        break 'search x[0].sin();
    }
}

fn first_large_plain(x: &[f64]) -> f64 {
    'search: loop {
        for &v in x {
            if v > 0.5 {
                break 'search v * v;
            }
        }
        break 'search x[0].sin();
    }
}

#[test]
fn labeled_loop_values_from_nested_loops() {
    let mut inputs = Inputs(2402);
    // Points that leave by the loops' own `break`s too (no element above the threshold, none negative).
    let fixed = [
        vec![0.9, -0.5, -0.3],
        vec![0.9, -0.5, 0.05],
        vec![0.2, 0.3, 0.25, 0.45],
    ];
    for point in 0..POINTS + fixed.len() {
        let x = fixed
            .get(point)
            .cloned()
            .unwrap_or_else(|| inputs.vec(3 + point % 4));
        check_family!(
            &x,
            search_plain,
            search_grad,
            search_grad_into,
            search_hessian,
            search_jvp
        );
        check_family!(
            &x,
            first_pair_plain,
            first_pair_grad,
            first_pair_grad_into,
            first_pair_hessian,
            first_pair_jvp
        );
        check_family!(
            &x,
            first_large_plain,
            first_large_grad,
            first_large_grad_into,
            first_large_hessian,
            first_large_jvp
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 3. Zips with a reversed side.

/// The two slices have different lengths, so a reversed side is not the zip reversed: `a.iter().rev()`
/// starts from `a`'s last element whatever `b`'s length.
#[differentiable(order = 2)]
fn reversed_zips(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().rev().zip(b.iter()) {
        s += x * y;
    }
    for (x, y) in a.iter().zip(b.iter().rev()) {
        s += x * y * x;
    }
    for (i, (x, &y)) in a.iter().rev().zip(b.iter()).enumerate() {
        s += x.sin() * y * (i as f64 + 1.0);
    }
    for (x, y) in a.iter().rev().zip(b.iter().rev()).rev() {
        s = s * 0.5 + x * y;
    }
    for ((x, y), z) in a.iter().zip(b.iter().rev()).zip(a.iter().rev()) {
        s += x * y * z;
    }
    s + a
        .iter()
        .rev()
        .zip(b.iter())
        .map(|(p, q)| p * q * q)
        .sum::<f64>()
}

fn reversed_zips_plain(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().rev().zip(b.iter()) {
        s += x * y;
    }
    for (x, y) in a.iter().zip(b.iter().rev()) {
        s += x * y * x;
    }
    for (i, (x, &y)) in a.iter().rev().zip(b.iter()).enumerate() {
        s += x.sin() * y * (i as f64 + 1.0);
    }
    for (x, y) in a.iter().rev().zip(b.iter().rev()).rev() {
        s = s * 0.5 + x * y;
    }
    for ((x, y), z) in a.iter().zip(b.iter().rev()).zip(a.iter().rev()) {
        s += x * y * z;
    }
    s + a
        .iter()
        .rev()
        .zip(b.iter())
        .map(|(p, q)| p * q * q)
        .sum::<f64>()
}

#[test]
fn zips_with_a_reversed_side() {
    let mut inputs = Inputs(2403);
    for point in 0..POINTS {
        // `a` and `b` of lengths 2..5 each, concatenated for the differences.
        let (m, n) = (2 + point % 4, 2 + (point / 4) % 4);
        let x = inputs.vec(m + n);
        let split = |x: &[f64]| (x[..m].to_vec(), x[m..].to_vec());
        let (a, b) = split(&x);
        let plain = |x: &[f64]| {
            let (a, b) = split(x);
            reversed_zips_plain(&a, &b)
        };
        let grad = |x: &[f64]| {
            let (a, b) = split(x);
            let (value, (ga, gb)) = reversed_zips_grad(&a, &b);
            (value, [ga, gb].concat())
        };
        let (value, g) = grad(&x);
        assert_eq!(value, plain(&x), "the value at {x:?}");
        assert_fd_gradient(plain, &x, &g, "reversed_zips_grad");
        let (mut ga, mut gb) = (vec![7.0; m], vec![7.0; n]);
        assert_eq!(reversed_zips_grad_into(&a, &b, (&mut ga, &mut gb)), value);
        assert_eq!([ga, gb].concat(), g, "_grad_into at {x:?}");
        let tangent: Vec<f64> = (0..m + n).map(|i| (i as f64 * 0.7).sin() + 0.5).collect();
        let (j_value, derivative) =
            reversed_zips_jvp(&a, &b, (tangent[..m].to_vec(), tangent[m..].to_vec()));
        assert_eq!(j_value, value);
        common::assert_dot(derivative, &g, &tangent, 1e-10, "reversed_zips_jvp");
        let (_, _, hessian) = reversed_zips_hessian(&a, &b);
        assert_jacobian(
            &hessian,
            &fd_jacobian(|x| grad(x).1, &x),
            &format!("reversed_zips' Hessian at {x:?}"),
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 4. A plain helper's integer result used as an index.

/// Not differentiable: the position of the largest label.
fn argmax(v: &[usize]) -> usize {
    let mut k = 0;
    for i in 0..v.len() {
        if v[i] > v[k] {
            k = i;
        }
    }
    k
}

fn half(n: usize) -> usize {
    n / 2
}

#[differentiable(order = 2)]
fn picked(x: &[f64], labels: &[usize]) -> f64 {
    let k = argmax(labels);
    let mut s = x[k] * x[k];
    s += x[half(x.len())].sin() * x[0];
    let order: Vec<usize> = labels.iter().map(|l| l % 3).collect();
    for i in 0..x.len() {
        s += x[i] * x[argmax(&order) % x.len()] * 0.5;
    }
    s
}

fn picked_plain(x: &[f64], labels: &[usize]) -> f64 {
    let k = argmax(labels);
    let mut s = x[k] * x[k];
    s += x[half(x.len())].sin() * x[0];
    let order: Vec<usize> = labels.iter().map(|l| l % 3).collect();
    for i in 0..x.len() {
        s += x[i] * x[argmax(&order) % x.len()] * 0.5;
    }
    s
}

#[test]
fn plain_helpers_give_indexes() {
    let mut inputs = Inputs(2404);
    for point in 0..POINTS {
        let x = inputs.vec(3 + point % 4);
        let labels: Vec<usize> = (0..x.len()).map(|i| (i * 7 + point) % 5).collect();
        assert_eq!(picked(&x, &labels), picked_plain(&x, &labels));
        check(
            "picked",
            &x,
            |x| picked_plain(x, &labels),
            |x| picked_grad(x, &labels),
            |x, g| picked_grad_into(x, &labels, g),
            |x| picked_hessian(x, &labels),
            |x, t| picked_jvp(x, &labels, t),
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 5. Constants and paths as `match` patterns.

const LIMIT: usize = 3;

/// What a point is, passed in (not differentiated).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Square,
    Wave,
}

/// `LIMIT`, `Kind::Square`, and a lowercase `const` of the body, which is a constant in a pattern as in
/// Rust (a pattern naming it does not bind).
#[differentiable(order = 2)]
fn matched(x: &[f64], n: usize, kind: Kind) -> f64 {
    const low: usize = 1;
    let a = match n {
        LIMIT => x[0] * x[1],
        low | 5 => x[0].sin(),
        m if m > 10 => x[1] * 3.0,
        _ => x[0] + x[1],
    };
    let b = match kind {
        Kind::Square => a * a,
        Kind::Wave => (a * x[1]).cos(),
    };
    b + a
}

fn matched_plain(x: &[f64], n: usize, kind: Kind) -> f64 {
    const low: usize = 1;
    let a = match n {
        LIMIT => x[0] * x[1],
        low | 5 => x[0].sin(),
        m if m > 10 => x[1] * 3.0,
        _ => x[0] + x[1],
    };
    let b = match kind {
        Kind::Square => a * a,
        Kind::Wave => (a * x[1]).cos(),
    };
    b + a
}

#[test]
fn constants_and_paths_as_patterns() {
    let mut inputs = Inputs(2405);
    for point in 0..POINTS {
        let x = inputs.vec(2);
        let n = [0, 1, 2, 3, 5, 11][point % 6];
        let kind = [Kind::Square, Kind::Wave][point % 2];
        assert_eq!(matched(&x, n, kind), matched_plain(&x, n, kind));
        check(
            "matched",
            &x,
            |x| matched_plain(x, n, kind),
            |x| matched_grad(x, n, kind),
            |x, g| matched_grad_into(x, n, kind, g),
            |x| matched_hessian(x, n, kind),
            |x, t| matched_jvp(x, n, kind, t),
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 6. An integer beside the float result: `-> (f64, usize)` is an error (API.md: a differentiable function
// returns floats; `tests/ui/signature/return-tuple-with-int.rs`), which says to write the integer into a
// `&mut [usize]` parameter, as here.

#[differentiable(order = 2)]
fn largest(x: &[f64], at: &mut [usize]) -> f64 {
    let mut k = 0;
    for i in 0..x.len() {
        if x[i] > x[k] {
            k = i;
        }
    }
    at[0] = k;
    x[k] * x[k] + x[0].sin()
}

fn largest_plain(x: &[f64]) -> (f64, usize) {
    let mut k = 0;
    for i in 0..x.len() {
        if x[i] > x[k] {
            k = i;
        }
    }
    (x[k] * x[k] + x[0].sin(), k)
}

#[test]
fn an_integer_result_written_into_a_parameter() {
    let mut inputs = Inputs(2406);
    for point in 0..POINTS {
        let x = inputs.vec(2 + point % 4);
        let (value, k) = largest_plain(&x);
        let mut at = [usize::MAX];
        assert_eq!(largest(&x, &mut at), value);
        assert_eq!(at[0], k);
        let mut at = [usize::MAX];
        assert_eq!(largest_grad(&x, &mut at).0, value);
        assert_eq!(at[0], k, "_grad writes the integer too");
        check(
            "largest",
            &x,
            |x| largest_plain(x).0,
            |x| largest_grad(x, &mut [0]),
            |x, g| largest_grad_into(x, &mut [0], g),
            |x| largest_hessian(x, &mut [0]),
            |x, t| largest_jvp(x, &mut [0], t),
        );
    }
}
