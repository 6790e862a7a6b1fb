//! Reverse mode: emits `f_vjp`, the forward sweep followed by the adjoint sweep.
//!
//! The forward sweep is the primal code, pruned to what the result and the adjoints read. Because every
//! value is named once, straight-line code needs no storage: the adjoint sweep reads the primal values from
//! their locals. Adjoints are immutable too; a value's adjoint is created by its first contribution and each
//! further contribution shadows it (`let __d_x = __d_x + ..`), so a value nothing flows back to gets no code.
//!
//! The adjoint of an `if` is an `if` on the same condition. Each branch recomputes the values of its own
//! block that its adjoint reads (the forward branch's locals are out of scope by then), runs its adjoint,
//! and yields the adjoints of the outer values it changed:
//!
//! ```text
//! // Input:                          // Output:
//! let y = if c { x * x } else { x }; let (__d_x,) = if c {
//!                                        let __d_x = __d_y * x; let __d_x = __d_x + __d_y * x; __d_x
//!                                    } else { __d_y };
//! ```

use crate::emit::{tuple_or_single, Emitter, Recorder};
use crate::ir::{Block, Kind, Operand, Stmt, Value, Var};
use crate::rules;
use crate::signature::Signature;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet};

/// The current adjoint of each value that has one (an identifier).
type Adjoints = BTreeMap<Var, TokenStream>;

struct Reverse<'e, 'a> {
    e: &'e mut Emitter<'a>,
}

/// The body of `f_vjp`: given the cotangent `d_ret` of the result, returns `(value, gradient)`.
pub(crate) fn vjp_body(e: &mut Emitter, sig: &Signature, d_ret: &Ident) -> TokenStream {
    let f = e.f;
    let mut rev = Reverse { e };
    let mut adjoints = Adjoints::new();
    let returned = f.returned().clone();
    let mut seeded = false;
    if let Some(var) = returned.var().filter(|v| rev.e.activity.is_active_var(*v)) {
        adjoints.insert(var, d_ret.to_token_stream());
        seeded = true;
    }
    let mut code = Vec::new();
    let mut refs = BTreeSet::new();
    rev.block(&f.body, &mut adjoints, &mut code, &mut refs);
    refs.extend(returned.var());
    let (primal, _) = rev.e.primal(&f.body, &refs);
    let gradients: Vec<TokenStream> = f
        .params
        .iter()
        .zip(&sig.params)
        .filter(|(_, p)| p.active)
        .map(|(var, p)| {
            adjoints
                .remove(var)
                .unwrap_or_else(|| Emitter::zero_of(&p.kind))
        })
        .collect();
    let gradient = tuple_or_single(gradients);
    let value = rev.e.operand(&returned);
    let unused = (!seeded).then(|| quote!(let _ = #d_ret;));
    let items = rev.e.items();
    quote! {
        #items
        #unused
        #primal
        #(#code)*
        (#value, #gradient)
    }
}

impl Reverse<'_, '_> {
    /// Adds `contribution` to the adjoint of `target`.
    fn contribute(
        &mut self,
        target: &Operand,
        contribution: TokenStream,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
    ) {
        let Some(var) = target.var().filter(|v| self.e.activity.is_active_var(*v)) else {
            return;
        };
        let is_name = syn::parse2::<Ident>(contribution.clone()).is_ok();
        let value = match adjoints.get(&var) {
            None if is_name => {
                adjoints.insert(var, contribution);
                return;
            }
            None => contribution,
            Some(previous) => quote!(#previous + #contribution),
        };
        let name = self.e.adjoint_name(var);
        code.push(quote!(let #name = #value;));
        adjoints.insert(var, name.to_token_stream());
    }

    /// Emits the adjoint of `block`'s statements, last first. `refs` collects the primal values it reads.
    fn block(
        &mut self,
        block: &Block,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        for stmt in block.stmts.iter().rev() {
            match stmt {
                Stmt::Let { var, value } => {
                    if let Some(d) = adjoints.remove(var) {
                        self.value(*var, value, &d, adjoints, code, refs);
                    }
                }
                Stmt::If { cond, outs, .. }
                | Stmt::Match {
                    scrutinee: cond,
                    outs,
                    ..
                } => self.branches(stmt, cond, outs, adjoints, code, refs),
            }
        }
    }

    /// Sends the adjoint `d` of `var = value` to the operands.
    fn value(
        &mut self,
        var: Var,
        value: &Value,
        d: &TokenStream,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let activity = self.e.activity;
        match value {
            Value::Cast(o, _) => {
                let contribution = match activity.kind(o) {
                    Kind::Float(Some(ty)) => quote!(#d as #ty),
                    _ => d.clone(),
                };
                self.contribute(o, contribution, adjoints, code);
            }
            Value::Tuple(items) => {
                for (i, item) in items.iter().enumerate() {
                    let index = syn::Index::from(i);
                    self.contribute(item, quote!(#d.#index), adjoints, code);
                }
            }
            Value::Field(o, index) => {
                if let Kind::Tuple(kinds) = activity.kind(o) {
                    let parts = kinds.iter().enumerate().map(|(i, k)| {
                        if i == *index as usize {
                            d.clone()
                        } else {
                            Emitter::zero_of(k)
                        }
                    });
                    self.contribute(o, quote!((#(#parts,)*)), adjoints, code);
                }
            }
            _ => {
                let operands = value.operands();
                let wanted: Vec<bool> = operands.iter().map(|o| activity.is_active(o)).collect();
                if !wanted.iter().any(|w| *w) {
                    return;
                }
                let rule = rules::rule(
                    value,
                    &wanted,
                    &mut Recorder {
                        emitter: self.e,
                        result: var,
                        refs,
                    },
                );
                code.extend(rule.prelude);
                for ((operand, partial), wanted) in
                    operands.into_iter().zip(&rule.partials).zip(&wanted)
                {
                    if let (Some(partial), true) = (partial, wanted) {
                        self.contribute(operand, partial.apply(d), adjoints, code);
                    }
                }
            }
        }
    }

    /// The adjoint of an `if` or `match`: the same branching, each branch recomputing what its adjoint
    /// reads and yielding the adjoints of the outer values it changed.
    fn branches(
        &mut self,
        stmt: &Stmt,
        cond: &Operand,
        outs: &[Var],
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let out_adjoints: Vec<Option<TokenStream>> =
            outs.iter().map(|o| adjoints.remove(o)).collect();
        if out_adjoints.iter().all(Option::is_none) {
            return;
        }
        struct Arm {
            code: TokenStream,
            adjoints: Adjoints,
        }
        let mut arms = Vec::new();
        for block in stmt.blocks() {
            let mut arm_adjoints = adjoints.clone();
            let mut arm_code = Vec::new();
            let mut arm_refs = BTreeSet::new();
            for (yielded, d) in block.yields.iter().zip(&out_adjoints) {
                if let Some(d) = d {
                    self.contribute(yielded, d.clone(), &mut arm_adjoints, &mut arm_code);
                }
            }
            self.block(block, &mut arm_adjoints, &mut arm_code, &mut arm_refs);
            let defs: BTreeSet<Var> = block.defs().into_iter().collect();
            let roots = arm_refs.intersection(&defs).copied().collect();
            let (recompute, free) = self.e.primal(block, &roots);
            refs.extend(arm_refs.difference(&defs).copied());
            refs.extend(free);
            arms.push(Arm {
                code: quote!(#recompute #(#arm_code)*),
                adjoints: arm_adjoints,
            });
        }
        // The outer values whose adjoints some branch changed.
        let changed: Vec<Var> = arms
            .iter()
            .flat_map(|arm| arm.adjoints.iter())
            .filter(|(var, d)| {
                adjoints
                    .get(var)
                    .is_none_or(|before| before.to_string() != d.to_string())
            })
            .map(|(var, _)| *var)
            .collect::<BTreeSet<Var>>()
            .into_iter()
            .collect();
        if changed.is_empty() {
            return;
        }
        let bodies: Vec<TokenStream> = arms
            .iter()
            .map(|arm| {
                let yields: Vec<TokenStream> = changed
                    .iter()
                    .map(|var| match arm.adjoints.get(var).or(adjoints.get(var)) {
                        Some(d) => d.clone(),
                        None => Emitter::zero_of(self.e.activity.var_kind(*var)),
                    })
                    .collect();
                let arm_code = &arm.code;
                let yields = tuple_or_single(yields);
                quote!({ #arm_code #yields })
            })
            .collect();
        refs.extend(cond.var());
        let names: Vec<TokenStream> = changed
            .iter()
            .map(|v| self.e.adjoint_name(*v).to_token_stream())
            .collect();
        for (var, name) in changed.iter().zip(&names) {
            adjoints.insert(*var, name.clone());
        }
        let pattern = tuple_or_single(names);
        let branching = self.e.branches(stmt, cond, bodies);
        code.push(quote!(let #pattern = #branching;));
    }
}
