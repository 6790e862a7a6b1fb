//! Lowering: the function body, as `syn` parsed it, becomes the intermediate form of `ir.rs`.
//!
//! Every expression is split into `let`s of one operation each (A-normal form), every assignment makes a
//! new value, and a variable that an `if` or `match` assigns becomes one of the statement's outs. An early
//! `return` is turned into structured control flow: the statements after `if c { return a; }` become the
//! `else` branch, so the body is one expression whose value is the returned value.
//!
//! ```text
//! // Input:                          // Output (ir):
//! let mut y = x * x;                 y   = x * x
//! if y > 1.0 { y = y.sqrt(); }       c   = y > 1.0
//! y + x                              y_1 = if c { y_2 = sqrt(y); yield y_2 } else { yield y }
//!                                    ret = y_1 + x
//! ```
//!
//! The body has already passed the fence (`fence.rs`), so constructs outside the subset do not reach here;
//! what only lowering can see (a `return` inside an expression) is reported to `Errors`.

use crate::errors::Errors;
use crate::ir::{
    Arm, Array, ArrayInfo, Block, CallForm, FloatFn, Function, Kind, Operand, Stmt, Value, Var,
    VarInfo,
};
use crate::signature::{kind_of_type, Signature};
use proc_macro2::Span;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{BinOp, Expr, Ident, Lit, Pat};

mod arrays;
mod loops;

/// A name in scope: its current value, or `None` for `let y;` not yet assigned.
#[derive(Clone)]
struct Binding {
    name: String,
    value: Option<Operand>,
}

/// One element of a statement sequence lowered in return position: a statement, an expression in
/// statement position (the `else if` of a returning `if`), or the end of a block's scope.
#[derive(Clone, Copy)]
enum SeqItem<'s> {
    Stmt(&'s syn::Stmt),
    Expr(&'s Expr),
    PopScope,
}

struct Lowering<'a> {
    /// The kind of the returned value.
    return_kind: Kind,
    /// Names the body uses as arrays (`v[i]`, `v.len()`, `&v`, `for x in v`): a call's result bound to
    /// one of them is an array.
    array_uses: std::collections::HashSet<String>,
    /// The name of the function, to reject recursion.
    fn_name: String,
    /// Values already computed, by operation and operands: the same expression is computed once.
    memo: std::collections::HashMap<String, Var>,
    vars: Vec<VarInfo>,
    arrays: Vec<ArrayInfo>,
    scopes: Vec<Vec<Binding>>,
    /// The statements of the block being lowered.
    stmts: Vec<Stmt>,
    items: Vec<syn::Item>,
    float_params: Vec<Ident>,
    errors: &'a mut Errors,
}

/// Lowers the body of `item`, whose signature is `sig`.
pub(crate) fn lower(
    item: &syn::ItemFn,
    sig: &Signature,
    float_params: Vec<Ident>,
    errors: &mut Errors,
) -> Function {
    let mut lowering = Lowering {
        return_kind: sig.ret_kind.clone(),
        array_uses: arrays::array_uses(&item.block),
        fn_name: item.sig.ident.to_string(),
        memo: Default::default(),
        vars: Vec::new(),
        arrays: Vec::new(),
        scopes: vec![Vec::new()],
        stmts: Vec::new(),
        items: Vec::new(),
        float_params,
        errors,
    };
    let mut params = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        let var = lowering.new_var(Some(p.ident.to_string()), p.ident.span());
        params.push(var);
        let bound = match p.array {
            Some(shape) => {
                Operand::Array(lowering.new_array(&p.ident.to_string(), Some(i), shape.fixed))
            }
            None => Operand::Var(var),
        };
        lowering.bind(&p.ident.to_string(), Some(bound));
    }
    let items: Vec<SeqItem> = item.block.stmts.iter().map(SeqItem::Stmt).collect();
    let returned = lowering.lower_seq(&items);
    lowering.reject_array_values(&lowering.stmts.clone());
    Function {
        vars: lowering.vars,
        arrays: lowering.arrays,
        params,
        body: Block {
            stmts: lowering.stmts,
            yields: vec![returned],
        },
        items: lowering.items,
    }
}

/// Does this code contain a `return`?
fn contains_return(node: impl FnOnce(&mut ReturnFinder)) -> bool {
    let mut finder = ReturnFinder(false);
    node(&mut finder);
    finder.0
}

struct ReturnFinder(bool);

impl<'ast> Visit<'ast> for ReturnFinder {
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

fn strip_parens(mut expr: &Expr) -> &Expr {
    loop {
        match expr {
            Expr::Paren(p) => expr = &p.expr,
            Expr::Group(g) => expr = &g.expr,
            _ => return expr,
        }
    }
}

impl Lowering<'_> {
    fn new_var(&mut self, hint: Option<String>, span: Span) -> Var {
        self.vars.push(VarInfo {
            hint,
            tuple_arity: None,
            span,
        });
        Var(self.vars.len() as u32 - 1)
    }

    fn new_array(&mut self, name: &str, param: Option<usize>, fixed: bool) -> Array {
        self.arrays.push(ArrayInfo {
            name: name.to_string(),
            param,
            fixed,
        });
        Array(self.arrays.len() as u32 - 1)
    }

    /// The array a path names, if it names one.
    fn array_named(&self, expr: &Expr) -> Option<Array> {
        match strip_parens(expr) {
            Expr::Path(p) if p.qself.is_none() => {
                let ident = p.path.get_ident()?;
                match self.lookup(&ident.to_string())?.value {
                    Some(Operand::Array(a)) => Some(a),
                    _ => None,
                }
            }
            Expr::Reference(r) if r.mutability.is_none() => self.array_named(&r.expr),
            _ => None,
        }
    }

    fn bind(&mut self, name: &str, value: Option<Operand>) {
        let scope = self
            .scopes
            .last_mut()
            .expect("the function scope is never popped");
        scope.push(Binding {
            name: name.to_string(),
            value,
        });
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|b| b.name == name)
    }

    /// Arrays are memory, not values: an `if`, `match` or early `return` cannot choose one.
    fn reject_array_values(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            let (outs, blocks_yields): (Vec<Var>, Vec<&[Operand]>) = match stmt {
                Stmt::If { outs, .. } | Stmt::Match { outs, .. } => (
                    outs.clone(),
                    stmt.blocks().iter().map(|b| b.yields.as_slice()).collect(),
                ),
                Stmt::Loop(l) => (
                    l.phis.clone(),
                    vec![l.inits.as_slice(), l.body.yields.as_slice()],
                ),
                _ => (Vec::new(), Vec::new()),
            };
            for (i, out) in outs.iter().enumerate() {
                if blocks_yields
                    .iter()
                    .any(|ys| matches!(ys.get(i), Some(Operand::Array(_))))
                {
                    self.errors.at(
                        self.vars[out.0 as usize].span,
                        "an array cannot be the value of an `if`, a `match` or an early `return` yet: write \
                         into one array in every branch (`out[i] = ..`) and return it at the end",
                    );
                }
            }
            for block in stmt.blocks() {
                self.reject_array_values(&block.stmts);
            }
        }
    }

    /// Where `name` is bound: (scope, position in it).
    fn position_of(&self, name: &str) -> Option<(usize, usize)> {
        self.scopes
            .iter()
            .enumerate()
            .rev()
            .find_map(|(si, scope)| {
                scope
                    .iter()
                    .rposition(|b| b.name == name)
                    .map(|bi| (si, bi))
            })
    }

    fn lookup_mut(&mut self, name: &str) -> Option<&mut Binding> {
        self.scopes
            .iter_mut()
            .rev()
            .flat_map(|s| s.iter_mut().rev())
            .find(|b| b.name == name)
    }

    /// Appends `let var = value` and returns the new value, or the value computed by the same operation
    /// on the same operands before, if it is still in scope (`x[i] * x[i]` loads `x[i]` once).
    fn emit(&mut self, value: Value, hint: Option<String>, span: Span) -> Operand {
        let key = memo_key(&value);
        if let Some(var) = key.as_ref().and_then(|k| self.memo.get(k)) {
            return Operand::Var(*var);
        }
        let var = self.new_var(hint, span);
        self.stmts.push(Stmt::Let { var, value });
        if let Some(key) = key {
            self.memo.insert(key, var);
        }
        Operand::Var(var)
    }

    /// Forgets the remembered reads of `array` after a write to it.
    fn forget_reads_of(&mut self, array: Array) {
        let (load, len) = (format!("load {} ", array.0), format!("len {}", array.0));
        self.memo
            .retain(|key, _| !key.starts_with(&load) && *key != len);
    }

    /// Forgets every remembered array read (after a branch or at a loop, which may write any array).
    fn forget_reads(&mut self) {
        self.memo
            .retain(|key, _| !key.starts_with("load ") && !key.starts_with("len "));
    }

    /// A placeholder after an error, so lowering can go on and find the next one.
    fn poisoned() -> Operand {
        Operand::Const {
            tokens: quote!(()),
            kind: Kind::Unknown,
        }
    }

    /// Lowers `body` in a scope of its own and returns its statements, its result, and the scopes as the
    /// branch left them; the enclosing state is restored.
    fn branch<R>(
        &mut self,
        body: impl FnOnce(&mut Self) -> R,
    ) -> (Vec<Stmt>, R, Vec<Vec<Binding>>) {
        let saved_memo = self.memo.clone();
        let saved_scopes = self.scopes.clone();
        let saved_stmts = std::mem::take(&mut self.stmts);
        self.scopes.push(Vec::new());
        let result = body(self);
        self.scopes.truncate(saved_scopes.len());
        let scopes_after = std::mem::replace(&mut self.scopes, saved_scopes);
        let stmts = std::mem::replace(&mut self.stmts, saved_stmts);
        self.memo = saved_memo;
        self.forget_reads();
        (stmts, result, scopes_after)
    }

    // ---- statements in return position ----

    /// Lowers a statement sequence whose end (or `return`) is the function's return; gives the returned value.
    fn lower_seq(&mut self, items: &[SeqItem]) -> Operand {
        for (i, item) in items.iter().enumerate() {
            let rest = &items[i + 1..];
            let is_last = !rest.iter().any(|r| !matches!(r, SeqItem::PopScope));
            let (expr, has_semi) = match *item {
                SeqItem::PopScope => {
                    self.scopes.pop();
                    continue;
                }
                SeqItem::Expr(e) => (e, false),
                SeqItem::Stmt(syn::Stmt::Expr(e, semi)) => (e, semi.is_some()),
                SeqItem::Stmt(stmt) => {
                    if contains_return(|f| f.visit_stmt(stmt)) {
                        self.errors.spanned(
                            stmt,
                            "`return` inside a `let` is not supported: write an `if` statement whose \
                             branch returns",
                        );
                    }
                    self.lower_stmt(stmt);
                    continue;
                }
            };
            match strip_parens(expr) {
                Expr::Return(r) => {
                    return match &r.expr {
                        Some(value) => self.lower_expr(value, None),
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
                    let result = self.lower_loop_expr(strip_parens(expr));
                    let Some((flag, value)) = result.returned else {
                        return Self::poisoned();
                    };
                    // A `loop` with no `break` ends only by `return`: what follows it never runs.
                    if let Expr::Loop(l) = strip_parens(expr) {
                        if !loops::exits_of([&l.body], None).breaks {
                            return value;
                        }
                    }
                    let (else_stmts, else_ret, _) = self.branch(|this| this.lower_seq(rest));
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
                    return Operand::Var(out);
                }
                Expr::Block(b)
                    if b.label.is_none() && contains_return(|f| f.visit_expr_block(b)) =>
                {
                    self.scopes.push(Vec::new());
                    let mut inner: Vec<SeqItem> = b.block.stmts.iter().map(SeqItem::Stmt).collect();
                    inner.push(SeqItem::PopScope);
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
                e if is_last && !has_semi => return self.lower_expr(e, None),
                e => {
                    self.lower_expr(e, None);
                }
            }
        }
        Operand::unit()
    }

    /// `if c { ..A.. } else { ..B.. }; rest` in return position: each branch continues with `rest`.
    fn lower_returning_if(&mut self, e: &syn::ExprIf, rest: &[SeqItem]) -> Operand {
        let cond = self.lower_expr(&e.cond, None);
        let then_items: Vec<SeqItem> = e
            .then_branch
            .stmts
            .iter()
            .map(SeqItem::Stmt)
            .chain([SeqItem::PopScope])
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
                    .chain([SeqItem::PopScope])
                    .chain(rest.iter().copied())
                    .collect(),
                other => [SeqItem::Expr(other), SeqItem::PopScope]
                    .into_iter()
                    .chain(rest.iter().copied())
                    .collect(),
            },
            None => [SeqItem::PopScope]
                .into_iter()
                .chain(rest.iter().copied())
                .collect(),
        };
        let (else_stmts, else_ret, _) = self.branch(|this| this.lower_seq(&else_items));
        let out = self.new_var(None, e.span());
        self.stmts.push(Stmt::If {
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
        });
        Operand::Var(out)
    }

    /// `match s { p => ..A.., .. }; rest` in return position.
    fn lower_returning_match(&mut self, m: &syn::ExprMatch, rest: &[SeqItem]) -> Operand {
        let scrutinee = self.lower_expr(&m.expr, None);
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
                .chain([SeqItem::PopScope])
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
        self.stmts.push(Stmt::Match {
            scrutinee,
            span: m.expr.span(),
            arms,
            outs: vec![out],
        });
        Operand::Var(out)
    }

    // ---- statements ----

    fn lower_stmt(&mut self, stmt: &syn::Stmt) {
        match stmt {
            syn::Stmt::Local(local) => {
                let Some(init) = &local.init else {
                    self.bind_uninit(&local.pat);
                    return;
                };
                self.lower_let(&local.pat, &init.expr);
            }
            syn::Stmt::Item(item) => self.items.push(item.clone()),
            syn::Stmt::Expr(e, _) => {
                self.lower_expr(e, None);
            }
            syn::Stmt::Macro(m) => self
                .errors
                .spanned(m, "macros are not supported in a differentiable body"),
        }
    }

    fn bind_uninit(&mut self, pat: &Pat) {
        match pat {
            Pat::Ident(p) => self.bind(&p.ident.to_string(), None),
            Pat::Type(t) => self.bind_uninit(&t.pat),
            other => self
                .errors
                .spanned(other, "a `let` without a value must bind one name"),
        }
    }

    /// `let pat = init;`
    fn lower_let(&mut self, pat: &Pat, init: &Expr) {
        match pat {
            Pat::Ident(p) => {
                let name = p.ident.to_string();
                // `let v = f(..);` then `v[i]`: the call returns an array (but `Vec::new()` is a local).
                let constructor = |c: &syn::ExprCall| matches!(&*c.func, Expr::Path(p) if p.path.segments.iter().any(|s| s.ident == "Vec"));
                if let (true, Expr::Call(c)) = (self.array_uses.contains(&name), strip_parens(init))
                {
                    if constructor(c) {
                        // handled by `lower_expr` below
                    } else if let Some(array) = self.lower_array_call(c, false, &name) {
                        self.bind(&name, Some(array));
                        return;
                    }
                }
                let mut value = self.lower_expr(init, Some(name.clone()));
                if let (Operand::Array(array), Expr::Path(_)) = (&value, strip_parens(init)) {
                    value = self.bind_array_copy(*array, Some(name.clone()));
                }
                self.bind(&name, Some(value));
            }
            Pat::Type(t) => {
                if let (Some((shape, _)), Expr::Call(c), Pat::Ident(p)) = (
                    crate::signature::array_shape(&t.ty, &self.float_params),
                    strip_parens(init),
                    &*t.pat,
                ) {
                    if let Some(array) = self.lower_array_call(c, shape.fixed, &p.ident.to_string())
                    {
                        self.bind(&p.ident.to_string(), Some(array));
                        return;
                    }
                }
                let declared = kind_of_type(&t.ty, &self.float_params);
                self.lower_let(&t.pat, init);
                // A constant takes the declared type: `let a: f32 = 0.0;`.
                if let Pat::Ident(p) = &*t.pat {
                    if let Some(Binding {
                        value: Some(Operand::Const { kind, .. }),
                        ..
                    }) = self.lookup_mut(&p.ident.to_string())
                    {
                        *kind = kind.join(&declared);
                    }
                }
            }
            Pat::Wild(_) => {
                self.lower_expr(init, None);
            }
            Pat::Tuple(tuple) => {
                if let Expr::Tuple(values) = strip_parens(init) {
                    if values.elems.len() == tuple.elems.len() {
                        // `let (a, b) = (e1, e2);`: no tuple is built.
                        let lowered: Vec<(Operand, &Pat)> = values
                            .elems
                            .iter()
                            .zip(&tuple.elems)
                            .map(|(e, p)| (self.lower_expr(e, pat_name(p)), p))
                            .collect();
                        for (operand, p) in lowered {
                            self.bind_pattern(p, operand);
                        }
                        return;
                    }
                }
                let value = self.lower_expr(init, None);
                self.bind_pattern(pat, value);
            }
            other => self.errors.spanned(
                other,
                "this pattern is not supported: bind a name or a tuple of names",
            ),
        }
    }

    /// Binds the names of `pat` to the parts of `value`.
    fn bind_pattern(&mut self, pat: &Pat, value: Operand) {
        match pat {
            Pat::Ident(p) => self.bind(&p.ident.to_string(), Some(value)),
            Pat::Type(t) => self.bind_pattern(&t.pat, value),
            Pat::Wild(_) => {}
            Pat::Tuple(tuple) => {
                if let Operand::Var(v) = &value {
                    self.vars[v.0 as usize].tuple_arity = Some(tuple.elems.len());
                }
                for (i, p) in tuple.elems.iter().enumerate() {
                    let part =
                        self.emit(Value::Field(value.clone(), i as u32), pat_name(p), p.span());
                    self.bind_pattern(p, part);
                }
            }
            other => self.errors.spanned(
                other,
                "this pattern is not supported: bind a name or a tuple of names",
            ),
        }
    }

    /// `name = value` or `name op= value`.
    fn assign(&mut self, target: &Expr, op: Option<BinOp>, rhs: &Expr) -> Operand {
        if let Expr::Index(index) = strip_parens(target) {
            self.store(index, op, rhs);
            return Operand::unit();
        }
        let name = match strip_parens(target) {
            Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(Ident::to_string),
            _ => None,
        };
        let Some(name) = name.filter(|n| self.lookup(n).is_some()) else {
            self.errors.spanned(
                target,
                "only local variables can be assigned in a differentiable body; field, index and \
                 dereference targets are not supported",
            );
            return Operand::unit();
        };
        let value = match op {
            None => self.lower_expr(rhs, Some(name.clone())),
            Some(op) => {
                let current = self
                    .lookup(&name)
                    .and_then(|b| b.value.clone())
                    .unwrap_or_else(Self::poisoned);
                let rhs = self.lower_expr(rhs, None);
                self.emit(
                    Value::Binary(op, current, rhs),
                    Some(name.clone()),
                    target.span(),
                )
            }
        };
        if let Some(binding) = self.lookup_mut(&name) {
            binding.value = Some(value);
        }
        Operand::unit()
    }

    // ---- expressions ----

    fn lower_expr(&mut self, expr: &Expr, hint: Option<String>) -> Operand {
        let span = expr.span();
        match expr {
            Expr::Paren(p) => self.lower_expr(&p.expr, hint),
            Expr::Group(g) => self.lower_expr(&g.expr, hint),
            Expr::Lit(lit) => literal(&lit.lit),
            Expr::Path(p) => self.lower_path(p),
            // `*x` of an element of a slice iteration, or of a `&f64`: the value itself.
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(_),
                expr,
                ..
            }) => self.lower_expr(expr, hint),
            Expr::Unary(u) => {
                let operand = self.lower_expr(&u.expr, None);
                if let (syn::UnOp::Neg(_), Operand::Const { tokens, kind }) = (&u.op, &operand) {
                    return Operand::Const {
                        tokens: quote!(-#tokens),
                        kind: kind.clone(),
                    };
                }
                self.emit(Value::Unary(u.op, operand), hint, span)
            }
            Expr::Index(e) => self.lower_index(e, hint),
            Expr::Array(_) | Expr::Repeat(_) => self.lower_array_literal(expr, hint),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => self.lower_vec_macro(m, hint),
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                if contains_return(|f| f.visit_expr(expr)) {
                    self.errors.spanned(
                        expr,
                        "a loop that can `return` must be a statement of its own",
                    );
                }
                self.lower_loop_expr(expr).value
            }
            Expr::Break(_) | Expr::Continue(_) => {
                self.errors.spanned(
                    expr,
                    "`break` and `continue` are supported as statements of a loop body",
                );
                Self::poisoned()
            }
            Expr::Binary(b) => match b.op {
                BinOp::And(_) | BinOp::Or(_) => self.lower_short_circuit(b, hint),
                BinOp::AddAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Add(Default::default())), &b.right)
                }
                BinOp::SubAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Sub(Default::default())), &b.right)
                }
                BinOp::MulAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Mul(Default::default())), &b.right)
                }
                BinOp::DivAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Div(Default::default())), &b.right)
                }
                BinOp::RemAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Rem(Default::default())), &b.right)
                }
                op => {
                    let left = self.lower_expr(&b.left, None);
                    let right = self.lower_expr(&b.right, None);
                    self.emit(Value::Binary(op, left, right), hint, span)
                }
            },
            Expr::Assign(a) => self.assign(&a.left, None, &a.right),
            Expr::Cast(c) => {
                let operand = self.lower_expr(&c.expr, None);
                self.emit(Value::Cast(operand, (*c.ty).clone()), hint, span)
            }
            Expr::Tuple(t) if t.elems.is_empty() => Operand::unit(),
            Expr::Tuple(t) => {
                let items = t.elems.iter().map(|e| self.lower_expr(e, None)).collect();
                self.emit(Value::Tuple(items), hint, span)
            }
            Expr::Field(f) => match &f.member {
                syn::Member::Unnamed(index) => {
                    let base = self.lower_expr(&f.base, None);
                    self.emit(Value::Field(base, index.index), hint, span)
                }
                syn::Member::Named(_) => {
                    self.errors.spanned(
                        f,
                        "named fields are not supported: pass the field as a parameter",
                    );
                    Self::poisoned()
                }
            },
            // A block runs in place: its `let`s end with it, its assignments to outer variables stay.
            Expr::Block(b) => {
                self.scopes.push(Vec::new());
                let value = self.lower_block_value(&b.block);
                self.scopes.pop();
                value
            }
            Expr::If(e) => self.lower_if(e, hint),
            Expr::Match(m) => self.lower_match(m, hint),
            Expr::MethodCall(m) => self.lower_method_call(m, hint),
            Expr::Call(c) => self.lower_call(c, hint),
            Expr::Return(r) => {
                self.errors
                    .spanned(r, "`return` is only supported as a statement");
                Self::poisoned()
            }
            other => {
                self.errors.spanned(
                    other,
                    "this expression is not supported in a differentiable body",
                );
                Self::poisoned()
            }
        }
    }

    /// The statements of a `{ .. }` block and its value, in the current scope.
    fn lower_block_value(&mut self, block: &syn::Block) -> Operand {
        let mut value = Operand::unit();
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                syn::Stmt::Expr(e, None) if i + 1 == block.stmts.len() => {
                    value = self.lower_expr(e, None)
                }
                _ => self.lower_stmt(stmt),
            }
        }
        value
    }

    fn lower_path(&mut self, p: &syn::ExprPath) -> Operand {
        if p.qself.is_none() {
            if let Some(ident) = p.path.get_ident() {
                if let Some(binding) = self.lookup(&ident.to_string()) {
                    return match &binding.value {
                        Some(value) => value.clone(),
                        None => {
                            self.errors
                                .spanned(ident, format!("`{ident}` is used before it is assigned"));
                            Self::poisoned()
                        }
                    };
                }
            }
        }
        Operand::Const {
            tokens: p.to_token_stream(),
            kind: self.constant_kind(&p.path),
        }
    }

    /// `f64::EPSILON`, `std::f64::consts::PI` and the like are floats of their module's type.
    fn constant_kind(&self, path: &syn::Path) -> Kind {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let float_ty = segments.iter().rev().skip(1).find(|s| {
            matches!(s.as_str(), "f64" | "f32") || self.float_params.iter().any(|p| p == s.as_str())
        });
        match float_ty {
            Some(ty) => Kind::Float(Some(syn::parse_str(ty).expect("a float type name parses"))),
            None => Kind::Unknown,
        }
    }

    /// `a && b` is `if a { b } else { false }`, so `b` is evaluated only when needed.
    fn lower_short_circuit(&mut self, b: &syn::ExprBinary, hint: Option<String>) -> Operand {
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

    fn lower_if(&mut self, e: &syn::ExprIf, hint: Option<String>) -> Operand {
        let cond = self.lower_expr(&e.cond, None);
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
        self.stmts.push(Stmt::If {
            cond,
            then_block,
            else_block,
            outs,
        });
        value
    }

    fn lower_match(&mut self, m: &syn::ExprMatch, hint: Option<String>) -> Operand {
        let scrutinee = self.lower_expr(&m.expr, None);
        let before = self.scopes.clone();
        let branches = m
            .arms
            .iter()
            .map(|arm| self.branch(|this| this.lower_expr(&arm.body, None)))
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
        self.stmts.push(Stmt::Match {
            scrutinee,
            span: m.expr.span(),
            arms,
            outs,
        });
        value
    }

    /// Joins the branches of an `if` or `match`: the statement's value (if it has one) and every variable
    /// that some branch assigned become outs, which each branch yields.
    fn merge(
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

    fn lower_method_call(&mut self, m: &syn::ExprMethodCall, hint: Option<String>) -> Operand {
        if let Some(result) = self.lower_array_method(m, &hint) {
            return result;
        }
        let receiver = self.lower_expr(&m.receiver, None);
        let mut args: Vec<Operand> = m.args.iter().map(|a| self.lower_expr(a, None)).collect();
        let func = FloatFn::from_name(&m.method.to_string(), args.len() + 1)
            .filter(|_| m.turbofish.is_none());
        let value = match func {
            Some(func) => {
                args.insert(0, receiver);
                Value::Float {
                    func,
                    form: CallForm::Method(m.method.clone()),
                    args,
                }
            }
            None => Value::Method {
                receiver,
                method: m.method.clone(),
                turbofish: m.turbofish.as_ref().map(ToTokens::to_token_stream),
                args,
            },
        };
        self.emit(value, hint, m.span())
    }

    fn lower_call(&mut self, c: &syn::ExprCall, hint: Option<String>) -> Operand {
        let Expr::Path(path) = strip_parens(&c.func) else {
            self.errors.spanned(
                &c.func,
                "only calls of a function by its path are supported",
            );
            return Self::poisoned();
        };
        if let Some(array) = self.lower_vec_constructor(c, &hint) {
            return array;
        }
        if path.qself.is_none() && path.path.is_ident(&self.fn_name) {
            self.errors.spanned(
                path,
                "recursion is not supported in a differentiable function: write the recursion as a loop",
            );
        }
        let (mut args, by_ref) = self.lower_call_args(c);
        let callee = path.to_token_stream();
        let last = path
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let value = if is_stop_gradient(path) && args.len() == 1 {
            Value::StopGradient {
                callee,
                arg: args.remove(0),
            }
        } else if let Some(func) =
            FloatFn::from_name(&last, args.len()).filter(|_| self.is_float_path(path))
        {
            Value::Float {
                func,
                form: CallForm::Path(callee),
                args,
            }
        } else {
            Value::Call {
                callee: path.clone(),
                args,
                by_ref,
            }
        };
        self.emit(value, hint, c.span())
    }

    /// The arguments of a call: values, or arrays passed as `a` or `&a`.
    fn lower_call_args(&mut self, c: &syn::ExprCall) -> (Vec<Operand>, Vec<bool>) {
        c.args
            .iter()
            .map(|arg| match self.array_named(arg) {
                Some(array) => (
                    Operand::Array(array),
                    matches!(strip_parens(arg), Expr::Reference(_)),
                ),
                None => (self.lower_expr(arg, None), false),
            })
            .unzip()
    }

    /// `let v: Vec<T> = f(..);` (or `[T; N]`): a call whose result is an array.
    fn lower_array_call(&mut self, c: &syn::ExprCall, fixed: bool, name: &str) -> Option<Operand> {
        let Expr::Path(path) = strip_parens(&c.func) else {
            return None;
        };
        let (args, by_ref) = self.lower_call_args(c);
        let array = self.new_array(name, None, fixed);
        self.stmts.push(Stmt::NewArray {
            array,
            init: crate::ir::ArrayInit::Call {
                callee: path.clone(),
                args,
                by_ref,
            },
        });
        Some(Operand::Array(array))
    }

    /// Is `path` a float function written as a path: `f64::sin`, `Float::sin`, `T::sin`, `<T as Float>::sin`?
    fn is_float_path(&self, path: &syn::ExprPath) -> bool {
        let is_float_type = |name: &str| {
            matches!(name, "f64" | "f32") || self.float_params.iter().any(|p| p == name)
        };
        if let Some(qself) = &path.qself {
            return matches!(&*qself.ty, syn::Type::Path(t) if t.path.get_ident().is_some_and(|i| is_float_type(&i.to_string())));
        }
        let prefix: Vec<String> = path
            .path
            .segments
            .iter()
            .rev()
            .skip(1)
            .map(|s| s.ident.to_string())
            .collect();
        match prefix.as_slice() {
            [one] => is_float_type(one) || one == "Float",
            [float, _crate] => float == "Float" || float == "f64" || float == "f32",
            _ => false,
        }
    }
}

/// `stop_gradient(x)` or `autodiff::stop_gradient(x)`.
fn is_stop_gradient(path: &syn::ExprPath) -> bool {
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    path.qself.is_none()
        && matches!(
            segments
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice(),
            ["stop_gradient"] | ["autodiff", "stop_gradient"]
        )
}

/// The key under which a pure value is remembered, or `None` for values never shared (calls).
fn memo_key(value: &Value) -> Option<String> {
    let operand = |o: &Operand| match o {
        Operand::Var(v) => format!("v{}", v.0),
        Operand::Const { tokens, .. } => tokens.to_string(),
        Operand::Array(a) => format!("a{}", a.0),
    };
    let operands = |os: &[Operand]| os.iter().map(operand).collect::<Vec<_>>().join(",");
    Some(match value {
        Value::Unary(op, o) => format!("unary {} {}", op.to_token_stream(), operand(o)),
        Value::Binary(op, l, r) => format!(
            "binary {} {} {}",
            op.to_token_stream(),
            operand(l),
            operand(r)
        ),
        Value::Cast(o, ty) => format!("cast {} {}", operand(o), ty.to_token_stream()),
        Value::Field(o, i) => format!("field {} {i}", operand(o)),
        Value::Float { func, args, .. } => format!("float {func:?} {}", operands(args)),
        Value::Load { array, index } => format!("load {} {}", array.0, operand(index)),
        Value::Len(array) => format!("len {}", array.0),
        Value::Tuple(_)
        | Value::Method { .. }
        | Value::Call { .. }
        | Value::StopGradient { .. } => return None,
    })
}

/// The name a pattern binds, as a hint for the value it gets.
fn pat_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(p) => Some(p.ident.to_string()),
        Pat::Type(t) => pat_name(&t.pat),
        _ => None,
    }
}

/// A literal as a constant operand: `1.0` is a float, `1` an integer, `2f32` an `f32`.
fn literal(lit: &Lit) -> Operand {
    let kind = match lit {
        Lit::Float(f) => match f.suffix() {
            "" => Kind::Float(None),
            suffix => Kind::Float(syn::parse_str(suffix).ok()),
        },
        Lit::Int(i) => match i.suffix() {
            "f32" | "f64" => Kind::Float(syn::parse_str(i.suffix()).ok()),
            _ => Kind::Int,
        },
        Lit::Bool(_) => Kind::Bool,
        _ => Kind::Unknown,
    };
    Operand::Const {
        tokens: lit.to_token_stream(),
        kind,
    }
}
