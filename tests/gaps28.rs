//! Session 28 gaps, valid programs that failed at first order:
//! 1. a tuple computed from an integer parameter alone (`((0.5, -1.25), 2.0 * k as f64)`) passed by
//!    reference to a plain function was taken for a differentiated one, and the call rewritten to a
//!    missing `__weigh_split` (E0425); a call passes a tuple's parts only when one of its arguments may be
//!    differentiated.
//! 2. a `Vec` made empty inside a loop or branch body and pushed to (or popped from) there was refused:
//!    its adjoint's push counter was declared outside the region. It now starts, with the buffer, at the
//!    array's length at the region's end, each iteration's. A `.collect()` in a region (lowered to pushes
//!    to an empty `Vec`) works so too.
//! 3. a slice parameter declared `mut` and rebound to sub-slices of itself (`xs = &xs[1..];`) got "input
//!    cannot be written"; it is now a slice local bound to the parameter, a view into it, and the gradient
//!    has the parameter's full length.
//! 4. `let Some(v) = s.pop() else { .. };`, `s.pop().unwrap_or(d)` and `.last()`/`.first()` with a default
//!    (`x.last().copied().unwrap_or(d)`, `*y.first().unwrap_or(&d)`) were spanned errors; they are the
//!    branches they mean (`std_forms.rs`), the default evaluated where `unwrap_or` evaluates it.
//!
//! Every function is checked against analytic derivatives and central differences (`common`, no code
//! shared with the macro) at several points; the `order = 2` ones also their Hessians against differences
//! of their gradients.

#![allow(
    clippy::needless_range_loop,
    clippy::useless_vec,
    clippy::while_let_loop
)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, hessian_column, Inputs, ANALYTIC_TOL,
};

fn weigh(w: &((f64, f64), f64), a: f64) -> f64 {
    (w.0 .0 * a + w.0 .1) * w.1
}

#[differentiable(order = 2)]
fn g2(x: f64, y: f64, k: usize) -> f64 {
    let w = ((0.5, -1.25), 2.0 * k as f64);
    x * y * weigh(&w, 3.0)
}

#[differentiable(order = 2)]
fn weigh_d(w: &(f64, f64, f64), a: f64) -> f64 {
    (w.0 * a + w.1) * w.2
}

#[differentiable(order = 2)]
fn g3(x: f64, y: f64, k: usize) -> f64 {
    let w = (0.5, -1.25, 2.0 * k as f64);
    x * y * weigh_d(&w, 3.0) + weigh_d(&(x, 1.0, k as f64), y) + weigh_d(&(0.5, k as f64, 1.5), x)
}

#[differentiable(order = 2)]
fn flat(w: &(f64, f64)) -> f64 {
    w.0 * w.1
}

#[differentiable(order = 2)]
fn c0(x: f64, k: usize, idx: &[usize]) -> f64 {
    let c = (1.0, k as f64);
    let d = (x * 2.0, k as f64);
    x * flat(&c) + flat(&d) + flat(&(idx[0] as f64, x)) + x * flat(&(idx[1] as f64, 0.5))
}

#[test]
fn integer_tuple_to_plain_function() {
    // weigh(&w, 3) = (1.5 - 1.25) * 2k = k / 2: g2 = k x y / 2.
    let mut inputs = Inputs(2801);
    for k in 0..4 {
        for _ in 0..5 {
            let (x, y) = (2.0 * inputs.next(), 2.0 * inputs.next());
            let kf = k as f64;
            let (v, (dx, dy)) = g2_grad(x, y, k);
            assert_close(v, 0.5 * kf * x * y, ANALYTIC_TOL, "g2");
            assert_all_close(
                &[dx, dy],
                &[0.5 * kf * y, 0.5 * kf * x],
                ANALYTIC_TOL,
                "g2'",
            );
            assert_fd_gradient(|p| g2(p[0], p[1], k), &[x, y], &[dx, dy], "g2' fd");
            let (_, _, m) = g2_hessian(x, y, k);
            let grad = |p: &[f64]| {
                let (_, (a, b)) = g2_grad(p[0], p[1], k);
                vec![a, b]
            };
            for i in 0..2 {
                let expected = [[0.0, 0.5 * kf], [0.5 * kf, 0.0]][i];
                assert_all_close(&m[i], &expected, ANALYTIC_TOL, "g2''");
                assert_all_close(&m[i], &hessian_column(grad, &[x, y], i), 1e-6, "g2'' fd");
            }
        }
    }
}

#[test]
fn integer_tuple_to_differentiable_function() {
    // g3 = k x y / 2 + k (x y + 1) + 1.5 (x / 2 + k).
    let mut inputs = Inputs(2802);
    for k in 0..4 {
        for _ in 0..5 {
            let (x, y) = (2.0 * inputs.next(), 2.0 * inputs.next());
            let kf = k as f64;
            let (v, (dx, dy)) = g3_grad(x, y, k);
            let value = 0.5 * kf * x * y + kf * (x * y + 1.0) + 1.5 * (0.5 * x + kf);
            assert_close(v, value, ANALYTIC_TOL, "g3");
            let expected = [1.5 * kf * y + 0.75, 1.5 * kf * x];
            assert_all_close(&[dx, dy], &expected, ANALYTIC_TOL, "g3'");
            assert_fd_gradient(|p| g3(p[0], p[1], k), &[x, y], &[dx, dy], "g3' fd");
            let (_, _, m) = g3_hessian(x, y, k);
            let grad = |p: &[f64]| {
                let (_, (a, b)) = g3_grad(p[0], p[1], k);
                vec![a, b]
            };
            for i in 0..2 {
                let expected = [[0.0, 1.5 * kf], [1.5 * kf, 0.0]][i];
                assert_all_close(&m[i], &expected, ANALYTIC_TOL, "g3''");
                assert_all_close(&m[i], &hessian_column(grad, &[x, y], i), 1e-6, "g3'' fd");
            }
        }
    }
}

#[test]
fn integer_tuples_beside_active_ones() {
    // c0 = x (3k + idx[0] + idx[1] / 2).
    let mut inputs = Inputs(2803);
    for k in 0..3 {
        for idx in [[0, 1], [2, 5], [3, 0]] {
            let x = 2.0 * inputs.next();
            let slope = 3.0 * k as f64 + idx[0] as f64 + 0.5 * idx[1] as f64;
            let (v, dx) = c0_grad(x, k, &idx);
            assert_close(v, slope * x, ANALYTIC_TOL, "c0");
            assert_close(dx, slope, ANALYTIC_TOL, "c0'");
            assert_fd_gradient(|p| c0(p[0], k, &idx), &[x], &[dx], "c0' fd");
            let (_, _, h) = c0_hessian(x, k, &idx);
            assert_close(h[0][0], 0.0, ANALYTIC_TOL, "c0''");
        }
    }
}

#[differentiable(order = 2)]
fn rows(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut r = Vec::new();
        for &v in x {
            r.push(v * (i as f64 + 1.0));
            r.push(2.0);
        }
        for j in 0..r.len() {
            s += r[j] * r[j] * (j as f64 + 0.5);
        }
    }
    s
}

#[differentiable(order = 2)]
fn branchy(x: &[f64], flag: bool) -> f64 {
    let mut s = 0.0;
    if flag {
        let mut r = Vec::with_capacity(x.len());
        for &v in x {
            r.push(v.sin());
        }
        r.push(1.5);
        for j in 0..r.len() {
            s += r[j] * r[j];
        }
    } else {
        s = x[0] * 3.0;
    }
    s
}

#[differentiable(order = 2)]
fn popper(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut r = Vec::new();
        for &v in x {
            r.push(v * v);
        }
        let top = r.pop().unwrap();
        r.push(top * (i as f64 + 2.0));
        while let Some(v) = r.pop() {
            s += v * (r.len() as f64 + 1.0);
        }
    }
    s
}

#[differentiable(order = 2)]
fn deep(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..2 {
            let mut r = Vec::new();
            for &v in x {
                if v > 0.0 {
                    r.push(v * (i + j + 1) as f64);
                } else {
                    r.push(v.exp());
                    r.push(0.5);
                }
            }
            for t in 0..r.len() {
                s += r[t] * r[t] * (t as f64 + 1.0);
            }
        }
    }
    s
}

/// Points with no coordinate within `1e-3` of zero (`deep` branches on the sign).
fn points(seed: u64, m: usize) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    (0..8)
        .map(|_| {
            (0..m)
                .map(|_| {
                    let v = 2.0 * inputs.next();
                    if v.abs() < 1e-3 {
                        0.5
                    } else {
                        v
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn vec_pushed_in_loop_body() {
    for x in points(2804, 3) {
        for n in 0..4 {
            let c: f64 = (0..n).map(|i| ((i + 1) * (i + 1)) as f64).sum();
            let (v, g) = rows_grad(&x, n);
            let value: f64 = (0..x.len())
                .map(|k| (x[k] * x[k] * c + 4.0 * n as f64) * (2.0 * k as f64 + 0.5))
                .sum::<f64>()
                + (0..x.len())
                    .map(|k| 4.0 * n as f64 * (2.0 * k as f64 + 1.5))
                    .sum::<f64>()
                - (0..x.len())
                    .map(|k| 4.0 * n as f64 * (2.0 * k as f64 + 0.5))
                    .sum::<f64>();
            assert_close(v, value, ANALYTIC_TOL, "rows");
            let expected: Vec<f64> = (0..x.len())
                .map(|k| 2.0 * x[k] * (2.0 * k as f64 + 0.5) * c)
                .collect();
            assert_all_close(&g, &expected, ANALYTIC_TOL, "rows'");
            assert_fd_gradient(|p| rows(p, n), &x, &g, "rows' fd");
            let (_, _, m) = rows_hessian(&x, n);
            for i in 0..x.len() {
                let column = hessian_column(|p| rows_grad(p, n).1, &x, i);
                assert_all_close(&m[i], &column, 1e-6, "rows'' fd");
                assert_close(
                    m[i][i],
                    2.0 * (2.0 * i as f64 + 0.5) * c,
                    ANALYTIC_TOL,
                    "rows''",
                );
            }
        }
    }
}

#[test]
fn vec_pushed_in_branch() {
    for x in points(2805, 4) {
        for flag in [true, false] {
            let (v, g) = branchy_grad(&x, flag);
            let (value, expected): (f64, Vec<f64>) = if flag {
                let value = x.iter().map(|v| v.sin() * v.sin()).sum::<f64>() + 2.25;
                (value, x.iter().map(|v| 2.0 * v.sin() * v.cos()).collect())
            } else {
                let mut e = vec![0.0; x.len()];
                e[0] = 3.0;
                (3.0 * x[0], e)
            };
            assert_close(v, value, ANALYTIC_TOL, "branchy");
            assert_all_close(&g, &expected, ANALYTIC_TOL, "branchy'");
            assert_fd_gradient(|p| branchy(p, flag), &x, &g, "branchy' fd");
            let (_, _, m) = branchy_hessian(&x, flag);
            for i in 0..x.len() {
                let column = hessian_column(|p| branchy_grad(p, flag).1, &x, i);
                assert_all_close(&m[i], &column, 1e-6, "branchy'' fd");
            }
        }
    }
}

#[test]
fn vec_pushed_and_popped_in_loop_body() {
    for x in points(2806, 4) {
        let m = x.len();
        for n in 0..4 {
            let tops: f64 = (0..n).map(|i| i as f64 + 2.0).sum();
            let (v, g) = popper_grad(&x, n);
            let value = n as f64
                * (0..m - 1)
                    .map(|k| x[k] * x[k] * (k as f64 + 1.0))
                    .sum::<f64>()
                + x[m - 1] * x[m - 1] * m as f64 * tops;
            assert_close(v, value, ANALYTIC_TOL, "popper");
            let mut expected: Vec<f64> = (0..m)
                .map(|k| 2.0 * x[k] * (k as f64 + 1.0) * n as f64)
                .collect();
            expected[m - 1] = 2.0 * x[m - 1] * m as f64 * tops;
            assert_all_close(&g, &expected, ANALYTIC_TOL, "popper'");
            assert_fd_gradient(|p| popper(p, n), &x, &g, "popper' fd");
            let (_, _, h) = popper_hessian(&x, n);
            for i in 0..m {
                let column = hessian_column(|p| popper_grad(p, n).1, &x, i);
                assert_all_close(&h[i], &column, 1e-6, "popper'' fd");
            }
        }
    }
}

/// `deep`'s value and gradient by hand: each element's slot in its row depends on the signs before it.
fn deep_by_hand(x: &[f64], n: usize) -> (f64, Vec<f64>) {
    let (mut s, mut g) = (0.0, vec![0.0; x.len()]);
    for i in 0..n {
        for j in 0..2 {
            let mut t = 1.0;
            for (k, &v) in x.iter().enumerate() {
                if v > 0.0 {
                    let c = (i + j + 1) as f64;
                    s += v * v * c * c * t;
                    g[k] += 2.0 * v * c * c * t;
                    t += 1.0;
                } else {
                    s += (2.0 * v).exp() * t + 0.25 * (t + 1.0);
                    g[k] += 2.0 * (2.0 * v).exp() * t;
                    t += 2.0;
                }
            }
        }
    }
    (s, g)
}

#[test]
fn vec_pushed_two_loops_deep() {
    for x in points(2807, 5) {
        for n in 0..3 {
            let (v, g) = deep_grad(&x, n);
            let (value, expected) = deep_by_hand(&x, n);
            assert_close(v, value, ANALYTIC_TOL, "deep");
            assert_all_close(&g, &expected, ANALYTIC_TOL, "deep'");
            assert_fd_gradient(|p| deep(p, n), &x, &g, "deep' fd");
            let (_, _, m) = deep_hessian(&x, n);
            for i in 0..x.len() {
                let column = hessian_column(|p| deep_grad(p, n).1, &x, i);
                assert_all_close(&m[i], &column, 1e-6, "deep'' fd");
            }
        }
    }
}

#[test]
fn vec_pushed_in_regions_forward() {
    // The tangent of each, `f_jvp`, is the gradient's inner product with it.
    let mut inputs = Inputs(2808);
    for x in points(2809, 4) {
        let t = inputs.vec(4);
        let dot = |g: &[f64]| g.iter().zip(&t).map(|(a, b)| a * b).sum::<f64>();
        for n in 0..3 {
            assert_close(
                rows_jvp(&x, n, t.clone()).1,
                dot(&rows_grad(&x, n).1),
                1e-12,
                "rows jvp",
            );
            assert_close(
                popper_jvp(&x, n, t.clone()).1,
                dot(&popper_grad(&x, n).1),
                1e-12,
                "popper jvp",
            );
            assert_close(
                deep_jvp(&x, n, t.clone()).1,
                dot(&deep_by_hand(&x, n).1),
                1e-12,
                "deep jvp",
            );
        }
        let flag = x[1] > 0.0;
        assert_close(
            branchy_jvp(&x, flag, t.clone()).1,
            dot(&branchy_grad(&x, flag).1),
            1e-12,
            "branchy jvp",
        );
    }
}

#[differentiable(order = 2)]
fn doubled(x: &[f64]) -> Vec<f64> {
    if x[0] > 0.0 {
        return x.iter().map(|v| v * 2.0).collect();
    }
    x.to_vec()
}

#[differentiable(order = 2)]
fn collected_in_loop(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let r: Vec<f64> = x.iter().map(|v| v * (i as f64 + 1.0)).collect();
        s += r.iter().map(|v| v * v).sum::<f64>();
    }
    s
}

#[test]
fn vec_collected_in_regions() {
    let mut inputs = Inputs(2815);
    for x in points(2816, 3) {
        let d = inputs.vec(3);
        let scale = if x[0] > 0.0 { 2.0 } else { 1.0 };
        let (v, g) = doubled_vjp(&x, d.clone());
        let value: Vec<f64> = x.iter().map(|v| v * scale).collect();
        assert_all_close(&v, &value, ANALYTIC_TOL, "doubled");
        let expected: Vec<f64> = d.iter().map(|d| d * scale).collect();
        assert_all_close(&g, &expected, ANALYTIC_TOL, "doubled vjp");
        let (_, t) = doubled_jvp(&x, d.clone());
        assert_all_close(&t, &expected, ANALYTIC_TOL, "doubled jvp");
        for n in 0..4 {
            let c: f64 = (0..n).map(|i| ((i + 1) * (i + 1)) as f64).sum();
            let (v, g) = collected_in_loop_grad(&x, n);
            assert_close(
                v,
                c * x.iter().map(|v| v * v).sum::<f64>(),
                ANALYTIC_TOL,
                "collected",
            );
            let expected: Vec<f64> = x.iter().map(|v| 2.0 * c * v).collect();
            assert_all_close(&g, &expected, ANALYTIC_TOL, "collected'");
            assert_fd_gradient(|p| collected_in_loop(p, n), &x, &g, "collected' fd");
            let (_, _, m) = collected_in_loop_hessian(&x, n);
            for i in 0..3 {
                for j in 0..3 {
                    let e = if i == j { 2.0 * c } else { 0.0 };
                    assert_close(m[i][j], e, ANALYTIC_TOL, "collected''");
                }
            }
        }
    }
}

#[differentiable(order = 2)]
fn constant_pushes(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut idx = Vec::new();
        let mut c = Vec::new();
        idx.push(i % x.len());
        c.push(0.5 * i as f64);
        c.push(1.0);
        s += x[idx[0]] * x[idx[0]] * (c[0] + c[1]);
    }
    s
}

#[test]
fn constant_vecs_pushed_in_loop_body() {
    for x in points(2817, 3) {
        for n in 0..5 {
            let (v, g) = constant_pushes_grad(&x, n);
            let (mut value, mut expected) = (0.0, vec![0.0; 3]);
            for i in 0..n {
                let c = 0.5 * i as f64 + 1.0;
                value += x[i % 3] * x[i % 3] * c;
                expected[i % 3] += 2.0 * x[i % 3] * c;
            }
            assert_close(v, value, ANALYTIC_TOL, "constant_pushes");
            assert_all_close(&g, &expected, ANALYTIC_TOL, "constant_pushes'");
            assert_fd_gradient(|p| constant_pushes(p, n), &x, &g, "constant_pushes' fd");
        }
    }
}

#[differentiable(order = 2)]
fn tail(mut xs: &[f64]) -> f64 {
    let mut s = 0.0;
    while xs.len() > 1 {
        s += xs[0] * xs[1];
        xs = &xs[1..];
    }
    s
}

#[differentiable(order = 2)]
fn from_k(mut xs: &[f64], k: usize) -> f64 {
    xs = &xs[k..];
    xs[0] * xs[xs.len() - 1]
}

#[differentiable(order = 2)]
fn halves(mut xs: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..3 {
        if xs.len() > 2 {
            xs = &xs[..xs.len() / 2 + 1];
        } else {
            xs = &xs[1..];
        }
        s += w * xs.iter().map(|v| v * v).sum::<f64>();
    }
    s
}

#[differentiable(order = 2)]
fn stepped(mut a: &[f64], mut b: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += a[0].sin() * b[b.len() - 1] * (i as f64 + 1.0);
        a = &a[1..];
        b = &b[..b.len() - 1];
    }
    s + a[0]
}

#[test]
fn rebound_slice_parameter() {
    for x in points(2810, 5) {
        let (v, g) = tail_grad(&x);
        let value: f64 = (0..4).map(|k| x[k] * x[k + 1]).sum();
        assert_close(v, value, ANALYTIC_TOL, "tail");
        let expected: Vec<f64> = (0..5)
            .map(|k| if k > 0 { x[k - 1] } else { 0.0 } + if k < 4 { x[k + 1] } else { 0.0 })
            .collect();
        assert_all_close(&g, &expected, ANALYTIC_TOL, "tail'");
        assert_fd_gradient(tail, &x, &g, "tail' fd");
        let (_, _, m) = tail_hessian(&x);
        for i in 0..5usize {
            for j in 0..5 {
                let e = if i.abs_diff(j) == 1 { 1.0 } else { 0.0 };
                assert_close(m[i][j], e, ANALYTIC_TOL, "tail''");
            }
        }
        for k in 0..5 {
            let (v, g) = from_k_grad(&x, k);
            assert_close(v, x[k] * x[4], ANALYTIC_TOL, "from_k");
            let mut expected = vec![0.0; 5];
            expected[k] += x[4];
            expected[4] += x[k];
            assert_all_close(&g, &expected, ANALYTIC_TOL, "from_k'");
            assert_fd_gradient(|p| from_k(p, k), &x, &g, "from_k' fd");
            let (_, _, m) = from_k_hessian(&x, k);
            for i in 0..5 {
                let column = hessian_column(|p| from_k_grad(p, k).1, &x, i);
                assert_all_close(&m[i], &column, 1e-6, "from_k'' fd");
            }
        }
    }
}

#[test]
fn slice_parameter_rebound_in_branches() {
    let mut inputs = Inputs(2811);
    for x in points(2812, 6) {
        let w = inputs.next();
        // Windows of lengths 4, 3, 2 (all of length 6 at first): x0 and x1 three times, x2 twice, x3 once.
        let counts = [3.0, 3.0, 2.0, 1.0, 0.0, 0.0];
        let (v, (g, dw)) = halves_grad(&x, w);
        let sum: f64 = (0..6).map(|k| counts[k] * x[k] * x[k]).sum();
        assert_close(v, w * sum, ANALYTIC_TOL, "halves");
        assert_close(dw, sum, ANALYTIC_TOL, "halves' w");
        let expected: Vec<f64> = (0..6).map(|k| 2.0 * w * counts[k] * x[k]).collect();
        assert_all_close(&g, &expected, ANALYTIC_TOL, "halves'");
        assert_fd_gradient(|p| halves(p, w), &x, &g, "halves' fd");
        let (_, _, m) = halves_hessian(&x, w);
        let flat = |p: &[f64]| {
            let (_, (g, dw)) = halves_grad(&p[..6], p[6]);
            g.into_iter().chain([dw]).collect::<Vec<f64>>()
        };
        let mut at = x.clone();
        at.push(w);
        for i in 0..7 {
            assert_all_close(&m[i], &hessian_column(flat, &at, i), 1e-6, "halves'' fd");
        }
    }
}

#[test]
fn two_slice_parameters_rebound() {
    for x in points(2813, 4) {
        let y: Vec<f64> = x.iter().map(|v| 1.0 - v).collect();
        for n in 0..4 {
            let (v, (ga, gb)) = stepped_grad(&x, &y, n);
            let mut value = x[n];
            let (mut ea, mut eb) = (vec![0.0; 4], vec![0.0; 4]);
            ea[n] += 1.0;
            for i in 0..n {
                let c = i as f64 + 1.0;
                value += x[i].sin() * y[3 - i] * c;
                ea[i] += x[i].cos() * y[3 - i] * c;
                eb[3 - i] += x[i].sin() * c;
            }
            assert_close(v, value, ANALYTIC_TOL, "stepped");
            assert_all_close(&ga, &ea, ANALYTIC_TOL, "stepped' a");
            assert_all_close(&gb, &eb, ANALYTIC_TOL, "stepped' b");
            assert_fd_gradient(|p| stepped(p, &y, n), &x, &ga, "stepped' a fd");
            assert_fd_gradient(|p| stepped(&x, p, n), &y, &gb, "stepped' b fd");
        }
    }
}

#[differentiable(order = 2)]
fn source_rebound<'a>(x: &'a [f64], mut y: &'a [f64]) -> f64 {
    let mut s = y[0] * y[1];
    y = &x[1..];
    for t in 0..3 {
        s += y[t] * (t as f64 + 1.0);
    }
    s + y[3] * y[0]
}

#[test]
fn slice_parameter_rebound_to_another() {
    // y is x[1..] after its first read: s = y0 y1 + x1 + 2 x2 + 3 x3 + x4 x1.
    for x in points(2814, 5) {
        let y = [7.0, 8.0];
        let (v, (gx, gy)) = source_rebound_grad(&x, &y);
        let value = 56.0 + x[1] + 2.0 * x[2] + 3.0 * x[3] + x[4] * x[1];
        assert_close(v, value, ANALYTIC_TOL, "source_rebound");
        let expected = [0.0, 1.0 + x[4], 2.0, 3.0, x[1]];
        assert_all_close(&gx, &expected, ANALYTIC_TOL, "source_rebound' x");
        assert_all_close(&gy, &[8.0, 7.0], ANALYTIC_TOL, "source_rebound' y");
        assert_fd_gradient(|p| source_rebound(p, &y), &x, &gx, "source_rebound' fd");
    }
}

#[differentiable(order = 2)]
fn popped_or(x: &[f64]) -> f64 {
    let mut s = Vec::new();
    for &v in x {
        s.push(v * v);
    }
    let t = s.pop().unwrap_or(0.5);
    let u = s.pop().unwrap_or(x[0] * 2.0);
    // The default reads `s` after the pop.
    let w = s.pop().unwrap_or(s.len() as f64 + x[0]);
    t * 3.0 + u + w
}

#[differentiable(order = 2)]
fn ends_or(x: &[f64], y: &[f64]) -> f64 {
    let v = vec![x[0] * 2.0, 3.0];
    let r = v.first().cloned().unwrap_or(0.0);
    let t = x.last().unwrap_or(&1.5);
    x.last().copied().unwrap_or(0.0) * 2.0
        + *y.first().unwrap_or(&x[0])
        + r * t
        + y.last().copied().unwrap_or(-1.0)
}

#[differentiable(order = 2)]
fn let_else_break(x: &[f64], n: usize) -> f64 {
    let mut s = Vec::new();
    for i in 0..n {
        s.push(x[i % x.len()] * 2.0);
    }
    let mut acc = 0.0;
    loop {
        let Some(v) = s.pop() else { break };
        acc += v * v * (s.len() as f64 + 1.0);
    }
    acc
}

#[differentiable(order = 2)]
fn let_else_return(x: &[f64]) -> f64 {
    let mut s = x.to_vec();
    let Some(v) = s.pop() else {
        return 0.0;
    };
    let Some(w) = s.pop() else {
        return v.sin();
    };
    v * w * s.len() as f64
}

#[test]
fn pop_with_default() {
    for x in points(2818, 4) {
        for n in 1..=4 {
            let x = &x[..n];
            let sq = |k: usize| x[k] * x[k];
            let (value, mut expected) = (
                match n {
                    1 => 3.0 * sq(0) + 2.0 * x[0] + x[0],
                    2 => 3.0 * sq(1) + sq(0) + x[0],
                    _ => 3.0 * sq(n - 1) + sq(n - 2) + sq(n - 3),
                },
                vec![0.0; n],
            );
            match n {
                1 => expected[0] = 6.0 * x[0] + 3.0,
                2 => expected = vec![2.0 * x[0] + 1.0, 6.0 * x[1]],
                _ => {
                    expected[n - 1] = 6.0 * x[n - 1];
                    expected[n - 2] = 2.0 * x[n - 2];
                    expected[n - 3] = 2.0 * x[n - 3];
                }
            }
            let (v, g) = popped_or_grad(x);
            assert_close(v, value, ANALYTIC_TOL, "popped_or");
            assert_all_close(&g, &expected, ANALYTIC_TOL, "popped_or'");
            assert_fd_gradient(popped_or, x, &g, "popped_or' fd");
            let (_, _, m) = popped_or_hessian(x);
            for i in 0..n {
                let column = hessian_column(|p| popped_or_grad(p).1, x, i);
                assert_all_close(&m[i], &column, 1e-6, "popped_or'' fd");
            }
        }
    }
}

#[test]
fn first_and_last_with_default() {
    for x in points(2819, 3) {
        for m in 0..3 {
            let y: Vec<f64> = x.iter().take(m).map(|v| v * 0.5 + 1.0).collect();
            // y's ends are constants here (their gradient is checked by differences below).
            let first_y = y.first().copied().unwrap_or(x[0]);
            let last_y = y.last().copied().unwrap_or(-1.0);
            let value = x[2] * 2.0 + first_y + 2.0 * x[0] * x[2] + last_y;
            let (v, (gx, gy)) = ends_or_grad(&x, &y);
            assert_close(v, value, ANALYTIC_TOL, "ends_or");
            let mut expected = [2.0 * x[2], 0.0, 2.0 + 2.0 * x[0]];
            if m == 0 {
                expected[0] += 1.0;
            }
            assert_all_close(&gx, &expected, ANALYTIC_TOL, "ends_or' x");
            assert_fd_gradient(|p| ends_or(p, &y), &x, &gx, "ends_or' x fd");
            if m > 0 {
                assert_fd_gradient(|p| ends_or(&x, p), &y, &gy, "ends_or' y fd");
            }
            let (_, _, h) = ends_or_hessian(&x, &y);
            let flat = |p: &[f64]| {
                let (_, (gx, gy)) = ends_or_grad(&p[..3], &p[3..]);
                gx.into_iter().chain(gy).collect::<Vec<f64>>()
            };
            let at: Vec<f64> = x.iter().chain(&y).copied().collect();
            for i in 0..at.len() {
                assert_all_close(&h[i], &hessian_column(flat, &at, i), 1e-6, "ends_or'' fd");
            }
        }
    }
}

#[test]
fn pop_with_let_else() {
    for x in points(2820, 3) {
        for n in 0..6 {
            // s = [2 x_(i % 3)]; the pop of s[i] is weighted i + 1.
            let (mut value, mut expected) = (0.0, vec![0.0; 3]);
            for i in 0..n {
                let v = 2.0 * x[i % 3];
                value += v * v * (i as f64 + 1.0);
                expected[i % 3] += 8.0 * x[i % 3] * (i as f64 + 1.0);
            }
            let (v, g) = let_else_break_grad(&x, n);
            assert_close(v, value, ANALYTIC_TOL, "let_else_break");
            assert_all_close(&g, &expected, ANALYTIC_TOL, "let_else_break'");
            assert_fd_gradient(|p| let_else_break(p, n), &x, &g, "let_else_break' fd");
            let (_, _, m) = let_else_break_hessian(&x, n);
            for i in 0..3 {
                let column = hessian_column(|p| let_else_break_grad(p, n).1, &x, i);
                assert_all_close(&m[i], &column, 1e-6, "let_else_break'' fd");
            }
        }
        for n in 0..=3 {
            let x = &x[..n];
            let (value, expected) = match n {
                0 => (0.0, vec![]),
                1 => (x[0].sin(), vec![x[0].cos()]),
                _ => {
                    let c = (n - 2) as f64;
                    let mut e = vec![0.0; n];
                    e[n - 1] = x[n - 2] * c;
                    e[n - 2] = x[n - 1] * c;
                    (x[n - 1] * x[n - 2] * c, e)
                }
            };
            let (v, g) = let_else_return_grad(x);
            assert_close(v, value, ANALYTIC_TOL, "let_else_return");
            assert_all_close(&g, &expected, ANALYTIC_TOL, "let_else_return'");
            if n > 0 {
                assert_fd_gradient(let_else_return, x, &g, "let_else_return' fd");
            }
        }
    }
}

#[differentiable(order = 2)]
fn until_large(x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        let mut r = Vec::new();
        for &v in x {
            if v > 0.5 {
                break;
            }
            r.push(v * (i as f64 + 1.0));
        }
        r.push(1.0);
        for j in 0..r.len() {
            s += r[j] * r[j] * (j as f64 + 1.0);
        }
    }
    s
}

#[test]
fn vec_pushed_in_loop_body_until_break() {
    for x in points(2821, 5) {
        // The prefix before the first element above 0.5 is pushed, then a 1.
        let p = x.iter().position(|&v| v > 0.5).unwrap_or(x.len());
        for n in 0..3 {
            let c2: f64 = (0..n).map(|i| ((i + 1) * (i + 1)) as f64).sum();
            let value = (0..p).map(|j| x[j] * x[j] * (j as f64 + 1.0)).sum::<f64>() * c2
                + n as f64 * (p as f64 + 1.0);
            let mut expected = vec![0.0; 5];
            for j in 0..p {
                expected[j] = 2.0 * x[j] * c2 * (j as f64 + 1.0);
            }
            let (v, g) = until_large_grad(&x, n);
            assert_close(v, value, ANALYTIC_TOL, "until_large");
            assert_all_close(&g, &expected, ANALYTIC_TOL, "until_large'");
            assert_fd_gradient(|q| until_large(q, n), &x, &g, "until_large' fd");
            let (_, _, m) = until_large_hessian(&x, n);
            for i in 0..5 {
                let column = hessian_column(|q| until_large_grad(q, n).1, &x, i);
                assert_all_close(&m[i], &column, 1e-6, "until_large'' fd");
            }
        }
    }
}
