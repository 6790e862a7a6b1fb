//! What the reverse and forward emitters share: the names of values, the tokens of a value's primal
//! computation, zeros of each kind, and the emission of a block's primal code pruned to what is needed.

use crate::activity::Activity;
use crate::ir::{Block, CallForm, Function, Kind, Operand, Stmt, Value, Var};
use crate::naming::{self, Namer};
use crate::rules::RuleCtx;
use crate::signature::Signature;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::collections::BTreeSet;

/// The state of emitting one generated function.
pub(crate) struct Emitter<'a> {
    pub(crate) f: &'a Function,
    pub(crate) activity: &'a Activity,
    pub(crate) namer: Namer,
    names: Vec<Ident>,
}

impl<'a> Emitter<'a> {
    pub(crate) fn new(f: &'a Function, sig: &Signature, activity: &'a Activity) -> Emitter<'a> {
        let mut namer = Namer::new(sig.params.iter().map(|p| p.ident.to_string()));
        let names = f
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
        Emitter {
            f,
            activity,
            namer,
            names,
        }
    }

    pub(crate) fn name(&self, var: Var) -> &Ident {
        &self.names[var.0 as usize]
    }

    pub(crate) fn operand(&self, operand: &Operand) -> TokenStream {
        match operand {
            Operand::Var(v) => self.name(*v).to_token_stream(),
            Operand::Const { tokens, .. } => tokens.clone(),
        }
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
    pub(crate) fn primal_expr(&self, value: &Value) -> TokenStream {
        let op = |o: &Operand| self.operand(o);
        // A negative constant as a receiver needs parentheses: `(-1.0).abs()`.
        let receiver = |o: &Operand| {
            let tokens = self.operand(o);
            if tokens.to_string().starts_with('-') {
                quote!((#tokens))
            } else {
                tokens
            }
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
            Value::Cast(o, ty) => {
                let o = op(o);
                quote!(#o as #ty)
            }
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
            Value::Call { callee, args } => {
                let args = args.iter().map(op);
                quote!(#callee(#(#args),*))
            }
            Value::StopGradient { callee, arg } => {
                let arg = op(arg);
                quote!(#callee(#arg))
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
            Kind::Tuple(items) => {
                let items = items.iter().map(Self::zero_of);
                quote!((#(#items,)*))
            }
            _ => quote!(::autodiff::__private::Zero::zero()),
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
    /// Returns the code and the values it reads that are defined outside `block`.
    pub(crate) fn primal(
        &self,
        block: &Block,
        roots: &BTreeSet<Var>,
    ) -> (TokenStream, BTreeSet<Var>) {
        let mut need: BTreeSet<Var> = roots.clone();
        let mut pieces: Vec<TokenStream> = Vec::new();
        for stmt in block.stmts.iter().rev() {
            match stmt {
                Stmt::Let { var, value } => {
                    if need.contains(var) {
                        need.extend(value.operands().into_iter().filter_map(Operand::var));
                        let name = self.name(*var);
                        let expr = self.primal_expr(value);
                        pieces.push(quote!(let #name = #expr;));
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
                    if wanted.is_empty() {
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
                            let (code, free) = self.primal(b, &inner_roots);
                            need.extend(free);
                            let yields =
                                tuple_or_single(yields.iter().map(|o| self.operand(o)).collect());
                            quote!({ #code #yields })
                        })
                        .collect();
                    need.extend(cond.var());
                    let pattern =
                        tuple_or_single(names.iter().map(|n| n.to_token_stream()).collect());
                    let branches = self.branches(stmt, cond, arms);
                    pieces.push(quote!(let #pattern = #branches;));
                }
            }
        }
        pieces.reverse();
        let defs: BTreeSet<Var> = block.defs().into_iter().collect();
        let free = need.difference(&defs).copied().collect();
        (quote!(#(#pieces)*), free)
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
    fn operand(&mut self, operand: &Operand) -> TokenStream {
        self.refs.extend(operand.var());
        self.emitter.operand(operand)
    }

    fn result(&mut self) -> TokenStream {
        self.refs.insert(self.result);
        self.emitter.name(self.result).to_token_stream()
    }

    fn fresh(&mut self, base: &str) -> Ident {
        self.emitter.namer.fresh(base)
    }
}
