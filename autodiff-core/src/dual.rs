//! Dual numbers: forward-mode differentiation by carrying a derivative along with every value.
//!
//! The module is private and [`Dual`] is re-exported at the crate root, so the explanation (what a dual
//! number is, how nesting gives second derivatives, the conventions at non-differentiable points) lives
//! on the type, where users read it.

use core::cmp::Ordering;
use core::fmt;
use core::iter::{Product, Sum};
use core::num::FpCategory;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use num_traits::{Float, FloatConst, FromPrimitive, Num, NumCast, One, ToPrimitive, Zero};

use crate::rules;

/// A dual number `re + eps·ε`: a value and its tangent, for forward-mode differentiation.
///
/// Written `a + bε`, a dual number pairs a value `a` ([`Dual::re`]) with a tangent `b` ([`Dual::eps`]),
/// where `ε` is an infinitesimal with `ε² = 0`. Taylor's theorem then gives `f(a + bε) = f(a) + f'(a)bε`
/// exactly, so evaluating a function on `Dual::variable(x)` (tangent 1) returns `f(x)` in `re` and
/// `f'(x)` in `eps`. With several inputs, the tangents seed a direction `v` and `eps` comes out as the
/// directional derivative `∇f · v`, a Jacobian-vector product.
///
/// [`Dual<T>`] implements [`num_traits::Float`], so any function written for a generic `T: Float` runs on
/// it unchanged, including the items that `#[differentiable]` generates.
///
/// # Second derivatives by nesting
///
/// `Dual<T>` is a `Float` whenever `T` is, so duals nest. In `Dual<Dual<f64>>` there are two independent
/// infinitesimals, `ε₁` inside and `ε₂` outside. Seeding both with 1, as `(x + ε₁) + (1 + 0ε₁)ε₂`, gives
///
/// ```text
/// f((x + ε₁) + (1 + 0ε₁)ε₂) = (f(x) + f'(x)ε₁) + (f'(x) + f''(x)ε₁)ε₂
/// ```
///
/// so the second derivative is `result.eps.eps`. Nesting deeper gives higher derivatives.
///
/// ```
/// use autodiff_core::{Dual, Float};
///
/// // f(x) = x³ sin x, written once for any float type.
/// fn f<T: Float>(x: T) -> T {
///     x.powi(3) * x.sin()
/// }
///
/// let x = 0.7_f64;
/// let df = 3.0 * x * x * x.sin() + x.powi(3) * x.cos();
/// let d2f = 6.0 * x * x.sin() + 6.0 * x * x * x.cos() - x.powi(3) * x.sin();
///
/// // First derivative: one dual, tangent seeded with 1.
/// let y = f(Dual::variable(x));
/// assert_eq!(y.re, f(x));
/// assert!((y.eps - df).abs() < 1e-12);
///
/// // Second derivative: a dual of duals, both tangents seeded with 1.
/// let y = f(Dual::new(Dual::variable(x), Dual::constant(1.0)));
/// assert!((y.re.eps - df).abs() < 1e-12 && (y.eps.re - df).abs() < 1e-12);
/// assert!((y.eps.eps - d2f).abs() < 1e-12);
/// ```
///
/// # Conventions
///
/// - Comparisons (`==`, `<`, ...) and predicates (`is_nan`, `is_sign_negative`, ...) look at the value
///   `re` only, so a branch such as `if x > 0.0` in differentiated code follows the value, and
///   `Dual::new(1.0, 2.0) == Dual::new(1.0, 3.0)`: compare the fields to tell such duals apart.
///   [`Zero::is_zero`] and [`One::is_one`], on the other hand, also require a zero tangent. Conversions
///   (`to_f64`, `integer_decode`, ...) convert the value; `NumCast::from`, `From<T>` and the float
///   constants (`epsilon`, `max_value`, `PI`, ...) build constants, with tangent zero.
/// - At points where a function is not differentiable the derivative follows JAX (the partial derivatives
///   come from [`crate::rules`], which the reverse mode uses too): `abs` has slope 1 at 0; a tie in `max`
///   or `min` gives half of each tangent to each side (so `x.max(0.0)` at 0 has slope 0.5); `clamp` is
///   `min(max(x, lo), hi)`; `sqrt` has slope `+inf` at 0; `powi(x, 0)` has slope 0 everywhere; in
///   `x.powf(y)` the `x`-partial is 0 where `y = 0` and the `y`-partial is 0 where `x = 0`; `floor`,
///   `ceil`, `round`, `trunc` and `signum` have slope 0; `hypot` and `atan2` have NaN partials at the
///   origin (`0 / 0`).
/// - A zero tangent contributes zero even where a partial derivative is infinite or NaN, as JAX's
///   symbolic zeros do: a constant stays a constant through `sqrt(0)` or `ln(0)`, and `x.powf(2.0)` at a
///   negative `x` has the slope `2x`, untouched by the NaN of `ln(x)` in the exponent's partial. The
///   product `a * b` tests each term of its tangent `a.eps * b.re + b.eps * a.re` the same way, as a
///   select beside the multiplication rather than a branch: so a constant times an infinite value has the
///   tangent of the other factor alone (the second derivative of `3.0 * x.sqrt()` at 0 is `-inf`, as
///   `jax.grad(jax.grad(f))` gives), while a zero *value* times an infinite tangent is still
///   `0 · inf = NaN`, as in JAX.
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual<T> {
    /// The value.
    pub re: T,
    /// The tangent: the derivative of the value along the direction the inputs were seeded with.
    pub eps: T,
}

impl<T> Dual<T> {
    /// The dual number `re + eps·ε`.
    pub const fn new(re: T, eps: T) -> Self {
        Self { re, eps }
    }
}

impl<T: Float> Dual<T> {
    /// A constant: the value `re` with tangent zero.
    pub fn constant(re: T) -> Self {
        Self::new(re, T::zero())
    }

    /// The variable being differentiated along: the value `re` with tangent one.
    pub fn variable(re: T) -> Self {
        Self::new(re, T::one())
    }

    /// The result of a one-argument function with value `value` and derivative `slope` at `self.re`.
    fn chain(self, value: T, slope: T) -> Self {
        Self::new(value, scaled(self.eps, slope))
    }

    /// The result of a two-argument function with value `value` and partials `d_self`, `d_other`.
    fn chain2(self, other: Self, value: T, (d_self, d_other): (T, T)) -> Self {
        Self::new(value, scaled(self.eps, d_self) + scaled(other.eps, d_other))
    }

    /// The result of a three-argument function with value `value` and partials `d`.
    fn chain3(self, a: Self, b: Self, value: T, d: (T, T, T)) -> Self {
        Self::new(
            value,
            scaled(self.eps, d.0) + scaled(a.eps, d.1) + scaled(b.eps, d.2),
        )
    }

    /// The result of a linear map `map` of `self` (negation, `to_degrees`), whose value is `value`.
    fn linear(self, value: T, map: impl Fn(T) -> T) -> Self {
        Self::new(value, map(self.eps))
    }

    /// The result of a sum or difference `op` of `self` and `other`, whose value is `value`.
    fn combine(self, other: Self, value: T, op: impl Fn(T, T) -> T) -> Self {
        Self::new(value, op(self.eps, other.eps))
    }

    /// Is the tangent zero?
    fn tangent_is_zero(&self) -> bool {
        self.eps.is_zero()
    }

    /// `self * other`: each term of the tangent `self.eps * other.re + other.eps * self.re` by [`scaled`],
    /// so that a constant times an infinite value has the tangent of the other factor alone.
    fn product(self, other: Self) -> Self {
        Self::new(
            self.re * other.re,
            scaled(self.eps, other.re) + scaled(other.eps, self.re),
        )
    }
}

/// `tangent · partial`, except that a zero tangent gives zero even if `partial` is infinite or NaN: like
/// JAX's symbolic zeros, an input that does not vary does not poison the result. On nested dual numbers
/// (`Dual<Dual<f64>>`, which `f_derivatives` runs on) `tangent * partial` is itself a product of dual
/// numbers, whose zero tangents skip the other's infinite value in turn: the second derivative of
/// `x.powf(0.5)` at 0 is `-inf`, not `0 · inf = NaN`.
///
/// A choice between two values, not a branch around work: on `f64` LLVM makes it a compare and a blend
/// beside the multiplication. The earlier form (multiply, test the sum for `is_finite`, and take it again
/// with these tests where it was not) cost 5.7x the instructions of the untested product on a
/// `Dual<Dual<f64>>` Rosenbrock (363,658 against 63,951 a call, n = 1000); this one costs 1.8x (116,900).
#[inline(always)]
pub(crate) fn scaled<T: Float>(tangent: T, partial: T) -> T {
    if tangent.is_zero() {
        T::zero()
    } else {
        tangent * partial
    }
}

/// Is every component of `x` finite: its value and, on dual numbers, every tangent? `x - x` is zero exactly
/// then (`inf - inf` and `NaN - NaN` are NaN), and a dual number's `is_zero` asks each component in turn.
#[inline(always)]
#[allow(clippy::eq_op)] // `x - x` on purpose: NaN exactly where `x` has a component that is not finite.
pub(crate) fn all_finite<T: Float>(x: T) -> bool {
    (x - x).is_zero()
}

impl<T: Float> From<T> for Dual<T> {
    /// A constant with tangent zero, as [`Dual::constant`].
    fn from(re: T) -> Self {
        Self::constant(re)
    }
}

/// `fn NAME() -> Self`, the constant `T::NAME()`, for each name.
macro_rules! float_constants {
    ($($name:ident),* $(,)?) => {$(
        fn $name() -> Self {
            Self::constant(T::$name())
        }
    )*};
}

pub(crate) use float_constants;

/// The traits every dual number type implements, on top of a few inherent methods of the type (its
/// `constant`, `chain`, `chain2`, `chain3`, `product`, `linear`, `combine` and `tangent_is_zero`, which alone touch
/// the tangent): [`Dual`] (one tangent) and `MultiDual` (several) share every derivative rule.
/// `$g` are the type's generic parameters, of which `T` is the float type.
macro_rules! dual_number_impls {
    ([$($g:tt)*] $Ty:ty) => {
                // ---------------------------------------------------------------------------------------------
        // Comparison: by value only.

        impl<$($g)*> PartialEq for $Ty where T: PartialEq {
            fn eq(&self, other: &Self) -> bool {
                self.re == other.re
            }
        }

        impl<$($g)*> PartialOrd for $Ty where T: PartialOrd {
            fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
                self.re.partial_cmp(&other.re)
            }
        }

        /// Compares the value with a plain number, so that `x > 0.0` works on a `Dual<f64>` (or another dual number of `f64`).
        impl<$($g)*> PartialEq<T> for $Ty where T: PartialEq {
            fn eq(&self, other: &T) -> bool {
                self.re == *other
            }
        }

        /// Orders the value against a plain number.
        impl<$($g)*> PartialOrd<T> for $Ty where T: PartialOrd {
            fn partial_cmp(&self, other: &T) -> Option<Ordering> {
                self.re.partial_cmp(other)
            }
        }

                // ---------------------------------------------------------------------------------------------
        // Arithmetic.

        impl<$($g)*> Neg for $Ty where T: Float {
            type Output = Self;

            fn neg(self) -> Self {
                self.linear(-self.re, |t| -t)
            }
        }

        impl<$($g)*> Add for $Ty where T: Float {
            type Output = Self;

            fn add(self, rhs: Self) -> Self {
                self.combine(rhs, self.re + rhs.re, |a, b| a + b)
            }
        }

        impl<$($g)*> Sub for $Ty where T: Float {
            type Output = Self;

            fn sub(self, rhs: Self) -> Self {
                self.combine(rhs, self.re - rhs.re, |a, b| a - b)
            }
        }

        impl<$($g)*> Mul for $Ty where T: Float {
            type Output = Self;

            fn mul(self, rhs: Self) -> Self {
                self.product(rhs)
            }
        }

        impl<$($g)*> Div for $Ty where T: Float {
            type Output = Self;

            fn div(self, rhs: Self) -> Self {
                let quotient = self.re / rhs.re;
                let inverse = rhs.re.recip();
                self.chain2(rhs, quotient, (inverse, -quotient * inverse))
            }
        }

        /// `x % y = x - trunc(x / y) y`, the remainder of `f64`'s `%`: slope 1 in `x`, `-trunc(x / y)` in `y`.
        impl<$($g)*> Rem for $Ty where T: Float {
            type Output = Self;

            fn rem(self, rhs: Self) -> Self {
                let quotient = (self.re / rhs.re).trunc();
                self.chain2(rhs, self.re % rhs.re, (T::one(), -quotient))
            }
        }


        impl<$($g)*> Sum for $Ty where T: Float {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self::zero(), Add::add)
            }
        }

        impl<'a, $($g)*> Sum<&'a $Ty> for $Ty where T: Float {
            fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
                iter.copied().sum()
            }
        }

        impl<$($g)*> Product for $Ty where T: Float {
            fn product<I: Iterator<Item = Self>>(iter: I) -> Self {
                iter.fold(Self::one(), Mul::mul)
            }
        }

        impl<'a, $($g)*> Product<&'a $Ty> for $Ty where T: Float {
            fn product<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
                iter.copied().product()
            }
        }

                // ---------------------------------------------------------------------------------------------
        // The numeric traits that `Float` builds on.

        /// `zero()` is the constant 0; `is_zero()` holds only for the additive identity itself, value and tangent
        /// both zero (unlike `==`, which compares values), so generic code that skips zeros keeps the tangents.
        impl<$($g)*> Zero for $Ty where T: Float {
            fn zero() -> Self {
                Self::constant(T::zero())
            }

            fn is_zero(&self) -> bool {
                self.re.is_zero() && self.tangent_is_zero()
            }
        }

        /// `one()` is the constant 1; `is_one()` holds only for value one with tangent zero.
        impl<$($g)*> One for $Ty where T: Float {
            fn one() -> Self {
                Self::constant(T::one())
            }

            fn is_one(&self) -> bool {
                self.re.is_one() && self.tangent_is_zero()
            }
        }

        /// Parses a constant.
        impl<$($g)*> Num for $Ty where T: Float {
            type FromStrRadixErr = T::FromStrRadixErr;

            fn from_str_radix(text: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
                T::from_str_radix(text, radix).map(Self::constant)
            }
        }

        /// Converts the value.
        impl<$($g)*> ToPrimitive for $Ty where T: ToPrimitive {
            fn to_i64(&self) -> Option<i64> {
                self.re.to_i64()
            }

            fn to_u64(&self) -> Option<u64> {
                self.re.to_u64()
            }

            fn to_i128(&self) -> Option<i128> {
                self.re.to_i128()
            }

            fn to_u128(&self) -> Option<u128> {
                self.re.to_u128()
            }

            fn to_f32(&self) -> Option<f32> {
                self.re.to_f32()
            }

            fn to_f64(&self) -> Option<f64> {
                self.re.to_f64()
            }
        }

        /// Builds a constant.
        impl<$($g)*> NumCast for $Ty where T: Float {
            fn from<P: ToPrimitive>(n: P) -> Option<Self> {
                <T as NumCast>::from(n).map(Self::constant)
            }
        }

        /// Builds a constant.
        impl<$($g)*> FromPrimitive for $Ty where T: Float + FromPrimitive {
            fn from_i64(n: i64) -> Option<Self> {
                T::from_i64(n).map(Self::constant)
            }

            fn from_u64(n: u64) -> Option<Self> {
                T::from_u64(n).map(Self::constant)
            }

            fn from_i128(n: i128) -> Option<Self> {
                T::from_i128(n).map(Self::constant)
            }

            fn from_u128(n: u128) -> Option<Self> {
                T::from_u128(n).map(Self::constant)
            }

            fn from_f32(n: f32) -> Option<Self> {
                T::from_f32(n).map(Self::constant)
            }

            fn from_f64(n: f64) -> Option<Self> {
                T::from_f64(n).map(Self::constant)
            }
        }

        /// The same operations as the `Float` methods of the same names.
        impl<$($g)*> num_traits::Signed for $Ty where T: Float {
            fn abs(&self) -> Self {
                Float::abs(*self)
            }

            fn abs_sub(&self, other: &Self) -> Self {
                Float::abs_sub(*self, *other)
            }

            fn signum(&self) -> Self {
                Float::signum(*self)
            }

            fn is_positive(&self) -> bool {
                self.re.is_sign_positive()
            }

            fn is_negative(&self) -> bool {
                self.re.is_sign_negative()
            }
        }

        /// The constants of `T`, with tangent zero.
        impl<$($g)*> FloatConst for $Ty where T: Float + FloatConst {
            $crate::dual::float_constants! {
                E, FRAC_1_PI, FRAC_1_SQRT_2, FRAC_2_PI, FRAC_2_SQRT_PI, FRAC_PI_2, FRAC_PI_3, FRAC_PI_4,
                FRAC_PI_6, FRAC_PI_8, LN_10, LN_2, LOG10_E, LOG2_E, PI, SQRT_2, TAU, LOG10_2, LOG2_10,
            }
        }

                // ---------------------------------------------------------------------------------------------
        // Float: every method with its derivative.

        impl<$($g)*> Float for $Ty where T: Float {
            fn nan() -> Self {
                Self::constant(T::nan())
            }

            fn infinity() -> Self {
                Self::constant(T::infinity())
            }

            fn neg_infinity() -> Self {
                Self::constant(T::neg_infinity())
            }

            fn neg_zero() -> Self {
                Self::constant(T::neg_zero())
            }

            fn min_value() -> Self {
                Self::constant(T::min_value())
            }

            fn min_positive_value() -> Self {
                Self::constant(T::min_positive_value())
            }

            fn epsilon() -> Self {
                Self::constant(T::epsilon())
            }

            fn max_value() -> Self {
                Self::constant(T::max_value())
            }

            fn is_nan(self) -> bool {
                self.re.is_nan()
            }

            fn is_infinite(self) -> bool {
                self.re.is_infinite()
            }

            fn is_finite(self) -> bool {
                self.re.is_finite()
            }

            fn is_normal(self) -> bool {
                self.re.is_normal()
            }

            fn is_subnormal(self) -> bool {
                self.re.is_subnormal()
            }

            fn classify(self) -> FpCategory {
                self.re.classify()
            }

            fn is_sign_positive(self) -> bool {
                self.re.is_sign_positive()
            }

            fn is_sign_negative(self) -> bool {
                self.re.is_sign_negative()
            }

            fn integer_decode(self) -> (u64, i16, i8) {
                self.re.integer_decode()
            }

            // Piecewise constant: slope 0, also at the jumps.

            fn floor(self) -> Self {
                Self::constant(self.re.floor())
            }

            fn ceil(self) -> Self {
                Self::constant(self.re.ceil())
            }

            fn round(self) -> Self {
                Self::constant(self.re.round())
            }

            fn trunc(self) -> Self {
                Self::constant(self.re.trunc())
            }

            fn signum(self) -> Self {
                Self::constant(self.re.signum())
            }

            /// `x - trunc(x)`: slope 1.
            fn fract(self) -> Self {
                self.linear(self.re.fract(), |t| t)
            }

            fn abs(self) -> Self {
                self.chain(self.re.abs(), rules::abs(self.re))
            }

            /// `|x|` with the sign of `sign`: slope ±1 in `x`, 0 in `sign`.
            fn copysign(self, sign: Self) -> Self {
                if self.re.is_sign_negative() == sign.re.is_sign_negative() {
                    self
                } else {
                    -self
                }
            }

            /// `max(x - y, 0)`, with `max`'s convention at a tie.
            fn abs_sub(self, other: Self) -> Self {
                let difference = self - other;
                let (d_difference, _) = rules::max(difference.re, T::zero());
                difference.chain(self.re.abs_sub(other.re), d_difference)
            }

            fn max(self, other: Self) -> Self {
                let partials = rules::max(self.re, other.re);
                self.chain2(other, self.re.max(other.re), partials)
            }

            fn min(self, other: Self) -> Self {
                let partials = rules::min(self.re, other.re);
                self.chain2(other, self.re.min(other.re), partials)
            }

            fn clamp(self, lo: Self, hi: Self) -> Self {
                let (d_self, d_lo, d_hi) = rules::clamp(self.re, lo.re, hi.re);
                self.chain3(lo, hi, self.re.clamp(lo.re, hi.re), (d_self, d_lo, d_hi))
            }

            fn mul_add(self, a: Self, b: Self) -> Self {
                self.chain3(a, b, self.re.mul_add(a.re, b.re), (a.re, self.re, T::one()))
            }

            fn recip(self) -> Self {
                let inverse = self.re.recip();
                self.chain(inverse, rules::recip(inverse))
            }

            fn powi(self, n: i32) -> Self {
                self.chain(self.re.powi(n), rules::powi(self.re, n))
            }

            fn powf(self, n: Self) -> Self {
                let power = self.re.powf(n.re);
                self.chain2(n, power, rules::powf(self.re, n.re, power))
            }

            fn sqrt(self) -> Self {
                let root = self.re.sqrt();
                // `rules::sqrt` gives the root of -0.0 (which is -0.0) the slope +inf too.
                self.chain(root, rules::sqrt(root))
            }

            fn cbrt(self) -> Self {
                let root = self.re.cbrt();
                self.chain(root, rules::cbrt(root))
            }

            fn exp(self) -> Self {
                let power = self.re.exp();
                self.chain(power, power)
            }

            fn exp2(self) -> Self {
                let power = self.re.exp2();
                self.chain(power, rules::exp2(power))
            }

            fn exp_m1(self) -> Self {
                self.chain(self.re.exp_m1(), self.re.exp())
            }

            fn ln(self) -> Self {
                self.chain(self.re.ln(), self.re.recip())
            }

            fn log(self, base: Self) -> Self {
                self.chain2(base, self.re.log(base.re), rules::log(self.re, base.re))
            }

            fn log2(self) -> Self {
                self.chain(self.re.log2(), rules::log2(self.re))
            }

            fn log10(self) -> Self {
                self.chain(self.re.log10(), rules::log10(self.re))
            }

            fn ln_1p(self) -> Self {
                self.chain(self.re.ln_1p(), rules::ln_1p(self.re))
            }

            // Linear maps: the tangent goes through the same map.

            fn to_degrees(self) -> Self {
                self.linear(self.re.to_degrees(), T::to_degrees)
            }

            fn to_radians(self) -> Self {
                self.linear(self.re.to_radians(), T::to_radians)
            }

            fn hypot(self, other: Self) -> Self {
                let length = self.re.hypot(other.re);
                self.chain2(other, length, rules::hypot(self.re, other.re, length))
            }

            fn sin(self) -> Self {
                self.sin_cos().0
            }

            fn cos(self) -> Self {
                self.sin_cos().1
            }

            fn sin_cos(self) -> (Self, Self) {
                let (sin, cos) = self.re.sin_cos();
                (self.chain(sin, cos), self.chain(cos, -sin))
            }

            fn tan(self) -> Self {
                let tan = self.re.tan();
                self.chain(tan, rules::tan(tan))
            }

            fn asin(self) -> Self {
                self.chain(self.re.asin(), rules::asin(self.re))
            }

            fn acos(self) -> Self {
                self.chain(self.re.acos(), rules::acos(self.re))
            }

            fn atan(self) -> Self {
                self.chain(self.re.atan(), rules::atan(self.re))
            }

            fn atan2(self, other: Self) -> Self {
                self.chain2(
                    other,
                    self.re.atan2(other.re),
                    rules::atan2(self.re, other.re),
                )
            }

            fn sinh(self) -> Self {
                self.chain(self.re.sinh(), self.re.cosh())
            }

            fn cosh(self) -> Self {
                self.chain(self.re.cosh(), self.re.sinh())
            }

            fn tanh(self) -> Self {
                let tanh = self.re.tanh();
                self.chain(tanh, rules::tanh(tanh))
            }

            fn asinh(self) -> Self {
                self.chain(self.re.asinh(), rules::asinh(self.re))
            }

            fn acosh(self) -> Self {
                self.chain(self.re.acosh(), rules::acosh(self.re))
            }

            fn atanh(self) -> Self {
                self.chain(self.re.atanh(), rules::atanh(self.re))
            }
        }

    };
}

pub(crate) use dual_number_impls;

/// For each operator: the compound assignment, the form with a plain number on the right
/// (`Dual<T> * T`, `x *= 2.0`) and, for `f32` and `f64`, the form with a plain number on the left
/// (`2.0 * x`). A plain number acts as a constant dual. `$g` are the type's generic parameters, `$lg`
/// those of its `f32` and `f64` forms.
macro_rules! mixed_operators {
    ([$($g:tt)*] $Ty:ty, [$($lg:tt)*] $F32:ty, $F64:ty) => {
        mixed_operators!(@one [$($g)*] $Ty, [$($lg)*] $F32, $F64; Add add AddAssign add_assign);
        mixed_operators!(@one [$($g)*] $Ty, [$($lg)*] $F32, $F64; Sub sub SubAssign sub_assign);
        mixed_operators!(@one [$($g)*] $Ty, [$($lg)*] $F32, $F64; Mul mul MulAssign mul_assign);
        mixed_operators!(@one [$($g)*] $Ty, [$($lg)*] $F32, $F64; Div div DivAssign div_assign);
        mixed_operators!(@one [$($g)*] $Ty, [$($lg)*] $F32, $F64; Rem rem RemAssign rem_assign);
    };
    (@one [$($g:tt)*] $Ty:ty, [$($lg:tt)*] $F32:ty, $F64:ty;
        $Op:ident $op:ident $OpAssign:ident $op_assign:ident) => {
        impl<$($g)*> $OpAssign for $Ty where T: Float {
            fn $op_assign(&mut self, rhs: Self) {
                *self = $Op::$op(*self, rhs);
            }
        }

        impl<$($g)*> $Op<T> for $Ty where T: Float {
            type Output = Self;

            fn $op(self, rhs: T) -> Self {
                $Op::$op(self, Self::constant(rhs))
            }
        }

        impl<$($g)*> $OpAssign<T> for $Ty where T: Float {
            fn $op_assign(&mut self, rhs: T) {
                *self = $Op::$op(*self, Self::constant(rhs));
            }
        }

        mixed_operators!(@left [$($lg)*] $Op $op f32, $F32);
        mixed_operators!(@left [$($lg)*] $Op $op f64, $F64);
    };
    (@left [$($lg:tt)*] $Op:ident $op:ident $float:ty, $Dual:ty) => {
        impl<$($lg)*> $Op<$Dual> for $float {
            type Output = $Dual;

            fn $op(self, rhs: $Dual) -> $Dual {
                $Op::$op(<$Dual>::constant(self), rhs)
            }
        }
    };
}

pub(crate) use mixed_operators;

dual_number_impls!([T] Dual<T>);
mixed_operators!([T] Dual<T>, [] Dual<f32>, Dual<f64>);

// -------------------------------------------------------------------------------------------------
// Display.

/// Writes `re + epsε`, for example `1.5 + 2ε` or `1.5 - 2ε`; a precision (`{:.3}`) applies to both parts.
/// The parts of a nested dual are parenthesized: `(1 + 1ε) + (1 + 0ε)ε`.
impl<T: fmt::Display> fmt::Display for Dual<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = |x: &T| {
            let text = match f.precision() {
                Some(precision) => format!("{x:.precision$}"),
                None => format!("{x}"),
            };
            // A part with a space in it is itself a sum.
            if text.contains(' ') {
                format!("({text})")
            } else {
                text
            }
        };
        let (re, eps) = (part(&self.re), part(&self.eps));
        match eps.strip_prefix('-') {
            Some(magnitude) => write!(f, "{re} - {magnitude}ε"),
            None => write!(f, "{re} + {eps}ε"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check_gradient;
    use core::ops::Range;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    type D = Dual<f64>;
    type DD = Dual<Dual<f64>>;
    type M3 = crate::multi_dual::MultiDual<f64, 3>;

    /// The seeds of the three lanes of a `MultiDual` test: a unit, a zero and another scale.
    const LANES_X: [f64; 3] = [1.0, 0.0, -2.5];
    const LANES_Y: [f64; 3] = [0.0, 1.0, 0.75];

    /// What the catalogue's functions are written against: `Float` and the operators that `f64` and
    /// `Dual` have beyond it.
    trait TestFloat:
        Float + Sum + Product + AddAssign + SubAssign + MulAssign + DivAssign + RemAssign
    {
    }

    impl<T: Float + Sum + Product + AddAssign + SubAssign + MulAssign + DivAssign + RemAssign>
        TestFloat for T
    {
    }

    /// A numeric constant inside a generic test function.
    fn c<T: Float>(value: f64) -> T {
        <T as NumCast>::from(value).unwrap()
    }

    /// `a` and `b` agree to `tol`, relative to `max(1, |a|, |b|)`.
    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * 1.0_f64.max(a.abs()).max(b.abs())
    }

    /// `x` seeded for a second derivative along `first` (inner tangent) and `second` (outer tangent).
    fn seed2(x: f64, first: f64, second: f64) -> DD {
        Dual::new(Dual::new(x, first), Dual::constant(second))
    }

    fn always(_: f64) -> bool {
        true
    }

    fn always2(_: f64, _: f64) -> bool {
        true
    }

    /// `x` at least `margin` away from every multiple of `step`, where a piecewise function jumps.
    fn away_from_multiples(x: f64, step: f64, margin: f64) -> bool {
        let r = (x / step).rem_euclid(1.0);
        r > margin && r < 1.0 - margin
    }

    /// A function of one argument written once for any `T: Float`, with its derivative.
    struct Unary {
        name: &'static str,
        value: fn(f64) -> f64,
        first: fn(D) -> D,
        second: fn(DD) -> DD,
        lanes: fn(M3) -> M3,
        derivative: fn(f64) -> f64,
        domain: Range<f64>,
        /// Whether the function is smooth around `x`, so that a finite difference there is meaningful.
        smooth_at: fn(f64) -> bool,
    }

    macro_rules! unary {
        ($name:literal, |$x:ident| $body:expr, $derivative:expr, $domain:expr) => {
            unary!($name, |$x| $body, $derivative, $domain, always)
        };
        ($name:literal, |$x:ident| $body:expr, $derivative:expr, $domain:expr, $smooth:expr) => {{
            fn function<T: TestFloat>($x: T) -> T {
                $body
            }
            Unary {
                name: $name,
                value: function::<f64>,
                first: function::<D>,
                second: function::<DD>,
                lanes: function::<M3>,
                derivative: $derivative,
                domain: $domain,
                smooth_at: $smooth,
            }
        }};
    }

    fn unary_catalogue() -> Vec<Unary> {
        vec![
            unary!("neg", |x| -x, |_| -1.0, -5.0..5.0),
            unary!("recip", |x| x.recip(), |x| -1.0 / (x * x), 0.2..5.0),
            unary!("recip<0", |x| x.recip(), |x| -1.0 / (x * x), -5.0..-0.2),
            unary!("sqrt", |x| x.sqrt(), |x| 0.5 / x.sqrt(), 0.05..10.0),
            unary!(
                "cbrt",
                |x| x.cbrt(),
                |x| 1.0 / (3.0 * x.cbrt().powi(2)),
                -10.0..-0.05
            ),
            unary!(
                "cbrt>0",
                |x| x.cbrt(),
                |x| 1.0 / (3.0 * x.cbrt().powi(2)),
                0.05..10.0
            ),
            unary!("exp", |x| x.exp(), f64::exp, -5.0..5.0),
            unary!(
                "exp2",
                |x| x.exp2(),
                |x| x.exp2() * std::f64::consts::LN_2,
                -5.0..5.0
            ),
            unary!("exp_m1", |x| x.exp_m1(), f64::exp, -5.0..5.0),
            unary!("ln", |x| x.ln(), |x| 1.0 / x, 0.05..10.0),
            unary!(
                "log2",
                |x| x.log2(),
                |x| 1.0 / (x * std::f64::consts::LN_2),
                0.05..10.0
            ),
            unary!(
                "log10",
                |x| x.log10(),
                |x| 1.0 / (x * std::f64::consts::LN_10),
                0.05..10.0
            ),
            unary!(
                "log base 3",
                |x| x.log(c(3.0)),
                |x| 1.0 / (x * 3f64.ln()),
                0.05..10.0
            ),
            unary!("ln_1p", |x| x.ln_1p(), |x| 1.0 / (1.0 + x), -0.9..10.0),
            unary!("sin", |x| x.sin(), f64::cos, -6.0..6.0),
            unary!("cos", |x| x.cos(), |x| -x.sin(), -6.0..6.0),
            unary!("sin_cos.0", |x| x.sin_cos().0, f64::cos, -6.0..6.0),
            unary!("sin_cos.1", |x| x.sin_cos().1, |x| -x.sin(), -6.0..6.0),
            unary!("tan", |x| x.tan(), |x| 1.0 / x.cos().powi(2), -1.4..1.4),
            unary!(
                "asin",
                |x| x.asin(),
                |x| 1.0 / (1.0 - x * x).sqrt(),
                -0.95..0.95
            ),
            unary!(
                "acos",
                |x| x.acos(),
                |x| -1.0 / (1.0 - x * x).sqrt(),
                -0.95..0.95
            ),
            unary!("atan", |x| x.atan(), |x| 1.0 / (1.0 + x * x), -10.0..10.0),
            unary!("sinh", |x| x.sinh(), f64::cosh, -5.0..5.0),
            unary!("cosh", |x| x.cosh(), f64::sinh, -5.0..5.0),
            unary!("tanh", |x| x.tanh(), |x| 1.0 / x.cosh().powi(2), -5.0..5.0),
            unary!(
                "asinh",
                |x| x.asinh(),
                |x| 1.0 / (x * x + 1.0).sqrt(),
                -10.0..10.0
            ),
            unary!(
                "acosh",
                |x| x.acosh(),
                |x| 1.0 / (x * x - 1.0).sqrt(),
                1.05..10.0
            ),
            unary!("atanh", |x| x.atanh(), |x| 1.0 / (1.0 - x * x), -0.95..0.95),
            unary!("abs", |x| x.abs(), f64::signum, -5.0..5.0, |x| x.abs()
                > 1e-3),
            unary!("signum", |x| x.signum(), |_| 0.0, -5.0..5.0, |x| x.abs()
                > 1e-3),
            unary!("floor", |x| x.floor(), |_| 0.0, -5.0..5.0, |x| {
                away_from_multiples(x, 1.0, 1e-3)
            }),
            unary!("ceil", |x| x.ceil(), |_| 0.0, -5.0..5.0, |x| {
                away_from_multiples(x, 1.0, 1e-3)
            }),
            unary!("round", |x| x.round(), |_| 0.0, -5.0..5.0, |x| {
                away_from_multiples(x + 0.5, 1.0, 1e-3)
            }),
            unary!("trunc", |x| x.trunc(), |_| 0.0, -5.0..5.0, |x| {
                away_from_multiples(x, 1.0, 1e-3)
            }),
            unary!("fract", |x| x.fract(), |_| 1.0, -5.0..5.0, |x| {
                away_from_multiples(x, 1.0, 1e-3)
            }),
            unary!(
                "to_degrees",
                |x| x.to_degrees(),
                |_| 180.0 / std::f64::consts::PI,
                -5.0..5.0
            ),
            unary!(
                "to_radians",
                |x| x.to_radians(),
                |_| std::f64::consts::PI / 180.0,
                -500.0..500.0
            ),
            unary!("powi 0", |x| x.powi(0), |_| 0.0, -5.0..5.0),
            unary!("powi 1", |x| x.powi(1), |_| 1.0, -5.0..5.0),
            unary!("powi 2", |x| x.powi(2), |x| 2.0 * x, -5.0..5.0),
            unary!("powi 5", |x| x.powi(5), |x| 5.0 * x.powi(4), -3.0..3.0),
            unary!("powi -3", |x| x.powi(-3), |x| -3.0 * x.powi(-4), 0.3..5.0),
            unary!(
                "powf 2.5",
                |x| x.powf(c(2.5)),
                |x| 2.5 * x.powf(1.5),
                0.05..5.0
            ),
            unary!(
                "powf 2 at x < 0",
                |x| x.powf(c(2.0)),
                |x| 2.0 * x,
                -5.0..-0.05
            ),
            unary!(
                "exponential powf",
                |x| c::<T>(1.7).powf(x),
                |x| 1.7f64.ln() * 1.7f64.powf(x),
                -5.0..5.0
            ),
            unary!(
                "clamp",
                |x| x.clamp(c(-1.0), c(2.0)),
                |x| if (-1.0..=2.0).contains(&x) { 1.0 } else { 0.0 },
                -4.0..4.0,
                |x| (x + 1.0).abs() > 1e-3 && (x - 2.0).abs() > 1e-3
            ),
            unary!(
                "max constant",
                |x| x.max(c(0.5)),
                |x| if x > 0.5 { 1.0 } else { 0.0 },
                -4.0..4.0,
                |x| (x - 0.5).abs() > 1e-3
            ),
            unary!(
                "min constant",
                |x| x.min(c(0.5)),
                |x| if x < 0.5 { 1.0 } else { 0.0 },
                -4.0..4.0,
                |x| (x - 0.5).abs() > 1e-3
            ),
            unary!(
                "copysign",
                |x| c::<T>(-2.0).copysign(x) * x.copysign(c(-1.0)),
                |_| -2.0,
                -4.0..4.0,
                |x| x.abs() > 1e-3
            ),
            unary!(
                "abs_sub",
                |x| x.abs_sub(c(1.0)),
                |x| if x > 1.0 { 1.0 } else { 0.0 },
                -4.0..4.0,
                |x| (x - 1.0).abs() > 1e-3
            ),
            unary!("rem", |x| x % c(1.5), |_| 1.0, -5.0..5.0, |x| {
                away_from_multiples(x, 1.5, 1e-3)
            }),
            unary!(
                "rem divisor",
                |x| c::<T>(5.0) % x,
                |x| -(5.0 / x).trunc(),
                0.3..4.0,
                |x| away_from_multiples(5.0 / x, 1.0, 1e-3)
            ),
            unary!(
                "sum",
                |x| [x, x * x, c(3.0)].into_iter().sum(),
                |x| 1.0 + 2.0 * x,
                -5.0..5.0
            ),
            unary!(
                "product",
                |x| [x, x.sin(), c(3.0)].into_iter().product(),
                |x| 3.0 * (x.sin() + x * x.cos()),
                -5.0..5.0
            ),
            unary!(
                "assign operators",
                |x| {
                    let mut y = x;
                    y += x * x;
                    y -= c(1.0);
                    y *= x;
                    y /= c(2.0);
                    y %= c(100.0);
                    y
                },
                |x| (2.0 * x + 3.0 * x * x - 1.0) / 2.0,
                -5.0..5.0
            ),
        ]
    }

    /// A function of two arguments written once for any `T: Float`, with its two partials.
    struct Binary {
        name: &'static str,
        value: fn(f64, f64) -> f64,
        first: fn(D, D) -> D,
        second: fn(DD, DD) -> DD,
        lanes: fn(M3, M3) -> M3,
        partials: fn(f64, f64) -> (f64, f64),
        domain: [Range<f64>; 2],
        smooth_at: fn(f64, f64) -> bool,
    }

    macro_rules! binary {
        (
            $name:literal, |$x:ident, $y:ident| $body:expr, $partials:expr,
            $x_domain:expr, $y_domain:expr
        ) => {
            binary!(
                $name,
                |$x, $y| $body,
                $partials,
                $x_domain,
                $y_domain,
                always2
            )
        };
        (
            $name:literal, |$x:ident, $y:ident| $body:expr, $partials:expr,
            $x_domain:expr, $y_domain:expr, $smooth:expr
        ) => {{
            fn function<T: TestFloat>($x: T, $y: T) -> T {
                $body
            }
            Binary {
                name: $name,
                value: function::<f64>,
                first: function::<D>,
                second: function::<DD>,
                lanes: function::<M3>,
                partials: $partials,
                domain: [$x_domain, $y_domain],
                smooth_at: $smooth,
            }
        }};
    }

    fn binary_catalogue() -> Vec<Binary> {
        vec![
            binary!("add", |x, y| x + y, |_, _| (1.0, 1.0), -5.0..5.0, -5.0..5.0),
            binary!(
                "sub",
                |x, y| x - y,
                |_, _| (1.0, -1.0),
                -5.0..5.0,
                -5.0..5.0
            ),
            binary!("mul", |x, y| x * y, |x, y| (y, x), -5.0..5.0, -5.0..5.0),
            binary!(
                "div",
                |x, y| x / y,
                |x, y| (1.0 / y, -x / (y * y)),
                -5.0..5.0,
                0.3..5.0
            ),
            binary!(
                "rem",
                |x, y| x % y,
                |x, y| (1.0, -(x / y).trunc()),
                -5.0..5.0,
                0.3..3.0,
                |x, y| away_from_multiples(x / y, 1.0, 1e-3)
            ),
            binary!(
                "powf",
                |x, y| x.powf(y),
                |x, y| (y * x.powf(y - 1.0), x.ln() * x.powf(y)),
                0.1..4.0,
                -2.5..2.5
            ),
            binary!(
                "log",
                |x, y| x.log(y),
                |x, y| (1.0 / (x * y.ln()), -x.ln() / (y * y.ln().powi(2))),
                0.1..10.0,
                1.5..10.0
            ),
            binary!(
                "atan2",
                |x, y| x.atan2(y),
                |x, y| (y / (x * x + y * y), -x / (x * x + y * y)),
                -3.0..3.0,
                -3.0..3.0,
                |x, y| x.hypot(y) > 0.1 && (y > 0.0 || x.abs() > 1e-3)
            ),
            binary!(
                "hypot",
                |x, y| x.hypot(y),
                |x, y| (x / x.hypot(y), y / x.hypot(y)),
                -3.0..3.0,
                -3.0..3.0,
                |x, y| x.hypot(y) > 0.1
            ),
            binary!(
                "max",
                |x, y| x.max(y),
                |x, y| if x > y { (1.0, 0.0) } else { (0.0, 1.0) },
                -3.0..3.0,
                -3.0..3.0,
                |x, y| (x - y).abs() > 1e-3
            ),
            binary!(
                "min",
                |x, y| x.min(y),
                |x, y| if x < y { (1.0, 0.0) } else { (0.0, 1.0) },
                -3.0..3.0,
                -3.0..3.0,
                |x, y| (x - y).abs() > 1e-3
            ),
            binary!(
                "abs_sub",
                |x, y| x.abs_sub(y),
                |x, y| if x > y { (1.0, -1.0) } else { (0.0, 0.0) },
                -3.0..3.0,
                -3.0..3.0,
                |x, y| (x - y).abs() > 1e-3
            ),
            binary!(
                "clamp bounds",
                |x, y| c::<T>(0.5).clamp(x, y),
                |x, y| if 0.5 < x {
                    (1.0, 0.0)
                } else if 0.5 > y {
                    (0.0, 1.0)
                } else {
                    (0.0, 0.0)
                },
                -1.0..1.0,
                1.0..2.0,
                |x, _| (x - 0.5).abs() > 1e-3
            ),
            binary!(
                "clamp bounds above",
                |x, y| c::<T>(1.5).clamp(x, y),
                |x, y| if 1.5 < x {
                    (1.0, 0.0)
                } else if 1.5 > y {
                    (0.0, 1.0)
                } else {
                    (0.0, 0.0)
                },
                -1.0..1.0,
                1.0..2.0,
                |_, y| (y - 1.5).abs() > 1e-3
            ),
            binary!(
                "mul_add self, a",
                |x, y| x.mul_add(y, c(0.7)),
                |x, y| (y, x),
                -3.0..3.0,
                -3.0..3.0
            ),
            binary!(
                "mul_add a, b",
                |x, y| c::<T>(1.3).mul_add(x, y),
                |_, _| (1.3, 1.0),
                -3.0..3.0,
                -3.0..3.0
            ),
            binary!(
                "composite",
                |x, y| (x * y).sin() * (x - y).exp() / (c::<T>(1.0) + x * x),
                |x, y| {
                    let (s, e, q) = ((x * y).sin(), (x - y).exp(), 1.0 + x * x);
                    let dx = (y * (x * y).cos() * e + s * e) / q - s * e * 2.0 * x / (q * q);
                    let dy = (x * (x * y).cos() * e - s * e) / q;
                    (dx, dy)
                },
                -2.0..2.0,
                -2.0..2.0
            ),
        ]
    }

    fn point_in(domain: &Range<f64>, u: f64) -> f64 {
        domain.start + (domain.end - domain.start) * u
    }

    fn uniforms(n: usize) -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec(0.0..1.0_f64, n)
    }

    /// A lane of a `MultiDual` against the `Dual` of its seed: the same bits, or both zero. `MultiDual`'s
    /// product leaves out the tests of its lanes where its value is finite, so a zero tangent times a
    /// negative value is `-0.0` there where `Dual`'s test gives `+0.0`; every other bit agrees.
    fn same_lane(lane: f64, one: f64) -> bool {
        lane.to_bits() == one.to_bits() || (lane == 0.0 && one == 0.0)
    }

    /// Checks one unary catalogue entry at `x`: the value; the tangent against the analytic derivative
    /// and a central difference of the function; the nested dual's first derivatives against the
    /// analytic one, and its second derivative against a central difference of the analytic derivative.
    fn check_unary(entry: &Unary, x: f64) -> Result<(), TestCaseError> {
        let (name, value, derivative) = (entry.name, (entry.value)(x), (entry.derivative)(x));

        // Each lane of a `MultiDual` is what `Dual` gives for that lane's seed, bit for bit but for the
        // sign of a zero (`same_lane`).
        let lanes = (entry.lanes)(M3::new(x, LANES_X));
        prop_assert_eq!(
            lanes.re.to_bits(),
            (entry.first)(Dual::variable(x)).re.to_bits()
        );
        for (j, seed) in LANES_X.into_iter().enumerate() {
            let one = (entry.first)(Dual::new(x, seed)).eps;
            prop_assert!(
                same_lane(lanes.eps[j], one),
                "{name} lane {j} at {x}: {} vs {one}",
                lanes.eps[j]
            );
        }

        let y = (entry.first)(Dual::variable(x));
        // Not bit for bit: the optimizer may rewrite the plain `f64` version (`x.powf(2.0)` to `x * x`).
        prop_assert!(
            close(y.re, value, 1e-15),
            "{name} at {x}: {} vs {value}",
            y.re
        );
        prop_assert!(
            close(y.eps, derivative, 1e-10),
            "{name}' at {x}: {} vs {derivative}",
            y.eps
        );
        let check = check_gradient(|v| (entry.value)(v[0]), &[x], &[y.eps]);
        prop_assert!(check.is_ok(1e-6), "{name}' at {x}: {check}");

        let y = (entry.second)(seed2(x, 1.0, 1.0));
        prop_assert!(close(y.re.re, value, 1e-15), "nested {name} at {x}");
        prop_assert!(close(y.re.eps, derivative, 1e-10), "nested {name}' at {x}");
        prop_assert!(close(y.eps.re, derivative, 1e-10), "nested {name}' at {x}");
        let check = check_gradient(|v| (entry.derivative)(v[0]), &[x], &[y.eps.eps]);
        prop_assert!(check.is_ok(1e-6), "{name}'' at {x}: {check}");
        Ok(())
    }

    /// Checks one binary catalogue entry at `(x, y)` as [`check_unary`] does, for both partials and the
    /// full Hessian.
    fn check_binary(entry: &Binary, x: f64, y: f64) -> Result<(), TestCaseError> {
        let name = entry.name;
        let (dx, dy) = (entry.partials)(x, y);
        let along_x = (entry.first)(Dual::variable(x), Dual::constant(y));
        let along_y = (entry.first)(Dual::constant(x), Dual::variable(y));
        let lanes = (entry.lanes)(M3::new(x, LANES_X), M3::new(y, LANES_Y));
        for j in 0..3 {
            let one = (entry.first)(Dual::new(x, LANES_X[j]), Dual::new(y, LANES_Y[j])).eps;
            prop_assert!(
                same_lane(lanes.eps[j], one),
                "{name} lane {j} at ({x}, {y}): {} vs {one}",
                lanes.eps[j]
            );
        }
        prop_assert!(close(along_x.re, (entry.value)(x, y), 1e-15), "{name}");
        prop_assert!(
            close(along_x.eps, dx, 1e-10),
            "{name} x-partial at ({x}, {y}): {}",
            along_x.eps
        );
        prop_assert!(
            close(along_y.eps, dy, 1e-10),
            "{name} y-partial at ({x}, {y}): {}",
            along_y.eps
        );
        let gradient = [along_x.eps, along_y.eps];
        let check = check_gradient(|v| (entry.value)(v[0], v[1]), &[x, y], &gradient);
        prop_assert!(check.is_ok(1e-6), "{name} at ({x}, {y}): {check}");

        // hessian[i][j]: the inner tangent seeded along input i, the outer along input j.
        let hessian = |i: usize, j: usize| {
            let unit = |a: usize, b: usize| if a == b { 1.0 } else { 0.0 };
            let (x, y) = (
                seed2(x, unit(i, 0), unit(j, 0)),
                seed2(y, unit(i, 1), unit(j, 1)),
            );
            (entry.second)(x, y).eps.eps
        };
        let rows = [
            [hessian(0, 0), hessian(0, 1)],
            [hessian(1, 0), hessian(1, 1)],
        ];
        prop_assert!(
            close(rows[0][1], rows[1][0], 1e-10),
            "{name} Hessian: {rows:?}"
        );
        for (i, row) in rows.iter().enumerate() {
            let partial = |v: &[f64]| <[f64; 2]>::from((entry.partials)(v[0], v[1]))[i];
            let check = check_gradient(partial, &[x, y], row);
            prop_assert!(
                check.is_ok(1e-6),
                "{name} Hessian row {i} at ({x}, {y}): {check}"
            );
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn unary_derivatives_are_exact(u in uniforms(unary_catalogue().len())) {
            for (entry, &u) in unary_catalogue().iter().zip(&u) {
                let x = point_in(&entry.domain, u);
                if (entry.smooth_at)(x) {
                    check_unary(entry, x)?;
                }
            }
        }

        #[test]
        fn binary_derivatives_are_exact(u in uniforms(2 * binary_catalogue().len())) {
            for (entry, u) in binary_catalogue().iter().zip(u.chunks(2)) {
                let (x, y) = (point_in(&entry.domain[0], u[0]), point_in(&entry.domain[1], u[1]));
                if (entry.smooth_at)(x, y) {
                    check_binary(entry, x, y)?;
                }
            }
        }

        /// `powi` for every small exponent, also negative, with its second derivative `n (n - 1) x^(n-2)`.
        #[test]
        fn powi_matches_its_derivatives(
            n in -6..7_i32,
            x in prop_oneof![-3.0..-0.2_f64, 0.2..3.0_f64],
        ) {
            let y: DD = seed2(x, 1.0, 1.0).powi(n);
            let nf = n as f64;
            prop_assert!(close(y.re.re, x.powi(n), 1e-15));
            prop_assert!(close(y.re.eps, nf * x.powi(n - 1), 1e-12));
            prop_assert!(close(y.eps.eps, nf * (nf - 1.0) * x.powi(n - 2), 1e-12));
        }

        /// Second derivatives against their closed forms.
        #[test]
        fn nested_duals_give_second_derivatives(x in 0.05..4.0_f64) {
            let second = |f: fn(DD) -> DD| f(seed2(x, 1.0, 1.0)).eps.eps;
            prop_assert!(close(second(|x| x.sin()), -x.sin(), 1e-12));
            let expected = x.exp() * (x.powi(3) + 6.0 * x * x + 6.0 * x);
            prop_assert!(close(second(|x| x.exp() * x.powi(3)), expected, 1e-12));
            prop_assert!(close(second(|x| x.powf(c(2.5))), 2.5 * 1.5 * x.sqrt(), 1e-12));
            prop_assert!(close(second(|x| x.sqrt()), -0.25 * x.powf(-1.5), 1e-12));
            prop_assert!(close(second(|x| x.ln()), -1.0 / (x * x), 1e-12));
            prop_assert!(close(second(|x| x.atan()), -2.0 * x / (1.0 + x * x).powi(2), 1e-12));
        }

        /// Three levels of nesting give the third derivative.
        #[test]
        fn triple_nesting_gives_third_derivatives(x in -3.0..3.0_f64) {
            let seed: Dual<DD> = Dual::new(seed2(x, 1.0, 1.0), Dual::constant(Dual::constant(1.0)));
            let y = (seed * seed.sin()).exp();
            // Compare with a central difference of the nested second derivative.
            let second = |x: f64| {
                let x = seed2(x, 1.0, 1.0);
                (x * x.sin()).exp().eps.eps
            };
            let check = check_gradient(|v| second(v[0]), &[x], &[y.eps.eps.eps]);
            prop_assert!(check.is_ok(1e-6), "{}", check);
        }
    }

    #[test]
    fn jax_conventions_at_non_differentiable_points() {
        let at_zero = D::variable(0.0);
        let tangent = |y: D| y.eps;
        assert_eq!(tangent(at_zero.abs()), 1.0);
        assert_eq!(
            tangent(D::variable(-0.0).abs()),
            -1.0,
            "the sign bit, as Enzyme"
        );
        assert_eq!(tangent(at_zero.max(D::constant(0.0))), 0.5);
        assert_eq!(tangent(at_zero.min(D::constant(0.0))), 0.5);
        assert_eq!(tangent(D::constant(0.0).max(at_zero)), 0.5);
        assert_eq!(tangent(at_zero.max(at_zero)), 1.0);
        assert_eq!(
            tangent(at_zero.clamp(D::constant(0.0), D::constant(1.0))),
            0.5
        );
        assert_eq!(
            tangent(D::variable(1.0).clamp(D::constant(0.0), D::constant(1.0))),
            0.5
        );
        assert_eq!(tangent(at_zero.abs_sub(D::constant(0.0))), 0.5);
        assert_eq!(tangent(at_zero.sqrt()), f64::INFINITY);
        assert_eq!(tangent(D::variable(-0.0).sqrt()), f64::INFINITY);
        assert_eq!(tangent(at_zero.cbrt()), f64::INFINITY);
        assert_eq!(tangent(at_zero.powi(0)), 0.0);
        assert_eq!(tangent(D::variable(3.0).powi(0)), 0.0);
        assert_eq!(tangent(at_zero.powi(1)), 1.0);
        assert_eq!(tangent(at_zero.powi(2)), 0.0);
        // x^y: the x-partial is 0 where y = 0, the y-partial is 0 where x = 0.
        assert_eq!(tangent(at_zero.powf(D::constant(0.0))), 0.0);
        assert_eq!(tangent(D::variable(2.0).powf(D::constant(0.0))), 0.0);
        assert_eq!(tangent(D::constant(0.0).powf(D::variable(2.0))), 0.0);
        assert_eq!(tangent(D::constant(2.0).powf(D::variable(0.0))), 2f64.ln());
        assert_eq!(tangent(at_zero.powf(D::constant(2.0))), 0.0);
        for x in [-1.5, -1.0, -0.0, 0.0, 0.5, 2.0] {
            let x = D::variable(x);
            for y in [x.floor(), x.ceil(), x.round(), x.trunc(), x.signum()] {
                assert_eq!(y.eps, 0.0, "at {}", x.re);
            }
        }
    }

    #[test]
    fn a_zero_tangent_stays_zero_where_the_slope_is_infinite() {
        let zero = D::constant(0.0);
        for y in [
            zero.sqrt(),
            zero.ln(),
            zero.recip(),
            zero.powi(-2),
            zero.cbrt(),
            D::constant(1.0).asin(),
        ] {
            assert_eq!(y.eps, 0.0);
        }
        // ln(x) of the exponent's partial is NaN at x < 0, but the exponent is a constant.
        let y = D::variable(-3.0).powf(D::constant(2.0));
        assert_eq!((y.re, y.eps), (9.0, -6.0));
        let y = D::variable(-3.0) * f64::INFINITY;
        assert_eq!(y.eps, f64::INFINITY);
        assert_eq!((D::variable(2.0) / 0.0).eps, f64::INFINITY);
    }

    /// A product's tangent skips a zero tangent too, where the other factor's value is infinite (tested
    /// only once the plain formula has come out infinite or NaN); a zero value times an infinite tangent
    /// stays NaN, as in JAX.
    #[test]
    fn a_product_skips_zero_tangents_of_infinite_values() {
        let y = D::variable(3.0) * D::constant(4.0);
        assert_eq!((y.re, y.eps), (12.0, 4.0));
        let y = D::constant(2.0) * D::constant(f64::INFINITY);
        assert_eq!((y.re, y.eps), (f64::INFINITY, 0.0));
        let y = D::variable(2.0) * D::constant(f64::INFINITY);
        assert_eq!((y.re, y.eps), (f64::INFINITY, f64::INFINITY));
        let y = D::constant(0.0) * Dual::new(0.0, f64::INFINITY);
        assert!(y.eps.is_nan(), "0 · inf of a value and a tangent");
        // Nested: the constant 3 times a root at 0, `3 sqrt(x)`, has the curvature -inf, not NaN.
        let x: Dual<D> = Dual::new(D::variable(0.0), D::constant(1.0));
        let y = Dual::constant(D::constant(3.0)) * x.sqrt();
        assert_eq!(y.re.eps, f64::INFINITY);
        assert_eq!((y.eps.re, y.eps.eps), (f64::INFINITY, f64::NEG_INFINITY));
    }

    #[test]
    fn constructors_and_fields() {
        let x = Dual::new(1.5, 2.0);
        assert_eq!((x.re, x.eps), (1.5, 2.0));
        assert_eq!((D::constant(3.0).re, D::constant(3.0).eps), (3.0, 0.0));
        assert_eq!((D::variable(3.0).re, D::variable(3.0).eps), (3.0, 1.0));
        let d = D::default();
        assert_eq!((d.re, d.eps), (0.0, 0.0));
        let from: D = 4.0.into();
        assert_eq!((from.re, from.eps), (4.0, 0.0));
        const ORIGIN: D = Dual::new(0.0, 1.0);
        assert_eq!(ORIGIN.eps, 1.0);
    }

    #[test]
    fn comparisons_follow_the_value() {
        let (a, b) = (Dual::new(1.0, 2.0), Dual::new(1.0, -5.0));
        assert!(a == b && a <= b && a >= b);
        assert!(Dual::new(0.5, 9.0) < Dual::new(1.0, 0.0));
        assert!(a > 0.0 && a == 1.0 && a < 2.0);
        assert_eq!(D::nan().partial_cmp(&a), None);
        assert!(!D::variable(0.0).is_zero() && D::zero().is_zero());
        assert!(D::one().is_one() && !D::variable(1.0).is_one());
    }

    #[test]
    fn predicates_conversions_and_constants_use_the_value() {
        let x = Dual::new(-2.75, f64::NAN);
        assert!(!x.is_nan() && x.is_finite() && x.is_normal() && x.is_sign_negative());
        assert!(Dual::new(f64::NAN, 1.0).is_nan());
        assert!(Dual::new(f64::INFINITY, 1.0).is_infinite());
        assert!(Dual::new(1e-310, 1.0).is_subnormal());
        assert_eq!(x.classify(), FpCategory::Normal);
        assert_eq!(x.integer_decode(), (-2.75f64).integer_decode());
        assert_eq!(x.to_f64(), Some(-2.75));
        assert_eq!(x.to_f32(), Some(-2.75));
        assert_eq!(x.to_i64(), Some(-2));
        assert_eq!(x.to_u8(), None);
        assert_eq!(
            Dual::new(Dual::new(0.25, 1.0), Dual::new(1.0, 0.0)).to_f64(),
            Some(0.25)
        );

        let cast: D = NumCast::from(7_u8).unwrap();
        assert_eq!((cast.re, cast.eps), (7.0, 0.0));
        let nested: DD = NumCast::from(0.5_f32).unwrap();
        assert_eq!(
            (nested.re.re, nested.re.eps, nested.eps.re, nested.eps.eps),
            (0.5, 0.0, 0.0, 0.0)
        );
        let parsed = D::from_str_radix("-1.25", 10).unwrap();
        assert_eq!((parsed.re, parsed.eps), (-1.25, 0.0));
        assert_eq!(D::from_f64(0.1).map(|d| (d.re, d.eps)), Some((0.1, 0.0)));
        assert_eq!(D::from_i32(-3).map(|d| (d.re, d.eps)), Some((-3.0, 0.0)));

        for (constant, value) in [
            (D::epsilon(), f64::EPSILON),
            (D::max_value(), f64::MAX),
            (D::min_value(), f64::MIN),
            (D::min_positive_value(), f64::MIN_POSITIVE),
            (D::infinity(), f64::INFINITY),
            (D::neg_infinity(), f64::NEG_INFINITY),
            (D::PI(), std::f64::consts::PI),
            (D::TAU(), std::f64::consts::TAU),
            (D::LN_2(), std::f64::consts::LN_2),
            (D::SQRT_2(), std::f64::consts::SQRT_2),
        ] {
            assert_eq!((constant.re, constant.eps), (value, 0.0));
        }
        assert!(D::neg_zero().re.is_sign_negative() && D::nan().re.is_nan());
    }

    #[test]
    fn signed_matches_float() {
        use num_traits::Signed;
        let x = D::variable(-2.0);
        let y = Signed::abs(&x);
        assert_eq!((y.re, y.eps), (2.0, -1.0));
        assert!(Signed::is_negative(&x) && !Signed::is_positive(&x));
        assert_eq!(Signed::signum(&x).eps, 0.0);
        assert_eq!(
            Signed::abs_sub(&D::variable(3.0), &D::constant(-2.0)).eps,
            1.0
        );
    }

    #[test]
    fn plain_numbers_mix_with_duals() {
        let x = D::variable(2.0);
        let pairs = [
            (x + 1.0, (3.0, 1.0)),
            (x - 1.0, (1.0, 1.0)),
            (x * 3.0, (6.0, 3.0)),
            (x / 4.0, (0.5, 0.25)),
            (x % 1.5, (0.5, 1.0)),
            (1.0 + x, (3.0, 1.0)),
            (1.0 - x, (-1.0, -1.0)),
            (3.0 * x, (6.0, 3.0)),
            (4.0 / x, (2.0, -1.0)),
            (5.0 % x, (1.0, -2.0)),
        ];
        for (y, expected) in pairs {
            assert_eq!((y.re, y.eps), expected);
        }
        let mut y = x;
        y += 1.0;
        y *= 2.0;
        y -= 0.5;
        y /= 2.0;
        y %= 10.0;
        assert_eq!((y.re, y.eps), (2.75, 1.0));

        let z = Dual::<f32>::variable(2.0);
        let w = 2.0 * z * z + 1.0_f32;
        assert_eq!((w.re, w.eps), (9.0, 8.0));
    }

    #[test]
    fn sums_and_products_of_references() {
        let xs = [D::variable(1.0), Dual::new(2.0, 3.0), D::constant(4.0)];
        let sum: D = xs.iter().sum();
        let product: D = xs.iter().product();
        assert_eq!((sum.re, sum.eps), (7.0, 4.0));
        assert_eq!((product.re, product.eps), (8.0, 8.0 + 12.0));
    }

    #[test]
    fn display() {
        assert_eq!(Dual::new(1.5, 2.0).to_string(), "1.5 + 2ε");
        assert_eq!(Dual::new(1.5, -2.0).to_string(), "1.5 - 2ε");
        assert_eq!(Dual::new(-1.0, 0.25).to_string(), "-1 + 0.25ε");
        assert_eq!(
            format!("{:.2}", Dual::new(1.0 / 3.0, -2.0 / 3.0)),
            "0.33 - 0.67ε"
        );
        assert_eq!(seed2(1.0, 1.0, 1.0).to_string(), "(1 + 1ε) + (1 + 0ε)ε");
        assert_eq!(
            Dual::new(f64::NAN, f64::NEG_INFINITY).to_string(),
            "NaN - infε"
        );
    }
}
