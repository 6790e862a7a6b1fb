//! Random programs in the documented subset, weighted toward numeric code: accumulations over slices, local
//! arrays written by index and read at neighbours, every loop form, branches, early returns and calls.
//!
//! The generator keeps the programs valid Rust (the plain copy compiles): indexes stay in bounds by interval
//! arithmetic over the integer variables, `exp` only sees bounded arguments, `ln`/`sqrt` positive ones, divisors
//! stay away from zero, and no float method is called on a value whose type rustc cannot infer yet (`{float}`).

use crate::ast::*;
use crate::rng::Rng;

mod scratch;
pub mod structs;
mod sugar;
mod vecs;

pub use scratch::generate_scratch;
pub use structs::{generate_structs, StructProgram};
pub use vecs::generate_vecs;

/// Generates program number `id` of the run with the given seed.
///
/// With `forms`, also the forms of `--forms` (iterator chains). Without it the programs of a seed are those
/// of earlier versions (a form's weight is zero, which draws the same numbers).
#[cfg(test)]
pub fn generate_with(seed: u64, id: usize, forms: bool) -> Program {
    generate(seed, id, forms, false)
}

/// [`generate_with`], and with `sugar` also the forms of `--sugar`: iterator direction chains
/// (`.rev().rev()`, `.step_by(k).rev()`, `.enumerate().rev()`, zips of zips) under an order-dependent
/// (Horner) accumulation, destructuring assignments, `match` arms with guards and bindings (fresh, capitalised,
/// or shadowing a local outside), labelled block values left by `break 'label` (also from a nested loop),
/// `copysign` and `clamp`. Without it a seed's programs are those of [`generate_with`].
pub fn generate(seed: u64, id: usize, forms: bool, sugar: bool) -> Program {
    let mut rng = Rng::new(seed.wrapping_mul(0x1000_0001).wrapping_add(id as u64));
    let mut g = Gen {
        rng: rng.fork(),
        fresh: 0,
        forms,
        sugar,
        scalar_refs: Vec::new(),
    };
    g.program(id)
}

#[derive(Clone, Debug)]
struct FloatVar {
    name: String,
    mutable: bool,
    /// Its type is still `{float}` for rustc (made from literals only, no annotation): no methods on it.
    ambiguous: bool,
}

#[derive(Clone, Debug)]
struct ArrayVar {
    name: String,
    len: usize,
    /// A local array (passed as `&a`), not a slice parameter.
    local: bool,
    /// Being iterated by an enclosing `for`: not writable here.
    frozen: bool,
    ambiguous: bool,
    /// A local fixed-size array `[f64; len]` (copied by `let` and by `=`), not a `Vec` or slice.
    fixed: bool,
}

/// A matrix (`--forms`): a local `Vec<Vec<f64>>` or nested array `[[v; cols]; rows]`, or a parameter of
/// any [`MatStyle`].
#[derive(Clone, Debug)]
struct MatVar {
    name: String,
    rows: usize,
    cols: usize,
    /// A local or a parameter taken by value (`mut`): written by `m[i][j] op= ..`.
    writable: bool,
    /// Its type: a local `Vec<Vec<f64>>` is a `Vec`, a local nested array `Nested`. Which matrix
    /// parameters of a callee it can be passed to follows (`MatStyle::pass_from`).
    style: MatStyle,
    /// A local nested array: its rows are passed to calls, never the whole of it (not supported by the
    /// macro: a spanned error says to pass its rows or make it a `Vec` of `Vec`s).
    rows_only: bool,
}

#[derive(Clone, Debug)]
struct IntVar {
    name: String,
    lo: usize,
    hi: usize,
}

/// What is in scope at a point of a body.
#[derive(Clone, Debug, Default)]
struct Scope {
    floats: Vec<FloatVar>,
    arrays: Vec<ArrayVar>,
    ints: Vec<IntVar>,
    /// Closures bound to locals (`--forms`).
    closures: Vec<String>,
    /// Matrices (`--forms`).
    matrices: Vec<MatVar>,
}

impl Scope {
    /// A loop over `array` binds `var` to its elements: the array is frozen (not written while iterated)
    /// and `var` is a float that is read only.
    fn iterate(&mut self, array: &ArrayVar, var: &str) {
        self.arrays
            .iter_mut()
            .filter(|x| x.name == array.name)
            .for_each(|x| x.frozen = true);
        self.floats.push(FloatVar {
            name: var.to_string(),
            mutable: false,
            ambiguous: array.ambiguous,
        });
    }
}

/// A function the body being generated may call.
#[derive(Clone, Debug)]
struct Callee {
    name: String,
    params: Vec<ParamKind>,
    /// Returns `(f64, f64)`: its result is destructured by `let (a, b) = ..`.
    pair: bool,
}

/// Facts about where statements are generated.
#[derive(Clone, Debug)]
struct Ctx {
    generic: bool,
    pair: bool,
    /// Inside a `loop` (innermost loop): `Some(true)` when it is `let r = loop` (breaks carry a value).
    in_loop: Option<bool>,
    /// The innermost loop is a `for` (`--sugar`: `continue` may leave an iteration; in a `while` or
    /// `loop` it would skip the counter's increment).
    in_for: bool,
    depth: usize,
    /// Inside any loop: assigned values are squashed (`tanh`, `sin`, `atan`) so that state carried across
    /// iterations stays bounded (repeated `x += x * x` overflows, and `0 * inf` in the adjoint is then NaN).
    looping: bool,
    callees: Vec<Callee>,
    /// The labels of the `for` loops around (`--sugar`), which `continue 'l` and `break 'l` may name.
    loop_labels: Vec<String>,
    /// Inside a labelled block value (`--sugar`): its label, which `break 'label value` may leave (also from
    /// a loop nested in it).
    label: Option<String>,
}

impl Ctx {
    /// A function body's context: outside every loop and label, calling `callees`.
    fn top(generic: bool, pair: bool, callees: Vec<Callee>) -> Ctx {
        Ctx {
            generic,
            pair,
            in_loop: None,
            in_for: false,
            depth: 0,
            looping: false,
            callees,
            label: None,
            loop_labels: Vec::new(),
        }
    }
}

impl Scope {
    /// The variables a body starts with: its parameters (an output parameter's float as `(*y)`; output
    /// arrays are written at the end, pairs destructured by the caller of this).
    fn of_params(params: &[Param]) -> Scope {
        let mut scope = Scope::default();
        for p in params {
            match p.kind {
                ParamKind::Scalar => scope.floats.push(FloatVar {
                    name: p.name.clone(),
                    mutable: false,
                    ambiguous: false,
                }),
                ParamKind::Slice(len) => scope.arrays.push(ArrayVar {
                    name: p.name.clone(),
                    len,
                    local: false,
                    frozen: false,
                    ambiguous: false,
                    fixed: false,
                }),
                ParamKind::Int(v) => scope.ints.push(IntVar {
                    name: p.name.clone(),
                    lo: v,
                    hi: v,
                }),
                ParamKind::Out(_) | ParamKind::Pair(_) => {}
                ParamKind::Matrix(rows, cols, style) => scope.matrices.push(MatVar {
                    name: p.name.clone(),
                    rows,
                    cols,
                    writable: style.by_value(),
                    style,
                    rows_only: false,
                }),
                ParamKind::OutFloat => scope.floats.push(FloatVar {
                    name: format!("(*{})", p.name),
                    mutable: true,
                    ambiguous: false,
                }),
            }
        }
        scope
    }
}

struct Gen {
    rng: Rng,
    fresh: usize,
    /// Generate the forms of `--forms` too.
    forms: bool,
    /// Generate the forms of `--sugar` too.
    sugar: bool,
    /// The scalar parameters of the function being generated that are taken by reference (`x: &f64`,
    /// `--sugar`): the body reads them `(*x)`.
    scalar_refs: Vec<String>,
}

impl Gen {
    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn program(&mut self, id: usize) -> Program {
        let generic = self.rng.chance(0.2);
        // `--sugar` checks more Hessians (`_hvp` against dual-over-dual numbers): a third of its programs.
        let order2 = self.rng.chance(0.15) || (self.sugar && self.rng.chance(0.2));
        let pair = !order2 && self.rng.chance(0.15);

        // Parameters of the main function.
        let mut params = Vec::new();
        for name in ["a", "b", "c"].iter().take(self.rng.range(1, 3)) {
            params.push(Param {
                name: name.to_string(),
                kind: ParamKind::Scalar,
            });
        }
        for name in ["xs", "ys"].iter().take(self.rng.weighted(&[2, 5, 2])) {
            params.push(Param {
                name: name.to_string(),
                kind: ParamKind::Slice(self.rng.range(2, 5)),
            });
        }
        // `--forms`: a matrix parameter `grid`, `&[Vec<f64>]`, `Vec<Vec<f64>>`, `[[f64; C]; R]` or
        // `&[[f64; C]; R]` (by value it is `mut` and written).
        // Its rows as wide as a helper's slice parameter, which are given the lengths of the slices or 3, so
        // that rows are passed to calls (`h(&grid[i], ..)`).
        if self.forms && self.rng.chance(0.4) {
            let mut widths: Vec<usize> = params
                .iter()
                .filter_map(|p| match p.kind {
                    ParamKind::Slice(l) => Some(l),
                    _ => None,
                })
                .collect();
            widths.push(3);
            let rows = self.rng.range(2, 3);
            let cols = *self.rng.pick(&widths);
            let style = *self.rng.pick(&[
                MatStyle::Slice,
                MatStyle::Vec,
                MatStyle::Nested,
                MatStyle::NestedRef,
            ]);
            params.push(Param {
                name: "grid".into(),
                kind: ParamKind::Matrix(rows, cols, style),
            });
        }
        if self.rng.chance(0.2) {
            params.push(Param {
                name: "n".into(),
                kind: ParamKind::Int(self.rng.range(1, 4)),
            });
        }
        let floats: Vec<String> = params
            .iter()
            .filter(|p| !matches!(p.kind, ParamKind::Int(_)))
            .map(|p| p.name.clone())
            .collect();
        let wrt = if floats.len() > 1 && self.rng.chance(0.2) {
            let mut chosen: Vec<String> = floats
                .iter()
                .filter(|_| self.rng.chance(0.5))
                .cloned()
                .collect();
            if chosen.is_empty() || chosen.len() == floats.len() {
                chosen = vec![self.rng.pick(&floats).clone()];
            }
            Some(chosen)
        } else {
            None
        };

        // Helpers: generic ones wherever the caller is generic or has order = 2 (its generic copy calls them).
        let need_generic = generic || order2;
        let mut funcs = Vec::new();
        let mut lens: Vec<usize> = params
            .iter()
            .filter_map(|p| match p.kind {
                ParamKind::Slice(l) => Some(l),
                _ => None,
            })
            .collect();
        lens.push(3);
        let helper_count = self.rng.weighted(&[3, 4, 2]);
        for h in 0..helper_count {
            let name = format!("h{h}");
            let helper_generic = need_generic || self.rng.chance(0.4);
            if self.sugar && self.rng.chance(0.2) {
                funcs.push(recursive_helper(name, helper_generic));
                continue;
            }
            if self.rng.chance(0.3) {
                let kind =
                    *self
                        .rng
                        .pick(&[CustomKind::Tanh, CustomKind::SinTimes, CustomKind::Softplus]);
                let mut ps = vec![Param {
                    name: "x".into(),
                    kind: ParamKind::Scalar,
                }];
                if kind == CustomKind::SinTimes {
                    ps.push(Param {
                        name: "y".into(),
                        kind: ParamKind::Scalar,
                    });
                }
                funcs.push(Func {
                    name,
                    generic: helper_generic,
                    kind: FnKind::Custom(kind),
                    params: ps,
                    body: vec![],
                    tail: vec![],
                    mut_slices: Vec::new(),
                    param_styles: Vec::new(),
                    result_array: false,
                });
            } else {
                let len = *self.rng.pick(&lens);
                let mut ps = vec![
                    Param {
                        name: "xs".into(),
                        kind: ParamKind::Slice(len),
                    },
                    Param {
                        name: "s".into(),
                        kind: ParamKind::Scalar,
                    },
                ];
                // `--forms`: an output buffer, which the helper writes (and may read before writing).
                if self.forms && self.rng.chance(0.5) {
                    ps.push(Param {
                        name: "out".into(),
                        kind: ParamKind::Out(*self.rng.pick(&lens)),
                    });
                }
                // `--forms`: a float output, read and written as `(*e)` like a mutable local.
                if self.forms && self.rng.chance(0.4) {
                    ps.push(Param {
                        name: "e".into(),
                        kind: ParamKind::OutFloat,
                    });
                }
                // `--forms`: a tuple parameter, destructured at the top of the body (some holding an
                // array, `(f64, [f64; 1])`). Before the output parameters: `h(&mut a, (a[0], b))` would borrow `a` while
                // it is borrowed mutably.
                if self.forms && self.rng.chance(0.3) {
                    // Chosen without a draw, so that a seed's programs keep their shapes.
                    let array = ps.len() % 2 == 1;
                    ps.insert(
                        2,
                        Param {
                            name: "p".into(),
                            kind: ParamKind::Pair(array),
                        },
                    );
                }
                // `--forms`: a matrix parameter `&[Vec<f64>]`, read as `grid[i][j]`; not with output parameters
                // (not supported by the macro: README, "not supported").
                let writes = ps
                    .iter()
                    .any(|p| matches!(p.kind, ParamKind::Out(_) | ParamKind::OutFloat));
                if self.forms && MATRIX_CALLS && !writes && self.rng.chance(0.3) {
                    ps.insert(
                        2,
                        Param {
                            name: "grid".into(),
                            kind: self.matrix_shape(),
                        },
                    );
                }
                // `--forms`: a tuple result `(f64, f64)`, destructured by the callers.
                let helper_pair = self.forms && self.rng.chance(0.3);
                // Helpers call the earlier ones (a DAG of calls), generic ones only generic ones.
                let ctx = Ctx::top(
                    helper_generic,
                    helper_pair,
                    callees_of(&funcs, helper_generic),
                );
                let stmts = self.rng.range(2, 6);
                funcs.push(self.func(
                    name,
                    helper_generic,
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
        let callees = callees_of(&funcs, need_generic);
        let ctx = Ctx::top(generic, pair, callees);
        let stmts = self.rng.range(5, 22);
        // `--sugar`: some scalar parameters taken by reference, `x: &f64`, read `(*x)`.
        if self.sugar {
            for p in &params {
                if p.kind == ParamKind::Scalar && self.rng.chance(0.3) {
                    self.scalar_refs.push(p.name.clone());
                }
            }
        }
        let mut main = self.func(
            "f".into(),
            generic,
            FnKind::Differentiable { order2, wrt },
            params,
            ctx,
            stmts,
        );
        for name in std::mem::take(&mut self.scalar_refs) {
            main.param_styles.push((name, ParamStyle::Scalar));
        }
        // `--sugar`: a pair result as an array, `-> [f64; 2]`.
        // Not where a `return` stands in a loop: an array carried out of a loop by `return` is refused by
        // design (README, "Not supported yet").
        main.result_array = self.sugar
            && main.returns_pair()
            && self.rng.chance(0.5)
            && !crate::print::returns_nested(&main);
        funcs.push(main);
        // `--forms`: some helpers that only the main function calls are declared inside its body.
        let mut nested = Vec::new();
        if self.forms {
            for k in 0..funcs.len() - 1 {
                let name = &funcs[k].name;
                let called_by_a_helper = funcs[..funcs.len() - 1]
                    .iter()
                    .enumerate()
                    .any(|(j, other)| j != k && crate::print::calls(other, name));
                if !called_by_a_helper && self.rng.chance(0.4) {
                    nested.push(name.clone());
                }
            }
        }
        // `--sugar`: the checked function's slices also as `&Vec<f64>` and `&[f64; N]` (API.md's table).
        if self.sugar {
            if let Some(main) = funcs.last_mut() {
                for p in &main.params {
                    if let ParamKind::Slice(_) = p.kind {
                        let style = match self.rng.range(0, 2) {
                            0 => continue,
                            1 => ParamStyle::Vec,
                            _ => ParamStyle::Array,
                        };
                        main.param_styles.push((p.name.clone(), style));
                    }
                }
            }
        }
        Program {
            id,
            funcs,
            nested,
            structs: None,
        }
    }

    /// The shape and type of a helper's matrix parameter (`--forms`): not `Vec<Vec<f64>>` by value, which a
    /// caller could pass only by cloning.
    fn matrix_shape(&mut self) -> ParamKind {
        let rows = self.rng.range(2, 3);
        let cols = self.rng.range(2, 4);
        let style = *self
            .rng
            .pick(&[MatStyle::Slice, MatStyle::Nested, MatStyle::NestedRef]);
        ParamKind::Matrix(rows, cols, style)
    }

    fn func(
        &mut self,
        name: String,
        generic: bool,
        kind: FnKind,
        params: Vec<Param>,
        ctx: Ctx,
        stmts: usize,
    ) -> Func {
        let mut scope = Scope::of_params(&params);
        for f in &mut scope.floats {
            if self.scalar_refs.contains(&f.name) {
                f.name = format!("(*{})", f.name);
            }
        }
        let mut body = Vec::new();
        for p in &params {
            if let ParamKind::Pair(array) = p.kind {
                let names = (format!("{}0", p.name), format!("{}1", p.name));
                for n in [&names.0, &names.1] {
                    scope.floats.push(FloatVar {
                        name: n.clone(),
                        mutable: false,
                        ambiguous: false,
                    });
                }
                body.push(Stmt::LetPair {
                    names,
                    init: PairInit::Var(p.name.clone(), array),
                });
            }
        }
        // Local arrays shaped for the helpers' slice parameters, so that calls pass them (and write them after).
        let mut lens: Vec<usize> = ctx
            .callees
            .iter()
            .flat_map(|c| c.params.iter())
            .filter_map(|p| match p {
                ParamKind::Slice(l) | ParamKind::Out(l) => Some(*l),
                _ => None,
            })
            .collect();
        lens.dedup();
        for len in lens {
            if self.rng.chance(0.7) {
                let name = self.name("arr");
                let fill = if self.rng.chance(0.5) {
                    Expr::Lit(0.0)
                } else {
                    self.expr(&scope, &ctx, 1)
                };
                let typed = self.typed(&scope, &fill);
                let annotated = !ctx.generic && !typed && self.rng.chance(0.5);
                let ambiguous = !ctx.generic && !typed && !annotated;
                scope.arrays.push(ArrayVar {
                    name: name.clone(),
                    len,
                    local: true,
                    frozen: false,
                    ambiguous,
                    fixed: false,
                });
                body.push(Stmt::LetArray {
                    name,
                    annotated,
                    init: ArrayInit::Vec(fill, IExpr::Lit(len)),
                });
            }
        }
        // `--forms`: local matrices shaped for the helpers' matrix parameters, filled by a loop nest.
        if self.forms && LOCAL_MATRICES {
            let mut shapes: Vec<(usize, usize)> = ctx
                .callees
                .iter()
                .flat_map(|c| c.params.iter())
                .filter_map(|p| match p {
                    ParamKind::Matrix(r, c, _) => Some((*r, *c)),
                    _ => None,
                })
                .collect();
            shapes.sort();
            shapes.dedup();
            for (rows, cols) in shapes {
                if self.rng.chance(0.7) {
                    body.push(self.let_matrix(&mut scope, rows, cols));
                    let m = scope.matrices.last().cloned().expect("just pushed");
                    let mut budget = 1;
                    body.push(self.matrix_nest(&mut scope, &ctx, &mut budget, &m));
                }
            }
        }
        let mut budget = stmts;
        body.extend(self.block(&mut scope, &ctx, &mut budget, stmts));
        let mut tail: Vec<Expr> = (0..if ctx.pair { 2 } else { 1 })
            .map(|_| self.tail(&scope, &ctx))
            .collect();
        for p in &params {
            if let ParamKind::Out(len) = p.kind {
                let read = self.output_writes(&scope, &ctx, &p.name, len, &mut body);
                if let (Some(read), Some(first)) = (read, tail.first_mut()) {
                    let e = std::mem::replace(first, Expr::Lit(0.0));
                    *first = Expr::Bin(BinOp::Add, Box::new(e), Box::new(read));
                }
            }
        }
        Func {
            name,
            generic,
            kind,
            params,
            body,
            tail,
            mut_slices: Vec::new(),
            param_styles: Vec::new(),
            result_array: false,
        }
    }

    /// Writes into the output buffer `out` of length `len` at the end of a body: some elements set, some
    /// accumulated into (which reads the incoming value), perhaps one read back after. Returns that read,
    /// for the result.
    fn output_writes(
        &mut self,
        scope: &Scope,
        ctx: &Ctx,
        out: &str,
        len: usize,
        body: &mut Vec<Stmt>,
    ) -> Option<Expr> {
        let mut written = false;
        for k in 0..len {
            if written && self.rng.chance(0.3) {
                // Left alone: the caller's value passes through.
                continue;
            }
            written = true;
            let op = *self
                .rng
                .pick(&[AssignOp::Set, AssignOp::Set, AssignOp::Add, AssignOp::Sub]);
            let mut value = self.expr(scope, ctx, 2);
            if self.rng.chance(0.3) {
                // Read back an element written before (or the incoming value of one not written yet).
                let j = self.rng.range(0, len - 1);
                value = Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Index(out.to_string(), IExpr::Lit(j))),
                    Box::new(value),
                );
            }
            body.push(Stmt::Assign {
                place: Place::Index(out.to_string(), IExpr::Lit(k)),
                op,
                value,
            });
        }
        self.rng.chance(0.5).then(|| {
            let j = self.rng.range(0, len - 1);
            Expr::Index(out.to_string(), IExpr::Lit(j))
        })
    }

    /// A result that reads several of the values computed, so that most of the body matters.
    fn tail(&mut self, scope: &Scope, ctx: &Ctx) -> Expr {
        let mut e = self.expr(scope, ctx, 1);
        let n = scope.floats.len();
        for k in 0..self.rng.range(1, 3).min(n) {
            // Prefer the most recent values.
            let v = &scope.floats[n - 1 - (k + self.rng.range(0, 1)).min(n - 1)];
            e = Expr::Bin(BinOp::Add, Box::new(e), Box::new(Expr::Var(v.name.clone())));
        }
        if let Some(a) = scope.arrays.iter().rev().find(|a| a.local) {
            let i = self.index(scope, a.len, &a.name);
            e = Expr::Bin(
                BinOp::Add,
                Box::new(e),
                Box::new(Expr::Index(a.name.clone(), i)),
            );
        }
        if self.forms {
            if let Some(m) = scope.matrices.iter().rev().find(|m| m.writable).cloned() {
                let i = self.index(scope, m.rows, "");
                let j = self.index(scope, m.cols, "");
                e = Expr::Bin(
                    BinOp::Add,
                    Box::new(e),
                    Box::new(Expr::Index2(m.name, i, j)),
                );
            }
        }
        // A result scaled as a mean or a weighted loss is (`(..) / xs.len() as f64`, `0.5 * (..)`):
        // the adjoint of a loop's result then reaches it scaled, which the reverse sweep of a loop fused
        // into its forward sweep computes before the loop (`reverse/plan.rs`, `LoopPlan::seeds`).
        if self.rng.chance(0.3) {
            e = self.scaled(scope, e);
        }
        e
    }

    /// `e` times, over or less a factor inactive in it, or negated.
    fn scaled(&mut self, scope: &Scope, e: Expr) -> Expr {
        let e = Box::new(e);
        let param = scope
            .arrays
            .iter()
            .find(|a| !a.local)
            .map(|a| a.name.clone());
        let int = scope.ints.first().map(|v| v.name.clone());
        match self.rng.range(0, 5) {
            0 => Expr::Bin(BinOp::Mul, e, Box::new(Expr::Lit(self.lit()))),
            1 => Expr::Bin(BinOp::Div, e, Box::new(Expr::Lit(self.lit()))),
            2 => Expr::Neg(e),
            3 => Expr::Bin(BinOp::Sub, Box::new(Expr::Lit(self.lit())), e),
            4 if param.is_some() => {
                let len = Expr::Cast(IExpr::Len(param.unwrap_or_default()));
                Expr::Bin(BinOp::Div, e, Box::new(len))
            }
            _ => match int {
                Some(n) => Expr::Bin(BinOp::Mul, Box::new(Expr::Cast(IExpr::Var(n))), e),
                None => Expr::Bin(BinOp::Mul, Box::new(Expr::Lit(self.lit())), e),
            },
        }
    }

    /// Up to `want` statements (nested ones counted against `budget` too).
    fn block(
        &mut self,
        scope: &mut Scope,
        ctx: &Ctx,
        budget: &mut usize,
        want: usize,
    ) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut pending_write: Option<String> = None;
        let floats_before = scope.floats.len();
        for _ in 0..want {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            if let Some(arr) = pending_write.take() {
                // The known bug shape: an array passed to a call and written again after it.
                if let Some(a) = scope
                    .arrays
                    .iter()
                    .find(|a| a.name == arr && !a.frozen)
                    .cloned()
                {
                    out.push(self.index_write(scope, ctx, &a));
                    continue;
                }
            }
            let s = self.stmt(scope, ctx, budget, &mut pending_write);
            out.push(s);
        }
        if ctx.depth > 0 && self.rng.chance(0.8) {
            if let Some(s) = self.flow_out(scope, ctx, floats_before) {
                out.push(s);
            }
        }
        out
    }

    /// At the end of a nested block, makes its last local value reach the result: accumulate it into a mutable
    /// variable or an element of a local array from outside the block.
    fn flow_out(&mut self, scope: &Scope, ctx: &Ctx, floats_before: usize) -> Option<Stmt> {
        let local = scope.floats.get(floats_before..)?.last()?.name.clone();
        let outer: Vec<FloatVar> = scope.floats[..floats_before]
            .iter()
            .filter(|f| f.mutable)
            .cloned()
            .collect();
        let arrays: Vec<ArrayVar> = scope
            .arrays
            .iter()
            .filter(|a| a.local && !a.frozen)
            .cloned()
            .collect();
        let leaf = self.leaf(scope);
        let value = Expr::Bin(
            *self.rng.pick(&[BinOp::Add, BinOp::Mul]),
            Box::new(Expr::Var(local)),
            Box::new(leaf),
        );
        let value = self.squash(scope, ctx, value);
        if !outer.is_empty() && (arrays.is_empty() || self.rng.chance(0.6)) {
            let v = self.rng.pick(&outer).name.clone();
            Some(Stmt::Assign {
                place: Place::Var(v),
                op: AssignOp::Add,
                value,
            })
        } else if !arrays.is_empty() {
            let a = self.rng.pick(&arrays).clone();
            let i = self.index(scope, a.len, "");
            Some(Stmt::Assign {
                place: Place::Index(a.name, i),
                op: AssignOp::Add,
                value,
            })
        } else {
            None
        }
    }

    fn stmt(
        &mut self,
        scope: &mut Scope,
        ctx: &Ctx,
        budget: &mut usize,
        pending: &mut Option<String>,
    ) -> Stmt {
        let mutable_floats = scope.floats.iter().any(|f| f.mutable);
        let locals = scope.arrays.iter().any(|a| a.local && !a.frozen);
        let nest = ctx.depth < 3;
        let local_matrices = scope.matrices.iter().any(|m| m.writable);
        // `d = c;` of two fixed-size arrays of one length, `d` writable here.
        let whole: Vec<(String, String)> = scope
            .arrays
            .iter()
            .filter(|d| d.fixed && !d.frozen)
            .flat_map(|d| {
                scope
                    .arrays
                    .iter()
                    .filter(move |c| c.fixed && c.len == d.len && c.name != d.name)
                    .map(move |c| (d.name.clone(), c.name.clone()))
            })
            .collect();
        // Calls, more often with `--forms` where a callee writes an output buffer.
        let call = match ctx.callees.len() {
            0 => 0,
            _ if self.forms && writes_outputs(&ctx.callees) => 30,
            _ => 15,
        };
        let weights = [
            20,                                                 // 0 let
            if scope.arrays.len() < 4 { 8 } else { 1 },         // 1 array
            if mutable_floats { 12 } else { 0 },                // 2 assign var
            if locals { 14 } else { 0 },                        // 3 assign index
            if nest { 12 } else { 0 },                          // 4 for range
            if nest { 6 } else { 0 },                           // 5 for over values
            if nest { 3 } else { 0 },                           // 6 while
            if nest { 3 } else { 0 },                           // 7 loop
            if nest { 7 } else { 0 },                           // 8 if
            if nest && !scope.ints.is_empty() { 4 } else { 0 }, // 9 match
            2,                                                  // 10 early return
            if ctx.in_loop.is_some() { 5 } else { 0 },          // 11 break
            call,                                               // 12 call
            if self.forms { 4 } else { 0 },                     // 13 closure
            if self.forms && LOCAL_MATRICES && scope.matrices.len() < 3 {
                3
            } else {
                0
            }, // 14 matrix
            if self.forms && !scope.matrices.is_empty() && nest {
                6
            } else {
                0
            }, // 15 matrix loop nest
            if self.forms && local_matrices { 4 } else { 0 },   // 16 matrix element write
            if self.forms { 5 } else { 0 },                     // 17 tuple let
            if whole.is_empty() { 0 } else { 4 },               // 18 array assigned whole
            if locals && mutable_floats { 6 } else { 0 },       // 19 array filled whole, then read
            // 20 a float bound to an array's name in a nested block (`let xs: f64 = xs[0] * a;`), the array
            // out of reach until the block ends
            if self.forms && ctx.depth > 0 && !scope.arrays.is_empty() {
                3
            } else {
                0
            },
            // `--sugar`: 21 an iterator direction chain under a Horner accumulation, 22 a destructuring
            // assignment, 23 a labelled block value, 24 `break 'label value` inside one
            if self.sugar && nest { 10 } else { 0 },
            if self.sugar { 7 } else { 0 },
            if self.sugar && nest { 5 } else { 0 },
            if self.sugar && ctx.label.is_some() {
                8
            } else {
                0
            },
            // 25 `if c { continue; }` in a `for` (`--sugar`)
            if self.sugar && ctx.in_for { 3 } else { 0 },
            // 26 `if c { continue 'l; }` or `break 'l;` of a labelled `for` around (`--sugar`)
            if self.sugar && !ctx.loop_labels.is_empty() {
                15
            } else {
                0
            },
        ];
        match self.rng.weighted(&weights) {
            0 => self.let_float(scope, ctx),
            1 => self.let_array(scope, ctx),
            2 => {
                let vars: Vec<FloatVar> =
                    scope.floats.iter().filter(|f| f.mutable).cloned().collect();
                let v = self.rng.pick(&vars).clone();
                let op = *self.rng.pick(&[
                    AssignOp::Set,
                    AssignOp::Add,
                    AssignOp::Add,
                    AssignOp::Sub,
                    AssignOp::Mul,
                ]);
                let value = self.expr(scope, ctx, 2);
                let value = if op == AssignOp::Mul {
                    self.near_one(scope, value)
                } else {
                    self.squash(scope, ctx, value)
                };
                Stmt::Assign {
                    place: Place::Var(v.name),
                    op,
                    value,
                }
            }
            3 => {
                let arrs: Vec<ArrayVar> = scope
                    .arrays
                    .iter()
                    .filter(|a| a.local && !a.frozen)
                    .cloned()
                    .collect();
                let a = self.rng.pick(&arrs).clone();
                self.index_write(scope, ctx, &a)
            }
            19 => {
                let arrs: Vec<ArrayVar> = scope
                    .arrays
                    .iter()
                    .filter(|a| a.local && !a.frozen)
                    .cloned()
                    .collect();
                let a = self.rng.pick(&arrs).clone();
                let vars: Vec<FloatVar> =
                    scope.floats.iter().filter(|f| f.mutable).cloned().collect();
                let s = self.rng.pick(&vars).clone();
                self.fill_and_read(scope, ctx, &a, &s.name)
            }
            20 => self.shadow_array(scope, ctx),
            4 => self.for_range(scope, ctx, budget),
            5 => self.for_values(scope, ctx, budget),
            6 | 7 => {
                let counter = self.name("k");
                let bound = self.rng.range(1, 4);
                let mut inner = scope.clone();
                inner.ints.push(IntVar {
                    name: counter.clone(),
                    lo: 0,
                    hi: bound - 1,
                });
                let is_loop = self.rng.chance(0.5);
                let result = if is_loop && self.rng.chance(0.5) {
                    Some(self.name("t"))
                } else {
                    None
                };
                let mut c = ctx.clone();
                c.depth += 1;
                c.looping = true;
                c.in_loop = if is_loop {
                    Some(result.is_some())
                } else {
                    None
                };
                c.in_for = false;
                // `continue 'l` / `break 'l` of an outer `for` out of `let r = loop { .. }` too: its
                // expansion did not compile (autodiff-fuzz --sugar --seed 24025, program p12), then was a
                // spanned error, now is supported (tests/fuzz25.rs).
                let want = self.rng.range(1, 4);
                let body = self.block(&mut inner, &c, budget, want);
                if is_loop {
                    let result = result.map(|name| {
                        // The final `break value` comes after the increment: the counter may equal the bound.
                        let mut after = inner.clone();
                        after.ints.retain(|v| v.name != counter);
                        let v = self.expr(&after, &c, 2);
                        scope.floats.push(FloatVar {
                            name: name.clone(),
                            mutable: false,
                            ambiguous: false,
                        });
                        (name, v)
                    });
                    self.fix_ambiguous(scope, &result);
                    Stmt::Loop {
                        counter,
                        bound,
                        result,
                        body,
                    }
                } else {
                    let cond = if self.rng.chance(0.3) {
                        Some(self.float_cond(scope, ctx))
                    } else {
                        None
                    };
                    Stmt::While {
                        counter,
                        bound,
                        cond,
                        body,
                    }
                }
            }
            8 => {
                let cond = self.cond(scope, ctx);
                let mut c = ctx.clone();
                c.depth += 1;
                let want = self.rng.range(1, 3);
                let then = self.block(&mut scope.clone(), &c, budget, want);
                let els = if self.rng.chance(0.5) {
                    let want = self.rng.range(1, 3);
                    Some(self.block(&mut scope.clone(), &c, budget, want))
                } else {
                    None
                };
                Stmt::If { cond, then, els }
            }
            9 => {
                let scrut = self.match_scrut(scope);
                let mut c = ctx.clone();
                c.depth += 1;
                let pats = self.pats(scope, ctx, &scrut);
                let arms = pats
                    .into_iter()
                    .map(|p| {
                        let want = self.rng.range(1, 2);
                        let body = self.arm_block(scope, &c, budget, want, &p, &scrut);
                        (p, body)
                    })
                    .collect();
                Stmt::Match { scrut, arms }
            }
            10 => {
                let cond = self.float_cond(scope, ctx);
                let values = (0..if ctx.pair { 2 } else { 1 })
                    .map(|_| self.expr(scope, ctx, 2))
                    .collect();
                Stmt::ReturnIf { cond, values }
            }
            11 => {
                let cond = self.cond(scope, ctx);
                let value = if ctx.in_loop == Some(true) {
                    Some(self.expr(scope, ctx, 2))
                } else {
                    None
                };
                Stmt::BreakIf { cond, value }
            }
            12 => self.call_stmt(scope, ctx, pending),
            13 => self.let_closure(scope),
            14 => {
                let rows = self.rng.range(2, 3);
                let cols = self.rng.range(2, 4);
                self.let_matrix(scope, rows, cols)
            }
            15 => {
                let m = self.rng.pick(&scope.matrices).clone();
                self.matrix_nest(scope, ctx, budget, &m)
            }
            16 => {
                let ms: Vec<MatVar> = scope
                    .matrices
                    .iter()
                    .filter(|m| m.writable)
                    .cloned()
                    .collect();
                let m = self.rng.pick(&ms).clone();
                let i = self.index(scope, m.rows, "");
                let j = self.index(scope, m.cols, "");
                self.matrix_write(scope, ctx, &m, i, j)
            }
            17 => self.let_pair(scope, ctx),
            18 => {
                let (target, source) = self.rng.pick(&whole).clone();
                Stmt::AssignWhole { target, source }
            }
            21 => self.for_chain(scope, ctx, budget),
            22 => self.destructure(scope, ctx),
            23 => self.labelled(scope, ctx, budget),
            25 => Stmt::ContinueIf(self.cond(scope, ctx)),
            26 => {
                let label = self.rng.pick(&ctx.loop_labels).clone();
                Stmt::JumpIf {
                    cond: self.cond(scope, ctx),
                    label,
                    cont: self.rng.chance(0.5),
                }
            }
            _ => {
                let label = ctx
                    .label
                    .clone()
                    .expect("weighted only inside a labelled block");
                let cond = self.cond(scope, ctx);
                let value = self.expr(scope, ctx, 2);
                Stmt::BreakLabel { label, cond, value }
            }
        }
    }

    /// Makes the value of a `let r = loop` typed when its break value is ambiguous by annotating nothing: such a
    /// result is recorded as ambiguous instead.
    fn fix_ambiguous(&mut self, scope: &mut Scope, result: &Option<(String, Expr)>) {
        if let Some((name, value)) = result {
            let amb = !self.typed(scope, value);
            if let Some(v) = scope.floats.iter_mut().rev().find(|f| &f.name == name) {
                v.ambiguous = amb;
            }
        }
    }

    /// `1 + small` for products, so that repeated `*=` stays bounded.
    fn near_one(&mut self, scope: &Scope, e: Expr) -> Expr {
        let inner = if self.typed(scope, &e) {
            Expr::Method(Method::Sin, Box::new(e))
        } else {
            e
        };
        Expr::Bin(
            BinOp::Add,
            Box::new(Expr::Lit(1.0)),
            Box::new(Expr::Bin(
                BinOp::Mul,
                Box::new(Expr::Lit(0.5)),
                Box::new(inner),
            )),
        )
    }

    /// `let xs: f64 = <expr>;` in a nested block, where `xs` names an array in scope: the float shadows the
    /// array until the block ends (the array's name meant two things to the macro's name-based analyses:
    /// `let x = s;` in a loop over `x` made `s` an array, and the loop vanished from the sweeps). The value
    /// may read the array itself (`let xs: f64 = xs[0] * a;` reads it before the name is rebound).
    fn shadow_array(&mut self, scope: &mut Scope, ctx: &Ctx) -> Stmt {
        let arrays = scope.arrays.clone();
        let a = self.rng.pick(&arrays).clone();
        let init = self.expr(scope, ctx, 2);
        let init = self.squash(scope, ctx, init);
        let typed = self.typed(scope, &init);
        let annotated = !ctx.generic && !typed;
        scope.arrays.retain(|x| x.name != a.name);
        scope.floats.push(FloatVar {
            name: a.name.clone(),
            mutable: false,
            ambiguous: false,
        });
        Stmt::Let {
            name: a.name,
            mutable: false,
            annotated,
            init,
        }
    }

    fn let_float(&mut self, scope: &mut Scope, ctx: &Ctx) -> Stmt {
        let shadow = self.rng.chance(0.1) && scope.floats.iter().any(|f| f.name.starts_with('t'));
        let name = if shadow {
            let ts: Vec<FloatVar> = scope
                .floats
                .iter()
                .filter(|f| f.name.starts_with('t'))
                .cloned()
                .collect();
            self.rng.pick(&ts).name.clone()
        } else if self.sugar && self.rng.chance(0.1) {
            // A capitalised local, which a `match` binding of the same name shadows (`--sugar`).
            self.name("N")
        } else {
            self.name("t")
        };
        let init = if self.rng.chance(0.05) {
            Expr::Lit(self.lit())
        } else {
            self.expr(scope, ctx, 3)
        };
        let mutable = self.rng.chance(0.5);
        let typed = self.typed(scope, &init);
        let annotated = !ctx.generic && (!typed || self.rng.chance(0.1)) && self.rng.chance(0.6);
        scope.floats.retain(|f| f.name != name);
        scope.floats.push(FloatVar {
            name: name.clone(),
            mutable,
            ambiguous: !ctx.generic && !typed && !annotated,
        });
        Stmt::Let {
            name,
            mutable,
            annotated,
            init,
        }
    }

    fn let_array(&mut self, scope: &mut Scope, ctx: &Ctx) -> Stmt {
        let fill = if self.rng.chance(0.7) {
            Expr::Lit(0.0)
        } else {
            self.expr(scope, ctx, 1)
        };
        let fixed_arrays: Vec<ArrayVar> =
            scope.arrays.iter().filter(|a| a.fixed).cloned().collect();
        let copies = if fixed_arrays.is_empty() { 0 } else { 2 };
        let (name, len, init) = match self.rng.weighted(&[5, 3, 2, copies]) {
            0 => {
                let name = self.name("arr");
                let with_len: Vec<ArrayVar> = scope.arrays.clone();
                if !with_len.is_empty() && self.rng.chance(0.7) {
                    let a = self.rng.pick(&with_len).clone();
                    (name, a.len, ArrayInit::Vec(fill, IExpr::Len(a.name)))
                } else {
                    let len = self.rng.range(2, 5);
                    (name, len, ArrayInit::Vec(fill, IExpr::Lit(len)))
                }
            }
            1 => (self.name("buf"), 3, ArrayInit::Fixed(fill, 3)),
            2 => {
                let len = self.rng.range(2, 4);
                let es = (0..len).map(|_| self.expr(scope, ctx, 1)).collect();
                (self.name("buf"), len, ArrayInit::List(es))
            }
            _ => {
                let a = self.rng.pick(&fixed_arrays).clone();
                (self.name("cp"), a.len, ArrayInit::CopyOf(a.name))
            }
        };
        let typed = match &init {
            ArrayInit::Vec(e, _) | ArrayInit::Fixed(e, _) => self.typed(scope, e),
            ArrayInit::List(es) => es.iter().any(|e| self.typed(scope, e)),
            ArrayInit::CopyOf(src) => scope.arrays.iter().any(|a| &a.name == src && !a.ambiguous),
        };
        let fixed = !matches!(init, ArrayInit::Vec(..));
        let annotated = !ctx.generic && self.rng.chance(if typed { 0.1 } else { 0.6 });
        scope.arrays.push(ArrayVar {
            name: name.clone(),
            len,
            local: true,
            frozen: false,
            ambiguous: !ctx.generic && !typed && !annotated,
            fixed,
        });
        Stmt::LetArray {
            name,
            annotated,
            init,
        }
    }

    fn index_write(&mut self, scope: &Scope, ctx: &Ctx, a: &ArrayVar) -> Stmt {
        // `a[a.len() - 1 - i] += ..` borrows `a` twice: write indexes without `.len()`.
        let i = self.index(scope, a.len, "");
        let op = *self
            .rng
            .pick(&[AssignOp::Set, AssignOp::Set, AssignOp::Add, AssignOp::Sub]);
        let mut value = self.expr(scope, ctx, 2);
        if op == AssignOp::Set && self.rng.chance(0.4) {
            // A stencil: the neighbours of the written element.
            let j = self.index(scope, a.len, &a.name);
            value = Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Index(a.name.clone(), j)),
                Box::new(value),
            );
        }
        let value = self.squash(scope, ctx, value);
        Stmt::Assign {
            place: Place::Index(a.name.clone(), i),
            op,
            value,
        }
    }

    /// `for q in 0..2 { for j in 0..a.len() { a[j] = .. } [a[0] = ..] for j in 0..a.len() { s += a[j] * .. } }`:
    /// an array written whole in a loop body, maybe overwritten in part, and read by a later loop of the
    /// body, the next iteration overwriting it: the pattern whose reads the reverse sweep takes from one
    /// copy of the array (`reverse::plan::ArraySnapshot` in the macro).
    fn fill_and_read(&mut self, scope: &Scope, ctx: &Ctx, a: &ArrayVar, s: &str) -> Stmt {
        let outer = self.name("q");
        let mut body_scope = scope.clone();
        body_scope.ints.push(IntVar {
            name: outer.clone(),
            lo: 0,
            hi: 1,
        });
        let mut c = ctx.clone();
        c.looping = true;
        let range = |var: &str, lo: usize, hi: IExpr| ForIter::Range {
            var: var.to_string(),
            lo: IExpr::Lit(lo),
            hi,
            inclusive: false,
            rev: false,
            step: None,
        };
        let len = IExpr::Len(a.name.clone());
        let mut body = Vec::new();
        // The loop that writes every element.
        let j = self.name("j");
        let mut inner = body_scope.clone();
        inner.ints.push(IntVar {
            name: j.clone(),
            lo: 0,
            hi: a.len - 1,
        });
        let value = self.expr(&inner, &c, 2);
        let value = self.squash(&inner, &c, value);
        body.push(Stmt::For {
            iter: range(&j, 0, len.clone()),
            body: vec![Stmt::Assign {
                place: Place::Index(a.name.clone(), IExpr::Var(j.clone())),
                op: AssignOp::Set,
                value,
            }],
        });
        // Sometimes overwritten in part: one element, or a loop over all but the first from its neighbour.
        match self.rng.weighted(&[2, 1, 1]) {
            0 => {}
            1 => {
                let value = self.expr(&body_scope, &c, 2);
                let value = self.squash(&body_scope, &c, value);
                body.push(Stmt::Assign {
                    place: Place::Index(a.name.clone(), IExpr::Lit(0)),
                    op: AssignOp::Add,
                    value,
                });
            }
            _ if a.len >= 2 => {
                let j = self.name("j");
                let mut inner = body_scope.clone();
                inner.ints.push(IntVar {
                    name: j.clone(),
                    lo: 1,
                    hi: a.len - 1,
                });
                let before = IExpr::Sub(Box::new(IExpr::Var(j.clone())), Box::new(IExpr::Lit(1)));
                let value = Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Index(a.name.clone(), before)),
                    Box::new(self.expr(&inner, &c, 1)),
                );
                let value = self.squash(&inner, &c, value);
                body.push(Stmt::For {
                    iter: range(&j, 1, len.clone()),
                    body: vec![Stmt::Assign {
                        place: Place::Index(a.name.clone(), IExpr::Var(j)),
                        op: AssignOp::Set,
                        value,
                    }],
                });
            }
            _ => {}
        }
        // The loop that reads it.
        let j = self.name("j");
        let mut inner = body_scope.clone();
        inner.ints.push(IntVar {
            name: j.clone(),
            lo: 0,
            hi: a.len - 1,
        });
        let mut value = Expr::Bin(
            BinOp::Mul,
            Box::new(Expr::Index(a.name.clone(), IExpr::Var(j.clone()))),
            Box::new(self.expr(&inner, &c, 1)),
        );
        // Mostly two elements a read (the macro copies an array read more than once per element).
        if self.rng.chance(0.7) {
            let next = IExpr::Add(Box::new(IExpr::Var(j.clone())), Box::new(IExpr::Lit(1)));
            let neighbour = Expr::Index(a.name.clone(), IExpr::Rem(Box::new(next), a.len));
            value = Expr::Bin(BinOp::Mul, Box::new(value), Box::new(neighbour));
        }
        let value = self.squash(&inner, &c, value);
        body.push(Stmt::For {
            iter: range(&j, 0, len),
            body: vec![Stmt::Assign {
                place: Place::Var(s.to_string()),
                op: AssignOp::Add,
                value,
            }],
        });
        Stmt::For {
            iter: range(&outer, 0, IExpr::Lit(2)),
            body,
        }
    }

    /// In a loop, a bounded function of `e` (see `Ctx::looping`).
    fn squash(&mut self, scope: &Scope, ctx: &Ctx, e: Expr) -> Expr {
        if ctx.looping {
            let m = *self.rng.pick(&[Method::Tanh, Method::Sin, Method::Atan]);
            self.method(scope, m, e)
        } else {
            e
        }
    }

    fn for_range(&mut self, scope: &mut Scope, ctx: &Ctx, budget: &mut usize) -> Stmt {
        let var = self.name("i");
        let ints: Vec<IntVar> = scope
            .ints
            .iter()
            .filter(|v| v.lo == v.hi && v.lo >= 1)
            .cloned()
            .collect();
        let (lo, hi, inclusive, min, max) = match self.rng.weighted(&[
            if scope.arrays.is_empty() { 0 } else { 8 },
            3,
            if ints.is_empty() { 0 } else { 3 },
        ]) {
            0 => {
                let a = self.rng.pick(&scope.arrays).clone();
                let len = IExpr::Len(a.name.clone());
                let minus1 = IExpr::Sub(Box::new(len.clone()), Box::new(IExpr::Lit(1)));
                match self.rng.weighted(&[4, 2, 3, 1]) {
                    0 => (IExpr::Lit(0), len, false, 0, a.len - 1),
                    1 => (IExpr::Lit(1), len, false, 1, a.len - 1),
                    2 => (IExpr::Lit(0), minus1, false, 0, a.len - 2),
                    _ => (IExpr::Lit(0), minus1, true, 0, a.len - 1),
                }
            }
            1 => {
                let n = self.rng.range(2, 4);
                (IExpr::Lit(0), IExpr::Lit(n), false, 0, n - 1)
            }
            _ => {
                let v = self.rng.pick(&ints).clone();
                (IExpr::Lit(0), IExpr::Var(v.name), false, 0, v.lo - 1)
            }
        };
        let rev = self.rng.chance(0.3);
        let step = if self.rng.chance(0.2) { Some(2) } else { None };
        let mut inner = scope.clone();
        inner.ints.push(IntVar {
            name: var.clone(),
            lo: min,
            hi: max,
        });
        let mut c = ctx.clone();
        c.depth += 1;
        c.looping = true;
        c.in_loop = None;
        c.in_for = true;
        // `--sugar`: a label, which loops nested in this one may `continue` or `break`.
        let label = (self.sugar && self.rng.chance(0.3)).then(|| self.name("l"));
        c.loop_labels.extend(label.clone());
        let want = self.rng.range(1, 4);
        let body = self.block(&mut inner, &c, budget, want);
        let s = Stmt::For {
            iter: ForIter::Range {
                var,
                lo,
                hi,
                inclusive,
                rev,
                step,
            },
            body,
        };
        match label {
            Some(label) => Stmt::LabelledFor {
                label,
                inner: Box::new(s),
            },
            None => s,
        }
    }

    fn for_values(&mut self, scope: &mut Scope, ctx: &Ctx, budget: &mut usize) -> Stmt {
        if scope.arrays.is_empty() {
            return self.for_range(scope, ctx, budget);
        }
        let a = self.rng.pick(&scope.arrays).clone();
        let var = self.name("v");
        let mut inner = scope.clone();
        inner.iterate(&a, &var);
        let iter = match self.rng.weighted(&[3, 3, 2]) {
            0 => ForIter::Values { var, arr: a.name },
            1 => {
                let index = self.name("i");
                inner.ints.push(IntVar {
                    name: index.clone(),
                    lo: 0,
                    hi: a.len - 1,
                });
                ForIter::Enumerate {
                    index,
                    var,
                    arr: a.name,
                }
            }
            _ => {
                let b = self.rng.pick(&scope.arrays).clone();
                let var_b = self.name("v");
                inner.iterate(&b, &var_b);
                ForIter::Zip {
                    var_a: var,
                    var_b,
                    arr_a: a.name,
                    arr_b: b.name,
                }
            }
        };
        let mut c = ctx.clone();
        c.depth += 1;
        c.looping = true;
        c.in_loop = None;
        c.in_for = true;
        let want = self.rng.range(1, 3);
        let body = self.block(&mut inner, &c, budget, want);
        Stmt::For { iter, body }
    }

    fn call_stmt(&mut self, scope: &mut Scope, ctx: &Ctx, pending: &mut Option<String>) -> Stmt {
        let mut callee = self.rng.pick(&ctx.callees).clone();
        // `--forms`: calls of the helpers with output buffers half the time, if there are any.
        let writers: Vec<Callee> = ctx
            .callees
            .iter()
            .filter(|c| writes_outputs(std::slice::from_ref(c)))
            .cloned()
            .collect();
        if !writers.is_empty() && self.rng.chance(0.5) {
            callee = self.rng.pick(&writers).clone();
        }
        let Some(args) = self.call_args(scope, ctx, &callee, pending) else {
            return self.let_float(scope, ctx);
        };
        if callee.pair {
            // `let (a, b) = h(..);`
            let init = Expr::Call(callee.name.clone(), args.clone());
            let ambiguous = !ctx.generic && !self.typed(scope, &init);
            let names = (self.name("t"), self.name("t"));
            for n in [&names.0, &names.1] {
                scope.floats.retain(|f| &f.name != n);
                scope.floats.push(FloatVar {
                    name: n.clone(),
                    mutable: false,
                    ambiguous,
                });
            }
            return Stmt::LetPair {
                names,
                init: PairInit::Val(PairVal::Call(callee.name, args)),
            };
        }
        let name = self.name("t");
        let mutable = self.rng.chance(0.3);
        let init = Expr::Call(callee.name, args);
        let ambiguous = !ctx.generic && !self.typed(scope, &init);
        scope.floats.push(FloatVar {
            name: name.clone(),
            mutable,
            ambiguous,
        });
        Stmt::Let {
            name,
            mutable,
            annotated: false,
            init,
        }
    }

    /// The arguments of a call of `callee`, or `None` if nothing in scope fits a parameter.
    fn call_args(
        &mut self,
        scope: &Scope,
        ctx: &Ctx,
        callee: &Callee,
        pending: &mut Option<String>,
    ) -> Option<Vec<Arg>> {
        let mut args = Vec::new();
        for p in &callee.params {
            match p {
                ParamKind::Slice(len) => {
                    // `--forms`: a row of a matrix as wide as the slice, `&grid[i]`.
                    let rows: Vec<MatVar> = scope
                        .matrices
                        .iter()
                        .filter(|m| m.cols == *len)
                        .cloned()
                        .collect();
                    if self.forms && !rows.is_empty() && self.rng.chance(0.5) {
                        let m = self.rng.pick(&rows).clone();
                        let i = self.index(scope, m.rows, "");
                        args.push(Arg::MatrixRow(m.name, i));
                        continue;
                    }
                    // `--forms`: a sub-slice of a longer array, `&a[k..k + len]` or `&a[k..]`.
                    // (Not one this call writes already.)
                    let written: Vec<&str> = args
                        .iter()
                        .filter_map(|a| match a {
                            Arg::OutArray(n) | Arg::OutElement(n, _) => Some(n.as_str()),
                            _ => None,
                        })
                        .collect();
                    let longer: Vec<ArrayVar> = scope
                        .arrays
                        .iter()
                        .filter(|a| a.len > *len && !written.contains(&a.name.as_str()))
                        .cloned()
                        .collect();
                    if self.forms && !longer.is_empty() && self.rng.chance(0.3) {
                        let a = self.rng.pick(&longer).clone();
                        let start = self.rng.range(0, a.len - len);
                        let end =
                            (start + len < a.len || self.rng.chance(0.5)).then_some(start + len);
                        args.push(Arg::SubSlice(a.name, start, end));
                        continue;
                    }
                    let fits: Vec<ArrayVar> = scope
                        .arrays
                        .iter()
                        .filter(|a| a.len == *len)
                        .cloned()
                        .collect();
                    if fits.is_empty() {
                        return None;
                    }
                    let locals: Vec<ArrayVar> = fits.iter().filter(|a| a.local).cloned().collect();
                    let a = if !locals.is_empty() && self.rng.chance(0.8) {
                        self.rng.pick(&locals).clone()
                    } else {
                        self.rng.pick(&fits).clone()
                    };
                    if a.local {
                        if self.rng.chance(0.8) {
                            *pending = Some(a.name.clone());
                        }
                        args.push(Arg::LocalArray(a.name));
                    } else {
                        args.push(Arg::SliceParam(a.name));
                    }
                }
                ParamKind::OutFloat => {
                    // A mutable float, or an element of a local array not passed already.
                    let floats: Vec<FloatVar> =
                        scope.floats.iter().filter(|f| f.mutable).cloned().collect();
                    let passed: Vec<&str> = args
                        .iter()
                        .filter_map(|a| match a {
                            Arg::LocalArray(n) | Arg::OutArray(n) | Arg::SubSlice(n, ..) => {
                                Some(n.as_str())
                            }
                            _ => None,
                        })
                        .collect();
                    let arrays: Vec<ArrayVar> = scope
                        .arrays
                        .iter()
                        .filter(|a| a.local && !a.frozen && !passed.contains(&a.name.as_str()))
                        .cloned()
                        .collect();
                    if !floats.is_empty() && (arrays.is_empty() || self.rng.chance(0.6)) {
                        args.push(Arg::OutFloat(self.rng.pick(&floats).name.clone()));
                    } else if !arrays.is_empty() {
                        let a = self.rng.pick(&arrays).clone();
                        let i = self.index(scope, a.len, "");
                        args.push(Arg::OutElement(a.name, i));
                    } else {
                        return None;
                    }
                }
                ParamKind::Out(len) => {
                    // A local array of that length, not iterated here and not passed already.
                    let passed: Vec<&str> = args
                        .iter()
                        .filter_map(|a| match a {
                            Arg::LocalArray(n)
                            | Arg::OutArray(n)
                            | Arg::OutElement(n, _)
                            | Arg::SubSlice(n, ..) => Some(n.as_str()),
                            _ => None,
                        })
                        .collect();
                    let fits: Vec<ArrayVar> = scope
                        .arrays
                        .iter()
                        .filter(|a| {
                            a.len == *len
                                && a.local
                                && !a.frozen
                                && !passed.contains(&a.name.as_str())
                        })
                        .cloned()
                        .collect();
                    if fits.is_empty() {
                        return None;
                    }
                    let a = self.rng.pick(&fits).clone();
                    if self.rng.chance(0.5) {
                        *pending = Some(a.name.clone());
                    }
                    args.push(Arg::OutArray(a.name));
                }
                ParamKind::Pair(array) => {
                    let a = self.expr(scope, ctx, 1);
                    let b = self.expr(scope, ctx, 1);
                    args.push(Arg::Pair(a, b, *array));
                }
                ParamKind::Matrix(rows, cols, style) => {
                    let fits: Vec<(String, &'static str)> = scope
                        .matrices
                        .iter()
                        .filter(|m| m.rows == *rows && m.cols == *cols && !m.rows_only)
                        .filter_map(|m| style.pass_from(m.style).map(|how| (m.name.clone(), how)))
                        .collect();
                    if fits.is_empty() {
                        return None;
                    }
                    let (name, how) = self.rng.pick(&fits).clone();
                    args.push(Arg::Matrix(name, how));
                }
                _ => {
                    let e = self.expr(scope, ctx, 1);
                    args.push(Arg::Float(e));
                }
            }
        }
        Some(args)
    }

    /// `let mut matN: Vec<Vec<f64>> = vec![vec![fill; cols]; rows];` (`--forms`).
    fn let_matrix(&mut self, scope: &mut Scope, rows: usize, cols: usize) -> Stmt {
        let name = self.name("mat");
        let fill = if self.rng.chance(0.6) {
            Expr::Lit(0.0)
        } else {
            Expr::Lit(self.lit())
        };
        let fixed = self.rng.chance(0.4);
        scope.matrices.push(MatVar {
            name: name.clone(),
            rows,
            cols,
            writable: true,
            style: if fixed {
                MatStyle::Nested
            } else {
                MatStyle::Vec
            },
            rows_only: fixed,
        });
        Stmt::LetMatrix {
            name,
            rows,
            cols,
            fill,
            fixed,
        }
    }

    /// `m[i][j] op= value`, the value perhaps reading a neighbour of the element (`--forms`).
    fn matrix_write(&mut self, scope: &Scope, ctx: &Ctx, m: &MatVar, i: IExpr, j: IExpr) -> Stmt {
        let op = *self
            .rng
            .pick(&[AssignOp::Set, AssignOp::Set, AssignOp::Add, AssignOp::Sub]);
        let mut value = self.expr(scope, ctx, 2);
        if self.rng.chance(0.5) {
            let i2 = self.index(scope, m.rows, "");
            let j2 = self.index(scope, m.cols, "");
            value = Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Index2(m.name.clone(), i2, j2)),
                Box::new(value),
            );
        }
        let value = self.squash(scope, ctx, value);
        Stmt::Assign {
            place: Place::Index2(m.name.clone(), i, j),
            op,
            value,
        }
    }

    /// `for i in 0..rows { for j in 0..cols { m[i][j] op= ..; .. } }` (`--forms`).
    fn matrix_nest(
        &mut self,
        scope: &mut Scope,
        ctx: &Ctx,
        budget: &mut usize,
        m: &MatVar,
    ) -> Stmt {
        let vi = self.name("i");
        let vj = self.name("j");
        let mut inner = scope.clone();
        inner.ints.push(IntVar {
            name: vi.clone(),
            lo: 0,
            hi: m.rows - 1,
        });
        inner.ints.push(IntVar {
            name: vj.clone(),
            lo: 0,
            hi: m.cols - 1,
        });
        let mut c = ctx.clone();
        c.depth += 2;
        c.looping = true;
        c.in_loop = None;
        c.in_for = true;
        let (i, j) = (IExpr::Var(vi.clone()), IExpr::Var(vj.clone()));
        let mut body = if m.writable {
            vec![self.matrix_write(&inner, &c, m, i, j)]
        } else {
            // A parameter is read-only: accumulate `m[i][j] * ..` into a mutable float, or bind it.
            let e = self.expr(&inner, &c, 1);
            let value = Expr::Bin(
                BinOp::Mul,
                Box::new(Expr::Index2(m.name.clone(), i, j)),
                Box::new(e),
            );
            let value = self.squash(&inner, &c, value);
            let vars: Vec<FloatVar> = inner.floats.iter().filter(|f| f.mutable).cloned().collect();
            if vars.is_empty() {
                let name = self.name("t");
                inner.floats.push(FloatVar {
                    name: name.clone(),
                    mutable: false,
                    ambiguous: false,
                });
                vec![Stmt::Let {
                    name,
                    mutable: false,
                    annotated: false,
                    init: value,
                }]
            } else {
                let v = self.rng.pick(&vars).name.clone();
                vec![Stmt::Assign {
                    place: Place::Var(v),
                    op: AssignOp::Add,
                    value,
                }]
            }
        };
        if *budget > 0 && self.rng.chance(0.4) {
            body.extend(self.block(&mut inner, &c, budget, 1));
        }
        let rows = if self.rng.chance(0.5) {
            IExpr::Len(m.name.clone())
        } else {
            IExpr::Lit(m.rows)
        };
        let range = |var: String, hi: IExpr| ForIter::Range {
            var,
            lo: IExpr::Lit(0),
            hi,
            inclusive: false,
            rev: false,
            step: None,
        };
        Stmt::For {
            iter: range(vi, rows),
            body: vec![Stmt::For {
                iter: range(vj, IExpr::Lit(m.cols)),
                body,
            }],
        }
    }

    /// A tuple branch: a literal of two values, or a call of a helper returning a pair (`--forms`).
    fn pair_val(&mut self, scope: &Scope, ctx: &Ctx) -> PairVal {
        let pairs: Vec<Callee> = ctx
            .callees
            .iter()
            .filter(|c| c.pair && !writes_outputs(std::slice::from_ref(c)))
            .cloned()
            .collect();
        if !pairs.is_empty() && self.rng.chance(0.4) {
            let callee = self.rng.pick(&pairs).clone();
            if let Some(args) = self.call_args(scope, ctx, &callee, &mut None) {
                return PairVal::Call(callee.name, args);
            }
        }
        PairVal::Lit(self.expr(scope, ctx, 2), self.expr(scope, ctx, 2))
    }

    /// Whether component `k` of a tuple branch has a type rustc knows.
    fn pair_typed(&self, scope: &Scope, v: &PairVal, k: usize) -> bool {
        match v {
            PairVal::Lit(a, b) => self.typed(scope, if k == 0 { a } else { b }),
            PairVal::Call(name, args) => self.typed(scope, &Expr::Call(name.clone(), args.clone())),
        }
    }

    /// `let (a, b) = if c { (..) } else { (..) };` or a `match` with tuple arms, or a call (`--forms`).
    fn let_pair(&mut self, scope: &mut Scope, ctx: &Ctx) -> Stmt {
        let init = match self
            .rng
            .weighted(&[4, if scope.ints.is_empty() { 0 } else { 3 }, 1])
        {
            0 => {
                let c = self.cond(scope, ctx);
                let a = self.pair_val(scope, ctx);
                let b = self.pair_val(scope, ctx);
                PairInit::If(Box::new(c), a, b)
            }
            1 => {
                let scrut = self.match_scrut(scope);
                let arms = self
                    .pats(scope, ctx, &scrut)
                    .into_iter()
                    .map(|p| {
                        let inner = self.arm_scope(scope, &p, &scrut);
                        let v = self.pair_val(&inner, ctx);
                        (p, v)
                    })
                    .collect();
                PairInit::Match(scrut, arms)
            }
            _ => PairInit::Val(self.pair_val(scope, ctx)),
        };
        let vals: Vec<&PairVal> = match &init {
            PairInit::Var(..) => vec![],
            PairInit::Val(v) => vec![v],
            PairInit::If(_, a, b) => vec![a, b],
            PairInit::Match(_, arms) => arms.iter().map(|(_, v)| v).collect(),
        };
        let typed: Vec<bool> = (0..2)
            .map(|k| vals.iter().any(|v| self.pair_typed(scope, v, k)))
            .collect();
        let names = (self.name("t"), self.name("t"));
        for (n, t) in [&names.0, &names.1].into_iter().zip(typed) {
            scope.floats.retain(|f| &f.name != n);
            scope.floats.push(FloatVar {
                name: n.clone(),
                mutable: false,
                ambiguous: !ctx.generic && !t,
            });
        }
        Stmt::LetPair { names, init }
    }

    /// Whether rustc knows the float type of `e` where it is written (it reads a typed value).
    fn typed(&self, scope: &Scope, e: &Expr) -> bool {
        match e {
            Expr::Lit(_) => false,
            Expr::Var(v) => scope
                .floats
                .iter()
                .rev()
                .find(|f| &f.name == v)
                .is_some_and(|f| !f.ambiguous),
            Expr::Index(a, _) => scope
                .arrays
                .iter()
                .rev()
                .find(|x| &x.name == a)
                .is_some_and(|x| !x.ambiguous),
            Expr::Neg(a) => self.typed(scope, a),
            Expr::Method(..) | Expr::Method2(..) | Expr::Cast(_) => true,
            // A generic callee given only `{float}` arguments returns `{float}`.
            Expr::Call(_, args) => args.iter().any(|a| match a {
                Arg::Float(e) => self.typed(scope, e),
                Arg::SliceParam(_) | Arg::Matrix(..) | Arg::MatrixRow(..) => true,
                Arg::Pair(a, b, _) => self.typed(scope, a) || self.typed(scope, b),
                Arg::OutFloat(v) => scope
                    .floats
                    .iter()
                    .rev()
                    .find(|f| &f.name == v)
                    .is_some_and(|f| !f.ambiguous),
                Arg::LocalArray(a)
                | Arg::OutArray(a)
                | Arg::OutElement(a, _)
                | Arg::SubSlice(a, ..) => scope
                    .arrays
                    .iter()
                    .rev()
                    .find(|x| &x.name == a)
                    .is_some_and(|x| !x.ambiguous),
            }),
            Expr::Bin(_, a, b) => self.typed(scope, a) || self.typed(scope, b),
            Expr::If(_, a, b) => self.typed(scope, a) || self.typed(scope, b),
            Expr::Match(_, arms) => arms.iter().any(|(_, e)| self.typed(scope, e)),
            Expr::Fold(..)
            | Expr::CallClosure(..)
            | Expr::Index2(..)
            | Expr::HornerFold(..)
            | Expr::Raw(..) => true,
        }
    }

    fn lit(&mut self) -> f64 {
        (self.rng.range(1, 30) as f64) / 10.0
    }

    fn leaf(&mut self, scope: &Scope) -> Expr {
        let w = [
            if scope.floats.is_empty() { 0 } else { 6 },
            if scope.arrays.is_empty() { 0 } else { 5 },
            2,
            if scope.ints.is_empty() { 0 } else { 1 },
            if self.forms && !scope.arrays.is_empty() {
                2
            } else {
                0
            },
            if self.forms && !scope.closures.is_empty() {
                3
            } else {
                0
            },
            if self.forms && !scope.matrices.is_empty() {
                4
            } else {
                0
            },
            // `--sugar`: an order-dependent fold over a typed array.
            if self.sugar && scope.arrays.iter().any(|a| !a.ambiguous) {
                2
            } else {
                0
            },
        ];
        match self.rng.weighted(&w) {
            7 => {
                let typed: Vec<ArrayVar> = scope
                    .arrays
                    .iter()
                    .filter(|a| !a.ambiguous)
                    .cloned()
                    .collect();
                let a = self.rng.pick(&typed).clone();
                let mut adapters = Vec::new();
                for _ in 0..self.rng.range(1, 3) {
                    if !adapters.contains(&Adapter::Enumerate) && self.rng.chance(0.35) {
                        adapters.push(Adapter::Enumerate);
                    } else {
                        adapters.push(Adapter::Rev);
                    }
                }
                let init = self.lit();
                let c = self.rng.range(3, 9) as f64 / 10.0;
                Expr::HornerFold(a.name, adapters, init, c)
            }
            0 => {
                // Prefer recent values, so that most of what is computed reaches the result.
                let n = scope.floats.len();
                let k = if self.rng.chance(0.6) {
                    n - 1 - self.rng.range(0, 2.min(n - 1))
                } else {
                    self.rng.range(0, n - 1)
                };
                Expr::Var(scope.floats[k].name.clone())
            }
            1 => {
                let a = self.rng.pick(&scope.arrays).clone();
                let i = self.index(scope, a.len, &a.name);
                Expr::Index(a.name, i)
            }
            2 => Expr::Lit(self.lit()),
            3 => {
                let v = self.rng.pick(&scope.ints).name.clone();
                Expr::Cast(IExpr::Var(v))
            }
            6 => {
                let m = self.rng.pick(&scope.matrices).clone();
                let i = self.index(scope, m.rows, "");
                let j = self.index(scope, m.cols, "");
                Expr::Index2(m.name, i, j)
            }
            5 => {
                let name = self.rng.pick(&scope.closures).clone();
                let arg = self.leaf_plain(scope);
                Expr::CallClosure(name, Box::new(arg))
            }
            _ => {
                let a = self.rng.pick(&scope.arrays).clone();
                let m = *self.rng.pick(&[
                    Some(Method::Sin),
                    Some(Method::Tanh),
                    Some(Method::Atan),
                    None,
                ]);
                let tail = self.rng.chance(0.4);
                Expr::Fold(a.name, m, tail)
            }
        }
    }

    /// A leaf that is a typed float (a variable or an element), or a literal: a closure's argument.
    fn leaf_plain(&mut self, scope: &Scope) -> Expr {
        let typed: Vec<FloatVar> = scope
            .floats
            .iter()
            .filter(|f| !f.ambiguous)
            .cloned()
            .collect();
        if !typed.is_empty() && self.rng.chance(0.7) {
            return Expr::Var(self.rng.pick(&typed).name.clone());
        }
        match scope.arrays.iter().find(|a| !a.ambiguous).cloned() {
            Some(a) => {
                let i = self.index(scope, a.len, &a.name);
                Expr::Index(a.name, i)
            }
            None => Expr::Lit(self.lit()),
        }
    }

    /// `let cN = |el: f64| el.m() * capture + offset;`, capturing a scalar parameter (never reassigned) or
    /// none.
    fn let_closure(&mut self, scope: &mut Scope) -> Stmt {
        let name = self.name("c");
        let method = *self.rng.pick(&[Method::Sin, Method::Tanh, Method::Atan]);
        let params: Vec<String> = scope
            .floats
            .iter()
            .filter(|f| f.name.len() == 1 && !f.mutable)
            .map(|f| f.name.clone())
            .collect();
        let capture = if !params.is_empty() && self.rng.chance(0.5) {
            Some(self.rng.pick(&params).clone())
        } else {
            None
        };
        let offset = self.lit();
        scope.closures.push(name.clone());
        Stmt::LetClosure {
            name,
            method,
            capture,
            offset,
        }
    }

    /// A method applied to `e` if rustc knows its type, else `e` itself.
    fn method(&self, scope: &Scope, m: Method, e: Expr) -> Expr {
        if self.typed(scope, &e) {
            Expr::Method(m, Box::new(e))
        } else {
            e
        }
    }

    /// A method of two or three operands on `a` and `b`, kept inside its smooth domain: `hypot` and
    /// `atan2` away from the origin, `powf` of a positive base to a bounded power. `a + b` where `a` has
    /// no type of its own (a literal: `(2.0).max(x)` does not compile).
    fn method2(&mut self, scope: &Scope, a: Expr, b: Expr) -> Expr {
        if !self.typed(scope, &a) {
            return Expr::Bin(BinOp::Add, Box::new(a), Box::new(b));
        }
        let positive = |e: Expr| {
            Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Lit(1.0)),
                Box::new(Expr::Bin(BinOp::Mul, Box::new(e.clone()), Box::new(e))),
            )
        };
        let m = if self.sugar && self.rng.chance(0.3) {
            *self.rng.pick(&[Method2::Copysign, Method2::Clamp])
        } else {
            *self.rng.pick(&[
                Method2::Max,
                Method2::Min,
                Method2::Hypot,
                Method2::Atan2,
                Method2::Powf,
                Method2::MulAdd,
            ])
        };
        match m {
            Method2::Copysign => Expr::Method2(m, Box::new(a), vec![b]),
            Method2::Clamp => {
                // Bounds off the grid of the literals and casts, so that no value sits on one.
                let lo = self.rng.range(1, 12) as f64 / 10.0 + 0.05;
                let hi = self.rng.range(0, 12) as f64 / 10.0 + 0.05;
                let _ = b;
                Expr::Method2(
                    m,
                    Box::new(a),
                    vec![Expr::Neg(Box::new(Expr::Lit(lo))), Expr::Lit(hi)],
                )
            }
            Method2::Max | Method2::Min => Expr::Method2(m, Box::new(a), vec![b]),
            Method2::Hypot | Method2::Atan2 => Expr::Method2(m, Box::new(a), vec![positive(b)]),
            Method2::Powf => {
                let power = if self.typed(scope, &b) {
                    Expr::Method(Method::Tanh, Box::new(b))
                } else {
                    Expr::Lit(1.5)
                };
                Expr::Method2(m, Box::new(positive(a)), vec![power])
            }
            Method2::MulAdd => {
                let c = self.leaf(scope);
                Expr::Method2(m, Box::new(a), vec![b, c])
            }
        }
    }

    fn expr(&mut self, scope: &Scope, ctx: &Ctx, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(0.25) {
            return self.leaf(scope);
        }
        let sub = |g: &mut Gen| g.expr(scope, ctx, depth - 1);
        match self.rng.weighted(&[5, 3, 5, 2, 6, 2, 1, 1, 1, 3, 1]) {
            0 => Expr::Bin(BinOp::Add, Box::new(sub(self)), Box::new(sub(self))),
            1 => Expr::Bin(BinOp::Sub, Box::new(sub(self)), Box::new(sub(self))),
            2 => Expr::Bin(BinOp::Mul, Box::new(sub(self)), Box::new(sub(self))),
            3 => {
                // a / (1.5 + sin(b)) or a / (1 + b*b)
                let b = sub(self);
                let den = if self.typed(scope, &b) && self.rng.chance(0.5) {
                    Expr::Bin(
                        BinOp::Add,
                        Box::new(Expr::Lit(1.5)),
                        Box::new(Expr::Method(Method::Sin, Box::new(b))),
                    )
                } else {
                    Expr::Bin(
                        BinOp::Add,
                        Box::new(Expr::Lit(1.0)),
                        Box::new(Expr::Bin(BinOp::Mul, Box::new(b.clone()), Box::new(b))),
                    )
                };
                Expr::Bin(BinOp::Div, Box::new(sub(self)), Box::new(den))
            }
            4 if self.sugar && self.rng.chance(0.4) => {
                let (e, f) = (sub(self), sub(self));
                self.sugar_method(scope, e, f)
            }
            4 => {
                let e = sub(self);
                let m = *self.rng.pick(&[
                    Method::Sin,
                    Method::Cos,
                    Method::Tanh,
                    Method::Atan,
                    Method::Powi(2),
                    Method::Powi(3),
                    Method::Abs,
                    Method::Asinh,
                ]);
                self.method(scope, m, e)
            }
            5 => {
                // exp of a bounded argument
                let e = sub(self);
                let m = *self.rng.pick(&[Method::Sin, Method::Tanh, Method::Cos]);
                let inner = self.method(scope, m, e);
                if matches!(inner, Expr::Method(..)) {
                    let outer =
                        *self
                            .rng
                            .pick(&[Method::Exp, Method::Exp, Method::ExpM1, Method::Sinh]);
                    Expr::Method(outer, Box::new(inner))
                } else {
                    inner
                }
            }
            6 => {
                // ln / sqrt of 1 + e*e
                let e = sub(self);
                let pos = Expr::Bin(
                    BinOp::Add,
                    Box::new(Expr::Lit(1.0)),
                    Box::new(Expr::Bin(BinOp::Mul, Box::new(e.clone()), Box::new(e))),
                );
                let m = *self.rng.pick(&[
                    Method::Ln,
                    Method::Sqrt,
                    Method::Ln1p,
                    Method::Cbrt,
                    Method::Recip,
                ]);
                self.method(scope, m, pos)
            }
            7 => Expr::Neg(Box::new(sub(self))),
            8 => {
                let c = self.cond(scope, ctx);
                Expr::If(Box::new(c), Box::new(sub(self)), Box::new(sub(self)))
            }
            9 => {
                let (a, b) = (sub(self), sub(self));
                self.method2(scope, a, b)
            }
            _ => {
                if scope.ints.is_empty() {
                    return sub(self);
                }
                let scrut = self.match_scrut(scope);
                let arms = self
                    .pats(scope, ctx, &scrut)
                    .into_iter()
                    .map(|p| {
                        let e = self.arm_expr(scope, ctx, depth - 1, &p, &scrut);
                        (p, e)
                    })
                    .collect();
                Expr::Match(scrut, arms)
            }
        }
    }

    fn match_scrut(&mut self, scope: &Scope) -> IExpr {
        let v = self.rng.pick(&scope.ints).name.clone();
        if self.rng.chance(0.5) {
            IExpr::Rem(Box::new(IExpr::Var(v)), 3)
        } else {
            IExpr::Var(v)
        }
    }

    fn match_pats(&mut self) -> Vec<Pat> {
        let second = self
            .rng
            .pick(&[Pat::Or(1, 2), Pat::Range(1, 2), Pat::Lit(1)])
            .clone();
        vec![Pat::Lit(0), second, Pat::Wild]
    }

    fn cmp(&mut self) -> CmpOp {
        *self.rng.pick(&[CmpOp::Lt, CmpOp::Gt, CmpOp::Le, CmpOp::Ge])
    }

    fn float_cond(&mut self, scope: &Scope, ctx: &Ctx) -> Cond {
        let op = self.cmp();
        let a = self.expr(scope, ctx, 1);
        let b = if self.rng.chance(0.6) {
            Expr::Lit(self.lit() - 1.0).abs_lit()
        } else {
            self.leaf(scope)
        };
        Cond::Float(op, a, b)
    }

    fn cond(&mut self, scope: &Scope, ctx: &Ctx) -> Cond {
        if !scope.ints.is_empty() && self.rng.chance(0.4) {
            let v = self.rng.pick(&scope.ints).clone();
            let k = self.rng.range(v.lo, v.hi);
            Cond::Int(self.cmp(), IExpr::Var(v.name), IExpr::Lit(k))
        } else {
            self.float_cond(scope, ctx)
        }
    }

    /// An index into an array of length `len` (named `arr`, or `""` to use no `.len()`), in bounds for every
    /// value of the variables used.
    fn index(&mut self, scope: &Scope, len: usize, arr: &str) -> IExpr {
        let mut options: Vec<IExpr> = Vec::new();
        for v in &scope.ints {
            let var = || Box::new(IExpr::Var(v.name.clone()));
            if v.hi < len {
                options.push(IExpr::Var(v.name.clone()));
            }
            if v.hi < len && !arr.is_empty() {
                options.push(IExpr::Sub(
                    Box::new(IExpr::Sub(
                        Box::new(IExpr::Len(arr.to_string())),
                        Box::new(IExpr::Lit(1)),
                    )),
                    var(),
                ));
            }
            if v.hi + 1 < len {
                options.push(IExpr::Add(var(), Box::new(IExpr::Lit(1))));
            }
            if v.lo >= 1 && v.hi - 1 < len {
                options.push(IExpr::Sub(var(), Box::new(IExpr::Lit(1))));
            }
            options.push(IExpr::Rem(var(), len));
        }
        if options.is_empty() || self.rng.chance(0.2) {
            IExpr::Lit(self.rng.range(0, len - 1))
        } else {
            self.rng.pick(&options).clone()
        }
    }
}

/// Whether `--forms` makes local matrices (`vec![vec![0.0; c]; r]`, written `m[i][j] = ..` in loop nests and
/// passed to helpers as `&m`).
const LOCAL_MATRICES: bool = true;

/// Whether `--forms` gives helpers matrix parameters (`grid: &[Vec<f64>]`), passed a caller's matrix whole
/// (not to helpers with output parameters: the macro rejects output parameters beside a matrix, README
/// "Not supported").
const MATRIX_CALLS: bool = true;

/// Does any of `callees` take an output buffer or float output?
fn writes_outputs(callees: &[Callee]) -> bool {
    callees.iter().any(|c| {
        c.params
            .iter()
            .any(|p| matches!(p, ParamKind::Out(_) | ParamKind::OutFloat))
    })
}

/// The functions of `funcs` that a function may call: all of them from an `f64` function, only the generic
/// ones from a generic function (or one with `order = 2`, whose generic copy makes the calls).
/// A helper that calls itself (`--sugar`; API.md lists recursion): `x` halved until it is small, each
/// level adding a term, so its derivative runs through every level of the recursion. It stops for any
/// input, not a number or infinite ones too (`!(..)` is true of `NaN`; `x` at most `0.5 / EPSILON`).
fn recursive_helper(name: String, generic: bool) -> Func {
    let tail = format!(
        "if !(x.abs() >= $H && x.abs() < $H / $EPS) {{ x.sin() }} else {{ @{name}(x * $H) * x.cos() + x }}"
    );
    Func {
        name,
        generic,
        kind: FnKind::Differentiable {
            order2: false,
            wrt: None,
        },
        params: vec![Param {
            name: "x".into(),
            kind: ParamKind::Scalar,
        }],
        body: vec![],
        tail: vec![Expr::Raw(tail, vec![])],
        mut_slices: Vec::new(),
        param_styles: Vec::new(),
        result_array: false,
    }
}

fn callees_of(funcs: &[Func], generic: bool) -> Vec<Callee> {
    funcs
        .iter()
        .filter(|f| f.generic || !generic)
        .map(|f| Callee {
            name: f.name.clone(),
            params: f.params.iter().map(|p| p.kind.clone()).collect(),
            pair: f.returns_pair(),
        })
        .collect()
}

impl Expr {
    fn abs_lit(self) -> Expr {
        match self {
            Expr::Lit(c) => Expr::Lit((c.abs() * 10.0).round() / 10.0),
            e => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_per_seed() {
        for id in 0..20 {
            assert_eq!(generate_with(7, id, false), generate_with(7, id, false));
        }
        assert!((0..20).any(|id| generate_with(7, id, false) != generate_with(8, id, false)));
    }
}
