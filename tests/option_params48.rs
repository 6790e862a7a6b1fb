//! `Option<f64>` parameters at `order = K`: a constant of the function (no derivative with respect to
//! it), which the second-order items lift into dual numbers as they do other constants
//! (`higher::Higher::data_arg`). Values against plain copies, gradients and Hessians against the
//! analytic ones and against central differences of the value and of `_grad`.
// The forms a user writes (a `match` that is `unwrap_or`, index loops), on purpose.
#![allow(clippy::manual_unwrap_or, clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{assert_close, central_difference, Inputs};

/// `match` on the option (trial47's `regressions::matched`, before an error at `order = K`).
#[differentiable(order = 2)]
fn matched(x: f64, scale: Option<f64>) -> f64 {
    let s = match scale {
        Some(k) => k,
        None => 1.0,
    };
    x * x * s
}

/// `unwrap_or` and an `if let` (trial47's `regressions::if_let`).
#[differentiable(order = 2)]
fn damped(x: f64, damping: Option<f64>, shift: Option<f64>) -> f64 {
    let mut y = x.sin() * x * damping.unwrap_or(0.5);
    if let Some(s) = shift {
        y += (x - s) * (x - s);
    }
    y
}

fn damped_plain(x: f64, damping: Option<f64>, shift: Option<f64>) -> f64 {
    let mut y = x.sin() * x * damping.unwrap_or(0.5);
    if let Some(s) = shift {
        y += (x - s) * (x - s);
    }
    y
}

/// Generic over its float type (the census's `probe27::scaled_generic`), in f64 and f32.
#[differentiable(order = 2)]
fn scaled_generic<T: Float>(x: T, scale: Option<T>) -> T {
    x * x * x * scale.unwrap_or(T::one())
}

/// Passes its option on whole to a differentiated function, at `order = 3`.
#[differentiable(order = 3)]
fn passed_on(x: f64, scale: Option<f64>) -> f64 {
    matched(x, scale) * x
}

/// Options over a slice: a weight decay chosen by the caller.
#[differentiable(order = 2)]
fn ridge(w: &[f64], decay: Option<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += (w[i] - 1.0).powi(2) * (i as f64 + 1.0);
    }
    match decay {
        Some(l) => s + l * w.iter().map(|v| v * v).sum::<f64>(),
        None => s,
    }
}

#[test]
fn matched_at_second_order() {
    let mut inputs = Inputs(48_101);
    for _ in 0..10 {
        let (x, k) = (inputs.next(), inputs.next());
        for scale in [Some(k), None] {
            let s = scale.unwrap_or(1.0);
            let (value, g, h) = matched_hessian(x, scale);
            assert_eq!(value, matched(x, scale));
            assert_close(g, 2.0 * x * s, 1e-12, "gradient");
            assert_close(h[0][0], 2.0 * s, 1e-12, "hessian");
            let (_, _, hv) = matched_hvp(x, scale, 1.0);
            assert_close(hv, 2.0 * s, 1e-12, "hvp");
        }
    }
}

#[test]
fn damped_against_differences() {
    let mut inputs = Inputs(48_102);
    for _ in 0..10 {
        let (x, d, s) = (inputs.next(), inputs.next(), inputs.next());
        for (damping, shift) in [
            (Some(d), Some(s)),
            (None, Some(s)),
            (Some(d), None),
            (None, None),
        ] {
            let f = |x: f64| damped_plain(x, damping, shift);
            let (value, g, h) = damped_hessian(x, damping, shift);
            assert_eq!(value, f(x));
            assert_eq!(value, damped(x, damping, shift));
            assert_close(g, central_difference(f, x), 1e-6, "gradient");
            let grad = |x: f64| damped_grad(x, damping, shift).1;
            assert_close(h[0][0], central_difference(grad, x), 1e-6, "hessian");
        }
    }
}

#[test]
fn generic_in_both_float_types() {
    let mut inputs = Inputs(48_103);
    for _ in 0..10 {
        let (x, k) = (inputs.next(), inputs.next());
        let (_, g, h) = scaled_generic_hessian(x, Some(k));
        assert_close(g, 3.0 * x * x * k, 1e-12, "gradient");
        assert_close(h[0][0], 6.0 * x * k, 1e-12, "hessian");
        let (_, g, h) = scaled_generic_hessian(x as f32, None);
        assert!((g - 3.0 * (x * x) as f32).abs() < 1e-4, "{g}");
        assert!((h[0][0] - 6.0 * x as f32).abs() < 1e-4, "{h:?}");
    }
}

#[test]
fn passed_on_to_third_order() {
    let mut inputs = Inputs(48_104);
    for _ in 0..10 {
        let (x, k) = (inputs.next(), inputs.next());
        for scale in [Some(k), None] {
            let s = scale.unwrap_or(1.0);
            // x^3 s: 3 x^2 s, 6 x s, 6 s.
            let [value, d1, d2, d3] = passed_on_derivatives(x, scale);
            assert_eq!(value, passed_on(x, scale));
            assert_close(value, x * x * x * s, 1e-12, "value");
            assert_close(d1, 3.0 * x * x * s, 1e-12, "first");
            assert_close(d2, 6.0 * x * s, 1e-12, "second");
            assert_close(d3, 6.0 * s, 1e-12, "third");
        }
    }
}

#[test]
fn ridge_against_differences() {
    let mut inputs = Inputs(48_105);
    for _ in 0..8 {
        let w = inputs.vec(4);
        let l = inputs.next().abs();
        for decay in [Some(l), None] {
            let (value, g, h) = ridge_hessian(&w, decay);
            assert_eq!(value, ridge(&w, decay));
            for i in 0..4 {
                let extra = decay.map_or(0.0, |l| 2.0 * l * w[i]);
                assert_close(
                    g[i],
                    2.0 * (w[i] - 1.0) * (i as f64 + 1.0) + extra,
                    1e-12,
                    "gradient",
                );
                for j in 0..4 {
                    let expected = match i == j {
                        true => 2.0 * (i as f64 + 1.0) + decay.map_or(0.0, |l| 2.0 * l),
                        false => 0.0,
                    };
                    assert_close(h[i][j], expected, 1e-12, "hessian");
                }
            }
        }
    }
}

/// A caller passing `None` at first order (its `_jvp` took the tangent of `None` from its type: rustc's
/// E0282 before).
#[differentiable]
fn undamped(x: f64, s: f64) -> f64 {
    damped(x, None, None) * s + damped(s, None, None)
}

#[test]
fn none_passed_on_at_first_order() {
    let mut inputs = Inputs(48_106);
    for _ in 0..10 {
        let (x, s) = (inputs.next(), inputs.next());
        let plain = |x: f64, s: f64| damped_plain(x, None, None) * s + damped_plain(s, None, None);
        let (value, (dx, ds)) = undamped_grad(x, s);
        assert_eq!(value, undamped(x, s));
        assert_close(value, plain(x, s), 1e-14, "value");
        assert_close(dx, central_difference(|x| plain(x, s), x), 1e-6, "d/dx");
        assert_close(ds, central_difference(|s| plain(x, s), s), 1e-6, "d/ds");
        let (_, tangent) = undamped_jvp(x, s, (1.0, 0.0));
        assert_close(tangent, dx, 1e-12, "jvp");
    }
}

/// `Some(y)` of a parameter outside `wrt(..)`, and `Some` of a constant, passed to a function taking an
/// option: `y` is a constant of the hidden all-parameter sweeps too (`maybe::unplanned`; the call machinery
/// took `Some` for a callee with derivatives before, rustc's "expected type, found variant `Some`").
#[differentiable(wrt(x))]
fn shifted(x: f64, y: f64) -> f64 {
    damped(x, Some(y), None) * x + damped(y, Some(0.5), Some(y))
}

fn shifted_plain(x: f64, y: f64) -> f64 {
    damped_plain(x, Some(y), None) * x + damped_plain(y, Some(0.5), Some(y))
}

/// A caller of `shifted`, passing a constant where `shifted` keeps its parameter constant.
#[differentiable]
fn outer(x: f64) -> f64 {
    shifted(x.sin(), 0.25) + damped(x, Some(2.0), None)
}

#[test]
fn some_of_constants_at_first_order() {
    let mut inputs = Inputs(48_107);
    for _ in 0..10 {
        let (x, y) = (inputs.next(), inputs.next());
        let (value, dx) = shifted_grad(x, y);
        assert_eq!(value, shifted(x, y));
        assert_close(value, shifted_plain(x, y), 1e-14, "value");
        assert_close(
            dx,
            central_difference(|x| shifted_plain(x, y), x),
            1e-6,
            "d/dx",
        );
        let plain = |x: f64| shifted_plain(x.sin(), 0.25) + damped_plain(x, Some(2.0), None);
        let (value, d) = outer_grad(x);
        assert_eq!(value, outer(x));
        assert_close(d, central_difference(plain, x), 1e-6, "outer");
    }
}
