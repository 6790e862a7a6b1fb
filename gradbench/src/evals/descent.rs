//! The gradient descent that `particle` and `saddle` run, outer and inner: the same steps as the one
//! every C++ tool of GradBench shares for these two evals (the result, compared to 1e-4, depends on
//! them). From `x`, with the step `eta = 1e-5`: stop when `|g| <= 1e-5` or when a step would move `x`
//! by at most `1e-5`; take the step `x - eta g` if it lowers the objective (and after ten taken steps
//! double `eta`), else halve `eta`.
//!
//! It is generic over the float type so that an outer forward mode can run it on `autodiff::Dual`
//! (the `saddle` eval's inner argmax is differentiated through), and over how the objective and its
//! gradient are computed, so each mode combination passes its own.

use autodiff::Float;

/// The point where the descent from `start` stops, for an objective `f` and its gradient `grad`
/// (written into the second argument).
pub fn argmin<T: Float>(
    f: impl Fn(&[T]) -> T,
    grad: impl Fn(&[T], &mut [T]),
    start: &[T],
) -> Vec<T> {
    let tolerance = T::from(1e-5).unwrap();
    let two = T::one() + T::one();
    let mut x = start.to_vec();
    let mut fx = f(&x);
    let mut g = vec![T::zero(); x.len()];
    grad(&x, &mut g);
    let mut x_next = x.clone();
    let mut eta = tolerance;
    let mut taken = 0;
    loop {
        if norm(g.iter().copied()) <= tolerance {
            return x;
        }
        if taken == 10 {
            eta = eta * two;
            taken = 0;
            continue;
        }
        for ((next, &xi), &gi) in x_next.iter_mut().zip(&x).zip(&g) {
            *next = xi - eta * gi;
        }
        if norm(x.iter().zip(&x_next).map(|(&a, &b)| a - b)) <= tolerance {
            return x;
        }
        let f_next = f(&x_next);
        if f_next < fx {
            std::mem::swap(&mut x, &mut x_next);
            fx = f_next;
            grad(&x, &mut g);
            taken += 1;
        } else {
            eta = eta / two;
            taken = 0;
        }
    }
}

/// The point where the descent on `-f` stops: the argmax of `f`.
pub fn argmax<T: Float>(
    f: impl Fn(&[T]) -> T,
    grad: impl Fn(&[T], &mut [T]),
    start: &[T],
) -> Vec<T> {
    argmin(
        |x| -f(x),
        |x, g| {
            grad(x, g);
            for gi in g.iter_mut() {
                *gi = -*gi;
            }
        },
        start,
    )
}

fn norm<T: Float>(v: impl Iterator<Item = T>) -> T {
    v.fold(T::zero(), |acc, vi| acc + vi * vi).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_minimum_of_a_quadratic() {
        let f = |x: &[f64]| (x[0] - 1.0).powi(2) + 3.0 * (x[1] + 2.0).powi(2);
        let grad = |x: &[f64], g: &mut [f64]| {
            g[0] = 2.0 * (x[0] - 1.0);
            g[1] = 6.0 * (x[1] + 2.0);
        };
        let x = argmin(f, grad, &[0.0, 0.0]);
        assert!(
            (x[0] - 1.0).abs() < 1e-4 && (x[1] + 2.0).abs() < 1e-4,
            "{x:?}"
        );
        let y = argmax(
            |x: &[f64]| -f(x),
            |x, g| {
                grad(x, g);
                g.iter_mut().for_each(|gi| *gi = -*gi);
            },
            &[0.0, 0.0],
        );
        assert!(
            (y[0] - 1.0).abs() < 1e-4 && (y[1] + 2.0).abs() < 1e-4,
            "{y:?}"
        );
    }
}
