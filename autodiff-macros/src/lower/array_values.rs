//! Arrays as the value of an `if`, a `match` or an early `return`. Arrays are memory, not values, so the
//! statement's array out becomes one array made before it (hoisted to the top of the function), which each
//! branch fills from the array it yields, as one would write it by hand:
//!
//! ```text
//! // Input:                              // Output (ir):
//! let r = if c { [x, y] } else { b };   new r = [0.0; 2]                  (at the top of the function)
//!                                       if c { new a = [x, y]; for i in 0..len(a) { r[i] = a[i] } }
//!                                       else { for i in 0..len(b) { r[i] = b[i] } }
//! ```
//!
//! A fixed-size array is written element by element (so the branching may be inside a loop); a `Vec` is
//! filled by `push` from empty (so not inside a loop, where it would grow at every iteration).

use super::Lowering;
use crate::ir::{Array, ArrayInit, Block, Kind, Loop, Operand, Range, Stmt, Value, Var};
use proc_macro2::{Span, TokenStream};
use quote::quote;

impl Lowering<'_> {
    /// Pushes an `if` or `match` statement whose value is `value`; an out that every branch yields an
    /// array for becomes an array filled in each branch, and the value and the variables bound to the out
    /// become that array.
    pub(super) fn push_branching(&mut self, mut stmt: Stmt, value: Operand) -> Operand {
        let mut replaced: Vec<(Var, Array)> = Vec::new();
        let outs = match &stmt {
            Stmt::If { outs, .. } | Stmt::Match { outs, .. } => outs.clone(),
            _ => Vec::new(),
        };
        for (k, out) in outs.iter().enumerate().rev() {
            let yielded: Vec<Option<Array>> = blocks_mut(&mut stmt)
                .iter()
                .map(|b| match b.yields.get(k) {
                    Some(Operand::Array(a)) => Some(*a),
                    _ => None,
                })
                .collect();
            if yielded.iter().any(Option::is_none) {
                continue;
            }
            let sources: Vec<Array> = yielded.into_iter().flatten().collect();
            let span = self.vars[out.0 as usize].span;
            let target = self.array_out(*out, &sources);
            for (block, source) in blocks_mut(&mut stmt).into_iter().zip(&sources) {
                block.yields.remove(k);
                let copy = self.copy_loop(*source, target, span);
                block.stmts.extend(copy);
            }
            if let Stmt::If { outs, .. } | Stmt::Match { outs, .. } = &mut stmt {
                outs.remove(k);
            }
            replaced.push((*out, target));
        }
        self.stmts.push(stmt);
        let array_of = |o: &Operand| match o {
            Operand::Var(v) => replaced
                .iter()
                .find(|(out, _)| out == v)
                .map(|(_, a)| Operand::Array(*a)),
            _ => None,
        };
        for binding in self.scopes.iter_mut().flat_map(|s| s.iter_mut()) {
            if let Some(array) = binding.value.as_ref().and_then(array_of) {
                binding.value = Some(array);
            }
        }
        array_of(&value).unwrap_or(value)
    }

    /// The array an array out is written into, declared at the top of the function (with an error where
    /// that cannot be done yet, and an empty array all the same, so that its uses are no further errors).
    fn array_out(&mut self, out: Var, sources: &[Array]) -> Array {
        let span = self.vars[out.0 as usize].span;
        // An untyped array (a call's result bound without a type) beside a fixed-size one has its type:
        // the branches of an `if` or `match` give one type.
        let info = |a: &Array| &self.arrays[a.0 as usize];
        let fixed = sources.iter().any(|a| info(a).fixed)
            && sources.iter().all(|a| info(a).fixed || info(a).untyped);
        let len = sources.iter().find_map(|a| self.fixed_lens.get(a).cloned());
        let init = match (fixed, len.clone()) {
            (true, Some(len)) => ArrayInit::Repeat {
                value: self.zero(),
                len: Operand::Const {
                    tokens: len,
                    kind: Kind::Int,
                },
                fixed: true,
            },
            (true, None) => {
                self.errors.at(
                    span,
                    "the macro cannot tell the length of the arrays this `if` or `match` gives (an array \
                     from a call): bind them to locals made as `[x; N]` or `[a, b, ..]`, or write into one \
                     array in every branch",
                );
                ArrayInit::Empty { capacity: None }
            }
            (false, _) => {
                if self.loop_depth > 0 {
                    self.errors.at(
                        span,
                        "a `Vec` cannot be the value of an `if`, a `match` or an early `return` inside a \
                         loop yet: make one `Vec` before the loop and write into it in every branch",
                    );
                }
                ArrayInit::Empty { capacity: None }
            }
        };
        let name = self.vars[out.0 as usize]
            .hint
            .clone()
            .unwrap_or_else(|| "__chosen".to_string());
        let array = self.new_array(&name, None, fixed);
        self.hoisted.push(Stmt::NewArray { array, init });
        if let Some(len) = len {
            self.fixed_lens.insert(array, len);
        }
        array
    }

    /// A zero of the function's float type: `0.0`, or `T::zero()` in generic code.
    fn zero(&self) -> Operand {
        let tokens: TokenStream = match self.float_params.first() {
            Some(t) => quote!(<#t as ::autodiff::__private::Zero>::zero()),
            None => quote!(0.0),
        };
        Operand::Const {
            tokens,
            kind: Kind::Float(None),
        }
    }

    /// `for i in 0..source.len() { target[i] = source[i] }` (or `target.push(source[i])` for a `Vec`).
    fn copy_loop(&mut self, source: Array, target: Array, span: Span) -> Vec<Stmt> {
        let len = self.new_var(None, span);
        let index = self.new_var(None, span);
        let element = self.new_var(None, span);
        let trips = self.new_var(None, span);
        let write = if self.arrays[target.0 as usize].fixed {
            Stmt::Store {
                array: target,
                index: Operand::Var(index),
                value: Operand::Var(element),
            }
        } else {
            Stmt::Push {
                array: target,
                index: self.new_var(None, span),
                value: Operand::Var(element),
            }
        };
        let body = Block {
            stmts: vec![
                Stmt::Let {
                    var: element,
                    value: Value::Load {
                        array: source,
                        index: Operand::Var(index),
                        at: None,
                    },
                },
                write,
            ],
            yields: Vec::new(),
        };
        let range = Range {
            start: Operand::Const {
                tokens: quote!(0),
                kind: Kind::Int,
            },
            end: Operand::Var(len),
            inclusive: false,
            rev: false,
            step: None,
        };
        vec![
            Stmt::Let {
                var: len,
                value: Value::Len(source),
            },
            Stmt::Loop(Box::new(Loop {
                range: Some((range, index)),
                cond: None,
                phis: Vec::new(),
                inits: Vec::new(),
                body,
                outs: Vec::new(),
                exit_flag: None,
                trips,
            })),
        ]
    }
}

/// The blocks of an `if` or `match`.
fn blocks_mut(stmt: &mut Stmt) -> Vec<&mut Block> {
    match stmt {
        Stmt::If {
            then_block,
            else_block,
            ..
        } => vec![then_block, else_block],
        Stmt::Match { arms, .. } => arms.iter_mut().map(|a| &mut a.block).collect(),
        _ => Vec::new(),
    }
}
