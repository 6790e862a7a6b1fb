//! The generic shadow of a function written for `f64` (or `f32`), for `order = K`: the same function with
//! its float type replaced by a type parameter, so that the higher-order items can run it on dual numbers.
//!
//! ```text
//! // Input:                                   // Output:
//! fn f(x: f64, w: &[f64]) -> f64 {            fn __f_generic<__S: Float>(x: __S, w: &[__S]) -> __S {
//!     let c = 2.0 * std::f64::consts::PI;         let c = lit::<__S>(2.0) * lit::<__S>(std::f64::consts::PI);
//!     x.sin() * c + w[0] * f64::EPSILON           x.sin() * c + w[0] * __S::epsilon()
//! }                                           }
//! ```
//!
//! Literals and constants become `lit::<__S>(..)` (exact for `f64` and `Dual<f64>`), the type becomes `__S`
//! wherever it is written, and `f64::sin(x)` becomes `__S::sin(x)`. Casts become `cast::<__S, _>(n)` and
//! `to_int::<usize, _>(x)`, which the macro reads back as casts. A `SCREAMING_CASE` name from outside
//! (`G`, `phys::G`, `PI`) becomes `constant::<__S, _>(G)`: a trait turns an `f64` into `__S` and leaves an
//! integer alone, so the shadow needs no type it cannot see. `a op= b` becomes `a = a op (b)`.
//! A call of another function with derivatives calls that function's generic copy through its companion
//! type, `<g as GenericCopy>::Copy::call(..)` (`companion::GenericCopy`); a function without one is an error
//! there. A second float type in the body (`x as f32` in an `f64` function) is a type error, which the shadow
//! leaves alone rather than drop the tangents of a dual number.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Type};

/// A call of a function with float arguments none of which is differentiated (`gamma_ln(0.5 * n as f64)`):
/// the copy calls the function as written, its float arguments converted back to the written float type
/// (`__private::plain`) and its result to the copy's where it is a float (`__private::lift`), since the
/// callee may have no copy (a plain helper).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PlainCall {
    /// The callee's path, as tokens.
    pub(crate) callee: String,
    /// Which arguments are floats.
    pub(crate) floats: Vec<bool>,
    /// The float type of each argument where the body says it (`n as f64`, `1.5f64`), which is the
    /// callee's parameter type also when it is not the function's (an `f32` function calling an `f64`
    /// helper); `None` where the syntax does not settle it.
    pub(crate) types: Vec<Option<Type>>,
    /// The call's result is read only where no derivative flows (a condition, a comparison, an index):
    /// its float arguments are passed as values (`__private::value`), their tangents dropped on purpose,
    /// where otherwise `__private::plain` checks that they have none.
    pub(crate) constant_result: bool,
    /// For each argument that is an array (of a call whose result is constant), whether it is passed as
    /// a reference (`&v`, or a parameter `x: &[f64]` passed on): the copy passes its values
    /// (`__private::array_values`), `&array_values(x)` for a reference.
    pub(crate) arrays: Vec<Option<bool>>,
    /// A call that only parameters outside `wrt(..)` reach (`maybe.rs`): the callee's generic copy where it
    /// has derivatives, else the callee as written, chosen at compile time
    /// (`__private::copy_or_as_written!`).
    pub(crate) maybe: bool,
}

/// The calls of a function that its generic copy rewrites: the callees called with differentiated (or
/// float) arguments, whose copies the copy calls, and the plain calls.
#[derive(Clone, Debug, Default)]
pub(crate) struct CopyCalls {
    pub(crate) active: Vec<String>,
    pub(crate) plain: Vec<PlainCall>,
    /// Whether the callees of `active` and `plain` written with a path (`shapes::square`) are called so in
    /// the copy, through `copy_by_path!`, which finds the copy of the companion the first-order derivative
    /// finds there (a stand-in where there is none). A copy made without being asked
    /// (`surely_compiling_copy_with`) does too: where the path has no derivatives, the function's first order
    /// reports the call already, and the copy's lookup repeats that one error (tests/ui/calls/
    /// unregistered-call-by-path.rs). (The `order = K` function's own copy, `higher.rs`, is made without
    /// `why_no_copy` and calls by paths whatever this says.)
    pub(crate) by_path: bool,
    /// Whether every callee of `active` returns a float where the body casts its result (`g(x) as f64`):
    /// so for a function's copies, whose calls with a result used as an integer are plain
    /// (`activity::integer_uses`), not for a custom function's, which calls helpers returning indexes
    /// through `active` too (`shapes::bucket(x) as f64`). The copy then leaves such a cast out
    /// (`Rewrite::is_active_call`).
    pub(crate) float_results: bool,
}

/// Is `expr` made of unsuffixed float and integer literals alone (`1.0`, `-2.0 * 1.5`, `(0.5)`)? Its type is
/// then whatever its use asks, in the function and in its copy alike.
fn literals_only(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Float(f) => f.suffix().is_empty(),
            syn::Lit::Int(i) => i.suffix().is_empty(),
            _ => false,
        },
        Expr::Paren(p) => literals_only(&p.expr),
        Expr::Group(g) => literals_only(&g.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && literals_only(&u.expr),
        Expr::Binary(b) => {
            use syn::BinOp::{Add, Div, Mul, Rem, Sub};
            matches!(b.op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_))
                && literals_only(&b.left)
                && literals_only(&b.right)
        }
        _ => false,
    }
}

/// The generic shadow of `item`, whose float type is `float` (`f64` or `f32`), named `name`. `locals`: which
/// locals' loops take their elements out of their references (`by_value_loops`).
pub(crate) fn shadow(
    item: &syn::ItemFn,
    float: &str,
    name: &Ident,
    active_calls: &[String],
    plain_calls: &[PlainCall],
    locals: Locals,
    float_results: bool,
) -> syn::ItemFn {
    let item = &by_value_loops(item, float, locals, active_calls);
    let mut shadow = item.clone();
    shadow.sig.ident = name.clone();
    shadow.attrs.clear();
    // As visible as the function: the generic copies of its callers in other modules call it.
    shadow.vis = item.vis.clone();
    let scalar = Ident::new("__S", Span::call_site());
    shadow
        .sig
        .generics
        .params
        .push(syn::parse_quote!(#scalar: ::autodiff::__private::Float));
    let mut rewrite = Rewrite {
        float,
        scalar: &scalar,
        constants: float_constants(item, float),
        array_constants: float_array_constants(item, float),
        bindings: bindings(item),
        bools: bools(item),
        by_ref: float_references(item, float),
        active_calls: active_calls
            .iter()
            .cloned()
            .chain([item.sig.ident.to_token_stream().to_string()])
            .collect(),
        plain_calls: plain_calls.to_vec(),
        float_results,
        kept_tuples: constant_tuples_for_calls(item, active_calls),
        ints: integer_params(item),
        wrapped: wrapped_float_params(item, float),
        in_wrapped_match: false,
    };
    debug_assert_eq!(name, &crate::naming::generic_copy(&item.sig.ident));
    rewrite.visit_signature_mut(&mut shadow.sig);
    rewrite.visit_block_mut(&mut shadow.block);
    // `&__S` does not multiply: the body works on the values of the floats taken by reference.
    for name in rewrite.by_ref.iter().rev() {
        let name = Ident::new(name, Span::call_site());
        shadow
            .block
            .stmts
            .insert(0, syn::parse_quote!(let #name: #scalar = *#name;));
    }
    // Method calls (`x.sin()`) need the trait in scope; `x.rem_euclid(y)` another one, which `Float` lacks.
    if calls_euclid(&shadow.block) {
        shadow.block.stmts.insert(
            0,
            syn::parse_quote!(
                use ::autodiff::__private::FloatEuclid as _;
            ),
        );
    }
    shadow.block.stmts.insert(
        0,
        syn::parse_quote!(
            use ::autodiff::__private::Float as _;
        ),
    );
    shadow
}

/// `Self :: g`, the callee as the first-order derivative names it, of a call `self.g(..)` of a method (no
/// turbofish); `None` for any other method call.
fn self_method_call(m: &syn::ExprMethodCall) -> Option<String> {
    let on_self =
        matches!(&*m.receiver, Expr::Path(p) if p.qself.is_none() && p.path.is_ident("self"));
    (on_self && m.turbofish.is_none()).then(|| {
        let g = &m.method;
        quote::quote!(Self::#g).to_string()
    })
}

/// Does `block` call `.rem_euclid(..)` or `.div_euclid(..)`?
fn calls_euclid(block: &syn::Block) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            self.0 |= m.method == "rem_euclid" || m.method == "div_euclid";
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_block(&mut finder, block);
    finder.0
}

/// The float type of a function written for one (`f64` or `f32`), read from its signature; `None` for a
/// function generic over its float type, or one that names both.
pub(crate) fn written_float(item: &syn::ItemFn) -> Option<&'static str> {
    if !crate::signature::float_type_params(&item.sig.generics).is_empty() {
        return None;
    }
    let tokens: Vec<String> = item
        .sig
        .to_token_stream()
        .into_iter()
        .flat_map(|t| match t {
            proc_macro2::TokenTree::Group(g) => g.stream().into_iter().collect::<Vec<_>>(),
            t => vec![t],
        })
        .map(|t| t.to_string())
        .collect();
    let text = tokens.join(" ");
    match (text.contains("f64"), text.contains("f32")) {
        (true, false) => Some("f64"),
        (false, true) => Some("f32"),
        _ => None,
    }
}

/// The generic copy `__f_generic` of `item`, a function written for `float` that is not generic over its
/// float type, where the copy surely compiles (`why_no_copy`); emitted without being asked for. `calls.active`
/// are the callees that `item` calls with differentiated arguments: the copy calls their copies (or the
/// fallbacks that stand for them, `companion::fallback_copy`), by a path too (`m::g(x)`; in methods and
/// functions of parameter structs as well, whose copies' primals call them as written again,
/// `write_copy_calls`); `calls.plain` the plain calls (`PlainCall`), which the check accepts by their
/// names. Else why there is none.
pub(crate) fn surely_compiling_copy_with(
    item: &syn::ItemFn,
    float: &str,
    calls: &CopyCalls,
) -> Result<syn::ItemFn, String> {
    let names: Vec<String> = calls
        .active
        .iter()
        .cloned()
        .chain(calls.plain.iter().map(|p| p.callee.clone()))
        .collect();
    if let Some(why) = why_no_copy_with(item, float, &names, &calls.active, calls.by_path) {
        return Err(why);
    }
    let name = crate::naming::generic_copy(&item.sig.ident);
    Ok(shadow(
        item,
        float,
        &name,
        &calls.active,
        &calls.plain,
        Locals::OfFloats,
        calls.float_results,
    ))
}

/// `surely_compiling_copy_with` of `item`, or failing that of `item` with its iterator chains rewritten into
/// loops (`chains::desugar`, whose loops take each float out of its reference): for the bodies that
/// `#[differentiable]` does not rewrite itself, a `#[custom_gradient]` function's and a `#[gradient_of]`
/// registration's (`b.iter().map(|v| v * dy).collect()`). The first reason why not if neither copies.
pub(crate) fn surely_compiling_copy_of_chains(
    item: &syn::ItemFn,
    float: &str,
    calls: &CopyCalls,
) -> Result<syn::ItemFn, String> {
    surely_compiling_copy_with(item, float, calls).or_else(|why| {
        let mut errors = crate::errors::Errors::default();
        let desugared = crate::chains::desugar(item, &mut errors);
        if errors.len() > 0 {
            return Err(why);
        }
        surely_compiling_copy_with(&desugared, float, calls).map_err(|_| why)
    })
}

/// `tokens` with every `float` (`f64`) replaced by `scalar`: a type of the function's signature made
/// generic (the float type is written as a type there, never as anything else).
pub(crate) fn replace_float(tokens: TokenStream, float: &str, scalar: &Ident) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) if i == float => TokenTree::Ident(scalar.clone()),
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), replace_float(g.stream(), float, scalar));
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            t => t,
        })
        .collect()
}

/// Is `callee` `::autodiff::__private::array_values` (with its generic arguments): the values of an array
/// passed to a plain helper whose result is an integer (`PlainCall::arrays`), a constant?
pub(crate) fn is_array_values(callee: &syn::ExprPath) -> bool {
    callee.qself.is_none()
        && callee.path.leading_colon.is_some()
        && crate::naming::path_names(&callee.path) == ["autodiff", "__private", "array_values"]
}

/// Is `callee` `::autodiff::__private::stable_order_partial` or `stable_order_total`: the permutation an
/// in-place sort applies (`sorts.rs`), integer data computed from the values sorted, with no derivative,
/// called as written in every generated item (on dual numbers in a generic copy, which compare by value)?
pub(crate) fn is_sort_order(callee: &syn::ExprPath) -> bool {
    callee.qself.is_none()
        && callee.path.leading_colon.is_some()
        && matches!(
            crate::naming::path_names(&callee.path).as_slice(),
            [a, p, f] if a == "autodiff" && p == "__private"
                && (f == "stable_order_partial" || f == "stable_order_total")
        )
}

/// Is `callee` a call of another function's generic copy, `<g as GenericCopy>::Copy::call`
/// (`generic_copy_call`)?
pub(crate) fn is_generic_copy_call(callee: &syn::ExprPath) -> bool {
    callee.qself.is_some()
        && callee
            .path
            .segments
            .iter()
            .any(|s| s.ident == "GenericCopy")
}

/// `g::<T>` → `<g as GenericCopy>::Copy::call::<T>`; `Self::g` → `Self::__g_generic`.
fn generic_copy_call(callee: &syn::ExprPath) -> syn::ExprPath {
    let in_impl = crate::naming::is_associated_call(&callee.path);
    let mut path = callee.clone();
    if in_impl {
        if let Some(last) = path.path.segments.last_mut() {
            last.ident = crate::naming::generic_copy(&last.ident);
        }
        return path;
    }
    let arguments = path
        .path
        .segments
        .last_mut()
        .map(|last| std::mem::replace(&mut last.arguments, syn::PathArguments::None))
        .unwrap_or(syn::PathArguments::None);
    let ty = &path.path;
    let mut call: syn::ExprPath =
        syn::parse_quote!(<#ty as ::autodiff::__private::GenericCopy>::Copy::call);
    if let (Some(last), syn::PathArguments::AngleBracketed(mut args)) =
        (call.path.segments.last_mut(), arguments)
    {
        args.colon2_token = Some(Default::default());
        last.arguments = syn::PathArguments::AngleBracketed(args);
    }
    call.attrs = callee.attrs.clone();
    call
}

/// `block` with the calls that a generic copy makes by a path (`copy_by_path!(libm::erf, ..).call_on(x)`,
/// `companion::copy_by_path`) read back as calls of the generic copy,
/// `<libm::erf as GenericCopy>::Copy::call(x)`: the form the later passes know (`is_generic_copy_call`),
/// which the emitters print as `call_on` again (`companion::primal_callee`).
pub(crate) fn read_copy_calls(block: &mut syn::Block) {
    struct Read;
    impl VisitMut for Read {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            visit_mut::visit_expr_mut(self, expr);
            // `(copy_or_as_written!(bump, ..))(args)`: `<bump as GenericCopy>::Copy::__copy_or_as_written::<..>(args)`.
            if let Expr::Call(call) = expr {
                if let Some(copy) = crate::maybe::CopyCall::of_written(&call.func) {
                    let callee = copy.callee();
                    *call.func = Expr::Path(callee);
                }
                return;
            }
            let Expr::MethodCall(m) = expr else {
                return;
            };
            if m.method != "call_on" {
                return;
            }
            let Some(path) = copied_function(&m.receiver) else {
                return;
            };
            let turbofish = m.turbofish.clone();
            let args = std::mem::take(&mut m.args);
            let mut call: syn::ExprPath =
                syn::parse_quote!(<#path as ::autodiff::__private::GenericCopy>::Copy::call);
            if let (Some(last), Some(turbofish)) = (call.path.segments.last_mut(), turbofish) {
                last.arguments = syn::PathArguments::AngleBracketed(turbofish);
            }
            *expr = syn::parse_quote!(#call(#args));
        }
        // `vec![m::g(x), ..]`: the writer rewrote the calls inside the macro (`visit_expr_mut` of the
        // shadow), which `syn`'s visitors leave as tokens.
        fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
            if m.path.is_ident("vec") {
                crate::chains::rewrite_vec_args(m, |arg| self.visit_expr_mut(arg));
            }
        }
    }
    Read.visit_block_mut(block);
}

// Input:  <libm::erf as ::autodiff::__private::GenericCopy>::Copy::call(x)
// Output: ::autodiff::__private::copy_by_path!(libm::erf, call_on(_), REG).call_on(x)
/// The reverse of `read_copy_calls`, for a body the primal runs as written (a method's generic copy read
/// with its fields in its float type, `__lift_fields`): each call of a generic copy by a path as the
/// primal makes it (`companion::primal_copy_by_path`), since `<libm::erf as GenericCopy>` names a function
/// as a type where no companion type stands at that path (a plain function whose gradient a
/// `#[gradient_of(outside::blend)]` registers: rustc's E0573 in the copy of a method calling it).
pub(crate) fn write_copy_calls(block: &mut syn::Block) {
    struct Write;
    impl VisitMut for Write {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            visit_mut::visit_expr_mut(self, expr);
            let Expr::Call(call) = expr else {
                return;
            };
            let Expr::Path(callee) = &*call.func else {
                return;
            };
            let Some(callee) = crate::companion::primal_copy_by_path(callee, call.args.len())
            else {
                return;
            };
            let args = &call.args;
            *expr = syn::parse_quote!(#callee(#args));
        }

        fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
            if m.path.is_ident("vec") {
                crate::chains::rewrite_vec_args(m, |arg| self.visit_expr_mut(arg));
            }
        }

        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    Write.visit_block_mut(block);
}

/// `P` of `::autodiff::__private::copy_by_path!(P, ..)`.
fn copied_function(receiver: &Expr) -> Option<syn::Path> {
    let Expr::Macro(lookup) = receiver else {
        return None;
    };
    let names = crate::naming::path_names(&lookup.mac.path);
    if names != ["autodiff", "__private", "copy_by_path"] || lookup.mac.path.leading_colon.is_none()
    {
        return None;
    }
    let path: TokenStream = lookup
        .mac
        .tokens
        .clone()
        .into_iter()
        .take_while(|t| !matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ','))
        .collect();
    syn::parse2(path).ok()
}

/// Whether `expr` is a `bool` by its form: a comparison, `&&`, `||`, `!`, `true`, `false`, or one of `bools`.
fn is_bool(expr: &Expr, bools: &[String]) -> bool {
    use syn::BinOp::*;
    match expr {
        Expr::Paren(p) => is_bool(&p.expr, bools),
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| bools.contains(&i.to_string())),
        Expr::Binary(b) => matches!(
            b.op,
            Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_) | And(_) | Or(_)
        ),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)) && is_bool(&u.expr, bools),
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Bool(_)),
        _ => false,
    }
}

// Input:  ::autodiff::__private::lift::<__S, _>(bucket(::autodiff::__private::value::<f64, _>(x)))
// Output: Some(bucket(::autodiff::__private::value::<f64, _>(x)))
/// The call inside `expr`, where `expr` is a plain call's result lifted to the copy's float type.
fn lifted_call(expr: &Expr) -> Option<&Expr> {
    let Expr::Call(call) = expr else {
        return None;
    };
    let Expr::Path(p) = &*call.func else {
        return None;
    };
    let names: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let inner = call.args.first().filter(|_| call.args.len() == 1)?;
    (names == ["autodiff", "__private", "lift"] && matches!(inner, Expr::Call(_))).then_some(inner)
}

/// The float type other than `float`: `f32` beside `f64`, `f64` beside `f32`.
pub(crate) fn other_float(float: &str) -> &'static str {
    if float == "f64" {
        "f32"
    } else {
        "f64"
    }
}

/// Whether `ty` is the float type or a primitive integer type (a cast the shadow rewrites).
fn is_number(ty: &Type, float: &str) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| i == float || INTEGERS.iter().any(|n| i == n)))
}

/// The primitive integer types.
pub(crate) const INTEGERS: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

/// Is `ty` the float type, a primitive integer type, `bool`, or an array (also nested) of one of them: the
/// types of the `const` items that the copy reads as the function does (`float_constants` and
/// `float_array_constants` rewrite the float ones).
fn is_copied_constant_type(ty: &Type, float: &str) -> bool {
    match ty {
        Type::Array(a) => is_copied_constant_type(&a.elem, float),
        Type::Path(p) => p.path.is_ident("bool") || is_number(ty, float),
        _ => false,
    }
}

/// The operator of a compound assignment (`+` for `+=`).
fn compound(op: &syn::BinOp) -> Option<syn::BinOp> {
    use syn::BinOp::*;
    Some(match op {
        AddAssign(_) => Add(Default::default()),
        SubAssign(_) => Sub(Default::default()),
        MulAssign(_) => Mul(Default::default()),
        DivAssign(_) => Div(Default::default()),
        RemAssign(_) => Rem(Default::default()),
        _ => return None,
    })
}

struct Rewrite<'a> {
    float: &'a str,
    scalar: &'a Ident,
    /// Names that stand for constants of the float type: `const K: f64` items of the body and names it
    /// imports from `std::f64::consts`. (Other `SCREAMING_CASE` names go through `constant`.)
    constants: Vec<String>,
    /// `const W: [f64; N]` (or nested, `[[f64; M]; N]`) items of the body, with how deep they nest: an
    /// element read `W[i]` becomes `lit::<__S>(W[i])`.
    array_constants: Vec<(String, usize)>,
    /// The names the function binds (parameters, `let`s, loop variables): not constants.
    bindings: Vec<String>,
    /// The `bool` parameters and locals (`let b = x > 0.0;`, `let b: bool = ..`), cast with `as` itself.
    bools: Vec<String>,
    /// The float parameters taken by reference (`x: &f64`), whose value the shadow reads once at its
    /// start: `*x` in the body becomes `x`.
    by_ref: Vec<String>,
    /// The callees called with differentiated arguments (their paths' tokens), the function itself
    /// included: the shadow calls their generic copies (`generic_copy_call`).
    active_calls: Vec<String>,
    /// The callees called with float arguments, none differentiated: called as written (`PlainCall`).
    plain_calls: Vec<PlainCall>,
    /// `CopyCalls::float_results`.
    float_results: bool,
    /// The locals bound to a tuple of literals that the body only passes to calls it makes as written
    /// (`constant_tuples_for_calls`): kept as written, their floats of the callee's type.
    kept_tuples: Vec<String>,
    /// `integer_params`: what a kept tuple may read beside literals.
    ints: Vec<String>,
    /// `wrapped_float_params`: parameters whose type holds the float type inside another generic type
    /// (`scale: Option<f64>`), which the copy rewrites (`Option<__S>`): the fields a `match` on one binds are
    /// of the copy's float type already, not lifted by `constant`.
    wrapped: Vec<String>,
    /// Set while the arms of a `match` on one of `wrapped` are visited.
    in_wrapped_match: bool,
}

// Input:  fn f(x: f64, scale: Option<f64>, k: Option<usize>, w: &[f64])
// Output: ["scale"]
/// The parameters whose types hold the float type (`float`, or the other float type, which the copy also
/// rewrites) as a generic argument of a type other than `Vec` (`Option<f64>`, `Box<f64>`).
fn wrapped_float_params(item: &syn::ItemFn, float: &str) -> Vec<String> {
    fn wraps(ty: &Type, float: &str) -> bool {
        match ty {
            Type::Reference(r) => wraps(&r.elem, float),
            Type::Paren(p) => wraps(&p.elem, float),
            Type::Path(p) if p.qself.is_none() => p.path.segments.iter().any(|segment| {
                let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
                    return false;
                };
                segment.ident != "Vec"
                    && args.args.iter().any(|arg| {
                        matches!(arg, syn::GenericArgument::Type(t)
                            if crate::naming::names_any(t.to_token_stream(), &[float, "f32", "f64"]))
                    })
            }),
            _ => false,
        }
    }
    item.sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match (&*t.pat, wraps(&t.ty, float)) {
                (syn::Pat::Ident(p), true) => Some(p.ident.to_string()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// `f64::EPSILON` and friends, and the `Float` method that gives the same value of a type parameter.
const FLOAT_CONSTANT_METHODS: &[(&str, &str)] = &[
    ("EPSILON", "epsilon"),
    ("INFINITY", "infinity"),
    ("NEG_INFINITY", "neg_infinity"),
    ("NAN", "nan"),
    ("MAX", "max_value"),
    ("MIN", "min_value"),
    ("MIN_POSITIVE", "min_positive_value"),
];

/// `f64::DIGITS` and the other integer constants of a float type, which the copy keeps as written.
const FLOAT_INTEGER_CONSTANTS: &[&str] = &[
    "DIGITS",
    "MANTISSA_DIGITS",
    "RADIX",
    "MAX_EXP",
    "MIN_EXP",
    "MAX_10_EXP",
    "MIN_10_EXP",
];

/// Why the shadow of `item` might not compile, by a conservative reading of its syntax; `None` if it
/// surely does. Used where a shadow is emitted without being asked for (the generic copy of a function
/// that an `order = K` caller may reach): one that did not compile would break the function's first-order
/// use too. The body may use its own bindings, `SCREAMING_CASE` and `consts` constants, literals,
/// operators, closures, casts, `vec!`, the float methods (plus a few of slices), and calls
/// by a bare name of the functions in `calls` (those called with differentiated arguments, which have
/// companion types that implement `GenericCopy`, with a copy or its fallback), with `&` and `&mut`
/// arguments (`rhs(&y, p, &mut k[2..4])`: the copy's parameter has the callee's type with the float type
/// replaced, as the argument's has); no other calls, no iterators (they hand out references), no other
/// `&`, no other float type.
/// For an integer range with adaptors, `(0..n).rev()` or `(a..=b).rev().step_by(k)`: its bounds and the
/// adaptors' arguments (what a check visits); `None` for anything else.
fn range_iteration(expr: &syn::Expr) -> Option<Vec<&syn::Expr>> {
    let mut parts = Vec::new();
    let mut expr = expr;
    loop {
        match expr {
            syn::Expr::Paren(p) => expr = &p.expr,
            syn::Expr::MethodCall(m)
                if (m.method == "rev" && m.args.is_empty())
                    || (m.method == "step_by" && m.args.len() == 1) =>
            {
                parts.extend(m.args.iter());
                expr = &m.receiver;
            }
            syn::Expr::Range(r) if !parts.is_empty() || r.start.is_some() => {
                parts.extend(r.start.as_deref());
                parts.extend(r.end.as_deref());
                return Some(parts);
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
pub(crate) fn why_no_copy(item: &syn::ItemFn, float: &str, calls: &[String]) -> Option<String> {
    why_no_copy_with(item, float, calls, &[], false)
}

/// `why_no_copy`, where `by_path` says whether a call written with a path of `calls` (`shapes::square(x)`)
/// is accepted as a call by a bare name(`CopyCalls::by_path`), and `active` are those of `calls` that have
/// derivatives (`CopyCalls::active`), whose results hold floats (`by_value_loops`).
/// A method that only integers have (`k.pow(2)`, `n.checked_sub(k)`, `k.is_power_of_two()`), and the
/// `unwrap`s of a checked one (`n.checked_sub(1).unwrap_or(0)`): the copy leaves integers as written, so
/// these compile in it as in the function (README: integer values computed alongside, method calls on them
/// included). A callee using one had no copy, so its `order = K` callers did not compile.
fn integer_method(m: &syn::ExprMethodCall) -> bool {
    const ONLY_INTEGERS: &[&str] = &[
        "pow",
        "is_power_of_two",
        "next_power_of_two",
        "count_ones",
        "count_zeros",
        "leading_zeros",
        "trailing_zeros",
        "abs_diff",
        "div_ceil",
        "ilog2",
        "ilog10",
        "isqrt",
    ];
    let name = m.method.to_string();
    let checked = |e: &syn::Expr| matches!(e, syn::Expr::MethodCall(inner) if inner.method.to_string().starts_with("checked_"));
    ONLY_INTEGERS.contains(&name.as_str())
        || ["wrapping_", "saturating_", "checked_", "overflowing_"]
            .iter()
            .any(|prefix| name.starts_with(prefix))
        || (matches!(name.as_str(), "unwrap" | "unwrap_or" | "expect") && checked(&m.receiver))
}

fn why_no_copy_with(
    item: &syn::ItemFn,
    float: &str,
    calls: &[String],
    active: &[String],
    by_path: bool,
) -> Option<String> {
    use syn::visit::Visit;
    let item = &by_value_loops(item, float, Locals::OfFloats, active);
    // Iterators hand out references, and `dy * g` with `g: &f64` compiles for `f64` only: none of them.
    // (`saturating_sub` and `usize::min` are integers' only: the loops `chains::desugar` makes of
    // `for w in x.windows(k)` and `x.chunks(k)` count with them.)
    // `fill`, `copy_from_slice` and `clone_from_slice` of a slice of floats are generic over the element
    // (the copy's pipeline rewrites them into indexed loops, `slice_writes.rs`, as the function's does).
    // `sin_cos`, `fract` and a float's predicates are methods of `Float` too (the first order lowers
    // them, `lower/calls.rs`): a callee using them (`let (s, c) = theta.sin_cos();` in a rotation) had
    // no copy, so its `order = K` callers did not compile.
    // `is_empty` as `len`: a callee testing `anchors.is_empty()` had no copy, so its `order = K` callers
    // did not compile (tests/trial47.rs, `bicycle::cost_with`).
    const METHODS: &[&str] = &[
        "len",
        "is_empty",
        "clone",
        "to_vec",
        "push",
        "saturating_sub",
        "fill",
        "copy_from_slice",
        "clone_from_slice",
        "sin_cos",
        "fract",
        "is_nan",
        "is_finite",
        "is_infinite",
        "is_normal",
        "is_sign_negative",
        "is_sign_positive",
    ];
    struct Check<'b> {
        bindings: &'b [String],
        calls: &'b [String],
        by_path: bool,
        float: &'b str,
        other_float: &'b str,
        /// The parameters that are matrices or deeper (`m: &[Vec<f64>]`), whose rows a loop may bind by
        /// reference (`for row in m.iter()`), as `for row in m` does: `by_value_loops` takes the floats of
        /// such a row out of their references where the body iterates it.
        matrices: Vec<String>,
        /// The parameters that are slices of tuples (`r: &[(usize, f64)]`, `tuple_data::tuple_slice`).
        tuple_slices: Vec<String>,
        /// The parameters that are matrices of integers or flags (`tris: &[[usize; 3]]`), whose rows a
        /// loop over them binds by reference (`let tri = &tris[k];`, `integer_rows.rs`): integers, as
        /// the copy keeps them.
        integer_matrices: Vec<String>,
        /// The parameters of type `Option<f64>` (by value), held as `Option<__S>` by the copy: constants
        /// whose `unwrap_or(..)`, `is_some()`, .. read a value of the copy's float type.
        options: Vec<String>,
        why: Option<String>,
    }
    impl Check<'_> {
        fn fail(&mut self, why: String) {
            self.why.get_or_insert(why);
        }
    }
    impl<'ast> Visit<'ast> for Check<'_> {
        // Calls of `calls` by their bare names, and the float type's `from` (`f64::from(n)`), which the
        // shadow rewrites into a cast.
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            let from = matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none()
                && p.path.segments.len() == 2
                && p.path.segments[0].ident == self.float
                && p.path.segments[1].ident == "from")
                && call.args.len() == 1;
            // `f64::max(a, b)` (what `fold(.., f64::max)` becomes): the type parameter's function.
            let float_fn = matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none()
                && p.path.segments.len() == 2
                && p.path.segments[0].ident == self.float
                && crate::ir::FloatFn::from_name(
                    &p.path.segments[1].ident.to_string(),
                    call.args.len(),
                ).is_some());
            // `Vec::new()` and `Vec::with_capacity(n)`, filled by `push`: a `Vec` of whatever is pushed.
            if let syn::Expr::Path(p) = &*call.func {
                if is_new_vec(&p.path) {
                    call.args.iter().for_each(|a| self.visit_expr(a));
                    return;
                }
            }
            // By a bare name, and by a path (`libm::erf(x)`) where `by_path` says so: the copy then calls
            // what `derivative_of!` finds there (`companion::copy_by_path`), which may be nothing; the
            // caller's first-order derivative reports that call, and the copy repeats its error.
            let callee = match &*call.func {
                syn::Expr::Path(p) if p.qself.is_none() => {
                    p.path.get_ident().map(|i| i.to_string())
                }
                _ => None,
            };
            // And `Self::h(..)` with a differentiated argument (`h` in `calls`), which the copy calls as
            // `Self::__h_generic(..)`: the function compiles at first order, so `h` has derivatives, so it
            // is `#[differentiable]` in an `impl` of the same type (a custom gradient cannot be a method),
            // and every such function has `Self::__h_generic`, its copy or the fallback that is an error
            // only once an `order = K` function instantiates it (`companion::fallback_method_copy`); not
            // the hidden functions (`__h_whole`, a copy's own), which no body names, nor one with an
            // active parameter struct, which takes a struct this body would have to pass on whole (and
            // `expand::method_generic_copy` makes no copy of a body that does).
            let associated = matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none()
                && p.path.leading_colon.is_none()
                && p.path.segments.len() == 2
                && p.path.segments[0].ident == "Self"
                && p.path.segments.iter().all(|s| s.arguments.is_none())
                && self.calls.contains(&p.path.to_token_stream().to_string()));
            // `usize::min(a, b)`: an integer type's function, of integers.
            let integer_fn = matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none()
                && p.path.segments.len() == 2
                && INTEGERS.contains(&p.path.segments[0].ident.to_string().as_str())
                && ["min", "max"].contains(&p.path.segments[1].ident.to_string().as_str()));
            if integer_fn {
                call.args.iter().for_each(|a| self.visit_expr(a));
                return;
            }
            // `shapes::square(x)` in a custom function's copy, which finds its derivatives by the path.
            let path = self.by_path
                && matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none()
                    && p.path.segments.len() > 1
                    && self.calls.contains(&p.path.to_token_stream().to_string()));
            let by_name = associated
                || path
                || callee
                    .as_ref()
                    .is_some_and(|c| self.calls.contains(c) && !self.bindings.contains(c));
            // Where a hidden function over parameter structs' values views finds a field
            // (`struct_whole.rs`): integers and the structs themselves, the same in the copy; and where a
            // matrix field's element or row is (`matrix_at`, `matrix_row_start`, ..), integers too; the
            // failing branch of an assertion (`assertion_failed("..")`, `asserts.rs`), of a string; and the
            // lengths that the loops of `fill` and `copy_from_slice` check (`copy_len`, `window_len`,
            // `slice_writes.rs`), integers; and the permutation of a sort (`stable_order_partial(&v, ..)`,
            // `sorts.rs`), integers of any `PartialOrd` values, dual numbers too; and the struct (or
            // `()`) that stands for a field passed on whole (`whole_primal`), a constant of its own type.
            let field_lookup = matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none()
            && p.path.leading_colon.is_some()
            && p.path.segments.len() == 3
            && p.path.segments[0].ident == "autodiff"
            && p.path.segments[1].ident == "__private"
            && ["field_", "whole_primal", "matrix_", "assertion_failed", "copy_len", "window_len", "stable_order_"].iter().any(|prefix| {
                p.path.segments[2].ident.to_string().starts_with(prefix)
            }));
            // `at(r, k)`, an element of a slice of tuples parameter read whole (`tuple_data.rs`): the copy
            // takes the same tuples, whose floats it holds in its float type (not `at(WEIGHTS, i)` of a
            // constant from outside, whose floats stay `f64`).
            let tuple_element = matches!(&*call.func, syn::Expr::Path(p) if p.qself.is_none()
                && p.path.leading_colon.is_some()
                && p.path.segments.len() == 3
                && p.path.segments[0].ident == "autodiff"
                && p.path.segments[1].ident == "__private"
                && p.path.segments[2].ident == "at")
                && matches!(call.args.first(), Some(syn::Expr::Path(a)) if a.path.get_ident().is_some_and(|name| {
                    self.tuple_slices.iter().any(|t| name == t)
                }));
            if tuple_element {
                call.args.iter().for_each(|a| self.visit_expr(a));
                return;
            }
            let receive = matches!(&*call.func, syn::Expr::Path(p)
                if crate::lower::is_private_receive(p));
            if field_lookup || receive {
                for arg in &call.args {
                    match arg {
                        // `matrix_at(&__p_w_shape, i, j)`: a matrix field's shape, lent (`struct_whole.rs`).
                        syn::Expr::Reference(r) if field_lookup && r.mutability.is_none() => {
                            self.visit_expr(&r.expr)
                        }
                        arg => self.visit_expr(arg),
                    }
                }
                return;
            }
            // `stop_gradient(x)`, `autodiff::stop_gradient(x)`: generic over its argument, and the copy's own
            // expansion holds it constant again.
            let stop =
                matches!(&*call.func, syn::Expr::Path(p) if crate::lower::is_stop_gradient(p));
            // `Some(t)`, `Ok(t)`, `Err(t)`: variants, written as they are in the copy (of its float type).
            let variant =
                matches!(&*call.func, syn::Expr::Path(p) if crate::companion::is_variant(p));
            if !from && !float_fn && !by_name && !stop && !variant {
                let called = call.func.to_token_stream().to_string();
                self.fail(format!(
                    "its body calls `{called}`, which is not called by a bare name with a differentiated argument"
                ));
            }
            for arg in &call.args {
                match arg {
                    // `g(&y, &mut k, &mut out[a..b], &mut *acc)`: a reference passed straight to a copy,
                    // whose parameter is the callee's with the same float type replaced, so it has the
                    // type the callee's copy takes (no arithmetic on `&f64` happens here).
                    syn::Expr::Reference(r) if by_name => self.visit_expr(&r.expr),
                    arg => self.visit_expr(arg),
                }
            }
        }
        fn visit_expr_macro(&mut self, m: &'ast syn::ExprMacro) {
            self.visit_macro(&m.mac);
        }
        // `vec![elem; n]` or `vec![a, b, ..]`, whose elements get the same checks (`vec![xs.iter().sum(); n]`
        // iterates); any other macro, no.
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if !m.path.is_ident("vec") {
                let name = m.path.to_token_stream().to_string();
                self.fail(format!("its body uses the macro `{name}!`"));
                return;
            }
            let elements = m.parse_body_with(|input: syn::parse::ParseStream| {
                let mut exprs = Vec::new();
                while !input.is_empty() {
                    exprs.push(input.parse::<syn::Expr>()?);
                    if input.peek(syn::Token![;]) {
                        input.parse::<syn::Token![;]>()?;
                    } else if !input.is_empty() {
                        input.parse::<syn::Token![,]>()?;
                    }
                }
                Ok(exprs)
            });
            match elements {
                Ok(exprs) => exprs.iter().for_each(|e| self.visit_expr(e)),
                Err(_) => self.fail("its body uses `vec!` in a form the copy does not read".into()),
            }
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let name = m.method.to_string();
            // `self.g(..)` of a method with derivatives (`Self::g` among the callees): the copy calls
            // `self.__g_generic(..)` (`Rewrite::visit_expr_mut`), which every differentiable method has,
            // a copy or its fallback.
            if self_method_call(m).is_some_and(|g| self.calls.contains(&g)) {
                m.args.iter().for_each(|a| self.visit_expr(a));
                return;
            }
            // `damping.unwrap_or(0.5)` of an `Option<f64>` parameter: an `Option<__S>` in the copy.
            let of_an_option = matches!(&*m.receiver, syn::Expr::Path(p)
                if p.path.get_ident().is_some_and(|r| self.options.iter().any(|o| r == o)))
                && OPTION_METHODS.contains(&name.as_str());
            let known = crate::ir::FloatFn::ALL.iter().any(|(n, _, _)| *n == name)
                || METHODS.contains(&name.as_str())
                || integer_method(m)
                || of_an_option;
            if !known {
                self.fail(format!(
                    "its body calls the method `.{name}()` (iterators hand out references, whose arithmetic \
                     a generic float lacks)"
                ));
            }
            // `u.copy_from_slice(&w)`: a slice of the copy's float type lent whole, read by index (no
            // arithmetic on a `&f64` happens).
            if matches!(name.as_str(), "copy_from_slice" | "clone_from_slice") && m.args.len() == 1
            {
                if let syn::Expr::Reference(r) = &m.args[0] {
                    if r.mutability.is_none() && matches!(&*r.expr, syn::Expr::Path(_)) {
                        self.visit_expr(&m.receiver);
                        self.visit_expr(&r.expr);
                        return;
                    }
                }
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        // `for &v in x`, `for &v in &x`, `for &v in x.iter()` (also `.rev()`), `for (&a, &b) in
        // x.iter().zip(y.iter())` and `for (i, &v) in x.iter().enumerate()`: the pattern takes every float
        // out of its reference, so the body sees values of the float type, as in the function.
        fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
            match by_value_iteration(&f.pat, &f.expr) {
                Some(iterated) => {
                    iterated.into_iter().for_each(|e| self.visit_expr(e));
                    self.visit_block(&f.body);
                }
                // `for row in m.iter()`, `for (i, row) in m.iter().enumerate()` of a matrix parameter: as
                // `for row in m`.
                None if rows_iteration(&f.pat, &f.expr, &self.matrices) => {
                    self.visit_block(&f.body)
                }
                // `for i in (0..n).rev()`, `for i in (a..b).step_by(2)`: integers, not references.
                None if range_iteration(&f.expr).is_some() => {
                    let parts = range_iteration(&f.expr).unwrap_or_default();
                    parts.into_iter().for_each(|e| self.visit_expr(e));
                    self.visit_block(&f.body)
                }
                None => syn::visit::visit_expr_for_loop(self, f),
            }
        }
        fn visit_expr_struct(&mut self, _: &'ast syn::ExprStruct) {
            self.fail("its body builds a struct".into());
        }
        // `Mode::A => ..` of `match mode`: a unit variant of a type of the user's, which the copy matches
        // as the function does (the scrutinee keeps its type there; a float constant would not).
        fn visit_pat(&mut self, pat: &'ast syn::Pat) {
            if let syn::Pat::Path(p) = pat {
                let of_a_float =
                    |s: &syn::PathSegment| s.ident == self.float || s.ident == self.other_float;
                if p.qself.is_none()
                    && p.path.segments.len() >= 2
                    && !p.path.segments.iter().any(of_a_float)
                {
                    return;
                }
            }
            syn::visit::visit_pat(self, pat);
        }
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if is_new_vec(&p.path) {
                return;
            }
            let segments = crate::naming::path_names(&p.path);
            let constant = |name: &str| {
                name.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            };
            // `f64::NEG_INFINITY`, `f64::DIGITS`, `f64::max` (a function passed to `fold`): the copy names
            // the type parameter's constant or function instead (`Shadow`'s paths).
            let of_the_float = |name: &str| {
                FLOAT_CONSTANT_METHODS.iter().any(|(c, _)| *c == name)
                    || FLOAT_INTEGER_CONSTANTS.contains(&name)
                    || crate::ir::FloatFn::ALL.iter().any(|(n, _, _)| *n == name)
            };
            let fine = match segments.as_slice() {
                // `self` of a method, whose fields the copy reads in its float type (`Args::lift_fields`).
                // `None`, of an `Option` parameter's type (`g(x, None)`, `shift == None`).
                [one] => {
                    self.bindings.contains(one) || one == "self" || one == "None" || constant(one)
                }
                // An associated constant (`Self::UNIT`), or an integer type's (`i32::MIN`, of a range
                // pattern), which the copy reads as the function does.
                [ty, name] if ty == "Self" || INTEGERS.contains(&ty.as_str()) => constant(name),
                [ty, name] if ty == self.float => of_the_float(name),
                [root, ty, name] if (root == "std" || root == "core") && ty == self.float => {
                    of_the_float(name)
                }
                many => many.iter().any(|s| s == "consts"),
            };
            if !fine {
                let path = p.to_token_stream().to_string();
                self.fail(format!(
                    "its body names `{path}`, which is not one of its own bindings or a constant"
                ));
            }
        }
        fn visit_type_path(&mut self, t: &'ast syn::TypePath) {
            if t.path.is_ident(self.other_float) {
                let other = self.other_float;
                self.fail(format!("it uses `{other}` too"));
            }
            syn::visit::visit_type_path(self, t);
        }
        // A nested `fn` (expanded by its own attribute, with its own copy or the fallback that is an
        // error only once an `order = K` function instantiates it, as for a function outside the body),
        // a `const` of a number type (`bindings` has its name; the copy reads a float one in its float
        // type, as `f64::consts` imported by `use`): as the shadow of a function with `order = K` has them.
        fn visit_item(&mut self, item: &'ast syn::Item) {
            let fine = match item {
                syn::Item::Fn(_) => true,
                syn::Item::Const(c) => is_copied_constant_type(&c.ty, self.float),
                syn::Item::Use(u) => {
                    let tree = u.tree.to_token_stream().to_string();
                    (tree.starts_with("std ::") || tree.starts_with("core ::"))
                        && tree.contains(&format!("{} :: consts", self.float))
                }
                _ => false,
            };
            if !fine {
                self.fail("its body declares an item".into());
            }
        }
        // `&x` of a float is `&f64`, whose arithmetic `__S` lacks; a sub-slice `&x[a..b]` is a slice of
        // `__S` in the copy, as `x` is.
        fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
            match &*r.expr {
                syn::Expr::Index(i)
                    if r.mutability.is_none() && matches!(&*i.index, syn::Expr::Range(_)) =>
                {
                    self.visit_expr(&i.expr);
                    self.visit_expr(&i.index);
                }
                // `&m[i]`: a row of a matrix parameter lent whole (`let row = &m[i];`, as a loop over
                // `iter_mut().zip(m)` binds it, `slice_writes.rs`), read by index or passed on; a row
                // of the copy's float type, with no arithmetic on a `&f64`.
                syn::Expr::Index(i)
                    if r.mutability.is_none()
                        && !matches!(&*i.index, syn::Expr::Range(_))
                        && matches!(&*i.expr, syn::Expr::Path(p)
                        if p.path.get_ident().is_some_and(|name| {
                            self.matrices.iter().chain(&self.integer_matrices).any(|m| name == m)
                        })) =>
                {
                    self.visit_expr(&i.index);
                }
                _ => self.fail("its body takes a reference (`&`)".into()),
            }
        }
    }
    let bindings = bindings(item);
    let other_float = other_float(float);
    let matrices = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i) if float_depth(&t.ty, float) >= 2 => Some(i.ident.to_string()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let tuple_slices = crate::tuple_data::tuple_slices(&item.sig)
        .into_iter()
        .map(|(name, ..)| name.to_string())
        .collect();
    let integer_matrices = (item.sig.inputs.iter())
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i) if crate::integer_rows::integer_matrix_type(&t.ty).is_some() => {
                    Some(i.ident.to_string())
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let options = (item.sig.inputs.iter())
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i) if option_of_float(&t.ty, float) => Some(i.ident.to_string()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let mut check = Check {
        bindings: &bindings,
        calls,
        by_path,
        float,
        other_float,
        matrices,
        tuple_slices,
        integer_matrices,
        options,
        why: None,
    };
    check.visit_block(&item.block);
    check.visit_signature(&item.sig);
    check.why
}

/// The methods of an `Option` of floats that the copy reads as the function does (of an `Option<__S>`).
const OPTION_METHODS: &[&str] = &[
    "unwrap_or",
    "unwrap",
    "expect",
    "unwrap_or_default",
    "is_some",
    "is_none",
];

/// Is `ty` `Option<f64>` (of `float`)?
fn option_of_float(ty: &Type, float: &str) -> bool {
    let Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    last.ident == "Option"
        && p.qself.is_none()
        && args.args.len() == 1
        && matches!(args.args.first(), Some(syn::GenericArgument::Type(Type::Path(t))) if t.path.is_ident(float))
}

/// `Vec::new` or `Vec::with_capacity` (also `std::vec::Vec::..`), with no type arguments: an empty `Vec` whose
/// element type is inferred from what is pushed.
fn is_new_vec(path: &syn::Path) -> bool {
    let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
    let [.., ty, function] = segments.as_slice() else {
        return false;
    };
    let prefix = segments[..segments.len() - 2]
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>();
    ty.ident == "Vec"
        && matches!(ty.arguments, syn::PathArguments::None)
        && matches!(function.arguments, syn::PathArguments::None)
        && (function.ident == "new" || function.ident == "with_capacity")
        && (prefix.is_empty() || prefix == ["std", "vec"] || prefix == ["alloc", "vec"])
}

/// Does a `for` loop bind the rows of one of `matrices` by reference: `for row in m.iter()` (also
/// `.rev()`, `&m`) or `for (i, row) in m.iter().enumerate()`?
fn rows_iteration(pat: &syn::Pat, iterated: &Expr, matrices: &[String]) -> bool {
    use syn::Pat;
    let (pat, iterated) = match (pat, iterated) {
        (Pat::Tuple(t), Expr::MethodCall(m))
            if t.elems.len() == 2 && m.method == "enumerate" && m.args.is_empty() =>
        {
            (&t.elems[1], &*m.receiver)
        }
        other => other,
    };
    let iterated = match iterated {
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => &*m.receiver,
        e => e,
    };
    let matrix = match iterated {
        Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
        Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => &*m.receiver,
        _ => return false,
    };
    matches!(pat, Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none())
        && matches!(matrix, Expr::Path(p) if p.qself.is_none()
            && p.path.get_ident().is_some_and(|name| matrices.iter().any(|m| name == m)))
}

/// For a `for` loop whose pattern takes each float element out of its reference (`&v`, `(&a, &b)` over a
/// `zip`, `(i, &v)` over an `enumerate`) over a slice iterator of that form, the iterated arrays (paths);
/// `None` for any other loop.
fn by_value_iteration<'a>(pat: &syn::Pat, iterated: &'a Expr) -> Option<Vec<&'a Expr>> {
    use syn::Pat;
    let by_value =
        |p: &Pat| matches!(p, Pat::Reference(r) if matches!(&*r.pat, Pat::Ident(_) | Pat::Wild(_)));
    let index = |p: &Pat| matches!(p, Pat::Ident(_) | Pat::Wild(_));
    let method = |e: &'a Expr, name: &str| match e {
        Expr::MethodCall(m) if m.method == name => Some(m),
        _ => None,
    };
    // `x`, `&x`, `x.iter()`, `x.iter().rev()`: the array `x`, a path; a sub-slice of it, `&x[a..b]`; or a
    // row of a nested array, `&m[i]`, `x[i][j].iter()`.
    let elements = |e: &'a Expr| -> Option<&'a Expr> {
        let e = without_revs(e);
        let e = match e {
            Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => &*m.receiver,
            other => other,
        };
        let mut array = match e {
            Expr::Index(i) if matches!(&*i.index, Expr::Range(_)) => &*i.expr,
            other => other,
        };
        while let Expr::Index(i) = array {
            if matches!(&*i.index, Expr::Range(_)) {
                return None;
            }
            array = &i.expr;
        }
        // A field of `self` (`self.ws`, `self.inner.w`), which the copy of a method binds in its float type
        // (`Args::lift_fields`).
        let field = matches!(array, Expr::Field(_));
        while let Expr::Field(f) = array {
            array = &f.base;
        }
        let root =
            matches!(array, Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some());
        (root && (!field || matches!(array, Expr::Path(p) if p.path.is_ident("self")))).then_some(e)
    };
    // Which way the loop runs does not matter here: `x.iter().enumerate().rev()` binds as
    // `x.iter().enumerate()` does.
    let iterated = without_revs(iterated);
    match pat {
        p if by_value(p) => elements(iterated).map(|e| vec![e]),
        Pat::Tuple(t) if t.elems.len() == 2 => {
            let (first, second) = (&t.elems[0], &t.elems[1]);
            if let Some(zip) = method(iterated, "zip").filter(|m| m.args.len() == 1) {
                if by_value(first) && by_value(second) {
                    let a = elements(&zip.receiver)?;
                    let b = elements(&zip.args[0])?;
                    return Some(vec![a, b]);
                }
                return None;
            }
            let enumerate = method(iterated, "enumerate").filter(|m| m.args.is_empty())?;
            let receiver = without_revs(&enumerate.receiver);
            // `for (i, (&a, &b)) in x.iter().zip(y.iter()).enumerate()`.
            if let (Some(zip), Pat::Tuple(pair)) = (
                method(receiver, "zip").filter(|m| m.args.len() == 1),
                second,
            ) {
                return (index(first) && pair.elems.len() == 2 && pair.elems.iter().all(by_value))
                    .then(|| Some(vec![elements(&zip.receiver)?, elements(&zip.args[0])?]))
                    .flatten();
            }
            (index(first) && by_value(second))
                .then(|| elements(receiver).map(|e| vec![e]))
                .flatten()
        }
        _ => None,
    }
}

/// `e` without the `.rev()`s and `.step_by(k)`s at its end (`x.iter().rev().rev()` binds as `x.iter()`
/// does, and so does `x.iter().step_by(2)`).
fn without_revs(mut e: &Expr) -> &Expr {
    while let Expr::MethodCall(m) = e {
        let order = (m.method == "rev" && m.args.is_empty())
            || (m.method == "step_by" && m.args.len() == 1);
        if !order {
            break;
        }
        e = &m.receiver;
    }
    e
}

/// `item` with each `for` loop over the floats of a parameter, of a row of a nested one (`m[i]`,
/// `x[i][j]`) or of a local (`which`: one that surely holds floats, `let w = x.to_vec();`,
/// `let w: Vec<f64> = ..`, `vec![0.0; n]`, `vec![x[0], 2.0 * a]`, `[a, b]`, `Vec::new()` filled by `push`
/// of floats, or any but a matrix) that binds them by reference (`for v in x.iter()`, `for (i, v) in x.iter().enumerate()`,
/// `for (a, b) in x.iter().zip(&y[1..])`) taking them out of their references instead, and `*v` in its
/// body read as `v`: `&__S` has no arithmetic (`v * v`), `__S` has.
///
/// ```text
/// // Input:                                   // Output:
/// for (i, v) in x.iter().enumerate() {        for (i, &v) in x.iter().enumerate() {
///     s += v * *v * i as f64;                     s += v * v * i as f64;
/// }                                           }
/// ```
fn by_value_loops(
    item: &syn::ItemFn,
    float: &str,
    which: Locals,
    active_calls: &[String],
) -> syn::ItemFn {
    use syn::Pat;
    /// The parameters that hold floats, and how deep.
    fn float_arrays(item: &syn::ItemFn, float: &str) -> Vec<(String, usize)> {
        item.sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(t) => match (&*t.pat, float_depth(&t.ty, float)) {
                    (Pat::Ident(i), depth) if depth > 0 => Some((i.ident.to_string(), depth)),
                    _ => None,
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect()
    }
    /// The locals whose loops take their elements out of their references (`which`), one level deep.
    fn float_locals(
        item: &syn::ItemFn,
        float: &str,
        rewrite: &Rewrite,
        which: Locals,
        active_calls: &[String],
    ) -> Vec<(String, usize)> {
        use syn::visit::Visit;
        struct Lets<'a> {
            float: &'a str,
            rewrite: &'a Rewrite,
            which: Locals,
            /// The callees with derivatives (`CopyCalls::active`): what one returns holds floats (a
            /// differentiable function returns a float, a tuple of floats, an array or a `Vec` of them).
            active_calls: &'a [String],
            /// The parameters of the float type (`x: f64`, `x: &f64`).
            scalars: Vec<String>,
            floats: Vec<String>,
            others: Vec<String>,
            /// The matrices made so far, with their depth.
            matrices: Vec<(String, usize)>,
            /// The locals made empty (`Vec::new()`, `Vec::with_capacity(n)`), and what is pushed onto
            /// each: surely floats or not.
            empty: Vec<String>,
            pushes: Vec<(String, bool)>,
        }
        impl Lets<'_> {
            /// Is `e` surely of the float type: a float literal, a float parameter, an element of an array
            /// of floats (`x[i]`), a cast to it, or arithmetic, a float method or a negation of one such?
            fn surely_float(&self, e: &Expr) -> bool {
                match e {
                    Expr::Paren(p) => self.surely_float(&p.expr),
                    Expr::Path(p) => p
                        .path
                        .get_ident()
                        .is_some_and(|i| self.scalars.iter().any(|s| i == s)),
                    Expr::Index(i) if !matches!(&*i.index, Expr::Range(_)) => {
                        matches!(&*i.expr, Expr::Path(p) if p.path.get_ident().is_some_and(|name| {
                            self.rewrite
                                .arrays
                                .iter()
                                .rev()
                                .find(|(array, _)| name == array)
                                .is_some_and(|(_, depth)| *depth == 1)
                        }))
                    }
                    Expr::Cast(c) => matches!(&*c.ty, Type::Path(p) if p.path.is_ident(self.float)),
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
                        self.surely_float(&u.expr)
                    }
                    Expr::Binary(b)
                        if matches!(
                            b.op,
                            syn::BinOp::Add(_)
                                | syn::BinOp::Sub(_)
                                | syn::BinOp::Mul(_)
                                | syn::BinOp::Div(_)
                        ) =>
                    {
                        self.surely_float(&b.left) || self.surely_float(&b.right)
                    }
                    Expr::MethodCall(m) => {
                        crate::ir::FloatFn::from_name(&m.method.to_string(), m.args.len() + 1)
                            .is_some()
                            && self.surely_float(&m.receiver)
                    }
                    e => Self::float_literal(e),
                }
            }
            fn float_literal(e: &Expr) -> bool {
                matches!(
                    e,
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Float(_),
                        ..
                    })
                ) || matches!(e, Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) && Self::float_literal(&u.expr))
            }
            /// A matrix (or deeper), whose rows are no `Copy` values, with its depth: `vec![vec![..]; n]`,
            /// `[[a, b], [c, d]]`, a copy of a matrix (`m.to_vec()`) or declared so.
            fn matrix(&self, local: &syn::Local) -> Option<usize> {
                let nested = |e: &Expr| match e {
                    Expr::Repeat(r) => {
                        matches!(&*r.expr, Expr::Repeat(_) | Expr::Array(_) | Expr::Macro(_))
                    }
                    Expr::Array(a) => a
                        .elems
                        .iter()
                        .any(|e| matches!(e, Expr::Repeat(_) | Expr::Array(_) | Expr::Macro(_))),
                    Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                        crate::chains::vec_arg_exprs(&m.mac)
                            .first()
                            .is_some_and(|e| {
                                matches!(e, Expr::Repeat(_) | Expr::Array(_) | Expr::Macro(_))
                            })
                    }
                    _ => false,
                };
                if let Pat::Type(t) = &local.pat {
                    let depth = crate::signature::nesting_depth(&t.ty);
                    return (depth > 1).then_some(depth);
                }
                match &*local.init.as_ref()?.expr {
                    Expr::MethodCall(m)
                        if matches!(m.method.to_string().as_str(), "to_vec" | "clone") =>
                    {
                        let Expr::Path(p) = &*m.receiver else {
                            return None;
                        };
                        let name = p.path.get_ident()?;
                        let mut arrays = self.rewrite.arrays.iter().chain(&self.matrices);
                        let (_, depth) = arrays.rfind(|(array, _)| name == array)?;
                        (*depth > 1).then_some(*depth)
                    }
                    e => nested(e).then_some(2),
                }
            }
            fn holds_floats(&self, local: &syn::Local) -> bool {
                if self.which == Locals::AllButMatrices {
                    return self.matrix(local).is_none();
                }
                if let Pat::Type(t) = &local.pat {
                    return float_depth(&t.ty, self.float) == 1;
                }
                let Some(init) = &local.init else {
                    return false;
                };
                match &*init.expr {
                    Expr::MethodCall(m)
                        if matches!(m.method.to_string().as_str(), "to_vec" | "clone")
                            && m.args.is_empty() =>
                    {
                        self.rewrite.elements(&m.receiver)
                    }
                    // `let w = &x[a..b];`, a sub-slice of floats: what `for w in x.windows(k)` binds
                    // once `chains::desugar` has made it a loop over indexes.
                    Expr::Reference(r) if matches!(&*r.expr, Expr::Index(i) if matches!(&*i.index, Expr::Range(_))) => {
                        self.rewrite.elements(&init.expr)
                    }
                    // `let __p_w = field_window::<..>(&__p_values[a..b]);`: an array field's part of a
                    // struct's values view (`struct_whole.rs`), in the field's shape.
                    Expr::Call(c)
                        if c.args.len() == 1
                            && matches!(&*c.func, Expr::Path(p)
                        if crate::lower::is_private_field_window(p)) =>
                    {
                        self.rewrite.elements(&c.args[0])
                    }
                    // `let w = doubled(x);` of a callee with derivatives, by its bare name: its result
                    // holds floats.
                    Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if p.qself.is_none()
                    && p.path.get_ident().is_some_and(|callee| {
                        self.active_calls.iter().any(|a| callee == a)
                    })),
                    Expr::Repeat(r) => self.surely_float(&r.expr),
                    // Elements of one type: one surely a float makes them all floats.
                    Expr::Array(a) => a.elems.iter().any(|e| self.surely_float(e)),
                    Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                        let items = crate::chains::vec_arg_exprs(&m.mac);
                        match repeated(&m.mac) {
                            true => items.first().is_some_and(|e| self.surely_float(e)),
                            false => items.iter().any(|e| self.surely_float(e)),
                        }
                    }
                    _ => false,
                }
            }
        }
        /// `vec![v; n]` (not `vec![a, b]`).
        fn repeated(mac: &syn::Macro) -> bool {
            mac.tokens
                .clone()
                .into_iter()
                .any(|t| matches!(&t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ';'))
        }
        /// `Vec::new()` or `Vec::with_capacity(n)`.
        fn empty_vec(e: &Expr) -> bool {
            matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if is_new_vec(&p.path)))
        }
        impl<'ast> Visit<'ast> for Lets<'_> {
            fn visit_local(&mut self, local: &'ast syn::Local) {
                let name = match &local.pat {
                    Pat::Ident(i) => Some(&i.ident),
                    Pat::Type(t) => match &*t.pat {
                        Pat::Ident(i) => Some(&i.ident),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(name) = name {
                    if let Some(depth) = self.matrix(local) {
                        self.matrices.push((name.to_string(), depth));
                    }
                    let empty = matches!(&local.pat, Pat::Ident(_))
                        && local.init.as_ref().is_some_and(|i| empty_vec(&i.expr));
                    match self.holds_floats(local) {
                        true => self.floats.push(name.to_string()),
                        // `Vec::new()` filled by `push`: decided by what is pushed (below).
                        false if empty && self.which == Locals::OfFloats => {
                            self.empty.push(name.to_string())
                        }
                        false => self.others.push(name.to_string()),
                    }
                }
                syn::visit::visit_local(self, local);
            }
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                if let (Expr::Path(p), "push", 1) =
                    (&*m.receiver, m.method.to_string().as_str(), m.args.len())
                {
                    if let Some(name) = p.path.get_ident() {
                        let float = self.surely_float(&m.args[0]);
                        self.pushes.push((name.to_string(), float));
                    }
                }
                syn::visit::visit_expr_method_call(self, m);
            }
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let scalars = item
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(t) => {
                    let ty = match &*t.ty {
                        Type::Reference(r) if r.mutability.is_none() => &*r.elem,
                        ty => ty,
                    };
                    match (&*t.pat, ty) {
                        (Pat::Ident(i), Type::Path(p)) if p.path.is_ident(float) => {
                            Some(i.ident.to_string())
                        }
                        _ => None,
                    }
                }
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let mut lets = Lets {
            float,
            rewrite,
            which,
            active_calls,
            scalars,
            floats: Vec::new(),
            others: Vec::new(),
            matrices: Vec::new(),
            empty: Vec::new(),
            pushes: Vec::new(),
        };
        lets.visit_block(&item.block);
        let Lets {
            mut floats,
            mut others,
            matrices,
            empty,
            pushes,
            ..
        } = lets;
        // A `Vec::new()` holds floats where something is pushed onto it and all of it surely floats.
        for name in empty {
            let pushed: Vec<bool> = pushes
                .iter()
                .filter(|(p, _)| *p == name)
                .map(|(_, f)| *f)
                .collect();
            match !pushed.is_empty() && pushed.iter().all(|f| *f) {
                true => floats.push(name),
                false => others.push(name),
            }
        }
        let mut locals: Vec<(String, usize)> = floats
            .into_iter()
            .filter(|name| !others.contains(name))
            .map(|name| (name, 1))
            .collect();
        // Asked for, the matrices too, whose rows a loop binds (`for row in m.iter()`): where every `let`
        // of the name makes one of the same depth.
        if which == Locals::AllButMatrices {
            let same = |name: &String, depth: usize| {
                matrices
                    .iter()
                    .filter(|(m, _)| m == name)
                    .all(|(_, d)| *d == depth)
                    && matrices.iter().filter(|(m, _)| m == name).count()
                        == others.iter().filter(|o| *o == name).count()
            };
            let mut seen: Vec<(String, usize)> = Vec::new();
            for (name, depth) in &matrices {
                if same(name, *depth) && !seen.iter().any(|(s, _)| s == name) {
                    seen.push((name.clone(), *depth));
                }
            }
            locals.extend(seen);
        }
        locals
    }
    struct Rewrite {
        /// The arrays of floats, with how many levels of arrays each nests.
        arrays: Vec<(String, usize)>,
        /// The arrays held by value (`x: [f64; 3]`, `x: Vec<f64>`, `let w = vec![0.0; n];`): a loop over
        /// one bare (`for v in x`) already binds its floats by value.
        owned: Vec<String>,
    }
    impl Rewrite {
        /// `x`, `&x`, `x.iter()`, `&x[a..b]`, `x[a..b].iter()`, each perhaps `.rev()`, of a float array `x`,
        /// or of a row of a nested one (`m[i]`, `&x[i][j][a..]`).
        /// `x` bare, an array held by value: `for v in x` moves its floats out, no references.
        fn owned_bare(&self, e: &Expr) -> bool {
            matches!(e, Expr::Path(p) if p.qself.is_none()
                && p.path.get_ident().is_some_and(|i| self.owned.iter().any(|o| i == o)))
        }
        fn elements(&self, e: &Expr) -> bool {
            self.iterated_depth(e) == Some(1)
        }
        /// How many levels of arrays the items that `e` iterates (as `elements` reads it) hold: 1 for the
        /// floats of a slice, 2 for the rows of a matrix (`for row in m.iter()`), ..
        fn iterated_depth(&self, e: &Expr) -> Option<usize> {
            let e = without_revs(e);
            let e = match e {
                Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
                Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => &*m.receiver,
                e => e,
            };
            let mut e = match e {
                Expr::Index(i) if matches!(&*i.index, Expr::Range(_)) => &*i.expr,
                e => e,
            };
            // The rows of a nested array: one index per level above its floats.
            let mut indexes = 0;
            while let Expr::Index(i) = e {
                if matches!(&*i.index, Expr::Range(_)) {
                    return None;
                }
                indexes += 1;
                e = &i.expr;
            }
            let Expr::Path(p) = e else {
                return None;
            };
            let name = p.path.get_ident().filter(|_| p.qself.is_none())?;
            // The last `let` or parameter of the name counts (a loop's binding shadows an outer one).
            let (_, depth) = self.arrays.iter().rev().find(|(array, _)| name == array)?;
            depth.checked_sub(indexes).filter(|d| *d > 0)
        }
        /// The rows that a loop binds (`row` of `for row in m.iter()`, `for (i, row) in m.iter().enumerate()`
        /// of a matrix `m`): arrays of floats in its body, with their depth.
        fn rows_bound(&self, f: &syn::ExprForLoop) -> Option<(String, usize)> {
            let (pat, iterated) = match (&*f.pat, &*f.expr) {
                (Pat::Tuple(t), Expr::MethodCall(m))
                    if t.elems.len() == 2 && m.method == "enumerate" && m.args.is_empty() =>
                {
                    (&t.elems[1], &*m.receiver)
                }
                (pat, iterated) => (pat, iterated),
            };
            let Pat::Ident(row) = pat else {
                return None;
            };
            let depth = self
                .iterated_depth(iterated)?
                .checked_sub(1)
                .filter(|d| *d > 0)?;
            Some((row.ident.to_string(), depth))
        }
        /// Rewrites a binding `v` of a reference into `&v`; its name.
        fn by_value(pat: &mut Pat) -> Option<Ident> {
            match pat {
                Pat::Ident(i)
                    if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() =>
                {
                    let name = i.ident.clone();
                    *pat = syn::parse_quote!(&#name);
                    Some(name)
                }
                _ => None,
            }
        }
        /// The names `pat` takes by value over `iterated`: a pair over a zip side by side (recursively, over
        /// a zip of zips), a name over a slice's elements.
        fn zip_sides(&self, pat: &mut Pat, iterated: &Expr) -> Vec<Ident> {
            match (iterated, pat) {
                (Expr::MethodCall(zip), Pat::Tuple(t))
                    if zip.method == "zip" && zip.args.len() == 1 && t.elems.len() == 2 =>
                {
                    let mut names = self.zip_sides(&mut t.elems[0], &zip.receiver);
                    names.extend(self.zip_sides(&mut t.elems[1], &zip.args[0]));
                    names
                }
                (side, pat) if self.elements(side) => Self::by_value(pat).into_iter().collect(),
                _ => Vec::new(),
            }
        }

        /// The names the loop's pattern now takes by value.
        fn loop_pattern(&self, f: &mut syn::ExprForLoop) -> Vec<Ident> {
            let method = |e: &Expr, name: &str, args: usize| match e {
                Expr::MethodCall(m) if m.method == name && m.args.len() == args => Some(m.clone()),
                _ => None,
            };
            match &mut *f.pat {
                Pat::Ident(_) if self.elements(&f.expr) && !self.owned_bare(&f.expr) => {
                    Self::by_value(&mut f.pat).into_iter().collect()
                }
                Pat::Tuple(t) if t.elems.len() == 2 => {
                    // A zip reversed or stepped whole (`a.iter().zip(b.iter()).rev()`, `.step_by(2)`)
                    // binds as the zip does, and so does an enumeration.
                    let iterated = without_revs(&f.expr);
                    if method(iterated, "zip", 1).is_some() {
                        // Each side on its own: `(x, y)` over `xs.iter().zip(ys)`, `xs` of points and `ys`
                        // of floats, takes `y` by value and leaves the row `x` a reference; a side that is
                        // a zip again (`((x, y), z)`) the same, by its own pair.
                        return self.zip_sides(&mut f.pat, iterated);
                    } else if let Some(enumerate) = method(iterated, "enumerate", 0) {
                        // `(i, (a, b))` over `x.iter().zip(y.iter()).enumerate()`.
                        // (`(i, ((a, b), c))` over a zip of zips.)
                        if method(&enumerate.receiver, "zip", 1).is_some() {
                            return self.zip_sides(&mut t.elems[1], &enumerate.receiver);
                        } else if self.elements(&enumerate.receiver) {
                            return Self::by_value(&mut t.elems[1]).into_iter().collect();
                        }
                    }
                    Vec::new()
                }
                _ => Vec::new(),
            }
        }
    }
    /// `*v` read as `v` for the names taken by value.
    struct Deref<'a>(&'a [Ident]);
    impl VisitMut for Deref<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            if let Expr::Unary(u) = expr {
                if let (syn::UnOp::Deref(_), Expr::Path(p)) = (&u.op, &*u.expr) {
                    if p.path.get_ident().is_some_and(|i| self.0.contains(i)) {
                        *expr = (*u.expr).clone();
                        return;
                    }
                }
            }
            visit_mut::visit_expr_mut(self, expr);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    impl VisitMut for Rewrite {
        fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
            // Only where the body uses the elements as values: passed on bare to a call or method
            // (`g(v)`, `a.max(v)`), an element may have to stay the reference the callee takes, and the
            // copy would not compile (it is made without being asked: it must).
            let mut by_value = f.clone();
            let mut names = self.loop_pattern(&mut by_value);
            // Over a field of `self` (`for v in self.w.iter()`), whose type the syntax does not show:
            // where the body reads each element only as a number (`s += v * x`, `*v`, `v.sin()`), so that
            // it is surely a `Copy` number taken out of its reference as well.
            if names.is_empty() {
                let mut candidate = f.clone();
                let found = self_field_pattern(&mut candidate);
                if !found.is_empty() && read_as_numbers(&f.body, &found) {
                    by_value = candidate;
                    names = found;
                }
            }
            if !names.is_empty() && !passed_on_bare(&f.body, &names) {
                *f = by_value;
                Deref(&names).visit_block_mut(&mut f.body);
            }
            // The rows of a matrix are arrays of floats in the loop's body.
            let rows = self.rows_bound(f);
            let known = self.arrays.len();
            self.arrays.extend(rows);
            visit_mut::visit_expr_for_loop_mut(self, f);
            self.arrays.truncate(known);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut item = item.clone();
    let mut rewrite = Rewrite {
        arrays: float_arrays(&item, float),
        owned: owned_arrays(&item),
    };
    let locals = float_locals(&item, float, &rewrite, which, active_calls);
    // A local named like a parameter shadows it.
    rewrite
        .arrays
        .retain(|(name, _)| !locals.iter().any(|(local, _)| local == name));
    rewrite.arrays.extend(locals);
    rewrite.visit_block_mut(&mut item.block);
    item
}

/// Is `e` a field of `self` iterated (`self.w.iter()`, `&self.inner.w`, `self.w.iter().rev()`)?
fn self_field_iterated(e: &Expr) -> bool {
    let e = match without_revs(e) {
        Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
        Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => &*m.receiver,
        _ => return false,
    };
    let mut e = e;
    let mut fields = 0;
    while let Expr::Field(f) = e {
        fields += 1;
        e = &f.base;
    }
    fields > 0 && matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident("self"))
}

// Input:  for v in self.w.iter() { .. }          for (i, v) in self.w.iter().enumerate() { .. }
// Output: for &v in self.w.iter() { .. }, [v]    for (i, &v) in self.w.iter().enumerate() { .. }, [v]
/// The loop's pattern over a field of `self` taken by value, and the names it so binds (none where the
/// loop is of another form).
fn self_field_pattern(f: &mut syn::ExprForLoop) -> Vec<Ident> {
    use syn::Pat;
    let by_value = |pat: &mut Pat| match pat {
        Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() => {
            let name = i.ident.clone();
            *pat = syn::parse_quote!(&#name);
            vec![name]
        }
        _ => Vec::new(),
    };
    if self_field_iterated(&f.expr) {
        return by_value(&mut f.pat);
    }
    let iterated = without_revs(&f.expr).clone();
    match (&mut *f.pat, &iterated) {
        (Pat::Tuple(t), Expr::MethodCall(m))
            if t.elems.len() == 2
                && m.method == "enumerate"
                && m.args.is_empty()
                && self_field_iterated(&m.receiver) =>
        {
            by_value(&mut t.elems[1])
        }
        _ => Vec::new(),
    }
}

/// Does `block` read each of `names` only as a number: an operand of arithmetic or a comparison (`v * x`,
/// `s += v`, `v < a`), dereferenced (`*v`), or the receiver of a float method (`v.sin()`), and never bind
/// the name again?
fn read_as_numbers(block: &syn::Block, names: &[Ident]) -> bool {
    use syn::visit::Visit;
    let bound = crate::bindings::bound_in_block(block);
    if names.iter().any(|n| bound.contains(&n.to_string())) {
        return false;
    }
    struct Uses<'a> {
        names: &'a [Ident],
        other: bool,
    }
    impl Uses<'_> {
        fn named(&self, e: &Expr) -> bool {
            matches!(e, Expr::Path(p) if p.qself.is_none()
                && p.path.get_ident().is_some_and(|i| self.names.contains(i)))
        }
    }
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            use syn::BinOp::*;
            match e {
                Expr::Binary(b)
                    if matches!(
                        b.op,
                        Add(_)
                            | Sub(_)
                            | Mul(_)
                            | Div(_)
                            | Rem(_)
                            | AddAssign(_)
                            | SubAssign(_)
                            | MulAssign(_)
                            | DivAssign(_)
                            | Lt(_)
                            | Le(_)
                            | Gt(_)
                            | Ge(_)
                    ) =>
                {
                    // (Not beside a reference, `v > &0.0`, which the element by value would not match.)
                    let reference = |e: &Expr| matches!(e, Expr::Reference(_));
                    let named = self.named(&b.left) || self.named(&b.right);
                    if named && (reference(&b.left) || reference(&b.right)) {
                        self.other = true;
                    }
                    for side in [&*b.left, &*b.right] {
                        if !self.named(side) {
                            self.visit_expr(side);
                        }
                    }
                }
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && self.named(&u.expr) => {}
                Expr::MethodCall(m)
                    if self.named(&m.receiver)
                        && crate::ir::FloatFn::ALL
                            .iter()
                            .any(|(n, _, _)| m.method == n) =>
                {
                    m.args.iter().for_each(|a| self.visit_expr(a));
                }
                e if self.named(e) => self.other = true,
                e => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut uses = Uses {
        names,
        other: false,
    };
    uses.visit_block(block);
    !uses.other
}

/// The parameters taken by value (`x: [f64; 3]`, `x: Vec<f64>`) and the locals made by value
/// (`vec![..]`, `[0.0; N]`, `[a, b]`, `x.to_vec()`, `x.clone()`): the names a bare `for v in x` iterates by value.
fn owned_arrays(item: &syn::ItemFn) -> Vec<String> {
    use syn::visit::Visit;
    use syn::Pat;
    struct Lets(Vec<String>);
    impl<'ast> Visit<'ast> for Lets {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            let name = match &local.pat {
                Pat::Ident(i) => Some(&i.ident),
                Pat::Type(t) => match &*t.pat {
                    Pat::Ident(i) => Some(&i.ident),
                    _ => None,
                },
                _ => None,
            };
            let owned = local.init.as_ref().is_some_and(|init| match &*init.expr {
                Expr::Repeat(_) | Expr::Array(_) => true,
                Expr::Macro(m) => m.mac.path.is_ident("vec"),
                Expr::MethodCall(m) => {
                    matches!(m.method.to_string().as_str(), "to_vec" | "clone") && m.args.is_empty()
                }
                _ => false,
            });
            if let (Some(name), true) = (name, owned) {
                self.0.push(name.to_string());
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut lets = Lets(
        item.sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                syn::FnArg::Typed(t) if !matches!(&*t.ty, Type::Reference(_)) => match &*t.pat {
                    Pat::Ident(i) => Some(i.ident.to_string()),
                    _ => None,
                },
                _ => None,
            })
            .collect(),
    );
    lets.visit_block(&item.block);
    lets.0
}

/// How many levels of arrays of floats `ty` nests (`&[f64]`, `&mut [f64]`, `Vec<f64>`, `[f64; N]`: 1;
/// `&[Vec<f64>]`, `[[f64; M]; N]`: 2; ..), 0 for a type that holds no floats.
fn float_depth(ty: &Type, float: &str) -> usize {
    match ty {
        Type::Reference(r) => float_depth(&r.elem, float),
        Type::Path(p) if p.path.is_ident(float) => 0,
        _ => {
            let elem = match ty {
                Type::Slice(s) => Some(&*s.elem),
                Type::Array(a) => Some(&*a.elem),
                Type::Path(p) => p.path.segments.last().and_then(|seg| match &seg.arguments {
                    syn::PathArguments::AngleBracketed(a) if seg.ident == "Vec" => {
                        match a.args.first() {
                            Some(syn::GenericArgument::Type(t)) => Some(t),
                            _ => None,
                        }
                    }
                    _ => None,
                }),
                _ => None,
            };
            match elem {
                Some(Type::Path(p)) if p.path.is_ident(float) => 1,
                Some(e) => match float_depth(e, float) {
                    0 => 0,
                    depth => depth + 1,
                },
                None => 0,
            }
        }
    }
}

/// Which locals' loops `by_value_loops` rewrites.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Locals {
    /// Those that surely hold floats (`let w = x.to_vec();`, `let w: Vec<f64> = ..`, `vec![0.0; n]`): in
    /// a copy made without being asked, which must surely compile.
    OfFloats,
    /// Every local but a matrix (whose rows are no `Copy` values): in the copy of a function with
    /// `order = K`, whose locals hold floats, integers or `bool`s (`Copy` all) unless they are matrices.
    AllButMatrices,
}

/// Does `block` pass one of `names` on bare as an argument of a call or a method (`g(v)`, `a.max(v)`)?
fn passed_on_bare(block: &syn::Block, names: &[Ident]) -> bool {
    use syn::visit::Visit;
    struct Find<'a>(&'a [Ident], bool);
    impl Find<'_> {
        fn bare(&mut self, args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) {
            let named = |e: &Expr| matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.0.contains(i)));
            self.1 |= args.iter().any(named);
        }
    }
    impl<'ast> Visit<'ast> for Find<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            self.bare(&c.args);
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            self.bare(&m.args);
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut find = Find(names, false);
    find.visit_block(block);
    find.1
}

/// The names of `item`'s parameters of type `&f64` (for `float` = `f64`).
fn float_references(item: &syn::ItemFn, float: &str) -> Vec<String> {
    item.sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match (&*t.pat, &*t.ty) {
                (syn::Pat::Ident(i), Type::Reference(r))
                    if r.mutability.is_none()
                        && matches!(&*r.elem, Type::Path(p) if p.path.is_ident(float)) =>
                {
                    Some(i.ident.to_string())
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The names of `item`'s `bool` parameters and of locals bound to a `bool` by their form or type.
fn bools(item: &syn::ItemFn) -> Vec<String> {
    let is_bool_type = |ty: &Type| matches!(ty, Type::Path(p) if p.path.is_ident("bool"));
    let mut names: Vec<String> = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) if is_bool_type(&t.ty) => match &*t.pat {
                syn::Pat::Ident(i) => Some(i.ident.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    struct Locals<'n>(&'n mut Vec<String>);
    impl<'a> syn::visit::Visit<'a> for Locals<'_> {
        fn visit_local(&mut self, local: &'a syn::Local) {
            let (pat, typed) = match &local.pat {
                syn::Pat::Type(t) => (
                    &*t.pat,
                    matches!(&*t.ty, Type::Path(p) if p.path.is_ident("bool")),
                ),
                pat => (pat, false),
            };
            let by_form = local
                .init
                .as_ref()
                .is_some_and(|init| is_bool(&init.expr, self.0));
            if let (syn::Pat::Ident(i), true) = (pat, typed || by_form) {
                self.0.push(i.ident.to_string());
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    syn::visit::Visit::visit_block(&mut Locals(&mut names), &item.block);
    names
}

/// Whether `name` is written like a constant (`G`, `MAX_ITER`, `N`).
pub(crate) fn screaming(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The names `item` binds in its signature and body (not in nested items).
fn bindings(item: &syn::ItemFn) -> Vec<String> {
    struct Bindings(Vec<String>);
    impl<'a> syn::visit::Visit<'a> for Bindings {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        // `const N: usize` of the signature.
        fn visit_const_param(&mut self, c: &'a syn::ConstParam) {
            self.0.push(c.ident.to_string());
        }
        // A `const` or `static` of the body has a type the shadow sees (`float_constants` has the float ones).
        fn visit_item(&mut self, item: &'a syn::Item) {
            match item {
                syn::Item::Const(c) => self.0.push(c.ident.to_string()),
                syn::Item::Static(s) => self.0.push(s.ident.to_string()),
                _ => {}
            }
        }
    }
    let mut bindings = Bindings(Vec::new());
    syn::visit::Visit::visit_signature(&mut bindings, &item.sig);
    syn::visit::Visit::visit_block(&mut bindings, &item.block);
    bindings.0
}

/// Is `e` a tuple (nested or not) of literals alone, `(1.0, 2.0)`, or of values computed from literals and
/// the integer parameters `ints` alone (`(0.5, 2.0 * k as f64)`), maybe with arrays of those among its parts
/// (`([0.5, k as f64], 2.0)`), which the copy keeps as written? Where `stopped`, a part may also be
/// `stop_gradient(..)` of anything (`(stop_gradient(t), [2.0])`): a constant, which the copy passes as its
/// value in the callee's float type (`stopped_values`).
fn constant_tuple(e: &Expr, ints: &[String], stopped: bool) -> bool {
    // A part that is an array of such constants (`[0.5, k as f64]`, `vec![1.0, 2.0]`).
    let constant_array = |e: &Expr| match e {
        Expr::Array(a) => a.elems.iter().all(|e| integer_constant(e, ints)),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let args = crate::chains::vec_arg_exprs(&m.mac);
            !args.is_empty() && args.iter().all(|e| integer_constant(e, ints))
        }
        _ => false,
    };
    match e {
        Expr::Tuple(t) => {
            !t.elems.is_empty()
                && t.elems.iter().all(|e| {
                    constant_tuple(e, ints, stopped)
                        || integer_constant(e, ints)
                        || constant_array(e)
                        || stopped && stop_gradient_call(e).is_some()
                })
        }
        Expr::Paren(p) => constant_tuple(&p.expr, ints, stopped),
        _ => false,
    }
}

/// Is `e` computed from literals and the integer parameters `ints` alone (`2.0 * k as f64`, `idx[0] as
/// f64`)? Nothing in it is differentiated, and nothing in it is of the copy's float type.
fn integer_constant(e: &Expr, ints: &[String]) -> bool {
    let named = |e: &Expr| {
        matches!(e, Expr::Path(p) if p.qself.is_none()
            && p.path.get_ident().is_some_and(|i| ints.iter().any(|n| i == n)))
    };
    match e {
        Expr::Lit(_) => literals_only(e),
        Expr::Path(_) => named(e),
        Expr::Paren(p) => integer_constant(&p.expr, ints),
        Expr::Group(g) => integer_constant(&g.expr, ints),
        Expr::Cast(c) => integer_constant(&c.expr, ints),
        Expr::Index(i) => named(&i.expr) && integer_constant(&i.index, ints),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && integer_constant(&u.expr, ints),
        Expr::Binary(b) => {
            use syn::BinOp::{Add, Div, Mul, Rem, Sub};
            matches!(b.op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_))
                && integer_constant(&b.left, ints)
                && integer_constant(&b.right, ints)
        }
        _ => false,
    }
}

/// The parameters of `item` that are integers or `bool`s (or slices, arrays or `Vec`s of them) named
/// once in it (no local shadows them).
fn integer_params(item: &syn::ItemFn) -> Vec<String> {
    let bindings = bindings(item);
    item.sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(pt) if crate::tuples::holds_integers_only(&pt.ty) => match &*pt.pat {
                syn::Pat::Ident(pi) => Some(pi.ident.to_string()),
                _ => None,
            },
            _ => None,
        })
        .filter(|name| bindings.iter().filter(|n| *n == name).count() == 1)
        .collect()
}

/// `&(1.0, 2.0)`: a reference to a tuple of literals (or integer parameters) built in place.
fn constant_tuple_reference(e: &Expr, ints: &[String]) -> bool {
    match e {
        Expr::Reference(r) => r.mutability.is_none() && constant_tuple(&r.expr, ints, true),
        // By value (`weigh(([0.5, 1.0], 2.0))`), where it holds an array: such a tuple is no value of the
        // differentiated code, so it goes to a plain function.
        Expr::Tuple(t) => {
            constant_tuple(e, ints, true)
                && t.elems
                    .iter()
                    .any(|e| matches!(e, Expr::Array(_) | Expr::Macro(_)))
        }
        Expr::Paren(p) => constant_tuple_reference(&p.expr, ints),
        _ => false,
    }
}

/// The argument of `stop_gradient(x)` or `autodiff::stop_gradient(x)`, where `e` is such a call.
fn stop_gradient_call(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Call(c) if c.args.len() == 1 => match &*c.func {
            Expr::Path(p) if crate::lower::is_stop_gradient(p) => c.args.first(),
            _ => None,
        },
        Expr::Paren(p) => stop_gradient_call(&p.expr),
        _ => None,
    }
}

/// Is `p` the path of a function (`tuple_sum`, `m::f`, `Self::f`), not of a tuple struct or variant
/// (`Some`, `Point`), whose value the body may go on to read as the copy's floats?
fn function_path(p: &syn::ExprPath) -> bool {
    p.qself.is_none()
        && p.path.segments.last().is_some_and(|last| {
            last.ident
                .to_string()
                .trim_start_matches("r#")
                .starts_with(|c: char| c.is_lowercase() || c == '_')
        })
}

/// The local an argument passes whole, `c` or `&c`.
fn argument_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Reference(r) if r.mutability.is_none() => argument_name(&r.expr),
        Expr::Paren(p) => argument_name(&p.expr),
        _ => None,
    }
}

/// The locals of `item` bound once, by `let c = (1.0, 2.0);` (a tuple, nested or not, of literals alone),
/// that the body uses only as whole arguments, `c` or `&c`, of calls of functions without derivatives
/// (not in `active_calls`, not the function itself): `tuple_sum(&c)` of a plain `fn tuple_sum(t: &(f64,
/// f64))`. The copy keeps them as written, of the callee's float type, where retyping their floats to the
/// copy's `__S` would pass `&(__S, __S)` to the plain function (E0308). Nothing reads their floats as the
/// copy's, so nothing else needs them so.
fn constant_tuples_for_calls(item: &syn::ItemFn, active_calls: &[String]) -> Vec<String> {
    struct Uses<'a> {
        candidates: Vec<String>,
        /// Every use of each candidate as a path, and those as an argument of a plain call.
        all: Vec<String>,
        in_calls: Vec<String>,
        active: &'a [String],
        ints: &'a [String],
    }
    impl<'ast> syn::visit::Visit<'ast> for Uses<'_> {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let (syn::Pat::Ident(p), Some(init)) = (&local.pat, &local.init) {
                if p.by_ref.is_none()
                    && p.mutability.is_none()
                    && p.subpat.is_none()
                    && init.diverge.is_none()
                    && constant_tuple(&init.expr, self.ints, false)
                {
                    self.candidates.push(p.ident.to_string());
                }
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(name) = p.path.get_ident().filter(|_| p.qself.is_none()) {
                self.all.push(name.to_string());
            }
            syn::visit::visit_expr_path(self, p);
        }
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            let plain = matches!(&*call.func, Expr::Path(p) if function_path(p)
                && !self.active.contains(&p.path.to_token_stream().to_string()));
            if plain {
                self.in_calls
                    .extend(call.args.iter().filter_map(argument_name));
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let active: Vec<String> = active_calls
        .iter()
        .cloned()
        .chain([item.sig.ident.to_string()])
        .collect();
    let mut uses = Uses {
        candidates: Vec::new(),
        all: Vec::new(),
        in_calls: Vec::new(),
        active: &active,
        ints: &integer_params(item),
    };
    syn::visit::Visit::visit_block(&mut uses, &item.block);
    let bindings = bindings(item);
    let count = |names: &[String], name: &str| names.iter().filter(|n| *n == name).count();
    let mut kept: Vec<String> = uses
        .candidates
        .iter()
        .filter(|name| {
            count(&bindings, name) == 1
                && count(&uses.all, name) > 0
                && count(&uses.all, name) == count(&uses.in_calls, name)
        })
        .cloned()
        .collect();
    kept.dedup();
    kept
}

/// The names that `item`'s body declares or imports as float constants (see `Rewrite::constants`).
fn float_constants(item: &syn::ItemFn, float: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut items = Vec::new();
    collect_items(&item.block.stmts, &mut items);
    for item in items {
        match item {
            syn::Item::Const(c) => {
                let name = c.ident.to_string();
                if matches!(&*c.ty, Type::Path(p) if p.path.is_ident(float)) {
                    names.push(name);
                } else {
                    names.retain(|n| *n != name);
                }
            }
            syn::Item::Use(u)
                if u.tree
                    .to_token_stream()
                    .to_string()
                    .contains(&format!("{float} :: consts")) =>
            {
                collect_use(&u.tree, &mut names);
            }
            _ => {}
        }
    }
    names
}

/// The `const` items of `item`'s body that are arrays of the float type (`const W: [f64; 3]`, also nested),
/// with their depth (see `Rewrite::array_constants`).
fn float_array_constants(item: &syn::ItemFn, float: &str) -> Vec<(String, usize)> {
    fn depth(ty: &Type, float: &str) -> Option<usize> {
        match ty {
            Type::Array(a) => match &*a.elem {
                Type::Path(p) if p.path.is_ident(float) => Some(1),
                inner => depth(inner, float).map(|d| d + 1),
            },
            _ => None,
        }
    }
    let mut items = Vec::new();
    collect_items(&item.block.stmts, &mut items);
    items
        .into_iter()
        .filter_map(|item| match item {
            syn::Item::Const(c) => depth(&c.ty, float).map(|d| (c.ident.to_string(), d)),
            _ => None,
        })
        .collect()
}

/// The items declared anywhere in `stmts` (nested blocks included).
fn collect_items<'a>(stmts: &'a [syn::Stmt], items: &mut Vec<&'a syn::Item>) {
    struct Items<'a, 'b>(&'b mut Vec<&'a syn::Item>);
    impl<'a> syn::visit::Visit<'a> for Items<'a, '_> {
        fn visit_item(&mut self, item: &'a syn::Item) {
            self.0.push(item);
        }
    }
    let mut visitor = Items(items);
    for stmt in stmts {
        syn::visit::Visit::visit_stmt(&mut visitor, stmt);
    }
}

/// The names a `use` tree brings in (`consts` for `use std::f64::consts;`).
fn collect_use(tree: &syn::UseTree, names: &mut Vec<String>) {
    match tree {
        syn::UseTree::Path(p) => collect_use(&p.tree, names),
        syn::UseTree::Name(n) => names.push(n.ident.to_string()),
        syn::UseTree::Rename(r) => names.push(r.rename.to_string()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| collect_use(t, names)),
        syn::UseTree::Glob(_) => {}
    }
}

impl Rewrite<'_> {
    /// Is `e` (in parentheses or not) a call of a callee with derivatives, `g(x)`, whose copy the copy calls?
    fn is_active_call(&self, e: &Expr) -> bool {
        match e {
            Expr::Paren(p) => self.is_active_call(&p.expr),
            Expr::Call(call) => {
                self.float_results
                    && matches!(&*call.func, Expr::Path(p) if p.qself.is_none() && {
                        let called = p.path.to_token_stream().to_string();
                        self.active_calls.contains(&called)
                            && !self.plain_calls.iter().any(|c| c.callee == called)
                    })
            }
            _ => false,
        }
    }

    // Input:  (stop_gradient(t), [2.0]), an argument of a call kept as written (`constant_tuple_reference`)
    // Output: (::autodiff::__private::value::<_, _>(stop_gradient(t)), [2.0])
    /// The parts `stop_gradient(..)` of a constant tuple passed to a function without derivatives, which
    /// are of the copy's float type: their values in the float type the callee's parameter has, which
    /// rustc infers (a constant, so no tangent is lost). The other parts are literals and integers, kept.
    fn stopped_values(&mut self, arg: &mut Expr) {
        match arg {
            Expr::Reference(r) => self.stopped_values(&mut r.expr),
            Expr::Paren(p) => self.stopped_values(&mut p.expr),
            Expr::Tuple(t) => t.elems.iter_mut().for_each(|e| self.stopped_values(e)),
            e if stop_gradient_call(e).is_some() => {
                self.visit_expr_mut(e);
                *e = syn::parse_quote!(::autodiff::__private::value::<_, _>(#e));
            }
            _ => {}
        }
    }

    /// For `W[i][j]` indexing a float array constant of the body (`array_constants`) down to a float: the
    /// number of indexes.
    fn array_constant_element(&self, expr: &Expr) -> Option<usize> {
        let mut base = expr;
        let mut indexes = 0;
        while let Expr::Index(index) = base {
            indexes += 1;
            base = &index.expr;
        }
        let Expr::Path(p) = base else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        self.array_constants
            .iter()
            .any(|(constant, depth)| *constant == name && *depth == indexes)
            .then_some(indexes)
    }

    /// `W[i]`, `A[i][j]`, ..: a constant from outside the function indexed (never by a range).
    fn outside_constant_indexed(&self, e: &syn::ExprIndex) -> bool {
        let mut e = e;
        loop {
            if matches!(&*e.index, Expr::Range(_)) {
                return false;
            }
            match &*e.expr {
                Expr::Path(p) => return self.outside_constant(p),
                Expr::Index(inner) => e = inner,
                _ => return false,
            }
        }
    }

    /// Whether `p` names a constant from outside the function: `SCREAMING_CASE`, not a variable, reached
    /// through modules only (`Mode::FAST` names an associated item).
    fn outside_constant(&self, p: &syn::ExprPath) -> bool {
        let segments = crate::naming::path_names(&p.path);
        let Some((name, modules)) = segments.split_last() else {
            return false;
        };
        let local = modules.is_empty() && self.bindings.contains(name);
        // Through modules (`phys::G`), or an associated constant (`Self::UNIT`, `Model::SCALE`).
        let through_modules = modules.iter().all(|m| {
            m == "Self"
                || m.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        }) || (modules.len() == 1
            && modules[0].starts_with(char::is_uppercase));
        p.qself.is_none()
            && screaming(name)
            && !local
            && through_modules
            && !self.constants.contains(name)
            && !segments.iter().any(|s| s == self.float)
    }

    /// The written function's other float type, whose values the copy holds in its own float type too.
    fn other_float(&self) -> &'static str {
        other_float(self.float)
    }

    /// Is `ty` a float type the copy holds in its own (`__S`): the function's, and `f64` in an `f32`
    /// function (`x as f64`, exact on the values, which the copy keeps in its float type of `f32`; in an `f64`
    /// function `x as f32` rounds, `round_f32`).
    fn is_copy_float(&self, ty: &Type) -> bool {
        matches!(ty, Type::Path(p) if p.qself.is_none()
            && (p.path.is_ident(self.float) || self.float == "f32" && p.path.is_ident("f64")))
    }

    /// `::autodiff::__private::lit::<__S>(value as f64)`, built as the tree `parse_quote!` gives, without
    /// printing `value` and parsing it again.
    fn lit(&self, value: Expr) -> Expr {
        let ident = |name: &str| Ident::new(name, Span::call_site());
        let type_named = |ident: Ident| {
            Type::Path(syn::TypePath {
                qself: None,
                path: ident.into(),
            })
        };
        let mut path = syn::Path {
            leading_colon: Some(Default::default()),
            segments: syn::punctuated::Punctuated::new(),
        };
        path.segments.push(ident("autodiff").into());
        path.segments.push(ident("__private").into());
        path.segments.push(syn::PathSegment {
            ident: ident("lit"),
            arguments: syn::PathArguments::AngleBracketed(syn::AngleBracketedGenericArguments {
                colon2_token: Some(Default::default()),
                lt_token: Default::default(),
                args: std::iter::once(syn::GenericArgument::Type(type_named(self.scalar.clone())))
                    .collect(),
                gt_token: Default::default(),
            }),
        });
        let cast = Expr::Cast(syn::ExprCast {
            attrs: Vec::new(),
            expr: Box::new(value),
            as_token: Default::default(),
            ty: Box::new(type_named(ident("f64"))),
        });
        Expr::Call(syn::ExprCall {
            attrs: Vec::new(),
            func: Box::new(Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path,
            })),
            paren_token: Default::default(),
            args: std::iter::once(cast).collect(),
        })
    }
}

impl VisitMut for Rewrite<'_> {
    /// Items in the body (`const K: f64 = 3.0;`, `use ..`, a nested `fn`) keep their types: their uses are
    /// rewritten. A nested `fn` is differentiable here as in the other generated functions, so that the
    /// copy's calls of it find its own generic copy.
    fn visit_item_mut(&mut self, item: &mut syn::Item) {
        if let syn::Item::Fn(f) = item {
            *f = crate::lower::with_attribute(f);
        }
    }

    /// `let q: f32 = 2.0;` or `let (p, q): (f64, f32) = (0.5, 2.0);` in an `f64` function: a literal that
    /// the annotation gives the other float type stays as written (it is no value of the copy's type); the
    /// rest is rewritten as usual.
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        if matches!(&local.pat, syn::Pat::Ident(p) if self.kept_tuples.contains(&p.ident.to_string()))
        {
            return;
        }
        let syn::Pat::Type(typed) = &local.pat else {
            return visit_mut::visit_local_mut(self, local);
        };
        let other = self.other_float();
        let is_other =
            |ty: &Type| matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident(other));
        let is_literal = |e: &Expr| match e {
            Expr::Lit(_) => true,
            Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && matches!(&*u.expr, Expr::Lit(_)),
            _ => false,
        };
        let kept: Vec<bool> = match (&*typed.ty, local.init.as_ref().map(|i| &*i.expr)) {
            (ty, Some(e)) if is_other(ty) && is_literal(e) => vec![true],
            (Type::Tuple(types), Some(Expr::Tuple(values)))
                if types.elems.len() == values.elems.len() =>
            {
                types
                    .elems
                    .iter()
                    .zip(&values.elems)
                    .map(|(ty, e)| is_other(ty) && is_literal(e))
                    .collect()
            }
            _ => Vec::new(),
        };
        // In an `f32` function, `f64` values are the copy's float type too (`x as f64` in
        // `visit_expr_mut`): the literal is one of the copy's.
        if !kept.contains(&true) || self.float == "f32" {
            return visit_mut::visit_local_mut(self, local);
        }
        // In an `f64` function, `f32` values are the copy's float type too, rounded (`x as f32` in
        // `visit_expr_mut`): the literal is one, `2.0 as f32`.
        if self.float == "f64" {
            if let Some(init) = local.init.as_mut() {
                let cast = |e: &mut Expr| *e = syn::parse_quote!((#e) as f32);
                match &mut *init.expr {
                    Expr::Tuple(values) => values
                        .elems
                        .iter_mut()
                        .zip(&kept)
                        .filter(|(_, keep)| **keep)
                        .for_each(|(value, _)| cast(value)),
                    value => cast(value),
                }
            }
            return visit_mut::visit_local_mut(self, local);
        }
        self.visit_pat_mut(&mut local.pat);
        let Some(init) = local.init.as_mut() else {
            return;
        };
        // A value that is not a tuple is one literal of the other type, kept whole.
        if let Expr::Tuple(values) = &mut *init.expr {
            for (value, keep) in values.elems.iter_mut().zip(kept) {
                if !keep {
                    self.visit_expr_mut(value);
                }
            }
        }
    }

    // Input:  Act::LeakyRelu(slope) => slope * z
    // Output: Act::LeakyRelu(slope) => { let slope = constant::<__S, _>(slope); slope * z }
    /// A variant's fields bound by a `match` arm (`bindings::variant_fields`) are of the types the enum
    /// declares, which the copy cannot see: `constant` makes a float one `__S` and leaves an integer one
    /// as it is (as for a constant from outside).
    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let wrapped = std::mem::take(&mut self.in_wrapped_match);
        visit_mut::visit_arm_mut(self, arm);
        let names = crate::bindings::variant_fields(&arm.pat).unwrap_or_default();
        if names.is_empty() || wrapped {
            return;
        }
        let (scalar, body) = (self.scalar, &arm.body);
        *arm.body = syn::parse_quote!({
            #(let #names = ::autodiff::__private::constant::<#scalar, _>(#names);)*
            #body
        });
    }

    // Input:  match scale { Some(k) => k * x, None => x }   (`scale: Option<f64>`, `Option<__S>` in the copy)
    // Output: the same: `k` is an `__S` already
    /// A `match` on a parameter of `wrapped`: its arms' fields are not lifted (`visit_arm_mut`).
    fn visit_expr_match_mut(&mut self, m: &mut syn::ExprMatch) {
        self.visit_expr_mut(&mut m.expr);
        let on_wrapped = matches!(&*m.expr, Expr::Path(p)
            if p.path.get_ident().is_some_and(|name| self.wrapped.iter().any(|w| name == w)));
        for arm in &mut m.arms {
            self.in_wrapped_match = on_wrapped;
            self.visit_arm_mut(arm);
        }
        self.in_wrapped_match = false;
    }

    /// The constants of a pattern (`0 =>`, `i64::MIN..=-1 =>`, `LIMIT =>`) stay as written: a `match` is
    /// on inactive values, and a pattern cannot hold the calls that the rewrite makes of constants in
    /// expressions (`constant::<__S, _>(i64::MIN)`). Bindings and their type annotations are rewritten.
    fn visit_pat_mut(&mut self, pat: &mut syn::Pat) {
        match pat {
            syn::Pat::Lit(_) | syn::Pat::Range(_) | syn::Pat::Path(_) | syn::Pat::Const(_) => {}
            _ => visit_mut::visit_pat_mut(self, pat),
        }
    }

    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty {
            // `f32` in an `f64` function: its values are the copy's float type too (`x as f32` above).
            if p.qself.is_none()
                && (p.path.is_ident(self.float) || p.path.is_ident(self.other_float()))
            {
                let scalar = self.scalar;
                *ty = syn::parse_quote!(#scalar);
                return;
            }
        }
        visit_mut::visit_type_mut(self, ty);
    }

    /// `[f64; N]`: the length is a constant expression, which stays as written.
    fn visit_type_array_mut(&mut self, array: &mut syn::TypeArray) {
        self.visit_type_mut(&mut array.elem);
    }

    /// `Foo<{ N }>`: the same for const generic arguments.
    fn visit_generic_argument_mut(&mut self, argument: &mut syn::GenericArgument) {
        if !matches!(argument, syn::GenericArgument::Const(_)) {
            visit_mut::visit_generic_argument_mut(self, argument);
        }
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // `self.g(..)` of a method with derivatives: the copy of `g` with the same constant `self`,
        // `Self::__g_generic(Receiver::receive(self), ..)`, `self` (a `&Self`: `expand::method_generic_copy`
        // makes such copies of methods taking `&self`) passed as `g` takes it (a clone for one taking
        // `self` by value, as `struct_higher::SelfAsPrimal` passes it; the lowering reads the call as
        // `self`, received).
        if let Expr::MethodCall(m) = expr {
            if self_method_call(m).is_some_and(|g| self.active_calls.contains(&g)) {
                m.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
                let copy = crate::naming::generic_copy(&m.method);
                let args = &m.args;
                let comma = (!args.is_empty()).then(|| quote::quote!(,));
                *expr = syn::parse_quote_spanned! {m.method.span()=>
                    Self::#copy(::autodiff::__private::Receiver::receive(self) #comma #args)
                };
                return;
            }
        }
        // `g(..)` with differentiated arguments (or `f(..)` inside `f`): the shadow calls the generic copy
        // of `g`, which takes the shadow's float type, through `g`'s companion type (found wherever `g`
        // is, also when imported by `use`): `<g as GenericCopy>::Copy::call(..)`. A method's, `Self::g`,
        // is `Self::__g_generic`.
        if let Expr::Call(call) = expr {
            if let Expr::Path(p) = &mut *call.func {
                let called = p.path.to_token_stream().to_string();
                if p.qself.is_none() && self.active_calls.contains(&called) {
                    // `g(c)` of a parameter `c: &f64`, whose value the shadow holds in `c`: `g(&c)`.
                    for arg in call.args.iter_mut() {
                        if matches!(&*arg, Expr::Path(a) if a.path.get_ident()
                            .is_some_and(|i| self.by_ref.contains(&i.to_string())))
                        {
                            *arg = syn::parse_quote!(&#arg);
                        }
                    }
                    // By a path (`libm::erf(x)`): the copy of what the first-order derivative finds there.
                    let mut generics = match p.path.segments.last().map(|l| &l.arguments) {
                        Some(syn::PathArguments::AngleBracketed(args)) => {
                            let mut args = args.clone();
                            args.colon2_token = Some(Default::default());
                            Some(args)
                        }
                        _ => None,
                    };
                    // `g::<f64>` → `::<__S>`.
                    if let Some(generics) = &mut generics {
                        self.visit_angle_bracketed_generic_arguments_mut(generics);
                    }
                    let mut path = p.path.clone();
                    if let Some(last) = path.segments.last_mut() {
                        last.arguments = syn::PathArguments::None;
                    }
                    let by_path = (!crate::naming::is_associated_call(&path))
                        .then(|| {
                            crate::companion::copy_by_path(
                                &path,
                                "call_on",
                                call.args.len(),
                                generics.as_ref(),
                            )
                        })
                        .flatten();
                    if let Some(callee) = by_path {
                        call.args.iter_mut().for_each(|a| self.visit_expr_mut(a));
                        let args = &call.args;
                        *expr = syn::parse_quote!(#callee(#args));
                        return;
                    }
                    *p = generic_copy_call(p);
                }
                let plain = self
                    .plain_calls
                    .iter()
                    .find(|c| {
                        p.qself.is_none() && c.callee == called && c.floats.len() == call.args.len()
                    })
                    .cloned();
                if let Some(plain) = plain.as_ref().filter(|p| p.maybe) {
                    let float = Ident::new(self.float, Span::call_site());
                    let float: Type = syn::parse_quote!(#float);
                    let mut args = Vec::new();
                    let arrays = plain.arrays.iter().chain(std::iter::repeat(&None));
                    for (((arg, is_float), ty), array) in call
                        .args
                        .iter_mut()
                        .zip(&plain.floats)
                        .zip(&plain.types)
                        .zip(arrays)
                    {
                        // A reference to an array of floats (`&w`, `maybe::copy_calls` takes no other):
                        // its values for the callee as written.
                        // One the callee writes (`&mut v`): its values in a buffer, written back.
                        if array.is_some() {
                            let output =
                                matches!(&*arg, Expr::Reference(r) if r.mutability.is_some());
                            self.visit_expr_mut(arg);
                            let ty = Box::new(float.clone());
                            args.push(match output {
                                true => crate::maybe::CopyArg::Output(ty),
                                false => crate::maybe::CopyArg::Array(ty),
                            });
                            continue;
                        }
                        // A constant from outside (`HALF`), of a type the macro cannot see: as written.
                        let constant = !*is_float
                            && matches!(&*arg, Expr::Path(c) if self.outside_constant(c));
                        if constant {
                            args.push(crate::maybe::CopyArg::Constant);
                            continue;
                        }
                        self.visit_expr_mut(arg);
                        args.push(match (is_float, ty) {
                            // A tuple of floats by value (`plain_calls` marks it `(_, _)`).
                            (true, Some(Type::Tuple(t))) => {
                                crate::maybe::CopyArg::Tuple(t.elems.len())
                            }
                            (true, _) => crate::maybe::CopyArg::Float(Box::new(
                                ty.clone().unwrap_or_else(|| float.clone()),
                            )),
                            (false, _) => crate::maybe::CopyArg::Other,
                        });
                    }
                    let scalar = self.scalar;
                    // The callee's path without a turbofish (`pbump::<f64>`): a companion type is not
                    // generic, and the callee as written infers it from its arguments, which are those
                    // of its float type there (`plain::<f64, _>(..)`).
                    let mut path = p.path.clone();
                    if let Some(last) = path.segments.last_mut() {
                        last.arguments = syn::PathArguments::None;
                    }
                    let written = crate::maybe::CopyCall {
                        path,
                        scalar: syn::parse_quote!(#scalar),
                        args,
                    }
                    .written();
                    let args = &call.args;
                    *expr = syn::parse_quote!((#written)(#args));
                    return;
                }
                if let Some(plain) = plain {
                    let (float, scalar) = (Ident::new(self.float, Span::call_site()), self.scalar);
                    let float: Type = syn::parse_quote!(#float);
                    for (((arg, is_float), ty), array) in call
                        .args
                        .iter_mut()
                        .zip(&plain.floats)
                        .zip(&plain.types)
                        .zip(plain.arrays.iter().chain(std::iter::repeat(&None)))
                    {
                        // An array of a call whose result is an integer (`argmax(x)`): its values, in the
                        // written float type; a reference stays one.
                        if let Some(reference) = array {
                            self.visit_expr_mut(arg);
                            let values =
                                quote!(::autodiff::__private::array_values::<#float, _>(#arg));
                            *arg = match reference {
                                true => syn::parse_quote!(&#values),
                                false => syn::parse_quote!(#values),
                            };
                            continue;
                        }
                        // A constant of literals (`plain(1.0)`, `plain(-2.0 * 1.5)`) stays as written: its
                        // type is the callee's parameter's, as in the function.
                        if *is_float && literals_only(arg) {
                            continue;
                        }
                        self.visit_expr_mut(arg);
                        // A tuple of floats (`expand::plain_calls`): its values, componentwise, in the
                        // types of the callee's parameter.
                        if let (true, Some(Type::Tuple(_))) = (*is_float, ty) {
                            let callee = called.replace(' ', "");
                            *arg = if plain.constant_result {
                                syn::parse_quote!(::autodiff::__private::tuple_values(#arg))
                            } else {
                                syn::parse_quote!(::autodiff::__private::plain_tuple(#arg, #callee))
                            };
                            continue;
                        }
                        if *is_float {
                            let ty = ty.as_ref().unwrap_or(&float);
                            let callee = called.replace(' ', "");
                            *arg = if plain.constant_result {
                                syn::parse_quote!(::autodiff::__private::value::<#ty, _>(#arg))
                            } else {
                                syn::parse_quote!(::autodiff::__private::plain::<#ty, _>(#arg, #callee))
                            };
                        }
                    }
                    // The result's type is the callee's, which only rustc sees: `lift` makes a float the
                    // copy's float type and leaves integers as they are.
                    *expr = syn::parse_quote!(::autodiff::__private::lift::<#scalar, _>(#call));
                    return;
                }
                // `tuple_sum(&c)` of a tuple of constants kept as written (`kept_tuples`), or `tuple_sum(&(1.0,
                // 2.0))` of one built in place, which stays as written: a call of a
                // function without derivatives on constants, whose result `lift` makes the copy's float.
                if function_path(p)
                    && call.args.iter().any(|a| {
                        argument_name(a).is_some_and(|n| self.kept_tuples.contains(&n))
                            || constant_tuple_reference(a, &self.ints)
                    })
                {
                    let ints = self.ints.clone();
                    for arg in call.args.iter_mut() {
                        match constant_tuple_reference(arg, &ints) {
                            true => self.stopped_values(arg),
                            false => self.visit_expr_mut(arg),
                        }
                    }
                    let scalar = self.scalar;
                    *expr = syn::parse_quote!(::autodiff::__private::lift::<#scalar, _>(#call));
                    return;
                }
            }
        }
        // `W[i]` of a `const W: [f64; N]` of the body, indexed down to a float: the float as a literal is.
        if let Some(indexes) = self.array_constant_element(expr) {
            // (The indexes are integers of the body, rewritten as any.)
            let mut inner = &mut *expr;
            for _ in 0..indexes {
                let Expr::Index(index) = inner else {
                    break;
                };
                self.visit_expr_mut(&mut index.index);
                inner = &mut index.expr;
            }
            *expr = self.lit(expr.clone());
            return;
        }
        match expr {
            // `*x` of a float parameter taken by reference: the shadow has its value in `x`.
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(_),
                expr: inner,
                ..
            }) if matches!(&**inner, Expr::Path(p) if p.path.get_ident()
                .is_some_and(|i| self.by_ref.contains(&i.to_string()))) =>
            {
                *expr = (**inner).clone();
                return;
            }
            Expr::Lit(l) if matches!(l.lit, syn::Lit::Float(_)) => {
                *expr = self.lit(Expr::Lit(l.clone()));
                // The replacement is final: its `as f64` is not the function's float type to rewrite.
                return;
            }
            // `2f64`: an integer literal with a float suffix.
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) if i.suffix() == self.float || i.suffix() == self.other_float() => {
                let value = syn::LitInt::new(i.base10_digits(), i.span());
                *expr = self.lit(Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit: syn::Lit::Int(value),
                }));
                return;
            }
            Expr::Path(p) if p.qself.is_none() => {
                let segments = crate::naming::path_names(&p.path);
                let position = segments.iter().position(|s| s == self.float);
                // The other float type's constants (`f64::EPSILON`, `std::f64::consts::PI` in an `f32`
                // function, `f32::EPSILON` in an `f64` one): their values in the copy's float type; its
                // functions (`f64::sqrt`) the copy's.
                let other = segments.iter().position(|s| s == self.other_float());
                if let (None, Some(i)) = (position, other) {
                    let last = segments.last().map(String::as_str).unwrap_or_default();
                    let constant = segments.get(i + 1).is_some_and(|s| s == "consts")
                        || FLOAT_CONSTANT_METHODS.iter().any(|(c, _)| *c == last);
                    if constant {
                        *expr = self.lit(Expr::Path(p.clone()));
                        return;
                    }
                    if i + 2 == segments.len() && !FLOAT_INTEGER_CONSTANTS.contains(&last) {
                        let scalar = self.scalar;
                        if let Some(segment) = p.path.segments.iter_mut().nth(i) {
                            segment.ident = scalar.clone();
                        }
                        return;
                    }
                }
                // `K`, `PI`, `consts::PI`: a float constant the body declares or imports.
                if position.is_none()
                    && segments.first().is_some_and(|s| self.constants.contains(s))
                {
                    *expr = self.lit(Expr::Path(p.clone()));
                    return;
                }
                // `G`, or `phys::G` through modules: a constant from outside, of a type the macro cannot see;
                // `constant` makes a float one `__S` and leaves an integer one as it is.
                if self.outside_constant(p) {
                    let (scalar, path) = (self.scalar, p.to_token_stream());
                    *expr = syn::parse_quote!(::autodiff::__private::constant::<#scalar, _>(#path));
                    return;
                }
                match (position, segments.last().map(String::as_str)) {
                    // `std::f64::consts::PI`, `f64::consts::E`: a constant of the module.
                    (Some(i), _) if segments.get(i + 1).is_some_and(|s| s == "consts") => {
                        *expr = self.lit(Expr::Path(p.clone()));
                        return;
                    }
                    // `f64::EPSILON` and friends: the `Float` method of the same value.
                    (Some(i), Some(last)) if i + 2 == segments.len() => {
                        let method = FLOAT_CONSTANT_METHODS
                            .iter()
                            .find(|(constant, _)| *constant == last)
                            .map(|(_, method)| *method);
                        // `f64::DIGITS` and the other integer constants of the type: as written.
                        if FLOAT_INTEGER_CONSTANTS.contains(&last) {
                            return;
                        }
                        let scalar = self.scalar;
                        match method {
                            Some(m) => {
                                let m = Ident::new(m, Span::call_site());
                                *expr = syn::parse_quote!(<#scalar as ::autodiff::__private::Float>::#m());
                                return;
                            }
                            // `f64::sin` as a function path: the type parameter's.
                            None => {
                                if let Some(segment) = p.path.segments.iter_mut().nth(i) {
                                    segment.ident = scalar.clone();
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            // `break 'found 0.0`: its value becomes `::autodiff::..`, which after a label reads as a
            // labelled loop (`break 'found: ..`) when the copy is parsed again: in parentheses.
            Expr::Break(b) if b.label.is_some() && b.expr.is_some() => {
                if let Some(value) = &mut b.expr {
                    self.visit_expr_mut(value);
                    let inner = std::mem::replace(&mut **value, Expr::Verbatim(TokenStream::new()));
                    **value = Expr::Paren(syn::ExprParen {
                        attrs: Vec::new(),
                        paren_token: Default::default(),
                        expr: Box::new(inner),
                    });
                }
                return;
            }
            // `a += b`: `Float` has no `AddAssign`; `a = a + b` means the same in the subset.
            Expr::Binary(b) if compound(&b.op).is_some() => {
                let op = compound(&b.op).unwrap_or(syn::BinOp::Add(Default::default()));
                // Rust evaluates the right side of a compound assignment of primitives before it reads
                // the place: a right side that may change a name the place uses (`s += { s = 2.0; 1.0 }`,
                // `s += g(&mut s)`) is held first, `s = { let r = ..; s + r }`, not read after `s`.
                let moves = crate::incoming::index_moved_by(&b.right, &b.left).is_some();
                self.visit_expr_mut(&mut b.left);
                self.visit_expr_mut(&mut b.right);
                let left = b.left.clone();
                let mut right = b.right.clone();
                let held = Ident::new("__autodiff_right", Span::mixed_site());
                let first = quote!(#left = { let #held = #right; #left #op #held });
                if let Some(first) = moves.then(|| syn::parse2::<Expr>(first).ok()).flatten() {
                    *expr = first;
                    return;
                }
                // `s *= 1.0 + y` is `s = s * (1.0 + y)`.
                if matches!(
                    &*right,
                    Expr::Binary(_) | Expr::Cast(_) | Expr::Range(_) | Expr::Assign(_)
                ) {
                    right = Box::new(Expr::Paren(syn::ExprParen {
                        attrs: Vec::new(),
                        paren_token: Default::default(),
                        expr: right,
                    }));
                }
                // Built as the tree `parse_quote!(#left = #left #op #right)` gives, without printing and
                // parsing the operands again.
                *expr = Expr::Assign(syn::ExprAssign {
                    attrs: Vec::new(),
                    left: left.clone(),
                    eq_token: Default::default(),
                    right: Box::new(Expr::Binary(syn::ExprBinary {
                        attrs: Vec::new(),
                        left,
                        op,
                        right,
                    })),
                });
                return;
            }
            // `n as f64`: `as` cannot name a type parameter; `x as usize`: nor convert from one. The
            // macro reads both helpers as the casts they stand for.
            // `(x > 0.0) as i32`: `as` converts a `bool` itself (and `to_int` could not).
            // `x as f32` in an `f64` function: rounded to `f32`, the derivative taken as 1 (as the
            // first-order items take it); an integer converts first. What follows the cast is computed in
            // the copy's float type.
            Expr::Cast(c)
                if self.float == "f64"
                    && matches!(&*c.ty, Type::Path(p) if p.path.is_ident("f32"))
                    && !is_bool(&c.expr, &self.bools) =>
            {
                self.visit_expr_mut(&mut c.expr);
                let mut value = &*c.expr;
                while let Expr::Paren(p) = value {
                    value = &p.expr;
                }
                let scalar = self.scalar;
                *expr = syn::parse_quote!(::autodiff::__private::round_f32(
                    ::autodiff::__private::cast::<#scalar, _>(#value)
                ));
                return;
            }
            // `g(x) as f64` of a callee with derivatives: its copy returns the copy's float type, which
            // `cast` would take through `f64`, dropping a dual number's tangents in the copy's own body
            // (the value an `order = K` caller reads): the call as it is.
            Expr::Cast(c) if self.is_copy_float(&c.ty) && self.is_active_call(&c.expr) => {
                self.visit_expr_mut(&mut c.expr);
                let call = (*c.expr).clone();
                *expr = syn::parse_quote!((#call));
                return;
            }
            // `x as f64` in an `f32` function: the copy's float type, as `f64` is there.
            Expr::Cast(c)
                if (is_number(&c.ty, self.float) || self.is_copy_float(&c.ty))
                    && !is_bool(&c.expr, &self.bools) =>
            {
                self.visit_expr_mut(&mut c.expr);
                let mut value = &*c.expr;
                while let Expr::Paren(p) = value {
                    value = &p.expr;
                }
                let scalar = self.scalar;
                *expr = match &*c.ty {
                    ty if self.is_copy_float(ty) => {
                        syn::parse_quote!(::autodiff::__private::cast::<#scalar, _>(#value))
                    }
                    // `helper(x) as usize` of a plain helper, `lift(helper(value(x)))` here: the helper's
                    // own result converted, which is `as` again where the macro reads the copy back (a
                    // float of the copy's type is not one `as` converts).
                    ty => match lifted_call(value) {
                        Some(call) => {
                            syn::parse_quote!(::autodiff::__private::to_int::<#ty, _>(#call))
                        }
                        None => syn::parse_quote!(::autodiff::__private::to_int::<#ty, _>(#value)),
                    },
                };
                return;
            }
            // `f64::from(n)`: `Float` has `NumCast::from`, which returns an `Option`.
            Expr::Call(c)
                if c.args.len() == 1
                    && matches!(&*c.func, Expr::Path(p) if p.qself.is_none()
                        && p.path.segments.len() == 2
                        && p.path.segments[0].ident == self.float
                        && p.path.segments[1].ident == "from") =>
            {
                self.visit_expr_mut(&mut c.args[0]);
                let (scalar, value) = (self.scalar, &c.args[0]);
                // `f64::from(x > 1.0)`: a `bool` converts through `u8`.
                let value = if is_bool(value, &self.bools) {
                    quote!((#value) as u8)
                } else {
                    value.to_token_stream()
                };
                *expr = syn::parse_quote!(::autodiff::__private::cast::<#scalar, _>(#value));
                return;
            }
            // `WEIGHTS[i]` of an array from outside: its element is the constant (the macro reads
            // `WEIGHTS[i]` itself as one).
            // So is `A[i][j]` of a matrix from outside, indexed down from the outside.
            Expr::Index(e) if self.outside_constant_indexed(e) => {
                let mut inner = &mut *e;
                loop {
                    self.visit_expr_mut(&mut inner.index);
                    match &mut *inner.expr {
                        Expr::Index(next) => inner = next,
                        _ => break,
                    }
                }
                let scalar = self.scalar;
                *expr = syn::parse_quote!(::autodiff::__private::constant::<#scalar, _>(#e));
                return;
            }
            // `KNOTS.len()` of an array from outside: a `usize`, as written (the array itself is no
            // `Constant`).
            Expr::MethodCall(m)
                if m.method == "len"
                    && m.args.is_empty()
                    && matches!(&*m.receiver, Expr::Path(p) if self.outside_constant(p)) =>
            {
                return;
            }
            // `[0.0; N]`: the length is a constant expression, which a call cannot be.
            Expr::Repeat(r) => {
                self.visit_expr_mut(&mut r.expr);
                return;
            }
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                // `vec![0.0; n]`: rewrite the expressions inside the macro too.
                let parsed = m.mac.parse_body_with(
                    syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
                );
                if let Ok(mut items) = parsed {
                    for item in items.iter_mut() {
                        self.visit_expr_mut(item);
                    }
                    m.mac.tokens = items.to_token_stream();
                } else {
                    let tokens = m.mac.tokens.clone();
                    if let Ok(mut repeat) = syn::parse2::<syn::ExprRepeat>(quote!([#tokens])) {
                        self.visit_expr_mut(&mut repeat.expr);
                        self.visit_expr_mut(&mut repeat.len);
                        let (value, len) = (&repeat.expr, &repeat.len);
                        m.mac.tokens = quote!(#value; #len);
                    }
                }
                return;
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body of the shadow of `item`, as a string without the inserted `use`.
    fn body(item: syn::ItemFn) -> String {
        let name = Ident::new("__f_generic", Span::call_site());
        let mut s = shadow(&item, "f64", &name, &[], &[], Locals::AllButMatrices, false);
        s.block.stmts.remove(0);
        s.block
            .stmts
            .iter()
            .map(|s| s.to_token_stream().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `self.g(x)` of a method with derivatives calls `g`'s copy with the same constant `self`, passed as
    /// `g` takes it; a method of `self` without derivatives (not among the callees) makes no copy.
    #[test]
    fn calls_of_methods_of_self_call_their_copies() {
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(&self, x: f64) -> f64 {
                self.g(x).sin() * self.w[0]
            }
        );
        let name = Ident::new("__f_generic", Span::call_site());
        let calls = ["Self :: g".to_string()];
        let s = shadow(&item, "f64", &name, &calls, &[], Locals::OfFloats, true);
        let text = s.block.to_token_stream().to_string();
        assert!(
            text.contains(
                "Self :: __g_generic (:: autodiff :: __private :: Receiver :: receive (self) , x)"
            ),
            "{text}"
        );
        assert_eq!(why_no_copy_with(&item, "f64", &calls, &calls, false), None);
        let unknown = why_no_copy_with(&item, "f64", &[], &[], false);
        assert!(unknown.is_some_and(|why| why.contains("`.g()`")));
    }

    /// A loop over a slice of tuples parameter (`for &(i, j) in tris`, which `tuple_data.rs` rewrites into
    /// `let (i, j) = at(tris, k)`) leaves the copy possible (session 46: an `order = 2` energy calling a
    /// first-order FEM assembly over `&[(usize, usize, usize)]` was refused); `at` of a constant from
    /// outside (`WEIGHTS`, whose floats the copy would keep `f64`) is not.
    #[test]
    fn elements_of_tuple_slice_parameters_keep_the_copy() {
        let item: syn::ItemFn = syn::parse_quote!(
            fn assemble(coords: &[f64], tris: &[(usize, usize)], k: &mut [f64]) {
                for __k in 0..tris.len() {
                    let (i0, i1) = ::autodiff::__private::at(tris, __k);
                    k[i0] += coords[i1];
                }
            }
        );
        assert_eq!(why_no_copy(&item, "f64", &[]), None);
        let outside: syn::ItemFn = syn::parse_quote!(
            fn weighted(x: &[f64]) -> f64 {
                x[0] * ::autodiff::__private::at(WEIGHTS, 1)
            }
        );
        assert!(why_no_copy(&outside, "f64", &[]).is_some_and(|why| why.contains("at")));
    }

    #[test]
    fn stopped_parts_of_constant_tuples_are_passed_as_values() {
        let b = body(syn::parse_quote!(
            fn f(a: f64, t: f64) -> f64 {
                a * weigh((stop_gradient(t), [2.0])) + sum(&(autodiff::stop_gradient(t * a), 1.5))
            }
        ));
        assert!(
            b.contains("weigh ((:: autodiff :: __private :: value :: < _ , _ > (stop_gradient (t)) , [2.0]))"),
            "{b}"
        );
        assert!(
            b.contains("sum (& (:: autodiff :: __private :: value :: < _ , _ > (autodiff :: stop_gradient (t * a)) , 1.5))"),
            "{b}"
        );
        // A local bound to such a tuple is rewritten as before (only literals and integers keep a local).
        let l = body(syn::parse_quote!(
            fn f(a: f64, t: f64) -> f64 {
                let c = (stop_gradient(t), 1.5);
                a * sum(&c)
            }
        ));
        assert!(!l.contains("let c = (stop_gradient (t) , 1.5) ;"), "{l}");
    }

    #[test]
    fn constant_tuples_passed_to_calls_without_derivatives_keep_their_type() {
        let b = body(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                let c = (1.0, (2.0, -0.5));
                let d = (1.0, 2.0);
                let e = (3.0, 4.0);
                x * sum(&c) * sum(&(0.5, 1.5)) + d.0 * x + g(&e)
            }
        ));
        // Holding arrays of constants, bound or built in place and passed by value.
        let a = body(syn::parse_quote!(
            fn f(x: f64, k: usize) -> f64 {
                let w = ([k as f64, 1.0], 2.0);
                x * weigh(&w) + weigh_owned(([0.5, 1.0], 2.0))
            }
        ));
        assert!(a.contains("let w = ([k as f64 , 1.0] , 2.0) ;"), "{a}");
        assert!(
            a.contains("lift :: < __S , _ > (weigh_owned (([0.5 , 1.0] , 2.0)))"),
            "{a}"
        );
        // Passed to a tuple struct or a variant: rewritten as before.
        let o = body(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                let c = (1.0, 2.0);
                let p = Pair(c);
                x * p.0 .0
            }
        ));
        assert!(
            o.contains("let c = (:: autodiff :: __private :: lit"),
            "{o}"
        );
        // `c` is passed to `sum` alone: kept, and the calls' results lifted.
        assert!(b.contains("let c = (1.0 , (2.0 , - 0.5)) ;"), "{b}");
        assert!(b.contains("lift :: < __S , _ > (sum (& c))"), "{b}");
        assert!(
            b.contains("lift :: < __S , _ > (sum (& (0.5 , 1.5)))"),
            "{b}"
        );
        // `d` is read as a float of the copy's, `e` passed to `g`, a callee with derivatives.
        assert!(
            b.contains("let d = (:: autodiff :: __private :: lit"),
            "{b}"
        );
        let name = Ident::new("__f_generic", Span::call_site());
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(x: f64) -> f64 {
                let e = (3.0, 4.0);
                x * g(&e)
            }
        );
        let s = shadow(
            &item,
            "f64",
            &name,
            &["g".into()],
            &[],
            Locals::AllButMatrices,
            false,
        );
        let b = s.block.to_token_stream().to_string();
        assert!(
            b.contains("let e = (:: autodiff :: __private :: lit"),
            "{b}"
        );
    }

    #[test]
    fn tuples_of_integer_parameters_passed_to_plain_calls_keep_their_type() {
        let b = body(syn::parse_quote!(
            fn f(x: f64, k: usize, idx: &[usize]) -> f64 {
                let w = ((0.5, -1.25), 2.0 * k as f64);
                let d = (x, k as f64);
                x * weigh(&w, 3.0) * sum(&(idx[0] as f64, 1.0)) + sum(&d)
            }
        ));
        assert!(
            b.contains("let w = ((0.5 , - 1.25) , 2.0 * k as f64) ;"),
            "{b}"
        );
        assert!(
            b.contains("lift :: < __S , _ > (sum (& (idx [0] as f64 , 1.0)))"),
            "{b}"
        );
        // A float of the function's in it: rewritten as before.
        assert!(!b.contains("let d = (x , k as f64) ;"), "{b}");
        // A local of the same name as the integer parameter: not the parameter.
        let b = body(syn::parse_quote!(
            fn f(x: f64, k: usize) -> f64 {
                let k = x * 2.0;
                let w = (0.5, k);
                x * weigh(&w)
            }
        ));
        assert!(!b.contains("let w = (0.5 , k) ;"), "{b}");
    }

    #[test]
    fn plain_calls_are_made_as_written_with_their_floats_converted() {
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(x: f64, n: usize) -> f64 {
                x * ln_gamma(0.5 * n as f64, n)
            }
        );
        let name = Ident::new("__f_generic", Span::call_site());
        let plain = [PlainCall {
            callee: "ln_gamma".into(),
            floats: vec![true, false],
            types: vec![Some(syn::parse_quote!(f64)), None],
            constant_result: false,
            arrays: vec![None, None],
            maybe: false,
        }];
        let s = shadow(
            &item,
            "f64",
            &name,
            &[],
            &plain,
            Locals::AllButMatrices,
            false,
        );
        let text = s.block.to_token_stream().to_string();
        // The call is not a generic copy's; its float argument goes back to `f64`, its result through `lift`.
        assert!(!text.contains("GenericCopy"), "{text}");
        assert!(
            text.contains(
                "lift :: < __S , _ > (ln_gamma (:: autodiff :: __private :: plain :: < f64 , _ > ("
            ),
            "{text}"
        );
        assert!(text.contains(", n))"), "{text}");
    }

    #[test]
    fn a_tuple_of_floats_passed_to_a_plain_helper_goes_back_componentwise() {
        // `expand::plain_calls` marks such an argument by a tuple type of `_`.
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(x: f64, c: f64) -> f64 {
                x * plaint((0.5, autodiff::stop_gradient(c)))
            }
        );
        let name = Ident::new("__f_generic", Span::call_site());
        let plain = [PlainCall {
            callee: "plaint".into(),
            floats: vec![true],
            types: vec![Some(syn::parse_quote!((_, _)))],
            constant_result: false,
            arrays: vec![None],
            maybe: false,
        }];
        let s = shadow(
            &item,
            "f64",
            &name,
            &[],
            &plain,
            Locals::AllButMatrices,
            false,
        );
        let text = s.block.to_token_stream().to_string();
        assert!(!text.contains("GenericCopy"), "{text}");
        assert!(
            text.contains(
                "lift :: < __S , _ > (plaint (:: autodiff :: __private :: plain_tuple (("
            ),
            "{text}"
        );
        assert!(text.contains("\"plaint\"))"), "{text}");
    }

    #[test]
    fn an_f32_function_holds_its_f64_values_in_the_copy_s_type() {
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(x: f32) -> f32 {
                let mut s: f64 = 0.5;
                let t = 0.0f64 + 2f64 * std::f64::consts::PI + f64::EPSILON;
                s += f64::sin(x as f64) * t;
                s as f32 * x
            }
        );
        let name = Ident::new("__f_generic", Span::call_site());
        let text = shadow(&item, "f32", &name, &[], &[], Locals::AllButMatrices, false)
            .block
            .to_token_stream()
            .to_string();
        for expected in [
            "let mut s : __S = :: autodiff :: __private :: lit :: < __S > (0.5 as f64) ;",
            ":: autodiff :: __private :: lit :: < __S > (0.0f64 as f64)",
            ":: autodiff :: __private :: lit :: < __S > (2 as f64)",
            ":: autodiff :: __private :: lit :: < __S > (std :: f64 :: consts :: PI as f64)",
            ":: autodiff :: __private :: lit :: < __S > (f64 :: EPSILON as f64)",
            "__S :: sin (:: autodiff :: __private :: cast :: < __S , _ > (x))",
            ":: autodiff :: __private :: cast :: < __S , _ > (s) * x",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
        assert!(!text.contains("f64 ="), "{text}");
    }

    #[test]
    fn an_f64_function_names_f32_constants_and_functions_in_the_copy_s_type() {
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(x: f64) -> f64 {
                let y = x as f32 * 2.0f32 + f32::EPSILON;
                f32::sqrt(y) as f64
            }
        );
        let name = Ident::new("__f_generic", Span::call_site());
        let text = shadow(&item, "f64", &name, &[], &[], Locals::AllButMatrices, false)
            .block
            .to_token_stream()
            .to_string();
        for expected in [
            ":: autodiff :: __private :: lit :: < __S > (2.0f32 as f64)",
            ":: autodiff :: __private :: lit :: < __S > (f32 :: EPSILON as f64)",
            "__S :: sqrt (y)",
        ] {
            assert!(text.contains(expected), "{expected}\n{text}");
        }
    }

    #[test]
    fn literals_annotated_f32_in_an_f64_function_are_rounded_values_of_the_copy() {
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(a: f64) -> f64 {
                let (p, q): (f64, f32) = (0.5, 2.0);
                let r: f32 = -1.5;
                let s: f64 = 3.0;
                a * p * s + f64::from(q * r)
            }
        );
        let name = Ident::new("__f_generic", Span::call_site());
        let text = shadow(&item, "f64", &name, &[], &[], Locals::AllButMatrices, false)
            .block
            .to_token_stream()
            .to_string();
        assert!(
            text.contains("let (p , q) : (__S , __S) = (:: autodiff :: __private :: lit :: < __S > (0.5 as f64) , \
                           :: autodiff :: __private :: round_f32 (:: autodiff :: __private :: cast :: < __S , _ > \
                           (:: autodiff :: __private :: lit :: < __S > (2.0 as f64)))) ;"),
            "{text}"
        );
        assert!(
            text.contains("let r : __S = :: autodiff :: __private :: round_f32 (:: autodiff :: __private :: cast :: < __S , _ > (- :: autodiff :: __private :: lit :: < __S > (1.5 as f64))) ;"),
            "{text}"
        );
        assert!(
            text.contains(
                "let s : __S = :: autodiff :: __private :: lit :: < __S > (3.0 as f64) ;"
            ),
            "{text}"
        );
    }

    #[test]
    fn sin_cos_predicates_and_integer_methods_keep_a_copy() {
        let leaf = |item: syn::ItemFn| why_no_copy(&item, "f64", &[]).is_none();
        assert!(leaf(syn::parse_quote!(
            fn f(x: f64, k: usize) -> f64 {
                let (s, c) = x.sin_cos();
                let back = k.checked_sub(1).unwrap_or(0) + k.pow(2) + k.wrapping_add(1);
                let w = if k.is_power_of_two() && x.is_finite() && !x.is_nan() {
                    2.0
                } else {
                    1.0
                };
                w * s * c + x.fract() + back as f64
            }
        )));
        // `unwrap` of something other than a checked integer operation: not known to hold no reference.
        assert!(!leaf(syn::parse_quote!(
            fn f(x: &[f64]) -> f64 {
                x.first().unwrap_or(&0.0) * 2.0
            }
        )));
    }

    #[test]
    fn the_float_types_constants_and_functions_keep_a_copy() {
        let leaf = |item: syn::ItemFn| why_no_copy(&item, "f64", &[]).is_none();
        assert!(leaf(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                let m = f64::max(x, f64::NEG_INFINITY);
                m + std::f64::EPSILON + f64::MIN_POSITIVE + f64::DIGITS as f64
            }
        )));
        // Not a function of the float type, nor one of its constants.
        assert!(!leaf(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                f64::total_cmp_key(x)
            }
        )));
        assert!(!leaf(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                x + f64::SOMETHING
            }
        )));
        // `max` of two arguments, not one.
        assert!(!leaf(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                f64::max(x)
            }
        )));
    }

    #[test]
    fn items_of_number_types_nested_fns_and_integer_constants_keep_a_copy() {
        let leaf = |item: syn::ItemFn| why_no_copy(&item, "f64", &[]).is_none();
        assert!(leaf(syn::parse_quote!(
            fn f(x: f64, k: i32) -> f64 {
                use std::f64::consts::PI;
                const K: f64 = 2.0;
                const W: [[f64; 2]; 1] = [[1.0, 3.0]];
                const N: usize = 2;
                const ON: bool = true;
                fn sq(t: f64) -> f64 {
                    t * t
                }
                match k {
                    i32::MIN..=0 if ON => x * K * PI + W[0][N - 1],
                    _ => x * (usize::MAX as f64),
                }
            }
        )));
        // A constant of another type (its float is not rewritten), another item, another type's constant.
        for item in [
            syn::parse_quote!(
                fn f(x: f64) -> f64 {
                    const P: (f64, f64) = (1.0, 2.0);
                    x * P.0
                }
            ),
            syn::parse_quote!(
                fn f(x: f64) -> f64 {
                    struct S;
                    x
                }
            ),
            syn::parse_quote!(
                fn f(x: f64) -> f64 {
                    use other::PI;
                    x * PI
                }
            ),
            syn::parse_quote!(
                fn f(x: f64) -> f64 {
                    x * Scale::MAX
                }
            ),
        ] {
            assert!(!leaf(item));
        }
    }

    #[test]
    fn loops_that_take_floats_out_of_their_references_keep_a_copy() {
        let leaf = |item: syn::ItemFn| why_no_copy(&item, "f64", &[]).is_none();
        assert!(leaf(syn::parse_quote!(
            fn f(a: [f64; 3], b: &[f64; 3], x: &[f64]) -> f64 {
                let mut s = 0.0;
                for (&u, &v) in a.iter().zip(b.iter()) {
                    s += u * v;
                }
                for (i, &v) in x.iter().enumerate() {
                    s += v * i as f64;
                }
                for &v in x.iter().rev() {
                    s *= v;
                }
                for &v in &a {
                    s += v;
                }
                s
            }
        )));
        // An element of a parameter's floats taken by reference (`v: &f64`) is taken out of it, since
        // `&__S` has no arithmetic.
        assert!(leaf(syn::parse_quote!(
            fn f(x: &[f64], y: &[f64]) -> f64 {
                let mut s = 0.0;
                for v in x.iter() {
                    s += v * *v;
                }
                for (i, v) in x.iter().enumerate() {
                    s += v * i as f64;
                }
                for (a, b) in x.iter().zip(&y[1..]) {
                    s += a * *b;
                }
                s
            }
        )));
        // Passed on bare to a call or a method, an element may have to stay a reference: no copy.
        let passed_on: syn::ItemFn = syn::parse_quote!(
            fn f(x: &[f64]) -> f64 {
                let mut s = 0.0;
                for v in x.iter() {
                    s += g(v);
                }
                s
            }
        );
        assert!(why_no_copy(&passed_on, "f64", &["g".to_string()]).is_some());
        assert!(!leaf(syn::parse_quote!(
            fn f(x: &[f64]) -> f64 {
                let mut s = 0.0;
                for v in x.iter() {
                    s = s.max(v * 2.0) + v.min(v);
                }
                s
            }
        )));
        // Of a local `Vec` that surely holds floats (a copy of a parameter's, float literals), it is
        // taken out too; of one whose element type the macro cannot see, it stays a reference: no copy.
        assert!(leaf(syn::parse_quote!(
            fn f(x: &[f64]) -> f64 {
                let w = x.to_vec();
                let z = vec![0.5; 3];
                let mut s = 0.0;
                for (v, u) in w.iter().zip(z.iter()) {
                    s += v * v * *u;
                }
                s
            }
        )));
        assert!(!leaf(syn::parse_quote!(
            fn f(x: &[f64]) -> f64 {
                let w = x.iter().collect::<Vec<_>>();
                let mut s = 0.0;
                for v in w.iter() {
                    s += v * v;
                }
                s
            }
        )));
        // Written out of float parameters, elements of float slices and arithmetic of them, or pushed
        // onto a `Vec::new()`: surely floats.
        assert!(leaf(syn::parse_quote!(
            fn f(x: &[f64], a: f64) -> f64 {
                let w = vec![x[0], 2.0 * a, x[1].sin()];
                let z = [a, x[0] * x[1]];
                let mut p = Vec::new();
                p.push(a * 2.0);
                let mut s = 0.0;
                for v in w.iter() {
                    s += v * v;
                }
                for (u, q) in z.iter().zip(p.iter()) {
                    s += u * q;
                }
                s
            }
        )));
        // Something else pushed (a reference): not.
        assert!(!leaf(syn::parse_quote!(
            fn f(x: &[f64]) -> f64 {
                let mut p = Vec::new();
                p.push(&x[0]);
                let mut s = 0.0;
                for v in p.iter() {
                    s += *v * 2.0;
                }
                s
            }
        )));
        // Asked for (`order = K`), the copy takes out the elements of every local but a matrix.
        let copy = by_value_loops(
            &syn::parse_quote!(
                fn f(x: &[f64]) -> f64 {
                    let w = vec![x[0], x[1]];
                    let m = vec![vec![x[0]; 2]; 2];
                    let mut s = 0.0;
                    for v in w.iter() {
                        s += v * v;
                    }
                    for row in m.iter() {
                        s += row[0];
                    }
                    s
                }
            ),
            "f64",
            Locals::AllButMatrices,
            &[],
        );
        let text = copy.block.to_token_stream().to_string();
        assert!(text.contains("for & v in w . iter ()") && text.contains("for row in m . iter ()"));
    }

    /// A loop over a field of `self` by reference takes its elements out where the body reads them only
    /// as numbers; a row of a matrix field (`row[0]`), an element passed on bare, or a name bound again,
    /// no (the field's type is not visible, and a copy made without being asked must compile).
    #[test]
    fn loops_over_fields_of_self_read_as_numbers_take_elements_by_value() {
        let copy = |item: syn::ItemFn| {
            by_value_loops(&item, "f64", Locals::OfFloats, &[])
                .block
                .to_token_stream()
                .to_string()
        };
        let text = copy(syn::parse_quote!(
            fn f(&self, x: f64) -> f64 {
                let mut s = 0.0;
                for v in self.w.iter() {
                    s += v * x;
                }
                for (i, v) in self.inner.w.iter().enumerate() {
                    s += *v * x + v.sin() * (i as f64);
                }
                s
            }
        ));
        assert!(
            text.contains("for & v in self . w . iter ()")
                && text.contains("for (i , & v) in self . inner . w . iter () . enumerate ()")
                && text.contains("s += v * x + v . sin ()"),
            "{text}"
        );
        for item in [
            syn::parse_quote!(
                fn f(&self, x: f64) -> f64 {
                    let mut s = 0.0;
                    for row in self.m.iter() {
                        s += row[0] * x;
                    }
                    s
                }
            ),
            syn::parse_quote!(
                fn f(&self, x: f64) -> f64 {
                    let mut s = 0.0;
                    for v in self.w.iter() {
                        s += g(v) * x;
                    }
                    s
                }
            ),
            syn::parse_quote!(
                fn f(&self, x: f64) -> f64 {
                    let mut s = 0.0;
                    for v in self.w.iter() {
                        let v = v + 1.0;
                        s += v * x;
                    }
                    s
                }
            ),
            syn::parse_quote!(
                fn f(&self, x: f64) -> f64 {
                    let mut s = 0.0;
                    for v in other.w.iter() {
                        s += v * x;
                    }
                    s
                }
            ),
            syn::parse_quote!(
                fn f(&self, x: f64) -> f64 {
                    let mut s = 0.0;
                    for v in self.w.iter() {
                        if v > &0.0 {
                            s += x;
                        }
                    }
                    s
                }
            ),
        ] {
            let text = copy(item);
            assert!(!text.contains("for &"), "{text}");
        }
    }

    #[test]
    fn vecs_filled_by_push_keep_a_copy() {
        let leaf = |item: syn::ItemFn| why_no_copy(&item, "f64", &[]).is_none();
        assert!(leaf(syn::parse_quote!(
            fn squares(x: &[f64]) -> Vec<f64> {
                let mut out = Vec::with_capacity(x.len());
                for &v in x {
                    out.push(v * v);
                }
                out
            }
        )));
        assert!(leaf(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                let mut out = std::vec::Vec::new();
                out.push(x);
                out[0]
            }
        )));
        // A `Vec` of a type written out, or another constructor: not read.
        assert!(!leaf(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                let mut out = Vec::<u8>::new();
                out.push(1);
                x
            }
        )));
        assert!(!leaf(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                let out = Vec::from([x]);
                out[0]
            }
        )));
        // What is pushed is checked like the rest.
        assert!(!leaf(syn::parse_quote!(
            fn f(x: &[f64]) -> f64 {
                let mut out = Vec::new();
                out.push(x.iter().sum::<f64>());
                out[0]
            }
        )));
    }

    #[test]
    fn what_vec_holds_is_checked_like_the_rest_of_the_body() {
        let leaf = |item: syn::ItemFn| why_no_copy(&item, "f64", &[]).is_none();
        assert!(leaf(syn::parse_quote!(
            fn f(x: f64, n: usize) -> f64 {
                let v = vec![x.sin(); n];
                v[0]
            }
        )));
        // Found by the fuzzer: iterating inside `vec![..]` made a copy that does not compile.
        assert!(!leaf(syn::parse_quote!(
            fn f(xs: &[f64]) -> f64 {
                let v = vec![xs.iter().sum::<f64>(); 4];
                v[0]
            }
        )));
        assert!(!leaf(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                let v = vec![x, g(x)];
                v[1]
            }
        )));
        assert!(!leaf(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                println!("{x}");
                x
            }
        )));
    }

    #[test]
    fn calls_by_name_of_differentiated_callees_keep_the_copy() {
        let why = |item: syn::ItemFn, calls: &[&str]| {
            let calls: Vec<String> = calls.iter().map(|c| c.to_string()).collect();
            why_no_copy(&item, "f64", &calls)
        };
        let by_name: syn::ItemFn = syn::parse_quote!(
            fn f(x: f64, y: f64) -> f64 {
                g(x * y) + h(y, 2.0)
            }
        );
        assert_eq!(why(by_name.clone(), &["g", "h"]), None);
        // `h` is not called with a differentiated argument: its result might be an `f64`.
        let why_not = why(by_name, &["g"]).unwrap_or_default();
        assert!(why_not.contains("calls `h`"), "{why_not}");
        // By a path, what the call reaches may have no derivative (an error of the function's first
        // order, which its copy must not repeat).
        let by_path = why(
            syn::parse_quote!(
                fn f(x: f64) -> f64 {
                    m::g(x)
                }
            ),
            &["m :: g"],
        );
        assert!(by_path.is_some_and(|w| w.contains("calls `m :: g`")));
        // A closure bound to a local is not a function with a companion type.
        let closure = why(
            syn::parse_quote!(
                fn f(x: f64) -> f64 {
                    let g = |v: f64| v * v;
                    g(x)
                }
            ),
            &["g"],
        );
        assert!(closure.is_some());
    }

    #[test]
    fn calls_by_a_path_find_the_copy_as_a_value_and_read_back() {
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(x: f64) -> f64 {
                libm::erf(x) * m::square::<f64>(x)
            }
        );
        let name = Ident::new("__f_generic", Span::call_site());
        let calls = [
            "libm :: erf".to_string(),
            "m :: square :: < f64 >".to_string(),
        ];
        let mut copy = shadow(
            &item,
            "f64",
            &name,
            &calls,
            &[],
            Locals::AllButMatrices,
            false,
        );
        let text = copy.block.to_token_stream().to_string();
        assert!(
            text.contains(":: autodiff :: __private :: copy_by_path ! (libm :: erf , call_on (_) , __autodiff_gradient_of__libm__erf) . call_on (x)"),
            "{text}"
        );
        assert!(text.contains(". call_on :: < __S > (x)"), "{text}");
        read_copy_calls(&mut copy.block);
        let text = copy.block.to_token_stream().to_string();
        assert!(
            text.contains(
                "< libm :: erf as :: autodiff :: __private :: GenericCopy > :: Copy :: call (x)"
            ),
            "{text}"
        );
        assert!(
            text.contains("< m :: square as :: autodiff :: __private :: GenericCopy > :: Copy :: call :: < __S > (x)"),
            "{text}"
        );
        assert!(!text.contains("call_on"), "{text}");
    }

    // `vec![m::sq(x)]` in a first-order function: the writer rewrites the call inside the macro, and
    // the reader read it back only outside macros, leaving `copy_by_path!(..).call_on(x)` for the
    // lowering ("the method `call_on` has no known derivative"; matrix33).
    #[test]
    fn calls_by_a_path_inside_vec_read_back() {
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(x: f64) -> Vec<f64> {
                vec![m::sq(x), 2.0 * m::sq(x)]
            }
        );
        let name = Ident::new("__f_generic", Span::call_site());
        let calls = ["m :: sq".to_string()];
        let mut copy = shadow(
            &item,
            "f64",
            &name,
            &calls,
            &[],
            Locals::AllButMatrices,
            false,
        );
        let text = copy.block.to_token_stream().to_string();
        assert_eq!(text.matches(". call_on (x)").count(), 2, "{text}");
        read_copy_calls(&mut copy.block);
        let text = copy.block.to_token_stream().to_string();
        let read = "< m :: sq as :: autodiff :: __private :: GenericCopy > :: Copy :: call (x)";
        assert_eq!(text.matches(read).count(), 2, "{text}");
        assert!(!text.contains("call_on"), "{text}");
        write_copy_calls(&mut copy.block);
        let text = copy.block.to_token_stream().to_string();
        assert_eq!(text.matches(". call_on (x)").count(), 2, "{text}");
    }

    #[test]
    fn loops_over_windows_and_chunks_keep_the_copy() {
        // As `#[differentiable]` checks it: with its `for` loops over windows and chunks desugared.
        let why = |item: syn::ItemFn| {
            let mut errors = crate::errors::Errors::default();
            let desugared = crate::chains::desugar(&item, &mut errors);
            assert_eq!(errors.len(), 0);
            why_no_copy(&desugared, "f64", &["integrand".to_string()])
        };
        // A trapezoid rule over the windows of a `Vec`, chunks indexed by value.
        assert_eq!(
            why(syn::parse_quote!(
                fn trapezoid(p: &[f64], n: usize) -> f64 {
                    let ts = vec![1.5; n];
                    let mut s = 0.0;
                    for w in ts.windows(2) {
                        s += 0.5 * (w[1] - w[0]) * (integrand(w[0], p) + integrand(w[1], p));
                    }
                    for c in p.chunks(2) {
                        s += c.len() as f64 * c[0];
                    }
                    for c in p.chunks_exact(3) {
                        s += integrand(c[2], c);
                    }
                    s
                }
            )),
            None
        );
        // A float's `min` by the integer's path is no integer function.
        assert!(why(syn::parse_quote!(
            fn f(p: &[f64]) -> f64 {
                let mut s = 0.0;
                for w in p.windows(2) {
                    s += f64::min(w[0], w[1]) + i32::pow(2, 3) as f64;
                }
                s
            }
        ))
        .is_some_and(|w| w.contains("i32 :: pow")));
    }

    #[test]
    fn references_passed_to_calls_keep_the_copy() {
        let why = |item: syn::ItemFn| why_no_copy(&item, "f64", &["rhs".to_string()]);
        // An Euler step through a function with an output parameter: `&y`, `&mut k`, a window, a reborrow.
        assert_eq!(
            why(syn::parse_quote!(
                fn step(y: &[f64], p: &[f64], h: f64, out: &mut [f64]) -> f64 {
                    let mut k = vec![0.0; 4];
                    rhs(&y, p, &mut k[2..4]);
                    rhs(&[y[0], k[2]], &k.clone(), &mut *out);
                    rhs(y, p, &mut [0.0; 2]);
                    y[0] + h * k[2] + out[0]
                }
            )),
            None
        );
        // A reference bound to a name, or inside an argument, is arithmetic on `&f64` there.
        assert!(why(syn::parse_quote!(
            fn f(x: f64, k: &mut [f64]) -> f64 {
                let r = &x;
                rhs(k, k, k);
                r * 2.0
            }
        ))
        .is_some_and(|w| w.contains("reference")));
        assert!(why(syn::parse_quote!(
            fn f(x: f64, k: &mut [f64]) -> f64 {
                rhs(&[x], &[&x * 2.0], k);
                x
            }
        ))
        .is_some_and(|w| w.contains("reference")));
        // Only to a call of a function with a copy.
        assert!(why(syn::parse_quote!(
            fn f(x: f64, k: &mut [f64]) -> f64 {
                other(&x, k);
                x
            }
        ))
        .is_some());
    }

    #[test]
    fn compound_assignment_keeps_precedence() {
        let b = body(syn::parse_quote!(
            fn f(x: f64, y: f64) -> f64 {
                let mut s = x;
                s *= 1.0 + y;
                s -= y;
                s
            }
        ));
        assert!(
            b.contains("s = s * (:: autodiff :: __private :: lit :: < __S > (1.0 as f64) + y)"),
            "{b}"
        );
        assert!(b.contains("s = s - y ;"), "{b}");
    }

    #[test]
    fn casts_become_helpers_the_macro_reads_as_casts() {
        let b = body(syn::parse_quote!(
            fn f(x: f64, n: u32) -> f64 {
                let k = (x * 2.0).floor() as usize;
                x * (k + 1) as f64 + f64::from(n)
            }
        ));
        assert!(b.contains("to_int :: < usize , _ > ((x * "), "{b}");
        assert!(b.contains("cast :: < __S , _ > (k + 1)"), "{b}");
        assert!(b.contains("cast :: < __S , _ > (n)"), "{b}");
    }

    #[test]
    fn casts_to_the_float_type_go_through_cast_which_keeps_a_value_of_its_own_type() {
        // Floats and integers alike: `__private::cast` returns a value of the copy's float type itself,
        // with its tangents, and converts the rest (`lift.rs`), so the copy needs not tell them apart.
        let b = body(syn::parse_quote!(
            fn f(x: f64, w: &[f64], n: usize) -> f64 {
                let y = x * x;
                let k = w.len();
                y as f64 + w[0] as f64 + k as f64 + n as f64
            }
        ));
        for operand in ["y", "w [0]", "k", "n"] {
            assert!(
                b.contains(&format!("cast :: < __S , _ > ({operand})")),
                "{operand} in {b}"
            );
        }
    }

    #[test]
    fn float_constants_become_literals_and_items_keep_their_type() {
        let b = body(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                const K: f64 = 3.0;
                const N: usize = 2;
                K * x * PI * consts::E * N as f64
            }
        ));
        assert!(b.contains("const K : f64 = 3.0 ;"), "{b}");
        assert!(b.contains("lit :: < __S > (K as f64)"), "{b}");
        assert!(b.contains("constant :: < __S , _ > (PI)"), "{b}");
        assert!(b.contains("constant :: < __S , _ > (consts :: E)"), "{b}");
        assert!(b.contains("cast :: < __S , _ > (N)"), "{b}");
        let b = body(syn::parse_quote!(
            fn f(x: f64, E: f64) -> f64 {
                let PI = x;
                PI * E
            }
        ));
        assert!(b.contains("PI * E"), "{b}");
        // The type's integer constants stay as written; its float ones become `Float`'s.
        let b = body(syn::parse_quote!(
            fn f(x: f64) -> f64 {
                x * f64::DIGITS as f64 + f64::EPSILON
            }
        ));
        assert!(b.contains("cast :: < __S , _ > (f64 :: DIGITS)"), "{b}");
        assert!(
            b.contains("< __S as :: autodiff :: __private :: Float > :: epsilon ()"),
            "{b}"
        );
    }
}
