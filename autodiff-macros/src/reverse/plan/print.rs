//! The plan printed, for its unit tests and the documentation: one line per loop, per branch arm and
//! call with a decision, per increment, with the names of the generated code.
//!
//! ```text
//! loop __i: forwards unless it pops, counter k from k_1
//!   recompute __v3, s_1
//!   loop __i_1: forwards unless it pops, counter k_1 += 1
//!     recompute __v0, __v1, __v2, t_1, k_2
//! ```

use super::{CallPlan, CounterPlan, Order, Plan};
use crate::emit::Emitter;
use crate::ir::{Array, ArrayInit, Block, CallSite, Function, Loop, Operand, Stmt, Value, Var};
use std::fmt;

impl Plan {
    /// The plan printed with the names that `e` gives values and arrays in the generated code, in
    /// program order: one line per loop, per branch arm and call with a decision, per increment.
    pub(crate) fn display<'p>(&'p self, e: &'p Emitter) -> impl fmt::Display + 'p {
        Printed {
            plan: self,
            f: e.f,
            e,
        }
    }
}

/// A plan printed with the names of its function's values.
struct Printed<'p> {
    plan: &'p Plan,
    f: &'p Function,
    e: &'p Emitter<'p>,
}

impl Printed<'_> {
    fn var(&self, v: Var) -> String {
        self.e.name(v).to_string()
    }

    fn operand(&self, o: &Operand) -> String {
        match o {
            Operand::Var(v) => self.var(*v),
            Operand::Const { tokens, .. } => tokens.to_string(),
            Operand::Array(a) => self.array(*a),
        }
    }

    fn array(&self, a: Array) -> String {
        self.e.array_name(a).to_string()
    }

    fn vars<'v>(&self, vars: impl IntoIterator<Item = &'v Var>) -> String {
        let names: Vec<String> = vars.into_iter().map(|v| self.var(*v)).collect();
        names.join(", ")
    }

    /// The lines of `block`, indented by `depth`.
    fn block(&self, block: &Block, depth: usize, out: &mut String) -> fmt::Result {
        use fmt::Write as _;
        let pad = "  ".repeat(depth);
        // The values of this block that a decision names.
        let defs: Vec<Var> = block.defs();
        let recomputed: Vec<&Var> = defs
            .iter()
            .filter(|v| self.plan.recomputed.contains(v))
            .collect();
        if !recomputed.is_empty() {
            writeln!(out, "{pad}recompute {}", self.vars(recomputed))?;
        }
        for v in &defs {
            if let Some(trips) = self.plan.hoisted.get(v) {
                let l = self.loop_name(*trips);
                writeln!(out, "{pad}store {} once before loop {l}", self.var(*v))?;
            }
            if let Some(copy) = self.plan.array_snapshots.get(v) {
                let (a, l) = (self.array(copy.array), self.loop_name(copy.after));
                writeln!(
                    out,
                    "{pad}read {} from {a} stored whole after loop {l}",
                    self.var(*v)
                )?;
            }
        }
        for stmt in &block.stmts {
            match stmt {
                Stmt::Loop(l) => {
                    self.loop_(l, depth, out)?;
                    self.block(&l.body, depth + 1, out)?;
                }
                // A branch's arms, where the plan decides something in them.
                Stmt::If { cond, .. }
                | Stmt::Match {
                    scrutinee: cond, ..
                } => {
                    for (k, arm) in stmt.blocks().into_iter().enumerate() {
                        let mut lines = String::new();
                        self.block(arm, depth + 1, &mut lines)?;
                        if !lines.is_empty() {
                            writeln!(out, "{pad}branch on {}, arm {k}", self.operand(cond))?;
                            out.push_str(&lines);
                        }
                    }
                }
                Stmt::Let {
                    var,
                    value: Value::Call { callee, .. },
                } => self.call(CallSite::Value(*var), callee, &pad, out)?,
                Stmt::NewArray {
                    array,
                    init: ArrayInit::Call { callee, .. },
                } => self.call(CallSite::Array(*array), callee, &pad, out)?,
                Stmt::Store {
                    array,
                    index,
                    value: Operand::Var(v),
                } => {
                    if let Some(w) = self.plan.increments.get(v) {
                        let (a, at, w) = (self.array(*array), self.operand(index), self.operand(w));
                        writeln!(out, "{pad}increment {a}[{at}] += {w}")?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn loop_name(&self, trips: Var) -> String {
        let l = self.f.all_stmts().into_iter().find_map(|s| match s {
            Stmt::Loop(l) if l.trips == trips => Some(l),
            _ => None,
        });
        match l.and_then(|l| l.range.as_ref()) {
            Some((_, index)) => self.var(*index),
            None => self.var(trips),
        }
    }

    fn loop_(&self, l: &Loop, depth: usize, out: &mut String) -> fmt::Result {
        use fmt::Write as _;
        let pad = "  ".repeat(depth);
        let p = self.plan.of_loop(l.trips);
        let mut parts = vec![match (p.order, p.direct) {
            (Order::Fused, _) => "fused".to_owned(),
            (Order::Forwards, _) => "forwards unless it pops".to_owned(),
            (Order::Backwards, true) => "backwards".to_owned(),
            (Order::Backwards, false) => "backwards, counted".to_owned(),
        }];
        let index = l.range.as_ref().map(|(_, i)| self.var(*i));
        let at = |offset: i64| match (index.as_deref().unwrap_or("i"), offset) {
            (i, 0) => i.to_owned(),
            (i, o) if o > 0 => format!("{i} + {o}"),
            (i, o) => format!("{i} - {}", -o),
        };
        for (array, (lowest, highest)) in &p.window.arrays {
            let (a, low, high) = (self.array(*array), at(*lowest), at(*highest));
            parts.push(format!("window {a}[{low}..={high}]"));
        }
        for (array, index) in &p.window.invariant {
            let (a, at) = (self.array(*array), self.operand(index));
            parts.push(format!("sum {a}[{at}]"));
        }
        for (phi, counter) in &p.counters {
            let name = self.var(*phi);
            parts.push(match counter {
                CounterPlan::Step { step, added } => {
                    let sign = if *added { "+" } else { "-" };
                    format!("counter {name} {sign}= {}", self.operand(step))
                }
                CounterPlan::Chained { out } => {
                    format!("counter {name} from {}", self.var(*out))
                }
            });
        }
        let name = self.loop_name(l.trips);
        writeln!(out, "{pad}loop {name}: {}", parts.join(", "))
    }

    fn call(
        &self,
        site: CallSite,
        callee: &syn::ExprPath,
        pad: &str,
        out: &mut String,
    ) -> fmt::Result {
        use fmt::Write as _;
        let name = quote::ToTokens::to_token_stream(callee).to_string();
        match self.plan.calls.get(&site) {
            Some(CallPlan::Into) => writeln!(out, "{pad}call {name}: vjp_into"),
            Some(CallPlan::StoredGradient(arrays)) => {
                let arrays: Vec<String> = arrays.iter().map(|a| self.array(*a)).collect();
                let arrays = arrays.join(", ");
                writeln!(out, "{pad}call {name}: gradient stored for {arrays}")
            }
            None => Ok(()),
        }
    }
}

impl fmt::Display for Printed<'_> {
    fn fmt(&self, out: &mut fmt::Formatter) -> fmt::Result {
        let mut lines = String::new();
        self.block(&self.f.body, 0, &mut lines)?;
        out.write_str(&lines)
    }
}

mod tests {
    use super::*;
    use crate::args::Args;
    use crate::errors::Errors;
    use crate::reverse::Shortcuts;

    /// The plan of `src` with `shortcuts`, printed.
    fn plan_of(src: &str, shortcuts: Shortcuts) -> String {
        let item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let mut errors = Errors::default();
        let sig = crate::signature::analyze(&item, &Args::default(), &mut errors)
            .expect("supported signature");
        let float_params = crate::signature::float_type_params(&item.sig.generics);
        let f = crate::lower::lower(&item, &sig, float_params.clone(), &mut errors);
        let activity = crate::activity::analyze(&f, &sig, &float_params, &mut errors);
        assert!(errors.finish().is_ok(), "test source is supported");
        let plan = Plan::new(&f, &activity, shortcuts);
        let e = Emitter::new(&f, &sig, &activity);
        let printed = plan.display(&e).to_string();
        printed
    }

    /// Asserts the plans of `src` with every shortcut and with none, line by line.
    #[track_caller]
    fn check(src: &str, all: &[&str], none: &[&str]) {
        let (optimised, reference) = (plan_of(src, Shortcuts::ALL), plan_of(src, Shortcuts::NONE));
        assert_eq!(
            (
                optimised.lines().collect::<Vec<_>>(),
                reference.lines().collect::<Vec<_>>()
            ),
            (all.to_vec(), none.to_vec()),
            "Shortcuts::ALL:\n{optimised}\nShortcuts::NONE:\n{reference}"
        );
    }

    #[test]
    fn an_accumulation_loop_is_fused_with_a_window() {
        check(
            "fn f(x: &[f64]) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() - 1 {
                    let t = x[i + 1] - x[i] * x[i];
                    let u = 1.0 - x[i];
                    s += t * 100.0 * t + u.exp();
                }
                s
            }",
            &["loop __i: fused, window x[__i..=__i + 1]"],
            &["loop __i: backwards"],
        );
    }

    #[test]
    fn an_array_written_whole_and_read_twice_is_read_from_a_copy() {
        check(
            "fn f(x: &[f64], w: &[f64]) -> f64 {
                let n = w.len();
                let mut c = vec![0.0; n];
                let mut s = 0.0;
                for p in 0..x.len() {
                    for j in 0..n {
                        c[j] = x[p] * w[j];
                    }
                    for j in 0..n {
                        s += c[j] * c[n - 1 - j];
                    }
                }
                s
            }",
            &[
                "loop __i: backwards",
                "  loop __i_1: backwards, sum x[__i]",
                "    recompute __v1, __v2, __v3",
                "  loop __i_2: forwards unless it pops",
                "    recompute __v5, __v6, __v8, s_2",
                "    read __v4 from c stored whole after loop __i_1",
                "    read __v7 from c stored whole after loop __i_1",
            ],
            &[
                "loop __i: backwards",
                "  loop __i_1: backwards",
                "  loop __i_2: backwards",
            ],
        );
    }

    #[test]
    fn a_carried_product_is_reversed_backwards_recomputing_its_body() {
        check(
            "fn f(x: &[f64]) -> f64 {
                let mut p = 1.0;
                for i in 0..x.len() {
                    p = p * x[i].sin();
                }
                p
            }",
            &["loop __i: backwards", "  recompute __v1, p_1"],
            &["loop __i: backwards"],
        );
    }

    #[test]
    fn a_read_at_the_next_index_gets_a_window_in_a_loop_that_is_not_fused() {
        check(
            "fn f(x: &[f64]) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() - 1 {
                    s = s * 0.5 + x[i] * x[i + 1];
                }
                s
            }",
            &[
                "loop __i: backwards, window x[__i..=__i + 1]",
                "  recompute __v2, __v3, __v4, __v5, __v6, s_1",
            ],
            &["loop __i: backwards"],
        );
    }

    #[test]
    fn an_invariant_read_is_summed_in_a_register() {
        check(
            "fn f(x: &[f64], c: &[f64], k: usize) -> f64 {
                let mut s = 0.0;
                for j in 0..x.len() {
                    s += c[k] * x[j];
                }
                s * s
            }",
            &[
                "loop __i: forwards unless it pops, sum c[k]",
                "  recompute __v1, __v2, __v3, s_1",
            ],
            &["loop __i: backwards"],
        );
    }

    #[test]
    fn a_branch_recomputes_what_its_adjoint_reads() {
        check(
            "fn f(x: f64, y: &[f64]) -> f64 {
                let z = if x > 0.0 { x.sin() * x } else { g(y) * x };
                z * z
            }",
            &[
                "branch on __v0, arm 0",
                "  recompute __v1, __v2",
                "branch on __v0, arm 1",
                "  recompute __v3, __v4",
                "  call g: vjp_into",
            ],
            &[],
        );
    }

    #[test]
    fn nested_loops_recover_their_counters() {
        check(
            "fn f(a: &[f64], x: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                let mut k = 0;
                for i in 0..n {
                    let mut t = 0.0;
                    for j in 0..n {
                        t += a[k] * x[j];
                        k += 1;
                    }
                    s += t * t;
                }
                s.sqrt()
            }",
            &[
                "loop __i: forwards unless it pops, counter k from k_1",
                "  recompute __v3, s_1",
                "  loop __i_1: forwards unless it pops, counter k_1 += 1",
                "    recompute __v0, __v1, __v2, t_1, k_2",
            ],
            &["loop __i: backwards", "  loop __i_1: backwards"],
        );
    }

    #[test]
    fn a_read_the_same_in_every_iteration_of_an_array_written_later_is_stored_once() {
        check(
            "fn f(x: &[f64], n: usize) -> f64 {
                let mut c = x.to_vec();
                let mut y = vec![0.0; n];
                for r in 0..2 {
                    for i in 0..n {
                        for j in 0..n {
                            y[j] += c[i] * x[j];
                        }
                    }
                    c[0] = y[0];
                }
                y[0]
            }",
            &[
                "loop __i: backwards",
                "  loop __i_1: backwards",
                "    loop __i_2: backwards, sum c[__i_1]",
                "      recompute __v1, __v2, __v4",
                "      store __v0 once before loop __i_2",
                "      increment y[__i_2] += __v2",
            ],
            &[
                "loop __i: backwards",
                "  loop __i_1: backwards",
                "    loop __i_2: backwards",
            ],
        );
    }

    /// The loops of `src` planned with every shortcut, by their first line: `fused` or not.
    fn fused_loops(src: &str) -> Vec<bool> {
        plan_of(src, Shortcuts::ALL)
            .lines()
            .filter(|line| line.starts_with("loop "))
            .map(|line| line.contains(": fused"))
            .collect()
    }

    #[test]
    fn a_loop_using_scratch_arrays_written_whole_each_iteration_is_fused() {
        // GMM's shape: a read-only local made before the loop, scratch arrays written whole in a nested
        // loop and read after the writer, one passed to a call.
        let src = "fn f(x: &[f64], w: &[f64], mu: &[f64]) -> f64 {
            let k = mu.len();
            let d = w.len();
            let mut q = vec![0.0; d];
            for j in 0..d { q[j] = w[j].exp(); }
            let mut c = vec![0.0; d];
            let mut t = vec![0.0; k];
            let mut total = 0.0;
            for p in 0..x.len() {
                for i in 0..k {
                    for j in 0..d { c[j] = q[j] * (x[p] - mu[i]); }
                    let mut norm = 0.0;
                    for j in 0..d { norm += c[j] * c[j]; }
                    t[i] = norm;
                }
                total += g(&t);
            }
            let mut prior = 0.0;
            for j in 0..d { prior += q[j]; }
            total + prior
        }";
        assert_eq!(fused_loops(src), [false, true, true]);
    }

    #[test]
    fn a_scratch_array_that_may_keep_a_value_between_iterations_is_not_fused() {
        let wrap = |body: &str| {
            format!(
                "fn f(x: &[f64], w: &[f64]) -> f64 {{
                    let n = w.len();
                    let mut c = vec![0.0; n];
                    let mut s = 0.0;
                    for p in 0..x.len() {{ {body} }}
                    s
                }}"
            )
        };
        // The iteration's sum is added at the top of the body: an accumulation through a nested loop's
        // carried value is not one `accumulates` sees.
        let read = "let mut t = 0.0; for j in 0..n { t += c[j] * w[j]; } s += t;";
        let whole = format!("for j in 0..n {{ c[j] = x[p] * w[j]; }} {read}");
        assert_eq!(fused_loops(&wrap(&whole)), [true]);
        // The writer to the array's length, read in the body (`for j in 0..c.len()`, found by the fuzzer's
        // `--scratch` programs: the read of the length was taken for the first touch of the array).
        let to_len = format!("for j in 0..c.len() {{ c[j] = x[p] * w[j]; }} {read}");
        assert_eq!(fused_loops(&wrap(&to_len)), [true]);
        let to_len_less = format!("for j in 0..c.len() - 1 {{ c[j] = x[p] * w[j]; }} {read}");
        assert_eq!(fused_loops(&wrap(&to_len_less)), [false]);
        // Read before it is written; written in part; the writer reads it; written under a branch.
        let before = format!("{read} for j in 0..n {{ c[j] = x[p] * w[j]; }}");
        let part = format!("for j in 0..n - 1 {{ c[j] = x[p] * w[j]; }} {read}");
        let mixed = format!("for j in 0..n {{ c[j] = c[j] + x[p]; }} {read}");
        let branch = format!("if x[p] > 0.0 {{ for j in 0..n {{ c[j] = x[p]; }} }} {read}");
        for body in [before, part, mixed, branch] {
            assert_eq!(fused_loops(&wrap(&body)), [false], "{body}");
        }
        // Read after the loop.
        let after = "fn f(x: &[f64], w: &[f64]) -> f64 {
            let n = w.len();
            let mut c = vec![0.0; n];
            let mut s = 0.0;
            for p in 0..x.len() {
                for j in 0..n { c[j] = x[p] * w[j]; }
                let mut t = 0.0;
                for j in 0..n { t += c[j]; }
                s += t;
            }
            s + c[0]
        }";
        assert_eq!(fused_loops(after), [false]);
    }

    #[test]
    fn a_loop_reading_a_local_written_after_it_is_not_fused() {
        let src = |later: &str| {
            format!(
                "fn f(x: &[f64]) -> f64 {{
                    let n = x.len();
                    let mut q = vec![0.0; n];
                    for j in 0..n {{ q[j] = x[j].exp(); }}
                    let mut s = 0.0;
                    for p in 0..n {{ s += q[p] * x[p]; }}
                    {later}
                    s + q[0]
                }}"
            )
        };
        assert_eq!(fused_loops(&src("")), [false, true]);
        // Two loops reading it, both fused (the first declares its adjoint buffer).
        let twice = "let mut t = 0.0; for p in 0..n { t += q[p] * x[p].sin(); } s = s + t;";
        assert_eq!(fused_loops(&src(twice)), [false, true, true]);
        assert_eq!(fused_loops(&src("q[0] = x[0];")), [false, false]);
    }
}
