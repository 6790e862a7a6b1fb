//! Matrices: a parameter `&[Vec<T>]`, `Vec<Vec<T>>` or `[[T; M]; N]` is read flattened. The generated code
//! rebinds `m` to its elements, row-major (`signature::deref_scalars`), so `m` is an array like a slice, and
//! the offsets of its rows are an integer array made first: `m[i][j]` is `m[offsets[i] + j]`, a row `&m[i]`
//! (passed to a call, iterated, `for row in m`) is a sub-slice `m[offsets[i]..offsets[i + 1]]`.
//!
//! A nested array deeper than a matrix (`x: [[[T; K]; M]; N]`, `Vec<Vec<Vec<T>>>`) is read the same way,
//! its rows of floats (`x[i][j]`) numbered across the levels above them: each level above the rows has an
//! integer array of offsets too, and `x[i][j][k]` is `x[rows[level_0[i] + j] + k]`.
//!
//! ```text
//! // Input:                          // Output (ir):
//! m[i][j] * m.len() as f64           new rows = row_offsets(&matrix_m)     (first)
//!                                    s = rows[i]; k = s + j; a = m[k]
//!                                    n = len(rows) - 1; ..
//! x[i][j][k]                         new x_level0 = level_offsets(&matrix_x, 0); new rows = ..  (first)
//!                                    f = x_level0[i]; r = f + j; s = rows[r]; e = s + k; a = x[e]
//! ```

use super::{strip_parens, Lowering};
use crate::ir::{Array, ArrayInit, Kind, MatrixShape, Operand, Stmt, Value};
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
        // Deeper than a matrix: the offsets of each level above the rows, outermost first.
        let depth = self
            .param_types
            .get(index)
            .map_or(2, crate::signature::nesting_depth);
        let levels = (0..depth.saturating_sub(2))
            .map(|level| {
                let array = self.new_array(&format!("{ident}_level{level}"), None, false);
                self.stmts.push(Stmt::NewArray {
                    array,
                    init: ArrayInit::Call {
                        callee: syn::parse_quote!(::autodiff::__private::level_offsets),
                        args: vec![
                            Operand::Const {
                                tokens: matrix.to_token_stream(),
                                kind: Kind::Unknown,
                            },
                            int(quote!(#level)),
                        ],
                        by_ref: vec![true, false],
                    },
                });
                array
            })
            .collect::<Vec<_>>();
        if !levels.is_empty() {
            self.outer_levels.insert(flat, levels);
        }
        let by_ref = matches!(self.param_types.get(index), Some(syn::Type::Reference(_)));
        let copied_by_let = match self.param_types.get(index) {
            Some(syn::Type::Reference(r)) => matches!(&*r.elem, syn::Type::Array(_)),
            ty => matches!(ty, Some(syn::Type::Array(_))),
        };
        self.arrays[flat.0 as usize].matrix = Some(MatrixShape {
            original: Some((matrix.clone(), by_ref)),
            like: None,
            copied_by_let,
            offsets: Some(quote!(::autodiff::__private::row_offsets(&#matrix))),
            fixed: None,
            shaped_by: None,
            rows: None,
        });
        Operand::Array(flat)
    }

    /// A matrix made in the body (`vec![vec![0.0; n]; m]`, `[[a, b], [c, d]]`): an error, and a matrix all the
    /// same, so that its uses are no further errors.
    pub(super) fn local_matrix(&mut self, expr: impl ToTokens, hint: Option<String>) -> Operand {
        self.errors.spanned(
            expr,
            "this nested array is not supported in a differentiable body: make a matrix with its rows written \
             out (`[[a, b], [c, d]]`, `[[0.0; cols]; rows]`, `vec![vec![a, b], vec![c, d]]`, \
             `vec![vec![0.0; cols]; rows]`), or one flat `vec![0.0; rows * cols]` indexed `a[i * cols + j]`",
        );
        self.poisoned_matrix(hint.unwrap_or_else(|| "__matrix".to_string()))
    }

    /// A matrix that stands for a value already reported as an error: of any shape, so that its uses
    /// (`m[i][j]`, passing it to a call) are no further errors.
    pub(super) fn poisoned_matrix(&mut self, name: String) -> Operand {
        let flat = self.new_array(&name, None, false);
        let offsets = self.new_array(&format!("{name}_rows"), None, false);
        self.matrices.insert(flat, offsets);
        self.arrays[flat.0 as usize].matrix = Some(MatrixShape {
            original: None,
            like: None,
            copied_by_let: false,
            offsets: Some(quote!(::std::vec::Vec::new())),
            fixed: None,
            shaped_by: None,
            rows: None,
        });
        Operand::Array(flat)
    }

    // Input:  let mut m = vec![vec![v; c]; r];
    // Output: n = r * c; new m = vec![v; n]; new m_rows = uniform_row_offsets(r, c)
    // Input:  let m = vec![vec![a, b], vec![c]];
    // Output: new m = vec![a, b, c]; new m_rows = row_offsets_of_lengths(&[2usize, 1usize])
    /// A matrix made in the body: flat, row-major, with the array of its row offsets, as a matrix
    /// parameter is read.
    pub(super) fn new_local_matrix(&mut self, init: MatrixInit, hint: Option<String>) -> Operand {
        let span = Span::call_site();
        let name = hint.unwrap_or_else(|| "__matrix".to_string());
        let mut shape = None;
        let (flat_init, offsets_call, offsets_args) = match init {
            MatrixInit::Repeat { fill, cols, rows } => {
                if let (Some(r), Some(c)) = (self.static_int(&rows), self.static_int(&cols)) {
                    shape = Some(quote!(::autodiff::__private::uniform_row_offsets(#r, #c)));
                }
                let fill = self.lower_expr(&fill, None);
                let cols = self.lower_expr(&cols, None);
                let rows = self.lower_expr(&rows, None);
                let len = self.emit(
                    Value::Binary(syn::parse_quote!(*), rows.clone(), cols.clone()),
                    None,
                    span,
                );
                let flat = ArrayInit::Repeat {
                    value: fill,
                    len,
                    fixed: false,
                };
                (flat, quote!(uniform_row_offsets), vec![rows, cols])
            }
            MatrixInit::Rows(rows) => {
                let lengths = rows.iter().map(Vec::len);
                let lengths = quote!(&[#(#lengths),*]);
                shape = Some(quote!(::autodiff::__private::row_offsets_of_lengths(#lengths)));
                let lengths = int(lengths);
                let items = rows
                    .iter()
                    .flatten()
                    .map(|e| self.lower_expr(e, None))
                    .collect();
                let flat = ArrayInit::Elements {
                    items,
                    fixed: false,
                };
                (flat, quote!(row_offsets_of_lengths), vec![lengths])
            }
        };
        let flat = self.new_array(&name, None, false);
        self.stmts.push(Stmt::NewArray {
            array: flat,
            init: flat_init,
        });
        let offsets = self.new_array(&format!("{name}_rows"), None, false);
        let by_ref = vec![false; offsets_args.len()];
        self.stmts.push(Stmt::NewArray {
            array: offsets,
            init: ArrayInit::Call {
                callee: syn::parse_quote!(::autodiff::__private::#offsets_call),
                args: offsets_args,
                by_ref,
            },
        });
        self.matrices.insert(flat, offsets);
        // A shape computed in the body: the offsets array made here, in the function's own block (outside
        // any loop, branch or inner block, so that it stands wherever the matrix does in every sweep),
        // gives it back.
        let top_level = self.loop_depth == 0 && self.scopes.len() == 1;
        let rows = (shape.is_none() && top_level).then_some(offsets);
        self.arrays[flat.0 as usize].matrix = Some(MatrixShape {
            original: None,
            like: None,
            copied_by_let: false,
            offsets: shape,
            fixed: None,
            shaped_by: None,
            rows,
        });
        Operand::Array(flat)
    }

    /// An integer that the generated code may evaluate anywhere: a literal, a `const` item, or a parameter
    /// (not rebound in the body), as tokens.
    fn static_int(&self, expr: &Expr) -> Option<proc_macro2::TokenStream> {
        match strip_parens(expr) {
            Expr::Lit(lit) => Some(lit.to_token_stream()),
            Expr::Path(p) if p.qself.is_none() => {
                let ident = p.path.get_ident()?;
                match self.lookup(&ident.to_string()).map(|b| &b.value) {
                    Some(Some(Operand::Var(v))) if self.param_vars.contains(v) => {
                        Some(ident.to_token_stream())
                    }
                    // A `const` item.
                    None => Some(ident.to_token_stream()),
                    Some(_) => None,
                }
            }
            _ => None,
        }
    }

    /// The offsets of the rows of `array`, if it is a (flattened) matrix.
    pub(super) fn rows_of(&self, array: Array) -> Option<Array> {
        self.matrices.get(&array).copied()
    }

    /// The arrays of offsets of the levels of the nested array `flat` above its rows, outermost first
    /// (none for a matrix).
    pub(super) fn levels_above_rows(&self, flat: Array) -> Vec<Array> {
        self.outer_levels.get(&flat).cloned().unwrap_or_default()
    }

    /// `m[i]..[j]` (or `&m[i]..[j]`) of a matrix or nested array `m`: its flat array and the indexes, in
    /// order (none for `m` itself; a range ends it: `m[1..]` is no prefix).
    pub(super) fn nested_prefix<'e>(&self, expr: &'e Expr) -> Option<(Array, Vec<&'e Expr>)> {
        let mut expr = match strip_parens(expr) {
            Expr::Reference(r) if r.mutability.is_none() => strip_parens(&r.expr),
            other => other,
        };
        let mut indexes = Vec::new();
        while let Expr::Index(index) = expr {
            if matches!(strip_parens(&index.index), Expr::Range(_)) {
                return None;
            }
            indexes.push(&*index.index);
            expr = strip_parens(&index.expr);
        }
        let flat = self.array_named(expr)?;
        self.rows_of(flat)?;
        indexes.reverse();
        Some((flat, indexes))
    }

    /// `m[i]` (or `&m[i]`) of a matrix, `x[i][j]` of a nested array deeper (one index per level above its
    /// floats): a row of floats, as the flat array, its row offsets, and the indexes that pick the row
    /// (`lower_row` numbers it).
    pub(super) fn matrix_row<'e>(&self, expr: &'e Expr) -> Option<(Array, Array, Vec<&'e Expr>)> {
        let (flat, indexes) = self.nested_prefix(expr)?;
        let rows = self.rows_of(flat)?;
        (indexes.len() == self.levels_above_rows(flat).len() + 1).then_some((flat, rows, indexes))
    }

    // Input:  x[i][j]          (`x: [[[T; K]; M]; N]`)
    // Output: f = x_level0[i]; r = f + j
    /// The number of the item that `indexes` pick among all items of their depth in the nested array
    /// `flat` (a row of floats for one index per level above the floats): the first index, then at each
    /// level where its items start among the next level's, plus the next index.
    pub(super) fn lower_row(&mut self, flat: Array, indexes: &[&Expr]) -> Operand {
        let Some((first, rest)) = indexes.split_first() else {
            return Self::poisoned();
        };
        let mut levels = self.levels_above_rows(flat);
        levels.extend(self.rows_of(flat));
        let mut item = self.lower_expr(first, None);
        for (level, index) in levels.into_iter().zip(rest) {
            let (start, _) = self.row_bounds(level, item);
            let index = self.lower_expr(index, None);
            item = self.emit(
                Value::Binary(syn::parse_quote!(+), start, index),
                None,
                Span::call_site(),
            );
        }
        item
    }

    /// `x.len()`, `x[i].len()`, .. of a matrix or a nested array (`indexes` those of the receiver), from
    /// the offsets of the level below, with no copy; `None` for a receiver that is no array of arrays
    /// or rows (an element).
    pub(super) fn nested_len(
        &mut self,
        flat: Array,
        indexes: &[&Expr],
        hint: Option<String>,
        span: Span,
    ) -> Option<Operand> {
        let mut levels = self.levels_above_rows(flat);
        levels.extend(self.rows_of(flat));
        // `x.len()` counts the items of the first level; `x[i].len()` those below item `i` of it, ...
        let level = *levels.get(indexes.len().saturating_sub(1))?;
        if indexes.is_empty() {
            return Some(self.row_count(level));
        }
        let item = self.lower_row(flat, indexes);
        let (start, end) = self.row_bounds(level, item);
        Some(self.emit(Value::Binary(syn::parse_quote!(-), end, start), hint, span))
    }

    // Input:  let m = [[a, b], [c, d]];
    // Output: new m = [a, b, c, d]; new m_rows = [0usize, 2usize, 4usize]
    // Input:  let m = [[v; C]; 3];
    // Output: new m = [v; (3) * (C)]; new m_rows = [0usize * (C), 1usize * (C), 2usize * (C), 3usize * (C)]
    /// A nested array made in the body (`[[a, b], [c, d]]`, `[[v; C]; R]`): a matrix as `vec![..]` makes
    /// one, flat and row-major, but a Rust array like the user's, and so are its row offsets where the
    /// number of rows is written out: no allocation where the primal has none. Passed whole to a call, it
    /// is a `[[T; C]; R]` again (`ir::MatrixShape::fixed`), the callee's nested array.
    pub(super) fn new_fixed_matrix(&mut self, init: MatrixInit, hint: Option<String>) -> Operand {
        let name = hint.unwrap_or_else(|| "__matrix".to_string());
        let (flat_init, offsets_init, dims) = match init {
            MatrixInit::Repeat { fill, cols, rows } => {
                let dims = (rows.to_token_stream(), cols.to_token_stream());
                let fill = self.lower_expr(&fill, None);
                let len = int(quote!((#rows) * (#cols)));
                let offsets = match strip_parens(&rows) {
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(n),
                        ..
                    }) => n.base10_parse::<usize>().ok().map(|n| ArrayInit::Elements {
                        items: (0..=n).map(|i| int(quote!(#i * (#cols)))).collect(),
                        fixed: true,
                    }),
                    _ => None,
                };
                let offsets = offsets.unwrap_or_else(|| ArrayInit::Call {
                    callee: syn::parse_quote!(::autodiff::__private::uniform_row_offsets),
                    args: vec![int(rows.to_token_stream()), int(cols.to_token_stream())],
                    by_ref: vec![false, false],
                });
                let flat = ArrayInit::Repeat {
                    value: fill,
                    len,
                    fixed: true,
                };
                (flat, offsets, Some(dims))
            }
            MatrixInit::Rows(rows) => {
                // Rows of one length, as a Rust array has (rustc reports any other).
                let cols = rows.first().map_or(0, Vec::len);
                let dims = rows
                    .iter()
                    .all(|row| row.len() == cols)
                    .then(|| (rows.len().to_token_stream(), cols.to_token_stream()));
                let mut start = 0usize;
                let mut offsets = vec![int(quote!(0usize))];
                for row in &rows {
                    start += row.len();
                    offsets.push(int(quote!(#start)));
                }
                let items = rows
                    .iter()
                    .flatten()
                    .map(|e| self.lower_expr(e, None))
                    .collect();
                let flat = ArrayInit::Elements { items, fixed: true };
                let offsets = ArrayInit::Elements {
                    items: offsets,
                    fixed: true,
                };
                (flat, offsets, dims)
            }
        };
        let Operand::Array(flat) = self.new_local_array(flat_init, true, Some(name.clone())) else {
            return Self::poisoned();
        };
        let Operand::Array(offsets) =
            self.new_local_array(offsets_init, true, Some(format!("{name}_rows")))
        else {
            return Self::poisoned();
        };
        self.matrices.insert(flat, offsets);
        self.arrays[flat.0 as usize].matrix = Some(MatrixShape {
            original: None,
            like: None,
            copied_by_let: false,
            offsets: None,
            fixed: dims,
            shaped_by: None,
            rows: None,
        });
        Operand::Array(flat)
    }

    /// Where row `row` starts and ends in the flat array.
    pub(super) fn row_bounds(&mut self, offsets: Array, row: Operand) -> (Operand, Operand) {
        let span = Span::call_site();
        let start = self.emit(
            Value::Load {
                array: offsets,
                index: row.clone(),
                at: None,
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
                at: None,
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
        let (start, end) = self.row_bounds(offsets, row.clone());
        let array = self.new_array(
            &format!("{}_row", self.arrays[flat.0 as usize].name),
            None,
            false,
        );
        self.windows.insert(array);
        // A matrix's row (not a row of floats of a deeper nested array, numbered across its levels): the
        // row index, for reading the matrix in place (`views::in_place_matrices`).
        let row = (self.levels_above_rows(flat).is_empty()).then(|| Box::new(row));
        self.stmts.push(Stmt::NewArray {
            array,
            init: ArrayInit::Window {
                source: flat,
                range: crate::ir::Window {
                    start: Some(start),
                    end: Some(end),
                    inclusive: false,
                },
                row,
            },
        });
        self.arrays[array.0 as usize].held_as =
            self.fixed_row_len(flat).map(crate::ir::HeldAs::Row);
        if self.arrays[flat.0 as usize].param.is_none() {
            // A matrix made in a branch or loop body may be out of scope in the reverse sweep, which sizes
            // the row's adjoint buffer by this length (read there only if needed), as for any sub-slice.
            let name = format!("{}_len", self.arrays[array.0 as usize].name);
            let length = self.emit(Value::Len(array), Some(name), Span::call_site());
            self.arrays[array.0 as usize].length = length.var();
        }
        array
    }

    /// The `N` of a matrix whose rows are arrays `[T; N]`: a parameter `&[[T; N]]`, `[[T; N]; R]`,
    /// `Vec<[T; N]>` (or a reference to one), or a nested array made in the body (`[[0.0; N]; R]`).
    fn fixed_row_len(&self, flat: Array) -> Option<proc_macro2::TokenStream> {
        if !self.levels_above_rows(flat).is_empty() {
            return None;
        }
        let info = &self.arrays[flat.0 as usize];
        if let Some((_, cols)) = info.matrix.as_ref().and_then(|m| m.fixed.as_ref()) {
            return Some(cols.clone());
        }
        if let Some(len) = self.array_rows.get(&flat) {
            return Some(len.clone());
        }
        let mut ty = self.param_types.get(info.param?)?;
        while let syn::Type::Reference(r) = ty {
            ty = &r.elem;
        }
        let row = match ty {
            syn::Type::Slice(s) => &*s.elem,
            syn::Type::Array(a) => &*a.elem,
            other => crate::signature::vec_element(other)?,
        };
        match row {
            syn::Type::Array(a) => Some(a.len.to_token_stream()),
            _ => None,
        }
    }

    /// `m[i][j]` of a matrix, if `e` is one.
    pub(super) fn lower_matrix_element(
        &mut self,
        e: &syn::ExprIndex,
        hint: Option<String>,
    ) -> Option<Operand> {
        let (flat, offsets, row) = self.matrix_row(&e.expr)?;
        let row = self.lower_row(flat, &row);
        let column = self.lower_expr(&e.index, None);
        let (start, _) = self.row_bounds(offsets, row.clone());
        let index = self.emit(
            Value::Binary(syn::parse_quote!(+), start, column.clone()),
            None,
            Span::call_site(),
        );
        // A matrix's element (not one of a nested array deeper, whose rows are numbered across its
        // levels): its row and column, by which a matrix read in place reads it (`matrix_reads.rs`).
        let at = (self.levels_above_rows(flat).is_empty()).then(|| {
            Box::new(crate::ir::At {
                row,
                column,
                in_place: false,
            })
        });
        let load = Value::Load {
            array: flat,
            index,
            at,
        };
        Some(self.emit(load, hint, Span::call_site()))
    }
}

/// The row type `Vec<T>` of a matrix declared `Vec<Vec<T>>`: the type of its flat elements.
pub(super) fn row_type(ty: &syn::Type) -> Option<syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last().filter(|s| s.ident == "Vec")?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(row) => Some(row.clone()),
        _ => None,
    }
    .filter(|row| matches!(row, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec")))
}

/// How a matrix made in the body starts.
#[allow(clippy::large_enum_variant)] // parsed once per matrix literal, as `VecArgs`
pub(super) enum MatrixInit {
    /// `vec![vec![fill; cols]; rows]` (or `vec![[fill; cols]; rows]`).
    Repeat { fill: Expr, cols: Expr, rows: Expr },
    /// `vec![vec![a, b], vec![c, d]]` (or `vec![[a, b], [c, d]]`): the elements of each row.
    Rows(Vec<Vec<Expr>>),
}

impl MatrixInit {
    /// The matrix that a nested array literal (`[[a, b], [c, d]]`, `[[v; C]; R]`) makes, if it makes one.
    pub(super) fn of_array(expr: &Expr) -> Option<MatrixInit> {
        use super::arrays::VecArgs;
        let args = match strip_parens(expr) {
            Expr::Repeat(r) => VecArgs::Repeat((*r.expr).clone(), (*r.len).clone()),
            Expr::Array(a) => VecArgs::Elements(a.elems.iter().cloned().collect()),
            _ => return None,
        };
        // Rows written `[..]` only (a `vec![..]` row would make the literal an array of `Vec`s), of elements
        // that are no arrays themselves (deeper nesting stays an error).
        let literal = |e: &Expr| matches!(strip_parens(e), Expr::Repeat(_) | Expr::Array(_));
        let flat_row = |row: &Expr| match strip_parens(row) {
            Expr::Repeat(r) => !literal(&r.expr),
            Expr::Array(a) => !a.elems.iter().any(literal),
            _ => false,
        };
        let matrix = match &args {
            VecArgs::Repeat(row, _) => flat_row(row),
            VecArgs::Elements(rows) => rows.iter().all(flat_row),
        };
        matrix.then(|| MatrixInit::of(&args)).flatten()
    }

    /// The matrix that the arguments of a `vec![..]` make, if they make one.
    pub(super) fn of(args: &super::arrays::VecArgs) -> Option<MatrixInit> {
        use super::arrays::VecArgs;
        match args {
            VecArgs::Repeat(row, rows) => {
                let (fill, cols) = match row_args(row)? {
                    VecArgs::Repeat(fill, cols) => (fill, cols),
                    VecArgs::Elements(_) => return None,
                };
                Some(MatrixInit::Repeat {
                    fill,
                    cols,
                    rows: rows.clone(),
                })
            }
            // `vec![a; 2]` among rows written out: its elements.
            VecArgs::Elements(items) if !items.is_empty() => items
                .iter()
                .map(|item| spelled_out(row_args(item)?))
                .collect::<Option<Vec<_>>>()
                .map(MatrixInit::Rows),
            VecArgs::Elements(_) => None,
        }
    }
}

// Input:  vec![[0.0; 3]; n]          vec![[a, b], [c, d]]          vec![vec![0.0; 3]; n]
// Output: Some(3)                    Some(2)                       None
/// The length of the rows of a `vec![..]` of rows written as arrays (`[..]`, a `Vec<[T; N]>`), where the
/// source shows one length for all of them.
pub(super) fn array_row_len(args: &super::arrays::VecArgs) -> Option<proc_macro2::TokenStream> {
    use super::arrays::VecArgs;
    let len = |row: &Expr| match strip_parens(row) {
        Expr::Repeat(r) => Some(r.len.to_token_stream()),
        Expr::Array(a) => {
            let n = a.elems.len();
            Some(quote!(#n))
        }
        _ => None,
    };
    match args {
        VecArgs::Repeat(row, _) => len(row),
        VecArgs::Elements(rows) => {
            let lens = rows.iter().map(len).collect::<Option<Vec<_>>>()?;
            let first = lens.first()?.to_string();
            lens.iter()
                .all(|l| l.to_string() == first)
                .then(|| lens[0].clone())
        }
    }
}

/// The elements of an array written out (`[a, b]`), or of one repeated a literal number of times
/// (`[a; 2]` is `[a, a]`).
fn spelled_out(args: super::arrays::VecArgs) -> Option<Vec<Expr>> {
    use super::arrays::VecArgs;
    match args {
        VecArgs::Elements(items) => Some(items),
        VecArgs::Repeat(item, len) => {
            let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) = strip_parens(&len)
            else {
                return None;
            };
            Some(vec![item; n.base10_parse::<usize>().ok()?])
        }
    }
}

/// The arguments of a row (or any level of a nested array) written `vec![..]`, `[..]` or `[..; n]`, if `row` is
/// one.
fn row_args(row: &Expr) -> Option<super::arrays::VecArgs> {
    use super::arrays::VecArgs;
    match strip_parens(row) {
        Expr::Repeat(r) => Some(VecArgs::Repeat((*r.expr).clone(), (*r.len).clone())),
        Expr::Array(a) => Some(VecArgs::Elements(a.elems.iter().cloned().collect())),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => super::arrays::parse_vec(m).ok(),
        _ => None,
    }
}

/// What a nested array deeper than a matrix supports, said where the body uses it otherwise.
pub(super) const DEEPER_BY_INDEX: &str =
    "a nested array deeper than a matrix is read by its elements (`x[i][j][k]`), its rows of floats \
     (`&x[i][j]`, passed to a call or iterated) and lengths (`x.len()`, `x[i].len()`): iterate over the \
     indexes (`for i in 0..x.len()`) and pass its rows, or the array whole to a call that takes it";

fn int(tokens: proc_macro2::TokenStream) -> Operand {
    Operand::Const {
        tokens,
        kind: Kind::Int,
    }
}

/// An array nested deeper than a matrix made in the body: every level repeated (`[[[v; K]; M]; N]`,
/// `vec![vec![vec![v; k]; m]; n]`) or written out (`[[[a, b], [c, d]], [[e, f], [g, h]]]`).
pub(super) enum DeepInit {
    /// The value and the lengths of the levels, outermost first.
    Repeat { fill: Expr, dims: Vec<Expr> },
    /// The floats in order, and for each level below the outermost the number of items of each of its
    /// arrays (the rows' lengths last).
    Written {
        leaves: Vec<Expr>,
        counts: Vec<Vec<usize>>,
    },
}

impl DeepInit {
    /// The nested array that `expr` (`[..]`, `[..; n]`, `vec![..]`) makes, if it nests three levels or more.
    pub(super) fn of(expr: &Expr) -> Option<DeepInit> {
        use super::arrays::VecArgs;
        let level = row_args;
        // Every level repeated.
        let mut dims = Vec::new();
        let mut fill = expr.clone();
        while let Some(VecArgs::Repeat(inner, len)) = level(&fill) {
            dims.push(len);
            fill = inner;
        }
        if level(&fill).is_none() && dims.len() >= 3 {
            return Some(DeepInit::Repeat { fill, dims });
        }
        // Written out (a repeat of a literal length among them spelled out).
        let items = |e: &Expr| spelled_out(level(e)?);
        let mut layer = items(expr)?;
        let mut counts = Vec::new();
        while layer.iter().all(|e| level(e).is_some()) && !layer.is_empty() {
            let below: Vec<Vec<Expr>> = layer.iter().map(items).collect::<Option<_>>()?;
            counts.push(below.iter().map(Vec::len).collect::<Vec<_>>());
            layer = below.into_iter().flatten().collect();
        }
        // Floats at one depth only, three levels or more.
        (counts.len() >= 2 && layer.iter().all(|e| level(e).is_none())).then_some(
            DeepInit::Written {
                leaves: layer,
                counts,
            },
        )
    }
}

impl Lowering<'_> {
    // Input:  let x = [[[v; 2]; 3]; 4];
    // Output: new x = [v; (4) * (3) * (2)]; new x_level0 = uniform_row_offsets(4, 3);
    //         new x_rows = uniform_row_offsets((4) * (3), 2)
    /// A nested array deeper than a matrix made in the body: flat, row-major, with the offsets of its
    /// rows and of each level above, as a parameter is read (`bind_matrix`). A Rust array where the outermost
    /// level is one (`fixed`). Not passed whole to a call (it has no shape, `ir::MatrixShape`).
    pub(super) fn new_deep_local(
        &mut self,
        init: DeepInit,
        fixed: bool,
        hint: Option<String>,
    ) -> Operand {
        let name = hint.unwrap_or_else(|| "__nested".to_string());
        // The flat values, and the initialisers of the offsets of each level, outermost first.
        let (flat, offsets) = match init {
            DeepInit::Repeat { fill, dims } => {
                let fill = self.lower_expr(&fill, None);
                let len = match fixed {
                    // A constant for a Rust array: the lengths as written, multiplied.
                    true => int(dims
                        .iter()
                        .map(|d| quote!((#d)))
                        .reduce(|a, b| quote!(#a * #b))
                        .unwrap_or_else(|| quote!(0))),
                    false => self.product(&dims),
                };
                let offsets: Vec<ArrayInit> = (1..dims.len())
                    .map(|level| ArrayInit::Call {
                        callee: syn::parse_quote!(::autodiff::__private::uniform_row_offsets),
                        args: vec![
                            self.product(&dims[..level]),
                            self.lower_expr(&dims[level], None),
                        ],
                        by_ref: vec![false, false],
                    })
                    .collect();
                let flat = ArrayInit::Repeat {
                    value: fill,
                    len,
                    fixed,
                };
                (flat, offsets)
            }
            DeepInit::Written { leaves, counts } => {
                let items = leaves.iter().map(|e| self.lower_expr(e, None)).collect();
                let offsets = counts
                    .iter()
                    .map(|lengths| ArrayInit::Call {
                        callee: syn::parse_quote!(::autodiff::__private::row_offsets_of_lengths),
                        args: vec![int(quote!(&[#(#lengths),*]))],
                        by_ref: vec![false],
                    })
                    .collect();
                (ArrayInit::Elements { items, fixed }, offsets)
            }
        };
        let Operand::Array(flat) = self.new_local_array(flat, fixed, Some(name.clone())) else {
            return Self::poisoned();
        };
        let mut levels: Vec<Array> = offsets
            .into_iter()
            .enumerate()
            .map(|(level, init)| {
                let array = self.new_array(&format!("{name}_level{level}"), None, false);
                self.stmts.push(Stmt::NewArray { array, init });
                array
            })
            .collect();
        let Some(rows) = levels.pop() else {
            return Self::poisoned();
        };
        self.matrices.insert(flat, rows);
        self.outer_levels.insert(flat, levels);
        self.arrays[flat.0 as usize].matrix = Some(MatrixShape {
            original: None,
            like: None,
            copied_by_let: false,
            offsets: None,
            fixed: None,
            shaped_by: None,
            rows: None,
        });
        Operand::Array(flat)
    }

    /// The product of the lengths `dims` (integers), lowered.
    fn product(&mut self, dims: &[Expr]) -> Operand {
        let mut product = int(quote!(1usize));
        for dim in dims {
            let dim = self.lower_expr(dim, None);
            product = self.emit(
                Value::Binary(syn::parse_quote!(*), product, dim),
                None,
                Span::call_site(),
            );
        }
        product
    }
}

#[cfg(test)]
mod tests {
    use super::array_row_len;
    use crate::lower::arrays::parse_vec;

    fn row_len(tokens: proc_macro2::TokenStream) -> Option<String> {
        let m: syn::ExprMacro = syn::parse2(tokens).expect("a vec! macro");
        array_row_len(&parse_vec(&m).expect("its arguments")).map(|t| t.to_string())
    }

    #[test]
    fn the_rows_of_a_vec_of_arrays_have_a_length() {
        assert_eq!(row_len(quote::quote!(vec![[0.0; 3]; n])), Some("3".into()));
        assert_eq!(
            row_len(quote::quote!(vec![[a, b], [c, d]])),
            Some("2usize".into())
        );
        assert_eq!(row_len(quote::quote!(vec![[a, b], [c]])), None);
        assert_eq!(row_len(quote::quote!(vec![vec![0.0; 3]; n])), None);
        assert_eq!(row_len(quote::quote!(vec![[0.0; K]; n])), Some("K".into()));
    }
}
