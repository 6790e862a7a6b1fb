//! Matrices: a parameter `&[Vec<T>]`, `Vec<Vec<T>>` or `[[T; M]; N]` is read flattened. The generated code
//! rebinds `m` to its elements, row-major (`signature::deref_scalars`), so `m` is an array like a slice, and
//! the offsets of its rows are an integer array made first: `m[i][j]` is `m[offsets[i] + j]`, a row `&m[i]`
//! (passed to a call, iterated, `for row in m`) is a sub-slice `m[offsets[i]..offsets[i + 1]]`.
//!
//! ```text
//! // Input:                          // Output (ir):
//! m[i][j] * m.len() as f64           new rows = row_offsets(&matrix_m)     (first)
//!                                    s = rows[i]; k = s + j; a = m[k]
//!                                    n = len(rows) - 1; ..
//! ```

use super::{strip_parens, Lowering};
use crate::ir::{Array, ArrayInit, Kind, Operand, Stmt, Value};
use proc_macro2::Span;
use quote::{quote, ToTokens};
use syn::Expr;

impl Lowering<'_> {
    /// Binds the matrix parameter `ident` (parameter `index`): its flat array, and the array of its row
    /// offsets made first.
    pub(super) fn bind_matrix(&mut self, ident: &syn::Ident, index: usize) -> Operand {
        let flat = self.new_array(&ident.to_string(), Some(index), false);
        let offsets = self.new_array(&format!("{ident}_rows"), None, false);
        let matrix = crate::naming::matrix(ident);
        self.stmts.push(Stmt::NewArray {
            array: offsets,
            init: ArrayInit::Call {
                callee: syn::parse_quote!(::autodiff::__private::row_offsets),
                args: vec![Operand::Const {
                    tokens: matrix.to_token_stream(),
                    kind: Kind::Unknown,
                }],
                by_ref: vec![true],
            },
        });
        self.matrices.insert(flat, offsets);
        Operand::Array(flat)
    }

    /// A matrix made in the body (`vec![vec![0.0; n]; m]`, `[[a, b], [c, d]]`): an error, and a matrix all the
    /// same, so that its uses are no further errors.
    pub(super) fn local_matrix(&mut self, expr: impl ToTokens, hint: Option<String>) -> Operand {
        self.errors.spanned(
            expr,
            "a matrix made in a differentiable body is not supported yet: make one flat `vec![0.0; rows * cols]` \
             and index it `a[i * cols + j]` (matrix parameters are supported)",
        );
        let name = hint.unwrap_or_else(|| "__matrix".to_string());
        let flat = self.new_array(&name, None, false);
        let offsets = self.new_array(&format!("{name}_rows"), None, false);
        self.matrices.insert(flat, offsets);
        Operand::Array(flat)
    }

    /// The offsets of the rows of `array`, if it is a (flattened) matrix.
    pub(super) fn rows_of(&self, array: Array) -> Option<Array> {
        self.matrices.get(&array).copied()
    }

    /// `m[i]` (or `&m[i]`) of a matrix `m`: the flat array, its offsets, and the row index.
    pub(super) fn matrix_row<'e>(&self, expr: &'e Expr) -> Option<(Array, Array, &'e Expr)> {
        let expr = match strip_parens(expr) {
            Expr::Reference(r) if r.mutability.is_none() => strip_parens(&r.expr),
            other => other,
        };
        let Expr::Index(index) = expr else {
            return None;
        };
        if matches!(strip_parens(&index.index), Expr::Range(_)) {
            return None;
        }
        let flat = self.array_named(&index.expr)?;
        Some((flat, self.rows_of(flat)?, &index.index))
    }

    /// Where row `row` starts and ends in the flat array.
    pub(super) fn row_bounds(&mut self, offsets: Array, row: Operand) -> (Operand, Operand) {
        let span = Span::call_site();
        let start = self.emit(
            Value::Load {
                array: offsets,
                index: row.clone(),
            },
            None,
            span,
        );
        let next = self.emit(
            Value::Binary(syn::parse_quote!(+), row, int(quote!(1))),
            None,
            span,
        );
        let end = self.emit(
            Value::Load {
                array: offsets,
                index: next,
            },
            None,
            span,
        );
        (start, end)
    }

    /// The number of rows of a matrix.
    pub(super) fn row_count(&mut self, offsets: Array) -> Operand {
        let span = Span::call_site();
        let len = self.emit(Value::Len(offsets), None, span);
        self.emit(
            Value::Binary(syn::parse_quote!(-), len, int(quote!(1))),
            None,
            span,
        )
    }

    /// Row `row` of a matrix as an array: a sub-slice of the flat array.
    pub(super) fn row_array(&mut self, flat: Array, offsets: Array, row: Operand) -> Array {
        let (start, end) = self.row_bounds(offsets, row);
        let array = self.new_array(
            &format!("{}_row", self.arrays[flat.0 as usize].name),
            None,
            false,
        );
        self.windows.insert(array);
        self.stmts.push(Stmt::NewArray {
            array,
            init: ArrayInit::Window {
                source: flat,
                range: crate::ir::Window {
                    start: Some(start),
                    end: Some(end),
                    inclusive: false,
                },
            },
        });
        array
    }

    /// `m[i][j]` of a matrix, if `e` is one.
    pub(super) fn lower_matrix_element(
        &mut self,
        e: &syn::ExprIndex,
        hint: Option<String>,
    ) -> Option<Operand> {
        let (flat, offsets, row) = self.matrix_row(&e.expr)?;
        let row = self.lower_expr(row, None);
        let column = self.lower_expr(&e.index, None);
        let (start, _) = self.row_bounds(offsets, row);
        let index = self.emit(
            Value::Binary(syn::parse_quote!(+), start, column),
            None,
            Span::call_site(),
        );
        Some(self.emit(Value::Load { array: flat, index }, hint, Span::call_site()))
    }
}

fn int(tokens: proc_macro2::TokenStream) -> Operand {
    Operand::Const {
        tokens,
        kind: Kind::Int,
    }
}
