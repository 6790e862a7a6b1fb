//! Lowering: the function body, as `syn` parsed it, becomes the intermediate form of `ir.rs`.
//!
//! Every expression is split into `let`s of one operation each (A-normal form), every assignment makes a
//! new value, and a variable that an `if` or `match` assigns becomes one of the statement's outs. An early
//! `return` is turned into structured control flow: the statements after `if c { return a; }` become the
//! `else` branch, so the body is one expression whose value is the returned value.
//!
//! ```text
//! // Input:                          // Output (ir):
//! let mut y = x * x;                 y   = x * x
//! if y > 1.0 { y = y.sqrt(); }       c   = y > 1.0
//! y + x                              y_1 = if c { y_2 = sqrt(y); yield y_2 } else { yield y }
//!                                    ret = y_1 + x
//! ```
//!
//! The body has already passed the fence (`fence.rs`), so constructs outside the subset do not reach here;
//! what only lowering can see (a `return` inside an expression) is reported to `Errors`.

use crate::errors::Errors;
use crate::ir::{Array, ArrayInfo, Block, Function, Kind, Operand, Stmt, Value, Var, VarInfo};
use crate::signature::{kind_of_type, Signature};
use proc_macro2::Span;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{BinOp, Expr, Ident, Lit, Pat};

mod array_values;
mod arrays;
mod calls;
pub(crate) use arrays::array_uses;
pub(crate) use calls::{is_private_field_window, is_private_receive, is_stop_gradient};
mod control;
mod iteration;
pub(crate) mod loops;
mod swap;
pub(crate) use loops::is_compound_assign;
pub(crate) use swap::{is_mem_swap, swapped_names, SWAP_FORM};
mod matrices;
mod windows;

/// A name in scope: its current value, or `None` for `let y;` not yet assigned.
#[derive(Clone)]
struct Binding {
    name: String,
    value: Option<Operand>,
}

/// One element of a statement sequence lowered in return position: a statement, an expression in
/// statement position (the `else if` of a returning `if`), or the end of a block's scope.
#[derive(Clone, Copy)]
enum SeqItem<'s> {
    Stmt(&'s syn::Stmt),
    Expr(&'s Expr),
    /// The end of the block whose bindings are the scope at this depth of `Lowering::scopes`. Not
    /// simply the innermost scope: the statements after a block that can `return` are lowered inside
    /// the branches of what returns in it (a loop's "did not return" branch), whose own scopes are
    /// above the block's, and the block's bindings (`let t` shadowing an outer `t`) must end there.
    PopScope(usize),
}

struct Lowering<'a> {
    /// The kind of the returned value.
    return_kind: Kind,
    /// For a function returning an array or `Vec`: whether it is fixed-size, and its length where the
    /// return type writes it (`[T; 3]`), which a call returned early from an `if` or `match` takes.
    return_array: Option<(bool, Option<proc_macro2::TokenStream>)>,
    /// In a function returning an array, the names it returns (`arrays::returned_names`): a call's result
    /// bound to one of them is an array of the return type.
    returned_names: crate::hash::FastSet<String>,
    /// While lowering the value of `let v = if ..` (or `match`) where `v` is an array (`v[i]`, or
    /// `let v: [T; N]`): whether it is fixed-size and its length where the type writes it. A call that a
    /// branch gives is then an array too (`lower_branch_tail`).
    branch_array: Option<(bool, Option<proc_macro2::TokenStream>)>,
    /// Names the body uses as arrays (`v[i]`, `v.len()`, `&v`, `for x in v`): a call's result bound to
    /// one of them is an array.
    array_uses: crate::hash::FastSet<String>,
    /// The `let`s binding a name of `array_uses` to a value that is no array (`arrays::scalar_lets`).
    scalar_lets: crate::hash::FastSet<usize>,
    /// Values already computed, by operation and operands: the same expression is computed once.
    memo: crate::hash::FastMap<String, Var>,
    vars: Vec<VarInfo>,
    arrays: Vec<ArrayInfo>,
    /// The names bound by a `let` whose value had an error: their later uses report nothing more, so
    /// that one mistake gives one error.
    failed_lets: crate::hash::FastSet<String>,
    scopes: Vec<Vec<Binding>>,
    /// The statements of the block being lowered.
    stmts: Vec<Stmt>,
    items: Vec<syn::Item>,
    float_params: Vec<Ident>,
    /// The declared type of each parameter, for the hints of errors.
    param_types: Vec<syn::Type>,
    /// The name of each parameter, for the hints of errors.
    param_names: Vec<String>,
    /// The parameters as the generated function declares them (a struct's field input is hygienic).
    param_idents: Vec<syn::Ident>,
    /// Arrays made at the top of the function (`lower/array_values.rs`).
    hoisted: Vec<Stmt>,
    /// The length of fixed-size arrays, where the syntax tells it (`[x; 3]`, `[a, b]`, `x: [f64; N]`).
    fixed_lens: crate::hash::FastMap<Array, proc_macro2::TokenStream>,
    /// The length of the array literals of the body (`[a, b, c]`, `[0.0; 3]`), by their array: what an
    /// array literal of them (`let ends = [u, b];`) is read by (`Lowering::rows_of_named_arrays`).
    literal_lens: crate::hash::FastMap<Array, usize>,
    /// How many loops enclose the code being lowered.
    loop_depth: usize,
    /// For each loop being lowered, innermost last, how many scopes enclose it: a name bound in a scope
    /// below that number is bound outside the loop.
    loop_scopes: Vec<usize>,
    /// The values of the parameters, in declaration order.
    param_vars: Vec<Var>,
    /// The flattened matrix parameters, with the arrays of their row offsets (`lower/matrices.rs`).
    matrices: crate::hash::FastMap<Array, Array>,
    /// The local matrices of `vec![..]` whose rows are arrays (`vec![[0.0; 2]; n]`, a `Vec<[T; 2]>`), with
    /// the rows' length: a row is held as the `[T; N]` it is (`HeldAs::Row`), which a call takes by value.
    array_rows: crate::hash::FastMap<Array, proc_macro2::TokenStream>,
    /// For a nested array deeper than a matrix (`[[[T; K]; M]; N]`), the arrays of the offsets of its levels
    /// above the rows, outermost first (`lower/matrices.rs`); none for a matrix.
    outer_levels: crate::hash::FastMap<Array, Vec<Array>>,
    /// The sub-slices and rows of matrices (`lower/windows.rs`): copies that the user's code holds as
    /// references, so a call takes them as `&a`.
    windows: crate::hash::FastSet<Array>,
    /// The rows `[T; N]` of matrices bound by value (`let r = pos[i];`): a call passing the name (`g(r)`)
    /// passes a copy of the row, as for `g(pos[i])`, not the reference a window stands for.
    row_values: crate::hash::FastSet<Array>,
    /// The values bound to a row of a constant matrix from outside the function without a type
    /// (`let row = DESIGN[i];`): constants, read by index (`row[j]`) as the matrix is.
    outside_rows: crate::hash::FastSet<Var>,
    /// Locals holding a matrix of integers or flags (a struct's field, bound by a typed `let`), with their
    /// types: read by index as such a parameter is (`Lowering::integer_matrix`).
    integer_locals: Vec<(Var, syn::Type)>,
    errors: &'a mut Errors,
}

/// Lowers the body of `item`, whose signature is `sig`.
pub(crate) fn lower(
    item: &syn::ItemFn,
    sig: &Signature,
    float_params: Vec<Ident>,
    errors: &mut Errors,
) -> Function {
    let mut lowering = Lowering {
        return_kind: sig.ret_kind.clone(),
        return_array: crate::signature::array_shape(&sig.ret_ty, &float_params)
            .filter(|(shape, _)| shape.owned && !shape.matrix)
            .map(|(shape, _)| (shape.fixed, arrays::fixed_len_of_type(&sig.ret_ty))),
        returned_names: Default::default(),
        branch_array: None,
        array_uses: arrays::array_uses(&item.block),
        scalar_lets: arrays::scalar_lets(&item.block),
        memo: Default::default(),
        vars: Vec::new(),
        arrays: Vec::new(),
        failed_lets: Default::default(),
        scopes: vec![Vec::new()],
        stmts: Vec::new(),
        items: Vec::new(),
        float_params,
        param_types: sig.params.iter().map(|p| p.ty.clone()).collect(),
        param_names: sig.params.iter().map(|p| p.ident.to_string()).collect(),
        param_idents: sig.params.iter().map(|p| p.ident.clone()).collect(),
        hoisted: Vec::new(),
        fixed_lens: Default::default(),
        literal_lens: Default::default(),
        loop_depth: 0,
        loop_scopes: Vec::new(),
        param_vars: Vec::new(),
        matrices: Default::default(),
        array_rows: Default::default(),
        outer_levels: Default::default(),
        windows: Default::default(),
        row_values: Default::default(),
        outside_rows: Default::default(),
        integer_locals: Vec::new(),
        errors,
    };
    if lowering.return_array.is_some() {
        lowering.returned_names = arrays::returned_names(&item.block).into_iter().collect();
        let returned = lowering.returned_names.clone();
        lowering.array_uses.extend(returned);
    }
    let mut params = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        let var = lowering.new_var(Some(p.ident.to_string()), p.ident.span());
        // A parameter struct taken by value, which the generated bodies borrow (`let p = &p;`): a call
        // that takes it by value is given a clone (`Emitter::call_arg`).
        if matches!(p.kind, Kind::Struct(_)) && !matches!(p.ty, syn::Type::Reference(_)) {
            lowering.vars[var.0 as usize].declared = Some(p.ty.clone());
        }
        params.push(var);
        lowering.param_vars.push(var);
        let bound = match p.array {
            Some(shape) if shape.matrix => {
                let matrix = lowering.bind_matrix(&p.ident, i);
                // `mut m: Vec<Vec<T>>` or `mut m: [[T; M]; N]`, written like a local: a local copy of the
                // input, as `m.clone()` makes.
                match (shape.owned && arrays::declared_mut(item, i), matrix) {
                    (true, Operand::Array(flat)) => match lowering.rows_of(flat) {
                        Some(offsets) => {
                            lowering.matrix_copy(flat, offsets, Some(p.ident.to_string()))
                        }
                        None => Operand::Array(flat),
                    },
                    (_, matrix) => matrix,
                }
            }
            Some(shape) => {
                let array = lowering.new_array(&p.ident.to_string(), Some(i), shape.fixed);
                // An output parameter, or integers taken as `&mut [usize]`: the body may write it.
                lowering.arrays[array.0 as usize].output =
                    p.output || matches!(&p.ty, syn::Type::Reference(r) if r.mutability.is_some());
                lowering.arrays[array.0 as usize].scalar = p.scalar;
                lowering.arrays[array.0 as usize].field = p.field;
                if let Some(len) = arrays::fixed_len_of_type(&p.ty) {
                    lowering.fixed_lens.insert(array, len);
                }
                // `mut x: [T; N]` or `mut x: Vec<T>`, written like a local: a local copy of the input.
                match shape.owned && arrays::declared_mut(item, i) {
                    true => lowering.bind_array_copy(array, Some(p.ident.to_string())),
                    false => Operand::Array(array),
                }
            }
            None => Operand::Var(var),
        };
        lowering.bind(&p.ident.to_string(), Some(bound));
    }
    let items: Vec<SeqItem> = item.block.stmts.iter().map(SeqItem::Stmt).collect();
    let returned = lowering.lower_seq(&items);
    lowering.reject_array_values(&lowering.stmts.clone(), false);
    let mut stmts = std::mem::take(&mut lowering.hoisted);
    stmts.append(&mut lowering.stmts);
    lowering.stmts = stmts;
    for (array, len) in &lowering.fixed_lens {
        lowering.arrays[array.0 as usize].fixed_len = Some(len.clone());
    }
    for stmt in &lowering.stmts {
        carry_declared(stmt, &mut lowering.vars);
    }
    let mut f = Function {
        vars: lowering.vars,
        arrays: lowering.arrays,
        params,
        body: Block {
            stmts: lowering.stmts,
            yields: vec![returned],
        },
        items: lowering.items,
    };
    crate::region_lengths::record(&mut f);
    f
}

/// A loop's value annotated after the loop (`let u: f64 = t;`) is its carried value: the annotation goes
/// to the carried variable, which the sweeps declare before the loop (`let mut t: f64 = 0.0;`), where an
/// untyped literal alone would leave its type ambiguous to rustc.
fn carry_declared(stmt: &Stmt, vars: &mut [VarInfo]) {
    for block in stmt.blocks() {
        for inner in &block.stmts {
            carry_declared(inner, vars);
        }
    }
    if let Stmt::Loop(l) = stmt {
        for (phi, out) in l.phis.iter().zip(&l.outs) {
            if vars[phi.0 as usize].declared.is_none() {
                vars[phi.0 as usize].declared = vars[out.0 as usize].declared.clone();
            }
        }
    }
}

/// Does this code contain a `return`?
fn contains_return(node: impl FnOnce(&mut ReturnFinder)) -> bool {
    let mut finder = ReturnFinder(false);
    node(&mut finder);
    finder.0
}

struct ReturnFinder(bool);

impl<'ast> Visit<'ast> for ReturnFinder {
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `expr` without the parentheses (and invisible groups) around it.
pub(crate) fn strip_parens(mut expr: &Expr) -> &Expr {
    loop {
        match expr {
            Expr::Paren(p) => expr = &p.expr,
            Expr::Group(g) => expr = &g.expr,
            _ => return expr,
        }
    }
}

/// The names `pat` binds (`a`, `(a, (b, _))`, `c: f64`).
fn pattern_names(pat: &Pat, names: &mut Vec<String>) {
    match pat {
        Pat::Ident(p) => names.push(p.ident.to_string()),
        Pat::Type(t) => pattern_names(&t.pat, names),
        Pat::Paren(p) => pattern_names(&p.pat, names),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| pattern_names(p, names)),
        Pat::Slice(s) => s.elems.iter().for_each(|p| pattern_names(p, names)),
        _ => {}
    }
}

/// The error for an assignment `target op ..` (`op` is `=`, `+=`, ...) to a target that is not a local
/// variable: what is not supported, and what to write instead.
fn unassignable_target(target: &Expr, op: &str) -> String {
    match target {
        Expr::Tuple(_) => "a destructuring assignment `(a, b) = ..` is not supported in a differentiable body: \
             bind the values with `let (new_a, new_b) = ..;` and assign each (`a = new_a; b = new_b;`)"
            .to_string(),
        Expr::Field(field) => match &field.member {
            syn::Member::Unnamed(index) => format!(
                "assigning a field of a tuple (`{t}.{i} {op} ..`) is not supported in a differentiable \
                 body: keep the tuple's parts in local variables (`let (mut a, mut b) = {t};`), assign \
                 those (`a {op} ..`), and make the tuple from them where it is used (`(a, b)`)",
                t = field.base.to_token_stream(),
                i = index.index
            ),
            syn::Member::Named(name) => format!(
                "assigning a field of a struct (`s.{name} {op} ..`) is not supported in a differentiable \
                 body: read the field into a local variable (`let mut {name} = s.{name};`) and assign that"
            ),
        },
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Deref(_),
            ..
        }) => format!(
            "assigning through a dereference (`*r {op} ..`) is supported only for a `&mut` float output \
             parameter of the function: assign a local variable instead (`let mut v = *r; v {op} ..;`)"
        ),
        _ => format!(
            "only a local variable (`v {op} ..`) or an element of a slice, array or `Vec` (`v[i] {op} ..`) \
             can be assigned in a differentiable body: bind this value to a local variable and assign that"
        ),
    }
}

impl Lowering<'_> {
    fn new_var(&mut self, hint: Option<String>, span: Span) -> Var {
        self.vars.push(VarInfo {
            hint,
            tuple_arity: None,
            span,
            declared: None,
            called_variable: None,
            received: false,
        });
        Var(self.vars.len() as u32 - 1)
    }

    fn new_array(&mut self, name: &str, param: Option<usize>, fixed: bool) -> Array {
        self.arrays.push(ArrayInfo {
            name: name.to_string(),
            param,
            fixed,
            declared: None,
            length: None,
            fixed_len: None,
            held_as: None,
            output: false,
            scalar: false,
            field: false,
            matrix: None,
            untyped: false,
            made_at: Span::call_site(),
            resized_at: None,
        });
        Array(self.arrays.len() as u32 - 1)
    }

    /// The array a path names, if it names one.
    fn array_named(&self, expr: &Expr) -> Option<Array> {
        match strip_parens(expr) {
            Expr::Path(p) if p.qself.is_none() => {
                let ident = p.path.get_ident()?;
                match self.lookup(&ident.to_string())?.value {
                    Some(Operand::Array(a)) => Some(a),
                    _ => None,
                }
            }
            Expr::Reference(r) if r.mutability.is_none() => self.array_named(&r.expr),
            _ => None,
        }
    }

    fn bind(&mut self, name: &str, value: Option<Operand>) {
        // Scopes are pushed and popped in pairs, so the function's scope is always there; should it not
        // be, a new one keeps the macro from panicking.
        if self.scopes.is_empty() {
            self.scopes.push(Vec::new());
        }
        let binding = Binding {
            name: name.to_string(),
            value,
        };
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(binding);
        }
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|b| b.name == name)
    }

    /// Arrays are memory, not values: an `if`, `match` or early `return` cannot choose one.
    /// Gives `true` once it reported: one array carried out of a loop is one mistake, though the loop and
    /// the code after it both carry it.
    fn reject_array_values(&mut self, stmts: &[Stmt], in_loop: bool) -> bool {
        for stmt in stmts {
            let (outs, blocks_yields): (Vec<Var>, Vec<&[Operand]>) = match stmt {
                Stmt::If { outs, .. } | Stmt::Match { outs, .. } => (
                    outs.clone(),
                    stmt.blocks().iter().map(|b| b.yields.as_slice()).collect(),
                ),
                Stmt::Loop(l) => (
                    l.phis.clone(),
                    vec![l.inits.as_slice(), l.body.yields.as_slice()],
                ),
                _ => (Vec::new(), Vec::new()),
            };
            for (i, out) in outs.iter().enumerate() {
                if blocks_yields
                    .iter()
                    .any(|ys| matches!(ys.get(i), Some(Operand::Array(_))))
                {
                    // Inside a loop, the branch that returns or breaks carries the array out of it.
                    let message = if in_loop || matches!(stmt, Stmt::Loop(_)) {
                        "an array cannot be carried out of a loop by `return` or `break` yet: make one array \
                         before the loop, write into it (`out[i] = ..`) and return it after the loop"
                    } else {
                        // Every branch yielding an array is `push_branching`'s: another gives a value
                        // the syntax does not show to be an array.
                        "this `if` or `match` gives an array in one branch but, in another, a value the \
                         macro cannot tell is an array: a branch may give a parameter, a local array, an \
                         array literal or a call"
                    };
                    self.errors.at(self.vars[out.0 as usize].span, message);
                    return true;
                }
            }
            let in_loop = in_loop || matches!(stmt, Stmt::Loop(_));
            for block in stmt.blocks() {
                if self.reject_array_values(&block.stmts, in_loop) {
                    return true;
                }
            }
        }
        false
    }

    /// Where `name` is bound: (scope, position in it).
    fn position_of(&self, name: &str) -> Option<(usize, usize)> {
        self.scopes
            .iter()
            .enumerate()
            .rev()
            .find_map(|(si, scope)| {
                scope
                    .iter()
                    .rposition(|b| b.name == name)
                    .map(|bi| (si, bi))
            })
    }

    fn lookup_mut(&mut self, name: &str) -> Option<&mut Binding> {
        self.scopes
            .iter_mut()
            .rev()
            .flat_map(|s| s.iter_mut().rev())
            .find(|b| b.name == name)
    }

    /// Appends `let var = value` and returns the new value, or the value computed by the same operation
    /// on the same operands before, if it is still in scope (`x[i] * x[i]` loads `x[i]` once).
    fn emit(&mut self, value: Value, hint: Option<String>, span: Span) -> Operand {
        let key = memo_key(&value);
        if let Some(var) = key.as_ref().and_then(|k| self.memo.get(k)) {
            return Operand::Var(*var);
        }
        let var = self.new_var(hint, span);
        self.stmts.push(Stmt::Let { var, value });
        if let Some(key) = key {
            self.memo.insert(key, var);
        }
        Operand::Var(var)
    }

    /// Forgets the remembered reads of `array` after a write to it.
    fn forget_reads_of(&mut self, array: Array) {
        let (load, len) = (format!("load {} ", array.0), format!("len {}", array.0));
        self.memo
            .retain(|key, _| !key.starts_with(&load) && *key != len);
    }

    /// Forgets every remembered array read (after a branch or at a loop, which may write any array).
    fn forget_reads(&mut self) {
        self.memo
            .retain(|key, _| !key.starts_with("load ") && !key.starts_with("len "));
    }

    /// A placeholder after an error, so lowering can go on and find the next one.
    fn poisoned() -> Operand {
        Operand::Const {
            tokens: quote!(()),
            kind: Kind::Unknown,
        }
    }

    // Input:  if b < 0.6 { for i in 0..2 { if xs[i] > 0.2 { return 1.0; } } let s = 5.0 * b; } s * b
    // Output: the statements after the returning loop (`let s = ..`, then the end of the `if`'s block, then
    //         `s * b`) are lowered in a branch opened inside the block; its `s` ends with the block, so
    //         `s * b` reads the parameter `s`
    /// The end of the block whose scope is at `depth` (`SeqItem::PopScope`): its bindings are no longer
    /// seen. Scopes above it were opened inside the block, by the branches that lower the statements after
    /// a returning loop, `if` or `match` as their continuation: what they bound is the block's and ends
    /// too, but they stay open (their `branch` closes them), holding what follows the block.
    fn end_scope(&mut self, depth: usize) {
        if depth < self.scopes.len() {
            for inner in &mut self.scopes[depth + 1..] {
                inner.clear();
            }
            self.scopes.remove(depth);
        }
    }

    /// Lowers `body` in a scope of its own and returns its statements, its result, and the scopes as the
    /// branch left them; the enclosing state is restored.
    fn branch<R>(
        &mut self,
        body: impl FnOnce(&mut Self) -> R,
    ) -> (Vec<Stmt>, R, Vec<Vec<Binding>>) {
        let saved_memo = self.memo.clone();
        let saved_scopes = self.scopes.clone();
        let saved_stmts = std::mem::take(&mut self.stmts);
        self.scopes.push(Vec::new());
        let result = body(self);
        self.scopes.truncate(saved_scopes.len());
        let scopes_after = std::mem::replace(&mut self.scopes, saved_scopes);
        let stmts = std::mem::replace(&mut self.stmts, saved_stmts);
        self.memo = saved_memo;
        self.forget_reads();
        (stmts, result, scopes_after)
    }

    // ---- statements in return position ----

    fn lower_stmt(&mut self, stmt: &syn::Stmt) {
        match stmt {
            syn::Stmt::Local(local) => {
                let Some(init) = &local.init else {
                    self.bind_uninit(&local.pat);
                    return;
                };
                let before = self.errors.len();
                self.lower_let(&local.pat, &init.expr);
                let mut names = Vec::new();
                pattern_names(&local.pat, &mut names);
                for name in names {
                    if self.errors.len() > before {
                        self.failed_lets.insert(name);
                    } else {
                        self.failed_lets.remove(&name);
                    }
                }
            }
            // The statements after an early `return` are lowered once in each branch that goes on to
            // them, so the same item may come twice: it is declared once.
            syn::Stmt::Item(item) => {
                let item = match item {
                    syn::Item::Fn(f) => nested_fn(f),
                    other => other.clone(),
                };
                let tokens = item.to_token_stream().to_string();
                if !self
                    .items
                    .iter()
                    .any(|seen| seen.to_token_stream().to_string() == tokens)
                {
                    self.items.push(item);
                }
            }
            syn::Stmt::Expr(e, _) => {
                self.lower_expr(e, None);
            }
            syn::Stmt::Macro(m) => self
                .errors
                .spanned(m, "this macro is not supported in a differentiable body (only `vec!` and the assertions)"),
        }
    }

    /// Does `expr` read a name bound by a `let` whose value had an error (`failed_lets`)?
    fn reads_failed_let(&self, expr: &Expr) -> bool {
        struct Reads<'s>(&'s crate::hash::FastSet<String>, bool);
        impl<'ast> syn::visit::Visit<'ast> for Reads<'_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                self.1 |= p
                    .path
                    .get_ident()
                    .is_some_and(|i| self.0.contains(&i.to_string()));
            }
        }
        if self.failed_lets.is_empty() {
            return false;
        }
        let mut reads = Reads(&self.failed_lets, false);
        syn::visit::Visit::visit_expr(&mut reads, expr);
        reads.1
    }

    fn bind_uninit(&mut self, pat: &Pat) {
        match pat {
            Pat::Ident(p) => self.bind(&p.ident.to_string(), None),
            Pat::Type(t) => self.bind_uninit(&t.pat),
            other => self
                .errors
                .spanned(other, "a `let` without a value must bind one name"),
        }
    }

    // Input:  let v = f(x);   (then `v[i]`)
    // Output: the array the call returns, or `None` where `v` is not read as an array or `init` is no call
    /// `let v = f(..);` then `v[i]`: the call returns an array (but `Vec::new()` is a local, which
    /// `lower_expr` makes). Also each part of `let (u, v) = (f(a), g(b));`.
    fn array_let_call(&mut self, p: &syn::PatIdent, init: &Expr) -> Option<Operand> {
        let name = p.ident.to_string();
        // Another binding of the name is an array, this one is not (`let x = sq(s);` in a loop
        // over the parameter `x`; one the function returns is never such).
        let array_name = self.array_uses.contains(&name)
            && !self.scalar_lets.contains(&arrays::binding_key(&p.ident));
        let (true, Expr::Call(c)) = (array_name, strip_parens(init)) else {
            return None;
        };
        // `let row = DESIGN[i];` of a constant matrix from outside, in the generic copy
        // `constant::<__S, _>(DESIGN[i])`: a constant value of a type the macro does not see, as
        // it is at first order (`DESIGN[i]` there), not an array the call makes.
        if is_vec_constructor(c) || is_outside_constant(c) {
            return None;
        }
        // One the function returns has the return type (`let p = g(x); return p;`).
        let (fixed, len) = match &self.return_array {
            Some((fixed, len)) if self.returned_names.contains(&name) => {
                (*fixed, len.clone().filter(|_| *fixed))
            }
            _ => (false, None),
        };
        let array = self.lower_array_call(c, fixed, &name)?;
        if let Operand::Array(a) = array {
            self.arrays[a.0 as usize].untyped = !fixed;
            if let Some(len) = len {
                self.fixed_lens.insert(a, len);
            }
        }
        Some(array)
    }

    /// `let pat = init;`
    fn lower_let(&mut self, pat: &Pat, init: &Expr) {
        // `let __m_tris: &Vec<[usize; 3]> = field_ref::<..>(..);` (a struct's field holding a matrix of
        // integers or flags, `struct_whole.rs`): data, read by index as such a parameter is.
        if let Pat::Type(t) = pat {
            if let (Pat::Ident(p), Some(_)) =
                (&*t.pat, crate::integer_rows::integer_matrix_type(&t.ty))
            {
                let value = self.lower_expr(init, Some(p.ident.to_string()));
                if let Some(var) = value.var() {
                    self.integer_locals.push((var, (*t.ty).clone()));
                }
                self.bind(&p.ident.to_string(), Some(value));
                return;
            }
        }
        match pat {
            Pat::Ident(p) => {
                let name = p.ident.to_string();
                // Another binding of the name is an array, this one is not (`let x = sq(s);` in a loop
                // over the parameter `x`; one the function returns is never such).
                let array_name = self.array_uses.contains(&name)
                    && !self.scalar_lets.contains(&arrays::binding_key(&p.ident));
                if let Some(window) = self.lower_field_window(init, &name) {
                    self.bind(&name, Some(window));
                    return;
                }
                if let Some(matrix) = self.lower_matrix_window(init, &name) {
                    self.bind(&name, Some(matrix));
                    return;
                }
                if let Some(array) = self.array_let_call(p, init) {
                    self.bind(&name, Some(array));
                    return;
                }
                // `let v = if c { g(x) } else { w };` then `v[i]`: the call gives an array.
                let chosen = matches!(strip_parens(init), Expr::If(_) | Expr::Match(_));
                let outer = self.branch_array.take();
                self.branch_array = match outer.clone() {
                    Some(typed) if chosen => Some(typed),
                    None if chosen && array_name => Some((false, None)),
                    _ => None,
                };
                let value = self.lower_expr(init, Some(name.clone()));
                self.branch_array = outer;
                if let (Some(var), true) = (value.var(), self.reads_outside_row(init)) {
                    self.outside_rows.insert(var);
                }
                let value = self.copied(value, init, &name);
                self.bind(&name, Some(value));
            }
            Pat::Type(t) => {
                if let (Some((shape, _)), Expr::Call(c), Pat::Ident(p)) = (
                    crate::signature::array_shape(&t.ty, &self.float_params)
                        .filter(|(shape, _)| !shape.matrix),
                    strip_parens(init),
                    &*t.pat,
                ) {
                    let call = Some(c).filter(|c| !is_vec_constructor(c));
                    if let Some(array) = call
                        .and_then(|c| self.lower_array_call(c, shape.fixed, &p.ident.to_string()))
                    {
                        let len = arrays::fixed_len_of_type(&t.ty).filter(|_| shape.fixed);
                        if let (Operand::Array(a), Some(len)) = (&array, len) {
                            self.fixed_lens.insert(*a, len);
                        }
                        self.bind(&p.ident.to_string(), Some(array));
                        return;
                    }
                }
                let made = (self.vars.len(), self.arrays.len());
                let typed = crate::signature::array_shape(&t.ty, &self.float_params)
                    .filter(|(shape, _)| !shape.matrix)
                    .map(|(shape, _)| {
                        let len = arrays::fixed_len_of_type(&t.ty).filter(|_| shape.fixed);
                        (shape.fixed, len)
                    });
                let outer = std::mem::replace(&mut self.branch_array, typed);
                self.lower_let(&t.pat, init);
                self.branch_array = outer;
                self.declare(&t.pat, &t.ty, made);
            }
            Pat::Wild(_) => {
                self.lower_expr(init, None);
            }
            Pat::Tuple(tuple) => {
                if let Expr::Tuple(values) = strip_parens(init) {
                    if values.elems.len() == tuple.elems.len() {
                        // `let (a, b) = (e1, e2);`: no tuple is built; a part that is a call read as an
                        // array (`let (u, v) = (f(a), g(b));` then `u[i]`) as `let u = f(a);` makes it. Every
                        // part is made before any is bound (`let (a, b) = (b, a);`).
                        let lowered: Vec<(Operand, &Pat)> = values
                            .elems
                            .iter()
                            .zip(&tuple.elems)
                            .map(|(e, p)| {
                                let array = match p {
                                    Pat::Ident(ident) if ident.subpat.is_none() => {
                                        self.array_let_call(ident, e)
                                    }
                                    _ => None,
                                };
                                let operand =
                                    array.unwrap_or_else(|| self.lower_expr(e, pat_name(p)));
                                (operand, p)
                            })
                            .collect();
                        for (operand, p) in lowered {
                            self.bind_pattern(p, operand);
                        }
                        return;
                    }
                }
                let value = self.lower_expr(init, None);
                // A tuple as the value of an `if` or `match`, also the last of a block (`{ let s = k; if
                // .. }`, as a `match` guard is rewritten): one value per component.
                if ends_in_branching(init) {
                    if let Some(parts) = self.split_branching_value(&value, tuple.elems.len()) {
                        for (part, p) in parts.into_iter().zip(&tuple.elems) {
                            self.bind_pattern(p, part);
                        }
                        return;
                    }
                }
                self.bind_pattern(pat, value);
            }
            other => self.errors.spanned(
                other,
                "this pattern is not supported: bind a name or a tuple of names",
            ),
        }
    }

    /// Gives the names `pat` bound the type `ty` the user declared for them, where the `let` made their
    /// value (`made`: the numbers of values and arrays before it): a constant becomes a literal of that type
    /// (`let a: f32 = 0.5;`), a value or an array keeps the annotation on its generated `let`.
    fn declare(&mut self, pat: &Pat, ty: &syn::Type, made: (usize, usize)) {
        match (pat, ty) {
            (Pat::Ident(p), _) => {
                let declared = kind_of_type(ty, &self.float_params);
                let value = self
                    .lookup(&p.ident.to_string())
                    .and_then(|b| b.value.clone());
                match value {
                    Some(Operand::Const { tokens, kind }) => {
                        let typed = Operand::Const {
                            tokens: typed_literal(&tokens, ty).unwrap_or(tokens),
                            kind: kind.join(&declared),
                        };
                        if let Some(binding) = self.lookup_mut(&p.ident.to_string()) {
                            binding.value = Some(typed);
                        }
                    }
                    Some(Operand::Var(v)) if v.0 as usize >= made.0 => {
                        self.vars[v.0 as usize].declared = Some(ty.clone());
                    }
                    // A float named again under a type (`let u: f64 = t;`, a closure's `|u: f64|` called
                    // with `t`): the name is an alias of `t`, whose own `let` may have been typed by nothing
                    // else (`let mut t = 0.0;` carried by a loop), so `t` gets the annotation. A float
                    // annotation names the value's own type (there is no coercion between floats).
                    Some(Operand::Var(v))
                        if self.vars[v.0 as usize].declared.is_none()
                            && matches!(declared, Kind::Float(Some(_))) =>
                    {
                        self.vars[v.0 as usize].declared = Some(ty.clone());
                    }
                    // A parameter named again under an integer type (`let n: usize = p.n;` of a field
                    // of a parameter struct, whose type the syntax does not give): its type, so that it is
                    // an integer, a constant (`activity::integer_uses`).
                    Some(Operand::Var(v))
                        if self.vars[v.0 as usize].declared.is_none()
                            && self.param_vars.contains(&v)
                            && matches!(declared, Kind::Int) =>
                    {
                        self.vars[v.0 as usize].declared = Some(ty.clone());
                    }
                    // A matrix is held flat: `Vec<Vec<T>>` declares a `Vec<T>`.
                    Some(Operand::Array(a))
                        if a.0 as usize >= made.1 && self.matrices.contains_key(&a) =>
                    {
                        self.arrays[a.0 as usize].declared = matrices::row_type(ty);
                    }
                    Some(Operand::Array(a)) if a.0 as usize >= made.1 => {
                        self.arrays[a.0 as usize].declared = Some(ty.clone());
                        // Declared `[T; N]` where the value is a copy of what the function sees as a slice
                        // (a struct's array field, `let mut w: [f64; 2] = self.w;`): a fixed-size array,
                        // made of the declared type (`emit::array_init`), not a `Vec`.
                        let len = arrays::fixed_len_of_type(ty)
                            .filter(|_| !matches!(ty, syn::Type::Reference(_)));
                        if let (Some(len), false) = (len, self.arrays[a.0 as usize].fixed) {
                            self.arrays[a.0 as usize].fixed = true;
                            self.fixed_lens.insert(a, len);
                        }
                    }
                    _ => {}
                }
            }
            (Pat::Tuple(pats), syn::Type::Tuple(types))
                if pats.elems.len() == types.elems.len() =>
            {
                for (pat, ty) in pats.elems.iter().zip(&types.elems) {
                    self.declare(pat, ty, made);
                }
            }
            (Pat::Type(inner), _) => self.declare(&inner.pat, &inner.ty, made),
            (Pat::Paren(inner), _) => self.declare(&inner.pat, ty, made),
            _ => {}
        }
    }

    /// Binds the names of `pat` to the parts of `value`.
    fn bind_pattern(&mut self, pat: &Pat, value: Operand) {
        match pat {
            Pat::Ident(p) => self.bind(&p.ident.to_string(), Some(value)),
            Pat::Type(t) => self.bind_pattern(&t.pat, value),
            Pat::Wild(_) => {}
            Pat::Tuple(tuple) => {
                if let Operand::Var(v) = &value {
                    self.vars[v.0 as usize].tuple_arity = Some(tuple.elems.len());
                }
                for (i, p) in tuple.elems.iter().enumerate() {
                    let part =
                        self.emit(Value::Field(value.clone(), i as u32), pat_name(p), p.span());
                    self.bind_pattern(p, part);
                }
            }
            other => self.errors.spanned(
                other,
                "this pattern is not supported: bind a name or a tuple of names",
            ),
        }
    }

    /// `name = value` or `name op= value`.
    fn assign(&mut self, target: &Expr, op: Option<BinOp>, rhs: &Expr) -> Operand {
        if let Expr::Index(index) = strip_parens(target) {
            self.store(index, op, rhs);
            return Operand::unit();
        }
        let name = match strip_parens(target) {
            Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(Ident::to_string),
            _ => None,
        };
        let Some(name) = name.filter(|n| self.lookup(n).is_some()) else {
            let op = op.map_or_else(
                || "=".to_string(),
                |op| format!("{}=", op.to_token_stream()),
            );
            let message = self
                .write_through_inactive(strip_parens(target), &op)
                .unwrap_or_else(|| unassignable_target(strip_parens(target), &op));
            self.errors.spanned(target, message);
            return Operand::unit();
        };
        let value = match op {
            None => {
                let value = self
                    .array_call_into(&name, rhs)
                    .unwrap_or_else(|| self.lower_expr(rhs, Some(name.clone())));
                if self.assign_into_outer_array(&name, &value, target) {
                    return Operand::unit();
                }
                self.copied(value, rhs, &name)
            }
            Some(op) => {
                // Rust evaluates the right operand of a compound assignment of primitives before it reads
                // the place: `s += { s = 2.0; 1.0 }` is `3.0`, whatever `s` held before.
                let rhs = self.lower_expr(rhs, None);
                let current = self
                    .lookup(&name)
                    .and_then(|b| b.value.clone())
                    .unwrap_or_else(Self::poisoned);
                self.emit(
                    Value::Binary(op, current, rhs),
                    Some(name.clone()),
                    target.span(),
                )
            }
        };
        if let Some(binding) = self.lookup_mut(&name) {
            binding.value = Some(value);
        }
        Operand::unit()
    }

    // Input:  fn f(a: &mut [f64], n: &mut usize) -> f64 { ..; *n = 7; .. }
    // Output: the error: take `n: &mut [usize]` and write `n[0] = 7`
    /// The error for `*n = ..` of a parameter `n: &mut T` that is not a float output (an integer, a `bool`):
    /// such a parameter can be written as a slice of one element, which the generated items pass on.
    fn write_through_inactive(&self, target: &Expr, op: &str) -> Option<String> {
        let Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Deref(_),
            expr,
            ..
        }) = target
        else {
            return None;
        };
        let Expr::Path(p) = strip_parens(expr) else {
            return None;
        };
        let name = crate::naming::unraw(p.path.get_ident()?);
        let index = self
            .param_vars
            .iter()
            .position(|v| self.vars[v.0 as usize].hint.as_deref() == Some(name.as_str()))?;
        let syn::Type::Reference(r) = self.param_types.get(index)? else {
            return None;
        };
        r.mutability?;
        let ty = r.elem.to_token_stream().to_string();
        Some(format!(
            "writing through `{name}: &mut {ty}` (`*{name} {op} ..`) is not supported in a differentiable \
             function: only a `&mut` float output parameter can be written this way; take `{name}: &mut \
             [{ty}]` and write `{name}[0] {op} ..` (callers pass `std::slice::from_mut(&mut {name})`)"
        ))
    }

    /// `y = step(&y, h);` of a name that holds an array: the call returns an array of the same type
    /// (a call is otherwise lowered as a float's; `y` was silently left as a float, with a zero gradient).
    fn array_call_into(&mut self, name: &str, rhs: &Expr) -> Option<Operand> {
        let Expr::Call(c) = strip_parens(rhs) else {
            return None;
        };
        let Some(Operand::Array(dest)) = self.lookup(name).and_then(|b| b.value.clone()) else {
            return None;
        };
        if is_vec_constructor(c) || self.rows_of(dest).is_some() {
            return None;
        }
        let info = &self.arrays[dest.0 as usize];
        let (fixed, untyped) = (info.fixed, info.untyped);
        let array = self.lower_array_call(c, fixed, name)?;
        if let Operand::Array(a) = array {
            let len = self.fixed_lens.get(&dest).cloned();
            if let (Some(len), true) = (len, fixed) {
                self.fixed_lens.insert(a, len);
            }
            self.arrays[a.0 as usize].untyped = untyped || !fixed;
        }
        Some(array)
    }

    // Input:  let mut d = [0.0; 2]; for .. { d = c; .. }        (`c`, `d` fixed-size arrays)
    // Output: for .. { for __k in 0..d.len() { d[__k] = c[__k]; } .. }
    /// An array assigned whole (`d = c;`, `d = step(&d);`) inside a loop to a name bound outside it: its
    /// elements are written into the array the name holds, since arrays are memory and a loop carries only
    /// values out of an iteration (rebinding the name was lost at the next iteration and after the loop:
    /// a silently wrong gradient before). A fixed-size array only, whose length the assignment cannot
    /// change; a `Vec`, a matrix, or an array of unknown type is an error (a `Vec`'s length may change).
    /// Returns whether it handled the assignment.
    fn assign_into_outer_array(&mut self, name: &str, value: &Operand, target: &Expr) -> bool {
        let (Operand::Array(source), Some(&outside)) = (value, self.loop_scopes.last()) else {
            return false;
        };
        let Some((scope, at)) = self.position_of(name).filter(|(scope, _)| *scope < outside) else {
            return false;
        };
        let Some(Operand::Array(dest)) = self.scopes[scope][at].value.clone() else {
            return false;
        };
        // Both have the same type (rustc checks the assignment in the function as written): a fixed-size
        // array if either is known to be one, a nested one (`[[T; M]; N]`, held flat) if either is.
        let fixed = |a: Array| {
            let info = &self.arrays[a.0 as usize];
            info.fixed
                || info
                    .matrix
                    .as_ref()
                    .is_some_and(|m| m.copied_by_let || m.fixed.is_some())
        };
        let nested = self.rows_of(dest).is_some() || self.rows_of(*source).is_some();
        let fixed = fixed(dest) || fixed(*source);
        let untyped = |a: Array| self.arrays[a.0 as usize].untyped;
        if !fixed && (untyped(dest) || untyped(*source)) {
            // A call's result bound without a type: held as a `Vec` in the generated items, which the
            // callee's `&[T; N]` parameter would not take.
            self.errors.spanned(
                target,
                format!(
                    "`{name}` holds an array bound outside this loop whose type is not written out, and an \
                     array assigned to it in the loop is not supported: write its type (`let mut {name}: \
                     [f64; N] = ..`), or write its elements (`for k in 0..{name}.len() {{ {name}[k] = \
                     new[k]; }}`)"
                ),
            );
            return true;
        }
        if nested && !fixed {
            self.errors.spanned(
                target,
                format!(
                    "`{name}` holds an array bound outside this loop, and a whole `Vec` of `Vec`s (a matrix \
                     whose rows may change length) assigned to it in the loop is not supported: write its \
                     elements (`for i in 0..{name}.len() {{ for j in 0..{name}[i].len() {{ {name}[i][j] = \
                     new[i][j]; }} }}`), or make it a nested fixed-size array (`let mut {name}: [[f64; M]; N] \
                     = ..`)"
                ),
            );
            return true;
        }
        // Input:  e = sq;            (`e`, `sq`: `[[f64; 2]; 2]`)
        // Output: for __k0 in 0..e.len() { for __k1 in 0..e[__k0].len() { e[__k0][__k1] = sq[__k0][__k1]; } }
        let depth = match nested {
            true => 2 + self.levels_above_rows(dest).len(),
            false => 1,
        };
        let hidden = format!("__whole_{}", source.0);
        self.bind(&hidden, Some(value.clone()));
        // `crate::naming::local`: the user's name may be a raw identifier (`r#in`), which `Ident::new`
        // refuses (a panic).
        let (dest, source) = (
            crate::naming::local(name),
            Ident::new(&hidden, target.span()),
        );
        let indexes: Vec<Ident> = (0..depth)
            .map(|level| Ident::new(&format!("__k{level}"), Span::mixed_site()))
            .collect();
        let mut copy: Expr = syn::parse_quote!(#dest #([#indexes])* = #source #([#indexes])*);
        for level in (0..depth).rev() {
            let (index, outer) = (&indexes[level], &indexes[..level]);
            copy = syn::parse_quote!(for #index in 0..#dest #([#outer])*.len() { #copy; });
        }
        if !fixed {
            // Input:  cur = next;        (`cur`, `next`: `Vec<f64>`, `cur` bound outside the loop)
            // Output: { let mut __assertion = [0usize; 1];
            //           if cur.len() != next.len() { __assertion[0] = assertion_failed(".."); } }
            //         for __k0 in 0..cur.len() { cur[__k0] = next[__k0]; }
            // A `Vec` is written element by element, the old values taped as for any store, so its length
            // cannot change: a length that would is a panic in the generated items (the function itself
            // runs as written), never a silently wrong gradient. The check is `asserts.rs`'s form, a store
            // no pass prunes.
            let message = format!(
                "a `#[differentiable]` function assigned a `Vec` of another length to `{name}` in a loop \
                 (`{name} = ..;`): its derivatives copy the new elements into `{name}`, which needs the same \
                 length (a slice rebound to a sub-slice of a variable bound once, `{name} = &x[a..b];` in a \
                 statement of its own, is followed as a view of any length)"
            );
            let check: Expr = syn::parse_quote!({
                let mut __assertion = [0usize; 1];
                if #dest.len() != #source.len() {
                    __assertion[0] = ::autodiff::__private::assertion_failed(#message);
                }
            });
            self.lower_expr(&check, None);
        }
        self.lower_expr(&copy, None);
        true
    }

    /// The value `name` gets from `init` (`let name = init;`, `name = init;`): for an array named by `init`
    /// (`a` or `*a`), a copy (or a move of a local `Vec`: `bind_array_copy`), so that writing one of the two
    /// names never writes the other.
    fn copied(&mut self, value: Operand, init: &Expr, name: &str) -> Operand {
        let place = match strip_parens(init) {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip_parens(&u.expr),
            other => other,
        };
        match (&value, place) {
            (Operand::Array(array), Expr::Path(_)) => {
                self.bind_array_copy(*array, Some(name.to_string()))
            }
            // `let r = pos[i];` of `pos: &[[f64; 3]]`: a copy of the row, which a call takes by value.
            (Operand::Array(array), Expr::Index(_))
                if matches!(
                    self.arrays[array.0 as usize].held_as,
                    Some(crate::ir::HeldAs::Row(_))
                ) =>
            {
                self.row_values.insert(*array);
                value
            }
            _ => value,
        }
    }

    // ---- expressions ----

    fn lower_expr(&mut self, expr: &Expr, hint: Option<String>) -> Operand {
        // Only for the values emitted here: `syn` finds an expression's span by printing it to tokens,
        // which for a loop or a call costs more than lowering it (`span.rs` reads most from the tree).
        let span = || crate::span::of(expr);
        match expr {
            Expr::Paren(p) => self.lower_expr(&p.expr, hint),
            Expr::Group(g) => self.lower_expr(&g.expr, hint),
            Expr::Lit(lit) => literal(&lit.lit),
            Expr::Path(p) => self.lower_path(p),
            // `*x` of an element of a slice iteration, or of a `&f64`: the value itself.
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(_),
                expr,
                ..
            }) => self.lower_expr(expr, hint),
            Expr::Unary(u) => {
                let operand = self.lower_expr(&u.expr, None);
                if let (syn::UnOp::Neg(_), Operand::Const { tokens, kind }) = (&u.op, &operand) {
                    return Operand::Const {
                        tokens: quote!(-#tokens),
                        kind: kind.clone(),
                    };
                }
                self.emit(Value::Unary(u.op, operand), hint, span())
            }
            Expr::Index(e) => self.lower_index(e, hint),
            Expr::Array(_) | Expr::Repeat(_) => self.lower_array_literal(expr, hint),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => self.lower_vec_macro(m, hint),
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                if contains_return(|f| f.visit_expr(expr)) {
                    self.errors.spanned(
                        expr,
                        "a loop that can `return` must be a statement of its own",
                    );
                }
                self.lower_loop_expr(expr).value
            }
            Expr::Break(_) | Expr::Continue(_) => {
                self.errors.spanned(
                    expr,
                    "`break` and `continue` are supported as statements of a loop body, not inside a value \
                     (of an `if`, a `match` or a block that gives one): test the condition in an `if` \
                     statement (`if c { break; }`) before the value is computed",
                );
                Self::poisoned()
            }
            Expr::Binary(b) => match b.op {
                BinOp::And(_) | BinOp::Or(_) => self.lower_short_circuit(b, hint),
                BinOp::AddAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Add(Default::default())), &b.right)
                }
                BinOp::SubAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Sub(Default::default())), &b.right)
                }
                BinOp::MulAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Mul(Default::default())), &b.right)
                }
                BinOp::DivAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Div(Default::default())), &b.right)
                }
                BinOp::RemAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Rem(Default::default())), &b.right)
                }
                // Of integers only (no float has them), but an assignment all the same: as a value
                // (`Value::Binary(m >>= 1)`) it changed nothing the IR knows of, and was dropped.
                BinOp::BitAndAssign(_) => {
                    self.assign(&b.left, Some(BinOp::BitAnd(Default::default())), &b.right)
                }
                BinOp::BitOrAssign(_) => {
                    self.assign(&b.left, Some(BinOp::BitOr(Default::default())), &b.right)
                }
                BinOp::BitXorAssign(_) => {
                    self.assign(&b.left, Some(BinOp::BitXor(Default::default())), &b.right)
                }
                BinOp::ShlAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Shl(Default::default())), &b.right)
                }
                BinOp::ShrAssign(_) => {
                    self.assign(&b.left, Some(BinOp::Shr(Default::default())), &b.right)
                }
                op => {
                    let left = self.lower_expr(&b.left, None);
                    let right = self.lower_expr(&b.right, None);
                    self.emit(Value::Binary(op, left, right), hint, span())
                }
            },
            Expr::Assign(a) => self.assign(&a.left, None, &a.right),
            Expr::Cast(c) => {
                let operand = self.lower_expr(&c.expr, None);
                self.emit(Value::Cast(operand, (*c.ty).clone()), hint, span())
            }
            Expr::Tuple(t) if t.elems.is_empty() => Operand::unit(),
            Expr::Tuple(t) => {
                let items = t.elems.iter().map(|e| self.lower_expr(e, None)).collect();
                self.emit(Value::Tuple(items), hint, span())
            }
            Expr::Field(f) => match &f.member {
                syn::Member::Unnamed(index) => {
                    let base = self.lower_expr(&f.base, None);
                    self.emit(Value::Field(base, index.index), hint, span())
                }
                syn::Member::Named(_) => {
                    self.errors.spanned(
                        f,
                        "named fields are not supported: pass the field as a parameter",
                    );
                    Self::poisoned()
                }
            },
            // A block runs in place: its `let`s end with it, its assignments to outer variables stay.
            Expr::Block(b) => {
                self.scopes.push(Vec::new());
                let value = self.lower_block_value(&b.block);
                self.scopes.pop();
                value
            }
            Expr::If(e) => self.lower_if(e, hint),
            Expr::Match(m) => self.lower_match(m, hint),
            Expr::MethodCall(m) => self.lower_method_call(m, hint),
            Expr::Call(c) if is_mem_swap(&c.func) => self.lower_swap(c),
            Expr::Call(c) => self.lower_call(c, hint),
            Expr::Return(r) => {
                self.errors.spanned(
                    r,
                    "`return` inside a value (of an `if`, a `match` or a block that gives one, or an \
                     operand) is not supported: return from an `if` statement (`if c { return v; }`) \
                     before the value is computed, or at the end of the function",
                );
                Self::poisoned()
            }
            // `f(&[x, y])`: a call takes `&a` of a named array only; `&x[a..b]` is a sub-slice.
            Expr::Reference(r) => {
                if let Some(window) = self.lower_window(expr, hint.clone()) {
                    return window;
                }
                // `&tris[t]`, `&nbrs[i]`: a row of a parameter holding a matrix of integers, which
                // `__private::row` reads by reference.
                if r.mutability.is_none() && self.integer_row(&r.expr) {
                    return self.lower_expr(&r.expr, hint);
                }
                let message = match strip_parens(&r.expr) {
                    Expr::Array(_) | Expr::Repeat(_) | Expr::Macro(_) => {
                        "a reference to an array literal is not supported: bind the array to a local first \
                         (`let a = [x, y]; f(&a)`)"
                    }
                    // `&x[i]` of a slice (a matrix's row `&m[i]` is a window, above).
                    Expr::Index(_) => {
                        "a reference to an element is not supported: read the value itself (`x[i]`); \
                         `&m[i]` is supported for a row of a matrix (`&[Vec<T>]`, `Vec<Vec<T>>`, `[[T; M]; N]`)"
                    }
                    _ => "a reference is supported only as `&a` of a named array passed to a call: bind the \
                          value to a local first",
                };
                self.errors.spanned(r, message);
                Self::poisoned()
            }
            other => {
                self.errors.spanned(
                    other,
                    "this expression is not supported in a differentiable body",
                );
                Self::poisoned()
            }
        }
    }

    /// The statements of a `{ .. }` block and its value, in the current scope.
    fn lower_block_value(&mut self, block: &syn::Block) -> Operand {
        // The statements before the last expression are no branch's value (`branch_array`).
        let branch_array = self.branch_array.take();
        let mut value = Operand::unit();
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                syn::Stmt::Expr(e, None) if i + 1 == block.stmts.len() => {
                    self.branch_array = branch_array.clone();
                    value = self.lower_branch_tail(e);
                }
                _ => self.lower_stmt(stmt),
            }
        }
        self.branch_array = branch_array;
        value
    }

    // Input:  let v: [f64; 2] = if c { g(x) } else { w };
    // Output: the call's result is an array (`ArrayInit::Call`) of `v`'s shape, as `w` is, so that the
    //         `if` can give either (`push_branching`)
    /// The value a branch gives: a call, where the branching's value is an array (`branch_array`), is
    /// lowered as the array it returns (a call is otherwise lowered as a float's).
    fn lower_branch_tail(&mut self, expr: &Expr) -> Operand {
        if let (Some((fixed, len)), Expr::Call(c)) = (self.branch_array.clone(), strip_parens(expr))
        {
            if !is_vec_constructor(c) {
                if let Some(Operand::Array(array)) = self.lower_array_call(c, fixed, "__chosen") {
                    self.arrays[array.0 as usize].untyped = !fixed;
                    if let Some(len) = len {
                        self.fixed_lens.insert(array, len);
                    }
                    return Operand::Array(array);
                }
            }
        }
        // Only a branching or a block in tail position gives the branch's value on: the parts of any
        // other tail do not (`[if c { a } else { g(a) }, 0.5]`, whose `g(a)` is a float), so they are
        // lowered without `branch_array`.
        if ends_in_branching(expr) || matches!(strip_parens(expr), Expr::Block(_)) {
            return self.lower_expr(expr, None);
        }
        self.without_branch_array(|this| this.lower_expr(expr, None))
    }

    // Input:  let v = if g(a) > 0.5 { [a, 0.5] } else { [if c { a } else { g(a) }, 0.5] }; v[0]
    // Output: both calls of `g` lowered as floats: only a branch's tail gives `v`'s array
    /// `lower` run where nothing it lowers is a branch's value: without `branch_array`, which a call in
    /// tail position of a branch reads as the array the branching gives (`lower_branch_tail`), so that a
    /// call in an `if`'s condition, a `match`'s scrutinee or an element of an array literal is lowered as
    /// the float it returns.
    fn without_branch_array<R>(&mut self, lower: impl FnOnce(&mut Self) -> R) -> R {
        let branch_array = self.branch_array.take();
        let result = lower(self);
        self.branch_array = branch_array;
        result
    }

    fn lower_path(&mut self, p: &syn::ExprPath) -> Operand {
        if p.qself.is_none() {
            if let Some(ident) = p.path.get_ident() {
                if let Some(binding) = self.lookup(&ident.to_string()) {
                    return match &binding.value {
                        Some(value) => value.clone(),
                        None => {
                            self.errors
                                .spanned(ident, format!("`{ident}` is used before it is assigned"));
                            Self::poisoned()
                        }
                    };
                }
            }
        }
        Operand::Const {
            tokens: p.to_token_stream(),
            kind: self.constant_kind(&p.path),
        }
    }

    /// `f64::EPSILON`, `std::f64::consts::PI` and the like are floats of their module's type.
    fn constant_kind(&self, path: &syn::Path) -> Kind {
        let float_ty = path.segments.iter().rev().skip(1).find(|s| {
            matches!(s.ident.to_string().as_str(), "f64" | "f32")
                || self.float_params.contains(&s.ident)
        });
        match float_ty {
            Some(segment) => Kind::Float(Some(syn::Type::Path(syn::TypePath {
                qself: None,
                path: segment.ident.clone().into(),
            }))),
            None => Kind::Unknown,
        }
    }
}

/// The key under which a pure value is remembered, or `None` for values never shared (calls).
fn memo_key(value: &Value) -> Option<String> {
    let operand = |o: &Operand| match o {
        Operand::Var(v) => format!("v{}", v.0),
        Operand::Const { tokens, .. } => tokens.to_string(),
        Operand::Array(a) => format!("a{}", a.0),
    };
    let operands = |os: &[Operand]| os.iter().map(operand).collect::<Vec<_>>().join(",");
    Some(match value {
        Value::Unary(op, o) => format!("unary {} {}", unary_symbol(op), operand(o)),
        Value::Binary(op, l, r) => {
            format!("binary {} {} {}", binary_symbol(op), operand(l), operand(r))
        }
        Value::Cast(o, ty) => format!("cast {} {}", operand(o), ty.to_token_stream()),
        Value::Field(o, i) => format!("field {} {i}", operand(o)),
        Value::Float { func, args, .. } => format!("float {func:?} {}", operands(args)),
        Value::Load { array, index, .. } => format!("load {} {}", array.0, operand(index)),
        Value::Len(array) => format!("len {}", array.0),
        Value::RowLen { matrix, row } => format!("rowlen {} {}", matrix.0, operand(row)),
        Value::Tuple(_)
        | Value::Method { .. }
        | Value::Call { .. }
        | Value::StopGradient { .. } => return None,
    })
}

/// The text of a binary operator, for `memo_key`: written out, as printing the operator's tokens asks the
/// compiler for their text.
fn binary_symbol(op: &syn::BinOp) -> String {
    use syn::BinOp::*;
    let symbol = match op {
        Add(_) => "+",
        Sub(_) => "-",
        Mul(_) => "*",
        Div(_) => "/",
        Rem(_) => "%",
        And(_) => "&&",
        Or(_) => "||",
        BitXor(_) => "^",
        BitAnd(_) => "&",
        BitOr(_) => "|",
        Shl(_) => "<<",
        Shr(_) => ">>",
        Eq(_) => "==",
        Lt(_) => "<",
        Le(_) => "<=",
        Ne(_) => "!=",
        Ge(_) => ">=",
        Gt(_) => ">",
        AddAssign(_) => "+=",
        SubAssign(_) => "-=",
        MulAssign(_) => "*=",
        DivAssign(_) => "/=",
        RemAssign(_) => "%=",
        BitXorAssign(_) => "^=",
        BitAndAssign(_) => "&=",
        BitOrAssign(_) => "|=",
        ShlAssign(_) => "<<=",
        ShrAssign(_) => ">>=",
        other => return other.to_token_stream().to_string(),
    };
    symbol.to_string()
}

/// The text of a unary operator, for `memo_key` (see `binary_symbol`).
fn unary_symbol(op: &syn::UnOp) -> String {
    match op {
        syn::UnOp::Deref(_) => "*".to_string(),
        syn::UnOp::Not(_) => "!".to_string(),
        syn::UnOp::Neg(_) => "-".to_string(),
        other => other.to_token_stream().to_string(),
    }
}

/// `Vec::new()`, `Vec::with_capacity(n)` or another associated function of `Vec`: a new local array, not
/// a call whose result is an array.
fn is_vec_constructor(c: &syn::ExprCall) -> bool {
    matches!(&*c.func, Expr::Path(p) if p.path.segments.iter().any(|s| s.ident == "Vec"))
}

/// `::autodiff::__private::constant::<__S, _>(..)`: the generic copy's lift of a constant from outside the
/// function (`shadow.rs`).
fn is_outside_constant(c: &syn::ExprCall) -> bool {
    let Expr::Path(p) = &*c.func else {
        return false;
    };
    crate::naming::path_names(&p.path).ends_with(&["__private".to_string(), "constant".to_string()])
}

/// The name a pattern binds, as a hint for the value it gets.
fn pat_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(p) => Some(p.ident.to_string()),
        Pat::Type(t) => pat_name(&t.pat),
        _ => None,
    }
}

/// An unsuffixed float literal (or its negation) as a literal of the float type `ty`: `1.0` declared
/// `f64` is `1.0f64`, so that the generated code, where the user's annotation is gone, still says it.
fn typed_literal(
    tokens: &proc_macro2::TokenStream,
    ty: &syn::Type,
) -> Option<proc_macro2::TokenStream> {
    let suffix = match ty {
        syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32") => {
            p.path.get_ident()?.to_string()
        }
        _ => return None,
    };
    let typed = |lit: &syn::LitFloat| {
        (lit.suffix().is_empty()).then(|| {
            let literal =
                syn::LitFloat::new(&format!("{}{suffix}", lit.base10_digits()), lit.span());
            literal.to_token_stream()
        })
    };
    match syn::parse2::<Expr>(tokens.clone()).ok()? {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Float(lit),
            ..
        }) => typed(&lit),
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => match *expr {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Float(lit),
                ..
            }) => typed(&lit).map(|lit| quote!(-#lit)),
            _ => None,
        },
        _ => None,
    }
}

/// A literal as a constant operand: `1.0` is a float, `1` an integer, `2f32` an `f32`.
fn literal(lit: &Lit) -> Operand {
    let kind = match lit {
        Lit::Float(f) => match f.suffix() {
            "" => Kind::Float(None),
            suffix => Kind::Float(syn::parse_str(suffix).ok()),
        },
        Lit::Int(i) => match i.suffix() {
            "f32" | "f64" => Kind::Float(syn::parse_str(i.suffix()).ok()),
            _ => Kind::Int,
        },
        Lit::Bool(_) => Kind::Bool,
        _ => Kind::Unknown,
    };
    Operand::Const {
        tokens: lit.to_token_stream(),
        kind,
    }
}

/// A `fn` item nested in the body, as the generated functions declare it: expanded here, in this
/// macro's own expansion (`expand_nested_fn`), by the attribute of this crate it carries or, without
/// one, by `#[differentiable]` where the signature allows it (`with_attribute`), so that its companion,
/// declared beside it, gives the calls of the body their derivatives. A function the macro cannot
/// differentiate stays as written: a call of it with active arguments is an error at the call, as for a
/// function outside the body.
pub(crate) fn nested_fn(f: &syn::ItemFn) -> syn::Item {
    expand_nested_fn(&with_attribute(f))
}

/// `f` with `#[::autodiff::differentiable]` added, unless it carries an attribute of this crate already or
/// `#[differentiable]` would reject its signature (`differentiable_as_written`).
pub(crate) fn with_attribute(f: &syn::ItemFn) -> syn::ItemFn {
    let mut f = f.clone();
    if ours(&f).is_none() && differentiable_as_written(&f) {
        f.attrs
            .push(syn::parse_quote!(#[::autodiff::differentiable]));
    }
    f
}

/// `f` expanded by the attribute of this crate it carries (`#[differentiable(..)]` or
/// `#[custom_gradient]`), here rather than by the compiler: left to the compiler, the attribute would
/// expand one level deeper than the code around it that calls the function, and a name of the enclosing
/// module (`use common::*`'s `dot`) would make the call ambiguous (E0659). Without such an attribute, `f`
/// as written.
pub(crate) fn expand_nested_fn(f: &syn::ItemFn) -> syn::Item {
    let Some(at) = ours(f) else {
        return syn::Item::Fn(f.clone());
    };
    let mut f = f.clone();
    let attr = f.attrs.remove(at);
    let args = match &attr.meta {
        syn::Meta::List(list) => list.tokens.clone(),
        _ => proc_macro2::TokenStream::new(),
    };
    let custom = attr
        .path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "custom_gradient");
    syn::Item::Verbatim(if custom {
        crate::custom::custom_gradient(args, f.to_token_stream())
    } else {
        crate::expand::differentiable(args, f.to_token_stream())
    })
}

/// The position of `f`'s attribute of this crate, if any.
fn ours(f: &syn::ItemFn) -> Option<usize> {
    f.attrs.iter().position(|a| {
        let name = a.path().segments.last().map(|s| s.ident.to_string());
        matches!(name.as_deref(), Some("differentiable" | "custom_gradient"))
    })
}

/// Would `#[differentiable]` accept `f`'s signature: a float result (a float, a tuple of floats, a float
/// array) and a parameter to differentiate?
fn differentiable_as_written(f: &syn::ItemFn) -> bool {
    let float_params = crate::signature::float_type_params(&f.sig.generics);
    let float_result = match &f.sig.output {
        syn::ReturnType::Default => false,
        syn::ReturnType::Type(_, ty) => match kind_of_type(ty, &float_params) {
            Kind::Float(_) => true,
            Kind::Tuple(kinds) => kinds.iter().all(|k| matches!(k, Kind::Float(_))),
            _ => crate::signature::array_shape(ty, &float_params).is_some(),
        },
    };
    let mut errors = Errors::default();
    float_result
        && crate::signature::analyze(f, &crate::args::Args::default(), &mut errors)
            .is_some_and(|sig| errors.len() == 0 && sig.active().count() > 0)
}

/// Is `expr` an `if` or `match`, or a block whose value is one (`{ let s = k; if s < 1 { .. } else { .. } }`)?
fn ends_in_branching(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::If(_) | Expr::Match(_) => true,
        Expr::Block(b) if b.label.is_none() => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => ends_in_branching(tail),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Args;
    use crate::ir::Stmt;

    #[test]
    fn a_block_ending_in_an_if_is_a_branching_value() {
        let branching: [Expr; 3] = [
            syn::parse_quote!(if c { f(x) } else { g(x) }),
            syn::parse_quote!({
                let s = k;
                if s < 1 {
                    f(x)
                } else {
                    g(x)
                }
            }),
            syn::parse_quote!({
                let s = k;
                {
                    match s {
                        0 => f(x),
                        _ => g(x),
                    }
                }
            }),
        ];
        assert!(branching.iter().all(ends_in_branching));
        let not: [Expr; 3] = [
            syn::parse_quote!(f(x)),
            syn::parse_quote!({
                let s = k;
                f(s)
            }),
            syn::parse_quote!({
                if c {
                    f(x)
                } else {
                    g(x)
                };
                f(x)
            }),
        ];
        assert!(!not.iter().any(ends_in_branching));
    }

    #[test]
    fn operators_are_written_as_they_print() {
        let binary = [
            "+", "-", "*", "/", "%", "&&", "||", "^", "&", "|", "<<", ">>", "==", "<", "<=", "!=",
            ">=", ">", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<=", ">>=",
        ];
        for text in binary {
            let op: syn::BinOp = syn::parse_str(text).unwrap();
            assert_eq!(binary_symbol(&op), op.to_token_stream().to_string());
        }
        for text in ["*", "!", "-"] {
            let op: syn::UnOp = syn::parse_str(text).unwrap();
            assert_eq!(unary_symbol(&op), op.to_token_stream().to_string());
        }
    }

    /// `src` lowered, with the number of errors it reported.
    fn lowered(src: &str) -> (Function, usize) {
        let item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let mut errors = Errors::default();
        let sig = crate::signature::analyze(&item, &Args::default(), &mut errors)
            .expect("test signature is supported");
        let float_params = crate::signature::float_type_params(&item.sig.generics);
        let f = lower(&item, &sig, float_params, &mut errors);
        let count = errors
            .finish()
            .err()
            .map_or(0, |e| e.to_string().matches("compile_error").count());
        (f, count)
    }

    #[test]
    fn nested_fns_that_can_be_differentiated_get_the_attribute() {
        let attributed = |src: &str| {
            let f: syn::ItemFn = syn::parse_str(src).expect("test source parses");
            with_attribute(&f)
                .attrs
                .iter()
                .filter(|a| {
                    a.path()
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "differentiable")
                })
                .count()
        };
        assert_eq!(attributed("fn sq(v: f64) -> f64 { v * v }"), 1);
        assert_eq!(
            attributed("fn dot<T: Float>(a: &[T], b: &[T]) -> T { a[0] * b[0] }"),
            1
        );
        assert_eq!(attributed("fn pair(v: f32) -> (f32, f32) { (v, v) }"), 1);
        // Already differentiable, or not differentiable: as written.
        assert_eq!(
            attributed("#[differentiable(order = 2)] fn sq(v: f64) -> f64 { v * v }"),
            1
        );
        assert_eq!(
            attributed("fn next(i: usize, n: usize) -> usize { (i + 1) % n }"),
            0
        );
        assert_eq!(attributed("fn two() -> f64 { 2.0 }"), 0);
        assert_eq!(attributed("fn show(v: f64) { let _ = v; }"), 0);
    }

    #[test]
    fn nested_fns_are_expanded_in_place_by_their_attribute() {
        let item = |src: &str| nested_fn(&syn::parse_str(src).expect("test source parses"));
        let syn::Item::Verbatim(expanded) = item("fn sq(v: f64) -> f64 { v * v }") else {
            panic!("a differentiable nested fn is expanded");
        };
        let text = expanded.to_string();
        assert!(
            text.contains("fn sq_grad") && text.contains("struct sq"),
            "{text}"
        );
        let syn::Item::Verbatim(custom) = item(
            "#[custom_gradient] fn c(v: f64) -> (f64, impl Fn(f64) -> f64) { (v, move |d| d) }",
        ) else {
            panic!("a nested custom gradient is expanded");
        };
        let text = custom.to_string();
        assert!(
            text.contains("fn c_grad") && !text.contains("# [custom_gradient]"),
            "{text}"
        );
        assert!(matches!(
            item("fn next(i: usize) -> usize { i + 1 }"),
            syn::Item::Fn(_)
        ));
    }

    fn values(f: &Function) -> Vec<&Value> {
        f.all_stmts()
            .into_iter()
            .filter_map(|s| match s {
                Stmt::Let { value, .. } => Some(value),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_value_is_named_once() {
        let (f, errors) = lowered(
            "fn f(x: f64, n: usize) -> f64 { let mut s = x; for i in 0..n { s = s * x + 1.0; } if s > 0.0 { s = s.sin(); } s }",
        );
        assert_eq!(errors, 0);
        let mut defined: Vec<_> = f
            .all_stmts()
            .into_iter()
            .filter_map(|s| match s {
                Stmt::Let { var, .. } => Some(*var),
                _ => None,
            })
            .collect();
        let count = defined.len();
        defined.sort_unstable_by_key(|v| v.0);
        defined.dedup();
        assert_eq!(defined.len(), count);
        assert!(count >= 3, "{count}");
    }

    #[test]
    fn shadow_helpers_are_casts_and_outside_arrays_are_constant_reads() {
        let (f, errors) = lowered(
            "fn f<S: Float>(x: S, n: usize) -> S { \
               let k = ::autodiff::__private::to_int::<usize, _>(x); \
               x * ::autodiff::__private::cast::<S, _>(n + k) * WEIGHTS[n] }",
        );
        assert_eq!(errors, 0);
        let values = values(&f);
        let casts: Vec<String> = values
            .iter()
            .filter_map(|v| match v {
                Value::Cast(_, ty) => Some(ty.to_token_stream().to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(casts, ["usize", "S"]);
        assert!(values.iter().any(|v| matches!(v,
            Value::Call { callee, by_ref, .. }
                if callee.to_token_stream().to_string() == ":: autodiff :: __private :: at" && by_ref[0])));
    }

    #[test]
    fn integer_compound_assignments_are_assignments() {
        // Each of `>>=`, `<<=`, `&=`, `|=`, `^=` is the binary operation on the current value, which the
        // loop carries: a `Value::Binary` of the compound operator (a unit value, dropped) wrote nothing.
        let (f, errors) = lowered(
            "fn f(x: f64, n: u32) -> f64 { let mut m = n; let mut s = 0.0; \
               for _ in 0..3 { m >>= 1; m <<= 2; m &= 7; m |= 1; m ^= 2; s += x * m as f64; } s }",
        );
        assert_eq!(errors, 0);
        let ops: Vec<String> = values(&f)
            .iter()
            .filter_map(|v| match v {
                Value::Binary(op, _, _) => Some(op.to_token_stream().to_string()),
                _ => None,
            })
            .collect();
        for op in [">>", "<<", "&", "|", "^"] {
            assert!(ops.iter().any(|o| o == op), "{op} in {ops:?}");
        }
        assert!(
            !ops.iter().any(|o| o.ends_with('=')
                && o != "=="
                && o != "<="
                && o != ">="
                && o != "!="),
            "{ops:?}"
        );
    }

    #[test]
    fn all_errors_are_reported_at_once() {
        // Two references outside a call's arguments, and a variable that is not an array indexed.
        let (_, errors) =
            lowered("fn f(x: f64) -> f64 { let y = x; let r = &x; let s = &y; r + s + y[0] }");
        assert_eq!(errors, 3);
    }

    /// The `written` of the one call with output buffers in `f`.
    fn written_of(f: &Function) -> Vec<crate::ir::Written> {
        f.all_stmts()
            .into_iter()
            .find_map(|s| match s {
                Stmt::CallOut { written, .. } => Some(written.clone()),
                _ => None,
            })
            .expect("a call that writes output buffers")
    }

    #[test]
    fn a_sub_slice_passed_mut_is_a_written_window() {
        use crate::ir::Written;
        for (range, end_is_len) in [
            ("1..3", false),
            ("1..", true),
            ("..=2", false),
            ("..", true),
        ] {
            let src = format!(
                "fn f(y: &[f64], out: &mut [f64]) {{ let mut k = vec![0.0; 4]; g(y, &mut k[{range}]); g(y, &mut out[{range}]); }}"
            );
            let (f, errors) = lowered(&src);
            assert_eq!(errors, 0, "{range}");
            let Written::Window { start, end } = &written_of(&f)[1] else {
                panic!("{range}: not a window");
            };
            // `a..` ends at the array's length, read before the call.
            let len_read = values(&f).iter().any(|v| matches!(v, Value::Len(_)));
            assert_eq!(len_read, end_is_len, "{range}");
            assert!(start.var().is_none(), "a literal start: {range}");
            assert_eq!(end.var().is_some(), range != "1..3", "{range}");
        }
    }

    #[test]
    fn an_output_parameter_passed_on_bare_is_written() {
        use crate::ir::Written;
        let (f, errors) =
            lowered("fn f(y: &[f64], out: &mut [f64], e: &mut f64) { g(y, out); h(e); }");
        assert_eq!(errors, 0);
        let calls: Vec<Vec<Written>> = f
            .all_stmts()
            .into_iter()
            .filter_map(|s| match s {
                Stmt::CallOut { written, .. } => Some(written.clone()),
                _ => None,
            })
            .collect();
        assert!(matches!(calls[0].as_slice(), [Written::No, Written::Array]));
        // A float output is an array of one element: its element 0 is written.
        assert!(matches!(calls[1].as_slice(), [Written::Element(_)]));
        // A parameter that is no output, passed bare, is only read.
        let (f, _) = lowered("fn f(y: &[f64]) -> f64 { g(y) }");
        assert!(!f
            .all_stmts()
            .iter()
            .any(|s| matches!(s, Stmt::CallOut { .. })));
    }

    #[test]
    fn a_matrix_made_in_the_body_is_flat_with_its_row_offsets() {
        // Its shape of literals and parameters is kept, for a call that takes it whole.
        for (src, offsets) in [
            (
                "fn f(x: f64, n: usize) -> f64 { let mut m = vec![vec![x; n]; 2]; m[1][0] = x; g(&m) }",
                "uniform_row_offsets (2 , n)",
            ),
            (
                "fn f(x: f64) -> f64 { let m = vec![vec![x, 1.0], vec![x; 3]]; g(&m) }",
                "row_offsets_of_lengths (& [2usize , 3usize])",
            ),
        ] {
            let (f, errors) = lowered(src);
            assert_eq!(errors, 0, "{src}");
            let shape = f
                .arrays
                .iter()
                .find_map(|a| a.matrix.as_ref())
                .expect("a matrix");
            let tokens = shape.offsets.as_ref().expect("a known shape").to_string();
            assert!(tokens.ends_with(offsets), "{tokens}");
        }
        // `m[1][0] = x`: a store at the row's offset.
        let (f, _) = lowered(
            "fn f(x: f64) -> f64 { let mut m = vec![vec![0.0; 2]; 2]; m[1][0] = x; m[1][0] }",
        );
        assert!(f
            .all_stmts()
            .iter()
            .any(|s| matches!(s, Stmt::Store { .. })));
        // A shape computed in the body: passed whole from the function's own block, where its array of
        // row offsets stands too; from a branch, an error where it is passed whole, not before.
        let body = "let n = x as usize + 1; let m = vec![vec![x; n]; 2];";
        let (_, errors) = lowered(&format!("fn f(x: f64) -> f64 {{ {body} m[1][0] }}"));
        assert_eq!(errors, 0);
        let (f, errors) = lowered(&format!("fn f(x: f64) -> f64 {{ {body} g(&m) }}"));
        assert_eq!(errors, 0);
        let shape = f.arrays.iter().find_map(|a| a.matrix.as_ref());
        assert!(shape.is_some_and(|s| s.offsets.is_none() && s.rows.is_some()));
        let (_, errors) = lowered(&format!(
            "fn f(x: f64) -> f64 {{ if x > 0.0 {{ {body} return g(&m); }} x }}"
        ));
        assert_eq!(errors, 1);
    }

    #[test]
    fn a_matrix_row_passed_mut_is_a_window_of_the_flat_array() {
        use crate::ir::Written;
        let (f, errors) = lowered(
            "fn f(y: &[f64]) -> f64 { let mut m = vec![vec![0.0; 2]; 2]; rhs(y, &mut m[1]); m[1][0] }",
        );
        assert_eq!(errors, 0);
        assert!(matches!(
            written_of(&f).as_slice(),
            [Written::No, Written::Window { .. }]
        ));
    }
}
