//! Gradient checking: compare a gradient with central finite differences of the function.

use crate::Differentiable;
use core::fmt;

/// The outcome of [`check_gradient`]: how far a gradient is from central finite differences.
///
/// The error of component `i` is relative, with a floor of 1 in the denominator so that components near
/// zero are compared absolutely instead of blowing up:
///
/// ```text
/// error_i = |analytic_i - numeric_i| / max(1, |analytic_i|, |numeric_i|)
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct GradientCheck {
    /// The largest `error_i` over all components; NaN if any component is NaN or infinite on either side
    /// (then no tolerance accepts it), and 0 when there are no inputs.
    pub max_rel_error: f64,
    /// The component where `max_rel_error` occurs: the first NaN one if there is one, otherwise the first
    /// with the largest error; 0 when there are no inputs.
    pub worst_index: usize,
    /// The gradient that was checked, a copy of `grad`.
    pub analytic: Vec<f64>,
    /// The central finite difference estimate of each component of the gradient.
    pub numeric: Vec<f64>,
}

impl GradientCheck {
    /// Whether `max_rel_error` is at most `tol` (for example `1e-6`): every component agrees to that
    /// relative error. A NaN or infinite error never passes.
    pub fn is_ok(&self, tol: f64) -> bool {
        self.max_rel_error.is_finite() && self.max_rel_error <= tol
    }
}

/// One line: the largest error, where it is, and both values there.
impl fmt::Display for GradientCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self.worst_index;
        match (self.analytic.get(i), self.numeric.get(i)) {
            (Some(analytic), Some(numeric)) => write!(
                f,
                "gradient check: max relative error {:.3e} at index {i} of {} \
                 (analytic {analytic:e}, numeric {numeric:e})",
                self.max_rel_error,
                self.analytic.len(),
            ),
            _ => f.write_str("gradient check: no inputs to compare"),
        }
    }
}

/// Compares the gradient `grad` of `f` at `x` with central finite differences.
///
/// Component `i` of the numeric gradient is `(f(x + h e_i) - f(x - h e_i)) / (2h)`, with a step scaled to
/// the input, `h = cbrt(f64::EPSILON) · max(|x_i|, 1)` (about `6e-6` near 1), which balances the truncation
/// error of the formula against rounding in `f`; the denominator is the distance between the two
/// evaluation points as stored, so the rounding of `x_i ± h` does not bias the estimate. For a smooth `f`
/// the estimate is good to about `1e-9` relative, so a tolerance around `1e-6` separates correct
/// gradients from wrong ones. `f` is called `2 · x.len()` times.
///
/// See [`GradientCheck`] for the error measure.
///
/// # Panics
///
/// If `x` and `grad` differ in length.
///
/// # Example
///
/// ```
/// use autodiff_core::check_gradient;
///
/// // f(x, y) = x² y + sin y, and its gradient written by hand.
/// let f = |v: &[f64]| v[0] * v[0] * v[1] + v[1].sin();
/// let (x, y) = (1.5, -0.3);
///
/// let check = check_gradient(f, &[x, y], &[2.0 * x * y, x * x + y.cos()]);
/// assert!(check.is_ok(1e-6), "{check}");
///
/// // A wrong sign in the second component is caught, and located.
/// let check = check_gradient(f, &[x, y], &[2.0 * x * y, x * x - y.cos()]);
/// assert!(!check.is_ok(1e-6));
/// assert_eq!(check.worst_index, 1);
/// ```
pub fn check_gradient(f: impl Fn(&[f64]) -> f64, x: &[f64], grad: &[f64]) -> GradientCheck {
    assert!(
        x.len() == grad.len(),
        "check_gradient: x has {} components but grad has {}",
        x.len(),
        grad.len()
    );
    let mut probe = x.to_vec();
    let numeric: Vec<f64> = (0..x.len())
        .map(|i| central_difference(&f, &mut probe, i))
        .collect();

    let mut max_rel_error = 0.0;
    let mut worst_index = 0;
    for (i, (&analytic, &numeric)) in grad.iter().zip(&numeric).enumerate() {
        let error = relative_error(analytic, numeric);
        if error.is_nan() {
            (max_rel_error, worst_index) = (f64::NAN, i);
            break;
        }
        if error > max_rel_error {
            (max_rel_error, worst_index) = (error, i);
        }
    }
    GradientCheck {
        max_rel_error,
        worst_index,
        analytic: grad.to_vec(),
        numeric,
    }
}

/// [`check_gradient`] for a function of a parameter struct (`#[derive(Differentiable)]`, or any
/// [`Differentiable`] value such as a `Vec<f64>`): compares `grad` at `p` with central finite differences
/// over the flat view of `p` ([`Differentiable::to_flat`], the differentiable fields in declaration
/// order). `worst_index` indexes that flat view.
///
/// # Panics
///
/// If `grad` and `p` have flat views of different lengths.
///
/// # Example
///
/// ```
/// use autodiff_core::{check_gradient_of, Differentiable};
///
/// // f(w) = Σ w_i², whose gradient is 2w.
/// let f = |w: &Vec<f64>| w.iter().map(|v| v * v).sum::<f64>();
/// let w = vec![0.5, -1.5];
/// assert!(check_gradient_of(f, &w, &vec![1.0, -3.0]).is_ok(1e-6));
/// ```
pub fn check_gradient_of<P: Differentiable>(
    f: impl Fn(&P) -> f64,
    p: &P,
    grad: &P,
) -> GradientCheck {
    let x = p.to_flat();
    check_gradient(|flat| f(&p.from_flat(flat)), &x, &grad.to_flat())
}

/// The central difference of `f` along component `i` at `probe`, which is restored afterwards.
fn central_difference(f: &impl Fn(&[f64]) -> f64, probe: &mut [f64], i: usize) -> f64 {
    let centre = probe[i];
    let step = f64::EPSILON.cbrt() * centre.abs().max(1.0);
    let (above, below) = (centre + step, centre - step);
    probe[i] = above;
    let f_above = f(probe);
    probe[i] = below;
    let f_below = f(probe);
    probe[i] = centre;
    (f_above - f_below) / (above - below)
}

/// `|a - b| / max(1, |a|, |b|)`; NaN if either is NaN, and if both are infinite (`inf - inf`).
fn relative_error(a: f64, b: f64) -> f64 {
    (a - b).abs() / 1.0_f64.max(a.abs()).max(b.abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `f(x) = Σ c_i sin(x_i) + (Σ x_i)² / 2` and its gradient.
    fn trigonometric_quadratic(c: &[f64], x: &[f64]) -> f64 {
        let sum: f64 = x.iter().sum();
        c.iter().zip(x).map(|(c, x)| c * x.sin()).sum::<f64>() + sum * sum / 2.0
    }

    fn trigonometric_quadratic_gradient(c: &[f64], x: &[f64]) -> Vec<f64> {
        let sum: f64 = x.iter().sum();
        c.iter().zip(x).map(|(c, x)| c * x.cos() + sum).collect()
    }

    #[test]
    fn accepts_a_correct_gradient() {
        let f = |v: &[f64]| v[0].exp() * v[1] - v[2].ln();
        let x = [0.3_f64, -2.0, 4.0];
        let grad = [x[0].exp() * x[1], x[0].exp(), -1.0 / x[2]];
        let check = check_gradient(f, &x, &grad);
        assert!(check.is_ok(1e-8), "{check}");
        assert_eq!(check.analytic, grad);
        assert_eq!(check.numeric.len(), 3);
    }

    #[test]
    fn rejects_a_wrong_gradient_and_locates_it() {
        let f = |v: &[f64]| v[0] * v[1] * v[2];
        let check = check_gradient(f, &[1.0, 2.0, 3.0], &[6.0, 2.0, 2.0]);
        assert!(!check.is_ok(1e-6));
        assert_eq!(check.worst_index, 1);
        // |3 - 3| / 3 at index 1.
        assert!((check.max_rel_error - 1.0 / 3.0).abs() < 1e-8, "{check}");
    }

    #[test]
    fn the_step_scales_with_the_input() {
        // With a fixed step of 1e-6, x = 1e10 would not even move: 1e10 + 1e-6 == 1e10.
        let check = check_gradient(|v| v[0] * v[0], &[1e10], &[2e10]);
        assert!(check.is_ok(1e-8), "{check}");
        let check = check_gradient(|v| v[0].powi(3), &[1e-9], &[3e-18]);
        assert!(check.is_ok(1e-8), "{check}");
    }

    #[test]
    fn the_error_is_absolute_near_zero() {
        // A gradient of 1e-12 against a numeric 0 is an error of 1e-12, not of 100 %.
        let check = check_gradient(|_| 5.0, &[1.0], &[1e-12]);
        assert_eq!((check.max_rel_error, check.worst_index), (1e-12, 0));
        assert!(check.is_ok(1e-9));
    }

    #[test]
    fn non_finite_values_fail() {
        let check = check_gradient(|v| v[0] + v[1], &[1.0, 2.0], &[1.0, f64::NAN]);
        assert!(check.max_rel_error.is_nan());
        assert_eq!(check.worst_index, 1);
        assert!(!check.is_ok(1e-6) && !check.is_ok(f64::INFINITY));

        let check = check_gradient(|v| v[0].sqrt(), &[-1.0], &[0.0]);
        assert!(!check.is_ok(1e-6), "{check}");

        let check = check_gradient(|v| v[0], &[1.0], &[f64::INFINITY]);
        assert!(!check.is_ok(1e-6), "{check}");

        let infinite_error = GradientCheck {
            max_rel_error: f64::INFINITY,
            worst_index: 0,
            analytic: vec![0.0],
            numeric: vec![0.0],
        };
        assert!(!infinite_error.is_ok(f64::INFINITY));
    }

    #[test]
    fn no_inputs_pass() {
        let check = check_gradient(|_| 1.0, &[], &[]);
        assert_eq!((check.max_rel_error, check.worst_index), (0.0, 0));
        assert!(check.is_ok(0.0));
        assert_eq!(check.to_string(), "gradient check: no inputs to compare");
    }

    #[test]
    #[should_panic(expected = "x has 2 components but grad has 3")]
    fn a_length_mismatch_panics() {
        check_gradient(|v| v[0], &[1.0, 2.0], &[1.0, 2.0, 3.0]);
    }

    #[test]
    fn display_is_one_line() {
        let check = check_gradient(|v| 2.0 * v[0], &[1.0], &[3.0]);
        let report = check.to_string();
        assert!(!report.contains('\n'));
        let expected =
            "gradient check: max relative error 3.333e-1 at index 0 of 1 (analytic 3e0, numeric 2";
        assert!(report.starts_with(expected), "{report}");
    }

    proptest! {
        #[test]
        fn accepts_correct_gradients(
            (c, x) in (1usize..6).prop_flat_map(|n| (
                prop::collection::vec(-3.0..3.0_f64, n),
                prop::collection::vec(-10.0..10.0_f64, n),
            )),
        ) {
            let f = |v: &[f64]| trigonometric_quadratic(&c, v);
            let check = check_gradient(f, &x, &trigonometric_quadratic_gradient(&c, &x));
            prop_assert!(check.is_ok(1e-7), "{}", check);
        }

        #[test]
        fn rejects_one_wrong_component(
            (c, x, wrong) in (1usize..6).prop_flat_map(|n| (
                prop::collection::vec(-3.0..3.0_f64, n),
                prop::collection::vec(-10.0..10.0_f64, n),
                0..n,
            )),
            offset in prop_oneof![-1.0..-1e-3_f64, 1e-3..1.0_f64],
        ) {
            let f = |v: &[f64]| trigonometric_quadratic(&c, v);
            let mut grad = trigonometric_quadratic_gradient(&c, &x);
            grad[wrong] += offset * grad[wrong].abs().max(1.0);
            let check = check_gradient(f, &x, &grad);
            prop_assert!(!check.is_ok(1e-5), "{}", check);
            prop_assert_eq!(check.worst_index, wrong);
        }
    }
}
