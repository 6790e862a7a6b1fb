//! The reverse of loops: iterations backwards (or fused into the forward sweep, or forwards, when they
//! commute), carried adjoints and accumulators, and the sliding window of adjoints of `x[i + c]`.

use super::plan::{loop_touches_active_arrays, CounterPlan, Order, WindowPlan};
use super::{Adjoints, Reverse};
use crate::emit::{concat, Emitter, Tokens};
use crate::ir::{Array, Block, Loop, Operand, Stmt, Var};
use crate::views::View;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet};

impl Reverse<'_, '_> {
    /// The reverse of a loop: its iterations backwards, each restoring the carried values it read from
    /// their tapes, recomputing the rest, and running the body's adjoint. The adjoints of the carried
    /// values, and of the outer values the body reads, are mutable accumulators across iterations.
    pub(super) fn loop_(
        &mut self,
        l: &Loop,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let activity = self.e.activity;
        let out_adjoints: Vec<Option<TokenStream>> =
            l.outs.iter().map(|o| adjoints.remove(o)).collect();
        if out_adjoints.iter().all(Option::is_none) && !loop_touches_active_arrays(l, activity) {
            return;
        }
        // The adjoints of the carried values, one mutable variable each.
        let carried: Vec<Option<Ident>> = l
            .phis
            .iter()
            .map(|phi| {
                activity
                    .is_active_var(*phi)
                    .then(|| self.e.adjoint_name(*phi))
            })
            .collect();
        // The outer values the body reads, which get mutable accumulators.
        let inner: BTreeSet<Var> = loop_defs(l);
        let mut outer: BTreeSet<Var> = BTreeSet::new();
        collect_reads(&l.body, &mut outer);
        outer.retain(|v| !inner.contains(v) && activity.is_active_var(*v));
        let accumulators: BTreeMap<Var, Ident> = outer
            .iter()
            .map(|v| (*v, self.e.adjoint_name(*v)))
            .collect();
        let mut body_adjoints = adjoints.clone();
        for (var, acc) in &accumulators {
            body_adjoints.insert(*var, acc.to_token_stream());
        }
        // A range loop that runs to its end without a step is reversed by iterating its range backwards;
        // otherwise the reverse sweep counts iterations and recovers each index with `nth`.
        let plan = self.plan.of_loop(l.trips).clone();
        let direct = plan.direct;
        let window = self.name_window(&plan.window);
        self.windows.push(window);
        // The body's increments of arrays read through views go through views of their adjoints.
        let adjoint_views = self.begin_adjoint_views(l, &plan.adjoint_views);
        let mut body_code = Vec::new();
        let mut body_refs = BTreeSet::new();
        for (yielded, d) in l.body.yields.iter().zip(&carried) {
            if let Some(d) = d {
                self.contribute(
                    yielded,
                    d.to_token_stream(),
                    &mut body_adjoints,
                    &mut body_code,
                );
            }
        }
        // Tapes made while reversing the body (its own or its nested loops' and branches') are popped in
        // the reverse of each iteration: those iterations must then run backwards.
        let tapes_before = self.e.tape_count();
        self.block(&l.body, &mut body_adjoints, &mut body_code, &mut body_refs);
        let window = self.windows.pop().unwrap_or_default();
        if let Some((range, _)) = &l.range {
            refs.extend(range.start.var());
            refs.extend(range.end.var());
            refs.extend(range.step.as_ref().and_then(Operand::var));
        }
        // At the end of an iteration: the carried adjoints become those of the iteration's start values.
        let mut targets = Vec::new();
        let mut values = Vec::new();
        for (phi, d) in l.phis.iter().zip(&carried) {
            let Some(d) = d else { continue };
            let next = body_adjoints
                .remove(phi)
                .unwrap_or_else(|| self.e.zero_of_var(*phi));
            if *d != next.to_string() {
                targets.push(d.to_token_stream());
                values.push(next);
            }
        }
        // The plan says the carried adjoints pass through an iteration unchanged only where they do.
        debug_assert!(!plan.accumulates || targets.is_empty(), "{targets:?}");
        let fused = plan.order == Order::Fused;
        let mut changed = Vec::new();
        for (var, acc) in &accumulators {
            let now = body_adjoints.get(var).map(ToString::to_string);
            if now.as_deref() != Some(acc.to_string().as_str()) {
                changed.push(*var);
                targets.push(acc.to_token_stream());
                values.push(body_adjoints[var].clone());
            }
        }
        let assign = match targets.len() {
            0 => quote!(),
            1 => quote!(#(#targets)* = #(#values)*;),
            _ => quote!((#(#targets),*) = (#(#values),*);),
        };
        let mut declarations = Vec::new();
        for ((((phi, out), d), out_d), start) in l
            .phis
            .iter()
            .zip(&l.outs)
            .zip(&carried)
            .zip(&out_adjoints)
            .zip(&l.inits)
        {
            if let Some(d) = d {
                // Of the type of the carried value after the loop, where the syntax does not say it. A fused
                // loop declares it before the loop, where only the carried value's start is in scope (found
                // by autodiff-fuzz --seed 57: E0425).
                let typed_like = match (fused, start.var()) {
                    (true, Some(start)) => start,
                    _ => *out,
                };
                let init = match out_d {
                    Some(out_d) => out_d.clone(),
                    None if matches!(activity.var_kind(*phi), crate::ir::Kind::Unknown) => {
                        self.zero_adjoint(typed_like, refs)
                    }
                    None => self.e.zero_of_var(*phi),
                };
                declarations.push(quote!(let mut #d = #init;));
            }
        }
        for var in &changed {
            let acc = &accumulators[var];
            // A fused loop runs before the reverse sweep has the outer adjoint: it accumulates from zero,
            // and its sum is added where the loop's reverse would have been.
            let init = match adjoints.get(var) {
                Some(before) if !fused => before.clone(),
                _ => self.zero_adjoint(*var, refs),
            };
            declarations.push(quote!(let mut #acc = #init;));
        }
        let descending = !fused;
        let (window_setup, window_flush, window_finish) = self.window_code(l, &window, descending);
        // The sums of invariant reads are added after the loop at their index, a value defined before the
        // loop that the code around it must then have (autodiff-fuzz --seed 6060 --reference p91 and
        // --seed 6061 --forms p30: E0425 where nothing else read it there).
        refs.extend(window.invariant.iter().filter_map(|(_, at, _)| at.var()));
        body_code.extend(window_flush);
        if fused {
            debug_assert!(adjoint_views.is_empty(), "a fused loop has no views");
            // The adjoint buffers of the local arrays the loop touches are added to (and, for arrays it
            // writes, taken back to zero) by its iterations: declared before the first fused loop that
            // touches them, which the reverse sweep comes to last (`vjp_body`).
            for array in self.array_adjoints.keys() {
                let local = self.e.f.arrays[array.0 as usize].param.is_none();
                if local && super::plan::mentions_array(&l.body.stmts, *array) {
                    self.early_buffers.insert(*array, l.trips);
                }
            }
            // The loop's reverse runs inside its forward sweep, iteration by iteration: every value it
            // reads is still in scope, nothing is recomputed or stored.
            let inner: BTreeSet<Var> = loop_defs(l);
            refs.extend(body_refs.iter().copied().filter(|v| !inner.contains(v)));
            self.e.fused.insert(
                l.trips,
                crate::emit::Fused {
                    before: concat(declarations.into_iter().chain([window_setup]).collect()),
                    // The accumulators of outer values are updated each iteration, as in a reversed loop.
                    inside: concat(body_code.into_iter().chain([assign]).collect()),
                    after: window_finish,
                    roots: body_refs,
                },
            );
            for var in &changed {
                let acc = accumulators[var].to_token_stream();
                match adjoints.get(var).cloned() {
                    Some(before) if before.to_string() != acc.to_string() => {
                        self.contribute(&Operand::Var(*var), acc, adjoints, code)
                    }
                    _ => {
                        adjoints.insert(*var, acc);
                    }
                }
            }
        } else {
            for var in &changed {
                adjoints.insert(*var, accumulators[var].to_token_stream());
            }
            let t = self.e.namer.fresh("__t");
            let index = l.range.as_ref().and_then(|(_, index)| {
                let code = if direct {
                    TokenStream::new()
                } else {
                    self.e.nth_index(l, &t)?
                };
                Some((*index, code))
            });
            let counters = self.name_counters(l, &plan.counters);
            let outer_counters = std::mem::replace(&mut self.counters, counters);
            let outer_used = std::mem::take(&mut self.counters_used);
            // The reads the body's reverse recomputes go through the loop's views (`views.rs`), as in
            // the forward sweep: its iterations read the same elements, in another order.
            self.e.begin_views(l);
            let body = self.region(&l.body, &l.phis, index, body_code, body_refs, refs);
            let mut view_declarations = self.e.end_views(l);
            view_declarations.extend(self.end_adjoint_views(l, adjoint_views));
            if !view_declarations.is_empty() {
                refs.extend(self.e.view_reads(l));
            }
            let counters = std::mem::replace(&mut self.counters, outer_counters);
            let used = std::mem::replace(&mut self.counters_used, outer_used);
            // A counter starts from its value after the loop, and is undone iteration by iteration.
            for (phi, counter) in &counters {
                if !used.contains(phi) {
                    continue;
                }
                let Some(k) = l.phis.iter().position(|p| p == phi) else {
                    continue;
                };
                refs.insert(l.outs[k]);
                if let Update::Step {
                    step_var: Some(v), ..
                } = counter.update
                {
                    refs.insert(v);
                }
                let (name, out) = (&counter.name, self.e.name(l.outs[k]));
                declarations.push(quote!(let mut #name = #out;));
                self.finished_counters.insert(l.outs[k], name.clone());
            }
            // With carried adjoints that do not change and nothing popped from a tape, the order of the
            // iterations does not matter: run them forwards, as memory is laid out. Whether the body's
            // reverse pops a tape or recovers a counter depends on what its adjoint reads, which only
            // its emission tells.
            let any_order = plan.order == Order::Forwards
                && used.is_empty()
                && self.e.tape_count() == tapes_before;
            let header = match &l.range {
                Some((range, index)) if direct && any_order => {
                    let (start, end) = (self.e.operand(&range.start), self.e.operand(&range.end));
                    let forward = crate::emit::range_tokens(range, start, end, None);
                    let index = self.e.name(*index);
                    quote!(for #index in #forward)
                }
                Some((range, index)) if direct => {
                    let (start, end) = (self.e.operand(&range.start), self.e.operand(&range.end));
                    let forward =
                        crate::emit::range_tokens(range, start.clone(), end.clone(), None);
                    let backward = if range.rev {
                        let unreversed = crate::ir::Range {
                            rev: false,
                            ..range.clone()
                        };
                        crate::emit::range_tokens(&unreversed, start, end, None)
                    } else {
                        quote!((#forward).rev())
                    };
                    let index = self.e.name(*index);
                    quote!(for #index in #backward)
                }
                _ => {
                    refs.insert(l.trips);
                    let trips = self.e.name(l.trips);
                    quote!(for #t in (0..#trips).rev())
                }
            };
            let (declarations, view_declarations) =
                (concat(declarations), concat(view_declarations));
            code.push(quote! {
                #declarations
                #window_setup
                #view_declarations
                #header {
                    #body
                    #assign
                }
                #window_finish
            });
        }
        for (init, d) in l.inits.iter().zip(&carried) {
            if let Some(d) = d {
                self.contribute(init, d.to_token_stream(), adjoints, code);
            }
        }
    }

    /// While `l`'s body is reversed, the increments of its reads of `arrays` go through mutable views of
    /// their adjoint buffers (`views::adjoint_views`): each array's view, named, with its first read's
    /// view (all of an array's views in `l` have one offset).
    fn begin_adjoint_views(&mut self, l: &Loop, arrays: &[Array]) -> Vec<(View, Ident, Ident)> {
        let Some((_, index)) = &l.range else {
            return Vec::new();
        };
        let index = self.e.name(*index).clone();
        let mut made = Vec::new();
        for &array in arrays {
            let loads: Vec<View> = self
                .e
                .loop_views(l)
                .iter()
                .filter(|(v, _)| v.array == array)
                .map(|(v, _)| v.clone())
                .collect();
            let Some(first) = loads.first().cloned() else {
                continue;
            };
            let buffer = self.array_adjoint(array);
            let name = self.e.namer.fresh(&format!("{buffer}_view"));
            let operand = |o: &Operand| self.e.operand(o);
            let element = crate::views::read(&name, &index, l, &operand);
            for view in &loads {
                self.adjoint_reads
                    .insert(view.load, (element.clone(), false));
            }
            made.push((first, name, buffer));
        }
        made
    }

    /// After `l`'s body is reversed: the declarations of the adjoint views its increments went through.
    fn end_adjoint_views(
        &mut self,
        l: &Loop,
        views: Vec<(View, Ident, Ident)>,
    ) -> Vec<TokenStream> {
        let mut declarations = Vec::new();
        for (first, name, buffer) in views {
            let used = self
                .e
                .loop_views(l)
                .iter()
                .filter(|(v, _)| v.array == first.array)
                .filter_map(|(v, _)| self.adjoint_reads.remove(&v.load))
                .fold(false, |any, (_, used)| any || used);
            if used {
                let operand = |o: &Operand| self.e.operand(o);
                declarations.push(crate::views::declaration(
                    &first, &name, &buffer, l, &operand, true,
                ));
            }
        }
        declarations
    }

    /// A zero adjoint for the outer value `var`: of its kind where the syntax settled it, else (a call's
    /// result) of the type of its primal value, `zero_like(&v)`, which the reverse sweep then reads. A bare
    /// `Zero::zero()` accumulated with `{float}` terms leaves rustc two types to choose from (E0283).
    fn zero_adjoint(&self, var: Var, refs: &mut BTreeSet<Var>) -> TokenStream {
        let unsettled = matches!(self.e.activity.var_kind(var), crate::ir::Kind::Unknown);
        let single = self.e.f.vars[var.0 as usize].tuple_arity.is_none();
        if unsettled && single && !self.e.f.params.contains(&var) {
            refs.insert(var);
            let name = self.e.name(var);
            return quote!(::autodiff::__private::zero_like(&#name));
        }
        self.e.zero_of_var(var)
    }

    /// The registers of the window `plan`, named.
    fn name_window(&mut self, plan: &WindowPlan) -> Window {
        let mut fresh = |base: &str, array: Array| {
            let name = self.e.array_name(array).to_string();
            self.e
                .namer
                .fresh(&format!("{base}{}", name.trim_start_matches('_')))
        };
        let invariant = (plan.invariant.iter())
            .map(|(array, at)| (*array, at.clone(), fresh("__sum_", *array)))
            .collect();
        let arrays = (plan.arrays.iter())
            .map(|(array, (lowest, highest))| {
                let registers = (0..=(highest - lowest))
                    .map(|k| {
                        let name = self.e.array_name(*array).to_string();
                        let base = format!("__window_{}_{k}", name.trim_start_matches('_'));
                        self.e.namer.fresh(&base)
                    })
                    .collect();
                (*array, (*lowest, registers))
            })
            .collect();
        Window {
            offsets: plan.offsets.clone(),
            arrays,
            invariant,
        }
    }

    /// The code of a loop's windows: the registers before the loop, the flush and shift at the end of
    /// each iteration, and the flush of what is left after the loop.
    pub(super) fn window_code(
        &mut self,
        l: &Loop,
        window: &Window,
        descending: bool,
    ) -> (TokenStream, Vec<TokenStream>, TokenStream) {
        let (mut setup, mut flush, mut finish) = (Vec::new(), Vec::new(), Vec::new());
        let Some((range, index)) = &l.range else {
            return (TokenStream::new(), flush, TokenStream::new());
        };
        let index = Tokens::Name(self.e.name(*index).clone());
        let (start, end) = (self.e.operand(&range.start), self.e.operand(&range.end));
        let at = |base: &Tokens, offset: i64| -> TokenStream {
            let magnitude = proc_macro2::Literal::u64_unsuffixed(offset.unsigned_abs());
            match offset {
                0 => quote!(#base),
                o if o > 0 => quote!(#base + #magnitude),
                _ => quote!(#base - #magnitude),
            }
        };
        for (array, (lowest, registers)) in &window.arrays {
            let buffer = self.array_adjoint(*array);
            let zero = Emitter::zero_of(self.e.activity.elem_kind(*array));
            let highest = lowest + registers.len() as i64 - 1;
            setup.extend(registers.iter().map(|r| quote!(let mut #r = #zero;)));
            let first = &registers[0];
            let last = &registers[registers.len() - 1];
            let (lower, upper): (Vec<&Ident>, Vec<&Ident>) = (
                registers[..registers.len() - 1].iter().collect(),
                registers[1..].iter().collect(),
            );
            let leftovers: Vec<TokenStream> = if descending {
                // Element `i + highest` is complete: flush the top register, shift up.
                let target = at(&index, highest);
                flush.push(quote!(::autodiff::__private::add_to(&mut #buffer[#target], #last);));
                flush.push(quote!((#(#upper,)* #first) = (#(#lower,)* #zero);));
                // After the last iteration (index `start`), register k holds element `start - 1 + lowest + k`.
                registers
                    .iter()
                    .enumerate()
                    .skip(1)
                    .map(|(k, r)| {
                        let element = at(&start, lowest + k as i64 - 1);
                        quote!(::autodiff::__private::add_to(&mut #buffer[#element], #r);)
                    })
                    .collect()
            } else {
                // Iterating upwards (a loop fused into the forward sweep), element `i + lowest` is complete:
                // flush the bottom register, shift down.
                let target = at(&index, *lowest);
                flush.push(quote!(::autodiff::__private::add_to(&mut #buffer[#target], #first);));
                flush.push(quote!((#(#lower,)* #last) = (#(#upper,)* #zero);));
                // After the last iteration (index `end - 1`), register k holds element `end + lowest + k`.
                registers[..registers.len() - 1]
                    .iter()
                    .enumerate()
                    .map(|(k, r)| {
                        let element = at(&end, lowest + k as i64);
                        quote!(::autodiff::__private::add_to(&mut #buffer[#element], #r);)
                    })
                    .collect()
            };
            finish.push(quote!(if #start < #end { #(#leftovers)* }));
        }
        // A register of an invariant index is complete after the loop. The loop read that element when
        // it ran at least once, so the index is in bounds then.
        let mut sums = Vec::new();
        for (array, at, register) in &window.invariant {
            let buffer = self.array_adjoint(*array);
            let zero = Emitter::zero_of(self.e.activity.elem_kind(*array));
            let at = self.e.operand(at);
            setup.push(quote!(let mut #register = #zero;));
            sums.push(quote!(::autodiff::__private::add_to(&mut #buffer[#at], #register);));
        }
        if !sums.is_empty() {
            finish.push(quote!(if #start < #end { #(#sums)* }));
        }
        (quote!(#(#setup)*), flush, quote!(#(#finish)*))
    }
}

/// An integer carried by a loop and updated by a loop-invariant step, `li += 1` (`li_3 = li_2 + 1`): the
/// reverse sweep needs no tape for it. It runs `name` from the value after the loop backwards, undoing one
/// update at the start of each reversed iteration (the forward update did not overflow, so neither does its
/// inverse):
///
/// ```text
/// // Input:                     // Output (reverse sweep):
/// let mut li = c * l_size;      let mut __counter_li = li;        // li after the loop
/// for j in 0..n {               for j in (0..n).rev() {
///     .. l[li] ..                   __counter_li -= 1; let li = __counter_li;
///     li += 1;                      .. adjoint reading l[li] ..
/// }                             }
/// ```
///
/// A counter carried through an inner loop that counts it (`li` of the outer loop passed on as the inner
/// loop's counter, its next value the inner loop's out) is recovered the same way: before a reversed
/// iteration the outer counter holds the inner loop's out, and after it the inner counter holds the
/// inner loop's start, which is the outer counter's value before the iteration.
pub(crate) struct Counter {
    /// The running value in the reverse sweep.
    pub(crate) name: Ident,
    pub(crate) update: Update,
}

/// How a counter's next value is made in an iteration.
pub(crate) enum Update {
    /// `phi + step` (`added`) or `phi - step`, the step a constant or a value defined before the loop.
    Step {
        step: TokenStream,
        step_var: Option<Var>,
        added: bool,
    },
    /// `out`, the out value of an inner loop (a statement of the body) whose counter, `inner` in the
    /// reverse sweep, starts from `phi`.
    Chained { out: Var, inner: Ident },
}

impl Reverse<'_, '_> {
    /// The counters of `l` (see `Counter`) that its plan gives, named in the order of the carried
    /// values. A chained one is taken where the inner loop's reverse recovered its own counter
    /// (`finished_counters`).
    fn name_counters(
        &mut self,
        l: &Loop,
        plan: &BTreeMap<Var, CounterPlan>,
    ) -> BTreeMap<Var, Counter> {
        let mut counters = BTreeMap::new();
        for phi in &l.phis {
            let update = match plan.get(phi) {
                None => continue,
                Some(CounterPlan::Chained { out }) => match self.finished_counters.get(out) {
                    Some(inner) => Update::Chained {
                        out: *out,
                        inner: inner.clone(),
                    },
                    None => continue,
                },
                Some(CounterPlan::Step { step, added }) => Update::Step {
                    step: self.e.operand(step).into_token_stream(),
                    step_var: step.var(),
                    added: *added,
                },
            };
            let base = format!(
                "__counter_{}",
                self.e.name(*phi).to_string().trim_start_matches('_')
            );
            let name = self.e.namer.fresh(&base);
            counters.insert(*phi, Counter { name, update });
        }
        counters
    }
}

/// Registers that accumulate the adjoints of `x[i + c]` for the few constant offsets `c` a loop over
/// `i` reads, so that each element of the adjoint array is written once, when its last contribution
/// is in, rather than read, added to and written back by several iterations in turn. (Two neighbouring
/// read-modify-writes per iteration, as `x[i]` and `x[i + 1]` give, stall the processor's store
/// forwarding: the extended Rosenbrock gradient ran 5 times slower than its primal with them.)
///
/// Iterating `i` downwards, the element `i + c_max` gets its last contribution at iteration `i`: it is
/// flushed to the array there, and the registers shift down by one.
#[derive(Default)]
pub(super) struct Window {
    /// The offset of each index value (`i`, `i + 1`, `i - 2`) from the loop index.
    pub(super) offsets: BTreeMap<Var, i64>,
    /// Per array: the smallest offset and one register per offset from it to the largest.
    pub(super) arrays: BTreeMap<Array, (i64, Vec<Ident>)>,
    /// The adjoints of reads at an index the same in every iteration (`c[k]` in a loop over `j`, `k`
    /// defined before it): one register each, added to the array's adjoint once, after the loop. Added
    /// to in the array's adjoint element by every iteration, they made a chain of dependent
    /// read-modify-writes through memory (GMM's `q_centered[j] += l[li] * centered[i]`: 70 % of its
    /// gradient's time at d = 64).
    pub(super) invariant: Vec<(Array, Operand, Ident)>,
}

/// The values defined anywhere inside the loop `l`: its carried values and index, and those of its nested
/// blocks and loops.
pub(crate) fn loop_defs(l: &Loop) -> BTreeSet<Var> {
    let mut defs = BTreeSet::new();
    add_loop_defs(l, &mut defs);
    defs
}

/// Adds the values defined inside `stmt` (its nested blocks, a loop's carried values and index).
fn add_defs_within(stmt: &Stmt, defs: &mut BTreeSet<Var>) {
    match stmt {
        Stmt::Loop(l) => add_loop_defs(l, defs),
        _ => add_block_defs(&stmt.blocks(), defs),
    }
}

fn add_loop_defs(l: &Loop, defs: &mut BTreeSet<Var>) {
    defs.extend(l.phis.iter().copied());
    defs.extend(l.range.as_ref().map(|(_, i)| *i));
    let blocks: Vec<&Block> = l.cond.iter().chain([&l.body]).collect();
    add_block_defs(&blocks, defs);
}

fn add_block_defs(blocks: &[&Block], defs: &mut BTreeSet<Var>) {
    for block in blocks {
        for inner in &block.stmts {
            defs.extend(inner.defs());
            add_defs_within(inner, defs);
        }
    }
}

/// The values read anywhere in `block`.
fn collect_reads(block: &Block, reads: &mut BTreeSet<Var>) {
    reads.extend(block.yields.iter().filter_map(Operand::var));
    for stmt in &block.stmts {
        reads.extend(stmt.operands().into_iter().filter_map(Operand::var));
        for inner in stmt.blocks() {
            collect_reads(inner, reads);
        }
    }
}
