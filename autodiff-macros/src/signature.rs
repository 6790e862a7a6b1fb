//! What the signature says: which parameters are active, their gradient types, the shape of the return.

use crate::args::Args;
use crate::errors::Errors;
use crate::ir::Kind;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use std::collections::BTreeSet;
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
    /// An output parameter (`out: &mut [f64]`): written by the body, its final value is part of the result.
    /// It is active (has a gradient) only if the body reads its incoming value.
    pub(crate) output: bool,
    /// A float output parameter (`y: &mut f64`): the generated code holds it as a slice of one element
    /// (`*y` is `y[0]`); its gradient, cotangent and tangent are floats.
    pub(crate) scalar: bool,
    /// An input made of a field of a parameter struct (`structs.rs`), not a declared parameter: its
    /// gradient is `()` when no adjoint reaches it (the struct's own code then adds nothing).
    pub(crate) field: bool,
    /// A value of a type of the user's taken by value that the body only passes on to calls (and matches
    /// on or compares): data, as an enum is, rather than a parameter struct.
    pub(crate) passed_on: PassedOn,
}

/// How a parameter of a type of the user's that the body only passes on to calls is data (`Param::passed_on`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum PassedOn {
    /// Not such a parameter.
    No,
    /// Left out of the `wrt(..)` given: constant, whatever the callees do with it.
    Constant,
    /// Without `wrt(..)`: taken for data (an enum), so a callee it is passed to must keep it constant too, or
    /// the call is an error (`__private::data_tangent`), since a struct that a callee differentiates would
    /// have been active here (a struct is by default).
    Data,
}

impl Param {
    /// Does a caller differentiate through it (the companion's slot)? Every float and array parameter,
    /// whatever `wrt(..)` says, as `jax.grad`'s `argnums` does not limit what a caller may differentiate;
    /// a struct (or `self`) only when it is active, since the macro cannot know whether a struct left out
    /// of `wrt(..)` derives `Differentiable`.
    pub(crate) fn through_calls(&self) -> bool {
        self.differentiable && (self.active || !matches!(self.kind, Kind::Struct(_)))
    }
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

    /// The caller's buffer for the gradient of one active parameter in `f_grad_into`: `&mut T` for a float,
    /// `&mut [T]` for a slice or `Vec`, `&mut [T; N]` for an array.
    pub(crate) fn gradient_buffer_type(p: &Param) -> TokenStream {
        let grad_ty = &p.grad_ty;
        match p.array {
            Some(shape) if !shape.fixed => match vec_element(grad_ty) {
                Some(elem) => quote!(&mut [#elem]),
                None => quote!(&mut #grad_ty),
            },
            _ => quote!(&mut #grad_ty),
        }
    }

    /// The output parameters.
    pub(crate) fn outputs(&self) -> impl Iterator<Item = &Param> {
        self.params.iter().filter(|p| p.output)
    }

    /// Does the function return `()` (its results are in output parameters)?
    pub(crate) fn returns_unit(&self) -> bool {
        matches!(self.ret_kind, Kind::Unit)
    }

    /// The element type of an array parameter (`T` of `&[T]`, `Vec<T>`, `[T; N]`, `&mut [T]`).
    pub(crate) fn element_type(p: &Param) -> Type {
        match &p.grad_ty {
            Type::Array(a) => (*a.elem).clone(),
            other => vec_element(other).cloned().unwrap_or_else(|| other.clone()),
        }
    }

    // Input:  `e: &mut f64`, `out: &mut [f64; 3]`
    // Output: `impl ::autodiff::FloatCotangent<f64>`, `&[f64; 3]` (`mutable`: `impl
    //         ::autodiff::FloatTangentBuffer<f64>`, `&mut [f64; 3]`)
    /// The type of an output parameter's cotangent in the `f_vjp` a user calls, or of its tangent buffer
    /// in `f_jvp` (`mutable`). For a float output, API.md's `d_out: &[T]` and the float itself alike
    /// (`FloatCotangent`, `FloatTangentBuffer`: `1.0` or `&[1.0]`, `&mut de` or `&mut [0.0]`), which the
    /// body reads through [`Signature::output_seed_bindings`]; an array output's as the hidden items
    /// take it ([`Signature::output_buffer_type`]: `&[T]`, or `&[T; N]` for a fixed-size array, where an
    /// array literal or an array passes, and the length is checked by rustc).
    pub(crate) fn output_seed_type(p: &Param, mutable: bool) -> TokenStream {
        let elem = Self::element_type(p);
        match (p.scalar, mutable) {
            (true, false) => quote!(impl ::autodiff::FloatCotangent<#elem>),
            (true, true) => quote!(impl ::autodiff::FloatTangentBuffer<#elem>),
            (false, _) => Self::output_buffer_type(p, mutable),
        }
    }

    /// At the top of the `f_vjp` (or, `mutable`, `f_jvp`) a user calls: each float output's cotangent
    /// (tangent buffer) taken out of what [`Signature::output_seed_type`] accepts, under its own name,
    /// as the float (`&mut T`) the rest of the body reads.
    pub(crate) fn output_seed_bindings(&self, mutable: bool) -> TokenStream {
        let bindings = self.outputs().filter(|p| p.scalar).map(|p| {
            let (elem, label) = (Self::element_type(p), p.ident.to_string());
            let d = crate::naming::output_cotangent(&p.ident);
            if mutable {
                quote!(let #d = ::autodiff::FloatTangentBuffer::<#elem>::float_tangent_buffer(#d, #label);)
            } else {
                quote!(let #d = ::autodiff::FloatCotangent::<#elem>::float_cotangent(#d, #label);)
            }
        });
        quote!(#(#bindings)*)
    }

    /// The type of an output parameter's cotangent in `f_vjp` (`&[T]` or `&[T; N]`, `T` of a float
    /// output), or of its tangent buffer in `f_jvp` (`&mut [T]` or `&mut [T; N]`, `&mut T`).
    pub(crate) fn output_buffer_type(p: &Param, mutable: bool) -> TokenStream {
        let elem = Self::element_type(p);
        if p.scalar {
            return if mutable {
                quote!(&mut #elem)
            } else {
                quote!(#elem)
            };
        }
        let inner = match (p.array, &p.ty) {
            // `[T; N]`, as declared (`&mut [T; N]`).
            (Some(shape), Type::Reference(r)) if shape.fixed => r.elem.to_token_stream(),
            (Some(shape), _) if shape.fixed => p.grad_ty.to_token_stream(),
            _ => quote!([#elem]),
        };
        if mutable {
            quote!(&mut #inner)
        } else {
            quote!(&#inner)
        }
    }

    /// The `grad` parameter of `f_grad_into`: one buffer, or a tuple of them in declaration order.
    pub(crate) fn gradient_into_type(&self) -> TokenStream {
        let types: Vec<TokenStream> = self.active().map(Self::gradient_buffer_type).collect();
        match types.as_slice() {
            [one] => one.clone(),
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
        let params = self.params.iter().map(|p| declare(&p.ident, &p.ty));
        let attrs = item
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("allow"));
        // `id_` is snake case, `id__grad` is not: the user's name is the user's business.
        let snake = crate::naming::unraw(&item.sig.ident)
            .ends_with('_')
            .then(|| quote!(#[allow(non_snake_case)]));
        quote!(#(#attrs)* #snake #vis fn #name #generics (#(#params,)* #extra) -> #ret #where_clause)
    }

    /// `let x = *x;` for each float taken by reference: the generated code works on the value, as the
    /// body's own `*x` (which lowering reads as `x`) does. A matrix `m` is read flattened: `m` becomes its
    /// elements, row-major, and the matrix itself stays at hand as `naming::matrix(m)`. A float output
    /// `y: &mut T` becomes a slice of one element (the body's `*y` is lowered as `y[0]`). A matrix named in
    /// `in_place` is read where it is (`views::in_place_matrices`): only bound as `naming::matrix(m)`.
    pub(crate) fn deref_scalars(&self, in_place: &BTreeSet<String>) -> TokenStream {
        let names = self.params.iter().filter(|p| p.by_ref).map(|p| &p.ident);
        let outputs = self.params.iter().filter(|p| p.scalar).map(|p| &p.ident);
        let matrices = self
            .params
            .iter()
            .filter(|p| p.array.is_some_and(|shape| shape.matrix))
            .map(|p| {
                let (name, matrix) = (&p.ident, crate::naming::matrix(&p.ident));
                if in_place.contains(&name.to_string()) {
                    quote!(let #matrix = #name;)
                } else {
                    quote!(let #matrix = #name; let #name = ::autodiff::__private::flatten(&#matrix);)
                }
            });
        quote!(#(let #names = *#names;)* #(let #outputs = ::core::slice::from_mut(#outputs);)* #(#matrices)*)
    }

    /// Is the return one float, so that `_grad` exists?
    pub(crate) fn returns_scalar(&self) -> bool {
        matches!(self.ret_kind, Kind::Float(_))
    }
}

/// `T` of `Vec<T>` (also written with a path, `::std::vec::Vec<T>`).
pub(crate) fn vec_element(ty: &Type) -> Option<&Type> {
    let Type::Path(tp) = ty else { return None };
    let segment = tp.path.segments.last().filter(|s| s.ident == "Vec")?;
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) => match args.args.first()? {
            syn::GenericArgument::Type(elem) => Some(elem),
            _ => None,
        },
        _ => None,
    }
}

/// A parameter as declared: `x: f64`, and the receiver as `&self` or `self` (so that a generated method
/// reads as the user's does).
pub(crate) fn declare(ident: &Ident, ty: &Type) -> TokenStream {
    match ty {
        Type::Reference(r) if ident == "self" => {
            let lifetime = &r.lifetime;
            quote!(&#lifetime #ident)
        }
        _ if ident == "self" => quote!(#ident),
        _ => quote!(#ident: #ty),
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
        // `<F as ::autodiff::__private::IntegerArray>::Elem`: the element of an array field of integers or
        // flags, as the hidden function of `order = K` takes it (`struct_higher.rs`).
        Type::Path(tp) if is_integer_elem(tp) => Kind::Int,
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

/// Is `tp` `<F as ::autodiff::__private::IntegerArray>::Elem`?
fn is_integer_elem(tp: &syn::TypePath) -> bool {
    let Some(qself) = &tp.qself else {
        return false;
    };
    let names: Vec<String> = tp
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    qself.position == 3
        && tp.path.leading_colon.is_some()
        && names == ["autodiff", "__private", "IntegerArray", "Elem"]
}

/// `::std::vec::Vec<elem>`, as `syn::parse_quote!` gives it (its own tokens spanned at the call site), built
/// without printing the tokens and parsing them again.
pub(crate) fn vec_of(elem: &Type) -> Type {
    let span = proc_macro2::Span::call_site();
    let segment = |name: &str| syn::PathSegment::from(Ident::new(name, span));
    let mut vec = segment("Vec");
    vec.arguments = syn::PathArguments::AngleBracketed(syn::AngleBracketedGenericArguments {
        colon2_token: None,
        lt_token: syn::Token![<](span),
        args: std::iter::once(syn::GenericArgument::Type(elem.clone())).collect(),
        gt_token: syn::Token![>](span),
    });
    Type::Path(syn::TypePath {
        qself: None,
        path: syn::Path {
            leading_colon: Some(syn::Token![::](span)),
            segments: [segment("std"), segment("vec"), vec].into_iter().collect(),
        },
    })
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
                vec_of(elem),
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
                    vec_of(elem),
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Is `ty` a float type (`f64`, `f32`, a float type parameter)?
fn float_kind(ty: &Type, float_params: &[Ident]) -> bool {
    matches!(kind_of_type(ty, float_params), Kind::Float(_))
}

/// An output parameter's type, `&mut [T]`, `&mut Vec<T>` or `&mut [T; N]` of a float, or `&mut T` of a
/// float (held as a slice of one element): its shape and gradient type.
pub(crate) fn output_shape(ty: &Type, float_params: &[Ident]) -> Option<(ArrayShape, Type)> {
    match ty {
        Type::Reference(r) if r.mutability.is_some() && float_kind(&r.elem, float_params) => {
            Some((
                ArrayShape {
                    fixed: false,
                    owned: false,
                    matrix: false,
                },
                (*r.elem).clone(),
            ))
        }
        Type::Reference(r) if r.mutability.is_some() => {
            let shared = Type::Reference(syn::TypeReference {
                mutability: None,
                ..r.clone()
            });
            array_shape(&shared, float_params)
        }
        _ => None,
    }
}

/// Is the parameter `name` of a type of the user's (`mode: Mode`) only matched on (`match mode { .. }`) or
/// compared (`mode == Mode::Fast`) in `body`, or, where `passed_on` (a parameter taken by value), also
/// passed on by value to calls (`inner(x, mode)`, `self.g(mode)`)? Then it is data, an enum or a flag,
/// rather than a parameter struct whose fields the body reads.
fn only_matched_or_compared(body: &syn::Block, name: &Ident, passed_on: bool) -> bool {
    use syn::visit::Visit;
    /// The uses of `name`, and how many of them are a `match`'s scrutinee or a side of `==`/`!=`.
    struct Uses<'n> {
        name: &'n Ident,
        passed_on: bool,
        all: usize,
        as_data: usize,
    }
    impl Uses<'_> {
        fn is_name(&self, expr: &syn::Expr) -> bool {
            match expr {
                syn::Expr::Path(p) => p.qself.is_none() && p.path.is_ident(self.name),
                syn::Expr::Paren(p) => self.is_name(&p.expr),
                syn::Expr::Reference(r) => self.is_name(&r.expr),
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.is_name(&u.expr),
                _ => false,
            }
        }
    }
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            self.all += usize::from(p.qself.is_none() && p.path.is_ident(self.name));
        }
        fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
            self.as_data += usize::from(self.is_name(&m.expr));
            syn::visit::visit_expr_match(self, m);
        }
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            if matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_)) {
                self.as_data +=
                    usize::from(self.is_name(&b.left)) + usize::from(self.is_name(&b.right));
            }
            syn::visit::visit_expr_binary(self, b);
        }
        // An argument written as the bare name (not `&mode`, not a field of it).
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if self.passed_on {
                self.as_data += c.args.iter().filter(|a| self.is_bare(a)).count();
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if self.passed_on {
                self.as_data += m.args.iter().filter(|a| self.is_bare(a)).count();
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    impl Uses<'_> {
        fn is_bare(&self, expr: &syn::Expr) -> bool {
            match expr {
                syn::Expr::Path(p) => p.qself.is_none() && p.path.is_ident(self.name),
                syn::Expr::Paren(p) => self.is_bare(&p.expr),
                _ => false,
            }
        }
    }
    let mut uses = Uses {
        name,
        passed_on,
        all: 0,
        as_data: 0,
    };
    uses.visit_block(body);
    uses.all > 0 && uses.all == uses.as_data
}

/// The number of elements of an output parameter where its type fixes it: 1 for a float `&mut T`, `N` for
/// `&mut [T; N]` with `N` written as a literal.
fn fixed_len(ty: &Type, float_params: &[Ident]) -> Option<u64> {
    let Type::Reference(r) = ty else {
        return None;
    };
    match &*r.elem {
        elem if float_kind(elem, float_params) => Some(1),
        Type::Array(a) => match &a.len {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// The body with `*y` written `y[0]` for each float output parameter `y` (`&mut T`), which the generated
/// code holds as a slice of one element.
pub(crate) fn scalar_outputs_as_slices(block: &syn::Block, sig: &Signature) -> syn::Block {
    use syn::visit_mut::VisitMut;
    struct Rewrite<'n>(Vec<&'n Ident>);
    impl VisitMut for Rewrite<'_> {
        fn visit_expr_mut(&mut self, expr: &mut syn::Expr) {
            if let syn::Expr::Macro(m) = expr {
                if m.mac.path.is_ident("vec") {
                    crate::chains::rewrite_vec_args(&mut m.mac, |arg| self.visit_expr_mut(arg));
                    return;
                }
            }
            if let syn::Expr::Unary(u) = expr {
                if let (syn::UnOp::Deref(_), syn::Expr::Path(p)) = (&u.op, &*u.expr) {
                    if self.0.iter().any(|name| p.path.is_ident(*name)) {
                        let name = &p.path;
                        let span = syn::spanned::Spanned::span(&u.expr);
                        *expr = syn::parse_quote_spanned!(span=> #name[0]);
                        return;
                    }
                }
            }
            // Input:  `y.sqrt()` of `y: &mut f64` (a method call derefs its receiver)
            // Output: `y[0].sqrt()`
            if let syn::Expr::MethodCall(m) = expr {
                if let syn::Expr::Path(p) = &*m.receiver {
                    if self.0.iter().any(|name| p.path.is_ident(*name)) {
                        let name = &p.path;
                        let span = syn::spanned::Spanned::span(&m.receiver);
                        *m.receiver = syn::parse_quote_spanned!(span=> #name[0]);
                    }
                }
            }
            syn::visit_mut::visit_expr_mut(self, expr);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut block = block.clone();
    let names: Vec<&Ident> = sig
        .params
        .iter()
        .filter(|p| p.scalar)
        .map(|p| &p.ident)
        .collect();
    if !names.is_empty() {
        Rewrite(names).visit_block_mut(&mut block);
    }
    block
}

/// A matrix of floats: `&[Vec<T>]`, `Vec<Vec<T>>`, `&Vec<Vec<T>>`, `[[T; M]; N]` or `&[[T; M]; N]`, with the
/// type of its gradient (`Vec<Vec<T>>` or `[[T; M]; N]`); or a nested array deeper, nesting the same way
/// (arrays of arrays, `[[[T; K]; M]; N]`, or `Vec`s of `Vec`s, `&[Vec<Vec<T>>]`, `Vec<Vec<Vec<T>>>`).
pub(crate) fn matrix_shape(ty: &Type, float_params: &[Ident]) -> Option<(ArrayShape, Type)> {
    let (inner, owned) = match ty {
        Type::Reference(r) if r.mutability.is_none() => (&*r.elem, false),
        other => (other, true),
    };
    // An item: a row of floats or a nested array, owned, an array in an array and a `Vec` in a `Vec`.
    let row = |t: &Type, fixed: bool| {
        let item = array_shape(t, float_params)
            .map(|(shape, ty)| (shape.owned && shape.fixed == fixed).then_some(ty));
        item.unwrap_or_else(|| {
            matrix_shape(t, float_params)
                .filter(|(shape, _)| shape.owned && matches!(t, Type::Array(_)) == fixed)
                .map(|(_, ty)| ty)
        })
    };
    // A row of floats that is a fixed-size array, in a slice or `Vec` (`&[[T; 2]]`: points in the plane).
    let array_row = |t: &Type| {
        array_shape(t, float_params)
            .filter(|(shape, _)| shape.owned && shape.fixed)
            .map(|(_, ty)| ty)
    };
    let grad_ty: Type = match inner {
        Type::Slice(s) if !owned => {
            let row_ty = row(&s.elem, false).or_else(|| array_row(&s.elem))?;
            vec_of(&row_ty)
        }
        Type::Array(a) => {
            row(&a.elem, true)?;
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
            let row_ty = row(elem, false).or_else(|| array_row(elem))?;
            vec_of(&row_ty)
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

/// How many levels of arrays `ty` nests: 1 for a slice, `Vec` or array, 2 for a matrix, 3 for
/// `[[[T; K]; M]; N]`, .. (0 for anything else).
pub(crate) fn nesting_depth(ty: &Type) -> usize {
    match ty {
        Type::Reference(r) => nesting_depth(&r.elem),
        Type::Paren(p) => nesting_depth(&p.elem),
        Type::Slice(s) => 1 + nesting_depth(&s.elem),
        Type::Array(a) => 1 + nesting_depth(&a.elem),
        Type::Path(_) => match vec_element(ty) {
            Some(elem) => 1 + nesting_depth(elem),
            None => 0,
        },
        _ => 0,
    }
}

/// A slice, `Vec` or array of integers or `bool`s (`labels: &[usize]`): its shape, if it is one.
fn integer_array_shape(ty: &Type, float_params: &[Ident]) -> Option<ArrayShape> {
    let is_int = |t: &Type| matches!(kind_of_type(t, float_params), Kind::Int | Kind::Bool);
    // `&mut [usize]` too: indexes the body may update, never differentiated.
    let (inner, owned) = match ty {
        Type::Reference(r) => (&*r.elem, false),
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

/// A parameter struct: a path type (or a shared reference to one) that is not a float, integer, `bool`,
/// slice, `Vec` or array, not a type parameter of the function, and not a well-known standard type
/// (`String`, `Option`, `Box`, ..): the type itself, which is its gradient type. Whether it derives
/// `Differentiable` only rustc knows; the generated code requires it, so a type that does not is reported
/// there (the trait's message says to derive it or to leave the parameter out of `wrt(..)`).
/// The last segment's name of a path type (`Settings` of `Settings<f64>`, `config::Settings`).
fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(tp) if tp.qself.is_none() => tp
            .path
            .segments
            .last()
            .map(|s| crate::naming::unraw(&s.ident)),
        _ => None,
    }
}

pub(crate) fn struct_type(ty: &Type, generics: &syn::Generics) -> Option<Type> {
    let inner = match ty {
        Type::Reference(r) if r.mutability.is_none() => &*r.elem,
        Type::Reference(_) => return None,
        other => other,
    };
    let Type::Path(tp) = inner else {
        return None;
    };
    if tp.qself.is_some() {
        return None;
    }
    let last = tp.path.segments.last()?;
    let name = last.ident.to_string();
    let standard = [
        "String",
        "str",
        "Option",
        "Result",
        "Box",
        "Rc",
        "Arc",
        "HashMap",
        "BTreeMap",
        "HashSet",
        "BTreeSet",
        "VecDeque",
        "Vec",
        "Cell",
        "RefCell",
        "PhantomData",
        "Range",
        "char",
    ];
    let type_param =
        tp.path.segments.len() == 1 && generics.type_params().any(|p| p.ident == last.ident);
    // A standard name is the standard type unless the file declares a struct of that name (an RNN's
    // `Cell`, which was otherwise never a struct: "`c` cannot be differentiated").
    let standard = standard.contains(&name.as_str())
        && !(tp.path.segments.len() == 1 && crate::context::declared_struct(&name));
    (!standard && !type_param).then(|| inner.clone())
}

/// Said of a nested array of floats that mixes arrays and slices or `Vec`s.
const NESTED_ONE_WAY: &str =
    "nested arrays of floats nest one way: arrays of arrays (`[[T; M]; N]`, \
     `[[[T; K]; M]; N]`, also by reference) or `Vec`s of `Vec`s (`&[Vec<T>]`, `Vec<Vec<T>>`, \
     `&[Vec<Vec<T>>]`, `Vec<Vec<Vec<T>>>`), or a slice or `Vec` of rows that are arrays (`&[[T; M]]`, \
     `Vec<[T; M]>`): write the type so, or pass one flat slice indexed `a[(i * n + j) * m + k]`";

/// Is this a type the macro cannot differentiate through but that looks like it holds floats
/// (`&mut [f64]`, `&[Vec<f64>]`)? Those get an error rather than silently passing through.
fn unsupported_float_container(ty: &Type, float_params: &[Ident]) -> Option<&'static str> {
    if matrix_shape(ty, float_params).is_some() {
        return None;
    }
    match ty {
        // `&mut [T]`, `&mut Vec<T>`, `&mut [T; N]` are output parameters.
        Type::Reference(r)
            if r.mutability.is_some() && output_shape(ty, float_params).is_some() =>
        {
            None
        }
        Type::Reference(r) if r.mutability.is_some() => {
            let elem = match &*r.elem {
                Type::Slice(slice) => &*slice.elem,
                Type::Array(array) => &*array.elem,
                other => other,
            };
            let holds_floats = matches!(kind_of_type(elem, float_params), Kind::Float(_))
                || array_shape(elem, float_params).is_some();
            holds_floats.then_some(
                "only floats, slices, `Vec`s and arrays of floats are output parameters (`&mut T`, `&mut [T]`, \
                 `&mut [T; N]`): write a matrix into one flat `&mut [T]` indexed `a[i * n + j]`",
            )
        }
        // Slices, arrays and `Vec`s of floats nested two deep or more, not one way.
        _ if nesting_depth(ty) >= 2 && float_kind(innermost(ty), float_params) => {
            Some(NESTED_ONE_WAY)
        }
        _ => None,
    }
}

// Input:  `&[Particle]`, in a file declaring `struct Particle { .. }`
// Output: Some("Particle")
/// The name of the struct that `ty`, a slice, array or `Vec` (nested, by reference or not), holds, where
/// the source file declares a struct of that name (`context::declared_struct`): the macro reads no
/// fields of elements (`ps[i].x`).
fn struct_elements(ty: &Type) -> Option<String> {
    let inner = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    let container =
        matches!(inner, Type::Slice(_) | Type::Array(_)) || vec_element(inner).is_some();
    let Type::Path(tp) = innermost(ty) else {
        return None;
    };
    let name = tp
        .path
        .get_ident()
        .filter(|_| container && tp.qself.is_none())?;
    let name = crate::naming::unraw(name);
    crate::context::declared_struct(&name).then_some(name)
}

/// Does `block` read an element of the parameter `param` (`ps[i].x`, `&ps[i]`), or iterate over it (`for
/// p in ps`, `ps.iter()`)? A slice of structs only measured or passed on whole is passed through as data.
fn reads_element_fields(block: &syn::Block, param: &Ident) -> bool {
    struct Find<'a> {
        param: &'a Ident,
        found: bool,
    }
    impl Find<'_> {
        fn is_param(&self, e: &syn::Expr) -> bool {
            match e {
                syn::Expr::Path(p) => p.qself.is_none() && p.path.is_ident(self.param),
                syn::Expr::Paren(p) => self.is_param(&p.expr),
                syn::Expr::Reference(r) => self.is_param(&r.expr),
                syn::Expr::MethodCall(m) => self.is_param(&m.receiver),
                _ => false,
            }
        }
    }
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            match e {
                syn::Expr::Index(i) => self.found |= self.is_param(&i.expr),
                syn::Expr::ForLoop(l) => self.found |= self.is_param(&l.expr),
                syn::Expr::MethodCall(m) if m.method == "iter" => {
                    self.found |= self.is_param(&m.receiver);
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut find = Find {
        param,
        found: false,
    };
    syn::visit::Visit::visit_block(&mut find, block);
    find.found
}

/// The element type at the bottom of nested references, slices, arrays and `Vec`s (`f64` of
/// `&[Vec<[f64; 2]>]`).
fn innermost(ty: &Type) -> &Type {
    match ty {
        Type::Reference(r) => innermost(&r.elem),
        Type::Paren(p) => innermost(&p.elem),
        Type::Slice(s) => innermost(&s.elem),
        Type::Array(a) => innermost(&a.elem),
        _ => vec_element(ty).map_or(ty, innermost),
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
        "a tuple parameter is differentiated when its parts are floats, slices, `Vec`s, arrays or matrices \
         of floats (`(f64, f64)`, `(f64, [f64; 2])`, `(&[f64], f64)`): pass the other parts (integers, \
         flags, nested tuples, `&mut` buffers) as parameters of their own",
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
                // `&self` or `self` (also written `self: &Self`, `self: Self`).
                let is_self = |ty: &Type| matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"));
                let supported = r.mutability.is_none()
                    && match &*r.ty {
                        Type::Reference(reference) => {
                            reference.mutability.is_none() && is_self(&reference.elem)
                        }
                        ty => is_self(ty),
                    };
                if !supported {
                    errors.spanned(
                        r,
                        "`#[differentiable]` supports methods that take `&self` or `self`: a method that \
                         writes `self` (`&mut self`, `mut self`) or takes it in another type is not \
                         differentiated; take `&self` and return the result",
                    );
                    // Still read as `self` below, so that the body's `self.k` meets no second error.
                }
                // `self` is a parameter struct of type `Self`, constant unless `wrt(self)` names it.
                params.push(Param {
                    ident: Ident::new("self", r.self_token.span),
                    ty: (*r.ty).clone(),
                    kind: Kind::Struct(syn::parse_quote!(Self)),
                    active: args
                        .wrt
                        .as_ref()
                        .is_some_and(|w| w.iter().any(|n| n == "self")),
                    grad_ty: syn::parse_quote!(Self),
                    array: None,
                    differentiable: true,
                    by_ref: false,
                    field: false,
                    output: false,
                    scalar: false,
                    passed_on: PassedOn::No,
                });
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
                } else if let Some(name) =
                    struct_elements(&pt.ty).filter(|_| reads_element_fields(&item.block, &pi.ident))
                {
                    errors.spanned(
                        &pt.ty,
                        format!(
                            "slices, `Vec`s and arrays of structs (of `{name}`) are not supported: pass \
                             their fields as slices of floats (`x: &[f64], v: &[f64]`), or hold them as \
                             `Vec` fields of one `Differentiable` struct (`struct Particles {{ x: \
                             Vec<f64>, v: Vec<f64> }}`)"
                        ),
                    );
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
                let output = output_shape(&pt.ty, &float_params);
                let float_array = array_shape(&pt.ty, &float_params)
                    .or_else(|| matrix_shape(&pt.ty, &float_params))
                    .or(output.clone());
                let (kind, array, grad_ty) = match (&scalar_ref, float_array.clone()) {
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
                // A parameter struct (`p: &Mlp`): active, its own gradient type. But a value of a type of
                // the user's that the body only matches on or compares (`mode: Mode`, an enum), and that
                // `wrt(..)` does not name, is data like an integer.
                // So is one taken by value that the body also passes on whole to calls (`inner(x, mode)`):
                // without `wrt(..)`, each callee must keep it constant too (`PassedOn::Data`).
                let named_in_wrt = (args.wrt.as_ref()).is_some_and(|w| w.contains(&pi.ident));
                let by_value = !matches!(&*pt.ty, Type::Reference(_));
                let mut passed_on = PassedOn::No;
                let declared = match struct_type(&pt.ty, &sig.generics) {
                    Some(ty)
                        if !named_in_wrt && matches!(kind, Kind::Unknown) && array.is_none() =>
                    {
                        type_name(&ty).and_then(|name| crate::context::declared_as_data(&name))
                    }
                    _ => None,
                };
                let (kind, grad_ty) = match (&kind, array, struct_type(&pt.ty, &sig.generics)) {
                    (Kind::Unknown, None, Some(_))
                        if !named_in_wrt
                            && only_matched_or_compared(&item.block, &pi.ident, false) =>
                    {
                        (kind, grad_ty)
                    }
                    // An enum that the source file declares (`context::declared_as_data`): data however
                    // the body uses it, as above; taken by value and passed on, as below.
                    (Kind::Unknown, None, Some(_))
                        if declared == Some(crate::context::Data::Enum) =>
                    {
                        if by_value {
                            passed_on = match args.wrt {
                                Some(_) => PassedOn::Constant,
                                None => PassedOn::Data,
                            };
                        }
                        (kind, grad_ty)
                    }
                    (Kind::Unknown, None, Some(_))
                        if !named_in_wrt
                            && by_value
                            && only_matched_or_compared(&item.block, &pi.ident, true) =>
                    {
                        passed_on = match args.wrt {
                            Some(_) => PassedOn::Constant,
                            None => PassedOn::Data,
                        };
                        (kind, grad_ty)
                    }
                    (Kind::Unknown, None, Some(ty)) => (Kind::Struct(ty.clone()), ty),
                    _ => (kind, grad_ty),
                };
                // A struct that the source file declares without `Differentiable` is data, passed through
                // like "anything else" of API.md's table: kept constant as though `wrt(..)` left it out.
                let data_struct = declared == Some(crate::context::Data::Struct);
                let differentiable = matches!(kind, Kind::Float(_) | Kind::Struct(_))
                    || float_tuple(&kind).is_some()
                    || (array.is_some() && float_array.is_some());
                // An output parameter has a gradient only if its incoming value is read.
                let active = differentiable
                    && !data_struct
                    && (output.is_none()
                        || crate::incoming::reads_incoming(
                            &item.block,
                            &pi.ident,
                            fixed_len(&pt.ty, &float_params),
                        ));
                params.push(Param {
                    ident: pi.ident.clone(),
                    ty: (*pt.ty).clone(),
                    kind,
                    active,
                    grad_ty,
                    array,
                    differentiable,
                    by_ref: scalar_ref.is_some(),
                    output: output.is_some(),
                    scalar: output.is_some() && matches!(&*pt.ty, Type::Reference(r) if float_kind(&r.elem, &float_params)),
                    field: false,
                    passed_on,
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
                Some(p) if crate::tuple_data::tuple_slice(&p.ty).is_some() => errors.spanned(
                    name,
                    format!(
                        "`{name}` is a slice of tuples, which a differentiable function reads as data: it \
                         has no gradient and cannot be in `wrt(..)`; pass its floats as a slice of their own \
                         (`&[f64]`) to differentiate them"
                    ),
                ),
                Some(Param {
                    kind: Kind::Struct(ty),
                    ..
                }) if type_name(ty).is_some_and(|t| crate::context::declared_as_data(&t).is_some()) => errors.spanned(
                    name,
                    format!(
                        "`{name}` is named in `wrt(..)`, but its type `{}` is declared in this file without \
                         `#[derive(Differentiable)]`: add the derive to it (with `#[no_grad]` on its fields that \
                         are not floats), or leave `{name}` out of `wrt(..)` to pass it through as data",
                        type_name(ty).unwrap_or_default()
                    ),
                ),
                Some(p) if !p.differentiable => errors.spanned(
                    name,
                    format!(
                        "`{name}` cannot be differentiated: only parameters of type `f64`, `f32`, a type \
                         parameter bounded by `Float`, slices, `Vec`s and arrays of them, or structs deriving \
                         `Differentiable` can be in `wrt(..)`"
                    ),
                ),
                Some(_) => {}
            }
        }
        for p in &mut params {
            p.active = p.active && wrt.contains(&p.ident);
        }
    }
    let has_outputs = params.iter().any(|p| p.output);
    let (ret_ty, ret_kind) = match &sig.output {
        ReturnType::Default if has_outputs => (syn::parse_quote!(()), Kind::Unit),
        ReturnType::Type(_, ty)
            if has_outputs && matches!(&**ty, Type::Tuple(t) if t.elems.is_empty()) =>
        {
            ((**ty).clone(), Kind::Unit)
        }
        // A parameter was reported already (an output of a type that cannot be one, `&mut [[f64; 2]; 2]`):
        // the missing return type follows from it, and is no second error.
        ReturnType::Default if !ok => return None,
        ReturnType::Default => {
            errors.spanned(
                &sig.ident,
                "a `#[differentiable]` function must return a float or a tuple of floats (add `-> f64`), or \
                 write its results into `&mut [T]` output parameters",
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
            // Input:  fn best(x: &[f64]) -> (f64, usize)
            // Output: the error at `usize`: the integer is no output of a derivative
            let passenger = match &**ty {
                Type::Tuple(t)
                    if t.elems
                        .iter()
                        .any(|e| matches!(kind_of_type(e, &float_params), Kind::Float(_))) =>
                {
                    t.elems
                        .iter()
                        .find(|e| matches!(kind_of_type(e, &float_params), Kind::Int | Kind::Bool))
                }
                _ => None,
            };
            if let Some(passenger) = passenger {
                let passenger_ty = passenger.to_token_stream().to_string().replace(' ', "");
                errors.spanned(
                    passenger,
                    format!(
                        "a `#[differentiable]` function returns floats (`f64`, a tuple of floats, a `Vec<T>` or \
                         an array `[T; N]`), each of which has a derivative; a `{passenger_ty}` beside them has \
                         none, and is not supported in the returned tuple: compute it in a plain function \
                         beside this one, or write it into a parameter `out: &mut [{passenger_ty}]` \
                         (`out[0] = ..`), which the generated items pass on"
                    ),
                );
                return None;
            }
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
    fn a_vec_type_is_the_one_parse_quote_gives() {
        for elem in ["f64", "T", "::std::vec::Vec<f32>", "[f64; 3]"] {
            let elem: Type = syn::parse_str(elem).unwrap();
            let parsed: Type = syn::parse_quote!(::std::vec::Vec<#elem>);
            assert!(vec_of(&elem) == parsed);
            assert_eq!(
                vec_of(&elem).to_token_stream().to_string(),
                parsed.to_token_stream().to_string()
            );
        }
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
