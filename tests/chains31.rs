//! Forms refused before: `.zip(b)` after `.filter(..)` (`autodiff-macros/src/chains.rs`, `Stage::Zip`),
//! `.nth(k)` and `.find_map(f)` unwrapped, a `for` over `a.chain(b)` left by `break`, and a call of a
//! generic helper with a turbofish (`pbump::<f64>(0.5, t)`) that only a parameter outside `wrt(..)`
//! reaches: gradients by hand and by central differences, Hessians against differences of the gradient,
//! and std's order of evaluation (where the chain stops, nothing after is computed).

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, central_difference,
    Inputs,
};
use num_traits::Float;

/// `.zip(b)` after `.filter(..)`: the kept elements meet `y`'s items in order, `y` advancing only at a
/// kept element; the shorter side ends it.
#[differentiable(order = 2)]
fn zip_after_filter(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .filter(|v| **v > 0.0)
        .zip(y.iter())
        .map(|(a, b)| a * b)
        .sum::<f64>()
}

/// After `.map(..)` and `.filter(..)`, zipped with a slice skipped by one, folded in order.
#[differentiable(order = 2)]
fn zip_after_map_filter(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .map(|v| v * v)
        .filter(|s| *s > 0.1)
        .zip(y.iter().skip(1))
        .fold(0.0, |acc, (s, b)| acc * 0.5 + s.sin() * b)
}

/// With a range on the other side, and a `for` loop over the same form.
#[differentiable(order = 2)]
fn zip_range_and_for(x: &[f64], y: &[f64]) -> f64 {
    let r = x
        .iter()
        .copied()
        .filter(|v| v.abs() > 0.2)
        .zip(1..4)
        .map(|(v, k)| v * v * k as f64)
        .sum::<f64>();
    let mut s = 0.0;
    for (&a, &b) in x.iter().filter(|v| **v < 0.5).zip(y) {
        s += a.exp() * b;
    }
    r + s
}

/// The indexes of `x` kept by `keep`, each paired with the position of the item of the other side it
/// meets, as many as that side has (the oracle, by hand).
fn pairs(x: &[f64], keep: impl Fn(f64) -> bool, other: usize) -> Vec<(usize, usize)> {
    let kept: Vec<usize> = (0..x.len()).filter(|&i| keep(x[i])).collect();
    kept.into_iter().take(other).zip(0..other).collect()
}

/// The gradient of a function of two slices as one flat vector, for the differences.
fn flat_grad(
    g: impl Fn(&[f64], &[f64]) -> (f64, (Vec<f64>, Vec<f64>)),
    n: usize,
) -> impl Fn(&[f64]) -> Vec<f64> {
    move |v: &[f64]| {
        let (_, (a, b)) = g(&v[..n], &v[n..]);
        a.into_iter().chain(b).collect()
    }
}

#[test]
fn zip_after_filter_pairs_the_kept_elements_in_order() {
    let mut inputs = Inputs(31001);
    for (n, m) in [(6, 2), (5, 5), (3, 6), (7, 3), (4, 0)] {
        let x = inputs.vec(n);
        let y = inputs.vec(m);
        let (v, (gx, gy)) = zip_after_filter_grad(&x, &y);
        let p = pairs(&x, |v| v > 0.0, m);
        let value: f64 = p.iter().map(|&(i, j)| x[i] * y[j]).sum();
        assert_close(v, value, 1e-14, "value");
        assert_close(v, zip_after_filter(&x, &y), 1e-14, "value as std");
        let (mut ex, mut ey) = (vec![0.0; n], vec![0.0; m]);
        for &(i, j) in &p {
            ex[i] = y[j];
            ey[j] = x[i];
        }
        assert_all_close(&gx, &ex, 1e-14, "d/dx by hand");
        assert_all_close(&gy, &ey, 1e-14, "d/dy by hand");
        let flat: Vec<f64> = x.iter().chain(&y).copied().collect();
        let grad = flat_grad(zip_after_filter_grad, n);
        assert_fd_gradient(
            |v| zip_after_filter(&v[..n], &v[n..]),
            &flat,
            &grad(&flat),
            "zip after filter",
        );
        let (_, _, h) = zip_after_filter_hessian(&x, &y);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "zip after filter Hessian");
    }
}

#[test]
fn zip_after_map_and_filter_folds_in_order() {
    let mut inputs = Inputs(31002);
    for (n, m) in [(6, 3), (5, 6), (4, 1), (8, 4)] {
        let x = inputs.vec(n);
        let y = inputs.vec(m);
        let (v, (gx, gy)) = zip_after_map_filter_grad(&x, &y);
        assert_close(v, zip_after_map_filter(&x, &y), 1e-14, "value as std");
        // acc = sum_k 0.5^(K-1-k) sin(x_{i_k}^2) y_{1+k}.
        let p = pairs(&x, |v| v * v > 0.1, m.saturating_sub(1));
        let big_k = p.len() as i32;
        let (mut ex, mut ey) = (vec![0.0; n], vec![0.0; m]);
        let mut value = 0.0;
        for (k, &(i, j)) in p.iter().enumerate() {
            let w = 0.5f64.powi(big_k - 1 - k as i32);
            let s = x[i] * x[i];
            value += w * s.sin() * y[j + 1];
            ex[i] = w * s.cos() * 2.0 * x[i] * y[j + 1];
            ey[j + 1] = w * s.sin();
        }
        assert_close(v, value, 1e-14, "value by hand");
        assert_all_close(&gx, &ex, 1e-14, "d/dx by hand");
        assert_all_close(&gy, &ey, 1e-14, "d/dy by hand");
        let flat: Vec<f64> = x.iter().chain(&y).copied().collect();
        let grad = flat_grad(zip_after_map_filter_grad, n);
        assert_fd_gradient(
            |v| zip_after_map_filter(&v[..n], &v[n..]),
            &flat,
            &grad(&flat),
            "zip after map and filter",
        );
        let (_, _, h) = zip_after_map_filter_hessian(&x, &y);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "zip after map and filter Hessian");
    }
}

#[test]
fn zip_with_a_range_and_in_a_for_loop() {
    let mut inputs = Inputs(31003);
    for (n, m) in [(6, 2), (5, 5), (7, 3)] {
        let x = inputs.vec(n);
        let y = inputs.vec(m);
        let (v, (gx, gy)) = zip_range_and_for_grad(&x, &y);
        assert_close(v, zip_range_and_for(&x, &y), 1e-14, "value as std");
        let (mut ex, mut ey) = (vec![0.0; n], vec![0.0; m]);
        for (i, k) in pairs(&x, |v| v.abs() > 0.2, 3) {
            ex[i] += 2.0 * x[i] * (k + 1) as f64;
        }
        for (i, j) in pairs(&x, |v| v < 0.5, m) {
            ex[i] += x[i].exp() * y[j];
            ey[j] = x[i].exp();
        }
        assert_all_close(&gx, &ex, 1e-14, "d/dx by hand");
        assert_all_close(&gy, &ey, 1e-14, "d/dy by hand");
        let flat: Vec<f64> = x.iter().chain(&y).copied().collect();
        let grad = flat_grad(zip_range_and_for_grad, n);
        assert_fd_gradient(
            |v| zip_range_and_for(&v[..n], &v[n..]),
            &flat,
            &grad(&flat),
            "zip with a range, for",
        );
        let (_, _, h) = zip_range_and_for_hessian(&x, &y);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "zip with a range Hessian");
    }
}

/// The other side the rows of a matrix: each kept element meets a row, read by reference.
#[differentiable]
fn zip_rows_after_filter(x: &[f64], m: &[Vec<f64>]) -> f64 {
    x.iter()
        .filter(|v| **v > 0.0)
        .zip(m.iter())
        .map(|(a, r)| a * r[0] + r[1] * r[1])
        .sum::<f64>()
}

#[test]
fn zip_after_filter_with_rows() {
    let mut inputs = Inputs(31009);
    for (n, rows) in [(5, 2), (4, 4), (6, 3)] {
        let x = inputs.vec(n);
        let m = inputs.rows(rows, 2);
        let (v, (gx, gm)) = zip_rows_after_filter_grad(&x, &m);
        assert_close(v, zip_rows_after_filter(&x, &m), 1e-14, "value as std");
        let (mut ex, mut em) = (vec![0.0; n], vec![vec![0.0; 2]; rows]);
        for (i, j) in pairs(&x, |v| v > 0.0, rows) {
            ex[i] = m[j][0];
            em[j] = vec![x[i], 2.0 * m[j][1]];
        }
        assert_all_close(&gx, &ex, 1e-14, "d/dx by hand");
        for j in 0..rows {
            assert_all_close(&gm[j], &em[j], 1e-14, "d/dm by hand");
        }
        let flat: Vec<f64> = x.iter().chain(m.iter().flatten()).copied().collect();
        let gflat: Vec<f64> = gx.iter().chain(gm.iter().flatten()).copied().collect();
        assert_fd_gradient(
            |v| {
                let m: Vec<Vec<f64>> = v[n..].chunks(2).map(<[f64]>::to_vec).collect();
                zip_rows_after_filter(&v[..n], &m)
            },
            &flat,
            &gflat,
            "zip rows after filter",
        );
    }
}

/// The map before the filter reads `w[i]`: std's `Zip` stops pulling from the filter once `y` is done,
/// so no element after the one that found `y` empty is mapped, and `w` may be that short.
#[differentiable]
fn zip_stops_where_std_does(x: &[f64], w: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(i, v)| v * w[i])
        .filter(|p| *p > 0.0)
        .zip(y.iter())
        .map(|(p, b)| p * b)
        .sum::<f64>()
}

#[test]
fn zip_after_filter_maps_no_element_std_does_not() {
    let x = [0.5, -0.5, 0.25, 0.75, 1.0];
    let w = [1.0, 1.0, 2.0, 1.0];
    let y = [3.0];
    // Pulled: x[0] (kept, meets y[0]), x[1], x[2] (kept, y is done): w[3], w[4] never read.
    assert_close(zip_stops_where_std_does(&x, &w, &y), 1.5, 0.0, "std");
    let (v, (gx, gw, gy)) = zip_stops_where_std_does_grad(&x, &w, &y);
    assert_close(v, 1.5, 0.0, "value");
    assert_all_close(&gx, &[3.0, 0.0, 0.0, 0.0, 0.0], 0.0, "d/dx");
    assert_all_close(&gw, &[1.5, 0.0, 0.0, 0.0], 0.0, "d/dw");
    assert_all_close(&gy, &[0.5], 0.0, "d/dy");
    // With a second item on the other side, std reads `w[4]` and panics; so does the gradient.
    let y = [3.0, 1.0, 1.0];
    assert!(std::panic::catch_unwind(|| zip_stops_where_std_does(&x, &w, &y)).is_err());
    assert!(std::panic::catch_unwind(|| zip_stops_where_std_does_grad(&x, &w, &y)).is_err());
}

/// `.nth(k)` of chains of values, unwrapped three ways; `k` computed.
#[differentiable(order = 2)]
fn nth_of_values(x: &[f64], t: f64) -> f64 {
    let a = x.iter().map(|v| v * t).nth(1).unwrap();
    let b = x
        .iter()
        .copied()
        .filter(|v| *v > 0.0)
        .nth(x.len() / 4)
        .unwrap_or(t * t);
    let c = x.iter().map(|v| v.sin()).skip(1).nth(2).expect("four");
    a * b + c
}

/// `.find_map(f)` with `f` an `if`/`else` of `Some` and `None`, over references (`v > &1.0`), after a
/// map, and with `let`s before the `if` and the `Some` in the `else`.
#[differentiable(order = 2)]
fn find_mapped(x: &[f64], t: f64) -> f64 {
    let a = x
        .iter()
        .find_map(|v| if v > &0.25 { Some(v.ln()) } else { None })
        .unwrap_or(t);
    let b = x
        .iter()
        .map(|v| v * t)
        .find_map(|w| {
            let s = w * w;
            if s > 0.1 {
                None
            } else {
                Some(s.exp() * w)
            }
        })
        .expect("a small one");
    a * t + b
}

/// `.find_map(..)` giving an index (`.enumerate()`'s count, a range's index): an integer, no derivative
/// through it, choosing the element read.
#[differentiable(order = 2)]
fn find_map_index(x: &[f64], t: f64) -> f64 {
    let k = x
        .iter()
        .enumerate()
        .find_map(|(i, v)| if *v > t { Some(i) } else { None })
        .unwrap_or(0);
    let j = (0..x.len())
        .find_map(|i| if x[i] < 0.0 { Some(i + 1) } else { None })
        .unwrap_or(x.len());
    x[k] * t + x[j - 1] * x[j - 1]
}

#[test]
fn find_map_of_an_index() {
    let mut inputs = Inputs(31010);
    for n in [3, 4, 6] {
        let x = inputs.vec(n);
        let t = 0.5 * inputs.next();
        let (v, (gx, gt)) = find_map_index_grad(&x, t);
        assert_close(v, find_map_index(&x, t), 1e-14, "value as std");
        let k = (0..n).find(|&i| x[i] > t).unwrap_or(0);
        let j = (0..n).find(|&i| x[i] < 0.0).unwrap_or(n - 1);
        let mut ex = vec![0.0; n];
        ex[k] += t;
        ex[j] += 2.0 * x[j];
        assert_all_close(&gx, &ex, 1e-14, "d/dx by hand");
        assert_close(gt, x[k], 1e-14, "d/dt by hand");
        let flat: Vec<f64> = x.iter().copied().chain([t]).collect();
        let grad = flat_grad_t(find_map_index_grad, n);
        assert_fd_gradient(
            |v| find_map_index(&v[..n], v[n]),
            &flat,
            &grad(&flat),
            "find_map index",
        );
        let (_, _, h) = find_map_index_hessian(&x, t);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "find_map index Hessian");
    }
}

/// The gradient of a function of a slice and a scalar as one flat vector, for the differences.
fn flat_grad_t(
    g: impl Fn(&[f64], f64) -> (f64, (Vec<f64>, f64)),
    n: usize,
) -> impl Fn(&[f64]) -> Vec<f64> {
    move |v: &[f64]| {
        let (_, (gx, gt)) = g(&v[..n], v[n]);
        gx.into_iter().chain([gt]).collect()
    }
}

#[test]
fn nth_of_a_chain_of_values() {
    let mut inputs = Inputs(31004);
    for n in [4, 5, 8, 9, 12] {
        let x = inputs.vec(n);
        let t = 0.5 + inputs.next();
        let (v, (gx, gt)) = nth_of_values_grad(&x, t);
        assert_close(v, nth_of_values(&x, t), 1e-14, "value as std");
        let kept: Vec<usize> = (0..n).filter(|&i| x[i] > 0.0).collect();
        let at = kept.get(n / 4).copied();
        let a = x[1] * t;
        let b = at.map_or(t * t, |i| x[i]);
        assert_close(v, a * b + x[3].sin(), 1e-14, "value by hand");
        let mut ex = vec![0.0; n];
        ex[1] += t * b;
        ex[3] += x[3].cos();
        let mut et = x[1] * b;
        match at {
            Some(i) => ex[i] += a,
            None => et += a * 2.0 * t,
        }
        assert_all_close(&gx, &ex, 1e-14, "d/dx by hand");
        assert_close(gt, et, 1e-14, "d/dt by hand");
        let flat: Vec<f64> = x.iter().copied().chain([t]).collect();
        let grad = flat_grad_t(nth_of_values_grad, n);
        assert_fd_gradient(|v| nth_of_values(&v[..n], v[n]), &flat, &grad(&flat), "nth");
        let (_, _, h) = nth_of_values_hessian(&x, t);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "nth Hessian");
    }
}

#[test]
fn find_map_of_an_if_else() {
    let mut inputs = Inputs(31005);
    for n in [3, 5, 8] {
        let mut x = inputs.vec(n);
        x[n - 1] = 0.1 * inputs.next();
        let t = 1.0 + 0.5 * inputs.next();
        let (v, (gx, gt)) = find_mapped_grad(&x, t);
        assert_close(v, find_mapped(&x, t), 1e-14, "value as std");
        let mut ex = vec![0.0; n];
        let mut et = 0.0;
        let a = match (0..n).find(|&i| x[i] > 0.25) {
            Some(i) => {
                ex[i] += t / x[i];
                x[i].ln()
            }
            None => {
                et += t;
                t
            }
        };
        et += a;
        let i = (0..n).find(|&i| (x[i] * t).powi(2) <= 0.1).unwrap();
        let w = x[i] * t;
        let b = (w * w).exp() * w;
        let db = (w * w).exp() * (1.0 + 2.0 * w * w);
        ex[i] += db * t;
        et += db * x[i];
        assert_close(v, a * t + b, 1e-14, "value by hand");
        assert_all_close(&gx, &ex, 1e-14, "d/dx by hand");
        assert_close(gt, et, 1e-14, "d/dt by hand");
        let flat: Vec<f64> = x.iter().copied().chain([t]).collect();
        let grad = flat_grad_t(find_mapped_grad, n);
        assert_fd_gradient(
            |v| find_mapped(&v[..n], v[n]),
            &flat,
            &grad(&flat),
            "find_map",
        );
        let (_, _, h) = find_mapped_hessian(&x, t);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "find_map Hessian");
    }
}

/// The message of a panic caught by `catch_unwind`.
fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// After the element found, no stage runs (`w[i]` past `w`'s end is not read), as std's iterator stops.
#[differentiable]
fn stops_when_found(x: &[f64], w: &[f64]) -> f64 {
    let a = x
        .iter()
        .enumerate()
        .map(|(i, v)| v * w[i])
        .find_map(|p| if p > 0.0 { Some(p * p) } else { None })
        .unwrap_or(0.0);
    let b = x.iter().enumerate().map(|(i, v)| v * w[i]).nth(1).unwrap();
    a + b
}

#[test]
fn nth_and_find_map_stop_where_std_does_and_panic_as_it_does() {
    let x = [-1.0, 2.0, 3.0, 4.0];
    let w = [1.0, 0.5];
    assert_close(stops_when_found(&x, &w), 2.0, 0.0, "std");
    let (v, (gx, gw)) = stops_when_found_grad(&x, &w);
    assert_close(v, 2.0, 0.0, "value");
    // a = (x1 w1)^2, b = x1 w1.
    assert_all_close(&gx, &[0.0, 1.5, 0.0, 0.0], 0.0, "d/dx");
    assert_all_close(&gw, &[0.0, 6.0], 0.0, "d/dw");
    // Nothing found: the default, and every element mapped (`w[2]` read: a panic in both).
    let x = [-1.0, -2.0, 3.0];
    assert!(std::panic::catch_unwind(|| stops_when_found(&x, &w)).is_err());
    assert!(std::panic::catch_unwind(|| stops_when_found_grad(&x, &w)).is_err());
    // Past the end: `Option::unwrap`'s panic, and the `expect`'s message.
    let short = [0.5, 0.25];
    let m = panic_message(
        std::panic::catch_unwind(|| stops_when_found_grad(&short[..1], &w)).unwrap_err(),
    );
    assert!(
        m.contains("called `Option::unwrap()` on a `None` value"),
        "{m}"
    );
    let m =
        panic_message(std::panic::catch_unwind(|| nth_of_values_grad(&short, 1.0)).unwrap_err());
    assert!(m.contains("four"), "{m}");
}

/// A `for` over `a.chain(b)` left by `break`: in `a`'s part, the break ends `b`'s too.
#[differentiable(order = 2)]
fn chained_until(x: &[f64], y: &[f64], t: f64) -> f64 {
    let mut s = 0.0;
    for v in x.iter().chain(y.iter()) {
        if *v > t {
            break;
        }
        s += v * v * t;
    }
    s
}

/// With stages after the chain, a labeled `break` from a nested loop, and the nested loop's own `break`.
#[differentiable(order = 2)]
fn chained_labeled(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    'outer: for (k, w) in x.iter().chain(&y[1..]).map(|v| v.sin()).enumerate() {
        for j in 0..3 {
            if w * (j as f64) > 0.6 {
                break 'outer;
            }
            if j > k {
                break;
            }
            s += w * (j + 1) as f64;
        }
    }
    s
}

#[test]
fn for_over_a_chain_left_by_break() {
    // How many of the cases leave the loop in `a`'s part (where running `b`'s would be wrong).
    let mut left_in_a = 0;
    let mut inputs = Inputs(31006);
    for (n, m, t) in [(4, 3, 0.5), (3, 4, 0.9), (2, 5, 2.0), (5, 2, -0.2)] {
        let x = inputs.vec(n);
        let y = inputs.vec(m);
        let z: Vec<f64> = x.iter().chain(&y).copied().collect();
        let stop = z.iter().position(|&v| v > t).unwrap_or(n + m);
        left_in_a += usize::from(stop < n);
        let (v, (gx, gy, gt)) = chained_until_grad(&x, &y, t);
        assert_close(v, chained_until(&x, &y, t), 1e-14, "value as std");
        let value: f64 = z[..stop].iter().map(|v| v * v * t).sum();
        assert_close(v, value, 1e-14, "value by hand");
        let g: Vec<f64> = (0..n + m)
            .map(|i| if i < stop { 2.0 * t * z[i] } else { 0.0 })
            .collect();
        assert_all_close(&gx, &g[..n], 1e-14, "d/dx by hand");
        assert_all_close(&gy, &g[n..], 1e-14, "d/dy by hand");
        assert_close(
            gt,
            z[..stop].iter().map(|v| v * v).sum(),
            1e-14,
            "d/dt by hand",
        );
        let flat: Vec<f64> = z.iter().copied().chain([t]).collect();
        let grad = |v: &[f64]| {
            let (_, (a, b, c)) = chained_until_grad(&v[..n], &v[n..n + m], v[n + m]);
            a.into_iter().chain(b).chain([c]).collect::<Vec<f64>>()
        };
        assert_fd_gradient(
            |v| chained_until(&v[..n], &v[n..n + m], v[n + m]),
            &flat,
            &grad(&flat),
            "chained until",
        );
        let (_, _, h) = chained_until_hessian(&x, &y, t);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "chained until Hessian");
    }
    let mut inputs = Inputs(31007);
    for (n, m) in [(4, 3), (2, 5), (1, 2), (6, 4)] {
        let x: Vec<f64> = inputs.vec(n).iter().map(|v| v * 1.5).collect();
        let y: Vec<f64> = inputs.vec(m).iter().map(|v| v * 1.5).collect();
        let z: Vec<f64> = x.iter().chain(&y[1..]).copied().collect();
        // The loop by hand: the multiplier of each sin(z_k) in s.
        let mut weight = vec![0.0; z.len()];
        'outer: for k in 0..z.len() {
            let w = z[k].sin();
            for j in 0..3 {
                if w * (j as f64) > 0.6 {
                    left_in_a += usize::from(k < n);
                    break 'outer;
                }
                if j > k {
                    break;
                }
                weight[k] += (j + 1) as f64;
            }
        }
        let (v, (gx, gy)) = chained_labeled_grad(&x, &y);
        assert_close(v, chained_labeled(&x, &y), 1e-14, "value as std");
        let value: f64 = (0..z.len()).map(|k| weight[k] * z[k].sin()).sum();
        assert_close(v, value, 1e-14, "value by hand");
        let g: Vec<f64> = (0..z.len()).map(|k| weight[k] * z[k].cos()).collect();
        assert_all_close(&gx, &g[..n], 1e-14, "d/dx by hand");
        assert_close(gy[0], 0.0, 0.0, "d/dy0 by hand");
        assert_all_close(&gy[1..], &g[n..], 1e-14, "d/dy by hand");
        let flat: Vec<f64> = x.iter().chain(&y).copied().collect();
        let grad = flat_grad(chained_labeled_grad, n);
        assert_fd_gradient(
            |v| chained_labeled(&v[..n], &v[n..]),
            &flat,
            &grad(&flat),
            "chained labeled",
        );
        let (_, _, h) = chained_labeled_hessian(&x, &y);
        assert_hessian_fd(&h, grad, &flat, 1e-6, "chained labeled Hessian");
    }
    assert!(
        left_in_a >= 3,
        "{left_in_a} cases left the loop in the first part"
    );
}

/// A plain helper generic over its float type: no derivatives.
fn pbump<T: Float>(a: T, t: T) -> T {
    a * t.exp() + t * t
}

/// A generic helper with derivatives.
#[differentiable]
fn gbump<T: Float>(a: T, t: T) -> T {
    (a * t).sin() + t * t
}

/// `t` (outside `wrt(..)`) reaches the plain helper through a turbofish: the hidden sweeps call it as
/// written (an error in generated code before: a turbofish on the fallback's item, E0107).
#[differentiable(wrt(x))]
fn turbofish_first(x: f64, t: f64) -> f64 {
    x * x * pbump::<f64>(0.5, t) + gbump::<f64>(x, t)
}

/// At `order = 2` the generic copy calls `pbump` as written, `gbump`'s copy without the `::<f64>` (E0573
/// before: `<pbump::<f64> as GenericCopy>`, the call read as one of a copy).
#[differentiable(order = 2, wrt(x))]
fn turbofish_second(x: f64, t: f64) -> f64 {
    x * x * x * pbump::<f64>(0.5, t) + gbump::<f64>(x, t) * x
}

/// Through `gbump::<f64>` in both arguments, differentiated.
#[differentiable(order = 2)]
fn turbofish_through(x: f64, t: f64) -> f64 {
    gbump::<f64>(x * t, t) * x
}

#[test]
fn a_generic_helper_called_with_a_turbofish() {
    let mut inputs = Inputs(31008);
    for _ in 0..5 {
        let (x, t) = (inputs.next() * 1.5, inputs.next() * 1.5);
        let p = 0.5 * t.exp() + t * t;
        let (v, g) = turbofish_first_grad(x, t);
        assert_close(v, turbofish_first(x, t), 1e-14, "first value");
        assert_close(
            g,
            2.0 * x * p + t * (x * t).cos(),
            1e-14,
            "first d/dx by hand",
        );
        assert_close(
            g,
            central_difference(|x| turbofish_first(x, t), x),
            1e-7,
            "first d/dx by differences",
        );

        let g_hand = 3.0 * x * x * p + (x * t).sin() + t * t + x * t * (x * t).cos();
        let h_hand = 6.0 * x * p + 2.0 * t * (x * t).cos() - x * t * t * (x * t).sin();
        let (v, g) = turbofish_second_grad(x, t);
        assert_close(v, turbofish_second(x, t), 1e-14, "second value");
        assert_close(g, g_hand, 1e-14, "second d/dx by hand");
        assert_close(
            g,
            central_difference(|x| turbofish_second(x, t), x),
            1e-7,
            "second d/dx by differences",
        );
        let (hv, hg, h) = turbofish_second_hessian(x, t);
        assert_close(hv, v, 1e-14, "Hessian's value");
        assert_close(hg, g_hand, 1e-14, "Hessian's gradient");
        assert_close(h[0][0], h_hand, 1e-13, "d2/dx2 by hand");
        assert_close(
            h[0][0],
            central_difference(|x| turbofish_second_grad(x, t).1, x),
            1e-7,
            "d2/dx2 by differences",
        );

        let s = x * t * t;
        let (v, (gx, gt)) = turbofish_through_grad(x, t);
        assert_close(v, turbofish_through(x, t), 1e-14, "through value");
        assert_close(
            gx,
            s.sin() + t * t + s * s.cos(),
            1e-14,
            "through d/dx by hand",
        );
        assert_close(
            gt,
            x * (2.0 * x * t * s.cos() + 2.0 * t),
            1e-14,
            "through d/dt by hand",
        );
        let grad = |v: &[f64]| {
            let (_, (a, b)) = turbofish_through_grad(v[0], v[1]);
            vec![a, b]
        };
        assert_fd_gradient(
            |v| turbofish_through(v[0], v[1]),
            &[x, t],
            &[gx, gt],
            "through",
        );
        let (_, _, h) = turbofish_through_hessian(x, t);
        assert_hessian_fd(&h, grad, &[x, t], 1e-6, "through Hessian");
    }
}
