//! Programs written the way a demanding user writes numeric Rust (softmax cross-entropy with a max
//! shift, loops with `break`/`continue` carrying accumulators, `while`, `match` on integers, early returns
//! inside loops, shadowing, nested helper items, the non-smooth float methods, casts, sub-slices and the
//! iterator adaptors), each checked at many random points: the gradient against central differences of
//! the plain function, and at `order = 2` the Hessian against central differences of the gradient.

#![allow(
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::collapsible_else_if,
    clippy::manual_clamp,
    clippy::ptr_arg,
    clippy::needless_return,
    clippy::never_loop,
    clippy::unnecessary_cast
)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_fd_gradient, fd_jacobian, Inputs};

/// Points in `[-1, 1)^n` (scaled by `scale`), `count` of them, from `seed`.
fn points(seed: u64, n: usize, count: usize, scale: f64) -> Vec<Vec<f64>> {
    let mut g = Inputs(seed);
    (0..count)
        .map(|_| g.vec(n).into_iter().map(|v| v * scale).collect())
        .collect()
}

/// Checks the value, the gradient against central differences and the Hessian against central
/// differences of the gradient, at every point.
#[track_caller]
fn check2(
    what: &str,
    pts: &[Vec<f64>],
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
) {
    for x in pts {
        let (v, g) = grad(x);
        let fv = f(x);
        assert!(
            (v - fv).abs() <= 1e-12 * (1.0 + fv.abs()),
            "{what} value at {x:?}: {v} vs {fv}"
        );
        assert_fd_gradient(&f, x, &g, what);
        let (hv, hg, h) = hessian(x);
        assert!(
            (hv - fv).abs() <= 1e-12 * (1.0 + fv.abs()),
            "{what} hessian value"
        );
        assert_all_close(
            &hg,
            &g,
            1e-10,
            &format!("{what} hessian's gradient at {x:?}"),
        );
        let fdh = fd_jacobian(|y| grad(y).1, x);
        for (i, (a, e)) in h.iter().zip(&fdh).enumerate() {
            for (j, (&a, &e)) in a.iter().zip(e).enumerate() {
                let err = (a - e).abs() / 1.0_f64.max(a.abs()).max(e.abs());
                assert!(
                    err <= 1e-5,
                    "{what} hessian[{i}][{j}] at {x:?}: got {a:e}, differences {e:e}"
                );
            }
        }
    }
}

// ---- softmax cross-entropy ----

#[differentiable(order = 2)]
fn logsumexp(z: &[f64]) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for &v in z {
        m = m.max(v);
    }
    let mut s = 0.0;
    for &v in z {
        s += (v - m).exp();
    }
    m + s.ln()
}

#[differentiable(order = 2)]
fn xent(z: &[f64], label: usize) -> f64 {
    logsumexp(z) - z[label]
}

#[differentiable(order = 2)]
fn softmax_xent(z: &[f64], label: usize) -> f64 {
    let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let mut e = vec![0.0; z.len()];
    let mut s = 0.0;
    for i in 0..z.len() {
        e[i] = (z[i] - m).exp();
        s += e[i];
    }
    -(e[label] / s).ln()
}

#[test]
fn softmax_cross_entropy() {
    let pts = points(1, 5, 24, 3.0);
    check2(
        "logsumexp",
        &pts,
        logsumexp,
        logsumexp_grad,
        logsumexp_hessian,
    );
    for label in 0..5 {
        check2(
            "xent",
            &pts,
            |z| xent(z, label),
            |z| xent_grad(z, label),
            |z| xent_hessian(z, label),
        );
        check2(
            "softmax_xent",
            &pts,
            |z| softmax_xent(z, label),
            |z| softmax_xent_grad(z, label),
            |z| softmax_xent_hessian(z, label),
        );
    }
}

// ---- loops with break / continue / while / early return ----

#[differentiable(order = 2)]
fn break_continue(x: &[f64]) -> f64 {
    let mut acc = 1.0;
    let mut t = 0.0;
    for i in 0..x.len() {
        if x[i] < -0.5 {
            continue;
        }
        acc = acc * (1.0 + 0.5 * x[i].sin());
        t += acc * x[i];
        if t > 1.2 {
            break;
        }
    }
    acc + t * acc
}

#[differentiable(order = 2)]
fn while_carry(x: &[f64]) -> f64 {
    let mut i = 0;
    let mut s = 0.0;
    let mut p = x[0];
    while i < x.len() {
        s = s * 0.5 + p * x[i];
        p = p.tanh() + x[i];
        i += 1;
    }
    s + p * p
}

#[differentiable(order = 2)]
fn while_active_cond(x: &[f64]) -> f64 {
    let mut s = x[0] * x[1];
    let mut k = 0;
    while s < 3.0 && k < 20 {
        s = s + x[1].exp() * 0.25 + x[0] * x[0];
        k += 1;
    }
    s * x[2]
}

#[differentiable(order = 2)]
fn loop_break_value(x: &[f64]) -> f64 {
    let mut i = 0;
    let mut acc = x[0];
    let r = loop {
        if i >= x.len() {
            break acc * 2.0;
        }
        acc = acc * x[i].cos() + x[i];
        i += 1;
    };
    r * acc
}

#[differentiable(order = 2)]
fn early_return_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
        if s > 1.5 {
            return s.sqrt() * x[i];
        }
    }
    s.cos()
}

#[differentiable(order = 2)]
fn early_return_nested(x: &[f64]) -> f64 {
    let mut s = 1.0;
    let mut i = 0;
    while i < x.len() {
        for j in 0..i {
            s = s * (1.0 + x[i] * x[j] * 0.3);
            if s > 2.5 {
                return s * x[j];
            }
        }
        i += 1;
    }
    s
}

#[differentiable(order = 2)]
fn labeled_continue(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..x.len() {
        let mut p = 1.0;
        for j in 0..x.len() {
            if j == i {
                continue 'outer;
            }
            p = p * x[j] + x[i];
            s += p;
        }
    }
    s
}

#[test]
fn loops_with_exits() {
    let pts = points(2, 6, 40, 1.0);
    check2(
        "break_continue",
        &pts,
        break_continue,
        break_continue_grad,
        break_continue_hessian,
    );
    check2(
        "while_carry",
        &pts,
        while_carry,
        while_carry_grad,
        while_carry_hessian,
    );
    check2(
        "while_active_cond",
        &pts,
        while_active_cond,
        while_active_cond_grad,
        while_active_cond_hessian,
    );
    check2(
        "loop_break_value",
        &pts,
        loop_break_value,
        loop_break_value_grad,
        loop_break_value_hessian,
    );
    check2(
        "early_return_in_loop",
        &pts,
        early_return_in_loop,
        early_return_in_loop_grad,
        early_return_in_loop_hessian,
    );
    check2(
        "early_return_nested",
        &pts,
        early_return_nested,
        early_return_nested_grad,
        early_return_nested_hessian,
    );
    check2(
        "labeled_continue",
        &pts,
        labeled_continue,
        labeled_continue_grad,
        labeled_continue_hessian,
    );
}

// ---- match, shadowing, nested items ----

#[differentiable(order = 2)]
fn match_int(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let w = match i % 4 {
            0 => x[i].sin(),
            1 | 2 => x[i] * x[i],
            _ => {
                let t = x[i].exp();
                t - 1.0
            }
        };
        s += w * x[(i + 1) % x.len()];
    }
    s
}

#[differentiable(order = 2)]
fn match_guard(x: &[f64], n: usize) -> f64 {
    let mut s = x[0];
    for i in 0..x.len() {
        s = match i + n {
            0 => s * x[i],
            4..=usize::MAX => s + x[i].powi(2),
            3..=3 => s - x[i],
            _ => s * 0.5 + x[i].tanh(),
        };
    }
    s
}

#[differentiable(order = 2)]
fn shadowing(x: f64, y: f64) -> f64 {
    let x = x * y;
    let y = x.sin() + y;
    let x = {
        let x = x + y;
        x * x
    };
    let (x, y) = (y, x);
    x * y + x
}

#[differentiable(order = 2)]
fn nested_items(x: &[f64]) -> f64 {
    fn sq(v: f64) -> f64 {
        v * v
    }
    fn norm(v: &[f64]) -> f64 {
        let mut s = 0.0;
        for &a in v {
            s += sq(a);
        }
        s.sqrt()
    }
    norm(x) * sq(x[0])
}

#[test]
fn match_shadow_nested() {
    let pts = points(3, 6, 40, 1.0);
    check2(
        "match_int",
        &pts,
        match_int,
        match_int_grad,
        match_int_hessian,
    );
    for n in 0..5 {
        check2(
            "match_guard",
            &pts,
            |x| match_guard(x, n),
            |x| match_guard_grad(x, n),
            |x| match_guard_hessian(x, n),
        );
    }
    let p2 = points(4, 2, 40, 1.5);
    check2(
        "shadowing",
        &p2,
        |v| shadowing(v[0], v[1]),
        |v| {
            let (r, (a, b)) = shadowing_grad(v[0], v[1]);
            (r, vec![a, b])
        },
        |v| {
            let (r, (a, b), h) = shadowing_hessian(v[0], v[1]);
            (r, vec![a, b], h)
        },
    );
    check2(
        "nested_items",
        &pts,
        nested_items,
        nested_items_grad,
        nested_items_hessian,
    );
}

// ---- float methods, UFCS, casts ----

#[differentiable(order = 2)]
fn methods(x: f64, y: f64) -> f64 {
    let a = x.max(y) * x.min(0.3) + y.abs();
    let b = x.clamp(-0.5, 0.5) * y.powi(3) + (x * x + 1.0).powf(y);
    let c = x.hypot(y) + y.atan2(x);
    a + b * c
}

#[differentiable(order = 2)]
fn methods_ufcs(x: f64, y: f64) -> f64 {
    let a = f64::max(x, y) * f64::min(x, 0.3) + f64::abs(y);
    let b = f64::powi(y, 3) + f64::powf(x * x + 1.0, y) + f64::sqrt(x * x + 2.0);
    let c = f64::hypot(x, y) + f64::atan2(y, x) + f64::clamp(x, -0.5, 0.5);
    a + b * c
}

#[differentiable(order = 2)]
fn clamp_active_bounds(x: f64, y: f64) -> f64 {
    x.clamp(y - 0.4, y + 0.4) * y + (x * y).clamp(-0.2, 0.2)
}

#[differentiable(order = 2)]
fn casts(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let w = (i as f64 + 1.0) / (n as f64);
        s += w * x[i];
        let k = (x[i] * 3.0).floor() as i32;
        s += x[i].powi(k.abs() + 1);
    }
    s * (x.len() as f64).sqrt()
}

#[differentiable(order = 2)]
fn float_casts(x: f64, y: f64) -> f64 {
    let a = x as f64;
    let b = (y * 2.0) as f64;
    a * b + (a as f64).sin()
}

#[test]
fn float_methods_and_casts() {
    let p2 = points(5, 2, 60, 1.5);
    let two = |g: (f64, (f64, f64))| (g.0, vec![g.1 .0, g.1 .1]);
    let two_h = |g: (f64, (f64, f64), Vec<Vec<f64>>)| (g.0, vec![g.1 .0, g.1 .1], g.2);
    check2(
        "methods",
        &p2,
        |v| methods(v[0], v[1]),
        |v| two(methods_grad(v[0], v[1])),
        |v| two_h(methods_hessian(v[0], v[1])),
    );
    check2(
        "methods_ufcs",
        &p2,
        |v| methods_ufcs(v[0], v[1]),
        |v| two(methods_ufcs_grad(v[0], v[1])),
        |v| two_h(methods_ufcs_hessian(v[0], v[1])),
    );
    check2(
        "clamp_active_bounds",
        &p2,
        |v| clamp_active_bounds(v[0], v[1]),
        |v| two(clamp_active_bounds_grad(v[0], v[1])),
        |v| two_h(clamp_active_bounds_hessian(v[0], v[1])),
    );
    check2(
        "float_casts",
        &p2,
        |v| float_casts(v[0], v[1]),
        |v| two(float_casts_grad(v[0], v[1])),
        |v| two_h(float_casts_hessian(v[0], v[1])),
    );
    let pts = points(6, 5, 40, 1.0);
    check2(
        "casts",
        &pts,
        |x| casts(x, 3),
        |x| casts_grad(x, 3),
        |x| casts_hessian(x, 3),
    );
}

// ---- sub-slices and iterator adaptors ----

#[differentiable(order = 2)]
fn dot_helper(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiable(order = 2)]
fn sub_slices(x: &[f64]) -> f64 {
    let n = x.len();
    let head = &x[..n - 1];
    let tail = &x[1..];
    let mid = &x[1..n - 1];
    dot_helper(head, tail) + mid.iter().map(|v| v * v).sum::<f64>() + x[2..].iter().sum::<f64>()
}

#[differentiable(order = 2)]
fn adaptors(x: &[f64], y: &[f64]) -> f64 {
    let s: f64 = x.iter().zip(y.iter()).map(|(a, b)| a * b).sum();
    let p: f64 = x.iter().map(|v| 1.0 + 0.5 * v).product();
    let f = y.iter().fold(0.0, |acc, v| acc * 0.5 + v.sin());
    let e: f64 = x.iter().enumerate().map(|(i, v)| (i as f64) * v * v).sum();
    let c: f64 = y.iter().copied().map(|v| v.exp()).sum();
    s * p + f + e + c
}

#[differentiable(order = 2)]
fn matrix_rows(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        let row = &m[i][1..];
        s += row.iter().map(|v| v * v).sum::<f64>() * m[i][0];
    }
    s
}

#[test]
fn slices_and_adaptors() {
    let pts = points(7, 5, 40, 1.0);
    check2(
        "sub_slices",
        &pts,
        sub_slices,
        sub_slices_grad,
        sub_slices_hessian,
    );
    let p6 = points(8, 6, 40, 1.0);
    check2(
        "adaptors",
        &p6,
        |v| adaptors(&v[..3], &v[3..]),
        |v| {
            let (r, (a, b)) = adaptors_grad(&v[..3], &v[3..]);
            (r, [a, b].concat())
        },
        |v| {
            let (r, (a, b), h) = adaptors_hessian(&v[..3], &v[3..]);
            (r, [a, b].concat(), h)
        },
    );
    let rows = |v: &[f64]| vec![v[..3].to_vec(), v[3..].to_vec()];
    check2(
        "matrix_rows",
        &p6,
        |v| matrix_rows(&rows(v)),
        |v| {
            let (r, g) = matrix_rows_grad(&rows(v));
            (r, g.concat())
        },
        |v| {
            let (r, g, h) = matrix_rows_hessian(&rows(v));
            (r, g.concat(), h)
        },
    );
}

// ---- a float bound under the name of an array ----
//
// The macro's set of names used as arrays was by name alone: in `let x = s;` inside a loop over the
// parameter `x`, the copy made `s` "an array" too, its `let` became the making of an array, and the loop's
// statements vanished from the generated sweeps (value 0 and gradient 0 where it compiled, `len()` of a
// float where it did not). Now a name is followed to the binding it refers to where it is written.

#[differentiable(order = 2)]
fn copy_named_like_the_slice(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x.iter() {
        let x = s;
        s = x * 0.5 + v * v;
    }
    s
}

#[differentiable(order = 2)]
fn copy_named_like_the_slice_indexed(x: &[f64]) -> f64 {
    let mut s = x[0];
    for i in 0..x.len() {
        let v = x[i];
        let x = s;
        s = x * v.sin() + v;
    }
    s
}

#[differentiable(order = 2)]
fn fold_accumulator_named_like_the_slice(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |x, y| x * 0.5 + y * y)
}

#[differentiable]
fn square(v: f64) -> f64 {
    v * v
}

#[differentiable(order = 2)]
fn call_bound_to_the_slice_name(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let v = x[i];
        let x = square(s + v);
        s = x * 0.5 + v;
    }
    s
}

#[differentiable(order = 2)]
fn branch_bound_to_the_slice_name(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let v = x[i];
        let x = if v > 0.0 { s } else { v };
        s = x * 0.5 + v;
    }
    s
}

#[differentiable(order = 2)]
fn float_from_a_call_copied_to_the_slice_name(x: &[f64]) -> f64 {
    let mut s = square(x[0]);
    for _ in 0..x.len() {
        let x = s;
        s = x * 0.5 + 1.0;
    }
    s * x[1]
}

/// The name of the returned `Vec`, bound first to a float from a call in an inner block: the name is
/// returned, but that binding is not.
#[differentiable]
fn returned_name_bound_to_a_float_first(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let t = {
        let out = square(x[0]);
        out * 2.0
    };
    let mut out = vec![0.0; n];
    for i in 0..n {
        out[i] = x[i] * t;
    }
    out
}

#[differentiable(order = 2)]
fn through_the_returned_name(x: &[f64]) -> f64 {
    let r = returned_name_bound_to_a_float_first(x);
    r[0] * r[1] + r[2]
}

#[test]
fn floats_named_like_arrays() {
    let pts = points(9, 5, 40, 1.0);
    check2(
        "copy_named_like_the_slice",
        &pts,
        copy_named_like_the_slice,
        copy_named_like_the_slice_grad,
        copy_named_like_the_slice_hessian,
    );
    check2(
        "copy_named_like_the_slice_indexed",
        &pts,
        copy_named_like_the_slice_indexed,
        copy_named_like_the_slice_indexed_grad,
        copy_named_like_the_slice_indexed_hessian,
    );
    check2(
        "fold_accumulator_named_like_the_slice",
        &pts,
        fold_accumulator_named_like_the_slice,
        fold_accumulator_named_like_the_slice_grad,
        fold_accumulator_named_like_the_slice_hessian,
    );
    check2(
        "call_bound_to_the_slice_name",
        &pts,
        call_bound_to_the_slice_name,
        call_bound_to_the_slice_name_grad,
        call_bound_to_the_slice_name_hessian,
    );
    check2(
        "branch_bound_to_the_slice_name",
        &pts,
        branch_bound_to_the_slice_name,
        branch_bound_to_the_slice_name_grad,
        branch_bound_to_the_slice_name_hessian,
    );
    check2(
        "float_from_a_call_copied_to_the_slice_name",
        &pts,
        float_from_a_call_copied_to_the_slice_name,
        float_from_a_call_copied_to_the_slice_name_grad,
        float_from_a_call_copied_to_the_slice_name_hessian,
    );
    check2(
        "through_the_returned_name",
        &pts,
        through_the_returned_name,
        through_the_returned_name_grad,
        through_the_returned_name_hessian,
    );
    // Its Jacobian: out_i = 2 x_0^2 x_i, so d out_i / d x_j = 2 x_0^2 [i = j] + 4 x_0 x_i [j = 0].
    for x in &pts {
        let jac = returned_name_bound_to_a_float_first_jacobian(x);
        for i in 0..x.len() {
            for j in 0..x.len() {
                let diagonal = if i == j { 2.0 * x[0] * x[0] } else { 0.0 };
                let first = if j == 0 { 4.0 * x[0] * x[i] } else { 0.0 };
                common::assert_close(
                    jac[i][j],
                    diagonal + first,
                    common::ANALYTIC_TOL,
                    "returned name jacobian",
                );
            }
        }
    }
    // The analytic gradient of the first: s_n = sum_i 0.5^(n-1-i) v_i^2.
    for x in &pts {
        let (_, g) = copy_named_like_the_slice_grad(x);
        let n = x.len();
        for i in 0..n {
            let expected = 0.5f64.powi((n - 1 - i) as i32) * 2.0 * x[i];
            common::assert_close(
                g[i],
                expected,
                common::ANALYTIC_TOL,
                "copy_named_like_the_slice analytic",
            );
        }
    }
}

// ---- parameters named like the locals of `f_hessian` ----
//
// `f_hessian` bound `let (value, gradient) = f_grad(..);` with the names as written, then lifted the
// parameters into dual numbers by name: a parameter called `value` or `gradient` was read as the
// function's value or gradient from then on. For `value * value * b` at (0.5, 3) the Hessian came out
// [[6, 1.5], [1.5, 0]] instead of [[6, 1], [1, 0]], with nothing to show for it; an array parameter so
// named did not compile. Both Hessian builders now bind hygienic names.

#[differentiable(order = 2)]
fn named_value(value: f64, b: f64) -> f64 {
    value * value * b
}

#[differentiable(order = 2)]
fn named_gradient(gradient: f64, value: f64) -> f64 {
    gradient * value.sin() + gradient * gradient * value
}

#[differentiable(order = 2)]
fn named_like_locals(value: &[f64], gradient: &[f64], tangent: f64) -> f64 {
    let mut s = tangent;
    for i in 0..value.len() {
        s += value[i] * gradient[i].sin() * tangent;
    }
    s
}

#[differentiable(order = 2)]
fn named_like_locals_fixed(value: [f64; 2], gradient: (f64, f64), v: f64) -> f64 {
    value[0] * gradient.0 * v + value[1].sin() * gradient.1 * v * v
}

/// A matrix parameter takes the other Hessian builder (one `f_hvp` per input).
#[differentiable(order = 2)]
fn named_value_matrix(value: &[Vec<f64>], gradient: f64) -> f64 {
    value[0][0] * value[1][1] * gradient + value[0][1].sin() * gradient * gradient
}

#[test]
fn parameters_named_like_generated_locals() {
    for x in points(10, 2, 40, 2.0) {
        let (a, b) = (x[0], x[1]);
        // value * value * b: H = [[2b, 2a], [2a, 0]].
        let (v, g, h) = named_value_hessian(a, b);
        common::assert_close(v, named_value(a, b), 1e-15, "named_value value");
        assert_all_close(
            &[g.0, g.1],
            &[2.0 * a * b, a * a],
            1e-15,
            "named_value gradient",
        );
        let expected = [[2.0 * b, 2.0 * a], [2.0 * a, 0.0]];
        for i in 0..2 {
            assert_all_close(
                &h[i],
                &expected[i],
                common::ANALYTIC_TOL,
                "named_value hessian",
            );
        }
        // g sin(v) + g^2 v: H = [[2v, cos v + 2g], [cos v + 2g, -g sin v]].
        let (v, _, h) = named_gradient_hessian(a, b);
        common::assert_close(v, named_gradient(a, b), 1e-15, "named_gradient value");
        let off = b.cos() + 2.0 * a;
        let expected = [[2.0 * b, off], [off, -a * b.sin()]];
        for i in 0..2 {
            assert_all_close(
                &h[i],
                &expected[i],
                common::ANALYTIC_TOL,
                "named_gradient hessian",
            );
        }
        let (_, _, hv) = named_gradient_hvp(a, b, (0.3, -0.7));
        let expected = (
            expected[0][0] * 0.3 - expected[0][1] * 0.7,
            expected[1][0] * 0.3 - expected[1][1] * 0.7,
        );
        common::assert_close(hv.0, expected.0, common::ANALYTIC_TOL, "named_gradient hvp");
        common::assert_close(hv.1, expected.1, common::ANALYTIC_TOL, "named_gradient hvp");
    }
    let flat = |v: &[f64]| (v[..2].to_vec(), v[2..4].to_vec(), v[4]);
    check2(
        "named_like_locals",
        &points(11, 5, 30, 1.0),
        |v| {
            let (a, b, t) = flat(v);
            named_like_locals(&a, &b, t)
        },
        |v| {
            let (a, b, t) = flat(v);
            let (r, (ga, gb, gt)) = named_like_locals_grad(&a, &b, t);
            (r, [ga, gb, vec![gt]].concat())
        },
        |v| {
            let (a, b, t) = flat(v);
            let (r, (ga, gb, gt), h) = named_like_locals_hessian(&a, &b, t);
            (r, [ga, gb, vec![gt]].concat(), h)
        },
    );
    check2(
        "named_like_locals_fixed",
        &points(12, 5, 30, 1.0),
        |v| named_like_locals_fixed([v[0], v[1]], (v[2], v[3]), v[4]),
        |v| {
            let (r, (a, b, c)) = named_like_locals_fixed_grad([v[0], v[1]], (v[2], v[3]), v[4]);
            (r, vec![a[0], a[1], b.0, b.1, c])
        },
        |v| {
            let (r, (a, b, c), h) =
                named_like_locals_fixed_hessian([v[0], v[1]], (v[2], v[3]), v[4]);
            (r, vec![a[0], a[1], b.0, b.1, c], h)
        },
    );
    let rows = |v: &[f64]| vec![v[..2].to_vec(), v[2..4].to_vec()];
    check2(
        "named_value_matrix",
        &points(13, 5, 30, 1.0),
        |v| named_value_matrix(&rows(v), v[4]),
        |v| {
            let (r, (m, g)) = named_value_matrix_grad(&rows(v), v[4]);
            (r, [m.concat(), vec![g]].concat())
        },
        |v| {
            let (r, (m, g), h) = named_value_matrix_hessian(&rows(v), v[4]);
            (r, [m.concat(), vec![g]].concat(), h)
        },
    );
}

// ---- a block's bindings end with it, also after a returning loop, `if` or `break` ----
//
// The statements after a loop or `if` that returns (or breaks) are lowered as its continuation, in a
// scope of their own inside the block; a name they bind shadows the outer one only until the block ends
// (a shadowing `s` read after the block gave the value and gradient of the inner `s` before).

#[differentiable(order = 2)]
fn shadow_after_returning_loop(x: &[f64]) -> f64 {
    let s = x[0] * x[1];
    let mut acc = 0.0;
    if x[2] < 0.5 {
        for i in 0..x.len() {
            if x[i] > 0.9 {
                return x[i] * s;
            }
        }
        let s = 5.0 * x[3];
        acc += s * x[4];
    }
    s * x[5] + s.sin() + acc
}

#[differentiable(order = 2)]
fn shadow_in_block_after_return(x: &[f64]) -> f64 {
    let s = x[0] * x[1];
    let mut acc = x[4];
    {
        if x[2] > 0.8 {
            return s * s;
        }
        let s = x[3].exp();
        acc *= s;
    }
    s * x[5] + acc
}

#[differentiable(order = 2)]
fn shadow_in_loop_after_break(x: &[f64]) -> f64 {
    let mut s = x[0];
    let mut acc = 0.0;
    for i in 1..x.len() {
        if x[i] > 0.3 {
            if x[i] > 0.95 {
                break;
            }
            let s = x[i] * 2.0;
            acc += s * s;
        }
        acc += s * x[i];
        s = s * 0.5 + x[i];
    }
    acc + s
}

#[differentiable(order = 2)]
fn slice_shadowed_after_returning_loop(x: &[f64]) -> f64 {
    let mut acc = x[3];
    if x[0] < 0.6 {
        for i in 0..2 {
            if x[i] > 0.95 {
                return x[i] * x[1];
            }
        }
        let x = 2.0;
        acc *= x;
    }
    x[1] * x[2] + acc
}

#[test]
fn block_bindings_end_with_the_block() {
    let pts = points(22, 6, 60, 1.0);
    check2(
        "shadow_after_returning_loop",
        &pts,
        shadow_after_returning_loop,
        shadow_after_returning_loop_grad,
        shadow_after_returning_loop_hessian,
    );
    check2(
        "shadow_in_block_after_return",
        &pts,
        shadow_in_block_after_return,
        shadow_in_block_after_return_grad,
        shadow_in_block_after_return_hessian,
    );
    check2(
        "shadow_in_loop_after_break",
        &pts,
        shadow_in_loop_after_break,
        shadow_in_loop_after_break_grad,
        shadow_in_loop_after_break_hessian,
    );
    check2(
        "slice_shadowed_after_returning_loop",
        &pts,
        slice_shadowed_after_returning_loop,
        slice_shadowed_after_returning_loop_grad,
        slice_shadowed_after_returning_loop_hessian,
    );
    // The analytic value on the path that does not return: the outer `s` after the block.
    let x = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
    let s = 0.1 * 0.2;
    let (v, g) = shadow_after_returning_loop_grad(&x);
    assert!((v - (s * 0.6 + f64::sin(s) + 5.0 * 0.4 * 0.5)).abs() < 1e-15);
    assert!((g[5] - s).abs() < 1e-15 && (g[0] - 0.2 * (0.6 + s.cos())).abs() < 1e-15);
}
