//! Lowering of control flow: `if`, `match`, `&&`/`||` join their branches' assignments into outs, and
//! statements in return position (the function body, and the branches that end in `return`) become
//! structured: the statements after `if c { return a; }` move into the `else` branch.

use super::{contains_return, loops, strip_parens, Binding, Lowering, SeqItem};
use crate::ir::{Arm, Block, Kind, Operand, Stmt, Var};
use proc_macro2::Span;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{BinOp, Expr};

impl Lowering<'_> {
    /// Lowers a statement sequence whose end (or `return`) is the function's return; gives the returned value.
    pub(super) fn lower_seq(&mut self, items: &[SeqItem]) -> Operand {
        for (i, item) in items.iter().enumerate() {
            let rest = &items[i + 1..];
            let is_last = !rest.iter().any(|r| !matches!(r, SeqItem::PopScope(_)));
            let (expr, has_semi) = match *item {
                SeqItem::PopScope(depth) => {
                    self.end_scope(depth);
                    continue;
                }
                SeqItem::Expr(e) => (e, false),
                SeqItem::Stmt(syn::Stmt::Expr(e, semi)) => (e, semi.is_some()),
                SeqItem::Stmt(stmt) => {
                    if let Some((pat, init)) = returning_loop_let(stmt) {
                        return self.lower_returning_loop(init, Some(pat), rest);
                    }
                    if contains_return(|f| f.visit_stmt(stmt)) {
                        self.errors.spanned(
                            stmt,
                            "`return` inside a `let` is not supported: write an `if` statement whose \
                             branch returns",
                        );
                        // One mistake, one error: the value is not lowered (its `return` would be
                        // reported again), and the names it binds report nothing more.
                        if let syn::Stmt::Local(local) = stmt {
                            let mut names = Vec::new();
                            super::pattern_names(&local.pat, &mut names);
                            for name in names {
                                self.bind(&name, Some(Self::poisoned()));
                                self.failed_lets.insert(name);
                            }
                        }
                        continue;
                    }
                    self.lower_stmt(stmt);
                    continue;
                }
            };
            match strip_parens(expr) {
                Expr::Return(r) => {
                    return match &r.expr {
                        Some(value) => self.lower_returned(value),
                        None => Operand::unit(),
                    };
                }
                Expr::If(e)
                    if contains_return(|f| f.visit_expr_if(e)) || (is_last && !has_semi) =>
                {
                    return self.lower_returning_if(e, rest);
                }
                Expr::Match(m)
                    if contains_return(|f| f.visit_expr_match(m)) || (is_last && !has_semi) =>
                {
                    return self.lower_returning_match(m, rest);
                }
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_)
                    if contains_return(|f| f.visit_expr(expr)) =>
                {
                    return self.lower_returning_loop(strip_parens(expr), None, rest);
                }
                Expr::Block(b)
                    if b.label.is_none() && contains_return(|f| f.visit_expr_block(b)) =>
                {
                    let depth = self.scopes.len();
                    self.scopes.push(Vec::new());
                    let mut inner: Vec<SeqItem> = b.block.stmts.iter().map(SeqItem::Stmt).collect();
                    inner.push(SeqItem::PopScope(depth));
                    inner.extend_from_slice(rest);
                    return self.lower_seq(&inner);
                }
                e if contains_return(|f| f.visit_expr(e)) => {
                    self.errors.spanned(
                        e,
                        "`return` inside an expression is not supported: return from an `if` or `match` \
                         statement, or at the end of the function",
                    );
                    return Self::poisoned();
                }
                e if is_last && !has_semi => return self.lower_returned(e),
                e => {
                    self.lower_expr(e, None);
                }
            }
        }
        Operand::unit()
    }

    // Input:  fn f(x: [f64; 2], k: i32) -> [f64; 2] { if k == 0 { return g(x[0]); } x }
    // Output: the call's result is an array of the return type's length (`ArrayInit::Call`), as `x` is,
    //         so that the `if` can give either (`push_branching`)
    /// The value a function returns (by `return` or as its last expression): a call in a function that
    /// returns an array or `Vec` gives an array like the return type (a call is otherwise lowered as a
    /// float's, and an `if` or `match` choosing between it and an array could not carry it).
    fn lower_returned(&mut self, value: &Expr) -> Operand {
        if let (Some((fixed, len)), Expr::Call(c)) =
            (self.return_array.clone(), strip_parens(value))
        {
            if !super::is_vec_constructor(c) {
                if let Some(Operand::Array(array)) = self.lower_array_call(c, fixed, "__returned") {
                    if let (true, Some(len)) = (fixed, len) {
                        self.fixed_lens.insert(array, len);
                    }
                    return Operand::Array(array);
                }
            }
        }
        self.lower_expr(value, None)
    }

    /// A loop that can `return`, in return position, as a statement or as the value of `let pat = loop
    /// { .. };`: if it returned, that is the function's value; else `pat` binds the loop's value (its
    /// `break value`) and `rest` runs.
    ///
    /// ```text
    /// // Input:                                // Output (ir):
    /// let r = loop {                           returned, value, r = loop { .. }
    ///     if a > 1.0 { return a; }             ret = if returned { yield value }
    ///     ..; break a * a;                           else { ..rest.. }
    /// };
    /// ..rest..
    /// ```
    fn lower_returning_loop(
        &mut self,
        expr: &Expr,
        pat: Option<&syn::Pat>,
        rest: &[SeqItem],
    ) -> Operand {
        let result = self.lower_loop_expr(expr);
        let Some((flag, value)) = result.returned else {
            return Self::poisoned();
        };
        // A `loop` with no `break` ends only by `return`: what follows it never runs.
        if let Expr::Loop(l) = expr {
            if !loops::exits_of([&l.body], None).breaks {
                return value;
            }
        }
        let (else_stmts, else_ret, _) = self.branch(|this| {
            if let Some(pat) = pat {
                this.bind_pattern(pat, result.value);
            }
            this.lower_seq(rest)
        });
        let out = self.new_var(None, expr.span());
        self.stmts.push(Stmt::If {
            cond: flag,
            then_block: Block {
                stmts: Vec::new(),
                yields: vec![value],
            },
            else_block: Block {
                stmts: else_stmts,
                yields: vec![else_ret],
            },
            outs: vec![out],
        });
        Operand::Var(out)
    }

    /// `if c { ..A.. } else { ..B.. }; rest` in return position: each branch continues with `rest`.
    pub(super) fn lower_returning_if(&mut self, e: &syn::ExprIf, rest: &[SeqItem]) -> Operand {
        let cond = self.lower_expr(&e.cond, None);
        // Each branch's block is the scope `branch` opens, at this depth.
        let depth = self.scopes.len();
        let then_items: Vec<SeqItem> = e
            .then_branch
            .stmts
            .iter()
            .map(SeqItem::Stmt)
            .chain([SeqItem::PopScope(depth)])
            .chain(rest.iter().copied())
            .collect();
        let (then_stmts, then_ret, _) = self.branch(|this| this.lower_seq(&then_items));
        let else_items: Vec<SeqItem> = match &e.else_branch {
            Some((_, else_expr)) => match strip_parens(else_expr) {
                Expr::Block(b) => b
                    .block
                    .stmts
                    .iter()
                    .map(SeqItem::Stmt)
                    .chain([SeqItem::PopScope(depth)])
                    .chain(rest.iter().copied())
                    .collect(),
                other => [SeqItem::Expr(other), SeqItem::PopScope(depth)]
                    .into_iter()
                    .chain(rest.iter().copied())
                    .collect(),
            },
            None => [SeqItem::PopScope(depth)]
                .into_iter()
                .chain(rest.iter().copied())
                .collect(),
        };
        let (else_stmts, else_ret, _) = self.branch(|this| this.lower_seq(&else_items));
        let out = self.new_var(None, e.span());
        let stmt = Stmt::If {
            cond,
            then_block: Block {
                stmts: then_stmts,
                yields: vec![then_ret],
            },
            else_block: Block {
                stmts: else_stmts,
                yields: vec![else_ret],
            },
            outs: vec![out],
        };
        self.push_branching(stmt, Operand::Var(out))
    }

    /// `match s { p => ..A.., .. }; rest` in return position.
    pub(super) fn lower_returning_match(
        &mut self,
        m: &syn::ExprMatch,
        rest: &[SeqItem],
    ) -> Operand {
        let scrutinee = self.lower_expr(&m.expr, None);
        // Each arm's block is the scope `branch` opens, at this depth.
        let depth = self.scopes.len();
        let mut arms = Vec::new();
        for arm in &m.arms {
            let body = strip_parens(&arm.body);
            let items: Vec<SeqItem> = match body {
                Expr::Block(b) if b.label.is_none() => {
                    b.block.stmts.iter().map(SeqItem::Stmt).collect()
                }
                other => vec![SeqItem::Expr(other)],
            };
            let items: Vec<SeqItem> = items
                .into_iter()
                .chain([SeqItem::PopScope(depth)])
                .chain(rest.iter().copied())
                .collect();
            let (stmts, ret, _) = self.branch(|this| this.lower_seq(&items));
            arms.push(Arm {
                pat: arm.pat.clone(),
                block: Block {
                    stmts,
                    yields: vec![ret],
                },
            });
        }
        let out = self.new_var(None, m.span());
        let stmt = Stmt::Match {
            scrutinee,
            span: m.expr.span(),
            arms,
            outs: vec![out],
        };
        self.push_branching(stmt, Operand::Var(out))
    }

    // ---- statements ----

    /// `a && b` is `if a { b } else { false }`, so `b` is evaluated only when needed.
    pub(super) fn lower_short_circuit(
        &mut self,
        b: &syn::ExprBinary,
        hint: Option<String>,
    ) -> Operand {
        let left = self.lower_expr(&b.left, None);
        let (stmts, right, _) = self.branch(|this| this.lower_expr(&b.right, None));
        let (then_block, else_block) = {
            let evaluated = Block {
                stmts,
                yields: vec![right],
            };
            let constant = |value: bool| Block {
                stmts: Vec::new(),
                yields: vec![Operand::Const {
                    tokens: quote!(#value),
                    kind: Kind::Bool,
                }],
            };
            match b.op {
                BinOp::And(_) => (evaluated, constant(false)),
                _ => (constant(true), evaluated),
            }
        };
        let out = self.new_var(hint, b.span());
        self.stmts.push(Stmt::If {
            cond: left,
            then_block,
            else_block,
            outs: vec![out],
        });
        Operand::Var(out)
    }

    pub(super) fn lower_if(&mut self, e: &syn::ExprIf, hint: Option<String>) -> Operand {
        // The condition is no branch's value (`branch_array`): a call in it gives what it returns.
        let cond = self.without_branch_array(|this| this.lower_expr(&e.cond, None));
        let before = self.scopes.clone();
        let then_branch = self.branch(|this| this.lower_block_value(&e.then_branch));
        let else_branch = match &e.else_branch {
            Some((_, else_expr)) => self.branch(|this| this.lower_expr(else_expr, None)),
            None => (Vec::new(), Operand::unit(), before.clone()),
        };
        let (mut blocks, outs, value) =
            self.merge(&before, vec![then_branch, else_branch], hint, e.span());
        let else_block = blocks.pop().unwrap_or_default();
        let then_block = blocks.pop().unwrap_or_default();
        let stmt = Stmt::If {
            cond,
            then_block,
            else_block,
            outs,
        };
        self.push_branching(stmt, value)
    }

    pub(super) fn lower_match(&mut self, m: &syn::ExprMatch, hint: Option<String>) -> Operand {
        // Guards are rewritten into tests before (`sugar.rs`); one left here would be dropped, and the arm
        // taken whenever its pattern matched: an error, not a wrong value.
        for arm in &m.arms {
            if let Some((_, guard)) = &arm.guard {
                self.errors.spanned(
                    guard,
                    "a `match` guard is not supported here: test the condition in the arm's body \
                     (`p => if c { .. } else { .. }`)",
                );
            }
        }
        let scrutinee = self.without_branch_array(|this| this.lower_expr(&m.expr, None));
        let before = self.scopes.clone();
        let branches = m
            .arms
            .iter()
            .map(|arm| {
                self.branch(|this| {
                    // Input:  Act::LeakyRelu(slope) => slope * z
                    // Output: the arm's pattern kept, `slope` a constant written in place: each sweep's
                    //         `match` binds it again (`emit`, `reverse`, `forward` copy the pattern).
                    for name in crate::bindings::variant_fields(&arm.pat).unwrap_or_default() {
                        let tokens = name.to_token_stream();
                        this.bind(
                            &name.to_string(),
                            Some(Operand::Const {
                                tokens,
                                kind: Kind::Unknown,
                            }),
                        );
                    }
                    this.lower_branch_tail(&arm.body)
                })
            })
            .collect();
        let (blocks, outs, value) = self.merge(&before, branches, hint, m.span());
        let arms = m
            .arms
            .iter()
            .zip(blocks)
            .map(|(arm, block)| Arm {
                pat: arm.pat.clone(),
                block,
            })
            .collect();
        let stmt = Stmt::Match {
            scrutinee,
            span: m.expr.span(),
            arms,
            outs,
        };
        self.push_branching(stmt, value)
    }

    /// `let (a, b) = if c { f(x) } else { (y, z) };`: the tuple the last pushed `if` or `match` gives as
    /// `value` becomes `n` values, one per component, which each branch yields: the elements of a tuple
    /// it writes, the components of a nested `if`'s value split the same way, or the fields of a call's
    /// result (whose shape the pattern tells). `None` where `value` is no out of that statement.
    ///
    /// ```text
    /// // Input:                                   // Output (ir):
    /// let (a, b) = if c { f(x) } else { (y, z) };  a, b = if c { t = f(x); yield t.0, t.1 }
    ///                                                     else { yield y, z }
    /// ```
    pub(super) fn split_branching_value(
        &mut self,
        value: &Operand,
        n: usize,
    ) -> Option<Vec<Operand>> {
        let mut stmt = self.stmts.pop()?;
        let parts = self.split_out(&mut stmt, value, n);
        self.stmts.push(stmt);
        parts
    }

    /// Splits the out `value` of the `if` or `match` `stmt` into `n` outs (see `split_branching_value`).
    fn split_out(&mut self, stmt: &mut Stmt, value: &Operand, n: usize) -> Option<Vec<Operand>> {
        let var = value.var()?;
        let (outs, blocks) = match stmt {
            Stmt::If {
                outs,
                then_block,
                else_block,
                ..
            } => (outs, vec![then_block, else_block]),
            Stmt::Match { outs, arms, .. } => {
                (outs, arms.iter_mut().map(|a| &mut a.block).collect())
            }
            _ => return None,
        };
        let k = outs.iter().position(|o| *o == var)?;
        let span = self.vars[var.0 as usize].span;
        for block in blocks {
            let yielded = block.yields.get(k)?.clone();
            let parts = self.components(block, &yielded, n, span);
            block.yields.splice(k..=k, parts);
        }
        let parts: Vec<Var> = (0..n).map(|_| self.new_var(None, span)).collect();
        outs.splice(k..=k, parts.iter().copied());
        Some(parts.into_iter().map(Operand::Var).collect())
    }

    /// The `n` components of the tuple `yielded` that `block` yields, computed at the block's end.
    fn components(
        &mut self,
        block: &mut Block,
        yielded: &Operand,
        n: usize,
        span: Span,
    ) -> Vec<Operand> {
        if let Some(v) = yielded.var() {
            let made = block.stmts.iter().rposition(|s| s.defs().contains(&v));
            // A tuple written in the branch (and named by no one): its elements.
            if let Some(Stmt::Let {
                value: crate::ir::Value::Tuple(items),
                ..
            }) = made.map(|i| &block.stmts[i])
            {
                if items.len() == n && self.vars[v.0 as usize].hint.is_none() {
                    return items.clone();
                }
            }
            // A nested `if` or `match` (`else if`): split in turn.
            if let Some(i) =
                made.filter(|i| matches!(block.stmts[*i], Stmt::If { .. } | Stmt::Match { .. }))
            {
                if let Some(parts) = self.split_out(&mut block.stmts[i], yielded, n) {
                    return parts;
                }
            }
            self.vars[v.0 as usize].tuple_arity = Some(n);
        }
        (0..n)
            .map(|i| {
                let part = self.new_var(None, span);
                block.stmts.push(Stmt::Let {
                    var: part,
                    value: crate::ir::Value::Field(yielded.clone(), i as u32),
                });
                Operand::Var(part)
            })
            .collect()
    }

    /// Joins the branches of an `if` or `match`: the statement's value (if it has one) and every variable
    /// that some branch assigned become outs, which each branch yields.
    pub(super) fn merge(
        &mut self,
        before: &[Vec<Binding>],
        branches: Vec<(Vec<Stmt>, Operand, Vec<Vec<Binding>>)>,
        hint: Option<String>,
        span: Span,
    ) -> (Vec<Block>, Vec<Var>, Operand) {
        let mut blocks: Vec<Block> = Vec::new();
        let mut outs = Vec::new();
        let has_value = branches.iter().any(|(_, v, _)| {
            !matches!(
                v,
                Operand::Const {
                    kind: Kind::Unit,
                    ..
                }
            )
        });
        let value = if has_value {
            let out = self.new_var(hint, span);
            outs.push(out);
            Operand::Var(out)
        } else {
            Operand::unit()
        };
        for (stmts, branch_value, _) in &branches {
            blocks.push(Block {
                stmts: stmts.clone(),
                yields: if has_value {
                    vec![branch_value.clone()]
                } else {
                    Vec::new()
                },
            });
        }
        for (si, scope) in before.iter().enumerate() {
            for (bi, binding) in scope.iter().enumerate() {
                let after: Vec<&Option<Operand>> =
                    branches.iter().map(|(_, _, s)| &s[si][bi].value).collect();
                let unchanged = after.iter().all(|a| match (a, &binding.value) {
                    (Some(a), Some(b)) => a.same_as(b),
                    (None, None) => true,
                    _ => false,
                });
                if unchanged {
                    continue;
                }
                let merged = if after.iter().all(|a| a.is_some()) {
                    let out = self.new_var(Some(binding.name.clone()), span);
                    outs.push(out);
                    for (block, a) in blocks.iter_mut().zip(&after) {
                        block.yields.extend((*a).clone());
                    }
                    Some(Operand::Var(out))
                } else {
                    None
                };
                self.scopes[si][bi].value = merged;
            }
        }
        (blocks, outs, value)
    }
}

/// `let pat = <loop>;` where the loop can `return`: its pattern and the loop.
pub(super) fn returning_loop_let(stmt: &syn::Stmt) -> Option<(&syn::Pat, &Expr)> {
    let syn::Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
    let expr = strip_parens(&init.expr);
    let is_loop = matches!(expr, Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_));
    (is_loop && contains_return(|f| f.visit_expr(expr))).then_some((&local.pat, expr))
}
