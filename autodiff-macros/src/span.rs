//! The span `syn` gives an expression (`syn::spanned::Spanned`), found without printing it.
//!
//! `Spanned::span` prints the expression to tokens, sends them to the compiler and reads them back, to join
//! the span of the first token with that of the last: lowering asks it of every value it names, and of a
//! nested expression again at each level, which cost more than the rest of lowering. For the forms whose
//! first and last printed tokens can be read from the syntax tree (names, literals, parentheses, calls,
//! indexing, fields, unary and binary operators, casts) this module reads them there; for any other form,
//! or where `syn` would add parentheses of its own, it asks `syn`.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Member, PathArguments, Type, UnOp};

/// `expr.span()`, as `syn` gives it.
pub(crate) fn of(expr: &Expr) -> Span {
    match (first(expr), last(expr)) {
        (Some(first), _) if single_token(expr) => first,
        (Some(first), Some(last)) => first.join(last).unwrap_or(first),
        _ => expr.span(),
    }
}

/// `call.span()`, as `syn` gives it.
pub(crate) fn of_call(call: &syn::ExprCall) -> Span {
    let first = (call.attrs.is_empty() && callee_bare(&call.func)).then(|| first(&call.func));
    joined(first.flatten(), call.paren_token.span.join()).unwrap_or_else(|| call.span())
}

/// Does `syn` print the callee `func` of a call without parentheses of its own? A named field is put in
/// them (`(s.f)(x)`), as is anything below the highest precedence.
fn callee_bare(func: &Expr) -> bool {
    match func {
        Expr::Field(field) => !matches!(field.member, Member::Named(_)) && unambiguous(func),
        _ => unambiguous(func),
    }
}

/// `method_call.span()`, as `syn` gives it.
pub(crate) fn of_method_call(call: &syn::ExprMethodCall) -> Span {
    let first =
        (call.attrs.is_empty() && unambiguous(&call.receiver)).then(|| first(&call.receiver));
    joined(first.flatten(), call.paren_token.span.join()).unwrap_or_else(|| call.span())
}

/// `index.span()`, as `syn` gives it.
pub(crate) fn of_index(index: &syn::ExprIndex) -> Span {
    let first = (index.attrs.is_empty() && unambiguous(&index.expr)).then(|| first(&index.expr));
    joined(first.flatten(), index.bracket_token.span.join()).unwrap_or_else(|| index.span())
}

/// The span of tokens from `first` to `last`, as `syn` joins them; `None` without a first.
fn joined(first: Option<Span>, last: Span) -> Option<Span> {
    first.map(|first| first.join(last).unwrap_or(first))
}

/// Does `expr` print as one token tree?
fn single_token(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => {
            p.qself.is_none()
                && p.path.leading_colon.is_none()
                && p.path.segments.len() == 1
                && p.path.segments[0].arguments.is_none()
        }
        Expr::Lit(_) | Expr::Paren(_) => true,
        _ => false,
    }
}

/// Is `expr` of a form `syn` never puts in parentheses of its own (the highest precedence), without
/// attributes?
fn unambiguous(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.attrs.is_empty() && p.qself.is_none(),
        Expr::Lit(e) => e.attrs.is_empty(),
        Expr::Paren(e) => e.attrs.is_empty(),
        Expr::MethodCall(e) => e.attrs.is_empty(),
        Expr::Call(e) => e.attrs.is_empty(),
        Expr::Index(e) => e.attrs.is_empty(),
        Expr::Field(e) => e.attrs.is_empty(),
        _ => false,
    }
}

/// The precedence of a binary operator, in `syn`'s order (`syn::precedence::Precedence::of_binop`); `None`
/// for assignments, which this module leaves to `syn`.
fn binary_precedence(op: &BinOp) -> Option<u8> {
    Some(match op {
        BinOp::Or(_) => 1,
        BinOp::And(_) => 2,
        BinOp::Eq(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Ne(_) | BinOp::Ge(_) | BinOp::Gt(_) => {
            3
        }
        BinOp::BitOr(_) => 4,
        BinOp::BitXor(_) => 5,
        BinOp::BitAnd(_) => 6,
        BinOp::Shl(_) | BinOp::Shr(_) => 7,
        BinOp::Add(_) | BinOp::Sub(_) => 8,
        BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_) => 9,
        _ => return None,
    })
}

/// Above every binary operator: casts, then prefix operators, then the unambiguous forms.
const CAST: u8 = 10;
const PREFIX: u8 = 11;
const UNAMBIGUOUS: u8 = 12;

/// The precedence `syn` prints `expr` with, where this module reads its tokens.
fn precedence(expr: &Expr) -> Option<u8> {
    match expr {
        _ if unambiguous(expr) => Some(UNAMBIGUOUS),
        Expr::Unary(e) if e.attrs.is_empty() => Some(PREFIX),
        Expr::Cast(e) if e.attrs.is_empty() => Some(CAST),
        Expr::Binary(e) if e.attrs.is_empty() => binary_precedence(&e.op),
        _ => None,
    }
}

/// The span of the first token `expr` prints, where `syn` adds no parentheses around the part that
/// prints it.
fn first(expr: &Expr) -> Option<Span> {
    match expr {
        Expr::Path(p) if p.attrs.is_empty() && p.qself.is_none() => match &p.path.leading_colon {
            Some(colon) => Some(colon.spans[0]),
            None => p.path.segments.first().map(|s| s.ident.span()),
        },
        Expr::Lit(e) if e.attrs.is_empty() => Some(e.lit.span()),
        Expr::Paren(e) if e.attrs.is_empty() => Some(e.paren_token.span.join()),
        Expr::MethodCall(e) if e.attrs.is_empty() && unambiguous(&e.receiver) => first(&e.receiver),
        Expr::Call(e) if e.attrs.is_empty() && callee_bare(&e.func) => first(&e.func),
        Expr::Index(e) if e.attrs.is_empty() && unambiguous(&e.expr) => first(&e.expr),
        Expr::Field(e) if e.attrs.is_empty() && unambiguous(&e.base) => first(&e.base),
        Expr::Unary(e) if e.attrs.is_empty() => Some(match e.op {
            UnOp::Deref(star) => star.span,
            UnOp::Not(not) => not.span,
            UnOp::Neg(minus) => minus.span,
            _ => return None,
        }),
        // A cast's operand is in parentheses below a cast's precedence.
        Expr::Cast(e) if e.attrs.is_empty() && precedence(&e.expr)? >= PREFIX => first(&e.expr),
        // The left operand is in parentheses below the operator's precedence (at it, for a comparison).
        // A cast on the left is left to `syn`: before `<` or `<<` it gets parentheses whatever its
        // precedence.
        Expr::Binary(e) if e.attrs.is_empty() && !matches!(*e.left, Expr::Cast(_)) => {
            let (op, left) = (binary_precedence(&e.op)?, precedence(&e.left)?);
            let grouped = if op == 3 { left <= op } else { left < op };
            if grouped {
                return None;
            }
            first(&e.left)
        }
        _ => None,
    }
}

/// The span of the last token `expr` prints, where `syn` adds no parentheses around the part that prints
/// it.
fn last(expr: &Expr) -> Option<Span> {
    match expr {
        Expr::Path(p) if p.attrs.is_empty() && p.qself.is_none() => {
            let segment = p.path.segments.last()?;
            match &segment.arguments {
                PathArguments::None => Some(segment.ident.span()),
                PathArguments::AngleBracketed(args) => Some(args.gt_token.span),
                PathArguments::Parenthesized(_) => None,
            }
        }
        Expr::Lit(e) if e.attrs.is_empty() => Some(e.lit.span()),
        Expr::Paren(e) if e.attrs.is_empty() => Some(e.paren_token.span.join()),
        Expr::MethodCall(e) if e.attrs.is_empty() => Some(e.paren_token.span.join()),
        Expr::Call(e) if e.attrs.is_empty() => Some(e.paren_token.span.join()),
        Expr::Index(e) if e.attrs.is_empty() => Some(e.bracket_token.span.join()),
        Expr::Field(e) if e.attrs.is_empty() => Some(match &e.member {
            Member::Named(ident) => ident.span(),
            Member::Unnamed(index) => index.span,
        }),
        // The operand of a prefix operator is in parentheses below a prefix operator's precedence.
        Expr::Unary(e) if e.attrs.is_empty() && precedence(&e.expr)? >= PREFIX => last(&e.expr),
        Expr::Cast(e) if e.attrs.is_empty() => match &*e.ty {
            Type::Path(t) if t.qself.is_none() => {
                let segment = t.path.segments.last()?;
                segment.arguments.is_none().then(|| segment.ident.span())
            }
            _ => None,
        },
        // The right operand is in parentheses at or below the operator's precedence.
        Expr::Binary(e) if e.attrs.is_empty() => {
            let (op, right) = (binary_precedence(&e.op)?, precedence(&e.right)?);
            if right <= op {
                return None;
            }
            last(&e.right)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    /// Where this module reads an expression's first and last tokens, they are the ones `syn` prints: the
    /// same number of top-level tokens (one or more), and the same text at both ends.
    #[test]
    fn the_ends_read_from_the_tree_are_the_printed_ones() {
        let read = [
            "x",
            "::core::f64::consts::PI",
            "f64::max",
            "g::<f64>",
            "1.5",
            "(a + b)",
            "a * b + c",
            "a + b * c",
            "-x * y",
            "!done && *p > 0.0",
            "x.sin().powi(2)",
            "f(x, y)[i].0",
            "w[c * d + i] * data[j * d + i]",
            "total / m as f64",
            "(i as f64) < n",
            "t * 100.0 * t + u * u",
            "p[0] * u - p[1] * u * v",
            "s.field",
        ];
        for source in read {
            let expr: Expr = syn::parse_str(source).unwrap();
            let printed: Vec<_> = expr.to_token_stream().into_iter().collect();
            assert!(
                first(&expr).is_some() && last(&expr).is_some(),
                "{source} is read"
            );
            assert_eq!(single_token(&expr), printed.len() == 1, "{source}");
            // The ends found, by what they are: the first and last tokens of the source.
            let words: Vec<String> = printed.iter().map(ToString::to_string).collect();
            let reparsed: Vec<String> = syn::parse_str::<proc_macro2::TokenStream>(source)
                .unwrap()
                .into_iter()
                .map(|t| t.to_string())
                .collect();
            assert_eq!(words.first(), reparsed.first(), "{source}");
            assert_eq!(words.last(), reparsed.last(), "{source}");
        }
        // Forms left to `syn`: a cast before `<`, a left operand of lower precedence than its operator
        // (which only a tree built by hand has), attributes, blocks.
        let mut grouped: syn::ExprBinary = syn::parse_str("a * b").unwrap();
        grouped.left = Box::new(syn::parse_str("a + c").unwrap());
        let mut cast_before_lt: syn::ExprBinary = syn::parse_str("y < n").unwrap();
        cast_before_lt.left = Box::new(syn::parse_str("x as usize").unwrap());
        for expr in [
            Expr::Binary(cast_before_lt),
            Expr::Binary(grouped),
            syn::parse_str::<Expr>("{ x }").unwrap(),
            syn::parse_str::<Expr>("x = 1.0").unwrap(),
        ] {
            assert!(first(&expr).is_none() || last(&expr).is_none());
        }
    }
}
