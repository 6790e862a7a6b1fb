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
            || !is_place(&m.receiver)
        {
            return;
        }
        let target = &m.receiver;
        let arg = &m.args[0];
        let index = format_ident!(
            "__slice_write_{}",
            *self.temporaries,
            span = Span::mixed_site()
        );
        *self.temporaries += 1;
        let loop_: Expr = if method == "fill" {
            // The value is evaluated once, before the writes (it may read the receiver).
            let value = format_ident!(
                "__fill_value_{}",
                *self.temporaries,
                span = Span::mixed_site()
            );
            *self.temporaries += 1;
            syn::parse_quote_spanned!(m.method.span()=> {
                let #value = #arg;
                for #index in 0..#target.len() {
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
            syn::parse_quote_spanned!(m.method.span()=> {
                for #index in 0..#target.len() {
                    #target[#index] = #source[#index];
                }
            })
        };
        *stmt = Stmt::Expr(loop_, None);
    }
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
