//! `x.fill(v);`, `x.copy_from_slice(src);` and `x.clone_from_slice(src);` statements, rewritten into the
//! counted loops they are (`for i in 0..x.len() { x[i] = v; }`) before the other passes read the body, so
//! that every later pass (lowering, the views, the generic copy) sees plain indexed writes. The function
//! itself is emitted as written: a length mismatch panics there as in Rust.

use crate::errors::Errors;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// Rewrites the statements of `block`; `temporaries` numbers the loop counters, `errors` gets what writes
/// `&mut` elements in a form this cannot rewrite.
pub(crate) fn desugar(
    block: &mut syn::Block,
    sig: &syn::Signature,
    temporaries: &mut usize,
    errors: &mut Errors,
) {
    Rewrite {
        temporaries,
        errors,
        copies: true,
        vec_rows: vec_row_matrices(sig, block),
    }
    .visit_block_mut(block);
}

/// The parameters and typed locals whose rows are `Vec`s (`&[Vec<T>]`, `&Vec<Vec<T>>`, `Vec<Vec<T>>`):
/// an element of one, which cannot be moved out, is bound by reference (`let row = &rows[i];`) even
/// where the body passes it on bare (`inner(row, x)`, a callee taking `&[T]`), as Rust's iterator
/// hands it out. Rows of nested arrays are `Copy` and may be passed by value, so stay as `rows_of` says.
fn vec_row_matrices(sig: &syn::Signature, block: &syn::Block) -> crate::hash::FastSet<String> {
    fn rows_are_vecs(ty: &syn::Type) -> bool {
        let element = match ty {
            syn::Type::Reference(r) => return rows_are_vecs(&r.elem),
            syn::Type::Paren(p) => return rows_are_vecs(&p.elem),
            syn::Type::Slice(s) => &*s.elem,
            syn::Type::Path(p) => match vec_element(p) {
                Some(e) => e,
                None => return false,
            },
            _ => return false,
        };
        matches!(element, syn::Type::Path(p) if vec_element(p).is_some())
    }
    fn vec_element(p: &syn::TypePath) -> Option<&syn::Type> {
        let last = p.path.segments.last()?;
        if last.ident != "Vec" {
            return None;
        }
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        match args.args.first()? {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }
    }
    struct Typed<'a>(&'a mut crate::hash::FastSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Typed<'_> {
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let syn::Pat::Type(t) = &local.pat {
                if let syn::Pat::Ident(p) = &*t.pat {
                    if rows_are_vecs(&t.ty) {
                        self.0.insert(p.ident.to_string());
                    }
                }
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut names = crate::hash::FastSet::default();
    for input in &sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            if let syn::Pat::Ident(p) = &*t.pat {
                if rows_are_vecs(&t.ty) {
                    names.insert(p.ident.to_string());
                }
            }
        }
    }
    syn::visit::Visit::visit_block(&mut Typed(&mut names), block);
    names
}

// Input:  fn f(x: &[f64; 2], out: &mut [f64; 3]) { *out = [x[0], x[1], 1.0]; }
// Output: fn f(x: &[f64; 2], out: &mut [f64; 3]) { out.copy_from_slice(&[x[0], x[1], 1.0]); }
/// `*out = value;` of an output parameter `out: &mut [T; N]` (an array written whole, as Rust allows): the
/// copy it is, which `desugar` then writes element by element. Left alone where the body binds the
/// parameter's name again (`let out = ..`), and for other types (`*e = ..` of a float output is lowered
/// as written; `*v = vec![..]` of a `&mut Vec<T>` may change its length).
pub(crate) fn array_outputs_assigned(block: &mut syn::Block, sig: &syn::Signature) {
    let outputs: Vec<String> = sig
        .inputs
        .iter()
        .filter_map(|input| {
            let syn::FnArg::Typed(t) = input else {
                return None;
            };
            let syn::Pat::Ident(p) = &*t.pat else {
                return None;
            };
            let syn::Type::Reference(r) = &*t.ty else {
                return None;
            };
            (r.mutability.is_some() && matches!(&*r.elem, syn::Type::Array(_)))
                .then(|| p.ident.to_string())
        })
        .collect();
    if outputs.is_empty() {
        return;
    }
    struct Bound<'a>(&'a [String], bool);
    impl<'ast> syn::visit::Visit<'ast> for Bound<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.1 |= self.0.contains(&p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut bound = Bound(&outputs, false);
    syn::visit::Visit::visit_block(&mut bound, block);
    if bound.1 {
        return;
    }
    struct Assigned<'a>(&'a [String]);
    impl VisitMut for Assigned<'_> {
        fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
            syn::visit_mut::visit_stmt_mut(self, stmt);
            let Stmt::Expr(Expr::Assign(a), Some(_)) = stmt else {
                return;
            };
            let Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(_),
                expr: target,
                ..
            }) = &*a.left
            else {
                return;
            };
            let Expr::Path(p) = &**target else { return };
            if !p
                .path
                .get_ident()
                .is_some_and(|i| self.0.contains(&i.to_string()))
            {
                return;
            }
            let value = &a.right;
            let span = a.eq_token.span;
            *stmt = syn::parse_quote_spanned!(span=> #target.copy_from_slice(&#value););
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    Assigned(&outputs).visit_block_mut(block);
}

/// Rewrites the loops over `&mut` elements of `block` (errors dropped: the pipeline reports them), for the
/// analysis of `incoming.rs`, which reads `out.fill(v)` and `out[a..b].copy_from_slice(src)` as they are
/// written.
pub(crate) fn desugar_element_loops(block: &mut syn::Block) {
    Rewrite {
        temporaries: &mut 0,
        errors: &mut Errors::default(),
        copies: false,
        vec_rows: Default::default(),
    }
    .visit_block_mut(block);
}

struct Rewrite<'a> {
    temporaries: &'a mut usize,
    errors: &'a mut Errors,
    /// Whether `fill`, `copy_from_slice` and `clone_from_slice` are rewritten too.
    copies: bool,
    /// The matrices whose rows are `Vec`s (`vec_row_matrices`).
    vec_rows: crate::hash::FastSet<String>,
}

impl VisitMut for Rewrite<'_> {
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        syn::visit_mut::visit_stmt_mut(self, stmt);
        if let Stmt::Expr(expr, _) = stmt {
            let rewritten = match expr {
                Expr::ForLoop(f) => self.iter_mut_loop(f),
                Expr::MethodCall(m) if m.method == "for_each" => {
                    match for_each_loop(m, self.errors) {
                        // Over `&mut` elements, written by index; over any other, the `for` loop itself
                        // (which `chains.rs` reads next).
                        Some(Ok(f)) => self.iter_mut_loop(&f).or_else(|| Some(Expr::ForLoop(f))),
                        // Reported: nothing more to say about it.
                        Some(Err(())) => Some(syn::parse_quote!({})),
                        None => None,
                    }
                }
                _ => None,
            };
            if let Some(rewritten) = rewritten {
                *stmt = Stmt::Expr(rewritten, None);
                return;
            }
        }
        let Stmt::Expr(Expr::MethodCall(m), Some(_)) = stmt else {
            return;
        };
        // (The analysis reads copies, into sub-slices too, as they are written: `incoming.rs` takes
        // `out[a..b].copy_from_slice(..)` as the run `[a, b)` written.)
        if !self.copies {
            return;
        }
        let method = m.method.to_string();
        if m.args.len() != 1
            || !matches!(
                method.as_str(),
                "fill" | "copy_from_slice" | "clone_from_slice"
            )
            || !(is_place(&m.receiver) || bounds(&m.receiver).is_some())
        {
            return;
        }
        let (lo, hi, target, bounds) = match bounds(&m.receiver) {
            // `w[a..b].fill(v)`: the writes go to `w[a + i]`, the bounds evaluated once and checked
            // against `w` before the loop (`window_len`), as taking the sub-slice does: a receiver out of
            // range panics before any element is written, in every generated item as in the function,
            // not partway through the loop (nor, in a reverse sweep, after adjoints were written).
            Some((target, start, end)) => {
                let lo = self.name("slice_start");
                let hi = self.name("slice_end");
                let start = start.map_or_else(|| quote!(0), |s| quote!(#s));
                let end = end.map_or_else(|| quote!(#target.len()), |e| quote!(#e));
                (
                    quote!(#lo),
                    quote!(#hi),
                    target,
                    quote! {
                        let #lo = #start;
                        let #hi = #lo + ::autodiff::__private::window_len(#target.len(), #lo, #end);
                    },
                )
            }
            None => {
                let target = &*m.receiver;
                (quote!(0), quote!(#target.len()), target, quote!())
            }
        };
        let arg = &m.args[0];
        let index = self.name("slice_write");
        let loop_: Expr = if method == "fill" {
            // The value is evaluated once, before the writes.
            let value = self.name("fill_value");
            syn::parse_quote_spanned!(m.method.span()=> {
                #bounds
                let #value = #arg;
                for #index in #lo..#hi {
                    #target[#index] = #value;
                }
            })
        } else {
            // `&w` and `&w[a..b]` are read by index as `w` and `w[a..b]`.
            let source = match arg {
                Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
                other => other,
            };
            // The source's index: the write's, less the receiver's start where it has one.
            let read = match bounds.is_empty() {
                true => quote!(#index),
                false => quote!(#index - #lo),
            };
            // A sub-slice `w[a..b]` is read in place, `w[a + k]`: its start evaluated once and its
            // bounds checked as taking it does (`window_len`), before the loop, rather than the
            // sub-slice taken in each iteration (whose adjoint was a buffer of its length per iteration).
            let (source_len, source, read, source_start) = match bounds_of_source(source) {
                Some((w, start, end)) => {
                    let from = self.name("copy_from");
                    let len = self.name("copy_source_len");
                    let start = start.map_or_else(|| quote!(0), |s| quote!(#s));
                    let end = end.map_or_else(|| quote!(#w.len()), |e| quote!(#e));
                    (
                        quote!(#len),
                        quote!(#w),
                        quote!(#from + (#read)),
                        quote! {
                            let #from = #start;
                            let #len = ::autodiff::__private::window_len(#w.len(), #from, #end);
                        },
                    )
                }
                // An array made for the copy (`out.copy_from_slice(&[a, b])`, `&[v; 2]`, `&f(x)`,
                // `&vec![..]`): bound to a local first, evaluated once before the writes (as Rust
                // evaluates it before copying), and read by index as a local array is.
                None if matches!(
                    source,
                    Expr::Array(_) | Expr::Repeat(_) | Expr::Call(_) | Expr::Macro(_)
                ) =>
                {
                    let made = self.name("copy_source");
                    (
                        quote!(#made.len()),
                        quote!(#made),
                        read,
                        quote!(let #made = #source;),
                    )
                }
                None => {
                    let source = match source {
                        Expr::Path(_) => quote!(#source),
                        _ => quote!((#source)),
                    };
                    (quote!(#source.len()), source, read, quote!())
                }
            };
            // A length mismatch panics as `copy_from_slice` does.
            let end = self.name("copy_end");
            let checked =
                quote!(let #end = #lo + ::autodiff::__private::copy_len(#hi - #lo, #source_len););
            syn::parse_quote_spanned!(m.method.span()=> {
                #bounds
                #source_start
                #checked
                for #index in #lo..#end {
                    #target[#index] = #source[#read];
                }
            })
        };
        *stmt = Stmt::Expr(loop_, None);
    }
}

impl Rewrite<'_> {
    /// A hygienic temporary `__{base}_{n}`.
    fn name(&mut self, base: &str) -> syn::Ident {
        *self.temporaries += 1;
        format_ident!(
            "__{}_{}",
            base,
            *self.temporaries,
            span = Span::mixed_site()
        )
    }
}

/// A sub-slice `w[a..b]` of a name, read by a copy.
fn bounds_of_source(expr: &Expr) -> Option<(&Expr, Option<&Expr>, Option<&Expr>)> {
    bounds(expr).filter(|(w, ..)| matches!(w, Expr::Path(_)))
}

/// A sub-slice receiver `w[a..b]`, `w[a..]`, `w[..b]` of a place `w`: `w` and the bounds (`..=` is not
/// one: it stays an error).
fn bounds(expr: &Expr) -> Option<(&Expr, Option<&Expr>, Option<&Expr>)> {
    let Expr::Index(i) = expr else { return None };
    let Expr::Range(r) = &*i.index else {
        return None;
    };
    (matches!(r.limits, syn::RangeLimits::HalfOpen(_)) && is_place(&i.expr)).then_some((
        &*i.expr,
        r.start.as_deref(),
        r.end.as_deref(),
    ))
}

/// A receiver the loop can index: a name (`out`, `self.w` is not one) or an element of one (`m[i]`).
/// The name of a path expression (`rows`), or an empty string.
fn path_name(expr: &Expr) -> String {
    match expr {
        Expr::Path(p) => p
            .path
            .get_ident()
            .map_or_else(String::new, ToString::to_string),
        Expr::Paren(p) => path_name(&p.expr),
        _ => String::new(),
    }
}

fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.path.get_ident().is_some(),
        Expr::Index(i) => !matches!(&*i.index, Expr::Range(_)) && is_place(&i.expr),
        Expr::Paren(p) => is_place(&p.expr),
        _ => false,
    }
}

/// `for` loops (and `.for_each(..)` statements) over `&mut` elements of an output (`out.iter_mut()`,
/// `&mut out`, `out[a..b].iter_mut()`, with `.enumerate()` and `.zip(..)` of slices), rewritten into a
/// counted loop that writes by index. Each element read of the other sides is bound by value at the top of
/// an iteration (`*x` of such a name becomes `x`), a row the body reads as an array by reference
/// (`let row = &rows[i];`, `rows_of`); each `*o` of a written element becomes `out[i]`.
///
/// ```text
/// // Input:                                     // Output:
/// for (o, x) in out.iter_mut().zip(xs) {        for __i in 0..usize::min(out.len(), xs.len()) {
///     *o = x * x;                                   let x = xs[__i];
/// }                                                 out[__i] = x * x;
///                                               }
/// ```
impl Rewrite<'_> {
    /// The counted loop of `f`, or `None` where it writes no `&mut` element; an error (and an empty block)
    /// where it does in a form this cannot rewrite.
    fn iter_mut_loop(&mut self, f: &syn::ExprForLoop) -> Option<Expr> {
        let tree = match written_by_name(f) {
            Some(slice) => Some(Tree::Slice(slice)),
            None if mutably_iterated(&f.expr) => Tree::of(&f.expr),
            None => return None,
        };
        let Some(tree) = tree else {
            self.errors.spanned(&f.expr, ITER_MUT_FORMS);
            return Some(syn::parse_quote!({}));
        };
        let index = self.name("element");
        let mut bounds = Vec::new();
        let mut lens = Vec::new();
        let mut binds = Binds {
            rows: rows_of(&f.body),
            ..Binds::default()
        };
        if !self.bind(&tree, &f.pat, &index, &mut bounds, &mut lens, &mut binds) {
            return Some(syn::parse_quote!({}));
        }
        let mut body = f.body.clone();
        let mut substitute = Substitute {
            binds: &binds,
            errors: &mut *self.errors,
        };
        substitute.visit_block_mut(&mut body);
        let shadowed = shadowing(&body, &binds);
        if let Some(name) = shadowed {
            self.errors.spanned(
                &name,
                format!(
                    "`{name}` names an element of the loop's iterator: give this binding another name, \
                     the loop's elements are written by index"
                ),
            );
            return Some(syn::parse_quote!({}));
        }
        let end = lens
            .into_iter()
            .reduce(|a, b| quote!(usize::min(#a, #b)))
            .unwrap_or_else(|| quote!(0));
        let lets = &binds.lets;
        let stmts = &body.stmts;
        let label = &f.label;
        Some(syn::parse_quote_spanned!(f.for_token.span=> {
            #(#bounds)*
            #label for #index in 0..#end {
                #(#lets)*
                #(#stmts)*
            }
        }))
    }

    /// Binds `pat` to the elements of `tree` at `index`: the bounds of sub-slices into `bounds`, each
    /// slice's length into `lens`. False (with an error) where the pattern does not fit.
    fn bind(
        &mut self,
        tree: &Tree,
        pat: &syn::Pat,
        index: &syn::Ident,
        bounds: &mut Vec<TokenStream>,
        lens: &mut Vec<TokenStream>,
        binds: &mut Binds,
    ) -> bool {
        let pat = match pat {
            syn::Pat::Paren(p) => &*p.pat,
            syn::Pat::Type(t) => &*t.pat,
            other => other,
        };
        let pair = |pat: &syn::Pat| match pat {
            syn::Pat::Tuple(t) if t.elems.len() == 2 => {
                Some((t.elems[0].clone(), t.elems[1].clone()))
            }
            _ => None,
        };
        match tree {
            Tree::Enumerate(inner) => {
                let Some((count, rest)) = pair(pat) else {
                    self.errors.spanned(
                        pat,
                        "bind the count and the element with a tuple pattern: `(i, o)`",
                    );
                    return false;
                };
                if !matches!(count, syn::Pat::Wild(_)) {
                    binds.lets.push(quote!(let #count = #index;));
                }
                self.bind(inner, &rest, index, bounds, lens, binds)
            }
            Tree::Zip(left, right) => {
                let Some((a, b)) = pair(pat) else {
                    self.errors.spanned(
                        pat,
                        "bind the two sides of a `.zip(..)` with a tuple pattern: `(o, x)`",
                    );
                    return false;
                };
                self.bind(left, &a, index, bounds, lens, binds)
                    && self.bind(right, &b, index, bounds, lens, binds)
            }
            Tree::Slice(slice) => {
                let target = slice.target;
                let at = match slice.range {
                    Some((start, end)) => {
                        let lo = self.name("slice_start");
                        let hi = self.name("slice_end");
                        let start = start.map_or_else(|| quote!(0), |s| quote!(#s));
                        let end = end.map_or_else(|| quote!(#target.len()), |e| quote!(#e));
                        bounds.push(quote!(let #lo = #start; let #hi = #end;));
                        lens.push(quote!((#hi - #lo)));
                        quote!((#lo + #index))
                    }
                    None => {
                        lens.push(quote!(#target.len()));
                        quote!(#index)
                    }
                };
                let place: Expr = syn::parse_quote!(#target[#at]);
                match (slice.how, pat) {
                    (_, syn::Pat::Wild(_)) => true,
                    (Access::Write, syn::Pat::Ident(p))
                        if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
                    {
                        binds.written.push((p.ident.clone(), place));
                        true
                    }
                    (Access::Write, other) => {
                        self.errors.spanned(
                            other,
                            "bind each `&mut` element to a name (`o`) and write it as `*o = ..`",
                        );
                        false
                    }
                    // A reference: `&x` binds the value, `x` binds it too (its `*x` is `x`).
                    (Access::Reference, syn::Pat::Reference(r)) => {
                        let inner = &r.pat;
                        binds.lets.push(quote!(let #inner = #place;));
                        true
                    }
                    // A row of a matrix (`rows: &[Vec<f64>]`), which may not be `Copy`: borrowed, as a
                    // window of it.
                    (Access::Reference, syn::Pat::Ident(p))
                        if p.by_ref.is_none()
                            && p.subpat.is_none()
                            && p.mutability.is_none()
                            && (binds.rows.contains(&p.ident.to_string())
                                || self.vec_rows.contains(&path_name(target))) =>
                    {
                        binds.lets.push(quote!(let #p = &#place;));
                        true
                    }
                    (Access::Reference, syn::Pat::Ident(p))
                        if p.by_ref.is_none() && p.subpat.is_none() =>
                    {
                        binds.lets.push(quote!(let #p = #place;));
                        binds.by_value.push(p.ident.clone());
                        true
                    }
                    (Access::Value, other) => {
                        binds.lets.push(quote!(let #other = #place;));
                        true
                    }
                    (Access::Reference, other) => {
                        self.errors.spanned(
                            other,
                            "bind each element of this side to a name (`x`) or `&x`",
                        );
                        false
                    }
                }
            }
        }
    }
}

const ITER_MUT_FORMS: &str = "this iterator over `&mut` elements is not supported in a differentiable function: \
    write by index (`for i in 0..out.len() { out[i] = ..; }`), or iterate `out.iter_mut()`, `&mut out` or \
    `out[a..b].iter_mut()`, with `.enumerate()` and `.zip(..)` of slices (`xs`, `&xs`, `xs.iter()`, \
    `xs.iter().copied()`, another `iter_mut()`)";

/// Does this iterator hand out `&mut` elements (`iter_mut()` or `&mut` anywhere along its chain)?
fn mutably_iterated(expr: &Expr) -> bool {
    match expr {
        Expr::MethodCall(m) => {
            m.method == "iter_mut"
                || mutably_iterated(&m.receiver)
                || m.args.iter().any(mutably_iterated)
        }
        Expr::Reference(r) => r.mutability.is_some() || mutably_iterated(&r.expr),
        Expr::Paren(p) => mutably_iterated(&p.expr),
        _ => false,
    }
}

/// `for o in out { *o = ..; }`: a name iterated whose element the body assigns through (`*o = ..`,
/// `*o += ..`), which only a `&mut` element allows.
fn written_by_name(f: &syn::ExprForLoop) -> Option<Slice<'_>> {
    let (Expr::Path(target), syn::Pat::Ident(element)) = (&*f.expr, &*f.pat) else {
        return None;
    };
    target.path.get_ident()?;
    struct Find<'i> {
        element: &'i syn::Ident,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            let place = match e {
                Expr::Assign(a) => Some(&*a.left),
                Expr::Binary(b) if crate::lower::is_compound_assign(&b.op) => Some(&*b.left),
                _ => None,
            };
            if let Some(Expr::Unary(u)) = place {
                if matches!(u.op, syn::UnOp::Deref(_))
                    && matches!(&*u.expr, Expr::Path(p) if p.path.is_ident(self.element))
                {
                    self.found = true;
                }
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut find = Find {
        element: &element.ident,
        found: false,
    };
    syn::visit::Visit::visit_block(&mut find, &f.body);
    find.found.then_some(Slice {
        target: &f.expr,
        range: None,
        how: Access::Write,
    })
}

/// The shape of an iterator over `&mut` elements: slices, zipped and enumerated.
enum Tree<'a> {
    Slice(Slice<'a>),
    Zip(Box<Tree<'a>>, Box<Tree<'a>>),
    Enumerate(Box<Tree<'a>>),
}

/// One slice an iterator walks: `target`, or `target[start..end]`, and how its elements are handed out.
struct Slice<'a> {
    target: &'a Expr,
    range: Option<(Option<&'a Expr>, Option<&'a Expr>)>,
    how: Access,
}

#[derive(Clone, Copy)]
enum Access {
    /// `&mut x`: written through `*o`.
    Write,
    /// `&x`.
    Reference,
    /// `x` itself (`.copied()`, `.cloned()`).
    Value,
}

impl<'a> Tree<'a> {
    fn of(expr: &'a Expr) -> Option<Tree<'a>> {
        match expr {
            Expr::Paren(p) => Tree::of(&p.expr),
            Expr::MethodCall(m) => match (m.method.to_string().as_str(), m.args.len()) {
                ("enumerate", 0) => Some(Tree::Enumerate(Box::new(Tree::of(&m.receiver)?))),
                ("zip", 1) => Some(Tree::Zip(
                    Box::new(Tree::of(&m.receiver)?),
                    Box::new(Tree::of(&m.args[0])?),
                )),
                // `(&mut v).into_iter()` is `&mut v`.
                ("into_iter", 0) => match &*m.receiver {
                    Expr::Paren(p) if matches!(&*p.expr, Expr::Reference(_)) => Tree::of(&p.expr),
                    _ => None,
                },
                ("iter_mut", 0) => Slice::of(&m.receiver, Access::Write).map(Tree::Slice),
                ("iter", 0) => Slice::of(&m.receiver, Access::Reference).map(Tree::Slice),
                ("copied" | "cloned", 0) => match &*m.receiver {
                    Expr::MethodCall(inner) if inner.method == "iter" && inner.args.is_empty() => {
                        Slice::of(&inner.receiver, Access::Value).map(Tree::Slice)
                    }
                    _ => None,
                },
                _ => None,
            },
            Expr::Reference(r) => {
                let how = match r.mutability {
                    Some(_) => Access::Write,
                    None => Access::Reference,
                };
                Slice::of(&r.expr, how).map(Tree::Slice)
            }
            // A slice by name (`zip(xs)`): its references.
            other => Slice::of(other, Access::Reference)
                .filter(|s| s.range.is_none())
                .map(Tree::Slice),
        }
    }
}

impl<'a> Slice<'a> {
    fn of(expr: &'a Expr, how: Access) -> Option<Slice<'a>> {
        // `&mut *out` iterates `out`, and so does `(&mut *out).iter_mut()`.
        let expr = match expr {
            Expr::Paren(p) => &*p.expr,
            other => other,
        };
        let expr = match expr {
            Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let expr = match expr {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && is_place(&u.expr) => &*u.expr,
            other => other,
        };
        if let Some((target, start, end)) = bounds(expr) {
            return Some(Slice {
                target,
                range: Some((start, end)),
                how,
            });
        }
        is_place(expr).then_some(Slice {
            target: expr,
            range: None,
            how,
        })
    }
}

/// What an iteration binds: `let`s at its top, the names of written elements with their places, and the
/// names bound by value whose `*x` is `x`.
#[derive(Default)]
struct Binds {
    lets: Vec<TokenStream>,
    written: Vec<(syn::Ident, Expr)>,
    by_value: Vec<syn::Ident>,
    /// The names the body reads as rows (`rows_of`).
    rows: crate::hash::FastSet<String>,
}

/// The names `body` uses as arrays (indexed, measured, iterated or borrowed), never passed on bare (`g(r)`,
/// which may take a `Copy` row by value): an element of another side bound to one is a row, bound by
/// reference (`let row = &rows[i];`), since a `Vec` row cannot be moved out of its slice.
fn rows_of(body: &syn::Block) -> crate::hash::FastSet<String> {
    use syn::visit::Visit;
    struct Bare(crate::hash::FastSet<String>);
    impl<'ast> Visit<'ast> for Bare {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            let args = match expr {
                Expr::Call(c) => c.args.iter().collect(),
                Expr::MethodCall(m) => m.args.iter().collect(),
                _ => Vec::new(),
            };
            for arg in args {
                if let Expr::Path(p) = arg {
                    if let Some(name) = p.path.get_ident() {
                        self.0.insert(name.to_string());
                    }
                }
            }
            syn::visit::visit_expr(self, expr);
        }
    }
    let mut bare = Bare(Default::default());
    bare.visit_block(body);
    let mut rows = crate::lower::array_uses(body);
    rows.retain(|name| !bare.0.contains(name));
    rows
}

/// The body of a rewritten loop: `*o` becomes `out[i]`, `*x` becomes `x`; any other use of `o` is an error.
struct Substitute<'a> {
    binds: &'a Binds,
    errors: &'a mut Errors,
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Unary(u) = expr {
            if matches!(u.op, syn::UnOp::Deref(_)) {
                if let Expr::Path(p) = &*u.expr {
                    if let Some(name) = p.path.get_ident() {
                        if let Some((_, place)) = self.binds.written.iter().find(|(n, _)| n == name)
                        {
                            *expr = place.clone();
                            return;
                        }
                        if self.binds.by_value.contains(name) {
                            *expr = Expr::Path(p.clone());
                            return;
                        }
                    }
                }
            }
        }
        if let Expr::Path(p) = expr {
            if let Some(name) = p.path.get_ident() {
                if self.binds.written.iter().any(|(n, _)| n == name) {
                    self.errors.spanned(
                        &*p,
                        format!(
                            "`{name}` is a `&mut` element of the loop's iterator: read and write it as \
                             `*{name}` (`*{name} = ..`, `*{name} += ..`)"
                        ),
                    );
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// A binding in `body` of a name the loop binds to an element, which the rewrite cannot tell apart.
fn shadowing(body: &syn::Block, binds: &Binds) -> Option<syn::Ident> {
    struct Find<'b> {
        binds: &'b Binds,
        found: Option<syn::Ident>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            let named = |n: &syn::Ident| *n == p.ident;
            if self.found.is_none()
                && (self.binds.written.iter().any(|(n, _)| named(n))
                    || self.binds.by_value.iter().any(named))
            {
                self.found = Some(p.ident.clone());
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut find = Find { binds, found: None };
    syn::visit::Visit::visit_block(&mut find, body);
    find.found
}

/// `iter.for_each(|pat| body);` as the `for pat in iter { body }` it is (`Iterator::for_each` calls the
/// closure on each element in order; a type on the closure's parameter is the iterator's element type,
/// which the `for` infers); `None` for a `for_each` given no closure literal, and with an error for a
/// closure body that `return`s (which leaves the closure, not the function).
fn for_each_loop(
    m: &syn::ExprMethodCall,
    errors: &mut Errors,
) -> Option<Result<syn::ExprForLoop, ()>> {
    if m.args.len() != 1 || m.turbofish.is_some() {
        return None;
    }
    let Expr::Closure(c) = &m.args[0] else {
        return None;
    };
    // A `move` closure adds to its own copy of a captured number, not to the local a loop would.
    if c.inputs.len() != 1 || (c.capture.is_some() && !mutably_iterated(&m.receiver)) {
        return None;
    }
    if let Some(r) = returns(&c.body) {
        errors.spanned(
            r,
            "`return` in a `.for_each(..)` closure is not supported: write a `for` loop with `continue`",
        );
        return Some(Err(()));
    }
    let body = &c.body;
    let body: syn::Block = match &**body {
        Expr::Block(b) if b.label.is_none() => b.block.clone(),
        other => syn::parse_quote!({ #other; }),
    };
    let pat = match &c.inputs[0] {
        syn::Pat::Type(t) => &*t.pat,
        other => other,
    };
    let iter = &m.receiver;
    Some(Ok(
        syn::parse_quote_spanned!(m.method.span()=> for #pat in #iter #body),
    ))
}

/// The first `return` of a closure body (not of a closure inside it).
fn returns(body: &Expr) -> Option<syn::ExprReturn> {
    struct Find(Option<syn::ExprReturn>);
    impl<'ast> syn::visit::Visit<'ast> for Find {
        fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
            self.0.get_or_insert_with(|| r.clone());
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut find = Find(None);
    syn::visit::Visit::visit_expr(&mut find, body);
    find.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn tokens(block: &syn::Block) -> String {
        block.to_token_stream().to_string()
    }

    #[test]
    fn an_array_output_assigned_whole_is_a_copy() {
        let item: syn::ItemFn = syn::parse_quote!(
            fn f(x: &[f64; 2], out: &mut [f64; 2], e: &mut f64, v: &mut Vec<f64>) {
                *out = [x[1], x[0]];
                *e = x[0];
                *v = vec![x[0]];
            }
        );
        let mut block = *item.block.clone();
        array_outputs_assigned(&mut block, &item.sig);
        let text = tokens(&block);
        assert!(
            text.contains("out . copy_from_slice (& [x [1] , x [0]]) ;"),
            "{text}"
        );
        // A float output and a `Vec` (whose length the assignment may change) as written.
        assert!(text.contains("* e = x [0] ;"), "{text}");
        assert!(text.contains("* v = vec ! [x [0]] ;"), "{text}");
        // The name bound again in the body: not the parameter any more, left alone.
        let item: syn::ItemFn = syn::parse_quote!(
            fn g(x: &[f64; 2], out: &mut [f64; 2]) {
                let out = &mut [0.0; 2];
                *out = [x[1], x[0]];
            }
        );
        let mut block = *item.block.clone();
        array_outputs_assigned(&mut block, &item.sig);
        assert!(tokens(&block).contains("* out = [x [1] , x [0]] ;"));
    }

    #[test]
    fn a_vec_row_passed_on_bare_is_bound_by_reference() {
        let sig: syn::Signature =
            syn::parse_quote!(fn f(a: &[Vec<f64>], m: [[f64; 3]; 2], y: &mut [f64], z: &mut [f64]));
        let mut block: syn::Block = syn::parse_quote!({
            for (yi, row) in y.iter_mut().zip(a) {
                *yi = total(row);
            }
            for (zi, row) in z.iter_mut().zip(m) {
                *zi = cube(row);
            }
        });
        let mut errors = Errors::default();
        desugar(&mut block, &sig, &mut 0, &mut errors);
        assert_eq!(errors.len(), 0);
        let text = tokens(&block);
        // The `Vec` row by reference, the `Copy` array row by value, as Rust's iterators hand them out.
        assert!(text.contains("let row = & a ["), "{text}");
        assert!(text.contains("let row = m ["), "{text}");
    }

    #[test]
    fn an_array_made_for_a_copy_is_bound_before_the_writes() {
        let mut block: syn::Block = syn::parse_quote!({
            out.copy_from_slice(&[out[1] * x, out[0]]);
        });
        let mut errors = Errors::default();
        let sig: syn::Signature = syn::parse_quote!(fn f(x: f64, out: &mut [f64]));
        desugar(&mut block, &sig, &mut 0, &mut errors);
        assert_eq!(errors.len(), 0);
        let text = tokens(&block);
        // Evaluated once, before the loop writes `out` (the value reads `out`'s incoming elements).
        let bind = text.find("= [out [1] * x , out [0]] ;").expect(&text);
        let write = text.find("for").expect(&text);
        assert!(bind < write, "{text}");
        assert!(!text.contains("([out"), "{text}");
    }
}
