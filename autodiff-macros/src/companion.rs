//! The companion type: how a call finds its callee's derivatives.
//!
//! A macro sees one item at a time, so a `#[differentiable]` body that calls `g(x, n)` cannot look at `g`.
//! It relies on a rule instead: beside each function `g` that has derivatives (`#[differentiable]`,
//! `#[custom_gradient]`, or registered with `#[gradient_of]`) there is a hidden type of the same name, `g`,
//! with two methods of a uniform shape, one slot per parameter:
//!
//! ```text
//! struct g {}
//! impl g {
//!     fn vjp(self, x: f64, n: usize, d_ret: f64) -> (f64, (f64, ()))     // cotangent per parameter, () if none
//!     fn jvp(self, x: f64, n: usize, tangents: (f64, ())) -> (f64, f64)  // tangent per parameter, () if none
//! }
//! ```
//!
//! A type lives in the type namespace and a function in the value namespace, so `g` names both, and
//! `use other::g;` imports both: the caller reaches `g`'s type wherever it can write `g(..)`, across
//! modules and crates, and also for functions declared inside a function body (which a module could not
//! see). The uniform shape frees the caller from knowing which of `g`'s parameters are active (`wrt(..)`
//! is the callee's business).
//!
//! The call site ([`derivative_of`], through `autodiff_core`'s `derivative_of!`) imports the callee's path
//! under a name of its own, in a block, beside a glob import of a fallback type of the same name: an
//! explicit import shadows a glob, so the fallback is used only when the callee has no companion; its
//! inherent `__autodiff_lookup` then gives `autodiff_core`'s `NoDerivative`, which fails the bound of
//! `require_derivative` with the message of `HasDerivative`, the one error the user sees (identical in
//! each generated function, so rustc shows it once). A call by a path (`libm::erf(x)`) first asks
//! `::autodiff::__private::Site` for a method named after the path, which a `#[gradient_of(libm::erf)]`
//! in scope adds through a trait of its own (a method of the receiver's own type is found before the
//! call site's fallback for `&Site`).

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
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

/// What the companion type of a function is made of.
pub(crate) struct Companion<'a> {
    pub(crate) vis: &'a Visibility,
    /// The function's name, which the type takes.
    pub(crate) name: &'a Ident,
    pub(crate) generics: &'a syn::Generics,
    pub(crate) slots: &'a [Slot],
    pub(crate) ret: TokenStream,
    /// Paths to functions with the signatures of `#[differentiable]`'s `_vjp` and `_jvp` (`f_vjp`, or
    /// `Self::__registered_vjp` among the extra items).
    pub(crate) vjp: TokenStream,
    pub(crate) jvp: TokenStream,
    /// Further associated functions (the derivatives of a registered function).
    pub(crate) extra: TokenStream,
    /// A method or associated function of an `impl`, where no type can be declared: the two functions
    /// become associated functions `__f_vjp` and `__f_jvp` of the same `impl`.
    pub(crate) method: bool,
}

/// The companion type described by `c`.
pub(crate) fn companion(c: &Companion) -> TokenStream {
    let Companion {
        vis,
        name,
        generics,
        slots,
        ret,
        vjp,
        jvp,
        extra,
        method,
    } = c;
    let where_clause = &generics.where_clause;
    let params: Vec<TokenStream> = slots
        .iter()
        .map(|s| crate::signature::declare(&s.ident, &s.ty))
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
    if *method {
        let (vjp_name, jvp_name) = (
            crate::naming::method_companion(name, "vjp"),
            crate::naming::method_companion(name, "jvp"),
        );
        return quote! {
            #extra

            #[doc(hidden)]
            #[inline]
            #[allow(dead_code, clippy::unused_unit, clippy::let_unit_value, clippy::pedantic, clippy::nursery)]
            #vis fn #vjp_name #generics (#(#params,)* #d_ret: #ret) -> (#ret, (#(#cotangent_types,)*)) #where_clause {
                let (#value, #gradient) = #vjp(#(#idents,)* #d_ret);
                #unpack_gradient
                (#value, (#(#cotangent_slots,)*))
            }

            #[doc(hidden)]
            #[inline]
            #[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #vis fn #jvp_name #generics (#(#params,)* #tangents: (#(#tangent_types,)*)) -> (#ret, #ret) #where_clause {
                let (#(#tangent_names,)*) = #tangents;
                #jvp(#(#idents,)* #tangent)
            }
        };
    }
    quote! {
        #[doc(hidden)]
        // Unused unless a differentiable function calls `#name`.
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        impl #name {
            #extra

            #[inline]
            #[allow(clippy::unused_unit, clippy::let_unit_value)]
            #vis fn vjp #generics (self, #(#params,)* #d_ret: #ret) -> (#ret, (#(#cotangent_types,)*)) #where_clause {
                let (#value, #gradient) = #vjp(#(#idents,)* #d_ret);
                #unpack_gradient
                (#value, (#(#cotangent_slots,)*))
            }

            #[inline]
            #vis fn jvp #generics (self, #(#params,)* #tangents: (#(#tangent_types,)*)) -> (#ret, #ret) #where_clause {
                let (#(#tangent_names,)*) = #tangents;
                #jvp(#(#idents,)* #tangent)
            }
        }
    }
}

/// The callable that computes the derivative `item` (`vjp` or `jvp`) of a call of `callee` with
/// `arguments` arguments, to be called with those arguments and the cotangent (or the tangents).
///
/// ```text
/// // Input: a call `libm::erf(x)` with `x` active     // Output: the callable
/// libm::erf(x)                                       ::autodiff::__private::derivative_of!(
///                                                        libm::erf, vjp(_, _), __autodiff_gradient_of__libm__erf
///                                                    ).vjp
/// ```
///
/// `derivative_of!` (in `autodiff_core`) finds a registration by path, else the companion type at the
/// path, else a fallback whose lookup fails with the message of `HasDerivative`.
///
/// A call of an associated function, `Self::f` or `Type::f` (a path whose second-to-last segment is
/// `Self` or capitalised, as types are), goes to the associated function `Self::__f_item` that
/// `#[differentiable]` emits beside a method instead (a type cannot be declared inside an `impl`).
pub(crate) fn derivative_of(callee: &syn::ExprPath, item: &str, arguments: usize) -> TokenStream {
    let segments = &callee.path.segments;
    let in_impl = segments.len() >= 2
        && segments.iter().nth(segments.len() - 2).is_some_and(|s| {
            s.ident == "Self" || s.ident.to_string().starts_with(char::is_uppercase)
        });
    if in_impl {
        let mut path = callee.clone();
        if let Some(last) = path.path.segments.last_mut() {
            last.ident = crate::naming::method_companion(&last.ident, item);
            if let syn::PathArguments::AngleBracketed(args) = &mut last.arguments {
                args.colon2_token = Some(Default::default());
            }
        }
        return path.to_token_stream();
    }
    let mut path = callee.path.clone();
    let Some(last) = path.segments.last_mut() else {
        return callee.to_token_stream();
    };
    let generics = match std::mem::replace(&mut last.arguments, syn::PathArguments::None) {
        syn::PathArguments::AngleBracketed(mut args) => {
            args.colon2_token = Some(Default::default());
            Some(args)
        }
        _ => None,
    };
    let span = last.ident.span();
    let item = Ident::new(item, span);
    let placeholders = (0..arguments).map(|_| quote!(_));
    let registered = crate::naming::registered_path(&path).map(|method| quote!(, #method));
    quote_spanned! {span=>
        ::autodiff::__private::derivative_of!(#path, #item(#(#placeholders),*) #registered).#item #generics
    }
}
