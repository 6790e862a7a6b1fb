//! `order = K` on a function that passes a float parameter outside `wrt(..)` to a plain `f64` helper
//! (`bump(0.5, t)`): the Hessian over the `wrt(..)` inputs, as `jax.hessian(f, argnums=0)` gives it. In
//! the generic copy that `order = K` runs on dual numbers, such a call is the helper's copy where it has
//! derivatives, else the helper as written on the values of its arguments, which are constants there
//! (`autodiff-macros/src/maybe.rs`, `CopyCall`); a caller passing a differentiated argument to such a
//! parameter is a compile error at its call
//! (tests/ui/calls/wrt-excluded-parameter-differentiated-by-an-order-2-caller.rs). Until session 30 each
//! of these was rustc's E0573 in the copy ("expected type, found function `bump`"), or, for a first-order
//! callee reached by an `order = 2` caller, "has no generic copy".
//!
//! Checked against analytic Hessians and central differences of the gradient (`common`, no code shared
//! with the macro) at seeded points.

mod common;

use autodiff::differentiable;
use common::assert_hessian_fd;
use common::probe::*;
use num_traits::Float;

/// A plain helper: no derivatives.
fn bump(a: f64, t: f64) -> f64 {
    if a + t > 1.0 {
        5.0 * t + a
    } else {
        t * t - a
    }
}

/// A plain helper taking an integer.
fn scaled(n: usize, t: f64) -> f64 {
    n as f64 * t.cos()
}

/// A plain helper generic over its float type (still without derivatives).
fn generic_bump<T: Float>(a: T, t: T) -> T {
    a * t.exp()
}

#[differentiable]
fn sq(t: f64) -> f64 {
    t * t
}

mod shapes {
    /// A plain helper called by a path.
    pub fn bump(a: f64, t: f64) -> f64 {
        a * t.sin() + t
    }

    /// A helper with derivatives called by a path.
    #[autodiff::differentiable]
    pub fn cube(t: f64) -> f64 {
        t * t * t
    }
}

const HALF: f64 = 0.5;
static QUARTER: f64 = 0.25;

/// A `const` and a `static` passed beside `t` to plain helpers, and helpers called by paths.
#[differentiable(order = 2, wrt(x))]
fn excluded_paths(x: f64, t: f64) -> f64 {
    let p = shapes::bump(HALF, t);
    x * x * x * bump(QUARTER, t) + p * x * x + shapes::cube(t) * x.sin()
}

/// The brief's function: `t` reaches only a plain helper.
#[differentiable(order = 2, wrt(x))]
fn excluded(x: f64, t: f64) -> f64 {
    x * x * bump(0.5, t)
}

fn weight(a: f64) -> f64 {
    1.0 / (1.0 + a * a)
}

/// Data `c` outside `wrt(..)` passed element by element to a plain helper (README's former "Not supported
/// yet" case, which needed `weight(stop_gradient(c[i]))`, tests/probe28.rs).
#[differentiable(order = 2, wrt(x))]
fn weighted(x: &[f64], c: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i] * x[i] * weight(c[i]);
    }
    s
}

/// As `weighted`, in an iterator chain.
#[differentiable(order = 2, wrt(x))]
fn weighted_chain(x: &[f64], c: &[f64]) -> f64 {
    x.iter()
        .zip(c.iter())
        .map(|(&xi, &ci)| xi * xi * weight(ci))
        .sum()
}

/// As `weighted_chain`, without `order`: its generic copy, which `caller_chain` reaches.
#[differentiable(wrt(x))]
fn weighted_chain_first(x: &[f64], c: &[f64]) -> f64 {
    x.iter()
        .zip(c.iter())
        .map(|(&xi, &ci)| xi * xi * weight(ci))
        .sum()
}

/// Passes constants to `weighted_chain_first`'s data.
#[differentiable(order = 2)]
fn caller_chain(x: &[f64]) -> f64 {
    weighted_chain_first(x, &[0.5, -1.5, 2.0])
}

/// At `order = 3`: `t` through a plain helper and a helper with derivatives, on nested dual numbers.
#[differentiable(order = 3, wrt(x))]
fn excluded_third(x: f64, t: f64) -> f64 {
    x.sin() * bump(0.5, t) + x * x * x * sq(t)
}

/// A slice beside `t`, which reaches the Hessian's entries through `sin(u0 t)` (differentiated) and
/// `bump` (not).
#[differentiable(order = 2, wrt(u))]
fn excluded_slice(u: &[f64], t: f64) -> f64 {
    let b = bump(0.5, t);
    u[0] * u[0] * u[1] + b * u[1] * u[1] + (u[0] * t).sin()
}

/// `t` reaches a helper with derivatives (`sq`, through its copy) and plain ones, one with an integer.
#[differentiable(order = 2, wrt(x, y))]
fn excluded_mixed(x: f64, y: f64, t: f64, n: usize) -> f64 {
    let b = bump(0.25, t);
    let c = scaled(n, t);
    x * sq(t) * y + b * x * x + c * y * y * y + generic_bump(0.5, t) * x * y
}

/// Without `order`: its generic copy is what `order = 2` callers reach.
#[differentiable(wrt(u))]
fn inner(u: &[f64], t: f64) -> f64 {
    u[0] * u[0] * u[1] + bump(0.5, t) * u[1]
}

/// Without `order`, `t` reaching only a function with derivatives.
#[differentiable(wrt(u))]
fn inner_through(u: &[f64], t: f64) -> f64 {
    u[0] * sq(t) + (u[1] * t).sin()
}

/// An `order = 2` caller passing a constant to `inner`'s `t`.
#[differentiable(order = 2)]
fn caller_constant(u: &[f64]) -> f64 {
    inner(u, 0.75) * u[0]
}

/// An `order = 2` caller passing its own parameter outside `wrt(..)` to `inner`'s `t`.
#[differentiable(order = 2, wrt(u))]
fn caller_excluded(u: &[f64], s: f64) -> f64 {
    inner(u, s) * inner_through(u, s)
}

/// An `order = 2` caller differentiating through `inner_through`'s `t`, which reaches only derivatives.
#[differentiable(order = 2)]
fn caller_through(u: &[f64], s: f64) -> f64 {
    inner_through(u, s * s) + inner(u, 0.5)
}

fn b(t: f64) -> f64 {
    bump(0.5, t)
}

#[test]
fn the_hessian_over_wrt_of_a_plain_helper_of_an_excluded_parameter() {
    let mut lcg = Lcg::new(3001);
    for _ in 0..20 {
        let x = lcg.uniform(-2.0, 2.0);
        let t = lcg.uniform(-1.0, 2.0);
        let (v, g, h) = excluded_hessian(x, t);
        assert_near(v, x * x * b(t), 1e-14, 1.0, "excluded");
        assert_near(v, excluded(x, t), 1e-14, 1.0, "excluded as written");
        assert_near(g, 2.0 * x * b(t), 1e-13, 1.0, "excluded'");
        assert_eq!(h.len(), 1);
        assert_near(h[0][0], 2.0 * b(t), 1e-13, 1.0, "excluded''");
        assert_hessian_fd(&h, |x| vec![excluded_grad(x[0], t).1], &[x], 1e-6, "fd");
        let (_, _, hv) = excluded_hvp(x, t, 0.75);
        assert_near(hv, 0.75 * 2.0 * b(t), 1e-13, 1.0, "excluded hvp");
        let [d0, d1, d2] = excluded_derivatives(x, t);
        assert_near(d0, v, 1e-14, 1.0, "d0");
        assert_near(d1, g, 1e-13, 1.0, "d1");
        assert_near(d2, 2.0 * b(t), 1e-13, 1.0, "d2");
        assert_near(
            d2,
            fd1(&|x| excluded_grad(x, t).1, x, 1e-6),
            1e-6,
            1.0,
            "d2 fd",
        );
    }
}

fn slice_hessian(u: &[f64], t: f64) -> [[f64; 2]; 2] {
    let s = (u[0] * t).sin();
    [
        [2.0 * u[1] - t * t * s, 2.0 * u[0]],
        [2.0 * u[0], 2.0 * b(t)],
    ]
}

#[test]
fn a_slice_beside_the_excluded_parameter() {
    let mut lcg = Lcg::new(3002);
    for _ in 0..20 {
        let u = [lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0)];
        let t = lcg.uniform(-1.0, 2.0);
        let (v, g, h) = excluded_slice_hessian(&u, t);
        assert_near(v, excluded_slice(&u, t), 1e-14, 1.0, "value");
        let expected = [
            2.0 * u[0] * u[1] + t * (u[0] * t).cos(),
            u[0] * u[0] + 2.0 * b(t) * u[1],
        ];
        assert_vec_near(&g, &expected, 1e-13, "gradient");
        let f = |u: &[f64]| excluded_slice(u, t);
        assert_vec_near(&g, &fd_gradient(&f, &u), 1e-6, "gradient fd");
        let analytic = slice_hessian(&u, t);
        for i in 0..2 {
            assert_vec_near(&h[i], &analytic[i], 1e-12, "hessian");
        }
        assert_hessian_fd(&h, |u| excluded_slice_grad(u, t).1, &u, 1e-6, "hessian fd");
        let w = [lcg.uniform(-1.0, 1.0), lcg.uniform(-1.0, 1.0)];
        let (_, _, hv) = excluded_slice_hvp(&u, t, w.to_vec());
        let expected: Vec<f64> = analytic.iter().map(|row| dot(row, &w)).collect();
        assert_vec_near(&hv, &expected, 1e-12, "hvp");
    }
}

#[test]
fn helpers_with_and_without_derivatives_and_an_integer_argument() {
    let mut lcg = Lcg::new(3003);
    for n in 0..12usize {
        let (x, y) = (lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0));
        let t = lcg.uniform(-1.0, 2.0);
        let (bt, ct, et) = (bump(0.25, t), n as f64 * t.cos(), 0.5 * t.exp());
        let (v, (gx, gy), h) = excluded_mixed_hessian(x, y, t, n);
        assert_near(v, excluded_mixed(x, y, t, n), 1e-14, 1.0, "value");
        assert_near(gx, t * t * y + 2.0 * bt * x + et * y, 1e-12, 1.0, "d/dx");
        assert_near(
            gy,
            x * t * t + 3.0 * ct * y * y + et * x,
            1e-12,
            1.0,
            "d/dy",
        );
        let analytic = [[2.0 * bt, t * t + et], [t * t + et, 6.0 * ct * y]];
        for i in 0..2 {
            assert_vec_near(&h[i], &analytic[i], 1e-12, "hessian");
        }
        let grad = |p: &[f64]| {
            let (_, (gx, gy)) = excluded_mixed_grad(p[0], p[1], t, n);
            vec![gx, gy]
        };
        assert_hessian_fd(&h, grad, &[x, y], 1e-6, "hessian fd");
        let (_, _, (hx, hy)) = excluded_mixed_hvp(x, y, t, n, (1.0, -0.5));
        assert_near(
            hx,
            analytic[0][0] - 0.5 * analytic[0][1],
            1e-12,
            1.0,
            "hvp x",
        );
        assert_near(
            hy,
            analytic[1][0] - 0.5 * analytic[1][1],
            1e-12,
            1.0,
            "hvp y",
        );
    }
}

fn inner_analytic(u: &[f64], t: f64) -> (f64, [f64; 2], [[f64; 2]; 2]) {
    (
        u[0] * u[0] * u[1] + b(t) * u[1],
        [2.0 * u[0] * u[1], u[0] * u[0] + b(t)],
        [[2.0 * u[1], 2.0 * u[0]], [2.0 * u[0], 0.0]],
    )
}

#[test]
fn an_order_2_caller_passing_a_constant_to_the_excluded_parameter() {
    let mut lcg = Lcg::new(3004);
    for _ in 0..20 {
        let u = [lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0)];
        // f = inner(u, c) u0: H = u0 H_inner + e0 g^T + g e0^T
        let (iv, ig, ih) = inner_analytic(&u, 0.75);
        let (v, g, h) = caller_constant_hessian(&u);
        assert_near(v, iv * u[0], 1e-13, 1.0, "value");
        assert_vec_near(&g, &[ig[0] * u[0] + iv, ig[1] * u[0]], 1e-12, "gradient");
        let analytic = [
            [u[0] * ih[0][0] + 2.0 * ig[0], u[0] * ih[0][1] + ig[1]],
            [u[0] * ih[1][0] + ig[1], u[0] * ih[1][1]],
        ];
        for i in 0..2 {
            assert_vec_near(&h[i], &analytic[i], 1e-12, "hessian");
        }
        assert_hessian_fd(&h, |u| caller_constant_grad(u).1, &u, 1e-6, "hessian fd");
        let f = |u: &[f64]| caller_constant(u);
        assert_vec_near(&g, &fd_gradient(&f, &u), 1e-6, "gradient fd");
    }
}

#[test]
fn order_2_callers_passing_an_excluded_parameter_or_differentiating_through_one() {
    let mut lcg = Lcg::new(3005);
    for _ in 0..20 {
        let u = [lcg.uniform(-2.0, 2.0), lcg.uniform(-2.0, 2.0)];
        let s = lcg.uniform(-1.0, 1.5);
        // caller_excluded: a product of two functions of u, s fixed.
        let (iv, ig, ih) = inner_analytic(&u, s);
        let (c, cs) = ((u[1] * s).cos(), (u[1] * s).sin());
        let jv = u[0] * s * s + cs;
        let jg = [s * s, s * c];
        let jh = [[0.0, 0.0], [0.0, -s * s * cs]];
        let (v, g, h) = caller_excluded_hessian(&u, s);
        assert_near(v, iv * jv, 1e-13, 1.0, "value");
        assert_vec_near(
            &g,
            &[ig[0] * jv + iv * jg[0], ig[1] * jv + iv * jg[1]],
            1e-12,
            "gradient",
        );
        for i in 0..2 {
            let row: Vec<f64> = (0..2)
                .map(|j| ih[i][j] * jv + ig[i] * jg[j] + jg[i] * ig[j] + iv * jh[i][j])
                .collect();
            assert_vec_near(&h[i], &row, 1e-11, "hessian");
        }
        assert_hessian_fd(&h, |u| caller_excluded_grad(u, s).1, &u, 1e-6, "fd");
        // caller_through: every input, s included, through `inner_through`'s `t = s^2`.
        let (_, (gu, gs), h) = caller_through_hessian(&u, s);
        let grad = |p: &[f64]| {
            let (_, (gu, gs)) = caller_through_grad(&p[..2], p[2]);
            vec![gu[0], gu[1], gs]
        };
        let at = [u[0], u[1], s];
        assert_hessian_fd(&h, grad, &at, 1e-6, "caller_through fd");
        let f = |p: &[f64]| caller_through(&p[..2], p[2]);
        assert_vec_near(
            &[gu[0], gu[1], gs],
            &fd_gradient(&f, &at),
            1e-6,
            "gradient fd",
        );
        // d2/ds2 of u0 s^4 + sin(u1 s^2) + inner(u, 0.5)
        let t = s * s;
        let dss = 12.0 * u[0] * t - 4.0 * u[1] * u[1] * t * (u[1] * t).sin()
            + 2.0 * u[1] * (u[1] * t).cos();
        assert_near(h[2][2], dss, 1e-11, 1.0, "d2/ds2");
    }
}

#[test]
fn a_const_or_static_beside_the_excluded_parameter_and_helpers_called_by_paths() {
    let mut lcg = Lcg::new(3006);
    for _ in 0..20 {
        let x = lcg.uniform(-2.0, 2.0);
        let t = lcg.uniform(-1.0, 2.0);
        let (q, p, c) = (bump(0.25, t), 0.5 * t.sin() + t, t * t * t);
        let (v, g, h) = excluded_paths_hessian(x, t);
        assert_near(v, excluded_paths(x, t), 1e-14, 1.0, "value");
        let dx = 3.0 * x * x * q + 2.0 * p * x + c * x.cos();
        assert_near(g, dx, 1e-12, 1.0, "d/dx");
        let dxx = 6.0 * x * q + 2.0 * p - c * x.sin();
        assert_near(h[0][0], dxx, 1e-12, 1.0, "d2/dx2");
        assert_hessian_fd(
            &h,
            |x| vec![excluded_paths_grad(x[0], t).1],
            &[x],
            1e-6,
            "fd",
        );
        let [_, d1, d2] = excluded_paths_derivatives(x, t);
        assert_near(d1, dx, 1e-12, 1.0, "d1");
        assert_near(d2, dxx, 1e-12, 1.0, "d2");
    }
}

#[test]
fn order_3_on_nested_duals() {
    let mut lcg = Lcg::new(3007);
    for _ in 0..20 {
        let x = lcg.uniform(-2.0, 2.0);
        let t = lcg.uniform(-1.0, 2.0);
        let (bt, st) = (b(t), t * t);
        let d = excluded_third_derivatives(x, t);
        let expected = [
            x.sin() * bt + x * x * x * st,
            x.cos() * bt + 3.0 * x * x * st,
            -x.sin() * bt + 6.0 * x * st,
            -x.cos() * bt + 6.0 * st,
        ];
        assert_vec_near(&d, &expected, 1e-12, "derivatives");
        let third = fd1(&|x| excluded_third_derivatives(x, t)[2], x, 1e-5);
        assert_near(d[3], third, 1e-6, 1.0, "third fd");
        assert_near(d[0], excluded_third(x, t), 1e-14, 1.0, "value");
    }
}

#[test]
fn data_passed_element_by_element_to_a_plain_helper() {
    let mut lcg = Lcg::new(3008);
    for _ in 0..10 {
        let x = lcg.vec(3, -2.0, 2.0);
        let c = lcg.vec(3, -2.0, 2.0);
        let (v, grad, h) = weighted_hessian(&x, &c);
        assert_near(v, weighted(&x, &c), 1e-14, 1.0, "value");
        let want: Vec<f64> = (0..3).map(|i| 3.0 * x[i] * x[i] * weight(c[i])).collect();
        assert_vec_near(&grad, &want, 1e-12, "gradient");
        for (i, row) in h.iter().enumerate() {
            let want: Vec<f64> = (0..3)
                .map(|k| match i == k {
                    true => 6.0 * x[i] * weight(c[i]),
                    false => 0.0,
                })
                .collect();
            assert_vec_near(row, &want, 1e-12, "hessian");
        }
        assert_hessian_fd(&h, |x| weighted_grad(x, &c).1, &x, 1e-6, "hessian fd");
    }
}

#[test]
fn data_passed_to_a_plain_helper_in_an_iterator_chain() {
    let mut lcg = Lcg::new(3009);
    let fixed = [0.5, -1.5, 2.0];
    for _ in 0..10 {
        let x = lcg.vec(3, -2.0, 2.0);
        let c = lcg.vec(3, -2.0, 2.0);
        for (data, (v, grad, h)) in [
            (c.clone(), weighted_chain_hessian(&x, &c)),
            (fixed.to_vec(), caller_chain_hessian(&x)),
        ] {
            let value: f64 = (0..3).map(|i| x[i] * x[i] * weight(data[i])).sum();
            assert_near(v, value, 1e-14, 1.0, "value");
            let want: Vec<f64> = (0..3).map(|i| 2.0 * x[i] * weight(data[i])).collect();
            assert_vec_near(&grad, &want, 1e-12, "gradient");
            for (i, row) in h.iter().enumerate() {
                let want: Vec<f64> = (0..3)
                    .map(|k| match i == k {
                        true => 2.0 * weight(data[i]),
                        false => 0.0,
                    })
                    .collect();
                assert_vec_near(row, &want, 1e-12, "hessian");
            }
        }
        assert_hessian_fd(
            &weighted_chain_hessian(&x, &c).2,
            |x| weighted_chain_grad(x, &c).1,
            &x,
            1e-6,
            "hessian fd",
        );
        assert_hessian_fd(
            &caller_chain_hessian(&x).2,
            |x| caller_chain_grad(x).1,
            &x,
            1e-6,
            "caller hessian fd",
        );
        let f = |x: &[f64]| weighted_chain_first(x, &c);
        assert_vec_near(
            &weighted_chain_first_grad(&x, &c).1,
            &fd_gradient(&f, &x),
            1e-6,
            "first order fd",
        );
    }
}
