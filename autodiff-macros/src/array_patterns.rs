//! Array patterns in `let`, rewritten into tuple patterns over indexed reads before the fence:
//! `let [x1, x2] = *param;` is how numeric Rust unpacks a point (`&[f64; 2]`), and the later passes know
//! tuple patterns and indexing already.
//!
//! ```text
//! // Input:                                // Output:
//! let [x1, x2] = *param;                   let (x1, x2) = (param[0], param[1]);
//! let [[a, b], [c, _]] = m;                let ((a, b), (c, _)) = ((m[0][0], m[0][1]), (m[1][0], m[1][1]));
//! let [p, q] = corners(x);                 let __array_1 = corners(x);
//!                                          let (p, q) = (__array_1[0], __array_1[1]);
//! ```
//!
//! A value that is not a place (a call, an arithmetic expression) is bound to a temporary first, so it is
//! computed once. A pattern with a rest (`[first, .., last]`) is left to the fence, which reports it.

use proc_macro2::Span;
use quote::format_ident;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Pat, Stmt};

/// `block` with the array patterns of its `let`s and `for`s rewritten into tuple patterns; `counter`
/// numbers the temporaries (kept across calls, so that a second pass names new ones).
pub(crate) fn desugar(block: &mut syn::Block, counter: &mut usize) {
    let mut pass = ArrayPatterns { counter: *counter };
    pass.visit_block_mut(block);
    *counter = pass.counter;
}

struct ArrayPatterns {
    counter: usize,
}

impl VisitMut for ArrayPatterns {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        visit_mut::visit_block_mut(self, block);
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for stmt in std::mem::take(&mut block.stmts) {
            match stmt {
                Stmt::Local(local) => stmts.extend(self.local(local)),
                other => stmts.push(other),
            }
        }
        block.stmts = stmts;
    }

    // `for &[x, y] in pts { .. }` → `for __row_1 in pts { let [x, y] = *__row_1; .. }`, whose `let` the
    // visit of the body then rewrites.
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::ForLoop(f) = expr {
            let mut lets = Vec::new();
            self.name_rows(&mut f.pat, &mut lets);
            f.body.stmts.splice(0..0, lets);
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    // A nested `fn` item is expanded on its own.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl ArrayPatterns {
    /// Replaces each array pattern in a `for`'s pattern (`&[x, y]`, or inside a tuple, `(i, &[x, y])`) by
    /// a fresh name, and pushes the `let` that unpacks it.
    fn name_rows(&mut self, pat: &mut Pat, lets: &mut Vec<Stmt>) {
        match pat {
            Pat::Tuple(t) => t.elems.iter_mut().for_each(|p| self.name_rows(p, lets)),
            Pat::Paren(p) => self.name_rows(&mut p.pat, lets),
            Pat::Reference(r) if matches!(&*r.pat, Pat::Slice(_)) && rewritable(&r.pat) => {
                let row = self.fresh("row");
                let slice = &r.pat;
                lets.push(syn::parse_quote!(let #slice = *#row;));
                *pat = syn::parse_quote!(#row);
            }
            Pat::Slice(_) if rewritable(pat) => {
                let row = self.fresh("row");
                lets.push(syn::parse_quote!(let #pat = #row;));
                *pat = syn::parse_quote!(#row);
            }
            _ => {}
        }
    }

    fn fresh(&mut self, base: &str) -> syn::Ident {
        self.counter += 1;
        format_ident!("__{}_{}", base, self.counter, span = Span::mixed_site())
    }

    /// The statements that replace `local`: itself unless it binds an array pattern.
    fn local(&mut self, mut local: syn::Local) -> Vec<Stmt> {
        let pat = match &local.pat {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        let Some(init) = local.init.as_ref().filter(|init| init.diverge.is_none()) else {
            return vec![Stmt::Local(local)];
        };
        if !matches!(pat, Pat::Slice(_)) || !rewritable(pat) {
            return vec![Stmt::Local(local)];
        }
        let pat = pat.clone();
        let value = strip(&init.expr);
        let mut stmts = Vec::new();
        let place: Expr = if is_place(value) {
            value.clone()
        } else {
            let temp = self.fresh("array");
            let value = &init.expr;
            stmts.push(syn::parse_quote!(let #temp = #value;));
            syn::parse_quote!(#temp)
        };
        let (pat, value) = tuple_of(&pat, &place);
        local.pat = pat;
        if let Some(init) = local.init.as_mut() {
            *init.expr = value;
        }
        stmts.push(Stmt::Local(local));
        stmts
    }
}

/// Does the pattern hold only names, `_`, tuples and array patterns without a rest?
fn rewritable(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(p) => p.by_ref.is_none() && p.subpat.is_none(),
        Pat::Wild(_) => true,
        Pat::Slice(s) => s.elems.iter().all(rewritable),
        Pat::Paren(p) => rewritable(&p.pat),
        _ => false,
    }
}

/// The value under parentheses and a dereference: `*param` is read as `param[i]`, which Rust
/// auto-dereferences.
fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip(&u.expr),
        other => other,
    }
}

/// A place read twice without computing anything twice: a name, a field, an element at a name or literal.
fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        Expr::Field(f) => is_place(&f.base),
        Expr::Index(i) => is_place(&i.expr) && matches!(&*i.index, Expr::Lit(_) | Expr::Path(_)),
        Expr::Paren(p) => is_place(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => is_place(&u.expr),
        _ => false,
    }
}

/// The pattern with its array patterns as tuples, and the value it binds, read element by element from
/// `place`.
fn tuple_of(pat: &Pat, place: &Expr) -> (Pat, Expr) {
    match pat {
        Pat::Paren(p) => tuple_of(&p.pat, place),
        Pat::Slice(s) => {
            let parts: Vec<(Pat, Expr)> = s
                .elems
                .iter()
                .enumerate()
                .map(|(i, elem)| {
                    let i = syn::LitInt::new(&i.to_string(), s.bracket_token.span.join());
                    tuple_of(elem, &syn::parse_quote!(#place[#i]))
                })
                .collect();
            if let [(pat, value)] = parts.as_slice() {
                return (pat.clone(), value.clone());
            }
            let (pats, values): (Vec<Pat>, Vec<Expr>) = parts.into_iter().unzip();
            (
                syn::parse_quote!((#(#pats),*)),
                syn::parse_quote!((#(#values),*)),
            )
        }
        other => (other.clone(), place.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn rewrite(body: &str) -> String {
        let mut block: syn::Block = syn::parse_str(body).unwrap();
        desugar(&mut block, &mut 0);
        block.into_token_stream().to_string()
    }

    #[test]
    fn a_dereferenced_array_reads_its_elements() {
        assert_eq!(
            rewrite("{ let [x1, x2] = *param; x1 * x2 }"),
            "{ let (x1 , x2) = (param [0] , param [1]) ; x1 * x2 }"
        );
    }

    #[test]
    fn nested_patterns_and_a_call() {
        assert_eq!(
            rewrite("{ let [[a, _], [c, d]] = m; let [p, q]: [f64; 2] = f(x); }"),
            "{ let ((a , _) , (c , d)) = ((m [0] [0] , m [0] [1]) , (m [1] [0] , m [1] [1])) ; \
             let __array_1 = f (x) ; let (p , q) = (__array_1 [0] , __array_1 [1]) ; }"
        );
    }

    #[test]
    fn a_for_over_points() {
        assert_eq!(
            rewrite("{ for (i, &[x, y]) in pts.iter().enumerate() { s += x * y; } }"),
            "{ for (i , __row_1) in pts . iter () . enumerate () { let (x , y) = (__row_1 [0] , __row_1 [1]) ; \
             s += x * y ; } }"
        );
    }

    #[test]
    fn a_rest_is_left_to_the_fence() {
        assert_eq!(rewrite("{ let [a, ..] = x; }"), "{ let [a , ..] = x ; }");
    }
}
