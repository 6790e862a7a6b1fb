//! `order = K` on a function of a parameter struct (`structs.rs`).
//!
//! The body with each field read as an input of its own is a function of floats and slices: it is emitted
//! as a hidden function `__f_fields`, differentiated at `order = K` like any other. `f_hvp` spreads the
//! structs and their directions over the fields (a `#[no_grad]` field's direction is zero), calls
//! `__f_fields_hvp`, and gathers the gradient and the product back into structs, as `f_vjp` does;
//! `f_hessian` is `higher.rs`'s, one `f_hvp` per input of the structs' flat views (`to_flat`). A matrix
//! field (`p.w[i][j]`) is passed as its rows, `&[Vec<T>]` (`__private::vec_matrix_rows`). A function whose
//! differentiated structs have no float field read and that has no other differentiated input has no
//! hidden function: its `f_hvp` is the value and zero structs (`zero_hvp`).
//!
//! A function returning its own float type whose structs name no other float type, each differentiated or
//! passed on whole to a call, takes `struct_whole.rs`'s way instead (through the structs' values views),
//! which also lets it pass a struct on whole to a call; this one serves the others (structs of another
//! float type, constant structs only read by their fields, which need no derive, methods of generic
//! `impl`s, functions generic over `T` calling by a path naming `T`).
//!
//! ```text
//! fn mse(p: &Mlp, xs: &[f64]) -> f64 { .. p.w[i] .. p.b .. }
//! // hidden:  #[differentiable(order = 2, wrt(__p_w, __p_b))]
//! //          fn __mse_fields(xs: &[f64], __p_w: &[f64], __p_b: f64) -> f64 { .. __p_w[i] .. __p_b .. }
//! // mse_hvp(p, xs, v: Mlp) -> (f64, Mlp, Mlp): __mse_fields_hvp(xs, &p.w[..], p.b, (v.w.to_vec(), v.b))
//! ```

use crate::activity::Activity;
use crate::errors::Errors;
use crate::ir::{Function, Kind, Var};
use crate::signature::Signature;
use crate::structs::Flattened;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashSet;
use syn::visit_mut::VisitMut;
use syn::Ident;

/// What `struct_higher::items` reads: the function, its declared signature, its flattened form, and the
/// lowered flattened body with its activity (for the kinds of the fields).
pub(crate) struct StructFunction<'a> {
    pub(crate) item: &'a syn::ItemFn,
    /// `item` with the float type parameter of a generic `impl` declared (`expand::impl_float_params`).
    pub(crate) analysis_item: &'a syn::ItemFn,
    /// `item` with the bounds the generated items of a generic function of structs need (`T:
    /// Differentiable`), for `f_hvp`'s and `f_hessian`'s signatures.
    pub(crate) bounded: &'a syn::ItemFn,
    pub(crate) sig: &'a Signature,
    pub(crate) flat: &'a Flattened,
    /// `flat`'s body as written (a float output's `*e` kept, not `e[0]`), which the hidden functions take:
    /// their own expansion reads the outputs.
    pub(crate) written: &'a syn::Block,
    pub(crate) lowered: &'a Function,
    pub(crate) activity: &'a Activity,
}

/// The hidden function of the fields, `f_hvp` and `f_hessian`; errors where the function is outside
/// what this supports.
pub(crate) fn items(s: &StructFunction, order: &syn::LitInt, errors: &mut Errors) -> TokenStream {
    if crate::struct_whole::serves(s) {
        return crate::struct_whole::items(s, order, errors);
    }
    let before = errors.len();
    let method = crate::expand::is_method(s.item);
    // A scalar field of a differentiated struct read only converted to a float (`T::from(self.k).unwrap()`,
    // `self.a as f64`) is a float input of the hidden function, given converted (`call_args`): a float
    // field keeps its derivatives (read as a constant of its declared type, its Hessian was zeros), an
    // integer one has a zero tangent, and its `#[no_grad]` drops its adjoint.
    let floats: Vec<bool> = float_fields(s)
        .into_iter()
        .zip(converted_fields(s))
        .map(|(float, cast)| float || cast)
        .collect();
    // A method of an `impl` without float type parameters: its hidden function is an associated function
    // of the same `impl`, which names `Self` (a constant `__self_primal`), so that no companion type is
    // made for it, and which may name `Self` (`<Self as FieldType<KEY>>::Type`, `Self::helper(x)`).
    let in_impl =
        method && crate::signature::float_type_params(&s.analysis_item.sig.generics).is_empty();
    // In a generic `impl`, one that calls associated functions (`Self::helper(x)`) or reads an integer
    // field is an associated function too, over a float type `__T` of its own (the `impl`'s renamed).
    let renamed = (method && !in_impl)
        .then(|| generic_impl_float(s, &floats))
        .flatten();
    // A method of a generic `impl` whose hidden function of the fields cannot be made (its body calls
    // other methods, names `Self`, reads an integer field or passes `self` on whole): its own `f_grad` run on
    // the struct over dual numbers (`higher::mapped_items`).
    if let Some(items) = mapped(s, &floats, order, in_impl, renamed.as_ref()) {
        return items;
    }
    if method && !in_impl && renamed.is_none() {
        // The hidden function is declared inside `f_hvp` (it cannot take the `impl`'s float type
        // parameter as its own), where neither `Self` nor `self` is in scope.
        let names_self = s
            .flat
            .block
            .to_token_stream()
            .into_iter()
            .any(|t| names_self(&t));
        let integer_field = s
            .flat
            .field_inputs()
            .zip(&floats)
            .find(|(_, float)| !**float);
        if names_self {
            errors.spanned(
                order,
                "`order = K` on a method with a constant `self`, or in a generic `impl`, is supported where its \
                 body reads `self`'s fields and its parameters only: this one names `Self` or calls a method \
                 (with `wrt(self)`, in an `impl` without float type parameters, calls of methods are \
                 differentiated; or write a free function of the struct with `order = K`, and call it from \
                 the method)",
            );
        } else if let Some((f, _)) = integer_field {
            let shown: Vec<String> = f.path.iter().map(Ident::to_string).collect();
            errors.spanned(
                &f.path[f.path.len() - 1],
                format!(
                    "`order = K` on a method reads each field of `self` as a float or a slice of floats, and \
                     `self.{}` is read as an integer or a flag here: pass it as a parameter, or write a free \
                     function of the struct with `order = K`",
                    shown.join(".")
                ),
            );
        }
    }
    // (A method that calls another passes `self` on whole: reported above, but in an `impl`, where a
    // constant `self` is passed on as `__self_primal`, to the callee's generic copy `Self::__g_generic`.)
    if errors.len() == before && s.flat.uses_a_struct_whole(s.sig, in_impl) && renamed.is_none() {
        errors.spanned(
            order,
            "`order = K` on a function that passes a parameter struct, or a field of one, on whole to a call \
             (`g(p, ..)`, `g(&p.inner)`) is supported for a function returning its own float type (`f64`, `f32`, \
             or a free function's float type parameter `T`) whose parameter structs name no other float type \
             (`Mlp`, `Outer<f64>` in a function of `f64`, `Outer<T>` in one generic over `T`) and are \
             differentiated or passed on whole, and which, generic over `T`, calls no function by a path naming \
             `T` (a method of a generic struct, `g.dot(x)`, which has no hidden function over its struct's \
             values): this one is not, so read the fields in this function, writing the callee's computation \
             out, or call a free function of the struct (a parameter of a type alias of a float, `type Real = \
             f32;`, is taken for a struct: write the float type itself)",
        );
    }
    let scalar = match &s.sig.ret_ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        _ => None,
    };
    let Some(scalar) = scalar else {
        errors.spanned(
            order,
            "`order = K` needs a function returning one float: `f64`, `f32` or a type parameter `T: Float`",
        );
        return TokenStream::new();
    };
    if errors.len() > before {
        return TokenStream::new();
    }
    // The hidden function differentiates the float fields read of the differentiated structs and the other
    // differentiated parameters (`fields_function`'s `wrt(..)`): with none, it would have nothing to
    // differentiate (and its own expansion would say `wrt()` names nothing, at the user's attribute). That
    // is also the body `expand::complete_stubs` stands in after an error (a zero), which then takes the
    // plain stubs instead.
    let differentiated = s.sig.params.iter().enumerate().any(|(i, p)| match &p.kind {
        Kind::Struct(_) => {
            p.active
                && s.flat
                    .field_inputs()
                    .zip(&floats)
                    .any(|(f, float)| f.parent == i && *float)
        }
        _ => p.active,
    });
    if !differentiated {
        // Nothing of the differentiated structs reaches the result: every derivative is zero, the
        // Hessian over the structs' flat views too (as the first order's gradient is a zero struct).
        let hvp = zero_hvp(s, &scalar);
        let hessian = crate::higher::hessian_of(s.bounded, s.sig, &scalar);
        return quote!(#hvp #hessian);
    }
    let fields_fn = fields_function(s, &floats, order, &scalar, in_impl, renamed.as_ref());
    // A method's hidden function is declared in `f_hvp`'s body, expanded there (`lower::expand_nested_fn`),
    // but in an `impl` (`in_impl`, `renamed`).
    let (fields_fn, nested) = match method && !in_impl && renamed.is_none() {
        false => (fields_fn, TokenStream::new()),
        true => match syn::parse2::<syn::ItemFn>(fields_fn) {
            Ok(f) => {
                let expanded = crate::lower::expand_nested_fn(&f);
                (TokenStream::new(), quote!(#expanded))
            }
            Err(e) => (e.to_compile_error(), TokenStream::new()),
        },
    };
    let derivatives = derivatives(
        s,
        &scalar,
        order,
        nested.clone(),
        in_impl,
        renamed.is_some(),
    );
    let hvp = hvp(s, &floats, &scalar, nested, in_impl, renamed.is_some());
    let hessian = crate::higher::hessian_of(s.bounded, s.sig, &scalar);
    let stand_ins = crate::struct_whole::constant_stand_ins(s);
    quote!(#fields_fn #hvp #hessian #derivatives #stand_ins)
}

// Input:  impl<T: Float> Model<T> { #[differentiable(wrt(self), order = 2)] fn loss(&self, x: &[T]) -> T { self.other(x) * .. } }
// Output: fn loss_hvp(&self, x: &[T], v: Self) -> (T, Self, Self) {
//             let __lifted_self = dual_struct("self", self, &v);          // a `Model<Dual<T>>`
//             let (value, gradient) = __lifted_self.loss_grad(&constant_vec(&x));
//             (value.re, re_struct(&gradient), eps_struct(&gradient))
//         }   (and `loss_hessian`, `loss_derivatives` through it)
/// For a method taking `self` in a generic `impl` and returning the `impl`'s float type, where the hidden
/// function of the fields cannot be made (`renamed` is `None` and the body names `Self` or `self` other
/// than by its fields, reads an integer field, or passes `self` on whole): `higher::mapped_items`.
fn mapped(
    s: &StructFunction,
    floats: &[bool],
    order: &syn::LitInt,
    in_impl: bool,
    renamed: Option<&Ident>,
) -> Option<TokenStream> {
    if !crate::expand::is_method(s.item) || in_impl || renamed.is_some() {
        return None;
    }
    s.item.sig.receiver()?;
    let of_impl = crate::signature::float_type_params(&s.analysis_item.sig.generics);
    let own = crate::signature::float_type_params(&s.item.sig.generics);
    let [t] = of_impl.as_slice() else {
        return None;
    };
    let returns_t =
        matches!(&s.sig.ret_ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident(t));
    if !own.is_empty() || !returns_t {
        return None;
    }
    let names_self = s
        .flat
        .block
        .to_token_stream()
        .into_iter()
        .any(|t| names_self(&t));
    let integer_field = floats.iter().any(|float| !float);
    let whole = s.flat.uses_a_struct_whole(s.sig, false);
    (names_self || integer_field || whole)
        .then(|| crate::higher::mapped_items(s.bounded, s.sig, t, order))
}

/// For each field input (in `Flattened::field_inputs`' order), is it a float or an array of floats (not a
/// constant array of integers or flags)? A scalar field the body reads as an integer or a flag
/// (`read_as_integer`) keeps its declared type, which the macro cannot see: the hidden function takes it as
/// `<S as FieldType<KEY>>::Type`, a constant.
pub(crate) fn float_fields(s: &StructFunction) -> Vec<bool> {
    s.flat
        .field_inputs()
        .map(|f| {
            // An array of integers or flags, or one only measured, is a constant (`integer_fields.rs`).
            if f.array {
                return f.constant.is_none();
            }
            // An integer, a flag or data (an enum) that the declaration shows: a constant.
            if f.constant.is_some() {
                return false;
            }
            let index = s.flat.inner.params.iter().position(|p| p.ident == *f.ident);
            index
                .and_then(|i| s.lowered.params.get(i))
                .is_some_and(|var| {
                    // (`let n: usize = p.n;` reads it through no statement: its kind says so.)
                    !read_as_integer(s.lowered, s.activity, *var, true)
                        && !matches!(s.activity.var_kind(*var), Kind::Int)
                })
        })
        .collect()
}

// Input:  fn f(p: &Pair) -> f64 { p.a as f64 * p.b }
// Output: [true, false]: `a` is read only converted to a float
/// For each field input of `s`, whether the body reads it as an integer only by converting it to a float
/// (`p.a as f64`), and never passes it on through a branch or a loop: a float field (a no-op cast) or an
/// integer one (`p.n as f64` of `n: usize`), which the syntax does not tell apart. The hidden function over
/// the values view reads it from the view where the field is there (a float), else from the struct
/// (`struct_whole.rs`): a float field read from the struct is a constant, whose second derivatives were
/// dropped (`p.a as f64 * p.b` had a Hessian of zeros).
pub(crate) fn cast_only_fields(s: &StructFunction) -> Vec<bool> {
    s.flat
        .field_inputs()
        .map(|f| {
            // (A constant the declaration shows is of its declared type: no float to read it as.)
            if f.array || f.constant.is_some() {
                return false;
            }
            let index = s.flat.inner.params.iter().position(|p| p.ident == *f.ident);
            index
                .and_then(|i| s.lowered.params.get(i))
                .is_some_and(|var| {
                    read_as_integer(s.lowered, s.activity, *var, true)
                        && !read_as_integer(s.lowered, s.activity, *var, false)
                        && carried_from(s.lowered, *var).len() == 1
                })
        })
        .collect()
}

/// `cast_only_fields` of the differentiated structs: the fields that `items` makes float inputs of the
/// hidden function of the fields (a constant struct's are constants of their declared types).
fn converted_fields(s: &StructFunction) -> Vec<bool> {
    s.flat
        .field_inputs()
        .zip(cast_only_fields(s))
        .map(|(f, cast)| cast && s.sig.params[f.parent].active)
        .collect()
}

/// `field` and the values carried on from it: by loops' and branches' outs and phis.
fn carried_from(f: &Function, field: Var) -> HashSet<Var> {
    use crate::ir::{Block, Stmt};
    let mut carried: HashSet<Var> = HashSet::from([field]);
    fn carry(block: &Block, carried: &mut HashSet<Var>, changed: &mut bool) {
        for stmt in &block.stmts {
            let passes = |blocks: Vec<&Block>,
                          outs: &[Var],
                          carried: &mut HashSet<Var>,
                          changed: &mut bool| {
                for b in blocks {
                    for (y, out) in b.yields.iter().zip(outs) {
                        if y.var().is_some_and(|v| carried.contains(&v)) {
                            *changed |= carried.insert(*out);
                        }
                    }
                }
            };
            match stmt {
                Stmt::If {
                    then_block,
                    else_block,
                    outs,
                    ..
                } => passes(vec![then_block, else_block], outs, carried, changed),
                Stmt::Match { arms, outs, .. } => passes(
                    arms.iter().map(|a| &a.block).collect(),
                    outs,
                    carried,
                    changed,
                ),
                Stmt::Loop(l) => {
                    for (init, phi) in l.inits.iter().zip(&l.phis) {
                        if init.var().is_some_and(|v| carried.contains(&v)) {
                            *changed |= carried.insert(*phi);
                        }
                    }
                    passes(vec![&l.body], &l.phis, carried, changed);
                    passes(vec![&l.body], &l.outs, carried, changed);
                }
                _ => {}
            }
            for inner in stmt.blocks() {
                carry(inner, carried, changed);
            }
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        carry(&f.body, &mut carried, &mut changed);
    }
    carried
}

/// Does the body read `field` (or a value carried from it) as an integer or a flag: as a loop's bound or
/// step, an index, a `match` scrutinee, the condition of an `if` or a `while`, the operand of `!`, of a
/// cast, of an operation or method with an integer result, or of a comparison, an operation or a method
/// (`p.n.min(x.len())`) with an integer?
/// With `float_casts` false, a conversion to a float (`p.n as f64`) is not such a read.
fn read_as_integer(f: &Function, activity: &Activity, field: Var, float_casts: bool) -> bool {
    use crate::ir::{ArrayInit, Operand, Stmt, Value};
    let integer = |o: &Operand| matches!(activity.kind(o), Kind::Int);
    let carried = carried_from(f, field);
    let reads = |o: &Operand, carried: &HashSet<Var>| o.var().is_some_and(|v| carried.contains(&v));
    f.all_stmts().into_iter().any(|stmt| match stmt {
        Stmt::Let { var, value } => match value {
            Value::Cast(o, ty) => {
                reads(o, &carried)
                    && (float_casts || !matches!(activity.kind_of_type(ty), Kind::Float(_)))
            }
            Value::Load { index, .. } => reads(index, &carried),
            Value::Binary(_, a, b) if reads(a, &carried) || reads(b, &carried) => {
                matches!(activity.var_kind(*var), Kind::Int) || integer(a) || integer(b)
            }
            // `p.n.min(x.len())`: a method (`min`, `max`, ..) of the field with an integer operand.
            // Not `powi`'s exponent, which is an integer of every float's `powi` (`p.slope.powi(2)`).
            Value::Float { func, args, .. } if args.iter().any(|a| reads(a, &carried)) => {
                let floats = func.float_args(args.len());
                matches!(activity.var_kind(*var), Kind::Int)
                    || args
                        .iter()
                        .zip(floats)
                        .any(|(a, float)| (float && integer(a)) || (!float && reads(a, &carried)))
            }
            Value::Method { receiver, args, .. } if reads(receiver, &carried) => {
                matches!(activity.var_kind(*var), Kind::Int) || args.iter().any(integer)
            }
            // `!p.flag`.
            Value::Unary(syn::UnOp::Not(_), o) => reads(o, &carried),
            _ => false,
        },
        Stmt::Match { scrutinee, .. } => reads(scrutinee, &carried),
        Stmt::Store { index, .. } => reads(index, &carried),
        // `vec![0.0; p.n]`, `Vec::with_capacity(p.n)`, `&x[p.k..]`: a length or a bound.
        Stmt::NewArray { init, .. } => match init {
            ArrayInit::Repeat { len, .. } => reads(len, &carried),
            ArrayInit::Empty { capacity } => capacity.iter().any(|c| reads(c, &carried)),
            ArrayInit::Window { range, row, .. } => range
                .start
                .iter()
                .chain(range.end.iter())
                .chain(row.as_deref())
                .any(|o| reads(o, &carried)),
            ArrayInit::Elements { .. } | ArrayInit::Copy(_) | ArrayInit::Call { .. } => false,
        },
        // `if p.flag { .. }` (also `&&`, `||`), `while p.flag { .. }`: a flag.
        Stmt::If { cond, .. } => reads(cond, &carried),
        Stmt::Loop(l) => {
            l.cond
                .as_ref()
                .is_some_and(|c| c.yields.iter().any(|o| reads(o, &carried)))
                || l.range.as_ref().is_some_and(|(r, _)| {
                    [&r.start, &r.end]
                        .into_iter()
                        .chain(r.step.as_ref())
                        .any(|o| reads(o, &carried))
                })
        }
        _ => false,
    })
}

/// For a method of a generic `impl` with a constant `self`, whose body names `Self` only to call associated
/// functions (`Self::helper(x)`) and does so, or reads an integer field (`<Self as FieldType<KEY>>::Type`): the
/// `impl`'s float type parameter, which its hidden function in the `impl` renames `__T`. `None` otherwise
/// (the hidden function is then nested in `f_hvp`, or the body gets an error).
fn generic_impl_float(s: &StructFunction, floats: &[bool]) -> Option<Ident> {
    use syn::visit::Visit;
    let own = crate::signature::float_type_params(&s.item.sig.generics);
    let of_impl = crate::signature::float_type_params(&s.analysis_item.sig.generics);
    let [t] = of_impl.as_slice() else {
        return None;
    };
    if !own.is_empty() || s.flat.uses_a_struct_whole(s.sig, false) {
        return None;
    }
    #[derive(Default)]
    struct Mentions {
        calls: usize,
        other: usize,
    }
    impl<'a> Visit<'a> for Mentions {
        fn visit_expr_call(&mut self, call: &'a syn::ExprCall) {
            match &*call.func {
                syn::Expr::Path(p) if crate::naming::self_associated_call(&p.path).is_some() => {
                    self.calls += 1;
                    call.args.iter().for_each(|a| self.visit_expr(a));
                }
                _ => syn::visit::visit_expr_call(self, call),
            }
        }
        fn visit_ident(&mut self, ident: &'a Ident) {
            self.other += usize::from(ident == "Self" || ident == "self");
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut mentions = Mentions::default();
    mentions.visit_block(&s.flat.block);
    let integer_field = floats.iter().any(|float| !float);
    (mentions.other == 0 && (mentions.calls > 0 || integer_field)).then(|| t.clone())
}

/// Is `token` (or a token inside it) `Self` or `self`?
fn names_self(token: &proc_macro2::TokenTree) -> bool {
    match token {
        proc_macro2::TokenTree::Ident(i) => i == "Self" || i == "self",
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| names_self(&t)),
        _ => false,
    }
}

/// The name of the hidden function of the fields.
pub(crate) fn fields_name(item: &syn::ItemFn) -> Ident {
    format_ident!("__{}_fields", item.sig.ident)
}

/// A field input's name as the flattened body spells it.
fn body_ident(ident: &Ident) -> Ident {
    Ident::new(&ident.to_string(), Span::call_site())
}

/// The struct type whose `FieldType<KEY>::Type` names a field read as an integer or a flag (a loop bound,
/// a condition) in the hidden function's parameters: `ty` with the function's float type parameters taken
/// as `f64` (`Quad<f64>` for `q: &Quad<T>`). The field's type does not depend on them, and a type naming
/// `T` (`<Quad<T> as FieldType<KEY>>::Type`) would be a parameter that `order = K`'s `f_hvp` cannot pass to
/// the derivatives at `Dual<T>`, and would need `T: Differentiable` for the derive's `impl`. In a generic
/// `impl` (`renamed`), the `impl`'s parameter is kept: the hidden function is declared with that bound.
fn constant_field_owner(
    s: &StructFunction,
    ty: &syn::Type,
    renamed: Option<&Ident>,
) -> TokenStream {
    let mut ty = ty.to_token_stream();
    if renamed.is_none() {
        let f64_ident = Ident::new("f64", Span::call_site());
        for t in crate::signature::float_type_params(&s.analysis_item.sig.generics) {
            ty = crate::shadow::replace_float(ty, &t.to_string(), &f64_ident);
        }
    }
    ty
}

// Input:  `Settings`, `[n]`, of a file declaring `struct Settings { scale: f64, n: usize }` (no derive)
// Output: Some(`usize`)
/// The declared type of a scalar field of a struct that the source file declares as data, without the
/// derive (`context::data_field_type`): what a constant struct's field read as an integer or a flag is
/// taken as where no `FieldType` names it. `None` for a nested path or a type the file does not show.
fn data_field_type(ty: &syn::Type, path: &[Ident]) -> Option<TokenStream> {
    let [field] = path else {
        return None;
    };
    let syn::Type::Path(tp) = ty else {
        return None;
    };
    let name = crate::naming::unraw(tp.path.get_ident().filter(|_| tp.qself.is_none())?);
    let declared = crate::context::data_field_type(&name, &crate::naming::unraw(field))?;
    let ident = Ident::new(&declared, Span::call_site());
    Some(quote!(#ident))
}

/// `#[differentiable(order = K, wrt(..))] fn __f_fields(<declared non-struct params>, <field inputs>)`.
/// In an `impl` (`in_impl`), `self` is passed too, as the constant `__self_primal`; in a generic `impl`
/// (`renamed`: its float type parameter), the function is over `__T`, that parameter renamed.
fn fields_function(
    s: &StructFunction,
    floats: &[bool],
    order: &syn::LitInt,
    scalar: &Ident,
    in_impl: bool,
    renamed: Option<&Ident>,
) -> TokenStream {
    let mut params = Vec::new();
    let mut wrt = Vec::new();
    for (i, p) in s.sig.params.iter().enumerate() {
        if let Kind::Struct(ty) = &p.kind {
            if in_impl && p.ident == "self" {
                let primal = self_primal();
                params.push(quote!(#primal: &<#ty as ::autodiff::__private::Itself>::Type));
            }
            for (f, float) in s
                .flat
                .field_inputs()
                .zip(floats)
                .filter(|(f, _)| f.parent == i)
            {
                let ident = body_ident(f.ident);
                let constant = f.constant;
                params.push(match (f.array, float) {
                    // A matrix of integers or flags: by reference, of its declared type.
                    _ if f.integer_matrix.is_some() => {
                        let ty = f.integer_matrix;
                        quote!(#ident: &#ty)
                    }
                    (true, _) if constant == Some(crate::structs::Constant::Integers) => {
                        // Integers or flags: the field's own elements, a constant array.
                        let field_ty = crate::structs::field_type(
                            &constant_field_owner(s, ty, renamed),
                            f.path,
                        );
                        quote!(#ident: &[<#field_ty as ::autodiff::__private::IntegerArray>::Elem])
                    }
                    (true, _) if constant.is_some() || only_measured(s, p, f.ident) => {
                        quote!(#ident: &[()])
                    }
                    // A matrix (`p.w[i][j]`): its rows, a matrix parameter (`call_args`).
                    (true, _) if f.matrix => quote!(#ident: &[::std::vec::Vec<#scalar>]),
                    (true, _) => quote!(#ident: &[#scalar]),
                    (false, true) => quote!(#ident: #scalar),
                    (false, false) => {
                        let field_ty = data_field_type(ty, f.path).unwrap_or_else(|| {
                            crate::structs::field_type(
                                &constant_field_owner(s, ty, renamed),
                                f.path,
                            )
                        });
                        quote!(#ident: #field_ty)
                    }
                });
                if p.active && *float {
                    wrt.push(ident);
                }
            }
            continue;
        }
        let declared = &s.item.sig.inputs[i];
        params.push(quote!(#declared));
        if p.active {
            wrt.push(p.ident.clone());
        }
    }
    let item = s.item;
    let method = crate::expand::is_method(item);
    let vis = if method {
        syn::Visibility::Inherited
    } else {
        item.vis.clone()
    };
    // Nested in a method's `f_hvp`, the function declares the float type parameter of a generic `impl`
    // itself (`impl<T: Float> Model<T>`).
    let mut generics = item.sig.generics.clone();
    let own_float = Ident::new("__T", Span::call_site());
    if renamed.is_some() {
        generics
            .params
            .push(syn::parse_quote!(#own_float: ::autodiff::__private::Float));
    } else if method && !in_impl {
        let declared = crate::signature::float_type_params(&generics);
        for t in crate::signature::float_type_params(&s.analysis_item.sig.generics) {
            if !declared.contains(&t) {
                generics
                    .params
                    .push(syn::parse_quote!(#t: ::autodiff::__private::Float));
            }
        }
    }
    let ret = &s.sig.ret_ty;
    let where_clause = &generics.where_clause;
    let name = fields_name(item);
    let mut block = s.written.clone();
    // An array field copied by `let` is a copy of its sub-slice, which the body may write.
    let array_fields: Vec<String> = s
        .flat
        .field_inputs()
        .filter(|f| f.array)
        .map(|f| f.ident.to_string())
        .collect();
    crate::struct_whole::CopiedFields(&array_fields).visit_block_mut(&mut block);
    if in_impl {
        SelfAsPrimal.visit_block_mut(&mut block);
    }
    if renamed.is_some() {
        crate::naming::CallsOfCopies.visit_block_mut(&mut block);
    }
    let function = quote!(#vis fn #name #generics (#(#params),*) -> #ret #where_clause #block);
    // Renamed, but for the bound that an integer field's `<Self as FieldType<KEY>>::Type` needs of the
    // `impl`'s own parameter (the derive's `impl FieldType<KEY> for Coil<T> where T: Differentiable`).
    let function = match renamed {
        Some(t) => {
            let renamed = crate::shadow::replace_float(function, &t.to_string(), &own_float);
            match syn::parse2::<syn::ItemFn>(renamed) {
                Ok(mut f) => {
                    f.sig
                        .generics
                        .make_where_clause()
                        .predicates
                        .push(syn::parse_quote!(#t: ::autodiff::__private::Differentiable));
                    f.into_token_stream()
                }
                Err(e) => e.to_compile_error(),
            }
        }
        None => function,
    };
    // Standing in the `impl` (`in_impl`, `renamed`), the hidden function is an associated function there,
    // which its own expansion cannot find in the source.
    let stands_in_impl = (in_impl || renamed.is_some()).then(|| quote!(, __in_impl));
    quote! {
        #[::autodiff::differentiable(order = #order, wrt(#(#wrt),*) #stands_in_impl)]
        #[doc(hidden)]
        #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
        #function
    }
}

/// `self` → `__self_primal` in the body of the hidden function, which passes it on (`Self::g(self, x)`).
struct SelfAsPrimal;

impl syn::visit_mut::VisitMut for SelfAsPrimal {
    // `Self::g(self, x)`, `Self::g(&self, x)`: `Self::g(Receiver::receive(__self_primal), x)`, `self` as `g`
    // takes it (a clone for one taking `self` by value), which the lowering reads as `__self_primal`.
    fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
        syn::visit_mut::visit_expr_call_mut(self, call);
        let primal = self_primal();
        for arg in call.args.iter_mut() {
            let is_primal = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&primal));
            let passed = match &*arg {
                syn::Expr::Reference(r) if r.mutability.is_none() => is_primal(&r.expr),
                other => is_primal(other),
            };
            if passed {
                *arg = syn::parse_quote!(::autodiff::__private::Receiver::receive(#primal));
            }
        }
    }

    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.is_ident("self") {
            let primal = self_primal();
            p.path = syn::parse_quote!(#primal);
        }
    }

    // Items nested in the body have no `self` of the method's.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `self` as the hidden function of a method in an `impl` takes it: a constant.
fn self_primal() -> Ident {
    Ident::new("__self_primal", Span::call_site())
}

/// `f_hvp(<params>, v: G) -> (R, G, G)` through `__f_fields_hvp` (`Self::__f_fields_hvp` in an `impl`).
fn hvp(
    s: &StructFunction,
    floats: &[bool],
    scalar: &Ident,
    nested: TokenStream,
    in_impl: bool,
    renamed: bool,
) -> TokenStream {
    let v = crate::naming::local("v");
    let gradient_ty = s.sig.gradient_type();
    let name = crate::signature::derived_name(s.item, "hvp");
    let signature = s.sig.generated(
        s.bounded,
        &name,
        Some(quote!(#v: #gradient_ty)),
        quote!((#scalar, #gradient_ty, #gradient_ty)),
    );
    let direction = |i: usize| format_ident!("__direction_{}", i, span = Span::mixed_site());
    let declared_active: Vec<usize> = (0..s.sig.params.len())
        .filter(|&i| s.sig.params[i].active)
        .collect();
    let directions = crate::emit::tuple_or_single(
        declared_active
            .iter()
            .map(|&i| quote::ToTokens::into_token_stream(direction(i)))
            .collect(),
    );
    let args = call_args(s, in_impl, Some(scalar));
    let mut inner_directions = Vec::new();
    for (i, p) in s.sig.params.iter().enumerate() {
        let Kind::Struct(ty) = &p.kind else {
            if p.active {
                let d = direction(i);
                inner_directions.push(quote!(#d));
            }
            continue;
        };
        for (f, float) in s
            .flat
            .field_inputs()
            .zip(floats)
            .filter(|(f, _)| f.parent == i)
        {
            let input = f.ident;
            if !p.active || !float {
                continue;
            }
            let d = direction(i);
            let (ty, primal) = (ty.to_token_stream(), crate::structs::reference(p));
            let zero = match f.array {
                // (A `#[no_grad]` matrix's zero, rows of zeros.)
                true if f.matrix => quote!(::autodiff::__private::Differentiable::zero_like(
                    &::autodiff::__private::vec_matrix_rows(#input).into_owned()
                )),
                true => quote!(::autodiff::__private::zeros_like(#input)),
                false => quote!(::autodiff::__private::constant_zero(
                    &::autodiff::__private::cast::<#scalar, _>(#input)
                )),
            };
            let tangent =
                crate::structs::field_tangent(&ty, quote!(#d), quote!((#primal)), f.path, zero);
            inner_directions.push(if f.matrix {
                // Rows of `Vec`s, as the hidden function takes the matrix (`call_args`).
                quote!(::autodiff::__private::vec_matrix_rows(&#tangent).into_owned())
            } else if f.array {
                quote!(#tangent[..].to_vec())
            } else {
                tangent
            });
        }
    }
    let inner_directions = crate::emit::tuple_or_single(inner_directions);
    let callee = fields_item(s, "hvp", in_impl || renamed);
    let prologue = s.flat.bind_fields(s.sig);
    let (value, gradient, product) = (
        Ident::new("__value", Span::mixed_site()),
        Ident::new("__gradient", Span::mixed_site()),
        Ident::new("__product", Span::mixed_site()),
    );
    let gathered_gradient = gather(s, floats, &gradient);
    let gathered_product = gather(s, floats, &product);
    let doc = format!(
        " The value, gradient and Hessian-vector product `H v` of `{}`: `{callee}` (forward over reverse) on \
         the fields the body reads, gathered back into structs.",
        s.item.sig.ident
    );
    quote! {
        #[doc = #doc]
        #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        #signature {
            #nested
            let #directions = #v;
            #prologue
            let (#value, #gradient, #product) = #callee(#(#args,)* #inner_directions);
            (#value, #gathered_gradient, #gathered_product)
        }
    }
}

/// `f_hvp` of a function whose differentiated parameters are all structs of which it reads no float
/// field: the value (the function itself), and the gradient and the product zero structs
/// (`Differentiable::zero_like`, which copies the `#[no_grad]` fields), as its `f_grad` gives.
///
/// ```text
/// fn count_hvp(&self, x: &[T], v: Self) -> (T, Self, Self) {
///     let _ = v;
///     let __gradient = <Self as Differentiable>::zero_like(self);
///     let __product = <Self as Differentiable>::zero_like(self);
///     (Self::count(self, x), __gradient, __product)
/// }
/// ```
fn zero_hvp(s: &StructFunction, scalar: &Ident) -> TokenStream {
    let v = crate::naming::local("v");
    let gradient_ty = s.sig.gradient_type();
    let name = crate::signature::derived_name(s.item, "hvp");
    let signature = s.sig.generated(
        s.bounded,
        &name,
        Some(quote!(#v: #gradient_ty)),
        quote!((#scalar, #gradient_ty, #gradient_ty)),
    );
    let zeros: Vec<TokenStream> = s
        .sig
        .params
        .iter()
        .filter(|p| p.active)
        .map(|p| match &p.kind {
            Kind::Struct(ty) => {
                let reference = crate::structs::reference(p);
                quote!(<#ty as ::autodiff::__private::Differentiable>::zero_like(#reference))
            }
            // (`items` comes here only where every differentiated parameter is a struct.)
            _ => quote!(::core::unreachable!()),
        })
        .collect();
    let zeros = crate::emit::tuple_or_single(zeros);
    let (gradient, product) = (
        Ident::new("__gradient", Span::mixed_site()),
        Ident::new("__product", Span::mixed_site()),
    );
    let primal = &s.item.sig.ident;
    let callee = match crate::expand::is_method(s.item) {
        true => quote!(Self::#primal),
        false => quote!(#primal),
    };
    let args = s.sig.params.iter().map(|p| &p.ident);
    let doc = format!(
        " The value, gradient and Hessian-vector product `H v` of `{primal}`, which reads no float field of \
         its differentiated structs: the gradient and the product are zero."
    );
    quote! {
        #[doc = #doc]
        #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        #signature {
            let _ = #v;
            let #gradient = #zeros;
            let #product = #zeros;
            (#callee(#(#args),*), #gradient, #product)
        }
    }
}

/// The arguments of the hidden function of the fields, after `Flattened::bind_fields`: the declared
/// parameters but the structs, and for each struct its field inputs (and `self` itself in an `impl`).
/// With `scalar`, a scalar field read only converted to a float (`cast_only_fields`) is given converted to
/// it, as `items` makes it a float input.
pub(crate) fn call_args(
    s: &StructFunction,
    in_impl: bool,
    scalar: Option<&Ident>,
) -> Vec<TokenStream> {
    let cast_only = converted_fields(s);
    let mut args = Vec::new();
    for (i, p) in s.sig.params.iter().enumerate() {
        if !matches!(p.kind, Kind::Struct(_)) {
            let ident = &p.ident;
            args.push(quote!(#ident));
            continue;
        }
        if in_impl && p.ident == "self" {
            args.push(crate::structs::reference(p));
        }
        for (f, cast) in s
            .flat
            .field_inputs()
            .zip(&cast_only)
            .filter(|(f, _)| f.parent == i)
        {
            let input = f.ident;
            args.push(match f.array {
                // `vec![(); n]` allocates nothing.
                true if f.constant == Some(crate::structs::Constant::Integers) => {
                    quote!(&#input[..])
                }
                true if f.constant.is_some() || only_measured(s, p, input) => {
                    quote!(&::std::vec![(); #input.len()][..])
                }
                // A matrix: its rows (borrowed from a `Vec` of `Vec`s, copied from fixed-size rows).
                true if f.matrix => quote!(&*::autodiff::__private::vec_matrix_rows(#input)),
                true => quote!(&#input[..]),
                false => match scalar.filter(|_| *cast) {
                    Some(scalar) => quote!(::autodiff::__private::cast::<#scalar, _>(#input)),
                    None => quote!(#input),
                },
            });
        }
    }
    args
}

/// Is the field input `field` of the constant struct `parent` only measured, `field.len()`, by the body (a
/// `String` or a `Vec` of anything asked its length)? The hidden function of the fields then takes a slice
/// of `()` of its length, whatever the field's type, which only the derive knows (as `&[T]` it was a type
/// error for a `String`).
pub(crate) fn only_measured(
    s: &StructFunction,
    parent: &crate::signature::Param,
    field: &Ident,
) -> bool {
    use syn::visit::Visit;
    struct Uses<'a> {
        field: &'a Ident,
        measured: usize,
        other: usize,
    }
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let measured = m.method == "len"
                && m.args.is_empty()
                && matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident(self.field));
            if measured {
                self.measured += 1;
            } else {
                syn::visit::visit_expr_method_call(self, m);
            }
        }
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            self.other += usize::from(p.path.is_ident(self.field));
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let field = body_ident(field);
    let mut uses = Uses {
        field: &field,
        measured: 0,
        other: 0,
    };
    uses.visit_block(s.written);
    !parent.active && uses.measured > 0 && uses.other == 0
}

/// The generated item `suffix` of the hidden function of the fields, as `f`'s items call it
/// (`Self::__f_fields_hvp` in an `impl`).
fn fields_item(s: &StructFunction, suffix: &str, in_impl: bool) -> TokenStream {
    let item = format_ident!("{}_{}", fields_name(s.item), suffix);
    match in_impl {
        true => quote!(Self::#item),
        false => quote!(#item),
    }
}

/// `K`, where `s` has `f_derivatives` (`order = K` on a function whose one active input is a float, its
/// structs constant).
pub(crate) fn derivatives_order(s: &StructFunction, order: &syn::LitInt) -> Option<usize> {
    let one_scalar = matches!(s.sig.active().collect::<Vec<_>>().as_slice(),
        [p] if p.array.is_none() && !matches!(p.kind, Kind::Struct(_)) && crate::signature::float_tuple(&p.kind).is_none());
    one_scalar
        .then(|| order.base10_parse::<usize>().ok())
        .flatten()
}

/// `f_derivatives(<params>) -> [T; K + 1]` for a function whose one active input is a float (its structs
/// constant): the hidden function's own, which has the same one active input.
fn derivatives(
    s: &StructFunction,
    scalar: &Ident,
    order: &syn::LitInt,
    nested: TokenStream,
    in_impl: bool,
    renamed: bool,
) -> TokenStream {
    let Some(k) = derivatives_order(s, order) else {
        return TokenStream::new();
    };
    let len = k + 1;
    let name = crate::signature::derived_name(s.item, "derivatives");
    let signature = s
        .sig
        .generated(s.bounded, &name, None, quote!([#scalar; #len]));
    let callee = fields_item(s, "derivatives", in_impl || renamed);
    let args = call_args(s, in_impl, Some(scalar));
    let prologue = s.flat.bind_fields(s.sig);
    let doc = format!(
        " `[f, f', .., f^({k})]` of `{}` at its active input: `{callee}` on the fields the body reads.",
        s.item.sig.ident
    );
    quote! {
        #[doc = #doc]
        #[allow(unused, clippy::pedantic, clippy::nursery, clippy::too_many_arguments)]
        #signature {
            #nested
            #prologue
            #callee(#(#args),*)
        }
    }
}

/// The declared parameters' part of `parts`, a tuple over `__f_fields`'s active inputs: each struct
/// assembled from its fields' parts (nothing added for a `#[no_grad]` field), each other input's part as is.
fn gather(s: &StructFunction, floats: &[bool], parts: &Ident) -> TokenStream {
    let slot = |k: usize| format_ident!("{}_{}", parts, k, span = Span::mixed_site());
    let mut slots = Vec::new();
    let mut outer = Vec::new();
    for (i, p) in s.sig.params.iter().enumerate() {
        if !p.active {
            continue;
        }
        let Kind::Struct(ty) = &p.kind else {
            let k = slot(slots.len());
            slots.push(quote!(#k));
            outer.push(quote!(#k));
            continue;
        };
        let mut fields = Vec::new();
        for (f, _) in s
            .flat
            .field_inputs()
            .zip(floats)
            .filter(|(f, float)| f.parent == i && **float)
        {
            let k = slot(slots.len());
            slots.push(quote!(#k));
            fields.push((f.path, quote!(#k)));
        }
        let parent = crate::structs::reference(p);
        outer.push(crate::structs::gathered_struct(ty, &parent, None, fields));
    }
    let slots = crate::emit::tuple_or_single(slots);
    let outer = crate::emit::tuple_or_single(outer);
    quote!({
        let #slots = #parts;
        #outer
    })
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn expanded(item: proc_macro2::TokenStream) -> String {
        crate::expand::differentiable(quote!(order = 2, wrt(p)), item).to_string()
    }

    #[test]
    fn fields_become_inputs_of_a_hidden_function_and_integer_fields_keep_their_type() {
        // (A struct of another float type than the function's: one of its own, or none named, takes the
        // values view, `struct_whole.rs`.)
        let text = expanded(quote! {
            fn mse(p: &Mlp<f64>, xs: &[f32]) -> f32 {
                let mut s = p.b;
                for j in 0..p.hidden {
                    s += p.w[j] * xs[j];
                }
                s * s
            }
        });
        assert!(!text.contains("compile_error"), "{text}");
        // The float fields are differentiated, `hidden` (a loop bound) is passed with its declared type.
        assert!(text.contains("wrt (__p_b , __p_w)"), "{text}");
        assert!(
            text.contains("__p_hidden : < Mlp < f64 > as :: autodiff :: __private :: FieldType <"),
            "{text}"
        );
        assert!(
            text.contains("__p_w : & [f32]") && text.contains("__p_b : f32"),
            "{text}"
        );
        for item in ["fn __mse_fields", "fn mse_hvp", "fn mse_hessian"] {
            assert!(text.contains(item), "{item} in {text}");
        }
    }

    #[test]
    fn fields_converted_by_from_are_float_inputs_given_converted() {
        // `T::from(self.k)` of a `#[no_grad]` count or a float field, which the macro cannot tell apart: a
        // cast, the field a float input of the hidden function, given converted to the function's float.
        let text = crate::expand::differentiable(
            quote!(order = 2, wrt(self)),
            quote!(
                fn energy(&self, x: T) -> T {
                    T::from(self.k).unwrap() * self.a * x
                }
            ),
        )
        .to_string();
        assert!(!text.contains("compile_error"), "{text}");
        assert!(text.contains("__self_k : T"), "{text}");
        assert!(
            text.contains(":: autodiff :: __private :: cast :: < T , _ > (__self_k)"),
            "{text}"
        );
        // A constant struct's converted field keeps its declared type.
        let constant = crate::expand::differentiable(
            quote!(order = 2, wrt(x)),
            quote!(
                fn energy(&self, x: f64) -> f64 {
                    self.n as f64 * x * x
                }
            ),
        )
        .to_string();
        assert!(!constant.contains("compile_error"), "{constant}");
        assert!(!constant.contains("__self_n : f64"), "{constant}");
    }

    #[test]
    fn whole_structs_and_methods_naming_self_are_errors() {
        // Where the values view does not serve (`struct_whole::serves`): a struct of another float type
        // than the function's, a constant `self`.
        let whole = expanded(quote! {
            fn f(p: &Mlp<f32>, x: f64) -> f64 { g(p, x) * p.b }
        });
        assert!(whole.contains("on whole to a call"), "{whole}");
        let field = expanded(quote! {
            fn f<T: Float>(p: &Model<f64>, x: T) -> T { g(&p.layer, x) }
        });
        assert!(field.contains("on whole to a call"), "{field}");
        // A struct of the function's float type parameter does (`Mlp<T>`, the struct of a type parameter
        // of its own beside its view).
        let generic = expanded(quote! {
            fn f<T: Float>(p: &Mlp<T>, x: T) -> T { g(p, x) * p.b }
        });
        assert!(!generic.contains("compile_error"), "{generic}");
        assert!(
            generic.contains(
                "fn __f_whole < T : Float , __P : :: autodiff :: __private :: PrimalFloat > \
                 (__p_primal : & < Mlp < __P > as :: autodiff :: __private :: Itself > :: Type , \
                 __p_values : & [T] , x : T)"
            ),
            "{generic}"
        );
        assert!(generic.contains("values_in :: < T , _ > (p)"), "{generic}");
        let method = |body: proc_macro2::TokenStream| {
            crate::expand::differentiable(
                quote!(order = 2, wrt(x)),
                quote!(fn energy(&self, x: T) -> T { #body }),
            )
            .to_string()
        };
        // In a generic `impl`, a method's hidden function is declared inside its `f_hvp`: it may not name
        // `Self` or `self`.
        let fine = method(quote!(self.k * x * x));
        assert!(
            !fine.contains("compile_error") && fine.contains("fn __energy_fields"),
            "{fine}"
        );
        // One that calls a method runs its own `f_grad` on the struct over dual numbers (`mapped`).
        let calling = method(quote!(self.other(x) * self.k));
        assert!(!calling.contains("compile_error"), "{calling}");
        assert!(
            calling.contains("constant_struct (self)")
                && calling.contains("__lifted_self . energy_grad (__lifted_x)"),
            "{calling}"
        );
        // Unless it calls associated functions only (through their generic copies) or reads an integer
        // field: then it is an associated function over the `impl`'s float type renamed `__T`.
        for body in [
            quote!(self.k * x.powi(self.n as i32)),
            quote!(Self::helper(x) * self.k),
        ] {
            let text = method(body);
            assert!(!text.contains("compile_error"), "{text}");
            assert!(text.contains("fn __energy_fields < __T"), "{text}");
        }
        let integer = method(quote!(self.k * x.powi(self.n as i32) + self.other(x)));
        assert!(
            !integer.contains("compile_error") && integer.contains("__lifted_self . energy_grad"),
            "{integer}"
        );
        // In an `impl` without float type parameters it is an associated function of the `impl`, which
        // names `Self`: integer fields by their type, associated items.
        let in_impl = |body: proc_macro2::TokenStream| {
            crate::expand::differentiable(
                quote!(order = 2, wrt(x)),
                quote!(fn energy(&self, x: f64) -> f64 { #body }),
            )
            .to_string()
        };
        for body in [
            quote!(self.k * x.powi(self.n as i32)),
            quote!(Self::helper(x) * self.k * Self::SCALE),
        ] {
            let text = in_impl(body);
            assert!(!text.contains("compile_error"), "{text}");
            assert!(
                text.contains(
                    "__self_primal : & < Self as :: autodiff :: __private :: Itself > :: Type"
                ),
                "{text}"
            );
            assert!(text.contains("Self :: __energy_fields_hvp (self"), "{text}");
        }
    }
}
