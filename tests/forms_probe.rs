//! The body forms an optimisation, physics or statistics user writes, as a new user would write them:
//! `while`, `loop` with `break value`, labelled `break`/`continue`, `match` on integers and enums,
//! shadowing in nested blocks, blocks as values, closures, iterator chains (`zip`, `fold`, `enumerate`,
//! `windows`, `chunks`), `rev`/`step_by`, sub-slices, tuple `let`s and returns, casts, `const` items,
//! `std::f64::consts`, the float methods with kinks, nested `fn`s, recursion, slices of points
//! (`&[[f64; 2]]`) as data and as inputs. Each is checked at many inputs: `_grad` against central
//! differences and a gradient worked out by hand, `_jvp` against the gradient, and where it has
//! `order = 2`, `_hessian` against central differences of `_grad`. (The forms outside the contract get one
//! spanned error each: `tests/ui/`.)

// The forms are written as users write them: index loops, `vec![..]` of a few elements, a `let` assigned
// in both branches.
#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::needless_late_init
)]

mod common;

use autodiff::differentiable;
use common::*;

// ---- the checks ----

/// `x ↦ (value, gradient)` over the flat active inputs.
type Grad<'a> = &'a dyn Fn(&[f64]) -> (f64, Vec<f64>);
/// `(x, t) ↦ (value, gradient · t)`.
type Jvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, f64);
/// `x ↦ (value, gradient, Hessian)`.
type Hessian<'a> = &'a dyn Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>);
/// The gradient worked out by hand.
type Hand<'a> = &'a dyn Fn(&[f64]) -> Vec<f64>;

/// The generated items of one function of a flat vector of `n` inputs.
struct Probe<'a> {
    what: &'a str,
    n: usize,
    primal: &'a dyn Fn(&[f64]) -> f64,
    grad: Grad<'a>,
    jvp: Jvp<'a>,
    hessian: Option<Hessian<'a>>,
    hand: Option<Hand<'a>>,
}

/// A small deterministic generator of inputs, so that a failure names a point that can be rerun.
struct Inputs(u64);

impl Inputs {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }

    fn vector(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// How many points each function is checked at.
const POINTS: usize = 40;

/// Runs every check of `p` at `POINTS` points of `[lo, hi]^n`.
#[track_caller]
fn run(p: &Probe, lo: f64, hi: f64) {
    let mut inputs = Inputs(0x5eed ^ p.what.len() as u64);
    for _ in 0..POINTS {
        let x = inputs.vector(p.n, lo, hi);
        let t = inputs.vector(p.n, -1.0, 1.0);
        let value = (p.primal)(&x);
        let (grad_value, grad) = (p.grad)(&x);
        let at = format!("{} at {x:?}", p.what);
        assert_eq!(
            grad_value.to_bits(),
            value.to_bits(),
            "{at}: the value of _grad"
        );
        assert_fd_gradient(p.primal, &x, &grad, &at);
        if let Some(hand) = p.hand {
            assert_all_close(&grad, &hand(&x), 1e-9, &format!("{at}: gradient vs hand"));
        }
        let (jvp_value, jvp) = (p.jvp)(&x, &t);
        assert_eq!(
            jvp_value.to_bits(),
            value.to_bits(),
            "{at}: the value of _jvp"
        );
        assert_dot(jvp, &grad, &t, 1e-10, &format!("{at}: jvp vs gradient"));
        if let Some(hessian) = p.hessian {
            let (h_value, h_grad, h) = hessian(&x);
            assert_close(
                h_value,
                value,
                1e-12,
                &format!("{at}: the value of _hessian"),
            );
            assert_all_close(
                &h_grad,
                &grad,
                1e-10,
                &format!("{at}: the gradient of _hessian"),
            );
            let fd = fd_jacobian(|y| (p.grad)(y).1, &x);
            for (i, (row, fd_row)) in h.iter().zip(&fd).enumerate() {
                assert_all_close(
                    row,
                    fd_row,
                    1e-5,
                    &format!("{at}: Hessian row {i} vs differences of _grad"),
                );
            }
        }
    }
}

/// The probe of `f(x: &[f64]) -> f64` with `order = 2`, through `f_grad`, `f_jvp` and `f_hessian`, at
/// points of `[lo, hi]^n`, with the gradient `hand` worked out by hand if given.
macro_rules! probe {
    ($f:ident, $grad:ident, $jvp:ident, $hessian:ident, $n:expr, $lo:expr, $hi:expr $(, $hand:expr)?) => {{
        #[allow(unused_mut, unused_assignments)]
        let mut hand: Option<Hand> = None;
        $(hand = Some(&$hand);)?
        run(
            &Probe {
                what: stringify!($f),
                n: $n,
                primal: &|x| $f(x),
                grad: &|x| $grad(x),
                jvp: &|x, t| $jvp(x, t.to_vec()),
                hessian: Some(&|x| $hessian(x)),
                hand,
            },
            $lo,
            $hi,
        )
    }};
}

// ---- the functions ----

/// A flag passed as data.
#[derive(Clone, Copy, PartialEq)]
pub enum Mode {
    Plain,
    Squared,
    Scaled,
}

#[differentiable(order = 2)]
fn newton_cbrt(x: &[f64]) -> f64 {
    let a = x[0] * x[0] + 1.0;
    let mut y = 1.0;
    let mut k = 0;
    while k < 40 {
        y = y - (y * y * y - a) / (3.0 * y * y);
        k += 1;
    }
    y
}

#[differentiable(order = 2)]
fn loop_break_value(x: &[f64]) -> f64 {
    let mut y = x[0];
    let mut i = 0;
    let r = loop {
        y = y.sin() + x[1];
        i += 1;
        if i >= 5 {
            break y * 2.0;
        }
    };
    r + 1.0
}

#[differentiable(order = 2)]
fn labelled(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'outer: for i in 0..x.len() {
        for j in 0..x.len() {
            if i + j > 3 {
                continue 'outer;
            }
            if i * j > 4 {
                break 'outer;
            }
            s += x[i] * x[j].cos();
        }
    }
    s
}

#[differentiable(order = 2)]
fn match_tuple(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += match i % 6 {
            0 => x[i].sin(),
            2 | 4 => x[i] * x[i],
            3 => x[i].exp(),
            _ => 2.0 * x[i],
        };
    }
    s
}

#[differentiable(order = 2)]
fn match_range(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let w = match i {
            0 => 1.0,
            1..=2 => x[0],
            3 | 4 => x[i] * x[0],
            _ => 0.5,
        };
        s += w * x[i];
    }
    s
}

/// An enum parameter matched on, never read otherwise: data, with or without `wrt(..)`, also at
/// `order = 2`.
#[differentiable(order = 2)]
fn match_enum(x: &[f64], mode: Mode) -> f64 {
    let s: f64 = x.iter().sum();
    match mode {
        Mode::Plain => s,
        Mode::Squared => s * s,
        Mode::Scaled => 3.0 * s,
    }
}

#[differentiable(order = 2)]
fn shadow_nested(x: &[f64]) -> f64 {
    let y = x[0];
    let mut s = 0.0;
    {
        let y = y * x[1];
        s += y.sin();
        {
            let y = y + 1.0;
            s += y * y;
        }
        s += y;
    }
    s + y
}

#[differentiable(order = 2)]
fn block_value(x: &[f64]) -> f64 {
    let z = {
        let a = x[0] * x[1];
        a.sin()
    };
    let w = if z > 0.0 {
        {
            let b = z * z;
            b + x[0]
        }
    } else {
        x[1]
    };
    z + w
}

#[differentiable(order = 2)]
fn closures(x: &[f64]) -> f64 {
    let sq = |v: f64| v * v;
    let scale = x[0];
    let f = |a: f64, b: f64| a * b * scale + sq(a);
    f(x[1], x[0]) + sq(x[1])
}

#[differentiable(order = 2)]
fn chain_zip(x: &[f64]) -> f64 {
    let (a, b) = (&x[..2], &x[2..4]);
    a.iter()
        .zip(b.iter())
        .map(|(p, q)| (p - q).powi(2))
        .sum::<f64>()
        .sqrt()
}

#[differentiable(order = 2)]
fn chain_fold_enumerate(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .fold(0.0, |acc, (i, v)| acc + (i as f64 + 1.0) * v * v)
}

#[differentiable(order = 2)]
fn rev_step(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev().step_by(2) {
        s = s * 0.5 + x[i].sin();
    }
    for i in (0..x.len()).step_by(2) {
        s += x[i] * s;
    }
    s
}

#[differentiable(order = 2)]
fn windows_sum(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum()
}

#[differentiable(order = 2)]
fn chunks_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in x.chunks(2) {
        s += c[0] * c[c.len() - 1];
    }
    s
}

#[differentiable(order = 2)]
fn casts(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let k = (x[0].abs() * 3.0) as usize;
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (i as f64) * x[i] / n;
    }
    s + k as f64 * x[1]
}

#[differentiable(order = 2)]
fn consts(x: &[f64]) -> f64 {
    const HALF: f64 = 0.5;
    const N: usize = 2;
    let a = std::f64::consts::PI * x[0];
    let b = core::f64::consts::E.powf(x[1]);
    let c = std::f64::consts::LN_2 * x[N];
    HALF * (a.sin() + b + c)
}

#[differentiable(order = 2)]
fn methods(x: &[f64]) -> f64 {
    let a = x[0].min(x[1]) + x[0].max(x[2]);
    let b = x[1].clamp(-0.5, 0.5) + x[2].abs() * x[0].signum();
    let c = x[0].powi(3) + x[1].abs().powf(1.5) + x[0].hypot(x[1]);
    let d = x[1].atan2(x[2]) + x[0].mul_add(x[1], x[2]);
    a + b + c + d
}

#[differentiable(order = 2)]
fn nested_fn(x: &[f64]) -> f64 {
    fn bump(a: f64) -> f64 {
        a * a.sin()
    }
    bump(x[0]) + bump(x[1] * x[0])
}

#[differentiable(order = 2)]
fn tuple_let_swap(x: &[f64]) -> f64 {
    let (mut p, mut q) = (x[0], x[1]);
    for _ in 0..5 {
        let (a, b) = (q, p + 0.3 * q);
        p = a;
        q = b;
    }
    p * q
}

#[differentiable]
fn polar(x: &[f64]) -> (f64, f64) {
    let (r, t) = (x[0], x[1]);
    (r * t.cos(), r * t.sin())
}

#[differentiable(order = 2)]
fn early_return(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
        if s > 4.0 {
            return s.sqrt();
        }
    }
    s
}

#[differentiable(order = 2)]
fn running_min(x: &[f64]) -> f64 {
    let mut m = f64::INFINITY;
    let mut big = f64::NEG_INFINITY;
    for &v in x {
        m = m.min(v);
        big = big.max(v);
    }
    big - m + f64::EPSILON
}

#[differentiable(order = 2)]
fn softmax_xent(x: &[f64], label: usize) -> f64 {
    let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
    let z: f64 = e.iter().sum();
    z.ln() + m - x[label]
}

#[differentiable(order = 2)]
fn stats(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    var.sqrt() + mean
}

#[differentiable(order = 2)]
fn loop_continue(x: &[f64]) -> f64 {
    let mut i = 0;
    let mut s = 1.0;
    loop {
        i += 1;
        if i >= x.len() {
            break;
        }
        if i % 2 == 0 {
            continue;
        }
        s *= 1.0 + x[i] * x[i - 1];
    }
    s
}

#[differentiable(order = 2)]
fn sub_slices(x: &[f64]) -> f64 {
    let head: f64 = x[..2].iter().sum();
    let tail: f64 = x[1..].iter().map(|v| v * v).sum();
    head * tail
}

#[differentiable(order = 2, wrt(w))]
fn inactive_points(w: &[f64], pts: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for p in pts {
        let r = w[0] * p[0] + w[1] * p[1] - 1.0;
        s += r * r;
    }
    s
}

#[differentiable(order = 2, wrt(w))]
fn inactive_points_indexed(w: &[f64], pts: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for i in 0..pts.len() {
        s += (w[0] * pts[i][0] - w[1] * pts[i][1]).powi(2);
    }
    s
}

#[differentiable(order = 2)]
fn verlet(x: &[f64]) -> f64 {
    let k = x[0] * x[0] + 1.0;
    let mut pos = [x[1], 0.0];
    let mut vel = [0.0, x[2]];
    let dt = 0.01;
    for _ in 0..50 {
        let acc = [-k * pos[0], -k * pos[1]];
        for d in 0..2 {
            pos[d] += dt * vel[d] + 0.5 * dt * dt * acc[d];
        }
        let acc2 = [-k * pos[0], -k * pos[1]];
        for d in 0..2 {
            vel[d] += 0.5 * dt * (acc[d] + acc2[d]);
        }
    }
    pos[0] * pos[0] + vel[1] * vel[1]
}

#[differentiable(order = 2)]
fn else_if_chain(x: &[f64]) -> f64 {
    let a = x[0];
    let y = if a < -1.0 {
        -a
    } else if a < 1.0 {
        a * a
    } else {
        a.ln() + 1.0
    };
    y * x[1]
}

#[differentiable(order = 2)]
fn generic_sum<T: autodiff::Float>(x: &[T]) -> T {
    let half = T::from(0.5).unwrap();
    let mut s = T::zero();
    for &v in x {
        s = s + half * v * v;
    }
    s + T::one()
}

#[differentiable(order = 2)]
fn recursion(x: &[f64]) -> f64 {
    pow_rec(x[0], 4) + x[1]
}

#[differentiable(order = 2)]
fn pow_rec(a: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        a * pow_rec(a, n - 1)
    }
}

#[differentiable(order = 2)]
fn closure_indexing(x: &[f64]) -> f64 {
    let g = |i: usize| x[i] * x[(i + 1) % x.len()];
    let mut s = 0.0;
    for i in 0..x.len() {
        s += g(i);
    }
    s
}

#[differentiable(order = 2)]
fn zip_for(x: &[f64]) -> f64 {
    let y = [1.0, 2.0, 3.0];
    let mut s = 0.0;
    for (a, b) in x.iter().zip(y.iter()) {
        s += a * b;
    }
    for (i, &v) in x.iter().enumerate() {
        s = s * 0.9 + v * i as f64;
    }
    s
}

#[differentiable(order = 2)]
fn active_points(w: &[f64], pts: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for p in pts {
        let r = w[0] * p[0] + w[1] * p[1] * p[0] - 1.0;
        s += r * r;
    }
    s
}

#[differentiable]
fn active_points_vec(pts: Vec<[f64; 2]>) -> f64 {
    let mut s = 0.0;
    for i in 0..pts.len() {
        s += pts[i][0] * pts[i][1].sin();
    }
    s
}

/// A `fold` whose closure declares the accumulator's type (`|a: f64, b| ..`) and starts from a bare `0.0`.
#[differentiable(order = 2)]
fn fold_typed_accumulator(x: &[f64]) -> f64 {
    let total: f64 = x.iter().sum();
    total / x.len() as f64 + x.iter().map(|v| v.abs()).fold(0.0, |a: f64, b| a.max(b))
}

/// A local closure with a typed accumulator given to `fold`.
#[differentiable(order = 2)]
fn local_closure_fold(x: &[f64]) -> f64 {
    let step = |a: f64, b: &f64| a.max(*b);
    x.iter().fold(-10.0, step) + x[0]
}
/// A `while` whose condition reads the active value: the trip count depends on it.
#[differentiable(order = 2)]
fn while_cond_active(x: &[f64]) -> f64 {
    let mut t = x[0].abs() + 0.5;
    while t < 100.0 {
        t *= 1.7;
    }
    t
}
/// A closure returning a tuple, destructured.
#[differentiable(order = 2)]
fn closure_tuple(x: &[f64]) -> f64 {
    let f = |a: f64| (a, a * a);
    let (p, q) = f(x[0]);
    p * q
}
/// A `Vec` made empty before a loop and pushed in it.
#[differentiable(order = 2)]
fn push_outside(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    for i in 0..x.len() {
        v.push(x[i] * 2.0);
    }
    v.iter().map(|a| a * a).sum()
}
/// Chains over ranges of indexes.
#[differentiable(order = 2)]
fn range_chain(x: &[f64]) -> f64 {
    let n = x.len();
    (0..n).map(|i| x[i] * (i as f64 + 1.0)).sum::<f64>()
        + (1..n).map(|i| x[i] * x[i - 1]).sum::<f64>()
}
/// `filter` and `skip` in chains.
#[differentiable(order = 2)]
fn filter_skip(x: &[f64]) -> f64 {
    x.iter().filter(|&&v| v > 0.0).map(|v| v * v).sum::<f64>() + x.iter().skip(1).sum::<f64>()
}
/// A `const` array of the body (its elements read in the generic copy of `order = 2` as literals are).
#[differentiable(order = 2)]
fn const_array(x: &[f64]) -> f64 {
    const W: [f64; 3] = [0.2, 0.3, 0.5];
    let mut s = 0.0;
    for i in 0..3 {
        s += W[i] * x[i] * x[i];
    }
    s
}
/// Float methods called by their path (`f64::max(a, b)`), and a method of a literal (`2.0f64.powf(..)`).
#[differentiable(order = 2)]
fn ufcs(x: &[f64]) -> f64 {
    f64::max(x[0], x[1]) + f64::sqrt(x[2] * x[2] + 1.0) + f64::powi(x[0], 2) + 2.0f64.powf(x[1])
}
/// A typed tuple `let`, suffixed and exponent literals.
#[differentiable(order = 2)]
fn typed_tuple_let(x: &[f64]) -> f64 {
    let (a, b): (f64, f64) = (x[0], x[1]);
    let s = 0.5_f64 * a + 1e-3 * b + 2f64;
    s * a * b
}
/// `powi` of an integer parameter cast to `i32`, and of a negative exponent.
#[differentiable(order = 2)]
fn powi_param(x: &[f64], n: usize) -> f64 {
    x[0].powi(n as i32) + x[1].powi(-2)
}
/// Chains over `chunks` and `windows`, with two `map`s.
#[differentiable(order = 2)]
fn chunks_chain(x: &[f64]) -> f64 {
    x.chunks(2).map(|c| c[0] * c[1]).sum::<f64>()
        + x.windows(3)
            .map(|w| w[0] - 2.0 * w[1] + w[2])
            .map(|d| d * d)
            .sum::<f64>()
}
/// Array literals of active elements, written elementwise.
#[differentiable(order = 2)]
fn array_literal(x: &[f64]) -> f64 {
    let arr = [x[0], x[1], x[0] * x[1]];
    let mut v = [0.0; 3];
    v[0] = arr[2];
    v[1] = arr[0] + arr[1];
    arr.iter().sum::<f64>() + v.iter().map(|a| a * a).sum::<f64>()
}
/// Early `return` from the arms of a `match` on an integer parameter.
#[differentiable(order = 2)]
fn return_in_match(x: &[f64], k: usize) -> f64 {
    let y = x[0] * x[1];
    match k {
        0 => return y.sin(),
        1 => {}
        _ => return y,
    }
    y * y
}
/// `enumerate` in a chain with a `(i, &v)` pattern; `rev` before `fold`.
#[differentiable(order = 2)]
fn enumerate_chain(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(i, &v)| v * i as f64)
        .sum::<f64>()
        + x.iter().rev().fold(0.0, |a, &v| a * 0.5 + v)
}
/// `zip` with a slice, not its `.iter()`.
#[differentiable(order = 2)]
fn zip_slice(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>()
}
/// A local matrix written in nested loops, its determinant.
#[differentiable(order = 2)]
fn nested_loops_matrix(x: &[f64]) -> f64 {
    let n = 2;
    let mut m = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            m[i][j] = x[i] * x[j] + if i == j { 1.0 } else { 0.0 };
        }
    }
    m[0][0] * m[1][1] - m[0][1] * m[1][0]
}
/// An integer counter beside a float sum, and a division by it as a float.
#[differentiable(order = 2)]
fn integer_accumulate(x: &[f64]) -> f64 {
    let mut count = 0;
    let mut s = 0.0;
    for &v in x {
        if v > 0.0 {
            count += 1;
            s += v;
        }
    }
    if count > 0 {
        s / count as f64
    } else {
        0.0
    }
}
/// A `bool` local, `&&` and `!`.
#[differentiable(order = 2)]
fn bool_flag(x: &[f64]) -> f64 {
    let positive = x[0] > 0.0;
    let mut s = x[1];
    if positive && x[1] < 1.0 {
        s *= x[0];
    }
    if !positive {
        s = -s;
    }
    s
}
/// A generic function with a closure of its type parameter and a `fold` from `T::zero()`.
#[differentiable(order = 2)]
fn gen_closure<T: autodiff::Float>(x: &[T]) -> T {
    let two = T::from(2.0).unwrap();
    let sq = |v: T| v * v;
    x.iter().map(|&v| sq(v) * two).fold(T::zero(), |a, b| a + b)
}
/// An enum parameter compared with `==`, `wrt(..)` naming the others.
#[differentiable(order = 2, wrt(x))]
fn compare_enum(x: f64, y: f64, mode: Mode) -> f64 {
    let s = x * y;
    if mode == Mode::Squared {
        s * s
    } else if mode != Mode::Plain {
        3.0 * s
    } else {
        s
    }
}

/// A loop body shadowing the parameter's name.
#[differentiable(order = 2)]
fn shadow_param_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let x = x[i] * 2.0;
        s += x * x;
    }
    s
}
/// Two array buffers swapped through a temporary each step (`prev`, `curr`).
#[differentiable(order = 2)]
fn swap_buffers(x: &[f64]) -> f64 {
    let mut prev = [x[0], x[1]];
    let mut curr = [x[1], x[0] * 0.5];
    for _ in 0..4 {
        let next = [curr[0] + 0.1 * prev[1], curr[1] - 0.2 * prev[0] * curr[0]];
        let tmp = curr;
        curr = next;
        prev = tmp;
    }
    curr[0] * prev[1] + curr[1]
}
/// A copy of a slice, written by compound assignment, then mapped into a `Vec`.
#[differentiable(order = 2)]
fn to_vec_modify(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v[0] += 1.0;
    v[1] *= v[0];
    let w: Vec<f64> = v.iter().map(|a| a.sin()).collect();
    w[0] + w[1] * v[2]
}
/// `-=`, `*=` and `/=` in a loop.
#[differentiable(order = 2)]
fn compound_ops(x: &[f64]) -> f64 {
    let mut s = 1.0;
    for i in 0..x.len() {
        s -= x[i];
        s *= 1.0 + x[i] * x[i];
        s /= 2.0 + x[i].cos();
    }
    s
}
/// The float remainder `%`.
#[differentiable(order = 2)]
fn rem_op(x: &[f64]) -> f64 {
    (x[0] * 3.0) % 1.7 + x[1] % 0.5
}
/// A `Vec` returned from a chain.
#[differentiable]
fn vec_return(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| v * v).collect()
}
/// An array returned.
#[differentiable]
fn array_return(x: &[f64]) -> [f64; 2] {
    [x[0] * x[1], x[0] + x[1]]
}
/// Indexes computed with `%` and `-`, integers cast to floats.
#[differentiable(order = 2)]
fn index_arith(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        s += x[(i + 1) % n] * x[n - 1 - i] * (i as f64 / (n - 1) as f64);
    }
    s
}
/// Newton's square root until converged: a `while` on the active residual.
#[differentiable(order = 2)]
fn newton_active_cond(x: &[f64]) -> f64 {
    let a = x[0] * x[0] + 2.0;
    let mut y = a;
    let mut k = 0;
    while (y * y - a).abs() > 1e-13 * a && k < 100 {
        y = 0.5 * (y + a / y);
        k += 1;
    }
    y
}
/// Runge-Kutta 4 steps of an ODE given by a closure capturing an active rate.
#[differentiable(order = 2)]
fn rk4(x: &[f64]) -> f64 {
    let k = x[0];
    let f = |y: f64| -k * y + y.sin();
    let mut y = x[1];
    let h = 0.1;
    for _ in 0..10 {
        let k1 = f(y);
        let k2 = f(y + 0.5 * h * k1);
        let k3 = f(y + 0.5 * h * k2);
        let k4 = f(y + h * k3);
        y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    y
}
/// A Gaussian log-likelihood with means chosen by a `match` on integer labels (data).
#[differentiable(order = 2, wrt(mu))]
fn gauss_ll(mu: &[f64], data: &[f64], labels: &[usize]) -> f64 {
    let mut ll = 0.0;
    for i in 0..data.len() {
        let m = match labels[i] {
            0 => mu[0],
            1 | 2 => mu[1],
            _ => 0.5 * (mu[0] + mu[1]),
        };
        ll -= 0.5 * (data[i] - m).powi(2);
    }
    ll
}
/// An argmin by index, then the element read through it.
#[differentiable(order = 2)]
fn argmin_read(x: &[f64]) -> f64 {
    let mut best = f64::INFINITY;
    let mut arg = 0;
    for i in 0..x.len() {
        if x[i] < best {
            best = x[i];
            arg = i;
        }
    }
    x[arg] * 2.0 + best
}
/// A `while` left by `break` in the middle of its body.
#[differentiable(order = 2)]
fn break_mid_while(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < x.len() {
        s += x[i].exp();
        if s > 3.0 {
            break;
        }
        s *= 0.5;
        i += 1;
    }
    s
}
/// A loop-carried product past a `continue`.
#[differentiable(order = 2)]
fn continue_carry(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    for i in 0..x.len() {
        p *= x[i];
        if x[i] < 0.0 {
            continue;
        }
        s += p;
    }
    s
}
/// A labelled `while` left from an inner `loop`.
#[differentiable(order = 2)]
fn labelled_while_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    'outer: while i < x.len() {
        let mut j = 0;
        loop {
            if j >= x.len() {
                break;
            }
            if x[i] * x[j] > 2.0 {
                break 'outer;
            }
            s += x[i] * x[j];
            j += 1;
        }
        i += 1;
    }
    s
}
/// A `move` closure capturing an active value, called with an active and a literal argument.
#[differentiable(order = 2)]
fn move_closure(x: &[f64]) -> f64 {
    let k = x[0];
    let f = move |v: f64| v * k;
    f(x[1]) + f(2.0)
}

/// `zip` in a chain beside an element read.
#[differentiable(order = 2)]
fn triple_zip(x: &[f64], y: &[f64], z: &[f64]) -> f64 {
    x.iter().zip(y.iter()).map(|(a, b)| a * b).sum::<f64>() + z[0]
}

/// A `for` over `x.iter().zip(y)`, `y` a slice.
#[differentiable(order = 2)]
fn zip_for_noiter(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(y) {
        s += a * b.sin();
    }
    s
}

/// `product` and a method of a `sum`.
#[differentiable(order = 2)]
fn product_pow(x: &[f64]) -> f64 {
    x.iter().product::<f64>() + x.iter().sum::<f64>().powi(2)
}

/// An `f32` function converting to `f64` and back (first order).
#[differentiable]
fn f32_fn(x: f32, y: f32) -> f32 {
    let a = (x as f64).exp() as f32;
    a * y
}

/// `T::from(i).unwrap()` of an integer in a generic function.
#[differentiable(order = 2)]
fn generic_from<T: autodiff::Float>(x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..x.len() {
        s = s + T::from(i).unwrap() * x[i] * x[i];
    }
    s
}

/// A `vec![..]` of active elements.
#[differentiable(order = 2)]
fn vec_literal(x: &[f64]) -> f64 {
    let v = vec![x[0], x[1] * x[0], 3.0];
    v[0] * v[1] + v[2] * v[1]
}

/// A generic `fn` nested in the body.
#[differentiable(order = 2)]
fn nested_generic_fn(x: &[f64]) -> f64 {
    fn sq<T: autodiff::Float>(v: T) -> T {
        v * v
    }
    sq(x[0]) + sq(x[1] * x[0])
}

/// A sub-slice bound to a name, iterated, indexed, and passed to a differentiable callee.
#[differentiable(order = 2)]
fn subslice_bind(x: &[f64]) -> f64 {
    let y = &x[1..3];
    y.iter().sum::<f64>() * helper_sum(&x[1..]) + y[0]
}

/// The callee of `subslice_bind`.
#[differentiable(order = 2)]
fn helper_sum(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum()
}

/// A tuple as the value of an `if`, and a nested tuple `let`.
#[differentiable(order = 2)]
fn if_tuple(x: &[f64]) -> f64 {
    let (a, b) = if x[0] > x[1] {
        (x[0], x[1])
    } else {
        (x[1], x[0])
    };
    let ((c, d), e) = ((a * 2.0, b), x[2]);
    c * d + e * a
}

/// Integer methods (`min`, `saturating_sub`) computing indexes.
#[differentiable(order = 2)]
fn int_methods(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        let j = (i + 1).min(n - 1);
        let k = i.saturating_sub(1);
        s += x[j] * x[k];
    }
    s
}

/// ReLU, a sigmoid, `recip` and unary minus.
#[differentiable(order = 2)]
fn relu_sigmoid(x: &[f64]) -> f64 {
    let z = x[0] * 2.0 - x[1];
    let r = z.max(0.0);
    let s = 1.0 / (1.0 + (-z).exp());
    r + s + x[1].recip() + -x[0]
}

/// A `use` of `std::f64::consts::PI` in the body.
#[differentiable(order = 2)]
fn use_in_body(x: &[f64]) -> f64 {
    use std::f64::consts::PI;
    (PI * x[0]).sin() + std::f64::consts::FRAC_PI_2 * x[1]
}

/// Arrays as the values of a `match`.
#[differentiable(order = 2)]
fn match_array_value(x: &[f64], k: usize) -> f64 {
    let v = match k {
        0 => [x[0], x[1]],
        _ => [x[1], x[0] * x[0]],
    };
    v[0] * v[1]
}

/// A parameter struct with an integer field, read by a method with `order = 2` as the receiver of
/// `min` (`self.n.min(x.len())`): an integer, not a float to lift.
#[derive(Clone, Debug, autodiff::Differentiable)]
struct Model2 {
    k: f64,
    #[no_grad]
    n: usize,
}

impl Model2 {
    #[differentiable(order = 2)]
    fn energy2(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..self.n.min(x.len()) {
            s += self.k * x[i] * x[i];
        }
        s
    }
}

/// A constant parameter struct's integer field read into a local, `order = 2`.
#[differentiable(order = 2, wrt(x))]
fn energy3(m: &Model2, x: &[f64]) -> f64 {
    let mut s = 0.0;
    let n = m.n;
    for i in 0..n.min(x.len()) {
        s += m.k * x[i] * x[i];
    }
    s
}

/// A `Vec` made with a capacity before a loop and pushed in it.
#[differentiable(order = 2)]
fn with_capacity(x: &[f64]) -> f64 {
    let mut v = Vec::with_capacity(x.len());
    for &a in x {
        v.push(a * a);
    }
    v.iter().sum()
}

/// `.rev().enumerate()` over a slice in a `for`: counts from the last element.
#[differentiable(order = 2)]
fn rev_enumerate(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().rev().enumerate() {
        s += v * v * i as f64;
    }
    s
}

/// An early `return` of a literal.
#[differentiable(order = 2)]
fn early_literal(x: &[f64]) -> f64 {
    let n = x.len();
    if n == 0 {
        return 0.0;
    }
    x[0] * x[n - 1]
}

/// A copy of an array parameter, written, beside the parameter.
#[differentiable(order = 2)]
fn copy_array_write(x: [f64; 2]) -> f64 {
    let mut y = x;
    y[0] = 1.0;
    y[0] * y[1] * y[1] + x[0] * x[1]
}

/// A tuple parameter destructured and read by field.
#[differentiable(order = 2)]
fn tuple_param(p: (f64, f64)) -> f64 {
    let (a, b) = p;
    a * b + p.0 * p.0
}

/// A slice copied (`to_vec`) inside a branch.
#[differentiable(order = 2)]
fn clone_in_branch(x: &[f64]) -> f64 {
    let mut s = 0.0;
    if x[0] > 0.0 {
        let v = x.to_vec();
        s += v[0] * v[1];
    }
    s + x[1]
}

/// A local array element read, then overwritten: the read keeps the old value.
#[differentiable(order = 2)]
fn overwrite_after_read(x: &[f64]) -> f64 {
    let mut v = vec![0.0; 3];
    v[0] = x[0];
    let a = v[0];
    v[0] = x[1] * 2.0;
    v[1] = v[0] * a;
    a * v[0] + v[1]
}

/// Prefix products and a cumulative sum written in place.
#[differentiable(order = 2)]
fn prefix_in_place(x: &[f64]) -> f64 {
    let n = x.len();
    let mut p = x.to_vec();
    for i in 1..n {
        p[i] = p[i - 1] * x[i];
    }
    for i in 1..n {
        p[i] += p[i - 1];
    }
    p[n - 1]
}

/// Gaussian elimination without pivoting on a local matrix, in place: the solution of A y = b, with A and
/// b made from the inputs, then a float of it.
#[differentiable(order = 2)]
fn solve_in_place(x: &[f64]) -> f64 {
    let n = 3;
    let mut a = vec![vec![0.0; n]; n];
    let mut b = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            a[i][j] = if i == j {
                4.0 + x[i] * x[i]
            } else {
                0.5 * x[(i + j) % n]
            };
        }
        b[i] = 1.0 + x[i];
    }
    for k in 0..n {
        for i in (k + 1)..n {
            let m = a[i][k] / a[k][k];
            for j in k..n {
                a[i][j] -= m * a[k][j];
            }
            b[i] -= m * b[k];
        }
    }
    let mut y = vec![0.0; n];
    for i in (0..n).rev() {
        let mut s = b[i];
        for j in (i + 1)..n {
            s -= a[i][j] * y[j];
        }
        y[i] = s / a[i][i];
    }
    y[0] + 2.0 * y[1] * y[2]
}

/// A generic function with its bound in a `where` clause.
#[differentiable(order = 2)]
fn where_clause<T>(x: &[T]) -> T
where
    T: autodiff::Float,
{
    x[0] * x[1]
}

/// Several bounds on the float type parameter.
#[differentiable(order = 2)]
fn multi_bounds<T: autodiff::Float + Copy + std::fmt::Debug>(x: &[T]) -> T {
    x[0] * x[0]
}

/// A `let` without a value, assigned in both branches.
#[differentiable(order = 2)]
fn deferred_init(x: &[f64]) -> f64 {
    let y;
    if x[0] > 0.0 {
        y = x[0] * x[1];
    } else {
        y = x[1];
    }
    y * 2.0
}

/// Attributes on the function and on a statement, and `pub(crate)`.
#[inline]
#[must_use]
#[differentiable(order = 2)]
pub(crate) fn attributed(x: &[f64]) -> f64 {
    #[allow(unused_variables)]
    let unused = 3.0;
    x[0].sin()
}

/// An index computed from an active float by a cast: the index is constant.
#[differentiable(order = 2)]
fn float_to_index(x: &[f64], t: &[f64]) -> f64 {
    let k = (x[0].abs() * 2.0) as usize % t.len();
    t[k] * x[0]
}

/// An attribute on a `let`.
#[differentiable(order = 2)]
fn stmt_attr(x: &[f64]) -> f64 {
    #[allow(clippy::let_and_return)]
    let s = x[0] + x[1];
    s
}

/// Points `&[[T; 2]]` as data of a generic least-squares fit.
#[differentiable(order = 2, wrt(w))]
fn fit<T: autodiff::Float>(w: &[T], pts: &[[T; 2]]) -> T {
    let mut s = T::zero();
    for p in pts {
        let r = w[0] * p[0] + w[1] - p[1];
        s = s + r * r;
    }
    s
}
/// Points passed on to a differentiable callee, and their count.
#[differentiable(order = 2, wrt(w))]
fn fit_calls(w: &[f64], pts: &[[f64; 2]]) -> f64 {
    residuals(w, pts) + pts.len() as f64 * w[0]
}
/// The callee of `fit_calls`, indexing `pts[i][j]`.
#[differentiable(order = 2, wrt(w))]
fn residuals(w: &[f64], pts: &[[f64; 2]]) -> f64 {
    let mut s = 0.0;
    for i in 0..pts.len() {
        let r = w[0] * pts[i][0] + w[1] - pts[i][1];
        s += r * r;
    }
    s
}
/// Points differentiated, to a `Vec`: `_jacobian` and `_vjp` in their shape.
#[differentiable]
fn row_sums(pts: &[[f64; 2]]) -> Vec<f64> {
    let mut out = vec![0.0; pts.len()];
    for i in 0..pts.len() {
        out[i] = pts[i][0] * pts[i][1];
    }
    out
}
/// The callee of `passes_mode_on`: an enum parameter matched on.
#[differentiable]
fn by_mode(x: f64, mode: Mode) -> f64 {
    match mode {
        Mode::Plain => x,
        Mode::Squared => x * x,
        Mode::Scaled => 3.0 * x,
    }
}

/// An enum parameter (constant by `wrt(..)`) passed on by value to a differentiable callee.
#[differentiable(wrt(x))]
fn passes_mode_on(x: f64, mode: Mode) -> f64 {
    by_mode(x, mode) * x
}

/// A parameter struct taken by value.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct Weights {
    w: Vec<f64>,
    b: f64,
}

/// The callee of `passes_struct_on`, taking the struct by value.
#[differentiable]
fn weighted(p: Weights, x: &[f64]) -> f64 {
    let mut s = p.b;
    for i in 0..x.len() {
        s += p.w[i] * x[i] * x[i];
    }
    s
}

/// A parameter struct taken by value, constant by `wrt(..)`, passed on by value.
#[differentiable(wrt(x))]
fn passes_struct_on(p: Weights, x: &[f64]) -> f64 {
    weighted(p, x) * 2.0
}

/// An enum parameter without `wrt(..)`, passed on by value to a callee that keeps it constant: data, as
/// `compare_enum`'s is (was an active struct: `Mode` not `Differentiable`, and rustc's errors in the
/// generated code).
#[differentiable]
fn passes_mode_on_by_default(x: f64, y: f64, mode: Mode) -> f64 {
    by_mode(x * y, mode) + y
}

/// The same at `order = 2`: its copy passes `mode` to `by_mode`'s copy as it is.
#[differentiable(order = 2)]
fn passes_mode_on_twice(x: f64, y: f64, mode: Mode) -> f64 {
    by_mode(x * y, mode) * x
}

/// A function without `order = K` that passes an enum the file declares on to a callee: it has a generic
/// copy (it had none, so an `order = K` caller was rustc's E0277 "`passes_mode_along` has no generic copy").
#[differentiable]
fn passes_mode_along(x: f64, mode: Mode) -> f64 {
    by_mode(x, mode) + x
}

/// Its `order = 2` caller.
#[differentiable(order = 2)]
fn reaches_mode_through_a_call(x: f64, y: f64, mode: Mode) -> f64 {
    passes_mode_along(x * y, mode) * y
}

/// The same through methods: `Self::scaled_by` passes the enum on to `Self::mode_of`, and an `order = 2`
/// method with `wrt(self)` calls it.
#[derive(Clone, Debug, autodiff::Differentiable)]
pub struct ModeScale {
    pub k: f64,
}

impl ModeScale {
    #[differentiable]
    fn mode_of(u: f64, mode: Mode) -> f64 {
        by_mode(u, mode)
    }

    #[differentiable(wrt(self))]
    fn scaled_by(&self, x: f64, mode: Mode) -> f64 {
        Self::mode_of(self.k * x, mode)
    }

    #[differentiable(wrt(self, x), order = 2)]
    fn twice_scaled(&self, x: f64, mode: Mode) -> f64 {
        self.scaled_by(x, mode) * x
    }
}

// ---- the tests ----

#[test]
fn while_newton_iteration() {
    // The cube root of a = x0² + 1 by Newton's method: d/dx0 = (2 x0 / 3) a^(-2/3).
    let hand = |x: &[f64]| vec![2.0 * x[0] / 3.0 * (x[0] * x[0] + 1.0).powf(-2.0 / 3.0)];
    probe!(
        newton_cbrt,
        newton_cbrt_grad,
        newton_cbrt_jvp,
        newton_cbrt_hessian,
        1,
        -3.0,
        3.0,
        hand
    );
}

#[test]
fn loop_with_break_value() {
    probe!(
        loop_break_value,
        loop_break_value_grad,
        loop_break_value_jvp,
        loop_break_value_hessian,
        2,
        -2.0,
        2.0
    );
}

#[test]
fn labelled_break_and_continue() {
    // s = Σ over (i, j) visited of x_i cos x_j: visited are i + j <= 3 (i * j > 4 never holds first).
    let hand = |x: &[f64]| {
        let mut g = vec![0.0; x.len()];
        for i in 0..x.len() {
            for j in 0..x.len() {
                if i + j <= 3 {
                    g[i] += x[j].cos();
                    g[j] -= x[i] * x[j].sin();
                }
            }
        }
        g
    };
    probe!(
        labelled,
        labelled_grad,
        labelled_jvp,
        labelled_hessian,
        5,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn match_on_integers() {
    let hand = |x: &[f64]| {
        (0..x.len())
            .map(|i| match i % 6 {
                0 => x[i].cos(),
                2 | 4 => 2.0 * x[i],
                3 => x[i].exp(),
                _ => 2.0,
            })
            .collect::<Vec<f64>>()
    };
    probe!(
        match_tuple,
        match_tuple_grad,
        match_tuple_jvp,
        match_tuple_hessian,
        7,
        -2.0,
        2.0,
        hand
    );
    // s = x0 + x0 x1 + x0 x2 + x0 x3² + x0 x4² + 0.5 x5.
    let hand = |x: &[f64]| {
        vec![
            1.0 + x[1] + x[2] + x[3] * x[3] + x[4] * x[4],
            x[0],
            x[0],
            2.0 * x[0] * x[3],
            2.0 * x[0] * x[4],
            0.5,
        ]
    };
    probe!(
        match_range,
        match_range_grad,
        match_range_jvp,
        match_range_hessian,
        6,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn match_on_an_enum_passed_as_data() {
    let mut inputs = Inputs(7);
    for _ in 0..POINTS {
        let x = inputs.vector(3, -2.0, 2.0);
        let s: f64 = x.iter().sum();
        for (mode, d) in [
            (Mode::Plain, 1.0),
            (Mode::Squared, 2.0 * s),
            (Mode::Scaled, 3.0),
        ] {
            let (value, grad) = match_enum_grad(&x, mode);
            assert_eq!(value, match_enum(&x, mode));
            assert_all_close(&grad, &[d; 3], 1e-12, "match_enum");
            let t = inputs.vector(3, -1.0, 1.0);
            let (_, dot_t) = match_enum_jvp(&x, mode, t.clone());
            assert_dot(dot_t, &grad, &t, 1e-12, "match_enum jvp");
            let (_, _, h) = match_enum_hessian(&x, mode);
            let fd = fd_jacobian(|y| match_enum_grad(y, mode).1, &x);
            for (row, fd_row) in h.iter().zip(&fd) {
                assert_all_close(row, fd_row, 1e-6, "match_enum Hessian");
            }
            let (a, b) = (x[0], x[1]);
            let (value, gx) = compare_enum_grad(a, b, mode);
            assert_eq!(value, compare_enum(a, b, mode));
            let scale = match mode {
                Mode::Plain => 1.0,
                Mode::Squared => 2.0 * a * b,
                Mode::Scaled => 3.0,
            };
            assert_close(gx, scale * b, 1e-12, "compare_enum");
            let (_, _, h) = compare_enum_hessian(a, b, mode);
            let expected = if matches!(mode, Mode::Squared) {
                2.0 * b * b
            } else {
                0.0
            };
            assert_close(h[0][0], expected, 1e-12, "compare_enum Hessian");
        }
    }
}

#[test]
fn shadowing_in_nested_blocks() {
    // s = sin(x0 x1) + (x0 x1 + 1)² + x0 x1 + x0.
    let hand = |x: &[f64]| {
        let y = x[0] * x[1];
        let d = y.cos() + 2.0 * (y + 1.0) + 1.0;
        vec![d * x[1] + 1.0, d * x[0]]
    };
    probe!(
        shadow_nested,
        shadow_nested_grad,
        shadow_nested_jvp,
        shadow_nested_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn blocks_as_values() {
    let hand = |x: &[f64]| {
        let z = (x[0] * x[1]).sin();
        let dz = [x[1] * (x[0] * x[1]).cos(), x[0] * (x[0] * x[1]).cos()];
        if z > 0.0 {
            vec![dz[0] * (1.0 + 2.0 * z) + 1.0, dz[1] * (1.0 + 2.0 * z)]
        } else {
            vec![dz[0], dz[1] + 1.0]
        }
    };
    probe!(
        block_value,
        block_value_grad,
        block_value_jvp,
        block_value_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn closures_calling_closures() {
    // f(x1, x0) + x1² = x1 x0 x0 + x1² + x1².
    let hand = |x: &[f64]| vec![2.0 * x[0] * x[1], x[0] * x[0] + 4.0 * x[1]];
    probe!(
        closures,
        closures_grad,
        closures_jvp,
        closures_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn closure_indexing_a_captured_slice() {
    let hand = |x: &[f64]| {
        let n = x.len();
        (0..n)
            .map(|i| x[(i + 1) % n] + x[(i + n - 1) % n])
            .collect::<Vec<f64>>()
    };
    probe!(
        closure_indexing,
        closure_indexing_grad,
        closure_indexing_jvp,
        closure_indexing_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn iterator_chains() {
    // The distance between (x0, x1) and (x2, x3).
    let hand = |x: &[f64]| {
        let d = ((x[0] - x[2]).powi(2) + (x[1] - x[3]).powi(2)).sqrt();
        let (a, b) = ((x[0] - x[2]) / d, (x[1] - x[3]) / d);
        vec![a, b, -a, -b]
    };
    probe!(
        chain_zip,
        chain_zip_grad,
        chain_zip_jvp,
        chain_zip_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        (0..x.len())
            .map(|i| 2.0 * (i as f64 + 1.0) * x[i])
            .collect::<Vec<f64>>()
    };
    probe!(
        chain_fold_enumerate,
        chain_fold_enumerate_grad,
        chain_fold_enumerate_jvp,
        chain_fold_enumerate_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        let mut g = vec![0.0; x.len()];
        for i in 1..x.len() {
            let d = 2.0 * (x[i] - x[i - 1]);
            g[i] += d;
            g[i - 1] -= d;
        }
        g
    };
    probe!(
        windows_sum,
        windows_sum_grad,
        windows_sum_jvp,
        windows_sum_hessian,
        5,
        -2.0,
        2.0,
        hand
    );
    // Chunks of 2 of 5: x0 x1 + x2 x3 + x4 x4.
    let hand = |x: &[f64]| vec![x[1], x[0], x[3], x[2], 2.0 * x[4]];
    probe!(
        chunks_sum,
        chunks_sum_grad,
        chunks_sum_jvp,
        chunks_sum_hessian,
        5,
        -2.0,
        2.0,
        hand
    );
    // s = 0.9³ Σ (i + 1) x_i, then s ← 0.9 s + i x_i for i = 0, 1, 2.
    let hand = |x: &[f64]| {
        (0..x.len())
            .map(|i| (i + 1) as f64 * 0.9f64.powi(3) + i as f64 * 0.9f64.powi(2 - i as i32))
            .collect::<Vec<f64>>()
    };
    probe!(
        zip_for,
        zip_for_grad,
        zip_for_jvp,
        zip_for_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        let (head, tail) = (x[0] + x[1], x[1..].iter().map(|v| v * v).sum::<f64>());
        vec![tail, tail + head * 2.0 * x[1], head * 2.0 * x[2]]
    };
    probe!(
        sub_slices,
        sub_slices_grad,
        sub_slices_jvp,
        sub_slices_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn ranges_reversed_and_stepped() {
    probe!(
        rev_step,
        rev_step_grad,
        rev_step_jvp,
        rev_step_hessian,
        5,
        -2.0,
        2.0
    );
    probe!(
        loop_continue,
        loop_continue_grad,
        loop_continue_jvp,
        loop_continue_hessian,
        6,
        -1.0,
        1.0
    );
}

#[test]
fn casts_between_integers_and_floats() {
    let hand = |x: &[f64]| {
        let n = x.len() as f64;
        let k = (x[0].abs() * 3.0) as usize;
        let mut g: Vec<f64> = (0..x.len()).map(|i| i as f64 / n).collect();
        g[1] += k as f64;
        g
    };
    probe!(
        casts,
        casts_grad,
        casts_jvp,
        casts_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn const_items_and_consts() {
    let hand = |x: &[f64]| {
        let pi = std::f64::consts::PI;
        vec![
            0.5 * pi * (pi * x[0]).cos(),
            0.5 * std::f64::consts::E.powf(x[1]),
            0.5 * std::f64::consts::LN_2,
        ]
    };
    probe!(
        consts,
        consts_grad,
        consts_jvp,
        consts_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn float_methods_with_kinks() {
    let hand = |x: &[f64]| {
        let (a, b, c) = (x[0], x[1], x[2]);
        let mut g = vec![0.0; 3];
        // min(a, b) + max(a, c)
        if a < b {
            g[0] += 1.0
        } else {
            g[1] += 1.0
        }
        if a > c {
            g[0] += 1.0
        } else {
            g[2] += 1.0
        }
        // clamp(b) + |c| signum(a)
        if b.abs() < 0.5 {
            g[1] += 1.0
        }
        g[2] += c.signum() * a.signum();
        // a³ + |b|^1.5 + hypot(a, b)
        g[0] += 3.0 * a * a + a / a.hypot(b);
        g[1] += 1.5 * b.abs().sqrt() * b.signum() + b / a.hypot(b);
        // atan2(b, c) + a b + c
        let r2 = b * b + c * c;
        g[1] += c / r2 + a;
        g[2] += -b / r2 + 1.0;
        g[0] += b;
        g
    };
    probe!(
        methods,
        methods_grad,
        methods_jvp,
        methods_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        let mut g = vec![0.0; x.len()];
        let (lo, hi) = (0..x.len()).fold((0, 0), |(lo, hi), i| {
            (
                if x[i] < x[lo] { i } else { lo },
                if x[i] > x[hi] { i } else { hi },
            )
        });
        g[hi] += 1.0;
        g[lo] -= 1.0;
        g
    };
    probe!(
        running_min,
        running_min_grad,
        running_min_jvp,
        running_min_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        let a = x[0];
        let (y, dy) = if a < -1.0 {
            (-a, -1.0)
        } else if a < 1.0 {
            (a * a, 2.0 * a)
        } else {
            (a.ln() + 1.0, 1.0 / a)
        };
        vec![dy * x[1], y]
    };
    probe!(
        else_if_chain,
        else_if_chain_grad,
        else_if_chain_jvp,
        else_if_chain_hessian,
        2,
        -3.0,
        3.0,
        hand
    );
}

#[test]
fn nested_fns_and_recursion() {
    let hand = |x: &[f64]| {
        let db = |a: f64| a.sin() + a * a.cos();
        let y = x[1] * x[0];
        vec![db(x[0]) + db(y) * x[1], db(y) * x[0]]
    };
    probe!(
        nested_fn,
        nested_fn_grad,
        nested_fn_jvp,
        nested_fn_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| vec![4.0 * x[0].powi(3), 1.0];
    probe!(
        recursion,
        recursion_grad,
        recursion_jvp,
        recursion_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn tuple_lets_in_a_loop() {
    // (p, q) ↦ (q, p + 0.3 q), five times: linear, so the gradient of p q is M-weighted.
    let hand = |x: &[f64]| {
        let step = |(p, q): (f64, f64)| (q, p + 0.3 * q);
        let (mut e0, mut e1) = ((1.0, 0.0), (0.0, 1.0));
        for _ in 0..5 {
            e0 = step(e0);
            e1 = step(e1);
        }
        let (p, q) = (e0.0 * x[0] + e1.0 * x[1], e0.1 * x[0] + e1.1 * x[1]);
        vec![e0.0 * q + p * e0.1, e1.0 * q + p * e1.1]
    };
    probe!(
        tuple_let_swap,
        tuple_let_swap_grad,
        tuple_let_swap_jvp,
        tuple_let_swap_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn tuple_return() {
    let mut inputs = Inputs(11);
    for _ in 0..POINTS {
        let x = inputs.vector(2, -2.0, 2.0);
        let d = (inputs.uniform(-1.0, 1.0), inputs.uniform(-1.0, 1.0));
        let (value, g) = polar_vjp(&x, d);
        assert_eq!(value, polar(&x));
        let (r, t) = (x[0], x[1]);
        let expected = [
            d.0 * t.cos() + d.1 * t.sin(),
            -d.0 * r * t.sin() + d.1 * r * t.cos(),
        ];
        assert_all_close(&g, &expected, 1e-12, "polar vjp");
        let fd = fd_jacobian(
            |y| {
                let (a, b) = polar(y);
                vec![a, b]
            },
            &x,
        );
        let by_fd = [
            d.0 * fd[0][0] + d.1 * fd[1][0],
            d.0 * fd[0][1] + d.1 * fd[1][1],
        ];
        assert_all_close(&g, &by_fd, 1e-6, "polar vjp vs differences");
        let tangent = inputs.vector(2, -1.0, 1.0);
        let (_, (da, db)) = polar_jvp(&x, tangent.clone());
        assert_close(da, dot(&fd[0], &tangent), 1e-6, "polar jvp, first");
        assert_close(db, dot(&fd[1], &tangent), 1e-6, "polar jvp, second");
    }
}

#[test]
fn early_return_from_a_loop() {
    let hand = |x: &[f64]| {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i];
            if s > 4.0 {
                let r = s.sqrt();
                let mut g = vec![0.0; x.len()];
                for j in 0..=i {
                    g[j] = x[j] / r;
                }
                return g;
            }
        }
        x.iter().map(|v| 2.0 * v).collect()
    };
    probe!(
        early_return,
        early_return_grad,
        early_return_jvp,
        early_return_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn statistics() {
    // softmax - one-hot at the label.
    let mut inputs = Inputs(3);
    for _ in 0..POINTS {
        let x = inputs.vector(4, -3.0, 3.0);
        let label = (inputs.uniform(0.0, 4.0) as usize).min(3);
        let (value, grad) = softmax_xent_grad(&x, label);
        assert_eq!(value, softmax_xent(&x, label));
        let z: f64 = x.iter().map(|v| v.exp()).sum();
        let hand: Vec<f64> = (0..4)
            .map(|i| x[i].exp() / z - if i == label { 1.0 } else { 0.0 })
            .collect();
        assert_all_close(&grad, &hand, 1e-10, "softmax_xent");
        assert_fd_gradient(|y| softmax_xent(y, label), &x, &grad, "softmax_xent");
        let (_, _, h) = softmax_xent_hessian(&x, label);
        let fd = fd_jacobian(|y| softmax_xent_grad(y, label).1, &x);
        for (row, fd_row) in h.iter().zip(&fd) {
            assert_all_close(row, fd_row, 1e-5, "softmax_xent Hessian");
        }
    }
    // sd + mean: d/dx_i = (x_i - mean) / ((n - 1) sd) + 1/n.
    let hand = |x: &[f64]| {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let sd = (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        x.iter()
            .map(|v| (v - mean) / ((n - 1.0) * sd) + 1.0 / n)
            .collect::<Vec<f64>>()
    };
    probe!(
        stats,
        stats_grad,
        stats_jvp,
        stats_hessian,
        5,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn generic_function() {
    let hand = |x: &[f64]| x.to_vec();
    probe!(
        generic_sum,
        generic_sum_grad,
        generic_sum_jvp,
        generic_sum_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn physics_verlet() {
    probe!(
        verlet,
        verlet_grad,
        verlet_jvp,
        verlet_hessian,
        3,
        -1.5,
        1.5
    );
}

/// Points in the plane, `&[[f64; 2]]`: data (outside `wrt(..)`) of a least-squares fit.
#[test]
fn slice_of_points_as_data() {
    let pts = [[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0], [2.0, 1.0]];
    let hand_iter = |w: &[f64]| {
        let mut g = vec![0.0; 2];
        for p in &pts {
            let r = w[0] * p[0] + w[1] * p[1] - 1.0;
            g[0] += 2.0 * r * p[0];
            g[1] += 2.0 * r * p[1];
        }
        g
    };
    let f = |w: &[f64]| inactive_points(w, &pts);
    let grad = |w: &[f64]| inactive_points_grad(w, &pts);
    let jvp = |w: &[f64], t: &[f64]| inactive_points_jvp(w, &pts, t.to_vec());
    let hessian = |w: &[f64]| inactive_points_hessian(w, &pts);
    let probe = Probe {
        what: "inactive_points",
        n: 2,
        primal: &f,
        grad: &grad,
        jvp: &jvp,
        hessian: Some(&hessian),
        hand: Some(&hand_iter),
    };
    run(&probe, -2.0, 2.0);
    let hand_indexed = |w: &[f64]| {
        let mut g = vec![0.0; 2];
        for p in &pts {
            let r = w[0] * p[0] - w[1] * p[1];
            g[0] += 2.0 * r * p[0];
            g[1] -= 2.0 * r * p[1];
        }
        g
    };
    let f = |w: &[f64]| inactive_points_indexed(w, &pts);
    let grad = |w: &[f64]| inactive_points_indexed_grad(w, &pts);
    let jvp = |w: &[f64], t: &[f64]| inactive_points_indexed_jvp(w, &pts, t.to_vec());
    let hessian = |w: &[f64]| inactive_points_indexed_hessian(w, &pts);
    let probe = Probe {
        what: "inactive_points_indexed",
        n: 2,
        primal: &f,
        grad: &grad,
        jvp: &jvp,
        hessian: Some(&hessian),
        hand: Some(&hand_indexed),
    };
    run(&probe, -2.0, 2.0);
}

/// `&[[f64; 2]]` and `Vec<[f64; 2]>` differentiated: the gradient has their shape.
#[test]
fn slice_of_points_as_input() {
    let mut inputs = Inputs(5);
    for _ in 0..POINTS {
        let flat = inputs.vector(2 + 6, -2.0, 2.0);
        let (w, rest) = flat.split_at(2);
        let pts: Vec<[f64; 2]> = rest.chunks(2).map(|c| [c[0], c[1]]).collect();
        let (value, (gw, gp)) = active_points_grad(w, &pts);
        assert_eq!(value, active_points(w, &pts));
        let whole = |y: &[f64]| {
            let pts: Vec<[f64; 2]> = y[2..].chunks(2).map(|c| [c[0], c[1]]).collect();
            active_points(&y[..2], &pts)
        };
        let mut g = gw.clone();
        g.extend(gp.iter().flatten());
        assert_fd_gradient(whole, &flat, &g, "active_points");
        let (_, _, h) = active_points_hessian(w, &pts);
        let fd = fd_jacobian(
            |y| {
                let pts: Vec<[f64; 2]> = y[2..].chunks(2).map(|c| [c[0], c[1]]).collect();
                let (_, (gw, gp)) = active_points_grad(&y[..2], &pts);
                gw.into_iter().chain(gp.into_iter().flatten()).collect()
            },
            &flat,
        );
        for (row, fd_row) in h.iter().zip(&fd) {
            assert_all_close(row, fd_row, 1e-5, "active_points Hessian");
        }
        let t = inputs.vector(8, -1.0, 1.0);
        let tw = t[..2].to_vec();
        let tp: Vec<[f64; 2]> = t[2..].chunks(2).map(|c| [c[0], c[1]]).collect();
        let (_, d) = active_points_jvp(w, &pts, (tw, tp));
        assert_dot(d, &g, &t, 1e-10, "active_points jvp");

        let (mut into_w, mut into_p) = (vec![0.0; 2], vec![[0.0; 2]; 3]);
        let into_value = active_points_grad_into(w, &pts, (&mut into_w, &mut into_p));
        assert_eq!(into_value, value);
        assert_eq!(
            (into_w, into_p),
            (gw.clone(), gp.clone()),
            "active_points_grad_into"
        );

        let (value, gp) = active_points_vec_grad(pts.clone());
        assert_eq!(value, active_points_vec(pts.clone()));
        let hand: Vec<f64> = pts
            .iter()
            .flat_map(|p| [p[1].sin(), p[0] * p[1].cos()])
            .collect();
        assert_all_close(
            &gp.into_iter().flatten().collect::<Vec<f64>>(),
            &hand,
            1e-12,
            "active_points_vec",
        );
    }
}

#[test]
fn fold_with_a_typed_accumulator() {
    let hand = |x: &[f64]| {
        let n = x.len() as f64;
        let top = (0..x.len()).fold(0, |k, i| if x[i].abs() > x[k].abs() { i } else { k });
        let mut g = vec![1.0 / n; x.len()];
        g[top] += x[top].signum();
        g
    };
    probe!(
        fold_typed_accumulator,
        fold_typed_accumulator_grad,
        fold_typed_accumulator_jvp,
        fold_typed_accumulator_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn closures_typed_and_returning_tuples() {
    let hand = |x: &[f64]| {
        let top = (0..x.len()).fold(0, |k, i| if x[i] > x[k] { i } else { k });
        let mut g = vec![0.0; x.len()];
        g[top] += 1.0;
        g[0] += 1.0;
        g
    };
    probe!(
        local_closure_fold,
        local_closure_fold_grad,
        local_closure_fold_jvp,
        local_closure_fold_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| vec![3.0 * x[0] * x[0], 0.0];
    probe!(
        closure_tuple,
        closure_tuple_grad,
        closure_tuple_jvp,
        closure_tuple_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn while_with_an_active_condition() {
    // t = (|x0| + 0.5) 1.7^k, k the trips: dt/dx0 = sign(x0) 1.7^k.
    let hand = |x: &[f64]| {
        let mut t = x[0].abs() + 0.5;
        let mut scale = 1.0;
        while t < 100.0 {
            t *= 1.7;
            scale *= 1.7;
        }
        vec![x[0].signum() * scale]
    };
    probe!(
        while_cond_active,
        while_cond_active_grad,
        while_cond_active_jvp,
        while_cond_active_hessian,
        1,
        -3.0,
        3.0,
        hand
    );
}

#[test]
fn local_vecs_and_arrays() {
    let hand = |x: &[f64]| x.iter().map(|v| 8.0 * v).collect::<Vec<f64>>();
    probe!(
        push_outside,
        push_outside_grad,
        push_outside_jvp,
        push_outside_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        [0.4, 0.6, 1.0]
            .iter()
            .zip(x)
            .map(|(w, v)| w * v)
            .collect::<Vec<f64>>()
    };
    probe!(
        const_array,
        const_array_grad,
        const_array_jvp,
        const_array_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
    // a + b + ab + (ab)² + (a + b)².
    let hand = |x: &[f64]| {
        let (a, b) = (x[0], x[1]);
        vec![
            1.0 + b + 2.0 * a * b * b + 2.0 * (a + b),
            1.0 + a + 2.0 * a * a * b + 2.0 * (a + b),
        ]
    };
    probe!(
        array_literal,
        array_literal_grad,
        array_literal_jvp,
        array_literal_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    // det [[1 + a², ab], [ab, 1 + b²]] = 1 + a² + b².
    let hand = |x: &[f64]| vec![2.0 * x[0], 2.0 * x[1]];
    probe!(
        nested_loops_matrix,
        nested_loops_matrix_grad,
        nested_loops_matrix_jvp,
        nested_loops_matrix_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn more_chains() {
    let hand = |x: &[f64]| {
        let n = x.len();
        let mut g: Vec<f64> = (0..n).map(|i| i as f64 + 1.0).collect();
        for i in 1..n {
            g[i] += x[i - 1];
            g[i - 1] += x[i];
        }
        g
    };
    probe!(
        range_chain,
        range_chain_grad,
        range_chain_jvp,
        range_chain_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        (0..x.len())
            .map(|i| if x[i] > 0.0 { 2.0 * x[i] } else { 0.0 } + if i >= 1 { 1.0 } else { 0.0 })
            .collect::<Vec<f64>>()
    };
    probe!(
        filter_skip,
        filter_skip_grad,
        filter_skip_jvp,
        filter_skip_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
    probe!(
        chunks_chain,
        chunks_chain_grad,
        chunks_chain_jvp,
        chunks_chain_hessian,
        6,
        -2.0,
        2.0
    );
    // Σ i x_i, then Horner at 0.5 over the reversed x: Σ 0.5^i x_i.
    let hand = |x: &[f64]| {
        (0..x.len())
            .map(|i| i as f64 + 0.5f64.powi(i as i32))
            .collect::<Vec<f64>>()
    };
    probe!(
        enumerate_chain,
        enumerate_chain_grad,
        enumerate_chain_jvp,
        enumerate_chain_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn calls_by_path_literals_and_flags() {
    probe!(ufcs, ufcs_grad, ufcs_jvp, ufcs_hessian, 3, -2.0, 2.0);
    // s a b with s = 0.5 a + 0.001 b + 2.
    let hand = |x: &[f64]| {
        let (a, b) = (x[0], x[1]);
        let s = 0.5 * a + 1e-3 * b + 2.0;
        vec![0.5 * a * b + s * b, 1e-3 * a * b + s * a]
    };
    probe!(
        typed_tuple_let,
        typed_tuple_let_grad,
        typed_tuple_let_jvp,
        typed_tuple_let_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    probe!(
        integer_accumulate,
        integer_accumulate_grad,
        integer_accumulate_jvp,
        integer_accumulate_hessian,
        4,
        -2.0,
        2.0
    );
    probe!(
        bool_flag,
        bool_flag_grad,
        bool_flag_jvp,
        bool_flag_hessian,
        2,
        -2.0,
        2.0
    );
}

#[test]
fn integer_parameters() {
    for n in 0..5usize {
        let f = |x: &[f64]| powi_param(x, n);
        let grad = |x: &[f64]| powi_param_grad(x, n);
        let jvp = |x: &[f64], t: &[f64]| powi_param_jvp(x, n, t.to_vec());
        let hessian = |x: &[f64]| powi_param_hessian(x, n);
        let hand = |x: &[f64]| vec![n as f64 * x[0].powi(n as i32 - 1), -2.0 * x[1].powi(-3)];
        let probe = Probe {
            what: "powi_param",
            n: 2,
            primal: &f,
            grad: &grad,
            jvp: &jvp,
            hessian: Some(&hessian),
            hand: Some(&hand),
        };
        run(&probe, 0.5, 2.0);
    }
    for k in 0..3usize {
        let f = |x: &[f64]| return_in_match(x, k);
        let grad = |x: &[f64]| return_in_match_grad(x, k);
        let jvp = |x: &[f64], t: &[f64]| return_in_match_jvp(x, k, t.to_vec());
        let hessian = |x: &[f64]| return_in_match_hessian(x, k);
        let hand = |x: &[f64]| {
            let y = x[0] * x[1];
            let d = match k {
                0 => y.cos(),
                1 => 2.0 * y,
                _ => 1.0,
            };
            vec![d * x[1], d * x[0]]
        };
        let probe = Probe {
            what: "return_in_match",
            n: 2,
            primal: &f,
            grad: &grad,
            jvp: &jvp,
            hessian: Some(&hessian),
            hand: Some(&hand),
        };
        run(&probe, -2.0, 2.0);
    }
}

#[test]
fn two_slices_and_generic_closures() {
    let f = |z: &[f64]| zip_slice(&z[..3], &z[3..]);
    let grad = |z: &[f64]| {
        let (value, (gx, gy)) = zip_slice_grad(&z[..3], &z[3..]);
        (value, gx.into_iter().chain(gy).collect())
    };
    let jvp =
        |z: &[f64], t: &[f64]| zip_slice_jvp(&z[..3], &z[3..], (t[..3].to_vec(), t[3..].to_vec()));
    let hessian = |z: &[f64]| {
        let (value, (gx, gy), h) = zip_slice_hessian(&z[..3], &z[3..]);
        (value, gx.into_iter().chain(gy).collect(), h)
    };
    let hand = |z: &[f64]| z[3..].iter().chain(&z[..3]).copied().collect::<Vec<f64>>();
    let probe = Probe {
        what: "zip_slice",
        n: 6,
        primal: &f,
        grad: &grad,
        jvp: &jvp,
        hessian: Some(&hessian),
        hand: Some(&hand),
    };
    run(&probe, -2.0, 2.0);
    let hand = |x: &[f64]| x.iter().map(|v| 4.0 * v).collect::<Vec<f64>>();
    probe!(
        gen_closure,
        gen_closure_grad,
        gen_closure_jvp,
        gen_closure_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn loops_with_buffers_shadowing_and_compound_assignment() {
    let hand = |x: &[f64]| x.iter().map(|v| 8.0 * v).collect::<Vec<f64>>();
    probe!(
        shadow_param_in_loop,
        shadow_param_in_loop_grad,
        shadow_param_in_loop_jvp,
        shadow_param_in_loop_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
    probe!(
        swap_buffers,
        swap_buffers_grad,
        swap_buffers_jvp,
        swap_buffers_hessian,
        2,
        -1.5,
        1.5
    );
    probe!(
        to_vec_modify,
        to_vec_modify_grad,
        to_vec_modify_jvp,
        to_vec_modify_hessian,
        3,
        -2.0,
        2.0
    );
    probe!(
        compound_ops,
        compound_ops_grad,
        compound_ops_jvp,
        compound_ops_hessian,
        3,
        -2.0,
        2.0
    );
    probe!(
        index_arith,
        index_arith_grad,
        index_arith_jvp,
        index_arith_hessian,
        4,
        -2.0,
        2.0
    );
    probe!(
        continue_carry,
        continue_carry_grad,
        continue_carry_jvp,
        continue_carry_hessian,
        4,
        -2.0,
        2.0
    );
    probe!(
        break_mid_while,
        break_mid_while_grad,
        break_mid_while_jvp,
        break_mid_while_hessian,
        4,
        -1.0,
        1.5
    );
    probe!(
        labelled_while_loop,
        labelled_while_loop_grad,
        labelled_while_loop_jvp,
        labelled_while_loop_hessian,
        3,
        -2.0,
        2.0
    );
}

#[test]
fn remainder_and_argmin() {
    // d(a % b)/da = 1 (b constant).
    let hand = |_: &[f64]| vec![3.0, 1.0];
    probe!(
        rem_op,
        rem_op_grad,
        rem_op_jvp,
        rem_op_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        let arg = (0..x.len()).fold(0, |k, i| if x[i] < x[k] { i } else { k });
        let mut g = vec![0.0; x.len()];
        g[arg] = 3.0;
        g
    };
    probe!(
        argmin_read,
        argmin_read_grad,
        argmin_read_jvp,
        argmin_read_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn solvers_and_integrators() {
    // sqrt(x0² + 2): d/dx0 = x0 / sqrt(x0² + 2).
    let hand = |x: &[f64]| vec![x[0] / (x[0] * x[0] + 2.0).sqrt()];
    probe!(
        newton_active_cond,
        newton_active_cond_grad,
        newton_active_cond_jvp,
        newton_active_cond_hessian,
        1,
        -3.0,
        3.0,
        hand
    );
    probe!(rk4, rk4_grad, rk4_jvp, rk4_hessian, 2, -1.5, 1.5);
}

#[test]
fn likelihood_with_labels() {
    let data = [0.5, -1.0, 2.0, 0.25, 1.5];
    let labels = [0usize, 1, 2, 3, 0];
    let hand = |mu: &[f64]| {
        let mut g = vec![0.0; 2];
        for (d, l) in data.iter().zip(&labels) {
            let (m, w) = match l {
                0 => (mu[0], [1.0, 0.0]),
                1 | 2 => (mu[1], [0.0, 1.0]),
                _ => (0.5 * (mu[0] + mu[1]), [0.5, 0.5]),
            };
            g[0] += (d - m) * w[0];
            g[1] += (d - m) * w[1];
        }
        g
    };
    let f = |mu: &[f64]| gauss_ll(mu, &data, &labels);
    let grad = |mu: &[f64]| gauss_ll_grad(mu, &data, &labels);
    let jvp = |mu: &[f64], t: &[f64]| gauss_ll_jvp(mu, &data, &labels, t.to_vec());
    let hessian = |mu: &[f64]| gauss_ll_hessian(mu, &data, &labels);
    let probe = Probe {
        what: "gauss_ll",
        n: 2,
        primal: &f,
        grad: &grad,
        jvp: &jvp,
        hessian: Some(&hessian),
        hand: Some(&hand),
    };
    run(&probe, -2.0, 2.0);
}

#[test]
fn vec_and_array_returns() {
    let mut inputs = Inputs(13);
    for _ in 0..POINTS {
        let x = inputs.vector(3, -2.0, 2.0);
        let d = inputs.vector(3, -1.0, 1.0);
        let (value, g) = vec_return_vjp(&x, d.clone());
        assert_eq!(value, vec_return(&x));
        let expected: Vec<f64> = x.iter().zip(&d).map(|(v, d)| 2.0 * v * d).collect();
        assert_all_close(&g, &expected, 1e-12, "vec_return vjp");
        let jac = vec_return_jacobian(&x);
        assert_jacobian(&jac, &fd_jacobian(vec_return, &x), "vec_return jacobian");
        let t = inputs.vector(3, -1.0, 1.0);
        let (_, dt) = vec_return_jvp(&x, t.clone());
        for (i, row) in jac.iter().enumerate() {
            assert_close(dt[i], dot(row, &t), 1e-12, "vec_return jvp");
        }

        let d2 = [d[0], d[1]];
        let (value, g) = array_return_vjp(&x[..2], d2);
        assert_eq!(value, array_return(&x[..2]));
        assert_all_close(
            &g,
            &[d2[0] * x[1] + d2[1], d2[0] * x[0] + d2[1]],
            1e-12,
            "array_return vjp",
        );
        let jac = array_return_jacobian(&x[..2]);
        assert_jacobian(
            &jac,
            &fd_jacobian(|y| array_return(y).to_vec(), &x[..2]),
            "array_return jacobian",
        );
    }
}

#[test]
fn closures_zips_products() {
    let hand = |x: &[f64]| vec![x[1] + 2.0, x[0]];
    probe!(
        move_closure,
        move_closure_grad,
        move_closure_jvp,
        move_closure_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        let p: f64 = x.iter().product();
        let s: f64 = x.iter().sum();
        x.iter().map(|v| p / v + 2.0 * s).collect::<Vec<f64>>()
    };
    probe!(
        product_pow,
        product_pow_grad,
        product_pow_jvp,
        product_pow_hessian,
        3,
        0.5,
        2.0,
        hand
    );
    let mut inputs = Inputs(17);
    for _ in 0..POINTS {
        let v = inputs.vector(7, -2.0, 2.0);
        let (x, y, z) = (&v[..3], &v[3..6], &v[6..]);
        let (value, (gx, gy, gz)) = triple_zip_grad(x, y, z);
        assert_eq!(value, triple_zip(x, y, z));
        let g: Vec<f64> = gx.iter().chain(&gy).chain(&gz).copied().collect();
        assert_fd_gradient(
            |w| triple_zip(&w[..3], &w[3..6], &w[6..]),
            &v,
            &g,
            "triple_zip",
        );
        let (value, (gx, gy)) = zip_for_noiter_grad(x, y);
        assert_eq!(value, zip_for_noiter(x, y));
        let hand: Vec<f64> = y
            .iter()
            .map(|b| b.sin())
            .chain(x.iter().zip(y).map(|(a, b)| a * b.cos()))
            .collect();
        let g: Vec<f64> = gx.iter().chain(&gy).copied().collect();
        assert_all_close(&g, &hand, 1e-12, "zip_for_noiter");
        let (_, _, h) = zip_for_noiter_hessian(x, y);
        let fd = fd_jacobian(
            |w| {
                let (_, (gx, gy)) = zip_for_noiter_grad(&w[..3], &w[3..]);
                gx.into_iter().chain(gy).collect()
            },
            &v[..6],
        );
        for (row, fd_row) in h.iter().zip(&fd) {
            assert_all_close(row, fd_row, 1e-5, "zip_for_noiter Hessian");
        }
    }
}

#[test]
fn f32_generic_and_literal_vecs() {
    let mut inputs = Inputs(19);
    for _ in 0..POINTS {
        let (x, y) = (
            inputs.uniform(-2.0, 2.0) as f32,
            inputs.uniform(-2.0, 2.0) as f32,
        );
        let (value, (gx, gy)) = f32_fn_grad(x, y);
        assert_eq!(value, f32_fn(x, y));
        assert_close(gx as f64, (x.exp() * y) as f64, 1e-5, "f32_fn x");
        assert_close(gy as f64, x.exp() as f64, 1e-5, "f32_fn y");
    }
    let hand = |x: &[f64]| {
        (0..x.len())
            .map(|i| 2.0 * i as f64 * x[i])
            .collect::<Vec<f64>>()
    };
    probe!(
        generic_from,
        generic_from_grad,
        generic_from_jvp,
        generic_from_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
    // x0² x1 + 3 x0 x1.
    let hand = |x: &[f64]| vec![2.0 * x[0] * x[1] + 3.0 * x[1], x[0] * x[0] + 3.0 * x[0]];
    probe!(
        vec_literal,
        vec_literal_grad,
        vec_literal_jvp,
        vec_literal_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        vec![
            2.0 * x[0] + 2.0 * x[0] * x[1] * x[1],
            2.0 * x[0] * x[0] * x[1],
        ]
    };
    probe!(
        nested_generic_fn,
        nested_generic_fn_grad,
        nested_generic_fn_jvp,
        nested_generic_fn_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
}

#[test]
fn subslices_tuples_and_index_methods() {
    // (x1 + x2) (x1² + x2² + x3²) + x1.
    let hand = |x: &[f64]| {
        let (s, q) = (x[1] + x[2], x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
        vec![
            0.0,
            q + 2.0 * s * x[1] + 1.0,
            q + 2.0 * s * x[2],
            2.0 * s * x[3],
        ]
    };
    probe!(
        subslice_bind,
        subslice_bind_grad,
        subslice_bind_jvp,
        subslice_bind_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
    probe!(
        if_tuple,
        if_tuple_grad,
        if_tuple_jvp,
        if_tuple_hessian,
        3,
        -2.0,
        2.0
    );
    let hand = |x: &[f64]| {
        let n = x.len();
        let mut g = vec![0.0; n];
        for i in 0..n {
            let (j, k) = ((i + 1).min(n - 1), i.saturating_sub(1));
            g[j] += x[k];
            g[k] += x[j];
        }
        g
    };
    probe!(
        int_methods,
        int_methods_grad,
        int_methods_jvp,
        int_methods_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        let z = x[0] * 2.0 - x[1];
        let dr = if z > 0.0 { 1.0 } else { 0.0 };
        let s = 1.0 / (1.0 + (-z).exp());
        let dz = dr + s * (1.0 - s);
        vec![2.0 * dz - 1.0, -dz - 1.0 / (x[1] * x[1])]
    };
    probe!(
        relu_sigmoid,
        relu_sigmoid_grad,
        relu_sigmoid_jvp,
        relu_sigmoid_hessian,
        2,
        0.3,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        let pi = std::f64::consts::PI;
        vec![pi * (pi * x[0]).cos(), std::f64::consts::FRAC_PI_2]
    };
    probe!(
        use_in_body,
        use_in_body_grad,
        use_in_body_jvp,
        use_in_body_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    for k in 0..2usize {
        let f = |x: &[f64]| match_array_value(x, k);
        let grad = |x: &[f64]| match_array_value_grad(x, k);
        let jvp = |x: &[f64], t: &[f64]| match_array_value_jvp(x, k, t.to_vec());
        let hessian = |x: &[f64]| match_array_value_hessian(x, k);
        let hand = |x: &[f64]| match k {
            0 => vec![x[1], x[0]],
            _ => vec![2.0 * x[0] * x[1], x[0] * x[0]],
        };
        let probe = Probe {
            what: "match_array_value",
            n: 2,
            primal: &f,
            grad: &grad,
            jvp: &jvp,
            hessian: Some(&hessian),
            hand: Some(&hand),
        };
        run(&probe, -2.0, 2.0);
    }
}

#[test]
fn parameter_structs_with_integer_fields() {
    let m = Model2 { k: 1.5, n: 2 };
    let hand = |x: &[f64]| {
        let mut g = vec![0.0; x.len()];
        for i in 0..2 {
            g[i] = 2.0 * 1.5 * x[i];
        }
        g
    };
    let f = |x: &[f64]| m.energy2(x);
    let grad = |x: &[f64]| m.energy2_grad(x);
    let jvp = |x: &[f64], t: &[f64]| m.energy2_jvp(x, t.to_vec());
    let hessian = |x: &[f64]| m.energy2_hessian(x);
    let probe = Probe {
        what: "energy2",
        n: 3,
        primal: &f,
        grad: &grad,
        jvp: &jvp,
        hessian: Some(&hessian),
        hand: Some(&hand),
    };
    run(&probe, -2.0, 2.0);
    let f = |x: &[f64]| energy3(&m, x);
    let grad = |x: &[f64]| energy3_grad(&m, x);
    let jvp = |x: &[f64], t: &[f64]| energy3_jvp(&m, x, t.to_vec());
    let hessian = |x: &[f64]| energy3_hessian(&m, x);
    let probe = Probe {
        what: "energy3",
        n: 3,
        primal: &f,
        grad: &grad,
        jvp: &jvp,
        hessian: Some(&hessian),
        hand: Some(&hand),
    };
    run(&probe, -2.0, 2.0);
}

#[test]
fn capacity_rev_enumerate_copies_and_tuples() {
    let hand = |x: &[f64]| x.iter().map(|v| 2.0 * v).collect::<Vec<f64>>();
    probe!(
        with_capacity,
        with_capacity_grad,
        with_capacity_jvp,
        with_capacity_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
    // The i-th of the reversed x is x[n - 1 - i].
    let hand = |x: &[f64]| {
        let n = x.len();
        (0..n)
            .map(|j| 2.0 * x[j] * (n - 1 - j) as f64)
            .collect::<Vec<f64>>()
    };
    probe!(
        rev_enumerate,
        rev_enumerate_grad,
        rev_enumerate_jvp,
        rev_enumerate_hessian,
        4,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| vec![x[2], 0.0, x[0]];
    probe!(
        early_literal,
        early_literal_grad,
        early_literal_jvp,
        early_literal_hessian,
        3,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        if x[0] > 0.0 {
            vec![x[1], x[0] + 1.0]
        } else {
            vec![0.0, 1.0]
        }
    };
    probe!(
        clone_in_branch,
        clone_in_branch_grad,
        clone_in_branch_jvp,
        clone_in_branch_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    let mut inputs = Inputs(23);
    for _ in 0..POINTS {
        let x = inputs.vector(2, -2.0, 2.0);
        let a = [x[0], x[1]];
        let (value, g) = copy_array_write_grad(a);
        assert_eq!(value, copy_array_write(a));
        assert_all_close(&g, &[x[1], 2.0 * x[1] + x[0]], 1e-12, "copy_array_write");
        let (_, _, h) = copy_array_write_hessian(a);
        assert_all_close(&h[0], &[0.0, 1.0], 1e-12, "copy_array_write Hessian row 0");
        assert_all_close(&h[1], &[1.0, 2.0], 1e-12, "copy_array_write Hessian row 1");
        let (value, (ga, gb)) = tuple_param_grad((x[0], x[1]));
        assert_eq!(value, tuple_param((x[0], x[1])));
        assert_all_close(&[ga, gb], &[x[1] + 2.0 * x[0], x[0]], 1e-12, "tuple_param");
        let t = inputs.vector(2, -1.0, 1.0);
        let (_, d) = tuple_param_jvp((x[0], x[1]), (t[0], t[1]));
        assert_dot(d, &[ga, gb], &t, 1e-12, "tuple_param jvp");
    }
}

#[test]
fn arrays_written_in_place() {
    // a = x0, v0 = 2 x1, v1 = 2 x0 x1: a v0 + v1 = 4 x0 x1.
    let hand = |x: &[f64]| vec![4.0 * x[1], 4.0 * x[0]];
    probe!(
        overwrite_after_read,
        overwrite_after_read_grad,
        overwrite_after_read_jvp,
        overwrite_after_read_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    // The sum of the prefix products.
    let hand = |x: &[f64]| {
        let n = x.len();
        let mut g = vec![0.0; n];
        for k in 0..n {
            let prefix: f64 = x[..=k].iter().product();
            for (j, gj) in g.iter_mut().enumerate().take(k + 1) {
                *gj += prefix / x[j];
            }
        }
        g
    };
    probe!(
        prefix_in_place,
        prefix_in_place_grad,
        prefix_in_place_jvp,
        prefix_in_place_hessian,
        4,
        0.5,
        2.0,
        hand
    );
    probe!(
        solve_in_place,
        solve_in_place_grad,
        solve_in_place_jvp,
        solve_in_place_hessian,
        3,
        -1.0,
        1.0
    );
}

#[test]
fn signatures_attributes_and_deferred_lets() {
    let hand = |x: &[f64]| vec![x[1], x[0]];
    probe!(
        where_clause,
        where_clause_grad,
        where_clause_jvp,
        where_clause_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| vec![2.0 * x[0]];
    probe!(
        multi_bounds,
        multi_bounds_grad,
        multi_bounds_jvp,
        multi_bounds_hessian,
        1,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| {
        if x[0] > 0.0 {
            vec![2.0 * x[1], 2.0 * x[0]]
        } else {
            vec![0.0, 2.0]
        }
    };
    probe!(
        deferred_init,
        deferred_init_grad,
        deferred_init_jvp,
        deferred_init_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    let hand = |x: &[f64]| vec![x[0].cos()];
    probe!(
        attributed,
        attributed_grad,
        attributed_jvp,
        attributed_hessian,
        1,
        -2.0,
        2.0,
        hand
    );
    let hand = |_: &[f64]| vec![1.0, 1.0];
    probe!(
        stmt_attr,
        stmt_attr_grad,
        stmt_attr_jvp,
        stmt_attr_hessian,
        2,
        -2.0,
        2.0,
        hand
    );
    let f = |z: &[f64]| float_to_index(&z[..1], &z[1..]);
    let grad = |z: &[f64]| {
        let (value, (gx, gt)) = float_to_index_grad(&z[..1], &z[1..]);
        (value, gx.into_iter().chain(gt).collect())
    };
    let jvp = |z: &[f64], t: &[f64]| {
        float_to_index_jvp(&z[..1], &z[1..], (t[..1].to_vec(), t[1..].to_vec()))
    };
    let hessian = |z: &[f64]| {
        let (value, (gx, gt), h) = float_to_index_hessian(&z[..1], &z[1..]);
        (value, gx.into_iter().chain(gt).collect(), h)
    };
    let hand = |z: &[f64]| {
        let k = (z[0].abs() * 2.0) as usize % 3;
        let mut g = vec![z[1 + k], 0.0, 0.0, 0.0];
        g[1 + k] = z[0];
        g
    };
    let probe = Probe {
        what: "float_to_index",
        n: 4,
        primal: &f,
        grad: &grad,
        jvp: &jvp,
        hessian: Some(&hessian),
        hand: Some(&hand),
    };
    run(&probe, -2.0, 2.0);
}

#[test]
fn points_as_data_of_generic_and_called_functions_and_as_inputs_of_a_jacobian() {
    let pts = [[0.5, 1.0], [1.5, -0.5], [2.0, 2.5]];
    let w = [0.3, -0.2];
    let (v, g, h) = fit_hessian(&w, &pts);
    let (v2, g2, h2) = residuals_hessian(&w, &pts);
    assert_eq!(v, v2);
    assert_eq!(g, g2);
    assert_eq!(h, h2);
    let mut hand = vec![0.0; 2];
    for p in &pts {
        let r = w[0] * p[0] + w[1] - p[1];
        hand[0] += 2.0 * r * p[0];
        hand[1] += 2.0 * r;
    }
    assert!((g[0] - hand[0]).abs() < 1e-12 && (g[1] - hand[1]).abs() < 1e-12);
    let (vc, gc, hc) = fit_calls_hessian(&w, &pts);
    assert_eq!(vc, fit_calls(&w, &pts));
    assert!((gc[0] - hand[0] - 3.0).abs() < 1e-12);
    assert_eq!(hc, h);
    let j = row_sums_jacobian(&pts);
    assert_eq!(j[1], vec![0.0, 0.0, -0.5, 1.5, 0.0, 0.0]);
    let (_, gp) = row_sums_vjp(&pts, vec![1.0, 2.0, 3.0]);
    assert_eq!(gp, vec![[1.0, 0.5], [-1.0, 3.0], [7.5, 6.0]]);
}

#[test]
fn enum_passed_on_without_wrt() {
    // by_mode(u) = u, u², 3u: its first and second derivatives.
    let slopes = |mode: Mode, u: f64| match mode {
        Mode::Plain => (1.0, 0.0),
        Mode::Squared => (2.0 * u, 2.0),
        Mode::Scaled => (3.0, 0.0),
    };
    let mut inputs = Inputs(31);
    for _ in 0..POINTS {
        let (x, y) = (inputs.uniform(-2.0, 2.0), inputs.uniform(-2.0, 2.0));
        for mode in [Mode::Plain, Mode::Squared, Mode::Scaled] {
            let (d1, d2) = slopes(mode, x * y);
            // f = by_mode(x y) + y.
            let (value, (gx, gy)) = passes_mode_on_by_default_grad(x, y, mode);
            assert_eq!(value, passes_mode_on_by_default(x, y, mode));
            assert_close(gx, d1 * y, 1e-12, "passes_mode_on_by_default d x");
            assert_close(gy, d1 * x + 1.0, 1e-12, "passes_mode_on_by_default d y");
            let f = |v: &[f64]| passes_mode_on_by_default(v[0], v[1], mode);
            assert_fd_gradient(f, &[x, y], &[gx, gy], "passes_mode_on_by_default");
            let (_, dt) = passes_mode_on_by_default_jvp(x, y, mode, (0.5, -1.0));
            assert_dot(
                dt,
                &[gx, gy],
                &[0.5, -1.0],
                1e-12,
                "passes_mode_on_by_default jvp",
            );
            // g = by_mode(x y) x: g_x = b' x y + b, g_y = b' x², g_xx = b'' x y² + 2 b' y,
            // g_xy = b'' x² y + 2 b' x, g_yy = b'' x³.
            let b = passes_mode_on_by_default(x, y, mode) - y;
            let (value, (gx, gy), h) = passes_mode_on_twice_hessian(x, y, mode);
            assert_eq!(value, passes_mode_on_twice(x, y, mode));
            assert_close(gx, d1 * x * y + b, 1e-12, "passes_mode_on_twice d x");
            assert_close(gy, d1 * x * x, 1e-12, "passes_mode_on_twice d y");
            let expected = [
                [d2 * x * y * y + 2.0 * d1 * y, d2 * x * x * y + 2.0 * d1 * x],
                [d2 * x * x * y + 2.0 * d1 * x, d2 * x * x * x],
            ];
            for (row, expected) in h.iter().zip(&expected) {
                assert_all_close(row, expected, 1e-12, "passes_mode_on_twice Hessian");
            }
            let grad = |v: &[f64]| {
                let (_, (gx, gy)) = passes_mode_on_twice_grad(v[0], v[1], mode);
                vec![gx, gy]
            };
            for (row, fd_row) in h.iter().zip(&fd_jacobian(grad, &[x, y])) {
                assert_all_close(
                    row,
                    fd_row,
                    1e-6,
                    "passes_mode_on_twice Hessian by differences",
                );
            }
        }
    }
}

#[test]
fn enum_passed_on_by_a_first_order_callee() {
    // by_mode(u) = u, u², 3u: b' and b''.
    let slopes = |mode: Mode, u: f64| match mode {
        Mode::Plain => (1.0, 0.0),
        Mode::Squared => (2.0 * u, 2.0),
        Mode::Scaled => (3.0, 0.0),
    };
    let mut inputs = Inputs(41);
    for _ in 0..POINTS {
        let (x, y) = (inputs.uniform(-2.0, 2.0), inputs.uniform(-2.0, 2.0));
        for mode in [Mode::Plain, Mode::Squared, Mode::Scaled] {
            // f = (b(x y) + x y) y: f_x = (b' + 1) y², f_y = (b' + 1) x y + b + x y,
            // f_xx = b'' y³, f_xy = b'' x y² + 2 (b' + 1) y, f_yy = b'' x² y + 2 (b' + 1) x.
            let u = x * y;
            let (d1, d2) = slopes(mode, u);
            let b = by_mode(u, mode);
            let (value, (gx, gy), h) = reaches_mode_through_a_call_hessian(x, y, mode);
            assert_eq!(value, reaches_mode_through_a_call(x, y, mode));
            assert_close(value, (b + u) * y, 1e-12, "reaches_mode_through_a_call");
            assert_close(gx, (d1 + 1.0) * y * y, 1e-12, "d x");
            assert_close(gy, (d1 + 1.0) * x * y + b + u, 1e-12, "d y");
            let expected = [
                [d2 * y * y * y, d2 * x * y * y + 2.0 * (d1 + 1.0) * y],
                [
                    d2 * x * y * y + 2.0 * (d1 + 1.0) * y,
                    d2 * x * x * y + 2.0 * (d1 + 1.0) * x,
                ],
            ];
            for (row, expected) in h.iter().zip(&expected) {
                assert_all_close(row, expected, 1e-12, "reaches_mode_through_a_call Hessian");
            }
            let grad = |v: &[f64]| {
                let (_, (gx, gy)) = reaches_mode_through_a_call_grad(v[0], v[1], mode);
                vec![gx, gy]
            };
            for (row, fd_row) in h.iter().zip(&fd_jacobian(grad, &[x, y])) {
                assert_all_close(row, fd_row, 1e-6, "Hessian by differences");
            }
            // g(k, x) = b(k x) x: g_k = b' x², g_x = b' k x + b, g_kk = b'' x³,
            // g_kx = b'' k x² + 2 b' x, g_xx = b'' k² x + 2 b' k.
            let k = inputs.uniform(-2.0, 2.0);
            let s = ModeScale { k };
            let u = k * x;
            let (d1, d2) = slopes(mode, u);
            let (value, (gs, gx), h) = s.twice_scaled_hessian(x, mode);
            assert_eq!(value, s.twice_scaled(x, mode));
            assert_close(value, by_mode(u, mode) * x, 1e-12, "twice_scaled");
            assert_close(gs.k, d1 * x * x, 1e-12, "twice_scaled d k");
            assert_close(gx, d1 * k * x + by_mode(u, mode), 1e-12, "twice_scaled d x");
            let expected = [
                [d2 * x * x * x, d2 * k * x * x + 2.0 * d1 * x],
                [d2 * k * x * x + 2.0 * d1 * x, d2 * k * k * x + 2.0 * d1 * k],
            ];
            for (row, expected) in h.iter().zip(&expected) {
                assert_all_close(row, expected, 1e-12, "twice_scaled Hessian");
            }
        }
    }
}

#[test]
fn parameters_taken_by_value_passed_on() {
    let mut inputs = Inputs(29);
    for _ in 0..POINTS {
        let x = inputs.uniform(-2.0, 2.0);
        for (mode, d) in [
            (Mode::Plain, 2.0 * x),
            (Mode::Squared, 3.0 * x * x),
            (Mode::Scaled, 6.0 * x),
        ] {
            let (value, g) = passes_mode_on_grad(x, mode);
            assert_eq!(value, passes_mode_on(x, mode));
            assert_close(g, d, 1e-12, "passes_mode_on");
            let (_, dt) = passes_mode_on_jvp(x, mode, 0.5);
            assert_close(dt, 0.5 * d, 1e-12, "passes_mode_on jvp");
        }
        let p = Weights {
            w: inputs.vector(3, -1.0, 1.0),
            b: 0.25,
        };
        let xs = inputs.vector(3, -2.0, 2.0);
        let (value, g) = passes_struct_on_grad(p.clone(), &xs);
        assert_eq!(value, passes_struct_on(p.clone(), &xs));
        let hand: Vec<f64> = xs.iter().zip(&p.w).map(|(x, w)| 4.0 * w * x).collect();
        assert_all_close(&g, &hand, 1e-12, "passes_struct_on");
        let t = inputs.vector(3, -1.0, 1.0);
        let (_, dt) = passes_struct_on_jvp(p.clone(), &xs, t.clone());
        assert_dot(dt, &g, &t, 1e-12, "passes_struct_on jvp");
    }
}
