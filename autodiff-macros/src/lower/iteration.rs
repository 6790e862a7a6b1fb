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
                                 (`xs`, `&xs`, `xs.iter()`, also `.step_by(k)`), `xs.iter().enumerate()`, `a.iter().zip(b.iter())` (of \
                                 slices, either side maybe `.rev()`, zipped again for more, also `.enumerate()`d), `xs.windows(k)`, \
                                 `xs.chunks(k)`, `xs.chunks_exact(k)` (also `.enumerate()`d or zipped with a slice), or a chain of those with `.map(..)`, `.filter(..)`, \
                                 `.skip(n)` or `.take(n)`";
        let iter = strip_parens(iter);
        // Over a name whose `let` had an error (reported there): nothing more to say.
        if self.reads_failed_let(iter) {
            return None;
        }
        // A sub-slice of a matrix's rows (`&m[1..]`, `m[a..b].iter()`): its rows by index.
        if let Some(rows) = self.row_window(iter) {
            return Some(self.slice_range(vec![rows], None));
        }
        // A slice, or a chain of iterator adaptors on one.
        if let Some(array) = self.array_operand(iter) {
            return Some(self.slice_range(vec![Source::whole(array)], None));
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
                        Some(array) => Some(self.slice_range(vec![Source::whole(array)], None)),
                        None => {
                            let message = constant_iterated(&m.receiver)
                                .or_else(|| self.integer_matrix_iterated(&m.receiver))
                                .unwrap_or_else(|| SUPPORTED.to_string());
                            self.errors.spanned(&m.receiver, message);
                            None
                        }
                    },
                    ("enumerate", 0) => {
                        let (range, elements) = self.lower_iteration(&m.receiver)?;
                        if range.step.is_some() {
                            // Its count would be the element's index, not its place among those kept.
                            self.errors.spanned(
                                m,
                                "`.step_by(k).enumerate()` is not supported: enumerate first \
                                 (`xs.iter().enumerate().step_by(k)` gives each element with its index)",
                            );
                            return None;
                        }
                        match elements {
                            // One slice, or a zip of two (`(i, (a, b))`).
                            Elements::Slice {
                                arrays,
                                starts,
                                from_end,
                                enumerate: None,
                                nest,
                            } => {
                                // `.rev().enumerate()` counts from the last element: `(0, x[n - 1])`, ..
                                let count = match range.rev {
                                    true => Count::FromEnd(Box::new(range.end.clone())),
                                    false => Count::Index,
                                };
                                Some((
                                    range,
                                    Elements::Slice {
                                        arrays,
                                        starts,
                                        from_end,
                                        enumerate: Some(count),
                                        nest,
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
                        let left = self.zipped(&m.receiver);
                        let right = self.zipped(&m.args[0]);
                        match (left, right) {
                            (Some((mut a, left)), Some((b, right))) => {
                                // `a.iter().zip(b.iter()).zip(c.iter())`: the sources in order, the pattern
                                // `((x, y), z)` bound by the nesting.
                                let right = right.shifted(a.len());
                                a.extend(b);
                                let nest = Nest::Pair(Box::new(left), Box::new(right));
                                let (range, elements) = self.slice_range(a, None);
                                Some((range, elements.nested(nest)))
                            }
                            _ => {
                                let message = constant_iterated(&m.receiver)
                                    .or_else(|| constant_iterated(&m.args[0]))
                                    .or_else(|| self.integer_matrix_iterated(&m.receiver))
                                    .or_else(|| self.integer_matrix_iterated(&m.args[0]))
                                    .unwrap_or_else(|| SUPPORTED.to_string());
                                self.errors.spanned(m, message);
                                None
                            }
                        }
                    }
                    ("rev", 0) | ("step_by", 1) => {
                        let (mut range, elements) = self.lower_iteration(&m.receiver)?;
                        if method == "rev" && range.step.is_none() {
                            if let Elements::Slice { .. } = &elements {
                                // `.rev()` turns the direction around (`.rev().rev()` is forwards
                                // again). A count taken before it stays with its element, whichever way
                                // the loop runs: the element's own index after `.enumerate()` (`(n - 1,
                                // xs[n - 1])` first after `.enumerate().rev()`), `n - 1 - index` after
                                // `.rev().enumerate()`.
                                range.rev = !range.rev;
                                return Some((range, elements));
                            }
                        }
                        // `xs.iter().step_by(k)` (also `.enumerate()`d, `.rev()`d or zipped first): the
                        // indexes stepped, each element read at its own index.
                        let stepped_slice =
                            method == "step_by" && matches!(elements, Elements::Slice { .. });
                        if !matches!(elements, Elements::Index) && !stepped_slice {
                            self.errors.spanned(
                                m,
                                "`.step_by(k).rev()` is not supported on a slice iterator: step through \
                                 the indexes counted down instead, `for t in (0..(n + k - 1) / k).rev() { \
                                 let i = t * k; .. xs[i] .. }`",
                            );
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
                            // `(a..b).rev().rev()` runs forwards again.
                            range.rev = !range.rev;
                        } else {
                            let step = self.lower_expr(&m.args[0], None);
                            range.step = Some(match range.step.take() {
                                // `.step_by(a).step_by(b)` takes every `a * b`-th of the range (before,
                                // the second step replaced the first: `_grad` of
                                // `for i in (0..n).step_by(2).step_by(2)` ran over `0, 2, 4, ..`).
                                Some(first) => self.emit(
                                    Value::Binary(syn::BinOp::Mul(Default::default()), first, step),
                                    None,
                                    m.method.span(),
                                ),
                                None => step,
                            });
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
                let message = constant_iterated(other)
                    .or_else(|| self.integer_matrix_iterated(other))
                    .unwrap_or_else(|| SUPPORTED.to_string());
                self.errors.spanned(other, message);
                None
            }
        }
    }

    /// What one side of a zip iterates, with how its elements nest: a window of a matrix's rows, a slice
    /// (`xs`, `xs.iter()`), or a zip of those (`a.iter().zip(b.iter())` zipped again).
    fn zipped(&mut self, expr: &Expr) -> Option<(Vec<Source>, Nest)> {
        if let Expr::MethodCall(m) = strip_parens(expr) {
            if m.method == "zip" && m.args.len() == 1 {
                let (mut a, left) = self.zipped(&m.receiver)?;
                let (b, right) = self.zipped(&m.args[0])?;
                let right = right.shifted(a.len());
                a.extend(b);
                return Some((a, Nest::Pair(Box::new(left), Box::new(right))));
            }
        }
        self.iterated(expr)
            .map(|source| (vec![source], Nest::Leaf(0)))
    }

    /// What one side of a zip iterates: a window of a matrix's rows, or a slice (`xs`, `xs.iter()`),
    /// maybe reversed (`xs.iter().rev()`: its `i`-th element is `xs[len - 1 - i]`, whatever the other
    /// side's length).
    fn iterated(&mut self, expr: &Expr) -> Option<Source> {
        if let Expr::MethodCall(m) = strip_parens(expr) {
            if m.method == "rev" && m.args.is_empty() {
                let mut source = self.iterated(&m.receiver)?;
                if source.rows.is_some() {
                    return None;
                }
                source.rev = !source.rev;
                return Some(source);
            }
        }
        if let Some(rows) = self.row_window(expr) {
            return Some(rows);
        }
        self.array_of_iter(expr).map(Source::whole)
    }

    /// `&m[a..b]`, `m[a..]`, `m[..b].iter()` of a matrix `m` (the rows of a `&[[f64; 3]]`, a
    /// `&[Vec<f64>]`): the matrix, iterated from row `a` for `b - a` rows. A chain's `.skip(n)` and
    /// `.take(n)` reach here as such a sub-slice.
    fn row_window(&mut self, expr: &Expr) -> Option<Source> {
        let mut e = strip_parens(expr);
        if let Expr::MethodCall(m) = e {
            if m.method == "iter" && m.args.is_empty() {
                e = strip_parens(&m.receiver);
            }
        }
        if let Expr::Reference(r) = e {
            if r.mutability.is_none() {
                e = strip_parens(&r.expr);
            }
        }
        let Expr::Index(index) = e else {
            return None;
        };
        let Expr::Range(range) = strip_parens(&index.index) else {
            return None;
        };
        let matrix = self.array_named(&index.expr)?;
        if self.rows_of(matrix).is_none() || !self.levels_above_rows(matrix).is_empty() {
            return None;
        }
        let span = range.span();
        let int = |tokens| Operand::Const {
            tokens,
            kind: Kind::Int,
        };
        let start = match &range.start {
            Some(start) => self.lower_expr(start, None),
            None => int(quote!(0)),
        };
        let end = range.end.as_ref().map(|end| {
            let end = self.lower_expr(end, None);
            match range.limits {
                syn::RangeLimits::Closed(_) => self.emit(
                    Value::Binary(syn::parse_quote!(+), end, int(quote!(1))),
                    None,
                    span,
                ),
                syn::RangeLimits::HalfOpen(_) => end,
            }
        });
        Some(Source {
            array: matrix,
            rows: Some((start, end)),
            rev: false,
        })
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

    /// The index range `0..len` of one slice, or `0..min(len a, len b)` for a zip (`min(min(len a, len b),
    /// len c)` for a zip of three, ..; the length of a window of rows `end - start`).
    pub(super) fn slice_range(
        &mut self,
        sources: Vec<Source>,
        enumerate: Option<Count>,
    ) -> (Range, Elements) {
        let span = Span::call_site();
        let lens: Vec<Operand> = sources
            .iter()
            .map(|source| {
                let a = source.array;
                let len = match self.rows_of(a) {
                    // The rows of a matrix (the items of the first level of a nested array deeper).
                    Some(_) => self
                        .nested_len(a, &[], None, span)
                        .unwrap_or_else(Self::poisoned),
                    None => self.emit(Value::Len(a), None, span),
                };
                match &source.rows {
                    Some((start, end)) => {
                        let end = end.clone().unwrap_or(len);
                        self.emit(
                            Value::Binary(syn::parse_quote!(-), end, start.clone()),
                            None,
                            span,
                        )
                    }
                    None => len,
                }
            })
            .collect();
        let from_end = sources
            .iter()
            .zip(&lens)
            .map(|(s, len)| s.rev.then(|| len.clone()))
            .collect();
        let (arrays, starts) = sources
            .into_iter()
            .map(|s| (s.array, s.rows.map(|(start, _)| start)))
            .unzip();
        let mut lens = lens.into_iter();
        let first = lens.next().unwrap_or_else(Self::poisoned);
        let end = lens.fold(first, |a, b| {
            self.emit(
                Value::Call {
                    callee: syn::parse_quote!(::core::cmp::min),
                    args: vec![a, b],
                    by_ref: vec![false, false],
                },
                None,
                span,
            )
        });
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
            Elements::Slice {
                arrays,
                starts,
                from_end,
                enumerate,
                nest: None,
            },
        )
    }

    /// Binds the pattern of a `for` for one iteration.
    pub(super) fn bind_elements(&mut self, pat: &Pat, index: Var, elements: &Elements) {
        match elements {
            Elements::Index => self.bind_pattern_to(pat, Operand::Var(index)),
            Elements::Slice {
                arrays,
                starts,
                from_end,
                enumerate,
                nest,
            } => {
                let loads: Vec<Operand> = arrays
                    .iter()
                    .zip(starts)
                    .zip(from_end)
                    .map(|((a, start), from_end)| {
                        // A reversed side of a zip: `xs[len - 1 - i]`.
                        let index = match from_end {
                            Some(len) => {
                                let int = |tokens| Operand::Const {
                                    tokens,
                                    kind: Kind::Int,
                                };
                                let last = self.emit(
                                    Value::Binary(
                                        syn::parse_quote!(-),
                                        len.clone(),
                                        int(quote!(1)),
                                    ),
                                    None,
                                    pat.span(),
                                );
                                self.emit(
                                    Value::Binary(syn::parse_quote!(-), last, Operand::Var(index)),
                                    None,
                                    pat.span(),
                                )
                            }
                            None => Operand::Var(index),
                        };
                        let index = match start {
                            Some(start) => self.emit(
                                Value::Binary(syn::parse_quote!(+), index, start.clone()),
                                None,
                                pat.span(),
                            ),
                            None => index,
                        };
                        if !self.levels_above_rows(*a).is_empty() {
                            // A matrix of any shape, so that its uses are no further errors.
                            self.errors.spanned(pat, super::matrices::DEEPER_BY_INDEX);
                            return self.poisoned_matrix("__matrix".to_string());
                        }
                        if let Some(offsets) = self.rows_of(*a) {
                            let row = self.row_array(*a, offsets, index);
                            return Operand::Array(row);
                        }
                        self.emit(
                            Value::Load {
                                array: *a,
                                index,
                                at: None,
                            },
                            None,
                            pat.span(),
                        )
                    })
                    .collect();
                let count = match enumerate {
                    None => None,
                    Some(Count::Index) => Some(Operand::Var(index)),
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
                        Some(count)
                    }
                };
                match count {
                    // `(i, x)`, or `(i, (a, b))` over a zip.
                    Some(count) => match strip_ref(pat) {
                        Pat::Tuple(t) if t.elems.len() == 2 => {
                            self.bind_pattern_to(&t.elems[0], count);
                            self.bind_nested(&t.elems[1], &loads, nest.as_ref(), "`(i, (a, b))`");
                        }
                        other => self.errors.spanned(
                            other,
                            "bind the parts of each element with a tuple pattern: `(i, x)`",
                        ),
                    },
                    None => self.bind_nested(pat, &loads, nest.as_ref(), "`(a, b)`"),
                }
            }
        }
    }

    /// Binds `pat` to the elements of a zip of zips by their nesting (`((x, y), z)`), or as
    /// [`Self::bind_parts`] where there is none.
    fn bind_nested(&mut self, pat: &Pat, parts: &[Operand], nest: Option<&Nest>, form: &str) {
        match nest {
            None => self.bind_parts(pat, parts, form),
            Some(Nest::Leaf(i)) => {
                if let Some(part) = parts.get(*i) {
                    self.bind_pattern_to(pat, part.clone());
                }
            }
            Some(Nest::Pair(a, b)) => match strip_ref(pat) {
                Pat::Tuple(t) if t.elems.len() == 2 => {
                    self.bind_nested(&t.elems[0], parts, Some(a), form);
                    self.bind_nested(&t.elems[1], parts, Some(b), form);
                }
                other => self.errors.spanned(
                    other,
                    "bind the parts of each element of a zip of zips with nested tuple patterns: \
                     `((a, b), c)`",
                ),
            },
        }
    }

    /// Binds `pat` to the one element of each iteration, or a tuple pattern to the elements of a zip.
    fn bind_parts(&mut self, pat: &Pat, parts: &[Operand], form: &str) {
        match parts {
            [one] => self.bind_pattern_to(pat, one.clone()),
            many => match strip_ref(pat) {
                Pat::Tuple(t) if t.elems.len() == many.len() => {
                    for (p, part) in t.elems.iter().zip(many) {
                        self.bind_pattern_to(p, part.clone());
                    }
                }
                other => self.errors.spanned(
                    other,
                    format!("bind the parts of each element with a tuple pattern: {form}"),
                ),
            },
        }
    }

    /// Binds `x`, `&x`, `_` or `(x)` to `value`.
    pub(super) fn bind_pattern_to(&mut self, pat: &Pat, value: Operand) {
        match strip_ref(pat) {
            Pat::Ident(p) if p.subpat.is_none() => self.bind(&p.ident.to_string(), Some(value)),
            Pat::Wild(_) => {}
            other => self.errors.spanned(
                other,
                "this pattern is not supported in a `for`: bind a name, `&x`, `_`, a tuple, or an array \
                 pattern that names every element (`&[x, y, z]`)",
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
        /// For each array, the row a window of a matrix's rows starts at (`x = m[i + start]`).
        starts: Vec<Option<Operand>>,
        /// For each array, its length if a zip takes it reversed (`x = xs[len - 1 - i]`).
        from_end: Vec<Option<Operand>>,
        enumerate: Option<Count>,
        /// How the elements of a zip of zips nest (`((x, y), z)`); `None` for one slice or a zip of two.
        nest: Option<Nest>,
    },
}

impl Elements {
    /// The same elements bound by `nest` (a zip of two slices keeps none: its pattern is a pair).
    fn nested(self, nest: Nest) -> Self {
        if let Nest::Pair(a, b) = &nest {
            if matches!((&**a, &**b), (Nest::Leaf(_), Nest::Leaf(_))) {
                return self;
            }
        }
        match self {
            Elements::Slice {
                arrays,
                starts,
                from_end,
                enumerate,
                ..
            } => Elements::Slice {
                arrays,
                starts,
                from_end,
                enumerate,
                nest: Some(nest),
            },
            other => other,
        }
    }
}

/// How the elements of zipped slices nest in the pattern: a slice by its place among the sources, or a
/// pair (`.zip(..)`) of two nests.
#[derive(Clone)]
pub(super) enum Nest {
    Leaf(usize),
    Pair(Box<Nest>, Box<Nest>),
}

impl Nest {
    /// The nest with each slice's place moved on by `by` (the right side of a zip, after the left's).
    fn shifted(self, by: usize) -> Self {
        match self {
            Nest::Leaf(i) => Nest::Leaf(i + by),
            Nest::Pair(a, b) => Nest::Pair(Box::new(a.shifted(by)), Box::new(b.shifted(by))),
        }
    }
}

/// One array a `for` iterates: whole, or a window of a matrix's rows, `(start, end)` (`end` its row
/// count where absent).
pub(super) struct Source {
    array: crate::ir::Array,
    rows: Option<(Operand, Option<Operand>)>,
    /// Iterated from its last element (`xs.iter().rev()` zipped with another slice).
    rev: bool,
}

impl Source {
    fn whole(array: crate::ir::Array) -> Self {
        Source {
            array,
            rows: None,
            rev: false,
        }
    }
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

impl Lowering<'_> {
    /// `tris.iter()` (zipped, or in another form `integer_rows.rs` leaves), `&nbrs[i]` of a parameter that
    /// is a matrix of integers: the error saying how it is read (`Lowering::integer_matrix_param`).
    fn integer_matrix_iterated(&self, expr: &Expr) -> Option<String> {
        let mut base = match strip_parens(expr) {
            Expr::Reference(r) => strip_parens(&r.expr),
            Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => {
                strip_parens(&m.receiver)
            }
            other => other,
        };
        while let Expr::Index(i) = base {
            base = strip_parens(&i.expr);
        }
        let Expr::Path(p) = base else {
            return None;
        };
        self.integer_matrix_param(&p.path.get_ident()?.to_string())
    }
}

/// The error for iterating an array constant (a `const` of the body or from outside it) in a form that
/// `chains::constant_source` leaves (`COEFFS.iter().zip(x.iter())`), which the macro reads only by index;
/// `None` for anything else.
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
    let screaming = crate::shadow::screaming(&last);
    let name = p.to_token_stream().to_string().replace(' ', "");
    screaming.then(|| {
        format!(
            "an array constant (`{name}`) is iterated here in a form the macro does not read (zipped with \
             another side, or counted after `.rev()`): index it over a range, `for i in 0..{name}.len() {{ .. \
             {name}[i] .. }}` (iterated alone it works: `for &c in {name}.iter()`, `.enumerate()`, `.rev()`, \
             `{name}.iter().map(..).sum()`)"
        )
    })
}
