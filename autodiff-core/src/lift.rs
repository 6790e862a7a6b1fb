//! Moving values into and out of dual numbers, for the higher-order items `#[differentiable(order = K)]`
//! emits: `f_hvp` runs `f_grad` on `Dual<T>` (forward over reverse), `f_derivatives` runs `f` on nested
//! duals.

use crate::Dual;
use num_traits::{Float, Zero};

/// `values[i] + tangents[i] ε`.
///
/// # Panics
///
/// If the lengths differ, with a message naming `label` and both lengths.
pub fn dual_vec<T: Float>(label: &str, values: &[T], tangents: &[T]) -> Vec<Dual<T>> {
    if values.len() != tangents.len() {
        panic!(
            "autodiff: the direction for `{label}` has length {} but `{label}` has length {}",
            tangents.len(),
            values.len()
        );
    }
    values
        .iter()
        .zip(tangents)
        .map(|(v, t)| Dual::new(*v, *t))
        .collect()
}

/// `values[i] + tangents[i] ε` for arrays.
pub fn dual_array<T: Float, const N: usize>(values: &[T; N], tangents: &[T; N]) -> [Dual<T>; N] {
    core::array::from_fn(|i| Dual::new(values[i], tangents[i]))
}

/// Constants: `values[i] + 0 ε`.
pub fn constant_vec<T: Float>(values: &[T]) -> Vec<Dual<T>> {
    values.iter().map(|v| Dual::new(*v, T::zero())).collect()
}

/// Constants: `values[i] + 0 ε`, for arrays.
pub fn constant_array<T: Float, const N: usize>(values: &[T; N]) -> [Dual<T>; N] {
    core::array::from_fn(|i| Dual::new(values[i], T::zero()))
}

/// The constant `value` in the float type `S`: what a literal of an `f64` function becomes in its generic
/// shadow (exact for `f64`, `f32` rounds, `Dual` gets a zero tangent).
#[inline]
pub fn lit<S: Float>(value: f64) -> S {
    S::from(value).unwrap_or_else(S::nan)
}

/// `n as S` for a float type parameter `S`, which `as` cannot name: a value of `S` itself as it is, any
/// other number through its value. The casts of the generic copy of an `f64` function (`y as f64` is
/// `cast::<__S, _>(y)` there) and of the derivatives emitted from it: where the copy runs on dual numbers
/// (`order = K`), a float cast to its own type keeps its tangents, whatever the expression it is (a local
/// `Vec`'s element, a tuple's part, a struct's field, a call's result), which `S::from` would drop (a wrong
/// second derivative). Integers (`n as f64`, `i as f64`) and the other float type (`a as f64` of an `f32`
/// `a`) convert, with no tangent.
#[inline]
pub fn cast<S: Float, N: num_traits::ToPrimitive>(n: N) -> S {
    if let Some(same) = same_value::<N, S>(&n) {
        return same;
    }
    S::from(n).unwrap_or_else(S::nan)
}

/// `n` itself where `N` is `S`, which a float type parameter cannot tell otherwise (`TypeId::of` asks for
/// `'static`, which the copies' float type parameter does not promise): both types' ids with lifetimes
/// erased (`typeid::of`), equal only for one type up to lifetimes.
#[inline(always)]
fn same_value<N, S: Copy>(n: &N) -> Option<S> {
    if typeid::of::<N>() != typeid::of::<S>() {
        return None;
    }
    // SAFETY: `N` and `S` are one type, up to lifetimes, which a float type has none of (a type that
    // `Float` and `ToPrimitive` describe holds a number: `f64`, `f32`, `Dual<T>`, `MultiDual<T, N>`), so
    // the bytes of `n` are a valid `S`; and `S` is `Copy`, so `n` is too and has no `Drop` to run twice.
    Some(unsafe { core::mem::transmute_copy::<N, S>(n) })
}

/// `x as f32` in the generic copy of an `f64` function (`order = K`): `x` with its value rounded to `f32`
/// as the cast rounds it, and its tangents kept, the derivative of rounding taken as 1 (the convention of
/// the first-order items, `docs/conventions.md`). The copy computes what follows in its own float type, so
/// the `f32` arithmetic after the cast is not rounded again. The shift is a constant: `x - (v - r)` with
/// `v` the value and `r` its rounding, exact since `r` is `v` with fewer bits.
#[inline]
pub fn round_f32<S: Float>(x: S) -> S {
    let Some(v) = x.to_f64() else {
        return x;
    };
    let rounded = f64::from(v as f32);
    if rounded == v {
        return x;
    }
    if !rounded.is_finite() {
        // Out of `f32`'s range, the cast's infinity; or NaN.
        return S::from(rounded).unwrap_or_else(S::nan);
    }
    x - S::from(v - rounded).unwrap_or_else(S::zero)
}

/// The value of `x` in the written float type `F` (`f64`, `f32`), for a call to `callee` that the generic
/// copy of an `f64` function makes as written, none of its arguments differentiated (`ln_gamma(0.5 * n as
/// f64)`): the copy computed the argument in its own float type. A dual number gives its value.
///
/// # Panics
///
/// If `x` is a dual number with a tangent that is not zero (any component, nested duals included): the
/// macro read the argument as a constant, and the call as written would drop that tangent, a wrong
/// derivative. That is an autodiff bug; the panic says so rather than let the derivative be wrong. A plain
/// float (`f64`, `f32`) has no tangent and is not checked.
#[inline]
pub fn plain<F: Float, X: Float>(x: X, callee: &'static str) -> F {
    let value = x.to_f64();
    if !is_plain_float::<X>() && has_tangent(x, value) {
        dropped_tangent(callee);
    }
    value.and_then(F::from).unwrap_or_else(F::nan)
}

/// Is `X` `f64` or `f32`, which have no tangent? (A constant of the monomorphised function.)
#[inline(always)]
fn is_plain_float<X>() -> bool {
    let name = core::any::type_name::<X>();
    name == core::any::type_name::<f64>() || name == core::any::type_name::<f32>()
}

/// Does the dual number `x` (of value `value`) have a tangent that is not zero? `x` less the constant of
/// its value has a zero value, and `Zero::is_zero` of a dual number also asks for a zero tangent, every
/// component of nested duals included (`Dual`, `MultiDual`). A value that is not finite has no such
/// difference and passes.
#[inline]
fn has_tangent<X: Float>(x: X, value: Option<f64>) -> bool {
    match value.filter(|v| v.is_finite()).and_then(X::from) {
        Some(constant) => !(x - constant).is_zero(),
        None => false,
    }
}

#[cold]
#[inline(never)]
fn dropped_tangent(callee: &str) -> ! {
    panic!(
        "autodiff bug: the generic copy of an `f64` function calls `{callee}` as written, reading its \
         arguments as constants, but an argument carries a derivative (a dual number with a tangent that \
         is not zero), which the call would drop: the derivative would be wrong. Please report this bug \
         with the function; meanwhile, give `{callee}` derivatives (`#[differentiable]`, or make it generic \
         over `T: Float`)"
    )
}

/// The result of such a call, in the copy's float type `S` where it is a float (`f64`, `f32`), as it is
/// otherwise (integers, `bool`, `()`): see [`Lift`].
#[inline]
pub fn lift<S, X: Lift<S>>(x: X) -> X::Out {
    x.lift()
}

/// What [`lift`] does to a value of this type.
pub trait Lift<S> {
    /// The lifted type.
    type Out;
    /// Whether a value of this type may carry a derivative: [`HoldsFloat`] where it holds a float,
    /// [`NoFloat`] for integers, `bool`, `()` and what is made of them alone (a `usize` index has no
    /// derivative, as in `jax`, where an integer output's is zero).
    type Kind: Kind;
    /// The lifted value.
    fn lift(self) -> Self::Out;
}

/// A type with no float in it: a helper's result of this type carries no derivative.
pub enum NoFloat {}

/// A type with a float in it.
pub enum HoldsFloat {}

/// [`NoFloat`] or [`HoldsFloat`], joined over the parts of a tuple.
pub trait Kind {
    /// `HoldsFloat` if either holds a float.
    type Or<B: Kind>: Kind;
}

impl Kind for NoFloat {
    type Or<B: Kind> = B;
}

impl Kind for HoldsFloat {
    type Or<B: Kind> = HoldsFloat;
}

/// `CHECK` is nothing for a result with no float, and the compile error of `M` (a helper without
/// derivatives called on the inputs, in the generic copy of a custom function) for one with a float: a
/// constant evaluated only when an `order = K` function instantiates the copy.
/// (At `()`, as `no_generic_copy` evaluates it: one error, whatever the float types instantiated.)
pub trait ResultCheck<M> {
    /// Nothing, or the compile error.
    const CHECK: ();
}

impl<M> ResultCheck<M> for NoFloat {
    const CHECK: () = ();
}

impl<M: crate::callee::NoGenericCopy<()>> ResultCheck<M> for HoldsFloat {
    const CHECK: () = M::FAIL;
}

/// The value of `x` in the float type `F`, its tangent dropped: an argument of a helper without
/// derivatives that the generic copy of a custom function calls as written because the helper's result
/// holds no float ([`NoFloat`]: an index, a count), whose derivative is zero whatever the argument's.
#[inline]
pub fn value<F: Float, X: num_traits::ToPrimitive>(x: X) -> F {
    F::from(x).unwrap_or_else(F::nan)
}

/// The values of an array of floats (`&[T]`, `&Vec<T>`, `&[T; N]`, or by value) in the float type `F`,
/// tangents dropped: an array argument of a helper without derivatives whose result the body uses as an
/// integer (`let k = argmax(x); x[k]`), which the generic copy of the function calls as written
/// (`argmax(&array_values::<f64, _>(x))`). An integer's derivative is zero whatever the argument's, so no
/// tangent is lost.
#[inline]
pub fn array_values<F: Float, A: ArrayValues<F>>(array: A) -> A::Out {
    array.array_values()
}

/// The values of an array of floats in the float type `F`, as [`array_values`] gives them, for a call to
/// `callee` that the generic copy of an `f64` function makes as written, none of its arguments
/// differentiated (`helper(&w)` of `let w = [0.5, c];`, `c` outside `wrt(..)`): each element as
/// [`plain`] gives it.
///
/// # Panics
///
/// As [`plain`]: if an element is a dual number with a tangent that is not zero.
#[inline]
pub fn plain_array<F: Float, A: ArrayValues<F>>(array: A, callee: &'static str) -> A::Out {
    array.plain_values(callee)
}

/// Writes the values that a helper called as written put into `values` (a buffer of `plain_array`'s) back
/// into `out`, the generic copy's array, each lifted to its float type `S` (a constant there): for a call
/// to a helper without derivatives writing an output (`fill(c, &mut v)`) that only parameters outside
/// `wrt(..)` reach.
#[inline]
pub fn write_back<S, F: Lift<S, Out = S> + Copy>(out: &mut [S], values: &[F]) {
    for (out, value) in out.iter_mut().zip(values) {
        *out = value.lift();
    }
}

/// The values of a tuple of floats (`(0.5, stop_gradient(c))`) in the float types of the callee's
/// tuple parameter (`(f64, f64)`, which rustc infers from the call), for a call to `callee` that the
/// generic copy of an `f64` function makes as written, none of its arguments differentiated: each
/// component as [`plain`] gives it.
///
/// # Panics
///
/// As [`plain`]: if a component is a dual number with a tangent that is not zero.
#[inline]
pub fn plain_tuple<T: TupleValues<Out>, Out>(tuple: T, callee: &'static str) -> Out {
    tuple.plain_values(callee)
}

/// The values of a tuple of floats as [`plain_tuple`] gives them, tangents dropped: an argument of a
/// helper without derivatives whose result the body uses where no derivative flows ([`value`]).
#[inline]
pub fn tuple_values<T: TupleValues<Out>, Out>(tuple: T) -> Out {
    tuple.values()
}

/// What [`plain_tuple`] and [`tuple_values`] do to a tuple of floats, `Out` a tuple of floats of the same
/// arity.
pub trait TupleValues<Out> {
    /// The values.
    fn values(self) -> Out;
    /// The values, each checked to have no tangent ([`plain`]).
    fn plain_values(self, callee: &'static str) -> Out;
}

macro_rules! tuple_values {
    ($(($($x:ident $f:ident $i:tt),+))*) => {$(
        impl<$($x: Float,)+ $($f: Float,)+> TupleValues<($($f,)+)> for ($($x,)+) {
            #[inline]
            fn values(self) -> ($($f,)+) {
                ($(value::<$f, _>(self.$i),)+)
            }
            #[inline]
            fn plain_values(self, callee: &'static str) -> ($($f,)+) {
                ($(plain::<$f, _>(self.$i, callee),)+)
            }
        }
    )*};
}

tuple_values! {
    (A FA 0, B FB 1)
    (A FA 0, B FB 1, C FC 2)
    (A FA 0, B FB 1, C FC 2, D FD 3)
}

/// What [`array_values`] and [`plain_array`] do to an array of floats, or a reference to one.
pub trait ArrayValues<F> {
    /// `Vec<F>` or `[F; N]`.
    type Out;
    /// The values.
    fn array_values(self) -> Self::Out;
    /// The values, each checked to have no tangent ([`plain`]).
    fn plain_values(self, callee: &'static str) -> Self::Out;
}

/// The value of the float `x` in `F`.
#[inline]
fn float_value<F: Float, X: Float>(x: X) -> F {
    x.to_f64().and_then(F::from).unwrap_or_else(F::nan)
}

impl<F: Float, X: Float> ArrayValues<F> for &[X] {
    type Out = Vec<F>;
    #[inline]
    fn array_values(self) -> Vec<F> {
        self.iter().map(|x| float_value(*x)).collect()
    }
    #[inline]
    fn plain_values(self, callee: &'static str) -> Vec<F> {
        self.iter().map(|x| plain(*x, callee)).collect()
    }
}

/// A window bound by reference (`let w: &[_] = &x[1..];`) and passed as `&w`.
impl<F: Float, X: Float> ArrayValues<F> for &&[X] {
    type Out = Vec<F>;
    #[inline]
    fn array_values(self) -> Vec<F> {
        (*self).array_values()
    }
    #[inline]
    fn plain_values(self, callee: &'static str) -> Vec<F> {
        (*self).plain_values(callee)
    }
}

impl<F: Float, X: Float> ArrayValues<F> for &Vec<X> {
    type Out = Vec<F>;
    #[inline]
    fn array_values(self) -> Vec<F> {
        self.iter().map(|x| float_value(*x)).collect()
    }
    #[inline]
    fn plain_values(self, callee: &'static str) -> Vec<F> {
        self.iter().map(|x| plain(*x, callee)).collect()
    }
}

impl<F: Float, X: Float> ArrayValues<F> for Vec<X> {
    type Out = Vec<F>;
    #[inline]
    fn array_values(self) -> Vec<F> {
        self.iter().map(|x| float_value(*x)).collect()
    }
    #[inline]
    fn plain_values(self, callee: &'static str) -> Vec<F> {
        self.iter().map(|x| plain(*x, callee)).collect()
    }
}

impl<F: Float, X: Float, const N: usize> ArrayValues<F> for &[X; N] {
    type Out = [F; N];
    #[inline]
    fn array_values(self) -> [F; N] {
        self.map(float_value)
    }
    #[inline]
    fn plain_values(self, callee: &'static str) -> [F; N] {
        self.map(|x| plain(x, callee))
    }
}

impl<F: Float, X: Float, const N: usize> ArrayValues<F> for [X; N] {
    type Out = [F; N];
    #[inline]
    fn array_values(self) -> [F; N] {
        self.map(float_value)
    }
    #[inline]
    fn plain_values(self, callee: &'static str) -> [F; N] {
        self.map(|x| plain(x, callee))
    }
}

impl<S: Float> Lift<S> for f64 {
    type Out = S;
    type Kind = HoldsFloat;
    #[inline]
    fn lift(self) -> S {
        lit(self)
    }
}

impl<S: Float> Lift<S> for f32 {
    type Out = S;
    type Kind = HoldsFloat;
    #[inline]
    fn lift(self) -> S {
        cast(self)
    }
}

macro_rules! lift_as_is {
    ($($t:ty),*) => {$(
        impl<S> Lift<S> for $t {
            type Out = $t;
            type Kind = NoFloat;
            #[inline]
            fn lift(self) -> $t {
                self
            }
        }
    )*};
}

lift_as_is!(
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    bool,
    char,
    String,
    ()
);

/// A string slice, as it is (a field of a constant struct that a generic copy reads: `self.name.len()`).
impl<S> Lift<S> for &str {
    type Out = Self;
    type Kind = NoFloat;
    #[inline]
    fn lift(self) -> Self {
        self
    }
}

/// A `Vec` of such values, element by element: the gradient of a slice.
impl<S, X: Lift<S>> Lift<S> for Vec<X> {
    type Out = Vec<X::Out>;
    type Kind = X::Kind;
    #[inline]
    fn lift(self) -> Vec<X::Out> {
        self.into_iter().map(Lift::lift).collect()
    }
}

/// An `Option` of such a value, inside: `Some(k)` of a local `Option<usize>` (the nearest index found in a
/// loop), a call by the variant's name that the generic copy makes as written.
impl<S, X: Lift<S>> Lift<S> for Option<X> {
    type Out = Option<X::Out>;
    type Kind = X::Kind;
    #[inline]
    fn lift(self) -> Option<X::Out> {
        self.map(Lift::lift)
    }
}

/// An array of such values, element by element: a field of a constant struct read in a generic copy.
impl<S, X: Lift<S>, const N: usize> Lift<S> for [X; N] {
    type Out = [X::Out; N];
    type Kind = X::Kind;
    #[inline]
    fn lift(self) -> [X::Out; N] {
        self.map(Lift::lift)
    }
}

macro_rules! lift_tuples {
    (@or $x:ident) => { <$x as Lift<S>>::Kind };
    (@or $x:ident, $($rest:ident),+) => {
        <<$x as Lift<S>>::Kind as Kind>::Or<lift_tuples!(@or $($rest),+)>
    };
    ($(($($x:ident),+)),*) => {$(
        /// A tuple of such values, component by component: the gradient of several inputs.
        impl<S, $($x: Lift<S>),+> Lift<S> for ($($x,)+) {
            type Out = ($($x::Out,)+);
            type Kind = lift_tuples!(@or $($x),+);
            #[inline]
            #[allow(non_snake_case)]
            fn lift(self) -> Self::Out {
                let ($($x,)+) = self;
                ($($x.lift(),)+)
            }
        }
    )*};
}

lift_tuples!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F)
);

/// `a[i]` for a `const` or `static` array from outside a differentiable function (`WEIGHTS[i]`), which the
/// macro reads as a constant.
#[inline]
pub fn at<T: Copy>(a: &[T], i: usize) -> T {
    a[i]
}

/// `a[i]` by reference, a row of a parameter holding a matrix of integers or flags (`tris[t]` of `tris:
/// &[[usize; 3]]`, `nbrs[i]` of `nbrs: &[Vec<usize>]`), which the body indexes further or measures.
#[inline]
/// (`a` any slice, `Vec` or array of rows, also behind references: `&&[[usize; 2]; 2]` of a struct's field
/// bound by reference.)
pub fn row<'a, A: AsRef<[R]> + ?Sized, R: AsRef<[T]> + 'a, T: 'a>(a: &'a A, i: usize) -> &'a [T] {
    a.as_ref()[i].as_ref()
}

/// A constant named in the generic shadow of an `f64` function, whose type the macro cannot see (`G` of
/// `const G: f64 = 9.81;` outside the function): a float becomes the shadow's float type `S`, an integer
/// or `bool` stays what it is.
pub trait Constant<S> {
    /// `S` for a float, `Self` otherwise.
    type Out;
    /// The constant in the shadow.
    fn constant(self) -> Self::Out;
}

impl<S: Float> Constant<S> for f64 {
    type Out = S;
    #[inline]
    fn constant(self) -> S {
        lit(self)
    }
}

impl<S: Float> Constant<S> for f32 {
    type Out = S;
    #[inline]
    fn constant(self) -> S {
        lit(f64::from(self))
    }
}

macro_rules! unchanged_constants {
    ($($t:ty)*) => {$(
        impl<S> Constant<S> for $t {
            type Out = $t;
            #[inline]
            fn constant(self) -> $t {
                self
            }
        }
    )*};
}

unchanged_constants!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool);

/// An array constant, or a row of a matrix constant (`&DESIGN[i]` of `const DESIGN: [[f64; 3]; 4]`
/// passed to a call): each element lifted.
impl<S, C: Constant<S>, const N: usize> Constant<S> for [C; N] {
    type Out = [C::Out; N];
    #[inline]
    fn constant(self) -> [C::Out; N] {
        self.map(Constant::constant)
    }
}

/// `c` in the generic shadow: see [`Constant`].
#[inline]
pub fn constant<S, C: Constant<S>>(c: C) -> C::Out {
    c.constant()
}

/// `x as I` for a value `x` of a float type parameter (or a dual number), which `as` cannot convert:
/// the same saturating conversion of the value (NaN gives 0, out-of-range values the nearest bound).
#[inline]
pub fn to_int<I: num_traits::PrimInt, N: num_traits::ToPrimitive>(x: N) -> I {
    I::from(x.to_f64().map_or(0.0, f64::trunc)).unwrap_or_else(|| match x.to_f64() {
        Some(v) if v > 0.0 => I::max_value(),
        Some(v) if v < 0.0 => I::min_value(),
        _ => I::zero(),
    })
}

/// The value parts of dual numbers, in the shape of the gradient they come from (`Vec` or array).
pub trait Parts {
    /// The same shape with the dual numbers replaced by their value type.
    type Real;
    /// The values.
    fn re_parts(&self) -> Self::Real;
    /// The tangents.
    fn eps_parts(&self) -> Self::Real;
    /// The tangents, written into `into`, whose buffers are reused where the shapes agree.
    fn eps_parts_into(&self, into: &mut Self::Real) {
        *into = self.eps_parts();
    }
}

impl<T: Copy + Zero> Parts for Dual<T> {
    type Real = T;
    fn re_parts(&self) -> T {
        self.re
    }
    fn eps_parts(&self) -> T {
        self.eps
    }
}

// Element by element, so that a matrix's gradient (`Vec<Vec<Dual<T>>>`, `[[Dual<T>; M]; N]`) has parts too.
impl<P: Parts> Parts for Vec<P> {
    type Real = Vec<P::Real>;
    fn re_parts(&self) -> Vec<P::Real> {
        self.iter().map(Parts::re_parts).collect()
    }
    fn eps_parts(&self) -> Vec<P::Real> {
        self.iter().map(Parts::eps_parts).collect()
    }
    fn eps_parts_into(&self, into: &mut Vec<P::Real>) {
        if into.len() == self.len() {
            for (part, out) in self.iter().zip(into.iter_mut()) {
                part.eps_parts_into(out);
            }
        } else {
            *into = self.eps_parts();
        }
    }
}

impl<P: Parts, const N: usize> Parts for [P; N] {
    type Real = [P::Real; N];
    fn re_parts(&self) -> [P::Real; N] {
        core::array::from_fn(|i| self[i].re_parts())
    }
    fn eps_parts(&self) -> [P::Real; N] {
        core::array::from_fn(|i| self[i].eps_parts())
    }
}

/// A tuple parameter's gradient: the parts of each component.
macro_rules! tuple_parts {
    ($($name:ident $index:tt),+) => {
        impl<$($name: Parts),+> Parts for ($($name,)+) {
            type Real = ($($name::Real,)+);
            fn re_parts(&self) -> Self::Real {
                ($(self.$index.re_parts(),)+)
            }
            fn eps_parts(&self) -> Self::Real {
                ($(self.$index.eps_parts(),)+)
            }
            fn eps_parts_into(&self, into: &mut Self::Real) {
                $(self.$index.eps_parts_into(&mut into.$index);)+
            }
        }
    };
}

tuple_parts!(A 0);
tuple_parts!(A 0, B 1);
tuple_parts!(A 0, B 1, C 2);
tuple_parts!(A 0, B 1, C 2, D 3);
tuple_parts!(A 0, B 1, C 2, D 3, E 4);
tuple_parts!(A 0, B 1, C 2, D 3, E 4, F 5);

/// The values of a gradient of dual numbers.
pub fn re_parts<P: Parts>(gradient: &P) -> P::Real {
    gradient.re_parts()
}

/// The tangents of a gradient of dual numbers, written into `into` (`f_hvp`'s direction, which has the
/// gradient's shape: its buffers become the product's) and returned.
pub fn eps_parts_into<P: Parts>(gradient: &P, mut into: P::Real) -> P::Real {
    gradient.eps_parts_into(&mut into);
    into
}

/// `f_hessian`'s rows from its columns: column `c` is the product `H e_c`, so `H[r][c]` is the derivative
/// of the gradient's entry `r` in input `c` (the Jacobian of `f_grad`, not symmetric where a custom
/// gradient is not the derivative of its value).
pub fn hessian_from_columns<T: Copy>(columns: &[Vec<T>]) -> Vec<Vec<T>> {
    (0..columns.len())
        .map(|r| columns.iter().map(|column| column[r]).collect())
        .collect()
}

/// Moving values into and out of [`MultiDual`] numbers, for `f_hessian`: it runs `f_grad` once per `N`
/// inputs, input `offset + k` of the flattened active inputs seeded along lane `offset + k - base`, the
/// lanes of the pass that starts at input `base`.
pub mod lanes {
    use crate::multi_dual::MultiDual;
    use num_traits::Float;

    /// The scalar input at flat position `offset`, seeded if it falls in the pass from `base`.
    #[inline]
    pub fn scalar<T: Float, const N: usize>(
        value: T,
        offset: usize,
        base: usize,
    ) -> MultiDual<T, N> {
        MultiDual::unit(value, offset.wrapping_sub(base))
    }

    /// A slice of inputs starting at flat position `offset`.
    pub fn vec<T: Float, const N: usize>(
        values: &[T],
        offset: usize,
        base: usize,
    ) -> Vec<MultiDual<T, N>> {
        values
            .iter()
            .enumerate()
            .map(|(k, v)| scalar(*v, offset + k, base))
            .collect()
    }

    /// An array of inputs starting at flat position `offset`.
    pub fn array<T: Float, const N: usize, const M: usize>(
        values: &[T; M],
        offset: usize,
        base: usize,
    ) -> [MultiDual<T, N>; M] {
        core::array::from_fn(|k| scalar(values[k], offset + k, base))
    }

    /// Constants (an inactive float parameter).
    pub fn constant_vec<T: Float, const N: usize>(values: &[T]) -> Vec<MultiDual<T, N>> {
        values.iter().map(|v| MultiDual::constant(*v)).collect()
    }

    /// Constants, for arrays.
    pub fn constant_array<T: Float, const N: usize, const M: usize>(
        values: &[T; M],
    ) -> [MultiDual<T, N>; M] {
        core::array::from_fn(|k| MultiDual::constant(values[k]))
    }

    /// Lane `j` of a gradient of [`MultiDual`] numbers, in the gradient's shape with plain floats.
    pub trait Lane {
        /// The same shape with the dual numbers replaced by their value type.
        type Real;
        /// The tangents of lane `j`.
        fn lane(&self, j: usize) -> Self::Real;
    }

    impl<T: Copy, const N: usize> Lane for MultiDual<T, N> {
        type Real = T;
        fn lane(&self, j: usize) -> T {
            self.eps[j]
        }
    }

    impl<P: Lane> Lane for Vec<P> {
        type Real = Vec<P::Real>;
        fn lane(&self, j: usize) -> Vec<P::Real> {
            self.iter().map(|p| p.lane(j)).collect()
        }
    }

    impl<P: Lane, const M: usize> Lane for [P; M] {
        type Real = [P::Real; M];
        fn lane(&self, j: usize) -> [P::Real; M] {
            core::array::from_fn(|k| self[k].lane(j))
        }
    }

    /// A tuple parameter's gradient: the lane of each component.
    macro_rules! tuple_lane {
        ($($name:ident $index:tt),+) => {
            impl<$($name: Lane),+> Lane for ($($name,)+) {
                type Real = ($($name::Real,)+);
                fn lane(&self, j: usize) -> Self::Real {
                    ($(self.$index.lane(j),)+)
                }
            }
        };
    }

    tuple_lane!(A 0);
    tuple_lane!(A 0, B 1);
    tuple_lane!(A 0, B 1, C 2);
    tuple_lane!(A 0, B 1, C 2, D 3);
    tuple_lane!(A 0, B 1, C 2, D 3, E 4);
    tuple_lane!(A 0, B 1, C 2, D 3, E 4, F 5);

    /// Lane `j` of a gradient of [`MultiDual`] numbers.
    pub fn lane<P: Lane>(gradient: &P, j: usize) -> P::Real {
        gradient.lane(j)
    }
}

/// The start of the variable that carries a labeled block's value out of a loop nested in the block
/// (`autodiff-macros`' `sugar.rs`): a number's zero, never read (every path out of the block assigns the
/// variable first). A value whose type the syntax of its `break` does not tell (`break 'a t` of a tuple
/// `t`) must be a number: [`BlockValue`]'s error says so there.
#[inline]
pub fn block_value<T: BlockValue>() -> T {
    T::unset()
}

/// A number, which can carry a labeled block's value out of a loop nested in the block ([`block_value`]).
#[diagnostic::on_unimplemented(
    message = "a labeled block's value that a `break` carries out of a loop nested in the block is held in a \
               variable, whose type here, `{Self}`, is not a number and is not told by the value's syntax",
    label = "a value of type `{Self}` carried out of a loop",
    note = "write the value's parts where it is carried (`break 'a (u, v)`, `break 'a [u, v]`, `break 'a u > v`), or \
            assign them to variables declared before the block"
)]
pub trait BlockValue {
    /// A value of the type (a zero).
    fn unset() -> Self;
}

impl<T: num_traits::Zero> BlockValue for T {
    #[inline]
    fn unset() -> Self {
        T::zero()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_back_lifts_a_helper_s_output_into_the_copy_s_array() {
        let mut out = [
            Dual::new(9.0, 1.0),
            Dual::new(9.0, 1.0),
            Dual::new(4.0, 2.0),
        ];
        write_back(&mut out[..], &[0.5f64, -2.0][..]);
        let parts: Vec<(f64, f64)> = out.iter().map(|d| (d.re, d.eps)).collect();
        // Each written element a constant; one the helper did not write keeps its value.
        assert_eq!(parts, [(0.5, 0.0), (-2.0, 0.0), (4.0, 2.0)]);
    }

    #[test]
    fn plain_takes_the_value_and_lift_keeps_integers() {
        let x = Dual::new(Dual::new(1.5, 0.0), Dual::new(0.0, 0.0));
        assert_eq!(plain::<f64, _>(x, "g"), 1.5);
        assert_eq!(plain::<f32, _>(0.25f64, "g"), 0.25f32);
        let lifted: Dual<f64> = lift(2.5f64);
        assert_eq!((lifted.re, lifted.eps), (2.5, 0.0));
        let count: usize = lift::<Dual<f64>, _>(7usize);
        assert_eq!(count, 7);
        let flag: bool = lift::<f64, _>(true);
        assert!(flag);
        // Gradients: vectors and tuples, element by element.
        let (a, b): (Vec<Dual<f64>>, Dual<f64>) = lift((vec![1.0f64, -2.0], 0.5f64));
        assert_eq!(
            a.iter().map(|d| (d.re, d.eps)).collect::<Vec<_>>(),
            [(1.0, 0.0), (-2.0, 0.0)]
        );
        assert_eq!((b.re, b.eps), (0.5, 0.0));
    }

    /// The net under a call made as written: a dual number whose tangent is not zero, in any component
    /// of nested duals or any lane of a `MultiDual`, panics naming the callee; a zero tangent, a plain
    /// float and a value that is not finite pass.
    #[test]
    fn plain_refuses_a_tangent_it_would_drop() {
        use crate::multi_dual::MultiDual;
        let refused = |run: &(dyn Fn() + std::panic::RefUnwindSafe)| {
            let message = std::panic::catch_unwind(run)
                .expect_err("a tangent dropped without a panic")
                .downcast::<String>()
                .expect("a formatted message");
            assert!(
                message.contains("autodiff bug") && message.contains("`ln_gamma`"),
                "{message}"
            );
        };
        refused(&|| {
            plain::<f64, _>(Dual::new(1.5, 2.0), "ln_gamma");
        });
        refused(&|| {
            plain::<f32, _>(Dual::new(1.5f32, -1e-30), "ln_gamma");
        });
        for (re_eps, eps_re, eps_eps) in [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)] {
            refused(&|| {
                let x = Dual::new(Dual::new(1.5, re_eps), Dual::new(eps_re, eps_eps));
                plain::<f64, _>(x, "ln_gamma");
            });
        }
        refused(&|| {
            let mut x = MultiDual::<f64, 8>::constant(-0.5);
            x.eps[7] = 0.25;
            plain::<f64, _>(x, "ln_gamma");
        });
        // Zero tangents, at every level: the value, exactly.
        assert_eq!(plain::<f64, _>(Dual::new(-2.5, 0.0), "g"), -2.5);
        assert_eq!(
            plain::<f64, _>(Dual::new(Dual::new(3.0, 0.0), Dual::new(0.0, 0.0)), "g"),
            3.0
        );
        assert_eq!(
            plain::<f64, _>(MultiDual::<f64, 8>::constant(1e300), "g"),
            1e300
        );
        assert_eq!(
            plain::<f64, _>(Dual::new(1.0f32 / 3.0, 0.0), "g"),
            f64::from(1.0f32 / 3.0)
        );
        // A value that is not finite: no difference to take, passed on as it is.
        assert!(plain::<f64, _>(Dual::new(f64::NAN, 1.0), "g").is_nan());
        assert_eq!(
            plain::<f64, _>(Dual::new(f64::INFINITY, 0.0), "g"),
            f64::INFINITY
        );
        // Plain floats: no tangent, no check.
        assert_eq!(plain::<f64, _>(f64::MAX, "g"), f64::MAX);
        assert!(is_plain_float::<f64>() && is_plain_float::<f32>());
        assert!(!is_plain_float::<Dual<f64>>() && !is_plain_float::<MultiDual<f32, 2>>());
    }

    #[test]
    fn cast_keeps_a_value_of_its_own_type_and_converts_the_others() {
        // A dual number cast to its own type keeps its tangents, nested ones too.
        let x = Dual::new(1.5, 2.0);
        let y: Dual<f64> = cast(x);
        assert_eq!((y.re, y.eps), (1.5, 2.0));
        let x = Dual::new(Dual::new(1.5, 2.0), Dual::new(3.0, 4.0));
        let y: Dual<Dual<f64>> = cast(x);
        assert_eq!(
            (y.re.re, y.re.eps, y.eps.re, y.eps.eps),
            (1.5, 2.0, 3.0, 4.0)
        );
        // Integers and plain floats convert: no tangent.
        let y: Dual<f64> = cast(3usize);
        assert_eq!((y.re, y.eps), (3.0, 0.0));
        let y: Dual<f64> = cast(-2i32);
        assert_eq!((y.re, y.eps), (-2.0, 0.0));
        let y: Dual<f64> = cast(0.25f64);
        assert_eq!((y.re, y.eps), (0.25, 0.0));
        let y: Dual<f32> = cast(0.5f64);
        assert_eq!((y.re, y.eps), (0.5, 0.0));
        // A dual number of another float type converts through its value.
        let y: Dual<f32> = cast(Dual::new(1.5f64, 2.0));
        assert_eq!((y.re, y.eps), (1.5, 0.0));
        assert_eq!(cast::<f64, _>(1.25f32), 1.25);
        assert_eq!(cast::<f32, _>(7u8), 7.0);
        assert!(cast::<f64, _>(f64::NAN).is_nan());
        let big: f32 = cast(1e300f64);
        assert_eq!(big, f32::INFINITY);
    }

    #[test]
    fn to_int_is_as_on_the_value() {
        for x in [
            -3.7,
            -0.5,
            0.0,
            0.9,
            2.5,
            1e30,
            -1e30,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(to_int::<usize, _>(x), x as usize, "{x} as usize");
            assert_eq!(to_int::<i32, _>(x), x as i32, "{x} as i32");
            assert_eq!(
                to_int::<i32, _>(Dual::new(x, 1.0)),
                x as i32,
                "dual {x} as i32"
            );
        }
        assert_eq!(cast::<Dual<f64>, _>(3usize), Dual::new(3.0, 0.0));
        assert_eq!(constant::<Dual<f64>, _>(2.5), Dual::new(2.5, 0.0));
        assert_eq!(constant::<Dual<f64>, _>(7usize), 7usize);
    }

    #[test]
    fn parts_round_trip() {
        let d = dual_vec("x", &[1.0, 2.0], &[3.0, 4.0]);
        assert_eq!(re_parts(&d), vec![1.0, 2.0]);
        assert_eq!(d.eps_parts(), vec![3.0, 4.0]);
        let a = dual_array(&[1.0, 2.0], &[0.5, 0.25]);
        assert_eq!(a.eps_parts(), [0.5, 0.25]);
        assert_eq!(re_parts(&constant_array(&[7.0])), [7.0]);
        assert_eq!(constant_vec(&[7.0]).eps_parts(), vec![0.0]);
        // Into a buffer of the same shape, which is reused; of another length, replaced.
        let buffer = vec![9.0, 9.0];
        let pointer = buffer.as_ptr();
        let into = eps_parts_into(&d, buffer);
        assert_eq!((into.clone(), into.as_ptr()), (vec![3.0, 4.0], pointer));
        assert_eq!(eps_parts_into(&d, vec![1.0]), vec![3.0, 4.0]);
        let pair = (Dual::new(1.0, 2.0), dual_vec("y", &[1.0], &[5.0]));
        assert_eq!(eps_parts_into(&pair, (0.0, vec![0.0])), (2.0, vec![5.0]));
    }

    #[test]
    fn hessian_rows_from_columns() {
        let columns = vec![
            vec![1.0, 2.0, 3.0],
            vec![4.0, 5.0, 6.0],
            vec![7.0, 8.0, 9.0],
        ];
        assert_eq!(
            hessian_from_columns(&columns),
            vec![
                vec![1.0, 4.0, 7.0],
                vec![2.0, 5.0, 8.0],
                vec![3.0, 6.0, 9.0]
            ]
        );
        assert!(hessian_from_columns::<f64>(&[]).is_empty());
    }

    #[test]
    #[should_panic(expected = "the direction for `w` has length 1 but `w` has length 2")]
    fn direction_length_is_checked() {
        dual_vec("w", &[1.0, 2.0], &[1.0]);
    }
}
