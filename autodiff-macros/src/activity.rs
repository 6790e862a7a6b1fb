//! Activity analysis: which values depend on the active inputs (and so carry a derivative), and what the
//! syntax tells of each value's kind. This is also where an operation with no derivative rule applied to an
//! active value is reported, since only here is it known that the value is active.
//!
//! A value is active when some operand is active and the operation passes derivatives through: comparisons,
//! integer casts, `stop_gradient` and the piecewise-constant float functions (`floor`, `round`, ..) give
//! constants. (The reverse emitter adds the other half of Tapenade's activity, usefulness: a value whose
//! adjoint nothing feeds gets no adjoint code.)

use crate::errors::Errors;
use crate::ir::{Block, Function, Kind, Operand, Stmt, Value, Var};
use crate::signature::{kind_of_type, Signature};
use proc_macro2::Ident;
use syn::BinOp;

/// Kind and activity of every value of a function.
pub(crate) struct Activity {
    kinds: Vec<Kind>,
    active: Vec<bool>,
}

impl Activity {
    pub(crate) fn kind(&self, operand: &Operand) -> Kind {
        match operand {
            Operand::Var(v) => self.kinds[v.0 as usize].clone(),
            Operand::Const { kind, .. } => kind.clone(),
        }
    }

    pub(crate) fn var_kind(&self, var: Var) -> &Kind {
        &self.kinds[var.0 as usize]
    }

    pub(crate) fn is_active(&self, operand: &Operand) -> bool {
        operand.var().is_some_and(|v| self.active[v.0 as usize])
    }

    pub(crate) fn is_active_var(&self, var: Var) -> bool {
        self.active[var.0 as usize]
    }
}

/// Analyses `f`, whose signature is `sig`; reports active values reaching operations without a derivative.
pub(crate) fn analyze(
    f: &Function,
    sig: &Signature,
    float_params: &[Ident],
    errors: &mut Errors,
) -> Activity {
    let mut activity = Activity {
        kinds: vec![Kind::Unknown; f.vars.len()],
        active: vec![false; f.vars.len()],
    };
    for (var, param) in f.params.iter().zip(&sig.params) {
        activity.kinds[var.0 as usize] = param.kind.clone();
        activity.active[var.0 as usize] = param.active;
    }
    let mut pass = Pass {
        activity,
        float_params,
        errors,
        f,
    };
    pass.block(&f.body);
    pass.activity
}

struct Pass<'a> {
    activity: Activity,
    float_params: &'a [Ident],
    errors: &'a mut Errors,
    f: &'a Function,
}

impl Pass<'_> {
    fn set(&mut self, var: Var, kind: Kind, active: bool) {
        let active = active && kind.is_differentiable();
        self.activity.kinds[var.0 as usize] = kind;
        self.activity.active[var.0 as usize] = active;
    }

    fn block(&mut self, block: &Block) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { var, value } => {
                    let (kind, active) = self.value(*var, value);
                    self.set(*var, kind, active);
                }
                Stmt::If {
                    then_block,
                    else_block,
                    outs,
                    ..
                } => self.join_branches(&[then_block, else_block], outs),
                Stmt::Match {
                    scrutinee,
                    arms,
                    outs,
                } => {
                    if self.activity.is_active(scrutinee) {
                        let span = scrutinee.var().map(|v| self.f.vars[v.0 as usize].span);
                        self.errors.at(
                            span.unwrap_or_else(proc_macro2::Span::call_site),
                            "`match` on a value that depends on the differentiated inputs is not supported: \
                             compare it with `if`/`else if` instead",
                        );
                    }
                    let blocks: Vec<&Block> = arms.iter().map(|a| &a.block).collect();
                    self.join_branches(&blocks, outs);
                }
            }
        }
    }

    fn join_branches(&mut self, blocks: &[&Block], outs: &[Var]) {
        for block in blocks {
            self.block(block);
        }
        for (i, out) in outs.iter().enumerate() {
            let mut kind = Kind::Unknown;
            let mut active = false;
            for block in blocks {
                kind = kind.join(&self.activity.kind(&block.yields[i]));
                active |= self.activity.is_active(&block.yields[i]);
            }
            self.set(*out, kind, active);
        }
    }

    fn value(&mut self, var: Var, value: &Value) -> (Kind, bool) {
        let a = &self.activity;
        let any_active = value.operands().iter().any(|o| a.is_active(o));
        match value {
            Value::Unary(syn::UnOp::Not(_), o) => (a.kind(o), false),
            Value::Unary(_, o) => (a.kind(o), a.is_active(o)),
            Value::Binary(op, l, r) => match op {
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_) => {
                    (a.kind(l).join(&a.kind(r)), any_active)
                }
                BinOp::Eq(_)
                | BinOp::Lt(_)
                | BinOp::Le(_)
                | BinOp::Ne(_)
                | BinOp::Ge(_)
                | BinOp::Gt(_) => (Kind::Bool, false),
                _ => (a.kind(l), false),
            },
            Value::Cast(o, ty) => {
                let kind = kind_of_type(ty, self.float_params);
                let passes = matches!(kind, Kind::Float(_)) && matches!(a.kind(o), Kind::Float(_));
                (kind, a.is_active(o) && passes)
            }
            Value::Tuple(items) => (
                Kind::Tuple(items.iter().map(|o| a.kind(o)).collect()),
                any_active,
            ),
            Value::Field(o, index) => {
                let kind = match a.kind(o) {
                    Kind::Tuple(items) => {
                        items.get(*index as usize).cloned().unwrap_or(Kind::Unknown)
                    }
                    _ => {
                        if a.is_active(o) {
                            self.errors.at(
                                self.f.vars[var.0 as usize].span,
                                "the macro cannot tell the shape of this tuple: destructure it with \
                                 `let (a, b) = ..;` where it is made",
                            );
                        }
                        Kind::Unknown
                    }
                };
                (kind, a.is_active(o))
            }
            Value::Float { func, args, .. } => {
                let float_args = func.float_args(args.len());
                let kind = args
                    .iter()
                    .zip(&float_args)
                    .filter(|(_, is_float)| **is_float)
                    .fold(Kind::Unknown, |k, (o, _)| k.join(&a.kind(o)));
                let active = !func.is_piecewise_constant()
                    && args
                        .iter()
                        .zip(&float_args)
                        .any(|(o, is_float)| *is_float && a.is_active(o));
                (kind, active)
            }
            Value::Method { method, .. } => {
                if any_active {
                    self.errors.spanned(
                        method,
                        format!(
                            "the method `{method}` has no known derivative: use the float functions listed \
                             in the README (`sin`, `exp`, `powi`, ..), or wrap the value in \
                             `autodiff::stop_gradient(..)` to treat it as a constant"
                        ),
                    );
                }
                let kind = match method.to_string().as_str() {
                    "len" | "count_ones" => Kind::Int,
                    "is_nan" | "is_finite" | "is_infinite" | "is_sign_positive"
                    | "is_sign_negative" | "is_normal" => Kind::Bool,
                    _ => Kind::Unknown,
                };
                (kind, false)
            }
            Value::Call { callee, args } => {
                if any_active {
                    let name = callee.to_string().replace(' ', "");
                    self.errors.spanned(
                        callee,
                        format!(
                            "`{name}` has no known derivative: calls of other functions with arguments \
                             that depend on the differentiated inputs are not supported yet; wrap them in \
                             `autodiff::stop_gradient(..)` to treat the result as a constant"
                        ),
                    );
                }
                (self.call_kind(callee, args.len()), false)
            }
            Value::StopGradient { arg, .. } => (a.kind(arg), false),
        }
    }

    /// `T::one()`, `f64::from(..)`: constants of a float type.
    fn call_kind(&self, callee: &proc_macro2::TokenStream, arity: usize) -> Kind {
        let Ok(path) = syn::parse2::<syn::Path>(callee.clone()) else {
            return Kind::Unknown;
        };
        let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
        match segments.as_slice() {
            [ty, func] if arity == 0 => {
                let ty_name = ty.ident.to_string();
                let is_float = matches!(ty_name.as_str(), "f32" | "f64")
                    || self.float_params.iter().any(|p| *p == ty_name);
                let constant = matches!(
                    func.ident.to_string().as_str(),
                    "one"
                        | "zero"
                        | "epsilon"
                        | "infinity"
                        | "neg_infinity"
                        | "nan"
                        | "max_value"
                        | "min_value"
                        | "min_positive_value"
                );
                if is_float && constant {
                    Kind::Float(Some(syn::Type::Path(syn::TypePath {
                        qself: None,
                        path: ty.ident.clone().into(),
                    })))
                } else {
                    Kind::Unknown
                }
            }
            _ => Kind::Unknown,
        }
    }
}
