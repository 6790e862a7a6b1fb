//! Every derivative rule: each float function that API.md lists, differentiated by `#[differentiable]`.
//!
//! For each function, at random points of its domain and in each way of writing it (method `x.sin()`,
//! path `f64::sin(x)`, generic `T::sin(x)` / `Float::hypot(x, y)` at `f64` and at `f32`):
//!
//! - the value that `_grad` and `_jvp` return is exactly the primal's;
//! - the gradient agrees with the partial derivatives written by hand;
//! - the gradient agrees with central finite differences (`autodiff::check_gradient`);
//! - `_jvp` with a random tangent gives the gradient's inner product with that tangent.
//!
//! Non-differentiable points (ties, kinks, jumps) are left to `conventions.rs`; here the domains keep away
//! from them.

mod common;

use autodiff::{differentiable, Float};
use common::*;
use proptest::prelude::*;

/// One module per function: its three forms as `#[differentiable]` functions, the partials written by
/// hand, and one property test per form. `assume` excludes points where the function is not
/// differentiable (ties of `max`), where the domain strategies alone cannot.
macro_rules! rules {
    ($(
        $name:ident($($x:ident in $domain:expr),+) {
            method: { $($method:tt)* },
            path: { $($path:tt)* },
            generic: { $($generic:tt)* },
            partials: { $($partials:tt)* },
            $(assume: { $($assume:tt)* },)?
        }
    )*) => {$(
        mod $name {
            use super::*;

            #[differentiable]
            pub fn method($($x: f64),+) -> f64 {
                $($method)*
            }

            #[differentiable]
            pub fn path($($x: f64),+) -> f64 {
                $($path)*
            }

            #[differentiable]
            pub fn generic<T: Float>($($x: T),+) -> T {
                $($generic)*
            }

            // Constant partials (`floor`, `b` of `mul_add`) do not read every input.
            #[allow(unused_variables)]
            fn partials($($x: f64),+) -> Vec<f64> {
                Vec::from($($partials)*)
            }

            /// A function of the inputs as one slice, as `check_gradient` takes it.
            fn on_slice(f: impl Fn($(rules!(@f64 $x)),+) -> f64) -> impl Fn(&[f64]) -> f64 {
                move |v: &[f64]| {
                    let mut v = v.iter().copied();
                    $(let $x = v.next().expect("one input per parameter");)+
                    f($($x),+)
                }
            }

            proptest! {
                #![proptest_config(config())]

                #[test]
                fn method_form($($x in $domain),+, tangent in tangents()) {
                    $(prop_assume!($($assume)*);)?
                    check_scalar(
                        "method form",
                        on_slice(method),
                        &[$($x),+],
                        (
                            method_grad($($x),+),
                            |cot| method_vjp($($x,)+ cot),
                            |t| method_jvp($($x,)+ t),
                        ),
                        &partials($($x),+),
                        &tangent,
                    );
                }

                #[test]
                fn path_form($($x in $domain),+, tangent in tangents()) {
                    $(prop_assume!($($assume)*);)?
                    check_scalar(
                        "path form",
                        on_slice(path),
                        &[$($x),+],
                        (
                            path_grad($($x),+),
                            |cot| path_vjp($($x,)+ cot),
                            |t| path_jvp($($x,)+ t),
                        ),
                        &partials($($x),+),
                        &tangent,
                    );
                }

                #[test]
                fn generic_form_f64($($x in $domain),+, tangent in tangents()) {
                    $(prop_assume!($($assume)*);)?
                    check_scalar(
                        "generic form",
                        on_slice(generic::<f64>),
                        &[$($x),+],
                        (
                            generic_grad::<f64>($($x),+),
                            |cot| generic_vjp::<f64>($($x,)+ cot),
                            |t| generic_jvp::<f64>($($x,)+ t),
                        ),
                        &partials($($x),+),
                        &tangent,
                    );
                }

                #[test]
                fn generic_form_f32($($x in $domain),+, tangent in tangents()) {
                    $(prop_assume!($($assume)*);)?
                    $(let $x = $x as f32;)+
                    check_scalar_f32(
                        generic::<f32>($($x),+),
                        (
                            generic_grad::<f32>($($x),+),
                            |cot| generic_vjp::<f32>($($x,)+ cot),
                            |t| generic_jvp::<f32>($($x,)+ t),
                        ),
                        &partials($($x.into()),+),
                        &tangent,
                    );
                }
            }
        }
    )*};
    (@f64 $x:ident) => { f64 };
}

rules! {
    sin(x in moderate()) {
        method: { x.sin() },
        path: { f64::sin(x) },
        generic: { T::sin(x) },
        partials: { [x.cos()] },
    }
    cos(x in moderate()) {
        method: { x.cos() },
        path: { f64::cos(x) },
        generic: { T::cos(x) },
        partials: { [-x.sin()] },
    }
    tan(x in tan_domain()) {
        method: { x.tan() },
        path: { f64::tan(x) },
        generic: { T::tan(x) },
        partials: { [1.0 / (x.cos() * x.cos())] },
    }
    asin(x in open_unit()) {
        method: { x.asin() },
        path: { f64::asin(x) },
        generic: { T::asin(x) },
        partials: { [1.0 / (1.0 - x * x).sqrt()] },
    }
    acos(x in open_unit()) {
        method: { x.acos() },
        path: { f64::acos(x) },
        generic: { T::acos(x) },
        partials: { [-1.0 / (1.0 - x * x).sqrt()] },
    }
    atan(x in moderate()) {
        method: { x.atan() },
        path: { f64::atan(x) },
        generic: { T::atan(x) },
        partials: { [1.0 / (1.0 + x * x)] },
    }
    sinh(x in moderate()) {
        method: { x.sinh() },
        path: { f64::sinh(x) },
        generic: { T::sinh(x) },
        partials: { [x.cosh()] },
    }
    cosh(x in moderate()) {
        method: { x.cosh() },
        path: { f64::cosh(x) },
        generic: { T::cosh(x) },
        partials: { [x.sinh()] },
    }
    tanh(x in moderate()) {
        method: { x.tanh() },
        path: { f64::tanh(x) },
        generic: { T::tanh(x) },
        partials: { [1.0 / (x.cosh() * x.cosh())] },
    }
    asinh(x in moderate()) {
        method: { x.asinh() },
        path: { f64::asinh(x) },
        generic: { T::asinh(x) },
        partials: { [1.0 / (x * x + 1.0).sqrt()] },
    }
    acosh(x in above_one()) {
        method: { x.acosh() },
        path: { f64::acosh(x) },
        generic: { T::acosh(x) },
        partials: { [1.0 / ((x - 1.0) * (x + 1.0)).sqrt()] },
    }
    atanh(x in open_unit()) {
        method: { x.atanh() },
        path: { f64::atanh(x) },
        generic: { T::atanh(x) },
        partials: { [1.0 / ((1.0 - x) * (1.0 + x))] },
    }
    exp(x in moderate()) {
        method: { x.exp() },
        path: { f64::exp(x) },
        generic: { T::exp(x) },
        partials: { [x.exp()] },
    }
    exp2(x in moderate()) {
        method: { x.exp2() },
        path: { f64::exp2(x) },
        generic: { T::exp2(x) },
        partials: { [x.exp2() * std::f64::consts::LN_2] },
    }
    exp_m1(x in moderate()) {
        method: { x.exp_m1() },
        path: { f64::exp_m1(x) },
        generic: { T::exp_m1(x) },
        partials: { [x.exp()] },
    }
    ln(x in positive()) {
        method: { x.ln() },
        path: { f64::ln(x) },
        generic: { T::ln(x) },
        partials: { [1.0 / x] },
    }
    log2(x in positive()) {
        method: { x.log2() },
        path: { f64::log2(x) },
        generic: { T::log2(x) },
        partials: { [1.0 / (x * std::f64::consts::LN_2)] },
    }
    log10(x in positive()) {
        method: { x.log10() },
        path: { f64::log10(x) },
        generic: { T::log10(x) },
        partials: { [1.0 / (x * std::f64::consts::LN_10)] },
    }
    ln_1p(x in -0.9..10.0_f64) {
        method: { x.ln_1p() },
        path: { f64::ln_1p(x) },
        generic: { T::ln_1p(x) },
        partials: { [1.0 / (1.0 + x)] },
    }
    sqrt(x in positive()) {
        method: { x.sqrt() },
        path: { f64::sqrt(x) },
        generic: { T::sqrt(x) },
        partials: { [0.5 / x.sqrt()] },
    }
    cbrt(x in nonzero()) {
        method: { x.cbrt() },
        path: { f64::cbrt(x) },
        generic: { T::cbrt(x) },
        partials: { [1.0 / (3.0 * x.cbrt() * x.cbrt())] },
    }
    abs(x in nonzero()) {
        method: { x.abs() },
        path: { f64::abs(x) },
        generic: { T::abs(x) },
        partials: { [x.signum()] },
    }
    to_degrees(x in moderate()) {
        method: { x.to_degrees() },
        path: { f64::to_degrees(x) },
        generic: { T::to_degrees(x) },
        partials: { [180.0 / std::f64::consts::PI] },
    }
    to_radians(x in moderate()) {
        method: { x.to_radians() },
        path: { f64::to_radians(x) },
        generic: { T::to_radians(x) },
        partials: { [std::f64::consts::PI / 180.0] },
    }
    // A tuple: `(x.sin(), x.cos())`, used whole and by parts.
    sin_cos(x in moderate()) {
        method: { let (s, c) = x.sin_cos(); s * c + c },
        path: { let sc = f64::sin_cos(x); sc.0 * sc.1 + sc.1 },
        generic: { let (s, c) = T::sin_cos(x); s * c + c },
        partials: { [(2.0 * x).cos() - x.sin()] },
    }
    recip(x in nonzero()) {
        method: { x.recip() },
        path: { f64::recip(x) },
        generic: { T::recip(x) },
        partials: { [-1.0 / (x * x)] },
    }
    signum(x in nonzero()) {
        method: { x.signum() },
        path: { f64::signum(x) },
        generic: { T::signum(x) },
        partials: { [0.0] },
    }
    floor(x in away_from_jumps()) {
        method: { x.floor() },
        path: { f64::floor(x) },
        generic: { T::floor(x) },
        partials: { [0.0] },
    }
    ceil(x in away_from_jumps()) {
        method: { x.ceil() },
        path: { f64::ceil(x) },
        generic: { T::ceil(x) },
        partials: { [0.0] },
    }
    round(x in away_from_jumps()) {
        method: { x.round() },
        path: { f64::round(x) },
        generic: { T::round(x) },
        partials: { [0.0] },
    }
    trunc(x in away_from_jumps()) {
        method: { x.trunc() },
        path: { f64::trunc(x) },
        generic: { T::trunc(x) },
        partials: { [0.0] },
    }
    log(x in positive(), base in 1.5..10.0_f64) {
        method: { x.log(base) },
        path: { f64::log(x, base) },
        generic: { Float::log(x, base) },
        partials: { [1.0 / (x * base.ln()), -x.ln() / (base * base.ln() * base.ln())] },
    }
    powf(x in positive(), y in moderate()) {
        method: { x.powf(y) },
        path: { f64::powf(x, y) },
        generic: { Float::powf(x, y) },
        partials: { [y * x.powf(y - 1.0), x.powf(y) * x.ln()] },
    }
    hypot(x in nonzero(), y in moderate()) {
        method: { x.hypot(y) },
        path: { f64::hypot(x, y) },
        generic: { Float::hypot(x, y) },
        partials: { [x / (x * x + y * y).sqrt(), y / (x * x + y * y).sqrt()] },
    }
    atan2(y in moderate(), x in nonzero()) {
        method: { y.atan2(x) },
        path: { f64::atan2(y, x) },
        generic: { Float::atan2(y, x) },
        partials: { [x / (x * x + y * y), -y / (x * x + y * y)] },
    }
    max(x in moderate(), y in moderate()) {
        method: { x.max(y) },
        path: { f64::max(x, y) },
        generic: { Float::max(x, y) },
        partials: { if x > y { [1.0, 0.0] } else { [0.0, 1.0] } },
        assume: { (x - y).abs() > 1e-3 },
    }
    min(x in moderate(), y in moderate()) {
        method: { x.min(y) },
        path: { f64::min(x, y) },
        generic: { Float::min(x, y) },
        partials: { if x < y { [1.0, 0.0] } else { [0.0, 1.0] } },
        assume: { (x - y).abs() > 1e-3 },
    }
    mul_add(x in moderate(), a in moderate(), b in moderate()) {
        method: { x.mul_add(a, b) },
        path: { f64::mul_add(x, a, b) },
        generic: { Float::mul_add(x, a, b) },
        partials: { [a, x, 1.0] },
    }
    clamp(x in moderate(), lo in -2.0..-0.5_f64, hi in 0.5..2.0_f64) {
        method: { x.clamp(lo, hi) },
        path: { f64::clamp(x, lo, hi) },
        generic: { Float::clamp(x, lo, hi) },
        partials: {
            if x < lo {
                [0.0, 1.0, 0.0]
            } else if x > hi {
                [0.0, 0.0, 1.0]
            } else {
                [1.0, 0.0, 0.0]
            }
        },
        assume: { (x - lo).abs() > 1e-3 && (x - hi).abs() > 1e-3 },
    }
}

/// `powi` takes an integer exponent, an inactive parameter: the gradient is the base's alone.
mod powi {
    use super::*;

    #[differentiable]
    pub fn method(x: f64, n: i32) -> f64 {
        x.powi(n)
    }

    #[differentiable]
    pub fn path(x: f64, n: i32) -> f64 {
        f64::powi(x, n)
    }

    #[differentiable]
    pub fn generic<T: Float>(x: T, n: i32) -> T {
        T::powi(x, n)
    }

    /// A literal exponent.
    #[differentiable]
    pub fn cube(x: f64) -> f64 {
        x.powi(3)
    }

    fn partial(x: f64, n: i32) -> f64 {
        if n == 0 {
            0.0
        } else {
            f64::from(n) * x.powi(n - 1)
        }
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn every_form(x in nonzero(), n in -3..=5_i32, t in tangent()) {
            let partials = [partial(x, n)];
            check_scalar(
                "method",
                |v| method(v[0], n),
                &[x],
                (
                    method_grad(x, n),
                    |cot| method_vjp(x, n, cot),
                    |t| method_jvp(x, n, t),
                ),
                &partials,
                &[t],
            );
            check_scalar(
                "path",
                |v| path(v[0], n),
                &[x],
                (
                    path_grad(x, n),
                    |cot| path_vjp(x, n, cot),
                    |t| path_jvp(x, n, t),
                ),
                &partials,
                &[t],
            );
            check_scalar(
                "generic",
                |v| generic(v[0], n),
                &[x],
                (
                    generic_grad(x, n),
                    |cot| generic_vjp(x, n, cot),
                    |t| generic_jvp(x, n, t),
                ),
                &partials,
                &[t],
            );
            let xf = x as f32;
            check_scalar_f32(
                generic(xf, n),
                (
                    generic_grad(xf, n),
                    |cot| generic_vjp(xf, n, cot),
                    |t| generic_jvp(xf, n, t),
                ),
                &[partial(xf.into(), n)],
                &[t],
            );
        }

        #[test]
        fn literal_exponent(x in moderate(), t in tangent()) {
            check_scalar(
                "literal",
                |v| cube(v[0]),
                &[x],
                (cube_grad(x), |cot| cube_vjp(x, cot), |t| cube_jvp(x, t)),
                &[3.0 * x * x],
                &[t],
            );
        }
    }
}

/// The other ways of naming a float function: qualified paths, the trait path on a concrete type, and
/// methods on constants (a constant base of `powf`).
mod other_forms {
    use super::*;

    #[differentiable]
    pub fn qualified(x: f64) -> f64 {
        <f64>::sin(x) + <f64 as Float>::cos(x) + Float::tanh(x)
    }

    #[differentiable]
    pub fn constant_receivers(x: f64) -> f64 {
        2.0_f64.powf(x) + std::f64::consts::E.powf(x) + 10f64.powf(x) * (2.0f64).ln()
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn qualified_paths(x in moderate(), t in tangent()) {
            let partial = x.cos() - x.sin() + 1.0 / (x.cosh() * x.cosh());
            check_scalar(
                "qualified",
                |v| qualified(v[0]),
                &[x],
                (
                    qualified_grad(x),
                    |cot| qualified_vjp(x, cot),
                    |t| qualified_jvp(x, t),
                ),
                &[partial],
                &[t],
            );
        }

        #[test]
        fn methods_on_constants(x in moderate(), t in tangent()) {
            let ln2 = std::f64::consts::LN_2;
            let partial =
                2f64.powf(x) * ln2 + x.exp() + 10f64.powf(x) * std::f64::consts::LN_10 * ln2;
            check_scalar(
                "constant receivers",
                |v| constant_receivers(v[0]),
                &[x],
                (
                    constant_receivers_grad(x),
                    |cot| constant_receivers_vjp(x, cot),
                    |t| constant_receivers_jvp(x, t),
                ),
                &[partial],
                &[t],
            );
        }
    }
}

/// Non-generic `f32` code: parameters and return of type `f32`, and float methods in both forms.
mod concrete_f32 {
    use super::*;

    #[differentiable]
    pub fn wave(x: f32, y: f32) -> f32 {
        x.sin() * f32::exp(y) + x.hypot(y)
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn wave_matches_its_partials(x in nonzero(), y in moderate(), t in prop::array::uniform2(tangent())) {
            let (xf, yf) = (x as f32, y as f32);
            let (x, y) = (f64::from(xf), f64::from(yf));
            let h = x.hypot(y);
            let partials = [x.cos() * y.exp() + x / h, x.sin() * y.exp() + y / h];
            check_scalar_f32(
                wave(xf, yf),
                (
                    wave_grad(xf, yf),
                    |cot| wave_vjp(xf, yf, cot),
                    |t| wave_jvp(xf, yf, t),
                ),
                &partials,
                &t,
            );
        }
    }
}
