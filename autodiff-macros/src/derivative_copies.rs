//! The generic copies of the derivatives `#[differentiable]` generates (`f_grad`, `f_vjp`, `f_jvp`,
//! `f_hvp`), which the generic copy of a `#[custom_gradient]` function (or of a `#[gradient_of]`
//! registration) calls where its body or closure calls them (`custom_copy.rs`).
//!
//! The copy of a custom function calls each callee through its companion type (`copy_by_name!`): so
//! beside each generated derivative stands a hidden type of the same name, found wherever the derivative's
//! name is (imported by `use`, or by a path), implementing `__private::GenericCopy`, whose `call` is the
//! derivative generic over the float type:
//!
//! ```text
//! // Input:  #[differentiable] fn sq(x: f64, n: usize) -> f64 { .. }
//! // Output (beside `sq_grad` and the others):
//! struct sq_grad {}
//! impl GenericCopy for sq_grad { type Copy = sq_grad; .. }
//! impl sq_grad {
//!     fn call<__S: Float>(x: __S, n: usize) -> (__S, __S) {
//!         let (value, (c0, _)) = <sq as GenericCopy>::copy().vjp(x, n, One::one());
//!         (value, c0)
//!     }
//! }
//! struct sq_hvp {}   // with `order = K`: `__sq_generic_hvp`, the generic copy's own, at `__S`
//! ```
//!
//! `f_grad` and `f_vjp` are the vector-Jacobian product of `f`'s generic copy (its companion's `vjp`, over
//! every float parameter) with the cotangent one (or `d_ret`), the slots of the parameters outside
//! `wrt(..)` dropped; `f_jvp` its `jvp`, those slots' tangents zero; and `f_hvp` the generic copy's own
//! `_hvp` (forward over its reverse sweep, `higher.rs`), which an `order = K` function written for `f64`
//! has because its copy is differentiated with `order = K` too. So an `order = K` caller, which runs the
//! custom function's copy on dual numbers, differentiates `f_grad(x)` through `f`'s reverse sweep run on
//! dual numbers: the derivative of the gradient `jax.hessian` takes of a `jax.custom_vjp` whose forward
//! code calls `jax.grad(f)`. Where `f` has no generic copy, its companion's is the fallback that says why
//! (`companion::fallback_copy`), an error only once an `order = K` function instantiates it.
//!
//! Each type also answers `derivative_of!`'s lookup as a function without derivatives does
//! (`__autodiff_lookup`, `NoDerivative`): a generated derivative called with an active argument in a
//! differentiable body stays the error it was (nested differentiation), not a method missing on this type.

use crate::signature::Signature;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// The function whose generated derivatives get generic copies, and which of them it has.
pub(crate) struct Derivatives<'a> {
    pub(crate) item: &'a syn::ItemFn,
    pub(crate) sig: &'a Signature,
    /// The float type the function is written for, which the copies make a type parameter `__S`; `None`
    /// for a function generic over its float type, whose copies keep its generics.
    pub(crate) float: Option<&'a str>,
    pub(crate) grad: bool,
    pub(crate) vjp: bool,
    pub(crate) jvp: bool,
    /// The generic `_hvp` that `f_hvp`'s copy calls (`__f_generic_hvp`, or `f_hvp` of a generic function).
    pub(crate) hvp: Option<Ident>,
}

/// The hidden types beside `d`'s generated derivatives (see the module's documentation); nothing for a
/// function with output parameters.
pub(crate) fn items(d: &Derivatives) -> TokenStream {
    let sig = d.sig;
    // (A float type written as a path, `::core::primitive::f64`, is not made `__S`.)
    let by_path = crate::naming::names_any(d.item.sig.to_token_stream(), &["primitive"]);
    if sig.outputs().next().is_some() || by_path {
        return TokenStream::new();
    }
    let name = &d.item.sig.ident;
    let vis = &d.item.vis;
    let scalar = Ident::new("__S", Span::call_site());
    let mut generics = d.item.sig.generics.clone();
    if d.float.is_some() {
        generics
            .params
            .push(syn::parse_quote!(#scalar: ::autodiff::__private::Float));
    }
    let where_clause = &generics.where_clause;
    // The written float type made `__S`.
    let generic = |tokens: TokenStream| match d.float {
        Some(float) => crate::shadow::replace_float(tokens, float, &scalar),
        None => tokens,
    };
    let fixed = |n: &str| Ident::new(n, Span::mixed_site());
    let params: Vec<TokenStream> = sig
        .params
        .iter()
        .map(|p| generic(crate::signature::declare(&p.ident, &p.ty)))
        .collect();
    let idents: Vec<&Ident> = sig.params.iter().map(|p| &p.ident).collect();
    let ret_ty = &sig.ret_ty;
    let ret = generic(quote!(#ret_ty));
    let gradient = generic(sig.gradient_type());
    let copy = quote!(<#name as ::autodiff::__private::GenericCopy>::copy());
    // The companion's slot of each parameter: a cotangent (or tangent) where it differentiates through it.
    let cotangent: Vec<Ident> = (0..sig.params.len())
        .map(|i| format_ident!("__slot_{}", i, span = Span::mixed_site()))
        .collect();
    let slot_patterns = sig
        .params
        .iter()
        .zip(&cotangent)
        .map(|(p, c)| match p.active {
            true => quote!(#c),
            false => quote!(_),
        });
    let slot_patterns = quote!((#(#slot_patterns,)*));
    let active: Vec<&Ident> = sig
        .params
        .iter()
        .zip(&cotangent)
        .filter(|(p, _)| p.active)
        .map(|(_, c)| c)
        .collect();
    let gathered = match active.as_slice() {
        [one] => quote!(#one),
        many => quote!((#(#many,)*)),
    };
    let (value, d_ret, tangent, v) = (
        fixed("__value"),
        fixed("d_ret"),
        fixed("tangent"),
        fixed("v"),
    );
    // Every parameter active, and several: the companion's slots are the gradient's tuple.
    let all_active = sig.params.len() > 1 && sig.params.iter().all(|p| p.active);
    let vjp_body = |d_ret: TokenStream| match all_active {
        true => quote!(#copy.vjp(#(#idents,)* #d_ret)),
        false => quote! {
            let (#value, #slot_patterns) = #copy.vjp(#(#idents,)* #d_ret);
            (#value, #gathered)
        },
    };
    let mut out = TokenStream::new();
    // `extra`: the derivative's parameter after the function's own (`d_ret: R`), its name and type.
    let mut emit = |suffix: &str,
                    extra: Option<(&Ident, &TokenStream)>,
                    returns: TokenStream,
                    body: TokenStream| {
        let ty = format_ident!("{}_{}", name, suffix, span = name.span());
        let args: Vec<&Ident> = idents
            .iter()
            .copied()
            .chain(extra.map(|(i, _)| i))
            .collect();
        let extra = extra.map(|(i, t)| quote!(#i: #t));
        out.extend(quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #ty {}

            impl ::autodiff::__private::GenericCopy for #ty {
                type Copy = #ty;
                #[inline(always)]
                fn copy() -> #ty { #ty {} }
            }

            #[allow(dead_code, unused, clippy::all, clippy::pedantic, clippy::nursery)]
            impl #ty {
                #[inline]
                #vis fn call #generics (#(#params,)* #extra) -> #returns #where_clause {
                    #body
                }
                // (For a call by a path, `copy_by_name!`'s `copy_of(..).call_on`.)
                #[inline(always)]
                #vis fn call_on #generics (self, #(#params,)* #extra) -> #returns #where_clause {
                    Self::call(#(#args),*)
                }
                // No derivatives: a generated derivative is not differentiated at first order.
                #[inline(always)]
                #vis fn __autodiff_lookup(&self) -> ::autodiff::__private::NoDerivative {
                    ::autodiff::__private::NoDerivative
                }
            }
        });
    };
    if d.grad {
        let one = quote!(<#ret as ::autodiff::__private::One>::one());
        emit("grad", None, quote!((#ret, #gradient)), vjp_body(one));
    }
    if d.vjp {
        emit(
            "vjp",
            Some((&d_ret, &ret)),
            quote!((#ret, #gradient)),
            vjp_body(quote!(#d_ret)),
        );
    }
    // The tangents of the parameters outside `wrt(..)` that the companion differentiates through are zero:
    // of a float only (else no copy: the stand-in's error at a call).
    let zero_tangents = sig
        .params
        .iter()
        .all(|p| p.active || !p.through_calls() || scalar_float(p));
    if d.jvp && zero_tangents {
        let tangents: Vec<Ident> = (0..sig.params.len())
            .map(|i| format_ident!("__tangent_{}", i, span = Span::mixed_site()))
            .collect();
        let active: Vec<&Ident> = sig
            .params
            .iter()
            .zip(&tangents)
            .filter(|(p, _)| p.active)
            .map(|(_, t)| t)
            .collect();
        let unpack = match active.as_slice() {
            [one] => quote!(let #one = #tangent;),
            many => quote!(let (#(#many,)*) = #tangent;),
        };
        let slots = sig.params.iter().zip(&tangents).map(|(p, t)| {
            if p.active {
                quote!(#t)
            } else if p.through_calls() {
                let g = &p.grad_ty;
                let g = generic(quote!(#g));
                quote!(<#g as ::autodiff::__private::Zero>::zero())
            } else {
                quote!(())
            }
        });
        let body = match all_active {
            true => quote!(#copy.jvp(#(#idents,)* #tangent)),
            false => quote! {
                #unpack
                #copy.jvp(#(#idents,)* (#(#slots,)*))
            },
        };
        emit(
            "jvp",
            Some((&tangent, &gradient)),
            quote!((#ret, #ret)),
            body,
        );
    }
    if let Some(hvp) = &d.hvp {
        emit(
            "hvp",
            Some((&v, &gradient)),
            quote!((#ret, #gradient, #gradient)),
            quote!(#hvp(#(#idents,)* #v)),
        );
    }
    out
}

/// Is `p` a float (not an array, a tuple or a struct)?
fn scalar_float(p: &crate::signature::Param) -> bool {
    p.array.is_none() && matches!(p.kind, crate::ir::Kind::Float(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The copies of `item`'s `_grad`, `_vjp` and `_jvp` (its float type `f64`), differentiated with
    /// `wrt`, as one string.
    fn copies(item: syn::ItemFn, wrt: Option<Vec<Ident>>) -> String {
        let args = crate::args::Args {
            wrt,
            ..Default::default()
        };
        let mut errors = crate::errors::Errors::default();
        let sig = crate::signature::analyze(&item, &args, &mut errors).expect("a signature");
        let _ = errors.finish();
        items(&Derivatives {
            item: &item,
            sig: &sig,
            float: Some("f64"),
            grad: true,
            vjp: true,
            jvp: true,
            hvp: None,
        })
        .to_string()
    }

    #[test]
    fn parameters_outside_wrt_are_dropped_from_the_gradient_and_get_zero_tangents() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn f(x: f64, c: f64, n: usize) -> f64 { c * x * x }
        };
        let x = Ident::new("x", Span::call_site());
        let tokens = copies(item, Some(vec![x]));
        // `f_grad`: the slot of `x` alone, unwrapped (one active parameter).
        assert!(tokens.contains("struct f_grad"), "{tokens}");
        assert!(
            tokens.contains("fn call < __S : :: autodiff :: __private :: Float > (x : __S , c : __S , n : usize ,) -> (__S , __S)"),
            "{tokens}"
        );
        assert!(
            tokens.contains("(__value , (__slot_0 , _ , _ ,))"),
            "{tokens}"
        );
        assert!(tokens.contains("(__value , __slot_0)"), "{tokens}");
        // `f_jvp`: `c`'s tangent zero, `n`'s slot `()`.
        assert!(
            tokens.contains(
                "(__tangent_0 , < __S as :: autodiff :: __private :: Zero > :: zero () , () ,)"
            ),
            "{tokens}"
        );
    }

    #[test]
    fn a_function_with_output_parameters_gets_none() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn rhs(y: &[f64], out: &mut [f64]) { out[0] = y[0]; }
        };
        assert_eq!(copies(item, None), "");
    }
}
