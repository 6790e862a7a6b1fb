//! A new user's numeric Rust, second round (session 28), written from API.md without looking at the macro's
//! tests: a Gaussian-process negative log marginal likelihood through a Cholesky factor built in local
//! matrices (`Vec<Vec<f64>>` written by index, `0..=i`, a branch on `i == j`), an n-body potential over
//! `&[[f64; 3]]` with a range `.map(..).sum()`, statistics with `powi`/`powf` of two active values, a leaky
//! ReLU in a `while` with `min`/`max`, `.step_by(2)` and sub-slices passed to a helper, a `Vec` result's
//! Jacobian, and `f_derivatives` of order 4 through a `#[custom_gradient]` and a `#[gradient_of]`
//! registration. All compiled and matched central differences at first try.
//!
//! One gap met on the way: with `order = K`, a float parameter outside `wrt(..)` passed to a plain helper
//! (`weight(c[i])`) did not compile (E0573 in the generic copy, which differentiates every float
//! parameter); `weight(stop_gradient(c[i]))` was the way, checked here. Since session 30 `weight(c[i])`
//! compiles as written (tests/wrt30.rs).
//! Gradients against central differences (`common::probe::fd_gradient`, no code shared with the macro) at
//! seeded random points; Hessians against differences of the gradient (`fd_columns`).

// Written as users write numeric code: indexes over several arrays at once.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{custom_gradient, differentiable, gradient_of, stop_gradient};
use common::probe::{fd_columns, fd_gradient, Lcg};
use common::{assert_all_close, assert_close};

/// The Gaussian process's negative log marginal likelihood (up to a constant) in its log hyperparameters
/// (length scale, signal and noise scales), through the Cholesky factor of the kernel matrix.
#[differentiable(order = 2, wrt(theta))]
fn gp_nll(theta: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let n = xs.len();
    let (ell, sf, sn) = (theta[0].exp(), theta[1].exp(), theta[2].exp());
    let mut k = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            let d = (xs[i] - xs[j]) / ell;
            k[i][j] = sf * sf * (-0.5 * d * d).exp();
        }
        k[i][i] += sn * sn;
    }
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let mut s = k[i][j];
            for p in 0..j {
                s -= l[i][p] * l[j][p];
            }
            if i == j {
                l[i][j] = s.sqrt();
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    let mut z = vec![0.0; n];
    for i in 0..n {
        let mut s = ys[i];
        for p in 0..i {
            s -= l[i][p] * z[p];
        }
        z[i] = s / l[i][i];
    }
    let mut nll = 0.0;
    for i in 0..n {
        nll += 0.5 * z[i] * z[i] + l[i][i].ln();
    }
    nll
}

#[test]
fn gaussian_process_through_a_cholesky_factor() {
    let mut rng = Lcg::new(2801);
    for _ in 0..8 {
        let xs = rng.vec(5, -2.0, 2.0);
        let ys = rng.vec(5, -1.0, 1.0);
        let theta = rng.vec(3, -0.5, 0.5);
        let f = |t: &[f64]| gp_nll(t, &xs, &ys);
        let (value, grad) = gp_nll_grad(&theta, &xs, &ys);
        assert_close(value, f(&theta), 1e-12, "gp value");
        assert_all_close(&grad, &fd_gradient(&f, &theta), 1e-6, "gp gradient");
        let (_, _, hessian) = gp_nll_hessian(&theta, &xs, &ys);
        let columns = fd_columns(&|t: &[f64]| gp_nll_grad(t, &xs, &ys).1, &theta);
        for (i, column) in columns.iter().enumerate() {
            let row: Vec<f64> = hessian.iter().map(|r| r[i]).collect();
            assert_all_close(&row, column, 1e-5, "gp Hessian");
        }
    }
}

/// Gravitational potential energy of point masses.
#[differentiable(order = 2, wrt(pos))]
fn potential(pos: &[[f64; 3]], m: &[f64]) -> f64 {
    let mut e = 0.0;
    for i in 0..pos.len() {
        for j in (i + 1)..pos.len() {
            let d2: f64 = (0..3).map(|c| (pos[i][c] - pos[j][c]).powi(2)).sum();
            e -= m[i] * m[j] / d2.sqrt();
        }
    }
    e
}

#[test]
fn n_body_potential_over_fixed_size_rows() {
    let mut rng = Lcg::new(2802);
    let rows =
        |flat: &[f64]| -> Vec<[f64; 3]> { flat.chunks(3).map(|c| [c[0], c[1], c[2]]).collect() };
    for _ in 0..8 {
        let flat = rng.vec(12, -2.0, 2.0);
        let m = rng.vec(4, 0.5, 2.0);
        let f = |x: &[f64]| potential(&rows(x), &m);
        let (_, grad) = potential_grad(&rows(&flat), &m);
        let grad: Vec<f64> = grad.iter().flatten().copied().collect();
        assert_all_close(&grad, &fd_gradient(&f, &flat), 1e-6, "potential gradient");
        let (_, _, hessian) = potential_hessian(&rows(&flat), &m);
        let g = |x: &[f64]| -> Vec<f64> {
            potential_grad(&rows(x), &m)
                .1
                .iter()
                .flatten()
                .copied()
                .collect()
        };
        for (i, column) in fd_columns(&g, &flat).iter().enumerate() {
            let row: Vec<f64> = hessian.iter().map(|r| r[i]).collect();
            assert_all_close(&row, column, 1e-5, "potential Hessian");
        }
    }
}

#[differentiable(order = 2)]
fn stats(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    var.sqrt() + mean.powf(2.0) + x[0].powf(x[1])
}

#[differentiable(order = 2)]
fn leaky(x: &[f64], w: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < x.len() {
        let z = x[i] * w[i];
        s += if z > 0.0 { z } else { 0.01 * z };
        i += 1;
    }
    for (i, &v) in x.iter().enumerate().skip(1) {
        s += v.min(1.0) * w[i - 1].max(-1.0);
    }
    s
}

#[differentiable(order = 2)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[differentiable(order = 2)]
fn split_dot(x: &[f64], k: usize) -> f64 {
    dot(&x[..k], &x[k..2 * k]) + x.iter().step_by(2).map(|v| v * v).sum::<f64>()
}

#[test]
fn statistics_relu_and_strided_forms() {
    let mut rng = Lcg::new(2803);
    for _ in 0..10 {
        let x = rng.vec(5, 0.2, 2.0);
        let w = rng.vec(5, -2.0, 2.0);
        let g = stats_grad(&x).1;
        assert_all_close(&g, &fd_gradient(&|v: &[f64]| stats(v), &x), 1e-6, "stats");
        let h = stats_hessian(&x).2;
        for (i, column) in fd_columns(&|v: &[f64]| stats_grad(v).1, &x)
            .iter()
            .enumerate()
        {
            let row: Vec<f64> = h.iter().map(|r| r[i]).collect();
            assert_all_close(&row, column, 1e-5, "stats Hessian");
        }
        // Away from the kinks (z = 0, x = 1, w = -1), where differences straddle no corner.
        let xs: Vec<f64> = x.iter().map(|v| v - 1.1).collect();
        let (_, (gx, gw)) = leaky_grad(&xs, &w);
        assert_all_close(
            &gx,
            &fd_gradient(&|v: &[f64]| leaky(v, &w), &xs),
            1e-6,
            "leaky x",
        );
        assert_all_close(
            &gw,
            &fd_gradient(&|v: &[f64]| leaky(&xs, v), &w),
            1e-6,
            "leaky w",
        );
        let g = split_dot_grad(&w, 2).1;
        let want: Vec<f64> = (0..5)
            .map(|i| {
                let pair = match i {
                    0 | 1 => w[i + 2],
                    2 | 3 => w[i - 2],
                    _ => 0.0,
                };
                pair + if i % 2 == 0 { 2.0 * w[i] } else { 0.0 }
            })
            .collect();
        assert_all_close(&g, &want, 1e-12, "split_dot by hand");
        let (_, _, h) = split_dot_hessian(&w, 2);
        assert_eq!(h[0], vec![2.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!(h[4], vec![0.0, 0.0, 0.0, 0.0, 2.0]);
    }
}

#[differentiable]
fn rotated(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        out.push(x[i].tanh() * x[(i + 1) % x.len()]);
    }
    out
}

#[test]
fn a_vec_result_has_a_jacobian() {
    let mut rng = Lcg::new(2804);
    for _ in 0..6 {
        let x = rng.vec(4, -1.5, 1.5);
        let j = rotated_jacobian(&x);
        for (r, row) in j.iter().enumerate() {
            let want = fd_gradient(&|v: &[f64]| rotated(v)[r], &x);
            assert_all_close(row, &want, 1e-6, "rotated Jacobian");
        }
    }
}

fn weight(a: f64) -> f64 {
    1.0 / (1.0 + a * a)
}

/// Data `c` outside `wrt(..)` passed to a plain helper, at `order = 2`: through `stop_gradient`.
#[differentiable(order = 2, wrt(x))]
fn weighted(x: &[f64], c: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i] * x[i] * weight(stop_gradient(c[i]));
    }
    s
}

#[test]
fn data_passed_to_a_plain_helper_at_order_2() {
    let mut rng = Lcg::new(2805);
    for _ in 0..6 {
        let x = rng.vec(3, -2.0, 2.0);
        let c = rng.vec(3, -2.0, 2.0);
        let (_, grad) = weighted_grad(&x, &c);
        let want: Vec<f64> = (0..3).map(|i| 3.0 * x[i] * x[i] * weight(c[i])).collect();
        assert_all_close(&grad, &want, 1e-12, "weighted gradient");
        let (_, _, h) = weighted_hessian(&x, &c);
        for i in 0..3 {
            for k in 0..3 {
                let want = if i == k {
                    6.0 * x[i] * weight(c[i])
                } else {
                    0.0
                };
                assert_close(h[i][k], want, 1e-12, "weighted Hessian");
            }
        }
    }
}

#[custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

mod outside {
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

#[gradient_of(outside::cube)]
fn cube_vjp(x: f64, dy: f64) -> f64 {
    dy * 3.0 * x * x
}

#[differentiable(order = 4)]
fn series(x: f64, degree: usize) -> f64 {
    let mut s = 0.0;
    let mut t = 1.0;
    for _ in 0..degree {
        t *= x;
        s += t;
    }
    s + log1pexp(x) + outside::cube(x)
}

#[test]
fn fourth_derivatives_through_custom_and_registered_gradients() {
    let mut rng = Lcg::new(2806);
    for _ in 0..10 {
        let x = rng.uniform(-2.0, 2.0);
        let d = series_derivatives(x, 3);
        let s = 1.0 / (1.0 + (-x).exp());
        let want = [
            x + x * x + 2.0 * x * x * x + (1.0 + x.exp()).ln(),
            1.0 + 2.0 * x + 6.0 * x * x + s,
            2.0 + 12.0 * x + s * (1.0 - s),
            12.0 + s * (1.0 - s) * (1.0 - 2.0 * s),
            s * (1.0 - s) * (1.0 - 6.0 * s + 6.0 * s * s),
        ];
        assert_all_close(&d, &want, 1e-10, "series derivatives");
        assert_close(series(x, 3), want[0], 1e-12, "series value");
    }
}

#[differentiable(order = 2)]
fn ends_of_windows(xs: &[f64], k: usize) -> f64 {
    let m = xs[1..]
        .iter()
        .copied()
        .max_by(|p, q| p.partial_cmp(q).unwrap())
        .unwrap();
    let n = *xs[k..].iter().min_by(|p, q| p.total_cmp(q)).expect("empty");
    let l = *xs[..k].last().unwrap();
    let f = xs[1..3].first().copied().unwrap_or(0.0);
    m * n + l * f.sin()
}

#[test]
fn ends_and_extremes_of_sub_slices() {
    let mut rng = Lcg::new(2807);
    for _ in 0..20 {
        let xs = rng.vec(6, -2.0, 2.0);
        let k = 2;
        let argmax = (1..6).fold(1, |b, i| if xs[i] >= xs[b] { i } else { b });
        let argmin = (k..6).fold(k, |b, i| if xs[i] < xs[b] { i } else { b });
        let (value, grad) = ends_of_windows_grad(&xs, k);
        let (m, n, l, f) = (xs[argmax], xs[argmin], xs[k - 1], xs[1]);
        assert_close(value, m * n + l * f.sin(), 1e-12, "ends value");
        let mut want = vec![0.0; 6];
        want[argmax] += n;
        want[argmin] += m;
        want[k - 1] += f.sin();
        want[1] += l * f.cos();
        assert_all_close(&grad, &want, 1e-12, "ends gradient by hand");
        assert_all_close(
            &grad,
            &fd_gradient(&|v: &[f64]| ends_of_windows(v, k), &xs),
            1e-6,
            "ends gradient",
        );
    }
}

#[differentiable(order = 2)]
fn nested_views(b: f64, xs: &[f64]) -> f64 {
    let mut acc = 0.0;
    let mut view = &xs[0..];
    for t in 0..3 {
        acc += view[0] * b + view[view.len() - 1] * (t as f64 + 1.0);
        view = &xs[1..][t..t + 2];
    }
    acc * acc
}

#[test]
fn a_view_rebound_to_a_sub_slice_of_a_sub_slice() {
    let mut rng = Lcg::new(2808);
    for _ in 0..10 {
        let b = rng.uniform(-1.0, 1.0);
        let xs = rng.vec(5, -2.0, 2.0);
        // Windows: xs[0..5], then xs[1..3], xs[2..4].
        let inner = b * (xs[0] + xs[1] + xs[2]) + xs[4] + 2.0 * xs[2] + 3.0 * xs[3];
        let (value, (gb, gx)) = nested_views_grad(b, &xs);
        assert_close(value, inner * inner, 1e-12, "nested views value");
        let d = 2.0 * inner;
        assert_close(gb, d * (xs[0] + xs[1] + xs[2]), 1e-12, "nested views b");
        let want = [d * b, d * b, d * (b + 2.0), d * 3.0, d];
        assert_all_close(&gx, &want, 1e-12, "nested views xs by hand");
        let f = |v: &[f64]| nested_views(b, v);
        assert_all_close(&gx, &fd_gradient(&f, &xs), 1e-6, "nested views xs");
    }
}
