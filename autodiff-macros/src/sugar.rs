//! Valid Rust forms rewritten, on the syntax and before the fence, into forms the later passes handle:
//! destructuring assignments, the values of labeled blocks and of labeled `loop`s that a `break 'a v` leaves
//! from a loop nested in them, the value of `let v = loop { .. }` whose body jumps to an outer label, and
//! `match` guards and bindings, and `if let` (as the `match` it means).
//!
//! ```text
//! // Input:                                // Output:
//! (a, b) = (b, a + b);                     let (__part_1, __part_2) = (b, a + b);
//!                                          a = __part_1;
//!                                          b = __part_2;
//!
//! let v = 'done: {                         let v = 'done: loop {
//!     if x > 0.0 { break 'done x * x; }        if x > 0.0 { break 'done x * x; }
//!     x.sin()                                  break 'done x.sin();
//! };                                       };
//!
//! let v = 'found: {                        let mut __block_value_3 = block_value();
//!     for i in 0..n {                      'found: loop {
//!         if c(i) { break 'found f(i); }       for i in 0..n {
//!     }                                            if c(i) { { __block_value_3 = f(i); break 'found; } }
//!     g()                                      }
//! };                                           __block_value_3 = g();
//!                                              break 'found;
//!                                          }
//!                                          let v = __block_value_3;
//!
//! match k + 1 {                            {
//!     0 => a,                                  let __scrutinee_4 = k + 1;
//!     n if n % 2 == 0 => b(n),                 match __scrutinee_4 {
//!     n => c(n),                                   0 => a,
//! }                                                _ => {
//!                                                      let __guard_5 = { let n = __scrutinee_4; n % 2 == 0 };
//!                                                      if __guard_5 { let n = __scrutinee_4; b(n) }
//!                                                      else { { let n = __scrutinee_4; c(n) } }
//!                                                  }
//!                                              }
//!                                          }
//! ```
//!
//! These are the rewritings rustc itself makes: a destructuring assignment evaluates its right side, then
//! assigns the places from left to right; a labeled block is left by its `break`s, which carry its value
//! (the `loop` that replaces it runs once and gives the value; a value that a `break` carries out of a loop
//! nested in it, or past a jump to an outer loop's label, is assigned to a variable, and the loop-label
//! pass turns those jumps into flags, tested after the `loop`, which is hoisted out of a `let` to be a
//! statement; the variable starts as a value no path reads, since Rust's own check of the block saw every
//! path out assign it first: of the shape the values carried tell, `(u, v)`, `[u; 3]`, a comparison's
//! `bool`, and a number's zero where they tell none, `unset`); a guard is tested after its pattern
//! matched, with the pattern's bindings, and on failure the arms after it are tried (a name in a pattern
//! binds if it is lowercase or names a local; else it may be a constant, and a guarded arm's body is reached
//! through its pattern). An unlabeled `break` or `continue` inside a labeled block is an error in
//! Rust (E0695), so the `loop` changes the target of none. A labeled `loop` whose value a `break 'a v` carries
//! out of a loop nested in it is rewritten the same way (`valued_loop`): its value is a variable assigned
//! where each `break` carries one, its own `break v` included. What is not rewritten here (a rest `..` in a
//! destructuring assignment, a `ref` binding) is left to the fence and the lowering, which report it.

use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Pat, Stmt};

/// `block` with its destructuring assignments, labeled blocks and `match` guards and bindings rewritten.
pub(crate) fn desugar(block: &mut syn::Block, sig: &syn::Signature) {
    let mut locals = Locals::default();
    for input in &sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            locals.visit_pat(&t.pat);
        }
    }
    locals.visit_block(block);
    Sugar {
        counter: 0,
        locals,
        statement: false,
    }
    .visit_block_mut(block);
}

/// The names the parameters and the `let`s, loops and closures of the body bind (`names`), and the
/// `const` items of the body (`constants`). A name of a local is never a constant in a pattern (`let N =
/// 5;` would not compile beside a constant `N`), so a pattern `N` naming one binds, whatever its case; a
/// pattern naming a constant of the body is that constant, whatever its case (`const limit: usize = 3;`).
#[derive(Default)]
pub(crate) struct Locals {
    names: Vec<String>,
    constants: Vec<String>,
}

impl<'ast> Visit<'ast> for Locals {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.names.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        if let Stmt::Item(syn::Item::Const(c)) = stmt {
            self.constants.push(c.ident.to_string());
        }
        syn::visit::visit_stmt(self, stmt);
    }
    // A `match` arm's pattern (and an `if let`'s) is what is being decided.
    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        self.visit_expr(&e.expr);
    }
    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        if let Some((_, guard)) = &arm.guard {
            self.visit_expr(guard);
        }
        self.visit_expr(&arm.body);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

struct Sugar {
    counter: usize,
    /// The names of locals, parameters and constants (`Locals`).
    locals: Locals,
    /// Set for the next expression visited when it is a statement of its block (not its tail), so a
    /// labeled block there gives no value (`labeled_block`); the visit takes it.
    statement: bool,
}

impl Sugar {
    fn fresh(&mut self, what: &str) -> syn::Ident {
        self.counter += 1;
        format_ident!("__{}_{}", what, self.counter, span = Span::mixed_site())
    }

    /// The pattern of `let` that binds what `left` (the left side of a destructuring assignment) takes
    /// apart, with the assignments of its places pushed to `assigns`; `None` for what is not rewritten.
    fn parts(&mut self, left: &Expr, assigns: &mut Vec<Stmt>) -> Option<proc_macro2::TokenStream> {
        match left {
            Expr::Paren(p) => self.parts(&p.expr, assigns),
            Expr::Tuple(t) => {
                let parts = t
                    .elems
                    .iter()
                    .map(|e| self.parts(e, assigns))
                    .collect::<Option<Vec<_>>>()?;
                Some(match parts.as_slice() {
                    [one] => quote!((#one,)),
                    _ => quote!((#(#parts),*)),
                })
            }
            Expr::Array(a) => {
                let parts = a
                    .elems
                    .iter()
                    .map(|e| self.parts(e, assigns))
                    .collect::<Option<Vec<_>>>()?;
                Some(quote!([#(#parts),*]))
            }
            Expr::Infer(_) => Some(quote!(_)),
            // `(a, ..) = ..`, `S { a, b } = ..`, `Some(a) = ..`: left to the lowering's error.
            Expr::Range(_) | Expr::Struct(_) | Expr::Call(_) => None,
            place => {
                let part = self.fresh("part");
                assigns.push(syn::parse_quote!(#place = #part;));
                Some(quote!(#part))
            }
        }
    }

    /// The statements of a destructuring assignment `left = right`, or `None` if it is none (or not one
    /// rewritten here).
    fn destructure(&mut self, assign: &syn::ExprAssign) -> Option<Vec<Stmt>> {
        if !matches!(strip_parens(&assign.left), Expr::Tuple(_) | Expr::Array(_)) {
            return None;
        }
        let mut assigns = Vec::new();
        let mut stmts = Vec::new();
        self.split(&assign.left, &assign.right, &mut stmts, &mut assigns)?;
        stmts.extend(assigns);
        Some(stmts)
    }

    /// The `let`s that take `right` apart for `left`: part by part where `right` is written as a tuple or
    /// an array of `left`'s arity (`((a, b), [c, d]) = ((c, d), [a * b, b])`: one `let` a part, in the
    /// order Rust evaluates them, so that no nested pattern is needed), else one `let` of a pattern.
    fn split(
        &mut self,
        left: &Expr,
        right: &Expr,
        lets: &mut Vec<Stmt>,
        assigns: &mut Vec<Stmt>,
    ) -> Option<()> {
        let elems = |e: &Expr| -> Option<(bool, Vec<Expr>)> {
            match strip_parens(e) {
                Expr::Tuple(t) => Some((true, t.elems.iter().cloned().collect())),
                Expr::Array(a) => Some((false, a.elems.iter().cloned().collect())),
                _ => None,
            }
        };
        match (elems(left), elems(right)) {
            (Some((tuple, lefts)), Some((right_tuple, rights)))
                if tuple == right_tuple && lefts.len() == rights.len() =>
            {
                for (l, r) in lefts.iter().zip(&rights) {
                    self.split(l, r, lets, assigns)?;
                }
            }
            _ => {
                let pattern = self.parts(left, assigns)?;
                lets.push(syn::parse_quote!(let #pattern = #right;));
            }
        }
        Some(())
    }

    /// `'label: { .. }` as a `loop` that runs once (see the module's documentation).
    /// `statement`: the block is a statement of its enclosing block, whose value (`()`) nothing reads.
    fn labeled_block(&mut self, b: &syn::ExprBlock, statement: bool) -> Expr {
        let label = b.label.as_ref().expect("a labeled block").name.clone();
        let mut block = b.block.clone();
        // Its value is what a `break 'label v` carries, or else its tail (`let t = 'b: { a * 2.0 };`)
        // where something reads it and the tail is no statement-like form of type `()`.
        let valued = breaks_with_value(&block, &label)
            || (!statement
                && matches!(block.stmts.last(), Some(Stmt::Expr(tail, None)) if !unit_like(tail)));
        // Without a `break` out of a loop nested in the block, the `loop` gives the value itself; not if
        // the block jumps to an outer loop's label, which the loop-label pass makes a plain `break;` out
        // of this `loop` (which would then need a value).
        if valued && !breaks_from_nested_loop(&block, &label) && !jumps_elsewhere(&block, &label) {
            let mut stmts = block.stmts;
            match stmts.pop() {
                Some(Stmt::Expr(tail, None)) => stmts.push(syn::parse_quote!(break #label #tail;)),
                Some(other) => stmts.push(other),
                None => {}
            }
            let attrs = &b.attrs;
            return syn::parse_quote!(#(#attrs)* #label: loop { #(#stmts)* });
        }
        let value = valued.then(|| self.fresh("block_value"));
        // The value's start, of the shape its `break`s or its tail carry (see `unset`).
        let unset = unset(&carried_values(&block, &label));
        if let Some(value) = &value {
            ToAssignment {
                label: &label,
                value,
            }
            .visit_block_mut(&mut block);
        }
        // The tail: assigned to the value, or a statement; then the `break` that leaves the loop.
        let tail = match block.stmts.last() {
            Some(Stmt::Expr(_, None)) => match block.stmts.pop() {
                Some(Stmt::Expr(tail, None)) => Some(tail),
                _ => None,
            },
            _ => None,
        };
        match (&value, tail) {
            (Some(value), Some(tail)) => block.stmts.push(syn::parse_quote!(#value = #tail;)),
            (None, Some(tail)) => block.stmts.push(syn::parse_quote!(#tail;)),
            (_, None) => {}
        }
        block.stmts.push(syn::parse_quote!(break #label;));
        let stmts = &block.stmts;
        let attrs = &b.attrs;
        match value {
            Some(value) => syn::parse_quote!(#(#attrs)* {
                let mut #value = #unset;
                #label: loop { #(#stmts)* }
                #value
            }),
            None => syn::parse_quote!(#(#attrs)* #label: loop { #(#stmts)* }),
        }
    }

    // Input:  let r = 'outer: loop { for i in .. { if c { break 'outer v; } } if d { break w; } };
    // Output: let mut __block_value_1 = block_value();
    //         'outer: loop {
    //             for i in .. { if c { { __block_value_1 = v; break 'outer; } } }
    //             if d { { __block_value_1 = w; break; } }
    //         }
    //         let r = __block_value_1;
    /// A labeled `loop` whose value a `break 'label v` carries out of a loop nested in it: the value is
    /// assigned to a variable, as a labeled block's is, and the loop-label pass turns the `break 'label`
    /// into flags. `None` for any other loop, which the later passes take as it is.
    fn valued_loop(&mut self, l: &syn::ExprLoop) -> Option<Expr> {
        let label = l.label.as_ref()?.name.clone();
        if !breaks_with_value(&l.body, &label) || !breaks_from_nested_loop(&l.body, &label) {
            return None;
        }
        let mut own = OwnBreaks(Vec::new(), 0);
        own.visit_block(&l.body);
        let mut carried = carried_values(&l.body, &label);
        // A loop body's tail is no value of the loop.
        if matches!(l.body.stmts.last(), Some(Stmt::Expr(_, None))) {
            carried.pop();
        }
        carried.extend(own.0);
        let unset = unset(&carried);
        let value = self.fresh("block_value");
        let mut body = l.body.clone();
        ToAssignment {
            label: &label,
            value: &value,
        }
        .visit_block_mut(&mut body);
        OwnToAssignment(&value, 0).visit_block_mut(&mut body);
        let (attrs, loop_label) = (&l.attrs, &l.label);
        Some(syn::parse_quote!({
            let mut #value = #unset;
            #(#attrs)* #loop_label loop #body
            #value
        }))
    }

    // Input:  'rows: for i in .. { let t = loop { if c { continue 'rows; } if d { break w; } }; .. }
    // Output: 'rows: for i in .. {
    //             let mut __block_value_1 = block_value();
    //             loop { if c { continue 'rows; } if d { { __block_value_1 = w; break; } } }
    //             let t = __block_value_1;
    //             ..
    //         }
    /// `let v = loop { .. }` whose body jumps to a label outside it (`continue 'rows`, `break 'found`)
    /// and leaves by its own `break value`s: the loop-label pass leaves the loop by a plain `break;`,
    /// which must not need the loop's value, and tests its flags after the loop, which must be a
    /// statement. So the value is a variable, assigned where each `break` carries one, and the loop is
    /// hoisted out of the `let` (`hoist_block_value`). Before, it was the error "a loop inside an
    /// expression cannot jump to `'rows`" (`autodiff-fuzz --sugar --seed 25008`, program p7, a labeled
    /// block's `'b`; `--seed 24025`, program p12, an outer `for`'s `'rows`).
    fn let_loop_jumping_out(&mut self, stmt: &mut Stmt) {
        let Stmt::Local(syn::Local {
            init: Some(init), ..
        }) = stmt
        else {
            return;
        };
        let Expr::Loop(l) = &*init.expr else {
            return;
        };
        if init.diverge.is_some() || !jumps_out(&l.body, l.label.as_ref().map(|l| &l.name)) {
            return;
        }
        let mut own = OwnBreaks(Vec::new(), 0);
        own.visit_block(&l.body);
        if let Some(label) = &l.label {
            let mut carried = carried_values(&l.body, &label.name);
            // A loop body's tail is no value of the loop.
            if matches!(l.body.stmts.last(), Some(Stmt::Expr(_, None))) {
                carried.pop();
            }
            own.0.extend(carried);
        }
        if own.0.is_empty() {
            return;
        }
        let unset = unset(&own.0);
        let value = self.fresh("block_value");
        let mut body = l.body.clone();
        OwnToAssignment(&value, 0).visit_block_mut(&mut body);
        if let Some(label) = &l.label {
            // A `break 'own v` too (from the loop's own body; out of a nested loop, `valued_loop` took it).
            ToAssignment {
                label: &label.name,
                value: &value,
            }
            .visit_block_mut(&mut body);
        }
        let (attrs, loop_label) = (&l.attrs, &l.label);
        *init.expr = syn::parse_quote!({
            let mut #value = #unset;
            #(#attrs)* #loop_label loop #body
            #value
        });
    }

    /// A `match` with guards or bindings as one without (see the module's documentation); `None` if it
    /// has neither, or a binding this pass leaves to the fence (`ref n`).
    fn guarded_match(&mut self, m: &syn::ExprMatch) -> Option<Expr> {
        let rewritten = m
            .arms
            .iter()
            .any(|arm| arm.guard.is_some() || binds(&arm.pat, &self.locals));
        if !rewritten || m.arms.iter().any(|arm| has_ref_binding(&arm.pat)) {
            return None;
        }
        let attrs = &m.attrs;
        // A local is matched again as it is (a `let` would move a value that is not `Copy`, which the
        // patterns without bindings do not); any other scrutinee is evaluated once, into a temporary.
        if let Expr::Path(p) = strip_parens(&m.expr) {
            if let (None, Some(name)) = (&p.qself, p.path.get_ident()) {
                let arms = self.arms(name, &m.arms, &[]);
                return Some(syn::parse_quote!(#(#attrs)* #arms));
            }
        }
        let scrutinee = self.fresh("scrutinee");
        let expr = &m.expr;
        let arms = self.arms(&scrutinee, &m.arms, &[]);
        Some(syn::parse_quote!(#(#attrs)* {
            let #scrutinee = #expr;
            #arms
        }))
    }

    /// `match scrutinee { arms }` without guards or bindings. `passed` are the arms before these that
    /// did not match, which make a `match` of the arms after a guard exhaustive where they alone are not.
    fn arms(&mut self, scrutinee: &syn::Ident, arms: &[syn::Arm], passed: &[syn::Arm]) -> Expr {
        let first_guard = arms.iter().position(|arm| arm.guard.is_some());
        let before = &arms[..first_guard.unwrap_or(arms.len())];
        let plain: Vec<proc_macro2::TokenStream> = before
            .iter()
            .map(|arm| {
                let (pat, lets) = unbind(&arm.pat, scrutinee, &self.locals);
                let body = &arm.body;
                quote!(#pat => { #(#lets)* #body })
            })
            .collect();
        let Some(k) = first_guard else {
            // One arm left that matches every value: its body, without a `match` (so that a float
            // scrutinee matched only by guards and names, `v if v > 1.0 => .., v => ..`, is all `if`s).
            if let [arm] = arms {
                let (pat, lets) = unbind(&arm.pat, scrutinee, &self.locals);
                if irrefutable(&pat) {
                    let body = &arm.body;
                    return syn::parse_quote!({ #(#lets)* #body });
                }
            }
            return syn::parse_quote!(match #scrutinee { #(#plain)* });
        };
        let arm = &arms[k];
        let (pat, lets) = unbind(&arm.pat, scrutinee, &self.locals);
        let guard = &arm.guard.as_ref().expect("a guard").1;
        let body = &arm.body;
        let hit = self.fresh("guard");
        let test = if irrefutable(&pat) {
            quote!({ #(#lets)* #guard })
        } else {
            quote!(match #scrutinee { #pat => { #(#lets)* #guard } _ => false })
        };
        // The arms after the guard, after those that did not match if the last of them is not a
        // catch-all (the `match` of the arms left must be exhaustive, as the whole one was).
        let rest_arms = &arms[k + 1..];
        let catch_all = rest_arms.last().is_some_and(|a| {
            a.guard.is_none() && irrefutable(&unbind(&a.pat, scrutinee, &self.locals).0)
        });
        let mut all_passed: Vec<syn::Arm> = passed.to_vec();
        all_passed.extend(before.iter().cloned());
        let rest = if catch_all {
            self.arms(scrutinee, rest_arms, &all_passed)
        } else {
            let with_passed: Vec<syn::Arm> = all_passed.iter().chain(rest_arms).cloned().collect();
            self.arms(scrutinee, &with_passed, &[])
        };
        // A name the pattern keeps (`N`, taken for a constant by its case) may be a binding after all (a
        // local `N` does not make it a constant): the body is then reached through the pattern, which binds
        // it if it is one (the `_` arm, the arms after the guard, is never taken, the guard having matched).
        let hit_body = if keeps_names(&pat) {
            quote!({ match #scrutinee { #pat => { #(#lets)* #body } _ => { #rest } } })
        } else {
            quote!({ #(#lets)* #body })
        };
        let chosen = quote!({
            let #hit = #test;
            if #hit #hit_body else { #rest }
        });
        if k == 0 {
            syn::parse_quote!(#chosen)
        } else {
            syn::parse_quote!(match #scrutinee { #(#plain)* _ => #chosen })
        }
    }
}

impl VisitMut for Sugar {
    // A destructuring assignment that is a statement becomes statements of its block; one that is an
    // expression (a `match` arm's, `|..| (a, b) = ..`) becomes a block (`visit_expr_mut`).
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let block_len = block.stmts.len();
        let mut stmts = Vec::with_capacity(block_len);
        for mut stmt in std::mem::take(&mut block.stmts) {
            let rewritten = match &stmt {
                Stmt::Expr(Expr::Assign(assign), _) => self.destructure(assign),
                _ => None,
            };
            match rewritten {
                Some(rewritten) => {
                    for mut stmt in rewritten {
                        self.visit_stmt_mut(&mut stmt);
                        stmts.push(stmt);
                    }
                }
                None => {
                    self.statement = matches!(&stmt, Stmt::Expr(_, Some(_)))
                        || (matches!(&stmt, Stmt::Expr(..)) && stmts.len() + 1 < block_len);
                    self.visit_stmt_mut(&mut stmt);
                    self.statement = false;
                    self.let_loop_jumping_out(&mut stmt);
                    stmts.extend(hoist_block_value(stmt));
                }
            }
        }
        block.stmts = stmts;
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let statement = std::mem::take(&mut self.statement);
        // `vec![match k { n if n > 1 => a, _ => b }; 3]`: the macro's arguments are expressions too, which
        // `syn`'s visitors leave as tokens. (Before, a guard there was never rewritten, and the lowering,
        // which takes guards and bindings rewritten, took the first arm whose pattern matched: `_grad`'s
        // value was another arm's; `autodiff-fuzz --sugar --seed 24024`, program p41.)
        if let Expr::Macro(m) = expr {
            if m.mac.path.is_ident("vec") {
                crate::chains::rewrite_vec_args(&mut m.mac, |arg| self.visit_expr_mut(arg));
                return;
            }
        }
        // Input:  if let Some(k) = via { a } else { b }
        // Output: match via { Some(k) => { a } _ => { b } }
        // (`_ => {}` without an `else`): the `match` rustc itself reads an `if let` as, which the binding
        // and guard rewriting below then takes apart like any other. A `let` chain (`if let P = e && c`) is
        // left to the fence.
        if let Expr::If(i) = expr {
            if let Expr::Let(l) = &*i.cond {
                let (attrs, pat, scrutinee, then) = (&i.attrs, &l.pat, &l.expr, &i.then_branch);
                let otherwise = match &i.else_branch {
                    Some((_, e)) => quote!(#e),
                    None => quote!({}),
                };
                *expr = syn::parse_quote!(#(#attrs)* match #scrutinee { #pat => #then _ => #otherwise });
            }
        }
        // Inner forms first: a labeled block inside another, a guard inside an arm.
        visit_mut::visit_expr_mut(self, expr);
        let rewritten = match &*expr {
            Expr::Block(b) if b.label.is_some() => Some(self.labeled_block(b, statement)),
            Expr::Match(m) => {
                let Sugar {
                    counter, locals, ..
                } = self;
                let mut fresh = |what: &str| {
                    *counter += 1;
                    format_ident!("__{}_{}", what, *counter, span = Span::mixed_site())
                };
                crate::std_forms::tuple_match(m, locals, &mut fresh)
                    .or_else(|| self.guarded_match(m))
            }
            Expr::Loop(l) => self.valued_loop(l),
            Expr::Assign(assign) => self
                .destructure(assign)
                .map(|stmts| syn::parse_quote!({ #(#stmts)* })),
            _ => None,
        };
        if let Some(rewritten) = rewritten {
            *expr = rewritten;
            if !self.locals.constants.is_empty() {
                ConstantPatterns(&self.locals).visit_expr_mut(expr);
            }
        }
    }

    // Input:  const limit: usize = 3; match n { limit => a, _ => b }
    // Output: the same, the arm's `limit` a path pattern, which the later passes take as a constant
    /// A pattern naming a `const` of the body is that constant whatever its case: a path, as `Kind::A` is.
    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        constants_as_paths(&mut arm.pat, &self.locals);
        visit_mut::visit_arm_mut(self, arm);
    }

    // A nested `fn` item is expanded on its own.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip_parens(&p.expr),
        other => other,
    }
}

/// Is `tail`, the last expression of a labeled block, a form whose type is `()` (an assignment, a loop,
/// an `if` without `else`, `()`) rather than a value?
fn unit_like(tail: &Expr) -> bool {
    match tail {
        Expr::Assign(_) | Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => true,
        Expr::Binary(b) => crate::lower::loops::is_compound_assign(&b.op),
        Expr::If(i) => i.else_branch.is_none(),
        Expr::Tuple(t) => t.elems.is_empty(),
        Expr::Paren(p) => unit_like(&p.expr),
        _ => false,
    }
}

/// Does any `break` of `block` to `label` carry a value?
fn breaks_with_value(block: &syn::Block, label: &syn::Lifetime) -> bool {
    struct Finder<'l>(&'l syn::Lifetime, bool);
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
            self.1 |= b.expr.is_some() && b.label.as_ref().is_some_and(|l| l.ident == self.0.ident);
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(label, false);
    finder.visit_block(block);
    finder.1
}

/// Does a `break` to `label` leave a loop nested in `block`?
fn breaks_from_nested_loop(block: &syn::Block, label: &syn::Lifetime) -> bool {
    struct Finder<'l>(&'l syn::Lifetime, usize, bool);
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            let nested = matches!(e, Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_));
            self.1 += usize::from(nested);
            syn::visit::visit_expr(self, e);
            self.1 -= usize::from(nested);
        }
        fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
            self.2 |= self.1 > 0 && b.label.as_ref().is_some_and(|l| l.ident == self.0.ident);
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(label, 0, false);
    finder.visit_block(block);
    finder.2
}

/// `let v = { let mut __block_value_1 = ..; 'a: loop { .. } __block_value_1 };` (a labeled block's value
/// carried out of a nested loop) as the statements of the enclosing block, `let v = __block_value_1;` last:
/// the loop-label pass tests its flags after the `loop`, where a jump to an outer loop (`continue 'outer`)
/// must be a statement of a loop body, not inside the value of a `let`.
fn hoist_block_value(stmt: Stmt) -> Vec<Stmt> {
    let Stmt::Local(mut local) = stmt else {
        return vec![stmt];
    };
    let hoisted = match local
        .init
        .as_mut()
        .map(|init| (&mut *init.expr, init.diverge.is_some()))
    {
        Some((Expr::Block(b), false)) if b.label.is_none() && b.attrs.is_empty() => {
            match b.block.stmts.as_slice() {
                [Stmt::Local(value), Stmt::Expr(Expr::Loop(_), _), Stmt::Expr(Expr::Path(tail), None)]
                    if matches!(&value.pat, Pat::Ident(p) if tail.path.is_ident(&p.ident)
                        && p.ident.to_string().starts_with("__block_value_")) =>
                {
                    let mut parts = std::mem::take(&mut b.block.stmts);
                    let tail = parts.pop();
                    if let (Some(Stmt::Expr(tail, None)), Some(init)) = (tail, local.init.as_mut())
                    {
                        *init.expr = tail;
                    }
                    Some(parts)
                }
                _ => None,
            }
        }
        _ => None,
    };
    let mut stmts = hoisted.unwrap_or_default();
    stmts.push(Stmt::Local(local));
    stmts
}

/// Does `block` jump to a label other than `label` (`continue 'outer`, `break 'outer`)?
fn jumps_elsewhere(block: &syn::Block, label: &syn::Lifetime) -> bool {
    struct Finder<'l>(&'l syn::Lifetime, bool);
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
            self.1 |= b.label.as_ref().is_some_and(|l| l.ident != self.0.ident);
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
            self.1 |= c.label.as_ref().is_some_and(|l| l.ident != self.0.ident);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(label, false);
    finder.visit_block(block);
    finder.1
}

/// Does `block` (a loop's body, `own` its label) `break` or `continue` to a label defined outside it?
fn jumps_out(block: &syn::Block, own: Option<&syn::Lifetime>) -> bool {
    struct Finder {
        inside: Vec<String>,
        jumps: Vec<String>,
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_label(&mut self, l: &'ast syn::Label) {
            self.inside.push(l.name.ident.to_string());
        }
        fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
            self.jumps
                .extend(b.label.as_ref().map(|l| l.ident.to_string()));
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
            self.jumps
                .extend(c.label.as_ref().map(|l| l.ident.to_string()));
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder {
        inside: own.map(|l| l.ident.to_string()).into_iter().collect(),
        jumps: Vec::new(),
    };
    finder.visit_block(block);
    finder.jumps.iter().any(|j| !finder.inside.contains(j))
}

/// The values that the `break`s of `block` to `label` carry, then its tail.
fn carried_values(block: &syn::Block, label: &syn::Lifetime) -> Vec<Expr> {
    struct Finder<'l>(&'l syn::Lifetime, Vec<Expr>);
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
            if let (Some(value), true) = (
                &b.expr,
                b.label.as_ref().is_some_and(|l| l.ident == self.0.ident),
            ) {
                self.1.push((**value).clone());
            }
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(label, Vec::new());
    finder.visit_block(block);
    if let Some(Stmt::Expr(tail, None)) = block.stmts.last() {
        finder.1.push(tail.clone());
    }
    finder.1
}

/// The start of the variable that carries a labeled block's value out of a nested loop: no path reads it
/// (rustc's own check of the block saw every path out assign it first), but it needs a value of the
/// block's type. That type is the shape of the first carried value whose syntax tells it (a tuple `(u,
/// v)`, an array `[u, v]` or `[u; 3]`, a comparison or `true`: a `bool`), its parts the same way, and
/// what the syntax does not tell a number (`Zero`); a value of another type (a tuple held in a local,
/// `break 'a t`) is an error spanned at it (`__private::block_value`).
fn unset(values: &[Expr]) -> proc_macro2::TokenStream {
    fn shape(value: &Expr) -> Option<proc_macro2::TokenStream> {
        match value {
            Expr::Paren(p) => shape(&p.expr),
            Expr::Group(g) => shape(&g.expr),
            Expr::Tuple(t) => {
                let parts: Vec<_> = t
                    .elems
                    .iter()
                    .map(|e| unset(std::slice::from_ref(e)))
                    .collect();
                Some(match parts.as_slice() {
                    [one] => quote!((#one,)),
                    _ => quote!((#(#parts),*)),
                })
            }
            Expr::Array(a) => {
                let parts: Vec<_> = a
                    .elems
                    .iter()
                    .map(|e| unset(std::slice::from_ref(e)))
                    .collect();
                Some(quote!([#(#parts),*]))
            }
            Expr::Repeat(r) => {
                let (part, len) = (unset(std::slice::from_ref(&*r.expr)), &r.len);
                Some(quote!([#part; #len]))
            }
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(_),
                ..
            }) => Some(quote!(false)),
            Expr::Binary(b)
                if crate::ir::is_comparison(&b.op)
                    || matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) =>
            {
                Some(quote!(false))
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => shape(&u.expr),
            _ => None,
        }
    }
    if let Some(known) = values.iter().find_map(shape) {
        return known;
    }
    let span = values
        .first()
        .map_or_else(Span::call_site, syn::spanned::Spanned::span);
    // The turbofish makes rustc report an unmet `BlockValue` bound at `span` (a carried value) rather
    // than at the attribute, as it does for the bare call.
    quote::quote_spanned!(span=> ::autodiff::__private::block_value::<_>())
}

/// `break 'label value` → `{ value_var = value; break 'label; }`.
struct ToAssignment<'a> {
    label: &'a syn::Lifetime,
    value: &'a syn::Ident,
}

impl VisitMut for ToAssignment<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        visit_mut::visit_expr_mut(self, expr);
        if let Expr::Break(b) = expr {
            if b.label
                .as_ref()
                .is_some_and(|l| l.ident == self.label.ident)
            {
                if let Some(carried) = &b.expr {
                    let (value, label) = (self.value, self.label);
                    *expr = syn::parse_quote!({ #value = #carried; break #label; });
                }
            }
        }
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The values that the unlabeled `break`s of a loop's own body carry (not those of loops nested in it).
struct OwnBreaks(Vec<Expr>, usize);

impl<'ast> Visit<'ast> for OwnBreaks {
    fn visit_expr(&mut self, e: &'ast Expr) {
        let nested = matches!(e, Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_));
        self.1 += usize::from(nested);
        syn::visit::visit_expr(self, e);
        self.1 -= usize::from(nested);
    }
    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        if let (Some(value), None, 0) = (&b.expr, &b.label, self.1) {
            self.0.push((**value).clone());
        }
        syn::visit::visit_expr_break(self, b);
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// An unlabeled `break value` of a loop's own body (not of a loop nested in it) → `{ value_var = value;
/// break; }`.
struct OwnToAssignment<'a>(&'a syn::Ident, usize);

impl VisitMut for OwnToAssignment<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        let nested = matches!(expr, Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_));
        self.1 += usize::from(nested);
        visit_mut::visit_expr_mut(self, expr);
        self.1 -= usize::from(nested);
        if let (Expr::Break(b), 0) = (&*expr, self.1) {
            if let (Some(carried), None) = (&b.expr, &b.label) {
                let value = self.0;
                *expr = syn::parse_quote!({ #value = #carried; break; });
            }
        }
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `pat` with its names of lowercase `const`s of the body made path patterns (`Sugar::visit_arm_mut`).
fn constants_as_paths(pat: &mut Pat, locals: &Locals) {
    match pat {
        // An uppercase name is a constant to every pass already.
        Pat::Ident(p)
            if p.subpat.is_none()
                && p.by_ref.is_none()
                && p.mutability.is_none()
                && !p.ident.to_string().starts_with(char::is_uppercase)
                && !is_binding(p, locals) =>
        {
            *pat = Pat::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: syn::Path::from(p.ident.clone()),
            });
        }
        Pat::Or(or) => or
            .cases
            .iter_mut()
            .for_each(|case| constants_as_paths(case, locals)),
        Pat::Paren(p) => constants_as_paths(&mut p.pat, locals),
        _ => {}
    }
}

/// Every `match` arm's pattern of an expression as `constants_as_paths` makes it: a rewritten `match`
/// (`guarded_match`) is parsed again from its tokens, where a constant's name is a `Pat::Ident` again.
struct ConstantPatterns<'a>(&'a Locals);

impl VisitMut for ConstantPatterns<'_> {
    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        constants_as_paths(&mut arm.pat, self.0);
        visit_mut::visit_arm_mut(self, arm);
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Is `ident` (a pattern's name) a binding, not a constant or a unit variant (`K`, `None`)?
fn is_binding(p: &syn::PatIdent, locals: &Locals) -> bool {
    let name = p.ident.to_string();
    p.subpat.is_some()
        || locals.names.contains(&name)
        || !(name.starts_with(char::is_uppercase) || locals.constants.contains(&name))
}

/// Does a `match` arm's pattern bind a name?
fn binds(pat: &Pat, locals: &Locals) -> bool {
    match pat {
        Pat::Ident(p) => is_binding(p, locals),
        Pat::Or(or) => or.cases.iter().any(|case| binds(case, locals)),
        Pat::Paren(p) => binds(&p.pat, locals),
        _ => false,
    }
}

/// Does a pattern bind by reference (`ref n`), which the fence reports?
pub(crate) fn has_ref_binding(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(p) => {
            p.by_ref.is_some()
                || p.subpat
                    .as_ref()
                    .is_some_and(|(_, sub)| has_ref_binding(sub))
        }
        Pat::Or(or) => or.cases.iter().any(has_ref_binding),
        Pat::Paren(p) => has_ref_binding(&p.pat),
        _ => false,
    }
}

/// The pattern without its bindings (`n` → `_`, `n @ 1..=3` → `1..=3`), and the `let`s that bind them to
/// the scrutinee. The cases of an or-pattern bind the same names; the first case's are taken.
pub(crate) fn unbind(pat: &Pat, scrutinee: &syn::Ident, locals: &Locals) -> (Pat, Vec<Stmt>) {
    match pat {
        Pat::Ident(p) if is_binding(p, locals) => {
            let name = &p.ident;
            let mutability = &p.mutability;
            let binding: Stmt = syn::parse_quote!(let #mutability #name = #scrutinee;);
            match &p.subpat {
                Some((_, sub)) => {
                    let (sub, mut lets) = unbind(sub, scrutinee, locals);
                    lets.insert(0, binding);
                    (sub, lets)
                }
                None => (syn::parse_quote!(_), vec![binding]),
            }
        }
        Pat::Paren(p) => unbind(&p.pat, scrutinee, locals),
        Pat::Or(or) => {
            let mut cases = or.clone();
            let mut lets = None;
            for case in cases.cases.iter_mut() {
                let (unbound, case_lets) = unbind(case, scrutinee, locals);
                *case = unbound;
                lets.get_or_insert(case_lets);
            }
            (Pat::Or(cases), lets.unwrap_or_default())
        }
        other => (other.clone(), Vec::new()),
    }
}

/// Does the pattern (without its bindings) still name something, which may be a constant or a binding?
fn keeps_names(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(_) => true,
        Pat::Paren(p) => keeps_names(&p.pat),
        Pat::Or(or) => or.cases.iter().any(keeps_names),
        _ => false,
    }
}

/// Does the pattern match every value (`_`, or an or-pattern with a `_` case)?
pub(crate) fn irrefutable(pat: &Pat) -> bool {
    match pat {
        Pat::Wild(_) => true,
        Pat::Paren(p) => irrefutable(&p.pat),
        Pat::Or(or) => or.cases.iter().any(irrefutable),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn rewrite(src: &str) -> String {
        let mut block: syn::Block = syn::parse_str(src).unwrap();
        desugar(&mut block, &syn::parse_quote!(fn f()));
        block.into_token_stream().to_string()
    }

    /// A string of the patterns of the `match` arms of `src` after the rewriting, `Path` or `Ident` each.
    fn arm_patterns(src: &str) -> Vec<String> {
        struct Arms(Vec<String>);
        impl<'ast> Visit<'ast> for Arms {
            fn visit_arm(&mut self, arm: &'ast syn::Arm) {
                let mut cases = vec![&arm.pat];
                if let Pat::Or(or) = &arm.pat {
                    cases = or.cases.iter().collect();
                }
                for case in cases {
                    let kind = match case {
                        Pat::Path(_) => "path",
                        Pat::Ident(_) => "ident",
                        _ => "other",
                    };
                    self.0.push(format!("{kind} {}", case.to_token_stream()));
                }
                syn::visit::visit_arm(self, arm);
            }
        }
        let mut block: syn::Block = syn::parse_str(src).unwrap();
        desugar(&mut block, &syn::parse_quote!(fn f()));
        let mut arms = Arms(Vec::new());
        arms.visit_block(&block);
        arms.0
    }

    #[test]
    fn a_lowercase_constant_of_the_body_is_a_path_pattern_also_after_a_guard() {
        assert_eq!(
            arm_patterns("{ const low: usize = 1; match n { low | 5 => 2.0, _ => 4.0 } }"),
            ["path low", "other 5", "other _"]
        );
        // The arms after a guard are a `match` parsed again (the guarded catch-all an `if`).
        assert_eq!(
            arm_patterns(
                "{ const low: usize = 1; match n { m if m > 9 => 1.0, low => 2.0, _ => 4.0 } }"
            ),
            ["path low", "other _"]
        );
        // A lowercase name that is no constant of the body binds (and is rewritten as a `let`).
        assert_eq!(
            arm_patterns("{ match n { 0 => 2.0, low => 4.0 } }"),
            ["other 0", "other _"]
        );
    }

    #[test]
    fn a_destructuring_assignment_binds_then_assigns() {
        assert_eq!(
            rewrite("{ (a, [b, _], x[i]) = f(y); }"),
            "{ let (__part_1 , [__part_2 , _] , __part_3) = f (y) ; a = __part_1 ; b = __part_2 ; \
             x [i] = __part_3 ; }"
        );
    }

    #[test]
    fn a_destructuring_assignment_as_an_arm_is_a_block() {
        assert_eq!(
            rewrite("{ match k { 0 => (a, b) = (b, a), _ => {} } }"),
            "{ match k { 0 => { let __part_1 = b ; let __part_2 = a ; a = __part_1 ; b = __part_2 ; } , \
             _ => { } } }"
        );
    }

    #[test]
    fn a_right_side_written_as_parts_is_bound_part_by_part() {
        assert_eq!(
            rewrite("{ ((a, b), [c, d]) = ((c, f(x)), [a * b, b]); }"),
            "{ let __part_1 = c ; let __part_2 = f (x) ; let __part_3 = a * b ; let __part_4 = b ; \
             a = __part_1 ; b = __part_2 ; c = __part_3 ; d = __part_4 ; }"
        );
        // A part not written as parts is bound by a pattern.
        assert_eq!(
            rewrite("{ ((a, b), c) = (g(x), y); }"),
            "{ let (__part_1 , __part_2) = g (x) ; let __part_3 = y ; a = __part_1 ; b = __part_2 ; \
             c = __part_3 ; }"
        );
    }

    #[test]
    fn a_value_out_of_a_nested_loop_starts_in_the_shape_its_breaks_tell() {
        let out = rewrite(
            "{ let v = 'a: { for i in 0..n { if c { break 'a (x[i], [y; 2], x[i] > y); } } t }; }",
        );
        assert!(
            out.contains(
                "let mut __block_value_1 = (:: autodiff :: __private :: block_value :: < _ > () , \
                 [:: autodiff :: __private :: block_value :: < _ > () ; 2] , false) ;"
            ),
            "{out}"
        );
    }

    #[test]
    fn a_rest_in_a_destructuring_assignment_is_left_alone() {
        assert_eq!(rewrite("{ (a, ..) = t; }"), "{ (a , ..) = t ; }");
    }

    #[test]
    fn a_labeled_block_with_a_value_is_a_loop_that_gives_it() {
        assert_eq!(
            rewrite("{ let v = 'a: { if c { break 'a 1.0; } z }; }"),
            "{ let v = 'a : loop { if c { break 'a 1.0 ; } break 'a z ; } ; }"
        );
    }

    #[test]
    fn a_value_out_of_a_nested_loop_is_assigned() {
        assert_eq!(
            rewrite("{ let v = 'a: { for i in 0..n { if c { break 'a i; } } z }; }"),
            "{ let mut __block_value_1 = :: autodiff :: __private :: block_value :: < _ > () ; 'a : loop { for i in 0 .. n \
             { if c { { __block_value_1 = i ; break 'a ; } ; } } __block_value_1 = z ; break 'a ; } \
             let v = __block_value_1 ; }"
        );
    }

    #[test]
    fn a_labeled_loop_whose_value_leaves_a_nested_loop_assigns_it() {
        assert_eq!(
            rewrite(
                "{ let r = 'o: loop { for i in 0..n { if c { break 'o i; } } if d { break 2.0; } \
                 for j in 0..n { if e { break; } } }; r }"
            ),
            "{ let mut __block_value_1 = :: autodiff :: __private :: block_value :: < _ > () ; 'o : loop \
             { for i in 0 .. n { if c { { __block_value_1 = i ; break 'o ; } ; } } if d { { \
             __block_value_1 = 2.0 ; break ; } ; } for j in 0 .. n { if e { break ; } } } let r = \
             __block_value_1 ; r }"
        );
        // Without a `break 'o v` out of a nested loop, the loop gives its value itself.
        assert_eq!(
            rewrite("{ let r = 'o: loop { if c { break 'o 1.0; } }; r }"),
            "{ let r = 'o : loop { if c { break 'o 1.0 ; } } ; r }"
        );
    }

    #[test]
    fn a_value_past_a_jump_to_an_outer_loop_is_hoisted_out_of_the_let() {
        assert_eq!(
            rewrite("{ 'o: for i in 0..n { let v = 'a: { if c { continue 'o; } if d { break 'a 1.0; } z }; } }"),
            "{ 'o : for i in 0 .. n { let mut __block_value_1 = :: autodiff :: __private :: block_value :: < _ > () ; \
             'a : loop { if c { continue 'o ; } if d { { __block_value_1 = 1.0 ; break 'a ; } ; } \
             __block_value_1 = z ; break 'a ; } let v = __block_value_1 ; } }"
        );
    }

    #[test]
    fn a_let_loop_that_jumps_out_carries_its_value_in_a_variable() {
        assert_eq!(
            rewrite("{ 'o: for i in 0..n { let t = loop { if c { continue 'o; } if d { break 2.0; } }; } }"),
            "{ 'o : for i in 0 .. n { let mut __block_value_1 = :: autodiff :: __private :: block_value :: < _ > () ; \
             loop { if c { continue 'o ; } if d { { __block_value_1 = 2.0 ; break ; } ; } } \
             let t = __block_value_1 ; } }"
        );
        // Its own label's `break 'i v` too, and the shape of a tuple value.
        assert_eq!(
            rewrite("{ 'o: loop { let t = 'i: loop { if c { break 'o; } break 'i (u, v); }; } }"),
            "{ 'o : loop { let mut __block_value_1 = (:: autodiff :: __private :: block_value :: < _ > () , \
             :: autodiff :: __private :: block_value :: < _ > ()) ; \
             'i : loop { if c { break 'o ; } { __block_value_1 = (u , v) ; break 'i ; } ; } \
             let t = __block_value_1 ; } }"
        );
    }

    #[test]
    fn a_let_loop_whose_jumps_stay_inside_is_left_alone() {
        let src = "{ let t = loop { 'a: for j in 0..n { if c { continue 'a; } break 'a; } if d { break 2.0; } }; }";
        let out = rewrite(src);
        assert!(!out.contains("__block_value"), "{out}");
        // Nor one without a value (a `let` of `()`), nor a loop that is a statement.
        let out = rewrite("{ 'o: for i in 0..n { loop { if c { continue 'o; } break 2.0; } } }");
        assert!(!out.contains("__block_value"), "{out}");
    }

    #[test]
    fn a_labeled_block_without_a_value_is_a_loop() {
        assert_eq!(
            rewrite("{ 'a: { if c { break 'a; } s = 1.0; } }"),
            "{ 'a : loop { if c { break 'a ; } s = 1.0 ; break 'a ; } }"
        );
    }

    #[test]
    fn a_labeled_block_whose_value_is_its_tail_gives_it() {
        // No `break 'b v`: the tail is the value where something reads it.
        assert_eq!(
            rewrite("{ let t = 'b: { a * 2.0 }; t * a }"),
            "{ let t = 'b : loop { break 'b a * 2.0 ; } ; t * a }"
        );
        // The tail of the function's body is read too.
        assert_eq!(rewrite("{ 'b: { a } }"), "{ 'b : loop { break 'b a ; } }");
        // A statement's value is not, nor a tail of type `()`.
        assert_eq!(
            rewrite("{ 'b: { f(a) } s }"),
            "{ 'b : loop { f (a) ; break 'b ; } s }"
        );
        assert_eq!(
            rewrite("{ 'b: { if c { break 'b; } s += 1.0 } }"),
            "{ 'b : loop { if c { break 'b ; } s += 1.0 ; break 'b ; } }"
        );
    }

    #[test]
    fn an_if_let_is_a_match() {
        assert_eq!(
            rewrite("{ if let Some(k) = via { a[k] = x; } let y = if let Kind::A = m { 1.0 } else if c { 2.0 } else { 3.0 }; }"),
            "{ match via { Some (k) => { a [k] = x ; } _ => { } } let y = match m { Kind :: A => { 1.0 } _ => if c \
             { 2.0 } else { 3.0 } } ; }"
        );
        // A `let` chain is left to the fence.
        let out = rewrite("{ if let Some(k) = via && k > 1 { a } }");
        assert!(out.contains("if let"), "{out}");
    }

    #[test]
    fn a_match_without_guards_or_bindings_is_left_alone() {
        assert_eq!(
            rewrite("{ match k { 0 => a, K | 2 => b, _ => c } }"),
            "{ match k { 0 => a , K | 2 => b , _ => c } }"
        );
    }

    #[test]
    fn a_guard_tests_after_its_pattern_and_falls_through() {
        let out = rewrite("{ match k + 1 { 0 => a, n @ 1..=9 if n % 2 == 0 => b, m => c } }");
        assert_eq!(
            out,
            "{ { let __scrutinee_1 = k + 1 ; match __scrutinee_1 { 0 => { a } _ => { let __guard_2 = match \
             __scrutinee_1 { 1 ..= 9 => { let n = __scrutinee_1 ; n % 2 == 0 } _ => false } ; if __guard_2 \
             { let n = __scrutinee_1 ; b } else { { let m = __scrutinee_1 ; c } } \
             } } } }"
        );
    }

    #[test]
    fn a_guarded_arm_that_keeps_a_name_reaches_its_body_through_the_pattern() {
        // `N` is a binding where no constant `N` is in scope (a local `N` does not make one).
        let out = rewrite("{ match k { N if N > 2 => a(N), _ => b } }");
        assert!(
            out.contains(
                "if __guard_1 { match k { N => { a (N) } _ => { { b } } } } else { { b } }"
            ),
            "{out}"
        );
    }

    #[test]
    fn a_name_of_a_local_in_a_pattern_binds_whatever_its_case() {
        assert_eq!(
            rewrite("{ let N = 5; match k { N => a(N), } }"),
            "{ let N = 5 ; { let N = k ; a (N) } }"
        );
        assert_eq!(
            rewrite("{ match k { N => a, _ => b } }"),
            "{ match k { N => a , _ => b } }"
        );
    }

    #[test]
    fn guards_and_names_alone_are_ifs() {
        assert_eq!(
            rewrite("{ match x { v if v > 1.0 => v.ln(), v => v } }"),
            "{ { let __guard_1 = { let v = x ; v > 1.0 } ; if __guard_1 { let v = x ; v . ln () } \
             else { { let v = x ; v } } } }"
        );
    }

    #[test]
    fn the_arms_after_a_guard_without_a_catch_all_keep_those_before() {
        let out = rewrite("{ match b { true => x, false if c => y, false => z } }");
        assert!(
            out.contains("else { match b { true => { x } false => { z } } }"),
            "{out}"
        );
    }
}
