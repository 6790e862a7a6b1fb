//! Calls whose adjoint is stored at the call (split mode, by linearity): the forward sweep runs the
//! callee's `vjp_into` with the cotangent one, which gives the call's value and its gradient with respect
//! to each differentiated array argument, and stores that gradient; the reverse sweep adds it, times the
//! cotangent of the call's value, into the arguments' adjoints. The callee's forward code runs once where
//! joint mode runs it twice (once for the value, once again inside its adjoint).
//!
//! ```text
//! // Input:                  // Forward sweep:
//! let y = g(&z);             let y = g::vjp_into(&z, One::one(), (Some(__tape_z_gradient_at_call.push_zeros(z.len())),));
//!                            // Reverse sweep:
//!                            __tape_z_gradient_at_call.pop_add_scaled(&mut __d_z[..], __d_y);
//! ```
//!
//! Exact where the callee's vector-Jacobian product is linear in the cotangent: `vjp(z, d) = d * vjp(z,
//! 1)` for a float value (also on dual numbers, so second order through it holds). That is so for a
//! function whose adjoint only applies the rules of `rules.rs`, not for a custom gradient's closure, which
//! may clip the cotangent (as JAX's `custom_vjp` example does), nor for a caller of one. The macro cannot
//! see the callee, so the code asks its companion (`__private::CotangentLinear`: only the companion of a
//! `#[differentiable]` function that calls no other function says yes) and keeps joint mode's code in the
//! other branch; the test is a constant, which the compiler folds. Taken only where joint mode would store
//! each differentiated argument anyway (an array written after the call), so the tape holds as many
//! floats as before: a gradient in place of a copy of the argument.
//!
//! ```text
//! // Forward sweep:
//! let y = if g::cotangent_linear() {
//!     g::vjp_into(&z, One::one(), (Some(__tape_z_gradient_at_call.push_zeros(z.len())),))
//! } else {
//!     __tape_z_at_call.push(&z[..]);
//!     g(&z)
//! };
//! // Reverse sweep:
//! if g::cotangent_linear() {
//!     __tape_z_gradient_at_call.pop_add_scaled(&mut __d_z[..], __d_y);
//! } else {
//!     let __z_at_call = __tape_z_at_call.pop();
//!     let _ = g::vjp_into(&__z_at_call, __d_y, (Some(&mut __d_z[..]),));
//! }
//! ```

use super::{Adjoints, Reverse};
use crate::activity::Activity;
use crate::ir::{Array, CallSite, Function, Kind, Operand, Stmt, Value, Var};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeSet;

/// The test, in generated code, of whether the companion of `callee` is linear in the cotangent
/// (`__private::CotangentLinear`); `None` for a callee reached otherwise than through its companion type
/// (an associated function, the generic copy of another function), which keeps joint mode.
pub(crate) fn linear_check(callee: &syn::ExprPath) -> Option<TokenStream> {
    if crate::shadow::is_generic_copy_call(callee)
        || crate::naming::is_associated_call(&callee.path)
        || callee.qself.is_some()
    {
        return None;
    }
    // The companion type is not generic; its methods are.
    let mut plain = callee.clone();
    if let Some(last) = plain.path.segments.last_mut() {
        last.arguments = syn::PathArguments::None;
    }
    let lookup = crate::companion::derivative_of(&plain, "cotangent_linear", 0);
    Some(quote!({
        use ::autodiff::__private::CotangentLinear as _;
        #lookup()
    }))
}

/// The calls whose value is certainly one float: an operand of `+`, `-`, `*` or `/` whose other operand is
/// a float (`logsumexp(&z) - z[0]`, `s += g(&z)`). A tuple or an array would not compile there; the
/// syntax tells nothing of the value of other calls.
pub(crate) fn scalar_calls(f: &Function, activity: &Activity) -> BTreeSet<Var> {
    let calls = f.call_results();
    let mut scalar = BTreeSet::new();
    for stmt in f.all_stmts() {
        let Stmt::Let {
            value: Value::Binary(op, lhs, rhs),
            ..
        } = stmt
        else {
            continue;
        };
        if !matches!(
            op,
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
        ) {
            continue;
        }
        for (operand, other) in [(lhs, rhs), (rhs, lhs)] {
            if let Operand::Var(var) = operand {
                if calls.contains(var) && matches!(activity.kind(other), Kind::Float(_)) {
                    scalar.insert(*var);
                }
            }
        }
    }
    scalar
}

impl Reverse<'_, '_> {
    /// The adjoint of a call whose gradient the forward sweep may store (`plan::CallPlan::StoredGradient`): where the
    /// callee is linear in the cotangent, each stored gradient, times the cotangent `d` of the call's
    /// value, added into its array's adjoint; else joint mode's adjoint (`call_adjoint_into`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call_gradient_adjoint(
        &mut self,
        var: Var,
        callee: &syn::ExprPath,
        arrays: &[Array],
        args: &[Operand],
        by_ref: &[bool],
        d: &TokenStream,
        adjoints: &mut Adjoints,
        code: &mut Vec<TokenStream>,
        refs: &mut BTreeSet<Var>,
    ) {
        let Some(check) = linear_check(callee) else {
            return;
        };
        self.e.call_linear.insert(var, check.clone());
        let mut stored = Vec::new();
        for array in arrays {
            let tape = self.e.call_gradient_tape(var, *array);
            let buffer = self.array_adjoint(*array);
            stored.push(quote!(#tape.pop_add_scaled(&mut #buffer[..], #d);));
        }
        let mut joint = Vec::new();
        let site = CallSite::Value(var);
        self.call_adjoint_into(site, callee, args, by_ref, d, adjoints, &mut joint, refs);
        code.push(quote! {
            if #check {
                #(#stored)*
            } else {
                #(#joint)*
            }
        });
    }
}
