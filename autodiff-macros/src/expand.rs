//! The pipeline of `#[differentiable]`: parse, check, lower, analyse, emit. On any error the original
//! function is emitted unchanged beside stubs of the generated items, so a mistake gives its own error and
//! not a cascade of unresolved names at every call site (thiserror's `fallback.rs`).

use crate::activity::{self, Activity};
use crate::args::Args;
use crate::emit::{tuple_or_single, Emitter};
use crate::errors::Errors;
use crate::ir::Function;
use crate::signature::{self, Signature};
use crate::structs::{self, Flattened};
use crate::{chains, companion, fence, forward, lower, maybe, naming, reverse};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::borrow::Cow;

/// Expands `#[differentiable(attr)] item`.
pub(crate) fn differentiable(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    // On a trait's `impl`: its methods' derivatives beside it (`impls.rs`).
    if let Ok(block) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        return crate::impls::expand(attr, block);
    }
    let args = syn::parse2::<Args>(attr).unwrap_or_else(|e| {
        errors.push(e);
        Args::default()
    });
    let mut item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new_spanned(
                first_token(&item),
                "`#[differentiable]` applies to a function (free, associated or a method), or to the \
                 `impl` block of a trait whose methods it differentiates: `fn f(x: f64) -> f64 { .. }`",
            );
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    crate::invisible::unwrap_groups(&mut item);
    // A method of a trait's `impl` whose block has no `#[differentiable]` of its own: its generated items
    // cannot stand in it (`impls.rs`).
    // On a trait's provided method, an error: an `impl` that overrides the method would keep derivatives
    // of the provided body.
    if !args.in_impl && !args.of_trait {
        if let Some(block) = crate::context::written_in_trait_block(&item.sig.ident) {
            let error = crate::impls::in_trait_block(&item, &block);
            return quote!(#error #item);
        }
    }
    // Where the function stands, for `is_method`: the source around the attribute, or the hidden argument
    // of a copy the macro writes into an `impl` (a copy made in this expansion stands where its original
    // does).
    let _scope = crate::context::enter(
        args.in_impl || args.of_trait || crate::context::written_in_impl(&item.sig.ident),
    );
    // Tuple parameters holding arrays: through a copy taking their parts (`tuples.rs`), which callers
    // call with the parts.
    crate::tuples::pass_parts(&mut item);
    let found = method_derivative_marker(&item);
    if crate::tuples::applies(&item) {
        let expanded = crate::tuples::expand(&item, args, errors, expand_fn);
        return quote!(#expanded #found);
    }
    let expanded = expand_fn(args, item, errors);
    quote!(#expanded #found)
}

/// For a method (or associated function) `g` written by the user, not a copy the macro made
/// (`__g_generic`), the marker `Self::__g_found()` that says `g` has derivatives, which the check at a
/// caller's call asks for (`companion::method_or_fallback`); emitted also where the body has an error (whose
/// callers then get no second one).
fn method_derivative_marker(item: &syn::ItemFn) -> Option<TokenStream> {
    let name = &item.sig.ident;
    if naming::unraw(name).starts_with("__") || !is_method(item) {
        return None;
    }
    let (vis, found) = (&item.vis, naming::method_derivative_marker(name));
    let by_name = naming::method_derivative_marker_by_name(name);
    // By the type's name in a generic `impl`: of the `impl`'s float type, which the literal makes `f64`.
    let own = signature::float_type_params(&item.sig.generics);
    let argument = match float_params_with_impl(item)
        .into_iter()
        .find(|t| !own.contains(t))
    {
        Some(float) => quote!((_: #float)),
        None => quote!(<__A>(_: __A)),
    };
    Some(quote! {
        #[doc(hidden)]
        #[inline(always)]
        #[allow(dead_code)]
        #vis fn #found() -> ::autodiff::__private::Found {
            ::autodiff::__private::Found
        }
        #[doc(hidden)]
        #[inline(always)]
        #[allow(dead_code)]
        #vis fn #by_name #argument -> ::autodiff::__private::Found {
            ::autodiff::__private::Found
        }
    })
}

/// Expands `item` under `#[differentiable(args)]`, with the errors found in the attribute. On an error,
/// the errors, the function as written and stubs of every item its expansion would emit
/// (`complete_stubs`).
fn expand_fn(args: Args, item: syn::ItemFn, errors: Errors) -> TokenStream {
    let stub_args = args.clone();
    // A trait's method copied into an inherent `impl` (`impls.rs`) is emitted in the trait's `impl`.
    let with_primal = !args.of_trait;
    match try_expand(args, item.clone(), errors, with_primal) {
        Ok(expanded) => expanded,
        Err(Failed { errors, sig }) => {
            let stubs = complete_stubs(&item, sig.as_deref(), stub_args);
            let item = with_primal.then_some(&item);
            quote!(#errors #item #stubs)
        }
    }
}

/// What an expansion that found errors hands back: the errors, and the signature where it had none.
struct Failed {
    errors: TokenStream,
    sig: Option<Box<Signature>>,
}

/// Stand-ins for every item the expansion of `item` under `#[differentiable(args)]` emits beside it, after
/// an error in its body: a caller's generated code names more than `f_grad`, `f_vjp` and `f_jvp` (the
/// generic copy `__f_generic` and its items, a method's `__f_vjp_into`, the hidden `__f_whole` of a
/// function of parameter structs, `f_hessian` at `order = K`), so that one mistake gives one error.
///
/// Where the signature is known, they are the items of the same function with a body that surely
/// expands (`stand_in_body`: a zero of the return type, the output parameters read as the real body reads
/// them), so they have the real signatures and names, whatever the expansion emits; their bodies are never
/// run, since the crate does not compile. Otherwise, the hand-written stubs of `stubs`.
///
/// Input:  #[differentiable(order = 2)] fn f(x: f64) -> f64 { x.fract() }   (an error)
/// Output: fn f(x: f64) -> f64 { x.fract() }  + the items of `fn f(x: f64) -> f64 { 0.0 }` but `f` itself
pub(crate) fn complete_stubs(
    item: &syn::ItemFn,
    sig: Option<&Signature>,
    args: Args,
) -> TokenStream {
    // The items of a differentiated parameter struct need it to derive `Differentiable`: only where the
    // user asked for that (`wrt(self)`, `wrt(p)`), not for a type taken for a struct by default (an enum
    // the body uses otherwise than by `match`, whose error says so): one error.
    let asked = |p: &crate::signature::Param| {
        !matches!(p.kind, crate::ir::Kind::Struct(_))
            || !p.active
            || args.wrt.as_ref().is_some_and(|wrt| wrt.contains(&p.ident))
    };
    // A receiver that writes `self` (`mut self`, `&mut self`) is the one error: the stand-ins are those of
    // the method taking `self` or `&self`, of the same shapes, so that its callers get none.
    if let (None, Some(read_only)) = (sig, read_only_receiver(item)) {
        let mut errors = Errors::default();
        let sig = signature::analyze(&impl_float_params(&read_only), &args, &mut errors);
        if let Some(sig) = sig.filter(|_| errors.len() == 0) {
            return complete_stubs(&read_only, Some(&sig), args);
        }
    }
    let order = args.order.clone();
    let stand_in = sig
        .filter(|sig| sig.params.iter().all(asked))
        .and_then(|sig| {
            let block = stand_in_body(item, sig)?;
            let stand_in = with_block(item, block);
            try_expand(args, stand_in, Errors::default(), false).ok()
        });
    stand_in.unwrap_or_else(|| stubs(item, sig, order.as_ref()))
}

/// `item` taking `self` for `mut self` and `&self` for `&mut self`; `None` where its receiver (if any) writes
/// nothing.
fn read_only_receiver(item: &syn::ItemFn) -> Option<syn::ItemFn> {
    let mut item = item.clone();
    let Some(syn::FnArg::Receiver(r)) = item.sig.inputs.first_mut() else {
        return None;
    };
    let mut changed = r.mutability.take().is_some();
    if let syn::Type::Reference(reference) = &mut *r.ty {
        changed |= reference.mutability.take().is_some();
    }
    changed.then_some(item)
}

/// A body for the signature of `item` that every pass accepts: each output parameter whose incoming value
/// the real body reads (`sig`) read and written back (so it stays an input), then a zero of the return
/// type; `None` for a return type it cannot write a zero of.
fn stand_in_body(item: &syn::ItemFn, sig: &Signature) -> Option<syn::Block> {
    let floats = signature::float_type_params(&impl_float_params(item).sig.generics);
    let value = match &item.sig.output {
        syn::ReturnType::Default => quote!(),
        syn::ReturnType::Type(_, ty) => zero_of_type(ty, &floats)?,
    };
    let reads = sig.params.iter().filter(|p| p.output && p.active).map(|p| {
        let out = &p.ident;
        match p.scalar {
            true => quote!(*#out = *#out;),
            false => quote!(#out[0] = #out[0];),
        }
    });
    // A value of a type of the user's that the real body only matches on or compares (`mode: Mode`) is
    // data; matched on here too, so that the stand-in takes it so (unused, it would be a parameter
    // struct, and rustc's "`Mode` is not `Differentiable`" would follow the body's one error).
    let data = sig.params.iter().filter(|p| {
        !p.active
            && matches!(p.kind, crate::ir::Kind::Unknown)
            && signature::struct_type(&p.ty, &item.sig.generics).is_some()
    });
    let matched = data.map(|p| {
        let name = &p.ident;
        quote!(match #name { _ => {} })
    });
    Some(syn::parse_quote!({ #(#matched)* #(#reads)* #value }))
}

/// A zero of the type `ty` written as a body would (`0.0`, `T::zero()`, tuples and arrays of them,
/// `vec![0.0; 0]`), if `ty` is made of floats.
pub(crate) fn zero_of_type(ty: &syn::Type, floats: &[Ident]) -> Option<TokenStream> {
    match ty {
        syn::Type::Paren(p) => zero_of_type(&p.elem, floats),
        syn::Type::Group(g) => zero_of_type(&g.elem, floats),
        syn::Type::Tuple(t) => {
            let items = t
                .elems
                .iter()
                .map(|e| zero_of_type(e, floats))
                .collect::<Option<Vec<_>>>()?;
            Some(quote!((#(#items,)*)))
        }
        syn::Type::Array(a) => {
            let (item, len) = (zero_of_type(&a.elem, floats)?, &a.len);
            Some(quote!([#item; #len]))
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            match &last.arguments {
                syn::PathArguments::None if p.path.get_ident().is_some() => {
                    let ident = &last.ident;
                    if ident == "f64" || ident == "f32" {
                        Some(quote!(0.0))
                    } else if floats.contains(ident) {
                        Some(quote!(#ident::zero()))
                    } else {
                        None
                    }
                }
                syn::PathArguments::AngleBracketed(args) if last.ident == "Vec" => {
                    let Some(syn::GenericArgument::Type(elem)) = args.args.first() else {
                        return None;
                    };
                    let item = zero_of_type(elem, floats)?;
                    Some(quote!(vec![#item; 0]))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Expands `item` under `#[differentiable(args)]` (the function itself too, where `primal`), or hands back
/// the errors found.
fn try_expand(
    args: Args,
    item: syn::ItemFn,
    mut errors: Errors,
    with_primal: bool,
) -> Result<TokenStream, Failed> {
    let before_signature = errors.len();
    // A method of a generic `impl` sees the `impl`'s float type parameter undeclared: the analysis
    // declares it (`impl_float_params`); the generated items keep the user's generics.
    let analysis_item = impl_float_params(&item);
    let sig = signature::analyze(&analysis_item, &args, &mut errors);
    // `order = K` on a function whose result is not one float (`-> [f64; 2]`, `-> Vec<f64>`, `-> (f64, f64)`,
    // `()` with output parameters): its items are those of the first order (API.md: `f_hvp`, `f_hessian`
    // and `f_derivatives` are emitted for a float-scalar output, and `order = K` works on every function
    // whose first order works). A caller with `order = K` differentiates through it all the same, by its
    // generic copy.
    let args = match &sig {
        Some(sig) if !sig.returns_scalar() && args.order.is_some() => Args {
            order: None,
            ..args
        },
        _ => args,
    };
    if let Some(sig) = sig.as_ref().filter(|_| errors.len() == before_signature) {
        if sig.active().count() == 0 {
            errors.spanned(
                &item.sig.ident,
                format!(
                    "no parameter of `{}` is differentiated: `#[differentiable]` needs a parameter of type \
                     `f64`, `f32`, a type parameter bounded by `Float`, or a slice, `Vec` or array of them \
                     (and `wrt(..)`, if given, must name one)",
                    item.sig.ident
                ),
            );
        }
    }
    // The stubs can have the real signature only if the signature had no error.
    let shapes_known = errors.len() == 0;
    // The generated items are built from the body with its iterator chains and closures rewritten into
    // loops; `f` itself is emitted as written.
    let mut chains_desugared = chains::desugar(&item, &mut errors);
    // `p.energy(x)` of a parameter struct: `Model::energy(p, x)` (`method_paths.rs`).
    if let Some(sig) = &sig {
        crate::method_paths::rewrite(&mut chains_desugared.block, sig);
    }
    // `T::from(p.k as f64)`: `T::from(p.k)` (`from_casts.rs`).
    crate::from_casts::rewrite(
        &mut chains_desugared.block,
        &signature::float_type_params(&analysis_item.sig.generics),
    );
    // A generic copy's calls by a path, in the form the later passes read.
    crate::shadow::read_copy_calls(&mut chains_desugared.block);
    // A float output `y: &mut T` is a slice of one element in the generated code: `*y` is `y[0]`.
    let desugared: Cow<syn::ItemFn> = match &sig {
        Some(sig) if sig.params.iter().any(|p| p.scalar) => Cow::Owned(with_block(
            &chains_desugared,
            signature::scalar_outputs_as_slices(&chains_desugared.block, sig),
        )),
        _ => Cow::Borrowed(&chains_desugared),
    };
    // Parameter structs: their fields become inputs of their own (`structs.rs`).
    // In the generic copy of a method with a constant `self`, they are read in its float type.
    let lift = args
        .lift_fields
        .then(|| signature::float_type_params(&analysis_item.sig.generics).pop())
        .flatten();
    let flat = sig
        .as_ref()
        .and_then(|sig| structs::flatten(&desugared.block, sig))
        .map(|flat| flat.lifting(lift.clone()));
    let flat_body = flat
        .as_ref()
        .map(|flat| with_block(&desugared, flat.block.clone()));
    let body = flat_body.as_ref().unwrap_or(&*desugared);
    let before_fields = errors.len();
    if let Some(flat) = &flat {
        flat.check_matrix_fields(&mut errors);
    }
    // A matrix field bound first (`let w = &self.w;`) is that error alone, not also the reference's.
    if errors.len() == before_fields {
        fence::check(&body.block, &mut errors);
    }
    let inner = flat.as_ref().map(|flat| &flat.inner).or(sig.as_ref());
    // A body the fence rejected is not lowered: lowering would report the same constructs again.
    let analysed = inner.filter(|_| errors.len() == 0).map(|inner| {
        let float_params = signature::float_type_params(&analysis_item.sig.generics);
        let f = lower::lower(body, inner, float_params.clone(), &mut errors);
        let activity = activity::analyze(&f, inner, &float_params, &mut errors);
        // What the sweeps could not emit is found here, before them, so that it is the only error.
        for error in reverse::unsized_region_arrays(&f, &activity) {
            errors.push(error);
        }
        (f, activity)
    });
    // Nothing is emitted from a body with an error: its stubs stand in for the generated items.
    let analysed = analysed.filter(|_| errors.len() == 0);
    let higher = match (&sig, &args.order, &analysed, &flat) {
        (Some(sig), Some(order), Some((f, activity)), Some(flat)) => {
            let higher = order.base10_parse::<usize>().is_ok_and(|k| k >= 2);
            let bounded = with_struct_bounds(&item, &analysis_item, true);
            let s = crate::struct_higher::StructFunction {
                item: &item,
                analysis_item: &analysis_item,
                bounded: &bounded,
                sig,
                flat,
                written: &written_block(&chains_desugared, sig, flat),
                lowered: f,
                activity,
            };
            if higher {
                crate::struct_higher::items(&s, order, &mut errors)
            } else {
                crate::struct_whole::first_order(&s)
            }
        }
        // Without `order = K`, the hidden function over the structs' values views that `order = K`
        // callers that pass the structs on whole reach (`struct_whole.rs`).
        (Some(sig), None, Some((f, activity)), Some(flat)) => {
            let bounded = with_struct_bounds(&item, &analysis_item, true);
            crate::struct_whole::first_order(&crate::struct_higher::StructFunction {
                item: &item,
                analysis_item: &analysis_item,
                bounded: &bounded,
                sig,
                flat,
                written: &written_block(&chains_desugared, sig, flat),
                lowered: f,
                activity,
            })
        }
        (Some(sig), Some(order), Some((f, own)), None) => {
            // The copy's companion differentiates through every float parameter, also those `wrt(..)`
            // leaves out (`__vjp_all`): a call is plain only where none of them reaches it.
            let float_params = signature::float_type_params(&analysis_item.sig.generics);
            let activity =
                &activity::analyze(f, &all_active(sig), &float_params, &mut Errors::default());
            let mut plain = plain_calls(f, activity, sig);
            // Calls that only parameters outside `wrt(..)` reach: the copy's or the callee as written
            // (`maybe::CopyCall`).
            // (In a free function: a method's first order needs the callee's derivatives there.)
            if !is_method(&item) {
                plain.extend(maybe::copy_calls(
                    f,
                    own,
                    activity,
                    plain_calls_of_values(f, own, sig),
                    &plain,
                ));
            }
            let active = calls_of(f, activity, true)
                .into_iter()
                .filter(|c| !plain.iter().any(|p| p.callee == *c))
                .collect();
            let calls = crate::shadow::CopyCalls {
                active,
                plain,
                by_path: false,
                float_results: true,
            };
            // The generic copy is made of the body as written (`*y` of a float output stays `*y`: the
            // copy's own expansion reads it as `y[0]`).
            crate::higher::items(&chains_desugared, sig, &args, order, &calls, &mut errors)
        }
        _ => TokenStream::new(),
    };
    match (errors.finish(), sig, analysed) {
        (Ok(()), Some(sig), Some((f, activity))) => {
            // (The constant structs of a generic copy with `__lift_fields` hold no float type parameter.)
            let generics_item = with_struct_bounds(
                &desugared,
                &analysis_item,
                flat.is_some() && !args.lift_fields,
            );
            let generated = Generated::new(&generics_item, &sig, flat.as_ref(), &f, &activity);
            let generated = Generated {
                float_params: signature::float_type_params(&analysis_item.sig.generics),
                copy: args.copy,
                ..generated
            };
            let (grad, grad_into, jacobian) = if args.copy {
                (None, None, None)
            } else {
                (
                    generated.grad(),
                    generated.grad_into(),
                    // Matrix parameters' columns are flattened row-major, parameter structs' as their flat
                    // view; in a generic `impl`, with the bounds the items it calls have.
                    crate::jacobian::jacobian(
                        &with_struct_bounds(&item, &analysis_item, flat.is_some()),
                        &sig,
                    ),
                )
            };
            let name = &item.sig.ident;
            let (generic_copy, copy) = if generated.method && args.struct_whole {
                // A method has no companion type; its copy is `Self::__f_generic`, which callers name.
                let calls = first_order_copy_calls(
                    &f,
                    &activity,
                    flat.as_ref().map_or(&sig, |flat| &flat.inner),
                    &generated.float_params,
                    false,
                );
                // Where it has none, the fallback's associated functions under the copy's names: the
                // copies of the hidden functions over the same structs (`__f_pairs`) call
                // `Self::____f_whole_generic`, which must exist (rustc's E0282 on a stand-in otherwise).
                let (kind, copy) =
                    first_order_generic_copy(&chains_desugared, &args, &sig, None, &calls);
                match kind {
                    companion::GenericCopy::Fallback { why } => {
                        (companion::GenericCopy::Fallback { why }, copy)
                    }
                    _ => (companion::GenericCopy::Missing, copy),
                }
            } else if generated.method {
                let calls = first_order_copy_calls(
                    &f,
                    &activity,
                    flat.as_ref().map_or(&sig, |flat| &flat.inner),
                    &generated.float_params,
                    false,
                );
                method_generic_copy(&chains_desugared, &args, &sig, flat.as_ref(), &calls)
            } else if !generated.float_params.is_empty() {
                (
                    companion::GenericCopy::Itself(quote!(#name)),
                    TokenStream::new(),
                )
            } else if !higher.is_empty() && flat.is_none() {
                // `order = K` emitted the copy (`higher::through_shadow`); a function of a parameter struct
                // has none (`struct_higher.rs`): it takes the fallback below.
                let copy = naming::generic_copy(name);
                (companion::GenericCopy::Copy(copy), TokenStream::new())
            } else {
                let calls = first_order_copy_calls(
                    &f,
                    &activity,
                    flat.as_ref().map_or(&sig, |flat| &flat.inner),
                    &generated.float_params,
                    flat.is_none(),
                );
                first_order_generic_copy(&chains_desugared, &args, &sig, flat.as_ref(), &calls)
            };
            // The sweeps of the generic copy made here, at the written float type, stand for the
            // function's own: the same code, emitted once (`Generated::through_copy`).
            let through = match &generic_copy {
                companion::GenericCopy::Copy(name) if !copy.is_empty() => {
                    generated.through_copy(name)
                }
                _ => None,
            };
            let generated = Generated {
                through,
                ..generated
            };
            // A copy made without being asked is reached only through its companion, which runs the
            // hidden `__vjp_all` and `__jvp_all` where `wrt(..)` or output parameters restrict `f_vjp`.
            let (vjp, jvp) = match args.copy && generated.restricted() {
                true => (TokenStream::new(), TokenStream::new()),
                false => (generated.vjp(), generated.jvp()),
            };
            // The generic copies of `f_grad`, `f_vjp`, `f_jvp` and `f_hvp`, which the copies of custom
            // functions calling them call (`derivative_copies.rs`).
            let derivative_copies = derivative_copies(
                &item,
                &sig,
                &args,
                &generic_copy,
                flat.is_none() && !generated.method,
                (grad.is_some(), !vjp.is_empty(), !jvp.is_empty()),
                !higher.is_empty(),
            );
            let companion = generated.companion(generic_copy);
            // What a caller outside a generic `impl` calls by the type's name (`S::g(x)`) at `order = K`;
            // and, of one generic over a float type of its own, what the copies of the methods of its
            // `impl` call (`Self::g(x)`: `shadow::why_no_copy` counts on every differentiable associated
            // function having `Self::__g_generic`).
            let by_name = (generated.method
                && flat.is_none()
                && !args.copy
                && !args.lift_fields
                && !args.struct_whole
                && item.sig.receiver().is_none()
                && !item.sig.ident.to_string().starts_with("__")
                && !generated.float_params.is_empty())
            .then(|| generated.by_name_copy());
            let mut primal = primal(&item);
            // A generic copy's calls of other methods' copies, checked (`companion::CheckedHiddenCalls`).
            if item.sig.ident.to_string().starts_with("__") {
                syn::visit_mut::VisitMut::visit_block_mut(
                    &mut crate::companion::CheckedHiddenCalls,
                    &mut primal.to_mut().block,
                );
            }
            // A generic copy with `__lift_fields` reads its fields in its float type, as its derivatives do
            // (in the body as written: a float output `*e` stays `*e`).
            let written = flat
                .as_ref()
                .filter(|_| args.lift_fields)
                .and_then(|_| structs::flatten(&chains_desugared.block, &sig));
            if let Some(written) = written {
                let mut body = written.lifting(lift).body_with_fields(&sig);
                // Its calls of copies by a path as the primal makes them (`read_copy_calls` made them
                // `<P as GenericCopy>::Copy::call`).
                crate::shadow::write_copy_calls(&mut body);
                // Its calls of other methods' copies, checked as above (`self.g(x)` of a method without
                // derivatives is then the one error at the call).
                syn::visit_mut::VisitMut::visit_block_mut(
                    &mut crate::companion::CheckedHiddenCalls,
                    &mut body,
                );
                *primal.to_mut().block = body;
            }
            let primal = with_primal.then_some(primal);
            // What `order = K` callers passing a struct's field on whole call (`struct_whole.rs`).
            let pairs =
                match flat.is_none() && !args.copy && !args.lift_fields && !args.struct_whole {
                    true => crate::struct_whole::pairs::plain(&item, &sig),
                    false => TokenStream::new(),
                };
            let mut expansion = quote!(#primal #grad #grad_into #vjp #jvp #jacobian #companion #derivative_copies #by_name #copy #higher #pairs);
            // Every free function that a caller in its module may pass a field on whole to has `__f_pairs`,
            // real or a stand-in never run (`struct_whole::first_order`, which reads the callee from the
            // source and asks `promises_pairs` of it), so that such a caller's first order builds whatever
            // it calls.
            let own = !args.copy && !args.lift_fields && !args.struct_whole;
            // (An associated function's, beside it in its `impl`: a method passing a field on whole
            // to `Self::h` calls `Self::__h_pairs`.)
            let placed = match is_method(&item) {
                true => item.sig.receiver().is_none(),
                false => crate::context::written_in_module(&item.sig.ident),
            };
            if own
                && crate::struct_whole::promises_pairs(&item)
                && placed
                && !defines_fn(&expansion, &crate::naming::pairs_function(&item.sig.ident))
            {
                expansion.extend(crate::struct_whole::pairs_stand_ins(&item, &sig));
            }
            Ok(expansion)
        }
        (result, sig, _) => Err(Failed {
            errors: result.err().unwrap_or_default(),
            sig: sig.filter(|_| shapes_known).map(Box::new),
        }),
    }
}

/// The generic copies of the derivatives generated for `item` (`derivative_copies.rs`): of a free function
/// (`free`: not a method, no parameter struct) that is no copy itself and has a generic copy (its own, the
/// fallback of one without, or itself if generic over its float type). `(grad, vjp, jvp)`: which of
/// `f_grad`, `f_vjp` and `f_jvp` it has; `higher`: `order = K` emitted `f_hvp`.
fn derivative_copies(
    item: &syn::ItemFn,
    sig: &Signature,
    args: &Args,
    generic_copy: &companion::GenericCopy,
    free: bool,
    (grad, vjp, jvp): (bool, bool, bool),
    higher: bool,
) -> TokenStream {
    // (Not of a hidden function the macro made, `__f_pairs`: a custom function calls none.)
    let hidden = item.sig.ident.to_string().starts_with("__");
    if !free || hidden || args.copy || args.lift_fields || args.struct_whole {
        return TokenStream::new();
    }
    let name = &item.sig.ident;
    let (float, hvp) = match generic_copy {
        companion::GenericCopy::Itself(_) => (None, Some(format_ident!("{}_hvp", name))),
        companion::GenericCopy::Copy(copy) => (
            crate::shadow::written_float(item),
            Some(format_ident!("{}_hvp", copy)),
        ),
        companion::GenericCopy::Fallback { .. } => (crate::shadow::written_float(item), None),
        _ => return TokenStream::new(),
    };
    if float.is_none() && !matches!(generic_copy, companion::GenericCopy::Itself(_)) {
        return TokenStream::new();
    }
    crate::derivative_copies::items(&crate::derivative_copies::Derivatives {
        item,
        sig,
        float,
        grad,
        vjp,
        jvp,
        hvp: hvp.filter(|_| higher && matches!(sig.ret_kind, crate::ir::Kind::Float(_))),
    })
}

/// Does `tokens` define `fn name` at its top level?
fn defines_fn(tokens: &TokenStream, name: &Ident) -> bool {
    let mut after_fn = false;
    for token in tokens.clone() {
        match token {
            proc_macro2::TokenTree::Ident(ident) if after_fn && ident == *name => return true,
            proc_macro2::TokenTree::Ident(ident) => after_fn = ident == "fn",
            _ => after_fn = false,
        }
    }
    false
}

/// The flattened body of `item` as written, a float output's `*e` kept (`flat`'s has `e[0]`): the hidden
/// functions of `struct_higher.rs` and `struct_whole.rs`, expanded again, read their outputs themselves.
fn written_block(item: &syn::ItemFn, sig: &Signature, flat: &Flattened) -> syn::Block {
    structs::flatten(&item.block, sig).map_or_else(|| flat.block.clone(), |written| written.block)
}

/// `item` with `block` for its body (cloning the rest only).
fn with_block(item: &syn::ItemFn, block: syn::Block) -> syn::ItemFn {
    syn::ItemFn {
        attrs: item.attrs.clone(),
        vis: item.vis.clone(),
        sig: item.sig.clone(),
        block: Box::new(block),
    }
}

/// The function as written, but for the `fn` items nested in its body that carry an attribute of this
/// crate: expanded in place (`lower::expand_nested_fn`, which says why). The generic copy of a function
/// (`shadow.rs`) calls its nested functions' companions, so its nested functions carry the attribute.
/// The function itself, not a copy, where its body nests no `fn`.
pub(crate) fn primal(item: &syn::ItemFn) -> Cow<'_, syn::ItemFn> {
    struct FindNested(bool);
    impl<'a> syn::visit::Visit<'a> for FindNested {
        fn visit_stmt(&mut self, stmt: &'a syn::Stmt) {
            match stmt {
                syn::Stmt::Item(syn::Item::Fn(_)) => self.0 = true,
                syn::Stmt::Item(_) => {}
                other => syn::visit::visit_stmt(self, other),
            }
        }
    }
    let mut find = FindNested(false);
    syn::visit::Visit::visit_block(&mut find, &item.block);
    if !find.0 {
        return Cow::Borrowed(item);
    }
    struct Nested;
    impl syn::visit_mut::VisitMut for Nested {
        fn visit_stmt_mut(&mut self, stmt: &mut syn::Stmt) {
            match stmt {
                syn::Stmt::Item(syn::Item::Fn(f)) => {
                    *stmt = syn::Stmt::Item(lower::expand_nested_fn(f));
                }
                syn::Stmt::Item(_) => {}
                other => syn::visit_mut::visit_stmt_mut(self, other),
            }
        }
    }
    let mut item = item.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut Nested, &mut item.block);
    Cow::Owned(item)
}

fn first_token(tokens: &TokenStream) -> TokenStream {
    tokens.clone().into_iter().take(1).collect()
}

/// For a function written for `f64` (or `f32`) without `order = K`: its generic copy `__f_generic`
/// (`shadow.rs`), differentiated at first order, which the generic copies of `order = K` callers call, so
/// that `order = 2` on a caller needs nothing of the callee. Emitted only where the copy surely compiles
/// (`shadow::why_no_copy`: no references but those passed to calls, no iterators, no second float type,
/// calls only of functions with derivatives by their names, ...), since a copy that did not would break
/// the function's first order too. A function with output parameters gets one as well: its copy writes
/// the same buffers, of the copy's float type, so that an `order = K` Euler step calling `rhs(&y, p, &mut
/// k)` differentiates through it. Without one, the companion's `GenericCopy` is a fallback whose use is
/// a compile error saying why (`companion::fallback_copy`), so that callers' copies compile: the copies
/// chain through call trees, and fail only where an `order = K` function reaches a function without one.
/// The copy is differentiated here, as `#[differentiable(wrt(..))]` would, not by an attribute that the
/// compiler would hand back to the macro (which would print it, parse it again and run the macro once more).
/// Callers' copies reach it only through its companion (`Args::copy`), so its expansion is the companion and
/// the sweeps that it runs, and no `_grad`, `_grad_into`, `_jacobian` or doc comment.
///
/// `calls` are the callees that `item` calls with differentiated arguments.
fn first_order_generic_copy(
    item: &syn::ItemFn,
    args: &Args,
    sig: &Signature,
    flat: Option<&Flattened>,
    calls: &crate::shadow::CopyCalls,
) -> (companion::GenericCopy, TokenStream) {
    let parameter_struct = flat.is_some();
    let higher = args
        .order
        .as_ref()
        .is_some_and(|k| k.base10_parse::<usize>().is_ok_and(|k| k >= 2));
    let missing = (companion::GenericCopy::Missing, TokenStream::new());
    // A free function of parameter structs with `order = K`: callers passing it a struct on whole reach
    // its hidden function over the structs' values (`struct_whole.rs`), not a copy; one that reaches a
    // copy (a method keeping `self` constant, `reads_fields(self, x)`) meets the fallback's one error, not
    // rustc's cascade at a missing `GenericCopy` (E0658 `fn_traits`, "expected a `Fn` closure").
    // A method keeping `self` constant that passes it on (`reads_fields(self, x)`) reaches its copy with
    // the structs constant, made below as for a function without `order = K` where it surely compiles.
    let written_for_a_float = signature::float_type_params(&item.sig.generics).is_empty();
    let struct_with_order = higher
        && parameter_struct
        && written_for_a_float
        && !is_method(item)
        && !args.copy
        && !args.lift_fields;
    if !struct_with_order && (higher || args.copy || args.lift_fields) {
        return missing;
    }
    // A value of a type of the user's passed on whole (`inner(x, mode)`) may reach a function of a
    // parameter struct, which has no copy to call (`Missing`): the copy might not compile. Not one of an
    // enum that the source file declares (`declared_enum`): no parameter struct takes it, and the copy
    // passes it on as the function does.
    if let Some(p) = sig
        .params
        .iter()
        .find(|p| p.passed_on != signature::PassedOn::No && !declared_enum(&p.ty))
    {
        let why = format!(
            "it passes `{}`, of a type of its own, on whole to a call, which may be a function of a \
             parameter struct without a copy",
            p.ident
        );
        return (companion::GenericCopy::Fallback { why }, TokenStream::new());
    }
    let Some(float) = crate::shadow::written_float(item) else {
        let why = "its signature uses both `f64` and `f32`".to_string();
        return (companion::GenericCopy::Fallback { why }, TokenStream::new());
    };
    // Passed on whole (`g(p, x)`, `g(&p.inner)`), a struct would go to a callee's copy, which may not
    // exist (a function of a parameter struct with `order = K` has none), and a field (`g(&p.w)`) is
    // not read in the copy's float type.
    if flat.is_some_and(|flat| flat.uses_a_struct_whole(sig, false)) {
        let why = "it passes a parameter struct (or a field) on whole to a call".to_string();
        return (companion::GenericCopy::Fallback { why }, TokenStream::new());
    }
    // A computed value cast to an integer (`(p.w[0].abs() * 3.0) as usize`): the copy would read the
    // field in its float type and cast that with `as`, which rustc refuses (E0605).
    if parameter_struct && casts_to_an_integer(&item.block) {
        let why = "it casts a value computed from a parameter struct's fields to an integer type (`as usize`)"
            .to_string();
        return (companion::GenericCopy::Fallback { why }, TokenStream::new());
    }
    let wrt = match parameter_struct {
        true => match constant_struct_wrt(sig, float) {
            Ok(wrt) => Some(wrt),
            Err(why) => return (companion::GenericCopy::Fallback { why }, TokenStream::new()),
        },
        false => args.wrt.clone(),
    };
    let mut copy = match differentiable_copy(item, float, calls) {
        Ok(copy) => copy,
        Err(why) => return (companion::GenericCopy::Fallback { why }, TokenStream::new()),
    };
    copy.attrs = vec![
        syn::parse_quote!(#[doc(hidden)]),
        syn::parse_quote!(#[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]),
    ];
    let copy_args = Args {
        wrt,
        copy: true,
        lift_fields: parameter_struct,
        ..Args::default()
    };
    (
        companion::GenericCopy::Copy(naming::generic_copy(&item.sig.ident)),
        expand_fn(copy_args, copy, Errors::default()),
    )
}

// Input:  `mode: Mode`, in a file declaring `enum Mode { A, B }`
// Output: true
/// Is `ty` (a parameter's type, by value) an enum that the attribute's source file declares
/// (`context::declared_as_data`): data, matched on or passed on, never a parameter struct?
fn declared_enum(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| {
        crate::context::declared_as_data(&naming::unraw(&s.ident))
            == Some(crate::context::Data::Enum)
    }))
}

/// Does `block` cast a computed value to an integer type (`(p.w[0].abs() * 3.0) as usize`, not a name or a
/// field, `k as usize`, `p.n as i32`)? In a generic copy reading a parameter struct's fields in its float
/// type (`__lift_fields`), the cast of a value computed from a field is emitted as an `as` cast of the
/// copy's float type, which rustc refuses (E0605): such a function gets no copy (the fallback's one error
/// at an `order = K` caller reaching it), so that its first order compiles (until session 37 it did not).
fn casts_to_an_integer(block: &syn::Block) -> bool {
    struct Casts(bool);
    impl<'a> syn::visit::Visit<'a> for Casts {
        fn visit_expr_cast(&mut self, c: &'a syn::ExprCast) {
            let mut value = &*c.expr;
            while let syn::Expr::Paren(p) = value {
                value = &p.expr;
            }
            let computed = !matches!(
                value,
                syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Lit(_)
            );
            self.0 |= computed
                && matches!(&*c.ty, syn::Type::Path(p) if p.qself.is_none()
                    && p.path.get_ident().is_some_and(|i| crate::shadow::INTEGERS.iter().any(|n| i == n)));
            syn::visit::visit_expr_cast(self, c);
        }
    }
    let mut casts = Casts(false);
    syn::visit::Visit::visit_block(&mut casts, block);
    casts.0
}

/// The generic copy `Self::__f_generic` of a method (or associated function) of an `impl` without float type
/// parameters, which the generic copies of `order = K` callers call (`self.f(x)`, `Self::f(x)`), where it
/// surely compiles: of one without parameter structs as of a free function (`first_order_generic_copy`;
/// at `order = K`, `higher.rs` made it), and of one whose parameter structs (`&self`) are all constants
/// with its fields read in the copy's float type (`Args::lift_fields`: `self.w[i]` is an `f64` the copy
/// lifts, `self.n` an integer it keeps). Where such a method has none, `GenericCopy::Fallback` with why:
/// associated functions under the copy's names that are an error at an `order = K` caller
/// (`companion::fallback_method_copy`). Nothing otherwise: a method differentiated in a struct
/// (`struct_whole.rs` gives those `__f_whole`), or of a generic `impl` (whose float type the copy cannot
/// take as its own).
fn method_generic_copy(
    item: &syn::ItemFn,
    args: &Args,
    sig: &Signature,
    flat: Option<&Flattened>,
    calls: &crate::shadow::CopyCalls,
) -> (companion::GenericCopy, TokenStream) {
    let parameter_struct = flat.is_some();
    let generic = !float_params_with_impl(item).is_empty();
    let missing = (companion::GenericCopy::Missing, TokenStream::new());
    if args.lift_fields {
        return missing;
    }
    // Generic over a float type of its own only, in an `impl` without one: `by_name_copy` makes
    // `Self::__g_generic` of the function itself, which runs on any float type (no fallback, whose marker
    // would make callers' checks fail).
    let own = signature::float_type_params(&item.sig.generics);
    if generic && float_params_with_impl(item).iter().all(|t| own.contains(t)) {
        return missing;
    }
    if generic {
        return match (parameter_struct, impl_generic_copy(item, args)) {
            (false, Ok(copy)) => (companion::GenericCopy::Missing, copy),
            // An associated function without one: the fallback, so that an `order = K` caller gets one
            // error at its call (`HasMethodCopy`) in place of rustc's missing `__g_generic`.
            (false, Err(why)) if item.sig.receiver().is_none() => {
                match float_params_with_impl(item).into_iter().next() {
                    Some(float) => (
                        companion::GenericCopy::ImplFallback { why, float },
                        TokenStream::new(),
                    ),
                    None => missing,
                }
            }
            _ => missing,
        };
    }
    if !parameter_struct {
        return first_order_generic_copy(item, args, sig, None, calls);
    }
    let by_reference = |p: &signature::Param| matches!(p.ty, syn::Type::Reference(_));
    let structs = || {
        sig.params
            .iter()
            .filter(|p| matches!(p.kind, crate::ir::Kind::Struct(_)))
    };
    let fallback = |why: &str| {
        let why = why.to_string();
        (companion::GenericCopy::Fallback { why }, TokenStream::new())
    };
    // A method differentiated in `self` has no copy with a constant `self`: a caller with a constant
    // `self` at `order = K` (`self.fit(xs)` in a method without `wrt(self)`) gets the error at its call
    // (rustc's missing `__fit_generic` before). Another active parameter struct: none.
    if structs().any(|p| p.active && p.ident != "self") {
        return missing;
    }
    // Differentiated in `self` (`wrt(self)`): the copy a caller with a constant `self` calls is that of
    // the same method without `self` in `wrt(..)` (its other parameters there, or all of them).
    let self_differentiated = structs().any(|p| p.active);
    let others = sig
        .params
        .iter()
        .any(|p| p.ident != "self" && p.differentiable);
    // Its calls of methods of `self` (`self.fit(..)`) pass `self` on, differentiated there: the copy with
    // a constant `self` calls the callee's copy with a constant `self` (`self.__fit_generic(..)`,
    // `shadow::Rewrite`), which every differentiable method has, a copy or its fallback (whose error an
    // `order = K` caller then gets). Where `self` is passed on otherwise (`g(self, x)`), none. (Its calls of
    // associated functions, `Self::h(..)`, call their copies, `Self::__h_generic`, which every
    // differentiable one has: `shadow::why_no_copy`.)
    let receiver_only = self_only_a_receiver(item, self_differentiated);
    if self_differentiated && calls_methods_of_self(&item.block) && !receiver_only {
        return fallback(
            "it is differentiated in `self` (`wrt(self)`) and calls other methods of `self`, so it has no copy \
             with a constant `self` (give the caller `wrt(self)` too, or write the computation out in the caller)",
        );
    }
    if self_differentiated && !others {
        return fallback(
            "it is differentiated in `self` (`wrt(self)`) and has no other parameter to differentiate, so \
             a caller with a constant `self` gets a constant from it (give the caller `wrt(self)` too)",
        );
    }
    // (`self` taken by value: the copies of callers pass it as it is taken, `Receiver::receive`.)
    if !structs().all(|p| by_reference(p) || p.ident == "self") {
        return fallback(
            "it takes a parameter struct by value (the copies of its callers pass a reference)",
        );
    }
    // Passed on whole (`g(self, x)`, `g(&self.inner)`), a struct would go to a callee's copy over a struct,
    // which may not exist (`first_order_generic_copy` makes none). A constant `self` that is only the
    // receiver of calls of other methods (`self.g(x)`) goes to their copies with a constant `self`
    // (`self.__g_generic(x)`, `shadow::Rewrite`), which every differentiable method has (a copy or its
    // fallback, whose error an `order = K` caller then gets).
    // (The copy keeps `self` constant whether or not the method differentiates it.)
    let mut constant_self = sig.clone();
    for p in constant_self
        .params
        .iter_mut()
        .filter(|p| p.ident == "self")
    {
        p.active = false;
    }
    if flat.is_some_and(|flat| flat.uses_a_struct_whole(&constant_self, receiver_only)) {
        return fallback("it passes `self` (or a field) on whole to a call");
    }
    let Some(float) = crate::shadow::written_float(item) else {
        return fallback("its signature uses both `f64` and `f32`");
    };
    // (Calls by a module's path, `m::g(x)`, too: the copy's primal, read with its fields in its float
    // type, calls them as written again, `shadow::write_copy_calls`.)
    let copy = match differentiable_copy(item, float, calls) {
        Ok(copy) => copy,
        Err(why) => return fallback(&why),
    };
    let wrt = args
        .wrt
        .as_ref()
        .map(|names| {
            names
                .iter()
                .filter(|n| !self_differentiated || *n != "self")
                .collect::<Vec<_>>()
        })
        .filter(|names| !names.is_empty())
        .map(|names| quote!(wrt(#(#names),*),));
    let copy = quote! {
        #[::autodiff::differentiable(#wrt __lift_fields, __in_impl)]
        #[doc(hidden)]
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        #copy
    };
    (companion::GenericCopy::Missing, copy)
}

// Input:  #[differentiable] fn weighted(p: Weights, x: &[f64]) -> f64 { .. p.w[i] * x[i] .. }
// Output: the copy `__weighted_generic<__S: Float>(p: Weights, x: &[__S]) -> __S`, differentiated with
//         `wrt(x)` and `__lift_fields` (`p.w[i]` read as an `__S`), which `order = K` callers that keep `p`
//         constant (`weighted(p, x)` with `wrt(x)`, `first_weight(self, x)` in a method) reach.
/// The `wrt(..)` of the generic copy of a free function of parameter structs, `sig`, whose structs are
/// constants there, as a method's `self` is in its copy (`method_generic_copy`): the copies of callers
/// pass structs only as constants (an `order = K` caller differentiated in a struct passes it on whole
/// to the callee's `__g_whole`, `struct_whole.rs`). Its other differentiable parameters, or why none.
fn constant_struct_wrt(sig: &Signature, float: &str) -> Result<Vec<Ident>, String> {
    let structs = || {
        sig.params
            .iter()
            .filter(|p| matches!(p.kind, crate::ir::Kind::Struct(_)))
    };
    // The copy's signature names `__S` where the function's names the float: a struct of type
    // `Affine<f64>` would be `Affine<__S>` there, which callers' copies do not pass.
    let names_float = |ty: &syn::Type| {
        ty.to_token_stream()
            .into_iter()
            .any(|t| t.to_string() == float)
    };
    if let Some(p) = structs().find(|p| names_float(&p.ty)) {
        return Err(format!(
            "the type of its parameter struct `{}` names `{float}`",
            p.ident
        ));
    }
    let wrt: Vec<Ident> = sig
        .params
        .iter()
        .filter(|p| p.active && !matches!(p.kind, crate::ir::Kind::Struct(_)))
        .map(|p| p.ident.clone())
        .collect();
    if wrt.is_empty() {
        return Err(
            "it has no parameter to differentiate but its parameter structs, which the copy keeps \
             constant (give the caller `wrt(..)` of the struct, or write the computation out in the caller)"
                .into(),
        );
    }
    Ok(wrt)
}

/// Does `item` take `&self` and read `self` only through its fields (`self.w[i]`) and as the receiver of
/// method calls (`self.g(x)`), never passing it on as a value (`g(self, x)`, `Self::g(self, x)`,
/// `let s = self;`)? Its copy with a constant `self` then calls the callees' copies,
/// `Self::__g_generic(Receiver::receive(self), x)` (`shadow::Rewrite`), whose float type its arguments
/// give: for a method differentiated in `self` (`self_differentiated`), whose calls may pass `self` alone
/// as the active argument, each call passes a float parameter as it is (`x`, `&x`, `x[i]`, `&x[a..b]`).
fn self_only_a_receiver(item: &syn::ItemFn, self_differentiated: bool) -> bool {
    use syn::visit::Visit;
    let by_reference = item
        .sig
        .receiver()
        .is_some_and(|r| r.reference.is_some() && r.mutability.is_none());
    if !by_reference {
        return false;
    }
    let float = crate::shadow::written_float(item);
    let floats: Vec<String> = item
        .sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            syn::FnArg::Typed(t) => match (&*t.pat, float) {
                (syn::Pat::Ident(i), Some(float))
                    if crate::naming::names_any(t.ty.to_token_stream(), &[float]) =>
                {
                    Some(i.ident.to_string())
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    // `x`, `&x`, `x[i]`, `&x[a..b]` of a float parameter `x`.
    fn float_param(e: &syn::Expr, floats: &[String]) -> bool {
        match e {
            syn::Expr::Reference(r) => float_param(&r.expr, floats),
            syn::Expr::Paren(p) => float_param(&p.expr, floats),
            syn::Expr::Index(i) => float_param(&i.expr, floats),
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| floats.contains(&i.to_string())),
            _ => false,
        }
    }
    struct Uses<'f> {
        found: bool,
        self_differentiated: bool,
        floats: &'f [String],
    }
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            if matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident("self")) {
                self.found |=
                    self.self_differentiated && !m.args.iter().any(|a| float_param(a, self.floats));
                m.args.iter().for_each(|a| self.visit_expr(a));
                return;
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
            if !matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident("self")) {
                syn::visit::visit_expr_field(self, f);
            }
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            self.found |= p.path.is_ident("self");
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            self.found |= m
                .tokens
                .clone()
                .into_iter()
                .any(|t| t.to_string() == "self");
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut uses = Uses {
        found: false,
        self_differentiated,
        floats: &floats,
    };
    uses.visit_block(&item.block);
    !uses.found
}

/// Does `block` call a method of `self` (`self.fit(..)`)?
fn calls_methods_of_self(block: &syn::Block) -> bool {
    use syn::visit::Visit;
    struct Calls(bool);
    impl<'a> Visit<'a> for Calls {
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            let on_self = matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident("self"));
            self.0 |= on_self;
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut calls = Calls(false);
    calls.visit_block(block);
    calls.0
}

/// In a generic `impl`, the generic copy `Self::__g_generic` of an associated function without `self`, over a
/// float type `__S` of its own (the `impl`'s float type parameter renamed), which the hidden function of a
/// method with `order = K` (`struct_higher.rs`) and the copies of `order = K` callers
/// (`Spring::<f64>::g(x)` in an `f64` function) call on their own float type. Made where it surely compiles:
/// the body names `Self` only to call other associated functions (`Self::h(x)`, whose copies the copy
/// calls, `Self::__h_generic(x)`) or in the argument of `T::from(..)` (`T::from(Self::HALF)`), as a
/// constant of another type must be converted there; the function itself declares no float type
/// parameter.
/// `Err` with why where it makes none.
fn impl_generic_copy(item: &syn::ItemFn, args: &Args) -> Result<TokenStream, String> {
    use syn::visit::Visit;
    let own = signature::float_type_params(&item.sig.generics);
    let of_impl = float_params_with_impl(item);
    let [t] = of_impl.as_slice() else {
        return Err("its signature names more than one float type parameter".into());
    };
    if !own.is_empty() {
        return Err("it declares a float type parameter of its own".into());
    }
    if item.sig.receiver().is_some() {
        return Err("it takes `self`".into());
    }
    struct Unconverted<'a> {
        t: &'a Ident,
        found: bool,
    }
    impl<'a> Visit<'a> for Unconverted<'_> {
        fn visit_expr_call(&mut self, call: &'a syn::ExprCall) {
            let conversion = matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none()
                && p.path.segments.len() == 2
                && p.path.segments[0].ident == *self.t
                && p.path.segments[1].ident == "from");
            let associated = matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none()
                && naming::self_associated_call(&p.path).is_some());
            if associated {
                call.args.iter().for_each(|a| self.visit_expr(a));
            } else if !conversion {
                syn::visit::visit_expr_call(self, call);
            }
        }
        fn visit_ident(&mut self, ident: &'a Ident) {
            self.found |= ident == "Self" || ident == "self";
        }
        fn visit_item(&mut self, _: &'a syn::Item) {
            self.found = true;
        }
    }
    let mut unconverted = Unconverted { t, found: false };
    unconverted.visit_block(&item.block);
    if unconverted.found {
        return Err(
            "its body names `Self` other than to call associated functions (`Self::h(x)`) or inside \
             `T::from(..)`, or declares an item"
                .into(),
        );
    }
    let scalar = Ident::new("__S", proc_macro2::Span::call_site());
    let mut copy = item.clone();
    copy.attrs.clear();
    copy.sig.ident = naming::impl_generic_copy(&item.sig.ident);
    syn::visit_mut::VisitMut::visit_block_mut(&mut naming::CallsOfCopies, &mut copy.block);
    let Ok(mut copy) = syn::parse2::<syn::ItemFn>(crate::shadow::replace_float(
        copy.to_token_stream(),
        &t.to_string(),
        &scalar,
    )) else {
        return Err("its copy over another float type does not parse".into());
    };
    copy.sig
        .generics
        .params
        .push(syn::parse_quote!(#scalar: ::autodiff::__private::Float));
    let wrt = args.wrt.as_ref().map(|names| quote!(wrt(#(#names),*),));
    // An associated function of the `impl` too, which its own expansion cannot find in the source.
    Ok(quote! {
        #[::autodiff::differentiable(#wrt __in_impl)]
        #[doc(hidden)]
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        #copy
    })
}

/// The callees (their paths' tokens) that `f` passes a float or a float array (`floats`), or else only
/// those it passes a differentiated argument: a generic copy of `f` must call their generic copies.
/// The callees that `f` calls with float arguments, none of them differentiated, at every call (scalars
/// only, the same argument kinds at each call): its generic copy calls them as written
/// (`shadow::PlainCall`), since such a callee may be a plain helper without a copy. Also those whose
/// result is integers, differentiated arguments or not: a scalar the body uses as one (`argmax(x)`), or
/// an array its `let` declares so (`let p: Vec<usize> = argsort(x);`, `activity::declared_integers`),
/// called on the values of their arrays (`__private::array_values`).
/// `shadow::surely_compiling_copy_with` for a `#[differentiable]` function's generic copy, none where it
/// calls with a differentiated argument a function that the source shows to have no derivatives
/// (`context::plain_sibling`): its first order reports that call, and a copy naming the callee's companion
/// would only add rustc's "expected type, found function" beside it. (A custom function's body may call
/// such a function: its first order does not differentiate it.)
fn differentiable_copy(
    item: &syn::ItemFn,
    float: &str,
    calls: &crate::shadow::CopyCalls,
) -> Result<syn::ItemFn, String> {
    let bare = |callee: &&String| callee.chars().all(|c| c.is_alphanumeric() || c == '_');
    if let Some(plain) = calls
        .active
        .iter()
        .filter(bare)
        .find(|callee| crate::context::plain_sibling(callee))
    {
        return Err(format!(
            "it calls `{plain}`, a function without derivatives"
        ));
    }
    crate::shadow::surely_compiling_copy_with(item, float, calls)
}

pub(crate) fn plain_calls(
    f: &Function,
    activity: &Activity,
    sig: &Signature,
) -> Vec<crate::shadow::PlainCall> {
    plain_calls_with(f, activity, sig, false)
}

/// [`plain_calls`] with, where `array_results`, the calls whose value is an array or a `Vec` of floats
/// (`let v = features(c)`) or that write arrays (`fill(c, &mut v)`) among them: the candidates of
/// `maybe::copy_calls`, which the generic copy calls through `copy_or_as_written!` (its `Lift` lifts such
/// a value as a whole, an output is written back). Elsewhere such a call goes to the callee's copy.
pub(crate) fn plain_calls_of_values(
    f: &Function,
    activity: &Activity,
    sig: &Signature,
) -> Vec<crate::shadow::PlainCall> {
    plain_calls_with(f, activity, sig, true)
}

fn plain_calls_with(
    f: &Function,
    activity: &Activity,
    sig: &Signature,
    array_results: bool,
) -> Vec<crate::shadow::PlainCall> {
    use crate::ir::{ArrayInit, Kind, Operand, Stmt, Value};
    let float = |k: &Kind| matches!(k, Kind::Float(_));
    let mut plain: Vec<crate::shadow::PlainCall> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    // Is an array argument a reference (`&v`, a parameter `x: &[f64]`, a window `&x[1..]` bound by `let`)?
    let windows: Vec<crate::ir::Array> = f
        .all_stmts()
        .into_iter()
        .filter_map(|stmt| match stmt {
            Stmt::NewArray {
                array,
                init: ArrayInit::Window { .. },
            } => Some(*array),
            _ => None,
        })
        .collect();
    let reference = |array: crate::ir::Array, by_ref: bool| {
        let info = &f.arrays[array.0 as usize];
        let param = info.param.and_then(|i| sig.params.get(i));
        let row = matches!(info.held_as, Some(crate::ir::HeldAs::Row(_)));
        by_ref
            || param.is_some_and(|p| matches!(p.ty, syn::Type::Reference(_)))
            || windows.contains(&array) && !row
    };
    for stmt in f.all_stmts() {
        // A call whose result the body reads only where no derivative flows (a condition, a comparison,
        // an index), or uses as an integer (`activity::integer_uses`): its arguments' derivatives are not
        // needed, and a plain helper (`flag(x as f32)`, `argmax(x)` of a slice) is called as written, its
        // floats' values passed (`__private::value`, `__private::array_values`).
        let mut constant_result = false;
        let (callee, args, by_ref) = match stmt {
            Stmt::Let {
                var,
                value:
                    Value::Call {
                        callee,
                        args,
                        by_ref,
                    },
            } => {
                constant_result = read_only_without_derivative(f, *var)
                    || matches!(activity.var_kind(*var), Kind::Int);
                (callee, args, Some(by_ref))
            }
            // Integers declared so (`let p: Vec<usize> = argsort(x);`, `activity::declared_integers`).
            Stmt::NewArray {
                array,
                init:
                    ArrayInit::Call {
                        callee,
                        args,
                        by_ref,
                    },
            } if activity::declared_integers(f, *array)
                && !crate::shadow::is_sort_order(callee) =>
            {
                constant_result = true;
                (callee, args, Some(by_ref))
            }
            Stmt::NewArray {
                init:
                    ArrayInit::Call {
                        callee,
                        args,
                        by_ref,
                    },
                ..
            } if array_results => (callee, args, Some(by_ref)),
            // (And the calls writing arrays of floats, `fill(c, &mut v)`.)
            Stmt::CallOut {
                callee,
                args,
                by_ref,
                ..
            } if array_results => (callee, args, Some(by_ref)),
            Stmt::NewArray {
                init: ArrayInit::Call { callee, args, .. },
                ..
            }
            | Stmt::CallOut { callee, args, .. } => (callee, args, None),
            _ => continue,
        };
        let name = callee.path.to_token_stream().to_string();
        // A struct's field passed on whole (`hs(&p.w, c)`, rewritten `__hs_pairs(primal, values, (), c)`
        // by `struct_whole.rs`): a function with derivatives, whose copy is called, never a plain
        // helper (its primal and unit arguments are no floats, and the rest do not line up).
        if callee
            .path
            .segments
            .last()
            .is_some_and(|s| naming::unraw(&s.ident).ends_with("_pairs"))
            && callee
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident.to_string().starts_with("__"))
        {
            continue;
        }
        // `&w` of a constant tuple (`weigh(&w, 3.0)`, `w = ((0.5, -1.5), 2.0)`) is passed as written beside
        // values: the copy keeps such a tuple in the callee's float type (`shadow::constant_tuples_for_calls`).
        let constant_tuple =
            |a: &Operand| matches!(activity.kind(a), Kind::Tuple(_)) && !activity.is_active(a);
        let by_value =
            by_ref.is_some_and(|r| r.iter().zip(args).all(|(r, a)| !r || constant_tuple(a)));
        let no_arrays = args.iter().all(|a| !matches!(a, Operand::Array(_)));
        // Arrays only where the result is constant (an integer): their values are passed.
        let arrays: Vec<Option<bool>> = args
            .iter()
            .zip(
                by_ref
                    .into_iter()
                    .flatten()
                    .chain(std::iter::repeat(&false)),
            )
            .map(|(a, r)| match a {
                Operand::Array(array) if float(activity.elem_kind(*array)) => {
                    Some(reference(*array, *r))
                }
                _ => None,
            })
            .collect();
        // An array of elements of a kind the syntax does not tell is not taken apart.
        let unknown = args.iter().any(|a| matches!(a, Operand::Array(array) if matches!(activity.elem_kind(*array), Kind::Unknown)));
        // Not a matrix, whose rows `array_values` does not take.
        let matrix = args.iter().any(
            |a| matches!(a, Operand::Array(array) if f.arrays[array.0 as usize].matrix.is_some()),
        );
        // Or where no array argument may be differentiated (`plain(&w)` of `let w = [0.5, -1.25];`): the
        // values of constants, whose tangents are zero.
        let constant_arrays = args
            .iter()
            .all(|a| !matches!(a, Operand::Array(_)) || !activity.is_active(a));
        let with_arrays = (constant_result || constant_arrays)
            && !matrix
            && !unknown
            && by_ref.is_some()
            && !no_arrays
            && args.iter().zip(by_ref.into_iter().flatten()).all(|(a, r)| {
                // `&x` of a float is not taken apart.
                matches!(a, Operand::Array(_)) || !r
            });
        let scalars = by_value && no_arrays || with_arrays;
        let active = !constant_result && args.iter().any(|a| activity.is_active(a));
        // A tuple of floats passed by value (`plaint((0.5, stop_gradient(c)))`) is passed as its values
        // too, componentwise (`__private::plain_tuple`), marked by a tuple type of as many `_`.
        // (One passed by reference, `tuple_sum(&c)` of a constant tuple, is passed as written: `shadow`.)
        let referenced: Vec<bool> = by_ref
            .into_iter()
            .flatten()
            .copied()
            .chain(std::iter::repeat(false))
            .take(args.len())
            .collect();
        let float_tuple = |a: &Operand, by_ref: bool| match activity.kind(a) {
            Kind::Tuple(kinds) => {
                !by_ref && (2..=4).contains(&kinds.len()) && kinds.iter().all(float)
            }
            _ => false,
        };
        let floats: Vec<bool> = args
            .iter()
            .zip(&referenced)
            .map(|(a, r)| float(&activity.kind(a)) || float_tuple(a, *r))
            .collect();
        let types = args
            .iter()
            .zip(&referenced)
            .map(|(a, r)| match activity.kind(a) {
                Kind::Float(Some(ty)) => Some(ty),
                Kind::Tuple(kinds) if float_tuple(a, *r) => {
                    let infer = kinds.iter().map(|_| quote!(_));
                    Some(syn::parse_quote!((#(#infer),*)))
                }
                _ => None,
            })
            .collect();
        // A call of integers alone (`log_factorial(counts[i])`, `two()`): no function with derivatives
        // takes only integers, so a plain helper, whose float result (if any) is a constant the copy lifts.
        let integers_only = integer_arguments_only(callee, args, activity);
        let has_floats = floats.iter().any(|f| *f) || with_arrays || integers_only;
        // A scalar argument whose kind the analysis does not know (`c` of `let c: f64 = g(&p.inner, a)`)
        // may be a float of the copy's type, whose value a plain call would not take: a callee that the
        // file shows with `#[differentiable]` (`context::differentiable_sibling_fn`) is called through its
        // copy instead.
        let unknown_scalar = args.iter().any(|a| {
            !matches!(a, Operand::Array(_) | Operand::Const { .. })
                && matches!(activity.kind(a), Kind::Unknown)
        });
        if constant_result
            && unknown_scalar
            && callee
                .path
                .get_ident()
                .is_some_and(|name| crate::context::differentiable_sibling_fn(&naming::unraw(name)))
        {
            continue;
        }
        let call = (scalars && !active && has_floats).then(|| crate::shadow::PlainCall {
            callee: name.clone(),
            floats,
            types,
            constant_result,
            arrays,
            maybe: false,
        });
        match call {
            Some(call) if !refused.contains(&name) => {
                match plain.iter_mut().find(|p| p.callee == name) {
                    Some(seen) if seen.floats != call.floats || seen.arrays != call.arrays => {
                        plain.retain(|p| p.callee != name);
                        refused.push(name);
                    }
                    // A type one call says is the type at every call.
                    Some(seen) => {
                        seen.constant_result |= call.constant_result;
                        for (known, ty) in seen.types.iter_mut().zip(call.types) {
                            if known.is_none() {
                                *known = ty;
                            }
                        }
                    }
                    None => plain.push(call),
                }
            }
            Some(_) => {}
            None => {
                plain.retain(|p| p.callee != name);
                refused.push(name);
            }
        }
    }
    plain
}

/// Does the body read `var` (a call's result) only where no derivative flows: as the condition of an `if`,
/// the scrutinee of a `match`, an operand of a comparison or of `!`, an index, the argument of
/// `stop_gradient`, or cast to an integer type? Any other read (arithmetic, a copy, a block's value, an
/// argument) says no.
fn read_only_without_derivative(f: &Function, var: crate::ir::Var) -> bool {
    if yielded_values(f).contains(&var) {
        return false;
    }
    let is_var = |o: &crate::ir::Operand| matches!(o, crate::ir::Operand::Var(v) if *v == var);
    let mut read = false;
    for stmt in f.all_stmts() {
        if stmt.operands().into_iter().any(is_var) {
            if !reads_without_derivative(stmt, &is_var) {
                return false;
            }
            read = true;
        }
    }
    read
}

/// The values that some block yields as its value: a derivative may flow out of them.
fn yielded_values(f: &Function) -> std::collections::BTreeSet<crate::ir::Var> {
    fn walk(block: &crate::ir::Block, out: &mut std::collections::BTreeSet<crate::ir::Var>) {
        out.extend(block.yields.iter().filter_map(crate::ir::Operand::var));
        for stmt in &block.stmts {
            for inner in stmt.blocks() {
                walk(inner, out);
            }
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(&f.body, &mut out);
    out
}

// Input:  let v4 = value(x); let v5 = baseline(v4); let v6 = lift(v5); let v7 = stop_gradient(v6);
// Output: {v4, v5, v6}
/// The results of calls that reach only places where no derivative flows
/// ([`read_only_without_derivative`]'s), directly or through other such calls: a chain of calls ending
/// in `stop_gradient(..)` or a conversion to an integer (the generic copy's `lift(helper(value(x)))`).
/// Their tangents are never needed.
pub(crate) fn constant_call_results(f: &Function) -> std::collections::BTreeSet<crate::ir::Var> {
    use crate::ir::{Operand, Stmt, Value, Var};
    let stmts = f.all_stmts();
    let is_call = |stmt: &Stmt| {
        matches!(
            stmt,
            Stmt::Let {
                value: Value::Call { .. },
                ..
            }
        )
    };
    let yielded = yielded_values(f);
    let mut set: std::collections::BTreeSet<Var> = stmts
        .iter()
        .filter_map(|stmt| match stmt {
            Stmt::Let { var, .. } if is_call(stmt) && !yielded.contains(var) => Some(*var),
            _ => None,
        })
        .collect();
    // The statements that read each candidate, found once.
    let mut readers: std::collections::BTreeMap<Var, Vec<&Stmt>> =
        std::collections::BTreeMap::new();
    for stmt in &stmts {
        for operand in stmt.operands() {
            if let Some(v) = operand.var().filter(|v| set.contains(v)) {
                let list = readers.entry(v).or_default();
                if !list.last().is_some_and(|last| std::ptr::eq(*last, *stmt)) {
                    list.push(stmt);
                }
            }
        }
    }
    // A candidate stays while every reader reads it without a derivative or is a call that stays.
    loop {
        let dropped: Vec<Var> = set
            .iter()
            .copied()
            .filter(|v| {
                let is_var = |o: &Operand| matches!(o, Operand::Var(w) if w == v);
                let Some(list) = readers.get(v) else {
                    return true;
                };
                !list.iter().all(|stmt| {
                    matches!(stmt, Stmt::Let { var, .. } if is_call(stmt) && set.contains(var))
                        || reads_without_derivative(stmt, &is_var)
                })
            })
            .collect();
        if dropped.is_empty() {
            return set;
        }
        for v in dropped {
            set.remove(&v);
        }
    }
}

/// Does `stmt`, which reads a value `is_var` picks out, read it where no derivative flows (a condition,
/// a comparison, `!`, an index, `stop_gradient`, a conversion to an integer)?
fn reads_without_derivative(
    stmt: &crate::ir::Stmt,
    is_var: &dyn Fn(&crate::ir::Operand) -> bool,
) -> bool {
    use crate::ir::{Stmt, Value};
    match stmt {
        Stmt::If { .. } | Stmt::Match { .. } => true,
        Stmt::Let {
            value: Value::Binary(op, _, _),
            ..
        } => crate::ir::is_comparison(op),
        Stmt::Let {
            value:
                Value::Unary(syn::UnOp::Not(_), _) | Value::Load { .. } | Value::StopGradient { .. },
            ..
        } => true,
        Stmt::Let {
            value: Value::Cast(_, ty),
            ..
        } => is_integer_type(ty),
        Stmt::Store { value, .. } => !is_var(value),
        _ => false,
    }
}

/// Is `ty` an integer type (`usize`, `i32`, ..)?
fn is_integer_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| crate::shadow::INTEGERS.contains(&i.to_string().as_str())))
}

fn calls_of(f: &Function, activity: &Activity, floats: bool) -> Vec<String> {
    let passed = |args: &[crate::ir::Operand]| {
        args.iter().any(|a| match a {
            crate::ir::Operand::Array(array) => {
                floats && matches!(activity.elem_kind(*array), crate::ir::Kind::Float(_))
                    || activity.is_active_array(*array)
            }
            other => {
                floats && matches!(activity.kind(other), crate::ir::Kind::Float(_))
                    || activity.is_active(other)
            }
        })
    };
    let mut calls: Vec<String> = f
        .all_stmts()
        .into_iter()
        .filter_map(|stmt| match stmt {
            // A call whose result is an integer (`activity::integer_uses`), and the values of an array
            // passed to one in a generic copy: not differentiated, no copy called. Nor a sort's
            // permutation (`sorts.rs`), integers called as written.
            crate::ir::Stmt::Let {
                var,
                value: crate::ir::Value::Call { callee, .. },
            } if matches!(activity.var_kind(*var), crate::ir::Kind::Int)
                || crate::shadow::is_array_values(callee) =>
            {
                None
            }
            crate::ir::Stmt::NewArray {
                init: crate::ir::ArrayInit::Call { callee, .. },
                ..
            } if crate::shadow::is_sort_order(callee) => None,
            // `Some(t)`, `Ok(t)`, `Err(t)`: variants, which the copy writes as they are (`Some(t)` of its
            // float type); a differentiated `t` in one is an error (`activity.rs`).
            crate::ir::Stmt::Let {
                value: crate::ir::Value::Call { callee, .. },
                ..
            } if crate::companion::is_variant(callee) => None,
            // A call whose `let` declares integers (`let p: Vec<usize> = argsort(x);`).
            crate::ir::Stmt::NewArray {
                array,
                init: crate::ir::ArrayInit::Call { .. },
            } if activity::declared_integers(f, *array) => None,
            crate::ir::Stmt::Let {
                value: crate::ir::Value::Call { callee, args, .. },
                ..
            }
            | crate::ir::Stmt::NewArray {
                init: crate::ir::ArrayInit::Call { callee, args, .. },
                ..
            }
            | crate::ir::Stmt::CallOut { callee, args, .. }
                if passed(args) =>
            {
                Some(callee.path.to_token_stream().to_string())
            }
            _ => None,
        })
        .collect();
    calls.sort();
    calls.dedup();
    calls
}

/// The calls that the generic copy of a function without `order = K` rewrites (`first_order_generic_copy`):
/// the callees called with differentiated arguments, whose copies it calls, and the plain helpers whose
/// results the body uses as integers (`let k = argmax(x); x[k]`, `activity::integer_uses`), called as
/// written on the values of their arguments (`shadow::PlainCall`). The latter by an analysis with every
/// float parameter active, as the copy's companion differentiates (`__vjp_all`); the other plain calls
/// stay out, as before.
fn first_order_copy_calls(
    f: &Function,
    activity: &Activity,
    sig: &Signature,
    float_params: &[Ident],
    free: bool,
) -> crate::shadow::CopyCalls {
    use crate::ir::{Kind, Stmt, Value};
    let active = calls_of(f, activity, false);
    let integer_results: Vec<String> = f
        .all_stmts()
        .into_iter()
        .filter_map(|stmt| match stmt {
            Stmt::Let {
                var,
                value: Value::Call { callee, .. },
            } if matches!(activity.var_kind(*var), Kind::Int)
                || read_only_without_derivative(f, *var) =>
            {
                Some(callee.path.to_token_stream().to_string())
            }
            Stmt::NewArray {
                array,
                init: crate::ir::ArrayInit::Call { callee, .. },
            } if activity::declared_integers(f, *array)
                && !crate::shadow::is_sort_order(callee) =>
            {
                Some(callee.path.to_token_stream().to_string())
            }
            _ => None,
        })
        .collect();
    // And the calls of integers alone (`log_factorial(counts[i])`), plain helpers whose result is a
    // constant (`plain_calls_with`), which the copy calls as written and lifts.
    let integer_arguments: Vec<String> = f
        .all_stmts()
        .into_iter()
        .filter_map(|stmt| match stmt {
            Stmt::Let {
                value: Value::Call { callee, args, .. },
                ..
            } if integer_arguments_only(callee, args, activity) => {
                Some(callee.path.to_token_stream().to_string())
            }
            _ => None,
        })
        .collect();
    // Calls that only parameters outside `wrt(..)` reach: the copy's or the callee as written
    // (`maybe::CopyCall`), in a free function without parameter structs (as the first order's hidden
    // sweeps, `maybe::plan`: elsewhere those need the callee's derivatives, an error at the call).
    let excluded = sig.params.iter().any(|p| p.through_calls() && !p.active);
    let maybe = free && excluded;
    if integer_results.is_empty() && integer_arguments.is_empty() && !maybe {
        return crate::shadow::CopyCalls {
            active,
            plain: Vec::new(),
            by_path: true,
            float_results: true,
        };
    }
    let all = activity::analyze(f, &all_active(sig), float_params, &mut Errors::default());
    let all_plain = plain_calls(f, &all, sig);
    let maybe = match maybe {
        true => maybe::copy_calls(
            f,
            activity,
            &all,
            plain_calls_of_values(f, activity, sig),
            &all_plain,
        ),
        false => Vec::new(),
    };
    let mut plain: Vec<crate::shadow::PlainCall> = all_plain
        .into_iter()
        .filter(|p| integer_results.contains(&p.callee) || integer_arguments.contains(&p.callee))
        .collect();
    plain.extend(maybe);
    // A callee whose every call has a constant result (an integer, `stop_gradient(helper(x))`) is called
    // as written only: in `active` too, the copy would call its copy, which a plain helper has not.
    let constant_only = |callee: &String| {
        plain.iter().any(|p| p.callee == *callee)
            && f.all_stmts().into_iter().all(|stmt| match stmt {
                Stmt::Let {
                    var,
                    value: Value::Call { callee: c, .. },
                } if c.path.to_token_stream().to_string() == *callee => {
                    matches!(activity.var_kind(*var), Kind::Int)
                        || read_only_without_derivative(f, *var)
                }
                Stmt::NewArray {
                    array,
                    init: crate::ir::ArrayInit::Call { callee: c, .. },
                } if c.path.to_token_stream().to_string() == *callee => {
                    activity::declared_integers(f, *array)
                }
                Stmt::CallOut { callee: c, .. } => c.path.to_token_stream().to_string() != *callee,
                _ => true,
            })
    };
    let active = active.into_iter().filter(|c| !constant_only(c)).collect();
    crate::shadow::CopyCalls {
        active,
        plain,
        by_path: true,
        float_results: true,
    }
}

// Input:  `log_factorial(counts[i])`, `two()`
// Output: true
/// Is a call one of integers (or `bool`s) alone, of a function of the user's (not one of the run-time
/// helpers the lowering calls, `__private::window_len(..)`)? No function with derivatives takes only
/// integers, so it is a plain helper, whose result is a constant: a generic copy calls it as written and
/// lifts a float result into its own float type (`shadow::PlainCall`).
fn integer_arguments_only(
    callee: &syn::ExprPath,
    args: &[crate::ir::Operand],
    activity: &Activity,
) -> bool {
    let names = naming::path_names(&callee.path);
    // Only a function of the user's, by a bare name or a path (`util::log_factorial(k)`): not one the
    // macro writes itself (a run-time helper, `__private::..`, a hidden function `__f_..`), nor one of a
    // primitive type or the standard library (`usize::min(out.len(), x.len())`, which the lowering writes
    // for a `zip`, `std::cmp::max(i, j)`: their results are integers).
    let helper = names.iter().any(|n| n.starts_with("__"))
        || names.first().is_some_and(|first| {
            crate::in_closure::PRIMITIVES.contains(&first.as_str())
                || ["std", "core", "alloc", "autodiff"].contains(&first.as_str())
        });
    // An argument of a kind the analysis does not know (`lf(m.k)` of a struct's `#[no_grad] k: u32`, read
    // through the struct's values view) counts where the callee, declared in the module, takes an integer
    // there (`context::sibling_integer_parameters`).
    let declared = std::cell::OnceCell::new();
    !helper
        && args
            .iter()
            .enumerate()
            .all(|(i, a)| match activity.kind(a) {
                crate::ir::Kind::Int | crate::ir::Kind::Bool => true,
                crate::ir::Kind::Unknown => declared
                    .get_or_init(|| crate::context::sibling_integer_parameters(&callee.path))
                    .as_ref()
                    .is_some_and(|integers: &Vec<bool>| integers.get(i) == Some(&true)),
                _ => false,
            })
}

/// Is `item` an associated function or method of an `impl` block? The macro sees the function alone, so
/// it asks the syntax (it takes `self`, or names `Self` in its signature or body) and then the source
/// around the attribute (`context.rs`): an associated function that does neither is found there.
pub(crate) fn is_method(item: &syn::ItemFn) -> bool {
    struct FindSelf(bool);
    impl<'ast> syn::visit::Visit<'ast> for FindSelf {
        fn visit_ident(&mut self, ident: &'ast Ident) {
            self.0 |= ident == "Self";
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut find = FindSelf(item.sig.receiver().is_some());
    syn::visit::Visit::visit_signature(&mut find, &item.sig);
    syn::visit::Visit::visit_block(&mut find, &item.block);
    find.0 || crate::context::in_impl()
}

/// For a method, `item` with the float type parameters of its `impl` declared (`T: Float`): the type
/// names in its signature that it does not declare and that read as type parameters (one capital letter,
/// perhaps followed by a digit: `T`, `S`, `F1`). The macro cannot see the `impl`'s generics; a
/// differently named parameter of the `impl` is not recognised as a float.
pub(crate) fn impl_float_params(item: &syn::ItemFn) -> Cow<'_, syn::ItemFn> {
    if !is_method(item) {
        return Cow::Borrowed(item);
    }
    let mut item = item.clone();
    struct Names(Vec<Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_type_path(&mut self, tp: &'ast syn::TypePath) {
            if let Some(ident) = tp.path.get_ident() {
                let name = ident.to_string();
                let mut chars = name.chars();
                let looks_generic = chars.next().is_some_and(|c| c.is_ascii_uppercase())
                    && chars.all(|c| c.is_ascii_digit());
                if looks_generic && !self.0.contains(ident) {
                    self.0.push(ident.clone());
                }
            }
            syn::visit::visit_type_path(self, tp);
        }
    }
    let mut names = Names(Vec::new());
    for input in &item.sig.inputs {
        if let syn::FnArg::Typed(pt) = input {
            syn::visit::Visit::visit_type(&mut names, &pt.ty);
        }
    }
    if let syn::ReturnType::Type(_, ty) = &item.sig.output {
        syn::visit::Visit::visit_type(&mut names, ty);
    }
    for ident in names.0 {
        if item.sig.generics.type_params().all(|p| p.ident != ident) {
            item.sig
                .generics
                .params
                .push(syn::parse_quote!(#ident: ::autodiff::Float));
        }
    }
    Cow::Owned(item)
}

/// The float type parameters of `item`, those of a generic `impl` around a method included
/// (`impl_float_params`).
pub(crate) fn float_params_with_impl(item: &syn::ItemFn) -> Vec<Ident> {
    signature::float_type_params(&impl_float_params(item).sig.generics)
}

/// `item` with, when it has parameter structs, `T: Differentiable` added to the `where` clause for each
/// float type parameter `T`: the generated items build gradients of `Mlp<T>`, whose `Differentiable`
/// implementation (derived) needs it. `f64`, `f32` and `Dual` satisfy it.
fn with_struct_bounds<'i>(
    item: &'i syn::ItemFn,
    analysis_item: &syn::ItemFn,
    structs: bool,
) -> Cow<'i, syn::ItemFn> {
    if !structs {
        return Cow::Borrowed(item);
    }
    let mut item = item.clone();
    let bound: syn::TypeParamBound = syn::parse_quote!(::autodiff::__private::Differentiable);
    let zero: syn::TypeParamBound = syn::parse_quote!(::autodiff::__private::ConstantZero);
    for t in signature::float_type_params(&analysis_item.sig.generics) {
        // Beside the parameter's own bounds where it is declared, else (a generic `impl`'s) in `where`.
        match item.sig.generics.type_params_mut().find(|p| p.ident == t) {
            Some(param) => param.bounds.extend([bound.clone(), zero.clone()]),
            None => item
                .sig
                .generics
                .make_where_clause()
                .predicates
                .push(syn::parse_quote!(#t: #bound + #zero)),
        }
    }
    Cow::Owned(item)
}

/// The generated items of one function.
struct Generated<'a> {
    item: &'a syn::ItemFn,
    /// The declared signature, which the generated items' signatures follow.
    sig: &'a Signature,
    /// With parameter structs, the flattened form the passes ran on.
    flat: Option<&'a Flattened>,
    f: &'a Function,
    activity: &'a Activity,
    /// An associated function or method of an `impl` (`is_method`).
    method: bool,
    /// The float type parameters, those of a generic `impl` included.
    float_params: Vec<Ident>,
    /// A generic copy made without being asked (`Args::copy`): hidden, without doc comments.
    copy: bool,
    /// The generic copy whose sweeps, at the written float type, stand for the function's own
    /// (`through_copy`).
    through: Option<Ident>,
    /// The emitter of the sweeps over `f` with `sig` and `activity` (without parameter structs), made
    /// once: each sweep starts from a copy of it (`emitter`).
    emitter: std::cell::OnceCell<Emitter<'a>>,
}

impl<'a> Generated<'a> {
    fn new(
        item: &'a syn::ItemFn,
        sig: &'a Signature,
        flat: Option<&'a Flattened>,
        f: &'a Function,
        activity: &'a Activity,
    ) -> Self {
        Generated {
            item,
            sig,
            flat,
            f,
            activity,
            method: is_method(item),
            float_params: signature::float_type_params(&item.sig.generics),
            copy: false,
            through: None,
            emitter: std::cell::OnceCell::new(),
        }
    }

    /// A new emitter for a sweep over `f` with `sig` and `activity`.
    fn emitter(&self) -> Emitter<'a> {
        self.emitter
            .get_or_init(|| Emitter::new(self.f, self.sig, self.activity))
            .fresh_copy()
    }

    /// The doc comment `text()` of a generated item, or `#[doc(hidden)]` in a copy made without being
    /// asked, which nobody reads.
    fn doc(&self, text: impl FnOnce() -> String) -> TokenStream {
        if self.copy {
            return quote!(#[doc(hidden)]);
        }
        let text = text();
        quote!(#[doc = #text])
    }

    /// Does the companion call the hidden `__vjp_all` and `__jvp_all`, in which every parameter a caller
    /// differentiates through is active, rather than `f_vjp` and `f_jvp`? Where `wrt(..)` leaves one out,
    /// and for output parameters, whose callers need the cotangent of each output's incoming value.
    fn restricted(&self) -> bool {
        self.sig
            .params
            .iter()
            .any(|p| p.through_calls() && !p.active)
            || self.sig.outputs().next().is_some()
    }

    fn name(&self, suffix: &str) -> Ident {
        signature::derived_name(self.item, suffix)
    }

    fn signature(&self, name: &Ident, extra: Option<TokenStream>, ret: TokenStream) -> TokenStream {
        self.sig.generated(self.item, name, extra, ret)
    }

    /// The hidden function that holds the reverse sweep: it adds the gradient for the output cotangent
    /// `d_ret` into zeroed buffers of the caller's and returns the value. `f_vjp` and `f_grad_into` call it.
    fn vjp_into_item(&self) -> TokenStream {
        let (d_ret, grad) = (naming::fixed("d_ret"), naming::fixed("grad"));
        match self.call_through("vjp_into", &[&d_ret, &grad]) {
            Some(call) => {
                let ret = &self.sig.ret_ty;
                let buffers_ty = self.sig.gradient_into_type();
                let signature = self.sig.generated(
                    self.item,
                    &self.vjp_into_name(),
                    Some(quote!(#d_ret: #ret, #grad: #buffers_ty)),
                    quote!(#ret),
                );
                quote!(#signature { #call })
            }
            None => self.vjp_into_item_of(self.sig, &mut self.emitter(), &self.vjp_into_name()),
        }
    }

    /// The reverse sweep into buffers `name` over `sig` (the function's signature, or one with fewer
    /// parameters active: `partial_sweeps`), emitted by `emitter`.
    fn vjp_into_item_of(
        &self,
        sig: &Signature,
        emitter: &mut Emitter<'_>,
        name: &Ident,
    ) -> TokenStream {
        let (d_ret, grad) = (naming::fixed("d_ret"), naming::fixed("grad"));
        let ret = &sig.ret_ty;
        let buffers_ty = sig.gradient_into_type();
        // The cotangents of the output parameters, `None` for zero (`f_grad`).
        let outputs = sig.outputs().map(|p| {
            let (d, elem) = (
                naming::output_cotangent(&p.ident),
                Signature::element_type(p),
            );
            quote!(#d: ::core::option::Option<&[#elem]>,)
        });
        let signature = sig.generated(
            self.item,
            name,
            Some(quote!(#d_ret: #ret, #(#outputs)* #grad: #buffers_ty)),
            quote!(#ret),
        );
        let buffers = buffer_names(sig);
        let body = reverse::vjp_body(emitter, sig, &d_ret, reverse::GradientOut::Into(&buffers));
        let unpack = tuple_or_single(buffers.iter().map(ToTokens::to_token_stream).collect());
        // A float output's gradient buffer (`&mut T`) is a slice of one element, as the output is.
        let scalars = sig
            .active()
            .zip(&buffers)
            .filter(|(p, _)| p.scalar)
            .map(|(_, b)| quote!(let #b = ::core::slice::from_mut(#b);));
        quote!(#signature { let #unpack = #grad; #(#scalars)* #body })
    }

    /// The reverse sweeps into buffers that a call lending inactive data runs instead of the function's
    /// own (`vjp_into_item`), so that it neither computes nor stores the data's cotangent: one per array
    /// parameter, with that parameter held inactive (and what depends only on it with it: the activity
    /// is analysed again), as the items and, per sweep, the name and which parameters it derives for.
    /// Only for a function whose own sweep runs straight into a caller's buffers (`sweep_into`) and that
    /// derives for another parameter besides.
    ///
    /// ```text
    /// // Input: #[differentiable] fn predict(w: &[f64], x: &[f64]) -> f64
    /// // Output: fn __predict_vjp_into_without_w(w, x, d_ret, grad: &mut [f64]) -> f64  // x's cotangent
    /// //         fn __predict_vjp_into_without_x(w, x, d_ret, grad: &mut [f64]) -> f64  // w's cotangent
    /// ```
    fn partial_sweeps(&self) -> (TokenStream, Vec<(TokenStream, Vec<bool>)>) {
        let slots: Vec<companion::IntoSlot> = self
            .sig
            .params
            .iter()
            .map(|p| companion::IntoSlot::of(p, p.active))
            .collect();
        let with_slot = slots
            .iter()
            .filter(|s| !matches!(s, companion::IntoSlot::None))
            .count();
        if self.copy || with_slot < 2 {
            return (TokenStream::new(), Vec::new());
        }
        let mut items = Vec::new();
        let mut sweeps = Vec::new();
        for (i, slot) in slots.iter().enumerate() {
            if !matches!(slot, companion::IntoSlot::Array { .. }) {
                continue;
            }
            let mut sig = self.sig.clone();
            sig.params[i].active = false;
            let activity =
                activity::analyze(self.f, &sig, &self.float_params, &mut Errors::default());
            // Named after the parameter without its leading underscores (`__p_0` of a tuple parameter
            // would make `___`, not snake case), or after its position where two names would meet.
            let bare = |p: &crate::signature::Param| {
                naming::unraw(&p.ident).trim_start_matches('_').to_string()
            };
            let own = bare(&sig.params[i]);
            let shared =
                (self.sig.params.iter().enumerate()).any(|(j, p)| j != i && bare(p) == own);
            let suffix = match shared || own.is_empty() {
                true => i.to_string(),
                false => own,
            };
            let name = format_ident!("{}_without_{}", self.vjp_into_name(), suffix);
            let mut emitter = Emitter::new(self.f, &sig, &activity);
            let item = self.vjp_into_item_of(&sig, &mut emitter, &name);
            items.push(quote! {
                #[doc(hidden)]
                #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
                #[inline]
                #item
            });
            sweeps.push((quote!(#name), sig.params.iter().map(|p| p.active).collect()));
        }
        (quote!(#(#items)*), sweeps)
    }

    fn vjp_into_name(&self) -> Ident {
        let name = &self.item.sig.ident;
        format_ident!("__{}_vjp_into", naming::unraw(name), span = name.span())
    }

    /// The names of the gradient buffers inside the generated functions, one per active parameter.
    fn buffer_names(&self) -> Vec<Ident> {
        buffer_names(self.sig)
    }

    /// The body that allocates zeroed gradient buffers, runs the reverse sweep into them for the cotangent
    /// `d_ret` (and the output parameters' cotangents `outputs`), and gives `(value, gradient)`, or the
    /// gradient alone for a function returning `()`.
    fn sweep_into_fresh_buffers(&self, d_ret: TokenStream, outputs: &[TokenStream]) -> TokenStream {
        let buffers = self.buffer_names();
        let zeros = self.sig.active().zip(&buffers).map(|(p, buffer)| {
            let ident = &p.ident;
            let zero = match p.array {
                _ if p.scalar => quote!(::autodiff::__private::zero_like(&*#ident)),
                Some(_) => quote!(::autodiff::__private::zeros_like(&#ident[..])),
                None => Emitter::zero_of(&p.kind),
            };
            // A fixed-size array's gradient is an array.
            let zero = match p.array {
                Some(shape) if shape.fixed => quote!(::autodiff::__private::zeros_like(&#ident)),
                _ => zero,
            };
            quote!(let mut #buffer = #zero;)
        });
        let borrows = tuple_or_single(buffers.iter().map(|b| quote!(&mut #b)).collect());
        let into = self.vjp_into_name();
        let args = self.sig.params.iter().map(|p| &p.ident);
        let gradient = tuple_or_single(buffers.iter().map(ToTokens::to_token_stream).collect());
        let value = naming::fixed("value");
        let call = quote!(#into(#(#args,)* #d_ret, #(#outputs,)* #borrows));
        let (run, result) = if self.sig.returns_unit() {
            (quote!(#call;), gradient)
        } else {
            (quote!(let #value = #call;), quote!((#value, #gradient)))
        };
        quote! {
            #(#zeros)*
            #run
            #result
        }
    }

    /// `f_vjp`: zeroed gradient buffers, the reverse sweep into them, and `(value, gradient)`.
    fn vjp_item(&self) -> TokenStream {
        let d_ret = naming::fixed("d_ret");
        let unit = self.sig.returns_unit();
        let (extra, returns) = self.vjp_signature_parts(&d_ret);
        let signature = self.signature(&self.name("vjp"), Some(extra), returns);
        let passed: Vec<TokenStream> = self.sig.outputs().map(output_cotangent_slice).collect();
        let d_ret_value = if unit { quote!(()) } else { quote!(#d_ret) };
        let body = self.sweep_into_fresh_buffers(d_ret_value, &passed);
        let seeds = self.sig.output_seed_bindings(false);
        quote!(#signature { #seeds #body })
    }

    /// The reverse sweep for the output cotangent `d_ret`.
    fn vjp_body(&self, d_ret: &Ident) -> TokenStream {
        match self.flat {
            None => reverse::vjp_body(
                &mut self.emitter(),
                self.sig,
                d_ret,
                reverse::GradientOut::Returned,
            ),
            Some(_) => vjp_body(self.f, self.sig, self.flat, self.activity, d_ret),
        }
    }

    /// A free function without parameter structs or active matrices: its reverse sweep runs into buffers
    /// (`vjp_into_item`). Methods and functions of structs or of active matrices return their gradient
    /// from the sweep. (A matrix of data, inactive, has no buffer.)
    fn plain(&self) -> bool {
        !self.method
            && self.flat.is_none()
            && !self
                .sig
                .params
                .iter()
                .any(|p| p.active && p.array.is_some_and(|shape| shape.matrix))
    }

    /// `f_vjp` with the sweep in its body, returning `(value, gradient)` (methods, parameter structs,
    /// matrices), or the gradient alone for a function returning `()`.
    fn vjp_returning_item(&self) -> TokenStream {
        let d_ret = naming::fixed("d_ret");
        let (extra, returns) = self.vjp_signature_parts(&d_ret);
        let signature = self.signature(&self.name("vjp"), Some(extra), returns);
        // The sweep takes each output's cotangent as `Option<&[T]>`.
        let outputs = self.sig.outputs().map(|p| {
            let (d, passed) = (
                naming::output_cotangent(&p.ident),
                output_cotangent_slice(p),
            );
            quote!(let #d = #passed;)
        });
        let unit = self.sig.returns_unit().then(|| quote!(let #d_ret = ();));
        let body = self.vjp_body(&d_ret);
        let body = match self.sig.returns_unit() {
            true => quote!({ let (_, gradient) = { #body }; gradient }),
            false => body,
        };
        let seeds = self.sig.output_seed_bindings(false);
        quote!(#signature { #seeds #unit #(#outputs)* #body })
    }

    /// What `f_vjp` takes after the function's parameters (`d_ret` unless it returns `()`, then one
    /// cotangent per output parameter) and what it returns (`(R, G)`, or `G` for `()`).
    fn vjp_signature_parts(&self, d_ret: &Ident) -> (TokenStream, TokenStream) {
        let ret = &self.sig.ret_ty;
        let gradient = self.sig.gradient_type();
        let unit = self.sig.returns_unit();
        let cotangents = self.sig.outputs().map(|p| {
            let (d, ty) = (
                naming::output_cotangent(&p.ident),
                Signature::output_seed_type(p, false),
            );
            quote!(#d: #ty,)
        });
        match unit {
            true => (quote!(#(#cotangents)*), gradient),
            false => (
                quote!(#d_ret: #ret, #(#cotangents)*),
                quote!((#ret, #gradient)),
            ),
        }
    }

    // Input:  #[differentiable] fn lotka_volterra(p: &[f64], u: f64, v: f64) -> (f64, f64) { (.., ..) }
    // Output: #[inline(always)] fn __lotka_volterra_vjp_into(..) { .. }
    /// The inline attribute of the reverse sweep into buffers, `__f_vjp_into`: `#[inline(always)]` for a
    /// small straight-line function that calls none (no loop, at most `SMALL_SWEEP` statements of the
    /// intermediate form, nested ones included), else `#[inline]`. Callers call the sweep per iteration of
    /// their loops through the companion's `vjp_into` (itself always inlined); left to LLVM, RK4's four
    /// calls of its right-hand side per step kept the sweep out of line (measured: 351,952 -> 338,952
    /// instructions a call of `rk4_grad_into`, `cargo bench --bench counts`). Not for a sweep with loops:
    /// forcing GMM's `logsumexp(&main_term)` into its caller's loop over points made that caller longer
    /// (3.12 -> 3.17 million instructions at d = 2), its tapes and loops crowding the caller's registers.
    fn inline_sweep(&self) -> TokenStream {
        const SMALL_SWEEP: usize = 32;
        let stmts = self.f.all_stmts();
        let small = stmts.len() <= SMALL_SWEEP
            && stmts.iter().all(|s| s.blocks().is_empty())
            && calls_of(self.f, self.activity, true).is_empty();
        if small {
            quote!(#[inline(always)])
        } else {
            quote!(#[inline])
        }
    }

    fn vjp(&self) -> TokenStream {
        if !self.plain() {
            let item = self
                .vjp_in_body()
                .unwrap_or_else(|| self.vjp_returning_item());
            let doc = self.doc(|| {
                format!(
                    " Reverse mode of `{name}`: its value and the vector-Jacobian product for the output \
                     cotangent `d_ret`,\n as `(value, gradient)`, the gradient over the active parameters \
                     in declaration order.{}",
                    listing(documenting(), "Generated by `#[differentiable]`:", &[&item]),
                    name = self.item.sig.ident,
                )
            });
            return quote!(#doc #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)] #[inline] #item);
        }
        let into = self.vjp_into_item();
        let item = self.vjp_item();
        let doc = self.doc(|| {
            let intro = format!(
                "Generated by `#[differentiable]`: `{}_vjp` allocates the gradient and runs the reverse \
                 sweep into it:",
                self.item.sig.ident
            );
            format!(
                " Reverse mode of `{name}`: its value and the vector-Jacobian product for the output \
                 cotangent `d_ret`,\n as `(value, gradient)`, the gradient over the active parameters in \
                 declaration order.{}{}",
                listing(documenting(), &intro, &[&item, &into]),
                self.through_listing(|| {
                    self.vjp_into_item_of(self.sig, &mut self.emitter(), &self.vjp_into_name())
                }),
                name = self.item.sig.ident,
            )
        });
        let inline = self.inline_sweep();
        quote! {
            #[doc(hidden)]
            // One parameter more than the function, and two more than `f_grad`: a long signature is the user's.
            #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #inline
            #into
            #doc
            #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #[inline]
            #item
        }
    }

    /// `f_grad_into`: the gradient written into the caller's buffers (cleared first), the value returned.
    fn grad_into(&self) -> Option<TokenStream> {
        if !self.sig.returns_scalar() {
            return None;
        }
        if !self.plain() {
            return Some(
                self.grad_into_in_body()
                    .unwrap_or_else(|| self.grad_into_by_copy()),
            );
        }
        let (grad, signature) = self.grad_into_signature();
        let buffers = self.buffer_names();
        let unpack = tuple_or_single(buffers.iter().map(ToTokens::to_token_stream).collect());
        let clear = self.clear_buffers(&buffers);
        let into = self.vjp_into_name();
        let args = self.sig.params.iter().map(|p| &p.ident);
        let one = Emitter::one_of(&self.sig.ret_kind);
        let none = self
            .sig
            .outputs()
            .map(|_| quote!(::core::option::Option::None,));
        let doc = format!(
            " The value of `{name}`, with its gradient written into `grad`: the caller's buffers, in the \
             order and shapes of `{name}_grad`'s gradient\n (`&mut` a float, `&mut [T]` for a slice or \
             `Vec`, `&mut [T; N]` for an array; a tuple for several). The buffers are overwritten; \
             nothing is allocated for the gradient.\n\n # Panics\n\n If a buffer's length differs from \
             its parameter's.",
            name = self.item.sig.ident,
        );
        Some(quote! {
            #[doc = #doc]
            #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #[inline]
            #signature {
                let #unpack = #grad;
                #(#clear)*
                #into(#(#args,)* #one, #(#none)* #unpack)
            }
        })
    }

    /// Zeroes the array buffers `buffers` of the active parameters (the sweep into buffers adds into
    /// them; it assigns a float's).
    fn clear_buffers(&self, buffers: &[Ident]) -> Vec<TokenStream> {
        self.sig
            .active()
            .zip(buffers)
            .filter(|(p, _)| p.array.is_some())
            .map(|(p, b)| match p.scalar {
                true => quote!(*#b = ::autodiff::__private::zero_like(&*#b);),
                false => quote!(::autodiff::__private::clear(&mut #b[..]);),
            })
            .collect()
    }

    // Input:  impl Line { #[differentiable] fn weighted(&self, x: &[f64]) -> f64 { .. self.slope .. } }
    // Output: fn weighted_grad_into(&self, x: &[f64], grad: &mut [f64]) -> f64 {
    //             let __grad_x = grad; clear(&mut __grad_x[..]); let d_ret = 1.0;
    //             let __self_slope = self.slope; <the reverse sweep, adding into `__grad_x`> }
    // Input:  #[differentiable] fn loss(m: &Model, x: f64) -> f64 { .. m.w[i] .. m.b .. }
    // Output: fn loss_grad_into(m: &Model, x: f64, grad: (&mut Model, &mut f64)) -> f64 {
    //             let (__grad_m, __grad_x) = grad; let d_ret = 1.0; let __m_w = &m.w; let __m_b = m.b;
    //             <m's buffer cleared, its fields' buffers bound: `Flattened::sweep_into_fields`>
    //             <the reverse sweep, adding into `m.w`'s buffer `&mut __grad_m.w[..]`>
    //             let __grad___m_b = <m.b's adjoint>; <Model>::__autodiff_add_to_b(&mut *__grad_m, __grad___m_b);
    //             <the value> }
    /// `f_grad_into` with the reverse sweep in its body, run straight into the caller's buffers, of a
    /// function that is not `plain`: a method (whose sweep into buffers would have to be an associated
    /// function beside it) or a function of parameter structs. A constant struct (left out by `wrt(..)`,
    /// data without the derive, a constant `self`) has no part in the gradient: its fields are inputs that
    /// no buffer takes. An active struct's fields are written into the caller's struct
    /// (`Flattened::sweep_into_fields`). `None` (`f_grad` copied: `grad_into_by_copy`) where a matrix is
    /// active, or a struct is passed on whole or has a matrix field: the sweep gives their gradients as
    /// values.
    fn grad_into_in_body(&self) -> Option<TokenStream> {
        let buffers = self.buffer_names();
        let one = Emitter::one_of(&self.sig.ret_kind);
        let sweep = self.sweep_in_body(&buffers, Some(one))?;
        let (grad, signature) = self.grad_into_signature();
        let unpack = tuple_or_single(buffers.iter().map(ToTokens::to_token_stream).collect());
        let clear = self.clear_buffers(&buffers);
        let doc = format!(
            " The value of `{name}`, with its gradient written into `grad`: the caller's buffers, in the \
             order and shapes of `{name}_grad`'s gradient. The buffers are overwritten; nothing is \
             allocated for the gradient.\n\n # Panics\n\n If a buffer's length differs from its \
             parameter's.",
            name = self.item.sig.ident,
        );
        Some(quote! {
            #[doc = #doc]
            #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #[inline]
            #signature {
                let #unpack = #grad;
                #(#clear)*
                #sweep
            }
        })
    }

    // Input:  #[differentiable] fn loss(m: &Model, x: f64) -> f64 { .. m.w[i] .. m.b .. }
    // Output: fn loss_vjp(m: &Model, x: f64, d_ret: f64) -> (f64, (Model, f64)) {
    //             let mut __grad_m = Differentiable::zero_like(m); let mut __grad_x = 0.0;
    //             let __value = { let __grad_m = &mut __grad_m; let __grad_x = &mut __grad_x; <sweep_in_body> };
    //             (__value, (__grad_m, __grad_x)) }
    /// `f_vjp` of a function that is not `plain` but whose `f_grad_into` runs its sweep in its body
    /// (`sweep_in_body`): zeroed gradients, the same sweep into them, so that a parameter struct's array
    /// field is allocated once, as the gradient's field, not also as the sweep's adjoint that `f_vjp` of
    /// the sweep returning its gradient (`vjp_returning_item`) adds into a zeroed struct. Only for a float
    /// result without output parameters.
    fn vjp_in_body(&self) -> Option<TokenStream> {
        if !self.sig.returns_scalar() || self.sig.outputs().next().is_some() {
            return None;
        }
        let buffers = self.buffer_names();
        let sweep = self.sweep_in_body(&buffers, None)?;
        let zeros = self.sig.active().zip(&buffers).map(|(p, buffer)| {
            let ident = &p.ident;
            let zero = match (&p.kind, p.array) {
                (crate::ir::Kind::Struct(_), _) => {
                    let primal = match p.ty {
                        syn::Type::Reference(_) => quote!(#ident),
                        _ => quote!(&#ident),
                    };
                    quote!(::autodiff::__private::Differentiable::zero_like(#primal))
                }
                // A fixed-size array's gradient is an array.
                (_, Some(shape)) if shape.fixed => {
                    quote!(::autodiff::__private::zeros_like(&#ident))
                }
                (_, Some(_)) => quote!(::autodiff::__private::zeros_like(&#ident[..])),
                (kind, None) => Emitter::zero_of(kind),
            };
            quote!(let mut #buffer = #zero;)
        });
        let d_ret = naming::fixed("d_ret");
        let (extra, returns) = self.vjp_signature_parts(&d_ret);
        let signature = self.signature(&self.name("vjp"), Some(extra), returns);
        let value = naming::fixed("__value");
        let gradient = tuple_or_single(buffers.iter().map(ToTokens::to_token_stream).collect());
        let seeds = self.sig.output_seed_bindings(false);
        Some(quote! {
            #signature {
                #seeds
                #(#zeros)*
                let #value = {
                    #(let #buffers = &mut #buffers;)*
                    #sweep
                };
                (#value, #gradient)
            }
        })
    }

    /// The reverse sweep of `f_grad_into_in_body` and `vjp_in_body`, run straight into the buffers
    /// `buffers` (bound, one per active parameter, as `f_grad_into` takes them, and zeroed but for a
    /// struct's, which it clears itself), the output cotangent `d_ret` bound to `d_ret_value` where given;
    /// it ends with the value. `None` where the sweep gives a gradient as a value (see
    /// `grad_into_in_body`).
    fn sweep_in_body(
        &self,
        buffers: &[Ident],
        d_ret_value: Option<TokenStream>,
    ) -> Option<TokenStream> {
        let matrix =
            (self.sig.params.iter()).any(|p| p.active && p.array.is_some_and(|shape| shape.matrix));
        if matrix {
            return None;
        }
        let (inner, fields) = match self.flat {
            Some(flat) => (
                &flat.inner,
                Some(flat.sweep_into_fields(self.sig, buffers)?),
            ),
            None => (self.sig, None),
        };
        let sweep_buffers = fields.as_ref().map_or(buffers, |f| &f.buffers[..]);
        if sweep_buffers.len() != inner.active().count() {
            return None;
        }
        let d_ret = naming::fixed("d_ret");
        let d_ret_binding = d_ret_value.map(|value| quote!(let #d_ret = #value;));
        // The cotangents of the output parameters are zero (`None`), as in `f_grad`.
        let outputs = self.sig.outputs().map(|p| {
            let (d, elem) = (
                naming::output_cotangent(&p.ident),
                Signature::element_type(p),
            );
            quote!(let #d: ::core::option::Option<&[#elem]> = ::core::option::Option::None;)
        });
        // A float output's gradient buffer (`&mut T`) is a slice of one element, as the output is.
        let scalars = self
            .sig
            .active()
            .zip(buffers)
            .filter(|(p, _)| p.scalar)
            .map(|(_, b)| quote!(let #b = ::core::slice::from_mut(#b);));
        let prologue = self.flat.map(|flat| flat.prologue(self.sig));
        let mut emitter = match self.flat {
            Some(flat) => Emitter::new(self.f, &flat.inner, self.activity),
            None => self.emitter(),
        };
        let out = match &fields {
            Some(fields) => reverse::GradientOut::IntoFields(sweep_buffers, &fields.store),
            None => reverse::GradientOut::Into(sweep_buffers),
        };
        let body = reverse::vjp_body(&mut emitter, inner, &d_ret, out);
        let (zero, bind) = match &fields {
            Some(fields) => (Some(&fields.zero), Some(&fields.bind)),
            None => (None, None),
        };
        Some(quote! {
            #(#scalars)*
            #d_ret_binding
            #(#outputs)*
            #prologue
            #zero
            #bind
            #body
        })
    }

    /// The name of `f_grad_into`'s buffers parameter, and its signature.
    fn grad_into_signature(&self) -> (Ident, TokenStream) {
        let grad = naming::fixed("grad");
        let ret = &self.sig.ret_ty;
        let buffers_ty = self.sig.gradient_into_type();
        let signature = self.signature(
            &self.name("grad_into"),
            Some(quote!(#grad: #buffers_ty)),
            quote!(#ret),
        );
        (grad, signature)
    }

    /// `f_grad_into` of a method or a function of parameter structs: `f_grad`'s gradient copied into the
    /// caller's buffers (a struct is assigned).
    fn grad_into_by_copy(&self) -> TokenStream {
        let (grad, signature) = self.grad_into_signature();
        let buffers = self.buffer_names();
        let parts: Vec<Ident> = buffers
            .iter()
            .map(|b| format_ident!("{}_part", b, span = proc_macro2::Span::mixed_site()))
            .collect();
        let stores = self
            .sig
            .active()
            .zip(&buffers)
            .zip(&parts)
            .map(|((p, buffer), part)| {
                let label = p.ident.to_string();
                match p.array {
                    // Rows are `Vec`s: cloned.
                    Some(shape) if shape.matrix => quote!(#buffer.clone_from_slice(&#part[..]);),
                    // A float output read before it is written (`*e += ..`): its gradient is a float
                    // (rustc's E0608 at `&mut __grad_e[..]` before).
                    Some(_) if p.scalar => quote!(*#buffer = #part;),
                    Some(_) => quote!(
                        ::autodiff::__private::copy_into(#label, &mut #buffer[..], &#part[..]);
                    ),
                    None => quote!(*#buffer = #part;),
                }
            });
        let unpack = tuple_or_single(buffers.iter().map(ToTokens::to_token_stream).collect());
        let parts_pattern = tuple_or_single(parts.iter().map(ToTokens::to_token_stream).collect());
        let grad_fn = self.sibling(&self.name("grad"));
        let args = self.sig.params.iter().map(|p| &p.ident);
        let value = naming::fixed("value");
        quote! {
            #[doc = " The value, with the gradient written into the caller's buffers (see `_grad`)."]
            #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #[inline]
            #signature {
                let (#value, #parts_pattern) = #grad_fn(#(#args),*);
                let #unpack = #grad;
                #(#stores)*
                #value
            }
        }
    }

    /// `_grad` is `_vjp` with the cotangent 1 (and no cotangent on output parameters).
    fn grad(&self) -> Option<TokenStream> {
        if !self.sig.returns_scalar() {
            return None;
        }
        let ret = &self.sig.ret_ty;
        let gradient = self.sig.gradient_type();
        let signature = self.signature(&self.name("grad"), None, quote!((#ret, #gradient)));
        let one = Emitter::one_of(&self.sig.ret_kind);
        let body = if self.plain() {
            let none: Vec<TokenStream> = self
                .sig
                .outputs()
                .map(|_| quote!(::core::option::Option::None))
                .collect();
            self.sweep_into_fresh_buffers(one, &none)
        } else if self.sig.outputs().next().is_some() {
            // The sweep, with the outputs' cotangents `None` (zero).
            let d_ret = naming::fixed("d_ret");
            let outputs = self.sig.outputs().map(|p| {
                let (d, elem) = (
                    naming::output_cotangent(&p.ident),
                    Signature::element_type(p),
                );
                quote!(let #d: ::core::option::Option<&[#elem]> = ::core::option::Option::None;)
            });
            let body = self.vjp_body(&d_ret);
            quote!({ let #d_ret = #one; #(#outputs)* #body })
        } else {
            let vjp = self.sibling(&self.name("vjp"));
            let args = self.sig.params.iter().map(|p| &p.ident);
            quote!(#vjp(#(#args,)* #one))
        };
        let doc = format!(
            " The value and gradient of `{name}`, computed in reverse mode: `(value, gradient)`, the gradient \
             over the active parameters\n in declaration order (a tuple for several).\n\n It is `{name}_vjp` \
             with the output cotangent `d_ret = 1`; the code `#[differentiable]` generated for that is \
             shown there.",
            name = self.item.sig.ident,
        );
        Some(quote! {
            #[doc = #doc]
            #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #[inline]
            #signature {
                #body
            }
        })
    }

    /// The type `f` beside `f` through which other differentiable functions call it; its sweeps with
    /// every parameter active are the generic copy `through`'s, where `through_copy` gave it.
    fn companion(&self, generic_copy: companion::GenericCopy) -> TokenStream {
        self.companion_named(
            &self.item.sig.ident,
            generic_copy,
            true,
            self.through.clone(),
        )
    }

    // Input:  #[differentiable(wrt(w))] fn loss(w: &[f64], xs: &[f64]) -> f64 { .. }
    // Output: impl loss { fn vjp(..) { .. __loss_generic::__vjp_all(w, xs, d_ret) .. } }
    //         (no `loss::__vjp_all` or `loss::__jvp_all`: the copy's, instantiated at `f64`)
    // Input:  #[differentiable] fn f(x: f64, y: f64) -> f64 { .. }
    // Output: fn __f_vjp_into(x: f64, y: f64, d_ret: f64, grad: ..) -> f64 { ____f_generic_vjp_into(x, y, d_ret, grad) }
    //         fn f_jvp(x: f64, y: f64, tangent: (f64, f64)) -> (f64, f64) { __f_generic_jvp(x, y, tangent) }
    /// The generic copy `copy` (made by `first_order_generic_copy`, of a free function written for one
    /// float type, not of a parameter struct) whose sweeps, instantiated at the written float type, stand
    /// for the function's own: the hidden `__vjp_all` and `__jvp_all` of the companion where `wrt(..)` or
    /// output parameters restrict `f_vjp`, else the reverse sweep into buffers and `f_jvp`. The copy is
    /// differentiated with the same `wrt(..)`, so it has them, of the same signatures with the float type a
    /// parameter, and its body is the function's own with its float literals `lit::<__S>(..)` (`S::from`,
    /// folded at `f64`; so only for a function written for `f64`). Only where the function calls no
    /// function with a float argument: the copy calls a callee's generic copy, which may be the fallback of
    /// one that has none, a compile error once instantiated (`companion::fallback_copy`), where the
    /// function's own sweep calls the callee at `f64`. And only where every parameter is a name (`x: f64`,
    /// not a pattern), which the call passes on.
    fn through_copy(&self, copy: &Ident) -> Option<Ident> {
        let free = !self.method && self.flat.is_none() && self.float_params.is_empty();
        let named = || {
            self.sig.params.len() == self.item.sig.inputs.len()
                && self.item.sig.inputs.iter().all(|input| match input {
                    syn::FnArg::Typed(t) => matches!(
                        &*t.pat,
                        syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none()
                    ),
                    syn::FnArg::Receiver(_) => false,
                })
        };
        // The cheap conditions first.
        (free
            && !self.copy
            && (self.restricted() || (self.plain() && named()))
            // At `f32`, `lit::<f32>(0.1 as f64)` rounds twice where the literal `0.1f32` rounds once.
            && crate::shadow::written_float(self.item) == Some("f64")
            && calls_of(self.f, self.activity, true).is_empty())
        .then(|| copy.clone())
    }

    /// Where the function's sweep is its generic copy's (`call_through`), the doc comment's listing of
    /// that sweep as it reads at the written float type, `own()` (emitted only for the listing, under
    /// rustdoc); empty otherwise.
    fn through_listing(&self, own: impl FnOnce() -> TokenStream) -> String {
        match &self.through {
            Some(copy) if documenting() && !self.restricted() => listing(
                true,
                &format!(
                    "The sweep is that of `{copy}`, the copy of `{name}` generic over its float type that \
                     `order = K` callers differentiate, instantiated at the written float type; emitted at \
                     that type, it would read:",
                    name = self.item.sig.ident,
                ),
                &[&own()],
            ),
            _ => String::new(),
        }
    }

    /// The call of the generic copy's sweep `suffix` (`vjp_into`, `jvp`) that stands for the function's own
    /// (`through_copy`), with `extra` arguments after the parameters; none where the function's is emitted.
    fn call_through(&self, suffix: &str, extra: &[&Ident]) -> Option<TokenStream> {
        let copy = self.through.as_ref().filter(|_| !self.restricted())?;
        let callee = match suffix {
            "vjp_into" => format_ident!("__{}_vjp_into", copy),
            _ => format_ident!("{}_{}", copy, suffix),
        };
        let params = self.sig.params.iter().map(|p| &p.ident);
        Some(quote!(#callee(#(#params,)* #(#extra),*)))
    }

    // Input:  impl<T: Float> S<T> { #[differentiable] fn scale(x: T) -> T { x.sin() * x } }
    // Output: fn __scale_generic(x: T) -> T { Self::scale(x) }
    //         fn ____scale_generic_vjp(x: T, d_ret: T) -> (T, (T,)) { .. Self::scale_vjp(x, d_ret) .. }
    //         .. (`_jvp`, `_vjp_into`, `_vjp_out`, `_jvp_out`: `scale`'s companion functions, renamed)
    /// In a generic `impl`, for an associated function without `self` whose signature names the `impl`'s
    /// float type `T`: the items that the generic copy of an `order = K` caller outside the `impl` calls,
    /// `S::__g_generic(x)` for its `S::g(x)` (or `S::<__S>::__g_generic(x)` for `S::<f64>::g(x)`), which
    /// are `g` itself and its companion functions under the copy's names. `T` is then inferred from the
    /// arguments (the copy over a float type of its own, `Self::__g_over`, which the `impl`'s own hidden
    /// functions call, would leave `S`'s `T` undetermined: rustc's E0283), and the function's first order,
    /// which works at any float type (`Dual` included), serves.
    fn by_name_copy(&self) -> TokenStream {
        let name = &self.item.sig.ident;
        let copy = naming::generic_copy(name);
        let vis = &self.item.vis;
        let generics = &self.item.sig.generics;
        let where_clause = &generics.where_clause;
        let params = self
            .sig
            .params
            .iter()
            .map(|p| signature::declare(&p.ident, &p.ty));
        let idents = self.sig.params.iter().map(|p| &p.ident);
        let ret = &self.sig.ret_ty;
        let companion = self.companion_named(&copy, companion::GenericCopy::Missing, false, None);
        let marker = naming::method_copy_marker_by_name(name);
        let own = signature::float_type_params(generics);
        // (Generic over a float type of its own only, in an `impl` without one: no marker, as the check
        // of a call by the type's name finds none where there is no fallback's.)
        let marker = float_params_with_impl(self.item)
            .into_iter()
            .find(|t| !own.contains(t))
            .map(|float| {
                quote! {
                    #[doc(hidden)]
                    #[inline(always)]
                    #[allow(dead_code)]
                    #vis fn #marker(_: #float) -> ::autodiff::__private::MethodCopy {
                        ::autodiff::__private::MethodCopy
                    }
                }
            });
        quote! {
            #marker
            #[doc(hidden)]
            #[inline(always)]
            #[allow(dead_code, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
            #vis fn #copy #generics (#(#params),*) -> #ret #where_clause {
                Self::#name(#(#idents),*)
            }
            #companion
        }
    }

    /// The companion of the function under `name` (its own, or `by_name_copy`'s), with its hidden
    /// `__vjp_all` and `__jvp_all` where `with_extra` (emitted once, beside the function's own), or
    /// calling those of the generic copy `through` (`through_copy`).
    fn companion_named(
        &self,
        name: &Ident,
        generic_copy: companion::GenericCopy,
        with_extra: bool,
        through: Option<Ident>,
    ) -> TokenStream {
        let slots = companion_slots(self.sig);
        let own_name = &self.item.sig.ident;
        let outputs = companion_outputs(self.sig);
        let (vjp, jvp) = (self.name("vjp"), self.name("jvp"));
        // `wrt(..)` chooses what `f_grad` returns; a caller differentiates through every float
        // parameter (as `jax.grad`'s `argnums` does), so the companion derives with all of them active.
        // So do the callers of a function with output parameters, which need the cotangent of each
        // output's incoming value (zero where the function overwrites it).
        let restricted = self.restricted();
        let (vjp, jvp, extra) = if let Some(copy) = through.filter(|_| restricted) {
            (
                quote!(#copy::__vjp_all),
                quote!(#copy::__jvp_all),
                TokenStream::new(),
            )
        } else if restricted {
            let all = all_active(self.sig);
            let float_params = self.float_params.clone();
            let flat_all = self.flat.and_then(|flat| {
                structs::flatten(&self.item.block, &all).map(|all| all.lifting(flat.lift.clone()))
            });
            let inner_all = flat_all.as_ref().map_or(&all, |flat| &flat.inner);
            let activity =
                activity::analyze(self.f, inner_all, &float_params, &mut Errors::default());
            // Calls that only parameters outside `wrt(..)` reach may have no derivatives (`maybe.rs`):
            // in a free function's own hidden sweeps (not a copy's, which calls other copies).
            let own_sweeps = !self.copy
                && !self.method
                && flat_all.is_none()
                && float_params
                    .iter()
                    .all(|p| !p.to_string().starts_with("__"));
            let maybe = own_sweeps
                .then(|| {
                    maybe::plan(
                        self.f,
                        self.sig,
                        &all,
                        self.activity,
                        &activity,
                        &float_params,
                    )
                })
                .flatten();
            // In a generic copy, its calls through `copy_or_as_written!` that only parameters outside
            // `wrt(..)` reach (`maybe::CopyCall`), of one float or of an array (`copy_arrays`).
            let (copy_maybe, copy_arrays) = maybe::copy_plan(self.f, self.activity, &activity);
            // In a generic copy, such a call that takes a tuple or writes an output: the copy's
            // hidden sweeps keep the parameters outside `wrt(..)` constant, as the first order's do
            // (`constant` below, which its companion declares).
            let constant_copy = maybe.is_none()
                && !own_sweeps
                && flat_all.is_none()
                && self.sig.outputs().next().is_none()
                && maybe::copy_unplanned(self.f, self.activity, &activity);
            let (copy_maybe, copy_arrays) = match constant_copy {
                true => Default::default(),
                false => (copy_maybe, copy_arrays),
            };
            // Where such a call cannot be chosen at compile time (an array or tuple value, a tuple
            // argument, an output parameter: `let v = features(c)` with `c` outside `wrt(..)`), the hidden
            // sweeps keep the parameters outside `wrt(..)` constant, as the function's own sweeps do, and
            // the companion says no derivative comes back through them (`maybe::constant_through`): so
            // the call compiles whether or not the callee has derivatives, and a caller differentiating
            // such a parameter is an error at its call, never a wrong derivative.
            let constant = maybe.is_none()
                && own_sweeps
                && self.sig.outputs().next().is_none()
                && copy_maybe.is_empty()
                && copy_arrays.is_empty()
                && maybe::unplanned(self.f, self.activity, &activity);
            let (activity, through) = match &maybe {
                Some(maybe) => (
                    activity.with_maybe_arrays(
                        maybe.calls.iter().chain(&copy_maybe).copied().collect(),
                        maybe.arrays.iter().chain(&copy_arrays).copied().collect(),
                    ),
                    Some(maybe.through_const(&self.item.sig.ident)),
                ),
                None if constant => (
                    activity::analyze(self.f, self.sig, &float_params, &mut Errors::default()),
                    Some(maybe::constant_through(self.sig, &all)),
                ),
                None if constant_copy => (
                    activity::analyze(self.f, self.sig, &float_params, &mut Errors::default()),
                    None,
                ),
                None => (
                    activity.with_maybe_arrays(copy_maybe.clone(), copy_arrays.clone()),
                    None,
                ),
            };
            let (d_ret, tangent) = (naming::fixed("d_ret"), naming::fixed("tangent"));
            let (vjp_body, jvp_body) = match &flat_all {
                // Both sweeps start from one emitter (see `Generated::emitter`).
                None => {
                    let mut emitter = Emitter::new(self.f, &all, &activity);
                    let vjp_body = reverse::vjp_body(
                        &mut emitter.fresh_copy(),
                        &all,
                        &d_ret,
                        reverse::GradientOut::Returned,
                    );
                    (vjp_body, forward::jvp_body(&mut emitter, &all, &tangent))
                }
                Some(flat_all) => (
                    vjp_body(self.f, &all, Some(flat_all), &activity, &d_ret),
                    jvp_body(self.f, &all, Some(flat_all), &activity, &tangent),
                ),
            };
            let (ret, gradient) = (&all.ret_ty, all.gradient_type());
            let params: Vec<TokenStream> = all
                .params
                .iter()
                .map(|p| signature::declare(&p.ident, &p.ty))
                .collect();
            let generics = &self.item.sig.generics;
            let where_clause = &generics.where_clause;
            // Inside an `impl`, beside other methods' items: named after the method.
            let (vjp_all, jvp_all) = if self.method {
                (
                    naming::method_companion(own_name, "vjp_all"),
                    naming::method_companion(own_name, "jvp_all"),
                )
            } else {
                (format_ident!("__vjp_all"), format_ident!("__jvp_all"))
            };
            let (vjp_extra, jvp_extra, jvp_ret) = output_parameters(&all);
            // Hidden, with the function's parameter types: `ptr_arg` (`&mut Vec<T>` for `&mut [T]`) is the
            // user's to allow on the function, not here.
            // A maybe call's fallback item never returns (`!`): `diverging_sub_expression` in the branch
            // that only a callee without derivatives takes, which never runs it.
            let diverging = ((maybe.as_ref())
                .is_some_and(|maybe| !maybe.calls.is_empty() || !maybe.arrays.is_empty())
                || !copy_maybe.is_empty()
                || !copy_arrays.is_empty())
            .then(|| quote!(, clippy::diverging_sub_expression));
            let extra = quote! {
                #through
                #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments, clippy::ptr_arg #diverging)]
                fn #vjp_all #generics (#(#params,)* #d_ret: #ret #vjp_extra) -> (#ret, #gradient) #where_clause { #vjp_body }
                #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments, clippy::ptr_arg #diverging)]
                fn #jvp_all #generics (#(#params,)* #tangent: #gradient #jvp_extra) -> #jvp_ret #where_clause { #jvp_body }
            };
            let extra = if with_extra {
                extra
            } else {
                TokenStream::new()
            };
            (quote!(Self::#vjp_all), quote!(Self::#jvp_all), extra)
        } else {
            (self.sibling(&vjp), self.sibling(&jvp), TokenStream::new())
        };
        // The reverse sweep runs straight into the caller's buffers where it adds into them.
        let direct = self.plain()
            && !restricted
            && slots.iter().all(|s| match s.into {
                companion::IntoSlot::Array { direct, .. } => direct,
                companion::IntoSlot::Scalar { .. } => true,
                companion::IntoSlot::None => !s.active,
            });
        let sweep_into = direct.then(|| {
            let into = self.vjp_into_name();
            quote!(#into)
        });
        // Beside it, the sweeps for callers lending inactive data (emitted once, with the function's own).
        let (partial_items, partial_sweeps) = match direct && with_extra {
            true => self.partial_sweeps(),
            false => (TokenStream::new(), Vec::new()),
        };
        // Where `wrt(..)` leaves parameters out, the function's own sweep serves the callers that pass
        // them inactive data.
        // (A copy made without being asked has no `f_vjp`, and no sweep into buffers, where `wrt(..)`
        // restricts it.)
        let own_direct = self.plain()
            && restricted
            && !self.copy
            && self.sig.outputs().next().is_none()
            && self.sig.params.iter().filter(|p| p.active).all(|p| {
                match companion::IntoSlot::of(p, true) {
                    companion::IntoSlot::Array { direct, .. } => direct,
                    companion::IntoSlot::Scalar { .. } => true,
                    companion::IntoSlot::None => false,
                }
            });
        let own_sweep = own_direct.then(|| {
            let into = self.vjp_into_name();
            let active = self.sig.params.iter().map(|p| p.active).collect();
            (quote!(#into), active)
        });
        let companion = companion::companion(&companion::Companion {
            vis: &self.item.vis,
            name,
            generics: &self.item.sig.generics,
            slots: &slots,
            ret: self.sig.ret_ty.to_token_stream(),
            zero_ret: zero_ret(self.sig, &self.sibling(own_name)),
            vjp,
            jvp,
            sweep_into,
            partial_sweeps,
            own_sweep,
            extra,
            method: self.method,
            generic_copy,
            outputs,
            // Only the rules of `rules.rs`, no callee that may change the cotangent.
            linear: calls_of(self.f, self.activity, true).is_empty(),
        });
        quote!(#companion #partial_items)
    }

    /// A path to the generated item `name` from its siblings: `Self::name` inside an `impl`.
    fn sibling(&self, name: &Ident) -> TokenStream {
        if self.method {
            quote!(Self::#name)
        } else {
            quote!(#name)
        }
    }

    fn jvp(&self) -> TokenStream {
        let tangent = naming::fixed("tangent");
        let ret = &self.sig.ret_ty;
        let gradient = self.sig.gradient_type();
        // The tangents of the output parameters go into buffers of the caller's.
        let buffers = self.sig.outputs().map(|p| {
            let (d, ty) = (
                naming::output_tangent(&p.ident),
                Signature::output_seed_type(p, true),
            );
            quote!(, #d: #ty)
        });
        let returns = if self.sig.returns_unit() {
            quote!(())
        } else {
            quote!((#ret, #ret))
        };
        let signature = self.signature(
            &self.name("jvp"),
            Some(quote!(#tangent: #gradient #(#buffers)*)),
            returns,
        );
        let body = match (self.flat, self.call_through("jvp", &[&tangent])) {
            (None, Some(call)) => call,
            (None, None) => forward::jvp_body(&mut self.emitter(), self.sig, &tangent),
            (Some(_), _) => jvp_body(self.f, self.sig, self.flat, self.activity, &tangent),
        };
        let seeds = self.sig.output_seed_bindings(true);
        let item = quote!(#signature { #seeds #body });
        let doc = self.doc(|| {
            format!(
                " Forward mode of `{name}`: its value and the Jacobian-vector product for the input \
                 `tangent` (shaped like the gradient),\n as `(value, output tangent)`.{}{}",
                listing(documenting(), "Generated by `#[differentiable]`:", &[&item]),
                self.through_listing(|| {
                    let body = forward::jvp_body(&mut self.emitter(), self.sig, &tangent);
                    quote!(#signature { #body })
                }),
                name = self.item.sig.ident,
            )
        });
        quote!(#doc #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)] #[inline] #item)
    }
}

/// The companion's slot of each parameter: every float and array parameter is differentiated through
/// calls.
/// The names of the gradient buffers inside the generated functions, one per active parameter of `sig`.
fn buffer_names(sig: &Signature) -> Vec<Ident> {
    sig.active()
        .map(|p| {
            let base = format!("__grad_{}", naming::unraw(&p.ident));
            Ident::new(&base, proc_macro2::Span::mixed_site())
        })
        .collect()
}

pub(crate) fn companion_slots(sig: &Signature) -> Vec<companion::Slot> {
    let all = all_active(sig);
    all.params
        .iter()
        .map(|p| companion::Slot {
            ident: p.ident.clone(),
            ty: p.ty.clone(),
            active: p.active,
            tangent_ty: p.active.then(|| p.grad_ty.to_token_stream()),
            into: companion::IntoSlot::of(p, p.active),
        })
        .collect()
}

/// `sig` with every parameter a caller differentiates through active, output parameters included (their
/// gradient, the cotangent of the incoming value, is then a `Vec<T>` whatever the output's shape).
fn all_active(sig: &Signature) -> Signature {
    let mut all = sig.clone();
    for p in &mut all.params {
        p.active = p.through_calls();
        if p.output && !p.scalar {
            let elem = Signature::element_type(p);
            p.grad_ty = signature::vec_of(&elem);
        }
    }
    all
}

/// `Some(d)` for the cotangent `d` of the output parameter `p`, as the hidden reverse sweep takes it
/// (`Option<&[T]>`; a float output's cotangent is a slice of one element).
fn output_cotangent_slice(p: &crate::signature::Param) -> TokenStream {
    let d = naming::output_cotangent(&p.ident);
    if p.scalar {
        quote!(::core::option::Option::Some(::core::slice::from_ref(&#d)))
    } else {
        quote!(::core::option::Option::Some(&#d[..]))
    }
}

/// For a function with output parameters, what its companion needs to know of them.
pub(crate) fn companion_outputs(sig: &Signature) -> Option<companion::Outputs> {
    let outputs: Vec<companion::Output> = sig
        .outputs()
        .map(|p| companion::Output {
            ident: p.ident.clone(),
            cotangent_ty: Signature::output_buffer_type(p, false),
            tangent_ty: Signature::output_buffer_type(p, true),
            passed: output_cotangent_slice(p),
            elem: Signature::element_type(p).to_token_stream(),
            scalar: p.scalar,
        })
        .collect();
    if outputs.is_empty() {
        return None;
    }
    Some(companion::Outputs {
        outputs,
        returns_unit: sig.returns_unit(),
    })
}

/// The zero cotangent of what the function of `sig` returns, for a caller that has none (`d_ret: None`
/// in its companion's `vjp` with output parameters, or `vjp_out`). `function` is the path to the function.
pub(crate) fn zero_ret(sig: &Signature, function: &TokenStream) -> TokenStream {
    match &sig.ret_kind {
        // A returned array's zero cotangent has its length, known once the function has run: it runs on
        // copies of the outputs (only where a caller drops such a function's array result).
        crate::ir::Kind::Array => {
            let args = sig.params.iter().map(|p| {
                let ident = &p.ident;
                if p.output {
                    quote!(&mut ::autodiff::__private::snapshot(&*#ident))
                } else {
                    quote!(::core::clone::Clone::clone(&#ident))
                }
            });
            quote!(::autodiff::__private::zeros_like(&#function(#(#args),*)))
        }
        crate::ir::Kind::Unit => quote!(()),
        kind => Emitter::zero_of(kind),
    }
}

/// The output parameters' extra parameters of the hidden `__vjp_all` and `__jvp_all` of `sig` (each
/// output's cotangent as `Option<&[T]>`, its tangent buffer), and `__jvp_all`'s return type.
fn output_parameters(sig: &Signature) -> (TokenStream, TokenStream, TokenStream) {
    let cotangents = sig.outputs().map(|p| {
        let (d, elem) = (
            naming::output_cotangent(&p.ident),
            Signature::element_type(p),
        );
        quote!(, #d: ::core::option::Option<&[#elem]>)
    });
    let tangents = sig.outputs().map(|p| {
        let (d, ty) = (
            naming::output_tangent(&p.ident),
            Signature::output_buffer_type(p, true),
        );
        quote!(, #d: #ty)
    });
    let ret = &sig.ret_ty;
    let jvp_ret = if sig.returns_unit() {
        quote!(())
    } else {
        quote!((#ret, #ret))
    };
    (quote!(#(#cotangents)*), quote!(#(#tangents)*), jvp_ret)
}

/// The body of `f_vjp` for the declared signature `sig`: the reverse sweep over the inputs, and with
/// parameter structs, their gradients assembled from their fields'.
fn vjp_body(
    f: &Function,
    sig: &Signature,
    flat: Option<&Flattened>,
    activity: &Activity,
    d_ret: &Ident,
) -> TokenStream {
    let inner = flat.map_or(sig, |flat| &flat.inner);
    let body = reverse::vjp_body(
        &mut Emitter::new(f, inner, activity),
        inner,
        d_ret,
        reverse::GradientOut::Returned,
    );
    match flat {
        Some(flat) => flat.vjp_body(sig, body),
        None => body,
    }
}

/// The body of `f_jvp` for the declared signature `sig`: with parameter structs, the tangent is spread
/// over their fields' inputs first.
fn jvp_body(
    f: &Function,
    sig: &Signature,
    flat: Option<&Flattened>,
    activity: &Activity,
    tangent: &Ident,
) -> TokenStream {
    match flat {
        Some(flat) => {
            let inner_tangent = naming::fixed("__inner_tangent");
            let body = forward::jvp_body(
                &mut Emitter::new(f, &flat.inner, activity),
                &flat.inner,
                &inner_tangent,
            );
            flat.jvp_body(sig, tangent, &inner_tangent, body)
        }
        None => forward::jvp_body(&mut Emitter::new(f, sig, activity), sig, tangent),
    }
}

/// Whether this expansion is for `rustdoc` (`cargo doc`, doc tests), the only reader of the listings
/// in the doc comments. Parsing the generated items back and formatting them costs more than the rest
/// of an expansion, so builds, checks and clippy, which never show a doc comment, skip it. A proc
/// macro is told nothing about its caller but runs in its process, whose executable tells.
fn documenting() -> bool {
    static DOCUMENTING: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DOCUMENTING.get_or_init(|| {
        std::env::current_exe().is_ok_and(|exe| {
            exe.file_stem()
                .and_then(|stem| stem.to_str())
                .is_some_and(|stem| stem.starts_with("rustdoc"))
        })
    })
}

/// The doc comment's listing of the generated `items` after `intro`, formatted as a person would
/// write them; empty unless `documenting`.
fn listing(documenting: bool, intro: &str, items: &[&TokenStream]) -> String {
    if !documenting {
        return String::new();
    }
    let code: Vec<String> = items.iter().map(|item| pretty(item)).collect();
    format!("\n\n {intro}\n\n```text\n{}```", code.join("\n"))
}

/// The generated function as a person would format it, for its doc comment.
fn pretty(item: &TokenStream) -> String {
    match syn::parse2::<syn::File>(item.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => item.to_string(),
    }
}

/// Stand-ins for the generated items after an error: the right signatures where they are known, so
/// that callers type-check, and bodies that are never run (the crate does not compile). With `order = K`,
/// `f_hvp`, `f_hessian` and `f_derivatives` too; `f_jacobian` where the function would have one.
pub(crate) fn stubs(
    item: &syn::ItemFn,
    sig: Option<&Signature>,
    order: Option<&syn::LitInt>,
) -> TokenStream {
    let name = &item.sig.ident;
    let vis = &item.vis;
    let generics = &item.sig.generics;
    let where_clause = &generics.where_clause;
    let params: Vec<TokenStream> = item
        .sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            syn::FnArg::Typed(pt) => Some(pt.ty.to_token_stream()),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    // A method's stubs are methods too, which its companion functions call with `self` first.
    let receiver = item.sig.receiver().map(|r| quote!(#r));
    let param_list: Vec<TokenStream> = receiver
        .into_iter()
        .chain(params.iter().enumerate().map(|(i, ty)| {
            let ident = format_ident!("__arg{}", i, span = proc_macro2::Span::mixed_site());
            quote!(#ident: #ty)
        }))
        .collect();
    let (shaped, scalar) = match sig {
        Some(sig) => (
            Some((sig.ret_ty.to_token_stream(), sig.gradient_type())),
            sig.returns_scalar(),
        ),
        None => (None, true),
    };
    let buffers = sig.map(Signature::gradient_into_type);
    let existing: Vec<&syn::GenericParam> = generics.params.iter().collect();
    let fixed = |name: &str| format_ident!("{}", name, span = proc_macro2::Span::mixed_site());
    let stub = |suffix: &str,
                extra: Vec<(Ident, TokenStream)>,
                ret: TokenStream,
                placeholders: &[String]| {
        let stub_name = format_ident!("{}_{}", name, suffix, span = name.span());
        let placeholders: Vec<Ident> = placeholders
            .iter()
            .map(|p| format_ident!("{}", p))
            .collect();
        let extra = extra.iter().map(|(param, ty)| quote!(#param: #ty));
        quote! {
            #[allow(unused_variables, clippy::diverging_sub_expression)]
            #vis fn #stub_name <#(#existing,)* #(#placeholders),*> (#(#param_list,)* #(#extra),*) -> #ret #where_clause {
                ::core::panic!("`#[differentiable]` reported a compile error for this function")
            }
        }
    };
    let placeholders =
        |names: &[&str]| -> Vec<String> { names.iter().map(|n| n.to_string()).collect() };
    let (grad, vjp, jvp) = match (&shaped, sig) {
        (Some((ret, gradient)), Some(sig)) => {
            // Output parameters: a cotangent each for `f_vjp` (no `d_ret`, and no value, when `R` is
            // `()`), a tangent buffer each for `f_jvp` (which then returns `()`).
            let unit = sig.returns_unit();
            let mut vjp_extra: Vec<(Ident, TokenStream)> = Vec::new();
            if !unit {
                vjp_extra.push((fixed("d_ret"), ret.clone()));
            }
            let mut jvp_extra = vec![(fixed("tangent"), gradient.clone())];
            for p in sig.outputs() {
                let d = naming::output_cotangent(&p.ident);
                vjp_extra.push((d.clone(), Signature::output_seed_type(p, false)));
                jvp_extra.push((d, Signature::output_seed_type(p, true)));
            }
            let (vjp_ret, jvp_ret) = if unit {
                (gradient.clone(), quote!(()))
            } else {
                (quote!((#ret, #gradient)), quote!((#ret, #ret)))
            };
            (
                scalar.then(|| stub("grad", Vec::new(), quote!((#ret, #gradient)), &[])),
                stub("vjp", vjp_extra, vjp_ret, &[]),
                stub("jvp", jvp_extra, jvp_ret, &[]),
            )
        }
        // Shapes unknown: generic placeholders that any call site can infer, so callers get no errors;
        // one more for each `&mut` parameter (an output's cotangent or tangent buffer).
        _ => {
            let outputs: Vec<String> = params
                .iter()
                .filter(|ty| {
                    syn::parse2::<syn::TypeReference>((*ty).clone())
                        .is_ok_and(|r| r.mutability.is_some())
                })
                .enumerate()
                .map(|(i, _)| format!("__Output{i}"))
                .collect();
            let output_params: Vec<(Ident, TokenStream)> = outputs
                .iter()
                .enumerate()
                .map(|(i, ty)| {
                    let ty = format_ident!("{}", ty);
                    (fixed(&format!("d_output{i}")), quote!(#ty))
                })
                .collect();
            let with_outputs = |names: &[&str]| {
                let mut all = placeholders(names);
                all.extend(outputs.iter().cloned());
                all
            };
            let mut vjp_extra = vec![(fixed("d_ret"), quote!(__Cotangent))];
            vjp_extra.extend(output_params.iter().cloned());
            let mut jvp_extra = vec![(fixed("tangent"), quote!(__Tangent))];
            jvp_extra.extend(output_params.iter().cloned());
            (
                Some(stub(
                    "grad",
                    Vec::new(),
                    quote!((__Value, __Gradient)),
                    &placeholders(&["__Value", "__Gradient"]),
                )),
                stub(
                    "vjp",
                    vjp_extra,
                    quote!((__Value, __Gradient)),
                    &with_outputs(&["__Cotangent", "__Value", "__Gradient"]),
                ),
                stub(
                    "jvp",
                    jvp_extra,
                    quote!((__Value, __Output)),
                    &with_outputs(&["__Tangent", "__Value", "__Output"]),
                ),
            )
        }
    };
    // The companion too, so that a differentiable caller of `f` gets no error of its own (with `wrt(..)`
    // restricting the gradient, the stubs' shapes differ from the companion's: no companion then). A
    // function with output parameters has its companion's hidden functions stubbed too.
    let unrestricted = sig.filter(|sig| {
        sig.outputs().next().is_some() || sig.params.iter().all(|p| p.active || !p.through_calls())
    });
    let method = is_method(item);
    let companion = unrestricted.map(|sig| {
        let slots = companion_slots(sig);
        let path = |name: &Ident| match method {
            true => quote!(Self::#name),
            false => quote!(#name),
        };
        let outputs = companion_outputs(sig);
        let (vjp, jvp, extra) = if outputs.is_some() {
            let all = all_active(sig);
            let (vjp_extra, jvp_extra, jvp_ret) = output_parameters(&all);
            let (ret, gradient) = (&all.ret_ty, all.gradient_type());
            let params = all.params.iter().map(|p| signature::declare(&p.ident, &p.ty));
            let params: Vec<TokenStream> = params.collect();
            let (d_ret, tangent) = (naming::fixed("d_ret"), naming::fixed("tangent"));
            // Inside an `impl`, beside other methods' items: named after the method.
            let (vjp_all, jvp_all) = if method {
                (
                    naming::method_companion(name, "vjp_all"),
                    naming::method_companion(name, "jvp_all"),
                )
            } else {
                (format_ident!("__vjp_all"), format_ident!("__jvp_all"))
            };
            let extra = quote! {
                #[allow(unused, clippy::diverging_sub_expression, clippy::too_many_arguments)]
                fn #vjp_all #generics (#(#params,)* #d_ret: #ret #vjp_extra) -> (#ret, #gradient) #where_clause {
                    ::core::panic!("`#[differentiable]` reported a compile error for this function")
                }
                #[allow(unused, clippy::diverging_sub_expression, clippy::too_many_arguments)]
                fn #jvp_all #generics (#(#params,)* #tangent: #gradient #jvp_extra) -> #jvp_ret #where_clause {
                    ::core::panic!("`#[differentiable]` reported a compile error for this function")
                }
            };
            (quote!(Self::#vjp_all), quote!(Self::#jvp_all), extra)
        } else {
            let (vjp, jvp) = (
                signature::derived_name(item, "vjp"),
                signature::derived_name(item, "jvp"),
            );
            (path(&vjp), path(&jvp), TokenStream::new())
        };
        companion::companion(&companion::Companion {
            vis: &item.vis,
            name: &item.sig.ident,
            generics: &item.sig.generics,
            slots: &slots,
            ret: sig.ret_ty.to_token_stream(),
            zero_ret: zero_ret(sig, &path(name)),
            vjp,
            jvp,
            sweep_into: None,
            partial_sweeps: Vec::new(),
            own_sweep: None,
            extra,
            method,
            generic_copy: if method {
                companion::GenericCopy::Missing
            } else if !signature::float_type_params(&item.sig.generics).is_empty() {
                companion::GenericCopy::Itself(path(name))
            } else {
                // The fallback, so that the generic copies of callers compile: one error, this one's.
                companion::GenericCopy::Fallback {
                    why: "it has a compile error of its own".into(),
                }
            },
            outputs,
            linear: false,
        })
    });
    let grad_into = match (&shaped, &buffers) {
        (Some((ret, _)), Some(buffers)) => scalar.then(|| {
            stub(
                "grad_into",
                vec![(fixed("grad"), buffers.clone())],
                ret.clone(),
                &[],
            )
        }),
        _ => Some(stub(
            "grad_into",
            vec![(fixed("grad"), quote!(__Buffers))],
            quote!(__Value),
            &placeholders(&["__Buffers", "__Value"]),
        )),
    };
    let higher = order.map(|order| higher_stubs(&stub, shaped.as_ref(), sig, scalar, order));
    let jacobian = match (&shaped, sig) {
        (Some(_), Some(sig)) => crate::jacobian::element(sig).map(|elem| {
            stub(
                "jacobian",
                Vec::new(),
                quote!(::std::vec::Vec<::std::vec::Vec<#elem>>),
                &[],
            )
        }),
        _ => Some(stub(
            "jacobian",
            Vec::new(),
            quote!(__Jacobian),
            &placeholders(&["__Jacobian"]),
        )),
    };
    quote!(#grad #grad_into #vjp #jvp #higher #jacobian #companion)
}

/// A stub of one generated item (`stubs`): `(suffix, extra parameters, return type, placeholder type
/// parameters)` to the item.
type StubOf<'a> =
    &'a dyn Fn(&str, Vec<(Ident, TokenStream)>, TokenStream, &[String]) -> TokenStream;

/// The stubs of `order = K`'s items (`stubs`), made by `stub(suffix, extra parameters, return type,
/// placeholder type parameters)`: `f_hvp` and `f_hessian` of a function with a float-scalar result, and
/// `f_derivatives` of one with one scalar active input; where the shapes are unknown (`shaped` is `None`),
/// all three over placeholders any call site can infer.
fn higher_stubs(
    stub: StubOf<'_>,
    shaped: Option<&(TokenStream, TokenStream)>,
    sig: Option<&Signature>,
    scalar: bool,
    order: &syn::LitInt,
) -> TokenStream {
    let v = format_ident!("v", span = proc_macro2::Span::mixed_site());
    let names = |names: &[&str]| -> Vec<String> { names.iter().map(ToString::to_string).collect() };
    let len = order.base10_parse::<usize>().unwrap_or(2) + 1;
    match (shaped, sig) {
        (Some((ret, gradient)), Some(sig)) => {
            if !scalar {
                return TokenStream::new();
            }
            let hvp = stub(
                "hvp",
                vec![(v, gradient.clone())],
                quote!((#ret, #gradient, #gradient)),
                &[],
            );
            let hessian = stub(
                "hessian",
                Vec::new(),
                quote!((#ret, #gradient, ::std::vec::Vec<::std::vec::Vec<#ret>>)),
                &[],
            );
            let one_scalar = matches!(sig.active().collect::<Vec<_>>().as_slice(),
                [p] if p.array.is_none()
                    && !matches!(p.kind, crate::ir::Kind::Struct(_))
                    && signature::float_tuple(&p.kind).is_none());
            let derivatives =
                one_scalar.then(|| stub("derivatives", Vec::new(), quote!([#ret; #len]), &[]));
            quote!(#hvp #hessian #derivatives)
        }
        _ => {
            let hvp = stub(
                "hvp",
                vec![(v, quote!(__Direction))],
                quote!((__Value, __Gradient, __Product)),
                &names(&["__Direction", "__Value", "__Gradient", "__Product"]),
            );
            let hessian = stub(
                "hessian",
                Vec::new(),
                quote!((__Value, __Gradient, __Hessian)),
                &names(&["__Value", "__Gradient", "__Hessian"]),
            );
            let derivatives = stub(
                "derivatives",
                Vec::new(),
                quote!(__Derivatives),
                &names(&["__Derivatives"]),
            );
            quote!(#hvp #hessian #derivatives)
        }
    }
}

/// Expansion snapshots: each `tests/expand/NAME.rs` of the workspace holds `#[differentiable]` functions;
/// their expansion, formatted and without the doc comments (which repeat the code), must equal
/// `tests/expand/NAME.expanded.rs`. Run with `AUTODIFF_BLESS=1` to write the snapshots after a deliberate
/// change, and review the diff.
#[cfg(test)]
mod listings {
    use super::{documenting, listing};
    use quote::quote;

    #[test]
    fn a_listing_is_the_formatted_items_under_rustdoc_and_nothing_otherwise() {
        let f = quote!(
            fn f(x: f64) -> f64 {
                let y = x * x;
                y
            }
        );
        let g = quote!(
            fn g() {}
        );
        assert_eq!(listing(false, "Generated:", &[&f, &g]), "");
        assert_eq!(
            listing(true, "Generated:", &[&f, &g]),
            "\n\n Generated:\n\n```text\nfn f(x: f64) -> f64 {\n    let y = x * x;\n    y\n}\n\nfn g() {}\n```"
        );
    }

    #[test]
    fn a_test_binary_is_not_rustdoc() {
        assert!(!documenting());
    }
}

#[cfg(test)]
mod receivers {
    use super::self_only_a_receiver;

    /// A method's copy with a constant `self` calls the copies of the methods it calls on `self` where
    /// it takes `&self` and passes `self` on only as their receiver; differentiated in `self`, where each
    /// such call also passes a float parameter, which gives the callee's copy its float type.
    #[test]
    fn self_only_a_receiver_of_method_calls() {
        let chain: syn::ItemFn = syn::parse_quote!(
            fn f(&self, x: &[f64], k: usize) -> f64 {
                self.g(&x[1..]).sin() * self.w[k] + self.h(x[0], k)
            }
        );
        assert!(self_only_a_receiver(&chain, false));
        assert!(self_only_a_receiver(&chain, true));
        let by_value: syn::ItemFn = syn::parse_quote!(
            fn f(self, x: f64) -> f64 {
                self.g(x)
            }
        );
        assert!(!self_only_a_receiver(&by_value, false));
        let passed: syn::ItemFn = syn::parse_quote!(
            fn f(&self, x: f64) -> f64 {
                g(self, x) + self.h(x)
            }
        );
        assert!(!self_only_a_receiver(&passed, false));
        let no_float: syn::ItemFn = syn::parse_quote!(
            fn f(&self, x: f64) -> f64 {
                self.norm() * x + self.h(2.0 * x)
            }
        );
        assert!(self_only_a_receiver(&no_float, false));
        assert!(!self_only_a_receiver(&no_float, true));
    }
}

#[cfg(test)]
mod snapshots {
    use super::differentiable;
    use proc_macro2::TokenStream;
    use quote::ToTokens;
    use std::path::Path;

    fn expand_file(source: &str) -> String {
        let file: syn::File = syn::parse_str(source).expect("snapshot sources parse");
        let mut out = proc_macro2::TokenStream::new();
        for item in file.items {
            let syn::Item::Fn(mut item) = item else {
                out.extend(item.into_token_stream());
                continue;
            };
            type Expander = fn(TokenStream, TokenStream) -> TokenStream;
            let macros: [(&str, Expander); 3] = [
                ("differentiable", differentiable),
                ("custom_gradient", crate::custom::custom_gradient),
                ("gradient_of", crate::custom::gradient_of),
            ];
            let found = item.attrs.iter().enumerate().find_map(|(i, a)| {
                macros
                    .iter()
                    .find(|(name, _)| a.path().is_ident(name))
                    .map(|(_, expand)| (i, *expand))
            });
            match found {
                Some((i, expand)) => {
                    let attr = item.attrs.remove(i);
                    let args = match attr.meta {
                        syn::Meta::List(list) => list.tokens,
                        _ => proc_macro2::TokenStream::new(),
                    };
                    out.extend(expand(args, item.into_token_stream()));
                }
                None => out.extend(item.into_token_stream()),
            }
        }
        let mut expanded: syn::File = syn::parse2(out).expect("the expansion parses");
        for item in &mut expanded.items {
            if let syn::Item::Fn(f) = item {
                f.attrs.retain(|a| !a.path().is_ident("doc"));
            }
        }
        prettyplease::unparse(&expanded)
    }

    /// The macro never panics: every function of every UI case and test file expands (to code or to
    /// errors) without a panic, with each attribute (none, `wrt(x)`, `order = 2`), and also with its body
    /// cut short at each statement, under one of the attributes in turn (all three at every cut tripled
    /// the time for little: the cuts are many). The files are shared between two threads.
    #[test]
    fn no_input_makes_the_macro_panic() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        let mut dirs = vec![root.join("tests"), root.join("examples")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        files.sort();
        const ATTRS: [&str; 3] = ["", "wrt(x)", "order = 2"];
        let expand_all = |files: Vec<&std::path::PathBuf>| -> usize {
            let mut expanded = 0;
            for path in files {
                let Ok(source) = std::fs::read_to_string(path) else {
                    continue;
                };
                let Ok(file) = syn::parse_file(&source) else {
                    continue;
                };
                for item in file.items {
                    let syn::Item::Fn(item) = item else { continue };
                    let mut variants: Vec<(syn::ItemFn, &[&str])> =
                        vec![(item.clone(), &ATTRS[..])];
                    for cut in 0..item.block.stmts.len() {
                        let mut shorter = item.clone();
                        shorter.block.stmts.truncate(cut);
                        variants.push((shorter, &ATTRS[cut % 3..cut % 3 + 1]));
                    }
                    for (variant, attrs) in variants {
                        for attr in attrs {
                            let args: TokenStream = attr.parse().unwrap_or_default();
                            let tokens = variant.to_token_stream();
                            let result = std::panic::catch_unwind(|| {
                                differentiable(args.clone(), tokens.clone());
                                crate::custom::custom_gradient(TokenStream::new(), tokens.clone());
                                crate::custom::gradient_of(
                                    quote::quote!(some::path),
                                    tokens.clone(),
                                );
                            });
                            assert!(
                                result.is_ok(),
                                "the macro panicked on {} in {}",
                                variant.sig.ident,
                                path.display()
                            );
                            expanded += 1;
                        }
                    }
                }
            }
            expanded
        };
        let half = |parity: usize| -> Vec<&std::path::PathBuf> {
            files.iter().skip(parity).step_by(2).collect()
        };
        let (even, odd) = (half(0), half(1));
        let expanded = std::thread::scope(|scope| {
            let other = scope.spawn(|| expand_all(odd));
            let mine = expand_all(even);
            mine + other
                .join()
                .expect("the other half expands without a panic")
        });
        assert!(expanded > 1000, "only {expanded} expansions were tried");
    }

    #[test]
    // The snapshots are of the optimised adjoint; the reference build (every shortcut off) expands
    // differently by design, and is checked against it by the integration tests instead.
    #[cfg_attr(
        feature = "reference-adjoint",
        ignore = "the snapshots are of the optimised adjoint"
    )]
    fn expansions_match_their_snapshots() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/expand");
        let bless = std::env::var_os("AUTODIFF_BLESS").is_some();
        let mut checked = 0;
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .expect("tests/expand exists")
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.path());
        for entry in entries {
            let path = entry.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            if !name.ends_with(".rs") || name.ends_with(".expanded.rs") {
                continue;
            }
            let source = std::fs::read_to_string(&path).expect("readable source");
            let expanded = expand_file(&source);
            let snapshot = path.with_file_name(name.replace(".rs", ".expanded.rs"));
            match std::fs::read_to_string(&snapshot) {
                Ok(expected) if !bless => assert!(
                    expected == expanded,
                    "the expansion of {name} changed; if that is intended, rerun with AUTODIFF_BLESS=1 and \
                     review the diff. New expansion:\n{expanded}"
                ),
                Ok(_) => std::fs::write(&snapshot, &expanded).expect("snapshot written"),
                Err(_) => {
                    std::fs::write(&snapshot, &expanded).expect("snapshot written");
                    panic!("{} did not exist: written now, review and commit it", snapshot.display());
                }
            }
            checked += 1;
        }
        assert!(
            checked >= 3,
            "expected at least three expansion snapshots, found {checked}"
        );
    }
}
