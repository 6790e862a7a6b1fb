//! `.reduce(f)`, `.max_by(cmp)`, `.min_by(cmp)` and `.last()` ending a chain of values (after `.map(..)`,
//! `.copied()` or `.cloned()`), and `.position(p)`, unwrapped by `.unwrap()`, `.expect("..")` or
//! `.unwrap_or(d)` (`autodiff-macros/src/chains.rs`, `Desugar::selection`); `.enumerate()` and `.rev()`
//! after stages: gradients by hand and by central differences, Hessians against differences of the
//! gradient, ties as std chooses them, and std's panics.

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs};

/// The largest magnitude: the gradient is the sign at the last of the largest.
#[differentiable(order = 2)]
fn max_abs(x: &[f64]) -> f64 {
    x.iter()
        .map(|v| v.abs())
        .max_by(|a, b| a.total_cmp(b))
        .unwrap()
}

/// `logsumexp` with its maximum by `reduce(f64::max)`, the form numeric Rust often has.
#[differentiable(order = 2)]
fn logsumexp(x: &[f64]) -> f64 {
    let m = x.iter().copied().reduce(f64::max).unwrap();
    m + x.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

/// The squared distance from `p` to the nearest of `centres` (the first of equally near ones).
#[differentiable(order = 2)]
fn nearest(p: f64, centres: &[f64]) -> f64 {
    centres
        .iter()
        .map(|c| (p - c) * (p - c))
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap()
}

/// A product by `reduce` with a closure, and a default for the empty chain that depends on `x` too.
#[differentiable(order = 2)]
fn product_or(x: &[f64], threshold: f64) -> f64 {
    x.iter()
        .filter(|v| **v > threshold)
        .map(|v| 1.0 + v)
        .reduce(|a, b| a * b)
        .unwrap_or(x[0] * x[0])
}

/// `expect` with the user's message, over an enumerated chain, `max_by` with the comparator reversed
/// (so the minimum: the first of equal minima, as `min_by` by `cmp` keeps).
#[differentiable(order = 2)]
fn weighted_least(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(i, v)| v * (1.0 + i as f64))
        .max_by(|a, b| b.total_cmp(a))
        .expect("a point")
}

/// An integer `reduce` choosing an index: no derivative through it.
#[differentiable(order = 2)]
fn at_largest_bucket(x: &[f64]) -> f64 {
    let k = x
        .iter()
        .map(|v| (v.abs() * 2.0) as usize)
        .reduce(usize::max)
        .unwrap();
    x[k.min(x.len() - 1)] * x[0]
}

/// The largest of a row chosen by a computed index (refused before this form, tests/ui/arrays).
#[differentiable(order = 2)]
fn peak(m: &[Vec<f64>], i: usize) -> f64 {
    m[i + 1]
        .iter()
        .copied()
        .max_by(|p, q| p.partial_cmp(q).unwrap())
        .unwrap()
        * m[i][0]
}

/// `.enumerate()` after `.filter(..)` and `.map(..)`: the count of the elements kept, not their index.
#[differentiable(order = 2)]
fn kept_weighted(x: &[f64]) -> f64 {
    x.iter()
        .filter(|v| v.abs() > 0.3)
        .map(|v| v.sin())
        .enumerate()
        .map(|(i, s)| s * (1.0 + i as f64))
        .sum::<f64>()
}

/// `.rev()` after `.map(..)` and `.filter(..)`: Horner's rule over the kept elements, last first.
#[differentiable(order = 2)]
fn horner_kept(x: &[f64], t: f64) -> f64 {
    x.iter()
        .map(|v| v * t)
        .filter(|v| *v > -0.5)
        .rev()
        .fold(0.0, |acc, c| acc * t + c)
}

/// `.last()` of a chain of values (as written without clippy, which asks for `.next_back()`), and
/// `.position(p)` choosing the element read.
#[allow(clippy::double_ended_iterator_last)]
#[differentiable(order = 2)]
fn last_and_first_above(x: &[f64], t: f64) -> f64 {
    let last = x.iter().map(|v| v * v).last().unwrap_or(t);
    let k = x.iter().position(|&v| v > t).unwrap_or(0);
    let j = x.iter().map(|v| v * t).position(|w| w < 0.0).unwrap_or(1);
    last * x[k] + x[j]
}

/// `.next_back()`, `.next()` and `.find(p)` of chains of values: the last element, the first, and the
/// first for which `p` holds.
#[differentiable(order = 2)]
fn ends(x: &[f64]) -> f64 {
    let a = x.iter().map(|v| v.exp()).next_back().expect("last");
    let b = x.iter().copied().find(|v| *v < 0.0).unwrap_or(1.0);
    let c = x.iter().map(|v| v * 2.0).next().unwrap();
    a * b + c
}

/// `a.chain(b)`: the same stages over `b`'s items after `a`'s, the counts going on (`.enumerate()` numbers
/// `b`'s items after `a`'s), and `.chain(&y)` of a slice.
#[differentiable(order = 2)]
fn chained(x: &[f64], y: &[f64]) -> f64 {
    let s = x[..2]
        .iter()
        .chain(y.iter())
        .map(|v| v * v)
        .enumerate()
        .map(|(i, v)| v * (1.0 + i as f64))
        .sum::<f64>();
    let m = x
        .iter()
        .copied()
        .chain(y.iter().copied())
        .reduce(f64::max)
        .unwrap();
    let p = x
        .iter()
        .chain(&y[1..])
        .skip(1)
        .fold(1.0, |acc, v| acc * (1.0 + v));
    s + m * p
}

/// A `for` over `a.chain(b)` whose body skips with `continue` and breaks only out of an inner loop.
#[differentiable(order = 2)]
fn chained_for(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate().chain(y.iter().enumerate()) {
        if *v > 0.8 {
            continue;
        }
        let mut w = 1.0;
        for k in 0..4 {
            if k > i {
                break;
            }
            w *= v + 1.5;
        }
        s += w;
    }
    s
}

/// `.zip(..)` after `.map(..)`: each mapped element meets the element of the other slice at its index,
/// the shorter length deciding.
#[differentiable(order = 2)]
fn zipped_after_map(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .map(|v| v.sin())
        .map(f64::exp)
        .zip(y.iter())
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

fn last_max_index(v: &[f64]) -> usize {
    // std's own choice, the oracle for ties.
    v.iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)
        .unwrap()
}

#[test]
fn max_abs_is_the_sign_at_the_last_largest() {
    let mut inputs = Inputs(3001);
    for n in [1, 2, 5, 9] {
        for _ in 0..8 {
            let x = inputs.vec(n);
            let abs: Vec<f64> = x.iter().map(|v| v.abs()).collect();
            let k = last_max_index(&abs);
            let (v, g) = max_abs_grad(&x);
            assert_eq!(v, abs[k]);
            let mut expected = vec![0.0; n];
            expected[k] = x[k].signum();
            assert_all_close(&g, &expected, 1e-15, "max_abs by hand");
            assert_fd_gradient(max_abs, &x, &g, "max_abs");
            let (_, _, h) = max_abs_hessian(&x);
            assert!(
                h.iter().flatten().all(|&e| e == 0.0),
                "max_abs Hessian {h:?}"
            );
        }
    }
    // Ties: std keeps the last of equal maxima, and so does the derivative.
    let x = [1.0, -3.0, 3.0, 2.0];
    assert_eq!(max_abs_grad(&x).1, vec![0.0, 0.0, 1.0, 0.0]);
    let x = [3.0, -3.0];
    assert_eq!(max_abs_grad(&x).1, vec![0.0, -1.0]);
}

#[test]
fn logsumexp_by_reduce_is_the_softmax() {
    let mut inputs = Inputs(3002);
    for n in [1, 3, 6] {
        for _ in 0..8 {
            let x: Vec<f64> = inputs.vec(n).iter().map(|v| 4.0 * v).collect();
            let (v, g) = logsumexp_grad(&x);
            let z: f64 = x.iter().map(|v| v.exp()).sum();
            assert_close(v, z.ln(), 1e-14, "logsumexp value");
            let p: Vec<f64> = x.iter().map(|v| v.exp() / z).collect();
            assert_all_close(&g, &p, 1e-13, "softmax by hand");
            assert_fd_gradient(logsumexp, &x, &g, "logsumexp");
            let (_, g2, h) = logsumexp_hessian(&x);
            assert_eq!(g, g2);
            for i in 0..n {
                for j in 0..n {
                    let by_hand = if i == j { p[i] } else { 0.0 } - p[i] * p[j];
                    assert_close(h[i][j], by_hand, 1e-12, "logsumexp Hessian by hand");
                }
            }
            assert_hessian_fd(&h, |x| logsumexp_grad(x).1, &x, 1e-6, "logsumexp Hessian");
        }
    }
}

#[test]
fn nearest_centre_takes_the_first_of_equals() {
    let mut inputs = Inputs(3003);
    for _ in 0..16 {
        let p = 2.0 * inputs.next();
        let c = inputs.vec(4);
        let d: Vec<f64> = c.iter().map(|c| (p - c) * (p - c)).collect();
        // The first of equal minima: the last maximum of the negated distances.
        let k = d
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.partial_cmp(b.1).unwrap())
            .map(|(i, _)| i)
            .unwrap();
        let (v, (gp, gc)) = nearest_grad(p, &c);
        assert_eq!(v, d[k]);
        assert_close(gp, 2.0 * (p - c[k]), 1e-14, "d/dp by hand");
        let mut expected = vec![0.0; 4];
        expected[k] = -2.0 * (p - c[k]);
        assert_all_close(&gc, &expected, 1e-14, "d/dc by hand");
        let flat: Vec<f64> = std::iter::once(p).chain(c.iter().copied()).collect();
        let f = |v: &[f64]| nearest(v[0], &v[1..]);
        let grad = |v: &[f64]| {
            let (_, (gp, gc)) = nearest_grad(v[0], &v[1..]);
            std::iter::once(gp).chain(gc).collect::<Vec<f64>>()
        };
        assert_fd_gradient(f, &flat, &grad(&flat), "nearest");
        let (_, _, h) = nearest_hessian(p, &c);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "nearest Hessian");
        assert_close(h[0][0], 2.0, 1e-14, "d2/dp2");
        assert_close(h[0][k + 1], -2.0, 1e-14, "d2/dp dc");
    }
    // Two centres equally near: the first, as `min_by` keeps it.
    let (_, (_, gc)) = nearest_grad(0.0, &[1.0, -1.0]);
    assert_eq!(gc, vec![2.0, 0.0]);
}

#[test]
fn product_or_default() {
    let mut inputs = Inputs(3004);
    for _ in 0..16 {
        let x = inputs.vec(5);
        let t = 0.5 * inputs.next();
        let kept: Vec<usize> = (0..5).filter(|&i| x[i] > t).collect();
        let (v, (g, gt)) = product_or_grad(&x, t);
        assert_eq!(gt, 0.0);
        let mut expected = vec![0.0; 5];
        if kept.is_empty() {
            assert_eq!(v, x[0] * x[0]);
            expected[0] = 2.0 * x[0];
        } else {
            let prod: f64 = kept.iter().map(|&i| 1.0 + x[i]).product();
            assert_close(v, prod, 1e-14, "product value");
            for &i in &kept {
                expected[i] = prod / (1.0 + x[i]);
            }
        }
        assert_all_close(&g, &expected, 1e-13, "product by hand");
        assert_fd_gradient(|x| product_or(x, t), &x, &g, "product_or");
        let (_, _, h) = product_or_hessian(&x, t);
        assert_hessian_fd(
            &h[..5].iter().map(|r| r[..5].to_vec()).collect::<Vec<_>>(),
            |x| product_or_grad(x, t).1 .0,
            &x,
            1e-6,
            "product_or Hessian",
        );
    }
    // Nothing passes the filter: the default, and its derivative.
    let x = [0.5, -1.0, -2.0];
    assert_eq!(product_or_grad(&x, 1.0), (0.25, (vec![1.0, 0.0, 0.0], 0.0)));
}

#[test]
fn weighted_least_and_its_message() {
    let mut inputs = Inputs(3005);
    for _ in 0..16 {
        let x = inputs.vec(4);
        let w: Vec<f64> = x
            .iter()
            .enumerate()
            .map(|(i, v)| v * (1.0 + i as f64))
            .collect();
        let k = w
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, _)| i)
            .unwrap();
        let (v, g) = weighted_least_grad(&x);
        assert_eq!(v, w[k]);
        let mut expected = vec![0.0; 4];
        expected[k] = 1.0 + k as f64;
        assert_eq!(g, expected);
        assert_fd_gradient(weighted_least, &x, &g, "weighted_least");
    }
    let empty = std::panic::catch_unwind(|| weighted_least_grad(&[])).unwrap_err();
    assert_eq!(
        empty.downcast_ref::<String>().map(String::as_str),
        Some("a point")
    );
}

#[test]
fn integer_reduce_selects_without_a_derivative() {
    for x in [[0.2, 0.9, -0.3], [1.2, 0.1, 0.4], [0.1, -0.2, 0.3_f64]] {
        let k = x
            .iter()
            .map(|v| (v.abs() * 2.0) as usize)
            .max()
            .unwrap()
            .min(2);
        let (v, g) = at_largest_bucket_grad(&x);
        assert_eq!(v, x[k] * x[0]);
        let mut expected = [0.0; 3];
        expected[0] += x[k];
        expected[k] += x[0];
        assert_eq!(g, expected.to_vec());
        assert_fd_gradient(at_largest_bucket, &x, &g, "at_largest_bucket");
    }
}

#[test]
fn panics_as_std_does() {
    let message = |r: std::thread::Result<(f64, Vec<f64>)>| {
        let e = r.unwrap_err();
        e.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap()
    };
    let unwrap = "called `Option::unwrap()` on a `None` value";
    // The empty chain.
    assert_eq!(
        message(std::panic::catch_unwind(|| max_abs_grad(&[]))),
        unwrap
    );
    assert_eq!(
        message(std::panic::catch_unwind(|| logsumexp_grad(&[]))),
        unwrap
    );
    // `partial_cmp(..).unwrap()` panics where it compares a NaN, as the primal does ...
    let with_nan = [1.0, f64::NAN];
    assert!(std::panic::catch_unwind(|| nearest(0.5, &with_nan)).is_err());
    let r = std::panic::catch_unwind(|| {
        let (v, (g, _)) = nearest_grad(0.5, &with_nan);
        (v, vec![g])
    });
    assert_eq!(message(r), unwrap);
    // ... but not at a lone element, which it never compares.
    let (v, (g, _)) = nearest_grad(0.5, &[f64::NAN]);
    assert!(v.is_nan() && g.is_nan());
    assert!(nearest(0.5, &[f64::NAN]).is_nan());
}

#[test]
fn peak_of_a_computed_row() {
    let mut inputs = Inputs(3006);
    for _ in 0..12 {
        let m = inputs.rows(3, 4);
        for i in 0..2 {
            let k = last_max_index(&m[i + 1]);
            let (v, g) = peak_grad(&m, i);
            assert_eq!(v, m[i + 1][k] * m[i][0]);
            let mut expected = vec![vec![0.0; 4]; 3];
            expected[i + 1][k] += m[i][0];
            expected[i][0] += m[i + 1][k];
            assert_eq!(g, expected);
            let flat: Vec<f64> = m.iter().flatten().copied().collect();
            let rows = |v: &[f64]| v.chunks(4).map(<[f64]>::to_vec).collect::<Vec<_>>();
            let grad = |v: &[f64]| peak_grad(&rows(v), i).1.concat();
            assert_fd_gradient(|v| peak(&rows(v), i), &flat, &grad(&flat), "peak");
            let (_, _, h) = peak_hessian(&m, i);
            assert_hessian_fd(&h, grad, &flat, 1e-6, "peak Hessian");
        }
    }
}

#[test]
fn enumerate_after_stages_counts_what_reaches_it() {
    let mut inputs = Inputs(3007);
    for _ in 0..16 {
        let x = inputs.vec(6);
        let kept: Vec<usize> = (0..6).filter(|&i| x[i].abs() > 0.3).collect();
        let (v, g) = kept_weighted_grad(&x);
        let mut value = 0.0;
        let mut expected = vec![0.0; 6];
        for (count, &i) in kept.iter().enumerate() {
            value += x[i].sin() * (1.0 + count as f64);
            expected[i] = x[i].cos() * (1.0 + count as f64);
        }
        assert_close(v, value, 1e-14, "kept_weighted value");
        assert_all_close(&g, &expected, 1e-14, "kept_weighted by hand");
        assert_fd_gradient(kept_weighted, &x, &g, "kept_weighted");
        let (_, _, h) = kept_weighted_hessian(&x);
        assert_hessian_fd(
            &h,
            |x| kept_weighted_grad(x).1,
            &x,
            1e-6,
            "kept_weighted Hessian",
        );
    }
}

#[test]
fn rev_after_stages_reverses_the_source() {
    let mut inputs = Inputs(3008);
    for _ in 0..16 {
        let x = inputs.vec(5);
        let t = inputs.next();
        // The primal as std runs it is the oracle for the value; by hand for the derivative in t.
        let kept: Vec<f64> = x.iter().map(|v| v * t).filter(|v| *v > -0.5).collect();
        let value = kept.iter().rev().fold(0.0, |acc, c| acc * t + c);
        let (v, (g, gt)) = horner_kept_grad(&x, t);
        assert_close(v, value, 1e-14, "horner value");
        assert_eq!(v, horner_kept(&x, t));
        let flat: Vec<f64> = x.iter().copied().chain([t]).collect();
        let f = |v: &[f64]| horner_kept(&v[..5], v[5]);
        let grad = |v: &[f64]| {
            let (_, (g, gt)) = horner_kept_grad(&v[..5], v[5]);
            g.into_iter().chain([gt]).collect::<Vec<f64>>()
        };
        assert_fd_gradient(f, &flat, &grad(&flat), "horner_kept");
        assert_eq!(grad(&flat), g.into_iter().chain([gt]).collect::<Vec<f64>>());
        let (_, _, h) = horner_kept_hessian(&x, t);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "horner_kept Hessian");
    }
}

#[test]
fn last_and_position() {
    let mut inputs = Inputs(3009);
    for _ in 0..16 {
        let mut x = inputs.vec(5);
        x[4] = -0.5 - x[4].abs();
        let t = 0.8 * inputs.next();
        // std's own `position`, the oracle for which elements are read.
        let k = x.iter().position(|&v| v > t).unwrap_or(0);
        let j2 = x.iter().map(|v| v * t).position(|w| w < 0.0).unwrap_or(1);
        let (v, (g, gt)) = last_and_first_above_grad(&x, t);
        assert_eq!(v, x[4] * x[4] * x[k] + x[j2]);
        let mut expected = vec![0.0; 5];
        expected[4] += 2.0 * x[4] * x[k];
        expected[k] += x[4] * x[4];
        expected[j2] += 1.0;
        assert_all_close(&g, &expected, 1e-14, "last_and_first_above by hand");
        assert_eq!(gt, 0.0);
        let flat: Vec<f64> = x.iter().copied().chain([t]).collect();
        let f = |v: &[f64]| last_and_first_above(&v[..5], v[5]);
        let grad = |v: &[f64]| {
            let (_, (g, gt)) = last_and_first_above_grad(&v[..5], v[5]);
            g.into_iter().chain([gt]).collect::<Vec<f64>>()
        };
        assert_fd_gradient(f, &flat, &grad(&flat), "last_and_first_above");
        let (_, _, h) = last_and_first_above_hessian(&x, t);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "last_and_first_above Hessian");
    }
    // Nothing above t: position 0 by the default; nothing negative: position 1.
    let x = [0.1, 0.2];
    let (v, (g, _)) = last_and_first_above_grad(&x, 0.5);
    assert_eq!(v, 0.04 * 0.1 + 0.2);
    assert_all_close(&g, &[0.2 * 0.2, 2.0 * 0.2 * 0.1 + 1.0], 1e-15, "defaults");
    // The empty slice: `.last()`'s default, then `x[k]` out of bounds, as the function panics.
    assert!(std::panic::catch_unwind(|| last_and_first_above_grad(&[], 0.5)).is_err());
    assert!(std::panic::catch_unwind(|| last_and_first_above(&[], 0.5)).is_err());
}

#[test]
fn next_back_and_next() {
    let mut inputs = Inputs(3010);
    for _ in 0..16 {
        let x = inputs.vec(4);
        let n = x.len() - 1;
        let neg = x.iter().position(|&v| v < 0.0);
        let b = neg.map_or(1.0, |k| x[k]);
        let (v, g) = ends_grad(&x);
        assert_close(v, x[n].exp() * b + 2.0 * x[0], 1e-15, "ends value");
        let mut expected = vec![0.0; 4];
        expected[n] += x[n].exp() * b;
        expected[0] += 2.0;
        if let Some(k) = neg {
            expected[k] += x[n].exp();
        }
        assert_all_close(&g, &expected, 1e-14, "ends by hand");
        assert_fd_gradient(ends, &x, &g, "ends");
        let (_, _, h) = ends_hessian(&x);
        assert_hessian_fd(&h, |x| ends_grad(x).1, &x, 1e-6, "ends Hessian");
    }
}

#[test]
fn chained_sources() {
    let mut inputs = Inputs(3011);
    for _ in 0..16 {
        let x = inputs.vec(3);
        let y = inputs.vec(3);
        // std's own chains, the oracle for the value.
        let s: f64 = x[..2]
            .iter()
            .chain(y.iter())
            .map(|v| v * v)
            .enumerate()
            .map(|(i, v)| v * (1.0 + i as f64))
            .sum();
        let m = x
            .iter()
            .chain(y.iter())
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let p: f64 = x.iter().chain(&y[1..]).skip(1).map(|v| 1.0 + v).product();
        let (v, _) = chained_grad(&x, &y);
        assert_close(v, s + m * p, 1e-14, "chained value");
        let flat: Vec<f64> = x.iter().chain(&y).copied().collect();
        let f = |v: &[f64]| chained(&v[..3], &v[3..]);
        let grad = |v: &[f64]| {
            let (_, (gx, gy)) = chained_grad(&v[..3], &v[3..]);
            gx.into_iter().chain(gy).collect::<Vec<f64>>()
        };
        assert_fd_gradient(f, &flat, &grad(&flat), "chained");
        let (_, _, h) = chained_hessian(&x, &y);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "chained Hessian");
    }
}

#[test]
fn for_over_a_chain() {
    let mut inputs = Inputs(3012);
    for _ in 0..16 {
        let x = inputs.vec(3);
        let y = inputs.vec(4);
        let mut value = 0.0;
        let mut gx = vec![0.0; 3];
        let mut gy = vec![0.0; 4];
        for (side, v) in [(&x, &mut gx), (&y, &mut gy)] {
            for (i, &a) in side.iter().enumerate() {
                if a > 0.8 {
                    continue;
                }
                let p = (i + 1).min(4) as i32;
                value += (a + 1.5).powi(p);
                v[i] = f64::from(p) * (a + 1.5).powi(p - 1);
            }
        }
        let (v, (g1, g2)) = chained_for_grad(&x, &y);
        assert_close(v, value, 1e-14, "chained_for value");
        assert_all_close(&g1, &gx, 1e-13, "chained_for d/dx by hand");
        assert_all_close(&g2, &gy, 1e-13, "chained_for d/dy by hand");
        let flat: Vec<f64> = x.iter().chain(&y).copied().collect();
        let grad = |v: &[f64]| {
            let (_, (a, b)) = chained_for_grad(&v[..3], &v[3..]);
            a.into_iter().chain(b).collect::<Vec<f64>>()
        };
        assert_fd_gradient(
            |v| chained_for(&v[..3], &v[3..]),
            &flat,
            &grad(&flat),
            "chained_for",
        );
        let (_, _, h) = chained_for_hessian(&x, &y);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "chained_for Hessian");
    }
}

#[test]
fn zip_after_map() {
    let mut inputs = Inputs(3013);
    for (n, m) in [(4, 3), (3, 3), (2, 4)] {
        let x = inputs.vec(n);
        let y = inputs.vec(m);
        let k = n.min(m);
        let (v, (gx, gy)) = zipped_after_map_grad(&x, &y);
        let value: f64 = (0..k).map(|i| x[i].sin().exp() * y[i]).sum();
        assert_close(v, value, 1e-14, "zipped value");
        for i in 0..n {
            let expected = if i < k {
                x[i].cos() * x[i].sin().exp() * y[i]
            } else {
                0.0
            };
            assert_close(gx[i], expected, 1e-14, "d/dx by hand");
        }
        for i in 0..m {
            let expected = if i < k { x[i].sin().exp() } else { 0.0 };
            assert_close(gy[i], expected, 1e-14, "d/dy by hand");
        }
        let flat: Vec<f64> = x.iter().chain(&y).copied().collect();
        let grad = |v: &[f64]| {
            let (_, (a, b)) = zipped_after_map_grad(&v[..n], &v[n..]);
            a.into_iter().chain(b).collect::<Vec<f64>>()
        };
        assert_fd_gradient(
            |v| zipped_after_map(&v[..n], &v[n..]),
            &flat,
            &grad(&flat),
            "zipped",
        );
        let (_, _, h) = zipped_after_map_hessian(&x, &y);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "zipped Hessian");
    }
}
