//! `order = K` on a function of parameter structs through the structs' values views: what lets such a
//! function pass a struct on whole to another one (`mse(self, xs, ys)`, `g(&p.inner)`, `self.other(x)`).
//!
//! The function is taken to `order = K` as a hidden function `__f_whole` of floats and slices in which each
//! struct parameter `p` is two: the struct itself, a constant the macro sees as opaque
//! (`<Mlp as Itself>::Type`), for the fields that hold no floats (integers, flags), and its values view
//! `__p_values: &[f64]` (every float the struct holds, in declaration order; `autodiff_core`'s
//! `values.rs`), differentiated. A prologue binds each field the body reads from them, where the derive
//! says it is (`FieldType::values_range`; a matrix field's elements and rows at the places its shape gives,
//! `MatrixFields`); a call that passes a struct on whole calls the callee's own
//! `__g_whole` with the struct and its view (a nested struct's view is a contiguous part of its parent's).
//! So a callee needs nothing but `order = K` itself, and the caller nothing of its callee but its name.
//! `f_hvp` passes the structs' views and the views of their directions (zeros at `#[no_grad]` floats),
//! and gathers gradient and product from views over the views (`from_values`); `f_hessian` is
//! `higher.rs`'s.
//!
//! ```text
//! // Input:
//! #[differentiable(order = 2)]
//! fn regularised(p: &Mlp, lambda: f64) -> f64 { mse(p, XS, YS) + lambda * p.b2 * p.b2 }
//! // Output (with f_hvp and f_hessian through it):
//! #[differentiable(order = 2, wrt(__p_values, lambda))]
//! fn __regularised_whole(__p_primal: &<Mlp as Itself>::Type, __p_values: &[f64], lambda: f64) -> f64 {
//!     let __p_b2 = __p_values[field_start::<Mlp, KEY_b2>(__p_primal)];
//!     __mse_whole(__p_primal, __p_values, XS, YS) + lambda * __p_b2 * __p_b2
//! }
//! ```
//!
//! It serves functions returning their own float type, whose views are of it (`ViewFloat`: `f64`, `f32`,
//! or a free function's float type parameter `T`, the struct then of a type parameter `__P` of its own,
//! `&Outer<__P>` beside `&[T]`, since `order = K` runs the hidden function on `Dual<T>`), with parameter
//! structs of types that name no other float type (`Mlp`, `Self` of a non-generic `impl`, `Outer<f64>`,
//! `Outer<T>`), each differentiated or passed on whole to a call (a constant struct, whose view is then
//! outside the hidden function's `wrt(..)`); others keep `struct_higher.rs`'s hidden function of the
//! fields, which cannot pass a struct on.

use crate::errors::Errors;
use crate::ir::Kind;
use crate::struct_higher::StructFunction;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident};

/// Does `s` take the values-view path: returning its float type (`f64`, `f32`, or in a free function its
/// float type parameter `T`, `ViewFloat`), its structs of types that name no other float (`Mlp`,
/// `Outer<f64>`, `Outer<T>`), in a non-generic `impl` if a method, and each either differentiated or passed
/// on whole to a call (a constant struct, `wrt(x)` in `fn f(p: &Cfg, x: &[f64])`, whose view goes to the
/// callee's `__g_whole` undifferentiated; one only read by its fields keeps `struct_higher.rs`'s way, which
/// needs no derive)?
pub(crate) fn serves(s: &StructFunction) -> bool {
    ViewFloat::returned(s).is_some() && structs_fit(s, Constant::PassedOn)
}

/// The float type of a function's values views, which its hidden function `__f_whole` reads the structs'
/// floats as: the function's own (its return type), `f64` for a function returning no float (an array,
/// `()` with outputs). For a function generic over its float type `T` the structs are of a type parameter
/// of their own (`Outer<__P>`, `naming::primal_float`), since `order = K` runs the hidden function on
/// `Dual<T>` and the struct stays what it is; of a concrete float they name it by its path
/// (`Outer<::core::primitive::f64>`), which the generic copy keeps.
pub(crate) struct ViewFloat {
    float: Ident,
    /// Is `float` the function's float type parameter?
    param: bool,
}

impl ViewFloat {
    /// The float type `s` returns, if it is `f64`, `f32` or (in a free function) its float type parameter.
    fn returned(s: &StructFunction) -> Option<ViewFloat> {
        let syn::Type::Path(p) = &s.sig.ret_ty else {
            return None;
        };
        let ident = p.path.get_ident().filter(|_| p.qself.is_none())?;
        if ident == "f64" || ident == "f32" {
            return Some(ViewFloat {
                float: ident.clone(),
                param: false,
            });
        }
        let own = crate::signature::float_type_params(&s.item.sig.generics);
        (own.contains(ident) && !crate::expand::is_method(s.item)).then(|| ViewFloat {
            float: ident.clone(),
            param: true,
        })
    }

    /// `s`'s view float: `returned`, else `f64`.
    fn of(s: &StructFunction) -> ViewFloat {
        ViewFloat::returned(s).unwrap_or_else(|| ViewFloat {
            float: Ident::new("f64", Span::call_site()),
            param: false,
        })
    }

    fn is_f64(&self) -> bool {
        !self.param && self.float == "f64"
    }

    /// The struct type `ty` as the hidden function takes it beside its view.
    fn primal_type(&self, ty: &syn::Type) -> syn::Type {
        if !self.param {
            return pairs::with_float_paths(ty, &[]);
        }
        let primal = crate::naming::primal_float();
        renamed(ty, &self.float, &syn::parse_quote!(#primal))
    }

    /// The struct type `ty` as the type of a field's window of the view is found from (`field_window`):
    /// `primal_type`, but `Outer<f64>` for `Outer<T>` (the window's shape does not depend on the float
    /// type, and `__private::FieldWindow` is implemented for `Vec`s and arrays of `f64` and `f32`).
    fn shape_type(&self, ty: &syn::Type) -> syn::Type {
        match self.param {
            false => self.primal_type(ty),
            true => renamed(ty, &self.float, &syn::parse_quote!(::core::primitive::f64)),
        }
    }

    /// `generics` with `__P` declared for a function generic over its float type.
    fn generics(&self, generics: &syn::Generics) -> syn::Generics {
        let mut generics = generics.clone();
        if self.param {
            let primal = crate::naming::primal_float();
            generics
                .params
                .push(syn::parse_quote!(#primal: ::autodiff::__private::PrimalFloat));
        }
        generics
    }

    /// The run-time helper `name` of `values.rs` (`values`, `tangent_values`, `from_values`,
    /// `constant_values`) for this float: itself for `f64`, else its `_in::<F>` form.
    fn helper(&self, name: &str) -> TokenStream {
        let name = Ident::new(name, Span::call_site());
        match self.is_f64() {
            true => quote!(::autodiff::__private::#name),
            false => {
                let (name, float) = (format_ident!("{}_in", name), &self.float);
                quote!(::autodiff::__private::#name::<#float, _>)
            }
        }
    }
}

// Input:  Outer<T>      (`from` = `T`, `to` = `__P`)
// Output: Outer<__P>
/// `ty` with the type parameter `from` written `to`.
fn renamed(ty: &syn::Type, from: &Ident, to: &syn::Type) -> syn::Type {
    struct Rename<'a>(&'a Ident, &'a syn::Type);
    impl VisitMut for Rename<'_> {
        fn visit_type_mut(&mut self, ty: &mut syn::Type) {
            if let syn::Type::Path(p) = ty {
                if p.qself.is_none() && p.path.is_ident(self.0) {
                    *ty = self.1.clone();
                    return;
                }
            }
            syn::visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut ty = ty.clone();
    Rename(from, to).visit_type_mut(&mut ty);
    ty
}

impl ToTokens for ViewFloat {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.float.to_tokens(tokens);
    }
}

/// Does `s` return `f64`?
fn returns_f64(s: &StructFunction) -> bool {
    matches!(&s.sig.ret_ty, syn::Type::Path(p) if p.path.is_ident("f64"))
}

/// Which parameter structs that `wrt(..)` leaves out `structs_fit` lets through.
#[derive(Clone, Copy, PartialEq)]
enum Constant {
    /// None.
    Refused,
    /// Those passed on whole to a call, or with a field passed on whole (`g(p, x)`, `g(&p.inner)`).
    PassedOn,
    /// All.
    Any,
}

/// Are `s`'s parameter structs all of types without float type parameters, in a non-generic `impl` if a
/// method, and differentiated or kept constant as `constant` lets them?
fn structs_fit(s: &StructFunction, constant: Constant) -> bool {
    let float_params = crate::signature::float_type_params(&s.analysis_item.sig.generics);
    // The view's float (`Outer<f64>` in a function returning `f64`, `Outer<T>` in one generic over `T`)
    // is the structs' own; another is not.
    let view = ViewFloat::of(s);
    let others: Vec<String> = ["f64", "f32"]
        .iter()
        .map(ToString::to_string)
        .chain(float_params.iter().map(Ident::to_string))
        .filter(|f| view.float != f)
        .collect();
    let others: Vec<&str> = others.iter().map(String::as_str).collect();
    let names_float = |ty: &syn::Type| crate::naming::names_any(ty.to_token_stream(), &others);
    // (A function generic over `T` that calls by a path naming `T`, `Weights::<T>::dot(g, x)` of `g.dot(x)`:
    // its structs are of `__P` in the hidden function, and a method of a generic `impl` has no `__f_whole`.)
    let own_floats = float_params.is_empty()
        || view.param && float_params.len() == 1 && !calls_name(s.written, &view.float);
    // (Not a constant `self`, whose method keeps `struct_higher.rs`'s way: in an `impl`, its calls of
    // other methods reach their generic copies there, and of free functions that keep the struct constant
    // too, theirs, which need no derive; tests/methods.rs::curved_through_free_function.)
    // A constant `self` with a field passed on whole (`hs(&self.w, x)`, `g(&self.inner, x)`) takes this
    // way: `struct_higher.rs`'s hidden function of the fields cannot pass a field on.
    let passed_on = |i: usize, p: &crate::signature::Param| {
        s.flat.field_inputs().any(|f| f.parent == i && f.whole)
            || p.ident != "self" && passed_to_a_call(s.written, &p.ident.to_string())
    };
    own_floats
        && s.sig.params.iter().enumerate().all(|(i, p)| match &p.kind {
            Kind::Struct(ty) => {
                !names_float(ty)
                    && (p.active
                        || constant == Constant::Any
                        || constant == Constant::PassedOn && passed_on(i, p))
            }
            _ => true,
        })
}

/// For an `order = K` function that keeps a struct constant and reads only its fields
/// (`struct_higher.rs`'s way, which needs no derive, so no hidden function over the struct's values view):
/// the hidden function `__f_whole` that a caller passing it the struct on whole calls, forwarding to
/// `__f_fields` (`constant_whole.rs`); where that cannot be made, stand-ins of it without a generic copy
/// (`stand_ins_without_copy`), so that such a caller at `order = K` meets the one error at its call, saying
/// why.
pub(crate) fn constant_stand_ins(s: &StructFunction) -> TokenStream {
    if !returns_f64(s) || serves(s) || !structs_fit(s, Constant::Any) {
        return TokenStream::new();
    }
    crate::constant_whole::items(s)
        .unwrap_or_else(|| stand_ins_without_copy(s, NoCopy::ConstantFields.reason()))
}

/// The hidden function `__f_whole`, `f_hvp` and `f_hessian`.
pub(crate) fn items(s: &StructFunction, order: &syn::LitInt, errors: &mut Errors) -> TokenStream {
    // A field passed on whole to a sibling without `__g_pairs` (one returning a `Vec`, a matrix or a tuple
    // holding arrays): the hidden function would call what is not there (rustc's unresolved `__g_pairs`).
    if let Some((callee, name)) = whole_field_callee_without_pairs(s) {
        errors.spanned(
            &callee,
            format!(
                "`order = K` on a function that passes a field of a parameter struct on whole (`&p.w`) to \
                 `{name}` is supported where `{name}` returns a float, a fixed-size array or a tuple of \
                 floats (or `()` with output parameters): `{name}` returns a `Vec`, a matrix or a tuple \
                 holding arrays. Copy the field into a local first (`let mut w = \
                 [0.0; N]; for i in 0..N {{ w[i] = p.w[i]; }}`) and pass that, or read the field in this \
                 function"
            ),
        );
        return TokenStream::new();
    }
    let floats = crate::struct_higher::float_fields(s);
    let whole = match whole_function(s, &floats, Some(order)) {
        Ok(whole) => whole,
        Err(e) => {
            errors.push(e);
            return TokenStream::new();
        }
    };
    let hvp = hvp(s);
    let hessian = crate::higher::hessian_of(s.bounded, s.sig, &ViewFloat::of(s).float);
    let derivatives = derivatives(s, order);
    let pairs = pairs::of_structs(s);
    quote!(#whole #pairs #hvp #hessian #derivatives)
}

/// For a function without `order = K`: the hidden function `__f_whole` at first order, whose generic copy
/// (made where it surely compiles, `shadow::why_no_copy`) `order = K` callers that pass it the structs on
/// whole call; else the error they meet says why there is none. Nothing where the function does not fit
/// (its first order stays as it is). A function whose results are all in output parameters (it returns
/// `()`) has one too, of the same outputs, which callers' `__g_whole` reach (`self.apply_into(x, &mut o)`).
/// Where its structs fit the values view but the hidden function cannot be made, stand-ins of it without a
/// generic copy (`stand_ins_without_copy`): a caller's first order must not depend on which callees have
/// one (rustc's unresolved `__n9_whole` at a caller passing its struct to `n9`, which writes an output
/// parameter and reads a matrix field).
pub(crate) fn first_order(s: &StructFunction) -> TokenStream {
    let outputs_only = s.sig.returns_unit() && s.sig.outputs().next().is_some();
    // A function returning an array or a `Vec` (`fn apply(&self, v: [f64; 3]) -> [f64; 3]`) has one too, of
    // the same return type, which callers' `__g_whole` reach (`let r = self.apply(v);`).
    let returns_array = matches!(s.sig.ret_kind, Kind::Array);
    // A tuple of floats too (`fn pair(p: &Layer, x: f64) -> (f64, f64)`): `let (a, b) = pair(p, x);`.
    let returns_tuple = matches!(s.sig.ret_kind, Kind::Tuple(_));
    if !structs_fit(s, Constant::Refused) && !constant_fields_passed_on(s) {
        return stand_ins(s);
    }
    if !(serves(s) || outputs_only || returns_array || returns_tuple) {
        return stand_ins_without_copy(s, NoCopy::Returns.reason());
    }
    // A field passed on whole (`g(&p.w)`) may be a nested struct or a `Vec`, an array or a matrix, which
    // the syntax does not tell apart: the hidden function passes it as a pair to the callee's `__g_pairs`
    // (`WholeCalls`). Only where each such callee surely has one, a function of its module that the source
    // shows with `#[differentiable]` and whose expansion promises one, real or a stand-in
    // (`promises_pairs`); else (a callee imported, custom, registered, a plain helper, or a field used
    // otherwise) rustc's missing `__g_pairs` would break this function's first order: no hidden function,
    // but stand-ins without a generic copy, so that an `order = K` caller meets one error at its call.
    // (A matrix field, `p.w[i][j]`, is read from the view by its rows' places: `MatrixFields`.)
    if s.flat.field_inputs().any(|f| f.whole) && !fields_reach_pairs(s) {
        return stand_ins_without_copy(s, NoCopy::WholeField.reason());
    }
    let floats = crate::struct_higher::float_fields(s);
    // A scalar field read from the view must be a float: a flag in an `if`, an integer passed to a call
    // or as `powi`'s exponent, would break the function's first order. Where the body leaves it in doubt,
    // no hidden function, but stand-ins without a generic copy, as above (an `order = K` caller met six
    // of rustc's missing `__f_whole` items at its call before, E0599).
    let doubtful = s
        .flat
        .field_inputs()
        .zip(&floats)
        .any(|(f, float)| !f.array && !f.whole && *float && maybe_not_a_float(s, f.ident));
    if doubtful {
        return stand_ins_without_copy(s, NoCopy::DoubtfulScalar.reason());
    }
    match whole_function(s, &floats, None) {
        // A function whose results are its outputs too (`dense(&m.hidden, x, &mut h)` of a caller passing
        // a field on whole reaches `__dense_pairs`).
        Ok(whole) if serves(s) || outputs_only => {
            let pairs = pairs::of_structs(s);
            quote!(#whole #pairs)
        }
        Ok(whole) => whole,
        Err(e) => stand_ins_without_copy(s, &e.to_string()),
    }
}

// Input:  #[differentiable(wrt(x))] fn pred(m: &Lin, x: &[f64]) -> f64 { dot(&m.w, x) * m.b }
// Output: true (where the source shows `dot` beside it)
/// Does a free function `s` keep each of its constant parameter structs only to pass a field of it on whole
/// to functions that surely have `__g_pairs` (`fields_reach_pairs`), never the struct itself? Its hidden
/// function `__f_whole` is made at first order then, the struct's view undifferentiated, as an `order = K`
/// function's (`Constant::PassedOn`): an `order = K` caller keeping the struct constant passes it on whole
/// there (`loss(m, x)` of `wrt(x)` calling `pred(m, x)`), where the stand-ins (`stand_ins`) were its one
/// error. (Not a method's constant `self`: a caller keeping `self` constant calls its generic copy
/// `self.__g_generic(x)`, which a method passing a field on whole has not.)
fn constant_fields_passed_on(s: &StructFunction) -> bool {
    let constant = |p: &crate::signature::Param| matches!(p.kind, Kind::Struct(_)) && !p.active;
    !crate::expand::is_method(s.item)
        && structs_fit(s, Constant::PassedOn)
        && s.sig.params.iter().enumerate().all(|(i, p)| {
            !constant(p)
                || (s.flat.field_inputs().any(|f| f.parent == i && f.whole)
                    && !passed_to_a_call(s.written, &p.ident.to_string()))
        })
        && fields_reach_pairs(s)
}

// Input:  fn u(m: &Market, g: f64) -> f64 { let a = solve3(&m.cov, &m.mu); .. }   (`solve3` returns an array)
// Output: Some((`solve3` of the call, "solve3"))
/// The first call of `s`'s body passing a field on whole to a `#[differentiable]` sibling returning a
/// `Vec`, a matrix or a tuple holding arrays, which has no `__g_pairs` (`promises_pairs`, `pairs::plain`;
/// a fixed-size array or a tuple of floats has one), with the callee's name.
fn whole_field_callee_without_pairs(s: &StructFunction) -> Option<(syn::Path, String)> {
    use syn::visit::Visit;
    let fields: Vec<String> = s
        .flat
        .field_inputs()
        .filter(|f| f.whole)
        .map(|f| f.ident.to_string())
        .collect();
    if fields.is_empty() {
        return None;
    }
    struct Calls<'a> {
        fields: &'a [String],
        caller: &'a Ident,
        found: Option<(syn::Path, String)>,
    }
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if self.found.is_none() {
                if let Expr::Path(p) = &*call.func {
                    if let (None, Some(name)) = (&p.qself, sibling_name(&p.path)) {
                        let passes = call
                            .args
                            .iter()
                            .any(|arg| self.fields.iter().any(|f| names(arg, f)));
                        if passes
                            && crate::context::differentiable_sibling(self.caller, &name)
                                .is_some_and(|item| {
                                    // (A fixed-size array or a tuple of floats: `__g_pairs`.)
                                    let pairs = promises_pairs(&item) && !takes_a_named_type(&item);
                                    returns_a_collection(&item) && !pairs
                                })
                        {
                            self.found = Some((p.path.clone(), name));
                        }
                    }
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut calls = Calls {
        fields: &fields,
        caller: &s.item.sig.ident,
        found: None,
    };
    calls.visit_block(s.written);
    calls.found
}

// Input:  dot          Self::h          m::g        Self::h::<f64>
// Output: Some("dot")  Some("Self::h")  None        None
/// The name under which `context::differentiable_sibling` looks a callee up: a bare name (a function of
/// the caller's module), or `Self::h` (an associated function of a method's own `impl`).
fn sibling_name(path: &syn::Path) -> Option<String> {
    if let Some(ident) = path.get_ident() {
        return Some(ident.to_string());
    }
    match (
        path.leading_colon,
        path.segments.iter().collect::<Vec<_>>().as_slice(),
    ) {
        (None, [ty, name])
            if ty.ident == "Self" && ty.arguments.is_none() && name.arguments.is_none() =>
        {
            Some(format!("Self::{}", name.ident))
        }
        _ => None,
    }
}

/// Does `item` take a reference to a named type other than a `Vec` (`q: &Inner`), which may be a parameter
/// struct: such a function returning an array has no real `__g_pairs` (`pairs::plain` takes no structs).
fn takes_a_named_type(item: &syn::ItemFn) -> bool {
    item.sig.inputs.iter().any(|input| match input {
        syn::FnArg::Typed(t) => match &*t.ty {
            syn::Type::Reference(r) => matches!(&*r.elem, syn::Type::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident != "Vec")
                    && !p.path.get_ident().is_some_and(|i| i == "f64" || i == "f32")),
            _ => false,
        },
        syn::FnArg::Receiver(_) => false,
    })
}

/// Does `item` return an array, a `Vec` or a non-empty tuple?
fn returns_a_collection(item: &syn::ItemFn) -> bool {
    match &item.sig.output {
        syn::ReturnType::Default => false,
        syn::ReturnType::Type(_, ty) => match &**ty {
            syn::Type::Array(_) => true,
            syn::Type::Tuple(t) => !t.elems.is_empty(),
            syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Vec"),
            _ => false,
        },
    }
}

// Input:  fn predict(m: &Net, x: &[f64]) -> f64 { dense(&m.w1, &m.b1, x, &mut h); slice_dot(&m.w2, &h) }
// Output: true, where the source shows `#[differentiable] fn dense(..)` and `fn slice_dot(..)` beside
//         `predict`, each promising `__g_pairs` (`promises_pairs`)
/// Does every field of `s` passed on whole reach only calls whose callees surely have `__g_pairs`: is each
/// use of it an argument (`w`, `&w`) of a call by a bare name (not one the body binds) of a function that
/// the source shows with `#[differentiable]` among the items of `s`'s module (of a method: the module
/// holding its `impl`), or by `Self::h` of an associated function of a method's own `impl`, and that
/// `promises_pairs`?
fn fields_reach_pairs(s: &StructFunction) -> bool {
    use syn::visit::Visit;
    let fields: Vec<String> = s
        .flat
        .field_inputs()
        .filter(|f| f.whole)
        .map(|f| f.ident.to_string())
        .collect();
    struct Uses<'a> {
        fields: &'a [String],
        callees: Vec<String>,
        other: bool,
        bound: Vec<String>,
    }
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Call(call) => {
                    let callee = match &*call.func {
                        Expr::Path(p) if p.qself.is_none() => sibling_name(&p.path),
                        _ => None,
                    };
                    self.visit_expr(&call.func);
                    for arg in &call.args {
                        if self.fields.iter().any(|f| names(arg, f)) {
                            match &callee {
                                Some(c) => self.callees.push(c.clone()),
                                None => self.other = true,
                            }
                        } else {
                            self.visit_expr(arg);
                        }
                    }
                }
                Expr::Path(p) => {
                    if p.path
                        .get_ident()
                        .is_some_and(|i| self.fields.contains(&i.to_string()))
                    {
                        self.other = true;
                    }
                }
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.bound.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.bound.push(f.sig.ident.to_string());
        }
        // A macro's tokens (`vec![0.0; w.len()]`) may name a field too: not read here, so not allowed.
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let named = |tokens: TokenStream| -> bool {
                fn any(tokens: TokenStream, fields: &[String]) -> bool {
                    tokens.into_iter().any(|t| match t {
                        proc_macro2::TokenTree::Ident(i) => fields.contains(&i.to_string()),
                        proc_macro2::TokenTree::Group(g) => any(g.stream(), fields),
                        _ => false,
                    })
                }
                any(tokens, self.fields)
            };
            if named(m.tokens.clone()) {
                self.other = true;
            }
        }
    }
    let mut uses = Uses {
        fields: &fields,
        callees: Vec::new(),
        other: false,
        bound: Vec::new(),
    };
    uses.visit_block(s.written);
    if uses.other || uses.callees.is_empty() {
        return false;
    }
    let caller = &s.item.sig.ident;
    uses.callees.iter().all(|callee| {
        !uses.bound.contains(callee)
            && crate::context::differentiable_sibling(caller, callee)
                .is_some_and(|item| promises_pairs(&item))
    })
}

// Input:  #[differentiable] fn plain(&self, x: f64) -> f64 { .. }      (`self` constant)
// Output: fn __plain_whole(_: impl Sized, _: &[f64], _: f64) -> f64 { unreachable!() }
//         fn ____plain_whole_vjp_into(.., d_ret: impl Sized, grads: ((), Option<&mut [f64]>, Option<&mut f64>))
//             -> f64 { unreachable!() }
//         fn ____plain_whole_jvp(.., tangents: ((), Vec<f64>, f64)) -> (f64, f64) { unreachable!() }
//         fn ____plain_whole_vjp(.., d_ret: impl Sized) -> (f64, ((), Vec<f64>, f64)) { unreachable!() }
//         fn ____plain_whole_generic<__S: Float>(..) -> __S { unreachable!() }     (and its `vjp_into`, `jvp`)
// (Of a free function, `fn plain(m: &Model, x: f64)` with `wrt(x)`: the function `__plain_whole`, and the
// companion type `__plain_whole` with `vjp_into`, `jvp` and `vjp`, whose generic copy `____plain_whole_generic`
// has those and `call`, as a caller's `derivative_of!` and `GenericCopy` find them.)
/// For a function that keeps a parameter struct constant (a method without `wrt(self)`, a function whose
/// `wrt(..)` leaves the struct out), which has no hidden function `__f_whole`: stand-ins under the names a
/// caller's `__g_whole` (and, at `order = K`, its generic copy) calls when it passes the struct on whole
/// (`self.plain(x)`, `plain(self, x)` in a method with `wrt(self)`), so that the caller's one error is its
/// forward mode's at the call (`__private::DifferentiatedSlot`: the callee keeps the struct constant), not
/// rustc's missing items. Never run: a caller that reaches them does not compile.
fn stand_ins(s: &StructFunction) -> TokenStream {
    let constant_struct = s
        .sig
        .params
        .iter()
        .any(|p| matches!(p.kind, Kind::Struct(_)) && !p.active);
    let float_params = crate::signature::float_type_params(&s.analysis_item.sig.generics);
    let returns_f64 = matches!(&s.sig.ret_ty, syn::Type::Path(p) if p.path.is_ident("f64"));
    if !constant_struct || !float_params.is_empty() || !returns_f64 {
        return TokenStream::new();
    }
    stand_in_family(s)
}

/// Why a function of parameter structs without `order = K` has no hidden function `__f_whole` at first
/// order, which the error of an `order = K` caller that passes it a struct on whole says.
#[derive(Clone, Copy)]
enum NoCopy {
    /// It passes a field on whole to a call (`g(&p.w)`): a nested struct or a `Vec`, an array, a matrix.
    WholeField,
    /// It reads a scalar field where an integer or a flag may be read (`g(x, p.n)`, `x.powi(p.n)`).
    DoubtfulScalar,
    /// It returns neither a float nor an array, nor `()` with output parameters (`-> (f64, f64)`).
    Returns,
    /// It has `order = K` and keeps a struct constant that it only reads by its fields, and is not a
    /// function without type or output parameters differentiating no struct (`constant_whole::items`).
    ConstantFields,
}

impl NoCopy {
    fn reason(self) -> &'static str {
        match self {
            NoCopy::WholeField => "it passes a field on whole to a call, which may hold a struct or an array",
            NoCopy::DoubtfulScalar => {
                "it passes a field to a call (or reads one as a condition or an exponent), which may hold \
                 an integer or a float"
            }
            NoCopy::Returns => {
                "it returns neither a float nor an array, nor `()` with its results in output parameters"
            }
            NoCopy::ConstantFields => {
                "it keeps a parameter struct constant (`wrt(..)` leaves it out) and only reads its fields, \
                 which it takes as values; a function without type parameters or output parameters (a \
                 method in an `impl` without float type parameters) passes them on to its copy from the \
                 struct, not one that differentiates another struct beside it: pass it the fields it \
                 reads, or differentiate the struct in it too"
            }
        }
    }
}

/// `stand_ins`' items: the stand-in function and its derivatives, and its generic copy.
fn stand_in_family(s: &StructFunction) -> TokenStream {
    let whole = crate::naming::whole_function(&s.item.sig.ident);
    let copy = crate::naming::generic_copy(&whole);
    let generics = quote!(<__S: ::autodiff::__private::Float>);
    let Some(first) = stand_in_items(s, &quote!(f64), &TokenStream::new()) else {
        return TokenStream::new();
    };
    let Some(second) = stand_in_items(s, &quote!(__S), &generics) else {
        return TokenStream::new();
    };
    if crate::expand::is_method(s.item) {
        return quote!(#(#first)* #(#second)*);
    }
    // A free function's derivatives are found through its companion type.
    // (Said by a caller's `order = K` check; the caller's one error is the constant struct's.)
    let has_copy = quote!(impl ::autodiff::__private::HasGenericCopy for #whole {});
    companion_types(&s.item.vis, &whole, &copy, &first, &second, has_copy)
}

// Input:  the stand-ins over `f64` (`first`: the function, then its derivatives) and over `__S`
//         (`second`: the copy's `call`, then its derivatives) of a free function `f`
// Output: struct __f_whole {} impl __f_whole { <derivatives> }
//         struct ____f_whole_generic {} impl ____f_whole_generic { call, <derivatives> }
//         impl GenericCopy for __f_whole { type Copy = ____f_whole_generic; .. } #extra
/// A free function's stand-ins as callers find them: the function, and its derivatives and its generic
/// copy's items as methods of companion types (`stand_in_family`), with
/// `extra` items beside them.
fn companion_types(
    vis: &syn::Visibility,
    whole: &Ident,
    copy: &Ident,
    first: &[TokenStream],
    second: &[TokenStream],
    extra: TokenStream,
) -> TokenStream {
    let hidden = quote! {
        #[doc(hidden)]
        #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
    };
    let (primal, derivatives) = first.split_at(1.min(first.len()));
    let call = second.first();
    let copy_derivatives = second.iter().skip(1);
    quote! {
        #(#primal)*
        #hidden
        #[allow(non_camel_case_types)]
        #vis struct #whole {}
        #hidden
        impl #whole { #(#derivatives)* }
        #hidden
        #[allow(non_camel_case_types)]
        #vis struct #copy {}
        #hidden
        impl #copy { #call #(#copy_derivatives)* }
        impl ::autodiff::__private::GenericCopy for #whole {
            type Copy = #copy;
            #[inline(always)]
            fn copy() -> #copy { #copy {} }
        }
        #extra
    }
}

// Input:  #[differentiable] fn n9(p: &Layer, x: &[f64], out: &mut [f64]) { out[0] = p.w[0][0] * x[0] + .. }
// Output: fn __n9_whole(__p_primal: impl Sized, __p_values: &[f64], x: &[f64], out: &mut [f64]) { unreachable!() }
//         struct __n9_whole {} impl __n9_whole { fn vjp(..), fn jvp(..), .. }      (never run)
//         the fallback of its generic copy, `____n9_whole_generic`, each item a compile error once
//         instantiated (`NoGenericCopy`), without `HasGenericCopy`: an `order = K` caller's check at its
//         call is the one error (`Self::____n9_whole_copied()` says so for a method's caller).
/// For a function whose structs fit the values view but whose hidden function `__f_whole` cannot be made
/// at first order (`first_order`, `why`): stand-ins under its names, of the signatures it would have
/// (`companion::stand_ins`), which callers' own hidden functions call, with the fallback of its generic
/// copy.
fn stand_ins_without_copy(s: &StructFunction, why: &str) -> TokenStream {
    let view = ViewFloat::of(s);
    let (vis, name) = (
        &s.item.vis,
        crate::naming::whole_function(&s.item.sig.ident),
    );
    named_stand_ins(s.item, s.sig, &view.float, vis, &name, false, why)
}

// Input:  #[differentiable] fn scaled(w: &[f64], out: &mut [f64], k: usize) -> [f64; 2] { .. }   (no real
//         `__scaled_pairs`, `pairs::plain`)
// Output: fn __scaled_pairs(__pair_unit_0: impl Sized, w: &[f64], ..) { unreachable!() }, its companion type
//         and the fallback of its generic copy (`companion::stand_ins`)
/// The stand-ins of `__g_pairs` (what a caller's hidden function `__f_whole` calls where it passes a field
/// on whole to `g`, `WholeCalls`) for a free function `item` that `promises_pairs` but whose expansion made
/// no real one: each argument a pair (a struct's primal and values view, any other value's `()` and the
/// value), never run; an `order = K` caller that reaches it meets the one error at its call, `why`.
pub(crate) fn pairs_stand_ins(
    item: &syn::ItemFn,
    sig: &crate::signature::Signature,
) -> TokenStream {
    let float = match &sig.ret_ty {
        syn::Type::Path(p) if p.path.is_ident("f32") => Ident::new("f32", Span::call_site()),
        _ => Ident::new("f64", Span::call_site()),
    };
    let name = crate::naming::pairs_function(&item.sig.ident);
    let why = match sig.params.iter().any(|p| matches!(p.kind, Kind::Struct(_))) {
        true => {
            "it has no hidden function over its parameter structs' values (see the error of an `order = K` \
             caller passing it a struct on whole, or give it `order = 2` to learn why)"
        }
        false => {
            "one is made for a function of slices, `Vec`s and arrays of floats taken by reference, matrices \
             (`&[Vec<f64>]`) and other values, returning a float, a fixed-size array or a tuple of floats, \
             or `()` with its results in output parameters: write it so, or read the field by its elements \
             where it is passed on"
        }
    };
    named_stand_ins(item, sig, &float, &item.vis, &name, true, why)
}

/// Does the expansion of the free function `item` promise `__item_pairs` (real or `pairs_stand_ins`), which
/// a caller in the same module that passes it a field on whole calls (`first_order`): a function without
/// type parameters, receiver, `async` or `unsafe`, not itself hidden (`__`), returning `f64`, `f32`, `()`,
/// or a fixed-size array or a tuple of them (`returns_floats`),
/// with a parameter a field could be passed to (`could_take_a_field`), written among a module's items. A caller reads the callee's item from the source and asks this of it.
pub(crate) fn promises_pairs(item: &syn::ItemFn) -> bool {
    let sig = &item.sig;
    let returns = match &sig.output {
        syn::ReturnType::Default => true,
        syn::ReturnType::Type(_, ty) => {
            matches!(&**ty, syn::Type::Path(p) if p.qself.is_none()
                && (p.path.is_ident("f64") || p.path.is_ident("f32")))
                || returns_floats(&sig.output)
        }
    };
    sig.receiver().is_none()
        && sig.generics.params.is_empty()
        && sig.generics.where_clause.is_none()
        && sig.asyncness.is_none()
        && sig.unsafety.is_none()
        && sig.constness.is_none()
        && sig.abi.is_none()
        && sig.variadic.is_none()
        && !crate::naming::unraw(&sig.ident).starts_with("__")
        && !sig.inputs.is_empty()
        && sig
            .inputs
            .iter()
            .all(|a| matches!(a, syn::FnArg::Typed(t) if matches!(&*t.pat, syn::Pat::Ident(_))))
        && sig.inputs.iter().any(|a| match a {
            syn::FnArg::Typed(t) => could_take_a_field(&t.ty),
            syn::FnArg::Receiver(_) => false,
        })
        && returns
}

// Input:  -> [f64; 3]    -> (f64, f64)    -> [[f64; 2]; 2]    -> Vec<f64>    -> (f64, [f64; 2])
// Output: true           true             false               false          false
/// Does a function return a fixed-size array of floats or a tuple of floats (`f64` or `f32`), which its
/// `__g_pairs` returns as it is (`pairs::plain`)?
pub(crate) fn returns_floats(output: &syn::ReturnType) -> bool {
    let float = |ty: &syn::Type| {
        matches!(ty, syn::Type::Path(p) if p.qself.is_none()
            && (p.path.is_ident("f64") || p.path.is_ident("f32")))
    };
    match output {
        syn::ReturnType::Type(_, ty) => match &**ty {
            syn::Type::Array(a) => float(&a.elem),
            syn::Type::Tuple(t) => !t.elems.is_empty() && t.elems.iter().all(float),
            _ => false,
        },
        syn::ReturnType::Default => false,
    }
}

/// Could a field passed on whole (`&p.w`, `&p.inner`) be an argument of a parameter of type `ty`: a shared
/// reference to a slice, an array or a named type other than a float, an integer or `bool`?
fn could_take_a_field(ty: &syn::Type) -> bool {
    const SCALARS: &[&str] = &[
        "f64", "f32", "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32",
        "i64", "i128", "bool", "str",
    ];
    match ty {
        syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
            syn::Type::Slice(_) | syn::Type::Array(_) => true,
            syn::Type::Path(p) => {
                p.qself.is_none()
                    && !p
                        .path
                        .get_ident()
                        .is_some_and(|i| SCALARS.contains(&i.to_string().as_str()))
            }
            _ => false,
        },
        syn::Type::Paren(p) => could_take_a_field(&p.elem),
        _ => false,
    }
}

/// Stand-ins named `name` of the signatures `item`'s hidden function `__f_whole` (or, with `pairs`, its
/// `__f_pairs`) would have, with the fallback of its generic copy saying `why`.
fn named_stand_ins(
    item: &syn::ItemFn,
    sig: &crate::signature::Signature,
    view: &Ident,
    vis: &syn::Visibility,
    whole: &Ident,
    pairs: bool,
    why: &str,
) -> TokenStream {
    let slots = crate::expand::companion_slots(sig);
    let (mut params, mut cotangents, mut tangents, mut into) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut out_tangents = Vec::new();
    let outputs = crate::expand::companion_outputs(sig);
    for (i, (p, slot)) in sig.params.iter().zip(&slots).enumerate() {
        if let Kind::Struct(_) = &p.kind {
            // The struct and its values view, as `whole_function` takes them (a caller passes the struct
            // as `&__p_primal` or `__p_primal`).
            let (primal, values) = pair(&p.ident.to_string());
            params.push(quote!(#primal: impl ::core::marker::Sized));
            params.push(quote!(#values: &[#view]));
            for list in [&mut cotangents, &mut tangents, &mut out_tangents, &mut into] {
                list.push(quote!(()));
            }
            cotangents.push(quote!(::std::vec::Vec<#view>));
            tangents.push(quote!(::std::vec::Vec<#view>));
            out_tangents.push(quote!(::std::vec::Vec<#view>));
            into.push(quote!(::core::option::Option<&mut [#view]>));
            continue;
        }
        if pairs {
            // The `()` before any other value (`pairs::plain`).
            let unit = format_ident!("__pair_unit_{}", i, span = Span::call_site());
            params.push(quote!(#unit: ()));
            for list in [&mut cotangents, &mut tangents, &mut out_tangents, &mut into] {
                list.push(quote!(()));
            }
        }
        params.push(crate::signature::declare(&slot.ident, &slot.ty));
        cotangents.push(match (&slot.tangent_ty, slot.active) {
            (Some(t), true) => t.clone(),
            _ => quote!(()),
        });
        let tangent = slot.tangent_ty.clone().unwrap_or_else(|| quote!(()));
        out_tangents.push(crate::companion::out_tangent_type(
            slot,
            &tangent,
            outputs.as_ref(),
        ));
        tangents.push(tangent);
        into.push(slot.into.ty());
    }
    let ret = sig.ret_ty.to_token_stream();
    let (d_ret_ty, vjp_extra, jvp_extra) = match outputs {
        None => (ret.clone(), TokenStream::new(), TokenStream::new()),
        Some(o) => {
            let d: Vec<Ident> = (o.outputs.iter())
                .map(|out| crate::naming::output_cotangent(&out.ident))
                .collect();
            let (cotangent_tys, tangent_tys) = (
                o.outputs.iter().map(|out| &out.cotangent_ty),
                o.outputs.iter().map(|out| &out.tangent_ty),
            );
            (
                quote!(::core::option::Option<#ret>),
                quote!(#(, #d: #cotangent_tys)*),
                quote!(#(, #d: #tangent_tys)*),
            )
        }
    };
    crate::companion::stand_ins(&crate::companion::FallbackCopy {
        vis,
        name: whole,
        generics: &item.sig.generics,
        why,
        float: None,
        params: &params,
        ret: &ret,
        d_ret_ty: &d_ret_ty,
        cotangent_types: &cotangents,
        tangent_types: &tangents,
        out_tangent_types: &out_tangents,
        into_types: &into,
        vjp_extra: &vjp_extra,
        jvp_extra: &jvp_extra,
        method: crate::expand::is_method(item),
    })
}

/// The stand-ins of `stand_ins`, over the float type `scalar` (with `generics` declaring it): the function
/// first, then its derivatives `vjp_into`, `jvp` and `vjp`, named `__name_vjp_into` .. beside a method, and
/// as methods taking `self` of the companion type beside a free function (the function itself `call` there,
/// in the generic copy); `None` for a function with parameters other than structs, float scalars and
/// values without a derivative.
fn stand_in_items(
    s: &StructFunction,
    scalar: &TokenStream,
    generics: &TokenStream,
) -> Option<Vec<TokenStream>> {
    // The slots of the hidden function's `vjp_into` and `jvp`, where callers pass `Default::default()`
    // (a struct's primal) and zeros: a struct is its primal and its values view, a float of the scalar
    // type, and anything without a derivative `()`.
    let any = quote!(impl ::core::marker::Sized);
    let mut types = Vec::new();
    let mut cotangents = Vec::new();
    let mut tangents = Vec::new();
    for p in &s.sig.params {
        match &p.kind {
            Kind::Struct(_) => {
                types.push(any.clone());
                types.push(quote!(&[#scalar]));
                cotangents.push(quote!(()));
                cotangents.push(quote!(::core::option::Option<&mut [#scalar]>));
                tangents.push(quote!(()));
                tangents.push(quote!(::std::vec::Vec<#scalar>));
            }
            Kind::Float(_) if p.array.is_none() && !p.output && !p.by_ref => {
                types.push(scalar.clone());
                cotangents.push(quote!(::core::option::Option<&mut #scalar>));
                tangents.push(quote!(#scalar));
            }
            // A slice (`x: &[f64]`, `x: &Vec<f64>`), differentiated or not (callers pass the same slots).
            Kind::Array
                if p.differentiable
                    && !p.output
                    && p.array.is_some_and(|a| !a.fixed && !a.matrix) =>
            {
                types.push(quote!(&[#scalar]));
                cotangents.push(quote!(::core::option::Option<&mut [#scalar]>));
                tangents.push(quote!(::std::vec::Vec<#scalar>));
            }
            _ if !p.differentiable && p.array.is_none() => {
                types.push(any.clone());
                cotangents.push(quote!(()));
                tangents.push(quote!(()));
            }
            _ => return None,
        }
    }
    let method = crate::expand::is_method(s.item);
    let whole = crate::naming::whole_function(&s.item.sig.ident);
    let name = match scalar.to_string() == "f64" {
        true => whole,
        false => crate::naming::generic_copy(&whole),
    };
    let vis = &s.item.vis;
    let message = format!(
        "`{}` keeps its parameter struct constant and has no derivative in it",
        s.item.sig.ident
    );
    // The generic copy's items are a compile error once instantiated, through one function holding it
    // (`no_copy`): an `order = K` caller that keeps the struct constant too and passes it on whole reaches
    // them (`g(p, x)` with `wrt(x)` in both), which a panic at run time answered before.
    let no_copy = (scalar.to_string() != "f64").then(|| match method {
        true => crate::naming::method_companion(&name, "no_copy"),
        false => Ident::new("no_copy", Span::call_site()),
    });
    let body = match &no_copy {
        None => quote!(::core::unreachable!(#message)),
        Some(no_copy) => quote!(Self::#no_copy::<__S>()),
    };
    let args: Vec<TokenStream> = types
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            let arg = format_ident!("__stand_in_{}", i);
            quote!(#arg: #ty)
        })
        .collect();
    // Beside a free function, the derivatives are methods of the companion type, and the generic copy's
    // function is its `call`.
    let (derivative, receiver): (fn(&Ident, &str) -> Ident, TokenStream) = match method {
        true => (
            |name: &Ident, item: &str| crate::naming::method_companion(name, item),
            quote!(),
        ),
        false => (
            |_: &Ident, item: &str| Ident::new(item, Span::call_site()),
            quote!(self,),
        ),
    };
    let primal = match (method, scalar.to_string() == "f64") {
        (false, false) => Ident::new("call", Span::call_site()),
        _ => name.clone(),
    };
    let items = [
        (primal, quote!(), quote!(), scalar.clone()),
        (
            derivative(&name, "vjp_into"),
            receiver.clone(),
            quote!(, __d_ret: #any, __grads: (#(#cotangents,)*)),
            scalar.clone(),
        ),
        (
            derivative(&name, "jvp"),
            receiver.clone(),
            quote!(, __tangents: (#(#tangents,)*)),
            quote!((#scalar, #scalar)),
        ),
        // (The reference adjoint's calls, without `vjp_into`: a cotangent shaped like a tangent.)
        (
            derivative(&name, "vjp"),
            receiver,
            quote!(, __d_ret: #any),
            quote!((#scalar, (#(#tangents,)*))),
        ),
    ];
    let mut items: Vec<TokenStream> = items
        .into_iter()
        .map(|(name, receiver, more, ret)| {
            quote! {
                #[doc(hidden)]
                #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
                #vis fn #name #generics (#receiver #(#args),* #more) -> #ret {
                    #body
                }
            }
        })
        .collect();
    if let Some(no_copy) = no_copy {
        let fail = no_copy_body(s, method);
        items.push(quote! {
            #[doc(hidden)]
            #[inline]
            #[allow(dead_code, clippy::all, clippy::pedantic, clippy::nursery)]
            #vis fn #no_copy<__S>() -> ! {
                #fail
            }
        });
    }
    Some(items)
}

// Input:  #[differentiable(wrt(x))] fn first(p: &Cfg, x: &[f64]) -> f64 { .. }     (no `order = K`)
// Output: struct __NoCopy; impl<S> NoGenericCopy<S> for __NoCopy { const FAIL: () = panic!(..); }
//         no_generic_copy::<__NoCopy, __S, ()>(); unreachable!()
/// The body of `stand_ins`' function `no_copy`, which each of their generic items runs: the compile error,
/// once an `order = K` caller's copy instantiates it, spanned on the function's name, saying that it has no
/// generic copy and what to do.
fn no_copy_body(s: &StructFunction, method: bool) -> TokenStream {
    let name = &s.item.sig.ident;
    let fix = match method {
        true => format!(
            "Write its computation as a free function of the struct with `order = 2` (a function that keeps \
             its struct constant and only reads its fields has the copy then) and call that, or pass \
             `{name}` the fields it reads"
        ),
        false => format!(
            "Give `{name}` `order = 2` too (its generic copy is then made, or an error says why it cannot be)"
        ),
    };
    let message = format!(
        "`{name}` has no generic copy over its parameter structs, which an `order = K` function passing it a \
         struct on whole needs: it keeps the struct constant (`wrt(..)` leaves it out) and has no `order = K`. \
         {fix}"
    );
    let panic = quote::quote_spanned!(name.span()=> ::core::panic!(#message));
    quote! {
        struct __NoCopy;
        impl<__T> ::autodiff::__private::NoGenericCopy<__T> for __NoCopy {
            const FAIL: () = #panic;
        }
        ::autodiff::__private::no_generic_copy::<__NoCopy, __S, ()>();
        ::core::unreachable!()
    }
}

/// Could the field input `ident`, which the body reads as a scalar and not as an integer by the syntax
/// (`float_fields`), be of another type: is it a condition, an argument of a call or of a method without a
/// derivative rule, the exponent of `powi` (`x.powi(p.n)`), or the operand of `!`?
fn maybe_not_a_float(s: &StructFunction, ident: &Ident) -> bool {
    use crate::ir::{Operand, Stmt, Value};
    let index = s.flat.inner.params.iter().position(|p| p.ident == *ident);
    let Some(var) = index.and_then(|i| s.lowered.params.get(i)).copied() else {
        return true;
    };
    let is_field = |o: &Operand| o.var() == Some(var);
    s.lowered.all_stmts().into_iter().any(|stmt| match stmt {
        Stmt::If { cond, .. } => is_field(cond),
        Stmt::Loop(l) => l
            .cond
            .as_ref()
            .is_some_and(|c| c.yields.iter().any(is_field)),
        Stmt::CallOut { args, .. } => args.iter().any(is_field),
        Stmt::Let { value, .. } => match value {
            Value::Call { args, .. } => args.iter().any(is_field),
            Value::Float {
                func: crate::ir::FloatFn::Powi,
                args,
                ..
            } => args.iter().skip(1).any(is_field),
            Value::Method { receiver, args, .. } => is_field(receiver) || args.iter().any(is_field),
            Value::Unary(syn::UnOp::Not(_), a) => is_field(a),
            _ => false,
        },
        _ => false,
    })
}

/// The struct `p` (`self`) as the hidden function and the body spell it: `__p_primal`, and its values
/// view `__p_values`; for a nested struct passed on, whose input is `__p_layer`, `__p_layer_primal` and
/// `__p_layer_values`.
fn pair(name: &str) -> (Ident, Ident) {
    let name = name.trim_start_matches("r#");
    let base = match name.starts_with("__") {
        true => name.to_string(),
        false => format!("__{name}"),
    };
    (
        Ident::new(&format!("{base}_primal"), Span::call_site()),
        Ident::new(&format!("{base}_values"), Span::call_site()),
    )
}

/// `#[differentiable(order = K, wrt(..))] fn __f_whole(..)` (without `order = K` if `order` is `None`): the
/// prologue that binds the fields, then the
/// flattened body with its calls that pass structs on whole calling the callees' `__g_whole`.
fn whole_function(
    s: &StructFunction,
    floats: &[bool],
    order: Option<&syn::LitInt>,
) -> syn::Result<TokenStream> {
    let mut params = Vec::new();
    let mut wrt = Vec::new();
    // The names that stand for a struct on whole in the body, with the pair each becomes.
    let mut wholes: Vec<(String, (Ident, Ident))> = Vec::new();
    // Of those, the fields passed on whole (a struct or floats).
    let mut field_wholes: Vec<String> = Vec::new();
    let mut prologue = Vec::new();
    // The fields that are arrays, bound to sub-slices of the values view.
    let mut array_fields: Vec<String> = Vec::new();
    // The fields that are matrices, read by index from the values view.
    let mut matrix_fields: Vec<MatrixField> = Vec::new();
    let cast_only = crate::struct_higher::cast_only_fields(s);
    let view = ViewFloat::of(s);
    for (i, p) in s.sig.params.iter().enumerate() {
        let Kind::Struct(ty) = &p.kind else {
            let declared = &s.item.sig.inputs[i];
            params.push(quote!(#declared));
            if p.active {
                wrt.push(p.ident.clone());
            }
            continue;
        };
        let (primal, values) = pair(&p.ident.to_string());
        let (ty, shape_ty) = (&view.primal_type(ty), view.shape_type(ty));
        params.push(quote!(#primal: &<#ty as ::autodiff::__private::Itself>::Type));
        params.push(quote!(#values: &[#view]));
        if p.active {
            wrt.push(values.clone());
        }
        wholes.push((p.ident.to_string(), (primal.clone(), values.clone())));
        for ((f, float), cast_only) in s
            .flat
            .field_inputs()
            .zip(floats)
            .zip(&cast_only)
            .filter(|((f, _), _)| f.parent == i)
        {
            let ident = Ident::new(&f.ident.to_string(), Span::call_site());
            // The struct that holds the field (`p`, or `p.inner` for `p.inner.a`), and where its part of
            // the view starts.
            let (_, window_ty, _, _) = owner(&shape_ty.to_token_stream(), &primal, f.path);
            let (owner, owner_ty, offset, key) = owner(&ty.to_token_stream(), &primal, f.path);
            let start =
                quote!(#offset ::autodiff::__private::field_start::<#owner_ty, #key>(#owner));
            let end = quote!(#offset ::autodiff::__private::field_end::<#owner_ty, #key>(#owner));
            let (first, last) = (
                format_ident!("{}_start", ident),
                format_ident!("{}_end", ident),
            );
            if f.whole {
                // A field passed on whole, a nested struct or floats (a `Vec`, an array), which the
                // syntax does not tell apart: the pair `whole_primal` (the struct, or `()`) and its part of
                // the view in the field's shape (`&[T]` for a struct or a `Vec`, `&[T; N]` for an array),
                // which calls pass to the callee's `__g_pairs` (`WholeCalls`).
                let (inner_primal, inner_values) = pair(&f.ident.to_string());
                prologue.push(quote! {
                    let #inner_primal = ::autodiff::__private::whole_primal::<#owner_ty, #key>(#owner);
                    let #first = #start;
                    let #last = #end;
                    let #inner_values = ::autodiff::__private::field_window::<#window_ty, #key, _>(
                        &#values[#first..#last]
                    );
                });
                field_wholes.push(f.ident.to_string());
                wholes.push((f.ident.to_string(), (inner_primal, inner_values)));
            } else if f.matrix {
                // A matrix field (`p.w[i][j]`): where its part of the view starts, and the field's shape,
                // taken once per call, which says where each row is in that part in O(1) (`MatrixFields`,
                // `__private::MatrixShape`).
                let shape = format_ident!("{}_shape", ident);
                matrix_fields.push(MatrixField {
                    input: ident.to_string(),
                    values: values.clone(),
                    start: first.clone(),
                    shape: shape.clone(),
                });
                prologue.push(quote! {
                    let #first = #start;
                    let #shape = ::autodiff::__private::matrix_shape(
                        ::autodiff::__private::field_ref::<#owner_ty, #key>(#owner)
                    );
                });
                // Also passed on whole (`g.k * grid(&g.m, x) + g.m[0][0]`): its pair as well, as a field
                // passed on whole only (the call left as it is by `MatrixFields`).
                if passed_to_a_call(s.written, &ident.to_string()) {
                    let (inner_primal, inner_values) = pair(&f.ident.to_string());
                    prologue.push(quote! {
                        let #inner_primal = ::autodiff::__private::whole_primal::<#owner_ty, #key>(#owner);
                        let #last = #end;
                        let #inner_values = ::autodiff::__private::field_window::<#window_ty, #key, _>(
                            &#values[#first..#last]
                        );
                    });
                    field_wholes.push(f.ident.to_string());
                    wholes.push((f.ident.to_string(), (inner_primal, inner_values)));
                }
            } else if let Some(ty) = f.integer_matrix {
                // A matrix of integers or flags: the field itself, by reference, of its declared type
                // (which the lowering reads as an integer-matrix parameter's).
                prologue.push(quote!(
                    let #ident: &#ty = ::autodiff::__private::field_ref::<#owner_ty, #key>(#owner);
                ));
            } else if let Some(constant) = f.constant {
                // Integers or flags (checked so by `IntegerArray`), or an array only measured: not in the
                // values view (or with no derivative there), read from the struct itself, a constant.
                let field = quote!(::autodiff::__private::field_ref::<#owner_ty, #key>(#owner));
                prologue.push(match constant {
                    crate::structs::Constant::Integers => {
                        let span = f.path.last().map_or_else(Span::call_site, Ident::span);
                        let integers =
                            quote::quote_spanned!(span=> ::autodiff::__private::integers);
                        quote!(let #ident = #integers(#field);)
                    }
                    crate::structs::Constant::Measured => quote!(let #ident = #field;),
                    // An integer, a flag or data (an enum) that the declaration shows: its value.
                    crate::structs::Constant::Declared(_) => quote!(
                        let #ident = ::autodiff::__private::field_value::<#owner_ty, #key>(#owner);
                    ),
                });
            } else if f.array {
                // In the field's shape (`&[f64; N]` for a `[f64; N]` field), which a callee of `&[f64; N]`
                // takes (rustc's E0308 where it was a `&[f64]`).
                array_fields.push(ident.to_string());
                prologue.push(quote! {
                    let #first = #start;
                    let #last = #end;
                    let #ident = ::autodiff::__private::field_window::<#window_ty, #key, _>(
                        &#values[#first..#last]
                    );
                });
            } else if *float {
                prologue.push(quote!(let #ident = #values[#start];));
            } else if *cast_only {
                // Read only converted to a float (`p.a as f64`): a float field (in the view, where its
                // derivative is) or an integer one (from the struct), which the syntax does not tell
                // apart; converted here as the body converts it.
                let slot =
                    quote!(#offset ::autodiff::__private::field_slot::<#owner_ty, #key>(#owner));
                // A generic function's body converts by `T::from(..)` (a cast to the macro,
                // `lower_field_conversion`), which `as` cannot write: both arms of the view's float `T`.
                let value = quote!(::autodiff::__private::field_value::<#owner_ty, #key>(#owner));
                let converted = match view.param {
                    true => quote!(::autodiff::__private::cast::<#view, _>(#value)),
                    false => quote!(#value as #view),
                };
                prologue.push(quote! {
                    let #ident = if ::autodiff::__private::field_in_view::<#owner_ty, #key>() {
                        #values[#slot]
                    } else {
                        #converted
                    };
                });
            } else {
                prologue.push(
                    quote!(let #ident = ::autodiff::__private::field_value::<#owner_ty, #key>(#owner);),
                );
            }
        }
    }
    let mut block = s.written.clone();
    let mut matrices = MatrixFields {
        fields: &matrix_fields,
        left: None,
    };
    matrices.visit_block_mut(&mut block);
    if let Some(left) = matrices.left {
        return Err(syn::Error::new_spanned(
            left,
            "with `order = K`, a matrix field of a parameter struct is read by its elements (`p.w[i][j]`), \
             its rows (`&p.w[i]`, `p.w[i].iter()`, `p.w[i].len()`) and its number of rows (`p.w.len()`): \
             this use of it is not supported; index the field where it is read",
        ));
    }
    // The function's own matrix parameters, which a call passing a field on whole cannot pass beside it.
    let matrix_params: Vec<String> = s
        .sig
        .params
        .iter()
        .filter(|p| p.array.is_some_and(|a| a.matrix))
        .map(|p| p.ident.to_string())
        .collect();
    let mut calls = WholeCalls {
        wholes: &wholes,
        field_wholes: &field_wholes,
        array_fields: &array_fields,
        matrix_params: &matrix_params,
        left: None,
        matrix_beside: None,
    };
    calls.visit_block_mut(&mut block);
    CopiedFields(&array_fields).visit_block_mut(&mut block);
    if let Some(matrix) = calls.matrix_beside {
        return Err(syn::Error::new_spanned(
            matrix,
            "with `order = K`, a call that passes a field of a parameter struct on whole (`g(&p.w, ..)`) passes \
             its other arguments as values, which a matrix parameter is not supported among: pass the matrix's \
             rows one by one (`g(&p.w, &m[i])`), or read the field by its elements in this function",
        ));
    }
    if let Some(left) = calls.left {
        return Err(syn::Error::new_spanned(
            left,
            "with `order = K`, a parameter struct (or a struct field) is passed on whole only as an argument of \
             a call (`g(p, x)`, `g(&p.inner)`, `self.other(x)`): read its fields here, or pass it to a function \
             (a parameter of a type alias of a float, `type Real = f64;`, is taken for a struct: write the \
             float type itself)",
        ));
    }
    let item = s.item;
    let name = crate::naming::whole_function(&item.sig.ident);
    let vis = &item.vis;
    let generics = &view.generics(&item.sig.generics);
    let where_clause = &generics.where_clause;
    let stmts = &block.stmts;
    let prologue: Vec<syn::Stmt> = syn::parse2::<syn::Block>(quote!({ #(#prologue)* }))?.stmts;
    let order = order.map(|k| quote!(order = #k,));
    // `f64`, or `()` for a function whose results are its output parameters.
    let ret = &s.sig.ret_ty;
    // An associated function of the `impl` too (an associated function of the user's that names neither
    // `self` nor `Self` is found in the source, where the hidden function's own expansion cannot find it).
    let in_impl = crate::expand::is_method(item).then(|| quote!(, __in_impl));
    Ok(quote! {
        #[::autodiff::differentiable(#order wrt(#(#wrt),*), __struct_whole #in_impl)]
        #[doc(hidden)]
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        #vis fn #name #generics (#(#params),*) -> #ret #where_clause {
            #(#prologue)*
            #(#stmts)*
        }
    })
}

// Input:  #[differentiable] fn slice_dot(a: &[f64], b: &[f64]) -> f64 { .. }
// Output: #[differentiable(wrt(__pair_value_0, __pair_value_1))]
//         fn __slice_dot_pairs(__pair_unit_0: (), __pair_value_0: &[f64], __pair_unit_1: (), __pair_value_1: &[f64])
//             -> f64 { slice_dot(__pair_value_0, __pair_value_1) }
// Input:  a function of parameter structs `fn g(p: &Inner, x: &[f64]) -> f64` with its `__g_whole`
// Output: #[differentiable(wrt(__p_values, __pair_value_1))]
//         fn __g_pairs(__p_primal: &<Inner as Itself>::Type, __p_values: &[f64], __pair_unit_1: (),
//             __pair_value_1: &[f64]) -> f64 { __g_whole(__p_primal, __p_values, __pair_value_1) }
/// What an `order = K` caller calls where it passes a field on whole (`g(&p.w)`, `g(&p.inner)`), which
/// may hold floats (a `Vec`, an array) or a struct and which the syntax does not tell apart: every
/// argument a pair, a struct's the struct and its values view (`whole_primal`, `field_window`), any other
/// value's `()` and the value. A free function of floats and slices (`plain`) or of parameter structs
/// (`of_structs`, beside its `__g_whole`) has one, a differentiated call of itself, so that the caller
/// needs nothing of its callee but its name (rustc's unresolved `__slice_dot_whole` before).
pub(crate) mod pairs {
    use crate::ir::Kind;
    use crate::signature::Signature;
    use proc_macro2::{Span, TokenStream};
    use quote::{format_ident, quote};
    use syn::Ident;

    fn unit(i: usize) -> Ident {
        format_ident!("__pair_unit_{}", i, span = Span::call_site())
    }

    fn value(i: usize) -> Ident {
        format_ident!("__pair_value_{}", i, span = Span::call_site())
    }

    /// Could a field passed on whole reach this parameter: a slice, `Vec` or array of floats, or a matrix
    /// of them (not an output)?
    fn takes_floats(p: &crate::signature::Param) -> bool {
        matches!(p.kind, Kind::Array) && !p.output && p.array.is_some()
    }

    /// A matrix parameter taken by reference, of two levels (`&[Vec<f64>]`, `&[[f64; C]; R]`), which a
    /// matrix field passed on whole reaches as its shape and its part of the values view: the type it
    /// refers to.
    fn matrix_referent(p: &crate::signature::Param) -> Option<&syn::Type> {
        match &p.ty {
            syn::Type::Reference(r)
                if r.mutability.is_none()
                    && p.array.is_some_and(|a| a.matrix)
                    && crate::signature::nesting_depth(&r.elem) == 2 =>
            {
                Some(&r.elem)
            }
            _ => None,
        }
    }

    // Input:  [Vec<f64>]
    // Output: [Vec<::core::primitive::f64>]
    /// `ty` with its floats named by their paths, which a generic copy keeps (`shadow.rs` rewrites the
    /// bare `f64`): a matrix's shape is the same at every order.
    // Input:  [Vec<T>]                    (of `fn quad_form<T: Float>(m: &[Vec<T>], ..)`, `generic` `[T]`)
    // Output: [Vec<::core::primitive::f64>]
    /// `ty` with its floats named by their paths, which a generic copy keeps (`shadow.rs` rewrites the
    /// bare `f64`): a matrix's shape is the same at every order. A float type parameter of a generic
    /// function (`generic`) is `f64` in it: the shape is all that is read of it (`matrix_window`), and the
    /// generic copy would make it the caller's number type (the fields of an `f64` struct are passed).
    pub(super) fn with_float_paths(ty: &syn::Type, generic: &[Ident]) -> syn::Type {
        struct Floats<'a>(&'a [Ident]);
        impl syn::visit_mut::VisitMut for Floats<'_> {
            fn visit_type_mut(&mut self, ty: &mut syn::Type) {
                if let syn::Type::Path(p) = ty {
                    if p.qself.is_none() && self.0.iter().any(|t| p.path.is_ident(t)) {
                        *ty = syn::parse_quote!(::core::primitive::f64);
                        return;
                    }
                    for float in ["f64", "f32"] {
                        if p.qself.is_none() && p.path.is_ident(float) {
                            let float = Ident::new(float, Span::call_site());
                            *ty = syn::parse_quote!(::core::primitive::#float);
                            return;
                        }
                    }
                }
                syn::visit_mut::visit_type_mut(self, ty);
            }
        }
        let mut ty = ty.clone();
        syn::visit_mut::VisitMut::visit_type_mut(&mut Floats(generic), &mut ty);
        ty
    }

    /// The float type a matrix type holds: `f32` if it names it, else `f64`. (Looked for inside the
    /// brackets too: `[Vec<f32>]` is one group of tokens, whose `f32` the top level does not show, which
    /// made `&[f64]` the values of an `f32` matrix and broke its function's first order; matrix33.)
    /// A matrix of a float type parameter (`[Vec<T>]` of `fn quad_form<T: Float>`, `generic` `[T]`)
    /// holds that type.
    fn float_of(ty: &syn::Type, generic: &[Ident]) -> Ident {
        let tokens = quote::ToTokens::to_token_stream(ty);
        let names = |name: &str| crate::naming::names_any(tokens.clone(), &[name]);
        if let Some(t) = generic.iter().find(|t| names(&t.to_string())) {
            return t.clone();
        }
        Ident::new(if names("f32") { "f32" } else { "f64" }, Span::call_site())
    }

    #[cfg(test)]
    fn delegated_of(item: syn::ItemFn, args: &str) -> Option<String> {
        let args: crate::args::Args = syn::parse_str(args).expect("the attribute's arguments");
        let sig = crate::signature::analyze(&item, &args, &mut crate::errors::Errors::default())
            .expect("the signature");
        let pairs = crate::naming::pairs_function(&item.sig.ident);
        let callee = format_ident!("{}_callee", pairs);
        delegated(&item, &sig, &pairs, &callee).map(|t| t.to_string().replace(' ', ""))
    }

    #[cfg(test)]
    #[test]
    fn the_pairs_of_a_function_of_slices_pass_every_call_on_to_its_companion() {
        let text = delegated_of(
            syn::parse_quote!(
                fn loss(w: &[f64], b: f64, labels: &[usize]) -> f64 {
                    w[labels[0]] * b
                }
            ),
            "wrt(w)",
        )
        .expect("delegated");
        for wanted in [
            // The function itself, its values passed on.
            "fn__loss_pairs(__pair_unit_0:(),__pair_value_0:&[f64],__pair_unit_1:(),\
             __pair_value_1:f64,__pair_unit_2:(),__pair_value_2:&[usize],)->f64{\
             __loss_pairs_callee(__pair_value_0,__pair_value_1,__pair_value_2)}",
            // `vjp_into`: the units' slots dropped, the values' passed on (`b` is differentiated by callers
            // although `wrt(..)` leaves it out, as `loss`'s companion does).
            "let(_,__slot_0,_,__slot_1,_,__slot_2,)=grads;__loss_pairs_callee{}.vjp_into(\
             __pair_value_0,__pair_value_1,__pair_value_2,d_ret,(__slot_0,__slot_1,__slot_2,))",
            "grads:((),::core::option::Option<&mut[f64]>,(),::core::option::Option<&mutf64>,(),(),)",
            // `vjp`: a `()` cotangent for each unit.
            "(value,((),__cotangent_0,(),__cotangent_1,(),__cotangent_2,))",
            // The generic copy over `__S`, through `loss`'s.
            "pubfncall<__S:::autodiff::__private::Float>(__pair_unit_0:(),__pair_value_0:&[__S],",
            "<__loss_pairs_callee as::autodiff::__private::GenericCopy>::copy().vjp_into(",
            "::autodiff::__private::through(__loss_pairs_callee::__AUTODIFF_THROUGH,1usize)",
        ] {
            let wanted = wanted.replace(' ', "");
            assert!(text.contains(&wanted), "{wanted}\nnot in\n{text}");
        }
        // A tuple returned: `vjp` takes its cotangent, the generic copy's is of `__S`.
        let text = delegated_of(
            syn::parse_quote!(
                fn polar(r: f64, t: &[f64; 1]) -> (f64, f64) {
                    (r * t[0].cos(), r * t[0].sin())
                }
            ),
            "",
        )
        .expect("delegated");
        for wanted in [
            "pubfnvjp(self,__pair_unit_0:(),__pair_value_0:f64,__pair_unit_1:(),__pair_value_1:&[f64;1],\
             d_ret:(f64,f64))->((f64,f64),((),f64,(),[f64;1],))",
            "->(__S,__S){<__polar_pairs_callee as::autodiff::__private::GenericCopy>::Copy::call(",
        ] {
            let wanted = wanted.replace(' ', "");
            assert!(text.contains(&wanted), "{wanted}\nnot in\n{text}");
        }
        // Both float types: the generic copy's types cannot be made by renaming one.
        let mixed = delegated_of(
            syn::parse_quote!(
                fn mixed(w: &[f32], b: f64) -> f64 {
                    w[0] as f64 * b
                }
            ),
            "",
        );
        assert!(mixed.is_none());
    }

    #[cfg(test)]
    #[test]
    fn the_float_of_a_matrix_is_found_inside_its_brackets() {
        let float = |ty: syn::Type| float_of(&ty, &[]).to_string();
        assert_eq!(float(syn::parse_quote!([Vec<f32>])), "f32");
        assert_eq!(float(syn::parse_quote!([[f32; 2]; 2])), "f32");
        assert_eq!(float(syn::parse_quote!([[f32; 2]])), "f32");
        assert_eq!(float(syn::parse_quote!(Vec<Vec<f32>>)), "f32");
        assert_eq!(float(syn::parse_quote!([Vec<f64>])), "f64");
        assert_eq!(float(syn::parse_quote!([[f64; 3]; 2])), "f64");
    }

    /// `__g_pairs` of a free function `item` of floats and slices without type parameters or outputs,
    /// with a slice, `Vec` or array parameter; nothing for others.
    pub(crate) fn plain(item: &syn::ItemFn, sig: &Signature) -> TokenStream {
        let name = &item.sig.ident;
        // Called as `self::name` (a name a glob import also brings is ambiguous to a macro's import of
        // it, rustc's E0659), which names it only among a module's items.
        // An associated function of slices (`Self::sdot(&self.w, x)`) has one too, beside it in its `impl`,
        // calling it as `Self::name`.
        let associated = crate::expand::is_method(item);
        let generic = crate::signature::float_type_params(&item.sig.generics);
        let plain = item.sig.receiver().is_none()
            && (associated || crate::context::written_in_module(name))
            // Generic only over its float type (`fn horner<T: Float>(c: &[T], t: T)`): its pairs too,
            // generic alike (a matrix's values of that type, its shape of `f64`: `with_float_paths`).
            && (item.sig.generics.params.is_empty()
                || (item.sig.generics.where_clause.is_none()
                    && generic.len() == item.sig.generics.params.len()))
            && !crate::naming::unraw(name).starts_with("__")
            && item.sig.asyncness.is_none()
            && item.sig.unsafety.is_none()
            // Its results its return value (a float) or its output parameters (`()`), which a caller's
            // `__f_whole` passes as the pair `()` and the buffer (`dense(&m.w1, &m.b1, x, &mut h)`).
            // (With outputs, only where every parameter is differentiated, an output or a scalar, and every
            // array a slice: a fixed-size array beside them, `d_u: &mut [f64; N * N]`, broke the pair's
            // generic copy, rustc's E0283 on `From<[__S; 36]>`, and so did `wrt(x)` beside data
            // `edges: &[(usize, usize)]`, on `From<Vec<__S>>`.)
            && match sig.outputs().next() {
                // A float, or an array or tuple of them (`solve3(&m.cov, &m.mu) -> [f64; 3]`).
                None => {
                    matches!(sig.ret_kind, Kind::Float(_))
                        || super::returns_floats(&item.sig.output)
                }
                Some(_) => {
                    sig.returns_unit()
                        && sig.params.iter().all(|p| match p.array {
                            Some(a) => !a.fixed && !a.matrix && (p.active || p.output),
                            None => !matches!(p.kind, Kind::Tuple(_) | Kind::Array),
                        })
                }
            }
            && sig.params.len() == item.sig.inputs.len()
            && sig.params.iter().any(takes_floats)
            && sig.params.iter().all(|p| match p.kind {
                Kind::Struct(_) | Kind::Tuple(_) => false,
                // Tuples as data taken by value (`Vec<(usize, f64)>`, moved into the call): no field
                // passed on whole reaches them, and the pair's items would move them more than once.
                _ if matches!(crate::tuple_data::tuple_slice(&p.ty), Some((_, false))) => false,
                // A field passed on whole is a reference (`&p.w`): a `Vec` or array taken by value
                // (moved into the call) is no callee of one.
                // Nor is a slice of integers or flags, nor a matrix, which no field passed on whole
                // reaches (`FieldWindow`).
                // A matrix, by reference, of two levels: a matrix field's shape and its part of the
                // view (`matrix_window`).
                Kind::Array => {
                    matches!(p.ty, syn::Type::Reference(_))
                        && p.differentiable
                        && p.array
                            .is_some_and(|a| !a.matrix || matrix_referent(p).is_some())
                }
                _ => true,
            });
        if !plain {
            return TokenStream::new();
        }
        let mut params = Vec::new();
        let mut wrt = Vec::new();
        let mut args = Vec::new();
        // The matrices made from their shapes and values (`matrix_window`), before the call.
        let mut matrices = Vec::new();
        // A generic function's matrix shapes, each over a float type of its own (`__pair_float_0`): the
        // caller's field may hold another float than the values it passes (an `f32` struct's field,
        // its values `__S` at `order = K`), and the shape is all that is read of it.
        let mut shape_floats = Vec::new();
        for (i, (p, input)) in sig.params.iter().zip(&item.sig.inputs).enumerate() {
            let syn::FnArg::Typed(typed) = input else {
                return TokenStream::new();
            };
            let (u, v, ty) = (unit(i), value(i), &typed.ty);
            if let Some(referent) = matrix_referent(p) {
                // A matrix: its shape, a constant of its own type at every order, and its values
                // row-major, the field's part of the view.
                let float = float_of(referent, &generic);
                let shape = match generic.contains(&float) {
                    true => {
                        let own = format_ident!("__pair_float_{}", i, span = Span::call_site());
                        let shape = super::renamed(referent, &float, &syn::parse_quote!(#own));
                        shape_floats.push(own);
                        shape
                    }
                    false => with_float_paths(referent, &generic),
                };
                let matrix = format_ident!("__pair_matrix_{}", i, span = Span::call_site());
                params.push(quote!(#u: &<#shape as ::autodiff::__private::Itself>::Type));
                params.push(quote!(#v: &[#float]));
                matrices.push(quote! {
                    let #matrix = ::autodiff::__private::matrix_window(#u, &#v[..]);
                });
                if p.active {
                    wrt.push(v.clone());
                }
                args.push(quote!(&#matrix));
                continue;
            }
            params.push(quote!(#u: ()));
            params.push(quote!(#v: #ty));
            if p.active {
                wrt.push(v.clone());
            }
            args.push(quote!(#v));
        }
        let pairs = crate::naming::pairs_function(name);
        // The function by a name of its own, imported as `self::name`: by the bare name it would be
        // ambiguous where a glob import brings the same name (rustc's E0659 at the macro's import of it),
        // and by a path its generic copy would not be made (`shadow::why_no_copy`).
        let callee = format_ident!("{}_callee", pairs);
        let (vis, ret) = (&item.vis, &item.sig.output);
        let mut generics = item.sig.generics.clone();
        generics
            .params
            .extend(shape_floats.iter().map(|f| -> syn::GenericParam {
                syn::parse_quote!(#f: ::autodiff::__private::PrimalFloat)
            }));
        let delegable = !associated
            && generic.is_empty()
            && matrices.is_empty()
            && sig.outputs().next().is_none()
            && matches!(sig.ret_kind, Kind::Float(_) | Kind::Tuple(_) | Kind::Array);
        if let Some(items) = delegable
            .then(|| delegated(item, sig, &pairs, &callee))
            .flatten()
        {
            return items;
        }
        let (import, callee) = match associated {
            true => (TokenStream::new(), quote!(Self::#name)),
            false => (
                quote! {
                    #[doc(hidden)]
                    #[allow(unused_imports)]
                    use self::#name as #callee;
                },
                quote!(#callee),
            ),
        };
        quote! {
            #import
            #[::autodiff::differentiable(wrt(#(#wrt),*))]
            #[doc(hidden)]
            #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
            #[inline(always)]
            #vis fn #pairs #generics (#(#params),*) #ret {
                #(#matrices)*
                #callee(#(#args),*)
            }
        }
    }

    // Input:  fn dot(a: &[f64], b: &[f64]) -> f64
    // Output: fn __dot_pairs(__pair_unit_0: (), __pair_value_0: &[f64], __pair_unit_1: (), ..) -> f64 {
    //             __dot_pairs_callee(__pair_value_0, __pair_value_1)
    //         }
    //         struct __dot_pairs {}     // vjp, jvp, vjp_into, vjp_out, jvp_out: `dot`'s, a `()` slot per unit
    //         struct ____dot_pairs_generic {}   // call, ..: those of `dot`'s generic copy, over `__S`
    /// `__g_pairs` of a free function of floats, slices and arrays without type parameters, matrices or
    /// output parameters, returning a float (or a tuple or a fixed array of them), written out: the units carry no derivative, so its derivatives
    /// are `g`'s, and its companion type and generic copy pass each call on to `g`'s, the units' slots `()`.
    /// (Made as a `#[differentiable]` wrapper of `g` instead, it was a second expansion of every such
    /// function: about a fifth of the macro's time.) `None` where the signature holds both `f64` and `f32`
    /// (the generic copy's types are the written ones with the float made `__S`).
    fn delegated(
        item: &syn::ItemFn,
        sig: &Signature,
        pairs: &Ident,
        callee: &Ident,
    ) -> Option<TokenStream> {
        use crate::companion::IntoSlot;
        use quote::ToTokens;
        // The float type of what it returns (a float, or a tuple or an array of them), and no other.
        let returned = sig.ret_ty.to_token_stream();
        let (float, other) = match (
            crate::naming::names_any(returned.clone(), &["f64"]),
            crate::naming::names_any(returned, &["f32"]),
        ) {
            (true, false) => ("f64", "f32"),
            (false, true) => ("f32", "f64"),
            _ => return None,
        };
        let slots = crate::expand::companion_slots(sig);
        if slots.len() != item.sig.inputs.len()
            || slots
                .iter()
                .any(|s| crate::naming::names_any(s.ty.to_token_stream(), &[other]))
        {
            return None;
        }
        let scalar = Ident::new("__S", Span::call_site());
        let generic = |tokens: TokenStream| crate::shadow::replace_float(tokens, float, &scalar);
        let (units, values): (Vec<Ident>, Vec<Ident>) =
            (0..slots.len()).map(|i| (unit(i), value(i))).unzip();
        let after_units: Vec<Ident> = (0..slots.len())
            .map(|i| format_ident!("__after_unit_{}", i, span = Span::call_site()))
            .collect();
        let after_values: Vec<Ident> = (0..slots.len())
            .map(|i| format_ident!("__after_value_{}", i, span = Span::call_site()))
            .collect();
        let cotangents: Vec<Ident> = (0..slots.len())
            .map(|i| format_ident!("__cotangent_{}", i, span = Span::call_site()))
            .collect();
        // The types of one order: `f64` (or `f32`) as written, or `__S` in the generic copy.
        struct Types {
            params: Vec<TokenStream>,
            ret: TokenStream,
            cotangents: TokenStream,
            tangents: TokenStream,
            into: TokenStream,
            passed_on: TokenStream,
            out_tangents: TokenStream,
        }
        let types = |map: &dyn Fn(TokenStream) -> TokenStream| -> Types {
            let each = |f: &dyn Fn(&crate::companion::Slot) -> TokenStream| -> Vec<TokenStream> {
                slots.iter().map(|s| map(f(s))).collect()
            };
            let tangent =
                |s: &crate::companion::Slot| s.tangent_ty.clone().unwrap_or_else(|| quote!(()));
            let cotangent = |s: &crate::companion::Slot| match s.active {
                true => tangent(s),
                false => quote!(()),
            };
            let interleave = |list: Vec<TokenStream>, unit: TokenStream| -> TokenStream {
                let pairs = list.into_iter().map(|t| quote!(#unit, #t,));
                quote!((#(#pairs)*))
            };
            let tys = each(&|s| s.ty.to_token_stream());
            let params = units
                .iter()
                .zip(&values)
                .zip(&tys)
                .map(|((u, v), ty)| quote!(#u: (), #v: #ty,))
                .collect();
            let cotangents = each(&cotangent);
            let passed_on = cotangents.iter().map(|c| {
                quote!(impl ::autodiff::__private::PassOn<()>, impl ::autodiff::__private::PassOn<#c>,)
            });
            let passed_on = quote!((#(#passed_on)*));
            // `vjp_out`'s tangent of a fixed array is the `Vec` a caller gives an output's slot
            // (`companion::passed_on`).
            let out_tangents = each(&|s| match (&s.into, crate::companion::is_fixed(&s.ty)) {
                (IntoSlot::Array { elem, .. }, true) => quote!(::std::vec::Vec<#elem>),
                _ => tangent(s),
            });
            Types {
                params,
                ret: map(sig.ret_ty.to_token_stream()),
                cotangents: interleave(cotangents, quote!(())),
                tangents: interleave(each(&tangent), quote!(())),
                into: interleave(each(&|s| s.into.ty()), quote!(())),
                passed_on,
                out_tangents: interleave(out_tangents, quote!(())),
            }
        };
        // Each method of the companion type, passing the values on to `on` (`g`'s companion, or its copy).
        let methods = |t: &Types, on: &TokenStream, generics: &TokenStream| -> TokenStream {
            let Types {
                params,
                ret,
                cotangents: cotangent_tys,
                tangents,
                into,
                passed_on,
                out_tangents,
            } = t;
            let d_after_units = after_units.iter().zip(&after_values);
            let d_after_pattern = d_after_units.map(|(u, v)| quote!(#u, #v,));
            let d_after_ignored = after_values.iter().map(|v| quote!(_, #v,));
            let sized = values
                .iter()
                .map(|_| quote!(impl ::core::marker::Sized, impl ::core::marker::Sized,));
            let cotangent_pattern = quote!((#(#cotangents,)*));
            let returned = cotangents.iter().map(|c| quote!((), #c,));
            let passed_units = after_units
                .iter()
                .zip(&cotangents)
                .map(|(a, c)| quote!(::autodiff::__private::PassOn::pass_on(#a, ()), #c,));
            // `(_, __tangent_0, _, __tangent_1,)`: the values' slots of a tuple of pairs.
            let taken = |names: &[Ident]| -> TokenStream {
                let each = names.iter().map(|n| quote!(_, #n,));
                quote!((#(#each)*))
            };
            let tangent_names: Vec<Ident> = (0..slots.len())
                .map(|i| format_ident!("__tangent_{}", i, span = Span::call_site()))
                .collect();
            let slot_names: Vec<Ident> = (0..slots.len())
                .map(|i| format_ident!("__slot_{}", i, span = Span::call_site()))
                .collect();
            let (tangent_pattern, slot_pattern) = (taken(&tangent_names), taken(&slot_names));
            quote! {
                #[inline]
                #[allow(clippy::unused_unit, clippy::let_unit_value)]
                pub fn vjp #generics (self, #(#params)* d_ret: #ret) -> (#ret, #cotangent_tys) {
                    let (value, #cotangent_pattern) = #on.vjp(#(#values,)* d_ret);
                    (value, (#(#returned)*))
                }
                #[inline]
                pub fn jvp #generics (self, #(#params)* tangents: #tangents) -> (#ret, #ret) {
                    let #tangent_pattern = tangents;
                    #on.jvp(#(#values,)* (#(#tangent_names,)*))
                }
                #[inline(always)]
                #[allow(clippy::unused_unit, clippy::let_unit_value)]
                pub fn vjp_into #generics (self, #(#params)* d_ret: #ret, grads: #into) -> #ret {
                    let #slot_pattern = grads;
                    #on.vjp_into(#(#values,)* d_ret, (#(#slot_names,)*))
                }
                #[inline]
                #[allow(clippy::unused_unit, clippy::let_unit_value)]
                pub fn vjp_out #generics (
                    self, #(#params)* d_ret: ::core::option::Option<#ret>, d_after: #passed_on,
                ) -> (#ret, #cotangent_tys) {
                    let (#(#d_after_pattern)*) = d_after;
                    let (value, #cotangent_pattern) =
                        #on.vjp_out(#(#values,)* d_ret, (#(#after_values,)*));
                    (value, (#(#passed_units)*))
                }
                #[inline]
                pub fn jvp_out #generics (
                    self, #(#params)* tangents: #out_tangents,
                    d_after: (#(#sized)*),
                ) -> (#ret, #ret) {
                    let (#(#d_after_ignored)*) = d_after;
                    let #tangent_pattern = tangents;
                    #on.jvp_out(#(#values,)* (#(#tangent_names,)*), (#(#after_values,)*))
                }
            }
        };
        let written = types(&|t| t);
        let copied = types(&|t| generic(t));
        let copy = crate::naming::generic_copy(pairs);
        let vis = &item.vis;
        let name = &item.sig.ident;
        let (params, ret) = (&written.params, &written.ret);
        let (copy_params, copy_ret) = (&copied.params, &copied.ret);
        let over = quote!(<__S: ::autodiff::__private::Float>);
        let own = methods(&written, &quote!(#callee {}), &TokenStream::new());
        let of_copy = methods(
            &copied,
            &quote!(<#callee as ::autodiff::__private::GenericCopy>::copy()),
            &over,
        );
        let through = values.iter().enumerate().map(|(i, _)| {
            quote! {
                true,
                {
                    #[allow(unused_imports)]
                    use ::autodiff::__private::Through as _;
                    ::autodiff::__private::through(#callee::__AUTODIFF_THROUGH, #i)
                },
            }
        });
        Some(quote! {
            #[doc(hidden)]
            #[allow(unused_imports)]
            use self::#name as #callee;

            #[doc(hidden)]
            #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
            #[inline(always)]
            #vis fn #pairs(#(#params)*) -> #ret {
                #callee(#(#values),*)
            }

            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #pairs {}
            impl ::autodiff::__private::GenericCopy for #pairs {
                type Copy = #copy;
                #[inline(always)]
                fn copy() -> #copy { #copy {} }
            }
            impl ::autodiff::__private::HasGenericCopy for #pairs {}
            #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
            impl #pairs {
                pub const __AUTODIFF_THROUGH: &'static [bool] = &[#(#through)*];
                #own
            }

            #[doc(hidden)]
            #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
            #[inline(always)]
            #vis fn #copy #over (#(#copy_params)*) -> #copy_ret {
                <#callee as ::autodiff::__private::GenericCopy>::Copy::call(#(#values),*)
            }

            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #copy {}
            impl ::autodiff::__private::GenericCopy for #copy {
                type Copy = #copy;
                #[inline(always)]
                fn copy() -> #copy { #copy {} }
            }
            impl ::autodiff::__private::HasGenericCopy for #copy {}
            #[allow(dead_code, unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]
            impl #copy {
                #[inline]
                pub fn call #over (#(#copy_params)*) -> #copy_ret {
                    <#callee as ::autodiff::__private::GenericCopy>::Copy::call(#(#values),*)
                }
                #[inline(always)]
                pub fn call_on #over (self, #(#copy_params)*) -> #copy_ret {
                    <#callee as ::autodiff::__private::GenericCopy>::Copy::call(#(#values),*)
                }
                #of_copy
            }
        })
    }

    /// `__g_pairs` of a free function of parameter structs, beside its `__g_whole` (made at `order = K`
    /// or at first order with its generic copy), returning `f64`, or `()` with its results in output
    /// parameters (each passed as the pair `()` and the buffer, as any other value).
    pub(crate) fn of_structs(s: &crate::struct_higher::StructFunction) -> TokenStream {
        let item = s.item;
        // A method's (`self.scaled(&self.w, x)`), beside it in its `impl`, calls `Self::__g_whole`.
        let method = crate::expand::is_method(item);
        let view = super::ViewFloat::of(s);
        let mut params = Vec::new();
        let mut wrt = Vec::new();
        let mut args = Vec::new();
        for (i, p) in s.sig.params.iter().enumerate() {
            if let Kind::Struct(ty) = &p.kind {
                let (primal, values) = super::pair(&p.ident.to_string());
                let ty = view.primal_type(ty);
                params.push(quote!(#primal: &<#ty as ::autodiff::__private::Itself>::Type));
                params.push(quote!(#values: &[#view]));
                if p.active {
                    wrt.push(values.clone());
                }
                args.push(primal);
                args.push(values);
                continue;
            }
            let syn::FnArg::Typed(typed) = &item.sig.inputs[i] else {
                return TokenStream::new();
            };
            let (u, v, ty) = (unit(i), value(i), &typed.ty);
            params.push(quote!(#u: ()));
            params.push(quote!(#v: #ty));
            if p.active {
                wrt.push(v.clone());
            }
            args.push(v);
        }
        let (whole, pairs) = (
            crate::naming::whole_function(&item.sig.ident),
            crate::naming::pairs_function(&item.sig.ident),
        );
        let (vis, ret) = (&item.vis, &s.sig.ret_ty);
        let whole = match method {
            true => quote!(Self::#whole),
            false => quote!(#whole),
        };
        let generics = view.generics(&item.sig.generics);
        let where_clause = &generics.where_clause;
        quote! {
            #[::autodiff::differentiable(wrt(#(#wrt),*), __struct_whole)]
            #[doc(hidden)]
            #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
            #[inline(always)]
            #vis fn #pairs #generics (#(#params),*) -> #ret #where_clause {
                #whole(#(#args),*)
            }
        }
    }
}

/// Does a call in `block` name `float` in its path (`Weights::<T>::dot(g, x)`, `T::from(..)` aside)?
fn calls_name(block: &syn::Block, float: &Ident) -> bool {
    struct Names<'a>(&'a Ident, bool);
    impl<'ast> syn::visit::Visit<'ast> for Names<'_> {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let Expr::Path(p) = &*call.func {
                // (`T::from(..)`, `T::zero()`: the float type's own functions.)
                let own = p.path.segments.len() == 2 && p.path.segments[0].ident == *self.0;
                let name = self.0.to_string();
                self.1 |= !own && crate::naming::names_any(p.to_token_stream(), &[name.as_str()]);
            }
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut names = Names(float, false);
    syn::visit::Visit::visit_block(&mut names, block);
    names.1
}

/// Does `block` pass `name` (`name` or `&name`) as an argument of a call (`grid(&__g_m, x)`)?
fn passed_to_a_call(block: &syn::Block, name: &str) -> bool {
    struct Passed<'a>(&'a str, bool);
    impl<'ast> syn::visit::Visit<'ast> for Passed<'_> {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            self.1 |= call.args.iter().any(|a| names(a, self.0));
            syn::visit::visit_expr_call(self, call);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut passed = Passed(name, false);
    syn::visit::Visit::visit_block(&mut passed, block);
    passed.1
}

/// Is `arg` `name` or `&name` (in parentheses or not)?
fn names(arg: &Expr, name: &str) -> bool {
    match arg {
        Expr::Paren(p) => names(&p.expr, name),
        Expr::Reference(r) if r.mutability.is_none() => names(&r.expr, name),
        Expr::Path(p) => p.qself.is_none() && p.path.is_ident(name),
        _ => false,
    }
}

/// A matrix field as the hidden function reads it: the field's input in the body (`__p_w`), the values
/// view that holds it, where its part of the view starts, and the field itself (its shape).
struct MatrixField {
    input: String,
    values: Ident,
    start: Ident,
    shape: Ident,
}

// Input:  __p_w[h][j] * x[j]      for v in __p_w[h].iter() { .. }      __p_w.len()
// Output: __p_values[__p_w_start + matrix_at(&__p_w_shape, h, j)] * x[j]
//         for v in __p_values[(__p_w_start + matrix_row_start(&__p_w_shape, h))
//             ..(__p_w_start + matrix_row_end(&__p_w_shape, h))].iter() { .. }
//         matrix_rows(&__p_w_shape)
//         (__p_w_shape = matrix_shape(field_ref(..)), taken once per call: O(1) per read)
/// Rewrites each read of a matrix field (indexed twice, `p.w[i][j]`) into a read of the struct's values
/// view at the element's place (`__private::matrix_at`), each row read (`p.w[i]`, then borrowed, iterated
/// or asked its length) into the row's window of the view, and `p.w.len()` into the number of rows; keeps
/// the first other use of the field, an error.
struct MatrixFields<'a> {
    fields: &'a [MatrixField],
    left: Option<TokenStream>,
}

impl<'a> MatrixFields<'a> {
    /// The matrix field `expr` names, if it names one.
    fn field(&self, expr: &Expr) -> Option<&'a MatrixField> {
        let fields: &'a [MatrixField] = self.fields;
        let mut expr = expr;
        while let Expr::Paren(p) = expr {
            expr = &p.expr;
        }
        let Expr::Path(p) = expr else {
            return None;
        };
        let ident = p.path.get_ident()?.to_string();
        fields.iter().find(|f| f.input == ident)
    }
}

impl VisitMut for MatrixFields<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // A matrix field passed on whole to a call (`grid(&__g_m, x)`) stays as it is: `WholeCalls` passes
        // its pair (its shape and its part of the view) to the callee's `__g_pairs`.
        if let Expr::Call(call) = expr {
            self.visit_expr_mut(&mut call.func);
            for arg in call.args.iter_mut() {
                if !self.fields.iter().any(|f| names(arg, &f.input)) {
                    self.visit_expr_mut(arg);
                }
            }
            return;
        }
        if let Expr::Macro(m) = expr {
            if m.mac.path.is_ident("vec") {
                crate::chains::rewrite_vec_args(&mut m.mac, |arg| self.visit_expr_mut(arg));
                return;
            }
        }
        if let Expr::Index(outer) = expr {
            let mut inner = &mut *outer.expr;
            while let Expr::Paren(p) = inner {
                inner = &mut *p.expr;
            }
            if let Expr::Index(row) = inner {
                if let Some(f) = self.field(&row.expr) {
                    let (values, start, shape) = (&f.values, &f.start, &f.shape);
                    let (mut i, mut j) = ((*row.index).clone(), (*outer.index).clone());
                    self.visit_expr_mut(&mut i);
                    self.visit_expr_mut(&mut j);
                    *expr = syn::parse_quote!(
                        #values[#start + ::autodiff::__private::matrix_at(&#shape, #i, #j)]
                    );
                    return;
                }
            }
            if let Some(f) = self.field(&outer.expr) {
                if matches!(&*outer.index, Expr::Range(_)) {
                    self.left.get_or_insert_with(|| outer.to_token_stream());
                    return;
                }
                let (values, start, shape) = (&f.values, &f.start, &f.shape);
                let mut i = (*outer.index).clone();
                self.visit_expr_mut(&mut i);
                *expr = syn::parse_quote!(
                    #values[(#start + ::autodiff::__private::matrix_row_start(&#shape, #i))
                        ..(#start + ::autodiff::__private::matrix_row_end(&#shape, #i))]
                );
                return;
            }
        }
        if let Expr::MethodCall(m) = expr {
            if m.method == "len" && m.args.is_empty() {
                if let Some(f) = self.field(&m.receiver) {
                    let shape = &f.shape;
                    *expr = syn::parse_quote!(::autodiff::__private::matrix_rows(&#shape));
                    return;
                }
            }
        }
        if self.field(expr).is_some() {
            self.left.get_or_insert_with(|| expr.to_token_stream());
            return;
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// For the field at `path` of the struct `primal` (of type `ty`): the struct that holds its last step (`primal`,
/// or `field_ref::<Outer, KEY_inner>(primal)` for `inner.a`), that struct's type, where that struct's part
/// of the view of `primal` starts (`field_start::<Outer, KEY_inner>(primal) +`, nothing for a field of
/// `primal` itself: a nested struct's view is a contiguous part of its parent's), and the last step's key.
fn owner(
    ty: &TokenStream,
    primal: &Ident,
    path: &[Ident],
) -> (TokenStream, TokenStream, TokenStream, syn::LitInt) {
    let (mut owner, mut owner_ty, mut offset) = (quote!(#primal), ty.clone(), TokenStream::new());
    let key = |field: &Ident| crate::naming::field_key(&field.to_string());
    // (A field input's path has one field or more: `structs::field_path`.)
    let (last, steps) = path
        .split_last()
        .map_or((None, path), |(l, s)| (Some(l), s));
    for field in steps {
        let key = key(field);
        offset = quote!(#offset ::autodiff::__private::field_start::<#owner_ty, #key>(#owner) +);
        owner = quote!(::autodiff::__private::field_ref::<#owner_ty, #key>(#owner));
        owner_ty = crate::structs::field_type(&owner_ty, std::slice::from_ref(field));
    }
    let last = last.map_or_else(|| crate::naming::field_key(""), key);
    (owner, owner_ty, offset, last)
}

/// Rewrites each call that passes a struct on whole (`g(p, x)`, `Self::g(self, x)`, `g(&__p_inner)`) into a
/// call of the callee's `__g_whole` with the struct's pair (`__g_whole(__p_primal, __p_values, x)`); keeps the
/// first use of a struct other than as an argument, an error.
struct WholeCalls<'a> {
    wholes: &'a [(String, (Ident, Ident))],
    /// The fields among `wholes`, which may hold floats: a call passing one calls `__g_pairs`.
    field_wholes: &'a [String],
    /// The array fields, bound to references in the field's shape: passed on as they are (`use_k(__p_k,
    /// x)` of `use_k(&p.k, x)`, which was a `&&[f64; 3]`).
    array_fields: &'a [String],
    /// The function's matrix parameters: one passed beside a field passed on whole is an error
    /// (`matrix_beside`), since the callee's `__g_pairs` takes a matrix as its shape and its values.
    matrix_params: &'a [String],
    left: Option<TokenStream>,
    matrix_beside: Option<TokenStream>,
}

impl WholeCalls<'_> {
    /// The pair of the struct that `arg` passes on whole (`p`, `&p`, `(&p)`), if it passes one.
    fn whole_arg(&self, arg: &Expr) -> Option<&(Ident, Ident)> {
        let mut arg = arg;
        loop {
            match arg {
                Expr::Paren(p) => arg = &p.expr,
                Expr::Reference(r) if r.mutability.is_none() => arg = &r.expr,
                _ => break,
            }
        }
        let Expr::Path(p) = arg else {
            return None;
        };
        let ident = p.path.get_ident()?.to_string();
        self.wholes
            .iter()
            .find(|(name, _)| *name == ident)
            .map(|(_, pair)| pair)
    }
}

impl WholeCalls<'_> {
    /// Does `arg` pass a field on whole (`&__p_w`)?
    fn field_whole_arg(&self, arg: &Expr) -> bool {
        let mut arg = arg;
        loop {
            match arg {
                Expr::Paren(p) => arg = &p.expr,
                Expr::Reference(r) if r.mutability.is_none() => arg = &r.expr,
                _ => break,
            }
        }
        let Expr::Path(p) = arg else {
            return false;
        };
        p.path
            .get_ident()
            .is_some_and(|i| self.field_wholes.contains(&i.to_string()))
    }
}

impl WholeCalls<'_> {
    /// Each struct passed on whole to a call in `expr` passed as itself (`__a_primal`), the callee as
    /// written: `expr` is an integer (a range's bound).
    fn with_primals(&mut self, expr: &mut Expr) {
        if let Expr::Call(call) = expr {
            for arg in call.args.iter_mut() {
                let field = self.field_wholes.iter().any(|f| names(arg, f.as_str()));
                if let (false, Some((primal, _))) = (field, self.whole_arg(arg)) {
                    *arg = syn::parse_quote!(#primal);
                }
            }
        }
        self.visit_expr_mut(expr);
    }
}

impl VisitMut for WholeCalls<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Call(call) = expr {
            for arg in call.args.iter_mut() {
                if let Expr::Reference(r) = arg {
                    let named = match (&r.mutability, &*r.expr) {
                        (None, Expr::Path(p)) => p.path.get_ident().map(ToString::to_string),
                        _ => None,
                    };
                    if named.is_some_and(|n| self.array_fields.contains(&n)) {
                        *arg = (*r.expr).clone();
                    }
                }
            }
            if let Expr::Path(callee) = &mut *call.func {
                // A field passed on whole may hold floats, for which the callee (a function of slices)
                // has no `__g_whole`: every callee has `__g_pairs`, every argument a pair.
                let pairs = call.args.iter().any(|a| self.field_whole_arg(a));
                if call.args.iter().any(|a| self.whole_arg(a).is_some()) {
                    let mut args = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::new();
                    for arg in std::mem::take(&mut call.args) {
                        match self.whole_arg(&arg) {
                            Some((primal, values)) => {
                                args.push(syn::parse_quote!(#primal));
                                args.push(syn::parse_quote!(#values));
                            }
                            None if pairs => {
                                if self.matrix_params.iter().any(|m| names(&arg, m)) {
                                    self.matrix_beside
                                        .get_or_insert_with(|| arg.to_token_stream());
                                }
                                args.push(syn::parse_quote!(()));
                                args.push(arg);
                            }
                            None => args.push(arg),
                        }
                    }
                    call.args = args;
                    if let Some(last) = callee.path.segments.last_mut() {
                        last.ident = match pairs {
                            true => crate::naming::pairs_function(&last.ident),
                            false => crate::naming::whole_function(&last.ident),
                        };
                    }
                }
            }
        }
        // Input:  0..Spring::count(a)        (`0..a.count()`, `method_paths.rs`)
        // Output: 0..Spring::count(__a_primal)
        // A call in a range's bound gives an integer, which carries no derivative: a plain call of the
        // callee as written, with the struct itself (as at first order, where such a call is plain).
        if let Expr::Range(range) = expr {
            for bound in [&mut range.start, &mut range.end].into_iter().flatten() {
                self.with_primals(bound);
            }
            return;
        }
        // Input:  0..a.count()            (of a constant struct, left as written by `method_paths.rs`)
        // Output: 0..__a_primal.count()   (the struct itself: a plain call, as at first order)
        if let Expr::MethodCall(m) = expr {
            let field = self
                .field_wholes
                .iter()
                .any(|f| names(&m.receiver, f.as_str()));
            if let (true, false, Some((primal, _))) =
                (m.args.is_empty(), field, self.whole_arg(&m.receiver))
            {
                *m.receiver = syn::parse_quote!(#primal);
                return;
            }
        }
        if let Expr::Path(p) = expr {
            let named = p.path.get_ident().map(|i| i.to_string());
            if named.is_some_and(|n| self.wholes.iter().any(|(w, _)| *w == n)) {
                self.left.get_or_insert_with(|| p.to_token_stream());
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    // Input:  let k = __j_k;           (`let k = j.k;` of a `[f64; N]` field passed on only from `k`)
    // Output: let k = *__j_k_values;   (a copy of the field's window, `&[T; N]`)
    /// A field passed on whole copied to a local (`let k = j.k;`, which the primal allows only for a
    /// field of a `Copy` type, an array of floats): a copy of its window of the view, an array the body
    /// passes on or reads as it would the field (it was the field itself, the error below).
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        if let Some(init) = &mut local.init {
            let field = match &*init.expr {
                Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
                _ => None,
            };
            let values = field
                .filter(|f| self.field_wholes.contains(f))
                .and_then(|f| self.wholes.iter().find(|(w, _)| *w == f))
                .map(|(_, (_, values))| values.clone());
            if let (Some(values), None) = (values, &init.diverge) {
                *init.expr = syn::parse_quote!(*#values);
                return;
            }
        }
        syn::visit_mut::visit_local_mut(self, local);
    }

    // Items nested in the body cannot see the function's parameters.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

// Input:  let mut w = __self_w;           (`self.w`, a `[f64; N]` field, bound to a sub-slice of the view)
// Output: let mut w = __self_w.to_vec();  (also for `let mut w: [f64; N] = __self_w;`)
/// A field that is a fixed-size array, bound by `let` to a local (`let mut w = self.w;`, a copy in the
/// user's code, since an array field cannot be moved out of `&self`): a copy of its sub-slice of the values
/// view, which the body may write (it was the sub-slice itself, which it cannot: rustc E0594 in the
/// hidden function of `order = K`).
pub(crate) struct CopiedFields<'a>(pub(crate) &'a [String]);

impl VisitMut for CopiedFields<'_> {
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        if let Some(init) = &mut local.init {
            let field = match &*init.expr {
                Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
                _ => None,
            };
            if field.is_some_and(|f| self.0.contains(&f)) {
                let expr = &init.expr;
                *init.expr = syn::parse_quote!(#expr.to_vec());
                // A declared `[f64; N]` (`let mut w: [f64; 2] = self.w;`) is a `Vec` here too: the body,
                // which is differentiated again, reads and writes it by index alike.
                if let syn::Pat::Type(typed) = &local.pat {
                    local.pat = (*typed.pat).clone();
                }
            }
        }
        syn::visit_mut::visit_local_mut(self, local);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// How `f_hvp` and `f_derivatives` take the values view of the struct `p`: `values`, or `constant_values`
/// for a constant one, whose error without the derive says why a struct outside `wrt(..)` needs it.
fn values_of(p: &crate::signature::Param, view: &ViewFloat) -> TokenStream {
    match p.active {
        true => view.helper("values"),
        false => view.helper("constant_values"),
    }
}

/// `f_derivatives(<params>) -> [f64; K + 1]` for a function whose one active input is a float (its structs
/// constant, passed on whole): `__f_whole_derivatives` on the structs' values views.
fn derivatives(s: &StructFunction, order: &syn::LitInt) -> TokenStream {
    let Some(k) = crate::struct_higher::derivatives_order(s, order) else {
        return TokenStream::new();
    };
    let len = k + 1;
    let name = crate::signature::derived_name(s.item, "derivatives");
    let view = ViewFloat::of(s);
    let signature = s
        .sig
        .generated(s.bounded, &name, None, quote!([#view; #len]));
    let (mut views, mut args) = (Vec::new(), Vec::new());
    for (i, p) in s.sig.params.iter().enumerate() {
        let ident = &p.ident;
        if !matches!(p.kind, Kind::Struct(_)) {
            args.push(quote!(#ident));
            continue;
        }
        let reference = match &p.ty {
            syn::Type::Reference(_) => quote!(#ident),
            _ => quote!(&#ident),
        };
        let values = format_ident!("__values_{}", i, span = Span::mixed_site());
        let read = values_of(p, &view);
        views.push(quote!(let #values = #read(#reference);));
        args.push(reference);
        args.push(quote!(&#values));
    }
    let callee = format_ident!(
        "{}_derivatives",
        crate::naming::whole_function(&s.item.sig.ident)
    );
    let owner = crate::expand::is_method(s.item).then(|| quote!(Self::));
    let doc = format!(
        " `[f, f', .., f^({k})]` of `{}` at its active input: `{callee}` on the structs' values views.",
        s.item.sig.ident
    );
    quote! {
        #[doc = #doc]
        #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        #signature {
            #(#views)*
            #owner #callee(#(#args),*)
        }
    }
}

/// `f_hvp(<params>, v: G) -> (f64, G, G)` through `__f_whole_hvp`: each struct as itself and its values
/// view, its direction as the view of the direction; gradient and product gathered from the views.
fn hvp(s: &StructFunction) -> TokenStream {
    let v = crate::naming::local("v");
    let gradient_ty = s.sig.gradient_type();
    let name = crate::signature::derived_name(s.item, "hvp");
    let float = ViewFloat::of(s);
    let signature = s.sig.generated(
        s.bounded,
        &name,
        Some(quote!(#v: #gradient_ty)),
        quote!((#float, #gradient_ty, #gradient_ty)),
    );
    let direction = |i: usize| format_ident!("__direction_{}", i, span = Span::mixed_site());
    let values = |i: usize| format_ident!("__values_{}", i, span = Span::mixed_site());
    let direction_values =
        |i: usize| format_ident!("__direction_values_{}", i, span = Span::mixed_site());
    let active: Vec<usize> = (0..s.sig.params.len())
        .filter(|&i| s.sig.params[i].active)
        .collect();
    let directions = crate::emit::tuple_or_single(
        active
            .iter()
            .map(|&i| direction(i).into_token_stream())
            .collect(),
    );
    let mut views = Vec::new();
    let mut args = Vec::new();
    let mut inner_directions = Vec::new();
    let (gradient, product) = (
        Ident::new("__gradient", Span::mixed_site()),
        Ident::new("__product", Span::mixed_site()),
    );
    let slot =
        |parts: &Ident, k: usize| format_ident!("{}_{}", parts, k, span = Span::mixed_site());
    let (mut gradient_slots, mut product_slots) = (Vec::new(), Vec::new());
    let (mut gradients, mut products) = (Vec::new(), Vec::new());
    for (i, p) in s.sig.params.iter().enumerate() {
        let ident = &p.ident;
        let Kind::Struct(_) = &p.kind else {
            args.push(quote!(#ident));
            if p.active {
                let d = direction(i);
                inner_directions.push(quote!(#d));
                let k = gradient_slots.len();
                let (g, h) = (slot(&gradient, k), slot(&product, k));
                gradient_slots.push(quote!(#g));
                product_slots.push(quote!(#h));
                gradients.push(quote!(#g));
                products.push(quote!(#h));
            }
            continue;
        };
        // Every struct as a reference (`self`, `p: &Mlp`, or `&s` for `s: Spring`).
        let reference = match &p.ty {
            syn::Type::Reference(_) => quote!(#ident),
            _ => quote!(&#ident),
        };
        let (view, d, dv) = (values(i), direction(i), direction_values(i));
        let read = values_of(p, &float);
        views.push(quote!(let #view = #read(#reference);));
        args.push(quote!(#reference));
        args.push(quote!(&#view));
        if !p.active {
            // A constant struct (`wrt(..)` leaves it out): its view, without direction or derivatives.
            continue;
        }
        let tangent_values = float.helper("tangent_values");
        views.push(quote!(let #dv = #tangent_values(#reference, &#d);));
        inner_directions.push(quote!(#dv));
        let k = gradient_slots.len();
        let (g, h) = (slot(&gradient, k), slot(&product, k));
        gradient_slots.push(quote!(#g));
        product_slots.push(quote!(#h));
        let from_values = float.helper("from_values");
        gradients.push(quote!(#from_values(#reference, &#g)));
        products.push(quote!(#from_values(#reference, &#h)));
    }
    let inner_directions = crate::emit::tuple_or_single(inner_directions);
    let (gradient_slots, product_slots) = (
        crate::emit::tuple_or_single(gradient_slots),
        crate::emit::tuple_or_single(product_slots),
    );
    let (gradients, products) = (
        crate::emit::tuple_or_single(gradients),
        crate::emit::tuple_or_single(products),
    );
    let callee = format_ident!("{}_hvp", crate::naming::whole_function(&s.item.sig.ident));
    let owner = crate::expand::is_method(s.item).then(|| quote!(Self::));
    let value = Ident::new("__value", Span::mixed_site());
    let doc = format!(
        " The value, gradient and Hessian-vector product `H v` of `{}`: `{callee}` (forward over reverse) on \
         the structs' values views, gathered back into structs.",
        s.item.sig.ident
    );
    quote! {
        #[doc = #doc]
        #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        #signature {
            let #directions = #v;
            #(#views)*
            let (#value, #gradient, #product) = #owner #callee(#(#args,)* #inner_directions);
            let #gradient_slots = #gradient;
            let #product_slots = #product;
            (#value, #gradients, #products)
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn expanded(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> String {
        crate::expand::differentiable(attr, item).to_string()
    }

    #[test]
    fn the_generic_copy_of_a_first_order_function_keeping_its_struct_constant_is_a_compile_error() {
        // An `order = K` caller keeping the struct constant too reaches it (`first(p, x)`): a compile error
        // once instantiated (under `cargo build`, not `cargo check`), where it panicked at run time.
        for (item, copy) in [
            (
                quote!(
                    fn first(p: &Cfg, x: &[f64]) -> f64 {
                        p.b * x[0]
                    }
                ),
                "struct ____first_whole_generic",
            ),
            (
                quote!(
                    fn first(&self, x: &[f64]) -> f64 {
                        self.b * x[0]
                    }
                ),
                "fn ____first_whole_generic",
            ),
        ] {
            let text = expanded(quote!(wrt(x)), item);
            let (_, generic) = text.split_once(copy).expect("the stand-ins' generic copy");
            assert!(
                generic.contains("no_generic_copy :: < __NoCopy , __S , () >"),
                "{generic}"
            );
            assert!(
                generic.contains("`first` has no generic copy over its parameter structs"),
                "{generic}"
            );
            assert!(
                !generic.contains("unreachable ! (\"`first` keeps"),
                "{generic}"
            );
        }
    }

    #[test]
    fn a_field_read_only_converted_to_a_float_is_read_from_the_view_where_it_is_there() {
        let text = expanded(
            quote!(order = 2),
            quote! {
                fn f(p: &Model, x: f64) -> f64 {
                    (p.a as f64) * x + p.b * (p.n as f64) + p.w[p.k as usize]
                }
            },
        );
        assert!(!text.contains("compile_error"), "{text}");
        // `a` and `n` (a float or an integer field, which the syntax does not tell apart): from the view
        // where the field is there, else from the struct, converted as the body converts them.
        for field in ["__p_a", "__p_n"] {
            assert!(
                text.contains(&format!(
                    "let {field} = if :: autodiff :: __private :: field_in_view :: < Model ,"
                )),
                "{field} in {text}"
            );
        }
        assert!(
            text.contains("__p_values [:: autodiff :: __private :: field_slot :: < Model ,"),
            "{text}"
        );
        // `k`, cast to an index too, is an integer: from the struct alone.
        assert!(
            text.contains("let __p_k = :: autodiff :: __private :: field_value :: < Model ,"),
            "{text}"
        );
        assert!(text.contains("let __p_b = __p_values ["), "{text}");
    }

    #[test]
    fn a_constant_struct_passed_on_whole_is_passed_with_its_view_undifferentiated() {
        let text = expanded(
            quote!(wrt(x), order = 3),
            quote! {
                fn f(p: &Model, x: f64) -> f64 {
                    g(p, x) * p.b
                }
            },
        );
        assert!(!text.contains("compile_error"), "{text}");
        // The view is a parameter of the hidden function, outside its `wrt(..)`.
        assert!(text.contains("wrt (x) , __struct_whole"), "{text}");
        assert!(
            text.contains("__g_whole (__p_primal , __p_values , x)"),
            "{text}"
        );
        // `f_hvp` passes the struct's view without a direction; one scalar input: `f_derivatives`.
        assert!(!text.contains("tangent_values"), "{text}");
        for item in [
            "fn __f_whole",
            "fn f_hvp",
            "fn f_hessian",
            "fn f_derivatives",
        ] {
            assert!(text.contains(item), "{item} in {text}");
        }
        assert!(
            text.contains("__f_whole_derivatives (p , & __values_0 , x)"),
            "{text}"
        );
        // So for a field passed on whole.
        let field = expanded(
            quote!(wrt(x), order = 2),
            quote! {
                fn f(p: &Model, x: f64) -> f64 {
                    h(&p.w, x)
                }
            },
        );
        assert!(field.contains("wrt (x) , __struct_whole"), "{field}");
    }

    #[test]
    fn a_constant_struct_only_read_by_its_fields_keeps_them_as_values() {
        // No derive needed: the fields' hidden function, and `__f_whole` forwarding to it, binding the
        // fields from the struct, with its generic copy (`constant_whole.rs`), which a caller passing the
        // struct on whole at `order = K` calls.
        let text = expanded(
            quote!(wrt(x), order = 2),
            quote! {
                fn f(p: &Model, x: f64) -> f64 {
                    p.b * x * x
                }
            },
        );
        assert!(!text.contains("compile_error"), "{text}");
        assert!(text.contains("fn __f_fields"), "{text}");
        assert!(text.contains("struct __f_whole"), "{text}");
        assert!(
            text.contains("impl :: autodiff :: __private :: HasGenericCopy for __f_whole"),
            "{text}"
        );
        assert!(
            text.contains("let __p_b = p . b ; __f_fields { } . vjp_into (__p_b , x , d_ret"),
            "{text}"
        );
        assert!(!text.contains("unreachable"), "{text}");
        // A method's constant `self` passed on keeps the fields' way (its calls reach the callees'
        // generic copies in the `impl`), with `__f_whole` forwarding to it, taking `&self`.
        let method = expanded(
            quote!(wrt(x), order = 2),
            quote! {
                fn f(&self, x: f64) -> f64 {
                    self.g(x) * self.b
                }
            },
        );
        assert!(!method.contains("compile_error"), "{method}");
        assert!(method.contains("fn __f_fields"), "{method}");
        assert!(
            method.contains("fn __f_whole (& self , __self_values : & [f64] , x : f64) -> f64"),
            "{method}"
        );
        assert!(
            method.contains("Self :: ____f_fields_vjp_into (self , __self_b , x , d_ret"),
            "{method}"
        );
    }

    #[test]
    fn calls_that_pass_a_struct_on_whole_call_the_callees_whole_function() {
        let text = expanded(
            quote!(order = 2),
            quote! {
                fn f(p: &Model, x: f64) -> f64 {
                    g(p, x) * p.b + h(&p.layer, x) + p.w[p.n]
                }
            },
        );
        assert!(!text.contains("compile_error"), "{text}");
        assert!(text.contains("wrt (__p_values , x)"), "{text}");
        assert!(
            text.contains("__p_primal : & < Model as :: autodiff :: __private :: Itself > :: Type"),
            "{text}"
        );
        // The struct and its view; the field passed on whole (a nested struct or floats) and its part of
        // the view, every argument a pair.
        assert!(
            text.contains("__g_whole (__p_primal , __p_values , x)"),
            "{text}"
        );
        assert!(
            text.contains("__h_pairs (__p_layer_primal , __p_layer_values , () , x)"),
            "{text}"
        );
        assert!(text.contains("whole_primal :: < Model ,"), "{text}");
        // A scalar and an array from the view, an integer from the struct.
        assert!(text.contains("let __p_b = __p_values ["), "{text}");
        // An array in the field's shape (`&[f64; N]` of a `[f64; N]` field).
        assert!(
            text.contains("(& __p_values [__p_w_start .. __p_w_end])"),
            "{text}"
        );
        assert!(
            text.contains("let __p_w = :: autodiff :: __private :: field_window :: < Model ,"),
            "{text}"
        );
        assert!(
            text.contains("let __p_n = :: autodiff :: __private :: field_value :: < Model ,"),
            "{text}"
        );
        for item in ["fn __f_whole", "fn f_hvp", "fn f_hessian"] {
            assert!(text.contains(item), "{item} in {text}");
        }
    }

    #[test]
    fn methods_call_methods_through_self() {
        let text = expanded(
            quote!(order = 2, wrt(self)),
            quote! {
                fn energy(&self, x: f64) -> f64 {
                    self.other(x) * Self::helper(self.k)
                }
            },
        );
        assert!(!text.contains("compile_error"), "{text}");
        assert!(
            text.contains("Self :: __other_whole (__self_primal , __self_values , x)"),
            "{text}"
        );
        assert!(text.contains("Self :: helper (__self_k)"), "{text}");
        assert!(
            text.contains("Self :: __energy_whole_hvp (self , & __values_0"),
            "{text}"
        );
    }

    #[test]
    fn at_first_order_the_hidden_function_is_made_where_the_scalar_fields_are_surely_floats() {
        let first_order = |body: proc_macro2::TokenStream| {
            expanded(quote!(), quote!(fn f(p: &Model, x: f64) -> f64 { #body }))
        };
        let floats = first_order(quote!(p.b * x + p.w[0]));
        assert!(floats.contains("fn __f_whole"), "{floats}");
        assert!(floats.contains("__struct_whole"), "{floats}");
        // A flag read as a condition is taken in its declared type (`FieldType`), as an integer is.
        let flag = first_order(quote!(if p.flag { x } else { -x }));
        assert!(flag.contains("fn __f_whole"), "{flag}");
        assert!(!flag.contains("compile_error"), "{flag}");
        // `powi`'s exponent is an `i32`: taken in its declared type too (`activity.rs`).
        let exponent = first_order(quote!(x.powi(p.n) * p.b));
        assert!(exponent.contains("fn __f_whole"), "{exponent}");
        assert!(exponent.contains("__struct_whole"), "{exponent}");
        assert!(!exponent.contains("compile_error"), "{exponent}");
        // An argument of a call: maybe not a float, and the first order must not break. No hidden
        // function, but stand-ins without a generic copy, whose error an `order = K` caller meets.
        {
            let text = first_order(quote!(g(x, p.n) * p.b));
            assert!(!text.contains("__struct_whole"), "{text}");
            assert!(text.contains("fn __f_whole"), "{text}");
            assert!(
                text.contains("which may hold an integer or a float"),
                "{text}"
            );
            assert!(!text.contains("compile_error"), "{text}");
        }
    }

    #[test]
    fn the_view_is_of_the_function_s_own_float_type() {
        // `f32`: the view is `&[f32]`, taken by `values_in`.
        let f32_view = expanded(
            quote!(order = 2),
            quote!(
                fn f(p: &P, x: f32) -> f32 {
                    g(p, x) * p.b
                }
            ),
        );
        assert!(!f32_view.contains("compile_error"), "{f32_view}");
        assert!(f32_view.contains("__p_values : & [f32]"), "{f32_view}");
        assert!(
            f32_view.contains("values_in :: < f32 , _ > (p)"),
            "{f32_view}"
        );
        // At first order too, whose generic copy `order = K` callers reach.
        let first = expanded(
            quote!(),
            quote!(
                fn f(p: &P, x: f32) -> f32 {
                    p.b * x
                }
            ),
        );
        assert!(first.contains("__p_values : & [f32]"), "{first}");
        // A struct of the function's own float (`Outer<f64>`): named by its path, which the generic copy
        // keeps.
        let named = expanded(
            quote!(order = 2),
            quote!(
                fn h(o: &Outer<f64>, x: f64) -> f64 {
                    g(o, x) * x
                }
            ),
        );
        assert!(!named.contains("compile_error"), "{named}");
        assert!(
            named.contains(
                "< Outer < :: core :: primitive :: f64 > as :: autodiff :: __private :: Itself >"
            ),
            "{named}"
        );
        // Of another float, the fields' way's error.
        let other = expanded(
            quote!(order = 2),
            quote!(
                fn h(o: &Outer<f32>, x: f64) -> f64 {
                    g(o, x) * x
                }
            ),
        );
        assert!(other.contains("on whole to a call"), "{other}");
    }

    #[test]
    fn a_struct_used_other_than_as_an_argument_is_an_error() {
        let text = expanded(
            quote!(order = 2),
            quote! {
                fn f(p: &Mlp, x: f64) -> f64 {
                    let q = p;
                    g(q, x)
                }
            },
        );
        assert!(text.contains("only as an argument of a call"), "{text}");
    }
}
