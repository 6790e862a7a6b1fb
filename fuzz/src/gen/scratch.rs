//! `--scratch`: programs shaped for the fusion of a loop with local arrays (`reverse/plan.rs`, `fusable`):
//! a top-level `for` over data with an accumulator (`s += ..`, `s -= ..`, `s = s + ..`), read-only locals
//! filled before it, scratch arrays written whole by an inner loop at the top of its body (or of a nested
//! loop, GMM's components loop) and read after, also through a helper taking `&[f64]`; and, drawn per
//! program, the near misses the macro must refuse or get right anyway ([`Twist`]): an element read
//! before it is written, a writer that leaves elements, writes under a branch or reads what it
//! overwrites, a scratch array read after the loop, a read-only local written in or after the loop, a
//! second loop sharing the arrays, a zero-trip loop, a result used non-linearly.

use super::*;

/// A near miss (or a variation) of the fused shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Twist {
    /// A scratch element read at the top of the body, before the writer: the last iteration's value.
    CarriedRead,
    /// The writer leaves an element (`0..n - 1` or `1..n`).
    PartialWriter,
    /// The writer runs under a branch.
    BranchWriter,
    /// The writer reads what it overwrites (`c[j] = 0.5 * c[j] + ..`) or a neighbour.
    SelfReadWriter,
    /// The writer writes every element, but not in the plain form (`.rev()`, `.step_by(1)`, `c[n-1-j]`).
    OddWriter,
    /// A scratch array read after the loop.
    ScratchReadAfter,
    /// A scratch array read before the loop (its initial values).
    ScratchReadBefore,
    /// A read-only local overwritten after the loop, and read again.
    ReadOnlyOverwritten,
    /// A read-only local written in the loop.
    ReadOnlyWrittenInLoop,
    /// A second loop over the data reading and writing the same arrays.
    SecondLoop,
    /// The loop runs no iteration.
    ZeroTrip,
    /// The accumulated result used non-linearly after the loop (its adjoint not known before the loop).
    NonLinearTail,
    /// The accumulator is not a plain sum (`s = s * 0.5 + ..`).
    NotASum,
    /// In the components loop, a scratch array also read after that loop in the same iteration.
    TouchedAfterNest,
    /// The components loop leaves a term (`1..k`) or runs under a branch.
    TermsPartial,
    /// A scratch array (or the terms) passed to a helper after the loop.
    ScratchCallAfter,
}

const TWISTS: [Twist; 16] = [
    Twist::CarriedRead,
    Twist::PartialWriter,
    Twist::BranchWriter,
    Twist::SelfReadWriter,
    Twist::OddWriter,
    Twist::ScratchReadAfter,
    Twist::ScratchReadBefore,
    Twist::ReadOnlyOverwritten,
    Twist::ReadOnlyWrittenInLoop,
    Twist::SecondLoop,
    Twist::ZeroTrip,
    Twist::NonLinearTail,
    Twist::NotASum,
    Twist::TouchedAfterNest,
    Twist::TermsPartial,
    Twist::ScratchCallAfter,
];

/// A local array of the scratch shape: its name, its length, and how the length is written (a literal,
/// `xs.len()` or the integer parameter `n`).
#[derive(Clone, Debug)]
struct Local {
    name: String,
    len: usize,
    len_expr: IExpr,
}

impl Local {
    fn var(&self) -> ArrayVar {
        ArrayVar {
            name: self.name.clone(),
            len: self.len,
            local: true,
            frozen: false,
            ambiguous: false,
            fixed: false,
        }
    }
}

/// Generates program number `id` of a `--scratch` run with the given seed.
pub fn generate_scratch(seed: u64, id: usize) -> Program {
    let mut rng = Rng::new(
        seed.wrapping_mul(0x1000_0001)
            .wrapping_add(id as u64)
            .wrapping_add(0x5C8A_7C11),
    );
    let mut g = Gen {
        rng: rng.fork(),
        fresh: 0,
        forms: false,
        sugar: false,
        scalar_refs: Vec::new(),
    };
    g.scratch_program(id)
}

impl Gen {
    fn scratch_program(&mut self, id: usize) -> Program {
        let generic = self.rng.chance(0.15);
        let order2 = self.rng.chance(0.1);
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
        let lx = self.rng.range(2, 5);
        let lw = self.rng.range(2, 4);
        params.push(Param {
            name: "xs".into(),
            kind: ParamKind::Slice(lx),
        });
        params.push(Param {
            name: "ws".into(),
            kind: ParamKind::Slice(lw),
        });
        // At least 2: the loops `for_range` makes over an array of this length may end at `len - 1`.
        let n = self.rng.chance(0.25).then(|| self.rng.range(2, 4));
        if let Some(v) = n {
            params.push(Param {
                name: "n".into(),
                kind: ParamKind::Int(v),
            });
        }
        let mut twists: Vec<Twist> = Vec::new();
        if self.rng.chance(0.6) {
            for _ in 0..self.rng.range(1, 2) {
                let t = *self.rng.pick(&TWISTS);
                if !twists.contains(&t) {
                    twists.push(t);
                }
            }
        }
        // The lengths of the scratch arrays: the weights' length (literal, `ws.len()`), the data's, `n`.
        let mut lens: Vec<(usize, IExpr)> = vec![
            (lw, IExpr::Lit(lw)),
            (lw, IExpr::Len("ws".into())),
            (lx, IExpr::Len("xs".into())),
            (3, IExpr::Lit(3)),
        ];
        if let Some(v) = n {
            lens.push((v, IExpr::Var("n".into())));
        }
        let scratch_count = self.rng.range(1, 2);
        let scratch: Vec<Local> = (0..scratch_count)
            .map(|_| {
                let (len, len_expr) = self.rng.pick(&lens).clone();
                Local {
                    name: self.name("sc"),
                    len,
                    len_expr,
                }
            })
            .collect();
        let ro_count = self.rng.range(0, 2);
        let read_only: Vec<Local> = (0..ro_count)
            .map(|_| {
                let (len, len_expr) = self.rng.pick(&lens).clone();
                Local {
                    name: self.name("ro"),
                    len,
                    len_expr,
                }
            })
            .collect();
        // GMM's components loop: `k` components, each writing the scratch arrays, one term each.
        let components = self
            .rng
            .chance(0.4)
            .then(|| (self.rng.range(2, 3), self.name("terms")));

        // Helpers taking a scratch array (or the terms) as `&[f64]`.
        let mut funcs = Vec::new();
        let mut helper_lens: Vec<usize> = scratch.iter().map(|s| s.len).collect();
        if let Some((k, _)) = &components {
            helper_lens.push(*k);
        }
        helper_lens.sort();
        helper_lens.dedup();
        for len in helper_lens {
            if self.rng.chance(0.5) {
                let name = format!("h{}", funcs.len());
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
                let ctx = Ctx::top(generic || order2, false, Vec::new());
                let stmts = self.rng.range(2, 5);
                funcs.push(self.func(
                    name,
                    generic || order2,
                    FnKind::Differentiable {
                        order2: false,
                        wrt: None,
                    },
                    ps,
                    ctx,
                    stmts,
                ));
            }
        }
        let helpers: Vec<(String, usize)> = funcs
            .iter()
            .map(|f| match f.params[0].kind {
                ParamKind::Slice(l) => (f.name.clone(), l),
                _ => unreachable!("helpers take a slice first"),
            })
            .collect();

        let ctx = Ctx::top(generic, false, Vec::new());
        let mut scope = Scope::of_params(&params);
        let mut body = Vec::new();
        if self.rng.chance(0.3) {
            let name = self.name("g");
            let init = self.expr(&scope, &ctx, 2);
            body.push(Stmt::Let {
                name: name.clone(),
                mutable: false,
                annotated: true,
                init,
            });
            scope.floats.push(FloatVar {
                name,
                mutable: false,
                ambiguous: false,
            });
        }
        // Read-only locals, filled whole (or in part) before the loop.
        for r in &read_only {
            body.push(self.let_local(&scope, &ctx, r));
            let j = self.name("j");
            let mut inner = scope.clone();
            inner.ints.push(IntVar {
                name: j.clone(),
                lo: 0,
                hi: r.len - 1,
            });
            let value = self.expr(&inner, &ctx, 2);
            let op = *self
                .rng
                .pick(&[AssignOp::Set, AssignOp::Set, AssignOp::Add]);
            body.push(Stmt::For {
                iter: range(&j, IExpr::Lit(0), r.len_expr.clone()),
                body: vec![Stmt::Assign {
                    place: Place::Index(r.name.clone(), IExpr::Var(j)),
                    op,
                    value,
                }],
            });
            scope.arrays.push(r.var());
        }
        for s in &scratch {
            body.push(self.let_local(&scope, &ctx, s));
        }
        if let Some((k, terms)) = &components {
            body.push(Stmt::LetArray {
                name: terms.clone(),
                annotated: true,
                init: ArrayInit::Vec(Expr::Lit(0.0), IExpr::Lit(*k)),
            });
        }
        if twists.contains(&Twist::ScratchReadBefore) {
            let s = self.rng.pick(&scratch).clone();
            let i = self.rng.range(0, s.len - 1);
            let name = self.name("g");
            body.push(Stmt::Let {
                name: name.clone(),
                mutable: false,
                annotated: true,
                init: Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Index(s.name.clone(), IExpr::Lit(i))),
                    Box::new(Expr::Var("a".into())),
                ),
            });
            scope.floats.push(FloatVar {
                name,
                mutable: false,
                ambiguous: false,
            });
        }
        let loops = if twists.contains(&Twist::SecondLoop) {
            2
        } else {
            1
        };
        let mut accumulators = Vec::new();
        for l in 0..loops {
            let acc = self.name("acc");
            let init = if self.rng.chance(0.3) {
                Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Var("a".into())),
                    Box::new(Expr::Lit(0.5)),
                )
            } else {
                Expr::Lit(0.0)
            };
            body.push(Stmt::Let {
                name: acc.clone(),
                mutable: true,
                annotated: true,
                init,
            });
            let zero_trip = l == 0 && twists.contains(&Twist::ZeroTrip);
            body.push(self.data_loop(
                &scope,
                &ctx,
                &acc,
                &scratch,
                &read_only,
                &components,
                &helpers,
                &twists,
                zero_trip,
            ));
            accumulators.push(acc);
        }
        // After the loop: read-only locals read again (or overwritten first), scratch arrays read.
        let mut tail_extra: Vec<Expr> = Vec::new();
        if let Some(r) = read_only.first() {
            if twists.contains(&Twist::ReadOnlyOverwritten) {
                let j = self.name("j");
                body.push(Stmt::For {
                    iter: range(&j, IExpr::Lit(0), r.len_expr.clone()),
                    body: vec![Stmt::Assign {
                        place: Place::Index(r.name.clone(), IExpr::Var(j.clone())),
                        op: *self
                            .rng
                            .pick(&[AssignOp::Mul, AssignOp::Add, AssignOp::Set]),
                        value: Expr::Method(
                            Method::Sin,
                            Box::new(Expr::Bin(
                                BinOp::Mul,
                                Box::new(Expr::Var("a".into())),
                                Box::new(Expr::Index(
                                    "ws".into(),
                                    IExpr::Rem(Box::new(IExpr::Var(j)), lw),
                                )),
                            )),
                        ),
                    }],
                });
            }
            if self.rng.chance(0.5) || twists.contains(&Twist::ReadOnlyOverwritten) {
                let post = self.name("post");
                body.push(Stmt::Let {
                    name: post.clone(),
                    mutable: true,
                    annotated: true,
                    init: Expr::Lit(0.0),
                });
                let j = self.name("j");
                body.push(Stmt::For {
                    iter: range(&j, IExpr::Lit(0), r.len_expr.clone()),
                    body: vec![Stmt::Assign {
                        place: Place::Var(post.clone()),
                        op: AssignOp::Add,
                        value: Expr::Bin(
                            BinOp::Mul,
                            Box::new(Expr::Index(r.name.clone(), IExpr::Var(j.clone()))),
                            Box::new(Expr::Method(
                                Method::Cos,
                                Box::new(Expr::Index(r.name.clone(), IExpr::Var(j))),
                            )),
                        ),
                    }],
                });
                tail_extra.push(Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Lit(0.1)),
                    Box::new(Expr::Var(post)),
                ));
            }
        }
        if twists.contains(&Twist::ScratchReadAfter) {
            let s = self.rng.pick(&scratch).clone();
            let i = self.rng.range(0, s.len - 1);
            tail_extra.push(Expr::Method(
                Method::Tanh,
                Box::new(Expr::Index(s.name, IExpr::Lit(i))),
            ));
        }
        if twists.contains(&Twist::ScratchCallAfter) {
            let mut arrays: Vec<(String, usize)> =
                scratch.iter().map(|s| (s.name.clone(), s.len)).collect();
            if let Some((k, terms)) = &components {
                arrays.push((terms.clone(), *k));
            }
            let callable: Vec<(String, String)> = arrays
                .iter()
                .filter_map(|(a, l)| {
                    helpers
                        .iter()
                        .find(|(_, hl)| hl == l)
                        .map(|(h, _)| (h.clone(), a.clone()))
                })
                .collect();
            if !callable.is_empty() {
                let (h, a) = self.rng.pick(&callable).clone();
                tail_extra.push(Expr::Call(
                    h,
                    vec![Arg::LocalArray(a), Arg::Float(Expr::Var("a".into()))],
                ));
            }
        }
        let mut tail = Expr::Var(accumulators[0].clone());
        if twists.contains(&Twist::NonLinearTail) {
            tail = match self.rng.range(0, 2) {
                0 => Expr::Method(Method::Sin, Box::new(tail)),
                1 => Expr::Bin(BinOp::Mul, Box::new(tail.clone()), Box::new(tail)),
                _ => Expr::Bin(BinOp::Mul, Box::new(tail), Box::new(Expr::Var("a".into()))),
            };
        }
        for acc in &accumulators[1..] {
            tail = Expr::Bin(BinOp::Add, Box::new(tail), Box::new(Expr::Var(acc.clone())));
        }
        for e in tail_extra {
            tail = Expr::Bin(BinOp::Add, Box::new(tail), Box::new(e));
        }
        let g: Vec<String> = scope
            .floats
            .iter()
            .filter(|f| f.name.starts_with('g'))
            .map(|f| f.name.clone())
            .collect();
        for v in g {
            tail = Expr::Bin(BinOp::Add, Box::new(tail), Box::new(Expr::Var(v)));
        }
        // Some gradients with respect to part of the parameters only.
        let wrt = self.rng.chance(0.15).then(|| {
            let floats: Vec<String> = params
                .iter()
                .filter(|p| !matches!(p.kind, ParamKind::Int(_)))
                .map(|p| p.name.clone())
                .collect();
            let mut chosen: Vec<String> = floats
                .iter()
                .filter(|_| self.rng.chance(0.5))
                .cloned()
                .collect();
            if chosen.is_empty() || chosen.len() == floats.len() {
                chosen = vec![self.rng.pick(&floats).clone()];
            }
            chosen
        });
        let main = Func {
            name: "f".into(),
            generic,
            kind: FnKind::Differentiable { order2, wrt },
            params,
            body,
            tail: vec![tail],
            mut_slices: Vec::new(),
            param_styles: Vec::new(),
            result_array: false,
        };
        funcs.push(main);
        Program {
            id,
            funcs,
            nested: Vec::new(),
            structs: None,
        }
    }

    /// `let mut name: Vec<f64> = vec![fill; len];` or `[fill; len]` (a literal length).
    fn let_local(&mut self, scope: &Scope, ctx: &Ctx, l: &Local) -> Stmt {
        let fill = match self.rng.range(0, 3) {
            0 => Expr::Var("a".into()),
            1 => self.expr(scope, ctx, 1),
            _ => Expr::Lit(0.0),
        };
        let init = match &l.len_expr {
            IExpr::Lit(n) if self.rng.chance(0.4) => ArrayInit::Fixed(fill, *n),
            e => ArrayInit::Vec(fill, e.clone()),
        };
        Stmt::LetArray {
            name: l.name.clone(),
            annotated: true,
            init,
        }
    }

    /// The loop over the data: `for p in 0..xs.len()`, `for &v in xs` or `for (p, &v) in
    /// xs.iter().enumerate()`, its body writing the scratch arrays whole and reading them (in GMM's
    /// components loop, or not), accumulating into `acc`.
    #[allow(clippy::too_many_arguments)]
    fn data_loop(
        &mut self,
        scope: &Scope,
        ctx: &Ctx,
        acc: &str,
        scratch: &[Local],
        read_only: &[Local],
        components: &Option<(usize, String)>,
        helpers: &[(String, usize)],
        twists: &[Twist],
        zero_trip: bool,
    ) -> Stmt {
        let lx = scope.arrays[0].len;
        let mut inner = scope.clone();
        let mut c = ctx.clone();
        c.depth += 1;
        c.looping = true;
        let (iter, datum) = if zero_trip {
            let p = self.name("p");
            let hi = if self.rng.chance(0.5) {
                IExpr::Lit(0)
            } else {
                IExpr::Sub(
                    Box::new(IExpr::Len("xs".into())),
                    Box::new(IExpr::Len("xs".into())),
                )
            };
            inner.ints.push(IntVar {
                name: p.clone(),
                lo: 0,
                hi: 0,
            });
            (range(&p, IExpr::Lit(0), hi), Expr::Lit(1.0))
        } else {
            match self.rng.range(0, 2) {
                0 => {
                    let p = self.name("p");
                    inner.ints.push(IntVar {
                        name: p.clone(),
                        lo: 0,
                        hi: lx - 1,
                    });
                    (
                        range(
                            &p,
                            IExpr::Lit(self.rng.weighted(&[4, 1])),
                            IExpr::Len("xs".into()),
                        ),
                        Expr::Index("xs".into(), IExpr::Var(p)),
                    )
                }
                1 => {
                    let v = self.name("v");
                    inner.floats.push(FloatVar {
                        name: v.clone(),
                        mutable: false,
                        ambiguous: false,
                    });
                    (
                        ForIter::Values {
                            var: v.clone(),
                            arr: "xs".into(),
                        },
                        Expr::Var(v),
                    )
                }
                _ => {
                    let p = self.name("p");
                    let v = self.name("v");
                    inner.ints.push(IntVar {
                        name: p.clone(),
                        lo: 0,
                        hi: lx - 1,
                    });
                    inner.floats.push(FloatVar {
                        name: v.clone(),
                        mutable: false,
                        ambiguous: false,
                    });
                    (
                        ForIter::Enumerate {
                            index: p,
                            var: v.clone(),
                            arr: "xs".into(),
                        },
                        Expr::Var(v),
                    )
                }
            }
        };
        let mut body = Vec::new();
        if twists.contains(&Twist::CarriedRead) {
            let s = self.rng.pick(scratch).clone();
            let i = self.index(&inner, s.len, "");
            body.push(Stmt::Assign {
                place: Place::Var(acc.to_string()),
                op: AssignOp::Add,
                value: Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Index(s.name, i)),
                    Box::new(datum.clone()),
                ),
            });
        }
        if twists.contains(&Twist::ReadOnlyWrittenInLoop) {
            if let Some(r) = read_only.first() {
                let i = self.index(&inner, r.len, "");
                body.push(Stmt::Assign {
                    place: Place::Index(r.name.clone(), i),
                    op: AssignOp::Add,
                    value: Expr::Bin(
                        BinOp::Mul,
                        Box::new(Expr::Lit(0.1)),
                        Box::new(datum.clone()),
                    ),
                });
            }
        }
        for r in read_only {
            inner.arrays.push(r.var());
        }
        let term = if let Some((k, terms)) = components {
            // Some scratch arrays written at the top of the body, read in the components loop.
            let (outside, nested) = if scratch.len() > 1 && self.rng.chance(0.4) {
                scratch.split_at(1)
            } else {
                scratch.split_at(0)
            };
            let outer_term = if outside.is_empty() {
                None
            } else {
                let (stmts, u) =
                    self.scratch_block(&mut inner, &c, outside, helpers, twists, &datum);
                body.extend(stmts);
                Some(u)
            };
            let kv = self.name("k");
            let mut nest = inner.clone();
            nest.ints.push(IntVar {
                name: kv.clone(),
                lo: 0,
                hi: k - 1,
            });
            let (mut stmts, u) = self.scratch_block(&mut nest, &c, nested, helpers, twists, &datum);
            let u = match outer_term {
                Some(o) => Expr::Bin(BinOp::Add, Box::new(u), Box::new(o)),
                None => u,
            };
            stmts.push(Stmt::Assign {
                place: Place::Index(terms.clone(), IExpr::Var(kv.clone())),
                op: AssignOp::Set,
                value: Expr::Bin(BinOp::Mul, Box::new(Expr::Lit(-0.5)), Box::new(u)),
            });
            let partial = twists.contains(&Twist::TermsPartial);
            let lo = if partial && self.rng.chance(0.5) {
                1
            } else {
                0
            };
            let nest = Stmt::For {
                iter: range(&kv, IExpr::Lit(lo), IExpr::Lit(*k)),
                body: stmts,
            };
            if partial && lo == 0 {
                body.push(Stmt::If {
                    cond: Cond::Float(CmpOp::Lt, datum.clone(), Expr::Lit(0.5)),
                    then: vec![nest],
                    els: None,
                });
            } else {
                body.push(nest);
            }
            if twists.contains(&Twist::TouchedAfterNest) {
                let s = self.rng.pick(scratch).clone();
                body.push(Stmt::Assign {
                    place: Place::Var(acc.to_string()),
                    op: AssignOp::Add,
                    value: Expr::Method(
                        Method::Sin,
                        Box::new(Expr::Index(s.name, IExpr::Lit(s.len - 1))),
                    ),
                });
            }
            let terms_var = ArrayVar {
                name: terms.clone(),
                len: *k,
                local: true,
                frozen: false,
                ambiguous: false,
                fixed: false,
            };
            match helpers.iter().find(|(_, l)| l == k) {
                Some((h, _)) if self.rng.chance(0.7) => Expr::Call(
                    h.clone(),
                    vec![Arg::LocalArray(terms.clone()), Arg::Float(datum.clone())],
                ),
                _ => {
                    let mut e = Expr::Method(
                        Method::Exp,
                        Box::new(Expr::Method(
                            Method::Tanh,
                            Box::new(Expr::Index(terms.clone(), IExpr::Lit(0))),
                        )),
                    );
                    for i in 1..*k {
                        e = Expr::Bin(
                            BinOp::Add,
                            Box::new(e),
                            Box::new(Expr::Method(
                                Method::Exp,
                                Box::new(Expr::Method(
                                    Method::Tanh,
                                    Box::new(Expr::Index(terms_var.name.clone(), IExpr::Lit(i))),
                                )),
                            )),
                        );
                    }
                    Expr::Method(Method::Ln, Box::new(e))
                }
            }
        } else {
            let (stmts, u) = self.scratch_block(&mut inner, &c, scratch, helpers, twists, &datum);
            body.extend(stmts);
            u
        };
        let acc_e = || Expr::Var(acc.to_string());
        let accumulate = if twists.contains(&Twist::NotASum) {
            Stmt::Assign {
                place: Place::Var(acc.to_string()),
                op: AssignOp::Set,
                value: Expr::Bin(
                    BinOp::Add,
                    Box::new(Expr::Bin(
                        BinOp::Mul,
                        Box::new(acc_e()),
                        Box::new(Expr::Lit(0.5)),
                    )),
                    Box::new(term),
                ),
            }
        } else {
            if self.rng.chance(0.25) {
                // Two sums into the accumulator in one iteration.
                let e = Expr::Method(
                    Method::Tanh,
                    Box::new(Expr::Bin(
                        BinOp::Mul,
                        Box::new(datum.clone()),
                        Box::new(Expr::Index("ws".into(), IExpr::Lit(0))),
                    )),
                );
                body.push(Stmt::Assign {
                    place: Place::Var(acc.to_string()),
                    op: *self.rng.pick(&[AssignOp::Add, AssignOp::Sub]),
                    value: e,
                });
            }
            match self.rng.range(0, 3) {
                0 => Stmt::Assign {
                    place: Place::Var(acc.to_string()),
                    op: AssignOp::Add,
                    value: term,
                },
                3 => Stmt::Assign {
                    place: Place::Var(acc.to_string()),
                    op: AssignOp::Set,
                    value: Expr::Bin(BinOp::Add, Box::new(term), Box::new(acc_e())),
                },
                1 => Stmt::Assign {
                    place: Place::Var(acc.to_string()),
                    op: AssignOp::Sub,
                    value: term,
                },
                _ => Stmt::Assign {
                    place: Place::Var(acc.to_string()),
                    op: AssignOp::Set,
                    value: Expr::Bin(BinOp::Add, Box::new(acc_e()), Box::new(term)),
                },
            }
        };
        body.push(accumulate);
        Stmt::For { iter, body }
    }

    /// The scratch arrays written whole (each by a loop reading none of it) and then read: returns the
    /// statements and the value computed from them.
    fn scratch_block(
        &mut self,
        scope: &mut Scope,
        ctx: &Ctx,
        scratch: &[Local],
        helpers: &[(String, usize)],
        twists: &[Twist],
        datum: &Expr,
    ) -> (Vec<Stmt>, Expr) {
        let mut out = Vec::new();
        // Which scratch array the twists of the writer apply to.
        let odd = self.rng.range(0, scratch.len() - 1);
        for (k, s) in scratch.iter().enumerate() {
            let j = self.name("j");
            let mut w = scope.clone();
            let twisted = k == odd;
            let partial = twisted && twists.contains(&Twist::PartialWriter) && s.len >= 2;
            let (lo, hi, hi_val) = if partial && self.rng.chance(0.5) {
                (IExpr::Lit(1), s.len_expr.clone(), s.len - 1)
            } else if partial {
                (
                    IExpr::Lit(0),
                    IExpr::Sub(Box::new(s.len_expr.clone()), Box::new(IExpr::Lit(1))),
                    s.len - 2,
                )
            } else {
                // The writer's end: the length as the array was made, or `c.len()`.
                let hi = if self.rng.chance(0.15) {
                    IExpr::Len(s.name.clone())
                } else {
                    s.len_expr.clone()
                };
                (IExpr::Lit(0), hi, s.len - 1)
            };
            w.ints.push(IntVar {
                name: j.clone(),
                lo: 0,
                hi: hi_val,
            });
            let mut value = self.expr(&w, ctx, 2);
            if self.rng.chance(0.7) {
                // The datum times an element of the weights or of a read-only local at `j`.
                let cands: Vec<ArrayVar> = w
                    .arrays
                    .iter()
                    .filter(|a| a.len >= s.len && a.name != "xs")
                    .cloned()
                    .collect();
                let factor = if cands.is_empty() {
                    Expr::Cast(IExpr::Var(j.clone()))
                } else {
                    let a = self.rng.pick(&cands).clone();
                    Expr::Index(a.name, IExpr::Var(j.clone()))
                };
                value = Expr::Bin(
                    BinOp::Add,
                    Box::new(Expr::Bin(
                        BinOp::Mul,
                        Box::new(datum.clone()),
                        Box::new(factor),
                    )),
                    Box::new(value),
                );
            }
            let self_read = twisted && twists.contains(&Twist::SelfReadWriter);
            if self_read {
                let i = if self.rng.chance(0.5) {
                    IExpr::Var(j.clone())
                } else {
                    IExpr::Rem(
                        Box::new(IExpr::Add(
                            Box::new(IExpr::Var(j.clone())),
                            Box::new(IExpr::Lit(1)),
                        )),
                        s.len,
                    )
                };
                value = Expr::Bin(
                    BinOp::Add,
                    Box::new(Expr::Bin(
                        BinOp::Mul,
                        Box::new(Expr::Lit(0.5)),
                        Box::new(Expr::Index(s.name.clone(), i)),
                    )),
                    Box::new(value),
                );
            }
            let odd_writer = twisted && twists.contains(&Twist::OddWriter);
            let (rev, step, index) = if odd_writer {
                match self.rng.range(0, 2) {
                    0 => (true, None, IExpr::Var(j.clone())),
                    1 => (false, Some(1), IExpr::Var(j.clone())),
                    _ => (
                        false,
                        None,
                        // (Not `c.len() - 1 - j`: a `Vec` borrowed mutably while its length is read.)
                        IExpr::Sub(
                            Box::new(IExpr::Lit(s.len - 1)),
                            Box::new(IExpr::Var(j.clone())),
                        ),
                    ),
                }
            } else {
                (false, None, IExpr::Var(j.clone()))
            };
            let mut wbody = Vec::new();
            if self.rng.chance(0.2) {
                // A value computed first in the writer's body.
                let t = self.name("e");
                wbody.push(Stmt::Let {
                    name: t.clone(),
                    mutable: false,
                    annotated: true,
                    init: value,
                });
                value = Expr::Var(t);
            }
            wbody.push(Stmt::Assign {
                place: Place::Index(s.name.clone(), index),
                op: AssignOp::Set,
                value,
            });
            let writer = Stmt::For {
                iter: ForIter::Range {
                    var: j,
                    lo,
                    hi,
                    inclusive: false,
                    rev,
                    step,
                },
                body: wbody,
            };
            if twisted && twists.contains(&Twist::BranchWriter) {
                let cond = Cond::Float(CmpOp::Gt, datum.clone(), Expr::Lit(0.2));
                out.push(Stmt::If {
                    cond,
                    then: vec![writer],
                    els: None,
                });
            } else {
                out.push(writer);
            }
            if !twisted && self.rng.chance(0.2) {
                // Rewritten in place after the whole write (reading what it overwrites, which this
                // iteration wrote).
                let j = self.name("j");
                out.push(Stmt::For {
                    iter: range(&j, IExpr::Lit(0), s.len_expr.clone()),
                    body: vec![Stmt::Assign {
                        place: Place::Index(s.name.clone(), IExpr::Var(j.clone())),
                        op: AssignOp::Set,
                        value: Expr::Bin(
                            BinOp::Mul,
                            Box::new(Expr::Method(
                                Method::Tanh,
                                Box::new(Expr::Index(s.name.clone(), IExpr::Var(j))),
                            )),
                            Box::new(Expr::Var("a".into())),
                        ),
                    }],
                });
            }
            // Later writers and readers see the array.
            scope.arrays.push(s.var());
        }
        // Read the scratch arrays: a reduction loop, a helper call or a few elements.
        let u = self.name("u");
        let s = self.rng.pick(scratch).clone();
        // A helper taking an array in scope: a scratch array or a read-only local.
        let callable: Vec<(String, String)> = scope
            .arrays
            .iter()
            .filter(|a| a.local)
            .filter_map(|a| {
                helpers
                    .iter()
                    .find(|(_, l)| *l == a.len)
                    .map(|(h, _)| (h.clone(), a.name.clone()))
            })
            .collect();
        let read = match self.rng.range(0, 3) {
            0 | 1 => {
                out.push(Stmt::Let {
                    name: u.clone(),
                    mutable: true,
                    annotated: true,
                    init: Expr::Lit(0.0),
                });
                let j = self.name("j");
                let mut r = scope.clone();
                r.ints.push(IntVar {
                    name: j.clone(),
                    lo: 0,
                    hi: s.len - 1,
                });
                let mut value = Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Index(s.name.clone(), IExpr::Var(j.clone()))),
                    Box::new(self.expr(&r, ctx, 1)),
                );
                if self.rng.chance(0.5) {
                    let m = *self.rng.pick(&[Method::Sin, Method::Tanh, Method::Cos]);
                    value = Expr::Method(m, Box::new(value));
                }
                // A reader whose trip count changes between the iterations (`0..p % len + 1`), or
                // the whole array.
                let outer = scope
                    .ints
                    .iter()
                    .find(|v| v.name.starts_with('p') && v.hi > 0);
                let hi = match outer {
                    Some(p) if self.rng.chance(0.3) => IExpr::Add(
                        Box::new(IExpr::Rem(Box::new(IExpr::Var(p.name.clone())), s.len)),
                        Box::new(IExpr::Lit(1)),
                    ),
                    _ => s.len_expr.clone(),
                };
                out.push(Stmt::For {
                    iter: range(&j, IExpr::Lit(0), hi),
                    body: vec![Stmt::Assign {
                        place: Place::Var(u.clone()),
                        op: AssignOp::Add,
                        value,
                    }],
                });
                Expr::Var(u)
            }
            2 if !callable.is_empty() => {
                let (h, a) = self.rng.pick(&callable).clone();
                Expr::Call(h, vec![Arg::LocalArray(a), Arg::Float(datum.clone())])
            }
            _ => {
                let i = self.index(scope, s.len, &s.name);
                let e = self.expr(scope, ctx, 1);
                let e = if self.typed(scope, &e) {
                    e
                } else {
                    Expr::Bin(BinOp::Mul, Box::new(e), Box::new(Expr::Var("a".into())))
                };
                Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Index(s.name.clone(), i)),
                    Box::new(Expr::Method(Method::Sin, Box::new(e))),
                )
            }
        };
        let read = if matches!(read, Expr::Var(_)) {
            read
        } else {
            Expr::Method(Method::Tanh, Box::new(read))
        };
        (out, read)
    }
}

/// `for var in lo..hi`.
fn range(var: &str, lo: IExpr, hi: IExpr) -> ForIter {
    ForIter::Range {
        var: var.to_string(),
        lo,
        hi,
        inclusive: false,
        rev: false,
        step: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::print::{print_program, Mode};

    #[test]
    fn scratch_programs_are_deterministic_and_parse() {
        for id in 0..60 {
            let p = generate_scratch(3, id);
            assert_eq!(p, generate_scratch(3, id));
            for mode in [Mode::Macro, Mode::Plain, Mode::Oracle] {
                let src = print_program(&p, mode);
                if let Err(e) = syn::parse_file(&src) {
                    panic!("program {id} ({mode:?}) does not parse: {e}\n{src}");
                }
            }
            let module = crate::harness::program_module(&p, "p0");
            syn::parse_file(&module)
                .unwrap_or_else(|e| panic!("the check module does not parse: {e}\n{module}"));
        }
        assert!((0..20).any(|id| generate_scratch(3, id) != generate_scratch(4, id)));
    }

    /// Most programs have the shape: a top-level loop over the data holding an inner loop that writes a
    /// scratch array at its top (or inside the components loop).
    #[test]
    fn most_programs_write_a_scratch_array_at_the_top_of_a_data_loop() {
        let writes_first = |body: &[Stmt]| {
            body.iter().any(|s| match s {
                Stmt::For { body, .. } => body.iter().any(|s| {
                    matches!(s, Stmt::Assign { place: Place::Index(a, _), op: AssignOp::Set, .. }
                        if a.starts_with("sc") || a.starts_with("terms"))
                }),
                _ => false,
            })
        };
        let shaped = (0..100)
            .filter(|&id| {
                let p = generate_scratch(1, id);
                p.main().body.iter().any(|s| match s {
                    Stmt::For { body, .. } => {
                        writes_first(body)
                            || body
                                .iter()
                                .any(|s| matches!(s, Stmt::For { body, .. } if writes_first(body)))
                    }
                    _ => false,
                })
            })
            .count();
        assert!(shaped >= 80, "{shaped} of 100");
    }
}
