//! `#[custom_gradient]` and `#[gradient_of]`: derivatives the user writes.
//!
//! A `#[custom_gradient]` function returns its value and its vector-Jacobian product as a closure, as
//! `tf.custom_gradient` does. The macro keeps the body as a hidden function and writes the function to
//! return the value alone; `_vjp` calls the closure with the output cotangent `d_ret` (the `dy` of
//! TensorFlow), so a differentiable caller's reverse sweep feeds the closure the cotangent flowing back to
//! the call.
//!
//! ```text
//! // Input:                                        // Output (in part):
//! #[custom_gradient]                               fn __log1pexp_custom_body(x: f64) -> (f64, impl ..) { .. }
//! fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {   fn log1pexp(x: f64) -> f64 {
//!     let e = x.exp();                                 __log1pexp_custom_body(x).0
//!     ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))   }
//! }                                                fn log1pexp_vjp(x: f64, d_ret: f64) -> (f64, f64) {
//!                                                      let (value, gradient) = __log1pexp_custom_body(x);
//!                                                      (value, gradient(d_ret))
//!                                                  }
//! ```
//!
//! `#[gradient_of(path)]` registers the vector-Jacobian product of a function the user does not own: it
//! emits the companion type (`companion.rs`) of that function's name, so calls of it by that name in
//! differentiable code use the registered gradient, and a trait through which calls written with the path
//! (`libm::erf(x)`) find it.

use crate::args::Args;
use crate::companion::{self, Companion, GenericCopy, Slot};
use crate::emit::Emitter;
use crate::errors::Errors;
use crate::ir::Kind;
use crate::signature::{self, Signature};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, ReturnType, Type};

/// Expands `#[custom_gradient] item`.
pub(crate) fn custom_gradient(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    if !attr.is_empty() {
        errors.spanned(&attr, "`#[custom_gradient]` takes no arguments");
    }
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new(
                Span::call_site(),
                "`#[custom_gradient]` applies to a function",
            )
            .to_compile_error();
            return quote!(#error #item);
        }
    };
    let _scope = crate::context::enter(crate::context::written_in_impl(&item.sig.ident));
    if let Some(error) = not_in_impl(&item, "custom_gradient") {
        return quote!(#error #item);
    }
    let Some((value_ty, dy_ty, gradient_ty)) = split_return(&item, &mut errors) else {
        // Callers see the function as declared: its stubs and companion are shaped by its declared return
        // type, so that a differentiable caller gets no error of its own.
        let as_declared = signature::analyze(&item, &Args::default(), &mut Errors::default());
        return match as_declared {
            Some(sig) => value_stub(&item, Some(&sig), errors),
            None => fallback(&item, errors),
        };
    };
    if normalized(&dy_ty) != normalized(&value_ty) {
        errors.spanned(
            &dy_ty,
            format!(
                "the gradient closure takes the cotangent `dy` of the output, of the output's type `{}`",
                normalized(&value_ty)
            ),
        );
    }
    check_closure_arity(&item.block, &mut errors);
    // The signature as `#[differentiable]` sees it: the function returns the value.
    let mut value_fn = item.clone();
    value_fn.sig.output = ReturnType::Type(Default::default(), Box::new(value_ty.clone()));
    let Some(sig) = signature::analyze(&value_fn, &Args::default(), &mut errors) else {
        return value_stub(&value_fn, None, errors);
    };
    check_gradient_arity(&sig, &gradient_ty, &item.sig.ident, &mut errors);
    if errors.len() > 0 {
        return value_stub(&value_fn, Some(&sig), errors);
    }
    // The body, once, as a hidden function beside the items that call it (each item holding a copy of it
    // would repeat it, and in a generic copy its lookups, `custom_copy.rs`, four times).
    let forward = crate::naming::custom_body(&item.sig.ident);
    let mut inner = item.clone();
    inner.sig.ident = forward.clone();
    // Calls inside its closures: a nested custom function's gradient overrides its forward code there,
    // where the closures run on dual numbers (in a generic function; one written for `f64` has its
    // generic copy for that).
    if !signature::float_type_params(&item.sig.generics).is_empty() {
        let param_names: Vec<Ident> = sig.params.iter().map(|p| p.ident.clone()).collect();
        crate::in_closure::rewrite(&mut inner.block, &param_names);
    }
    inner.vis = syn::Visibility::Inherited;
    inner.attrs.retain(|a| !a.path().is_ident("doc"));
    let inner = quote! {
        #[doc(hidden)]
        #[inline(always)]
        #[allow(clippy::type_complexity, dead_code)]
        #inner
    };
    let args: Vec<&Ident> = sig.params.iter().map(|p| &p.ident).collect();
    let evaluate = quote!(#forward(#(#args),*));
    let gradient_fn = |d: TokenStream| {
        quote! {
            let (value, gradient) = #evaluate;
            (value, gradient(#d))
        }
    };
    let items = Items::new(&item, &sig);
    let name = &item.sig.ident;
    let value = {
        let signature = items.signature(name.clone(), None, value_ty.to_token_stream());
        // (The signature carries the `cfg` and `allow` attributes already: twice, clippy's
        // `duplicated_attributes` fires.)
        let attrs = item
            .attrs
            .iter()
            .filter(|a| !a.path().is_ident("cfg") && !a.path().is_ident("allow"));
        quote!(#(#attrs)* #signature { #evaluate.0 })
    };
    let d_ret = Ident::new("d_ret", Span::mixed_site());
    let vjp = items.vjp(
        gradient_fn(d_ret.to_token_stream()),
        "the closure the function returns",
    );
    let grad = items.grad(gradient_fn(Emitter::one_of(&sig.ret_kind)));
    let grad_into = items.grad_into();
    let jvp = items.jvp(quote! {
        let (value, gradient) = #evaluate;
    });
    let (generic, copy) = if !signature::float_type_params(&item.sig.generics).is_empty() {
        (GenericCopy::Itself(quote!(#name)), TokenStream::new())
    } else {
        crate::custom_copy::generic_copy(&item)
    };
    // The generic copies of `f_grad`, `f_vjp` and `f_jvp`, for the copies of other custom functions
    // calling them (`derivative_copies.rs`).
    // (Written for one float type, which the copies make `__S`, or generic over it.)
    let float = crate::shadow::written_float(&item);
    let derivative_copies = match &generic {
        GenericCopy::Copy(_) | GenericCopy::Fallback { .. } if float.is_none() => {
            TokenStream::new()
        }
        GenericCopy::Itself(_) | GenericCopy::Copy(_) | GenericCopy::Fallback { .. } => {
            crate::derivative_copies::items(&crate::derivative_copies::Derivatives {
                item: &item,
                sig: &sig,
                float,
                grad: grad.is_some(),
                vjp: !vjp.is_empty(),
                jvp: !jvp.is_empty(),
                hvp: None,
            })
        }
        _ => TokenStream::new(),
    };
    let companion = items.companion(generic);
    let jacobian = crate::jacobian::jacobian(&item, &sig);
    quote!(#inner #value #grad #grad_into #vjp #jvp #jacobian #companion #derivative_copies #copy)
}

/// The error for `#[custom_gradient]` or `#[gradient_of]` (`attribute`) on an associated function or a
/// method (`expand::is_method`): their companion type and generic copy are items an `impl` cannot hold.
fn not_in_impl(item: &syn::ItemFn, attribute: &str) -> Option<TokenStream> {
    crate::expand::is_method(item).then(|| {
        let name = &item.sig.ident;
        syn::Error::new(
            item.sig.ident.span(),
            match attribute {
                "custom_gradient" => format!(
                    "`#[custom_gradient]` applies to free functions, not to an associated function or a \
                     method: move `{name}` out of the `impl` (a method may call it as `{name}(..)`)"
                ),
                _ => format!(
                    "`#[{attribute}]` applies to free functions, not to an associated function or a \
                     method: move `{name}` out of the `impl`, beside the function whose gradient it is"
                ),
            },
        )
        .to_compile_error()
    })
}

/// Expands `#[gradient_of(path)] item`.
pub(crate) fn gradient_of(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let target: Option<syn::Path> = match syn::parse2(attr.clone()) {
        Ok(path) => Some(path),
        Err(_) => {
            errors.at(
                attr.span(),
                "`#[gradient_of(..)]` takes the path of the function whose gradient this is: \
                 `#[gradient_of(libm::erf)]`",
            );
            None
        }
    };
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new(
                Span::call_site(),
                "`#[gradient_of(..)]` applies to a function",
            )
            .to_compile_error();
            return quote!(#error #item);
        }
    };
    let _scope = crate::context::enter(crate::context::written_in_impl(&item.sig.ident));
    if let Some(error) = not_in_impl(&item, "gradient_of") {
        return quote!(#error #item);
    }
    // `fn name(<the function's params>, dy: R) -> G`
    let Some(FnArg::Typed(_)) = item.sig.inputs.last() else {
        errors.spanned(
            &item.sig,
            "a registered gradient takes the function's parameters and then the output cotangent: \
             `fn erf_vjp(x: f64, dy: f64) -> f64`",
        );
        return with_errors(&item, errors);
    };
    let gradient_ty = match &item.sig.output {
        ReturnType::Type(_, ty) => (**ty).clone(),
        ReturnType::Default => {
            errors.spanned(
                &item.sig.ident,
                "a registered gradient returns the cotangents of the parameters",
            );
            return with_errors(&item, errors);
        }
    };
    if let Some(repaired) = custom_shaped(&item, &gradient_ty) {
        // `fn erf_grad(x: f64) -> (f64, impl Fn(f64) -> f64)`: `#[custom_gradient]`'s shape. Said once, and
        // the registration is made in the shape it means, so that calls of the function get no error.
        errors.spanned(
            &gradient_ty,
            format!(
                "`#[gradient_of]` registers a vector-Jacobian product, not a value and a closure: take the \
                 function's parameters and then the output's cotangent `dy`, and return the cotangents, \
                 `fn {name}({params}) -> {ret}` (the `(value, |dy| ..)` shape is `#[custom_gradient]`'s, for a \
                 function you define)",
                name = item.sig.ident,
                params = repaired
                    .item
                    .sig
                    .inputs
                    .iter()
                    .map(shown)
                    .collect::<Vec<_>>()
                    .join(", "),
                ret = shown(&repaired.gradient),
            ),
        );
        return registered(&item, &repaired.item, &repaired.gradient, target, errors);
    }
    if let Some(forgotten) = forgotten_cotangent(&item, &gradient_ty) {
        // `fn erf_vjp(x: f64) -> f64`: one cotangent per parameter, so `dy` is missing. Said once, and the
        // registration is made as if `dy` were there, so that calls of the function get no error of their own.
        let dy_ty = forgotten.dy_ty;
        let why = match forgotten.data_last {
            Some(last) => format!("its last parameter, `{last}`, cannot be the output's cotangent `dy`"),
            None => "it returns one cotangent per parameter, so none of them is the output's cotangent `dy`".into(),
        };
        errors.spanned(
            &item.sig.inputs,
            format!(
                "`{name}` lacks the output's cotangent: {why}; a registered gradient takes the function's parameters \
                 and then `dy` last, `fn {name}({params}, dy: {dy}) -> {ret}`, and scales what it returns by `dy`",
                name = item.sig.ident,
                params = forgotten.params,
                dy = shown(&dy_ty),
                ret = shown(&gradient_ty),
            ),
        );
        let mut with_dy = item.clone();
        with_dy.sig.inputs.push(syn::parse_quote!(dy: #dy_ty));
        return registered(&item, &with_dy, &gradient_ty, target, errors);
    }
    registered(&item, &item, &gradient_ty, target, errors)
}

/// `written` (the registration as the user wrote it) and the items that register `item` (`fn name(<the
/// function's params>, dy: R) -> G`, gradient type `gradient_ty`, `written` or its repair) as the
/// gradient of `target`; after `errors`, a stand-in of the same shape registered instead.
fn registered(
    written: &syn::ItemFn,
    item: &syn::ItemFn,
    gradient_ty: &Type,
    target: Option<syn::Path>,
    mut errors: Errors,
) -> TokenStream {
    let Some(FnArg::Typed(dy)) = item.sig.inputs.last() else {
        return with_errors(written, errors);
    };
    let value_ty = (*dy.ty).clone();
    let mut value_fn = item.clone();
    value_fn.sig.inputs.pop();
    value_fn.sig.output = ReturnType::Type(Default::default(), Box::new(value_ty.clone()));
    let Some(sig) = signature::analyze(&value_fn, &Args::default(), &mut errors) else {
        return with_errors(written, errors);
    };
    check_gradient_arity(&sig, gradient_ty, &item.sig.ident, &mut errors);
    let Some(target) = target else {
        return with_errors(written, errors);
    };
    if errors.len() > 0 {
        // The registration of a stand-in gradient of the right shape, so that calls of the function get no
        // error of their own: one mistake, one error.
        let stand_in = stand_in_gradient(item, &sig);
        let registration = stand_in
            .as_ref()
            .map(|stand_in| registration(stand_in, &value_fn, &sig, &target, &value_ty));
        let errors = errors.finish().err().unwrap_or_default();
        return quote!(#errors #written #stand_in #registration);
    }
    let registration = registration(item, &value_fn, &sig, &target, &value_ty);
    quote!(#written #registration)
}

/// A registration written in `#[custom_gradient]`'s shape, and what it means.
struct CustomShaped {
    /// `fn name(<the function's params>, dy: R) -> G`.
    item: syn::ItemFn,
    /// `G`, the closure's result.
    gradient: Type,
}

/// `fn erf_grad(x: f64) -> (f64, impl Fn(f64) -> f64)` (`gradient` being the written return type): the
/// registration meant, `fn erf_grad(x: f64, dy: f64) -> f64`.
fn custom_shaped(item: &syn::ItemFn, gradient: &Type) -> Option<CustomShaped> {
    let Type::Tuple(pair) = gradient else {
        return None;
    };
    if pair.elems.len() != 2 || !matches!(pair.elems[1], Type::ImplTrait(_)) {
        return None;
    }
    let (value, _, closure_result) = split_return(item, &mut Errors::default())?;
    let mut meant = item.clone();
    meant.sig.inputs.push(syn::parse_quote!(dy: #value));
    meant.sig.output = ReturnType::Type(Default::default(), Box::new(closure_result.clone()));
    Some(CustomShaped {
        item: meant,
        gradient: closure_result,
    })
}

/// What a registration that forgot its `dy` parameter is missing.
struct ForgottenCotangent {
    /// The parameters as written, for the message.
    params: String,
    /// The last parameter as written, where it is an integer or `bool`.
    data_last: Option<String>,
    /// The type `dy` most likely has: the float of the first parameter (`T` of `&[T]`, `Vec<T>`, `[T; N]`).
    dy_ty: Type,
}

/// `fn erf_vjp(x: f64) -> f64`, `fn vjp(x: f64, y: f64) -> (f64, f64)`, `fn vjp(x: f64, n: usize) -> f64`:
/// the last parameter cannot be `dy`, since it is an integer or `bool`, or since as many cotangents are
/// returned as float, slice, `Vec` or array parameters are declared.
fn forgotten_cotangent(item: &syn::ItemFn, gradient: &Type) -> Option<ForgottenCotangent> {
    let returned = match gradient {
        Type::Tuple(t) => t.elems.len(),
        _ => 1,
    };
    let types: Vec<&Type> = item
        .sig
        .inputs
        .iter()
        .map(|arg| match arg {
            FnArg::Typed(t) => Some(&*t.ty),
            FnArg::Receiver(_) => None,
        })
        .collect::<Option<_>>()?;
    let floats = signature::float_type_params(&item.sig.generics);
    let scalars: Vec<Option<Type>> = types.iter().map(|ty| float_scalar(ty, &floats)).collect();
    let last_is_data = types.last().is_some_and(|ty| is_integer_or_bool(ty));
    // Not where the last parameter is named as a cotangent (`dy`, `d_out`, `grad`): then the count of the
    // returned cotangents is what is wrong, which `check_gradient_arity` says.
    let named_as_cotangent = match item.sig.inputs.last() {
        Some(FnArg::Typed(t)) => match &*t.pat {
            syn::Pat::Ident(p) => {
                let name = p.ident.to_string().to_lowercase();
                name == "g"
                    || name.starts_with('d')
                    || ["grad", "cot", "adj", "upstream", "seed"]
                        .iter()
                        .any(|w| name.contains(w))
            }
            _ => false,
        },
        _ => false,
    };
    let one_per_parameter =
        !named_as_cotangent && scalars.iter().all(Option::is_some) && scalars.len() == returned;
    if !(last_is_data || one_per_parameter) {
        return None;
    }
    let dy_ty = scalars.into_iter().flatten().next()?;
    let written: Vec<String> = item.sig.inputs.iter().map(shown).collect();
    Some(ForgottenCotangent {
        params: written.join(", "),
        data_last: last_is_data.then(|| written.last().cloned()).flatten(),
        dy_ty,
    })
}

/// Tokens as a person writes them: `(f64, f64)`, `x: &[f64]`.
pub(crate) fn shown(tokens: &impl ToTokens) -> String {
    let mut text = tokens.to_token_stream().to_string();
    for (spaced, tight) in [
        (" ,", ","),
        (" :", ":"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        ("& ", "&"),
        (" ;", ";"),
    ] {
        text = text.replace(spaced, tight);
    }
    text
}

/// `usize`, `i32`, `bool` ...: a type no cotangent has.
fn is_integer_or_bool(ty: &Type) -> bool {
    const DATA: [&str; 13] = [
        "bool", "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64",
        "i128",
    ];
    match ty {
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| DATA.iter().any(|d| i == d))
        }
        _ => false,
    }
}

/// The float scalar of a parameter type: `f64`, `f32` or a float type parameter, alone, behind `&`, or the
/// element of a slice, `Vec` or array.
fn float_scalar(ty: &Type, floats: &[Ident]) -> Option<Type> {
    match ty {
        Type::Reference(r) => float_scalar(&r.elem, floats),
        Type::Slice(s) => float_scalar(&s.elem, floats),
        Type::Array(a) => float_scalar(&a.elem, floats),
        Type::Paren(p) => float_scalar(&p.elem, floats),
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            match &last.arguments {
                syn::PathArguments::None => {
                    let is_float = p.path.segments.len() == 1
                        && (last.ident == "f64"
                            || last.ident == "f32"
                            || floats.contains(&last.ident));
                    is_float.then(|| ty.clone())
                }
                syn::PathArguments::AngleBracketed(args) if last.ident == "Vec" => {
                    match args.args.first() {
                        Some(syn::GenericArgument::Type(elem)) if args.args.len() == 1 => {
                            float_scalar(elem, floats)
                        }
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// For a registration `item` with an error in its declared gradient type: a hidden gradient with the
/// shape the function's parameters give (`sig`), returning zeros, never run.
fn stand_in_gradient(item: &syn::ItemFn, sig: &Signature) -> Option<syn::ItemFn> {
    let floats = signature::float_type_params(&item.sig.generics);
    let gradient = sig.gradient_type();
    let zero = crate::expand::zero_of_type(&syn::parse2(gradient.clone()).ok()?, &floats)?;
    let mut stand_in = item.clone();
    stand_in.sig.ident = quote::format_ident!("__{}_stand_in", item.sig.ident);
    stand_in.sig.output = syn::parse_quote!(-> #gradient);
    stand_in.vis = syn::Visibility::Inherited;
    stand_in.attrs = vec![syn::parse_quote!(#[allow(dead_code, unused_variables)])];
    stand_in.block = syn::parse_quote!({ #zero });
    Some(stand_in)
}

/// The items that register `item` as the gradient of `target`: the companion of the function, the name a
/// call by path finds, and the generic copy for `order = K` callers.
fn registration(
    item: &syn::ItemFn,
    value_fn: &syn::ItemFn,
    sig: &Signature,
    target: &syn::Path,
    value_ty: &Type,
) -> TokenStream {
    let Some(last) = target.segments.last().map(|s| s.ident.clone()) else {
        return TokenStream::new();
    };
    let name = &item.sig.ident;
    let args: Vec<&Ident> = sig.params.iter().map(|p| &p.ident).collect();
    // The target, called through a function pointer of the registration's signature: a signature that
    // does not match the function's is one error, on the registration, showing both.
    let target_fn = Ident::new("__registered_target", Span::mixed_site());
    let param_types = sig.params.iter().map(|p| &p.ty);
    let pointer = quote_spanned!(item.sig.span()=> let __target: fn(#(#param_types),*) -> #value_ty = #target;);
    let generics = &item.sig.generics;
    let where_clause = &generics.where_clause;
    let params = sig.params.iter().map(|p| {
        let (ident, ty) = (&p.ident, &p.ty);
        quote!(#ident: #ty)
    });
    let target_item = quote! {
        #[inline]
        fn #target_fn #generics (#(#params),*) -> #value_ty #where_clause {
            #pointer
            __target(#(#args),*)
        }
    };
    let call = quote!(Self::#target_fn(#(#args),*));
    let items = Items::new(value_fn, sig).inside_companion();
    let vjp_body = |d: TokenStream| quote!((#call, #name(#(#args,)* #d)));
    let d_ret = Ident::new("d_ret", Span::mixed_site());
    let vjp = items.vjp(vjp_body(d_ret.to_token_stream()), &format!("`{name}`"));
    let jvp = items.jvp(quote! {
        let value = #call;
        let gradient = |dy| #name(#(#args,)* dy);
    });
    let copy = registered_copy(
        item,
        value_fn,
        sig,
        &quote!(#last::#target_fn),
        (target, &last),
    );
    let companion = items.companion_of(
        &last,
        quote!(#target_item #vjp #jvp),
        copy.as_ref().map(|_| crate::naming::generic_copy(&last)),
    );
    let by_path = by_path(target, &last, &item.vis);
    quote!(#companion #by_path #copy)
}

/// For the registration `item` of an outside function of float scalars and slices written for `f64`
/// (`libm::erf`, `fn dot(a: &[f64], b: &[f64]) -> f64`), returning a float,
/// whose gradient's body surely compiles as a generic copy (`shadow::why_no_copy`): the generic copy of
/// the registered function, for `order = K` callers, a generic `#[custom_gradient]` function named after
/// it. Its closure is the generic copy of the registered gradient, so second derivatives flow through
/// it; its value is the function's at the values (`to_f64`, every tangent dropped, `f` called through
/// the companion's `__registered_target`, `target`, whose signature check is the registration's one error
/// if it fails) plus `∫₀¹ ∇f(x₀ + t h)·h dt` along the tangents `h` (for a slice, `h·∇f` sums over its
/// elements), by the Gauss–Legendre rule exact for the powers of `h` that are not zero (autodiff-core's
/// `taylor.rs`): the Taylor series of `f(x₀ + h)` to every order the dual numbers hold. A gradient that
/// calls the function itself reaches the function's copy again at the nodes, with one order less
/// (`taylor::budget`); at the last order the slope is the registered gradient at the plain values.
///
/// ```text
/// // Input: #[gradient_of(libm::erf)]               // Output (beside the companion `erf`):
/// fn erf_vjp(x: f64, dy: f64) -> f64 { .. }         fn __erf_vjp_generic<__S: Float>(x: __S, dy: __S) -> __S { .. }
///                                                   #[custom_gradient]
///                                                   fn __erf_generic<__S: Float>(x: __S) -> (__S, impl Fn(__S) -> __S) {
///                                                       let (x0, h) = (x with its tangents dropped, x - x0);
///                                                       let integral = match budget(steps_power([h])).level() {
///                                                           0 => 0,
///                                                           1 => h * erf_vjp(x0 as f64, 1.0),
///                                                           b => Σ over gauss_legendre(b + 1) of w · h · __erf_vjp_generic(x0 + t h, 1),
///                                                       };
///                                                       (lit(libm::erf(x.to_f64())) + integral, move |dy| __erf_vjp_generic(x, dy))
///                                                   }
/// ```
fn registered_copy(
    item: &syn::ItemFn,
    value_fn: &syn::ItemFn,
    sig: &Signature,
    target: &TokenStream,
    (registered, last): (&syn::Path, &Ident),
) -> Option<TokenStream> {
    if !signature::float_type_params(&item.sig.generics).is_empty()
        || !item.sig.generics.params.is_empty()
    {
        return None;
    }
    let float = crate::shadow::written_float(value_fn)?;
    let is_float = |ty: &syn::Type| matches!(ty, syn::Type::Path(p) if p.path.is_ident(float));
    // `&[f64]`: a slice, whose elements get steps and midpoints of their own.
    let is_slice = |ty: &syn::Type| {
        matches!(ty, syn::Type::Reference(r) if r.mutability.is_none()
            && matches!(&*r.elem, syn::Type::Slice(s) if is_float(&s.elem)))
    };
    let slices: Vec<bool> = sig.params.iter().map(|p| is_slice(&p.ty)).collect();
    // An integer or `bool` (`fn jn(n: i32, x: f64)`): data, passed on as it is, with no cotangent.
    let data: Vec<bool> = sig
        .params
        .iter()
        .map(|p| is_integer_or_bool(&p.ty))
        .collect();
    if !sig
        .params
        .iter()
        .all(|p| is_float(&p.ty) || is_slice(&p.ty) || is_integer_or_bool(&p.ty))
        || data.iter().all(|&d| d)
        || !is_float(&sig.ret_ty)
    {
        return None;
    }
    let gradient_copy = crate::naming::generic_copy(&item.sig.ident);
    // A gradient that calls the function itself (`let h = libm::hypot(x, y); (dy * x / h, ..)`): its copy
    // calls the function's copy, whose value then takes its slope from the registered gradient at the
    // plain values (below), so that the two do not call each other without end.
    let (recursive, gradient_source) = calls_as_bare_name(item, registered, last);
    // Its other calls, as a custom function's copy makes them (`custom_copy.rs`): a callee called on a
    // value that depends on the gradient's inputs (`dy * 3.0 * square(x)`) through its generic copy, found
    // by `copy_by_name!` (a stand-in that is an error once instantiated where it has none), a helper called
    // on constants as written.
    let (mut calls, names) = crate::custom_copy::copy_calls(&gradient_source, float);
    let own = last.to_string();
    calls.plain.retain(|call| call.callee != own);
    calls.active.retain(|callee| *callee != own);
    let others = calls.active.clone();
    if recursive {
        calls.active.push(own);
    }
    let mut gradient =
        crate::shadow::surely_compiling_copy_of_chains(&gradient_source, float, &calls).ok()?;
    let lookups = crate::custom_copy::look_up_copies(
        &mut gradient,
        &others,
        &item.sig.ident,
        &names,
        float,
        "the registered gradient",
    );
    let copy = crate::naming::generic_copy(last);
    let scalar = Ident::new("__S", Span::call_site());
    let fixed = |n: String| Ident::new(&n, Span::mixed_site());
    let args: Vec<&Ident> = sig.params.iter().map(|p| &p.ident).collect();
    // Numbered, not named after the parameters (which may be raw identifiers, `r#in`).
    let numbered = |what: &str| -> Vec<Ident> {
        (0..args.len())
            .map(|i| fixed(format!("__{what}_{i}")))
            .collect()
    };
    let (stopped, steps, middles) = (numbered("value"), numbered("step"), numbered("middle"));
    let (plains, captured) = (numbered("plain"), numbered("captured"));
    let slope = fixed("__slope".into());
    // The cotangent of each float input among the gradient's results (none for data).
    let active = data.iter().filter(|&&d| !d).count();
    let mut slopes: Vec<TokenStream> = Vec::new();
    for &d in &data {
        slopes.push(match (d, active) {
            (true, _) => TokenStream::new(),
            (false, 1) => quote!(#slope),
            (false, _) => {
                let i = syn::Index::from(slopes.iter().filter(|s| !s.is_empty()).count());
                quote!(#slope.#i)
            }
        });
    }
    let to_float = Ident::new(&format!("to_{float}"), Span::call_site());
    let float_ty = Ident::new(float, Span::call_site());
    let gradient_ty = match &item.sig.output {
        ReturnType::Type(_, ty) => {
            crate::shadow::replace_float(ty.to_token_stream(), float, &scalar)
        }
        ReturnType::Default => return None,
    };
    // Per input: its value with every tangent dropped, the step to it (its tangents), the plain value
    // the registered function takes, and what the closure keeps; the steps, for their power.
    let mut prelude = Vec::new();
    let mut middles_at = Vec::new();
    let mut increments = Vec::new();
    let mut all_steps = Vec::new();
    for i in 0..args.len() {
        let (x, s, h, m) = (args[i], &stopped[i], &steps[i], &middles[i]);
        let (plain, kept, g) = (&plains[i], &captured[i], &slopes[i]);
        if data[i] {
            continue;
        }
        if slices[i] {
            prelude.push(quote! {
                let #s: ::std::vec::Vec<#scalar> = #x.iter().map(|&__v| ::autodiff::stop_gradient(__v)).collect();
                let #h: ::std::vec::Vec<#scalar> = #x.iter().zip(#s.iter()).map(|(&__v, &__s)| __v - __s).collect();
                let #plain: ::std::vec::Vec<#float_ty> = #x.iter().map(|__v| __v.#to_float().unwrap_or(#float_ty::NAN)).collect();
                let #kept: ::std::vec::Vec<#scalar> = #x.to_vec();
            });
            middles_at.push(quote! {
                let #m: ::std::vec::Vec<#scalar> = #s.iter().zip(#h.iter()).map(|(&__s, &__h)| __s + __h * __t).collect();
            });
            increments.push(quote! {
                #h.iter().zip(#g.iter()).fold(<#scalar as ::autodiff::__private::Zero>::zero(), |__acc, (&__h, &__g)| __acc + __h * __g)
            });
            all_steps.push(quote!(.chain(#h.iter().copied())));
        } else {
            prelude.push(quote! {
                let #s = ::autodiff::stop_gradient(#x);
                let #h = #x - #s;
            });
            middles_at.push(quote!(let #m = #s + #h * __t;));
            increments.push(quote!(#h * #g));
            all_steps.push(quote!(.chain(::core::iter::once(#h))));
        }
    }
    // A slice's own vectors (`&__middle_0[..]`), or a scalar's value as it is.
    let pass =
        |names: &[Ident], scalar: &dyn Fn(&Ident, &Ident) -> TokenStream| -> Vec<TokenStream> {
            names
                .iter()
                .zip(&slices)
                .zip(&args)
                .zip(&data)
                .map(|(((n, slice), arg), data)| {
                    if *data {
                        quote!(#arg)
                    } else if *slice {
                        quote!(&#n[..])
                    } else {
                        scalar(n, arg)
                    }
                })
                .collect()
        };
    let middle_args = pass(&middles, &|n, _| quote!(#n));
    let plain_args = pass(
        &plains,
        &|_, x| quote!(#x.#to_float().unwrap_or(#float_ty::NAN)),
    );
    let kept_args = pass(&captured, &|_, x| quote!(#x));
    // `f(x₀ + h) - f(x₀)` (`taylor.rs` in autodiff-core): nothing without tangents; where `h² = 0`, the
    // registered gradient at the plain values times the steps; else `∫₀¹ ∇f(x₀ + t h)·h dt` by the
    // Gauss–Legendre rule exact for the powers of `h` that are not zero, `∇f` the gradient's copy (whose
    // calls of the function itself, if any, run with one order less, `budget`).
    let name = &item.sig.ident;
    let zero = quote!(<#scalar as ::autodiff::__private::Zero>::zero());
    let integral = quote! {{
        let __budget = ::autodiff::__private::budget(::autodiff::__private::steps_power(
            ::core::iter::empty() #(#all_steps)*
        ));
        match __budget.level() {
            0 => #zero,
            1 => {
                let #slope = ::autodiff::__private::lift::<#scalar, _>(#name(#(#plain_args,)* 1.0));
                #zero #(+ #increments)*
            }
            __level => ::autodiff::__private::gauss_legendre(__level + 1).iter().fold(#zero, |__acc, &(__t, __w)| {
                let __t = ::autodiff::__private::lit::<#scalar>(__t);
                #(#middles_at)*
                let #slope = #gradient_copy(#(#middle_args,)* ::autodiff::__private::One::one());
                __acc + ::autodiff::__private::lit::<#scalar>(__w) * (#zero #(+ #increments)*)
            }),
        }
    }};
    let params = sig
        .params
        .iter()
        .zip(&slices)
        .zip(&data)
        .map(|((p, slice), data)| {
            let a = &p.ident;
            if *data {
                let ty = &p.ty;
                quote!(#a: #ty)
            } else if *slice {
                quote!(#a: &[#scalar])
            } else {
                quote!(#a: #scalar)
            }
        });
    let vis = &item.vis;
    Some(quote! {
        #[doc(hidden)]
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        #gradient
        #lookups

        #[::autodiff::custom_gradient]
        #[doc(hidden)]
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        #vis fn #copy<#scalar: ::autodiff::__private::Float>(#(#params),*) -> (#scalar, impl Fn(#scalar) -> #gradient_ty) {
            use ::autodiff::__private::Float as _;
            #(#prelude)*
            let __value = ::autodiff::__private::lit::<#scalar>(
                #target(#(#plain_args),*) as f64,
            ) + #integral;
            (__value, move |dy: #scalar| #gradient_copy(#(#kept_args,)* dy))
        }
    })
}

/// Does the gradient `item` call the registered function (by its path `registered`, or by its last name
/// `last`)? And `item` with those calls written by the last name, which names the registration's companion
/// type (and so its generic copy) where the registration is.
fn calls_as_bare_name(
    item: &syn::ItemFn,
    registered: &syn::Path,
    last: &Ident,
) -> (bool, syn::ItemFn) {
    struct Rename<'a> {
        registered: String,
        last: &'a Ident,
        found: bool,
    }
    impl syn::visit_mut::VisitMut for Rename<'_> {
        fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
            syn::visit_mut::visit_expr_call_mut(self, call);
            if let syn::Expr::Path(p) = &mut *call.func {
                let written = p.path.to_token_stream().to_string();
                if p.qself.is_none() && (written == self.registered || p.path.is_ident(self.last)) {
                    self.found = true;
                    let last = self.last;
                    p.path = syn::parse_quote!(#last);
                }
            }
        }
    }
    let mut renamed = item.clone();
    let mut rename = Rename {
        registered: registered.to_token_stream().to_string(),
        last,
        found: false,
    };
    syn::visit_mut::VisitMut::visit_block_mut(&mut rename, &mut renamed.block);
    (rename.found, renamed)
}

/// For a registration by a path of two or more segments, how a call written with that path finds it: a
/// trait of the registration's own that gives `::autodiff::__private::Site` a method named after the path,
/// returning the companion (`companion::derivative_of` calls it where the trait is in scope).
///
/// ```text
/// // Input: #[gradient_of(libm::erf)] fn erf_vjp(..)   // Output (beside the companion `erf`):
///                                                      trait __autodiff_gradient_of__libm__erf {
///                                                          fn __autodiff_gradient_of__libm__erf(&self) -> erf;
///                                                      }
///                                                      impl __autodiff_gradient_of__libm__erf for Site { .. }
/// ```
fn by_path(target: &syn::Path, companion: &Ident, vis: &syn::Visibility) -> Option<TokenStream> {
    let method = crate::naming::registered_path(target)?;
    Some(quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, non_snake_case, dead_code)]
        #vis trait #method {
            fn #method(&self) -> #companion;
        }
        #[allow(non_snake_case)]
        impl #method for ::autodiff::__private::Site {
            #[inline(always)]
            fn #method(&self) -> #companion {
                #companion {}
            }
        }
    })
}

fn with_errors(item: &syn::ItemFn, errors: Errors) -> TokenStream {
    let errors = errors.finish().err().unwrap_or_default();
    quote!(#errors #item)
}

/// After an error in a `#[custom_gradient]` function whose shape is known: the errors, and the function as
/// callers see it, returning its value, with a body that is never run. The closure is not type-checked again,
/// so one mistake gives one error.
fn value_stub(
    value_fn: &syn::ItemFn,
    signature: Option<&Signature>,
    errors: Errors,
) -> TokenStream {
    let errors = errors.finish().err().unwrap_or_default();
    let (attrs, vis, sig) = (&value_fn.attrs, &value_fn.vis, &value_fn.sig);
    let stubs = crate::expand::complete_stubs(value_fn, signature, Args::default());
    quote! {
        #errors
        #(#attrs)*
        #[allow(unused_variables)]
        #vis #sig {
            ::core::panic!("`#[custom_gradient]` reported a compile error for this function")
        }
        #stubs
    }
}

/// After an error in the shape of a `#[custom_gradient]` function: the errors and the function unchanged.
fn fallback(item: &syn::ItemFn, errors: Errors) -> TokenStream {
    let errors = errors.finish().err().unwrap_or_default();
    quote!(#errors #item)
}

/// `(R, impl Fn(X) -> G)` → `(R, X, G)`.
fn split_return(item: &syn::ItemFn, errors: &mut Errors) -> Option<(Type, Type, Type)> {
    const SHAPE: &str =
        "a `#[custom_gradient]` function returns its value and the gradient closure: \
                         `-> (f64, impl Fn(f64) -> f64)`";
    let ReturnType::Type(_, ty) = &item.sig.output else {
        errors.spanned(&item.sig.ident, SHAPE);
        return None;
    };
    let Type::Tuple(pair) = &**ty else {
        errors.spanned(ty, SHAPE);
        return None;
    };
    if pair.elems.len() != 2 {
        errors.spanned(ty, SHAPE);
        return None;
    }
    let value = pair.elems[0].clone();
    let Type::ImplTrait(closure) = &pair.elems[1] else {
        errors.spanned(&pair.elems[1], SHAPE);
        return None;
    };
    let bound = closure.bounds.iter().find_map(|b| match b {
        syn::TypeParamBound::Trait(t) => t.path.segments.last().filter(|s| s.ident == "Fn"),
        _ => None,
    });
    let Some(syn::PathArguments::Parenthesized(fn_args)) = bound.map(|s| &s.arguments) else {
        errors.spanned(
            &pair.elems[1],
            "the gradient is a closure `impl Fn(dy) -> gradient` (`Fn`, so that it can be called more than once)",
        );
        return None;
    };
    if fn_args.inputs.len() != 1 {
        errors.spanned(
            &fn_args.inputs,
            "the gradient closure takes one argument: the output cotangent `dy`",
        );
        return None;
    }
    let gradient = match &fn_args.output {
        ReturnType::Type(_, g) => (**g).clone(),
        ReturnType::Default => {
            errors.spanned(
                fn_args,
                "the gradient closure returns the cotangents of the parameters: `-> f64`",
            );
            return None;
        }
    };
    Some((value, fn_args.inputs[0].clone(), gradient))
}

/// The closure written in the body's final `(value, |dy| ..)` must take one argument.
fn check_closure_arity(body: &syn::Block, errors: &mut Errors) {
    if let Some(syn::Stmt::Expr(syn::Expr::Tuple(t), None)) = body.stmts.last() {
        if let Some(syn::Expr::Closure(c)) = t.elems.iter().nth(1) {
            if c.inputs.len() != 1 {
                errors.spanned(
                    &c.inputs,
                    format!(
                        "the gradient closure takes one argument, the output cotangent `dy`, not {}",
                        c.inputs.len()
                    ),
                );
            }
        }
    }
}

/// The gradient the user returns must have one cotangent per differentiable parameter.
fn check_gradient_arity(sig: &Signature, gradient: &Type, name: &Ident, errors: &mut Errors) {
    let active = sig.active().count();
    let returned = match gradient {
        Type::Tuple(t) => t.elems.len(),
        _ => 1,
    };
    if active != returned {
        errors.spanned(
            gradient,
            format!(
                "the gradient has {returned} cotangent(s), but `{name}` has {active} differentiable parameter(s): \
                 return one per `f64`, `f32`, `T: Float`, slice or array parameter, as a tuple in declaration order"
            ),
        );
    }
}

/// A type as a comparable string.
fn normalized(ty: &Type) -> String {
    ty.to_token_stream().to_string().replace(' ', "")
}

/// The generated items of a function with a user-written gradient.
struct Items<'a> {
    item: &'a syn::ItemFn,
    sig: &'a Signature,
    /// Emitted inside the companion type (for `#[gradient_of]`), not beside the function.
    inside: bool,
}

impl<'a> Items<'a> {
    fn new(item: &'a syn::ItemFn, sig: &'a Signature) -> Self {
        Items {
            item,
            sig,
            inside: false,
        }
    }

    fn inside_companion(self) -> Self {
        Items {
            inside: true,
            ..self
        }
    }

    fn name(&self, suffix: &str) -> Ident {
        if self.inside {
            return Ident::new(&format!("__registered_{suffix}"), Span::mixed_site());
        }
        signature::derived_name(self.item, suffix)
    }

    fn signature(&self, name: Ident, extra: Option<TokenStream>, ret: TokenStream) -> TokenStream {
        self.sig.generated(self.item, &name, extra, ret)
    }

    fn vjp(&self, body: TokenStream, source: &str) -> TokenStream {
        let d_ret = Ident::new("d_ret", Span::mixed_site());
        let (ret, gradient) = (&self.sig.ret_ty, self.sig.gradient_type());
        let signature = self.signature(
            self.name("vjp"),
            Some(quote!(#d_ret: #ret)),
            quote!((#ret, #gradient)),
        );
        let doc = format!(
            " Reverse mode of `{}`: its value and {source} applied to the output cotangent `d_ret`.",
            self.item.sig.ident
        );
        quote!(#[doc = #doc] #[inline] #signature { #body })
    }

    fn grad(&self, body: TokenStream) -> Option<TokenStream> {
        if !self.sig.returns_scalar() {
            return None;
        }
        let (ret, gradient) = (&self.sig.ret_ty, self.sig.gradient_type());
        let signature = self.signature(self.name("grad"), None, quote!((#ret, #gradient)));
        let doc = format!(
            " The value and gradient of `{}`, from its custom gradient.",
            self.item.sig.ident
        );
        Some(quote!(#[doc = #doc] #signature { #body }))
    }

    /// `_grad_into`: `_grad`'s gradient copied into the caller's buffers.
    fn grad_into(&self) -> Option<TokenStream> {
        if !self.sig.returns_scalar() {
            return None;
        }
        let grad = Ident::new("grad", Span::mixed_site());
        let buffers_ty = self.sig.gradient_into_type();
        let signature = self.signature(
            self.name("grad_into"),
            Some(quote!(#grad: #buffers_ty)),
            self.sig.ret_ty.to_token_stream(),
        );
        let active: Vec<&signature::Param> = self.sig.active().collect();
        let parts: Vec<Ident> = (0..active.len())
            .map(|i| Ident::new(&format!("__part_{i}"), Span::mixed_site()))
            .collect();
        let buffers: Vec<Ident> = (0..active.len())
            .map(|i| Ident::new(&format!("__buffer_{i}"), Span::mixed_site()))
            .collect();
        let stores = active
            .iter()
            .zip(&parts)
            .zip(&buffers)
            .map(|((p, part), buffer)| {
                let label = p.ident.to_string();
                if p.array.is_some() {
                    quote!(::autodiff::__private::copy_into(#label, &mut #buffer[..], &#part[..]);)
                } else {
                    quote!(*#buffer = #part;)
                }
            });
        let as_tuple = |names: &[Ident]| match names {
            [one] => quote!(#one),
            many => quote!((#(#many,)*)),
        };
        let (parts_pattern, buffers_pattern) = (as_tuple(&parts), as_tuple(&buffers));
        let grad_fn = self.name("grad");
        let args = self.sig.params.iter().map(|p| &p.ident);
        let doc = format!(
            " The value of `{}`, with its gradient (from its custom gradient) written into the caller's buffers.",
            self.item.sig.ident
        );
        Some(quote! {
            #[doc = #doc]
            #signature {
                let (value, #parts_pattern) = #grad_fn(#(#args),*);
                let #buffers_pattern = #grad;
                #(#stores)*
                value
            }
        })
    }

    /// `_jvp` from the gradient: for each output, the inner product of its cotangents with the tangent.
    /// `prelude` binds `value` and `gradient` (a closure from the output cotangent).
    fn jvp(&self, prelude: TokenStream) -> TokenStream {
        let tangent = Ident::new("tangent", Span::mixed_site());
        let (ret, gradient_ty) = (&self.sig.ret_ty, self.sig.gradient_type());
        let signature = self.signature(
            self.name("jvp"),
            Some(quote!(#tangent: #gradient_ty)),
            quote!((#ret, #ret)),
        );
        let active: Vec<&signature::Param> = self.sig.active().collect();
        let inner = |g: &TokenStream| -> TokenStream {
            let terms: Vec<TokenStream> = active
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let (gi, ti) = if active.len() == 1 {
                        (g.clone(), tangent.to_token_stream())
                    } else {
                        let i = syn::Index::from(i);
                        (quote!(#g.#i), quote!(#tangent.#i))
                    };
                    if p.array.is_some() {
                        quote!(::autodiff::__private::dot(&#gi, &#ti))
                    } else {
                        quote!(#gi * #ti)
                    }
                })
                .collect();
            quote!(#(#terms)+*)
        };
        let body = match &self.sig.ret_kind {
            Kind::Tuple(kinds) => {
                // One call of the gradient per output, with that output's unit cotangent.
                let outputs = (0..kinds.len()).map(|i| {
                    let unit = kinds.iter().enumerate().map(|(j, k)| {
                        if i == j {
                            Emitter::one_of(k)
                        } else {
                            Emitter::zero_of(k)
                        }
                    });
                    let g = quote!(gradient((#(#unit,)*)));
                    let product = inner(&quote!(__row));
                    quote!({ let __row = #g; #product })
                });
                quote!((value, (#(#outputs,)*)))
            }
            Kind::Array => {
                // One call of the gradient per element of the output, with its unit cotangent.
                let product = inner(&quote!(__row));
                let row = quote!({
                    let mut __unit = ::autodiff::__private::zeros_like(&value);
                    __unit[__i] = ::autodiff::__private::One::one();
                    let __row = gradient(__unit);
                    #product
                });
                let fixed = matches!(self.sig.ret_ty, Type::Array(_));
                let tangents = if fixed {
                    quote!(::core::array::from_fn(|__i| #row))
                } else {
                    quote!((0..value.len()).map(|__i| #row).collect())
                };
                quote!({ let __tangents = #tangents; (value, __tangents) })
            }
            kind => {
                let one = Emitter::one_of(kind);
                let product = inner(&quote!(__row));
                quote!({ let __row = gradient(#one); (value, #product) })
            }
        };
        let doc = format!(
            " Forward mode of `{}`, from its gradient: the inner product of the output's cotangents with the tangent.",
            self.item.sig.ident
        );
        quote!(#[doc = #doc] #[inline] #[allow(clippy::redundant_closure_call)] #signature { #prelude #body })
    }

    fn slots(&self) -> Vec<Slot> {
        self.sig
            .params
            .iter()
            .map(|p| Slot {
                ident: p.ident.clone(),
                ty: p.ty.clone(),
                active: p.active,
                tangent_ty: p.differentiable.then(|| p.grad_ty.to_token_stream()),
                into: companion::IntoSlot::of(p, p.active),
            })
            .collect()
    }

    /// The companion type beside a `#[custom_gradient]` function.
    fn companion(&self, generic_copy: GenericCopy) -> TokenStream {
        let (vjp, jvp) = (self.name("vjp"), self.name("jvp"));
        let name = &self.item.sig.ident;
        // A function of float scalars overrides its forward code inside other custom gradients' closures,
        // which run on dual numbers only where it is generic (a function written for `f64` has its generic
        // copy for that, a custom function of its own).
        let float = &self.sig.ret_ty;
        let scalar = |p: &signature::Param| {
            p.active && p.array.is_none() && !p.by_ref && !p.output && {
                let ty = &p.ty;
                quote!(#ty).to_string() == quote!(#float).to_string()
            }
        };
        let is_float = matches!(float, Type::Path(t) if t.path.get_ident().is_some_and(|i| {
            signature::float_type_params(&self.item.sig.generics).contains(i)
        }));
        let extra = if is_float && !self.sig.params.is_empty() && self.sig.params.iter().all(scalar)
        {
            let params: Vec<Ident> = self.sig.params.iter().map(|p| p.ident.clone()).collect();
            crate::in_closure::override_items(
                &self.item.vis,
                name,
                &self.name("grad"),
                &self.item.sig.generics,
                &params,
                float,
            )
        } else {
            TokenStream::new()
        };
        companion::companion(&Companion {
            vis: &self.item.vis,
            name: &self.item.sig.ident,
            generics: &self.item.sig.generics,
            slots: &self.slots(),
            ret: self.sig.ret_ty.to_token_stream(),
            zero_ret: crate::expand::zero_ret(self.sig, &quote!(#name)),
            vjp: quote!(#vjp),
            jvp: quote!(#jvp),
            sweep_into: None,
            partial_sweeps: Vec::new(),
            own_sweep: None,
            extra,
            method: false,
            generic_copy,
            outputs: None,
            // A closure may change the cotangent as it likes (clip it, say).
            linear: false,
        })
    }

    /// The companion type `name` of a registered function, holding its derivatives.
    fn companion_of(
        &self,
        name: &Ident,
        derivatives: TokenStream,
        copy: Option<Ident>,
    ) -> TokenStream {
        let (vjp, jvp) = (self.name("vjp"), self.name("jvp"));
        companion::companion(&Companion {
            vis: &self.item.vis,
            name,
            generics: &self.item.sig.generics,
            slots: &self.slots(),
            ret: self.sig.ret_ty.to_token_stream(),
            zero_ret: crate::expand::zero_ret(self.sig, &quote!(Self::__registered_target)),
            vjp: quote!(Self::#vjp),
            jvp: quote!(Self::#jvp),
            sweep_into: None,
            partial_sweeps: Vec::new(),
            own_sweep: None,
            extra: derivatives,
            method: false,
            // A registered function generic over its float type is its own generic copy; one written
            // for `f64` (`libm::erf`) has none: its body is not the macro's to copy.
            generic_copy: if let Some(copy) = copy {
                GenericCopy::Copy(copy)
            } else if signature::float_type_params(&self.item.sig.generics).is_empty() {
                GenericCopy::Fallback {
                    why: "its derivative is registered with `#[gradient_of]`, and its body, outside the \
                          macro's reach, cannot be run on dual numbers"
                        .into(),
                }
            } else {
                let target = Ident::new("__registered_target", Span::mixed_site());
                GenericCopy::Itself(quote!(Self::#target))
            },
            outputs: None,
            // A closure may change the cotangent as it likes (clip it, say).
            linear: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forgotten(item: syn::ItemFn) -> Option<ForgottenCotangent> {
        let ReturnType::Type(_, gradient) = &item.sig.output else {
            panic!("a return type");
        };
        forgotten_cotangent(&item, gradient)
    }

    fn shaped(item: syn::ItemFn) -> Option<(String, String)> {
        let ReturnType::Type(_, gradient) = &item.sig.output else {
            panic!("a return type");
        };
        custom_shaped(&item, gradient).map(|meant| {
            let sig = &meant.item.sig;
            (quote!(#sig).to_string(), shown(&meant.gradient))
        })
    }

    #[test]
    fn a_registration_in_custom_gradient_shape_is_read_as_meant() {
        let (sig, gradient) = shaped(syn::parse_quote!(
            fn g(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
                (x * y, move |dy| (dy * y, dy * x))
            }
        ))
        .expect("custom shape");
        assert_eq!(
            sig,
            quote!(fn g(x: f64, y: f64, dy: f64) -> (f64, f64)).to_string()
        );
        assert_eq!(gradient, "(f64, f64)");
        // The registration's own shapes are not it.
        assert!(shaped(syn::parse_quote!(
            fn g(x: f64, y: f64, dy: f64) -> (f64, f64) {
                (dy * y, dy * x)
            }
        ))
        .is_none());
        assert!(shaped(syn::parse_quote!(
            fn g(x: f64, dy: f64) -> f64 {
                dy
            }
        ))
        .is_none());
    }

    #[test]
    fn a_registration_with_dy_is_not_missing_it() {
        assert!(forgotten(syn::parse_quote!(
            fn v(x: f64, dy: f64) -> f64 {
                dy
            }
        ))
        .is_none());
        assert!(forgotten(syn::parse_quote!(
            fn v(x: f64, y: f64, dy: f64) -> (f64, f64) {
                (dy, dy)
            }
        ))
        .is_none());
        // Too many cotangents, `dy` there: the count is the mistake, said elsewhere.
        assert!(forgotten(syn::parse_quote!(
            fn v(x: f64, dy: f64) -> (f64, f64) {
                (dy, dy)
            }
        ))
        .is_none());
        assert!(forgotten(syn::parse_quote!(
            fn v(x: &[f64], d_out: f64) -> (Vec<f64>, f64) {
                (x.to_vec(), d_out)
            }
        ))
        .is_none());
    }

    #[test]
    fn one_cotangent_per_parameter_lacks_dy() {
        let found = forgotten(syn::parse_quote!(
            fn v(x: f64, y: f64) -> (f64, f64) {
                (y, x)
            }
        ))
        .unwrap();
        assert_eq!(found.params, "x: f64, y: f64");
        assert_eq!(shown(&found.dy_ty), "f64");
        assert!(found.data_last.is_none());
        let found = forgotten(syn::parse_quote!(
            fn v<T: Float>(x: &[T]) -> Vec<T> {
                x.to_vec()
            }
        ))
        .unwrap();
        assert_eq!(shown(&found.dy_ty), "T");
    }

    #[test]
    fn an_integer_last_is_not_dy() {
        let found = forgotten(syn::parse_quote!(
            fn v(x: f32, k: i32) -> f32 {
                x
            }
        ))
        .unwrap();
        assert_eq!(found.data_last.as_deref(), Some("k: i32"));
        assert_eq!(shown(&found.dy_ty), "f32");
        // No float parameter at all: nothing to say what `dy` is.
        assert!(forgotten(syn::parse_quote!(
            fn v(k: i32) -> f64 {
                0.0
            }
        ))
        .is_none());
    }
}
