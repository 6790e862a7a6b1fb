//! Higher order: `#[differentiable(order = K)]` adds `f_hvp`, `f_hessian` and, for one scalar input,
//! `f_derivatives`.
//!
//! They are built on the first-order items run on dual numbers, not on a second transformation: `f_hvp`
//! calls `f_grad` with `Dual<T>` arguments whose tangents are the direction `v` (forward over reverse,
//! one reverse sweep per product, JAX's `jvp(grad(f))`), `f_hessian` runs `f_grad` on `MultiDual` lanes
//! (eight inputs a pass) or calls `f_hvp` once per input, and `f_derivatives` runs `f_grad` on `K - 1`
//! nested duals (so its `f'` is `f_grad`'s, also for custom gradients). This needs the function to be
//! generic over its float type (`fn f<T: Float>(x: T) -> T`), so that it and its generated items run on
//! `Dual<T>`; since tapes, calls and custom gradients are generic too, second derivatives flow through
//! loops, callees and custom gradient closures.
//!
//! Output parameters (`out: &mut [T]`, `e: &mut T`) of a function returning a float: the items are the
//! derivatives of the returned float, as `f_grad` is. Each output goes to `f_grad` as a buffer
//! of duals lifted from its incoming value (`lift_output`), the values written back after the call
//! (`write_back`); `f_hessian` hands each `f_hvp` a copy of the incoming value, kept before `f_grad`
//! writes the caller's buffer, so the buffers end as one call of `f` leaves them.

use crate::errors::Errors;
use crate::ir::Kind;
use crate::naming::local;
use crate::signature::{Param, Signature};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::Type;

/// The higher-order items of `item`, or errors if its signature does not allow them.
///
/// `calls.active` are the callees (by their paths' tokens) that the function calls with differentiated
/// arguments: the generic copy of a function written for `f64` calls their generic copies.
pub(crate) fn items(
    item: &syn::ItemFn,
    sig: &Signature,
    args: &crate::args::Args,
    order: &syn::LitInt,
    calls: &crate::shadow::CopyCalls,
    errors: &mut Errors,
) -> TokenStream {
    let Ok(k) = order.base10_parse::<usize>() else {
        return TokenStream::new();
    };
    if k < 2 {
        return TokenStream::new();
    }
    let float_params = crate::signature::float_type_params(&item.sig.generics);
    let scalar = match &sig.ret_ty {
        Type::Path(p) => p
            .path
            .get_ident()
            .filter(|i| float_params.contains(i))
            .cloned(),
        _ => None,
    };
    let Some(scalar) = scalar else {
        return through_shadow(item, sig, args, order, k, calls, errors);
    };
    check_float_parameters(sig, &scalar.to_string(), errors);
    if !errors_free(errors) {
        return TokenStream::new();
    }
    let h = Higher {
        item,
        sig,
        scalar: &scalar,
    };
    let hvp = h.hvp();
    let hessian = h.hessian();
    let derivatives = h.derivatives(k);
    quote!(#hvp #hessian #derivatives)
}

/// An error at each parameter that holds the float type `scalar` otherwise than as itself, in a slice,
/// `Vec`, array or tuple, or behind a reference (`Option<f64>`): the generic copy of `order = K` retypes
/// only those.
fn check_float_parameters(sig: &Signature, scalar: &str, errors: &mut Errors) {
    let mentions = |ty: &Type| {
        ty.to_token_stream()
            .into_iter()
            .any(|t| t.to_string() == scalar)
    };
    for p in &sig.params {
        // A struct beside its values view (`&<Outer<::core::primitive::f64> as Itself>::Type`,
        // `struct_whole.rs`): a constant of its own type at every order.
        if is_itself(&p.ty) {
            continue;
        }
        let plain = p.ty.to_token_stream().to_string() == scalar;
        let tuple = crate::signature::float_tuple(&p.kind).is_some();
        // `Option<f64>` by value: the items lift it (`Higher::data_arg`).
        let option =
            option_of(&p.ty).is_some_and(|inner| inner.to_token_stream().to_string() == scalar);
        if mentions(&p.ty) && !plain && p.array.is_none() && !p.by_ref && !tuple && !option {
            errors.spanned(
                &p.ty,
                format!(
                    "with `order = K`, a parameter may use `{scalar}` only as `{scalar}` or in a slice, `Vec`, \
                     array or tuple (or behind a reference): pass the value itself (unwrap an `Option` before \
                     the call), or leave `order = K` out (its first order works)"
                ),
            );
        }
    }
}

// Input:  fn scaled(x: f64, scale: Option<f64>) -> f64 { x * plain_scale(scale) }   (`order = 2`)
// Output: an error at `scale` in the call
/// An error at each `Option<f64>` parameter passed whole to a call of anything but a differentiated
/// callee (`active`, whose copy takes `Option<__S>`): the generic copy holds it as `Option<__S>`, which a
/// helper written for `Option<f64>` does not take (rustc's error would name the copy's `__S`).
fn check_options_passed(
    item: &syn::ItemFn,
    sig: &Signature,
    scalar: &str,
    active: &[String],
    errors: &mut Errors,
) {
    use syn::visit::Visit;
    struct Calls<'a> {
        options: Vec<&'a Ident>,
        active: &'a [String],
        scalar: &'a str,
        errors: &'a mut Errors,
    }
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            let callee = match &*c.func {
                syn::Expr::Path(p) => p.path.to_token_stream().to_string(),
                other => other.to_token_stream().to_string(),
            };
            if !self.active.contains(&callee) {
                for arg in &c.args {
                    let syn::Expr::Path(p) = arg else { continue };
                    let Some(name) = p.path.get_ident().filter(|n| self.options.contains(n)) else {
                        continue;
                    };
                    let scalar = self.scalar;
                    self.errors.spanned(
                        arg,
                        format!(
                            "with `order = K`, `{name}` (an `Option<{scalar}>`) may be passed whole only to a \
                             `#[differentiable]` function: unwrap it before the call (`{name}.unwrap_or(..)`, a \
                             `match`), or leave `order = K` out (its first order works)"
                        ),
                    );
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let options = (sig.params.iter())
        .filter(|p| option_of(&p.ty).is_some_and(|t| t.to_token_stream().to_string() == scalar))
        .map(|p| &p.ident)
        .collect();
    Calls {
        options,
        active,
        scalar,
        errors,
    }
    .visit_block(&item.block);
}

/// `T` of `Option<T>` (`::core::option::Option<T>`, `std::option::Option<T>`).
fn option_of(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match (last.ident == "Option", p.qself.is_none(), args.args.len()) {
        (true, true, 1) => match args.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// Is `ty` `<S as ::autodiff::__private::Itself>::Type`, or a reference to it: a parameter struct that a hidden
/// function over the struct's values view takes as a constant (`struct_whole.rs`)?
fn is_itself(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => is_itself(&r.elem),
        Type::Path(p) => p.qself.as_ref().is_some_and(|q| {
            q.position > 0
                && p.path
                    .segments
                    .iter()
                    .nth(q.position - 1)
                    .is_some_and(|s| s.ident == "Itself")
        }),
        _ => false,
    }
}

/// For a function written for `f64` (or `f32`): its generic shadow (`shadow.rs`), differentiated with the
/// same attribute, and the higher-order items of `f` calling the shadow's at the written float type.
fn through_shadow(
    item: &syn::ItemFn,
    sig: &Signature,
    args: &crate::args::Args,
    order: &syn::LitInt,
    k: usize,
    calls: &crate::shadow::CopyCalls,
    errors: &mut Errors,
) -> TokenStream {
    let float = match &sig.ret_ty {
        Type::Path(p) if p.path.is_ident("f64") => "f64",
        Type::Path(p) if p.path.is_ident("f32") => "f32",
        // `fn scale(x: T) -> T` in `impl<T: Float> S<T>`: `f_hvp` runs `f_grad` on dual numbers, which
        // would be `S::<Dual<T>>::scale_grad`, a type the function cannot name.
        Type::Path(p)
            if p.path
                .get_ident()
                .is_some_and(|t| crate::expand::float_params_with_impl(item).contains(t)) =>
        {
            if let Some(items) = in_generic_impl(item, sig, args, order, k) {
                return items;
            }
            errors.spanned(
                order,
                "`order = K` on a function of a generic `impl`'s float type parameter is supported on an \
                 associated function without `self` or `Self` in its body and without type parameters of \
                 its own; otherwise write it as a free function generic over `T: Float` with `order = K` \
                 (its first-order derivatives work here, and the copies of `order = K` callers reach it)",
            );
            return TokenStream::new();
        }
        // `-> [f64; 2]`, `-> Vec<f64>`, `-> (f64, f64)`: the items of `order = K` are of one float, and a
        // caller with `order = K` differentiates through the function without them (its generic copy), so
        // the error says to drop `order = K` here and give it to a function of the result.
        ret => {
            let name = &item.sig.ident;
            // `[f64; 2]`, `Vec<f64>`, `(T, T)` as written, not as tokens (`Vec < f64 >`).
            let ret = ret
                .to_token_stream()
                .to_string()
                .replace(' ', "")
                .replace(',', ", ")
                .replace(';', "; ");
            errors.spanned(
                order,
                format!(
                    "`order = K` needs a function returning one float (`f64`, `f32` or a type parameter \
                     `T: Float`), whose Hessian `{name}_hvp`, `{name}_hessian` and `{name}_derivatives` give, \
                     and `{name}` returns `{ret}`. Keep `#[differentiable]` without `order` on `{name}` (a \
                     caller with `order = K` differentiates through it twice all the same), and give \
                     `order = K` to a function of its result that returns a float (`#[differentiable(order = \
                     2)] fn energy(..) -> f64 {{ let r = {name}(..); /* a float of r */ }}`)"
                ),
            );
            return TokenStream::new();
        }
    };
    let other = crate::shadow::other_float(float);
    // A parameter of the other float type (`fn f(x: f32, w: &[f32]) -> f64`), a scalar or a slice, `Vec` or
    // array of them, is converted to the result's where the items call the copy, and its derivatives back.
    let mut forms = Vec::new();
    for p in &sig.params {
        match OtherFloat::of(p, other) {
            Some(form) => forms.push(form),
            None => {
                forms.push(OtherFloat::No);
                errors.spanned(
                    &p.ty,
                    format!(
                        "with `order = K`, a function returning `{float}` takes its matrices, tuples and \
                         references to scalars of floats in `{float}` (its Hessian runs on dual numbers of one \
                         float type; a scalar `{other}`, or a slice, `Vec` or array of them, is converted): \
                         take this parameter in `{float}` (callers convert), or leave `order = K` out (its \
                         first order works)"
                    ),
                );
            }
        }
    }
    // Checked on the function as written: the shadow's own float type (`__S`) must not reach a message.
    check_float_parameters(sig, float, errors);
    check_options_passed(item, sig, float, &calls.active, errors);
    if !errors_free(errors) {
        return TokenStream::new();
    }
    let name = &item.sig.ident;
    let shadow_name = quote::format_ident!("__{}_generic", name);
    // Asked for, the copy takes the elements of every local but a matrix out of their references in
    // loops (`for v in w.iter()`: `&__S` has no arithmetic).
    let shadow = crate::shadow::shadow(
        item,
        float,
        &shadow_name,
        &calls.active,
        &calls.plain,
        crate::shadow::Locals::AllButMatrices,
        calls.float_results,
    );
    let wrt = args.wrt.as_ref().map(|names| quote!(, wrt(#(#names),*)));
    let h = Higher {
        item,
        sig,
        scalar: name,
    };
    let gradient_ty = sig.gradient_type();
    let ret = &sig.ret_ty;
    // An associated function's shadow is one too: its items are called through `Self`.
    let owner = crate::expand::is_method(item).then(|| quote!(Self::));
    // It stands in the `impl` too, which its own expansion cannot find in the source (`context.rs`).
    let in_impl = owner.as_ref().map(|_| quote!(, __in_impl));
    let float_ty = Ident::new(float, proc_macro2::Span::call_site());
    let other_ty = Ident::new(other, proc_macro2::Span::call_site());
    let call = |suffix: &str, extra: Option<TokenStream>| {
        let callee = quote::format_ident!("{}_{}", shadow_name, suffix);
        let params = sig
            .params
            .iter()
            .zip(&forms)
            .map(|(p, form)| form.input(&p.ident, &p.ty, &float_ty));
        quote!(#owner #callee(#(#params,)* #extra))
    };
    // The form of each component of the gradient.
    let active_forms: Vec<OtherFloat> = sig
        .params
        .iter()
        .zip(&forms)
        .filter(|(p, _)| p.active)
        .map(|(_, form)| *form)
        .collect();
    let mixed = active_forms.iter().any(|f| *f != OtherFloat::No);
    // A gradient-shaped value with its components of the other type's forms converted to `to`.
    let convert_gradient = |g: TokenStream, to: &Ident| -> TokenStream {
        match active_forms.as_slice() {
            [one] => one.gradient(g, to),
            many => {
                let parts = many.iter().enumerate().map(|(i, form)| {
                    let index = syn::Index::from(i);
                    form.gradient(quote!(#g.#index), to)
                });
                quote!((#(#parts,)*))
            }
        }
    };
    let v = local("v");
    let hvp_sig = h.signature(
        h.name("hvp"),
        Some(quote!(#v: #gradient_ty)),
        quote!((#ret, #gradient_ty, #gradient_ty)),
    );
    let hvp_call = match mixed {
        false => call("hvp", Some(v.to_token_stream())),
        true => {
            let (r, g, hv) = (local("r"), local("g"), local("hv"));
            let v_in = convert_gradient(quote!(#v), &float_ty);
            let inner = call("hvp", Some(v_in));
            let (g_out, hv_out) = (
                convert_gradient(quote!(#g), &other_ty),
                convert_gradient(quote!(#hv), &other_ty),
            );
            quote!({ let (#r, #g, #hv) = #inner; (#r, #g_out, #hv_out) })
        }
    };
    // (A callee that only parameters outside `wrt(..)` reach too: where it has derivatives, its copy.)
    let checked: Vec<String> = (calls.active.iter().cloned())
        .chain(
            calls
                .plain
                .iter()
                .filter(|p| p.maybe)
                .map(|p| p.callee.clone()),
        )
        .collect();
    let checks = registration_checks(item, &checked);
    let hessian_sig = h.signature(
        h.name("hessian"),
        None,
        quote!((#ret, #gradient_ty, ::std::vec::Vec<::std::vec::Vec<#ret>>)),
    );
    let hessian_call = match mixed {
        false => call("hessian", None),
        true => {
            let (r, g, h) = (local("r"), local("g"), local("h"));
            let inner = call("hessian", None);
            let g_out = convert_gradient(quote!(#g), &other_ty);
            quote!({ let (#r, #g, #h) = #inner; (#r, #g_out, #h) })
        }
    };
    let one_scalar = matches!(sig.active().collect::<Vec<_>>().as_slice(), [p] if p.array.is_none() && crate::signature::float_tuple(&p.kind).is_none());
    let derivatives = one_scalar.then(|| {
        let len = k + 1;
        let signature = h.signature(h.name("derivatives"), None, quote!([#ret; #len]));
        let body = call("derivatives", None);
        let doc = format!(" `[f, f', .., f^({k})]` of `{name}` at its active input.");
        quote!(#[doc = #doc] #signature { #body })
    });
    let hvp_doc = format!(
        " The value, gradient and Hessian-vector product `H v` of `{name}` (forward over reverse)."
    );
    let hessian_doc = format!(" The value, gradient and Hessian of `{name}`, over the active inputs in declaration order.");
    quote! {
        #[::autodiff::differentiable(order = #order #wrt #in_impl)]
        #[doc(hidden)]
        // The user's function gets the lints; its rewritten copy (`s = s * (1.0 + y)` for `s *= 1.0 + y`)
        // must not get them again.
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        #shadow
        #[doc = #hvp_doc]
        #hvp_sig { #(#checks)* #hvp_call }
        #[doc = #hessian_doc]
        #hessian_sig { #hessian_call }
        #derivatives
    }
}

/// How a parameter of a function with `order = K` holds the float type other than its result's (`x: f32`
/// in a function returning `f64`), which the items convert where they call the copy.
#[derive(Clone, Copy, PartialEq, Debug)]
enum OtherFloat {
    /// Not at all.
    No,
    /// A scalar, `x: f32`.
    Scalar,
    /// A slice, `Vec` or array of them: `&[f32]`, `&Vec<f32>`, `Vec<f32>`, `[f32; N]`, `&[f32; N]`.
    Elements { fixed: bool, by_ref: bool },
}

impl OtherFloat {
    /// The form of `p`, with `other` the other float type; `None` for one the items cannot convert (a
    /// matrix, a tuple, `&f32`).
    fn of(p: &Param, other: &str) -> Option<OtherFloat> {
        if !crate::naming::names_any(p.ty.to_token_stream(), &[other]) {
            return Some(OtherFloat::No);
        }
        if matches!(&p.ty, Type::Path(t) if t.qself.is_none() && t.path.is_ident(other)) {
            return Some(OtherFloat::Scalar);
        }
        match p.array {
            Some(shape) if !shape.matrix => Some(OtherFloat::Elements {
                fixed: shape.fixed,
                by_ref: !shape.owned,
            }),
            _ => None,
        }
    }

    /// The parameter `x` of the declared type `ty` as the copy takes it, in `to`.
    fn input(self, x: &Ident, ty: &Type, to: &Ident) -> TokenStream {
        let slice = matches!(ty, Type::Reference(r) if matches!(&*r.elem, Type::Slice(_)));
        match self {
            OtherFloat::No => quote!(#x),
            OtherFloat::Scalar => quote!(#x as #to),
            OtherFloat::Elements {
                fixed: true,
                by_ref,
            } => {
                let array = quote!((*&#x).map(|v| v as #to));
                if by_ref {
                    quote!(&#array)
                } else {
                    array
                }
            }
            OtherFloat::Elements {
                fixed: false,
                by_ref,
            } => {
                let vec = quote!(#x.iter().map(|&v| v as #to).collect::<::std::vec::Vec<#to>>());
                match (by_ref, slice) {
                    (true, true) => quote!(&(#vec)[..]),
                    (true, false) => quote!(&#vec),
                    (false, _) => vec,
                }
            }
        }
    }

    /// A gradient (or direction) component `g` of this form converted to `to`.
    fn gradient(self, g: TokenStream, to: &Ident) -> TokenStream {
        match self {
            OtherFloat::No => g,
            OtherFloat::Scalar => quote!((#g as #to)),
            OtherFloat::Elements { fixed: true, .. } => quote!(#g.map(|v| v as #to)),
            OtherFloat::Elements { fixed: false, .. } => {
                quote!(#g.iter().map(|&v| v as #to).collect::<::std::vec::Vec<#to>>())
            }
        }
    }
}

/// For each call, a check that what the first-order derivative uses for it has a generic copy (not the
/// fallback of a function without one, `companion::fallback_copy`, whose use would be an error only
/// after monomorphisation, far from the call): one error at the call, "`g` has no generic copy", saying
/// what to do. A call by a path of two or more segments (`own::cube(x)`, `libm::erf(x)`) is checked on what
/// `derivative_of!` finds there, a `#[gradient_of(path)]` registration in scope before the function's own
/// companion: the copy calls the copy of the same (`companion::copy_by_path`), so that `f_hessian`'s
/// gradient is `f_grad`'s. A registration that stands in for a function with derivatives of its own
/// (`own::cube`) is an error there (`check_generic_copy!`): the registered copy's value would follow
/// the registered gradient, not the function's forward code, which `jax.hessian` differentiates.
fn registration_checks(item: &syn::ItemFn, active_calls: &[String]) -> Vec<TokenStream> {
    // The callees as written, so that an error points at the call.
    struct Callees<'c>(&'c [String], Vec<syn::Path>);
    impl<'a> syn::visit::Visit<'a> for Callees<'_> {
        fn visit_expr_call(&mut self, call: &'a syn::ExprCall) {
            if let syn::Expr::Path(p) = &*call.func {
                let written = p.path.to_token_stream().to_string();
                if p.qself.is_none()
                    && self.0.contains(&written)
                    && !self
                        .1
                        .iter()
                        .any(|q| q.to_token_stream().to_string() == written)
                {
                    self.1.push(p.path.clone());
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut callees = Callees(active_calls, Vec::new());
    syn::visit::Visit::visit_block(&mut callees, &item.block);
    // Functions nested in the body are declared in the generated functions that run the body, not in
    // `f_hvp`, where the checks go: their copies are checked where they are instantiated.
    let nested = nested_fn_names(&item.block);
    callees.1.retain(|p| {
        !p.get_ident()
            .is_some_and(|i| nested.contains(&i.to_string()))
    });
    let mut paths = callees.1;
    // Calls the visit did not find (written through a macro): without a span of their own.
    for call in active_calls {
        if !nested.contains(call)
            && !paths
                .iter()
                .any(|p| p.to_token_stream().to_string() == *call)
        {
            paths.extend(syn::parse_str::<syn::Path>(call).ok());
        }
    }
    paths
        .into_iter()
        .map(|mut path| {
            if crate::naming::is_associated_call(&path) {
                return method_copy_check(path);
            }
            let key = crate::naming::registered_path(&path).map(|key| quote!(, #key));
            if let Some(last) = path.segments.last_mut() {
                last.arguments = syn::PathArguments::None;
            }
            // Spanned on the call, where rustc then points.
            let span = path
                .segments
                .last()
                .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
            let path = crate::companion::imported(&path);
            quote_spanned! {span=>
                ::autodiff::__private::check_generic_copy!(#path #key);
            }
        })
        .collect()
}

// Input:  Self::total(self, x)            (a call of a method or associated function, `self.total(x)`)
// Output: {
//             trait __MethodCopied { fn __total_copied() -> MethodCopy { MethodCopy } }
//             impl<__T: ?Sized> __MethodCopied for __T {}
//             require_method_copy(Self::__total_copied());
//         }
/// The check at a call `path(..)` of a method or associated function: `Self::__g_copied()` is the check's
/// own trait's, `MethodCopy`, unless the fallback of a `g` without a generic copy declares it as an inherent
/// associated function (found first), `NoMethodCopy`: then one error at the call, spanned on `g`, in place
/// of rustc's missing `Self::__g_generic` (`companion::fallback_copy`). By the type's name (`S::g(x)`,
/// `S::<f64>::g(x)`), `S::__g_copied_by_name(0.0)`: in a generic `impl`, whose `T` the path leaves open,
/// `g`'s `by_name_copy` declares it `(_: T) -> MethodCopy` (the literal makes `T` `f64`).
fn method_copy_check(mut path: syn::Path) -> TokenStream {
    // By the type's name (`S::g`), in a generic `impl` of which the path may not determine the float type:
    // the marker that takes a float literal (`naming::method_copy_marker_by_name`).
    let by_name = path.segments.first().is_some_and(|s| s.ident != "Self");
    let Some(last) = path.segments.last_mut() else {
        return TokenStream::new();
    };
    last.arguments = syn::PathArguments::None;
    let span = last.ident.span();
    let (marker, argument) = match by_name {
        true => (
            crate::naming::method_copy_marker_by_name(&last.ident),
            quote!(<__A>(_: __A)),
        ),
        false => (crate::naming::method_copy_marker(&last.ident), quote!(())),
    };
    last.ident = marker.clone();
    let passed = by_name.then(|| quote!(0.0));
    // The whole path on the callee's name (`Self::` too), where rustc then points.
    let path: TokenStream = path
        .to_token_stream()
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect();
    quote_spanned! {span=>
        {
            #[allow(non_camel_case_types, dead_code)]
            trait __MethodCopied {
                #[inline(always)]
                fn #marker #argument -> ::autodiff::__private::MethodCopy {
                    ::autodiff::__private::MethodCopy
                }
            }
            impl<__T: ?::core::marker::Sized> __MethodCopied for __T {}
            ::autodiff::__private::require_method_copy(#path(#passed));
        }
    }
}

// Input:  impl<T: Float> Poly<T> { #[differentiable(order = 2)] fn cube(x: T, y: T) -> T { x * x * y } }
// Output: fn cube_hvp(x: T, y: T, v: (T, T)) -> (T, (T, T), (T, T)) {
//             #[differentiable(order = 2)] fn __cube_alone<T: Float>(x: T, y: T) -> T { x * x * y }  (expanded)
//             __cube_alone_hvp(x, y, v)
//         }
//         fn cube_hessian(..), and for one scalar input fn cube_derivatives(..), the same way
/// `order = K` on an associated function of a generic `impl` whose result is the `impl`'s float type
/// parameter (`impl<T: Float> Poly<T> { fn cube(x: T, y: T) -> T }`): `f_hvp` would run `f_grad` on dual
/// numbers, `Poly::<Dual<T>>::cube_grad`, and the attribute does not see the `impl`'s type to name it.
/// The function has no `self`, so its body is also a free function generic over its own `T`, nested in
/// each item and differentiated there with the same arguments, whose items run at the `impl`'s `T`. `None`
/// where that does not hold: a receiver, `Self` or `self` in the body (a nested function has neither), or
/// type parameters of the function's own.
fn in_generic_impl(
    item: &syn::ItemFn,
    sig: &Signature,
    args: &crate::args::Args,
    order: &syn::LitInt,
    k: usize,
) -> Option<TokenStream> {
    let mentions_self = |tokens: TokenStream| crate::naming::names_any(tokens, &["Self", "self"]);
    let Type::Path(ret) = &sig.ret_ty else {
        return None;
    };
    let scalar = ret.path.get_ident()?.clone();
    let signature_mentions_self = item
        .sig
        .inputs
        .iter()
        .any(|input| mentions_self(input.to_token_stream()));
    if item.sig.receiver().is_some()
        || signature_mentions_self
        || !item.sig.generics.params.is_empty()
        || mentions_self(item.block.to_token_stream())
        || item.sig.asyncness.is_some()
        || item.sig.unsafety.is_some()
    {
        return None;
    }
    let alone = quote::format_ident!("__{}_alone", crate::naming::unraw(&item.sig.ident));
    let wrt = args.wrt.as_ref().map(|names| quote!(, wrt(#(#names),*)));
    let inputs = &item.sig.inputs;
    let block = &item.block;
    let nested_fn: syn::ItemFn = syn::parse_quote! {
        #[::autodiff::differentiable(order = #order #wrt)]
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        fn #alone<#scalar: ::autodiff::Float>(#inputs) -> #scalar #block
    };
    let nested = crate::lower::expand_nested_fn(&nested_fn);
    let call_args: Vec<&Ident> = sig.params.iter().map(|p| &p.ident).collect();
    let callee = |suffix: &str| quote::format_ident!("{}_{}", alone, suffix);
    let h = Higher {
        item,
        sig,
        scalar: &scalar,
    };
    let v = local("v");
    let gradient_ty = sig.gradient_type();
    let hvp_sig = sig.generated(
        item,
        &h.name("hvp"),
        Some(quote!(#v: #gradient_ty)),
        quote!((#scalar, #gradient_ty, #gradient_ty)),
    );
    let hvp_callee = callee("hvp");
    let name = &item.sig.ident;
    let hvp_doc = format!(
        " The value, gradient and Hessian-vector product `H v` of `{name}`: forward over reverse, `{name}`'s \
         body differentiated as a function generic over its own float type (`{alone}`), run at the \
         `impl`'s."
    );
    let hvp = quote! {
        #[doc = #hvp_doc]
        #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        #hvp_sig {
            #nested
            #hvp_callee(#(#call_args,)* #v)
        }
    };
    let one_scalar = matches!(sig.active().collect::<Vec<_>>().as_slice(),
        [p] if p.array.is_none() && matches!(p.kind, Kind::Float(_)));
    let derivatives = one_scalar.then(|| {
        let len = k + 1;
        let derivatives_sig =
            sig.generated(item, &h.name("derivatives"), None, quote!([#scalar; #len]));
        let derivatives_callee = callee("derivatives");
        let doc =
            format!(" `[f, f', .., f^({k})]` of `{name}` at its active input, by `{alone}`'s.");
        quote! {
            #[doc = #doc]
            #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #derivatives_sig {
                #nested
                #derivatives_callee(#(#call_args),*)
            }
        }
    });
    let hessian_sig = h.hessian_signature();
    let hessian_callee = callee("hessian");
    let hessian_doc = format!(" The value, gradient and Hessian of `{name}`, by `{alone}`'s.");
    let hessian = quote! {
        #[doc = #hessian_doc]
        #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        #hessian_sig {
            #nested
            #hessian_callee(#(#call_args),*)
        }
    };
    Some(quote!(#hvp #hessian #derivatives))
}

/// `f_hvp`, `f_hessian` and (for one scalar active input) `f_derivatives` of a method of a generic `impl`
/// (`impl<T: Float> Model<T>`) returning its float type `scalar`: its own `f_grad` run on the struct over
/// dual numbers (`Model<Dual<T>>`, `__private::MapFloat`, which `#[derive(Differentiable)]` implements),
/// as for a free generic function, so that whatever its first order differentiates (calls of other
/// methods, `Self::helper(x)`, output parameters, integer fields) its higher orders do too.
pub(crate) fn mapped_items(
    item: &syn::ItemFn,
    sig: &Signature,
    scalar: &Ident,
    order: &syn::LitInt,
) -> TokenStream {
    let Ok(k) = order.base10_parse::<usize>() else {
        return TokenStream::new();
    };
    let h = Higher { item, sig, scalar };
    let hvp = h.hvp();
    let hessian = h.hessian();
    let derivatives = h.derivatives(k);
    quote!(#hvp #hessian #derivatives)
}

/// `f_hessian` of a function whose `f_grad` and `f_hvp` exist (`struct_higher.rs` emits the latter for a
/// function of a parameter struct): one `f_hvp` per flattened active input.
pub(crate) fn hessian_of(item: &syn::ItemFn, sig: &Signature, scalar: &Ident) -> TokenStream {
    Higher { item, sig, scalar }.hessian()
}

/// The names of the `fn` items declared in `block` (in nested blocks too, not inside those functions).
fn nested_fn_names(block: &syn::Block) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'a> syn::visit::Visit<'a> for Names {
        fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
            self.0.push(f.sig.ident.to_string());
            // Its copy over the parts of its tuple parameters, which callers passing a tuple call.
            if crate::tuples::applies(f) {
                let name = crate::naming::unraw(&f.sig.ident);
                self.0.push(format!("__{name}_split"));
            }
        }
    }
    let mut names = Names(Vec::new());
    syn::visit::Visit::visit_block(&mut names, block);
    names.0
}

fn errors_free(errors: &Errors) -> bool {
    errors.len() == 0
}

struct Higher<'a> {
    item: &'a syn::ItemFn,
    sig: &'a Signature,
    scalar: &'a Ident,
}

impl Higher<'_> {
    fn name(&self, suffix: &str) -> Ident {
        crate::signature::derived_name(self.item, suffix)
    }

    /// A generated sibling as the items call it: `Self::f_grad` for a method's (associated functions of
    /// its `impl`), `f_grad` for a free function's.
    fn sibling(&self, suffix: &str) -> TokenStream {
        let name = self.name(suffix);
        match crate::expand::is_method(self.item) {
            true => quote!(Self::#name),
            false => quote!(#name),
        }
    }

    fn signature(&self, name: Ident, extra: Option<TokenStream>, ret: TokenStream) -> TokenStream {
        let signature = self.sig.generated(self.item, &name, extra, ret);
        quote!(#[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)] #signature)
    }

    /// Does this parameter hold the float type (so that it must become a dual number)?
    fn is_float(&self, p: &Param) -> bool {
        let scalar = self.scalar.to_string();
        p.differentiable
            && (p.ty.to_token_stream().to_string() == scalar
                || p.array.is_some()
                || p.by_ref
                || crate::signature::float_tuple(&p.kind).is_some())
    }

    /// How a lifted array is passed, by the parameter's own form (`&[T]`, `Vec<T>`, `[T; N]`).
    fn pass(&self, p: &Param, lifted: &Ident) -> TokenStream {
        match p.array {
            Some(shape) if !shape.owned => quote!(&#lifted),
            None if p.by_ref => quote!(&#lifted),
            _ => quote!(#lifted),
        }
    }

    /// A float parameter's value: `*x` of one taken by reference (`x: &T`), else `x`.
    fn value_of(p: &Param) -> TokenStream {
        let ident = &p.ident;
        match p.by_ref {
            true => quote!(*#ident),
            false => quote!(#ident),
        }
    }

    /// A parameter struct's flat view (`Differentiable::to_flat`, `from_flat`), of `f64`s: the trait as a
    /// path, and the parameter as a reference.
    fn flat_view(p: &Param) -> Option<(TokenStream, TokenStream)> {
        let Kind::Struct(ty) = &p.kind else {
            return None;
        };
        let ident = &p.ident;
        let reference = match &p.ty {
            Type::Reference(_) => quote!(#ident),
            _ => quote!(&#ident),
        };
        Some((
            quote!(<#ty as ::autodiff::__private::Differentiable>),
            reference,
        ))
    }

    /// How many of the flattened inputs of the Hessian an active parameter is.
    fn flat_len(p: &Param) -> TokenStream {
        let ident = &p.ident;
        if let Some((trait_, reference)) = Self::flat_view(p) {
            return quote!(#trait_::to_flat(#reference).len());
        }
        match (&Self::array(p), crate::signature::float_tuple(&p.kind)) {
            (Some(shape), _) if shape.matrix => {
                quote!(::autodiff::__private::flatten(&#ident).len())
            }
            (Some(_), _) => quote!(#ident.len()),
            (None, Some(n)) => quote!(#n),
            (None, None) => quote!(1),
        }
    }

    /// Appends `part`, the part of a Hessian column for the active parameter `p`, flattened, to `row`.
    fn row_push(&self, p: &Param, row: &Ident, part: &Ident) -> TokenStream {
        let scalar = self.scalar;
        if let Some((trait_, _)) = Self::flat_view(p) {
            return quote!(#row.extend(
                #trait_::to_flat(&#part).into_iter().map(::autodiff::__private::lit::<#scalar>)
            ););
        }
        match (&Self::array(p), crate::signature::float_tuple(&p.kind)) {
            (Some(shape), _) if shape.matrix => {
                quote!(#row.extend(::autodiff::__private::flatten(&#part));)
            }
            (Some(_), _) => quote!(#row.extend_from_slice(&#part[..]);),
            (None, Some(n)) => {
                let parts = (0..n).map(syn::Index::from);
                quote!(#(#row.push(#part.#parts);)*)
            }
            (None, None) => quote!(#row.push(#part);),
        }
    }

    /// The array shape of a parameter as the Hessian flattens it: none for a float output (`&mut T`),
    /// which is one input.
    fn array(p: &Param) -> Option<crate::signature::ArrayShape> {
        p.array.filter(|_| !p.scalar)
    }

    /// Does the function write this parameter, a buffer that `f_hessian` must hand each `f_hvp` as it came
    /// in: an output parameter, or a `&mut` slice, array or `Vec` of integers or a `&mut` integer (a cursor,
    /// a permutation: written but never differentiated). Other `&mut` types (a random number generator)
    /// are passed on as they are.
    fn written_buffer(p: &Param) -> bool {
        let Type::Reference(r) = &p.ty else {
            return false;
        };
        let primitive = |ty: &Type| {
            matches!(ty, Type::Path(t) if t.qself.is_none() && t.path.get_ident().is_some_and(|i| {
                const PRIMITIVE: &[&str] = &[
                    "usize", "u8", "u16", "u32", "u64", "u128", "isize", "i8", "i16", "i32", "i64",
                    "i128", "bool",
                ];
                PRIMITIVE.iter().any(|n| i == n)
            }))
        };
        let vec_of_primitives = |ty: &Type| {
            let Type::Path(t) = ty else { return false };
            t.path.segments.last().is_some_and(|last| {
                last.ident == "Vec"
                    && matches!(&last.arguments, syn::PathArguments::AngleBracketed(a)
                        if matches!(a.args.first(), Some(syn::GenericArgument::Type(e)) if primitive(e)))
            })
        };
        let integers = match &*r.elem {
            Type::Slice(s) => primitive(&s.elem),
            Type::Array(a) => primitive(&a.elem),
            ty => primitive(ty) || vec_of_primitives(ty),
        };
        r.mutability.is_some() && (p.output || integers)
    }

    /// A parameter without floats to lift, as `unchanged`; a slice of tuples read as data
    /// (`r: &[(usize, f64)]`, `tuple_data.rs`) with each float component made a constant of `lifted`,
    /// the item's dual number type, since the generic copy on dual numbers takes `&[(usize, S)]`:
    /// `&r.iter().map(|&(__c0, __c1)| (__c0, value::<S, _>(__c1))).collect::<Vec<_>>()`.
    fn data_arg(&self, p: &Param, lifted: &TokenStream) -> TokenStream {
        let ident = &p.ident;
        let (ty, by_ref) = match &p.ty {
            Type::Reference(r) => (&*r.elem, true),
            ty => (ty, false),
        };
        // `scale: Option<T>`: the float inside lifted as a constant (`check_float_parameters` lets no
        // other wrapper of the float type through).
        if let (Some(inner), false) = (option_of(ty), by_ref) {
            if *self.scalar == inner.to_token_stream().to_string() {
                let c = local("__c");
                return quote!(#ident.map(|#c| ::autodiff::__private::value::<#lifted, _>(#c)));
            }
        }
        let (elements, array) = match ty {
            Type::Slice(s) => (&*s.elem, false),
            Type::Array(a) => (&*a.elem, true),
            Type::Path(t) => match t.path.segments.last().map(|s| &s.arguments) {
                Some(syn::PathArguments::AngleBracketed(a)) => match a.args.first() {
                    Some(syn::GenericArgument::Type(e)) => (e, false),
                    _ => return self.unchanged(p),
                },
                _ => return self.unchanged(p),
            },
            _ => return self.unchanged(p),
        };
        let Type::Tuple(tuple) = elements else {
            return self.unchanged(p);
        };
        if crate::tuple_data::tuple_slice(&p.ty).is_none() {
            return self.unchanged(p);
        }
        let scalar = self.scalar.to_string();
        let names: Vec<Ident> = (0..tuple.elems.len())
            .map(|i| local(&format!("__c{i}")))
            .collect();
        let parts = tuple.elems.iter().zip(&names).map(|(t, n)| {
            match t.to_token_stream().to_string() == scalar {
                true => quote!(::autodiff::__private::value::<#lifted, _>(#n)),
                false => quote!(#n),
            }
        });
        let tuple = quote!((#(#names,)*));
        let make = quote!((#(#parts,)*));
        match (array, by_ref) {
            (true, true) => quote!(&(*#ident).map(|#tuple| #make)),
            (true, false) => quote!(#ident.map(|#tuple| #make)),
            (false, true) => quote!(&#ident
                .iter()
                .map(|&#tuple| #make)
                .collect::<::std::vec::Vec<_>>()),
            (false, false) => quote!(#ident
                .iter()
                .map(|&#tuple| #make)
                .collect::<::std::vec::Vec<_>>()),
        }
    }

    /// A parameter passed unchanged (cloned if owned, since the items call `f` more than once).
    fn unchanged(&self, p: &Param) -> TokenStream {
        let ident = &p.ident;
        match &p.ty {
            Type::Reference(_) => quote!(#ident),
            // Spanned at the parameter: where its type is not `Clone`, `Reusable`'s message is there.
            _ => quote_spanned!(ident.span()=> ::autodiff::__private::Reusable::again(&#ident)),
        }
    }

    /// An output parameter `out` lifted to `levels` nested dual numbers from its incoming value, with the
    /// tangent `tangent` at the first level (where the incoming value is read and `v` has a part for it),
    /// else zero: the buffer the generated item hands the function in place of `out`.
    ///
    /// ```text
    /// // Input:                                     // Output (in `f_hvp`, with `write_back`):
    /// fn f<T: Float>(x: T, out: &mut [T]) -> T      let mut __lifted_out = constant_vec(&(*out));
    ///                                               let (value, gradient) = f_grad(__lifted_x, &mut __lifted_out);
    ///                                               for (__element, __dual) in out.iter_mut().zip(__lifted_out.iter()) {
    ///                                                   *__element = __dual.re;
    ///                                               }
    /// ```
    fn lift_output(p: &Param, levels: usize, tangent: Option<&Ident>) -> TokenStream {
        let ident = &p.ident;
        let label = ident.to_string();
        let mut value = quote!((*#ident));
        for level in 0..levels {
            let tangent = tangent.filter(|_| level == 0);
            value = match (p.scalar, p.array.is_some_and(|shape| shape.fixed), tangent) {
                (true, _, Some(t)) => quote!(::autodiff::__private::Dual::new(#value, #t)),
                (true, _, None) => {
                    quote!(::autodiff::__private::Dual::new(#value, ::autodiff::__private::Zero::zero()))
                }
                (false, true, Some(t)) => quote!(::autodiff::__private::dual_array(&#value, &#t)),
                (false, true, None) => quote!(::autodiff::__private::constant_array(&#value)),
                (false, false, Some(t)) => {
                    quote!(::autodiff::__private::dual_vec(#label, &#value, &#t))
                }
                (false, false, None) => quote!(::autodiff::__private::constant_vec(&#value)),
            };
        }
        value
    }

    /// The output parameter `out` written as the function wrote it: the values (the all-`re` parts) of
    /// `lifted`, its buffer of `levels` nested dual numbers.
    fn write_back(p: &Param, lifted: &Ident, levels: usize) -> TokenStream {
        let ident = &p.ident;
        let re = (0..levels).map(|_| quote!(.re));
        if p.scalar {
            return quote!(*#ident = #lifted #(#re)*;);
        }
        let (out, value) = (local("__element"), local("__dual"));
        quote! {
            for (#out, #value) in #ident.iter_mut().zip(#lifted.iter()) {
                *#out = #value #(#re)*;
            }
        }
    }

    // Input:  &self (of `impl<T: Float> Model<T>`), one level, the direction `__direction_0`
    // Output: let __lifted_self = dual_struct("self", self, &__direction_0);     (a `Model<Dual<T>>`)
    /// A parameter struct as `mapped_items` passes it to `f_grad`: the same struct over `levels` nested
    /// dual numbers (`MapFloat`), with the tangent `tangent` at the first level where it is differentiated
    /// (`dual_struct`), else constant. `None` for a parameter that is not a struct.
    fn lift_struct(
        p: &Param,
        levels: usize,
        tangent: Option<&Ident>,
    ) -> Option<(Ident, TokenStream)> {
        let (_, reference) = Self::flat_view(p)?;
        let ident = &p.ident;
        let lifted = local(&format!("__lifted_{ident}"));
        let label = ident.to_string();
        // Spanned at the parameter: where the struct has no `MapFloat`, its message is there.
        let span = ident.span();
        let mut value = match tangent {
            Some(t) => {
                quote_spanned!(span=> ::autodiff::__private::dual_struct(#label, #reference, &#t))
            }
            None => quote_spanned!(span=> ::autodiff::__private::constant_struct(#reference)),
        };
        for _ in 1..levels {
            value = quote!(::autodiff::__private::constant_struct(&#value));
        }
        Some((lifted, value))
    }

    /// A lifted parameter struct passed as the parameter is taken (`&self` or `self`, `p: &S` or `p: S`).
    fn pass_struct(&self, p: &Param, lifted: &Ident) -> TokenStream {
        match &p.ty {
            Type::Reference(_) => quote!(&#lifted),
            _ => quote!(#lifted),
        }
    }

    /// The call of `f_grad` with `args`: a method's on its lifted receiver (`__lifted_self.f_grad(..)`,
    /// the method of the struct over dual numbers, which `Self::f_grad` is not in a generic `impl`),
    /// else `f_grad(..)` or `Self::f_grad(..)`.
    fn grad_call(&self, args: &[TokenStream]) -> TokenStream {
        let receiver = self.item.sig.receiver().is_some()
            && self.sig.params.first().is_some_and(|p| p.ident == "self")
            && matches!(self.sig.params[0].kind, Kind::Struct(_));
        match (receiver, args.split_first()) {
            (true, Some((_, rest))) => {
                let name = self.name("grad");
                let lifted = local("__lifted_self");
                quote!(#lifted.#name(#(#rest),*))
            }
            _ => {
                let grad = self.sibling("grad");
                quote!(#grad(#(#args),*))
            }
        }
    }

    /// `f_hvp(<params>, v: G) -> (T, G, G)`: value, gradient, and the Hessian times `v`.
    fn hvp(&self) -> TokenStream {
        let v = local("v");
        let scalar = self.scalar;
        let gradient_ty = self.sig.gradient_type();
        let signature = self.signature(
            self.name("hvp"),
            Some(quote!(#v: #gradient_ty)),
            quote!((#scalar, #gradient_ty, #gradient_ty)),
        );
        let active: Vec<&Param> = self.sig.active().collect();
        let directions: Vec<Ident> = (0..active.len())
            .map(|i| local(&format!("__direction_{i}")))
            .collect();
        let unpack = match directions.as_slice() {
            [one] => quote!(let #one = #v;),
            many => quote!(let (#(#many,)*) = #v;),
        };
        let mut lifts = Vec::new();
        let mut args = Vec::new();
        let mut direction = directions.iter();
        let mut write_back = Vec::new();
        for p in &self.sig.params {
            // A parameter struct (`mapped_items`): the same struct over dual numbers.
            if matches!(p.kind, Kind::Struct(_)) {
                let tangent = if p.active { direction.next() } else { None };
                let Some((lifted, lift)) = Self::lift_struct(p, 1, tangent) else {
                    continue;
                };
                lifts.push(quote!(let #lifted = #lift;));
                args.push(self.pass_struct(p, &lifted));
                continue;
            }
            if !self.is_float(p) {
                args.push(self.data_arg(p, &quote!(::autodiff::__private::Dual<#scalar>)));
                continue;
            }
            let ident = &p.ident;
            let lifted = local(&format!("__lifted_{ident}"));
            let label = ident.to_string();
            let tangent = if p.active { direction.next() } else { None };
            if p.output {
                let lift = Self::lift_output(p, 1, tangent);
                lifts.push(quote!(let mut #lifted = #lift;));
                args.push(quote!(&mut #lifted));
                write_back.push(Self::write_back(p, &lifted, 1));
                continue;
            }
            let value = Self::value_of(p);
            let lift = match (p.array, tangent) {
                (Some(shape), Some(t)) if shape.matrix => {
                    quote!(::autodiff::__private::dual_matrix(#label, &#ident, &#t))
                }
                (Some(shape), None) if shape.matrix => {
                    quote!(::autodiff::__private::constant_matrix(&#ident))
                }
                // A tuple of floats: a tuple of dual numbers.
                (None, t) if crate::signature::float_tuple(&p.kind).is_some() => {
                    let n = crate::signature::float_tuple(&p.kind).unwrap_or(0);
                    let parts = (0..n).map(|i| {
                        let i = syn::Index::from(i);
                        let tangent = match t {
                            Some(t) => quote!(#t.#i),
                            None => quote!(::autodiff::__private::Zero::zero()),
                        };
                        quote!(::autodiff::__private::Dual::new(#value.#i, #tangent))
                    });
                    quote!((#(#parts,)*))
                }
                (None, Some(t)) => quote!(::autodiff::__private::Dual::new(#value, #t)),
                (None, None) => {
                    quote!(::autodiff::__private::Dual::new(#value, ::autodiff::__private::Zero::zero()))
                }
                (Some(shape), Some(t)) if shape.fixed => {
                    quote!(::autodiff::__private::dual_array(&#ident, &#t))
                }
                (Some(shape), None) if shape.fixed => {
                    quote!(::autodiff::__private::constant_array(&#ident))
                }
                (Some(_), Some(t)) => quote!(::autodiff::__private::dual_vec(#label, &#ident, &#t)),
                (Some(_), None) => quote!(::autodiff::__private::constant_vec(&#ident)),
            };
            lifts.push(quote!(let #lifted = #lift;));
            args.push(self.pass(p, &lifted));
        }
        let grad = self.grad_call(&args);
        let (value, gradient) = (local("value"), local("gradient"));
        let parts: Vec<Ident> = (0..active.len())
            .map(|i| local(&format!("__part_{i}")))
            .collect();
        let unpack_gradient = match parts.as_slice() {
            [one] => quote!(let #one = #gradient;),
            many => quote!(let (#(#many,)*) = #gradient;),
        };
        let is_struct: Vec<bool> = active
            .iter()
            .map(|p| matches!(p.kind, Kind::Struct(_)))
            .collect();
        let re = parts.iter().zip(&is_struct).map(|(p, s)| match s {
            true => quote!(::autodiff::__private::re_struct(&#p)),
            false => quote!(::autodiff::__private::re_parts(&#p)),
        });
        // The product goes into the direction's buffers, which have the gradient's shape.
        let eps = parts
            .iter()
            .zip(&directions)
            .zip(&is_struct)
            .map(|((p, d), s)| match s {
                true => quote!({ let _ = #d; ::autodiff::__private::eps_struct(&#p) }),
                false => quote!(::autodiff::__private::eps_parts_into(&#p, #d)),
            });
        let (re, eps) = if parts.len() == 1 {
            (quote!(#(#re)*), quote!(#(#eps)*))
        } else {
            (quote!((#(#re,)*)), quote!((#(#eps,)*)))
        };
        let doc = format!(
            " The value, gradient and Hessian-vector product `H v` of `{}`: forward mode over reverse mode, \
             one call of `{grad}` on dual numbers.",
            self.item.sig.ident
        );
        quote! {
            #[doc = #doc]
            #signature {
                #unpack
                #(#lifts)*
                let (#value, #gradient) = #grad;
                #(#write_back)*
                #unpack_gradient
                (#value.re, #re, #eps)
            }
        }
    }

    /// `f_hessian(<params>) -> (T, G, Vec<Vec<T>>)`, over the active inputs flattened in declaration
    /// order: by [`Higher::hessian_by_lanes`] where every float parameter is a scalar, a tuple of scalars
    /// or a flat array, else one `f_hvp` per input.
    fn hessian(&self) -> TokenStream {
        self.hessian_by_lanes()
            .unwrap_or_else(|| self.hessian_by_products())
    }

    /// `f_hessian` in vector forward mode over reverse: `f_grad` run on `MultiDual<T, LANES>`, each pass
    /// seeding `LANES` inputs at once (input `base + j` along lane `j`), so a pass gives `LANES` columns
    /// `H e_i` for about the price of one `f_hvp`: the value, the partial derivatives and the
    /// transcendental functions are computed once per pass, not once per input. `None` for the
    /// parameters it does not lift (matrices, structs, output parameters, buffers the function writes),
    /// which go through `f_hvp`.
    ///
    /// ```text
    /// // fn f<T: Float>(x: &[T], a: T) -> T        // f_hessian's passes:
    /// let mut __base = 0usize;
    /// while __base < __n {
    ///     let mut __offset = 0usize;
    ///     let __lifted_x = lanes::vec::<_, 8>(&x, __offset, __base);
    ///     __offset += x.len();
    ///     let __lifted_a = lanes::scalar::<_, 8>(a, __offset, __base);
    ///     __offset += 1;
    ///     let (_, __gradient) = f_grad(&__lifted_x, __lifted_a);
    ///     let (__gradient_0, __gradient_1) = __gradient;
    ///     for __j in 0..min(8, __n - __base) {
    ///         let __hv_0 = lanes::lane(&__gradient_0, __j);   // the column H e_(base + j)
    ///         let __hv_1 = lanes::lane(&__gradient_1, __j);
    ///         ...
    ///     }
    ///     __base += 8;
    /// }
    /// ```
    fn hessian_by_lanes(&self) -> Option<TokenStream> {
        const LANES: usize = 8;
        let lanes = syn::LitInt::new(&format!("{LANES}usize"), proc_macro2::Span::call_site());
        let liftable = |p: &Param| {
            !Self::written_buffer(p)
                && !matches!(p.kind, Kind::Struct(_))
                && (!self.is_float(p) || !p.output && p.array.is_none_or(|shape| !shape.matrix))
        };
        if !self.sig.params.iter().all(liftable) {
            return None;
        }
        let scalar = self.scalar;
        let signature = self.hessian_signature();
        let active: Vec<&Param> = self.sig.active().collect();
        let (j, offset, base, n, columns, row, gradient) = (
            local("__j"),
            local("__offset"),
            local("__base"),
            local("__n"),
            local("__columns"),
            local("__row"),
            local("__gradient"),
        );
        let private = quote!(::autodiff::__private);
        let sizes = active.iter().map(|p| Self::flat_len(p));
        let mut lifts = Vec::new();
        let mut args = Vec::new();
        for p in &self.sig.params {
            if !self.is_float(p) {
                args.push(self.data_arg(p, &quote!(#private::MultiDual<#scalar, #lanes>)));
                continue;
            }
            let ident = &p.ident;
            let lifted = local(&format!("__lifted_{ident}"));
            let value = Self::value_of(p);
            let one = |value: TokenStream| match p.active {
                true => quote!({
                    let __lifted = #private::lanes::scalar::<_, #lanes>(#value, #offset, #base);
                    #offset += 1;
                    __lifted
                }),
                false => quote!(#private::MultiDual::<_, #lanes>::constant(#value)),
            };
            let lift = match (p.array, crate::signature::float_tuple(&p.kind)) {
                (Some(shape), _) => {
                    // An array's length is the third generic argument.
                    let (seeded, constant, length) = match shape.fixed {
                        true => (quote!(array), quote!(constant_array), quote!(, _)),
                        false => (quote!(vec), quote!(constant_vec), quote!()),
                    };
                    match p.active {
                        true => quote!({
                            let __lifted =
                                #private::lanes::#seeded::<_, #lanes #length>(&#ident, #offset, #base);
                            #offset += #ident.len();
                            __lifted
                        }),
                        false => quote!(#private::lanes::#constant::<_, #lanes #length>(&#ident)),
                    }
                }
                (None, Some(k)) => {
                    let parts = (0..k).map(|i| {
                        let i = syn::Index::from(i);
                        one(quote!(#value.#i))
                    });
                    quote!((#(#parts,)*))
                }
                (None, None) => one(value),
            };
            lifts.push(quote!(let #lifted = #lift;));
            args.push(self.pass(p, &lifted));
        }
        let hv_parts: Vec<Ident> = (0..active.len())
            .map(|k| local(&format!("__hv_{k}")))
            .collect();
        let rows = active
            .iter()
            .zip(&hv_parts)
            .map(|(p, part)| self.row_push(p, &row, part));
        // The gradient's parts one by one: a tuple of many parameters has no `Lane` as a whole.
        let gradient_parts: Vec<Ident> = (0..active.len())
            .map(|k| local(&format!("__gradient_{k}")))
            .collect();
        let unpack = match gradient_parts.as_slice() {
            [one] => quote!(let #one = #gradient;),
            many => quote!(let (#(#many,)*) = #gradient;),
        };
        let plain_args = self.sig.params.iter().map(|p| self.unchanged(p));
        let grad = self.sibling("grad");
        let doc = format!(
            " The value, gradient and Hessian of `{}`, the Hessian over the active inputs flattened in \
             declaration order: `{grad}` on dual numbers of {LANES} tangents, one pass per {LANES} inputs.",
            self.item.sig.ident
        );
        // Hygienic: a parameter named `value` or `gradient` is read after these are bound (its lifting).
        let (value, gradient_out) = (local("value"), local("gradient"));
        Some(quote! {
            #[doc = #doc]
            #signature {
                let (#value, #gradient_out) = #grad(#(#plain_args),*);
                let #n: usize = 0 #(+ #sizes)*;
                let mut #columns: ::std::vec::Vec<::std::vec::Vec<#scalar>> = ::std::vec::Vec::with_capacity(#n);
                let mut #base = 0usize;
                while #base < #n {
                    let mut #offset = 0usize;
                    #(#lifts)*
                    let (_, #gradient) = #grad(#(#args),*);
                    #unpack
                    for #j in 0..::core::cmp::Ord::min(#lanes, #n - #base) {
                        #(let #hv_parts = #private::lanes::lane(&#gradient_parts, #j);)*
                        let mut #row = ::std::vec::Vec::with_capacity(#n);
                        #(#rows)*
                        #columns.push(#row);
                    }
                    #base += #lanes;
                }
                (#value, #gradient_out, ::autodiff::__private::hessian_from_columns(&#columns))
            }
        })
    }

    /// `fn f_hessian(<params>) -> (T, G, Vec<Vec<T>>)`, whichever way its columns are computed.
    fn hessian_signature(&self) -> TokenStream {
        let scalar = self.scalar;
        let gradient_ty = self.sig.gradient_type();
        self.signature(
            self.name("hessian"),
            None,
            quote!((#scalar, #gradient_ty, ::std::vec::Vec<::std::vec::Vec<#scalar>>)),
        )
    }

    /// `f_hessian` by one `f_hvp` per input.
    fn hessian_by_products(&self) -> TokenStream {
        let scalar = self.scalar;
        let signature = self.hessian_signature();
        let active: Vec<&Param> = self.sig.active().collect();
        let (i, offset, n, hessian, row) = (
            local("__i"),
            local("__offset"),
            local("__n"),
            local("__hessian"),
            local("__row"),
        );
        let sizes = active.iter().map(|p| Self::flat_len(p));
        let mut units = Vec::new();
        let mut rows = Vec::new();
        let hv_parts: Vec<Ident> = (0..active.len())
            .map(|k| local(&format!("__hv_{k}")))
            .collect();
        for (p, part) in active.iter().zip(&hv_parts) {
            let ident = &p.ident;
            let one = quote!(<#scalar as ::autodiff::__private::One>::one());
            let zero = quote!(<#scalar as ::autodiff::__private::Zero>::zero());
            let scalar_unit = quote!({ let __unit = if #i == #offset { #one } else { #zero }; #offset += 1; __unit });
            let tuple = crate::signature::float_tuple(&p.kind);
            rows.push(self.row_push(p, &row, part));
            if let Some((trait_, reference)) = Self::flat_view(p) {
                units.push(quote!({
                    let __n = #trait_::to_flat(#reference).len();
                    let __unit: ::std::vec::Vec<f64> =
                        (0..__n).map(|__j| if #i == #offset + __j { 1.0 } else { 0.0 }).collect();
                    #offset += __n;
                    #trait_::from_flat(#reference, &__unit)
                }));
                continue;
            }
            let unit = match Self::array(p) {
                None if tuple.is_some() => {
                    let units = (0..tuple.unwrap_or(0)).map(|_| scalar_unit.clone());
                    quote!((#(#units,)*))
                }
                None => scalar_unit,
                Some(shape) if shape.matrix => quote!({
                    let __n = ::autodiff::__private::flatten(&#ident).len();
                    let __unit: ::std::vec::Vec<#scalar> =
                        (0..__n).map(|__j| if #i == #offset + __j { #one } else { #zero }).collect();
                    #offset += __n;
                    ::autodiff::__private::unflatten_like(&#ident, &__unit)
                }),
                Some(shape) if shape.fixed => quote!({
                    let __unit = ::core::array::from_fn(|__j| if #i == #offset + __j { #one } else { #zero });
                    #offset += #ident.len();
                    __unit
                }),
                Some(_) => quote!({
                    let __unit: ::std::vec::Vec<#scalar> =
                        (0..#ident.len()).map(|__j| if #i == #offset + __j { #one } else { #zero }).collect();
                    #offset += #ident.len();
                    __unit
                }),
            };
            units.push(unit);
        }
        let direction = if units.len() == 1 {
            quote!(#(#units)*)
        } else {
            quote!((#(#units,)*))
        };
        let unpack = if hv_parts.len() == 1 {
            quote!(#(#hv_parts)*)
        } else {
            quote!((#(#hv_parts,)*))
        };
        let args: Vec<TokenStream> = self.sig.params.iter().map(|p| self.unchanged(p)).collect();
        // An output parameter (or an integer buffer the function writes): `f_grad` writes it as the function
        // does; each `f_hvp` gets a copy of its incoming value (which the function may read), kept before
        // `f_grad` overwrites it.
        let incoming: Vec<(Ident, &Ident)> = self
            .sig
            .params
            .iter()
            .filter(|p| Self::written_buffer(p))
            .map(|p| (local(&format!("__incoming_{}", p.ident)), &p.ident))
            .collect();
        let keep_incoming = incoming
            .iter()
            .map(|(kept, ident)| quote!(let #kept = ::std::borrow::ToOwned::to_owned(&*#ident);));
        let hvp_args: Vec<TokenStream> = self
            .sig
            .params
            .iter()
            .zip(&args)
            .map(
                |(p, arg)| match incoming.iter().find(|(_, ident)| **ident == p.ident) {
                    Some((kept, _)) => quote!(&mut ::core::clone::Clone::clone(&#kept)),
                    None => arg.clone(),
                },
            )
            .collect();
        let (grad, hvp) = (self.name("grad"), self.name("hvp"));
        let doc = format!(
            " The value, gradient and Hessian of `{}`, the Hessian over the active inputs flattened in \
             declaration order; one `{hvp}` per input.",
            self.item.sig.ident
        );
        // A method's siblings are associated functions, called with `self` first.
        let (grad, hvp) = if crate::expand::is_method(self.item) {
            (quote!(Self::#grad), quote!(Self::#hvp))
        } else {
            (quote!(#grad), quote!(#hvp))
        };
        // Hygienic: a parameter named `value` or `gradient` is passed to each `f_hvp` after these are bound.
        let (value, gradient) = (local("value"), local("gradient"));
        quote! {
            #[doc = #doc]
            #signature {
                #(#keep_incoming)*
                let (#value, #gradient) = #grad(#(#args),*);
                let #n: usize = 0 #(+ #sizes)*;
                let mut #hessian = ::std::vec::Vec::with_capacity(#n);
                for #i in 0..#n {
                    let mut #offset = 0usize;
                    let (_, _, #unpack) = #hvp(#(#hvp_args,)* #direction);
                    let mut #row = ::std::vec::Vec::with_capacity(#n);
                    #(#rows)*
                    #hessian.push(#row);
                }
                (#value, #gradient, ::autodiff::__private::hessian_from_columns(&#hessian))
            }
        }
    }

    /// `f_derivatives(<params>) -> [T; K + 1]`, for one scalar active input: `f_grad` on `K - 1` nested
    /// duals, each level's tangent one. Through `f_grad`, not `f` on duals, so that custom gradients are
    /// used (the primal on duals would differentiate a custom function's forward code instead); and not
    /// `f_jvp`, whose tangent is a custom function's cotangents for `dy = 1` times the input's tangent:
    /// where a closure is not linear in `dy` (a clipped cotangent) that is not `f_grad`'s `f'`, and
    /// `f''` would not be `f_hessian`'s. So `f'` is `f_grad`'s and `f''` the Jacobian of `f_grad`, as
    /// `jax.grad(jax.grad(f))` gives for a `jax.custom_vjp` function.
    fn derivatives(&self, k: usize) -> TokenStream {
        let active: Vec<&Param> = self.sig.active().collect();
        let [x] = active.as_slice() else {
            return TokenStream::new();
        };
        if x.array.is_some()
            || crate::signature::float_tuple(&x.kind).is_some()
            || matches!(x.kind, Kind::Struct(_))
        {
            return TokenStream::new();
        }
        let scalar = self.scalar;
        let len = k + 1;
        let signature = self.signature(self.name("derivatives"), None, quote!([#scalar; #len]));
        let levels = k - 1;
        // The float type `f_jvp` runs on, for the data that a slice of tuples holds.
        let nested = (0..levels).fold(
            quote!(#scalar),
            |t, _| quote!(::autodiff::__private::Dual<#t>),
        );
        let mut lifts = Vec::new();
        let mut args = Vec::new();
        // Output parameters (never the active input, which is a float): a buffer of nested duals, and
        // the values written back.
        let mut write_back = Vec::new();
        for p in &self.sig.params {
            // A parameter struct (`mapped_items`), never the active input: a constant over nested duals.
            if let Some((lifted, lift)) = Self::lift_struct(p, levels, None) {
                lifts.push(quote!(let #lifted = #lift;));
                args.push(self.pass_struct(p, &lifted));
                continue;
            }
            if !self.is_float(p) {
                args.push(self.data_arg(p, &nested));
                continue;
            }
            let ident = &p.ident;
            let lifted = local(&format!("__lifted_{ident}"));
            if p.output {
                let lift = Self::lift_output(p, levels, None);
                lifts.push(quote!(let mut #lifted = #lift;));
                args.push(quote!(&mut #lifted));
                write_back.push(Self::write_back(p, &lifted, levels));
                continue;
            }
            let mut value = if p.by_ref {
                quote!(*#ident)
            } else {
                ident.to_token_stream()
            };
            for _ in 0..levels {
                value = match (p.array, p.active) {
                    (Some(shape), _) if shape.matrix => {
                        quote!(::autodiff::__private::constant_matrix(&#value))
                    }
                    // Each level's tangent is that level's one: x + ε1 + ε2 + ..
                    (None, true) => quote!({
                        let __level = #value;
                        ::autodiff::__private::Dual::new(__level, ::autodiff::__private::One::one())
                    }),
                    (None, false) => {
                        quote!(::autodiff::__private::Dual::new(#value, ::autodiff::__private::Zero::zero()))
                    }
                    (Some(shape), _) if shape.fixed => {
                        quote!(::autodiff::__private::constant_array(&#value))
                    }
                    (Some(_), _) => quote!(::autodiff::__private::constant_vec(&#value)),
                };
            }
            lifts.push(quote!(let #lifted = #value;));
            args.push(self.pass(p, &lifted));
        }
        let (value, tangent) = (local("__value"), local("__gradient"));
        // f is the value's all-`re` part; f^(j), j ≥ 1, is the part of the gradient f' reached by `eps`
        // j - 1 times, then `re` (the gradient, not the value: its derivatives are those of a custom
        // gradient where there is one).
        let value_part = (0..levels).map(|_| quote!(.re));
        let parts = (1..=k).map(|j| {
            let steps = (0..levels).map(|level| {
                if level + 1 < j {
                    quote!(.eps)
                } else {
                    quote!(.re)
                }
            });
            quote!(#tangent #(#steps)*)
        });
        let grad = self.sibling("grad");
        let call = self.grad_call(&args);
        let name = &self.item.sig.ident;
        let doc = format!(
            " `[f, f', .., f^({k})]` of `{name}` at its active input: `{grad}` run on {levels} nested dual numbers."
        );
        quote! {
            #[doc = #doc]
            #signature {
                #(#lifts)*
                let (#value, #tangent) = #call;
                #(#write_back)*
                [#value #(#value_part)*, #(#parts),*]
            }
        }
    }
}
