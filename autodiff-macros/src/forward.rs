//! Forward mode: emits `f_jvp`, the primal code with each active value's tangent computed beside it.
//!
//! Tangents follow the same rules as adjoints (`rules.rs`): the tangent of `y = op(a, b)` is
//! `∂y/∂a · ȧ + ∂y/∂b · ḃ`. Two analyses prune the code first: which tangents reach the returned tangent,
//! and which primal values the result and those tangents read.
//!
//! ```text
//! // Input:                          // Output:
//! let z = x * y;                     let z = x * y; let __dot_z = __dot_x * y + __dot_y * x;
//! z.sin()                            let __v0 = z.sin(); let __dot_v0 = __dot_z * Float::cos(z);
//! ```

use crate::emit::{tuple_or_single, Emitter, Recorder};
use crate::ir::{Block, Function, Operand, Stmt, Value, Var};
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
    tangents: BTreeMap<Var, TokenStream>,
}

/// The body of `f_jvp`: given the input tangent `tangent`, returns `(value, output tangent)`.
pub(crate) fn jvp_body(e: &mut Emitter, sig: &Signature, tangent: &Ident) -> TokenStream {
    let f = e.f;
    let returned = f.returned().clone();
    let tangent_needed = tangents_needed(f, e, &returned);
    let primal_needed = primal_needed(f, e, &tangent_needed, &returned);
    let mut fwd = Forward {
        e,
        primal: primal_needed,
        tangent: tangent_needed,
        tangents: BTreeMap::new(),
    };
    // Unpack the input tangent into the tangents of the active parameters.
    let active: Vec<Var> = f
        .params
        .iter()
        .zip(&sig.params)
        .filter(|(_, p)| p.active)
        .map(|(v, _)| *v)
        .collect();
    let unpack = if let [only] = active.as_slice() {
        if fwd.tangent.contains(only) {
            fwd.tangents.insert(*only, tangent.to_token_stream());
            quote!()
        } else {
            quote!(let _ = #tangent;)
        }
    } else {
        let names: Vec<TokenStream> = active
            .iter()
            .map(|v| {
                if fwd.tangent.contains(v) {
                    let name = fwd.e.tangent_name(*v).to_token_stream();
                    fwd.tangents.insert(*v, name.clone());
                    name
                } else {
                    quote!(_)
                }
            })
            .collect();
        quote!(let (#(#names,)*) = #tangent;)
    };
    let mut code = Vec::new();
    fwd.block(&f.body, &mut code);
    let value = fwd.e.operand(&returned);
    let out_tangent = fwd.tangent_of(&returned, &sig.ret_kind);
    let items = fwd.e.items();
    quote! {
        #items
        #unpack
        #(#code)*
        (#value, #out_tangent)
    }
}

/// Records the values a rule reads, without emitting anything.
struct DryRun<'r> {
    refs: &'r mut BTreeSet<Var>,
    result: Var,
}

impl RuleCtx for DryRun<'_> {
    fn operand(&mut self, operand: &Operand) -> TokenStream {
        self.refs.extend(operand.var());
        quote!(_)
    }
    fn result(&mut self) -> TokenStream {
        self.refs.insert(self.result);
        quote!(_)
    }
    fn fresh(&mut self, _: &str) -> Ident {
        Ident::new("_", Span::mixed_site())
    }
}

/// Every statement of `block` and its nested blocks, outermost first.
fn all_stmts(block: &Block) -> Vec<&Stmt> {
    let mut stmts = Vec::new();
    for stmt in &block.stmts {
        stmts.push(stmt);
        for inner in stmt.blocks() {
            stmts.extend(all_stmts(inner));
        }
    }
    stmts
}

/// Grows `set` along `step` until nothing changes.
fn fixpoint(
    stmts: &[&Stmt],
    set: &mut BTreeSet<Var>,
    mut step: impl FnMut(&Stmt, &BTreeSet<Var>, &mut Vec<Var>),
) {
    loop {
        let mut added = Vec::new();
        for stmt in stmts {
            step(stmt, set, &mut added);
        }
        let before = set.len();
        set.extend(added);
        if set.len() == before {
            return;
        }
    }
}

/// The active values whose tangents reach the returned tangent.
fn tangents_needed(f: &Function, e: &Emitter, returned: &Operand) -> BTreeSet<Var> {
    let activity = e.activity;
    let mut need: BTreeSet<Var> = returned
        .var()
        .filter(|v| activity.is_active_var(*v))
        .into_iter()
        .collect();
    let stmts = all_stmts(&f.body);
    fixpoint(&stmts, &mut need, |stmt, need, added| match stmt {
        Stmt::Let { var, value } if need.contains(var) => {
            added.extend(
                value
                    .operands()
                    .into_iter()
                    .filter(|o| activity.is_active(o))
                    .filter_map(|o| o.var()),
            );
        }
        Stmt::Let { .. } => {}
        _ => {
            let outs = stmt.defs();
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

/// The values whose primal is needed: the result, what the tangents' partials read, and their inputs.
fn primal_needed(
    f: &Function,
    e: &Emitter,
    tangents: &BTreeSet<Var>,
    returned: &Operand,
) -> BTreeSet<Var> {
    let activity = e.activity;
    let stmts = all_stmts(&f.body);
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
    fixpoint(&stmts, &mut need, |stmt, need, added| match stmt {
        Stmt::Let { var, value } if need.contains(var) => {
            added.extend(value.operands().into_iter().filter_map(Operand::var));
        }
        Stmt::Let { .. } => {}
        Stmt::If { cond, outs, .. }
        | Stmt::Match {
            scrutinee: cond,
            outs,
            ..
        } => {
            if outs
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
    need
}

impl Forward<'_, '_> {
    /// The tangent of `operand`, or a zero of `kind` if it has none.
    fn tangent_of(&self, operand: &Operand, kind: &crate::ir::Kind) -> TokenStream {
        operand
            .var()
            .and_then(|v| self.tangents.get(&v).cloned())
            .unwrap_or_else(|| Emitter::zero_of(kind))
    }

    fn block(&mut self, block: &Block, code: &mut Vec<TokenStream>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { var, value } => {
                    if self.primal.contains(var) {
                        let name = self.e.name(*var).clone();
                        let expr = self.e.primal_expr(value);
                        code.push(quote!(let #name = #expr;));
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
            }
        }
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
                let t = self.tangent_of(o, &activity.kind(o));
                quote!(#t as #ty)
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
        self.tangents.insert(var, name.to_token_stream());
    }

    /// An `if` or `match` whose branches yield the needed primal outs, then the needed tangent outs.
    fn branches(&mut self, stmt: &Stmt, cond: &Operand, outs: &[Var], code: &mut Vec<TokenStream>) {
        let primal_outs: Vec<usize> = (0..outs.len())
            .filter(|i| self.primal.contains(&outs[*i]))
            .collect();
        let tangent_outs: Vec<usize> = (0..outs.len())
            .filter(|i| self.tangent.contains(&outs[*i]))
            .collect();
        if primal_outs.is_empty() && tangent_outs.is_empty() {
            return;
        }
        let mut arms = Vec::new();
        for block in stmt.blocks() {
            let mut arm_code = Vec::new();
            self.block(block, &mut arm_code);
            let mut yields: Vec<TokenStream> = primal_outs
                .iter()
                .map(|i| self.e.operand(&block.yields[*i]))
                .collect();
            for i in &tangent_outs {
                let kind = self.e.activity.var_kind(outs[*i]).clone();
                yields.push(self.tangent_of(&block.yields[*i], &kind));
            }
            let yields = tuple_or_single(yields);
            arms.push(quote!({ #(#arm_code)* #yields }));
        }
        let mut names: Vec<TokenStream> = primal_outs
            .iter()
            .map(|i| self.e.name(outs[*i]).to_token_stream())
            .collect();
        for i in &tangent_outs {
            let name = self.e.tangent_name(outs[*i]).to_token_stream();
            self.tangents.insert(outs[*i], name.clone());
            names.push(name);
        }
        let pattern = tuple_or_single(names);
        let branching = self.e.branches(stmt, cond, arms);
        code.push(quote!(let #pattern = #branching;));
    }
}
