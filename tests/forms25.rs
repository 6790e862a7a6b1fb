//! Everyday forms of numeric Rust that the macro used to reject or mis-expand, each differentiated as
//! written: iterating an array literal (`for u in [x, y, z]`, `for &u in &[x, y]`, `[a, b].iter()..`),
//! `.any(..)`/`.all(..)` in conditions, `match` on a tuple of integers or `bool`s, arithmetic on
//! references (`&x * &y`, `&a[i] * x`, `*&x`), `let (l, r) = x.split_at(m);`, `.skip(n).step_by(k)` of
//! slices, ranges and chains, `rem_euclid`/`div_euclid` of floats, float functions by path (`f64::fract(x)`,
//! `f64::sqrt(x)`, `f64::max(a, b)`) and `.clone()` of a `&f64` parameter.
//!
//! Each function has `order = 2`. At several points each, its `_grad` is checked against the derivative
//! by hand and against central differences of the function, its `_vjp` against the gradient times a
//! cotangent, its `_jvp` against the gradient's inner product with a tangent, and its `_hessian` against
//! central differences of `_grad`. Run also with `--features reference-adjoint` (every shortcut of the
//! reverse sweep off).

// The forms under test are the ones users write, which clippy would rewrite.
#![allow(
    clippy::needless_range_loop,
    clippy::op_ref,
    clippy::deref_addrof,
    clippy::clone_on_copy,
    clippy::match_like_matches_macro,
    clippy::neg_multiply,
    clippy::manual_is_multiple_of
)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{
    assert_all_close, assert_close, assert_dot, assert_fd_gradient, assert_jacobian, fd_jacobian,
    Inputs, ANALYTIC_TOL,
};

const POINTS: usize = 24;

/// The cotangent `_vjp` is called with: not 1, so that a `_vjp` ignoring it shows.
const COTANGENT: f64 = -1.75;

/// What the generated items gave at one point, over the flat active inputs.
struct Run {
    value: f64,
    grad: Vec<f64>,
    /// `_vjp` with [`COTANGENT`]: its value and its gradient.
    vjp: (f64, Vec<f64>),
    /// `_jvp` along `tangent`: its value and the product.
    jvp: (f64, f64),
    tangent: Vec<f64>,
    hessian: Vec<Vec<f64>>,
}

/// Checks `run` at `x` against the primal `f`, the gradient by hand `by_hand`, central differences of `f`,
/// and (the Hessian) central differences of the generated gradient `grad_of`.
#[track_caller]
fn check(
    what: &str,
    x: &[f64],
    f: impl Fn(&[f64]) -> f64,
    run: Run,
    by_hand: &[f64],
    grad_of: impl Fn(&[f64]) -> Vec<f64>,
) {
    let what = |check: &str| format!("{what} at {x:?}: {check}");
    let value = f(x);
    assert_eq!(run.value, value, "{}", what("the value of _grad"));
    assert_all_close(&run.grad, by_hand, ANALYTIC_TOL, &what("gradient by hand"));
    assert_fd_gradient(&f, x, &run.grad, &what("gradient vs central differences"));
    assert_eq!(run.vjp.0, value, "{}", what("the value of _vjp"));
    let scaled: Vec<f64> = run.grad.iter().map(|g| COTANGENT * g).collect();
    assert_all_close(&run.vjp.1, &scaled, ANALYTIC_TOL, &what("_vjp vs gradient"));
    assert_eq!(run.jvp.0, value, "{}", what("the value of _jvp"));
    assert_dot(
        run.jvp.1,
        &run.grad,
        &run.tangent,
        1e-12,
        &what("_jvp vs gradient"),
    );
    assert_jacobian(
        &run.hessian,
        &fd_jacobian(grad_of, x),
        &what("the Hessian vs central differences of _grad"),
    );
}

// ---------------------------------------------------------------------------------------------------
// 1. An array literal iterated.

/// `x³ + x y² z² + x z²`, by value over a literal of active elements.
#[differentiable(order = 2)]
fn literal_by_value(x: f64, y: f64, z: f64) -> f64 {
    let mut s = 0.0;
    for u in [x, y * z, z] {
        s += u * u * x;
    }
    s
}

/// `4x² + 4y² + 4` less what `continue` leaves out (`2u > 10`), over a `vec!` of a `mut` binding.
#[differentiable(order = 2)]
fn literal_vec_mut(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for mut u in vec![x, y, 1.0] {
        u *= 2.0;
        if u > 2.5 {
            continue;
        }
        s += u * u;
    }
    s
}

/// `sin(xy) + sin(y²) + sin(2y)`, over a reference to a literal, and `e^x + e^y + e^(xy)` by a chain.
#[differentiable(order = 2)]
fn literal_by_reference(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    for &u in &[x, y, 2.0] {
        s += (u * y).sin();
    }
    s + [x, y, x * y].iter().map(|v| v.exp()).sum::<f64>()
}

#[test]
fn array_literals_iterated() {
    let mut inputs = Inputs(2501);
    for _ in 0..POINTS {
        let p = [
            1.5 * inputs.next(),
            1.5 * inputs.next(),
            1.5 * inputs.next(),
        ];
        let t = [inputs.next(), inputs.next(), inputs.next()];
        let (x, y, z) = (p[0], p[1], p[2]);

        let (value, (gx, gy, gz)) = literal_by_value_grad(x, y, z);
        let (vv, (vx, vy, vz)) = literal_by_value_vjp(x, y, z, COTANGENT);
        let (_, _, hessian) = literal_by_value_hessian(x, y, z);
        let run = Run {
            value,
            grad: vec![gx, gy, gz],
            vjp: (vv, vec![vx, vy, vz]),
            jvp: literal_by_value_jvp(x, y, z, (t[0], t[1], t[2])),
            tangent: t.to_vec(),
            hessian,
        };
        let by_hand = [
            3.0 * x * x + y * y * z * z + z * z,
            2.0 * x * y * z * z,
            2.0 * x * y * y * z + 2.0 * x * z,
        ];
        check(
            "literal_by_value",
            &p,
            |p| literal_by_value(p[0], p[1], p[2]),
            run,
            &by_hand,
            |p| {
                let (_, (a, b, c)) = literal_by_value_grad(p[0], p[1], p[2]);
                vec![a, b, c]
            },
        );

        let (value, (gx, gy)) = literal_vec_mut_grad(x, y);
        let (vv, (vx, vy)) = literal_vec_mut_vjp(x, y, COTANGENT);
        let (_, _, hessian) = literal_vec_mut_hessian(x, y);
        let run = Run {
            value,
            grad: vec![gx, gy],
            vjp: (vv, vec![vx, vy]),
            jvp: literal_vec_mut_jvp(x, y, (t[0], t[1])),
            tangent: t[..2].to_vec(),
            hessian,
        };
        let kept = |v: f64| if 2.0 * v > 2.5 { 0.0 } else { 8.0 * v };
        if (2.0 * x - 2.5).abs() > 1e-3 && (2.0 * y - 2.5).abs() > 1e-3 {
            check(
                "literal_vec_mut",
                &p[..2],
                |p| literal_vec_mut(p[0], p[1]),
                run,
                &[kept(x), kept(y)],
                |p| {
                    let (_, (a, b)) = literal_vec_mut_grad(p[0], p[1]);
                    vec![a, b]
                },
            );
        }

        let (value, (gx, gy)) = literal_by_reference_grad(x, y);
        let (vv, (vx, vy)) = literal_by_reference_vjp(x, y, COTANGENT);
        let (_, _, hessian) = literal_by_reference_hessian(x, y);
        let run = Run {
            value,
            grad: vec![gx, gy],
            vjp: (vv, vec![vx, vy]),
            jvp: literal_by_reference_jvp(x, y, (t[0], t[1])),
            tangent: t[..2].to_vec(),
            hessian,
        };
        let by_hand = [
            y * (x * y).cos() + x.exp() + y * (x * y).exp(),
            x * (x * y).cos()
                + 2.0 * y * (y * y).cos()
                + 2.0 * (2.0 * y).cos()
                + y.exp()
                + x * (x * y).exp(),
        ];
        check(
            "literal_by_reference",
            &p[..2],
            |p| literal_by_reference(p[0], p[1]),
            run,
            &by_hand,
            |p| {
                let (_, (a, b)) = literal_by_reference_grad(p[0], p[1]);
                vec![a, b]
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 2. `.any(..)` and `.all(..)` in conditions.

#[differentiable(order = 2)]
fn any_all(x: &[f64]) -> f64 {
    if x.iter().any(|&v| v > 0.5) {
        x[0] * x[1]
    } else if x.iter().all(|v| *v < 0.0) {
        x[0].exp() + x[2]
    } else if (0..x.len()).any(|i| x[i] * x[i] > 0.16)
        && !x.iter().map(|v| v * 2.0).all(|w| w > -1.0)
    {
        x[1] * x[1] * 3.0
    } else {
        x[2].sin()
    }
}

/// The derivative of `any_all` by hand, branch by branch.
fn any_all_by_hand(x: &[f64]) -> Vec<f64> {
    if x.iter().any(|&v| v > 0.5) {
        vec![x[1], x[0], 0.0]
    } else if x.iter().all(|v| *v < 0.0) {
        vec![x[0].exp(), 0.0, 1.0]
    } else if x.iter().any(|v| v * v > 0.16) && x.iter().any(|v| v * 2.0 <= -1.0) {
        vec![0.0, 6.0 * x[1], 0.0]
    } else {
        vec![0.0, 0.0, x[2].cos()]
    }
}

#[test]
fn any_and_all_decide_branches() {
    let mut inputs = Inputs(2502);
    let mut branches = [false; 4];
    for _ in 0..4 * POINTS {
        let x = inputs.vec(3);
        // Away from the thresholds, where central differences cross a branch.
        if x.iter().any(|v| {
            (v - 0.5).abs() < 1e-3
                || v.abs() < 1e-3
                || (v * v - 0.16).abs() < 1e-3
                || (v + 0.5).abs() < 1e-3
        }) {
            continue;
        }
        let branch = if x.iter().any(|&v| v > 0.5) {
            0
        } else if x.iter().all(|v| *v < 0.0) {
            1
        } else if x.iter().any(|v| v * v > 0.16) && x.iter().any(|v| v * 2.0 <= -1.0) {
            2
        } else {
            3
        };
        branches[branch] = true;
        let t = inputs.vec(3);
        let (value, grad) = any_all_grad(&x);
        let (_, _, hessian) = any_all_hessian(&x);
        let run = Run {
            value,
            grad,
            vjp: any_all_vjp(&x, COTANGENT),
            jvp: any_all_jvp(&x, t.clone()),
            tangent: t,
            hessian,
        };
        check("any_all", &x, any_all, run, &any_all_by_hand(&x), |x| {
            any_all_grad(x).1
        });
    }
    assert_eq!(branches, [true; 4], "every branch taken");
}

// ---------------------------------------------------------------------------------------------------
// 3. `match` on a tuple.

#[differentiable(order = 2)]
fn tuple_match(x: f64, y: f64, k: usize, j: usize) -> f64 {
    match (k, j % 3) {
        (0, 0) => x * y,
        (0, n) if n > 1 => x.sin() * n as f64,
        (1..=2, _) | (_, 1) => y * y * x,
        _ => x + 2.0 * y,
    }
}

fn tuple_match_by_hand(x: f64, y: f64, k: usize, j: usize) -> [f64; 2] {
    if k == 0 && j % 3 == 0 {
        [y, x]
    } else if k == 0 && j % 3 == 2 {
        [2.0 * x.cos(), 0.0]
    } else if (1..=2).contains(&k) || j % 3 == 1 {
        [y * y, 2.0 * x * y]
    } else {
        [1.0, 2.0]
    }
}

#[differentiable(order = 2)]
fn bool_match(a: f64, b: f64, c: bool) -> f64 {
    match (a > b, c) {
        (true, true) => a * b,
        (true, false) => a.exp(),
        (false, _) => b * b * a,
    }
}

fn bool_match_by_hand(a: f64, b: f64, c: bool) -> [f64; 2] {
    match (a > b, c) {
        (true, true) => [b, a],
        (true, false) => [a.exp(), 0.0],
        (false, _) => [b * b, 2.0 * a * b],
    }
}

#[test]
fn matches_on_tuples() {
    let mut inputs = Inputs(2503);
    for point in 0..POINTS {
        let p = [1.5 * inputs.next(), 1.5 * inputs.next()];
        let t = [inputs.next(), inputs.next()];
        let (x, y) = (p[0], p[1]);
        for k in 0..4 {
            for j in 0..6 {
                let (value, (gx, gy)) = tuple_match_grad(x, y, k, j);
                let (vv, (vx, vy)) = tuple_match_vjp(x, y, k, j, COTANGENT);
                let (_, _, hessian) = tuple_match_hessian(x, y, k, j);
                let run = Run {
                    value,
                    grad: vec![gx, gy],
                    vjp: (vv, vec![vx, vy]),
                    jvp: tuple_match_jvp(x, y, k, j, (t[0], t[1])),
                    tangent: t.to_vec(),
                    hessian,
                };
                check(
                    &format!("tuple_match(k = {k}, j = {j})"),
                    &p,
                    |p| tuple_match(p[0], p[1], k, j),
                    run,
                    &tuple_match_by_hand(x, y, k, j),
                    |p| {
                        let (_, (a, b)) = tuple_match_grad(p[0], p[1], k, j);
                        vec![a, b]
                    },
                );
            }
        }
        if (x - y).abs() < 1e-3 {
            continue;
        }
        let c = point % 2 == 0;
        let (value, (ga, gb)) = bool_match_grad(x, y, c);
        let (vv, (va, vb)) = bool_match_vjp(x, y, c, COTANGENT);
        let (_, _, hessian) = bool_match_hessian(x, y, c);
        let run = Run {
            value,
            grad: vec![ga, gb],
            vjp: (vv, vec![va, vb]),
            jvp: bool_match_jvp(x, y, c, (t[0], t[1])),
            tangent: t.to_vec(),
            hessian,
        };
        check(
            &format!("bool_match(c = {c})"),
            &p,
            |p| bool_match(p[0], p[1], c),
            run,
            &bool_match_by_hand(x, y, c),
            |p| {
                let (_, (a, b)) = bool_match_grad(p[0], p[1], c);
                vec![a, b]
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 4. Arithmetic on references.

/// `x y + x + Σ (a_i x + y) + x`.
#[differentiable(order = 2)]
fn reference_arithmetic(x: f64, y: f64, a: &[f64]) -> f64 {
    let mut s = &x * &y + *&x;
    for i in 0..a.len() {
        s += &a[i] * x - -&y;
    }
    s += &x;
    s
}

#[test]
fn arithmetic_on_references() {
    let mut inputs = Inputs(2504);
    for _ in 0..POINTS {
        let p = inputs.vec(5);
        let t = inputs.vec(5);
        let (x, y, a) = (p[0], p[1], &p[2..]);
        let (value, (gx, gy, ga)) = reference_arithmetic_grad(x, y, a);
        let (vv, (vx, vy, va)) = reference_arithmetic_vjp(x, y, a, COTANGENT);
        let (_, _, hessian) = reference_arithmetic_hessian(x, y, a);
        let flat = |x: f64, y: f64, a: Vec<f64>| [vec![x, y], a].concat();
        let run = Run {
            value,
            grad: flat(gx, gy, ga),
            vjp: (vv, flat(vx, vy, va)),
            jvp: reference_arithmetic_jvp(x, y, a, (t[0], t[1], t[2..].to_vec())),
            tangent: t.clone(),
            hessian,
        };
        let n = a.len() as f64;
        let by_hand = flat(y + 2.0 + a.iter().sum::<f64>(), x + n, vec![x; a.len()]);
        check(
            "reference_arithmetic",
            &p,
            |p| reference_arithmetic(p[0], p[1], &p[2..]),
            run,
            &by_hand,
            |p| {
                let (_, (a, b, c)) = reference_arithmetic_grad(p[0], p[1], &p[2..]);
                flat(a, b, c)
            },
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 5. `split_at`.

/// `Σ_{i < m} l_i r_(i mod |r|) + Σ r_j² + m`, with `(l, r) = x.split_at(m)`.
#[differentiable(order = 2)]
fn halves(x: &[f64], m: usize) -> f64 {
    let (l, r) = x.split_at(m);
    let mut s = 0.0;
    for i in 0..l.len() {
        s += l[i] * r[i % r.len()];
    }
    s + r.iter().map(|v| v * v).sum::<f64>() + l.len() as f64
}

fn halves_by_hand(x: &[f64], m: usize) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    let len_r = x.len() - m;
    for i in 0..m {
        let j = m + i % len_r;
        g[i] += x[j];
        g[j] += x[i];
    }
    for j in m..x.len() {
        g[j] += 2.0 * x[j];
    }
    g
}

#[test]
fn split_at_halves() {
    let mut inputs = Inputs(2505);
    for point in 0..POINTS {
        let x = inputs.vec(5);
        let t = inputs.vec(5);
        let m = point % 5;
        let (value, grad) = halves_grad(&x, m);
        let (_, _, hessian) = halves_hessian(&x, m);
        let run = Run {
            value,
            grad,
            vjp: halves_vjp(&x, m, COTANGENT),
            jvp: halves_jvp(&x, m, t.clone()),
            tangent: t,
            hessian,
        };
        check(
            &format!("halves(m = {m})"),
            &x,
            |x| halves(x, m),
            run,
            &halves_by_hand(&x, m),
            |x| halves_grad(x, m).1,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 6. `.skip(n).step_by(k)` and `.step_by(k)` of slice iterators.

#[differentiable(order = 2)]
fn stepped(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().skip(1).step_by(2) {
        s += v * v;
    }
    for i in (0..x.len()).skip(2).step_by(3) {
        s += x[i].sin();
    }
    for (i, &v) in x.iter().enumerate().step_by(2) {
        s += v * i as f64;
    }
    for &v in x.iter().rev().step_by(3) {
        s += v * v * v;
    }
    for (p, q) in x.iter().zip(x.iter().skip(1)).step_by(2) {
        s += p * q;
    }
    for (i, v) in x.iter().enumerate().step_by(3) {
        s += v * v * i as f64;
    }
    s + x
        .iter()
        .map(|v| v * 2.0)
        .step_by(2)
        .map(|w| w.exp())
        .sum::<f64>()
        + (0..x.len())
            .skip(1)
            .step_by(2)
            .map(|i| x[i] * x[0])
            .sum::<f64>()
}

fn stepped_by_hand(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut g = vec![0.0; n];
    for i in 0..n {
        if i % 2 == 1 {
            g[i] += 2.0 * x[i];
            // `x[i] * x[0]`.
            g[i] += x[0];
            g[0] += x[i];
        }
        if i >= 2 && (i - 2) % 3 == 0 {
            g[i] += x[i].cos();
        }
        if i % 2 == 0 {
            g[i] += i as f64 + 2.0 * (2.0 * x[i]).exp();
        }
        if (n - 1 - i) % 3 == 0 {
            g[i] += 3.0 * x[i] * x[i];
        }
        if i % 2 == 0 && i + 1 < n {
            g[i] += x[i + 1];
            g[i + 1] += x[i];
        }
        if i % 3 == 0 {
            g[i] += 2.0 * x[i] * i as f64;
        }
    }
    g
}

#[test]
fn step_by_after_skip_and_on_slices() {
    let mut inputs = Inputs(2506);
    for point in 0..POINTS {
        let n = 1 + point % 8;
        let x = inputs.vec(n);
        let t = inputs.vec(n);
        let (value, grad) = stepped_grad(&x);
        let (_, _, hessian) = stepped_hessian(&x);
        let run = Run {
            value,
            grad,
            vjp: stepped_vjp(&x, COTANGENT),
            jvp: stepped_jvp(&x, t.clone()),
            tangent: t,
            hessian,
        };
        check("stepped", &x, stepped, run, &stepped_by_hand(&x), |x| {
            stepped_grad(x).1
        });
    }
}

// ---------------------------------------------------------------------------------------------------
// 7. `rem_euclid`, `div_euclid`, and float functions by path.

/// With `q = x.div_euclid(y)` (piecewise constant): `(x - y q) y + q x + fract(x y)`.
#[differentiable(order = 2)]
fn euclid(x: f64, y: f64) -> f64 {
    x.rem_euclid(y) * y + x.div_euclid(y) * x + f64::fract(x * y)
}

/// An integer's `rem_euclid` beside, which keeps its own meaning (a neighbour's index, wrapping round).
#[differentiable(order = 2)]
fn wrapped_neighbours(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let j = (i as i64 - 1).rem_euclid(n as i64) as usize;
        s += x[i] * x[j] + x[i].rem_euclid(0.75);
    }
    s
}

#[differentiable(order = 2)]
fn by_path(x: f64, y: f64) -> f64 {
    f64::sqrt(x * x + 1.0) * f64::max(x, y) + f64::fract(y * 3.0)
}

#[test]
fn euclidean_division_and_paths() {
    let mut inputs = Inputs(2507);
    let mut taken = 0;
    while taken < POINTS {
        let x = 4.0 * inputs.next();
        let y = 2.0 * inputs.next();
        let t = [inputs.next(), inputs.next()];
        // Away from the jumps: `x / y` and `x y` near an integer, `y` near 0, `x` near `y`.
        let near_integer = |v: f64| (v - v.round()).abs() < 1e-3;
        if y.abs() < 0.1
            || near_integer(x / y)
            || near_integer(x * y)
            || near_integer(3.0 * y)
            || (x - y).abs() < 1e-3
        {
            continue;
        }
        taken += 1;
        let p = [x, y];
        let q = x.div_euclid(y);
        assert_eq!(euclid(x, y), (x - y * q) * y + q * x + (x * y).fract());
        let (value, (gx, gy)) = euclid_grad(x, y);
        let (vv, (vx, vy)) = euclid_vjp(x, y, COTANGENT);
        let (_, _, hessian) = euclid_hessian(x, y);
        let run = Run {
            value,
            grad: vec![gx, gy],
            vjp: (vv, vec![vx, vy]),
            jvp: euclid_jvp(x, y, (t[0], t[1])),
            tangent: t.to_vec(),
            hessian,
        };
        check(
            "euclid",
            &p,
            |p| euclid(p[0], p[1]),
            run,
            &[2.0 * y + q, 2.0 * x - 2.0 * y * q],
            |p| {
                let (_, (a, b)) = euclid_grad(p[0], p[1]);
                vec![a, b]
            },
        );

        let (value, (gx, gy)) = by_path_grad(x, y);
        let (vv, (vx, vy)) = by_path_vjp(x, y, COTANGENT);
        let (_, _, hessian) = by_path_hessian(x, y);
        let run = Run {
            value,
            grad: vec![gx, gy],
            vjp: (vv, vec![vx, vy]),
            jvp: by_path_jvp(x, y, (t[0], t[1])),
            tangent: t.to_vec(),
            hessian,
        };
        let r = (x * x + 1.0).sqrt();
        let by_hand = if x > y {
            [x / r * x + r, 3.0]
        } else {
            [x / r * y, r + 3.0]
        };
        check(
            "by_path",
            &p,
            |p| by_path(p[0], p[1]),
            run,
            &by_hand,
            |p| {
                let (_, (a, b)) = by_path_grad(p[0], p[1]);
                vec![a, b]
            },
        );

        let xs = [x, y, 0.5 * x, 1.5 * inputs.next()];
        if xs.iter().any(|v| near_integer(v / 0.75)) {
            continue;
        }
        let (value, grad) = wrapped_neighbours_grad(&xs);
        let (_, _, hessian) = wrapped_neighbours_hessian(&xs);
        let tangent = inputs.vec(4);
        let run = Run {
            value,
            grad,
            vjp: wrapped_neighbours_vjp(&xs, COTANGENT),
            jvp: wrapped_neighbours_jvp(&xs, tangent.clone()),
            tangent,
            hessian,
        };
        let by_hand: Vec<f64> = (0..4)
            .map(|i| xs[(i + 3) % 4] + xs[(i + 1) % 4] + 1.0)
            .collect();
        check(
            "wrapped_neighbours",
            &xs,
            wrapped_neighbours,
            run,
            &by_hand,
            |x| wrapped_neighbours_grad(x).1,
        );
    }
}

/// At the jumps, Rust's own values, and the slopes on the side the value is taken from: `x.rem_euclid(y)`
/// at `x = 2y` is 0, `x - 2y` to the right, and its slope in `y` is `-x.div_euclid(y)` = -2.
#[test]
fn euclidean_division_at_a_jump() {
    let (value, (gx, gy)) = euclid_grad(3.0, 1.5);
    assert_eq!(value, 0.0 * 1.5 + 2.0 * 3.0 + 0.5);
    assert_close(gx, 2.0 * 1.5 + 2.0, ANALYTIC_TOL, "d/dx at a jump");
    assert_close(
        gy,
        2.0 * 3.0 - 2.0 * 1.5 * 2.0,
        ANALYTIC_TOL,
        "d/dy at a jump",
    );
}

#[derive(Clone, Debug, Differentiable)]
struct Model {
    w: Vec<f64>,
}

/// `w₀ fract(x) x` of a parameter struct at `order = 2`, whose hidden function of the fields calls
/// `fract` by path (before, "`fract` has no known derivative").
#[differentiable(order = 2)]
fn fract_of_struct(p: &Model, x: f64) -> f64 {
    p.w[0] * x.fract() * x
}

#[test]
fn fract_in_a_function_of_a_parameter_struct() {
    let mut inputs = Inputs(2509);
    for _ in 0..POINTS {
        let (w, x) = (2.0 * inputs.next(), 4.0 * inputs.next());
        if (x - x.round()).abs() < 1e-3 {
            continue;
        }
        let model = Model { w: vec![w] };
        let (value, (gp, gx)) = fract_of_struct_grad(&model, x);
        let (_, _, hessian) = fract_of_struct_hessian(&model, x);
        let f = |v: &[f64]| fract_of_struct(&Model { w: vec![v[0]] }, v[1]);
        assert_eq!(value, f(&[w, x]));
        let grad = [gp.w[0], gx];
        let by_hand = [x.fract() * x, w * (x.fract() + x)];
        assert_all_close(&grad, &by_hand, ANALYTIC_TOL, "fract_of_struct by hand");
        assert_fd_gradient(f, &[w, x], &grad, "fract_of_struct vs central differences");
        assert_jacobian(
            &hessian,
            &fd_jacobian(
                |v| {
                    let (_, (gp, gx)) = fract_of_struct_grad(&Model { w: vec![v[0]] }, v[1]);
                    vec![gp.w[0], gx]
                },
                &[w, x],
            ),
            "fract_of_struct's Hessian vs central differences",
        );
        assert_all_close(
            &hessian[1],
            &[x.fract() + x, 2.0 * w],
            1e-10,
            "fract_of_struct's Hessian by hand",
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 8. `.clone()` and `*x` of a `&f64` parameter.

/// `x y + sin x + x²`.
#[differentiable(order = 2)]
fn cloned_reference(x: &f64, y: f64) -> f64 {
    let a = x.clone();
    let b = *x;
    a * y + b.sin() + x.to_owned() * a
}

#[test]
fn clone_of_a_reference_parameter() {
    let mut inputs = Inputs(2508);
    for _ in 0..POINTS {
        let p = [2.0 * inputs.next(), 2.0 * inputs.next()];
        let t = [inputs.next(), inputs.next()];
        let (x, y) = (p[0], p[1]);
        let (value, (gx, gy)) = cloned_reference_grad(&x, y);
        let (vv, (vx, vy)) = cloned_reference_vjp(&x, y, COTANGENT);
        let (_, _, hessian) = cloned_reference_hessian(&x, y);
        let run = Run {
            value,
            grad: vec![gx, gy],
            vjp: (vv, vec![vx, vy]),
            jvp: cloned_reference_jvp(&x, y, (t[0], t[1])),
            tangent: t.to_vec(),
            hessian,
        };
        check(
            "cloned_reference",
            &p,
            |p| cloned_reference(&p[0], p[1]),
            run,
            &[y + x.cos() + 2.0 * x, x],
            |p| {
                let (_, (a, b)) = cloned_reference_grad(&p[0], p[1]);
                vec![a, b]
            },
        );
    }
}
