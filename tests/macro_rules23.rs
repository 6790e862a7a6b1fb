//! Functions that a `macro_rules!` writes: its fragments (`$t:ty`, `$e:expr`, `$b:block`) reach the
//! attribute as invisible groups, which the macro now looks through (`autodiff-macros/src/invisible.rs`).
//! Before, a parameter typed by a `$t:ty` fragment was not seen as a slice. An `$e:expr` fragment keeps its
//! precedence: `$e * 2.0` with `$e` = `x + 1.0` is `(x + 1.0) * 2.0`. Each function is checked against the
//! same body without the macro, its gradient against central differences and its Hessian against central
//! differences of the gradient, on many random inputs.

#[macro_use]
mod common;

use autodiff::differentiable;
use common::{
    assert_close, assert_fd_gradient, assert_jacobian, config, fd_jacobian, ANALYTIC_TOL,
};
use proptest::prelude::*;

twin! {
    #[differentiable(order = 2)]
    fn horner / plain_horner(x: &[f64], c: f64) -> f64 {
        let mut s = 0.0;
        for &v in x.iter().rev() {
            s = s * c + v;
        }
        s + x.iter().map(|v| v.sin()).sum::<f64>()
    }
}

/// `$e * 2.0 + $e.powi(2)` of an expression fragment.
macro_rules! shifted {
    ($name:ident, $x:ident, $e:expr) => {
        #[differentiable(order = 2)]
        fn $name($x: f64) -> f64 {
            $e * 2.0 + $e.powi(2)
        }
    };
}

shifted!(shifted_sum, x, x + 1.0);

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_function_with_fragment_types(x in prop::collection::vec(-1.5..1.5f64, 1..6), c in -1.5..1.5f64) {
        let n = x.len();
        let (value, (gx, gc)) = horner_grad(&x, c);
        prop_assert_eq!(value, plain_horner(&x, c));
        prop_assert_eq!(value, horner(&x, c));
        let flat: Vec<f64> = x.iter().copied().chain([c]).collect();
        let g: Vec<f64> = gx.iter().copied().chain([gc]).collect();
        assert_fd_gradient(|p| plain_horner(&p[..n], p[n]), &flat, &g, "horner_grad");
        let (_, _, h) = horner_hessian(&x, c);
        let grad = |p: &[f64]| {
            let (_, (gx, gc)) = horner_grad(&p[..n], p[n]);
            gx.iter().copied().chain([gc]).collect::<Vec<f64>>()
        };
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "horner_hessian");
    }

    /// f = 2 (x + 1) + (x + 1)²: f' = 2 + 2 (x + 1), f'' = 2 (with `x + 1.0 * 2.0` it would be 3x + 1 + ..).
    #[test]
    fn an_expression_fragment_keeps_its_precedence(x in -3.0..3.0f64) {
        let (value, g) = shifted_sum_grad(x);
        prop_assert_eq!(value, shifted_sum(x));
        assert_close(value, 2.0 * (x + 1.0) + (x + 1.0).powi(2), ANALYTIC_TOL, "shifted_sum");
        assert_close(g, 2.0 + 2.0 * (x + 1.0), ANALYTIC_TOL, "shifted_sum_grad");
        let (_, _, h) = shifted_sum_hessian(x);
        assert_close(h[0][0], 2.0, ANALYTIC_TOL, "shifted_sum_hessian");
    }
}
