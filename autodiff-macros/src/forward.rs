//! Forward mode: emits `f_jvp`, the primal code with each active value's tangent computed beside it.
//!
//! Tangents follow the same rules as adjoints (`rules.rs`): the tangent of `y = op(a, b)` is
//! `∂y/∂a · ȧ + ∂y/∂b · ḃ`. An active array has a tangent array beside it, written where it is written. A
//! loop carries the tangents of its carried values beside them. Two analyses prune straight-line code
//! first: which tangents reach the returned tangent, and which primal values the result and those tangents
//! read; loops and array writes are kept whole.
//!
//! ```text
//! // Input:                          // Output:
//! let z = x * y;                     let z = x * y; let __dot_z = __dot_x * y + __dot_y * x;
//! z.sin()                            let __v0 = z.sin(); let __dot_v0 = __dot_z * Float::cos(z);
//! ```

use crate::emit::{block_with_value, concat, tuple_or_single, Emitter, Recorder, Tokens};
use crate::ir::{
    Array, ArrayInit, Block, FloatFn, Function, Kind, Loop, Operand, Stmt, Value, Var, Written,
};
use crate::naming;
use crate::rules::{self, Partial, RuleCtx};
use crate::signature::Signature;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet};

struct Forward<'e, 'a> {
    e: &'e mut Emitter<'a>,
    /// Values whose primal is emitted.
    primal: BTreeSet<Var>,
    /// Values whose tangent is emitted.
    tangent: BTreeSet<Var>,
    /// The tangent of each value that has one.
    tangents: BTreeMap<Var, Tokens>,
    /// The tangent array of each active array.
    array_tangents: BTreeMap<Array, Ident>,
    /// While a loop is printed: its reads of tangents through views (`views.rs`), by the value read, and
    /// whether each was printed.
    tangent_views: BTreeMap<Var, (TokenStream, bool)>,
}

/// The body of `f_jvp`: given the input tangent `tangent`, returns `(value, output tangent)`. Over a copy
/// of the function that reads the inactive matrices read by element in place (`matrix_reads.rs`), if
/// there are any.
pub(crate) fn jvp_body(e: &mut Emitter, sig: &Signature, tangent: &Ident) -> TokenStream {
    match crate::matrix_reads::read_in_place(e) {
        Some((f, in_place)) => e.over(&f, &in_place, |e| sweep(e, sig, tangent)),
        None => sweep(e, sig, tangent),
    }
}

/// The forward sweep of [`jvp_body`], over `e`'s function.
fn sweep(e: &mut Emitter, sig: &Signature, tangent: &Ident) -> TokenStream {
    let f = e.f;
    e.read_matrices_in_place();
    // Sub-slices of arrays nothing writes, only read or lent: borrowed, not copied (no tangent of the
    // primal is taken from them; an active one's tangent is its own copy).
    e.borrowed_windows = crate::views::borrowed_windows(f);
    let returned = f.returned().clone();
    let tangent_needed = tangents_needed(f, e, &returned);
    let primal_needed = primal_needed(f, e, &tangent_needed, &returned);
    let mut fwd = Forward {
        e,
        primal: primal_needed,
        tangent: tangent_needed,
        tangents: BTreeMap::new(),
        array_tangents: BTreeMap::new(),
        tangent_views: BTreeMap::new(),
    };
    // Unpack the input tangent into the tangents of the active parameters.
    let active: Vec<(usize, Var)> = f
        .params
        .iter()
        .zip(&sig.params)
        .enumerate()
        .filter(|(_, (_, p))| p.active)
        .map(|(i, (v, _))| (i, *v))
        .collect();
    let mut checks = Vec::new();
    let mut names = Vec::new();
    let mut single_array = None;
    for &(i, var) in &active {
        let param = &sig.params[i];
        if param.array.is_some() {
            let array = Array(
                f.arrays
                    .iter()
                    .position(|a| a.param == Some(i))
                    .unwrap_or(0) as u32,
            );
            let name = fwd.array_tangent(array);
            let primal = &param.ident;
            let label = param.ident.to_string();
            if param.array.is_some_and(|shape| shape.matrix) {
                // The tangent of a matrix, flattened as the matrix is. A matrix read in place
                // (`views::in_place_matrices`) is not flattened: `#primal` is the matrix.
                let flat = if fwd.e.in_place.contains(&array) {
                    let matrix = naming::matrix(primal);
                    quote!(::autodiff::__private::flatten(&#matrix))
                } else {
                    primal.to_token_stream()
                };
                checks.push(quote!(
                    let mut #name = ::autodiff::__private::matrix_tangent(#label, &#name, &#flat);
                ));
                names.push(name.to_token_stream());
                continue;
            }
            // A float output's tangent, as the output is held: an array of one element.
            let given = if param.scalar {
                quote!([#name])
            } else {
                name.to_token_stream()
            };
            checks.push(
                quote!(let mut #name = ::autodiff::__private::tangent(#label, #given, &#primal);),
            );
            if active.len() == 1 {
                single_array = Some((name.clone(), label, primal.clone()));
            }
            names.push(name.to_token_stream());
        } else if fwd.tangent.contains(&var) {
            let name = fwd.e.tangent_name(var);
            fwd.tangents.insert(var, Tokens::Name(name.clone()));
            names.push(name.into_token_stream());
        } else {
            names.push(quote!(_));
        }
    }
    let unpack = match (single_array, names.as_slice()) {
        // One array parameter: its length check takes the tangent directly.
        (Some((name, label, primal)), _) => {
            checks.clear();
            let given = if sig.params.iter().any(|p| p.active && p.scalar) {
                quote!([#tangent])
            } else {
                tangent.to_token_stream()
            };
            quote!(let mut #name = ::autodiff::__private::tangent(#label, #given, &#primal);)
        }
        (None, []) => quote!(let _ = #tangent;),
        (None, [one]) => quote!(let #one = #tangent;),
        (None, many) => quote!(let (#(#many,)*) = #tangent;),
    };
    // Output parameters: their tangents go into the caller's buffers, starting from the incoming tangent
    // when the body reads the incoming value, else from zero.
    let mut outputs = Vec::new();
    for (i, param) in sig.params.iter().enumerate().filter(|(_, p)| p.output) {
        let Some(array) = f.arrays.iter().position(|a| a.param == Some(i)) else {
            continue;
        };
        let array = Array(array as u32);
        let (primal, label) = (&param.ident, param.ident.to_string());
        let buffer = naming::output_tangent(primal);
        let buffer = if param.scalar {
            quote!(::core::slice::from_mut(#buffer))
        } else {
            buffer.to_token_stream()
        };
        if param.active || fwd.e.activity.is_active_array(array) {
            let incoming = fwd.array_tangents.get(&array).cloned();
            let name = fwd.e.namer.fresh(&naming::tangent_base(&label));
            let fill = match incoming {
                Some(incoming) => {
                    quote!(::autodiff::__private::copy_into(#label, &mut #name[..], &#incoming[..]);)
                }
                None => quote!(::autodiff::__private::clear(&mut #name[..]);),
            };
            outputs.push(quote! {
                let mut #name = ::autodiff::__private::output_tangent(#label, #buffer, &#primal);
                #fill
            });
            fwd.array_tangents.insert(array, name);
        } else {
            outputs.push(quote!(::autodiff::__private::clear(&mut #buffer[..]);));
        }
    }
    let mut code = Vec::new();
    fwd.block(&f.body, &mut code);
    let value = fwd.e.operand(&returned);
    let unit = matches!(sig.ret_kind, crate::ir::Kind::Unit);
    let out_tangent = match &returned {
        // A function returning `()`: its outputs' tangents are in the caller's buffers.
        _ if unit => TokenStream::new(),
        Operand::Array(array) => match fwd.array_tangents.get(array) {
            Some(t) => t.to_token_stream(),
            // A returned array with no tangent (it depends on no active input): zeros of its length, made
            // before the result tuple moves the array.
            None => {
                let zeros = fwd.e.namer.fresh(&naming::tangent_base(&value.to_string()));
                code.push(quote!(let #zeros = ::autodiff::__private::zeros_like(&#value);));
                zeros.to_token_stream()
            }
        },
        _ => fwd.tangent_of(&returned, &sig.ret_kind).into(),
    };
    let items = fwd.e.items();
    let deref = sig.deref_scalars(&fwd.e.in_place_names());
    let result = if unit {
        TokenStream::new()
    } else {
        quote!((#value, #out_tangent))
    };
    let mut all = vec![items, deref, unpack];
    all.extend(checks);
    all.extend(outputs);
    all.extend(code);
    all.push(result);
    concat(all)
}

/// Records the values a rule reads, without emitting anything.
struct DryRun<'r> {
    refs: &'r mut BTreeSet<Var>,
    result: Var,
}

impl RuleCtx for DryRun<'_> {
    fn operand(&mut self, operand: &Operand) -> Tokens {
        self.refs.extend(operand.var());
        Tokens::Other(quote!(_))
    }
    fn result(&mut self) -> Tokens {
        self.refs.insert(self.result);
        Tokens::Other(quote!(_))
    }
    fn fresh(&mut self, _: &str) -> Ident {
        Ident::new("_", Span::mixed_site())
    }
}

/// Grows `set` along `step` until nothing changes.
///
/// What is needed flows from a statement to the operands defined before it, so the statements are
/// visited last to first and each one's additions are seen by the earlier ones at once: straight-line
/// code settles in one pass, and only values carried around loops take more.
fn fixpoint(
    stmts: &[&Stmt],
    set: &mut BTreeSet<Var>,
    mut step: impl FnMut(&Stmt, &BTreeSet<Var>, &mut Vec<Var>),
) {
    let mut added = Vec::new();
    loop {
        let before = set.len();
        for stmt in stmts.iter().rev() {
            step(stmt, set, &mut added);
            set.extend(added.drain(..));
        }
        if set.len() == before {
            return;
        }
    }
}

/// Every value defined inside a loop (carried, index, body), which forward mode keeps whole.
fn loop_values(l: &Loop) -> Vec<Var> {
    let mut vars: Vec<Var> = l.phis.iter().chain(&l.outs).copied().collect();
    vars.extend(l.range.as_ref().map(|(_, i)| *i));
    vars.push(l.trips);
    let mut stack: Vec<&Block> = l.cond.iter().chain([&l.body]).collect();
    while let Some(block) = stack.pop() {
        for stmt in &block.stmts {
            vars.extend(stmt.defs());
            if let Stmt::Loop(inner) = stmt {
                vars.extend(inner.phis.iter().copied());
                vars.extend(inner.range.as_ref().map(|(_, i)| *i));
            }
            stack.extend(stmt.blocks());
        }
    }
    vars
}

/// The active values whose tangents reach the returned tangent or an active array.
fn tangents_needed(f: &Function, e: &Emitter, returned: &Operand) -> BTreeSet<Var> {
    let activity = e.activity;
    let active_vars = |operands: Vec<&Operand>| -> Vec<Var> {
        operands
            .into_iter()
            .filter(|o| activity.is_active(o))
            .filter_map(Operand::var)
            .collect()
    };
    let mut need: BTreeSet<Var> = returned
        .var()
        .filter(|v| activity.is_active_var(*v))
        .into_iter()
        .collect();
    let stmts = f.all_stmts();
    // A loop's values are needed whatever else is: added once, not on every pass.
    // (Not a call's result read only where no derivative flows, `stop_gradient(helper(x))`: its tangent
    // would ask the callee for a `jvp`, which a plain helper has not.)
    let constant = crate::expand::constant_call_results(f);
    let constant_call = |v: &Var| constant.contains(v);
    for stmt in &stmts {
        if let Stmt::Loop(l) = stmt {
            need.extend(
                loop_values(l)
                    .into_iter()
                    .filter(|v| activity.is_active_var(*v) && !constant_call(v)),
            );
            need.extend(active_vars(l.inits.iter().collect()));
            // What the body yields for a carried value, also one made before the loop (`t = t7;`, `t = a;`
            // copy it, with no value of the body between).
            need.extend(active_vars(l.body.yields.iter().collect()));
        }
    }
    fixpoint(&stmts, &mut need, |stmt, need, added| match stmt {
        Stmt::Let { var, value } => {
            if need.contains(var) {
                added.extend(active_vars(value.operands()));
            }
        }
        Stmt::Store { array, .. } | Stmt::Push { array, .. } | Stmt::NewArray { array, .. } => {
            if activity.is_active_array(*array) {
                added.extend(active_vars(stmt.operands()));
            }
        }
        Stmt::Truncate { .. } => {}
        Stmt::CallOut { var, .. } => {
            let written = stmt.written_arrays();
            if need.contains(var) || written.iter().any(|a| activity.is_active_array(*a)) {
                added.extend(active_vars(stmt.operands()));
            }
        }
        Stmt::Loop(_) => {}
        Stmt::If { outs, .. } | Stmt::Match { outs, .. } => {
            for block in stmt.blocks() {
                for (out, yielded) in outs.iter().zip(&block.yields) {
                    if need.contains(out) && activity.is_active(yielded) {
                        added.extend(yielded.var());
                    }
                }
            }
        }
    });
    need
}

/// The values whose primal is needed: the result, what the tangents' partials read, what memory writes
/// and loops read, and their inputs.
fn primal_needed(
    f: &Function,
    e: &Emitter,
    tangents: &BTreeSet<Var>,
    returned: &Operand,
) -> BTreeSet<Var> {
    let activity = e.activity;
    let stmts = f.all_stmts();
    let mut need: BTreeSet<Var> = returned.var().into_iter().collect();
    for stmt in &stmts {
        if let Stmt::Let { var, value } = stmt {
            if tangents.contains(var) {
                let wanted: Vec<bool> = value
                    .operands()
                    .iter()
                    .map(|o| activity.is_active(o))
                    .collect();
                rules::rule(
                    value,
                    &wanted,
                    &mut DryRun {
                        refs: &mut need,
                        result: *var,
                    },
                );
            }
        }
    }
    // What memory writes and loops read is needed whatever else is: added once, not on every pass.
    for stmt in &stmts {
        match stmt {
            // A row of a matrix read in place reads its index, not its bounds.
            Stmt::NewArray { .. } => need.extend(e.window_refs(stmt)),
            Stmt::Store { .. }
            | Stmt::Push { .. }
            | Stmt::Truncate { .. }
            | Stmt::CallOut { .. } => {
                need.extend(stmt.operands().into_iter().filter_map(Operand::var));
            }
            Stmt::Loop(l) => {
                need.extend(loop_values(l));
                need.extend(stmt.operands().into_iter().filter_map(Operand::var));
                for block in stmt.blocks() {
                    need.extend(block.yields.iter().filter_map(Operand::var));
                }
            }
            _ => {}
        }
    }
    fixpoint(&stmts, &mut need, |stmt, need, added| match stmt {
        Stmt::Let { var, value } => {
            if need.contains(var) {
                added.extend(value.operands().into_iter().filter_map(Operand::var));
            }
        }
        Stmt::Store { .. }
        | Stmt::Push { .. }
        | Stmt::Truncate { .. }
        | Stmt::NewArray { .. }
        | Stmt::CallOut { .. }
        | Stmt::Loop(_) => {}
        Stmt::If { cond, outs, .. }
        | Stmt::Match {
            scrutinee: cond,
            outs,
            ..
        } => {
            let effects = stmt.has_effects();
            if effects
                || outs
                    .iter()
                    .any(|o| need.contains(o) || tangents.contains(o))
            {
                added.extend(cond.var());
            }
            for block in stmt.blocks() {
                for (out, yielded) in outs.iter().zip(&block.yields) {
                    if need.contains(out) {
                        added.extend(yielded.var());
                    }
                }
            }
        }
    });
    // The offsets of the matrices read in place that are not made: only the rows' bounds, which reading
    // in place does not use, load them (`views::unread_offsets`).
    for stmt in &stmts {
        if let Stmt::Let {
            var,
            value: Value::Load { array, .. },
        } = stmt
        {
            if e.unread_offsets.contains_key(array) {
                need.remove(var);
            }
        }
    }
    need
}

impl Forward<'_, '_> {
    /// The tangent of `operand` (of kind `kind`), or a zero if it has none (see `zero_tangent`).
    fn tangent_of(&self, operand: &Operand, kind: &Kind) -> Tokens {
        self.tangent_or_zero_like(operand, operand, kind)
    }

    /// The tangent of `operand`, or, if it has none, a zero tangent of the value `like` of kind `kind`.
    fn tangent_or_zero_like(&self, operand: &Operand, like: &Operand, kind: &Kind) -> Tokens {
        operand
            .var()
            .and_then(|v| self.tangents.get(&v).cloned())
            .unwrap_or_else(|| Tokens::Other(self.zero_tangent(like, kind)))
    }

    /// A zero tangent of the value `like`, of kind `kind`: of the float type where the syntax settled it
    /// (`0.0`, `<T as Zero>::zero()`), else of the primal value's type, `zero_like(&x)`, when that value is
    /// in scope. A bare `Zero::zero()` would leave rustc to infer its type from code far away, which fails
    /// as soon as two types could fit (`f64 + _` in generic code or next to a call's result).
    fn zero_tangent(&self, like: &Operand, kind: &Kind) -> TokenStream {
        let unsettled = matches!(kind, Kind::Float(None) | Kind::Unknown);
        let in_scope = |v: &Var| {
            (self.primal.contains(v) || self.e.f.params.contains(v))
                && self.e.f.vars[v.0 as usize].tuple_arity.is_none()
        };
        match like.var().filter(|v| unsettled && in_scope(v)) {
            Some(v) => {
                let name = self.e.name(v);
                quote!(::autodiff::__private::zero_like(&#name))
            }
            None => match like {
                // A literal whose float type the syntax does not tell (`let mut s = 0.0;` summing the
                // results of calls): a zero of its type, which rustc infers.
                Operand::Const { tokens, .. } if unsettled => {
                    quote!(::autodiff::__private::zero_like(&#tokens))
                }
                _ => Emitter::zero_of(kind),
            },
        }
    }

    /// The tangent array of `array`.
    fn array_tangent(&mut self, array: Array) -> Ident {
        if let Some(t) = self.array_tangents.get(&array) {
            return t.clone();
        }
        let base = naming::tangent_base(&self.e.array_name(array).to_string());
        let name = self.e.namer.fresh(&base);
        self.array_tangents.insert(array, name.clone());
        name
    }

    fn block(&mut self, block: &Block, code: &mut Vec<TokenStream>) {
        let activity = self.e.activity;
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let {
                    var,
                    value:
                        Value::Call {
                            callee,
                            args,
                            by_ref,
                        },
                } if self.tangent.contains(var) => {
                    // A call of a differentiable function: its companion's `jvp` gives value and tangent.
                    let (name, tangent) = (self.e.name(*var).clone(), self.e.tangent_name(*var));
                    let maybe = activity.is_maybe_call(*var);
                    let shape = match self.e.f.vars[var.0 as usize].tuple_arity {
                        Some(_) => Shape::Tuple,
                        None => Shape::Scalar,
                    };
                    let call = self.call_jvp(maybe, shape, callee, args, by_ref);
                    code.push(quote!(let (#name, #tangent) = #call;));
                    self.tangents.insert(*var, Tokens::Name(tangent));
                }
                Stmt::Let { var, value } => {
                    if self.primal.contains(var) {
                        let name = self.e.name(*var).clone();
                        let expr = self.e.view_read(*var).unwrap_or_else(|| {
                            self.e
                                .primal_expr(value, self.e.f.vars[var.0 as usize].span)
                        });
                        let ty = self.e.declared_type(*var);
                        code.push(quote!(let #name #ty = #expr;));
                    }
                    if self.tangent.contains(var) {
                        self.tangent_let(*var, value, code);
                    }
                }
                Stmt::If { cond, outs, .. }
                | Stmt::Match {
                    scrutinee: cond,
                    outs,
                    ..
                } => self.branches(stmt, cond, outs, code),
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    let (name, i, v) = (
                        self.e.array_name(*array).clone(),
                        self.e.operand(index),
                        self.e.operand(value),
                    );
                    code.push(quote!(#name[#i] = #v;));
                    if activity.is_active_array(*array) {
                        let t = self.array_tangent(*array);
                        let tv = self.tangent_of(value, &activity.kind(value));
                        code.push(quote!(#t[#i] = #tv;));
                    }
                }
                Stmt::Push {
                    array,
                    index,
                    value,
                } => {
                    let (name, v) = (self.e.array_name(*array).clone(), self.e.operand(value));
                    if self.primal.contains(index) {
                        let index = self.e.name(*index);
                        code.push(quote!(let #index = #name.len();));
                    }
                    code.push(quote!(#name.push(#v);));
                    if activity.is_active_array(*array) {
                        let t = self.array_tangent(*array);
                        let tv = self.tangent_of(value, &activity.kind(value));
                        code.push(quote!(#t.push(#tv);));
                    }
                }
                Stmt::Truncate { array, len } => {
                    let (name, len) = (self.e.array_name(*array).clone(), self.e.operand(len));
                    code.push(quote!(#name.truncate(#len);));
                    if activity.is_active_array(*array) {
                        let t = self.array_tangent(*array);
                        code.push(quote!(#t.truncate(#len);));
                    }
                }
                Stmt::NewArray { array, .. } if self.e.unread_offsets.contains_key(array) => {}
                Stmt::NewArray { array, init } => self.new_array(*array, init, code),
                Stmt::Loop(l) => self.loop_(l, code),
                Stmt::CallOut { .. } => self.call_out(stmt, code),
            }
        }
    }

    // Input:  rhs(&y, p, &mut k);
    // Output: let (_, _) = derivative_of!(rhs, ..).jvp(&y, p, &mut k, (__dot_y.clone().into(), .., __dot_k.clone().into()),
    //                               &mut __dot_k);
    // Input:  total(out);             (`out` an output parameter, passed on bare: `total` may only read it)
    // Output: let (_, _) = derivative_of!(total, ..).jvp_out(&mut out, (snapshot(&__dot_out[..]),),
    //                               (Passed(&mut (*(&mut __dot_out))[..]),));
    /// A call that writes output buffers: the callee's companion `jvp` takes the tangents of the
    /// arguments (a buffer's incoming tangent among them) and writes each buffer's new tangent.
    fn call_out(&mut self, stmt: &Stmt, code: &mut Vec<TokenStream>) {
        let Stmt::CallOut {
            var,
            callee,
            args,
            by_ref,
            written,
            passed_on,
        } = stmt
        else {
            return;
        };
        let activity = self.e.activity;
        let written_arrays = stmt.written_arrays();
        let active = args.iter().any(|a| activity.is_active(a))
            || written_arrays.iter().any(|a| activity.is_active_array(*a));
        let name = self
            .primal
            .contains(var)
            .then(|| self.e.name(*var).to_token_stream());
        if !active {
            let call = self.e.call_out_expr(callee, args, by_ref, written);
            code.push(match name {
                Some(name) => quote!(let #name = #call;),
                None => quote!(#call;),
            });
            return;
        }
        let mut tangents = self.call_tangents(callee, args, by_ref);
        // A buffer's incoming tangent: a copy, as the companion takes it (`Vec<T>`).
        // And each buffer's tangent after the call, written by the callee.
        let mut buffers = Vec::new();
        // With an output parameter passed on bare, one slot per argument: `Passed(buffer)` for each
        // buffer passed `&mut` or bare, `()` for the others.
        let mut after = Vec::new();
        for ((arg, w), tangent) in args.iter().zip(written).zip(&mut tangents) {
            after.push(quote!(()));
            let Operand::Array(a) = arg else { continue };
            if !w.is_written() {
                continue;
            }
            if !activity.is_float_array(*a) {
                *tangent = quote!(());
                continue;
            }
            let primal = self.e.array_name(*a).clone();
            let t = activity.is_active_array(*a).then(|| self.array_tangent(*a));
            let (incoming, buffer) = match (w, t) {
                // An element goes to a `&mut T` parameter, whose tangent is a `T`.
                (Written::Element(index), Some(t)) => {
                    let index = self.e.operand(index);
                    (quote!(#t[#index]), quote!(&mut #t[#index]))
                }
                (Written::Element(index), None) => {
                    let index = self.e.operand(index);
                    let zero = quote!(::autodiff::__private::zero_like(&#primal[#index]));
                    (zero.clone(), quote!(&mut #zero))
                }
                // A window goes to a `&mut [T]` parameter: its tangent is that window of the array's.
                (Written::Window { start, end }, Some(t)) => {
                    let (start, end) = (self.e.operand(start), self.e.operand(end));
                    (
                        quote!(::autodiff::__private::snapshot(&#t[#start..#end])),
                        quote!(&mut #t[#start..#end]),
                    )
                }
                (Written::Window { start, end }, None) => {
                    let (start, end) = (self.e.operand(start), self.e.operand(end));
                    let zeros = quote!(::autodiff::__private::zeros_like(&#primal[#start..#end]));
                    (zeros.clone(), quote!(&mut #zeros))
                }
                (_, Some(t)) => (
                    quote!(::autodiff::__private::snapshot(&#t[..])),
                    quote!(&mut #t),
                ),
                (_, None) => (
                    quote!(::autodiff::__private::zeros_like(&#primal[..])),
                    quote!(&mut ::autodiff::__private::zeros_like(&#primal[..])),
                ),
            };
            *tangent = incoming;
            if let Some(slot) = after.last_mut() {
                *slot = match w {
                    Written::Element(_) => quote!(::autodiff::__private::Passed(#buffer)),
                    _ => quote!(::autodiff::__private::Passed(&mut (*(#buffer))[..])),
                };
            }
            buffers.push(buffer);
        }
        let call_args = args
            .iter()
            .zip(by_ref)
            .zip(written)
            .map(|((a, r), w)| match w {
                Written::No => self.e.call_arg(a, *r, self.e.operand(a)),
                _ => self.e.written_arg(a, w),
            });
        let call_args: Vec<TokenStream> = call_args.collect();
        let positions = self.e.activity.checked_positions(args);
        let (jvp, buffers) = match passed_on {
            true => (
                crate::companion::derivative_through(
                    callee,
                    "jvp_out",
                    call_args.len() + 2,
                    &positions,
                ),
                vec![quote!((#(#after,)*))],
            ),
            false => (
                crate::companion::derivative_through(
                    callee,
                    "jvp",
                    call_args.len() + 1 + buffers.len(),
                    &positions,
                ),
                buffers,
            ),
        };
        let tangent = self.tangent.contains(var).then(|| {
            let t = self.e.tangent_name(*var);
            self.tangents.insert(*var, Tokens::Name(t.clone()));
            t.to_token_stream()
        });
        let (name, tangent) = (
            name.unwrap_or_else(|| quote!(_)),
            tangent.unwrap_or_else(|| quote!(_)),
        );
        code.push(quote!(
            let (#name, #tangent) = #jvp(#(#call_args,)* (#(#tangents,)*), #(#buffers,)*);
        ));
    }

    /// `f`'s companion's `jvp(args, (tangents,))` for a call of a differentiable function: one tangent per argument, a
    /// zero for an inactive float or array argument, `()` for any other.
    ///
    /// A call of the hidden sweeps that only parameters outside `wrt(..)` reach (`maybe`, `maybe.rs`; its
    /// value of the shape `shape`) runs the callee as written, with a zero tangent, where it
    /// has no derivatives:
    ///
    /// ```text
    /// if found_of!(bump) { derivative_of!(@unchecked bump, ..).jvp(0.5, t, (0.0, __t_t)) }
    /// else { let __value = bump(0.5, t); (__value, zero_like(&__value)) }
    /// ```
    fn call_jvp(
        &mut self,
        maybe: bool,
        shape: Shape,
        callee: &syn::ExprPath,
        args: &[Operand],
        by_ref: &[bool],
    ) -> TokenStream {
        let found = maybe.then(|| crate::companion::found_of(callee)).flatten();
        let any = quote!(impl ::core::marker::Sized);
        let jvp = match found {
            Some(_) => {
                // The stand-in for a callee without derivatives takes anything, but an array's
                // tangent is converted by `Into::into` (`call_tangents`), which needs a target type.
                let slots = args.iter().map(|a| match a {
                    Operand::Array(_) if !self.e.is_matrix(a) => {
                        quote!(::autodiff::__private::AnyTangent)
                    }
                    _ => any.clone(),
                });
                let mut types = vec![any.clone(); args.len()];
                types.push(quote!((#(#slots,)*)));
                crate::companion::derivative_of_unchecked(callee, "jvp", &types)
            }
            None => crate::companion::derivative_through(
                callee,
                "jvp",
                args.len() + 1,
                &self.e.activity.checked_positions(args),
            ),
        };
        let tangents = self.call_tangents(callee, args, by_ref);
        let call_args: Vec<TokenStream> = args
            .iter()
            .zip(by_ref)
            .map(|(a, r)| self.e.call_arg(a, *r, self.e.operand(a)))
            .collect();
        let call = quote!(#jvp(#(#call_args,)* (#(#tangents,)*)));
        let call = match found {
            Some(found) => {
                let value = naming::fixed("value");
                // (Of an array or a `Vec`: `zeros_like`, made before the value moves.)
                let pair = match shape {
                    Shape::Array => {
                        let zero = naming::fixed("zero");
                        quote!(let #zero = ::autodiff::__private::zeros_like(&#value); (#value, #zero))
                    }
                    Shape::Tuple => {
                        quote!((#value, ::autodiff::__private::zero_tuple_like(&#value)))
                    }
                    Shape::Scalar => quote!((#value, ::autodiff::__private::zero_like(&#value))),
                };
                let primal = crate::companion::primal_callee(callee, args.len());
                quote!(if #found {
                    #call
                } else {
                    let #value = #primal(#(#call_args),*);
                    #pair
                })
            }
            None => call,
        };
        call
    }

    /// The tangent of each argument of a call of `callee` (`by_ref`: passed by reference): its own, a zero
    /// for an inactive float or array, `()` for anything else.
    fn call_tangents(
        &mut self,
        callee: &syn::ExprPath,
        args: &[Operand],
        by_ref: &[bool],
    ) -> Vec<TokenStream> {
        let activity = self.e.activity;
        let mut tangents = Vec::new();
        // Where an error about an argument's slot in the callee points: the callee's name.
        let callee_span =
            (callee.path.segments.last()).map_or_else(Span::call_site, |s| s.ident.span());
        for (arg, by_ref) in args.iter().zip(by_ref) {
            let tangent = match arg {
                // A matrix passed whole: its tangent, held flat, in the matrix's shape.
                Operand::Array(a) if self.e.is_matrix(arg) => {
                    let flat = match activity.is_active_array(*a) {
                        true => self.array_tangent(*a).to_token_stream(),
                        false => {
                            let name = self.e.array_name(*a);
                            quote!(::autodiff::__private::zeros_like(&#name[..]))
                        }
                    };
                    self.e.matrix_in_shape(*a, &flat).unwrap_or(flat)
                }
                // `Into` turns a local array's tangent into the `Vec` a slice parameter takes.
                // An output parameter's tangent is the caller's `&mut [T]` buffer: copied, not cloned.
                Operand::Array(a)
                    if activity.is_active_array(*a) && self.e.f.arrays[a.0 as usize].output =>
                {
                    let t = self.array_tangent(*a);
                    quote!(::core::convert::Into::into(::autodiff::__private::snapshot(&#t)))
                }
                // A sub-slice held in a shape of its own (`HeldAs`: a row `[T; N]` of a matrix, an array
                // field's window): its tangent in that shape (a `[T; N]` for the `[T; N]` the callee's slot
                // takes, `Call::call_arg`), or the `Vec` a slice parameter takes.
                Operand::Array(a)
                    if activity.is_active_array(*a)
                        && self.e.f.arrays[a.0 as usize].held_as.is_some() =>
                {
                    let t = self.array_tangent(*a);
                    let view = (self.e.f.arrays[a.0 as usize].held_as.as_ref())
                        .map(|held_as| held_as.view(quote!(&#t[..])));
                    quote!(::core::convert::Into::into(::std::borrow::ToOwned::to_owned(#view)))
                }
                Operand::Array(a) if activity.is_active_array(*a) => {
                    let t = self.array_tangent(*a);
                    quote!(::core::convert::Into::into(::core::clone::Clone::clone(&#t)))
                }
                // An array of integers (`labels: &[usize]` passed on): no tangent, as the callee's `()`
                // slot says (`zeros_like` of it was a `Vec<usize>`, rustc's E0277 `(): From<Vec<u32>>`).
                Operand::Array(a) if !activity.is_float_array(*a) => quote!(()),
                Operand::Array(a) => {
                    let name = self.e.array_name(*a);
                    let zeros = quote!(::autodiff::__private::zeros_like(&#name));
                    match &self.e.f.arrays[a.0 as usize].held_as {
                        Some(held_as) => {
                            let view = held_as.view(quote!(&#zeros[..]));
                            quote!(::core::convert::Into::into(::std::borrow::ToOwned::to_owned(#view)))
                        }
                        None => quote!(::core::convert::Into::into(#zeros)),
                    }
                }
                // A named constant of a type the syntax does not settle (`Mode::Plain` of an enum the
                // callee only matches on, a `const` item, `CAP: usize` as well as `K: f64`): as a
                // constant parameter of such a type, a zero of a float or what the callee's slot takes
                // (`()` for data and integers). `zero_like` of it needed `Mode: Zero`, and the slot's
                // `()` (rustc's E0308 in the generated code).
                // `None`: an `Option`'s slot is `()` (its floats are constants of the callee), and the
                // type of `None` alone is not known (rustc's E0282 of `ConstantArg(&None)`).
                Operand::Const { tokens, .. } if tokens.to_string() == "None" => quote!(()),
                Operand::Const {
                    tokens,
                    kind: Kind::Unknown | Kind::Float(None),
                } if syn::parse2::<syn::ExprPath>(tokens.clone()).is_ok() => quote!({
                    use ::autodiff::__private::{ConstantArrayTangent as _, ConstantFloatTangent as _, ConstantOtherTangent as _};
                    (&::autodiff::__private::ConstantArg(&#tokens)).constant_tangent()
                }),
                other => match activity.kind(other) {
                    Kind::Int | Kind::Bool | Kind::Unit => quote!(()),
                    // A parameter of a type the syntax does not settle (`<Mlp as Itself>::Type`, a struct
                    // passed beside its values view): the callee's slot type decides, `()` for one
                    // without a tangent, a zero struct for one differentiated there (`self.fit(x)` of a
                    // constant `__self_primal` calling a `wrt(self)` method; rustc's unsatisfied
                    // `Line: Default` before).
                    // A value taken for data because the body only passes it on (`mode: Mode` of
                    // `inner(x, mode)`, no `wrt(..)`): `()` only, a callee that differentiates it being
                    // one error at the call (a struct it differentiates would have been active here).
                    Kind::Unknown
                        if other.var().is_some_and(|v| {
                            self.e.passed_on.get(&v) == Some(&crate::signature::PassedOn::Data)
                        }) =>
                    {
                        let primal = self.e.operand(other);
                        quote::quote_spanned!(callee_span=> ::autodiff::__private::data_tangent(&#primal))
                    }
                    // A float among them (`self.k` of a constant `self`, in a generic copy an `__S`): a
                    // zero, picked by method resolution (`__private::ConstantArg`). So for a local bound
                    // to a named constant (`let __v0 = constant::<__S, _>(CAP);` of `g(x, CAP)` in a
                    // generic copy, `CAP: usize`, whose slot is `()`).
                    Kind::Unknown
                        if other.var().is_some_and(|v| !self.tangents.contains_key(&v)) =>
                    {
                        let primal = self.e.operand(other);
                        quote!({
                            use ::autodiff::__private::{ConstantArrayTangent as _, ConstantFloatTangent as _, ConstantOtherTangent as _};
                            (&::autodiff::__private::ConstantArg(&#primal)).constant_tangent()
                        })
                    }
                    // A struct may be passed to several calls: each gets a copy of its tangent.
                    // A callee that keeps it constant (`()` there: a method without `wrt(self)`) is
                    // one error at the call, spanned on the callee's name (`DifferentiatedSlot`).
                    Kind::Struct(_) => match other.var().and_then(|v| self.tangents.get(&v)) {
                        Some(t) => {
                            quote::quote_spanned!(callee_span=> ::autodiff::__private::differentiated_struct(&#t))
                        }
                        // Constant here: a zero struct, or `()` where the callee keeps it constant too
                        // (a method without `wrt(self)`); the callee's slot type decides. Taken by
                        // reference, as the call passes it (`&self` of a `self` taken by value).
                        // (A struct taken by value is borrowed here already.)
                        None if self.e.is_struct_taken_by_value(other) => {
                            let primal = self.e.operand(other);
                            quote!(::autodiff::__private::inactive_tangent(#primal))
                        }
                        None => {
                            let primal = match self.e.self_reference(other) {
                                Some(reference) => reference,
                                None => self.e.call_arg(other, *by_ref, self.e.operand(other)),
                            };
                            quote!(::autodiff::__private::inactive_tangent(#primal))
                        }
                    },
                    kind => self.tangent_of(other, &kind).into(),
                },
            };
            tangents.push(tangent);
        }
        tangents
    }

    /// A new array and, if it is active, its tangent array.
    fn new_array(&mut self, array: Array, init: &ArrayInit, code: &mut Vec<TokenStream>) {
        let activity = self.e.activity;
        let name = self.e.array_name(array).clone();
        if let (
            ArrayInit::Call {
                callee,
                args,
                by_ref,
            },
            true,
        ) = (init, activity.is_active_array(array))
        {
            let tangent = self.array_tangent(array);
            let maybe = activity.is_maybe_array(array);
            let call = self.call_jvp(maybe, Shape::Array, callee, args, by_ref);
            code.push(quote!(let (mut #name, mut #tangent) = #call;));
            return;
        }
        let single = Block {
            stmts: vec![Stmt::NewArray {
                array,
                init: init.clone(),
            }],
            yields: Vec::new(),
        };
        let (primal, _) = self
            .e
            .primal(&single, &BTreeSet::new(), crate::emit::Mode::Sweep);
        code.push(primal);
        if !activity.is_active_array(array) {
            return;
        }
        let t = self.array_tangent(array);
        let tangent = match init {
            ArrayInit::Repeat { value, len, fixed } if activity.is_active(value) => {
                let (tv, len) = (
                    self.tangent_of(value, &activity.kind(value)),
                    self.e.operand(len),
                );
                if *fixed {
                    quote!([#tv; #len])
                } else {
                    quote!(::std::vec![#tv; #len])
                }
            }
            ArrayInit::Elements { items, fixed } => {
                let items = items.iter().map(|o| self.tangent_of(o, &activity.kind(o)));
                if *fixed {
                    quote!([#(#items),*])
                } else {
                    quote!(::std::vec![#(#items),*])
                }
            }
            // Empty, and of the primal's type (a copy of the `Vec` just made): a bare `Vec::new()` took
            // its element type from the first push, and a read of the tangent before any push in the
            // body (`while let Some(v) = s.pop()` over `Vec::with_capacity(4)`, pushed in the loop) left
            // it to inference, which failed (E0282).
            ArrayInit::Empty { .. } => quote!(::std::clone::Clone::clone(&#name)),
            ArrayInit::Window { source, range, .. } if activity.is_active_array(*source) => {
                let (source_tangent, range) = (self.array_tangent(*source), self.e.window(range));
                if self.e.borrowed_windows.contains(&array) {
                    // Nothing writes the source or the window: the tangent is borrowed too.
                    code.push(quote!(let #t: &[_] = &#source_tangent[#range];));
                    return;
                }
                quote!(#source_tangent[#range].to_vec())
            }
            ArrayInit::Copy(source) if activity.is_active_array(*source) => {
                let source_tangent = self.array_tangent(*source);
                if self.e.f.arrays[array.0 as usize].fixed
                    && self.e.f.arrays[source.0 as usize].param.is_some()
                {
                    // A parameter's tangent may be a view (an output parameter `out: &mut [f64; 2]`'s is
                    // the caller's `&mut [f64]`, `let c = *out;`): copied into an array of the primal
                    // copy's type, where moving the view left the copy's tangent an alias of the
                    // parameter's, of the wrong type.
                    quote!({
                        let mut __copy = #name;
                        __copy.copy_from_slice(&#source_tangent[..]);
                        __copy
                    })
                } else if self.e.f.arrays[array.0 as usize].fixed {
                    quote!(#source_tangent)
                } else if self.e.f.arrays[array.0 as usize].untyped {
                    quote!(#source_tangent.clone())
                } else {
                    quote!(#source_tangent.to_vec())
                }
            }
            _ => quote!(::autodiff::__private::zeros_like(&#name)),
        };
        code.push(quote!(let mut #t = #tangent;));
    }

    /// A loop carrying the tangents of its carried values beside them.
    fn loop_(&mut self, l: &Loop, code: &mut Vec<TokenStream>) {
        let activity = self.e.activity;
        let phis: Vec<Ident> = l.phis.iter().map(|p| self.e.name(*p).clone()).collect();
        let inits: Vec<Tokens> = l.inits.iter().map(|o| self.e.operand(o)).collect();
        // As in the reverse sweep's `primal_loop`: a carried float typed only by an annotation in the body.
        let types: Vec<Option<TokenStream>> =
            l.phis.iter().map(|p| self.e.declared_type(*p)).collect();
        // The tangent of an active carried value: one mutable variable, shared by its phi and its out.
        let mut tangent_decls = Vec::new();
        let mut carried_tangents: Vec<Option<Ident>> = Vec::new();
        for (phi, (out, init)) in l.phis.iter().zip(l.outs.iter().zip(&l.inits)) {
            if activity.is_active_var(*phi) {
                let name = self.e.tangent_name(*phi);
                // Declared after the carried value, whose type it takes when it has no tangent yet.
                let init_tangent =
                    self.tangent_or_zero_like(init, &Operand::Var(*phi), activity.var_kind(*phi));
                tangent_decls.push(quote!(let mut #name = #init_tangent;));
                self.tangents.insert(*phi, Tokens::Name(name.clone()));
                self.tangents.insert(*out, Tokens::Name(name.clone()));
                carried_tangents.push(Some(name));
            } else {
                carried_tangents.push(None);
            }
        }
        let mut cond_code = Vec::new();
        if let Some(cond) = &l.cond {
            self.block(cond, &mut cond_code);
            let value = self.e.operand(&cond.yields[0]);
            cond_code.push(quote!(if !(#value) { break; }));
        }
        // Reads through views (`views.rs`): of the array, and of its tangent where it has one.
        self.e.begin_views(l);
        let mut tangent_views = Vec::new();
        if let Some((_, index)) = &l.range {
            let index = self.e.name(*index).clone();
            for (view, _) in self.e.loop_views(l).to_vec() {
                if !activity.is_active_array(view.array) {
                    continue;
                }
                let buffer = self.array_tangent(view.array);
                let name = self.e.namer.fresh(&format!("{buffer}_view"));
                let operand = |o: &Operand| self.e.operand(o);
                let read = crate::views::read(&name, &index, l, &operand);
                self.tangent_views.insert(view.load, (read, false));
                tangent_views.push((view, name, buffer));
            }
        }
        let mut body = Vec::new();
        self.block(&l.body, &mut body);
        let mut view_declarations = self.e.end_views(l);
        for (view, name, buffer) in tangent_views {
            if let Some((_, true)) = self.tangent_views.remove(&view.load) {
                let operand = |o: &Operand| self.e.operand(o);
                view_declarations.push(crate::views::declaration(
                    &view, &name, &buffer, l, &operand, false,
                ));
            }
        }
        let mut targets = Vec::new();
        let mut values = Vec::new();
        for (i, yielded) in l.body.yields.iter().enumerate() {
            if yielded.var() == Some(l.phis[i]) {
                continue;
            }
            targets.push(phis[i].to_token_stream());
            values.push(self.e.operand(yielded).into_token_stream());
            if let Some(t) = &carried_tangents[i] {
                targets.push(t.to_token_stream());
                values.push(
                    self.tangent_or_zero_like(
                        yielded,
                        &Operand::Var(l.phis[i]),
                        activity.var_kind(l.phis[i]),
                    )
                    .into(),
                );
            }
        }
        let assign = match targets.len() {
            0 => quote!(),
            1 => quote!(#(#targets)* = #(#values)*;),
            _ => quote!((#(#targets),*) = (#(#values),*);),
        };
        let exit = l.exit_flag.map(|i| {
            let flag = &phis[i];
            quote!(if #flag { break; })
        });
        let header = match &l.range {
            Some((range, index)) => {
                let (start, end) = (self.e.operand(&range.start), self.e.operand(&range.end));
                let step = range.step.as_ref().map(|s| self.e.operand(s));
                let iterator = crate::emit::range_tokens(range, start, end, step);
                let index = self.e.name(*index);
                quote!(for #index in #iterator)
            }
            None => quote!(loop),
        };
        let (cond_code, body) = (concat(cond_code), concat(body));
        let (tangent_decls, view_declarations) = (concat(tangent_decls), concat(view_declarations));
        code.push(quote! {
            #(let mut #phis #types = #inits;)*
            #tangent_decls
            #view_declarations
            #header {
                #cond_code
                #body
                #assign
                #exit
            }
        });
    }

    /// Emits the tangent of `var = value`.
    fn tangent_let(&mut self, var: Var, value: &Value, code: &mut Vec<TokenStream>) {
        let activity = self.e.activity;
        let tangent = match value {
            Value::Unary(syn::UnOp::Deref(_), o) => {
                if let Some(t) = o.var().and_then(|v| self.tangents.get(&v).cloned()) {
                    self.tangents.insert(var, t);
                }
                return;
            }
            Value::Cast(o, ty) => {
                let t = self.tangent_of(o, &activity.kind(o)).into();
                crate::emit::convert(t, &activity.kind(o), &activity.kind_of_type(ty), ty)
            }
            Value::Tuple(items) => {
                let parts = items.iter().map(|o| self.tangent_of(o, &activity.kind(o)));
                quote!((#(#parts,)*))
            }
            Value::Field(o, index) => {
                let t = self.tangent_of(o, &activity.kind(o));
                let index = syn::Index::from(*index as usize);
                quote!(#t.#index)
            }
            Value::Load { array, index, .. } => match self.tangent_views.get_mut(&var) {
                Some((read, used)) => {
                    *used = true;
                    read.clone()
                }
                None => {
                    let t = self.array_tangent(*array);
                    let index = self.e.operand(index);
                    quote!(#t[#index])
                }
            },
            _ => {
                let operands = value.operands();
                let wanted: Vec<bool> = operands.iter().map(|o| activity.is_active(o)).collect();
                let mut refs = BTreeSet::new();
                let rule = rules::rule(
                    value,
                    &wanted,
                    &mut Recorder {
                        emitter: self.e,
                        result: var,
                        refs: &mut refs,
                    },
                );
                code.extend(rule.prelude);
                let mut sum: Option<TokenStream> = None;
                for ((operand, partial), wanted) in operands.iter().zip(&rule.partials).zip(&wanted)
                {
                    let (Some(partial), true) = (partial, wanted) else {
                        continue;
                    };
                    let t = self.tangent_of(operand, &activity.kind(operand));
                    // The slope of `exp` is its value, infinite where it overflows: a zero tangent gives
                    // zero there (`rules::times`), as `Dual` and JAX's symbolic zero do. A callee's
                    // parameter that its caller passes as a constant has the tangent 0 (`call_tangents`):
                    // `sigmoid(logit)` inside `gate(logit, w)` called with `logit = -inf` had the tangent
                    // `0 · inf = NaN` in `(-logit).exp()`, so `f_jvp` was NaN where `f_grad` was finite.
                    // So for every slope that is infinite where the value is finite or overflows where
                    // the argument is finite: `ln` and the logarithms at 0, `recip` at 0, `powi` of a
                    // negative power at 0, `sinh`, `cosh` and `tan` where they overflow; and the slope
                    // `-(x / y) / y` of a division in `y`, infinite where `x / y` is (soft-DTW's
                    // `-b / gamma` at `b = inf` along a constant `gamma`).
                    let guarded;
                    let partial = match (value, partial) {
                        (
                            Value::Float {
                                func:
                                    FloatFn::Exp
                                    | FloatFn::Exp2
                                    | FloatFn::ExpM1
                                    | FloatFn::Log
                                    | FloatFn::Log2
                                    | FloatFn::Log10
                                    | FloatFn::Ln1p
                                    | FloatFn::Recip
                                    | FloatFn::Powi
                                    | FloatFn::Sinh
                                    | FloatFn::Cosh
                                    | FloatFn::Tan,
                                ..
                            },
                            Partial::Times(e),
                        ) => {
                            guarded = Partial::TimesGuarded(e.clone());
                            &guarded
                        }
                        (
                            Value::Float {
                                func: FloatFn::Ln, ..
                            },
                            Partial::Over(e),
                        ) => {
                            guarded = Partial::OverGuarded(e.clone());
                            &guarded
                        }
                        (_, Partial::TimesOver(a, b)) => {
                            guarded = Partial::TimesOverGuarded(a.clone(), b.clone());
                            &guarded
                        }
                        _ => partial,
                    };
                    sum = Some(match (sum, partial) {
                        (None, _) => partial.apply(&t),
                        (Some(acc), Partial::NegOne) => quote!(#acc - #t),
                        (Some(acc), _) => {
                            let term = partial.apply(&t);
                            quote!(#acc + #term)
                        }
                    });
                }
                match sum {
                    Some(sum) => sum,
                    None => return,
                }
            }
        };
        let name = self.e.tangent_name(var);
        code.push(quote!(let #name = #tangent;));
        self.tangents.insert(var, Tokens::Name(name));
    }

    /// An `if` or `match` whose branches yield the needed primal outs, then the needed tangent outs.
    fn branches(&mut self, stmt: &Stmt, cond: &Operand, outs: &[Var], code: &mut Vec<TokenStream>) {
        let primal_outs: Vec<usize> = (0..outs.len())
            .filter(|i| self.primal.contains(&outs[*i]))
            .collect();
        let tangent_outs: Vec<usize> = (0..outs.len())
            .filter(|i| self.tangent.contains(&outs[*i]))
            .collect();
        if primal_outs.is_empty() && tangent_outs.is_empty() && !stmt.has_effects() {
            return;
        }
        let mut arms = Vec::new();
        for block in stmt.blocks() {
            let mut arm_code = Vec::new();
            self.block(block, &mut arm_code);
            let mut yields: Vec<TokenStream> = primal_outs
                .iter()
                .map(|i| self.e.operand(&block.yields[*i]).into_token_stream())
                .collect();
            for i in &tangent_outs {
                let kind = self.e.activity.var_kind(outs[*i]).clone();
                yields.push(self.tangent_of(&block.yields[*i], &kind).into());
            }
            arms.push(block_with_value(
                quote!(#(#arm_code)*),
                tuple_or_single(yields),
            ));
        }
        let mut names: Vec<TokenStream> = primal_outs
            .iter()
            .map(|i| self.e.name(outs[*i]).to_token_stream())
            .collect();
        for i in &tangent_outs {
            let name = self.e.tangent_name(outs[*i]);
            self.tangents.insert(outs[*i], Tokens::Name(name.clone()));
            names.push(name.into_token_stream());
        }
        let branching = self.e.branches(stmt, cond, arms);
        if names.is_empty() {
            code.push(quote!(#branching;));
        } else {
            let pattern = tuple_or_single(names);
            let typed: Vec<Option<Var>> = primal_outs
                .iter()
                .map(|i| Some(outs[*i]))
                .chain(tangent_outs.iter().map(|_| None))
                .collect();
            let types = self.e.declared_types(&typed);
            code.push(quote!(let #pattern #types = #branching;));
        }
    }
}

/// The value of a call whose tangent the forward sweep may have to make zero (`call_jvp`): one float, an
/// array or a `Vec`, or a tuple of floats.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Scalar,
    Array,
    Tuple,
}
