//! Shrinks failing programs to small reproducers: greedy reduction that keeps the failure's key (class and kind,
//! `Outcome::key`) unchanged. Every round evaluates a batch of candidates of every failure in one generated crate
//! (one build for all), and keeps the first candidate of each failure that still fails the same way. A candidate
//! whose plain or oracle copy does not compile is invalid and never kept.

use crate::ast::*;
use crate::print::{print_func, Mode};
use crate::runner::{Outcome, WorkCrate};
use std::time::{Duration, Instant};

struct State {
    program: Program,
    outcome: Outcome,
    key: String,
    cursor: usize,
    tried_without_progress: usize,
    done: bool,
}

/// Shrinks every failing `(module, program, outcome)` within `budget`; returns the shrunk programs, with their
/// own outcomes (the same key, the details of the smaller program), in order.
pub fn shrink_all(
    work: &WorkCrate,
    failures: &[(String, Program, Outcome)],
    seed: u64,
    budget: Duration,
    quiet: bool,
) -> Result<Vec<(Program, Outcome)>, String> {
    let start = Instant::now();
    let mut states: Vec<State> = failures
        .iter()
        .map(|(_, p, o)| State {
            program: p.clone(),
            outcome: o.clone(),
            key: o.key(),
            cursor: 0,
            tried_without_progress: 0,
            done: false,
        })
        .collect();
    let per_round = (120 / failures.len().max(1)).clamp(6, 30);
    let mut round = 0;
    while start.elapsed() < budget && states.iter().any(|s| !s.done) {
        round += 1;
        let mut batch: Vec<(String, Program)> = Vec::new();
        let mut owners: Vec<(usize, Vec<Program>)> = Vec::new();
        for (i, st) in states.iter_mut().enumerate().filter(|(_, s)| !s.done) {
            let all = candidates(&st.program);
            if all.is_empty() || st.tried_without_progress >= all.len() {
                st.done = true;
                continue;
            }
            let take: Vec<Program> = (0..per_round.min(all.len()))
                .map(|k| all[(st.cursor + k) % all.len()].clone())
                .collect();
            for (j, c) in take.iter().enumerate() {
                batch.push((format!("s{i}_{j}"), c.clone()));
            }
            owners.push((i, take));
        }
        if batch.is_empty() {
            break;
        }
        // A build that fails in a way the runner cannot attribute ends the shrinking, not the run.
        let eval = match work.evaluate(&batch, None, seed, true) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("fuzz: shrinking stopped: {e}");
                break;
            }
        };
        let mut progressed = 0;
        for (i, cands) in owners {
            let st = &mut states[i];
            // The smallest candidate that still fails the same way.
            let hit = (0..cands.len())
                .filter(|j| {
                    eval.outcomes
                        .get(&format!("s{i}_{j}"))
                        .is_some_and(|o| o.key() == st.key)
                })
                .min_by_key(|&j| (cands[j].size(), j));
            match hit {
                Some(j) => {
                    st.program = cands[j].clone();
                    st.outcome = eval.outcomes[&format!("s{i}_{j}")].clone();
                    st.cursor += j;
                    st.tried_without_progress = 0;
                    progressed += 1;
                }
                None => {
                    st.cursor += cands.len();
                    st.tried_without_progress += cands.len();
                }
            }
        }
        if !quiet {
            eprintln!(
                "fuzz: shrink round {round}: {} candidates, {} builds, {progressed} programs smaller, {:.0} s",
                batch.len(),
                eval.builds,
                start.elapsed().as_secs_f64()
            );
        }
    }
    Ok(states.into_iter().map(|s| (s.program, s.outcome)).collect())
}

/// Every one-step reduction of `p`, the coarse ones first.
pub fn candidates(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    // Helpers nobody calls.
    for k in 0..p.funcs.len().saturating_sub(1) {
        let name = &p.funcs[k].name;
        let used = p
            .funcs
            .iter()
            .any(|f| f.name != *name && mentions(&print_func(f, Mode::Macro), name));
        if !used {
            let mut q = p.clone();
            q.funcs.remove(k);
            out.push(q);
        }
    }
    // Statement edits, then expression edits, each enumerated by a counter over the edit sites.
    for edit in [stmt_edit as fn(&mut Program, usize) -> bool, expr_edit] {
        for target in 0.. {
            let mut q = p.clone();
            if !edit(&mut q, target) {
                break;
            }
            if q != *p {
                out.push(q);
            }
        }
    }
    // Parameters of the main function that nothing reads.
    let main = p.main();
    let text = print_func(main, Mode::Macro);
    let body = text.split_once('{').map_or("", |(_, b)| b);
    for (k, param) in main.params.iter().enumerate() {
        if !mentions(body, &param.name) && main.params.len() > 1 {
            let mut q = p.clone();
            let f = q.funcs.last_mut().expect("main");
            f.params.remove(k);
            if let FnKind::Differentiable { wrt: Some(w), .. } = &mut f.kind {
                w.retain(|n| n != &param.name);
                if w.is_empty() {
                    continue;
                }
            }
            if !f.active_params().is_empty() {
                out.push(q);
            }
        }
    }
    out
}

/// Whether `text` has the identifier `name`.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

/// Applies statement edit number `target` (in a fixed order over all blocks); `false` when there is none.
fn stmt_edit(p: &mut Program, target: usize) -> bool {
    let mut seen = 0;
    for f in p.funcs.iter_mut().rev() {
        if edit_block(&mut f.body, target, &mut seen) {
            return true;
        }
    }
    false
}

fn edit_block(b: &mut Vec<Stmt>, target: usize, seen: &mut usize) -> bool {
    let hit = |seen: &mut usize| {
        let h = *seen == target;
        *seen += 1;
        h
    };
    // Halves and quarters first (delta debugging), then single statements.
    let n = b.len();
    for size in [n / 2, n / 4] {
        if size >= 2 {
            for start in (0..n - size + 1).step_by(size) {
                if hit(seen) {
                    b.drain(start..start + size);
                    return true;
                }
            }
        }
    }
    for j in 0..b.len() {
        if hit(seen) {
            b.remove(j);
            return true;
        }
        let inline: Vec<Vec<Stmt>> = match &b[j] {
            Stmt::For { body, .. } | Stmt::While { body, .. } => vec![body.clone()],
            Stmt::Loop {
                body, result: None, ..
            } => vec![body.clone()],
            Stmt::If { then, els, .. } => {
                let mut v = vec![then.clone()];
                v.extend(els.clone());
                v
            }
            Stmt::Match { arms, .. } => arms.iter().map(|(_, b)| b.clone()).collect(),
            Stmt::Seq(body) | Stmt::RawBlock { body, .. } => vec![body.clone()],
            _ => vec![],
        };
        for body in inline {
            if hit(seen) {
                b.splice(j..j + 1, body);
                return true;
            }
        }
        if let Stmt::If { els: Some(_), .. } = &b[j] {
            if hit(seen) {
                if let Stmt::If { els, .. } = &mut b[j] {
                    *els = None;
                }
                return true;
            }
        }
        if let Stmt::While { cond: Some(_), .. } = &b[j] {
            if hit(seen) {
                if let Stmt::While { cond, .. } = &mut b[j] {
                    *cond = None;
                }
                return true;
            }
        }
        let nested: Vec<&mut Vec<Stmt>> = match &mut b[j] {
            Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Loop { body, .. } => {
                vec![body]
            }
            Stmt::If { then, els, .. } => {
                let mut v = vec![then];
                if let Some(e) = els {
                    v.push(e);
                }
                v
            }
            Stmt::Match { arms, .. } => arms.iter_mut().map(|(_, b)| b).collect(),
            Stmt::Seq(body) | Stmt::LetLabelled { body, .. } | Stmt::RawBlock { body, .. } => {
                vec![body]
            }
            _ => vec![],
        };
        for inner in nested {
            if edit_block(inner, target, seen) {
                return true;
            }
        }
    }
    false
}

/// Applies expression edit number `target`: an expression replaced by one of its operands or by `1.0`.
fn expr_edit(p: &mut Program, target: usize) -> bool {
    let mut seen = 0;
    let mut f = |e: &mut Expr| {
        let alts = alternatives(e);
        if target < seen + alts.len() {
            *e = alts[target - seen].clone();
            true
        } else {
            seen += alts.len();
            false
        }
    };
    for func in p.funcs.iter_mut().rev() {
        for s in &mut func.body {
            if visit_stmt(s, &mut f) {
                return true;
            }
        }
        for e in &mut func.tail {
            if visit_expr(e, &mut f) {
                return true;
            }
        }
    }
    false
}

fn alternatives(e: &Expr) -> Vec<Expr> {
    let mut v: Vec<Expr> = match e {
        Expr::Lit(_) | Expr::Var(_) => return vec![],
        Expr::Index(..) | Expr::Index2(..) | Expr::Cast(_) | Expr::Fold(..) => vec![],
        Expr::Raw(_, es) => es.clone(),
        // The fold with one adapter fewer.
        Expr::HornerFold(a, adapters, init, c) if !adapters.is_empty() => {
            let fewer = adapters[..adapters.len() - 1].to_vec();
            vec![Expr::HornerFold(a.clone(), fewer, *init, *c)]
        }
        Expr::HornerFold(..) => vec![],
        Expr::CallClosure(_, a) => vec![(**a).clone()],
        Expr::Neg(a) | Expr::Method(_, a) => vec![(**a).clone()],
        Expr::Bin(_, a, b) | Expr::If(_, a, b) => vec![(**a).clone(), (**b).clone()],
        Expr::Method2(_, a, args) => std::iter::once((**a).clone())
            .chain(args.iter().cloned())
            .collect(),
        Expr::Call(_, args) => args
            .iter()
            .filter_map(|a| match a {
                Arg::Float(e) => Some(e.clone()),
                _ => None,
            })
            .collect(),
        Expr::Match(_, arms) => arms.iter().map(|(_, e)| e.clone()).collect(),
    };
    v.push(Expr::Lit(1.0));
    v
}

type Visitor<'a> = dyn FnMut(&mut Expr) -> bool + 'a;

fn visit_cond(c: &mut Cond, f: &mut Visitor) -> bool {
    match c {
        Cond::Float(_, a, b) => visit_expr(a, f) || visit_expr(b, f),
        Cond::Int(..) => false,
    }
}

fn visit_block(b: &mut [Stmt], f: &mut Visitor) -> bool {
    b.iter_mut().any(|s| visit_stmt(s, f))
}

fn visit_stmt(s: &mut Stmt, f: &mut Visitor) -> bool {
    match s {
        Stmt::LetClosure { .. } => false,
        Stmt::Seq(b) => visit_block(b, f),
        Stmt::Destructure { value, .. } => visit_dvalue(value, f),
        Stmt::LetLabelled { body, value, .. } => visit_block(body, f) || visit_expr(value, f),
        Stmt::BreakLabel { cond, value, .. } => visit_cond(cond, f) || visit_expr(value, f),
        Stmt::ContinueIf(cond) | Stmt::JumpIf { cond, .. } => visit_cond(cond, f),
        Stmt::LabelledFor { inner, .. } => visit_stmt(inner, f),
        Stmt::LetMatrix { fill, .. } => visit_expr(fill, f),
        Stmt::LetPair { init, .. } => match init {
            PairInit::Var(..) => false,
            PairInit::Val(v) => visit_pair_val(v, f),
            PairInit::If(c, a, b) => {
                visit_cond(c, f) || visit_pair_val(a, f) || visit_pair_val(b, f)
            }
            PairInit::Match(_, arms) => arms.iter_mut().any(|(_, v)| visit_pair_val(v, f)),
        },
        Stmt::Let { init, .. } => visit_expr(init, f),
        Stmt::LetArray { init, .. } => match init {
            ArrayInit::Vec(e, _) | ArrayInit::Fixed(e, _) => visit_expr(e, f),
            ArrayInit::List(es) => es.iter_mut().any(|e| visit_expr(e, f)),
            ArrayInit::CopyOf(_) => false,
        },
        Stmt::AssignWhole { .. } => false,
        Stmt::Assign { value, .. } => visit_expr(value, f),
        Stmt::For { body, .. } => visit_block(body, f),
        Stmt::While { cond, body, .. } => {
            cond.as_mut().is_some_and(|c| visit_cond(c, f)) || visit_block(body, f)
        }
        Stmt::Loop { result, body, .. } => {
            visit_block(body, f) || result.as_mut().is_some_and(|(_, e)| visit_expr(e, f))
        }
        Stmt::BreakIf { cond, value } => {
            visit_cond(cond, f) || value.as_mut().is_some_and(|e| visit_expr(e, f))
        }
        Stmt::If { cond, then, els } => {
            visit_cond(cond, f)
                || visit_block(then, f)
                || els.as_mut().is_some_and(|b| visit_block(b, f))
        }
        Stmt::Match { arms, .. } => arms.iter_mut().any(|(_, b)| visit_block(b, f)),
        Stmt::Raw { exprs, .. } => exprs.iter_mut().any(|e| visit_expr(e, f)),
        Stmt::RawBlock { exprs, body, .. } => {
            exprs.iter_mut().any(|e| visit_expr(e, f)) || visit_block(body, f)
        }
        Stmt::ReturnIf { cond, values } => {
            visit_cond(cond, f) || values.iter_mut().any(|e| visit_expr(e, f))
        }
    }
}

fn visit_dvalue(v: &mut DValue, f: &mut Visitor) -> bool {
    match v {
        DValue::Expr(e) => visit_expr(e, f),
        DValue::Tuple(vs) | DValue::Array(vs) => vs.iter_mut().any(|v| visit_dvalue(v, f)),
        DValue::Call(_, args) => args.iter_mut().any(|a| visit_arg(a, f)),
    }
}

fn visit_pair_val(v: &mut PairVal, f: &mut Visitor) -> bool {
    match v {
        PairVal::Lit(a, b) => visit_expr(a, f) || visit_expr(b, f),
        PairVal::Call(_, args) => args.iter_mut().any(|a| visit_arg(a, f)),
    }
}

fn visit_arg(a: &mut Arg, f: &mut Visitor) -> bool {
    match a {
        Arg::Float(e) => visit_expr(e, f),
        Arg::Pair(a, b, _) => visit_expr(a, f) || visit_expr(b, f),
        _ => false,
    }
}

fn visit_expr(e: &mut Expr, f: &mut Visitor) -> bool {
    if f(e) {
        return true;
    }
    match e {
        Expr::Lit(_)
        | Expr::Var(_)
        | Expr::Index(..)
        | Expr::Index2(..)
        | Expr::Cast(_)
        | Expr::Fold(..)
        | Expr::HornerFold(..) => false,
        Expr::CallClosure(_, a) => visit_expr(a, f),
        Expr::Raw(_, es) => es.iter_mut().any(|e| visit_expr(e, f)),
        Expr::Neg(a) | Expr::Method(_, a) => visit_expr(a, f),
        Expr::Bin(_, a, b) => visit_expr(a, f) || visit_expr(b, f),
        Expr::Method2(_, a, args) => visit_expr(a, f) || args.iter_mut().any(|e| visit_expr(e, f)),
        Expr::Call(_, args) => args.iter_mut().any(|a| visit_arg(a, f)),
        Expr::If(c, a, b) => visit_cond(c, f) || visit_expr(a, f) || visit_expr(b, f),
        Expr::Match(_, arms) => arms.iter_mut().any(|(_, e)| visit_expr(e, f)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_smaller() {
        for id in 0..10 {
            let p = crate::gen::generate_with(3, id, true);
            let cands = candidates(&p);
            assert!(!cands.is_empty());
            for c in cands.iter().take(50) {
                assert!(c.size() <= p.size(), "a candidate grew");
                assert_ne!(*c, p);
            }
        }
    }
}
