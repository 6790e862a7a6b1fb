//! The names a piece of code binds or may change (`Binds`), and the small readings of index expressions the
//! walk compares: integer literals, plain names, indices made of names and arithmetic, their tokens.

use crate::lower::is_compound_assign;
use crate::lower::strip_parens;
use std::collections::BTreeSet;
use syn::visit::Visit;
use syn::{Expr, Ident};

/// The names a piece of code may give a new value: bound by a pattern, assigned, borrowed `&mut`, or the
/// receiver of a method call.
#[derive(Default)]
pub(super) struct Binds {
    pub(super) names: BTreeSet<String>,
}

impl Binds {
    pub(super) fn of(block: &syn::Block) -> Self {
        let mut binds = Binds::default();
        binds.visit_block(block);
        binds
    }
    pub(super) fn of_expr(expr: &Expr) -> Self {
        let mut binds = Binds::default();
        binds.visit_expr(expr);
        binds
    }
    pub(super) fn of_pat(pat: &syn::Pat) -> Self {
        let mut binds = Binds::default();
        binds.visit_pat(pat);
        binds
    }
    /// The name at the root of a place (`i` of `i`, `a` of `a[k].b`).
    pub(super) fn root(place: &Expr) -> BTreeSet<String> {
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
    /// The names an assignment to `place` may change: its root, or every name a destructuring assignment
    /// (`(i, j) = ..`, `[i, _] = ..`, `S { a: i, .. } = ..`, `S(i) = ..`) assigns; any other place, every
    /// name in it.
    pub(super) fn assigned(place: &Expr) -> BTreeSet<String> {
        match place {
            Expr::Path(_) | Expr::Index(_) | Expr::Field(_) | Expr::Unary(_) => Binds::root(place),
            Expr::Paren(p) => Binds::assigned(&p.expr),
            Expr::Tuple(t) => t.elems.iter().flat_map(Binds::assigned).collect(),
            Expr::Array(a) => a.elems.iter().flat_map(Binds::assigned).collect(),
            Expr::Call(c) => c.args.iter().flat_map(Binds::assigned).collect(),
            Expr::Struct(s) => (s.fields.iter())
                .flat_map(|f| Binds::assigned(&f.expr))
                .chain(s.rest.iter().flat_map(|r| Binds::assigned(r)))
                .collect(),
            Expr::Infer(_) | Expr::Range(_) => BTreeSet::new(),
            other => names_in(other),
        }
    }
}

impl<'ast> Visit<'ast> for Binds {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.names.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.names.extend(Binds::assigned(&a.left));
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
        if may_change_receiver(m) {
            self.names.extend(Binds::root(&m.receiver));
        }
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
pub(super) fn bound_names(block: &syn::Block) -> BTreeSet<String> {
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

// Input:  out[i] += { i += 1; x }
// Output: Some("i"): the value changes a name the place's index uses
/// A name that the value of an assignment to an element (`a[index] = value`, `a[index] += value`) may
/// change and that `index` uses: Rust evaluates an assignment's value before its place (a compound
/// assignment of primitives too, of other types after), so which element is written depends on an order
/// that the generated code must not guess.
pub(crate) fn index_moved_by(value: &Expr, index: &Expr) -> Option<String> {
    struct Moves(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Moves {
        fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
            self.0.extend(Binds::assigned(&a.left));
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            if is_compound_assign(&b.op) {
                self.0.extend(Binds::root(&b.left));
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
            if r.mutability.is_some() {
                self.0.extend(Binds::root(&r.expr));
            }
            syn::visit::visit_expr_reference(self, r);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let mut binds = Binds::default();
            binds.visit_macro(m);
            self.0.extend(binds.names);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut moves = Moves(BTreeSet::new());
    moves.visit_expr(value);
    names_in(index).into_iter().find(|n| moves.0.contains(n))
}

/// May a method call change the name at the root of its receiver? Not `len`, `is_empty` or `iter` of
/// anything, nor any method of an element (`x[i].exp()`: an element's method cannot change the indexed
/// name's length, and names used in index expressions are integers, not indexed).
pub(super) fn may_change_receiver(m: &syn::ExprMethodCall) -> bool {
    let reads =
        matches!(m.method.to_string().as_str(), "len" | "is_empty" | "iter") && m.args.is_empty();
    !reads && !matches!(strip_parens(&m.receiver), Expr::Index(_))
}

/// The names the `let` patterns of a condition bind (`if let Some(i) = o && let ..`).
pub(super) fn let_bindings(cond: &Expr) -> BTreeSet<String> {
    struct Lets(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Lets {
        fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
            self.0.extend(Binds::of_pat(&l.pat).names);
            syn::visit::visit_expr_let(self, l);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut lets = Lets(BTreeSet::new());
    lets.visit_expr(cond);
    lets.0
}

/// Every name (a one-segment path) in an expression.
pub(super) fn names_in(expr: &Expr) -> BTreeSet<String> {
    struct Names(BTreeSet<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            self.0.extend(p.path.get_ident().map(|i| i.to_string()));
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut names = Names(BTreeSet::new());
    names.visit_expr(expr);
    names.0
}

/// An integer literal's value.
pub(super) fn literal(expr: &Expr) -> Option<u64> {
    match strip_parens(expr) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// A plain name (`i`).
pub(super) fn bare_name(expr: &Expr) -> Option<String> {
    match strip_parens(expr) {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// The names of an index made of names, integer literals, arithmetic and casts (`i`, `2 * i + 1`,
/// `n - 1 - i`), which gives the same element while none of them changes; `None` for any other index (a
/// call, a method call, a block).
pub(super) fn plain_index(index: &Expr) -> Option<BTreeSet<String>> {
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
pub(super) fn tokens(expr: &Expr) -> String {
    use quote::ToTokens;
    strip_parens(expr).to_token_stream().to_string()
}

/// Does a macro's token stream name `name`?
pub(super) fn mentions(tokens: proc_macro2::TokenStream, name: &Ident) -> bool {
    mentions_str(tokens, &name.to_string())
}

/// Does a macro's token stream hold the identifier (or keyword) `word`?
pub(super) fn mentions_str(tokens: proc_macro2::TokenStream, word: &str) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == word,
        proc_macro2::TokenTree::Group(g) => mentions_str(g.stream(), word),
        _ => false,
    })
}
