//! Array fields of parameter structs that hold no derivative: integers or flags (`#[no_grad] idx:
//! Vec<usize>`, `#[no_grad] mask: Vec<bool>`) and fields the body only measures (`p.idx.len()`).
//!
//! The macro cannot see the struct, so the syntax decides, after `structs.rs` has rewritten each field read
//! to the field's input (`__p_idx`). An array field is of integers or flags where the body reads an
//! element of it (`__p_idx[k]`, a local bound to one, `let j = __p_idx[k];`, or a loop's element, `for &j
//! in __p_idx.iter()`) where only an integer or a `bool` compiles: as an index (`x[__p_idx[k]]`), a
//! range's bound in a `for` loop, the condition of an `if` or a `while`, the operand of `!`, `&&` or `||`,
//! or compared with an integer literal. A field read only by `.len()` or `.is_empty()` holds nothing the
//! result depends on smoothly. Either is a constant input (`structs.rs`), bound from the struct itself at
//! every order, never from the values view of floats (`struct_whole.rs`), so a function reads such a field
//! as it reads a `labels: &[usize]` parameter. A field taken for integers is bound through
//! `__private::integers`, whose bound (`IntegerArray`) makes a float field taken so a compile error, not
//! a gradient left out.
//!
//! ```text
//! fn sparse(p: &Sparse, x: &[f64]) -> f64 {           // `__p_idx` (integers): constant, `integers(&p.idx)`
//!     let mut s = 0.0;                                // `__p_w` (floats): differentiated
//!     for k in 0..p.idx.len() { s += p.w[k] * x[p.idx[k]]; }
//!     s
//! }
//! ```

use crate::hash::{FastMap, FastSet};
use syn::visit::Visit;
use syn::Expr;

/// What makes an array field a constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Constant {
    /// Its elements are read as integers or flags.
    Integers,
    /// Only `.len()` or `.is_empty()` is read of it.
    Measured,
    /// A scalar field (or one passed on whole) whose declared type, which the source file shows, holds no
    /// float (`#[no_grad] act: Act`, an enum; `#[no_grad] n: usize`): a constant however the body uses it
    /// (`context::declared_constant_field`).
    Declared(crate::context::NoFloat),
}

/// The array fields among `arrays` (the inputs' names, `__p_idx`) that `block` (the rewritten body) reads
/// as integers or flags, or only measures.
pub(crate) fn constant_arrays(
    block: &syn::Block,
    arrays: &FastSet<String>,
) -> Vec<(String, Constant)> {
    let mut uses = IntegerUses {
        arrays,
        scopes: vec![Vec::new()],
        integers: FastSet::default(),
        measured: FastSet::default(),
        other: FastSet::default(),
        mentions: FastMap::default(),
        casts: FastMap::default(),
    };
    uses.visit_block(block);
    let mut found = Vec::new();
    let mut names: Vec<&String> = arrays.iter().collect();
    names.sort();
    for name in names {
        // Every read of the field an element converted to a float (`p.data[i] as f64`): a float field
        // needs no `as` to be read as one, so it is taken for integers (`IntegerArray` checks it).
        let casts = uses.casts.get(name).copied().unwrap_or(0);
        let only_cast = casts > 0 && uses.mentions.get(name).copied().unwrap_or(0) == casts;
        if uses.integers.contains(name) || only_cast {
            found.push((name.clone(), Constant::Integers));
        } else if uses.measured.contains(name) && !uses.other.contains(name) {
            found.push((name.clone(), Constant::Measured));
        }
    }
    found
}

fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

fn plain_name(expr: &Expr) -> Option<String> {
    match strip(expr) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// The array `expr` iterates element by element (`a.iter()`, `&a`, `a.iter().copied()`, `a`), if one of
/// `arrays`.
fn iterated_array(expr: &Expr, arrays: &FastSet<String>) -> Option<String> {
    let expr = strip(expr);
    let name = match expr {
        Expr::Reference(r) => plain_name(&r.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(m.method.to_string().as_str(), "copied" | "cloned") =>
        {
            return iterated_array(&m.receiver, arrays);
        }
        Expr::MethodCall(m) if m.args.is_empty() && m.method == "iter" => plain_name(&m.receiver),
        other => plain_name(other),
    };
    name.filter(|n| arrays.contains(n))
}

/// The name a pattern binds (`j`, `&j`, `mut j`, `j: usize`), if one.
fn bound_name(pat: &syn::Pat) -> Option<String> {
    match pat {
        syn::Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.to_string()),
        syn::Pat::Reference(r) => bound_name(&r.pat),
        syn::Pat::Type(t) => bound_name(&t.pat),
        syn::Pat::Paren(p) => bound_name(&p.pat),
        _ => None,
    }
}

/// The array among `arrays` whose element `expr` is (`a[k]`, not a range of it; `m[i][j]` of a matrix `m`),
/// if one.
fn element_of(expr: &Expr, arrays: &FastSet<String>) -> Option<String> {
    match strip(expr) {
        Expr::Index(i) if !matches!(strip(&i.index), Expr::Range(_)) => {
            let mut base = strip(&i.expr);
            while let Expr::Index(inner) = base {
                base = strip(&inner.expr);
            }
            plain_name(base).filter(|n| arrays.contains(n))
        }
        _ => None,
    }
}

/// The arrays whose elements an iterator `expr` yields, by component: `[Some(a)]` for `a.iter()` (also
/// `&a`, `a`, and through `.copied()`, `.cloned()`, `.rev()`, `.skip(n)`, `.take(n)`, `.step_by(n)`),
/// `[Some(a), Some(b)]` for `a.iter().zip(b.iter())`, `[None, Some(a)]` for `a.iter().enumerate()`; `None`
/// for an iterator of anything else.
fn item_sources(expr: &Expr, arrays: &FastSet<String>) -> Option<Vec<Option<String>>> {
    if let Some(array) = iterated_array(expr, arrays) {
        return Some(vec![Some(array)]);
    }
    let Expr::MethodCall(m) = strip(expr) else {
        return None;
    };
    let single = |e: &Expr| match item_sources(e, arrays)?.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    };
    match (m.method.to_string().as_str(), m.args.len()) {
        ("copied" | "cloned" | "rev", 0) | ("skip" | "take" | "step_by", 1) => {
            item_sources(&m.receiver, arrays)
        }
        ("zip", 1) => Some(vec![single(&m.receiver)?, single(&m.args[0])?]),
        ("enumerate", 0) => Some(vec![None, single(&m.receiver)?]),
        _ => None,
    }
}

/// The names `pat` binds, each with the array whose element it is, by `sources` (`item_sources`; `&[]`
/// where the value bound is no element of an array): `j` of `&j` bound to one source, `j` and `w` of
/// `(&j, &w)` to two.
fn bindings(pat: &syn::Pat, sources: &[Option<String>]) -> Vec<(String, Option<String>)> {
    let strip_pat = |p: &syn::Pat| -> syn::Pat {
        let mut p = p.clone();
        loop {
            p = match p {
                syn::Pat::Reference(r) => *r.pat,
                syn::Pat::Paren(q) => *q.pat,
                syn::Pat::Type(t) => *t.pat,
                other => return other,
            };
        }
    };
    match (strip_pat(pat), sources) {
        (syn::Pat::Tuple(t), many) if many.len() > 1 && t.elems.len() == many.len() => t
            .elems
            .iter()
            .zip(many)
            .flat_map(|(p, source)| bindings(p, std::slice::from_ref(source)))
            .collect(),
        (_, [one]) if bound_name(pat).is_some() => bound_name(pat)
            .map(|name| (name, one.clone()))
            .into_iter()
            .collect(),
        _ => {
            // Every name the pattern binds, none an element: they shadow outer ones.
            crate::bindings::bound_names(pat)
                .into_iter()
                .map(|n| (n, None))
                .collect()
        }
    }
}

/// Iterator adaptors whose closure's (first) parameter is an item of the iterator.
fn passes_items(method: &str) -> bool {
    matches!(
        method,
        "map"
            | "for_each"
            | "filter"
            | "filter_map"
            | "flat_map"
            | "inspect"
            | "any"
            | "all"
            | "find"
            | "position"
            | "take_while"
            | "skip_while"
            | "map_while"
    )
}

/// Where the arrays' elements are read as integers or flags, and where the arrays are only measured.
struct IntegerUses<'a> {
    arrays: &'a FastSet<String>,
    /// The names bound in each enclosing scope, innermost last, in the order bound, each with the array
    /// whose element it holds, if one (`let j = a[k];`, `for &j in a.iter()`, `a.iter().map(|&j| ..)`).
    scopes: Vec<Vec<(String, Option<String>)>>,
    integers: FastSet<String>,
    /// Receivers of `.len()` or `.is_empty()`.
    measured: FastSet<String>,
    /// Named anywhere else.
    other: FastSet<String>,
    /// How often each array is named (but by `.len()`, `.is_empty()`).
    mentions: FastMap<String, usize>,
    /// How often an element of each array is converted to a float by `as` (`a[i] as f64`).
    casts: FastMap<String, usize>,
}

impl IntegerUses<'_> {
    /// `expr` is read where only an integer or a flag compiles: the array whose element it is, if one.
    fn integer_position(&mut self, expr: &Expr) {
        let mut expr = strip(expr);
        // `*j` of a loop's element `j` (`for j in a.iter()`).
        while let Expr::Unary(u) = expr {
            if !matches!(u.op, syn::UnOp::Deref(_)) {
                break;
            }
            expr = strip(&u.expr);
        }
        if let Some(array) = element_of(expr, self.arrays) {
            self.integers.insert(array);
            return;
        }
        if let Some(name) = plain_name(expr) {
            // The binding in scope under that name: an element of an array, or a shadowing local.
            let bound = self
                .scopes
                .iter()
                .rev()
                .flat_map(|scope| scope.iter().rev())
                .find(|(n, _)| *n == name);
            if let Some((_, Some(array))) = bound {
                self.integers.insert(array.clone());
            }
        }
    }

    /// Visits `visit` in a scope of its own, `bound` bound first.
    fn scoped(&mut self, bound: Vec<(String, Option<String>)>, visit: impl FnOnce(&mut Self)) {
        self.scopes.push(bound);
        visit(self);
        self.scopes.pop();
    }

    fn bind(&mut self, bound: Vec<(String, Option<String>)>) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.extend(bound);
        }
    }
}

/// Is `ty` `f64` or `f32` (the float types an `as` converts to)?
pub(crate) fn is_float_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.is_ident("f64") || p.path.is_ident("f32"),
        syn::Type::Paren(p) => is_float_type(&p.elem),
        syn::Type::Group(g) => is_float_type(&g.elem),
        _ => false,
    }
}

fn is_integer_literal(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => !matches!(i.suffix(), "f32" | "f64"),
            _ => false,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => is_integer_literal(&u.expr),
        _ => false,
    }
}

impl<'ast> Visit<'ast> for IntegerUses<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        use syn::BinOp;
        match expr {
            Expr::Index(i) => self.integer_position(&i.index),
            Expr::If(e) => self.integer_position(&e.cond),
            Expr::While(e) => self.integer_position(&e.cond),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => self.integer_position(&u.expr),
            Expr::Binary(b) => match b.op {
                BinOp::And(_) | BinOp::Or(_) => {
                    self.integer_position(&b.left);
                    self.integer_position(&b.right);
                }
                op if crate::ir::is_comparison(&op) => {
                    if is_integer_literal(&b.right) {
                        self.integer_position(&b.left);
                    }
                    if is_integer_literal(&b.left) {
                        self.integer_position(&b.right);
                    }
                }
                _ => {}
            },
            Expr::ForLoop(f) => {
                if let Expr::Range(r) = strip(&f.expr) {
                    for bound in r.start.iter().chain(&r.end) {
                        self.integer_position(bound);
                    }
                }
                // The loop's pattern binds in the body's scope.
                self.visit_expr(&f.expr);
                let sources = item_sources(&f.expr, self.arrays).unwrap_or_default();
                let bound = bindings(&f.pat, &sources);
                self.scoped(bound, |uses| uses.visit_block(&f.body));
                return;
            }
            // `a.iter().map(|&j| x[j])`: the closure's parameter is an element of `a`.
            Expr::MethodCall(m) if passes_items(&m.method.to_string()) => {
                let sources = item_sources(&m.receiver, self.arrays).unwrap_or_default();
                self.visit_expr(&m.receiver);
                for arg in &m.args {
                    match strip(arg) {
                        Expr::Closure(c) => {
                            let mut bound = Vec::new();
                            for (k, input) in c.inputs.iter().enumerate() {
                                let sources: &[Option<String>] =
                                    if k == 0 { &sources } else { &[] };
                                bound.extend(bindings(input, sources));
                            }
                            self.scoped(bound, |uses| uses.visit_expr(&c.body));
                        }
                        other => self.visit_expr(other),
                    }
                }
                return;
            }
            Expr::Closure(c) => {
                let bound = c.inputs.iter().flat_map(|p| bindings(p, &[])).collect();
                self.scoped(bound, |uses| uses.visit_expr(&c.body));
                return;
            }
            Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(m.method.to_string().as_str(), "len" | "is_empty") =>
            {
                if let Some(name) = plain_name(&m.receiver).filter(|n| self.arrays.contains(n)) {
                    self.measured.insert(name);
                    // The receiver is measured, not read otherwise.
                    return;
                }
            }
            Expr::Cast(c) if is_float_type(&c.ty) => {
                if let Some(array) = element_of(&c.expr, self.arrays) {
                    *self.casts.entry(array).or_default() += 1;
                }
            }
            Expr::Path(_) => {
                if let Some(name) = plain_name(expr).filter(|n| self.arrays.contains(n)) {
                    *self.mentions.entry(name.clone()).or_default() += 1;
                    self.other.insert(name);
                }
            }
            // `vec![0.0; p.idx.len()]`: syn's visitors leave a macro's arguments as tokens.
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                for arg in crate::chains::vec_arg_exprs(&m.mac) {
                    self.visit_expr(&arg);
                }
                return;
            }
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.scoped(Vec::new(), |uses| syn::visit::visit_block(uses, block));
    }

    // `let j = a[k];`: `j` is an element of `a` after the statement, in the rest of the block.
    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        let source = local
            .init
            .as_ref()
            .map(|init| element_of(&init.expr, self.arrays));
        let bound = bindings(&local.pat, &[source.flatten()]);
        self.bind(bound);
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        let bound = bindings(&arm.pat, &[]);
        self.scoped(bound, |uses| {
            if let Some((_, guard)) = &arm.guard {
                uses.visit_expr(guard);
            }
            uses.visit_expr(&arm.body);
        });
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constants(body: &str, arrays: &[&str]) -> Vec<(String, Constant)> {
        let block: syn::Block = syn::parse_str(body).expect("a block");
        let arrays: FastSet<String> = arrays.iter().map(|s| s.to_string()).collect();
        constant_arrays(&block, &arrays)
    }

    #[test]
    fn elements_read_as_indexes_or_flags_make_integer_fields() {
        let integers = |name: &str| vec![(name.to_string(), Constant::Integers)];
        assert_eq!(
            constants("{ x[i_idx[k]] * w[k] }", &["i_idx", "w"]),
            integers("i_idx")
        );
        assert_eq!(
            constants("{ let j = i_idx[k]; x[j] }", &["i_idx"]),
            integers("i_idx")
        );
        assert_eq!(
            constants("{ for &j in i_idx.iter() { s += x[j]; } s }", &["i_idx"]),
            integers("i_idx")
        );
        assert_eq!(
            constants("{ for j in i_idx.iter() { s += x[*j]; } s }", &["i_idx"]),
            integers("i_idx")
        );
        assert_eq!(
            constants("{ if m[i] { x } else { y } }", &["m"]),
            integers("m")
        );
        assert_eq!(
            constants("{ if !m[i] && b { x } else { y } }", &["m"]),
            integers("m")
        );
        assert_eq!(
            constants("{ for j in 0..n[i] { s += x[j]; } s }", &["n"]),
            integers("n")
        );
        assert_eq!(
            constants("{ if n[i] == 0 { x } else { y } }", &["n"]),
            integers("n")
        );
    }

    #[test]
    fn elements_followed_through_zip_enumerate_and_closures_in_their_scopes() {
        let integers = |name: &str| vec![(name.to_string(), Constant::Integers)];
        assert_eq!(
            constants(
                "{ for (&j, &v) in i_idx.iter().zip(w.iter()) { s += v * x[j]; } s }",
                &["i_idx", "w"]
            ),
            integers("i_idx")
        );
        assert_eq!(
            constants(
                "{ for (&v, j) in w.iter().zip(i_idx.iter().copied()) { s += v * x[j]; } s }",
                &["i_idx", "w"]
            ),
            integers("i_idx")
        );
        assert_eq!(
            constants(
                "{ for (k, &j) in i_idx.iter().enumerate() { s += w[k] * x[j]; } s }",
                &["i_idx", "w"]
            ),
            integers("i_idx")
        );
        assert_eq!(
            constants("{ i_idx.iter().map(|&j| x[j]).sum::<f64>() }", &["i_idx"]),
            integers("i_idx")
        );
        assert_eq!(
            constants(
                "{ i_idx.iter().zip(&w).map(|(&j, &v)| v * x[j]).sum::<f64>() }",
                &["i_idx", "w"]
            ),
            integers("i_idx")
        );
        // A name bound again shadows the element: a float array read so stays floats.
        let shadowed = [
            "{ let j = w[k]; for j in 0..n { s += x[j]; } s + j }",
            "{ let j = w[k]; let j = 2; x[j] * j as f64 }",
            "{ let j = w[k]; w.iter().map(|j| j * x[0]).sum::<f64>() + (0..n).map(|j| x[j]).sum::<f64>() }",
            "{ let j = w[k]; match n { j => x[j] } }",
        ];
        for body in shadowed {
            assert!(constants(body, &["w"]).is_empty(), "{body}");
        }
        // An inner scope's binding ends with it.
        assert_eq!(
            constants(
                "{ let j = i_idx[k]; { let j = 1.5; s += j; } x[j] }",
                &["i_idx"]
            ),
            integers("i_idx")
        );
        // Elements only converted to floats: integers (`IntegerArray` checks it); also read otherwise, not.
        assert_eq!(
            constants(
                "{ w[0] * x * (d[1] as f64) + d[0] as f32 as f64 }",
                &["w", "d"]
            ),
            integers("d")
        );
        assert!(constants("{ d[0] * x + d[1] as f64 }", &["d"]).is_empty());
        // The elements of a matrix.
        assert_eq!(
            constants("{ x[m[i][j]] * w[i] }", &["m", "w"]),
            integers("m")
        );
        assert!(constants("{ m[i][j] * x }", &["m"]).is_empty());
    }

    #[test]
    fn float_reads_and_measures() {
        // Floats read as floats: not constant.
        assert!(constants("{ w[0] * x + w[1] }", &["w"]).is_empty());
        assert!(constants("{ if w[0] > 0.0 { x } else { y } }", &["w"]).is_empty());
        assert!(constants("{ x[w[0] as usize] }", &["w"]).is_empty());
        // Measured only.
        assert_eq!(
            constants("{ let n = w.len(); x * n as f64 }", &["w"]),
            vec![("w".to_string(), Constant::Measured)]
        );
        // Measured and read: not constant.
        assert!(constants("{ w[w.len() - 1] * x }", &["w"]).is_empty());
    }
}
