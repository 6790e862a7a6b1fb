//! Activity analysis: which values depend on the active inputs (and so carry a derivative), and what the
//! syntax tells of each value's kind. This is also where an operation with no derivative rule applied to an
//! active value is reported, since only here is it known that the value is active.
//!
//! A value is active when some operand is active and the operation passes derivatives through: comparisons,
//! integer casts, `stop_gradient` and the piecewise-constant float functions (`floor`, `round`, ..) give
//! constants. An array is active when an active value is written into it. Loops are analysed to a fixed
//! point: a carried value is active if its initial value or the value the body yields for it is. (The
//! reverse emitter adds the other half of Tapenade's activity, usefulness: a value whose adjoint nothing
//! feeds gets no adjoint code.)

use crate::errors::Errors;
use crate::ir::{Array, ArrayInit, Block, Function, Kind, Operand, Stmt, Value, Var};
use crate::signature::{kind_of_type, Signature};
use proc_macro2::{Ident, Span};
use quote::ToTokens;
use std::collections::BTreeMap;
use syn::BinOp;

/// Kind and activity of every value and array of a function.
pub(crate) struct Activity {
    kinds: Vec<Kind>,
    active: Vec<bool>,
    array_active: Vec<bool>,
    /// The kind of an array's elements.
    array_elems: Vec<Kind>,
    /// The function's float type parameters.
    float_params: Vec<Ident>,
    /// The calls (by their results) that only parameters outside `wrt(..)` make active, in the hidden
    /// `__vjp_all` and `__jvp_all`: their callees may have no derivatives (`maybe.rs`).
    maybe_calls: std::collections::BTreeSet<Var>,
    /// Those whose value is an array or a `Vec` (`let v = features(c)`), by the array.
    maybe_arrays: std::collections::BTreeSet<Array>,
    /// Does each call check that its callee differentiates through the parameters its differentiated
    /// arguments go to (`companion::require_through`)? Not in the hidden sweeps of `maybe.rs`, whose
    /// companion declares what they reach instead.
    checks_calls: bool,
}

impl Activity {
    /// The kind of a value of type `ty` (a float type parameter is a float).
    pub(crate) fn kind_of_type(&self, ty: &syn::Type) -> Kind {
        kind_of_type(ty, &self.float_params)
    }

    pub(crate) fn kind(&self, operand: &Operand) -> Kind {
        match operand {
            Operand::Var(v) => self.kinds[v.0 as usize].clone(),
            Operand::Const { kind, .. } => kind.clone(),
            Operand::Array(_) => Kind::Array,
        }
    }

    pub(crate) fn var_kind(&self, var: Var) -> &Kind {
        &self.kinds[var.0 as usize]
    }

    pub(crate) fn is_active(&self, operand: &Operand) -> bool {
        match operand {
            Operand::Var(v) => self.active[v.0 as usize],
            Operand::Array(a) => self.array_active[a.0 as usize],
            Operand::Const { .. } => false,
        }
    }

    /// Is the call whose result is `var` one that only parameters outside `wrt(..)` make active, whose
    /// callee may have no derivatives (`maybe.rs`)?
    pub(crate) fn is_maybe_call(&self, var: Var) -> bool {
        self.maybe_calls.contains(&var)
    }

    /// [`Self::is_maybe_call`] of a call whose value is the array `array`.
    pub(crate) fn is_maybe_array(&self, array: Array) -> bool {
        self.maybe_arrays.contains(&array)
    }

    /// The positions of `args` that a call differentiates, for its check that the callee differentiates
    /// through the parameters there (`companion::require_through`); none where the companion of
    /// `maybe.rs` declares them instead.
    pub(crate) fn checked_positions(&self, args: &[Operand]) -> Vec<usize> {
        if !self.checks_calls {
            return Vec::new();
        }
        (args.iter().enumerate())
            .filter(|(_, a)| self.is_active(a))
            .map(|(i, _)| i)
            .collect()
    }

    /// This analysis for the hidden sweeps of `maybe.rs`: the calls `maybe_calls` call their callee as
    /// written where it has no derivatives, and no call checks its callee's parameters.
    pub(crate) fn with_maybe_calls(mut self, maybe_calls: std::collections::BTreeSet<Var>) -> Self {
        self.maybe_calls = maybe_calls;
        self.checks_calls = false;
        self
    }

    /// [`Self::with_maybe_calls`], and the calls whose values are the arrays `maybe_arrays`.
    pub(crate) fn with_maybe_arrays(
        self,
        maybe_calls: std::collections::BTreeSet<Var>,
        maybe_arrays: std::collections::BTreeSet<Array>,
    ) -> Self {
        Activity {
            maybe_arrays,
            ..self.with_maybe_calls(maybe_calls)
        }
    }

    pub(crate) fn is_active_var(&self, var: Var) -> bool {
        self.active[var.0 as usize]
    }

    pub(crate) fn is_active_array(&self, array: Array) -> bool {
        self.array_active[array.0 as usize]
    }

    pub(crate) fn elem_kind(&self, array: Array) -> &Kind {
        &self.array_elems[array.0 as usize]
    }

    /// Can the elements of `array` carry a derivative (not integers or `bool`s)? A buffer of integers passed
    /// `&mut` to a call (a cursor, a permutation) has no cotangent or tangent.
    pub(crate) fn is_float_array(&self, array: Array) -> bool {
        !matches!(self.elem_kind(array), Kind::Int | Kind::Bool)
    }
}

/// Analyses `f`, whose signature is `sig`; reports active values reaching operations without a derivative.
pub(crate) fn analyze(
    f: &Function,
    sig: &Signature,
    float_params: &[Ident],
    errors: &mut Errors,
) -> Activity {
    let mut activity = Activity {
        kinds: vec![Kind::Unknown; f.vars.len()],
        active: vec![false; f.vars.len()],
        array_active: vec![false; f.arrays.len()],
        array_elems: vec![Kind::Unknown; f.arrays.len()],
        float_params: float_params.to_vec(),
        maybe_calls: std::collections::BTreeSet::new(),
        maybe_arrays: std::collections::BTreeSet::new(),
        checks_calls: true,
    };
    for (var, param) in f.params.iter().zip(&sig.params) {
        activity.kinds[var.0 as usize] = param.kind.clone();
        activity.active[var.0 as usize] = param.active && param.array.is_none();
    }
    for (i, info) in f.arrays.iter().enumerate() {
        if let Some(param) = info.param {
            let param = &sig.params[param];
            activity.array_active[i] = param.active;
            activity.array_elems[i] = element_kind(&param.ty, float_params);
        } else if let Some(declared) = &info.declared {
            // A local array whose `let` declares its type (`let b: [f64; 3] = [0.0; 3];`): its elements
            // are of that type, which a copy of it inherits (its adjoint's zeros are typed).
            activity.array_elems[i] = element_kind(declared, float_params);
        }
    }
    // A field of a parameter struct (`self.mode`) has no type here, and is active with its struct;
    // `match`ed with integer or `bool` patterns it is no float (rustc checks the patterns against its
    // type): a constant, as a `#[no_grad]` field is (the error on a `match` on an active value before).
    for stmt in f.all_stmts() {
        if let Stmt::Match {
            scrutinee: Operand::Var(var),
            arms,
            ..
        } = stmt
        {
            let param = f.params.iter().position(|p| p == var);
            let field = param.is_some_and(|i| sig.params[i].field && sig.params[i].array.is_none());
            if field && arms.iter().any(|arm| not_a_float_pattern(&arm.pat)) {
                activity.kinds[var.0 as usize] = Kind::Int;
                activity.active[var.0 as usize] = false;
            }
        }
    }
    // Likewise one passed where a float function takes an integer (`x.powi(self.power)`: `powi`'s
    // exponent is an `i32`): no float, a constant.
    for stmt in f.all_stmts() {
        if let Stmt::Let {
            value: Value::Float { func, args, .. },
            ..
        } = stmt
        {
            for (arg, float) in args.iter().zip(func.float_args(args.len())) {
                let Operand::Var(var) = arg else { continue };
                let param = f.params.iter().position(|p| p == var);
                let field =
                    param.is_some_and(|i| sig.params[i].field && sig.params[i].array.is_none());
                if field && !float {
                    activity.kinds[var.0 as usize] = Kind::Int;
                    activity.active[var.0 as usize] = false;
                }
            }
        }
    }
    // Likewise one the body uses as an integer (`for _ in 0..p.n`, `x[p.k]`, `let n: usize = p.n;`,
    // `integer_uses`): no float (rustc would reject a float there), a constant, so that a call it is also
    // passed to (`helper(x, p.n)`) does not ask the callee for a derivative in it (rustc's E0308 at the
    // callee's gradient tuple before, whose `usize` parameter has none).
    // Also compared with an integer literal (`if p.terms > 2`), which no float is.
    let mut integers = integer_uses(f);
    for stmt in f.all_stmts() {
        if let Stmt::Let {
            value: Value::Binary(op, a, b),
            ..
        } = stmt
        {
            let integer = |o: &Operand| {
                matches!(
                    o,
                    Operand::Const {
                        kind: Kind::Int,
                        ..
                    }
                )
            };
            if crate::ir::is_comparison(op) {
                for (field, other) in [(a, b), (b, a)] {
                    if let (Some(var), true) = (field.var(), integer(other)) {
                        integers.insert(var);
                    }
                }
            }
        }
    }
    // And one passed to a function of the same module whose parameter there has an integer type
    // (`helper(x, p.n)` of `fn helper(x: f64, n: usize)`, `Self::series(x, self.terms)` of an inherent
    // `impl`'s `fn series(x: f64, n: usize)`, `context::sibling_integer_parameters`): a float
    // there would not compile, so no gradient is dropped.
    for stmt in f.all_stmts() {
        let (callee, args) = match stmt {
            Stmt::Let {
                value: Value::Call { callee, args, .. },
                ..
            }
            | Stmt::CallOut { callee, args, .. } => (callee, args),
            _ => continue,
        };
        if callee.qself.is_some() {
            continue;
        }
        let Some(integer) = crate::context::sibling_integer_parameters(&callee.path) else {
            continue;
        };
        for (arg, integer) in args.iter().zip(integer) {
            if let (Some(var), true) = (arg.var(), integer) {
                integers.insert(var);
            }
        }
    }
    for (var, param) in f.params.iter().zip(&sig.params) {
        if param.field && param.array.is_none() && integers.contains(var) {
            activity.kinds[var.0 as usize] = Kind::Int;
            activity.active[var.0 as usize] = false;
        }
    }
    let fields = f
        .all_stmts()
        .into_iter()
        .filter_map(|stmt| match stmt {
            Stmt::Let {
                var,
                value: Value::Field(Operand::Var(tuple), index),
            } => Some((*var, (*tuple, *index))),
            _ => None,
        })
        .collect();
    let mut pass = Pass {
        activity,
        float_params,
        errors,
        f,
        changed: true,
        report: false,
        fields,
        component_kinds: BTreeMap::new(),
        integers: integer_uses(f),
        cast_kinds: BTreeMap::new(),
        call_results: f.call_results(),
        struct_fields: f
            .params
            .iter()
            .zip(&sig.params)
            .filter(|(_, p)| p.field && p.array.is_none())
            .map(|(v, _)| *v)
            .collect(),
    };
    // Loops make the analysis a fixed point: run until nothing changes, then once more to report.
    while pass.changed {
        pass.changed = false;
        pass.block(&f.body);
    }
    pass.report = true;
    pass.block(&f.body);
    pass.activity
}

// Input:  let p: Vec<usize> = argsort(x);     (`argsort` a plain helper, `x` active)
// Output: true for `p`
/// Does the `let` of the local `array` declare its elements integers (`Vec<usize>`, `Vec<i64>`,
/// `[u32; 3]`)? Made by a call (`let p: Vec<usize> = argsort(x);`), it is integer data computed from the
/// values of the arguments, with no derivative: the call is made as written (the values of a generic
/// copy's arguments, `expand::plain_calls`), no derivative looked up (`expand::calls_of`).
pub(crate) fn declared_integers(f: &Function, array: crate::ir::Array) -> bool {
    let Some(info) = f.arrays.get(array.0 as usize) else {
        return false;
    };
    let integer = |t: &syn::Type| {
        matches!(t, syn::Type::Path(p) if p.qself.is_none()
            && p.path.get_ident().is_some_and(|t| crate::shadow::INTEGERS.iter().any(|n| t == n)))
    };
    match &info.declared {
        Some(syn::Type::Array(a)) => integer(&a.elem),
        Some(syn::Type::Path(p)) if p.qself.is_none() => {
            let last = p.path.segments.last();
            let vec = last.is_some_and(|s| s.ident == "Vec");
            match last.map(|s| &s.arguments) {
                Some(syn::PathArguments::AngleBracketed(args)) if vec && args.args.len() == 1 => {
                    matches!(args.args.first(), Some(syn::GenericArgument::Type(t)) if integer(t))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

// Input:  let k = argmax(x); let j = k + 1; let y = x[j];    (`argmax` a plain helper, `x` active)
// Output: {k, j}
/// The values that the body declares (`let k: usize = ..`) or uses as integers, whatever their kind: an index (`a[k]`, a window's bounds,
/// `&mut a[k]`), a bound or step of a `for` range, and, back from those, the operands of arithmetic whose
/// result is one (`k + 1`: Rust adds an integer only to an integer), a branch's or loop's value that is one
/// (`if c { k } else { 0 }`), a loop's carried value's initial and next values. Rust indexes slices, `Vec`s
/// and arrays with no float, and iterates no range of floats, so such a value is an integer, which carries
/// no derivative: the result of a call that is one (`argmax(x)` of a plain helper returning `usize`) is a
/// constant, as `x as usize` is, though its arguments are active.
pub(crate) fn integer_uses(f: &Function) -> std::collections::BTreeSet<Var> {
    let mut ints = std::collections::BTreeSet::new();
    let add = |o: &Operand, ints: &mut std::collections::BTreeSet<Var>| {
        if let Some(v) = o.var() {
            ints.insert(v);
        }
    };
    // Declared so: `let k: usize = argmax(x);`.
    for (i, info) in f.vars.iter().enumerate() {
        let integer = matches!(&info.declared, Some(syn::Type::Path(p)) if p.qself.is_none()
            && p.path.get_ident().is_some_and(|t| crate::shadow::INTEGERS.iter().any(|n| t == n)));
        if let (true, Ok(i)) = (integer, u32::try_from(i)) {
            ints.insert(Var(i));
        }
    }
    let stmts = f.all_stmts();
    for stmt in &stmts {
        match stmt {
            Stmt::Let {
                value: Value::Load { index, .. },
                ..
            }
            | Stmt::Store { index, .. } => add(index, &mut ints),
            Stmt::NewArray {
                init: ArrayInit::Window { range, row, .. },
                ..
            } => {
                for o in range
                    .start
                    .iter()
                    .chain(range.end.iter())
                    .chain(row.as_deref())
                {
                    add(o, &mut ints);
                }
            }
            Stmt::NewArray {
                init: ArrayInit::Repeat { len, .. },
                ..
            } => add(len, &mut ints),
            Stmt::CallOut { written, .. } => {
                for w in written {
                    match w {
                        crate::ir::Written::Element(index) => add(index, &mut ints),
                        crate::ir::Written::Window { start, end } => {
                            add(start, &mut ints);
                            add(end, &mut ints);
                        }
                        crate::ir::Written::No | crate::ir::Written::Array => {}
                    }
                }
            }
            Stmt::Loop(l) => {
                if let Some((range, index)) = &l.range {
                    for o in [&range.start, &range.end]
                        .into_iter()
                        .chain(range.step.iter())
                    {
                        add(o, &mut ints);
                    }
                    ints.insert(*index);
                }
            }
            _ => {}
        }
    }
    // Back from the uses, to a fixed point.
    loop {
        let before = ints.len();
        for stmt in &stmts {
            match stmt {
                Stmt::Let {
                    var,
                    value:
                        Value::Binary(
                            BinOp::Add(_)
                            | BinOp::Sub(_)
                            | BinOp::Mul(_)
                            | BinOp::Div(_)
                            | BinOp::Rem(_),
                            l,
                            r,
                        ),
                } if ints.contains(var) => {
                    add(l, &mut ints);
                    add(r, &mut ints);
                }
                Stmt::Let {
                    var,
                    value: Value::Unary(syn::UnOp::Neg(_), o),
                } if ints.contains(var) => add(o, &mut ints),
                Stmt::If {
                    then_block,
                    else_block,
                    outs,
                    ..
                } => {
                    for (i, out) in outs.iter().enumerate() {
                        if ints.contains(out) {
                            for block in [then_block, else_block] {
                                if let Some(o) = block.yields.get(i) {
                                    add(o, &mut ints);
                                }
                            }
                        }
                    }
                }
                Stmt::Match { arms, outs, .. } => {
                    for (i, out) in outs.iter().enumerate() {
                        if ints.contains(out) {
                            for arm in arms {
                                if let Some(o) = arm.block.yields.get(i) {
                                    add(o, &mut ints);
                                }
                            }
                        }
                    }
                }
                Stmt::Loop(l) => {
                    for (i, phi) in l.phis.iter().enumerate() {
                        let out = l.outs.get(i).is_some_and(|o| ints.contains(o));
                        if ints.contains(phi) || out {
                            ints.insert(*phi);
                            if let Some(o) = l.outs.get(i) {
                                ints.insert(*o);
                            }
                            add(&l.inits[i], &mut ints);
                            if let Some(o) = l.body.yields.get(i) {
                                add(o, &mut ints);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if ints.len() == before {
            return ints;
        }
    }
}

/// The element kind of a slice, `Vec` or array type.
/// Does `pat` match only values of a type that is no float: an integer, `bool`, `char` or string literal or
/// range of them, a tuple struct's or struct's pattern, or an alternative with one of those? (Not a path,
/// which may name a float constant.)
fn not_a_float_pattern(pat: &syn::Pat) -> bool {
    let not_float_lit = |e: &syn::Expr| {
        matches!(e, syn::Expr::Lit(l) if !matches!(l.lit, syn::Lit::Float(_)))
            || matches!(e, syn::Expr::Unary(u) if matches!(&*u.expr,
                syn::Expr::Lit(l) if matches!(l.lit, syn::Lit::Int(_))))
    };
    match pat {
        syn::Pat::Lit(l) => !matches!(l.lit, syn::Lit::Float(_)),
        syn::Pat::Range(r) => r
            .start
            .as_deref()
            .or(r.end.as_deref())
            .is_some_and(not_float_lit),
        syn::Pat::Or(or) => or.cases.iter().any(not_a_float_pattern),
        syn::Pat::Paren(p) => not_a_float_pattern(&p.pat),
        syn::Pat::TupleStruct(_) | syn::Pat::Struct(_) => true,
        _ => false,
    }
}

fn element_kind(ty: &syn::Type, float_params: &[Ident]) -> Kind {
    // The elements of a matrix (read flattened) are those of its rows.
    let elem = |t: &syn::Type| match kind_of_type(t, float_params) {
        Kind::Unknown => element_kind(t, float_params),
        kind => kind,
    };
    match ty {
        syn::Type::Reference(r) => element_kind(&r.elem, float_params),
        syn::Type::Slice(s) => elem(&s.elem),
        syn::Type::Array(a) => elem(&a.elem),
        syn::Type::Path(tp) => match tp.path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(args)) => match args.args.first() {
                Some(syn::GenericArgument::Type(t)) => elem(t),
                _ => Kind::Unknown,
            },
            _ => Kind::Unknown,
        },
        _ => Kind::Unknown,
    }
}

/// The error at a `match` on an active value.
const UNSUPPORTED_MATCH: &str =
    "`match` on a value that depends on the differentiated inputs is not \
                                 supported: compare it with `if`/`else if` instead";

struct Pass<'a> {
    activity: Activity,
    float_params: &'a [Ident],
    errors: &'a mut Errors,
    f: &'a Function,
    changed: bool,
    /// Report errors (only in the last pass, so each is reported once).
    report: bool,
    /// The values read from a component of a tuple, `v = t.i`: by `v`, the tuple and the index.
    fields: BTreeMap<Var, (Var, u32)>,
    /// The kinds of the components of calls' tuple results that the uses of their fields tell
    /// (`component_use`), by the call's value and the index: a call's result has a shape the syntax gives
    /// (`let (a, b) = g(x);`) but component types it does not.
    component_kinds: BTreeMap<(Var, u32), Kind>,
    /// The values the body uses as integers (`integer_uses`).
    integers: std::collections::BTreeSet<Var>,
    /// The kinds of active calls' results that the body casts to a float type (`g(x) as f64`, `cast_use`).
    cast_kinds: BTreeMap<Var, Kind>,
    /// The values that are results of calls (`let v = g(..)`).
    call_results: std::collections::BTreeSet<Var>,
    /// The inputs that are scalar fields or nested structs of a parameter struct (`p.inner` of
    /// `p.inner.nm(x)`), whose types the macro does not see.
    struct_fields: std::collections::BTreeSet<Var>,
}

/// The error at a `match` or a comparison (`what`) on a field of a parameter struct that the file does not
/// declare (`context::declared_constant_field`), which the macro takes for a float of the struct.
fn imported_field(what: &str) -> String {
    format!(
        "{what} on a field of a parameter struct whose declaration this file does not show (the struct is \
         declared in another module or crate): the macro cannot see the field's type and takes it for a \
         float of the struct. Declare the struct in this file, in the function's module or one around it \
         (with the field's enum), or import it there by name from a module of this file (`use \
         super::model::Layer;`, not a glob), where a \
         `#[no_grad]` field of an enum, an integer or a flag is a constant; or pass the field's value as a \
         parameter of its own (`act: Act`), which the body matches on as data"
    )
}

impl Pass<'_> {
    // Input:  Act::Tanh, Act::LeakyRelu(0.1), None        Output: true
    // Input:  LIMIT, phys::G, 0.5                          Output: false
    /// Does `o` name an enum's variant (a path whose last name is `UpperCamelCase`), or is it the result of
    /// a call of one (`Act::LeakyRelu(0.1)`)? (A constant is `SCREAMING_CASE`: it may be a float.)
    fn names_variant(&self, o: &Operand) -> bool {
        let camel = |name: &str| {
            name.starts_with(char::is_uppercase) && name.chars().any(char::is_lowercase)
        };
        let last = |path: &syn::Path| {
            path.segments
                .last()
                .is_some_and(|s| camel(&s.ident.to_string()))
        };
        match o {
            Operand::Const { tokens, .. } => {
                syn::parse2::<syn::Path>(tokens.clone()).is_ok_and(|p| last(&p))
            }
            Operand::Var(v) => {
                fn called(block: &Block, v: Var, last: &dyn Fn(&syn::Path) -> bool) -> bool {
                    block.stmts.iter().any(|stmt| match stmt {
                        Stmt::Let {
                            var,
                            value: Value::Call { callee, .. },
                        } => *var == v && callee.qself.is_none() && last(&callee.path),
                        _ => stmt.blocks().into_iter().any(|b| called(b, v, last)),
                    })
                }
                called(&self.f.body, *v, &last)
            }
            Operand::Array(_) => false,
        }
    }

    fn set(&mut self, var: Var, kind: Kind, active: bool) {
        let active = active && kind.is_differentiable();
        let i = var.0 as usize;
        // Kinds compare by the types they name, not by `Debug`, whose spans each cost a call into the
        // compiler: the fixed point is reached when no kind names another type.
        if self.activity.active[i] != active || self.activity.kinds[i] != kind {
            self.changed = true;
        }
        self.activity.kinds[i] = kind;
        self.activity.active[i] = active;
    }

    fn set_array(&mut self, array: Array, kind: &Kind, active: bool) {
        let i = array.0 as usize;
        let joined = self.activity.array_elems[i].join(kind);
        if self.activity.array_elems[i] != joined {
            self.activity.array_elems[i] = joined;
            self.changed = true;
        }
        if active && !self.activity.array_active[i] {
            self.activity.array_active[i] = true;
            self.changed = true;
        }
    }

    fn span_of(&self, operand: &Operand) -> Span {
        operand
            .var()
            .map_or_else(Span::call_site, |v| self.f.vars[v.0 as usize].span)
    }

    fn check_index(&mut self, index: &Operand) {
        if self.report && matches!(self.activity.kind(index), Kind::Float(_)) {
            self.errors.at(
                self.span_of(index),
                "an index must be an integer, and this value is a float: write `x as usize`",
            );
        }
    }

    fn block(&mut self, block: &Block) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { var, value } => {
                    let (kind, active) = self.value(*var, value);
                    self.set(*var, kind, active);
                }
                Stmt::If {
                    then_block,
                    else_block,
                    outs,
                    ..
                } => self.join_branches(&[then_block, else_block], outs),
                Stmt::Match {
                    scrutinee,
                    span,
                    arms,
                    outs,
                } => {
                    if self.report && self.activity.is_active(scrutinee) {
                        let field = scrutinee
                            .var()
                            .is_some_and(|v| self.struct_fields.contains(&v));
                        let message = match self.activity.kind(scrutinee) {
                            // A field whose declaration the file does not show (the struct is imported):
                            // its type is not known, and a field is a float of its struct by default.
                            _ if field => imported_field("`match`"),
                            // A value of a type of the user's (an enum) comes from a parameter taken for a
                            // parameter struct: say how to make it data.
                            Kind::Struct(_) => format!(
                                "{UNSUPPORTED_MATCH} (a parameter of a type of your own, such as an enum, is \
                                 differentiated as a parameter struct unless the body only matches on it or \
                                 compares it with `==`: `match` on the parameter itself, or leave it out with \
                                 `wrt(..)`)"
                            ),
                            _ => UNSUPPORTED_MATCH.to_string(),
                        };
                        self.errors.at(*span, message);
                    }
                    let blocks: Vec<&Block> = arms.iter().map(|a| &a.block).collect();
                    self.join_branches(&blocks, outs);
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    self.check_index(index);
                    let elem = self.activity.elem_kind(*array).clone();
                    self.component_use(value, &elem);
                    let (kind, active) =
                        (self.activity.kind(value), self.activity.is_active(value));
                    self.set_array(*array, &kind, active);
                }
                Stmt::Truncate { len, .. } => self.check_index(len),
                Stmt::Push {
                    array,
                    index,
                    value,
                } => {
                    self.set(*index, Kind::Int, false);
                    let (kind, active) =
                        (self.activity.kind(value), self.activity.is_active(value));
                    self.set_array(*array, &kind, active);
                }
                Stmt::NewArray { array, init } => {
                    let (kind, active) = match init {
                        ArrayInit::Repeat { value, .. } => {
                            (self.activity.kind(value), self.activity.is_active(value))
                        }
                        ArrayInit::Elements { items, .. } => (
                            items
                                .iter()
                                .fold(Kind::Unknown, |k, o| k.join(&self.activity.kind(o))),
                            items.iter().any(|o| self.activity.is_active(o)),
                        ),
                        ArrayInit::Empty { .. } => (Kind::Unknown, false),
                        ArrayInit::Copy(source) | ArrayInit::Window { source, .. } => (
                            self.activity.elem_kind(*source).clone(),
                            self.activity.is_active_array(*source),
                        ),
                        // The permutation of a sort (`sorts.rs`): integers, no derivative.
                        ArrayInit::Call { callee, .. } if crate::shadow::is_sort_order(callee) => {
                            (Kind::Int, false)
                        }
                        // A plain call whose `let` declares integers (`let p: Vec<usize> = argsort(x);`):
                        // no derivative, whatever its arguments.
                        ArrayInit::Call { .. } if declared_integers(self.f, *array) => {
                            (Kind::Int, false)
                        }
                        ArrayInit::Call { callee, args, .. } => {
                            let active = args.iter().any(|o| self.activity.is_active(o));
                            if self.report && active {
                                self.undeclared_integers(*array, callee);
                            }
                            (Kind::Unknown, active)
                        }
                    };
                    self.set_array(*array, &kind, active);
                }
                // A call that writes output buffers: its value and every buffer it writes depend on all
                // its arguments (the buffers' incoming values included).
                Stmt::CallOut { var, args, .. } => {
                    let active = args.iter().any(|o| self.activity.is_active(o));
                    let kind = self.call_result_kind(*var);
                    self.set(*var, kind, active);
                    for array in stmt.written_arrays() {
                        let float = self.activity.is_float_array(array);
                        self.set_array(array, &Kind::Unknown, active && float);
                    }
                }
                Stmt::Loop(l) => {
                    for (i, phi) in l.phis.iter().enumerate() {
                        let mut kind = self.activity.kind(&l.inits[i]);
                        let mut active = self.activity.is_active(&l.inits[i]);
                        if let Some(yielded) = l.body.yields.get(i) {
                            kind = kind.join(&self.activity.kind(yielded));
                            active |= self.activity.is_active(yielded);
                        }
                        // Once active, a carried value stays active (the fixed point only grows).
                        active |= self.activity.is_active_var(*phi);
                        self.set(*phi, kind, active);
                    }
                    if let Some((_, index)) = &l.range {
                        self.set(*index, Kind::Int, false);
                    }
                    if let Some(cond) = &l.cond {
                        self.block(cond);
                    }
                    self.block(&l.body);
                    for (phi, out) in l.phis.iter().zip(&l.outs) {
                        let (kind, active) = (
                            self.activity.var_kind(*phi).clone(),
                            self.activity.is_active_var(*phi),
                        );
                        self.set(*out, kind, active);
                    }
                    self.set(l.trips, Kind::Int, false);
                }
            }
        }
    }

    fn join_branches(&mut self, blocks: &[&Block], outs: &[Var]) {
        for block in blocks {
            self.block(block);
        }
        for (i, out) in outs.iter().enumerate() {
            let mut kind = Kind::Unknown;
            let mut active = false;
            for block in blocks {
                kind = kind.join(&self.activity.kind(&block.yields[i]));
                active |= self.activity.is_active(&block.yields[i]);
            }
            self.set(*out, kind, active);
        }
    }

    // Input:  let p = argsort(x); let y = x[p[0]];    (`argsort` a plain helper, `x` active)
    // Output: the error below, at `argsort`.
    /// Reports an array made by a call with differentiated arguments whose elements the body uses as
    /// integers (`x[p[0]]`: an index, `integer_uses`) and whose `let` does not declare them so: the result
    /// of a plain helper such as an argsort, which carries no derivative once its type says so
    /// (`declared_integers`); undeclared, the call is differentiated and the helper has no derivative.
    fn undeclared_integers(&mut self, array: crate::ir::Array, callee: &syn::ExprPath) {
        let indexes = self.f.all_stmts().into_iter().any(|stmt| {
            matches!(stmt, Stmt::Let { var, value: Value::Load { array: a, .. } }
                if *a == array && self.integers.contains(var))
        });
        if !indexes {
            return;
        }
        let name = &self.f.arrays[array.0 as usize].name;
        let called = crate::naming::path_names(&callee.path).join("::");
        self.errors.spanned(
            callee,
            format!(
                "the elements of `{name}` index arrays, so `{called}` returns integers, which carry no \
                 derivative; the macro sees no type for them and would differentiate the call: write the \
                 type, `let {name}: Vec<usize> = {called}(..);` (or the integer type the function returns, \
                 `Vec<u32>`, `[usize; N]`)"
            ),
        );
    }

    // Input:  type Real = f32;  fn f(x: Real) -> f32 { x * x.sin() }
    // Output: the error below.
    /// Reports an operand of a float operation (`what`: an operator, a float function) that holds a
    /// parameter struct: a parameter of a type the macro does not know for a float is taken for a struct
    /// (a type alias of a float then passes for one through the floats' `Differentiable` impls), and
    /// arithmetic on it generated code that did not compile.
    fn struct_read_as_float(&mut self, var: Var, operands: &[&Operand], what: &str) -> bool {
        if !self.report {
            return false;
        }
        let Some(ty) = operands.iter().find_map(|o| match self.activity.kind(o) {
            Kind::Struct(ty) => Some(quote::ToTokens::to_token_stream(&ty).to_string()),
            _ => None,
        }) else {
            return false;
        };
        self.errors.at(
            self.f.vars[var.0 as usize].span,
            format!(
                "{what} reads a value of type `{ty}` as a float, and the macro takes `{ty}` for a parameter \
                 struct: a float parameter is written `f64`, `f32` or a type parameter bounded by `Float` (a \
                 type alias of a float is not seen through: write the float type itself); a struct is read \
                 by its fields (`p.x`), and its own methods are called by their path (`{ty}::method(p, ..)`)"
            ),
        );
        true
    }

    fn value(&mut self, var: Var, value: &Value) -> (Kind, bool) {
        self.component_uses(value);
        let a = &self.activity;
        let any_active = value.operands().iter().any(|o| a.is_active(o));
        match value {
            Value::Unary(syn::UnOp::Not(_), o) => (a.kind(o), false),
            Value::Unary(_, o) => (a.kind(o), a.is_active(o)),
            Value::Binary(op, l, r) => match op {
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_) => {
                    let what = format!("`{}`", quote::ToTokens::to_token_stream(op));
                    if self.struct_read_as_float(var, &[l, r], &what) {
                        return (Kind::Unknown, false);
                    }
                    let a = &self.activity;
                    (a.kind(l).join(&a.kind(r)), any_active)
                }
                op if crate::ir::is_comparison(op) => {
                    // `p.act == Act::Tanh` of a struct the file does not declare: the field is taken for
                    // a float of the struct (rustc's E0308 in the generated code before).
                    let field = |o: &Operand| {
                        o.var().is_some_and(|v| self.struct_fields.contains(&v)) && a.is_active(o)
                    };
                    let variant =
                        (field(l) && self.names_variant(r)) || (field(r) && self.names_variant(l));
                    if self.report && variant && matches!(op, BinOp::Eq(_) | BinOp::Ne(_)) {
                        let what = format!("`{}`", quote::ToTokens::to_token_stream(op));
                        self.errors
                            .at(self.f.vars[var.0 as usize].span, imported_field(&what));
                    }
                    (Kind::Bool, false)
                }
                _ => (a.kind(l), false),
            },
            Value::Cast(o, ty) => {
                let kind = kind_of_type(ty, self.float_params);
                self.cast_use(o, &kind);
                let a = &self.activity;
                // An active value of a kind the syntax does not tell is a float where it is cast to one
                // (`let d = c * c; d as f64` of a call's result `c`, `p.a as f64` of a struct's field): an
                // integer carries no derivative, so none depends on the inputs but the result of a call,
                // which is differentiated, and a `#[no_grad]` field, which drops the adjoint it gets.
                let passes = matches!(kind, Kind::Float(_))
                    && matches!(a.kind(o), Kind::Float(_) | Kind::Unknown);
                (kind, a.is_active(o) && passes)
            }
            Value::Tuple(items) => (
                Kind::Tuple(items.iter().map(|o| a.kind(o)).collect()),
                any_active,
            ),
            Value::Field(o, index) => {
                let kind = match a.kind(o) {
                    Kind::Tuple(items) => {
                        items.get(*index as usize).cloned().unwrap_or(Kind::Unknown)
                    }
                    _ => {
                        if self.report && a.is_active(o) {
                            self.errors.at(
                                self.f.vars[var.0 as usize].span,
                                "the macro cannot tell the shape of this tuple: destructure it with \
                                 `let (a, b) = ..;` where it is made",
                            );
                        }
                        Kind::Unknown
                    }
                };
                (kind, self.activity.is_active(o))
            }
            Value::Float { func, args, .. } => {
                let float_args = func.float_args(args.len());
                let floats: Vec<&Operand> = args
                    .iter()
                    .zip(&float_args)
                    .filter(|(_, is_float)| **is_float)
                    .map(|(o, _)| o)
                    .collect();
                let name = crate::ir::FloatFn::ALL
                    .iter()
                    .find(|(_, f, _)| f == func)
                    .map_or("this function", |(n, _, _)| *n);
                if self.struct_read_as_float(var, &floats, &format!("`{name}`")) {
                    return (Kind::Unknown, false);
                }
                let a = &self.activity;
                let kind = args
                    .iter()
                    .zip(&float_args)
                    .filter(|(_, is_float)| **is_float)
                    .fold(Kind::Unknown, |k, (o, _)| k.join(&a.kind(o)));
                let active = !func.is_piecewise_constant()
                    && args
                        .iter()
                        .zip(&float_args)
                        .any(|(o, is_float)| *is_float && a.is_active(o));
                (kind, active)
            }
            Value::Method {
                receiver,
                method,
                args,
                ..
            } => {
                let name = method.to_string();
                let known = crate::ir::FloatFn::ALL.iter().find(|(n, _, _)| *n == name);
                // A float's predicates (`x.is_nan()`, `!x.is_finite()`) are comparisons: a `bool`, with no
                // derivative to give, of an active float as well as of a constant.
                let predicate = args.is_empty() && is_float_predicate(&name);
                let on_field = receiver
                    .var()
                    .is_some_and(|v| self.struct_fields.contains(&v));
                if self.report && any_active && on_field && known.is_none() && !predicate {
                    // `p.inner.nm(x)`, `self.inner.nm(x)`: a method of a nested struct, whose type the
                    // macro cannot see to call the method's derivatives by their path (it said "no
                    // known derivative", or suggested `_::nm(p, ..)`).
                    self.errors.spanned(
                        method,
                        format!(
                            "the method `{name}` has no known derivative: use the float functions listed in \
                             the README (`sin`, `exp`, `powi`, ..), or wrap the value in \
                             `autodiff::stop_gradient(..)` to treat it as a constant; it is called on a field \
                             of a parameter struct, whose type the macro cannot see: if the field is a nested \
                             struct and `{name}` its `#[differentiable]` method, call it by its path with the \
                             field by reference as the first argument (`Inner::{name}(&p.inner, ..)`, naming \
                             the field's type)"
                        ),
                    );
                } else if let (true, true, Kind::Struct(ty)) =
                    (self.report, any_active, a.kind(receiver))
                {
                    // `p.energy(x)` of a parameter struct taken by value outside its `impl` (by reference,
                    // the lowering wrote it as the call by the method's path, `lower/calls.rs`).
                    let ty = quote::ToTokens::to_token_stream(&ty).to_string();
                    let p = receiver
                        .var()
                        .and_then(|v| self.f.vars[v.0 as usize].hint.clone())
                        .unwrap_or_else(|| "p".to_owned());
                    if name == "clone" || name == "to_owned" {
                        // No derivative to call: the copy is what a by-reference callee needs no more.
                        self.errors.spanned(
                            method,
                            format!(
                                "`.{name}()` of a parameter struct is not differentiated: pass the struct on \
                                 by reference (`g(p, ..)` to a `#[differentiable]` function taking `&{ty}`), or \
                                 read its fields here"
                            ),
                        );
                    } else {
                        self.errors.spanned(
                            method,
                            format!(
                                "a method of a parameter struct taken by value is differentiated when called \
                                 by its path: write `{ty}::{name}(&{p}, ..)` for a method taking `&self` \
                                 (`{ty}::{name}({p}, ..)` for one taking `self`), or take the parameter by \
                                 reference (`{p}: &{ty}`), whose `{p}.{name}(..)` is that call"
                            ),
                        );
                    }
                } else if let (true, true, Some((_, _, arity))) = (self.report, any_active, known) {
                    self.errors.spanned(
                        method,
                        format!(
                            "`{name}` takes {} argument(s) besides the receiver, not {}",
                            arity - 1,
                            args.len()
                        ),
                    );
                } else if self.report && any_active && !predicate {
                    let instead = ": use the float functions listed in the README (`sin`, `exp`, `powi`, \
                                   ..), or wrap the value in `autodiff::stop_gradient(..)` to treat it as a \
                                   constant";
                    self.errors.spanned(
                        method,
                        format!("the method `{method}` has no known derivative{instead}"),
                    );
                }
                let kind = match method.to_string().as_str() {
                    "len" | "count_ones" => Kind::Int,
                    name if is_float_predicate(name) => Kind::Bool,
                    _ => Kind::Unknown,
                };
                (kind, false)
            }
            // `let k = argmax(x); .. x[k]`: the result of a call that the body uses as an integer is one,
            // whatever its arguments: a constant, the callee called as written (no derivative needed).
            Value::Call { .. } if self.integers.contains(&var) => (Kind::Int, false),
            // The values of an array passed to such a call in the generic copy (`shadow.rs`), its tangents
            // dropped: a constant.
            Value::Call { callee, .. } if crate::shadow::is_array_values(callee) => {
                (Kind::Unknown, false)
            }
            Value::Call { callee, args, .. } => {
                let first = callee
                    .path
                    .segments
                    .first()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                let on_a_type = callee.qself.is_some()
                    && !crate::shadow::is_generic_copy_call(callee)
                    || callee.path.segments.len() == 2
                        && (matches!(first.as_str(), "f32" | "f64")
                            || self.float_params.iter().any(|p| *p == first));
                let through_variable = self.f.vars[var.0 as usize].called_variable.as_ref();
                if let Some(name) = through_variable.filter(|_| self.report && any_active) {
                    self.errors.spanned(
                        callee,
                        format!(
                            "`{name}` is a parameter or local variable (a function pointer or closure), and a \
                             call through it cannot be differentiated: call a `#[differentiable]` function by \
                             its name, or, if the result is meant as a constant, write \
                             `autodiff::stop_gradient({name}(..))`"
                        ),
                    );
                }
                // `Some(x)` of an active `x`: a variant, not a function with derivatives.
                if self.report && any_active && crate::companion::is_variant(callee) {
                    let name = callee.to_token_stream().to_string();
                    self.errors.spanned(
                        callee,
                        format!(
                            "`{name}(..)` of a value with a derivative: an `Option` or `Result` carries no \
                             derivative (a function taking one holds its floats constant), so the derivative \
                             through it would be lost; pass the float itself, or write \
                             `{name}(autodiff::stop_gradient(..))` if it is meant as a constant"
                        ),
                    );
                }
                if self.report && any_active && on_a_type {
                    let name = callee.to_token_stream().to_string().replace(' ', "");
                    self.errors.spanned(
                        callee,
                        format!(
                            "`{name}` has no known derivative: wrap the value in `autodiff::stop_gradient(..)` to \
                             treat it as a constant"
                        ),
                    );
                }
                // A generated derivative returns a tuple: one destructured, with an active argument.
                let destructured = self.f.vars[var.0 as usize].tuple_arity.is_some();
                if let Some(base) = generated_derivative(callee)
                    .filter(|_| any_active && !on_a_type && destructured)
                {
                    if self.report {
                        let name = callee
                            .path
                            .segments
                            .last()
                            .map(|s| s.ident.to_string())
                            .unwrap_or_default();
                        self.errors.spanned(
                            callee,
                            format!(
                                "`{name}` is a derivative that `#[differentiable]` generated, and nested differentiation of a \
                                 generated derivative is not supported: give the function that calls it a \
                                 `#[custom_gradient]` whose gradient closure calls `{base}_hvp` for the second \
                                 derivatives (with `#[differentiable(order = 2)]` on `{base}`), or call `{base}_hvp` or \
                                 `{base}_hessian` outside differentiable code (if `{name}` is a function of your own, \
                                 rename it: its suffix is that of a generated derivative)"
                            ),
                        );
                    }
                    // Its result is then held constant, so that its fields are no further errors.
                    return (Kind::Unknown, false);
                }
                if any_active && !on_a_type {
                    // A call of another differentiable function: its result carries a derivative, of a
                    // shape the syntax tells only where the result is destructured.
                    (self.call_result_kind(var), true)
                } else {
                    (self.call_kind(callee, args.len()), false)
                }
            }
            Value::StopGradient { arg, .. } => (a.kind(arg), false),
            Value::Load { array, index, .. } => {
                let result = (a.elem_kind(*array).clone(), a.is_active_array(*array));
                self.check_index(index);
                result
            }
            Value::Len(_) | Value::RowLen { .. } => (Kind::Int, false),
        }
    }

    /// The kind of the value of a call of a differentiable function: a tuple where the result is
    /// destructured, of the component kinds its fields' uses tell (`component_use`).
    fn call_result_kind(&self, var: Var) -> Kind {
        match self.f.vars[var.0 as usize].tuple_arity {
            Some(n) => Kind::Tuple(
                (0u32..)
                    .take(n)
                    .map(|i| {
                        let told = self.component_kinds.get(&(var, i));
                        told.cloned().unwrap_or(Kind::Unknown)
                    })
                    .collect(),
            ),
            None => self.cast_kinds.get(&var).cloned().unwrap_or(Kind::Unknown),
        }
    }

    // Input:  let y = g(x) as f64;         (`g` differentiable, `x` active)
    // Output: the result of `g(x)`: a float (it was of unknown kind, and the cast dropped its derivative)
    /// Backward kind inference for the result of a call with a differentiated argument that the body casts
    /// to a float type: a differentiable function returns a float, and a cast of an unknown kind passed no
    /// derivative (`g(x) as f64` had a zero gradient). In a generic copy, whose casts are to its float type
    /// parameter (`cast::<__S, _>(g(x))` of `g(x) as f64`) and whose callees' copies return that type, the
    /// result is of that type, which the cast then leaves as it is (`emit::convert`: no `cast`, which would
    /// drop a dual number's tangents); cast to `f64` or `f32`, a float of a type the syntax does not tell (an
    /// `f32` function's result cast to `f64`). A plain helper's integer is no float: used as one, it is an
    /// integer first (`integer_uses`); else its call is an error at first order (no derivative).
    fn cast_use(&mut self, operand: &Operand, target: &Kind) {
        let Kind::Float(target_ty) = target else {
            return;
        };
        let Some(v) = operand.var() else { return };
        if !self.activity.is_active_var(v)
            || !matches!(self.activity.var_kind(v), Kind::Unknown)
            || self.f.vars[v.0 as usize].tuple_arity.is_some()
            || !self.call_results.contains(&v)
        {
            return;
        }
        let parameter = matches!(target_ty, Some(syn::Type::Path(p))
            if p.path.get_ident().is_some_and(|i| self.float_params.contains(i)));
        let kind = match parameter {
            true => target.clone(),
            false => Kind::Float(None),
        };
        if self.cast_kinds.get(&v) != Some(&kind) {
            self.cast_kinds.insert(v, kind);
            self.changed = true;
        }
    }

    /// The components of calls' results that `value` tells to be floats (`component_use`): the operands
    /// of arithmetic, and those of a float function whose float arguments share one type
    /// (`k.max(c)`, `k.mul_add(a, b)`).
    fn component_uses(&mut self, value: &Value) {
        let pairs: Vec<(&Operand, &Operand)> = match value {
            Value::Binary(
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_),
                l,
                r,
            ) => vec![(l, r), (r, l)],
            Value::Float { func, args, .. } => {
                let floats: Vec<&Operand> = (args.iter().zip(func.float_args(args.len())))
                    .filter_map(|(o, is_float)| is_float.then_some(o))
                    .collect();
                let pairs = floats
                    .iter()
                    .flat_map(|a| floats.iter().map(move |b| (*a, *b)));
                pairs.filter(|(a, b)| !std::ptr::eq(*a, *b)).collect()
            }
            _ => return,
        };
        for (operand, other) in pairs {
            let like = self.activity.kind(other);
            self.component_use(operand, &like);
        }
    }

    /// Backward kind inference for the components of a call's result, whose types the syntax does not
    /// give: where `operand`, a field `t.i` of a kind still unknown, meets a float of kind `like` in
    /// arithmetic, in a float function or as the value stored into a float array, the component is a
    /// float of that kind. Rust has no arithmetic between a float and an array, a `Vec` or an integer
    /// (the other kinds a component may have), so the program compiles only if it is one. Knowing it,
    /// the reverse sweep makes the component's zero adjoint as `0.0` rather than `zero_like(&t.i)`,
    /// which would make it compute `t` again (a call) only for its type.
    ///
    /// ```text
    /// // Input:                       // Kinds:
    /// let (k4u, k4v) = rhs(p, u, v);  the result of rhs: (Unknown, Unknown) -> (Float, Float)
    /// let s = 2.0 * k3u + k4u;        k4u: a float, as 2.0 * k3u is
    /// let w = 2.0 * k3v + k4v;
    /// ```
    fn component_use(&mut self, operand: &Operand, like: &Kind) {
        let Kind::Float(_) = like else { return };
        let Some(v) = operand.var() else { return };
        if !matches!(self.activity.var_kind(v), Kind::Unknown) {
            return;
        }
        let Some(&component) = self.fields.get(&v) else {
            return;
        };
        let told = self.component_kinds.get(&component);
        let joined = told.map_or_else(|| like.clone(), |k| k.join(like));
        if told != Some(&joined) {
            self.component_kinds.insert(component, joined);
            self.changed = true;
        }
    }

    /// `T::one()`, `f64::from(..)`: constants of a float type.
    fn call_kind(&self, callee: &syn::ExprPath, arity: usize) -> Kind {
        // `<g as GenericCopy>::Copy::call`: no constant.
        if callee.qself.is_some() {
            return Kind::Unknown;
        }
        let segments: Vec<&syn::PathSegment> = callee.path.segments.iter().collect();
        // `__private::field_ref(..)`: a nested struct passed on beside its values view (`struct_whole.rs`),
        // a constant without a tangent of its own, as an integer is; `__private::matrix_shape(..)`, where
        // a matrix field's rows are in that view, likewise.
        if segments.len() == 3
            && segments[1].ident == "__private"
            && (segments[2].ident == "field_ref" || segments[2].ident == "matrix_shape")
        {
            return Kind::Int;
        }
        match segments.as_slice() {
            [ty, func] if arity == 0 => {
                let ty_name = ty.ident.to_string();
                let is_float = matches!(ty_name.as_str(), "f32" | "f64")
                    || self.float_params.iter().any(|p| *p == ty_name);
                let constant = matches!(
                    func.ident.to_string().as_str(),
                    "one"
                        | "zero"
                        | "epsilon"
                        | "infinity"
                        | "neg_infinity"
                        | "nan"
                        | "max_value"
                        | "min_value"
                        | "min_positive_value"
                );
                if is_float && constant {
                    Kind::Float(Some(syn::Type::Path(syn::TypePath {
                        qself: None,
                        path: ty.ident.clone().into(),
                    })))
                } else {
                    Kind::Unknown
                }
            }
            _ => Kind::Unknown,
        }
    }
}

/// The function a derivative item is generated from, if `callee` names one by its suffix
/// (`potential_grad` → `potential`): `_grad`, `_grad_into`, `_vjp`, `_jvp`, `_hvp`, the derivatives that
/// return a tuple.
fn generated_derivative(callee: &syn::ExprPath) -> Option<String> {
    const SUFFIXES: [&str; 5] = ["_grad_into", "_grad", "_vjp", "_jvp", "_hvp"];
    let name = crate::naming::unraw(&callee.path.segments.last()?.ident);
    SUFFIXES
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .filter(|base| !base.is_empty())
        .map(str::to_string)
}

/// The predicates of a float (of `f64`, `f32` and `num_traits::Float`): a `bool` of its value.
fn is_float_predicate(name: &str) -> bool {
    matches!(
        name,
        "is_nan"
            | "is_finite"
            | "is_infinite"
            | "is_sign_positive"
            | "is_sign_negative"
            | "is_normal"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Args;

    /// The activity of every named value of `src` (by the user's name, the last value of that name), and the
    /// number of errors.
    fn activity_of(src: &str, args: &str) -> (Vec<(String, bool, String)>, usize) {
        let item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let args: Args = syn::parse_str(args).expect("test arguments parse");
        let mut errors = Errors::default();
        let sig =
            crate::signature::analyze(&item, &args, &mut errors).expect("supported signature");
        let float_params = crate::signature::float_type_params(&item.sig.generics);
        let f = crate::lower::lower(&item, &sig, float_params.clone(), &mut errors);
        let a = analyze(&f, &sig, &float_params, &mut errors);
        let named = f
            .vars
            .iter()
            .enumerate()
            .filter_map(|(i, info)| {
                let var = Var(u32::try_from(i).ok()?);
                let kind = match a.var_kind(var) {
                    Kind::Float(_) => "float",
                    Kind::Int => "int",
                    Kind::Bool => "bool",
                    _ => "other",
                };
                Some((info.hint.clone()?, a.is_active_var(var), kind.to_owned()))
            })
            .collect();
        let count = errors
            .finish()
            .err()
            .map_or(0, |e| e.to_string().matches("compile_error").count());
        (named, count)
    }

    fn active(named: &[(String, bool, String)], name: &str) -> bool {
        named
            .iter()
            .rev()
            .find(|(n, ..)| n == name)
            .is_some_and(|(_, a, _)| *a)
    }

    #[test]
    fn activity_follows_the_data_from_active_inputs() {
        let (named, errors) = activity_of(
            "fn f(x: f64, c: f64, n: usize) -> f64 { \
               let k = n as f64; let y = x * k; let z = c * k; let w = stop_gradient(y); let j = x as usize; \
               y + z + w + j as f64 }",
            "wrt(x)",
        );
        assert_eq!(errors, 0);
        assert!(active(&named, "y"));
        // Not reached from `x`: a constant parameter, an integer, a stopped gradient, a float made integer.
        for name in ["k", "z", "w", "j"] {
            assert!(
                named.iter().any(|(n, ..)| n == name),
                "{name} is named: {named:?}"
            );
            assert!(
                !active(&named, name),
                "{name} should be inactive: {named:?}"
            );
        }
        let kind = |name: &str| {
            named
                .iter()
                .rev()
                .find(|(n, ..)| n == name)
                .map(|(.., k)| k.clone())
        };
        assert_eq!(kind("j").as_deref(), Some("int"));
        assert_eq!(kind("k").as_deref(), Some("float"));
    }

    #[test]
    fn a_component_of_a_call_is_a_float_where_it_meets_one() {
        let kinds = |src: &str| {
            let (named, errors) = activity_of(src, "");
            assert_eq!(errors, 0);
            let kind = |name: &str| {
                let found = named.iter().rev().find(|(n, ..)| n == name);
                found.map(|(.., k)| k.clone()).unwrap_or_default()
            };
            ["a", "b", "c", "d"].map(kind)
        };
        // In arithmetic with a float, in a float function with a float, stored into a float array.
        assert_eq!(
            kinds(
                "fn f(x: f64, y: &[f64]) -> f64 { let (a, b) = g(x); let (c, d) = g(x);                  let mut z = vec![0.0; 1]; z[0] = d; 2.0 * a + b.max(y[0]) + c / x + z[0] }"
            ),
            ["float"; 4]
        );
        // Met only by each other or by values of unknown kind: not told.
        assert_eq!(
            kinds(
                "fn f(x: f64) -> f64 { let (a, b) = g(x); let (c, d) = g(x);                  let e = a * b; let h = c + K; e * h + d.sin() }"
            ),
            ["other"; 4]
        );
    }

    #[test]
    fn the_predicates_of_an_active_float_are_comparisons() {
        let (named, errors) = activity_of(
            "fn f(x: f64) -> f64 { let bad = !x.is_finite() || x.is_nan(); if bad { 0.0 } else { x } }",
            "",
        );
        assert_eq!(errors, 0);
        assert!(!active(&named, "bad"), "{named:?}");
        let (_, errors) = activity_of("fn f(x: f64) -> f64 { let y = x.midpoint(2.0); y }", "");
        assert_eq!(errors, 1, "a method with no rule is still an error");
    }

    #[test]
    fn a_call_whose_result_is_used_as_an_integer_is_a_constant() {
        let kind = |named: &[(String, bool, String)], name: &str| {
            let found = named.iter().rev().find(|(n, ..)| n == name);
            found.map(|(_, a, k)| (*a, k.clone()))
        };
        // An index, through arithmetic, a branch's value, a range's bound, a declared type.
        let (named, errors) = activity_of(
            "fn f(x: &[f64], c: bool) -> f64 { let k = argmax(x); let j = k + 1; \
               let b = if c { first(x) } else { 0 }; let n = count(x); let m: usize = other(x); \
               let mut s = 0.0; for i in 0..n { s = s + x[i]; } s + x[j] + x[b] + x[m] }",
            "",
        );
        assert_eq!(errors, 0);
        for name in ["k", "j", "n", "m"] {
            assert_eq!(
                kind(&named, name),
                Some((false, "int".into())),
                "{name}: {named:?}"
            );
        }
        assert!(!active(&named, "b"), "{named:?}");
        // Read in arithmetic with a float, a call's result is active as before.
        let (named, errors) = activity_of(
            "fn f(x: &[f64]) -> f64 { let k = g(x); let y = k * x[0]; y }",
            "",
        );
        assert_eq!(errors, 0);
        assert!(active(&named, "k"), "{named:?}");
    }

    #[test]
    fn a_value_through_a_loop_is_active_if_any_iteration_makes_it_so() {
        let (named, errors) = activity_of(
            "fn f(x: f64, n: usize) -> f64 { let mut s = 0.0; for _ in 0..n { s = s + x; } s }",
            "",
        );
        assert_eq!(errors, 0);
        assert!(active(&named, "s"), "{named:?}");
    }

    /// An array's name, whether its `let` declares integers, whether it is active, its elements' kind.
    type ArrayFacts = (String, bool, bool, String);

    /// The arrays of `src` (`ArrayFacts`), and the errors' messages.
    fn arrays_of(src: &str) -> (Vec<ArrayFacts>, Vec<String>) {
        let item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let args: Args = syn::parse_str("").expect("test arguments parse");
        let mut errors = Errors::default();
        let sig =
            crate::signature::analyze(&item, &args, &mut errors).expect("supported signature");
        let float_params = crate::signature::float_type_params(&item.sig.generics);
        let f = crate::lower::lower(&item, &sig, float_params.clone(), &mut errors);
        let a = analyze(&f, &sig, &float_params, &mut errors);
        let arrays = (0..f.arrays.len())
            .filter_map(|i| {
                let array = crate::ir::Array(u32::try_from(i).ok()?);
                let kind = match a.elem_kind(array) {
                    Kind::Float(_) => "float",
                    Kind::Int => "int",
                    _ => "other",
                };
                Some((
                    f.arrays[i].name.clone(),
                    declared_integers(&f, array),
                    a.is_active_array(array),
                    kind.to_owned(),
                ))
            })
            .collect();
        (arrays, errors.messages())
    }

    #[test]
    fn a_call_declared_to_return_integers_is_constant_integer_data() {
        let (arrays, errors) = arrays_of(
            "fn f(x: &[f64]) -> f64 { \
               let p: Vec<usize> = argsort(x); let q: [u32; 2] = two(x); let r: Vec<i64> = ranks(x); \
               let v: Vec<f64> = scaled(x); \
               x[p[0]] * v[q[1] as usize] + x[r[0] as usize] }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let find = |name: &str| {
            arrays
                .iter()
                .find(|a| a.0 == name)
                .cloned()
                .unwrap_or_else(|| panic!("{name} in {arrays:?}"))
        };
        for name in ["p", "q", "r"] {
            let (_, declared, active, kind) = find(name);
            assert!(declared && !active && kind == "int", "{name}: {arrays:?}");
        }
        // A declared float `Vec` and the parameter: differentiated as before.
        let (_, declared, active, _) = find("v");
        assert!(!declared && active, "{arrays:?}");
        let (_, declared, active, _) = find("x");
        assert!(!declared && active, "{arrays:?}");
    }

    #[test]
    fn an_undeclared_call_whose_elements_index_is_an_error_saying_to_write_the_type() {
        let (_, errors) =
            arrays_of("fn f(x: &[f64]) -> f64 { let p = argsort(x); x[p[0]] * x[p[1] + 1] }");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("let p: Vec<usize> = argsort(..);"),
            "{errors:?}"
        );
        // Elements read as floats, or a call of constants only: no such error.
        let (_, errors) = arrays_of("fn f(x: &[f64]) -> f64 { let v = scaled(x); x[0] * v[0] }");
        assert!(errors.is_empty(), "{errors:?}");
        let (_, errors) =
            arrays_of("fn f(x: &[f64], n: usize) -> f64 { let p = indexes(n); x[p[0]] }");
        assert!(errors.is_empty(), "{errors:?}");
    }
}
