//! `T::from(p.k as f64)` of a parameter struct's field in generic code, rewritten on the syntax, before
//! the later passes, into `T::from(p.k)`, the conversion those passes read (`lower::calls`'
//! `lower_field_conversion`: a `#[no_grad]` count has no derivative, a float field keeps its own, at every
//! order). The field is a number of a primitive type (`as f64` compiles), so converting it through `f64`
//! or directly gives the same value of `T` (`NumCast`), but the first is a call of `T::from` on a cast,
//! which had no known derivative, and a hidden function that takes the field as a float input (`__p_k: T`)
//! could not keep the cast (`T as f64`, E0605).
//!
//! ```text
//! // Input (T a float type parameter):        // Output:
//! T::from(self.k as f64).unwrap()             T::from(self.k).unwrap()
//! T::from((p.inner.n as f32)).expect("n")     T::from(p.inner.n).expect("n")
//! ```
//!
//! Only a field access (`self.k`, `p.inner.n`) cast to `f64` or `f32`, inside `T::from(..)` of a float type
//! parameter `T`: a local or an expression cast so is left as written.

use crate::lower::strip_parens;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident};

/// Rewrites `T::from(<field> as f64)` into `T::from(<field>)` in `block`, for `T` among `floats`.
pub(crate) fn rewrite(block: &mut syn::Block, floats: &[Ident]) {
    if !floats.is_empty() {
        Rewrite { floats }.visit_block_mut(block);
    }
}

struct Rewrite<'a> {
    floats: &'a [Ident],
}

/// Is `e` a field access rooted at a name (`self.k`, `p.inner.n`)?
fn field_access(e: &Expr) -> bool {
    match strip_parens(e) {
        Expr::Field(f) => match strip_parens(&f.base) {
            Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
            base @ Expr::Field(_) => field_access(base),
            _ => false,
        },
        _ => false,
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
        visit_mut::visit_expr_call_mut(self, call);
        let Expr::Path(path) = strip_parens(&call.func) else {
            return;
        };
        let segments: Vec<_> = path.path.segments.iter().collect();
        let [ty, from] = segments.as_slice() else {
            return;
        };
        let conversion = path.qself.is_none()
            && path.path.leading_colon.is_none()
            && from.ident == "from"
            && matches!(from.arguments, syn::PathArguments::None)
            && matches!(ty.arguments, syn::PathArguments::None)
            && self.floats.contains(&ty.ident)
            && call.args.len() == 1;
        if !conversion {
            return;
        }
        let Some(Expr::Cast(cast)) = call.args.first().map(strip_parens) else {
            return;
        };
        let to_float = matches!(&*cast.ty, syn::Type::Path(t) if t.qself.is_none()
            && (t.path.is_ident("f64") || t.path.is_ident("f32")));
        if to_float && field_access(&cast.expr) {
            let field = strip_parens(&cast.expr).clone();
            call.args[0] = field;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{quote, ToTokens};

    fn rewritten(body: proc_macro2::TokenStream) -> String {
        let mut block: syn::Block = syn::parse2(quote!({ #body })).expect("a block");
        rewrite(
            &mut block,
            &[Ident::new("T", proc_macro2::Span::call_site())],
        );
        block.to_token_stream().to_string()
    }

    #[test]
    fn a_field_cast_inside_t_from_loses_its_cast() {
        let out = rewritten(quote!(
            T::from(self.k as f64).unwrap() * T::from((p.inner.n as f32)).expect("n")
        ));
        assert!(out.contains("T :: from (self . k) . unwrap ()"), "{out}");
        assert!(
            out.contains("T :: from (p . inner . n) . expect (\"n\")"),
            "{out}"
        );
    }

    #[test]
    fn other_casts_and_types_stay() {
        for body in [
            quote!(T::from(n as f64).unwrap()),
            quote!(T::from((p.k + 1) as f64).unwrap()),
            quote!(S::from(p.k as f64).unwrap()),
            quote!(T::from(p.k as usize).unwrap()),
        ] {
            let before = quote!({ #body }).to_string();
            let after = rewritten(body);
            assert_eq!(before.replace(' ', ""), after.replace(' ', ""), "{after}");
        }
    }
}
