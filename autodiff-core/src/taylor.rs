//! The value on dual numbers of a function known to `order = K` by its gradient alone: a registered
//! outside function (`#[gradient_of(libm::erf)]`, whose generic copy cannot run `libm::erf` on duals) and
//! a custom function called inside another custom gradient's closure (differentiated by its own
//! gradient). Generated code computes it as
//!
//! ```text
//! f(x₀ + h) = f(x₀) + ∫₀¹ ∇f(x₀ + t h) · h dt
//! ```
//!
//! with `x₀` the arguments' values (every tangent dropped) and `h` their tangent parts, which are
//! nilpotent: some power `hⁿ` is zero (`n = 2` on the `Dual` of `f_hvp` and the `MultiDual` of
//! `f_hessian`, `n = K` on the `K - 1` nested duals of `f_derivatives`). Then `∇f(x₀ + t h)` is needed
//! modulo `hⁿ⁻¹`, a polynomial in `t` of degree `n - 2`, which the Gauss–Legendre rule of
//! [`gauss_legendre`] integrates exactly: the value is the Taylor series of `f` at `x₀` to every order
//! that the dual numbers hold, with the gradient as the derivative.
//!
//! A registered gradient that calls the registered function itself (`let s = logistic(x); dy * s * (1 -
//! s)`) would reach this computation again from inside it, at the same `h`: [`budget`] bounds that. The
//! value needed modulo `hᵇ⁺¹` (budget `b`) takes the gradient modulo `hᵇ`, so the calls inside the
//! gradient run with budget `b - 1`, and at budget 0 the value is `f(x₀)`.

use num_traits::Float;
use std::cell::Cell;

/// Gauss–Legendre rules on `[0, 1]` (node, weight) with 1 to 5 nodes: the rule of `m` nodes integrates
/// polynomials of degree up to `2m - 1` exactly.
const RULES: [&[(f64, f64)]; 5] = [
    &[(0.5, 1.0)],
    &[(0.2113248654051871, 0.5), (0.7886751345948129, 0.5)],
    &[
        (0.11270166537925831, 0.2777777777777778),
        (0.5, 0.4444444444444444),
        (0.8872983346207417, 0.2777777777777778),
    ],
    &[
        (0.06943184420297371, 0.17392742256872692),
        (0.33000947820757187, 0.32607257743127305),
        (0.6699905217924281, 0.32607257743127305),
        (0.9305681557970263, 0.17392742256872692),
    ],
    &[
        (0.046910077030668004, 0.11846344252809454),
        (0.23076534494715845, 0.23931433524968324),
        (0.5, 0.28444444444444444),
        (0.7692346550528415, 0.23931433524968324),
        (0.953089922969332, 0.11846344252809454),
    ],
];

/// The largest `n` that [`gauss_legendre`] has a rule for: `f_derivatives` at the highest `order` (8)
/// needs 8.
const MOST: usize = 2 * RULES.len() + 1;

/// The smallest `n ≥ 1` with `hⁿ = 0`, for the tangent part `h` of an argument (its value minus the
/// value with every tangent dropped): 1 for a float or a dual number without tangents. A step whose
/// value is not zero (a NaN or infinite argument, whose tangents are meaningless) counts as 2, so that
/// the value is computed by the midpoint and stays NaN.
///
/// # Panics
///
/// If `h` is not nilpotent within the powers the rules of [`gauss_legendre`] cover (duals nested deeper
/// than `order = 8` needs).
pub fn step_power<S: Float>(h: S) -> usize {
    if h.to_f64() != Some(0.0) {
        return 2;
    }
    let mut power = h;
    for n in 1..=MOST {
        if power.is_zero() {
            return n;
        }
        power = power * h;
    }
    panic!(
        "autodiff: a function differentiated by its gradient alone (registered with `#[gradient_of]`, or a \
         custom function called in another's closure) runs on dual numbers nested deeper than `order = 8` \
         needs"
    )
}

/// The tangent parts `steps` of several arguments together: the smallest `n` with every product of `n`
/// of them zero. That is at most the largest of their own [`step_power`]s when they are all multiples of
/// one step (`f_derivatives`, which seeds one input) and at most 2 on `f_hessian`'s lanes; for steps in
/// several independent tangents (duals nested by hand), a combination of them with unrelated weights
/// finds the products of different steps.
pub fn steps_power<S: Float>(steps: impl IntoIterator<Item = S>) -> usize {
    let mut most = 1;
    let mut mix = S::zero();
    for (i, h) in steps.into_iter().enumerate() {
        most = most.max(step_power(h));
        // Weights 1 + i φ (φ the golden ratio's fraction): no sum of their products cancels exactly.
        let weight = S::from(1.0 + i as f64 * 0.618_033_988_749_894_8).unwrap_or_else(S::one);
        mix = mix + h * weight;
    }
    most.max(step_power(mix))
}

/// The Gauss–Legendre rule on `[0, 1]` that integrates `∇f(x₀ + t h)` exactly where `hⁿ = 0`: a
/// polynomial in `t` of degree `n - 2`, so `max(1, n / 2)` nodes.
///
/// # Panics
///
/// If `n` is above what the rules cover (see [`step_power`]).
pub fn gauss_legendre(n: usize) -> &'static [(f64, f64)] {
    let nodes = (n / 2).max(1);
    match RULES.get(nodes - 1) {
        Some(rule) => rule,
        None => panic!(
            "autodiff: a function differentiated by its gradient alone runs on dual numbers nested deeper \
             than `order = 8` needs"
        ),
    }
}

thread_local! {
    /// The budget of the registered functions called from inside the computation of such a function's
    /// value (see the module's documentation); `None` outside of one.
    static BUDGET: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The budget of a registered function's value on dual numbers whose steps have power `n` (hⁿ = 0):
/// `n - 1`, or less inside the value of another (the value is needed modulo `hᵇ⁺¹` only). While it
/// lives, the calls it encloses get one less; dropping it restores the budget outside.
pub fn budget(n: usize) -> Budget {
    let outer = BUDGET.with(Cell::get);
    let level = match outer {
        Some(b) => b.min(n.saturating_sub(1)),
        None => n.saturating_sub(1),
    };
    BUDGET.with(|b| b.set(Some(level.saturating_sub(1))));
    Budget { outer, level }
}

/// See [`budget`].
#[must_use]
pub struct Budget {
    outer: Option<usize>,
    level: usize,
}

impl Budget {
    /// How many orders of the step the value is needed to: 0 (its value at `x₀` alone), 1 (`f(x₀) + h ·
    /// ∇f(x₀)`), or more.
    pub fn level(&self) -> usize {
        self.level
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        BUDGET.with(|b| b.set(self.outer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dual;

    type D3 = Dual<Dual<Dual<f64>>>;

    fn step(x: f64) -> D3 {
        // x₀ + ε₁ + ε₂ + ε₃ minus its value.
        let one = Dual::new(Dual::new(x, 1.0), Dual::new(1.0, 0.0));
        let v = Dual::new(one, Dual::new(Dual::new(1.0, 0.0), Dual::new(0.0, 0.0)));
        v - crate::stop_gradient(v)
    }

    #[test]
    fn powers_of_steps() {
        assert_eq!(step_power(0.0_f64), 1);
        assert_eq!(step_power(step(0.5)), 4);
        assert_eq!(step_power(Dual::new(0.0, 2.0)), 2);
        assert_eq!(step_power(f64::NAN), 2);
        // ε₁ and ε₂ alone square to zero, their product does not.
        let (a, b) = (
            Dual::new(Dual::new(0.0, 1.0), Dual::new(0.0, 0.0)),
            Dual::new(Dual::new(0.0, 0.0), Dual::new(1.0, 0.0)),
        );
        assert_eq!(steps_power([a, b]), 3);
    }

    #[test]
    fn rules_integrate_their_degrees() {
        for n in 2..=MOST {
            let degree = n as i32 - 2;
            let rule = gauss_legendre(n);
            let integral: f64 = rule.iter().map(|(t, w)| w * t.powi(degree)).sum();
            assert!(
                (integral - 1.0 / (degree + 1) as f64).abs() < 1e-15,
                "n = {n}"
            );
        }
    }

    #[test]
    fn budgets_nest_and_restore() {
        let outer = budget(4);
        assert_eq!(outer.level(), 3);
        {
            let inner = budget(4);
            assert_eq!(inner.level(), 2);
        }
        assert_eq!(budget(4).level(), 2);
        drop(outer);
        assert_eq!(budget(2).level(), 1);
    }
}
