//! A user's own argsort: `let p: Vec<usize> = argsort(x);`, a plain helper (no derivative) returning integers
//! computed from active floats, read as indexes (`x[p[k]]`, `w[p[k]]`). The declared integer `Vec` carries no
//! derivative: the helper is called as written (on the values of its arguments in a generic copy), at first
//! order and at `order = 2`, for slices, local `Vec`s and arrays, in `f64`, `f32` and `T: Float`. Away from
//! ties the permutation is locally constant, so every derivative is that of the permuted expression:
//! checked against analytic derivatives, central differences of the function and differences of `_grad`.
//! (The undeclared `let p = argsort(x);` is an error saying to write the type:
//! tests/ui/calls/plain-helper-integer-vec-undeclared.rs.)

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, assert_jvp_is_grad_dot,
    min_gap, Inputs, ANALYTIC_TOL,
};

// ---- the user's helpers: plain functions, no derivatives

/// The indexes of `x` in ascending order of their values.
fn argsort(x: &[f64]) -> Vec<usize> {
    let mut p: Vec<usize> = (0..x.len()).collect();
    p.sort_by(|a, b| x[*a].total_cmp(&x[*b]));
    p
}

/// The same for any ordered element type (a generic function's helper).
fn argsort_g<T: PartialOrd>(x: &[T]) -> Vec<usize> {
    let mut p: Vec<usize> = (0..x.len()).collect();
    p.sort_by(|a, b| {
        x[*a]
            .partial_cmp(&x[*b])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    p
}

/// Descending, as `u32` indexes.
fn argsort_desc_u32(x: &[f64]) -> Vec<u32> {
    let mut p: Vec<u32> = (0..x.len() as u32).collect();
    p.sort_by(|a, b| x[*b as usize].total_cmp(&x[*a as usize]));
    p
}

/// Ascending, as `i64` indexes.
fn argsort_i64(x: &[f64]) -> Vec<i64> {
    argsort(x).iter().map(|i| *i as i64).collect()
}

/// The ascending order of an array of four, as an array.
fn argsort4(a: &[f64; 4]) -> [usize; 4] {
    let mut p = [0, 1, 2, 3];
    p.sort_by(|i, j| a[*i].total_cmp(&a[*j]));
    p
}

// ---- the differentiated functions (written plainly: the order-2 census sees them)

/// A weighted rank loss: the sorted values against targets `k / 2`, weighted by `w` in rank order.
#[differentiable(order = 2)]
fn weighted_rank_loss(x: &[f64], w: &[f64]) -> f64 {
    let order: Vec<usize> = argsort(x);
    let mut s = 0.0;
    for k in 0..x.len() {
        let d = x[order[k]] - 0.5 * k as f64;
        s += w[k] * d * d;
    }
    s
}

/// The sum of the cubes of the `k` largest entries (a descending order of `u32` indexes).
#[differentiable(order = 2)]
fn top_k_cubes(x: &[f64], k: usize) -> f64 {
    let down: Vec<u32> = argsort_desc_u32(x);
    let mut s = 0.0;
    for j in 0..k {
        let v = x[down[j] as usize];
        s += v * v * v;
    }
    s
}

/// A gather by the permutation: `x[p[k]] * w[k]`, the weights read through it too (`w[p[k]]`).
#[differentiable(order = 2)]
fn gathered(x: &[f64], w: &[f64]) -> f64 {
    let p: Vec<usize> = argsort(x);
    let mut s = 0.0;
    for k in 0..x.len() {
        s += x[p[k]] * w[k] + w[p[k]] * x[k].sin();
    }
    s
}

/// The helper called inside a loop, on a local `Vec` the loop rewrites: each round sorts the current
/// values and scales the smallest.
#[differentiable(order = 2)]
fn rounds(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    let mut s = 0.0;
    for r in 0..2 {
        let p: Vec<usize> = argsort(&v);
        s += v[p[0]] * v[p[v.len() - 1]];
        v[p[r]] *= 3.0;
    }
    s + v[0] * v[1]
}

/// An array parameter passed to the slice helper and to an array helper (`[usize; 4]` declared).
#[differentiable(order = 2)]
fn on_array(a: &[f64; 4]) -> f64 {
    let p: Vec<usize> = argsort(a);
    let q: [usize; 4] = argsort4(a);
    a[p[0]] * a[q[3]] + a[p[1]] * a[p[1]]
}

/// A first-order function, and an `order = 2` caller of its generic copy.
#[differentiable]
fn spread(x: &[f64]) -> f64 {
    let p: Vec<i64> = argsort_i64(x);
    x[p[x.len() - 1] as usize] - x[p[0] as usize]
}

#[differentiable(order = 2)]
fn spread_squared(x: &[f64]) -> f64 {
    let s = spread(x);
    s * s * x[0]
}

/// `f32`, through the generic helper.
#[differentiable(order = 2)]
fn smallest_two_f32(x: &[f32]) -> f32 {
    let p: Vec<usize> = argsort_g(x);
    x[p[0]] * x[p[1]] + x[p[0]].exp()
}

/// A generic function calling a generic helper.
#[differentiable(order = 2)]
fn median_of_odd<T: Float>(x: &[T]) -> T {
    let p: Vec<usize> = argsort_g(x);
    let m = x[p[x.len() / 2]];
    m * m + x[p[0]] * x[0]
}

// ---- checks

type WithGradient = (f64, Vec<f64>);
type WithHessian = (f64, Vec<f64>, Vec<Vec<f64>>);
type WithHvp = (f64, Vec<f64>, Vec<f64>);
type Jvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, f64);
type Hessian<'a> = Option<&'a dyn Fn(&[f64]) -> WithHessian>;
type Hvp<'a> = Option<&'a dyn Fn(&[f64], &[f64]) -> WithHvp>;

/// The generated items of a function of the flat point `p` (its arguments split from it by the closures).
struct Items<'a> {
    f: &'a dyn Fn(&[f64]) -> f64,
    grad: &'a dyn Fn(&[f64]) -> WithGradient,
    vjp: &'a dyn Fn(&[f64], f64) -> WithGradient,
    jvp: Jvp<'a>,
    grad_into: &'a dyn Fn(&[f64], &mut [f64]) -> f64,
    /// `None` for a first-order function.
    hessian: Hessian<'a>,
    hvp: Hvp<'a>,
}

/// Every item at `x` against the analytic value, gradient and Hessian, central differences of `f` and
/// differences of the gradient.
#[track_caller]
fn check(what: &str, x: &[f64], items: &Items, value: f64, gradient: &[f64], hessian: &[Vec<f64>]) {
    let n = x.len();
    let (v, g) = (items.grad)(x);
    assert_close(v, value, ANALYTIC_TOL, &format!("{what}: value"));
    assert_close((items.f)(x), value, ANALYTIC_TOL, &format!("{what}: f"));
    assert_all_close(&g, gradient, ANALYTIC_TOL, &format!("{what}: gradient"));
    assert_fd_gradient(items.f, x, &g, what);
    let (v2, g2) = (items.vjp)(x, -1.75);
    assert_close(v2, value, ANALYTIC_TOL, &format!("{what}: _vjp's value"));
    let scaled: Vec<f64> = g.iter().map(|d| -1.75 * d).collect();
    assert_all_close(&g2, &scaled, ANALYTIC_TOL, &format!("{what}: _vjp"));
    let tangent: Vec<f64> = (0..n).map(|i| 0.7 - 0.3 * i as f64).collect();
    let (v3, dot) = (items.jvp)(x, &tangent);
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
    let (Some(hessian_of), Some(hvp)) = (items.hessian, items.hvp) else {
        return;
    };
    let (v5, g5, h) = hessian_of(x);
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
        let what = format!("{what}: Hessian row {i}");
        assert_all_close(&h[i], &hessian[i], ANALYTIC_TOL, &what);
    }
    let what_fd = format!("{what}: Hessian by differences");
    assert_hessian_fd(&h, |p| (items.grad)(p).1, x, 1e-6, &what_fd);
    let (v6, g6, hv) = hvp(x, &tangent);
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

/// Random points of `n` entries in `[-2, 2)`, at least `1e-2` apart (no tie a difference step crosses).
fn points(seed: u64, n: usize) -> Vec<Vec<f64>> {
    let mut inputs = Inputs(seed);
    let mut out = Vec::new();
    while out.len() < 6 {
        let x: Vec<f64> = inputs.vec(n).iter().map(|v| 2.0 * v).collect();
        if min_gap(&x) > 1e-2 {
            out.push(x);
        }
    }
    out
}

fn split(p: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    (p[..n].to_vec(), p[n..].to_vec())
}

fn flat((a, b): (Vec<f64>, Vec<f64>)) -> Vec<f64> {
    a.into_iter().chain(b).collect()
}

// ---- tests

#[test]
fn a_weighted_rank_loss_has_the_permuted_derivatives() {
    for n in [3, 5] {
        for x in points(11 + n as u64, n) {
            let w: Vec<f64> = (0..n).map(|k| 0.5 + 0.25 * k as f64).collect();
            let p = argsort(&x);
            let (mut value, mut g, mut h) = (0.0, vec![0.0; 2 * n], zeros(2 * n));
            for k in 0..n {
                let (e, d) = (p[k], x[p[k]] - 0.5 * k as f64);
                value += w[k] * d * d;
                g[e] = 2.0 * w[k] * d;
                g[n + k] = d * d;
                h[e][e] = 2.0 * w[k];
                h[e][n + k] = 2.0 * d;
                h[n + k][e] = 2.0 * d;
            }
            let items = Items {
                f: &|q| weighted_rank_loss(&split(q, n).0, &split(q, n).1),
                grad: &|q| {
                    let (v, g) = weighted_rank_loss_grad(&split(q, n).0, &split(q, n).1);
                    (v, flat(g))
                },
                vjp: &|q, d| {
                    let (v, g) = weighted_rank_loss_vjp(&split(q, n).0, &split(q, n).1, d);
                    (v, flat(g))
                },
                jvp: &|q, t| {
                    let (a, b) = split(q, n);
                    weighted_rank_loss_jvp(&a, &b, split(t, n))
                },
                grad_into: &|q, g| {
                    let (gx, gw) = g.split_at_mut(n);
                    weighted_rank_loss_grad_into(&split(q, n).0, &split(q, n).1, (gx, gw))
                },
                hessian: Some(&|q| {
                    let (v, g, h) = weighted_rank_loss_hessian(&split(q, n).0, &split(q, n).1);
                    (v, flat(g), h)
                }),
                hvp: Some(&|q, t| {
                    let (a, b) = split(q, n);
                    let (v, g, hv) = weighted_rank_loss_hvp(&a, &b, split(t, n));
                    (v, flat(g), flat(hv))
                }),
            };
            let at: Vec<f64> = x.iter().chain(&w).copied().collect();
            check("weighted_rank_loss", &at, &items, value, &g, &h);
        }
    }
}

#[test]
fn a_top_k_sum_through_u32_indexes() {
    for x in points(21, 5) {
        for k in [1, 3, 5] {
            let mut down = argsort(&x);
            down.reverse();
            let (mut value, mut g, mut h) = (0.0, vec![0.0; 5], zeros(5));
            for j in 0..k {
                let (e, v) = (down[j], x[down[j]]);
                value += v * v * v;
                g[e] = 3.0 * v * v;
                h[e][e] = 6.0 * v;
            }
            let items = Items {
                f: &|q| top_k_cubes(q, k),
                grad: &|q| top_k_cubes_grad(q, k),
                vjp: &|q, d| top_k_cubes_vjp(q, k, d),
                jvp: &|q, t| top_k_cubes_jvp(q, k, t.to_vec()),
                grad_into: &|q, g| top_k_cubes_grad_into(q, k, g),
                hessian: Some(&|q| top_k_cubes_hessian(q, k)),
                hvp: Some(&|q, t| top_k_cubes_hvp(q, k, t.to_vec())),
            };
            check("top_k_cubes", &x, &items, value, &g, &h);
        }
    }
}

#[test]
fn a_gather_by_the_permutation_of_both_arguments() {
    let n = 4;
    for x in points(31, n) {
        let w = [1.5, -0.5, 0.25, 2.0];
        let p = argsort(&x);
        let (mut value, mut g, mut h) = (0.0, vec![0.0; 2 * n], zeros(2 * n));
        for k in 0..n {
            // x[p_k] w_k + w[p_k] sin x_k
            value += x[p[k]] * w[k] + w[p[k]] * x[k].sin();
            g[p[k]] += w[k];
            g[n + k] += x[p[k]];
            g[k] += w[p[k]] * x[k].cos();
            g[n + p[k]] += x[k].sin();
            h[p[k]][n + k] += 1.0;
            h[n + k][p[k]] += 1.0;
            h[k][k] += -w[p[k]] * x[k].sin();
            h[k][n + p[k]] += x[k].cos();
            h[n + p[k]][k] += x[k].cos();
        }
        let items = Items {
            f: &|q| gathered(&split(q, n).0, &split(q, n).1),
            grad: &|q| {
                let (v, g) = gathered_grad(&split(q, n).0, &split(q, n).1);
                (v, flat(g))
            },
            vjp: &|q, d| {
                let (v, g) = gathered_vjp(&split(q, n).0, &split(q, n).1, d);
                (v, flat(g))
            },
            jvp: &|q, t| {
                let (a, b) = split(q, n);
                gathered_jvp(&a, &b, split(t, n))
            },
            grad_into: &|q, g| {
                let (gx, gw) = g.split_at_mut(n);
                gathered_grad_into(&split(q, n).0, &split(q, n).1, (gx, gw))
            },
            hessian: Some(&|q| {
                let (v, g, h) = gathered_hessian(&split(q, n).0, &split(q, n).1);
                (v, flat(g), h)
            }),
            hvp: Some(&|q, t| {
                let (a, b) = split(q, n);
                let (v, g, hv) = gathered_hvp(&a, &b, split(t, n));
                (v, flat(g), flat(hv))
            }),
        };
        let at: Vec<f64> = x.iter().chain(&w).copied().collect();
        check("gathered", &at, &items, value, &g, &h);
    }
}

/// `rounds` by hand: the values as a polynomial in `x` with its gradient and Hessian, by tracking which
/// entries each round scales (`scale[i]`: `v_i = scale[i] * x_i`).
fn rounds_by_hand(x: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let n = x.len();
    let mut scale = vec![1.0; n];
    let (mut value, mut g, mut h) = (0.0, vec![0.0; n], zeros(n));
    // Adds c * v_a * v_b = c * scale_a * scale_b * x_a * x_b.
    let mut product = |a: usize, b: usize, scale: &[f64]| {
        let c = scale[a] * scale[b];
        value += c * x[a] * x[b];
        g[a] += c * x[b];
        g[b] += c * x[a];
        h[a][b] += c;
        h[b][a] += c;
    };
    for r in 0..2 {
        let v: Vec<f64> = (0..n).map(|i| scale[i] * x[i]).collect();
        let p = argsort(&v);
        product(p[0], p[n - 1], &scale);
        scale[p[r]] *= 3.0;
    }
    product(0, 1, &scale);
    (value, g, h)
}

#[test]
fn the_helper_called_inside_a_loop_on_a_local_vec() {
    let mut checked = 0;
    for x in points(41, 4) {
        // Away from ties of the scaled values too.
        let (value, g, h) = rounds_by_hand(&x);
        let items = Items {
            f: &|q| rounds(q),
            grad: &|q| rounds_grad(q),
            vjp: &|q, d| rounds_vjp(q, d),
            jvp: &|q, t| rounds_jvp(q, t.to_vec()),
            grad_into: &|q, g| rounds_grad_into(q, g),
            hessian: Some(&|q| rounds_hessian(q)),
            hvp: Some(&|q, t| rounds_hvp(q, t.to_vec())),
        };
        let mut scaled = x.clone();
        scaled[argsort(&x)[0]] *= 3.0;
        if min_gap(&scaled) > 1e-2 {
            check("rounds", &x, &items, value, &g, &h);
            checked += 1;
        }
    }
    assert!(checked >= 3, "only {checked} points away from ties");
}

#[test]
fn an_array_passed_to_a_slice_helper_and_an_array_helper() {
    for x in points(51, 4) {
        let a = [x[0], x[1], x[2], x[3]];
        let p = argsort(&x);
        let (lo, second, hi) = (p[0], p[1], p[3]);
        let value = a[lo] * a[hi] + a[second] * a[second];
        let (mut g, mut h) = (vec![0.0; 4], zeros(4));
        g[lo] += a[hi];
        g[hi] += a[lo];
        g[second] += 2.0 * a[second];
        h[lo][hi] += 1.0;
        h[hi][lo] += 1.0;
        h[second][second] += 2.0;
        let arr = |q: &[f64]| [q[0], q[1], q[2], q[3]];
        let items = Items {
            f: &|q| on_array(&arr(q)),
            grad: &|q| {
                let (v, g) = on_array_grad(&arr(q));
                (v, g.to_vec())
            },
            vjp: &|q, d| {
                let (v, g) = on_array_vjp(&arr(q), d);
                (v, g.to_vec())
            },
            jvp: &|q, t| on_array_jvp(&arr(q), arr(t)),
            grad_into: &|q, g| {
                let mut into = [0.0; 4];
                let v = on_array_grad_into(&arr(q), &mut into);
                g.copy_from_slice(&into);
                v
            },
            hessian: Some(&|q| {
                let (v, g, h) = on_array_hessian(&arr(q));
                (v, g.to_vec(), h.iter().map(|r| r.to_vec()).collect())
            }),
            hvp: Some(&|q, t| {
                let (v, g, hv) = on_array_hvp(&arr(q), arr(t));
                (v, g.to_vec(), hv.to_vec())
            }),
        };
        check("on_array", &x, &items, value, &g, &h);
    }
}

#[test]
fn a_first_order_function_and_its_order_2_caller() {
    for x in points(61, 4) {
        let p = argsort(&x);
        let (lo, hi) = (p[0], p[3]);
        let s = x[hi] - x[lo];
        let mut g = vec![0.0; 4];
        g[hi] += 1.0;
        g[lo] -= 1.0;
        let items = Items {
            f: &|q| spread(q),
            grad: &|q| spread_grad(q),
            vjp: &|q, d| spread_vjp(q, d),
            jvp: &|q, t| spread_jvp(q, t.to_vec()),
            grad_into: &|q, g| spread_grad_into(q, g),
            hessian: None,
            hvp: None,
        };
        check("spread", &x, &items, s, &g, &zeros(4));
        // s^2 x_0, s = x_hi - x_lo: gradient 2 s x_0 ds + s^2 e_0, Hessian 2 x_0 ds ds^T + 2 s (ds e_0^T + e_0 ds^T).
        let mut gg: Vec<f64> = g.iter().map(|d| 2.0 * s * x[0] * d).collect();
        gg[0] += s * s;
        let mut h = zeros(4);
        for i in 0..4 {
            for j in 0..4 {
                let e = |k: usize| if k == 0 { 1.0 } else { 0.0 };
                h[i][j] = 2.0 * x[0] * g[i] * g[j] + 2.0 * s * (g[i] * e(j) + e(i) * g[j]);
            }
        }
        let items = Items {
            f: &|q| spread_squared(q),
            grad: &|q| spread_squared_grad(q),
            vjp: &|q, d| spread_squared_vjp(q, d),
            jvp: &|q, t| spread_squared_jvp(q, t.to_vec()),
            grad_into: &|q, g| spread_squared_grad_into(q, g),
            hessian: Some(&|q| spread_squared_hessian(q)),
            hvp: Some(&|q, t| spread_squared_hvp(q, t.to_vec())),
        };
        check("spread_squared", &x, &items, s * s * x[0], &gg, &h);
    }
}

#[test]
fn a_generic_function_with_a_generic_helper() {
    for x in points(71, 5) {
        let p = argsort(&x);
        let (mid, lo) = (p[2], p[0]);
        let value = x[mid] * x[mid] + x[lo] * x[0];
        let (mut g, mut h) = (vec![0.0; 5], zeros(5));
        g[mid] += 2.0 * x[mid];
        g[lo] += x[0];
        g[0] += x[lo];
        h[mid][mid] += 2.0;
        h[lo][0] += 1.0;
        h[0][lo] += 1.0;
        let items = Items {
            f: &|q| median_of_odd(q),
            grad: &|q| median_of_odd_grad(q),
            vjp: &|q, d| median_of_odd_vjp(q, d),
            jvp: &|q, t| median_of_odd_jvp(q, t.to_vec()),
            grad_into: &|q, g| median_of_odd_grad_into(q, g),
            hessian: Some(&|q| median_of_odd_hessian(q)),
            hvp: Some(&|q, t| median_of_odd_hvp(q, t.to_vec())),
        };
        check("median_of_odd", &x, &items, value, &g, &h);
    }
}

#[test]
fn f32_through_the_generic_helper() {
    for x in points(81, 4) {
        let x32: Vec<f32> = x.iter().map(|v| *v as f32).collect();
        let p = argsort_g(&x32);
        let (a, b) = (x32[p[0]], x32[p[1]]);
        let (v, g) = smallest_two_f32_grad(&x32);
        assert_close(v as f64, (a * b + a.exp()) as f64, 1e-5, "f32 value");
        let mut expected = [0.0f32; 4];
        expected[p[0]] = b + a.exp();
        expected[p[1]] = a;
        for i in 0..4 {
            assert_close(g[i] as f64, expected[i] as f64, 1e-5, "f32 gradient");
        }
        // Central differences in f64 of the same expression, through the f64 helper's order.
        let f64_of = |q: &[f64]| {
            let p = argsort(q);
            q[p[0]] * q[p[1]] + q[p[0]].exp()
        };
        let g64: Vec<f64> = g.iter().map(|d| *d as f64).collect();
        let xs: Vec<f64> = x32.iter().map(|v| *v as f64).collect();
        let fd: Vec<f64> = (0..4)
            .map(|i| {
                let step = |d: f64| {
                    let mut q = xs.clone();
                    q[i] += d;
                    f64_of(&q)
                };
                (step(1e-6) - step(-1e-6)) / 2e-6
            })
            .collect();
        assert_all_close(&g64, &fd, 1e-4, "f32 gradient by differences");
        let (_, _, h) = smallest_two_f32_hessian(&x32);
        let mut eh = [[0.0f32; 4]; 4];
        eh[p[0]][p[0]] = a.exp();
        eh[p[0]][p[1]] = 1.0;
        eh[p[1]][p[0]] = 1.0;
        for i in 0..4 {
            for j in 0..4 {
                assert_close(h[i][j] as f64, eh[i][j] as f64, 1e-5, "f32 Hessian");
            }
        }
    }
}
