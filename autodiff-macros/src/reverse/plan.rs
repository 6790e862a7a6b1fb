//! The plan of the reverse sweep: which shortcuts it takes, decided from the intermediate form and the
//! activity before anything is emitted. The emitters of `reverse.rs` and its modules follow it.
//!
//! Per loop: whether its reverse is fused into its forward sweep, runs forwards or backwards, which reads
//! get a sliding window of registers or a register for an index the same in every iteration, and which
//! integer counters the reverse sweep recovers by undoing their updates. Per value of a region (a branch
//! or a loop body), where the region's adjoint reads it: recomputed there, stored once before its loop
//! (hoisted), read from a copy of its array stored whole once per iteration (`ArraySnapshot`), or else
//! stored by the forward sweep at each definition. Per call: whether its adjoint adds
//! into the caller's buffers (`vjp_into`) or its gradient is stored at the call. Per array element
//! increment `a[k] += w`: whether its reverse leaves the element's adjoint in place.
//!
//! The reference adjoint (`Shortcuts::NONE`) has the empty plan: every loop reversed backwards, one
//! iteration at a time, every value a region's adjoint reads stored, every call through `vjp`.
//!
//! ```text
//! // Input:                               // Plan, Shortcuts::ALL:
//! let mut s = 0.0;                        loop __i: fused, window x[__i..=__i + 1]
//! for i in 0..x.len() - 1 {               // Plan, Shortcuts::NONE:
//!     let t = x[i + 1] - x[i] * x[i];     loop __i: backwards
//!     let u = 1.0 - x[i];
//!     s += t * 100.0 * t + u.exp();
//! }
//! s
//!
//! // Input:                               // Plan, Shortcuts::ALL (x[i] and the product recomputed
//! let mut p = 1.0;                        // where read, the sin stored):
//! for i in 0..x.len() {                   loop __i: backwards
//!     p = p * x[i].sin();                   recompute __v1, p_1
//! }
//! p
//! ```
//!
//! What the plan cannot know before emission is which values a region's adjoint reads: that depends on
//! the derivative rules. So a value's entry says what to do if it is read, and a loop planned to run
//! forwards does so only when its reverse pops no tape and recovers no counter, which the emitter sees.

use super::call_gradient::{linear_check, scalar_calls};
use super::increments::increments;
use super::loops::loop_defs;
use super::region::{unsafe_reads, writes_array};
use super::Shortcuts;
use crate::activity::Activity;
use crate::ir::{
    Array, ArrayInit, Block, CallSite, Function, Kind, Loop, Operand, Stmt, Value, Var,
};
use std::collections::{BTreeMap, BTreeSet};

/// Can the call with `args` add its cotangents straight into the caller's adjoints (`vjp_into`)? When
/// each differentiated argument is a float or an array, no array twice (its buffer is lent to the callee
/// once), and none a matrix (whose cotangent comes in its shape, not into a flat buffer).
pub(crate) fn adds_into_callers(f: &Function, activity: &Activity, args: &[Operand]) -> bool {
    let mut arrays = BTreeSet::new();
    let matrix =
        |a: &Operand| matches!(a, Operand::Array(a) if f.arrays[a.0 as usize].matrix.is_some());
    if args.iter().any(matrix) {
        return false;
    }
    args.iter()
        .filter(|a| activity.is_active(a))
        .all(|arg| match arg {
            Operand::Var(v) => matches!(activity.var_kind(*v), Kind::Float(_)),
            Operand::Array(array) => arrays.insert(*array),
            _ => false,
        })
}

#[cfg(test)]
mod print;

/// The decisions of the reverse sweep (see the module's documentation).
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// Per loop, by its trip-count value.
    pub(crate) loops: BTreeMap<Var, LoopPlan>,
    /// The values of regions recomputed in the reverse of their region where its adjoint reads them
    /// (a `let`, or the outs of a pure `if` or `match`).
    pub(crate) recomputed: BTreeSet<Var>,
    /// Loads stored once before their loop (by value, with that loop's trip count) instead of once per
    /// iteration: every iteration reads the same element, which the code after the loop overwrites.
    pub(crate) hoisted: BTreeMap<Var, Var>,
    /// The calls whose adjoint takes a shortcut; any other call's adjoint goes through its companion's
    /// `vjp`.
    pub(crate) calls: BTreeMap<CallSite, CallPlan>,
    /// The increments `a[k] += w` (`increments.rs`) whose reverse leaves the element's adjoint in place:
    /// the stored value, and `w`.
    pub(crate) increments: BTreeMap<Var, Operand>,
    /// The arrays passed to calls that the forward sweep stores as they were at the call (written after
    /// it, or made inside a region): in every plan, the reference's too, since the callee's adjoint reruns
    /// it on them.
    pub(crate) stored_at_calls: BTreeSet<(CallSite, Array)>,
    /// The sub-slices borrowed rather than copied (`views::borrowed_windows`), which the reverse sweep
    /// takes again where it needs them.
    pub(crate) borrowed_windows: BTreeSet<Array>,
    /// The borrowed windows whose adjoint is a view into their source's (`views::window_views`), not a buffer
    /// of their own.
    pub(crate) window_views: BTreeSet<Array>,
    /// The loads that the reverse sweep reads from a copy of their array stored whole (`ArraySnapshot`)
    /// instead of popping one stored value per read, by the load's value.
    pub(crate) array_snapshots: BTreeMap<Var, ArraySnapshot>,
}

/// A local array stored whole by the forward sweep right after the loop `after`, a statement of a loop
/// body that is the last to write the array before the loads that read this copy: nothing writes it
/// between that loop and those loads, all later statements of the same body. The region of that body
/// pops the copy once per reversed iteration, and each load's reverse reads its element from it.
///
/// ```text
/// // Input:                              // Output (forward, then reverse):
/// for ik in 0..k {                       for ik in 0..k {
///     for j in 0..d { c[j] = .. }            for j in 0..d { c[j] = .. }
///     for j in 0..d { y[j] = q * c[j] }      __tape_c_whole.push(&c[..]);
/// }                                          for j in 0..d { y[j] = q * c[j] }
///                                        }
///                                        for ik in (0..k).rev() {
///                                            let __c_stored = __tape_c_whole.pop();
///                                            for j in (0..d).rev() { let __v = __c_stored[j]; .. }
///                                        }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ArraySnapshot {
    pub(crate) array: Array,
    /// The trip-count value of the loop after which the array is stored.
    pub(crate) after: Var,
}

/// How one loop is reversed.
#[derive(Clone, Debug)]
pub(crate) struct LoopPlan {
    /// A `for` over a range with no step and no exit: its reverse iterates the same range. Otherwise the
    /// forward sweep counts the iterations and the reverse recovers each index from its count (`nth`).
    /// Not a shortcut: the reference adjoint does the same.
    pub(crate) direct: bool,
    pub(crate) order: Order,
    /// Each active carried value's adjoint passes through an iteration unchanged (an accumulation,
    /// `s += ..`): the iterations' adjoints commute. See `Planner::accumulates`.
    pub(crate) accumulates: bool,
    pub(crate) window: WindowPlan,
    /// The counters of the loop (`loops::Counter`), by carried value.
    pub(crate) counters: BTreeMap<Var, CounterPlan>,
    /// The arrays whose adjoints the reversed loop adds through a mutable view (`views::adjoint_views`).
    pub(crate) adjoint_views: Vec<Array>,
}

/// The order of a loop's reversed iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// One at a time, last first.
    Backwards,
    /// First first, as memory is laid out, where the reverse of the body pops no tape and recovers no
    /// counter (the emitter sees that; otherwise backwards).
    Forwards,
    /// Inside the forward sweep, iteration by iteration (`emit::Fused`).
    Fused,
}

/// The registers of a loop's reads (`loops::Window`), before they are named.
#[derive(Clone, Debug, Default)]
pub(crate) struct WindowPlan {
    /// The offset of each index value (`i`, `i + 1`, `i - 2`) from the loop index.
    pub(crate) offsets: BTreeMap<Var, i64>,
    /// Per array read at a few constant offsets from the index: the smallest and the largest.
    pub(crate) arrays: BTreeMap<Array, (i64, i64)>,
    /// The reads at an index the same in every iteration, one register each: array and index.
    pub(crate) invariant: Vec<(Array, Operand)>,
}

/// How a counter's next value is made in an iteration (`loops::Update`, before it is named).
#[allow(clippy::large_enum_variant)] // as `Operand`: one per counter, few and short-lived
#[derive(Clone, Debug)]
pub(crate) enum CounterPlan {
    /// `phi + step` (`added`) or `phi - step`, the step a constant or a value defined before the loop.
    Step { step: Operand, added: bool },
    /// `out`, the out value of an inner loop (a statement of the body) started from the carried value,
    /// whose own counter carries it on: taken where the inner loop's reverse recovered that counter.
    Chained { out: Var },
}

/// The shortcut a call's adjoint takes.
#[derive(Clone, Debug)]
pub(crate) enum CallPlan {
    /// The callee adds its cotangents into the caller's adjoints (`vjp_into`).
    Into,
    /// The forward sweep stores the callee's gradient with respect to these arrays at the call, where
    /// the callee says its adjoint is linear in the cotangent (`call_gradient.rs`); `vjp_into` otherwise.
    StoredGradient(Vec<Array>),
}

impl Plan {
    /// The plan of the reverse sweep of `f` with `shortcuts`.
    pub(crate) fn new(f: &Function, activity: &Activity, shortcuts: Shortcuts) -> Plan {
        let borrowed_windows = if shortcuts.borrowed_windows {
            crate::views::borrowed_windows(f)
        } else {
            BTreeSet::new()
        };
        let (unsafe_reads, stored_at_calls) = unsafe_reads(f, &borrowed_windows);
        let window_views = if shortcuts.window_views {
            crate::views::window_views(f, &borrowed_windows)
        } else {
            BTreeSet::new()
        };
        let mut planner = Planner {
            f,
            activity,
            shortcuts,
            uses: adjoint_uses(f, activity),
            unsafe_reads,
            parent_loops: parent_loops(f),
            plan: Plan {
                increments: if shortcuts.increments {
                    increments(f)
                } else {
                    BTreeMap::new()
                },
                stored_at_calls,
                borrowed_windows,
                window_views,
                ..Plan::default()
            },
        };
        planner.calls();
        planner.block(&f.body, &Context::default());
        planner.plan
    }

    /// The loop with trip count `trips`.
    pub(crate) fn of_loop(&self, trips: Var) -> &LoopPlan {
        &self.loops[&trips]
    }
}

/// What the walk knows of the region around a block.
#[derive(Clone, Default)]
struct Context<'l> {
    /// The block is in a loop (its body, or a branch in it).
    in_loop: bool,
    /// The block is a region: a branch or a loop body, whose reverse recomputes or pops what it reads.
    region: bool,
    /// The block is the body of this loop.
    body_of: Option<&'l Loop>,
}

struct Planner<'f> {
    f: &'f Function,
    activity: &'f Activity,
    shortcuts: Shortcuts,
    /// How many times each value is read where the read may send it an adjoint (`adjoint_uses`).
    uses: BTreeMap<Var, usize>,
    /// Loads and lengths of arrays written after them (`region::unsafe_reads`).
    unsafe_reads: BTreeSet<Var>,
    /// The loops that are statements of the body of a loop nested in another loop, with that loop.
    parent_loops: BTreeMap<Var, Var>,
    plan: Plan,
}

impl<'f> Planner<'f> {
    /// Plans the loops and region values of `block`, whose surroundings are `cx`.
    fn block(&mut self, block: &'f Block, cx: &Context<'f>) {
        // A fused loop's reverse reads its forward sweep's values in place: nothing to decide.
        let fused_body = cx
            .body_of
            .is_some_and(|l| self.plan.loops[&l.trips].order == Order::Fused);
        if cx.body_of.is_some() && !fused_body && self.shortcuts.array_snapshots {
            self.array_snapshots(block);
        }
        for (at, stmt) in block.stmts.iter().enumerate() {
            if cx.region && !fused_body {
                self.region_value(stmt, block, cx);
            }
            match stmt {
                Stmt::Loop(l) => {
                    // A statement of the function body, with the statements after it.
                    let top_level = (!cx.region).then(|| &block.stmts[at + 1..]);
                    let loop_plan = self.loop_(l, top_level);
                    self.plan.loops.insert(l.trips, loop_plan);
                    let mut inner = cx.clone();
                    inner.in_loop = true;
                    inner.region = true;
                    inner.body_of = Some(l);
                    self.block(&l.body, &inner);
                }
                Stmt::If { .. } | Stmt::Match { .. } => {
                    let inner = Context {
                        region: true,
                        body_of: None,
                        ..cx.clone()
                    };
                    for arm in stmt.blocks() {
                        self.block(arm, &inner);
                    }
                }
                _ => {}
            }
        }
    }

    /// Decides how the reverse of the region `block` gets the values `stmt` defines, where it reads
    /// them: a load stored once before its loop, recomputed, or (not in the plan) stored.
    fn region_value(&mut self, stmt: &Stmt, block: &Block, cx: &Context) {
        if !self.shortcuts.recompute {
            return;
        }
        match stmt {
            Stmt::Let { var, .. } if self.plan.array_snapshots.contains_key(var) => {}
            Stmt::Let { var, value } => {
                if let Some(trips) = self.hoisted(*var, value, block, cx) {
                    self.plan.hoisted.insert(*var, trips);
                } else if self.recomputable(*var, value, cx.in_loop) {
                    self.plan.recomputed.insert(*var);
                }
            }
            Stmt::If { outs, .. } | Stmt::Match { outs, .. } if self.is_pure(stmt) => {
                self.plan.recomputed.extend(outs);
            }
            _ => {}
        }
    }

    /// The loop (by trip count) before which the load `var = value` of the loop body `block` is stored
    /// once, if it is: in a loop whose enclosing loop is reversed by `region` (which pops it), a load that
    /// could not be read again in the reverse sweep (the array is written later), at an index defined
    /// before the loop, of an array the loop does not write. (A branch's region is reversed while no loop
    /// body's is, so its loads are never stored so.)
    fn hoisted(&self, var: Var, value: &Value, block: &Block, cx: &Context) -> Option<Var> {
        let l = cx.body_of?;
        let Value::Load { array, index, .. } = value else {
            return None;
        };
        // The values the region defines: its statements', the carried values and the index.
        let defined_here = |v: Var| {
            block.defs().contains(&v)
                || l.phis.contains(&v)
                || l.range.as_ref().is_some_and(|(_, i)| *i == v)
        };
        let wanted = self.parent_loops.contains_key(&l.trips)
            && self.unsafe_reads.contains(&var)
            && index.var().is_none_or(|i| !defined_here(i))
            && !writes_array(&block.stmts, *array);
        wanted.then_some(l.trips)
    }

    /// Finds the loads of the loop body `block` that read a copy of their array stored whole
    /// (`ArraySnapshot`): loads the reverse sweep cannot repeat (the array is written later), nested in
    /// a loop of a statement of `block` that does not write the array, of a local float array that a
    /// loop among the statements before writes whole (so a copy costs no more than that loop did), the
    /// copy taken after the last statement before that writes the array, which must be a loop; and
    /// only where the copy is read more than once per element.
    fn array_snapshots(&mut self, block: &Block) {
        let mut copies: BTreeMap<ArraySnapshot, Vec<(Var, usize)>> = BTreeMap::new();
        for (at, stmt) in block.stmts.iter().enumerate() {
            let mut loads = Vec::new();
            nested_loads(stmt, 0, &mut loads);
            for (var, array, depth) in loads {
                if !self.unsafe_reads.contains(&var)
                    || !self.snapshot_candidate(array)
                    || writes_array(std::slice::from_ref(stmt), array)
                {
                    continue;
                }
                let before = &block.stmts[..at];
                let Some(last) = before
                    .iter()
                    .rposition(|s| writes_array(std::slice::from_ref(s), array))
                else {
                    continue;
                };
                let Stmt::Loop(writer) = &before[last] else {
                    continue;
                };
                let whole = before[..=last]
                    .iter()
                    .any(|s| matches!(s, Stmt::Loop(l) if self.writes_whole(l, array)));
                if whole {
                    let copy = ArraySnapshot {
                        array,
                        after: writer.trips,
                    };
                    copies.entry(copy).or_default().push((var, depth));
                }
            }
        }
        // Worth a copy where the array's elements are read more than once per copy: by two loads, or by
        // one in nested loops. One load in one loop reads each element once, and storing those values one
        // by one costs less than the copy (`cargo bench --bench counts -- gmm`: GMM's `q_centered`, read
        // once by `Σ y²`, cost d = 2 8 % more instructions as a copy).
        for (copy, loads) in copies {
            if loads.len() >= 2 || loads.iter().any(|(_, depth)| *depth >= 2) {
                for (var, _) in loads {
                    self.plan.array_snapshots.insert(var, copy);
                }
            }
        }
    }

    /// Can `array` be stored whole (`ArraySnapshot`)? A local array of floats (not a parameter, a
    /// matrix or a borrowed sub-slice).
    fn snapshot_candidate(&self, array: Array) -> bool {
        let info = &self.f.arrays[array.0 as usize];
        info.param.is_none()
            && info.matrix.is_none()
            && !self.plan.borrowed_windows.contains(&array)
            && matches!(self.activity.elem_kind(array), Kind::Float(_))
    }

    /// Does the loop `l` write every element of `array`: `for j in 0..n` with no step and no exit, its
    /// body storing `array[j]` unconditionally, `n` the array's length (`vec![v; n]`, `[v; n]`, or
    /// `n = array.len()`)?
    fn writes_whole(&self, l: &Loop, array: Array) -> bool {
        let Some((range, index)) = &l.range else {
            return false;
        };
        let from_zero = matches!(&range.start, Operand::Const { tokens, .. }
            if syn::parse2::<syn::LitInt>(tokens.clone())
                .is_ok_and(|n| n.base10_parse::<u64>().is_ok_and(|n| n == 0)));
        let plain = from_zero
            && !range.inclusive
            && !range.rev
            && range.step.is_none()
            && l.exit_flag.is_none();
        let stores_each = l.body.stmts.iter().any(|s| {
            matches!(s, Stmt::Store { array: a, index: Operand::Var(i), .. } if *a == array && i == index)
        });
        let length = self.f.all_stmts().into_iter().any(|s| match s {
            Stmt::NewArray {
                array: a,
                init: ArrayInit::Repeat { len, .. },
            } => *a == array && len.same_as(&range.end),
            Stmt::Let {
                var,
                value: Value::Len(a),
            } => *a == array && range.end.var() == Some(*var),
            _ => false,
        });
        plain && stores_each && length
    }

    /// Can the reverse sweep compute `var = value` again? Not a read of an array written later; and in a
    /// loop, not a transcendental function: storing 8 bytes costs less than an `exp` (the softmax
    /// gradient spent a third of its reverse sweep on them).
    fn recomputable(&self, var: Var, value: &Value, in_loop: bool) -> bool {
        let stored_in_loop = in_loop && costly(self.f, value);
        !self.unsafe_reads.contains(&var) && !stored_in_loop
    }

    /// Can `stmt` be recomputed in the reverse sweep: no memory writes, no loops, no unsafe reads?
    fn is_pure(&self, stmt: &Stmt) -> bool {
        match stmt {
            Stmt::Let { var, .. } => !self.unsafe_reads.contains(var),
            Stmt::If { .. } | Stmt::Match { .. } => stmt
                .blocks()
                .iter()
                .all(|b| b.stmts.iter().all(|s| self.is_pure(s))),
            _ => false,
        }
    }

    /// The plan of loop `l`; `top_level`: a statement of the function body, with the statements after it.
    fn loop_(&self, l: &Loop, top_level: Option<&[Stmt]>) -> LoopPlan {
        let direct =
            l.exit_flag.is_none() && l.range.as_ref().is_some_and(|(r, _)| r.step.is_none());
        let window = if direct && self.shortcuts.window {
            self.window(l)
        } else {
            WindowPlan::default()
        };
        let accumulates = self.accumulates(l);
        let fused = top_level.is_some_and(|after| self.fusable(l, after));
        let order = if self.shortcuts.fuse && direct && accumulates && fused {
            Order::Fused
        } else if self.shortcuts.forward_order
            && direct
            && accumulates
            && window.arrays.is_empty()
            && !self.writes_active_arrays(&l.body)
        {
            Order::Forwards
        } else {
            Order::Backwards
        };
        let counters = if self.shortcuts.recompute && order != Order::Fused {
            self.counters(l)
        } else {
            BTreeMap::new()
        };
        // Not where the window's registers add into the same buffer inside the loop, nor in a loop
        // reversed inside its forward sweep (which has no views).
        let adjoint_views = if self.shortcuts.adjoint_views && order != Order::Fused {
            let registers: BTreeSet<Array> = window
                .arrays
                .keys()
                .copied()
                .chain(window.invariant.iter().map(|(a, _)| *a))
                .collect();
            crate::views::adjoint_views(self.f, l, &|a| {
                self.activity.is_active_array(a) && !registers.contains(&a)
            })
        } else {
            Vec::new()
        };
        LoopPlan {
            direct,
            order,
            accumulates,
            window,
            counters,
            adjoint_views,
        }
    }

    /// Does the adjoint of each active carried value of `l` pass through an iteration unchanged? So it
    /// does when the value is carried by sums alone: its phi's one use that may send it an adjoint is
    /// `w = phi + o` (or `o + phi`, `phi - o`, `phi % o`, `*phi`) at the top of the body, `w`'s is the
    /// same in turn, and the last is yielded for the phi and read nowhere else. Each of these passes the
    /// adjoint it receives on as it is, the reverse sweep binds no new name for it, and the carried
    /// adjoint is the same at the end of a reversed iteration as at its start.
    fn accumulates(&self, l: &Loop) -> bool {
        l.phis.iter().zip(&l.body.yields).all(|(phi, yielded)| {
            !self.activity.is_active_var(*phi)
                || yielded
                    .var()
                    .is_some_and(|y| self.passes_unchanged(*phi, y, &l.body))
        })
    }

    /// Does the adjoint of `to` reach `from` unchanged, through sums at the top of `block` (see
    /// `accumulates`), each value on the way, `to` included, read once where it may get an adjoint?
    fn passes_unchanged(&self, from: Var, to: Var, block: &Block) -> bool {
        let mut at = from;
        loop {
            if self.uses.get(&at) != Some(&1) {
                return false;
            }
            if at == to {
                return true;
            }
            let next = block.stmts.iter().find_map(|s| match s {
                Stmt::Let { var, value } if self.activity.is_active_var(*var) => {
                    passes_on(value, at).then_some(*var)
                }
                _ => None,
            });
            match next {
                Some(next) => at = next,
                None => return false,
            }
        }
    }

    /// Is the adjoint of each out of the loop `l` of the function body known before the loop runs? So it
    /// is where the out is passed on unchanged to the result (the output cotangent) or nothing may send
    /// it one (none).
    fn known_after(&self, l: &Loop) -> bool {
        let returned = self
            .f
            .returned()
            .var()
            .filter(|r| self.activity.is_active_var(*r));
        l.outs.iter().all(|out| {
            !self.activity.is_active_var(*out)
                || !self.uses.contains_key(out)
                || returned.is_some_and(|r| self.passes_unchanged(*out, r, &self.f.body))
        })
    }

    /// Can the reverse of `l`, a loop of the function body that runs its range to the end and whose
    /// carried adjoints do not change from one iteration to the next, run inside its forward sweep? When
    /// each carried value's adjoint after it is known before it runs (`known_after`), and each active
    /// array it reads or writes is one whose adjoint an iteration's reverse leaves as the next needs it
    /// (`fusable_array`; `after`: the statements of the function body after the loop). Then the order of
    /// the iterations does not matter.
    fn fusable(&self, l: &Loop, after: &[Stmt]) -> bool {
        let mut arrays: BTreeSet<Array> = BTreeSet::new();
        let mut ok = true;
        let mut stack: Vec<&Block> = vec![&l.body];
        while let Some(block) = stack.pop() {
            for stmt in &block.stmts {
                // Active arrays made or filled in the loop have adjoint buffers of their own per region,
                // and the buffers a call writes have their adjoints replaced, in order. An inactive array
                // made in the loop (a row of data lent to a call) has no adjoint: the reverse reads the
                // forward sweep's, still in scope.
                match stmt {
                    Stmt::NewArray { array, .. }
                    | Stmt::Push { array, .. }
                    | Stmt::Truncate { array, .. }
                        if !self.activity.is_active_array(*array) => {}
                    Stmt::NewArray { .. }
                    | Stmt::Push { .. }
                    | Stmt::Truncate { .. }
                    | Stmt::CallOut { .. } => ok = false,
                    _ => {}
                }
                arrays.extend(mentioned_arrays(stmt));
                stack.extend(stmt.blocks());
            }
        }
        ok && self.known_after(l)
            && arrays
                .into_iter()
                .filter(|a| self.activity.is_active_array(*a))
                .all(|a| self.fusable_array(l, a, after))
    }

    /// Does the reverse of each iteration of `l`, run right after its forward sweep, leave the adjoint
    /// of the active `array` as the reverse of the code around the loop expects it?
    ///
    /// - An input parameter: its adjoint only accumulates, in any order.
    /// - A local array the loop reads and does not write: likewise, if nothing after the loop writes it
    ///   (the reverse of such a write would take the loop's contributions, which the forward sweep has
    ///   already added, for the new value's). Its adjoint buffer is declared before the loop.
    /// - A local array the loop writes, made before it with the length of a loop at the top of the body
    ///   that writes each element before anything in the body reads one (`writes_whole`): each
    ///   iteration reads only what it wrote, so its reverse ends with the adjoint back at zero. Nothing
    ///   after the loop may read the array (the adjoint of what the last iteration left would come from
    ///   the code after, whose reverse runs later).
    ///
    /// Not an output parameter or the returned array (their adjoints start as cotangents), nor an array
    /// made by a call or pushed to (its length would not be known before the loop).
    fn fusable_array(&self, l: &Loop, array: Array, after: &[Stmt]) -> bool {
        let info = &self.f.arrays[array.0 as usize];
        if info.output || info.matrix.is_some() || self.plan.borrowed_windows.contains(&array) {
            return false;
        }
        if info.param.is_some() {
            return true;
        }
        let made_plainly = self.f.body.stmts.iter().any(|s| {
            matches!(s, Stmt::NewArray { array: a, init: ArrayInit::Repeat { .. } } if *a == array)
        });
        let pushed = self
            .f
            .all_stmts()
            .into_iter()
            .any(|s| matches!(s, Stmt::Push { array: a, .. } | Stmt::Truncate { array: a, .. } if *a == array));
        // A returned array's adjoint starts as the output cotangent.
        let returned = matches!(self.f.returned(), Operand::Array(a) if *a == array);
        if !made_plainly || pushed || returned {
            return false;
        }
        if !writes_array(&l.body.stmts, array) {
            return !writes_array(after, array);
        }
        if reads_array(after, array) {
            return false;
        }
        self.written_before_read(&l.body.stmts, array)
    }

    /// Is every element of `array` that `stmts` read written by them before? So it is where the first
    /// statement to touch the array is a loop that writes it whole reading none of it
    /// (`writes_whole`); or a loop, the only statement to touch it, of whose body this holds. Its
    /// length is no touch: `for j in 0..c.len()` reads it just before the writer.
    fn written_before_read(&self, stmts: &[Stmt], array: Array) -> bool {
        let touches = |s: &Stmt| {
            !matches!(
                s,
                Stmt::Let {
                    value: Value::Len(_),
                    ..
                }
            ) && (mentioned_arrays(s).contains(&array) || nested_mentions(s, array))
        };
        let Some(at) = stmts.iter().position(touches) else {
            return true;
        };
        let Stmt::Loop(w) = &stmts[at] else {
            return false;
        };
        let cond_reads = w
            .cond
            .as_ref()
            .is_some_and(|c| mentions_array(&c.stmts, array));
        if cond_reads {
            return false;
        }
        if self.writes_whole(w, array) && !reads_array(&w.body.stmts, array) {
            return true;
        }
        !stmts[at + 1..].iter().any(touches) && self.written_before_read(&w.body.stmts, array)
    }

    /// Does `block` write an active array anywhere? (The reverse of a write reads and clears the
    /// element's adjoint, so iterations that write must be reversed in order.)
    fn writes_active_arrays(&self, block: &Block) -> bool {
        block.stmts.iter().any(|stmt| {
            let direct = match stmt {
                Stmt::Store { array, .. }
                | Stmt::Push { array, .. }
                | Stmt::Truncate { array, .. }
                | Stmt::NewArray { array, .. } => self.activity.is_active_array(*array),
                Stmt::CallOut { .. } => stmt
                    .written_arrays()
                    .iter()
                    .any(|a| self.activity.is_active_array(*a)),
                _ => false,
            };
            direct || stmt.blocks().iter().any(|b| self.writes_active_arrays(b))
        })
    }

    /// The sliding windows of a loop reversed by iterating its range `a..b`: for each active array it only
    /// reads (never writes), at offsets `i + c` from the index; and the registers of its invariant reads.
    fn window(&self, l: &Loop) -> WindowPlan {
        let Some((range, index)) = &l.range else {
            return WindowPlan::default();
        };
        if range.inclusive || range.rev {
            return WindowPlan::default();
        }
        let mut window = WindowPlan::default();
        window.offsets.insert(*index, 0);
        let mut reads: BTreeMap<Array, Vec<Option<i64>>> = BTreeMap::new();
        let mut excluded: BTreeSet<Array> = BTreeSet::new();
        scan_offsets(&l.body, *index, &mut window, &mut reads, &mut excluded);
        window.invariant = self.invariant_reads(l);
        for (array, offsets) in reads {
            if excluded.contains(&array) || !self.activity.is_active_array(array) {
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
            window.arrays.insert(array, (lowest, highest));
        }
        window
    }

    /// The reads of `l`'s body at an index that is the same in every iteration (`Window::invariant`):
    /// loads, unconditional at the top of the body, of an active array that nothing in the loop writes,
    /// at a constant or at a value defined before the loop. One register per array and index. (Being
    /// unconditional, such a load ran whenever the loop did, so the index is in bounds where the register
    /// is added; reads of the same element under a branch of the body add to the same register.)
    fn invariant_reads(&self, l: &Loop) -> Vec<(Array, Operand)> {
        let inside = loop_defs(l);
        let mut reads: Vec<(Array, Operand)> = Vec::new();
        for stmt in &l.body.stmts {
            let Stmt::Let {
                value: Value::Load { array, index, .. },
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
            let known = reads.iter().any(|(a, i)| a == array && i.same_as(index));
            if invariant
                && !known
                && self.activity.is_active_array(*array)
                && !writes_array(&l.body.stmts, *array)
            {
                reads.push((*array, index.clone()));
            }
        }
        reads
    }

    /// The counters of `l` (`loops::Counter`): its inactive integer carried values whose next value is
    /// `phi + step` or `phi - step`, computed in the body (not under a branch), or the out of an inner
    /// loop that counts on from the phi, in a loop that runs every iteration to its end.
    fn counters(&self, l: &Loop) -> BTreeMap<Var, CounterPlan> {
        let mut counters = BTreeMap::new();
        if l.exit_flag.is_some() {
            return counters;
        }
        let inside = loop_defs(l);
        for (phi, yielded) in l.phis.iter().zip(&l.body.yields) {
            if self.activity.is_active_var(*phi)
                || !matches!(self.activity.var_kind(*phi), Kind::Int)
            {
                continue;
            }
            let Some(next) = yielded.var() else { continue };
            // The out of an inner loop started from the phi, where the inner loop has a counter there.
            let chained = l.body.stmts.iter().any(|s| match s {
                Stmt::Loop(inner) => inner.outs.iter().zip(&inner.inits).zip(&inner.phis).any(
                    |((out, init), inner_phi)| {
                        *out == next
                            && init.var() == Some(*phi)
                            && self.counters(inner).contains_key(inner_phi)
                    },
                ),
                _ => false,
            });
            if chained {
                counters.insert(*phi, CounterPlan::Chained { out: next });
                continue;
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
            match step {
                Operand::Const { .. } => {}
                Operand::Var(v) if !inside.contains(v) && v != phi => {}
                _ => continue,
            }
            let step = step.clone();
            counters.insert(*phi, CounterPlan::Step { step, added });
        }
        counters
    }

    /// Plans the calls of the function: `vjp_into` where each differentiated argument is a float or an
    /// array passed once, a stored gradient where the call's value is a float and each differentiated
    /// argument an array that the forward sweep would store at the call anyway.
    fn calls(&mut self) {
        let scalar = scalar_calls(self.f, self.activity);
        for stmt in self.f.all_stmts() {
            let (site, callee, args) = match stmt {
                Stmt::Let {
                    var,
                    value: Value::Call { callee, args, .. },
                } => (CallSite::Value(*var), callee, args),
                Stmt::NewArray {
                    array,
                    init: ArrayInit::Call { callee, args, .. },
                } => (CallSite::Array(*array), callee, args),
                _ => continue,
            };
            // A call whose callee may have no derivatives (`maybe.rs`) runs its `vjp_into` only where it
            // has them: never its gradient stored at the call, always `vjp_into` (which it was chosen for).
            let maybe = match site {
                CallSite::Value(var) => self.activity.is_maybe_call(var),
                CallSite::Array(array) => self.activity.is_maybe_array(array),
            };
            if maybe {
                self.plan.calls.insert(site, CallPlan::Into);
                continue;
            }
            if !self.shortcuts.call_into || !self.adds_into_callers(args) {
                continue;
            }
            let plan = match self.stored_gradient(site, callee, args, &scalar) {
                Some(arrays) => CallPlan::StoredGradient(arrays),
                None => CallPlan::Into,
            };
            self.plan.calls.insert(site, plan);
        }
    }

    fn adds_into_callers(&self, args: &[Operand]) -> bool {
        adds_into_callers(self.f, self.activity, args)
    }

    /// The arrays whose gradient the forward sweep stores at the call `site` with `args`, if it stores
    /// the call's gradient: a call whose value is one float (`scalar`), each differentiated argument an
    /// array (a slice or `Vec`, passed once) that joint mode would store at the call because it is
    /// written after.
    fn stored_gradient(
        &self,
        site: CallSite,
        callee: &syn::ExprPath,
        args: &[Operand],
        scalar: &BTreeSet<Var>,
    ) -> Option<Vec<Array>> {
        let CallSite::Value(var) = site else {
            return None;
        };
        if !self.shortcuts.call_gradient || !scalar.contains(&var) || linear_check(callee).is_none()
        {
            return None;
        }
        let mut arrays = Vec::new();
        for arg in args.iter().filter(|a| self.activity.is_active(a)) {
            match arg {
                Operand::Array(array)
                    if !self.f.arrays[array.0 as usize].fixed
                        && self.plan.stored_at_calls.contains(&(site, *array)) =>
                {
                    arrays.push(*array)
                }
                _ => return None,
            }
        }
        (!arrays.is_empty()).then_some(arrays)
    }
}

/// The loads nested in `stmt` (in one of its blocks, at any depth) that are inside a loop's body, in
/// `depth` loops where `stmt` is: value, array, and the number of loops around the load.
fn nested_loads(stmt: &Stmt, depth: usize, found: &mut Vec<(Var, Array, usize)>) {
    match stmt {
        Stmt::Let {
            var,
            value: Value::Load { array, .. },
        } if depth > 0 => found.push((*var, *array, depth)),
        // A `while` condition's loads are left alone: only a loop's body.
        Stmt::Loop(l) => {
            for inner in &l.body.stmts {
                nested_loads(inner, depth + 1, found);
            }
        }
        _ => {
            for block in stmt.blocks() {
                for inner in &block.stmts {
                    nested_loads(inner, depth, found);
                }
            }
        }
    }
}

/// Does `value` pass the adjoint it receives on to its operand `v` as it is (a partial of one)?
fn passes_on(value: &Value, v: Var) -> bool {
    let is_v = |o: &Operand| o.var() == Some(v);
    match value {
        Value::Binary(syn::BinOp::Add(_), a, b) => is_v(a) || is_v(b),
        Value::Binary(syn::BinOp::Sub(_) | syn::BinOp::Rem(_), a, _) => is_v(a),
        Value::Unary(syn::UnOp::Deref(_), a) => is_v(a),
        _ => false,
    }
}

/// How many times each value is read where the read may send it an adjoint, as the reverse sweep
/// sends them: by a `let` of a value that may get an adjoint itself (active, and read so in turn: not a
/// comparison, not dead code); by a loop or branch that is reversed (one with such an out, or one that
/// touches an active array), as the init or the yield of a carried value or the yield for such an out; by
/// any other statement, and by the function's result. Counted again with the values so found until
/// nothing changes; a value read nowhere so is not in the map.
fn adjoint_uses(f: &Function, activity: &Activity) -> BTreeMap<Var, usize> {
    struct Count<'a> {
        activity: &'a Activity,
        live: BTreeSet<Var>,
        uses: BTreeMap<Var, usize>,
        /// Whether a value read is live at once, for the statements read after it in the same pass
        /// (which are visited last to first).
        eager: bool,
    }
    impl Count<'_> {
        fn read<'o>(&mut self, operands: impl IntoIterator<Item = &'o Operand>) {
            for v in operands.into_iter().filter_map(Operand::var) {
                *self.uses.entry(v).or_default() += 1;
                if self.eager && self.activity.is_active_var(v) {
                    self.live.insert(v);
                }
            }
        }
        fn block(&mut self, block: &Block) {
            let stmts: Box<dyn Iterator<Item = &Stmt>> = match self.eager {
                true => Box::new(block.stmts.iter().rev()),
                false => Box::new(block.stmts.iter()),
            };
            for stmt in stmts {
                let reversed = |outs: &[Var], live: &BTreeSet<Var>| {
                    outs.iter().any(|o| live.contains(o))
                        || touches_active_arrays(stmt, self.activity)
                };
                match stmt {
                    Stmt::Let { var, value } => {
                        if self.live.contains(var) {
                            self.read(value.operands());
                        }
                    }
                    Stmt::Loop(l) => {
                        if reversed(&l.outs, &self.live) {
                            self.read(&l.inits);
                            self.read(&l.body.yields);
                            self.block(&l.body);
                        }
                    }
                    Stmt::If { outs, .. } | Stmt::Match { outs, .. } => {
                        if reversed(outs, &self.live) {
                            for arm in stmt.blocks() {
                                let yields = arm.yields.iter().zip(outs);
                                let live: Vec<&Operand> = yields
                                    .filter(|(_, out)| self.live.contains(out))
                                    .map(|(y, _)| y)
                                    .collect();
                                self.read(live);
                                self.block(arm);
                            }
                        }
                    }
                    _ => self.read(stmt.operands()),
                }
            }
        }
    }
    // First one pass that makes each value read live at once: a value is live only when a live value (or
    // the result) reads it, so this finds no value the counting below would not, and finds most of them
    // (all but those carried around loops) in one pass rather than one pass per step of each chain of
    // reads. The counting then starts from them.
    let mut count = Count {
        activity,
        live: BTreeSet::new(),
        uses: BTreeMap::new(),
        eager: true,
    };
    count.read(&f.body.yields);
    count.block(&f.body);
    count.eager = false;
    loop {
        count.uses.clear();
        count.read(&f.body.yields);
        count.block(&f.body);
        let live: BTreeSet<Var> = (count.uses.keys().copied())
            .filter(|v| activity.is_active_var(*v))
            .collect();
        if live == count.live {
            return count.uses;
        }
        count.live = live;
    }
}

/// `touches_active_arrays` of the loop statement of `l`, without making one.
pub(super) fn loop_touches_active_arrays(l: &Loop, activity: &Activity) -> bool {
    l.cond
        .iter()
        .chain([&l.body])
        .any(|b| b.stmts.iter().any(|s| touches_active_arrays(s, activity)))
}

/// Does `stmt` read or write an active array (so its reverse matters even with no adjoint on its outs)?
pub(super) fn touches_active_arrays(stmt: &Stmt, activity: &Activity) -> bool {
    let direct = match stmt {
        Stmt::Let {
            value: Value::Load { array, .. },
            ..
        }
        | Stmt::Store { array, .. }
        | Stmt::Push { array, .. }
        | Stmt::Truncate { array, .. }
        | Stmt::NewArray { array, .. } => activity.is_active_array(*array),
        Stmt::CallOut { .. } => stmt
            .written_arrays()
            .iter()
            .any(|a| activity.is_active_array(*a)),
        _ => false,
    };
    direct
        || stmt
            .blocks()
            .iter()
            .any(|b| b.stmts.iter().any(|s| touches_active_arrays(s, activity)))
}

/// The loops that are statements of the body of a loop nested in another loop, with that loop.
fn parent_loops(f: &Function) -> BTreeMap<Var, Var> {
    /// `enclosing`: the loop whose body `block` is, and whether it is a statement of the function body.
    fn walk(block: &Block, enclosing: Option<(Var, bool)>, found: &mut BTreeMap<Var, Var>) {
        for stmt in &block.stmts {
            if let Stmt::Loop(l) = stmt {
                if let Some((parent, false)) = enclosing {
                    found.insert(l.trips, parent);
                }
                walk(&l.body, Some((l.trips, false)), found);
                continue;
            }
            for inner in stmt.blocks() {
                walk(inner, None, found);
            }
        }
    }
    let mut found = BTreeMap::new();
    for stmt in &f.body.stmts {
        if let Stmt::Loop(l) = stmt {
            walk(&l.body, Some((l.trips, true)), &mut found);
        } else {
            for inner in stmt.blocks() {
                walk(inner, None, &mut found);
            }
        }
    }
    found
}

/// Is `value` a transcendental function, or a call lent an array the function made (a row, a sub-slice,
/// a local array), dearer to compute again than to store? Such a callee most likely runs over the array
/// (`predict(w, &xs[k])`: computed again, the callee's loop ran a third time, as its adjoint through
/// `vjp_into` runs it too). A call lent only parameters and floats is computed again: RK4's right-hand
/// side `lotka_volterra(p, u, v)` reads four elements of `p`, and storing its four pairs of results per
/// step cost 19 % more instructions than computing them again (`cargo bench --bench counts -- rk4`).
fn costly(f: &Function, value: &Value) -> bool {
    use crate::ir::FloatFn::*;
    if let Value::Call { args, .. } = value {
        return args.iter().any(|a| match a {
            Operand::Array(array) => f.arrays[array.0 as usize].param.is_none(),
            _ => false,
        });
    }
    matches!(
        value,
        Value::Float {
            func: Sin
                | Cos
                | Tan
                | Asin
                | Acos
                | Atan
                | Sinh
                | Cosh
                | Tanh
                | Asinh
                | Acosh
                | Atanh
                | Exp
                | Exp2
                | ExpM1
                | Ln
                | Log
                | Log2
                | Log10
                | Ln1p
                | Powf
                | Cbrt
                | Hypot
                | Atan2,
            ..
        }
    )
}

/// Finds, in a loop body over `index`, the index values at constant offsets (`i + 1`, `i - 2`), the
/// offsets at which each array is read unconditionally (`None` for any other index), and the arrays that
/// get no window: written ones, and those read in a nested loop or under a branch.
fn scan_offsets(
    block: &Block,
    index: Var,
    window: &mut WindowPlan,
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
                value: Value::Load {
                    array, index: at, ..
                },
                ..
            } => {
                let offset = at.var().and_then(|v| window.offsets.get(&v).copied());
                reads.entry(*array).or_default().push(offset);
            }
            Stmt::Store { array, .. }
            | Stmt::Push { array, .. }
            | Stmt::Truncate { array, .. }
            | Stmt::NewArray { array, .. } => {
                excluded.insert(*array);
            }
            Stmt::CallOut { .. } => excluded.extend(stmt.written_arrays()),
            _ => {}
        }
        // Reads in a nested loop are its own; reads under a branch may not happen for every index (a guard
        // `if i + 1 < n`), and the window writes every element back: neither gets a window.
        for inner in stmt.blocks() {
            let mut nested = WindowPlan {
                offsets: window.offsets.clone(),
                ..WindowPlan::default()
            };
            let mut nested_reads = BTreeMap::new();
            scan_offsets(inner, index, &mut nested, &mut nested_reads, excluded);
            excluded.extend(nested_reads.into_keys());
        }
    }
}

/// The arrays `stmt` itself names (not its nested blocks'): loaded, stored, pushed, made, copied,
/// passed to a call or yielded.
pub(crate) fn mentioned_arrays(stmt: &Stmt) -> Vec<Array> {
    let whole = |o: &Operand| match o {
        Operand::Array(a) => Some(*a),
        _ => None,
    };
    let mut arrays: Vec<Array> = stmt.operands().into_iter().filter_map(whole).collect();
    match stmt {
        Stmt::Let {
            value: Value::Load { array, .. } | Value::Len(array),
            ..
        }
        | Stmt::Store { array, .. }
        | Stmt::Push { array, .. }
        | Stmt::Truncate { array, .. } => arrays.push(*array),
        Stmt::NewArray { array, init } => {
            arrays.push(*array);
            if let ArrayInit::Copy(source) | ArrayInit::Window { source, .. } = init {
                arrays.push(*source);
            }
        }
        _ => {}
    }
    for block in stmt.blocks() {
        arrays.extend(block.yields.iter().filter_map(whole));
    }
    arrays
}

/// Does any statement of `stmts`, or nested in one, name `array`?
pub(super) fn mentions_array(stmts: &[Stmt], array: Array) -> bool {
    stmts
        .iter()
        .any(|s| mentioned_arrays(s).contains(&array) || nested_mentions(s, array))
}

/// Does a statement nested in `stmt` name `array`?
fn nested_mentions(stmt: &Stmt, array: Array) -> bool {
    stmt.blocks().iter().any(|b| {
        b.stmts
            .iter()
            .any(|s| mentioned_arrays(s).contains(&array) || nested_mentions(s, array))
    })
}

/// Does anything in `stmts` read the values of `array` (its length aside): a load, a copy, an argument
/// of a call (a call that writes it may read it too), a yielded array?
fn reads_array(stmts: &[Stmt], array: Array) -> bool {
    stmts.iter().any(|stmt| {
        let direct = match stmt {
            Stmt::Let {
                value: Value::Len(_),
                ..
            } => false,
            // The array a statement writes is named as its target; any other mention is a read.
            Stmt::Store { array: a, .. }
            | Stmt::Push { array: a, .. }
            | Stmt::Truncate { array: a, .. }
                if *a == array =>
            {
                false
            }
            Stmt::NewArray { array: a, init } if *a == array => {
                matches!(init, ArrayInit::Copy(s) | ArrayInit::Window { source: s, .. } if *s == array)
            }
            _ => mentioned_arrays(stmt).contains(&array),
        };
        direct || stmt.blocks().iter().any(|b| reads_array(&b.stmts, array))
    })
}
