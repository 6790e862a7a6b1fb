//! Matrices read by element in place: an inactive matrix parameter (`x: &[Vec<T>]`, `Vec<Vec<T>>`,
//! `[[T; M]; N]`) that nothing writes and that the body reads only by element (`x[i][j]`), by row (`&x[i]`,
//! iterated, lent to calls) and by its lengths (`x.len()`, `x[i].len()`) is not flattened at each call
//! (`views::in_place_matrices`): its elements are read where they are, `__matrix_x[i][j]`, with the bounds
//! check of the primal's `x[i][j]` (a column past a ragged row's end panics as the primal does, where the
//! flat copy read the next row), and no row offsets are made for them (`views::unread_offsets`).
//!
//! Lowering reads an element of a matrix through the flat array, `flat[offsets[i] + j]`, and records the
//! row and column in the load (`ir::At`): the same lowered function serves the sweeps where the matrix is
//! active (the companion's hidden `__vjp_all`, which differentiates through every float parameter), which
//! read it flat. A sweep that reads it in place runs on a copy of the function in which those loads read
//! the row and column instead ([`read_in_place`]), a row's length reads the row (`ir::Value::RowLen`), and
//! the offset arithmetic that only they read is gone: every later pass (the store/recompute plan,
//! liveness, the emitters) sees what the load reads as its operands, as for any other value. Being
//! inactive and never written, such an element needs no adjoint and no tape: the reverse sweep reads it
//! again from the matrix.
//!
//! ```text
//! // Input (wrt(w), x: &[Vec<f64>]):   // Output (ir), flat:            // in place:
//! x[i][j] * w[j]                       s = x_rows[i]; k = s + j         a = x[i][j] (row i, column j)
//!                                      a = x[k] (row i, column j)
//!                                      // code: let x = flatten(&__matrix_x); .. x[k]    __matrix_x[i][j]
//! ```

use crate::emit::Emitter;
use crate::ir::{Array, Block, Function, Operand, Stmt, Value, Var};
use std::collections::{BTreeMap, BTreeSet};

/// The copy of `e`'s function that a sweep reads its inactive matrices in place on, with those matrices
/// (by flat array); `None` where no element load changes (no matrix read in place is read by element).
pub(crate) fn read_in_place(e: &Emitter) -> Option<(Function, BTreeSet<Array>)> {
    let activity = e.activity;
    let in_place = crate::views::in_place_matrices(e.f, &|a| !activity.is_active_array(a));
    rewritten(e.f, &in_place).map(|f| (f, in_place))
}

/// `f` with the element loads of the matrices `in_place` reading their row and column (`ir::At`), and the
/// flat indexes only those loads read (and what only those indexes read) dropped; `None` where no load
/// changes.
pub(crate) fn rewritten(f: &Function, in_place: &BTreeSet<Array>) -> Option<Function> {
    // Nothing to read in place (most functions): no copy to make.
    if in_place.is_empty() {
        return None;
    }
    let mut g = f.clone();
    let mut dropped = BTreeSet::new();
    let marked = mark(&mut g.body, in_place, &mut dropped);
    // A row's length, `end - start` of its offsets: `m[i].len()`.
    let offsets = crate::views::row_offsets_of(f, in_place);
    let defs: BTreeMap<Var, Value> = (f.all_stmts().into_iter())
        .filter_map(|s| match s {
            Stmt::Let { var, value } => Some((*var, value.clone())),
            _ => None,
        })
        .collect();
    let measured = lengths(&mut g.body, &offsets, &defs, &mut dropped);
    if !marked && !measured {
        return None;
    }
    // The index arithmetic the loads no longer read, and what it alone read, from the uses inward.
    loop {
        let mut used = BTreeSet::new();
        uses(&g.body, &mut used);
        if !prune(&mut g.body, &used, &mut dropped) {
            break;
        }
    }
    Some(g)
}

/// Marks the element loads of the matrices `in_place` as read in place, collecting their flat indexes;
/// whether it marked any.
fn mark(block: &mut Block, in_place: &BTreeSet<Array>, dropped: &mut BTreeSet<Var>) -> bool {
    let mut marked = false;
    for stmt in &mut block.stmts {
        if let Stmt::Let {
            value:
                Value::Load {
                    array,
                    index,
                    at: Some(at),
                },
            ..
        } = stmt
        {
            if in_place.contains(array) {
                at.in_place = true;
                dropped.extend(index.var());
                marked = true;
            }
        }
        for inner in stmt.blocks_mut() {
            marked |= mark(inner, in_place, dropped);
        }
    }
    marked
}

// Input (ir):  s = m_rows[i]; k = i + 1; e = m_rows[k]; n = e - s
// Output:      n = m[i].len()   (s, k, e dropped where nothing else reads them)
/// Rewrites the lengths of rows of the matrices whose row offsets are `offsets` (`m[i].len()`, lowered as
/// the difference of the offsets, `lower/matrices.rs`) to read the row, collecting the offsets read;
/// whether it rewrote any.
fn lengths(
    block: &mut Block,
    offsets: &BTreeMap<Array, Array>,
    defs: &BTreeMap<Var, Value>,
    dropped: &mut BTreeSet<Var>,
) -> bool {
    let mut measured = false;
    // The matrix and row of `offsets[row]`.
    let bound = |o: &Operand| match defs.get(&o.var()?)? {
        Value::Load {
            array,
            index,
            at: None,
        } => Some((*offsets.get(array)?, index.clone())),
        _ => None,
    };
    for stmt in &mut block.stmts {
        if let Stmt::Let { value, .. } = stmt {
            let row_len = match &*value {
                Value::Binary(syn::BinOp::Sub(_), end, start) => (|| {
                    let (matrix, row) = bound(start)?;
                    let (other, next) = bound(end)?;
                    // `next` is `row + 1`.
                    let Some(Value::Binary(syn::BinOp::Add(_), a, one)) = defs.get(&next.var()?)
                    else {
                        return None;
                    };
                    let one =
                        matches!(one, Operand::Const { tokens, .. } if tokens.to_string() == "1");
                    let read = end.var().into_iter().chain(start.var());
                    (other == matrix && one && a.same_as(&row)).then_some((matrix, row, read))
                })(),
                _ => None,
            };
            if let Some((matrix, row, read)) = row_len {
                dropped.extend(read.collect::<Vec<_>>());
                *value = Value::RowLen { matrix, row };
                measured = true;
            }
        }
        for inner in stmt.blocks_mut() {
            measured |= lengths(inner, offsets, defs, dropped);
        }
    }
    measured
}

/// The values `block` reads (nested blocks too).
fn uses(block: &Block, used: &mut BTreeSet<Var>) {
    used.extend(block.yields.iter().filter_map(Operand::var));
    for stmt in &block.stmts {
        used.extend(stmt.operands().into_iter().filter_map(Operand::var));
        for inner in stmt.blocks() {
            uses(inner, used);
        }
    }
}

/// Removes the pure `let`s of `candidates` that nothing reads (`used`), adding what they read to the
/// candidates; whether any was removed.
fn prune(block: &mut Block, used: &BTreeSet<Var>, candidates: &mut BTreeSet<Var>) -> bool {
    let mut removed = false;
    let mut read = Vec::new();
    block.stmts.retain(|stmt| match stmt {
        Stmt::Let { var, value } if candidates.contains(var) && !used.contains(var) => {
            let pure = matches!(
                value,
                Value::Binary(..) | Value::Load { .. } | Value::Len(_) | Value::Cast(..)
            );
            if pure {
                read.extend(value.operands().into_iter().filter_map(Operand::var));
                removed = true;
            }
            !pure
        }
        _ => true,
    });
    candidates.extend(read);
    for stmt in &mut block.stmts {
        for inner in stmt.blocks_mut() {
            removed |= prune(inner, used, candidates);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::in_place_matrices;

    /// `src` in the intermediate form.
    fn lowered(src: &str) -> Function {
        let item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let mut errors = crate::errors::Errors::default();
        let sig = crate::signature::analyze(&item, &crate::args::Args::default(), &mut errors)
            .expect("supported signature");
        let float_params = crate::signature::float_type_params(&item.sig.generics);
        let f = crate::lower::lower(&item, &sig, float_params, &mut errors);
        assert!(errors.finish().is_ok(), "test source is supported");
        f
    }

    /// The matrices of `src` read in place (every array inactive but `w`), and the loads of the copy that
    /// read them by element, as `array[row][column]` by value numbers.
    fn in_place_of(src: &str) -> (Vec<String>, usize, Function) {
        let f = lowered(src);
        let name = |a: Array| f.arrays[a.0 as usize].name.clone();
        let in_place = in_place_matrices(&f, &|a| name(a) != "w");
        let names = in_place.iter().map(|a| name(*a)).collect();
        let g = rewritten(&f, &in_place).unwrap_or_else(|| f.clone());
        let count = g
            .all_stmts()
            .into_iter()
            .filter(|s| {
                matches!(s, Stmt::Let { value: Value::Load { at, .. }, .. }
                    if crate::ir::At::is_in_place(at))
            })
            .count();
        (names, count, g)
    }

    #[test]
    fn inactive_matrices_read_by_element_are_read_in_place() {
        for (src, loads) in [
            (
                "fn f(w: &[f64], x: &[Vec<f64>], y: &[f64]) -> f64 {
                    let mut s = 0.0;
                    for i in 0..x.len() {
                        let mut p = 0.0;
                        for j in 0..w.len() { p += x[i][j] * w[j]; }
                        s += (p - y[i]) * (p - y[i]);
                    }
                    s
                }",
                1,
            ),
            // The rows' own lengths.
            (
                "fn f(w: &[f64], x: &[Vec<f64>]) -> f64 {
                    let mut s = 0.0;
                    for i in 0..x.len() {
                        for j in 0..x[i].len() { s += x[i][j] * w[j]; }
                    }
                    s
                }",
                1,
            ),
            // Elements and rows together, at constant indexes; a fixed-size matrix.
            (
                "fn f(w: &[f64], x: [[f64; 3]; 3]) -> f64 { g(w, &x[1]) * x[0][2] + x[2][0] * w[0] }",
                2,
            ),
        ] {
            let (names, count, g) = in_place_of(src);
            assert_eq!(names, vec!["x".to_string()], "{src}");
            assert_eq!(count, loads, "{src}");
            // No load of the row offsets is left but the dead bounds of rows that lowering always makes.
            let offsets = (0..g.arrays.len() as u32)
                .map(Array)
                .find(|a| g.arrays[a.0 as usize].name == "x_rows")
                .expect("offsets");
            let in_place = in_place_matrices(&g, &|a| g.arrays[a.0 as usize].name != "w");
            let unread = crate::views::unread_offsets(&g, &in_place);
            assert!(unread.contains_key(&offsets), "{src}");
        }
    }

    #[test]
    fn matrices_read_otherwise_or_active_keep_their_flat_loads() {
        for (src, active) in [
            // Passed whole besides its elements.
            (
                "fn f(w: &[f64], x: &[Vec<f64>]) -> f64 { h(w, &x) * x[0][1] }",
                &["w"][..],
            ),
            // Active.
            (
                "fn f(w: &[f64], x: &[Vec<f64>]) -> f64 { x[0][1] * w[0] }",
                &["w", "x"],
            ),
            // Written.
            (
                "fn f(w: &[f64], mut x: Vec<Vec<f64>>) -> f64 { x[0][1] = w[0]; x[0][1] * x[1][0] }",
                &["w"],
            ),
        ] {
            let f = lowered(src);
            let name = |a: Array| f.arrays[a.0 as usize].name.clone();
            let in_place = in_place_matrices(&f, &|a| !active.contains(&name(a).as_str()));
            assert!(in_place.is_empty(), "{src}");
            assert!(rewritten(&f, &in_place).is_none(), "{src}");
        }
    }
}
