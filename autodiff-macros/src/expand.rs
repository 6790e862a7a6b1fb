//! The pipeline of `#[differentiable]`: parse, check, lower, analyse, emit. On any error the original
//! function is emitted unchanged beside stubs of the generated items, so a mistake gives its own error and
//! not a cascade of unresolved names at every call site (thiserror's `fallback.rs`).

use crate::activity::{self, Activity};
use crate::args::Args;
use crate::emit::Emitter;
use crate::errors::Errors;
use crate::ir::Function;
use crate::signature::{self, Signature};
use crate::{chains, companion, fence, forward, lower, naming, reverse};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// Expands `#[differentiable(attr)] item`.
pub(crate) fn differentiable(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = syn::parse2::<Args>(attr).unwrap_or_else(|e| {
        errors.push(e);
        Args::default()
    });
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new_spanned(
                first_token(&item),
                "`#[differentiable]` applies to a free function: `fn f(x: f64) -> f64 { .. }`",
            );
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    let before_signature = errors.len();
    let sig = signature::analyze(&item, &args, &mut errors);
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
    let body = chains::desugar(&item, &mut errors);
    fence::check(&body.block, &mut errors);
    // A body the fence rejected is not lowered: lowering would report the same constructs again.
    let analysed = sig.as_ref().filter(|_| errors.len() == 0).map(|sig| {
        let float_params = signature::float_type_params(&item.sig.generics);
        let f = lower::lower(&body, sig, float_params.clone(), &mut errors);
        let activity = activity::analyze(&f, sig, &float_params, &mut errors);
        (f, activity)
    });
    let higher = match (&sig, &args.order, &analysed) {
        (Some(sig), Some(order), Some(_)) => {
            crate::higher::items(&body, sig, &args, order, &mut errors)
        }
        _ => TokenStream::new(),
    };
    match (errors.finish(), sig, analysed) {
        (Ok(()), Some(sig), Some((f, activity))) => {
            let generated = Generated::new(&body, &sig, &f, &activity);
            let (grad, vjp, jvp) = (generated.grad(), generated.vjp(), generated.jvp());
            let companion = generated.companion();
            quote!(#item #grad #vjp #jvp #companion #higher)
        }
        (result, sig, _) => {
            let errors = result.err().unwrap_or_default();
            let stubs = stubs(&item, sig.as_ref().filter(|_| shapes_known));
            quote!(#errors #item #stubs)
        }
    }
}

fn first_token(tokens: &TokenStream) -> TokenStream {
    tokens.clone().into_iter().take(1).collect()
}

/// The generated items of one function.
struct Generated<'a> {
    item: &'a syn::ItemFn,
    sig: &'a Signature,
    f: &'a Function,
    activity: &'a Activity,
}

impl<'a> Generated<'a> {
    fn new(
        item: &'a syn::ItemFn,
        sig: &'a Signature,
        f: &'a Function,
        activity: &'a Activity,
    ) -> Self {
        Generated {
            item,
            sig,
            f,
            activity,
        }
    }

    fn name(&self, suffix: &str) -> Ident {
        signature::derived_name(self.item, suffix)
    }

    fn signature(&self, name: &Ident, extra: Option<TokenStream>, ret: TokenStream) -> TokenStream {
        self.sig.generated(self.item, name, extra, ret)
    }

    fn vjp_item(&self) -> TokenStream {
        let d_ret = naming::fixed("d_ret");
        let ret = &self.sig.ret_ty;
        let gradient = self.sig.gradient_type();
        let signature = self.signature(
            &self.name("vjp"),
            Some(quote!(#d_ret: #ret)),
            quote!((#ret, #gradient)),
        );
        let body = self.vjp_body(&d_ret);
        quote!(#signature { #body })
    }

    /// The reverse sweep for the output cotangent `d_ret`.
    fn vjp_body(&self, d_ret: &Ident) -> TokenStream {
        let mut emitter = Emitter::new(self.f, self.sig, self.activity);
        reverse::vjp_body(&mut emitter, self.sig, d_ret)
    }

    fn vjp(&self) -> TokenStream {
        let item = self.vjp_item();
        let doc = format!(
            " Reverse mode of `{name}`: its value and the vector-Jacobian product for the output \
             cotangent `d_ret`,\n as `(value, gradient)`, the gradient over the active parameters in \
             declaration order.\n\n Generated by `#[differentiable]`:\n\n```text\n{}```",
            pretty(&item),
            name = self.item.sig.ident,
        );
        quote!(#[doc = #doc] #[allow(unused, clippy::pedantic, clippy::nursery)] #[inline] #item)
    }

    /// `_grad` is `_vjp` with the cotangent 1.
    fn grad(&self) -> Option<TokenStream> {
        if !self.sig.returns_scalar() {
            return None;
        }
        let ret = &self.sig.ret_ty;
        let gradient = self.sig.gradient_type();
        let signature = self.signature(&self.name("grad"), None, quote!((#ret, #gradient)));
        let vjp = self.name("vjp");
        let args = self.sig.params.iter().map(|p| &p.ident);
        let one = Emitter::one_of(&self.sig.ret_kind);
        let doc = format!(
            " The value and gradient of `{name}`, computed in reverse mode: `(value, gradient)`, the gradient \
             over the active parameters\n in declaration order (a tuple for several).\n\n It calls \
             `{name}_vjp` with the output cotangent `d_ret = 1`; this is the code `#[differentiable]` \
             generated for that:\n\n```text\n{}```",
            pretty(&self.vjp_item()),
            name = self.item.sig.ident,
        );
        Some(quote! {
            #[doc = #doc]
            #[allow(unused, clippy::pedantic, clippy::nursery)]
            #[inline]
            #signature {
                #vjp(#(#args,)* #one)
            }
        })
    }

    /// The type `f` beside `f` through which other differentiable functions call it.
    fn companion(&self) -> TokenStream {
        let slots: Vec<companion::Slot> = self
            .sig
            .params
            .iter()
            .map(|p| companion::Slot {
                ident: p.ident.clone(),
                ty: p.ty.clone(),
                active: p.differentiable,
                tangent_ty: p.differentiable.then(|| p.grad_ty.to_token_stream()),
            })
            .collect();
        let name = &self.item.sig.ident;
        let (vjp, jvp) = (self.name("vjp"), self.name("jvp"));
        // `wrt(..)` chooses what `f_grad` returns; a caller differentiates through every float
        // parameter (as `jax.grad`'s `argnums` does), so the companion derives with all of them active.
        let restricted = self
            .sig
            .params
            .iter()
            .any(|p| p.differentiable && !p.active);
        let (vjp, jvp, extra) = if restricted {
            let mut all = self.sig.clone();
            for p in &mut all.params {
                p.active = p.differentiable;
            }
            let float_params = signature::float_type_params(&self.item.sig.generics);
            let activity = activity::analyze(self.f, &all, &float_params, &mut Errors::default());
            let (d_ret, tangent) = (naming::fixed("d_ret"), naming::fixed("tangent"));
            let vjp_body =
                reverse::vjp_body(&mut Emitter::new(self.f, &all, &activity), &all, &d_ret);
            let jvp_body =
                forward::jvp_body(&mut Emitter::new(self.f, &all, &activity), &all, &tangent);
            let (ret, gradient) = (&all.ret_ty, all.gradient_type());
            let params: Vec<TokenStream> = all
                .params
                .iter()
                .map(|p| {
                    let (ident, ty) = (&p.ident, &p.ty);
                    quote!(#ident: #ty)
                })
                .collect();
            let generics = &self.item.sig.generics;
            let where_clause = &generics.where_clause;
            let extra = quote! {
                #[allow(unused, clippy::pedantic, clippy::nursery)]
                fn __vjp_all #generics (#(#params,)* #d_ret: #ret) -> (#ret, #gradient) #where_clause { #vjp_body }
                #[allow(unused, clippy::pedantic, clippy::nursery)]
                fn __jvp_all #generics (#(#params,)* #tangent: #gradient) -> (#ret, #ret) #where_clause { #jvp_body }
            };
            (quote!(Self::__vjp_all), quote!(Self::__jvp_all), extra)
        } else {
            (quote!(#vjp), quote!(#jvp), TokenStream::new())
        };
        companion::companion(&companion::Companion {
            vis: &self.item.vis,
            name,
            generics: &self.item.sig.generics,
            slots: &slots,
            ret: self.sig.ret_ty.to_token_stream(),
            vjp,
            jvp,
            extra,
        })
    }

    fn jvp(&self) -> TokenStream {
        let tangent = naming::fixed("tangent");
        let ret = &self.sig.ret_ty;
        let gradient = self.sig.gradient_type();
        let signature = self.signature(
            &self.name("jvp"),
            Some(quote!(#tangent: #gradient)),
            quote!((#ret, #ret)),
        );
        let mut emitter = Emitter::new(self.f, self.sig, self.activity);
        let body = forward::jvp_body(&mut emitter, self.sig, &tangent);
        let item = quote!(#signature { #body });
        let doc = format!(
            " Forward mode of `{name}`: its value and the Jacobian-vector product for the input `tangent` \
             (shaped like the gradient),\n as `(value, output tangent)`.\n\n Generated by \
             `#[differentiable]`:\n\n```text\n{}```",
            pretty(&item),
            name = self.item.sig.ident,
        );
        quote!(#[doc = #doc] #[allow(unused, clippy::pedantic, clippy::nursery)] #[inline] #item)
    }
}

/// The generated function as a person would format it, for its doc comment.
fn pretty(item: &TokenStream) -> String {
    match syn::parse2::<syn::File>(item.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => item.to_string(),
    }
}

/// Stand-ins for the generated items after an error: the right signatures where they are known, so
/// that callers type-check, and bodies that are never run (the crate does not compile).
pub(crate) fn stubs(item: &syn::ItemFn, sig: Option<&Signature>) -> TokenStream {
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
    let param_list: Vec<TokenStream> = params
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            let ident = format_ident!("__arg{}", i, span = proc_macro2::Span::mixed_site());
            quote!(#ident: #ty)
        })
        .collect();
    let (shaped, scalar) = match sig {
        Some(sig) => (
            Some((sig.ret_ty.to_token_stream(), sig.gradient_type())),
            sig.returns_scalar(),
        ),
        None => (None, true),
    };
    let existing: Vec<&syn::GenericParam> = generics.params.iter().collect();
    let stub = |suffix: &str,
                extra: Option<(&str, TokenStream)>,
                ret: TokenStream,
                placeholders: &[&str]| {
        let stub_name = format_ident!("{}_{}", name, suffix, span = name.span());
        let placeholders: Vec<Ident> = placeholders
            .iter()
            .map(|p| format_ident!("{}", p))
            .collect();
        let extra = extra.map(|(param, ty)| {
            let param = format_ident!("{}", param, span = proc_macro2::Span::mixed_site());
            quote!(#param: #ty)
        });
        quote! {
            #[allow(unused_variables, clippy::diverging_sub_expression)]
            #vis fn #stub_name <#(#existing,)* #(#placeholders),*> (#(#param_list,)* #extra) -> #ret #where_clause {
                ::core::panic!("`#[differentiable]` reported a compile error for this function")
            }
        }
    };
    let (grad, vjp, jvp) = match &shaped {
        Some((ret, gradient)) => (
            scalar.then(|| stub("grad", None, quote!((#ret, #gradient)), &[])),
            stub(
                "vjp",
                Some(("d_ret", ret.clone())),
                quote!((#ret, #gradient)),
                &[],
            ),
            stub(
                "jvp",
                Some(("tangent", gradient.clone())),
                quote!((#ret, #ret)),
                &[],
            ),
        ),
        // Shapes unknown: generic placeholders that any call site can infer, so callers get no errors.
        None => (
            Some(stub(
                "grad",
                None,
                quote!((__Value, __Gradient)),
                &["__Value", "__Gradient"],
            )),
            stub(
                "vjp",
                Some(("d_ret", quote!(__Cotangent))),
                quote!((__Value, __Gradient)),
                &["__Cotangent", "__Value", "__Gradient"],
            ),
            stub(
                "jvp",
                Some(("tangent", quote!(__Tangent))),
                quote!((__Value, __Output)),
                &["__Tangent", "__Value", "__Output"],
            ),
        ),
    };
    // The companion too, so that a differentiable caller of `f` gets no error of its own (with `wrt(..)`
    // restricting the gradient, the stubs' shapes differ from the companion's: no companion then).
    let unrestricted = sig.filter(|sig| sig.params.iter().all(|p| p.active || !p.differentiable));
    let companion = unrestricted.map(|sig| {
        let slots: Vec<companion::Slot> = sig
            .params
            .iter()
            .map(|p| companion::Slot {
                ident: p.ident.clone(),
                ty: p.ty.clone(),
                active: p.differentiable,
                tangent_ty: p.differentiable.then(|| p.grad_ty.to_token_stream()),
            })
            .collect();
        let (vjp, jvp) = (
            signature::derived_name(item, "vjp"),
            signature::derived_name(item, "jvp"),
        );
        companion::companion(&companion::Companion {
            vis: &item.vis,
            name: &item.sig.ident,
            generics: &item.sig.generics,
            slots: &slots,
            ret: sig.ret_ty.to_token_stream(),
            vjp: quote!(#vjp),
            jvp: quote!(#jvp),
            extra: TokenStream::new(),
        })
    });
    quote!(#grad #vjp #jvp #companion)
}

/// Expansion snapshots: each `tests/expand/NAME.rs` of the workspace holds `#[differentiable]` functions;
/// their expansion, formatted and without the doc comments (which repeat the code), must equal
/// `tests/expand/NAME.expanded.rs`. Run with `AUTODIFF_BLESS=1` to write the snapshots after a deliberate
/// change, and review the diff.
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
    /// errors) without a panic, also with its body cut short at each statement.
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
        let mut expanded = 0;
        for path in files {
            let Ok(source) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(file) = syn::parse_file(&source) else {
                continue;
            };
            for item in file.items {
                let syn::Item::Fn(item) = item else { continue };
                let mut variants = vec![item.clone()];
                for cut in 0..item.block.stmts.len() {
                    let mut shorter = item.clone();
                    shorter.block.stmts.truncate(cut);
                    variants.push(shorter);
                }
                for variant in variants {
                    for attr in ["", "wrt(x)", "order = 2"] {
                        let args: TokenStream = attr.parse().unwrap_or_default();
                        let tokens = variant.to_token_stream();
                        let result = std::panic::catch_unwind(|| {
                            differentiable(args.clone(), tokens.clone());
                            crate::custom::custom_gradient(TokenStream::new(), tokens.clone());
                            crate::custom::gradient_of(quote::quote!(some::path), tokens.clone());
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
        assert!(expanded > 1000, "only {expanded} expansions were tried");
    }

    #[test]
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
