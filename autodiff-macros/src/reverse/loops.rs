//! The reverse of loops: iterations backwards (or fused into the forward sweep, or forwards, when they
//! commute), carried adjoints and accumulators, and the sliding window of adjoints of `x[i + c]`.

use super::{Adjoints, Reverse};
use crate::emit::Emitter;
use crate::ir::{Array, Block, Loop, Operand, Stmt, Value, Var};
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
        let stmt_view = Stmt::Loop(Box::new(l.clone()));
        if out_adjoints.iter().all(Option::is_none) && !self.touches_active_arrays(&stmt_view) {
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
        let inner: BTreeSet<Var> = defs_within(&stmt_view);
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
        let direct =
            l.exit_flag.is_none() && l.range.as_ref().is_some_and(|(r, _)| r.step.is_none());
        let window = if direct && self.shortcuts.window {
            self.window(l)
        } else {
            Window::default()
        };
        self.windows.push(window);
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
        self.loop_depth += 1;
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
        let invariant = targets.is_empty();
        let fused = self.shortcuts.fuse && direct && invariant && self.fusable(l, &out_adjoints);
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
            // The loop's reverse runs inside its forward sweep, iteration by iteration: every value it
            // reads is still in scope, nothing is recomputed or stored.
            let inner: BTreeSet<Var> = defs_within(&Stmt::Loop(Box::new(l.clone())));
            refs.extend(body_refs.iter().copied().filter(|v| !inner.contains(v)));
            self.e.fused.insert(
                l.trips,
                crate::emit::Fused {
                    before: quote!(#(#declarations)* #window_setup),
                    // The accumulators of outer values are updated each iteration, as in a reversed loop.
                    inside: quote!(#(#body_code)* #assign),
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
            let counters = if self.shortcuts.recompute {
                self.counters(l)
            } else {
                BTreeMap::new()
            };
            let outer_counters = std::mem::replace(&mut self.counters, counters);
            let outer_used = std::mem::take(&mut self.counters_used);
            let outer_region = self.region_loop.replace(l.trips);
            let body = self.region(&l.body, &l.phis, index, body_code, body_refs, refs);
            self.region_loop = outer_region;
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
            // iterations does not matter: run them forwards, as memory is laid out.
            let any_order = self.shortcuts.forward_order
                && invariant
                && used.is_empty()
                && window.arrays.is_empty()
                && self.e.tape_count() == tapes_before
                && !self.writes_active_arrays(&l.body);
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
            code.push(quote! {
                #(#declarations)*
                #window_setup
                #header {
                    #body
                    #assign
                }
                #window_finish
            });
        }
        self.loop_depth -= 1;
        for (init, d) in l.inits.iter().zip(&carried) {
            if let Some(d) = d {
                self.contribute(init, d.to_token_stream(), adjoints, code);
            }
        }
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

    /// Can the reverse of `l` run inside its forward sweep? When it is a loop of the function body (not
    /// nested in a branch or loop), each carried value's adjoint after it is known before it runs (the
    /// output cotangent, or none), it writes the adjoints of parameter arrays only, and (checked by the
    /// caller) it runs its range to the end and its carried adjoints do not change from one iteration
    /// to the next (an accumulation `s += ..`). Then the order of the iterations does not matter.
    pub(super) fn fusable(&self, l: &Loop, out_adjoints: &[Option<TokenStream>]) -> bool {
        let top_level = self
            .e
            .f
            .body
            .stmts
            .iter()
            .any(|s| matches!(s, Stmt::Loop(x) if x.trips == l.trips));
        let d_ret = self.d_ret.to_string();
        let known = out_adjoints
            .iter()
            .all(|d| d.as_ref().is_none_or(|d| d.to_string() == d_ret));
        let mut arrays_ok = true;
        let mut stack: Vec<&Block> = vec![&l.body];
        while let Some(block) = stack.pop() {
            for stmt in &block.stmts {
                match stmt {
                    Stmt::Let {
                        value: Value::Load { array, .. },
                        ..
                    }
                    | Stmt::Store { array, .. }
                    | Stmt::Push { array, .. } => {
                        // An input array's adjoint only accumulates, in any order; an output
                        // parameter's gets contributions from the code after the loop too.
                        let info = &self.e.f.arrays[array.0 as usize];
                        arrays_ok &= !self.e.activity.is_active_array(*array)
                            || (info.param.is_some() && !info.output);
                    }
                    // The adjoints of the buffers a call writes are replaced, in order.
                    Stmt::NewArray { .. } | Stmt::CallOut { .. } => arrays_ok = false,
                    // The callee's adjoint writes the adjoint buffer of a local array argument, which is
                    // declared after the forward sweep.
                    Stmt::Let {
                        value: Value::Call { args, .. },
                        ..
                    } => {
                        arrays_ok &= args.iter().all(|a| match a {
                            Operand::Array(array) => {
                                let info = &self.e.f.arrays[array.0 as usize];
                                !self.e.activity.is_active_array(*array)
                                    || (info.param.is_some() && !info.output)
                            }
                            _ => true,
                        })
                    }
                    _ => {}
                }
                stack.extend(stmt.blocks());
            }
        }
        top_level && known && arrays_ok
    }

    /// Does `block` write an active array anywhere? (The reverse of a write reads and clears the
    /// element's adjoint, so iterations that write must be reversed in order.)
    pub(super) fn writes_active_arrays(&self, block: &Block) -> bool {
        block.stmts.iter().any(|stmt| {
            let direct = match stmt {
                Stmt::Store { array, .. }
                | Stmt::Push { array, .. }
                | Stmt::NewArray { array, .. } => self.e.activity.is_active_array(*array),
                Stmt::CallOut { .. } => stmt
                    .written_arrays()
                    .iter()
                    .any(|a| self.e.activity.is_active_array(*a)),
                _ => false,
            };
            direct || stmt.blocks().iter().any(|b| self.writes_active_arrays(b))
        })
    }

    /// The sliding windows of a loop reversed by iterating its range `a..b` downwards: for each active
    /// array it only reads (never writes), at offsets `i + c` from the index.
    pub(super) fn window(&mut self, l: &Loop) -> Window {
        let Some((range, index)) = &l.range else {
            return Window::default();
        };
        if range.inclusive || range.rev {
            return Window::default();
        }
        let mut window = Window::default();
        window.offsets.insert(*index, 0);
        let mut reads: BTreeMap<Array, Vec<Option<i64>>> = BTreeMap::new();
        let mut excluded: BTreeSet<Array> = BTreeSet::new();
        scan_offsets(&l.body, *index, &mut window, &mut reads, &mut excluded);
        window.invariant = self.invariant_registers(l);
        for (array, offsets) in reads {
            if excluded.contains(&array) || !self.e.activity.is_active_array(array) {
                continue;
            }
            let Some(offsets) = offsets.into_iter().collect::<Option<Vec<i64>>>() else {
                continue;
            };
            let lowest = offsets.iter().min().copied().unwrap_or(0);
            let highest = offsets.iter().max().copied().unwrap_or(0);
            // One offset needs no window (no element is written twice); wide windows are not worth it.
            if highest == lowest || highest - lowest > 4 {
                continue;
            }
            let name = self.e.array_name(array).to_string();
            let registers = (0..=(highest - lowest))
                .map(|k| {
                    self.e
                        .namer
                        .fresh(&format!("__window_{}_{k}", name.trim_start_matches('_')))
                })
                .collect();
            window.arrays.insert(array, (lowest, registers));
        }
        window
    }

    /// The registers of the reads of `l`'s body at an index that is the same in every iteration
    /// (`Window::invariant`): loads, unconditional at the top of the body, of an active array that
    /// nothing in the loop writes, at a constant or at a value defined before the loop. One register
    /// per array and index. (Being unconditional, such a load ran whenever the loop did, so the index is
    /// in bounds where the register is added; reads of the same element under a branch of the body
    /// add to the same register.)
    fn invariant_registers(&mut self, l: &Loop) -> Vec<(Array, Operand, Ident)> {
        let inside = defs_within(&Stmt::Loop(Box::new(l.clone())));
        let mut registers: Vec<(Array, Operand, Ident)> = Vec::new();
        for stmt in &l.body.stmts {
            let Stmt::Let {
                value: Value::Load { array, index },
                ..
            } = stmt
            else {
                continue;
            };
            let invariant = match index {
                Operand::Const { .. } => true,
                Operand::Var(v) => !inside.contains(v),
                Operand::Array(_) => false,
            };
            let known = registers
                .iter()
                .any(|(a, i, _)| a == array && i.same_as(index));
            if !invariant
                || known
                || !self.e.activity.is_active_array(*array)
                || super::region::writes_array(&l.body.stmts, *array)
            {
                continue;
            }
            let name = self.e.array_name(*array).to_string();
            let register = self
                .e
                .namer
                .fresh(&format!("__sum_{}", name.trim_start_matches('_')));
            registers.push((*array, index.clone(), register));
        }
        registers
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
        let index = self.e.name(*index).to_token_stream();
        let (start, end) = (self.e.operand(&range.start), self.e.operand(&range.end));
        let at = |base: &TokenStream, offset: i64| -> TokenStream {
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
    /// The counters of `l` (see `Counter`): its inactive integer carried values whose next value is
    /// `phi + step` or `phi - step`, computed in the body (not under a branch), in a loop that runs every
    /// iteration to its end.
    fn counters(&mut self, l: &Loop) -> BTreeMap<Var, Counter> {
        let mut counters = BTreeMap::new();
        if l.exit_flag.is_some() {
            return counters;
        }
        let inside = defs_within(&Stmt::Loop(Box::new(l.clone())));
        for (phi, yielded) in l.phis.iter().zip(&l.body.yields) {
            if self.e.activity.is_active_var(*phi)
                || !matches!(self.e.activity.var_kind(*phi), crate::ir::Kind::Int)
            {
                continue;
            }
            let Some(next) = yielded.var() else { continue };
            let base = format!(
                "__counter_{}",
                self.e.name(*phi).to_string().trim_start_matches('_')
            );
            if let Some(inner) = self.finished_counters.get(&next).cloned() {
                let starts_from_phi = l.body.stmts.iter().any(|s| match s {
                    Stmt::Loop(inner) => inner
                        .outs
                        .iter()
                        .zip(&inner.inits)
                        .any(|(out, init)| *out == next && init.var() == Some(*phi)),
                    _ => false,
                });
                if starts_from_phi {
                    let name = self.e.namer.fresh(&base);
                    let update = Update::Chained { out: next, inner };
                    counters.insert(*phi, Counter { name, update });
                    continue;
                }
            }
            let update = l.body.stmts.iter().find_map(|s| match s {
                Stmt::Let {
                    var,
                    value: Value::Binary(op, a, b),
                } if *var == next => Some((op, a, b)),
                _ => None,
            });
            let (added, step) = match update {
                Some((syn::BinOp::Add(_), Operand::Var(a), b)) if a == phi => (true, b),
                Some((syn::BinOp::Add(_), a, Operand::Var(b))) if b == phi => (true, a),
                Some((syn::BinOp::Sub(_), Operand::Var(a), b)) if a == phi => (false, b),
                _ => continue,
            };
            let step_var = match step {
                Operand::Const { .. } => None,
                Operand::Var(v) if !inside.contains(v) && v != phi => Some(*v),
                _ => continue,
            };
            let update = Update::Step {
                step: self.e.operand(step),
                step_var,
                added,
            };
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

/// Finds, in a loop body over `index`, the index values at constant offsets (`i + 1`, `i - 2`), the
/// offsets at which each array is read unconditionally (`None` for any other index), and the arrays that
/// get no window: written ones, and those read in a nested loop or under a branch.
fn scan_offsets(
    block: &Block,
    index: Var,
    window: &mut Window,
    reads: &mut BTreeMap<Array, Vec<Option<i64>>>,
    excluded: &mut BTreeSet<Array>,
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                var,
                value: Value::Binary(op, Operand::Var(i), Operand::Const { tokens, .. }),
            } if *i == index => {
                let constant = syn::parse2::<syn::LitInt>(tokens.clone())
                    .ok()
                    .and_then(|l| l.base10_parse::<i64>().ok());
                match (op, constant) {
                    (syn::BinOp::Add(_), Some(c)) => {
                        window.offsets.insert(*var, c);
                    }
                    (syn::BinOp::Sub(_), Some(c)) => {
                        window.offsets.insert(*var, -c);
                    }
                    _ => {}
                }
            }
            Stmt::Let {
                value: Value::Load { array, index: at },
                ..
            } => {
                let offset = at.var().and_then(|v| window.offsets.get(&v).copied());
                reads.entry(*array).or_default().push(offset);
            }
            Stmt::Store { array, .. } | Stmt::Push { array, .. } | Stmt::NewArray { array, .. } => {
                excluded.insert(*array);
            }
            Stmt::CallOut { .. } => excluded.extend(stmt.written_arrays()),
            _ => {}
        }
        // Reads in a nested loop are its own; reads under a branch may not happen for every index (a guard
        // `if i + 1 < n`), and the window writes every element back: neither gets a window.
        for inner in stmt.blocks() {
            let mut nested = Window {
                offsets: window.offsets.clone(),
                ..Window::default()
            };
            let mut nested_reads = BTreeMap::new();
            scan_offsets(inner, index, &mut nested, &mut nested_reads, excluded);
            excluded.extend(nested_reads.into_keys());
        }
    }
}

/// The values defined anywhere inside `stmt` (its nested blocks, a loop's carried values and index).
fn defs_within(stmt: &Stmt) -> BTreeSet<Var> {
    let mut defs = BTreeSet::new();
    if let Stmt::Loop(l) = stmt {
        defs.extend(l.phis.iter().copied());
        defs.extend(l.range.as_ref().map(|(_, i)| *i));
    }
    for block in stmt.blocks() {
        for inner in &block.stmts {
            defs.extend(inner.defs());
            defs.extend(defs_within(inner));
        }
    }
    defs
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
