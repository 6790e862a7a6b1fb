//! Calls of plain helpers (no derivatives) whose results carry no derivative: held constant by
//! `stop_gradient(helper(x))`, as the error for such a call advises, or converted to an integer
//! (`x.powi(count(x) as i32)`, `x[bucket(x) as usize]`). Before, such a function did not compile at first
//! order: its generic copy (`__f_generic`, which `order = K` callers call) called the helper's copy,
//! which a plain function has not (rustc's "expected type, found function"). Now the copy calls the
//! helper as written on its arguments' values, as the first order does (`expand::first_order_copy_calls`,
//! `read_only_without_derivative`), and `order = 2` callers work. Checked against central differences and
//! derivatives by hand, on seeded points.

// Loops written as a user writes them.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, stop_gradient, Differentiable};
use common::{assert_fd_gradient, central_difference, Inputs};

/// A plain helper returning a float: its value is used, its derivative is not wanted.
fn baseline(x: f64) -> f64 {
    x * x + 1.0
}

/// A plain helper returning an integer (a count of something the value decides).
fn terms(x: f64) -> usize {
    if x.abs() < 1.0 {
        2
    } else {
        3
    }
}

/// A plain helper returning a float that the body converts to an integer, an index.
fn bucket(x: f64) -> f64 {
    (x.abs() * 2.0).floor().min(3.0)
}

/// `x / stop(x^2 + 1)`: the derivative 1 / (x^2 + 1), the helper's value held constant.
#[differentiable]
fn normalised(x: f64) -> f64 {
    x / stop_gradient(baseline(x))
}

/// `x^terms(x)`, the exponent an `i32` converted from the helper's count.
#[differentiable]
fn power(x: f64) -> f64 {
    x.powi(terms(x) as i32)
}

/// A weight table indexed by `bucket(x) as usize`.
#[differentiable]
fn weighted(x: f64, w: &[f64]) -> f64 {
    let k = bucket(x) as usize;
    w[k] * x * x
}

/// In a loop, beside a differentiated call: the helper per element.
#[differentiable]
fn relative_energy(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i] / stop_gradient(baseline(x[i]));
    }
    s
}

/// `order = 2` callers of the functions above, written for `f64`: they call their generic copies.
#[differentiable(order = 2)]
fn outer(x: f64) -> f64 {
    normalised(x) * x + power(x)
}

#[differentiable(order = 2)]
fn outer_slice(x: &[f64]) -> f64 {
    relative_energy(x) + weighted(x[0], x)
}

#[test]
fn a_stopped_plain_helper_is_a_constant() {
    let mut inputs = Inputs(40_101);
    for _ in 0..20 {
        let x = 2.0 * inputs.next();
        let (v, g) = normalised_grad(x);
        assert!((v - x / baseline(x)).abs() < 1e-14);
        assert!((g - 1.0 / baseline(x)).abs() < 1e-14, "at {x}");
    }
}

#[test]
fn an_integer_converted_from_a_plain_helper_is_a_constant() {
    let mut inputs = Inputs(40_102);
    for _ in 0..20 {
        let x = 2.0 * inputs.next();
        let n = terms(x) as i32;
        let (v, g) = power_grad(x);
        assert!((v - x.powi(n)).abs() < 1e-14);
        // Away from the helper's jump, the derivative is that of x^n: central differences agree.
        if (x.abs() - 1.0).abs() > 1e-3 {
            let fd = central_difference(|x| x.powi(terms(x) as i32), x);
            assert!((g - fd).abs() < 1e-6 * (1.0 + g.abs()), "at {x}: {g} {fd}");
        }
        assert!((g - f64::from(n) * x.powi(n - 1)).abs() < 1e-12, "at {x}");
        let w = inputs.vec(4);
        let (vw, (gx, gw)) = weighted_grad(x, &w);
        let k = bucket(x) as usize;
        assert!((vw - w[k] * x * x).abs() < 1e-14);
        assert!((gx - 2.0 * w[k] * x).abs() < 1e-12);
        for (i, gwi) in gw.iter().enumerate() {
            let expected = if i == k { x * x } else { 0.0 };
            assert!((gwi - expected).abs() < 1e-14, "w[{i}] at {x}");
        }
    }
}

#[test]
fn order_2_callers_through_the_copies() {
    let mut inputs = Inputs(40_103);
    for _ in 0..20 {
        let x = 2.0 * inputs.next();
        if (x.abs() - 1.0).abs() < 1e-3 {
            continue;
        }
        let n = f64::from(terms(x) as i32);
        let b = baseline(x);
        // outer = x^2 / stop(b) + x^n: f' = 2x / b + n x^(n-1), f'' = 2 / b + n (n-1) x^(n-2).
        let d = outer_derivatives(x);
        assert_eq!(d[0], outer(x));
        assert!((d[0] - (x * x / b + x.powf(n))).abs() < 1e-12);
        assert!(
            (d[1] - (2.0 * x / b + n * x.powf(n - 1.0))).abs() < 1e-10,
            "at {x}"
        );
        assert!(
            (d[2] - (2.0 / b + n * (n - 1.0) * x.powf(n - 2.0))).abs() < 1e-10,
            "at {x}"
        );
    }
}

#[test]
fn order_2_over_a_slice() {
    let mut inputs = Inputs(40_104);
    for n in 2..6 {
        let x = inputs.vec(n);
        let (v, g, h) = outer_slice_hessian(&x);
        // s = sum x_i^2 / stop(x_i^2 + 1) + x_k x_0^2 (k = bucket(x_0) as usize, k < n here since
        // bucket <= 1 for |x_0| < 1): the Hessian by hand.
        let k = bucket(x[0]) as usize;
        let plain = |y: &[f64]| {
            y.iter()
                .zip(&x)
                .map(|(yi, xi)| yi * yi / baseline(*xi))
                .sum::<f64>()
                + y[k] * y[0] * y[0]
        };
        assert!((v - plain(&x)).abs() < 1e-12);
        assert_fd_gradient(plain, &x, &g, "outer_slice_hessian's gradient");
        for i in 0..n {
            for j in 0..n {
                let mut expected = if i == j { 2.0 / baseline(x[i]) } else { 0.0 };
                // x_k x_0^2: d2/dx0^2 = 2 x_k (+ 4 x_0 where k = 0, the term being x_0^3: 6 x_0),
                // d2/dx0 dxk = 2 x_0 where k != 0.
                if k == 0 {
                    if i == 0 && j == 0 {
                        expected += 6.0 * x[0];
                    }
                } else {
                    if i == 0 && j == 0 {
                        expected += 2.0 * x[k];
                    }
                    if (i == 0 && j == k) || (i == k && j == 0) {
                        expected += 2.0 * x[0];
                    }
                }
                assert!((h[i][j] - expected).abs() < 1e-10, "h[{i}][{j}] at {x:?}");
            }
        }
    }
}

/// A struct's parameters, with a nested one passed on whole at `order = 2`.
#[derive(Clone, Debug, Differentiable)]
pub struct Inner {
    pub b: f64,
}

#[derive(Clone, Debug, Differentiable)]
pub struct Outer {
    pub a: f64,
    pub w: Vec<f64>,
    pub inner: Inner,
}

#[differentiable(order = 2)]
fn scaled_first(xs: &[f64], s: f64) -> f64 {
    xs[0] * s
}

#[differentiable(order = 2)]
fn inner_scaled(q: &Inner, s: f64) -> f64 {
    q.b * s
}

/// A field passed on whole (`&p.w`) to a call whose result is only compared: the hidden function over
/// the struct's values called `__scaled_first_pairs` as a plain helper, its arguments misaligned
/// (rustc's E0308; the `--structs` fuzzer's seed 40011, program 2).
#[differentiable(order = 2)]
fn compared(p: &Outer, s: f64) -> f64 {
    let c: f64 = inner_scaled(&p.inner, p.a);
    let limit: f64 = scaled_first(&p.w, c);
    if c > limit {
        c * s
    } else {
        c * s * s
    }
}

/// As `compared`, with the passed field also read by index (`p.w[1]`), which makes it an array input of
/// the hidden function: the call there, `scaled_first(&w, c)` of a `c` whose kind the analysis does not
/// know, was called as a plain helper on `c` in the copy's float type (rustc's E0308; the fuzzer's seed
/// 40011, program 2, unshrunk).
#[differentiable(order = 2)]
fn compared_indexed(p: &Outer, s: f64) -> f64 {
    let c: f64 = inner_scaled(&p.inner, p.a);
    let base = p.w[1];
    let limit: f64 = scaled_first(&p.w, c);
    if c > limit {
        c * s + base
    } else {
        c * s * s + base
    }
}

#[test]
fn a_field_passed_on_whole_and_indexed_to_a_call_only_compared() {
    let mut inputs = Inputs(40_106);
    for _ in 0..20 {
        let p = Outer {
            a: inputs.next(),
            w: inputs.vec(2),
            inner: Inner { b: inputs.next() },
        };
        let s = inputs.next();
        let c = p.inner.b * p.a;
        if (c - p.w[0] * c).abs() < 1e-6 {
            continue;
        }
        // Against `compared`, which differs by `w[1]` alone.
        let (v, (gp, gs)) = compared_indexed_grad(&p, s);
        assert_eq!(v, compared_indexed(&p, s));
        let (v0, (gp0, gs0)) = compared_grad(&p, s);
        assert!((v - v0 - p.w[1]).abs() < 1e-12);
        assert!((gs - gs0).abs() < 1e-12);
        assert!((gp.a - gp0.a).abs() < 1e-12 && (gp.inner.b - gp0.inner.b).abs() < 1e-12);
        assert_eq!(gp.w, vec![0.0, 1.0]);
        let (_, _, h) = compared_indexed_hessian(&p, s);
        let (_, _, h0) = compared_hessian(&p, s);
        for (row, row0) in h.iter().zip(&h0) {
            for (x, x0) in row.iter().zip(row0) {
                assert!((x - x0).abs() < 1e-10, "{h:?} against {h0:?}");
            }
        }
    }
}

#[test]
fn a_field_passed_on_whole_to_a_call_only_compared() {
    let mut inputs = Inputs(40_105);
    for _ in 0..20 {
        let p = Outer {
            a: inputs.next(),
            w: inputs.vec(2),
            inner: Inner { b: inputs.next() },
        };
        let s = inputs.next();
        let c = p.inner.b * p.a;
        let far = (c - p.w[0] * c).abs() > 1e-6;
        let (v, (gp, gs)) = compared_grad(&p, s);
        assert_eq!(v, compared(&p, s));
        // The branch's factor of c, and its first and second derivatives in s.
        let (k, dk, ddk) = if c > p.w[0] * c {
            (s, 1.0, 0.0)
        } else {
            (s * s, 2.0 * s, 2.0)
        };
        assert!((v - c * k).abs() < 1e-12);
        // c = b a: dc/da = b, dc/db = a; the branch is constant away from its switch.
        if far {
            assert!((gp.a - p.inner.b * k).abs() < 1e-12);
            assert!((gp.inner.b - p.a * k).abs() < 1e-12);
            assert!(gp.w.iter().all(|g| *g == 0.0));
            assert!((gs - c * dk).abs() < 1e-12);
            // The Hessian over (a, w0, w1, b, s), by hand.
            let (_, _, h) = compared_hessian(&p, s);
            let mut expected = [[0.0; 5]; 5];
            expected[0][3] = k;
            expected[3][0] = k;
            expected[0][4] = p.inner.b * dk;
            expected[4][0] = p.inner.b * dk;
            expected[3][4] = p.a * dk;
            expected[4][3] = p.a * dk;
            expected[4][4] = c * ddk;
            for i in 0..5 {
                for j in 0..5 {
                    assert!(
                        (h[i][j] - expected[i][j]).abs() < 1e-10,
                        "h[{i}][{j}] = {} against {}",
                        h[i][j],
                        expected[i][j]
                    );
                }
            }
        }
    }
}

/// A model with a `#[no_grad]` integer field that only a plain helper reads.
#[derive(Clone, Debug, Differentiable)]
pub struct Counted {
    pub a: f64,
    #[no_grad]
    pub k: u32,
}

/// ln(k!), a plain helper of an integer.
fn log_factorial(k: u32) -> f64 {
    (1..=k).map(|i| f64::from(i).ln()).sum()
}

#[differentiable]
fn poisson_term(m: &Counted, x: f64) -> f64 {
    m.a * x * log_factorial(m.k)
}

/// An `order = 2` caller passing the struct on whole: `poisson_term`'s hidden function over the struct's
/// values called `log_factorial(m.k)` with `m.k` of a kind the analysis did not know, so it had no generic
/// copy ("`__poisson_term_whole` has no generic copy"; trial40's left item 2). The helper's signature in
/// the file says `k: u32` (`context::sibling_integer_parameters`): a call of integers alone, as written.
#[differentiable(order = 2)]
fn poisson_outer(m: &Counted, x: f64) -> f64 {
    poisson_term(m, x) * x
}

#[test]
fn an_integer_field_passed_to_a_plain_helper_at_order_2() {
    let mut inputs = Inputs(40_107);
    for k in 0..6 {
        let m = Counted {
            a: inputs.next(),
            k,
        };
        let x = inputs.next();
        let l = log_factorial(k);
        // f = a l x^2: df/da = l x^2, df/dx = 2 a l x; the Hessian over (a, x).
        assert!((poisson_outer(&m, x) - m.a * l * x * x).abs() < 1e-12);
        let (v, (gm, gx), h) = poisson_outer_hessian(&m, x);
        assert!((v - m.a * l * x * x).abs() < 1e-12);
        assert!((gm.a - l * x * x).abs() < 1e-12);
        assert!((gx - 2.0 * m.a * l * x).abs() < 1e-12);
        let expected = [[0.0, 2.0 * l * x], [2.0 * l * x, 2.0 * m.a * l]];
        for i in 0..2 {
            for j in 0..2 {
                assert!(
                    (h[i][j] - expected[i][j]).abs() < 1e-10,
                    "h[{i}][{j}] at k = {k}"
                );
            }
        }
        let (vt, gt) = poisson_term_grad(&m, x);
        assert!((vt - m.a * x * l).abs() < 1e-12 && (gt.1 - m.a * l).abs() < 1e-12);
    }
}

/// Plain helpers of an inline module, called by a path.
mod counting {
    /// ln(k!) again, in a module of its own.
    pub fn log_factorial(k: u32) -> f64 {
        (1..=k).map(|i| f64::from(i).ln()).sum()
    }

    pub mod inner {
        /// k + 1, as a float.
        pub fn successor(k: u32) -> f64 {
            f64::from(k) + 1.0
        }

        /// The helper of the module around, by `super::`.
        pub fn log_factorial_of(k: u32) -> f64 {
            super::log_factorial(k)
        }
    }
}

#[differentiable]
fn poisson_term_by_path(m: &Counted, x: f64) -> f64 {
    m.a * x * counting::log_factorial(m.k) + self::counting::inner::successor(m.k) * x
}

/// As `poisson_outer`, with the helpers called by paths (`counting::log_factorial(m.k)`): the hidden
/// function over the struct's values reads `m.k` with a kind the analysis does not know, and
/// `context::sibling_integer_parameters` followed only bare names and `Type::f`, so the copy called the
/// helper unlifted (rustc's "expected `__S`, found `f64`"). It now follows a path through the file's inline
/// modules (`context::module_of_path`).
#[differentiable(order = 2)]
fn poisson_outer_by_path(m: &Counted, x: f64) -> f64 {
    poisson_term_by_path(m, x) * x + counting::inner::log_factorial_of(m.k)
}

#[test]
fn an_integer_field_passed_to_a_plain_helper_by_a_path_at_order_2() {
    let mut inputs = Inputs(41_001);
    for k in 0..6 {
        let m = Counted {
            a: inputs.next(),
            k,
        };
        let x = inputs.next();
        let l = log_factorial(k);
        let s = f64::from(k) + 1.0;
        // f = (a l x + s x) x + l = a l x^2 + s x^2 + l: df/da = l x^2, df/dx = 2 (a l + s) x.
        let value = m.a * l * x * x + s * x * x + l;
        assert!((poisson_outer_by_path(&m, x) - value).abs() < 1e-12);
        let (v, (gm, gx), h) = poisson_outer_by_path_hessian(&m, x);
        assert!((v - value).abs() < 1e-12);
        assert!((gm.a - l * x * x).abs() < 1e-12);
        assert!((gx - 2.0 * (m.a * l + s) * x).abs() < 1e-12);
        let expected = [[0.0, 2.0 * l * x], [2.0 * l * x, 2.0 * (m.a * l + s)]];
        for i in 0..2 {
            for j in 0..2 {
                assert!(
                    (h[i][j] - expected[i][j]).abs() < 1e-10,
                    "h[{i}][{j}] at k = {k}"
                );
            }
        }
        // The first-order gradient against central differences of the function as written.
        let (_, (gm1, gx1)) = poisson_term_by_path_grad(&m, x);
        let fa = |a: f64| poisson_term_by_path(&Counted { a, k }, x);
        let fx = |x: f64| poisson_term_by_path(&m, x);
        assert!((gm1.a - central_difference(fa, m.a)).abs() < 1e-7);
        assert!((gx1 - central_difference(fx, x)).abs() < 1e-7);
        assert_eq!(gm1.k, k);
    }
}
