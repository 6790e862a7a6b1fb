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

use crate::hash::FastSet;
use syn::visit::Visit;
use syn::Expr;

/// What makes an array field a constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Constant {
    /// Its elements are read as integers or flags.
    Integers,
    /// Only `.len()` or `.is_empty()` is read of it.
    Measured,
}

/// The array fields among `arrays` (the inputs' names, `__p_idx`) that `block` (the rewritten body) reads
/// as integers or flags, or only measures.
pub(crate) fn constant_arrays(
    block: &syn::Block,
    arrays: &FastSet<String>,
) -> Vec<(String, Constant)> {
    let mut elements = Elements {
        arrays,
        aliases: Vec::new(),
    };
    elements.visit_block(block);
    let mut uses = IntegerUses {
        arrays,
        aliases: &elements.aliases,
        integers: FastSet::default(),
        measured: FastSet::default(),
        other: FastSet::default(),
    };
    uses.visit_block(block);
    let mut found = Vec::new();
    let mut names: Vec<&String> = arrays.iter().collect();
    names.sort();
    for name in names {
        if uses.integers.contains(name) {
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

/// The array among `arrays` whose element `expr` is (`a[k]`, not a range of it), if one.
fn element_of(expr: &Expr, arrays: &FastSet<String>) -> Option<String> {
    match strip(expr) {
        Expr::Index(i) if !matches!(strip(&i.index), Expr::Range(_)) => {
            plain_name(&i.expr).filter(|n| arrays.contains(n))
        }
        _ => None,
    }
}

/// The locals bound to an element of one of the arrays: `let j = a[k];`, `for &j in a.iter()`.
struct Elements<'a> {
    arrays: &'a FastSet<String>,
    /// (local, array).
    aliases: Vec<(String, String)>,
}

impl<'ast> Visit<'ast> for Elements<'_> {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        let init = local.init.as_ref().map(|init| &*init.expr);
        if let (Some(name), Some(array)) = (
            bound_name(&local.pat),
            init.and_then(|e| element_of(e, self.arrays)),
        ) {
            self.aliases.push((name, array));
        }
        syn::visit::visit_local(self, local);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        if let (Some(name), Some(array)) =
            (bound_name(&f.pat), iterated_array(&f.expr, self.arrays))
        {
            self.aliases.push((name, array));
        }
        syn::visit::visit_expr_for_loop(self, f);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Where the arrays' elements are read as integers or flags, and where the arrays are only measured.
struct IntegerUses<'a> {
    arrays: &'a FastSet<String>,
    aliases: &'a [(String, String)],
    integers: FastSet<String>,
    /// Receivers of `.len()` or `.is_empty()`.
    measured: FastSet<String>,
    /// Named anywhere else.
    other: FastSet<String>,
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
            // The last alias bound under that name (an inner `let j` shadows an outer one; close enough for
            // a signal that `IntegerArray` checks).
            if let Some((_, array)) = self.aliases.iter().rev().find(|(n, _)| *n == name) {
                self.integers.insert(array.clone());
            }
        }
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
            Expr::Path(_) => {
                if let Some(name) = plain_name(expr).filter(|n| self.arrays.contains(n)) {
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
