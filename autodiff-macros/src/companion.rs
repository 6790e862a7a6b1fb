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
//! A third, `vjp_into`, is what a caller's reverse sweep uses: it adds the cotangents into the caller's
//! adjoints instead of returning them, one slot per parameter (`Option<&mut [T]>` for an array,
//! `Option<&mut T>` for a float, `()` otherwise; `None` where the caller wants no cotangent), so a call
//! allocates no gradient buffer: a plain function's runs its reverse sweep (`__g_vjp_into`) straight into
//! the caller's buffers.
//!
//! ```text
//! fn vjp_into(x: &[f64], n: usize, d_ret: f64, grads: (Option<&mut [f64]>, ())) -> f64
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
//!
//! A caller that passes its own output parameter on bare (`g(out)`) cannot see whether `g` writes it or
//! only reads it (`fn total(v: &[f64]) -> f64`); it calls `vjp_out` and `jvp_out` ([`passed_on`]), of one
//! shape for both, which every companion with a reference parameter has (a method's are associated
//! functions `__f_vjp_out` and `__f_jvp_out` of its `impl`, for `self.f(x, out)` and `Self::f(x, out)`).

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
    /// Its slot in `vjp_into`.
    pub(crate) into: IntoSlot,
}

/// How `vjp_into` adds a parameter's cotangent into the caller's adjoint.
pub(crate) enum IntoSlot {
    /// No slot (`()`): the parameter has no cotangent, or one that calls do not pass this way (a tuple, a
    /// struct, a matrix), for which a caller uses `vjp`.
    None,
    /// A float of type `ty`: `Option<&mut ty>`; `zero` is its zero.
    Scalar { ty: TokenStream, zero: TokenStream },
    /// A one-dimensional array of `elem`s: `Option<&mut [elem]>`. `direct`: the function's reverse sweep
    /// (`__f_vjp_into`) takes its buffer as `&mut [elem]` and adds into it.
    Array { elem: TokenStream, direct: bool },
}

impl IntoSlot {
    /// The slot of `p`, a parameter that gets a cotangent through calls if `active`.
    pub(crate) fn of(p: &crate::signature::Param, active: bool) -> IntoSlot {
        use crate::signature::Signature;
        match (active, p.array, &p.kind) {
            (false, ..) => IntoSlot::None,
            (true, Some(shape), _) if !shape.matrix => IntoSlot::Array {
                elem: Signature::element_type(p).to_token_stream(),
                // A fixed array's buffer is `&mut [T; N]`, and a `Vec` taken by value may be written by
                // the body, whose reverse sweep then zeroes elements of its buffer.
                direct: !shape.fixed && !shape.owned,
            },
            (true, None, crate::ir::Kind::Float(_)) => IntoSlot::Scalar {
                ty: p.grad_ty.to_token_stream(),
                zero: crate::emit::Emitter::zero_of(&p.kind),
            },
            _ => IntoSlot::None,
        }
    }

    pub(crate) fn ty(&self) -> TokenStream {
        match self {
            IntoSlot::None => quote!(()),
            IntoSlot::Scalar { ty, .. } => quote!(::core::option::Option<&mut #ty>),
            IntoSlot::Array { elem, .. } => quote!(::core::option::Option<&mut [#elem]>),
        }
    }
}

/// What an `order = K` caller's generic copy calls for this function (`shadow.rs`): the companion type
/// implements `__private::GenericCopy`, whose type `Copy` has `call`, `vjp`, `vjp_into` and `jvp` generic
/// over the float type. Through the companion type, the generic copy is found wherever the function's name
/// is (imported by `use`, or by a path), which a separately named function would not be.
pub(crate) enum GenericCopy {
    /// No implementation (a method, or a function of a parameter struct): rustc says so at an `order = K`
    /// caller.
    Missing,
    /// Generic over its float type: the type is its own copy, and `call` calls `primal`.
    Itself(TokenStream),
    /// Written for `f64` or `f32`, with the generic copy (function and companion type) of this name.
    Copy(Ident),
    /// Written for `f64` or `f32` (or both) without a generic copy: `Copy` is a fallback of the copy's
    /// signatures (`fallback_copy`) that is a compile error saying `why` once an `order = K` function
    /// instantiates it, so that the generic copies of callers compile whether or not they reach it.
    Fallback { why: String },
    /// An associated function of a generic `impl` (its float type the `impl`'s parameter `float`) without
    /// a copy over a float type of its own: `Fallback`'s associated functions under the names the `impl`'s
    /// own hidden functions call (`Self::__g_over`), with `float` replaced by their own `__S`. (A caller
    /// outside the `impl` reaches `g` itself, `S::__g_generic`.)
    ImplFallback { why: String, float: Ident },
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
    /// Its element type, and whether it is a float (`&mut T`) rather than an array.
    pub(crate) elem: TokenStream,
    pub(crate) scalar: bool,
}

/// What a caller needs of a function with output parameters.
pub(crate) struct Outputs {
    pub(crate) outputs: Vec<Output>,
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
    /// The cotangent of the returned value when a caller of `vjp` with output parameters, or of
    /// `vjp_out`, has none: a zero of `R`.
    pub(crate) zero_ret: TokenStream,
    /// Paths to functions with the signatures of `#[differentiable]`'s `_vjp` and `_jvp` (`f_vjp`, or
    /// `Self::__registered_vjp` among the extra items).
    pub(crate) vjp: TokenStream,
    pub(crate) jvp: TokenStream,
    /// The function's reverse sweep into buffers (`__f_vjp_into`), when `vjp_into` can run it straight
    /// into the caller's: a plain function, every parameter active or without a cotangent, and every
    /// active array's slot `direct`.
    pub(crate) sweep_into: Option<TokenStream>,
    /// Beside `sweep_into`, reverse sweeps into buffers over fewer parameters (`true` per slot they
    /// derive for), which `vjp_into` runs when the caller leaves `None` every slot of the others (a
    /// caller lending inactive data): the call then neither computes their cotangents nor stores them.
    /// Tried in order; `sweep_into` when none applies.
    pub(crate) partial_sweeps: Vec<(TokenStream, Vec<bool>)>,
    /// The function's own reverse sweep into buffers (`__f_vjp_into`, over the parameters `wrt(..)`
    /// names: `true` per slot) where `vjp` derives through more parameters than `wrt(..)` names: `vjp_into`
    /// runs it when the caller leaves `None` every slot of the others (a caller passing them inactive
    /// data), so the call neither allocates their cotangents nor computes them.
    pub(crate) own_sweep: Option<(TokenStream, Vec<bool>)>,
    /// Further associated functions (the derivatives of a registered function).
    pub(crate) extra: TokenStream,
    /// A method or associated function of an `impl`, where no type can be declared: the functions
    /// become associated functions `__f_vjp`, `__f_jvp` (and `__f_vjp_into`, `__f_vjp_out`,
    /// `__f_jvp_out`) of the same `impl`.
    pub(crate) method: bool,
    /// Its generic copy, for `order = K` callers (not for methods).
    pub(crate) generic_copy: GenericCopy,
    /// With output parameters, `vjp` takes `d_ret: Option<R>` and then one cotangent per output, and
    /// `jvp` one tangent buffer per output after `tangents`, as `f_vjp` and `f_jvp` do; the functions
    /// `vjp` and `jvp` above then take `d_ret: R` and each output's cotangent as `Option<&[T]>`, and the
    /// tangent buffers (the hidden `__vjp_all` and `__jvp_all`, in which every output is active).
    pub(crate) outputs: Option<Outputs>,
    /// Its vector-Jacobian product is linear in the cotangent of its value: a `#[differentiable]` function
    /// that calls no other function with floats, whose adjoint only applies the rules of `rules.rs`
    /// (`__private::CotangentLinear`, `reverse/call_gradient.rs`).
    pub(crate) linear: bool,
}

/// The companion type described by `c`.
pub(crate) fn companion(c: &Companion) -> TokenStream {
    let Companion {
        vis,
        name,
        generics,
        slots,
        ret,
        zero_ret,
        vjp,
        jvp,
        sweep_into,
        partial_sweeps,
        own_sweep,
        extra,
        method,
        generic_copy,
        outputs,
        linear,
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
    let sweeps: Vec<&(TokenStream, Vec<bool>)> = partial_sweeps.iter().chain(own_sweep).collect();
    let into_body = vjp_into_body(slots, vjp, sweep_into.as_ref(), &sweeps);
    let into_types: Vec<TokenStream> = slots.iter().map(|s| s.into.ty()).collect();
    let grads = fixed("grads");
    // Each list goes into several signatures: joined once, as interpolating a list costs a round trip to
    // the compiler per element each time.
    let params_list = quote!(#(#params,)*);
    let cotangent_list = quote!(#(#cotangent_types,)*);
    let tangent_list = quote!(#(#tangent_types,)*);
    let into_list = quote!(#(#into_types,)*);
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
            (
                Some(quote!(::core::option::Option<#ret>)),
                quote!(#(, #d: #cotangent_tys)*),
                quote! {
                    let #d_ret = match #d_ret {
                        ::core::option::Option::Some(#d_ret) => #d_ret,
                        ::core::option::Option::None => #zero_ret,
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
    let jvp_call_with = |tangent: &TokenStream| match outputs {
        Some(o) if o.returns_unit => quote!({ #jvp(#(#idents,)* #tangent #jvp_passed); ((), ()) }),
        _ => quote!(#jvp(#(#idents,)* #tangent #jvp_passed)),
    };
    let jvp_call = jvp_call_with(&tangent);
    // The bodies of `vjp` and `jvp`: where every parameter is active and there are several, the slots are
    // the gradient's and the tangents' own tuples, passed through as they are.
    let all_active = outputs.is_none() && slots.len() > 1 && slots.iter().all(|s| s.active);
    let vjp_body = if all_active {
        quote! {
            #vjp_prelude
            #vjp(#(#idents,)* #d_ret #vjp_passed)
        }
    } else {
        quote! {
            #vjp_prelude
            let (#value, #gradient) = #vjp(#(#idents,)* #d_ret #vjp_passed);
            #unpack_gradient
            (#value, (#(#cotangent_slots,)*))
        }
    };
    let jvp_body = if all_active {
        jvp_call_with(&tangents.to_token_stream())
    } else {
        quote! {
            let (#(#tangent_names,)*) = #tangents;
            #jvp_call
        }
    };
    let passed_on = passed_on(
        c,
        &Shared {
            params: &params,
            idents: &idents,
            cotangent_slots: &cotangent_slots,
            cotangent_types: &cotangent_types,
            tangent_types: &tangent_types,
            tangent_names: &tangent_names,
            unpack_gradient: &unpack_gradient,
            vjp_passed: &vjp_passed,
            jvp_call: &jvp_call,
        },
    );
    if *method {
        let (vjp_name, jvp_name, into_name) = (
            crate::naming::method_companion(name, "vjp"),
            crate::naming::method_companion(name, "jvp"),
            crate::naming::method_companion(name, "vjp_into"),
        );
        // A call that writes output buffers goes through `vjp` (`reverse.rs`, `call_out_adjoint`).
        let into_item = outputs.is_none().then(|| {
            quote! {
                #[doc(hidden)]
                #[inline]
                #[allow(dead_code, unused, clippy::unused_unit, clippy::let_unit_value, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
                #vis fn #into_name #generics (#params_list #d_ret: #ret, #grads: (#into_list)) -> #ret #where_clause {
                    #into_body
                }
            }
        });
        // A method without a generic copy: the fallback stands for it under its names.
        let (why, float) = match generic_copy {
            GenericCopy::Fallback { why } => (Some(why), None),
            GenericCopy::ImplFallback { why, float } => (Some(why), Some(float)),
            _ => (None, None),
        };
        let fallback = match why {
            Some(why) => fallback_copy(&FallbackCopy {
                vis,
                name,
                generics,
                why,
                float,
                params: &params,
                ret,
                d_ret_ty: &d_ret_ty,
                cotangent_types: &cotangent_types,
                tangent_types: &tangent_types,
                out_tangent_types: &out_tangent_types(slots, &tangent_types, outputs.as_ref()),
                into_types: &into_types,
                vjp_extra: &vjp_extra,
                jvp_extra: &jvp_extra,
                method: true,
            }),
            None => TokenStream::new(),
        };
        return quote! {
            #extra
            #fallback

            #[doc(hidden)]
            #[inline]
            #[allow(dead_code, clippy::unused_unit, clippy::let_unit_value, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #vis fn #vjp_name #generics (#params_list #d_ret: #d_ret_ty #vjp_extra) -> (#ret, (#cotangent_list)) #where_clause {
                #vjp_body
            }

            #[doc(hidden)]
            #[inline]
            #[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #vis fn #jvp_name #generics (#params_list #tangents: (#tangent_list) #jvp_extra) -> (#ret, #ret) #where_clause {
                #jvp_body
            }

            #into_item

            #passed_on
        };
    }
    // A call that writes output buffers goes through `vjp` (`reverse.rs`, `call_out_adjoint`).
    let into_item = outputs.is_none().then(|| {
        // Always inlined: a thin wrapper around the reverse sweep, whose slots are `Some` or `None` at each
        // call site. Left to the inliner, a callee called several times in a loop (RK4's four stages) was
        // kept out of line, its slots' tests, scratch vector and adjoint stores with it (1.6x the
        // hand-written adjoint; 1.0-1.3x inlined, `cargo bench --bench user_forms`).
        quote! {
            #[inline(always)]
            #[allow(unused, clippy::unused_unit, clippy::let_unit_value)]
            #vis fn vjp_into #generics (self, #params_list #d_ret: #ret, #grads: (#into_list)) -> #ret #where_clause {
                #into_body
            }
        }
    });
    let (generic_impl, call) = match generic_copy {
        GenericCopy::Missing => (TokenStream::new(), TokenStream::new()),
        GenericCopy::Itself(primal) => (
            quote! {
                impl ::autodiff::__private::GenericCopy for #name {
                    type Copy = #name;
                    #[inline(always)]
                    fn copy() -> #name { #name {} }
                }
            },
            quote! {
                #[inline]
                #vis fn call #generics (#params_list) -> #ret #where_clause {
                    #primal(#(#idents,)*)
                }
                /// `call`, on the companion found for a call by a path (`__private::copy_of`).
                #[inline(always)]
                #vis fn call_on #generics (self, #params_list) -> #ret #where_clause {
                    #primal(#(#idents,)*)
                }
            },
        ),
        GenericCopy::Copy(copy) => (
            quote! {
                impl ::autodiff::__private::GenericCopy for #name {
                    type Copy = #copy;
                    #[inline(always)]
                    fn copy() -> #copy { #copy {} }
                }
                impl ::autodiff::__private::HasGenericCopy for #name {}
            },
            TokenStream::new(),
        ),
        GenericCopy::Fallback { why } | GenericCopy::ImplFallback { why, .. } => {
            let fallback = fallback_copy(&FallbackCopy {
                vis,
                name,
                generics,
                why,
                float: None,
                params: &params,
                ret,
                d_ret_ty: &d_ret_ty,
                cotangent_types: &cotangent_types,
                tangent_types: &tangent_types,
                out_tangent_types: &out_tangent_types(slots, &tangent_types, outputs.as_ref()),
                into_types: &into_types,
                vjp_extra: &vjp_extra,
                jvp_extra: &jvp_extra,
                method: false,
            });
            (fallback, TokenStream::new())
        }
    };
    // A generic function is its own copy.
    let generic_impl = match generic_copy {
        GenericCopy::Itself(_) => quote! {
            #generic_impl
            impl ::autodiff::__private::HasGenericCopy for #name {}
        },
        _ => generic_impl,
    };
    // Preferred by method resolution over the trait's `false`.
    let linear_item = (*linear && into_item.is_some()).then(|| {
        quote! {
            #[inline(always)]
            #vis fn cotangent_linear(&self) -> bool {
                true
            }
        }
    });
    quote! {
        #[doc(hidden)]
        // Unused unless a differentiable function calls `#name`.
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #generic_impl

        #[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        impl #name {
            #extra
            #call

            #[inline]
            #[allow(clippy::unused_unit, clippy::let_unit_value)]
            #vis fn vjp #generics (self, #params_list #d_ret: #d_ret_ty #vjp_extra) -> (#ret, (#cotangent_list)) #where_clause {
                #vjp_body
            }

            #[inline]
            #vis fn jvp #generics (self, #params_list #tangents: (#tangent_list) #jvp_extra) -> (#ret, #ret) #where_clause {
                #jvp_body
            }

            #passed_on

            #into_item

            #linear_item
        }
    }
}

/// What `vjp_out` and `jvp_out` share with `vjp` and `jvp` (`companion`).
struct Shared<'a> {
    params: &'a [TokenStream],
    idents: &'a [&'a Ident],
    cotangent_slots: &'a [TokenStream],
    cotangent_types: &'a [TokenStream],
    tangent_types: &'a [TokenStream],
    tangent_names: &'a [TokenStream],
    unpack_gradient: &'a TokenStream,
    vjp_passed: &'a TokenStream,
    jvp_call: &'a TokenStream,
}

// Input:  fn total(v: &[f64]) -> f64            (called `total(out)` by a caller with `out: &mut [f64]`)
// Output: fn vjp_out(self, v: &[f64], d_ret: Option<f64>, d_after: (impl PassOn<Vec<f64>>,))
//             -> (f64, (Vec<f64>,)) {
//             let (__after_0,) = d_after;
//             let d_ret = match d_ret { Some(d_ret) => d_ret, None => 0.0 };
//             let (value, gradient) = total_vjp(v, d_ret);
//             let __gradient_0 = gradient;
//             (value, (PassOn::pass_on(__after_0, __gradient_0),))
//         }
//         fn jvp_out(self, v: &[f64], tangents: (Vec<f64>,), d_after: (impl Sized,)) -> (f64, f64) { .. }
/// `vjp_out` and `jvp_out`: the companion's `vjp` and `jvp` for a call that passes an output parameter
/// of the caller on bare (`total(out)`, `rhs(y, out)`), of which the caller cannot see whether the callee
/// writes it or only reads it. One slot per parameter after `d_ret` (an `Option`) or `tangents`: the caller
/// passes `Passed(..)` (the buffer's cotangent after the call, or its tangent buffer) for each argument it
/// passes `&mut` or bare, and `()` for the others. An output parameter takes its slot as `vjp` and `jvp`
/// take its cotangent and buffer; a parameter that only reads passes the cotangent on, added to the
/// cotangent of what it reads (the buffer keeps its values through the call), and leaves the tangent
/// buffer alone (it holds the tangent of those values already).
fn passed_on(c: &Companion, shared: &Shared) -> TokenStream {
    let Companion {
        vis,
        name,
        generics,
        slots,
        ret,
        zero_ret,
        vjp,
        method,
        outputs,
        ..
    } = c;
    let Shared {
        params,
        idents,
        cotangent_slots,
        cotangent_types,
        tangent_types,
        tangent_names,
        unpack_gradient,
        vjp_passed,
        jvp_call,
    } = shared;
    // Only a reference parameter (`&[T]`, `&T`, `&mut ..`) can take an output passed on bare.
    if !slots.iter().any(|s| matches!(s.ty, Type::Reference(_))) {
        return TokenStream::new();
    }
    let where_clause = &generics.where_clause;
    let fixed = |n: &str| Ident::new(n, Span::mixed_site());
    let (d_ret, tangents, d_after, value, gradient) = (
        fixed("d_ret"),
        fixed("tangents"),
        fixed("d_after"),
        fixed("value"),
        fixed("gradient"),
    );
    let after: Vec<Ident> = (0..slots.len())
        .map(|i| Ident::new(&format!("__after_{i}"), Span::mixed_site()))
        .collect();
    let output_of = |s: &Slot| {
        outputs
            .as_ref()
            .and_then(|o| o.outputs.iter().find(|out| out.ident == s.ident))
    };
    let passed = |ty: TokenStream| quote!(::autodiff::__private::Passed<#ty>);
    let (mut vjp_types, mut jvp_types, mut vjp_bind, mut jvp_bind) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut returned = Vec::new();
    // A reader of `&[T; N]` takes the tangent of a buffer passed on bare as the `Vec` a caller gives an
    // output's slot, made an array here. A `Vec` (not `impl AsRef<[T]>`): the caller converts the
    // tangents of its other arrays by `Into::into` (`forward::call_tangents`), a zero array's too, which
    // needs a target type (rustc's E0283 where a constant `&[f64; 2]` was passed beside the buffer).
    let jvp_tangent_types = out_tangent_types(slots, tangent_types, outputs.as_ref());
    let mut jvp_tangent_shapes = Vec::new();
    for ((s, name), ty) in slots.iter().zip(*tangent_names).zip(*tangent_types) {
        if out_tangent_is_vec(s, outputs.as_ref()) {
            let shape = quote!(::autodiff::__private::call_cotangent(::core::convert::AsRef::as_ref(&#name)));
            jvp_tangent_shapes.push(quote!(let #name: #ty = #shape;));
        }
    }
    for (((s, after), slot), cotangent_ty) in slots
        .iter()
        .zip(&after)
        .zip(cotangent_slots.iter())
        .zip(cotangent_types.iter())
    {
        match output_of(s) {
            Some(out) => {
                let (elem, d, tangent_ty) = (
                    &out.elem,
                    crate::naming::output_cotangent(&out.ident),
                    &out.tangent_ty,
                );
                if out.scalar {
                    vjp_types.push(passed(quote!(#elem)));
                    jvp_types.push(passed(quote!(&mut #elem)));
                } else {
                    vjp_types.push(passed(quote!(&[#elem])));
                    jvp_types.push(passed(quote!(&mut [#elem])));
                }
                vjp_bind.push(quote!(let #d = #after.0;));
                // `&mut [T]` as the buffer of a fixed-size output (`&mut [T; N]`) or as itself.
                jvp_bind.push(quote! {
                    let #d: #tangent_ty = ::core::convert::TryInto::try_into(#after.0)
                        .expect("autodiff: a tangent buffer of the wrong length");
                });
                returned.push(slot.clone());
            }
            None => {
                vjp_types.push(quote!(impl ::autodiff::__private::PassOn<#cotangent_ty>));
                jvp_types.push(quote!(impl ::core::marker::Sized));
                returned.push(quote!(::autodiff::__private::PassOn::pass_on(#after, #slot)));
            }
        }
    }
    // A method's are associated functions `__f_vjp_out` and `__f_jvp_out` of its `impl`, hidden, without
    // the companion type's `self`.
    let (vjp_out, jvp_out, receiver, hidden) = match method {
        true => (
            crate::naming::method_companion(name, "vjp_out"),
            crate::naming::method_companion(name, "jvp_out"),
            None,
            Some(quote!(#[doc(hidden)] #[allow(clippy::too_many_arguments)])),
        ),
        false => (
            Ident::new("vjp_out", Span::call_site()),
            Ident::new("jvp_out", Span::call_site()),
            Some(quote!(self,)),
            None,
        ),
    };
    quote! {
        #hidden
        #[inline]
        #[allow(unused_variables, clippy::unused_unit, clippy::let_unit_value)]
        #vis fn #vjp_out #generics (#receiver #(#params,)* #d_ret: ::core::option::Option<#ret>, #d_after: (#(#vjp_types,)*)) -> (#ret, (#(#cotangent_types,)*)) #where_clause {
            let (#(#after,)*) = #d_after;
            #(#vjp_bind)*
            let #d_ret = match #d_ret {
                ::core::option::Option::Some(#d_ret) => #d_ret,
                ::core::option::Option::None => #zero_ret,
            };
            let (#value, #gradient) = #vjp(#(#idents,)* #d_ret #vjp_passed);
            #unpack_gradient
            (#value, (#(#returned,)*))
        }

        #hidden
        #[inline]
        #[allow(unused_variables)]
        #vis fn #jvp_out #generics (#receiver #(#params,)* #tangents: (#(#jvp_tangent_types,)*), #d_after: (#(#jvp_types,)*)) -> (#ret, #ret) #where_clause {
            let (#(#after,)*) = #d_after;
            #(#jvp_bind)*
            let (#(#tangent_names,)*) = #tangents;
            #(#jvp_tangent_shapes)*
            #jvp_call
        }
    }
}

/// `[T; N]` or `&[T; N]`.
/// Does `jvp_out` (`passed_on`) take the tangent of slot `s` as a `Vec` rather than as `jvp` does: a
/// reader of a fixed-size array (`&[T; N]`), not an output?
fn out_tangent_is_vec(s: &Slot, outputs: Option<&Outputs>) -> bool {
    let output = outputs.is_some_and(|o| o.outputs.iter().any(|out| out.ident == s.ident));
    matches!(s.into, IntoSlot::Array { .. }) && !output && is_fixed(&s.ty)
}

/// The tangent `jvp_out` takes for slot `s`: `ty` (`jvp`'s), or the `Vec<T>` of `out_tangent_is_vec`.
/// The fallback copy's `jvp_out` takes the same, as its callers pass them.
pub(crate) fn out_tangent_type(
    s: &Slot,
    ty: &TokenStream,
    outputs: Option<&Outputs>,
) -> TokenStream {
    match &s.into {
        IntoSlot::Array { elem, .. } if out_tangent_is_vec(s, outputs) => {
            quote!(::std::vec::Vec<#elem>)
        }
        _ => ty.clone(),
    }
}

/// `out_tangent_type` of each slot.
fn out_tangent_types(
    slots: &[Slot],
    tangent_types: &[TokenStream],
    outputs: Option<&Outputs>,
) -> Vec<TokenStream> {
    let each = slots.iter().zip(tangent_types);
    each.map(|(s, ty)| out_tangent_type(s, ty, outputs))
        .collect()
}

pub(crate) fn is_fixed(ty: &Type) -> bool {
    match ty {
        Type::Array(_) => true,
        Type::Reference(r) => matches!(&*r.elem, Type::Array(_)),
        _ => false,
    }
}

/// What the fallback for a missing generic copy is made of: the companion's own signatures, which
/// `fallback_copy` makes generic over the float type.
pub(crate) struct FallbackCopy<'a> {
    pub(crate) vis: &'a Visibility,
    pub(crate) name: &'a Ident,
    pub(crate) generics: &'a syn::Generics,
    pub(crate) why: &'a str,
    /// The float type parameter of a generic `impl` (`ImplFallback`), which the copy's signatures replace
    /// by their own `__S`, as they do `f64` and `f32`; the copy is then `Self::__g_over`.
    pub(crate) float: Option<&'a Ident>,
    pub(crate) params: &'a [TokenStream],
    pub(crate) ret: &'a TokenStream,
    pub(crate) d_ret_ty: &'a TokenStream,
    pub(crate) cotangent_types: &'a [TokenStream],
    pub(crate) tangent_types: &'a [TokenStream],
    /// `jvp_out`'s tangents (`out_tangent_types`).
    pub(crate) out_tangent_types: &'a [TokenStream],
    pub(crate) into_types: &'a [TokenStream],
    /// With output parameters, `vjp`'s and `jvp`'s parameters after `d_ret` and `tangents`.
    pub(crate) vjp_extra: &'a TokenStream,
    pub(crate) jvp_extra: &'a TokenStream,
    /// A method or associated function: the fallback is associated functions of its `impl`.
    pub(crate) method: bool,
}

// Input:  the signatures of `__n9_whole`, the hidden function that `n9` (of a struct with a matrix field,
//         with an output parameter) cannot have at first order
// Output: fn __n9_whole(..) { unreachable!(..) }
//         struct __n9_whole {} impl __n9_whole { fn vjp(self, ..) { unreachable!(..) } .. }   (or, beside a
//         method, `__n9_whole_vjp` .. in its `impl`)
//         the fallback of its generic copy (`fallback_copy`), an error once instantiated
/// Stand-ins for a function `f.name` (`__g_whole`, `struct_whole.rs`) that callers name but that cannot be
/// made: the function and its companion (a method's companion functions) with the signatures it would
/// have, never run, and the fallback of its generic copy, whose error an `order = K` caller meets at its
/// call. So the first order of a caller that passes a struct on whole builds whatever the callee is.
pub(crate) fn stand_ins(f: &FallbackCopy) -> TokenStream {
    let FallbackCopy {
        vis,
        name,
        generics,
        params,
        ret,
        method,
        ..
    } = f;
    let where_clause = &generics.where_clause;
    let message = format!("`{name}` is a stand-in that is never run");
    let body = quote!({ ::core::unreachable!(#message) });
    let scalar = Ident::new("f64", Span::call_site());
    let self_ = quote!(self,);
    let receiver = (!*method).then_some(&self_);
    let derivatives = fallback_signatures(f, &scalar, receiver)
        .filter(|(item, _)| !matches!(*item, "call" | "call_on"))
        .map(|(item, tail)| {
            let item = match method {
                true => crate::naming::method_companion(name, item),
                false => Ident::new(item, Span::call_site()),
            };
            quote! {
                #[doc(hidden)]
                #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
                #vis fn #item #generics #tail #where_clause #body
            }
        });
    let hidden = quote! {
        #[doc(hidden)]
        #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
    };
    let function = quote! {
        #hidden
        #vis fn #name #generics (#(#params,)*) -> #ret #where_clause #body
    };
    let fallback = fallback_copy(f);
    match method {
        true => quote!(#function #(#derivatives)* #fallback),
        false => quote! {
            #function
            #hidden
            #[allow(non_camel_case_types)]
            #vis struct #name {}
            #hidden
            impl #name { #(#derivatives)* }
            #fallback
        },
    }
}

/// The fallback that stands for the generic copy of a function written for `f64` without one: a type
/// `__g_generic` with `call`, `vjp`, `vjp_into` and `jvp` of the companion's signatures with the float
/// types made a type parameter, each a compile error once instantiated (`__private::no_generic_copy`),
/// whose message, spanned on the function's name, says why the function has no copy and what to do.
///
/// ```text
/// // Input: fn g(x: &[f64]) -> f64 { .. }     // Output:
/// // (iterates; no copy)                      struct __g_generic {}
///                                             impl __g_generic {
///                                                 fn call<__S: Float>(x: &[__S]) -> __S { no_generic_copy::<__g_generic, __S, _>() }
///                                                 fn vjp<__S: Float>(self, x: &[__S], d_ret: __S) -> (__S, (Vec<__S>,)) { .. }
///                                                 ..
///                                             }
///                                             impl<S> NoGenericCopy<S> for __g_generic { const FAIL: () = panic!("`g` has no generic copy .."); }
///                                             impl GenericCopy for g { type Copy = __g_generic; .. }
/// ```
fn fallback_copy(f: &FallbackCopy) -> TokenStream {
    let FallbackCopy {
        vis,
        name,
        generics,
        why,
        method,
        ..
    } = f;
    // Over a float type `__S` of its own (in a generic `impl`, in place of the `impl`'s, whose `Self` the
    // `impl`'s hidden functions keep while they run on `Dual<T>`).
    // (A copy's own fallback, `__g_over`'s, declares `__S` already.)
    let scalar = Ident::new("__S", Span::call_site());
    let mut copy_generics = (*generics).clone();
    if copy_generics.type_params().all(|p| p.ident != scalar) {
        copy_generics
            .params
            .push(syn::parse_quote!(#scalar: ::autodiff::__private::Float));
    }
    let where_clause = &copy_generics.where_clause;
    let copy = crate::naming::generic_copy(name);
    if *method {
        return fallback_method_copy(f, &scalar, &copy_generics);
    }
    let fail = quote!(::autodiff::__private::no_generic_copy::<#copy, #scalar, _>());
    let self_ = quote!(self,);
    let items = fallback_signatures(f, &scalar, Some(&self_)).map(|(item, tail)| {
        let item = Ident::new(item, Span::call_site());
        quote! {
            #[inline]
            #vis fn #item #copy_generics #tail #where_clause { #fail }
        }
    });
    let message = match crate::naming::whole_function_of(name) {
        // (`struct_whole::pairs_stand_ins`.)
        None if crate::naming::pairs_function_of(name).is_some() => {
            let base = crate::naming::pairs_function_of(name).unwrap_or_default();
            format!(
                "`{base}` has no generic copy of its hidden function of pairs, which an `order = K` function \
                 needs where it passes a field of a parameter struct on whole to `{base}` (`{base}(&p.w, ..)`, \
                 directly or through other functions): {why}"
            )
        }
        Some(base) => format!(
            "`{base}` has no generic copy over its parameter structs, which an `order = K` function passing \
             it a struct on whole (directly or through other functions) needs: {why}. Give `{base}` \
             `order = 2` too (the copy is then made, or an error says why it cannot be)"
        ),
        None => format!(
            "`{name}` has no generic copy, which an `order = K` function calling it (directly or through \
             other functions) needs: {why}. Give `{name}` `order = 2` too (its generic copy is then made, or \
             an error says why it cannot be), or make it generic over `T: Float`"
        ),
    };
    let panic = quote_spanned!(name.span()=> ::core::panic!(#message));
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #copy {}

        #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
        impl #copy {
            #(#items)*
        }

        impl<#scalar> ::autodiff::__private::NoGenericCopy<#scalar> for #copy {
            const FAIL: () = #panic;
        }

        impl ::autodiff::__private::GenericCopy for #name {
            type Copy = #copy;
            #[inline(always)]
            fn copy() -> #copy { #copy {} }
        }
    }
}

/// The functions a fallback copy has, each as its name and its parameters and return type with the float
/// types made `scalar`: `call` (and `call_on`, taking `receiver`), `vjp`, `jvp`, `vjp_into`, `vjp_out` and
/// `jvp_out`, the latter five taking `receiver` (the companion type's `self`, none for a method's) first.
fn fallback_signatures(
    f: &FallbackCopy,
    scalar: &Ident,
    receiver: Option<&TokenStream>,
) -> impl Iterator<Item = (&'static str, TokenStream)> {
    // Both float types: the callers' copies pass `__S` wherever they passed either (a literal `2.0` in an
    // `f64` caller passed to an `f32` parameter, too).
    let generic = |tokens: &TokenStream| {
        // (Over `f64`, the signatures as written: `stand_ins`.)
        if scalar == "f64" {
            return tokens.clone();
        }
        let tokens = crate::shadow::replace_float(tokens.clone(), "f64", scalar);
        let tokens = crate::shadow::replace_float(tokens, "f32", scalar);
        match f.float {
            Some(float) => crate::shadow::replace_float(tokens, &float.to_string(), scalar),
            None => tokens,
        }
    };
    let generic_all =
        |all: &[TokenStream]| -> Vec<TokenStream> { all.iter().map(generic).collect() };
    let (params, ret, d_ret_ty) = (generic_all(f.params), generic(f.ret), generic(f.d_ret_ty));
    let cotangent_types = generic_all(f.cotangent_types);
    let tangent_types = generic_all(f.tangent_types);
    let out_tangent_types = generic_all(f.out_tangent_types);
    let into_types = generic_all(f.into_types);
    let (vjp_extra, jvp_extra) = (generic(f.vjp_extra), generic(f.jvp_extra));
    let fixed = |n: &str| Ident::new(n, Span::mixed_site());
    let (d_ret, tangents, grads, d_after) = (
        fixed("d_ret"),
        fixed("tangents"),
        fixed("grads"),
        fixed("d_after"),
    );
    let sized = quote!(impl ::core::marker::Sized);
    let call_on = receiver.map(|receiver| ("call_on", quote!((#receiver #(#params,)*) -> #ret)));
    [
        ("call", quote!((#(#params,)*) -> #ret)),
        (
            "vjp",
            quote!((#receiver #(#params,)* #d_ret: #d_ret_ty #vjp_extra) -> (#ret, (#(#cotangent_types,)*))),
        ),
        (
            "jvp",
            quote!((#receiver #(#params,)* #tangents: (#(#tangent_types,)*) #jvp_extra) -> (#ret, #ret)),
        ),
        (
            "vjp_into",
            quote!((#receiver #(#params,)* #d_ret: #ret, #grads: (#(#into_types,)*)) -> #ret),
        ),
        (
            "vjp_out",
            quote!((#receiver #(#params,)* #d_ret: ::core::option::Option<#ret>, #d_after: #sized) -> (#ret, (#(#cotangent_types,)*))),
        ),
        (
            "jvp_out",
            quote!((#receiver #(#params,)* #tangents: (#(#out_tangent_types,)*), #d_after: #sized) -> (#ret, #ret)),
        ),
    ]
    .into_iter()
    .chain(call_on)
}

// Input:  fn total(&self, x: f64) -> f64 { self.w.iter().map(|w| w * x).sum() }   (no generic copy)
// Output: fn __total_generic<__S: Float>(&self, x: __S) -> __S { <compile error once instantiated> }
//         fn ____total_generic_vjp<__S: Float>(&self, x: __S, d_ret: __S) -> (__S, ((), __S)) { .. }
//         .. (`_jvp`, `_vjp_into`, `_vjp_out`, `_jvp_out`), each `{ Self::____total_generic_no_copy::<__S>() }`
//         fn ____total_generic_no_copy<__S>() -> ! { <the compile error, once instantiated> }
//         fn __total_copied() -> NoMethodCopy { NoMethodCopy }
/// `fallback_copy` of a method (or associated function) `g` without a generic copy: associated functions of
/// its `impl` under the names an `order = K` caller's copy calls (`Self::__g_generic`, and the companion
/// functions `Self::____g_generic_vjp`, ..), of the copy's signatures, each a compile error once
/// instantiated (through one function `____g_generic_no_copy` holding a `NoGenericCopy` of its own, declared
/// in its body, spanned on `g`: reached through another method's copy, one error whichever items are
/// reached); and the marker `Self::__g_copied()` that makes the check at a direct caller's
/// call fail (`higher::method_copy_check`), before anything is instantiated.
fn fallback_method_copy(
    f: &FallbackCopy,
    scalar: &Ident,
    copy_generics: &syn::Generics,
) -> TokenStream {
    let FallbackCopy { vis, name, why, .. } = f;
    let where_clause = &copy_generics.where_clause;
    // In a generic `impl`, the copy over a float type of its own (`Self::__g_over`), which only the `impl`'s
    // own hidden functions call: a caller outside it reaches `g` itself (`S::__g_generic`, always there,
    // with its marker `S::__g_copied_by_name` saying so).
    let copy = match f.float {
        Some(_) => crate::naming::impl_generic_copy(name),
        None => crate::naming::generic_copy(name),
    };
    let marker = crate::naming::method_copy_marker(name);
    let by_name = f.float.is_none().then(|| {
        let marker = crate::naming::method_copy_marker_by_name(name);
        quote! {
            #[doc(hidden)]
            #[inline(always)]
            #[allow(dead_code)]
            #vis fn #marker<__A>(_: __A) -> ::autodiff::__private::NoMethodCopy {
                ::autodiff::__private::NoMethodCopy
            }
        }
    });
    let instead = match f.float {
        Some(_) => "Rewrite its body so, or write it as a free function generic over `T: Float`",
        None => {
            "Rewrite its body so (`self`'s fields read by index), give it `order = 2` if it takes no \
             `self`, or write its computation out in the caller"
        }
    };
    let message = format!(
        "`{name}` has no generic copy, which an `order = K` function calling it (directly or through other \
         methods) needs: {why}. {instead}"
    );
    let panic = quote_spanned!(name.span()=> ::core::panic!(#message));
    // One function holds the error, which every item runs: one marker type, so one error however many
    // of the items an `order = K` caller instantiates (the optimised adjoint reaches `vjp_into`, the
    // reference adjoint `vjp`), and the same error whichever it reaches.
    let no_copy = crate::naming::method_companion(&copy, "no_copy");
    let fail = quote!({ Self::#no_copy::<#scalar>() });
    // `call` is the copy itself; the others are its companion functions (`____g_generic_vjp`).
    let items = fallback_signatures(f, scalar, None).map(|(item, tail)| {
        let item = match item {
            "call" => copy.clone(),
            other => crate::naming::method_companion(&copy, other),
        };
        quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
            #vis fn #item #copy_generics #tail #where_clause #fail
        }
    });
    quote! {
        #(#items)*
        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, clippy::all, clippy::pedantic, clippy::nursery)]
        #vis fn #no_copy<#scalar>() -> ! {
            struct __NoCopy;
            impl<__T> ::autodiff::__private::NoGenericCopy<__T> for __NoCopy {
                const FAIL: () = #panic;
            }
            ::autodiff::__private::no_generic_copy::<__NoCopy, #scalar, ()>();
            ::core::unreachable!()
        }
        #[doc(hidden)]
        #[inline(always)]
        #[allow(dead_code)]
        #vis fn #marker() -> ::autodiff::__private::NoMethodCopy {
            ::autodiff::__private::NoMethodCopy
        }
        #by_name
    }
}

/// The body of `vjp_into`: the reverse sweep `sweep_into` run straight into the caller's slots (with a
/// zeroed scratch buffer for an array slot the caller left `None`), or else `vjp`'s cotangents added into
/// them; before either, the first of `sweeps` (a sweep into buffers and the slots it derives for) whose
/// other slots the caller left `None`. `vjp_into` is inlined into the call, where the caller's `None`s are
/// constants: the choice costs nothing at run time.
///
/// ```text
/// // Input: fn g(x: &[f64], y: f64) -> f64      // Output (with `__g_vjp_into`):
/// fn vjp_into(x: &[f64], y: f64, d_ret: f64,     let (__slot_0, __slot_1) = grads;
///     grads: (Option<&mut [f64]>,                 let mut __scratch_0 = Scratch::new();
///             Option<&mut f64>)) -> f64           let __buffer_0 = slot_or_scratch(__slot_0, &mut __scratch_0, x.len());
///                                                 let mut __buffer_1 = 0.0;
///                                                 let value = __g_vjp_into(x, y, d_ret, (__buffer_0, &mut __buffer_1));
///                                                 add_into_slot(__slot_1, __buffer_1);
///                                                 value
/// // With `__g_vjp_into_without_x` in `sweeps`:   let value = if __slot_0.is_none() { .. } else { .. };
/// ```
fn vjp_into_body(
    slots: &[Slot],
    vjp: &TokenStream,
    sweep_into: Option<&TokenStream>,
    sweeps: &[&(TokenStream, Vec<bool>)],
) -> TokenStream {
    let fixed = |n: &str| Ident::new(n, Span::mixed_site());
    let (grads, value) = (fixed("grads"), fixed("value"));
    let slot_names: Vec<Ident> = (0..slots.len())
        .map(|i| fixed(&format!("__slot_{i}")))
        .collect();
    let unpack = quote!(let (#(#slot_names,)*) = #grads;);
    let all: Vec<bool> = slots.iter().map(|s| s.active).collect();
    let fallback = crate::emit::concat(match sweep_into {
        Some(sweep_into) => run_sweep_into(slots, &slot_names, sweep_into, &all),
        None => run_vjp(slots, &slot_names, vjp),
    });
    if sweeps.is_empty() {
        return quote!(#unpack #fallback #value);
    }
    let mut chosen = quote!({ #fallback #value });
    for (sweep, active) in sweeps.iter().rev().map(|s| (&s.0, &s.1)) {
        // The slots of the parameters the sweep leaves out, which the caller may fill.
        let others = slots
            .iter()
            .zip(&slot_names)
            .zip(active)
            .filter(|((s, _), own)| s.active && !**own && !matches!(s.into, IntoSlot::None))
            .map(|((_, slot), _)| quote!(#slot.is_none()))
            .collect::<Vec<_>>();
        let run = crate::emit::concat(run_sweep_into(slots, &slot_names, sweep, active));
        chosen = if others.is_empty() {
            quote!({ #run #value })
        } else {
            quote!(if #(#others)&&* { #run #value } else #chosen)
        };
    }
    quote!(#unpack let #value = #chosen; #value)
}

/// `vjp_into`'s reverse sweep `sweep_into` run straight into the slots of the parameters `active` marks
/// (with a zeroed scratch buffer for an array slot the caller left `None`), binding `value`.
fn run_sweep_into(
    slots: &[Slot],
    slot_names: &[Ident],
    sweep_into: &TokenStream,
    active: &[bool],
) -> Vec<TokenStream> {
    let fixed = |n: &str| Ident::new(n, Span::mixed_site());
    let (d_ret, value) = (fixed("d_ret"), fixed("value"));
    let idents: Vec<&Ident> = slots.iter().map(|s| &s.ident).collect();
    let mut code = Vec::new();
    let mut buffers = Vec::new();
    let mut after = Vec::new();
    for (((s, slot), i), active) in slots.iter().zip(slot_names).zip(0..).zip(active) {
        if !*active {
            continue;
        }
        let buffer = fixed(&format!("__buffer_{i}"));
        let ident = &s.ident;
        match &s.into {
            IntoSlot::Array { .. } => {
                let scratch = fixed(&format!("__scratch_{i}"));
                code.push(quote! {
                        let mut #scratch = ::autodiff::__private::Scratch::new();
                        let #buffer = ::autodiff::__private::slot_or_scratch(#slot, &mut #scratch, #ident.len());
                    });
                buffers.push(buffer.to_token_stream());
            }
            IntoSlot::Scalar { zero, .. } => {
                code.push(quote!(let mut #buffer = #zero;));
                buffers.push(quote!(&mut #buffer));
                after.push(quote!(::autodiff::__private::add_into_slot(#slot, #buffer);));
            }
            IntoSlot::None => {}
        }
    }
    let buffers = match buffers.as_slice() {
        [one] => one.clone(),
        many => quote!((#(#many),*)),
    };
    code.push(quote!(let #value = #sweep_into(#(#idents,)* #d_ret, #buffers);));
    code.extend(after);
    code
}

/// `vjp_into` through `vjp`: its cotangents added into the caller's slots, binding `value`.
fn run_vjp(slots: &[Slot], slot_names: &[Ident], vjp: &TokenStream) -> Vec<TokenStream> {
    let fixed = |n: &str| Ident::new(n, Span::mixed_site());
    let (d_ret, value) = (fixed("d_ret"), fixed("value"));
    let idents: Vec<&Ident> = slots.iter().map(|s| &s.ident).collect();
    let mut code = Vec::new();
    let gradient = fixed("gradient");
    let names: Vec<Ident> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.active)
        .map(|(i, _)| fixed(&format!("__gradient_{i}")))
        .collect();
    let pattern = match names.as_slice() {
        [] => quote!(()),
        [one] => quote!(#one),
        many => quote!((#(#many),*)),
    };
    code.push(quote!(let (#value, #gradient) = #vjp(#(#idents,)* #d_ret);));
    code.push(quote!(let #pattern = #gradient;));
    let mut names = names.iter();
    for (s, slot) in slots.iter().zip(slot_names) {
        let Some(g) = s.active.then(|| names.next()).flatten() else {
            continue;
        };
        code.push(match &s.into {
            IntoSlot::Array { .. } => {
                quote!(::autodiff::__private::accumulate_into_slot(#slot, &#g[..]);)
            }
            IntoSlot::Scalar { .. } => quote!(::autodiff::__private::add_into_slot(#slot, #g);),
            IntoSlot::None => quote!(let _ = #slot;),
        });
    }
    code
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
/// `#[differentiable]` emits beside a method instead (a type cannot be declared inside an `impl`),
/// checked by `method_or_fallback` (one error at the call where `f` has no derivatives).
pub(crate) fn derivative_of(callee: &syn::ExprPath, item: &str, arguments: usize) -> TokenStream {
    derivative_of_checked(callee, item, arguments, Lookup::Checked(&[]))
}

// Input:  `huber`, called in `mod huber { use super::*; .. }`
// Output: `self::huber`
/// A callee's path as the lookups of `autodiff_core` import it (`use path as __callee`): a function named
/// like the inline module the call is in, which glob-imports its parent (`mod huber { use super::*; ..
/// huber(x, d) .. }`), by `self::`, since `use huber` would see both the companion type and the module
/// `huber` (rustc's E0659, "ambiguous"); any other path as it is.
pub(crate) fn imported(path: &syn::Path) -> syn::Path {
    let mut path = path.clone();
    if path.leading_colon.is_none()
        && path.segments.len() == 1
        && crate::context::in_module_named(&crate::naming::unraw(&path.segments[0].ident))
    {
        path.segments.insert(0, syn::parse_quote!(self));
    }
    path
}

// Input:  a call `g(a, t)` with both arguments differentiated
// Output: ::autodiff::__private::derivative_of!(g, vjp(_, _, _); through 0usize, 1usize).vjp
/// As [`derivative_of`], with a compile-time check that the callee differentiates through the parameters
/// at `positions`, those of the call's differentiated arguments (`maybe.rs`, `__private::Through`).
pub(crate) fn derivative_through(
    callee: &syn::ExprPath,
    item: &str,
    arguments: usize,
    positions: &[usize],
) -> TokenStream {
    derivative_of_checked(callee, item, arguments, Lookup::Checked(positions))
}

/// How a call site looks its callee's derivatives up.
#[derive(Clone, Copy)]
enum Lookup<'a> {
    /// An error where there are none; a check of the parameters at these positions.
    Checked(&'a [usize]),
    /// No error: a maybe call (`maybe.rs`), whose fallback item takes arguments of these types.
    Unchecked(&'a [TokenStream]),
}

/// As [`derivative_of`], without the error where the callee has no derivatives, for a maybe call of the
/// hidden sweeps (`maybe.rs`), which runs it only where `found_of` says it has them. The fallback's item
/// takes an argument of each of `types` (`impl Sized`, or `()` where the call passes
/// `Default::default()`, which only the companion's parameter types determine).
pub(crate) fn derivative_of_unchecked(
    callee: &syn::ExprPath,
    item: &str,
    types: &[TokenStream],
) -> TokenStream {
    if let Some(copy) = crate::maybe::CopyCall::of_callee(callee) {
        return copy.derivative(item, types, false);
    }
    derivative_of_checked(callee, item, types.len(), Lookup::Unchecked(types))
}

fn derivative_of_checked(
    callee: &syn::ExprPath,
    item: &str,
    arguments: usize,
    lookup: Lookup,
) -> TokenStream {
    if let Some(copy) = generic_copy_derivative(callee, item, arguments) {
        return copy;
    }
    if crate::naming::is_associated_call(&callee.path) {
        let mut path = callee.clone();
        let mut method = None;
        if let Some(last) = path.path.segments.last_mut() {
            method = Some(last.ident.clone());
            last.ident = crate::naming::method_companion(&last.ident, item);
            if let syn::PathArguments::AngleBracketed(args) = &mut last.arguments {
                args.colon2_token = Some(Default::default());
            }
        }
        return match method {
            Some(method) => method_or_fallback(&path, &method, arguments),
            None => path.to_token_stream(),
        };
    }
    let mut path = imported(&callee.path);
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
    match lookup {
        Lookup::Checked(positions) => {
            let through = (!positions.is_empty()).then(|| quote!(; through #(#positions),*));
            quote_spanned! {span=>
                ::autodiff::__private::derivative_of!(#path, #item(#(#placeholders),*) #registered #through).#item #generics
            }
        }
        // A turbofish (`gbump::<f64>(0.5, t)`) goes on the item: the fallback's takes as many generic
        // parameters, and never runs.
        Lookup::Unchecked(types) => {
            let parameters = generics.as_ref().map(|g| {
                let names = (0..g.args.len()).map(|i| quote::format_ident!("__G{}", i));
                quote!(<#(#names),*>)
            });
            quote_spanned! {span=>
                ::autodiff::__private::derivative_of!(@unchecked #path, #item(#(#types),*) #parameters #registered).#item #generics
            }
        }
    }
}

/// The path of a callee reached through its companion type, without generic arguments (the companion
/// type is not generic), and the method through which a `#[gradient_of(path)]` registration is found;
/// `None` for one reached otherwise (an associated function, the generic copy of another function, a
/// qualified path), whose parameters are all differentiated through (`maybe.rs`).
pub(crate) fn companion_path(callee: &syn::ExprPath) -> Option<(syn::Path, Option<Ident>)> {
    if crate::shadow::is_generic_copy_call(callee)
        || is_variant(callee)
        || crate::naming::is_associated_call(&callee.path)
        || callee.qself.is_some()
    {
        return None;
    }
    let mut path = callee.path.clone();
    path.segments.last_mut()?.arguments = syn::PathArguments::None;
    let registered = crate::naming::registered_path(&path);
    Some((imported(&path), registered))
}

/// Is `callee` `Some`, `Ok` or `Err`: a variant, not a function (`Some(t)` of a parameter outside `wrt(..)`
/// is kept constant by the hidden sweeps, `maybe::unplanned`; of a differentiated value, an error in
/// `activity.rs`)?
pub(crate) fn is_variant(callee: &syn::ExprPath) -> bool {
    callee.qself.is_none()
        && callee
            .path
            .get_ident()
            .is_some_and(|i| i == "Some" || i == "Ok" || i == "Err")
}

// Input:  a call `bump(0.5, t)` in the hidden `__vjp_all`, `t` outside `wrt(..)`
// Output: ::autodiff::__private::found_of!(bump)
/// A constant `bool` in generated code: does `callee` have derivatives? (`maybe.rs`.)
pub(crate) fn found_of(callee: &syn::ExprPath) -> Option<TokenStream> {
    if let Some(copy) = crate::maybe::CopyCall::of_callee(callee) {
        return Some(copy.found());
    }
    let (path, registered) = companion_path(callee)?;
    let registered = registered.map(|method| quote!(, #method));
    Some(quote!(::autodiff::__private::found_of!(#path #registered)))
}

// Input:  a call `g(a, t)`, position 1
// Output: ::autodiff::__private::through_of!(g; 1usize)
/// A constant `bool` in generated code: does `callee` have derivatives and differentiate through its
/// parameter at `position`?
pub(crate) fn through_of(callee: &syn::ExprPath, position: usize) -> Option<TokenStream> {
    let (path, registered) = companion_path(callee)?;
    let registered = registered.map(|method| quote!(, #method));
    Some(quote!(
        ::autodiff::__private::through_of!(#path #registered; #position)
    ))
}

// Input:  Self::__g_jvp (a hidden item of the method `g`, called with 3 arguments)
// Output: {
//             trait __NoDerivative {
//                 fn __g_found() -> NoDerivative { NoDerivative }
//                 fn __g_jvp<__R>(_: impl Sized, _: impl Sized, _: impl Sized) -> __R { unreachable!() }
//             }
//             impl<__T: ?Sized> __NoDerivative for __T {}
//             require_method_derivative(Self::__g_found());
//             Self::__g_jvp
//         }
/// The hidden item `path` of the method `method` (`g`, or its copy `__g_generic`), `Self::__g_jvp` or
/// `Self::__g_generic`, checked: the companion
/// functions of a method with derivatives include the marker `Self::__g_found()`, which gives `Found`;
/// where there is none (`g` has no derivatives), the check's own trait supplies it, giving `NoDerivative`,
/// and `require_method_derivative` fails with its message, at the call. The trait also stands for the
/// missing item, taking any `arguments` and giving anything, so that rustc reports nothing else there;
/// every generated function that calls `g` reports the same error, which rustc shows once.
pub(crate) fn method_or_fallback(
    path: &syn::ExprPath,
    method: &Ident,
    arguments: usize,
) -> TokenStream {
    let Some(last) = path.path.segments.last() else {
        return path.to_token_stream();
    };
    let span = last.ident.span();
    let name = &last.ident;
    // By the type's name without its generic arguments (`S::g`, not `S::<f64>::g`), whose generic
    // `impl`'s `T` the path may leave open: the marker that takes a float literal.
    let segments = &path.path.segments;
    let by_name = segments.first().is_some_and(|s| s.ident != "Self")
        && segments.iter().all(|s| s.arguments.is_none());
    let (marker, marker_parameter, marker_argument) = match by_name {
        true => (
            crate::naming::method_derivative_marker_by_name(method),
            quote!(<__A>(_: __A)),
            quote!(0.0),
        ),
        false => (
            crate::naming::method_derivative_marker(method),
            quote!(()),
            quote!(),
        ),
    };
    let mut marker_path = path.clone();
    if let Some(last) = marker_path.path.segments.last_mut() {
        last.ident = marker.clone();
        last.arguments = syn::PathArguments::None;
    }
    let parameters = (0..arguments).map(|_| quote!(_: impl ::core::marker::Sized));
    // The whole paths on the method's name, where rustc then points.
    let on_name = |path: &syn::ExprPath| -> TokenStream {
        path.to_token_stream()
            .into_iter()
            .map(|mut t| {
                t.set_span(span);
                t
            })
            .collect()
    };
    let (path, marker_path) = (on_name(path), on_name(&marker_path));
    // In parentheses: a block at the start of a statement would end there, before the call's arguments.
    quote_spanned! {span=>
        ({
            #[allow(non_camel_case_types, dead_code, non_snake_case)]
            trait __NoDerivative {
                #[inline(always)]
                fn #marker #marker_parameter -> ::autodiff::__private::NoDerivative {
                    ::autodiff::__private::NoDerivative
                }
                #[inline(always)]
                #[allow(clippy::too_many_arguments, clippy::all)]
                fn #name<__R>(#(#parameters),*) -> __R {
                    ::core::unreachable!()
                }
            }
            impl<__T: ?::core::marker::Sized> __NoDerivative for __T {}
            ::autodiff::__private::require_method_derivative(#marker_path(#marker_argument));
            #path
        })
    }
}

/// In the body of a generic copy (`__f_generic`), each call of a hidden item of a method
/// (`Self::__g_generic(..)`) checked as by `method_or_fallback`: `g` may have no derivatives, which the
/// copy's first-order function reports at the same call.
pub(crate) struct CheckedHiddenCalls;

impl syn::visit_mut::VisitMut for CheckedHiddenCalls {
    fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        let syn::Expr::Call(call) = expr else {
            return;
        };
        let syn::Expr::Path(p) = &*call.func else {
            return;
        };
        if let Some(last) = p.path.segments.last().filter(|_| is_hidden_method_item(p)) {
            let callee = method_or_fallback(p, &last.ident, call.args.len());
            *call.func = syn::parse_quote!(#callee);
        }
    }
}

/// For a call of a generic copy, `<g as GenericCopy>::Copy::call::<T>` (a generic copy calling another's,
/// `shadow.rs`), the derivative `item` of the copy's companion: `<g as GenericCopy>::copy().item::<T>`, or
/// for a function called by a path of two or more segments, the copy of what `derivative_of!` finds there
/// (`copy_by_path`). `None` for any other callee.
fn generic_copy_derivative(
    callee: &syn::ExprPath,
    item: &str,
    arguments: usize,
) -> Option<TokenStream> {
    if !crate::shadow::is_generic_copy_call(callee) {
        return None;
    }
    // (Reached only where the callee's derivatives are needed: the error where it has none.)
    if let Some(copy) = crate::maybe::CopyCall::of_callee(callee) {
        let types = vec![TokenStream::new(); arguments];
        return Some(copy.derivative(item, &types, true));
    }
    let ty = &callee.qself.as_ref()?.ty;
    let last = callee.path.segments.last()?;
    let generics = match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => {
            let mut args = args.clone();
            args.colon2_token = Some(Default::default());
            Some(args)
        }
        _ => None,
    };
    if let Some(by_path) =
        copied_path(ty).and_then(|path| copy_by_path(path, item, arguments, generics.as_ref()))
    {
        return Some(by_path);
    }
    let item = Ident::new(item, last.ident.span());
    Some(quote!(<#ty as ::autodiff::__private::GenericCopy>::copy().#item #generics))
}

/// The path of the function in `<path as GenericCopy>`, if it is one that `copy_by_path` reaches: two or
/// more segments, not an associated function's.
fn copied_path(ty: &syn::Type) -> Option<&syn::Path> {
    match ty {
        syn::Type::Path(p)
            if p.qself.is_none()
                && crate::naming::registered_path(&p.path).is_some()
                && !crate::naming::is_associated_call(&p.path) =>
        {
            Some(&p.path)
        }
        _ => None,
    }
}

/// `item` (`call_on`, `vjp`, ...) of the generic copy of the function that a call by `path` (two or more
/// segments, `libm::erf`) reaches: `copy_by_path!(libm::erf, item(_), REG).item`, the copy of the companion
/// that the caller's first-order derivative uses (a `#[gradient_of(libm::erf)]` registration in scope, else
/// the function's own), so that the copy's derivatives are those of the gradient. The companion type at a
/// path cannot be named (`<libm::erf as GenericCopy>` names a function where a registration stands in for
/// it): it is found as a value. `None` for a one-segment path.
pub(crate) fn copy_by_path(
    path: &syn::Path,
    item: &str,
    arguments: usize,
    generics: Option<&syn::AngleBracketedGenericArguments>,
) -> Option<TokenStream> {
    let key = crate::naming::registered_path(path)?;
    let span = path
        .segments
        .last()
        .map_or_else(Span::call_site, |s| s.ident.span());
    let item = Ident::new(item, span);
    let placeholders = (0..arguments).map(|_| quote!(_));
    Some(quote_spanned! {span=>
        ::autodiff::__private::copy_by_path!(#path, #item(#(#placeholders),*), #key).#item #generics
    })
}

/// A callee as the primal calls it: a generic copy called by a path of two or more segments through
/// `copy_by_path`'s `call_on` (`<libm::erf as GenericCopy>::Copy::call` would name a function as a type),
/// any other as written.
pub(crate) fn primal_callee(callee: &syn::ExprPath, arguments: usize) -> TokenStream {
    if let Some(copy) = crate::maybe::CopyCall::of_callee(callee) {
        return copy.written();
    }
    if let Some(call) = primal_copy_by_path(callee, arguments) {
        return call;
    }
    if let Some(last) = callee
        .path
        .segments
        .last()
        .filter(|_| is_hidden_method_item(callee))
    {
        return method_or_fallback(callee, &last.ident, arguments);
    }
    callee.to_token_stream()
}

/// A call of a generic copy by a path of two or more segments (`<libm::erf as GenericCopy>::Copy::call`), as
/// the primal calls it: through `copy_by_path`'s `call_on`; `None` for any other callee.
pub(crate) fn primal_copy_by_path(callee: &syn::ExprPath, arguments: usize) -> Option<TokenStream> {
    // (A call through `copy_or_as_written!` is made so: `primal_callee`.)
    if !crate::shadow::is_generic_copy_call(callee)
        || crate::maybe::CopyCall::of_callee(callee).is_some()
    {
        return None;
    }
    let generics = match callee.path.segments.last().map(|l| &l.arguments) {
        Some(syn::PathArguments::AngleBracketed(args)) => Some(args),
        _ => None,
    };
    let path = callee.qself.as_ref().and_then(|q| copied_path(&q.ty))?;
    copy_by_path(path, "call_on", arguments, generics)
}

/// Is `callee` a hidden item of a method, `Self::__g_generic` (a generic copy calling another's)?
fn is_hidden_method_item(callee: &syn::ExprPath) -> bool {
    let hidden = callee
        .path
        .segments
        .last()
        .is_some_and(|last| crate::naming::unraw(&last.ident).starts_with("__"));
    callee.qself.is_none() && hidden && crate::naming::is_associated_call(&callee.path)
}
