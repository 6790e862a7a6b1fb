//! Every language construct of the scalar subset, each in a small `#[differentiable]` function whose
//! derivative is written by hand: the generated `_grad`, `_vjp` and `_jvp` are checked against it and
//! against central differences, at random points and at chosen points that take each branch.

mod common;

use autodiff::{differentiable, stop_gradient};
use common::*;
use proptest::prelude::*;
use std::f64::consts::TAU;

/// A constant outside the function, used as a `match` pattern.
const SPECIAL: i32 = 7;

// ---- arithmetic ----

/// `+ - * / %` and unary minus.
#[differentiable]
fn arithmetic(x: f64, y: f64) -> f64 {
    -(x * y) + x / y - (x - y) + x % y
}

fn arithmetic_partials(x: f64, y: f64) -> [f64; 2] {
    // x % y = x - y trunc(x / y), with trunc piecewise constant.
    [
        -y + 1.0 / y - 1.0 + 1.0,
        -x - x / (y * y) + 1.0 - (x / y).trunc(),
    ]
}

/// Away from the jumps of `x % y`, where `x / y` is an integer, by more than the central differences of
/// `check_gradient` move `x / y` on the domain of [`divisor`].
fn rem_is_smooth(x: f64, y: f64) -> bool {
    let q = x / y;
    (q - q.round()).abs() > 1e-2
}

/// Divisors of `%`, away from 0.
fn divisor() -> impl Strategy<Value = f64> {
    prop_oneof![-5.0..-0.5_f64, 0.5..5.0_f64]
}

/// Float literals in every spelling, and parentheses.
#[differentiable]
fn literals(x: f64) -> f64 {
    let a = 2.0_f64 * x + 3f64;
    let b = (1e-1 * x) * 1_000.0 + 0.5f64;
    ((a * b) - 2.) / 4.0E0
}

// ---- let, tuples, shadowing, assignment ----

/// `let` with tuple patterns, from tuple expressions and from tuple values, nested, with `_`, and
/// tuple fields `.0`; a tuple local read several times.
#[differentiable]
fn tuples(x: f64, y: f64) -> f64 {
    let (a, b) = (x * y, x + y);
    let pair = (a.sin(), b);
    let (s, t) = pair;
    let ((p, q), _) = ((s * t, t), x.exp());
    let r = pair.0 + pair.1;
    p + q * r
}

fn tuples_partials(x: f64, y: f64) -> [f64; 2] {
    // f = 2 s t + t² with s = sin(xy), t = x + y.
    let (s, t, c) = ((x * y).sin(), x + y, (x * y).cos());
    [
        2.0 * (c * y * t + s) + 2.0 * t,
        2.0 * (c * x * t + s) + 2.0 * t,
    ]
}

/// Shadowing: each `let x` is a new value; the earlier one stays where it was read.
#[differentiable]
fn shadowing(x: f64) -> f64 {
    let y = x;
    let x = x * x;
    let x = x.sin() + y;
    x * y
}

fn shadowing_derivative(x: f64) -> f64 {
    // f = (sin(x²) + x) x.
    (2.0 * x * (x * x).cos() + 1.0) * x + (x * x).sin() + x
}

/// Shadowing inside a block and inside a branch does not leak out of them.
#[differentiable]
fn scoped_shadowing(x: f64) -> f64 {
    let y = {
        let x = x * 3.0;
        x * x
    };
    let z = if x > 0.0 {
        let x = x.exp();
        x + y
    } else {
        x - y
    };
    z * x
}

fn scoped_shadowing_derivative(x: f64) -> f64 {
    if x > 0.0 {
        let z = x.exp() + 9.0 * x * x;
        (x.exp() + 18.0 * x) * x + z
    } else {
        let z = x - 9.0 * x * x;
        (1.0 - 18.0 * x) * x + z
    }
}

/// Plain assignment, reading the old value on the right.
#[differentiable]
fn assignment(x: f64) -> f64 {
    let mut y = x.exp();
    let first = y;
    y = y.sin() * x;
    y = first - y;
    y
}

fn assignment_derivative(x: f64) -> f64 {
    // f = e^x - sin(e^x) x.
    let e = x.exp();
    e - (e.cos() * e * x + e.sin())
}

/// Every compound assignment on a float.
#[differentiable]
fn compound(x: f64, y: f64) -> f64 {
    let mut acc = x;
    acc += y * y;
    acc *= x;
    acc -= y;
    acc /= y;
    // |acc| stays below 100 on the test domain, so `%=` is the identity here.
    acc %= 1000.0;
    let mut r = x * 3.0;
    r %= y;
    acc + r
}

fn compound_partials(x: f64, y: f64) -> [f64; 2] {
    // acc = ((x + y²) x - y) / y, r = 3x % y.
    let numerator = (x + y * y) * x - y;
    [
        (2.0 * x + y * y) / y + 3.0,
        (2.0 * x * y - 1.0) / y - numerator / (y * y) - (3.0 * x / y).trunc(),
    ]
}

/// `let y;` assigned later in each branch.
#[allow(clippy::needless_late_init)] // a late initialisation is the construct under test
#[differentiable]
fn late_init(x: f64) -> f64 {
    let y;
    if x > 1.0 {
        y = x.ln();
    } else {
        y = x * 0.5 - 0.5;
    }
    y * x
}

fn late_init_derivative(x: f64) -> f64 {
    if x > 1.0 {
        x.ln() + 1.0
    } else {
        x - 0.5
    }
}

/// Assignments to an outer variable inside an `else` block, a braced `match` arm and a bare block.
#[differentiable]
fn block_assignments(x: f64, k: u8) -> f64 {
    let mut y = x;
    if x > 1.0 {
        y = x * 2.0;
    } else {
        y *= 3.0;
    }
    match k {
        0 => {
            y = y.exp();
        }
        _ => {
            y += x;
        }
    }
    {
        y = y * x + x;
    }
    y
}

fn block_assignments_derivative(x: f64, k: u8) -> f64 {
    // y = 2x or 3x; then e^y or y + x; then y x + x.
    let (y, dy) = if x > 1.0 {
        (2.0 * x, 2.0)
    } else {
        (3.0 * x, 3.0)
    };
    let (y, dy) = if k == 0 {
        (y.exp(), y.exp() * dy)
    } else {
        (y + x, dy + 1.0)
    };
    dy * x + y + 1.0
}

/// Parameters declared `mut` and assigned, a float and an integer.
#[differentiable]
fn mut_params(mut x: f64, mut n: i32) -> f64 {
    x *= 2.0;
    n += 1;
    x = x.powi(n);
    x
}

// ---- if / else ----

/// `if` as a statement with and without `else`, nested, with `else if`, assigning an outer variable.
#[differentiable]
fn nested_if(x: f64, y: f64) -> f64 {
    let mut z = x * y;
    if x > 0.0 {
        if y > 0.0 {
            z = z.sqrt();
        } else {
            z += y * y;
        }
        z *= 2.0;
    } else if y > x {
        z = -z;
    }
    z + x
}

fn nested_if_partials(x: f64, y: f64) -> [f64; 2] {
    if x > 0.0 && y > 0.0 {
        // 2 sqrt(xy) + x
        [(y / x).sqrt() + 1.0, (x / y).sqrt()]
    } else if x > 0.0 {
        // 2 (xy + y²) + x
        [2.0 * y + 1.0, 2.0 * x + 4.0 * y]
    } else if y > x {
        // -xy + x
        [1.0 - y, -x]
    } else {
        // xy + x
        [y + 1.0, x]
    }
}

/// `if` as an expression: initialising a `let`, as an operand, in an `else if` chain.
#[differentiable]
fn if_expression(x: f64) -> f64 {
    let y = if x > 0.0 { x * x } else { x.sin() } * 3.0;
    let w = if x < -1.0 {
        x.exp()
    } else if x < 1.0 {
        x.cos()
    } else {
        x.ln() + 1.0
    };
    y + w + if x > 2.0 { 1.0 } else { x }
}

fn if_expression_derivative(x: f64) -> f64 {
    let dy = if x > 0.0 { 6.0 * x } else { 3.0 * x.cos() };
    let dw = if x < -1.0 {
        x.exp()
    } else if x < 1.0 {
        -x.sin()
    } else {
        1.0 / x
    };
    dy + dw + if x > 2.0 { 0.0 } else { 1.0 }
}

/// A branch of an `if` expression that assigns an outer variable and gives a value.
#[differentiable]
fn assign_in_if_expression(x: f64) -> f64 {
    let mut y = x;
    let scale = if x > 0.0 {
        y = x * x;
        3.0
    } else {
        y -= 1.0;
        2.0
    };
    y * scale
}

/// Comparisons stored in `bool` locals, `&&` and `||`, a `bool` parameter.
#[differentiable]
fn logic(x: f64, y: f64, strict: bool) -> f64 {
    let both_positive = x > 0.0 && y > 0.0;
    if both_positive || (strict && x > y) {
        x * y
    } else if !strict || x.sin() > 0.5 {
        x + y
    } else {
        x - y
    }
}

fn logic_partials(x: f64, y: f64, strict: bool) -> [f64; 2] {
    if (x > 0.0 && y > 0.0) || (strict && x > y) {
        [y, x]
    } else if !strict || x.sin() > 0.5 {
        [1.0, 1.0]
    } else {
        [1.0, -1.0]
    }
}

// ---- match ----

/// `match` on an integer: literals, `|`, inclusive and half-open ranges, a negative literal, constants
/// from outside and inside the body, `_`.
#[differentiable]
fn match_arms(x: f64, k: i32) -> f64 {
    const LOCAL: i32 = 8;
    let y = match k {
        0 => x,
        1 | 2 => x * x,
        3..=5 => x.sin(),
        SPECIAL => x.exp(),
        LOCAL => -x,
        -1 => x.cos(),
        ..=-2 => 0.5,
        20.. => x * 20.0,
        _ => x.powi(k),
    };
    y * x
}

fn match_arms_derivative(x: f64, k: i32) -> f64 {
    // f = y x, f' = y' x + y.
    let (y, dy) = match k {
        0 => (x, 1.0),
        1 | 2 => (x * x, 2.0 * x),
        3..=5 => (x.sin(), x.cos()),
        7 => (x.exp(), x.exp()),
        8 => (-x, -1.0),
        -1 => (x.cos(), -x.sin()),
        ..=-2 => (0.5, 0.0),
        20.. => (20.0 * x, 20.0),
        _ => (x.powi(k), f64::from(k) * x.powi(k - 1)),
    };
    dy * x + y
}

/// `match` on an unsigned integer as a statement that assigns, in arms with and without braces, and
/// integer arithmetic on the scrutinee.
#[differentiable]
fn match_assigns(x: f64, k: usize) -> f64 {
    let mut y = x;
    match k % 4 {
        0 => y *= 2.0,
        1 => y = y.exp(),
        2 => {
            y = y.sin();
        }
        _ => {}
    }
    y + x
}

/// `match` on a `bool` as the body's tail, with a shadowing `let` inside an arm.
#[differentiable]
fn match_bool(x: f64, flag: bool) -> f64 {
    match flag {
        true => {
            let x = x * 2.0;
            x.sin()
        }
        false => x.cos(),
    }
}

// ---- early return ----

/// Early returns from nested `if`s, with code between them.
#[differentiable]
fn early_return(x: f64, y: f64) -> f64 {
    if x < 0.0 {
        return y * x;
    }
    let z = x.sqrt() * y;
    if z > 1.0 {
        if y > 2.0 {
            return z.ln();
        }
        return z * z;
    }
    z + 1.0
}

fn early_return_partials(x: f64, y: f64) -> [f64; 2] {
    if x < 0.0 {
        return [y, x];
    }
    let z = x.sqrt() * y;
    let (dz_dx, dz_dy) = (0.5 * y / x.sqrt(), x.sqrt());
    let df_dz = if z > 1.0 && y > 2.0 {
        1.0 / z
    } else if z > 1.0 {
        2.0 * z
    } else {
        1.0
    };
    [df_dz * dz_dx, df_dz * dz_dy]
}

/// Early returns from the arms of a `match`.
#[allow(clippy::collapsible_match)] // guards are outside the subset: the `if` in the arm is under test
#[differentiable]
fn match_return(x: f64, k: u8) -> f64 {
    match k {
        0 => return x.cos(),
        1 => {
            if x > 0.0 {
                return x.sqrt();
            }
        }
        _ => {}
    }
    x * 2.0
}

fn match_return_derivative(x: f64, k: u8) -> f64 {
    match k {
        0 => -x.sin(),
        1 if x > 0.0 => 0.5 / x.sqrt(),
        _ => 2.0,
    }
}

/// Early returns from a bare block, from an `else if` chain, and from a `match` inside an `if`.
#[differentiable]
fn more_returns(x: f64, k: i32) -> f64 {
    {
        if x < -2.0 {
            return x * 3.0;
        }
    }
    if x < -1.0 {
        return x * x;
    } else if x < 0.0 {
        return x.exp();
    } else if x < 1.0 {
        match k {
            0 => return x.sin(),
            1 => return x.cos(),
            _ => {}
        }
    }
    x * 5.0
}

fn more_returns_derivative(x: f64, k: i32) -> f64 {
    match x {
        x if x < -2.0 => 3.0,
        x if x < -1.0 => 2.0 * x,
        x if x < 0.0 => x.exp(),
        x if x < 1.0 && k == 0 => x.cos(),
        x if x < 1.0 && k == 1 => -x.sin(),
        _ => 5.0,
    }
}

/// An explicit `return` as the last statement.
#[allow(clippy::needless_return)] // the explicit `return` is the construct under test
#[differentiable]
fn explicit_return(x: f64) -> f64 {
    let y = x.exp();
    return y * x;
}

// ---- activity: wrt, inactive and integer parameters, stop_gradient ----

/// `wrt(y)`: one active parameter, so the gradient is one float, not a tuple.
#[differentiable(wrt(y))]
fn wrt_one(x: f64, y: f64, z: f64) -> f64 {
    x * y.sin() * z
}

/// `wrt(z, x)` lists the parameters out of order; the gradient is in declaration order, `(x, z)`.
#[differentiable(wrt(z, x))]
fn wrt_order(x: f64, y: f64, z: f64) -> f64 {
    x.exp() * y + z * z * x
}

/// Integer parameters of several types and integer locals, cast to floats.
#[differentiable]
fn integers(x: f64, n: i32, k: usize, flag: bool) -> f64 {
    let mut m = n * 2;
    m += 1;
    let scale = m as f64 + k as f64 / 2.0;
    let y = x.powi(m) * scale;
    if flag {
        y
    } else {
        -y
    }
}

fn integers_derivative(x: f64, n: i32, k: usize, flag: bool) -> f64 {
    let m = 2 * n + 1;
    let d = f64::from(m) * x.powi(m - 1) * (f64::from(m) + k as f64 / 2.0);
    if flag {
        d
    } else {
        -d
    }
}

/// Methods and arithmetic on integers, which stay inactive, also where a float method has the same name.
#[differentiable]
fn integer_methods(x: f64, n: i32) -> f64 {
    let m = n.max(1) + n.abs() + n.pow(2) + n.signum();
    x * m as f64 + x.powi(n.min(2))
}

fn integer_methods_derivative(x: f64, n: i32) -> f64 {
    let m = n.max(1) + n.abs() + n.pow(2) + n.signum();
    let p = n.min(2);
    let power = if p == 0 {
        0.0
    } else {
        f64::from(p) * x.powi(p - 1)
    };
    f64::from(m) + power
}

/// Casts between float types carry the derivative; a cast through an integer is a constant.
#[differentiable]
fn casts(x: f32, y: f64) -> f64 {
    let wide = x as f64;
    let narrow = (y * 2.0) as f32;
    let whole = y as i64 as f64;
    wide * y + (narrow * x) as f64 + whole * wide
}

/// `stop_gradient` by its short and its full path, on a value and on an expression.
#[differentiable]
fn stopped(x: f64, y: f64) -> f64 {
    let c = stop_gradient(x * y);
    let d = autodiff::stop_gradient(y.exp());
    x * c + y * d + stop_gradient(x)
}

// ---- constants ----

/// `const` items in the body, `std::f64::consts`, a constant brought in by `use` at the top of the file
/// and by `use` in the body, and the associated constants of `f64`.
#[differentiable]
fn constants(x: f64) -> f64 {
    use std::f64::consts::FRAC_PI_4;
    const SCALE: f64 = 2.5;
    const HALF_TURN: f64 = std::f64::consts::PI;
    let nudge = 1.0 + f64::EPSILON;
    (x * HALF_TURN).sin() * SCALE
        + std::f64::consts::E * x * nudge
        + x.min(f64::INFINITY)
        + (x * FRAC_PI_4).cos()
        + TAU * x
        + x.max(f64::MIN)
}

fn constants_derivative(x: f64) -> f64 {
    use std::f64::consts::{E, FRAC_PI_4, PI};
    PI * (x * PI).cos() * 2.5 + E * (1.0 + f64::EPSILON) + 1.0 - FRAC_PI_4 * (x * FRAC_PI_4).sin()
        + TAU
        + 1.0
}

// ---- degenerate bodies ----

/// The identity: the body is a parameter.
#[differentiable]
fn identity(x: f64) -> f64 {
    x
}

/// A constant: the gradient is zero; one parameter is not read, the other only by dead code.
#[differentiable]
fn constant(_x: f64, y: f64) -> f64 {
    let _unused = y.exp();
    std::f64::consts::LN_2
}

/// One parameter read many times.
#[differentiable]
fn repeated(x: f64) -> f64 {
    x * x * x + x / (x + x) - x * (x + x)
}

// ---- tuple returns ----

/// Polar to Cartesian coordinates.
#[differentiable]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    (r * theta.cos(), r * theta.sin())
}

fn polar_jacobian(r: f64, theta: f64) -> Vec<Vec<f64>> {
    let (c, s) = (theta.cos(), theta.sin());
    vec![vec![c, -r * s], vec![s, r * c]]
}

/// Three outputs, one of them constant, built through a local.
#[differentiable]
fn three_outputs(x: f64, y: f64) -> (f64, f64, f64) {
    let s = x + y;
    (s * s, x.exp(), 2.0)
}

fn three_outputs_jacobian(x: f64, y: f64) -> Vec<Vec<f64>> {
    let s = x + y;
    vec![vec![2.0 * s, 2.0 * s], vec![x.exp(), 0.0], vec![0.0, 0.0]]
}

/// A tuple returned early from one branch, and a tuple local returned from an `if` expression.
#[differentiable]
fn tuple_branches(x: f64, y: f64) -> (f64, f64) {
    if x > y {
        return (x, y * x);
    }
    let pair = (y.sin(), x * x);
    if x > 0.0 {
        pair
    } else {
        (pair.1 - pair.0, pair.0)
    }
}

fn tuple_branches_jacobian(x: f64, y: f64) -> Vec<Vec<f64>> {
    if x > y {
        vec![vec![1.0, 0.0], vec![y, x]]
    } else if x > 0.0 {
        vec![vec![0.0, y.cos()], vec![2.0 * x, 0.0]]
    } else {
        vec![vec![2.0 * x, -y.cos()], vec![0.0, y.cos()]]
    }
}

/// A tuple returned from `match` arms, with an inactive integer parameter.
#[differentiable]
fn tuple_match(x: f64, k: i32) -> (f64, f64) {
    match k {
        0 => (x, -x),
        _ => (x.exp(), x * k as f64),
    }
}

/// `wrt(..)` on a function with a tuple return: `_vjp` gives the gradient of the active input alone.
#[differentiable(wrt(y))]
fn wrt_tuple(x: f64, y: f64) -> (f64, f64) {
    (x * y, y.sin() * x)
}

/// Trailing commas in the parameters, the return type and the returned tuple.
#[rustfmt::skip]
#[differentiable]
fn trailing_commas(x: f64, y: f64,) -> (f64, f64,) {
    (x * y, x + y,)
}

// ---- visibility ----

/// The generated items have the visibility of the function.
mod visibility {
    use autodiff::differentiable;

    #[differentiable]
    pub fn public(x: f64) -> f64 {
        x * 3.0
    }

    #[differentiable]
    pub(crate) fn crate_visible(x: f64) -> (f64, f64) {
        (x * 4.0, -x)
    }
}

// ---- the tests ----

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arithmetic_operators(x in moderate(), y in divisor(), t in tangents()) {
        prop_assume!(rem_is_smooth(x, y));
        check_scalar(
            "arithmetic",
            |v| arithmetic(v[0], v[1]),
            &[x, y],
            (
                arithmetic_grad(x, y),
                |cot| arithmetic_vjp(x, y, cot),
                |t| arithmetic_jvp(x, y, t),
            ),
            &arithmetic_partials(x, y),
            &t,
        );
    }

    #[test]
    fn float_literals(x in moderate(), t in tangents()) {
        // f = (2x + 3)(100x + 0.5) / 4 - 1/2
        let partial = (2.0 * (100.0 * x + 0.5) + 100.0 * (2.0 * x + 3.0)) / 4.0;
        check_scalar(
            "literals",
            |v| literals(v[0]),
            &[x],
            (
                literals_grad(x),
                |cot| literals_vjp(x, cot),
                |t| literals_jvp(x, t),
            ),
            &[partial],
            &t,
        );
    }

    #[test]
    fn tuple_patterns(x in moderate(), y in moderate(), t in tangents()) {
        check_scalar(
            "tuples",
            |v| tuples(v[0], v[1]),
            &[x, y],
            (
                tuples_grad(x, y),
                |cot| tuples_vjp(x, y, cot),
                |t| tuples_jvp(x, y, t),
            ),
            &tuples_partials(x, y),
            &t,
        );
    }

    #[test]
    fn shadowed_names(x in moderate(), t in tangents()) {
        check_scalar(
            "shadowing",
            |v| shadowing(v[0]),
            &[x],
            (
                shadowing_grad(x),
                |cot| shadowing_vjp(x, cot),
                |t| shadowing_jvp(x, t),
            ),
            &[shadowing_derivative(x)],
            &t,
        );
    }

    #[test]
    fn scoped_shadowed_names(x in moderate(), t in tangents()) {
        prop_assume!(x.abs() > 1e-3);
        check_scalar(
            "scoped shadowing",
            |v| scoped_shadowing(v[0]),
            &[x],
            (
                scoped_shadowing_grad(x),
                |cot| scoped_shadowing_vjp(x, cot),
                |t| scoped_shadowing_jvp(x, t),
            ),
            &[scoped_shadowing_derivative(x)],
            &t,
        );
    }

    #[test]
    fn assignments(x in moderate(), t in tangents()) {
        check_scalar(
            "assignment",
            |v| assignment(v[0]),
            &[x],
            (
                assignment_grad(x),
                |cot| assignment_vjp(x, cot),
                |t| assignment_jvp(x, t),
            ),
            &[assignment_derivative(x)],
            &t,
        );
    }

    #[test]
    fn compound_assignments(x in moderate(), y in divisor(), t in tangents()) {
        prop_assume!(rem_is_smooth(3.0 * x, y));
        check_scalar(
            "compound",
            |v| compound(v[0], v[1]),
            &[x, y],
            (
                compound_grad(x, y),
                |cot| compound_vjp(x, y, cot),
                |t| compound_jvp(x, y, t),
            ),
            &compound_partials(x, y),
            &t,
        );
    }

    #[test]
    fn mutable_parameters(x in nonzero(), n in 0..4_i32, t in tangents()) {
        // f = (2x)^(n+1)
        let partial = 2.0 * f64::from(n + 1) * (2.0 * x).powi(n);
        check_scalar(
            "mut params",
            |v| mut_params(v[0], n),
            &[x],
            (
                mut_params_grad(x, n),
                |cot| mut_params_vjp(x, n, cot),
                |t| mut_params_jvp(x, n, t),
            ),
            &[partial],
            &t,
        );
    }

    #[test]
    fn late_initialisation(x in positive(), t in tangents()) {
        prop_assume!((x - 1.0).abs() > 1e-3);
        check_scalar(
            "late init",
            |v| late_init(v[0]),
            &[x],
            (
                late_init_grad(x),
                |cot| late_init_vjp(x, cot),
                |t| late_init_jvp(x, t),
            ),
            &[late_init_derivative(x)],
            &t,
        );
    }

    #[test]
    fn assignments_inside_blocks(x in -1.0..2.0_f64, k in 0..3_u8, t in tangents()) {
        prop_assume!((x - 1.0).abs() > 1e-3);
        check_scalar(
            "block assignments",
            |v| block_assignments(v[0], k),
            &[x],
            (
                block_assignments_grad(x, k),
                |cot| block_assignments_vjp(x, k, cot),
                |t| block_assignments_jvp(x, k, t),
            ),
            &[block_assignments_derivative(x, k)],
            &t,
        );
    }

    #[test]
    fn nested_ifs(x in nonzero(), y in nonzero(), t in tangents()) {
        // Away from the axes (where the slopes of sqrt(xy) blow up), and from the switch at x = y.
        prop_assume!((x - y).abs() > 1e-3);
        check_scalar(
            "nested if",
            |v| nested_if(v[0], v[1]),
            &[x, y],
            (
                nested_if_grad(x, y),
                |cot| nested_if_vjp(x, y, cot),
                |t| nested_if_jvp(x, y, t),
            ),
            &nested_if_partials(x, y),
            &t,
        );
    }

    #[test]
    fn if_expressions(x in -4.0..4.0_f64, t in tangents()) {
        prop_assume!([-1.0, 0.0, 1.0, 2.0].iter().all(|b| (x - b).abs() > 1e-3));
        check_scalar(
            "if expression",
            |v| if_expression(v[0]),
            &[x],
            (
                if_expression_grad(x),
                |cot| if_expression_vjp(x, cot),
                |t| if_expression_jvp(x, t),
            ),
            &[if_expression_derivative(x)],
            &t,
        );
    }

    #[test]
    fn assignment_inside_an_if_expression(x in moderate(), t in tangents()) {
        prop_assume!(x.abs() > 1e-3);
        let partial = if x > 0.0 { 6.0 * x } else { 2.0 };
        check_scalar(
            "assign in if expression",
            |v| assign_in_if_expression(v[0]),
            &[x],
            (
                assign_in_if_expression_grad(x),
                |cot| assign_in_if_expression_vjp(x, cot),
                |t| assign_in_if_expression_jvp(x, t),
            ),
            &[partial],
            &t,
        );
    }

    #[test]
    fn short_circuit_logic(x in moderate(), y in moderate(), strict: bool, t in tangents()) {
        prop_assume!(x.abs() > 1e-3 && y.abs() > 1e-3 && (x - y).abs() > 1e-3);
        check_scalar(
            "logic",
            |v| logic(v[0], v[1], strict),
            &[x, y],
            (
                logic_grad(x, y, strict),
                |cot| logic_vjp(x, y, strict, cot),
                |t| logic_jvp(x, y, strict, t),
            ),
            &logic_partials(x, y, strict),
            &t,
        );
    }

    #[test]
    fn match_on_integers(x in 0.2..2.0_f64, k in -4..25_i32, t in tangents()) {
        check_scalar(
            "match",
            |v| match_arms(v[0], k),
            &[x],
            (
                match_arms_grad(x, k),
                |cot| match_arms_vjp(x, k, cot),
                |t| match_arms_jvp(x, k, t),
            ),
            &[match_arms_derivative(x, k)],
            &t,
        );
    }

    #[test]
    fn match_statement_assigns(x in moderate(), k in 0..10_usize, t in tangents()) {
        let partial = match k % 4 {
            0 => 3.0,
            1 => x.exp() + 1.0,
            2 => x.cos() + 1.0,
            _ => 2.0,
        };
        check_scalar(
            "match assigns",
            |v| match_assigns(v[0], k),
            &[x],
            (
                match_assigns_grad(x, k),
                |cot| match_assigns_vjp(x, k, cot),
                |t| match_assigns_jvp(x, k, t),
            ),
            &[partial],
            &t,
        );
    }

    #[test]
    fn match_on_a_bool(x in moderate(), flag: bool, t in tangents()) {
        let partial = if flag {
            2.0 * (2.0 * x).cos()
        } else {
            -x.sin()
        };
        check_scalar(
            "match bool",
            |v| match_bool(v[0], flag),
            &[x],
            (
                match_bool_grad(x, flag),
                |cot| match_bool_vjp(x, flag, cot),
                |t| match_bool_jvp(x, flag, t),
            ),
            &[partial],
            &t,
        );
    }

    #[test]
    fn early_returns(x in moderate(), y in -1.0..4.0_f64, t in tangents()) {
        prop_assume!(x.abs() > 0.05 && (y - 2.0).abs() > 1e-3);
        prop_assume!(x < 0.0 || (x.sqrt() * y - 1.0).abs() > 1e-3);
        check_scalar(
            "early return",
            |v| early_return(v[0], v[1]),
            &[x, y],
            (
                early_return_grad(x, y),
                |cot| early_return_vjp(x, y, cot),
                |t| early_return_jvp(x, y, t),
            ),
            &early_return_partials(x, y),
            &t,
        );
    }

    #[test]
    fn returns_from_match_arms(x in moderate(), k in 0..4_u8, t in tangents()) {
        prop_assume!(x.abs() > 0.05);
        check_scalar(
            "match return",
            |v| match_return(v[0], k),
            &[x],
            (
                match_return_grad(x, k),
                |cot| match_return_vjp(x, k, cot),
                |t| match_return_jvp(x, k, t),
            ),
            &[match_return_derivative(x, k)],
            &t,
        );
    }

    #[test]
    fn returns_from_blocks_chains_and_nested_matches(
        x in -3.0..2.0_f64,
        k in 0..3_i32,
        t in tangents(),
    ) {
        prop_assume!([-2.0, -1.0, 0.0, 1.0].iter().all(|b| (x - b).abs() > 1e-3));
        check_scalar(
            "more returns",
            |v| more_returns(v[0], k),
            &[x],
            (
                more_returns_grad(x, k),
                |cot| more_returns_vjp(x, k, cot),
                |t| more_returns_jvp(x, k, t),
            ),
            &[more_returns_derivative(x, k)],
            &t,
        );
    }

    #[test]
    fn explicit_final_return(x in moderate(), t in tangents()) {
        check_scalar(
            "explicit return",
            |v| explicit_return(v[0]),
            &[x],
            (
                explicit_return_grad(x),
                |cot| explicit_return_vjp(x, cot),
                |t| explicit_return_jvp(x, t),
            ),
            &[x.exp() * (x + 1.0)],
            &t,
        );
    }

    #[test]
    fn wrt_restricts_the_gradient(
        x in moderate(),
        y in moderate(),
        z in moderate(),
        t in tangents(),
    ) {
        // One active parameter: the gradient is a lone f64, the tangent too.
        let grad: (f64, f64) = wrt_one_grad(x, y, z);
        let vjp = |cot| -> (f64, f64) { wrt_one_vjp(x, y, z, cot) };
        check_scalar(
            "wrt(y)",
            |v| wrt_one(x, v[0], z),
            &[y],
            (grad, vjp, |t: f64| wrt_one_jvp(x, y, z, t)),
            &[x * y.cos() * z],
            &t,
        );
    }

    #[test]
    fn wrt_gradient_is_in_declaration_order(
        x in moderate(),
        y in moderate(),
        z in moderate(),
        t in tangents(),
    ) {
        let grad: (f64, (f64, f64)) = wrt_order_grad(x, y, z);
        let vjp = |cot| -> (f64, (f64, f64)) { wrt_order_vjp(x, y, z, cot) };
        check_scalar(
            "wrt(z, x)",
            |v| wrt_order(v[0], y, v[1]),
            &[x, z],
            (grad, vjp, |t: (f64, f64)| wrt_order_jvp(x, y, z, t)),
            &[x.exp() * y + z * z, 2.0 * z * x],
            &t,
        );
    }

    #[test]
    fn integer_and_bool_parameters(
        x in nonzero(), n in 0..3_i32, k in 0..5_usize, flag: bool, t in tangents(),
    ) {
        // The integer and bool parameters are inactive: the gradient is one float.
        let grad: (f64, f64) = integers_grad(x, n, k, flag);
        check_scalar(
            "integers",
            |v| integers(v[0], n, k, flag),
            &[x],
            (
                grad,
                |cot| integers_vjp(x, n, k, flag, cot),
                |t| integers_jvp(x, n, k, flag, t),
            ),
            &[integers_derivative(x, n, k, flag)],
            &t,
        );
    }

    #[test]
    fn integer_methods_stay_inactive(x in nonzero(), n in -4..5_i32, t in tangents()) {
        check_scalar(
            "integer methods",
            |v| integer_methods(v[0], n),
            &[x],
            (
                integer_methods_grad(x, n),
                |cot| integer_methods_vjp(x, n, cot),
                |t| integer_methods_jvp(x, n, t),
            ),
            &[integer_methods_derivative(x, n)],
            &t,
        );
    }

    #[test]
    fn float_casts_carry_the_derivative(x in moderate(), y in moderate(), t in tangents()) {
        prop_assume!((y - y.round()).abs() > 1e-3);
        let xf = x as f32;
        let x = f64::from(xf);
        let (value, (d_x, d_y)): (f64, (f32, f64)) = casts_grad(xf, y);
        assert_eq!(value, casts(xf, y));
        // f = x y + (2y as f32) x + trunc(y) x, up to rounding to f32.
        let whole = y.trunc();
        assert_close(
            f64::from(d_x),
            y + 2.0 * y + whole,
            ANALYTIC_TOL_F32,
            "d/dx through f32 -> f64",
        );
        assert_close(
            d_y,
            x + 2.0 * x,
            ANALYTIC_TOL_F32,
            "d/dy through f64 -> f32 -> f64",
        );
        let (jvp_value, dot) = casts_jvp(xf, y, (t[0] as f32, t[1]));
        assert_eq!(jvp_value, value);
        let expected = f64::from(d_x) * f64::from(t[0] as f32) + d_y * t[1];
        assert_close(dot, expected, ANALYTIC_TOL_F32, "jvp through casts");
    }

    #[test]
    fn stop_gradient_holds_its_value_constant(x in moderate(), y in moderate(), t in tangents()) {
        // With c = xy and d = e^y frozen at this point, f is x c + y d + x (the last term frozen too).
        let (c, d, x0) = (x * y, y.exp(), x);
        let frozen = |v: &[f64]| v[0] * c + v[1] * d + x0;
        check_scalar(
            "stop_gradient",
            frozen,
            &[x, y],
            (
                stopped_grad(x, y),
                |cot| stopped_vjp(x, y, cot),
                |t| stopped_jvp(x, y, t),
            ),
            &[c, d],
            &t,
        );
        assert_eq!(stopped(x, y), frozen(&[x, y]));
    }

    #[test]
    fn constants_in_the_body(x in moderate(), t in tangents()) {
        check_scalar(
            "constants",
            |v| constants(v[0]),
            &[x],
            (
                constants_grad(x),
                |cot| constants_vjp(x, cot),
                |t| constants_jvp(x, t),
            ),
            &[constants_derivative(x)],
            &t,
        );
    }

    #[test]
    fn degenerate_bodies(x in nonzero(), y in moderate(), t in tangents()) {
        check_scalar(
            "identity",
            |v| identity(v[0]),
            &[x],
            (
                identity_grad(x),
                |cot| identity_vjp(x, cot),
                |t| identity_jvp(x, t),
            ),
            &[1.0],
            &t,
        );
        check_scalar(
            "constant",
            |v| constant(v[0], v[1]),
            &[x, y],
            (
                constant_grad(x, y),
                |cot| constant_vjp(x, y, cot),
                |t| constant_jvp(x, y, t),
            ),
            &[0.0, 0.0],
            &t,
        );
        check_scalar(
            "repeated",
            |v| repeated(v[0]),
            &[x],
            (
                repeated_grad(x),
                |cot| repeated_vjp(x, cot),
                |t| repeated_jvp(x, t),
            ),
            &[3.0 * x * x - 4.0 * x],
            &t,
        );
    }

    #[test]
    fn tuple_return_polar(r in positive(), theta in moderate(), ct in tangents(), t in tangents()) {
        check_tuple(
            "polar",
            |v| polar(v[0], v[1]),
            &[r, theta],
            &polar_jacobian(r, theta),
            |d| polar_vjp(r, theta, d),
            |t| polar_jvp(r, theta, t),
            (&ct, &t),
        );
    }

    #[test]
    fn tuple_return_with_a_constant_output(
        x in moderate(),
        y in moderate(),
        ct in tangents(),
        t in tangents(),
    ) {
        check_tuple(
            "three outputs",
            |v| three_outputs(v[0], v[1]),
            &[x, y],
            &three_outputs_jacobian(x, y),
            |d| three_outputs_vjp(x, y, d),
            |t| three_outputs_jvp(x, y, t),
            (&ct, &t),
        );
    }

    #[test]
    fn tuple_return_from_branches(
        x in moderate(),
        y in moderate(),
        ct in tangents(),
        t in tangents(),
    ) {
        prop_assume!(x.abs() > 1e-3 && (x - y).abs() > 1e-3);
        check_tuple(
            "tuple branches",
            |v| tuple_branches(v[0], v[1]),
            &[x, y],
            &tuple_branches_jacobian(x, y),
            |d| tuple_branches_vjp(x, y, d),
            |t| tuple_branches_jvp(x, y, t),
            (&ct, &t),
        );
    }

    #[test]
    fn wrt_with_a_tuple_return(
        x in moderate(),
        y in moderate(),
        ct in tangents(),
        t in tangents(),
    ) {
        let jacobian = vec![vec![x], vec![x * y.cos()]];
        check_tuple(
            "wrt tuple",
            |v| wrt_tuple(x, v[0]),
            &[y],
            &jacobian,
            |d| wrt_tuple_vjp(x, y, d),
            |t: f64| wrt_tuple_jvp(x, y, t),
            (&ct, &t),
        );
    }

    #[test]
    fn trailing_commas_anywhere(
        x in moderate(),
        y in moderate(),
        ct in tangents(),
        t in tangents(),
    ) {
        let jacobian = vec![vec![y, x], vec![1.0, 1.0]];
        check_tuple(
            "trailing commas",
            |v| trailing_commas(v[0], v[1]),
            &[x, y],
            &jacobian,
            |d| trailing_commas_vjp(x, y, d),
            |t| trailing_commas_jvp(x, y, t),
            (&ct, &t),
        );
    }

    #[test]
    fn tuple_return_from_match(x in moderate(), k in 0..3_i32, ct in tangents(), t in tangents()) {
        let jacobian = if k == 0 {
            vec![vec![1.0], vec![-1.0]]
        } else {
            vec![vec![x.exp()], vec![f64::from(k)]]
        };
        check_tuple(
            "tuple match",
            |v| tuple_match(v[0], k),
            &[x],
            &jacobian,
            |d| tuple_match_vjp(x, k, d),
            |t| tuple_match_jvp(x, k, t),
            (&ct, &t),
        );
    }
}

/// Each branch of the functions with branches, at a chosen point inside it, so that no branch depends on
/// the luck of random sampling.
#[test]
fn every_branch_is_taken() {
    for (x, y) in [(1.5, 2.0), (1.5, -0.5), (-1.0, 0.5), (-1.0, -2.0)] {
        check_scalar(
            "nested if",
            |v| nested_if(v[0], v[1]),
            &[x, y],
            (
                nested_if_grad(x, y),
                |cot| nested_if_vjp(x, y, cot),
                |t| nested_if_jvp(x, y, t),
            ),
            &nested_if_partials(x, y),
            &TANGENT,
        );
    }
    for x in [-2.0, -0.5, 0.5, 1.5, 3.0] {
        check_scalar(
            "if expression",
            |v| if_expression(v[0]),
            &[x],
            (
                if_expression_grad(x),
                |cot| if_expression_vjp(x, cot),
                |t| if_expression_jvp(x, t),
            ),
            &[if_expression_derivative(x)],
            &TANGENT,
        );
    }
    for x in [-0.5, 0.5] {
        check_scalar(
            "scoped shadowing",
            |v| scoped_shadowing(v[0]),
            &[x],
            (
                scoped_shadowing_grad(x),
                |cot| scoped_shadowing_vjp(x, cot),
                |t| scoped_shadowing_jvp(x, t),
            ),
            &[scoped_shadowing_derivative(x)],
            &TANGENT,
        );
    }
    for x in [0.5, 2.0] {
        check_scalar(
            "late init",
            |v| late_init(v[0]),
            &[x],
            (
                late_init_grad(x),
                |cot| late_init_vjp(x, cot),
                |t| late_init_jvp(x, t),
            ),
            &[late_init_derivative(x)],
            &TANGENT,
        );
    }
    for (x, k) in [(0.5, 0), (0.5, 1), (1.5, 0), (1.5, 2)] {
        check_scalar(
            "block assignments",
            |v| block_assignments(v[0], k),
            &[x],
            (
                block_assignments_grad(x, k),
                |cot| block_assignments_vjp(x, k, cot),
                |t| block_assignments_jvp(x, k, t),
            ),
            &[block_assignments_derivative(x, k)],
            &TANGENT,
        );
    }
    // Both positive; strict and x > y; not strict; strict with sin(x) > 0.5; strict with sin(x) <= 0.5.
    for (x, y, strict) in [
        (1.0, 2.0, false),
        (-1.0, -2.0, true),
        (-1.0, 2.0, false),
        (-4.0, 2.0, true),
        (-1.0, 2.0, true),
    ] {
        check_scalar(
            "logic",
            |v| logic(v[0], v[1], strict),
            &[x, y],
            (
                logic_grad(x, y, strict),
                |cot| logic_vjp(x, y, strict, cot),
                |t| logic_jvp(x, y, strict, t),
            ),
            &logic_partials(x, y, strict),
            &TANGENT,
        );
    }
    for k in [0, 1, 2, 3, 5, 6, 7, 8, -1, -2, -100, 9, 20, 1000] {
        let x = 0.9;
        check_scalar(
            "match",
            |v| match_arms(v[0], k),
            &[x],
            (
                match_arms_grad(x, k),
                |cot| match_arms_vjp(x, k, cot),
                |t| match_arms_jvp(x, k, t),
            ),
            &[match_arms_derivative(x, k)],
            &TANGENT,
        );
    }
    // x < 0; z > 1 and y > 2; z > 1 and y <= 2; z <= 1.
    for (x, y) in [(-1.0, 3.0), (1.0, 3.0), (1.0, 1.5), (0.25, 1.0)] {
        check_scalar(
            "early return",
            |v| early_return(v[0], v[1]),
            &[x, y],
            (
                early_return_grad(x, y),
                |cot| early_return_vjp(x, y, cot),
                |t| early_return_jvp(x, y, t),
            ),
            &early_return_partials(x, y),
            &TANGENT,
        );
    }
    for (x, k) in [(0.5, 0), (0.5, 1), (-0.5, 1), (0.5, 2)] {
        check_scalar(
            "match return",
            |v| match_return(v[0], k),
            &[x],
            (
                match_return_grad(x, k),
                |cot| match_return_vjp(x, k, cot),
                |t| match_return_jvp(x, k, t),
            ),
            &[match_return_derivative(x, k)],
            &TANGENT,
        );
    }
    for (x, k) in [
        (-2.5, 0),
        (-1.5, 0),
        (-0.5, 0),
        (0.5, 0),
        (0.5, 1),
        (0.5, 2),
        (1.5, 0),
    ] {
        check_scalar(
            "more returns",
            |v| more_returns(v[0], k),
            &[x],
            (
                more_returns_grad(x, k),
                |cot| more_returns_vjp(x, k, cot),
                |t| more_returns_jvp(x, k, t),
            ),
            &[more_returns_derivative(x, k)],
            &TANGENT,
        );
    }
    // x > y; x <= y with x > 0; x <= y with x <= 0.
    for (x, y) in [(2.0, 1.0), (0.5, 1.0), (-0.5, 1.0)] {
        check_tuple(
            "tuple branches",
            |v| tuple_branches(v[0], v[1]),
            &[x, y],
            &tuple_branches_jacobian(x, y),
            |d| tuple_branches_vjp(x, y, d),
            |t| tuple_branches_jvp(x, y, t),
            (&TANGENT, &TANGENT),
        );
    }
}

/// The generated items are reachable from outside the module, like the functions.
#[test]
fn generated_items_share_the_visibility() {
    let x = 1.25;
    check_scalar(
        "public",
        |v| visibility::public(v[0]),
        &[x],
        (
            visibility::public_grad(x),
            |cot| visibility::public_vjp(x, cot),
            |t| visibility::public_jvp(x, t),
        ),
        &[3.0],
        &TANGENT,
    );
    check_tuple(
        "crate visible",
        |v| visibility::crate_visible(v[0]),
        &[x],
        &[vec![4.0], vec![-1.0]],
        |d| visibility::crate_visible_vjp(x, d),
        |t| visibility::crate_visible_jvp(x, t),
        (&TANGENT, &TANGENT),
    );
}

/// The primal functions stay callable as written.
#[test]
fn primals_are_unchanged() {
    assert_eq!(identity(1.25), 1.25);
    assert_eq!(constant(1.0, 2.0), std::f64::consts::LN_2);
    assert_eq!(mut_params(1.5, 1), 9.0);
    assert_eq!(match_assigns(1.0, 0), 3.0);
    assert_eq!(polar(2.0, 0.0), (2.0, 0.0));
    assert_eq!(three_outputs(1.0, 1.0).2, 2.0);
    assert_eq!(tuple_match(1.0, 0), (1.0, -1.0));
    assert_eq!(wrt_one(1.0, 0.0, 2.0), 0.0);
    assert_eq!(wrt_order(0.0, 1.0, 1.0), 1.0);
    assert_eq!(integers(1.0, 0, 2, false), -2.0);
}
