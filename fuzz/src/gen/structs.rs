//! `--structs`: programs over `#[derive(Differentiable)]` structs and `#[differentiable]` methods (API.md,
//! "Methods and parameter structs"), which the other generators do not write:
//!
//! - one struct `S` (fields: a float `a`, a `Vec<f64>` `w`, maybe an array `[f64; N]` `arr`, maybe a
//!   nested struct `inner: N`, maybe `#[no_grad]` fields: a count `n: usize`, a float `c`, a flag `on`),
//!   the nested `N` (a float `b`, a `Vec` or array `v`, maybe a `#[no_grad]` count `k`);
//! - helpers: a free `hs(xs: &[f64], s: f64)` passed a field (`&p.w`, `&self.arr`), an associated
//!   `S::h(u, s)` called `Self::h(..)` inside the `impl`, a method of the nested struct `N::nm(&self, s)`
//!   with `wrt(self, s)` called `p.inner.nm(..)`, a free `hn(q: &N, s)` passed `&p.inner`, a method
//!   `S::m(&self, s)` with `wrt(self, s)` called `self.m(..)`/`p.m(..)`, a free `hp(p: &S, s)` passed the
//!   struct whole (`hp(self, ..)`, `hp(p, ..)`, `hp(&p, ..)`);
//! - the checked function: a free `f(p: &S, x, xs)` or `f(p: S, ..)` with default activity, `wrt(p)`,
//!   `wrt(p, x)` or `wrt(x, xs)` (the struct constant), or a method `f(&self, x, xs)` with `wrt(self)`,
//!   `wrt(self, x)`, `wrt(self, x, xs)` or `wrt(x)` (`self` constant); `order = 2` in one program of four
//!   (then a method's `self` differentiated).
//!
//! The bodies are the generator's statements and expressions (`Gen::block`, `Gen::expr`) over the field
//! reads (`p.a`, `p.w[i]`, `for &v in &self.inner.v`, `0..p.n`, the `#[no_grad]` float `p.c`) and the
//! calls above as [`Stmt::Raw`] text. The oracle is a generic twin of each struct (`OracleS<T>`, its
//! `#[no_grad]` float a `T` built with a zero tangent) and of each function and method, run on `Dual`
//! numbers as for the other modes: `_grad` (the struct gradient flattened by a function written here, not
//! by `to_flat`, which is also compared), `_vjp`, `_jvp` (a struct tangent), and at `order = 2` `_hvp` and
//! `_hessian`. The gradient's `#[no_grad]` fields must be the primal's.

use super::*;
use std::fmt::Write;

/// A field of a generated struct.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldKind {
    /// `f64`
    Float,
    /// `Vec<f64>` of this length.
    Vec(usize),
    /// `[f64; N]`
    Arr(usize),
    /// The nested struct `N`.
    Nested,
    /// `#[no_grad] usize`, always this value.
    Count(usize),
    /// `#[no_grad] f64`, always this value.
    Const(f64),
    /// `#[no_grad] bool`, always this value.
    Flag(bool),
}

/// A struct: `S` or the nested `N`.
#[derive(Clone, Debug, PartialEq)]
pub struct SDef {
    pub name: String,
    pub fields: Vec<(String, FieldKind)>,
}

/// A parameter of a generated function.
#[derive(Clone, Debug, PartialEq)]
pub enum SParam {
    /// `&self` (a method).
    SelfRef,
    /// `name: &S` (or `name: S` by value where set).
    Struct(String, String, bool),
    /// `name: f64`
    Scalar(String),
    /// `name: &[f64]` of this length.
    Slice(String, usize),
}

impl SParam {
    fn name(&self) -> &str {
        match self {
            SParam::SelfRef => "self",
            SParam::Struct(n, ..) | SParam::Scalar(n) | SParam::Slice(n, _) => n,
        }
    }
}

/// A generated function or method.
#[derive(Clone, Debug, PartialEq)]
pub struct SFunc {
    pub name: String,
    /// The `impl` it is in (`S`, `N`), or `None` for a free function.
    pub owner: Option<String>,
    pub params: Vec<SParam>,
    pub wrt: Option<Vec<String>>,
    pub order2: bool,
    pub body: Vec<Stmt>,
    pub tail: Expr,
}

/// A `--structs` program: the structs, the helpers and last the checked function.
#[derive(Clone, Debug, PartialEq)]
pub struct StructProgram {
    pub defs: Vec<SDef>,
    pub funcs: Vec<SFunc>,
}

/// Generates program number `id` of a `--structs` run with the given seed.
pub fn generate_structs(seed: u64, id: usize) -> Program {
    let mut rng = Rng::new(
        seed.wrapping_mul(0x1000_0001)
            .wrapping_add(id as u64)
            .wrapping_add(0x57C7_5EED),
    );
    let mut g = Gen {
        rng: rng.fork(),
        fresh: 0,
        forms: false,
        sugar: false,
        scalar_refs: Vec::new(),
    };
    let sp = g.structs_program();
    Program {
        id,
        funcs: Vec::new(),
        nested: Vec::new(),
        structs: Some(Box::new(sp)),
    }
}

/// What a body can call: the helpers made so far.
#[derive(Clone, Debug, Default)]
struct Made {
    hs: Option<usize>,
    h: bool,
    nm: bool,
    hn: bool,
    m: bool,
    /// `m`'s body passes a field of `self` on whole (`hs(&self.w, ..)`, `N::nm(&self.inner, ..)`).
    m_whole: bool,
    hp: bool,
}

impl Gen {
    fn structs_program(&mut self) -> StructProgram {
        let nested = self.rng.chance(0.5);
        let mut defs = Vec::new();
        if nested {
            let mut fields = vec![("b".to_string(), FieldKind::Float)];
            let lv = self.rng.range(2, 3);
            fields.push((
                "v".to_string(),
                if self.rng.chance(0.5) {
                    FieldKind::Vec(lv)
                } else {
                    FieldKind::Arr(lv)
                },
            ));
            if self.rng.chance(0.4) {
                fields.push(("k".to_string(), FieldKind::Count(self.rng.range(1, 2))));
            }
            defs.push(SDef {
                name: "N".into(),
                fields,
            });
        }
        let lw = self.rng.range(2, 4);
        let mut fields = vec![
            ("a".to_string(), FieldKind::Float),
            ("w".to_string(), FieldKind::Vec(lw)),
        ];
        if self.rng.chance(0.5) {
            fields.push(("arr".to_string(), FieldKind::Arr(self.rng.range(2, 3))));
        }
        if nested {
            fields.push(("inner".to_string(), FieldKind::Nested));
        }
        if self.rng.chance(0.4) {
            fields.push(("n".to_string(), FieldKind::Count(self.rng.range(1, 2))));
        }
        if self.rng.chance(0.4) {
            fields.push(("c".to_string(), FieldKind::Const(0.75)));
        }
        if self.rng.chance(0.3) {
            fields.push(("on".to_string(), FieldKind::Flag(self.rng.chance(0.5))));
        }
        // Fields of `S` are shuffled a little: the nested struct first sometimes.
        if nested && self.rng.chance(0.3) {
            let k = fields
                .iter()
                .position(|f| f.1 == FieldKind::Nested)
                .unwrap_or(0);
            let f = fields.remove(k);
            fields.insert(0, f);
        }
        defs.push(SDef {
            name: "S".into(),
            fields,
        });
        let order2 = self.rng.chance(0.25);
        let mut made = Made::default();
        let mut funcs = Vec::new();
        let s = ParamsOf::S;
        // hs(xs: &[f64], s: f64), called with fields of its length.
        if self.rng.chance(0.6) {
            let body_scope = slice_scope(lw);
            let (body, tail) = self.s_body(body_scope, &made, None, &defs, 2);
            funcs.push(SFunc {
                name: "hs".into(),
                owner: None,
                params: vec![SParam::Slice("xs".into(), lw), SParam::Scalar("s".into())],
                wrt: None,
                order2: {
                    // (The draw kept: a seed's other programs stay as they were.)
                    let _ = self.rng.chance(0.3);
                    order2
                },
                body,
                tail,
            });
            made.hs = Some(lw);
        }
        // Self::h(u, s), scalars only.
        if self.rng.chance(0.4) {
            let mut sc = Scope::default();
            for n in ["u", "s"] {
                sc.floats.push(FloatVar {
                    name: n.into(),
                    mutable: false,
                    ambiguous: false,
                });
            }
            let (body, tail) = self.s_body(sc, &Made::default(), None, &defs, 1);
            funcs.push(SFunc {
                name: "h".into(),
                owner: Some("S".into()),
                params: vec![SParam::Scalar("u".into()), SParam::Scalar("s".into())],
                wrt: None,
                order2,
                body,
                tail,
            });
            made.h = true;
        }
        if nested {
            // N::nm(&self, s) with wrt(self, s).
            if self.rng.chance(0.5) {
                let sc = struct_scope(&defs, "N", "self", &["s"], &[]);
                let (body, tail) = self.s_body(sc, &Made::default(), None, &defs, 2);
                funcs.push(SFunc {
                    name: "nm".into(),
                    owner: Some("N".into()),
                    params: vec![SParam::SelfRef, SParam::Scalar("s".into())],
                    wrt: Some(vec!["self".into(), "s".into()]),
                    order2,
                    body,
                    tail,
                });
                made.nm = true;
            }
            // hn(q: &N, s).
            if self.rng.chance(0.5) {
                let sc = struct_scope(&defs, "N", "q", &["s"], &[]);
                let (body, tail) = self.s_body(sc, &Made::default(), None, &defs, 2);
                funcs.push(SFunc {
                    name: "hn".into(),
                    owner: None,
                    params: vec![
                        SParam::Struct("q".into(), "N".into(), false),
                        SParam::Scalar("s".into()),
                    ],
                    wrt: None,
                    order2,
                    body,
                    tail,
                });
                made.hn = true;
            }
        }
        // S::m(&self, s) with wrt(self, s).
        if self.rng.chance(0.5) {
            let sc = struct_scope(&defs, "S", "self", &["s"], &[]);
            let (body, tail) = self.s_body(sc, &made, Some(("self", s, true)), &defs, 3);
            made.m_whole = body
                .iter()
                .any(|st| matches!(st, Stmt::Raw { text, .. } if text.contains("(&self.")));
            funcs.push(SFunc {
                name: "m".into(),
                owner: Some("S".into()),
                params: vec![SParam::SelfRef, SParam::Scalar("s".into())],
                wrt: Some(vec!["self".into(), "s".into()]),
                order2: {
                    // (The draw kept: a seed's other programs stay as they were.)
                    let _ = self.rng.chance(0.3);
                    order2
                },
                body,
                tail,
            });
            made.m = true;
        }
        // hp(p: &S, s), the struct passed whole.
        if self.rng.chance(0.5) {
            let sc = struct_scope(&defs, "S", "p", &["s"], &[]);
            let (body, tail) = self.s_body(sc, &made, Some(("p", s, false)), &defs, 3);
            funcs.push(SFunc {
                name: "hp".into(),
                owner: None,
                params: vec![
                    SParam::Struct("p".into(), "S".into(), false),
                    SParam::Scalar("s".into()),
                ],
                wrt: None,
                order2,
                body,
                tail,
            });
            made.hp = true;
        }
        // The checked function.
        let lx = self.rng.range(2, 3);
        let with_xs = self.rng.chance(0.5);
        let method = self.rng.chance(0.45);
        let by_value = !method && self.rng.chance(0.3);
        let sv = if method { "self" } else { "p" };
        let mut params = vec![if method {
            SParam::SelfRef
        } else {
            SParam::Struct("p".into(), "S".into(), by_value)
        }];
        params.push(SParam::Scalar("x".into()));
        if with_xs {
            params.push(SParam::Slice("xs".into(), lx));
        }
        // At `order = 2` a method's `self` may be constant while it passes `self` or its fields on whole
        // (`hp(self, ..)`, `hs(&self.w, ..)`, `N::nm(&self.inner, ..)`: methods37), a free function's
        // struct too (its view passed to the helpers undifferentiated), and every helper has `order = 2`
        // too (a helper written for `f64` without it has no generic copy where its body takes a reference
        // to iterate, `for &v in &p.arr`, or passes `self` on whole: a spanned error at the call).
        let draw = self.rng.range(0, 3);
        let draw = if method && draw == 2 && !with_xs {
            1
        } else {
            draw
        };
        let wrt: Option<Vec<&str>> = match (method, draw) {
            (false, 0) => None,
            (false, 1) => Some(vec!["p"]),
            (false, 2) => Some(vec!["p", "x"]),
            (false, _) => Some(if with_xs { vec!["x", "xs"] } else { vec!["x"] }),
            (true, 0) => Some(vec!["self"]),
            (true, 1) => Some(vec!["self", "x"]),
            (true, 2) if with_xs => Some(vec!["self", "x", "xs"]),
            (true, _) => Some(vec!["x"]),
        };
        let xs_param = [("xs", lx)];
        let sc = struct_scope(
            &defs,
            "S",
            sv,
            &["x"],
            if with_xs { &xs_param[..] } else { &[] },
        );
        // (A method keeping `self` constant at `order = 2` does not call `hp(self, ..)`: `hp`'s copy with
        // its struct constant is made only where it surely compiles, which its generated bodies often do
        // not (one passing its struct or a field on whole; seed 37208 p48: a body with `S::h(..)` by a
        // path, a `zip` of a field with itself, a `match` on a count): one spanned error at the call,
        // tests/ui/signature/order-method-constant-self-to-struct-function.rs.)
        let self_constant = method && !wrt.as_ref().is_some_and(|w| w.contains(&"self"));
        // (Nor `self.m(..)` where `m` passes a field of `self` on whole: `m`'s copy with a constant `self`
        // cannot pass the field on, one spanned error at the call by design; seed 48008 p28,
        // tests/ui/signature/order-callee-passing-a-field-on-whole.rs, `outer_constant`.)
        let made = Made {
            hp: made.hp && !(order2 && self_constant),
            m: made.m && !(order2 && self_constant && made.m_whole),
            ..made
        };
        let (body, tail) = self.s_body(sc, &made, Some((sv, s, method || !by_value)), &defs, 5);
        funcs.push(SFunc {
            name: "f".into(),
            owner: if method { Some("S".into()) } else { None },
            params,
            wrt: wrt.map(|w| w.iter().map(|s| s.to_string()).collect()),
            order2,
            body,
            tail,
        });
        StructProgram { defs, funcs }
    }

    /// A body over `scope`: `let mut acc = ..;`, statements, calls of the helpers `made` (from the struct
    /// named `sv`, a reference where set), statements again, and a value.
    fn s_body(
        &mut self,
        mut scope: Scope,
        made: &Made,
        sv: Option<(&str, ParamsOf, bool)>,
        defs: &[SDef],
        budget: usize,
    ) -> (Vec<Stmt>, Expr) {
        let ctx = Ctx::top(false, false, Vec::new());
        let mut stmts = Vec::new();
        let init = self.expr(&scope, &ctx, 1);
        stmts.push(raw("let mut acc: $T = {0};", vec![init]));
        scope.floats.push(FloatVar {
            name: "acc".into(),
            mutable: true,
            ambiguous: false,
        });
        let mut b = budget;
        let want = self.rng.range(1, budget);
        stmts.extend(self.block(&mut scope, &ctx, &mut b, want));
        if let Some((sv, _, is_ref)) = sv {
            let whole = if sv == "self" || is_ref {
                sv.to_string()
            } else {
                format!("&{sv}")
            };
            let mut calls: Vec<String> = Vec::new();
            if let Some(len) = made.hs {
                for (name, kind) in &field_list(defs, "S") {
                    match kind {
                        FieldKind::Vec(l) | FieldKind::Arr(l) if *l == len => {
                            calls.push(format!("@hs(&{sv}.{name}, {{0}})"))
                        }
                        FieldKind::Nested => {
                            for (n2, k2) in &field_list(defs, "N") {
                                if matches!(k2, FieldKind::Vec(l) | FieldKind::Arr(l) if *l == len)
                                {
                                    calls.push(format!("@hs(&{sv}.{name}.{n2}, {{0}})"));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            if made.h {
                calls.push(if sv == "self" {
                    "Self::h({0}, {1})".to_string()
                } else {
                    "$S::h({0}, {1})".to_string()
                });
            }
            if made.nm {
                // `p.inner.nm(..)` is refused (a spanned error: call it by its path).
                calls.push(format!("$N::nm(&{sv}.inner, {{0}})"));
            }
            if made.hn {
                calls.push(format!("@hn(&{sv}.inner, {{0}})"));
            }
            if made.m {
                calls.push(if sv == "self" {
                    "self.m({0})".to_string()
                } else {
                    format!("$S::m({whole}, {{0}})")
                });
                // `p.m(..)` outside the `impl` of `p: &S` is the call by the path (`method_paths.rs`);
                // of `p: S` by value it is refused (a spanned error: call it by its path).
                if is_ref {
                    calls.push(format!("{sv}.m({{0}})"));
                }
            }
            if made.hp {
                calls.push(format!("@hp({whole}, {{0}})"));
            }
            if !calls.is_empty() {
                for _ in 0..self.rng.range(1, 3) {
                    let call = self.rng.pick(&calls).clone();
                    // (`Self::h(2.8, 1.2)` of constants only in a `wrt(self, ..)` method is generated
                    // too: it compiles since 118d3c5.)
                    let a0 = self.expr(&scope, &ctx, 1);
                    let a1 = self.expr(&scope, &ctx, 1);
                    let c = self.name("c");
                    stmts.push(raw(format!("let {c}: $T = {call};"), vec![a0, a1]));
                    scope.floats.push(FloatVar {
                        name: c,
                        mutable: false,
                        ambiguous: false,
                    });
                }
            }
            // The flag and the no_grad float as conditions.
            for (name, kind) in &field_list(defs, "S") {
                match kind {
                    FieldKind::Flag(_) if self.rng.chance(0.7) => {
                        let e0 = self.expr(&scope, &ctx, 1);
                        let e1 = self.expr(&scope, &ctx, 1);
                        stmts.push(raw(
                            format!("acc = acc + if {sv}.{name} {{ {{0}} }} else {{ {{1}} }};"),
                            vec![e0, e1],
                        ));
                    }
                    FieldKind::Const(_) if self.rng.chance(0.4) => {
                        let e0 = self.expr(&scope, &ctx, 1);
                        stmts.push(raw(
                            format!("if {sv}.{name} > $H {{ acc = acc * ({{0}}); }}"),
                            vec![e0],
                        ));
                    }
                    _ => {}
                }
            }
            let want = self.rng.range(0, 2);
            let mut b = 2;
            stmts.extend(self.block(&mut scope, &ctx, &mut b, want));
        }
        let tail = self.tail(&scope, &ctx);
        let tail = Expr::Bin(
            BinOp::Add,
            Box::new(Expr::Var("acc".into())),
            Box::new(tail),
        );
        (stmts, tail)
    }
}

/// Which struct a body's receiver is (only `S` calls helpers).
#[derive(Clone, Copy, Debug)]
enum ParamsOf {
    S,
}

fn raw(text: impl Into<String>, exprs: Vec<Expr>) -> Stmt {
    Stmt::Raw {
        text: text.into(),
        exprs,
    }
}

fn field_list(defs: &[SDef], name: &str) -> Vec<(String, FieldKind)> {
    defs.iter()
        .find(|d| d.name == name)
        .map(|d| d.fields.clone())
        .unwrap_or_default()
}

fn slice_scope(len: usize) -> Scope {
    let mut sc = Scope::default();
    sc.arrays.push(ArrayVar {
        name: "xs".into(),
        len,
        local: false,
        frozen: false,
        ambiguous: false,
        fixed: false,
    });
    sc.floats.push(FloatVar {
        name: "s".into(),
        mutable: false,
        ambiguous: false,
    });
    sc
}

/// The scope of a body reading struct `ty` through `sv` (`self`, `p`, `q`), with float and slice
/// parameters.
fn struct_scope(
    defs: &[SDef],
    ty: &str,
    sv: &str,
    floats: &[&str],
    slices: &[(&str, usize)],
) -> Scope {
    let mut sc = Scope::default();
    for f in floats {
        sc.floats.push(FloatVar {
            name: f.to_string(),
            mutable: false,
            ambiguous: false,
        });
    }
    for (n, l) in slices {
        sc.arrays.push(ArrayVar {
            name: n.to_string(),
            len: *l,
            local: false,
            frozen: false,
            ambiguous: false,
            fixed: false,
        });
    }
    add_fields(defs, ty, sv, &mut sc);
    sc
}

fn add_fields(defs: &[SDef], ty: &str, prefix: &str, sc: &mut Scope) {
    for (name, kind) in field_list(defs, ty) {
        let path = format!("{prefix}.{name}");
        match kind {
            FieldKind::Float | FieldKind::Const(_) => sc.floats.push(FloatVar {
                name: path,
                mutable: false,
                ambiguous: false,
            }),
            FieldKind::Vec(len) | FieldKind::Arr(len) => sc.arrays.push(ArrayVar {
                name: path,
                len,
                local: false,
                frozen: false,
                ambiguous: false,
                fixed: false,
            }),
            FieldKind::Nested => add_fields(defs, "N", &path, sc),
            FieldKind::Count(v) => sc.ints.push(IntVar {
                name: path,
                lo: v,
                hi: v,
            }),
            FieldKind::Flag(_) => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Printing and the check.

use crate::print::{print_body, Mode};

fn oracle_ty(name: &str) -> String {
    format!("Oracle{name}")
}

fn print_defs(sp: &StructProgram, mode: Mode) -> String {
    let mut s = String::new();
    for d in &sp.defs {
        let (name, t) = match mode {
            Mode::Oracle => (format!("{}<T>", oracle_ty(&d.name)), "T"),
            _ => (d.name.clone(), "f64"),
        };
        match mode {
            Mode::Oracle => s.push_str("#[derive(Clone, Debug)]\n"),
            _ => s.push_str("#[derive(Clone, Debug, Differentiable)]\n"),
        }
        let _ = writeln!(s, "pub struct {name} {{");
        for (f, k) in &d.fields {
            let no_grad = matches!(
                k,
                FieldKind::Count(_) | FieldKind::Const(_) | FieldKind::Flag(_)
            );
            if no_grad && mode != Mode::Oracle {
                s.push_str("    #[no_grad]\n");
            }
            let ty = match k {
                FieldKind::Float => t.to_string(),
                FieldKind::Vec(_) => format!("Vec<{t}>"),
                FieldKind::Arr(l) => format!("[{t}; {l}]"),
                FieldKind::Nested => match mode {
                    Mode::Oracle => format!("{}<T>", oracle_ty("N")),
                    _ => "N".into(),
                },
                FieldKind::Count(_) => "usize".into(),
                // The oracle's constant float is a `T` with a zero tangent.
                FieldKind::Const(_) => t.to_string(),
                FieldKind::Flag(_) => "bool".into(),
            };
            let _ = writeln!(s, "    pub {f}: {ty},");
        }
        s.push_str("}\n\n");
    }
    s
}

fn print_func(f: &SFunc, mode: Mode) -> String {
    let oracle = mode == Mode::Oracle;
    let t = if oracle { "T" } else { "f64" };
    let mut s = String::new();
    if !oracle {
        let mut args = Vec::new();
        if let Some(w) = &f.wrt {
            args.push(format!("wrt({})", w.join(", ")));
        }
        if f.order2 {
            args.push("order = 2".into());
        }
        if args.is_empty() {
            s.push_str("#[differentiable]\n");
        } else {
            let _ = writeln!(s, "#[differentiable({})]", args.join(", "));
        }
    }
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| match p {
            SParam::SelfRef => "&self".to_string(),
            SParam::Struct(n, ty, by_value) => {
                let ty = if oracle {
                    format!("{}<T>", oracle_ty(ty))
                } else {
                    ty.clone()
                };
                if *by_value {
                    format!("{n}: {ty}")
                } else {
                    format!("{n}: &{ty}")
                }
            }
            SParam::Scalar(n) => format!("{n}: {t}"),
            SParam::Slice(n, _) => format!("{n}: &[{t}]"),
        })
        .collect();
    let name = if oracle && f.owner.is_none() {
        format!("{}_oracle", f.name)
    } else {
        f.name.clone()
    };
    // Methods of the oracle's generic impl are not generic themselves.
    let generics = if oracle && f.owner.is_none() {
        "<T: Float>"
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "pub fn {name}{generics}({}) -> {t} {{",
        params.join(", ")
    );
    let body = print_body(&f.body, &f.tail, mode);
    let (s_name, n_name) = if oracle {
        (oracle_ty("S"), oracle_ty("N"))
    } else {
        ("S".into(), "N".into())
    };
    s.push_str(&body.replace("$S", &s_name).replace("$N", &n_name));
    s.push_str("}\n");
    s
}

/// The functions and the `impl` blocks of a program in the given flavour.
fn print_items(sp: &StructProgram, mode: Mode) -> String {
    let oracle = mode == Mode::Oracle;
    let mut s = print_defs(sp, mode);
    for f in sp.funcs.iter().filter(|f| f.owner.is_none()) {
        s.push_str(&print_func(f, mode));
        s.push('\n');
    }
    for d in &sp.defs {
        let methods: Vec<&SFunc> = sp
            .funcs
            .iter()
            .filter(|f| f.owner.as_deref() == Some(&d.name))
            .collect();
        if methods.is_empty() {
            continue;
        }
        if oracle {
            let _ = writeln!(s, "impl<T: Float> {}<T> {{", oracle_ty(&d.name));
        } else {
            let _ = writeln!(s, "impl {} {{", d.name);
        }
        for f in methods {
            for l in print_func(f, mode).lines() {
                let _ = writeln!(s, "    {l}");
            }
        }
        s.push_str("}\n\n");
    }
    s
}

/// The source of the `#[differentiable]` copy of a `--structs` program (without `use` lines).
pub fn macro_source(sp: &StructProgram) -> String {
    print_items(sp, Mode::Macro)
}

/// The oracle module of a `--structs` program.
pub fn oracle_module(sp: &StructProgram) -> String {
    let mut s = String::from(
        "//! The oracle copy (no macro).\n#![allow(clippy::all)]\nuse autodiff::Float;\n\n",
    );
    s.push_str(&print_items(sp, Mode::Oracle));
    // Builds an oracle struct from the flattened values (the no_grad fields their constants, the
    // constant float with a zero tangent through `konst`).
    for d in &sp.defs {
        let _ = writeln!(
            s,
            "pub fn make_{}<T: Float>(flat: &[T], konst: impl Fn(f64) -> T + Copy) -> ({}<T>, usize) {{\n    let mut at = 0;",
            d.name.to_lowercase(),
            oracle_ty(&d.name)
        );
        let mut inits = Vec::new();
        for (f, k) in &d.fields {
            match k {
                FieldKind::Float => {
                    let _ = writeln!(s, "    let {f} = flat[at];\n    at += 1;");
                }
                FieldKind::Vec(l) => {
                    let _ = writeln!(
                        s,
                        "    let {f} = flat[at..at + {l}].to_vec();\n    at += {l};"
                    );
                }
                FieldKind::Arr(l) => {
                    let _ = writeln!(
                        s,
                        "    let {f}: [T; {l}] = core::array::from_fn(|j| flat[at + j]);\n    at += {l};"
                    );
                }
                FieldKind::Nested => {
                    let _ = writeln!(
                        s,
                        "    let ({f}, used) = make_n(&flat[at..], konst);\n    at += used;"
                    );
                }
                FieldKind::Count(v) => {
                    let _ = writeln!(s, "    let {f}: usize = {v};");
                }
                FieldKind::Const(c) => {
                    let _ = writeln!(s, "    let {f} = konst({c:?});");
                }
                FieldKind::Flag(b) => {
                    let _ = writeln!(s, "    let {f} = {b};");
                }
            }
            inits.push(f.clone());
        }
        let _ = writeln!(
            s,
            "    ({} {{ {} }}, at)\n}}\n",
            oracle_ty(&d.name),
            inits.join(", ")
        );
    }
    s
}

/// The number of differentiable floats of struct `name`.
fn flat_len(defs: &[SDef], name: &str) -> usize {
    field_list(defs, name)
        .iter()
        .map(|(_, k)| match k {
            FieldKind::Float => 1,
            FieldKind::Vec(l) | FieldKind::Arr(l) => *l,
            FieldKind::Nested => flat_len(defs, "N"),
            _ => 0,
        })
        .sum()
}

/// Functions of the program module: `make_s(flat, alt) -> S` (with `alt`, a tangent's: its `#[no_grad]`
/// float and flag other than the primal's, which contribute nothing), `flat_s(&S) -> Vec<f64>` and
/// `nograd_s(&S, &S) -> bool` (the no_grad fields equal), written field by field (no derive code).
fn plain_helpers(sp: &StructProgram) -> String {
    let mut s = String::new();
    for d in &sp.defs {
        let lower = d.name.to_lowercase();
        let _ = writeln!(
            s,
            "fn make_{lower}(flat: &[f64], alt: bool) -> ({}, usize) {{\n    let mut at = 0;",
            d.name
        );
        let mut inits = Vec::new();
        let mut flat = String::new();
        let mut same = vec!["true".to_string()];
        for (f, k) in &d.fields {
            match k {
                FieldKind::Float => {
                    let _ = writeln!(s, "    let {f} = flat[at];\n    at += 1;");
                    let _ = writeln!(flat, "    out.push(v.{f});");
                }
                FieldKind::Vec(l) => {
                    let _ = writeln!(
                        s,
                        "    let {f} = flat[at..at + {l}].to_vec();\n    at += {l};"
                    );
                    let _ = writeln!(flat, "    out.extend_from_slice(&v.{f});");
                    same.push(format!("a.{f}.len() == {l}"));
                }
                FieldKind::Arr(l) => {
                    let _ = writeln!(
                        s,
                        "    let {f}: [f64; {l}] = core::array::from_fn(|j| flat[at + j]);\n    at += {l};"
                    );
                    let _ = writeln!(flat, "    out.extend_from_slice(&v.{f});");
                }
                FieldKind::Nested => {
                    let _ = writeln!(
                        s,
                        "    let ({f}, used) = make_n(&flat[at..], alt);\n    at += used;"
                    );
                    let _ = writeln!(flat, "    out.extend(flat_n(&v.{f}));");
                    same.push(format!("nograd_n(&a.{f}, &b.{f})"));
                }
                FieldKind::Count(v) => {
                    let _ = writeln!(s, "    let {f}: usize = {v};");
                    same.push(format!("a.{f} == b.{f}"));
                }
                FieldKind::Const(c) => {
                    let _ = writeln!(
                        s,
                        "    let {f}: f64 = if alt {{ {c:?} + 2.5 }} else {{ {c:?} }};"
                    );
                    same.push(format!("a.{f} == b.{f}"));
                }
                FieldKind::Flag(b) => {
                    let _ = writeln!(s, "    let {f} = if alt {{ !{b} }} else {{ {b} }};");
                    same.push(format!("a.{f} == b.{f}"));
                }
            }
            inits.push(f.clone());
        }
        let _ = writeln!(s, "    ({} {{ {} }}, at)\n}}\n", d.name, inits.join(", "));
        let _ = writeln!(
            s,
            "fn flat_{lower}(v: &{}) -> Vec<f64> {{\n    let mut out = Vec::new();\n{flat}    out\n}}\n",
            d.name
        );
        let _ = writeln!(
            s,
            "/// The no_grad fields of `a` (a gradient) are those of `b` (the primal), and its Vecs have their lengths.\nfn nograd_{lower}(a: &{0}, b: &{0}) -> bool {{\n    {1}\n}}\n",
            d.name,
            same.join(" && ")
        );
    }
    s
}

/// The program module of a `--structs` program: the `#[differentiable]` copy and its `check`.
pub fn program_module(sp: &StructProgram, id: usize, module: &str) -> String {
    let mut s = format!(
        "//! Program {id} of the run.\nuse autodiff::{{differentiable, Differentiable, Float}};\nuse crate::support::*;\n\n"
    );
    s.push_str(&macro_source(sp));
    s.push_str(&plain_helpers(sp));
    s.push_str(&check_fn(sp, module));
    s
}

fn check_fn(sp: &StructProgram, module: &str) -> String {
    let f = sp.funcs.last().expect("a main function");
    let ns = flat_len(&sp.defs, "S");
    let active: Vec<&SParam> = f
        .params
        .iter()
        .filter(|p| match &f.wrt {
            Some(w) => w.iter().any(|n| n == p.name()),
            None => !matches!(p, SParam::SelfRef),
        })
        .collect();
    let len_of = |p: &SParam| match p {
        SParam::SelfRef | SParam::Struct(..) => ns,
        SParam::Scalar(_) => 1,
        SParam::Slice(_, l) => *l,
    };
    let nin: usize = active.iter().map(|p| len_of(p)).sum();
    // Where each parameter's values start in the direction vector, if active.
    let mut off = 0;
    let mut offs = Vec::new();
    for p in &f.params {
        if active.iter().any(|a| a.name() == p.name()) {
            offs.push(Some(off));
            off += len_of(p);
        } else {
            offs.push(None);
        }
    }
    let method = f.owner.is_some();
    let mut s = String::new();
    s.push_str(
        "\n/// Checks every generated item of `f` against the dual oracle.\npub fn check(rng: &mut Rng) -> Result<Vec<f64>, String> {\n    let mut grads = Vec::new();\n    for point in 0..3 {\n",
    );
    let _ = writeln!(
        s,
        "        let sflat: Vec<f64> = rng.vec({ns});\n        let (p, _) = make_s(&sflat, false);\n        let x: f64 = rng.f();"
    );
    let has_xs = f.params.iter().any(|p| matches!(p, SParam::Slice(..)));
    let lx = f
        .params
        .iter()
        .find_map(|p| match p {
            SParam::Slice(_, l) => Some(*l),
            _ => None,
        })
        .unwrap_or(0);
    if has_xs {
        let _ = writeln!(s, "        let xs: Vec<f64> = rng.vec({lx});");
    }
    let by_value = matches!(f.params[0], SParam::Struct(_, _, true));
    let rest = if has_xs { "x, &xs" } else { "x" };
    // How the generated items are called: `p.f_grad(..)`, `f_grad(&p, ..)`.
    let call = |item: &str, extra: &str| -> String {
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!(", {extra}")
        };
        if method {
            format!("p.{item}({rest}{extra})")
        } else if by_value {
            format!("{item}(p.clone(), {rest}{extra})")
        } else {
            format!("{item}(&p, {rest}{extra})")
        }
    };
    let _ = writeln!(
        s,
        "        let at = format!(\"point {{point}}: p = {{p:?}}, x = {{x:?}}{}\");",
        if has_xs { ", xs = {xs:?}" } else { "" }
    );
    // The oracle's inputs from a direction (and a Hessian-vector direction at second order).
    let oracle_call = |second: bool| -> (String, String) {
        let mk = |re: &str, j: Option<String>| match (second, j) {
            (false, Some(j)) => format!("d1({re}, dir[{j}])"),
            (false, None) => format!("d1({re}, 0.0)"),
            (true, Some(j)) => format!("d2({re}, hv_dir[{j}], dir[{j}])"),
            (true, None) => format!("d2({re}, 0.0, 0.0)"),
        };
        let konst = if second {
            "|c: f64| d2(c, 0.0, 0.0)"
        } else {
            "|c: f64| d1(c, 0.0)"
        };
        let mut lets = String::new();
        let mut args = Vec::new();
        for (p, o) in f.params.iter().zip(&offs) {
            match p {
                SParam::SelfRef | SParam::Struct(..) => {
                    let e = mk("sflat[j]", o.map(|o| format!("{o} + j")));
                    let _ = writeln!(
                        lets,
                        "            let sd: Vec<_> = (0..{ns}).map(|j| {e}).collect();\n            let (pd, _) = crate::{module}_oracle::make_s(&sd, {konst});"
                    );
                    if !matches!(p, SParam::SelfRef) {
                        args.push(if by_value { "pd" } else { "&pd" }.to_string());
                    }
                }
                SParam::Scalar(n) => {
                    let _ = writeln!(
                        lets,
                        "            let {n}_d = {};",
                        mk(n, o.map(|o| o.to_string()))
                    );
                    args.push(format!("{n}_d"));
                }
                SParam::Slice(n, l) => {
                    let e = mk(&format!("{n}[j]"), o.map(|o| format!("{o} + j")));
                    let _ = writeln!(
                        lets,
                        "            let {n}_d: Vec<_> = (0..{l}).map(|j| {e}).collect();"
                    );
                    args.push(format!("&{n}_d"));
                }
            }
        }
        let callee = if method {
            format!("pd.{}", f.name)
        } else {
            format!("crate::{module}_oracle::{}_oracle", f.name)
        };
        (lets, format!("{callee}({})", args.join(", ")))
    };
    let (lets, oc) = oracle_call(false);
    let _ = write!(
        s,
        "        reset_non_finite();\n        let (vals, jac) = oracle(|| jacobian({nin}, 1, |dir: &[f64]| {{\n{lets}            vec![{oc}]\n        }}))?;\n"
    );
    s.push_str("        if skip_non_finite() {\n            continue;\n        }\n");
    s.push_str("        if !finite(&vals) || jac.iter().any(|row| !finite(row)) {\n            continue;\n        }\n");
    let _ = writeln!(
        s,
        "        let v = {};\n        compare(\"value of f\", &[v], &vals, &at)?;",
        call("f", "")
    );
    // The gradient's parts, flattened.
    let names: Vec<String> = (0..active.len()).map(|k| format!("g{k}")).collect();
    let pat = if names.len() == 1 {
        names[0].clone()
    } else {
        format!("({})", names.join(", "))
    };
    let flatten = |prefix: &str, into: &str, check_nograd: bool| -> String {
        let mut out = format!("let mut {into}: Vec<f64> = Vec::new();\n");
        for (k, p) in active.iter().enumerate() {
            let n = format!("{prefix}{k}");
            match p {
                SParam::SelfRef | SParam::Struct(..) => {
                    let _ = writeln!(out, "        {into}.extend(flat_s(&{n}));");
                    if check_nograd {
                        let _ = writeln!(
                            out,
                            "        if !nograd_s(&{n}, &p) {{ return Err(format!(\"{prefix} no_grad fields or lengths: {{{n}:?}} at {{at}}\")); }}\n        compare(\"to_flat of {prefix}\", &{n}.to_flat(), &flat_s(&{n}), &at)?;"
                        );
                    }
                }
                SParam::Scalar(_) => {
                    let _ = writeln!(out, "        {into}.push({n});");
                }
                SParam::Slice(..) => {
                    let _ = writeln!(out, "        {into}.extend_from_slice(&{n});");
                }
            }
        }
        out
    };
    let gflat = flatten("g", "flat", true);
    let _ = write!(
        s,
        "        let (v, {pat}) = {};\n        {gflat}        compare(\"value of f_grad\", &[v], &vals, &at)?;\n        compare(\"f_grad\", &flat, &jac[0], &at)?;\n        grads.extend_from_slice(&flat);\n",
        call("f_grad", "")
    );
    let _ = write!(
        s,
        "        let dr = rng.f();\n        let (v, {pat}) = {};\n        {gflat}        compare(\"value of f_vjp\", &[v], &vals, &at)?;\n        let want: Vec<f64> = jac[0].iter().map(|j| dr * j).collect();\n        compare(\"f_vjp\", &flat, &want, &format!(\"{{at}}, d_ret = {{dr:?}}\"))?;\n",
        call("f_vjp", "dr")
    );
    // A tangent shaped like the gradient: a struct tangent whose no_grad fields are the primal's.
    let mut tnames = Vec::new();
    for (k, p) in active.iter().enumerate() {
        match p {
            SParam::SelfRef | SParam::Struct(..) => {
                let _ = writeln!(s, "        let (tg{k}, _) = make_s(&rng.vec({ns}), true);");
                tnames.push(format!("tg{k}.clone()"));
            }
            SParam::Scalar(_) => {
                let _ = writeln!(s, "        let tg{k}: f64 = rng.f();");
                tnames.push(format!("tg{k}"));
            }
            SParam::Slice(_, l) => {
                let _ = writeln!(s, "        let tg{k}: Vec<f64> = rng.vec({l});");
                tnames.push(format!("tg{k}.clone()"));
            }
        }
    }
    let tangent = if tnames.len() == 1 {
        tnames[0].clone()
    } else {
        format!("({})", tnames.join(", "))
    };
    let tflat = flatten("tg", "tflat", false);
    let _ = write!(
        s,
        "        {tflat}        let (v, tv) = {};\n        compare(\"value of f_jvp\", &[v], &vals, &at)?;\n        compare(\"f_jvp\", &[tv], &[dot(&jac[0], &tflat)], &format!(\"{{at}}, tangent = {{tflat:?}}\"))?;\n",
        call("f_jvp", &tangent)
    );
    if f.order2 {
        let hnames: Vec<String> = (0..active.len()).map(|k| format!("hv{k}")).collect();
        let hpat = if hnames.len() == 1 {
            hnames[0].clone()
        } else {
            format!("({})", hnames.join(", "))
        };
        let hflat = flatten("hv", "hflat", false);
        let _ = write!(
            s,
            "        let hv_dir = tflat.clone();\n        let (want, scales) = oracle(|| hvp({nin}, &hv_dir, |dir: &[f64]| {{\n{}        }}))?;\n        let (v, {pat}, {hpat}) = {};\n        {gflat}        {hflat}        compare(\"value of f_hvp\", &[v], &vals, &at)?;\n        compare(\"gradient of f_hvp\", &flat, &jac[0], &at)?;\n        if finite(&want) {{\n            compare_hvp(\"f_hvp\", &hflat, &want, &scales, &format!(\"{{at}}, v = {{tflat:?}}\"))?;\n        }}\n",
            {
                let (l, c) = oracle_call(true);
                format!("{l}            {c}\n")
            },
            call("f_hvp", &tangent)
        );
        // The full Hessian, column by column against the oracle's products with the unit vectors.
        let _ = write!(
            s,
            "        let (v, {pat}, hess) = {};\n        {gflat}        compare(\"value of f_hessian\", &[v], &vals, &at)?;\n        compare(\"gradient of f_hessian\", &flat, &jac[0], &at)?;\n        if hess.len() != {nin} || hess.iter().any(|r| r.len() != {nin}) {{\n            return Err(format!(\"f_hessian: shape {{}} rows instead of {nin} at {{at}}\", hess.len()));\n        }}\n        for col in 0..{nin} {{\n            let mut hv_dir = vec![0.0; {nin}];\n            hv_dir[col] = 1.0;\n            let (want, scales) = oracle(|| hvp({nin}, &hv_dir, |dir: &[f64]| {{\n{}            }}))?;\n            let got: Vec<f64> = hess.iter().map(|r| r[col]).collect();\n            if finite(&want) {{\n                compare_hvp(\"f_hessian column\", &got, &want, &scales, &format!(\"{{at}}, column {{col}}\"))?;\n            }}\n        }}\n",
            call("f_hessian", ""),
            {
                let (l, c) = oracle_call(true);
                format!("{l}                {c}\n")
            }
        );
    }
    s.push_str("    }\n    Ok(grads)\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_programs_are_deterministic_and_print_both_copies() {
        for id in 0..30 {
            let a = generate_structs(30101, id);
            assert_eq!(a, generate_structs(30101, id), "program {id}");
            let sp = a.structs.as_deref().expect("a --structs program");
            let main = sp.funcs.last().expect("a checked function");
            assert_eq!(main.name, "f");
            let source = macro_source(sp);
            assert!(source.contains("#[derive(Clone, Debug, Differentiable)]\npub struct S {"));
            let oracle = oracle_module(sp);
            assert!(
                oracle.contains("pub struct OracleS<T> {") && !oracle.contains("#[differentiable")
            );
            // Every `$S`/`$N` placeholder is replaced in both copies.
            assert!(
                !source.contains('$') && !oracle.contains('$'),
                "program {id}"
            );
            // At `order = 2` every helper has it too.
            if main.order2 {
                assert!(sp.funcs.iter().all(|f| f.order2));
            }
        }
    }
}
