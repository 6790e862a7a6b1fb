//! Matrices as generated code sees them. A parameter `&[Vec<T>]`, `Vec<Vec<T>>` or `[[T; M]; N]` is read
//! through one flat row-major `Vec<T>` and the offsets of its rows (`m[i][j]` is `flat[offsets[i] + j]`), so
//! the generated code treats it like a slice; its gradient is given back in the matrix's own shape.

use crate::Dual;
use num_traits::Float;

/// A matrix of floats, by rows (which may differ in length for `Vec<Vec<T>>`).
pub trait Matrix {
    /// The element type.
    type Elem: Float;
    /// The same shape, owned: the type of the gradient (`Vec<Vec<T>>` or `[[T; M]; N]`).
    type Shaped;
    /// The same shape of dual numbers, for the higher-order items.
    type Lifted;
    /// The number of rows.
    fn rows(&self) -> usize;
    /// Row `i`.
    fn row(&self, i: usize) -> &[Self::Elem];
    /// The values `flat`, row-major, in the shape of this matrix.
    fn shaped(&self, flat: &[Self::Elem]) -> Self::Shaped;
    /// The dual numbers `self + tangents ε`, the tangents row-major.
    fn lifted(&self, tangents: &[Self::Elem]) -> Self::Lifted;
}

impl<T: Float> Matrix for [Vec<T>] {
    type Elem = T;
    type Shaped = Vec<Vec<T>>;
    type Lifted = Vec<Vec<Dual<T>>>;
    fn rows(&self) -> usize {
        self.len()
    }
    fn row(&self, i: usize) -> &[T] {
        &self[i]
    }
    fn shaped(&self, flat: &[T]) -> Vec<Vec<T>> {
        let mut start = 0;
        self.iter()
            .map(|row| {
                let values = flat[start..start + row.len()].to_vec();
                start += row.len();
                values
            })
            .collect()
    }
    fn lifted(&self, tangents: &[T]) -> Vec<Vec<Dual<T>>> {
        let mut k = 0;
        self.iter()
            .map(|row| {
                row.iter()
                    .map(|&v| {
                        k += 1;
                        Dual::new(v, tangents[k - 1])
                    })
                    .collect()
            })
            .collect()
    }
}

impl<T: Float> Matrix for Vec<Vec<T>> {
    type Elem = T;
    type Shaped = Vec<Vec<T>>;
    type Lifted = Vec<Vec<Dual<T>>>;
    fn rows(&self) -> usize {
        self.len()
    }
    fn row(&self, i: usize) -> &[T] {
        &self[i]
    }
    fn shaped(&self, flat: &[T]) -> Vec<Vec<T>> {
        self.as_slice().shaped(flat)
    }
    fn lifted(&self, tangents: &[T]) -> Vec<Vec<Dual<T>>> {
        self.as_slice().lifted(tangents)
    }
}

impl<T: Float, const M: usize, const N: usize> Matrix for [[T; M]; N] {
    type Elem = T;
    type Shaped = [[T; M]; N];
    type Lifted = [[Dual<T>; M]; N];
    fn rows(&self) -> usize {
        N
    }
    fn row(&self, i: usize) -> &[T] {
        &self[i]
    }
    fn shaped(&self, flat: &[T]) -> [[T; M]; N] {
        core::array::from_fn(|i| core::array::from_fn(|j| flat[i * M + j]))
    }
    fn lifted(&self, tangents: &[T]) -> [[Dual<T>; M]; N] {
        core::array::from_fn(|i| {
            core::array::from_fn(|j| Dual::new(self[i][j], tangents[i * M + j]))
        })
    }
}

impl<A: Matrix + ?Sized> Matrix for &A {
    type Elem = A::Elem;
    type Shaped = A::Shaped;
    type Lifted = A::Lifted;
    fn rows(&self) -> usize {
        (**self).rows()
    }
    fn row(&self, i: usize) -> &[A::Elem] {
        (**self).row(i)
    }
    fn shaped(&self, flat: &[A::Elem]) -> A::Shaped {
        (**self).shaped(flat)
    }
    fn lifted(&self, tangents: &[A::Elem]) -> A::Lifted {
        (**self).lifted(tangents)
    }
}

/// The elements of `m`, row-major.
pub fn flatten<A: Matrix + ?Sized>(m: &A) -> Vec<A::Elem> {
    (0..m.rows())
        .flat_map(|i| m.row(i).iter().copied())
        .collect()
}

/// Where each row of `m` starts in [`flatten`]`(m)`, and, last, the number of elements.
pub fn row_offsets<A: Matrix + ?Sized>(m: &A) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(m.rows() + 1);
    let mut start = 0;
    offsets.push(0);
    for i in 0..m.rows() {
        start += m.row(i).len();
        offsets.push(start);
    }
    offsets
}

/// The row offsets of a matrix of `rows` rows of `cols` elements each (`vec![vec![v; cols]; rows]`, made in
/// a differentiable body): `[0, cols, 2 cols, .., rows cols]`.
pub fn uniform_row_offsets(rows: usize, cols: usize) -> Vec<usize> {
    (0..=rows).map(|i| i * cols).collect()
}

/// The row offsets of a matrix whose rows have these lengths (`vec![vec![a, b], vec![c]]`).
pub fn row_offsets_of_lengths(lengths: &[usize]) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    offsets.push(0);
    for length in lengths {
        offsets.push(offsets[offsets.len() - 1] + length);
    }
    offsets
}

/// The flat row-major `flat` with row offsets `offsets` as a `Vec<Vec<T>>`: a matrix made in a
/// differentiable body, passed whole to a call.
pub fn unflatten<T: Copy>(flat: &[T], offsets: &[usize]) -> Vec<Vec<T>> {
    offsets
        .windows(2)
        .map(|w| flat[w[0]..w[1]].to_vec())
        .collect()
}

/// `flat`, row-major, in the shape of `m`: a matrix's gradient from its flat adjoint.
pub fn unflatten_like<A: Matrix + ?Sized>(m: &A, flat: &[A::Elem]) -> A::Shaped {
    m.shaped(flat)
}

/// `m + tangents ε` with the tangents in `m`'s shape (a direction of `f_hvp`).
///
/// # Panics
///
/// If the numbers of elements differ, with a message naming `label`.
pub fn dual_matrix<A: Matrix + ?Sized, D: Matrix<Elem = A::Elem> + ?Sized>(
    label: &str,
    m: &A,
    tangents: &D,
) -> A::Lifted {
    let (n, flat) = (flatten(m).len(), flatten(tangents));
    if flat.len() != n {
        panic!(
            "autodiff: the direction for `{label}` has {} elements but `{label}` has {n}",
            flat.len()
        );
    }
    m.lifted(&flat)
}

/// `m + 0 ε`: a matrix held constant among dual numbers.
pub fn constant_matrix<A: Matrix + ?Sized>(m: &A) -> A::Lifted {
    m.lifted(&vec![
        <A::Elem as num_traits::Zero>::zero();
        flatten(m).len()
    ])
}

/// The tangent of a matrix parameter, flattened, checked against the flattened parameter.
///
/// # Panics
///
/// If the numbers of elements differ, with a message naming the parameter.
pub fn matrix_tangent<D: Matrix + ?Sized>(label: &str, t: &D, flat: &[D::Elem]) -> Vec<D::Elem> {
    let t = flatten(t);
    if t.len() != flat.len() {
        panic!(
            "autodiff: the tangent of `{label}` has {} elements but `{label}` has {}",
            t.len(),
            flat.len()
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ragged_rows_round_trip() {
        let m = vec![vec![1.0, 2.0], vec![], vec![3.0]];
        assert_eq!(flatten(&m), [1.0, 2.0, 3.0]);
        assert_eq!(row_offsets(&m), [0, 2, 2, 3]);
        assert_eq!(
            unflatten_like(&m, &[4.0, 5.0, 6.0]),
            vec![vec![4.0, 5.0], vec![], vec![6.0]]
        );
        let a = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
        assert_eq!(flatten(&a), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(row_offsets(&&a), [0, 2, 4, 6]);
        assert_eq!(unflatten_like(&a, &flatten(&a)), a);
        let lifted = dual_matrix("a", &a, &[[1.0; 2]; 3]);
        assert_eq!((lifted[2][1].re, lifted[2][1].eps), (6.0, 1.0));
        assert_eq!(constant_matrix(&m)[2][0].eps, 0.0);
        assert_eq!(uniform_row_offsets(3, 2), [0, 2, 4, 6]);
        assert_eq!(row_offsets_of_lengths(&[2, 0, 1]), [0, 2, 2, 3]);
        assert_eq!(unflatten(&[1.0, 2.0, 3.0], &[0, 2, 2, 3]), m);
    }
}
