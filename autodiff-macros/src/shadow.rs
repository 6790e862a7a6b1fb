//! The generic shadow of a function written for `f64` (or `f32`), for `order = K`: the same function with
//! its float type replaced by a type parameter, so that the higher-order items can run it on dual numbers.
//!
//! ```text
//! // Input:                                   // Output:
//! fn f(x: f64, w: &[f64]) -> f64 {            fn __f_generic<__S: Float>(x: __S, w: &[__S]) -> __S {
//!     let c = 2.0 * std::f64::consts::PI;         let c = lit::<__S>(2.0) * lit::<__S>(std::f64::consts::PI);
//!     x.sin() * c + w[0] * f64::EPSILON           x.sin() * c + w[0] * __S::epsilon()
//! }                                           }
//! ```
//!
//! Literals and constants become `lit::<__S>(..)` (exact for `f64` and `Dual<f64>`), the type becomes `__S`
//! wherever it is written, and `f64::sin(x)` becomes `__S::sin(x)`. A call of another function written for
//! `f64` cannot take `__S`: that is a type error, and the README says to make such functions generic.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Type};

/// The generic shadow of `item`, whose float type is `float` (`f64` or `f32`), named `name`.
pub(crate) fn shadow(item: &syn::ItemFn, float: &str, name: &Ident) -> syn::ItemFn {
    let mut shadow = item.clone();
    shadow.sig.ident = name.clone();
    shadow.attrs.clear();
    shadow.vis = syn::Visibility::Inherited;
    let scalar = Ident::new("__S", Span::call_site());
    shadow
        .sig
        .generics
        .params
        .push(syn::parse_quote!(#scalar: ::autodiff::__private::Float));
    let mut rewrite = Rewrite {
        float,
        scalar: &scalar,
    };
    rewrite.visit_signature_mut(&mut shadow.sig);
    rewrite.visit_block_mut(&mut shadow.block);
    // Method calls (`x.sin()`) need the trait in scope.
    shadow.block.stmts.insert(
        0,
        syn::parse_quote!(
            use ::autodiff::__private::Float as _;
        ),
    );
    shadow
}

/// The operator of a compound assignment (`+` for `+=`).
fn compound(op: &syn::BinOp) -> Option<TokenStream> {
    use syn::BinOp::*;
    Some(match op {
        AddAssign(_) => quote!(+),
        SubAssign(_) => quote!(-),
        MulAssign(_) => quote!(*),
        DivAssign(_) => quote!(/),
        RemAssign(_) => quote!(%),
        _ => return None,
    })
}

struct Rewrite<'a> {
    float: &'a str,
    scalar: &'a Ident,
}

impl Rewrite<'_> {
    fn lit(&self, value: TokenStream) -> Expr {
        let scalar = self.scalar;
        syn::parse_quote!(::autodiff::__private::lit::<#scalar>(#value))
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty {
            if p.qself.is_none() && p.path.is_ident(self.float) {
                let scalar = self.scalar;
                *ty = syn::parse_quote!(#scalar);
                return;
            }
        }
        visit_mut::visit_type_mut(self, ty);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Lit(l) if matches!(l.lit, syn::Lit::Float(_)) => {
                let value = l.to_token_stream();
                *expr = self.lit(quote!(#value as f64));
                // The replacement is final: its `as f64` is not the function's float type to rewrite.
                return;
            }
            Expr::Path(p) if p.qself.is_none() => {
                let segments: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                let position = segments.iter().position(|s| s == self.float);
                match (position, segments.last().map(String::as_str)) {
                    // `std::f64::consts::PI`, `f64::consts::E`: a constant of the module.
                    (Some(i), _) if segments.get(i + 1).is_some_and(|s| s == "consts") => {
                        let path = p.to_token_stream();
                        *expr = self.lit(quote!(#path as f64));
                        return;
                    }
                    // `f64::EPSILON` and friends: the `Float` method of the same value.
                    (Some(i), Some(last)) if i + 2 == segments.len() => {
                        let method = match last {
                            "EPSILON" => Some("epsilon"),
                            "INFINITY" => Some("infinity"),
                            "NEG_INFINITY" => Some("neg_infinity"),
                            "NAN" => Some("nan"),
                            "MAX" => Some("max_value"),
                            "MIN" => Some("min_value"),
                            "MIN_POSITIVE" => Some("min_positive_value"),
                            _ => None,
                        };
                        let scalar = self.scalar;
                        match method {
                            Some(m) => {
                                let m = Ident::new(m, Span::call_site());
                                *expr = syn::parse_quote!(<#scalar as ::autodiff::__private::Float>::#m());
                                return;
                            }
                            // `f64::sin` as a function path: the type parameter's.
                            None => {
                                if let Some(segment) = p.path.segments.iter_mut().nth(i) {
                                    segment.ident = scalar.clone();
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            // `a += b`: `Float` has no `AddAssign`; `a = a + b` means the same in the subset.
            Expr::Binary(b) if compound(&b.op).is_some() => {
                self.visit_expr_mut(&mut b.left);
                self.visit_expr_mut(&mut b.right);
                let (left, right) = (&b.left, &b.right);
                let op = compound(&b.op).unwrap_or_default();
                *expr = syn::parse_quote!(#left = #left #op #right);
                return;
            }
            // `n as f64`: `as` cannot name a type parameter.
            Expr::Cast(c) if matches!(&*c.ty, Type::Path(p) if p.path.is_ident(self.float)) => {
                self.visit_expr_mut(&mut c.expr);
                let (scalar, value) = (self.scalar, &c.expr);
                *expr = syn::parse_quote!(::autodiff::__private::cast::<#scalar, _>(#value));
                return;
            }
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                // `vec![0.0; n]`: rewrite the expressions inside the macro too.
                let parsed = m.mac.parse_body_with(
                    syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
                );
                if let Ok(mut items) = parsed {
                    for item in items.iter_mut() {
                        self.visit_expr_mut(item);
                    }
                    m.mac.tokens = items.to_token_stream();
                } else {
                    let tokens = m.mac.tokens.clone();
                    if let Ok(mut repeat) = syn::parse2::<syn::ExprRepeat>(quote!([#tokens])) {
                        self.visit_expr_mut(&mut repeat.expr);
                        self.visit_expr_mut(&mut repeat.len);
                        let (value, len) = (&repeat.expr, &repeat.len);
                        m.mac.tokens = quote!(#value; #len);
                    }
                }
                return;
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}
