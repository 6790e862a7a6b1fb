//! Lowering of arrays: parameters `&[T]`, `Vec<T>`, `[T; N]` and local `Vec`s and arrays are memory, read
//! by `Load` and written by `Store` in place, not values named once (a loop filling a `Vec` would otherwise
//! copy it at every step).

use super::{strip_parens, Lowering};
use crate::ir::{Array, ArrayInit, Operand, Stmt, Value};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Token};

/// The names `block` uses as arrays: indexed (`v[i]`), measured (`v.len()`), iterated, or borrowed (`&v`),
/// and those bound or assigned to such a name (`e` of `let mut w = e; w[1] *= b;`, `n` of `y = n;`).
///
/// A name is followed to the binding it refers to where it is written, so that an array bound or assigned
/// from a name makes an array of that binding only, not of another binding of the same name: in
/// `let mut s = g(x); for i in 0..x.len() { let x = s; s = x * 0.5; }` the inner `x` is a float, the copy
/// `let x = s;` does not make `s` an array although the parameter `x` is one, and `let mut s = g(x);` stays
/// the call of a function returning a float (that `s` was an array here once: its loop vanished from the
/// sweeps). The result is still by name (the lowering asks by name): a name is in it when any of its
/// bindings is used as an array.
pub(crate) fn array_uses(block: &syn::Block) -> crate::hash::FastSet<String> {
    analyse_array_uses(block).0
}

/// The `let`s of `block` that bind one name used as an array elsewhere (by another binding of the same
/// name, so that the name is in [`array_uses`]) but not themselves: each by the address of the bound
/// identifier in the syntax tree, which the lowering walks (`let x = sq(s);` in a loop over the parameter
/// `x` binds a float, not the array a call returns).
pub(crate) fn scalar_lets(block: &syn::Block) -> crate::hash::FastSet<usize> {
    analyse_array_uses(block).1
}

/// The key of the identifier a pattern binds, for [`scalar_lets`].
pub(crate) fn binding_key(ident: &syn::Ident) -> usize {
    ident as *const syn::Ident as usize
}

fn analyse_array_uses(
    block: &syn::Block,
) -> (crate::hash::FastSet<String>, crate::hash::FastSet<usize>) {
    use syn::visit::Visit;
    /// A binding: its name, numbered in the order met (a name bound nowhere in the block, a parameter or
    /// a constant from outside, is one binding for all its uses).
    struct Uses {
        /// The name of each binding.
        bindings: Vec<String>,
        /// The bindings in scope, innermost last, by block.
        scopes: Vec<Vec<(String, usize)>>,
        /// The binding of each name bound nowhere in the block.
        free: std::collections::HashMap<String, usize>,
        /// The bindings used as arrays.
        used: crate::hash::FastSet<usize>,
        /// `(bound, init)`: the binding `bound` is `init` (`let y = c;`, `y = c;`).
        lets: Vec<(usize, usize)>,
        /// The bindings of `let`s of one name, with the key of the name's identifier.
        keys: Vec<(usize, usize)>,
        /// The expressions (by address) whose value the function returns: the body's tail, a `return`'s
        /// value, and the tails of the blocks, branches and arms of those.
        returning: crate::hash::FastSet<usize>,
        /// The bindings the function returns (`out` of `let mut out = ..; ..; out`): never one of
        /// [`scalar_lets`] (in a function returning an array, `returned_names` makes such a `let` of a
        /// call an array).
        returned: crate::hash::FastSet<usize>,
        /// The bindings indexed twice (`m[i][j]`): matrices or nested arrays.
        nested: crate::hash::FastSet<usize>,
        /// `(m, r)` of each `m[i] = r;`: `r` is a row, an array, where `m` is in [`nested`] (a row made by
        /// a call, `let r = g(x); m[i] = r;`, indexed nowhere else, was lowered as a float).
        row_stores: Vec<(usize, usize)>,
    }
    fn address(expr: &Expr) -> usize {
        expr as *const Expr as usize
    }
    /// Does `expr` make a nested array: `vec![[0.0; m]; n]`, `vec![vec![0.0; m]; n]`, `[[0.0; m]; n]`,
    /// `[[a, b], [c, d]]`?
    fn makes_nested(expr: &Expr) -> bool {
        let row = |e: &Expr| {
            matches!(strip_parens(e), Expr::Array(_) | Expr::Repeat(_))
                || matches!(strip_parens(e), Expr::Macro(m) if m.mac.path.is_ident("vec"))
        };
        match strip_parens(expr) {
            Expr::Repeat(r) => row(&r.expr),
            Expr::Array(a) => a.elems.first().is_some_and(row),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                match m.mac.tokens.clone().into_iter().next() {
                    Some(proc_macro2::TokenTree::Group(g)) => {
                        g.delimiter() == proc_macro2::Delimiter::Bracket
                    }
                    Some(proc_macro2::TokenTree::Ident(i)) => i == "vec",
                    _ => false,
                }
            }
            _ => false,
        }
    }
    fn tail(block: &syn::Block) -> Option<&Expr> {
        match block.stmts.last() {
            Some(syn::Stmt::Expr(last, None)) => Some(last),
            _ => None,
        }
    }
    fn name_of(expr: &Expr) -> Option<String> {
        match strip_parens(expr) {
            Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        }
    }
    impl Uses {
        fn resolve(&mut self, name: &str) -> usize {
            for scope in self.scopes.iter().rev() {
                if let Some((_, b)) = scope.iter().rev().find(|(n, _)| n == name) {
                    return *b;
                }
            }
            if let Some(b) = self.free.get(name) {
                return *b;
            }
            self.bindings.push(name.to_string());
            let b = self.bindings.len() - 1;
            self.free.insert(name.to_string(), b);
            b
        }
        fn resolve_expr(&mut self, expr: &Expr) -> Option<usize> {
            name_of(expr).map(|name| self.resolve(&name))
        }
        /// Binds the names of `pat` in the innermost scope; gives the binding of a pattern that is one name.
        fn bind(&mut self, pat: &syn::Pat) -> Option<usize> {
            let mut last = None;
            for name in crate::bindings::bound_names(pat) {
                self.bindings.push(name.clone());
                let b = self.bindings.len() - 1;
                if self.scopes.is_empty() {
                    self.scopes.push(Vec::new());
                }
                if let Some(scope) = self.scopes.last_mut() {
                    scope.push((name, b));
                }
                last = Some(b);
            }
            let single = match pat {
                syn::Pat::Ident(_) => true,
                syn::Pat::Type(t) => matches!(&*t.pat, syn::Pat::Ident(_)),
                _ => false,
            };
            last.filter(|_| single)
        }
        fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
            self.scopes.push(Vec::new());
            f(self);
            self.scopes.pop();
        }
    }
    impl<'ast> Visit<'ast> for Uses {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            // What the function returns: the binding of a name, where it is written; the tails of what
            // holds blocks, before they are visited.
            if let Expr::Return(syn::ExprReturn {
                expr: Some(value), ..
            }) = expr
            {
                self.returning.insert(address(value));
            }
            if self.returning.contains(&address(expr)) {
                match expr {
                    Expr::Path(_) => {
                        let returned = self.resolve_expr(expr);
                        self.returned.extend(returned);
                    }
                    Expr::Paren(p) => {
                        self.returning.insert(address(&p.expr));
                    }
                    Expr::Block(b) => self.returning.extend(tail(&b.block).map(address)),
                    Expr::If(e) => {
                        self.returning.extend(tail(&e.then_branch).map(address));
                        if let Some((_, other)) = &e.else_branch {
                            self.returning.insert(address(other));
                        }
                    }
                    Expr::Match(m) => {
                        let arms = m.arms.iter().map(|arm| address(&arm.body));
                        self.returning.extend(arms);
                    }
                    _ => {}
                }
            }
            let used = match expr {
                Expr::Index(e) => self.resolve_expr(&e.expr),
                // `&mut t` passes a float local as often as an array: not a use as an array by itself.
                Expr::Reference(r) if r.mutability.is_none() => self.resolve_expr(&r.expr),
                Expr::MethodCall(m)
                    if matches!(
                        m.method.to_string().as_str(),
                        "len" | "is_empty" | "iter" | "to_vec"
                    ) =>
                {
                    self.resolve_expr(&m.receiver)
                }
                Expr::ForLoop(f) => self.resolve_expr(&f.expr),
                _ => None,
            };
            self.used.extend(used);
            if let Expr::Index(e) = expr {
                if let Expr::Index(inner) = strip_parens(&e.expr) {
                    let nested = self.resolve_expr(&inner.expr);
                    self.nested.extend(nested);
                }
            }
            if let Expr::Assign(a) = expr {
                if let Expr::Index(target) = strip_parens(&a.left) {
                    if let (Some(matrix), Some(row)) =
                        (self.resolve_expr(&target.expr), self.resolve_expr(&a.right))
                    {
                        self.row_stores.push((matrix, row));
                    }
                }
            }
            if let Expr::Assign(a) = expr {
                if let (Some(bound), Some(init)) =
                    (self.resolve_expr(&a.left), self.resolve_expr(&a.right))
                {
                    self.lets.push((bound, init));
                }
            }
            match expr {
                // The pattern of a `for` is bound in its body.
                Expr::ForLoop(f) => {
                    self.visit_expr(&f.expr);
                    self.scoped(|this| {
                        this.bind(&f.pat);
                        this.visit_block(&f.body);
                    });
                }
                Expr::Closure(c) => self.scoped(|this| {
                    for input in &c.inputs {
                        this.bind(input);
                    }
                    this.visit_expr(&c.body);
                }),
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_block(&mut self, block: &'ast syn::Block) {
            self.scoped(|this| syn::visit::visit_block(this, block));
        }
        fn visit_arm(&mut self, arm: &'ast syn::Arm) {
            self.scoped(|this| {
                this.bind(&arm.pat);
                if let Some((_, guard)) = &arm.guard {
                    this.visit_expr(guard);
                }
                this.visit_expr(&arm.body);
            });
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            // `let y = c;`, and `let y = if k > 0 { c } else { x };`: `c` is an array if `y` is. The names
            // of the value are those in scope before the `let`.
            let mut inits = Vec::new();
            if let Some(init) = &local.init {
                match strip_parens(&init.expr) {
                    Expr::If(_) | Expr::Match(_) => tail_names(&init.expr, &mut inits),
                    other => inits.extend(name_of(other)),
                }
                self.visit_expr(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.visit_expr(diverge);
                }
            }
            let inits: Vec<usize> = inits.iter().map(|name| self.resolve(name)).collect();
            let nested = local
                .init
                .as_ref()
                .is_some_and(|init| makes_nested(&init.expr));
            if let Some(bound) = self.bind(&local.pat) {
                if nested {
                    self.nested.insert(bound);
                }
                self.lets
                    .extend(inits.into_iter().map(|init| (bound, init)));
                let ident = match &local.pat {
                    syn::Pat::Ident(p) => Some(&p.ident),
                    syn::Pat::Type(t) => match &*t.pat {
                        syn::Pat::Ident(p) => Some(&p.ident),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(ident) = ident {
                    self.keys.push((bound, binding_key(ident)));
                }
            }
        }
    }
    let mut uses = Uses {
        bindings: Vec::new(),
        scopes: Vec::new(),
        free: Default::default(),
        used: Default::default(),
        lets: Vec::new(),
        keys: Vec::new(),
        returning: Default::default(),
        returned: Default::default(),
        nested: Default::default(),
        row_stores: Vec::new(),
    };
    uses.returning.extend(tail(block).map(address));
    uses.visit_block(block);
    let Uses {
        bindings,
        mut used,
        lets,
        keys,
        returned,
        nested,
        row_stores,
        ..
    } = uses;
    used.extend(
        row_stores
            .into_iter()
            .filter(|(matrix, _)| nested.contains(matrix))
            .map(|(_, row)| row),
    );
    while let Some(init) = lets
        .iter()
        .find(|(bound, init)| used.contains(bound) && !used.contains(init))
        .map(|(_, init)| *init)
    {
        used.insert(init);
    }
    let names: crate::hash::FastSet<String> = used.iter().map(|&b| bindings[b].clone()).collect();
    let scalar = keys
        .into_iter()
        .filter(|(b, _)| {
            !used.contains(b) && !returned.contains(b) && names.contains(&bindings[*b])
        })
        .map(|(_, key)| key)
        .collect();
    (names, scalar)
}

/// The names a function returns (`return c`, or `c` as its last expression or the last expression of a
/// branch there): in a function that returns an array, `let c = f(..);` of one of them binds the array the
/// call returns, as for `c[i]` (`array_uses`).
pub(crate) fn returned_names(block: &syn::Block) -> Vec<String> {
    use syn::visit::Visit;
    struct Returns(Vec<String>);
    impl<'ast> Visit<'ast> for Returns {
        fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
            if let Some(value) = &r.expr {
                tail_names(value, &mut self.0);
            }
            syn::visit::visit_expr_return(self, r);
        }
        // A closure's `return` returns from the closure; a nested `fn`'s, from that function.
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut returns = Returns(Vec::new());
    returns.visit_block(block);
    block_tail(block, &mut returns.0);
    returns.0
}

/// The names `expr` gives as its value: itself, or the last expressions of its branches and blocks.
fn tail_names(expr: &Expr, names: &mut Vec<String>) {
    match strip_parens(expr) {
        Expr::Path(p) if p.qself.is_none() => {
            names.extend(p.path.get_ident().map(|i| i.to_string()));
        }
        Expr::Block(b) => block_tail(&b.block, names),
        Expr::If(e) => {
            block_tail(&e.then_branch, names);
            if let Some((_, other)) = &e.else_branch {
                tail_names(other, names);
            }
        }
        Expr::Match(m) => m.arms.iter().for_each(|arm| tail_names(&arm.body, names)),
        _ => {}
    }
}

/// `tail_names` of the last expression of `block`.
fn block_tail(block: &syn::Block, names: &mut Vec<String>) {
    if let Some(syn::Stmt::Expr(last, None)) = block.stmts.last() {
        tail_names(last, names);
    }
}

/// The arguments of `vec![..]`.
#[allow(clippy::large_enum_variant)] // parsed once per `vec!`
pub(super) enum VecArgs {
    /// `vec![value; len]`.
    Repeat(Expr, Expr),
    /// `vec![a, b, c]`.
    Elements(Vec<Expr>),
}

/// Parses the arguments of `vec![..]`.
pub(super) fn parse_vec(m: &syn::ExprMacro) -> syn::Result<VecArgs> {
    m.mac.parse_body_with(|input: syn::parse::ParseStream| {
        if input.is_empty() {
            return Ok(VecArgs::Elements(Vec::new()));
        }
        let first: Expr = input.parse()?;
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
            let len: Expr = input.parse()?;
            return Ok(VecArgs::Repeat(first, len));
        }
        let mut items = vec![first];
        while input.parse::<Option<Token![,]>>()?.is_some() && !input.is_empty() {
            items.push(input.parse()?);
        }
        Ok(VecArgs::Elements(items))
    })
}

/// Is this an array of arrays (a matrix made in the body)?
fn nested(init: &ArrayInit) -> bool {
    match init {
        ArrayInit::Repeat { value, .. } => matches!(value, Operand::Array(_)),
        ArrayInit::Elements { items, .. } => items.iter().any(|o| matches!(o, Operand::Array(_))),
        _ => false,
    }
}

/// The length `N` of a parameter type `[T; N]` or `&[T; N]`.
pub(super) fn fixed_len_of_type(ty: &syn::Type) -> Option<proc_macro2::TokenStream> {
    match ty {
        syn::Type::Reference(r) => fixed_len_of_type(&r.elem),
        syn::Type::Array(a) => Some(a.len.to_token_stream()),
        _ => None,
    }
}

/// Is parameter `i` of `item` declared `mut`?
pub(super) fn declared_mut(item: &syn::ItemFn, i: usize) -> bool {
    matches!(item.sig.inputs.iter().nth(i), Some(syn::FnArg::Typed(pt))
        if matches!(&*pt.pat, syn::Pat::Ident(p) if p.mutability.is_some()))
}

impl Lowering<'_> {
    pub(super) fn new_local_array(
        &mut self,
        init: ArrayInit,
        fixed: bool,
        hint: Option<String>,
    ) -> Operand {
        let name = hint.unwrap_or_else(|| "__array".to_string());
        let array = self.new_array(&name, None, fixed);
        let sized_at_run_time = matches!(
            init,
            ArrayInit::Call { .. } | ArrayInit::Copy(_) | ArrayInit::Window { .. }
        );
        let len = match &init {
            ArrayInit::Repeat {
                len: Operand::Const { tokens, .. },
                fixed: true,
                ..
            } => Some(tokens.clone()),
            ArrayInit::Elements { items, fixed: true } => {
                let n = items.len();
                Some(quote::quote!(#n))
            }
            ArrayInit::Copy(source) if fixed => self.fixed_lens.get(source).cloned(),
            _ => None,
        };
        if let Some(len) = len {
            self.fixed_lens.insert(array, len);
        }
        self.stmts.push(Stmt::NewArray { array, init });
        if sized_at_run_time && !fixed {
            // Made inside a branch or loop body, it is out of scope in the reverse sweep, which needs
            // its length for the adjoint buffer: stored like any read of it.
            let length = self.emit(
                Value::Len(array),
                Some(format!("{name}_len")),
                proc_macro2::Span::call_site(),
            );
            self.arrays[array.0 as usize].length = length.var();
        }
        Operand::Array(array)
    }

    /// `a[i]`.
    pub(super) fn lower_index(&mut self, e: &syn::ExprIndex, hint: Option<String>) -> Operand {
        if let Some(element) = self.lower_matrix_element(e, hint.clone()) {
            return element;
        }
        let row_of_matrix = self
            .array_named(&e.expr)
            .and_then(|a| self.rows_of(a))
            .is_some();
        if let (Expr::Range(_), _) | (_, true) = (strip_parens(&e.index), row_of_matrix) {
            let expr = Expr::Index(e.clone());
            return self
                .lower_window(&expr, hint)
                .unwrap_or_else(Self::poisoned);
        }
        let Some(array) = self.array_operand(&e.expr) else {
            if let Some(constant) = self
                .outside_array(&e.expr)
                .or_else(|| self.outside_row(&e.expr))
                .or_else(|| self.outside_row_local(&e.expr))
            {
                // `WEIGHTS[i]`: a constant array from outside the function, whose elements are constants.
                let index = self.lower_expr(&e.index, None);
                self.index_kind_check(&e.index, &index);
                let value = Value::Call {
                    callee: self.element_or_row(e),
                    args: vec![constant, index],
                    by_ref: vec![true, false],
                };
                return self.emit(value, hint, crate::span::of_index(e));
            }
            // (A name whose `let` had an error was reported there.)
            if !self.reads_failed_let(&e.expr) {
                // The name under the indexes (`m` of `m[i][j]`).
                let mut base = &*e.expr;
                while let Expr::Index(inner) = strip_parens(base) {
                    base = &inner.expr;
                }
                let named = match strip_parens(base) {
                    Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                };
                let integers = named.as_deref().and_then(|n| self.integer_matrix_param(n));
                let message = match (integers, named) {
                    // A parameter that is a matrix of integers (`tris: &[[usize; 3]]`): say what to write.
                    (Some(message), _) => message,
                    // A name, whose value the macro does not see to be an array: say how it sees one.
                    (None, Some(name)) => format!(
                        "`{name}` is not known here to hold a slice, `Vec` or array of floats: the macro sees \
                         arrays in parameters, in locals made as `[0.0; N]`, `[a, b]`, `vec![0.0; n]`, \
                         `x.to_vec()` or by a call (or chosen among those by an `if` or `match`), and matrices \
                         made as `vec![vec![0.0; m]; n]` or `[[0.0; M]; N]`"
                    ),
                    (None, None) => "only slices, `Vec`s and arrays of floats named by a variable can be indexed: bind \
                             the value to a name first"
                        .to_string(),
                };
                self.errors.spanned(&e.expr, message);
            }
            return Self::poisoned();
        };
        let index = self.lower_expr(&e.index, None);
        self.index_kind_check(&e.index, &index);
        self.emit(
            Value::Load {
                array,
                index,
                at: None,
            },
            hint,
            crate::span::of_index(e),
        )
    }

    /// `WEIGHTS` or `tables::WEIGHTS` in `WEIGHTS[i]`: a path that names no variable of the function, so a
    /// `const` or `static` array from outside it, as a constant operand.
    fn outside_array(&self, expr: &Expr) -> Option<Operand> {
        let Expr::Path(p) = strip_parens(expr) else {
            return None;
        };
        let variable = p
            .path
            .get_ident()
            .is_some_and(|ident| self.lookup(&ident.to_string()).is_some());
        // A parameter holding a matrix of integers or flags (`tris: &[[usize; 3]]`): data, read as written
        // (`at(at(tris, t), 0)`), as a constant table is.
        // A local holding one (a struct's field): its variable.
        if let Some((var, _)) =
            (p.path.get_ident()).and_then(|i| self.integer_local(&i.to_string()))
        {
            return Some(Operand::Var(var));
        }
        let integers = p
            .path
            .get_ident()
            .is_some_and(|ident| self.integer_matrix(&ident.to_string()).is_some());
        // (A parameter as the function declares it: a struct's field input `__m_tris` is hygienic.)
        let declared = (p.path.get_ident())
            .filter(|_| integers)
            .and_then(|ident| self.param_names.iter().position(|n| *ident == n))
            .map(|index| self.param_idents[index].to_token_stream());
        (p.qself.is_none() && (!variable || integers)).then(|| Operand::Const {
            tokens: declared.unwrap_or_else(|| p.to_token_stream()),
            kind: crate::ir::Kind::Unknown,
        })
    }

    /// `A[i]` in `A[i][j]` of a constant matrix `A` from outside the function (`const A: [[f64; 3]; 3]`),
    /// a row of it, to any depth: a constant operand, indexed as a constant array is.
    fn outside_row(&mut self, expr: &Expr) -> Option<Operand> {
        let Expr::Index(inner) = strip_parens(expr) else {
            return None;
        };
        if matches!(strip_parens(&inner.index), Expr::Range(_)) {
            return None;
        }
        let base = self
            .outside_array(&inner.expr)
            .or_else(|| self.outside_row(&inner.expr))?;
        let index = self.lower_expr(&inner.index, None);
        self.index_kind_check(&inner.index, &index);
        let value = Value::Call {
            callee: self.element_or_row(inner),
            args: vec![base, index],
            by_ref: vec![true, false],
        };
        Some(self.emit(value, None, crate::span::of_index(inner)))
    }

    // Input:  `tris[t]` of `tris: &[[usize; 3]]`, `nbrs[i]` of `nbrs: &[Vec<usize>]`
    // Output: `row`     (`tris[t][0]`: `at`)
    /// What reads `e`, an index of a constant or a parameter holding a matrix of integers: `at`, a copy of
    /// the element, but `row`, a reference, where `e` is a row of such a parameter (a `Vec<usize>` row is
    /// not `Copy`; the body indexes it further or measures it).
    fn element_or_row(&self, e: &syn::ExprIndex) -> syn::ExprPath {
        let mut levels = 1;
        let mut base = &*e.expr;
        while let Expr::Index(inner) = strip_parens(base) {
            levels += 1;
            base = &inner.expr;
        }
        match self.integer_matrix_depth(base) {
            Some(depth) if levels < depth => syn::parse_quote!(::autodiff::__private::row),
            _ => syn::parse_quote!(::autodiff::__private::at),
        }
    }

    /// The depth of nesting of `base` where it names a parameter holding a matrix of integers or flags
    /// (2 for `tris: &[[usize; 3]]`): what [`Lowering::element_or_row`] and [`Lowering::integer_row`]
    /// compare the levels of an index with.
    fn integer_matrix_depth(&self, base: &Expr) -> Option<usize> {
        let Expr::Path(p) = strip_parens(base) else {
            return None;
        };
        let ident = p.path.get_ident()?;
        self.integer_matrix(&ident.to_string())
            .map(|(ty, _)| crate::signature::nesting_depth(ty))
    }

    /// Is `expr` a row of a parameter holding a matrix of integers or flags (`tris[t]`, `nbrs[i]`, not an
    /// element `nbrs[i][k]`), which `element_or_row` reads by reference?
    pub(super) fn integer_row(&self, expr: &Expr) -> bool {
        if !matches!(strip_parens(expr), Expr::Index(_)) {
            return false;
        }
        let mut levels = 0;
        let mut base = expr;
        while let Expr::Index(inner) = strip_parens(base) {
            if matches!(strip_parens(&inner.index), Expr::Range(_)) {
                return false;
            }
            levels += 1;
            base = &inner.expr;
        }
        self.integer_matrix_depth(base)
            .is_some_and(|depth| levels < depth)
    }

    /// `row` in `row[j]` of `let row = DESIGN[i];` (`outside_rows`): the constant row.
    fn outside_row_local(&self, expr: &Expr) -> Option<Operand> {
        let Expr::Path(p) = strip_parens(expr) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        let var = self.lookup(&name)?.value.as_ref()?.var()?;
        self.outside_rows
            .contains(&var)
            .then_some(Operand::Var(var))
    }

    /// Is `init` a row of a constant matrix from outside the function (`DESIGN[i]`, `tables::A[i][j]` of
    /// a deeper one), or its lift in the generic copy (`constant::<__S, _>(DESIGN[i])`)?
    pub(in crate::lower) fn reads_outside_row(&self, init: &Expr) -> bool {
        let init = match strip_parens(init) {
            Expr::Call(c) if c.args.len() == 1 && super::is_outside_constant(c) => &c.args[0],
            other => other,
        };
        // `let row = &nbrs[i];` of a parameter holding a matrix of integers: the row by reference.
        let init = match strip_parens(init) {
            Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            other => other,
        };
        let Expr::Index(e) = strip_parens(init) else {
            return false;
        };
        let mut e = e;
        loop {
            if matches!(strip_parens(&e.index), Expr::Range(_)) {
                return false;
            }
            match strip_parens(&e.expr) {
                Expr::Index(inner) => e = inner,
                base => return self.outside_array(base).is_some(),
            }
        }
    }

    /// An index must be an integer; a float literal or value is an error the user can act on.
    fn index_kind_check(&mut self, expr: &Expr, index: &Operand) {
        if let Operand::Const {
            kind: crate::ir::Kind::Float(_),
            ..
        } = index
        {
            self.errors.spanned(
                expr,
                "an index must be an integer: write `x as usize` for a float `x`",
            );
        }
    }

    /// `a[i] = value` or `a[i] op= value`.
    pub(super) fn store(&mut self, target: &syn::ExprIndex, op: Option<syn::BinOp>, rhs: &Expr) {
        // Rust evaluates the value before the place (a compound assignment of primitives too, of other
        // types after): a value that moves the index would write another element than the code below.
        if let Some(name) = crate::incoming::index_moved_by(rhs, &target.index) {
            self.errors.spanned(
                rhs,
                format!(
                    "the value assigned to an element changes `{name}`, which the element's index uses: \
                     compute the value first (`let v = ..;`), then assign it"
                ),
            );
            return;
        }
        // `m[i][j] = value` of a matrix: a store into its flat array.
        let matrix = self.matrix_row(&target.expr);
        // `m[i] = row` of a matrix (or an item above the rows of a deeper nested array): the flat
        // array holds floats, not rows, so the row is written entry by entry, the value first and then
        // the index, as Rust evaluates them.
        if matrix.is_none() && self.nested_prefix(&target.expr).is_some() {
            if op.is_some() {
                self.errors.spanned(
                    target,
                    "a compound assignment to a whole row of a matrix is not supported: write its \
                     entries (`for j in 0..n { m[i][j] += row[j]; }`)",
                );
                return;
            }
            self.store_row(target, rhs);
            return;
        }
        let Some(array) = matrix
            .as_ref()
            .map(|(flat, ..)| *flat)
            .or_else(|| self.array_named(&target.expr))
        else {
            // `edges[e][0] = k` of a parameter holding a matrix of integers or flags: data, read only.
            let mut base = &*target.expr;
            while let Expr::Index(inner) = strip_parens(base) {
                base = &inner.expr;
            }
            let integers = match strip_parens(base) {
                Expr::Path(p) => (p.path.get_ident())
                    .filter(|ident| self.integer_matrix(&ident.to_string()).is_some()),
                _ => None,
            };
            let message = match integers {
                Some(name) => format!(
                    "`{name}` is a matrix of integers or flags, data that a differentiable body reads (by \
                     index and by its rows) but does not write: compute what it should hold before the \
                     call and pass that"
                ),
                None => "only a local `Vec` or array can be written by index: copy the data with                          `.to_vec()` first"
                    .to_string(),
            };
            self.errors.spanned(&target.expr, message);
            return;
        };
        // An output parameter (`&mut [T]`) is written like a local.
        let output = self.arrays[array.0 as usize].output;
        if let Some(param) = self.arrays[array.0 as usize].param.filter(|_| !output) {
            let name = &self.arrays[array.0 as usize].name;
            let instead = match self.param_types.get(param) {
                // An owned array can be declared `mut` and written like a local.
                Some(ty) if !matches!(ty, syn::Type::Reference(_)) => {
                    format!(
                        "declare the parameter `mut {name}: {}`",
                        ty.to_token_stream()
                    )
                }
                _ if self.arrays[array.0 as usize].fixed => {
                    format!("copy it first with `let mut {name} = {name}.clone();`")
                }
                _ => format!("copy it first with `let mut {name} = {name}.to_vec();`"),
            };
            self.errors.spanned(
                &target.expr,
                format!("`{name}` is an input of the function and cannot be written: {instead}"),
            );
            return;
        }
        // The value first, as Rust evaluates it (an assignment's and a compound assignment of primitives'),
        // then the place: `v[0] += { v[0] = 2.0; 1.0 }` reads the element the value wrote.
        let value = self.lower_expr(rhs, None);
        let index = match matrix {
            Some((flat, offsets, row)) => {
                let row = self.lower_row(flat, &row);
                let column = self.lower_expr(&target.index, None);
                self.index_kind_check(&target.index, &column);
                let (start, _) = self.row_bounds(offsets, row);
                self.emit(
                    Value::Binary(syn::parse_quote!(+), start, column),
                    None,
                    target.span(),
                )
            }
            None => {
                let index = self.lower_expr(&target.index, None);
                self.index_kind_check(&target.index, &index);
                index
            }
        };
        let value = match op {
            None => value,
            Some(op) => {
                let current = self.emit(
                    Value::Load {
                        array,
                        index: index.clone(),
                        at: None,
                    },
                    None,
                    target.span(),
                );
                self.emit(Value::Binary(op, current, value), None, target.span())
            }
        };
        self.forget_reads_of(array);
        self.stmts.push(Stmt::Store {
            array,
            index,
            value,
        });
    }

    // Input:  m[i] = row;
    // Output: { let __row_value = row; let __row_index = i;
    //           (a panic unless __row_value.len() == m[__row_index].len(), as `asserts.rs` writes it)
    //           for __row_entry in 0..__row_value.len() {
    //               m[__row_index][__row_entry] = __row_value[__row_entry];
    //           } }
    /// `m[i] = row` of a matrix, lowered as the entry-by-entry copy it is (the row of a deeper nested
    /// array the same way, one level at a time). The generated items keep a matrix flat, with fixed
    /// rows: a row of another length, which the function itself allows, panics there instead of
    /// writing into the next row.
    fn store_row(&mut self, target: &syn::ExprIndex, rhs: &Expr) {
        let span = target.span();
        let (matrix, index) = (&target.expr, &target.index);
        let message = "a row of a matrix assigned whole keeps its length in the generated items, \
                       which store the matrix flat";
        let copy: Expr = syn::parse_quote_spanned! {span=>
            {
                let __row_value = #rhs;
                let __row_index = #index;
                let mut __row_check = [0usize; 1];
                if __row_value.len() != #matrix[__row_index].len() {
                    __row_check[0] = ::autodiff::__private::assertion_failed(#message);
                }
                for __row_entry in 0..__row_value.len() {
                    #matrix[__row_index][__row_entry] = __row_value[__row_entry];
                }
            }
        };
        self.lower_expr(&copy, None);
    }

    // Input:  v.swap(i, j);
    // Output: { let __swap_first = i; let __swap_second = j;
    //           let __swapped = v[__swap_first]; v[__swap_first] = v[__swap_second];
    //           v[__swap_second] = __swapped; }
    // Input:  m.swap(i, j);                 (rows of a matrix)
    // Output: the same for each entry `m[..][__row_entry]`, after a panic unless the rows' lengths agree
    /// `.swap(i, j)` of a writable array or of the rows of a matrix, lowered as the element swaps it is
    /// (through `store`, which rejects an input). Swapping rows of different lengths is valid Rust, but
    /// the generated items keep a matrix flat: they panic there, as `std::mem::swap` of two `Vec`s of
    /// different lengths does (`lower/swap.rs`).
    fn swap_entries(&mut self, m: &syn::ExprMethodCall, rows: bool) -> Operand {
        let span = m.span();
        let (target, first, second) = (&m.receiver, &m.args[0], &m.args[1]);
        let swap: Expr = if rows {
            let message =
                "rows of a matrix swapped with `.swap(i, j)` have the same length in the \
                           generated items, which store the matrix flat";
            syn::parse_quote_spanned! {span=>
                {
                    let __swap_first = #first;
                    let __swap_second = #second;
                    let mut __row_check = [0usize; 1];
                    if #target[__swap_first].len() != #target[__swap_second].len() {
                        __row_check[0] = ::autodiff::__private::assertion_failed(#message);
                    }
                    for __row_entry in 0..#target[__swap_first].len() {
                        let __swapped = #target[__swap_first][__row_entry];
                        #target[__swap_first][__row_entry] = #target[__swap_second][__row_entry];
                        #target[__swap_second][__row_entry] = __swapped;
                    }
                }
            }
        } else {
            syn::parse_quote_spanned! {span=>
                {
                    let __swap_first = #first;
                    let __swap_second = #second;
                    let __swapped = #target[__swap_first];
                    #target[__swap_first] = #target[__swap_second];
                    #target[__swap_second] = __swapped;
                }
            }
        };
        self.lower_expr(&swap, None);
        Operand::unit()
    }

    /// `vec![v; n]` and `vec![a, b, c]`; `vec![vec![v; c]; r]` and `vec![vec![a, b], vec![c, d]]` are
    /// matrices (`lower/matrices.rs`).
    pub(super) fn lower_vec_macro(&mut self, m: &syn::ExprMacro, hint: Option<String>) -> Operand {
        let parsed = match parse_vec(m) {
            Ok(parsed) => parsed,
            Err(e) => {
                self.errors.push(e);
                return Self::poisoned();
            }
        };
        if let Some(deep) = super::matrices::DeepInit::of(&Expr::Macro(m.clone())) {
            return self.new_deep_local(deep, false, hint);
        }
        if let Some(matrix) = super::matrices::MatrixInit::of(&parsed) {
            let row_len = super::matrices::array_row_len(&parsed);
            let made = self.new_local_matrix(matrix, hint);
            if let (Operand::Array(flat), Some(len)) = (&made, row_len) {
                self.array_rows.insert(*flat, len);
            }
            return made;
        }
        let init = match parsed {
            VecArgs::Repeat(value, len) => ArrayInit::Repeat {
                value: self.lower_expr(&value, None),
                len: self.lower_expr(&len, None),
                fixed: false,
            },
            VecArgs::Elements(items) => ArrayInit::Elements {
                items: items.iter().map(|e| self.lower_expr(e, None)).collect(),
                fixed: false,
            },
        };
        if nested(&init) {
            return self.local_matrix(m, hint);
        }
        self.new_local_array(init, false, hint)
    }

    /// `[v; N]` and `[a, b, c]`.
    pub(super) fn lower_array_literal(&mut self, expr: &Expr, hint: Option<String>) -> Operand {
        if let Some(matrix) = super::matrices::MatrixInit::of_array(expr) {
            return self.new_fixed_matrix(matrix, hint);
        }
        if let Some(rows) = self.rows_of_named_arrays(expr) {
            return self.new_fixed_matrix(super::matrices::MatrixInit::Rows(rows), hint);
        }
        if let Some(deep) = super::matrices::DeepInit::of(expr) {
            return self.new_deep_local(deep, true, hint);
        }
        let init = match expr {
            Expr::Repeat(r) => ArrayInit::Repeat {
                value: self.lower_expr(&r.expr, None),
                len: self.lower_expr(&r.len, None),
                fixed: true,
            },
            Expr::Array(a) => ArrayInit::Elements {
                items: a.elems.iter().map(|e| self.lower_expr(e, None)).collect(),
                fixed: true,
            },
            _ => return Self::poisoned(),
        };
        if nested(&init) {
            return self.local_matrix(expr, hint);
        }
        let len = match expr {
            Expr::Array(a) => Some(a.elems.len()),
            Expr::Repeat(r) => match strip_parens(&r.len) {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse().ok(),
                _ => None,
            },
            _ => None,
        };
        let made = self.new_local_array(init, true, hint);
        if let (Operand::Array(array), Some(len)) = (&made, len) {
            self.literal_lens.insert(*array, len);
        }
        made
    }

    // Input:  [u, b]          (`u`, `b`: `[f64; 3]` literals of the body, or parameters)
    // Output: the rows of `[[u[0], u[1], u[2]], [b[0], b[1], b[2]]]`
    /// An array literal of fixed-size arrays that the body names (`let ends = [u, b];` of two points): the
    /// matrix whose rows are copies of theirs, as Rust makes it, read element by element where the syntax
    /// tells their common length (an array literal of the body, `[a, b, c]` or `[0.0; 3]`, or a `[T; 3]`
    /// parameter). `None` for anything else (an array of other arrays stays `local_matrix`'s error).
    fn rows_of_named_arrays(&self, expr: &Expr) -> Option<Vec<Vec<Expr>>> {
        let Expr::Array(literal) = strip_parens(expr) else {
            return None;
        };
        let rows = literal
            .elems
            .iter()
            .map(|row| {
                let Expr::Path(_) = strip_parens(row) else {
                    return None;
                };
                let array = self.array_named(row)?;
                let info = &self.arrays[array.0 as usize];
                if !info.fixed || info.matrix.is_some() {
                    return None;
                }
                let len = match self.literal_lens.get(&array) {
                    Some(len) => *len,
                    None => self.fixed_lens.get(&array)?.to_string().parse().ok()?,
                };
                Some(
                    (0..len)
                        .map(|j| syn::parse_quote!(#row[#j]))
                        .collect::<Vec<Expr>>(),
                )
            })
            .collect::<Option<Vec<Vec<Expr>>>>()?;
        let first = rows.first()?.len();
        (first > 0 && rows.iter().all(|row| row.len() == first)).then_some(rows)
    }

    /// `Vec::new()` and `Vec::with_capacity(n)`, if `c` is one of them.
    pub(super) fn lower_vec_constructor(
        &mut self,
        c: &syn::ExprCall,
        hint: &Option<String>,
    ) -> Option<Operand> {
        let Expr::Path(path) = strip_parens(&c.func) else {
            return None;
        };
        let segments = crate::naming::path_names(&path.path);
        let [.., ty, func] = segments.as_slice() else {
            return None;
        };
        if ty != "Vec" {
            return None;
        }
        let capacity = match (func.as_str(), c.args.len()) {
            ("new", 0) => None,
            ("with_capacity", 1) => Some(self.lower_expr(&c.args[0], None)),
            _ => return None,
        };
        let array = self.new_local_array(ArrayInit::Empty { capacity }, false, hint.clone());
        if let Operand::Array(a) = array {
            self.arrays[a.0 as usize].made_at = c.span();
        }
        Some(array)
    }

    /// A method call on an array: `len`, `push`, `to_vec`, `clone`. `None` if the receiver is no array.
    pub(super) fn lower_array_method(
        &mut self,
        m: &syn::ExprMethodCall,
        hint: &Option<String>,
    ) -> Option<Operand> {
        let name = m.method.to_string();
        // `m.len()`, `m[i].len()` of a matrix (`x[i][j].len()` of a nested array deeper): from the
        // offsets, with no copy of the row.
        if let (Some((flat, indexes)), "len", true) = (
            self.nested_prefix(&m.receiver),
            name.as_str(),
            m.args.is_empty(),
        ) {
            if let Some(len) = self.nested_len(flat, &indexes, hint.clone(), m.span()) {
                return Some(len);
            }
        }
        // `f(..).to_vec()`: a copy of the array a call returns.
        if let (Expr::Call(c), "to_vec", true) =
            (strip_parens(&m.receiver), name.as_str(), m.args.is_empty())
        {
            if !super::is_vec_constructor(c) {
                let result = self.lower_array_call(c, false, "__returned")?;
                let Operand::Array(source) = result else {
                    return Some(result);
                };
                return Some(self.new_local_array(ArrayInit::Copy(source), false, hint.clone()));
            }
        }
        let array = self.array_operand(&m.receiver)?;
        if let Some(offsets) = self.rows_of(array) {
            if name == "is_empty" && m.args.is_empty() {
                let rows = self
                    .nested_len(array, &[], None, m.span())
                    .unwrap_or_else(Self::poisoned);
                return Some(self.is_zero(rows, hint, m));
            }
            // `m.to_vec()`, `m.clone()`: a copy of the flat elements, with the same rows.
            if matches!(name.as_str(), "to_vec" | "clone") && m.args.is_empty() {
                return Some(self.matrix_copy(array, offsets, hint.clone()));
            }
            if name == "swap" && m.args.len() == 2 {
                return Some(self.swap_entries(m, true));
            }
            self.errors.spanned(
                &m.method,
                format!("`.{name}()` is not supported on a matrix: index it (`m[i][j]`), take its rows \
                         (`&m[i]`, `for row in m`) or its number of rows (`m.len()`)"),
            );
            return Some(Self::poisoned());
        }
        Some(match (name.as_str(), m.args.len()) {
            ("len", 0) => self.emit(Value::Len(array), hint.clone(), m.span()),
            ("is_empty", 0) => {
                let len = self.emit(Value::Len(array), None, m.span());
                self.is_zero(len, hint, m)
            }
            ("push", 1) => {
                if self.arrays[array.0 as usize].param.is_some()
                    || self.arrays[array.0 as usize].fixed
                {
                    self.errors.spanned(
                        &m.receiver,
                        "only a local `Vec` can grow: copy the input with `.to_vec()` first",
                    );
                    return Some(Self::poisoned());
                }
                let value = self.lower_expr(&m.args[0], None);
                let index = self.new_var(None, m.span());
                self.forget_reads_of(array);
                let info = &mut self.arrays[array.0 as usize];
                info.resized_at = info.resized_at.or(Some(m.method.span()));
                self.stmts.push(Stmt::Push {
                    array,
                    index,
                    value,
                });
                Operand::unit()
            }
            ("to_vec" | "clone", 0) => {
                let fixed = name == "clone" && self.arrays[array.0 as usize].fixed;
                let copy = self.new_local_array(ArrayInit::Copy(array), fixed, hint.clone());
                if let Operand::Array(a) = copy {
                    self.arrays[a.0 as usize].made_at = m.span();
                }
                copy
            }
            ("swap", 2) => self.swap_entries(m, false),
            // What `slice_writes.rs` did not lower: not a statement of its own.
            ("fill", 1) => {
                self.errors.spanned(
                    &m.method,
                    "`.fill(..)` is supported as a statement of its own (`a.fill(v);`), whose `()` is not used",
                );
                Self::poisoned()
            }
            // `let (l, r) = x.split_at(m);` of a slice named by a path or a field is rewritten before
            // (`std_forms.rs`).
            ("split_at", 1) => {
                self.errors.spanned(
                    &m.method,
                    "`.split_at(m)` is supported as the value of `let (l, r) = x.split_at(m);` of a slice \
                     named by a variable or a field: bind this slice to a variable first, or take the \
                     sub-slices `&x[..m]` and `&x[m..]`",
                );
                Self::poisoned()
            }
            // What `std_forms.rs` did not read as the element by index.
            ("first" | "last", 0) => {
                self.errors.spanned(
                    &m.method,
                    format!(
                        "`.{name}()` is supported unwrapped (`*x.{name}().unwrap()`, `x.{name}().copied().unwrap()`, \
                         `.expect(..)`) or with a default (`x.{name}().copied().unwrap_or(d)`) of a slice, array \
                         or `Vec` named by a variable, a field or an element (`m[i]`), or a sub-slice of one \
                         (`x[1..]`, `x[i..n - 1]`): bind this one to a variable first, or index it (`x[0]`, \
                         `x[x.len() - 1]`)"
                    ),
                );
                Self::poisoned()
            }
            ("pop", 0) => {
                self.errors.spanned(
                    &m.method,
                    "`.pop()` is supported on a local `Vec` named by a variable, as `s.pop().unwrap()`, \
                     `s.pop().expect(\"..\")`, `s.pop().unwrap_or(d)`, `if let Some(v) = s.pop()`, \
                     `while let Some(v) = s.pop()`, `let Some(v) = s.pop() else { .. };` and the statement \
                     `s.pop();`: write it so",
                );
                Self::poisoned()
            }
            _ => {
                self.errors.spanned(
                    &m.method,
                    format!(
                        "`.{name}()` is not supported on a slice or `Vec`: index it in a loop, or use `.len()`, \
                         `.is_empty()`, `.push(..)`, `.to_vec()`, or `.fill(..)` and `.copy_from_slice(..)` as \
                         statements"
                    ),
                );
                Self::poisoned()
            }
        })
    }

    /// `len == 0`: what `.is_empty()` of an array or matrix is.
    fn is_zero(&mut self, len: Operand, hint: &Option<String>, m: &syn::ExprMethodCall) -> Operand {
        let zero = Operand::Const {
            tokens: quote::quote!(0),
            kind: crate::ir::Kind::Int,
        };
        self.emit(
            Value::Binary(syn::parse_quote!(==), len, zero),
            hint.clone(),
            m.span(),
        )
    }

    /// A copy of the matrix `array` (rows at `offsets`): its flat elements, with the same rows (`m.clone()`,
    /// and `mut m: Vec<Vec<T>>` or `mut m: [[T; M]; N]`, a parameter written like a local).
    pub(super) fn matrix_copy(
        &mut self,
        array: Array,
        offsets: Array,
        hint: Option<String>,
    ) -> Operand {
        let copy = self.new_local_array(ArrayInit::Copy(array), false, hint);
        if let Operand::Array(copy) = copy {
            self.matrices.insert(copy, offsets);
            let levels = self.levels_above_rows(array);
            if !levels.is_empty() {
                self.outer_levels.insert(copy, levels);
            }
            // A copy is held flat, without the parameter it came from.
            let shape = self.arrays[array.0 as usize].matrix.clone();
            self.arrays[copy.0 as usize].matrix = shape.map(|s| crate::ir::MatrixShape {
                like: s.original.map(|(matrix, _)| matrix).or(s.like),
                original: None,
                ..s
            });
        }
        copy
    }

    /// `let b = a;` (or `let b = *a;`) for an array: a `Vec` moves (the name is an alias), a fixed array or
    /// an input is copied, so that writing `b` never writes `a`; a matrix with its rows.
    pub(super) fn bind_array_copy(&mut self, array: Array, hint: Option<String>) -> Operand {
        let info = &self.arrays[array.0 as usize];
        let nested_array = info.matrix.as_ref().is_some_and(|m| m.copied_by_let);
        if info.untyped {
            let copy = self.new_local_array(ArrayInit::Copy(array), false, hint);
            if let Operand::Array(copy) = copy {
                self.arrays[copy.0 as usize].untyped = true;
            }
            return copy;
        }
        if !(info.fixed || info.param.is_some() || nested_array) {
            return Operand::Array(array);
        }
        let fixed = info.fixed;
        match self.rows_of(array) {
            Some(offsets) => self.matrix_copy(array, offsets, hint),
            None => self.new_local_array(ArrayInit::Copy(array), fixed, hint),
        }
    }
}

impl Lowering<'_> {
    // Input:  `tris` of `fn f(x: &[f64], tris: &[[usize; 3]])`
    // Output: Some("`tris` is a matrix of integers (`&[[usize; 3]]`) ...")
    /// Where `name` is a parameter holding a matrix (or deeper) of integers or flags (`tris: &[[usize; 3]]`,
    /// `nbrs: &[Vec<usize>]`), data the body reads by index (`at`, `row`: `Lowering::element_or_row`) and
    /// iterates by rows (`integer_rows.rs` rewrites those loops): the error for any other use, saying what
    /// to write instead (session 46 met `for tri in tris`, told only that `tris` holds no floats).
    pub(super) fn integer_matrix_param(&self, name: &str) -> Option<String> {
        let (ty, _) = self.integer_matrix(name)?;
        let ty = quote::ToTokens::to_token_stream(ty)
            .to_string()
            .replace(" ", "");
        Some(format!(
            "`{name}` is a matrix of integers or flags (`{ty}`), which a differentiable body reads by index \
             (`{name}[i][j]`, `{name}[i].len()`, `let row = &{name}[i];` then `row[j]`) and iterates by its \
             rows or a row's elements (`for row in {name}.iter()`, `for &row in {name}`, `for &[a, b] in \
             {name}`, `for (i, row) in {name}.iter().enumerate()`, also `.rev()`; `for &j in {name}[i].iter()`), \
             not otherwise: loop over its indices (`for i in 0..{name}.len()`) and read it by index"
        ))
    }

    /// The type of the parameter `name` and the name of its element type, where it holds a matrix (or
    /// deeper) of integers or flags.
    fn integer_matrix(&self, name: &str) -> Option<(&syn::Type, String)> {
        let ty = match self.param_names.iter().position(|n| n == name) {
            Some(index) => &self.param_types[index],
            None => self.integer_local(name).map(|(_, ty)| ty)?,
        };
        crate::integer_rows::integer_matrix_type(ty).map(|(element, _)| (ty, element))
    }

    /// The variable and type of the local `name` where it holds a matrix of integers or flags (a typed
    /// `let` of a struct's field, `integer_locals`).
    fn integer_local(&self, name: &str) -> Option<(crate::ir::Var, &syn::Type)> {
        let var = self.lookup(name)?.value.as_ref()?.var()?;
        self.integer_locals
            .iter()
            .find(|(v, _)| *v == var)
            .map(|(v, ty)| (*v, ty))
    }
}
