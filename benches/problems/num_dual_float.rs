//! `NumDual`: num-dual's `Dual64` wrapped so that it implements `num_traits::Float`.
//!
//! num-dual's numbers implement its own `DualNum` trait, not `num_traits::Float`, and the orphan rule
//! keeps us from adding that impl to `Dual64` itself; the newtype lets the very same generic
//! `T: Float` source of the problems run in num-dual's forward mode. Every method forwards to
//! `Dual64`/`DualNum` (all `#[inline]`, so the wrapper costs nothing); the piecewise-constant
//! functions (`floor`, `round`, ...) have a zero tangent.

use num_dual::{Dual64, DualNum};
use num_traits::{Float, Num, NumCast, One, ToPrimitive, Zero};
use std::num::FpCategory;
use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

/// num-dual's first-order dual number `Dual64` as a `num_traits::Float`.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct NumDual(pub Dual64);

impl NumDual {
    /// A constant: value `re`, tangent 0.
    #[inline]
    pub fn constant(re: f64) -> Self {
        NumDual(Dual64::from_re(re))
    }

    /// The seeded input: value `re`, tangent 1.
    #[inline]
    pub fn variable(re: f64) -> Self {
        NumDual(Dual64::from_re(re).derivative())
    }

    #[inline]
    pub fn value(self) -> f64 {
        self.0.re
    }

    #[inline]
    pub fn tangent(self) -> f64 {
        self.0.eps
    }

    #[inline]
    fn map(self, f: impl Fn(&Dual64) -> Dual64) -> Self {
        NumDual(f(&self.0))
    }

    /// A piecewise-constant function of the value: the tangent is 0.
    #[inline]
    fn flat(self, f: impl Fn(f64) -> f64) -> Self {
        NumDual::constant(f(self.0.re))
    }
}

macro_rules! forward_binary_op {
    ($($trait:ident $method:ident),*) => {$(
        impl $trait for NumDual {
            type Output = NumDual;
            #[inline]
            fn $method(self, rhs: NumDual) -> NumDual {
                NumDual($trait::$method(self.0, rhs.0))
            }
        }
    )*};
}

forward_binary_op!(Add add, Sub sub, Mul mul, Div div, Rem rem);

impl Neg for NumDual {
    type Output = NumDual;
    #[inline]
    fn neg(self) -> NumDual {
        NumDual(-self.0)
    }
}

impl Zero for NumDual {
    #[inline]
    fn zero() -> Self {
        NumDual(Dual64::zero())
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.0.re == 0.0 && self.0.eps == 0.0
    }
}

impl One for NumDual {
    #[inline]
    fn one() -> Self {
        NumDual(Dual64::one())
    }
}

impl Num for NumDual {
    type FromStrRadixErr = <f64 as Num>::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        f64::from_str_radix(s, radix).map(NumDual::constant)
    }
}

impl ToPrimitive for NumDual {
    #[inline]
    fn to_i64(&self) -> Option<i64> {
        self.0.re.to_i64()
    }
    #[inline]
    fn to_u64(&self) -> Option<u64> {
        self.0.re.to_u64()
    }
    #[inline]
    fn to_f64(&self) -> Option<f64> {
        Some(self.0.re)
    }
}

impl NumCast for NumDual {
    #[inline]
    fn from<N: ToPrimitive>(n: N) -> Option<Self> {
        n.to_f64().map(NumDual::constant)
    }
}

impl Float for NumDual {
    fn nan() -> Self {
        NumDual::constant(f64::NAN)
    }
    fn infinity() -> Self {
        NumDual::constant(f64::INFINITY)
    }
    fn neg_infinity() -> Self {
        NumDual::constant(f64::NEG_INFINITY)
    }
    fn neg_zero() -> Self {
        NumDual::constant(-0.0)
    }
    fn min_value() -> Self {
        NumDual::constant(f64::MIN)
    }
    fn min_positive_value() -> Self {
        NumDual::constant(f64::MIN_POSITIVE)
    }
    fn epsilon() -> Self {
        NumDual::constant(f64::EPSILON)
    }
    fn max_value() -> Self {
        NumDual::constant(f64::MAX)
    }
    #[inline]
    fn is_nan(self) -> bool {
        self.0.re.is_nan()
    }
    #[inline]
    fn is_infinite(self) -> bool {
        self.0.re.is_infinite()
    }
    #[inline]
    fn is_finite(self) -> bool {
        self.0.re.is_finite()
    }
    #[inline]
    fn is_normal(self) -> bool {
        self.0.re.is_normal()
    }
    #[inline]
    fn classify(self) -> FpCategory {
        self.0.re.classify()
    }
    #[inline]
    fn floor(self) -> Self {
        self.flat(f64::floor)
    }
    #[inline]
    fn ceil(self) -> Self {
        self.flat(f64::ceil)
    }
    #[inline]
    fn round(self) -> Self {
        self.flat(f64::round)
    }
    #[inline]
    fn trunc(self) -> Self {
        self.flat(f64::trunc)
    }
    #[inline]
    fn fract(self) -> Self {
        // x - trunc(x): the tangent passes through unchanged.
        NumDual(Dual64::new(self.0.re.fract(), self.0.eps))
    }
    #[inline]
    fn abs(self) -> Self {
        if self.0.re < 0.0 {
            -self
        } else {
            self
        }
    }
    #[inline]
    fn signum(self) -> Self {
        self.flat(f64::signum)
    }
    #[inline]
    fn is_sign_positive(self) -> bool {
        self.0.re.is_sign_positive()
    }
    #[inline]
    fn is_sign_negative(self) -> bool {
        self.0.re.is_sign_negative()
    }
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        self * a + b
    }
    #[inline]
    fn recip(self) -> Self {
        self.map(DualNum::recip)
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        self.map(|x| x.powi(n))
    }
    #[inline]
    fn powf(self, n: Self) -> Self {
        if n.0.eps == 0.0 {
            self.map(|x| x.powf(n.0.re))
        } else {
            (self.ln() * n).exp()
        }
    }
    #[inline]
    fn sqrt(self) -> Self {
        self.map(DualNum::sqrt)
    }
    #[inline]
    fn exp(self) -> Self {
        self.map(DualNum::exp)
    }
    #[inline]
    fn exp2(self) -> Self {
        self.map(DualNum::exp2)
    }
    #[inline]
    fn ln(self) -> Self {
        self.map(DualNum::ln)
    }
    #[inline]
    fn log(self, base: Self) -> Self {
        self.ln() / base.ln()
    }
    #[inline]
    fn log2(self) -> Self {
        self.map(DualNum::log2)
    }
    #[inline]
    fn log10(self) -> Self {
        self.map(DualNum::log10)
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        if self.is_nan() || other.0.re > self.0.re {
            other
        } else {
            self
        }
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        if self.is_nan() || other.0.re < self.0.re {
            other
        } else {
            self
        }
    }
    #[inline]
    fn abs_sub(self, other: Self) -> Self {
        if self.0.re <= other.0.re {
            NumDual::zero()
        } else {
            self - other
        }
    }
    #[inline]
    fn cbrt(self) -> Self {
        self.map(DualNum::cbrt)
    }
    #[inline]
    fn hypot(self, other: Self) -> Self {
        (self * self + other * other).sqrt()
    }
    #[inline]
    fn sin(self) -> Self {
        self.map(DualNum::sin)
    }
    #[inline]
    fn cos(self) -> Self {
        self.map(DualNum::cos)
    }
    #[inline]
    fn tan(self) -> Self {
        self.map(DualNum::tan)
    }
    #[inline]
    fn asin(self) -> Self {
        self.map(DualNum::asin)
    }
    #[inline]
    fn acos(self) -> Self {
        self.map(DualNum::acos)
    }
    #[inline]
    fn atan(self) -> Self {
        self.map(DualNum::atan)
    }
    #[inline]
    fn atan2(self, other: Self) -> Self {
        NumDual(DualNum::atan2(&self.0, other.0))
    }
    #[inline]
    fn sin_cos(self) -> (Self, Self) {
        let (s, c) = DualNum::sin_cos(&self.0);
        (NumDual(s), NumDual(c))
    }
    #[inline]
    fn exp_m1(self) -> Self {
        self.map(DualNum::exp_m1)
    }
    #[inline]
    fn ln_1p(self) -> Self {
        self.map(DualNum::ln_1p)
    }
    #[inline]
    fn sinh(self) -> Self {
        self.map(DualNum::sinh)
    }
    #[inline]
    fn cosh(self) -> Self {
        self.map(DualNum::cosh)
    }
    #[inline]
    fn tanh(self) -> Self {
        self.map(DualNum::tanh)
    }
    #[inline]
    fn asinh(self) -> Self {
        self.map(DualNum::asinh)
    }
    #[inline]
    fn acosh(self) -> Self {
        self.map(DualNum::acosh)
    }
    #[inline]
    fn atanh(self) -> Self {
        self.map(DualNum::atanh)
    }
    fn integer_decode(self) -> (u64, i16, i8) {
        Float::integer_decode(self.0.re)
    }
}
