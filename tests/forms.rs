//! The forms numeric Rust is usually written in (iterator chains with closures, local closures,
//! sub-slices, tuple and `mut` parameters, arrays as values of branches), each checked in reverse mode
//! (`_grad`, `_vjp`), forward mode (`_jvp`) and at `order = 2` (`_hvp`) against central differences and
//! derivatives worked out by hand, at random inputs.

mod common;

use autodiff::{differentiable, Float};
use common::*;
use proptest::prelude::*;

// ---- a check of every mode, for a function of one flat vector of inputs ----

/// `x ↦ (value, gradient)`, as `_grad` and `_vjp` (with its cotangent bound) give them, flattened.
type Gradient<'a> = &'a dyn Fn(&[f64]) -> (f64, Vec<f64>);
/// `(x, d) ↦ (value, d · gradient)`: `_vjp`.
type Vjp<'a> = &'a dyn Fn(&[f64], f64) -> (f64, Vec<f64>);
/// `(x, t) ↦ (value, gradient · t)`: `_jvp`.
type Jvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, f64);
/// `(x, v) ↦ (value, gradient, H v)`: `_hvp`.
type Hvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>);

/// The generated items of one function, seen as functions of the flattened active inputs.
struct Modes<'a> {
    primal: &'a dyn Fn(&[f64]) -> f64,
    grad: Gradient<'a>,
    vjp: Vjp<'a>,
    jvp: Jvp<'a>,
    hvp: Option<Hvp<'a>>,
}

/// Checks at `x`: the values of every item are the primal's; the gradient agrees with `hand` (the
/// derivative worked out by hand) and with central differences; `_vjp` scales with its cotangent; `_jvp`
/// along `t` is the gradient's inner product with it; `_hvp` along `t` agrees with `hand_hv` if given and
/// with central differences of the hand-written gradient along `t`.
#[track_caller]
fn check(
    what: &str,
    m: &Modes,
    x: &[f64],
    hand: &dyn Fn(&[f64]) -> Vec<f64>,
    hand_hv: Option<&[f64]>,
    t: &[f64],
) {
    let value = (m.primal)(x);
    let (grad_value, grad) = (m.grad)(x);
    assert_eq!(grad_value, value, "{what} at {x:?}: the value of _grad");
    assert_all_close(
        &grad,
        &hand(x),
        ANALYTIC_TOL,
        &format!("{what} at {x:?}: gradient vs hand"),
    );
    assert_fd_gradient(m.primal, x, &grad, what);

    let (vjp_value, vjp_grad) = (m.vjp)(x, COTANGENT);
    assert_eq!(vjp_value, value, "{what} at {x:?}: the value of _vjp");
    let scaled: Vec<f64> = grad.iter().map(|g| g * COTANGENT).collect();
    assert_all_close(
        &vjp_grad,
        &scaled,
        ANALYTIC_TOL,
        &format!("{what} at {x:?}: vjp"),
    );

    let (jvp_value, jvp_dot) = (m.jvp)(x, t);
    assert_eq!(jvp_value, value, "{what} at {x:?}: the value of _jvp");
    assert_jvp_is_grad_dot(jvp_dot, &grad, t, &format!("{what} at {x:?}"));

    if let Some(hvp) = m.hvp {
        let (hvp_value, hvp_grad, hv) = hvp(x, t);
        assert_eq!(hvp_value, value, "{what} at {x:?}: the value of _hvp");
        assert_all_close(
            &hvp_grad,
            &grad,
            ANALYTIC_TOL,
            &format!("{what} at {x:?}: hvp gradient"),
        );
        if let Some(expected) = hand_hv {
            assert_all_close(
                &hv,
                expected,
                1e-9,
                &format!("{what} at {x:?}: hvp vs hand"),
            );
        }
        // The central difference of the hand-written gradient along t.
        let h = 1e-5;
        let shifted = |s: f64| -> Vec<f64> {
            let y: Vec<f64> = x.iter().zip(t).map(|(a, b)| a + s * h * b).collect();
            hand(&y)
        };
        let (above, below) = (shifted(1.0), shifted(-1.0));
        let fd: Vec<f64> = above
            .iter()
            .zip(&below)
            .map(|(a, b)| (a - b) / (2.0 * h))
            .collect();
        assert_all_close(
            &hv,
            &fd,
            1e-5,
            &format!("{what} at {x:?}: hvp vs central differences"),
        );
    }
}

/// Vectors of `n` moderate inputs with a tangent of the same length.
fn point(n: usize) -> impl Strategy<Value = (Vec<f64>, Vec<f64>)> {
    (
        prop::collection::vec(moderate(), n),
        prop::collection::vec(tangent(), n),
    )
}

fn split(x: &[f64], n: usize) -> (&[f64], &[f64]) {
    x.split_at(n)
}

/// Checks `f(x: &[f64]) -> f64`, with `order = 2`, through its items `f_grad`, `f_vjp`, `f_jvp`, `f_hvp`.
macro_rules! check_slice {
    ($what:expr, $f:ident, $grad:ident, $vjp:ident, $jvp:ident, $hvp:ident, $x:expr, $hand:expr, $hv:expr, $t:expr) => {{
        let hvp = |x: &[f64], t: &[f64]| $hvp(x, t.to_vec());
        let modes = Modes {
            primal: &|x: &[f64]| $f(x),
            grad: &|x: &[f64]| $grad(x),
            vjp: &|x: &[f64], d: f64| $vjp(x, d),
            jvp: &|x: &[f64], t: &[f64]| $jvp(x, t.to_vec()),
            hvp: Some(&hvp),
        };
        check($what, &modes, $x, $hand, $hv, $t);
    }};
}

// ---- iterator chains over slices, with closures ----

/// `map` and `sum`.
#[differentiable(order = 2)]
fn sum_of_squares(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

/// `sum` and `product` of the elements themselves.
#[differentiable(order = 2)]
fn sum_and_product(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let p: f64 = x.iter().product();
    s * s + p
}

/// `zip`, then `map` over the pairs, then a method of the sum.
#[differentiable(order = 2)]
fn zip_dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.iter())
        .map(|(a, b)| a * b)
        .sum::<f64>()
        .sin()
}

/// `enumerate`: the index is an integer the closure converts.
#[differentiable(order = 2)]
fn enumerate_weights(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(i, v)| (i as f64 + 1.0) * v.sin())
        .sum()
}

/// `fold` with a `&v` pattern, then a method of the result.
#[differentiable(order = 2)]
fn log_sum_exp(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |acc, &v| acc + v.exp()).ln()
}

/// A `fold` whose steps do not commute (Horner's rule), over `.rev()`, with an active value captured.
#[differentiable(order = 2)]
fn horner(c: &[f64], t: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &a| acc * t + a)
}

/// `.copied()` and `.cloned()`, and functions given by their path (`f64::max`, `f64::sin`).
#[differentiable(order = 2)]
fn by_path(x: &[f64]) -> f64 {
    x.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        + x.iter().cloned().map(f64::sin).sum::<f64>()
}

/// The element as `*v`, `&v` and `v: &f64`.
#[differentiable(order = 2)]
fn derefs(x: &[f64]) -> f64 {
    let a: f64 = x.iter().map(|v| *v * *v * *v).sum();
    let b: f64 = x.iter().map(|&v| v.exp()).sum();
    let c: f64 = x.iter().map(|v: &f64| v.cos()).sum();
    a + b + c
}

/// Chains over a local `Vec` made by `collect`, an array and a `vec!`.
#[differentiable(order = 2)]
fn on_locals(x: &[f64]) -> f64 {
    let sines: Vec<f64> = x.iter().map(|a| a.sin()).collect();
    let w = [1.0, 2.0, 3.0];
    #[allow(clippy::useless_vec)] // the form under test
    let v = vec![x[0], x[1] * x[1], x[2]];
    sines.iter().zip(x.iter()).map(|(s, a)| s * a).sum::<f64>()
        + w.iter().zip(v.iter()).map(|(a, b)| a * b).sum::<f64>()
}

/// A chain inside a closure of a chain, and a chain over a range of indexes.
#[differentiable(order = 2)]
fn nested_and_range(x: &[f64], y: &[f64]) -> f64 {
    let pairs: f64 = x
        .iter()
        .map(|a| y.iter().map(|b| (a - b).powi(2)).sum::<f64>())
        .sum();
    let n = x.len().min(y.len());
    pairs + (0..n).map(|i| x[i] * y[i]).sum::<f64>()
}

/// A `for` over a chain with a `map`.
#[differentiable(order = 2)]
fn for_over_map(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter().map(|a| 2.0 * a) {
        s += v.sin();
    }
    s
}

/// A generic function: `fold` from `T::zero()`.
#[differentiable(order = 2)]
fn generic_fold<T: Float>(x: &[T]) -> T {
    x.iter().fold(T::zero(), |acc, &v| acc + v * v.sin())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn map_sum((x, t) in (1..6usize).prop_flat_map(point)) {
        let hand = |x: &[f64]| x.iter().map(|v| 2.0 * v).collect::<Vec<_>>();
        let hv: Vec<f64> = t.iter().map(|v| 2.0 * v).collect();
        check_slice!("sum_of_squares", sum_of_squares, sum_of_squares_grad, sum_of_squares_vjp,
            sum_of_squares_jvp, sum_of_squares_hvp, &x, &hand, Some(&hv), &t);
    }

    #[test]
    fn plain_sum_and_product((x, t) in (1..6usize).prop_flat_map(point)) {
        let hand = |x: &[f64]| {
            let s: f64 = x.iter().sum();
            (0..x.len())
                .map(|i| 2.0 * s + (0..x.len()).filter(|&j| j != i).map(|j| x[j]).product::<f64>())
                .collect::<Vec<_>>()
        };
        check_slice!("sum_and_product", sum_and_product, sum_and_product_grad, sum_and_product_vjp,
            sum_and_product_jvp, sum_and_product_hvp, &x, &hand, None, &t);
    }

    #[test]
    fn zip_map_sum((x, t) in (1..5usize).prop_flat_map(|n| point(2 * n))) {
        let n = x.len() / 2;
        let f = |x: &[f64]| { let (a, b) = split(x, n); zip_dot(a, b) };
        let grad = |x: &[f64]| { let (a, b) = split(x, n); let (v, (ga, gb)) = zip_dot_grad(a, b); (v, [ga, gb].concat()) };
        let vjp = |x: &[f64], d: f64| { let (a, b) = split(x, n); let (v, (ga, gb)) = zip_dot_vjp(a, b, d); (v, [ga, gb].concat()) };
        let jvp = |x: &[f64], t: &[f64]| { let (a, b) = split(x, n); zip_dot_jvp(a, b, (t[..n].to_vec(), t[n..].to_vec())) };
        let hvp = |x: &[f64], t: &[f64]| {
            let (a, b) = split(x, n);
            let (v, (ga, gb), (ha, hb)) = zip_dot_hvp(a, b, (t[..n].to_vec(), t[n..].to_vec()));
            (v, [ga, gb].concat(), [ha, hb].concat())
        };
        let hand = |x: &[f64]| {
            let (a, b) = split(x, n);
            let c = dot(a, b).cos();
            b.iter().chain(a).map(|v| c * v).collect::<Vec<_>>()
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("zip_dot", &modes, &x, &hand, None, &t);
    }

    #[test]
    fn enumerate_map_sum((x, t) in (1..6usize).prop_flat_map(point)) {
        let hand = |x: &[f64]| x.iter().enumerate().map(|(i, v)| (i as f64 + 1.0) * v.cos()).collect::<Vec<_>>();
        let hv: Vec<f64> = x.iter().zip(&t).enumerate().map(|(i, (v, d))| -(i as f64 + 1.0) * v.sin() * d).collect();
        check_slice!("enumerate_weights", enumerate_weights, enumerate_weights_grad, enumerate_weights_vjp,
            enumerate_weights_jvp, enumerate_weights_hvp, &x, &hand, Some(&hv), &t);
    }

    #[test]
    fn fold_with_reference_pattern((x, t) in (1..6usize).prop_flat_map(point)) {
        // The gradient of log-sum-exp is the softmax.
        let hand = |x: &[f64]| {
            let z: f64 = x.iter().map(|v| v.exp()).sum();
            x.iter().map(|v| v.exp() / z).collect::<Vec<_>>()
        };
        check_slice!("log_sum_exp", log_sum_exp, log_sum_exp_grad, log_sum_exp_vjp, log_sum_exp_jvp,
            log_sum_exp_hvp, &x, &hand, None, &t);
    }

    #[test]
    fn fold_in_order_over_rev((x, t) in (2..6usize).prop_flat_map(point)) {
        // x = (c_0, .., c_{n-1}, t): p(t) = Σ c_k t^k, ∂p/∂c_k = t^k, ∂p/∂t = Σ k c_k t^(k-1).
        let n = x.len() - 1;
        let f = |x: &[f64]| horner(&x[..n], x[n]);
        let grad = |x: &[f64]| { let (v, (gc, gt)) = horner_grad(&x[..n], x[n]); (v, [gc, vec![gt]].concat()) };
        let vjp = |x: &[f64], d: f64| { let (v, (gc, gt)) = horner_vjp(&x[..n], x[n], d); (v, [gc, vec![gt]].concat()) };
        let jvp = |x: &[f64], t: &[f64]| horner_jvp(&x[..n], x[n], (t[..n].to_vec(), t[n]));
        let hvp = |x: &[f64], t: &[f64]| {
            let (v, (gc, gt), (hc, ht)) = horner_hvp(&x[..n], x[n], (t[..n].to_vec(), t[n]));
            (v, [gc, vec![gt]].concat(), [hc, vec![ht]].concat())
        };
        let hand = |x: &[f64]| {
            let (c, s) = (&x[..n], x[n]);
            let mut g: Vec<f64> = (0..n).map(|k| s.powi(k as i32)).collect();
            g.push((1..n).map(|k| k as f64 * c[k] * s.powi(k as i32 - 1)).sum());
            g
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("horner", &modes, &x, &hand, None, &t);
    }

    #[test]
    fn copied_cloned_and_function_paths((x, t) in (1..6usize).prop_flat_map(point)) {
        prop_assume!(min_gap(&x) > 1e-3);
        let hand = |x: &[f64]| {
            let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            x.iter().map(|&v| f64::from(v == max) + v.cos()).collect::<Vec<_>>()
        };
        check_slice!("by_path", by_path, by_path_grad, by_path_vjp, by_path_jvp, by_path_hvp, &x, &hand, None, &t);
    }

    #[test]
    fn derefs_and_reference_patterns((x, t) in (1..6usize).prop_flat_map(point)) {
        let hand = |x: &[f64]| x.iter().map(|v| 3.0 * v * v + v.exp() - v.sin()).collect::<Vec<_>>();
        let hv: Vec<f64> = x.iter().zip(&t).map(|(v, d)| (6.0 * v + v.exp() - v.cos()) * d).collect();
        check_slice!("derefs", derefs, derefs_grad, derefs_vjp, derefs_jvp, derefs_hvp, &x, &hand, Some(&hv), &t);
    }

    #[test]
    fn chains_over_local_vecs_and_arrays((x, t) in point(3)) {
        let hand = |x: &[f64]| {
            let mut g: Vec<f64> = x.iter().map(|v| v.cos() * v + v.sin()).collect();
            g[0] += 1.0;
            g[1] += 4.0 * x[1];
            g[2] += 3.0;
            g
        };
        check_slice!("on_locals", on_locals, on_locals_grad, on_locals_vjp, on_locals_jvp, on_locals_hvp,
            &x, &hand, None, &t);
    }

    #[test]
    fn nested_chains_and_ranges((n, m) in (1..4usize, 1..4usize), seed in point(6)) {
        let (x, t) = (&seed.0[..n + m], &seed.1[..n + m]);
        let f = |x: &[f64]| nested_and_range(&x[..n], &x[n..]);
        let grad = |x: &[f64]| { let (v, (a, b)) = nested_and_range_grad(&x[..n], &x[n..]); (v, [a, b].concat()) };
        let vjp = |x: &[f64], d: f64| { let (v, (a, b)) = nested_and_range_vjp(&x[..n], &x[n..], d); (v, [a, b].concat()) };
        let jvp = |x: &[f64], t: &[f64]| nested_and_range_jvp(&x[..n], &x[n..], (t[..n].to_vec(), t[n..].to_vec()));
        let hvp = |x: &[f64], t: &[f64]| {
            let (v, (a, b), (ha, hb)) = nested_and_range_hvp(&x[..n], &x[n..], (t[..n].to_vec(), t[n..].to_vec()));
            (v, [a, b].concat(), [ha, hb].concat())
        };
        let hand = |x: &[f64]| {
            let (a, b) = (&x[..n], &x[n..]);
            let k = n.min(m);
            let ga = (0..n).map(|i| b.iter().map(|bj| 2.0 * (a[i] - bj)).sum::<f64>() + if i < k { b[i] } else { 0.0 });
            let gb = (0..m).map(|j| a.iter().map(|ai| -2.0 * (ai - b[j])).sum::<f64>() + if j < k { a[j] } else { 0.0 });
            ga.chain(gb).collect::<Vec<_>>()
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("nested_and_range", &modes, x, &hand, None, t);
    }

    #[test]
    fn for_over_a_mapped_chain((x, t) in (1..6usize).prop_flat_map(point)) {
        let hand = |x: &[f64]| x.iter().map(|v| 2.0 * (2.0 * v).cos()).collect::<Vec<_>>();
        check_slice!("for_over_map", for_over_map, for_over_map_grad, for_over_map_vjp, for_over_map_jvp,
            for_over_map_hvp, &x, &hand, None, &t);
    }

    #[test]
    fn generic_fold_on_f64_and_f32((x, t) in (1..6usize).prop_flat_map(point)) {
        let hand = |x: &[f64]| x.iter().map(|v| v.sin() + v * v.cos()).collect::<Vec<_>>();
        check_slice!("generic_fold", generic_fold, generic_fold_grad, generic_fold_vjp, generic_fold_jvp,
            generic_fold_hvp, &x, &hand, None, &t);
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (value, grad) = generic_fold_grad(&x32);
        prop_assert_eq!(value, generic_fold(&x32));
        let at: Vec<f64> = x32.iter().map(|&v| f64::from(v)).collect();
        let grad: Vec<f64> = grad.iter().map(|&g| f64::from(g)).collect();
        assert_all_close(&grad, &hand(&at), ANALYTIC_TOL_F32, "generic_fold at f32");
    }
}

// ---- closures bound to a local and called ----

/// Closures of one and two parameters, one capturing a local, one calling another.
#[differentiable(order = 2)]
fn local_closures(x: f64, y: f64) -> f64 {
    let sq = |v: f64| v * v;
    let k = 3.0;
    let cross = |a: f64, b: f64| k * a * b;
    let twice = |v: f64| {
        let w = sq(v);
        w + w
    };
    // The arguments in swapped order: each is evaluated before a parameter is bound.
    sq(x) + cross(y, x) + twice(y.sin())
}

/// A local closure capturing an active parameter, given to `.map(..)` by name and called in another
/// closure, with its argument passed by reference.
#[differentiable(order = 2)]
fn closure_in_chain(x: &[f64], k: f64) -> f64 {
    let scaled = |v: &f64| (k * *v).tanh();
    x.iter().map(scaled).sum::<f64>() + x.iter().map(|&v| scaled(&v) * v).sum::<f64>()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn closures_bound_to_locals(x in moderate(), y in moderate(), t in tangents()) {
        // ∂f/∂x = 2x + 3y, ∂f/∂y = 3x + 4 sin y cos y; H = [[2, 3], [3, 4 cos 2y]].
        let f = |p: &[f64]| local_closures(p[0], p[1]);
        let grad = |p: &[f64]| { let (v, (a, b)) = local_closures_grad(p[0], p[1]); (v, vec![a, b]) };
        let vjp = |p: &[f64], d: f64| { let (v, (a, b)) = local_closures_vjp(p[0], p[1], d); (v, vec![a, b]) };
        let jvp = |p: &[f64], t: &[f64]| local_closures_jvp(p[0], p[1], (t[0], t[1]));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, (a, b), (ha, hb)) = local_closures_hvp(p[0], p[1], (t[0], t[1]));
            (v, vec![a, b], vec![ha, hb])
        };
        let hand = |p: &[f64]| vec![2.0 * p[0] + 3.0 * p[1], 3.0 * p[0] + 4.0 * p[1].sin() * p[1].cos()];
        let hv = [2.0 * t[0] + 3.0 * t[1], 3.0 * t[0] + 4.0 * (2.0 * y).cos() * t[1]];
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("local_closures", &modes, &[x, y], &hand, Some(&hv), &t[..2]);
    }

    #[test]
    fn local_closure_in_a_chain((x, t) in (1..6usize).prop_flat_map(|n| point(n + 1))) {
        let n = x.len() - 1;
        let f = |p: &[f64]| closure_in_chain(&p[..n], p[n]);
        let grad = |p: &[f64]| { let (v, (g, k)) = closure_in_chain_grad(&p[..n], p[n]); (v, [g, vec![k]].concat()) };
        let vjp = |p: &[f64], d: f64| { let (v, (g, k)) = closure_in_chain_vjp(&p[..n], p[n], d); (v, [g, vec![k]].concat()) };
        let jvp = |p: &[f64], t: &[f64]| closure_in_chain_jvp(&p[..n], p[n], (t[..n].to_vec(), t[n]));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, (g, k), (h, hk)) = closure_in_chain_hvp(&p[..n], p[n], (t[..n].to_vec(), t[n]));
            (v, [g, vec![k]].concat(), [h, vec![hk]].concat())
        };
        // f = Σ tanh(k x_i) (1 + x_i); with s_i = sech²(k x_i):
        // ∂f/∂x_i = k s_i (1 + x_i) + tanh(k x_i), ∂f/∂k = Σ x_i s_i (1 + x_i).
        let hand = |p: &[f64]| {
            let (x, k) = (&p[..n], p[n]);
            let s = |v: f64| 1.0 - (k * v).tanh().powi(2);
            let mut g: Vec<f64> = x.iter().map(|&v| k * s(v) * (1.0 + v) + (k * v).tanh()).collect();
            g.push(x.iter().map(|&v| v * s(v) * (1.0 + v)).sum());
            g
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("closure_in_chain", &modes, &x, &hand, None, &t);
    }
}

// ---- sub-slices ----

/// Sub-slices bound to locals, indexed, iterated by `for` and by a chain, and `.len()`.
#[differentiable(order = 2)]
fn sub_slices(x: &[f64]) -> f64 {
    let head = &x[..2];
    let rest = &x[2..];
    let mut s = 0.0;
    for &v in rest {
        s += v * v;
    }
    let middle: f64 = x[1..3].iter().map(|v| v.sin()).sum();
    s * rest.len() as f64 + head[0] * head[1] + middle + x[1..=2][1].exp()
}

/// A dot product, called on sub-slices.
#[differentiable(order = 2)]
fn dot_of<T: Float>(a: &[T], b: &[T]) -> T {
    a.iter()
        .zip(b.iter())
        .fold(T::zero(), |acc, (&u, &v)| acc + u * v)
}

/// The rows of a row-major matrix `w` (rows of `x.len()`), passed to a call as sub-slices inside a loop:
/// `Σ_r tanh(w_r · x)`.
#[differentiable(order = 2)]
fn rows_through_calls(w: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for r in 0..w.len() / n {
        s += dot_of(&w[r * n..(r + 1) * n], x).tanh();
    }
    s
}

/// A sub-slice of a fixed-size array and of a local `Vec` written before.
#[differentiable(order = 2)]
fn array_windows(a: [f64; 4]) -> f64 {
    let mut v = vec![0.0; a.len()];
    for i in 0..4 {
        v[i] = a[i] * a[i];
    }
    dot_of(&a[1..], &v[..3])
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn sub_slices_read_and_iterated((x, t) in (3..7usize).prop_flat_map(point)) {
        let hand = |x: &[f64]| {
            let n = x.len();
            let s: f64 = x[2..].iter().map(|v| v * v).sum();
            let mut g = vec![0.0; n];
            for i in 2..n {
                g[i] += 2.0 * x[i] * (n - 2) as f64;
            }
            g[0] += x[1];
            g[1] += x[0] + x[1].cos();
            g[2] += x[2].cos() + x[2].exp();
            let _ = s;
            g
        };
        check_slice!("sub_slices", sub_slices, sub_slices_grad, sub_slices_vjp, sub_slices_jvp,
            sub_slices_hvp, &x, &hand, None, &t);
    }

    #[test]
    fn sub_slices_passed_to_calls_in_a_loop((rows, n) in (1..4usize, 1..4usize), seed in point(16)) {
        let k = rows * n + n;
        let (p, t) = (&seed.0[..k], &seed.1[..k]);
        let m = rows * n;
        let f = |p: &[f64]| rows_through_calls(&p[..m], &p[m..]);
        let grad = |p: &[f64]| { let (v, (a, b)) = rows_through_calls_grad(&p[..m], &p[m..]); (v, [a, b].concat()) };
        let vjp = |p: &[f64], d: f64| { let (v, (a, b)) = rows_through_calls_vjp(&p[..m], &p[m..], d); (v, [a, b].concat()) };
        let jvp = |p: &[f64], t: &[f64]| rows_through_calls_jvp(&p[..m], &p[m..], (t[..m].to_vec(), t[m..].to_vec()));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, (a, b), (ha, hb)) = rows_through_calls_hvp(&p[..m], &p[m..], (t[..m].to_vec(), t[m..].to_vec()));
            (v, [a, b].concat(), [ha, hb].concat())
        };
        // ∂/∂w_rj = sech²(w_r · x) x_j, ∂/∂x_j = Σ_r sech²(w_r · x) w_rj.
        let hand = |p: &[f64]| {
            let (w, x) = (&p[..m], &p[m..]);
            let mut g = vec![0.0; k];
            for r in 0..rows {
                let s = 1.0 - dot(&w[r * n..(r + 1) * n], x).tanh().powi(2);
                for j in 0..n {
                    g[r * n + j] += s * x[j];
                    g[m + j] += s * w[r * n + j];
                }
            }
            g
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("rows_through_calls", &modes, p, &hand, None, t);
    }

    #[test]
    fn sub_slices_of_arrays_and_local_vecs((x, t) in point(4)) {
        let a = [x[0], x[1], x[2], x[3]];
        let f = |p: &[f64]| array_windows([p[0], p[1], p[2], p[3]]);
        let grad = |p: &[f64]| { let (v, g) = array_windows_grad([p[0], p[1], p[2], p[3]]); (v, g.to_vec()) };
        let vjp = |p: &[f64], d: f64| { let (v, g) = array_windows_vjp([p[0], p[1], p[2], p[3]], d); (v, g.to_vec()) };
        let jvp = |p: &[f64], t: &[f64]| array_windows_jvp([p[0], p[1], p[2], p[3]], [t[0], t[1], t[2], t[3]]);
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, g, h) = array_windows_hvp([p[0], p[1], p[2], p[3]], [t[0], t[1], t[2], t[3]]);
            (v, g.to_vec(), h.to_vec())
        };
        // f = a1 a0² + a2 a1² + a3 a2².
        let hand = |a: &[f64]| vec![
            2.0 * a[1] * a[0],
            a[0] * a[0] + 2.0 * a[2] * a[1],
            a[1] * a[1] + 2.0 * a[3] * a[2],
            a[2] * a[2],
        ];
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("array_windows", &modes, &a, &hand, None, &t);
    }
}

// ---- tuple parameters and by-value `mut` parameters ----

/// A tuple parameter, read by field and destructured, beside a float.
#[differentiable(order = 2)]
fn polar_area(p: (f64, f64), s: f64) -> f64 {
    let (r, theta) = p;
    s * r * r * theta.sin() + p.0 * p.1
}

/// A generic tuple parameter of three.
#[differentiable(order = 2)]
fn tuple3<T: Float>(p: (T, T, T)) -> T {
    p.0 * p.1.exp() + p.2 * p.2
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn tuple_parameters(r in moderate(), theta in moderate(), s in moderate(), t in tangents()) {
        // f = s r² sin θ + r θ.
        let f = |p: &[f64]| polar_area((p[0], p[1]), p[2]);
        let grad = |p: &[f64]| { let (v, ((a, b), c)) = polar_area_grad((p[0], p[1]), p[2]); (v, vec![a, b, c]) };
        let vjp = |p: &[f64], d: f64| { let (v, ((a, b), c)) = polar_area_vjp((p[0], p[1]), p[2], d); (v, vec![a, b, c]) };
        let jvp = |p: &[f64], t: &[f64]| polar_area_jvp((p[0], p[1]), p[2], ((t[0], t[1]), t[2]));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, ((a, b), c), ((ha, hb), hc)) = polar_area_hvp((p[0], p[1]), p[2], ((t[0], t[1]), t[2]));
            (v, vec![a, b, c], vec![ha, hb, hc])
        };
        let hand = |p: &[f64]| {
            let (r, th, s) = (p[0], p[1], p[2]);
            vec![2.0 * s * r * th.sin() + th, s * r * r * th.cos() + r, r * r * th.sin()]
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("polar_area", &modes, &[r, theta, s], &hand, None, &t);
        // The Hessian, flattened as (r, θ, s).
        let (_, _, h) = polar_area_hessian((r, theta), s);
        let expected = [
            [2.0 * s * theta.sin(), 2.0 * s * r * theta.cos() + 1.0, 2.0 * r * theta.sin()],
            [2.0 * s * r * theta.cos() + 1.0, -s * r * r * theta.sin(), r * r * theta.cos()],
            [2.0 * r * theta.sin(), r * r * theta.cos(), 0.0],
        ];
        for (row, want) in h.iter().zip(&expected) {
            assert_all_close(row, want, 1e-9, "polar_area_hessian");
        }
    }

    #[test]
    fn generic_tuple_parameters(a in moderate(), b in moderate(), c in moderate(), t in tangents()) {
        let f = |p: &[f64]| tuple3((p[0], p[1], p[2]));
        let grad = |p: &[f64]| { let (v, (x, y, z)) = tuple3_grad((p[0], p[1], p[2])); (v, vec![x, y, z]) };
        let vjp = |p: &[f64], d: f64| { let (v, (x, y, z)) = tuple3_vjp((p[0], p[1], p[2]), d); (v, vec![x, y, z]) };
        let jvp = |p: &[f64], t: &[f64]| tuple3_jvp((p[0], p[1], p[2]), (t[0], t[1], t[2]));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, (x, y, z), (hx, hy, hz)) = tuple3_hvp((p[0], p[1], p[2]), (t[0], t[1], t[2]));
            (v, vec![x, y, z], vec![hx, hy, hz])
        };
        let hand = |p: &[f64]| vec![p[1].exp(), p[0] * p[1].exp(), 2.0 * p[2]];
        let hv = [b.exp() * t[1], b.exp() * t[0] + a * b.exp() * t[1], 2.0 * t[2]];
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("tuple3", &modes, &[a, b, c], &hand, Some(&hv), &t);
        let (value, (x, _, _)) = tuple3_grad((a as f32, b as f32, c as f32));
        prop_assert_eq!(value, tuple3((a as f32, b as f32, c as f32)));
        assert_close(f64::from(x), f64::from((b as f32).exp()), ANALYTIC_TOL_F32, "tuple3 at f32");
    }
}

/// By-value `mut` parameters written like locals: an array, a `Vec` (grown too) and a float.
#[differentiable(order = 2)]
fn mut_parameters(mut a: [f64; 2], mut v: Vec<f64>, mut s: f64) -> f64 {
    a[0] *= s;
    a[1] += a[0];
    s = s.sin();
    v[0] *= a[1];
    v.push(s * s);
    let mut total = 0.0;
    for &e in &v {
        total += e;
    }
    total + a[0] * a[1]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn by_value_mut_parameters(seed in point(5)) {
        let (x, t) = (&seed.0[..], &seed.1[..]);
        // a0' = a0 s, a1' = a1 + a0 s, v0' = v0 a1', f = v0 a1' + v1 + sin² s + a0' a1'.
        let f = |p: &[f64]| mut_parameters([p[0], p[1]], vec![p[2], p[3]], p[4]);
        let grad = |p: &[f64]| {
            let (v, (ga, gv, gs)) = mut_parameters_grad([p[0], p[1]], vec![p[2], p[3]], p[4]);
            (v, [ga.to_vec(), gv, vec![gs]].concat())
        };
        let vjp = |p: &[f64], d: f64| {
            let (v, (ga, gv, gs)) = mut_parameters_vjp([p[0], p[1]], vec![p[2], p[3]], p[4], d);
            (v, [ga.to_vec(), gv, vec![gs]].concat())
        };
        let jvp = |p: &[f64], t: &[f64]| {
            mut_parameters_jvp([p[0], p[1]], vec![p[2], p[3]], p[4], ([t[0], t[1]], vec![t[2], t[3]], t[4]))
        };
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, (ga, gv, gs), (ha, hv, hs)) =
                mut_parameters_hvp([p[0], p[1]], vec![p[2], p[3]], p[4], ([t[0], t[1]], vec![t[2], t[3]], t[4]));
            (v, [ga.to_vec(), gv, vec![gs]].concat(), [ha.to_vec(), hv, vec![hs]].concat())
        };
        let hand = |p: &[f64]| {
            let (a0, a1, v0, s) = (p[0], p[1], p[2], p[4]);
            let b0 = a0 * s;
            let b1 = a1 + b0;
            // f = v0 b1 + v1 + sin² s + b0 b1, with ∂b0 = (s, 0, .., a0), ∂b1 = (s, 1, .., a0).
            let df_db0 = b1;
            let df_db1 = v0 + b0;
            vec![
                df_db0 * s + df_db1 * s,
                df_db1,
                b1,
                1.0,
                df_db0 * a0 + df_db1 * a0 + 2.0 * s.sin() * s.cos(),
            ]
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("mut_parameters", &modes, x, &hand, None, t);
    }
}

// ---- arrays as the value of an `if`, a `match` or an early `return` ----

/// Fixed-size arrays as the value of an `if`, a `Vec` as the value of a `match`, read after.
#[differentiable(order = 2)]
fn chosen_arrays(x: &[f64], k: usize) -> f64 {
    let a = [x[0] * x[1], x[1]];
    let r = if x[0] > 0.0 {
        a
    } else {
        [x[1].sin(), x[0] * 2.0]
    };
    let m = match k {
        0 => vec![x[0]; 2],
        _ => x.to_vec(),
    };
    r[0] * r[1] + m[1] * m[0]
}

/// A fixed-size array chosen by an `if` inside a loop.
#[differentiable(order = 2)]
fn chosen_in_loop(x: [f64; 2], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let r = if i % 2 == 0 {
            [x[0], x[1]]
        } else {
            [x[1], -x[0]]
        };
        s += r[0] * r[1].sin();
    }
    s
}

/// Early returns of a fixed-size array and of a `Vec`.
#[differentiable]
fn clipped(x: [f64; 2], limit: f64) -> [f64; 2] {
    if x[0] > limit {
        return [limit, x[1]];
    }
    [x[0] * x[1], x[1].exp()]
}

#[differentiable]
fn scaled_unless_small(x: &[f64], s: f64) -> Vec<f64> {
    if s.abs() < 0.5 {
        return x.to_vec();
    }
    let mut out = x.to_vec();
    for i in 0..x.len() {
        out[i] = s * x[i] * x[i];
    }
    out
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arrays_as_values_of_if_and_match((x, t) in point(3), k in 0..2usize) {
        let f = |p: &[f64]| chosen_arrays(p, k);
        let grad = |p: &[f64]| chosen_arrays_grad(p, k);
        let vjp = |p: &[f64], d: f64| chosen_arrays_vjp(p, k, d);
        let jvp = |p: &[f64], t: &[f64]| chosen_arrays_jvp(p, k, t.to_vec());
        let hvp = |p: &[f64], t: &[f64]| chosen_arrays_hvp(p, k, t.to_vec());
        let hand = |p: &[f64]| {
            let mut g = vec![0.0; 3];
            if p[0] > 0.0 {
                // r = (x0 x1, x1): r0 r1 = x0 x1².
                g[0] += p[1] * p[1];
                g[1] += 2.0 * p[0] * p[1];
            } else {
                // r = (sin x1, 2 x0): 2 x0 sin x1.
                g[0] += 2.0 * p[1].sin();
                g[1] += 2.0 * p[0] * p[1].cos();
            }
            if k == 0 {
                g[0] += 2.0 * p[0];
            } else {
                g[0] += p[1];
                g[1] += p[0];
            }
            g
        };
        prop_assume!(p_away_from_zero(&x));
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("chosen_arrays", &modes, &x, &hand, None, &t);
    }

    #[test]
    fn fixed_arrays_chosen_inside_a_loop((x, t) in point(2), n in 0..5usize) {
        let f = |p: &[f64]| chosen_in_loop([p[0], p[1]], n);
        let grad = |p: &[f64]| { let (v, g) = chosen_in_loop_grad([p[0], p[1]], n); (v, g.to_vec()) };
        let vjp = |p: &[f64], d: f64| { let (v, g) = chosen_in_loop_vjp([p[0], p[1]], n, d); (v, g.to_vec()) };
        let jvp = |p: &[f64], t: &[f64]| chosen_in_loop_jvp([p[0], p[1]], n, [t[0], t[1]]);
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, g, h) = chosen_in_loop_hvp([p[0], p[1]], n, [t[0], t[1]]);
            (v, g.to_vec(), h.to_vec())
        };
        // Even i: x0 sin x1; odd i: x1 sin(-x0).
        let (even, odd) = (n.div_ceil(2) as f64, (n / 2) as f64);
        let hand = |p: &[f64]| vec![
            even * p[1].sin() - odd * p[1] * p[0].cos(),
            even * p[0] * p[1].cos() - odd * p[0].sin(),
        ];
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("chosen_in_loop", &modes, &x, &hand, None, &t);
    }

    #[test]
    fn early_returns_of_arrays((x, t) in point(3), d in tangents()) {
        prop_assume!((x[0] - x[2]).abs() > 1e-3 && (x[2].abs() - 0.5).abs() > 1e-3);
        // clipped: J by hand, rows are outputs, columns (x0, x1, limit).
        let (a, limit) = ([x[0], x[1]], x[2]);
        let jacobian = if a[0] > limit {
            [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
        } else {
            [[a[1], a[0], 0.0], [0.0, a[1].exp(), 0.0]]
        };
        let (value, (ga, gl)) = clipped_vjp(a, limit, [d[0], d[1]]);
        prop_assert_eq!(value, clipped(a, limit));
        let expected: Vec<f64> = (0..3).map(|j| d[0] * jacobian[0][j] + d[1] * jacobian[1][j]).collect();
        assert_all_close(&[ga[0], ga[1], gl], &expected, ANALYTIC_TOL, "clipped vjp");
        let (value, dot) = clipped_jvp(a, limit, ([t[0], t[1]], t[2]));
        prop_assert_eq!(value, clipped(a, limit));
        for i in 0..2 {
            assert_close(dot[i], (0..3).map(|j| jacobian[i][j] * t[j]).sum(), ANALYTIC_TOL, "clipped jvp");
        }
        for i in 0..2 {
            let output = |p: &[f64]| clipped([p[0], p[1]], p[2])[i];
            let mut unit = [0.0; 2];
            unit[i] = 1.0;
            let (_, (ga, gl)) = clipped_vjp(a, limit, unit);
            assert_fd_gradient(output, &x, &[ga[0], ga[1], gl], "clipped vs central differences");
        }

        // scaled_unless_small: x when |s| < 0.5, else s x².
        let (v, s) = (&x[..2], x[2]);
        let (value, (gx, gs)) = scaled_unless_small_vjp(v, s, d[..2].to_vec());
        prop_assert_eq!(&value, &scaled_unless_small(v, s));
        let (want_x, want_s): (Vec<f64>, f64) = if s.abs() < 0.5 {
            (d[..2].to_vec(), 0.0)
        } else {
            ((0..2).map(|i| d[i] * 2.0 * s * v[i]).collect(), (0..2).map(|i| d[i] * v[i] * v[i]).sum())
        };
        assert_all_close(&gx, &want_x, ANALYTIC_TOL, "scaled_unless_small vjp");
        assert_close(gs, want_s, ANALYTIC_TOL, "scaled_unless_small vjp in s");
        let (_, dot) = scaled_unless_small_jvp(v, s, (t[..2].to_vec(), t[2]));
        for i in 0..2 {
            let want = if s.abs() < 0.5 { t[i] } else { 2.0 * s * v[i] * t[i] + v[i] * v[i] * t[2] };
            assert_close(dot[i], want, ANALYTIC_TOL, "scaled_unless_small jvp");
        }
    }
}

/// The first input is away from 0, where `chosen_arrays` switches branch.
fn p_away_from_zero(x: &[f64]) -> bool {
    x[0].abs() > 1e-3
}

// ---- matrices ----

/// A matrix as `&[Vec<T>]`: `m[i][j]`, `m.len()`, `m[i].len()`, rows iterated and passed to a call.
#[differentiable(order = 2)]
fn quadratic_form(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += x[i] * m[i][j] * x[j];
        }
    }
    let mut rows = 0.0;
    for row in m {
        rows += dot_of(row, x).sin();
    }
    s + rows
        + m.iter()
            .map(|row| row.iter().map(|v| v * v).sum::<f64>())
            .sum::<f64>()
}

/// Nested arrays `[[T; M]; N]` by value, and `Vec<Vec<T>>`.
#[differentiable(order = 2)]
fn nested_arrays(a: [[f64; 3]; 2], b: Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        for j in 0..3 {
            s += a[i][j] * b[j][i];
        }
    }
    s * a[1][2]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn matrices_as_slices_of_vecs(n in 1..4usize, seed in point(20)) {
        // m is n × n, x has n elements: inputs flattened (m row-major, then x).
        let k = n * n + n;
        let (p, t) = (&seed.0[..k], &seed.1[..k]);
        let rows = |p: &[f64]| (0..n).map(|i| p[i * n..(i + 1) * n].to_vec()).collect::<Vec<_>>();
        let f = |p: &[f64]| quadratic_form(&rows(p), &p[n * n..]);
        let flat = |(gm, gx): (Vec<Vec<f64>>, Vec<f64>)| [gm.concat(), gx].concat();
        let grad = |p: &[f64]| { let (v, g) = quadratic_form_grad(&rows(p), &p[n * n..]); (v, flat(g)) };
        let vjp = |p: &[f64], d: f64| { let (v, g) = quadratic_form_vjp(&rows(p), &p[n * n..], d); (v, flat(g)) };
        let jvp = |p: &[f64], t: &[f64]| quadratic_form_jvp(&rows(p), &p[n * n..], (rows(t), t[n * n..].to_vec()));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, g, h) = quadratic_form_hvp(&rows(p), &p[n * n..], (rows(t), t[n * n..].to_vec()));
            (v, flat(g), flat(h))
        };
        // f = xᵀ M x + Σ_i sin(m_i · x) + Σ m_ij²:
        // ∂/∂m_ij = x_i x_j + cos(m_i · x) x_j + 2 m_ij, ∂/∂x = (M + Mᵀ) x + Σ_i cos(m_i · x) m_i.
        let hand = |p: &[f64]| {
            let (m, x) = (rows(p), &p[n * n..]);
            let mut g = vec![0.0; k];
            for i in 0..n {
                let c = dot(&m[i], x).cos();
                for j in 0..n {
                    g[i * n + j] = x[i] * x[j] + c * x[j] + 2.0 * m[i][j];
                    g[n * n + j] += m[i][j] * x[i] + c * m[i][j];
                    g[n * n + i] += m[i][j] * x[j];
                }
            }
            g
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("quadratic_form", &modes, p, &hand, None, t);
        // The Hessian flattens the matrix row-major: it has k rows and is symmetric.
        let (_, _, h) = quadratic_form_hessian(&rows(p), &p[n * n..]);
        prop_assert_eq!(h.len(), k);
        for (i, row) in h.iter().enumerate() {
            for (j, &hij) in row.iter().enumerate() {
                assert_close(hij, h[j][i], 1e-9, "quadratic_form_hessian symmetry");
            }
        }
    }

    #[test]
    fn nested_arrays_and_vecs_of_vecs(seed in point(12)) {
        let (p, t) = (&seed.0[..], &seed.1[..]);
        let a_of = |p: &[f64]| [[p[0], p[1], p[2]], [p[3], p[4], p[5]]];
        let b_of = |p: &[f64]| vec![vec![p[6], p[7]], vec![p[8], p[9]], vec![p[10], p[11]]];
        let f = |p: &[f64]| nested_arrays(a_of(p), b_of(p));
        let flat = |(ga, gb): ([[f64; 3]; 2], Vec<Vec<f64>>)| [ga.concat(), gb.concat()].concat();
        let grad = |p: &[f64]| { let (v, g) = nested_arrays_grad(a_of(p), b_of(p)); (v, flat(g)) };
        let vjp = |p: &[f64], d: f64| { let (v, g) = nested_arrays_vjp(a_of(p), b_of(p), d); (v, flat(g)) };
        let jvp = |p: &[f64], t: &[f64]| nested_arrays_jvp(a_of(p), b_of(p), (a_of(t), b_of(t)));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, g, h) = nested_arrays_hvp(a_of(p), b_of(p), (a_of(t), b_of(t)));
            (v, flat(g), flat(h))
        };
        // f = s a12 with s = Σ a_ij b_ji.
        let hand = |p: &[f64]| {
            let (a, b) = (a_of(p), b_of(p));
            let s: f64 = (0..2).map(|i| (0..3).map(|j| a[i][j] * b[j][i]).sum::<f64>()).sum();
            let mut g = vec![0.0; 12];
            for i in 0..2 {
                for j in 0..3 {
                    g[i * 3 + j] += b[j][i] * a[1][2];
                    g[6 + j * 2 + i] += a[i][j] * a[1][2];
                }
            }
            g[5] += s;
            g
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("nested_arrays", &modes, p, &hand, None, t);
    }
}

/// A generic function of a matrix by reference to a `Vec` of rows and of a nested array by reference, run
/// on `f32` and `f64`.
#[differentiable(order = 2)]
#[allow(clippy::ptr_arg)] // `&Vec<Vec<T>>` is the form under test
fn generic_matrices<T: Float>(m: &Vec<Vec<T>>, a: &[[T; 2]; 2]) -> T {
    let mut s = T::zero();
    for (i, row) in m.iter().enumerate() {
        s = s + row[0] * a[i % 2][1] + row.iter().fold(T::zero(), |acc, &v| acc + v * v);
    }
    s
}

/// `(a, b, c)` from a pair and a float: a tuple made by a callee.
#[differentiable]
fn p3<T: Float>(p: (T, T), c: T) -> (T, T, T) {
    (p.0 * c, p.1, c)
}

/// A caller passing tuples (one built in place, one returned by a call) and a row of a matrix on to other
/// differentiable functions.
#[differentiable(order = 2)]
fn tuple_and_row_caller(p: (f64, f64), m: [[f64; 2]; 2]) -> f64 {
    tuple3((p.0, p.1, m[0][1])) + tuple3(p3(p, m[1][1])) + dot_of(&m[1], &m[0])
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn generic_matrices_on_f64_and_f32(seed in point(10)) {
        // m is 3 × 2, then a is 2 × 2.
        let (p, t) = (&seed.0[..], &seed.1[..]);
        let m_of = |p: &[f64]| vec![vec![p[0], p[1]], vec![p[2], p[3]], vec![p[4], p[5]]];
        let a_of = |p: &[f64]| [[p[6], p[7]], [p[8], p[9]]];
        let f = |p: &[f64]| generic_matrices(&m_of(p), &a_of(p));
        let flat = |(gm, ga): (Vec<Vec<f64>>, [[f64; 2]; 2])| [gm.concat(), ga.concat()].concat();
        let grad = |p: &[f64]| { let (v, g) = generic_matrices_grad(&m_of(p), &a_of(p)); (v, flat(g)) };
        let vjp = |p: &[f64], d: f64| { let (v, g) = generic_matrices_vjp(&m_of(p), &a_of(p), d); (v, flat(g)) };
        let jvp = |p: &[f64], t: &[f64]| generic_matrices_jvp(&m_of(p), &a_of(p), (m_of(t), a_of(t)));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, g, h) = generic_matrices_hvp(&m_of(p), &a_of(p), (m_of(t), a_of(t)));
            (v, flat(g), flat(h))
        };
        // f = Σ_i m_i0 a_(i%2)1 + Σ m_ij².
        let hand = |p: &[f64]| {
            let (m, a) = (m_of(p), a_of(p));
            let mut g = vec![0.0; 10];
            for i in 0..3 {
                g[i * 2] += a[i % 2][1];
                g[i * 2] += 2.0 * m[i][0];
                g[i * 2 + 1] += 2.0 * m[i][1];
                g[6 + (i % 2) * 2 + 1] += m[i][0];
            }
            g
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("generic_matrices", &modes, p, &hand, None, t);
        let m32: Vec<Vec<f32>> = m_of(p).iter().map(|r| r.iter().map(|&v| v as f32).collect()).collect();
        let a32 = a_of(p).map(|r| r.map(|v| v as f32));
        let (value, (gm, _)) = generic_matrices_grad(&m32, &a32);
        prop_assert_eq!(value, generic_matrices(&m32, &a32));
        let at: Vec<f64> = m32.concat().iter().chain(a32.concat().iter()).map(|&v| f64::from(v)).collect();
        let gm: Vec<f64> = gm.concat().iter().map(|&v| f64::from(v)).collect();
        assert_all_close(&gm, &hand(&at)[..6], ANALYTIC_TOL_F32, "generic_matrices at f32");
    }

    #[test]
    fn tuples_and_rows_passed_to_calls(seed in point(6)) {
        let (p, t) = (&seed.0[..], &seed.1[..]);
        let m_of = |p: &[f64]| [[p[2], p[3]], [p[4], p[5]]];
        let f = |p: &[f64]| tuple_and_row_caller((p[0], p[1]), m_of(p));
        let flat = |((a, b), gm): ((f64, f64), [[f64; 2]; 2])| [vec![a, b], gm.concat()].concat();
        let grad = |p: &[f64]| { let (v, g) = tuple_and_row_caller_grad((p[0], p[1]), m_of(p)); (v, flat(g)) };
        let vjp = |p: &[f64], d: f64| { let (v, g) = tuple_and_row_caller_vjp((p[0], p[1]), m_of(p), d); (v, flat(g)) };
        let jvp = |p: &[f64], t: &[f64]| tuple_and_row_caller_jvp((p[0], p[1]), m_of(p), ((t[0], t[1]), m_of(t)));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, g, h) = tuple_and_row_caller_hvp((p[0], p[1]), m_of(p), ((t[0], t[1]), m_of(t)));
            (v, flat(g), flat(h))
        };
        // f = r e^θ + m01² + (r m11) e^θ + m11² + m10 m00 + m11 m01, with (r, θ) = p.
        let hand = |p: &[f64]| {
            let (r, th, m) = (p[0], p[1], m_of(p));
            let e = th.exp();
            vec![
                e + m[1][1] * e,
                r * e + r * m[1][1] * e,
                m[1][0],
                2.0 * m[0][1] + m[1][1],
                m[0][0],
                r * e + 2.0 * m[1][1] + m[0][1],
            ]
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("tuple_and_row_caller", &modes, p, &hand, None, t);
    }
}

/// A `fold` with a tuple accumulator: the mean and the second moment.
#[differentiable(order = 2)]
fn variance(x: &[f64]) -> f64 {
    let (s, q) = x.iter().fold((0.0, 0.0), |(s, q), &v| (s + v, q + v * v));
    let n = x.len() as f64;
    q / n - (s / n) * (s / n)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fold_with_a_tuple_accumulator((x, t) in (1..6usize).prop_flat_map(point)) {
        // ∂/∂x_i = 2 x_i / n - 2 mean / n.
        let hand = |x: &[f64]| {
            let n = x.len() as f64;
            let mean = x.iter().sum::<f64>() / n;
            x.iter().map(|v| 2.0 * v / n - 2.0 * mean / n).collect::<Vec<_>>()
        };
        check_slice!("variance", variance, variance_grad, variance_vjp, variance_jvp, variance_hvp, &x, &hand,
            None, &t);
    }
}

// ---- `fn` items nested in the body ----

/// Nested helpers: a generic one, one written for `f64`, and one on integers that stays as written.
#[differentiable(order = 2)]
fn nested_helpers(x: &[f64]) -> f64 {
    fn next(i: usize, n: usize) -> usize {
        (i + 1) % n
    }
    fn dot<T: Float>(a: &[T], b: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..a.len() {
            s = s + a[i] * b[i];
        }
        s
    }
    fn softplus(v: f64) -> f64 {
        (1.0 + v.exp()).ln()
    }
    let n = x.len();
    let mut s = dot(x, x);
    for i in 0..n {
        s += softplus(x[i] * x[next(i, n)]);
    }
    s
}

/// A nested helper calling another, and a `const` of the body that a nested `fn` cannot see but the
/// body can.
#[differentiable]
fn nested_chain(x: f64, y: f64) -> f64 {
    fn sq(v: f64) -> f64 {
        v * v
    }
    fn cube(v: f64) -> f64 {
        v * sq(v)
    }
    const K: f64 = 0.5;
    cube(x) * y + K * sq(y).sin()
}

/// A nested `#[custom_gradient]` function: its closure, not its value's derivative, is used.
#[differentiable]
fn nested_custom(x: f64) -> f64 {
    #[custom_gradient]
    fn clipped_square(v: f64) -> (f64, impl Fn(f64) -> f64) {
        (v * v, move |dy| dy * (2.0 * v).clamp(-1.0, 1.0))
    }
    clipped_square(x) + x
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn nested_fn_items((x, t) in (1..6usize).prop_flat_map(point)) {
        // ∂/∂x_k = 2 x_k + Σ_i σ(x_i x_j) (x_j [k = i] + x_i [k = j]), j = (i + 1) mod n.
        let hand = |x: &[f64]| {
            let n = x.len();
            let mut g: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
            for i in 0..n {
                let j = (i + 1) % n;
                let s = sigmoid(x[i] * x[j]);
                g[i] += s * x[j];
                g[j] += s * x[i];
            }
            g
        };
        check_slice!("nested_helpers", nested_helpers, nested_helpers_grad, nested_helpers_vjp,
            nested_helpers_jvp, nested_helpers_hvp, &x, &hand, None, &t);
    }

    #[test]
    fn nested_fn_calling_a_nested_fn(x in moderate(), y in moderate(), t in tangents()) {
        let f = |p: &[f64]| nested_chain(p[0], p[1]);
        let grad = |p: &[f64]| { let (v, (a, b)) = nested_chain_grad(p[0], p[1]); (v, vec![a, b]) };
        let vjp = |p: &[f64], d: f64| { let (v, (a, b)) = nested_chain_vjp(p[0], p[1], d); (v, vec![a, b]) };
        let jvp = |p: &[f64], t: &[f64]| nested_chain_jvp(p[0], p[1], (t[0], t[1]));
        // f = x³ y + sin(y²) / 2.
        let hand = |p: &[f64]| {
            let (x, y) = (p[0], p[1]);
            vec![3.0 * x * x * y, x * x * x + y * (y * y).cos()]
        };
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: None };
        check("nested_chain", &modes, &[x, y], &hand, None, &t[..2]);
    }

    #[test]
    fn nested_custom_gradient(x in moderate(), d in moderate()) {
        prop_assert_eq!(nested_custom(x), x * x + x);
        let (value, g) = nested_custom_grad(x);
        prop_assert_eq!(value, x * x + x);
        assert_close(g, (2.0 * x).clamp(-1.0, 1.0) + 1.0, ANALYTIC_TOL, "nested_custom");
        let (_, gd) = nested_custom_vjp(x, d);
        assert_close(gd, d * g, ANALYTIC_TOL, "nested_custom vjp");
        let (_, tangent) = nested_custom_jvp(x, d);
        assert_close(tangent, d * g, ANALYTIC_TOL, "nested_custom jvp");
    }
}

// ---- `&f64` parameters passed on to calls ----

/// `a sin c`, with `c` taken by reference.
#[differentiable(order = 2)]
fn scaled_sine(a: f64, c: &f64) -> f64 {
    a * c.sin()
}

/// Passes its own `&f64` parameter on as it is (`c`), a value (`*c`) to a by-reference slot, and a
/// reference to a value (`&a`): `a sin c + c sin a`.
#[differentiable(order = 2)]
fn symmetric_sines(a: f64, c: &f64) -> f64 {
    scaled_sine(a, c) + scaled_sine(*c, &a)
}

/// The same for a generic callee and caller.
#[differentiable(order = 2)]
fn scaled_cosine<T: Float>(a: T, c: &T) -> T {
    a * c.cos()
}

#[differentiable(order = 2)]
fn symmetric_cosines<T: Float>(a: T, c: &T) -> T {
    scaled_cosine(a, c) * scaled_cosine(*c, &a)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn reference_parameters_passed_on(a in moderate(), c in moderate(), t in tangents()) {
        // f = a sin c + c sin a: ∂a = sin c + c cos a, ∂c = a cos c + sin a;
        // H = [[-c sin a, cos c + cos a], [cos c + cos a, -a sin c]].
        let f = |p: &[f64]| symmetric_sines(p[0], &p[1]);
        let grad = |p: &[f64]| { let (v, (x, y)) = symmetric_sines_grad(p[0], &p[1]); (v, vec![x, y]) };
        let vjp = |p: &[f64], d: f64| { let (v, (x, y)) = symmetric_sines_vjp(p[0], &p[1], d); (v, vec![x, y]) };
        let jvp = |p: &[f64], t: &[f64]| symmetric_sines_jvp(p[0], &p[1], (t[0], t[1]));
        let hvp = |p: &[f64], t: &[f64]| {
            let (v, (x, y), (hx, hy)) = symmetric_sines_hvp(p[0], &p[1], (t[0], t[1]));
            (v, vec![x, y], vec![hx, hy])
        };
        let hand = |p: &[f64]| vec![p[1].sin() + p[1] * p[0].cos(), p[0] * p[1].cos() + p[0].sin()];
        let mixed = c.cos() + a.cos();
        let hv = [-c * a.sin() * t[0] + mixed * t[1], mixed * t[0] - a * c.sin() * t[1]];
        let modes = Modes { primal: &f, grad: &grad, vjp: &vjp, jvp: &jvp, hvp: Some(&hvp) };
        check("symmetric_sines", &modes, &[a, c], &hand, Some(&hv), &t[..2]);
        let (_, _, h) = symmetric_sines_hessian(a, &c);
        assert_all_close(&[h[0][0], h[0][1], h[1][0], h[1][1]], &[-c * a.sin(), mixed, mixed, -a * c.sin()],
            ANALYTIC_TOL, "symmetric_sines_hessian");
    }

    #[test]
    fn generic_reference_parameters_passed_on(a in moderate(), c in moderate()) {
        // f = (a cos c)(c cos a): ∂a = cos c (c cos a) - (a cos c) c sin a, ∂c symmetric.
        let (value, (ga, gc)) = symmetric_cosines_grad(a, &c);
        prop_assert_eq!(value, symmetric_cosines(a, &c));
        let (p, q) = (a * c.cos(), c * a.cos());
        let want = [c.cos() * q - p * c * a.sin(), -a * c.sin() * q + p * a.cos()];
        assert_all_close(&[ga, gc], &want, ANALYTIC_TOL, "symmetric_cosines_grad");
        let (_, _, h) = symmetric_cosines_hessian(a, &c);
        let grad = |p: &[f64]| { let (_, (x, y)) = symmetric_cosines_grad(p[0], &p[1]); vec![x, y] };
        let columns = [hessian_column(grad, &[a, c], 0), hessian_column(grad, &[a, c], 1)];
        assert_all_close(&h[0], &[columns[0][0], columns[1][0]], 1e-6, "symmetric_cosines_hessian row 0");
        assert_all_close(&h[1], &[columns[0][1], columns[1][1]], 1e-6, "symmetric_cosines_hessian row 1");
    }
}

// ---- an array a call returns, returned early from an `if` or a `match` ----

#[differentiable]
fn pair_of(x: f64, y: f64) -> [f64; 2] {
    [x * y, x.sin()]
}

#[differentiable]
fn row_of(x: f64, y: f64) -> Vec<f64> {
    vec![x * y, y.exp()]
}

/// Every way out gives an array: a call's by `return` from an `if` and from a `match` with a range, a
/// call's as the last expression of a branch, and the parameter itself.
#[differentiable]
fn returned_from_calls(x: [f64; 2], k: i32) -> [f64; 2] {
    if k == 7 {
        return pair_of(x[0], x[1]);
    }
    match k {
        i32::MIN..=-1 => return pair_of(x[1], x[0]),
        3 | 4 => {
            let p = pair_of(x[0], 2.0);
            return p;
        }
        _ => {}
    }
    if k == 1 {
        pair_of(x[1], x[1])
    } else {
        x
    }
}

#[differentiable]
fn vec_returned_from_a_call(x: &[f64], k: i32) -> Vec<f64> {
    if k > 0 {
        return row_of(x[0], x[1]);
    }
    x.to_vec()
}

#[differentiable(order = 2)]
fn through_returned_from_calls(x: [f64; 2], k: i32) -> f64 {
    let r = returned_from_calls(x, k);
    r[0] * r[1]
}

/// `returned_from_calls` written out: its value and Jacobian.
fn returned_from_calls_by_hand(x: [f64; 2], k: i32) -> ([f64; 2], [[f64; 2]; 2]) {
    let pair = |a: f64, b: f64, da: [f64; 2], db: [f64; 2]| {
        let row0 = [da[0] * b + a * db[0], da[1] * b + a * db[1]];
        ([a * b, a.sin()], [row0, [a.cos() * da[0], a.cos() * da[1]]])
    };
    let (e0, e1) = ([1.0, 0.0], [0.0, 1.0]);
    match k {
        7 => pair(x[0], x[1], e0, e1),
        k if k < 0 => pair(x[1], x[0], e1, e0),
        3 | 4 => pair(x[0], 2.0, e0, [0.0, 0.0]),
        1 => pair(x[1], x[1], e1, e1),
        _ => (x, [e0, e1]),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arrays_that_calls_return_returned_early(a in moderate(), b in moderate(), k in -2..9i32) {
        let x = [a, b];
        let (value, jacobian) = returned_from_calls_by_hand(x, k);
        prop_assert_eq!(returned_from_calls(x, k), value);
        let generated = returned_from_calls_jacobian(x, k);
        for i in 0..2 {
            assert_all_close(&generated[i], &jacobian[i], ANALYTIC_TOL, "returned_from_calls_jacobian");
        }
        let flat = |p: &[f64]| returned_from_calls([p[0], p[1]], k).to_vec();
        assert_jacobian(&generated, &fd_jacobian(flat, &x), "returned_from_calls against differences");
        let d = [0.75, -1.25];
        let (v, g) = returned_from_calls_vjp(x, k, d);
        prop_assert_eq!(v, value);
        let want: Vec<f64> = (0..2).map(|j| d[0] * jacobian[0][j] + d[1] * jacobian[1][j]).collect();
        assert_all_close(&g, &want, ANALYTIC_TOL, "returned_from_calls_vjp");
        let (_, t) = returned_from_calls_jvp(x, k, d);
        let want: Vec<f64> = (0..2).map(|i| jacobian[i][0] * d[0] + jacobian[i][1] * d[1]).collect();
        assert_all_close(&t, &want, ANALYTIC_TOL, "returned_from_calls_jvp");
        // At order 2, through the copy of `returned_from_calls`.
        let (_, g, h) = through_returned_from_calls_hessian(x, k);
        let grad = |p: &[f64]| through_returned_from_calls_grad([p[0], p[1]], k).1.to_vec();
        assert_fd_gradient(|p| through_returned_from_calls([p[0], p[1]], k), &x, &g, "through_returned_from_calls_grad");
        assert_jacobian(&h, &fd_jacobian(grad, &x), "through_returned_from_calls_hessian");
    }

    #[test]
    fn a_vec_that_a_call_returns_returned_early(a in moderate(), b in moderate(), k in -1..2i32) {
        let x = [a, b];
        let generated = vec_returned_from_a_call_jacobian(&x, k);
        let want = if k > 0 { [[b, a], [0.0, b.exp()]] } else { [[1.0, 0.0], [0.0, 1.0]] };
        for i in 0..2 {
            assert_all_close(&generated[i], &want[i], ANALYTIC_TOL, "vec_returned_from_a_call_jacobian");
        }
    }
}

// ---- an array a call returns, as the value of an `if` or a `match` ----

/// A call's array chosen by an `if` bound with its type, and by a `match` bound without one (the name is
/// indexed), whose arms give the parameter, a call, and a block ending in a call.
#[differentiable]
fn chosen_from_calls(x: [f64; 2], k: i32) -> f64 {
    let y: [f64; 2] = if k > 0 { pair_of(x[0], x[1]) } else { x };
    let z = match k {
        0 => x,
        1 => pair_of(x[1], x[0]),
        _ => {
            let t = x[0] * 2.0;
            pair_of(t, x[1])
        }
    };
    y[0] * y[1] + z[0] * z[1]
}

/// The same inside a loop, where the chosen array is fixed-size (also untyped, beside a fixed-size one);
/// and a `Vec` a call returns.
#[differentiable]
fn chosen_from_calls_in_a_loop(x: [f64; 2], v: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let y: [f64; 2] = if i % 2 == 0 { pair_of(x[0], s) } else { x };
        // Untyped: fixed-size like `y`, the other arm.
        let z = match i % 3 {
            0 => pair_of(y[1], x[1]),
            _ => y,
        };
        s += y[0] * y[1] + z[0];
    }
    let w = if n > 1 {
        row_of(v[0], v[1])
    } else {
        v.to_vec()
    };
    s + w[0] * w[1]
}

/// A local that a call binds, not indexed itself, chosen by an `if` whose value is indexed.
#[differentiable]
fn chosen_local_from_a_call(x: [f64; 2], k: i32) -> f64 {
    let c = pair_of(x[0], x[1]);
    let y = if k > 0 { c } else { x };
    y[0] * y[1]
}

#[differentiable(order = 2)]
fn through_chosen_from_calls(x: [f64; 2], k: i32) -> f64 {
    chosen_from_calls(x, k).sin()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arrays_that_calls_return_chosen_by_if_and_match(a in moderate(), b in moderate(), k in 0..3i32) {
        let x = [a, b];
        // y = (x0 x1, sin x0) for k > 0, else x; z = x, (x1 x0, sin x1), (2 x0 x1, sin 2x0).
        let (y, dy) = if k > 0 {
            (a * b * a.sin(), [b * a.sin() + a * b * a.cos(), a * a.sin()])
        } else {
            (a * b, [b, a])
        };
        let (z, dz) = match k {
            0 => (a * b, [b, a]),
            1 => (a * b * b.sin(), [b * b.sin(), a * b.sin() + a * b * b.cos()]),
            _ => {
                let t = 2.0 * a;
                (t * b * t.sin(), [2.0 * (b * t.sin() + t * b * t.cos()), t * t.sin()])
            }
        };
        let (value, g) = chosen_from_calls_grad(x, k);
        prop_assert_eq!(value, chosen_from_calls(x, k));
        assert_close(value, y + z, ANALYTIC_TOL, "chosen_from_calls");
        assert_all_close(&g, &[dy[0] + dz[0], dy[1] + dz[1]], ANALYTIC_TOL, "chosen_from_calls_grad");
        let (_, d) = chosen_from_calls_jvp(x, k, [0.5, -1.5]);
        assert_dot(d, &g, &[0.5, -1.5], ANALYTIC_TOL, "chosen_from_calls_jvp");
        let (value, g) = chosen_local_from_a_call_grad(x, k);
        prop_assert_eq!(value, chosen_local_from_a_call(x, k));
        assert_close(value, y, ANALYTIC_TOL, "chosen_local_from_a_call");
        assert_all_close(&g, &dy, ANALYTIC_TOL, "chosen_local_from_a_call_grad");
        let (_, g2, h) = through_chosen_from_calls_hessian(x, k);
        assert_fd_gradient(|p| through_chosen_from_calls([p[0], p[1]], k), &x, &g2, "through_chosen_from_calls_grad");
        let grad = |p: &[f64]| through_chosen_from_calls_grad([p[0], p[1]], k).1.to_vec();
        assert_jacobian(&h, &fd_jacobian(grad, &x), "through_chosen_from_calls_hessian");
    }

    #[test]
    fn arrays_that_calls_return_chosen_in_a_loop(p in prop::collection::vec(-1.5..1.5f64, 4), n in 0..5usize) {
        let f = |p: &[f64]| chosen_from_calls_in_a_loop([p[0], p[1]], &p[2..], n);
        let (value, (gx, gv)) = chosen_from_calls_in_a_loop_grad([p[0], p[1]], &p[2..], n);
        prop_assert_eq!(value, f(&p));
        let g = [gx.to_vec(), gv].concat();
        assert_fd_gradient(f, &p, &g, "chosen_from_calls_in_a_loop_grad");
    }
}
