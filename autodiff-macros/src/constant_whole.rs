//! `__g_whole` of an `order = K` function that keeps its parameter structs constant and only reads their
//! fields (`struct_higher.rs`'s way, which needs no derive): the hidden function an `order = K` caller
//! calls where it passes the struct on whole (`g(p, x)`, through `struct_whole.rs`'s values view), made
//! of forwarding items that bind the fields from the struct and call `__g_fields`' own items.
//!
//! A method keeping `self` so (`Cfg::energy(p, x)`) has the same items as associated functions of its
//! `impl`, taking `&self`.
//!
//! The struct is constant in `g`, and so its values view: the forwarding takes it and gives back no
//! derivative for it (zeros). A caller that differentiates the struct does not reach here: the first order
//! of its call of `g`, which keeps the struct constant, is an error there (`DifferentiatedSlot`).
//!
//! ```text
//! // Input:
//! #[differentiable(wrt(x), order = 2)]
//! fn reads(p: &Cfg, x: &[f64]) -> f64 { p.b * x[0] * x[1] }
//! // Output (beside `__reads_fields`, `reads_hvp`, ..):
//! fn __reads_whole(p: &<Cfg as Itself>::Type, __p_values: &[f64], x: &[f64]) -> f64 {
//!     let __p_b = p.b;
//!     __reads_fields(__p_b, x)
//! }
//! struct __reads_whole {}
//! impl __reads_whole {
//!     fn vjp_into(self, p: &Cfg, __p_values: &[f64], x: &[f64], d_ret: f64,
//!         grads: ((), Option<&mut [f64]>, Option<&mut [f64]>)) -> f64 {
//!         let (_, _, __slot_x) = grads;
//!         let __p_b = p.b;
//!         __reads_fields {}.vjp_into(__p_b, x, d_ret, (Default::default(), __slot_x))
//!     }
//!     fn jvp(..) -> (f64, f64) { .. __reads_fields {}.jvp(__p_b, x, (<f64 as Zero>::zero(), __tangent_x)) }
//!     fn vjp(..) -> (f64, ((), Vec<f64>, Vec<f64>)) { .. }
//! }
//! struct ____reads_whole_generic {}
//! impl ____reads_whole_generic {
//!     fn call<__S: Float>(p: &Cfg, __p_values: &[__S], x: &[__S]) -> __S {
//!         let __p_b = lift::<__S, _>(p.b.clone());
//!         <__reads_fields as GenericCopy>::Copy::call(__p_b, x)
//!     }
//!     ..  (`vjp_into`, `jvp`, `vjp` through `<__reads_fields as GenericCopy>::copy()`)
//! }
//! impl GenericCopy for __reads_whole { type Copy = ____reads_whole_generic; .. }
//! impl HasGenericCopy for __reads_whole {}
//! ```

use crate::ir::Kind;
use crate::struct_higher::StructFunction;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

/// The forwarding `__g_whole` of `s` and its generic copy (with `__g_pairs`, which a caller passing a
/// nested struct field on whole calls), or `None` where `s` is outside what it serves: a method of a
/// generic `impl`, a function with type parameters or output parameters, one that differentiates a struct
/// or passes a field on whole, or has no differentiated input (then it has no `__g_fields`). A method's
/// are associated functions beside it, taking `&self` (`Self::__g_whole`, `Self::____g_whole_vjp_into`,
/// `Self::____g_whole_generic`, ..), calling `Self::__g_fields`' own.
pub(crate) fn items(s: &StructFunction) -> Option<TokenStream> {
    let item = s.item;
    let method = crate::expand::is_method(item);
    // A method's items are associated functions of its `impl`, which has no float type parameter.
    let in_impl =
        !method || crate::signature::float_type_params(&s.analysis_item.sig.generics).is_empty();
    let fits = in_impl
        && item.sig.generics.params.is_empty()
        && s.sig.params.iter().any(|p| p.active)
        && s.sig
            .params
            .iter()
            .all(|p| !(matches!(p.kind, Kind::Struct(_)) && p.active))
        && s.sig.outputs().next().is_none()
        && s.sig.params.iter().all(plain_param)
        && s.flat.field_inputs().all(|f| !f.whole);
    if !fits {
        return None;
    }
    let f64_ident = Ident::new("f64", Span::call_site());
    let scalar = Ident::new("__S", Span::call_site());
    let first = Forwarding::new(s, &f64_ident, false).items();
    let second = Forwarding::new(s, &scalar, true).items();
    let pairs = crate::struct_whole::pairs::of_structs(s);
    if method {
        // Beside the method in its `impl`: `Self::__f_whole`, `Self::____f_whole_vjp_into`, ..,
        // `Self::____f_whole_generic`, `Self::______f_whole_generic_vjp_into`, .., as callers name them.
        let hidden = quote! {
            #[doc(hidden)]
            #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
        };
        let items = first.iter().chain(&second);
        return Some(quote!(#(#hidden #items)* #pairs));
    }
    let whole = crate::naming::whole_function(&item.sig.ident);
    let copy = crate::naming::generic_copy(&whole);
    let vis = &item.vis;
    let [function, first_derivatives @ ..] = first.as_slice() else {
        return None;
    };
    let hidden = quote! {
        #[doc(hidden)]
        #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
    };
    Some(quote! {
        #hidden
        #function
        #hidden
        #[allow(non_camel_case_types)]
        #vis struct #whole {}
        #hidden
        impl #whole { #(#first_derivatives)* }
        #hidden
        #[allow(non_camel_case_types)]
        #vis struct #copy {}
        #hidden
        impl #copy { #(#second)* }
        impl ::autodiff::__private::GenericCopy for #whole {
            type Copy = #copy;
            #[inline(always)]
            fn copy() -> #copy { #copy {} }
        }
        impl ::autodiff::__private::HasGenericCopy for #whole {}
        #pairs
    })
}

/// Is `p` a parameter the forwarding passes on as it is: a struct, a float, a slice or a `Vec` of floats
/// (differentiated or not), or a value without a derivative (an index)? Not a tuple, an array or a matrix
/// (`__g_fields` takes a tuple's parts and their slots its own way).
fn plain_param(p: &crate::signature::Param) -> bool {
    match &p.kind {
        Kind::Struct(_) => true,
        Kind::Float(_) => p.array.is_none() && !p.output && !p.by_ref,
        Kind::Array => {
            p.differentiable && !p.output && p.array.is_some_and(|a| !a.fixed && !a.matrix)
        }
        _ => !p.differentiable && p.array.is_none(),
    }
}

/// The forwarding items over one float type: `f64` (the function and its companion's derivatives) or the
/// generic copy's `__S`.
struct Forwarding<'a> {
    s: &'a StructFunction<'a>,
    scalar: &'a Ident,
    generic: bool,
    /// Each parameter of `__g_whole`, declared.
    params: Vec<TokenStream>,
    /// The slots of `vjp_into`'s `grads`, `jvp`'s `tangents` and `vjp`'s cotangents, as types.
    into_types: Vec<TokenStream>,
    tangent_types: Vec<TokenStream>,
    cotangent_types: Vec<TokenStream>,
    /// Per slot, the local a non-struct parameter's slot is bound to (`None` for a struct's two).
    locals: Vec<Option<Ident>>,
    /// The parameters' names, in order.
    names: Vec<Ident>,
}

impl<'a> Forwarding<'a> {
    fn new(s: &'a StructFunction<'a>, scalar: &'a Ident, generic: bool) -> Self {
        let float = |tokens: TokenStream| match generic {
            true => {
                let tokens = crate::shadow::replace_float(tokens, "f64", scalar);
                crate::shadow::replace_float(tokens, "f32", scalar)
            }
            false => tokens,
        };
        let mut f = Forwarding {
            s,
            scalar,
            generic,
            params: Vec::new(),
            into_types: Vec::new(),
            tangent_types: Vec::new(),
            cotangent_types: Vec::new(),
            locals: Vec::new(),
            names: Vec::new(),
        };
        let slots = crate::expand::companion_slots(s.sig);
        for (p, slot) in s.sig.params.iter().zip(&slots) {
            if let Kind::Struct(ty) = &p.kind {
                // The struct, by the name the body reads its fields by (`&self` for `self`, which a
                // caller passes first, `Self::__f_whole(__p_primal, ..)`), and its values view.
                let ident = &p.ident;
                let values = format_ident!(
                    "__{}_values",
                    crate::naming::unraw(ident),
                    span = Span::call_site()
                );
                f.params.push(match ident == "self" {
                    true => quote!(&#ident),
                    false => quote!(#ident: &<#ty as ::autodiff::__private::Itself>::Type),
                });
                f.params.push(quote!(#values: &[#scalar]));
                f.into_types.push(quote!(()));
                f.into_types
                    .push(quote!(::core::option::Option<&mut [#scalar]>));
                f.tangent_types.push(quote!(()));
                f.tangent_types.push(quote!(::std::vec::Vec<#scalar>));
                f.cotangent_types.push(quote!(()));
                f.cotangent_types.push(quote!(::std::vec::Vec<#scalar>));
                f.locals.extend([None, None]);
                f.names.extend([ident.clone(), values]);
                continue;
            }
            f.params
                .push(float(crate::signature::declare(&slot.ident, &slot.ty)));
            f.names.push(slot.ident.clone());
            f.into_types.push(float(slot.into.ty()));
            f.tangent_types
                .push(float(slot.tangent_ty.clone().unwrap_or_else(|| quote!(()))));
            f.cotangent_types
                .push(match (&slot.tangent_ty, slot.active) {
                    (Some(t), true) => float(t.clone()),
                    _ => quote!(()),
                });
            f.locals.push(Some(format_ident!(
                "__slot_{}",
                crate::naming::unraw(&p.ident),
                span = Span::mixed_site()
            )));
        }
        f
    }

    /// The function (`call` of the copy, then `call_on`), `vjp_into`, `jvp` and `vjp`.
    fn items(&self) -> Vec<TokenStream> {
        let s = self.s;
        let scalar = self.scalar;
        let vis = &s.item.vis;
        let ret = quote!(#scalar);
        let generics = self
            .generic
            .then(|| quote!(<#scalar: ::autodiff::__private::Float>));
        let params = &self.params;
        let prologue = match self.generic {
            true => s.flat.bind_fields_lifted(s.sig, scalar),
            false => s.flat.bind_fields(s.sig),
        };
        let method = crate::expand::is_method(s.item);
        let args = crate::struct_higher::call_args(s, method, None);
        let call = self.fields_item(None);
        let (companion_vjp_into, companion_jvp, companion_vjp) = (
            self.fields_item(Some("vjp_into")),
            self.fields_item(Some("jvp")),
            self.fields_item(Some("vjp")),
        );
        // The items' names: beside a free function the function (`call` in the copy) and the companion's
        // methods, beside a method associated functions named as callers name them.
        let whole = crate::naming::whole_function(&s.item.sig.ident);
        let own = match self.generic {
            true => crate::naming::generic_copy(&whole),
            false => whole,
        };
        let name = match (method, self.generic) {
            (false, true) => Ident::new("call", Span::call_site()),
            _ => own.clone(),
        };
        let item_name = |item: &str| match method {
            true => crate::naming::method_companion(&own, item),
            false => Ident::new(item, Span::call_site()),
        };
        let (vjp_into_name, jvp_name, vjp_name) =
            (item_name("vjp_into"), item_name("jvp"), item_name("vjp"));
        let fixed = |n: &str| Ident::new(n, Span::mixed_site());
        let (d_ret, grads, tangents, value, cotangents) = (
            fixed("d_ret"),
            fixed("grads"),
            fixed("tangents"),
            fixed("__value"),
            fixed("__cotangents"),
        );
        // The slots of `__g_fields`' items, in its parameters' order: each struct's fields where the
        // struct is (none given back for a constant struct, zero tangents), the other parameters' as the
        // caller passed them.
        let (field_slots, field_tangents) = self.field_slots();
        let parents: Vec<usize> = s.flat.field_inputs().map(|f| f.parent).collect();
        let (mut slots, mut tangent_slots, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
        // A method's `__g_fields` takes `self` first, a constant: `()` in its slots.
        if method && s.sig.params.iter().any(|p| p.ident == "self") {
            slots.push(quote!(()));
            tangent_slots.push(quote!(()));
            skipped.push(quote!(_));
        }
        for (i, (p, local)) in s.sig.params.iter().zip(self.param_locals()).enumerate() {
            match (&p.kind, local) {
                (Kind::Struct(_), _) => {
                    for (k, _) in parents
                        .iter()
                        .enumerate()
                        .filter(|(_, parent)| **parent == i)
                    {
                        slots.push(field_slots[k].clone());
                        tangent_slots.push(field_tangents[k].clone());
                        skipped.push(quote!(_));
                    }
                }
                (_, Some(local)) => {
                    slots.push(quote!(#local));
                    tangent_slots.push(quote!(#local));
                    skipped.push(quote!(#local));
                }
                (_, None) => {}
            }
        }
        let pattern: Vec<TokenStream> = self
            .locals
            .iter()
            .map(|l| match l {
                Some(l) => quote!(#l),
                None => quote!(_),
            })
            .collect();
        let (into_types, tangent_types, cotangent_types) =
            (&self.into_types, &self.tangent_types, &self.cotangent_types);
        // `vjp`'s cotangents: the struct's nothing and zeros over its view, the others' from `__g_fields`
        // after its fields'.
        let mut gathered = Vec::new();
        for (p, local) in s.sig.params.iter().zip(self.param_locals()) {
            match (&p.kind, local) {
                (Kind::Struct(_), _) => {
                    let values = format_ident!(
                        "__{}_values",
                        crate::naming::unraw(&p.ident),
                        span = Span::call_site()
                    );
                    gathered.push(quote!(()));
                    gathered.push(quote!(::autodiff::__private::zeros_like(&#values[..])));
                }
                (_, Some(local)) => gathered.push(quote!(#local)),
                (_, None) => {}
            }
        }
        let function = quote! {
            #[inline]
            #vis fn #name #generics (#(#params),*) -> #ret {
                #prologue
                #call(#(#args),*)
            }
        };
        let receiver = (!method).then(|| quote!(self,));
        let names = &self.names;
        // (`call` on the companion found for a call by a path, `__private::copy_of`.)
        let on = match self.generic && !method {
            true => Some(quote! {
                #[inline(always)]
                #vis fn call_on #generics (#receiver #(#params),*) -> #ret {
                    Self::call(#(#names),*)
                }
            }),
            false => None,
        };
        let vjp_into = quote! {
            #[inline]
            #vis fn #vjp_into_name #generics (#receiver #(#params,)* #d_ret: #ret, #grads: (#(#into_types,)*)) -> #ret {
                let (#(#pattern,)*) = #grads;
                #prologue
                #companion_vjp_into(#(#args,)* #d_ret, (#(#slots,)*))
            }
        };
        let jvp = quote! {
            #[inline]
            #vis fn #jvp_name #generics (#receiver #(#params,)* #tangents: (#(#tangent_types,)*)) -> (#ret, #ret) {
                let (#(#pattern,)*) = #tangents;
                #prologue
                #companion_jvp(#(#args,)* (#(#tangent_slots,)*))
            }
        };
        let vjp = quote! {
            #[inline]
            #vis fn #vjp_name #generics (#receiver #(#params,)* #d_ret: #ret) -> (#ret, (#(#cotangent_types,)*)) {
                #prologue
                let (#value, #cotangents) = #companion_vjp(#(#args,)* #d_ret);
                let (#(#skipped,)*) = #cotangents;
                (#value, (#(#gathered,)*))
            }
        };
        let mut items = vec![function];
        items.extend(on);
        items.extend([vjp_into, jvp, vjp]);
        items
    }

    /// `__g_fields`' own item as the forwarding calls it: the function itself (`None`) or its companion's
    /// `vjp_into`, `jvp` or `vjp`, or its generic copy's; a method's are associated functions of its `impl`
    /// (`Self::____g_fields_vjp_into`).
    fn fields_item(&self, item: Option<&str>) -> TokenStream {
        let fields = crate::struct_higher::fields_name(self.s.item);
        if crate::expand::is_method(self.s.item) {
            let own = match self.generic {
                true => crate::naming::generic_copy(&fields),
                false => fields,
            };
            return match item {
                None => quote!(Self::#own),
                Some(item) => {
                    let item = crate::naming::method_companion(&own, item);
                    quote!(Self::#item)
                }
            };
        }
        let companion = match self.generic {
            true => quote!(<#fields as ::autodiff::__private::GenericCopy>::copy()),
            false => quote!(#fields {}),
        };
        match (item, self.generic) {
            (None, true) => quote!(<#fields as ::autodiff::__private::GenericCopy>::Copy::call),
            (None, false) => quote!(#fields),
            (Some(item), _) => {
                let item = Ident::new(item, Span::call_site());
                quote!(#companion.#item)
            }
        }
    }

    /// Per declared parameter, the local its slot is bound to (`None` for a struct).
    fn param_locals(&self) -> Vec<Option<&Ident>> {
        let mut locals = self.locals.iter();
        self.s
            .sig
            .params
            .iter()
            .map(|p| match p.kind {
                Kind::Struct(_) => {
                    locals.next();
                    locals.next();
                    None
                }
                _ => locals.next().and_then(Option::as_ref),
            })
            .collect()
    }

    /// For each field input, its slot in `__g_fields`' `vjp_into` (none given: `None`, or `()` for a field
    /// without a derivative) and its zero tangent in `jvp`.
    fn field_slots(&self) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let s = self.s;
        let scalar = self.scalar;
        let floats = crate::struct_higher::float_fields(s);
        let default = quote!(::core::default::Default::default());
        s.flat
            .field_inputs()
            .zip(floats)
            .map(|(f, float)| {
                let input = f.ident;
                let measured = s
                    .sig
                    .params
                    .get(f.parent)
                    .is_some_and(|p| crate::struct_higher::only_measured(s, p, input));
                let tangent = match (f.array, float) {
                    // A matrix, passed as its rows (`call_args`): rows of zeros.
                    (true, true) if f.matrix => quote!(
                        ::autodiff::__private::vec_matrix_rows(#input)
                            .iter()
                            .map(|row| ::autodiff::__private::zeros_like(&row[..]))
                            .collect::<::std::vec::Vec<_>>()
                    ),
                    (true, true) if f.constant.is_none() && !measured => {
                        quote!(::autodiff::__private::zeros_like(&#input[..]))
                    }
                    (false, true) => quote!(<#scalar as ::autodiff::__private::Zero>::zero()),
                    _ => default.clone(),
                };
                (default.clone(), tangent)
            })
            .unzip()
    }
}
