//! The permutation an in-place sort applies, which the generated items of a `#[differentiable]` body that
//! sorts a `Vec` (`v.sort_by(|a, b| a.partial_cmp(b).unwrap())`) compute and then gather the elements by,
//! `v[k] = copy[order[k]]`: a gather whose adjoint the reverse sweep gives as a scatter (the macro's
//! `sorts.rs`). The permutation is integer data, with no derivative.

use core::cmp::Ordering;
use num_traits::Float;

/// The order std's stable `sort_by` leaves the elements of `values` in, by `a.partial_cmp(b).unwrap()`
/// (`descending`: `b.partial_cmp(a).unwrap()`): `order[k]` is the index of the element it puts at `k`, equal
/// elements kept in their order. Sorts the indexes `0..n` with std's stable sort by the same comparison, so
/// it panics on a NaN as the comparator does (every element is compared once there are two), with the same
/// message. Any `PartialOrd` element: floats, dual numbers (compared by value), integers.
///
/// ```
/// use autodiff_core::private::stable_order_partial;
///
/// assert_eq!(stable_order_partial(&[3.0, -1.0, 3.0, 0.5], false), [1, 3, 0, 2]);
/// assert_eq!(stable_order_partial(&[3.0, -1.0, 3.0, 0.5], true), [0, 2, 3, 1]);
/// ```
pub fn stable_order_partial<T: PartialOrd>(values: &[T], descending: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| {
        let (p, q) = match descending {
            false => (&values[a], &values[b]),
            true => (&values[b], &values[a]),
        };
        match p.partial_cmp(q) {
            Some(ordering) => ordering,
            None => none_unwrapped(),
        }
    });
    order
}

/// The order std's stable `sort_by` leaves the elements of `values` in, by `a.total_cmp(b)`
/// (`descending`: `b.total_cmp(a)`), never a panic: `-NaN < -inf < .. < -0.0 < +0.0 < .. < inf < NaN`.
/// On any `Float`, dual numbers included (which have no `total_cmp`: compared by value), with NaNs of one
/// sign equal to each other (their payloads are not read).
///
/// ```
/// use autodiff_core::private::stable_order_total;
///
/// assert_eq!(stable_order_total(&[0.0, -0.0, f64::NAN, -1.0], false), [3, 1, 0, 2]);
/// assert_eq!(stable_order_total(&[0.0, -0.0, f64::NAN, -1.0], true), [2, 0, 1, 3]);
/// ```
pub fn stable_order_total<T: Float>(values: &[T], descending: bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| {
        let (p, q) = match descending {
            false => (values[a], values[b]),
            true => (values[b], values[a]),
        };
        total_cmp(p, q)
    });
    order
}

/// `p.total_cmp(&q)` of `f64`, up to the payloads of NaNs, for any `Float`.
fn total_cmp<T: Float>(p: T, q: T) -> Ordering {
    // The rank of the classes `total_cmp` puts apart: a NaN below or above every number.
    let rank = |x: T| match (x.is_nan(), x.is_sign_negative()) {
        (true, true) => 0,
        (false, _) => 1,
        (true, false) => 2,
    };
    match rank(p).cmp(&rank(q)) {
        Ordering::Equal if rank(p) == 1 => match p.partial_cmp(&q) {
            // `-0.0 < +0.0`.
            Some(Ordering::Equal) => p.is_sign_positive().cmp(&q.is_sign_positive()),
            Some(ordering) => ordering,
            None => Ordering::Equal,
        },
        ordering => ordering,
    }
}

/// The panic of `a.partial_cmp(b).unwrap()` on a NaN.
#[cold]
#[inline(never)]
#[track_caller]
fn none_unwrapped() -> Ordering {
    panic!("called `Option::unwrap()` on a `None` value")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dual;

    /// The order std's `sort_by` itself leaves the (index, value) pairs in.
    fn std_order<T: Copy>(values: &[T], cmp: impl Fn(&T, &T) -> Ordering) -> Vec<usize> {
        let mut pairs: Vec<(usize, T)> = values.iter().copied().enumerate().collect();
        pairs.sort_by(|a, b| cmp(&a.1, &b.1));
        pairs.into_iter().map(|(i, _)| i).collect()
    }

    #[test]
    fn the_order_is_the_one_std_sort_by_applies_with_ties_and_zeros() {
        let values = [
            0.5,
            -0.0,
            2.0,
            0.0,
            0.5,
            f64::INFINITY,
            -3.0,
            0.5,
            f64::NEG_INFINITY,
            -0.0,
        ];
        assert_eq!(
            stable_order_partial(&values, false),
            std_order(&values, |a, b| a.partial_cmp(b).unwrap())
        );
        assert_eq!(
            stable_order_partial(&values, true),
            std_order(&values, |a, b| b.partial_cmp(a).unwrap())
        );
        let with_nans = [
            0.5,
            f64::NAN,
            -0.0,
            -f64::NAN,
            0.0,
            1.0,
            -f64::NAN,
            f64::NAN,
        ];
        for v in [&values[..], &with_nans[..]] {
            assert_eq!(
                stable_order_total(v, false),
                std_order(v, |a, b| a.total_cmp(b))
            );
            assert_eq!(
                stable_order_total(v, true),
                std_order(v, |a, b| b.total_cmp(a))
            );
            let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
            assert_eq!(
                stable_order_total(&v32, false),
                std_order(&v32, |a, b| a.total_cmp(b))
            );
        }
        // Integers (an argsort's indexes sorted by themselves), dual numbers by value.
        assert_eq!(
            stable_order_partial(&[3usize, 1, 2, 1], false),
            [1, 3, 2, 0]
        );
        let duals: Vec<Dual<f64>> = values.iter().map(|&x| Dual::new(x, x * 2.0)).collect();
        assert_eq!(
            stable_order_total(&duals, true),
            std_order(&values, |a, b| b.total_cmp(a))
        );
        assert_eq!(
            stable_order_partial(&duals, false),
            stable_order_partial(&values, false)
        );
    }

    #[test]
    #[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
    fn a_nan_panics_as_the_comparator_does() {
        stable_order_partial(&[1.0, f64::NAN], false);
    }

    #[test]
    fn fewer_than_two_elements_are_never_compared() {
        assert_eq!(stable_order_partial(&[f64::NAN], false), [0]);
        assert!(stable_order_partial::<f64>(&[], true).is_empty());
    }
}
