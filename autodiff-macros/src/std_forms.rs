//! Everyday forms of numeric Rust rewritten, on the syntax and before the chains and the fence, into forms
//! the later passes handle: iterating an array literal, arithmetic on references, `split_at`, and (called
//! from `sugar.rs`, beside the guards it rewrites) `match` on a tuple.
//!
//! ```text
//! // Input:                                // Output:
//! for u in [x, y, z] { s += u * u; }       { let __items_1 = [x, y, z]; for u in __items_1 { s += u * u; } }
//! for &u in &[x, y] { .. }                 { let __items_2 = [x, y]; for &u in &__items_2 { .. } }
//! [a, b].iter().map(|v| v * v).sum()       { let __items_3 = [a, b]; __items_3.iter().map(|v| v * v).sum() }
//!
//! &x * &y + *&x - &a[i]                    x * y + (x) - a[i]
//!
//! let (l, r) = x.split_at(m);              let __mid_4 = m;
//!                                          let l = &x[..__mid_4];
//!                                          let r = &x[__mid_4..];
//!
//! match (k, j + 1) {                       {
//!     (0, 0) => a,                             let __part_5 = j + 1;
//!     (0, n) if n > 2 => b(n),                 if (match k { 0 => true, _ => false })
//!     _ => c,                                      && (match __part_5 { 0 => true, _ => false }) { a }
//! }                                            else if (match k { 0 => true, _ => false })
//!                                                  && { let n = __part_5; n > 2 } { let n = __part_5; b(n) }
//!                                              else { c }
//!                                          }
//! ```
//!
//! These are what the forms mean in Rust: an array literal iterated is an array made first (its elements
//! evaluated once, in order); `&x * &y` is `x * y` for every number type std gives reference arithmetic;
//! `split_at(m)` is the two sub-slices around `m` (and panics where they would, `m` past the end); a
//! `match` on a tuple tests its parts, evaluated once and in order, arm after arm, each part's pattern
//! and then the guard, and the last arm is reached only where every other failed, which rustc's check of
//! the function (emitted as written) proves covers what is left.

use crate::sugar::{has_ref_binding, irrefutable, unbind, Locals};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit_mut::{self, VisitMut};
use syn::{BinOp, Expr, Pat, Stmt};

/// `block` with its array literals iterated, its arithmetic on references and its `split_at`s rewritten.
pub(crate) fn desugar(block: &mut syn::Block) {
    Forms { counter: 0 }.visit_block_mut(block);
}

struct Forms {
    counter: usize,
}

// Input:  let row = m[i];                  Output: let __row_index_1: usize = i;
//         s += row[j][k] * row.len();              assert!(__row_index_1 < m.len(), "index out of bounds");
//                                                  s += m[__row_index_1][j][k] * m[__row_index_1].len();
/// `let row = m[i];` of a parameter `m` nested three levels or more deep in fixed-size arrays (`&[[[f64; 2];
/// 3]; 4]`, `[[[f64; 2]; 3]]`): a copy of the sub-matrix `m[i]`, which the parameter (never written) keeps,
/// so that each use of `row` reads `m[i]` with `i` as it was at the `let`, checked there as indexing
/// checks it. Only where neither `row` nor `m` is bound anywhere else in the function (no shadowing to
/// follow), `row` is not `mut` and no macro's tokens name it; any other `let` is left to the lowering,
/// which reports it.
pub(crate) fn nested_rows(block: &mut syn::Block, sig: &syn::Signature) {
    let deep: Vec<syn::Ident> = sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p)
                    if p.mutability.is_none() && p.by_ref.is_none() && array_depth(&t.ty) >= 3 =>
                {
                    Some(p.ident.clone())
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    if deep.is_empty() {
        return;
    }
    let mut bound = Bindings::default();
    syn::visit::Visit::visit_block(&mut bound, block);
    // A name in a macro's tokens is not substituted: such a row is left as written.
    let mut in_macros = MacroNames::default();
    syn::visit::Visit::visit_block(&mut in_macros, block);
    let mut rows = Rows {
        deep,
        bound: bound.0,
        in_macros: in_macros.0,
        counter: 0,
    };
    rows.visit_block_mut(block);
}

/// How many levels of fixed-size arrays (or a slice of them) `ty` is, behind references.
fn array_depth(ty: &syn::Type) -> usize {
    match ty {
        syn::Type::Reference(r) if r.mutability.is_none() => array_depth(&r.elem),
        syn::Type::Paren(p) => array_depth(&p.elem),
        syn::Type::Array(a) => 1 + array_depth(&a.elem),
        syn::Type::Slice(s) if matches!(&*s.elem, syn::Type::Array(_)) => 1 + array_depth(&s.elem),
        _ => 0,
    }
}

/// Every name a pattern of the body binds, with how many times.
#[derive(Default)]
struct Bindings(Vec<String>);

impl<'ast> syn::visit::Visit<'ast> for Bindings {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The identifiers in the tokens of the body's macros.
#[derive(Default)]
struct MacroNames(Vec<String>);

impl<'ast> syn::visit::Visit<'ast> for MacroNames {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        fn idents(tokens: TokenStream, out: &mut Vec<String>) {
            for t in tokens {
                match t {
                    proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                    proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                    _ => {}
                }
            }
        }
        idents(m.tokens.clone(), &mut self.0);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

struct Rows {
    deep: Vec<syn::Ident>,
    bound: Vec<String>,
    in_macros: Vec<String>,
    counter: usize,
}

impl Rows {
    /// `let row = m[i];` as `(row, m, i)`, if the rewriting applies to it.
    fn row_let(&self, stmt: &Stmt) -> Option<(syn::Ident, syn::Ident, Expr)> {
        let Stmt::Local(local) = stmt else {
            return None;
        };
        let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
        let Pat::Ident(row) = &local.pat else {
            return None;
        };
        if row.mutability.is_some() || row.by_ref.is_some() || row.subpat.is_some() {
            return None;
        }
        let Expr::Index(index) = strip_parens(&init.expr) else {
            return None;
        };
        let Expr::Path(m) = strip_parens(&index.expr) else {
            return None;
        };
        let m = m.path.get_ident()?;
        let once = |name: &syn::Ident| self.bound.iter().filter(|b| *name == **b).count();
        let in_macro = self.in_macros.iter().any(|name| row.ident == *name);
        if !self.deep.contains(m) || once(m) != 0 || once(&row.ident) != 1 || in_macro {
            return None;
        }
        Some((row.ident.clone(), m.clone(), (*index.index).clone()))
    }
}

impl VisitMut for Rows {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(block.stmts.len());
        let mut substitutions: Vec<(syn::Ident, Expr)> = Vec::new();
        for mut stmt in std::mem::take(&mut block.stmts) {
            for (row, read) in &substitutions {
                Substitute { row, read }.visit_stmt_mut(&mut stmt);
            }
            if let Some((row, m, at)) = self.row_let(&stmt) {
                self.counter += 1;
                let index =
                    format_ident!("__row_index_{}", self.counter, span = Span::mixed_site());
                stmts.push(syn::parse_quote!(let #index: usize = #at;));
                stmts.push(syn::parse_quote!(assert!(#index < #m.len(), "index out of bounds");));
                substitutions.push((row, syn::parse_quote!(#m[#index])));
                continue;
            }
            self.visit_stmt_mut(&mut stmt);
            stmts.push(stmt);
        }
        block.stmts = stmts;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Replaces each path `row` with `read`.
struct Substitute<'a> {
    row: &'a syn::Ident,
    read: &'a Expr,
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Path(p) = expr {
            if p.qself.is_none() && p.path.is_ident(self.row) {
                *expr = self.read.clone();
                return;
            }
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The methods that end an iterator chain (`chains.rs`): one over an array literal is wrapped in a block
/// that makes the array first.
const TERMINALS: &[&str] = &["sum", "product", "fold", "collect", "count", "any", "all"];

impl Forms {
    fn fresh(&mut self, what: &str) -> syn::Ident {
        self.counter += 1;
        format_ident!("__{}_{}", what, self.counter, span = Span::mixed_site())
    }

    // Input:  s.pop().unwrap_or(d)      x.last().copied().unwrap_or(d)      x.first().unwrap_or(&d)
    // Output: if s.is_empty() { d } else { let __popped_1 = s.pop().unwrap(); let _ = d; __popped_1 }
    //         { let __default_2 = d; if x.is_empty() { __default_2 } else { x[x.len() - 1] } }
    //         &{ let __default_3 = d; if x.is_empty() { __default_3 } else { x[0] } }
    /// `.unwrap_or(d)` of `s.pop()` (a local named by a path) or of `x.last()`/`x.first()` (maybe after
    /// `.copied()` or `.cloned()`, of a place without effects): the default where the array is empty, the
    /// element otherwise. The default is evaluated where `unwrap_or` evaluates its argument: after the
    /// pop (which pops nothing from an empty `s`), before the element is read. `None` for any other call.
    fn or_default(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        if m.args.len() != 1 || m.turbofish.is_some() {
            return None;
        }
        let default = &m.args[0];
        let (option, by_value) = copied_receiver(&m.receiver);
        let Expr::MethodCall(call) = option else {
            return None;
        };
        if !call.args.is_empty() || call.turbofish.is_some() {
            return None;
        }
        let span = call.method.span();
        if call.method == "pop" && !by_value {
            let Expr::Path(stack) = strip_parens(&call.receiver) else {
                return None;
            };
            if stack.qself.is_some() || stack.path.get_ident().is_none() {
                return None;
            }
            let popped = self.fresh("popped");
            return Some(syn::parse_quote_spanned! {span=>
                if #stack.is_empty() {
                    #default
                } else {
                    let #popped = #stack.pop().unwrap();
                    let _ = #default;
                    #popped
                }
            });
        }
        let (window, x) = reread(&call.receiver)?;
        let index: Expr = match call.method.to_string().as_str() {
            "first" => syn::parse_quote_spanned!(span=> 0),
            "last" => syn::parse_quote_spanned!(span=> #x.len() - 1),
            _ => return None,
        };
        // By reference, the default is `&d` (or a reference held by a name): its value is `d` (`*r`).
        let value: Expr = match (by_value, strip_parens(default)) {
            (true, _) => default.clone(),
            (false, Expr::Reference(r)) if r.mutability.is_none() => (*r.expr).clone(),
            (false, other) => syn::parse_quote!(*#other),
        };
        let d = self.fresh("default");
        let chosen: Expr = syn::parse_quote_spanned! {span=>
            {
                #window
                let #d = #value;
                if #x.is_empty() { #d } else { #x[#index] }
            }
        };
        Some(match by_value {
            true => chosen,
            false => syn::parse_quote_spanned!(span=> &#chosen),
        })
    }

    /// The array literals that `iterated` (a `for`'s iterator, a chain's receiver) iterates, each replaced
    /// by a fresh name; the `let`s that make them, in order.
    fn hoist_arrays(&mut self, iterated: &mut Expr, lets: &mut Vec<Stmt>) {
        match iterated {
            Expr::Paren(p) => self.hoist_arrays(&mut p.expr, lets),
            Expr::Array(_) | Expr::Repeat(_) => {
                let name = self.fresh("items");
                lets.push(syn::parse_quote!(let #name = #iterated;));
                *iterated = syn::parse_quote!(#name);
            }
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                let name = self.fresh("items");
                lets.push(syn::parse_quote!(let #name = #iterated;));
                *iterated = syn::parse_quote!(#name);
            }
            Expr::Reference(r) if r.mutability.is_none() => match &*r.expr {
                Expr::Array(_) | Expr::Repeat(_) => self.hoist_arrays(&mut r.expr, lets),
                _ => {}
            },
            Expr::MethodCall(m) => {
                self.hoist_arrays(&mut m.receiver, lets);
                if m.method == "zip" && m.args.len() == 1 {
                    self.hoist_arrays(&mut m.args[0], lets);
                }
            }
            _ => {}
        }
    }

    // Input:  *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap()
    // Output: x[{
    //             let mut __best_1: usize = 0;
    //             for __next_2 in 1..x.len() {
    //                 assert!(x[__best_1] == x[__best_1] && x[__next_2] == x[__next_2], "..");
    //                 if !(x[__best_1] > x[__next_2]) { __best_1 = __next_2; }
    //             }
    //             __best_1
    //         }]
    /// The element `x.iter().max_by(cmp)`, `.min_by(cmp)`, `.max()` or `.min()` (maybe after `.copied()` or
    /// `.cloned()`) unwrapped selects, of a slice, array or `Vec` named by a place without effects or a
    /// sub-slice of one (`x[1..]`, `xs[1..n - 1]`, [`reread`]): read at
    /// the index a loop finds, by reference where the `Option` held one. The comparator is one of
    /// `|a, b| a.partial_cmp(b).unwrap()` and `|a, b| a.total_cmp(b)` (its parameters maybe `&a`, either
    /// order) or `f64::total_cmp`; `.max()` and `.min()` are of integers (`Ord`), compared by `>`. As
    /// `Iterator::max_by` folds `cmp::max_by`, the element kept is replaced by the next one unless it
    /// compares `Greater` (so the last of equal maxima is chosen); `min_by` replaces it where it compares
    /// `Greater` (the first of equal minima). `partial_cmp(..).unwrap()` panics on a NaN as it does;
    /// `total_cmp` orders `-0.0` below `0.0` and NaNs by their sign (not their payloads). An empty `x`
    /// panics at `x[0]`, where `unwrap` panics.
    fn extreme(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        if m.turbofish.is_some() || m.args.len() > usize::from(m.method == "expect") {
            return None;
        }
        let Expr::MethodCall(select) = strip_parens(&m.receiver) else {
            return None;
        };
        let method = select.method.to_string();
        let (max, compare) = match (method.as_str(), select.args.len()) {
            ("max" | "min", 0) => (method == "max", Compare::Ord),
            ("max_by" | "min_by", 1) => (method == "max_by", comparator(&select.args[0])?),
            _ => return None,
        };
        if select.turbofish.is_some() {
            return None;
        }
        let (iter, by_value) = copied_receiver(&select.receiver);
        let Expr::MethodCall(iter) = iter else {
            return None;
        };
        if iter.method != "iter" || !iter.args.is_empty() {
            return None;
        }
        let (window, x) = reread(&iter.receiver)?;
        let x = &x;
        let best = self.fresh("best");
        let next = self.fresh("next");
        let (kept, new): (Expr, Expr) =
            (syn::parse_quote!(#x[#best]), syn::parse_quote!(#x[#next]));
        let take = compare.replaces(max, &kept, &new);
        let check: Option<syn::Stmt> = matches!(compare, Compare::Partial(_)).then(|| {
            syn::parse_quote! {
                assert!(
                    #kept == #kept && #new == #new,
                    "called `Option::unwrap()` on a `None` value"
                );
            }
        });
        let span = select.method.span();
        let index: Expr = syn::parse_quote_spanned! {span=>
            {
                let mut #best: usize = 0;
                for #next in 1..#x.len() {
                    #check
                    if #take {
                        #best = #next;
                    }
                }
                #best
            }
        };
        Some(element(window, x, &index, by_value, span))
    }

    // Input:  let (l, r) = x.split_at(m);
    // Output: let __mid_1 = m; let l = &x[..__mid_1]; let r = &x[__mid_1..];
    /// The statements `stmt` stands for, if it binds the halves of `x.split_at(m)` of a slice named by a
    /// path or a field (`x`, `self.w`).
    fn split_at(&mut self, stmt: &Stmt) -> Option<Vec<Stmt>> {
        let Stmt::Local(local) = stmt else {
            return None;
        };
        let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
        let Expr::MethodCall(m) = strip_parens(&init.expr) else {
            return None;
        };
        if m.method != "split_at" || m.args.len() != 1 || m.turbofish.is_some() {
            return None;
        }
        let slice = match strip_parens(&m.receiver) {
            e @ (Expr::Path(_) | Expr::Field(_)) => e,
            _ => return None,
        };
        let pat = match &local.pat {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        let Pat::Tuple(halves) = pat else {
            return None;
        };
        let halves: Vec<&Pat> = halves.elems.iter().collect();
        let [left, right] = halves.as_slice() else {
            return None;
        };
        let named =
            |p: &Pat| matches!(p, Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none());
        let bindable = |p: &Pat| named(p) || matches!(p, Pat::Wild(_));
        if !bindable(left) || !bindable(right) {
            return None;
        }
        let mid = self.fresh("mid");
        let at = &m.args[0];
        let mut stmts: Vec<Stmt> = vec![syn::parse_quote!(let #mid: usize = #at;)];
        if named(left) {
            stmts.push(syn::parse_quote!(let #left = &#slice[..#mid];));
        }
        if named(right) {
            stmts.push(syn::parse_quote!(let #right = &#slice[#mid..];));
        }
        Some(stmts)
    }
}

// Input:  if let Some(v) = s.pop() { .. }                while let Some(v) = s.pop() { .. }
// Output: if !s.is_empty() { let v = s.pop().unwrap(); .. }   while !s.is_empty() { let v = s.pop().unwrap(); .. }
// (and `s.pop();`, a statement: `if !s.is_empty() { let _ = s.pop().unwrap(); }`)
/// The test and the binding that `let Some(v) = s.pop()` (`cond` of an `if let` or `while let`, `s` a
/// local named by a path) is: `s.pop()` is `Some` of the last element exactly where `s` is not empty, and
/// pops nothing otherwise. The pattern is a name (maybe `mut`) or `_`; `None` for any other `cond`.
fn popped(cond: &Expr) -> Option<(Expr, Stmt)> {
    let Expr::Let(l) = cond else {
        return None;
    };
    let Pat::TupleStruct(some) = &*l.pat else {
        return None;
    };
    if some.qself.is_some() || !some.path.is_ident("Some") || some.elems.len() != 1 {
        return None;
    }
    let binding = &some.elems[0];
    let simple = match binding {
        Pat::Ident(p) => p.by_ref.is_none() && p.subpat.is_none(),
        Pat::Wild(_) => true,
        _ => false,
    };
    let Expr::MethodCall(pop) = strip_parens(&l.expr) else {
        return None;
    };
    let Expr::Path(stack) = strip_parens(&pop.receiver) else {
        return None;
    };
    if !simple
        || pop.method != "pop"
        || !pop.args.is_empty()
        || pop.turbofish.is_some()
        || stack.qself.is_some()
        || stack.path.get_ident().is_none()
    {
        return None;
    }
    let span = pop.method.span();
    Some((
        syn::parse_quote_spanned!(span=> !#stack.is_empty()),
        syn::parse_quote_spanned!(span=> let #binding = #stack.pop().unwrap();),
    ))
}

// Input:  let Some(v) = s.pop() else { return 0.0; };
// Output: if !s.is_empty() {} else { return 0.0; }  let v = s.pop().unwrap();
/// `let Some(v) = s.pop() else { .. };` of a local named by a path: its `else` (which diverges) where `s`
/// is empty, then the pop unwrapped (`popped`). `None` for any other statement.
fn popped_else(stmt: &Stmt) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref()?;
    let (_, otherwise) = init.diverge.as_ref()?;
    if !local.attrs.is_empty() {
        return None;
    }
    let pat = &local.pat;
    let value = &init.expr;
    let (test, bind) = popped(&syn::parse_quote!(let #pat = #value))?;
    Some(vec![syn::parse_quote!(if #test {} else #otherwise), bind])
}

/// `r` without a `.copied()` or `.cloned()` it ends with, and whether it had one (the value is read by
/// value).
fn copied_receiver(r: &Expr) -> (&Expr, bool) {
    match strip_parens(r) {
        Expr::MethodCall(c)
            if matches!(c.method.to_string().as_str(), "copied" | "cloned")
                && c.args.is_empty()
                && c.turbofish.is_none() =>
        {
            (strip_parens(&c.receiver), true)
        }
        other => (other, false),
    }
}

// Input:  *x.last().unwrap()      x.first().copied().unwrap()      x.last().expect("empty")
// Output: x[x.len() - 1]           x[0]                             &x[x.len() - 1]
/// The element `x.last()` or `x.first()` unwrapped (`.unwrap()`, `.expect(..)`, maybe after `.copied()` or
/// `.cloned()`) reads, of a slice, array or `Vec` named by a place without effects or a sub-slice of one
/// ([`reread`]) (`x`, `self.w`, `x[1..]`, `x[1..n - 1]`,
/// `m[i]`): the element by index, by reference where the `Option` held one. An empty `x` panics where
/// `unwrap` would: `x.len() - 1` overflows (or, with overflow checks off, the index is out of bounds),
/// `x[0]` is out of bounds.
fn end_element(m: &syn::ExprMethodCall) -> Option<Expr> {
    if m.turbofish.is_some() || m.args.len() > usize::from(m.method == "expect") {
        return None;
    }
    let (option, by_value) = copied_receiver(&m.receiver);
    let Expr::MethodCall(end) = option else {
        return None;
    };
    if !end.args.is_empty() || end.turbofish.is_some() {
        return None;
    }
    let (window, x) = reread(&end.receiver)?;
    let x = &x;
    let index: Expr = match end.method.to_string().as_str() {
        "first" => syn::parse_quote_spanned!(end.method.span()=> 0),
        "last" => syn::parse_quote_spanned!(end.method.span()=> #x.len() - 1),
        _ => return None,
    };
    Some(element(window, x, &index, by_value, end.method.span()))
}

// Input:  xs[1..n - 1]                                   x[1..]
// Output: let __window = &xs[1..n - 1];   and  __window   (nothing)  and  x[1..]
/// `x`, a receiver that a rewrite reads several times (`x.len()`, `x[best]`), as it may be read so: itself
/// where it is a [`pure_window`]; a sub-slice of a place without effects whose bounds are computed
/// (`xs[1..n - 1]`) bound once to a hidden name, the `let` that binds it first, so that its bounds are
/// evaluated once, where the user's code evaluates them, and panic there. `None` for any other receiver.
fn reread(x: &Expr) -> Option<(Option<Stmt>, Expr)> {
    if pure_window(x) {
        return Some((None, x.clone()));
    }
    let Expr::Index(i) = strip_parens(x) else {
        return None;
    };
    if !matches!(strip_parens(&i.index), Expr::Range(_)) || !pure_place(&i.expr) {
        return None;
    }
    let window = syn::Ident::new("__window", Span::mixed_site());
    Some((
        Some(syn::parse_quote!(let #window = &#x;)),
        syn::parse_quote!(#window),
    ))
}

// Input:  (`x`, `__window` of `xs[1..n - 1]`, an index `i`)
// Output: x[i]  or  &x[i]      { let __window = &xs[1..n - 1]; __window[i] }  or  &{ .. }
/// The element of `x` at `index`, after `window` (of [`reread`]) where there is one; by reference unless
/// `by_value`, then to the element's value (the macro reads elements, not references to them).
fn element(window: Option<Stmt>, x: &Expr, index: &Expr, by_value: bool, span: Span) -> Expr {
    match (window, by_value) {
        (None, true) => syn::parse_quote_spanned!(span=> #x[#index]),
        (None, false) => syn::parse_quote_spanned!(span=> &#x[#index]),
        (Some(window), true) => syn::parse_quote_spanned!(span=> { #window #x[#index] }),
        (Some(window), false) => syn::parse_quote_spanned!(span=> &{ #window #x[#index] }),
    }
}

/// Is `e` a place without effects ([`pure_place`]) or a sub-slice of one whose bounds are names or literals
/// (`x[1..]`, `self.w[k..n]`, `m[i][..j]`)? Such a receiver is written again at each read the rewrite makes
/// (`x[1..][best]`, `x[1..].len()`), which evaluates the same bounds and panics where the sub-slice would.
fn pure_window(e: &Expr) -> bool {
    let bound = |b: &Option<Box<Expr>>| {
        b.as_deref()
            .is_none_or(|b| matches!(strip_parens(b), Expr::Path(_) | Expr::Lit(_)))
    };
    match strip_parens(e) {
        Expr::Index(i) => match strip_parens(&i.index) {
            Expr::Range(r) => pure_place(&i.expr) && bound(&r.start) && bound(&r.end),
            _ => pure_place(e),
        },
        _ => pure_place(e),
    }
}

/// Is `e` a place read twice as once: a path, a field of one, or an element of one at a path or literal
/// index?
fn pure_place(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => pure_place(&p.expr),
        Expr::Path(p) => p.qself.is_none(),
        Expr::Field(f) => pure_place(&f.base),
        Expr::Index(i) => {
            pure_place(&i.expr) && matches!(strip_parens(&i.index), Expr::Path(_) | Expr::Lit(_))
        }
        _ => false,
    }
}

/// Rewrites `*name` into `name`, and notes whether `name` is read otherwise than as a number (`*name`, an
/// operand of arithmetic or a comparison, a method's receiver): `other`.
struct NumberReads {
    name: syn::Ident,
    other: bool,
}

impl NumberReads {
    fn is_name(&self, e: &Expr) -> bool {
        matches!(strip_parens(e), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.name))
    }
}

impl VisitMut for NumberReads {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && self.is_name(&u.expr) => {
                *expr = (*u.expr).clone();
            }
            Expr::Binary(b) if numeric(&b.op) => {
                if !self.is_name(&b.left) {
                    self.visit_expr_mut(&mut b.left);
                }
                if !self.is_name(&b.right) {
                    self.visit_expr_mut(&mut b.right);
                }
            }
            Expr::MethodCall(m) => {
                if !self.is_name(&m.receiver) {
                    self.visit_expr_mut(&mut m.receiver);
                }
                for arg in &mut m.args {
                    self.visit_expr_mut(arg);
                }
            }
            _ if self.is_name(expr) => self.other = true,
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    // A macro's tokens may read the name in any way.
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        if m.tokens
            .to_string()
            .split_whitespace()
            .any(|t| self.name == t)
        {
            self.other = true;
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Is `stmt` `let name = <..>.unwrap();` (or `.expect(..)`, `.unwrap_or(..)`), a name without a type bound to what an
/// `Option` of a reference may hold?
fn bound_unwrap(stmt: &Stmt) -> bool {
    let Stmt::Local(local) = stmt else {
        return false;
    };
    let named = matches!(&local.pat, Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none());
    named
        && local.init.as_ref().is_some_and(|init| {
            init.diverge.is_none()
                && matches!(strip_parens(&init.expr), Expr::MethodCall(m)
                    if m.method == "unwrap" || m.method == "expect" || m.method == "unwrap_or")
        })
}

/// How `max_by`/`min_by` compare (`Forms::extreme`); `true` where the closure compares its second
/// parameter with its first (`|a, b| b.partial_cmp(a).unwrap()`).
#[derive(Clone, Copy)]
pub(crate) enum Compare {
    /// `max()`, `min()` of integers.
    Ord,
    /// `a.partial_cmp(b).unwrap()`.
    Partial(bool),
    /// `a.total_cmp(b)`.
    Total(bool),
}

impl Compare {
    /// Whether `max_by` (`max`; else `min_by`) with this comparator replaces the element it keeps, `kept`,
    /// by the next one, `new`: as `Iterator::max_by` folds `cmp::max_by`, unless `kept` compares `Greater`
    /// (the last of equal maxima is chosen); for `min_by`, where it does (the first of equal minima).
    pub(crate) fn replaces(self, max: bool, kept: &Expr, new: &Expr) -> Expr {
        let (p, q) = match self {
            Compare::Ord | Compare::Partial(false) | Compare::Total(false) => (kept, new),
            Compare::Partial(true) | Compare::Total(true) => (new, kept),
        };
        // `compare(kept, new) == Greater`.
        let greater: Expr = match self {
            Compare::Ord | Compare::Partial(_) => syn::parse_quote!(#p > #q),
            Compare::Total(_) => syn::parse_quote! {
                (#p.is_nan() && #p.is_sign_positive() && !(#q.is_nan() && #q.is_sign_positive()))
                    || (#q.is_nan() && #q.is_sign_negative() && !(#p.is_nan() && #p.is_sign_negative()))
                    || #p > #q
                    || (#p == #q && #p.is_sign_positive() && #q.is_sign_negative())
            },
        };
        match max {
            true => syn::parse_quote!(!(#greater)),
            false => greater,
        }
    }
}

/// The comparator `arg` of `max_by`/`min_by`, if it is one `Forms::extreme` reads.
pub(crate) fn comparator(arg: &Expr) -> Option<Compare> {
    match strip_parens(arg) {
        // `f64::total_cmp`, `f32::total_cmp`.
        Expr::Path(p) => {
            let names: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            match names
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice()
            {
                ["f64" | "f32", "total_cmp"] if p.qself.is_none() => Some(Compare::Total(false)),
                _ => None,
            }
        }
        Expr::Closure(c) => {
            let Comparison {
                partial,
                params: (a, b),
                compared: (p, q),
            } = comparison(c)?;
            // `p`, `&p`, `*p`: the parameter named.
            let named = |e: &Expr| -> Option<syn::Ident> {
                match strip_parens(e) {
                    Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
                    Expr::Reference(r) if r.mutability.is_none() => match strip_parens(&r.expr) {
                        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
                        _ => None,
                    },
                    Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                        match strip_parens(&u.expr) {
                            Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            };
            let (p, q) = (named(&p)?, named(&q)?);
            let reversed = if p == a && q == b {
                false
            } else if p == b && q == a {
                true
            } else {
                return None;
            };
            Some(match partial {
                true => Compare::Partial(reversed),
                false => Compare::Total(reversed),
            })
        }
        _ => None,
    }
}

/// A comparator closure of two parameters, `|a, b| p.partial_cmp(&q).unwrap()` or `|a, b| p.total_cmp(&q)`
/// (its body in a block or not): whether it is the former, its parameters' names, and what it compares
/// (`p`, and `q` without its `&`). `comparator` reads the elements compared themselves from it, and
/// `sorts::keyed` a key of each (`x[i]`, `a.abs()`).
pub(crate) struct Comparison {
    pub(crate) partial: bool,
    pub(crate) params: (syn::Ident, syn::Ident),
    pub(crate) compared: (Expr, Expr),
}

// Input:  |a, b| b.partial_cmp(a).unwrap()           |&i, &j| x[i].total_cmp(&x[j])
// Output: Comparison { partial: true, params: (a, b), compared: (b, a) }
//         Comparison { partial: false, params: (i, j), compared: (x[i], x[j]) }
/// The [`Comparison`] closure `c` is, if it is one.
pub(crate) fn comparison(c: &syn::ExprClosure) -> Option<Comparison> {
    if c.inputs.len() != 2 || c.capture.is_some() {
        return None;
    }
    // `a`, `&a`, `a: &f64`: the name bound.
    let param = |p: &Pat| -> Option<syn::Ident> {
        let ident = |p: &Pat| match p {
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => Some(i.ident.clone()),
            _ => None,
        };
        match p {
            Pat::Reference(r) => ident(&r.pat),
            Pat::Type(t) => ident(&t.pat),
            other => ident(other),
        }
    };
    let (a, b) = (param(&c.inputs[0])?, param(&c.inputs[1])?);
    if a == b {
        return None;
    }
    let body = match strip_parens(&c.body) {
        Expr::Block(b) if b.block.stmts.len() == 1 && b.label.is_none() => {
            match &b.block.stmts[0] {
                Stmt::Expr(e, None) => e,
                _ => return None,
            }
        }
        other => other,
    };
    let (call, partial) = match strip_parens(body) {
        Expr::MethodCall(u) if u.method == "unwrap" && u.args.is_empty() => {
            (strip_parens(&u.receiver), true)
        }
        other => (other, false),
    };
    let Expr::MethodCall(call) = call else {
        return None;
    };
    let expected = if partial { "partial_cmp" } else { "total_cmp" };
    if call.method != expected || call.args.len() != 1 || call.turbofish.is_some() {
        return None;
    }
    let p = strip_parens(&call.receiver).clone();
    let q = match strip_parens(&call.args[0]) {
        Expr::Reference(r) if r.mutability.is_none() => strip_parens(&r.expr).clone(),
        other => other.clone(),
    };
    Some(Comparison {
        partial,
        params: (a, b),
        compared: (p, q),
    })
}

/// `e` without the `&` of a shared reference: the value std's reference arithmetic reads.
fn without_reference(e: &mut Expr) {
    while let Expr::Reference(r) = e {
        if r.mutability.is_some() {
            return;
        }
        *e = paren(&r.expr);
    }
}

/// `e` in parentheses unless it is a path, a literal or already parenthesized.
fn paren(e: &Expr) -> Expr {
    match e {
        Expr::Path(_) | Expr::Lit(_) | Expr::Paren(_) | Expr::Index(_) | Expr::Field(_) => {
            e.clone()
        }
        other => syn::parse_quote!((#other)),
    }
}

/// Does `op` take two numbers and compute one (or compare them), an operation std also gives references?
fn numeric(op: &BinOp) -> bool {
    !matches!(op, BinOp::And(_) | BinOp::Or(_))
}

impl VisitMut for Forms {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(block.stmts.len());
        // The `let`s that bind an element by reference, unwrapped (below).
        let mut by_reference: Vec<usize> = Vec::new();
        for mut stmt in std::mem::take(&mut block.stmts) {
            let unwrapped = bound_unwrap(&stmt);
            self.visit_stmt_mut(&mut stmt);
            if let (true, Stmt::Local(local)) = (unwrapped, &stmt) {
                // (`&x[i]`, or `&{ .. }` of `.unwrap_or(&d)`, `Forms::or_default`.)
                let element = local.init.as_ref().is_some_and(|init| {
                    matches!(&*init.expr, Expr::Reference(r)
                        if r.mutability.is_none() && matches!(&*r.expr, Expr::Index(_) | Expr::Block(_)))
                });
                if element {
                    by_reference.push(stmts.len());
                }
            }
            // `let Some(v) = s.pop() else { .. };`: the `else` where `s` is empty, then the pop.
            if let Some(split) = popped_else(&stmt) {
                stmts.extend(split);
                continue;
            }
            // `s.pop();`: the last element, if any, dropped.
            if let Stmt::Expr(Expr::MethodCall(pop), Some(_)) = &stmt {
                let cond: Expr = syn::parse_quote!(let Some(_) = #pop);
                if let Some((test, bind)) = popped(&cond) {
                    stmts.push(syn::parse_quote!(if #test { #bind }));
                    continue;
                }
            }
            match self.split_at(&stmt) {
                Some(split) => stmts.extend(split),
                None => stmts.push(stmt),
            }
        }
        // `let m = x.iter().max_by(..).unwrap();` binds a reference to the element, which nothing can
        // write while it lives: where the statements after read `m` only as a number (`*m`, an operand
        // of arithmetic, a method's receiver), it is bound to the element's value, and `*m` is `m`.
        for at in by_reference {
            let (before, after) = stmts.split_at_mut(at + 1);
            let Stmt::Local(local) = &mut before[at] else {
                continue;
            };
            let Pat::Ident(name) = &local.pat else {
                continue;
            };
            let mut reads = NumberReads {
                name: name.ident.clone(),
                other: false,
            };
            let mut rest = after.to_vec();
            for stmt in &mut rest {
                reads.visit_stmt_mut(stmt);
            }
            let mut bound = Bindings::default();
            for stmt in &rest {
                syn::visit::Visit::visit_stmt(&mut bound, stmt);
            }
            if reads.other || bound.0.iter().any(|b| name.ident == *b) {
                continue;
            }
            if let Some(init) = &mut local.init {
                if let Expr::Reference(r) = &*init.expr {
                    init.expr = r.expr.clone();
                }
            }
            after.clone_from_slice(&rest);
        }
        block.stmts = stmts;
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // `vec![&a * &b; n]`: the macro's arguments are expressions too.
        if let Expr::Macro(m) = expr {
            if m.mac.path.is_ident("vec") {
                crate::chains::rewrite_vec_args(&mut m.mac, |arg| self.visit_expr_mut(arg));
                return;
            }
        }
        visit_mut::visit_expr_mut(self, expr);
        match expr {
            Expr::ForLoop(f) => {
                let mut lets = Vec::new();
                self.hoist_arrays(&mut f.expr, &mut lets);
                if !lets.is_empty() {
                    let f = f.clone();
                    *expr = syn::parse_quote!({ #(#lets)* #f });
                }
            }
            Expr::MethodCall(m) if TERMINALS.contains(&m.method.to_string().as_str()) => {
                let mut lets = Vec::new();
                self.hoist_arrays(&mut m.receiver, &mut lets);
                if !lets.is_empty() {
                    let m = m.clone();
                    *expr = syn::parse_quote!({ #(#lets)* #m });
                }
            }
            Expr::If(i) => {
                if let Some((test, bind)) = popped(&i.cond) {
                    *i.cond = test;
                    i.then_branch.stmts.insert(0, bind);
                }
            }
            Expr::While(w) => {
                if let Some((test, bind)) = popped(&w.cond) {
                    *w.cond = test;
                    w.body.stmts.insert(0, bind);
                }
            }
            Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "unwrap" | "expect") => {
                if let Some(read) = end_element(m).or_else(|| self.extreme(m)) {
                    *expr = read;
                }
            }
            Expr::MethodCall(m) if m.method == "unwrap_or" => {
                if let Some(read) = self.or_default(m) {
                    *expr = read;
                }
            }
            // `x.first().unwrap().sin()`, `(&x[0]).sin()`: a method call's receiver is dereferenced
            // until the method is found, and a number's or a row's methods take it by value or by `&`.
            Expr::MethodCall(m)
                if m.method != "into_iter"
                    && matches!(&*m.receiver, Expr::Reference(r)
                        if r.mutability.is_none() && matches!(&*r.expr, Expr::Index(_))
                            && pure_place(&r.expr)) =>
            {
                without_reference(&mut m.receiver);
            }
            Expr::Binary(b) if numeric(&b.op) => {
                without_reference(&mut b.left);
                without_reference(&mut b.right);
            }
            // `*&x`, `-&x`.
            Expr::Unary(u) if matches!(&*u.expr, Expr::Reference(r) if r.mutability.is_none()) => {
                match u.op {
                    syn::UnOp::Deref(_) => {
                        let mut inner = (*u.expr).clone();
                        without_reference(&mut inner);
                        *expr = paren(&inner);
                    }
                    syn::UnOp::Neg(_) => without_reference(&mut u.expr),
                    _ => {}
                }
            }
            _ => {}
        }
    }

    // A nested `fn` item is expanded on its own.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `match (a, b, ..) { (p, q, ..) => .., _ => .. }` as `if`s testing each part (see the module's
/// documentation); `None` for any other `match`, or one whose patterns this does not take apart (a rest
/// `..`, a part bound by reference, an arm neither a tuple pattern of as many parts nor `_`), which the
/// fence reports.
pub(crate) fn tuple_match(
    m: &syn::ExprMatch,
    locals: &Locals,
    fresh: &mut dyn FnMut(&str) -> syn::Ident,
) -> Option<Expr> {
    let Expr::Tuple(scrutinee) = strip_parens(&m.expr) else {
        return None;
    };
    let n = scrutinee.elems.len();
    if n == 0 {
        return None;
    }
    // Each arm's cases (`(0, 0) | (1, _)`), each a pattern per part.
    let mut arms = Vec::with_capacity(m.arms.len());
    for arm in &m.arms {
        let cases: Vec<&Pat> = match strip_paren_pat(&arm.pat) {
            Pat::Or(or) => or.cases.iter().map(strip_paren_pat).collect(),
            one => vec![one],
        };
        let mut parts_of_cases: Vec<Vec<Pat>> = Vec::with_capacity(cases.len());
        for case in cases {
            let parts: Vec<Pat> = match case {
                Pat::Wild(_) => vec![syn::parse_quote!(_); n],
                Pat::Tuple(t)
                    if t.elems.len() == n && !t.elems.iter().any(|p| matches!(p, Pat::Rest(_))) =>
                {
                    t.elems.iter().cloned().collect()
                }
                _ => return None,
            };
            if parts.iter().any(has_ref_binding) {
                return None;
            }
            parts_of_cases.push(parts);
        }
        arms.push((parts_of_cases, arm));
    }
    // Each part evaluated once, in order; a local is read as it is (a `let` would move a value that is
    // not `Copy`, which the patterns without bindings do not).
    let mut lets: Vec<Stmt> = Vec::new();
    let names: Vec<syn::Ident> = scrutinee
        .elems
        .iter()
        .map(|part| match strip_parens(part) {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                p.path.get_ident().cloned().unwrap_or_else(|| fresh("part"))
            }
            _ => {
                let name = fresh("part");
                lets.push(syn::parse_quote!(let #name = #part;));
                name
            }
        })
        .collect();
    // Each arm as its test (`None` where it matches whatever is left) and its body.
    let mut chosen: Vec<(Option<TokenStream>, TokenStream)> = Vec::new();
    for (cases, arm) in arms {
        let several = cases.len() > 1;
        let mut case_tests: Vec<Option<TokenStream>> = Vec::new();
        let mut bindings: Vec<Stmt> = Vec::new();
        for parts in &cases {
            let mut tests: Vec<TokenStream> = Vec::new();
            for (part, name) in parts.iter().zip(&names) {
                let (pat, binds) = unbind(part, name, locals);
                // The cases of an or-pattern bind the same names, from parts this does not line up.
                if several && !binds.is_empty() {
                    return None;
                }
                bindings.extend(binds);
                if !irrefutable(&pat) {
                    tests.push(part_test(&pat, name));
                }
            }
            case_tests.push((!tests.is_empty()).then(|| quote!(#(#tests)&&*)));
        }
        // A case that matches everything makes the arm's pattern do so.
        let pattern_test = match case_tests.iter().any(Option::is_none) {
            true => None,
            false if several => {
                let cases = case_tests.into_iter().flatten();
                Some(quote!((#((#cases))||*)))
            }
            false => case_tests.into_iter().flatten().next(),
        };
        let mut tests: Vec<TokenStream> = pattern_test.into_iter().collect();
        if let Some((_, guard)) = &arm.guard {
            tests.push(quote!({ #(#bindings)* #guard }));
        }
        let body = &arm.body;
        let body = quote!({ #(#bindings)* #body });
        let test = (!tests.is_empty()).then(|| quote!(#(#tests)&&*));
        let last = test.is_none();
        chosen.push((test, body));
        if last {
            break;
        }
    }
    // The last arm is reached where every other failed: rustc's check of the function proves that it
    // then matches (a guarded last arm is never reached at all).
    let (_, mut rest) = chosen.pop()?;
    for (test, body) in chosen.into_iter().rev() {
        let test = test.unwrap_or_else(|| quote!(true));
        rest = quote!(if #test #body else #rest);
    }
    let attrs = &m.attrs;
    Some(syn::parse_quote!(#(#attrs)* { #(#lets)* #rest }))
}

/// The test that `name` matches `pat` (a pattern without bindings): `name` itself for `true`, `!name`
/// for `false`, else a `match` giving a `bool`.
fn part_test(pat: &Pat, name: &syn::Ident) -> TokenStream {
    if let Pat::Lit(syn::ExprLit {
        lit: syn::Lit::Bool(b),
        ..
    }) = pat
    {
        return if b.value {
            quote!(#name)
        } else {
            quote!((!#name))
        };
    }
    quote!((match #name { #pat => true, _ => false }))
}

fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip_parens(&p.expr),
        other => other,
    }
}

fn strip_paren_pat(pat: &Pat) -> &Pat {
    match pat {
        Pat::Paren(p) => strip_paren_pat(&p.pat),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn rewrite(src: &str) -> String {
        let mut block: syn::Block = syn::parse_str(src).unwrap();
        desugar(&mut block);
        block.to_token_stream().to_string()
    }

    fn tuple(src: &str) -> String {
        let m: syn::ExprMatch = syn::parse_str(src).unwrap();
        let mut counter = 0usize;
        let mut fresh = |what: &str| {
            counter += 1;
            format_ident!("__{}_{}", what, counter)
        };
        tuple_match(&m, &Locals::default(), &mut fresh)
            .map(|e| e.to_token_stream().to_string())
            .unwrap_or_default()
    }

    #[test]
    fn pops_and_ends_with_defaults_are_branches() {
        let out = rewrite(
            "{ let Some(v) = s.pop() else { return 0.0; }; let t = s.pop().unwrap_or(s[0]); \
               let a = x.last().copied().unwrap_or(1.0); let b = y.first().unwrap_or(&x[0]); }",
        );
        assert!(
            out.contains(
                "if ! s . is_empty () { } else { return 0.0 ; } let v = s . pop () . unwrap () ;"
            ),
            "{out}"
        );
        assert!(out.contains("let t = if s . is_empty () { s [0] } else { let __popped_1 = s . pop () . unwrap () ; let _ = s [0] ; __popped_1 } ;"), "{out}");
        assert!(out.contains("let a = { let __default_2 = 1.0 ; if x . is_empty () { __default_2 } else { x [x . len () - 1] } } ;"), "{out}");
        // By reference, bound and read as a number below: the value.
        assert!(out.contains("let b = { let __default_3 = x [0] ; if y . is_empty () { __default_3 } else { y [0] } } ;"), "{out}");
        // Of a sub-slice with plain bounds too.
        let out = rewrite("{ let a = x[1..].last().copied().unwrap_or(0.0); }");
        assert!(out.contains("if x [1 ..] . is_empty () { __default_1 } else { x [1 ..] [x [1 ..] . len () - 1] }"), "{out}");
        // Of a sub-slice with computed bounds: the sub-slice bound once, first.
        let out = rewrite("{ let a = x[1..n - 1].last().copied().unwrap_or(0.0); }");
        assert!(out.contains("let a = { let __window = & x [1 .. n - 1] ; let __default_1 = 0.0 ; if __window . is_empty () { __default_1 } else { __window [__window . len () - 1] } } ;"), "{out}");
        // Not of a named place, or another default form: left to the lowering, which reports it.
        let out = rewrite("{ let a = f(x)[1..].last().copied().unwrap_or(0.0); let b = s.pop().unwrap_or_default(); }");
        assert!(
            out.contains("unwrap_or (0.0)") && out.contains("unwrap_or_default ()"),
            "{out}"
        );
    }

    #[test]
    fn an_array_literal_iterated_is_made_first() {
        let out = rewrite("{ for u in [x, y] { s += u; } for &v in &[a; 3] { s += v; } }");
        assert!(
            out.contains("let __items_1 = [x , y] ; for u in __items_1"),
            "{out}"
        );
        assert!(
            out.contains("let __items_2 = [a ; 3] ; for & v in & __items_2"),
            "{out}"
        );
        let out =
            rewrite("{ let s: f64 = [x, y].iter().zip([a, b].iter()).map(|(p, q)| p * q).sum(); }");
        assert!(
            out.contains("let __items_1 = [x , y] ; let __items_2 = [a , b] ; __items_1 . iter () . zip (__items_2 . iter ())"),
            "{out}"
        );
        // An array indexed or measured is no iteration.
        let out = rewrite("{ let n = [x, y].len(); }");
        assert!(!out.contains("__items"), "{out}");
    }

    #[test]
    fn arithmetic_on_references_is_on_the_values() {
        let out = rewrite("{ let z = &x * &y + *&x - &a[i] * -&b; s += &z; }");
        assert_eq!(out, "{ let z = x * y + x - a [i] * - b ; s += z ; }",);
        // Not `&&`, nor a `&mut`.
        let out = rewrite("{ let c = p && q; g(&mut v); }");
        assert_eq!(out, "{ let c = p && q ; g (& mut v) ; }");
    }

    #[test]
    fn a_row_of_a_deep_array_is_read_from_the_parameter() {
        let rows = |sig: &str, body: &str| {
            let sig: syn::Signature = syn::parse_str(sig).unwrap();
            let mut block: syn::Block = syn::parse_str(body).unwrap();
            nested_rows(&mut block, &sig);
            block.to_token_stream().to_string()
        };
        let out = rows(
            "fn f(m: &[[[f64; 2]; 3]; 4], k: usize) -> f64",
            "{ let row = m[k + 1]; row[0][1] * row.len() as f64 }",
        );
        assert_eq!(
            out,
            "{ let __row_index_1 : usize = k + 1 ; \
             assert ! (__row_index_1 < m . len () , \"index out of bounds\") ; \
             m [__row_index_1] [0] [1] * m [__row_index_1] . len () as f64 }"
        );
        // A matrix's row, a `mut` row, a row name bound twice: left as written.
        for (sig, body) in [
            (
                "fn f(m: &[[f64; 2]; 3]) -> f64",
                "{ let row = m[0]; row[1] }",
            ),
            (
                "fn f(m: &[[[f64; 2]; 3]]) -> f64",
                "{ let mut row = m[0]; row[1][0] }",
            ),
            (
                "fn f(m: &[[[f64; 2]; 3]]) -> f64",
                "{ let row = m[0]; let row = 1.0; row }",
            ),
            (
                "fn f(m: &[[[f64; 2]; 3]]) -> f64",
                "{ let row = m[0]; assert!(row[0][0] > 0.0); row[1][0] }",
            ),
        ] {
            assert!(rows(sig, body).contains("let"), "{sig} {body}");
            assert!(!rows(sig, body).contains("__row_index"), "{sig} {body}");
        }
    }

    #[test]
    fn a_pop_tested_by_if_let_or_while_let_is_a_test_of_emptiness() {
        let out = rewrite(
            "{ while let Some(v) = s.pop() { a += v; } if let Some(mut w) = s.pop() { w += 1.0; } s.pop(); }",
        );
        assert_eq!(
            out,
            "{ while ! s . is_empty () { let v = s . pop () . unwrap () ; a += v ; } \
             if ! s . is_empty () { let mut w = s . pop () . unwrap () ; w += 1.0 ; } \
             if ! s . is_empty () { let _ = s . pop () . unwrap () ; } }"
        );
        // Of a field, or another pattern: left to the lowering.
        let out =
            rewrite("{ while let Some(v) = self.s.pop() { } if let Some((a, b)) = s.pop() { } }");
        assert!(!out.contains("is_empty"), "{out}");
    }

    #[test]
    fn max_by_and_min_by_are_the_element_at_the_index_a_loop_finds() {
        let out =
            rewrite("{ let m = *x.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap(); }");
        assert_eq!(
            out,
            "{ let m = x [{ let mut __best_1 : usize = 0 ; for __next_2 in 1 .. x . len () { \
             assert ! (x [__best_1] == x [__best_1] && x [__next_2] == x [__next_2] , \
             \"called `Option::unwrap()` on a `None` value\") ; \
             if ! (x [__best_1] > x [__next_2]) { __best_1 = __next_2 ; } } __best_1 }] ; }"
        );
        // `min_by` takes the next where the kept one compares `Greater`; a reversed comparator swaps them.
        let out = rewrite(
            "{ let m = x.iter().copied().min_by(|a, b| b.partial_cmp(a).unwrap()).unwrap(); }",
        );
        assert!(out.contains("if x [__next_2] > x [__best_1] {"), "{out}");
        // Of a sub-slice with plain bounds, written again at each read; one with computed bounds bound once,
        // first.
        let out = rewrite("{ let m = *x[1..k].iter().max_by(|a, b| a.total_cmp(b)).unwrap(); }");
        assert!(
            out.contains("for __next_2 in 1 .. x [1 .. k] . len ()"),
            "{out}"
        );
        let out =
            rewrite("{ let m = *x[1..k + 1].iter().max_by(|a, b| a.total_cmp(b)).unwrap(); }");
        assert!(
            out.starts_with("{ let m = ({ let __window = & x [1 .. k + 1] ; __window [{")
                && out.contains("for __next_2 in 1 .. __window . len ()"),
            "{out}"
        );
        let out = rewrite("{ let m = *f(x)[1..].iter().max_by(|a, b| a.total_cmp(b)).unwrap(); }");
        assert!(out.contains("max_by"), "{out}");
        let out = rewrite("{ let m = *x[1..].last().unwrap(); }");
        assert_eq!(out, "{ let m = x [1 ..] [x [1 ..] . len () - 1] ; }");
        // A reference bound and read as a number is the value.
        let out = rewrite("{ let m = x.iter().max().unwrap(); s += *m; }");
        assert!(out.starts_with("{ let m = x [{"), "{out}");
        assert!(out.ends_with("s += m ; }"), "{out}");
        // Passed on as a reference: left a reference (the lowering reports it).
        let out = rewrite("{ let m = x.iter().max().unwrap(); g(m); }");
        assert!(out.starts_with("{ let m = & x [{"), "{out}");
        // Another comparator: left to the chains, which report it.
        let out = rewrite("{ let m = x.iter().max_by(|a, b| cmp(a, b)).unwrap(); }");
        assert!(out.contains("max_by"), "{out}");
    }

    #[test]
    fn split_at_binds_the_two_sub_slices() {
        let out = rewrite("{ let (l, r) = x.split_at(m + 1); let (_, t) = self.w.split_at(2); }");
        assert_eq!(
            out,
            "{ let __mid_1 : usize = m + 1 ; let l = & x [.. __mid_1] ; let r = & x [__mid_1 ..] ; \
             let __mid_2 : usize = 2 ; let t = & self . w [__mid_2 ..] ; }"
        );
        // Of anything but a named slice: left to the lowering, which reports it.
        assert!(rewrite("{ let (l, r) = f(x).split_at(1); }").contains("split_at"));
    }

    #[test]
    fn a_tuple_match_tests_each_part_arm_after_arm() {
        let out = tuple("match (k, j + 1) { (0, 0) => a, (0, n) if n > 2 => b(n), _ => c }");
        assert_eq!(
            out,
            "{ let __part_1 = j + 1 ; \
             if (match k { 0 => true , _ => false }) && (match __part_1 { 0 => true , _ => false }) { a } \
             else if (match k { 0 => true , _ => false }) && { let n = __part_1 ; n > 2 } { let n = __part_1 ; b (n) } \
             else { c } }"
        );
        let out = tuple("match (a > b, c) { (true, true) => 1.0, (true, false) | (false, true) => 2.0, _ => 3.0 }");
        assert_eq!(
            out,
            "{ let __part_1 = a > b ; if __part_1 && c { 1.0 } \
             else if ((__part_1 && (! c)) || ((! __part_1) && c)) { 2.0 } else { 3.0 } }"
        );
        // The last arm is what is left, whatever its pattern.
        let out = tuple("match (k, j) { (0, _) => a, (_, 1..=3) => b }");
        assert_eq!(
            out,
            "{ if (match k { 0 => true , _ => false }) { a } else { b } }"
        );
    }

    #[test]
    fn a_tuple_match_it_does_not_take_apart_is_left_to_the_fence() {
        assert_eq!(tuple("match (k, j) { (0, ..) => a, _ => b }"), "");
        assert_eq!(tuple("match (k, j) { (ref n, _) => a, _ => b }"), "");
        assert_eq!(tuple("match t { (0, 1) => a, _ => b }"), "");
        assert_eq!(tuple("match (k, j) { (0, n) | (n, 0) => n, _ => b }"), "");
        // A part's own pattern is the fence's to judge.
        assert!(!tuple("match (k, j) { ((0, 1), _) => a, _ => b }").is_empty());
    }
}
