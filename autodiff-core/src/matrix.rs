//! Matrices and nested arrays as generated code sees them. A parameter `&[Vec<T>]`, `Vec<Vec<T>>` or
//! `[[T; M]; N]`, or one nested deeper (`[[[T; K]; M]; N]`, `Vec<Vec<Vec<T>>>`, `&[Vec<Vec<T>>]`), is read
//! through one flat row-major `Vec<T>` and the offsets of its rows (`m[i][j]` is `flat[offsets[i] + j]`;
//! deeper, the offsets of each level above, [`level_offsets`]), so the generated code treats it like a
//! slice; its gradient is given back in its own shape.
//!
//! The trait [`Matrix`] is implemented level by level: a row of floats (`[T]`, `Vec<T>`, `[T; N]`) at
//! depth [`Row`], and a slice, `Vec` or array of nested arrays of depth `D` at depth [`Nest<D>`]. The
//! depth is a type parameter so that the impls do not overlap (a row of floats and a row of rows are told
//! apart by it); rustc infers it from the type, so generated code never names it.

use crate::Dual;
use core::marker::PhantomData;
use num_traits::Float;

/// The depth of a row of floats, for [`Matrix`].
pub struct Row;

/// The depth of a slice, `Vec` or array of nested arrays of depth `D`, for [`Matrix`].
pub struct Nest<D>(PhantomData<D>);

/// A row of floats, a matrix of them by rows (which may differ in length for `Vec<Vec<T>>`), or a nested
/// array deeper than a matrix; `D` is its depth ([`Row`], [`Nest`]).
pub trait Matrix<D> {
    /// The element type.
    type Elem: Float;
    /// The same shape, owned: the type of the gradient (`Vec<Vec<T>>` or `[[T; M]; N]`).
    type Shaped;
    /// The same shape of dual numbers, for the higher-order items.
    type Lifted;
    /// Its number of items (floats of a row, rows of a matrix, ..).
    fn count(&self) -> usize;
    /// Its number of floats.
    fn floats(&self) -> usize;
    /// Calls `f` on each row of floats, in order.
    fn each_row<'a>(&'a self, f: &mut dyn FnMut(&'a [Self::Elem]));
    /// Pushes onto `out` the number of items of each nested array `depth` levels down (`depth = 0`: this
    /// one), in order.
    fn counts_at(&self, depth: usize, out: &mut Vec<usize>);
    /// The first [`floats`](Matrix::floats) values of `flat`, row-major, in the shape of this one.
    fn shaped(&self, flat: &[Self::Elem]) -> Self::Shaped;
    /// The dual numbers `self + tangents ε`, the tangents row-major.
    fn lifted(&self, tangents: &[Self::Elem]) -> Self::Lifted;
}

/// A row of floats held as a slice (`[T]`, `Vec<T>`, `[T; N]`).
macro_rules! row_impl {
    ($([$($generics:tt)*] $ty:ty => $shaped:ty, $lifted:ty, $from:expr;)*) => {$(
        impl<T: Float, $($generics)*> Matrix<Row> for $ty {
            type Elem = T;
            type Shaped = $shaped;
            type Lifted = $lifted;
            fn count(&self) -> usize {
                self.len()
            }
            fn floats(&self) -> usize {
                self.len()
            }
            fn each_row<'a>(&'a self, f: &mut dyn FnMut(&'a [T])) {
                f(&self[..]);
            }
            fn counts_at(&self, depth: usize, out: &mut Vec<usize>) {
                if depth == 0 {
                    out.push(self.len());
                }
            }
            fn shaped(&self, flat: &[T]) -> $shaped {
                #[allow(clippy::redundant_closure_call)]
                ($from)(self.len(), |i: usize| flat[i])
            }
            fn lifted(&self, tangents: &[T]) -> $lifted {
                #[allow(clippy::redundant_closure_call)]
                ($from)(self.len(), |i: usize| Dual::new(self[i], tangents[i]))
            }
        }
    )*};
}

row_impl! {
    [] [T] => Vec<T>, Vec<Dual<T>>, |n, f| (0..n).map(f).collect();
    [] Vec<T> => Vec<T>, Vec<Dual<T>>, |n, f| (0..n).map(f).collect();
    [const N: usize] [T; N] => [T; N], [Dual<T>; N], |_, f| core::array::from_fn(f);
}

/// Where each item of `m` starts in its flat values.
fn starts<D, A: Matrix<D>>(items: &[A]) -> Vec<usize> {
    let mut start = 0;
    items
        .iter()
        .map(|a| {
            let here = start;
            start += a.floats();
            here
        })
        .collect()
}

/// A slice, `Vec` or array of nested arrays (a matrix's rows, a matrix's matrices, ..).
macro_rules! nest_impl {
    ($([$($generics:tt)*] $ty:ty => $shaped:ty, $lifted:ty, $from:expr;)*) => {$(
        impl<D, A: Matrix<D>, $($generics)*> Matrix<Nest<D>> for $ty {
            type Elem = A::Elem;
            type Shaped = $shaped;
            type Lifted = $lifted;
            fn count(&self) -> usize {
                self.len()
            }
            fn floats(&self) -> usize {
                self.iter().map(A::floats).sum()
            }
            fn each_row<'a>(&'a self, f: &mut dyn FnMut(&'a [A::Elem])) {
                for item in self.iter() {
                    item.each_row(f);
                }
            }
            fn counts_at(&self, depth: usize, out: &mut Vec<usize>) {
                match depth {
                    0 => out.push(self.len()),
                    _ => self.iter().for_each(|item| item.counts_at(depth - 1, out)),
                }
            }
            fn shaped(&self, flat: &[A::Elem]) -> $shaped {
                let starts = starts(&self[..]);
                #[allow(clippy::redundant_closure_call)]
                ($from)(self.len(), |i: usize| self[i].shaped(&flat[starts[i]..]))
            }
            fn lifted(&self, tangents: &[A::Elem]) -> $lifted {
                let starts = starts(&self[..]);
                #[allow(clippy::redundant_closure_call)]
                ($from)(self.len(), |i: usize| self[i].lifted(&tangents[starts[i]..]))
            }
        }
    )*};
}

nest_impl! {
    [] [A] => Vec<A::Shaped>, Vec<A::Lifted>, |n, f| (0..n).map(f).collect();
    [] Vec<A> => Vec<A::Shaped>, Vec<A::Lifted>, |n, f| (0..n).map(f).collect();
    [const N: usize] [A; N] => [A::Shaped; N], [A::Lifted; N], |_, f| core::array::from_fn(f);
}

impl<D, A: Matrix<D> + ?Sized> Matrix<D> for &A {
    type Elem = A::Elem;
    type Shaped = A::Shaped;
    type Lifted = A::Lifted;
    fn count(&self) -> usize {
        (**self).count()
    }
    fn floats(&self) -> usize {
        (**self).floats()
    }
    fn each_row<'a>(&'a self, f: &mut dyn FnMut(&'a [A::Elem])) {
        (**self).each_row(f);
    }
    fn counts_at(&self, depth: usize, out: &mut Vec<usize>) {
        (**self).counts_at(depth, out);
    }
    fn shaped(&self, flat: &[A::Elem]) -> A::Shaped {
        (**self).shaped(flat)
    }
    fn lifted(&self, tangents: &[A::Elem]) -> A::Lifted {
        (**self).lifted(tangents)
    }
}

/// A row of a matrix whose rows are arrays `[T; N]` (`pos[i]` of `pos: &[[f64; 3]]`), held as a sub-slice
/// of the flat matrix: the `&[T; N]` the matrix holds, which a callee taking `&[T; N]` (or, coerced,
/// `&[T]`) gets (the sub-slice was rustc's E0308 there).
#[inline]
pub fn fixed_row<T, const N: usize>(row: &[T]) -> &[T; N] {
    match row.try_into() {
        Ok(fixed) => fixed,
        Err(_) => panic!(
            "a row of {} elements where the matrix's rows hold {N}",
            row.len()
        ),
    }
}

/// The elements of `m`, row-major.
pub fn flatten<D, A: Matrix<D> + ?Sized>(m: &A) -> Vec<A::Elem> {
    let mut flat = Vec::with_capacity(m.floats());
    m.each_row(&mut |row| flat.extend_from_slice(row));
    flat
}

/// Where each row of floats of `m` starts in [`flatten`]`(m)`, and, last, the number of elements.
pub fn row_offsets<D, A: Matrix<D> + ?Sized>(m: &A) -> Vec<usize> {
    // One allocation: a matrix has `count()` rows of floats (a deeper nest has more, and the vector grows).
    let mut offsets = Vec::with_capacity(m.count() + 1);
    offsets.push(0);
    let mut end = 0;
    m.each_row(&mut |row| {
        end += row.len();
        offsets.push(end);
    });
    offsets
}

/// For a nested array deeper than a matrix, where each of its items `level + 1` levels down starts among
/// the items one level further down, and, last, their number: for `x: [[[T; K]; M]; N]`, level 0 gives
/// `[0, M, 2 M, .., N M]`, the first row of floats of each `x[i]` (`x[i][j][k]` is
/// `flat[rows[level_0[i] + j] + k]` with `rows` its [`row_offsets`]).
pub fn level_offsets<D, A: Matrix<D> + ?Sized>(m: &A, level: usize) -> Vec<usize> {
    let mut counts = Vec::new();
    m.counts_at(level + 1, &mut counts);
    row_offsets_of_lengths(&counts)
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

/// The flat row-major `flat` as a `[[T; C]; R]`: a nested array made in a differentiable body
/// (`[[a, b], [c, d]]`, `[[0.0; C]; R]`), passed whole to a call.
///
/// # Panics
///
/// If `flat` has fewer than `R * C` elements.
pub fn unflatten_fixed<const R: usize, const C: usize, T: Copy>(flat: &[T]) -> [[T; C]; R] {
    core::array::from_fn(|i| core::array::from_fn(|j| flat[i * C + j]))
}

/// `flat`, row-major, in the shape of `m`: a matrix's gradient from its flat adjoint.
pub fn unflatten_like<D, A: Matrix<D> + ?Sized>(m: &A, flat: &[A::Elem]) -> A::Shaped {
    m.shaped(flat)
}

/// `m + tangents ε` with the tangents in `m`'s shape (a direction of `f_hvp`).
///
/// # Panics
///
/// If the numbers of elements differ, with a message naming `label`.
pub fn dual_matrix<DA, DT, A: Matrix<DA> + ?Sized, T: Matrix<DT, Elem = A::Elem> + ?Sized>(
    label: &str,
    m: &A,
    tangents: &T,
) -> A::Lifted {
    let (n, flat) = (m.floats(), flatten(tangents));
    if flat.len() != n {
        panic!(
            "autodiff: the direction for `{label}` has {} elements but `{label}` has {n}",
            flat.len()
        );
    }
    m.lifted(&flat)
}

/// `m + 0 ε`: a matrix held constant among dual numbers.
pub fn constant_matrix<D, A: Matrix<D> + ?Sized>(m: &A) -> A::Lifted {
    m.lifted(&vec![<A::Elem as num_traits::Zero>::zero(); m.floats()])
}

/// The tangent of a matrix parameter, flattened, checked against the flattened parameter.
///
/// # Panics
///
/// If the numbers of elements differ, with a message naming the parameter.
pub fn matrix_tangent<D, A: Matrix<D> + ?Sized>(
    label: &str,
    t: &A,
    flat: &[A::Elem],
) -> Vec<A::Elem> {
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

    #[test]
    fn nested_deeper_than_a_matrix() {
        let x = [
            [[1.0, 2.0], [3.0, 4.0]],
            [[5.0, 6.0], [7.0, 8.0]],
            [[9.0, 10.0], [11.0, 12.0]],
        ];
        assert_eq!(flatten(&x), (1..=12).map(f64::from).collect::<Vec<_>>());
        assert_eq!(row_offsets(&x), [0, 2, 4, 6, 8, 10, 12]);
        assert_eq!(level_offsets(&x, 0), [0, 2, 4, 6]);
        assert_eq!(unflatten_like(&x, &flatten(&x)), x);
        let lifted = dual_matrix("x", &x, &[[[1.0; 2]; 2]; 3]);
        assert_eq!((lifted[2][1][0].re, lifted[2][1][0].eps), (11.0, 1.0));
        let ragged = vec![vec![vec![1.0], vec![2.0, 3.0]], vec![], vec![vec![4.0]]];
        assert_eq!(row_offsets(&ragged), [0, 1, 3, 4]);
        assert_eq!(level_offsets(&ragged, 0), [0, 2, 2, 3]);
        assert_eq!(level_offsets(&ragged[..], 1), [0, 1, 3, 4]);
        assert_eq!(
            unflatten_like(&ragged, &[4.0, 3.0, 2.0, 1.0])[0][1],
            [3.0, 2.0]
        );
        assert_eq!(constant_matrix(&ragged)[2][0][0].eps, 0.0);
        let four = [[[[1.0f32; 2]; 1]; 2]; 2];
        assert_eq!(
            (flatten(&four).len(), level_offsets(&four, 1)),
            (8, vec![0, 1, 2, 3, 4])
        );
    }
}
