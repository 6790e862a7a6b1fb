//! `#[differentiable]` on associated functions that neither take `self` nor name `Self`
//! (`impl Model { #[differentiable] fn energy(a: f64, b: f64) -> f64 }`), API.md's `Model::energy_grad(a, b)`.
//! Their syntax is a free function's; the macro finds the `impl` around them in the source
//! (`autodiff-macros/src/context.rs`). Checked against hand-written derivatives and central differences.

// Differentiable bodies index their slices, as the macro reads them.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::*;
use proptest::prelude::*;

struct Model;

impl Model {
    #[differentiable]
    fn energy(a: f64, b: f64) -> f64 {
        a * a * b + b.sin()
    }

    /// A slice parameter (the audit's `norm2`).
    #[differentiable]
    fn norm2(w: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..w.len() {
            s += w[i] * w[i];
        }
        s
    }

    /// Second order: `Model::curved_hessian(a, b)`.
    #[differentiable(order = 2)]
    fn curved(a: f64, b: f64) -> f64 {
        (a * b).sin() + a * a * a
    }

    /// Calls the associated functions above through `Self::`.
    #[differentiable]
    fn combined(a: f64, b: f64) -> f64 {
        Self::energy(a, b) * 2.0 + Self::curved(b, a)
    }
}

/// A generic `impl`: `Spring::<f64>::energy_grad(a, b)`, and the same at `f32`.
struct Spring<T>(T);

impl<T: Float> Spring<T> {
    #[differentiable]
    fn energy(a: T, b: T) -> T {
        a * b * b
    }
}

/// A free function after the `impl`s, and one inside a method's body: both keep their companion type,
/// which a differentiable caller needs.
#[differentiable]
fn free_after(a: f64, b: f64) -> f64 {
    Model::energy(a, b) + free_square(a)
}

#[differentiable]
fn free_square(a: f64) -> f64 {
    a * a
}

impl Model {
    fn nested_user(a: f64) -> (f64, f64) {
        #[differentiable]
        fn inner(a: f64) -> f64 {
            a.exp() * 3.0
        }
        #[differentiable]
        fn outer(a: f64) -> f64 {
            inner(a) * a
        }
        let (value, slope) = outer_grad(a);
        assert_eq!(value, outer(a));
        (value, slope)
    }
}

fn energy_partials(a: f64, b: f64) -> [f64; 2] {
    [2.0 * a * b, a * a + b.cos()]
}

fn curved_partials(a: f64, b: f64) -> [f64; 2] {
    [b * (a * b).cos() + 3.0 * a * a, a * (a * b).cos()]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn an_associated_function_gets_its_items(a in moderate(), b in moderate(), t in tangents()) {
        let at = [a, b];
        check_scalar(
            "Model::energy",
            |x| Model::energy(x[0], x[1]),
            &at,
            (
                Model::energy_grad(a, b),
                |d| Model::energy_vjp(a, b, d),
                |(ta, tb)| Model::energy_jvp(a, b, (ta, tb)),
            ),
            &energy_partials(a, b),
            &t,
        );
        let (mut ga, mut gb) = (0.0, 0.0);
        let value = Model::energy_grad_into(a, b, (&mut ga, &mut gb));
        prop_assert_eq!(value, Model::energy(a, b));
        assert_all_close(&[ga, gb], &energy_partials(a, b), ANALYTIC_TOL, "energy_grad_into");
    }

    #[test]
    fn an_associated_function_of_a_slice(w in prop::collection::vec(moderate(), 1..6)) {
        let (value, grad) = Model::norm2_grad(&w);
        prop_assert_eq!(value, Model::norm2(&w));
        let expected: Vec<f64> = w.iter().map(|v| 2.0 * v).collect();
        assert_all_close(&grad, &expected, ANALYTIC_TOL, "norm2_grad");
        assert_fd_gradient(Model::norm2, &w, &grad, "norm2_grad");
    }

    #[test]
    fn an_associated_function_at_second_order(a in moderate(), b in moderate(), v in tangents()) {
        let (value, grad, hessian) = Model::curved_hessian(a, b);
        prop_assert_eq!(value, Model::curved(a, b));
        assert_all_close(&[grad.0, grad.1], &curved_partials(a, b), ANALYTIC_TOL, "curved gradient");
        let c = (a * b).cos();
        let s = (a * b).sin();
        let expected = [
            [-b * b * s + 6.0 * a, c - a * b * s],
            [c - a * b * s, -a * a * s],
        ];
        for i in 0..2 {
            assert_all_close(&hessian[i], &expected[i], 1e-9, "curved Hessian row");
            let by_differences = hessian_column(
                |x| { let (_, (ga, gb)) = Model::curved_grad(x[0], x[1]); vec![ga, gb] },
                &[a, b],
                i,
            );
            assert_all_close(&by_differences, &expected[i], 1e-5, "curved Hessian by differences");
        }
        let (_, _, hv) = Model::curved_hvp(a, b, (v[0], v[1]));
        let expected_hv = [
            expected[0][0] * v[0] + expected[0][1] * v[1],
            expected[1][0] * v[0] + expected[1][1] * v[1],
        ];
        assert_all_close(&[hv.0, hv.1], &expected_hv, 1e-9, "curved_hvp");
    }

    #[test]
    fn associated_functions_called_through_self(a in moderate(), b in moderate()) {
        let (value, (ga, gb)) = Model::combined_grad(a, b);
        prop_assert_eq!(value, Model::combined(a, b));
        let e = energy_partials(a, b);
        // `curved(b, a)`: its partials with the arguments swapped.
        let c = curved_partials(b, a);
        let expected = [2.0 * e[0] + c[1], 2.0 * e[1] + c[0]];
        assert_all_close(&[ga, gb], &expected, ANALYTIC_TOL, "combined_grad");
        assert_fd_gradient(|x| Model::combined(x[0], x[1]), &[a, b], &[ga, gb], "combined_grad");
    }

    #[test]
    fn a_generic_impl(a in moderate(), b in moderate()) {
        let (value, (ga, gb)) = Spring::<f64>::energy_grad(a, b);
        prop_assert_eq!(value, Spring::<f64>::energy(a, b));
        assert_all_close(&[ga, gb], &[b * b, 2.0 * a * b], ANALYTIC_TOL, "Spring::energy_grad");
        let (a32, b32) = (a as f32, b as f32);
        let (_, (ga32, gb32)) = Spring::<f32>::energy_grad(a32, b32);
        let (a, b) = (a32 as f64, b32 as f64);
        assert_all_close(
            &[ga32 as f64, gb32 as f64],
            &[b * b, 2.0 * a * b],
            ANALYTIC_TOL_F32,
            "Spring::<f32>::energy_grad",
        );
    }

    #[test]
    fn free_functions_beside_impls(a in moderate(), b in moderate()) {
        let (value, (ga, gb)) = free_after_grad(a, b);
        prop_assert_eq!(value, free_after(a, b));
        let e = energy_partials(a, b);
        assert_all_close(&[ga, gb], &[e[0] + 2.0 * a, e[1]], ANALYTIC_TOL, "free_after_grad");
        let (value, slope) = Model::nested_user(a);
        prop_assert_eq!(value, a.exp() * 3.0 * a);
        assert_close(slope, 3.0 * a.exp() * (1.0 + a), ANALYTIC_TOL, "a function in a method's body");
    }
}
