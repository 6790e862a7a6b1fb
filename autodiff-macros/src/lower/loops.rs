//! Lowering of loops. Every Rust loop becomes one `Loop` statement (see `ir.rs`): the variables the body
//! assigns are carried values, `for` over a slice becomes a `for` over its indexes, and `break`,
//! `continue` and `return` inside the body become yields, as early returns do in the function body: the
//! statements after `if c { break; }` move into the `else` branch, and `break` sets a carried flag that
//! ends the loop after the iteration.
//!
//! ```text
//! // Input:                          // Output (ir):
//! let mut s = 0.0;                   s_out, trips = loop for i in 0..n
//! for i in 0..n {                        carried s = 0.0 (phi s)
//!     s += x[i] * y[i];                  body { a = x[i]; b = y[i]; p = a * b; s_1 = s + p; yield s_1 }
//! }
//! ```

use super::iteration::Elements;
use super::{strip_parens, Lowering, SeqItem};
use crate::ir::{Block, Kind, Loop, Operand, Range, Stmt, Var};
use proc_macro2::Span;
use quote::quote;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Pat};

/// What the body of the loop being lowered yields, in order: the carried variables, then the flags.
pub(super) struct LoopCtx {
    /// Where each carried variable is bound: (scope, position in it).
    carried: Vec<(usize, usize)>,
    phis: Vec<Var>,
    /// Index of the exit flag (set by `break` and `return`) among the yields.
    exit: Option<usize>,
    /// Indexes of the `returned` flag and the returned value.
    returned: Option<(usize, usize)>,
    /// Index of the value of `break value`.
    break_value: Option<usize>,
}

/// How the body leaves the current iteration.
#[derive(Clone, Copy)]
enum Exit<'s> {
    FallThrough,
    Continue,
    Break(Option<&'s Expr>),
    Return(Option<&'s Expr>),
}

/// What a loop produced, for the code after it.
pub(super) struct LoopResult {
    pub(super) value: Operand,
    /// The `returned` flag and value, if the body can `return`.
    pub(super) returned: Option<(Operand, Operand)>,
}

/// The exits of a loop body at its own level (a nested loop's `break` is its own) and anywhere (`return`).
#[derive(Default)]
pub(super) struct Exits {
    pub(super) break_or_continue: bool,
    pub(super) break_value: bool,
    pub(super) breaks: bool,
    pub(super) returns: bool,
    /// Names assigned anywhere inside.
    assigned: Vec<String>,
    depth: usize,
}

impl<'ast> Visit<'ast> for Exits {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                self.depth += 1;
                syn::visit::visit_expr(self, expr);
                self.depth -= 1;
            }
            Expr::Break(b) => {
                if self.depth == 0 {
                    self.break_or_continue = true;
                    self.breaks = true;
                    self.break_value |= b.expr.is_some();
                }
                syn::visit::visit_expr(self, expr);
            }
            Expr::Continue(_) => self.break_or_continue |= self.depth == 0,
            Expr::Return(_) => {
                self.returns = true;
                syn::visit::visit_expr(self, expr);
            }
            Expr::Assign(a) => {
                self.assigned.extend(assigned_name(&a.left));
                syn::visit::visit_expr(self, expr);
            }
            Expr::Binary(b) if is_compound_assign(&b.op) => {
                self.assigned.extend(assigned_name(&b.left));
                syn::visit::visit_expr(self, expr);
            }
            // `g(&mut s)`: a call that writes a float local assigns it.
            Expr::Reference(r) if r.mutability.is_some() => {
                self.assigned.extend(assigned_name(&r.expr));
                syn::visit::visit_expr(self, expr);
            }
            Expr::Closure(_) => {}
            _ => syn::visit::visit_expr(self, expr),
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Is `op` a compound assignment (`+=`, `-=`, .., `>>=`)?
pub(crate) fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | BitXorAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

fn assigned_name(target: &Expr) -> Option<String> {
    match strip_parens(target) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// The exits and assignments of a loop body (and a `while` condition).
pub(super) fn exits_of<'a>(
    nodes: impl IntoIterator<Item = &'a syn::Block>,
    cond: Option<&Expr>,
) -> Exits {
    let mut exits = Exits::default();
    for block in nodes {
        exits.visit_block(block);
    }
    if let Some(cond) = cond {
        exits.visit_expr(cond);
    }
    exits
}

/// Does this statement leave the enclosing loop's iteration (at that loop's level) or the function?
pub(super) fn leaves_iteration(stmt_expr: &Expr) -> bool {
    let mut exits = Exits::default();
    exits.visit_expr(stmt_expr);
    exits.break_or_continue || exits.returns
}

impl Lowering<'_> {
    /// `for`, `while` or `loop` as an expression; a loop that can `return` is lowered by `lower_seq`.
    pub(super) fn lower_loop_expr(&mut self, expr: &Expr) -> LoopResult {
        self.loop_depth += 1;
        self.loop_scopes.push(self.scopes.len());
        let result = self.lower_any_loop(expr);
        self.loop_scopes.pop();
        self.loop_depth -= 1;
        result
    }

    fn lower_any_loop(&mut self, expr: &Expr) -> LoopResult {
        match expr {
            Expr::ForLoop(f) => {
                if let Some(label) = &f.label {
                    self.errors
                        .spanned(label, "loop labels are not supported: use a flag variable");
                }
                let Some((range, elements)) = self.lower_iteration(&f.expr) else {
                    return LoopResult {
                        value: Self::poisoned(),
                        returned: None,
                    };
                };
                let span = loop_span(&f.attrs, &f.label, f.for_token.span, &f.body, || f.span());
                self.lower_loop(Some((range, elements, &f.pat)), None, &f.body, span)
            }
            Expr::While(w) => {
                if let Some(label) = &w.label {
                    self.errors
                        .spanned(label, "loop labels are not supported: use a flag variable");
                }
                let span = loop_span(&w.attrs, &w.label, w.while_token.span, &w.body, || w.span());
                // A condition that changes what it reads (`while { k += 1; k < n } { .. }`): the lowered
                // condition's writes reach neither the body nor the next test (the loop never ended), so
                // the loop is lowered as the `loop { if !cond { break; } .. }` it is, whose body carries them.
                let moves = !matches!(strip_parens(&w.cond), Expr::Let(_))
                    && crate::incoming::index_moved_by(&w.cond, &w.cond).is_some();
                let (cond, stmts) = (&w.cond, &w.body.stmts);
                let body = quote::quote_spanned!(span=> {
                    if !(#cond) {
                        break;
                    }
                    #(#stmts)*
                });
                if let Some(body) = moves
                    .then(|| syn::parse2::<syn::Block>(body).ok())
                    .flatten()
                {
                    return self.lower_loop(None, None, &body, span);
                }
                self.lower_loop(None, Some(&w.cond), &w.body, span)
            }
            Expr::Loop(l) => {
                if let Some(label) = &l.label {
                    self.errors
                        .spanned(label, "loop labels are not supported: use a flag variable");
                }
                let span = loop_span(&l.attrs, &l.label, l.loop_token.span, &l.body, || l.span());
                self.lower_loop(None, None, &l.body, span)
            }
            _ => LoopResult {
                value: Self::poisoned(),
                returned: None,
            },
        }
    }

    /// Lowers one loop: `for` (with its range and pattern), `while` (with its condition) or `loop`.
    fn lower_loop(
        &mut self,
        iteration: Option<(Range, Elements, &Pat)>,
        cond: Option<&Expr>,
        body: &syn::Block,
        span: Span,
    ) -> LoopResult {
        let exits = exits_of([body], cond);
        // The body may write any array: reads remembered before the loop may be stale in a later iteration.
        self.forget_reads();
        // The carried values: variables bound outside that the body assigns.
        let mut carried: Vec<(usize, usize)> = Vec::new();
        for name in &exits.assigned {
            let Some(position) = self.position_of(name) else {
                continue;
            };
            let value = &self.scopes[position.0][position.1].value;
            if matches!(value, Some(Operand::Var(_)) | Some(Operand::Const { .. }))
                && !carried.contains(&position)
            {
                carried.push(position);
            }
        }
        let mut phis = Vec::new();
        let mut inits = Vec::new();
        for &(scope, at) in &carried {
            let binding = self.scopes[scope][at].clone();
            phis.push(self.new_var(Some(binding.name), span));
            inits.push(binding.value.unwrap_or_else(Self::poisoned));
        }
        let flag = |value: bool| Operand::Const {
            tokens: quote!(#value),
            kind: Kind::Bool,
        };
        let zero = || Operand::Const {
            tokens: quote!(::autodiff::__private::Zero::zero()),
            kind: Kind::Unknown,
        };
        // The value a `return` inside the loop carries out starts as a zero of the return type.
        let return_zero = Operand::Const {
            tokens: crate::emit::Emitter::zero_of(&self.return_kind),
            kind: self.return_kind.clone(),
        };
        let mut add = |this: &mut Self, hint: &str, init: Operand| {
            phis.push(this.new_var(Some(hint.to_string()), span));
            inits.push(init);
            phis.len() - 1
        };
        let exit = (exits.breaks || exits.returns).then(|| add(self, "__exit", flag(false)));
        let returned = exits.returns.then(|| {
            (
                add(self, "__returned", flag(false)),
                add(self, "__return_value", return_zero.clone()),
            )
        });
        let break_value = exits
            .break_value
            .then(|| add(self, "__break_value", zero()));
        let ctx = LoopCtx {
            carried: carried.clone(),
            phis: phis.clone(),
            exit,
            returned,
            break_value,
        };
        let bind_phis = |this: &mut Self| {
            for (&(scope, at), phi) in carried.iter().zip(&phis) {
                this.scopes[scope][at].value = Some(Operand::Var(*phi));
            }
        };
        let cond_block = cond.map(|cond| {
            let (stmts, value, _) = self.branch(|this| {
                bind_phis(this);
                this.lower_expr(cond, None)
            });
            Block {
                stmts,
                yields: vec![value],
            }
        });
        let (range, index) = match iteration {
            Some((range, elements, pat)) => {
                let index = self.new_var(Some("__i".to_string()), pat.span());
                (Some((range, index, elements, pat)), Some(index))
            }
            None => (None, None),
        };
        let (body_stmts, yields, _) = self.branch(|this| {
            bind_phis(this);
            if let Some((_, index, elements, pat)) = &range {
                this.bind_elements(pat, *index, elements);
            }
            let items: Vec<SeqItem> = body.stmts.iter().map(SeqItem::Stmt).collect();
            this.lower_loop_seq(&items, &ctx)
        });
        let outs: Vec<Var> = phis
            .iter()
            .map(|phi| self.new_var(self.vars[phi.0 as usize].hint.clone(), span))
            .collect();
        let trips = self.new_var(Some("__trips".to_string()), span);
        for (&(scope, at), out) in carried.iter().zip(&outs) {
            self.scopes[scope][at].value = Some(Operand::Var(*out));
        }
        let result = LoopResult {
            value: break_value.map_or_else(Operand::unit, |i| Operand::Var(outs[i])),
            returned: returned
                .map(|(flag, value)| (Operand::Var(outs[flag]), Operand::Var(outs[value]))),
        };
        self.stmts.push(Stmt::Loop(Box::new(Loop {
            range: range.map(|(r, _, _, _)| r).zip(index),
            cond: cond_block,
            phis,
            inits,
            body: Block {
                stmts: body_stmts,
                yields,
            },
            outs,
            exit_flag: exit,
            trips,
        })));
        result
    }

    /// Lowers a loop body, whose `break`, `continue` and `return` end the iteration; gives its yields.
    pub(super) fn lower_loop_seq(&mut self, items: &[SeqItem], ctx: &LoopCtx) -> Vec<Operand> {
        for (i, item) in items.iter().enumerate() {
            let rest = &items[i + 1..];
            let expr = match *item {
                SeqItem::PopScope(depth) => {
                    self.end_scope(depth);
                    continue;
                }
                SeqItem::Expr(e) => e,
                SeqItem::Stmt(syn::Stmt::Expr(e, _)) => e,
                SeqItem::Stmt(stmt) => {
                    if let Some((pat, init)) = super::control::returning_loop_let(stmt) {
                        return self.lower_inner_returning_loop(init, Some(pat), rest, ctx);
                    }
                    self.lower_stmt(stmt);
                    continue;
                }
            };
            match strip_parens(expr) {
                Expr::Break(b) => return self.exit_yields(ctx, Exit::Break(b.expr.as_deref())),
                Expr::Continue(_) => return self.exit_yields(ctx, Exit::Continue),
                Expr::Return(r) => return self.exit_yields(ctx, Exit::Return(r.expr.as_deref())),
                Expr::If(e) if leaves_iteration(expr) => {
                    let cond = self.lower_expr(&e.cond, None);
                    // Each branch's block is the scope `branch` opens, at this depth.
                    let depth = self.scopes.len();
                    let then_items = block_then(&e.then_branch, rest, depth);
                    let (then_stmts, then_yields, _) =
                        self.branch(|this| this.lower_loop_seq(&then_items, ctx));
                    let else_items =
                        else_then(e.else_branch.as_ref().map(|(_, e)| &**e), rest, depth);
                    let (else_stmts, else_yields, _) =
                        self.branch(|this| this.lower_loop_seq(&else_items, ctx));
                    let outs: Vec<Var> = ctx
                        .phis
                        .iter()
                        .map(|p| self.new_var(self.vars[p.0 as usize].hint.clone(), e.span()))
                        .collect();
                    self.stmts.push(Stmt::If {
                        cond,
                        then_block: Block {
                            stmts: then_stmts,
                            yields: then_yields,
                        },
                        else_block: Block {
                            stmts: else_stmts,
                            yields: else_yields,
                        },
                        outs: outs.clone(),
                    });
                    return outs.into_iter().map(Operand::Var).collect();
                }
                Expr::Match(m) if leaves_iteration(expr) => {
                    let scrutinee = self.lower_expr(&m.expr, None);
                    let depth = self.scopes.len();
                    let mut arms = Vec::new();
                    for arm in &m.arms {
                        let items = arm_then(&arm.body, rest, depth);
                        let (stmts, yields, _) =
                            self.branch(|this| this.lower_loop_seq(&items, ctx));
                        arms.push(crate::ir::Arm {
                            pat: arm.pat.clone(),
                            block: Block { stmts, yields },
                        });
                    }
                    let outs: Vec<Var> = ctx
                        .phis
                        .iter()
                        .map(|p| self.new_var(self.vars[p.0 as usize].hint.clone(), m.span()))
                        .collect();
                    self.stmts.push(Stmt::Match {
                        scrutinee,
                        span: m.expr.span(),
                        arms,
                        outs: outs.clone(),
                    });
                    return outs.into_iter().map(Operand::Var).collect();
                }
                Expr::Block(b) if b.label.is_none() && leaves_iteration(expr) => {
                    let depth = self.scopes.len();
                    self.scopes.push(Vec::new());
                    let inner: Vec<SeqItem> = b
                        .block
                        .stmts
                        .iter()
                        .map(SeqItem::Stmt)
                        .chain([SeqItem::PopScope(depth)])
                        .chain(rest.iter().copied())
                        .collect();
                    return self.lower_loop_seq(&inner, ctx);
                }
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_)
                    if super::contains_return(|f| f.visit_expr(expr)) =>
                {
                    return self.lower_inner_returning_loop(strip_parens(expr), None, rest, ctx);
                }
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.lower_loop_expr(expr);
                }
                e => {
                    self.lower_expr(e, None);
                }
            }
        }
        self.exit_yields(ctx, Exit::FallThrough)
    }

    /// A loop inside a loop body that can `return` (as a statement, or as the value of `let pat = ..`):
    /// if it returned, so does the enclosing loop; else `pat` binds its value and `rest` runs.
    fn lower_inner_returning_loop(
        &mut self,
        expr: &Expr,
        pat: Option<&Pat>,
        rest: &[SeqItem],
        ctx: &LoopCtx,
    ) -> Vec<Operand> {
        let inner = self.lower_loop_expr(expr);
        let Some((flag, value)) = inner.returned else {
            return self.lower_loop_seq(rest, ctx);
        };
        let outs: Vec<Var> = ctx
            .phis
            .iter()
            .map(|p| self.new_var(self.vars[p.0 as usize].hint.clone(), expr.span()))
            .collect();
        let (then_stmts, then_yields, _) = self.branch(|this| this.exit_yields_value(ctx, value));
        let (else_stmts, else_yields, _) = self.branch(|this| {
            if let Some(pat) = pat {
                this.bind_pattern(pat, inner.value);
            }
            this.lower_loop_seq(rest, ctx)
        });
        self.stmts.push(Stmt::If {
            cond: flag,
            then_block: Block {
                stmts: then_stmts,
                yields: then_yields,
            },
            else_block: Block {
                stmts: else_stmts,
                yields: else_yields,
            },
            outs: outs.clone(),
        });
        outs.into_iter().map(Operand::Var).collect()
    }

    /// The yields of one way out of an iteration.
    fn exit_yields(&mut self, ctx: &LoopCtx, exit: Exit) -> Vec<Operand> {
        let value = match exit {
            Exit::Break(Some(e)) | Exit::Return(Some(e)) => Some(self.lower_expr(e, None)),
            _ => None,
        };
        let mut yields = self.current_carried(ctx);
        let flag = |value: bool| Operand::Const {
            tokens: quote!(#value),
            kind: Kind::Bool,
        };
        if let Some(i) = ctx.exit {
            yields[i] = flag(matches!(exit, Exit::Break(_) | Exit::Return(_)));
        }
        if let Some((flag_index, value_index)) = ctx.returned {
            let returning = matches!(exit, Exit::Return(_));
            yields[flag_index] = flag(returning);
            if returning {
                yields[value_index] = value.clone().unwrap_or_else(Operand::unit);
            }
        }
        if let (Some(i), Exit::Break(Some(_))) = (ctx.break_value, exit) {
            yields[i] = value.unwrap_or_else(Operand::unit);
        }
        yields
    }

    /// The yields of a `return value` that an inner loop performed.
    fn exit_yields_value(&mut self, ctx: &LoopCtx, value: Operand) -> Vec<Operand> {
        let mut yields = self.current_carried(ctx);
        let flag = |value: bool| Operand::Const {
            tokens: quote!(#value),
            kind: Kind::Bool,
        };
        if let Some(i) = ctx.exit {
            yields[i] = flag(true);
        }
        if let Some((flag_index, value_index)) = ctx.returned {
            yields[flag_index] = flag(true);
            yields[value_index] = value;
        }
        yields
    }

    /// The current values of the carried variables, and the flags' phis.
    fn current_carried(&self, ctx: &LoopCtx) -> Vec<Operand> {
        let mut yields: Vec<Operand> = ctx
            .carried
            .iter()
            .map(|&(scope, at)| {
                self.scopes[scope][at]
                    .value
                    .clone()
                    .unwrap_or_else(Self::poisoned)
            })
            .collect();
        yields.extend(
            ctx.phis[ctx.carried.len()..]
                .iter()
                .map(|p| Operand::Var(*p)),
        );
        yields
    }
}

/// A block's statements, the end of its scope (at `depth`), then `rest`.
fn block_then<'s>(block: &'s syn::Block, rest: &[SeqItem<'s>], depth: usize) -> Vec<SeqItem<'s>> {
    block
        .stmts
        .iter()
        .map(SeqItem::Stmt)
        .chain([SeqItem::PopScope(depth)])
        .chain(rest.iter().copied())
        .collect()
}

fn else_then<'s>(
    else_expr: Option<&'s Expr>,
    rest: &[SeqItem<'s>],
    depth: usize,
) -> Vec<SeqItem<'s>> {
    match else_expr.map(strip_parens) {
        Some(Expr::Block(b)) => block_then(&b.block, rest, depth),
        Some(other) => [SeqItem::Expr(other), SeqItem::PopScope(depth)]
            .into_iter()
            .chain(rest.iter().copied())
            .collect(),
        None => [SeqItem::PopScope(depth)]
            .into_iter()
            .chain(rest.iter().copied())
            .collect(),
    }
}

fn arm_then<'s>(body: &'s Expr, rest: &[SeqItem<'s>], depth: usize) -> Vec<SeqItem<'s>> {
    match strip_parens(body) {
        Expr::Block(b) if b.label.is_none() => block_then(&b.block, rest, depth),
        other => [SeqItem::Expr(other), SeqItem::PopScope(depth)]
            .into_iter()
            .chain(rest.iter().copied())
            .collect(),
    }
}

/// The span `syn` gives a loop (`Spanned::span`: its first token's joined to its last's), from the keyword and
/// the body's braces instead of printing the whole loop to tokens, which nested loops did again at each level.
/// With attributes or a label, which come first, `syn`'s own (`spanned`).
fn loop_span(
    attrs: &[syn::Attribute],
    label: &Option<syn::Label>,
    keyword: proc_macro2::Span,
    body: &syn::Block,
    spanned: impl FnOnce() -> proc_macro2::Span,
) -> proc_macro2::Span {
    if !attrs.is_empty() || label.is_some() {
        return spanned();
    }
    keyword
        .join(body.brace_token.span.join())
        .unwrap_or(keyword)
}
