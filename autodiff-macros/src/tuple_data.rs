//! Slices of tuples as data (`r: &[(usize, f64)]`, `&Vec<(..)>`, `Vec<(..)>`, `[(..); N]`): parameters that
//! are never active, whose elements the body reads as whole tuples. This pass rewrites each element read
//! into a call of `::autodiff::__private::at`, which the later passes take as a constant call, and each loop
//! over such a slice into a loop over its indexes.
//!
//! ```text
//! // Input:                                     // Output:
//! for &(i, v) in r {                            for __k in 0..r.len() {
//!     s += w[i] * v;                                let (i, v) = ::autodiff::__private::at(r, __k);
//! }                                                 s += w[i] * v;
//! let (i, j, c) = e[t];                         }
//! let c = e[t].2;                               let (i, j, c) = ::autodiff::__private::at(e, t);
//!                                               let c = { let (_, _, __f) = ::autodiff::__private::at(e, t); __f };
//! ```
//!
//! It runs after `chains.rs`, so `r.iter().map(|&(i, v)| ..).sum()` reaches it as such a loop.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Type};

/// Rewrites the reads of the tuple-slice parameters of `item` in its body; a loop over one that binds its
/// elements otherwise than by a tuple pattern is a spanned error.
pub(crate) fn desugar(
    item: &mut syn::ItemFn,
    temporaries: &mut usize,
    errors: &mut crate::errors::Errors,
) {
    let slices = tuple_slices(&item.sig);
    if slices.is_empty() {
        return;
    }
    Rewrite {
        slices,
        temporaries,
        errors,
    }
    .visit_block_mut(&mut item.block);
}

/// Does `ty` hold tuples by index: `&[(..)]`, `&Vec<(..)>`, `Vec<(..)>`, `[(..); N]` or a reference to one?
/// Gives the arity of the tuples and whether the parameter is a reference.
pub(crate) fn tuple_slice(ty: &Type) -> Option<(usize, bool)> {
    let (ty, by_ref) = match ty {
        Type::Reference(r) if r.mutability.is_none() => (&*r.elem, true),
        other => (other, false),
    };
    let element = match ty {
        Type::Slice(s) if by_ref => &*s.elem,
        Type::Array(a) => &*a.elem,
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if last.ident != "Vec" {
                return None;
            }
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            match args.args.first()? {
                syn::GenericArgument::Type(t) => t,
                _ => return None,
            }
        }
        _ => return None,
    };
    match element {
        Type::Tuple(t) if t.elems.len() >= 2 => Some((t.elems.len(), by_ref)),
        _ => None,
    }
}

/// The tuple-slice parameters of `sig`: name, arity, by reference.
pub(crate) fn tuple_slices(sig: &syn::Signature) -> Vec<(syn::Ident, usize, bool)> {
    sig.inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) => {
                    tuple_slice(&t.ty).map(|(arity, by_ref)| (p.ident.clone(), arity, by_ref))
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

struct Rewrite<'a> {
    slices: Vec<(syn::Ident, usize, bool)>,
    temporaries: &'a mut usize,
    errors: &'a mut crate::errors::Errors,
}

impl Rewrite<'_> {
    /// `r`'s arity and the slice as `at` takes it (`r`, or `&r` for one taken by value, spanned on `r`),
    /// if `expr` is a tuple-slice parameter by name.
    fn slice(&self, expr: &Expr) -> Option<(usize, TokenStream)> {
        let Expr::Path(p) = expr else { return None };
        let name = p.path.get_ident()?;
        let (_, arity, by_ref) = self.slices.iter().find(|(n, ..)| n == name)?;
        let span = syn::spanned::Spanned::span(p);
        Some((
            *arity,
            if *by_ref {
                quote!(#p)
            } else {
                quote::quote_spanned!(span=> &#p)
            },
        ))
    }

    /// `r[k]` of a tuple slice (not a range): its arity and the call reading it.
    fn element(&self, expr: &Expr) -> Option<(usize, TokenStream)> {
        let Expr::Index(i) = expr else { return None };
        if matches!(&*i.index, Expr::Range(_)) {
            return None;
        }
        let (arity, slice) = self.slice(&i.expr)?;
        let index = &i.index;
        Some((arity, quote!(::autodiff::__private::at(#slice, #index))))
    }

    /// The tuple slice a `for` iterates (`r`, `&r`, `r.iter()`, with `.enumerate()` and `.rev()`), if any:
    /// whether it counts (`enumerate`), whether it runs backwards, and whether the count runs backwards
    /// with it (`.rev().enumerate()` counts 0, 1, .. from the last element).
    fn iterated<'e>(&self, expr: &'e Expr) -> Option<(&'e Expr, bool, bool, bool)> {
        let method = |e: &'e Expr, name: &str| match strip(e) {
            Expr::MethodCall(m) if m.method == name && m.args.is_empty() => Some(&*m.receiver),
            _ => None,
        };
        let mut iter = strip(expr);
        let (mut enumerate, mut rev, mut counted_back) = (false, false, false);
        if let Some(inner) = method(iter, "rev") {
            rev = true;
            iter = inner;
        }
        if let Some(inner) = method(iter, "enumerate") {
            enumerate = true;
            iter = inner;
            if let Some(inner) = method(iter, "rev") {
                // `.rev().enumerate()`, or `.rev().enumerate().rev()` (forwards, counting down).
                rev = !rev;
                counted_back = true;
                iter = inner;
            }
        }
        let iter = match iter {
            Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => strip(&m.receiver),
            Expr::Reference(r) if r.mutability.is_none() => strip(&r.expr),
            other => other,
        };
        self.slice(iter)?;
        Some((iter, enumerate, rev, counted_back))
    }

    /// `for &(a, b) in r`, `for (a, b) in r.iter()`, `for (k, &(a, b)) in r.iter().enumerate()` (also
    /// `.rev()`): the loop over indexes, with the tuple bound by value at the top of each iteration.
    fn counted(&mut self, f: &syn::ExprForLoop) -> Option<Expr> {
        let (iter, enumerate, rev, counted_back) = self.iterated(&f.expr)?;
        let iter = match iter {
            Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => strip(&m.receiver),
            Expr::Reference(r) if r.mutability.is_none() => strip(&r.expr),
            other => other,
        };
        let (_, slice) = self.slice(iter)?;
        // The length read from the name itself (`r.len()` of a `Vec` or array taken by value too): a
        // receiver `(&r)` was a reference outside a call, which the fence rejects.
        let whole = iter;
        let (count, pat) = match (&*f.pat, enumerate) {
            (Pat::Tuple(t), true) if t.elems.len() == 2 => (Some(&t.elems[0]), &t.elems[1]),
            (_, true) => return None,
            (pat, false) => (None, pat),
        };
        let (tuple, by_reference) = match pat {
            Pat::Reference(r) if r.mutability.is_none() => (&*r.pat, false),
            other => (other, true),
        };
        // Only a tuple pattern of names and `_`: `(i, v)` binds references in Rust, here values.
        let Pat::Tuple(t) = tuple else { return None };
        if !t.elems.iter().all(|p| {
            matches!(p, Pat::Wild(_))
                || matches!(p, Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none())
        }) {
            return None;
        }
        *self.temporaries += 1;
        let index = format_ident!(
            "__tuple_index_{}",
            *self.temporaries,
            span = Span::mixed_site()
        );
        let count = count.map(|c| match counted_back {
            // The count of `.rev().enumerate()`: 0 at the last element.
            true => quote!(let #c = #whole.len() - 1 - #index;),
            false => quote!(let #c = #index;),
        });
        let range = match rev {
            true => quote!((0..#whole.len()).rev()),
            false => quote!(0..#whole.len()),
        };
        // `for (k, (i, _)) in r.iter().enumerate()` binds `i: &usize`, which the body reads as `*i`: with
        // the names bound by value, those reads become `i` (else the function's generic copy, emitted from
        // this body, would dereference a `usize`).
        let mut body = f.body.clone();
        if by_reference {
            let names: Vec<syn::Ident> = t
                .elems
                .iter()
                .filter_map(|p| match p {
                    Pat::Ident(i) => Some(i.ident.clone()),
                    _ => None,
                })
                .collect();
            Undereference { names: &names }.visit_block_mut(&mut body);
        }
        let stmts = &body.stmts;
        let label = &f.label;
        Some(
            syn::parse_quote_spanned!(f.for_token.span=> #label for #index in #range {
                #count
                let #tuple = ::autodiff::__private::at(#slice, #index);
                #(#stmts)*
            }),
        )
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let rewritten: Option<Expr> = match &*expr {
            // `e[t].2`: the field of the element, taken out by a pattern of the tuple's arity.
            Expr::Field(field) => match (&field.member, self.element(strip(&field.base))) {
                (syn::Member::Unnamed(n), Some((arity, read))) if (n.index as usize) < arity => {
                    let value = format_ident!("__field", span = Span::mixed_site());
                    let parts = (0..arity).map(|k| match k == n.index as usize {
                        true => quote!(#value),
                        false => quote!(_),
                    });
                    Some(syn::parse_quote!({ let (#(#parts),*) = #read; #value }))
                }
                _ => None,
            },
            Expr::ForLoop(f) => match self.counted(f) {
                Some(counted) => Some(counted),
                // Over a tuple slice, but with another pattern (`for p in r.iter()`, `p.0`): the error
                // here, at the pattern, and the loop left with an empty body over the indexes, so that
                // the later passes say nothing more of it.
                None => self.iterated(&f.expr).map(|(whole, ..)| {
                    self.errors.spanned(
                        &f.pat,
                        "a slice of tuples is iterated with a tuple pattern that names its parts: \
                         `for &(i, w) in r`, `for (i, w) in r.iter()` (`*i` reads the index), \
                         `for (k, &(i, w)) in r.iter().enumerate()`; or by index, \
                         `for k in 0..r.len() { let (i, w) = r[k]; .. }`",
                    );
                    syn::parse_quote_spanned!(f.for_token.span=> for _ in 0..#whole.len() {})
                }),
            },
            other => self
                .element(other)
                .map(|(_, read)| syn::parse_quote!(#read)),
        };
        if let Some(rewritten) = rewritten {
            *expr = rewritten;
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Rewrites `*name` into `name` for each of `names`.
pub(crate) struct Undereference<'a> {
    pub(crate) names: &'a [syn::Ident],
}

impl VisitMut for Undereference<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Unary(u) = expr {
            if matches!(u.op, syn::UnOp::Deref(_)) {
                if let Expr::Path(p) = strip(&u.expr) {
                    if p.qself.is_none()
                        && p.path.get_ident().is_some_and(|i| self.names.contains(i))
                    {
                        *expr = Expr::Path(p.clone());
                        return;
                    }
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `expr` without the parentheses around it.
pub(crate) fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        other => other,
    }
}
