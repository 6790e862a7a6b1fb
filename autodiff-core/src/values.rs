//! The values view of a parameter struct, for `order = K` on functions that pass structs on whole to
//! other functions (`struct_whole.rs` in the macro crate).
//!
//! The view lists every float a struct holds, in declaration order, each field flattened in turn: the flat
//! view of `Differentiable` with the `#[no_grad]` float fields (`f64`, `f32`, a float type parameter, a
//! `Vec` or array of them) in their places. A function of a struct is differentiated to higher order as a
//! function of the struct itself (for the fields that hold no floats) and of its values view (for every
//! float it reads): a callee that receives the struct on whole finds each field it reads at
//! `FieldType::values_range`, whether the field is differentiated or not, and a nested struct's view is a
//! contiguous part of its parent's. A tangent of the struct has zeros at the `#[no_grad]` floats, and the
//! gradient over the view gives the struct's gradient by dropping them.
//!
//! ```text
//! struct Spring { k: f64, anchor: [f64; 2], #[no_grad] damping: f64, #[no_grad] steps: usize }
//! values:        [k, anchor[0], anchor[1], damping]       (the flat view is [k, anchor[0], anchor[1]])
//! values_range:  k: 0..1, anchor: 1..3, damping: 3..4, steps: 4..4
//! ```

use crate::differentiable::{Differentiable, FieldType};
use num_traits::Float;
use std::borrow::Cow;

/// The values view of `value`.
#[inline]
pub fn values<D: Differentiable>(value: &D) -> Vec<f64> {
    let mut out = Vec::with_capacity(value.__autodiff_values_len());
    value.__autodiff_extend_values(&mut out);
    out
}

/// The values view of a struct that an `order = K` function keeps constant and passes on whole to a call
/// (`g(p, x)` with `wrt(x)`): [`values`], with the error of a struct without the derive said for this
/// use (a constant struct's callee needs no derive; the caller reads it through its view).
#[inline]
pub fn constant_values<D: ConstantValues>(value: &D) -> Vec<f64> {
    value.constant_values()
}

/// A struct whose values view [`constant_values`] takes: one with `#[derive(Differentiable)]`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is passed on whole to a call by an `order = K` function, which needs `#[derive(Differentiable)]` on it",
    label = "kept constant here, and passed on whole to a call in the body",
    note = "an `order = K` function reads a struct it passes on whole through the struct's values view, which the \
            derive makes, also where the struct is constant: add `#[derive(autodiff::Differentiable)]` to the \
            struct (with `#[no_grad]` on its fields that are not floats), or pass the callee the fields it reads \
            (`p.k`, `&p.v`) in place of the struct"
)]
pub trait ConstantValues {
    /// The values view.
    fn constant_values(&self) -> Vec<f64>;
}

#[diagnostic::do_not_recommend]
impl<D: Differentiable> ConstantValues for D {
    #[inline]
    fn constant_values(&self) -> Vec<f64> {
        values(self)
    }
}

/// The values view of `tangent`, a tangent of `primal`: zeros at the `#[no_grad]` floats.
#[inline]
pub fn tangent_values<D: Differentiable>(primal: &D, tangent: &D) -> Vec<f64> {
    let mut out = Vec::with_capacity(primal.__autodiff_values_len());
    primal.__autodiff_extend_tangent_values(tangent, &mut out);
    out
}

/// The gradient of the shape of `primal` from a gradient `values` over its values view.
///
/// # Panics
///
/// If `values.len()` is not the length of the view of `primal`.
#[inline]
pub fn from_values<D: Differentiable>(primal: &D, values: &[f64]) -> D {
    assert_eq!(
        values.len(),
        primal.__autodiff_values_len(),
        "a gradient over the values view has the view's length"
    );
    let mut rest = values;
    primal.__autodiff_take_values(&mut rest)
}

/// The values view of `value` in the float type `F` of a function of another float type than `f64`
/// (`fn outer(p: &P, x: f32) -> f32`, `fn g<T: Float>(o: &Outer<T>, x: T) -> T`), whose hidden function
/// reads the struct's floats as its own: [`values`], each converted (exactly, for a struct of `F`s).
#[inline]
pub fn values_in<F: Float, D: Differentiable>(value: &D) -> Vec<F> {
    values(value).into_iter().map(float_in::<F>).collect()
}

/// [`constant_values`] in the float type `F`, as [`values_in`].
#[inline]
pub fn constant_values_in<F: Float, D: ConstantValues>(value: &D) -> Vec<F> {
    value
        .constant_values()
        .into_iter()
        .map(float_in::<F>)
        .collect()
}

/// [`tangent_values`] in the float type `F`, as [`values_in`].
#[inline]
pub fn tangent_values_in<F: Float, D: Differentiable>(primal: &D, tangent: &D) -> Vec<F> {
    tangent_values(primal, tangent)
        .into_iter()
        .map(float_in::<F>)
        .collect()
}

/// [`from_values`] of a gradient over a values view in the float type `F` ([`values_in`]).
///
/// # Panics
///
/// If `values.len()` is not the length of the view of `primal`.
#[inline]
pub fn from_values_in<F: Float, D: Differentiable>(primal: &D, values: &[F]) -> D {
    let values: Vec<f64> = values
        .iter()
        .map(|v| v.to_f64().unwrap_or(f64::NAN))
        .collect();
    from_values(primal, &values)
}

/// `v` in the float type `F` (NaN where `F` cannot hold it, as `Dual::scale` does).
#[inline]
fn float_in<F: Float>(v: f64) -> F {
    F::from(v).unwrap_or_else(F::nan)
}

/// The float type of a parameter struct that a hidden function of a function generic over its float
/// type `T` takes beside its values view (`fn __g_whole<T: Float, __P: PrimalFloat>(o: &Outer<__P>, values:
/// &[T], ..)`): a type of its own, so that the struct stays what it is where `T` becomes a dual number
/// (`order = K` runs the hidden function's gradient on `Dual<T>`), and not named `Float`, so that the macro
/// does not take it for a float it differentiates.
///
/// It is also what the elements of a matrix field must be for [`WholeField`] and [`FieldWindow`] (`f64`,
/// `f32`, or a generic struct's float type parameter, `w: Vec<Vec<T>>` read as `Vec<Vec<__P>>`): a deeper
/// nest's rows are no floats, the error below.
#[diagnostic::on_unimplemented(
    message = "with `order = K`, a matrix field of a parameter struct, passed on whole to a call (`g(&p.w, ..)`) \
               or read by index, holds floats (`f64`, `f32` or the struct's float type parameter): a matrix of \
               `{Self}` (integers or flags, or a nest deeper than a matrix) is not supported there",
    label = "a field passed on whole, or read by index, by a function of this struct with `order = K`",
    note = "a field nested deeper than a matrix: pass its rows one by one (`g(&p.w[i], ..)`), or read the field \
            by its elements where it is read (`p.w[i][j][k]`)",
    note = "a `#[no_grad]` matrix of integers or flags: store it flat (`Vec<usize>` read as `data[i * cols + j]`, \
            rows of different lengths by an offsets `Vec<usize>`)"
)]
pub trait PrimalFloat: Float + Differentiable {}

impl<F: Float + Differentiable> PrimalFloat for F {}

/// Where the field `KEY` of `s` starts in the values view of `s`.
///
/// A field that is not in the view (a `#[no_grad]` field holding a struct, whose floats an `order = K`
/// function reads) is a compile error where this is instantiated ([`FieldType::IN_VIEW`]).
#[inline]
pub fn field_start<S: FieldType<KEY>, const KEY: u64>(s: &S) -> usize {
    const { in_view::<S, KEY>() };
    S::values_range(s).start
}

/// Where the field `KEY` of `s` ends in the values view of `s`; as [`field_start`].
#[inline]
pub fn field_end<S: FieldType<KEY>, const KEY: u64>(s: &S) -> usize {
    const { in_view::<S, KEY>() };
    S::values_range(s).end
}

/// Evaluated at compile time: the error when the field `KEY` of `S` is not in the values view.
const fn in_view<S: FieldType<KEY>, const KEY: u64>() {
    assert!(
        S::IN_VIEW,
        "`order = K` reads the floats of a `#[no_grad]` field that holds a struct, which the values view of \
         its parent leaves out: pass that struct (or the floats read from it) as a parameter of its own"
    );
}

/// Whether the field `KEY` of `S` is in the values view: it holds floats. A scalar field that the body
/// reads only converted to a float (`p.a as f64`) is read from the view where it is there, with its
/// derivative, else from the struct (an integer, `p.n as f64`).
#[inline]
pub const fn field_in_view<S: FieldType<KEY>, const KEY: u64>() -> bool {
    S::IN_VIEW
}

/// Where the field `KEY` of `s` starts in the values view of `s`, for a field that [`field_in_view`] says
/// is there (else a place no view has).
#[inline]
pub fn field_slot<S: FieldType<KEY>, const KEY: u64>(s: &S) -> usize {
    S::values_range(s).start
}

/// The field `KEY` of `s`, a value that holds no floats the function differentiates (an integer, a flag).
#[inline]
pub fn field_value<S: FieldType<KEY>, const KEY: u64>(s: &S) -> S::Type
where
    S::Type: Clone,
{
    S::field(s).clone()
}

/// An array field that a differentiable body reads as integers or flags (`x[p.idx[k]]`, `if p.mask[i]`),
/// bound as it is: the macro takes such a field for a constant from the syntax of the body, and this bound
/// makes a field of floats taken so a compile error rather than a gradient left out.
#[inline]
pub fn integers<A: IntegerArray + ?Sized>(field: &A) -> &A {
    field
}

/// A matrix field (`p.w[i][j]`) of a parameter struct that `order = K` passes to the hidden function of
/// the fields (a function of parameter structs with float type parameters, or a method of a generic
/// `impl`: `struct_higher.rs` in the macro crate) as its rows, `&[Vec<T>]`: the field's own rows where it
/// is a `Vec` of `Vec`s, else a copy of them (`[[T; 3]; 2]`, `Vec<[T; 3]>`); the gradient is added back
/// into the field by `AdjointOf`.
#[inline]
pub fn vec_matrix_rows<A: VecMatrix + ?Sized>(field: &A) -> Cow<'_, [Vec<A::Elem>]> {
    field.rows()
}

/// A matrix of floats as a struct's field holds it (`Vec<Vec<T>>`, `[[T; M]; N]`, `Vec<[T; M]>`), whose rows
/// [`vec_matrix_rows`] passes on.
#[diagnostic::on_unimplemented(
    message = "`order = K` on a function of a generic parameter struct (or a method of a generic `impl`) reads \
               this field as a matrix (`p.w[i][j]`), and it is a `{Self}`",
    label = "a field of type `{Self}` read by two indexes at `order = K`",
    note = "a matrix field is a `Vec<Vec<T>>`, a `[[T; M]; N]` or a `Vec<[T; M]>` of floats"
)]
pub trait VecMatrix {
    /// The element type.
    type Elem: Clone;
    /// The rows, borrowed where they are `Vec`s.
    fn rows(&self) -> Cow<'_, [Vec<Self::Elem>]>;
}

impl<T: Clone> VecMatrix for Vec<Vec<T>> {
    type Elem = T;
    #[inline]
    fn rows(&self) -> Cow<'_, [Vec<T>]> {
        Cow::Borrowed(self)
    }
}

impl<T: Clone> VecMatrix for [Vec<T>] {
    type Elem = T;
    #[inline]
    fn rows(&self) -> Cow<'_, [Vec<T>]> {
        Cow::Borrowed(self)
    }
}

impl<T: Clone, const M: usize, const N: usize> VecMatrix for [[T; M]; N] {
    type Elem = T;
    fn rows(&self) -> Cow<'_, [Vec<T>]> {
        Cow::Owned(self.iter().map(|row| row.to_vec()).collect())
    }
}

impl<T: Clone, const M: usize> VecMatrix for Vec<[T; M]> {
    type Elem = T;
    fn rows(&self) -> Cow<'_, [Vec<T>]> {
        Cow::Owned(self.iter().map(|row| row.to_vec()).collect())
    }
}

/// A `Vec`, array or slice of integers or `bool`s: an array field with no derivative ([`integers`]).
#[diagnostic::on_unimplemented(
    message = "a differentiable body reads an element of this field as an integer or a flag (an index, a loop's \
               bound, a condition, `!`, `&&`, `||`, or a comparison with an integer literal), or reads its \
               elements only converted by `as` (`p.w[k] as f64`), so the field is taken for a constant array of \
               integers or flags, but it is a `{Self}`",
    label = "a field of type `{Self}` read as integers or flags",
    note = "convert its elements where they are read (`p.w[k] as usize`, `p.w[k] != 0.0`), read a float field \
            without `as`, or pass the field as a parameter of its own"
)]
pub trait IntegerArray {
    /// The element type.
    type Elem: Copy;
}

/// `IntegerArray` of `Vec`s, arrays and slices of these element types.
macro_rules! integer_arrays {
    ($($t:ty),*) => {$(
        impl IntegerArray for Vec<$t> {
            type Elem = $t;
        }
        impl<const N: usize> IntegerArray for [$t; N] {
            type Elem = $t;
        }
        impl IntegerArray for [$t] {
            type Elem = $t;
        }
    )*};
}

integer_arrays!(usize, isize, u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, bool);

/// The field `KEY` of `s`, a struct that the function passes on whole.
#[inline]
pub fn field_ref<S: FieldType<KEY>, const KEY: u64>(s: &S) -> &S::Type {
    S::field(s)
}

/// The part `window` of a values view that holds the array field `KEY` of `S`, in the field's shape: a
/// `&[T; N]` for a `[f64; N]` field, a `&[T]` for a `Vec`. A function that passes an array field on
/// (`use_k(&p.k, x)` of a `k: [f64; 3]` and `fn use_k(k: &[f64; 3], ..)`) passes it so (`struct_whole.rs`).
#[inline]
pub fn field_window<S: FieldType<KEY>, const KEY: u64, T>(
    window: &[T],
) -> &<S::Type as FieldWindow<T>>::Window
where
    S::Type: FieldWindow<T>,
{
    <S::Type as FieldWindow<T>>::window(window)
}

/// An array field's shape over the element type `T` of a values view (`field_window`): a `Vec` or an
/// array of floats, or a struct deriving `Differentiable` (which the derive implements, `[T]`), or a
/// matrix of floats (`[T]`, its values row-major, which the callee's `__g_pairs` shapes again,
/// [`matrix_window`]). Another field (integers, a deeper nest) has none: passed on whole at `order = K`,
/// it is the error below.
#[diagnostic::on_unimplemented(
    message = "an array field of a parameter struct is read through the struct's values view, which holds `Vec`s, \
               arrays and matrices of floats and structs deriving `Differentiable`: a field of type `{Self}` \
               (integers or flags, or a nest deeper than a matrix) is not supported there yet",
    label = "a field of type `{Self}` read by index, or passed on whole, by a differentiable function of this struct",
    note = "a field nested deeper than a matrix passed on whole by a function with `order = K`: pass its rows one \
            by one (`g(&p.w[i], ..)`), or read the field by its elements where it is read (`p.w[i][j][k]`)",
    note = "a `#[no_grad]` field of integers or flags (`data: Vec<usize>`) is a constant array where the body reads \
            an element of it as an index, a bound, a condition, compared with an integer literal, or reads its \
            elements only converted by `as f64`; one read only by `.len()` is one too; else pass it as a \
            parameter of its own (`fn f(p: &Model, data: &[usize], ..)`)"
)]
pub trait FieldWindow<T> {
    /// `[T; N]` for `[F; N]`, `[T]` for `Vec<F>` and for a matrix.
    type Window: ?Sized;

    /// `window`, the field's part of a values view, in the field's shape.
    fn window(window: &[T]) -> &Self::Window;
}

/// The `FieldWindow` of `Vec`s and arrays of the float type `$f`.
macro_rules! float_windows {
    ($($f:ty),*) => {$(
        impl<T, const N: usize> FieldWindow<T> for [$f; N] {
            type Window = [T; N];

            /// # Panics
            ///
            /// If `window` does not hold `N` values, which `FieldType::values_range` of a `[F; N]` field
            /// does by construction.
            #[inline]
            fn window(window: &[T]) -> &[T; N] {
                match <&[T; N]>::try_from(window) {
                    Ok(array) => array,
                    Err(_) => panic!(
                        "autodiff: the values view of a `[T; {N}]` field holds {N} values, not {}",
                        window.len()
                    ),
                }
            }
        }

        impl<T> FieldWindow<T> for Vec<$f> {
            type Window = [T];

            #[inline]
            fn window(window: &[T]) -> &[T] {
                window
            }
        }
    )*};
}

float_windows!(f64, f32);

/// The field `KEY` of `s` passed on whole to a call (`g(&p.w)`, `g(&p.inner)`), as the first of the pair
/// that stands for it in a call of the callee's `__g_pairs` (`struct_whole.rs`): the struct itself for a
/// field holding a derived struct, `()` for a `Vec` or an array of floats, whose values alone the callee
/// reads. The second of the pair is its part of the view, [`field_window`].
#[inline]
pub fn whole_primal<S: FieldType<KEY>, const KEY: u64>(s: &S) -> <S::Type as WholeField>::Primal<'_>
where
    S::Type: WholeField,
{
    WholeField::primal(S::field(s))
}

/// What a field passed on whole hands a callee besides its part of the values view ([`whole_primal`]):
/// a derived struct itself (the derive implements this and [`FieldWindow`] for it), nothing for a `Vec` or
/// an array of floats, the matrix itself (its shape) for a matrix of them.
#[diagnostic::on_unimplemented(
    message = "with `order = K`, a field of a parameter struct passed on whole to a call (`g(&p.w, ..)`) holds a \
               `Vec`, an array or a matrix of floats or a struct deriving `Differentiable`: `{Self}` is not \
               supported there",
    label = "a field passed on whole by a function with `order = K`",
    note = "pass its rows one by one (`g(&p.w[i], ..)`), or read the field by its elements where it is read \
            (`p.w[i][j]`)"
)]
pub trait WholeField {
    /// `&Self` for a derived struct or a matrix of floats, `()` for a `Vec` or an array of floats.
    type Primal<'a>
    where
        Self: 'a;

    /// The primal part of the pair.
    fn primal(&self) -> Self::Primal<'_>;
}

/// `WholeField` of a `Vec` or an array of floats, each given as `[its const generics] its type`: `()`, the
/// callee reads its values alone.
macro_rules! values_whole_fields {
    ($([$($g:tt)*] $ty:ty),*) => {$(
        impl<$($g)*> WholeField for $ty {
            type Primal<'a>
                = ()
            where
                Self: 'a;

            #[inline]
            fn primal(&self) {}
        }
    )*};
}

/// `WholeField` and `FieldWindow` of a matrix of floats, given as `[its const generics] its type`: the
/// matrix itself (a callee of a matrix takes its shape beside its values, [`matrix_window`]), and its
/// values row-major, flat.
macro_rules! matrix_whole_fields {
    ($([$($g:tt)*] $ty:ty),*) => {$(
        impl<$($g)*> WholeField for $ty {
            type Primal<'a>
                = &'a Self
            where
                Self: 'a;

            #[inline]
            fn primal(&self) -> &Self {
                self
            }
        }

        impl<T, $($g)*> FieldWindow<T> for $ty {
            type Window = [T];

            #[inline]
            fn window(window: &[T]) -> &[T] {
                window
            }
        }
    )*};
}

values_whole_fields!(
    [] Vec<f64>, [const N: usize] [f64; N],
    [] Vec<f32>, [const N: usize] [f32; N]
);

// Matrices of any primal float type: of `f64` and `f32`, and of the float type parameter of a generic
// struct's field (`w: Vec<Vec<T>>`, which the hidden function of a generic function reads as
// `Vec<Vec<__P>>`).
matrix_whole_fields!(
    [F: PrimalFloat] Vec<Vec<F>>,
    [F: PrimalFloat, const C: usize] Vec<[F; C]>,
    [F: PrimalFloat, const R: usize] [Vec<F>; R],
    [F: PrimalFloat, const C: usize, const R: usize] [[F; C]; R]
);

/// The matrix of the shape of `shape` whose elements are `flat`, row-major: a matrix field passed on whole
/// at `order = K` (`layer(&p.w, x)`), as the callee's `__g_pairs` gets it, the field itself (its shape)
/// and its part of the values view (`struct_whole.rs`). The macro's lowering reads a matrix made so as
/// the flat `flat` it holds (its cotangent and tangent are `flat`'s, in the shape again).
///
/// # Panics
///
/// If `flat` does not hold as many values as `shape`, which the values view of a matrix field does by
/// construction.
#[inline]
pub fn matrix_window<M: MatrixWindow<T> + ?Sized, T: Copy>(shape: &M, flat: &[T]) -> M::Shaped {
    let (n, end) = (shape.floats(), flat.len());
    if n != end {
        panic!("autodiff: a matrix of {n} values made from {end} values of a view");
    }
    shape.shaped(flat)
}

/// A matrix's shape over the elements `T` ([`matrix_window`]): `&[Vec<F>]`, `Vec<Vec<F>>`, `[[F; C]]`,
/// `Vec<[F; C]>`, `[Vec<F>; R]`, `[[F; C]; R]`, whatever `F` (the shape is all that is read of it).
pub trait MatrixWindow<T> {
    /// The same shape holding `T`s.
    type Shaped;

    /// Its number of elements.
    fn floats(&self) -> usize;

    /// `flat`, row-major, in this shape.
    fn shaped(&self, flat: &[T]) -> Self::Shaped;
}

/// The rows of `flat`, of these lengths, one after another.
fn row_windows<T>(lengths: impl Iterator<Item = usize>, flat: &[T]) -> impl Iterator<Item = &[T]> {
    let mut start = 0;
    lengths.map(move |len| {
        let row = &flat[start..start + len];
        start += len;
        row
    })
}

impl<F, T: Copy> MatrixWindow<T> for [Vec<F>] {
    type Shaped = Vec<Vec<T>>;

    #[inline]
    fn floats(&self) -> usize {
        self.iter().map(Vec::len).sum()
    }

    fn shaped(&self, flat: &[T]) -> Vec<Vec<T>> {
        row_windows(self.iter().map(Vec::len), flat)
            .map(<[T]>::to_vec)
            .collect()
    }
}

impl<F, T: Copy> MatrixWindow<T> for Vec<Vec<F>> {
    type Shaped = Vec<Vec<T>>;

    #[inline]
    fn floats(&self) -> usize {
        MatrixWindow::<T>::floats(&self[..])
    }

    fn shaped(&self, flat: &[T]) -> Vec<Vec<T>> {
        self[..].shaped(flat)
    }
}

impl<F, T: Copy, const C: usize> MatrixWindow<T> for [[F; C]] {
    type Shaped = Vec<[T; C]>;

    #[inline]
    fn floats(&self) -> usize {
        self.len() * C
    }

    fn shaped(&self, flat: &[T]) -> Vec<[T; C]> {
        (0..self.len())
            .map(|i| core::array::from_fn(|j| flat[i * C + j]))
            .collect()
    }
}

impl<F, T: Copy, const C: usize> MatrixWindow<T> for Vec<[F; C]> {
    type Shaped = Vec<[T; C]>;

    #[inline]
    fn floats(&self) -> usize {
        self.len() * C
    }

    fn shaped(&self, flat: &[T]) -> Vec<[T; C]> {
        self[..].shaped(flat)
    }
}

impl<F, T: Copy, const R: usize> MatrixWindow<T> for [Vec<F>; R] {
    type Shaped = [Vec<T>; R];

    #[inline]
    fn floats(&self) -> usize {
        MatrixWindow::<T>::floats(&self[..])
    }

    fn shaped(&self, flat: &[T]) -> [Vec<T>; R] {
        let mut rows = row_windows(self.iter().map(Vec::len), flat);
        core::array::from_fn(|_| rows.next().map(<[T]>::to_vec).unwrap_or_default())
    }
}

impl<F, T: Copy, const C: usize, const R: usize> MatrixWindow<T> for [[F; C]; R] {
    type Shaped = [[T; C]; R];

    #[inline]
    fn floats(&self) -> usize {
        R * C
    }

    fn shaped(&self, flat: &[T]) -> [[T; C]; R] {
        core::array::from_fn(|i| core::array::from_fn(|j| flat[i * C + j]))
    }
}

/// A matrix field's shape (`Vec<Vec<f64>>`, `[[f64; N]; M]`, `Vec<[f64; N]>`, `[Vec<f64>; M]`): where its
/// rows lie in the field's part of a values view, which holds the rows one after another. An `order = K`
/// function reads `p.w[i][j]` as the value at `field_start + matrix_at(&p.w, i, j)` and the row `&p.w[i]`
/// as the window `matrix_row_start(&p.w, i)..matrix_row_end(&p.w, i)` of that part (`struct_whole.rs`).
pub trait FieldMatrix {
    /// The number of rows.
    fn rows(&self) -> usize;

    /// The length of row `i`.
    ///
    /// # Panics
    ///
    /// If `i` is not a row, as `m[i]` does.
    fn row_len(&self, i: usize) -> usize;

    /// Where row `i` starts in the field's part of the view.
    ///
    /// # Panics
    ///
    /// If `i` is not a row, as `m[i]` does.
    fn row_start(&self, i: usize) -> usize;
}

/// A row of a matrix field: a `Vec` or an array of floats, one value of the view each.
pub trait FieldRow {
    /// The row's length.
    fn row_len(&self) -> usize;
}

impl<F: Float> FieldRow for Vec<F> {
    #[inline]
    fn row_len(&self) -> usize {
        self.len()
    }
}

impl<F: Float, const N: usize> FieldRow for [F; N] {
    #[inline]
    fn row_len(&self) -> usize {
        N
    }
}

/// The rows of `rows` before row `i` hold this many values (rows of one length: `i` times it).
#[inline]
fn start_of_row<R: FieldRow>(rows: &[R], i: usize) -> usize {
    assert!(
        i < rows.len(),
        "index out of bounds: the len is {} but the index is {i}",
        rows.len()
    );
    rows[..i].iter().map(FieldRow::row_len).sum()
}

impl<R: FieldRow> FieldMatrix for Vec<R> {
    #[inline]
    fn rows(&self) -> usize {
        self.len()
    }
    #[inline]
    fn row_len(&self, i: usize) -> usize {
        self[i].row_len()
    }
    #[inline]
    fn row_start(&self, i: usize) -> usize {
        start_of_row(self, i)
    }
}

impl<R: FieldRow, const M: usize> FieldMatrix for [R; M] {
    #[inline]
    fn rows(&self) -> usize {
        M
    }
    #[inline]
    fn row_len(&self, i: usize) -> usize {
        self[i].row_len()
    }
    #[inline]
    fn row_start(&self, i: usize) -> usize {
        start_of_row(self, i)
    }
}

/// A matrix field's shape taken once per call of a function that reads it (`matrix_shape`), so that each
/// read finds its row in O(1) instead of summing the lengths of the rows before it: rows of one length
/// (checked once here) start at `i` times it; the rows of a ragged matrix are found from the last row
/// asked for, kept in a `Cell` (O(1) for a loop that steps through the rows forwards or backwards, as a
/// forward and a reverse sweep do). It allocates nothing.
pub struct MatrixShape<'a, M: FieldMatrix + ?Sized> {
    matrix: &'a M,
    rows: usize,
    /// The length of every row, if they all have one length.
    uniform: Option<usize>,
    /// A row of a ragged matrix and where it starts.
    cursor: core::cell::Cell<(usize, usize)>,
}

/// The shape of the matrix field `m`, read once per call (`struct_whole.rs`).
#[inline]
pub fn matrix_shape<M: FieldMatrix + ?Sized>(m: &M) -> MatrixShape<'_, M> {
    let rows = m.rows();
    let first = if rows == 0 { 0 } else { m.row_len(0) };
    let uniform = (1..rows).all(|i| m.row_len(i) == first).then_some(first);
    MatrixShape {
        matrix: m,
        rows,
        uniform,
        cursor: core::cell::Cell::new((0, 0)),
    }
}

impl<M: FieldMatrix + ?Sized> FieldMatrix for MatrixShape<'_, M> {
    #[inline]
    fn rows(&self) -> usize {
        self.rows
    }
    #[inline]
    fn row_len(&self, i: usize) -> usize {
        match self.uniform {
            Some(len) if i < self.rows => len,
            _ => self.matrix.row_len(i),
        }
    }
    #[inline]
    fn row_start(&self, i: usize) -> usize {
        assert!(
            i < self.rows,
            "index out of bounds: the len is {} but the index is {i}",
            self.rows
        );
        if let Some(len) = self.uniform {
            return i * len;
        }
        let (mut row, mut start) = self.cursor.get();
        while row < i {
            start += self.matrix.row_len(row);
            row += 1;
        }
        while row > i {
            row -= 1;
            start -= self.matrix.row_len(row);
        }
        self.cursor.set((row, start));
        start
    }
}

/// Where `m[i][j]` is in the matrix field's part of a values view.
///
/// # Panics
///
/// If `m[i][j]` does not exist, as reading it does.
#[inline]
pub fn matrix_at<M: FieldMatrix + ?Sized>(m: &M, i: usize, j: usize) -> usize {
    let len = m.row_len(i);
    assert!(
        j < len,
        "index out of bounds: the len is {len} but the index is {j}"
    );
    m.row_start(i) + j
}

/// Where row `i` of the matrix field `m` starts in the field's part of a values view.
///
/// # Panics
///
/// If `m[i]` does not exist, as reading it does.
#[inline]
pub fn matrix_row_start<M: FieldMatrix + ?Sized>(m: &M, i: usize) -> usize {
    m.row_start(i)
}

/// Where row `i` of the matrix field `m` ends in the field's part of a values view.
///
/// # Panics
///
/// If `m[i]` does not exist, as reading it does.
#[inline]
pub fn matrix_row_end<M: FieldMatrix + ?Sized>(m: &M, i: usize) -> usize {
    m.row_start(i) + m.row_len(i)
}

/// The number of rows of the matrix field `m` (`p.w.len()`).
#[inline]
pub fn matrix_rows<M: FieldMatrix + ?Sized>(m: &M) -> usize {
    m.rows()
}

/// `<S as Itself>::Type` is `S`, written so that the macro does not take it for a parameter struct: the
/// struct itself, passed beside its values view, is a constant.
pub trait Itself {
    /// `Self`.
    type Type: ?Sized;
}

impl<S: ?Sized> Itself for S {
    type Type = S;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_fields_find_their_elements_in_the_view() {
        let ragged = vec![vec![1.0, 2.0], vec![3.0], vec![4.0, 5.0, 6.0]];
        let view = values(&ragged);
        for (i, row) in ragged.iter().enumerate() {
            for (j, x) in row.iter().enumerate() {
                assert_eq!(view[matrix_at(&ragged, i, j)], *x);
            }
            assert_eq!(
                &view[matrix_row_start(&ragged, i)..matrix_row_end(&ragged, i)],
                &row[..]
            );
        }
        assert_eq!(matrix_rows(&ragged), 3);
        let fixed = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
        assert_eq!(matrix_at(&fixed, 1, 2), 5);
        assert_eq!(matrix_row_end(&fixed, 0), 3);
    }

    #[test]
    fn a_shape_taken_once_finds_the_same_places() {
        let ragged = vec![
            vec![1.0, 2.0],
            vec![],
            vec![3.0],
            vec![4.0, 5.0, 6.0],
            vec![7.0],
        ];
        let uniform = vec![vec![1.0, 2.0, 3.0]; 4];
        let empty: Vec<Vec<f64>> = Vec::new();
        assert_eq!(matrix_rows(&matrix_shape(&empty)), 0);
        for m in [&ragged, &uniform] {
            let shape = matrix_shape(m);
            assert_eq!(matrix_rows(&shape), m.len());
            // Forwards, backwards, and jumping about: the cursor moves both ways.
            let order: Vec<usize> = (0..m.len())
                .chain((0..m.len()).rev())
                .chain([3, 0, 4, 1, 2, 4, 0].into_iter().filter(|&i| i < m.len()))
                .collect();
            for i in order {
                assert_eq!(matrix_row_start(&shape, i), matrix_row_start(m, i));
                assert_eq!(matrix_row_end(&shape, i), matrix_row_end(m, i));
                for j in 0..m[i].len() {
                    assert_eq!(matrix_at(&shape, i, j), matrix_at(m, i, j));
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn a_shape_read_past_its_row_panics() {
        let uniform = vec![vec![1.0, 2.0], vec![3.0, 4.0]];
        let _ = matrix_at(&matrix_shape(&uniform), 1, 2);
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn a_shape_read_past_its_rows_panics() {
        let uniform = vec![vec![1.0, 2.0], vec![3.0, 4.0]];
        let _ = matrix_row_start(&matrix_shape(&uniform), 2);
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn a_matrix_field_read_past_its_row_panics() {
        let ragged = vec![vec![1.0, 2.0], vec![3.0]];
        let _ = matrix_at(&ragged, 1, 1);
    }

    #[test]
    fn a_view_in_another_float_type_holds_the_same_values() {
        let v: Vec<[f32; 2]> = vec![[1.5, -2.0], [0.25, 4.0]];
        let view: Vec<f32> = values_in(&v);
        assert_eq!(view, vec![1.5, -2.0, 0.25, 4.0]);
        let t = vec![[0.5f32, 0.0], [0.0, 1.0]];
        assert_eq!(
            tangent_values_in::<f32, _>(&v, &t),
            vec![0.5, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            from_values_in(&v, &[5.0f32, 6.0, 7.0, 8.0]),
            vec![[5.0, 6.0], [7.0, 8.0]]
        );
        let wide: Vec<f64> = values_in(&v);
        assert_eq!(wide, vec![1.5, -2.0, 0.25, 4.0]);
    }

    #[test]
    fn the_view_of_floats_and_arrays_is_their_flat_view() {
        let v = vec![[1.0, 2.0], [3.0, 4.0]];
        assert_eq!(values(&v), v.to_flat());
        let t = vec![[0.5, 0.0], [0.0, 1.0]];
        assert_eq!(tangent_values(&v, &t), t.to_flat());
        assert_eq!(
            from_values(&v, &[5.0, 6.0, 7.0, 8.0]),
            vec![[5.0, 6.0], [7.0, 8.0]]
        );
    }
}
