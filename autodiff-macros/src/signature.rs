//! What the signature says: which parameters are active, their gradient types, the shape of the return.

use crate::args::Args;
use crate::errors::Errors;
use crate::ir::Kind;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{FnArg, GenericParam, Ident, Pat, ReturnType, Type, TypeParamBound, WherePredicate};

/// One parameter of the differentiated function.
#[derive(Clone)]
pub(crate) struct Param {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) kind: Kind,
    /// Does it get a gradient?
    pub(crate) active: bool,
    /// The type of its gradient: its own for a float, `Vec<T>` for a slice or `Vec`, `[T; N]` for an array.
    pub(crate) grad_ty: Type,
    /// For an array parameter: is it a fixed-size array?
    pub(crate) array: Option<ArrayShape>,
    /// Can it carry a derivative: a float, or an array of floats (an array of integers cannot)?
    pub(crate) differentiable: bool,
    /// A float taken by reference (`x: &f64`): the generated code reads its value (`let x = *x;`).
    pub(crate) by_ref: bool,
}

/// The shape of an array parameter or return.
#[derive(Clone, Copy)]
pub(crate) struct ArrayShape {
    /// `[T; N]` or `&[T; N]` (else `&[T]`, `&Vec<T>`, `Vec<T>`).
    pub(crate) fixed: bool,
    /// Passed by value (`Vec<T>`, `[T; N]`), so the function may not mutate it but owns it.
    pub(crate) owned: bool,
    /// A matrix `&[Vec<T>]`, `Vec<Vec<T>>`, `[[T; M]; N]`: the generated code reads it flattened (`fixed`
    /// is then false, for the flat `Vec`).
    pub(crate) matrix: bool,
}

/// The signature, classified.
#[derive(Clone)]
pub(crate) struct Signature {
    pub(crate) params: Vec<Param>,
    /// The declared return type, and its kind: a float or a tuple of floats.
    pub(crate) ret_ty: Type,
    pub(crate) ret_kind: Kind,
}

impl Signature {
    pub(crate) fn active(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| p.active)
    }

    /// `G`: the gradient of the active parameters, alone or as a tuple in declaration order.
    pub(crate) fn gradient_type(&self) -> TokenStream {
        let types: Vec<&Type> = self.active().map(|p| &p.grad_ty).collect();
        match types.as_slice() {
            [one] => one.to_token_stream(),
            many => quote!((#(#many,)*)),
        }
    }

    /// The signature of an item generated from `item` (`f_vjp`, `f_hvp`, ..): the function's `cfg` and
    /// `allow` attributes, visibility, generics and parameters (without `mut`), then `extra` parameters.
    pub(crate) fn generated(
        &self,
        item: &syn::ItemFn,
        name: &Ident,
        extra: Option<TokenStream>,
        ret: TokenStream,
    ) -> TokenStream {
        let vis = &item.vis;
        let generics = &item.sig.generics;
        let where_clause = &generics.where_clause;
        let params = self.params.iter().map(|p| {
            let (ident, ty) = (&p.ident, &p.ty);
            quote!(#ident: #ty)
        });
        let attrs = item
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("allow"));
        quote!(#(#attrs)* #vis fn #name #generics (#(#params,)* #extra) -> #ret #where_clause)
    }

    /// `let x = *x;` for each float taken by reference: the generated code works on the value, as the
    /// body's own `*x` (which lowering reads as `x`) does. A matrix `m` is read flattened: `m` becomes its
    /// elements, row-major, and the matrix itself stays at hand as `naming::matrix(m)`.
    pub(crate) fn deref_scalars(&self) -> TokenStream {
        let names = self.params.iter().filter(|p| p.by_ref).map(|p| &p.ident);
        let matrices = self
            .params
            .iter()
            .filter(|p| p.array.is_some_and(|shape| shape.matrix))
            .map(|p| {
                let (name, matrix) = (&p.ident, crate::naming::matrix(&p.ident));
                quote!(let #matrix = #name; let #name = ::autodiff::__private::flatten(&#matrix);)
            });
        quote!(#(let #names = *#names;)* #(#matrices)*)
    }

    /// Is the return one float, so that `_grad` exists?
    pub(crate) fn returns_scalar(&self) -> bool {
        matches!(self.ret_kind, Kind::Float(_))
    }
}

/// The name of an item generated beside `item`: `f_grad` for the suffix `grad`, spanned on `f`.
pub(crate) fn derived_name(item: &syn::ItemFn, suffix: &str) -> Ident {
    let name = &item.sig.ident;
    quote::format_ident!("{}_{}", name, suffix, span = name.span())
}

/// Names of the type parameters bounded by `Float`, which the macro treats as float types.
pub(crate) fn float_type_params(generics: &syn::Generics) -> Vec<Ident> {
    fn has_float_bound<'a>(mut bounds: impl Iterator<Item = &'a TypeParamBound>) -> bool {
        bounds.any(|b| match b {
            TypeParamBound::Trait(t) => t.path.segments.last().is_some_and(|s| s.ident == "Float"),
            _ => false,
        })
    }
    let mut names = Vec::new();
    for param in &generics.params {
        if let GenericParam::Type(t) = param {
            if has_float_bound(t.bounds.iter()) {
                names.push(t.ident.clone());
            }
        }
    }
    for predicate in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        if let WherePredicate::Type(p) = predicate {
            if let Type::Path(tp) = &p.bounded_ty {
                if let Some(ident) = tp.path.get_ident() {
                    if has_float_bound(p.bounds.iter()) {
                        names.push(ident.clone());
                    }
                }
            }
        }
    }
    names
}

/// The kind of a written type: `f64`, `f32` and float type parameters are floats.
pub(crate) fn kind_of_type(ty: &Type, float_params: &[Ident]) -> Kind {
    match ty {
        Type::Path(tp) if tp.qself.is_none() => {
            let Some(ident) = tp.path.get_ident() else {
                return Kind::Unknown;
            };
            let name = ident.to_string();
            match name.as_str() {
                "f32" | "f64" => Kind::Float(Some(ty.clone())),
                "bool" => Kind::Bool,
                "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64"
                | "u128" | "usize" => Kind::Int,
                _ if float_params.iter().any(|p| p == ident) => Kind::Float(Some(ty.clone())),
                _ => Kind::Unknown,
            }
        }
        Type::Paren(p) => kind_of_type(&p.elem, float_params),
        Type::Group(g) => kind_of_type(&g.elem, float_params),
        Type::Tuple(t) if t.elems.is_empty() => Kind::Unit,
        Type::Tuple(t) => Kind::Tuple(
            t.elems
                .iter()
                .map(|e| kind_of_type(e, float_params))
                .collect(),
        ),
        _ => Kind::Unknown,
    }
}

/// A float array, slice or `Vec` type: its shape and the type of its gradient (`Vec<T>` or `[T; N]`).
/// Arrays of arrays are not float arrays.
pub(crate) fn array_shape(ty: &Type, float_params: &[Ident]) -> Option<(ArrayShape, Type)> {
    let is_float = |t: &Type| matches!(kind_of_type(t, float_params), Kind::Float(_));
    let (inner, owned) = match ty {
        Type::Reference(r) if r.mutability.is_none() => (&*r.elem, false),
        other => (other, true),
    };
    match inner {
        Type::Slice(s) if !owned && is_float(&s.elem) => {
            let elem = &s.elem;
            Some((
                ArrayShape {
                    fixed: false,
                    owned,
                    matrix: false,
                },
                syn::parse_quote!(::std::vec::Vec<#elem>),
            ))
        }
        Type::Array(a) if is_float(&a.elem) => Some((
            ArrayShape {
                fixed: true,
                owned,
                matrix: false,
            },
            Type::Array(a.clone()),
        )),
        Type::Path(tp) => {
            let seg = tp.path.segments.last()?;
            if seg.ident != "Vec" {
                return None;
            }
            let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
                return None;
            };
            match args.args.first()? {
                syn::GenericArgument::Type(elem) if is_float(elem) => Some((
                    ArrayShape {
                        fixed: false,
                        owned,
                        matrix: false,
                    },
                    syn::parse_quote!(::std::vec::Vec<#elem>),
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A matrix of floats: `&[Vec<T>]`, `Vec<Vec<T>>`, `&Vec<Vec<T>>`, `[[T; M]; N]` or `&[[T; M]; N]`, with the
/// type of its gradient (`Vec<Vec<T>>` or `[[T; M]; N]`).
pub(crate) fn matrix_shape(ty: &Type, float_params: &[Ident]) -> Option<(ArrayShape, Type)> {
    let (inner, owned) = match ty {
        Type::Reference(r) if r.mutability.is_none() => (&*r.elem, false),
        other => (other, true),
    };
    let row = |t: &Type| array_shape(t, float_params).filter(|(shape, _)| shape.owned);
    let grad_ty: Type = match inner {
        Type::Slice(s) if !owned => {
            let (_, row_ty) = row(&s.elem).filter(|(shape, _)| !shape.fixed)?;
            syn::parse_quote!(::std::vec::Vec<#row_ty>)
        }
        Type::Array(a) => {
            row(&a.elem).filter(|(shape, _)| shape.fixed)?;
            Type::Array(a.clone())
        }
        Type::Path(tp) => {
            let seg = tp.path.segments.last().filter(|s| s.ident == "Vec")?;
            let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
                return None;
            };
            let syn::GenericArgument::Type(elem) = args.args.first()? else {
                return None;
            };
            let (_, row_ty) = row(elem).filter(|(shape, _)| !shape.fixed)?;
            syn::parse_quote!(::std::vec::Vec<#row_ty>)
        }
        _ => return None,
    };
    Some((
        ArrayShape {
            fixed: false,
            owned,
            matrix: true,
        },
        grad_ty,
    ))
}

/// A slice, `Vec` or array of integers or `bool`s (`labels: &[usize]`): its shape, if it is one.
fn integer_array_shape(ty: &Type, float_params: &[Ident]) -> Option<ArrayShape> {
    let is_int = |t: &Type| matches!(kind_of_type(t, float_params), Kind::Int | Kind::Bool);
    let (inner, owned) = match ty {
        Type::Reference(r) if r.mutability.is_none() => (&*r.elem, false),
        other => (other, true),
    };
    let (elem, fixed) = match inner {
        Type::Slice(s) if !owned => (&*s.elem, false),
        Type::Array(a) => (&*a.elem, true),
        Type::Path(tp) => {
            let seg = tp.path.segments.last().filter(|s| s.ident == "Vec")?;
            match &seg.arguments {
                syn::PathArguments::AngleBracketed(args) => match args.args.first()? {
                    syn::GenericArgument::Type(t) => (t, false),
                    _ => return None,
                },
                _ => return None,
            }
        }
        _ => return None,
    };
    is_int(elem).then_some(ArrayShape {
        fixed,
        owned,
        matrix: false,
    })
}

/// Is this a type the macro cannot differentiate through but that looks like it holds floats
/// (`&mut [f64]`, `&[Vec<f64>]`)? Those get an error rather than silently passing through.
fn unsupported_float_container(ty: &Type, float_params: &[Ident]) -> Option<&'static str> {
    if matrix_shape(ty, float_params).is_some() {
        return None;
    }
    match ty {
        Type::Reference(r) if r.mutability.is_some() => {
            let elem = match &*r.elem {
                Type::Slice(slice) => &*slice.elem,
                Type::Array(array) => &*array.elem,
                other => other,
            };
            let holds_floats = matches!(kind_of_type(elem, float_params), Kind::Float(_))
                || array_shape(elem, float_params).is_some();
            holds_floats.then_some(
                "`&mut` parameters are not supported: take the input by value or as `&[T]`, and return the result",
            )
        }
        Type::Reference(r) => unsupported_float_container(&r.elem, float_params),
        Type::Slice(s) => (array_shape(&s.elem, float_params).is_some()
            || matrix_shape(&s.elem, float_params).is_some())
        .then_some(
            "only matrices (`&[Vec<T>]`, `Vec<Vec<T>>`, `[[T; M]; N]`) nest: pass one flat slice and index it \
             as `a[(i * n + j) * m + k]`",
        ),
        Type::Array(a) => (array_shape(&a.elem, float_params).is_some()
            || matrix_shape(&a.elem, float_params).is_some())
        .then_some(
            "only matrices (`&[Vec<T>]`, `Vec<Vec<T>>`, `[[T; M]; N]`) nest: pass one flat slice and index it \
             as `a[(i * n + j) * m + k]`",
        ),
        Type::Path(tp) => {
            let seg = tp.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
                return None;
            };
            let nested = args.args.iter().any(|a| matches!(a, syn::GenericArgument::Type(t) if array_shape(t, float_params).is_some() || matrix_shape(t, float_params).is_some()));
            (seg.ident == "Vec" && nested).then_some(
                "only matrices (`&[Vec<T>]`, `Vec<Vec<T>>`, `[[T; M]; N]`) nest: pass one flat slice and index \
                 it as `a[(i * n + j) * m + k]`",
            )
        }
        _ => None,
    }
}

/// The number of floats of a tuple of floats (`(f64, f64)`), which is differentiated like its floats.
pub(crate) fn float_tuple(kind: &Kind) -> Option<usize> {
    match kind {
        Kind::Tuple(items)
            if !items.is_empty() && items.iter().all(|k| matches!(k, Kind::Float(_))) =>
        {
            Some(items.len())
        }
        _ => None,
    }
}

/// A tuple that holds floats and something else (`(f64, usize)`, `(f64, Vec<f64>)`): neither differentiated
/// as a whole nor a constant the user would expect.
fn mixed_tuple(kind: &Kind) -> Option<&'static str> {
    let Kind::Tuple(items) = kind else {
        return None;
    };
    let floats = items.iter().any(|k| matches!(k, Kind::Float(_)));
    (floats && float_tuple(kind).is_none()).then_some(
        "a tuple parameter is differentiated when it holds only floats (`(f64, f64)`): pass the other parts \
         (integers, arrays) as parameters of their own",
    )
}

/// Classifies the signature of `item`, reporting every problem to `errors`.
pub(crate) fn analyze(item: &syn::ItemFn, args: &Args, errors: &mut Errors) -> Option<Signature> {
    let sig = &item.sig;
    if let Some(c) = &sig.constness {
        errors.spanned(
            c,
            "`#[differentiable]` does not support `const fn`: remove `const`",
        );
    }
    if let Some(a) = &sig.asyncness {
        errors.spanned(
            a,
            "`#[differentiable]` does not support `async fn`: differentiate a synchronous function",
        );
    }
    if let Some(u) = &sig.unsafety {
        errors.spanned(
            u,
            "`#[differentiable]` does not support `unsafe fn`: differentiate a safe function",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.spanned(
            abi,
            "`#[differentiable]` does not support an `extern` ABI: remove it",
        );
    }
    if let Some(v) = &sig.variadic {
        errors.spanned(v, "`#[differentiable]` does not support variadic functions");
    }
    let float_params = float_type_params(&sig.generics);
    let mut params = Vec::new();
    let mut ok = true;
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) => {
                errors.spanned(
                    r,
                    "`#[differentiable]` does not support methods: write a free function that takes the \
                     receiver's fields as parameters",
                );
                ok = false;
            }
            FnArg::Typed(pt) => {
                let Pat::Ident(pi) = &*pt.pat else {
                    errors.spanned(
                        &pt.pat,
                        "`#[differentiable]` needs a plain name for each parameter: write `x: f64` and \
                         destructure in the body",
                    );
                    ok = false;
                    continue;
                };
                if pi.by_ref.is_some() || pi.subpat.is_some() {
                    errors.spanned(
                        &pt.pat,
                        "`#[differentiable]` needs a plain name for each parameter",
                    );
                    ok = false;
                    continue;
                }
                if let Some(message) = unsupported_float_container(&pt.ty, &float_params) {
                    errors.spanned(&pt.ty, message);
                    ok = false;
                }
                let scalar_ref = match &*pt.ty {
                    Type::Reference(r) if r.mutability.is_none() => {
                        match kind_of_type(&r.elem, &float_params) {
                            kind @ Kind::Float(_) => Some((kind, (*r.elem).clone())),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                let shape = array_shape(&pt.ty, &float_params)
                    .or_else(|| matrix_shape(&pt.ty, &float_params));
                let (kind, array, grad_ty) = match (&scalar_ref, shape) {
                    // `x: &f64`: a float like `x: f64`, with the same gradient type.
                    (Some((kind, elem)), _) => (kind.clone(), None, elem.clone()),
                    (None, Some((shape, grad_ty))) => (Kind::Array, Some(shape), grad_ty),
                    // An array of integers (labels, indexes) is read like any array, never differentiated.
                    (None, None) => match integer_array_shape(&pt.ty, &float_params) {
                        Some(shape) => (Kind::Array, Some(shape), (*pt.ty).clone()),
                        None => (kind_of_type(&pt.ty, &float_params), None, (*pt.ty).clone()),
                    },
                };
                if let Some(message) = mixed_tuple(&kind) {
                    errors.spanned(&pt.ty, message);
                    ok = false;
                }
                let differentiable = matches!(kind, Kind::Float(_))
                    || float_tuple(&kind).is_some()
                    || array.is_some_and(|shape| shape.matrix)
                    || (array.is_some() && array_shape(&pt.ty, &float_params).is_some());
                let active = differentiable;
                params.push(Param {
                    ident: pi.ident.clone(),
                    ty: (*pt.ty).clone(),
                    kind,
                    active,
                    grad_ty,
                    array,
                    differentiable,
                    by_ref: scalar_ref.is_some(),
                });
            }
        }
    }
    if let Some(wrt) = &args.wrt {
        for (i, name) in wrt.iter().enumerate() {
            if wrt[..i].iter().any(|earlier| earlier == name) {
                errors.spanned(name, format!("`{name}` is named twice in `wrt(..)`"));
            }
            match params.iter().find(|p| p.ident == *name) {
                None => {
                    let names: Vec<String> = params.iter().map(|p| format!("`{}`", p.ident)).collect();
                    errors.spanned(
                        name,
                        format!(
                            "`wrt(..)` names `{name}`, which is not a parameter of this function; its \
                             parameters are {}",
                            if names.is_empty() { "none".to_string() } else { names.join(", ") }
                        ),
                    );
                }
                Some(p) if !p.differentiable => errors.spanned(
                    name,
                    format!(
                        "`{name}` cannot be differentiated: only parameters of type `f64`, `f32`, a type \
                         parameter bounded by `Float`, or slices, `Vec`s and arrays of them can be in `wrt(..)`"
                    ),
                ),
                Some(_) => {}
            }
        }
        for p in &mut params {
            p.active = p.active && wrt.contains(&p.ident);
        }
    }
    let (ret_ty, ret_kind) = match &sig.output {
        ReturnType::Default => {
            errors.spanned(
                &sig.ident,
                "a `#[differentiable]` function must return a float or a tuple of floats: add `-> f64`",
            );
            return None;
        }
        ReturnType::Type(_, ty) => {
            let kind = match array_shape(ty, &float_params) {
                Some((shape, _)) if shape.owned => Kind::Array,
                _ => kind_of_type(ty, &float_params),
            };
            let supported = match &kind {
                Kind::Float(_) | Kind::Array => true,
                Kind::Tuple(items) => items.iter().all(|k| matches!(k, Kind::Float(_))),
                _ => false,
            };
            if !supported {
                errors.spanned(
                    ty,
                    "a `#[differentiable]` function must return a float (`f64`, `f32`, `T: Float`), a \
                     tuple of floats, a `Vec<T>` or an array `[T; N]`",
                );
                return None;
            }
            ((**ty).clone(), kind)
        }
    };
    ok.then_some(Signature {
        params,
        ret_ty,
        ret_kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(src: &str, args: &str) -> (Option<Signature>, usize) {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let args: Args = syn::parse_str(args).unwrap();
        let mut errors = Errors::default();
        let sig = analyze(&item, &args, &mut errors);
        let count = errors
            .finish()
            .err()
            .map_or(0, |e| e.to_string().matches("compile_error").count());
        (sig, count)
    }

    #[test]
    fn floats_are_active_and_the_rest_passes_through() {
        let (sig, errors) = classify(
            "fn f<T: Float>(x: f64, n: usize, y: T, b: bool) -> T { y }",
            "",
        );
        assert_eq!(errors, 0);
        let active: Vec<String> = sig.unwrap().active().map(|p| p.ident.to_string()).collect();
        assert_eq!(active, ["x", "y"]);
    }

    #[test]
    fn wrt_restricts_the_active_set() {
        let (sig, errors) = classify("fn f(x: f64, y: f64) -> f64 { x }", "wrt(y)");
        assert_eq!(errors, 0);
        let sig = sig.unwrap();
        assert_eq!(sig.gradient_type().to_string(), "f64");
        assert!(!sig.params[0].active && sig.params[1].active);
    }

    #[test]
    fn gradient_of_several_is_a_tuple() {
        let (sig, _) = classify("fn f(x: f64, y: f32) -> (f64, f32) { (x, y) }", "");
        assert_eq!(sig.unwrap().gradient_type().to_string(), "(f64 , f32 ,)");
    }

    #[test]
    fn every_problem_is_reported() {
        let (_, errors) = classify("fn f(x: f64, n: usize) -> f64 { x }", "wrt(z, n, x, x)");
        assert_eq!(errors, 3);
        let (sig, errors) = classify("fn f(x: f64) -> usize { 0 }", "");
        assert!(sig.is_none());
        assert_eq!(errors, 1);
    }
}
