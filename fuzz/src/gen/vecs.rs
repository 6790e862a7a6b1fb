//! `--vecs`: programs over local `Vec`s used as stacks and slice locals rebound to other windows, the
//! forms of sessions 25 to 27 that the other generators do not write, mixed adversarially:
//!
//! - local `Vec`s made by `Vec::new()`, `Vec::with_capacity(k)`, `vec![..]`, `vec![c; k]`, `xs.to_vec()`
//!   or `.collect()` at the top of the body, with `push` of active values and of constants interleaved,
//!   under branches and in loops (also over windows, chunks and drained stacks, and loops left by
//!   `break`), `pop()` as `.unwrap()`, `.expect(..)`, `.unwrap_or(d)`, `if let Some(v) = s.pop()`,
//!   `while let Some(v) = s.pop()`, `let Some(v) = s.pop() else { break | continue | return .. };` and
//!   the statement `s.pop();`, `*s.last().unwrap()`, `*s.first().unwrap()`, reads and writes by index
//!   after pushes and pops, `s.len()` as a loop bound;
//! - `Vec`s made empty (`Vec::new()`, `with_capacity`, `.collect()`) in a loop or branch body and used
//!   there by the same forms, up to two such bodies deep (`region`);
//! - slice locals rebound in loops to other windows or sources (`let mut v = &xs[..k]; for t in .. {
//!   ..; v = &ys[t..]; }`), also to a window of a sub-slice (`v = &xs[1..][t..t + 2];`), `.windows(k)`,
//!   `.chunks(k)`, `.iter().rev()`, `max_by`/`min_by` with `partial_cmp`, `.copied().fold(..)`,
//!   `.last()`/`.first()` with a default, over the parameters, locals, stacks and sub-slices whose bounds
//!   are names or literals (`xs[1..]`, `xs[k1..]`, `xs[..n]`, `xs[1..3]`), and integer `.max()`/`.min()`
//!   for bounds;
//! - the slice parameter `xs` declared `mut` and rebound to sub-slices of itself (`while xs.len() > 3 {
//!   ..; xs = &xs[1..]; }`) in about a third of the programs;
//! - `order = 2` in about one program of eight.
//!
//! The generator tracks the least and greatest length each stack can have at each point (pushes under
//! a branch widen it), so that every `.unwrap()`, index and window it writes is in bounds at every input:
//! the programs never panic. The statements are written as [`Stmt::Raw`] text around generated float
//! expressions, so the shrinker can drop statements and simplify the expressions, but not rewrite the
//! forms themselves.

use super::*;

/// A local `Vec` used as a stack: its name and the least and greatest length it can have here.
#[derive(Clone, Debug)]
struct Stack {
    name: String,
    lo: usize,
    hi: usize,
}

/// A sequence a view, a window loop or an iterator chain can read: its text (`xs`, `st3`, `loc2`,
/// `xs[k1..]`), the least length it has and the greatest.
#[derive(Clone, Debug)]
struct Seq {
    text: String,
    len: usize,
    max: usize,
    /// A stack (not to be pushed while it is read).
    stack: Option<usize>,
    /// A sub-slice expression (`xs[1..]`, `xs[..k2]`, `xs[1..3]`), whose bounds are names or literals.
    sub: bool,
    /// A sub-slice expression whose range has no end (`xs[1..]`, `xs[k2..]`): a view may be rebound to
    /// a window of it (`view = &xs[1..][t..t + 2];`).
    open: bool,
}

fn raw(text: impl Into<String>, exprs: Vec<Expr>) -> Stmt {
    Stmt::Raw {
        text: text.into(),
        exprs,
    }
}

fn raw_block(head: impl Into<String>, exprs: Vec<Expr>, body: Vec<Stmt>) -> Stmt {
    Stmt::RawBlock {
        head: head.into(),
        exprs,
        body,
    }
}

fn var(name: &str) -> Expr {
    Expr::Var(name.to_string())
}

fn mul(a: Expr, b: Expr) -> Expr {
    Expr::Bin(BinOp::Mul, Box::new(a), Box::new(b))
}

fn add(a: Expr, b: Expr) -> Expr {
    Expr::Bin(BinOp::Add, Box::new(a), Box::new(b))
}

/// Generates program number `id` of a `--vecs` run with the given seed.
pub fn generate_vecs(seed: u64, id: usize) -> Program {
    let mut rng = Rng::new(
        seed.wrapping_mul(0x1000_0001)
            .wrapping_add(id as u64)
            .wrapping_add(0x7EC5_0B1A),
    );
    let mut g = Gen {
        rng: rng.fork(),
        fresh: 0,
        forms: false,
        sugar: false,
        scalar_refs: Vec::new(),
    };
    g.vecs_program(id)
}

/// The state of a body being generated.
struct Body {
    scope: Scope,
    ctx: Ctx,
    stacks: Vec<Stack>,
    /// Read-only local sequences (`loc3`), with their lengths.
    locals: Vec<(String, usize)>,
    acc: String,
    stmts: Vec<Stmt>,
    /// Helpers taking `(xs: &[f64], s: f64)`, with the length they read.
    helpers: Vec<(String, usize)>,
    /// How many loop or branch bodies making their own `Vec` (`region`) enclose the statements made now.
    depth: usize,
    /// Whether the slice parameter `xs` may be rebound to a sub-slice of itself (`mut xs: &[f64]`), and
    /// whether it was.
    rebinds: bool,
    rebound: bool,
    /// Whether a view of `xs` is alive to the end of the body: `xs` is not rebound after it (a view
    /// whose source is assigned in its scope is copied, and panics at a window of another length).
    viewed: bool,
}

impl Gen {
    fn vecs_program(&mut self, id: usize) -> Program {
        let generic = self.rng.chance(0.15);
        let order2 = self.rng.chance(0.125);
        let lx = self.rng.range(3, 6);
        let mut params = vec![Param {
            name: "a".into(),
            kind: ParamKind::Scalar,
        }];
        if self.rng.chance(0.5) {
            params.push(Param {
                name: "b".into(),
                kind: ParamKind::Scalar,
            });
        }
        params.push(Param {
            name: "xs".into(),
            kind: ParamKind::Slice(lx),
        });
        if self.rng.chance(0.5) {
            let ly = self.rng.range(2, 4);
            params.push(Param {
                name: "ys".into(),
                kind: ParamKind::Slice(ly),
            });
        }
        if self.rng.chance(0.3) {
            let n = self.rng.range(1, 3);
            params.push(Param {
                name: "n".into(),
                kind: ParamKind::Int(n),
            });
        }
        let ctx = Ctx::top(generic, false, Vec::new());
        let scope = Scope::of_params(&params);
        let acc = "acc".to_string();
        let mut b = Body {
            scope,
            ctx,
            stacks: Vec::new(),
            locals: Vec::new(),
            acc: acc.clone(),
            stmts: Vec::new(),
            helpers: Vec::new(),
            depth: 0,
            rebinds: false,
            rebound: false,
            viewed: false,
        };
        b.rebinds = self.rng.chance(0.3);
        // Helpers taking a slice, which the body passes stacks, views, locals and sub-slices.
        let mut funcs = Vec::new();
        if self.rng.chance(0.4) {
            // At least 2: the loops the helper's body makes over its slice may end at `len - 1`.
            let len = self.rng.range(2, 3);
            let name = "h0".to_string();
            let ps = vec![
                Param {
                    name: "xs".into(),
                    kind: ParamKind::Slice(len),
                },
                Param {
                    name: "s".into(),
                    kind: ParamKind::Scalar,
                },
            ];
            let hctx = Ctx {
                generic: generic || order2,
                ..b.ctx.clone()
            };
            let stmts = self.rng.range(2, 4);
            funcs.push(self.func(
                name.clone(),
                generic || order2,
                FnKind::Differentiable {
                    order2: false,
                    wrt: None,
                },
                ps,
                hctx,
                stmts,
            ));
            b.helpers.push((name, len));
        }
        let init = self.expr(&b.scope, &b.ctx, 1);
        b.stmts
            .push(raw(format!("let mut {acc}: $T = {{0}};"), vec![init]));
        for _ in 0..self.rng.range(1, 2) {
            self.make_stack(&mut b);
        }
        if self.rng.chance(0.4) {
            self.make_local(&mut b);
        }
        if self.rng.chance(0.3) {
            self.int_bound(&mut b);
        }
        let episodes = self.rng.range(4, 9);
        for _ in 0..episodes {
            self.episode(&mut b);
        }
        // Most stacks are read at the end, so that what they hold reaches the result.
        for k in 0..b.stacks.len() {
            if self.rng.chance(0.7) {
                self.read_all(&mut b, k);
            }
        }
        let tail = if self.rng.chance(0.7) {
            var(&acc)
        } else {
            let e = self.expr(&b.scope, &b.ctx, 1);
            add(var(&acc), e)
        };
        funcs.push(Func {
            name: "f".into(),
            generic,
            kind: FnKind::Differentiable { order2, wrt: None },
            params,
            body: b.stmts,
            tail: vec![tail],
            mut_slices: if b.rebound {
                vec!["xs".to_string()]
            } else {
                Vec::new()
            },
            param_styles: Vec::new(),
            result_array: false,
        });
        Program {
            id,
            funcs,
            nested: Vec::new(),
            structs: None,
        }
    }

    /// An active float expression (mentioning a parameter or a variable in scope).
    fn active(&mut self, b: &Body, extra: &[&str]) -> Expr {
        let mut scope = b.scope.clone();
        for v in extra {
            scope.floats.push(FloatVar {
                name: v.to_string(),
                mutable: false,
                ambiguous: false,
            });
        }
        let e = self.expr(&scope, &b.ctx, 2);
        // The generated expression may be constant (literals only): make it active and typed.
        let anchor = match extra.first() {
            Some(v) if self.rng.chance(0.8) => var(v),
            _ => var("a"),
        };
        match self.rng.weighted(&[3, 3, 2, 1]) {
            0 => mul(anchor, e),
            1 => add(anchor, e),
            2 => mul(Expr::Method(Method::Sin, Box::new(anchor)), e),
            _ => add(
                mul(anchor.clone(), anchor),
                Expr::Method(Method::Tanh, Box::new(e)),
            ),
        }
    }

    /// A value to push: active most of the time, else a constant.
    fn pushed(&mut self, b: &Body, extra: &[&str]) -> Expr {
        if self.rng.chance(0.35) {
            Expr::Lit(self.lit())
        } else {
            self.active(b, extra)
        }
    }

    /// `let mut stK ..` at the top of the body.
    fn make_stack(&mut self, b: &mut Body) {
        let name = self.name("st");
        let lx = b.scope.arrays[0].len;
        // In a loop or branch body, only empty (`vec![..]`, `vec![c; k]`, `xs.to_vec()` made there and
        // pushed or popped are refused with a spanned error).
        let weights = if b.depth == 0 {
            [3, 2, 2, 2, 2, 2]
        } else {
            [3, 2, 2, 0, 0, 0]
        };
        let (lo, stmts) = match self.rng.weighted(&weights) {
            0 => (
                0,
                vec![raw(
                    format!("let mut {name}: Vec<$T> = Vec::new();"),
                    vec![],
                )],
            ),
            1 => {
                let e = self.active(b, &[]);
                (
                    1,
                    vec![
                        raw(format!("let mut {name} = Vec::new();"), vec![]),
                        raw(format!("{name}.push({{0}});"), vec![e]),
                    ],
                )
            }
            2 => {
                let k = self.rng.range(1, 6);
                (
                    0,
                    vec![raw(
                        format!("let mut {name}: Vec<$T> = Vec::with_capacity({k});"),
                        vec![],
                    )],
                )
            }
            3 => {
                let k = self.rng.range(1, 3);
                let mut es = vec![self.active(b, &[])];
                for _ in 1..k {
                    let e = self.pushed(b, &[]);
                    es.push(e);
                }
                let holes: Vec<String> = (0..k).map(|i| format!("{{{i}}}")).collect();
                (
                    k,
                    vec![raw(
                        format!("let mut {name} = vec![{}];", holes.join(", ")),
                        es,
                    )],
                )
            }
            4 => {
                let k = self.rng.range(1, 3);
                let c = Expr::Lit(self.lit());
                (
                    k,
                    vec![raw(
                        format!("let mut {name}: Vec<$T> = vec![{{0}}; {k}];"),
                        vec![c],
                    )],
                )
            }
            _ => (
                lx,
                vec![raw(format!("let mut {name} = xs.to_vec();"), vec![])],
            ),
        };
        b.stmts.extend(stmts);
        b.stacks.push(Stack { name, lo, hi: lo });
    }

    /// A read-only local sequence (`let locK = vec![..];` or `[..]`), for views and chains.
    fn make_local(&mut self, b: &mut Body) {
        let name = self.name("loc");
        let k = self.rng.range(2, 4);
        let es: Vec<Expr> = (0..k).map(|_| self.active(b, &[])).collect();
        let holes: Vec<String> = (0..k).map(|i| format!("{{{i}}}")).collect();
        let text = if self.rng.chance(0.5) {
            format!("let {name} = vec![{}];", holes.join(", "))
        } else {
            format!("let {name} = [{}];", holes.join(", "))
        };
        b.stmts.push(raw(text, es));
        b.locals.push((name, k));
    }

    /// `let kK = xs.len().min(3);` and the like: an integer bound in scope, with its value.
    fn int_bound(&mut self, b: &mut Body) {
        let name = self.name("k");
        let lx = b.scope.arrays[0].len;
        let n = b.scope.ints.iter().find(|i| i.name == "n").map(|i| i.lo);
        let ly = b
            .scope
            .arrays
            .iter()
            .find(|a| a.name == "ys")
            .map(|a| a.len);
        let c = self.rng.range(1, 4);
        let (text, value) = match (self.rng.range(0, 3), n, ly) {
            (1, Some(n), _) => ("n.max(1).min(xs.len())".to_string(), n.max(1).min(lx)),
            (2, _, Some(ly)) => ("xs.len().min(ys.len())".to_string(), lx.min(ly)),
            (3, _, _) => (
                format!("(xs.len() - 1).max({c}).min(xs.len())"),
                (lx - 1).max(c).min(lx),
            ),
            _ => (format!("xs.len().min({c})"), lx.min(c)),
        };
        b.stmts.push(raw(format!("let {name} = {text};"), vec![]));
        b.scope.ints.push(IntVar {
            name,
            lo: value,
            hi: value,
        });
    }

    /// The sequences that can be read here, with at least `min` elements.
    fn seqs(&self, b: &Body, min: usize) -> Vec<Seq> {
        let mut out: Vec<Seq> = b
            .scope
            .arrays
            .iter()
            .map(|a| Seq {
                text: a.name.clone(),
                len: a.len,
                max: a.len,
                stack: None,
                sub: false,
                open: false,
            })
            .collect();
        for (name, len) in &b.locals {
            out.push(Seq {
                text: name.clone(),
                len: *len,
                max: *len,
                stack: None,
                sub: false,
                open: false,
            });
        }
        let sub = |text: String, len: usize, max: usize, open: bool| Seq {
            text,
            len,
            max,
            stack: None,
            sub: true,
            open,
        };
        for a in &b.scope.arrays {
            if a.len >= 2 {
                out.push(sub(format!("{}[1..]", a.name), a.len - 1, a.len - 1, true));
            }
        }
        for (k, s) in b.stacks.iter().enumerate() {
            out.push(Seq {
                text: s.name.clone(),
                len: s.lo,
                max: s.hi,
                stack: Some(k),
                sub: false,
                open: false,
            });
        }
        // Sub-slices whose bounds are names (`xs[k1..]`, `xs[..n]`) or literals (`xs[1..3]`): the first
        // array's, and the others' by a literal range.
        for (j, a) in b.scope.arrays.iter().enumerate() {
            if j == 0 {
                for v in &b.scope.ints {
                    if v.hi < a.len {
                        out.push(sub(
                            format!("{}[{}..]", a.name, v.name),
                            a.len - v.hi,
                            a.len - v.lo,
                            true,
                        ));
                    }
                    if v.lo >= 1 && v.hi <= a.len {
                        out.push(sub(format!("{}[..{}]", a.name, v.name), v.lo, v.hi, false));
                    }
                }
            }
            if a.len >= 3 {
                out.push(sub(format!("{}[1..3]", a.name), 2, 2, false));
            }
        }
        out.retain(|s| s.len >= min);
        out
    }

    fn add_to_acc(&mut self, b: &Body, e: Expr) -> Stmt {
        let acc = &b.acc;
        let place = Place::Var(acc.clone());
        match self.rng.range(0, 3) {
            0 => Stmt::Assign {
                place,
                op: AssignOp::Add,
                value: e,
            },
            1 => Stmt::Assign {
                place,
                op: AssignOp::Sub,
                value: e,
            },
            2 => {
                let c = Expr::Lit(self.rng.range(3, 9) as f64 / 10.0);
                raw(format!("{acc} = {acc} * {{0}} + {{1}};"), vec![c, e])
            }
            _ => raw(format!("{acc} = {acc} + {{0}};"), vec![e]),
        }
    }

    /// One statement (or a few) over the stacks or the views.
    fn episode(&mut self, b: &mut Body) {
        let k = self.rng.range(0, b.stacks.len() - 1);
        let lo = b.stacks[k].lo;
        let w = [
            4,                                        // 0 push
            4,                                        // 1 pushes in a loop
            3,                                        // 2 pushes under a branch
            if lo >= 1 { 4 } else { 0 },              // 3 pop unwrapped
            3,                                        // 4 if let pop
            1,                                        // 5 while let drain
            2,                                        // 6 s.pop();
            if lo >= 1 { 3 } else { 0 },              // 7 last / first
            if lo >= 1 { 3 } else { 0 },              // 8 index read / write
            2,                                        // 9 len loop
            if lo >= 1 { 2 } else { 0 },              // 10 pop and push back in a loop
            2,                                        // 11 if let pop in a loop
            4,                                        // 12 view rebound
            2,                                        // 13 windows / chunks
            2,                                        // 14 rev
            3,                                        // 15 max_by / min_by
            2,                                        // 16 copied fold
            3,                                        // 17 pushes and pops in one loop
            3,                                        // 18 reads after a push in a loop
            if lo >= 1 { 2 } else { 0 },              // 19 while len > k, pop
            2,                                        // 20 drain re-pushing a few
            2,                                        // 21 nested loop pushes
            if b.helpers.is_empty() { 0 } else { 4 }, // 22 a helper passed a sequence
            3,                                        // 23 first / last with a default
            2,                                        // 24 pop with a default
            2,                                        // 25 let-else pop
            [4, 2, 0][b.depth.min(2)],                // 26 a body making its own Vec
            if b.rebinds && !b.viewed && b.depth == 0 && b.scope.arrays[0].len >= 4 {
                3
            } else {
                0
            }, // 27 xs rebound to a sub-slice of itself
        ];
        match self.rng.weighted(&w) {
            0 => {
                let e = self.pushed(b, &[]);
                let name = &b.stacks[k].name;
                b.stmts.push(raw(format!("{name}.push({{0}});"), vec![e]));
                b.stacks[k].lo += 1;
                b.stacks[k].hi += 1;
            }
            1 => self.loop_push(b, k),
            2 => {
                let cond = self.cond(&b.scope, &b.ctx);
                let name = b.stacks[k].name.clone();
                let t = self.rng.range(0, 2);
                let then: Vec<Stmt> = (0..t)
                    .map(|_| {
                        let e = self.pushed(b, &[]);
                        raw(format!("{name}.push({{0}});"), vec![e])
                    })
                    .collect();
                let (e_count, els) = if self.rng.chance(0.5) {
                    let c = self.rng.range(0, 2);
                    let mut v: Vec<Stmt> = (0..c)
                        .map(|_| {
                            let e = self.pushed(b, &[]);
                            raw(format!("{name}.push({{0}});"), vec![e])
                        })
                        .collect();
                    if self.rng.chance(0.3) {
                        let e = self.active(b, &[]);
                        v.push(self.add_to_acc(b, e));
                    }
                    (c, Some(v))
                } else {
                    (0, None)
                };
                b.stmts.push(Stmt::If { cond, then, els });
                b.stacks[k].lo += t.min(e_count);
                b.stacks[k].hi += t.max(e_count);
            }
            3 => {
                let p = self.name("p");
                let name = b.stacks[k].name.clone();
                let how = if self.rng.chance(0.7) {
                    ".unwrap()"
                } else {
                    ".expect(\"in bounds\")"
                };
                b.stmts
                    .push(raw(format!("let {p} = {name}.pop(){how};"), vec![]));
                b.stacks[k].lo -= 1;
                b.stacks[k].hi -= 1;
                let e = self.active(b, &[&p]);
                b.stmts.push(self.add_to_acc(b, e));
                if self.rng.chance(0.3) {
                    // A push into the slot given back.
                    let e = self.pushed(b, &[&p]);
                    b.stmts.push(raw(format!("{name}.push({{0}});"), vec![e]));
                    b.stacks[k].lo += 1;
                    b.stacks[k].hi += 1;
                }
            }
            4 => {
                let p = self.name("p");
                let name = b.stacks[k].name.clone();
                let e = self.active(b, &[&p]);
                let then = vec![self.add_to_acc(b, e)];
                b.stmts.push(raw_block(
                    format!("if let Some({p}) = {name}.pop()"),
                    vec![],
                    then,
                ));
                b.stacks[k].lo = b.stacks[k].lo.saturating_sub(1);
                b.stacks[k].hi = b.stacks[k].hi.saturating_sub(1);
            }
            5 => {
                let p = self.name("p");
                let name = b.stacks[k].name.clone();
                let mut body = Vec::new();
                let other =
                    (b.stacks.len() > 1 && self.rng.chance(0.4)).then(|| (k + 1) % b.stacks.len());
                if let Some(o) = other {
                    let e = self.pushed(b, &[&p]);
                    let oname = b.stacks[o].name.clone();
                    body.push(raw(format!("{oname}.push({{0}});"), vec![e]));
                    let (lo, hi) = (b.stacks[k].lo, b.stacks[k].hi);
                    b.stacks[o].lo += lo;
                    b.stacks[o].hi += hi;
                } else {
                    let e = self.active(b, &[&p]);
                    let c = Expr::Lit(self.rng.range(3, 9) as f64 / 10.0);
                    let acc = &b.acc;
                    body.push(raw(format!("{acc} = {acc} * {{0}} + {{1}};"), vec![c, e]));
                }
                b.stmts.push(raw_block(
                    format!("while let Some({p}) = {name}.pop()"),
                    vec![],
                    body,
                ));
                b.stacks[k].lo = 0;
                b.stacks[k].hi = 0;
            }
            6 => {
                let name = &b.stacks[k].name;
                b.stmts.push(raw(format!("{name}.pop();"), vec![]));
                b.stacks[k].lo = b.stacks[k].lo.saturating_sub(1);
                b.stacks[k].hi = b.stacks[k].hi.saturating_sub(1);
            }
            7 => {
                let name = b.stacks[k].name.clone();
                let end = if self.rng.chance(0.5) {
                    "last"
                } else {
                    "first"
                };
                let read = match self.rng.range(0, 2) {
                    0 => format!("*{name}.{end}().unwrap()"),
                    1 => format!("{name}.{end}().copied().unwrap()"),
                    _ => format!("*{name}.{end}().expect(\"not empty\")"),
                };
                let q = self.name("q");
                b.stmts.push(raw(format!("let {q} = {read};"), vec![]));
                let e = self.active(b, &[&q]);
                b.stmts.push(self.add_to_acc(b, e));
            }
            8 => {
                let name = b.stacks[k].name.clone();
                let i = self.rng.range(0, b.stacks[k].lo - 1);
                let write = self.rng.chance(0.3);
                let index = if !write && self.rng.chance(0.3) && b.stacks[k].lo == b.stacks[k].hi {
                    // From the end, by `len()`.
                    format!("{name}.len() - {}", b.stacks[k].lo - i)
                } else {
                    i.to_string()
                };
                if write {
                    let e = self.active(b, &[]);
                    let op = *self
                        .rng
                        .pick(&[AssignOp::Set, AssignOp::Add, AssignOp::Mul]);
                    let e = if op == AssignOp::Mul {
                        Expr::Method(Method::Tanh, Box::new(e))
                    } else {
                        e
                    };
                    // The index as text: `IExpr::Var` prints a name as it is.
                    b.stmts.push(Stmt::Assign {
                        place: Place::Index(name, IExpr::Var(index)),
                        op,
                        value: e,
                    });
                } else {
                    let q = self.name("q");
                    b.stmts
                        .push(raw(format!("let {q} = {name}[{index}];"), vec![]));
                    let e = self.active(b, &[&q]);
                    b.stmts.push(self.add_to_acc(b, e));
                }
            }
            9 => {
                let name = b.stacks[k].name.clone();
                let i = self.name("i");
                let q = self.name("q");
                let mut body = vec![raw(format!("let {q} = {name}[{i}];"), vec![])];
                let e = self.active(b, &[&q]);
                let e = if self.rng.chance(0.4) {
                    mul(e, Expr::Cast(IExpr::Var(i.clone())))
                } else {
                    e
                };
                body.push(self.add_to_acc(b, e));
                b.stmts.push(Stmt::For {
                    iter: ForIter::Range {
                        var: i,
                        lo: IExpr::Lit(0),
                        hi: IExpr::Len(name),
                        inclusive: false,
                        rev: self.rng.chance(0.3),
                        step: None,
                    },
                    body,
                });
            }
            10 => {
                let name = b.stacks[k].name.clone();
                let p = self.name("p");
                let reps = self.rng.range(1, 3);
                let e = self.active(b, &[&p]);
                let e = Expr::Method(Method::Tanh, Box::new(e));
                let mut body = vec![raw(format!("let {p} = {name}.pop().unwrap();"), vec![])];
                if self.rng.chance(0.4) {
                    let c = Expr::Lit(self.lit());
                    body.push(raw(format!("{name}.push({{0}});"), vec![c]));
                    body.push(raw(format!("{name}.pop();"), vec![]));
                }
                body.push(raw(format!("{name}.push({{0}});"), vec![e]));
                let e = self.active(b, &[&p]);
                if self.rng.chance(0.5) {
                    body.push(self.add_to_acc(b, e));
                }
                let hi = match b.scope.ints.iter().find(|i| i.name == "n") {
                    Some(_) if self.rng.chance(0.4) => IExpr::Var("n".into()),
                    _ => IExpr::Lit(reps),
                };
                b.stmts.push(Stmt::For {
                    iter: ForIter::Range {
                        var: "_".into(),
                        lo: IExpr::Lit(0),
                        hi,
                        inclusive: false,
                        rev: false,
                        step: None,
                    },
                    body,
                });
            }
            11 => {
                let name = b.stacks[k].name.clone();
                let p = self.name("p");
                let reps = self.rng.range(1, 3);
                let e = self.active(b, &[&p]);
                let body = vec![raw_block(
                    format!("if let Some({p}) = {name}.pop()"),
                    vec![],
                    vec![self.add_to_acc(b, e)],
                )];
                b.stmts.push(Stmt::For {
                    iter: ForIter::Range {
                        var: "_".into(),
                        lo: IExpr::Lit(0),
                        hi: IExpr::Lit(reps),
                        inclusive: false,
                        rev: false,
                        step: None,
                    },
                    body,
                });
                b.stacks[k].lo = b.stacks[k].lo.saturating_sub(reps);
                b.stacks[k].hi = b.stacks[k].hi.saturating_sub(reps);
            }
            12 => self.view(b),
            13 => self.windows(b, k),
            14 => {
                let seqs = self.seqs(b, 0);
                let s = self.rng.pick(&seqs).clone();
                let v = self.name("v");
                let e = self.active(b, &[&v]);
                let acc = &b.acc;
                let c = Expr::Lit(self.rng.range(3, 9) as f64 / 10.0);
                let body = vec![raw(format!("{acc} = {acc} * {{0}} + {{1}};"), vec![c, e])];
                b.stmts.push(raw_block(
                    format!("for &{v} in {}.iter().rev()", s.text),
                    vec![],
                    body,
                ));
            }
            15 => {
                // Also over a sub-slice expression whose bounds are names or literals
                // (`xs[1..].iter().max_by(..)`, `xs[..k1]`).
                let seqs = self.seqs(b, 1);
                let s = self.rng.pick(&seqs).clone();
                let m = self.name("m");
                let which = if self.rng.chance(0.5) {
                    "max_by"
                } else {
                    "min_by"
                };
                let text = match self.rng.range(0, 2) {
                    0 => format!(
                        "let {m} = *{}.iter().{which}(|p, q| p.partial_cmp(q).unwrap()).unwrap();",
                        s.text
                    ),
                    1 => format!(
                        "let {m} = {}.iter().copied().{which}(|p, q| p.partial_cmp(q).unwrap()).unwrap();",
                        s.text
                    ),
                    _ => format!(
                        "let {m} = *{}.iter().{which}(|p, q| p.partial_cmp(q).unwrap()).expect(\"not empty\");",
                        s.text
                    ),
                };
                b.stmts.push(raw(text, vec![]));
                let e = self.active(b, &[&m]);
                b.stmts.push(self.add_to_acc(b, e));
            }
            17 => self.mixed_loop(b, k),
            18 => self.read_after_push(b, k),
            19 => {
                let name = b.stacks[k].name.clone();
                let keep = self.rng.range(0, b.stacks[k].lo - 1);
                let p = self.name("p");
                let e = self.active(b, &[&p]);
                b.stmts.push(raw_block(
                    format!("while {name}.len() > {keep}"),
                    vec![],
                    vec![
                        raw(format!("let {p} = {name}.pop().unwrap();"), vec![]),
                        self.add_to_acc(b, e),
                    ],
                ));
                b.stacks[k].lo = keep;
                b.stacks[k].hi = keep.max(b.stacks[k].hi.min(keep));
            }
            20 => {
                let name = b.stacks[k].name.clone();
                let p = self.name("p");
                let c = self.name("c");
                let times = self.rng.range(1, 2);
                let e = self.active(b, &[&p]);
                let back = Expr::Method(Method::Tanh, Box::new(self.active(b, &[&p])));
                b.stmts.push(raw(format!("let mut {c} = 0;"), vec![]));
                b.stmts.push(raw_block(
                    format!("while let Some({p}) = {name}.pop()"),
                    vec![],
                    vec![
                        self.add_to_acc(b, e),
                        raw_block(
                            format!("if {c} < {times}"),
                            vec![],
                            vec![raw(format!("{name}.push({{0}});"), vec![back])],
                        ),
                        raw(format!("{c} += 1;"), vec![]),
                    ],
                ));
                b.stacks[k].lo = 0;
                b.stacks[k].hi = 0;
            }
            22 => {
                // The helper's body indexes its slice up to the length it was generated for: it is
                // passed a sequence of that length exactly (a stack whose length is known, or a window).
                let (h, len) = b.helpers[0].clone();
                let mut args: Vec<String> = Vec::new();
                for s in self.seqs(b, len) {
                    let exact = s.len == len && s.max == len;
                    if exact {
                        args.push(if s.sub || !is_slice_param(&s.text) {
                            format!("&{}", s.text)
                        } else {
                            s.text.clone()
                        });
                    } else if s.stack.is_some() {
                        // A window of a stack, as long as the stack is at least.
                        args.push(format!("&{}[..{len}]", s.text));
                    } else if !s.sub {
                        let start = self.rng.range(0, s.len - len);
                        args.push(format!("&{}[{start}..{}]", s.text, start + len));
                    }
                }
                if args.is_empty() {
                    return;
                }
                let arg = self.rng.pick(&args).clone();
                let hv = self.name("hv");
                let e = self.active(b, &[]);
                b.stmts
                    .push(raw(format!("let {hv} = @{h}({arg}, {{0}});"), vec![e]));
                let e = self.active(b, &[&hv]);
                b.stmts.push(self.add_to_acc(b, e));
            }
            23 => self.end_or(b),
            24 => {
                let name = b.stacks[k].name.clone();
                let p = self.name("p");
                let d = self.pushed(b, &[]);
                b.stmts.push(raw(
                    format!("let {p} = {name}.pop().unwrap_or({{0}});"),
                    vec![d],
                ));
                b.stacks[k].lo = b.stacks[k].lo.saturating_sub(1);
                b.stacks[k].hi = b.stacks[k].hi.saturating_sub(1);
                let e = self.active(b, &[&p]);
                b.stmts.push(self.add_to_acc(b, e));
            }
            25 => self.let_else(b, k),
            26 => self.region(b),
            27 => self.rebind(b),
            21 => {
                let name = b.stacks[k].name.clone();
                let i = self.name("i");
                let j = self.name("j");
                let lx = b.scope.arrays[0].len;
                let inner = self.rng.range(1, 2);
                let q = self.name("q");
                let e = self.pushed(b, &[&q]);
                let body = vec![raw_block(
                    format!("for {j} in 0..{inner}"),
                    vec![],
                    vec![
                        raw(format!("let {q} = xs[({i} + {j}) % xs.len()];"), vec![]),
                        raw(format!("{name}.push({{0}});"), vec![e]),
                    ],
                )];
                let outer = self.rng.range(1, lx);
                b.stmts
                    .push(raw_block(format!("for {i} in 0..{outer}"), vec![], body));
                b.stacks[k].lo += inner * outer;
                b.stacks[k].hi += inner * outer;
            }
            _ => {
                let seqs = self.seqs(b, 0);
                let s = self.rng.pick(&seqs).clone();
                let fo = self.name("fo");
                let init = self.expr(&b.scope, &b.ctx, 1);
                let c = Expr::Lit(self.rng.range(3, 9) as f64 / 10.0);
                let e = self.active(b, &["q"]);
                b.stmts.push(raw(
                    format!(
                        "let {fo} = {}.iter().copied().fold({{0}}, |r, q| r * {{1}} + {{2}});",
                        s.text
                    ),
                    vec![init, c, e],
                ));
                let e = self.active(b, &[&fo]);
                b.stmts.push(self.add_to_acc(b, e));
            }
        }
    }

    /// `let q = seq.last().copied().unwrap_or(d);`, `*seq.first().unwrap_or(&d)` and the like, of any
    /// sequence (a stack that may be empty, a sub-slice).
    fn end_or(&mut self, b: &mut Body) {
        let seqs = self.seqs(b, 0);
        let s = self.rng.pick(&seqs).clone();
        let end = if self.rng.chance(0.5) {
            "last"
        } else {
            "first"
        };
        let d = self.pushed(b, &[]);
        let q = self.name("q");
        let text = match self.rng.range(0, 2) {
            0 => format!("let {q} = {}.{end}().copied().unwrap_or({{0}});", s.text),
            1 => format!("let {q} = *{}.{end}().unwrap_or(&({{0}}));", s.text),
            _ => format!("let {q} = {}.{end}().cloned().unwrap_or({{0}});", s.text),
        };
        b.stmts.push(raw(text, vec![d]));
        let e = self.active(b, &[&q]);
        b.stmts.push(self.add_to_acc(b, e));
    }

    /// `let Some(p) = s.pop() else { .. };`: in a `loop` left by `break`, in a `for` that goes on to
    /// the next turn by `continue`, or returning early from the function.
    fn let_else(&mut self, b: &mut Body, k: usize) {
        let name = b.stacks[k].name.clone();
        let p = self.name("p");
        let e = self.active(b, &[&p]);
        let update = self.add_to_acc(b, e);
        let hi = b.stacks[k].hi;
        match self.rng.range(0, 2) {
            0 => {
                b.stmts.push(raw_block(
                    "loop",
                    vec![],
                    vec![
                        raw(
                            format!("let Some({p}) = {name}.pop() else {{ break }};"),
                            vec![],
                        ),
                        update,
                    ],
                ));
                b.stacks[k].lo = 0;
                b.stacks[k].hi = 0;
            }
            1 => {
                let reps = self.rng.range(1, 3);
                b.stmts.push(Stmt::For {
                    iter: ForIter::Range {
                        var: "_".into(),
                        lo: IExpr::Lit(0),
                        hi: IExpr::Lit(reps),
                        inclusive: false,
                        rev: false,
                        step: None,
                    },
                    body: vec![
                        raw(
                            format!("let Some({p}) = {name}.pop() else {{ continue }};"),
                            vec![],
                        ),
                        update,
                    ],
                });
                b.stacks[k].lo = b.stacks[k].lo.saturating_sub(reps);
                b.stacks[k].hi = b.stacks[k].hi.saturating_sub(reps);
            }
            _ if hi >= 1 => {
                let r = self.active(b, &[]);
                let acc = b.acc.clone();
                b.stmts.push(raw(
                    format!("let Some({p}) = {name}.pop() else {{ return {acc} + {{0}}; }};"),
                    vec![r],
                ));
                b.stmts.push(update);
                b.stacks[k].lo = b.stacks[k].lo.saturating_sub(1);
                b.stacks[k].hi -= 1;
            }
            _ => {}
        }
    }

    /// A loop or branch body that makes its own `Vec` empty (`Vec::new()`, `with_capacity`), or by
    /// `.collect()` (sometimes another way), and pushes, pops and reads it there, with the episodes of
    /// the top of the body, maybe two regions deep. The stacks outside are not touched inside (their
    /// lengths would depend on the turns).
    fn region(&mut self, b: &mut Body) {
        let saved_stacks = std::mem::take(&mut b.stacks);
        let saved_stmts = std::mem::take(&mut b.stmts);
        let saved_scope = b.scope.clone();
        b.depth += 1;
        let lx = b.scope.arrays[0].len;
        let float = |b: &mut Body, name: &str| {
            b.scope.floats.push(FloatVar {
                name: name.to_string(),
                mutable: false,
                ambiguous: false,
            })
        };
        let int = |b: &mut Body, name: &str, lo: usize, hi: usize| {
            b.scope.ints.push(IntVar {
                name: name.to_string(),
                lo,
                hi,
            })
        };
        // The head, printed around the body made below (`None` for an `if`).
        let kind = self.rng.range(0, 3);
        let head = match kind {
            0 => {
                let i = self.name("i");
                let (bound, m) = match b.scope.ints.iter().find(|v| v.name == "n") {
                    Some(n) if self.rng.chance(0.4) => ("n".to_string(), n.lo),
                    _ => {
                        let m = self.rng.range(1, 3);
                        (m.to_string(), m)
                    }
                };
                if m >= 1 {
                    int(b, &i, 0, m - 1);
                }
                format!("for {i} in 0..{bound}")
            }
            1 => {
                let i = self.name("i");
                let q = self.name("q");
                int(b, &i, 0, lx - 1);
                b.stmts.push(raw(format!("let {q} = xs[{i}];"), vec![]));
                float(b, &q);
                format!("for {i} in 0..xs.len()")
            }
            2 => {
                let v = self.name("v");
                float(b, &v);
                format!("for &{v} in xs")
            }
            _ => String::new(),
        };
        let cond = (kind == 3).then(|| self.cond(&b.scope, &b.ctx));
        self.region_stack(b);
        for _ in 0..self.rng.range(1, 4) {
            self.episode(b);
        }
        if self.rng.chance(0.8) {
            self.read_all(b, 0);
        }
        let body = std::mem::replace(&mut b.stmts, saved_stmts);
        b.stacks = saved_stacks;
        b.scope = saved_scope;
        b.depth -= 1;
        match cond {
            Some(cond) => {
                let els = self.rng.chance(0.4).then(|| {
                    let e = self.active(b, &[]);
                    vec![self.add_to_acc(b, e)]
                });
                b.stmts.push(Stmt::If {
                    cond,
                    then: body,
                    els,
                });
            }
            None => b.stmts.push(raw_block(head, vec![], body)),
        }
    }

    /// The `Vec` a region makes: empty (`Vec::new()`, `with_capacity`, maybe pushed at once), by
    /// `.collect()` of a sequence mapped, or another way (`vec![..]`, `xs.to_vec()`).
    fn region_stack(&mut self, b: &mut Body) {
        match self.rng.weighted(&[3, 2]) {
            0 => {
                let name = self.name("r");
                let seqs: Vec<Seq> = self
                    .seqs(b, 0)
                    .into_iter()
                    .filter(|s| s.stack.is_none())
                    .collect();
                let s = self.rng.pick(&seqs).clone();
                let v = self.name("v");
                let e = self.active(b, &[&v]);
                b.stmts.push(raw(
                    format!(
                        "let mut {name}: Vec<$T> = {}.iter().map(|&{v}| {{0}}).collect();",
                        s.text
                    ),
                    vec![e],
                ));
                b.stacks.push(Stack {
                    name,
                    lo: s.len,
                    hi: s.max,
                });
            }
            _ => self.make_stack(b),
        }
    }

    /// The slice parameter `xs` (declared `mut`) rebound to a sub-slice of itself, in a `while` over its
    /// length, a `for`, a branch or at once; it stays at least 3 long.
    fn rebind(&mut self, b: &mut Body) {
        let len = b.scope.arrays[0].len;
        let q = self.name("q");
        let e = self.active(b, &[&q]);
        let update = self.add_to_acc(b, e);
        let new = match self.rng.range(0, 4) {
            0 => {
                let keep = self.rng.range(3, len - 1);
                b.stmts.push(raw_block(
                    format!("while xs.len() > {keep}"),
                    vec![],
                    vec![
                        raw(format!("let {q} = xs[0] * xs[1];"), vec![]),
                        update,
                        raw("xs = &xs[1..];", vec![]),
                    ],
                ));
                keep
            }
            1 => {
                let m = self.rng.range(1, len - 3);
                let t = self.name("t");
                b.stmts.push(raw_block(
                    format!("for {t} in 0..{m}"),
                    vec![],
                    vec![
                        raw(format!("let {q} = xs[{t} % 2] + xs[xs.len() - 1];"), vec![]),
                        update,
                        raw("xs = &xs[1..];", vec![]),
                    ],
                ));
                len - m
            }
            2 => {
                let cond = self.cond(&b.scope, &b.ctx);
                b.stmts.push(Stmt::If {
                    cond,
                    then: vec![raw("xs = &xs[1..];", vec![])],
                    els: Some(vec![raw("xs = &xs[..xs.len() - 1];", vec![])]),
                });
                len - 1
            }
            3 => {
                b.stmts.push(raw("xs = &xs[..xs.len() - 1];", vec![]));
                len - 1
            }
            _ => {
                b.stmts.push(raw("xs = &xs[1..];", vec![]));
                len - 1
            }
        };
        b.scope.arrays[0].len = new;
        b.rebound = true;
    }

    /// A loop over `xs` that pushes or pops stack `k` by the data (`if v > c { push } else if let
    /// Some(p) = s.pop() { .. }`), or both in one iteration.
    fn mixed_loop(&mut self, b: &mut Body, k: usize) {
        let name = b.stacks[k].name.clone();
        let lx = b.scope.arrays[0].len;
        let v = self.name("v");
        let p = self.name("p");
        let pushed = self.pushed(b, &[&v]);
        let e = self.active(b, &[&p, &v]);
        let cond = {
            let mut scope = b.scope.clone();
            scope.floats.push(FloatVar {
                name: v.clone(),
                mutable: false,
                ambiguous: false,
            });
            self.float_cond(&scope, &b.ctx)
        };
        let pop = raw_block(
            format!("if let Some({p}) = {name}.pop()"),
            vec![],
            vec![self.add_to_acc(b, e)],
        );
        let push = raw(format!("{name}.push({{0}});"), vec![pushed]);
        let (body, lo_per, hi_per): (Vec<Stmt>, isize, isize) = match self.rng.range(0, 2) {
            0 => (
                vec![Stmt::If {
                    cond,
                    then: vec![push],
                    els: Some(vec![pop]),
                }],
                -1,
                1,
            ),
            1 => (vec![push, pop], 0, 0),
            _ => {
                let again = self.pushed(b, &[&v]);
                (
                    vec![
                        pop,
                        Stmt::If {
                            cond,
                            then: vec![raw(format!("{name}.push({{0}});"), vec![again])],
                            els: None,
                        },
                    ],
                    -1,
                    0,
                )
            }
        };
        b.stmts
            .push(raw_block(format!("for &{v} in xs"), vec![], body));
        let lo = b.stacks[k].lo as isize + lo_per * lx as isize;
        let hi = b.stacks[k].hi as isize + hi_per * lx as isize;
        b.stacks[k].lo = lo.max(0) as usize;
        // `push; pop` and `pop; push`: a pop of an empty stack pushes nothing back.
        b.stacks[k].hi = hi.max(b.stacks[k].hi as isize).max(0) as usize;
        if hi_per == 0 && lo_per == -1 {
            b.stacks[k].hi = b.stacks[k].hi.max(1);
        }
    }

    /// A loop pushing into stack `k` and reading it at once: the top (`*s.last().unwrap()`,
    /// `s[s.len() - 1]`), the bottom, and a slot by index.
    fn read_after_push(&mut self, b: &mut Body, k: usize) {
        let name = b.stacks[k].name.clone();
        let i = self.name("i");
        let q = self.name("q");
        let r = self.name("r");
        let pushed = self.pushed(b, &[&q]);
        let read = match self.rng.range(0, 3) {
            0 => format!("*{name}.last().unwrap()"),
            1 => format!("{name}[{name}.len() - 1]"),
            2 => format!("*{name}.first().unwrap()"),
            _ => format!("{name}[{i} % {name}.len()]"),
        };
        let e = self.active(b, &[&r, &q]);
        let mut body = vec![
            raw(format!("let {q} = xs[{i}];"), vec![]),
            raw(format!("{name}.push({{0}});"), vec![pushed]),
            raw(format!("let {r} = {read};"), vec![]),
            self.add_to_acc(b, e),
        ];
        if self.rng.chance(0.4) {
            // A write into the slot just pushed.
            let e = Expr::Method(Method::Tanh, Box::new(self.active(b, &[&r])));
            body.push(raw(format!("let {r}t = {name}.len() - 1;"), vec![]));
            body.push(Stmt::Assign {
                place: Place::Index(name.clone(), IExpr::Var(format!("{r}t"))),
                op: *self
                    .rng
                    .pick(&[AssignOp::Set, AssignOp::Add, AssignOp::Mul]),
                value: e,
            });
        }
        let lx = b.scope.arrays[0].len;
        b.stmts
            .push(raw_block(format!("for {i} in 0..xs.len()"), vec![], body));
        b.stacks[k].lo += lx;
        b.stacks[k].hi += lx;
    }

    /// Pushes into stack `k` in a loop: over a slice (values, indexes, `n`), over windows, chunks, or
    /// another stack drained; active values and constants interleaved, some under a branch.
    fn loop_push(&mut self, b: &mut Body, k: usize) {
        let name = b.stacks[k].name.clone();
        let lx = b.scope.arrays[0].len;
        let v = self.name("v");
        // (head, iterations at least, at most, the float the body reads)
        let (head, lo_it, hi_it, read): (String, usize, usize, String) = match self.rng.range(0, 4)
        {
            0 => (format!("for &{v} in xs"), lx, lx, v.clone()),
            1 => {
                let i = self.name("i");
                let head = format!("for {i} in 0..xs.len()");
                let q = format!("xs[{i}]");
                (head, lx, lx, q)
            }
            2 => match b.scope.ints.iter().find(|i| i.name == "n") {
                Some(n) => {
                    let nv = n.lo;
                    let i = self.name("i");
                    (
                        format!("for {i} in 0..n"),
                        nv,
                        nv,
                        format!("xs[{i} % xs.len()]"),
                    )
                }
                None => (format!("for &{v} in xs.iter().rev()"), lx, lx, v.clone()),
            },
            3 => {
                let kk = self.rng.range(1, lx.min(3));
                let pane = self.name("pane");
                (
                    format!("for {pane} in xs.windows({kk})"),
                    lx - kk + 1,
                    lx - kk + 1,
                    format!("{pane}[{}]", kk - 1),
                )
            }
            _ => {
                let kk = self.rng.range(1, 3);
                let ch = self.name("ch");
                let count = lx.div_ceil(kk);
                (
                    format!("for {ch} in xs.chunks({kk})"),
                    count,
                    count,
                    format!("{ch}[0]"),
                )
            }
        };
        let q = self.name("q");
        let mut body = vec![raw(format!("let {q} = {read};"), vec![])];
        // A loop left by `break` at a turn the data choose: it pushes on none of the turns at least.
        let breaks = self.rng.chance(0.2);
        if breaks {
            let mut scope = b.scope.clone();
            scope.floats.push(FloatVar {
                name: q.clone(),
                mutable: false,
                ambiguous: false,
            });
            let cond = self.float_cond(&scope, &b.ctx);
            body.push(Stmt::BreakIf { cond, value: None });
        }
        let (mut lo_per, mut hi_per) = (0, 0);
        for _ in 0..self.rng.range(1, 3) {
            let e = self.pushed(b, &[&q]);
            if self.rng.chance(0.35) {
                let cond = {
                    let mut scope = b.scope.clone();
                    scope.floats.push(FloatVar {
                        name: q.clone(),
                        mutable: false,
                        ambiguous: false,
                    });
                    self.float_cond(&scope, &b.ctx)
                };
                let els = if self.rng.chance(0.4) {
                    let e2 = self.pushed(b, &[&q]);
                    lo_per += 1;
                    Some(vec![raw(format!("{name}.push({{0}});"), vec![e2])])
                } else {
                    None
                };
                body.push(Stmt::If {
                    cond,
                    then: vec![raw(format!("{name}.push({{0}});"), vec![e])],
                    els,
                });
                hi_per += 1;
            } else {
                body.push(raw(format!("{name}.push({{0}});"), vec![e]));
                lo_per += 1;
                hi_per += 1;
            }
        }
        if self.rng.chance(0.3) {
            let e = self.active(b, &[&q]);
            body.push(self.add_to_acc(b, e));
        }
        b.stmts.push(raw_block(head, vec![], body));
        if !breaks {
            b.stacks[k].lo += lo_per * lo_it;
        }
        b.stacks[k].hi += hi_per * hi_it;
    }

    /// A slice local rebound in a loop: `let mut view = &xs[..k]; for t in 0..m { read; view = &src[..]; }`,
    /// then read again.
    fn view(&mut self, b: &mut Body) {
        let lx = b.scope.arrays[0].len;
        let view = self.name("view");
        let k0 = self.rng.range(1, lx);
        let first = match self.rng.range(0, 2) {
            0 => format!("&xs[..{k0}]"),
            1 => format!("&xs[{}..]", lx - k0),
            _ => "xs".to_string(),
        };
        let first_len = if first == "xs" { lx } else { k0 };
        if b.depth == 0 {
            b.viewed = true;
        }
        b.stmts
            .push(raw(format!("let mut {view} = {first};"), vec![]));
        let m = self.rng.range(1, 3);
        let t = self.name("t");
        // The windows assigned in the loop, each at least `min_len` long at every `t < m`; of a
        // sub-slice expression, one range of its source (`&xs[1..][t..t + 2]`, `&xs[..k][t..]`): a window
        // with an end only of a sub-slice without one (`&xs[..k][t..t + 1]` is not followed as a view).
        let seqs = self.seqs(b, 1);
        let s = self.rng.pick(&seqs).clone();
        let form = match self.rng.range(0, 4) {
            f if s.sub && !s.open => f % 2,
            f => f,
        };
        let (window, wlen) = match form {
            0 => (format!("&{}[..]", s.text), s.len),
            1 if s.len > m && s.stack.is_none() => {
                // `&src[t..]`: at least `len - (m - 1)` long.
                (format!("&{}[{t}..]", s.text), s.len - (m - 1))
            }
            2 if s.len >= m && s.stack.is_none() => {
                let wl = self.rng.range(1, s.len - (m - 1));
                (format!("&{}[{t}..{t} + {wl}]", s.text), wl)
            }
            3 if s.len >= 2 => {
                let a = self.rng.range(0, s.len - 2);
                let e = self.rng.range(a + 1, s.len);
                (format!("&{}[{a}..{e}]", s.text), e - a)
            }
            _ if s.sub && !s.open => (format!("&{}[..]", s.text), s.len),
            _ => (format!("&{}[..1]", s.text), 1),
        };
        let min_len = first_len.min(wlen);
        let read = |g: &mut Gen, len: usize| -> String {
            match g.rng.range(0, 3) {
                0 => format!("{view}[{}]", g.rng.range(0, len - 1)),
                1 => format!("*{view}.last().unwrap()"),
                2 => format!("{view}[{view}.len() - 1]"),
                _ => format!("{view}.iter().copied().fold($H, |r, q| r * $H + q)"),
            }
        };
        let r_in = read(self, first_len.min(min_len));
        let q = self.name("q");
        let mut body = vec![raw(format!("let {q} = {};", r_in), vec![])];
        let e = self.active(b, &[&q]);
        body.push(self.add_to_acc(b, e));
        if self.rng.chance(0.3) {
            let v = self.name("v");
            let e = self.active(b, &[&v]);
            body.push(raw_block(
                format!("for &{v} in {view}"),
                vec![],
                vec![self.add_to_acc(b, e)],
            ));
        }
        if self.rng.chance(0.3) {
            // Rebound only where a condition holds: the view of this iteration or the last one's.
            let cond = self.cond(&b.scope, &b.ctx);
            body.push(Stmt::If {
                cond,
                then: vec![raw(format!("{view} = {window};"), vec![])],
                els: None,
            });
        } else {
            body.push(raw(format!("{view} = {window};"), vec![]));
        }
        let hi = match b.scope.ints.iter().find(|i| i.name == "n") {
            Some(n) if n.lo <= m && self.rng.chance(0.3) => IExpr::Var("n".into()),
            _ => IExpr::Lit(m),
        };
        b.stmts.push(Stmt::For {
            iter: ForIter::Range {
                var: t,
                lo: IExpr::Lit(0),
                hi,
                inclusive: false,
                rev: false,
                step: None,
            },
            body,
        });
        if self.rng.chance(0.7) {
            let r = read(self, min_len);
            let q = self.name("q");
            b.stmts.push(raw(format!("let {q} = {};", r), vec![]));
            let e = self.active(b, &[&q]);
            b.stmts.push(self.add_to_acc(b, e));
        }
    }

    /// `for pane in src.windows(k)` or `for ch in src.chunks(k)`, reading, and perhaps pushing into stack
    /// `k` (not the one read).
    fn windows(&mut self, b: &mut Body, k: usize) {
        let seqs = self.seqs(b, 1);
        let s = self.rng.pick(&seqs).clone();
        let size = self.rng.range(1, s.len.min(3));
        let chunks = self.rng.chance(0.4);
        let pane = self.name("pane");
        let q = self.name("q");
        let read = if chunks {
            if self.rng.chance(0.5) {
                format!("{pane}[0]")
            } else {
                format!("{pane}[{pane}.len() - 1]")
            }
        } else {
            format!("{pane}[0] * {pane}[{}]", size - 1)
        };
        let mut body = vec![raw(format!("let {q} = {read};"), vec![])];
        let e = self.active(b, &[&q]);
        body.push(self.add_to_acc(b, e));
        if chunks && self.rng.chance(0.4) {
            let j = self.name("j");
            let e = self.active(b, &[]);
            body.push(raw_block(
                format!("for {j} in 0..{pane}.len()"),
                vec![],
                vec![self.add_to_acc(b, mul(Expr::Raw(format!("{pane}[{j}]"), vec![]), e))],
            ));
        }
        let pushes = s.stack != Some(k) && self.rng.chance(0.4);
        if pushes {
            let e = self.pushed(b, &[&q]);
            let name = &b.stacks[k].name;
            body.push(raw(format!("{name}.push({{0}});"), vec![e]));
        }
        let method = if chunks { "chunks" } else { "windows" };
        b.stmts.push(raw_block(
            format!("for {pane} in {}.{method}({size})", s.text),
            vec![],
            body,
        ));
        if pushes {
            // At least `len - size + 1` windows, or `ceil(len / size)` chunks; at most as many of the
            // greatest length.
            let (lo_len, hi_len) = (s.len, s.max);
            let count = |len: usize| {
                if chunks {
                    len.div_ceil(size)
                } else {
                    (len + 1).saturating_sub(size)
                }
            };
            b.stacks[k].lo += count(lo_len);
            b.stacks[k].hi += count(hi_len);
        }
    }

    /// Every element of stack `k` read into the accumulator: by index over `len()`, by a drain, or by
    /// `.iter()`.
    fn read_all(&mut self, b: &mut Body, k: usize) {
        let name = b.stacks[k].name.clone();
        let q = self.name("q");
        let e = self.active(b, &[&q]);
        let acc = &b.acc;
        let c = Expr::Lit(self.rng.range(3, 9) as f64 / 10.0);
        let update = raw(format!("{acc} = {acc} * {{0}} + {{1}};"), vec![c, e]);
        let stmt = match self.rng.range(0, 2) {
            0 => {
                let i = self.name("i");
                raw_block(
                    format!("for {i} in 0..{name}.len()"),
                    vec![],
                    vec![raw(format!("let {q} = {name}[{i}];"), vec![]), update],
                )
            }
            1 => raw_block(
                format!("while let Some({q}) = {name}.pop()"),
                vec![],
                vec![update],
            ),
            _ => raw_block(format!("for &{q} in {name}.iter()"), vec![], vec![update]),
        };
        b.stmts.push(stmt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::{print_program, Mode};

    #[test]
    fn vecs_programs_are_deterministic_and_use_the_forms() {
        let mut text = String::new();
        for id in 0..80 {
            let p = generate_vecs(28_301, id);
            assert_eq!(p, generate_vecs(28_301, id));
            text.push_str(&print_program(&p, Mode::Macro));
        }
        for form in [
            ".push(",
            ".pop()",
            "while let Some",
            "if let Some",
            ".windows(",
            ".chunks(",
            ".pop().unwrap_or(",
            ".pop() else {",
            ".copied().unwrap_or(",
            ").collect();",
            "mut xs: &[f64]",
            "xs = &xs[1..];",
            "[1..].iter()",
            "..][t",
        ] {
            assert!(text.contains(form), "no {form} in 80 programs");
        }
        // Some `Vec` is made empty in a loop body (indented twice).
        assert!(text.contains("\n        let mut r") || text.contains("\n        let mut st"));
        // The raw text's holes are all filled.
        assert!(!text.contains("{0}") && !text.contains("$T") && !text.contains('@'));
    }
}
