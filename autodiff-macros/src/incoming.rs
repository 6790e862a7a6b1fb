//! Does the body read an output parameter's *incoming* value? API.md: "its incoming value is an input only if
//! the body reads it before writing it", and `G` holds the output only then. The answer fixes the signatures of
//! the generated items, so it is decided here, from the syntax, before anything is lowered.
//!
//! The analysis walks the body in evaluation order and keeps what is surely written by then (`Written`):
//! the whole buffer, elements at constant indices, elements at index expressions whose names have not changed
//! since, and, inside a loop `for i in a..b` that writes `out[i]` in every iteration before it can be left,
//! every element from `a` up to `i`. A read that none of these covers reads the incoming value. Branches keep
//! what all of them wrote, loops what held before them (an iteration may not run), closures what held where
//! they are written (facts only grow with time, and a closure runs later). Whatever the analysis does not
//! understand is a read: a wrong "not read" would drop a part of the gradient, a wrong "read" only adds a
//! gradient that is zero.

use crate::lower::{is_compound_assign, strip_parens};
use std::collections::BTreeSet;
use syn::visit::Visit;
use syn::{Expr, Ident};

/// Does `body` read the incoming value of the output parameter `name`, whose length is `len` where its type
/// fixes it (`&mut [T; N]`, and 1 for a float `&mut T`)?
pub(crate) fn reads_incoming(body: &syn::Block, name: &Ident, len: Option<u64>) -> bool {
    // Writes through `&mut` elements (`for o in out.iter_mut()`) as the indexed writes they are
    // (`slice_writes.rs`).
    let body = &mut body.clone();
    crate::slice_writes::desugar_element_loops(body);
    // A binding of the name itself (`let out = ..`, a closure's `|out|`): later uses are not the parameter,
    // and writes to the new binding must not count.
    if bound_names(body).contains(&name.to_string()) {
        return true;
    }
    let mut reads = Reads {
        name,
        len,
        written: Written::default(),
        found: false,
    };
    reads.visit_block(body);
    reads.found
}

/// What is surely written at a point of the body.
#[derive(Clone, Default, Debug, PartialEq)]
struct Written {
    whole: bool,
    /// Elements at integer literals.
    at: BTreeSet<u64>,
    /// Elements at index expressions (as tokens), with the names they use.
    exprs: Vec<(String, BTreeSet<String>)>,
    /// `(i, a)`: every element from `a` up to, not including, `i` (in a loop `for i in a..b` that writes
    /// `out[i]` in each iteration).
    below: Vec<(String, u64)>,
}

impl Written {
    /// What holds on both paths.
    fn meet(&self, other: &Written) -> Written {
        Written {
            whole: self.whole && other.whole,
            at: self.at.intersection(&other.at).copied().collect(),
            exprs: (self.exprs.iter())
                .filter(|e| other.exprs.contains(e))
                .cloned()
                .collect(),
            below: (self.below.iter())
                .filter(|b| other.below.contains(b))
                .cloned()
                .collect(),
        }
    }

    /// Forgets the facts about index expressions that use one of `names`, whose values may have changed.
    fn forget(&mut self, names: &BTreeSet<String>) {
        self.exprs.retain(|(_, uses)| uses.is_disjoint(names));
        self.below.retain(|(index, _)| !names.contains(index));
    }

    /// Only what holds whatever the names hold: the whole buffer and elements at constants.
    fn constant(&self) -> Written {
        Written {
            whole: self.whole,
            at: self.at.clone(),
            ..Written::default()
        }
    }
}

/// The walk of the body, in evaluation order.
struct Reads<'n> {
    name: &'n Ident,
    len: Option<u64>,
    written: Written,
    found: bool,
}

impl Reads<'_> {
    fn is_name(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Path(p) => p.qself.is_none() && p.path.is_ident(self.name),
            Expr::Paren(p) => self.is_name(&p.expr),
            _ => false,
        }
    }

    /// Marks the element at `index` written.
    fn write(&mut self, index: &Expr) {
        match literal(index) {
            Some(k) => {
                self.written.at.insert(k);
                if let Some(len) = self.len {
                    self.written.whole |= (0..len).all(|k| self.written.at.contains(&k));
                }
            }
            None => {
                if let Some(uses) = plain_index(index) {
                    let tokens = tokens(index);
                    if !self.written.exprs.iter().any(|(t, _)| *t == tokens) {
                        self.written.exprs.push((tokens, uses));
                    }
                }
            }
        }
    }

    /// Is the element at `index` surely written?
    fn covered(&self, index: &Expr) -> bool {
        let w = &self.written;
        if w.whole {
            return true;
        }
        if let Some(k) = literal(index) {
            return w.at.contains(&k);
        }
        let tokens = tokens(index);
        if w.exprs.iter().any(|(t, _)| *t == tokens) {
            return true;
        }
        // `out[i - k]` in a loop `for i in a..b` writing `out[i]`: written by iteration `i - k`, or before
        // the loop where `i - k < a`.
        if let Expr::Binary(b) = strip_parens(index) {
            if let (syn::BinOp::Sub(_), Some(var), Some(k)) =
                (&b.op, bare_name(&b.left), literal(&b.right))
            {
                return k >= 1
                    && w.below.iter().any(|(i, a)| {
                        *i == var && *a >= k && (a - k..*a).all(|e| w.at.contains(&e))
                    });
            }
        }
        false
    }

    /// A read of the element at `index`.
    fn read(&mut self, index: &Expr) {
        self.found |= !self.covered(index);
    }

    /// A read of the whole buffer.
    fn read_all(&mut self) {
        self.found |= !self.written.whole;
    }

    // Input:  for i in 0..n { for j in 0..i - 1 { t -= l[i * n + j] * out[j]; } out[i] = t; }
    // Output: Some("j") for the inner loop: each `out[j]` it reads was written by an earlier iteration
    /// The index `j` of a loop `for j in s..e` (or `s..=e`, maybe `.rev()` or `.step_by(k)`, `s` an integer
    /// literal, `j` a plain name) inside a loop whose iterations have written every element from `a` up to
    /// `i` (`Written::below`), where `e` is `i` or `i - k` (`k ≥ 1` for `..=`): every `out[j]` is written
    /// where the elements from `s` up to `a` are.
    fn below_index(&self, f: &syn::ExprForLoop) -> Option<String> {
        let syn::Pat::Ident(j) = &*f.pat else {
            return None;
        };
        if j.by_ref.is_some() || j.mutability.is_some() || j.subpat.is_some() {
            return None;
        }
        let mut range = strip_parens(&f.expr);
        while let Expr::MethodCall(m) = range {
            if !(m.method == "rev" && m.args.is_empty()
                || m.method == "step_by" && m.args.len() == 1)
            {
                return None;
            }
            range = strip_parens(&m.receiver);
        }
        let Expr::Range(r) = range else {
            return None;
        };
        let start = literal(r.start.as_deref()?)?;
        let end = strip_parens(r.end.as_deref()?);
        let (i, k) = match end {
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Sub(_)) => {
                (bare_name(&b.left)?, literal(&b.right)?)
            }
            other => (bare_name(other)?, 0),
        };
        if matches!(r.limits, syn::RangeLimits::Closed(_)) && k == 0 {
            return None;
        }
        let w = &self.written;
        let covered = w.whole
            || w.below
                .iter()
                .any(|(index, a)| *index == i && (start..*a).all(|e| w.at.contains(&e)));
        covered.then(|| j.ident.to_string())
    }

    /// Visits `block` from `start`, and gives what is written at its end.
    fn run_block(&mut self, block: &syn::Block, start: Written) -> Written {
        let before = std::mem::replace(&mut self.written, start);
        self.visit_block(block);
        std::mem::replace(&mut self.written, before)
    }

    /// A loop whose body is `body` (and `header`, evaluated in each iteration, a `while` condition):
    /// each iteration starts from what held before the loop, less what the loop may change; so does the
    /// code after it (the loop may not run). `extra` is what holds in each iteration besides.
    fn visit_loop(
        &mut self,
        pat: Option<&syn::Pat>,
        header: Option<&Expr>,
        body: &syn::Block,
        extra: Written,
    ) {
        let mut changed = Binds::of(body).names;
        if let Some(pat) = pat {
            changed.extend(Binds::of_pat(pat).names);
        }
        if let Some(header) = header {
            changed.extend(Binds::of_expr(header).names);
        }
        let mut each = self.written.clone();
        each.forget(&changed);
        self.written = each.clone();
        if let Some(header) = header {
            self.visit_expr(header);
        }
        let mut start = self.written.clone();
        start.exprs.extend(extra.exprs);
        start.below.extend(extra.below);
        self.run_block(body, start);
        self.written = each;
    }
}

impl<'ast> Visit<'ast> for Reads<'_> {
    fn visit_block(&mut self, block: &'ast syn::Block) {
        for stmt in &block.stmts {
            self.visit_stmt(stmt);
        }
        // The names bound in the block end with it: an outer binding of the same name is another value.
        let mut local = BTreeSet::new();
        for stmt in &block.stmts {
            if let syn::Stmt::Local(l) = stmt {
                local.extend(Binds::of_pat(&l.pat).names);
            }
        }
        self.written.forget(&local);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                let before = self.written.clone();
                self.visit_expr(diverge);
                self.written = before;
            }
        }
        self.written.forget(&Binds::of_pat(&l.pat).names);
    }

    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        self.visit_expr(&l.expr);
        self.written.forget(&Binds::of_pat(&l.pat).names);
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none() && p.path.is_ident(self.name) {
            self.read_all();
        }
    }

    fn visit_expr_unary(&mut self, u: &'ast syn::ExprUnary) {
        // `*out` reads all of it (a float output's one element).
        if matches!(u.op, syn::UnOp::Deref(_)) && self.is_name(&u.expr) {
            self.read_all();
        } else {
            syn::visit::visit_expr_unary(self, u);
        }
    }

    fn visit_expr_index(&mut self, e: &'ast syn::ExprIndex) {
        if self.is_name(&e.expr) {
            self.visit_expr(&e.index);
            self.read(&e.index);
        } else {
            syn::visit::visit_expr_index(self, e);
        }
    }

    // The value first, then the place.
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.visit_expr(&a.right);
        match strip_parens(&a.left) {
            Expr::Index(target) if self.is_name(&target.expr) => {
                self.visit_expr(&target.index);
                self.write(&target.index);
            }
            // `*out = ..`: a float output, an array or a `Vec` written whole.
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && self.is_name(&u.expr) => {
                self.written.whole = true;
            }
            other => {
                self.visit_expr(other);
                self.written.forget(&Binds::root(other));
            }
        }
    }

    // A compound assignment reads its place (before its value: a write in the value never covers it).
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        syn::visit::visit_expr_binary(self, b);
        if is_compound_assign(&b.op) {
            self.written.forget(&Binds::root(&b.left));
        }
    }

    fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
        self.visit_expr(&r.expr);
        if r.mutability.is_some() {
            self.written.forget(&Binds::root(&r.expr));
        }
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if self.is_name(&m.receiver) {
            for arg in &m.args {
                self.visit_expr(arg);
            }
            match (m.method.to_string().as_str(), m.args.len()) {
                ("len" | "is_empty", 0) => {}
                // Every element written (`copy_from_slice` panics unless the lengths agree).
                ("fill" | "copy_from_slice", 1) => self.written.whole = true,
                _ => self.read_all(),
            }
            return;
        }
        syn::visit::visit_expr_method_call(self, m);
        self.written.forget(&Binds::root(&m.receiver));
    }

    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        self.visit_expr(&i.cond);
        let start = self.written.clone();
        let then = self.run_block(&i.then_branch, start.clone());
        let otherwise = match &i.else_branch {
            Some((_, e)) => {
                self.visit_expr(e);
                std::mem::replace(&mut self.written, start)
            }
            None => start,
        };
        self.written = then.meet(&otherwise);
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let start = self.written.clone();
        let mut after: Option<Written> = None;
        for arm in &m.arms {
            self.written = start.clone();
            self.written.forget(&Binds::of_pat(&arm.pat).names);
            if let Some((_, guard)) = &arm.guard {
                self.visit_expr(guard);
            }
            self.visit_expr(&arm.body);
            let mut end = std::mem::take(&mut self.written);
            end.forget(&Binds::of_pat(&arm.pat).names);
            after = Some(match after {
                Some(a) => a.meet(&end),
                None => end,
            });
        }
        self.written = after.unwrap_or(start);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let each = writes_each(f, self.name);
        let mut extra = Written::default();
        extra
            .below
            .extend(each.as_ref().map(|(i, a)| (i.to_string(), *a)));
        if let Some(j) = self.below_index(f) {
            extra.exprs.push((j.clone(), [j].into()));
        }
        let before = self.written.clone();
        self.visit_loop(Some(&f.pat), None, &f.body, extra);
        // After a loop over every index, without `break`, whose iterations each write theirs: all written.
        if let Some((_, a)) = each {
            let prefix = (0..a).all(|k| before.at.contains(&k)) || before.whole;
            let all = over_all(&f.expr, self.name, self.len);
            self.written.whole |= prefix && all && !has_break(&f.body);
        }
    }

    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.visit_loop(None, Some(&w.cond), &w.body, Written::default());
    }

    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        self.visit_loop(None, None, &l.body, Written::default());
    }

    fn visit_expr_block(&mut self, b: &'ast syn::ExprBlock) {
        if b.label.is_some() {
            // `break 'a` may leave it before any of its writes.
            let mut before = self.written.clone();
            self.visit_block(&b.block);
            before.forget(&Binds::of(&b.block).names);
            self.written = before;
        } else {
            self.visit_block(&b.block);
        }
    }

    // A closure runs later, maybe never, maybe many times: its reads see at least what holds here, and its
    // writes count for nothing outside it.
    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        let before = self.written.clone();
        self.written = before.constant();
        self.visit_expr(&c.body);
        self.written = before;
    }

    fn visit_expr_macro(&mut self, m: &'ast syn::ExprMacro) {
        self.visit_macro(&m.mac);
    }

    fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
        self.visit_macro(&m.mac);
    }

    // `vec![out[0]; n]` reads as its arguments do; any other macro reads the buffer if it names it, and may
    // change any name.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.is_ident("vec") {
            for arg in crate::chains::vec_arg_exprs(m) {
                self.visit_expr(&arg);
            }
            return;
        }
        if mentions(m.tokens.clone(), self.name) {
            self.read_all();
        }
        self.written = self.written.constant();
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

// Input:  for i in 1..x.len() { let v = x[i]; out[i] = out[i - 1] + v; }
// Output: Some((i, 1)): every iteration that starts has had each earlier one write its `out[i]`
/// Does every iteration of `f` write `out[i]` (its index) before anything can leave it? The loop must be
/// `for i in a..b` or `a..=b` (`a` an integer literal, the index a plain name, not `mut`) whose body has,
/// among its own statements, `out[i] = ..;`, with no `continue` and no macro before it (nor in its value),
/// and no binding of `i` again. Gives the index and `a`.
fn writes_each(f: &syn::ExprForLoop, out: &Ident) -> Option<(Ident, u64)> {
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
fn over_all(range: &Expr, out: &Ident, len: Option<u64>) -> bool {
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
struct Leaves<'i> {
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

/// Is there a `break` anywhere in `body` (also of an inner loop: conservative)?
fn has_break(body: &syn::Block) -> bool {
    struct Breaks(bool);
    impl<'ast> Visit<'ast> for Breaks {
        fn visit_expr_break(&mut self, _: &'ast syn::ExprBreak) {
            self.0 = true;
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut breaks = Breaks(false);
    breaks.visit_block(body);
    breaks.0
}

/// The names a piece of code may give a new value: bound by a pattern, assigned, borrowed `&mut`, or the
/// receiver of a method call.
#[derive(Default)]
struct Binds {
    names: BTreeSet<String>,
}

impl Binds {
    fn of(block: &syn::Block) -> Self {
        let mut binds = Binds::default();
        binds.visit_block(block);
        binds
    }
    fn of_expr(expr: &Expr) -> Self {
        let mut binds = Binds::default();
        binds.visit_expr(expr);
        binds
    }
    fn of_pat(pat: &syn::Pat) -> Self {
        let mut binds = Binds::default();
        binds.visit_pat(pat);
        binds
    }
    /// The name at the root of a place (`i` of `i`, `a` of `a[k].b`).
    fn root(place: &Expr) -> BTreeSet<String> {
        match place {
            Expr::Path(p) => p
                .path
                .get_ident()
                .map(|i| i.to_string())
                .into_iter()
                .collect(),
            Expr::Paren(p) => Binds::root(&p.expr),
            Expr::Index(i) => Binds::root(&i.expr),
            Expr::Field(f) => Binds::root(&f.base),
            Expr::Unary(u) => Binds::root(&u.expr),
            _ => BTreeSet::new(),
        }
    }
}

impl<'ast> Visit<'ast> for Binds {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.names.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.names.extend(Binds::root(&a.left));
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if is_compound_assign(&b.op) {
            self.names.extend(Binds::root(&b.left));
        }
        syn::visit::visit_expr_binary(self, b);
    }
    fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
        if r.mutability.is_some() {
            self.names.extend(Binds::root(&r.expr));
        }
        syn::visit::visit_expr_reference(self, r);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.names.extend(Binds::root(&m.receiver));
        syn::visit::visit_expr_method_call(self, m);
    }
    // A macro may bind or change anything: every name it mentions.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        fn idents(tokens: proc_macro2::TokenStream, into: &mut BTreeSet<String>) {
            for t in tokens {
                match t {
                    proc_macro2::TokenTree::Ident(i) => {
                        into.insert(i.to_string());
                    }
                    proc_macro2::TokenTree::Group(g) => idents(g.stream(), into),
                    _ => {}
                }
            }
        }
        idents(m.tokens.clone(), &mut self.names);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The names that patterns in `block` bind (`let`, closures' parameters, match arms, loops).
fn bound_names(block: &syn::Block) -> BTreeSet<String> {
    struct Patterns(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Patterns {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut patterns = Patterns(BTreeSet::new());
    patterns.visit_block(block);
    patterns.0
}

/// An integer literal's value.
fn literal(expr: &Expr) -> Option<u64> {
    match strip_parens(expr) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// A plain name (`i`).
fn bare_name(expr: &Expr) -> Option<String> {
    match strip_parens(expr) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// The names of an index made of names, integer literals, arithmetic and casts (`i`, `2 * i + 1`,
/// `n - 1 - i`), which gives the same element while none of them changes; `None` for any other index (a
/// call, a method call, a block).
fn plain_index(index: &Expr) -> Option<BTreeSet<String>> {
    match strip_parens(index) {
        Expr::Path(p) => Some(p.path.get_ident()?.to_string()).map(|n| [n].into()),
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(_),
            ..
        }) => Some(BTreeSet::new()),
        Expr::Binary(b)
            if matches!(
                b.op,
                syn::BinOp::Add(_)
                    | syn::BinOp::Sub(_)
                    | syn::BinOp::Mul(_)
                    | syn::BinOp::Div(_)
                    | syn::BinOp::Rem(_)
            ) =>
        {
            let mut names = plain_index(&b.left)?;
            names.extend(plain_index(&b.right)?);
            Some(names)
        }
        Expr::Cast(c) => plain_index(&c.expr),
        _ => None,
    }
}

/// An index as tokens, to compare one with another.
fn tokens(expr: &Expr) -> String {
    use quote::ToTokens;
    strip_parens(expr).to_token_stream().to_string()
}

/// Does a macro's token stream name `name`?
fn mentions(tokens: proc_macro2::TokenStream, name: &Ident) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == *name,
        proc_macro2::TokenTree::Group(g) => mentions(g.stream(), name),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads_in(body: &str, len: Option<u64>) -> bool {
        let block: syn::Block = syn::parse_str(&format!("{{ {body} }}")).unwrap();
        reads_incoming(&block, &syn::parse_str("y").unwrap(), len)
    }

    fn reads(body: &str) -> bool {
        reads_in(body, None)
    }

    #[test]
    fn an_output_written_whole_by_a_loop_before_any_read_is_not_read() {
        // Written whole, then read (also inside a branch after it, and passed on).
        for body in [
            "for i in 0..y.len() { y[i] = 0.0; } for i in 1..y.len() { y[i] = y[i - 1]; }",
            "for i in 0..y.len() { let v = x[i]; y[i] = v * v; } if c { g(y); }",
            "for i in 0..y.len() { y[i] = x; if i > 2 { continue; } } s = y[0];",
            "for i in 0..y.len() { y[i] = x; return; } s = y[0];",
            "y[0] = 1.0; for i in 1..y.len() { y[i] = y[i - 1] * x; } s = y.iter().sum();",
        ] {
            assert!(!reads(body), "{body}");
        }
        // Not surely whole, or read first: the incoming value is read.
        for body in [
            "for i in 1..y.len() { y[i] = 0.0; } s = y[0];",
            "for i in 0..=y.len() - 1 { y[i] = 0.0; } s = y[0];",
            "for i in 0..n { y[i] = 0.0; } s = y[0];",
            "for i in 0..y.len() { if i == 1 { continue; } y[i] = 0.0; } s = y[1];",
            "'a: for i in 0..y.len() { y[i] = x; if i > 2 { break 'a; } } s = y[4];",
            "for i in 0..y.len() { y[i] = x; if i > 2 { break; } } s = y[4];",
            "for i in 0..y.len() { let i = 0; y[i] = 0.0; } s = y[1];",
            "for i in 0..y.len() { s += y[i]; y[i] = 0.0; }",
            "for i in 0..y.len() { if c { y[i] = 0.0; } } s = y[1];",
            "for i in 0..y.len() { y[i + 1 - 1] = 0.0; } s = y[1];",
            "if c { for i in 0..y.len() { y[i] = 0.0; } } s = y[1];",
            "for i in 0..y.len() { f!(i); y[i] = 0.0; } s = y[1];",
            "for i in (0..y.len()).rev() { y[i] = 0.0; } s = y[1];",
            "for i in 0..x.len() { y[i] = 0.0; } s = y[1];",
        ] {
            assert!(reads(body), "{body}");
        }
    }

    #[test]
    fn whole_writes_by_methods_and_constants() {
        for (body, len) in [
            ("y.fill(0.0); s = y[3];", None),
            ("y.copy_from_slice(&x); s = y.iter().sum();", None),
            ("y[0] = x; y[1] = 2.0 * x; s = y[0] * y[1]; g(y);", Some(2)),
            ("*y = x; *y *= 2.0; s = y.sqrt();", Some(1)),
            ("*y = [x, x]; s = y[1];", Some(2)),
            ("for i in 0..3 { y[i] = x; } s = y[2];", Some(3)),
            ("s = y.len() as f64; y.fill(x);", None),
        ] {
            assert!(!reads_in(body, len), "{body}");
        }
        for (body, len) in [
            ("y[0] = x; s = y[1];", Some(2)),
            ("y[0] = x; y[1] = x; g(y);", Some(3)),
            ("s = y[0]; y.fill(0.0);", None),
            ("if c { y.fill(0.0); } s = y[0];", None),
            ("y.fill(y[0]);", None),
            ("*y *= 2.0;", Some(1)),
            ("for i in 0..3 { y[i] = x; } s = y[2];", Some(4)),
            ("for i in 0..3 { y[i] = x; } s = y[2];", None),
        ] {
            assert!(reads_in(body, len), "{body}");
        }
    }

    #[test]
    fn elements_read_after_they_are_written() {
        for body in [
            // The prefix scan: `y[i - 1]` written before the loop or by the iteration before.
            "y[0] = x[0]; for i in 1..x.len() { y[i] = y[i - 1] + x[i]; }",
            "y[0] = x[0]; for i in 1..x.len() { let p = y[i - 1]; y[i] = p + x[i]; s += y[i - 1]; }",
            "y[0] = 1.0; y[1] = 1.0; for i in 2..n { y[i] = y[i - 1] + y[i - 2]; }",
            "y[0] = 1.0; for i in 1..n { y[i] = x; if c { break; } for j in 0..m { s += y[i - 1]; } }",
            // Same iteration, after the write.
            "for i in 0..n { y[i] = x[i]; y[i] *= 2.0; y[i] += y[i]; }",
            "for i in 0..n { y[2 * i + 1] = x[i]; s += y[2 * i + 1]; }",
            "y[k] = x; s = y[k];",
            "y[0] = x; if c { s = y[0]; } else { s = 1.0; }",
            "if c { y[0] = x; } else { y[0] = 2.0; } s = y[0];",
            "y[0] = x; let f = |v: f64| v * y[0];",
            // Every element below the iteration's, in an inner loop (forward substitution).
            "for i in 0..n { let mut t = b[i]; if i > 1 { for j in 0..i - 1 { t -= l[j] * y[j]; } } y[i] = t; }",
            "for i in 0..n { let mut t = b[i]; for j in (0..i).rev() { t -= y[j]; } y[i] = t; }",
            "y[0] = 1.0; for i in 1..n { for j in 0..=i - 1 { s += y[j]; } y[i] = s; }",
        ] {
            assert!(!reads(body), "{body}");
        }
        for body in [
            // The prefix scan without the element before the loop, or an iteration that may not write.
            "for i in 1..x.len() { y[i] = y[i - 1] + x[i]; }",
            "for i in 0..x.len() { y[i] = y[i - 1] + x[i]; }",
            "y[0] = x[0]; for i in 1..n { if c { y[i] = x[i]; } s += y[i - 1]; }",
            "y[0] = x[0]; for i in 1..n { if c { continue; } y[i] = y[i - 1]; }",
            "y[0] = x[0]; for i in 1..n { s += y[i - 2]; y[i] = x[i]; }",
            "y[1] = x[0]; for i in 1..n { y[i] = y[i - 1]; }",
            "y[0] = x[0]; for i in (1..n).rev() { y[i] = y[i - 1]; }",
            "y[0] = x[0]; for i in (1..n).step_by(2) { y[i] = y[i - 1]; }",
            "y[0] = x[0]; for mut i in 1..n { y[i] = x; i += 1; s = y[i - 1]; }",
            "y[0] = x[0]; for i in 1..n { let i = i + 1; y[i] = y[i - 1]; }",
            "y[0] = x[0]; for i in 1..n { y[i] = x[i]; } s = y[n - 1];",
            // An inner loop reaching the iteration's own element, or below the first.
            "for i in 0..n { let mut t = b[i]; for j in 0..=i { t -= y[j]; } y[i] = t; }",
            "for i in 1..n { let mut t = b[i]; for j in 0..i { t -= y[j]; } y[i] = t; }",
            "for i in 0..n { let mut t = b[i]; for j in 0..i + 1 { t -= y[j]; } y[i] = t; }",
            "for i in 0..n { let mut t = b[i]; for j in 0..i { let j = j + 1; t -= y[j]; } y[i] = t; }",
            "for i in 0..n { let mut t = b[i]; for j in 0..m { t -= y[j]; } y[i] = t; }",
            "for i in 0..n { let mut t = b[i]; for j in 0..i { t -= y[j]; } if c { y[i] = t; } }",
            // Before the write, or at another element.
            "for i in 0..n { y[i] += x[i]; }",
            "for i in 0..n { s += y[i]; y[i] = x[i]; }",
            "for i in 0..n { y[i] = x[i]; s += y[i + 1]; }",
            // The index changed between the write and the read.
            "y[k] = x; k += 1; s = y[k];",
            "y[k] = x; let k = k + 1; s = y[k];",
            "y[k] = x; bump(&mut k); s = y[k];",
            "y[k] = x; if c { k = 2; } s = y[k];",
            "y[k] = x; for k in 0..2 { s += y[k]; }",
            "y[k] = x; while c { s += y[k]; k += 1; }",
            "{ let k = 1; y[k] = x; } s = y[k];",
            "y[f(k)] = x; s = y[f(k)];",
            "y[k] = x; m!(k); s = y[k];",
            // A branch that may not write, a labelled block left early.
            "if c { y[0] = x; } s = y[0];",
            "match m { 0 => y[0] = x, _ => {} } s = y[0];",
            "'a: { if c { break 'a; } y.fill(0.0); } s = y[0];",
            "'a: { if c { break 'a; } y[0] = 1.0; } s = y[0];",
            // Reads through other names, calls and macros.
            "let z = &mut *y; z[0] = x; s = y[0];",
            "s = total(y); y.fill(0.0);",
            "s = y.iter().sum(); y.fill(0.0);",
            "g(x, y); s = y[0];",
            "println!(\"{}\", y[0]); y.fill(0.0);",
            "let r = || y[0]; y.fill(0.0); s = r();",
            "let mut w = |v| y[0] = v; w(x); s = y[0];",
            // The name bound again: the parameter's later uses are another value.
            "{ let y = &mut z; y.fill(0.0); } s = y[0];",
        ] {
            assert!(reads(body), "{body}");
        }
    }
}
