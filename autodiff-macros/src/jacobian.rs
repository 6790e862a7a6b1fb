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
//! Rows are the outputs, columns the active inputs flattened in declaration order, as in `f_hessian`.

use crate::signature::{Param, Signature};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::Type;

/// `f_jacobian`, for a function returning `Vec<T>` or `[T; N]`; nothing for other results.
pub(crate) fn jacobian(item: &syn::ItemFn, sig: &Signature) -> Option<TokenStream> {
    let elem = array_element(&sig.ret_ty)?;
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
    let size = |p: &Param| {
        let ident = &p.ident;
        if p.array.is_some() {
            quote!(#ident.len())
        } else {
            quote!(1usize)
        }
    };
    let sizes: Vec<TokenStream> = active.iter().map(|p| size(p)).collect();
    // Each call gets the parameters again: references as they are, owned values cloned.
    let args = || {
        sig.params.iter().map(|p| {
            let ident = &p.ident;
            match &p.ty {
                Type::Reference(_) => quote!(#ident),
                _ => quote!(::core::clone::Clone::clone(&#ident)),
            }
        })
    };
    let name = &item.sig.ident;
    let (vjp, jvp) = (
        format_ident!("{}_vjp", crate::naming::unraw(name), span = name.span()),
        format_ident!("{}_jvp", crate::naming::unraw(name), span = name.span()),
    );
    // Reverse mode: row `i` is the gradient for the cotangent e_i, flattened.
    let parts: Vec<Ident> = (0..active.len())
        .map(|k| local(&format!("__part_{k}")))
        .collect();
    let parts_pattern = tuple_pattern(&parts);
    let flatten = active.iter().zip(&parts).map(|(p, part)| {
        if p.array.is_some() {
            quote!(__row.extend_from_slice(&#part[..]);)
        } else {
            quote!(__row.push(#part);)
        }
    });
    let vjp_args = args();
    let reverse = quote! {
        for #i in 0..#rows {
            let mut __d_ret = ::autodiff::__private::zeros_like(&#value);
            __d_ret[#i] = #one;
            let (_, #parts_pattern) = #vjp(#(#vjp_args,)* __d_ret);
            let mut __row = ::std::vec::Vec::with_capacity(#columns);
            #(#flatten)*
            #jacobian.push(__row);
        }
    };
    // Forward mode: column `j` is the tangent of the result along e_j.
    let mut offset = quote!(0usize);
    let mut tangents = Vec::new();
    for (p, size) in active.iter().zip(&sizes) {
        let ident = &p.ident;
        tangents.push(if p.array.is_some() {
            quote!({
                let mut __t = ::autodiff::__private::zeros_like(&#ident);
                if #j >= #offset && #j < #offset + #size {
                    __t[#j - #offset] = #one;
                }
                __t
            })
        } else {
            quote!(if #j == #offset { #one } else { #zero })
        });
        offset = quote!((#offset + #size));
    }
    let tangent = match tangents.as_slice() {
        [one] => one.clone(),
        many => quote!((#(#many,)*)),
    };
    let jvp_args = args();
    let forward = quote! {
        #jacobian = ::std::vec![::std::vec![#zero; #columns]; #rows];
        for #j in 0..#columns {
            let (_, __column) = #jvp(#(#jvp_args,)* #tangent);
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
    let doc = format!(
        " The Jacobian of `{name}`: row `i` holds the derivatives of output `i` with respect to the active \
         inputs flattened in declaration order.\n\n One `{name}_vjp` per output or one `{name}_jvp` per input, \
         whichever is fewer."
    );
    Some(quote! {
        #[doc = #doc]
        #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        #signature {
            let #value = #name(#(#primal_args),*);
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

/// `(a, b)` for several names, `a` for one.
fn tuple_pattern(names: &[Ident]) -> TokenStream {
    match names {
        [one] => quote!(#one),
        many => quote!((#(#many,)*)),
    }
}

/// `T` of a `Vec<T>` or `[T; N]` result.
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
