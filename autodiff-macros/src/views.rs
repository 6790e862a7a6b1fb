//! Views: the reads of a `for` loop at `base + i` (the loop's index plus a value the loop does not change)
//! go through a sub-slice taken once before the loop, so the compiler checks its bounds once instead of at
//! every read, and can then unroll and schedule the loop as it does a loop over slices.
//!
//! ```text
//! // Input (ir):                         // Output (forward sweep):
//! loop for i in 0..d                     let __w_view: &[_] = &w[(if 0 < d { (c * d) } else { 0 })..][..d];
//!     v0 = c * d                         for i in 0..d {
//!     v1 = v0 + i                            let __v0 = c * d;
//!     v2 = w[v1]                             let __v1 = __v0 + i;
//!     ..                                     let __v2 = __w_view[i];
//! ```
//!
//! Not through views: reads at a counter the loop increments (`l[k]; k += 1;`, GMM's packed triangle).
//! They could be (a view from where the counter starts, read at the iteration's number), but the loops
//! that read so are short (a row of a triangle), and a view per run of a short loop cost more than the
//! checks it saved: 3.36M -> 3.47M instructions for GMM's gradient at d = 2 (`cargo bench --bench counts`).
//!
//! A read qualifies when every iteration makes it (a statement of the loop's body itself, not of a branch
//! or an inner loop, in a `for` over a range without a step that never leaves early), and the loop does
//! not write the array: then the reads of all iterations together cover the whole view, so taking it fails
//! exactly where one of the reads would have, and the view is taken only when the loop runs (otherwise
//! an empty slice from the start of the array). Its length is the trip count, written as a cut the
//! compiler sees (`[..d]`), so that it drops the bounds checks of the reads `view[i]`. Measured on
//! the softmax cross-entropy of the speed benches: the primal's matrix product in this form runs 2.3 times
//! fewer instructions than with a bounds check at each read (`benches/README.md`).

use crate::emit::Tokens;
use crate::ir::{Array, ArrayInit, Block, Function, Loop, Operand, Stmt, Value, Var};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

/// The sub-slices (`&x[a..b]`, a matrix's row `&m[i]`) that the generated code borrows (`let r = &x[a..b];`)
/// instead of copying: those of an array that is in scope everywhere (a parameter, or made at the top
/// level of the body) and that nothing writes, where the sub-slice itself is only read (its elements, its
/// length) or lent to calls by reference. The reverse sweep then takes the same sub-slice again instead of
/// storing a copy of it at each call in a loop (`reverse/region.rs`): the source has not changed.
///
/// ```text
/// // Input:                                // Output (forward sweep), for xs: &[Vec<f64>] never written:
/// for k in 0..n {                           for __i in 0..__v0 {
///     let p = predict(w, &xs[k]);               let xs_row = &xs[__v1..__v3];      // was xs[..].to_vec(),
///                                               let p = predict(w, &xs_row);       // pushed onto a tape
/// ```
pub(crate) fn borrowed_windows(f: &Function) -> BTreeSet<Array> {
    #[derive(Default)]
    struct Uses {
        windows: Vec<(Array, Array)>,
        written: BTreeSet<Array>,
        /// Arrays used other than as a read or a borrowed call argument (returned, yielded, copied, passed
        /// by value, a method's receiver..).
        other: BTreeSet<Array>,
    }
    fn args(u: &mut Uses, args: &[Operand], by_ref: &[bool]) {
        for (arg, r) in args.iter().zip(by_ref) {
            if let (Operand::Array(a), false) = (arg, r) {
                u.other.insert(*a);
            }
        }
    }
    fn walk(block: &Block, u: &mut Uses) {
        for operand in &block.yields {
            if let Operand::Array(a) = operand {
                u.other.insert(*a);
            }
        }
        for stmt in &block.stmts {
            match stmt {
                Stmt::Store { array, .. }
                | Stmt::Push { array, .. }
                | Stmt::Truncate { array, .. } => {
                    u.written.insert(*array);
                }
                Stmt::NewArray { array, init } => match init {
                    ArrayInit::Window { source, .. } => u.windows.push((*array, *source)),
                    ArrayInit::Copy(source) => {
                        u.other.insert(*source);
                    }
                    ArrayInit::Call {
                        args: a, by_ref, ..
                    } => args(u, a, by_ref),
                    _ => {}
                },
                Stmt::Let {
                    value:
                        Value::Call {
                            args: a, by_ref, ..
                        },
                    ..
                } => args(u, a, by_ref),
                Stmt::CallOut {
                    args: a, by_ref, ..
                } => {
                    args(u, a, by_ref);
                    u.written.extend(stmt.written_arrays());
                }
                _ => {
                    for operand in stmt.operands() {
                        if let Operand::Array(a) = operand {
                            u.other.insert(*a);
                        }
                    }
                }
            }
            for inner in stmt.blocks() {
                walk(inner, u);
            }
        }
    }
    let mut u = Uses::default();
    walk(&f.body, &mut u);
    let top_level: BTreeSet<Array> = (f.body.stmts.iter())
        .filter_map(|s| match s {
            Stmt::NewArray { array, .. } => Some(*array),
            _ => None,
        })
        .collect();
    let info = |a: Array| &f.arrays[a.0 as usize];
    (u.windows.into_iter())
        .filter(|(window, source)| {
            (info(*source).param.is_some() || top_level.contains(source))
                && !info(*source).output
                && !u.written.contains(source)
                && !u.written.contains(window)
                && !u.other.contains(window)
                && info(*window).matrix.is_none()
                && !info(*window).output
        })
        .map(|(window, _)| window)
        .collect()
}

/// The borrowed windows (`views::borrowed_windows`) whose adjoint the reverse sweep adds straight into
/// their source's, through a view `&mut __d_m[a..b]` taken where the window's region starts, instead of
/// into a zeroed buffer of their own that it adds into the source's where the region ends (one allocation
/// per iteration, for a row `&m[i]` of an active matrix in a loop). The two are the same sums: a borrowed
/// window's adjoint is only added to (nothing writes the window), and its source is a parameter nothing
/// writes, whose adjoint nothing reads before the sweep ends. The view borrows the source's adjoint for
/// the whole region, so the window must be the only use of its source in the function (its length
/// aside): its one statement, made in a branch or loop body (a top-level array's buffer is declared with
/// the parameters'). Such a loop is never fused (`Planner::fusable`: it makes an active array).
///
/// ```text
/// // Input (m: &[Vec<f64>] active):    // Reverse of the loop body, before:        after:
/// for i in 0..n {                      let mut __d_r = zeros_like(&m[a..b]);      let __d_r: &mut [_] =
///     let r = &m[i];                   ..add_to(&mut __d_r[j], ..)..                  &mut __d_m[a..b];
///     for j in .. { s += r[j] * x[j] } accumulate(&mut __d_m[a..b], &__d_r);     ..add_to(&mut __d_r[j], ..)..
/// }
/// ```
pub(crate) fn window_views(f: &Function, borrowed: &BTreeSet<Array>) -> BTreeSet<Array> {
    /// By array: the windows made of it, and whether anything else names it (its length aside).
    fn walk(
        block: &Block,
        top: bool,
        windows: &mut BTreeMap<Array, Vec<(Array, bool)>>,
        other: &mut BTreeSet<Array>,
    ) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let {
                    value: Value::Len(_),
                    ..
                } => {}
                Stmt::NewArray {
                    array,
                    init: ArrayInit::Window { source, .. },
                } => {
                    windows.entry(*source).or_default().push((*array, top));
                    other.extend(stmt.operands().into_iter().filter_map(|o| match o {
                        Operand::Array(a) => Some(a),
                        _ => None,
                    }));
                    // The window itself may be used in any way a borrowed window may.
                    other.insert(*array);
                }
                _ => other.extend(crate::reverse::plan::mentioned_arrays(stmt)),
            }
            for inner in stmt.blocks() {
                walk(inner, false, windows, other);
            }
        }
    }
    let mut windows = BTreeMap::new();
    let mut other = BTreeSet::new();
    walk(&f.body, true, &mut windows, &mut other);
    windows
        .into_iter()
        .filter_map(|(source, made)| {
            let info = &f.arrays[source.0 as usize];
            let only = match made.as_slice() {
                [(window, false)] => Some(*window),
                _ => None,
            }?;
            (info.param.is_some()
                && !info.output
                && !other.contains(&source)
                && borrowed.contains(&only))
            .then_some(only)
        })
        .collect()
}

/// The matrix parameters (`&[Vec<T>]`, `Vec<Vec<T>>`, `[[T; M]; N]`) that the generated code reads in place
/// instead of flattening into one `Vec` at each call (a copy of the whole matrix): those inactive in this
/// sweep (`inactive`), that nothing writes, and that the body uses only through their rows `&m[i]` (lent
/// to calls, iterated, read by element), which are then `&__matrix_m[i][..]`, and their elements `m[i][j]`,
/// then `__matrix_m[i][j]` (`matrix_reads.rs`). A matrix passed whole, or active, is flattened as before.
/// By flat array.
///
/// ```text
/// // Input (wrt(w), xs: &[Vec<f64>]):      // Output:
/// for k in 0..n {                          let __matrix_xs = xs;       // no `flatten(&__matrix_xs)`
///     s += predict(w, &xs[k]);             for __i in 0..__v0 {
/// }                                            let xs_row: &[_] = &__matrix_xs[__i][..];
/// ```
pub(crate) fn in_place_matrices(f: &Function, inactive: &dyn Fn(Array) -> bool) -> BTreeSet<Array> {
    /// The arrays used otherwise than as the source of a matrix's row.
    fn walk(block: &Block, other: &mut BTreeSet<Array>) {
        let operand = |o: &Operand, other: &mut BTreeSet<Array>| {
            if let Operand::Array(a) = o {
                other.insert(*a);
            }
        };
        for o in &block.yields {
            operand(o, other);
        }
        for stmt in &block.stmts {
            match stmt {
                // An element `m[i][j]` of a matrix, which reading in place reads as such
                // (`matrix_reads.rs`).
                Stmt::Let {
                    value: Value::Load { at: Some(_), .. },
                    ..
                } => {}
                Stmt::Let {
                    value: Value::Load { array, .. } | Value::Len(array),
                    ..
                }
                | Stmt::Store { array, .. }
                | Stmt::Push { array, .. }
                | Stmt::Truncate { array, .. } => {
                    other.insert(*array);
                }
                Stmt::NewArray {
                    array,
                    init: ArrayInit::Window { source, row, .. },
                } => {
                    other.insert(*array);
                    if row.is_none() {
                        other.insert(*source);
                    }
                }
                Stmt::NewArray {
                    array,
                    init: ArrayInit::Copy(source),
                } => {
                    other.extend([*array, *source]);
                }
                Stmt::NewArray { array, .. } => {
                    other.insert(*array);
                }
                Stmt::CallOut { .. } => {
                    other.extend(stmt.written_arrays());
                }
                _ => {}
            }
            for o in stmt.operands() {
                operand(o, other);
            }
            for inner in stmt.blocks() {
                walk(inner, other);
            }
        }
    }
    let mut other = BTreeSet::new();
    walk(&f.body, &mut other);
    (0..f.arrays.len() as u32)
        .map(Array)
        .filter(|a| {
            let info = &f.arrays[a.0 as usize];
            info.param.is_some()
                && !info.output
                && info.matrix.as_ref().is_some_and(|m| m.original.is_some())
                && !other.contains(a)
                && inactive(*a)
        })
        .collect()
}

/// The arrays of row offsets (`row_offsets(&__matrix_m)`, made first: `lower/matrices.rs`) of the matrices
/// read in place (`in_place`, from [`in_place_matrices`]) that nothing reads but the bounds of the rows'
/// sub-slices, which a row read in place (`&__matrix_m[i][..]`) does not use, and their length (`m.len()`
/// is `len(offsets) - 1`, printed from the matrix): the sweeps do not make them (an allocation and a pass
/// over the rows at each call). An offsets array also read otherwise (a loaded offset used in arithmetic)
/// is made. By offsets array, with its matrix's flat array.
///
/// ```text
/// // Input (ir, xs read in place):             // Output: no `let mut xs_rows = row_offsets(..);`
/// new xs_rows = row_offsets(&__matrix_xs)
/// v1 = xs_rows[i]; v2 = i + 1; v3 = xs_rows[v2]
/// new xs_row = xs[v1..v3] (row i)               let xs_row: &[_] = &__matrix_xs[__i][..];
/// ```
pub(crate) fn unread_offsets(f: &Function, in_place: &BTreeSet<Array>) -> BTreeMap<Array, Array> {
    /// What `block` reads: the values used (`used`, the bounds of in-place rows left out) and the arrays
    /// read otherwise than by a load (`arrays`), and the loads (`loads`: value, array).
    struct Reads<'a> {
        in_place: &'a BTreeSet<Array>,
        used: BTreeSet<Var>,
        arrays: BTreeSet<Array>,
        loads: Vec<(Var, Array)>,
    }
    impl Reads<'_> {
        fn walk(&mut self, block: &Block) {
            self.used
                .extend(block.yields.iter().filter_map(Operand::var));
            for stmt in &block.stmts {
                let operands = match stmt {
                    Stmt::NewArray {
                        init:
                            ArrayInit::Window {
                                source,
                                row: Some(row),
                                ..
                            },
                        ..
                    } if self.in_place.contains(source) => vec![&**row],
                    _ => stmt.operands(),
                };
                for o in operands {
                    match o {
                        Operand::Array(a) => {
                            self.arrays.insert(*a);
                        }
                        o => self.used.extend(o.var()),
                    }
                }
                match stmt {
                    Stmt::Let {
                        var,
                        value: Value::Load { array, .. },
                    } => self.loads.push((*var, *array)),
                    Stmt::Store { array, .. }
                    | Stmt::Push { array, .. }
                    | Stmt::Truncate { array, .. } => {
                        self.arrays.insert(*array);
                    }
                    Stmt::NewArray {
                        init: ArrayInit::Window { source, .. } | ArrayInit::Copy(source),
                        ..
                    } if !self.in_place.contains(source) => {
                        self.arrays.insert(*source);
                    }
                    Stmt::CallOut { .. } => self.arrays.extend(stmt.written_arrays()),
                    _ => {}
                }
                for inner in stmt.blocks() {
                    self.walk(inner);
                }
            }
        }
    }
    let offsets = row_offsets_of(f, in_place);
    if offsets.is_empty() {
        return offsets;
    }
    let mut reads = Reads {
        in_place,
        used: BTreeSet::new(),
        arrays: BTreeSet::new(),
        loads: Vec::new(),
    };
    reads.walk(&f.body);
    let read: BTreeSet<Array> = (reads.loads.iter())
        .filter(|(var, _)| reads.used.contains(var))
        .map(|(_, array)| *array)
        .collect();
    offsets
        .into_iter()
        .filter(|(a, _)| !reads.arrays.contains(a) && !read.contains(a))
        .collect()
}

/// The arrays of row offsets that the generated code makes first (`row_offsets(&__matrix_m)`,
/// `lower/matrices.rs`) of the matrices `in_place` (by flat array): by offsets array, with its matrix's
/// flat array.
pub(crate) fn row_offsets_of(f: &Function, in_place: &BTreeSet<Array>) -> BTreeMap<Array, Array> {
    // The offsets array of each matrix read in place, by the matrix's name as the call reads it.
    let names: BTreeMap<String, Array> = in_place
        .iter()
        .map(|a| {
            let name = &f.arrays[a.0 as usize].name;
            let ident = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
            (crate::naming::matrix(&ident).to_string(), *a)
        })
        .collect();
    (f.body.stmts.iter())
        .filter_map(|stmt| match stmt {
            Stmt::NewArray {
                array,
                init: ArrayInit::Call { callee, args, .. },
            } if callee
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "row_offsets") =>
            {
                match args.as_slice() {
                    [Operand::Const { tokens, .. }] => {
                        names.get(&tokens.to_string()).map(|flat| (*array, *flat))
                    }
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// A read of a loop through a view.
#[derive(Clone, Debug)]
pub(crate) struct View {
    /// The value the read defines.
    pub(crate) load: Var,
    pub(crate) array: Array,
    /// The offset of the view in the array: `base` of the index `base + i`, `None` for `i` itself.
    pub(crate) base: Option<TokenStream>,
    /// The values defined outside the loop that `base` reads (which code reversing the loop must have).
    pub(crate) reads: Vec<Var>,
}

/// The reads of each loop of `f` that go through views, by the loop's trip-count value, given how each
/// value of `f` is printed (`name`).
pub(crate) fn views(f: &Function, name: &dyn Fn(Var) -> TokenStream) -> BTreeMap<Var, Vec<View>> {
    let lengths = lengths(f);
    let mut all = BTreeMap::new();
    for stmt in f.all_stmts() {
        if let Stmt::Loop(l) = stmt {
            let views = views_of(f, l, &lengths, name);
            if !views.is_empty() {
                all.insert(l.trips, views);
            }
        }
    }
    all
}

/// The values of `f` that are lengths of arrays (`n = x.len()`), with the array.
fn lengths(f: &Function) -> BTreeMap<Var, Array> {
    let mut lengths = BTreeMap::new();
    for stmt in f.all_stmts() {
        if let Stmt::Let {
            var,
            value: Value::Len(array),
        } = stmt
        {
            lengths.insert(*var, *array);
        }
    }
    lengths
}

/// The reads of `l` that go through views; `lengths` are the values that are lengths of arrays.
fn views_of(
    f: &Function,
    l: &Loop,
    lengths: &BTreeMap<Var, Array>,
    name: &dyn Fn(Var) -> TokenStream,
) -> Vec<View> {
    let Some((range, index)) = &l.range else {
        return Vec::new();
    };
    if range.step.is_some() || l.exit_flag.is_some() || l.cond.is_some() {
        return Vec::new();
    }
    let mut inside = BTreeSet::new();
    collect_defs(&l.body, &mut inside);
    inside.extend(l.phis.iter().copied());
    inside.insert(*index);
    let defs: BTreeMap<Var, &Value> = l
        .body
        .stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Let { var, value } => Some((*var, value)),
            _ => None,
        })
        .collect();
    let invariant = Invariant {
        inside: &inside,
        defs: &defs,
        name,
    };
    let mut views = Vec::new();
    for stmt in &l.body.stmts {
        let Stmt::Let {
            var,
            value:
                Value::Load {
                    array,
                    index: at,
                    at: element,
                },
        } = stmt
        else {
            continue;
        };
        // An element of a matrix read in place is read from the matrix, not the flat array.
        if crate::ir::At::is_in_place(element) {
            continue;
        }
        if crate::reverse::writes_array(&l.body.stmts, *array) || f.arrays[array.0 as usize].scalar
        {
            continue;
        }
        let base = match at {
            // `for i in 0..x.len()` reading `x[i]`: the compiler sees that already.
            Operand::Var(v) if v == index && over_whole(range, lengths, *array) => continue,
            Operand::Var(v) if v == index => None,
            Operand::Var(v) => match defs.get(v) {
                Some(Value::Binary(syn::BinOp::Add(_), a, b)) => {
                    let other = match (a.var() == Some(*index), b.var() == Some(*index)) {
                        (true, false) => b,
                        (false, true) => a,
                        _ => continue,
                    };
                    let mut reads = Vec::new();
                    match invariant.tokens(other, 0, &mut reads) {
                        Some(tokens) => Some((tokens, reads)),
                        None => continue,
                    }
                }
                _ => continue,
            },
            _ => continue,
        };
        let (base, reads) = match base {
            Some((base, reads)) => (Some(base), reads),
            None => (None, Vec::new()),
        };
        views.push(View {
            load: *var,
            array: *array,
            base,
            reads,
        });
    }
    views
}

// Input (ir):                           // Output (reverse sweep of the loop):
// loop for i in 0..d                     let __d_w_view: &mut [_] =
//     v0 = c * d                             &mut __d_w[(if 0 < d { (c * d) } else { 0 })..][..d];
//     v1 = v0 + i                        for i in 0..d {
//     v2 = w[v1]     (a view)                ..
//     ..                                     add_to(&mut __d_w_view[i], __d_v2);
/// The arrays of `l` whose adjoints the reverse of `l` adds through a mutable view of the adjoint buffer,
/// of those that `wanted` (active, and not accumulated in registers): read in the loop only through views
/// of one offset, and used in no other way anywhere in the loop (no other read, write, call or copy), so
/// that every access to the adjoint buffer in the reversed loop is an increment through the view (which the
/// borrow checker confirms: the view is a `&mut` borrow of the buffer for the whole loop). The views cover
/// exactly the elements the loop reads, so taking one fails where a read would have.
pub(crate) fn adjoint_views(f: &Function, l: &Loop, wanted: &dyn Fn(Array) -> bool) -> Vec<Array> {
    let name = |v: Var| {
        let ident = proc_macro2::Ident::new(&format!("v{}", v.0), proc_macro2::Span::call_site());
        quote!(#ident)
    };
    let views = views_of(f, l, &lengths(f), &name);
    let mut arrays: Vec<Array> = views.iter().map(|v| v.array).collect();
    arrays.sort();
    arrays.dedup();
    arrays.retain(|&array| {
        let of_array: Vec<&View> = views.iter().filter(|v| v.array == array).collect();
        let base = |v: &View| v.base.as_ref().map(ToString::to_string);
        let one_offset = of_array.iter().all(|v| base(v) == base(of_array[0]));
        let loads: BTreeSet<Var> = of_array.iter().map(|v| v.load).collect();
        wanted(array) && one_offset && !other_uses(&l.body.stmts, array, &loads)
    });
    arrays
}

/// Does `stmts` (nested blocks too) use `array` other than by the reads `loads` (or its length)?
fn other_uses(stmts: &[Stmt], array: Array, loads: &BTreeSet<Var>) -> bool {
    stmts.iter().any(|stmt| {
        let direct = match stmt {
            Stmt::Let {
                var,
                value: Value::Load { array: a, .. },
            } => *a == array && !loads.contains(var),
            Stmt::Store { array: a, .. }
            | Stmt::Push { array: a, .. }
            | Stmt::Truncate { array: a, .. }
            | Stmt::NewArray { array: a, .. }
                if *a == array =>
            {
                true
            }
            Stmt::NewArray {
                init: ArrayInit::Copy(a) | ArrayInit::Window { source: a, .. },
                ..
            } => *a == array,
            _ => false,
        };
        direct
            || stmt
                .operands()
                .iter()
                .any(|o| matches!(o, Operand::Array(a) if *a == array))
            || stmt
                .blocks()
                .iter()
                .any(|b| other_uses(&b.stmts, array, loads))
    })
}

/// The declaration of a view before its loop: the sub-slice the loop's reads cover, or an empty slice
/// where the loop does not run, of the trip count's length; `mutable` for a view of an adjoint buffer.
pub(crate) fn declaration(
    view: &View,
    name: &proc_macro2::Ident,
    array: &proc_macro2::Ident,
    l: &Loop,
    operand: &dyn Fn(&Operand) -> Tokens,
    mutable: bool,
) -> TokenStream {
    let Some((range, _)) = &l.range else {
        return TokenStream::new();
    };
    let (start, end) = (operand(&range.start), operand(&range.end));
    let starts_at_zero = matches!(&range.start, Operand::Const { tokens, .. } if is_zero(tokens));
    let (lo, hi) = match &view.base {
        Some(base) if starts_at_zero => (Tokens::Other(base.clone()), quote!(#base + #end).into()),
        Some(base) => (quote!(#base + #start).into(), quote!(#base + #end).into()),
        None => (start.clone(), end.clone()),
    };
    let (borrow, cmp) = match (mutable, range.inclusive) {
        (false, false) => (quote!(&), quote!(<)),
        (false, true) => (quote!(&), quote!(<=)),
        (true, false) => (quote!(&mut), quote!(<)),
        (true, true) => (quote!(&mut), quote!(<=)),
    };
    if range.inclusive {
        return quote!(let #name: #borrow [_] = if #start #cmp #end { #borrow #array[#lo..=#hi] } else { #borrow [] };);
    }
    // The slice from `lo`, cut to the trip count: where the loop runs, `array[lo..hi]`, failing where it
    // fails; where it does not, an empty slice from the start, which never fails. Written so, the view
    // has a length the compiler sees (the trip count), and the reads `view[i]` of `i in 0..end` lose
    // their bounds checks, which an `if` of the slice and `&[]` kept (its length is `end` or 0):
    // `cargo bench --bench counts`, MLP 2.37M -> 1.95M instructions. The index is a `usize`.
    let length = if starts_at_zero {
        quote!(#end)
    } else {
        quote!(::core::primitive::usize::saturating_sub(#end, #start))
    };
    if starts_at_zero && view.base.is_none() {
        // From 0: `array[..end]` fails where the reads of `0..end` would.
        return quote!(let #name: #borrow [_] = #borrow #array[..#length];);
    }
    quote!(let #name: #borrow [_] = #borrow #array[(if #start #cmp #end { #lo } else { 0 })..][..#length];)
}

/// The read of a view at the loop's index `index`.
pub(crate) fn read(
    name: &proc_macro2::Ident,
    index: &proc_macro2::Ident,
    l: &Loop,
    operand: &dyn Fn(&Operand) -> Tokens,
) -> TokenStream {
    match l.range.as_ref().map(|(range, _)| &range.start) {
        Some(Operand::Const { tokens, .. }) if is_zero(tokens) => quote!(#name[#index]),
        Some(start) => {
            let start = operand(start);
            quote!(#name[#index - #start])
        }
        None => quote!(#name[#index]),
    }
}

/// Is `range` `0..array.len()`?
fn over_whole(range: &crate::ir::Range, lengths: &BTreeMap<Var, Array>, array: Array) -> bool {
    let starts_at_zero = matches!(&range.start, Operand::Const { tokens, .. } if is_zero(tokens));
    starts_at_zero
        && !range.inclusive
        && range.end.var().and_then(|end| lengths.get(&end)) == Some(&array)
}

fn is_zero(tokens: &TokenStream) -> bool {
    matches!(tokens.to_string().as_str(), "0" | "0usize")
}

/// Integer arithmetic the loop does not change, as tokens that can be evaluated before the loop.
struct Invariant<'a> {
    inside: &'a BTreeSet<Var>,
    defs: &'a BTreeMap<Var, &'a Value>,
    name: &'a dyn Fn(Var) -> TokenStream,
}

impl Invariant<'_> {
    fn tokens(&self, operand: &Operand, depth: usize, reads: &mut Vec<Var>) -> Option<TokenStream> {
        match operand {
            Operand::Const { tokens, .. } => Some(tokens.clone()),
            Operand::Var(v) if !self.inside.contains(v) => {
                reads.push(*v);
                Some((self.name)(*v))
            }
            // Defined in the body by arithmetic of invariants (`c * d`, computed again each iteration).
            Operand::Var(v) if depth < 8 => match self.defs.get(v)? {
                Value::Binary(op, a, b)
                    if matches!(
                        op,
                        syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_)
                    ) =>
                {
                    let a = self.tokens(a, depth + 1, reads)?;
                    let b = self.tokens(b, depth + 1, reads)?;
                    Some(quote!((#a #op #b)))
                }
                _ => None,
            },
            _ => None,
        }
    }
}

fn collect_defs(block: &Block, defs: &mut BTreeSet<Var>) {
    for stmt in &block.stmts {
        defs.extend(stmt.defs());
        if let Stmt::Loop(l) = stmt {
            defs.extend(l.phis.iter().copied());
            defs.extend(l.range.as_ref().map(|(_, i)| *i));
        }
        for inner in stmt.blocks() {
            collect_defs(inner, defs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Args;
    use crate::errors::Errors;

    /// `src` in the intermediate form.
    fn lowered(src: &str) -> Function {
        let item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let mut errors = Errors::default();
        let sig = crate::signature::analyze(&item, &Args::default(), &mut errors)
            .expect("supported signature");
        let float_params = crate::signature::float_type_params(&item.sig.generics);
        let f = crate::lower::lower(&item, &sig, float_params, &mut errors);
        assert!(errors.finish().is_ok(), "test source is supported");
        f
    }

    fn views_in(src: &str) -> Vec<String> {
        let f = lowered(src);
        let name = |v: Var| {
            let ident =
                proc_macro2::Ident::new(&format!("v{}", v.0), proc_macro2::Span::call_site());
            quote!(#ident)
        };
        let mut out = Vec::new();
        // In program order: by the loops' trip-count values, which lowering numbers in that order.
        for views in views(&f, &name).into_values() {
            for view in views {
                let base = view.base.map(|b| b.to_string()).unwrap_or_default();
                out.push(format!(
                    "{}[{}+i]",
                    f.arrays[view.array.0 as usize].name, base
                ));
            }
        }
        out
    }

    #[test]
    fn reads_at_an_offset_of_the_index_go_through_views() {
        let views = views_in(
            "fn f(w: &[f64], x: &[f64], d: usize, k: usize) -> f64 {
                let mut s = 0.0;
                for c in 0..k { for i in 0..d { s += w[c * d + i] * x[i]; } }
                s
            }",
        );
        assert_eq!(views.len(), 2, "{views:?}");
        assert!(
            views[0].starts_with("w[") && views[0].contains('*'),
            "{views:?}"
        );
        assert_eq!(views[1], "x[+i]");
    }

    /// The arrays whose adjoints each loop of `src` adds through views, by the loops' trip-count values.
    fn adjoint_views_in(src: &str) -> Vec<Vec<String>> {
        let f = lowered(src);
        let mut loops: Vec<&Loop> = f
            .all_stmts()
            .into_iter()
            .filter_map(|s| match s {
                Stmt::Loop(l) => Some(&**l),
                _ => None,
            })
            .collect();
        loops.sort_by_key(|l| l.trips);
        loops
            .into_iter()
            .map(|l| {
                adjoint_views(&f, l, &|_| true)
                    .into_iter()
                    .map(|a| f.arrays[a.0 as usize].name.clone())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn adjoints_go_through_views_where_the_loop_reads_the_array_only_through_them() {
        let views = adjoint_views_in(
            "fn f(w: &[f64], x: &[f64], d: usize, k: usize) -> f64 {
                let mut s = 0.0;
                for c in 0..k { for i in 0..d { s += w[c * d + i] * x[i] + w[c * d + i]; } }
                s
            }",
        );
        // The inner loop first (lowering numbers its trip count first); the outer reads nothing itself.
        assert_eq!(views, vec![vec!["w".to_string(), "x".to_string()], vec![]]);
    }

    #[test]
    fn adjoints_of_arrays_used_otherwise_in_the_loop_do_not() {
        let views = adjoint_views_in(
            "fn f(x: &[f64], y: &[f64], z: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n { s += x[i] * x[i + 1]; }
                for i in 0..n { s += y[i]; if s > 1.0 { s += y[0]; } }
                for i in 0..n { s += z[i] * g(z); }
                s
            }",
        );
        // Two offsets of `x`, another read of `y` in a branch, `z` passed whole to a call.
        assert!(views.iter().all(Vec::is_empty), "{views:?}");
    }

    #[test]
    fn reads_over_the_whole_array_need_none() {
        let views = views_in(
            "fn f(x: &[f64], y: &[f64]) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() { s += x[i] * y[i]; }
                s
            }",
        );
        // `x[i]` for `i` in `0..x.len()` is checked by the compiler already; `y[i]` is not.
        assert_eq!(views, vec!["y[+i]".to_string()]);
    }

    #[test]
    fn reads_that_not_every_iteration_makes_do_not() {
        let views = views_in(
            "fn f(x: &[f64], n: usize) -> f64 {
                let mut s = 0.0;
                for i in 0..n { if s < 1.0 { s += x[i]; } }
                for i in 0..n { if x[i] > 2.0 { break; } s += x[i]; }
                for i in (0..n).step_by(2) { s += x[i]; }
                s
            }",
        );
        assert!(views.is_empty(), "{views:?}");
    }

    #[test]
    fn arrays_the_loop_writes_and_moving_offsets_do_not() {
        let views = views_in(
            "fn f(x: &[f64], n: usize) -> f64 {
                let mut y = vec![0.0; n];
                let mut s = 0.0;
                let mut k = 0;
                for i in 0..n { y[i] = x[i]; s += y[i]; }
                for i in 0..n { s += x[k + i]; k += 1; }
                s
            }",
        );
        // Only `x[i]` of the first loop: `y` is written there, and `k` changes in the second.
        assert_eq!(views, vec!["x[+i]".to_string()]);
    }

    /// The names of the sub-slices of `src` that are borrowed.
    fn borrowed_in(src: &str) -> Vec<String> {
        let f = lowered(src);
        borrowed_windows(&f)
            .into_iter()
            .map(|a| f.arrays[a.0 as usize].name.clone())
            .collect()
    }

    #[test]
    fn sub_slices_of_arrays_nothing_writes_are_borrowed() {
        // A matrix's row and a parameter's sub-slice, lent to calls and read.
        let borrowed = borrowed_in(
            "fn f(w: &[f64], xs: &[Vec<f64>]) -> f64 {
                let mut s = 0.0;
                for k in 0..xs.len() {
                    let r = &w[k..];
                    s += g(w, &xs[k]) * r[0] * (r.len() as f64);
                }
                s
            }",
        );
        assert_eq!(borrowed.len(), 2, "{borrowed:?}");
    }

    fn window_views_in(src: &str) -> Vec<String> {
        let f = lowered(src);
        window_views(&f, &borrowed_windows(&f))
            .into_iter()
            .map(|a| f.arrays[a.0 as usize].name.clone())
            .collect()
    }

    #[test]
    fn the_adjoint_of_a_parameters_only_window_is_a_view_into_its_adjoint() {
        // A matrix's row taken once per iteration, hoisted or in the inner loop; a sub-slice in a branch.
        for src in [
            "fn f(m: &[Vec<f64>], x: &[f64]) -> f64 {
                let mut s = 0.0;
                for i in 0..m.len() { let r = &m[i]; for j in 0..x.len() { s += r[j] * x[j]; } }
                s
            }",
            "fn f(m: &[Vec<f64>], x: &[f64]) -> f64 {
                let mut s = 0.0;
                for i in 0..m.len() { for j in 0..x.len() { let r = &m[i]; s += r[j] * x[j]; } }
                s
            }",
            "fn f(w: &[f64], c: bool) -> f64 {
                let mut s = w.len() as f64;
                if c { let t = &w[1..]; s += t[0] * t[1]; }
                s
            }",
        ] {
            assert_eq!(window_views_in(src).len(), 1, "{src}");
        }
    }

    #[test]
    fn a_window_beside_other_uses_of_its_source_keeps_a_buffer_of_its_own() {
        // The source read by element too; two windows of it; a window made at the top level; the
        // source written; an output parameter's window.
        for src in [
            "fn f(w: &[f64]) -> f64 {
                let mut s = w[0];
                for k in 0..w.len() - 1 { let t = &w[k..]; s += t[0] * t[1]; }
                s
            }",
            "fn f(m: &[Vec<f64>]) -> f64 {
                let mut s = 0.0;
                for i in 1..m.len() { let a = &m[i]; let b = &m[i - 1]; s += a[0] * b[0]; }
                s
            }",
            "fn f(w: &[f64]) -> f64 {
                let t = &w[1..];
                t[0] * t[1]
            }",
            "fn f(mut w: Vec<f64>) -> f64 {
                let mut s = 0.0;
                for k in 0..2 { let t = &w[k..]; s += t[0] * t[1]; w[k] = s; }
                s
            }",
            "fn f(x: &[f64], out: &mut [f64]) {
                out[0] = x[0];
                for k in 0..2 { let t = &out[k..]; out[k + 1] = t[0] * x[k]; }
            }",
        ] {
            assert!(window_views_in(src).is_empty(), "{src}");
        }
    }

    #[test]
    fn sub_slices_of_written_arrays_or_used_whole_are_copied() {
        // The source written after the calls; a sub-slice returned; one passed by value; a local source
        // made in the loop (out of the reverse sweep's scope where it is not stored).
        for src in [
            "fn f(x: &[f64]) -> f64 {
                let mut z = vec![0.0; x.len()];
                let mut s = 0.0;
                for k in 0..x.len() - 1 { s += g(&z[k..k + 2]); }
                z[0] = x[0];
                s + z[0]
            }",
            "fn f(x: &[f64]) -> Vec<f64> {
                let r = x[1..].to_vec();
                r
            }",
            "fn f(x: &[f64]) -> f64 {
                let mut s = 0.0;
                for k in 0..x.len() {
                    let z = vec![x[k]; 3];
                    s += g(&z[1..]);
                }
                s
            }",
        ] {
            assert_eq!(borrowed_in(src), Vec::<String>::new(), "{src}");
        }
    }

    /// The names of the matrix parameters of `src` read in place, every array taken as inactive but those
    /// named `active`.
    fn in_place_in(src: &str, active: &[&str]) -> Vec<String> {
        let f = lowered(src);
        let name = |a: Array| f.arrays[a.0 as usize].name.clone();
        in_place_matrices(&f, &|a| !active.contains(&name(a).as_str()))
            .into_iter()
            .map(name)
            .collect()
    }

    #[test]
    fn inactive_matrices_used_only_through_rows_are_read_in_place() {
        // Rows lent to calls, bound and read by element, iterated; a fixed-size matrix; an owned one.
        for src in [
            "fn f(w: &[f64], xs: &[Vec<f64>]) -> f64 {
                let mut s = 0.0;
                for k in 0..xs.len() {
                    let row = &xs[k];
                    s += g(w, &xs[xs.len() - 1 - k]) * row[0] * (row.len() as f64);
                }
                for row in xs.iter() { s += g(w, row); }
                s
            }",
            "fn f(w: &[f64], xs: [[f64; 2]; 3]) -> f64 { g(w, &xs[0]) + g(w, &xs[2]) }",
            "fn f(w: &[f64], xs: Vec<Vec<f64>>) -> f64 { g(w, &xs[1]) }",
            // Read by element besides its rows (`matrix_reads.rs`).
            "fn f(w: &[f64], xs: &[Vec<f64>]) -> f64 { g(w, &xs[0]) * xs[1][0] }",
        ] {
            assert_eq!(in_place_in(src, &["w"]), vec!["xs".to_string()], "{src}");
        }
    }

    /// The matrices of `src` read in place (every array inactive but `w`) whose row offsets are not made.
    fn unread_in(src: &str) -> Vec<String> {
        let f = lowered(src);
        let name = |a: Array| f.arrays[a.0 as usize].name.clone();
        let in_place = in_place_matrices(&f, &|a| name(a) != "w");
        unread_offsets(&f, &in_place)
            .into_keys()
            .map(name)
            .collect()
    }

    #[test]
    fn row_offsets_of_matrices_read_in_place_are_made_only_where_read() {
        // Rows lent, bound, iterated, at computed indexes: the offsets only bound the rows.
        for src in [
            "fn f(w: &[f64], xs: &[Vec<f64>], n: usize) -> f64 {
                let mut s = 0.0;
                for k in 0..n {
                    let row = &xs[n - 1 - k];
                    s += g(w, &xs[k]) * row[0];
                }
                s
            }",
            "fn f(w: &[f64], xs: [[f64; 2]; 3]) -> f64 { g(w, &xs[0]) + g(w, &xs[2]) }",
        ] {
            assert_eq!(unread_in(src), vec!["xs_rows".to_string()], "{src}");
        }
        // The number of rows, `xs.len()`, is printed from the matrix.
        for src in [
            "fn f(w: &[f64], xs: &[Vec<f64>]) -> f64 {
                let mut s = 0.0;
                for k in 0..xs.len() { s += g(w, &xs[k]); }
                s
            }",
            "fn f(w: &[f64], xs: &[Vec<f64>]) -> f64 {
                let mut s = 0.0;
                for row in xs.iter() { s += g(w, row); }
                s
            }",
        ] {
            assert_eq!(unread_in(src), vec!["xs_rows".to_string()], "{src}");
        }
        // An offset read into arithmetic (the row's length); the offsets of a matrix read by element, in
        // the function as lowered (the sweeps read it in place on a copy without them,
        // `matrix_reads.rs`).
        for src in [
            "fn f(w: &[f64], xs: &[Vec<f64>]) -> f64 { g(w, &xs[0]) * (xs[1].len() as f64) }",
            "fn f(w: &[f64], xs: &[Vec<f64>]) -> f64 { g(w, &xs[0]) * xs[1][0] }",
        ] {
            assert_eq!(unread_in(src), Vec::<String>::new(), "{src}");
        }
    }

    #[test]
    fn matrices_passed_whole_or_active_are_flattened() {
        for (src, active) in [
            // Passed whole.
            (
                "fn f(w: &[f64], xs: &[Vec<f64>]) -> f64 { h(w, &xs) }",
                &["w"][..],
            ),
            // Active.
            (
                "fn f(w: &[f64], xs: &[Vec<f64>]) -> f64 { g(w, &xs[0]) }",
                &["w", "xs"],
            ),
            // A matrix made in the body.
            (
                "fn f(w: &[f64]) -> f64 { let m = vec![vec![0.5; 2]; 2]; g(w, &m[1]) }",
                &["w"],
            ),
        ] {
            assert_eq!(in_place_in(src, active), Vec::<String>::new(), "{src}");
        }
    }
}
