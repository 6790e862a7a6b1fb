//! `#[derive(Differentiable)]`'s `impl MapFloat<T, U>` (`autodiff_core`'s `map_float.rs`) for a struct
//! generic over one float type: the same struct over another float type, field by field, which `order = K`
//! on a method of a generic `impl` runs its `f_grad` on (`higher::mapped_items`).
//!
//! ```text
//! // Input:                                   // Output:
//! #[derive(Differentiable)]                   impl<T: Float, __U: Float> MapFloat<T, __U> for Model<T>
//! struct Model<T: Float> {                    where Inner<T>: MapFloat<T, __U, Out = Inner<__U>> {
//!     w: Vec<T>,                                  type Out = Model<__U>;
//!     inner: Inner<T>,                            fn map_float(&self, d: bool, f: &mut dyn FnMut(T, bool) -> __U) -> Model<__U> {
//!     #[no_grad]                                      Model { w: self.w.iter().map(|e| f(*e, d)).collect(),
//!     k: usize,                                               inner: MapFloat::map_float(&self.inner, d, &mut *f),
//! }                                                           k: Clone::clone(&self.k) }
//!                                                 }
//!                                                 fn visit_floats(..) { .. the same order .. }
//!                                             }
//! ```
//!
//! Nothing is emitted for a struct with another number of type parameters, or with a field holding the
//! float type otherwise than as itself, a `Vec`, an array or another generic struct (`Option<T>`): a method
//! of its `impl` with `order = K` that needs it meets rustc's unmet `MapFloat` bound, whose message says so.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Ident, Type};

/// How a field's type holds the float type parameter.
enum Shape {
    /// Not at all: cloned.
    None,
    /// The parameter itself.
    Float,
    /// A `Vec` of the inner shape.
    Vec(Box<Shape>),
    /// An array of the inner shape.
    Array(Box<Shape>),
    /// Another struct generic over it (`Inner<T>`), through its own `MapFloat`.
    Struct,
}

/// The shape of `ty` over the float type parameter `t`, `None` where it is held otherwise.
fn shape(ty: &Type, t: &Ident) -> Option<Shape> {
    if !crate::naming::names_any(ty.to_token_stream(), &[&t.to_string()]) {
        return Some(Shape::None);
    }
    match ty {
        Type::Paren(p) => shape(&p.elem, t),
        Type::Group(g) => shape(&g.elem, t),
        Type::Array(a) => Some(Shape::Array(Box::new(shape(&a.elem, t)?))),
        Type::Path(p) if p.qself.is_none() => {
            if p.path.is_ident(t) {
                return Some(Shape::Float);
            }
            let last = p.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            if last.ident == "Vec" {
                return match args.args.first() {
                    Some(syn::GenericArgument::Type(elem)) if args.args.len() == 1 => {
                        Some(Shape::Vec(Box::new(shape(elem, t)?)))
                    }
                    _ => None,
                };
            }
            // Another struct of the user's, whose only argument is the float type (`Inner<T>`).
            let only_t = args.args.len() == 1
                && matches!(args.args.first(), Some(syn::GenericArgument::Type(Type::Path(a))) if a.path.is_ident(t));
            let never = ["Option", "Result", "Box", "Rc", "Arc", "Cell", "RefCell"];
            (only_t && !never.contains(&last.ident.to_string().as_str())).then_some(Shape::Struct)
        }
        _ => None,
    }
}

/// The mapped value of `place`, an expression of type `&X` with `X` of this shape.
fn map_expr(shape: &Shape, place: &TokenStream, d: &TokenStream) -> TokenStream {
    let trait_path = quote!(::autodiff::__private::MapFloat);
    match shape {
        Shape::None => quote!(::core::clone::Clone::clone(#place)),
        Shape::Float => quote!(__autodiff_f(*#place, #d)),
        Shape::Vec(inner) => {
            let element = map_expr(inner, &quote!(__autodiff_e), d);
            quote!((#place).iter().map(|__autodiff_e| #element).collect::<::std::vec::Vec<_>>())
        }
        Shape::Array(inner) => {
            let element = map_expr(inner, &quote!(&(#place)[__autodiff_i]), d);
            quote!(::core::array::from_fn(|__autodiff_i| #element))
        }
        Shape::Struct => quote!(#trait_path::map_float(#place, #d, &mut *__autodiff_f)),
    }
}

/// The statement visiting the floats of `place`, in `map_expr`'s order.
fn visit_stmt(shape: &Shape, place: &TokenStream, d: &TokenStream, t: &Ident) -> TokenStream {
    let trait_path = quote!(::autodiff::__private::MapFloat);
    match shape {
        Shape::None => TokenStream::new(),
        Shape::Float => quote!(__autodiff_f(*#place, #d);),
        Shape::Vec(inner) | Shape::Array(inner) => {
            let element = visit_stmt(inner, &quote!(__autodiff_e), d, t);
            quote!(for __autodiff_e in (#place).iter() { #element })
        }
        Shape::Struct => {
            quote!(#trait_path::<#t, __AutodiffU>::visit_floats(#place, #d, &mut *__autodiff_f);)
        }
    }
}

/// The `impl MapFloat<T, __AutodiffU>` of `input`, whose fields are `fields` (each with whether it is
/// `#[no_grad]`), or nothing where the struct does not have that form.
pub(crate) fn impl_of(input: &syn::DeriveInput, fields: &[(&syn::Field, bool)]) -> TokenStream {
    // One type parameter, the float one, bounded `Float` or not (`struct Line<T>` of `impl<T: Float>
    // Line<T>`); lifetimes and constants pass through.
    let params: Vec<&Ident> = input.generics.type_params().map(|p| &p.ident).collect();
    let [t] = params.as_slice() else {
        return TokenStream::new();
    };
    let t = *t;
    let mut shapes = Vec::new();
    for (field, no_grad) in fields {
        let (Some(ident), Some(shape)) = (field.ident.as_ref(), shape(&field.ty, t)) else {
            return TokenStream::new();
        };
        shapes.push((ident, &field.ty, shape, *no_grad));
    }
    let u = Ident::new("__AutodiffU", proc_macro2::Span::call_site());
    let t_name = t.to_string();
    let renamed = |tokens: TokenStream| crate::shadow::replace_float(tokens, &t_name, &u);
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let mut generics = input.generics.clone();
    // `__AutodiffU` with `T`'s bounds, so that the struct over it is well formed.
    let bounds = input
        .generics
        .type_params()
        .find(|p| p.ident == *t)
        .map(|p| p.bounds.clone())
        .unwrap_or_default();
    generics.params.push(syn::parse_quote!(#u: #bounds));
    let (impl_generics_u, _, _) = generics.split_for_impl();
    let _ = impl_generics;
    let out_ty = renamed(quote!(#name #ty_generics));
    // The floats are read by value (`*place`): a parameter without bounds (`struct Line<T>`) needs this.
    let mut predicates: Vec<TokenStream> = vec![quote!(#t: ::core::marker::Copy)];
    if let Some(w) = where_clause {
        for p in &w.predicates {
            predicates.push(p.to_token_stream());
            predicates.push(renamed(p.to_token_stream()));
        }
    }
    let trait_path = quote!(::autodiff::__private::MapFloat);
    for (_, ty, shape, _) in &shapes {
        // A nested struct, also inside a `Vec` or an array: its own `MapFloat` to the same struct over `U`.
        let mut inner = shape;
        let mut inner_ty: &Type = ty;
        loop {
            match (inner, inner_ty) {
                (Shape::Vec(s), Type::Path(p)) => {
                    let Some(syn::PathArguments::AngleBracketed(a)) =
                        p.path.segments.last().map(|l| &l.arguments)
                    else {
                        break;
                    };
                    let Some(syn::GenericArgument::Type(e)) = a.args.first() else {
                        break;
                    };
                    inner = s;
                    inner_ty = e;
                }
                (Shape::Array(s), Type::Array(a)) => {
                    inner = s;
                    inner_ty = &a.elem;
                }
                (Shape::Struct, ty) => {
                    let out = renamed(ty.to_token_stream());
                    predicates.push(quote!(#ty: #trait_path<#t, #u, Out = #out>));
                    break;
                }
                _ => break,
            }
        }
    }
    let d = quote!(__autodiff_d);
    let differentiable_of = |no_grad: bool| match no_grad {
        true => quote!(false),
        false => d.clone(),
    };
    let maps = shapes.iter().map(|(ident, _, shape, no_grad)| {
        let value = map_expr(shape, &quote!(&self.#ident), &differentiable_of(*no_grad));
        quote!(#ident: #value,)
    });
    let visits = shapes.iter().map(|(ident, _, shape, no_grad)| {
        visit_stmt(
            shape,
            &quote!(&self.#ident),
            &differentiable_of(*no_grad),
            t,
        )
    });
    quote! {
        #[automatically_derived]
        #[allow(unused_variables, clippy::all)]
        impl #impl_generics_u #trait_path<#t, #u> for #name #ty_generics where #(#predicates,)* {
            type Out = #out_ty;
            fn map_float(
                &self,
                #d: bool,
                __autodiff_f: &mut dyn ::core::ops::FnMut(#t, bool) -> #u,
            ) -> #out_ty {
                #name { #(#maps)* }
            }
            fn visit_floats(&self, #d: bool, __autodiff_f: &mut dyn ::core::ops::FnMut(#t, bool)) {
                #(#visits)*
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(input: TokenStream) -> String {
        let input: syn::DeriveInput = syn::parse2(input).expect("a struct");
        let syn::Data::Struct(s) = &input.data else {
            panic!("a struct")
        };
        let fields: Vec<(&syn::Field, bool)> = s
            .fields
            .iter()
            .map(|f| (f, f.attrs.iter().any(|a| a.path().is_ident("no_grad"))))
            .collect();
        impl_of(&input, &fields).to_string()
    }

    #[test]
    fn maps_floats_vecs_arrays_and_nested_structs_and_clones_the_rest() {
        let out = expanded(quote! {
            struct Model<T: Float> { w: Vec<T>, a: [T; 2], inner: Inner<T>, #[no_grad] k: usize, #[no_grad] s: T }
        });
        assert!(out.contains("type Out = Model < __AutodiffU >"), "{out}");
        assert!(out.contains("Inner < T > : :: autodiff :: __private :: MapFloat < T , __AutodiffU , Out = Inner < __AutodiffU > >"), "{out}");
        assert!(
            out.contains("k : :: core :: clone :: Clone :: clone (& self . k)"),
            "{out}"
        );
        // A `#[no_grad]` float is mapped as not differentiable.
        assert!(
            out.contains("s : __autodiff_f (* & self . s , false)"),
            "{out}"
        );
        assert!(out.contains("core :: array :: from_fn"), "{out}");
    }

    #[test]
    fn nothing_for_other_forms() {
        assert!(expanded(quote!(
            struct Mlp {
                w: Vec<f64>,
            }
        ))
        .is_empty());
        assert!(expanded(quote!(
            struct Two<T: Float, S: Float> {
                a: T,
                b: S,
            }
        ))
        .is_empty());
        assert!(!expanded(quote!(
            struct Line<T> {
                a: T,
            }
        ))
        .is_empty());
        assert!(expanded(quote!(
            struct O<T: Float> {
                a: Option<T>,
            }
        ))
        .is_empty());
    }
}
