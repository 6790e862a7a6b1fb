//! `#[derive(Differentiable)]`: a struct of floats, `Vec`s and arrays of them and other differentiable
//! structs becomes its own gradient type, with `#[no_grad]` fields copied from the value.
//!
//! ```text
//! // Input:                                 // Output:
//! #[derive(Differentiable)]                 impl Differentiable for Mlp where Vec<f64>: Differentiable, .. {
//! struct Mlp {                                  fn zero_like(&self) -> Self {
//!     w: Vec<f64>,                                  Mlp { w: Differentiable::zero_like(&self.w), hidden: Clone::clone(&self.hidden) }
//!     #[no_grad]                                }
//!     hidden: usize,                            fn add_assign(&mut self, other: &Self) { self.w.add_assign(&other.w); }
//! }                                             .. scale, flat_len, extend_flat, take_flat, each over `w` alone
//!                                           }
//! ```

use crate::errors::Errors;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Type};

/// Expands `#[derive(Differentiable)]` on `input`.
pub(crate) fn derive(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    let mut errors = Errors::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("no_grad")) {
        errors.spanned(
            attr,
            "`#[no_grad]` marks a field of the struct as a constant: put it on a field, not on the struct",
        );
    }
    let fields = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => Some(named),
            _ => {
                errors.spanned(
                    &input.ident,
                    "`#[derive(Differentiable)]` needs a struct with named fields: `struct P { w: Vec<f64>, b: f64 }`",
                );
                None
            }
        },
        _ => {
            errors.spanned(
                &input.ident,
                "`#[derive(Differentiable)]` applies to a struct with named fields, not to an enum or a union",
            );
            None
        }
    };
    let mut differentiable = Vec::new();
    let mut constant = Vec::new();
    for field in fields.iter().flat_map(|f| &f.named) {
        let marks: Vec<&syn::Attribute> = field
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("no_grad"))
            .collect();
        for mark in &marks {
            if !matches!(mark.meta, syn::Meta::Path(_)) {
                errors.spanned(mark, "`#[no_grad]` takes no arguments: write `#[no_grad]`");
            }
        }
        if !marks.is_empty() {
            constant.push(field);
        } else if let Some(problem) = unsupported(&field.ty) {
            errors.spanned(
                &field.ty,
                format!(
                    "a field of type `{problem}` cannot be differentiated: a differentiable field is a float \
                     (`f64`, `f32`, `T: Float`), a `Vec` or array of them, or another struct deriving \
                     `Differentiable`; mark a constant field (an integer, a flag, data) `#[no_grad]`",
                ),
            );
        } else {
            differentiable.push(field);
        }
    }
    if let Err(errors) = errors.finish() {
        return errors;
    }
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let trait_path = quote!(::autodiff::__private::Differentiable);
    let mut predicates: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    for field in &differentiable {
        let ty = &field.ty;
        predicates.push(quote_spanned!(ty.span()=> #ty: #trait_path));
    }
    for field in &constant {
        let ty = &field.ty;
        predicates.push(quote_spanned!(ty.span()=> #ty: ::core::clone::Clone));
    }
    let d: Vec<&syn::Ident> = differentiable
        .iter()
        .filter_map(|f| f.ident.as_ref())
        .collect();
    let c: Vec<&syn::Ident> = constant.iter().filter_map(|f| f.ident.as_ref()).collect();
    let c_names: Vec<String> = c.iter().map(|i| i.to_string()).collect();
    let constant_check = if c_names.is_empty() {
        quote!(false)
    } else {
        quote!(matches!(field, #(#c_names)|*))
    };
    // The `#[no_grad]` fields that hold floats are in the values view (`autodiff_core`'s `values.rs`).
    let type_params: Vec<&syn::Ident> = crate::signature::float_type_params(&input.generics)
        .into_iter()
        .filter_map(|t| {
            input
                .generics
                .type_params()
                .map(|p| &p.ident)
                .find(|p| **p == t)
        })
        .collect();
    let constant_floats: Vec<&syn::Field> = constant
        .iter()
        .copied()
        .filter(|f| holds_floats(&f.ty, &type_params))
        .collect();
    for field in &constant_floats {
        let ty = &field.ty;
        predicates.push(quote_spanned!(ty.span()=> #ty: #trait_path));
    }
    // Each field's length in the values view of `of` (`self`, or `s` in `FieldType`), if it is in it.
    let all_fields: Vec<&syn::Field> = fields.iter().flat_map(|f| &f.named).collect();
    let is_in = |list: &[&syn::Field], ident: &syn::Ident| {
        list.iter().any(|f| f.ident.as_ref() == Some(ident))
    };
    let view_length = |field: &syn::Field, of: &TokenStream| -> Option<TokenStream> {
        let ident = field.ident.as_ref()?;
        if is_in(&differentiable, ident) {
            Some(quote!(#trait_path::__autodiff_values_len(&#of.#ident)))
        } else if is_in(&constant_floats, ident) {
            Some(quote!(#trait_path::flat_len(&#of.#ident)))
        } else {
            None
        }
    };
    // Per field, its type by a key of its name, and where it is in the values view, for `order = K`
    // (`struct_higher.rs`, `struct_whole.rs`).
    let s_ident = quote!(s);
    let field_types = all_fields.iter().enumerate().filter_map(|(i, field)| {
        let (ident, ty) = (field.ident.as_ref()?, &field.ty);
        let key = crate::naming::field_key(&ident.to_string());
        let before = all_fields[..i]
            .iter()
            .filter_map(|f| view_length(f, &s_ident));
        // A field that is not in the view is nowhere in it: reading its place there is a compile error
        // (`IN_VIEW`), its range a slice that would panic.
        let (range, in_view) = match view_length(field, &s_ident) {
            Some(own) => (
                quote! {
                    let start = 0usize #(+ #before)*;
                    start..start + #own
                },
                None,
            ),
            None => (
                quote!({
                    let _ = s;
                    usize::MAX..usize::MAX
                }),
                Some(quote!(
                    const IN_VIEW: bool = false;
                )),
            ),
        };
        Some(quote! {
            #[automatically_derived]
            impl #impl_generics ::autodiff::__private::FieldType<#key> for #name #ty_generics
            where #(#predicates,)*
            {
                type Type = #ty;
                #[inline]
                fn field(s: &Self) -> &#ty {
                    &s.#ident
                }
                fn values_range(s: &Self) -> ::core::ops::Range<usize> {
                    #range
                }
                #in_view
            }
        })
    });
    // The values view, field by field in declaration order.
    let self_ident = quote!(self);
    let values_len = all_fields
        .iter()
        .filter_map(|f| view_length(f, &self_ident));
    let extend_values = all_fields.iter().filter_map(|f| {
        let ident = f.ident.as_ref()?;
        if is_in(&differentiable, ident) {
            Some(quote!(#trait_path::__autodiff_extend_values(&self.#ident, out);))
        } else if is_in(&constant_floats, ident) {
            Some(quote!(#trait_path::extend_flat(&self.#ident, out);))
        } else {
            None
        }
    });
    let extend_tangent_values = all_fields.iter().filter_map(|f| {
        let ident = f.ident.as_ref()?;
        if is_in(&differentiable, ident) {
            Some(quote!(#trait_path::__autodiff_extend_tangent_values(&self.#ident, &tangent.#ident, out);))
        } else if is_in(&constant_floats, ident) {
            Some(quote!(out.extend(::core::iter::repeat(0.0).take(#trait_path::flat_len(&self.#ident)));))
        } else {
            None
        }
    });
    let take_values = all_fields.iter().filter_map(|f| {
        let ident = f.ident.as_ref()?;
        Some(if is_in(&differentiable, ident) {
            quote!(#ident: #trait_path::__autodiff_take_values(&self.#ident, values),)
        } else if is_in(&constant_floats, ident) {
            quote!(#ident: {
                *values = &values[#trait_path::flat_len(&self.#ident)..];
                ::core::clone::Clone::clone(&self.#ident)
            },)
        } else {
            quote!(#ident: ::core::clone::Clone::clone(&self.#ident),)
        })
    });
    // Per field, what `#[differentiable]` code calls (`structs.rs`): add an adjoint into the field of a
    // gradient, and take the tangent of the field (a zero for a `#[no_grad]` field).
    let helpers = fields.iter().flat_map(|f| &f.named).filter_map(|field| {
        let (ident, ty, vis) = (field.ident.as_ref()?, &field.ty, &field.vis);
        let add = quote::format_ident!("__autodiff_add_to_{}", ident);
        let take = quote::format_ident!("__autodiff_tangent_of_{}", ident);
        Some(if constant.iter().any(|c| c.ident.as_ref() == Some(ident)) {
            quote! {
                #[doc(hidden)]
                #[inline]
                #vis fn #add<__A>(&mut self, _adjoint: __A) {}
                #[doc(hidden)]
                #[inline]
                #vis fn #take<__Z>(_field: &#ty, zero: impl ::core::ops::FnOnce() -> __Z) -> __Z {
                    zero()
                }
            }
        } else {
            quote! {
                #[doc(hidden)]
                #[inline]
                #vis fn #add<__A>(&mut self, adjoint: __A)
                where
                    __A: ::autodiff::__private::AdjointOf<#ty>,
                {
                    ::autodiff::__private::AdjointOf::add_into(adjoint, &mut self.#ident);
                }
                #[doc(hidden)]
                #[inline]
                #vis fn #take<__Z>(field: &#ty, _zero: impl ::core::ops::FnOnce() -> __Z) -> #ty
                where
                    #ty: #trait_path,
                {
                    ::autodiff::__private::copy_struct(field)
                }
            }
        })
    });
    // A field of this type passed on whole at `order = K` (`g(&p.inner)`): the struct itself and its part
    // of its parent's values view, as the callee's `__g_pairs` takes it (`struct_whole.rs`).
    let mut window_generics = input.generics.clone();
    window_generics
        .params
        .push(syn::parse_quote!(__AutodiffWindowElement));
    let (window_impl_generics, _, _) = window_generics.split_for_impl();
    let whole_field = quote! {
        #[automatically_derived]
        impl #impl_generics ::autodiff::__private::WholeField for #name #ty_generics #where_clause {
            type Primal<'__autodiff_a> = &'__autodiff_a Self where Self: '__autodiff_a;
            #[inline]
            fn primal(&self) -> &Self {
                self
            }
        }
        #[automatically_derived]
        impl #window_impl_generics ::autodiff::__private::FieldWindow<__AutodiffWindowElement>
            for #name #ty_generics #where_clause
        {
            type Window = [__AutodiffWindowElement];
            #[inline]
            fn window(window: &[__AutodiffWindowElement]) -> &[__AutodiffWindowElement] {
                window
            }
        }
    };
    // The struct over another float type, for `order = K` on methods of a generic `impl`.
    let in_order: Vec<(&syn::Field, bool)> = all_fields
        .iter()
        .map(|f| (*f, constant.iter().any(|c| std::ptr::eq(*c, *f))))
        .collect();
    let map_float = crate::map_float::impl_of(&input, &in_order);
    quote! {
        #[automatically_derived]
        #[allow(dead_code, non_snake_case)]
        impl #impl_generics #name #ty_generics #where_clause {
            #(#helpers)*
        }

        #map_float

        #whole_field

        #(#field_types)*

        #[automatically_derived]
        impl #impl_generics #trait_path for #name #ty_generics where #(#predicates,)* {
            #[inline]
            fn zero_like(&self) -> Self {
                #name {
                    #(#d: #trait_path::zero_like(&self.#d),)*
                    #(#c: ::core::clone::Clone::clone(&self.#c),)*
                }
            }
            #[inline]
            fn __autodiff_zero_into(&self, target: &mut Self) {
                #(#trait_path::__autodiff_zero_into(&self.#d, &mut target.#d);)*
                #(::core::clone::Clone::clone_from(&mut target.#c, &self.#c);)*
            }
            #[inline]
            fn add_assign(&mut self, other: &Self) {
                #(#trait_path::add_assign(&mut self.#d, &other.#d);)*
            }
            #[inline]
            fn scale(&mut self, a: f64) {
                #(#trait_path::scale(&mut self.#d, a);)*
            }
            fn flat_len(&self) -> usize {
                0 #(+ #trait_path::flat_len(&self.#d))*
            }
            fn extend_flat(&self, out: &mut ::std::vec::Vec<f64>) {
                #(#trait_path::extend_flat(&self.#d, out);)*
            }
            fn take_flat(&self, flat: &mut &[f64]) -> Self {
                #name {
                    #(#d: #trait_path::take_flat(&self.#d, flat),)*
                    #(#c: ::core::clone::Clone::clone(&self.#c),)*
                }
            }
            fn __autodiff_values_len(&self) -> usize {
                0 #(+ #values_len)*
            }
            fn __autodiff_extend_values(&self, out: &mut ::std::vec::Vec<f64>) {
                #(#extend_values)*
            }
            fn __autodiff_extend_tangent_values(&self, tangent: &Self, out: &mut ::std::vec::Vec<f64>) {
                #(#extend_tangent_values)*
            }
            fn __autodiff_take_values(&self, values: &mut &[f64]) -> Self {
                #name {
                    #(#take_values)*
                }
            }
            fn __autodiff_constant_field(field: &str) -> bool {
                #constant_check
            }
        }
    }
}

/// The written type of a field that cannot be differentiated (integers, `bool`, `String`, references,
/// tuples ..), or `None` for one that may be: floats, type parameters, `Vec`s and arrays of those, and
/// other struct types (whose `Differentiable` bound rustc checks).
fn unsupported(ty: &Type) -> Option<String> {
    let shown = || quote!(#ty).to_string().replace(' ', "");
    match ty {
        Type::Paren(p) => unsupported(&p.elem),
        Type::Group(g) => unsupported(&g.elem),
        Type::Array(a) => unsupported(&a.elem).map(|_| shown()),
        Type::Path(tp) if tp.qself.is_none() => {
            let last = tp.path.segments.last()?;
            let name = last.ident.to_string();
            let never = [
                "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
                "usize", "bool", "char", "String", "str", "Option", "Result", "Box", "Rc", "Arc",
                "HashMap", "BTreeMap", "HashSet", "BTreeSet", "Cell", "RefCell",
            ];
            if never.contains(&name.as_str()) {
                return Some(shown());
            }
            if name == "Vec" {
                if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
                    if let Some(syn::GenericArgument::Type(elem)) = args.args.first() {
                        return unsupported(elem).map(|_| shown());
                    }
                }
            }
            None
        }
        _ => Some(shown()),
    }
}

/// Does a `#[no_grad]` field of type `ty` hold floats (`f64`, `f32`, a type parameter of the struct, a `Vec`
/// or array of them)? Then it is in the values view.
fn holds_floats(ty: &Type, type_params: &[&syn::Ident]) -> bool {
    match ty {
        Type::Paren(p) => holds_floats(&p.elem, type_params),
        Type::Group(g) => holds_floats(&g.elem, type_params),
        Type::Array(a) => holds_floats(&a.elem, type_params),
        Type::Path(tp) if tp.qself.is_none() => {
            if let Some(ident) = tp.path.get_ident() {
                return ident == "f64" || ident == "f32" || type_params.contains(&ident);
            }
            let Some(last) = tp.path.segments.last() else {
                return false;
            };
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args) if last.ident == "Vec" => matches!(
                    args.args.first(),
                    Some(syn::GenericArgument::Type(elem)) if holds_floats(elem, type_params)
                ),
                _ => false,
            }
        }
        _ => false,
    }
}
