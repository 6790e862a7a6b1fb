//! `assert!`, `assert_eq!`, `assert_ne!` and their `debug_` forms in statement position, rewritten before the
//! fence into the branch they are, which every later pass (lowering, activity, the reverse sweep, the generic
//! copy of `order = K`, the analysis of output parameters) already handles:
//!
//! ```text
//! // Input:                        // Output:
//! assert!(n > 0, "need points");   {
//!                                      let mut __assertion = [0usize; 1];
//!                                      if !(n > 0) {
//!                                          __assertion[0] = ::autodiff::__private::assertion_failed("need points");
//!                                      }
//!                                  }
//! assert_eq!(x.len(), y.len());    the same, with `!((x.len()) == (y.len()))` and the message
//!                                  "assertion `left == right` failed\n  left: x.len()\n right: y.len()"
//! debug_assert!(t >= 0.0);         if ::autodiff::__private::DEBUG_ASSERTIONS { the same }
//! ```
//!
//! The failing call's value is stored into a local integer array because a store is an effect, which no pass
//! prunes: an `if` whose only statement is a call of unused value is dead code to the emitters, and would be
//! dropped from every generated item. `assertion_failed` panics, so the store never happens.
//!
//! Each operand is evaluated once, by the condition; the failing branch diverges, so it adds no derivative.
//! The message is the user's when it is a plain string literal; a message with format arguments is an error
//! (its arguments would be active floats of a generic type at `order = K`). Without a message, it is std's
//! (`assertion failed: <cond as written>`; for `assert_eq!`/`assert_ne!` the operands as written, since their
//! values are not formatted). The function itself is emitted as written, with the std macros.

use crate::errors::Errors;
use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::punctuated::Punctuated;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Stmt};

/// The macros this pass rewrites (in statement position).
pub(crate) const SUPPORTED: [&str; 6] = [
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
];

/// Rewrites the assertions in statement position of `block`; `errors` gets the ones this cannot rewrite.
pub(crate) fn desugar(block: &mut syn::Block, errors: &mut Errors) {
    Rewrite { errors }.visit_block_mut(block);
}

/// Rewrites the assertions of `block`, errors dropped (the pipeline reports them): for the analyses that
/// read the body as written (`incoming.rs`).
pub(crate) fn desugar_quietly(block: &mut syn::Block) {
    desugar(block, &mut Errors::default());
}

struct Rewrite<'a> {
    errors: &'a mut Errors,
}

impl VisitMut for Rewrite<'_> {
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        visit_mut::visit_stmt_mut(self, stmt);
        let mac = match stmt {
            Stmt::Macro(m) => &m.mac,
            Stmt::Expr(Expr::Macro(m), _) => &m.mac,
            _ => return,
        };
        let Some(name) = mac.path.get_ident().map(ToString::to_string) else {
            return;
        };
        if !SUPPORTED.contains(&name.as_str()) {
            return;
        }
        match rewrite(&name, mac) {
            Ok(expr) => *stmt = Stmt::Expr(expr, None),
            Err(e) => {
                self.errors.push(e);
                // Reported: nothing more to say about it.
                *stmt = Stmt::Expr(syn::parse_quote!({}), None);
            }
        }
    }
}

/// The branch that `name!(mac.tokens)` is.
fn rewrite(name: &str, mac: &syn::Macro) -> syn::Result<Expr> {
    let args = mac.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)?;
    let debug = name.starts_with("debug_");
    let base = name.trim_start_matches("debug_");
    let operands = if base == "assert" { 1 } else { 2 };
    if args.len() < operands {
        return Err(syn::Error::new_spanned(
            mac,
            format!("`{name}!` needs {operands} operand(s) before its message"),
        ));
    }
    let args: Vec<Expr> = args.into_iter().collect();
    let (operands, message) = args.split_at(operands);
    let custom = match message {
        [] => None,
        [Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        })] => Some(plain_message(name, s)?),
        [first, ..] => {
            return Err(syn::Error::new_spanned(
                first,
                format!(
                    "a message with format arguments is not supported in `{name}!` in a differentiable \
                     body: write it as a plain string literal (`{name}!(.., \"need points\")`)"
                ),
            ))
        }
    };
    let (condition, message) = match base {
        "assert" => {
            let cond = &operands[0];
            let message = custom.unwrap_or_else(|| format!("assertion failed: {}", written(cond)));
            (quote!(!(#cond)), message)
        }
        _ => {
            let (left, right) = (&operands[0], &operands[1]);
            let op = if base == "assert_eq" { "==" } else { "!=" };
            let head = format!("assertion `left {op} right` failed");
            let message = match custom {
                Some(m) => format!("{head}: {m}"),
                None => format!(
                    "{head}\n  left: {}\n right: {}",
                    written(left),
                    written(right)
                ),
            };
            let op: TokenStream = op.parse().unwrap_or_default();
            (quote!(!((#left) #op (#right))), message)
        }
    };
    // The failing call's value is stored into a local array: a store is an effect, which no pass prunes,
    // so the branch is kept in every generated item (an `if` whose only statement is a call of unused
    // value would be dead code to them).
    let fail = quote!({
        let mut __assertion = [0usize; 1];
        if #condition {
            __assertion[0] = ::autodiff::__private::assertion_failed(#message);
        }
    });
    let tokens = if debug {
        quote!(if ::autodiff::__private::DEBUG_ASSERTIONS { #fail })
    } else {
        fail
    };
    syn::parse2(tokens)
}

/// The text of a message literal without format arguments (`{{` and `}}` as the braces they stand for), or an
/// error if it has any (`"{n}"`).
fn plain_message(name: &str, lit: &syn::LitStr) -> syn::Result<String> {
    let value = lit.value();
    let mut text = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if (c == '{' || c == '}') && chars.peek() == Some(&c) {
            chars.next();
        } else if c == '{' || c == '}' {
            return Err(syn::Error::new_spanned(
                lit,
                format!(
                    "a message with format arguments is not supported in `{name}!` in a differentiable \
                     body: write it as a plain string literal (`{name}!(.., \"need points\")`)"
                ),
));
        }
        text.push(c);
    }
    Ok(text)
}

/// `expr` as the user wrote it: its tokens printed as Rust is usually written (`!x.is_empty()`, `a[i] > 0.0`),
/// for the message of an assertion without one.
fn written(expr: &Expr) -> String {
    let mut out = String::new();
    tidy(expr.to_token_stream(), &mut out);
    out
}

/// Appends `tokens` to `out`, with a space only where one usually is.
fn tidy(tokens: TokenStream, out: &mut String) {
    let mut prev: Option<TokenTree> = None;
    // Whether the token before `prev` ends an operand: a `-` or `&` after one is binary, else unary.
    let mut operand_before = false;
    for token in tokens {
        let glued = match (&prev, &token) {
            (None, _) => true,
            (Some(TokenTree::Punct(p)), _) if p.spacing() == proc_macro2::Spacing::Joint => true,
            (Some(TokenTree::Punct(p)), _) if matches!(p.as_char(), '.' | '!' | ':') => true,
            (_, TokenTree::Punct(p))
                if p.as_char() == ':' && p.spacing() == proc_macro2::Spacing::Joint =>
            {
                true
            }
            (Some(TokenTree::Punct(p)), _) if matches!(p.as_char(), '-' | '&' | '*') => {
                !operand_before
            }
            (_, TokenTree::Punct(p)) if matches!(p.as_char(), '.' | ',' | ';' | '?') => true,
            (Some(TokenTree::Ident(_) | TokenTree::Group(_)), TokenTree::Group(g)) => {
                g.delimiter() != proc_macro2::Delimiter::Brace
            }
            _ => false,
        };
        if !glued {
            out.push(' ');
        }
        match &token {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::Brace => ("{ ", " }"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                out.push_str(open);
                let mut inner = String::new();
                tidy(g.stream(), &mut inner);
                out.push_str(&inner);
                out.push_str(close);
            }
            other => out.push_str(&other.to_string()),
        }
        operand_before = match &prev {
            Some(TokenTree::Punct(p)) => {
                p.spacing() == proc_macro2::Spacing::Joint && operand_before
            }
            Some(_) => true,
            None => false,
        };
        prev = Some(token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(body: &str) -> (String, usize) {
        let mut block: syn::Block = syn::parse_str(&format!("{{ {body} }}")).unwrap();
        let mut errors = Errors::default();
        desugar(&mut block, &mut errors);
        (block.to_token_stream().to_string(), errors.len())
    }

    /// The rewritten form of an assertion with the condition `failing` (true when it fails) and `message`.
    fn failing(failing: &str, message: &str) -> String {
        format!(
            "{{ let mut __assertion = [0usize; 1]; if {failing} {{ \
             __assertion[0] = ::autodiff::__private::assertion_failed({message:?}); }} }}"
        )
    }

    fn expected(body: &str) -> String {
        let block: syn::Block = syn::parse_str(&format!("{{ {body} }}")).unwrap();
        block.to_token_stream().to_string()
    }

    #[test]
    fn assert_with_and_without_message() {
        assert_eq!(
            rewritten("assert!(n > 0); let y = x;"),
            (
                expected(&format!(
                    "{} let y = x;",
                    failing("!(n > 0)", "assertion failed: n > 0")
                )),
                0
            )
        );
        assert_eq!(
            rewritten("assert!(n > 0, \"need {{points}}\",);"),
            (expected(&failing("!(n > 0)", "need {points}")), 0)
        );
    }

    #[test]
    fn eq_ne_and_debug_forms() {
        assert_eq!(
            rewritten("assert_eq!(x.len(), y.len(), \"lengths\");"),
            (
                expected(&failing(
                    "!((x.len()) == (y.len()))",
                    "assertion `left == right` failed: lengths"
                )),
                0
            )
        );
        assert_eq!(
            rewritten("assert_eq!(x.len(), -y[0])"),
            (
                expected(&failing(
                    "!((x.len()) == (-y[0]))",
                    "assertion `left == right` failed\n  left: x.len()\n right: -y[0]"
                )),
                0
            )
        );
        assert_eq!(
            rewritten("debug_assert_ne!(a, b, \"distinct\")"),
            (
                expected(&format!(
                    "if ::autodiff::__private::DEBUG_ASSERTIONS {{ {} }}",
                    failing(
                        "!((a) != (b))",
                        "assertion `left != right` failed: distinct"
                    )
                )),
                0
            )
        );
        // Nested blocks too; the macro's operands keep their own form.
        let (out, errors) = rewritten("for i in 0..n { debug_assert!(x[i] >= 0.0); }");
        assert_eq!(errors, 0);
        assert!(out.contains("DEBUG_ASSERTIONS"), "{out}");
        assert!(!out.contains("debug_assert"), "{out}");
    }

    #[test]
    fn conditions_print_as_written() {
        for cond in [
            "!x.is_empty()",
            "x.len() == y.len()",
            "a[i] > 0.0",
            "f(x, y) <= -1.0",
            "(n + 1) % 2 != 0",
            "-x < T::zero()",
            "&v[..k] == w && a & b > 0",
            "x * *y - 2.0 >= z",
        ] {
            assert_eq!(written(&syn::parse_str(cond).unwrap()), cond);
        }
    }

    #[test]
    fn rejected_forms_and_other_macros() {
        // Format arguments (explicit or captured), a missing operand: errors.
        assert_eq!(rewritten("assert!(n > 0, \"n = {}\", n);").1, 1);
        assert_eq!(rewritten("assert!(n > 0, \"n = {n}\");").1, 1);
        assert_eq!(rewritten("assert_eq!(n);").1, 1);
        // Other macros are left for the fence, which rejects them.
        assert_eq!(
            rewritten("println!(\"{}\", x);"),
            (expected("println!(\"{}\", x);"), 0)
        );
    }
}
