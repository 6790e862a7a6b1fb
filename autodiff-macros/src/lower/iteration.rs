//! What a `for` iterates: a range (`a..b`, `a..=b`, `.rev()`, `.step_by(k)`), or a slice and its adaptors
//! (`xs`, `&xs`, `xs.iter()`, `.enumerate()`, `.zip(..)`, `.rev()`), which become a range over indexes; and
//! how each iteration binds the loop's pattern.

use super::{strip_parens, Lowering};
use crate::ir::{Kind, Operand, Range, Value, Var};
use proc_macro2::Span;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Pat};

impl Lowering<'_> {
    /// The range a `for` iterates and how it binds elements, from its iterator expression.
    pub(super) fn lower_iteration(&mut self, iter: &Expr) -> Option<(Range, Elements)> {
        const SUPPORTED: &str = "this iterator is not supported in a differentiable `for` or iterator chain: \
                                 iterate over a range (`a..b`, `a..=b`, with `.rev()` and `.step_by(k)`), a slice \
                                 (`xs`, `&xs`, `xs.iter()`), `xs.iter().enumerate()`, `a.iter().zip(b.iter())` (of \
                                 two slices; for more, over their indexes: `for i in 0..a.len()`), `xs.windows(k)`, \
                                 `xs.chunks(k)`, or a chain of those with `.map(..)`, `.filter(..)`, \
                                 `.skip(n)` or `.take(n)`";
        let iter = strip_parens(iter);
        // Over a name whose `let` had an error (reported there): nothing more to say.
        if self.reads_failed_let(iter) {
            return None;
        }
        // A slice, or a chain of iterator adaptors on one.
        if let Some(array) = self.array_operand(iter) {
            return Some(self.slice_range(vec![array], None));
        }
        match iter {
            Expr::Range(r) => {
                let (Some(start), Some(end)) = (&r.start, &r.end) else {
                    self.errors
                        .spanned(r, "a `for` range needs both ends: `a..b` or `a..=b`");
                    return None;
                };
                let start = self.lower_expr(start, None);
                let end = self.lower_expr(end, None);
                let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
                Some((
                    Range {
                        start,
                        end,
                        inclusive,
                        rev: false,
                        step: None,
                    },
                    Elements::Index,
                ))
            }
            Expr::MethodCall(m) => {
                let method = m.method.to_string();
                match (method.as_str(), m.args.len()) {
                    ("iter", 0) => match self.array_operand(&m.receiver) {
                        Some(array) => Some(self.slice_range(vec![array], None)),
                        None => {
                            self.errors.spanned(
                                &m.receiver,
                                constant_iterated(&m.receiver)
                                    .unwrap_or_else(|| SUPPORTED.to_string()),
                            );
                            None
                        }
                    },
                    ("enumerate", 0) => {
                        let (range, elements) = self.lower_iteration(&m.receiver)?;
                        match elements {
                            Elements::Slice {
                                arrays,
                                enumerate: None,
                            } if arrays.len() == 1 => {
                                // `.rev().enumerate()` counts from the last element: `(0, x[n - 1])`, ..
                                let count = match range.rev {
                                    true => Count::FromEnd(Box::new(range.end.clone())),
                                    false => Count::Index,
                                };
                                Some((
                                    range,
                                    Elements::Slice {
                                        arrays,
                                        enumerate: Some(count),
                                    },
                                ))
                            }
                            _ => {
                                self.errors.spanned(m, SUPPORTED);
                                None
                            }
                        }
                    }
                    ("zip", 1) => {
                        let left = self.array_of_iter(&m.receiver);
                        let right = self.array_of_iter(&m.args[0]);
                        match (left, right) {
                            (Some(a), Some(b)) => Some(self.slice_range(vec![a, b], None)),
                            _ => {
                                let message = constant_iterated(&m.receiver)
                                    .or_else(|| constant_iterated(&m.args[0]))
                                    .unwrap_or_else(|| SUPPORTED.to_string());
                                self.errors.spanned(m, message);
                                None
                            }
                        }
                    }
                    ("rev", 0) | ("step_by", 1) => {
                        let (mut range, elements) = self.lower_iteration(&m.receiver)?;
                        if method == "rev"
                            && matches!(
                                elements,
                                Elements::Slice {
                                    enumerate: None,
                                    ..
                                }
                            )
                        {
                            range.rev = true;
                            return Some((range, elements));
                        }
                        if !matches!(elements, Elements::Index) {
                            self.errors.spanned(m, "`.rev()` and `.step_by(k)` are supported on ranges only: iterate over indexes");
                            return None;
                        }
                        if method == "rev" {
                            if range.step.is_some() {
                                // Not `(a..b).rev().step_by(k)`, which starts from `b - 1`, not from the
                                // last of `a, a + k, ..`.
                                self.errors.spanned(
                                    m,
                                    "`.step_by(k).rev()` is not supported: count the steps down instead, \
                                     `for t in (0..(b - a + k - 1) / k).rev() { let i = a + t * k; .. }` for \
                                     `(a..b).step_by(k).rev()` (`(a..b).rev().step_by(k)` starts from `b - 1`, \
                                     which is another sequence)",
                                );
                                return None;
                            }
                            range.rev = true;
                        } else {
                            range.step = Some(self.lower_expr(&m.args[0], None));
                        }
                        Some((range, elements))
                    }
                    _ => {
                        self.errors.spanned(&m.method, SUPPORTED);
                        None
                    }
                }
            }
            other => {
                self.errors.spanned(
                    other,
                    constant_iterated(other).unwrap_or_else(|| SUPPORTED.to_string()),
                );
                None
            }
        }
    }

    /// `xs` or `xs.iter()`: the array it iterates.
    pub(super) fn array_of_iter(&mut self, expr: &Expr) -> Option<crate::ir::Array> {
        match strip_parens(expr) {
            Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => {
                self.array_operand(&m.receiver)
            }
            other => self.array_operand(other),
        }
    }

    /// The index range `0..len` of one slice, or `0..min(len a, len b)` for a zip.
    pub(super) fn slice_range(
        &mut self,
        arrays: Vec<crate::ir::Array>,
        enumerate: Option<Count>,
    ) -> (Range, Elements) {
        let span = Span::call_site();
        let lens: Vec<Operand> = arrays
            .iter()
            .map(|a| match self.rows_of(*a) {
                // The rows of a matrix (the items of the first level of a nested array deeper).
                Some(_) => self
                    .nested_len(*a, &[], None, span)
                    .unwrap_or_else(Self::poisoned),
                None => self.emit(Value::Len(*a), None, span),
            })
            .collect();
        let end = match lens.as_slice() {
            [one] => one.clone(),
            [a, b] => self.emit(
                Value::Call {
                    callee: syn::parse_quote!(::core::cmp::min),
                    args: vec![a.clone(), b.clone()],
                    by_ref: vec![false, false],
                },
                None,
                span,
            ),
            _ => Self::poisoned(),
        };
        let start = Operand::Const {
            tokens: quote!(0),
            kind: Kind::Int,
        };
        (
            Range {
                start,
                end,
                inclusive: false,
                rev: false,
                step: None,
            },
            Elements::Slice { arrays, enumerate },
        )
    }

    /// Binds the pattern of a `for` for one iteration.
    pub(super) fn bind_elements(&mut self, pat: &Pat, index: Var, elements: &Elements) {
        match elements {
            Elements::Index => self.bind_pattern_to(pat, Operand::Var(index)),
            Elements::Slice { arrays, enumerate } => {
                let loads: Vec<Operand> = arrays
                    .iter()
                    .map(|a| {
                        if !self.levels_above_rows(*a).is_empty() {
                            // A matrix of any shape, so that its uses are no further errors.
                            self.errors.spanned(pat, super::matrices::DEEPER_BY_INDEX);
                            return self.poisoned_matrix("__matrix".to_string());
                        }
                        if let Some(offsets) = self.rows_of(*a) {
                            let row = self.row_array(*a, offsets, Operand::Var(index));
                            return Operand::Array(row);
                        }
                        self.emit(
                            Value::Load {
                                array: *a,
                                index: Operand::Var(index),
                            },
                            None,
                            pat.span(),
                        )
                    })
                    .collect();
                let parts: Vec<Operand> = match enumerate {
                    Some(Count::Index) => vec![Operand::Var(index), loads[0].clone()],
                    Some(Count::FromEnd(end)) => {
                        let span = pat.span();
                        let int = |tokens| Operand::Const {
                            tokens,
                            kind: Kind::Int,
                        };
                        let last = self.emit(
                            Value::Binary(syn::parse_quote!(-), (**end).clone(), int(quote!(1))),
                            None,
                            span,
                        );
                        let count = self.emit(
                            Value::Binary(syn::parse_quote!(-), last, Operand::Var(index)),
                            None,
                            span,
                        );
                        vec![count, loads[0].clone()]
                    }
                    None => loads,
                };
                match parts.as_slice() {
                    [one] => self.bind_pattern_to(pat, one.clone()),
                    many => match strip_ref(pat) {
                        Pat::Tuple(t) if t.elems.len() == many.len() => {
                            for (p, part) in t.elems.iter().zip(many) {
                                self.bind_pattern_to(p, part.clone());
                            }
                        }
                        other => self.errors.spanned(
                            other,
                            "bind the parts of each element with a tuple pattern: `(i, x)`",
                        ),
                    },
                }
            }
        }
    }

    /// Binds `x`, `&x`, `_` or `(x)` to `value`.
    pub(super) fn bind_pattern_to(&mut self, pat: &Pat, value: Operand) {
        match strip_ref(pat) {
            Pat::Ident(p) if p.subpat.is_none() => self.bind(&p.ident.to_string(), Some(value)),
            Pat::Wild(_) => {}
            other => self.errors.spanned(
                other,
                "this pattern is not supported in a `for`: bind a name, `&x`, `_` or a tuple",
            ),
        }
    }
}

/// How each iteration of a `for` binds its pattern.
pub(super) enum Elements {
    /// `for i in a..b`: the index itself.
    Index,
    /// `for x in xs`, `xs.iter()`: `x = xs[i]`; with `enumerate`, `(count, x)`; with `zip`, `(x, y)`.
    Slice {
        arrays: Vec<crate::ir::Array>,
        enumerate: Option<Count>,
    },
}

/// What `.enumerate()` counts.
pub(super) enum Count {
    /// The index itself: `xs.iter().enumerate()`.
    Index,
    /// From the last element of a slice of this length, iterated backwards: `xs.iter().rev().enumerate()`
    /// gives `(0, xs[n - 1])`, `(1, xs[n - 2])`, .. (the index runs `n - 1` down to `0`; the count is
    /// `n - 1 - index`).
    FromEnd(Box<Operand>),
}

fn strip_ref(pat: &Pat) -> &Pat {
    match pat {
        Pat::Reference(r) => strip_ref(&r.pat),
        Pat::Paren(p) => strip_ref(&p.pat),
        other => other,
    }
}

/// The error for iterating an array constant (`for &c in COEFFS.iter()`, `for c in &COEFFS`, a `const` of
/// the body or from outside it), which the macro reads only by index; `None` for anything else.
fn constant_iterated(expr: &Expr) -> Option<String> {
    let expr = match strip_parens(expr) {
        Expr::Reference(r) => strip_parens(&r.expr),
        Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => strip_parens(&m.receiver),
        other => other,
    };
    let Expr::Path(p) = expr else {
        return None;
    };
    let last = p.path.segments.last()?.ident.to_string();
    let screaming = last.chars().any(|c| c.is_ascii_uppercase())
        && last
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    let name = p.to_token_stream().to_string().replace(' ', "");
    screaming.then(|| {
        format!(
            "an array constant (`{name}`) is not iterated in a differentiable `for` or iterator chain: index \
             it over a range, `for i in 0..{name}.len() {{ .. {name}[i] .. }}`"
        )
    })
}
