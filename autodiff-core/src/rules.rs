//! Partial derivatives of the float functions, for the code that `#[differentiable]` generates.
//!
//! Each function here returns the partial derivative(s) of one operation, given its inputs and, where that
//! is cheaper, its result `y`. The macro's rule table (`autodiff-macros/src/rules.rs`) calls these for every
//! rule that needs a constant or a case split; one-line rules (`sin` to `cos`) it writes inline.
//! All are generic over [`Float`], so the same rule serves `f32`, `f64` and nested dual numbers.
//!
//! At points where a function is not differentiable they follow JAX, so results compare directly with
//! `jax.grad`: `abs` at 0 has slope 1; a tie of `max` or `min` gives half to each side; `sqrt` at 0 has slope
//! `+inf`; `powi(x, 0)` has slope 0 everywhere; `floor`, `ceil`, `round`, `trunc` and `signum` have slope 0
//! (the macro treats their results as constants, so they have no entry here).

use num_traits::Float;

fn two<T: Float>() -> T {
    T::one() + T::one()
}

fn half<T: Float>() -> T {
    two::<T>().recip()
}

/// `d tan(x) / dx = 1 + tan(x)^2`, from the result `y = tan(x)`.
#[inline]
pub fn tan<T: Float>(y: T) -> T {
    T::one() + y * y
}

/// `d asin(x) / dx = 1 / sqrt(1 - x^2)`.
#[inline]
pub fn asin<T: Float>(x: T) -> T {
    (T::one() - x * x).sqrt().recip()
}

/// `d acos(x) / dx = -1 / sqrt(1 - x^2)`.
#[inline]
pub fn acos<T: Float>(x: T) -> T {
    -asin(x)
}

/// `d atan(x) / dx = 1 / (1 + x^2)`.
#[inline]
pub fn atan<T: Float>(x: T) -> T {
    (T::one() + x * x).recip()
}

/// `d tanh(x) / dx = 1 - tanh(x)^2`, from the result `y = tanh(x)`.
#[inline]
pub fn tanh<T: Float>(y: T) -> T {
    T::one() - y * y
}

/// `d asinh(x) / dx = 1 / sqrt(x^2 + 1)`.
#[inline]
pub fn asinh<T: Float>(x: T) -> T {
    // `hypot` does not overflow for large `|x|` as `x * x + 1` would.
    x.hypot(T::one()).recip()
}

/// `d acosh(x) / dx = 1 / sqrt(x^2 - 1)`.
#[inline]
pub fn acosh<T: Float>(x: T) -> T {
    (x * x - T::one()).sqrt().recip()
}

/// `d atanh(x) / dx = 1 / (1 - x^2)`.
#[inline]
pub fn atanh<T: Float>(x: T) -> T {
    (T::one() - x * x).recip()
}

/// `d 2^x / dx = 2^x ln 2`, from the result `y = 2^x`.
#[inline]
pub fn exp2<T: Float>(y: T) -> T {
    y * two::<T>().ln()
}

/// `d ln(1 + x) / dx = 1 / (1 + x)`.
#[inline]
pub fn ln_1p<T: Float>(x: T) -> T {
    (T::one() + x).recip()
}

/// `d log2(x) / dx = 1 / (x ln 2)`.
#[inline]
pub fn log2<T: Float>(x: T) -> T {
    (x * two::<T>().ln()).recip()
}

/// `d log10(x) / dx = 1 / (x ln 10)`.
#[inline]
pub fn log10<T: Float>(x: T) -> T {
    let ten = T::from(10).unwrap_or_else(|| two::<T>().powi(3) + two::<T>());
    (x * ten.ln()).recip()
}

/// `d to_degrees(x) / dx = 180 / π`, in the type of `x`.
#[inline]
pub fn to_degrees<T: Float>(_x: T) -> T {
    T::one().to_degrees()
}

/// `d to_radians(x) / dx = π / 180`, in the type of `x`.
#[inline]
pub fn to_radians<T: Float>(_x: T) -> T {
    T::one().to_radians()
}

/// Partials of `log(x, base) = ln x / ln base`: `(1 / (x ln b), -ln x / (b (ln b)^2))`.
#[inline]
pub fn log<T: Float>(x: T, base: T) -> (T, T) {
    let ln_b = base.ln();
    ((x * ln_b).recip(), -x.ln() / (base * ln_b * ln_b))
}

/// `d x^n / dx = n x^(n-1)`, and 0 for `n = 0` (also at `x = 0`, where the formula would give `0 * inf`).
#[inline]
pub fn powi<T: Float>(x: T, n: i32) -> T {
    if n == 0 {
        T::zero()
    } else {
        // `n` fits any float type exactly enough for a derivative; `from` cannot fail for an `i32`.
        let n_float = T::from(n).unwrap_or_else(T::nan);
        n_float * x.powi(n - 1)
    }
}

/// Partials of `x^y` with result `r`: `(y x^(y-1), ln(x) r)`, with JAX's conventions:
/// the `x`-partial is 0 where `y = 0`, and the `y`-partial is 0 where `x = 0`.
#[inline]
pub fn powf<T: Float>(x: T, y: T, r: T) -> (T, T) {
    let dx = if y == T::zero() {
        T::zero()
    } else {
        // `times`: at `x = 0` and `y < 1` the power is infinite, and on dual numbers (`f_hessian` runs
        // `f_grad` on them) the constant `y`'s zero tangent must not meet it as `0 · inf = NaN`.
        times(y, x.powf(y - T::one()))
    };
    let dy = if x == T::zero() {
        T::zero()
    } else {
        x.ln() * r
    };
    (dx, dy)
}

/// `d * slope`, but zero for a zero `d` whatever the slope: how the generated code applies a slope that is
/// infinite where the function's value is finite (`sqrt` and `cbrt` at 0, `asin`, `acos` and `atanh` at ±1,
/// `acosh` at 1). A zero adjoint there is one that nothing read (a root computed before an `if` whose
/// taken branch does not use it), which JAX never multiplies (a symbolic zero); a zero tangent is one that
/// carries no direction. `is_zero` of a dual number asks for its tangents to be zero too.
///
/// Where `d` or the slope is not finite, the product is taken as `d.mul_add(slope, 0)`: the same number on
/// `f64` and `f32`, but on dual numbers (which `f_hvp`, `f_hessian` and `f_derivatives` run the gradient on)
/// a zero tangent of one factor then contributes zero instead of `0 · inf = NaN` (`Dual`'s `mul_add` skips
/// zero tangents, its `*` does not). So the second derivative of `sqrt` at 0 is `-inf`, the limit, as in
/// JAX (whose cotangent seed `1.0` is a symbolic constant), not NaN.
#[inline]
pub fn times<T: Float>(d: T, slope: T) -> T {
    if d.is_zero() {
        T::zero()
    } else if d.is_finite() && slope.is_finite() {
        d * slope
    } else {
        d.mul_add(slope, T::zero())
    }
}

/// `d / e`, where a zero `d` gives zero: the tangent of `x.ln()` along a zero tangent at `x = 0` is 0, not
/// `0 / 0 = NaN` (forward mode, for a callee's parameter that its caller passes as a constant: JAX's
/// symbolic zero, as [`times`] for a slope that is a product).
#[inline]
pub fn over<T: Float>(d: T, e: T) -> T {
    if d.is_zero() {
        T::zero()
    } else {
        d / e
    }
}

/// `d sqrt(x) / dx = 1 / (2 sqrt(x))`, from the result `y = sqrt(x)`; `+inf` at 0 (also at `-0.0`).
/// On dual numbers its own derivative at 0 is `-inf`, the limit of `-1 / (4 x^(3/2))`, at `-0.0` too.
#[inline]
pub fn sqrt<T: Float>(y: T) -> T {
    // `y + 0` is `+0.0` at `-0.0` (whose root is `-0.0`), so the slope there is `+inf` as at `+0.0`; and,
    // unlike `abs`, it keeps the sign of a dual number's tangent, so the slope's own derivative at `-0.0`
    // is `-inf` as at `+0.0`. For `y > 0` it is `y` exactly.
    half::<T>() / (y + T::zero())
}

/// `d cbrt(x) / dx = 1 / (3 cbrt(x)^2)`, from the result `y = cbrt(x)`; `+inf` at 0. On dual numbers its
/// own derivative at 0 is that of `y^(-2) / 3`, `-inf` at `+0.0` and `+inf` at `-0.0` (the limits of
/// `-2 / (9 x^(5/3))` from each side, told apart by the sign bit as `abs` is), where `3 y y` would give
/// the tangent `inf · 0 = NaN`.
#[inline]
pub fn cbrt<T: Float>(y: T) -> T {
    let three = two::<T>() + T::one();
    if y == T::zero() {
        y.powi(-2) / three
    } else {
        (three * y * y).recip()
    }
}

/// `d |x| / dx = sign(x)`, taken from the sign bit as Enzyme does: 1 at `+0.0` (JAX's value), -1 at `-0.0`,
/// so that `(-x * x).abs()`, which is `x²`, keeps the second derivative 2 at 0.
#[inline]
pub fn abs<T: Float>(x: T) -> T {
    if x.is_sign_negative() {
        -T::one()
    } else {
        T::one()
    }
}

/// `d (1/x) / dx = -1/x^2`, from the result `y = 1/x`.
#[inline]
pub fn recip<T: Float>(y: T) -> T {
    -(y * y)
}

/// `d copysign(x, s) / dx`, `|x|` with the sign of `s`: the slope of `|x|` taken from the sign bit of `x`
/// (as [`abs`]) times the sign bit of `s`, so 1 where the two sign bits agree and -1 where they differ.
/// The slope in `s` is 0 (only its sign bit is read), as `jnp.copysign`'s. At `x = +0.0` this is JAX's
/// value; at `x = -0.0` it is `abs`'s (-1 times the sign of `s`, where JAX's `select(x >= 0, ..)` gives +1).
#[inline]
pub fn copysign<T: Float>(x: T, sign: T) -> T {
    if x.is_sign_negative() == sign.is_sign_negative() {
        T::one()
    } else {
        -T::one()
    }
}

/// `x.div_euclid(y)` for any float type, as `f64::div_euclid` defines it: the quotient rounded towards
/// zero, one step further down where the remainder is negative. Its slope is 0 wherever it has one (it is
/// piecewise constant); it is the slope of `x.rem_euclid(y)` in `y`, negated.
#[inline]
pub fn div_euclid<T: Float>(x: T, y: T) -> T {
    let q = (x / y).trunc();
    if x % y < T::zero() {
        if y > T::zero() {
            q - T::one()
        } else {
            q + T::one()
        }
    } else {
        q
    }
}

/// `x.rem_euclid(y)` for any float type, as `f64::rem_euclid` defines it: `x % y`, moved up by `|y|`
/// where it is negative. Its partials are 1 in `x` and `-x.div_euclid(y)` in `y` (it is `x - y q` with a
/// piecewise constant `q`).
#[inline]
pub fn rem_euclid<T: Float>(x: T, y: T) -> T {
    let r = x % y;
    if r < T::zero() {
        r + y.abs()
    } else {
        r
    }
}

/// `x.rem_euclid(y)` and `x.div_euclid(y)` as methods of any float type (`Float` has neither): in scope in
/// the generic copy of an `f64` function that calls them, whose floats are of a type parameter. An `f64`'s
/// or an integer's own methods of these names come first wherever the receiver has them.
pub trait FloatEuclid: Float {
    /// [`rem_euclid`].
    fn rem_euclid(self, y: Self) -> Self;
    /// [`div_euclid`].
    fn div_euclid(self, y: Self) -> Self;
}

impl<S: Float> FloatEuclid for S {
    #[inline]
    fn rem_euclid(self, y: Self) -> Self {
        rem_euclid(self, y)
    }
    #[inline]
    fn div_euclid(self, y: Self) -> Self {
        div_euclid(self, y)
    }
}

/// Partials of `hypot(x, y)` with result `h`: `(x / h, y / h)`.
#[inline]
pub fn hypot<T: Float>(x: T, y: T, h: T) -> (T, T) {
    (x / h, y / h)
}

/// Partials of `atan2(y, x)`: `(x / (x^2 + y^2), -y / (x^2 + y^2))`, in the argument order `(y, x)`.
#[inline]
pub fn atan2<T: Float>(y: T, x: T) -> (T, T) {
    let r2 = x * x + y * y;
    (x / r2, -y / r2)
}

/// Partials of `max(x, y)`: the larger side gets 1, a tie gives 0.5 to each side (JAX's convention);
/// where one side is NaN, the side that `max` returns gets 1.
#[inline]
pub fn max<T: Float>(x: T, y: T) -> (T, T) {
    if x > y || y.is_nan() {
        (T::one(), T::zero())
    } else if x < y || x.is_nan() {
        (T::zero(), T::one())
    } else {
        (half(), half())
    }
}

/// Partials of `min(x, y)`: the smaller side gets 1, a tie gives 0.5 to each side (JAX's convention).
#[inline]
pub fn min<T: Float>(x: T, y: T) -> (T, T) {
    let (dy, dx) = max(y, x);
    (flip_tie(dx, x, y), flip_tie(dy, x, y))
}

/// `min` is `max` with the comparison reversed: swap which side wins outside ties.
#[inline]
fn flip_tie<T: Float>(d: T, x: T, y: T) -> T {
    if x == y || x.is_nan() || y.is_nan() {
        d
    } else {
        T::one() - d
    }
}

/// Partials of `clamp(x, lo, hi)`, taken as `min(max(x, lo), hi)` as `jnp.clip` does: inside the
/// interval the slope is 1 in `x`; at a boundary it is shared half and half with that bound.
#[inline]
pub fn clamp<T: Float>(x: T, lo: T, hi: T) -> (T, T, T) {
    let (dx_max, dlo_max) = max(x, lo);
    let (dm_min, dhi) = min(x.max(lo), hi);
    (dx_max * dm_min, dlo_max * dm_min, dhi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copysign_is_the_slope_of_abs_times_the_sign_of_y() {
        // Away from 0: `copysign(1, x) * copysign(1, y)`.
        assert_eq!(copysign(2.0, 3.0), 1.0);
        assert_eq!(copysign(-2.0, 3.0), -1.0);
        assert_eq!(copysign(2.0, -3.0), -1.0);
        assert_eq!(copysign(-2.0, -3.0), 1.0);
        // At `x = ±0.0`: the sign bit of `x`, as `abs` (JAX's value at `+0.0`), and of `y`.
        assert_eq!(copysign(0.0, 3.0), 1.0);
        assert_eq!(copysign(0.0, -3.0), -1.0);
        assert_eq!(copysign(-0.0, 3.0), -1.0);
        assert_eq!(copysign(-0.0, -0.0), 1.0);
        assert_eq!(copysign(0.0, -0.0), -1.0);
        for x in [0.0, -0.0, 1.5, -1.5] {
            assert_eq!(copysign(x, 1.0), abs(x), "as abs at {x:?}");
        }
        // The same on dual numbers, whose copysign flips the tangent with the value.
        let d = crate::Dual::variable(-0.5_f64);
        assert_eq!(
            num_traits::Float::copysign(d, crate::Dual::constant(2.0)).eps,
            copysign(-0.5, 2.0)
        );
    }

    #[test]
    fn max_and_min_follow_jax_at_ties() {
        assert_eq!(max(1.0, 1.0), (0.5, 0.5));
        assert_eq!(min(1.0, 1.0), (0.5, 0.5));
        assert_eq!(max(2.0, 1.0), (1.0, 0.0));
        assert_eq!(max(0.0, 1.0), (0.0, 1.0));
        assert_eq!(min(2.0, 1.0), (0.0, 1.0));
        assert_eq!(min(0.0, 1.0), (1.0, 0.0));
        assert_eq!(max(f64::NAN, 1.0), (0.0, 1.0));
        assert_eq!(min(f64::NAN, 1.0), (0.0, 1.0));
        assert_eq!(min(1.0, f64::NAN), (1.0, 0.0));
    }

    #[test]
    fn a_zero_adjoint_meets_an_infinite_slope_as_zero() {
        assert_eq!(times(0.0, f64::INFINITY), 0.0);
        assert_eq!(times(-0.0, sqrt(0.0_f64)), 0.0);
        assert_eq!(times(2.0, 0.25), 0.5);
        assert!(times(1.0, f64::INFINITY).is_infinite());
        assert!(times(f64::NAN, 1.0).is_nan(), "a NaN adjoint is not zero");
        // A dual adjoint is zero only when its tangent is zero too.
        let d = crate::Dual::new(0.0, 1.0);
        assert_eq!(times(d, crate::Dual::new(3.0, 0.0)).eps, 3.0);
        assert_eq!(
            times(
                crate::Dual::new(0.0, 0.0),
                crate::Dual::new(f64::INFINITY, 1.0)
            )
            .eps,
            0.0
        );
    }

    #[test]
    fn infinite_slopes_have_the_limits_as_derivatives_on_dual_numbers() {
        use crate::Dual;
        // The root of x = 0 seeded along x: its slope 1 / (2 y) has the derivative -inf, at -0.0 too.
        for zero in [0.0, -0.0] {
            let y = Dual::new(zero, f64::INFINITY);
            let slope = sqrt(y);
            assert_eq!((slope.re, slope.eps), (f64::INFINITY, f64::NEG_INFINITY));
        }
        // cbrt: from each side, by the sign bit.
        let slope = cbrt(Dual::new(0.0, f64::INFINITY));
        assert_eq!((slope.re, slope.eps), (f64::INFINITY, f64::NEG_INFINITY));
        let slope = cbrt(Dual::new(-0.0, f64::INFINITY));
        assert_eq!((slope.re, slope.eps), (f64::INFINITY, f64::INFINITY));
        // Away from 0 the formulas are unchanged.
        assert_eq!(cbrt(2.0_f64), (3.0 * 2.0_f64 * 2.0).recip());
        assert_eq!(sqrt(4.0_f64), 0.125);
        // A constant adjoint (tangent 0) times an infinite slope: the slope's tangent, not 0 · inf.
        let d = times(
            Dual::new(2.0, 0.0),
            Dual::new(f64::INFINITY, f64::NEG_INFINITY),
        );
        assert_eq!((d.re, d.eps), (f64::INFINITY, f64::NEG_INFINITY));
        // The x-partial of x^0.5 at 0 on duals: +inf, with the derivative -inf.
        let x = Dual::new(0.0, 1.0);
        let half = Dual::new(0.5, 0.0);
        let (dx, _) = powf(x, half, x.powf(half));
        assert_eq!((dx.re, dx.eps), (f64::INFINITY, f64::NEG_INFINITY));
        // On plain floats the non-finite path is the same product.
        assert_eq!(times(2.0, f64::INFINITY), f64::INFINITY);
        assert!(times(f64::INFINITY, f64::NAN).is_nan());
    }

    #[test]
    fn clamp_is_min_of_max() {
        assert_eq!(clamp(0.5, 0.0, 1.0), (1.0, 0.0, 0.0));
        assert_eq!(clamp(-1.0, 0.0, 1.0), (0.0, 1.0, 0.0));
        assert_eq!(clamp(2.0, 0.0, 1.0), (0.0, 0.0, 1.0));
        assert_eq!(clamp(0.0, 0.0, 1.0), (0.5, 0.5, 0.0));
        assert_eq!(clamp(1.0, 0.0, 1.0), (0.5, 0.0, 0.5));
    }

    #[test]
    fn conventions_at_non_differentiable_points() {
        assert_eq!(abs(0.0), 1.0);
        assert_eq!(abs(-0.0), -1.0, "the sign bit, as Enzyme");
        assert_eq!(abs(-2.0), -1.0);
        assert_eq!(sqrt(0.0_f64), f64::INFINITY);
        assert_eq!(powi(0.0, 2), 0.0);
        assert_eq!(powi(0.0, 0), 0.0);
        assert_eq!(powi(3.0, 3), 27.0);
        assert_eq!(powf(0.0, 2.0, 0.0), (0.0, 0.0));
        assert_eq!(powf(2.0, 0.0, 1.0), (0.0, 2.0_f64.ln()));
    }

    #[test]
    fn partials_match_central_differences() {
        type Unary = (fn(f64) -> f64, fn(f64) -> f64, &'static [f64]);
        let cases: &[Unary] = &[
            (f64::tan, |x| tan(x.tan()), &[-1.2, 0.3, 1.0]),
            (f64::asin, asin, &[-0.9, 0.1, 0.7]),
            (f64::acos, acos, &[-0.9, 0.1, 0.7]),
            (f64::atan, atan, &[-3.0, 0.1, 2.0]),
            (f64::tanh, |x| tanh(x.tanh()), &[-2.0, 0.1, 1.5]),
            (f64::asinh, asinh, &[-2.0, 0.1, 1.5]),
            (f64::acosh, acosh, &[1.1, 2.0, 5.0]),
            (f64::atanh, atanh, &[-0.9, 0.1, 0.7]),
            (f64::exp2, |x| exp2(x.exp2()), &[-2.0, 0.1, 3.0]),
            (f64::ln_1p, ln_1p, &[-0.5, 0.1, 3.0]),
            (f64::log2, log2, &[0.5, 1.1, 3.0]),
            (f64::log10, log10, &[0.5, 1.1, 3.0]),
            (f64::sqrt, |x| sqrt(x.sqrt()), &[0.5, 1.1, 3.0]),
            (f64::cbrt, |x| cbrt(x.cbrt()), &[-2.0, 0.5, 3.0]),
            (f64::recip, |x| recip(x.recip()), &[-2.0, 0.5, 3.0]),
            (f64::abs, abs, &[-2.0, 0.5, 3.0]),
        ];
        for (f, df, points) in cases {
            for &x in *points {
                let h = 1e-6;
                let fd = (f(x + h) - f(x - h)) / (2.0 * h);
                assert!(
                    (fd - df(x)).abs() < 1e-6 * (1.0 + fd.abs()),
                    "at {x}: {fd} vs {}",
                    df(x)
                );
            }
        }
    }

    #[test]
    fn euclidean_division_is_the_std_one() {
        let cases: [(f64, f64); 8] = [
            (7.5, 2.0),
            (-7.5, 2.0),
            (7.5, -2.0),
            (-7.5, -2.0),
            (0.0, 3.0),
            (-0.0, -3.0),
            (6.0, 3.0),
            (-6.0, 3.0),
        ];
        for (x, y) in cases {
            assert_eq!(
                div_euclid(x, y).to_bits(),
                x.div_euclid(y).to_bits(),
                "div_euclid({x}, {y})"
            );
            assert_eq!(
                rem_euclid(x, y).to_bits(),
                x.rem_euclid(y).to_bits(),
                "rem_euclid({x}, {y})"
            );
        }
    }

    #[test]
    fn binary_partials_match_central_differences() {
        type Binary = (fn(f64, f64) -> f64, fn(f64, f64) -> (f64, f64));
        let cases: &[Binary] = &[
            (f64::log, log),
            (f64::powf, |x, y| powf(x, y, x.powf(y))),
            (f64::hypot, |x, y| hypot(x, y, x.hypot(y))),
            (f64::atan2, atan2),
            (f64::max, max),
            (f64::min, min),
            (f64::rem_euclid, |x, y| (1.0, -div_euclid(x, y))),
        ];
        let h = 1e-6;
        for (f, df) in cases {
            for &(x, y) in &[(1.5, 2.5), (3.0, 0.7), (0.4, 1.9)] {
                let fdx = (f(x + h, y) - f(x - h, y)) / (2.0 * h);
                let fdy = (f(x, y + h) - f(x, y - h)) / (2.0 * h);
                let (dx, dy) = df(x, y);
                assert!(
                    (fdx - dx).abs() < 1e-6 * (1.0 + dx.abs()),
                    "x at ({x}, {y})"
                );
                assert!(
                    (fdy - dy).abs() < 1e-6 * (1.0 + dy.abs()),
                    "y at ({x}, {y})"
                );
            }
        }
    }
}
