//! Loops that write their index's element in every iteration (`writes_each`), whether their range covers
//! the whole buffer (`over_all`), and whether anything may leave them early (`Leaves`, `has_break`).

use super::names::{bare_name, literal, mentions_str};
use crate::lower::strip_parens;
use syn::visit::Visit;
use syn::{Expr, Ident};

// Input:  for i in 1..x.len() { let v = x[i]; out[i] = out[i - 1] + v; }
// Output: Some((i, 1)): every iteration that starts has had each earlier one write its `out[i]`
/// Does every iteration of `f` write `out[i]` (its index) before anything can leave it? The loop must be
/// `for i in a..b` or `a..=b` (`a` an integer literal, the index a plain name, not `mut`) whose body has,
/// among its own statements, `out[i] = ..;`, with no `continue` and no macro before it (nor in its value),
/// and no binding of `i` again. Gives the index and `a`.
pub(super) fn writes_each(f: &syn::ExprForLoop, out: &Ident) -> Option<(Ident, u64)> {
    let syn::Pat::Ident(index) = &*f.pat else {
        return None;
    };
    if index.by_ref.is_some() || index.mutability.is_some() || index.subpat.is_some() {
        return None;
    }
    let Expr::Range(range) = strip_parens(&f.expr) else {
        return None;
    };
    let start = literal(range.start.as_deref()?)?;
    range.end.as_ref()?;
    let is_out = |e: &Expr| bare_name(e).is_some_and(|n| *out == n);
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
                if is_out(&target.expr)
                    && bare_name(&target.index).is_some_and(|n| index.ident == n)
                {
                    return Some((index.ident.clone(), start));
                }
            }
        }
    }
    None
}

/// Is the range of `f` every index of `out`: `..out.len()` (or `..N` of a `[T; N]`), half open?
pub(super) fn over_all(range: &Expr, out: &Ident, len: Option<u64>) -> bool {
    let Expr::Range(r) = strip_parens(range) else {
        return false;
    };
    let Some(end) = r.end.as_deref() else {
        return false;
    };
    let to_len = match strip_parens(end) {
        Expr::MethodCall(m) => {
            m.method == "len"
                && m.args.is_empty()
                && bare_name(&m.receiver).is_some_and(|n| *out == n)
        }
        other => literal(other).is_some_and(|n| Some(n) == len),
    };
    to_len && matches!(r.limits, syn::RangeLimits::HalfOpen(_))
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
