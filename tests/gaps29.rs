//! Session 29 gaps, valid programs that failed:
//! 1. a slice local rebound in a loop to windows of another slice local that is itself rebound (`y = &x[1..];`
//!    then `input = &y[t..];` in a loop) fell back to the copy, which panicked at run time for a window of
//!    another length; `y` is now a view of its sources too, and `input`'s windows views of those
//!    (`slice_views.rs`).
//! 2. `max_by`/`min_by`, `max`/`min`, `last`/`first` of a sub-slice with computed bounds
//!    (`xs[1..n - 1].iter().copied().max_by(..).unwrap()`) were refused ("cannot end a differentiable
//!    iterator chain"); the sub-slice is bound once to a hidden local first (`std_forms.rs`).
//! 3. `#[differentiable]` imported under another name (`use autodiff::differentiable as ad;`) on a method
//!    of a `#[differentiable]` inherent `impl` was reported as no method marked; it expands where it stands.
//!
//! Every function is checked against analytic derivatives and central differences (`common`, no code
//! shared with the macro) at several points; the `order = 2` ones also their Hessians against differences
//! of their gradients.

#![allow(clippy::needless_range_loop, clippy::redundant_slicing)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, hessian_column, Inputs,
    ANALYTIC_TOL,
};

#[allow(unused_assignments)]
#[differentiable(order = 2)]
fn rebound_source<'a>(x: &'a [f64], mut y: &'a [f64]) -> f64 {
    y = &x[1..];
    let mut input = &x[..];
    let mut s = 0.0;
    for t in 0..3 {
        s += input[0] * input[0];
        input = &y[t..];
    }
    s
}

#[differentiable(order = 2)]
fn rebound_source_in_loop<'a>(x: &'a [f64], mut y: &'a [f64], n: usize) -> f64 {
    let mut input = &y[1..];
    let mut s = 0.0;
    for t in 0..n {
        s += input[0] * input[input.len() - 1] * (t as f64 + 1.0);
        input = &y[t % 2..];
        if t == 1 {
            y = &x[2..];
        }
    }
    s + input[0]
}

/// `rebound_source_in_loop`'s value and gradient by hand: which slice `input` is, and where it starts.
fn rebound_source_in_loop_by_hand(x: &[f64], y: &[f64], n: usize) -> (f64, Vec<f64>, Vec<f64>) {
    let (mut gx, mut gy) = (vec![0.0; x.len()], vec![0.0; y.len()]);
    // (on `x`, start): `y` is `x[2..]` once rebound.
    let (mut y_on_x, mut input) = (false, (false, 1));
    let mut s = 0.0;
    let read = |on_x: bool, k: usize, w: f64, gx: &mut Vec<f64>, gy: &mut Vec<f64>| {
        let (v, g) = match on_x {
            true => (x[k], &mut gx[k]),
            false => (y[k], &mut gy[k]),
        };
        *g += w;
        v
    };
    for t in 0..n {
        let len = if input.0 { x.len() } else { y.len() };
        let c = t as f64 + 1.0;
        let (a, b) = (
            if input.0 { x[input.1] } else { y[input.1] },
            if input.0 { x[len - 1] } else { y[len - 1] },
        );
        s += a * b * c;
        read(input.0, input.1, b * c, &mut gx, &mut gy);
        read(input.0, len - 1, a * c, &mut gx, &mut gy);
        input = match y_on_x {
            true => (true, 2 + t % 2),
            false => (false, t % 2),
        };
        if t == 1 {
            y_on_x = true;
        }
    }
    s += read(input.0, input.1, 1.0, &mut gx, &mut gy);
    (s, gx, gy)
}

#[test]
fn window_of_a_rebound_slice_in_a_loop() {
    // s = x0² + x1² + x2²; `y`'s own elements are never read.
    let mut inputs = Inputs(2901);
    for m in [3, 4, 6] {
        for _ in 0..4 {
            let (x, y) = (inputs.vec(m), inputs.vec(2));
            let (v, (gx, gy)) = rebound_source_grad(&x, &y);
            let value: f64 = x[..3].iter().map(|v| v * v).sum();
            assert_close(v, value, ANALYTIC_TOL, "rebound_source");
            let mut expected = vec![0.0; m];
            for i in 0..3 {
                expected[i] = 2.0 * x[i];
            }
            assert_all_close(&gx, &expected, ANALYTIC_TOL, "rebound_source' x");
            assert_all_close(&gy, &[0.0, 0.0], ANALYTIC_TOL, "rebound_source' y");
            assert_fd_gradient(|p| rebound_source(p, &y), &x, &gx, "rebound_source' fd");
            let (_, _, h) = rebound_source_hessian(&x, &y);
            let grad = |p: &[f64]| {
                let (_, (gx, gy)) = rebound_source_grad(&p[..m], &p[m..]);
                [gx, gy].concat()
            };
            let all = [x.clone(), y.clone()].concat();
            for i in 0..m + 2 {
                let mut expected = vec![0.0; m + 2];
                if i < 3 {
                    expected[i] = 2.0;
                }
                assert_all_close(&h[i], &expected, ANALYTIC_TOL, "rebound_source''");
                assert_all_close(
                    &h[i],
                    &hessian_column(grad, &all, i),
                    1e-6,
                    "rebound_source'' fd",
                );
            }
            let tangent = (inputs.vec(m), inputs.vec(2));
            let (_, dv) = rebound_source_jvp(&x, &y, tangent.clone());
            let dot: f64 = (0..m).map(|i| gx[i] * tangent.0[i]).sum();
            assert_close(dv, dot, 1e-12, "rebound_source jvp");
        }
    }
}

#[test]
fn window_of_a_slice_rebound_in_the_loop() {
    let mut inputs = Inputs(2902);
    for (m, k) in [(5, 3), (6, 4), (7, 5)] {
        for n in 0..5 {
            let (x, y) = (inputs.vec(m), inputs.vec(k));
            let (v, (gx, gy)) = rebound_source_in_loop_grad(&x, &y, n);
            let (value, ex, ey) = rebound_source_in_loop_by_hand(&x, &y, n);
            assert_close(v, value, ANALYTIC_TOL, "rebound_source_in_loop");
            assert_all_close(&gx, &ex, ANALYTIC_TOL, "rebound_source_in_loop' x");
            assert_all_close(&gy, &ey, ANALYTIC_TOL, "rebound_source_in_loop' y");
            let all = [x.clone(), y.clone()].concat();
            let f = |p: &[f64]| rebound_source_in_loop(&p[..m], &p[m..], n);
            assert_fd_gradient(f, &all, &[gx.clone(), gy.clone()].concat(), "fd");
            let (_, _, h) = rebound_source_in_loop_hessian(&x, &y, n);
            let grad = |p: &[f64]| {
                let (_, (gx, gy)) = rebound_source_in_loop_grad(&p[..m], &p[m..], n);
                [gx, gy].concat()
            };
            assert_hessian_fd(&h, grad, &all, 1e-6, "''");
            let tangent = (inputs.vec(m), inputs.vec(k));
            let (_, dv) = rebound_source_in_loop_jvp(&x, &y, n, tangent.clone());
            let dot: f64 = (0..m).map(|i| gx[i] * tangent.0[i]).sum::<f64>()
                + (0..k).map(|i| gy[i] * tangent.1[i]).sum::<f64>();
            assert_close(dv, dot, 1e-12, "rebound_source_in_loop jvp");
        }
    }
}

#[differentiable(order = 2)]
fn peak(xs: &[f64], n: usize) -> f64 {
    let hi = xs[1..n - 1]
        .iter()
        .copied()
        .max_by(|p, q| p.partial_cmp(q).unwrap())
        .unwrap();
    let lo = *xs[n / 2..n].iter().min_by(|p, q| p.total_cmp(q)).unwrap();
    let last = *xs[..n - 1].last().unwrap();
    let first = xs[n - 2..].first().copied().unwrap_or(0.5);
    hi * lo + last * last + 3.0 * first
}

/// `peak`'s value and gradient by hand: the indexes of the maximum of `xs[1..n - 1]` (the last of equal
/// ones), of the minimum of `xs[n / 2..n]` (the first), `n - 2` (last of `xs[..n - 1]`, first of `xs[n - 2..]`).
fn peak_by_hand(xs: &[f64], n: usize) -> (f64, Vec<f64>) {
    let mut hi = 1;
    for k in 2..n - 1 {
        if xs[k] >= xs[hi] {
            hi = k;
        }
    }
    let mut lo = n / 2;
    for k in n / 2 + 1..n {
        if xs[k] < xs[lo] {
            lo = k;
        }
    }
    let mut g = vec![0.0; xs.len()];
    g[hi] += xs[lo];
    g[lo] += xs[hi];
    g[n - 2] += 2.0 * xs[n - 2] + 3.0;
    let value = xs[hi] * xs[lo] + xs[n - 2] * xs[n - 2] + 3.0 * xs[n - 2];
    (value, g)
}

#[test]
fn extremes_and_ends_of_computed_sub_slices() {
    let mut inputs = Inputs(2903);
    for m in [4, 5, 7] {
        for n in 3..=m {
            for _ in 0..3 {
                let xs: Vec<f64> = inputs.vec(m).iter().map(|v| 2.0 * v).collect();
                let (v, g) = peak_grad(&xs, n);
                let (value, expected) = peak_by_hand(&xs, n);
                assert_close(v, value, ANALYTIC_TOL, "peak");
                assert_all_close(&g, &expected, ANALYTIC_TOL, "peak'");
                assert_fd_gradient(|p| peak(p, n), &xs, &g, "peak' fd");
                let (_, _, h) = peak_hessian(&xs, n);
                assert_hessian_fd(&h, |p| peak_grad(p, n).1, &xs, 1e-6, "peak'' fd");
                let t = inputs.vec(m);
                let dot: f64 = (0..m).map(|i| g[i] * t[i]).sum();
                assert_close(peak_jvp(&xs, n, t).1, dot, 1e-12, "peak jvp");
            }
        }
    }
}

/// `#[differentiable]` imported under another name, on a method of a `#[differentiable]` inherent `impl`.
mod renamed {
    use autodiff::differentiable as ad;

    pub struct Well {
        pub k: f64,
    }

    #[autodiff::differentiable]
    impl Well {
        #[ad(order = 2)]
        pub fn depth(&self, x: f64, y: f64) -> f64 {
            self.k * x * x * y + y.sin()
        }
    }
}

#[test]
fn renamed_attribute_on_a_method_of_a_differentiable_impl() {
    let mut inputs = Inputs(2904);
    for _ in 0..6 {
        let (k, x, y) = (inputs.next(), 2.0 * inputs.next(), 2.0 * inputs.next());
        let well = renamed::Well { k };
        let (v, (dx, dy)) = well.depth_grad(x, y);
        assert_close(v, k * x * x * y + y.sin(), ANALYTIC_TOL, "depth");
        let expected = [2.0 * k * x * y, k * x * x + y.cos()];
        assert_all_close(&[dx, dy], &expected, ANALYTIC_TOL, "depth'");
        assert_fd_gradient(|p| well.depth(p[0], p[1]), &[x, y], &[dx, dy], "depth' fd");
        let (_, _, h) = well.depth_hessian(x, y);
        let analytic = [[2.0 * k * y, 2.0 * k * x], [2.0 * k * x, -y.sin()]];
        let grad = |p: &[f64]| {
            let (_, (a, b)) = well.depth_grad(p[0], p[1]);
            vec![a, b]
        };
        for i in 0..2 {
            assert_all_close(&h[i], &analytic[i], ANALYTIC_TOL, "depth''");
        }
        assert_hessian_fd(&h, grad, &[x, y], 1e-6, "depth'' fd");
    }
}
