//! Session 34 forms: iterator and method forms a user writes that the macro refused or miscompiled.
//!
//! 1. A local copy sorted in place (`v.sort_by(|a, b| a.partial_cmp(b).unwrap())`, `sort_unstable_by`,
//!    `total_cmp`, descending, a key of each element such as an argsort `|&i, &j| x[i].partial_cmp(&x[j])`):
//!    the gradient is the permutation's, ties where std's stable sort puts them (`sorts.rs`).
//! 2. `.zip(w.iter().map(f))` after a `.filter(..)`, and `.rev()` of `a.chain(b)` (`chains.rs`).
//! 3. `*x.iter().skip(1).step_by(2).nth(k).unwrap()`, `.last()`, `.next()`, `.max_by(..)`, `.find(..)` of
//!    chains over references, dereferenced.
//! 4. A method taking `self` by value calling another (`self.g(x)`) at `order = 2`.
//! 5. A matrix made in the body with a computed shape (`vec![vec![0.0; n + 1]; k * 2]`) passed whole.
//! 6. Tuples of constants holding arrays passed to plain functions (were rewritten to a missing
//!    `__weigh_split`, E0425; at `order = 2` retyped to the copy's float, E0308), and constant arrays
//!    passed to plain functions at `order = 2` (E0573).
//!
//! Each is checked against an analytic gradient (and, where short, Hessian) written here, central
//! differences of the plain body (`twin!`) at several points, and its Hessian against differences of its
//! gradient.

#![allow(clippy::needless_range_loop)]

#[macro_use]
mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, Inputs, ANALYTIC_TOL,
};

/// Value, gradient and Hessian of a function of one slice `x`, checked against `analytic` (value and
/// gradient), central differences of `plain`, and differences of the gradient.
#[track_caller]
fn check_slice(
    what: &str,
    x: &[f64],
    f: impl Fn(&[f64]) -> f64,
    plain: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    analytic: (f64, Vec<f64>),
) {
    let (value, g) = grad(x);
    assert_eq!(f(x), plain(x), "{what}: the function as written");
    assert_close(value, plain(x), ANALYTIC_TOL, &format!("{what}: value"));
    assert_close(
        value,
        analytic.0,
        ANALYTIC_TOL,
        &format!("{what}: analytic value"),
    );
    assert_all_close(
        &g,
        &analytic.1,
        ANALYTIC_TOL,
        &format!("{what}: analytic gradient"),
    );
    assert_fd_gradient(&plain, x, &g, what);
    let (hv, hg, h) = hessian(x);
    assert_close(
        hv,
        value,
        ANALYTIC_TOL,
        &format!("{what}: _hessian's value"),
    );
    assert_all_close(
        &hg,
        &g,
        ANALYTIC_TOL,
        &format!("{what}: _hessian's gradient"),
    );
    assert_hessian_fd(&h, |p| grad(p).1, x, 1e-6, &format!("{what}: Hessian"));
}

/// The same for a function of two slices, flattened `(x, y)`.
#[track_caller]
fn check_two(
    what: &str,
    (x, y): (&[f64], &[f64]),
    f: impl Fn(&[f64], &[f64]) -> f64,
    plain: impl Fn(&[f64], &[f64]) -> f64,
    grad: impl Fn(&[f64], &[f64]) -> (f64, (Vec<f64>, Vec<f64>)),
    hessian: impl Fn(&[f64], &[f64]) -> (f64, (Vec<f64>, Vec<f64>), Vec<Vec<f64>>),
    analytic: (f64, Vec<f64>),
) {
    let n = x.len();
    let flat: Vec<f64> = x.iter().chain(y).copied().collect();
    let flat_grad = |p: &[f64]| {
        let (v, (gx, gy)) = grad(&p[..n], &p[n..]);
        (v, gx.into_iter().chain(gy).collect::<Vec<f64>>())
    };
    check_slice(
        what,
        &flat,
        |p| f(&p[..n], &p[n..]),
        |p| plain(&p[..n], &p[n..]),
        flat_grad,
        |p| {
            let (v, (gx, gy), h) = hessian(&p[..n], &p[n..]);
            (v, gx.into_iter().chain(gy).collect(), h)
        },
        analytic,
    );
}

/// The order std's stable sort leaves the indexes of `x` in, by `before(a, b)` of two elements.
fn stable_order(x: &[f64], cmp: impl Fn(f64, f64) -> std::cmp::Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| cmp(x[a], x[b]));
    order
}

/// Points of 5 to 7 elements in [-2, 2), and one with ties.
fn points(seed: u64) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    let mut out: Vec<Vec<f64>> = (5..8)
        .map(|n| inputs.vec(n).iter().map(|v| 2.0 * v).collect())
        .collect();
    out.push(vec![0.7, -0.3, 1.1, -1.6, 0.2, 0.9]);
    out
}

// 1. Sorts.

twin! {
    #[differentiable(order = 2)]
    fn median / median_plain(x: &[f64]) -> f64 {
        let n = x.len();
        let mut v = x.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[n / 2] * v[n / 2] + v[0]
    }
}

twin! {
    #[differentiable(order = 2)]
    fn trimmed / trimmed_plain(x: &[f64]) -> f64 {
        let n = x.len();
        let mut v = x.to_vec();
        v.sort_unstable_by(|a, b| b.total_cmp(a));
        let mut s = 0.0;
        for i in 1..n - 1 {
            s += v[i] * v[i] * i as f64;
        }
        s / (n - 2) as f64
    }
}

twin! {
    #[differentiable(order = 2)]
    fn top_two / top_two_plain(x: &[f64]) -> f64 {
        let mut idx: Vec<usize> = (0..x.len()).collect();
        idx.sort_by(|&a, &b| x[b].partial_cmp(&x[a]).unwrap());
        x[idx[0]] * x[idx[1]]
    }
}

twin! {
    #[differentiable(order = 2)]
    fn by_magnitude / by_magnitude_plain(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
        let mut s = 0.0;
        for i in 0..v.len() {
            s += v[i] * (i as f64 + 1.0);
        }
        s * s
    }
}

twin! {
    #[differentiable(order = 2)]
    fn sorted_weights / sorted_weights_plain(x: &[f64], w: &[f64]) -> f64 {
        let mut v = x.to_vec();
        v.sort_by(f64::total_cmp);
        let mut s = 0.0;
        for i in 0..v.len() {
            s += (v[i] * w[i]).sin();
        }
        s
    }
}

#[test]
fn a_sorted_copy_has_the_permutations_gradient() {
    for x in points(3401) {
        let n = x.len();
        let up = stable_order(&x, |a, b| a.partial_cmp(&b).unwrap());
        let (k, j) = (up[n / 2], up[0]);
        let mut g = vec![0.0; n];
        g[k] += 2.0 * x[k];
        g[j] += 1.0;
        let value = x[k] * x[k] + x[j];
        check_slice(
            "median",
            &x,
            median,
            median_plain,
            median_grad,
            median_hessian,
            (value, g),
        );
        let (_, _, h) = median_hessian(&x);
        assert_close(h[k][k], 2.0, ANALYTIC_TOL, "median''");

        let down = stable_order(&x, |a, b| b.total_cmp(&a));
        let mut g = vec![0.0; n];
        let mut value = 0.0;
        for i in 1..n - 1 {
            let e = down[i];
            value += x[e] * x[e] * i as f64 / (n - 2) as f64;
            g[e] = 2.0 * x[e] * i as f64 / (n - 2) as f64;
        }
        check_slice(
            "trimmed",
            &x,
            trimmed,
            trimmed_plain,
            trimmed_grad,
            trimmed_hessian,
            (value, g),
        );

        let (a, b) = (down[0], down[1]);
        let mut g = vec![0.0; n];
        g[a] = x[b];
        g[b] = x[a];
        check_slice(
            "top_two",
            &x,
            top_two,
            top_two_plain,
            top_two_grad,
            top_two_hessian,
            (x[a] * x[b], g),
        );
        let (_, _, h) = top_two_hessian(&x);
        assert_close(h[a][b], 1.0, ANALYTIC_TOL, "top_two''");

        let by_abs = stable_order(&x, |a, b| a.abs().total_cmp(&b.abs()));
        let s: f64 = (0..n).map(|i| x[by_abs[i]] * (i as f64 + 1.0)).sum();
        let mut g = vec![0.0; n];
        for i in 0..n {
            g[by_abs[i]] = 2.0 * s * (i as f64 + 1.0);
        }
        check_slice(
            "by_magnitude",
            &x,
            by_magnitude,
            by_magnitude_plain,
            by_magnitude_grad,
            by_magnitude_hessian,
            (s * s, g),
        );
        let (_, _, h) = by_magnitude_hessian(&x);
        for i in 0..n {
            for j in 0..n {
                let expected = 2.0 * (i as f64 + 1.0) * (j as f64 + 1.0);
                assert_close(
                    h[by_abs[i]][by_abs[j]],
                    expected,
                    ANALYTIC_TOL,
                    "by_magnitude''",
                );
            }
        }

        let w: Vec<f64> = (0..n).map(|i| 0.3 + 0.2 * i as f64).collect();
        let order = stable_order(&x, |a, b| a.total_cmp(&b));
        let (mut value, mut gx, mut gw) = (0.0, vec![0.0; n], vec![0.0; n]);
        for i in 0..n {
            let v = x[order[i]];
            value += (v * w[i]).sin();
            gx[order[i]] = (v * w[i]).cos() * w[i];
            gw[i] = (v * w[i]).cos() * v;
        }
        check_two(
            "sorted_weights",
            (&x, &w),
            sorted_weights,
            sorted_weights_plain,
            sorted_weights_grad,
            sorted_weights_hessian,
            (value, gx.into_iter().chain(gw).collect()),
        );
    }
}

#[test]
fn ties_go_where_the_stable_sort_puts_them() {
    // Sorted: 0.2, 0.5 (index 0), 0.5 (index 2), 0.5 (index 3), 0.9: the median is `x[2]`, the first
    // element `x[1]`. Descending, the trimmed mean's positions 1..4 are indexes 0, 2, 3.
    let x = [0.5, 0.2, 0.5, 0.5, 0.9];
    let (value, g) = median_grad(&x);
    assert_eq!(value, 0.25 + 0.2);
    assert_eq!(g, vec![0.0, 1.0, 1.0, 0.0, 0.0]);
    let (_, g) = trimmed_grad(&x);
    assert_all_close(
        &g,
        &[1.0 / 3.0, 0.0, 2.0 / 3.0, 1.0, 0.0],
        ANALYTIC_TOL,
        "trimmed ties",
    );
    // The argsort's first two of equal maxima: indexes 0 and 1 in order.
    let (_, g) = top_two_grad(&[1.0, 1.0, 0.5, 1.0]);
    assert_eq!(g, vec![1.0, 1.0, 0.0, 0.0]);
}

// 2. `.zip(..)` of a mapped side after `.filter(..)`, `.rev()` of `a.chain(b)`.

twin! {
    #[differentiable(order = 2)]
    fn kept_weighted / kept_weighted_plain(x: &[f64], w: &[f64]) -> f64 {
        x.iter()
            .filter(|v| **v > 0.0)
            .zip(w.iter().map(|u| u * 2.0))
            .map(|(a, b)| a * a * b)
            .sum()
    }
}

twin! {
    #[differentiable(order = 2)]
    fn kept_sines / kept_sines_plain(x: &[f64], w: &[f64]) -> f64 {
        let mut s = 0.0;
        for (a, b) in x.iter().filter(|v| **v < 0.5).zip(w.iter().copied().map(f64::sin)) {
            s += a * b;
        }
        s
    }
}

twin! {
    #[differentiable(order = 2)]
    fn chained_back / chained_back_plain(x: &[f64], y: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut k = 1.0;
        for v in x.iter().chain(y.iter()).rev() {
            s += k * v * v;
            k += 1.0;
        }
        s
    }
}

twin! {
    #[differentiable(order = 2)]
    fn folded_back / folded_back_plain(x: &[f64], y: &[f64]) -> f64 {
        x.iter()
            .chain(&y[1..])
            .map(|v| v * 2.0)
            .rev()
            .fold(0.0, |acc, v| acc * 0.5 + v * v)
    }
}

twin! {
    #[differentiable(order = 2)]
    fn reversed_twice / reversed_twice_plain(x: &[f64], y: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut k = 1.0;
        for v in x.iter().chain(y.iter()).rev().map(|v| v * 2.0).rev() {
            s += k * v * v;
            k += 1.0;
        }
        s
    }
}

#[test]
fn zip_of_a_mapped_side_after_a_filter_and_a_reversed_chain() {
    let mut inputs = Inputs(3402);
    for (n, m) in [(6, 3), (5, 7), (7, 4)] {
        let x: Vec<f64> = inputs.vec(n).iter().map(|v| 2.0 * v).collect();
        let y: Vec<f64> = inputs.vec(m).iter().map(|v| 2.0 * v).collect();
        // kept_weighted: sum over the k-th kept a (a > 0, k < m) of 2 a^2 y[k].
        let (mut value, mut gx, mut gy) = (0.0, vec![0.0; n], vec![0.0; m]);
        let mut k = 0;
        for i in 0..n {
            if x[i] > 0.0 && k < m {
                value += 2.0 * x[i] * x[i] * y[k];
                gx[i] = 4.0 * x[i] * y[k];
                gy[k] = 2.0 * x[i] * x[i];
                k += 1;
            }
        }
        let analytic = (value, gx.into_iter().chain(gy).collect());
        check_two(
            "kept_weighted",
            (&x, &y),
            kept_weighted,
            kept_weighted_plain,
            kept_weighted_grad,
            kept_weighted_hessian,
            analytic,
        );
        let (mut value, mut gx, mut gy) = (0.0, vec![0.0; n], vec![0.0; m]);
        let mut k = 0;
        for i in 0..n {
            if x[i] < 0.5 && k < m {
                value += x[i] * y[k].sin();
                gx[i] = y[k].sin();
                gy[k] = x[i] * y[k].cos();
                k += 1;
            }
        }
        let analytic = (value, gx.into_iter().chain(gy).collect());
        check_two(
            "kept_sines",
            (&x, &y),
            kept_sines,
            kept_sines_plain,
            kept_sines_grad,
            kept_sines_hessian,
            analytic,
        );
        // chained_back: the elements of y reversed, then x reversed, weighted 1, 2, ...
        let all: Vec<f64> = x.iter().chain(&y).copied().collect();
        let (mut value, mut g) = (0.0, vec![0.0; n + m]);
        for (k, i) in (0..n + m).rev().enumerate() {
            value += (k as f64 + 1.0) * all[i] * all[i];
            g[i] = 2.0 * (k as f64 + 1.0) * all[i];
        }
        check_two(
            "chained_back",
            (&x, &y),
            chained_back,
            chained_back_plain,
            chained_back_grad,
            chained_back_hessian,
            (value, g),
        );
        // reversed_twice: x then y, in order, doubled, weighted 1, 2, ...
        let (mut value, mut g) = (0.0, vec![0.0; n + m]);
        for i in 0..n + m {
            value += (i as f64 + 1.0) * 4.0 * all[i] * all[i];
            g[i] = 8.0 * (i as f64 + 1.0) * all[i];
        }
        check_two(
            "reversed_twice",
            (&x, &y),
            reversed_twice,
            reversed_twice_plain,
            reversed_twice_grad,
            reversed_twice_hessian,
            (value, g),
        );
        // folded_back: acc = acc / 2 + (2 v)^2 over y[1..] reversed, then x reversed; the element met
        // at step t (of T) is halved T - 1 - t times.
        let order: Vec<usize> = (n + 1..n + m).rev().chain((0..n).rev()).collect();
        let steps = order.len();
        let (mut value, mut g) = (0.0, vec![0.0; n + m]);
        for (t, &i) in order.iter().enumerate() {
            let scale = 0.5f64.powi((steps - 1 - t) as i32);
            value += scale * 4.0 * all[i] * all[i];
            g[i] = scale * 8.0 * all[i];
        }
        check_two(
            "folded_back",
            (&x, &y),
            folded_back,
            folded_back_plain,
            folded_back_grad,
            folded_back_hessian,
            (value, g),
        );
    }
}

// 3. Selections of chains over references, dereferenced.

twin! {
    #[differentiable(order = 2)]
    fn stepped_nth / stepped_nth_plain(x: &[f64], k: usize) -> f64 {
        let a = *x.iter().skip(1).step_by(2).nth(k).unwrap();
        a * a * a
    }
}

twin! {
    #[differentiable(order = 2)]
    fn ends / ends_plain(x: &[f64]) -> f64 {
        let a = *x.last().unwrap();
        let b = *x.first().unwrap();
        let c = *x.iter().skip(1).last().unwrap();
        let d = *x.iter().rev().nth(1).expect("two elements");
        a * b * c + d * d
    }
}

twin! {
    #[differentiable(order = 2)]
    fn extremes / extremes_plain(x: &[f64]) -> f64 {
        let m = x.iter().map(|v| v * v).max_by(|a, b| a.total_cmp(b)).unwrap();
        let n = *x.iter().skip(1).max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
        let f = *x.iter().find(|v| **v < 0.0).unwrap();
        m + n * f
    }
}

#[test]
fn dereferenced_selections_of_chains_over_references() {
    let mut inputs = Inputs(3403);
    for n in [6, 7, 9] {
        let mut x: Vec<f64> = inputs.vec(n).iter().map(|v| 2.0 * v).collect();
        x[n - 3] = -1.5 - x[n - 3].abs(); // a negative element for `find`
        for k in 0..(n - 1).div_ceil(2) {
            let e = 1 + 2 * k;
            let mut g = vec![0.0; n];
            g[e] = 3.0 * x[e] * x[e];
            check_slice(
                "stepped_nth",
                &x,
                |p| stepped_nth(p, k),
                |p| stepped_nth_plain(p, k),
                |p| stepped_nth_grad(p, k),
                |p| stepped_nth_hessian(p, k),
                (x[e].powi(3), g),
            );
        }
        // ends: x[n-1]^2 x[0] + x[n-2]^2.
        let mut g = vec![0.0; n];
        g[n - 1] = 2.0 * x[n - 1] * x[0];
        g[0] = x[n - 1] * x[n - 1];
        g[n - 2] += 2.0 * x[n - 2];
        let value = x[n - 1] * x[n - 1] * x[0] + x[n - 2] * x[n - 2];
        check_slice(
            "ends",
            &x,
            ends,
            ends_plain,
            ends_grad,
            ends_hessian,
            (value, g),
        );
        // extremes: max x^2 (the last of equal maxima) + max of x[1..] times the first negative.
        let squares: Vec<f64> = x.iter().map(|v| v * v).collect();
        let i = stable_order(&squares, |a, b| a.total_cmp(&b))[n - 1];
        let j = 1 + stable_order(&x[1..], |a, b| a.partial_cmp(&b).unwrap())[n - 2];
        let f = x.iter().position(|v| *v < 0.0).unwrap();
        let mut g = vec![0.0; n];
        g[i] += 2.0 * x[i];
        g[j] += x[f];
        g[f] += x[j];
        let value = squares[i] + x[j] * x[f];
        check_slice(
            "extremes",
            &x,
            extremes,
            extremes_plain,
            extremes_grad,
            extremes_hessian,
            (value, g),
        );
    }
}

// 4. A method taking `self` by value calling another at `order = 2`.

// (Its integer field is read at `order = 2` through the derive, `#[no_grad]`; `self` stays a constant.)
#[derive(Clone, Copy, autodiff::Differentiable)]
struct Gain {
    a: f64,
    #[no_grad]
    k: usize,
}

impl Gain {
    #[differentiable(order = 2)]
    fn inner(self, x: f64) -> f64 {
        self.a * x * x + self.k as f64 * x
    }

    #[differentiable(order = 2)]
    fn outer(self, x: f64) -> f64 {
        self.inner(x) * x + x.sin()
    }
}

#[derive(Clone, Copy, Debug, autodiff::Differentiable)]
struct Pair {
    a: f64,
    b: f64,
}

impl Pair {
    #[differentiable(order = 2, wrt(self, x))]
    fn inner(self, x: f64) -> f64 {
        self.a * x * x + self.b
    }

    #[differentiable(order = 2, wrt(self, x))]
    fn outer(self, x: f64) -> f64 {
        self.inner(x) * x + self.b.sin()
    }
}

#[test]
fn methods_taking_self_by_value_call_each_other_at_order_two() {
    let mut inputs = Inputs(3404);
    for _ in 0..5 {
        let g = Gain {
            a: 2.0 * inputs.next(),
            k: 3,
        };
        let x = 2.0 * inputs.next();
        let k = g.k as f64;
        // outer = a x^3 + k x^2 + sin x.
        let (value, dx) = g.outer_grad(x);
        assert_close(
            value,
            g.a * x.powi(3) + k * x * x + x.sin(),
            ANALYTIC_TOL,
            "outer",
        );
        let expected = 3.0 * g.a * x * x + 2.0 * k * x + x.cos();
        assert_close(dx, expected, ANALYTIC_TOL, "outer'");
        assert_fd_gradient(|p| g.outer(p[0]), &[x], &[dx], "outer' fd");
        let (_, _, h) = g.outer_hessian(x);
        assert_close(
            h[0][0],
            6.0 * g.a * x + 2.0 * k - x.sin(),
            ANALYTIC_TOL,
            "outer''",
        );
        assert_hessian_fd(&h, |p| vec![g.outer_grad(p[0]).1], &[x], 1e-6, "outer'' fd");

        let p = Pair {
            a: 2.0 * inputs.next(),
            b: 2.0 * inputs.next(),
        };
        // outer = a x^3 + b x + sin b.
        let (value, (dp, dx)) = p.outer_grad(x);
        assert_close(
            value,
            p.a * x.powi(3) + p.b * x + p.b.sin(),
            ANALYTIC_TOL,
            "pair",
        );
        let expected = [x.powi(3), x + p.b.cos(), 3.0 * p.a * x * x + p.b];
        assert_all_close(&[dp.a, dp.b, dx], &expected, ANALYTIC_TOL, "pair'");
        let plain = |q: &[f64]| Pair { a: q[0], b: q[1] }.outer(q[2]);
        let flat = [p.a, p.b, x];
        assert_fd_gradient(plain, &flat, &[dp.a, dp.b, dx], "pair' fd");
        let (_, _, h) = p.outer_hessian(x);
        let grad = |q: &[f64]| {
            let (_, (d, dx)) = Pair { a: q[0], b: q[1] }.outer_grad(q[2]);
            vec![d.a, d.b, dx]
        };
        assert_hessian_fd(&h, grad, &flat, 1e-6, "pair''");
        let analytic = [
            [0.0, 0.0, 3.0 * x * x],
            [0.0, -p.b.sin(), 1.0],
            [3.0 * x * x, 1.0, 6.0 * p.a * x],
        ];
        for i in 0..3 {
            assert_all_close(&h[i], &analytic[i], ANALYTIC_TOL, "pair'' analytic");
        }
    }
}

// 5. A matrix whose shape is computed in the body, passed whole.

#[differentiable(order = 2)]
fn weighted_squares(m: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j] * m[i][j] * (i + j + 1) as f64;
        }
    }
    s
}

twin! {
    #[differentiable(order = 2)]
    fn computed_shape / computed_shape_plain(x: &[f64], n: usize, k: usize) -> f64 {
        let mut m = vec![vec![0.0; n + 1]; k * 2];
        for i in 0..k * 2 {
            for j in 0..n + 1 {
                m[i][j] = x[(i + j) % x.len()] * (i as f64 + 1.0);
            }
        }
        weighted_squares(&m) + m[0][0]
    }
}

twin! {
    #[differentiable(order = 2)]
    fn refilled / refilled_plain(x: &[f64], n: usize) -> f64 {
        let r = n - 1;
        let mut m = vec![vec![0.0; r]; r];
        let mut s = 0.0;
        for t in 0..3 {
            for i in 0..r {
                for j in 0..r {
                    m[i][j] = x[(i * j + t) % x.len()] * (t as f64 + 1.0);
                }
            }
            s += weighted_squares(&m).sqrt();
        }
        s
    }
}

#[test]
fn a_matrix_of_a_computed_shape_passed_whole() {
    let mut inputs = Inputs(3405);
    for (len, n, k) in [(5, 2, 1), (4, 1, 2), (7, 3, 2)] {
        let x: Vec<f64> = inputs.vec(len).iter().map(|v| 2.0 * v).collect();
        let (mut value, mut g) = (x[0], vec![0.0; len]);
        g[0] = 1.0;
        for i in 0..k * 2 {
            for j in 0..n + 1 {
                let e = (i + j) % len;
                let c = (i as f64 + 1.0) * (i as f64 + 1.0) * (i + j + 1) as f64;
                value += c * x[e] * x[e];
                g[e] += 2.0 * c * x[e];
            }
        }
        check_slice(
            "computed_shape",
            &x,
            |p| computed_shape(p, n, k),
            |p| computed_shape_plain(p, n, k),
            |p| computed_shape_grad(p, n, k),
            |p| computed_shape_hessian(p, n, k),
            (value, g),
        );
        let n = len - 1;
        let r = n - 1;
        let (mut value, mut g) = (0.0, vec![0.0; len]);
        for t in 0..3 {
            let (mut s, mut ds) = (0.0, vec![0.0; len]);
            let scale = (t as f64 + 1.0) * (t as f64 + 1.0);
            for i in 0..r {
                for j in 0..r {
                    let e = (i * j + t) % len;
                    s += scale * (i + j + 1) as f64 * x[e] * x[e];
                    ds[e] += 2.0 * scale * (i + j + 1) as f64 * x[e];
                }
            }
            value += s.sqrt();
            for e in 0..len {
                g[e] += ds[e] / (2.0 * s.sqrt());
            }
        }
        check_slice(
            "refilled",
            &x,
            |p| refilled(p, n),
            |p| refilled_plain(p, n),
            |p| refilled_grad(p, n),
            |p| refilled_hessian(p, n),
            (value, g),
        );
    }
}

// 6. Constants holding arrays passed to plain functions.

fn weigh(w: &([f64; 2], f64), a: f64) -> f64 {
    (w.0[0] * a + w.0[1]) * w.1
}

fn weigh_owned(w: ([f64; 2], f64)) -> f64 {
    (w.0[0] + w.0[1]) * w.1
}

fn weigh_vec(w: &(Vec<f64>, f64)) -> f64 {
    (w.0[0] + w.0[1]) * w.1
}

fn pair_sum(w: &[f64; 2]) -> f64 {
    w[0] + w[1]
}

fn product(w: &[f64]) -> f64 {
    w.iter().product()
}

#[differentiable(order = 2)]
fn literal_tuple(x: f64) -> f64 {
    x * x * weigh_owned(([0.5, 1.0], 2.0))
}

#[differentiable(order = 2)]
fn integer_tuple(x: f64, k: usize) -> f64 {
    let w = ([k as f64, 1.0], 2.0);
    x * x * weigh(&w, 3.0) + weigh_owned(w) * x
}

#[differentiable(order = 2)]
fn data_tuple(x: f64, d: &[usize]) -> f64 {
    let w = (vec![d[0] as f64, 1.0], 2.0);
    x * x * weigh_vec(&w)
}

#[differentiable(order = 2)]
fn constant_array(x: f64) -> f64 {
    let w = [0.5, -1.25];
    x * x * pair_sum(&w)
}

#[differentiable(order = 2)]
fn integer_array(x: f64, k: usize) -> f64 {
    let w = vec![0.5, k as f64];
    x * x * x * product(&w)
}

#[test]
fn constants_holding_arrays_go_to_plain_functions_as_written() {
    let mut inputs = Inputs(3406);
    for k in 0..3 {
        let x = 2.0 * inputs.next();
        let kf = k as f64;
        let (v, d) = literal_tuple_grad(x);
        assert_close(v, 3.0 * x * x, ANALYTIC_TOL, "literal_tuple");
        assert_close(d, 6.0 * x, ANALYTIC_TOL, "literal_tuple'");
        assert_fd_gradient(|p| literal_tuple(p[0]), &[x], &[d], "literal_tuple' fd");
        // weigh = (3k + 1) 2, weigh_owned = (k + 1) 2.
        let (v, d) = integer_tuple_grad(x, k);
        let (a, b) = (2.0 * (3.0 * kf + 1.0), 2.0 * (kf + 1.0));
        assert_close(v, a * x * x + b * x, ANALYTIC_TOL, "integer_tuple");
        assert_close(d, 2.0 * a * x + b, ANALYTIC_TOL, "integer_tuple'");
        assert_fd_gradient(|p| integer_tuple(p[0], k), &[x], &[d], "integer_tuple' fd");
        let (v, d) = data_tuple_grad(x, &[k]);
        assert_close(v, 2.0 * (kf + 1.0) * x * x, ANALYTIC_TOL, "data_tuple");
        assert_close(d, 4.0 * (kf + 1.0) * x, ANALYTIC_TOL, "data_tuple'");
        assert_fd_gradient(|p| data_tuple(p[0], &[k]), &[x], &[d], "data_tuple' fd");
        let (_, _, h) = literal_tuple_hessian(x);
        assert_close(h[0][0], 6.0, ANALYTIC_TOL, "literal_tuple''");
        let (_, _, h) = integer_tuple_hessian(x, k);
        assert_close(h[0][0], 2.0 * a, ANALYTIC_TOL, "integer_tuple''");
        let grad = |p: &[f64]| vec![integer_tuple_grad(p[0], k).1];
        assert_hessian_fd(&h, grad, &[x], 1e-6, "integer_tuple'' fd");
        let (_, _, h) = data_tuple_hessian(x, &[k]);
        assert_close(h[0][0], 4.0 * (kf + 1.0), ANALYTIC_TOL, "data_tuple''");

        let (v, d) = constant_array_grad(x);
        assert_close(v, -0.75 * x * x, ANALYTIC_TOL, "constant_array");
        assert_eq!(v, constant_array(x), "constant_array as written");
        assert_close(d, -1.5 * x, ANALYTIC_TOL, "constant_array'");
        let (_, _, h) = constant_array_hessian(x);
        assert_close(h[0][0], -1.5, ANALYTIC_TOL, "constant_array''");
        assert_hessian_fd(
            &h,
            |p| vec![constant_array_grad(p[0]).1],
            &[x],
            1e-6,
            "ca'' fd",
        );
        let (v, d) = integer_array_grad(x, k);
        assert_close(v, 0.5 * kf * x.powi(3), ANALYTIC_TOL, "integer_array");
        assert_close(d, 1.5 * kf * x * x, ANALYTIC_TOL, "integer_array'");
        assert_fd_gradient(|p| integer_array(p[0], k), &[x], &[d], "integer_array' fd");
        let (_, _, h) = integer_array_hessian(x, k);
        assert_close(h[0][0], 3.0 * kf * x, ANALYTIC_TOL, "integer_array''");
    }
}
