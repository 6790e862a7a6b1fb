//! Does the body read an output parameter's *incoming* value? API.md: "its incoming value is an input only if
//! the body reads it before writing it", and `G` holds the output only then. The answer fixes the signatures of
//! the generated items, so it is decided here, from the syntax, before anything is lowered.
//!
//! The analysis walks the body in evaluation order and keeps what is surely written by then (`Written`):
//! the whole buffer, elements at constant indices, elements at index expressions whose names have not changed
//! since, runs `[a, e)` written by a sub-slice's `fill`/`copy_from_slice` or by a loop over `a..e` that wrote
//! each of its elements (chained from 0 to the length, the whole buffer), and, inside a loop `for i in a..b`
//! that writes `out[i]` in every iteration before it can be left, every element from `a` up to `i` (above
//! `i` for `(a..b).rev()`). A read that none of these covers reads the incoming value. Branches keep what all
//! of them wrote, the right of `&&`/`||` nothing, loops what held before them (an iteration may not run),
//! closures what held where they are written (facts only grow with time, and a closure runs later), less
//! what the closure may change. Whatever the analysis does not understand is a read: a wrong "not read"
//! would drop a part of the gradient, a wrong "read" only adds a gradient that is zero.

mod loops;
mod names;
#[cfg(test)]
mod tests;
mod written;

pub(crate) use names::index_moved_by;

use crate::lower::{is_compound_assign, strip_parens};
use loops::{counts_up, has_break, loop_range, writes_each};
use names::{bare_name, bound_names, let_bindings, literal, mentions, plain_index, tokens, Binds};
use std::collections::BTreeSet;
use syn::visit::Visit;
use syn::{Expr, Ident};
use written::{Bound, Written};

/// The longest run of literal indices the analysis walks element by element (a longer one is not
/// enumerated: `for i in 0..1_000_000_000` must not make the compiler walk it).
const MAX_RUN: u64 = 4096;

/// `e` of `a + ::autodiff::__private::copy_len(e - a, n)`, the checked end of a copy that `slice_writes.rs`
/// desugars into a loop (`copy_len` gives its first argument or panics), and of `a +
/// ::autodiff::__private::window_len(n, a, e)`, the checked end of a sub-slice receiver `w[a..e]` there
/// (`window_len` gives `e - a` or panics), so that the run reads the same in the desugared body (the
/// generic copy's) as in the body as written.
fn checked_copy_end(expr: &Expr) -> Option<&Expr> {
    let Expr::Binary(sum) = strip_parens(expr) else {
        return None;
    };
    let Expr::Call(call) = strip_parens(&sum.right) else {
        return None;
    };
    let Expr::Path(f) = &*call.func else {
        return None;
    };
    if !matches!(sum.op, syn::BinOp::Add(_)) {
        return None;
    }
    let names = crate::naming::path_names(&f.path);
    if names == ["autodiff", "__private", "copy_len"] {
        let Expr::Binary(length) = strip_parens(call.args.first()?) else {
            return None;
        };
        (matches!(length.op, syn::BinOp::Sub(_)) && tokens(&length.right) == tokens(&sum.left))
            .then_some(&*length.left)
    } else if names == ["autodiff", "__private", "window_len"] && call.args.len() == 3 {
        (tokens(&call.args[1]) == tokens(&sum.left)).then_some(&call.args[2])
    } else {
        None
    }
}

/// The pattern of `let p: T = ..` without its type.
fn strip_pat_type(pat: &syn::Pat) -> &syn::Pat {
    match pat {
        syn::Pat::Type(t) => strip_pat_type(&t.pat),
        other => other,
    }
}

/// Does `body` read the incoming value of the output parameter `name`, whose length is `len` where its type
/// fixes it (`&mut [T; N]`, and 1 for a float `&mut T`)?
pub(crate) fn reads_incoming(body: &syn::Block, name: &Ident, len: Option<u64>) -> bool {
    // Writes through `&mut` elements (`for o in out.iter_mut()`) as the indexed writes they are
    // (`slice_writes.rs`).
    let body = &mut body.clone();
    crate::slice_writes::desugar_element_loops(body);
    // `assert_eq!(out.len(), n)` reads the length only, as the branch it is (`asserts.rs`).
    crate::asserts::desugar_quietly(body);
    // A binding of the name itself (`let out = ..`, a closure's `|out|`): later uses are not the parameter,
    // and writes to the new binding must not count.
    if bound_names(body).contains(&name.to_string()) {
        return true;
    }
    // A `static mut` may change without the body naming it (any call may assign it), so an index that
    // uses one would not give the same element later: it can only be read inside `unsafe`, which the
    // fence rejects; here too, a body with an `unsafe` block reads the incoming value.
    if has_unsafe(body) {
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

/// Does `body` hold an `unsafe` block (where a `static mut` could be read), closures' bodies included?
fn has_unsafe(body: &syn::Block) -> bool {
    struct Unsafe(bool);
    impl<'ast> Visit<'ast> for Unsafe {
        fn visit_expr_unsafe(&mut self, _: &'ast syn::ExprUnsafe) {
            self.0 = true;
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut found = Unsafe(false);
    found.visit_block(body);
    found.0
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
            return w.has(k);
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
                        *i == var && *a >= k && k <= MAX_RUN && (a - k..*a).all(|e| w.has(e))
                    });
            }
            // `out[i + 1]` in a loop `for i in (a..e).rev()` writing `out[i]`: written by the iteration
            // before, or before the loop where `i + 1 = e` (the output's length: out of bounds).
            if let (syn::BinOp::Add(_), Some(var), Some(1)) =
                (&b.op, bare_name(&b.left), literal(&b.right))
            {
                return w.above.iter().any(|(i, e)| {
                    *i == var
                        && match e {
                            Bound::Lit(k) => w.has(*k),
                            Bound::Expr(t, _) => {
                                *e == self.len_bound() || w.exprs.iter().any(|(u, _)| u == t)
                            }
                        }
                });
            }
        }
        false
    }

    /// The output's `len()` as a bound (its fixed length where the type gives one).
    fn len_bound(&self) -> Bound {
        match self.len {
            Some(n) => Bound::Lit(n),
            None => {
                let name = self.name;
                Bound::Expr(tokens(&syn::parse_quote!(#name.len())), BTreeSet::new())
            }
        }
    }

    /// A bound of a run: an integer literal, an index expression made of names, or a `len()` (of the
    /// output: it uses no name).
    fn bound(&self, expr: &Expr) -> Option<Bound> {
        if let Some(k) = literal(expr) {
            return Some(Bound::Lit(k));
        }
        if let Some(name) = bare_name(expr) {
            if let Some((_, b)) = self.written.aliases.iter().rev().find(|(a, _)| *a == name) {
                return Some(b.clone());
            }
        }
        if let Some(end) = checked_copy_end(expr) {
            return self.bound(end);
        }
        if let Some(min) = self.min_bound(expr) {
            return Some(min);
        }
        if let Expr::MethodCall(m) = strip_parens(expr) {
            let receiver = bare_name(&m.receiver)?;
            if m.method != "len" || !m.args.is_empty() {
                return None;
            }
            if *self.name == receiver {
                return Some(self.len_bound());
            }
            return Some(Bound::Expr(tokens(expr), [receiver].into()));
        }
        Some(Bound::Expr(tokens(expr), plain_index(expr)?))
    }

    // Input:  for (o, a) in out.iter_mut().zip(x) { .. }  (`0..usize::min(out.len(), x.len())`, slice_writes.rs)
    // Output: Bound::Expr("usize :: min (out . len () , x . len ())", {"x"}): not the output's length (`x`
    //         may be shorter), but the same run again in a second such loop
    /// `usize::min(a, b)` (or `std::cmp::min`, `core::cmp::min`) of two bounds: the smaller literal of two
    /// literals, else the call as tokens with the names both use.
    fn min_bound(&self, expr: &Expr) -> Option<Bound> {
        let Expr::Call(call) = strip_parens(expr) else {
            return None;
        };
        let Expr::Path(f) = strip_parens(&call.func) else {
            return None;
        };
        let path = crate::naming::path_names(&f.path);
        let is_min = f.qself.is_none()
            && call.args.len() == 2
            && matches!(
                path.iter().map(String::as_str).collect::<Vec<_>>()[..],
                ["usize", "min"] | ["std" | "core", "cmp", "min"]
            );
        if !is_min {
            return None;
        }
        let (a, b) = (self.bound(&call.args[0])?, self.bound(&call.args[1])?);
        Some(match (a, b) {
            (Bound::Lit(a), Bound::Lit(b)) => Bound::Lit(a.min(b)),
            (a, b) => {
                // The names the tokens show (`n` of `usize::min(n, x.len())`, where `n` stands for
                // another bound) and those the bounds use; not the output's, whose length is fixed.
                let mut names = names::names_in(expr);
                for bound in [a, b] {
                    if let Bound::Expr(_, uses) = bound {
                        names.extend(uses);
                    }
                }
                names.remove(&self.name.to_string());
                Bound::Expr(tokens(expr), names)
            }
        })
    }

    /// The bounds `[a, e)` of a range `a..e` (`a..=k` of a literal `k`, `..e`, `a..` to the output's
    /// length).
    fn range_bounds(&self, r: &syn::ExprRange) -> Option<(Bound, Bound)> {
        let start = match r.start.as_deref() {
            Some(a) => self.bound(a)?,
            None => Bound::Lit(0),
        };
        let end = match (r.end.as_deref(), &r.limits) {
            (Some(e), syn::RangeLimits::HalfOpen(_)) => self.bound(e)?,
            (Some(e), syn::RangeLimits::Closed(_)) => Bound::Lit(literal(e)?.checked_add(1)?),
            (None, _) => self.len_bound(),
        };
        Some((start, end))
    }

    /// The run `[a + k, e + k)`, where `a` is a literal and `e` a literal or `x - k` (of the range's end).
    fn shift(&self, k: u64, range: &syn::ExprRange) -> Option<(Bound, Bound)> {
        let a = literal(range.start.as_deref()?)?;
        let end = range.end.as_deref()?;
        let end = match literal(end) {
            Some(e) => Bound::Lit(e.checked_add(k)?),
            None => match strip_parens(end) {
                Expr::Binary(b)
                    if matches!(b.op, syn::BinOp::Sub(_)) && literal(&b.right) == Some(k) =>
                {
                    self.bound(&b.left)?
                }
                _ => return None,
            },
        };
        let start = Bound::Lit(a.checked_add(k)?);
        matches!(range.limits, syn::RangeLimits::HalfOpen(_)).then_some((start, end))
    }

    /// Adds the run `[a, e)` written, and marks the buffer whole if the runs now chain over it.
    fn write_span(&mut self, start: Bound, end: Bound) {
        if let (Bound::Lit(a), Bound::Lit(e)) = (&start, &end) {
            if e.saturating_sub(*a) <= MAX_RUN {
                self.written.at.extend(*a..*e);
            }
        }
        if !self.written.spans.contains(&(start.clone(), end.clone())) {
            self.written.spans.push((start, end));
        }
        let len = self.len_bound();
        self.written.chain(&len, self.len);
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
            || w.below.iter().any(|(index, a)| {
                *index == i && a.saturating_sub(start) <= MAX_RUN && (start..*a).all(|e| w.has(e))
            });
        covered.then(|| j.ident.to_string())
    }

    // Input:  for i in 0..z.len() { p[i] = z[i].exp(); s += p[i]; } for i in 0..z.len() { p[i] /= s; }
    // Output: Some("i") for the second loop: every `p[i]` it reads is in the run the first wrote
    /// The index `j` of a loop `for j in s..e` (maybe `.rev()` or `.step_by(k)`) whose range a written run
    /// covers.
    fn span_index(&self, f: &syn::ExprForLoop) -> Option<String> {
        let (j, range) = loop_range(f)?;
        let (start, end) = self.range_bounds(range)?;
        self.written.covers(&start, &end).then_some(j)
    }

    // Input:  for i in (0..n).rev() { let mut t = b[i]; for j in i + 1..n { t -= u[j] * y[j]; } y[i] = t; }
    // Output: Some("j") for the inner loop: each `y[j]` it reads was written by an earlier iteration
    /// The index `j` of a loop `for j in i + 1..e` inside a loop `for i in (a..e).rev()` whose iterations
    /// each write `out[i]` (`Written::above`).
    fn above_index(&self, f: &syn::ExprForLoop) -> Option<String> {
        let (j, range) = loop_range(f)?;
        if !matches!(range.limits, syn::RangeLimits::HalfOpen(_)) {
            return None;
        }
        let Expr::Binary(b) = strip_parens(range.start.as_deref()?) else {
            return None;
        };
        let (syn::BinOp::Add(_), Some(i), Some(1)) = (&b.op, bare_name(&b.left), literal(&b.right))
        else {
            return None;
        };
        let end = self.bound(range.end.as_deref()?)?;
        (self.written.above.iter())
            .any(|(index, e)| *index == i && end.at_or_below(e))
            .then_some(j)
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
        start.above.extend(extra.above);
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
        // `let n = out.len();`, `let lo = 0;` (the sub-slice writes' loops, `slice_writes.rs`): a name that
        // stands for a bound until it is bound again or may change.
        if let (syn::Pat::Ident(p), Some(init)) = (strip_pat_type(&l.pat), &l.init) {
            // `let mut i = 0;` too: any change of `i` forgets it.
            let plain = p.by_ref.is_none() && p.subpat.is_none();
            if let (true, None, Some(bound)) = (plain, &init.diverge, self.bound(&init.expr)) {
                self.written.aliases.push((p.ident.to_string(), bound));
            }
        }
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
                self.written.forget(&Binds::assigned(other));
            }
        }
    }

    // A compound assignment reads its place, after its value for primitive operands and before it for others
    // (`T: AddAssign`): its place must be covered either way, so it is read where what the value writes does
    // not count yet and the names the value changes are forgotten. The right operand of `&&` and `||` may not
    // run: its writes count for nothing after it, the names it changes are forgotten.
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if is_compound_assign(&b.op) {
            let before = self.written.clone();
            self.written.forget(&Binds::of_expr(&b.right).names);
            self.visit_expr(&b.left);
            let place = Binds::of_expr(&b.left).names;
            self.written = before;
            self.visit_expr(&b.right);
            self.written.forget(&place);
            self.written.forget(&Binds::root(&b.left));
        } else if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) {
            self.visit_expr(&b.left);
            let mut before = self.written.clone();
            self.visit_expr(&b.right);
            before.forget(&Binds::of_expr(&b.right).names);
            self.written = before;
        } else {
            syn::visit::visit_expr_binary(self, b);
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
        // `out[a..e].fill(v)`, `out[a..e].copy_from_slice(s)`: no read, the run `[a, e)` written (where its
        // bounds are understood and nothing here changes their names), as in the loop `slice_writes.rs`
        // makes of it, which other passes analyse: both must agree.
        if let Expr::Index(sub) = strip_parens(&m.receiver) {
            if let (true, Expr::Range(r)) = (self.is_name(&sub.expr), strip_parens(&sub.index)) {
                if matches!(m.method.to_string().as_str(), "fill" | "copy_from_slice")
                    && m.args.len() == 1
                    && matches!(r.limits, syn::RangeLimits::HalfOpen(_))
                {
                    let bounds = self.range_bounds(r);
                    self.visit_expr(&sub.index);
                    self.visit_expr(&m.args[0]);
                    if let Some((start, end)) = bounds {
                        let mut check = Written::default();
                        check.spans.push((start.clone(), end.clone()));
                        check.forget(&Binds::of_expr(&sub.index).names);
                        check.forget(&Binds::of_expr(&m.args[0]).names);
                        if !check.spans.is_empty() {
                            self.write_span(start, end);
                        }
                    }
                    return;
                }
            }
        }
        syn::visit::visit_expr_method_call(self, m);
        if names::may_change_receiver(m) {
            self.written.forget(&Binds::root(&m.receiver));
        }
    }

    // The names an `if let` binds are other values in the `then` branch: its writes through them do not
    // count after it.
    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        self.visit_expr(&i.cond);
        let start = self.written.clone();
        let mut then = self.run_block(&i.then_branch, start.clone());
        then.forget(&let_bindings(&i.cond));
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

    // Input:  y[n - 1] = b; for i in (0..n - 1).rev() { y[i] = y[i + 1] * c; }
    // Output: `y[i + 1]` is covered in each iteration, and `[0, n - 1)` is written after the loop
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let each = writes_each(f, self.name);
        let bounds = each.as_ref().and_then(|e| self.range_bounds(e.range));
        let mut extra = Written::default();
        if let (Some(each), Some((start, end))) = (each.as_ref().filter(|e| e.shift == 0), &bounds)
        {
            let (i, range, rev) = (each.index.to_string(), each.range, each.rev);
            match (rev, start) {
                (false, Bound::Lit(a)) => extra.below.push((i, *a)),
                (true, _) if matches!(range.limits, syn::RangeLimits::HalfOpen(_)) => {
                    extra.above.push((i, end.clone()))
                }
                _ => {}
            }
        }
        // `out[i + k] = ..` after `out[a..a + k]`: `out[i]` and below were written before the loop or by
        // iteration `i - k`.
        if let Some(e) = each.as_ref().filter(|e| e.shift > 0 && !e.rev) {
            if let Some(a) = e.range.start.as_deref().and_then(literal) {
                if e.shift <= MAX_RUN && (a..a.saturating_add(e.shift)).all(|k| self.written.has(k))
                {
                    let i = e.index.to_string();
                    extra.below.push((i.clone(), a));
                    extra.exprs.push((i.clone(), [i].into()));
                }
            }
        }
        for j in [self.below_index(f), self.span_index(f), self.above_index(f)]
            .into_iter()
            .flatten()
        {
            extra.exprs.push((j.clone(), [j].into()));
        }
        self.visit_loop(Some(&f.pat), None, &f.body, extra);
        // After a loop without `break` whose iterations each write theirs, the run of its range is
        // written (the range is evaluated once: the body must not change the names of its bounds).
        // A write `out[i + k]` shifts the run by `k` (`a..n - k` writes `[a + k, n)`).
        let shifted = match &each {
            Some(e) if e.shift == 0 => bounds,
            Some(e) => self.shift(e.shift, e.range),
            None => None,
        };
        if let Some((start, end)) = shifted {
            let changed = Binds::of(&f.body).names;
            let mut check = Written::default();
            check.spans.push((start.clone(), end.clone()));
            check.forget(&changed);
            if !has_break(&f.body) && !check.spans.is_empty() {
                self.write_span(start, end);
            }
        }
    }

    // Input:  let mut i = 0; while i < n { y[i] = x; i += 1; }
    // Output: `y[i - 1]` covered in each iteration, the run `[0, n)` written after the loop
    // A counter that starts at a literal (`let mut i = 0;`, not changed since) and counts up as a `for` loop
    // over `a..e` would: the same facts.
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        let counted = counts_up(w, self.name).and_then(|(i, end)| {
            let Some(Bound::Lit(a)) = self.bound(&syn::parse_str::<Expr>(&i).ok()?) else {
                return None;
            };
            let end = self.bound(end)?;
            let mut check = Written::default();
            check.spans.push((Bound::Lit(a), end.clone()));
            check.forget(&Binds::of(&w.body).names);
            (!check.spans.is_empty()).then_some((i, a, end))
        });
        let mut extra = Written::default();
        if let Some((i, a, _)) = &counted {
            extra.below.push((i.clone(), *a));
        }
        self.visit_loop(None, Some(&w.cond), &w.body, extra);
        if let Some((_, a, end)) = counted {
            if !has_break(&w.body) {
                self.write_span(Bound::Lit(a), end);
            }
        }
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
    // writes count for nothing outside it. The names it changes may change from here on (the borrow checker
    // keeps them from being used while the closure may still be called), so they are forgotten now.
    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        let mut before = self.written.clone();
        self.written = before.constant();
        self.visit_expr(&c.body);
        before.forget(&Binds::of_expr(&c.body).names);
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
