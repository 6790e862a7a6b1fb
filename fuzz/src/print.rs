//! Prints the AST as Rust source, in three flavours: the `#[differentiable]` copy the macro sees, a plain copy
//! without attributes (to check that the program is valid Rust on its own), and the generic oracle copy that the
//! harness runs on `Dual` numbers.

use crate::ast::*;
use std::fmt::Write;

/// Which copy of a program is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// With `#[differentiable]` / `#[custom_gradient]`, names as generated.
    Macro,
    /// The same code without attributes, functions renamed `*_plain`; custom gradients become their forward code.
    Plain,
    /// A plain generic `fn *_oracle<T: autodiff::Float>` copy of every function, with literals as
    /// `T::from(c).unwrap()`: no macro involved.
    Oracle,
}

/// The name of function `name` in the copy printed by `mode`.
pub fn fn_name(name: &str, mode: Mode) -> String {
    match mode {
        Mode::Macro => name.to_string(),
        Mode::Plain => format!("{name}_plain"),
        Mode::Oracle => format!("{name}_oracle"),
    }
}

/// Prints every function of `program` in the given flavour (no `use` lines). The helpers of
/// `program.nested` are declared inside the main function's body, but in the oracle copy.
pub fn print_program(program: &Program, mode: Mode) -> String {
    let nested: Vec<&Func> = match mode {
        Mode::Oracle => Vec::new(),
        Mode::Macro | Mode::Plain => program
            .funcs
            .iter()
            .filter(|f| program.nested.contains(&f.name))
            .collect(),
    };
    let last = program.funcs.len().saturating_sub(1);
    let mut out = String::new();
    for (k, f) in program.funcs.iter().enumerate() {
        if nested.iter().any(|n| n.name == f.name) && k != last {
            continue;
        }
        let inside = if k == last { &nested[..] } else { &[] };
        out.push_str(&print_func_with(f, mode, inside));
        out.push('\n');
    }
    out
}

/// Prints one function in the given flavour.
pub fn print_func(f: &Func, mode: Mode) -> String {
    print_func_with(f, mode, &[])
}

/// Prints `f` with the functions `nested` declared at the start of its body.
fn print_func_with(f: &Func, mode: Mode, nested: &[&Func]) -> String {
    let generic = f.generic || mode == Mode::Oracle;
    let mut p = Printer {
        mode,
        generic,
        out: String::new(),
        indent: 0,
        nested: nested.iter().map(|n| print_func(n, mode)).collect(),
        result_array: f.result_array,
    };
    p.func(f);
    p.out
}

/// Prints the statements `body` and the value `tail` of a function in the given flavour (generic over `T`
/// in the oracle), one indentation level deep: the bodies of the functions and methods of `--structs`
/// (`gen/structs.rs`), whose signatures it writes itself.
pub fn print_body(body: &[Stmt], tail: &Expr, mode: Mode) -> String {
    let mut p = Printer {
        mode,
        generic: mode == Mode::Oracle,
        out: String::new(),
        indent: 1,
        nested: Vec::new(),
        result_array: false,
    };
    for s in body {
        p.stmt(s);
    }
    let t = p.expr(tail, 0);
    p.line(&t);
    p.out
}

/// Does a `return` of `f` stand inside a statement of its body (a loop, a branch), not only as a
/// top-level `if c { return v; }`? (An array result carried out of a loop by `return` is refused by
/// design, README "Not supported yet": `--sugar` writes a pair result as an array only where none is.)
pub fn returns_nested(f: &Func) -> bool {
    let mut p = Printer {
        mode: Mode::Plain,
        generic: f.generic,
        out: String::new(),
        indent: 0,
        nested: Vec::new(),
        result_array: false,
    };
    f.body
        .iter()
        .filter(|s| !matches!(s, Stmt::ReturnIf { .. }))
        .any(|s| {
            p.out.clear();
            p.stmt(s);
            p.out.contains("return")
        })
}

/// Does `caller`'s body call the function `name`?
pub fn calls(caller: &Func, name: &str) -> bool {
    let text = print_func(caller, Mode::Plain);
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = &text[i + name.len()..];
        !before.is_some_and(ident)
            && (after.starts_with("_plain(") || after.starts_with("_plain::<"))
    })
}

struct Printer {
    mode: Mode,
    generic: bool,
    out: String,
    indent: usize,
    /// The printed functions to declare at the start of the body.
    nested: Vec<String>,
    /// The function's pair result is an array (`Func::result_array`): its values are printed `[a, b]`.
    result_array: bool,
}

impl Printer {
    fn ty(&self) -> &'static str {
        if self.generic {
            "T"
        } else {
            "f64"
        }
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn func(&mut self, f: &Func) {
        let t = self.ty();
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Scalar if f.param_style(&p.name) == Some(ParamStyle::Scalar) => {
                    format!("{}: &{t}", p.name)
                }
                ParamKind::Scalar => format!("{}: {t}", p.name),
                ParamKind::Matrix(rows, cols, style) => match style {
                    MatStyle::Slice => format!("{}: &[Vec<{t}>]", p.name),
                    MatStyle::Vec => format!("mut {}: Vec<Vec<{t}>>", p.name),
                    MatStyle::Nested => format!("mut {}: [[{t}; {cols}]; {rows}]", p.name),
                    MatStyle::NestedRef => format!("{}: &[[{t}; {cols}]; {rows}]", p.name),
                },
                ParamKind::Slice(_) if f.mut_slices.contains(&p.name) => {
                    format!("mut {}: &[{t}]", p.name)
                }
                ParamKind::Slice(l) => match f.param_style(&p.name) {
                    Some(ParamStyle::Vec) => format!("{}: &Vec<{t}>", p.name),
                    Some(ParamStyle::Array) => format!("{}: &[{t}; {l}]", p.name),
                    _ => format!("{}: &[{t}]", p.name),
                },
                ParamKind::Int(_) => format!("{}: usize", p.name),
                ParamKind::Out(_) => format!("{}: &mut [{t}]", p.name),
                ParamKind::OutFloat => format!("{}: &mut {t}", p.name),
                ParamKind::Pair(false) => format!("{}: ({t}, {t})", p.name),
                ParamKind::Pair(true) => format!("{}: ({t}, [{t}; 1])", p.name),
            })
            .collect();
        let generics = if self.generic { "<T: Float>" } else { "" };
        let name = fn_name(&f.name, self.mode);
        let ret = if f.returns_pair() && f.result_array {
            format!("[{t}; 2]")
        } else if f.returns_pair() {
            format!("({t}, {t})")
        } else {
            t.to_string()
        };
        match &f.kind {
            FnKind::Custom(kind) => return self.custom(f, *kind, &name, generics, &params),
            FnKind::Differentiable { order2, wrt } => {
                if self.mode == Mode::Macro {
                    let mut args = Vec::new();
                    if let Some(w) = wrt {
                        args.push(format!("wrt({})", w.join(", ")));
                    }
                    if *order2 {
                        args.push("order = 2".to_string());
                    }
                    if args.is_empty() {
                        self.line("#[differentiable]");
                    } else {
                        self.line(&format!("#[differentiable({})]", args.join(", ")));
                    }
                }
            }
        }
        self.line(&format!(
            "pub fn {name}{generics}({}) -> {ret} {{",
            params.join(", ")
        ));
        self.indent += 1;
        for text in std::mem::take(&mut self.nested) {
            for l in text.lines() {
                self.line(l);
            }
        }
        for s in &f.body {
            self.stmt(s);
        }
        let tail = self.values(&f.tail);
        self.line(&tail);
        self.indent -= 1;
        self.line("}");
    }

    fn custom(
        &mut self,
        f: &Func,
        kind: CustomKind,
        name: &str,
        generics: &str,
        params: &[String],
    ) {
        let t = self.ty();
        let one = self.lit(1.0);
        let sig = params.join(", ");
        if self.mode == Mode::Macro {
            self.line("#[custom_gradient]");
            let (ret, body): (String, Vec<String>) = match kind {
                CustomKind::Tanh => (
                    format!("({t}, impl Fn({t}) -> {t})"),
                    vec![
                        "let t = x.tanh();".into(),
                        format!("(t, move |dy: {t}| dy * ({one} - t * t))"),
                    ],
                ),
                CustomKind::SinTimes => (
                    format!("({t}, impl Fn({t}) -> ({t}, {t}))"),
                    vec![
                        "let s = x.sin();".into(),
                        "let c = x.cos();".into(),
                        format!("(s * y, move |dy: {t}| (dy * c * y, dy * s))"),
                    ],
                ),
                CustomKind::Softplus => (
                    format!("({t}, impl Fn({t}) -> {t})"),
                    vec![
                        "let e = x.exp();".into(),
                        format!("(({one} + e).ln(), move |dy: {t}| dy * e / ({one} + e))"),
                    ],
                ),
            };
            self.line(&format!("pub fn {name}{generics}({sig}) -> {ret} {{"));
            self.indent += 1;
            for l in body {
                self.line(&l);
            }
        } else {
            self.line(&format!("pub fn {name}{generics}({sig}) -> {t} {{"));
            self.indent += 1;
            let _ = f;
            match kind {
                CustomKind::Tanh => self.line("x.tanh()"),
                CustomKind::SinTimes => self.line("x.sin() * y"),
                CustomKind::Softplus => self.line(&format!("({one} + x.exp()).ln()")),
            }
        }
        self.indent -= 1;
        self.line("}");
    }

    fn values(&self, vs: &[Expr]) -> String {
        if vs.len() == 1 {
            self.expr(&vs[0], 0)
        } else {
            let parts: Vec<String> = vs.iter().map(|e| self.expr(e, 0)).collect();
            match self.result_array {
                true => format!("[{}]", parts.join(", ")),
                false => format!("({})", parts.join(", ")),
            }
        }
    }

    fn block(&mut self, head: &str, body: &[Stmt], tail: &str) {
        self.line(&format!("{head} {{"));
        self.indent += 1;
        for s in body {
            self.stmt(s);
        }
        self.indent -= 1;
        self.line(&format!("}}{tail}"));
    }

    fn stmt(&mut self, s: &Stmt) {
        let t = self.ty();
        match s {
            Stmt::LetClosure {
                name,
                method,
                capture,
                offset,
            } => {
                let factor = capture.clone().unwrap_or_else(|| "el".to_string());
                let offset = self.lit(*offset);
                self.line(&format!(
                    "let {name} = |el: {t}| el.{} * {factor} + {offset};",
                    method_call(*method)
                ));
            }
            Stmt::LetPair { names, init } => {
                let e = match init {
                    PairInit::Var(v, false) => v.clone(),
                    PairInit::Var(v, true) => format!("({v}.0, {v}.1[0])"),
                    PairInit::Val(v) => self.pair_val(v),
                    PairInit::If(c, a, b) => format!(
                        "if {} {{ {} }} else {{ {} }}",
                        self.cond(c),
                        self.pair_val(a),
                        self.pair_val(b)
                    ),
                    PairInit::Match(scrut, arms) => {
                        let arms: Vec<String> = arms
                            .iter()
                            .map(|(p, v)| format!("{} => {},", self.pattern(p), self.pair_val(v)))
                            .collect();
                        format!("match {} {{ {} }}", iexpr(scrut, 0), arms.join(" "))
                    }
                };
                self.line(&format!("let ({}, {}) = {e};", names.0, names.1));
            }
            Stmt::LetMatrix {
                name,
                rows,
                cols,
                fill,
                fixed,
            } => {
                let fill = self.expr(fill, 0);
                if *fixed {
                    self.line(&format!("let mut {name} = [[{fill}; {cols}]; {rows}];"));
                } else {
                    self.line(&format!(
                        "let mut {name}: Vec<Vec<{t}>> = vec![vec![{fill}; {cols}]; {rows}];"
                    ));
                }
            }
            Stmt::Let {
                name,
                mutable,
                annotated,
                init,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let a = if *annotated {
                    format!(": {t}")
                } else {
                    String::new()
                };
                let e = self.expr(init, 0);
                self.line(&format!("let {m}{name}{a} = {e};"));
            }
            Stmt::LetArray {
                name,
                annotated,
                init,
            } => {
                let (a, e) = match init {
                    ArrayInit::Vec(fill, len) => (
                        format!(": Vec<{t}>"),
                        format!("vec![{}; {}]", self.expr(fill, 0), iexpr(len, 0)),
                    ),
                    ArrayInit::Fixed(fill, n) => (
                        format!(": [{t}; {n}]"),
                        format!("[{}; {n}]", self.expr(fill, 0)),
                    ),
                    ArrayInit::List(es) => {
                        let parts: Vec<String> = es.iter().map(|e| self.expr(e, 0)).collect();
                        (
                            format!(": [{t}; {}]", es.len()),
                            format!("[{}]", parts.join(", ")),
                        )
                    }
                    ArrayInit::CopyOf(src) => (String::new(), src.clone()),
                };
                let a = if *annotated { a } else { String::new() };
                self.line(&format!("let mut {name}{a} = {e};"));
            }
            Stmt::AssignWhole { target, source } => self.line(&format!("{target} = {source};")),
            Stmt::Seq(b) => {
                for s in b {
                    self.stmt(s);
                }
            }
            Stmt::Destructure { target, value } => {
                let line = format!("{} = {};", self.dplace(target), self.dvalue(value));
                self.line(&line);
            }
            Stmt::LetLabelled {
                name,
                annotated,
                label,
                body,
                value,
            } => {
                let a = if *annotated {
                    format!(": {t}")
                } else {
                    String::new()
                };
                self.line(&format!("let {name}{a} = '{label}: {{"));
                self.indent += 1;
                for s in body {
                    self.stmt(s);
                }
                let v = self.expr(value, 0);
                self.line(&v);
                self.indent -= 1;
                self.line("};");
            }
            Stmt::LabelledFor { label, inner } => {
                // The loop's first line, with the label before its `for`.
                let at = self.out.len() + 4 * self.indent;
                self.stmt(inner);
                self.out.insert_str(at, &format!("'{label}: "));
            }
            Stmt::JumpIf { cond, label, cont } => {
                let c = self.cond(cond);
                self.line(&format!("if {c} {{"));
                self.indent += 1;
                let jump = if *cont { "continue" } else { "break" };
                self.line(&format!("{jump} '{label};"));
                self.indent -= 1;
                self.line("}");
            }
            Stmt::ContinueIf(cond) => {
                let c = self.cond(cond);
                self.line(&format!("if {c} {{"));
                self.indent += 1;
                self.line("continue;");
                self.indent -= 1;
                self.line("}");
            }
            Stmt::BreakLabel { label, cond, value } => {
                let c = self.cond(cond);
                let v = self.expr(value, 0);
                self.line(&format!("if {c} {{"));
                self.indent += 1;
                self.line(&format!("break '{label} {v};"));
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Assign {
                place: target,
                op,
                value,
            } => {
                let target = place(target);
                let v = self.expr(value, 0);
                let line = match (op, self.generic) {
                    (AssignOp::Set, _) => format!("{target} = {v};"),
                    (op, false) => format!("{target} {}= {v};", assign_sym(*op)),
                    (op, true) => {
                        let v = self.expr(value, 6);
                        let v = self.watched(format!("{target} {} {v}", assign_sym(*op)));
                        format!("{target} = {v};")
                    }
                };
                self.line(&line);
            }
            Stmt::For { iter, body } => {
                let head = match iter {
                    ForIter::Range {
                        var,
                        lo,
                        hi,
                        inclusive,
                        rev,
                        step,
                    } => {
                        let dots = if *inclusive { "..=" } else { ".." };
                        let range = format!("{}{dots}{}", iexpr(lo, 1), iexpr(hi, 1));
                        let mut adapters = String::new();
                        if *rev {
                            adapters.push_str(".rev()");
                        }
                        if let Some(k) = step {
                            let _ = write!(adapters, ".step_by({k})");
                        }
                        if adapters.is_empty() {
                            format!("for {var} in {range}")
                        } else {
                            format!("for {var} in ({range}){adapters}")
                        }
                    }
                    ForIter::Values { var, arr } => format!("for &{var} in {}", self.seq(arr)),
                    ForIter::Chain { pat, chain: c } => {
                        format!("for {} in {}", loop_pat(pat), chain(c))
                    }
                    ForIter::Enumerate { index, var, arr } => {
                        format!("for ({index}, &{var}) in {arr}.iter().enumerate()")
                    }
                    ForIter::Zip {
                        var_a,
                        var_b,
                        arr_a,
                        arr_b,
                    } => {
                        format!("for (&{var_a}, &{var_b}) in {arr_a}.iter().zip({arr_b}.iter())")
                    }
                };
                self.block(&head, body, "");
            }
            Stmt::While {
                counter,
                bound,
                cond,
                body,
            } => {
                self.line(&format!("let mut {counter} = 0;"));
                let extra = cond
                    .as_ref()
                    .map(|c| format!(" && {}", self.cond(c)))
                    .unwrap_or_default();
                self.line(&format!("while {counter} < {bound}{extra} {{"));
                self.indent += 1;
                for s in body {
                    self.stmt(s);
                }
                self.line(&format!("{counter} += 1;"));
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Loop {
                counter,
                bound,
                result,
                body,
            } => {
                self.line(&format!("let mut {counter} = 0;"));
                match result {
                    Some((name, _)) => self.line(&format!("let {name} = loop {{")),
                    None => self.line("loop {"),
                }
                self.indent += 1;
                for s in body {
                    self.stmt(s);
                }
                self.line(&format!("{counter} += 1;"));
                let brk = match result {
                    Some((_, v)) => format!("break {};", self.expr(v, 0)),
                    None => "break;".to_string(),
                };
                self.line(&format!("if {counter} >= {bound} {{"));
                self.indent += 1;
                self.line(&brk);
                self.indent -= 1;
                self.line("}");
                self.indent -= 1;
                self.line(if result.is_some() { "};" } else { "}" });
            }
            Stmt::BreakIf { cond, value } => {
                let c = self.cond(cond);
                let brk = match value {
                    Some(v) => format!("break {};", self.expr(v, 0)),
                    None => "break;".to_string(),
                };
                self.line(&format!("if {c} {{"));
                self.indent += 1;
                self.line(&brk);
                self.indent -= 1;
                self.line("}");
            }
            Stmt::If { cond, then, els } => {
                let c = self.cond(cond);
                match els {
                    None => self.block(&format!("if {c}"), then, ""),
                    Some(e) => {
                        self.block(&format!("if {c}"), then, "");
                        // Re-open the closing line as `} else {`.
                        self.out.truncate(self.out.len() - 1);
                        self.out.push_str(" else {\n");
                        self.indent += 1;
                        for s in e {
                            self.stmt(s);
                        }
                        self.indent -= 1;
                        self.line("}");
                    }
                }
            }
            Stmt::Match { scrut, arms } => {
                self.line(&format!("match {} {{", iexpr(scrut, 0)));
                self.indent += 1;
                for (pat, body) in arms {
                    self.block(&format!("{} =>", self.pattern(pat)), body, "");
                }
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Raw { text, exprs } => {
                let l = self.raw(text, exprs);
                self.line(&l);
            }
            Stmt::RawBlock { head, exprs, body } => {
                let h = self.raw(head, exprs);
                self.block(&h, body, "");
            }
            Stmt::ReturnIf { cond, values } => {
                let c = self.cond(cond);
                let v = self.values(values);
                self.line(&format!("if {c} {{"));
                self.indent += 1;
                self.line(&format!("return {v};"));
                self.indent -= 1;
                self.line("}");
            }
        }
    }

    /// How a sequence is iterated by `for &v in ..`: slice parameters as they are, local arrays by reference.
    fn seq(&self, arr: &str) -> String {
        if is_slice_param(arr) {
            arr.to_string()
        } else {
            format!("&{arr}")
        }
    }

    fn pattern(&self, p: &Pat) -> String {
        match p {
            Pat::Lit(k) => k.to_string(),
            Pat::Or(a, b) => format!("{a} | {b}"),
            Pat::Range(a, b) => format!("{a}..={b}"),
            Pat::Wild => "_".to_string(),
            Pat::Bind(n) => n.clone(),
            Pat::Guard(p, c) => format!("{} if {}", self.pattern(p), self.cond(c)),
        }
    }

    fn dplace(&self, p: &DPlace) -> String {
        match p {
            DPlace::Wild => "_".to_string(),
            DPlace::Place(p) => place(p),
            DPlace::Tuple(ps) => {
                let parts: Vec<String> = ps.iter().map(|p| self.dplace(p)).collect();
                format!("({})", parts.join(", "))
            }
            DPlace::Array(ps) => {
                let parts: Vec<String> = ps.iter().map(|p| self.dplace(p)).collect();
                format!("[{}]", parts.join(", "))
            }
        }
    }

    fn dvalue(&self, v: &DValue) -> String {
        match v {
            DValue::Expr(e) => self.expr(e, 0),
            DValue::Tuple(vs) => {
                let parts: Vec<String> = vs.iter().map(|v| self.dvalue(v)).collect();
                format!("({})", parts.join(", "))
            }
            DValue::Array(vs) => {
                let parts: Vec<String> = vs.iter().map(|v| self.dvalue(v)).collect();
                format!("[{}]", parts.join(", "))
            }
            DValue::Call(name, args) => self.call(name, args),
        }
    }

    fn cond(&self, c: &Cond) -> String {
        match c {
            Cond::Float(op, a, b) => {
                format!("{} {} {}", self.expr(a, 2), cmp_sym(*op), self.expr(b, 2))
            }
            Cond::Int(op, a, b) => format!("{} {} {}", iexpr(a, 1), cmp_sym(*op), iexpr(b, 1)),
        }
    }

    /// The text of a [`Stmt::Raw`] or [`Expr::Raw`]: `$T` the float type, `$H` the literal `0.5`, `$PI`,
    /// `$EULER`, `$LN2` the constants of `std::f64::consts`, `$EPS`, `$NEGINF`, `$INF` `f64::EPSILON`,
    /// `f64::NEG_INFINITY`, `f64::INFINITY` (in generic code `T::from(..).unwrap()` of the constants,
    /// `T::epsilon()`, `T::neg_infinity()`, `T::infinity()`), `@name` the generated function `name` as this
    /// copy calls it, `{k}` expression `k`.
    fn raw(&self, text: &str, exprs: &[Expr]) -> String {
        let mut text = text.replace("$H", &self.lit(0.5));
        for (mark, name) in [("$PI", "PI"), ("$EULER", "E"), ("$LN2", "LN_2")] {
            let constant = match self.generic {
                true => format!("T::from(std::f64::consts::{name}).unwrap()"),
                false => format!("std::f64::consts::{name}"),
            };
            text = text.replace(mark, &constant);
        }
        for (mark, of_t, of_f64) in [
            ("$EPS", "T::epsilon()", "f64::EPSILON"),
            ("$NEGINF", "T::neg_infinity()", "f64::NEG_INFINITY"),
            ("$INF", "T::infinity()", "f64::INFINITY"),
        ] {
            text = text.replace(mark, if self.generic { of_t } else { of_f64 });
        }
        let text = text.replace("$T", self.ty());
        // `@name`: the generated function `name`, as this copy calls it.
        let mut named = String::new();
        let mut parts = text.split('@');
        named.push_str(parts.next().unwrap_or(""));
        for part in parts {
            let end = part
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(part.len());
            named.push_str(&fn_name(&part[..end], self.mode));
            named.push_str(&part[end..]);
        }
        let text = named;
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(k) = rest.find('{') {
            out.push_str(&rest[..k]);
            let after = &rest[k + 1..];
            let digits = after.find('}').map(|e| &after[..e]);
            match digits.and_then(|d| d.parse::<usize>().ok().map(|n| (d.len(), n))) {
                Some((len, n)) if n < exprs.len() => {
                    out.push_str(&self.expr(&exprs[n], 0));
                    rest = &after[len + 1..];
                }
                _ => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    fn lit(&self, c: f64) -> String {
        if self.generic {
            if c == 0.0 {
                "T::zero()".into()
            } else if c == 1.0 {
                "T::one()".into()
            } else {
                format!("T::from({c:?}).unwrap()")
            }
        } else {
            format!("{c:?}")
        }
    }

    /// `name(args)`.
    fn call(&self, name: &str, args: &[Arg]) -> String {
        let args: Vec<String> = args
            .iter()
            .map(|a| match a {
                // A float argument of literals alone (`h(2.6)`, `h(0.2 + 3.0)`) would leave a generic
                // callee's float type to inference (`{float}`), which a method called on a sum with
                // its result cannot settle: rustc's E0282 in the program as written, not in the macro.
                Arg::Float(e) if !self.generic && only_literals(e) => {
                    format!("({} as f64)", self.expr(e, 0))
                }
                Arg::Float(e) => self.expr(e, 0),
                Arg::SliceParam(n) => n.clone(),
                Arg::LocalArray(n) => format!("&{n}"),
                Arg::OutArray(n) | Arg::OutFloat(n) => format!("&mut {n}"),
                Arg::OutElement(n, i) => format!("&mut {n}[{}]", iexpr(i, 0)),
                Arg::Pair(a, b, false) => format!("({}, {})", self.expr(a, 0), self.expr(b, 0)),
                Arg::Pair(a, b, true) => format!("({}, [{}])", self.expr(a, 0), self.expr(b, 0)),
                Arg::Matrix(n, how) => format!("{how}{n}"),
                Arg::MatrixRow(n, i) => format!("&{n}[{}]", iexpr(i, 0)),
                Arg::SubSlice(n, start, Some(end)) => format!("&{n}[{start}..{end}]"),
                Arg::SubSlice(n, start, None) => format!("&{n}[{start}..]"),
            })
            .collect();
        format!("{}({})", fn_name(name, self.mode), args.join(", "))
    }

    /// A branch of a tuple-valued `if`/`match`.
    fn pair_val(&self, v: &PairVal) -> String {
        match v {
            PairVal::Lit(a, b) => format!("({}, {})", self.expr(a, 0), self.expr(b, 0)),
            PairVal::Call(name, args) => self.call(name, args),
        }
    }

    /// Prints `e` in a context of precedence `ctx`: 0 top, 1 comparison operand... see `prec`.
    /// In the oracle, `value` through `support::watch`, which notes a non-finite value: a point where the
    /// primal evaluation overflows is skipped (a zero adjoint times an infinite partial is NaN in reverse
    /// mode, as in JAX, where forward mode and the oracle stay finite).
    fn watched(&self, value: String) -> String {
        match self.mode {
            Mode::Oracle => format!("crate::support::watch({value})"),
            _ => value,
        }
    }

    fn expr(&self, e: &Expr, ctx: u8) -> String {
        let (s, prec) = match e {
            Expr::Lit(c) => (self.lit(*c), 9),
            Expr::Var(v) => (v.clone(), 9),
            Expr::Index(a, i) => (format!("{a}[{}]", iexpr(i, 0)), 9),
            Expr::Neg(a) => (format!("-{}", self.expr(a, 6)), 6),
            Expr::Method(m, a) => {
                let recv = self.expr(a, 8);
                let recv = if matches!(**a, Expr::Lit(_)) && !self.generic {
                    format!("({recv})")
                } else {
                    recv
                };
                (self.watched(format!("{recv}.{}", method_call(*m))), 9)
            }
            Expr::Method2(m, a, args) => {
                let recv = self.expr(a, 8);
                let recv = if matches!(**a, Expr::Lit(_)) && !self.generic {
                    format!("({recv})")
                } else {
                    recv
                };
                let args: Vec<String> = args.iter().map(|e| self.expr(e, 0)).collect();
                let call = format!("{recv}.{}({})", method2_name(*m), args.join(", "));
                (self.watched(call), 9)
            }
            Expr::Bin(op, a, b) => {
                let (sym, p) = match op {
                    BinOp::Add => ("+", 4),
                    BinOp::Sub => ("-", 4),
                    BinOp::Mul => ("*", 5),
                    BinOp::Div => ("/", 5),
                };
                let s = format!("{} {sym} {}", self.expr(a, p), self.expr(b, p + 1));
                match self.mode {
                    Mode::Oracle => (self.watched(s), 9),
                    _ => (s, p),
                }
            }
            Expr::Cast(i) => {
                if self.generic {
                    (format!("T::from({}).unwrap()", iexpr(i, 0)), 9)
                } else {
                    (format!("({} as f64)", iexpr(i, 7)), 9)
                }
            }
            Expr::Call(name, args) => (self.call(name, args), 9),
            Expr::Index2(m, i, j) => (format!("{m}[{}][{}]", iexpr(i, 0), iexpr(j, 0)), 9),
            Expr::If(c, a, b) => (
                format!(
                    "if {} {{ {} }} else {{ {} }}",
                    self.cond(c),
                    self.expr(a, 0),
                    self.expr(b, 0)
                ),
                1,
            ),
            Expr::CallClosure(name, arg) => (format!("{name}({})", self.expr(arg, 0)), 9),
            Expr::Fold(a, method, tail) => {
                let zero = if self.generic { "T::zero()" } else { "0.0" };
                let a = if *tail {
                    format!("{a}[1..]")
                } else {
                    a.clone()
                };
                let s = match (method, self.generic) {
                    (Some(m), false) => {
                        format!("{a}.iter().map(|&el| el.{}).sum::<f64>()", method_call(*m))
                    }
                    (Some(m), true) => format!(
                        "{a}.iter().map(|&el| el.{}).fold({zero}, |acc, y| acc + y)",
                        method_call(*m)
                    ),
                    // Every other array names the accumulator after itself (`xs.iter().fold(0.0, |xs, &el| ..)`),
                    // a closure parameter shadowing the slice the chain reads.
                    (None, _) if name_parity(&a) => {
                        let base = a.split('[').next().unwrap_or("acc");
                        format!("{a}.iter().fold({zero}, |{base}, &el| {base} + el * el)")
                    }
                    (None, _) => format!("{a}.iter().fold({zero}, |acc, &el| acc + el * el)"),
                };
                (s, 9)
            }
            Expr::Raw(text, exprs) => (format!("({})", self.raw(text, exprs)), 9),
            Expr::HornerFold(a, adapters, init, c) => {
                let mut chain = format!("{a}.iter()");
                for ad in adapters {
                    match ad {
                        Adapter::Rev => chain.push_str(".rev()"),
                        Adapter::Enumerate => chain.push_str(".enumerate()"),
                        Adapter::StepBy(k) => {
                            let _ = write!(chain, ".step_by({k})");
                        }
                        Adapter::Zip(z) => {
                            let _ = write!(chain, ".zip({})", self::chain(z));
                        }
                    }
                }
                let (init, c) = (self.lit(*init), self.lit(*c));
                let s = if adapters.contains(&Adapter::Enumerate) {
                    let count = if self.generic {
                        "(T::from(i).unwrap() + T::one())".to_string()
                    } else {
                        "(i as f64 + 1.0)".to_string()
                    };
                    format!("{chain}.fold({init}, |acc, (i, &v)| acc * {c} + v * {count})")
                } else {
                    format!("{chain}.fold({init}, |acc, &v| acc * {c} + v)")
                };
                (s, 9)
            }
            Expr::Match(scrut, arms) => {
                let arms: Vec<String> = arms
                    .iter()
                    .map(|(p, e)| format!("{} => {},", self.pattern(p), self.expr(e, 0)))
                    .collect();
                (
                    format!("match {} {{ {} }}", iexpr(scrut, 0), arms.join(" ")),
                    1,
                )
            }
        };
        if prec < ctx || (prec == 1 && ctx > 0) {
            format!("({s})")
        } else {
            s
        }
    }
}

/// `sin()`, `powi(3)`: a method call after the dot.
fn method_call(m: Method) -> String {
    match m {
        Method::Sin => "sin()".to_string(),
        Method::Cos => "cos()".to_string(),
        Method::Tanh => "tanh()".to_string(),
        Method::Exp => "exp()".to_string(),
        Method::Ln => "ln()".to_string(),
        Method::Sqrt => "sqrt()".to_string(),
        Method::Atan => "atan()".to_string(),
        Method::Powi(k) => format!("powi({k})"),
        Method::Abs => "abs()".to_string(),
        Method::ExpM1 => "exp_m1()".to_string(),
        Method::Ln1p => "ln_1p()".to_string(),
        Method::Cbrt => "cbrt()".to_string(),
        Method::Recip => "recip()".to_string(),
        Method::Asinh => "asinh()".to_string(),
        Method::Sinh => "sinh()".to_string(),
    }
}

/// `max`, `mul_add`: the name of a method of several operands.
fn method2_name(m: Method2) -> &'static str {
    match m {
        Method2::Max => "max",
        Method2::Min => "min",
        Method2::Hypot => "hypot",
        Method2::Atan2 => "atan2",
        Method2::Powf => "powf",
        Method2::MulAdd => "mul_add",
        Method2::Copysign => "copysign",
        Method2::Clamp => "clamp",
    }
}

/// The text of an assigned place.
fn place(p: &Place) -> String {
    match p {
        Place::Var(v) => v.clone(),
        Place::Index(a, i) => format!("{a}[{}]", iexpr(i, 0)),
        Place::Index2(m, i, j) => format!("{m}[{}][{}]", iexpr(i, 0), iexpr(j, 0)),
    }
}

fn assign_sym(op: AssignOp) -> &'static str {
    match op {
        AssignOp::Set => "",
        AssignOp::Add => "+",
        AssignOp::Sub => "-",
        AssignOp::Mul => "*",
    }
}

fn cmp_sym(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Gt => ">",
        CmpOp::Le => "<=",
        CmpOp::Ge => ">=",
    }
}

/// The pattern of an iterator-chain `for` (`--sugar`).
fn loop_pat(p: &LoopPat) -> String {
    match p {
        LoopPat::Int(v) => v.clone(),
        LoopPat::Float(v) => format!("&{v}"),
        LoopPat::Pair(a, b) => format!("({}, {})", loop_pat(a), loop_pat(b)),
    }
}

/// An iterator chain (`--sugar`).
fn chain(c: &Chain) -> String {
    let mut s = match &c.source {
        Source::Range(lo, hi, inclusive) => {
            let dots = if *inclusive { "..=" } else { ".." };
            format!("({}{dots}{})", iexpr(lo, 1), iexpr(hi, 1))
        }
        Source::Iter(a) => format!("{a}.iter()"),
    };
    for a in &c.adapters {
        match a {
            Adapter::Rev => s.push_str(".rev()"),
            Adapter::StepBy(k) => {
                let _ = write!(s, ".step_by({k})");
            }
            Adapter::Enumerate => s.push_str(".enumerate()"),
            Adapter::Zip(inner) => {
                let _ = write!(s, ".zip({})", chain(inner));
            }
        }
    }
    s
}

/// Prints an integer expression; `ctx` 0 is a top level, 1 an operand of a range or a comparison, 2 the right
/// operand of `-`, 3 an operand of `%`, 7 the operand of `as`.
pub fn iexpr(e: &IExpr, ctx: u8) -> String {
    let (s, prec) = match e {
        IExpr::Var(v) => (v.clone(), 9),
        IExpr::Lit(k) => (k.to_string(), 9),
        IExpr::Len(a) => (format!("{a}.len()"), 9),
        IExpr::Add(a, b) => (format!("{} + {}", iexpr(a, 1), iexpr(b, 2)), 1),
        IExpr::Sub(a, b) => (format!("{} - {}", iexpr(a, 1), iexpr(b, 2)), 1),
        IExpr::Rem(a, k) => (format!("{} % {k}", iexpr(a, 3)), 3),
    };
    if prec < ctx {
        format!("({s})")
    } else {
        s
    }
}

/// Is `e` made of float literals alone (no variable, element, call or cast)?
fn only_literals(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Neg(e) | Expr::Method(_, e) => only_literals(e),
        Expr::Bin(_, a, b) => only_literals(a) && only_literals(b),
        Expr::Method2(_, a, args) => only_literals(a) && args.iter().all(only_literals),
        _ => false,
    }
}

/// Whether the bytes of `name` sum to an even number: a fixed choice between two spellings of one
/// program, which draws no random numbers (a seed's programs stay as they were, spelled either way).
fn name_parity(name: &str) -> bool {
    name.bytes().map(usize::from).sum::<usize>() % 2 == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::generate_with;

    #[test]
    fn printed_programs_parse() {
        for seed in 1..4 {
            for id in 0..40 {
                let p = generate_with(seed, id, true);
                for mode in [Mode::Macro, Mode::Plain, Mode::Oracle] {
                    let src = print_program(&p, mode);
                    if let Err(e) = syn::parse_file(&src) {
                        panic!("seed {seed} program {id} ({mode:?}) does not parse: {e}\n{src}");
                    }
                }
                let module = crate::harness::program_module(&p, "p0");
                syn::parse_file(&module)
                    .unwrap_or_else(|e| panic!("the check module does not parse: {e}\n{module}"));
                syn::parse_file(&crate::harness::oracle_module(&p))
                    .expect("the oracle module parses");
            }
        }
    }

    /// The methods of several operands appear in generated programs, each printed as a method call.
    #[test]
    fn methods_of_several_operands_are_generated() {
        let mut seen = std::collections::BTreeSet::new();
        for seed in 1..4 {
            for id in 0..60 {
                let src = print_program(&generate_with(seed, id, false), Mode::Macro);
                for name in [
                    ".max(",
                    ".min(",
                    ".hypot(",
                    ".atan2(",
                    ".powf(",
                    ".mul_add(",
                ] {
                    if src.contains(name) {
                        seen.insert(name);
                    }
                }
            }
        }
        assert_eq!(seen.len(), 6, "only {seen:?}");
    }

    /// Counts float literals outside `T::from(..)`.
    struct BareFloats(usize);

    impl<'ast> syn::visit::Visit<'ast> for BareFloats {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            let is_from = matches!(&*call.func, syn::Expr::Path(p) if p.path.segments.len() == 2
                && p.path.segments[0].ident == "T" && p.path.segments[1].ident == "from");
            if !is_from {
                syn::visit::visit_expr_call(self, call);
            }
        }
        fn visit_lit_float(&mut self, _: &'ast syn::LitFloat) {
            self.0 += 1;
        }
    }

    #[test]
    fn oracle_copy_has_no_attributes_and_only_generic_literals() {
        for id in 0..40 {
            let p = generate_with(1, id, true);
            let src = print_program(&p, Mode::Oracle);
            assert!(!src.contains("#["));
            let file = syn::parse_file(&src).expect("parses");
            let mut bare = BareFloats(0);
            syn::visit::Visit::visit_file(&mut bare, &file);
            assert_eq!(bare.0, 0, "a float literal outside T::from in\n{src}");
        }
    }

    #[test]
    fn main_parses() {
        let src = crate::harness::main_rs(
            &[("p0".into(), 0), ("p1".into(), 1)],
            &["p0".into(), "p1".into()],
        );
        syn::parse_file(&src).expect("main.rs parses");
        syn::parse_file(crate::harness::SUPPORT).expect("support.rs parses");
    }
}
