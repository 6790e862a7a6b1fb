//! Reverse mode: emits `f_vjp`, the forward sweep followed by the adjoint sweep.
//!
//! The forward sweep is the primal code, pruned to what the result and the adjoints read. Because every
//! value is named once, straight-line code needs no storage: the adjoint sweep reads the primal values from
//! their locals. Adjoints are immutable too: a value's adjoint is created by its first contribution and each
//! further one makes a new name (`let __d_x_1 = __d_x + ..`), so a value nothing flows back to gets no code.
//!
//! Code inside an `if` or a loop body (a region) runs again in the reverse sweep, where the forward
//! region's locals are out of scope. Each value that the region's adjoint reads is either recomputed there
//! (pure arithmetic of values still available, loads of arrays that nothing writes afterwards, the loop
//! index) or, when it cannot be (a loop's carried value at the start of an iteration, a value read from an
//! array that is written later), pushed on a tape by the forward sweep and popped by the reverse: Tapenade's
//! "store only what the reverse sweep reads and the forward sweep destroys". A loop that only accumulates
//! (`s += x[i] * y[i]`) stores nothing.
//!
//! ```text
//! // Input:                          // Output (reverse sweep):
//! let y = if c { x * x } else { x }; let __d_x = if c {
//!                                        let __d_x = __d_y * x; __d_x + __d_y * x
//!                                    } else { __d_y };
//! for i in 0..n { s += x[i] * w; }   let mut __d_s = ..; let mut __d_w = 0.0;
//!                                    for __t in (0..__trips).rev() {
//!                                        let i = nth(0..n, __t);
//!                                        __d_x[i] = __d_x[i] + __d_s * w;
//!                                        __d_w = __d_w + __d_s * x[i];
//!                                    }
//! ```

use crate::emit::{concat, tuple_or_single, Emitter, Mode, Recorder, Tokens};
use crate::ir::{Array, ArrayInit, Block, CallSite, Kind, Operand, Stmt, Value, Var, Written};
use crate::naming;
use crate::rules;
use crate::signature::Signature;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet};

pub(crate) mod call_gradient;
mod increments;
mod loops;
pub(crate) mod plan;
pub(crate) use plan::adds_into_callers;
mod readers;
mod region;

pub(crate) use loops::loop_defs;
use loops::Window;
use plan::{CallPlan, Plan};
use region::top_level_arrays;
pub(crate) use region::{unsized_region_arrays, writes_array};

/// The current adjoint of each value that has one (an identifier).
type Adjoints = BTreeMap<Var, TokenStream>;

struct Reverse<'e, 'a> {
    e: &'e mut Emitter<'a>,
    /// The adjoint buffer of each array the reverse sweep touches.
    array_adjoints: BTreeMap<Array, Ident>,
    /// For arrays filled by `push`: a counter of the pushes not yet reversed.
    push_counters: BTreeMap<Array, Ident>,
    /// The shortcuts the reverse sweep takes, decided before it is emitted.
    plan: Plan,
    /// The array returned by the function, whose adjoint starts as `d_ret`.
    returned_array: Option<(Array, TokenStream)>,
    /// For each loop being reversed, innermost last: its sliding windows (see `Window`).
    windows: Vec<Window>,
    /// While a loop's body is reversed: its integer counters that the reverse sweep recovers by undoing
    /// their updates (`loops::Counter`), by carried value.
    counters: BTreeMap<Var, loops::Counter>,
    /// The counters of `counters` that the reversed body read.
    counters_used: BTreeSet<Var>,
    /// The counters of the loops reversed so far, by the loop's out value: after the loop's reverse, the
    /// counter holds the counter's value before the loop.
    finished_counters: BTreeMap<Var, Ident>,
    /// Loads stored once before their loop starts (`Emitter::hoisted`): the loop and the tape, by value;
    /// the region of the loop around popped them.
    hoisted_here: BTreeMap<Var, (Var, Ident)>,
    /// The tuple adjoints made by `contribute_component` (bound once, by name): which of their components
    /// are known to be zero.
    zero_components: BTreeMap<String, Vec<bool>>,
    /// The components of each tuple adjoint made by `contribute_component`, by name, with its `let` as
    /// printed: the next contribution to the same tuple, where that `let` is still the last statement,
    /// replaces it (`let d = (a, b);` instead of `let d0 = (0.0, b); let d = (a, d0.1);`).
    tuple_parts: BTreeMap<String, (String, Vec<TokenStream>)>,
    /// While a loop's body is reversed: the increments of its reads through a mutable view of an adjoint
    /// buffer (`LoopPlan::adjoint_views`), by the read's value, and whether one was printed.
    adjoint_reads: BTreeMap<Var, (TokenStream, bool)>,
    /// The arrays stored whole (`plan::ArraySnapshot`) whose copies the reverse of a region read and the
    /// region that stores them has not lent back yet.
    snapshots_used: BTreeSet<plan::ArraySnapshot>,
    /// The names of those copies in the reverse sweep.
    copy_names: BTreeMap<plan::ArraySnapshot, Ident>,
    /// The local arrays whose adjoint buffers are declared before a fused loop (`Order::Fused`) that adds
    /// to them, not after the forward sweep: by the first such loop's trip count.
    early_buffers: BTreeMap<Array, Var>,
}

/// The shortcuts of the reverse sweep, each exact under the condition the plan checks (`plan.rs`), which
/// takes them where they apply before the sweep is emitted. The reference adjoint (the
/// `reference-adjoint` feature of `autodiff`) takes none of them, its plan is empty: every value a
/// region's adjoint reads is stored by the forward sweep, loops are reversed backwards one iteration at a
/// time, and array adjoints are accumulated element by element. The optimised adjoint is tested against
/// it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shortcuts {
    /// Recompute pure values in the reverse sweep instead of storing them.
    pub(crate) recompute: bool,
    /// Run the reverse of an accumulation loop inside its forward sweep.
    pub(crate) fuse: bool,
    /// Accumulate the adjoints of `x[i + c]` in registers (`Window`).
    pub(crate) window: bool,
    /// Reverse a loop whose iterations commute by running them forwards.
    pub(crate) forward_order: bool,
    /// A call's adjoint adds its cotangents into the caller's adjoints (`vjp_into`) instead of returning
    /// them in fresh buffers (`vjp`).
    pub(crate) call_into: bool,
    /// A call with a float value stores its gradient at the call instead of running its forward code
    /// again in the reverse sweep (`call_gradient.rs`).
    pub(crate) call_gradient: bool,
    /// The reverse of an increment `a[k] += w` leaves the element's adjoint in place
    /// (`increments.rs`).
    pub(crate) increments: bool,
    /// A reversed loop adds the adjoints of its reads through a view into the adjoint buffer, a mutable
    /// sub-slice taken before the loop (`views::adjoint_views`), as the forward sweep reads the array.
    pub(crate) adjoint_views: bool,
    /// Sub-slices of arrays nothing writes are borrowed, not copied, and taken again in the reverse sweep
    /// instead of stored at the calls they are lent to (`views::borrowed_windows`).
    pub(crate) borrowed_windows: bool,
    /// Inactive matrix parameters used only through their rows are read in place, not flattened into a
    /// copy (`views::in_place_matrices`).
    pub(crate) in_place_matrices: bool,
    /// A local array written whole in a loop body and read by the body's later loops is stored whole
    /// once, and the reverse reads those elements from the copy (`plan::ArraySnapshot`), instead of
    /// storing each value read.
    pub(crate) array_snapshots: bool,
    /// The adjoint of a row or sub-slice that is the only use of a parameter is a view into the
    /// parameter's adjoint, not a zeroed buffer of its own added into it where its region ends
    /// (`views::window_views`).
    pub(crate) window_views: bool,
}

impl Shortcuts {
    /// Every shortcut: the adjoint users get.
    pub(crate) const ALL: Shortcuts = Shortcuts {
        recompute: true,
        fuse: true,
        window: true,
        forward_order: true,
        call_into: true,
        call_gradient: true,
        increments: true,
        adjoint_views: true,
        borrowed_windows: true,
        in_place_matrices: true,
        array_snapshots: true,
        window_views: true,
    };
    /// None: the reference adjoint.
    pub(crate) const NONE: Shortcuts = Shortcuts {
        recompute: false,
        fuse: false,
        window: false,
        forward_order: false,
        call_into: false,
        call_gradient: false,
        increments: false,
        adjoint_views: false,
        borrowed_windows: false,
        in_place_matrices: false,
        array_snapshots: false,
        window_views: false,
    };

    /// The shortcuts of this build of the macro: none under the `reference-adjoint` feature.
    pub(crate) fn of_build() -> Shortcuts {
        if cfg!(feature = "reference-adjoint") {
            Shortcuts::NONE
        } else {
            Shortcuts::ALL
        }
    }
}

/// Where the reverse sweep leaves the gradient.
#[derive(Clone, Copy)]
pub(crate) enum GradientOut<'g> {
    /// Returned with the value: `(value, gradient)`.
    Returned,
    /// Written into buffers the caller owns, one per active parameter (`&mut T` for a float, `&mut [T]` for
    /// an array); the value alone is returned. Nothing is allocated for the gradient.
    Into(&'g [Ident]),
    /// As `Into`, for `f_grad_into` of a function of parameter structs
    /// (`structs::Flattened::sweep_into_fields`): a float field's adjoint is bound to its buffer's name
    /// (`let __grad___m_b = adjoint;`, `()` where no adjoint reached it: its type is the sweep's, which
    /// may not be the field's), and the code `then`, which adds those into the caller's structs, runs
    /// after the stores.
    IntoFields(&'g [Ident], &'g TokenStream),
}

/// The body of `f_vjp`: given the cotangent `d_ret` of the result, returns `(value, gradient)`, or writes the
/// gradient into the buffers of `out`.
pub(crate) fn vjp_body(
    e: &mut Emitter,
    sig: &Signature,
    d_ret: &Ident,
    out: GradientOut,
) -> TokenStream {
    vjp_body_with(e, sig, d_ret, out, Shortcuts::of_build())
}

/// [`vjp_body`] with the given shortcuts: over a copy of the function that reads the inactive matrices
/// read by element in place (`matrix_reads.rs`), if there are any.
fn vjp_body_with(
    e: &mut Emitter,
    sig: &Signature,
    d_ret: &Ident,
    out: GradientOut,
    shortcuts: Shortcuts,
) -> TokenStream {
    let copy = shortcuts
        .in_place_matrices
        .then(|| crate::matrix_reads::read_in_place(e))
        .flatten();
    match copy {
        Some((f, in_place)) => e.over(&f, &in_place, |e| sweep(e, sig, d_ret, out, shortcuts)),
        None => sweep(e, sig, d_ret, out, shortcuts),
    }
}

/// The reverse sweep of [`vjp_body_with`], over `e`'s function.
fn sweep(
    e: &mut Emitter,
    sig: &Signature,
    d_ret: &Ident,
    out: GradientOut,
    shortcuts: Shortcuts,
) -> TokenStream {
    let f = e.f;
    let returned = f.returned().clone();
    let plan = Plan::new(f, e.activity, shortcuts);
    e.borrowed_windows = plan.borrowed_windows.clone();
    if shortcuts.in_place_matrices {
        e.read_matrices_in_place();
    }
    let mut rev = Reverse {
        e,
        array_adjoints: BTreeMap::new(),
        push_counters: BTreeMap::new(),
        plan,
        returned_array: None,
        windows: Vec::new(),
        counters: BTreeMap::new(),
        counters_used: BTreeSet::new(),
        finished_counters: BTreeMap::new(),
        hoisted_here: BTreeMap::new(),
        zero_components: BTreeMap::new(),
        tuple_parts: BTreeMap::new(),
        adjoint_reads: BTreeMap::new(),
        snapshots_used: BTreeSet::new(),
        copy_names: BTreeMap::new(),
        early_buffers: BTreeMap::new(),
    };
    let mut adjoints = Adjoints::new();
    let mut seeded = false;
    match &returned {
        Operand::Var(var) if rev.e.activity.is_active_var(*var) => {
            adjoints.insert(*var, d_ret.to_token_stream());
            seeded = true;
        }
        Operand::Array(array) if rev.e.activity.is_active_array(*array) => {
            rev.returned_array = Some((*array, d_ret.to_token_stream()));
            rev.array_adjoint(*array);
            seeded = true;
        }
        _ => {}
    }
    let mut code = Vec::new();
    let mut refs = BTreeSet::new();
    rev.block(&f.body, &mut adjoints, &mut code, &mut refs);
    refs.extend(returned.var());
    rev.declare_early_buffers();
    let (primal, _) = rev.e.primal(&f.body, &refs, Mode::Sweep);
    let param_array = |i: usize| {
        f.arrays
            .iter()
            .position(|a| a.param == Some(i))
            .map(|a| Array(a as u32))
    };
    // The gradient of each active parameter: the adjoint buffer of an array, the adjoint of a float.
    let mut gradients = Vec::new();
    let mut into_buffers = Vec::new();
    let mut declared = BTreeSet::new();
    let mut stores = Vec::new();
    let active = f
        .params
        .iter()
        .zip(&sig.params)
        .enumerate()
        .filter(|(_, (_, p))| p.active);
    for (k, (i, (var, p))) in active.enumerate() {
        let name = &p.ident;
        let target = match out {
            GradientOut::Into(buffers) | GradientOut::IntoFields(buffers, _) => Some(&buffers[k]),
            GradientOut::Returned => None,
        };
        match (p.array, target) {
            (Some(shape), None) => {
                let flat = match param_array(i).and_then(|a| rev.array_adjoints.get(&a)) {
                    Some(buffer) => buffer.to_token_stream(),
                    None if p.output => {
                        let (label, d) = (name.to_string(), naming::output_cotangent(name));
                        quote!(::autodiff::__private::output_cotangent(#label, #d, &#name[..]))
                    }
                    // A struct's field that no adjoint reached: its struct adds nothing (`structs.rs`).
                    None if p.field => quote!(()),
                    // A matrix read in place (`views::in_place_matrices`): `#name` is the matrix, not
                    // its flat copy.
                    None if shape.matrix
                        && param_array(i).is_some_and(|a| rev.e.in_place.contains(&a)) =>
                    {
                        let matrix = naming::matrix(name);
                        quote!(::autodiff::__private::zeros_like(&::autodiff::__private::flatten(&#matrix)))
                    }
                    None => quote!(::autodiff::__private::zeros_like(&#name)),
                };
                // A matrix's flat adjoint, in the matrix's shape; a float output's, its one element.
                gradients.push(if p.scalar {
                    quote!(#flat[0])
                } else if shape.matrix {
                    let matrix = naming::matrix(name);
                    quote!(::autodiff::__private::unflatten_like(&#matrix, &#flat))
                } else if p.output && matches!(p.grad_ty, syn::Type::Array(_)) {
                    // An output's adjoint is a `Vec`; its gradient in `f_vjp` is `[T; N]`.
                    quote!(::autodiff::__private::call_cotangent(&#flat[..]))
                } else {
                    flat
                });
            }
            (Some(_), Some(target)) => {
                let label = name.to_string();
                let zeroed =
                    quote!(::autodiff::__private::gradient_buffer(#label, #target, &#name));
                let array = param_array(i);
                // An output parameter's gradient (of its incoming value) starts as its cotangent.
                let start = |buffer: TokenStream| {
                    p.output.then(|| {
                        let d = naming::output_cotangent(name);
                        quote!(::autodiff::__private::add_output_cotangent(#label, #buffer, #d, &#name[..]);)
                    })
                };
                match array.and_then(|a| rev.array_adjoints.get(&a)) {
                    Some(buffer) => {
                        declared.extend(array);
                        into_buffers.push(quote!(let mut #buffer = #zeroed;));
                        into_buffers.extend(start(quote!(&mut #buffer[..])));
                        // A returned parameter's adjoint starts as the output cotangent.
                        if let Some((returned, d)) = &rev.returned_array {
                            if Some(*returned) == array {
                                into_buffers.push(quote!(::autodiff::__private::accumulate(
                                    #buffer,
                                    &::autodiff::__private::cotangent("d_ret", #d, &#name),
                                );));
                            }
                        }
                    }
                    None => into_buffers.push(start(zeroed.clone()).unwrap_or(quote!(#zeroed;))),
                }
            }
            (None, Some(target)) if p.field && matches!(out, GradientOut::IntoFields(..)) => {
                let adjoint = adjoints.remove(var).unwrap_or_else(|| quote!(()));
                stores.push(quote!(let #target = #adjoint;));
            }
            (None, target) => {
                let adjoint = adjoints.remove(var).unwrap_or_else(|| match p.kind {
                    // A struct, or a struct's field, that no adjoint reached: nothing to add (`structs.rs`).
                    Kind::Struct(_) => quote!(()),
                    _ if p.field => quote!(()),
                    _ => Emitter::zero_of(&p.kind),
                });
                match target {
                    Some(target) => stores.push(quote!(*#target = #adjoint;)),
                    None => gradients.push(adjoint),
                }
            }
        }
    }
    let value = rev.e.operand(&returned);
    let result = match out {
        GradientOut::Returned => {
            let gradient = tuple_or_single(gradients);
            quote!((#value, #gradient))
        }
        // A function returning `()` (its results in output parameters) ends with its stores.
        GradientOut::IntoFields(_, then) => {
            stores.push(then.clone());
            if !matches!(sig.ret_kind, Kind::Unit) {
                stores.push(value.into_token_stream());
            }
            concat(stores)
        }
        GradientOut::Into(_) if matches!(sig.ret_kind, Kind::Unit) => concat(stores),
        GradientOut::Into(_) => concat(
            stores
                .into_iter()
                .chain([value.into_token_stream()])
                .collect(),
        ),
    };
    let unused = (!seeded).then(|| quote!(let _ = #d_ret;));
    let items = rev.e.items();
    let deref = sig.deref_scalars(&rev.e.in_place_names());
    let tapes = rev.e.tape_declarations();
    let readers = readers::readers(&rev.e.tapes_read_back());
    let (param_buffers, buffers) = rev.buffer_declarations(&declared);
    let mut all = vec![items, deref, unused.unwrap_or_default(), tapes];
    all.extend(into_buffers);
    all.extend([param_buffers, primal, buffers, readers]);
    all.extend(code);
    all.push(result);
    concat(all)
}

impl Reverse<'_, '_> {
    /// The adjoint buffer of `array`, declared once after the forward sweep.
    /// The counter of the pushes to `array` the reverse sweep has still to undo: its length there.
    fn push_counter(&mut self, array: Array) -> Ident {
        if let Some(c) = self.push_counters.get(&array) {
            return c.clone();
        }
        let base = format!("__pushed_{}", self.e.array_name(array));
        let c = self.e.namer.fresh(&base);
        self.push_counters.insert(array, c.clone());
        c
    }

    fn array_adjoint(&mut self, array: Array) -> Ident {
        if let Some(name) = self.array_adjoints.get(&array) {
            return name.clone();
        }
        let base = naming::adjoint_base(&self.e.array_name(array).to_string());
        let name = self.e.namer.fresh(&base);
        self.array_adjoints.insert(array, name.clone());
        name
    }

    /// Declares the adjoint buffers of `early_buffers` before the first fused loop that adds to each.
    fn declare_early_buffers(&mut self) {
        for (array, trips) in &self.early_buffers {
            let buffer = &self.array_adjoints[array];
            let name = self.e.array_name(*array).clone();
            if let Some(fused) = self.e.fused.get_mut(trips) {
                let declaration =
                    quote!(let mut #buffer = ::autodiff::__private::zeros_like(&#name););
                fused.before = concat(vec![declaration, std::mem::take(&mut fused.before)]);
            }
        }
    }

    /// The declarations of the array adjoints and push counters.
    /// The declarations of the adjoint buffers of the parameters (before the forward sweep, which a fused
    /// loop writes them in), and of the other arrays with the push counters (after it).
    /// The buffers of `declared` are the caller's, declared by `vjp_body`.
    fn buffer_declarations(&self, declared: &BTreeSet<Array>) -> (TokenStream, TokenStream) {
        let mut params = Vec::new();
        let mut code = Vec::new();
        let top_level = top_level_arrays(self.e.f);
        for (array, buffer) in &self.array_adjoints {
            // An array made inside a branch or loop body has its buffer declared in that region's
            // reverse (`region`), fresh for each iteration.
            if !top_level.contains(array) {
                continue;
            }
            if declared.contains(array) || self.early_buffers.contains_key(array) {
                continue;
            }
            let name = self.e.array_name(*array);
            let init = match &self.returned_array {
                Some((returned, d_ret)) if returned == array => {
                    quote!(::autodiff::__private::cotangent("d_ret", #d_ret, &#name))
                }
                // An output parameter's adjoint starts as its cotangent.
                _ if self.e.f.arrays[array.0 as usize].output => {
                    let (label, d) = (name.to_string(), naming::output_cotangent(name));
                    quote!(::autodiff::__private::output_cotangent(#label, #d, &#name[..]))
                }
                _ => quote!(::autodiff::__private::zeros_like(&#name)),
            };
            let declaration = quote!(let mut #buffer = #init;);
            if self.e.f.arrays[array.0 as usize].param.is_some() {
                params.push(declaration);
            } else {
                code.push(declaration);
            }
        }
        for (array, counter) in &self.push_counters {
            // An array made inside a branch or loop body has its counter declared with its buffer.
            if !top_level.contains(array) {
                continue;
            }
            let name = self.e.array_name(*array);
            code.push(quote!(let mut #counter = #name.len();));
        }
        (concat(params), concat(code))
    }

    /// Is `o` the value of a call (`let v = g(..);`)?
    fn is_call_result(&self, o: &Operand) -> bool {
        o.var().is_some_and(|v| {
            self.e
                .f
                .all_stmts()
                .into_iter()
                .any(|s| matches!(s, Stmt::Let { var, value: Value::Call { .. } } if *var == v))
        })
    }

    /// Adds `contribution` to the adjoint of `target`.
    fn contribute(
        &mut self,
        target: &Operand,
        contribution: TokenStream,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
    ) {
        let Some(var) = target.var().filter(|v| self.e.activity.is_active_var(*v)) else {
            return;
        };
        let is_name = naming::is_name(&contribution);
        let value = match (adjoints.get(&var), self.e.activity.var_kind(var)) {
            // A struct's adjoint is a struct of its type (`Differentiable`). A callee that gives none
            // (`()`, a method without `wrt(self)`) is the one error of the call's forward mode
            // (`DifferentiatedSlot`): here its `()` is read as a zero, so as not to say it twice.
            (None, Kind::Struct(ty)) => {
                let name = self.e.adjoint_name(var);
                let primal = self.e.operand(target);
                // A field passed on whole is a reference to the field, whose type (`_` here) the
                // reference gives (a `[f64; 2]` field's cotangent from a callee of a slice is a `Vec`).
                let primal = match self.e.is_whole_field(target) {
                    true => quote!(&*#primal),
                    false => quote!(::core::borrow::Borrow::borrow(&#primal)),
                };
                code.push(quote! {
                    let #name: #ty = ::autodiff::__private::struct_cotangent(#contribution, #primal);
                });
                adjoints.insert(var, name.to_token_stream());
                return;
            }
            (None, _) if is_name => {
                adjoints.insert(var, contribution);
                return;
            }
            (None, _) => contribution,
            // A tuple's adjoint is a tuple: added component by component.
            (Some(previous), Kind::Tuple(kinds)) => {
                let contribution = if is_name {
                    contribution
                } else {
                    let name = self.e.namer.fresh("__contribution");
                    code.push(quote!(let #name = #contribution;));
                    name.to_token_stream()
                };
                add_tuples(kinds, previous, &contribution)
            }
            // A field passed on whole again: its callee's cotangent as the field's type, as for the first
            // (a `[f64; 2]` field's from a callee of a slice is a `Vec`: rustc's E0308 in `add_struct`
            // before, `tests/probe31.rs`, `array_field_passed_twice`).
            (Some(previous), Kind::Struct(_)) if self.e.is_whole_field(target) => {
                let primal = self.e.operand(target);
                quote!(::autodiff::__private::add_struct(
                    #previous,
                    &::autodiff::__private::struct_cotangent(#contribution, &*#primal),
                ))
            }
            (Some(previous), Kind::Struct(_)) => {
                quote!(::autodiff::__private::add_struct(#previous, &#contribution))
            }
            // A value of a type the syntax does not settle (`let oc = sub(o, c);` passed whole to two
            // calls), whose cotangents are both a callee's (names: an arithmetic contribution is a
            // float's): a float, an array or a tuple, which method resolution tells apart (`+` of two
            // `[f64; 3]` was rustc's E0369).
            (Some(previous), Kind::Unknown) if is_name => quote!({
                use ::autodiff::__private::{AddArrayCotangents as _, AddScalarCotangents as _, AddTupleCotangents as _};
                ::autodiff::__private::Cotangents(#previous, #contribution).add_cotangents()
            }),
            // `a + -b` is `a - b` (IEEE 754 defines the subtraction so), as one would write it.
            (Some(previous), _) => match negated_name(&contribution) {
                Some(negated) => quote!(#previous - #negated),
                None => quote!(#previous + #contribution),
            },
        };
        let name = self.e.adjoint_name(var);
        code.push(quote!(let #name = #value;));
        adjoints.insert(var, name.to_token_stream());
    }

    /// Adds `d` to component `index` of the adjoint of the tuple `target` (the adjoint of `target.index`);
    /// `refs` gets `target` where its value gives a component's type.
    /// The first contribution makes the tuple with zeros in the other components; a component still known
    /// to be zero is replaced by a later contribution rather than added to, because the compiler may not
    /// fold `0.0 + x` (it is `+0.0` where `x` is `-0.0`).
    ///
    /// ```text
    /// // Input:                  // Output (reverse sweep):
    /// let a = t.0;               let __d_t = (0.0, __d_b);
    /// let b = t.1;               let __d_t_1 = (__d_a, __d_t.1);   // was (__d_t.0 + __d_a, __d_t.1 + 0.0)
    ///                            // and where nothing came between the two: let __d_t_1 = (__d_a, __d_b);
    /// ```
    fn contribute_component(
        &mut self,
        target: &Operand,
        kinds: &[Kind],
        (index, d): (usize, &TokenStream),
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let Some(var) = target.var().filter(|v| self.e.activity.is_active_var(*v)) else {
            return;
        };
        let d = if naming::is_name(d) {
            d.clone()
        } else {
            let name = self.e.namer.fresh("__contribution");
            code.push(quote!(let #name = #d;));
            name.to_token_stream()
        };
        let primal = self.e.operand(target);
        let previous = adjoints.get(&var).cloned();
        let mut zeros = match &previous {
            None => vec![true; kinds.len()],
            Some(previous) => (self.zero_components.get(&previous.to_string()).cloned())
                .unwrap_or_else(|| vec![false; kinds.len()]),
        };
        // The previous tuple's `let`, if it is the last statement printed (nothing read it since): its
        // components are taken as they are and the `let` dropped.
        let previous_parts = previous.as_ref().and_then(|previous| {
            let (printed, parts) = self.tuple_parts.get(&previous.to_string())?;
            let last = code.last()?.to_string();
            (last == *printed && parts.len() == kinds.len()).then(|| parts.clone())
        });
        if previous_parts.is_some() {
            code.pop();
        }
        let parts = kinds.iter().enumerate().map(|(i, kind)| {
            let i_index = syn::Index::from(i);
            let component = match &previous_parts {
                Some(parts) => parts[i].clone(),
                None => previous
                    .as_ref()
                    .map(|p| quote!(#p.#i_index))
                    .unwrap_or_default(),
            };
            match &previous {
                _ if i == index && zeros[i] => d.clone(),
                Some(_) if i == index => match kind {
                    Kind::Tuple(inner) => add_tuples(inner, &quote!((#component)), &d),
                    _ => quote!(#component + #d),
                },
                Some(_) => component,
                // The type of this component is rustc's to know: take it from the value, which the
                // reverse sweep then reads (a call's result: the call runs again).
                None if matches!(kind, Kind::Unknown) => {
                    refs.insert(var);
                    quote!(::autodiff::__private::zero_like(&#primal.#i_index))
                }
                None => Emitter::zero_of(kind),
            }
        });
        let parts: Vec<TokenStream> = parts.collect();
        let value = quote!((#(#parts,)*));
        zeros[index] = false;
        let name = self.e.adjoint_name(var);
        let printed = quote!(let #name = #value;);
        self.tuple_parts
            .insert(name.to_string(), (printed.to_string(), parts));
        code.push(printed);
        self.zero_components.insert(name.to_string(), zeros);
        adjoints.insert(var, name.to_token_stream());
    }

    /// Emits the adjoint of `block`'s statements, last first. `refs` collects the primal values it reads.
    fn block(
        &mut self,
        block: &Block,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        for stmt in block.stmts.iter().rev() {
            match stmt {
                Stmt::Let { var, value } => {
                    if let Some(d) = adjoints.remove(var) {
                        self.value(*var, value, &d, adjoints, code, refs);
                    }
                }
                Stmt::If { cond, outs, .. }
                | Stmt::Match {
                    scrutinee: cond,
                    outs,
                    ..
                } => self.branches(stmt, cond, outs, adjoints, code, refs),
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    if !self.e.activity.is_active_array(*array) {
                        continue;
                    }
                    let buffer = self.array_adjoint(*array);
                    let index_tokens = self.e.operand(index);
                    // `a[k] += w`: the element's adjoint is unchanged, and `w` gets it.
                    if let Some(w) = value
                        .var()
                        .and_then(|v| self.plan.increments.get(&v))
                        .cloned()
                    {
                        if w.var().is_some_and(|w| self.e.activity.is_active_var(w)) {
                            refs.extend(index.var());
                            let d = self.e.namer.fresh("__d_increment");
                            code.push(quote!(let #d = #buffer[#index_tokens];));
                            self.contribute(&w, d.to_token_stream(), adjoints, code);
                        }
                        continue;
                    }
                    refs.extend(index.var());
                    if let Some(var) = value.var().filter(|v| self.e.activity.is_active_var(*v)) {
                        let d = self.e.adjoint_name(var);
                        code.push(quote!(let #d = #buffer[#index_tokens];));
                        self.contribute(value, d.to_token_stream(), adjoints, code);
                    }
                    // The element was overwritten: its old value gets nothing from what came after.
                    code.push(
                        quote!(#buffer[#index_tokens] = ::autodiff::__private::Zero::zero();),
                    );
                }
                Stmt::Push { array, value, .. } => {
                    // Every push to an active array moves its counter back, that of a constant too
                    // (`s.push(v); s.push(1.0);`): the slot of each active value is its own.
                    if !self.e.activity.is_active_array(*array) {
                        continue;
                    }
                    let buffer = self.array_adjoint(*array);
                    let counter = self.push_counter(*array);
                    code.push(quote!(#counter -= 1;));
                    if !truncated(self.e.f, *array) {
                        self.contribute(value, quote!(#buffer[#counter]), adjoints, code);
                        continue;
                    }
                    // A slot that a `pop` gave back is pushed to again: the adjoint of the value pushed
                    // is the slot's since, and the value popped before gets nothing of it.
                    let d = self.e.namer.fresh("__d_pushed");
                    code.push(quote! {
                        let #d = #buffer[#counter];
                        #buffer[#counter] = ::autodiff::__private::Zero::zero();
                    });
                    self.contribute(value, d.to_token_stream(), adjoints, code);
                }
                // `v.pop()` read `v[len]` and left `len` elements: its reverse gives the slot back,
                // adjoint zero (the read's reverse, next, adds into it), and the pushes before it count
                // down from there.
                Stmt::Truncate { array, len } => {
                    if !self.e.activity.is_active_array(*array) {
                        continue;
                    }
                    let buffer = self.array_adjoint(*array);
                    refs.extend(len.var());
                    let len = self.e.operand(len);
                    code.push(quote!(::autodiff::__private::grow_to(&mut #buffer, #len + 1);));
                    if pushed(self.e.f, *array) {
                        let counter = self.push_counter(*array);
                        code.push(quote!(#counter = #len + 1;));
                    }
                }
                Stmt::NewArray { array, init } => {
                    if !self.e.activity.is_active_array(*array) {
                        continue;
                    }
                    let buffer = self.array_adjoint(*array);
                    match init {
                        ArrayInit::Repeat { value, .. } => self.contribute(
                            value,
                            quote!(::autodiff::__private::sum(&#buffer)),
                            adjoints,
                            code,
                        ),
                        ArrayInit::Elements { items, .. } => {
                            for (i, item) in items.iter().enumerate() {
                                self.contribute(item, quote!(#buffer[#i]), adjoints, code);
                            }
                        }
                        ArrayInit::Empty { .. } => {}
                        ArrayInit::Call {
                            callee,
                            args,
                            by_ref,
                        } => {
                            // A top-level array's buffer has the call's type (`zeros_like`); one made
                            // in a loop or branch body is a `Vec`, which the callee may take as `[T; N]`.
                            let d = if region::top_level_arrays(self.e.f).contains(array) {
                                quote!(::core::clone::Clone::clone(&#buffer))
                            } else {
                                quote!(::autodiff::__private::call_cotangent(&#buffer))
                            };
                            let site = CallSite::Array(*array);
                            self.call_adjoint(site, callee, args, by_ref, &d, adjoints, code, refs);
                        }
                        ArrayInit::Copy(source) => {
                            if self.e.activity.is_active_array(*source) {
                                let source_buffer = self.array_adjoint(*source);
                                code.push(quote!(::autodiff::__private::accumulate(&mut #source_buffer[..], &#buffer);));
                            }
                        }
                        // The window's adjoint flows back into the same window of the source's.
                        // A view into the source's adjoint has added there already (`views::window_views`).
                        ArrayInit::Window { source, range, .. } => {
                            if self.e.activity.is_active_array(*source)
                                && !self.plan.window_views.contains(array)
                            {
                                let source_buffer = self.array_adjoint(*source);
                                let bounds = range.start.iter().chain(range.end.iter());
                                refs.extend(bounds.filter_map(Operand::var));
                                let range = self.e.window(range);
                                code.push(quote!(::autodiff::__private::accumulate(&mut #source_buffer[#range], &#buffer);));
                            }
                        }
                    }
                }
                Stmt::Loop(l) => self.loop_(l, adjoints, code, refs),
                Stmt::CallOut { var, .. } => {
                    let d = adjoints.remove(var);
                    let written_active = stmt
                        .written_arrays()
                        .iter()
                        .any(|a| self.e.activity.is_active_array(*a));
                    if d.is_some() || written_active {
                        self.call_out_adjoint(stmt, d, adjoints, code, refs);
                    }
                }
            }
        }
    }

    /// Sends the adjoint `d` of `var = value` to the operands.
    fn value(
        &mut self,
        var: Var,
        value: &Value,
        d: &TokenStream,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let activity = self.e.activity;
        match value {
            Value::Cast(o, target) => {
                let contribution = match activity.kind(o) {
                    Kind::Float(Some(ty)) => crate::emit::convert(
                        d.clone(),
                        &activity.kind_of_type(target),
                        &Kind::Float(Some(ty.clone())),
                        &ty,
                    ),
                    // A call's result, of a float type the macro does not see, cast to `f32` or `f64`
                    // (`wide(x as f64) as f32` in an `f32` function): its adjoint is converted back to
                    // the type the callee's cotangent has, which the compiler infers from that slot;
                    // `as _` between equal types is the identity.
                    Kind::Float(None)
                        if crate::integer_fields::is_float_type(target)
                            && self.is_call_result(o) =>
                    {
                        quote!((#d as _))
                    }
                    _ => d.clone(),
                };
                self.contribute(o, contribution, adjoints, code);
            }
            Value::Tuple(items) => {
                for (i, item) in items.iter().enumerate() {
                    let index = syn::Index::from(i);
                    self.contribute(item, quote!(#d.#index), adjoints, code);
                }
            }
            Value::Field(o, index) => {
                if let Kind::Tuple(kinds) = activity.kind(o) {
                    let component = (*index as usize, d);
                    self.contribute_component(o, &kinds, component, adjoints, code, refs);
                }
            }
            Value::Call {
                callee,
                args,
                by_ref,
            } => self.call_adjoint(
                CallSite::Value(var),
                callee,
                args,
                by_ref,
                d,
                adjoints,
                code,
                refs,
            ),
            Value::Load { array, index, .. } => {
                let window = self.windows.last().and_then(|w| {
                    let offset = w.offsets.get(&index.var()?)?;
                    let (lowest, registers) = w.arrays.get(array)?;
                    Some(registers[(offset - lowest) as usize].clone())
                });
                let invariant = self.windows.last().and_then(|w| {
                    let found = w
                        .invariant
                        .iter()
                        .find(|(a, at, _)| a == array && at.same_as(index));
                    found.map(|(.., register)| register.clone())
                });
                if invariant.is_some() {
                    // Read again where the register is added to the array's adjoint, after the loop.
                    refs.extend(index.var());
                }
                let through_view = self.adjoint_reads.get_mut(&var).map(|(element, used)| {
                    *used = true;
                    element.clone()
                });
                if let Some(register) = window.or(invariant) {
                    code.push(quote!(::autodiff::__private::add_to(&mut #register, #d);));
                } else if let Some(element) = through_view {
                    code.push(quote!(::autodiff::__private::add_to(&mut #element, #d);));
                } else if activity.is_active_array(*array) {
                    let buffer = self.array_adjoint(*array);
                    let index_tokens = self.e.operand(index);
                    refs.extend(index.var());
                    code.push(
                        quote!(::autodiff::__private::add_to(&mut #buffer[#index_tokens], #d);),
                    );
                }
            }
            _ => {
                let operands = value.operands();
                let wanted: Vec<bool> = operands.iter().map(|o| activity.is_active(o)).collect();
                if !wanted.iter().any(|w| *w) {
                    return;
                }
                let rule = rules::rule(
                    value,
                    &wanted,
                    &mut Recorder {
                        emitter: self.e,
                        result: var,
                        refs,
                    },
                );
                code.extend(rule.prelude);
                for ((operand, partial), wanted) in
                    operands.into_iter().zip(&rule.partials).zip(&wanted)
                {
                    if let (Some(partial), true) = (partial, wanted) {
                        self.contribute(operand, partial.apply(d), adjoints, code);
                    }
                }
            }
        }
    }

    /// The adjoint of a call of another differentiable function: its companion's `vjp` (joint mode: the
    /// callee runs its forward sweep again), which gives one cotangent per argument. An array argument
    /// written after the call is read back as the forward sweep stored it at the call.
    #[allow(clippy::too_many_arguments)]
    fn call_adjoint(
        &mut self,
        site: CallSite,
        callee: &syn::ExprPath,
        args: &[Operand],
        by_ref: &[bool],
        d: &TokenStream,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let activity = self.e.activity;
        match (site, self.plan.calls.get(&site).cloned()) {
            (CallSite::Value(var), Some(CallPlan::StoredGradient(arrays))) => {
                return self.call_gradient_adjoint(
                    var, callee, &arrays, args, by_ref, d, adjoints, code, refs,
                );
            }
            (_, Some(_)) => {
                return self.call_adjoint_into(site, callee, args, by_ref, d, adjoints, code, refs);
            }
            (_, None) => {}
        }
        let vjp = crate::companion::derivative_through(
            callee,
            "vjp",
            args.len() + 1,
            &activity.checked_positions(args),
        );
        let mut slots = Vec::new();
        let mut contributions = Vec::new();
        for arg in args {
            refs.extend(arg.var());
            if !activity.is_active(arg) {
                slots.push(quote!(_));
                continue;
            }
            let slot = match arg {
                Operand::Var(v) => self.e.adjoint_name(*v),
                _ => self.e.namer.fresh("__d_argument"),
            };
            slots.push(slot.to_token_stream());
            contributions.push((arg.clone(), slot));
        }
        let call_args = self.call_arguments(site, args, by_ref, code);
        code.push(quote!(let (_, (#(#slots,)*)) = #vjp(#(#call_args,)* #d);));
        for (arg, slot) in contributions {
            match arg {
                // A matrix's cotangent comes in its shape: flattened.
                Operand::Array(array) if self.e.is_matrix(&arg) => {
                    let buffer = self.array_adjoint(array);
                    code.push(quote!(::autodiff::__private::accumulate(&mut #buffer[..], &::autodiff::__private::flatten(&#slot));));
                }
                Operand::Array(array) => {
                    let buffer = self.array_adjoint(array);
                    code.push(quote!(::autodiff::__private::accumulate(&mut #buffer[..], &#slot);));
                }
                _ => self.contribute(&arg, slot.to_token_stream(), adjoints, code),
            }
        }
    }

    /// The adjoint of a call through its companion's `vjp_into` (joint mode, as `call_adjoint`): the
    /// callee adds the cotangent of each array argument into the argument's adjoint buffer, and that of
    /// each float argument into a zeroed local, which becomes a contribution to the argument's adjoint.
    /// An argument without an adjoint gets `None` (or `()`, for one that has no cotangent).
    ///
    /// ```text
    /// // Input:                  // Output:
    /// let y = g(&z, a, n);       let mut __d_a = 0.0;
    ///                            let _ = g::vjp_into(&z, a, n, __d_y, (Some(&mut __d_z[..]), Some(&mut __d_a), Default::default()));
    /// ```
    #[allow(clippy::too_many_arguments)]
    fn call_adjoint_into(
        &mut self,
        site: CallSite,
        callee: &syn::ExprPath,
        args: &[Operand],
        by_ref: &[bool],
        d: &TokenStream,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        // A call that only parameters outside `wrt(..)` reach, in the hidden sweeps: its cotangents only
        // where the callee has derivatives, else zero (`maybe.rs`).
        let found = match site {
            CallSite::Value(var) if self.e.activity.is_maybe_call(var) => {
                crate::companion::found_of(callee)
            }
            CallSite::Array(array) if self.e.activity.is_maybe_array(array) => {
                crate::companion::found_of(callee)
            }
            _ => None,
        };
        let vjp_into = match found {
            Some(_) => {
                // `Default::default()` for an argument without an adjoint: `()` in the fallback.
                let any = quote!(impl ::core::marker::Sized);
                let slot_types = args
                    .iter()
                    .map(|a| match (self.e.activity.is_active(a), a) {
                        (true, Operand::Array(_) | Operand::Var(_)) => any.clone(),
                        _ => quote!(()),
                    });
                let slots = quote!((#(#slot_types,)*));
                let types: Vec<TokenStream> = (args.iter().map(|_| any.clone()))
                    .chain([any.clone(), slots])
                    .collect();
                crate::companion::derivative_of_unchecked(callee, "vjp_into", &types)
            }
            None => crate::companion::derivative_through(
                callee,
                "vjp_into",
                args.len() + 2,
                &self.e.activity.checked_positions(args),
            ),
        };
        let mut slots = Vec::new();
        let mut scalars = Vec::new();
        let (call_args, at_call) = self.call_arguments_stored(site, args, by_ref, code);
        for arg in args {
            refs.extend(arg.var());
            if !self.e.activity.is_active(arg) {
                slots.push(quote!(::core::default::Default::default()));
                continue;
            }
            match arg {
                // A `Vec` resized after the call (`s.push(..)`) has an adjoint buffer of its final
                // length: the callee's slice is the part the `Vec` had at the call, as stored.
                Operand::Array(array)
                    if at_call.contains_key(array)
                        && !self.e.is_matrix(arg)
                        && resized(self.e.f, *array) =>
                {
                    let buffer = self.array_adjoint(*array);
                    let stored = &at_call[array];
                    slots.push(quote!(::core::option::Option::Some(&mut #buffer[..#stored.len()])));
                }
                Operand::Array(array) => {
                    let buffer = self.array_adjoint(*array);
                    slots.push(quote!(::core::option::Option::Some(&mut #buffer[..])));
                }
                Operand::Var(v) => {
                    let name = self.e.adjoint_name(*v);
                    let zero = self.e.cotangent_slot_of_var(*v);
                    code.push(quote!(let mut #name = #zero;));
                    slots.push(quote!(::core::option::Option::Some(&mut #name)));
                    scalars.push((arg.clone(), name));
                }
                _ => slots.push(quote!(::core::default::Default::default())),
            }
        }
        let call = quote!(let _ = #vjp_into(#(#call_args,)* #d, (#(#slots,)*)););
        code.push(match found {
            Some(found) => quote!(if #found { #call }),
            None => call,
        });
        for (arg, name) in scalars {
            self.contribute(&arg, name.to_token_stream(), adjoints, code);
        }
    }

    /// The arguments of a call in the reverse sweep: an array written after the call is read back as the
    /// forward sweep stored it at the call.
    fn call_arguments(
        &mut self,
        site: CallSite,
        args: &[Operand],
        by_ref: &[bool],
        code: &mut Vec<TokenStream>,
    ) -> Vec<TokenStream> {
        self.call_arguments_stored(site, args, by_ref, code).0
    }

    /// [`Self::call_arguments`], and the name each array stored at the call is read back as.
    fn call_arguments_stored(
        &mut self,
        site: CallSite,
        args: &[Operand],
        by_ref: &[bool],
        code: &mut Vec<TokenStream>,
    ) -> (Vec<TokenStream>, BTreeMap<Array, Ident>) {
        let mut call_args = Vec::new();
        // An array passed twice (`g(&z, &z)`) was stored once at the call: popped once.
        let mut popped: BTreeMap<Array, Ident> = BTreeMap::new();
        for (arg, r) in args.iter().zip(by_ref) {
            let a = match arg {
                Operand::Array(array) if popped.contains_key(array) => {
                    Tokens::Name(popped[array].clone())
                }
                Operand::Array(array) if self.plan.stored_at_calls.contains(&(site, *array)) => {
                    let tape = self.e.snapshot_tape(site, *array);
                    let base = format!(
                        "__{}_at_call",
                        self.e
                            .array_name(*array)
                            .to_string()
                            .trim_start_matches('_')
                    );
                    let name = self.e.namer.fresh(&base);
                    code.push(quote!(let #name = #tape.pop();));
                    popped.insert(*array, name.clone());
                    Tokens::Name(name)
                }
                _ => self.e.operand(arg),
            };
            call_args.push(self.e.call_arg(arg, *r, a));
        }
        (call_args, popped)
    }
}

impl Reverse<'_, '_> {
    // Input:  rhs(&y, p, &mut k);
    // Output: let mut __k_at_call = __tape_k_at_call.pop();   // `k` as the call found it
    //         let (_, (__d_y, _, __d_k_in)) = rhs::vjp(&y, p, &mut __k_at_call, None, &__d_k);
    //         accumulate(&mut __d_y_buffer, &__d_y);         // an input's adjoint accumulates
    //         copy_into("k", &mut __d_k[..], &__d_k_in[..]); // the call overwrote `k`: its adjoint is
    //                                                        // that of the values `k` held before
    // Input:  total(out);                                    (`out` an output parameter, passed on bare)
    // Output: let (_, (__d_out_in,)) = total::vjp_out(&mut __out_at_call, None, (Passed(&__d_out[..]),));
    //         copy_into("out", &mut __d_out[..], &__d_out_in[..]);   // a reader passed it on, plus its reading
    /// The adjoint of a call that writes output buffers: the callee's companion `vjp` takes the adjoint of
    /// each buffer it wrote (and of its value, `None` for zero) and gives the cotangents of its inputs and
    /// of each buffer's incoming value, which replaces the buffer's adjoint. The callee runs again on the
    /// buffers as the call found them, stored by the forward sweep.
    fn call_out_adjoint(
        &mut self,
        stmt: &Stmt,
        d: Option<TokenStream>,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let Stmt::CallOut {
            var,
            callee,
            args,
            by_ref,
            written,
            passed_on,
        } = stmt
        else {
            return;
        };
        let activity = self.e.activity;
        let site = CallSite::Value(*var);
        // The companion's `vjp` takes the arguments, the cotangent of the value and one per float output.
        let call_arity = args.len()
            + 1
            + args
                .iter()
                .zip(written)
                .filter(|(a, w)| {
                    w.is_written()
                        && matches!(a, Operand::Array(array) if activity.is_float_array(*array))
                })
                .count();
        let positions = activity.checked_positions(args);
        let vjp = match passed_on {
            // `vjp_out(args.., d_ret, (slot per argument,))`
            true => {
                crate::companion::derivative_through(callee, "vjp_out", args.len() + 2, &positions)
            }
            false => crate::companion::derivative_through(callee, "vjp", call_arity, &positions),
        };
        // With an output parameter passed on bare, one slot per argument: `Passed(d)` for each buffer
        // passed `&mut` or bare, `()` for the others.
        let mut after = Vec::new();
        let mut slots = Vec::new();
        let mut contributions = Vec::new();
        let mut call_args = Vec::new();
        let mut d_outs = Vec::new();
        // A `Vec` resized in the body (`push`, `pop`) and written whole by the call: the length it had at
        // the call, which its adjoint buffer (of the final length) is cut to.
        let mut resized_at_call: BTreeMap<Array, Ident> = BTreeMap::new();
        for ((arg, r), w) in args.iter().zip(by_ref).zip(written) {
            refs.extend(arg.var());
            // Where the call writes part of the array: one element, or a window `start..end`.
            let part = match w {
                Written::Element(index) => {
                    refs.extend(index.var());
                    Some(Part::Element(self.e.operand(index).into_token_stream()))
                }
                Written::Window { start, end } => {
                    refs.extend(start.var().into_iter().chain(end.var()));
                    let (start, end) = (self.e.operand(start), self.e.operand(end));
                    Some(Part::Window(quote!(#start..#end)))
                }
                Written::No | Written::Array => None,
            };
            let passed = match arg {
                Operand::Array(array)
                    if w.is_written() || self.plan.stored_at_calls.contains(&(site, *array)) =>
                {
                    let tape = self.e.snapshot_tape(site, *array);
                    let base = format!(
                        "__{}_at_call",
                        self.e
                            .array_name(*array)
                            .to_string()
                            .trim_start_matches('_')
                    );
                    let name = self.e.namer.fresh(&base);
                    let mutability = w.is_written().then(|| quote!(mut));
                    match &part {
                        // The element as the call found it.
                        Some(Part::Element(index)) => {
                            code.push(quote!(let mut #name = #tape.pop()[#index];));
                        }
                        // An owned copy: an `ArrayTape` lends its array only until its next `pop`.
                        Some(Part::Window(range)) => {
                            code.push(quote!(let mut #name = #tape.pop()[#range].to_owned();));
                        }
                        None => {
                            code.push(quote!(let #mutability #name = #tape.pop().to_owned();));
                            if resized(self.e.f, *array) {
                                let len = self.e.namer.fresh("__len_at_call");
                                code.push(quote!(let #len = #name.len();));
                                resized_at_call.insert(*array, len);
                            }
                        }
                    }
                    Tokens::Name(name)
                }
                _ => self.e.operand(arg),
            };
            call_args.push(match w.is_written() {
                true => quote!(&mut #passed),
                false => self.e.call_arg(arg, *r, passed),
            });
            let float_output = match arg {
                Operand::Array(array) if w.is_written() && activity.is_float_array(*array) => {
                    Some(*array)
                }
                _ => None,
            };
            if float_output.is_none() {
                after.push(quote!(()));
            }
            if let Some(array) = float_output {
                let active = activity.is_active_array(array);
                let name = self.e.array_name(array).clone();
                let d_out = match (&part, active) {
                    // An element goes to a `&mut T` parameter, whose cotangent is a `T`.
                    (Some(Part::Element(index)), true) => {
                        let buffer = self.array_adjoint(array);
                        quote!(#buffer[#index])
                    }
                    (Some(Part::Element(index)), false) => {
                        quote!(::autodiff::__private::zero_like(&#name[#index]))
                    }
                    (Some(Part::Window(range)), true) => {
                        let buffer = self.array_adjoint(array);
                        quote!(&#buffer[#range])
                    }
                    (Some(Part::Window(range)), false) => {
                        quote!(&::autodiff::__private::zeros_like(&#name[#range]))
                    }
                    (None, true) => {
                        let buffer = self.array_adjoint(array);
                        match resized_at_call.get(&array) {
                            Some(len) => quote!(&#buffer[..#len]),
                            None => quote!(&#buffer),
                        }
                    }
                    (None, false) => quote!(&::autodiff::__private::zeros_like(&#name[..])),
                };
                after.push(match &part {
                    Some(Part::Element(_)) => quote!(::autodiff::__private::Passed(#d_out)),
                    _ => quote!(::autodiff::__private::Passed(&(#d_out)[..])),
                });
                d_outs.push(d_out);
            }
            if !activity.is_active(arg) {
                slots.push(quote!(_));
                continue;
            }
            let slot = match arg {
                Operand::Var(v) => self.e.adjoint_name(*v),
                _ => self.e.namer.fresh("__d_argument"),
            };
            slots.push(slot.to_token_stream());
            contributions.push((arg.clone(), slot, w.is_written().then_some(part)));
        }
        let d_ret = match d {
            Some(d) => quote!(::core::option::Option::Some(#d)),
            None => quote!(::core::option::Option::None),
        };
        code.push(match passed_on {
            true => quote!(let (_, (#(#slots,)*)) = #vjp(#(#call_args,)* #d_ret, (#(#after,)*));),
            false => quote!(let (_, (#(#slots,)*)) = #vjp(#(#call_args,)* #d_ret, #(#d_outs,)*);),
        });
        for (arg, slot, w) in contributions {
            match arg {
                Operand::Array(array) => {
                    let buffer = self.array_adjoint(array);
                    match w {
                        Some(Some(Part::Element(index))) => {
                            code.push(quote!(#buffer[#index] = #slot;));
                        }
                        Some(Some(Part::Window(range))) => {
                            let label = self.e.array_name(array).to_string();
                            code.push(quote!(::autodiff::__private::copy_into(#label, &mut #buffer[#range], &#slot[..]);));
                        }
                        Some(None) => {
                            let label = self.e.array_name(array).to_string();
                            let len = resized_at_call.get(&array);
                            code.push(quote!(::autodiff::__private::copy_into(#label, &mut #buffer[..#len], &#slot[..]);));
                        }
                        None if self.e.is_matrix(&Operand::Array(array)) => code.push(
                            quote!(::autodiff::__private::accumulate(&mut #buffer[..], &::autodiff::__private::flatten(&#slot));),
                        ),
                        None => code
                            .push(quote!(::autodiff::__private::accumulate(&mut #buffer[..], &#slot);)),
                    }
                }
                _ => self.contribute(&arg, slot.to_token_stream(), adjoints, code),
            }
        }
    }
}

/// The part of an array that a call writes, as the reverse sweep indexes it.
enum Part {
    /// `[index]`: one element.
    Element(TokenStream),
    /// `[start..end]`: a window.
    Window(TokenStream),
}

/// `a + b` for tuples (of tuples) of floats, component by component.
// Input:  `-__d_v10`
// Output: Some(`__d_v10`)
/// The name `tokens` negates, where they are `-name`.
fn negated_name(tokens: &TokenStream) -> Option<TokenStream> {
    let mut trees = tokens.clone().into_iter();
    match trees.next()? {
        proc_macro2::TokenTree::Punct(p) if p.as_char() == '-' => {
            let rest: TokenStream = trees.collect();
            naming::is_name(&rest).then_some(rest)
        }
        _ => None,
    }
}

fn add_tuples(kinds: &[Kind], a: &TokenStream, b: &TokenStream) -> TokenStream {
    let parts = kinds.iter().enumerate().map(|(i, kind)| {
        let i = syn::Index::from(i);
        match kind {
            Kind::Tuple(inner) => add_tuples(inner, &quote!(#a.#i), &quote!(#b.#i)),
            _ => quote!(#a.#i + #b.#i),
        }
    });
    quote!((#(#parts,)*))
}

/// Does the body pop from `array` (`Stmt::Truncate`) anywhere?
fn truncated(f: &crate::ir::Function, array: Array) -> bool {
    f.all_stmts()
        .into_iter()
        .any(|s| matches!(s, Stmt::Truncate { array: a, .. } if *a == array))
}

/// Does the body push to `array` or pop from it anywhere?
pub(super) fn resized(f: &crate::ir::Function, array: Array) -> bool {
    f.all_stmts().into_iter().any(|s| {
        matches!(s, Stmt::Push { array: a, .. } | Stmt::Truncate { array: a, .. } if *a == array)
    })
}

/// Does the body push to `array` anywhere?
fn pushed(f: &crate::ir::Function, array: Array) -> bool {
    f.all_stmts()
        .into_iter()
        .any(|s| matches!(s, Stmt::Push { array: a, .. } if *a == array))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::Args;
    use crate::errors::Errors;

    #[test]
    fn only_a_negated_name_is_subtracted() {
        let negated = |t: TokenStream| negated_name(&t).map(|n| n.to_string());
        assert_eq!(negated(quote!(-__d_v10)), Some("__d_v10".to_string()));
        assert_eq!(negated(quote!(__d_v10)), None);
        assert_eq!(negated(quote!(-__d_a * b)), None);
        assert_eq!(negated(quote!(-(a + b))), None);
        assert_eq!(negated(quote!(-1.0)), None);
    }

    /// The reverse sweep of `src` (a function with one scalar result), with the given shortcuts.
    fn vjp_of(src: &str, shortcuts: Shortcuts) -> String {
        let item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let mut errors = Errors::default();
        let sig = crate::signature::analyze(&item, &Args::default(), &mut errors)
            .expect("supported signature");
        let float_params = crate::signature::float_type_params(&item.sig.generics);
        let f = crate::lower::lower(&item, &sig, float_params.clone(), &mut errors);
        let activity = crate::activity::analyze(&f, &sig, &float_params, &mut errors);
        assert!(errors.finish().is_ok(), "test source is supported");
        let mut e = Emitter::new(&f, &sig, &activity);
        let d_ret = naming::fixed("d_ret");
        vjp_body_with(&mut e, &sig, &d_ret, GradientOut::Returned, shortcuts).to_string()
    }

    const ROSENBROCK: &str = "fn f(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 1 {
            let t = x[i + 1] - x[i] * x[i];
            let u = 1.0 - x[i];
            s += t * 100.0 * t + u.exp();
        }
        s
    }";

    #[test]
    fn the_optimised_adjoint_takes_its_shortcuts() {
        let optimised = vjp_of(ROSENBROCK, Shortcuts::ALL);
        // An accumulation loop of the function body is fused into its forward sweep, with a window over
        // x[i] and x[i + 1]: nothing is stored.
        assert!(optimised.contains("__window"), "{optimised}");
        assert!(!optimised.contains("Tape"), "{optimised}");
    }

    #[test]
    fn the_reference_adjoint_takes_none() {
        let reference = vjp_of(ROSENBROCK, Shortcuts::NONE);
        assert!(!reference.contains("__window"), "{reference}");
        // The loop is reversed backwards, popping what its adjoint reads (t, and the exp of u).
        assert!(reference.contains(". rev ()"), "{reference}");
        assert!(reference.contains("Tape :: new ()"), "{reference}");
        assert!(reference.contains(". pop ()"), "{reference}");
    }

    #[test]
    fn a_tuple_component_known_to_be_zero_is_replaced_not_added_to() {
        let src = "fn f(x: f64) -> f64 {
            let t = (x * x, 3.0 * x, x);
            let a = t.0;
            let b = t.1;
            let c = t.2;
            a * b + c * a
        }";
        for shortcuts in [Shortcuts::ALL, Shortcuts::NONE] {
            let code = vjp_of(src, shortcuts);
            // The last projection's adjoint makes the tuple with zeros, the others fill their components
            // in; each replaces the tuple's `let` before it (nothing read it in between), so one is left.
            assert!(!code.contains("0.0 +") && !code.contains("+ 0.0"), "{code}");
            let tuples: Vec<&str> = code
                .split("let ")
                .filter(|s| s.starts_with("__d_t"))
                .collect();
            assert_eq!(tuples.len(), 1, "{code}");
            assert!(
                tuples[0].starts_with("__d_t_2 = (__d_a_1 , __d_b , __d_c ,)"),
                "{code}"
            );
        }
    }

    #[test]
    fn a_call_read_only_through_float_components_is_not_run_again_for_their_zeros() {
        // The last stage of a step: both components meet floats (`2.0 * k3u`), so the other component's
        // zero is `0.0`, and the reverse sweep does not call `g` again to take the type of `zero_like`.
        let src = "fn f(x: f64) -> f64 {
            let (k3u, k3v) = g(x, x);
            let (k4u, k4v) = g(k3u, k3v);
            2.0 * k3u + k4u + (2.0 * k3v + k4v)
        }";
        for shortcuts in [Shortcuts::ALL, Shortcuts::NONE] {
            let code = vjp_of(src, shortcuts);
            assert!(!code.contains("zero_like"), "{code}");
            // Each tuple adjoint made once, of both components (the first with `0.0`, then replaced).
            assert!(code.contains("= (d_ret , d_ret ,)"), "{code}");
            assert!(!code.contains("0.0 ,"), "{code}");
        }
        // A component met by nothing of a known kind (`a * b` of two components) would take its type from
        // the value (`zero_like(&t.0)`), but the other component's contribution, next, replaces it: the
        // tuple is made once, of both.
        let opaque = "fn f(x: f64) -> f64 { let (a, b) = g(x, x); let (c, d) = g(a, b); c * d }";
        for shortcuts in [Shortcuts::ALL, Shortcuts::NONE] {
            let code = vjp_of(opaque, shortcuts);
            assert!(!code.contains("zero_like"), "{code}");
            assert!(code.contains("= (__d_c , __d_d ,)"), "{code}");
        }
    }

    #[test]
    fn an_array_written_after_a_call_is_stored_at_the_call() {
        let src = "fn f(x: f64) -> f64 {
            let mut z = vec![0.0; 1];
            z[0] = x;
            let w = g(&z);
            z[0] = 3.0 * x;
            w + z[0]
        }";
        // The reference adjoint stores `z` at the call and runs the callee again on it (`vjp`); so does
        // the optimised one where the call's value is not known to be a float (`vjp_into`).
        let opaque = src.replace("w + z[0]", "w");
        for (src, shortcuts, call) in [
            (src, Shortcuts::NONE, ". vjp (& __z_at_call"),
            (opaque.as_str(), Shortcuts::ALL, ". vjp_into (& __z_at_call"),
        ] {
            let code = vjp_of(src, shortcuts);
            assert!(code.contains("ArrayTape :: new ()"), "{code}");
            assert!(
                code.contains("__tape_z_at_call . push (& z [..])"),
                "{code}"
            );
            assert!(code.contains(call), "{code}");
        }
        // A float value (`w + z[0]`): where the callee's companion says its adjoint is linear in the
        // cotangent, the optimised adjoint stores the callee's gradient at the call instead, and adds it,
        // scaled by the value's cotangent, into `z`'s adjoint; else it stores `z` as above.
        let code = vjp_of(src, Shortcuts::ALL);
        let check = "if { use :: autodiff :: __private :: CotangentLinear as _ ; :: autodiff :: __private :: \
                     derivative_of ! (g , cotangent_linear ()) . cotangent_linear () }";
        assert_eq!(code.matches(check).count(), 2, "{code}");
        for piece in [
            ". vjp_into (& z , :: autodiff :: __private :: One :: one () , \
             (:: core :: option :: Option :: Some (__tape_z_gradient_at_call . push_zeros (z . len ())) ,)) } \
             else { __tape_z_at_call . push (& z [..]) ; g (& z) }",
            "{ __tape_z_gradient_at_call . pop_add_scaled (& mut __d_z [..] , d_ret) ; } else { \
             let __z_at_call = __tape_z_at_call . pop () ;",
        ] {
            assert!(code.contains(piece), "{piece}\n{code}");
        }
        // Not written after the call: read in place.
        let unwritten = vjp_of(
            "fn f(x: f64) -> f64 { let mut z = vec![0.0; 1]; z[0] = x; g(&z) }",
            Shortcuts::ALL,
        );
        assert!(!unwritten.contains("ArrayTape"), "{unwritten}");
        assert!(unwritten.contains(". vjp_into (& z"), "{unwritten}");
    }
}
