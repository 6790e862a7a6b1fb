//! The derivative rules, one short entry per operation: the partial derivative of the result with respect
//! to each argument. Reverse mode multiplies each partial by the result's adjoint, forward mode sums the
//! partials times the arguments' tangents, so one table serves both (google/tangent keeps the two apart;
//! with partials they cannot disagree). Rules that need a constant or a case split call
//! `autodiff_core::rules`, which holds the conventions at non-differentiable points.

use crate::emit::Tokens;
use crate::ir::{FloatFn, Operand, Value};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use syn::BinOp;

/// One partial derivative, in the form that reads best once multiplied.
#[derive(Clone)]
pub(crate) enum Partial {
    /// `d * 1`: the adjoint passes unchanged.
    One,
    /// `d * -1`.
    NegOne,
    /// `d * e`.
    Times(Tokens),
    /// `d / e`.
    Over(Tokens),
    /// `d * a / b`, multiplied first: a zero `d` gives zero where `a / b` alone would overflow (the
    /// tangent of `x / y` at a tiny `y`, where `-x / y²` is infinite but `dy` is 0).
    TimesOver(Tokens, Tokens),
    /// `TimesOver` where `a` may be infinite itself (`rules::times`): forward mode's, for a `y` that a
    /// caller passes as a constant (its tangent the value 0, JAX's symbolic zero): the tangent of `-b /
    /// gamma` at `b = inf` is 0, not NaN. Reverse mode keeps `TimesOver`: an adjoint that is 0 at an
    /// infinite quotient gives `0 · inf = NaN`, as `jax.grad` does, without a test at every division.
    TimesOverGuarded(Tokens, Tokens),
    /// `d * e` for a slope `e` that is infinite where the value is finite (`sqrt` at 0, `asin` at 1): a zero
    /// `d` gives zero, not `0 · inf = NaN` (`rules::times`). A `sqrt` computed before an `if` whose taken
    /// branch does not read it gets the adjoint 0, which JAX never forms (a symbolic zero).
    TimesGuarded(Tokens),
    /// `d / e` for a slope `1 / e` that is infinite where the value is finite (`ln` at 0): a zero `d` gives
    /// zero (`rules::over`). Forward mode's, for a callee's parameter passed as a constant.
    OverGuarded(Tokens),
}

impl Partial {
    /// The partial applied to `d` (an adjoint in reverse mode, a tangent in forward mode).
    pub(crate) fn apply<T: ToTokens + Clone + Into<TokenStream>>(&self, d: &T) -> TokenStream {
        match self {
            Partial::One => d.clone().into(),
            Partial::NegOne => quote!(-#d),
            Partial::Times(e) => quote!(#d * #e),
            Partial::Over(e) => quote!(#d / #e),
            Partial::TimesOver(a, b) => quote!(#d * #a / #b),
            Partial::TimesOverGuarded(a, b) => {
                quote!(::autodiff::__private::rules::times(#d, #a) / #b)
            }
            Partial::TimesGuarded(e) => quote!(::autodiff::__private::rules::times(#d, #e)),
            Partial::OverGuarded(e) => quote!(::autodiff::__private::rules::over(#d, #e)),
        }
    }
}

/// The partials of one operation: a statement to compute first (for rules that give several partials at
/// once) and one partial per argument (`None` where the argument carries no derivative).
pub(crate) struct Rule {
    pub(crate) prelude: Option<TokenStream>,
    pub(crate) partials: Vec<Option<Partial>>,
}

/// What a rule needs from the emitter: the tokens of its arguments and of its result (each recorded as a
/// use of that value), and fresh names for the partials it binds.
pub(crate) trait RuleCtx {
    fn operand(&mut self, operand: &Operand) -> Tokens;
    fn result(&mut self) -> Tokens;
    fn fresh(&mut self, base: &str) -> Ident;
}

/// The partials of `value`; `wanted[i]` says whether the partial of argument `i` will be used.
pub(crate) fn rule(value: &Value, wanted: &[bool], cx: &mut dyn RuleCtx) -> Rule {
    let each = |partials: Vec<Option<Partial>>| Rule {
        prelude: None,
        partials,
    };
    match value {
        Value::Unary(syn::UnOp::Neg(_), _) => each(vec![Some(Partial::NegOne)]),
        Value::Unary(syn::UnOp::Deref(_), _) => each(vec![Some(Partial::One)]),
        Value::Binary(op, l, r) => match op {
            BinOp::Add(_) => each(vec![Some(Partial::One), Some(Partial::One)]),
            BinOp::Sub(_) => each(vec![Some(Partial::One), Some(Partial::NegOne)]),
            // x * x: one partial, 2x, rather than x for each side (`d * (x + x)`, exactly `d * x + d * x`
            // but for rounding in the subnormal range, in two operations instead of three).
            BinOp::Mul(_) if l.var().is_some() && l.var() == r.var() => {
                let x = wanted[0].then(|| cx.operand(l));
                each(vec![
                    x.map(|x| Partial::Times(quote!((#x + #x)).into())),
                    None,
                ])
            }
            BinOp::Mul(_) => {
                let (l_tokens, r_tokens) = (
                    wanted[1].then(|| cx.operand(l)),
                    wanted[0].then(|| cx.operand(r)),
                );
                each(vec![
                    r_tokens.map(Partial::Times),
                    l_tokens.map(Partial::Times),
                ])
            }
            BinOp::Div(_) => {
                let r_tokens = cx.operand(r);
                // d(x / y)/dy = -(x / y) / y, applied as `d * -(x / y) / y`: a zero `d` contributes 0 even
                // where `(x / y) / y` overflows.
                let by_r = wanted[1].then(|| {
                    let y = cx.result();
                    Partial::TimesOver(quote!((-#y)).into(), r_tokens.clone())
                });
                each(vec![
                    wanted[0].then(|| Partial::Over(r_tokens.clone())),
                    by_r,
                ])
            }
            BinOp::Rem(_) => {
                // a % b = a - b * trunc(a / b)
                let by_r = wanted[1].then(|| {
                    let (a, b) = (cx.operand(l), cx.operand(r));
                    Partial::Times(quote!(-::autodiff::__private::Float::trunc(#a / #b)).into())
                });
                each(vec![Some(Partial::One), by_r])
            }
            _ => each(vec![None, None]),
        },
        Value::Float { func, args, .. } => float_rule(*func, args, wanted, cx),
        _ => each(vec![None; value.operands().len()]),
    }
}

// The paths `::autodiff::__private::Float` and `::autodiff::__private::rules` are written out in each rule
// that names them: made once up front, they cost a dozen tokens on every operation, most of which are
// arithmetic and name neither.
fn float_rule(func: FloatFn, args: &[Operand], wanted: &[bool], cx: &mut dyn RuleCtx) -> Rule {
    use FloatFn::*;
    let one = |p: Partial| Rule {
        prelude: None,
        partials: vec![Some(p)],
    };
    let x = || args[0].clone();
    match func {
        Sin => one(Partial::Times({
            let x = cx.operand(&x());
            quote!(::autodiff::__private::Float::cos(#x)).into()
        })),
        Cos => one(Partial::Times({
            let x = cx.operand(&x());
            quote!(-::autodiff::__private::Float::sin(#x)).into()
        })),
        Sinh => one(Partial::Times({
            let x = cx.operand(&x());
            quote!(::autodiff::__private::Float::cosh(#x)).into()
        })),
        Cosh => one(Partial::Times({
            let x = cx.operand(&x());
            quote!(::autodiff::__private::Float::sinh(#x)).into()
        })),
        ExpM1 => one(Partial::Times({
            let x = cx.operand(&x());
            quote!(::autodiff::__private::Float::exp(#x)).into()
        })),
        Exp => one(Partial::Times(cx.result())),
        Ln => one(Partial::Over(cx.operand(&x()))),
        // Rules written in terms of the result.
        Tan | Tanh | Exp2 | Sqrt | Cbrt | Recip => {
            let name = match func {
                Tan => quote!(tan),
                Tanh => quote!(tanh),
                Exp2 => quote!(exp2),
                Sqrt => quote!(sqrt),
                Cbrt => quote!(cbrt),
                _ => quote!(recip),
            };
            let y = cx.result();
            let slope = quote!(::autodiff::__private::rules::#name(#y)).into();
            one(match func {
                Sqrt | Cbrt => Partial::TimesGuarded(slope),
                _ => Partial::Times(slope),
            })
        }
        // Rules written in terms of the argument.
        Asin | Acos | Atan | Asinh | Acosh | Atanh | Log2 | Log10 | Ln1p | Abs | ToDegrees
        | ToRadians => {
            let name = match func {
                Asin => quote!(asin),
                Acos => quote!(acos),
                Atan => quote!(atan),
                Asinh => quote!(asinh),
                Acosh => quote!(acosh),
                Atanh => quote!(atanh),
                Log2 => quote!(log2),
                Log10 => quote!(log10),
                Ln1p => quote!(ln_1p),
                ToDegrees => quote!(to_degrees),
                ToRadians => quote!(to_radians),
                _ => quote!(abs),
            };
            let x = cx.operand(&x());
            let slope = quote!(::autodiff::__private::rules::#name(#x)).into();
            one(match func {
                Asin | Acos | Acosh | Atanh => Partial::TimesGuarded(slope),
                _ => Partial::Times(slope),
            })
        }
        Powi => {
            let (x, n) = (cx.operand(&args[0]), cx.operand(&args[1]));
            Rule {
                prelude: None,
                partials: vec![
                    Some(Partial::Times(
                        quote!(::autodiff::__private::rules::powi(#x, #n)).into(),
                    )),
                    None,
                ],
            }
        }
        // `|x|` with the sign of `y`: slope ±1 in `x` (`rules::copysign`), none in `y`.
        Copysign => {
            let partial = wanted[0].then(|| {
                let (x, y) = (cx.operand(&args[0]), cx.operand(&args[1]));
                Partial::Times(quote!(::autodiff::__private::rules::copysign(#x, #y)).into())
            });
            Rule {
                prelude: None,
                partials: vec![partial, None],
            }
        }
        MulAdd => {
            let a = wanted[1].then(|| cx.operand(&args[0]));
            let b = wanted[0].then(|| cx.operand(&args[1]));
            Rule {
                prelude: None,
                partials: vec![
                    b.map(Partial::Times),
                    a.map(Partial::Times),
                    Some(Partial::One),
                ],
            }
        }
        // Rules that give all partials at once, bound in a prelude.
        Log | Powf | Hypot | Atan2 | Max | Min | Clamp => {
            let mut inputs: Vec<Tokens> = args.iter().map(|a| cx.operand(a)).collect();
            let name = match func {
                Log => quote!(log),
                Powf => quote!(powf),
                Hypot => quote!(hypot),
                Atan2 => quote!(atan2),
                Max => quote!(max),
                Min => quote!(min),
                _ => quote!(clamp),
            };
            if matches!(func, Powf | Hypot) {
                inputs.push(cx.result());
            }
            let names: Vec<Option<Ident>> = wanted
                .iter()
                .map(|w| w.then(|| cx.fresh(&format!("__partial_{}", func_name(func)))))
                .collect();
            let pattern = names.iter().map(|n| match n {
                Some(n) => quote!(#n),
                None => quote!(_),
            });
            Rule {
                prelude: Some(
                    quote!(let (#(#pattern),*) = ::autodiff::__private::rules::#name(#(#inputs),*);),
                ),
                // The slope of `x.powf(y)` in `x`, `y x^(y-1)`, is infinite at `x = 0` for `y < 1` where the
                // value is finite (`x.powf(0.5)`, as `sqrt`): applied as `rules::times`, so that a zero
                // adjoint or tangent gives zero and, on dual numbers (`f_hessian`), the cotangent seed's
                // zero tangent does not meet it as `0 · inf = NaN`.
                partials: names
                    .into_iter()
                    .enumerate()
                    .map(|(i, n)| {
                        n.map(|n| match (func, i) {
                            (Powf, 0) => Partial::TimesGuarded(Tokens::Name(n)),
                            _ => Partial::Times(Tokens::Name(n)),
                        })
                    })
                    .collect(),
            }
        }
        RoundF32 => one(Partial::One),
        // `x - y q` for the piecewise constant `q = x.div_euclid(y)`.
        RemEuclid => {
            let by_y = wanted[1].then(|| {
                let (x, y) = (cx.operand(&args[0]), cx.operand(&args[1]));
                Partial::Times(quote!(-::autodiff::__private::rules::div_euclid(#x, #y)).into())
            });
            Rule {
                prelude: None,
                partials: vec![Some(Partial::One), by_y],
            }
        }
        Signum | Floor | Ceil | Round | Trunc => Rule {
            prelude: None,
            partials: vec![None],
        },
        DivEuclid => Rule {
            prelude: None,
            partials: vec![None, None],
        },
    }
}

fn func_name(func: FloatFn) -> &'static str {
    FloatFn::ALL
        .iter()
        .find(|(_, f, _)| *f == func)
        .map_or("f", |(name, _, _)| name)
}
