//! `f_jacobian`: the whole Jacobian of a function whose result is an array, by forward or reverse mode,
//! whichever takes fewer sweeps for the shape at hand.
//!
//! ```text
//! // Input:                                   // Output (sketch):
//! #[differentiable]                           fn f_jacobian(x: &[f64], a: f64) -> Vec<Vec<f64>> {
//! fn f(x: &[f64], a: f64) -> Vec<f64> {..}        let value = f(x, a);
//!                                                 let (rows, columns) = (value.len(), x.len() + 1);
//!                                                 if rows <= columns {     // one f_vjp per output
//!                                                     for i in 0..rows { d_ret = e_i; row i = f_vjp(x, a, d_ret).1 flattened }
//!                                                 } else {                 // one f_jvp per input
//!                                                     for j in 0..columns { tangent = e_j; column j = f_jvp(x, a, tangent).1 }
//!                                                 }
//!                                             }
//! ```
//!
//! Rows are the outputs, columns the active inputs flattened in declaration order, as in `f_hessian`. For a
//! function returning `()` with one output parameter, the rows are the output's elements: each `f_vjp` takes
//! the cotangent e_i of the output, each `f_jvp` writes a column into a buffer, and the output's incoming
//! value (an input where the function reads it) is put back before every call.

use crate::signature::{Param, Signature};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Type;

/// `f_jacobian`, for a function returning `Vec<T>` or `[T; N]` (and no output parameters), or returning
/// `()` with one output parameter; nothing for other results.
pub(crate) fn jacobian(item: &syn::ItemFn, sig: &Signature) -> Option<TokenStream> {
    let elem = element(sig)?;
    let output = sig.outputs().next();
    let elem = &elem;
    let local = |name: &str| Ident::new(name, Span::mixed_site());
    let (value, rows, columns, jacobian, i, j) = (
        local("__value"),
        local("__rows"),
        local("__columns"),
        local("__jacobian"),
        local("__i"),
        local("__j"),
    );
    let one = quote!(<#elem as ::autodiff::__private::One>::one());
    let zero = quote!(<#elem as ::autodiff::__private::Zero>::zero());
    let active: Vec<&Param> = sig.active().collect();
    let sizes: Vec<TokenStream> = active.iter().map(|p| flat_size(p)).collect();
    // Each call gets the parameters again: references as they are (the output reborrowed), owned values
    // cloned.
    let args = || {
        sig.params.iter().map(|p| {
            let ident = &p.ident;
            match &p.ty {
                Type::Reference(r) if r.mutability.is_some() => quote!(&mut *#ident),
                Type::Reference(_) => quote!(#ident),
                _ => quote_spanned!(ident.span()=> ::autodiff::__private::Reusable::again(&#ident)),
            }
        })
    };
    let name = &item.sig.ident;
    let (vjp, jvp) = (
        format_ident!("{}_vjp", crate::naming::unraw(name), span = name.span()),
        format_ident!("{}_jvp", crate::naming::unraw(name), span = name.span()),
    );
    // A method or an associated function calls its siblings through `Self` (`self` is its first argument).
    let owner = crate::expand::is_method(item).then(|| quote!(Self::));
    let (vjp, jvp) = (quote!(#owner #vjp), quote!(#owner #jvp));
    // Reverse mode: row `i` is the gradient for the cotangent e_i, flattened.
    let parts: Vec<Ident> = (0..active.len())
        .map(|k| local(&format!("__part_{k}")))
        .collect();
    let parts_pattern = tuple_pattern(&parts);
    let flatten = active
        .iter()
        .zip(&parts)
        .map(|(p, part)| flatten_into(p, elem, part, &quote!(__row)));
    let vjp_args = args();
    // With an output parameter: its incoming value is restored before each call (the function may read
    // it), and its cotangent is e_i.
    let restore = output.map(|p| {
        let (ident, label) = (&p.ident, p.ident.to_string());
        if p.scalar {
            quote!(*#ident = __incoming[0];)
        } else {
            quote!(::autodiff::__private::copy_into(#label, &mut #ident[..], &__incoming[..]);)
        }
    });
    let vjp_call = match output {
        None => quote!(let (_, #parts_pattern) = #vjp(#(#vjp_args,)* __d_ret);),
        Some(p) if p.scalar => quote!(let #parts_pattern = #vjp(#(#vjp_args,)* __d_ret[0]);),
        Some(_) => quote!(let #parts_pattern = #vjp(#(#vjp_args,)* &__d_ret);),
    };
    let reverse = quote! {
        for #i in 0..#rows {
            let mut __d_ret = ::autodiff::__private::zeros_like(&#value);
            __d_ret[#i] = #one;
            #restore
            #vjp_call
            let mut __row = ::std::vec::Vec::with_capacity(#columns);
            #(#flatten)*
            #jacobian.push(__row);
        }
    };
    // Forward mode: column `j` is the tangent of the result along e_j.
    let mut offset = quote!(0usize);
    let mut tangents = Vec::new();
    for (p, size) in active.iter().zip(&sizes) {
        tangents.push(unit_tangent(p, elem, &j, (&offset, size)));
        offset = quote!((#offset + #size));
    }
    let tangent = match tangents.as_slice() {
        [one] => one.clone(),
        many => quote!((#(#many,)*)),
    };
    let jvp_args = args();
    // The tangent is made before the call borrows the output.
    let jvp_call = match output {
        None => quote!(let (_, __column) = #jvp(#(#jvp_args,)* #tangent);),
        Some(p) if p.scalar => quote! {
            let __tangent = #tangent;
            let mut __column = [#zero];
            #jvp(#(#jvp_args,)* __tangent, &mut __column[0]);
        },
        Some(_) => quote! {
            let __tangent = #tangent;
            let mut __column = ::autodiff::__private::zeros_like(&#value);
            #jvp(#(#jvp_args,)* __tangent, &mut __column);
        },
    };
    let forward = quote! {
        #jacobian = ::std::vec![::std::vec![#zero; #columns]; #rows];
        for #j in 0..#columns {
            #restore
            #jvp_call
            for (#i, __entry) in __column.iter().enumerate() {
                #jacobian[#i][#j] = *__entry;
            }
        }
    };
    let signature = sig.generated(
        item,
        &format_ident!(
            "{}_jacobian",
            crate::naming::unraw(name),
            span = name.span()
        ),
        None,
        quote!(::std::vec::Vec<::std::vec::Vec<#elem>>),
    );
    let primal_args = args();
    // The value whose length is the number of rows: the result, or the output as the function leaves
    // it (after its incoming value is kept).
    let value_of = match output {
        None => quote!(let #value = #owner #name(#(#primal_args),*);),
        Some(p) => {
            let ident = &p.ident;
            let view = if p.scalar {
                quote!(::core::slice::from_ref(&*#ident))
            } else {
                quote!(&*#ident)
            };
            quote! {
                let __incoming = ::autodiff::__private::snapshot(#view);
                let #value = ::autodiff::__private::snapshot(#view);
            }
        }
    };
    let doc = format!(
        " The Jacobian of `{name}`: row `i` holds the derivatives of output `i` with respect to the active \
         inputs flattened in declaration order.\n\n One `{name}_vjp` per output or one `{name}_jvp` per input, \
         whichever is fewer."
    );
    Some(quote! {
        #[doc = #doc]
        #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        #signature {
            #value_of
            let #rows = #value.len();
            let #columns = 0usize #(+ #sizes)*;
            let mut #jacobian = ::std::vec::Vec::with_capacity(#rows);
            if #rows <= #columns {
                #reverse
            } else {
                #forward
            }
            #jacobian
        }
    })
}

// Input:  t: (f64, f64)      m: &[Vec<f64>]                 x: &[f64]
// Output: 2usize            flatten(&m).len()              x.len()
/// The number of columns an active parameter takes: its floats, flattened.
fn flat_size(p: &Param) -> TokenStream {
    let ident = &p.ident;
    if is_struct(p) {
        let view = struct_ref(p);
        return quote!(::autodiff::Differentiable::to_flat(#view).len());
    }
    match (&p.array, crate::signature::float_tuple(&p.kind)) {
        _ if p.scalar => quote!(1usize),
        (Some(shape), _) if shape.matrix => quote!(::autodiff::__private::flatten(&#ident).len()),
        (Some(_), _) => quote!(#ident.len()),
        (None, Some(n)) => quote!(#n),
        (None, None) => quote!(1usize),
    }
}

// Input:  t: (f64, f64) at columns offset..offset + 2
// Output: (if j == offset { 1 } else { 0 }, if j == offset + 1usize { 1 } else { 0 })
/// The tangent of `p` along the unit vector of column `j`, in `p`'s own shape (its `size` columns start at
/// `offset`).
fn unit_tangent(
    p: &Param,
    elem: &Type,
    j: &Ident,
    (offset, size): (&TokenStream, &TokenStream),
) -> TokenStream {
    let ident = &p.ident;
    let one = quote!(<#elem as ::autodiff::__private::One>::one());
    let zero = quote!(<#elem as ::autodiff::__private::Zero>::zero());
    if is_struct(p) {
        let view = struct_ref(p);
        // A struct of the parameter's shape: its flat view (`Differentiable::to_flat`) is the unit vector.
        return quote!({
            let __n: usize = #size;
            let __unit: ::std::vec::Vec<f64> =
                (0..__n).map(|__k| if #j == #offset + __k { 1.0 } else { 0.0 }).collect();
            ::autodiff::Differentiable::from_flat(#view, &__unit)
        });
    }
    match (&p.array, crate::signature::float_tuple(&p.kind)) {
        _ if p.scalar => quote!(if #j == #offset { #one } else { #zero }),
        (Some(shape), _) if shape.matrix => quote!({
            let __n = ::autodiff::__private::flatten(&#ident).len();
            let __unit: ::std::vec::Vec<#elem> =
                (0..__n).map(|__k| if #j == #offset + __k { #one } else { #zero }).collect();
            ::autodiff::__private::unflatten_like(&#ident, &__unit)
        }),
        (Some(_), _) => quote!({
            let mut __t = ::autodiff::__private::zeros_like(&#ident);
            if #j >= #offset && #j < #offset + #size {
                __t[#j - #offset] = #one;
            }
            __t
        }),
        (None, Some(n)) => {
            let entries = (0..n).map(|k| {
                let at = if k == 0 {
                    quote!(#offset)
                } else {
                    quote!(#offset + #k)
                };
                quote!(if #j == #at { #one } else { #zero })
            });
            quote!((#(#entries,)*))
        }
        (None, None) => quote!(if #j == #offset { #one } else { #zero }),
    }
}

/// Appends the gradient `part` of `p` to the Jacobian row `row`, flattened.
fn flatten_into(p: &Param, elem: &Type, part: &Ident, row: &TokenStream) -> TokenStream {
    if is_struct(p) {
        return quote!(#row.extend(
            ::autodiff::Differentiable::to_flat(&#part)
                .into_iter()
                .map(::autodiff::__private::lit::<#elem>)
        ););
    }
    match (&p.array, crate::signature::float_tuple(&p.kind)) {
        _ if p.scalar => quote!(#row.push(#part);),
        (Some(shape), _) if shape.matrix => {
            quote!(#row.extend(::autodiff::__private::flatten(&#part));)
        }
        (Some(_), _) => quote!(#row.extend_from_slice(&#part[..]);),
        (None, Some(n)) => {
            let fields = (0..n).map(syn::Index::from);
            quote!(#(#row.push(#part.#fields);)*)
        }
        (None, None) => quote!(#row.push(#part);),
    }
}

/// A parameter struct (`p: &Mlp`, `self` under `wrt(self)`): its columns are its flat view, in the order of
/// `Differentiable::to_flat`, as `f_hessian` orders them.
fn is_struct(p: &Param) -> bool {
    matches!(p.kind, crate::ir::Kind::Struct(_))
}

/// A reference to the struct parameter `p`: itself where it is one (`p: &Mlp`, `&self`), else `&p`.
fn struct_ref(p: &Param) -> TokenStream {
    let ident = &p.ident;
    match &p.ty {
        Type::Reference(_) => quote!(#ident),
        _ => quote!(&#ident),
    }
}

/// `(a, b)` for several names, `a` for one.
fn tuple_pattern(names: &[Ident]) -> TokenStream {
    match names {
        [one] => quote!(#one),
        many => quote!((#(#many,)*)),
    }
}

/// `T` of a `Vec<T>` or `[T; N]` result.
/// The element type of the rows of `f_jacobian`, where the function has one: a `Vec<T>` or `[T; N]`
/// result, or one output parameter of a function returning `()`.
pub(crate) fn element(sig: &Signature) -> Option<Type> {
    let outputs: Vec<&Param> = sig.outputs().collect();
    match outputs.as_slice() {
        [] => array_element(&sig.ret_ty).cloned(),
        [one] if sig.returns_unit() => Some(Signature::element_type(one)),
        _ => None,
    }
}

fn array_element(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Array(a) => Some(&a.elem),
        Type::Path(tp) => {
            let segment = tp.path.segments.last().filter(|s| s.ident == "Vec")?;
            match &segment.arguments {
                syn::PathArguments::AngleBracketed(args) => match args.args.first()? {
                    syn::GenericArgument::Type(elem) => Some(elem),
                    _ => None,
                },
                _ => None,
            }
        }
        Type::Paren(p) => array_element(&p.elem),
        _ => None,
    }
}
