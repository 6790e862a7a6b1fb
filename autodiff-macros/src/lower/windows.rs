//! Sub-slices: `&x[a..b]`, `&x[a..]`, `&x[..b]` (and `x[a..b].iter()`) read, iterated or passed to a call.
//! A sub-slice is a new local array, a copy of the window of its source; its adjoint flows back into the same
//! window of the source's adjoint (`ArrayInit::Window`). Rust's borrow rules keep the source unchanged while
//! the sub-slice lives, so the copy reads what the view would.
//!
//! ```text
//! // Input:                          // Output (ir):
//! dot(&w[k..k + n], x)               s = k + n
//!                                    new __window = w[k..s].to_vec()
//!                                    v = dot(__window, x)
//! ```

use super::{strip_parens, Lowering};
use crate::ir::{Array, ArrayInit, Operand, Stmt, Window};
use syn::Expr;

/// `x[a..b]` or `&x[a..b]`: the indexed expression and the range.
fn range_index(expr: &Expr) -> Option<(&Expr, &syn::ExprRange)> {
    match strip_parens(expr) {
        Expr::Reference(r) if r.mutability.is_none() => range_index(&r.expr),
        Expr::Index(i) => match strip_parens(&i.index) {
            Expr::Range(range) => Some((&i.expr, range)),
            _ => None,
        },
        _ => None,
    }
}

impl Lowering<'_> {
    /// Is `array` a sub-slice (or a matrix's row), which the user's code holds as a reference?
    pub(super) fn is_window(&self, array: Array) -> bool {
        self.windows.contains(&array)
    }

    /// The array `expr` denotes: a named one (`x`, `&x`), or a new sub-slice of one (`&x[a..]`).
    pub(super) fn array_operand(&mut self, expr: &Expr) -> Option<Array> {
        if let Some(array) = self.array_named(expr) {
            return Some(array);
        }
        match self.lower_window(expr, None)? {
            Operand::Array(array) => Some(array),
            _ => None,
        }
    }

    /// `field_window::<S, KEY>(&values[a..b])`: the window of a values view that holds an array field
    /// (`struct_whole.rs`), a sub-slice named `name` that calls take in the field's shape
    /// (`Emitter::call_arg`); `None` for any other expression.
    pub(super) fn lower_field_window(&mut self, expr: &Expr, name: &str) -> Option<Operand> {
        let Expr::Call(c) = strip_parens(expr) else {
            return None;
        };
        let args: Vec<&Expr> = c.args.iter().collect();
        let (Expr::Path(path), [arg]) = (strip_parens(&c.func), args.as_slice()) else {
            return None;
        };
        if !super::calls::is_private_field_window(path) {
            return None;
        }
        let window = self.lower_window(arg, Some(name.to_string()))?;
        if let Operand::Array(array) = window {
            self.arrays[array.0 as usize].held_as = Some(crate::ir::HeldAs::Field(path.clone()));
        }
        Some(window)
    }

    // Input:  let __pair_matrix_0 = ::autodiff::__private::matrix_window(__pair_unit_0, &__pair_value_0[..]);
    // Output: new __pair_matrix_0 = __pair_value_0[..].to_vec(); new __pair_matrix_0_rows = row_offsets(..)
    /// `matrix_window(shape, &values[..])` in a `__g_pairs` (`struct_whole::pairs`): a matrix held flat,
    /// the window `values`, whose shape is the constant `shape` (a parameter), so that a call taking it
    /// whole gets it in that shape again (`MatrixShape::shaped_by`) and its cotangent and tangent are the
    /// window's; `None` for any other expression.
    pub(super) fn lower_matrix_window(&mut self, expr: &Expr, name: &str) -> Option<Operand> {
        let Expr::Call(c) = strip_parens(expr) else {
            return None;
        };
        let args: Vec<&Expr> = c.args.iter().collect();
        let (Expr::Path(path), [shape, values]) = (strip_parens(&c.func), args.as_slice()) else {
            return None;
        };
        if !super::calls::is_private_matrix_window(path) {
            return None;
        }
        let Expr::Path(shape) = strip_parens(shape) else {
            return None;
        };
        let shape = shape.path.get_ident()?.clone();
        let window = self.lower_window(values, Some(name.to_string()))?;
        let Operand::Array(flat) = window else {
            return Some(window);
        };
        let offsets = self.new_array(&format!("{name}_rows"), None, false);
        self.stmts.push(Stmt::NewArray {
            array: offsets,
            init: ArrayInit::Call {
                callee: syn::parse_quote!(::autodiff::__private::row_offsets),
                args: vec![Operand::Const {
                    tokens: quote::quote!(#shape),
                    kind: crate::ir::Kind::Unknown,
                }],
                by_ref: vec![false],
            },
        });
        self.matrices.insert(flat, offsets);
        self.arrays[flat.0 as usize].matrix = Some(crate::ir::MatrixShape {
            original: None,
            offsets: Some(quote::quote!(::autodiff::__private::row_offsets(#shape))),
            like: None,
            copied_by_let: false,
            fixed: None,
            shaped_by: Some(shape),
            rows: None,
        });
        Some(window)
    }

    /// `&x[a..b]` as a new local array, or `None` if `expr` is no sub-slice.
    pub(super) fn lower_window(&mut self, expr: &Expr, hint: Option<String>) -> Option<Operand> {
        // `&m[i]` of a matrix: its row.
        if let Some((flat, offsets, row)) = self.matrix_row(expr) {
            let row = self.lower_row(flat, &row);
            return Some(Operand::Array(self.row_array(flat, offsets, row)));
        }
        // `x[i]` of a nested array deeper than a matrix: a matrix of its own, not held as one (an error
        // once, at `x[i]`, not again at `&x[i]`).
        if let Some((flat, indexes)) = self.nested_prefix(expr) {
            let reference = matches!(super::strip_parens(expr), Expr::Reference(_));
            if !reference
                && !indexes.is_empty()
                && indexes.len() <= self.levels_above_rows(flat).len()
            {
                // A matrix of any shape, so that its uses (its rows iterated) are no further errors.
                self.errors.spanned(expr, super::matrices::DEEPER_BY_INDEX);
                return Some(self.poisoned_matrix("__matrix".to_string()));
            }
        }
        let (base, range) = range_index(expr)?;
        let source = self.array_operand(base);
        if source.is_some_and(|s| self.rows_of(s).is_some()) {
            self.errors.spanned(
                expr,
                "a sub-slice of a matrix's rows is not supported: iterate over the row indexes (`for i in a..b`) \
                 and read `m[i]`",
            );
        }
        let start = range.start.as_ref().map(|e| self.lower_expr(e, None));
        let end = range.end.as_ref().map(|e| self.lower_expr(e, None));
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        let init = match source {
            Some(source) => ArrayInit::Window {
                source,
                range: Window {
                    start,
                    end,
                    inclusive,
                },
                row: None,
            },
            None => {
                self.errors.spanned(
                    base,
                    "only slices, `Vec`s and arrays of floats named by a variable can be sliced: bind the value \
                     to a name first",
                );
                // An array all the same, so that its uses are no further errors.
                ArrayInit::Empty { capacity: None }
            }
        };
        let name = hint.unwrap_or_else(|| "__window".to_string());
        let array = self.new_array(&name, None, false);
        self.windows.insert(array);
        self.stmts.push(Stmt::NewArray { array, init });
        // Its length, for the adjoint buffer of a window made inside a branch or loop body, whose source may
        // be out of scope in the reverse sweep (read there only if needed).
        let length = self.emit(
            crate::ir::Value::Len(array),
            Some(format!("{name}_len")),
            proc_macro2::Span::call_site(),
        );
        self.arrays[array.0 as usize].length = length.var();
        Some(Operand::Array(array))
    }
}
