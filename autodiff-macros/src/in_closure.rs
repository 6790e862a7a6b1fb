//! Calls inside the closures of a `#[custom_gradient]` function: a nested `#[custom_gradient]` overrides
//! its forward code there, at every order.
//!
//! At `order = K` the closure runs on dual numbers: it is differentiated through the values it captures.
//! A call `g(v)` in it, where `g` is itself a custom function, must then take the tangent of its value
//! from `g`'s closure, not from `g`'s forward code (API.md: "a nested `#[custom_gradient]` inside the
//! closure overrides that"). The macro does not know which callees are custom, so every call by a
//! function's name inside a closure goes through `__private::in_closure!`, which finds the callee's
//! companion: a custom function of float scalars has an inherent `in_closure` that expands its value
//! with its closure's gradient as the derivative (`custom.rs`, [`override_items`]); any other callee (a
//! differentiable function, a plain helper, `stop_gradient`) is called as written.
//!
//! ```text
//! // Input (the closure of `cube_third`):         // Output:
//! move |dy: T| dy * doubled_slope(x * x)          move |dy: T| dy * ::autodiff::__private::in_closure!(
//!                                                     doubled_slope, |__a0| doubled_slope(__a0), (x * x))
//! ```
//!
//! Left as written: calls outside closures (the forward code, differentiated as written), calls of
//! local names (closures, function parameters, nested `fn` items, which a `use` cannot import), of
//! paths that start with a type (`T::from`, `f64::max`, `Vec::new`) or name a constructor (`Some`), and
//! method calls.

use crate::hash::FastSet;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Pat};

/// Rewrites the calls by name inside the closures of `block` (the body of a custom function).
pub(crate) fn rewrite(block: &mut syn::Block, params: &[Ident]) {
    let mut locals = Locals(params.iter().map(ToString::to_string).collect());
    locals.visit_block(block);
    Rewrite {
        locals: locals.0,
        depth: 0,
    }
    .visit_block_mut(block);
}

/// Every name bound locally (patterns, nested `fn` items, `use` renames), which a call may name but a
/// `use` cannot import.
struct Locals(FastSet<String>);

impl<'a> Visit<'a> for Locals {
    fn visit_pat(&mut self, pat: &'a Pat) {
        if let Pat::Ident(p) = pat {
            self.0.insert(p.ident.to_string());
        }
        syn::visit::visit_pat(self, pat);
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.0.insert(f.sig.ident.to_string());
    }
    fn visit_use_rename(&mut self, r: &'a syn::UseRename) {
        self.0.insert(r.rename.to_string());
    }
    fn visit_use_name(&mut self, n: &'a syn::UseName) {
        self.0.insert(n.ident.to_string());
    }
}

struct Rewrite {
    locals: FastSet<String>,
    /// How many closures the visitor is inside.
    depth: usize,
}

/// The primitive types, whose associated functions (`f64::max`) are paths no `use` imports.
pub(crate) const PRIMITIVES: &[&str] = &[
    "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize", "bool", "char", "str",
];

impl Rewrite {
    /// The callee of `call` as a path a `use` can import (no generic arguments), if the call is one to
    /// route through `in_closure!`.
    fn importable(&self, call: &syn::ExprCall) -> Option<syn::Path> {
        let Expr::Path(p) = &*call.func else {
            return None;
        };
        if p.qself.is_some() {
            return None;
        }
        let first = p.path.segments.first()?.ident.to_string();
        let last = p.path.segments.last()?.ident.to_string();
        let lowercase = |s: &str| s.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
        let local = p.path.segments.len() == 1 && self.locals.contains(&first);
        let typed = PRIMITIVES.contains(&first.as_str())
            || p.path
                .segments
                .iter()
                .any(|s| !lowercase(&s.ident.to_string()) && s.ident != "crate");
        // (`::autodiff::__private::copy_of(..)`: how a copy finds a callee written with a path, below.)
        let private = p.path.leading_colon.is_some()
            && first == "autodiff"
            && p.path
                .segments
                .iter()
                .nth(1)
                .is_some_and(|s| s.ident == "__private");
        if local || typed || private || !lowercase(&last) || first == "Self" {
            return None;
        }
        let mut path = p.path.clone();
        for segment in &mut path.segments {
            segment.arguments = syn::PathArguments::None;
        }
        Some(path)
    }
}

impl VisitMut for Rewrite {
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.depth += 1;
        visit_mut::visit_expr_closure_mut(self, c);
        self.depth -= 1;
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        visit_mut::visit_expr_mut(self, expr);
        if self.depth == 0 {
            return;
        }
        // `copy_of(found).call_on(..)`: a callee written with a path, in the generic copy of a function
        // written for `f64` (`custom_copy.rs`): the companion of the copy it finds decides, as below.
        if let Expr::MethodCall(m) = expr {
            if m.method == "call_on" && copy_of_call(&m.receiver) {
                let names: Vec<Ident> = (0..m.args.len())
                    .map(|i| format_ident!("__a{}", i, span = Span::mixed_site()))
                    .collect();
                let (copy, args) = (&m.receiver, m.args.iter());
                *expr = syn::parse_quote! {{
                    #[allow(unused_imports)]
                    use ::autodiff::__private::InClosure as _;
                    #copy
                        .in_closure_kind()
                        .in_closure(|(#(#names,)*)| #copy.call_on(#(#names),*), (#(#args,)*))
                }};
            }
            return;
        }
        let Expr::Call(call) = expr else {
            return;
        };
        let names: Vec<Ident> = (0..call.args.len())
            .map(|i| format_ident!("__a{}", i, span = Span::mixed_site()))
            .collect();
        let (func, args) = (&call.func, call.args.iter());
        if let Some(ty) = generic_copy_callee(call) {
            // The generic copy of a function written for `f64` calls its callees' generic copies
            // (`shadow.rs`): the copy's companion decides, as the callee's does for a call by name.
            *expr = syn::parse_quote! {{
                #[allow(unused_imports)]
                use ::autodiff::__private::InClosure as _;
                <#ty as ::autodiff::__private::GenericCopy>::copy()
                    .in_closure_kind()
                    .in_closure(|(#(#names,)*)| #func(#(#names),*), (#(#args,)*))
            }};
            return;
        }
        let Some(path) = self
            .importable(call)
            .map(|p| crate::companion::imported(&p))
        else {
            return;
        };
        *expr = syn::parse_quote! {
            ::autodiff::__private::in_closure!(#path, |#(#names),*| #func(#(#names),*), (#(#args),*))
        };
    }

    // A nested item is not in the closure: its own macro (if any) sees it.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Is `expr` `::autodiff::__private::copy_of(..)`, the companion of a callee's generic copy found as a
/// value (`custom_copy.rs`, for a callee written with a path)?
fn copy_of_call(expr: &Expr) -> bool {
    let Expr::Call(call) = expr else {
        return false;
    };
    let Expr::Path(p) = &*call.func else {
        return false;
    };
    let names = crate::naming::path_names(&p.path);
    p.qself.is_none()
        && p.path.leading_colon.is_some()
        && names == ["autodiff", "__private", "copy_of"]
}

/// `g` of a call `<g as ::autodiff::__private::GenericCopy>::Copy::call(..)`, the form in which the
/// generic copy of a function written for `f64` calls its callees' copies.
fn generic_copy_callee(call: &syn::ExprCall) -> Option<&syn::Type> {
    let Expr::Path(p) = &*call.func else {
        return None;
    };
    let qself = p.qself.as_ref()?;
    let call_of_copy = p
        .path
        .segments
        .last()
        .is_some_and(|last| last.ident == "call");
    (crate::shadow::is_generic_copy_call(p) && call_of_copy).then_some(&*qself.ty)
}

/// The companion's `in_closure_kind` and `in_closure` of a custom function `name` whose parameters
/// `params` and value are float scalars of type `float`: on dual numbers, its value at the arguments with
/// their tangents `δ` dropped (`c`), plus `∫₀¹ ∇f(c + tδ)·δ dt` with its closure's gradient as `∇f`, by
/// the Gauss–Legendre rule exact for the powers of `δ` that the dual numbers hold (autodiff-core's
/// `taylor.rs`): its Taylor expansion with the closure's gradient as the derivative, to every order for
/// one input, up to `order = 3` for several (below). On floats (no tangent) it is the call as written.
///
/// ```text
/// fn in_closure<T: Float>(self, plain: impl FnOnce((T,)) -> T, arguments: (T,)) -> T {
///     let (x,) = arguments;
///     let (__c_x,) = (stop_gradient(x),);
///     let (__d_x,) = (x - __c_x,);
///     let power = steps_power([__d_x]);            // the smallest n with δⁿ = 0
///     if power == 1 { return plain((x,)); }
///     gauss_legendre(power).iter().fold(f(__c_x), |sum, &(t, w)| {
///         let (_, gradient) = f_grad(__c_x + t * __d_x);
///         sum + w * gradient * __d_x
///     })
/// }
/// ```
pub(crate) fn override_items(
    vis: &syn::Visibility,
    name: &Ident,
    grad: &Ident,
    generics: &syn::Generics,
    params: &[Ident],
    float: &syn::Type,
) -> TokenStream {
    let where_clause = &generics.where_clause;
    let private = quote!(::autodiff::__private);
    let named = |prefix: &str| -> Vec<Ident> {
        params
            .iter()
            .map(|p| format_ident!("{}{}", prefix, p, span = Span::mixed_site()))
            .collect()
    };
    let (constants, deltas, gradients) = (named("__c_"), named("__d_"), named("__g_"));
    let types: Vec<&syn::Type> = params.iter().map(|_| float).collect();
    let (plain, arguments, gradient) = (
        Ident::new("plain", Span::mixed_site()),
        Ident::new("arguments", Span::mixed_site()),
        Ident::new("gradient", Span::mixed_site()),
    );
    let [power, sum, t, w] = ["power", "sum", "t", "w"].map(|n| Ident::new(n, Span::mixed_site()));
    // With several inputs the closure's cotangents need not be the gradient of any function (a clipped or
    // rescaled partial), and then the value's third-order terms depend on the path from the arguments'
    // values: the straight line here, the caller's own path for the chain rule. The two agree while
    // `δ³ = 0`, up to `order = 3` for the caller; beyond, a panic rather than one of two answers.
    let beyond = (params.len() > 1).then(|| {
        let message = format!(
            "autodiff: a call of the custom function `{name}` of several inputs inside another custom \
             gradient's closure is differentiated by `{name}`'s own gradient up to `order = 3`; beyond, its \
             value would depend on the path to its arguments wherever that gradient is not the gradient of a \
             function: not supported"
        );
        quote! {
            if #power > 3 {
                ::core::panic!(#message);
            }
        }
    });
    let unpack = match gradients.as_slice() {
        [one] => quote!(let #one = #gradient;),
        many => quote!(let (#(#many,)*) = #gradient;),
    };
    quote! {
        /// Calls inside a custom gradient's closure (`__private::in_closure!`) take this function's
        /// derivative from its own gradient.
        #[inline(always)]
        #vis fn in_closure_kind(&self) -> Self {
            #name {}
        }

        /// This function's value, with the derivatives its gradient gives: what a call inside another
        /// custom function's closure differentiates at `order = K`.
        #[inline]
        #vis fn in_closure #generics (self, #plain: impl FnOnce((#(#types,)*)) -> #float, #arguments: (#(#types,)*)) -> #float #where_clause {
            let (#(#params,)*) = #arguments;
            let (#(#constants,)*) = (#(#private::stop_gradient(#params),)*);
            let (#(#deltas,)*) = (#(#params - #constants,)*);
            let #power = #private::steps_power([#(#deltas),*]);
            if #power == 1 {
                return #plain((#(#params,)*));
            }
            #beyond
            #private::gauss_legendre(#power).iter().fold(#name(#(#constants),*), |#sum, &(#t, #w)| {
                let #t = #private::lit::<#float>(#t);
                let (_, #gradient) = #grad(#(#constants + #t * #deltas),*);
                #unpack
                #sum + #private::lit::<#float>(#w) * (#(#gradients * #deltas)+*)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(body: syn::Block, params: &[&str]) -> String {
        let mut body = body;
        let params: Vec<Ident> = params
            .iter()
            .map(|p| Ident::new(p, Span::call_site()))
            .collect();
        rewrite(&mut body, &params);
        quote!(#body).to_string()
    }

    #[test]
    fn calls_by_name_inside_closures_go_through_in_closure() {
        let body: syn::Block = syn::parse_quote!({
            let e = g(x);
            (e, move |dy: T| dy * g(x * x) + m::h::<T>(x))
        });
        let text = rewritten(body, &["x"]);
        // The forward code is left as written.
        assert!(text.contains("let e = g (x)"), "{text}");
        assert!(
            text.contains("in_closure ! (g , | __a0 | g (__a0) , (x * x))"),
            "{text}"
        );
        assert!(
            text.contains("in_closure ! (m :: h , | __a0 | m :: h :: < T > (__a0) , (x))"),
            "{text}"
        );
    }

    #[test]
    fn locals_types_and_constructors_are_left_alone() {
        let body: syn::Block = syn::parse_quote!({
            let sq = |v: T| v * v;
            fn helper(v: f64) -> f64 {
                v
            }
            (x, move |dy: T| {
                sq(dy)
                    + f(dy)
                    + T::from(2.0).unwrap()
                    + f64::max(dy, x)
                    + Some(dy).unwrap()
                    + helper(dy)
                    + Self::k(dy)
            })
        });
        let text = rewritten(body, &["x", "f"]);
        assert!(!text.contains("in_closure"), "{text}");
    }

    #[test]
    fn nested_calls_are_rewritten_inside_out() {
        let body: syn::Block = syn::parse_quote!({ (x, |dy| g(h(dy))) });
        let text = rewritten(body, &[]);
        assert_eq!(text.matches("in_closure !").count(), 2, "{text}");
    }
}
