//! The fragments of a `macro_rules!` (`$t:ty`, `$e:expr`) reach an attribute as invisible groups
//! (`None`-delimited), which `syn` parses as `Type::Group` and `Expr::Group`. The passes recognise types
//! and expressions by their syntax (`&[f64]`, a name, a call) and do not look through such groups, so a
//! function a `macro_rules!` writes from `$ty:ty` parameters was rejected ("`x` is not known here to hold a
//! slice"). Here each group becomes what it holds: a type itself, an expression in parentheses where it
//! is not a single operand (the group stands for the fragment's precedence: `$e * 2.0` with `$e` = `x + 1.0`
//! is `(x + 1.0) * 2.0`).

use syn::visit_mut::{self, VisitMut};

/// `item` with its invisible groups of types and expressions unwrapped.
pub(crate) fn unwrap_groups(item: &mut syn::ItemFn) {
    Unwrap.visit_item_fn_mut(item);
}

struct Unwrap;

impl VisitMut for Unwrap {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        while let syn::Type::Group(group) = ty {
            let inner =
                std::mem::replace(&mut *group.elem, syn::Type::Verbatim(Default::default()));
            *ty = inner;
        }
        visit_mut::visit_type_mut(self, ty);
    }

    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::Group(group) = expr {
            let span = group.group_token.span;
            let attrs = std::mem::take(&mut group.attrs);
            let inner =
                std::mem::replace(&mut *group.expr, syn::Expr::Verbatim(Default::default()));
            *expr = match inner {
                // One operand: no precedence to keep.
                e @ (syn::Expr::Path(_)
                | syn::Expr::Lit(_)
                | syn::Expr::Paren(_)
                | syn::Expr::Field(_)
                | syn::Expr::Index(_)
                | syn::Expr::Call(_)
                | syn::Expr::MethodCall(_)
                | syn::Expr::Tuple(_)
                | syn::Expr::Array(_)
                | syn::Expr::Block(_))
                    if attrs.is_empty() =>
                {
                    e
                }
                e => syn::Expr::Paren(syn::ExprParen {
                    attrs,
                    paren_token: syn::token::Paren(span),
                    expr: Box::new(e),
                }),
            };
            // A group of a group.
            return self.visit_expr_mut(expr);
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
    use quote::{quote, ToTokens};

    /// `tokens` in an invisible group, as a `macro_rules!` fragment arrives.
    fn invisible(tokens: TokenStream) -> TokenTree {
        TokenTree::Group(Group::new(Delimiter::None, tokens))
    }

    #[test]
    fn types_and_operands_lose_their_groups_and_sums_keep_their_precedence() {
        let ty = invisible(quote!(&[f64]));
        let sum = invisible(quote!(x[0] + 1.0));
        let name = invisible(quote!(x));
        let tokens = quote! {
            fn f(x: #ty) -> f64 { #sum * 2.0 + #name[1] }
        };
        let mut item: syn::ItemFn = syn::parse2(tokens).expect("parses");
        unwrap_groups(&mut item);
        let text = item.to_token_stream().to_string();
        assert_eq!(
            text,
            quote!(
                fn f(x: &[f64]) -> f64 {
                    (x[0] + 1.0) * 2.0 + x[1]
                }
            )
            .to_string()
        );
    }
}
