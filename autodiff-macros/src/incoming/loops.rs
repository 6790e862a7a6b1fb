//! Loops that write their index's element in every iteration (`writes_each`), whether their range covers
//! the whole buffer (`over_all`), and whether anything may leave them early (`Leaves`, `has_break`).

use super::names::{bare_name, literal, mentions_str, Binds};
use crate::lower::strip_parens;
use syn::visit::Visit;
use syn::{Expr, Ident};

/// A loop whose iterations each write `out[i + shift]` before anything can leave them.
pub(super) struct Each<'f> {
    pub(super) index: Ident,
    pub(super) range: &'f syn::ExprRange,
    /// `(a..b).rev()`.
    pub(super) rev: bool,
    /// `k` of a write `out[i + k]`, 0 of `out[i]`.
    pub(super) shift: u64,
}

// Input:  for i in 1..x.len() { let v = x[i]; out[i] = out[i - 1] + v; }
// Output: Some(Each { i, 1..x.len(), rev: false, shift: 0 }): every iteration that starts has had each
//         earlier one write its `out[i]`
/// Does every iteration of `f` write `out[i]` (its index) before anything can leave it? The loop must be
/// `for i in a..b` or `a..=b`, or `(a..b).rev()` (the index a plain name, not `mut`) whose body has,
/// among its own statements, `out[i] = ..;` (or `out[i + k] = ..;`, `k` an integer literal), with no
/// `continue` and no macro before it (nor in its value), and no binding of `i` again.
pub(super) fn writes_each<'f>(f: &'f syn::ExprForLoop, out: &Ident) -> Option<Each<'f>> {
    let syn::Pat::Ident(index) = &*f.pat else {
        return None;
    };
    if index.by_ref.is_some() || index.mutability.is_some() || index.subpat.is_some() {
        return None;
    }
    let (range, rev) = match strip_parens(&f.expr) {
        Expr::Range(range) => (range, false),
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
            let Expr::Range(range) = strip_parens(&m.receiver) else {
                return None;
            };
            (range, true)
        }
        _ => return None,
    };
    range.end.as_ref()?;
    let is_out = |e: &Expr| bare_name(e).is_some_and(|n| *out == n);
    let is_index = |e: &Expr| bare_name(e).is_some_and(|n| index.ident == n);
    for stmt in &f.body.stmts {
        let mut leaves = Leaves {
            index: &index.ident,
            found: false,
        };
        leaves.visit_stmt(stmt);
        if leaves.found {
            return None;
        }
        if let syn::Stmt::Expr(Expr::Assign(a), Some(_)) = stmt {
            if let Expr::Index(target) = strip_parens(&a.left) {
                let shift = match strip_parens(&target.index) {
                    Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) => {
                        literal(&b.right).filter(|_| is_index(&b.left))
                    }
                    other => is_index(other).then_some(0),
                };
                if let (true, Some(shift)) = (is_out(&target.expr), shift) {
                    return Some(Each {
                        index: index.ident.clone(),
                        range,
                        rev,
                        shift,
                    });
                }
            }
        }
    }
    None
}

// Input:  while i < n { y[i] = x; s += y[i]; i += 1; }
// Output: Some((i, n)): each iteration writes `y[i]`, then moves `i` up by one, last
/// A `while i < e` loop counting `i` up: its body writes `out[i] = ..;` among its own statements before
/// anything can leave the iteration or change `i`, its last statement is `i += 1;` (or `i = i + 1;`) and
/// nothing else in it
/// changes `i` or binds it again. Gives the counter and `e`.
pub(super) fn counts_up<'w>(w: &'w syn::ExprWhile, out: &Ident) -> Option<(String, &'w Expr)> {
    let Expr::Binary(cond) = strip_parens(&w.cond) else {
        return None;
    };
    let (syn::BinOp::Lt(_), Some(i)) = (&cond.op, bare_name(&cond.left)) else {
        return None;
    };
    let (last, rest) = w.body.stmts.split_last()?;
    // `i += 1;` or `i = i + 1;` (as other passes may write it).
    let is_i = |e: &Expr| bare_name(e).is_some_and(|n| n == i);
    let steps = match last {
        syn::Stmt::Expr(Expr::Binary(step), Some(_)) => {
            matches!(step.op, syn::BinOp::AddAssign(_))
                && is_i(&step.left)
                && literal(&step.right) == Some(1)
        }
        syn::Stmt::Expr(Expr::Assign(a), Some(_)) => {
            is_i(&a.left)
                && matches!(strip_parens(&a.right), Expr::Binary(b)
                    if matches!(b.op, syn::BinOp::Add(_)) && is_i(&b.left) && literal(&b.right) == Some(1))
        }
        _ => false,
    };
    let index = Ident::new(&i, proc_macro2::Span::call_site());
    let mut written = false;
    for stmt in rest {
        let mut binds = Binds::default();
        binds.visit_stmt(stmt);
        if binds.names.contains(&i) && !is_write(stmt, out, &i) {
            return None;
        }
        if !written {
            let mut leaves = Leaves {
                index: &index,
                found: false,
            };
            leaves.visit_stmt(stmt);
            if leaves.found {
                return None;
            }
            written = is_write(stmt, out, &i);
        }
    }
    (steps && written).then_some((i, &*cond.right))
}

/// Is `stmt` `out[i] = ..;`?
fn is_write(stmt: &syn::Stmt, out: &Ident, i: &str) -> bool {
    let syn::Stmt::Expr(Expr::Assign(a), Some(_)) = stmt else {
        return false;
    };
    let Expr::Index(target) = strip_parens(&a.left) else {
        return false;
    };
    bare_name(&target.expr).is_some_and(|n| *out == n)
        && bare_name(&target.index).is_some_and(|n| n == i)
}

/// The index `j` (a plain name, not `mut`) and the range of a loop `for j in s..e`, maybe `.rev()` or
/// `.step_by(k)`: every `j` it takes is in the range.
pub(super) fn loop_range(f: &syn::ExprForLoop) -> Option<(String, &syn::ExprRange)> {
    let syn::Pat::Ident(j) = &*f.pat else {
        return None;
    };
    if j.by_ref.is_some() || j.mutability.is_some() || j.subpat.is_some() {
        return None;
    }
    let mut range = strip_parens(&f.expr);
    while let Expr::MethodCall(m) = range {
        if !(m.method == "rev" && m.args.is_empty() || m.method == "step_by" && m.args.len() == 1) {
            return None;
        }
        range = strip_parens(&m.receiver);
    }
    let Expr::Range(r) = range else {
        return None;
    };
    Some((j.ident.to_string(), r))
}

/// Can this statement leave the iteration early (`continue`, a macro), or does it bind `index` again?
pub(super) struct Leaves<'i> {
    index: &'i Ident,
    found: bool,
}

impl<'ast> Visit<'ast> for Leaves<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Continue(_) | Expr::Macro(_) => self.found = true,
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.found |= p.ident == *self.index;
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_stmt_macro(&mut self, _: &'ast syn::StmtMacro) {
        self.found = true;
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Is there a `break` anywhere in `body` (also of an inner loop: conservative)? A macro may expand to one,
/// unless it is one of the standard library's that never do and `break` is not among its tokens.
pub(super) fn has_break(body: &syn::Block) -> bool {
    struct Breaks(bool);
    impl<'ast> Visit<'ast> for Breaks {
        fn visit_expr_break(&mut self, _: &'ast syn::ExprBreak) {
            self.0 = true;
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            const NEVER: [&str; 15] = [
                "assert",
                "assert_eq",
                "assert_ne",
                "debug_assert",
                "debug_assert_eq",
                "debug_assert_ne",
                "eprint",
                "eprintln",
                "format",
                "panic",
                "print",
                "println",
                "unreachable",
                "vec",
                "dbg",
            ];
            let known = (m.path.get_ident()).is_some_and(|i| NEVER.iter().any(|n| i == n));
            self.0 |= !known || mentions_str(m.tokens.clone(), "break");
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut breaks = Breaks(false);
    breaks.visit_block(body);
    breaks.0
}
