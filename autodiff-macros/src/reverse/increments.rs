//! Increments of an array element, `a[k] += w`: their adjoint leaves the element's adjoint as it is.

use super::region::writes_array;
use crate::ir::{Block, Function, Operand, Stmt, Value, Var};
use std::collections::BTreeMap;

/// The increments of `f`, by the value stored: `v` of `x = a[k]; .. v = x + w; .. a[k] = v` in one block,
/// where `x` and `v` have no other use and nothing in between writes `a`. Maps `v` to `w`.
///
/// Taken one statement at a time, the reverse of the store reads the element's adjoint and clears it,
/// and the reverse of the load adds the same number back: two writes of the element per iteration, the
/// second read after the first, which the compiler cannot remove when other adjoint buffers are written
/// in between (they might alias). The reverse of an increment reads the element's adjoint and gives it
/// to `w`:
///
/// ```text
/// // Input:                        // Output (reverse sweep):
/// q[j] += l[m] * c[i];             let __d_v = __d_q[j];         // was: .. __d_q[j] = 0.0; ..
///                                  // .. __d_v to l[m] and c[i]  //      add_to(&mut __d_q[j], __d_v);
/// ```
pub(super) fn increments(f: &Function) -> BTreeMap<Var, Operand> {
    let mut uses: BTreeMap<Var, usize> = BTreeMap::new();
    count_uses(&f.body, &mut uses);
    let once = |v: &Var| uses.get(v) == Some(&1);
    let mut found = BTreeMap::new();
    let mut blocks = vec![&f.body];
    while let Some(block) = blocks.pop() {
        for (at, stmt) in block.stmts.iter().enumerate() {
            blocks.extend(stmt.blocks());
            let Stmt::Store {
                array,
                index,
                value: Operand::Var(v),
            } = stmt
            else {
                continue;
            };
            let before = &block.stmts[..at];
            let Some(Stmt::Let {
                value: Value::Binary(syn::BinOp::Add(_), left, right),
                ..
            }) = before.iter().find(|s| s.defs() == [*v])
            else {
                continue;
            };
            // The operand that is the element's old value, and the other one.
            let is_element = |o: &Operand| {
                let x = o.var().filter(once)?;
                before.iter().position(|s| {
                    matches!(s, Stmt::Let { var, value: Value::Load { array: a, index: i, .. } }
                        if *var == x && a == array && i.same_as(index))
                })
            };
            let (load_at, w) = match (is_element(left), is_element(right)) {
                (Some(load_at), _) if !left.same_as(right) => (load_at, right),
                (None, Some(load_at)) => (load_at, left),
                _ => continue,
            };
            if once(v) && !writes_array(&before[load_at + 1..], *array) {
                found.insert(*v, w.clone());
            }
        }
    }
    found
}

/// How many times each value is read: by statements, by the blocks' yields (the function's result too).
fn count_uses(block: &Block, uses: &mut BTreeMap<Var, usize>) {
    let operands = block.stmts.iter().flat_map(Stmt::operands);
    for v in operands.chain(&block.yields).filter_map(Operand::var) {
        *uses.entry(v).or_default() += 1;
    }
    for stmt in &block.stmts {
        for inner in stmt.blocks() {
            count_uses(inner, uses);
        }
    }
}
