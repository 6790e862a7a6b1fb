//! Slice locals rebound in a loop: views `(start, end)` into their source, not copies.
//!
//! A sub-slice is a copy of its window in the intermediate form (`lower/windows.rs`), and a name bound outside a
//! loop and assigned a whole array inside it has the new elements written into the array it holds, which needs the
//! same length (`Lowering::assign_into_outer_array`). A slice local rebound in a loop to a slice of another length
//! (ADBench's LSTM: `input = &sequence[t * b + b..]`, or the hidden state fed back as the next layer's input) is
//! valid Rust that such a copy cannot follow. So before lowering, such a local is rewritten into integers, the
//! bounds of the view it holds, which the loops carry like any integer, and into a fresh window of its source
//! bound again under the user's name wherever the view may have changed: right after each assignment (the
//! window the user's assignment took, which panics where it did), at the top of each loop body that assigns it,
//! and after each statement that assigns it inside. The reverse sweep then sees each iteration's window, its
//! bounds being integer values of the iteration.
//!
//! ```text
//! // Input:                                  // Output:
//! let mut input = &seq[..b];                 let mut __input_start = 0;
//! for t in 0..3 {                            let mut __input_end = b;
//!     for v in input { s += v * v; }         let input = &seq[__input_start..__input_end];
//!     input = &seq[t * b + b..];             for t in 0..3 {
//! }                                              let input = &seq[__input_start..__input_end];
//! s + input[0]                                   for v in input { s += v * v; }
//!                                                __input_start = t * b + b;
//!                                                __input_end = seq.len();
//!                                                let input = &seq[__input_start..__input_end];
//!                                            }
//!                                            let input = &seq[__input_start..__input_end];
//!                                            s + input[0]
//! ```
//!
//! A local rebound to slices of several sources (`input = &h;`, `h` a local `Vec`) also carries the index of
//! its source, and where that is not known from the syntax (a loop's top, after a statement) the view is a
//! `Vec` filled from the source the index names (`__input_view`): only the sources in scope there, since a
//! `Vec` that went out of scope cannot be the one a valid function reads. A window taken where the user's code
//! takes none (a loop's top, after a statement) is clamped to its source's length: Rust's borrow rules keep a
//! source whose view is read again unchanged, but a view never read again may have outlived its source's length.
//! A relative rebinding (`input = &input[1..]`) moves the bounds and takes the window of the current view.
//!
//! A local rebound to a reference bound in its scope (`let ygold = &sequence[t + b..]; input = ygold;`) keeps
//! that reference's bounds (`__ygold_start`, `__ygold_end`), since the view outlives the name.
//!
//! A window of another view (`y = &x[1..];` before the loop, `input = &y[t..];` in it) is a window of that
//! view's sources: `y` is rewritten too (rebound, and the source of a local rebound in a loop), and `input`'s
//! bounds are `y`'s start moved by the window's, its source the one `y` holds.
//!
//! What the rewrite cannot follow is left as written, to the copy (which a rebinding of the same length
//! needs no more than): a source that is bound more than once (a `mut` slice parameter is bound once, by
//! the `let` that opens the body), or assigned in the local's scope while it is a reference (assigned only
//! before the local's `let`, it holds one slice wherever the local is alive), or declared after the local
//! and not shown owned; an assignment that is not a statement of its own; a local
//! borrowed mutably, bound again, or assigned in a closure.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident, Pat, Stmt};

// Input:  fn tail(mut xs: &[f64]) -> f64 { .. xs = &xs[1..]; .. }
// Output: fn tail(xs: &[f64]) -> f64 { let __xs_whole = xs; let mut xs = __xs_whole; .. xs = &xs[1..]; .. }
/// A parameter taken by shared reference to a slice, `Vec` or array and declared `mut` is rebound, not
/// written (`&[T]` cannot be written through): it is a slice local bound to the parameter, which the
/// rest of this pass makes a view into the parameter where a loop rebinds it, so that the gradient has
/// the parameter's full length. Returns their names.
fn rebound_params(item: &mut syn::ItemFn) -> HashSet<String> {
    let mut rebound = Vec::new();
    for input in &mut item.sig.inputs {
        let syn::FnArg::Typed(t) = input else {
            continue;
        };
        let syn::Type::Reference(r) = &*t.ty else {
            continue;
        };
        if r.mutability.is_some() || crate::signature::nesting_depth(&t.ty) == 0 {
            continue;
        }
        if let Pat::Ident(p) = &mut *t.pat {
            if p.mutability.is_some() && p.by_ref.is_none() && p.subpat.is_none() {
                p.mutability = None;
                rebound.push(p.ident.clone());
            }
        }
    }
    let names = rebound.iter().map(|name| name.to_string()).collect();
    // Through a name of its own: a source bound once (`let mut xs = xs;` binds `xs` twice).
    for (i, name) in rebound.into_iter().enumerate() {
        let whole = quote::format_ident!("__{}_whole", crate::naming::unraw(&name));
        item.block
            .stmts
            .insert(2 * i, syn::parse_quote!(let #whole = #name;));
        item.block
            .stmts
            .insert(2 * i + 1, syn::parse_quote!(let mut #name = #whole;));
    }
    names
}

/// `item`'s body with each slice local that a loop rebinds rewritten into a view; errors for what cannot be.
pub(crate) fn desugar(item: &mut syn::ItemFn) {
    let rebound = rebound_params(item);
    if !rebinds_in_a_loop(&item.block) {
        return;
    }
    let mut params = HashMap::new();
    for input in &item.sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            if let Pat::Ident(p) = &*t.pat {
                params.insert(p.ident.to_string(), (*t.ty).clone());
            }
        }
    }
    let mut facts = Facts::default();
    facts.visit_block(&item.block);
    let zero = match crate::signature::float_type_params(&item.sig.generics).first() {
        Some(t) => quote!(<#t as ::autodiff::__private::Zero>::zero()),
        None => quote!(0.0),
    };
    let mut pass = Pass {
        params,
        facts,
        zero,
        scope: Vec::new(),
        generated: HashSet::new(),
        rebound,
        failed: false,
        views: Vec::new(),
    };
    pass.visit_block_mut(&mut item.block);
}

/// Does the block assign a name inside a loop (the cheap test before the pass)?
fn rebinds_in_a_loop(block: &syn::Block) -> bool {
    struct Finder {
        loops: usize,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.loops += 1;
                    syn::visit::visit_expr(self, expr);
                    self.loops -= 1;
                }
                Expr::Assign(a) if self.loops > 0 && matches!(&*a.left, Expr::Path(_)) => {
                    self.found = true
                }
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder {
        loops: 0,
        found: false,
    };
    finder.visit_block(block);
    finder.found
}

/// Does a pattern in `stmts` (nested blocks and closures included, items not) bind `name`?
fn bound_in(stmts: &[Stmt], name: &str) -> bool {
    struct Finder<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.found |= p.ident == self.name;
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder { name, found: false };
    for stmt in stmts {
        finder.visit_stmt(stmt);
    }
    finder.found
}

/// What the pass needs to know of every name in the body.
#[derive(Default)]
struct Facts {
    /// How many patterns bind each name.
    bindings: HashMap<String, usize>,
    /// The names bound by a `let` whose value the syntax shows owned (`vec![..]`, `[..]`, `x.to_vec()`, a
    /// `Vec<_>` or array type).
    owned: HashSet<String>,
    /// The names assigned (`x = ..`, `x += ..`) or borrowed mutably (`&mut x`).
    changed: HashSet<String>,
}

impl<'ast> Visit<'ast> for Facts {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        *self.bindings.entry(p.ident.to_string()).or_default() += 1;
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_local(&mut self, local: &'ast syn::Local) {
        let (pat, ty) = match &local.pat {
            Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            pat => (pat, None),
        };
        if let Pat::Ident(p) = pat {
            let owned_type = ty.is_some_and(|ty| match ty {
                syn::Type::Array(_) => true,
                syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Vec"),
                _ => false,
            });
            let owned_value = local.init.as_ref().is_some_and(|init| owned(&init.expr));
            if owned_type || owned_value {
                self.owned.insert(p.ident.to_string());
            }
        }
        syn::visit::visit_local(self, local);
    }
    fn visit_expr(&mut self, expr: &'ast Expr) {
        let place = match expr {
            Expr::Assign(a) => Some(&*a.left),
            Expr::Binary(b) if crate::lower::is_compound_assign(&b.op) => Some(&*b.left),
            Expr::Reference(r) if r.mutability.is_some() => Some(&*r.expr),
            _ => None,
        };
        if let Some(name) = place.and_then(path_name) {
            self.changed.insert(name);
        }
        syn::visit::visit_expr(self, expr);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Is `expr` a value the syntax shows owned: `vec![..]`, an array literal, `Vec::new()`, `x.to_vec()`?
fn owned(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Macro(m) => m.mac.path.is_ident("vec"),
        Expr::Array(_) | Expr::Repeat(_) => true,
        Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if p.path.segments.len() == 2
            && p.path.segments[0].ident == "Vec"),
        Expr::MethodCall(m) => m.method == "to_vec",
        _ => false,
    }
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

/// The name of a one-segment path expression.
fn path_name(expr: &Expr) -> Option<String> {
    match strip_parens(expr) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// A slice as the syntax shows it: `&s[a..b]` (any range), `&s`, or `s`.
struct Form {
    source: Ident,
    range: Option<syn::ExprRange>,
    borrowed: bool,
}

fn form(expr: &Expr) -> Option<Form> {
    let (expr, borrowed) = match strip_parens(expr) {
        Expr::Reference(r) if r.mutability.is_none() => (strip_parens(&r.expr), true),
        other => (other, false),
    };
    let (base, range) = match expr {
        Expr::Index(i) if borrowed => match strip_parens(&i.index) {
            Expr::Range(range) => match composed(&i.expr, range) {
                Some((base, range)) => (base, Some(range)),
                None => (strip_parens(&i.expr), Some(range.clone())),
            },
            _ => return None,
        },
        other => (other, None),
    };
    let Expr::Path(p) = base else {
        return None;
    };
    let source = p.path.get_ident().filter(|_| p.qself.is_none())?.clone();
    Some(Form {
        source,
        range,
        borrowed,
    })
}

// Input:  &xs[1..][1..2]        &xs[k..][..]        &xs[..][2..]     &xs[..k][t..]     &xs[a..b][1..]
// Output: &xs[1 + 1..1 + 2]     &xs[k..]            &xs[2..]         &xs[t..k]         &xs[a + (1)..b]
/// `s[a..][r]` (or `s[..][r]`) as one range of `s`, where `a` is a name or a literal (read twice): `s[a + r]`,
/// which panics where the two sub-slices would (`a + r.end <= s.len()` exactly when `a <= s.len()` and
/// `r.end <= s.len() - a`). With an end on the outer range only where `r` has none: `s[a..b][c..]` is
/// `s[a + c..b]`, which panics where they would (`a + c <= b <= s.len()`); with an end on both, the one
/// range would drop the outer range's own bound check.
fn composed<'a>(inner: &'a Expr, range: &syn::ExprRange) -> Option<(&'a Expr, syn::ExprRange)> {
    let Expr::Index(i) = strip_parens(inner) else {
        return None;
    };
    let Expr::Range(outer) = strip_parens(&i.index) else {
        return None;
    };
    if outer.end.is_some() && range.end.is_some() {
        return None;
    }
    let offset = match outer.start.as_deref().map(strip_parens) {
        None => None,
        Some(a @ (Expr::Path(_) | Expr::Lit(_))) => Some(a),
        Some(_) => return None,
    };
    let shifted = |bound: &Option<Box<Expr>>| -> Option<Box<Expr>> {
        match (offset, bound.as_deref()) {
            (Some(a), Some(b)) => Some(Box::new(syn::parse_quote!(#a + (#b)))),
            (Some(a), None) => Some(Box::new(a.clone())),
            (None, b) => b.cloned().map(Box::new),
        }
    };
    let mut one = range.clone();
    one.start = shifted(&range.start);
    one.end = range.end.as_ref().and_then(|_| shifted(&range.end));
    if outer.end.is_some() {
        // `r` has no end: the outer range's, as it is (`..b` or `..=b`).
        one.end = outer.end.clone();
        one.limits = outer.limits;
    }
    Some((strip_parens(&i.expr), one))
}

/// Is `ty` a shared slice reference, `&[T]`?
fn is_slice_reference(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Reference(r) if r.mutability.is_none() && matches!(&*r.elem, syn::Type::Slice(_)))
}

struct Pass {
    params: HashMap<String, syn::Type>,
    facts: Facts,
    zero: TokenStream,
    /// The names bound by the `let`s of the enclosing blocks, up to the statement visited.
    scope: Vec<String>,
    /// The names of the bounds this pass declared, which are no slice locals.
    generated: HashSet<String>,
    /// The slice parameters declared `mut` (`rebound_params`): bound once, by the `let` that opens the
    /// body (the parameter's own binding is not read again).
    rebound: HashSet<String>,
    /// Whether the rewrite of the local met an assignment it cannot follow.
    failed: bool,
    /// The views rewritten so far whose scope is the statement visited, innermost last.
    views: Vec<Outer>,
}

/// A view rewritten before, in scope where another local is rebound to windows of it (`input = &y[t..];`, `y`
/// itself rebound): such a window is one of `y`'s sources, at `y`'s bounds moved by the window's.
#[derive(Clone)]
struct Outer {
    name: Ident,
    start: Ident,
    which: Option<Ident>,
    sources: Vec<Source>,
}

/// One slice local rewritten into a view.
struct View {
    name: Ident,
    start: Ident,
    end: Ident,
    /// The index of the source, if there are several.
    which: Option<Ident>,
    buffer: Ident,
    /// The sources, the first the one the local starts with.
    sources: Vec<Source>,
    /// The references bound in the local's scope that it is rebound to, by name.
    aliases: HashMap<String, Alias>,
    /// The views in scope that it is bound or rebound to windows of, by name.
    outer: HashMap<String, Outer>,
    /// The first and last tokens of its first rebinding in a loop (or first rebinding), where the windows
    /// the user's code does not take are spanned: an error in one (`&m[a..b]` of a matrix's rows) is the
    /// rebinding's.
    at: (Span, Span),
}

/// `let w = &x[a..b];`, bound in a rebound local's scope, which is rebound to `w`: its bounds are kept
/// (`__w_start`, `__w_end`), so that the local's view outlives `w` as Rust's does.
struct Alias {
    source: Ident,
    form: Form,
    start: Ident,
    end: Ident,
}

#[derive(Clone)]
struct Source {
    name: Ident,
    /// A `&[T]` parameter, whose length cannot change: its windows need no clamp.
    fixed: bool,
    /// Declared before the local (a parameter, or a `let` of an enclosing block): in scope wherever the local is.
    everywhere: bool,
}

impl VisitMut for Pass {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let depth = self.scope.len();
        let views = self.views.len();
        let mut i = 0;
        while i < block.stmts.len() {
            if let Some(view) = self.candidate(&block.stmts[i], &block.stmts[i + 1..]) {
                let rest = block.stmts.split_off(i + 1);
                let first = block.stmts.pop().expect("the candidate statement");
                self.failed = false;
                let rewritten = self.rewrite(&view, first.clone(), rest.clone());
                match self.failed {
                    // As written: the copy's element-by-element assignment, checked at run time.
                    true => block.stmts.extend([first].into_iter().chain(rest)),
                    false => {
                        block.stmts.extend(rewritten);
                        self.views.push(Outer {
                            name: view.name,
                            start: view.start,
                            which: view.which,
                            sources: view.sources,
                        });
                    }
                }
            }
            // Nested blocks, with the names bound before them in scope.
            syn::visit_mut::visit_stmt_mut(self, &mut block.stmts[i]);
            if let Stmt::Local(local) = &block.stmts[i] {
                self.scope.extend(let_names(local));
            }
            i += 1;
        }
        self.scope.truncate(depth);
        self.views.truncate(views);
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

fn let_names(local: &syn::Local) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
        }
    }
    let mut names = Names(Vec::new());
    names.visit_pat(&local.pat);
    names.0
}

/// The assignments to `name` in `stmts` (outside closures and items), each with whether a loop holds it; and
/// whether a pattern binds `name` again or `&mut name` borrows it.
fn assignments<'a>(stmts: &'a [Stmt], name: &str) -> (Vec<(&'a syn::ExprAssign, bool)>, bool) {
    struct Finder<'a, 'n> {
        name: &'n str,
        loops: usize,
        found: Vec<(&'a syn::ExprAssign, bool)>,
        other: bool,
    }
    impl<'a> Visit<'a> for Finder<'a, '_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::ForLoop(f) => {
                    self.visit_expr(&f.expr);
                    self.loops += 1;
                    self.visit_pat(&f.pat);
                    self.visit_block(&f.body);
                    self.loops -= 1;
                }
                Expr::While(_) | Expr::Loop(_) => {
                    self.loops += 1;
                    syn::visit::visit_expr(self, expr);
                    self.loops -= 1;
                }
                Expr::Assign(a) if path_name(&a.left).as_deref() == Some(self.name) => {
                    self.found.push((a, self.loops > 0));
                    self.visit_expr(&a.right);
                }
                Expr::Reference(r)
                    if r.mutability.is_some()
                        && path_name(&r.expr).as_deref() == Some(self.name) =>
                {
                    self.other = true
                }
                Expr::Closure(c) => {
                    // A closure that assigns it cannot be followed.
                    let mut inner = Finder {
                        name: self.name,
                        loops: 0,
                        found: Vec::new(),
                        other: false,
                    };
                    inner.visit_expr(&c.body);
                    self.other |= inner.other || !inner.found.is_empty();
                }
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            if p.ident == self.name {
                self.other = true;
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut finder = Finder {
        name,
        loops: 0,
        found: Vec::new(),
        other: false,
    };
    for stmt in stmts {
        finder.visit_stmt(stmt);
    }
    (finder.found, finder.other)
}

impl Pass {
    /// `stmt` as a slice local that a loop in `rest` rebinds: `let mut input = &seq[..b];` (or `: &[T]`).
    fn candidate(&mut self, stmt: &Stmt, rest: &[Stmt]) -> Option<View> {
        let Stmt::Local(local) = stmt else {
            return None;
        };
        let (pat, ty) = match &local.pat {
            Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            pat => (pat, None),
        };
        let Pat::Ident(p) = pat else {
            return None;
        };
        if p.mutability.is_none() || p.by_ref.is_some() || p.subpat.is_some() {
            return None;
        }
        if ty.is_some_and(|ty| !is_slice_reference(ty)) {
            return None;
        }
        let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
        let start = form(&init.expr)?;
        let name = p.ident.clone();
        if start.source == name || self.generated.contains(&name.to_string()) {
            return None;
        }
        let (found, other) = assignments(rest, &name.to_string());
        // Rebound in a loop, or rebound and the source of another local rebound in a loop (`y = &x[1..];`,
        // then `input = &y[t..];` in a loop): a view, which the other's are views of in turn.
        let rebound_in_a_loop = found.iter().any(|(_, in_loop)| *in_loop)
            || (!found.is_empty() && source_in_a_loop(rest, &name.to_string()));
        if !rebound_in_a_loop || other {
            return None;
        }
        let forms: Vec<Option<Form>> = found.iter().map(|(a, _)| form(&a.right)).collect();
        let first = found.iter().find(|(_, in_loop)| *in_loop).or(found.first());
        let at = ends(first.map(|(a, _)| *a).expect("a candidate is rebound"));
        // A slice, as the syntax shows: a written `&[T]`, a range, or a `&[T]` parameter.
        let slice_param = |f: &Form| {
            self.params
                .get(&f.source.to_string())
                .is_some_and(is_slice_reference)
        };
        let is_slice = ty.is_some()
            || start.range.is_some()
            || slice_param(&start)
            || forms.iter().any(|f| {
                f.as_ref()
                    .is_some_and(|f| f.range.is_some() || slice_param(f))
            });
        if !is_slice {
            return None;
        }
        let mut outer: HashMap<String, Outer> = HashMap::new();
        let mut sources: Vec<Source> = match self.outer(&start.source) {
            Some(o) => {
                outer.insert(o.name.to_string(), o.clone());
                o.sources.clone()
            }
            None => vec![self.source(&start, true, rest)?],
        };
        let mut aliases: HashMap<String, Alias> = HashMap::new();
        for f in forms {
            let f = f?;
            if f.source == name
                || sources.iter().any(|s| s.name == f.source)
                || aliases.contains_key(&f.source.to_string())
                || outer.contains_key(&f.source.to_string())
            {
                continue;
            }
            if let Some(o) = self.outer(&f.source) {
                for source in &o.sources {
                    if !sources.iter().any(|s| s.name == source.name) {
                        sources.push(source.clone());
                    }
                }
                outer.insert(o.name.to_string(), o.clone());
                continue;
            }
            let source = match self.source(&f, false, rest) {
                Some(source) => source,
                None => {
                    // `input = w;` of a `let w = &x[a..b];` in the local's scope: the view of `w`'s window.
                    let (target, of) = self.alias(&f, rest, &name)?;
                    let key = f.source.to_string();
                    let hidden =
                        |what: &str| Ident::new(&format!("__{key}_{what}"), Span::mixed_site());
                    let (start, end) = (hidden("start"), hidden("end"));
                    aliases.insert(
                        key,
                        Alias {
                            source: of.name.clone(),
                            form: target,
                            start,
                            end,
                        },
                    );
                    if sources.iter().any(|s| s.name == of.name) {
                        continue;
                    }
                    of
                }
            };
            sources.push(source);
        }
        let hidden = |what: &str| Ident::new(&format!("__{name}_{what}"), Span::mixed_site());
        for what in ["start", "end", "source", "view", "from", "to"] {
            self.generated.insert(format!("__{name}_{what}"));
        }
        Some(View {
            start: hidden("start"),
            end: hidden("end"),
            which: (sources.len() > 1).then(|| hidden("source")),
            buffer: hidden("view"),
            name,
            sources,
            aliases,
            outer,
            at,
        })
    }

    /// The view in scope named `name`, if one is.
    fn outer(&self, name: &Ident) -> Option<&Outer> {
        self.views.iter().rev().find(|o| o.name == *name)
    }

    /// `w` of `input = w;`, a reference bound once in `rest` by `let w = &x[a..b];` that nothing changes: the
    /// form it was bound to, and its source.
    fn alias(&self, f: &Form, rest: &[Stmt], name: &Ident) -> Option<(Form, Source)> {
        let key = f.source.to_string();
        if f.range.is_some()
            || self.params.contains_key(&key)
            || self.facts.bindings.get(&key) != Some(&1)
            || self.facts.changed.contains(&key)
        {
            return None;
        }
        struct Finder<'k>(&'k str, Option<Expr>);
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_local(&mut self, local: &'ast syn::Local) {
                if let (Pat::Ident(p), Some(init)) = (&local.pat, &local.init) {
                    if p.ident == self.0 && p.mutability.is_none() && init.diverge.is_none() {
                        self.1 = Some((*init.expr).clone());
                    }
                }
                syn::visit::visit_local(self, local);
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut finder = Finder(&key, None);
        for stmt in rest {
            finder.visit_stmt(stmt);
        }
        let target = form(&finder.1?)?;
        if target.source == *name || target.source == f.source {
            return None;
        }
        let of = self.source(&target, false, rest)?;
        Some((target, of))
    }

    /// The source of a form assigned to `name` (`initial`: of its `let`), or the error that says why it cannot
    /// be followed. `rest` is the local's scope: a source assigned only outside it (a slice local or `mut`
    /// slice parameter rebound before the local's `let`) holds one slice wherever the local is alive.
    fn source(&self, f: &Form, initial: bool, rest: &[Stmt]) -> Option<Source> {
        let key = f.source.to_string();
        let bindings = self.facts.bindings.get(&key).copied().unwrap_or(0);
        let changed = self.facts.changed.contains(&key) && {
            let (found, other) = assignments(rest, &key);
            !found.is_empty() || other
        };
        let declared_before = self.scope.contains(&key);
        let param = self.params.get(&key).filter(|_| bindings == 0);
        let bindings =
            bindings + usize::from(self.params.contains_key(&key) && !self.rebound.contains(&key));
        let source = |fixed, everywhere| Source {
            name: f.source.clone(),
            fixed,
            everywhere,
        };
        if let Some(ty) = param {
            if !changed {
                return Some(source(is_slice_reference(ty), true));
            }
        } else if bindings == 1 {
            let owned = self.facts.owned.contains(&key);
            // A `Vec` or array borrowed (`&h`, `&h[a..]`) may be bound in the loop: a valid function reads
            // the view only where it is alive. A reference must be alive wherever the local is, and keep its
            // value.
            if owned && f.borrowed {
                return Some(source(false, declared_before));
            }
            if !owned && declared_before && !changed {
                return Some(source(false, true));
            }
            if initial {
                return None;
            }
        } else if !self.facts.owned.contains(&key)
            && declared_before
            && !changed
            && !bound_in(rest, &key)
        {
            // Bound more than once (`let y = &x[1..]; let y = &y[1..];`, or a parameter shadowed), all before
            // the local: while the local is alive the name is the last of them, a reference never assigned.
            return Some(source(false, true));
        }
        None
    }

    /// The local's `let` and the statements of its scope, rewritten.
    fn rewrite(&mut self, view: &View, first: Stmt, rest: Vec<Stmt>) -> Vec<Stmt> {
        let Stmt::Local(local) = first else {
            unreachable!("a candidate is a `let`")
        };
        let init = &local.init.as_ref().expect("a candidate has a value").expr;
        let f = form(init).expect("a candidate's value is a slice");
        let (start, end) = bounds(&f);
        let View {
            name,
            start: s,
            end: e,
            which,
            ..
        } = view;
        let source = &f.source;
        let ty = match &local.pat {
            Pat::Type(t) => {
                let ty = &t.ty;
                quote!(: #ty)
            }
            _ => quote!(),
        };
        let stmts: Vec<Stmt> = match view.outer.get(&source.to_string()) {
            // Input:  let mut input = &y[a..];    (`y` a view)
            // Output: let __input_from = a; let __input_to = y.len();
            //         let input = &y[__input_from..__input_to];
            //         let mut __input_start = __y_start + __input_from; let mut __input_end = __y_start + __input_to;
            Some(o) => {
                let (from, to) = moved(name);
                let (ys, which) = (&o.start, source_index(view, o));
                let mut stmts: Vec<Stmt> = vec![
                    syn::parse_quote!(let #from = #start;),
                    syn::parse_quote!(let #to = #end;),
                    syn::parse_quote!(let #name #ty = &#source[#from..#to];),
                    syn::parse_quote!(let mut #s = #ys + #from;),
                    syn::parse_quote!(let mut #e = #ys + #to;),
                ];
                if let (Some(w), Some(which)) = (view.which.as_ref(), which) {
                    stmts.push(syn::parse_quote!(let mut #w = #which;));
                }
                stmts
            }
            None => {
                let mut stmts: Vec<Stmt> = vec![
                    syn::parse_quote!(let mut #s = #start;),
                    syn::parse_quote!(let mut #e = #end;),
                ];
                if let Some(which) = which {
                    stmts.push(syn::parse_quote!(let mut #which = 0usize;));
                }
                stmts.push(syn::parse_quote!(let #name #ty = &#source[#s..#e];));
                stmts
            }
        };
        let mut stmts = respanned(stmts, view.at);
        let depth = self.scope.len();
        stmts.extend(self.statements(view, rest));
        self.scope.truncate(depth);
        stmts
    }

    /// Statements of the local's scope: each assignment its bounds and window, each statement that assigns it
    /// inside followed by its view again.
    fn statements(&mut self, view: &View, stmts: Vec<Stmt>) -> Vec<Stmt> {
        let depth = self.scope.len();
        let name = view.name.to_string();
        let mut out = Vec::new();
        for stmt in stmts {
            if let Stmt::Expr(Expr::Assign(a), _) = &stmt {
                if path_name(&a.left).as_deref() == Some(name.as_str()) {
                    out.extend(self.assignment(view, a));
                    continue;
                }
            }
            if assignments(std::slice::from_ref(&stmt), &name).0.is_empty() {
                if let Stmt::Local(local) = &stmt {
                    self.scope.extend(let_names(local));
                    if let Some(alias) = alias_of(view, local) {
                        out.extend(alias);
                        continue;
                    }
                }
                out.push(stmt);
                continue;
            }
            match stmt {
                Stmt::Expr(mut expr, semi) => {
                    self.compound(view, &mut expr);
                    out.push(Stmt::Expr(expr, semi));
                }
                other => {
                    self.not_a_statement();
                    out.push(other);
                }
            }
            out.extend(self.again(view));
        }
        self.scope.truncate(depth);
        out
    }

    /// An assignment the rewrite cannot follow: the local is left as written.
    fn not_a_statement(&mut self) {
        self.failed = true;
    }

    /// An `if`, `match`, loop or block that assigns the local inside.
    fn compound(&mut self, view: &View, expr: &mut Expr) {
        let name = view.name.to_string();
        let assigns = |e: &Expr| {
            !assignments(&[Stmt::Expr(e.clone(), None)], &name)
                .0
                .is_empty()
        };
        match expr {
            Expr::Paren(p) => self.compound(view, &mut p.expr),
            Expr::Block(b) => self.block(view, &mut b.block, false),
            Expr::If(i) if !assigns(&i.cond) => {
                self.block(view, &mut i.then_branch, false);
                if let Some((_, e)) = &mut i.else_branch {
                    if assigns(e) {
                        self.compound(view, e);
                    }
                }
            }
            Expr::Match(m) if !assigns(&m.expr) => {
                for arm in &mut m.arms {
                    if !assigns(&arm.body) {
                        continue;
                    }
                    if arm.guard.is_some() {
                        self.not_a_statement();
                        continue;
                    }
                    // `0 => input = &x[..],`: the arm a block of that statement.
                    if let Expr::Assign(_) = strip_parens(&arm.body) {
                        let body = &arm.body;
                        *arm.body = syn::parse_quote!({ #body; });
                    }
                    self.compound(view, &mut arm.body);
                }
            }
            Expr::ForLoop(f) if !assigns(&f.expr) => self.block(view, &mut f.body, true),
            Expr::Loop(l) => self.block(view, &mut l.body, true),
            Expr::While(w) if !assigns(&w.cond) => {
                if mentions(&w.cond, &name) {
                    // Input:  while input.len() > 1 { .. input = &input[1..]; }
                    // Output: loop { let input = ..; if !(input.len() > 1) { break; } .. }
                    let (attrs, cond, mut body) = (&w.attrs, &w.cond, w.body.clone());
                    self.block(view, &mut body, false);
                    let again = self.again(view);
                    let stmts = &body.stmts;
                    *expr = syn::parse_quote!(#(#attrs)* loop {
                        #(#again)*
                        if !(#cond) { break; }
                        #(#stmts)*
                    });
                } else {
                    self.block(view, &mut w.body, true);
                }
            }
            _ => self.not_a_statement(),
        }
    }

    /// A block inside the local's scope; a loop's body (`top`) starts with the view again.
    fn block(&mut self, view: &View, block: &mut syn::Block, top: bool) {
        let stmts = std::mem::take(&mut block.stmts);
        let mut rewritten = Vec::new();
        if top {
            rewritten.extend(self.again(view));
        }
        rewritten.extend(self.statements(view, stmts));
        block.stmts = rewritten;
    }

    // Input:  input = &h[a..];              input = &input[1..];
    // Output: __input_start = a;            let __input_from = 1; let __input_to = input.len();
    //         __input_end = h.len();        let input = &input[__input_from..__input_to];
    //         __input_source = 1;           __input_end = __input_start + __input_to;
    //         let input = &h[__input_start..__input_end];   __input_start = __input_start + __input_from;
    fn assignment(&mut self, view: &View, assign: &syn::ExprAssign) -> Vec<Stmt> {
        respanned(self.assigned(view, assign), ends(assign))
    }

    /// The statements of `assignment`, before they are spanned.
    fn assigned(&mut self, view: &View, assign: &syn::ExprAssign) -> Vec<Stmt> {
        let f = form(&assign.right).expect("checked by `candidate`");
        let View {
            name,
            start: s,
            end: e,
            which,
            ..
        } = view;
        if let Some(o) = view.outer.get(&f.source.to_string()) {
            // Input:  input = &y[a..b];    (`y` a view)
            // Output: let __input_from = a; let __input_to = b;
            //         let input = &y[__input_from..__input_to];
            //         __input_start = __y_start + __input_from; __input_end = __y_start + __input_to;
            //         __input_source = <the index of `y`'s source among `input`'s>;
            let (from, to) = bounds(&f);
            let (from_name, to_name) = moved(name);
            let (y, ys) = (&o.name, &o.start);
            let mut stmts: Vec<Stmt> = vec![
                syn::parse_quote!(let #from_name = #from;),
                syn::parse_quote!(let #to_name = #to;),
                syn::parse_quote!(let #name = &#y[#from_name..#to_name];),
                syn::parse_quote!(#s = #ys + #from_name;),
                syn::parse_quote!(#e = #ys + #to_name;),
            ];
            if let (Some(w), Some(index)) = (which, source_index(view, o)) {
                stmts.push(syn::parse_quote!(#w = #index;));
            }
            return stmts;
        }
        if f.source == *name {
            let (from, to) = bounds(&f);
            let (from_name, to_name) = moved(name);
            return vec![
                syn::parse_quote!(let #from_name = #from;),
                syn::parse_quote!(let #to_name = #to;),
                syn::parse_quote!(let #name = &#name[#from_name..#to_name];),
                syn::parse_quote!(#e = #s + #to_name;),
                syn::parse_quote!(#s = #s + #from_name;),
            ];
        }
        let (source, start, end) = match view.aliases.get(&f.source.to_string()) {
            Some(alias) => {
                let (start, end) = (&alias.start, &alias.end);
                (&alias.source, quote!(#start), quote!(#end))
            }
            None => {
                let (start, end) = bounds(&f);
                (&f.source, start, end)
            }
        };
        let mut stmts: Vec<Stmt> = vec![
            syn::parse_quote!(#s = #start;),
            syn::parse_quote!(#e = #end;),
        ];
        if let Some(which) = which {
            let index = view
                .sources
                .iter()
                .position(|x| x.name == *source)
                .expect("every source is listed");
            stmts.push(syn::parse_quote!(#which = #index;));
        }
        stmts.push(syn::parse_quote!(let #name = &#source[#s..#e];));
        stmts
    }

    /// The local bound to its view again where the syntax does not tell which window it is.
    fn again(&self, view: &View) -> Vec<Stmt> {
        respanned(self.bound_again(view), view.at)
    }

    /// The statements of `again`, before they are spanned.
    fn bound_again(&self, view: &View) -> Vec<Stmt> {
        let View {
            name,
            start: s,
            end: e,
            which,
            buffer,
            sources,
            ..
        } = view;
        let window = |source: &Source| {
            let x = &source.name;
            match source.fixed {
                true => quote!(&#x[#s..#e]),
                false => quote!(&#x[usize::min(#s, #x.len())..usize::min(#e, #x.len())]),
            }
        };
        let Some(which) = which else {
            let window = window(&sources[0]);
            return vec![syn::parse_quote!(let #name = #window;)];
        };
        // Input:  (`input` rebound to `seq` and `h`, at the top of a loop)
        // Output: let mut __input_view = vec![0.0; __input_end - __input_start];
        //         if __input_source == 0 { for __k in __input_start..usize::min(__input_end, seq.len()) {
        //             __input_view[__k - __input_start] = seq[__k]; } } else if __input_source == 1 { .. }
        //         let input = &__input_view[..];
        let k = Ident::new("__k", Span::mixed_site());
        let zero = &self.zero;
        let mut fill = quote!();
        for (index, source) in sources.iter().enumerate().rev() {
            let in_scope = source.everywhere || self.scope.contains(&source.name.to_string());
            if !in_scope {
                continue;
            }
            let x = &source.name;
            let this = quote!(if #which == #index {
                for #k in #s..usize::min(#e, #x.len()) {
                    #buffer[#k - #s] = #x[#k];
                }
            });
            fill = match fill.is_empty() {
                true => this,
                false => quote!(#this else { #fill }),
            };
        }
        let mut stmts: Vec<Stmt> = vec![syn::parse_quote!(let mut #buffer = vec![#zero; #e - #s];)];
        if !fill.is_empty() {
            stmts.push(syn::parse_quote!(#fill));
        }
        stmts.push(syn::parse_quote!(let #name = &#buffer[..];));
        stmts
    }
}

/// The spans of the first and last tokens of `node`.
fn ends(node: impl quote::ToTokens) -> (Span, Span) {
    let tokens: Vec<proc_macro2::TokenTree> = node.into_token_stream().into_iter().collect();
    let span = |t: Option<&proc_macro2::TokenTree>| t.map_or_else(Span::call_site, |t| t.span());
    (span(tokens.first()), span(tokens.last()))
}

// Input:  let m = &m[__m_from..__m_to];     (tokens the macro made, at its attribute)
// Output: the same, its `&` at the rebinding's first token and its `[..]` at the last one
/// Generated statements with their punctuation at the first of `at` and their delimiters at the last, so
/// that an error spanned on one of their expressions (`&m[a..b]`) points from the one to the other. Names
/// keep their spans, which decide what they resolve to.
fn respanned(stmts: Vec<Stmt>, at: (Span, Span)) -> Vec<Stmt> {
    use proc_macro2::{Group, TokenTree};
    fn respan(tokens: TokenStream, at: (Span, Span)) -> TokenStream {
        tokens
            .into_iter()
            .map(|t| match t {
                TokenTree::Punct(mut p) => {
                    p.set_span(at.0);
                    TokenTree::Punct(p)
                }
                TokenTree::Group(g) => {
                    let mut group = Group::new(g.delimiter(), respan(g.stream(), at));
                    group.set_span(at.1);
                    TokenTree::Group(group)
                }
                other => other,
            })
            .collect()
    }
    let tokens = respan(quote!(#(#stmts)*), at);
    syn::parse::Parser::parse2(syn::Block::parse_within, tokens)
        .expect("generated statements parse again")
}

/// The names of a window's bounds within the view it is taken of (`input = &input[from..to];`).
fn moved(name: &Ident) -> (Ident, Ident) {
    (
        Ident::new(&format!("__{name}_from"), Span::mixed_site()),
        Ident::new(&format!("__{name}_to"), Span::mixed_site()),
    )
}

// Input:  (`y`'s sources `[w, x]`, `input`'s `[x, w]`)
// Output: if __y_source == 0 { 1usize } else { 0usize }
/// The index among `view`'s sources of the one that the view `o` holds now (`None` where `view` has one).
fn source_index(view: &View, o: &Outer) -> Option<TokenStream> {
    view.which.as_ref()?;
    let index = |source: &Source| {
        view.sources
            .iter()
            .position(|s| s.name == source.name)
            .expect("every source of a view taken from is listed")
    };
    let Some(w) = &o.which else {
        let i = index(&o.sources[0]);
        return Some(quote!(#i));
    };
    let mut chain = quote!();
    for (k, source) in o.sources.iter().enumerate().rev() {
        let i = index(source);
        chain = match chain.is_empty() {
            true => quote!(#i),
            false => quote!(if #w == #k { #i } else { #chain }),
        };
    }
    Some(chain)
}

/// Is `name` the source of a window that another local is assigned in a loop (`input = &name[t..];`)?
fn source_in_a_loop(stmts: &[Stmt], name: &str) -> bool {
    struct Finder<'n> {
        name: &'n str,
        loops: usize,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.loops += 1;
                    syn::visit::visit_expr(self, expr);
                    self.loops -= 1;
                }
                Expr::Assign(a) if self.loops > 0 => {
                    self.found |= path_name(&a.left).as_deref() != Some(self.name)
                        && form(&a.right).is_some_and(|f| f.source == self.name);
                    syn::visit::visit_expr(self, expr);
                }
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder {
        name,
        loops: 0,
        found: false,
    };
    for stmt in stmts {
        finder.visit_stmt(stmt);
    }
    finder.found
}

// Input:  let ygold = &sequence[t + b..t + 2 * b];
// Output: let __ygold_start = t + b; let __ygold_end = t + 2 * b;
//         let ygold = &sequence[__ygold_start..__ygold_end];
/// The `let` of a reference the local is rebound to, with its bounds kept.
fn alias_of(view: &View, local: &syn::Local) -> Option<Vec<Stmt>> {
    let Pat::Ident(p) = &local.pat else {
        return None;
    };
    let alias = view.aliases.get(&p.ident.to_string())?;
    let (start, end) = bounds(&alias.form);
    let (s, e, source, name) = (&alias.start, &alias.end, &alias.source, &p.ident);
    Some(vec![
        syn::parse_quote!(let #s = #start;),
        syn::parse_quote!(let #e = #end;),
        syn::parse_quote!(let #name = &#source[#s..#e];),
    ])
}

/// The bounds of a form's window: `a` and `b` of `&x[a..b]` (`b + 1` of `a..=b`), `0` and `x.len()` when
/// left out.
fn bounds(f: &Form) -> (TokenStream, TokenStream) {
    let source = &f.source;
    let Some(range) = &f.range else {
        return (quote!(0), quote!(#source.len()));
    };
    let start = match &range.start {
        Some(a) => quote!(#a),
        None => quote!(0),
    };
    let end = match (&range.end, &range.limits) {
        (Some(b), syn::RangeLimits::Closed(_)) => quote!((#b) + 1),
        (Some(b), _) => quote!(#b),
        (None, _) => quote!(#source.len()),
    };
    (start, end)
}

/// Does `expr` mention `name`?
fn mentions(expr: &Expr, name: &str) -> bool {
    struct Finder<'n>(&'n str, bool);
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_ident(&mut self, i: &'ast Ident) {
            self.1 |= i == self.0;
        }
    }
    let mut finder = Finder(name, false);
    finder.visit_expr(expr);
    finder.1
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    fn rewritten(item: syn::ItemFn) -> String {
        let mut item = item;
        super::desugar(&mut item);
        item.block.into_token_stream().to_string()
    }

    #[test]
    fn a_mut_slice_parameter_is_a_local_bound_to_it() {
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn tail(mut xs: &[f64], mut n: usize, mut v: Vec<f64>, w: &[f64]) -> f64 {
                xs = &xs[1..];
                xs[0]
            }
        };
        super::rebound_params(&mut item);
        let expected: syn::ItemFn = syn::parse_quote! {
            fn tail(xs: &[f64], mut n: usize, mut v: Vec<f64>, w: &[f64]) -> f64 {
                let __xs_whole = xs;
                let mut xs = __xs_whole;
                xs = &xs[1..];
                xs[0]
            }
        };
        assert_eq!(
            item.into_token_stream().to_string(),
            expected.into_token_stream().to_string()
        );
    }

    #[test]
    fn a_sub_slice_of_a_sub_slice_is_one_range_of_its_source() {
        // The rebinding, and what the rewritten body holds; with ends on both ranges it is left as written
        // (copied).
        let cases = [
            (
                "&xs[1..][1..2]",
                "__view_start = 1 + (1) ; __view_end = 1 + (2) ;",
            ),
            (
                "&xs[k..][..]",
                "__view_start = k ; __view_end = xs . len () ;",
            ),
            ("&xs[..k][t..]", "__view_start = t ; __view_end = k ;"),
            (
                "&xs[1..=k][t..]",
                "__view_start = 1 + (t) ; __view_end = (k) + 1 ;",
            ),
            ("&xs[..k][t..t + 1]", "view = & xs [.. k] [t .. t + 1]"),
        ];
        for (rebinding, expected) in cases {
            let written = rebinding;
            let rebinding: syn::Expr = syn::parse_str(written).expect("an expression");
            let body = rewritten(syn::parse_quote! {
                fn v(xs: &[f64], k: usize) -> f64 {
                    let mut view = &xs[0..];
                    for t in 0..2 { acc += view[0]; view = #rebinding; }
                    acc
                }
            });
            assert!(body.contains(expected), "{written}: {body}");
        }
    }

    #[test]
    fn a_sub_slice_of_another_length_is_a_view() {
        let body = rewritten(syn::parse_quote! {
            fn chain(seq: &[f64], b: usize) -> f64 {
                let mut input = &seq[..b];
                for t in 0..3 { s += input[0]; input = &seq[t * b + b..]; }
                input[0]
            }
        });
        let expected: syn::Block = syn::parse_quote! {{
            let mut __input_start = 0;
            let mut __input_end = b;
            let input = &seq[__input_start..__input_end];
            for t in 0..3 {
                let input = &seq[__input_start..__input_end];
                s += input[0];
                __input_start = t * b + b;
                __input_end = seq.len();
                let input = &seq[__input_start..__input_end];
            }
            let input = &seq[__input_start..__input_end];
            input[0]
        }};
        assert_eq!(body, expected.into_token_stream().to_string());
    }

    #[test]
    fn several_sources_are_copied_from_the_one_in_scope() {
        let body = rewritten(syn::parse_quote! {
            fn f(x: &[f64]) -> f64 {
                let mut input = &x[1..];
                for t in 0..3 { let h = vec![1.0]; input = &h; s += input[0]; input = &x[t..]; }
                input[0]
            }
        });
        // At the loop's top and after it, `h` is out of scope: only `x` is copied from.
        assert!(body.contains("let mut __input_source = 0usize ;"), "{body}");
        assert_eq!(
            body.matches("__input_view [__k - __input_start] = x [__k]")
                .count(),
            2,
            "{body}"
        );
        assert!(!body.contains("= h [__k]"), "{body}");
        assert!(
            body.contains("let input = & h [__input_start .. __input_end]"),
            "{body}"
        );
    }

    #[test]
    fn a_window_of_a_rebound_view_is_a_window_of_its_sources() {
        let body = rewritten(syn::parse_quote! {
            fn f(x: &[f64], mut y: &[f64]) -> f64 {
                y = &x[1..];
                let mut input = &x[..];
                for t in 0..3 { input = &y[t..]; }
                input[0]
            }
        });
        // `y` (rebound outside the loop) is a view of `[y's parameter, x]`, `input` one of `[x, y's parameter]`.
        assert!(
            body.contains("__y_start = 1 ; __y_end = x . len () ; __y_source = 1usize ;"),
            "{body}"
        );
        assert!(
            body.contains(
                "let input = & y [__input_from .. __input_to] ; \
                 __input_start = __y_start + __input_from ; \
                 __input_end = __y_start + __input_to ; \
                 __input_source = if __y_source == 0usize { 1usize } else { 0usize } ;"
            ),
            "{body}"
        );
    }

    #[test]
    fn a_source_rebound_before_the_local_is_followed() {
        // `xs` (a `mut` parameter) and `y` are assigned before `view`'s `let` only: one slice each
        // wherever `view` is alive.
        let body = rewritten(syn::parse_quote! {
            fn f(a: f64, mut xs: &[f64]) -> f64 {
                xs = &xs[1..];
                let mut y = &xs[..];
                y = &y[1..];
                let mut view = &xs[..2];
                for t in 0..2 { acc += view[0]; view = &y[t..t + 1]; }
                acc + view[0]
            }
        });
        // `y`, rebound and the source of `view`, is a view of `xs` itself (`a_window_of_a_rebound_view..`),
        // and `view`'s windows of it are windows of `xs` at `y`'s start.
        assert!(
            body.contains("let view = & xs [__view_start .. __view_end] ;"),
            "{body}"
        );
        assert!(
            body.contains("__view_start = __y_start + __view_from ;"),
            "{body}"
        );
        assert!(!body.contains("view = & y [t .. t + 1]"), "{body}");
    }

    #[test]
    fn a_source_bound_twice_before_the_local_is_followed() {
        // `y` is bound twice, both before `input`'s `let`: while `input` is alive it is the second.
        let body = rewritten(syn::parse_quote! {
            fn f(x: &[f64]) -> f64 {
                let y = &x[1..];
                let y = &y[1..];
                let mut input = &x[..];
                for t in 0..3 { input = &y[t..]; }
                input[0]
            }
        });
        assert!(body.contains("let mut __input_source = 0usize ;"), "{body}");
        assert!(!body.contains("input = & y [t ..]"), "{body}");
    }

    #[test]
    fn what_cannot_be_followed_is_left_as_written() {
        for item in [
            // A source bound again in the local's scope: there the name is another slice.
            syn::parse_quote! {
                fn f(x: &[f64]) -> f64 {
                    let y = &x[1..];
                    let mut input = &x[..];
                    for t in 0..3 { let y = &y[1..]; input = &y[t..]; }
                    input[0]
                }
            },
            // An assignment inside an expression.
            syn::parse_quote! {
                fn f(x: &[f64]) -> f64 {
                    let mut input = &x[..];
                    for t in 0..3 { s += { input = &x[t..]; 1.0 } * input[0]; }
                    input[0]
                }
            },
            // Not rebound in a loop.
            syn::parse_quote! {
                fn f(x: &[f64]) -> f64 {
                    let mut input = &x[..];
                    input = &x[1..];
                    input[0]
                }
            },
        ] {
            let item: syn::ItemFn = item;
            // (`mut y` is a local bound to the parameter first, which is then left as written.)
            let mut before = item.clone();
            super::rebound_params(&mut before);
            let before = before.block.to_token_stream().to_string();
            assert_eq!(rewritten(item), before);
        }
    }
}
