//! Valid Rust forms the macro used to reject, now rewritten before the fence (`autodiff-macros/src/sugar.rs`):
//! destructuring assignments (`(a, b) = (b, a + b)`, `(a, b) = f(x)`, `[p, q] = [q, p]`), the values of
//! labeled blocks (`'done: { .. break 'done v; .. }`, also out of a `for` inside the block), and `match`
//! guards and bindings (`n if n % 2 == 0 => ..`, `_ if x > 1.0 => ..`); and `x as f32` in an `f64` function
//! with `order = 2`, which its generic copy rounds (`__private::round_f32`). Each function has `order = 2`:
//! its gradient (`_grad`, `_grad_into`) is checked against central differences of the function and, where
//! it is short, against the derivative by hand; its Hessian against central differences of `_grad`, on
//! many inputs.

// The forms under test are the ones users write, which clippy would rewrite.
#![allow(clippy::needless_range_loop, clippy::manual_swap)]

mod common;

use autodiff::{differentiable, Float};
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_jacobian, fd_jacobian, Inputs,
};

const POINTS: usize = 40;

/// Checks one function of flat inputs at `x`: `value`, `grad` (what `_grad` gave), `grad_into` (what
/// `_grad_into` gave) and `hessian` (what `_hessian` gave) against the primal `f` by central differences,
/// the Hessian against central differences of `grad_of` (the generated gradient as a function).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check(
    what: &str,
    x: &[f64],
    f: impl Fn(&[f64]) -> f64,
    value: f64,
    grad: &[f64],
    grad_into: &[f64],
    hessian: &[Vec<f64>],
    grad_of: impl Fn(&[f64]) -> Vec<f64>,
) {
    assert_eq!(value, f(x), "{what}: the value at {x:?}");
    assert_fd_gradient(&f, x, grad, &format!("{what}: _grad"));
    assert_eq!(grad, grad_into, "{what}: _grad_into at {x:?}");
    assert_jacobian(
        hessian,
        &fd_jacobian(grad_of, x),
        &format!("{what}: the Hessian at {x:?} vs differences of the gradient"),
    );
}

// ---------------------------------------------------------------------------------------------------
// 1. Destructuring assignment.

/// A recurrence of pairs, `(a, b) = (b, g(a, b))`: each step reads both old values.
#[differentiable(order = 2)]
fn recurrence(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..4 {
        (a, b) = (b, a * 0.5 + b.sin());
    }
    a * b
}

/// The same recurrence with a `let` of new names, as the macro's error used to suggest.
fn recurrence_by_lets(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    for _ in 0..4 {
        let (na, nb) = (b, a * 0.5 + b.sin());
        a = na;
        b = nb;
    }
    a * b
}

#[differentiable]
fn polar<T: Float>(r: T, t: T) -> (T, T) {
    (r * t.cos(), r * t.sin())
}

/// The parts of a call's tuple result assigned to existing variables.
#[differentiable(order = 2)]
fn from_call(x: f64, y: f64) -> f64 {
    let mut a = x;
    let mut b = y;
    if a > 10.0 {
        b = a;
    }
    (a, b) = polar(a, b);
    a * b + a
}

/// An array destructuring assignment that swaps, a nested tuple with `_`, and elements as places.
#[differentiable(order = 2)]
fn swaps(x: f64, y: f64) -> f64 {
    let mut p = x;
    let mut q = y * y;
    [p, q] = [q, p];
    let mut v = [x, y];
    (v[0], (v[1], _)) = (v[1] * p, (v[0], 1.0));
    p * 2.0 + q.sin() + v[0] * v[1]
}

#[test]
fn destructuring_assignments() {
    let mut inputs = Inputs(2301);
    for _ in 0..POINTS {
        let x = [2.0 * inputs.next(), 2.0 * inputs.next()];
        let flat = |f: fn(f64, f64) -> f64| move |x: &[f64]| f(x[0], x[1]);

        let (value, (gx, gy)) = recurrence_grad(x[0], x[1]);
        let (mut ix, mut iy) = (7.0, 7.0);
        recurrence_grad_into(x[0], x[1], (&mut ix, &mut iy));
        let (_, _, hessian) = recurrence_hessian(x[0], x[1]);
        assert_eq!(value, recurrence_by_lets(x[0], x[1]));
        check(
            "recurrence",
            &x,
            flat(recurrence),
            value,
            &[gx, gy],
            &[ix, iy],
            &hessian,
            |x| {
                let (_, (gx, gy)) = recurrence_grad(x[0], x[1]);
                vec![gx, gy]
            },
        );

        let (value, (gx, gy)) = from_call_grad(x[0], x[1]);
        let (mut ix, mut iy) = (7.0, 7.0);
        from_call_grad_into(x[0], x[1], (&mut ix, &mut iy));
        let (_, _, hessian) = from_call_hessian(x[0], x[1]);
        check(
            "from_call",
            &x,
            flat(from_call),
            value,
            &[gx, gy],
            &[ix, iy],
            &hessian,
            |x| {
                let (_, (gx, gy)) = from_call_grad(x[0], x[1]);
                vec![gx, gy]
            },
        );
        // x² cos y sin y + x cos y.
        let (r, t) = (x[0], x[1]);
        assert_close(
            gx,
            r * (2.0 * t).sin() + t.cos(),
            1e-12,
            "from_call d/dx by hand",
        );
        assert_close(
            gy,
            r * r * (2.0 * t).cos() - r * t.sin(),
            1e-12,
            "from_call d/dy by hand",
        );
        let by_hand = [
            [(2.0 * t).sin(), 2.0 * r * (2.0 * t).cos() - t.sin()],
            [
                2.0 * r * (2.0 * t).cos() - t.sin(),
                -2.0 * r * r * (2.0 * t).sin() - r * t.cos(),
            ],
        ];
        for i in 0..2 {
            assert_all_close(
                &hessian[i],
                &by_hand[i],
                1e-10,
                "from_call's Hessian by hand",
            );
        }

        let (value, (gx, gy)) = swaps_grad(x[0], x[1]);
        let (mut ix, mut iy) = (7.0, 7.0);
        swaps_grad_into(x[0], x[1], (&mut ix, &mut iy));
        let (_, _, hessian) = swaps_hessian(x[0], x[1]);
        check(
            "swaps",
            &x,
            flat(swaps),
            value,
            &[gx, gy],
            &[ix, iy],
            &hessian,
            |x| {
                let (_, (gx, gy)) = swaps_grad(x[0], x[1]);
                vec![gx, gy]
            },
        );
        // p = y², q = x, v = [y · y², x]: 2y² + sin x + x y³.
        let (a, b) = (x[0], x[1]);
        assert_close(
            value,
            2.0 * b * b + a.sin() + a * b * b * b,
            1e-12,
            "swaps' value by hand",
        );
        assert_close(gx, a.cos() + b * b * b, 1e-12, "swaps d/dx by hand");
        assert_close(gy, 4.0 * b + 3.0 * a * b * b, 1e-12, "swaps d/dy by hand");
    }
}

// ---------------------------------------------------------------------------------------------------
// 2. Labeled block values.

#[differentiable(order = 2)]
fn labeled(x: f64) -> f64 {
    let v = 'done: {
        if x > 0.0 {
            break 'done x * x;
        }
        x.sin()
    };
    v * 3.0
}

/// The first element above one half, squared, found by a `for` inside the block; else `cos x[0]`.
#[differentiable(order = 2)]
fn labeled_search(x: &[f64]) -> f64 {
    let v = 'found: {
        for i in 0..x.len() {
            if x[i] > 0.5 {
                break 'found x[i] * x[i] * x[(i + 1) % x.len()];
            }
        }
        x[0].cos()
    };
    v + x[1]
}

/// A labeled block without a value, left early, and one as the function's value.
#[differentiable(order = 2)]
fn labeled_statement(x: f64, y: f64) -> f64 {
    let mut s = x * y;
    'scale: {
        if s < 0.0 {
            break 'scale;
        }
        s = s.exp();
    }
    'result: {
        if y > 0.5 {
            break 'result s * y;
        }
        s + x
    }
}

/// A labeled block in a labeled loop, left by `continue 'items` (a jump past the block's `loop`) and by
/// `break 'v value`.
#[differentiable(order = 2)]
fn labeled_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'items: for i in 0..x.len() {
        let v = 'v: {
            if x[i] < -0.5 {
                continue 'items;
            }
            if x[i] > 0.5 {
                break 'v x[i] * x[i];
            }
            x[i].sin()
        };
        s += v * x[(i + 1) % x.len()];
    }
    s
}

#[test]
fn labeled_block_values() {
    let mut inputs = Inputs(2302);
    for _ in 0..POINTS {
        let x = 2.0 * inputs.next();
        if x.abs() < 1e-3 {
            continue;
        }
        let (value, g) = labeled_grad(x);
        let mut into = 7.0;
        labeled_grad_into(x, &mut into);
        let (_, _, h) = labeled_hessian(x);
        check(
            "labeled",
            &[x],
            |x| labeled(x[0]),
            value,
            &[g],
            &[into],
            &h,
            |x| vec![labeled_grad(x[0]).1],
        );
        let (g_hand, h_hand) = if x > 0.0 {
            (6.0 * x, 6.0)
        } else {
            (3.0 * x.cos(), -3.0 * x.sin())
        };
        assert_close(g, g_hand, 1e-12, "labeled d/dx by hand");
        assert_close(h[0][0], h_hand, 1e-12, "labeled d2/dx2 by hand");

        let xs = inputs.vec(4);
        if xs.iter().any(|v| (v.abs() - 0.5).abs() < 1e-3) {
            continue;
        }
        let (value, g) = labeled_in_loop_grad(&xs);
        let mut into = vec![7.0; 4];
        labeled_in_loop_grad_into(&xs, &mut into);
        let (_, _, h) = labeled_in_loop_hessian(&xs);
        check(
            "labeled_in_loop",
            &xs,
            labeled_in_loop,
            value,
            &g,
            &into,
            &h,
            |x| labeled_in_loop_grad(x).1,
        );

        let (value, g) = labeled_search_grad(&xs);
        let mut into = vec![7.0; 4];
        labeled_search_grad_into(&xs, &mut into);
        let (_, _, h) = labeled_search_hessian(&xs);
        check(
            "labeled_search",
            &xs,
            labeled_search,
            value,
            &g,
            &into,
            &h,
            |x| labeled_search_grad(x).1,
        );

        let y = [2.0 * inputs.next(), 2.0 * inputs.next()];
        if (y[0] * y[1]).abs() < 1e-3 || (y[1] - 0.5).abs() < 1e-3 {
            continue;
        }
        let (value, (gx, gy)) = labeled_statement_grad(y[0], y[1]);
        let (mut ix, mut iy) = (7.0, 7.0);
        labeled_statement_grad_into(y[0], y[1], (&mut ix, &mut iy));
        let (_, _, h) = labeled_statement_hessian(y[0], y[1]);
        check(
            "labeled_statement",
            &y,
            |y| labeled_statement(y[0], y[1]),
            value,
            &[gx, gy],
            &[ix, iy],
            &h,
            |y| {
                let (_, (gx, gy)) = labeled_statement_grad(y[0], y[1]);
                vec![gx, gy]
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 3. `match` guards and bindings.

/// Guards on a bound inactive integer, and bindings without guards.
#[differentiable(order = 2)]
fn by_parity(x: f64, k: usize) -> f64 {
    match k {
        0 => x.sin(),
        n if n % 2 == 0 => x * n as f64,
        n @ 1..=5 => x * x * n as f64,
        n => x.exp() * (n as f64),
    }
}

/// Guards on comparisons of active floats, before and after arms without.
#[differentiable(order = 2)]
fn by_size(x: f64, k: usize) -> f64 {
    let y = match k {
        _ if x > 1.0 => x.ln(),
        0 => x * x,
        1 | 2 if x < -0.5 => x * x * x,
        _ => x.exp(),
    };
    y * x
}

/// A match on an active float by guards and names alone: `if`s.
#[differentiable(order = 2)]
fn float_scrutinee(x: f64) -> f64 {
    match x * 2.0 {
        v if v > 1.0 => v.ln(),
        v if v < -1.0 => v * v * x,
        v => v.sin(),
    }
}

/// Destructuring assignments as `match` arms, a guard with a binding of a computed scrutinee.
#[differentiable(order = 2)]
fn arm_assignments(x: f64, y: f64, k: usize) -> f64 {
    let mut a = x;
    let mut b = y * y;
    match k % 3 {
        0 => (a, b) = (b, a),
        m if m == 1 => (a, b) = (a * b, b + m as f64),
        _ => {}
    }
    a * b.sin()
}

#[test]
fn match_guards_and_bindings() {
    let mut inputs = Inputs(2303);
    for _ in 0..POINTS {
        let x = 2.0 * inputs.next() + 0.5;
        if [1.0, -0.5, 0.5].iter().any(|edge| (x - edge).abs() < 1e-3) {
            continue;
        }
        for k in 0..8 {
            let (value, g) = by_parity_grad(x, k);
            let mut into = 7.0;
            by_parity_grad_into(x, k, &mut into);
            let (_, _, h) = by_parity_hessian(x, k);
            check(
                "by_parity",
                &[x],
                |x| by_parity(x[0], k),
                value,
                &[g],
                &[into],
                &h,
                |x| vec![by_parity_grad(x[0], k).1],
            );
            let n = k as f64;
            let (g_hand, h_hand) = match k {
                0 => (x.cos(), -x.sin()),
                _ if k % 2 == 0 => (n, 0.0),
                1..=5 => (2.0 * x * n, 2.0 * n),
                _ => (x.exp() * n, x.exp() * n),
            };
            assert_close(g, g_hand, 1e-12, "by_parity d/dx by hand");
            assert_close(h[0][0], h_hand, 1e-12, "by_parity d2/dx2 by hand");

            let (value, g) = by_size_grad(x, k);
            let mut into = 7.0;
            by_size_grad_into(x, k, &mut into);
            let (_, _, h) = by_size_hessian(x, k);
            check(
                "by_size",
                &[x],
                |x| by_size(x[0], k),
                value,
                &[g],
                &[into],
                &h,
                |x| vec![by_size_grad(x[0], k).1],
            );
            // y x with y = ln x, x², x³ or exp x.
            let (g_hand, h_hand) = if x > 1.0 {
                (x.ln() + 1.0, 1.0 / x)
            } else if k == 0 {
                (3.0 * x * x, 6.0 * x)
            } else if (k == 1 || k == 2) && x < -0.5 {
                (4.0 * x * x * x, 12.0 * x * x)
            } else {
                ((1.0 + x) * x.exp(), (2.0 + x) * x.exp())
            };
            assert_close(g, g_hand, 1e-12, "by_size d/dx by hand");
            assert_close(h[0][0], h_hand, 1e-12, "by_size d2/dx2 by hand");

            let (value, g) = float_scrutinee_grad(x);
            let mut into = 7.0;
            float_scrutinee_grad_into(x, &mut into);
            let (_, _, h) = float_scrutinee_hessian(x);
            check(
                "float_scrutinee",
                &[x],
                |v| float_scrutinee(v[0]),
                value,
                &[g],
                &[into],
                &h,
                |v| vec![float_scrutinee_grad(v[0]).1],
            );
            // ln 2x, 4x³, sin 2x.
            let (g_hand, h_hand) = if 2.0 * x > 1.0 {
                (1.0 / x, -1.0 / (x * x))
            } else if 2.0 * x < -1.0 {
                (12.0 * x * x, 24.0 * x)
            } else {
                (2.0 * (2.0 * x).cos(), -4.0 * (2.0 * x).sin())
            };
            assert_close(g, g_hand, 1e-12, "float_scrutinee d/dx by hand");
            assert_close(h[0][0], h_hand, 1e-12, "float_scrutinee d2/dx2 by hand");

            let y = inputs.next();
            let (value, (gx, gy)) = arm_assignments_grad(x, y, k);
            let (mut ix, mut iy) = (7.0, 7.0);
            arm_assignments_grad_into(x, y, k, (&mut ix, &mut iy));
            let (_, _, h) = arm_assignments_hessian(x, y, k);
            check(
                "arm_assignments",
                &[x, y],
                |v| arm_assignments(v[0], v[1], k),
                value,
                &[gx, gy],
                &[ix, iy],
                &h,
                |v| {
                    let (_, (gx, gy)) = arm_assignments_grad(v[0], v[1], k);
                    vec![gx, gy]
                },
            );
            // k % 3 = 0: y² sin x; 1: x y² sin(y² + 1); 2: x sin y².
            let (gx_hand, gy_hand) = match k % 3 {
                0 => (y * y * x.cos(), 2.0 * y * x.sin()),
                1 => {
                    let u = y * y + 1.0;
                    (
                        y * y * u.sin(),
                        x * (2.0 * y * u.sin() + y * y * u.cos() * 2.0 * y),
                    )
                }
                _ => ((y * y).sin(), x * (y * y).cos() * 2.0 * y),
            };
            assert_close(gx, gx_hand, 1e-12, "arm_assignments d/dx by hand");
            assert_close(gy, gy_hand, 1e-12, "arm_assignments d/dy by hand");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// 5. Casts to `f32` in an `f64` function with `order = 2`: the derivative of the rounded computation
//    (`docs/conventions.md`), the slope of the rounding taken as 1.

#[differentiable(order = 2)]
fn rounded(x: f64) -> f64 {
    (x as f32 as f64) * (x as f32).sin() as f64
}

/// An `f32` local (its type written), an integer cast to `f32`, an `f32` literal, `f32` arithmetic, and
/// the widening back.
#[differentiable(order = 2)]
fn rounded_local(x: f64, n: usize) -> f64 {
    let y: f32 = (x * x) as f32 + n as f32;
    let half: f32 = 0.5;
    let z = y.exp() * half;
    z as f64 + x
}

/// A central difference with a step large enough that the `f32` rounding inside `f` (relative `6e-8`)
/// stays below `1e-4` of the slope; the truncation error is `h² f''' / 6`.
fn wide_difference(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-3;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn casts_to_f32_at_order_2() {
    let mut inputs = Inputs(2305);
    for _ in 0..POINTS {
        let x = 2.0 * inputs.next();
        let r = x as f32 as f64;

        let (value, g) = rounded_grad(x);
        let mut into = 7.0;
        rounded_grad_into(x, &mut into);
        let (h_value, h_g, h) = rounded_hessian(x);
        assert_eq!(value, rounded(x));
        assert_eq!(g, into, "rounded: _grad_into");
        // By hand at the rounded input r: the value r sin r, the slope sin r + r cos r, the curvature
        // 2 cos r - r sin r. `_grad` computes in `f32` as the function does; the Hessian's copy computes in
        // `f64` after the rounding.
        assert_close(g, r.sin() + r * r.cos(), 1e-6, "rounded d/dx by hand");
        assert_close(
            h_g,
            r.sin() + r * r.cos(),
            1e-12,
            "rounded: the Hessian's gradient by hand",
        );
        assert_close(
            h[0][0],
            2.0 * r.cos() - r * r.sin(),
            1e-12,
            "rounded d2/dx2 by hand",
        );
        assert_close(h_value, value, 1e-6, "rounded: the Hessian's value");
        assert_close(
            g,
            wide_difference(rounded, x),
            1e-3,
            "rounded d/dx by differences",
        );
        assert_close(
            h[0][0],
            wide_difference(|x| rounded_grad(x).1, x),
            1e-3,
            "rounded d2/dx2 by differences of _grad",
        );

        for n in [0, 3] {
            let (value, g) = rounded_local_grad(x, n);
            let mut into = 7.0;
            rounded_local_grad_into(x, n, &mut into);
            let (h_value, h_g, h) = rounded_local_hessian(x, n);
            assert_eq!(value, rounded_local(x, n));
            assert_eq!(g, into, "rounded_local: _grad_into");
            // exp(x² + n) / 2 + x: the slope x exp(x² + n) + 1, the curvature (1 + 2x²) exp(x² + n), at
            // the rounded x².
            let e = ((x * x) as f32 as f64 + n as f64).exp();
            assert_close(g, x * e + 1.0, 1e-6, "rounded_local d/dx by hand");
            assert_close(
                h_g,
                x * e + 1.0,
                1e-12,
                "rounded_local: the Hessian's gradient by hand",
            );
            assert_close(
                h[0][0],
                (1.0 + 2.0 * x * x) * e,
                1e-12,
                "rounded_local d2/dx2 by hand",
            );
            assert_close(h_value, value, 1e-6, "rounded_local: the Hessian's value");
            assert_close(
                g,
                wide_difference(|x| rounded_local(x, n), x),
                1e-3,
                "rounded_local d/dx by differences",
            );
            assert_close(
                h[0][0],
                wide_difference(|x| rounded_local_grad(x, n).1, x),
                1e-3,
                "rounded_local d2/dx2 by differences of _grad",
            );
        }
    }
}
