//! `std::mem::swap(&mut a, &mut b)` of two locals: of two floats (or integers) it swaps the values the
//! names hold, as an assignment does; of two arrays, which are memory, it swaps their elements in place,
//! the old values taped as for any store.
//!
//! ```text
//! // Input:                                // Output (as lowered):
//! std::mem::swap(&mut a, &mut b);          a ↦ the value b held, b ↦ the value a held  (floats)
//! std::mem::swap(&mut cur, &mut next);     { let mut __assertion = [0usize; 1];        (arrays)
//!                                            if cur.len() != next.len() { __assertion[0] = assertion_failed(..); } }
//!                                          for __k in 0..cur.len() {
//!                                              let __swapped = cur[__k]; cur[__k] = next[__k]; next[__k] = __swapped;
//!                                          }
//! ```
//!
//! Swapping two `Vec`s of different lengths is valid Rust, but their elements cannot be swapped: the
//! generated items panic there (the function itself runs as written), never give a wrong gradient.

use super::{strip_parens, Lowering};
use crate::ir::Operand;
use proc_macro2::Span;
use syn::{Expr, Ident};

/// Is `func` the path of `std::mem::swap` (`mem::swap`, `core::mem::swap`, ..)?
pub(crate) fn is_mem_swap(func: &Expr) -> bool {
    let Expr::Path(p) = strip_parens(func) else {
        return false;
    };
    let segments = crate::naming::path_names(&p.path);
    match segments.as_slice() {
        [.., module, last] => module == "mem" && last == "swap",
        _ => false,
    }
}

/// The two names of `std::mem::swap(&mut a, &mut b)`, the form this pass lowers (the fence rejects others).
pub(crate) fn swapped_names(c: &syn::ExprCall) -> Option<(&Ident, &Ident)> {
    fn name(e: &Expr) -> Option<&Ident> {
        match strip_parens(e) {
            Expr::Reference(r) if r.mutability.is_some() => match strip_parens(&r.expr) {
                Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
                _ => None,
            },
            _ => None,
        }
    }
    match (c.args.len(), c.args.first(), c.args.last()) {
        (2, Some(a), Some(b)) => Some((name(a)?, name(b)?)),
        _ => None,
    }
}

impl Lowering<'_> {
    /// `std::mem::swap(&mut a, &mut b)` (see the module's documentation).
    pub(super) fn lower_swap(&mut self, c: &syn::ExprCall) -> Operand {
        let Some((a, b)) = swapped_names(c) else {
            self.errors.spanned(c, SWAP_FORM);
            return Operand::unit();
        };
        let (a, b) = (a.to_string(), b.to_string());
        // `std::mem::swap(&mut p, &mut q)` of two reference parameters swaps what they point to, not the
        // values: not lowered (a conservative check, by name: a local of the same name is refused too).
        let reference_parameter = |this: &Self, name: &str| {
            this.param_vars
                .iter()
                .zip(&this.param_types)
                .any(|(v, ty)| {
                    this.vars[v.0 as usize].hint.as_deref() == Some(name)
                        && matches!(ty, syn::Type::Reference(_))
                })
        };
        if reference_parameter(self, &a) || reference_parameter(self, &b) {
            self.errors.spanned(
                c,
                "`std::mem::swap` of a reference parameter (`p: &mut [f64]`, `p: &f64`) swaps what the \
                 references point to, which is not supported: swap two local copies (`let mut a = \
                 p.to_vec();`), or the values, element by element",
            );
            return Operand::unit();
        }
        let value =
            |this: &Self, name: &str| this.lookup(name).and_then(|binding| binding.value.clone());
        let (Some(va), Some(vb)) = (value(self, &a), value(self, &b)) else {
            self.errors.spanned(c, SWAP_FORM);
            return Operand::unit();
        };
        match (&va, &vb) {
            (Operand::Array(x), Operand::Array(y)) => {
                if self.rows_of(*x).is_some() || self.rows_of(*y).is_some() {
                    self.errors.spanned(
                        c,
                        "`std::mem::swap` of two matrices is not supported: swap their elements \
                         (`for i in 0..a.len() { for j in 0..a[i].len() { .. } }`)",
                    );
                    return Operand::unit();
                }
                let fixed =
                    |this: &Self, array: &crate::ir::Array| this.arrays[array.0 as usize].fixed;
                let same_length = fixed(self, x) || fixed(self, y);
                let (ia, ib) = (crate::naming::local(&a), crate::naming::local(&b));
                let (k, held) = (
                    Ident::new("__k", Span::mixed_site()),
                    Ident::new("__swapped", Span::mixed_site()),
                );
                if !same_length {
                    let message = format!(
                        "a `#[differentiable]` function swapped `{a}` and `{b}` (`std::mem::swap`), two \
                         `Vec`s of different lengths: its derivatives swap their elements, which needs the \
                         same length"
                    );
                    let check: Expr = syn::parse_quote!({
                        let mut __assertion = [0usize; 1];
                        if #ia.len() != #ib.len() {
                            __assertion[0] = ::autodiff::__private::assertion_failed(#message);
                        }
                    });
                    self.lower_expr(&check, None);
                }
                let swap: Expr = syn::parse_quote!(for #k in 0..#ia.len() {
                    let #held = #ia[#k];
                    #ia[#k] = #ib[#k];
                    #ib[#k] = #held;
                });
                self.lower_expr(&swap, None);
            }
            (Operand::Array(_), _) | (_, Operand::Array(_)) => {
                self.errors.spanned(
                    c,
                    "`std::mem::swap` of an array and a value the macro cannot tell is an array is not \
                     supported: swap two arrays or two floats",
                );
            }
            _ => {
                if let Some(binding) = self.lookup_mut(&a) {
                    binding.value = Some(vb);
                }
                if let Some(binding) = self.lookup_mut(&b) {
                    binding.value = Some(va);
                }
            }
        }
        Operand::unit()
    }
}

/// The error for a `std::mem::swap` this pass does not lower.
pub(crate) const SWAP_FORM: &str = "`std::mem::swap` is supported of two local variables or parameters \
                                    declared `mut`, `std::mem::swap(&mut a, &mut b)`: swap other places \
                                    through a tuple `let` (`let (p, q) = (b[j], a[i]); a[i] = p; b[j] = q;`)";
