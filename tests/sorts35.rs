//! In-place sorts in `O(n log n)` (`sorts.rs`): the generated items compute the permutation std's stable
//! `sort_by` applies (`autodiff_core`'s `stable_order_partial`/`stable_order_total`, integer data with no
//! derivative) and gather a copy by it, whose adjoint is a scatter.
//!
//! Medians, trimmed means, quantiles, weighted sums of the sorted values, descending sorts, ties (equal
//! elements, `+0.0`/`-0.0`), an argsort by key, a sort inside a loop, a sort of a `Vec` built from two
//! slices, `f32` and a generic `T: Float`. Each gradient is checked against the analytic one (the
//! permutation's: position `k`'s derivative to the element std's stable sort puts there, computed here
//! with std's own sort of the indexes) and central differences of the plain body at many random points
//! (away from ties, where the sort is smooth), `_vjp`, `_jvp` and `_grad_into` against `_grad`, and the
//! Hessian (`_hessian`, `_hvp`) against the analytic one and differences of `_grad`.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff::{differentiable, Float};
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, assert_jvp_is_grad_dot,
    min_gap, Inputs, ANALYTIC_TOL, ANALYTIC_TOL_F32,
};

/// The order std's stable sort leaves the indexes of `x` in, by `cmp` of two elements.
fn stable_order(x: &[f64], cmp: impl Fn(f64, f64) -> std::cmp::Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| cmp(x[a], x[b]));
    order
}

fn ascending(x: &[f64]) -> Vec<usize> {
    stable_order(x, |a, b| a.partial_cmp(&b).unwrap())
}

fn descending(x: &[f64]) -> Vec<usize> {
    stable_order(x, |a, b| b.partial_cmp(&a).unwrap())
}

/// Random points of `n` elements in `[-2, 2)` for `n` in `sizes`, each at least `1e-3` apart from the
/// others (central differences step over no reordering there), `per_size` of each size.
fn points(seed: u64, sizes: std::ops::Range<usize>, per_size: usize) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    let mut out = Vec::new();
    for n in sizes {
        let mut made = 0;
        while made < per_size {
            let x: Vec<f64> = inputs.vec(n).iter().map(|v| 2.0 * v).collect();
            if min_gap(&x) > 1e-3 {
                out.push(x);
                made += 1;
            }
        }
    }
    out
}

/// A value and its gradient.
type WithGradient = (f64, Vec<f64>);
/// `_jvp`'s value and directional derivative.
type WithTangent = (f64, f64);
/// `_hessian`'s value, gradient and Hessian.
type WithHessian = (f64, Vec<f64>, Vec<Vec<f64>>);
/// `_hvp`'s value, gradient and Hessian-vector product.
type WithHvp = (f64, Vec<f64>, Vec<f64>);

/// The generated items of a function of one slice (other arguments fixed by the closures).
struct Items<'a> {
    f: &'a dyn Fn(&[f64]) -> f64,
    plain: &'a dyn Fn(&[f64]) -> f64,
    grad: &'a dyn Fn(&[f64]) -> WithGradient,
    vjp: &'a dyn Fn(&[f64], f64) -> WithGradient,
    jvp: &'a dyn Fn(&[f64], Vec<f64>) -> WithTangent,
    grad_into: &'a dyn Fn(&[f64], &mut [f64]) -> f64,
    hessian: &'a dyn Fn(&[f64]) -> WithHessian,
    hvp: &'a dyn Fn(&[f64], Vec<f64>) -> WithHvp,
}

/// Builds [`Items`] of `name(x: &[f64], extra..)` from its generated items, the extra arguments given.
macro_rules! items {
    ($f:ident, $plain:ident, $grad:ident, $vjp:ident, $jvp:ident, $into:ident, $hessian:ident, $hvp:ident $(, $extra:expr)*) => {
        Items {
            f: &|x| $f(x $(, $extra)*),
            plain: &|x| $plain(x $(, $extra)*),
            grad: &|x| $grad(x $(, $extra)*),
            vjp: &|x, d| $vjp(x $(, $extra)*, d),
            jvp: &|x, t| $jvp(x $(, $extra)*, t),
            grad_into: &|x, g| $into(x $(, $extra)*, g),
            hessian: &|x| $hessian(x $(, $extra)*),
            hvp: &|x, v| $hvp(x $(, $extra)*, v),
        }
    };
}

/// Every generated item at `x` against the analytic value, gradient and Hessian, central differences of
/// the plain body, and differences of the gradient.
#[track_caller]
fn check(what: &str, x: &[f64], items: &Items, value: f64, gradient: &[f64], hessian: &[Vec<f64>]) {
    let n = x.len();
    assert_eq!(
        (items.f)(x),
        (items.plain)(x),
        "{what}: the function as written"
    );
    let (v, g) = (items.grad)(x);
    assert_close(v, value, ANALYTIC_TOL, &format!("{what}: value"));
    assert_all_close(&g, gradient, ANALYTIC_TOL, &format!("{what}: gradient"));
    assert_fd_gradient(items.plain, x, &g, what);
    let (v2, g2) = (items.vjp)(x, -1.75);
    assert_close(v2, value, ANALYTIC_TOL, &format!("{what}: _vjp's value"));
    let scaled: Vec<f64> = g.iter().map(|d| -1.75 * d).collect();
    assert_all_close(&g2, &scaled, ANALYTIC_TOL, &format!("{what}: _vjp"));
    let tangent: Vec<f64> = (0..n).map(|i| 0.7 - 0.3 * i as f64).collect();
    let (v3, dot) = (items.jvp)(x, tangent.clone());
    assert_close(v3, value, ANALYTIC_TOL, &format!("{what}: _jvp's value"));
    assert_jvp_is_grad_dot(dot, &g, &tangent, &format!("{what}: _jvp"));
    let mut into = vec![f64::NAN; n];
    let v4 = (items.grad_into)(x, &mut into);
    assert_close(
        v4,
        value,
        ANALYTIC_TOL,
        &format!("{what}: _grad_into's value"),
    );
    assert_all_close(&into, &g, ANALYTIC_TOL, &format!("{what}: _grad_into"));
    let (v5, g5, h) = (items.hessian)(x);
    assert_close(
        v5,
        value,
        ANALYTIC_TOL,
        &format!("{what}: _hessian's value"),
    );
    assert_all_close(
        &g5,
        &g,
        ANALYTIC_TOL,
        &format!("{what}: _hessian's gradient"),
    );
    for i in 0..n {
        assert_all_close(
            &h[i],
            &hessian[i],
            ANALYTIC_TOL,
            &format!("{what}: Hessian row {i}"),
        );
    }
    assert_hessian_fd(
        &h,
        |p| (items.grad)(p).1,
        x,
        1e-6,
        &format!("{what}: Hessian by differences"),
    );
    let (v6, g6, hv) = (items.hvp)(x, tangent.clone());
    assert_close(v6, value, ANALYTIC_TOL, &format!("{what}: _hvp's value"));
    assert_all_close(&g6, &g, ANALYTIC_TOL, &format!("{what}: _hvp's gradient"));
    let expected: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| hessian[i][j] * tangent[j]).sum())
        .collect();
    assert_all_close(&hv, &expected, ANALYTIC_TOL, &format!("{what}: _hvp"));
}

fn zeros(n: usize) -> Vec<Vec<f64>> {
    vec![vec![0.0; n]; n]
}

// 1. Statistics of a sorted copy.

twin! {
    #[differentiable(order = 2)]
    fn median / median_plain(x: &[f64]) -> f64 {
        let n = x.len();
        let mut v = x.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        if n % 2 == 1 {
            v[n / 2]
        } else {
            0.5 * (v[n / 2 - 1] + v[n / 2])
        }
    }
}

twin! {
    #[differentiable(order = 2)]
    fn trimmed_mean / trimmed_mean_plain(x: &[f64], k: usize) -> f64 {
        let n = x.len();
        let mut v = x.to_vec();
        v.sort_unstable_by(|a, b| a.total_cmp(b));
        let mut s = 0.0;
        for i in k..n - k {
            s += v[i];
        }
        s / (n - 2 * k) as f64
    }
}

twin! {
    #[differentiable(order = 2, wrt(x))]
    fn quantile / quantile_plain(x: &[f64], q: f64) -> f64 {
        let n = x.len();
        let mut v = x.to_vec();
        v.sort_by(f64::total_cmp);
        let at = q * (n - 1) as f64;
        let lo = at.floor() as usize;
        let frac = at - lo as f64;
        v[lo] * (1.0 - frac) + v[lo + 1] * frac
    }
}

twin! {
    #[differentiable(order = 2)]
    fn weighted_squares / weighted_squares_plain(x: &[f64], w: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let mut s = 0.0;
        for k in 0..v.len() {
            s += v[k] * v[k] * w[k];
        }
        s
    }
}

twin! {
    #[differentiable(order = 2)]
    fn descending_cubes / descending_cubes_plain(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.sort_by(|a, b| b.partial_cmp(a).unwrap());
        let mut s = 0.0;
        for k in 0..v.len() {
            s += v[k].powi(3) * (k as f64 + 1.0);
        }
        s
    }
}

twin! {
    #[differentiable(order = 2)]
    fn descending_total / descending_total_plain(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.sort_unstable_by(|a, b| b.total_cmp(a));
        v[0] * v[1] - v[v.len() - 1].sin()
    }
}

#[test]
fn medians_trimmed_means_and_quantiles_have_the_permutations_gradient() {
    for x in points(3501, 3..12, 6) {
        let n = x.len();
        let up = ascending(&x);
        let mut g = vec![0.0; n];
        let value = if n % 2 == 1 {
            g[up[n / 2]] = 1.0;
            x[up[n / 2]]
        } else {
            g[up[n / 2 - 1]] = 0.5;
            g[up[n / 2]] = 0.5;
            0.5 * (x[up[n / 2 - 1]] + x[up[n / 2]])
        };
        let items = items!(
            median,
            median_plain,
            median_grad,
            median_vjp,
            median_jvp,
            median_grad_into,
            median_hessian,
            median_hvp
        );
        check("median", &x, &items, value, &g, &zeros(n));

        let k = (n - 1) / 2 / 2;
        let mut g = vec![0.0; n];
        let mut value = 0.0;
        for i in k..n - k {
            value += x[up[i]] / (n - 2 * k) as f64;
            g[up[i]] = 1.0 / (n - 2 * k) as f64;
        }
        let items = items!(
            trimmed_mean,
            trimmed_mean_plain,
            trimmed_mean_grad,
            trimmed_mean_vjp,
            trimmed_mean_jvp,
            trimmed_mean_grad_into,
            trimmed_mean_hessian,
            trimmed_mean_hvp,
            k
        );
        check("trimmed_mean", &x, &items, value, &g, &zeros(n));

        for q in [0.1, 0.37, 0.5, 0.9] {
            let at = q * (n - 1) as f64;
            let lo = at.floor() as usize;
            let frac = at - lo as f64;
            let mut g = vec![0.0; n];
            g[up[lo]] += 1.0 - frac;
            g[up[lo + 1]] += frac;
            let value = x[up[lo]] * (1.0 - frac) + x[up[lo + 1]] * frac;
            let items = items!(
                quantile,
                quantile_plain,
                quantile_grad,
                quantile_vjp,
                quantile_jvp,
                quantile_grad_into,
                quantile_hessian,
                quantile_hvp,
                q
            );
            check("quantile", &x, &items, value, &g, &zeros(n));
        }
    }
}

#[test]
fn nonlinear_statistics_of_the_sorted_values_have_the_permuted_hessian() {
    for x in points(3502, 2..10, 6) {
        let n = x.len();
        let w: Vec<f64> = (0..n)
            .map(|k| 0.4 + 0.3 * k as f64 - 0.05 * (k * k) as f64)
            .collect();
        let up = ascending(&x);
        let (mut value, mut gx, mut gw, mut h) = (0.0, vec![0.0; n], vec![0.0; n], zeros(2 * n));
        for k in 0..n {
            let (e, v) = (up[k], x[up[k]]);
            value += v * v * w[k];
            gx[e] = 2.0 * v * w[k];
            gw[k] = v * v;
            h[e][e] = 2.0 * w[k];
            h[e][n + k] = 2.0 * v;
            h[n + k][e] = 2.0 * v;
        }
        // Flattened `(x, w)`.
        let xw = |p: &[f64]| (p[..n].to_vec(), p[n..].to_vec());
        let flat = |(gx, gw): (Vec<f64>, Vec<f64>)| gx.into_iter().chain(gw).collect::<Vec<f64>>();
        let items = Items {
            f: &|p| weighted_squares(&xw(p).0, &xw(p).1),
            plain: &|p| weighted_squares_plain(&xw(p).0, &xw(p).1),
            grad: &|p| {
                let (v, g) = weighted_squares_grad(&xw(p).0, &xw(p).1);
                (v, flat(g))
            },
            vjp: &|p, d| {
                let (v, g) = weighted_squares_vjp(&xw(p).0, &xw(p).1, d);
                (v, flat(g))
            },
            jvp: &|p, t| {
                weighted_squares_jvp(&xw(p).0, &xw(p).1, (t[..n].to_vec(), t[n..].to_vec()))
            },
            grad_into: &|p, g| {
                let (gx, gw) = g.split_at_mut(n);
                weighted_squares_grad_into(&xw(p).0, &xw(p).1, (gx, gw))
            },
            hessian: &|p| {
                let (v, g, h) = weighted_squares_hessian(&xw(p).0, &xw(p).1);
                (v, flat(g), h)
            },
            hvp: &|p, t| {
                let (v, g, hv) =
                    weighted_squares_hvp(&xw(p).0, &xw(p).1, (t[..n].to_vec(), t[n..].to_vec()));
                (v, flat(g), flat(hv))
            },
        };
        let at: Vec<f64> = x.iter().chain(&w).copied().collect();
        check("weighted_squares", &at, &items, value, &flat((gx, gw)), &h);

        let down = descending(&x);
        let (mut value, mut g, mut h) = (0.0, vec![0.0; n], zeros(n));
        for k in 0..n {
            let (e, v, c) = (down[k], x[down[k]], k as f64 + 1.0);
            value += v.powi(3) * c;
            g[e] = 3.0 * v * v * c;
            h[e][e] = 6.0 * v * c;
        }
        let items = items!(
            descending_cubes,
            descending_cubes_plain,
            descending_cubes_grad,
            descending_cubes_vjp,
            descending_cubes_jvp,
            descending_cubes_grad_into,
            descending_cubes_hessian,
            descending_cubes_hvp
        );
        check("descending_cubes", &x, &items, value, &g, &h);

        let (a, b, c) = (down[0], down[1], down[n - 1]);
        let mut g = vec![0.0; n];
        let mut h = zeros(n);
        g[a] += x[b];
        g[b] += x[a];
        g[c] -= x[c].cos();
        h[a][b] += 1.0;
        h[b][a] += 1.0;
        h[c][c] += x[c].sin();
        let value = x[a] * x[b] - x[c].sin();
        let items = items!(
            descending_total,
            descending_total_plain,
            descending_total_grad,
            descending_total_vjp,
            descending_total_jvp,
            descending_total_grad_into,
            descending_total_hessian,
            descending_total_hvp
        );
        check("descending_total", &x, &items, value, &g, &h);
    }
}

// 2. Ties: equal elements, and `+0.0`/`-0.0`, go where std's stable sort puts them.

twin! {
    #[differentiable(order = 2)]
    fn ranked / ranked_plain(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let mut s = 0.0;
        for k in 0..v.len() {
            s += v[k] * (k as f64 + 1.0) + v[k] * v[k] * k as f64;
        }
        s
    }
}

twin! {
    #[differentiable(order = 2)]
    fn ranked_total / ranked_total_plain(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.sort_by(|a, b| b.total_cmp(a));
        let mut s = 0.0;
        for k in 0..v.len() {
            s += v[k] * (k as f64 + 1.0) + v[k] * v[k] * k as f64;
        }
        s
    }
}

/// The gradient and Hessian of `sum_k v[k] (k + 1) + v[k]² k` of the values in `order`.
fn ranked_analytic(x: &[f64], order: &[usize]) -> WithHessian {
    let n = x.len();
    let (mut value, mut g, mut h) = (0.0, vec![0.0; n], zeros(n));
    for k in 0..n {
        let (e, v) = (order[k], x[order[k]]);
        value += v * (k as f64 + 1.0) + v * v * k as f64;
        g[e] = k as f64 + 1.0 + 2.0 * v * k as f64;
        h[e][e] = 2.0 * k as f64;
    }
    (value, g, h)
}

#[test]
fn ties_and_signed_zeros_go_where_the_stable_sort_puts_them() {
    let cases: [&[f64]; 5] = [
        &[0.5, 0.2, 0.5, 0.5, 0.9],
        &[1.0, 1.0, 1.0, 1.0],
        &[0.0, -0.0, 0.0, -0.0, -1.0, 1.0],
        &[-0.0, 0.0, 2.0, -0.0, 2.0],
        &[3.0, -1.0, 3.0, -1.0, 0.0, -0.0],
    ];
    for x in cases {
        let n = x.len();
        let tangent: Vec<f64> = (0..n).map(|i| 0.5 + i as f64).collect();
        // `partial_cmp`: `-0.0 == 0.0`, kept in their order.
        let up = ascending(x);
        let (value, g, h) = ranked_analytic(x, &up);
        let (v, got) = ranked_grad(x);
        assert_eq!(v, value, "ranked at {x:?}");
        assert_eq!(ranked(x), ranked_plain(x));
        assert_eq!(ranked_total(x).to_bits(), ranked_total_plain(x).to_bits());
        assert_all_close(&got, &g, ANALYTIC_TOL, &format!("ranked ties at {x:?}"));
        let (_, dot) = ranked_jvp(x, tangent.clone());
        assert_jvp_is_grad_dot(dot, &g, &tangent, "ranked ties _jvp");
        let (_, _, got_h) = ranked_hessian(x);
        assert_eq!(got_h, h, "ranked ties Hessian at {x:?}");
        // `total_cmp`, descending: `0.0 > -0.0`.
        let down = stable_order(x, |a, b| b.total_cmp(&a));
        let (value, g, h) = ranked_analytic(x, &down);
        let (v, got) = ranked_total_grad(x);
        assert_eq!(v, value, "ranked_total at {x:?}");
        assert_eq!(
            v.to_bits(),
            ranked_total_plain(x).to_bits(),
            "ranked_total's value, signed zeros"
        );
        assert_all_close(
            &got,
            &g,
            ANALYTIC_TOL,
            &format!("ranked_total ties at {x:?}"),
        );
        let (_, _, got_h) = ranked_total_hessian(x);
        assert_eq!(got_h, h, "ranked_total ties Hessian at {x:?}");
    }
    // Spelled out: sorted, 0.2 (index 1), then 0.5 at indexes 0, 2, 3 in their order, then 0.9.
    let (_, g) = ranked_grad(&[0.5, 0.2, 0.5, 0.5, 0.9]);
    assert_eq!(
        g,
        vec![
            2.0 + 2.0 * 0.5,
            1.0,
            3.0 + 4.0 * 0.5,
            4.0 + 6.0 * 0.5,
            5.0 + 8.0 * 0.9
        ]
    );
    // Descending by `total_cmp`: 0.0 (index 1) before -0.0 (index 0).
    let (_, g) = ranked_total_grad(&[-0.0, 0.0]);
    assert_eq!(g, vec![2.0, 1.0]);
}

#[test]
fn a_nan_panics_in_the_generated_items_as_in_the_function_for_partial_cmp_only() {
    let x = [0.5, f64::NAN, 0.1];
    let message = |r: Result<(), Box<dyn std::any::Any + Send>>| {
        let payload = r.expect_err("a NaN compared by `partial_cmp(..).unwrap()` panics");
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    };
    let plain = message(std::panic::catch_unwind(|| {
        ranked_plain(&x);
    }));
    let grad = message(std::panic::catch_unwind(|| {
        ranked_grad(&x);
    }));
    let jvp = message(std::panic::catch_unwind(|| {
        ranked_jvp(&x, vec![1.0; 3]);
    }));
    let hessian = message(std::panic::catch_unwind(|| {
        ranked_hessian(&x);
    }));
    for got in [&grad, &jvp, &hessian] {
        assert_eq!(got, &plain);
    }
    assert!(
        plain.contains("called `Option::unwrap()` on a `None` value"),
        "{plain}"
    );
    // `total_cmp` sorts a NaN last (descending: first), no panic.
    let (v, g) = ranked_total_grad(&x);
    assert!(v.is_nan() && ranked_total_plain(&x).is_nan());
    assert_eq!(g.len(), 3);
}

// 3. An argsort by key, a sort in a loop, a sort of a `Vec` built from two slices.

twin! {
    #[differentiable(order = 2)]
    fn argsort_weights / argsort_weights_plain(x: &[f64]) -> f64 {
        let mut idx: Vec<usize> = (0..x.len()).collect();
        idx.sort_by(|&i, &j| x[i].partial_cmp(&x[j]).unwrap());
        let mut s = 0.0;
        for k in 0..idx.len() {
            s += x[idx[k]] * x[idx[k]] * (k as f64 - 1.5);
        }
        s + x[idx[0]] * x[idx[idx.len() - 1]]
    }
}

twin! {
    #[differentiable(order = 2)]
    fn sorted_rounds / sorted_rounds_plain(x: &[f64]) -> f64 {
        let n = x.len();
        let mut v = x.to_vec();
        let mut acc = 0.0;
        for r in 0..3 {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            acc += v[0] * v[n - 1] * (r as f64 + 1.0);
            for i in 0..n {
                v[i] = v[i] * v[i] - 0.5 * x[i];
            }
        }
        acc
    }
}

twin! {
    #[differentiable(order = 2)]
    fn merged_median / merged_median_plain(x: &[f64], y: &[f64]) -> f64 {
        let mut v = Vec::with_capacity(x.len() + y.len());
        for &a in x {
            v.push(a);
        }
        for &b in y {
            v.push(2.0 * b);
        }
        v.sort_by(|a, b| a.total_cmp(b));
        let m = v.len() / 2;
        v[m] * v[m] + v[0]
    }
}

#[test]
fn an_argsort_by_key_sorts_indexes_with_no_derivative_of_its_own() {
    for x in points(3503, 2..10, 6) {
        let n = x.len();
        let up = ascending(&x);
        let (mut value, mut g, mut h) = (0.0, vec![0.0; n], zeros(n));
        for k in 0..n {
            let (e, c) = (up[k], k as f64 - 1.5);
            value += x[e] * x[e] * c;
            g[e] += 2.0 * x[e] * c;
            h[e][e] += 2.0 * c;
        }
        let (a, b) = (up[0], up[n - 1]);
        value += x[a] * x[b];
        g[a] += x[b];
        g[b] += x[a];
        h[a][b] += 1.0;
        h[b][a] += 1.0;
        let items = items!(
            argsort_weights,
            argsort_weights_plain,
            argsort_weights_grad,
            argsort_weights_vjp,
            argsort_weights_jvp,
            argsort_weights_grad_into,
            argsort_weights_hessian,
            argsort_weights_hvp
        );
        check("argsort_weights", &x, &items, value, &g, &h);
    }
}

/// `sorted_rounds` by hand: the values and their Jacobian rows `dv/dx` carried through each round (a sort
/// permutes the rows), the gradient of `acc` accumulated from them.
fn sorted_rounds_analytic(x: &[f64]) -> (f64, Vec<f64>) {
    let n = x.len();
    let mut v = x.to_vec();
    let mut jac: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    let (mut acc, mut g) = (0.0, vec![0.0; n]);
    for r in 0..3 {
        let order = ascending(&v);
        v = order.iter().map(|&e| v[e]).collect();
        jac = order.iter().map(|&e| jac[e].clone()).collect();
        let c = r as f64 + 1.0;
        acc += v[0] * v[n - 1] * c;
        for j in 0..n {
            g[j] += c * (v[n - 1] * jac[0][j] + v[0] * jac[n - 1][j]);
        }
        for i in 0..n {
            for j in 0..n {
                jac[i][j] *= 2.0 * v[i];
            }
            jac[i][i] -= 0.5;
            v[i] = v[i] * v[i] - 0.5 * x[i];
        }
    }
    (acc, g)
}

#[test]
fn a_sort_in_a_loop_and_a_sort_of_a_vec_built_from_two_slices() {
    for x in points(3504, 2..8, 6) {
        let n = x.len();
        // Differences need the values sorted in every round to stay apart.
        let mut gaps_ok = true;
        let mut v = x.clone();
        for _ in 0..3 {
            gaps_ok &= min_gap(&v) > 1e-3;
            v = v.iter().zip(&x).map(|(a, b)| a * a - 0.5 * b).collect();
        }
        if !gaps_ok {
            continue;
        }
        let (value, g) = sorted_rounds_analytic(&x);
        let (got_value, got) = sorted_rounds_grad(&x);
        assert_close(got_value, value, ANALYTIC_TOL, "sorted_rounds value");
        assert_eq!(sorted_rounds(&x), sorted_rounds_plain(&x));
        assert_all_close(&got, &g, 1e-9, "sorted_rounds gradient");
        assert_fd_gradient(sorted_rounds_plain, &x, &got, "sorted_rounds");
        let tangent: Vec<f64> = (0..n).map(|i| 0.3 * i as f64 - 0.4).collect();
        let (_, dot) = sorted_rounds_jvp(&x, tangent.clone());
        assert_jvp_is_grad_dot(dot, &got, &tangent, "sorted_rounds _jvp");
        let (_, hg, h) = sorted_rounds_hessian(&x);
        assert_all_close(&hg, &got, 1e-9, "sorted_rounds _hessian's gradient");
        assert_hessian_fd(
            &h,
            |p| sorted_rounds_grad(p).1,
            &x,
            1e-6,
            "sorted_rounds Hessian",
        );
    }
    for x in points(3505, 2..7, 5) {
        let y: Vec<f64> = x.iter().map(|a| 0.31 - 0.6 * a).collect();
        let merged: Vec<f64> = x.iter().copied().chain(y.iter().map(|b| 2.0 * b)).collect();
        if min_gap(&merged) < 1e-3 {
            continue;
        }
        let (n, m) = (x.len(), merged.len());
        let up = stable_order(&merged, |a, b| a.total_cmp(&b));
        let (mid, low) = (up[m / 2], up[0]);
        let value = merged[mid] * merged[mid] + merged[low];
        // d merged[e] / d (x, y): 1 for an element of x, 2 for one of y.
        let (mut g, mut h) = (vec![0.0; 2 * n], zeros(2 * n));
        let scale = |e: usize| if e < n { 1.0 } else { 2.0 };
        g[mid] += 2.0 * merged[mid] * scale(mid);
        g[low] += scale(low);
        h[mid][mid] = 2.0 * scale(mid) * scale(mid);
        assert_eq!(merged_median(&x, &y), merged_median_plain(&x, &y));
        let (got_value, (gx, gy)) = merged_median_grad(&x, &y);
        assert_close(got_value, value, ANALYTIC_TOL, "merged_median value");
        let got: Vec<f64> = gx.into_iter().chain(gy).collect();
        assert_all_close(&got, &g, ANALYTIC_TOL, "merged_median gradient");
        let at: Vec<f64> = x.iter().chain(&y).copied().collect();
        assert_fd_gradient(
            |p| merged_median_plain(&p[..n], &p[n..]),
            &at,
            &got,
            "merged_median",
        );
        let (_, _, got_h) = merged_median_hessian(&x, &y);
        for i in 0..2 * n {
            assert_all_close(&got_h[i], &h[i], ANALYTIC_TOL, "merged_median Hessian");
        }
        let flat_grad = |p: &[f64]| {
            let (_, (gx, gy)) = merged_median_grad(&p[..n], &p[n..]);
            gx.into_iter().chain(gy).collect::<Vec<f64>>()
        };
        assert_hessian_fd(
            &got_h,
            flat_grad,
            &at,
            1e-6,
            "merged_median Hessian by differences",
        );
    }
}

// 4. `f32`, a generic `T: Float`, and many elements.

twin! {
    #[differentiable(order = 2)]
    fn squares_f32 / squares_f32_plain(x: &[f32]) -> f32 {
        let mut v = x.to_vec();
        v.sort_by(f32::total_cmp);
        let mut s = 0.0;
        for k in 0..v.len() {
            s += v[k] * v[k] * (k as f32 + 0.5);
        }
        s
    }
}

#[differentiable(order = 2)]
fn generic_spread<T: Float>(x: &[T]) -> T {
    let n = x.len();
    let mut v = x.to_vec();
    v.sort_by(|a, b| b.partial_cmp(a).unwrap());
    (v[0] - v[n - 1]) * (v[0] - v[n - 1]) + v[n / 2]
}

/// `generic_spread` as written (`twin!` takes no generics).
fn generic_spread_plain<T: Float>(x: &[T]) -> T {
    let n = x.len();
    let mut v = x.to_vec();
    v.sort_by(|a, b| b.partial_cmp(a).unwrap());
    (v[0] - v[n - 1]) * (v[0] - v[n - 1]) + v[n / 2]
}

#[test]
fn f32_and_generic_sorts() {
    for x in points(3506, 2..9, 5) {
        let n = x.len();
        let x32: Vec<f32> = x.iter().map(|&a| a as f32).collect();
        let order = stable_order(
            &x32.iter().map(|&a| f64::from(a)).collect::<Vec<_>>(),
            |a, b| a.total_cmp(&b),
        );
        let (value, g) = squares_f32_grad(&x32);
        let (mut want, mut want_g) = (0.0f64, vec![0.0f64; n]);
        for k in 0..n {
            let v = f64::from(x32[order[k]]);
            want += v * v * (k as f64 + 0.5);
            want_g[order[k]] = 2.0 * v * (k as f64 + 0.5);
        }
        assert_close(
            f64::from(value),
            want,
            ANALYTIC_TOL_F32,
            "squares_f32 value",
        );
        let g64: Vec<f64> = g.iter().map(|&d| f64::from(d)).collect();
        assert_all_close(&g64, &want_g, ANALYTIC_TOL_F32, "squares_f32 gradient");
        assert_eq!(squares_f32(&x32), squares_f32_plain(&x32));
        let (_, _, h) = squares_f32_hessian(&x32);
        for k in 0..n {
            let e = order[k];
            for j in 0..n {
                let expected = if j == e { 2.0 * (k as f32 + 0.5) } else { 0.0 };
                assert!(
                    (h[e][j] - expected).abs() <= 1e-5 * expected.abs().max(1.0),
                    "squares_f32 Hessian"
                );
            }
        }

        // Generic, at f64 and f32: descending by `partial_cmp`.
        let down = descending(&x);
        let (a, b, c) = (down[0], down[n - 1], down[n / 2]);
        let d = x[a] - x[b];
        let value = d * d + x[c];
        let mut g = vec![0.0; n];
        let mut h = zeros(n);
        g[a] += 2.0 * d;
        g[b] -= 2.0 * d;
        g[c] += 1.0;
        h[a][a] += 2.0;
        h[b][b] += 2.0;
        h[a][b] -= 2.0;
        h[b][a] -= 2.0;
        let items = items!(
            generic_spread,
            generic_spread_plain,
            generic_spread_grad,
            generic_spread_vjp,
            generic_spread_jvp,
            generic_spread_grad_into,
            generic_spread_hessian,
            generic_spread_hvp
        );
        check("generic_spread", &x, &items, value, &g, &h);
        let (v32, g32) = generic_spread_grad(&x32);
        assert_close(f64::from(v32), value, 1e-5, "generic_spread::<f32> value");
        let g32: Vec<f64> = g32.iter().map(|&d| f64::from(d)).collect();
        assert_all_close(&g32, &g, 1e-4, "generic_spread::<f32> gradient");
    }
}

#[test]
fn thousands_of_elements() {
    // A median of 4001 elements and the weighted squares of 3000: the gradient is still the
    // permutation's (the insertion sort this replaces took `n²/2` comparisons here).
    let mut inputs = Inputs(3507);
    let x = inputs.vec(4001);
    let up = ascending(&x);
    let (value, g) = median_grad(&x);
    assert_eq!(value, x[up[2000]]);
    assert!(g
        .iter()
        .enumerate()
        .all(|(i, &d)| d == f64::from(u8::from(i == up[2000]))));
    let x = inputs.vec(3000);
    let w = inputs.vec(3000);
    let up = ascending(&x);
    let (_, (gx, gw)) = weighted_squares_grad(&x, &w);
    for k in 0..3000 {
        assert_close(
            gx[up[k]],
            2.0 * x[up[k]] * w[k],
            ANALYTIC_TOL,
            "weighted_squares, n = 3000",
        );
        assert_close(
            gw[k],
            x[up[k]] * x[up[k]],
            ANALYTIC_TOL,
            "weighted_squares, n = 3000",
        );
    }
}

// 5. A first-order function that sorts, called by an `order = 2` function (through its generic copy,
// on dual numbers), and one the census makes an `order = 2` twin of (it reads no `twin!`).

/// The sum of the `k` largest squares, by an argsort of the magnitudes.
#[differentiable]
fn top_squares(x: &[f64], k: usize) -> f64 {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&i, &j| x[j].abs().total_cmp(&x[i].abs()));
    let mut s = 0.0;
    for r in 0..k {
        s += x[idx[r]] * x[idx[r]];
    }
    s
}

/// The mean of the sorted values weighted by their rank, squared.
#[differentiable]
fn rank_weighted(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap());
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * (i as f64 + 1.0);
    }
    s * s / v.len() as f64
}

#[differentiable(order = 2)]
fn calls_sorting(x: &[f64]) -> f64 {
    top_squares(x, 2) * rank_weighted(x)
}

#[test]
fn an_order_2_caller_differentiates_first_order_sorts_through_their_generic_copies() {
    for x in points(3508, 3..9, 5) {
        let n = x.len();
        let by_magnitude = stable_order(&x, |a, b| b.abs().total_cmp(&a.abs()));
        let (a, b) = (by_magnitude[0], by_magnitude[1]);
        let top = x[a] * x[a] + x[b] * x[b];
        let mut g_top = vec![0.0; n];
        g_top[a] = 2.0 * x[a];
        g_top[b] = 2.0 * x[b];
        let (v, g) = top_squares_grad(&x, 2);
        assert_close(v, top, ANALYTIC_TOL, "top_squares");
        assert_all_close(&g, &g_top, ANALYTIC_TOL, "top_squares gradient");
        assert_fd_gradient(|p| top_squares(p, 2), &x, &g, "top_squares");

        let up = ascending(&x);
        let s: f64 = (0..n).map(|i| x[up[i]] * (i as f64 + 1.0)).sum();
        let rank = s * s / n as f64;
        let mut ds = vec![0.0; n];
        for i in 0..n {
            ds[up[i]] = i as f64 + 1.0;
        }
        let g_rank: Vec<f64> = ds.iter().map(|d| 2.0 * s * d / n as f64).collect();
        let (v, g) = rank_weighted_grad(&x);
        assert_close(v, rank, ANALYTIC_TOL, "rank_weighted");
        assert_all_close(&g, &g_rank, ANALYTIC_TOL, "rank_weighted gradient");
        assert_fd_gradient(rank_weighted, &x, &g, "rank_weighted");

        // (top · rank)'' = top'' rank + top' rank'ᵀ + rank' top'ᵀ + top rank''.
        let (v, g, h) = calls_sorting_hessian(&x);
        assert_close(v, top * rank, ANALYTIC_TOL, "calls_sorting");
        let want_g: Vec<f64> = (0..n).map(|i| g_top[i] * rank + top * g_rank[i]).collect();
        assert_all_close(&g, &want_g, ANALYTIC_TOL, "calls_sorting gradient");
        for i in 0..n {
            for j in 0..n {
                let top_h = if i == j && (i == a || i == b) {
                    2.0
                } else {
                    0.0
                };
                let rank_h = 2.0 * ds[i] * ds[j] / n as f64;
                let want =
                    top_h * rank + g_top[i] * g_rank[j] + g_rank[i] * g_top[j] + top * rank_h;
                assert_close(h[i][j], want, ANALYTIC_TOL, "calls_sorting Hessian");
            }
        }
        assert_hessian_fd(
            &h,
            |p| calls_sorting_grad(p).1,
            &x,
            1e-6,
            "calls_sorting Hessian by differences",
        );
    }
}

// 6. A `&mut` slice sorted in place: an output parameter the body fills and sorts, and one whose incoming
// values are sorted.

/// `out` the squares of `x`, sorted descending.
#[differentiable]
fn sorted_squares(x: &[f64], out: &mut [f64]) {
    for i in 0..x.len() {
        out[i] = x[i] * x[i];
    }
    out.sort_by(|a, b| b.partial_cmp(a).unwrap());
}

/// `v` sorted in place; its largest times its smallest.
#[differentiable(order = 2)]
fn spread_in_place(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() - 1] * v[0]
}

#[test]
fn a_mut_slice_sorted_in_place() {
    for x in points(3509, 2..8, 4) {
        let n = x.len();
        let squares: Vec<f64> = x.iter().map(|a| a * a).collect();
        if min_gap(&squares) < 1e-3 {
            continue;
        }
        let down = descending(&squares);
        let d_out: Vec<f64> = (0..n).map(|k| 1.0 + 0.5 * k as f64).collect();
        let mut out = vec![0.0; n];
        // `out`'s incoming values, every one overwritten before the sort reads them, get no cotangent.
        let (g, g_incoming) = sorted_squares_vjp(&x, &mut out, &d_out);
        assert_eq!(g_incoming, vec![0.0; n], "sorted_squares' incoming out");
        let want_out: Vec<f64> = down.iter().map(|&e| squares[e]).collect();
        assert_eq!(out, want_out, "sorted_squares' output");
        let mut want_g = vec![0.0; n];
        for k in 0..n {
            want_g[down[k]] = 2.0 * x[down[k]] * d_out[k];
        }
        assert_all_close(&g, &want_g, ANALYTIC_TOL, "sorted_squares _vjp");
        let plain = |p: &[f64]| {
            let mut out = vec![0.0; n];
            sorted_squares(p, &mut out);
            out.iter().zip(&d_out).map(|(o, d)| o * d).sum::<f64>()
        };
        assert_fd_gradient(plain, &x, &g, "sorted_squares");

        let up = ascending(&x);
        let (lo, hi) = (up[0], up[n - 1]);
        let mut v = x.clone();
        let (value, g) = spread_in_place_grad(&mut v);
        assert_eq!(value, x[hi] * x[lo]);
        let mut sorted = x.clone();
        assert_eq!(spread_in_place(&mut sorted), value);
        assert_eq!(
            v, sorted,
            "spread_in_place_grad sorts `v` as the function does"
        );
        let mut want = vec![0.0; n];
        want[hi] += x[lo];
        want[lo] += x[hi];
        assert_all_close(&g, &want, ANALYTIC_TOL, "spread_in_place gradient");
        let (_, _, h) = spread_in_place_hessian(&mut x.clone());
        let mut want_h = zeros(n);
        want_h[lo][hi] = 1.0;
        want_h[hi][lo] = 1.0;
        assert_eq!(h, want_h, "spread_in_place Hessian");
    }
}

// 7. `sort_by_key` (and `sort_by_cached_key`): a stable sort by keys of an `Ord` type, here of integers
// computed from the values (a cast drops the derivative: the key is piecewise constant).

twin! {
    #[differentiable(order = 2)]
    fn by_bucket / by_bucket_plain(x: &[f64], group: &[usize]) -> f64 {
        let mut idx: Vec<usize> = (0..x.len()).collect();
        idx.sort_by_key(|&i| group[i]);
        let mut s = 0.0;
        for k in 0..idx.len() {
            s += x[idx[k]] * x[idx[k]] * (k as f64 + 1.0);
        }
        s
    }
}

twin! {
    #[differentiable(order = 2)]
    fn by_rounded / by_rounded_plain(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.sort_by_cached_key(|a| (a * 4.0).floor() as i64);
        v[0] * v[v.len() - 1] + v[1].powi(3)
    }
}

#[test]
fn sort_by_key_is_the_stable_sort_by_the_keys() {
    for x in points(3510, 2..9, 5) {
        let n = x.len();
        let group: Vec<usize> = (0..n).map(|i| (i * 7 + 3) % 3).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| group[i]);
        let (mut value, mut g, mut h) = (0.0, vec![0.0; n], zeros(n));
        for k in 0..n {
            let (e, c) = (order[k], k as f64 + 1.0);
            value += x[e] * x[e] * c;
            g[e] = 2.0 * x[e] * c;
            h[e][e] = 2.0 * c;
        }
        let items = items!(
            by_bucket,
            by_bucket_plain,
            by_bucket_grad,
            by_bucket_vjp,
            by_bucket_jvp,
            by_bucket_grad_into,
            by_bucket_hessian,
            by_bucket_hvp,
            &group
        );
        check("by_bucket", &x, &items, value, &g, &h);

        // Keys of equal buckets keep their order; away from the buckets' edges for differences.
        if n < 3
            || x.iter()
                .any(|a| ((a * 4.0) - (a * 4.0).round()).abs() < 1e-3)
        {
            continue;
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (x[i] * 4.0).floor() as i64);
        let (a, b, c) = (order[0], order[n - 1], order[1]);
        let value = x[a] * x[b] + x[c].powi(3);
        let (mut g, mut h) = (vec![0.0; n], zeros(n));
        g[a] += x[b];
        g[b] += x[a];
        g[c] += 3.0 * x[c] * x[c];
        h[a][b] += 1.0;
        h[b][a] += 1.0;
        h[c][c] += 6.0 * x[c];
        let items = items!(
            by_rounded,
            by_rounded_plain,
            by_rounded_grad,
            by_rounded_vjp,
            by_rounded_jvp,
            by_rounded_grad_into,
            by_rounded_hessian,
            by_rounded_hvp
        );
        check("by_rounded", &x, &items, value, &g, &h);
    }
}
