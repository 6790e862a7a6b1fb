//! The companion module: how a call finds its callee's derivatives.
//!
//! A macro sees one item at a time, so a `#[differentiable]` body that calls `g(x, n)` cannot look at `g`.
//! It relies on a rule instead: beside each function `g` that has derivatives (`#[differentiable]`,
//! `#[custom_gradient]`, or registered with `#[gradient_of]`) there is a hidden module of the same name,
//! `g`, with two functions of a uniform shape, one slot per parameter:
//!
//! ```text
//! mod g {
//!     fn vjp(x: f64, n: usize, d_ret: f64) -> (f64, (f64, ()))     // cotangent per parameter, () if none
//!     fn jvp(x: f64, n: usize, tangents: (f64, ())) -> (f64, f64)  // tangent per parameter, () if none
//! }
//! ```
//!
//! A module lives in the type namespace and a function in the value namespace, so `g` names both, and
//! `use other::g;` imports both: the caller writes `g::vjp(..)` wherever it can write `g(..)`, across
//! modules and crates. The uniform shape frees the caller from knowing which of `g`'s parameters are
//! active (`wrt(..)` is the callee's business).

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::{Type, Visibility};

/// One parameter of the function, as its companion sees it.
pub(crate) struct Slot {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    /// Does the function's `_vjp` give a gradient for it (and take a tangent in `_jvp`)?
    pub(crate) active: bool,
    /// The type of its tangent or cotangent if it is a float or an array (active or not), else `None`.
    pub(crate) tangent_ty: Option<TokenStream>,
}

/// The companion module of `name`, whose derivatives are the functions at `vjp` and `jvp` (paths from
/// inside the module, such as `super::f_vjp`), with the signatures of `#[differentiable]`'s items.
pub(crate) fn companion(
    vis: &Visibility,
    name: &Ident,
    generics: &syn::Generics,
    slots: &[Slot],
    ret: &TokenStream,
    vjp: &TokenStream,
    jvp: &TokenStream,
) -> TokenStream {
    let inner_vis = inner_visibility(vis);
    let where_clause = &generics.where_clause;
    let params: Vec<TokenStream> = slots
        .iter()
        .map(|s| {
            let (ident, ty) = (&s.ident, &s.ty);
            quote!(#ident: #ty)
        })
        .collect();
    let idents: Vec<&Ident> = slots.iter().map(|s| &s.ident).collect();
    let fixed = |n: &str| Ident::new(n, Span::mixed_site());
    let (d_ret, tangents, value, gradient) = (
        fixed("d_ret"),
        fixed("tangents"),
        fixed("value"),
        fixed("gradient"),
    );
    // vjp: spread the gradient of the active parameters over one slot per parameter.
    let gradient_names: Vec<Ident> = (0..slots.iter().filter(|s| s.active).count())
        .map(|i| Ident::new(&format!("__gradient_{i}"), Span::mixed_site()))
        .collect();
    let unpack_gradient = match gradient_names.as_slice() {
        [] => quote!(let () = #gradient;),
        [one] => quote!(let #one = #gradient;),
        many => quote!(let (#(#many),*) = #gradient;),
    };
    let mut active_names = gradient_names.iter();
    let cotangent_slots: Vec<TokenStream> = slots
        .iter()
        .map(|s| match s.active.then(|| active_names.next()).flatten() {
            Some(name) => name.to_token_stream(),
            None => quote!(()),
        })
        .collect();
    let cotangent_types: Vec<TokenStream> = slots
        .iter()
        .map(|s| match (&s.tangent_ty, s.active) {
            (Some(t), true) => t.clone(),
            _ => quote!(()),
        })
        .collect();
    // jvp: gather the tangents of the active parameters from one slot per parameter.
    let tangent_types: Vec<TokenStream> = slots
        .iter()
        .map(|s| s.tangent_ty.clone().unwrap_or_else(|| quote!(())))
        .collect();
    let tangent_names: Vec<TokenStream> = slots
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if s.active {
                Ident::new(&format!("__tangent_{i}"), Span::mixed_site()).to_token_stream()
            } else {
                quote!(_)
            }
        })
        .collect();
    let active_tangents: Vec<&TokenStream> = tangent_names
        .iter()
        .filter(|t| t.to_string() != "_")
        .collect();
    let tangent = match active_tangents.as_slice() {
        [one] => quote!(#one),
        many => quote!((#(#many),*)),
    };
    quote! {
        #[doc(hidden)]
        #[allow(unused_imports, non_snake_case, clippy::pedantic, clippy::nursery)]
        #vis mod #name {
            use super::*;

            #[inline]
            #[allow(clippy::unused_unit, clippy::let_unit_value)]
            #inner_vis fn vjp #generics (#(#params,)* #d_ret: #ret) -> (#ret, (#(#cotangent_types,)*)) #where_clause {
                let (#value, #gradient) = #vjp(#(#idents,)* #d_ret);
                #unpack_gradient
                (#value, (#(#cotangent_slots,)*))
            }

            #[inline]
            #inner_vis fn jvp #generics (#(#params,)* #tangents: (#(#tangent_types,)*)) -> (#ret, #ret) #where_clause {
                let (#(#tangent_names,)*) = #tangents;
                #jvp(#(#idents,)* #tangent)
            }
        }
    }
}

/// The visibility of an item inside the companion module that matches `vis` outside it: one level deeper,
/// `pub(super)` for a private function, `pub(in super::super)` for `pub(super)`.
fn inner_visibility(vis: &Visibility) -> TokenStream {
    match vis {
        Visibility::Public(_) => quote!(pub),
        Visibility::Inherited => quote!(pub(super)),
        Visibility::Restricted(r) => {
            let path = &r.path;
            let first = path
                .segments
                .first()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            match first.as_str() {
                "crate" => quote!(pub(crate)),
                "self" => {
                    let rest = path.segments.iter().skip(1);
                    quote!(pub(in super #(::#rest)*))
                }
                "super" => quote!(pub(in super::#path)),
                _ => quote!(pub(in #path)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility_goes_one_level_deeper() {
        let vis = |s: &str| inner_visibility(&syn::parse_str(s).unwrap()).to_string();
        assert_eq!(vis("pub"), "pub");
        assert_eq!(vis(""), "pub (super)");
        assert_eq!(vis("pub(crate)"), "pub (crate)");
        assert_eq!(vis("pub(super)"), "pub (in super :: super)");
        assert_eq!(vis("pub(self)"), "pub (in super)");
        assert_eq!(vis("pub(in crate::a)"), "pub (crate)");
    }
}
