//! The `Differentiable` trait: what a parameter struct (`#[derive(Differentiable)]`) gives optimisers,
//! gradient checks and the code `#[differentiable]` generates.
//!
//! A struct of floats, `Vec`s and arrays of them, and other differentiable structs is its own gradient
//! type, as Swift's `TangentVector` of a struct of `Differentiable` members or a JAX pytree: the gradient
//! of a `Mlp` is a `Mlp` of the same shape. Fields marked `#[no_grad]` are constants: a gradient copies them
//! from the value it belongs to.

use crate::Dual;
use num_traits::Float;

/// A value that can be a parameter of a differentiable function, and the type of its own gradient.
///
/// Implemented for `f64`, `f32`, [`Dual`], `Vec`s and arrays of differentiable values, and by
/// `#[derive(Differentiable)]` for structs with named fields. The flat view (`to_flat`, `from_flat`)
/// lists the differentiable fields in declaration order, each flattened in turn (a `Vec` element by
/// element); `#[no_grad]` fields are not in it.
///
/// ```
/// use autodiff_core::Differentiable;
///
/// let w = vec![1.0, 2.0];
/// let mut g = w.zero_like();
/// g.add_assign(&vec![0.5, -1.0]);
/// g.scale(2.0);
/// assert_eq!(g, vec![1.0, -2.0]);
/// assert_eq!(w.from_flat(&[3.0, 4.0]), vec![3.0, 4.0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `Differentiable`",
    label = "a parameter of this type is differentiated",
    note = "add `#[derive(autodiff::Differentiable)]` to the struct (with `#[no_grad]` on its constant fields), \
            or leave the parameter out of `wrt(..)` so that it is passed through as a constant"
)]
pub trait Differentiable {
    /// A value of the same shape with every differentiable component zero; `#[no_grad]` fields are
    /// copied. The gradient of an unused parameter.
    fn zero_like(&self) -> Self;

    /// `self += other`, component by component (`#[no_grad]` fields are left as they are).
    fn add_assign(&mut self, other: &Self);

    /// `self *= a`, component by component (`#[no_grad]` fields are left as they are).
    fn scale(&mut self, a: f64);

    /// The number of components of the flat view.
    fn flat_len(&self) -> usize;

    /// Appends the components of the flat view to `out`, in declaration order.
    fn extend_flat(&self, out: &mut Vec<f64>);

    /// A value of the shape of `self` whose components are the first `self.flat_len()` numbers of
    /// `flat`, which are removed from it; `#[no_grad]` fields are copied from `self`.
    ///
    /// # Panics
    ///
    /// If `flat` is shorter than `self.flat_len()`.
    fn take_flat(&self, flat: &mut &[f64]) -> Self;

    /// The differentiable components as one vector, in declaration order.
    fn to_flat(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.flat_len());
        self.extend_flat(&mut out);
        out
    }

    /// A value of the shape of `self` with the components `flat` (in the order of [`to_flat`]), and
    /// the `#[no_grad]` fields of `self`.
    ///
    /// # Panics
    ///
    /// If `flat.len()` differs from `self.flat_len()`, with both lengths.
    ///
    /// [`to_flat`]: Differentiable::to_flat
    // The name is the contract's (API.md): the shape comes from `self`.
    #[allow(clippy::wrong_self_convention)]
    fn from_flat(&self, flat: &[f64]) -> Self
    where
        Self: Sized,
    {
        assert!(
            flat.len() == self.flat_len(),
            "from_flat: {} numbers given for a value with {} components",
            flat.len(),
            self.flat_len()
        );
        let mut rest = flat;
        self.take_flat(&mut rest)
    }

    /// The length of the values view (`values.rs`): the flat view with the `#[no_grad]` float fields
    /// in their places. Not part of the public API.
    #[doc(hidden)]
    fn __autodiff_values_len(&self) -> usize {
        self.flat_len()
    }

    /// Appends the values view (`values.rs`) to `out`. Not part of the public API.
    #[doc(hidden)]
    fn __autodiff_extend_values(&self, out: &mut Vec<f64>) {
        self.extend_flat(out);
    }

    /// Appends the values view of the tangent `tangent` of `self` to `out`: zeros for the `#[no_grad]`
    /// float fields of `self`. Not part of the public API.
    #[doc(hidden)]
    fn __autodiff_extend_tangent_values(&self, tangent: &Self, out: &mut Vec<f64>)
    where
        Self: Sized,
    {
        tangent.extend_flat(out);
    }

    /// A gradient of the shape of `self` from the first `self.__autodiff_values_len()` numbers of
    /// `values` (a gradient over the values view), which are removed from it; the parts of the
    /// `#[no_grad]` fields are dropped, and those fields copied from `self`. Not part of the public API.
    #[doc(hidden)]
    fn __autodiff_take_values(&self, values: &mut &[f64]) -> Self
    where
        Self: Sized,
    {
        self.take_flat(values)
    }

    /// Sets `target` to [`zero_like`](Differentiable::zero_like)`(self)` in place: the differentiable
    /// components zero, the `#[no_grad]` fields copied from `self`, reusing `target`'s allocations where
    /// its shape is `self`'s (a `Vec` of another length is replaced). `f_grad_into` clears a parameter
    /// struct's buffer with it before the reverse sweep adds into the buffer's fields. Not part of the
    /// public API.
    #[doc(hidden)]
    fn __autodiff_zero_into(&self, target: &mut Self)
    where
        Self: Sized,
    {
        *target = self.zero_like();
    }

    /// Is `field` a `#[no_grad]` field? The code `#[differentiable]` generates asks, to give such a
    /// field no gradient and a zero tangent. Not part of the public API.
    #[doc(hidden)]
    fn __autodiff_constant_field(_field: &str) -> bool
    where
        Self: Sized,
    {
        false
    }
}

/// The first number of `flat`, removed from it.
fn take_one(flat: &mut &[f64]) -> f64 {
    match flat.split_first() {
        Some((first, rest)) => {
            *flat = rest;
            *first
        }
        None => panic!("from_flat: the flat vector is shorter than the value's components"),
    }
}

macro_rules! float_impl {
    ($t:ty) => {
        impl Differentiable for $t {
            #[inline]
            fn zero_like(&self) -> Self {
                0.0
            }
            #[inline]
            fn add_assign(&mut self, other: &Self) {
                *self += *other;
            }
            #[inline]
            fn scale(&mut self, a: f64) {
                *self *= a as $t;
            }
            #[inline]
            fn flat_len(&self) -> usize {
                1
            }
            #[inline]
            fn extend_flat(&self, out: &mut Vec<f64>) {
                out.push(*self as f64);
            }
            #[inline]
            fn take_flat(&self, flat: &mut &[f64]) -> Self {
                take_one(flat) as $t
            }
        }
    };
}

float_impl!(f64);
float_impl!(f32);

/// A dual number's flat view is its value; `from_flat` gives constants (zero tangent).
impl<T: Float> Differentiable for Dual<T> {
    fn zero_like(&self) -> Self {
        Dual::constant(T::zero())
    }
    fn add_assign(&mut self, other: &Self) {
        *self += *other;
    }
    fn scale(&mut self, a: f64) {
        *self *= Dual::constant(T::from(a).unwrap_or_else(T::nan));
    }
    fn flat_len(&self) -> usize {
        1
    }
    fn extend_flat(&self, out: &mut Vec<f64>) {
        out.push(self.re.to_f64().unwrap_or(f64::NAN));
    }
    fn take_flat(&self, flat: &mut &[f64]) -> Self {
        Dual::constant(T::from(take_one(flat)).unwrap_or_else(T::nan))
    }
}

impl<D: Differentiable> Differentiable for Vec<D> {
    fn zero_like(&self) -> Self {
        self.iter().map(D::zero_like).collect()
    }
    /// # Panics
    ///
    /// If the lengths differ.
    fn add_assign(&mut self, other: &Self) {
        assert!(
            self.len() == other.len(),
            "add_assign: lengths {} and {} differ",
            self.len(),
            other.len()
        );
        each::add_assign(self, other);
    }
    fn scale(&mut self, a: f64) {
        each::scale(self, a);
    }
    fn flat_len(&self) -> usize {
        each::flat_len(self)
    }
    fn extend_flat(&self, out: &mut Vec<f64>) {
        each::extend_flat(self, out);
    }
    fn take_flat(&self, flat: &mut &[f64]) -> Self {
        self.iter().map(|x| x.take_flat(flat)).collect()
    }
    fn __autodiff_zero_into(&self, target: &mut Self) {
        if target.len() != self.len() {
            *target = self.zero_like();
            return;
        }
        for (x, t) in self.iter().zip(target) {
            x.__autodiff_zero_into(t);
        }
    }
}

impl<D: Differentiable, const N: usize> Differentiable for [D; N] {
    fn zero_like(&self) -> Self {
        core::array::from_fn(|i| self[i].zero_like())
    }
    fn add_assign(&mut self, other: &Self) {
        each::add_assign(self, other);
    }
    fn scale(&mut self, a: f64) {
        each::scale(self, a);
    }
    fn flat_len(&self) -> usize {
        each::flat_len(self)
    }
    fn extend_flat(&self, out: &mut Vec<f64>) {
        each::extend_flat(self, out);
    }
    fn take_flat(&self, flat: &mut &[f64]) -> Self {
        let mut taken = Vec::with_capacity(N);
        for x in self {
            taken.push(x.take_flat(flat));
        }
        match taken.try_into() {
            Ok(array) => array,
            Err(_) => unreachable!("N values were taken"),
        }
    }
    fn __autodiff_zero_into(&self, target: &mut Self) {
        for (x, t) in self.iter().zip(target) {
            x.__autodiff_zero_into(t);
        }
    }
}

/// The element-wise operations of `Vec<D>` and `[D; N]`, on their slices.
mod each {
    use super::Differentiable;

    pub(super) fn add_assign<D: Differentiable>(target: &mut [D], other: &[D]) {
        for (a, b) in target.iter_mut().zip(other) {
            a.add_assign(b);
        }
    }

    pub(super) fn scale<D: Differentiable>(target: &mut [D], a: f64) {
        for x in target {
            x.scale(a);
        }
    }

    pub(super) fn flat_len<D: Differentiable>(items: &[D]) -> usize {
        items.iter().map(D::flat_len).sum()
    }

    pub(super) fn extend_flat<D: Differentiable>(items: &[D], out: &mut Vec<f64>) {
        for x in items {
            x.extend_flat(out);
        }
    }
}

/// `*target += value` for a differentiable value, the adjoint of a struct (or of a field) that several
/// uses contribute to. Generated code calls it.
#[doc(hidden)]
#[inline]
pub fn add_struct<D: Differentiable>(mut target: D, value: &D) -> D {
    target.add_assign(value);
    target
}

/// A copy of `value` made with the trait alone (`zero_like`, then `add_assign`): the tangent of a field,
/// or of a struct passed to two calls. Generated code calls it.
#[doc(hidden)]
#[inline]
pub fn copy_struct<D: Differentiable>(value: &D) -> D {
    let mut copy = value.zero_like();
    copy.add_assign(value);
    copy
}

/// The type of a struct's field, by a key of its name (`#[derive(Differentiable)]` implements it for each
/// named field). `order = K` on a function of a parameter struct (`struct_higher.rs` in the macro crate)
/// passes a field that the body reads as an integer or a flag to a hidden function as
/// `<S as FieldType<KEY>>::Type`: the macro sees that field's type nowhere else.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `Differentiable`, so `#[differentiable]` cannot find its fields",
    label = "the fields of a parameter of this type are read through its derive",
    note = "add `#[derive(autodiff::Differentiable)]` to the struct (with `#[no_grad]` on its constant fields): a \
            differentiated struct needs it, and so does a constant one (a constant `self`, a struct left out of \
            `wrt(..)`) whose integer or flag fields a function with `order = K` reads; or keep the struct out of \
            `wrt(..)` and pass such a field's value as a parameter of its own"
)]
pub trait FieldType<const KEY: u64> {
    /// The field's declared type.
    type Type;

    /// The field of `s`.
    fn field(s: &Self) -> &Self::Type;

    /// Where the field's numbers are in the values view of `s` (`values.rs`): empty for a field that
    /// is not in it (a `#[no_grad]` field that holds no floats).
    fn values_range(s: &Self) -> core::ops::Range<usize>;

    /// Whether the field is in the values view: `false` for a `#[no_grad]` field that holds a struct,
    /// whose floats an `order = K` function therefore cannot read (a compile error, `values::field_start`).
    const IN_VIEW: bool = true;
}

/// An adjoint that can be added into a value of type `F`: `F` itself, or `()` for an input that no
/// adjoint reached. Generated code calls it to assemble a struct's gradient from its fields'.
#[doc(hidden)]
pub trait AdjointOf<F> {
    /// `*target += self`.
    fn add_into(self, target: &mut F);
}

impl<F: Differentiable> AdjointOf<F> for F {
    #[inline]
    fn add_into(self, target: &mut F) {
        target.add_assign(&self);
    }
}

/// The adjoint of a nested struct's field (`p.inner.a`), added into the nested struct by a closure that
/// runs only where the field holding the nested struct is differentiated: `#[no_grad]` ignores it.
#[doc(hidden)]
pub struct NestedAdjoint<C>(pub C);

impl<F, C: FnOnce(&mut F)> AdjointOf<F> for NestedAdjoint<C> {
    #[inline]
    fn add_into(self, target: &mut F) {
        (self.0)(target);
    }
}

/// The adjoint of an array field gathered from a slice input (`order = K` on a function of a parameter
/// struct differentiates the field `c: [f64; 2]` as a `&[f64]`).
impl<T: Differentiable, const N: usize> AdjointOf<[T; N]> for Vec<T> {
    #[inline]
    fn add_into(self, target: &mut [T; N]) {
        assert_eq!(
            self.len(),
            N,
            "the adjoint of an array of {N} elements has {} elements",
            self.len()
        );
        for (t, a) in target.iter_mut().zip(&self) {
            t.add_assign(a);
        }
    }
}

/// The adjoint of a matrix field of fixed-size rows gathered from the rows `order = K` differentiates it as
/// (`values::vec_matrix_rows`): a `[[f64; 3]; 2]` or a `Vec<[f64; 3]>` field read `p.m[i][j]` by a function of
/// a generic parameter struct.
impl<T: Differentiable, const M: usize, const N: usize> AdjointOf<[[T; M]; N]> for Vec<Vec<T>> {
    #[inline]
    fn add_into(self, target: &mut [[T; M]; N]) {
        assert_eq!(
            self.len(),
            N,
            "the adjoint of a matrix of {N} rows has {} rows",
            self.len()
        );
        for (t, a) in target.iter_mut().zip(self) {
            AdjointOf::<[T; M]>::add_into(a, t);
        }
    }
}

impl<T: Differentiable, const M: usize> AdjointOf<Vec<[T; M]>> for Vec<Vec<T>> {
    #[inline]
    fn add_into(self, target: &mut Vec<[T; M]>) {
        assert_eq!(
            self.len(),
            target.len(),
            "the adjoint of a matrix of {} rows has {} rows",
            target.len(),
            self.len()
        );
        for (t, a) in target.iter_mut().zip(self) {
            AdjointOf::<[T; M]>::add_into(a, t);
        }
    }
}

impl<F> AdjointOf<F> for () {
    #[inline]
    fn add_into(self, _target: &mut F) {}
}

/// The callee's slot for the tangent of a struct the caller differentiates, passed to it: the struct
/// itself. A callee that keeps the struct constant (a method without `wrt(self)`, a function whose `wrt(..)`
/// leaves the parameter out) has `()` there, and the derivative through it would be missing: the one
/// error at the call, in place of rustc's mismatched types in generated code. Generated code calls
/// [`differentiated_struct`].
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "this call passes a differentiated `{S}` to a method or function that keeps it constant",
    label = "the callee has no derivative in its `{S}` parameter",
    note = "the caller differentiates the struct (`wrt(self)`, or a struct parameter), so a callee it passes the \
            struct to must differentiate it too: write `#[differentiable(wrt(self, ..))]` on the callee method \
            (on a function, name the struct parameter in its `wrt(..)` or leave `wrt(..)` out)",
    note = "or pass the callee the fields it reads (`self.w[0]`, `&self.w`) in place of the struct, or leave \
            `self` out of the caller's `wrt(..)`"
)]
pub trait DifferentiatedSlot<S> {
    /// The slot's tangent for the struct's tangent `tangent`.
    fn of(tangent: &S) -> Self;
}

impl<S: Differentiable> DifferentiatedSlot<S> for S {
    #[inline]
    fn of(tangent: &S) -> S {
        copy_struct(tangent)
    }
}

/// An array field passed on whole to a callee of a slice (`dot(&p.c, x)` with `c: [f64; 2]` and
/// `fn dot(a: &[f64], ..)`): the callee's tangent is a `Vec` of the array's elements. (Not recommended in
/// the error of a callee that keeps a struct constant, which this impl does not concern.)
#[diagnostic::do_not_recommend]
impl<T: Differentiable, const N: usize> DifferentiatedSlot<[T; N]> for Vec<T> {
    #[inline]
    fn of(tangent: &[T; N]) -> Vec<T> {
        tangent.iter().map(copy_struct).collect()
    }
}

/// The tangent of a differentiated struct passed to a call: see [`DifferentiatedSlot`].
#[doc(hidden)]
#[inline]
pub fn differentiated_struct<S, T: DifferentiatedSlot<S>>(tangent: &S) -> T {
    T::of(tangent)
}

/// The cotangent a callee gives back for a struct the caller differentiates: the struct, or `()` from a
/// callee that keeps it constant, taken as a zero here because the forward mode of the same call (which
/// every differentiable function has) fails to compile with [`DifferentiatedSlot`]'s one error; a second
/// error at the same call would say the same. Generated code calls [`struct_cotangent`].
#[doc(hidden)]
pub trait StructCotangent<S> {
    /// The cotangent as a struct shaped like `primal`.
    fn into_struct(self, primal: &S) -> S;
}

impl<S> StructCotangent<S> for S {
    #[inline]
    fn into_struct(self, _primal: &S) -> S {
        self
    }
}

impl<S: Differentiable> StructCotangent<S> for () {
    #[inline]
    fn into_struct(self, primal: &S) -> S {
        primal.zero_like()
    }
}

/// The cotangent of an array field passed on whole to a callee of a slice (`dot(&p.c, x)`): the
/// callee's `Vec`, as the array.
#[diagnostic::do_not_recommend]
impl<T: Differentiable, const N: usize> StructCotangent<[T; N]> for Vec<T> {
    #[inline]
    fn into_struct(self, _primal: &[T; N]) -> [T; N] {
        let len = self.len();
        match <[T; N]>::try_from(self) {
            Ok(array) => array,
            Err(_) => panic!("the cotangent of an array of {N} elements has {len} elements"),
        }
    }
}

/// A callee's cotangent for a struct as the struct: see [`StructCotangent`].
#[doc(hidden)]
#[inline]
pub fn struct_cotangent<S, C: StructCotangent<S>>(cotangent: C, primal: &S) -> S {
    cotangent.into_struct(primal)
}

/// `self` passed on to another method of its type (`self.other(x)`, written `Self::other(self, x)` in
/// generated code, which holds `self` as a `&Self`): the reference itself for a callee taking `&self`,
/// a clone for one taking `self` by value, as the method call's auto-reference or move does. The callee's
/// receiver type picks the impl, which the macro cannot see.
#[doc(hidden)]
pub trait Receiver<R> {
    /// `self` as the callee's receiver.
    fn receive(self) -> R;
}

impl<'a, S: ?Sized> Receiver<&'a S> for &'a S {
    #[inline]
    fn receive(self) -> &'a S {
        self
    }
}

impl<S: Clone> Receiver<S> for &S {
    #[inline]
    fn receive(self) -> S {
        self.clone()
    }
}

/// The tangent of a struct that is constant in the caller: a zero struct, or `()` where the callee keeps
/// it constant too. Generated code calls [`inactive_tangent`], and the callee's slot type picks.
/// Also of a field of a constant struct passed on whole (`g(&p.arr)`, `g(&p.w)`), which the syntax does
/// not tell from a nested struct: an array's or a slice's zeros in a slice parameter's slot (`Vec<T>`).
#[doc(hidden)]
pub trait InactiveTangent<S: ?Sized> {
    /// The zero tangent of `value`.
    fn of(value: &S) -> Self;
}

impl<S: Differentiable> InactiveTangent<S> for S {
    #[inline]
    fn of(value: &S) -> S {
        value.zero_like()
    }
}

/// The same, for a struct reached through a reference: `self.other(x)` in a method taking `&self`
/// passes `&self`, a `&&S` (rustc's unsatisfied `InactiveTangent<&S>` in generated code before).
impl<S: Differentiable> InactiveTangent<&S> for S {
    #[inline]
    fn of(value: &&S) -> S {
        value.zero_like()
    }
}

impl<S: ?Sized> InactiveTangent<S> for () {
    #[inline]
    fn of(_value: &S) {}
}

impl<T: Float, const N: usize> InactiveTangent<[T; N]> for Vec<T> {
    #[inline]
    fn of(_value: &[T; N]) -> Vec<T> {
        vec![T::zero(); N]
    }
}

impl<T: Float> InactiveTangent<[T]> for Vec<T> {
    #[inline]
    fn of(value: &[T]) -> Vec<T> {
        vec![T::zero(); value.len()]
    }
}

/// The tangent of a constant struct argument: see [`InactiveTangent`].
#[doc(hidden)]
#[inline]
pub fn inactive_tangent<S: ?Sized, Z: InactiveTangent<S>>(value: &S) -> Z {
    Z::of(value)
}

/// A constant argument of a type the macro does not know (a field of a constant `self`, a parameter of the
/// user's type) whose tangent a call's `jvp` needs: `(&ConstantArg(&v)).constant_tangent()` picks, by
/// method resolution, the zero of a float ([`ConstantFloatTangent`], which holds for a type parameter
/// bounded by `Float` too: a field of `self` in a generic copy, lifted to `__S`) and otherwise what the
/// callee's slot type decides ([`ConstantOtherTangent`], [`inactive_tangent`]). `inactive_tangent` alone
/// needs `__S: Differentiable` of the copy's float type, which its bounds do not give (rustc's unsatisfied
/// `InactiveTangent<__S>` at first order, where a constant `self` passed `self.k` to a call before).
#[doc(hidden)]
pub struct ConstantArg<'a, S>(pub &'a S);

/// The tangent of a constant float argument: see [`ConstantArg`].
#[doc(hidden)]
pub trait ConstantFloatTangent<T> {
    /// A zero.
    fn constant_tangent(&self) -> T;
}

impl<T: Float> ConstantFloatTangent<T> for ConstantArg<'_, T> {
    #[inline]
    fn constant_tangent(&self) -> T {
        T::zero()
    }
}

/// The tangent of a constant array argument of floats (a row of a matrix constant from outside the
/// function, `&DESIGN[i]`): what the callee's slot type takes, zeros or `()`, without `Differentiable` of
/// a type parameter's array in a generic copy. See [`ConstantArg`].
#[doc(hidden)]
pub trait ConstantArrayTangent<A> {
    /// The slot's zero tangent.
    fn constant_tangent<Z: ArraySlot<A>>(&self) -> Z;
}

impl<T: Float, const N: usize> ConstantArrayTangent<[T; N]> for ConstantArg<'_, [T; N]> {
    #[inline]
    fn constant_tangent<Z: ArraySlot<[T; N]>>(&self) -> Z {
        Z::zeros()
    }
}

/// A callee's tangent slot for a constant array argument `A`: see [`ConstantArrayTangent`].
#[doc(hidden)]
pub trait ArraySlot<A> {
    /// Zeros of the slot's shape.
    fn zeros() -> Self;
}

impl<T: Float, const N: usize> ArraySlot<[T; N]> for [T; N] {
    #[inline]
    fn zeros() -> Self {
        [T::zero(); N]
    }
}

impl<T: Float, const N: usize> ArraySlot<[T; N]> for Vec<T> {
    #[inline]
    fn zeros() -> Self {
        vec![T::zero(); N]
    }
}

impl<A> ArraySlot<A> for () {
    #[inline]
    fn zeros() {}
}

/// The tangent of any other constant argument: see [`ConstantArg`].
#[doc(hidden)]
pub trait ConstantOtherTangent<S> {
    /// The callee's slot type's zero for it.
    fn constant_tangent<Z: InactiveTangent<S>>(&self) -> Z;
}

// On the reference: method resolution reaches it only where the float one does not apply.
impl<S> ConstantOtherTangent<S> for &ConstantArg<'_, S> {
    #[inline]
    fn constant_tangent<Z: InactiveTangent<S>>(&self) -> Z {
        Z::of(self.0)
    }
}

/// The tangent of a value that the caller takes for data because it only passes it on to calls (and
/// matches on or compares it): `mode: Mode` of `fn outer(x: f64, mode: Mode) { inner(x, mode) }` without
/// `wrt(..)`, an enum the macro cannot tell from a parameter struct. A callee that keeps it constant has
/// `()` there; one that differentiates it shows it to be a struct, which would have been active in the
/// caller (a struct is by default): that call is the one error, not a gradient silently left out. Generated
/// code calls [`data_tangent`].
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "this call passes `{S}` on to a callee that differentiates it, and the caller takes it for data",
    label = "this callee differentiates its `{S}` parameter",
    note = "a value of a type of your own that a function only passes on whole (and matches on or compares) is \
            taken for data, as an enum is, when the function has no `wrt(..)`: name the parameter in the \
            caller's `wrt(..)` with the others to differentiate (`#[differentiable(wrt(p, x))]`), or name only \
            the others (`wrt(x)`) to keep it constant"
)]
pub trait DataSlot<S> {
    /// The slot's (empty) tangent.
    fn of(value: &S) -> Self;
}

impl<S> DataSlot<S> for () {
    #[inline]
    fn of(_value: &S) {}
}

/// The tangent of a value taken for data: see [`DataSlot`].
#[doc(hidden)]
#[inline]
pub fn data_tangent<S, Z: DataSlot<S>>(value: &S) -> Z {
    Z::of(value)
}

/// The zero tangent of a scalar field (`#[no_grad]` ones included: integers, flags). Generated code
/// calls it.
#[doc(hidden)]
pub trait ConstantZero {
    /// A zero (`false` for `bool`).
    fn constant_zero(&self) -> Self;
}

macro_rules! constant_zero_impl {
    ($($t:ty => $zero:expr),* $(,)?) => {
        $(impl ConstantZero for $t {
            #[inline]
            fn constant_zero(&self) -> Self {
                $zero
            }
        })*
    };
}

constant_zero_impl!(
    f64 => 0.0, f32 => 0.0, bool => false, usize => 0, isize => 0, u8 => 0, u16 => 0, u32 => 0,
    u64 => 0, u128 => 0, i8 => 0, i16 => 0, i32 => 0, i64 => 0, i128 => 0,
);

impl<T: Float> ConstantZero for Dual<T> {
    #[inline]
    fn constant_zero(&self) -> Self {
        Dual::constant(T::zero())
    }
}

// A field passed on whole by value (`g(p.x0)`, `x0: [f64; 2]`) reads as a scalar field does: its zero
// tangent is the array of its components' zeros.
impl<T: ConstantZero, const N: usize> ConstantZero for [T; N] {
    #[inline]
    fn constant_zero(&self) -> Self {
        core::array::from_fn(|i| self[i].constant_zero())
    }
}

/// The zero tangent of a scalar field.
#[doc(hidden)]
#[inline]
pub fn constant_zero<T: ConstantZero>(value: &T) -> T {
    value.constant_zero()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_and_arrays_flatten_in_order() {
        let v = vec![[1.0, 2.0], [3.0, 4.0]];
        assert_eq!(v.to_flat(), vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(
            v.from_flat(&[5.0, 6.0, 7.0, 8.0]),
            vec![[5.0, 6.0], [7.0, 8.0]]
        );
        let mut z = v.zero_like();
        z.add_assign(&v);
        z.scale(0.5);
        assert_eq!(z, vec![[0.5, 1.0], [1.5, 2.0]]);
        assert_eq!(1.5f32.to_flat(), vec![1.5]);
    }

    #[test]
    fn a_struct_passed_to_a_call_keeps_its_tangent_and_cotangent() {
        let tangent = vec![0.5, -1.0];
        let copy: Vec<f64> = differentiated_struct(&tangent);
        assert_eq!(copy, tangent);
        let primal = vec![3.0, 4.0];
        assert_eq!(struct_cotangent(vec![1.0, 2.0], &primal), vec![1.0, 2.0]);
        // `()` from a callee that keeps the struct constant: a zero (its forward mode is the error).
        assert_eq!(struct_cotangent((), &primal), vec![0.0, 0.0]);
    }

    #[test]
    fn a_vec_adjoint_adds_into_an_array_field() {
        let mut field = [1.0, 2.0];
        AdjointOf::add_into(vec![0.5, -1.0], &mut field);
        assert_eq!(field, [1.5, 1.0]);
    }

    #[test]
    #[should_panic(expected = "the adjoint of an array of 2 elements has 3 elements")]
    fn a_vec_adjoint_of_another_length_is_refused() {
        let mut field = [1.0, 2.0];
        AdjointOf::add_into(vec![0.5, -1.0, 0.0], &mut field);
    }

    #[test]
    #[should_panic(expected = "from_flat: 3 numbers given for a value with 4 components")]
    fn from_flat_checks_the_length() {
        let _ = vec![0.0; 4].from_flat(&[1.0, 2.0, 3.0]);
    }
}
