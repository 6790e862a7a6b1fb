//! Calls of plain helpers (no derivatives) whose results carry no derivative: held constant by
//! `stop_gradient(helper(x))`, as the error for such a call advises, or converted to an integer
//! (`x.powi(count(x) as i32)`, `x[bucket(x) as usize]`). Before, such a function did not compile at first
//! order: its generic copy (`__f_generic`, which `order = K` callers call) called the helper's copy,
//! which a plain function has not (rustc's "expected type, found function"). Now the copy calls the
//! helper as written on its arguments' values, as the first order does (`expand::first_order_copy_calls`,
//! `read_only_without_derivative`), and `order = 2` callers work. Checked against central differences and
//! derivatives by hand, on seeded points.

mod common;

use autodiff::{differentiable, stop_gradient};
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
