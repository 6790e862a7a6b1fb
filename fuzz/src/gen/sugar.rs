//! The forms of `--sugar`: the valid Rust the macro accepts that the generator wrote nowhere before, where the
//! last silent wrong values hid (a second `.rev()` that reversed a loop again instead of turning it back; a
//! capitalised `match` binding that read an outer local instead of binding).
//!
//! - iterator direction chains on ranges and slices (`(a..b).rev().rev()`, `.step_by(k).rev()`,
//!   `.iter().enumerate().rev()`, `.iter().rev().enumerate()`, `.rev().enumerate().rev()`, zips of zips,
//!   zips of unequal lengths reversed), each under a Horner accumulation `s = s * c + e` whose value depends
//!   on the order the items come in (a commutative body would hide a loop run the wrong way);
//! - destructuring assignments `(a, b) = (b, a * x + b)`, `[p, q] = [q, p]`, `((a, b), c) = ..`, `_`
//!   targets and element targets `a[i]`, also of a call returning a pair;
//! - `match` arms with guards (`0 if t > 0.5 =>`, several on one pattern) and bindings of the scrutinee
//!   (`n if n > 1 =>`, a capitalised `N3 =>`, or the name of a local or parameter outside, which the binding
//!   shadows in its arm), as statements and as values;
//! - labelled block values `let v = 'b: { .. if c { break 'b e1; } .. e2 };`, also left from a loop inside;
//! - `if c { continue; }` in `for` loops, labelled `for` loops that loops inside them `continue 'l` or
//!   `break 'l`, and order-dependent folds `a.iter().rev().enumerate().fold(init, |acc, (i, &v)| ..)`;
//! - `copysign` and `clamp` (in `Gen::method2`);
//! - the float methods and constants no other form writes (`Gen::sugar_method`): `tan`, `asin`, `acos`,
//!   `atanh`, `acosh`, `cosh`, `log2`, `log10`, `exp2`, `log(base)` of an active base, `sin_cos()` (its
//!   parts read by `.0`/`.1` and by a `let (s, c)` in a block value), `floor`, `ceil`, `signum` (zero
//!   derivatives), the path form `f64::sin(x)`/`T::sin(x)`, `std::f64::consts::{PI, E, LN_2}` and
//!   `f64::EPSILON` (`T::from(PI).unwrap()`, `T::epsilon()` in generic code), each inside its domain;
//!   `stop_gradient(..)`; running maxima and minima from `f64::NEG_INFINITY` and `f64::INFINITY`;
//! - arrays as the value of an `if` and of a `match` (in a block value);
//! - a helper that calls itself (`recursive_helper` in `gen.rs`);
//! - the checked function's slice parameters written `&Vec<f64>` and `&[f64; N]`, and scalars `&f64`, read
//!   `(*x)` (`ParamStyle`), and its pair result as an array `[f64; 2]`, whose `f_jacobian` is checked too.
//!
//! Each is valid Rust the generic oracle copy also compiles. `x as f32 as f64` is not generated: the oracle
//! runs the body on `Dual`, which has no `as` cast to `f32`.

use super::{Ctx, FloatVar, Gen, IntVar, Scope};
use crate::ast::*;

/// What the generator knows of an iterator chain while it is built.
struct ChainInfo {
    chain: Chain,
    pat: LoopPat,
    /// At most this many items.
    len: usize,
    /// `DoubleEndedIterator`: `.rev()` may follow.
    double: bool,
    /// `ExactSizeIterator` (`RangeInclusive<usize>` is not, nor what is made of it).
    exact: bool,
}

impl Gen {
    /// `let mut s: f64 = c0; for pat in chain { s = s * c + e; .. }`: an iterator chain with direction
    /// adapters, under a recurrence whose value depends on the order of the items.
    pub(super) fn for_chain(&mut self, scope: &mut Scope, ctx: &Ctx, budget: &mut usize) -> Stmt {
        if scope.arrays.is_empty() && self.rng.chance(0.5) {
            return self.destructure(scope, ctx);
        }
        let acc = self.name("s");
        let init = Expr::Lit(self.lit());
        scope.floats.push(FloatVar {
            name: acc.clone(),
            mutable: true,
            ambiguous: false,
        });
        let mut inner = scope.clone();
        let info = self.chain(&mut inner, scope, 0, true);
        let mut c = ctx.clone();
        c.depth += 1;
        c.looping = true;
        c.in_loop = None;
        c.in_for = true;
        // The factor: below one in size, so that the state stays bounded.
        let params: Vec<String> = scope
            .floats
            .iter()
            .filter(|f| f.name.len() == 1 && !f.mutable && !f.ambiguous)
            .map(|f| f.name.clone())
            .collect();
        let factor = if !params.is_empty() && self.rng.chance(0.4) {
            let p = self.rng.pick(&params).clone();
            Expr::Method(Method::Tanh, Box::new(Expr::Var(p)))
        } else {
            Expr::Lit(self.rng.range(3, 9) as f64 / 10.0)
        };
        let elem = self.chain_elem(&inner, &info.pat);
        let elem = self.squash(&inner, &c, elem);
        let step = Stmt::Assign {
            place: Place::Var(acc.clone()),
            op: AssignOp::Set,
            value: Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Var(acc.clone())),
                    Box::new(factor),
                )),
                Box::new(elem),
            ),
        };
        let mut body = Vec::new();
        let arrays_read: Vec<String> = inner.arrays.iter().map(|a| a.name.clone()).collect();
        let rest = if self.rng.chance(0.5) {
            let want = self.rng.range(1, 2);
            self.block(&mut inner, &c, budget, want)
        } else {
            Vec::new()
        };
        // The step first or last: statements before it change what it reads. First where they shadow an
        // array the step may index (`let xs: f64 = ..;`), which would make `xs[i]` index a float.
        let shadowed = arrays_read
            .iter()
            .any(|name| !inner.arrays.iter().any(|a| &a.name == name));
        if shadowed || self.rng.chance(0.5) {
            body.push(step);
            body.extend(rest);
        } else {
            body.extend(rest);
            body.push(step);
        }
        Stmt::Seq(vec![
            Stmt::Let {
                name: acc,
                mutable: true,
                annotated: !ctx.generic,
                init,
            },
            Stmt::For {
                iter: ForIter::Chain {
                    pat: info.pat,
                    chain: info.chain,
                },
                body,
            },
        ])
    }

    /// An iterator chain over a range or an array of `outer`, its variables added to `inner`. `top` for the
    /// chain of the loop (more adapters), not an argument of `.zip(..)`.
    fn chain(&mut self, inner: &mut Scope, outer: &Scope, zips: usize, top: bool) -> ChainInfo {
        let arrays: Vec<_> = outer.arrays.clone();
        // The argument of `.zip(..)` is a slice iterator.
        let mut info = if !arrays.is_empty() && (zips > 0 || self.rng.chance(0.55)) {
            let a = self.rng.pick(&arrays).clone();
            let var = self.name("v");
            inner.iterate(&a, &var);
            ChainInfo {
                chain: Chain {
                    source: Source::Iter(a.name),
                    adapters: Vec::new(),
                },
                pat: LoopPat::Float(var),
                len: a.len,
                double: true,
                exact: true,
            }
        } else {
            let (lo, hi, inclusive, min, max) = if !arrays.is_empty() && self.rng.chance(0.6) {
                let a = self.rng.pick(&arrays).clone();
                let len = IExpr::Len(a.name.clone());
                let minus1 = IExpr::Sub(Box::new(len.clone()), Box::new(IExpr::Lit(1)));
                match self.rng.weighted(&[4, 2, 2, 2]) {
                    0 => (IExpr::Lit(0), len, false, 0, a.len - 1),
                    1 => (IExpr::Lit(1), len, false, 1, a.len - 1),
                    2 => (IExpr::Lit(0), minus1, false, 0, a.len - 2),
                    _ => (IExpr::Lit(0), minus1, true, 0, a.len - 1),
                }
            } else {
                let n = self.rng.range(2, 5);
                if self.rng.chance(0.2) {
                    (IExpr::Lit(1), IExpr::Lit(n), true, 1, n)
                } else {
                    (IExpr::Lit(0), IExpr::Lit(n), false, 0, n - 1)
                }
            };
            let var = self.name("i");
            inner.ints.push(IntVar {
                name: var.clone(),
                lo: min,
                hi: max,
            });
            ChainInfo {
                chain: Chain {
                    source: Source::Range(lo, hi, inclusive),
                    adapters: Vec::new(),
                },
                pat: LoopPat::Int(var),
                len: max + 1 - min,
                double: true,
                exact: !inclusive,
            }
        };
        // The argument of `.zip(..)` is a plain `b.iter()`.
        let count = if top { self.rng.range(1, 4) } else { 0 };
        // What the macro accepts (its spanned error lists it): `.rev()` and `.step_by(k)` on ranges;
        // `.rev()`, `.enumerate()` and `.zip(..)` of slice iterators on slice iterators. A range is not
        // enumerated or zipped, a slice iterator not stepped; the argument of `.zip(..)` is a plain
        // `b.iter()`, its receiver `a.iter()` or a zip; `.enumerate()` comes once; `.step_by(k).rev()` is a spanned error by design (it
        // is not `.rev().step_by(k)`: the message says how to count the steps down instead).
        let range = matches!(info.chain.source, Source::Range(..));
        for _ in 0..count {
            let stepped = info
                .chain
                .adapters
                .iter()
                .any(|a| matches!(a, Adapter::StepBy(_)));
            let enumerated = info.chain.adapters.contains(&Adapter::Enumerate);
            let zipped = info
                .chain
                .adapters
                .iter()
                .any(|a| matches!(a, Adapter::Zip(_)));
            // After `.step_by(k)` only another `.step_by(k)` may come: mostly stop there.
            if stepped && self.rng.chance(0.6) {
                break;
            }
            match self.rng.weighted(&[
                if stepped { 0 } else { 6 },
                if range { 3 } else { 0 },
                if range || enumerated { 0 } else { 3 },
                if zips < 2
                    && !range
                    && info
                        .chain
                        .adapters
                        .iter()
                        .all(|a| matches!(a, Adapter::Zip(_)))
                    && !arrays.is_empty()
                {
                    // Zips of zips.
                    if zipped {
                        8
                    } else {
                        5
                    }
                } else {
                    0
                },
            ]) {
                0 => {
                    if info.double {
                        info.chain.adapters.push(Adapter::Rev);
                    }
                }
                1 => {
                    let k = self.rng.range(2, 3);
                    info.chain.adapters.push(Adapter::StepBy(k));
                    info.len = info.len.div_ceil(k);
                    info.double = info.double && info.exact;
                }
                2 => {
                    let index = self.name("i");
                    inner.ints.push(IntVar {
                        name: index.clone(),
                        lo: 0,
                        hi: info.len - 1,
                    });
                    info.chain.adapters.push(Adapter::Enumerate);
                    info.pat = LoopPat::Pair(Box::new(LoopPat::Int(index)), Box::new(info.pat));
                    info.double = info.double && info.exact;
                }
                _ => {
                    let other = self.chain(inner, outer, zips + 1, false);
                    info.chain
                        .adapters
                        .push(Adapter::Zip(Box::new(other.chain)));
                    info.pat = LoopPat::Pair(Box::new(info.pat), Box::new(other.pat));
                    info.len = info.len.min(other.len);
                    info.double = info.double && info.exact && other.double && other.exact;
                    info.exact = info.exact && other.exact;
                }
            }
        }
        // A top-level chain is reversed somewhere most of the time: what the loop's direction depends on.
        let stepped = info
            .chain
            .adapters
            .iter()
            .any(|a| matches!(a, Adapter::StepBy(_)));
        if top
            && info.double
            && !stepped
            && !info.chain.adapters.contains(&Adapter::Rev)
            && self.rng.chance(0.6)
        {
            info.chain.adapters.push(Adapter::Rev);
        }
        info
    }

    /// What one item of a chain contributes to the recurrence: its floats, its integers as floats or as
    /// indexes into an array long enough.
    fn chain_elem(&mut self, scope: &Scope, pat: &LoopPat) -> Expr {
        fn leaves(p: &LoopPat, out: &mut Vec<(bool, String)>) {
            match p {
                LoopPat::Int(v) => out.push((false, v.clone())),
                LoopPat::Float(v) => out.push((true, v.clone())),
                LoopPat::Pair(a, b) => {
                    leaves(a, out);
                    leaves(b, out);
                }
            }
        }
        let mut ls = Vec::new();
        leaves(pat, &mut ls);
        let mut terms: Vec<Expr> = Vec::new();
        for (float, name) in ls {
            if float {
                terms.push(Expr::Var(name));
                continue;
            }
            let Some(v) = scope.ints.iter().rev().find(|v| v.name == name).cloned() else {
                continue;
            };
            let arrays: Vec<_> = scope
                .arrays
                .iter()
                .filter(|a| a.len > v.hi)
                .cloned()
                .collect();
            if !arrays.is_empty() && self.rng.chance(0.6) {
                let a = self.rng.pick(&arrays).clone();
                terms.push(Expr::Index(a.name, IExpr::Var(name)));
            } else {
                // `(i + 1) * 0.3`: the integer itself, which the order of the items makes differ.
                terms.push(Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Cast(IExpr::Add(
                        Box::new(IExpr::Var(name)),
                        Box::new(IExpr::Lit(1)),
                    ))),
                    Box::new(Expr::Lit(self.lit())),
                ));
            }
        }
        let mut e = terms.pop().unwrap_or_else(|| self.leaf(scope));
        while let Some(t) = terms.pop() {
            let op = *self.rng.pick(&[BinOp::Add, BinOp::Mul, BinOp::Sub]);
            e = Expr::Bin(op, Box::new(t), Box::new(e));
        }
        e
    }

    /// A destructuring assignment of two or three places (mutable floats, elements of local arrays, `_`):
    /// a rotation of their values, a recurrence on them, or new values; perhaps nested, perhaps an array.
    pub(super) fn destructure(&mut self, scope: &mut Scope, ctx: &Ctx) -> Stmt {
        let mut vars: Vec<String> = Vec::new();
        for f in scope
            .floats
            .iter()
            .filter(|f| f.mutable && !f.name.starts_with('('))
        {
            if !vars.contains(&f.name) {
                vars.push(f.name.clone());
            }
        }
        let arrays: Vec<_> = scope
            .arrays
            .iter()
            .filter(|a| a.local && !a.frozen)
            .cloned()
            .collect();
        if vars.len() + if arrays.is_empty() { 0 } else { 2 } < 2 {
            return self.let_float(scope, ctx);
        }
        let n = self.rng.range(2, 3);
        let mut places: Vec<Place> = Vec::new();
        for _ in 0..n {
            let free: Vec<String> = vars
                .iter()
                .filter(|v| !places.contains(&Place::Var((*v).clone())))
                .cloned()
                .collect();
            if !free.is_empty() && (arrays.is_empty() || self.rng.chance(0.6)) {
                places.push(Place::Var(self.rng.pick(&free).clone()));
            } else if !arrays.is_empty() {
                let a = self.rng.pick(&arrays).clone();
                let i = self.index(scope, a.len, "");
                places.push(Place::Index(a.name, i));
            }
        }
        if places.len() < 2 {
            return self.let_float(scope, ctx);
        }
        let read = |p: &Place| match p {
            Place::Var(v) => Expr::Var(v.clone()),
            Place::Index(a, i) => Expr::Index(a.clone(), i.clone()),
            Place::Index2(m, i, j) => Expr::Index2(m.clone(), i.clone(), j.clone()),
        };
        let n = places.len();
        let mut targets: Vec<DPlace> = Vec::new();
        let mut values: Vec<DValue> = Vec::new();
        for k in 0..n {
            let value = match self.rng.weighted(&[3, 3, 2]) {
                // A rotation: the next place's value.
                0 => read(&places[(k + 1) % n]),
                // A recurrence: `a * x + b` of the places' values.
                1 => {
                    let j = self.rng.range(0, n - 1);
                    let x = self.leaf(scope);
                    let e = Expr::Bin(
                        BinOp::Add,
                        Box::new(Expr::Bin(
                            BinOp::Mul,
                            Box::new(read(&places[j])),
                            Box::new(x),
                        )),
                        Box::new(read(&places[k])),
                    );
                    self.squash(scope, ctx, e)
                }
                _ => {
                    let e = self.expr(scope, ctx, 2);
                    self.squash(scope, ctx, e)
                }
            };
            // Sometimes a place is left out: `_` takes its value.
            if k > 0 && self.rng.chance(0.15) {
                targets.push(DPlace::Wild);
            } else {
                targets.push(DPlace::Place(places[k].clone()));
            }
            values.push(DValue::Expr(value));
        }
        let pairs: Vec<_> = ctx
            .callees
            .iter()
            .filter(|c| c.pair && !super::writes_outputs(std::slice::from_ref(c)))
            .cloned()
            .collect();
        match self.rng.weighted(&[4, 2, if n == 3 { 2 } else { 0 }, 1]) {
            0 => Stmt::Destructure {
                target: DPlace::Tuple(targets),
                value: DValue::Tuple(values),
            },
            1 => Stmt::Destructure {
                target: DPlace::Array(targets),
                value: DValue::Array(values),
            },
            2 => {
                let last_t = targets.pop().expect("three");
                let last_v = values.pop().expect("three");
                Stmt::Destructure {
                    target: DPlace::Tuple(vec![DPlace::Tuple(targets), last_t]),
                    value: DValue::Tuple(vec![DValue::Tuple(values), last_v]),
                }
            }
            _ => {
                // `(a, b) = h(..)` of a helper returning a pair, else a tuple of values.
                targets.truncate(2);
                values.truncate(2);
                if !pairs.is_empty() {
                    let callee = self.rng.pick(&pairs).clone();
                    if let Some(args) = self.call_args(scope, ctx, &callee, &mut None) {
                        return Stmt::Destructure {
                            target: DPlace::Tuple(targets),
                            value: DValue::Call(callee.name, args),
                        };
                    }
                }
                Stmt::Destructure {
                    target: DPlace::Tuple(targets),
                    value: DValue::Tuple(values),
                }
            }
        }
    }

    /// `let t: f64 = 'b: { ..; if c { break 'b e1; } ..; e2 };`, the `break` directly in the block or in a
    /// `for` loop inside it; more `break 'b` may come from the statements generated inside (`Ctx::label`).
    pub(super) fn labelled(&mut self, scope: &mut Scope, ctx: &Ctx, budget: &mut usize) -> Stmt {
        let label = self.name("b");
        let name = self.name("t");
        let mut c = ctx.clone();
        c.depth += 1;
        // An unlabelled `break` or `continue` inside a labelled block does not compile (E0695).
        c.in_loop = None;
        c.in_for = false;
        // A labelled `for` around may still be continued or left from inside (`continue 'l`), which the
        // macro's `sugar.rs` carries past the block's value.
        c.label = Some(label.clone());
        let mut inner = scope.clone();
        let want = self.rng.range(0, 2);
        let mut body = self.block(&mut inner, &c, budget, want);
        if self.rng.chance(0.5) {
            // Left from a loop nested in the block.
            let var = self.name("i");
            let n = self.rng.range(2, 4);
            let mut li = inner.clone();
            li.ints.push(IntVar {
                name: var.clone(),
                lo: 0,
                hi: n - 1,
            });
            let mut lc = c.clone();
            lc.depth += 1;
            lc.looping = true;
            lc.in_for = true;
            let want = self.rng.range(1, 2);
            let mut lbody = self.block(&mut li, &lc, budget, want);
            let cond = self.cond(&li, &lc);
            let value = self.expr(&li, &lc, 2);
            lbody.push(Stmt::BreakLabel {
                label: label.clone(),
                cond,
                value,
            });
            if self.rng.chance(0.5) {
                lbody.extend(self.block(&mut li, &lc, budget, 1));
            }
            body.push(Stmt::For {
                iter: ForIter::Range {
                    var,
                    lo: IExpr::Lit(0),
                    hi: IExpr::Lit(n),
                    inclusive: false,
                    rev: self.rng.chance(0.3),
                    step: None,
                },
                body: lbody,
            });
        } else {
            let cond = self.cond(&inner, &c);
            let value = self.expr(&inner, &c, 2);
            body.push(Stmt::BreakLabel {
                label: label.clone(),
                cond,
                value,
            });
        }
        if self.rng.chance(0.5) {
            body.extend(self.block(&mut inner, &c, budget, 1));
        }
        let value = self.expr(&inner, &c, 2);
        scope.floats.push(FloatVar {
            name: name.clone(),
            mutable: false,
            ambiguous: false,
        });
        Stmt::LetLabelled {
            name,
            annotated: !ctx.generic,
            label,
            body,
            value,
        }
    }

    /// The patterns of a `match` on `scrut`: as before without `--sugar` (same draws); with it, mostly arms
    /// with guards and bindings, ending in `_` or a binding.
    pub(super) fn pats(&mut self, scope: &Scope, ctx: &Ctx, scrut: &IExpr) -> Vec<Pat> {
        if !self.sugar || self.rng.chance(0.25) {
            return self.match_pats();
        }
        let (lo, hi) = scrut_range(scope, scrut);
        let mut pats = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let base = match self.rng.weighted(&[3, 1, 1, 4]) {
                0 => Pat::Lit(self.rng.range(lo, hi)),
                1 if hi > lo => Pat::Or(lo, hi),
                2 if hi > lo => Pat::Range(lo + 1, hi),
                _ => Pat::Bind(self.binding_name(scope)),
            };
            let bound = base.binding().map(str::to_string);
            // The guard sees the binding (which shadows a float of its name there).
            let guard_scope = self.arm_scope(scope, &base, scrut);
            let guard = |g: &mut Gen| -> Cond {
                match &bound {
                    Some(n) if g.rng.chance(0.6) => {
                        let k = g.rng.range(lo, hi);
                        Cond::Int(g.cmp(), IExpr::Var(n.clone()), IExpr::Lit(k))
                    }
                    _ => g.float_cond(&guard_scope, ctx),
                }
            };
            // A binding without a guard would take every value: the arms after it are never reached.
            let guarded = bound.is_some() || self.rng.chance(0.6);
            if guarded {
                let g = guard(self);
                pats.push(Pat::Guard(Box::new(base.clone()), Box::new(g)));
                // Several guarded arms on one pattern.
                if self.rng.chance(0.35) {
                    let g = guard(self);
                    pats.push(Pat::Guard(Box::new(base.clone()), Box::new(g)));
                }
                if self.rng.chance(0.3) && bound.is_none() {
                    pats.push(base);
                }
            } else {
                pats.push(base);
            }
        }
        if self.rng.chance(0.5) {
            pats.push(Pat::Wild);
        } else {
            pats.push(Pat::Bind(self.binding_name(scope)));
        }
        pats
    }

    /// A name for a binding of a `match` scrutinee: fresh (`n7`, or capitalised `N7`), or the name of a
    /// float or integer in scope, which the binding shadows in its arm.
    fn binding_name(&mut self, scope: &Scope) -> String {
        let taken = |n: &str| {
            scope.arrays.iter().any(|a| a.name == n)
                || scope.closures.iter().any(|c| c == n)
                || scope.matrices.iter().any(|m| m.name == n)
        };
        // Not a parameter a closure may capture: a closure reading a name bound again after it is made is a
        // spanned error by design (the macro inlines the closure where it is called).
        let captured = |n: &str| !scope.closures.is_empty() && n.len() == 1;
        let floats: Vec<String> = scope
            .floats
            .iter()
            .filter(|f| !f.name.starts_with('(') && !taken(&f.name) && !captured(&f.name))
            .map(|f| f.name.clone())
            .collect();
        let ints: Vec<String> = scope
            .ints
            .iter()
            .filter(|v| !taken(&v.name))
            .map(|v| v.name.clone())
            .collect();
        match self.rng.weighted(&[
            2,
            2,
            if floats.is_empty() { 0 } else { 3 },
            if ints.is_empty() { 0 } else { 1 },
        ]) {
            0 => self.name("n"),
            1 => self.name("N"),
            2 => self.rng.pick(&floats).clone(),
            _ => self.rng.pick(&ints).clone(),
        }
    }

    /// The scope of an arm with pattern `p`: its binding (if any) an integer of the scrutinee's range,
    /// shadowing a float or integer of that name.
    pub(super) fn arm_scope(&self, scope: &Scope, p: &Pat, scrut: &IExpr) -> Scope {
        let mut inner = scope.clone();
        if let Some(n) = p.binding() {
            let (lo, hi) = scrut_range(scope, scrut);
            inner.floats.retain(|f| f.name != n);
            inner.ints.retain(|v| v.name != n);
            inner.ints.push(IntVar {
                name: n.to_string(),
                lo,
                hi,
            });
        }
        inner
    }

    /// The value of an arm of a `match` expression; one reading its binding, if it has one.
    pub(super) fn arm_expr(
        &mut self,
        scope: &Scope,
        ctx: &Ctx,
        depth: usize,
        p: &Pat,
        scrut: &IExpr,
    ) -> Expr {
        let inner = self.arm_scope(scope, p, scrut);
        let e = self.expr(&inner, ctx, depth);
        match p.binding() {
            Some(n) => Expr::Bin(
                BinOp::Add,
                Box::new(e),
                Box::new(Expr::Bin(
                    BinOp::Mul,
                    Box::new(Expr::Cast(IExpr::Var(n.to_string()))),
                    Box::new(Expr::Lit(self.lit())),
                )),
            ),
            None => e,
        }
    }

    /// The body of an arm of a `match` statement; with a binding, first accumulating it into a mutable
    /// float outside, where there is one.
    pub(super) fn arm_block(
        &mut self,
        scope: &Scope,
        ctx: &Ctx,
        budget: &mut usize,
        want: usize,
        p: &Pat,
        scrut: &IExpr,
    ) -> Vec<Stmt> {
        let mut inner = self.arm_scope(scope, p, scrut);
        let mut body = Vec::new();
        if let Some(n) = p.binding() {
            let vars: Vec<String> = inner
                .floats
                .iter()
                .filter(|f| f.mutable)
                .map(|f| f.name.clone())
                .collect();
            if !vars.is_empty() {
                let v = self.rng.pick(&vars).clone();
                body.push(Stmt::Assign {
                    place: Place::Var(v),
                    op: AssignOp::Add,
                    value: Expr::Bin(
                        BinOp::Mul,
                        Box::new(Expr::Cast(IExpr::Var(n.to_string()))),
                        Box::new(Expr::Lit(self.lit())),
                    ),
                });
            }
        }
        body.extend(self.block(&mut inner, ctx, budget, want));
        body
    }
}

/// The values a scrutinee `v` or `v % 3` takes.
fn scrut_range(scope: &Scope, scrut: &IExpr) -> (usize, usize) {
    let of = |name: &str| {
        scope
            .ints
            .iter()
            .rev()
            .find(|v| v.name == name)
            .map_or((0, 0), |v| (v.lo, v.hi))
    };
    match scrut {
        IExpr::Var(v) => of(v),
        IExpr::Rem(a, k) => match &**a {
            IExpr::Var(v) => {
                let (lo, hi) = of(v);
                if hi < *k {
                    (lo, hi)
                } else {
                    (0, k - 1)
                }
            }
            _ => (0, k - 1),
        },
        _ => (0, 0),
    }
}

impl Gen {
    /// A float method or constant of API.md's list that no other form writes, on `e` (and `f`, for a
    /// method of two operands), kept inside its domain: `tan` of `tanh(e)`, `asin`/`acos`/`atanh` of
    /// `0.9 tanh(e)`, `acosh` of `1.5 + e e`, logarithms of `1 + e e` (a base `1.5 + f f`), `cosh`/`exp2`
    /// of `sin(e)`. `e` as it is where it has no type of its own (a method of a `{float}` does not
    /// compile).
    pub(super) fn sugar_method(&mut self, scope: &Scope, e: Expr, f: Expr) -> Expr {
        if !self.typed(scope, &e) {
            return e;
        }
        let lit = Expr::Lit;
        let add = |a: Expr, b: Expr| Expr::Bin(BinOp::Add, Box::new(a), Box::new(b));
        let mul = |a: Expr, b: Expr| Expr::Bin(BinOp::Mul, Box::new(a), Box::new(b));
        let square = |e: Expr| mul(e.clone(), e);
        let tanh = |e: Expr| Expr::Method(Method::Tanh, Box::new(e));
        let sin = |e: Expr| Expr::Method(Method::Sin, Box::new(e));
        let raw = |text: &str, exprs: Vec<Expr>| Expr::Raw(text.to_string(), exprs);
        match self.rng.range(0, 19) {
            0 => raw("({0}).tan()", vec![tanh(e)]),
            1 => raw("({0}).asin()", vec![mul(lit(0.9), tanh(e))]),
            2 => raw("({0}).acos()", vec![mul(lit(0.9), tanh(e))]),
            3 => raw("({0}).atanh()", vec![mul(lit(0.9), tanh(e))]),
            4 => raw("({0}).acosh()", vec![add(lit(1.5), square(e))]),
            5 => raw("({0}).cosh()", vec![sin(e)]),
            6 => raw("({0}).exp2()", vec![sin(e)]),
            7 => {
                let m = *self.rng.pick(&["log2", "log10"]);
                raw(&format!("({{0}}).{m}()"), vec![add(lit(1.0), square(e))])
            }
            // `x.log(b)`, differentiated in the base too (`Float::log` takes a base of its own type).
            8 => raw(
                "({0}).log({1})",
                vec![add(lit(1.0), square(e)), add(lit(1.5), square(f))],
            ),
            9 => {
                let part = self.rng.range(0, 1);
                raw(&format!("({{0}}).sin_cos().{part}"), vec![e])
            }
            // The value of a block whose `let` destructures the pair.
            10 => raw(
                "{ let (sn, cs) = ({0}).sin_cos(); sn * ({1}) - cs }",
                vec![e, f],
            ),
            // Zero derivatives: the value of a step, scaling a smooth term.
            11 => {
                let m = *self.rng.pick(&["floor", "ceil", "signum"]);
                raw(
                    &format!("({{0}}).{m}() * ({{1}})"),
                    vec![mul(lit(1.7), e), f],
                )
            }
            // The path form of a method, `f64::sin(x)` (`T::sin(x)`), of one and two operands.
            12 => {
                let m = *self.rng.pick(&["sin", "cos", "atan", "tanh"]);
                raw(&format!("$T::{m}({{0}})"), vec![e])
            }
            13 => raw("$T::max({0}, {1})", vec![e, f]),
            14 => {
                let c = *self.rng.pick(&["$PI", "$EULER", "$LN2"]);
                raw(&format!("({{0}}) * {c}"), vec![e])
            }
            15 => raw("({0}) + $EPS", vec![e]),
            // An array as the value of an `if`, or of a `match` on an integer in scope.
            16 => raw(
                "{ let arr = if ({0}) > ({1}) { [{0}, ({1}) * ({1})] } else { [{1}, $H] }; arr[0] * arr[1] + arr[0] }",
                vec![e, f],
            ),
            // `stop_gradient`: `e` held constant, its value used (the oracle's `Dual`s lose their tangents
            // in it too, at every order).
            17 => raw("autodiff::stop_gradient({0}) * ({1})", vec![e, f]),
            // A running maximum (minimum) from an infinity over an array in scope.
            18 => match scope.arrays.last() {
                Some(a) => {
                    let (from, m) = *self.rng.pick(&[("$NEGINF", "max"), ("$INF", "min")]);
                    raw(
                        &format!(
                            "{}.iter().fold({from}, |acc_m, &el_m| acc_m.{m}(el_m * ({{0}})))",
                            a.name
                        ),
                        vec![e],
                    )
                }
                None => raw("autodiff::stop_gradient({0}) * ({1})", vec![e, f]),
            },
            _ => match scope.ints.last() {
                Some(i) => raw(
                    &format!(
                        "{{ let arr = match {} % 3 {{ 0 => [{{0}}, $H], 1 | 2 => [{{1}}, {{0}}], _ => [$H, {{1}}] }}; arr[0] - arr[1] * arr[0] }}",
                        i.name
                    ),
                    vec![e, f],
                ),
                None => raw("({0}) * $PI", vec![e]),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::gen::{generate, generate_with};
    use crate::print::{print_program, Mode};

    /// Every form of `--sugar` appears in a few seeds' programs, which parse in all three copies.
    #[test]
    fn sugar_forms_are_generated_and_parse() {
        let forms = [
            ".rev().rev()",
            ".step_by(2).step_by(",
            ".enumerate().rev()",
            ".rev().enumerate()",
            ".iter()).zip(",
            "break 'b",
            " = (",
            " = [",
            " = ((",
            ".copysign(",
            ".clamp(",
            "continue;",
            ".rev().fold(",
            ".enumerate().rev().fold(",
            "continue 'l",
            "break 'l",
            ").tan()",
            ").asin()",
            ").acos()",
            ").atanh()",
            ").acosh()",
            ").cosh()",
            ").exp2()",
            ").log2()",
            ").log10()",
            ").log(",
            ").sin_cos().",
            ").sin_cos();",
            ").floor() * (",
            ").signum() * (",
            "f64::sin(",
            "f64::max(",
            "std::f64::consts::PI",
            "std::f64::consts::E)",
            "f64::EPSILON",
            "* x.cos() + x",
            "let arr = if (",
            "let arr = match ",
            ": &Vec<f64>",
            "s: &[f64; ",
            ": &f64",
            "(*",
            "autodiff::stop_gradient(",
            ".iter().fold(f64::NEG_INFINITY, |acc_m, &el_m| acc_m.max(",
            ".iter().fold(f64::INFINITY, |acc_m, &el_m| acc_m.min(",
            "-> [f64; 2]",
        ];
        let mut seen = std::collections::BTreeSet::new();
        let mut capitalised_binding = false;
        let mut guarded_binding = false;
        for seed in 1..4 {
            for id in 0..60 {
                let p = generate(seed, id, seed % 2 == 0, true);
                for mode in [Mode::Macro, Mode::Plain, Mode::Oracle] {
                    let src = print_program(&p, mode);
                    if let Err(e) = syn::parse_file(&src) {
                        panic!("seed {seed} program {id} ({mode:?}) does not parse: {e}\n{src}");
                    }
                }
                let module = crate::harness::program_module(&p, "p0");
                syn::parse_file(&module)
                    .unwrap_or_else(|e| panic!("the check module does not parse: {e}\n{module}"));
                let src = print_program(&p, Mode::Macro);
                for f in forms {
                    if src.contains(f) {
                        seen.insert(f);
                    }
                }
                guarded_binding |= guarded(&src);
                capitalised_binding |= src
                    .lines()
                    .any(|l| l.trim_start().starts_with('N') && l.contains("=>"));
            }
        }
        let missing: Vec<&str> = forms
            .iter()
            .filter(|f| !seen.contains(*f))
            .copied()
            .collect();
        assert!(missing.is_empty(), "never generated: {missing:?}");
        assert!(capitalised_binding, "no capitalised binding");
        assert!(guarded_binding, "no guarded fresh binding");
    }

    /// Whether `src` has a guard on a fresh binding, `n7 if ` or `N7 if `.
    fn guarded(src: &str) -> bool {
        src.match_indices(" if ").any(|(i, _)| {
            let word = src[..i]
                .rsplit(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("");
            word.len() > 1
                && word.starts_with(['n', 'N'])
                && word[1..].chars().all(|c| c.is_ascii_digit())
        })
    }

    /// Without `--sugar` no form of it is generated (its weights are zero and its branches not taken, so
    /// that a seed's programs stay as they were).
    #[test]
    fn without_sugar_no_sugar_form() {
        for seed in 1..4 {
            for id in 0..60 {
                let src = print_program(&generate_with(seed, id, seed % 2 == 0), Mode::Macro);
                for f in [
                    "break '",
                    ".copysign(",
                    ".clamp(",
                    "iter()).zip(",
                    ".rev().rev()",
                    ".enumerate().rev()",
                    "continue;",
                    ".rev().fold(",
                    "continue 'l",
                    "break 'l",
                ] {
                    assert!(!src.contains(f), "seed {seed} program {id}: {f}\n{src}");
                }
                assert!(!guarded(&src), "seed {seed} program {id}: a guard\n{src}");
                assert!(
                    !src.lines().any(|l| {
                        let l = l.trim_start();
                        let destructuring = (l.starts_with('(') || l.starts_with('['))
                            && !l.starts_with("(*")
                            && (l.contains(") = ") || l.contains("] = "))
                            && l.ends_with(';');
                        destructuring || l.starts_with("let N")
                    }),
                    "seed {seed} program {id}: a destructuring assignment or capitalised local\n{src}"
                );
            }
        }
    }
}
