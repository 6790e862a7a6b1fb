//! Parameters outside `wrt(..)` passed to functions that may have no derivatives.
//!
//! `wrt(..)` chooses what `f_grad` returns, but the companion through which other differentiable
//! functions call `f` differentiates through every float parameter (its hidden `__vjp_all` and
//! `__jvp_all`), as `jax.grad`'s `argnums` leaves the function differentiable in all its inputs. So a
//! parameter that `wrt(..)` leaves out, passed to a plain helper (`bump(0.5, t)`), made those hidden sweeps
//! call the helper's derivatives, which do not exist: a compile error in valid code.
//!
//! The macro cannot see whether `bump` has derivatives; the generated code can, at compile time. Where
//! only parameters outside `wrt(..)` reach a call (its *maybe* calls), the hidden sweeps choose by a
//! constant (`__private::found_of!`): the callee's companion where it has one, else the call as written
//! with a zero derivative. And the companion declares, per parameter, whether a derivative comes back
//! through it (`__AUTODIFF_THROUGH`: `t` does only if every call it reaches has derivatives and passes
//! them on); a caller that passes a differentiated argument to `t` checks that at compile time
//! (`__private::require_through!`), so the zero derivative is never used where it would be wrong:
//!
//! ```text
//! // Input:                                  // Output, in the companion `g`:
//! #[differentiable(wrt(u))]                  const __AUTODIFF_THROUGH: &[bool] = &[
//! fn g(u: &[f64], t: f64) -> f64 {               true,
//!     u[0] * u[0] + bump(0.5, t)                 through_of!(bump; 1usize),
//! }                                          ];
//!                                            // in `__vjp_all`'s reverse sweep:
//!                                            let mut __d_t_1 = 0.0;
//!                                            if found_of!(bump) { let _ = derivative_of!(bump, ..).vjp_into(.., (Default::default(), Some(&mut __d_t_1))); }
//! // A caller `g(&w, s)` with `s` differentiated: require_through!(g, 0usize, 1usize);
//! ```
//!
//! The generic copy of such a function (`order = K`, and the copy `order = K` callers reach) calls such a
//! helper through `__private::copy_or_as_written!` ([`CopyCall`]): the helper's copy where it has
//! derivatives, else the helper as written on the values of its arguments, constants there; the copy's
//! hidden sweeps choose by `found_of!` as above ([`copy_plan`]).
//!
//! Taken only where each maybe call is a call by a path whose value is one scalar (`let y = bump(..)`) or
//! an array, a `Vec` (`let v = features(c)`, its cotangent buffer passed to `vjp_into`) or a tuple, no
//! `fn` or `use` item in the body could hide a callee's name from the companion, the function is a free
//! function without parameter structs, and its hidden sweeps are its own (not its generic copy's). Where
//! another call only parameters outside `wrt(..)` reach takes a tuple or writes an output
//! ([`unplanned`]), the hidden sweeps keep those parameters constant and declare so
//! ([`constant_through`]); elsewhere they need every callee's derivatives, as before: an error at the
//! call, never a wrong derivative.

use crate::activity::{self, Activity};
use crate::errors::Errors;
use crate::ir::{Array, ArrayInit, Function, Kind, Operand, Stmt, Value, Var};
use crate::signature::Signature;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::collections::BTreeSet;

/// The calls of the hidden sweeps whose callee may have no derivatives, and what each parameter reaches.
pub(crate) struct Maybe {
    /// The maybe calls, by their results.
    pub(crate) calls: BTreeSet<Var>,
    /// Those whose value is an array or a `Vec` (`let v = features(c)`), by the array.
    pub(crate) arrays: BTreeSet<Array>,
    /// For each parameter outside `wrt(..)` (in declaration order; empty for the others): each call by a
    /// path it reaches, and the argument position there.
    pub(crate) reached: Vec<Vec<(syn::ExprPath, usize)>>,
}

/// The calls of `f` (`let y = g(..)`, `let v = g(..)` of an array, `g(.., &mut out)`) with their callee and
/// arguments.
fn calls(f: &Function) -> Vec<(&Stmt, &syn::ExprPath, &[Operand])> {
    let mut out = Vec::new();
    for stmt in f.all_stmts() {
        match stmt {
            Stmt::Let {
                value: Value::Call { callee, args, .. },
                ..
            }
            | Stmt::NewArray {
                init: ArrayInit::Call { callee, args, .. },
                ..
            }
            | Stmt::CallOut { callee, args, .. } => out.push((stmt, callee, &args[..])),
            _ => {}
        }
    }
    out
}

/// The maybe calls of `f`'s hidden sweeps, where `own` is the activity of its own sweeps (`wrt(..)`'s)
/// and `all` that of the hidden ones (`all_sig`: every float parameter active); `None` where there are
/// none, or where one cannot be chosen at compile time (see the module's documentation).
pub(crate) fn plan(
    f: &Function,
    own_sig: &Signature,
    all_sig: &Signature,
    own: &Activity,
    all: &Activity,
    float_params: &[Ident],
) -> Option<Maybe> {
    // A `fn` (expanded, it may be verbatim tokens) or `use` item of the body, which the companion's
    // declaration, outside the body, could not see: only `const` items are harmless.
    let hiding = |item: &syn::Item| !matches!(item, syn::Item::Const(_));
    if f.items.iter().any(hiding) {
        return None;
    }
    let mut maybe = BTreeSet::new();
    let mut arrays = BTreeSet::new();
    for (stmt, callee, args) in calls(f) {
        let reached_only_by_others =
            args.iter().any(|a| all.is_active(a)) && !args.iter().any(|a| own.is_active(a));
        if !reached_only_by_others {
            continue;
        }
        match stmt {
            // The reverse sweep adds its cotangents through `vjp_into`, inside `if found_of!(..)`; not
            // through a function pointer or closure (`h(t)` of a parameter `h`), which has no companion.
            // (Of a tuple too, `let (p, q) = pair(c)`: its tangent's zero is `zero_tuple_like`.)
            Stmt::Let { var, .. }
                if crate::companion::companion_path(callee).is_some()
                    && f.vars[var.0 as usize].called_variable.is_none()
                    && crate::reverse::adds_into_callers(f, all, args) =>
            {
                maybe.insert(*var);
            }
            // Of an array or a `Vec` (`let v = features(c)`): its cotangent buffer, as any array call's.
            Stmt::NewArray { array, .. }
                if crate::companion::companion_path(callee).is_some()
                    && f.arrays[array.0 as usize].matrix.is_none()
                    && crate::reverse::adds_into_callers(f, all, args) =>
            {
                arrays.insert(*array);
            }
            _ => return None,
        }
    }
    let mut reached = vec![Vec::new(); all_sig.params.len()];
    for (i, (p, declared)) in all_sig.params.iter().zip(&own_sig.params).enumerate() {
        // A parameter of `wrt(..)` reaches its calls in the function's own sweeps, which check them.
        if !p.active || declared.active {
            continue;
        }
        let mut only = all_sig.clone();
        for (k, q) in only.params.iter_mut().enumerate() {
            q.active &= k == i;
        }
        let activity = activity::analyze(f, &only, float_params, &mut Errors::default());
        for (stmt, callee, args) in calls(f) {
            let through_variable = matches!(stmt, Stmt::Let { var, .. } if f.vars[var.0 as usize].called_variable.is_some());
            if crate::companion::companion_path(callee).is_none() || through_variable {
                continue;
            }
            for (j, arg) in args.iter().enumerate() {
                if activity.is_active(arg) {
                    reached[i].push((callee.clone(), j));
                }
            }
        }
    }
    // Without maybe calls, a parameter outside `wrt(..)` passed to another function with such a
    // parameter: declared here too, as the hidden sweeps do not check their calls.
    if maybe.is_empty() && arrays.is_empty() && reached.iter().all(Vec::is_empty) {
        return None;
    }
    Some(Maybe {
        calls: maybe,
        arrays,
        reached,
    })
}

/// Whether a call of `f` that only parameters outside `wrt(..)` reach (its arguments active in the hidden
/// sweeps, `all`, and none in the function's own, `own`) is left where [`plan`] found no maybe calls: a
/// call that takes a tuple (`h((0.5, c))`) or that writes an output parameter (`fill(c, &mut v)`), and then any other. The hidden sweeps then keep the
/// parameters outside `wrt(..)` constant ([`constant_through`]).
pub(crate) fn unplanned(f: &Function, own: &Activity, all: &Activity) -> bool {
    calls(f).iter().any(|(_, _, args)| {
        args.iter().any(|a| all.is_active(a)) && !args.iter().any(|a| own.is_active(a))
    })
}

// Output: const __AUTODIFF_THROUGH: &'static [bool] = &[true, false];
/// The companion's declaration where its hidden sweeps keep the parameters outside `wrt(..)` constant
/// ([`unplanned`]): no derivative comes back through them, so a caller passing a differentiated argument
/// there is the compile error of `require_through!`, never a zero derivative taken for the true one.
pub(crate) fn constant_through(own_sig: &Signature, all_sig: &Signature) -> TokenStream {
    let slots =
        (own_sig.params.iter().zip(&all_sig.params)).map(|(own, all)| own.active || !all.active);
    quote! {
        #[doc(hidden)]
        pub const __AUTODIFF_THROUGH: &'static [bool] = &[#(#slots),*];
    }
}

impl Maybe {
    // Output: const __AUTODIFF_THROUGH: &'static [bool] = &[true, through_of!(bump; 1usize)];
    /// The companion's declaration of the parameters it differentiates through: a parameter outside
    /// `wrt(..)` where every call it reaches has derivatives and differentiates through the argument's
    /// parameter.
    ///
    /// A call of the function itself by its bare name (recursion, `k + x / tail(x, k + 2.0, n - 1)`)
    /// would read the constant being defined, a cycle rustc rejects (E0391): such a term stands for
    /// the slot it names instead, and a slot is the conjunction of the other terms of every slot it
    /// reaches that way (the greatest fixed point: a parameter passed on to the recursion goes through
    /// it exactly where the other calls it reaches, at any depth, pass derivatives on).
    pub(crate) fn through_const(&self, own: &Ident) -> TokenStream {
        let is_own = |callee: &syn::ExprPath| {
            callee.qself.is_none()
                && callee.path.leading_colon.is_none()
                && callee.path.segments.len() == 1
                && callee.path.segments[0].ident == *own
                && matches!(callee.path.segments[0].arguments, syn::PathArguments::None)
        };
        let slots = (0..self.reached.len()).map(|i| {
            // The slots that slot `i` reaches through the recursion, `i` included.
            let mut seen = vec![false; self.reached.len()];
            let mut stack = vec![i];
            seen[i] = true;
            while let Some(k) = stack.pop() {
                for (callee, j) in &self.reached[k] {
                    if is_own(callee) && *j < seen.len() && !seen[*j] {
                        seen[*j] = true;
                        stack.push(*j);
                    }
                }
            }
            let terms: Vec<TokenStream> = (0..self.reached.len())
                .filter(|k| seen[*k])
                .flat_map(|k| &self.reached[k])
                .filter(|(callee, _)| !is_own(callee))
                .filter_map(|(callee, j)| crate::companion::through_of(callee, *j))
                .collect();
            match terms.is_empty() {
                true => quote!(true),
                false => quote!(#(#terms)&&*),
            }
        });
        quote! {
            #[doc(hidden)]
            pub const __AUTODIFF_THROUGH: &'static [bool] = &[#(#slots),*];
        }
    }
}

// Input:  a call `bump(0.5, t)` of `g` (`wrt(u)`), `t: f64` outside `wrt(..)`, in `g`'s generic copy
// Output: (::autodiff::__private::copy_or_as_written!(bump, __S, (__a0: f64, __a1: f64)))(lit::<__S>(0.5), t)
//         read back for the copy's own expansion as the callee
//         <bump as ::autodiff::__private::GenericCopy>::Copy::__copy_or_as_written::<__S, f64, f64>
/// A call of the generic copy of a function (for `order = K`) that only parameters outside `wrt(..)` reach:
/// the callee's copy where it has derivatives, else the callee as written on the values of its arguments
/// (`__private::copy_or_as_written!`). Inside the copy, such arguments are constants: `f_hessian` lifts only
/// the `wrt(..)` inputs, and a caller passing a differentiated argument there is the compile error of
/// `require_through!` at its first order (the companion's `__AUTODIFF_THROUGH`), so no tangent is dropped;
/// `__private::plain` panics on one all the same. The copy's hidden sweeps, which differentiate every float
/// parameter, run the copy's derivatives only where the callee has them (`copy_plan`), as the function's own
/// do (`plan`).
#[derive(Clone, Debug)]
pub(crate) struct CopyCall {
    /// The callee as written (`bump`, `shapes::bump`).
    pub(crate) path: syn::Path,
    /// The copy's float type (`__S`).
    pub(crate) scalar: syn::Type,
    /// What each argument is.
    pub(crate) args: Vec<CopyArg>,
}

/// An argument of a [`CopyCall`].
#[derive(Clone, Debug)]
pub(crate) enum CopyArg {
    /// A float, of the callee's float type (`f64`) as written: the copy's float type in the copy, its
    /// value (`__private::plain`) for the callee as written.
    Float(Box<syn::Type>),
    /// Another value (an integer), passed as it is.
    Other,
    /// A constant from outside the function (`HALF`, `phys::G`), of a type the macro cannot see: passed
    /// as written, for the callee's copy through `__private::constant` (a float one in the copy's float
    /// type, an integer one as it is).
    Constant,
    /// A reference to an array of floats (`&w`) of the element type as written (`f64`): as it is in the
    /// copy, a reference to its values (`__private::plain_array`) for the callee as written. Written
    /// `[f64]`.
    Array(Box<syn::Type>),
    /// An array of floats that the callee writes (`&mut v`), of the element type as written (`f64`): as it
    /// is in the copy; for the callee as written, a buffer of its values (`__private::plain_array`) whose
    /// elements are written back after the call, lifted (`__private::write_back`). Written `[mut f64]`, the
    /// callee form's `&mut [f64]`.
    Output(Box<syn::Type>),
    /// A tuple of this many floats passed by value (`product((0.5, c))`): as it is in the copy, its
    /// values in the callee's float types (`__private::plain_tuple`) for the callee as written. Written
    /// `(_, _)`.
    Tuple(usize),
}

/// `(_, _)`: the mode of a [`CopyArg::Tuple`] of `n` floats.
fn infer_tuple(n: usize) -> TokenStream {
    let parts = (0..n).map(|_| quote!(_));
    quote!((#(#parts),*))
}

/// The name of the last segment of the callee form of a [`CopyCall`].
const COPY_OR_AS_WRITTEN: &str = "__copy_or_as_written";

impl CopyCall {
    /// The arguments' names in the closure of `copy_or_as_written!`.
    fn names(&self) -> Vec<Ident> {
        (0..self.args.len())
            .map(|i| quote::format_ident!("__a{}", i))
            .collect()
    }

    /// The method of `__private::Site` through which a `#[gradient_of(path)]` registration of a callee by a
    /// path of two or more segments is found (`naming::registered_path`), after a comma.
    fn registered(&self) -> Option<TokenStream> {
        crate::naming::registered_path(&self.path).map(|key| quote!(, #key))
    }

    /// The callable, as the copy's body and the primal of its sweeps write it:
    /// `(::autodiff::__private::copy_or_as_written!(bump, __S, (__a0: f64, __a1: _, __a2: const)))`.
    pub(crate) fn written(&self) -> TokenStream {
        let (path, scalar, names) = (
            crate::companion::imported(&self.path),
            &self.scalar,
            self.names(),
        );
        let modes = self.args.iter().map(|a| match a {
            CopyArg::Float(ty) => quote!(#ty),
            CopyArg::Other => quote!(_),
            CopyArg::Constant => quote!(const),
            CopyArg::Array(ty) => quote!([#ty]),
            CopyArg::Output(ty) => quote!([mut #ty]),
            CopyArg::Tuple(n) => infer_tuple(*n),
        });
        let registered = self.registered();
        quote!(
            (::autodiff::__private::copy_or_as_written!(#path, #scalar, (#(#names: #modes),*) #registered))
        )
    }

    /// The callee form that the passes after the shadow read (`shadow::is_generic_copy_call` holds), one
    /// generic argument per argument (`()` for a constant):
    /// `<bump as ::autodiff::__private::GenericCopy>::Copy::__copy_or_as_written::<__S, f64, _, ()>`.
    pub(crate) fn callee(&self) -> syn::ExprPath {
        let (path, scalar) = (&self.path, &self.scalar);
        let name = Ident::new(COPY_OR_AS_WRITTEN, proc_macro2::Span::call_site());
        let modes = self.args.iter().map(|a| match a {
            CopyArg::Float(ty) => quote!(#ty),
            CopyArg::Other => quote!(_),
            CopyArg::Constant => quote!(()),
            CopyArg::Array(ty) => quote!([#ty]),
            CopyArg::Output(ty) => quote!(&mut [#ty]),
            CopyArg::Tuple(n) => infer_tuple(*n),
        });
        syn::parse_quote!(<#path as ::autodiff::__private::GenericCopy>::Copy::#name::<#scalar, #(#modes),*>)
    }

    /// The call of the callee form `callee`, if it is one.
    pub(crate) fn of_callee(callee: &syn::ExprPath) -> Option<CopyCall> {
        let last = callee.path.segments.last()?;
        if last.ident != COPY_OR_AS_WRITTEN {
            return None;
        }
        let syn::Type::Path(ty) = &*callee.qself.as_ref()?.ty else {
            return None;
        };
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        let mut types = args.args.iter().map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t.clone()),
            _ => None,
        });
        let scalar = types.next()??;
        let args = types
            .map(|t| {
                Some(match t? {
                    syn::Type::Infer(_) => CopyArg::Other,
                    syn::Type::Tuple(t) if t.elems.is_empty() => CopyArg::Constant,
                    syn::Type::Tuple(t) => CopyArg::Tuple(t.elems.len()),
                    syn::Type::Slice(t) => CopyArg::Array(t.elem),
                    syn::Type::Reference(r) if r.mutability.is_some() => match *r.elem {
                        syn::Type::Slice(t) => CopyArg::Output(t.elem),
                        _ => return None,
                    },
                    t => CopyArg::Float(Box::new(t)),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(CopyCall {
            path: ty.path.clone(),
            scalar,
            args,
        })
    }

    /// The call of `func`, if it is a callable that [`CopyCall::written`] wrote.
    pub(crate) fn of_written(func: &syn::Expr) -> Option<CopyCall> {
        let mut func = func;
        while let syn::Expr::Paren(p) = func {
            func = &p.expr;
        }
        let syn::Expr::Macro(m) = func else {
            return None;
        };
        let names = crate::naming::path_names(&m.mac.path);
        if names != ["autodiff", "__private", "copy_or_as_written"] {
            return None;
        }
        struct Parsed(CopyCall);
        impl syn::parse::Parse for Parsed {
            fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
                let path: syn::Path = input.parse()?;
                input.parse::<syn::Token![,]>()?;
                let scalar: syn::Type = input.parse()?;
                input.parse::<syn::Token![,]>()?;
                let content;
                syn::parenthesized!(content in input);
                // (Then the registration's method, which `registered` gives again.)
                let _: TokenStream = input.parse()?;
                let arguments = content.parse_terminated(
                    |input| {
                        input.parse::<Ident>()?;
                        input.parse::<syn::Token![:]>()?;
                        if input.parse::<Option<syn::Token![const]>>()?.is_some() {
                            return Ok(CopyArg::Constant);
                        }
                        // `[mut f64]`, not a type.
                        let fork = input.fork();
                        let written = (|| {
                            let inner;
                            syn::bracketed!(inner in fork);
                            inner.parse::<syn::Token![mut]>()?;
                            inner.parse::<syn::Type>()
                        })();
                        if let Ok(ty) = written {
                            use syn::parse::discouraged::Speculative;
                            input.advance_to(&fork);
                            return Ok(CopyArg::Output(Box::new(ty)));
                        }
                        Ok(match input.parse::<syn::Type>()? {
                            syn::Type::Infer(_) => CopyArg::Other,
                            syn::Type::Slice(t) => CopyArg::Array(t.elem),
                            syn::Type::Tuple(t) => CopyArg::Tuple(t.elems.len()),
                            t => CopyArg::Float(Box::new(t)),
                        })
                    },
                    syn::Token![,],
                )?;
                Ok(Parsed(CopyCall {
                    path,
                    scalar,
                    args: arguments.into_iter().collect(),
                }))
            }
        }
        syn::parse2::<Parsed>(m.mac.tokens.clone())
            .ok()
            .map(|p| p.0)
    }

    /// `found_of!(bump)`: does the callee have derivatives?
    pub(crate) fn found(&self) -> TokenStream {
        let (path, registered) = (crate::companion::imported(&self.path), self.registered());
        quote!(::autodiff::__private::found_of!(#path #registered))
    }

    /// The derivative `item` of the callee's copy, for one argument of each of `types` (`impl Sized`, `()`,
    /// as `companion::derivative_of_unchecked` takes them), or a stand-in that never returns where it has
    /// none; `checked`: with one `_` per argument, and the error where there are none.
    pub(crate) fn derivative(
        &self,
        item: &str,
        types: &[TokenStream],
        checked: bool,
    ) -> TokenStream {
        let (path, registered) = (crate::companion::imported(&self.path), self.registered());
        let item = Ident::new(item, proc_macro2::Span::call_site());
        match checked {
            true => {
                let placeholders = types.iter().map(|_| quote!(_));
                quote!(::autodiff::__private::copy_derivative_of!(@checked #path, #item(#(#placeholders),*) #registered).#item)
            }
            false => {
                quote!(::autodiff::__private::copy_derivative_of!(#path, #item(#(#types),*) #registered).#item)
            }
        }
    }
}

/// The callees (among `plain`, the plain calls under `own`, the activity of the function's `wrt(..)`) that
/// the generic copy calls through `copy_or_as_written!` ([`CopyCall`]): those that the hidden sweeps'
/// activity `all` makes no plain calls (`all_plain`, the plain calls under it), called by a name or a path
/// at each call, with one scalar result (`let y = bump(..)`), with scalar arguments or references to arrays
/// of floats (`bump(&w)`), each call reached only
/// by parameters outside `wrt(..)` (or by nothing); none where an item of the body could hide a callee's
/// name (as [`plan`]).
pub(crate) fn copy_calls(
    f: &Function,
    own: &Activity,
    all: &Activity,
    plain: Vec<crate::shadow::PlainCall>,
    all_plain: &[crate::shadow::PlainCall],
) -> Vec<crate::shadow::PlainCall> {
    if f.items
        .iter()
        .any(|item| !matches!(item, syn::Item::Const(_)))
    {
        return Vec::new();
    }
    // A result that surely is one float, which the copy lifts to its own float type (`__private::Lift`,
    // which a struct of the user's does not implement): so the body tells, or the result's use in float
    // arithmetic (`x * bump(0.5, t)`).
    let scalar = crate::reverse::call_gradient::scalar_calls(f, all);
    let float = |var: &Var| scalar.contains(var) || matches!(all.var_kind(*var), Kind::Float(_));
    // Each argument a float, an integer or a `bool` by the syntax, or a constant from outside (`HALF`,
    // `phys::G`, which the copy passes as written): another of a type the syntax does not tell would reach
    // the callee as written in the copy's float type.
    let known = |a: &Operand| match a {
        Operand::Const {
            kind: Kind::Unknown,
            tokens,
        } => syn::parse2::<syn::Path>(tokens.clone()).is_ok_and(|p| {
            p.segments.last().is_some_and(|s| {
                let name = s.ident.to_string();
                name.chars().any(|c| c.is_ascii_uppercase())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            })
        }),
        // A local array or a slice of floats, passed by reference (`plain_calls`' `arrays`), not a
        // matrix nor an output.
        Operand::Array(array) => {
            let info = &f.arrays[array.0 as usize];
            info.matrix.is_none() && !info.output && matches!(own.elem_kind(*array), Kind::Float(_))
        }
        // A tuple of floats (`product((0.5, c))`), which `plain_calls` passes by value only.
        _ => match own.kind(a) {
            Kind::Float(_) | Kind::Int | Kind::Bool => true,
            Kind::Tuple(parts) => parts.iter().all(|k| matches!(k, Kind::Float(_))),
            _ => false,
        },
    };
    let eligible = |name: &str| {
        calls(f).into_iter().all(|(stmt, callee, args)| {
            if callee.path.to_token_stream().to_string() != name {
                return true;
            }
            // One float (`let y = bump(..)`), or an array, a `Vec` (`let v = features(c)`) or a tuple
            // (`let (p, q) = pair(c)`) of floats, which `Lift` lifts as a whole.
            let lifted = match stmt {
                Stmt::Let { var, .. } => {
                    let info = &f.vars[var.0 as usize];
                    info.called_variable.is_none()
                        && match info.tuple_arity {
                            None => float(var),
                            Some(_) => matches!(all.var_kind(*var), Kind::Tuple(parts)
                                if parts.iter().all(|k| matches!(k, Kind::Float(_)))),
                        }
                }
                // Writing whole arrays of floats (`fill(c, &mut v)`), none an output parameter of `f`.
                Stmt::CallOut {
                    args,
                    written,
                    passed_on: false,
                    ..
                } => args.iter().zip(written).all(|(a, w)| match (a, w) {
                    (_, crate::ir::Written::No) => true,
                    (Operand::Array(array), crate::ir::Written::Array) => {
                        let info = &f.arrays[array.0 as usize];
                        info.matrix.is_none()
                            && !info.output
                            && matches!(all.elem_kind(*array), Kind::Float(_))
                    }
                    _ => false,
                }),
                Stmt::NewArray { array, .. } => {
                    let info = &f.arrays[array.0 as usize];
                    // (Of elements the syntax does not tell, `features(c)`'s: `Lift` takes floats,
                    // integers and what is made of them, rustc's error on anything else.)
                    info.matrix.is_none()
                        && !info.output
                        && matches!(all.elem_kind(*array), Kind::Float(_) | Kind::Unknown)
                }
                _ => false,
            };
            // A tuple by value only (`plain_tuple` takes it apart; `&t` would reach the callee as
            // written in the copy's float type).
            let by_ref: &[bool] = match stmt {
                Stmt::Let {
                    value: Value::Call { by_ref, .. },
                    ..
                }
                | Stmt::NewArray {
                    init: ArrayInit::Call { by_ref, .. },
                    ..
                }
                | Stmt::CallOut { by_ref, .. } => by_ref,
                _ => &[],
            };
            let tuple_by_ref =
                (args.iter().zip(by_ref)).any(|(a, r)| *r && matches!(own.kind(a), Kind::Tuple(_)));
            // The copy's hidden sweeps choose the derivatives of a call of one float of floats at compile
            // time (`copy_plan`), and keep the parameters outside `wrt(..)` constant at another
            // (`copy_unplanned`).
            lifted
                && !tuple_by_ref
                && callee.qself.is_none()
                && plain_turbofish(&callee.path)
                && crate::companion::companion_path(callee).is_some()
                && args.iter().all(known)
                && !args.iter().any(|a| own.is_active(a))
                && (!args.iter().any(|a| all.is_active(a))
                    || !planned_in_copy(stmt, args, all)
                    || crate::reverse::adds_into_callers(f, all, args))
        })
    };
    plain
        .into_iter()
        .filter(|p| {
            !all_plain.iter().any(|q| q.callee == p.callee)
                && !p.constant_result
                && p.arrays.iter().all(|a| a.is_none_or(|reference| reference))
                && eligible(&p.callee)
        })
        .map(|p| crate::shadow::PlainCall { maybe: true, ..p })
        .collect()
}

/// Does `path` name a function with no generic arguments but, maybe, a turbofish of types on its last
/// segment (`gbump::<f64>`, `gbump::<T>`)? Such a call is written in the copy without it
/// ([`CopyCall`]): a companion type is not generic, the callee's copy takes the copy's float type, and the
/// callee as written infers its types from its arguments, each of its float type there.
fn plain_turbofish(path: &syn::Path) -> bool {
    let Some(last) = path.segments.last() else {
        return false;
    };
    let before = path.segments.len() - 1;
    path.segments
        .iter()
        .take(before)
        .all(|s| s.arguments.is_none())
        && match &last.arguments {
            syn::PathArguments::None => true,
            syn::PathArguments::AngleBracketed(args) => args.args.iter().all(|a| {
                matches!(a, syn::GenericArgument::Type(syn::Type::Path(t))
                    if t.qself.is_none() && t.path.get_ident().is_some())
            }),
            syn::PathArguments::Parenthesized(_) => false,
        }
}

/// The maybe calls of the hidden sweeps of a generic copy (`own` the activity of its `wrt(..)`, `all` that
/// of every float parameter): its calls through `copy_or_as_written!` ([`CopyCall`]) that only parameters
/// outside `wrt(..)` reach. Their derivatives run only where the callee has them (`found_of!`), else their
/// derivative is zero: no tangent comes through those parameters, whose callers check that
/// (`require_through!`, at their first order).
pub(crate) fn copy_plan(
    f: &Function,
    own: &Activity,
    all: &Activity,
) -> (BTreeSet<Var>, BTreeSet<Array>) {
    let (mut maybe, mut arrays) = (BTreeSet::new(), BTreeSet::new());
    for (stmt, callee, args) in calls(f) {
        let chosen = CopyCall::of_callee(callee).is_some()
            && planned_in_copy(stmt, args, all)
            && args.iter().any(|a| all.is_active(a))
            && !args.iter().any(|a| own.is_active(a));
        match stmt {
            Stmt::Let { var, .. } if chosen => {
                maybe.insert(*var);
            }
            Stmt::NewArray { array, .. } if chosen => {
                arrays.insert(*array);
            }
            _ => {}
        }
    }
    (maybe, arrays)
}

/// Whether a call of a generic copy through `copy_or_as_written!` is one whose derivatives its hidden
/// sweeps choose at compile time ([`copy_plan`]): its value one float (`let y = bump(..)`), none of its
/// arguments a tuple. Another (`let v = features(c)`, `product((0.5, c))`) makes them keep the parameters
/// outside `wrt(..)` constant ([`copy_unplanned`]).
fn planned_in_copy(stmt: &Stmt, args: &[Operand], all: &Activity) -> bool {
    let value = matches!(stmt, Stmt::Let { .. } | Stmt::NewArray { .. });
    value && !args.iter().any(|a| matches!(all.kind(a), Kind::Tuple(_)))
}

/// Whether the generic copy `f` (`own` the activity of its `wrt(..)`, `all` that of every float parameter)
/// calls through `copy_or_as_written!` ([`CopyCall`]), reached only by parameters outside `wrt(..)`, a
/// callee that takes a tuple (`product((0.5, c))`) or writes an output (`fill(c, &mut v)`), or makes a
/// variant of one (`Some(c)`, which carries no derivative, `companion::is_variant`): the first
/// order's hidden
/// sweeps keep those parameters constant there ([`unplanned`], [`constant_through`]), and so do the copy's,
/// which then call it as its primal does, whether or not the callee has derivatives. (Callers
/// differentiating such a parameter are `require_through!`'s error at their first order.)
pub(crate) fn copy_unplanned(f: &Function, own: &Activity, all: &Activity) -> bool {
    calls(f).iter().any(|(stmt, callee, args)| {
        (!planned_in_copy(stmt, args, all) && CopyCall::of_callee(callee).is_some()
            || crate::companion::is_variant(callee))
            && args.iter().any(|a| all.is_active(a))
            && !args.iter().any(|a| own.is_active(a))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Args;
    use quote::ToTokens;

    /// `src` lowered under `args`: the function, its signature, that signature with every parameter
    /// differentiated through calls, and the activity of each.
    fn lowered(src: &str, args: &str) -> (Function, Signature, Signature, Activity, Activity) {
        let item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let args: Args = syn::parse_str(args).expect("test arguments parse");
        let mut errors = Errors::default();
        let sig =
            crate::signature::analyze(&item, &args, &mut errors).expect("supported signature");
        let mut all_sig = sig.clone();
        for p in &mut all_sig.params {
            p.active = p.through_calls();
        }
        let f = crate::lower::lower(&item, &sig, Vec::new(), &mut errors);
        let own = activity::analyze(&f, &sig, &[], &mut errors);
        let all = activity::analyze(&f, &all_sig, &[], &mut Errors::default());
        (f, sig, all_sig, own, all)
    }

    /// The maybe calls of `src` under `args` (by their callees' names) and, per parameter, what it reaches
    /// (`callee@position`); `None` where the plan declines.
    fn analysed(src: &str, args: &str) -> Option<(Vec<String>, Vec<Vec<String>>)> {
        let (f, sig, all_sig, own, all) = lowered(src, args);
        let maybe = plan(&f, &sig, &all_sig, &own, &all, &[])?;
        let callee_of = |var: &Var| {
            calls(&f)
                .into_iter()
                .find_map(|(stmt, callee, _)| match stmt {
                    Stmt::Let { var: v, .. } if v == var => {
                        Some(callee.to_token_stream().to_string())
                    }
                    _ => None,
                })
        };
        let calls = maybe.calls.iter().filter_map(callee_of).collect();
        let reached = (maybe.reached.iter())
            .map(|r| {
                r.iter()
                    .map(|(c, j)| format!("{}@{j}", c.to_token_stream()))
                    .collect()
            })
            .collect();
        Some((calls, reached))
    }

    #[test]
    fn a_call_only_an_excluded_parameter_reaches_is_a_maybe_call() {
        let (calls, reached) = analysed(
            "fn g(u: &[f64], t: f64) -> f64 { let b = bump(0.5, t); u[0] * u[0] + b * h(u[1], t * t) }",
            "wrt(u)",
        )
        .expect("a plan");
        assert_eq!(calls, vec!["bump".to_string()]);
        assert_eq!(
            reached,
            vec![Vec::<String>::new(), vec!["bump@1".into(), "h@1".into()]]
        );
    }

    #[test]
    fn without_wrt_or_calls_there_is_no_plan() {
        assert!(analysed("fn g(u: &[f64], t: f64) -> f64 { u[0] * bump(0.5, t) }", "").is_none());
        assert!(analysed(
            "fn g(u: &[f64], t: f64) -> f64 { u[0] * t.sin() }",
            "wrt(u)"
        )
        .is_none());
    }

    #[test]
    fn an_excluded_parameter_passed_beside_a_differentiated_one_is_declared() {
        let (calls, reached) = analysed(
            "fn g(u: &[f64], t: f64) -> f64 { u[0] * h(u[1], t) }",
            "wrt(u)",
        )
        .expect("a plan");
        assert!(calls.is_empty());
        assert_eq!(reached, vec![Vec::<String>::new(), vec!["h@1".to_string()]]);
    }

    /// Is a call left unplanned in `src` under `args` (`unplanned`), and the `__AUTODIFF_THROUGH` slots
    /// that `constant_through` then declares?
    fn constant(src: &str, args: &str) -> (bool, String) {
        let (f, sig, all_sig, own, all) = lowered(src, args);
        let through = constant_through(&sig, &all_sig).to_string();
        let slots = through.split("& [").nth(1).unwrap_or_default();
        (
            unplanned(&f, &own, &all),
            slots.trim_end_matches("] ;").trim().to_string(),
        )
    }

    #[test]
    fn a_call_of_an_array_only_an_excluded_parameter_reaches_is_a_maybe_call() {
        // A tuple: planned as a scalar one.
        let src = "fn g(u: &[f64], t: f64) -> f64 { let (p, q) = pair(t); u[0] * p * q }";
        let (calls, reached) = analysed(src, "wrt(u)").expect("a plan");
        assert_eq!(calls, ["pair"]);
        assert_eq!(
            reached,
            vec![Vec::<String>::new(), vec!["pair@0".to_string()]]
        );
        // A `Vec` or an array: planned as a scalar one (its cotangent buffer passed to `vjp_into` where
        // the callee has derivatives), `t` declared through the callee's parameter.
        for body in [
            "let v = features(t); u[0] * v[0]",
            "let v = features_array(t); u[0] * v[1] + v[0]",
        ] {
            let src = format!("fn g(u: &[f64], t: f64) -> f64 {{ {body} }}");
            let (f, sig, all_sig, own, all) = lowered(&src, "wrt(u)");
            let maybe = plan(&f, &sig, &all_sig, &own, &all, &[]).expect("a plan");
            assert!(maybe.calls.is_empty(), "{body}");
            assert_eq!(maybe.arrays.len(), 1, "{body}");
            let g = Ident::new("g", proc_macro2::Span::call_site());
            let through = maybe.through_const(&g).to_string();
            assert!(through.contains("through_of ! (features"), "{through}");
        }
        // Of a slice parameter (`moments(data)`).
        let src = "fn g(u: &[f64], data: &[f64]) -> f64 { let m = moments(data); u[0] * m[0] }";
        let (f, sig, all_sig, own, all) = lowered(src, "wrt(u)");
        assert_eq!(
            plan(&f, &sig, &all_sig, &own, &all, &[])
                .expect("a plan")
                .arrays
                .len(),
            1
        );
    }

    #[test]
    fn a_recursive_call_does_not_read_the_constant_being_defined() {
        // `k` outside `wrt(..)` passed on to the function itself: its slot stands for itself (true), not
        // `through_of!(tail; 1usize)`, which would read `tail::__AUTODIFF_THROUGH` inside its own
        // definition (rustc's E0391 cycle, tests/trial45.rs::continued_fraction).
        let src = "fn tail(x: f64, k: f64, n: usize) -> f64 { if n == 0 { return k; } k + x / tail(x, k + 2.0, n - 1) }";
        let (f, sig, all_sig, own, all) = lowered(src, "wrt(x)");
        let maybe = plan(&f, &sig, &all_sig, &own, &all, &[]).expect("a plan");
        let own_name = Ident::new("tail", proc_macro2::Span::call_site());
        let through = maybe.through_const(&own_name).to_string();
        assert!(!through.contains("through_of"), "{through}");
        // Through the recursion to another slot, which reaches a helper: the helper's term, once per slot.
        let src = "fn tail(x: f64, k: f64, c: f64, n: usize) -> f64 { if n == 0 { return bump(c); } x * tail(x, c, k, n - 1) }";
        let (f, sig, all_sig, own, all) = lowered(src, "wrt(x)");
        let maybe = plan(&f, &sig, &all_sig, &own, &all, &[]).expect("a plan");
        let through = maybe.through_const(&own_name).to_string();
        assert!(!through.contains("through_of ! (tail"), "{through}");
        assert_eq!(
            through.matches("through_of ! (bump").count(),
            2,
            "{through}"
        );
    }

    #[test]
    fn calls_of_tuples_and_outputs_only_excluded_parameters_reach_are_unplanned() {
        // A tuple argument, an output: no plan, and `t` declared not through; beside a planned call too.
        for body in [
            "u[0] * product((0.5, t))",
            "let mut v = [0.0; 2]; fill(t, &mut v); u[0] * v[1]",
            "let b = bump(t); u[0] * product((0.5, t)) * b",
        ] {
            let src = format!("fn g(u: &[f64], t: f64) -> f64 {{ {body} }}");
            assert!(analysed(&src, "wrt(u)").is_none(), "{body}");
            assert_eq!(
                constant(&src, "wrt(u)"),
                (true, "true , false".to_string()),
                "{body}"
            );
        }
        // Reached by a differentiated parameter too: the call needs the callee's derivatives, as before.
        let src = "fn g(u: &[f64], t: f64) -> f64 { let v = features(t * u[0]); v[0] }";
        assert!(!constant(src, "wrt(u)").0);
        // Without `wrt(..)`, nothing is left out.
        let src = "fn g(u: &[f64], t: f64) -> f64 { let (p, q) = pair(t); u[0] * p * q }";
        assert_eq!(constant(src, ""), (false, "true , true".to_string()));
    }

    /// The callees that the generic copy of `src` (under `args`) calls through `copy_or_as_written!`.
    fn copied(src: &str, args: &str) -> Vec<String> {
        let (f, sig, _, own, all) = lowered(src, args);
        let plain = crate::expand::plain_calls_of_values(&f, &own, &sig);
        let all_plain = crate::expand::plain_calls(&f, &all, &sig);
        copy_calls(&f, &own, &all, plain, &all_plain)
            .into_iter()
            .map(|p| p.callee)
            .collect()
    }

    #[test]
    fn the_copy_calls_a_helper_of_excluded_parameters_through_its_copy_or_as_written() {
        let src = "fn g(u: &[f64], t: f64, n: usize) -> f64 { let b = bump(0.5, t); u[0] * b + u[1] * h(n, t) * sq(t) }";
        assert_eq!(copied(src, "wrt(u)"), ["bump", "h", "sq"]);
        // By a path, and of a `const`.
        let src = "fn g(u: &[f64], t: f64) -> f64 { u[0] * shapes::bump(C, t) }";
        assert_eq!(copied(src, "wrt(u)"), ["shapes :: bump"]);
        // In `wrt(..)` (or without it), the arguments are differentiated: the callee's copy, as before.
        assert!(copied(src, "").is_empty());
        assert!(copied(src, "wrt(u, t)").is_empty());
        // Called with a differentiated argument elsewhere: its copy at every call.
        let src = "fn g(u: &[f64], t: f64) -> f64 { u[0] * bump(0.5, t) + bump(u[1], 1.0) }";
        assert!(copied(src, "wrt(u)").is_empty());
        // With a turbofish of types (written without it in the copy, `CopyCall`); not of a const or in a
        // segment before the last.
        let src = "fn g(u: &[f64], t: f64) -> f64 { u[0] * gbump::<f64>(0.5, t) }";
        assert_eq!(copied(src, "wrt(u)"), ["gbump :: < f64 >"]);
        let src = "fn g(u: &[f64], t: f64) -> f64 { u[0] * gbump::<f64, 3>(0.5, t) }";
        assert!(copied(src, "wrt(u)").is_empty());
        let src = "fn g(u: &[f64], t: f64) -> f64 { u[0] * m::<f64>::gbump(0.5, t) }";
        assert!(copied(src, "wrt(u)").is_empty());
    }

    #[test]
    fn the_copy_calls_a_helper_of_arrays_and_tuples_of_excluded_parameters_so_too() {
        // Its value a `Vec`, an array or a tuple of floats: `Lift` lifts it as a whole.
        for (body, callee) in [
            ("let v = features(t); u[0] * v[0]", "features"),
            ("let v = features_array(t); u[0] * v[1]", "features_array"),
            ("let (p, q) = pair(t); u[0] * p * q", "pair"),
            // A tuple of floats by value.
            ("u[0] * u[0] * product((0.5, t))", "product"),
            // Writing an array of floats: a buffer of its values, written back.
            ("let mut v = [0.0; 2]; fill(t, &mut v); u[0] * v[1]", "fill"),
        ] {
            let src = format!("fn g(u: &[f64], t: f64) -> f64 {{ {body} }}");
            assert_eq!(copied(&src, "wrt(u)"), [callee], "{body}");
            assert!(copied(&src, "").is_empty(), "{body}");
        }
        // Reached by a differentiated parameter too: the callee's copy, as before.
        let src = "fn g(u: &[f64], t: f64) -> f64 { let v = features(t * u[0]); v[0] }";
        assert!(copied(src, "wrt(u)").is_empty());
    }

    #[test]
    fn the_callee_forms_of_tuples_and_outputs_are_read_back() {
        let call = CopyCall {
            path: syn::parse_quote!(fill),
            scalar: syn::parse_quote!(__S),
            args: vec![
                CopyArg::Tuple(2),
                CopyArg::Output(Box::new(syn::parse_quote!(f64))),
            ],
        };
        let written = call.written().to_string();
        assert!(
            written.contains("(__a0 : (_ , _) , __a1 : [mut f64])"),
            "{written}"
        );
        let func: syn::Expr = syn::parse2(call.written()).expect("the callable parses");
        let callee = call.callee();
        for read in [CopyCall::of_written(&func), CopyCall::of_callee(&callee)] {
            let read = read.expect("read back");
            assert!(matches!(
                read.args[..],
                [CopyArg::Tuple(2), CopyArg::Output(_)]
            ));
            assert_eq!(
                read.callee().to_token_stream().to_string(),
                callee.to_token_stream().to_string()
            );
        }
    }

    #[test]
    fn a_helper_of_an_array_of_excluded_parameters_is_called_with_its_values() {
        // A local `Vec` or array holding one, passed by reference: `[f64]` in `copy_or_as_written!`.
        let src = "fn g(x: f64, c: f64) -> f64 { let w = vec![0.5, c]; psum(&w) * x }";
        assert_eq!(copied(src, "wrt(x)"), ["psum"]);
        let src = "fn g(x: f64, c: f64) -> f64 { let w = [c, 2.0]; ppair(&w) * x + psum(&w) }";
        assert_eq!(copied(src, "wrt(x)"), ["ppair", "psum"]);
        // Differentiated (no `wrt`, or `c` in it): the callee's copy, as before.
        assert!(copied(src, "").is_empty());
        // By value, or a matrix: not so.
        let src = "fn g(x: f64, c: f64) -> f64 { let w = vec![0.5, c]; psum(w) * x }";
        assert!(copied(src, "wrt(x)").is_empty());
        let src = "fn g(x: f64, c: f64) -> f64 { let m = vec![vec![c; 2]; 2]; pmat(&m) * x }";
        assert!(copied(src, "wrt(x)").is_empty());
        // The written form: `[f64]` for the array, read back by `of_written` and `of_callee`.
        let call = CopyCall {
            path: syn::parse_quote!(psum),
            scalar: syn::parse_quote!(__S),
            args: vec![CopyArg::Array(Box::new(syn::parse_quote!(f64)))],
        };
        let written: syn::Expr = syn::parse2(call.written()).expect("an expression");
        let read = CopyCall::of_written(&written).expect("a written call");
        assert!(
            matches!(&read.args[..], [CopyArg::Array(t)] if t.to_token_stream().to_string() == "f64")
        );
        let callee = call.callee();
        let read = CopyCall::of_callee(&callee).expect("a callee form");
        assert!(
            matches!(&read.args[..], [CopyArg::Array(t)] if t.to_token_stream().to_string() == "f64")
        );
    }

    #[test]
    fn a_result_not_surely_a_float_or_an_associated_callee_is_not_copied_so() {
        let declined = [
            // A result read only in a condition: a plain call already.
            "fn g(u: &[f64], t: f64) -> f64 { if bump(0.5, t) > 0.0 { u[0] } else { u[1] } }",
            // A result of a type of the user's (its field read).
            "fn g(u: &[f64], t: f64) -> f64 { let p = point(t); u[0] * p.x }",
            // (A tuple of floats is: `the_copy_calls_a_helper_of_arrays_and_tuples_..`.)
            // An argument of a type the syntax does not tell (a field).
            "fn g(u: &[f64], t: f64, p: Point) -> f64 { u[0] * bump(p.x, t) }",
            // An associated function, a nested `fn`.
            "fn g(u: &[f64], t: f64) -> f64 { u[0] * Helper::bump(t) }",
            "fn g(u: &[f64], t: f64) -> f64 { fn bump(t: f64) -> f64 { t } u[0] * bump(t) }",
        ];
        for src in declined {
            assert!(copied(src, "wrt(u)").is_empty(), "{src}");
        }
    }

    #[test]
    fn calls_that_cannot_be_chosen_at_compile_time_decline_the_plan() {
        // A tuple argument, an associated function, a nested `fn` that the companion could not name, a
        // function pointer.
        let declined = [
            "fn g(u: &[f64], t: f64) -> f64 { u[0] * product((0.5, t)) }",
            "fn g(u: &[f64], t: f64) -> f64 { u[0] * Helper::bump(t) }",
            "fn g(u: &[f64], t: f64) -> f64 { fn bump(t: f64) -> f64 { t } u[0] * bump(t) }",
            "fn g(u: &[f64], t: f64, h: fn(f64) -> f64) -> f64 { u[0] * h(t) }",
        ];
        for src in declined {
            assert!(analysed(src, "wrt(u)").is_none(), "{src}");
        }
    }
}
