//! Matrices of integers or flags as data (`tris: &[[usize; 3]]`, `edges: &[[usize; 2]]`, `nbrs:
//! &[Vec<usize>]`): parameters that are never active, read by index (`Lowering::element_or_row`). This pass
//! rewrites each loop over one, over a row of one (`nbrs[i].iter()`, `&nbrs[i]`), or over a name bound to
//! such a row (`let row = &nbrs[i];`, a row bound by an earlier loop) into a loop over its indexes that
//! binds the element by index at the top of each iteration, as Rust would have bound it.
//!
//! ```text
//! // Input:                                     // Output:
//! for &[a, b] in edges {                        for __k in 0..edges.len() {
//!     s += x[a] * x[b];                             let a = edges[__k][0];
//! }                                                 let b = edges[__k][1];
//! for (t, tri) in tris.iter().enumerate() {         s += x[a] * x[b];
//!     s += w[t] * x[tri[0]];                    }
//! }                                             for __k in 0..tris.len() {
//! for &j in nbrs[i].iter() {                        let t = __k;
//!     s += x[j];                                    let tri = &tris[__k];
//! }                                                 s += w[t] * x[tri[0]];
//!                                               }
//!                                               for __k in 0..nbrs[i].len() {
//!                                                   let j = nbrs[i][__k];
//!                                                   s += x[j];
//!                                               }
//! ```
//!
//! It runs after `chains.rs`, so `edges.iter().map(|e| x[e[0]] * x[e[1]]).sum()` reaches it as such a loop.

use crate::tuple_data::{strip, Undereference};
use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Type};

/// The name of the integer (or `bool`) element of `ty` where `ty` is a matrix (or deeper) of them
/// (`&[[usize; 3]]`, `&[Vec<usize>]`, `Vec<[u32; 2]>`, `[[bool; 2]; 4]`), with its depth of nesting.
pub(crate) fn integer_matrix_type(ty: &Type) -> Option<(String, usize)> {
    let depth = crate::signature::nesting_depth(ty);
    if depth < 2 {
        return None;
    }
    let mut inner = ty;
    loop {
        inner = match inner {
            Type::Reference(r) => &r.elem,
            Type::Paren(p) => &p.elem,
            Type::Slice(s) => &s.elem,
            Type::Array(a) => &a.elem,
            other => match crate::signature::vec_element(other) {
                Some(elem) => elem,
                None => break,
            },
        };
    }
    let Type::Path(p) = inner else {
        return None;
    };
    let element = p.path.get_ident()?.to_string();
    if element != "bool" && !crate::shadow::INTEGERS.contains(&element.as_str()) {
        return None;
    }
    Some((element, depth))
}

/// Rewrites the loops over the integer-matrix parameters of `item` (and their rows) into loops over
/// indexes; a loop over one that binds its elements by a pattern this does not know is a spanned error.
pub(crate) fn desugar(
    item: &mut syn::ItemFn,
    temporaries: &mut usize,
    errors: &mut crate::errors::Errors,
) {
    let names: Vec<(syn::Ident, usize)> = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) => integer_matrix_type(&t.ty).map(|(_, d)| (p.ident.clone(), d)),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    // Parameter structs (`m: &Mesh`, `self`), whose fields the file may declare as integer matrices.
    let structs: Vec<(syn::Ident, String)> = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match (&*t.pat, struct_type(&t.ty)) {
                (Pat::Ident(p), Some(name)) => Some((p.ident.clone(), name)),
                _ => None,
            },
            syn::FnArg::Receiver(_) => Some((format_ident!("self"), "Self".to_string())),
        })
        .collect();
    if names.is_empty() && structs.is_empty() {
        return;
    }
    Rewrite {
        names,
        structs,
        temporaries,
        errors,
    }
    .visit_block_mut(&mut item.block);
}

struct Rewrite<'a> {
    /// The parameters holding integer matrices, and the locals bound to rows of them, with the depth of
    /// nesting of each (a row of `&[[usize; 3]]` has depth 1). A later binding of a name shadows it.
    names: Vec<(syn::Ident, usize)>,
    /// The parameter structs, by parameter and type name (`Self` for `self`).
    structs: Vec<(syn::Ident, String)>,
    temporaries: &'a mut usize,
    errors: &'a mut crate::errors::Errors,
}

/// What a `for` iterates, read from its iterator expression.
struct Iterated<'e> {
    /// The integer array iterated (`tris`, `nbrs[i]`, `row`).
    array: &'e Expr,
    /// The depth of nesting of the array (1: its elements are integers).
    depth: usize,
    enumerate: bool,
    rev: bool,
    /// `.rev().enumerate()`: the count runs from the last element.
    counted_back: bool,
}

impl Rewrite<'_> {
    /// The depth of `expr` where it is an integer array by name or an element of one (`tris`, `nbrs[i]`).
    fn depth(&self, expr: &Expr) -> Option<usize> {
        match strip(expr) {
            Expr::Path(p) if p.qself.is_none() => {
                let name = p.path.get_ident()?;
                self.names
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map(|(_, d)| *d)
                    .filter(|d| *d > 0)
            }
            Expr::Index(i) if !matches!(strip(&i.index), Expr::Range(_)) => {
                self.depth(&i.expr)?.checked_sub(1).filter(|d| *d > 0)
            }
            // `m.tris` of `m: &Mesh`, whose declaration shows `tris: Vec<[usize; 3]>`.
            Expr::Field(f) => {
                let Expr::Path(p) = strip(&f.base) else {
                    return None;
                };
                let base = p.path.get_ident()?;
                let syn::Member::Named(field) = &f.member else {
                    return None;
                };
                // (A local of the same name shadows the parameter.)
                if self.names.iter().any(|(n, _)| n == base) {
                    return None;
                }
                let (_, ty) = self.structs.iter().find(|(n, _)| n == base)?;
                let declared =
                    crate::context::declared_field_type(ty, &crate::naming::unraw(field))?;
                let declared: Type = syn::parse_str(&declared).ok()?;
                integer_matrix_type(&declared).map(|(_, depth)| depth)
            }
            _ => None,
        }
    }

    /// The integer array a `for` iterates (`tris`, `&tris`, `tris.iter()`, `nbrs[i].iter()`, with
    /// `.enumerate()` and `.rev()`), if any.
    fn iterated<'e>(&self, expr: &'e Expr) -> Option<Iterated<'e>> {
        let method = |e: &'e Expr, name: &str| match strip(e) {
            Expr::MethodCall(m) if m.method == name && m.args.is_empty() => Some(&*m.receiver),
            _ => None,
        };
        let mut iter = strip(expr);
        let (mut enumerate, mut rev, mut counted_back) = (false, false, false);
        if let Some(inner) = method(iter, "rev") {
            rev = true;
            iter = inner;
        }
        if let Some(inner) = method(iter, "enumerate") {
            enumerate = true;
            iter = inner;
            if let Some(inner) = method(iter, "rev") {
                rev = !rev;
                counted_back = true;
                iter = inner;
            }
        }
        let array = match iter {
            Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => strip(&m.receiver),
            Expr::Reference(r) if r.mutability.is_none() => strip(&r.expr),
            other => other,
        };
        let depth = self.depth(array)?;
        Some(Iterated {
            array,
            depth,
            enumerate,
            rev,
            counted_back,
        })
    }

    /// The loop over indexes for `f`, or `None` where its pattern is not one this knows.
    fn counted(&mut self, f: &syn::ExprForLoop, it: &Iterated) -> Option<Expr> {
        let (count, pat) = match (&*f.pat, it.enumerate) {
            (Pat::Tuple(t), true) if t.elems.len() == 2 => (Some(&t.elems[0]), &t.elems[1]),
            (_, true) => return None,
            (pat, false) => (None, pat),
        };
        if let Some(count) = count {
            if !simple(count) {
                return None;
            }
        }
        let (pat, by_reference) = match pat {
            Pat::Reference(r) if r.mutability.is_none() => (&*r.pat, false),
            other => (other, true),
        };
        *self.temporaries += 1;
        let index = format_ident!(
            "__row_index_{}",
            *self.temporaries,
            span = Span::mixed_site()
        );
        let array = it.array;
        let element_depth = it.depth - 1;
        // The names the binding makes, with their depth (rows) and whether reads `*name` become `name`.
        let mut bound: Vec<(syn::Ident, usize)> = Vec::new();
        let mut dereferenced: Vec<syn::Ident> = Vec::new();
        let binding = match pat {
            Pat::Wild(_) => quote!(),
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                let name = &p.ident;
                match (element_depth, by_reference) {
                    // An integer: bound by value, `*j` read as `j`.
                    (0, by_reference) => {
                        if by_reference {
                            dereferenced.push(name.clone());
                        }
                        quote!(let #name = #array[#index];)
                    }
                    // A row: a reference, as Rust binds it (a `Vec` row is not `Copy`).
                    (_, true) => {
                        bound.push((name.clone(), element_depth));
                        quote!(let #name = &#array[#index];)
                    }
                    // `&tri` of a row: a copy (of a fixed-size row; rustc rejects a `Vec` one).
                    (_, false) => {
                        bound.push((name.clone(), element_depth));
                        quote!(let #name = #array[#index];)
                    }
                }
            }
            // `&[a, b, c]` or `[a, b, c]` of a row of integers: each by index.
            Pat::Slice(s) if element_depth == 1 => {
                let mut lets = Vec::new();
                for (j, elem) in s.elems.iter().enumerate() {
                    match elem {
                        Pat::Wild(_) => {}
                        Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                            let name = &p.ident;
                            if by_reference {
                                dereferenced.push(name.clone());
                            }
                            lets.push(quote!(let #name = #array[#index][#j];));
                        }
                        _ => return None,
                    }
                }
                quote!(#(#lets)*)
            }
            _ => return None,
        };
        let count = count.map(|c| match it.counted_back {
            true => quote!(let #c = #array.len() - 1 - #index;),
            false => quote!(let #c = #index;),
        });
        let range = match it.rev {
            true => quote!((0..#array.len()).rev()),
            false => quote!(0..#array.len()),
        };
        let mut body = f.body.clone();
        if !dereferenced.is_empty() {
            Undereference {
                names: &dereferenced,
            }
            .visit_block_mut(&mut body);
        }
        // The loop's rows are rows inside its body (and shadow an outer name of theirs).
        let outer = self.names.len();
        self.names.extend(bound);
        self.visit_block_mut(&mut body);
        self.names.truncate(outer);
        let stmts = &body.stmts;
        let label = &f.label;
        Some(
            syn::parse_quote_spanned!(f.for_token.span=> #label for #index in #range {
                #count
                #binding
                #(#stmts)*
            }),
        )
    }
}

/// The name of the struct `ty` may be (`Mesh` of `&Mesh` or `Mesh`): a path of one segment without
/// arguments (what else it is, the declaration the file shows says).
fn struct_type(ty: &Type) -> Option<String> {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    let Type::Path(tp) = ty else {
        return None;
    };
    let last = tp.path.segments.last()?;
    if tp.qself.is_some() || !matches!(last.arguments, syn::PathArguments::None) {
        return None;
    }
    Some(crate::naming::unraw(&last.ident))
}

/// A name or `_`, bound by value.
fn simple(pat: &Pat) -> bool {
    matches!(pat, Pat::Wild(_))
        || matches!(pat, Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none())
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::ForLoop(f) = &*expr {
            if let Some(it) = self.iterated(&f.expr) {
                // The index expression of a row is read at every iteration: a body that changes a name
                // it reads would read another row.
                let moved = moved_in(&f.body, it.array);
                let rewritten = match &moved {
                    Some(name) => {
                        self.errors.spanned(
                            it.array,
                            format!(
                                "the loop's body changes `{name}`, which the row it iterates is read \
                                 by: iterate over a copy of the index (`let r = {name}; for .. in \
                                 rows[r].iter()`)"
                            ),
                        );
                        None
                    }
                    None => self.counted(f, &it),
                };
                let rewritten = rewritten.unwrap_or_else(|| {
                    if moved.is_none() {
                        self.errors.spanned(
                            &f.pat,
                            "a matrix of integers or flags is iterated with a pattern that names its \
                             rows or elements: `for tri in tris.iter()`, `for &tri in tris`, `for &[a, b] in \
                             edges`, `for (t, tri) in tris.iter().enumerate()`, `for &j in nbrs[i].iter()`; \
                             or by index, `for t in 0..tris.len() { let tri = tris[t]; .. }`",
                        );
                    }
                    let array = it.array;
                    syn::parse_quote_spanned!(f.for_token.span=> for _ in 0..#array.len() {})
                });
                *expr = rewritten;
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let outer = self.names.len();
        for stmt in &mut block.stmts {
            self.visit_stmt_mut(stmt);
            // `let row = &nbrs[i];`, `let tri = tris[t];`: a row by name from here on; any other
            // binding of a name shadows it.
            if let syn::Stmt::Local(local) = stmt {
                let row = local.init.as_ref().and_then(|init| {
                    let value = match strip(&init.expr) {
                        Expr::Reference(r) if r.mutability.is_none() => strip(&r.expr),
                        other => other,
                    };
                    match value {
                        Expr::Index(_) => self.depth(value),
                        _ => None,
                    }
                });
                match (&local.pat, row) {
                    (Pat::Ident(p), Some(depth)) if p.subpat.is_none() && p.by_ref.is_none() => {
                        self.names.push((p.ident.clone(), depth));
                    }
                    (pat, _) => {
                        let mut shadowed = Vec::new();
                        bound_names(pat, &mut shadowed);
                        for name in shadowed {
                            if self.names.iter().any(|(n, _)| *n == name) {
                                // Depth 0: no longer an array by that name.
                                self.names.push((name, 0));
                            }
                        }
                    }
                }
            }
        }
        self.names.truncate(outer);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The names `pat` binds.
fn bound_names(pat: &Pat, out: &mut Vec<syn::Ident>) {
    struct Names<'a>(&'a mut Vec<syn::Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    syn::visit::Visit::visit_pat(&mut Names(out), pat);
}

/// A name that `array`'s indexes read and that `body` assigns or rebinds, if any.
fn moved_in(body: &syn::Block, array: &Expr) -> Option<String> {
    let mut read = Vec::new();
    let mut e = array;
    while let Expr::Index(i) = strip(e) {
        struct Paths<'a>(&'a mut Vec<String>);
        impl<'ast> syn::visit::Visit<'ast> for Paths<'_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if let Some(ident) = p.path.get_ident() {
                    self.0.push(ident.to_string());
                }
            }
        }
        syn::visit::Visit::visit_expr(&mut Paths(&mut read), &i.index);
        e = &i.expr;
    }
    if read.is_empty() {
        return None;
    }
    struct Assigned<'a> {
        read: &'a [String],
        found: Option<String>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Assigned<'_> {
        fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
            self.target(&a.left);
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            if crate::lower::loops::is_compound_assign(&b.op) {
                self.target(&b.left);
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    impl Assigned<'_> {
        fn target(&mut self, e: &Expr) {
            if let Expr::Path(p) = strip(e) {
                if let Some(ident) = p.path.get_ident() {
                    let name = ident.to_string();
                    if self.read.contains(&name) && self.found.is_none() {
                        self.found = Some(name);
                    }
                }
            }
        }
    }
    let mut assigned = Assigned {
        read: &read,
        found: None,
    };
    syn::visit::Visit::visit_block(&mut assigned, body);
    assigned.found
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    /// The body of `item` after the pass, and the errors' messages.
    fn rewrite(item: &str) -> (String, Vec<String>) {
        let mut item: syn::ItemFn = syn::parse_str(item).unwrap();
        let mut errors = crate::errors::Errors::default();
        desugar(&mut item, &mut 0, &mut errors);
        (
            item.block.into_token_stream().to_string(),
            errors.messages(),
        )
    }

    fn squeeze(s: &str) -> String {
        s.split_whitespace().collect()
    }

    #[test]
    fn rows_and_their_elements_are_bound_by_index() {
        let (body, errors) = rewrite(
            "fn f(x: &[f64], edges: &[[usize; 2]], nbrs: &[Vec<usize>]) -> f64 {
                for &[a, _] in edges { s += x[a]; }
                for (e, edge) in edges.iter().enumerate() { s += x[edge[1]] * e as f64; }
                for &j in nbrs[0].iter() { s += x[j]; }
                for j in &nbrs[1] { s += x[*j]; }
                let row = &nbrs[2];
                for &j in row.iter().rev() { s += x[j]; }
                for row in nbrs.iter() { for &k in row { s += x[k]; } }
                s
            }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let body = squeeze(&body);
        for expected in [
            "for__row_index_1in0..edges.len(){leta=edges[__row_index_1][0usize];s+=x[a];}",
            "for__row_index_2in0..edges.len(){lete=__row_index_2;letedge=&edges[__row_index_2];",
            "for__row_index_3in0..nbrs[0].len(){letj=nbrs[0][__row_index_3];s+=x[j];}",
            // `*j` of an element bound by reference: `j`, bound by value.
            "for__row_index_4in0..nbrs[1].len(){letj=nbrs[1][__row_index_4];s+=x[j];}",
            "for__row_index_5in(0..row.len()).rev(){letj=row[__row_index_5];s+=x[j];}",
            // A row bound by the outer loop is iterated by the inner one.
            "letrow=&nbrs[__row_index_6];for__row_index_7in0..row.len(){letk=row[__row_index_7];",
        ] {
            assert!(body.contains(&squeeze(expected)), "{expected}\nin\n{body}");
        }
    }

    #[test]
    fn other_names_and_patterns_are_left_or_refused() {
        // A slice of floats, a name bound again to a float: left as written.
        let (body, errors) = rewrite(
            "fn f(x: &[f64], edges: &[[usize; 2]]) -> f64 {
                for v in x.iter() { s += v; }
                let edges = x;
                for v in edges.iter() { s += v; }
                s
            }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(squeeze(&body).matches("__row_index").count(), 0, "{body}");
        // `&[a, ..]` and a body that changes the row's index: errors.
        let (_, errors) = rewrite(
            "fn f(x: &[f64], tris: &[[usize; 3]], nbrs: &[Vec<usize>]) -> f64 {
                for &[a, ..] in tris { s += x[a]; }
                for &j in nbrs[i].iter() { i += 1; }
                s
            }",
        );
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("iterated with a pattern"), "{errors:?}");
        assert!(errors[1].contains("changes `i`"), "{errors:?}");
    }

    #[test]
    fn integer_matrix_types() {
        let of = |ty: &str| integer_matrix_type(&syn::parse_str(ty).unwrap());
        assert_eq!(of("&[[usize; 3]]"), Some(("usize".to_string(), 2)));
        assert_eq!(of("Vec<Vec<u32>>"), Some(("u32".to_string(), 2)));
        assert_eq!(of("[[bool; 2]; 4]"), Some(("bool".to_string(), 2)));
        assert_eq!(of("&[usize]"), None);
        assert_eq!(of("&[Vec<f64>]"), None);
    }
}
