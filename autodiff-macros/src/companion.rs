//! The companion type: how a call finds its callee's derivatives.
//!
//! A macro sees one item at a time, so a `#[differentiable]` body that calls `g(x, n)` cannot look at `g`.
//! It relies on a rule instead: beside each function `g` that has derivatives (`#[differentiable]`,
//! `#[custom_gradient]`, or registered with `#[gradient_of]`) there is a hidden type of the same name, `g`,
//! with two associated functions of a uniform shape, one slot per parameter:
//!
//! ```text
//! struct g {}
//! impl g {
//!     fn vjp(x: f64, n: usize, d_ret: f64) -> (f64, (f64, ()))     // cotangent per parameter, () if none
//!     fn jvp(x: f64, n: usize, tangents: (f64, ())) -> (f64, f64)  // tangent per parameter, () if none
//! }
//! ```
//!
//! A type lives in the type namespace and a function in the value namespace, so `g` names both, and
//! `use other::g;` imports both: the caller writes `g::vjp(..)` wherever it can write `g(..)`, across
//! modules and crates, and also for functions declared inside a function body (which a module could not
//! see). The uniform shape frees the caller from knowing which of `g`'s parameters are active (`wrt(..)`
//! is the callee's business).
//!
//! A function with output parameters (`fn rhs(y: &[f64], dydt: &mut [f64])`) has companions that take,
//! after the slots, `d_ret: Option<R>` (`None` for a zero cotangent) and one cotangent per output in `vjp`,
//! one tangent buffer per output in `jvp`; an output's slot holds the cotangent (or tangent) of its incoming
//! value, as a `Vec<T>` (a `T` for a float output `&mut T`):
//!
//! ```text
//! fn vjp(y: &[f64], dydt: &mut [f64], d_ret: Option<()>, d_dydt: &[f64]) -> ((), (Vec<f64>, Vec<f64>))
//! fn jvp(y: &[f64], dydt: &mut [f64], tangents: (Vec<f64>, Vec<f64>), d_dydt: &mut [f64]) -> ((), ())
//! ```

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

/// An output parameter (`out: &mut [T]`), as its companion sees it.
pub(crate) struct Output {
    pub(crate) ident: Ident,
    /// The type of its cotangent in `vjp` (`&[T]`, `&[T; N]`, `T`) and of its tangent buffer in `jvp`
    /// (`&mut [T]`, `&mut [T; N]`, `&mut T`), as in `f_vjp` and `f_jvp`.
    pub(crate) cotangent_ty: TokenStream,
    pub(crate) tangent_ty: TokenStream,
    /// Its cotangent as the hidden `vjp` takes it: `Some(&d_out[..])`.
    pub(crate) passed: TokenStream,
}

/// What a caller needs of a function with output parameters.
pub(crate) struct Outputs {
    pub(crate) outputs: Vec<Output>,
    /// The cotangent of the returned value when the caller has none: a zero of `R`.
    pub(crate) zero_ret: TokenStream,
    /// The function returns `()`: its `jvp` (`vjp`, `jvp` below) returns nothing.
    pub(crate) returns_unit: bool,
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
    /// With output parameters, `vjp` takes `d_ret: Option<R>` and then one cotangent per output, and
    /// `jvp` one tangent buffer per output after `tangents`, as `f_vjp` and `f_jvp` do; the functions
    /// `vjp` and `jvp` above then take `d_ret: R` and each output's cotangent as `Option<&[T]>`, and the
    /// tangent buffers (the hidden `__vjp_all` and `__jvp_all`, in which every output is active).
    pub(crate) outputs: Option<Outputs>,
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
        outputs,
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
    // Output parameters: the extra parameters of `vjp` and `jvp`, and how they are passed on.
    let (d_ret_ty, vjp_extra, vjp_prelude, vjp_passed, jvp_extra, jvp_passed) = match outputs {
        None => Default::default(),
        Some(o) => {
            let d: Vec<Ident> = o
                .outputs
                .iter()
                .map(|out| crate::naming::output_cotangent(&out.ident))
                .collect();
            let cotangent_tys = o.outputs.iter().map(|out| &out.cotangent_ty);
            let tangent_tys = o.outputs.iter().map(|out| &out.tangent_ty);
            let zero = &o.zero_ret;
            (
                Some(quote!(::core::option::Option<#ret>)),
                quote!(#(, #d: #cotangent_tys)*),
                quote! {
                    let #d_ret = match #d_ret {
                        ::core::option::Option::Some(#d_ret) => #d_ret,
                        ::core::option::Option::None => #zero,
                    };
                },
                {
                    let passed = o.outputs.iter().map(|out| &out.passed);
                    quote!(#(, #passed)*)
                },
                quote!(#(, #d: #tangent_tys)*),
                quote!(#(, #d)*),
            )
        }
    };
    let d_ret_ty = d_ret_ty.unwrap_or_else(|| ret.clone());
    let jvp_call = match outputs {
        Some(o) if o.returns_unit => quote!({ #jvp(#(#idents,)* #tangent #jvp_passed); ((), ()) }),
        _ => quote!(#jvp(#(#idents,)* #tangent #jvp_passed)),
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
            #vis fn #vjp_name #generics (#(#params,)* #d_ret: #d_ret_ty #vjp_extra) -> (#ret, (#(#cotangent_types,)*)) #where_clause {
                #vjp_prelude
                let (#value, #gradient) = #vjp(#(#idents,)* #d_ret #vjp_passed);
                #unpack_gradient
                (#value, (#(#cotangent_slots,)*))
            }

            #[doc(hidden)]
            #[inline]
            #[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #vis fn #jvp_name #generics (#(#params,)* #tangents: (#(#tangent_types,)*) #jvp_extra) -> (#ret, #ret) #where_clause {
                let (#(#tangent_names,)*) = #tangents;
                #jvp_call
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
            #vis fn vjp #generics (#(#params,)* #d_ret: #d_ret_ty #vjp_extra) -> (#ret, (#(#cotangent_types,)*)) #where_clause {
                #vjp_prelude
                let (#value, #gradient) = #vjp(#(#idents,)* #d_ret #vjp_passed);
                #unpack_gradient
                (#value, (#(#cotangent_slots,)*))
            }

            #[inline]
            #vis fn jvp #generics (#(#params,)* #tangents: (#(#tangent_types,)*) #jvp_extra) -> (#ret, #ret) #where_clause {
                let (#(#tangent_names,)*) = #tangents;
                #jvp_call
            }
        }
    }
}
