//! The lengths of the `Vec`s that a branch or loop body makes empty and pushes to (or pops from) there.
//!
//! The reverse of such a region (`reverse/region.rs`) declares the array's adjoint buffer, and the counter
//! of the pushes it has still to undo, with the region's own buffers: each iteration's (or branch's)
//! reverse sees that iteration's pushes. Both start at the array's length when the region ends, which this
//! pass reads there, as the last statement of the region's block (a loop body has no early exit: a
//! `break` sets a flag), and records as the array's `length`:
//!
//! ```text
//! // Input:                               // IR after this pass:
//! for i in 0..n {                         loop body {
//!     let mut r = Vec::new();                 NewArray r (Empty)
//!     for &v in x { r.push(v); }              loop { Push r v }
//!     s += r[0];                              ..
//! }                                           let __len = r.len();   // r.length = __len
//!                                         }
//! ```
//!
//! The reverse of the region sizes `r`'s buffer by `__len` (its plan tapes the value, as any read of an
//! array made in a region) and starts the push counter there.

use crate::ir::{Array, ArrayInit, Block, Function, Stmt, Value, Var, VarInfo};

/// Appends the length reads of the `Vec`s made empty in a region and resized anywhere.
pub(crate) fn record(f: &mut Function) {
    let resized: Vec<Array> = f
        .all_stmts()
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Push { array, .. } | Stmt::Truncate { array, .. } => Some(*array),
            _ => None,
        })
        .collect();
    let mut lengths = Vec::new();
    let mut body = std::mem::take(&mut f.body);
    for stmt in &mut body.stmts {
        regions(stmt, &resized, f, &mut lengths);
    }
    f.body = body;
    for (array, var) in lengths {
        f.arrays[array.0 as usize].length = Some(var);
    }
}

/// Walks the regions of `stmt` (its branches' and loop body's blocks, nested ones too).
fn regions(stmt: &mut Stmt, resized: &[Array], f: &mut Function, lengths: &mut Vec<(Array, Var)>) {
    let blocks: Vec<&mut Block> = match stmt {
        Stmt::If {
            then_block,
            else_block,
            ..
        } => vec![then_block, else_block],
        Stmt::Match { arms, .. } => arms.iter_mut().map(|arm| &mut arm.block).collect(),
        Stmt::Loop(l) => vec![&mut l.body],
        _ => Vec::new(),
    };
    for block in blocks {
        for inner in &mut block.stmts {
            regions(inner, resized, f, lengths);
        }
        let made: Vec<Array> = block
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::NewArray {
                    array,
                    init: ArrayInit::Empty { .. },
                } if resized.contains(array) => Some(*array),
                _ => None,
            })
            .collect();
        for array in made {
            let info = &f.arrays[array.0 as usize];
            let (hint, span) = (format!("{}_len", info.name), info.made_at);
            f.vars.push(VarInfo {
                hint: Some(hint),
                tuple_arity: None,
                span,
                declared: None,
                called_variable: None,
                received: false,
            });
            let var = Var(f.vars.len() as u32 - 1);
            block.stmts.push(Stmt::Let {
                var,
                value: Value::Len(array),
            });
            lengths.push((array, var));
        }
    }
}

/// Is `array` made empty inside a region and resized, so that [`record`] gave it a length?
pub(crate) fn recorded(f: &Function, array: Array, init: &ArrayInit) -> bool {
    matches!(init, ArrayInit::Empty { .. }) && f.arrays[array.0 as usize].length.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Args;
    use crate::errors::Errors;

    /// `src` desugared and in the intermediate form (this pass runs at the end of the lowering).
    fn lowered(src: &str) -> Function {
        let item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let mut errors = Errors::default();
        let item = crate::chains::desugar(&item, &mut errors);
        let sig = crate::signature::analyze(&item, &Args::default(), &mut errors)
            .expect("supported signature");
        let float_params = crate::signature::float_type_params(&item.sig.generics);
        let f = crate::lower::lower(&item, &sig, float_params, &mut errors);
        if let Err(e) = errors.finish() {
            panic!("test source is not supported: {e}");
        }
        f
    }

    /// The names of the arrays with a recorded length, and whether that length is read by the last
    /// statement of the block that makes the array.
    fn recorded_at_end(f: &Function) -> Vec<(String, bool)> {
        fn walk(block: &Block, f: &Function, out: &mut Vec<(String, bool)>) {
            for stmt in &block.stmts {
                if let Stmt::NewArray { array, init } = stmt {
                    if recorded(f, *array, init) {
                        let length = f.arrays[array.0 as usize].length;
                        let last = matches!(block.stmts.last(),
                            Some(Stmt::Let { var, value: Value::Len(a) })
                                if Some(*var) == length && a == array);
                        out.push((f.arrays[array.0 as usize].name.clone(), last));
                    }
                }
                for inner in stmt.blocks() {
                    walk(inner, f, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&f.body, f, &mut out);
        out
    }

    #[test]
    fn empty_vecs_resized_in_a_region_get_their_length_at_its_end() {
        let f = lowered(
            "fn f(x: &[f64], n: usize) -> f64 {
                let mut top = Vec::new();
                let mut s = 0.0;
                for i in 0..n {
                    let mut r = Vec::new();
                    let mut unused: Vec<f64> = Vec::new();
                    for &v in x { r.push(v * 2.0); }
                    if s > 1.0 {
                        let mut q = Vec::with_capacity(2);
                        q.push(s);
                        q.pop();
                        s += q.len() as f64;
                    }
                    s += r[i % 2] + unused.len() as f64;
                    top.push(s);
                }
                s + top[0]
            }",
        );
        let mut got = recorded_at_end(&f);
        got.sort();
        // `top` is made at the top level (its buffer and counter are the function's), `unused` is never
        // resized.
        assert_eq!(got, vec![("q".to_string(), true), ("r".to_string(), true)]);
    }
}
