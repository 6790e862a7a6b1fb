//! What the reverse and forward emitters share: the names of values, the tokens of a value's primal
//! computation, zeros of each kind, and the emission of a block's primal code pruned to what is needed.

use crate::activity::Activity;
use crate::ir::{
    Array, ArrayInit, Block, CallForm, CallSite, Function, Kind, Loop, Operand, Stmt, Value, Var,
    Written,
};
use crate::naming::{self, Namer};
use crate::rules::RuleCtx;
use crate::signature::Signature;
use crate::views::{self, View};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// The state of emitting one generated function.
/// `value as ty`, where `value` is of kind `from` and `ty` of kind `to`, also where `as` cannot convert: to a
/// float type parameter through `__private::cast` (the identity from the same type, which keeps a dual number's
/// tangent), and from one to an integer through `__private::to_int`. The generic shadow's casts (`shadow.rs`).
pub(crate) fn convert(value: TokenStream, from: &Kind, to: &Kind, ty: &syn::Type) -> TokenStream {
    let parameter = |kind: &Kind| {
        matches!(kind, Kind::Float(Some(t))
            if !matches!(t, syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32")))
    };
    match (from, to) {
        (Kind::Float(Some(a)), Kind::Float(Some(b))) if a == b && parameter(to) => value,
        _ if parameter(to) => quote!(::autodiff::__private::cast::<#ty, _>(#value)),
        (_, Kind::Int) if parameter(from) => {
            quote!(::autodiff::__private::to_int::<#ty, _>(#value))
        }
        _ => quote!(#value as #ty),
    }
}

/// The tokens of an operand: a value's name, which `quote!` appends as it is, or other tokens (a constant,
/// an expression). A `TokenStream` of a name alone would be sent to the compiler and joined there, and
/// cloned, at each place it goes.
#[derive(Clone)]
pub(crate) enum Tokens {
    /// A value's (or an array's, or a tangent's) name.
    Name(Ident),
    /// Any other tokens: a constant, an expression.
    Other(TokenStream),
}

impl ToTokens for Tokens {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Tokens::Name(name) => name.to_tokens(tokens),
            Tokens::Other(other) => other.to_tokens(tokens),
        }
    }

    fn into_token_stream(self) -> TokenStream {
        match self {
            Tokens::Name(name) => name.into_token_stream(),
            Tokens::Other(other) => other,
        }
    }
}

impl From<Tokens> for TokenStream {
    fn from(tokens: Tokens) -> TokenStream {
        tokens.into_token_stream()
    }
}

impl From<TokenStream> for Tokens {
    fn from(tokens: TokenStream) -> Tokens {
        Tokens::Other(tokens)
    }
}

impl std::fmt::Display for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tokens::Name(name) => name.fmt(f),
            Tokens::Other(other) => other.fmt(f),
        }
    }
}

pub(crate) struct Emitter<'a> {
    pub(crate) f: &'a Function,
    pub(crate) activity: &'a Activity,
    /// What the sweeps name and register as they are emitted, read through `Deref` (`e.tapes`): kept apart
    /// from the function so that [`Emitter::over`] can run a sweep over a copy of the function with it.
    state: State,
}

/// The names an [`Emitter`] gives and what its sweeps register as they are emitted.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) namer: Namer,
    names: Vec<Ident>,
    array_names: Vec<Ident>,
    /// The values the forward sweep pushes on a tape for the reverse sweep, with their tape's name.
    pub(crate) tapes: BTreeMap<Var, Ident>,
    /// Arrays passed to a call and written after it: the forward sweep pushes a copy of the array at the
    /// call on this tape, and the callee's adjoint reads the copy.
    pub(crate) snapshots: BTreeMap<(CallSite, Array), Ident>,
    /// Calls of a function with a float value whose adjoint is stored at the call instead of run again
    /// (`reverse/call_gradient.rs`), by the call's value: for each differentiated array argument, the tape
    /// on which the forward sweep stores the gradient of the value with respect to it.
    pub(crate) call_gradients: BTreeMap<(Var, Array), Ident>,
    /// For each of those calls, the test of whether the callee is linear in the cotangent: where it is
    /// not, the call stores its arguments as in joint mode (`snapshots`).
    pub(crate) call_linear: BTreeMap<Var, TokenStream>,
    /// Loops whose reverse runs inside their forward sweep, by their trip-count value.
    pub(crate) fused: BTreeMap<Var, Fused>,
    /// The taped values that a recomputation pushes again (a branch recomputed in the reverse sweep
    /// pushes the values its reverse pops): their tapes are not read through readers.
    pushed_again: std::cell::RefCell<BTreeSet<Var>>,
    /// Loads that a loop repeats unchanged in every iteration (`a[i]` in a loop over `j`, `a` not
    /// written in it), stored once before the loop starts rather than once per iteration, by the loop's
    /// trip-count value: the tape, the array and the index.
    pub(crate) hoisted: BTreeMap<Var, Vec<(Ident, Array, Operand)>>,
    /// Local arrays stored whole after a loop that writes them (`reverse::plan::ArraySnapshot`), by
    /// that loop's trip-count value: the tape and the array.
    pub(crate) array_snapshots: BTreeMap<Var, Vec<(Ident, Array)>>,
    /// The reads of each `for` loop that go through a sub-slice taken before it (`views.rs`), by the loop's
    /// trip-count value, with the view's name.
    views: BTreeMap<Var, Vec<(View, Ident)>>,
    /// While a loop with views is printed: how each of its reads through a view is written, by the value
    /// read, and whether it was.
    reading: RefCell<BTreeMap<Var, (TokenStream, bool)>>,
    /// The sub-slices borrowed rather than copied (`views::borrowed_windows`): set by the reverse sweep's
    /// plan, empty in other sweeps.
    pub(crate) borrowed_windows: BTreeSet<Array>,
    /// The matrix parameters read in place rather than flattened (`views::in_place_matrices`): set by the
    /// sweep, by flat array; their rows are `&__matrix_m[i][..]`.
    pub(crate) in_place: BTreeSet<Array>,
    /// The row offsets of those matrices that the sweep does not make (`views::unread_offsets`), with
    /// their matrix's flat array: their length is printed from the matrix.
    pub(crate) unread_offsets: BTreeMap<Array, Array>,
    /// The parameters taken for data because the body only passes them on (`signature::PassedOn`): passed
    /// to each call as a clone (the generated code calls again); without `wrt(..)`, a callee must keep
    /// each constant too.
    pub(crate) passed_on: BTreeMap<Var, crate::signature::PassedOn>,
    /// The parameters that hold tuples as data by value (`terms: Vec<(usize, f64)>`,
    /// `tuple_data::tuple_slice`): passed to each call as a clone, since the generated code calls again.
    pub(crate) owned_data: BTreeSet<Var>,
}

impl std::ops::Deref for Emitter<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.state
    }
}

impl std::ops::DerefMut for Emitter<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.state
    }
}

/// The reverse of a loop fused into its forward sweep: declarations before the loop, the adjoint of one
/// iteration at the end of each, code after it, and the values of the body the adjoint reads.
pub(crate) struct Fused {
    pub(crate) before: TokenStream,
    pub(crate) inside: TokenStream,
    pub(crate) after: TokenStream,
    pub(crate) roots: BTreeSet<Var>,
}

/// What a primal emission is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The forward sweep: everything the result needs, memory writes, and tape pushes.
    Sweep,
    /// Recomputing pure values inside the reverse sweep: no writes, no pushes.
    Recompute,
}

impl<'a> Emitter<'a> {
    pub(crate) fn new(f: &'a Function, sig: &Signature, activity: &'a Activity) -> Emitter<'a> {
        // The parameters' names, and the fixed names of the generated code (`d_ret`, `tangent`), are never
        // handed out again: a user's local `d_ret` gets `d_ret_1`.
        let reserved = sig.params.iter().map(|p| p.ident.to_string());
        let mut namer = Namer::new(reserved.chain(naming::FIXED.iter().map(|s| s.to_string())));
        let mut names: Vec<Ident> = f
            .vars
            .iter()
            .enumerate()
            .map(
                |(i, info)| match f.params.iter().position(|p| p.0 as usize == i) {
                    Some(param) => sig.params[param].ident.clone(),
                    None => match &info.hint {
                        Some(hint) => namer.fresh(hint),
                        None => namer.temporary(),
                    },
                },
            )
            .collect();
        // A loop's carried value is one mutable variable: its value at the start of an iteration and after
        // the loop share the name.
        for stmt in f.all_stmts() {
            if let Stmt::Loop(l) = stmt {
                for (phi, out) in l.phis.iter().zip(&l.outs) {
                    names[out.0 as usize] = names[phi.0 as usize].clone();
                }
            }
        }
        let array_names: Vec<Ident> = f
            .arrays
            .iter()
            .map(|info| match info.param {
                Some(param) => sig.params[param].ident.clone(),
                None => namer.fresh(&info.name),
            })
            .collect();
        let views = {
            let name = |v: Var| names[v.0 as usize].to_token_stream();
            views::views(f, &name)
                .into_iter()
                .map(|(trips, views)| {
                    let named = views
                        .into_iter()
                        .map(|view| {
                            let array = &array_names[view.array.0 as usize];
                            let name = namer.fresh(&format!("__{array}_view"));
                            (view, name)
                        })
                        .collect();
                    (trips, named)
                })
                .collect()
        };
        Emitter {
            f,
            activity,
            state: State {
                namer,
                names,
                array_names,
                views,
                passed_on: (f.params.iter().zip(&sig.params))
                    .filter(|(_, p)| p.passed_on != crate::signature::PassedOn::No)
                    .map(|(v, p)| (*v, p.passed_on))
                    .collect(),
                owned_data: (f.params.iter().zip(&sig.params))
                    .filter(|(_, p)| {
                        matches!(crate::tuple_data::tuple_slice(&p.ty), Some((_, false)))
                    })
                    .map(|(v, _)| *v)
                    .collect(),
                ..State::default()
            },
        }
    }

    /// An emitter for another sweep of the same function, as `new` would make it (the names and views it
    /// found, nothing registered yet), without finding them again. Of an emitter that has emitted nothing.
    pub(crate) fn fresh_copy(&self) -> Emitter<'a> {
        Emitter {
            f: self.f,
            activity: self.activity,
            state: State {
                namer: self.namer.clone(),
                names: self.names.clone(),
                array_names: self.array_names.clone(),
                views: self.views.clone(),
                passed_on: self.passed_on.clone(),
                owned_data: self.owned_data.clone(),
                ..State::default()
            },
        }
    }

    pub(crate) fn name(&self, var: Var) -> &Ident {
        &self.names[var.0 as usize]
    }

    pub(crate) fn array_name(&self, array: Array) -> &Ident {
        &self.array_names[array.0 as usize]
    }

    pub(crate) fn operand(&self, operand: &Operand) -> Tokens {
        match operand {
            Operand::Var(v) => Tokens::Name(self.name(*v).clone()),
            Operand::Const { tokens, .. } => Tokens::Other(tokens.clone()),
            Operand::Array(a) => Tokens::Name(self.array_name(*a).clone()),
        }
    }

    /// The name of the tape of `var`, registering it as taped.
    pub(crate) fn tape(&mut self, var: Var) -> Ident {
        if let Some(tape) = self.tapes.get(&var) {
            return tape.clone();
        }
        let base = format!(
            "__tape_{}",
            self.name(var).to_string().trim_start_matches('_')
        );
        let tape = self.namer.fresh(&base);
        self.tapes.insert(var, tape.clone());
        tape
    }

    /// The name of the tape on which the forward sweep stores `array` as it is when `site` calls with it,
    /// registering it.
    pub(crate) fn snapshot_tape(&mut self, site: CallSite, array: Array) -> Ident {
        if let Some(tape) = self.snapshots.get(&(site, array)) {
            return tape.clone();
        }
        let base = format!(
            "__tape_{}_at_call",
            self.array_name(array).to_string().trim_start_matches('_')
        );
        let tape = self.namer.fresh(&base);
        self.snapshots.insert((site, array), tape.clone());
        tape
    }

    /// The name of the tape on which the forward sweep stores the gradient of the call `var` with
    /// respect to `array` (`reverse/call_gradient.rs`), registering it.
    pub(crate) fn call_gradient_tape(&mut self, var: Var, array: Array) -> Ident {
        if let Some(tape) = self.call_gradients.get(&(var, array)) {
            return tape.clone();
        }
        let base = format!(
            "__tape_{}_gradient_at_call",
            self.array_name(array).to_string().trim_start_matches('_')
        );
        let tape = self.namer.fresh(&base);
        self.call_gradients.insert((var, array), tape.clone());
        tape
    }

    /// The name of the tape on which the forward sweep stores `array` whole after the loop `after`
    /// (`reverse::plan::ArraySnapshot`), registering it.
    pub(crate) fn array_snapshot_tape(&mut self, after: Var, array: Array) -> Ident {
        let State {
            array_snapshots,
            array_names,
            namer,
            ..
        } = &mut self.state;
        let stored = array_snapshots.entry(after).or_default();
        if let Some((tape, _)) = stored.iter().find(|(_, a)| *a == array) {
            return tape.clone();
        }
        let base = format!(
            "__tape_{}_whole",
            array_names[array.0 as usize]
                .to_string()
                .trim_start_matches('_')
        );
        let tape = namer.fresh(&base);
        stored.push((tape.clone(), array));
        tape
    }

    /// How many tapes the forward sweep fills.
    pub(crate) fn tape_count(&self) -> usize {
        self.tapes.len()
            + self.snapshots.len()
            + self.call_gradients.len()
            + self.hoisted.values().map(Vec::len).sum::<usize>()
            + self.array_snapshots.values().map(Vec::len).sum::<usize>()
    }

    /// The tapes of the values (`Tape`, one per value) that the reverse sweep only reads back: those of
    /// the values defined outside the fused loops (whose iterations pop what they push) that no
    /// recomputation pushes again (`reverse::readers`).
    pub(crate) fn tapes_read_back(&self) -> Vec<Ident> {
        let fused: BTreeSet<Var> = self
            .f
            .body
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Loop(l) if self.fused.contains_key(&l.trips) => Some(l),
                _ => None,
            })
            .flat_map(|l| crate::reverse::loop_defs(l))
            .collect();
        let again = self.pushed_again.borrow();
        self.tapes
            .iter()
            .filter(|(var, _)| !fused.contains(var) && !again.contains(var))
            .map(|(_, tape)| tape.clone())
            .collect()
    }

    /// The declarations of the tapes, at the top of the function.
    pub(crate) fn tape_declarations(&self) -> TokenStream {
        let hoisted = self.hoisted.values().flatten().map(|(tape, ..)| tape);
        let tapes = self.tapes.values().chain(hoisted);
        // A fixed-size array is stored by value; a slice or `Vec` into one buffer (`ArrayTape`).
        let (fixed, flat): (Vec<_>, Vec<_>) = self
            .snapshots
            .iter()
            .partition(|((_, array), _)| self.f.arrays[array.0 as usize].fixed);
        let fixed = fixed.into_iter().map(|(_, tape)| tape);
        let flat = flat
            .into_iter()
            .map(|(_, tape)| tape)
            .chain(self.call_gradients.values());
        let whole = self
            .array_snapshots
            .values()
            .flatten()
            .map(|(tape, _)| tape);
        quote! {
            #(let mut #tapes = ::autodiff::__private::Tape::new();)*
            #(let mut #fixed = ::autodiff::__private::Tape::new();)*
            #(let mut #flat = ::autodiff::__private::ArrayTape::new();)*
            #(let mut #whole = ::autodiff::__private::SnapshotTape::new();)*
        }
    }

    /// `tape.push(copy of array);` for each array that the call `site` reads and that is snapshot.
    fn snapshot_pushes(&self, site: CallSite) -> TokenStream {
        let pushes = self
            .snapshots
            .range((site, Array(0))..=(site, Array(u32::MAX)))
            .map(|((_, array), tape)| {
                let name = self.array_name(*array);
                if self.f.arrays[array.0 as usize].fixed {
                    quote!(#tape.push(::autodiff::__private::snapshot(&#name));)
                } else {
                    quote!(#tape.push(&#name[..]);)
                }
            });
        pushes.collect()
    }

    // Input:  let y = g(&z, n);
    // Output: let y = g::vjp_into(&z, n, One::one(), (Some(__tape_z_gradient_at_call.push_zeros(z.len())), Default::default()));
    /// The call `var` in the forward sweep, when its gradient is stored at the call: the callee's
    /// `vjp_into` with the cotangent one, which gives the value and adds the gradient with respect to each
    /// differentiated array into zeros pushed on that array's tape. The other arguments get no slot.
    fn call_storing_gradient(
        &self,
        var: Var,
        callee: &syn::ExprPath,
        args: &[Operand],
        by_ref: &[bool],
    ) -> TokenStream {
        let vjp_into = crate::companion::derivative_of(callee, "vjp_into", args.len() + 2);
        let call_args = args
            .iter()
            .zip(by_ref)
            .map(|(a, r)| self.call_arg(a, *r, self.operand(a)));
        let slots = args.iter().map(|arg| match arg {
            Operand::Array(array) if self.call_gradients.contains_key(&(var, *array)) => {
                let tape = &self.call_gradients[&(var, *array)];
                let name = self.array_name(*array);
                quote!(::core::option::Option::Some(#tape.push_zeros(#name.len())))
            }
            _ => quote!(::core::default::Default::default()),
        });
        quote!(#vjp_into(#(#call_args,)* ::autodiff::__private::One::one(), (#(#slots,)*)))
    }

    /// The call results whose call the forward sweep must run to store its array arguments. (A call
    /// that writes output buffers always runs.)
    fn snapshot_values(&self) -> impl Iterator<Item = Var> + '_ {
        let calls_out: BTreeSet<Var> = self
            .f
            .all_stmts()
            .into_iter()
            .filter_map(|s| match s {
                Stmt::CallOut { var, .. } => Some(*var),
                _ => None,
            })
            .collect();
        self.snapshots
            .keys()
            .filter_map(|(site, _)| match site {
                CallSite::Value(var) => Some(*var),
                CallSite::Array(_) => None,
            })
            .filter(move |var| !calls_out.contains(var))
    }

    /// `g(a, &b, &mut out)`: the primal call of a function with output parameters.
    pub(crate) fn call_out_expr(
        &self,
        callee: &syn::ExprPath,
        args: &[Operand],
        by_ref: &[bool],
        written: &[Written],
    ) -> TokenStream {
        let callee = crate::companion::primal_callee(callee, args.len());
        let args = args
            .iter()
            .zip(by_ref)
            .zip(written)
            .map(|((a, r), w)| match w {
                Written::No => self.call_arg(a, *r, self.operand(a)),
                _ => self.written_arg(a, w),
            });
        quote!(#callee(#(#args),*))
    }

    // Input:  total(&m)            (`m` a matrix, held flat with its row offsets)
    // Output: total(&*__matrix_m)  (a parameter)  or  total(&unflatten(&m[..], &uniform_row_offsets(3, n)))
    /// An argument of a call that is not written: `a` or `&a` (`by_ref`), and a matrix, which the generated
    /// code holds flat, in its own shape again.
    pub(crate) fn call_arg(&self, arg: &Operand, by_ref: bool, tokens: Tokens) -> TokenStream {
        // `self` passed on (`Self::other(self, x)` of `self.other(x)`, `g(self, x)`): as the callee's
        // receiver or parameter takes it, `&Self` or a clone (rustc's E0308 at a callee taking `self` by
        // value before: `&self` was passed).
        if let Some(reference) = self.self_reference(arg) {
            return quote!(::autodiff::__private::Receiver::receive(#reference));
        }
        // The constant `self` of a method's hidden function (`struct_higher.rs`), a `&Self` that its body
        // passes as `Receiver::receive(__self_primal)`: the same.
        if let Operand::Var(var) = arg {
            if self.f.params.contains(var) && self.f.vars[var.0 as usize].received {
                return quote!(::autodiff::__private::Receiver::receive(#tokens));
            }
        }
        // A parameter struct (or enum) taken by value, borrowed in the generated bodies (`let p = &p;`),
        // passed by value: a clone of it.
        if !by_ref && self.is_struct_taken_by_value(arg) {
            return quote!(::core::clone::Clone::clone(#tokens));
        }
        // A value of the user's type passed on whole (`inner(x, mode)`), which the generated code passes
        // again (to the callee's `vjp`, `jvp`): a copy of it each time, the value itself kept.
        // So is owned data of tuples (`weighted(x, terms)` of a `terms: Vec<(usize, f64)>`).
        if !by_ref
            && arg
                .var()
                .is_some_and(|v| self.passed_on.contains_key(&v) || self.owned_data.contains(&v))
        {
            return quote!(::core::clone::Clone::clone(&#tokens));
        }
        if let Operand::Array(array) = arg {
            // A matrix passed whole: the parameter as the caller has it, borrowed, or by value (`h(*m)` of
            // a `m: &[[f64; C]; R]`, `h(m)` of an owned one) a copy of it (autodiff-fuzz --seed 7171
            // --forms p121: E0308 where the borrow went to a callee taking `[[f64; C]; R]`).
            match (self.f.arrays[array.0 as usize].matrix.as_ref(), by_ref) {
                (
                    Some(crate::ir::MatrixShape {
                        original: Some((matrix, true)),
                        ..
                    }),
                    true,
                ) => return quote!(&*#matrix),
                (
                    Some(crate::ir::MatrixShape {
                        original: Some((matrix, true)),
                        ..
                    }),
                    false,
                ) => return quote!(::core::clone::Clone::clone(&*#matrix)),
                (
                    Some(crate::ir::MatrixShape {
                        original: Some((matrix, false)),
                        ..
                    }),
                    false,
                ) => return quote!(::core::clone::Clone::clone(&#matrix)),
                (
                    Some(crate::ir::MatrixShape {
                        original: Some((matrix, false)),
                        ..
                    }),
                    true,
                ) => return quote!(&#matrix),
                (Some(_), by_ref) => {
                    if let Some(shaped) = self.matrix_in_shape(*array, &tokens.to_token_stream()) {
                        return if by_ref { quote!(&#shaped) } else { shaped };
                    }
                }
                (None, _) => {}
            }
        }
        // Input:  dist(&pos[i], &pos[j])  (`pos: &[[f64; 3]]`, its row held as a sub-slice `pos_row`)
        // Output: dist(fixed_row::<_, 3>(&pos_row[..]), ..)
        // A sub-slice in the shape it stands for (`HeldAs`): a row `[T; N]` by reference, or a copy of it by
        // value (`norm(pos[i])`); an array field's window by reference (the sub-slice was rustc's E0308 at
        // a callee taking `&[f64; 3]`).
        if let Operand::Array(array) = arg {
            if let Some(held_as) = &self.f.arrays[array.0 as usize].held_as {
                let view = held_as.view(quote!(&#tokens[..]));
                match (held_as, by_ref) {
                    (_, true) => return view,
                    (crate::ir::HeldAs::Row(_), false) => return quote!(*#view),
                    (crate::ir::HeldAs::Field(_), false) => {}
                }
            }
        }
        // A field passed on by reference (`dot(&p.c, x)`), bound to a reference to the field (`let __p_c =
        // &p.c;`): the reference itself, which coerces to the callee's parameter (`&[f64]` of a `[f64; 2]`
        // field; it was `&&[f64; 2]`, rustc's E0308).
        let field_array = matches!(arg, Operand::Array(a) if self.f.arrays[a.0 as usize].field);
        if by_ref && (field_array || self.is_whole_field(arg)) {
            return quote!(&*#tokens);
        }
        if by_ref {
            quote!(&#tokens)
        } else {
            tokens.into_token_stream()
        }
    }

    /// Is `arg` the input of a field of a parameter struct that the body passes on whole (`&p.c`,
    /// `&p.inner`), which the generated bodies hold as a reference to the field (`structs.rs`)?
    pub(crate) fn is_whole_field(&self, arg: &Operand) -> bool {
        let Operand::Var(var) = arg else {
            return false;
        };
        self.f.params.contains(var)
            && matches!(self.activity.kind(arg), Kind::Struct(_))
            && matches!(
                &self.f.vars[var.0 as usize].declared,
                Some(syn::Type::Infer(_))
            )
    }

    /// `self` as a `&Self` where `arg` is the method's receiver: `self` of `&self`, `&self` of a `self`
    /// taken by value.
    pub(crate) fn self_reference(&self, arg: &Operand) -> Option<TokenStream> {
        let Operand::Var(var) = arg else {
            return None;
        };
        let info = &self.f.vars[var.0 as usize];
        if !self.f.params.contains(var) || info.hint.as_deref() != Some("self") {
            return None;
        }
        let name = self.name(*var);
        Some(match &info.declared {
            Some(_) => quote!(&#name),
            None => quote!(#name),
        })
    }

    /// Is `arg` a parameter struct (or a parameter of the user's type) taken by value, which the generated
    /// bodies borrow (`structs::Flattened::prologue`)?
    pub(crate) fn is_struct_taken_by_value(&self, arg: &Operand) -> bool {
        let Operand::Var(var) = arg else {
            return false;
        };
        // (`self` is not rebound: a `self` taken by value is borrowed where it is used.)
        self.f.params.contains(var)
            && self.f.vars[var.0 as usize].hint.as_deref() != Some("self")
            && matches!(self.activity.kind(arg), Kind::Struct(_))
            && matches!(&self.f.vars[var.0 as usize].declared,
                Some(ty) if !matches!(ty, syn::Type::Reference(_)))
    }

    /// `flat`, the elements (or their tangents) of the matrix `array`, row-major, in the matrix's shape:
    /// `Vec<Vec<T>>`, or the parameter's own type. `None` if `array` is no matrix of a known shape.
    pub(crate) fn matrix_in_shape(&self, array: Array, flat: &TokenStream) -> Option<TokenStream> {
        let shape = self.f.arrays[array.0 as usize].matrix.as_ref()?;
        // A matrix field's part of a values view in a `__g_pairs`: in the shape of the field.
        if let Some(like) = &shape.shaped_by {
            return Some(quote!(::autodiff::__private::matrix_window(#like, &#flat[..])));
        }
        Some(match (&shape.original, &shape.offsets, &shape.fixed) {
            (Some((matrix, _)), _, _) => {
                quote!(::autodiff::__private::unflatten_like(&#matrix, &#flat[..]))
            }
            (None, _, _) if shape.like.is_some() => {
                let like = &shape.like;
                quote!(::autodiff::__private::unflatten_like(&#like, &#flat[..]))
            }
            (None, Some(offsets), _) => {
                quote!(::autodiff::__private::unflatten(&#flat[..], &#offsets))
            }
            (None, None, Some((rows, cols))) => {
                quote!(::autodiff::__private::unflatten_fixed::<{ #rows }, { #cols }, _>(&#flat[..]))
            }
            (None, None, None) => {
                let rows = self.array_name(shape.rows?);
                quote!(::autodiff::__private::unflatten(&#flat[..], &#rows))
            }
        })
    }

    /// Is `arg` a matrix (passed whole to a call)?
    pub(crate) fn is_matrix(&self, arg: &Operand) -> bool {
        matches!(arg, Operand::Array(a) if self.f.arrays[a.0 as usize].matrix.is_some())
    }

    /// An array passed `&mut` to a call: `&mut k` of a local, `&mut *out` of an output parameter (a
    /// reference already), `&mut a[i]` of an element, `&mut a[s..e]` of a window.
    pub(crate) fn written_arg(&self, array: &Operand, written: &Written) -> TokenStream {
        let name = self.operand(array);
        match (array, written) {
            (_, Written::Element(index)) => {
                let index = self.operand(index);
                quote!(&mut #name[#index])
            }
            (_, Written::Window { start, end }) => {
                let (start, end) = (self.operand(start), self.operand(end));
                quote!(&mut #name[#start..#end])
            }
            (Operand::Array(a), _) if self.f.arrays[a.0 as usize].param.is_some() => {
                quote!(&mut *#name)
            }
            _ => quote!(&mut #name),
        }
    }

    /// The loop index at reverse iteration `t` (counting from the first forward iteration).
    pub(crate) fn nth_index(&self, l: &Loop, t: &Ident) -> Option<TokenStream> {
        let (range, index) = l.range.as_ref()?;
        let iterator = self.range_iterator(range);
        let name = self.name(*index);
        Some(quote! {
            let #name = ::autodiff::__private::nth(#iterator, #t);
        })
    }

    fn range_iterator(&self, range: &crate::ir::Range) -> TokenStream {
        let (start, end) = (self.operand(&range.start), self.operand(&range.end));
        range_tokens(
            range,
            start,
            end,
            range.step.as_ref().map(|s| self.operand(s)),
        )
    }

    /// A fresh name for the adjoint of `var`.
    pub(crate) fn adjoint_name(&mut self, var: Var) -> Ident {
        let base = naming::adjoint_base(&self.name(var).to_string());
        self.namer.fresh(&base)
    }

    /// A fresh name for the tangent of `var`.
    pub(crate) fn tangent_name(&mut self, var: Var) -> Ident {
        let base = naming::tangent_base(&self.name(var).to_string());
        self.namer.fresh(&base)
    }

    /// The `const` items of the body, which every generated function repeats.
    pub(crate) fn items(&self) -> TokenStream {
        let items = &self.f.items;
        quote!(#(#items)*)
    }

    /// The expression that computes `value`, written as the user wrote it.
    ///
    /// The names of the operands are placed at the user's expression (`span`), keeping their hygiene, so
    /// that a type error in the generated code underlines the user's code, not the attribute.
    pub(crate) fn primal_expr(&self, value: &Value, span: proc_macro2::Span) -> TokenStream {
        let op = |o: &Operand| match o {
            Operand::Var(v) => {
                let mut name = self.name(*v).clone();
                name.set_span(name.span().located_at(span));
                Tokens::Name(name)
            }
            _ => self.operand(o),
        };
        // A negative constant as a receiver needs parentheses: `(-1.0).abs()`.
        let receiver = |o: &Operand| match op(o) {
            Tokens::Other(tokens) if tokens.to_string().starts_with('-') => {
                Tokens::Other(quote!((#tokens)))
            }
            placed => placed,
        };
        match value {
            Value::Unary(u, o) => {
                let o = op(o);
                quote!(#u #o)
            }
            Value::Binary(b, l, r) => {
                let (l, r) = (op(l), op(r));
                quote!(#l #b #r)
            }
            Value::Cast(o, ty) => convert(
                op(o).into_token_stream(),
                &self.activity.kind(o),
                &self.activity.kind_of_type(ty),
                ty,
            ),
            Value::Tuple(items) => {
                let items = items.iter().map(op);
                quote!((#(#items,)*))
            }
            Value::Field(o, index) => {
                let o = op(o);
                let index = syn::Index::from(*index as usize);
                quote!(#o.#index)
            }
            Value::Float { form, args, .. } => match form {
                CallForm::Method(method) => {
                    let recv = receiver(&args[0]);
                    let rest = args[1..].iter().map(op);
                    quote!(#recv.#method(#(#rest),*))
                }
                CallForm::Path(path) => {
                    let args = args.iter().map(op);
                    quote!(#path(#(#args),*))
                }
            },
            Value::Method {
                receiver: recv,
                method,
                turbofish,
                args,
            } => {
                let recv = receiver(recv);
                let args = args.iter().map(op);
                quote!(#recv.#method #turbofish (#(#args),*))
            }
            Value::Call {
                callee,
                args,
                by_ref,
            } => {
                let callee = crate::companion::primal_callee(callee, args.len());
                let args = args
                    .iter()
                    .zip(by_ref)
                    .map(|(a, r)| self.call_arg(a, *r, op(a)));
                quote!(#callee(#(#args),*))
            }
            Value::StopGradient { callee, arg } => {
                let arg = op(arg);
                quote!(#callee(#arg))
            }
            // An element of a matrix read in place: from the matrix, bounds-checked as the primal's
            // `m[i][j]` (`matrix_reads.rs`).
            Value::Load {
                array,
                at: Some(at),
                ..
            } if at.in_place => {
                let matrix = naming::matrix(self.array_name(*array));
                let (row, column) = (op(&at.row), op(&at.column));
                quote!(#matrix[#row][#column])
            }
            Value::Load { array, index, .. } => {
                let (array, index) = (self.array_name(*array), op(index));
                quote!(#array[#index])
            }
            Value::RowLen { matrix, row } => {
                let (matrix, row) = (naming::matrix(self.array_name(*matrix)), op(row));
                quote!(#matrix[#row].len())
            }
            Value::Len(array) => match self.unread_offsets.get(array) {
                // A matrix read in place has one offset more than rows.
                Some(flat) => {
                    let matrix = naming::matrix(self.array_name(*flat));
                    quote!((#matrix.len() + 1))
                }
                None => {
                    let array = self.array_name(*array);
                    quote!(#array.len())
                }
            },
        }
    }

    /// The reads of `l` that go through views (`views.rs`), with the views' names.
    pub(crate) fn loop_views(&self, l: &Loop) -> &[(View, Ident)] {
        self.views
            .get(&l.trips)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// While `l`'s body is printed, its reads through views are printed as such ([`Emitter::view_read`]).
    pub(crate) fn begin_views(&self, l: &Loop) {
        let Some((_, index)) = &l.range else {
            return;
        };
        let index = self.name(*index);
        let operand = |o: &Operand| self.operand(o);
        let mut reading = self.reading.borrow_mut();
        for (view, name) in self.loop_views(l) {
            reading.insert(view.load, (views::read(name, index, l, &operand), false));
        }
    }

    /// After `l`'s body is printed: the declarations of the views whose reads were, to go before the loop.
    pub(crate) fn end_views(&self, l: &Loop) -> Vec<TokenStream> {
        let operand = |o: &Operand| self.operand(o);
        self.loop_views(l)
            .iter()
            .filter(|(view, _)| {
                let read = self.reading.borrow_mut().remove(&view.load);
                read.is_some_and(|(_, used)| used)
            })
            .map(|(view, name)| {
                let array = self.array_name(view.array);
                views::declaration(view, name, array, l, &operand, false)
            })
            .collect()
    }

    /// The values defined outside `l` that its views' declarations read.
    pub(crate) fn view_reads(&self, l: &Loop) -> Vec<Var> {
        self.loop_views(l)
            .iter()
            .flat_map(|(view, _)| view.reads.iter().copied())
            .collect()
    }

    /// The values the offsets of `l`'s views that were read read: printed before the loop.
    fn used_view_reads(&self, l: &Loop) -> Vec<Var> {
        let reading = self.reading.borrow();
        let used = self
            .loop_views(l)
            .iter()
            .filter(|(view, _)| reading.get(&view.load).is_some_and(|(_, used)| *used));
        used.flat_map(|(view, _)| view.reads.iter().copied())
            .collect()
    }

    /// Is `var` read through a view of the loop being printed (`begin_views`)? Then its read names the
    /// loop's index (and the range's start), not the index value of the body's `Load`.
    pub(crate) fn reads_through_view(&self, var: Var) -> bool {
        self.reading.borrow().contains_key(&var)
    }

    /// The read of `var` through a view, while its loop is printed (`begin_views`).
    pub(crate) fn view_read(&self, var: Var) -> Option<TokenStream> {
        let mut reading = self.reading.borrow_mut();
        let (read, used) = reading.get_mut(&var)?;
        *used = true;
        Some(read.clone())
    }

    /// `: T` for a value whose `let` the user annotated with `T`, to repeat on its generated `let`.
    pub(crate) fn declared_type(&self, var: Var) -> Option<TokenStream> {
        let ty = self.f.vars[var.0 as usize].declared.as_ref()?;
        Some(quote!(: #ty))
    }

    /// `: T`, or `: (T, _, ..)`, for the `let` of the values a branch yields, where the user annotated one
    /// of them (`let u: f64 = t;` after `let t = if c { 0.5 } else { 1.5 };`): the branch's literals alone
    /// would leave the type ambiguous to rustc once the alias is gone. `None` stands for a value of ours
    /// (a tangent).
    pub(crate) fn declared_types(&self, vars: &[Option<Var>]) -> TokenStream {
        let types: Vec<Option<&syn::Type>> = vars
            .iter()
            .map(|v| v.and_then(|v| self.f.vars[v.0 as usize].declared.as_ref()))
            .collect();
        match types.as_slice() {
            _ if types.iter().all(Option::is_none) => quote!(),
            [Some(ty)] => quote!(: #ty),
            many => {
                let items = many.iter().map(|t| match t {
                    Some(ty) => quote!(#ty),
                    None => quote!(_),
                });
                quote!(: (#(#items),*))
            }
        }
    }

    /// A zero of `kind`, for a derivative that nothing contributes to.
    pub(crate) fn zero_of(kind: &Kind) -> TokenStream {
        match kind {
            Kind::Float(Some(ty)) => match ty.to_token_stream().to_string().as_str() {
                "f64" | "f32" => quote!(0.0),
                _ => quote!(<#ty as ::autodiff::__private::Zero>::zero()),
            },
            // A float whose type only an untyped literal gives (`0.0` flowing into it): a literal too, which
            // rustc types as it types the user's (a bare `Zero::zero()` could be any numeric type). Such a
            // value cannot be a type parameter `T`: literals do not mix with `T`.
            Kind::Float(None) => quote!(0.0),
            // The value of a `()` function's `return;` (or of a loop's `break;`): unit has no zero.
            Kind::Unit => quote!(()),
            Kind::Tuple(items) => {
                let items = items.iter().map(Self::zero_of);
                quote!((#(#items,)*))
            }
            _ => quote!(::autodiff::__private::Zero::zero()),
        }
    }

    /// The zero adjoint of `var`: of its kind, or, for a parameter whose type the syntax does not give
    /// (a field of a parameter struct), a zero of the type of its value, which is in scope.
    pub(crate) fn zero_of_var(&self, var: Var) -> TokenStream {
        match self.activity.var_kind(var) {
            Kind::Unknown | Kind::Float(None) if self.f.params.contains(&var) => {
                // A field converted to a float (`p.n as f64`): its adjoint is of the float type the
                // conversions give, whatever the field's own (`zero_like` of a `#[no_grad] n: usize`
                // was a `usize`, to which a loop's reverse sweep then added an `f64`: rustc's E0277).
                if let Some(ty) = self.float_cast_of(var) {
                    return Self::zero_of(&Kind::Float(Some(ty)));
                }
                let name = self.name(var);
                quote!(::autodiff::__private::zero_like(&#name))
            }
            // A parameter struct (only ever passed to calls): a zero of its shape, which the adjoints that
            // the calls give back are added into.
            // A nested struct's field passed on whole (`g(&p.inner)`) is bound as a reference of a type
            // the syntax does not give (`let __p_inner = &p.inner;`): `&*`, else `_` is inferred as the
            // reference (`&N` is not `Differentiable`, rustc's E0277 where a branch returned early).
            Kind::Struct(syn::Type::Infer(_)) => {
                let name = self.name(var);
                quote!(<_ as ::autodiff::__private::Differentiable>::zero_like(&*#name))
            }
            Kind::Struct(ty) => {
                let name = self.name(var);
                quote!(<#ty as ::autodiff::__private::Differentiable>::zero_like(&#name))
            }
            kind => Self::zero_of(kind),
        }
    }

    /// The float type `var` is converted to by a cast in the body (`var as f64`), if any.
    fn float_cast_of(&self, var: Var) -> Option<syn::Type> {
        self.f.all_stmts().into_iter().find_map(|stmt| match stmt {
            crate::ir::Stmt::Let {
                value: crate::ir::Value::Cast(o, ty),
                ..
            } if o.var() == Some(var)
                && matches!(self.activity.kind_of_type(ty), Kind::Float(Some(_))) =>
            {
                Some(ty.clone())
            }
            _ => None,
        })
    }

    /// The local a callee's `vjp_into` adds a float argument's cotangent into: IEEE's additive identity
    /// `-0.0` where the float type is a primitive (`-0.0 + x` is `x` for every `x`, `0.0 + x` is not for
    /// `x = -0.0`, so LLVM can drop the addition only from the former), otherwise the zero of `var`. Every
    /// `vjp_into` adds into each slot it is given, so the local never stays `-0.0` in place of a cotangent.
    pub(crate) fn cotangent_slot_of_var(&self, var: Var) -> TokenStream {
        match self.activity.var_kind(var) {
            Kind::Float(Some(ty))
                if matches!(ty.to_token_stream().to_string().as_str(), "f64" | "f32") =>
            {
                quote!(-0.0)
            }
            Kind::Float(None) if !self.f.params.contains(&var) => quote!(-0.0),
            _ => self.zero_of_var(var),
        }
    }

    /// A one of the float type `kind`, the seed of `_grad`.
    pub(crate) fn one_of(kind: &Kind) -> TokenStream {
        match kind {
            Kind::Float(Some(ty)) => match ty.to_token_stream().to_string().as_str() {
                "f64" | "f32" => quote!(1.0),
                _ => quote!(<#ty as ::autodiff::__private::One>::one()),
            },
            _ => quote!(::autodiff::__private::One::one()),
        }
    }

    /// The primal code of `block` that computes `roots` (values defined in it) and what they depend on.
    /// Returns the code and the values it reads that are defined outside `block`. In `Mode::Sweep` it also
    /// writes memory and pushes the taped values.
    pub(crate) fn primal(
        &self,
        block: &Block,
        roots: &BTreeSet<Var>,
        mode: Mode,
    ) -> (TokenStream, BTreeSet<Var>) {
        let mut need: BTreeSet<Var> = roots.clone();
        if mode == Mode::Sweep {
            need.extend(self.tapes.keys().copied());
            need.extend(self.snapshot_values());
            need.extend(self.call_linear.keys().copied());
        }
        let mut pieces: Vec<TokenStream> = Vec::new();
        for stmt in block.stmts.iter().rev() {
            let piece = match stmt {
                Stmt::Let { var, value } => {
                    if !need.contains(var) {
                        continue;
                    }
                    // A load through a view reads the loop's index, not the index the body computed
                    // (`views::read`): that is not printed unless something else reads it (it cannot
                    // overflow where the view is read: the view's bounds check covers it). The reference
                    // adjoint prints it as before.
                    let through_view =
                        matches!(value, Value::Load { .. }) && self.reads_through_view(*var);
                    if !through_view || cfg!(feature = "reference-adjoint") {
                        need.extend(value.operands().into_iter().filter_map(Operand::var));
                    }
                    let name = self.name(*var);
                    let mut expr = self.primal_expr(value, self.f.vars[var.0 as usize].span);
                    if let Some(read) = self.view_read(*var) {
                        expr = read;
                    }
                    let ty = self.declared_type(*var);
                    let mut snapshots = match mode {
                        Mode::Sweep => self.snapshot_pushes(CallSite::Value(*var)),
                        Mode::Recompute => TokenStream::new(),
                    };
                    // A call whose gradient may be stored (`reverse/call_gradient.rs`): that, or joint
                    // mode's copies of its arguments, as the callee is linear in the cotangent or not.
                    if let (
                        Mode::Sweep,
                        Value::Call {
                            callee,
                            args,
                            by_ref,
                        },
                        Some(check),
                    ) = (mode, value, self.call_linear.get(var))
                    {
                        let stored = self.call_storing_gradient(*var, callee, args, by_ref);
                        expr = quote!(if #check { #stored } else { #snapshots #expr });
                        snapshots = TokenStream::new();
                    }
                    quote!(#snapshots let #name #ty = #expr;)
                }
                // A call that writes output buffers always runs (in the forward sweep): it writes memory.
                Stmt::CallOut {
                    var,
                    callee,
                    args,
                    by_ref,
                    written,
                    ..
                } => {
                    if mode == Mode::Recompute {
                        continue;
                    }
                    need.extend(stmt.operands().into_iter().filter_map(Operand::var));
                    let call = self.call_out_expr(callee, args, by_ref, written);
                    let snapshots = self.snapshot_pushes(CallSite::Value(*var));
                    if need.contains(var) {
                        let name = self.name(*var);
                        quote!(#snapshots let #name = #call;)
                    } else {
                        quote!(#snapshots #call;)
                    }
                }
                Stmt::If { cond, outs, .. }
                | Stmt::Match {
                    scrutinee: cond,
                    outs,
                    ..
                } => {
                    let wanted: Vec<usize> = (0..outs.len())
                        .filter(|i| need.contains(&outs[*i]))
                        .collect();
                    let sweep_effects =
                        mode == Mode::Sweep && (stmt.has_effects() || self.tapes_inside(stmt));
                    if wanted.is_empty() && !sweep_effects {
                        continue;
                    }
                    let names: Vec<&Ident> = wanted.iter().map(|i| self.name(outs[*i])).collect();
                    let arms: Vec<TokenStream> = stmt
                        .blocks()
                        .into_iter()
                        .map(|b| {
                            let yields: Vec<&Operand> =
                                wanted.iter().map(|i| &b.yields[*i]).collect();
                            let inner_roots = yields.iter().filter_map(|o| o.var()).collect();
                            let (code, free) = self.primal(b, &inner_roots, mode);
                            need.extend(free);
                            let yields = tuple_or_single(
                                yields
                                    .iter()
                                    .map(|o| self.operand(o).into_token_stream())
                                    .collect(),
                            );
                            block_with_value(code, yields)
                        })
                        .collect();
                    need.extend(cond.var());
                    let branches = self.branches(stmt, cond, arms);
                    if names.is_empty() {
                        quote!(#branches;)
                    } else {
                        let pattern =
                            tuple_or_single(names.iter().map(|n| n.to_token_stream()).collect());
                        let types = self.declared_types(
                            &wanted.iter().map(|i| Some(outs[*i])).collect::<Vec<_>>(),
                        );
                        quote!(let #pattern #types = #branches;)
                    }
                }
                Stmt::Store {
                    array,
                    index,
                    value,
                } => {
                    if mode == Mode::Recompute {
                        continue;
                    }
                    need.extend(index.var());
                    need.extend(value.var());
                    let (array, index, value) = (
                        self.array_name(*array),
                        self.operand(index),
                        self.operand(value),
                    );
                    quote!(#array[#index] = #value;)
                }
                Stmt::Push {
                    array,
                    index,
                    value,
                } => {
                    if mode == Mode::Recompute {
                        continue;
                    }
                    need.extend(value.var());
                    let (name, value) = (self.array_name(*array), self.operand(value));
                    if need.contains(index) {
                        let index = self.name(*index);
                        quote!(let #index = #name.len(); #name.push(#value);)
                    } else {
                        quote!(#name.push(#value);)
                    }
                }
                Stmt::Truncate { array, len } => {
                    if mode == Mode::Recompute {
                        continue;
                    }
                    need.extend(len.var());
                    let (name, len) = (self.array_name(*array), self.operand(len));
                    quote!(#name.truncate(#len);)
                }
                Stmt::NewArray {
                    array,
                    init: ArrayInit::Window { source, range, row },
                } if self.borrowed_windows.contains(array) => {
                    // Borrowed, in either mode: it writes nothing (`views::borrowed_windows`).
                    need.extend(self.window_refs(stmt));
                    self.borrowed_window(*array, *source, range, row.as_deref())
                }
                Stmt::NewArray { array, init } => {
                    if mode == Mode::Recompute || self.unread_offsets.contains_key(array) {
                        continue;
                    }
                    // A row of a matrix read in place is copied from the matrix by its index, not by the
                    // bounds from its row offsets, which may not be made (`views::unread_offsets`).
                    need.extend(self.window_refs(stmt));
                    let name = self.array_name(*array);
                    let info = &self.f.arrays[array.0 as usize];
                    let init = self.array_init(init, info.fixed);
                    let ty = info.declared.as_ref().map(|ty| quote!(: #ty));
                    let snapshots = self.snapshot_pushes(CallSite::Array(*array));
                    quote!(#snapshots let mut #name #ty = #init;)
                }
                Stmt::Loop(l) => {
                    if mode == Mode::Recompute {
                        continue;
                    }
                    let (code, free) = self.primal_loop(l, &need);
                    need.extend(free);
                    // The loads the loop repeats, stored once as it starts (read safely: the loop may not
                    // run, and then the stored value is never used).
                    let hoisted = self.hoisted.get(&l.trips).into_iter().flatten();
                    let pushes: Vec<TokenStream> = hoisted
                        .map(|(tape, array, index)| {
                            need.extend(index.var());
                            let (array, index) = (self.array_name(*array), self.operand(index));
                            quote!(#tape.push(::autodiff::__private::load_or_zero(&#array, #index));)
                        })
                        .collect();
                    // The arrays stored whole once the loop has written them.
                    let whole = self.array_snapshots.get(&l.trips).into_iter().flatten();
                    let stores = whole.map(|(tape, array)| {
                        let array = self.array_name(*array);
                        quote!(#tape.push(&#array[..]);)
                    });
                    quote!(#(#pushes)* #code #(#stores)*)
                }
            };
            // In reverse: the pieces are reversed below.
            if mode == Mode::Recompute {
                let again = stmt
                    .defs()
                    .into_iter()
                    .filter(|v| self.tapes.contains_key(v));
                self.pushed_again.borrow_mut().extend(again);
            }
            pieces.push(self.pushes(&stmt.defs()));
            pieces.push(piece);
        }
        pieces.reverse();
        let defs: BTreeSet<Var> = block.defs().into_iter().collect();
        let free = need.difference(&defs).copied().collect();
        (concat(pieces), free)
    }

    /// `tape.push(value);` for each of `vars` that is taped.
    fn pushes(&self, vars: &[Var]) -> TokenStream {
        let pushes = vars.iter().filter_map(|v| {
            let tape = self.tapes.get(v)?;
            let name = self.name(*v);
            Some(quote!(#tape.push(#name);))
        });
        pushes.collect()
    }

    /// Are any of the values defined inside `stmt`'s blocks taped, or arrays snapshot at calls there?
    fn tapes_inside(&self, stmt: &Stmt) -> bool {
        let snapshot = |var: &Var| {
            self.snapshots
                .keys()
                .any(|(site, _)| *site == CallSite::Value(*var))
        };
        stmt.blocks().iter().any(|b| {
            b.stmts.iter().any(|s| {
                s.defs()
                    .iter()
                    .any(|v| self.tapes.contains_key(v) || snapshot(v))
                    || self.tapes_inside(s)
            })
        }) || matches!(stmt, Stmt::Loop(l) if l.phis.iter().any(|v| self.tapes.contains_key(v)))
    }

    /// The forward sweep of a loop: the carried values are mutable variables, assigned at the end of each
    /// iteration; the number of iterations is counted when the reverse sweep needs it.
    fn primal_loop(&self, l: &Loop, need: &BTreeSet<Var>) -> (TokenStream, BTreeSet<Var>) {
        let mut free: BTreeSet<Var> = l.inits.iter().filter_map(Operand::var).collect();
        let phis: Vec<&Ident> = l.phis.iter().map(|p| self.name(*p)).collect();
        // A carried float that only an untyped literal starts (`let mut t = 0.0;`) and that the body gives
        // its type by an annotation the lowering leaves out (`let u: f64 = t;`, a closure's `|t: f64|`).
        let types: Vec<Option<TokenStream>> =
            l.phis.iter().map(|p| self.declared_type(*p)).collect();
        let inits: Vec<Tokens> = l.inits.iter().map(|o| self.operand(o)).collect();
        let count = need.contains(&l.trips) || self.tapes.contains_key(&l.trips);
        let trips = self.name(l.trips);
        let (counter, increment) = if count {
            (quote!(let mut #trips = 0usize;), quote!(#trips += 1;))
        } else {
            (quote!(), quote!())
        };
        let cond = l.cond.as_ref().map(|cond| {
            let roots = cond.yields.iter().filter_map(Operand::var).collect();
            let (code, cond_free) = self.primal(cond, &roots, Mode::Sweep);
            free.extend(cond_free);
            let value = self.operand(&cond.yields[0]);
            quote!(#code if !(#value) { break; })
        });
        let phi_pushes = self.pushes(&l.phis);
        let fused = self.fused.get(&l.trips);
        let mut roots: BTreeSet<Var> = l.body.yields.iter().filter_map(Operand::var).collect();
        roots.extend(fused.iter().flat_map(|f| f.roots.iter().copied()));
        self.begin_views(l);
        let (body, body_free) = self.primal(&l.body, &roots, Mode::Sweep);
        free.extend(body_free);
        free.extend(self.used_view_reads(l));
        let view_declarations = self.end_views(l);
        // Parallel assignment of the next values, as `(a, b) = (b, a)` needs.
        let changed: Vec<(usize, &Operand)> = l
            .body
            .yields
            .iter()
            .enumerate()
            .filter(|(i, y)| y.var() != Some(l.phis[*i]))
            .collect();
        let assign = match changed.as_slice() {
            [] => quote!(),
            [(i, y)] => {
                let (phi, y) = (phis[*i], self.operand(y));
                quote!(#phi = #y;)
            }
            many => {
                let targets = many.iter().map(|(i, _)| phis[*i]);
                let values = many.iter().map(|(_, y)| self.operand(y));
                quote!((#(#targets),*) = (#(#values),*);)
            }
        };
        let exit = l.exit_flag.map(|i| {
            let flag = phis[i];
            quote!(if #flag { break; })
        });
        let header = match &l.range {
            Some((range, index)) => {
                if let Some(step) = &range.step {
                    free.extend(step.var());
                }
                free.extend(range.start.var());
                free.extend(range.end.var());
                let iterator = self.range_iterator(range);
                let index = self.name(*index);
                quote!(for #index in #iterator)
            }
            None => quote!(loop),
        };
        let (fused_before, fused_inside, fused_after) = match fused {
            Some(f) => (f.before.clone(), f.inside.clone(), f.after.clone()),
            None => Default::default(),
        };
        let reserve = self.reservations(l);
        let view_declarations = concat(view_declarations);
        let code = quote! {
            #fused_before
            #(let mut #phis #types = #inits;)*
            #counter
            #reserve
            #view_declarations
            #header {
                #cond
                #phi_pushes
                #body
                #fused_inside
                #assign
                #increment
                #exit
            }
            #fused_after
        };
        let inner: BTreeSet<Var> = l
            .phis
            .iter()
            .copied()
            .chain(l.range.as_ref().map(|(_, i)| *i))
            .collect();
        (code, free.difference(&inner).copied().collect())
    }

    /// The tapes a `for` loop over a range fills, reserved when it starts: each tape pushed on in every
    /// iteration (outside branches) gets room for the loop's trip count times those of the loops around
    /// the push inside it, where those are `for` loops over ranges whose bounds are known when `l` starts.
    /// A loop that may `break` reserves nothing, and so does a loop inside another (whose tapes the
    /// outermost loop reserves for, where it can: reserving again at every start of an inner loop costs
    /// more than it saves). A tape of arrays stored at a call gets room for that many arrays of the length
    /// the array has when the loop starts (`__tape_z_at_call.reserve(count, z.len())`). A fused loop's
    /// iterations pop what they push: only the loops inside it count.
    ///
    /// ```text
    /// // Input:                              // Output (forward sweep):
    /// for n in 0..m {                        __tape_v9.reserve(size_hint(&(0..m)).0
    ///     for j in 0..hidden { .. a.tanh() }     .saturating_mul(size_hint(&(0..hidden)).0));
    /// }                                      for n in 0..m { .. __tape_v9.push(__v9); .. }
    /// ```
    fn reservations(&self, l: &Loop) -> TokenStream {
        let outermost = self
            .f
            .body
            .stmts
            .iter()
            .any(|s| matches!(s, Stmt::Loop(x) if x.trips == l.trips));
        if !outermost {
            return TokenStream::new();
        }
        let mut inside = BTreeSet::new();
        collect_defs(&l.body, &mut inside);
        inside.extend(l.phis.iter().copied());
        inside.extend(l.range.as_ref().map(|(_, index)| *index));
        let mut found = Vec::new();
        // A fused loop pops in each iteration what that iteration pushed: its tapes need room for one
        // iteration's values, not the loop's.
        let fused = self.fused.contains_key(&l.trips);
        if let Some(trips) = self.trips_hint(l, None) {
            let factors = if fused { Vec::new() } else { vec![trips] };
            self.reservations_in(l, factors, (&inside, &l.body), &mut found);
        }
        // With no factor left, a tape holds one value (or array) at a time.
        found.retain(|(_, factors, _, _)| !factors.is_empty());
        let reserves = found.into_iter().map(|(tape, factors, len, condition)| {
            let count = factors
                .into_iter()
                .reduce(|a, b| quote!(#a.saturating_mul(#b)))
                .unwrap_or_else(|| quote!(0usize));
            // An `ArrayTape` takes the number of arrays and the length of each.
            let len = len.map(|len| quote!(, #len));
            match condition {
                Some(condition) => quote!(if #condition { #tape.reserve(#count #len); }),
                None => quote!(#tape.reserve(#count #len);),
            }
        });
        reserves.collect()
    }

    /// The trip count of `l` as it starts (`size_hint` of its range), if it is a `for` over a range that
    /// runs to its end and whose bounds are not among `inside` (values defined in an enclosing loop).
    fn trips_hint(&self, l: &Loop, inside: Option<&BTreeSet<Var>>) -> Option<TokenStream> {
        let (range, _) = l.range.as_ref()?;
        if l.exit_flag.is_some() || l.cond.is_some() {
            return None;
        }
        let bounds = [Some(&range.start), Some(&range.end), range.step.as_ref()];
        let known = bounds
            .iter()
            .flatten()
            .filter_map(|o| o.var())
            .all(|v| inside.is_none_or(|inside| !inside.contains(&v)));
        known.then(|| {
            let iterator = self.range_iterator(range);
            quote!(::core::iter::Iterator::size_hint(&(#iterator)).0)
        })
    }

    /// The tapes of `reservations` pushed in `l`'s body and the loops nested in it, with the trip counts
    /// (`factors`) around them; `inside` the values defined in the outermost loop, whose body is `outermost`
    /// (where the reservations are made).
    fn reservations_in(
        &self,
        l: &Loop,
        factors: Vec<TokenStream>,
        (inside, outermost): (&BTreeSet<Var>, &Block),
        found: &mut Vec<Reservation>,
    ) {
        let mut pushed: Vec<Var> = l.phis.clone();
        for stmt in &l.body.stmts {
            pushed.extend(stmt.defs());
            if let Stmt::Loop(inner) = stmt {
                // Arrays stored whole after the inner loop, once per iteration of `l`, as long as they
                // are when the outermost loop starts (made before it, outside any loop or branch).
                for (tape, array) in self.array_snapshots.get(&inner.trips).into_iter().flatten() {
                    let top_level = (self.f.body.stmts.iter())
                        .any(|s| matches!(s, Stmt::NewArray { array: a, .. } if a == array));
                    if top_level {
                        let name = self.array_name(*array);
                        let len = Some(quote!(#name.len()));
                        found.push((tape.clone(), factors.clone(), len, None));
                    }
                }
                if let Some(trips) = self.trips_hint(inner, Some(inside)) {
                    let mut nested = factors.clone();
                    nested.push(trips);
                    self.reservations_in(inner, nested, (inside, outermost), found);
                }
            }
        }
        for var in pushed {
            if let Some(tape) = self.tapes.get(&var) {
                found.push((tape.clone(), factors.clone(), None, None));
            }
            // An array stored at a call (or the call's gradient with respect to it), as long as it is when
            // the outermost loop starts: an array made inside it (in an enclosing loop's body too, around an
            // inner loop with the call) is not known then.
            // Where the call may store its gradient instead, each tape is reserved only in its branch.
            let site = CallSite::Value(var);
            let check = self.call_linear.get(&var);
            let stored = self
                .snapshots
                .range((site, Array(0))..=(site, Array(u32::MAX)))
                .map(|((_, array), tape)| (*array, tape, check.map(|c| quote!(!#c))))
                .chain(
                    self.call_gradients
                        .range((var, Array(0))..=(var, Array(u32::MAX)))
                        .map(|((_, array), tape)| (*array, tape, check.cloned())),
                );
            for (array, tape, condition) in stored {
                if self.f.arrays[array.0 as usize].fixed || made_in(outermost, array) {
                    continue;
                }
                let name = self.array_name(array);
                let len = Some(quote!(#name.len()));
                found.push((tape.clone(), factors.clone(), len, condition));
            }
        }
    }

    /// The range of a sub-slice: `a..b`, `a..`, `..b`, `a..=b`.
    pub(crate) fn window(&self, range: &crate::ir::Window) -> TokenStream {
        let start = range.start.as_ref().map(|o| self.operand(o));
        let end = range.end.as_ref().map(|o| self.operand(o));
        if range.inclusive {
            quote!(#start..=#end)
        } else {
            quote!(#start..#end)
        }
    }

    /// `let r = &source[range];`: a sub-slice borrowed (`views::borrowed_windows`).
    pub(crate) fn borrowed_window(
        &self,
        array: Array,
        source: Array,
        range: &crate::ir::Window,
        row: Option<&Operand>,
    ) -> TokenStream {
        let (name, window) = (self.array_name(array), self.sub_slice(source, range, row));
        quote!(let #name: &[_] = &#window;)
    }

    /// Reads in place the matrix parameters this sweep holds inactive and uses only through their rows
    /// (`views::in_place_matrices`).
    pub(crate) fn read_matrices_in_place(&mut self) {
        let activity = self.activity;
        self.in_place = views::in_place_matrices(self.f, &|a| !activity.is_active_array(a));
        self.unread_offsets = views::unread_offsets(self.f, &self.in_place);
    }

    /// Runs `run` with this emitter over `f`, a copy of its function with the matrices `in_place` read in
    /// place by element (`matrix_reads::read_in_place`: the same values and arrays), and takes its state
    /// back after. The reads through views of those matrices' flat arrays are left out: they read the
    /// matrix instead.
    pub(crate) fn over<'b, R>(
        &mut self,
        f: &'b Function,
        in_place: &BTreeSet<Array>,
        run: impl FnOnce(&mut Emitter<'b>) -> R,
    ) -> R
    where
        'a: 'b,
    {
        let mut state = std::mem::take(&mut self.state);
        for read in state.views.values_mut() {
            read.retain(|(view, _)| !in_place.contains(&view.array));
        }
        state.views.retain(|_, read| !read.is_empty());
        let mut local = Emitter {
            f,
            activity: self.activity,
            state,
        };
        let out = run(&mut local);
        self.state = local.state;
        out
    }

    /// The names of the matrix parameters read in place (`views::in_place_matrices`).
    pub(crate) fn in_place_names(&self) -> BTreeSet<String> {
        (self.in_place.iter())
            .map(|a| self.f.arrays[a.0 as usize].name.clone())
            .collect()
    }

    /// `source[range]`, or `__matrix_m[i][..]` for a row `i` of a matrix read in place
    /// (`views::in_place_matrices`).
    pub(crate) fn sub_slice(
        &self,
        source: Array,
        range: &crate::ir::Window,
        row: Option<&Operand>,
    ) -> TokenStream {
        match row {
            Some(row) if self.in_place.contains(&source) => {
                let (matrix, row) = (naming::matrix(self.array_name(source)), self.operand(row));
                quote!(#matrix[#row][..])
            }
            _ => {
                let (source, range) = (self.array_name(source), self.window(range));
                quote!(#source[#range])
            }
        }
    }

    /// The values that making the sub-slice `stmt` (a `NewArray` of a window) reads: its bounds, or the
    /// row's index of a matrix read in place.
    pub(crate) fn window_refs(&self, stmt: &Stmt) -> Vec<Var> {
        match stmt {
            Stmt::NewArray {
                init:
                    ArrayInit::Window {
                        source,
                        row: Some(row),
                        ..
                    },
                ..
            } if self.in_place.contains(source) => row.var().into_iter().collect(),
            _ => stmt
                .operands()
                .into_iter()
                .filter_map(Operand::var)
                .collect(),
        }
    }

    /// The expression that makes a new array.
    fn array_init(&self, init: &ArrayInit, fixed_copy: bool) -> TokenStream {
        match init {
            ArrayInit::Repeat { value, len, fixed } => {
                let (value, len) = (self.operand(value), self.operand(len));
                if *fixed {
                    quote!([#value; #len])
                } else {
                    quote!(::std::vec![#value; #len])
                }
            }
            // A parameter may be a reference (`let mut c = *x;` of `x: &[f64; 2]`): `.clone()` copies
            // through it as it copies an owned array.
            ArrayInit::Copy(source) if self.f.arrays[source.0 as usize].fixed && fixed_copy => {
                let param = self.f.arrays[source.0 as usize].param.is_some();
                let source = self.array_name(*source);
                if param {
                    quote!(#source.clone())
                } else {
                    quote!(#source)
                }
            }
            ArrayInit::Elements { items, fixed } => {
                let items = items.iter().map(|o| self.operand(o));
                if *fixed {
                    quote!([#(#items),*])
                } else {
                    quote!(::std::vec![#(#items),*])
                }
            }
            ArrayInit::Empty { capacity } => match capacity {
                Some(n) => {
                    let n = self.operand(n);
                    quote!(::std::vec::Vec::with_capacity(#n))
                }
                None => quote!(::std::vec::Vec::new()),
            },
            // A fixed-size array copied from one the function sees as a slice (a struct's array field,
            // `let mut w: [f64; 2] = self.w;`, whose input is a slice of the field): of the declared type.
            ArrayInit::Copy(source) if fixed_copy => {
                let source = self.array_name(*source);
                quote!(::autodiff::__private::FromElements::from_elements(&#source[..]))
            }
            ArrayInit::Copy(source) if self.f.arrays[source.0 as usize].untyped => {
                let source = self.array_name(*source);
                quote!(#source.clone())
            }
            ArrayInit::Copy(source) => {
                let source = self.array_name(*source);
                quote!(#source.to_vec())
            }
            ArrayInit::Window { source, range, row } => {
                let window = self.sub_slice(*source, range, row.as_deref());
                quote!(#window.to_vec())
            }
            ArrayInit::Call {
                callee,
                args,
                by_ref,
            } => {
                let call = Value::Call {
                    callee: callee.clone(),
                    args: args.clone(),
                    by_ref: by_ref.clone(),
                };
                self.primal_expr(&call, proc_macro2::Span::call_site())
            }
        }
    }

    /// `if cond { arm0 } else { arm1 }` or `match cond { pat => arm, .. }` with the given arm bodies.
    pub(crate) fn branches(
        &self,
        stmt: &Stmt,
        cond: &Operand,
        arms: Vec<TokenStream>,
    ) -> TokenStream {
        let cond = self.operand(cond);
        match stmt {
            Stmt::Match { arms: ir_arms, .. } => {
                let pats = ir_arms.iter().map(|a| &a.pat);
                quote!(match #cond { #(#pats => #arms)* })
            }
            _ => {
                let (then_arm, else_arm) = (&arms[0], &arms[1]);
                quote!(if #cond #then_arm else #else_arm)
            }
        }
    }
}

/// `a..b`, `(a..=b).rev().step_by(k)`: the iterator of a `for` over a range.
pub(crate) fn range_tokens(
    range: &crate::ir::Range,
    start: Tokens,
    end: Tokens,
    step: Option<Tokens>,
) -> TokenStream {
    let bare = if range.inclusive {
        quote!(#start..=#end)
    } else {
        quote!(#start..#end)
    };
    if !range.rev && step.is_none() {
        return bare;
    }
    let mut iterator = quote!((#bare));
    if range.rev {
        iterator = quote!(#iterator.rev());
    }
    if let Some(step) = step {
        iterator = quote!(#iterator.step_by(#step));
    }
    iterator
}

/// `{ code; value }`, folding a last `let x = e;` whose `x` is the value into `{ ..; e }`.
pub(crate) fn block_with_value(code: TokenStream, value: TokenStream) -> TokenStream {
    if value.to_string() == "()" {
        return quote!({ #code });
    }
    let mut stmts: Vec<syn::Stmt> = match syn::parse2::<syn::Block>(quote!({ #code })) {
        Ok(block) => block.stmts,
        Err(_) => return quote!({ #code #value }),
    };
    if let Some(syn::Stmt::Local(local)) = stmts.last() {
        if let (syn::Pat::Ident(p), Some(init)) = (&local.pat, &local.init) {
            if p.ident == value.to_string() {
                let expr = init.expr.clone();
                stmts.pop();
                return quote!({ #(#stmts)* #expr });
            }
        }
    }
    quote!({ #(#stmts)* #value })
}

/// `quote!(#(#streams)*)`, the streams moved and joined by the compiler in one step rather than each cloned
/// and joined to the others in turn: what a sweep's statements cost most as they are put together.
pub(crate) fn concat(streams: Vec<TokenStream>) -> TokenStream {
    streams.into_iter().collect()
}

/// `(a, b)` for several, `a` for one, `()` for none.
pub(crate) fn tuple_or_single(items: Vec<TokenStream>) -> TokenStream {
    match items.len() {
        1 => items.into_iter().next().unwrap_or_default(),
        _ => quote!((#(#items),*)),
    }
}

/// Records the values a rule reads while giving it their names.
pub(crate) struct Recorder<'e, 'a> {
    pub(crate) emitter: &'e mut Emitter<'a>,
    pub(crate) result: Var,
    pub(crate) refs: &'e mut BTreeSet<Var>,
}

impl RuleCtx for Recorder<'_, '_> {
    fn operand(&mut self, operand: &Operand) -> Tokens {
        self.refs.extend(operand.var());
        self.emitter.operand(operand)
    }

    fn result(&mut self) -> Tokens {
        self.refs.insert(self.result);
        Tokens::Name(self.emitter.name(self.result).clone())
    }

    fn fresh(&mut self, base: &str) -> Ident {
        self.emitter.namer.fresh(base)
    }
}

/// The values defined anywhere in `block`: its statements', their nested blocks' and nested loops'
/// carried values and indexes.
/// A tape to reserve when a loop starts: its name, the trip counts whose product is the number of pushes,
/// for an `ArrayTape` the length of each array, and the condition under which the loop fills it.
type Reservation = (
    Ident,
    Vec<TokenStream>,
    Option<TokenStream>,
    Option<TokenStream>,
);

/// Is `array` made in `block` (or a block inside it)?
fn made_in(block: &Block, array: Array) -> bool {
    block.stmts.iter().any(|stmt| {
        matches!(stmt, Stmt::NewArray { array: made, .. } if *made == array)
            || stmt.blocks().into_iter().any(|inner| made_in(inner, array))
    })
}

fn collect_defs(block: &Block, defs: &mut BTreeSet<Var>) {
    for stmt in &block.stmts {
        defs.extend(stmt.defs());
        if let Stmt::Loop(l) = stmt {
            defs.extend(l.phis.iter().copied());
            defs.extend(l.range.as_ref().map(|(_, index)| *index));
            if let Some(cond) = &l.cond {
                collect_defs(cond, defs);
            }
        }
        for inner in stmt.blocks() {
            collect_defs(inner, defs);
        }
    }
}
