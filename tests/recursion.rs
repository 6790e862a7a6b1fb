//! Recursion: a differentiable function calling itself, directly or through others. The reverse sweep
//! of each call runs the callee's (its own) adjoint, so recursion needs nothing special; checked against
//! derivatives worked out by hand and central finite differences.

mod common;

use autodiff::{differentiable, Float};
use common::{assert_close, central_difference, config};
use proptest::prelude::*;

#[differentiable]
fn halve_until_small(x: f64) -> f64 {
    if x > 1.0 {
        halve_until_small(x / 2.0)
    } else {
        x * x
    }
}

/// `x^n` by recursion on `n`.
#[differentiable]
fn power<T: Float>(x: T, n: u32) -> T {
    if n == 0 {
        T::one()
    } else {
        x * power(x, n - 1)
    }
}

/// Mutual recursion through a slice: sums alternate between the two.
#[differentiable]
fn even_sum(x: &[f64], i: usize) -> f64 {
    if i >= x.len() {
        0.0
    } else {
        x[i] * x[i] + odd_sum(x, i + 1)
    }
}

#[differentiable]
fn odd_sum(x: &[f64], i: usize) -> f64 {
    if i >= x.len() {
        0.0
    } else {
        x[i].sin() + even_sum(x, i + 1)
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn direct_recursion(x in 0.1f64..20.0) {
        let (value, d) = halve_until_small_grad(x);
        prop_assert_eq!(value, halve_until_small(x));
        // x / 2^k squared, k the number of halvings: derivative 2x / 4^k.
        let mut k = 0;
        let mut y = x;
        while y > 1.0 {
            y /= 2.0;
            k += 1;
        }
        assert_close(d, 2.0 * x / 4f64.powi(k), 1e-12, "by hand");
        let (_, t) = halve_until_small_jvp(x, 1.0);
        assert_close(t, d, 1e-12, "jvp");
    }

    #[test]
    fn recursion_on_an_integer(x in -2.0f64..2.0, n in 0u32..6) {
        let (value, d) = power_grad(x, n);
        prop_assert_eq!(value, power(x, n));
        let expected = if n == 0 { 0.0 } else { n as f64 * x.powi(n as i32 - 1) };
        assert_close(d, expected, 1e-12, "n x^(n-1)");
        assert_close(d, central_difference(|v| power(v, n), x), 1e-7, "finite differences");
    }

    #[test]
    fn mutual_recursion(x in prop::collection::vec(-2.0f64..2.0, 0..6)) {
        let (value, grad) = even_sum_grad(&x, 0);
        prop_assert_eq!(value, even_sum(&x, 0));
        for (i, g) in grad.iter().enumerate() {
            let expected = if i % 2 == 0 { 2.0 * x[i] } else { x[i].cos() };
            assert_close(*g, expected, 1e-12, "by hand");
        }
    }
}

/// Second order through recursion.
#[differentiable(order = 2)]
fn power_twice<T: Float>(x: T, n: u32) -> T {
    if n == 0 {
        T::one()
    } else {
        x * power_twice(x, n - 1)
    }
}

#[test]
fn second_order_through_recursion() {
    for n in 0..5u32 {
        let x = 1.3;
        let [f, d1, d2] = power_twice_derivatives(x, n);
        let nf = n as f64;
        assert_close(f, x.powi(n as i32), 1e-12, "f");
        assert_close(
            d1,
            if n == 0 {
                0.0
            } else {
                nf * x.powi(n as i32 - 1)
            },
            1e-12,
            "f'",
        );
        let d2_expected = if n < 2 {
            0.0
        } else {
            nf * (nf - 1.0) * x.powi(n as i32 - 2)
        };
        assert_close(d2, d2_expected, 1e-12, "f''");
    }
}

/// Second order through recursion in a function written for `f64`.
#[differentiable(order = 2)]
fn halving_square(x: f64, n: u32) -> f64 {
    if n == 0 {
        x * x
    } else {
        halving_square(x / 2.0, n - 1)
    }
}

#[test]
fn second_order_through_recursion_in_f64() {
    // (x / 2^n)² = x² / 4^n.
    for n in 0..4u32 {
        let x = 0.7;
        let scale = 4f64.powi(n as i32);
        let [f, d1, d2] = halving_square_derivatives(x, n);
        assert_eq!(f, halving_square(x, n));
        assert_close(d1, 2.0 * x / scale, 1e-12, "f'");
        assert_close(d2, 2.0 / scale, 1e-12, "f''");
    }
}
