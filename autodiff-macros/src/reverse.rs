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

use crate::emit::{block_with_value, tuple_or_single, Emitter, Mode, Recorder};
use crate::ir::{Array, ArrayInit, Block, Function, Kind, Loop, Operand, Stmt, Value, Var};
use crate::naming;
use crate::rules;
use crate::signature::Signature;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet};

/// The current adjoint of each value that has one (an identifier).
type Adjoints = BTreeMap<Var, TokenStream>;

struct Reverse<'e, 'a> {
    e: &'e mut Emitter<'a>,
    /// The adjoint buffer of each array the reverse sweep touches.
    array_adjoints: BTreeMap<Array, Ident>,
    /// For arrays filled by `push`: a counter of the pushes not yet reversed.
    push_counters: BTreeMap<Array, Ident>,
    /// Loads (and lengths) of arrays that are written after them: the reverse sweep cannot read them again.
    unsafe_reads: BTreeSet<Var>,
    /// The array returned by the function, whose adjoint starts as `d_ret`.
    returned_array: Option<(Array, TokenStream)>,
    /// For each loop being reversed, innermost last: its sliding windows (see `Window`).
    windows: Vec<Window>,
    /// The output cotangent.
    d_ret: TokenStream,
    /// How many loops around the code being reversed.
    loop_depth: usize,
}

/// Is `value` a transcendental function, dearer to compute again than to store?
fn costly(value: &Value) -> bool {
    use crate::ir::FloatFn::*;
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

/// Registers that accumulate the adjoints of `x[i + c]` for the few constant offsets `c` a loop over
/// `i` reads, so that each element of the adjoint array is written once, when its last contribution
/// is in, rather than read, added to and written back by several iterations in turn. (Two neighbouring
/// read-modify-writes per iteration, as `x[i]` and `x[i + 1]` give, stall the processor's store
/// forwarding: the extended Rosenbrock gradient ran 5 times slower than its primal with them.)
///
/// Iterating `i` downwards, the element `i + c_max` gets its last contribution at iteration `i`: it is
/// flushed to the array there, and the registers shift down by one.
#[derive(Default)]
struct Window {
    /// The offset of each index value (`i`, `i + 1`, `i - 2`) from the loop index.
    offsets: BTreeMap<Var, i64>,
    /// Per array: the smallest offset and one register per offset from it to the largest.
    arrays: BTreeMap<Array, (i64, Vec<Ident>)>,
}

/// The body of `f_vjp`: given the cotangent `d_ret` of the result, returns `(value, gradient)`.
pub(crate) fn vjp_body(e: &mut Emitter, sig: &Signature, d_ret: &Ident) -> TokenStream {
    let f = e.f;
    let returned = f.returned().clone();
    let mut rev = Reverse {
        e,
        array_adjoints: BTreeMap::new(),
        push_counters: BTreeMap::new(),
        unsafe_reads: unsafe_reads(f),
        returned_array: None,
        windows: Vec::new(),
        d_ret: d_ret.to_token_stream(),
        loop_depth: 0,
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
    let (primal, _) = rev.e.primal(&f.body, &refs, Mode::Sweep);
    let gradients: Vec<TokenStream> = f
        .params
        .iter()
        .zip(&sig.params)
        .enumerate()
        .filter(|(_, (_, p))| p.active)
        .map(|(i, (var, p))| match p.array {
            Some(_) => {
                let array = f
                    .arrays
                    .iter()
                    .position(|a| a.param == Some(i))
                    .map(|a| Array(a as u32));
                match array.and_then(|a| rev.array_adjoints.get(&a)) {
                    Some(buffer) => buffer.to_token_stream(),
                    None => {
                        let name = &p.ident;
                        quote!(::autodiff::__private::zeros_like(&#name))
                    }
                }
            }
            None => adjoints
                .remove(var)
                .unwrap_or_else(|| Emitter::zero_of(&p.kind)),
        })
        .collect();
    let gradient = tuple_or_single(gradients);
    let value = rev.e.operand(&returned);
    let unused = (!seeded).then(|| quote!(let _ = #d_ret;));
    let items = rev.e.items();
    let tapes = rev.e.tape_declarations();
    let (param_buffers, buffers) = rev.buffer_declarations();
    quote! {
        #items
        #unused
        #tapes
        #param_buffers
        #primal
        #buffers
        #(#code)*
        (#value, #gradient)
    }
}

/// The arrays in scope for the whole function: the parameters and the arrays its body makes outside any
/// branch or loop.
fn top_level_arrays(f: &Function) -> BTreeSet<Array> {
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

/// The loads and lengths whose array may be written after them (later in the code, or in a later
/// iteration of a loop around both), so that reading the array again in the reverse sweep would give a
/// newer value.
fn unsafe_reads(f: &Function) -> BTreeSet<Var> {
    struct Walk {
        position: usize,
        loops: Vec<usize>,
        reads: Vec<(Var, Array, usize, Vec<usize>)>,
        writes: Vec<(Array, usize, Vec<usize>)>,
    }
    fn walk(block: &Block, w: &mut Walk) {
        for stmt in &block.stmts {
            w.position += 1;
            match stmt {
                Stmt::Let {
                    var,
                    value: Value::Load { array, .. } | Value::Len(array),
                } => {
                    w.reads.push((*var, *array, w.position, w.loops.clone()));
                }
                Stmt::Store { array, .. } | Stmt::Push { array, .. } => {
                    w.writes.push((*array, w.position, w.loops.clone()));
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
    };
    walk(&f.body, &mut w);
    // An array made inside a branch or loop body is out of scope in the reverse sweep: its reads are
    // stored too.
    let top_level = top_level_arrays(f);
    w.reads
        .iter()
        .filter(|(_, array, at, loops)| {
            !top_level.contains(array)
                || w.writes.iter().any(|(written, when, around)| {
                    written == array && (when > at || around.iter().any(|l| loops.contains(l)))
                })
        })
        .map(|(var, ..)| *var)
        .collect()
}

impl Reverse<'_, '_> {
    /// The adjoint buffer of `array`, declared once after the forward sweep.
    fn array_adjoint(&mut self, array: Array) -> Ident {
        if let Some(name) = self.array_adjoints.get(&array) {
            return name.clone();
        }
        let base = naming::adjoint_base(&self.e.array_name(array).to_string());
        let name = self.e.namer.fresh(&base);
        self.array_adjoints.insert(array, name.clone());
        name
    }

    /// The declarations of the array adjoints and push counters.
    /// The declarations of the adjoint buffers of the parameters (before the forward sweep, which a fused
    /// loop writes them in), and of the other arrays with the push counters (after it).
    fn buffer_declarations(&self) -> (TokenStream, TokenStream) {
        let mut params = Vec::new();
        let mut code = Vec::new();
        let top_level = top_level_arrays(self.e.f);
        for (array, buffer) in &self.array_adjoints {
            // An array made inside a branch or loop body has its buffer declared in that region's
            // reverse (`region`), fresh for each iteration.
            if !top_level.contains(array) {
                continue;
            }
            let name = self.e.array_name(*array);
            let init = match &self.returned_array {
                Some((returned, d_ret)) if returned == array => {
                    quote!(::autodiff::__private::cotangent("d_ret", #d_ret, &#name))
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
            let name = self.e.array_name(*array);
            code.push(quote!(let mut #counter = #name.len();));
        }
        (quote!(#(#params)*), quote!(#(#code)*))
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
        let is_name = syn::parse2::<Ident>(contribution.clone()).is_ok();
        let value = match (adjoints.get(&var), self.e.activity.var_kind(var)) {
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
            (Some(previous), _) => quote!(#previous + #contribution),
        };
        let name = self.e.adjoint_name(var);
        code.push(quote!(let #name = #value;));
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
                    if !self.e.activity.is_active_array(*array) || !self.e.activity.is_active(value)
                    {
                        continue;
                    }
                    let buffer = self.array_adjoint(*array);
                    let counter = match self.push_counters.get(array) {
                        Some(c) => c.clone(),
                        None => {
                            let base = format!("__pushed_{}", self.e.array_name(*array));
                            let c = self.e.namer.fresh(&base);
                            self.push_counters.insert(*array, c.clone());
                            c
                        }
                    };
                    code.push(quote!(#counter -= 1;));
                    self.contribute(value, quote!(#buffer[#counter]), adjoints, code);
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
                            let d = quote!(::core::clone::Clone::clone(&#buffer));
                            self.call_adjoint(callee, args, by_ref, &d, adjoints, code, refs);
                        }
                        ArrayInit::Copy(source) => {
                            if self.e.activity.is_active_array(*source) {
                                let source_buffer = self.array_adjoint(*source);
                                code.push(quote!(::autodiff::__private::accumulate(&mut #source_buffer, &#buffer);));
                            }
                        }
                    }
                }
                Stmt::Loop(l) => self.loop_(l, adjoints, code, refs),
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
            Value::Cast(o, _) => {
                let contribution = match activity.kind(o) {
                    Kind::Float(Some(ty)) => quote!(#d as #ty),
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
                    let primal = self.e.operand(o);
                    refs.extend(o.var());
                    let parts = kinds.iter().enumerate().map(|(i, k)| {
                        let i_index = syn::Index::from(i);
                        if i == *index as usize {
                            d.clone()
                        } else if matches!(k, Kind::Unknown) {
                            // The type of this component is rustc's to know: take it from the value.
                            quote!(::autodiff::__private::zero_like(&#primal.#i_index))
                        } else {
                            Emitter::zero_of(k)
                        }
                    });
                    self.contribute(o, quote!((#(#parts,)*)), adjoints, code);
                }
            }
            Value::Call {
                callee,
                args,
                by_ref,
            } => self.call_adjoint(callee, args, by_ref, d, adjoints, code, refs),
            Value::Load { array, index } => {
                let window = self.windows.last().and_then(|w| {
                    let offset = w.offsets.get(&index.var()?)?;
                    let (lowest, registers) = w.arrays.get(array)?;
                    Some(registers[(offset - lowest) as usize].clone())
                });
                if let Some(register) = window {
                    code.push(quote!(::autodiff::__private::add_to(&mut #register, #d);));
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

    /// The sliding windows of a loop reversed by iterating its range `a..b` downwards: for each active
    /// array it only reads (never writes), at offsets `i + c` from the index.
    fn window(&mut self, l: &Loop) -> Window {
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

    /// The code of a loop's windows: the registers before the loop, the flush and shift at the end of
    /// each iteration, and the flush of what is left after the loop.
    fn window_code(
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
        (quote!(#(#setup)*), flush, quote!(#(#finish)*))
    }

    /// The adjoint of a call of another differentiable function: its companion's `vjp` (joint mode: the
    /// callee runs its forward sweep again), which gives one cotangent per argument.
    #[allow(clippy::too_many_arguments)]
    fn call_adjoint(
        &mut self,
        callee: &syn::ExprPath,
        args: &[Operand],
        by_ref: &[bool],
        d: &TokenStream,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let activity = self.e.activity;
        let vjp = companion_path(callee, "vjp");
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
        let call_args = args.iter().zip(by_ref).map(|(a, r)| {
            let a = self.e.operand(a);
            if *r {
                quote!(&#a)
            } else {
                a
            }
        });
        code.push(quote!(let (_, (#(#slots,)*)) = #vjp(#(#call_args,)* #d);));
        for (arg, slot) in contributions {
            match arg {
                Operand::Array(array) => {
                    let buffer = self.array_adjoint(array);
                    code.push(quote!(::autodiff::__private::accumulate(&mut #buffer, &#slot);));
                }
                _ => self.contribute(&arg, slot.to_token_stream(), adjoints, code),
            }
        }
    }

    /// The reverse of a region (a branch or a loop body): the values its adjoint reads, recomputed or
    /// popped from their tapes, then the adjoint code. `carried` are the loop's values at the start of an
    /// iteration (always taped) and `index` the loop index with the code that recomputes it.
    fn region(
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
            let zero = Emitter::zero_of(self.e.activity.elem_kind(*array));
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
                ArrayInit::Copy(source) if self.e.f.arrays[source.0 as usize].param.is_some() => {
                    let source = self.e.array_name(*source);
                    quote!(::autodiff::__private::zeros_like(&#source))
                }
                _ => quote!(::core::compile_error!(
                    "an array made inside a loop or branch by `Vec::new()`, `Vec::with_capacity(..)`, a copy of a \
                     local array or a call cannot be differentiated yet: make it before the loop and write its elements"
                )),
            };
            buffers.push(quote!(let mut #buffer = #zeros;));
        }
        let defs: BTreeMap<Var, &Stmt> = block
            .stmts
            .iter()
            .flat_map(|s| s.defs().into_iter().map(move |v| (v, s)))
            .collect();
        let index_var = index.as_ref().map(|(v, _)| *v);
        let is_top = |v: &Var| defs.contains_key(v) || carried.contains(v) || index_var == Some(*v);
        let mut todo: Vec<Var> = region_refs.iter().copied().filter(is_top).collect();
        refs.extend(region_refs.iter().copied().filter(|v| !is_top(v)));
        let (mut remat, mut taped) = (BTreeSet::new(), BTreeSet::new());
        let mut index_needed = false;
        while let Some(v) = todo.pop() {
            if remat.contains(&v) || taped.contains(&v) {
                continue;
            }
            if index_var == Some(v) {
                index_needed = true;
                continue;
            }
            let stmt = defs.get(&v).copied();
            let reads: Option<BTreeSet<Var>> = match stmt {
                Some(Stmt::Let { value, .. }) if self.recomputable(v, value) => Some(
                    value
                        .operands()
                        .into_iter()
                        .filter_map(Operand::var)
                        .collect(),
                ),
                Some(s @ (Stmt::If { .. } | Stmt::Match { .. })) if self.is_pure(s) => {
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
        let mut prelude = Vec::new();
        for v in &taped {
            let tape = self.e.tape(*v);
            let name = self.e.name(*v);
            prelude.push(quote!(let #name = #tape.pop();));
        }
        if let (true, Some((_, code))) = (index_needed, &index) {
            prelude.push(code.clone());
        }
        for stmt in &block.stmts {
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
        quote!(#(#prelude)* #(#buffers)* #(#adjoint_code)*)
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

    /// The adjoint of an `if` or `match`: the same branching, each branch recomputing what its adjoint
    /// reads and yielding the adjoints of the outer values it changed.
    fn branches(
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
        if out_adjoints.iter().all(Option::is_none) && !self.touches_active_arrays(stmt) {
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
                        None => Emitter::zero_of(self.e.activity.var_kind(*var)),
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

    /// Does `stmt` read or write an active array (so its reverse matters even with no adjoint on its outs)?
    fn touches_active_arrays(&self, stmt: &Stmt) -> bool {
        let activity = self.e.activity;
        let direct = match stmt {
            Stmt::Let {
                value: Value::Load { array, .. },
                ..
            }
            | Stmt::Store { array, .. }
            | Stmt::Push { array, .. }
            | Stmt::NewArray { array, .. } => activity.is_active_array(*array),
            _ => false,
        };
        direct
            || stmt
                .blocks()
                .iter()
                .any(|b| b.stmts.iter().any(|s| self.touches_active_arrays(s)))
    }

    /// The reverse of a loop: its iterations backwards, each restoring the carried values it read from
    /// their tapes, recomputing the rest, and running the body's adjoint. The adjoints of the carried
    /// values, and of the outer values the body reads, are mutable accumulators across iterations.
    fn loop_(
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
        let window = if direct {
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
                .unwrap_or_else(|| Emitter::zero_of(activity.var_kind(*phi)));
            if *d != next.to_string() {
                targets.push(d.to_token_stream());
                values.push(next);
            }
        }
        let invariant = targets.is_empty();
        let fused = direct && invariant && self.fusable(l, &out_adjoints);
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
        for ((phi, d), out_d) in l.phis.iter().zip(&carried).zip(&out_adjoints) {
            if let Some(d) = d {
                let init = out_d
                    .clone()
                    .unwrap_or_else(|| Emitter::zero_of(activity.var_kind(*phi)));
                declarations.push(quote!(let mut #d = #init;));
            }
        }
        for var in &changed {
            let acc = &accumulators[var];
            // A fused loop runs before the reverse sweep has the outer adjoint: it accumulates from zero,
            // and its sum is added where the loop's reverse would have been.
            let init = match adjoints.get(var) {
                Some(before) if !fused => before.clone(),
                _ => Emitter::zero_of(activity.var_kind(*var)),
            };
            declarations.push(quote!(let mut #acc = #init;));
        }
        let descending = !fused;
        let (window_setup, window_flush, window_finish) = self.window_code(l, &window, descending);
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
                    inside: quote!(#(#body_code)*),
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
            let tapes_before = self.e.tapes.len();
            let body = self.region(&l.body, &l.phis, index, body_code, body_refs, refs);
            // With carried adjoints that do not change and nothing popped from a tape, the order of the
            // iterations does not matter: run them forwards, as memory is laid out.
            let any_order = invariant
                && window.arrays.is_empty()
                && self.e.tapes.len() == tapes_before
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

    /// Can the reverse sweep compute `v = value` again? Not a read of an array written later; and in a
    /// loop, not a transcendental function: storing 8 bytes costs less than an `exp` (the softmax
    /// gradient spent a third of its reverse sweep on them).
    fn recomputable(&self, v: Var, value: &Value) -> bool {
        let stored_in_loop = self.loop_depth > 0 && costly(value);
        !self.unsafe_reads.contains(&v) && !stored_in_loop
    }

    /// Does `block` write an active array anywhere? (The reverse of a write reads and clears the
    /// element's adjoint, so iterations that write must be reversed in order.)
    fn writes_active_arrays(&self, block: &Block) -> bool {
        block.stmts.iter().any(|stmt| {
            let direct = match stmt {
                Stmt::Store { array, .. }
                | Stmt::Push { array, .. }
                | Stmt::NewArray { array, .. } => self.e.activity.is_active_array(*array),
                _ => false,
            };
            direct || stmt.blocks().iter().any(|b| self.writes_active_arrays(b))
        })
    }

    /// Can the reverse of `l` run inside its forward sweep? When it is a loop of the function body (not
    /// nested in a branch or loop), each carried value's adjoint after it is known before it runs (the
    /// output cotangent, or none), it writes the adjoints of parameter arrays only, and (checked by the
    /// caller) it runs its range to the end and its carried adjoints do not change from one iteration
    /// to the next (an accumulation `s += ..`). Then the order of the iterations does not matter.
    fn fusable(&self, l: &Loop, out_adjoints: &[Option<TokenStream>]) -> bool {
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
                        arrays_ok &= !self.e.activity.is_active_array(*array)
                            || self.e.f.arrays[array.0 as usize].param.is_some();
                    }
                    Stmt::NewArray { .. } => arrays_ok = false,
                    _ => {}
                }
                stack.extend(stmt.blocks());
            }
        }
        top_level && known && arrays_ok
    }
}

/// `p::f::<T>` → `p::f::item::<T>`: the function `item` of the companion module that `#[differentiable]`,
/// `#[custom_gradient]` and `#[gradient_of]` emit beside `f`.
pub(crate) fn companion_path(callee: &syn::ExprPath, item: &str) -> TokenStream {
    let mut path = callee.clone();
    let generics = path
        .path
        .segments
        .last_mut()
        .map(|last| std::mem::replace(&mut last.arguments, syn::PathArguments::None));
    let mut segment = syn::PathSegment::from(Ident::new(
        item,
        callee
            .path
            .segments
            .last()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
    ));
    if let Some(syn::PathArguments::AngleBracketed(mut args)) = generics {
        args.colon2_token = Some(Default::default());
        segment.arguments = syn::PathArguments::AngleBracketed(args);
    }
    path.path.segments.push(segment);
    path.to_token_stream()
}

/// `a + b` for tuples (of tuples) of floats, component by component.
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

/// Finds, in a loop body over `index`, the index values at constant offsets (`i + 1`, `i - 2`), the
/// offsets at which each array is read (`None` for any other index), and the arrays written (which get
/// no window). A nested loop's reads are its own: arrays it reads get no window here.
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
            _ => {}
        }
        if let Stmt::Loop(inner) = stmt {
            let mut nested = Window::default();
            let mut nested_reads = BTreeMap::new();
            scan_offsets(&inner.body, index, &mut nested, &mut nested_reads, excluded);
            excluded.extend(nested_reads.into_keys());
        } else {
            for inner in stmt.blocks() {
                scan_offsets(inner, index, window, reads, excluded);
            }
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
