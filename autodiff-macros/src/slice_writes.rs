//! `x.fill(v);`, `x.copy_from_slice(src);` and `x.clone_from_slice(src);` statements, rewritten into the
//! counted loops they are (`for i in 0..x.len() { x[i] = v; }`) before the other passes read the body, so
//! that every later pass (lowering, the views, the generic copy) sees plain indexed writes. The function
//! itself is emitted as written: a length mismatch panics there as in Rust.

use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// Rewrites the statements of `block`; `temporaries` numbers the loop counters.
pub(crate) fn desugar(block: &mut syn::Block, temporaries: &mut usize) {
    Rewrite { temporaries }.visit_block_mut(block);
}

struct Rewrite<'a> {
    temporaries: &'a mut usize,
}

impl VisitMut for Rewrite<'_> {
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        syn::visit_mut::visit_stmt_mut(self, stmt);
        let Stmt::Expr(Expr::MethodCall(m), Some(_)) = stmt else {
            return;
        };
        let method = m.method.to_string();
        if m.args.len() != 1
            || !matches!(
                method.as_str(),
                "fill" | "copy_from_slice" | "clone_from_slice"
            )
            || !(is_place(&m.receiver) || bounds(&m.receiver).is_some())
        {
            return;
        }
        let (lo, hi, target, bounds) = match bounds(&m.receiver) {
            // `w[a..b].fill(v)`: the writes go to `w[a + i]`, the bounds evaluated once.
            Some((target, start, end)) => {
                let lo = self.name("slice_start");
                let hi = self.name("slice_end");
                let start = start.map_or_else(|| quote!(0), |s| quote!(#s));
                let end = end.map_or_else(|| quote!(#target.len()), |e| quote!(#e));
                (
                    quote!(#lo),
                    quote!(#hi),
                    target,
                    quote!(let #lo = #start; let #hi = #end;),
                )
            }
            None => {
                let target = &*m.receiver;
                (quote!(0), quote!(#target.len()), target, quote!())
            }
        };
        let arg = &m.args[0];
        let index = self.name("slice_write");
        let loop_: Expr = if method == "fill" {
            // The value is evaluated once, before the writes.
            let value = self.name("fill_value");
            syn::parse_quote_spanned!(m.method.span()=> {
                #bounds
                let #value = #arg;
                for #index in #lo..#hi {
                    #target[#index] = #value;
                }
            })
        } else {
            // `&w` and `&w[a..b]` are read by index as `w` and `w[a..b]`.
            let source = match arg {
                Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
                other => other,
            };
            let source = match source {
                Expr::Path(_) => quote!(#source),
                _ => quote!((#source)),
            };
            // The source's index: the write's, less the receiver's start where it has one.
            let read = match bounds.is_empty() {
                true => quote!(#index),
                false => quote!(#index - #lo),
            };
            syn::parse_quote_spanned!(m.method.span()=> {
                #bounds
                for #index in #lo..#hi {
                    #target[#index] = #source[#read];
                }
            })
        };
        *stmt = Stmt::Expr(loop_, None);
    }
}

impl Rewrite<'_> {
    /// A hygienic temporary `__{base}_{n}`.
    fn name(&mut self, base: &str) -> syn::Ident {
        *self.temporaries += 1;
        format_ident!(
            "__{}_{}",
            base,
            *self.temporaries,
            span = Span::mixed_site()
        )
    }
}

/// A sub-slice receiver `w[a..b]`, `w[a..]`, `w[..b]` of a place `w`: `w` and the bounds (`..=` is not
/// one: it stays an error).
fn bounds(expr: &Expr) -> Option<(&Expr, Option<&Expr>, Option<&Expr>)> {
    let Expr::Index(i) = expr else { return None };
    let Expr::Range(r) = &*i.index else {
        return None;
    };
    (matches!(r.limits, syn::RangeLimits::HalfOpen(_)) && is_place(&i.expr)).then_some((
        &*i.expr,
        r.start.as_deref(),
        r.end.as_deref(),
    ))
}

/// A receiver the loop can index: a name (`out`, `self.w` is not one) or an element of one (`m[i]`).
fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.path.get_ident().is_some(),
        Expr::Index(i) => !matches!(&*i.index, Expr::Range(_)) && is_place(&i.expr),
        Expr::Paren(p) => is_place(&p.expr),
        _ => false,
    }
}
