//! `order = K` on associated functions of a generic `impl` whose result is the `impl`'s float type
//! parameter (`impl<T: Float> Poly<T> { fn cube(x: T, y: T) -> T }`), API.md's "inherent or generic" `impl`
//! blocks: `f_hvp`, `f_hessian` and `f_derivatives`, at `f64` and `f32`, against derivatives by hand and
//! central differences of `_grad` (the first-order items, which are checked against differences too).

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{assert_all_close, assert_close, central_difference, config, hessian_column};
use proptest::prelude::*;

/// A free function the associated functions call.
#[differentiable]
fn softplus<T: Float>(x: T) -> T {
    (T::one() + x.exp()).ln()
}

struct Poly<T> {
    #[allow(dead_code)]
    scale: T,
}

impl<T: Float> Poly<T> {
    #[differentiable(order = 2)]
    fn cube(x: T, y: T) -> T {
        x * x * y + (x * y).sin()
    }

    #[differentiable(order = 3)]
    fn wave(x: T) -> T {
        x.sin() * x + softplus(x)
    }

    #[differentiable(order = 2, wrt(x))]
    fn weighted(x: &[T], c: T) -> T {
        let mut s = T::zero();
        for i in 0..x.len() {
            s = s + c * x[i] * x[i] * x[i];
            if i > 0 {
                s = s + x[i] * x[i - 1];
            }
        }
        s
    }
}

fn cube_plain(x: f64, y: f64) -> f64 {
    x * x * y + (x * y).sin()
}

#[test]
fn by_hand() {
    let (x, y) = (0.7, -1.3);
    let (value, (gx, gy), h) = Poly::<f64>::cube_hessian(x, y);
    assert_close(value, cube_plain(x, y), 1e-14, "value");
    let c = (x * y).cos();
    let sn = (x * y).sin();
    assert_all_close(
        &[gx, gy],
        &[2.0 * x * y + y * c, x * x + x * c],
        1e-12,
        "gradient",
    );
    let expected = [
        [2.0 * y - y * y * sn, 2.0 * x + c - x * y * sn],
        [2.0 * x + c - x * y * sn, -x * x * sn],
    ];
    for (row, want) in h.iter().zip(expected) {
        assert_all_close(row, &want, 1e-12, "Hessian row");
    }
    let (_, _, hv) = Poly::<f64>::cube_hvp(x, y, (1.0, 2.0));
    let want = (
        expected[0][0] + 2.0 * expected[0][1],
        expected[1][0] + 2.0 * expected[1][1],
    );
    assert_all_close(&[hv.0, hv.1], &[want.0, want.1], 1e-12, "hvp");
}

#[test]
fn on_f32() {
    let (x, y) = (0.5f32, 2.0f32);
    let (_, _, h) = Poly::<f32>::cube_hessian(x, y);
    let (c, s) = ((x * y).cos(), (x * y).sin());
    let h01 = 2.0 * x + c - x * y * s;
    assert!((h[0][1] - h01).abs() < 1e-5 && (h[1][0] - h01).abs() < 1e-5);
    assert!((h[1][1] + x * x * s).abs() < 1e-5);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn cube_against_differences(x in -2.0..2.0f64, y in -2.0..2.0f64) {
        let (_, (gx, gy)) = Poly::<f64>::cube_grad(x, y);
        assert_close(gx, central_difference(|x| cube_plain(x, y), x), 1e-6, "d/dx");
        assert_close(gy, central_difference(|y| cube_plain(x, y), y), 1e-6, "d/dy");
        let grad = |v: &[f64]| { let (_, (a, b)) = Poly::<f64>::cube_grad(v[0], v[1]); vec![a, b] };
        let (_, _, h) = Poly::<f64>::cube_hessian(x, y);
        for i in 0..2 {
            let column = hessian_column(grad, &[x, y], i);
            assert_all_close(&[h[0][i], h[1][i]], &column, 1e-6, "Hessian column");
        }
    }

    #[test]
    fn wave_derivatives_against_differences(x in -3.0..3.0f64) {
        let [f, d1, d2, d3] = Poly::<f64>::wave_derivatives(x);
        let s = 1.0 / (1.0 + (-x).exp());
        assert_close(f, x.sin() * x + (1.0 + x.exp()).ln(), 1e-12, "f");
        assert_close(d1, x.cos() * x + x.sin() + s, 1e-10, "f'");
        assert_close(d2, 2.0 * x.cos() - x * x.sin() + s * (1.0 - s), 1e-10, "f''");
        let second = |x: f64| Poly::<f64>::wave_derivatives(x)[2];
        assert_close(d3, central_difference(second, x), 1e-6, "f'''");
    }

    #[test]
    fn weighted_against_differences(x in prop::collection::vec(-2.0..2.0f64, 1..6), c in -2.0..2.0f64) {
        let (_, g) = Poly::<f64>::weighted_grad(&x, c);
        let grad = |v: &[f64]| Poly::<f64>::weighted_grad(v, c).1;
        let (_, g2, h) = Poly::<f64>::weighted_hessian(&x, c);
        assert_all_close(&g, &g2, 1e-14, "gradients");
        for i in 0..x.len() {
            let column = hessian_column(grad, &x, i);
            let ours: Vec<f64> = h.iter().map(|row| row[i]).collect();
            assert_all_close(&ours, &column, 1e-6, "Hessian column");
        }
        let v: Vec<f64> = (0..x.len()).map(|i| 0.5 - i as f64 * 0.25).collect();
        let (_, _, hv) = Poly::<f64>::weighted_hvp(&x, c, v.clone());
        let expected: Vec<f64> = h.iter().map(|row| row.iter().zip(&v).map(|(a, b)| a * b).sum()).collect();
        assert_all_close(&hv, &expected, 1e-12, "hvp");
    }
}
