//! The fence: rejects every construct outside the supported subset, all of them in one run, each with a
//! span on the user's code and a suggestion of what to write instead (google/tangent's `fence.py`).
//!
//! The fence checks syntax alone. What needs to know which values are active (a method with no derivative
//! applied to an active value) is reported by `activity.rs`.

use crate::errors::Errors;
use syn::visit::{self, Visit};
use syn::{Expr, Pat};

/// Reports every unsupported construct of `block`.
pub(crate) fn check(block: &syn::Block, errors: &mut Errors) {
    let mut literals = StructLocals(Vec::new());
    literals.visit_block(block);
    Fence {
        errors,
        struct_locals: literals.0,
    }
    .visit_block(block);
}

struct Fence<'e> {
    errors: &'e mut Errors,
    /// Locals bound to a struct literal (`let p = Point { .. };`), whose error says what to write: their
    /// fields read (`p.x`) get no second one.
    struct_locals: Vec<syn::Ident>,
}

/// The names that `let name = Struct { .. };` or `let name = self;` binds in a body.
struct StructLocals(Vec<syn::Ident>);

impl<'ast> Visit<'ast> for StructLocals {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        let struct_valued = local
            .init
            .as_ref()
            .is_some_and(|init| matches!(&*init.expr, Expr::Struct(_)) || is_self(&init.expr));
        if let (true, Pat::Ident(p)) = (struct_valued, &local.pat) {
            self.0.push(p.ident.clone());
        }
        visit::visit_local(self, local);
    }
}

/// Is `expr` the receiver `self` (or `&self`, `*self`)?
fn is_self(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.path.is_ident("self"),
        Expr::Reference(r) => is_self(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => is_self(&u.expr),
        Expr::Paren(p) => is_self(&p.expr),
        _ => false,
    }
}

/// Loop labels are rewritten before the fence (`labels.rs`); what reaches it is no loop's label.
const LABELS: &str =
    "this label is not supported: label a loop (`'outer: for ..`) and leave it by `break 'outer` \
                      or `continue 'outer`";

const MACROS: &str = "this macro is not supported in a differentiable body, since the macro cannot see its \
                      expansion: the supported macros are `vec!` and, as statements, `assert!`, `assert_eq!`, \
                      `assert_ne!`, `debug_assert!`, `debug_assert_eq!` and `debug_assert_ne!`; write the \
                      computation out (`println!` and `format!` belong in a caller)";

impl Fence<'_> {
    /// Checks a pattern of a `match` arm: literals, ranges, constants, `_` and `|` only.
    fn arm_pattern(&mut self, pat: &Pat) {
        match pat {
            Pat::Lit(_) | Pat::Range(_) | Pat::Wild(_) | Pat::Path(_) => {}
            Pat::Or(or) => or.cases.iter().for_each(|case| self.arm_pattern(case)),
            Pat::Paren(p) => self.arm_pattern(&p.pat),
            Pat::Ident(p) if p.subpat.is_none() && p.ident.to_string().starts_with(char::is_uppercase) => {}
            // A binding by value is rewritten before the fence (`sugar.rs`), unless an arm binds by reference.
            Pat::Ident(p) => self.errors.spanned(
                p,
                "binding by reference (`ref n`) in a `match` pattern is not supported: bind by value \
                 (`n => ..`, `n @ 1..=9 => ..`), or match with `_` and use the scrutinee itself",
            ),
            Pat::Tuple(_) => self.errors.spanned(
                pat,
                "this tuple pattern is not supported: a `match` on a tuple written out (`match (a, b) { (0, \
                 _) => .., _ => .. }`) takes arms of one pattern per part (literals, ranges, constants, \
                 names, `_` and `|`, without `..` or tuples nested in them); match on one value at a time \
                 (a `match` inside an arm), or test the parts with `if a == 0 && b == 0 {..} else if ..`",
            ),
            // A variant's fields bound by name (`Act::LeakyRelu(slope)`, `Act::Scaled { k, .. }`), which
            // are constants of the arm (the scrutinee is never active; `lower_match`).
            Pat::TupleStruct(_) | Pat::Struct(_) if crate::bindings::variant_fields(pat).is_some() => {}
            Pat::TupleStruct(_) | Pat::Struct(_) => self.errors.spanned(
                pat,
                "this pattern with fields is not supported: a variant's fields may be bound by name \
                 (`Mode::Scaled(k, _)`, `Mode::Shifted { by, .. }`) or matched by `_` and `..`, without nested \
                 patterns, `ref` or `mut`; match the variant (`Mode::Scaled(..)`) and read its fields in \
                 the arm, or pass them as parameters of their own",
            ),
            other => self.errors.spanned(
                other,
                "this pattern is not supported: `match` arms may use literals, ranges, constants, `_` and `|`",
            ),
        }
    }
}

impl<'ast> Visit<'ast> for Fence<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        let message = match expr {
            Expr::Closure(_) => {
                "a closure is supported bound to a local and called (`let sq = |v: f64| v * v; sq(x)`) or \
                 given to an iterator adaptor (`.map(..)`, `.fold(..)`), where the macro inlines its body: bind \
                 it to a local, or write the computation inline"
            }
            Expr::Unsafe(_) => {
                "`unsafe` blocks are not supported in a differentiable body (and with them reads of a \
                 `static mut`): pass the value in as a parameter"
            }
            Expr::Async(_) | Expr::Await(_) => {
                "`async` code is not supported: differentiate a synchronous function"
            }
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                visit::visit_expr(self, expr);
                return;
            }
            Expr::Macro(_) => MACROS,
            Expr::ForLoop(f) => {
                if f.label.is_some() {
                    self.errors.spanned(&f.label, LABELS);
                }
                self.visit_iterator(&f.expr);
                self.visit_block(&f.body);
                return;
            }
            Expr::While(syn::ExprWhile { label: Some(label), .. })
            | Expr::Loop(syn::ExprLoop { label: Some(label), .. }) => {
                self.errors.spanned(label, LABELS);
                visit::visit_expr(self, expr);
                return;
            }
            Expr::Break(syn::ExprBreak { label: Some(label), .. })
            | Expr::Continue(syn::ExprContinue { label: Some(label), .. }) => {
                self.errors.spanned(label, LABELS);
                return;
            }
            // A sub-slice `&x[a..b]`, `x[a..]`.
            Expr::Index(i) if matches!(&*i.index, Expr::Range(_)) => {
                self.visit_expr(&i.expr);
                if let Expr::Range(r) = &*i.index {
                    for end in r.start.iter().chain(r.end.iter()) {
                        self.visit_expr(end);
                    }
                }
                return;
            }
            Expr::Reference(r) if r.mutability.is_none() && matches!(&*r.expr, Expr::Index(i) if matches!(&*i.index, Expr::Range(_))) => {
                self.visit_expr(&r.expr);
                return;
            }
            // A matrix's row `&m[i]` (lowering rejects `&x[i]` of anything but a matrix or nested array).
            Expr::Reference(r) if r.mutability.is_none() && matches!(&*r.expr, Expr::Index(_)) => {
                self.visit_expr(&r.expr);
                return;
            }
            // A copy the lowering did not turn into a loop (`slice_writes.rs`: a statement whose receiver is
            // a name, an element `m[i]` or a half-open sub-slice): one error at the method (not at `&next`,
            // which said "references are not supported" and nothing of the copy).
            Expr::MethodCall(m)
                if ["copy_from_slice", "clone_from_slice"].contains(&m.method.to_string().as_str()) =>
            {
                let method = m.method.to_string();
                self.errors.spanned(
                    &m.method,
                    format!(
                        "`.{method}(..)` is supported as a statement on a local or parameter `a`, a row `a[i]` or \
                         a sub-slice `a[i..j]`, `a[i..]`, `a[..j]`: write the range half-open, or copy the \
                         elements in a loop (`for i in 0..a.len() {{ a[i] = b[i]; }}`)"
                    ),
                );
                return;
            }
            Expr::Reference(_) => {
                "references are not supported in a differentiable body: use the value itself (a slice is \
                 iterated as `for x in xs` or `for &x in xs.iter()`)"
            }
            Expr::Struct(_) => {
                "struct literals are not supported: a differentiable function works on floats; bind the \
                 fields' values to locals (`let (x, y) = (a * 2.0, b);`), or pass the struct as a parameter"
            }
            // `(a, ..) = t`: the other destructuring assignments are rewritten before the fence (`sugar.rs`).
            Expr::Assign(a) if has_rest(&a.left) => {
                "a rest `..` in a destructuring assignment is not supported: name each part, with `_` for \
                 those not assigned (`(a, _, _) = t;`)"
            }
            Expr::Range(_) => {
                "ranges are supported as what a `for` loop iterates and as the index of a sub-slice \
                 (`&x[a..b]`): bind the bounds to locals instead"
            }
            Expr::Try(_) => "the `?` operator is not supported: a differentiable function returns floats",
            Expr::Let(_) => {
                "`while let` and `let` chains (`if let P = e && c`) are not supported: use `match`, or `if` with a \
                 comparison (an `if let` alone is supported)"
            }
            Expr::TryBlock(_) | Expr::Yield(_) | Expr::Const(_) | Expr::Infer(_) | Expr::Verbatim(_) => {
                "this expression is not supported in a differentiable body"
            }
            Expr::Block(b) if b.label.is_some() => {
                "labeled blocks are not supported: use `if`/`else` to choose a value"
            }
            // A field of a struct literal's local: that literal's error says what to write.
            Expr::Field(f)
                if matches!(&*f.base, Expr::Path(p) if p.path.get_ident().is_some_and(|name| self.struct_locals.contains(name))) =>
            {
                return;
            }
            Expr::Field(f) if matches!(f.member, syn::Member::Named(_)) => {
                "named fields are not supported: pass the field's value as a parameter"
            }
            Expr::Call(c) if !matches!(&*c.func, Expr::Path(_)) => {
                "only calls of a function by its path are supported (`f(x)`, `f64::sin(x)`)"
            }
            // `std::mem::swap(&mut a, &mut b)` of two names is lowered (`lower/swap.rs`); of other places
            // (`&mut a[i]`), not.
            Expr::Call(c) if crate::lower::is_mem_swap(&c.func) => {
                if crate::lower::swapped_names(c).is_some() {
                    return;
                }
                crate::lower::SWAP_FORM
            }
            // `&a` passes an array to a callee.
            Expr::Call(c) if matches!(&*c.func, Expr::Path(_)) => {
                for arg in &c.args {
                    match arg {
                        Expr::Reference(r) if r.mutability.is_none() => self.visit_expr(&r.expr),
                        // `&mut out` passes an output buffer to a callee that writes it, `&mut a[i]`
                        // one element, `&mut [0.0; 2]` a scratch buffer.
                        Expr::Reference(r) if is_path(&r.expr) => {}
                        Expr::Reference(r) if r.mutability.is_some() => self.visit_expr(&r.expr),
                        other => self.visit_expr(other),
                    }
                }
                return;
            }
            Expr::Match(m) => {
                for arm in &m.arms {
                    self.arm_pattern(&arm.pat);
                    if let Some((_, guard)) = &arm.guard {
                        self.errors.spanned(
                            guard,
                            "`match` guards are not supported: put an `if` inside the arm",
                        );
                    }
                }
                visit::visit_expr(self, expr);
                return;
            }
            _ => {
                visit::visit_expr(self, expr);
                return;
            }
        };
        self.errors.spanned(expr, message);
    }

    fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
        match stmt {
            syn::Stmt::Macro(m) => self.errors.spanned(m, MACROS),
            // A nested `fn` is differentiated by its own expansion (`lower::nested_fn`), which checks it.
            syn::Stmt::Item(syn::Item::Const(_) | syn::Item::Use(_) | syn::Item::Fn(_)) => {}
            syn::Stmt::Item(item) => self.errors.spanned(
                item,
                "items other than `const`, `use` and `fn` are not supported inside a differentiable body: \
                 move them out of the function",
            ),
            syn::Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    if let Some((_, diverge)) = &init.diverge {
                        self.errors.spanned(diverge, "`let .. else` is not supported: use `match` or `if`");
                    }
                    // Its fields read through the local get no second error (`struct_locals`).
                    if is_self(&init.expr) {
                        self.errors.spanned(
                            local,
                            "`self` bound to a local is not supported: the macro reads a method's fields \
                             where they are written `self.field`; use `self` itself (`self.a`)",
                        );
                        return;
                    }
                }
                let one_name = match &local.pat {
                    Pat::Ident(_) => true,
                    Pat::Type(t) => matches!(&*t.pat, Pat::Ident(_)),
                    _ => false,
                };
                if local.init.is_none() && !one_name {
                    self.errors.spanned(
                        &local.pat,
                        "a `let` without a value must bind one name: write `let a; let b;`",
                    );
                } else {
                    self.local_pattern(&local.pat);
                }
                visit::visit_stmt(self, stmt);
            }
            syn::Stmt::Expr(..) => visit::visit_stmt(self, stmt),
        }
    }

    // Patterns are checked where they occur (`let`, `match`); nothing inside them needs visiting.
    fn visit_pat(&mut self, _: &'ast Pat) {}
}

impl Fence<'_> {
    /// What a `for` iterates: a range or `&xs` may appear there, inside the adaptor chain.
    fn visit_iterator(&mut self, expr: &Expr) {
        match expr {
            Expr::Paren(p) => self.visit_iterator(&p.expr),
            Expr::MethodCall(m) => {
                self.visit_iterator(&m.receiver);
                for arg in &m.args {
                    self.visit_iterator(arg);
                }
            }
            Expr::Range(r) => {
                for end in r.start.iter().chain(r.end.iter()) {
                    self.visit_expr(end);
                }
            }
            Expr::Reference(r) if r.mutability.is_none() => self.visit_expr(&r.expr),
            other => self.visit_expr(other),
        }
    }

    /// A `let` binds names, tuples of patterns, `_`, with optional type annotations.
    fn local_pattern(&mut self, pat: &Pat) {
        match pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {}
            Pat::Wild(_) => {}
            Pat::Type(t) => self.local_pattern(&t.pat),
            Pat::Tuple(t) => t.elems.iter().for_each(|p| self.local_pattern(p)),
            Pat::Slice(_) => self.errors.spanned(
                pat,
                "this array pattern is not supported in `let`: name every element (`let [a, b, c] = x;`, \
                 names, `_`, and arrays of them, no `..` and no `ref`), or read the elements by index \
                 (`let (a, b) = (x[0], x[x.len() - 1]);`)",
            ),
            other => self.errors.spanned(
                other,
                "this pattern is not supported in `let`: bind a name, `_`, or a tuple of them",
            ),
        }
    }
}

/// Is `left` (an assignment's left side) a tuple or array with a rest `..` among its parts, also nested?
fn has_rest(left: &Expr) -> bool {
    let parts = match left {
        Expr::Paren(p) => return has_rest(&p.expr),
        Expr::Tuple(t) => &t.elems,
        Expr::Array(a) => &a.elems,
        _ => return false,
    };
    parts.iter().any(|part| {
        matches!(part, Expr::Range(r) if r.start.is_none() && r.end.is_none()) || has_rest(part)
    })
}

/// A plain name, or `*name`: what `&mut` may take in a call's arguments.
fn is_path(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => is_path(&u.expr),
        Expr::Paren(p) => is_path(&p.expr),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors_in(body: &str) -> Vec<String> {
        let block: syn::Block = syn::parse_str(body).unwrap();
        let mut errors = Errors::default();
        check(&block, &mut errors);
        match errors.finish() {
            Ok(()) => Vec::new(),
            Err(tokens) => tokens
                .to_string()
                .split("compile_error !")
                .skip(1)
                .map(str::to_string)
                .collect(),
        }
    }

    #[test]
    fn the_supported_subset_passes() {
        let body = "{ let (a, b) = (x, 2.0); let mut c: f64 = a * b; c += 1.0; \
                     const K: f64 = 2.0; \
                     let d = if c > 0.0 { c.sin() } else { -c }; \
                     let mut v = vec![0.0; 3]; for (i, &y) in xs.iter().enumerate() { v[i] = y; } \
                     for j in (0..n).rev().step_by(2) { if j == 1 { continue; } } \
                     while d > 1.0 { d = d / 2.0; } loop { break; } \
                     match n { 0 | 1 => d, 2..=5 => d * K, _ => d.exp() } }";
        assert_eq!(errors_in(body), Vec::<String>::new());
    }

    #[test]
    fn mem_swap_of_two_names_passes_and_of_elements_does_not() {
        assert_eq!(
            errors_in("{ std::mem::swap(&mut a, &mut b); core::mem::swap(&mut (c), &mut d); }"),
            Vec::<String>::new()
        );
        let errors = errors_in("{ std::mem::swap(&mut a[0], &mut b); mem::swap(&a, &b); }");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors.iter().all(|e| e.contains("std::mem::swap")));
    }

    #[test]
    fn all_errors_are_reported_at_once() {
        let body = "{ let f = |y| y; println!(\"{}\", x); 'outer: for i in 0..3 {} unsafe { x } }";
        let errors = errors_in(body);
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(errors[0].contains("closure"));
        assert!(errors[1].contains("macros"));
        assert!(errors[2].contains("label"));
        assert!(errors[3].contains("unsafe"));
    }

    #[test]
    fn a_rest_in_a_destructuring_assignment_is_reported_once() {
        let errors = errors_in("{ (a, (b, ..)) = t; }");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("rest"), "{errors:?}");
    }

    #[test]
    fn a_struct_literal_is_one_error_not_one_per_field_read() {
        let errors = errors_in("{ let p = Point { x: a * 2.0, y: b }; p.x * p.y + q.z }");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("struct literals"), "{errors:?}");
        assert!(errors[1].contains("named fields"), "{errors:?}");
    }

    #[test]
    fn self_bound_to_a_local_is_one_error() {
        let errors = errors_in("{ let s = self; let t = &self; s.a * x + t.b }");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors.iter().all(|e| e.contains("`self` bound to a local")),
            "{errors:?}"
        );
    }

    #[test]
    fn match_arms_may_not_bind() {
        let errors = errors_in("{ match n { k => x, Some(Some(v)) => x, _ if b => x } }");
        assert_eq!(errors.len(), 3, "{errors:?}");
    }

    #[test]
    fn match_arms_may_bind_a_variants_fields_by_name() {
        let errors =
            errors_in("{ match a { A::L(s) => s * x, A::S { k, .. } => k * x, A::P(_, n) => x } }");
        assert!(errors.is_empty(), "{errors:?}");
        let errors = errors_in(
            "{ match a { A::L(ref s) => x, A::L(mut s) => x, A::W(Some(c)) => x, _ => x } }",
        );
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(
            errors.iter().all(|e| e.contains("pattern with fields")),
            "{errors:?}"
        );
    }
}
