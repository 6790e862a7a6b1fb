//! The reverse of a region (an `if`/`match` branch or a loop body): the values its adjoint reads,
//! recomputed there or popped from a tape as the plan says (`plan.rs`), and the adjoint of branching.

use super::loops::Update;
use super::plan::touches_active_arrays;
use super::plan::ArraySnapshot;
use super::{Adjoints, Reverse};
use crate::emit::{block_with_value, tuple_or_single, Emitter, Mode};
use crate::ir::{Array, ArrayInit, Block, CallSite, Function, Operand, Stmt, Value, Var};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{BTreeMap, BTreeSet};

impl Reverse<'_, '_> {
    /// The reverse of a region (a branch or a loop body): the values its adjoint reads, recomputed or
    /// popped from their tapes, then the adjoint code. `carried` are the loop's values at the start of an
    /// iteration (always taped) and `index` the loop index with the code that recomputes it.
    pub(super) fn region(
        &mut self,
        block: &Block,
        carried: &[Var],
        index: Option<(Var, TokenStream)>,
        adjoint_code: Vec<TokenStream>,
        mut region_refs: BTreeSet<Var>,
        refs: &mut BTreeSet<Var>,
    ) -> TokenStream {
        // The adjoint buffers of the arrays this region makes, zeros of the array's length.
        let mut buffers = Vec::new();
        for stmt in &block.stmts {
            let Stmt::NewArray { array, init } = stmt else {
                continue;
            };
            let Some(buffer) = self.array_adjoints.get(array).cloned() else {
                continue;
            };
            // A view into the source's adjoint (`views::window_views`), over the window's bounds.
            if let ArrayInit::Window { source, range, .. } = init {
                if self.plan.window_views.contains(array) {
                    let bounds = range.start.iter().chain(range.end.iter());
                    region_refs.extend(bounds.filter_map(Operand::var));
                    let source_buffer = self.array_adjoint(*source);
                    let range = self.e.window(range);
                    buffers.push(quote!(let #buffer: &mut [_] = &mut #source_buffer[#range];));
                    continue;
                }
            }
            let elem_kind = self.e.activity.elem_kind(*array);
            // Elements whose type the syntax does not tell (a call's result repeated): a zero of the
            // type of the value or first element, which the region's reverse then reads.
            let typed_by = match init {
                ArrayInit::Repeat { value, .. } => value.var(),
                ArrayInit::Elements { items, .. } => items.first().and_then(Operand::var),
                _ => None,
            }
            .filter(|v| {
                matches!(elem_kind, crate::ir::Kind::Unknown)
                    && self.e.f.vars[v.0 as usize].tuple_arity.is_none()
            });
            let zero = match typed_by {
                Some(v) => {
                    region_refs.insert(v);
                    let name = self.e.name(v);
                    quote!(::autodiff::__private::zero_like(&#name))
                }
                None => Emitter::zero_of(elem_kind),
            };
            let zeros = match init {
                ArrayInit::Repeat { len, fixed, .. } => {
                    region_refs.extend(len.var());
                    let len = self.e.operand(len);
                    if *fixed {
                        quote!([#zero; #len])
                    } else {
                        quote!(::std::vec![#zero; #len])
                    }
                }
                ArrayInit::Elements { items, fixed } => {
                    let len = items.len();
                    if *fixed {
                        quote!([#zero; #len])
                    } else {
                        quote!(::std::vec![#zero; #len])
                    }
                }
                // A sub-slice: as long as it was (its length read where it was made: the source may be
                // out of scope here, made in this region too).
                ArrayInit::Window { source, range, .. } => match self.e.f.arrays[array.0 as usize]
                    .length
                {
                    Some(length) => {
                        region_refs.insert(length);
                        let length = self.e.name(length);
                        quote!(::std::vec![#zero; #length])
                    }
                    None => {
                        let bounds = range.start.iter().chain(range.end.iter());
                        region_refs.extend(bounds.filter_map(Operand::var));
                        let (source, range) = (self.e.array_name(*source), self.e.window(range));
                        quote!(::autodiff::__private::zeros_like(&#source[#range]))
                    }
                },
                ArrayInit::Copy(source) if self.e.f.arrays[source.0 as usize].param.is_some() => {
                    let source = self.e.array_name(*source);
                    quote!(::autodiff::__private::zeros_like(&#source))
                }
                // A `Vec` made by a call or a copy: as long as it was (a length read in the region); a
                // fixed-size array: of its length.
                _ => match (
                    self.e.f.arrays[array.0 as usize].length,
                    &self.e.f.arrays[array.0 as usize].fixed_len,
                ) {
                    (Some(length), _) => {
                        region_refs.insert(length);
                        let length = self.e.name(length);
                        quote!(::std::vec![#zero; #length])
                    }
                    (None, Some(len)) if self.e.f.arrays[array.0 as usize].fixed => {
                        quote!([#zero; #len])
                    }
                    // Rejected before emission (`unsized_region_arrays`); kept an error, never a panic.
                    (None, _) => {
                        quote_spanned!(self.e.f.arrays[array.0 as usize].made_at=> ::core::compile_error!(#UNSIZED_REGION_ARRAY))
                    }
                },
            };
            buffers.push(quote!(let mut #buffer = #zeros;));
            // Pushed to in this region (`region_lengths`): its pushes are undone from its length at the
            // region's end, this iteration's.
            if let (Some(counter), Some(length)) = (
                self.push_counters.get(array),
                self.e.f.arrays[array.0 as usize].length,
            ) {
                let length = self.e.name(length);
                buffers.push(quote!(let mut #counter = #length;));
            }
        }
        // Loads of a loop in this block stored once before it (`Emitter::hoisted`): popped here.
        let mut hoisted_pops = Vec::new();
        region_refs.retain(|v| match self.hoisted_here.get(v) {
            Some((trips, tape))
                if block
                    .stmts
                    .iter()
                    .any(|s| matches!(s, Stmt::Loop(l) if l.trips == *trips)) =>
            {
                let name = self.e.name(*v);
                hoisted_pops.push(quote!(let #name = #tape.pop();));
                false
            }
            _ => true,
        });
        let defs: BTreeMap<Var, &Stmt> = block
            .stmts
            .iter()
            .flat_map(|s| s.defs().into_iter().map(move |v| (v, s)))
            .collect();
        let index_var = index.as_ref().map(|(v, _)| *v);
        let is_top = |v: &Var| defs.contains_key(v) || carried.contains(v) || index_var == Some(*v);
        // The borrowed sub-slices this block makes (`views::borrowed_windows`): taken again here, from
        // their bounds, for the reads and calls of the adjoint that name them.
        let borrowed: Vec<&Stmt> = (block.stmts.iter())
            .filter(|s| {
                matches!(s, Stmt::NewArray { array, init: ArrayInit::Window { .. } }
                    if self.plan.borrowed_windows.contains(array))
            })
            .collect();
        for stmt in &borrowed {
            region_refs.extend(self.e.window_refs(stmt));
        }
        let mut todo: Vec<Var> = region_refs.iter().copied().filter(is_top).collect();
        refs.extend(region_refs.iter().copied().filter(|v| !is_top(v)));
        let (mut remat, mut taped) = (BTreeSet::new(), BTreeSet::new());
        let mut index_needed = false;
        let mut hoisted = BTreeSet::new();
        // Loads read from a copy of their array stored whole (`ArraySnapshot`).
        let mut from_copy = BTreeSet::new();
        while let Some(v) = todo.pop() {
            if remat.contains(&v)
                || taped.contains(&v)
                || hoisted.contains(&v)
                || from_copy.contains(&v)
            {
                continue;
            }
            if index_var == Some(v) {
                index_needed = true;
                continue;
            }
            if carried.contains(&v)
                && self
                    .counters
                    .get(&v)
                    .is_some_and(|c| matches!(c.update, Update::Step { .. }))
            {
                self.counters_used.insert(v);
                continue;
            }
            let chained = self.counters.iter().find_map(|(phi, c)| match c.update {
                Update::Chained { out, .. } if out == v => Some(*phi),
                _ => None,
            });
            if let Some(phi) = chained {
                self.counters_used.insert(phi);
                continue;
            }
            let stmt = defs.get(&v).copied();
            if let Some((
                trips,
                Some(Stmt::Let {
                    value: Value::Load { array, index, .. },
                    ..
                }),
            )) = self.plan.hoisted.get(&v).map(|trips| (*trips, stmt))
            {
                let tape = self.hoisted_tape(v, trips, *array, index);
                self.hoisted_here.insert(v, (trips, tape));
                hoisted.insert(v);
                refs.insert(v);
                continue;
            }
            if let (
                Some(copy),
                Some(Stmt::Let {
                    value: Value::Load { index, .. },
                    ..
                }),
            ) = (self.plan.array_snapshots.get(&v).copied(), stmt)
            {
                self.snapshots_used.insert(copy);
                from_copy.insert(v);
                match index.var() {
                    Some(read) if is_top(&read) => todo.push(read),
                    Some(read) => {
                        refs.insert(read);
                    }
                    None => {}
                }
                continue;
            }
            let reads: Option<BTreeSet<Var>> = match stmt {
                // A load through the loop's view reads the loop's index (the range's start is read
                // where the view is declared), not the index the body computed: that is not recomputed.
                Some(Stmt::Let {
                    value: Value::Load { .. },
                    ..
                }) if self.plan.recomputed.contains(&v) && self.e.reads_through_view(v) => {
                    Some(index_var.into_iter().collect())
                }
                Some(Stmt::Let { value, .. }) if self.plan.recomputed.contains(&v) => Some(
                    value
                        .operands()
                        .into_iter()
                        .filter_map(Operand::var)
                        .collect(),
                ),
                Some(s @ (Stmt::If { .. } | Stmt::Match { .. }))
                    if self.plan.recomputed.contains(&v) =>
                {
                    let single = Block {
                        stmts: vec![s.clone()],
                        yields: Vec::new(),
                    };
                    Some(
                        self.e
                            .primal(&single, &[v].into_iter().collect(), Mode::Recompute)
                            .1,
                    )
                }
                _ => None,
            };
            match reads {
                Some(reads) => {
                    remat.insert(v);
                    for read in reads {
                        if is_top(&read) {
                            todo.push(read);
                        } else {
                            refs.insert(read);
                        }
                    }
                }
                None => {
                    taped.insert(v);
                }
            }
        }
        // The arrays stored whole after a loop of this block whose copies the reverse of the block reads
        // (`ArraySnapshot`): lent back once per reversed iteration, before anything reads them.
        let stored_here: Vec<ArraySnapshot> = (self.snapshots_used.iter())
            .filter(|copy| {
                (block.stmts.iter()).any(|s| matches!(s, Stmt::Loop(l) if l.trips == copy.after))
            })
            .copied()
            .collect();
        let mut prelude = Vec::new();
        for copy in stored_here {
            self.snapshots_used.remove(&copy);
            let tape = self.e.array_snapshot_tape(copy.after, copy.array);
            let name = self.copy_name(copy);
            prelude.push(quote!(let #name = #tape.pop();));
        }
        prelude.extend(hoisted_pops);
        for v in &taped {
            let tape = self.e.tape(*v);
            let name = self.e.name(*v);
            prelude.push(quote!(let #name = #tape.pop();));
        }
        if let (true, Some((_, code))) = (index_needed, &index) {
            prelude.push(code.clone());
        }
        let mut postlude = Vec::new();
        for v in carried {
            let Some(counter) = self
                .counters
                .get(v)
                .filter(|_| self.counters_used.contains(v))
            else {
                continue;
            };
            let name = &counter.name;
            match &counter.update {
                Update::Step { step, added, .. } => {
                    let phi = self.e.name(*v);
                    prelude.push(if *added {
                        quote!(#name -= #step; let #phi = #name;)
                    } else {
                        quote!(#name += #step; let #phi = #name;)
                    });
                }
                Update::Chained { out, inner } => {
                    let out = self.e.name(*out);
                    prelude.push(quote!(let #out = #name;));
                    postlude.push(quote!(#name = #inner;));
                }
            }
        }
        for stmt in &block.stmts {
            if let Stmt::NewArray {
                array,
                init: ArrayInit::Window { source, range, row },
            } = stmt
            {
                if self.plan.borrowed_windows.contains(array) {
                    let row = row.as_deref();
                    prelude.push(self.e.borrowed_window(*array, *source, range, row));
                }
                continue;
            }
            if let Stmt::Let {
                var,
                value: Value::Load { index, .. },
            } = stmt
            {
                if from_copy.contains(var) {
                    let copy = self.copy_name(self.plan.array_snapshots[var]);
                    let (name, index) = (self.e.name(*var), self.e.operand(index));
                    prelude.push(quote!(let #name = #copy[#index];));
                    continue;
                }
            }
            let wanted: BTreeSet<Var> = stmt
                .defs()
                .into_iter()
                .filter(|v| remat.contains(v))
                .collect();
            if wanted.is_empty() {
                continue;
            }
            let single = Block {
                stmts: vec![stmt.clone()],
                yields: Vec::new(),
            };
            prelude.push(self.e.primal(&single, &wanted, Mode::Recompute).0);
        }
        let mut all = prelude;
        all.extend(buffers);
        all.extend(adjoint_code);
        all.extend(postlude);
        crate::emit::concat(all)
    }

    /// The tape of the load `v = array[index]`, which the plan stores once before its loop `trips`
    /// starts instead of once per iteration (every iteration reads the same element), registered with
    /// the loop (`Emitter::hoisted`); the region of the loop around pops it.
    ///
    /// ```text
    /// // Input:                         // Output:
    /// for i in 0..d {                   for i in 0..d {          // forward
    ///     for j in i + 1..d {               __tape_v.push(load_or_zero(&c, i));
    ///         y[j] += l[k] * c[i];          for j in i + 1..d { .. }
    ///     }                             }
    /// }                                 for i in (0..d).rev() {  // reverse
    ///                                       let __v = __tape_v.pop();
    ///                                       for j in (i + 1..d).rev() { .. __v .. }
    ///                                   }
    /// ```
    fn hoisted_tape(&mut self, v: Var, trips: Var, array: Array, index: &Operand) -> Ident {
        let base = format!(
            "__tape_{}",
            self.e.name(v).to_string().trim_start_matches('_')
        );
        let tape = self.e.namer.fresh(&base);
        self.e
            .hoisted
            .entry(trips)
            .or_default()
            .push((tape.clone(), array, index.clone()));
        tape
    }

    /// The name of the copy of an array stored whole (`ArraySnapshot`) in the reverse sweep.
    fn copy_name(&mut self, copy: ArraySnapshot) -> Ident {
        if let Some(name) = self.copy_names.get(&copy) {
            return name.clone();
        }
        let base = format!(
            "__{}_stored",
            self.e
                .array_name(copy.array)
                .to_string()
                .trim_start_matches('_')
        );
        let name = self.e.namer.fresh(&base);
        self.copy_names.insert(copy, name.clone());
        name
    }

    /// The adjoint of an `if` or `match`: the same branching, each branch recomputing what its adjoint
    /// reads and yielding the adjoints of the outer values it changed.
    pub(super) fn branches(
        &mut self,
        stmt: &Stmt,
        cond: &Operand,
        outs: &[Var],
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let out_adjoints: Vec<Option<TokenStream>> =
            outs.iter().map(|o| adjoints.remove(o)).collect();
        if out_adjoints.iter().all(Option::is_none) && !touches_active_arrays(stmt, self.e.activity)
        {
            return;
        }
        let mut arms: Vec<(TokenStream, Adjoints)> = Vec::new();
        for block in stmt.blocks() {
            let mut arm_adjoints = adjoints.clone();
            let mut arm_code = Vec::new();
            let mut arm_refs = BTreeSet::new();
            for (yielded, d) in block.yields.iter().zip(&out_adjoints) {
                if let Some(d) = d {
                    self.contribute(yielded, d.clone(), &mut arm_adjoints, &mut arm_code);
                }
            }
            self.block(block, &mut arm_adjoints, &mut arm_code, &mut arm_refs);
            let arm = self.region(block, &[], None, arm_code, arm_refs, refs);
            arms.push((arm, arm_adjoints));
        }
        // The outer values whose adjoints some branch changed.
        let changed: Vec<Var> = arms
            .iter()
            .flat_map(|(_, arm)| arm.iter())
            .filter(|(var, d)| {
                adjoints
                    .get(var)
                    .is_none_or(|before| before.to_string() != d.to_string())
            })
            .map(|(var, _)| *var)
            .collect::<BTreeSet<Var>>()
            .into_iter()
            .collect();
        let has_code = arms.iter().any(|(code, _)| !code.is_empty());
        if changed.is_empty() && !has_code {
            return;
        }
        let bodies: Vec<TokenStream> = arms
            .iter()
            .map(|(arm_code, arm)| {
                let yields: Vec<TokenStream> = changed
                    .iter()
                    .map(|var| match arm.get(var).or(adjoints.get(var)) {
                        Some(d) => d.clone(),
                        None => self.e.zero_of_var(*var),
                    })
                    .collect();
                block_with_value(arm_code.clone(), tuple_or_single(yields))
            })
            .collect();
        refs.extend(cond.var());
        let names: Vec<TokenStream> = changed
            .iter()
            .map(|v| self.e.adjoint_name(*v).to_token_stream())
            .collect();
        for (var, name) in changed.iter().zip(&names) {
            adjoints.insert(*var, name.clone());
        }
        let branching = self.e.branches(stmt, cond, bodies);
        if names.is_empty() {
            code.push(quote!(#branching;));
        } else {
            let pattern = tuple_or_single(names);
            code.push(quote!(let #pattern = #branching;));
        }
    }
}

/// Do `stmts` write an element of `array` (or make it, or push to it, or pass it to a call that
/// writes it) anywhere?
pub(crate) fn writes_array(stmts: &[Stmt], array: Array) -> bool {
    stmts.iter().any(|stmt| {
        let direct = match stmt {
            Stmt::Store { array: a, .. }
            | Stmt::Push { array: a, .. }
            | Stmt::Truncate { array: a, .. }
            | Stmt::NewArray { array: a, .. } => *a == array,
            Stmt::CallOut { .. } => stmt.written_arrays().contains(&array),
            _ => false,
        };
        direct || stmt.blocks().iter().any(|b| writes_array(&b.stmts, array))
    })
}

/// The arrays in scope for the whole function: the parameters and the arrays its body makes outside any
/// branch or loop.
/// Why an array made in a branch or loop body by `Vec::new()`, a `.collect()` or a copy of unknown length is
/// rejected: the reverse of that region must size the array's adjoint buffer again.
const UNSIZED_REGION_ARRAY: &str =
    "an array made inside a loop or branch by `.collect()`, by `Vec::new()` or `Vec::with_capacity(..)` and \
     filled otherwise than by `.push(..)`, or by a copy of a fixed-size array whose length the macro cannot \
     tell, cannot be differentiated yet: make it empty and push its elements (`let mut v = Vec::new(); \
     v.push(..);`), or make it before the loop or branch (`let mut v = vec![0.0; n];`) and write its \
     elements (`v[i] = ..`)";

/// Can the reverse of a branch or loop body that makes `array` by `init` size its adjoint buffer (zeros of
/// its length)? Not for a `Vec` made empty, collected or copied whose length the lowering did not record.
fn region_can_size(f: &Function, array: Array, init: &ArrayInit) -> bool {
    let info = &f.arrays[array.0 as usize];
    match init {
        ArrayInit::Repeat { .. } | ArrayInit::Elements { .. } | ArrayInit::Window { .. } => true,
        ArrayInit::Copy(source) if f.arrays[source.0 as usize].param.is_some() => true,
        _ => info.length.is_some() || (info.fixed && info.fixed_len.is_some()),
    }
}

/// The errors, spanned where the body makes them, for the active arrays made inside a branch or loop body
/// whose adjoint buffer the reverse sweep could not size (`region_can_size`). Run before emission, so that
/// such a body gets this error alone and no half-emitted sweep.
pub(crate) fn unsized_region_arrays(
    f: &Function,
    activity: &crate::activity::Activity,
) -> Vec<syn::Error> {
    let top_level = top_level_arrays(f);
    f.all_stmts()
        .into_iter()
        .filter_map(|stmt| match stmt {
            Stmt::NewArray { array, init }
                if !top_level.contains(array)
                    && activity.is_active_array(*array)
                    && !region_can_size(f, *array, init) =>
            {
                Some(syn::Error::new(
                    f.arrays[array.0 as usize].made_at,
                    UNSIZED_REGION_ARRAY,
                ))
            }
            // Made empty, its buffer and push counter start at its length at the region's end
            // (`region_lengths`); made otherwise, its adjoint's first elements would flow back into what
            // it was made of, beside the pushed ones.
            Stmt::NewArray { array, init }
                if !top_level.contains(array)
                    && activity.is_active_array(*array)
                    && super::resized(f, *array)
                    && !crate::region_lengths::recorded(f, *array, init) =>
            {
                let info = &f.arrays[array.0 as usize];
                Some(syn::Error::new(
                    info.resized_at.unwrap_or(info.made_at),
                    RESIZED_REGION_ARRAY,
                ))
            }
            _ => None,
        })
        .collect()
}

/// Why a `Vec` made in a branch or loop body and pushed to or popped from there is rejected.
const RESIZED_REGION_ARRAY: &str =
    "a `Vec` made inside a loop or branch by a copy, `vec![..]` or a call, and grown by `.push(..)` or \
     shrunk by `.pop()`, cannot be differentiated yet: make it empty there (`Vec::new()`, \
     `Vec::with_capacity(..)`) and push its elements, or make it before the loop or branch";

pub(super) fn top_level_arrays(f: &Function) -> BTreeSet<Array> {
    let params = f
        .arrays
        .iter()
        .enumerate()
        .filter(|(_, info)| info.param.is_some())
        .map(|(i, _)| Array(i as u32));
    let locals = f.body.stmts.iter().filter_map(|s| match s {
        Stmt::NewArray { array, .. } => Some(*array),
        _ => None,
    });
    params.chain(locals).collect()
}

/// What the reverse sweep would read of an array again: an element or the length (a value), or the
/// whole array passed to a call (the callee's adjoint reruns it on the array's contents).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Read {
    Value(Var),
    Call(CallSite, Array),
}

/// The reads of arrays that the reverse sweep cannot repeat: the loads, lengths and call arguments whose
/// array may be written after them (later in the code, or in a later iteration of a loop around both), or
/// which is made inside a branch or loop body (out of scope in the reverse sweep). Returns the values to
/// store, and the call arguments the forward sweep snapshots at the call.
pub(super) fn unsafe_reads(
    f: &Function,
    borrowed_windows: &BTreeSet<Array>,
) -> (BTreeSet<Var>, BTreeSet<(CallSite, Array)>) {
    struct Walk {
        position: usize,
        loops: Vec<usize>,
        /// (what is read, array, position, enclosing loops, is a length)
        reads: Vec<(Read, Array, usize, Vec<usize>, bool)>,
        /// (array, position, enclosing loops, changes the length)
        writes: Vec<(Array, usize, Vec<usize>, bool)>,
        /// The output buffers of calls.
        written_by_calls: Vec<(CallSite, Array)>,
    }
    impl Walk {
        fn call(&mut self, site: CallSite, args: &[Operand]) {
            for arg in args {
                if let Operand::Array(array) = arg {
                    let read = Read::Call(site, *array);
                    self.reads
                        .push((read, *array, self.position, self.loops.clone(), false));
                }
            }
        }
    }
    fn walk(block: &Block, w: &mut Walk) {
        for stmt in &block.stmts {
            w.position += 1;
            match stmt {
                Stmt::Let {
                    var,
                    value: Value::Load { array, .. },
                } => {
                    w.reads.push((
                        Read::Value(*var),
                        *array,
                        w.position,
                        w.loops.clone(),
                        false,
                    ));
                }
                Stmt::Let {
                    var,
                    value: Value::Len(array),
                } => {
                    w.reads
                        .push((Read::Value(*var), *array, w.position, w.loops.clone(), true));
                }
                Stmt::Let {
                    var,
                    value: Value::Call { args, .. },
                } => w.call(CallSite::Value(*var), args),
                Stmt::NewArray {
                    array,
                    init: ArrayInit::Call { args, .. },
                } => w.call(CallSite::Array(*array), args),
                // The callee's adjoint runs again on the buffers as the call found them: stored always.
                Stmt::CallOut { var, args, .. } => {
                    w.call(CallSite::Value(*var), args);
                    for array in stmt.written_arrays() {
                        w.written_by_calls.push((CallSite::Value(*var), array));
                        w.writes.push((array, w.position, w.loops.clone(), false));
                    }
                }
                Stmt::Store { array, .. } => {
                    w.writes.push((*array, w.position, w.loops.clone(), false))
                }
                Stmt::Push { array, .. } => {
                    w.writes.push((*array, w.position, w.loops.clone(), true))
                }
                // A pop changes the length, and the slot it gives back is written again by the next
                // push.
                Stmt::Truncate { array, .. } => {
                    w.writes.push((*array, w.position, w.loops.clone(), true))
                }
                _ => {}
            }
            if let Stmt::Loop(_) = stmt {
                w.loops.push(w.position);
            }
            for inner in stmt.blocks() {
                walk(inner, w);
            }
            if let Stmt::Loop(_) = stmt {
                w.loops.pop();
            }
        }
    }
    let mut w = Walk {
        position: 0,
        loops: Vec::new(),
        reads: Vec::new(),
        writes: Vec::new(),
        written_by_calls: Vec::new(),
    };
    walk(&f.body, &mut w);
    let top_level = top_level_arrays(f);
    let (mut values, mut calls) = (
        BTreeSet::new(),
        w.written_by_calls.iter().copied().collect::<BTreeSet<_>>(),
    );
    for (read, array, at, loops, length) in &w.reads {
        // A store changes an element, not the length: `.len()` is invalidated by `push` only.
        let overwritten = w.writes.iter().any(|(written, when, around, resizes)| {
            written == array
                && (!length || *resizes)
                && (when > at || around.iter().any(|l| loops.contains(l)))
        });
        // A borrowed sub-slice of an array nothing writes: taken again where the reverse sweep reads it.
        if !overwritten && (top_level.contains(array) || borrowed_windows.contains(array)) {
            continue;
        }
        match read {
            Read::Value(var) => {
                values.insert(*var);
            }
            Read::Call(site, array) => {
                calls.insert((*site, *array));
                // Nor can the call's value be recomputed from that array.
                if let CallSite::Value(var) = site {
                    values.insert(*var);
                }
            }
        }
    }
    (values, calls)
}
