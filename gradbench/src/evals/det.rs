//! `det`: the determinant by expansion by minors, and its gradient with respect to the matrix.
//!
//! cmpad's `det_by_minor` recurses over minors, keeping the rows and columns left as linked lists in
//! integer arrays that it mutates and restores. `#[differentiable]` supports neither recursion nor
//! writes to a `&mut [usize]` parameter today, so this is the same expansion written as a loop: the
//! determinant of each minor made of the last rows is computed once, from the minors one row smaller
//! (Laplace expansion along the minor's first row, memoised over the subsets of columns). It gives
//! the same value; it costs `2^ell ell` operations instead of the recursion's `e ell!`, so its timings
//! are not comparable with tools that recurse.

use crate::{input, job, Job};
use autodiff::differentiable;
use serde_json::{json, Value};

/// The determinant of the `ell x ell` row-major matrix `a`.
// det_grad_into(a: &[f64], ell: usize, grad: &mut [f64]) -> f64
#[differentiable(wrt(a))]
pub fn det(a: &[f64], ell: usize) -> f64 {
    // minors[s]: the determinant of the rows ell - |s| .. ell and the columns in the bit set s.
    let subsets = 1usize << ell;
    let mut minors = vec![0.0; subsets];
    minors[0] = 1.0;
    for s in 1..subsets {
        let row = ell - s.count_ones() as usize;
        let mut sum = 0.0;
        // Columns of s in increasing order; the sign alternates along them.
        let mut positive = true;
        for j in 0..ell {
            if (s >> j) & 1 == 1 {
                let term = a[row * ell + j] * minors[s ^ (1 << j)];
                if positive {
                    sum += term;
                } else {
                    sum -= term;
                }
                positive = !positive;
            }
        }
        minors[s] = sum;
    }
    minors[subsets - 1]
}

pub(crate) fn prepare(function: &str, input: &Value) -> Result<Box<dyn Job>, String> {
    let a = input::floats(input, "A")?;
    let ell = input::usize(input, "ell")?;
    if a.len() != ell * ell || ell == 0 || ell > 24 {
        return Err(format!(
            "det: `A` has {} elements for ell = {ell} (1 <= ell <= 24)",
            a.len()
        ));
    }
    match function {
        "primal" => Ok(job(
            (a, 0.0),
            move |(a, value)| *value = det(a, ell),
            |(_, value)| json!(value),
        )),
        "gradient" => {
            let grad = vec![0.0; a.len()];
            Ok(job(
                (a, grad),
                move |(a, grad)| {
                    det_grad_into(a, ell, grad);
                },
                |(_, grad)| json!(grad),
            ))
        }
        _ => Err(super::unknown("det", function)),
    }
}
