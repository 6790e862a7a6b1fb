//! Loop labels, rewritten into flags before the fence: `break 'outer` and `continue 'outer` from inside a
//! nested loop set a flag and leave the inner loop; after each inner loop the flag is tested and the jump
//! goes on from there, until it reaches the labeled loop, where it is a plain `break` or `continue`. The
//! loop lowering then sees only unlabeled loops, whose `break` and `continue` it handles already.
//!
//! ```text
//! // Input:                                // Output:
//! 'rows: for i in 0..n {                   for i in 0..n {
//!     for j in 0..n {                          let mut __break_rows = false;
//!         if x[j] > t { continue 'rows; }      let mut __continue_rows = false;
//!         if j > i { break 'rows; }            for j in 0..n {
//!         s += x[i] * x[j];                        if x[j] > t { __continue_rows = true; break; }
//!     }                                            if j > i { __break_rows = true; break; }
//! }                                                s += x[i] * x[j];
//!                                              }
//!                                              if __break_rows { break; }
//!                                              if __continue_rows { continue; }
//!                                          }
//! ```
//!
//! What this cannot rewrite (a `break 'outer value` from a nested loop that `sugar.rs` did not make an
//! assignment of a variable, a nested loop inside an expression
//! that jumps out of it) is reported here, at the jump; the labels of that loop are dropped so the fence
//! does not report them again.

use crate::errors::Errors;
use proc_macro2::Span;
use quote::{format_ident, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Stmt};

/// `block` with its loop labels rewritten into flags; errors for the jumps that cannot be.
pub(crate) fn desugar(block: &mut syn::Block, errors: &mut Errors) {
    if !has_labels(block) {
        return;
    }
    Labels { counter: 0, errors }.visit_block_mut(block);
}

/// Does the block contain a loop label?
fn has_labels(block: &syn::Block) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_label(&mut self, _: &'ast syn::Label) {
            self.0 = true;
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(false);
    finder.visit_block(block);
    finder.0
}

struct Labels<'e> {
    counter: usize,
    errors: &'e mut Errors,
}

fn is_loop(expr: &Expr) -> bool {
    matches!(expr, Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_))
}

/// The label of a loop, with its body.
fn loop_parts(expr: &mut Expr) -> Option<(&mut Option<syn::Label>, &mut syn::Block)> {
    match expr {
        Expr::ForLoop(f) => Some((&mut f.label, &mut f.body)),
        Expr::While(w) => Some((&mut w.label, &mut w.body)),
        Expr::Loop(l) => Some((&mut l.label, &mut l.body)),
        _ => None,
    }
}

impl VisitMut for Labels<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // Inner labels first: their rewriting leaves the outer label's jumps as they are.
        visit_mut::visit_expr_mut(self, expr);
        let Some((label, body)) = loop_parts(expr) else {
            return;
        };
        let Some(name) = label.as_ref().map(|l| l.name.ident.to_string()) else {
            return;
        };
        self.counter += 1;
        let flags = Flags {
            label: name,
            brk: format_ident!("__break_{}", self.counter, span = Span::mixed_site()),
            cont: format_ident!("__continue_{}", self.counter, span = Span::mixed_site()),
        };
        let mut level = Level {
            flags: &flags,
            own: true,
            breaks: false,
            continues: false,
            problems: Vec::new(),
        };
        let mut rewritten = body.clone();
        level.visit_block_mut(&mut rewritten);
        if !level.problems.is_empty() {
            for (jump, message) in level.problems {
                self.errors.spanned(jump, message);
            }
            Unlabel(&flags.label).visit_block_mut(body);
            *label = None;
            return;
        }
        let (brk, cont) = (&flags.brk, &flags.cont);
        let mut declarations: Vec<Stmt> = Vec::new();
        if level.breaks {
            declarations.push(syn::parse_quote!(let mut #brk = false;));
        }
        if level.continues {
            declarations.push(syn::parse_quote!(let mut #cont = false;));
        }
        rewritten.stmts.splice(0..0, declarations);
        *body = rewritten;
        *label = None;
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The flags of one labeled loop.
struct Flags {
    label: String,
    brk: syn::Ident,
    cont: syn::Ident,
}

/// Rewrites the jumps to one label in code at one loop level: the labeled loop's own body (`own`), or
/// the body of a loop nested in it.
struct Level<'f> {
    flags: &'f Flags,
    own: bool,
    /// Whether a `break` (a `continue`) out of a nested loop sets its flag (which must be declared).
    breaks: bool,
    continues: bool,
    /// The jumps this pass cannot rewrite, with what to say.
    problems: Vec<(proc_macro2::TokenStream, String)>,
}

impl Level<'_> {
    fn targets(&self, label: &Option<syn::Lifetime>) -> bool {
        label
            .as_ref()
            .is_some_and(|l| l.ident == self.flags.label.as_str())
    }

    /// Does `expr` (a nested loop) jump to the label?
    fn jumps_in(&self, expr: &Expr) -> bool {
        struct Finder<'a>(&'a str, bool);
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
                self.1 |= b.label.as_ref().is_some_and(|l| l.ident == self.0);
                syn::visit::visit_expr_break(self, b);
            }
            fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
                self.1 |= c.label.as_ref().is_some_and(|l| l.ident == self.0);
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut finder = Finder(&self.flags.label, false);
        finder.visit_expr(expr);
        finder.1
    }

    /// The jumps of a nested loop's body, which leave that loop by a flag and `break`; then, after the
    /// loop, the tests of the flags it sets, which go on from this level.
    fn nested(&mut self, body: &mut syn::Block) -> Vec<Stmt> {
        let mut inner = Level {
            flags: self.flags,
            own: false,
            breaks: false,
            continues: false,
            problems: Vec::new(),
        };
        inner.visit_block_mut(body);
        self.problems.append(&mut inner.problems);
        self.breaks |= inner.breaks;
        self.continues |= inner.continues;
        let (brk, cont) = (&self.flags.brk, &self.flags.cont);
        // Only the flags the loop sets: a plain `break;` in a `loop` with a value would not type-check.
        let set: Vec<&syn::Ident> = [(inner.breaks, brk), (inner.continues, cont)]
            .into_iter()
            .filter_map(|(set, flag)| set.then_some(flag))
            .collect();
        if !self.own {
            // Inside another nested loop, each leaves that loop too, its flag still set.
            return vec![syn::parse_quote!(if #(#set)||* { break; })];
        }
        let mut jumps: Vec<Stmt> = Vec::new();
        if inner.breaks {
            jumps.push(syn::parse_quote!(if #brk { break; }));
        }
        if inner.continues {
            jumps.push(syn::parse_quote!(if #cont { continue; }));
        }
        jumps
    }
}

impl VisitMut for Level<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            // A loop statement (or a `let` of one) that jumps to the label from inside.
            let jumps = |expr: &Expr| is_loop(expr) && self.jumps_in(expr);
            let nested = match &mut stmt {
                Stmt::Expr(expr, _) if jumps(expr) => loop_parts(expr).map(|(_, body)| body),
                // Not `let v = loop { .. }`: its jump would leave by a `break;` without the loop's value
                // (E0308 in the expansion; autodiff-fuzz --sugar --seed 24025, program p12). It is
                // reported as a loop inside an expression (`visit_expr_mut`).
                Stmt::Local(syn::Local {
                    init: Some(init), ..
                }) if init.diverge.is_none()
                    && !matches!(&*init.expr, Expr::Loop(_))
                    && jumps(&init.expr) =>
                {
                    loop_parts(&mut init.expr).map(|(_, body)| body)
                }
                _ => None,
            };
            match nested {
                Some(body) => {
                    let after = self.nested(body);
                    stmts.push(stmt);
                    stmts.extend(after);
                }
                None => {
                    self.visit_stmt_mut(&mut stmt);
                    stmts.push(stmt);
                }
            }
        }
        block.stmts = stmts;
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Break(b) if self.targets(&b.label) => {
                if self.own {
                    b.label = None;
                } else if b.expr.is_some() {
                    let label = &self.flags.label;
                    self.problems.push((
                        b.to_token_stream(),
                        format!(
                            "`break '{label} value` out of a nested loop is not supported: assign the value \
                             to a variable declared before the loops, then `break '{label};`"
                        ),
                    ));
                } else {
                    self.breaks = true;
                    let brk = &self.flags.brk;
                    *expr = syn::parse_quote!({ #brk = true; break; });
                }
            }
            Expr::Continue(c) if self.targets(&c.label) => {
                if self.own {
                    c.label = None;
                } else {
                    self.continues = true;
                    let cont = &self.flags.cont;
                    *expr = syn::parse_quote!({ #cont = true; break; });
                }
            }
            // A nested loop inside an expression (not a statement of a block): left to the fence.
            _ if is_loop(expr) && self.jumps_in(expr) => self.problems.push((
                expr.to_token_stream(),
                format!(
                    "a loop inside an expression cannot jump to `'{}`: make the loop a statement of its own",
                    self.flags.label
                ),
            )),
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Drops the jumps' labels of a loop whose jumps were reported.
struct Unlabel<'l>(&'l str);

impl VisitMut for Unlabel<'_> {
    fn visit_expr_break_mut(&mut self, b: &mut syn::ExprBreak) {
        if b.label.as_ref().is_some_and(|l| l.ident == self.0) {
            b.label = None;
        }
        visit_mut::visit_expr_break_mut(self, b);
    }
    fn visit_expr_continue_mut(&mut self, c: &mut syn::ExprContinue) {
        if c.label.as_ref().is_some_and(|l| l.ident == self.0) {
            c.label = None;
        }
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(src: &str) -> String {
        let mut block: syn::Block = syn::parse_str(src).unwrap();
        let mut errors = Errors::default();
        desugar(&mut block, &mut errors);
        assert_eq!(errors.len(), 0);
        block.into_token_stream().to_string()
    }

    #[test]
    fn a_label_of_the_innermost_loop_is_dropped() {
        let out = rewrite("{ 'a: for i in 0..n { if i > 2 { break 'a; } continue 'a; } }");
        assert_eq!(
            out,
            "{ for i in 0 .. n { if i > 2 { break ; } continue ; } }"
        );
    }

    #[test]
    fn jumps_out_of_a_nested_loop_set_flags() {
        let out = rewrite(
            "{ 'rows: for i in 0..n { for j in 0..n { if j > i { break 'rows; } continue 'rows; } s += 1.0; } }",
        );
        assert_eq!(
            out,
            "{ for i in 0 .. n { let mut __break_1 = false ; let mut __continue_1 = false ; \
             for j in 0 .. n { if j > i { { __break_1 = true ; break ; } ; } \
             { __continue_1 = true ; break ; } ; } \
             if __break_1 { break ; } if __continue_1 { continue ; } s += 1.0 ; } }"
        );
    }

    #[test]
    fn a_jump_across_two_loops_leaves_each() {
        let out = rewrite("{ 'a: loop { while c { for k in 0..m { break 'a; } } } }");
        assert_eq!(
            out,
            "{ loop { let mut __break_1 = false ; \
             while c { for k in 0 .. m { { __break_1 = true ; break ; } ; } \
             if __break_1 { break ; } } \
             if __break_1 { break ; } } }"
        );
    }

    #[test]
    fn a_break_with_a_value_out_of_a_nested_loop_is_reported_once() {
        let src = "{ let v = 'a: loop { for i in 0..n { break 'a 1.0; } break 'a 2.0; } ; }";
        let mut block: syn::Block = syn::parse_str(src).unwrap();
        let mut errors = Errors::default();
        desugar(&mut block, &mut errors);
        assert_eq!(errors.len(), 1);
        assert!(!block.into_token_stream().to_string().contains('\''));
    }

    #[test]
    fn two_labels_get_their_own_flags() {
        let out = rewrite(
            "{ 'a: for i in 0..n { 'b: for j in 0..n { for k in 0..n { continue 'b; } break 'a; } } }",
        );
        assert!(!out.contains('\''), "{out}");
        assert!(
            out.contains("__continue_1") && out.contains("__break_2"),
            "{out}"
        );
    }
}
