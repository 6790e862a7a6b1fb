//! Lowering of calls: float functions in method and path form (`x.sin()`, `f64::sin(x)`), `stop_gradient`,
//! and calls of other functions, whose arrays are passed as `a` or `&a`.

use super::{strip_parens, Lowering};
use crate::ir::{Array, ArrayInit, CallForm, FloatFn, Kind, Operand, Stmt, Value, Written};
use crate::naming::path_names;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::Expr;

impl Lowering<'_> {
    // Input:  let v = s.pop().unwrap();
    // Output: let __len = s.len(); let __top = __len - 1; let v = s[__top]; s.truncate(__top);
    /// `s.pop().unwrap()` (or `.expect(..)`) of a local `Vec`: its last element read, then the `Vec`
    /// truncated to the elements before it (`Stmt::Truncate`). An empty `s` panics at `__len - 1`
    /// (overflow) or, with overflow checks off, at the read (out of bounds), where `unwrap` panics.
    /// `None` for any other method call.
    // Input:  let k = T::from(p.k).unwrap();     (`p.k` a field of a parameter struct: `__p_k` here)
    // Output: let k = __p_k as T;                 (`Value::Cast`, emitted `__private::cast::<T, _>(__p_k)`)
    /// `T::from(f).unwrap()` (or `.expect(..)`) of a parameter struct's scalar field `f` (`structs.rs`
    /// made it an input of a type the macro does not see), or of a parameter `f: T`, `T` a float type
    /// parameter: a conversion, as
    /// `f as f64` is in an `f64` function. The macro cannot tell a `#[no_grad]` count (`k: usize`) from a
    /// float field (`a: T`); as a cast, the derivative passes through a float field (the identity) and a
    /// `#[no_grad]` field drops the adjoint it gets, where a call of `T::from` would be refused as having
    /// no derivative. `None` for any other method call.
    fn lower_field_conversion(
        &mut self,
        m: &syn::ExprMethodCall,
        hint: &Option<String>,
    ) -> Option<Operand> {
        let unwrapped = match (m.method.to_string().as_str(), m.args.len()) {
            ("unwrap", 0) => m.turbofish.is_none(),
            ("expect", 1) => matches!(strip_parens(&m.args[0]), Expr::Lit(_)),
            _ => false,
        };
        let Expr::Call(call) = strip_parens(&m.receiver) else {
            return None;
        };
        let Expr::Path(path) = strip_parens(&call.func) else {
            return None;
        };
        let segments: Vec<_> = path.path.segments.iter().collect();
        let [ty, from] = segments.as_slice() else {
            return None;
        };
        let conversion = unwrapped
            && path.qself.is_none()
            && path.path.leading_colon.is_none()
            && from.ident == "from"
            && matches!(from.arguments, syn::PathArguments::None)
            && matches!(ty.arguments, syn::PathArguments::None)
            && self.float_params.contains(&ty.ident)
            && call.args.len() == 1;
        let arg = call.args.first().filter(|_| conversion)?;
        let Expr::Path(name) = strip_parens(arg) else {
            return None;
        };
        name.path.get_ident()?;
        let operand = self.lower_expr(arg, None);
        let var = operand.var()?;
        // Or a parameter of that float type itself: the identity, as `struct_higher.rs`'s hidden function
        // of the fields takes a field read so (`__self_k: T`).
        let own_type = self.param_vars.iter().position(|p| *p == var).is_some_and(|i| {
            matches!(&self.param_types[i], syn::Type::Path(t) if t.qself.is_none() && t.path.is_ident(&ty.ident))
        });
        if !own_type && !self.is_field_input(var) {
            return None;
        }
        let target: syn::Type = syn::Type::Path(syn::TypePath {
            qself: None,
            path: ty.ident.clone().into(),
        });
        let span = crate::span::of_method_call(m);
        Some(self.emit(Value::Cast(operand, target), hint.clone(), span))
    }

    /// Is `var` a scalar field of a parameter struct (`structs.rs`): an input of a type the macro does not
    /// see (`__p_k`), or, where a generated body binds the field inputs by a prologue (`let __p_k =
    /// p.k;`, and `struct_whole.rs`'s from `__p_primal`), the local of a parameter's field's name?
    fn is_field_input(&self, var: crate::ir::Var) -> bool {
        let name = |v: &crate::ir::Var| self.vars[v.0 as usize].hint.clone().unwrap_or_default();
        match self.param_vars.iter().position(|p| *p == var) {
            Some(index) => matches!(self.param_types.get(index), Some(syn::Type::Infer(_))),
            None => {
                let local = name(&var);
                self.param_vars.iter().enumerate().any(|(i, p)| {
                    let struct_param = !matches!(
                        crate::signature::kind_of_type(&self.param_types[i], &self.float_params),
                        Kind::Float(_) | Kind::Int | Kind::Bool | Kind::Tuple(_)
                    );
                    // `__p_primal` of `struct_whole.rs`'s hidden function, whose prologue binds `__p_k`.
                    let param = name(p);
                    let param = param.strip_suffix("_primal").map_or(param.clone(), |s| {
                        s.strip_prefix("__").unwrap_or(s).to_string()
                    });
                    struct_param && local.starts_with(&format!("__{param}_"))
                })
            }
        }
    }

    fn lower_pop(&mut self, m: &syn::ExprMethodCall, hint: &Option<String>) -> Option<Operand> {
        let unwrapped = match (m.method.to_string().as_str(), m.args.len()) {
            ("unwrap", 0) => m.turbofish.is_none(),
            // A message with no effects to evaluate.
            ("expect", 1) => matches!(strip_parens(&m.args[0]), Expr::Lit(_)),
            _ => false,
        };
        let Expr::MethodCall(pop) = strip_parens(&m.receiver) else {
            return None;
        };
        if !unwrapped || pop.method != "pop" || !pop.args.is_empty() || pop.turbofish.is_some() {
            return None;
        }
        let array = self.array_operand(&pop.receiver)?;
        if self.rows_of(array).is_some() {
            return None;
        }
        let info = &self.arrays[array.0 as usize];
        if info.param.is_some() || info.fixed {
            self.errors.spanned(
                &pop.receiver,
                "only a local `Vec` can shrink: copy the input with `.to_vec()` first",
            );
            return Some(Self::poisoned());
        }
        let span = pop.method.span();
        let len = self.emit(Value::Len(array), None, span);
        let one = Operand::Const {
            tokens: quote::quote!(1),
            kind: Kind::Int,
        };
        let top = self.emit(Value::Binary(syn::parse_quote!(-), len, one), None, span);
        let value = self.emit(
            Value::Load {
                array,
                index: top.clone(),
                at: None,
            },
            hint.clone(),
            span,
        );
        self.stmts.push(Stmt::Truncate { array, len: top });
        let info = &mut self.arrays[array.0 as usize];
        info.resized_at = info.resized_at.or(Some(span));
        self.forget_reads_of(array);
        Some(value)
    }

    pub(super) fn lower_method_call(
        &mut self,
        m: &syn::ExprMethodCall,
        hint: Option<String>,
    ) -> Operand {
        if let Some(result) = self.lower_pop(m, &hint) {
            return result;
        }
        if let Some(result) = self.lower_array_method(m, &hint) {
            return result;
        }
        // `x.fract()` is `x - x.trunc()` (its slope is 1, `trunc`'s 0), as Rust defines it.
        if m.method == "fract" && m.args.is_empty() && m.turbofish.is_none() {
            let receiver = &m.receiver;
            let whole: Expr = syn::parse_quote_spanned! {m.method.span()=>
                {
                    let __fract_of = #receiver;
                    __fract_of - __fract_of.trunc()
                }
            };
            return self.lower_expr(&whole, hint);
        }
        if let Some(result) = self.lower_field_conversion(m, &hint) {
            return result;
        }
        let receiver = self.lower_expr(&m.receiver, None);
        // `x.clone()` of a float (or of a tuple of them, `Copy` values whose clone is the value itself, as
        // generic code over `T: Float` often writes it): the value. A parameter struct's keeps its error.
        if (m.method == "clone" || m.method == "to_owned")
            && m.args.is_empty()
            && m.turbofish.is_none()
            && self.is_copy_value(&receiver)
        {
            return receiver;
        }
        if m.method == "sin_cos" && m.args.is_empty() && m.turbofish.is_none() {
            let form = |name: &str| CallForm::Method(syn::Ident::new(name, m.method.span()));
            return self.sin_cos(receiver, form, hint, crate::span::of_method_call(m));
        }
        let mut args: Vec<Operand> = m.args.iter().map(|a| self.lower_expr(a, None)).collect();
        let func = FloatFn::from_name(&m.method.to_string(), args.len() + 1)
            .filter(|_| m.turbofish.is_none());
        let value = match func {
            Some(func) => {
                args.insert(0, receiver);
                Value::Float {
                    func,
                    form: CallForm::Method(m.method.clone()),
                    args,
                }
            }
            None => Value::Method {
                receiver,
                method: m.method.clone(),
                turbofish: m.turbofish.as_ref().map(ToTokens::to_token_stream),
                args,
            },
        };
        self.emit(value, hint, crate::span::of_method_call(m))
    }

    /// Is `value` a float, an integer or a tuple of them (a value the body made, or a parameter of such a
    /// type taken by value), whose clone is itself? Not a parameter struct, nor a parameter of a type not
    /// known here.
    fn is_copy_value(&self, value: &Operand) -> bool {
        match value {
            Operand::Const { .. } => true,
            Operand::Var(v) => match self.param_vars.iter().position(|p| p == v) {
                // By value, or a `&f64` (`&T`), whose clone is the value `*x` is (a reference to a tuple
                // or a struct is not cloned into its value here).
                Some(i) => match &self.param_types[i] {
                    syn::Type::Reference(r) if r.mutability.is_none() => matches!(
                        crate::signature::kind_of_type(&r.elem, &self.float_params),
                        Kind::Float(Some(_))
                    ),
                    ty => matches!(
                        crate::signature::kind_of_type(ty, &self.float_params),
                        Kind::Float(Some(_)) | Kind::Tuple(_) | Kind::Int | Kind::Bool
                    ),
                },
                None => true,
            },
            _ => false,
        }
    }

    pub(super) fn lower_call(&mut self, c: &syn::ExprCall, hint: Option<String>) -> Operand {
        let Expr::Path(path) = strip_parens(&c.func) else {
            self.errors.spanned(
                &c.func,
                "only calls of a function by its path are supported",
            );
            return Self::poisoned();
        };
        // `f64::fract(x)`: `x.fract()`, which is `x - x.trunc()`.
        if let [arg] = c.args.iter().collect::<Vec<_>>().as_slice() {
            let last = path.path.segments.last().map(|s| s.ident.to_string());
            if last.as_deref() == Some("fract") && self.is_float_path(path) {
                let method: Expr =
                    syn::parse_quote_spanned! {crate::span::of_call(c)=> (#arg).fract()};
                return self.lower_expr(&method, hint);
            }
        }
        if let Some(array) = self.lower_vec_constructor(c, &hint) {
            return array;
        }
        if let (Some(ty), [arg]) = (
            private_cast(path),
            c.args.iter().collect::<Vec<_>>().as_slice(),
        ) {
            let operand = self.lower_expr(arg, None);
            return self.emit(Value::Cast(operand, ty), hint, crate::span::of_call(c));
        }
        // `Receiver::receive(__self_primal)`: the constant `self` of a method's hidden function passed on as
        // the callee takes it (`struct_higher::SelfAsPrimal`), which the emitters write again
        // (`Emitter::call_arg`).
        if let (true, [arg]) = (
            is_private_receive(path),
            c.args.iter().collect::<Vec<_>>().as_slice(),
        ) {
            let operand = self.lower_expr(arg, hint);
            if let Some(var) = operand.var() {
                self.vars[var.0 as usize].received = true;
            }
            return operand;
        }
        if let Some(name) = self.variable_called(path) {
            // A call through a function pointer: fine on constants; activity reports it on active values.
            let (args, by_ref, written, _) = self.lower_call_args(c);
            self.reject_written(c, &written, THROUGH_VARIABLE);
            let call = Value::Call {
                callee: path.clone(),
                args,
                by_ref,
            };
            let result = self.emit(call, hint, crate::span::of_call(c));
            if let Some(var) = result.var() {
                self.vars[var.0 as usize].called_variable = Some(name);
            }
            return result;
        }
        if is_stop_gradient(path) && c.args.len() == 1 {
            if let Expr::Call(inner) = strip_parens(&c.args[0]) {
                if let Expr::Path(inner_path) = strip_parens(&inner.func) {
                    if self.variable_called(inner_path).is_some() {
                        // `stop_gradient(f(x))` through a function pointer: its value, held constant,
                        // which activity does not report.
                        let (args, by_ref, written, _) = self.lower_call_args(inner);
                        self.reject_written(inner, &written, THROUGH_VARIABLE);
                        let call = Value::Call {
                            callee: inner_path.clone(),
                            args,
                            by_ref,
                        };
                        let arg = self.emit(call, None, inner.span());
                        let callee = path.to_token_stream();
                        return self.emit(
                            Value::StopGradient { callee, arg },
                            hint,
                            crate::span::of_call(c),
                        );
                    }
                }
            }
        }
        let (mut args, by_ref, written, rebinds) = self.lower_call_args(c);
        if written.iter().any(Written::is_written) {
            let passed_on = c.args.iter().any(|arg| self.bare_output(arg).is_some());
            let (call, span) = (
                (path, args, by_ref, written, passed_on),
                crate::span::of_call(c),
            );
            return self.lower_call_out(call, rebinds, hint, span);
        }
        let callee = path.to_token_stream();
        let last = path
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if last == "sin_cos" && args.len() == 1 && self.is_float_path(path) {
            let form = |name: &str| {
                let mut path = path.clone();
                if let Some(segment) = path.path.segments.last_mut() {
                    segment.ident = syn::Ident::new(name, segment.ident.span());
                }
                CallForm::Path(path.to_token_stream())
            };
            return self.sin_cos(args.remove(0), form, hint, crate::span::of_call(c));
        }
        let value = if is_stop_gradient(path) && args.len() == 1 {
            Value::StopGradient {
                callee,
                arg: args.remove(0),
            }
        } else if let Some(func) =
            FloatFn::from_name(&last, args.len()).filter(|_| self.is_float_path(path))
        {
            Value::Float {
                func,
                form: CallForm::Path(callee),
                args,
            }
        } else {
            Value::Call {
                callee: path.clone(),
                args,
                by_ref,
            }
        };
        self.emit(value, hint, crate::span::of_call(c))
    }

    // Input:  `x.sin_cos()`, `f64::sin_cos(x)`
    // Output: the tuple `(x.sin(), x.cos())` in the same form, `x` evaluated once.
    fn sin_cos(
        &mut self,
        x: Operand,
        form: impl Fn(&str) -> CallForm,
        hint: Option<String>,
        span: proc_macro2::Span,
    ) -> Operand {
        let parts = [("sin", FloatFn::Sin), ("cos", FloatFn::Cos)].map(|(name, func)| {
            let value = Value::Float {
                func,
                form: form(name),
                args: vec![x.clone()],
            };
            self.emit(value, None, span)
        });
        self.emit(Value::Tuple(parts.to_vec()), hint, span)
    }

    /// The name of the parameter or local that `path` names, if it names one: a call through a function
    /// pointer or closure, which has no derivative to find.
    fn variable_called(&self, path: &syn::ExprPath) -> Option<String> {
        let ident = path.path.get_ident().filter(|_| path.qself.is_none())?;
        let name = ident.to_string();
        self.lookup(&name).map(|_| name)
    }

    // Input:  rhs(&y, p, &mut k);
    // Output: CallOut { var, callee: rhs, args: [y, p, k], by_ref: [true, false, true],
    //                   written: [No, No, Array] }, and the remembered loads of `k` forgotten.
    // Input:  g(x, &mut s);           (`s` a float local)
    // Output: NewArray { s_out, [s] }; CallOut { args: [x, s_out], written: [No, Element(0)] };
    //         s = s_out[0]
    /// A call that passes arrays (or elements, or float locals) as `&mut`: the callee (a function with
    /// output parameters) writes them. `rebinds` are the float locals to read back after the call.
    fn lower_call_out(
        &mut self,
        (path, args, by_ref, written, passed_on): (
            &syn::ExprPath,
            Vec<Operand>,
            Vec<bool>,
            Vec<Written>,
            bool,
        ),
        rebinds: Vec<(String, Array)>,
        hint: Option<String>,
        span: proc_macro2::Span,
    ) -> Operand {
        let var = self.new_var(hint, span);
        let stmt = Stmt::CallOut {
            var,
            callee: path.clone(),
            args,
            by_ref,
            written,
            passed_on,
        };
        for array in stmt.written_arrays() {
            self.forget_reads_of(array);
        }
        self.stmts.push(stmt);
        for (name, array) in rebinds {
            let value = Value::Load {
                array,
                index: zero_index(),
                at: None,
            };
            let value = self.emit(value, Some(name.clone()), span);
            if let Some(binding) = self.lookup_mut(&name) {
                binding.value = Some(value);
            }
        }
        Operand::Var(var)
    }

    /// Reports `&mut` arguments where only a call of a function by its name may take them.
    fn reject_written(&mut self, c: &syn::ExprCall, written: &[Written], message: &str) {
        for (arg, _) in c.args.iter().zip(written).filter(|(_, w)| w.is_written()) {
            self.errors.spanned(arg, message);
        }
    }

    /// The arguments of a call: values, arrays passed as `a` or `&a`, and output buffers passed as
    /// `&mut` (the third vector says how), with the float locals passed `&mut` and the arrays of one
    /// element that hold them during the call.
    #[allow(clippy::type_complexity)]
    pub(super) fn lower_call_args(
        &mut self,
        c: &syn::ExprCall,
    ) -> (Vec<Operand>, Vec<bool>, Vec<Written>, Vec<(String, Array)>) {
        let (mut written, mut rebinds) = (Vec::new(), Vec::new());
        let (args, by_ref) = c
            .args
            .iter()
            .map(|arg| {
                match self
                    .written_arg(arg, &mut rebinds)
                    .or_else(|| self.bare_output(arg))
                {
                    Some((operand, how)) => {
                        written.push(how);
                        (operand, true)
                    }
                    None => {
                        written.push(Written::No);
                        self.lower_call_arg(arg)
                    }
                }
            })
            .unzip();
        (args, by_ref, written, rebinds)
    }

    // Input:  rhs(y, p, out);          (`out: &mut [f64]`, an output parameter of this function)
    // Output: CallOut { args: [y, p, out], written: [No, No, Array] }, as for `&mut *out`
    /// An output parameter of this function passed on bare (`g(out)`, an implicit reborrow): the callee
    /// may write it, as if passed `&mut *out`, or only read it (`fn g(v: &[f64])`), which its companion
    /// knows (`CallOut { passed_on: true }`, through `vjp_out` and `jvp_out`).
    fn bare_output(&self, arg: &Expr) -> Option<(Operand, Written)> {
        let Expr::Path(_) = strip_parens(arg) else {
            return None;
        };
        let array = self.array_named(arg)?;
        let info = &self.arrays[array.0 as usize];
        if !info.output {
            return None;
        }
        let how = if info.scalar {
            Written::Element(zero_index())
        } else {
            Written::Array
        };
        Some((Operand::Array(array), how))
    }

    /// An argument passed `&mut`: `&mut a` or `&mut *a` of an array, `&mut a[i]` of an element, `&mut s`
    /// of a float local, which is held in a new array of one element during the call (and read back after
    /// it: `rebinds`), or a scratch buffer or float made for the call (`&mut [0.0; 2]`, `&mut 0.0`).
    /// Anything else taken `&mut` is an error.
    fn written_arg(
        &mut self,
        arg: &Expr,
        rebinds: &mut Vec<(String, Array)>,
    ) -> Option<(Operand, Written)> {
        let Expr::Reference(r) = strip_parens(arg) else {
            return None;
        };
        r.mutability?;
        let mut inner = strip_parens(&r.expr);
        while let Expr::Unary(u) = inner {
            if !matches!(u.op, syn::UnOp::Deref(_)) {
                break;
            }
            inner = strip_parens(&u.expr);
        }
        if let Some(array) = self
            .array_named(inner)
            .filter(|a| self.rows_of(*a).is_none())
        {
            // A float output parameter of this function is a slice of one element.
            let how = if self.arrays[array.0 as usize].scalar {
                Written::Element(zero_index())
            } else {
                Written::Array
            };
            return Some((Operand::Array(array), how));
        }
        if let Some(window) = self.written_window(inner) {
            return Some(window);
        }
        // `&mut m[i]` of a matrix: its row, a window of the flat array.
        if let Some((flat, offsets, row)) = self.matrix_row(inner) {
            let row = self.lower_row(flat, &row);
            let (start, end) = self.row_bounds(offsets, row);
            return Some((Operand::Array(flat), Written::Window { start, end }));
        }
        if let Expr::Index(element) = inner {
            if let Some(array) = self.array_named(&element.expr).filter(|a| {
                self.rows_of(*a).is_none() && !matches!(&*element.index, Expr::Range(_))
            }) {
                let index = self.lower_expr(&element.index, None);
                return Some((Operand::Array(array), Written::Element(index)));
            }
        }
        let local = match inner {
            Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(ToString::to_string),
            _ => None,
        };
        if matches!(inner, Expr::Array(_) | Expr::Repeat(_) | Expr::Macro(_)) {
            // `&mut [0.0; 2]`, `&mut vec![..]`: a scratch buffer, dropped after the call.
            if let Operand::Array(array) = self.lower_expr(inner, Some("scratch".to_string())) {
                return Some((Operand::Array(array), Written::Array));
            }
        }
        let named = local.is_some() || matches!(inner, Expr::Index(_) | Expr::Field(_));
        let value = local
            .as_ref()
            .and_then(|name| self.lookup(name))
            .and_then(|b| match &b.value {
                Some(v @ (Operand::Var(_) | Operand::Const { .. })) => Some(v.clone()),
                _ => None,
            });
        if let (Some(name), Some(value)) = (local, value) {
            let init = ArrayInit::Elements {
                items: vec![value],
                fixed: true,
            };
            let Operand::Array(array) =
                self.new_local_array(init, true, Some(format!("{name}_out")))
            else {
                return Some((Self::poisoned(), Written::No));
            };
            rebinds.push((name, array));
            return Some((Operand::Array(array), Written::Element(zero_index())));
        }
        if !named {
            // `&mut 0.5`, `&mut (a * b)`: a float the callee writes and nothing reads after.
            let value = self.lower_expr(inner, None);
            let init = ArrayInit::Elements {
                items: vec![value],
                fixed: true,
            };
            if let Operand::Array(array) =
                self.new_local_array(init, true, Some("scratch".to_string()))
            {
                return Some((Operand::Array(array), Written::Element(zero_index())));
            }
        }
        self.errors.spanned(
            arg,
            "`&mut` passes an output buffer to a function with output parameters: it must name a local \
             array (`let mut k = vec![0.0; n];`), an element of one (`&mut k[i]`), a float local, or an \
             output parameter of this function",
        );
        Some((Self::poisoned(), Written::No))
    }

    // Input:  rhs(&y, p, &mut k[a..]);
    // Output: n = len(k); CallOut { args: [y, p, k], written: [No, No, Window { start: a, end: n }] }
    /// `&mut k[a..b]` (any range) of a named array: the callee writes that window of `k` in place, and leaves
    /// the rest of `k` alone. `None` if `inner` is no sub-slice of a named array.
    fn written_window(&mut self, inner: &Expr) -> Option<(Operand, Written)> {
        let Expr::Index(index) = inner else {
            return None;
        };
        let Expr::Range(range) = strip_parens(&index.index) else {
            return None;
        };
        let array = self.array_named(&index.expr)?;
        if self.rows_of(array).is_some() {
            self.errors.spanned(
                inner,
                "a sub-slice of a matrix's rows cannot be passed as an output buffer: pass one row (`&mut m[i]`) \
                 per call",
            );
            return Some((Self::poisoned(), Written::No));
        }
        let span = inner.span();
        let start = match &range.start {
            Some(start) => self.lower_expr(start, None),
            None => zero_index(),
        };
        let end = match &range.end {
            Some(end) => {
                let end = self.lower_expr(end, None);
                if matches!(range.limits, syn::RangeLimits::Closed(_)) {
                    let one = Operand::Const {
                        tokens: quote::quote!(1usize),
                        kind: Kind::Int,
                    };
                    self.emit(Value::Binary(syn::parse_quote!(+), end, one), None, span)
                } else {
                    end
                }
            }
            None => self.emit(Value::Len(array), None, span),
        };
        Some((Operand::Array(array), Written::Window { start, end }))
    }

    /// One argument of a call that is not passed `&mut`.
    fn lower_call_arg(&mut self, arg: &Expr) -> (Operand, bool) {
        // A nested array written in the call (`g([[a, b], [c, d]])`, `g(&[[0.0; 2]; 2])`): an error saying to
        // bind it with `let` first, as which it is passed whole (rustc's mismatched types in generated code
        // before).
        if nested_array_literal(arg) {
            self.errors.spanned(
                arg,
                "a nested array written in a call (`g(&[[a, b], [c, d]])`) is not passed whole: bind it first \
                 (`let m = [[a, b], [c, d]]; g(&m)`), or write it as a `Vec` of `Vec`s \
                 (`g(&vec![vec![a, b], vec![c, d]])`) for a callee that takes `&[Vec<f64>]`",
            );
            return (Self::poisoned(), false);
        }
        // `g(*a)` of a parameter `a: &[f64; N]` passes the array by value: a copy of it, as
        // `let b = *a; g(b)` does (rustc's mismatched types in generated code before: the borrow went to
        // a callee taking `[f64; N]`).
        if let Expr::Unary(u) = strip_parens(arg) {
            if let (syn::UnOp::Deref(_), Some(array)) = (u.op, self.array_named(&u.expr)) {
                if self.is_reference_param(array) && self.rows_of(array).is_none() {
                    return (self.bind_array_copy(array, None), false);
                }
            }
        }
        match self.array_operand(arg) {
            // A matrix passed whole: the emitters give it back in its shape (`ir::MatrixShape`).
            Some(array) if self.rows_of(array).is_some() => {
                let not_the_parameter = self.arrays[array.0 as usize]
                    .matrix
                    .as_ref()
                    .is_some_and(|m| m.original.is_none());
                if not_the_parameter && !self.levels_above_rows(array).is_empty() {
                    self.errors.spanned(
                        arg,
                        "a nested array deeper than a matrix made in the body, or a copy of a parameter, is \
                         not passed whole to a call: pass its rows of floats (`&x[i][j]`), or the parameter \
                         itself",
                    );
                    return (Self::poisoned(), false);
                }
                let shaped = self.arrays[array.0 as usize]
                    .matrix
                    .as_ref()
                    .is_some_and(|m| m.offsets.is_some() || m.fixed.is_some() || m.rows.is_some());
                if !shaped && self.arrays[array.0 as usize].fixed {
                    self.errors.spanned(
                        arg,
                        "a nested array made in the body (`[[a, b], [c, d]]`) is not passed whole to a call: \
                         pass its rows (`&m[i]`), or make it a `Vec` of `Vec`s (`vec![vec![a, b], vec![c, d]]`) \
                         for a callee that takes `&[Vec<f64>]`",
                    );
                    return (Self::poisoned(), false);
                }
                if !shaped {
                    self.errors.spanned(
                        arg,
                        "a matrix passed whole to a call must have a shape of literals or parameters \
                         (`vec![vec![0.0; cols]; rows]` with `cols` and `rows` literals or parameters of \
                         this function), or be made in the function's own block, outside loops and \
                         branches (`vec![vec![0.0; n + 1]; 2 * k]`): make it there, pass its rows \
                         (`&m[i]`) instead, or flatten it into one slice indexed `a[i * n + j]`",
                    );
                    return (Self::poisoned(), false);
                }
                // `h(&m)` borrows it, as `h(m)` of a parameter `m: &[Vec<f64>]` passes the borrow on;
                // `h(m)` of an owned matrix or a copy, and `h(*m)`, pass it by value (a copy:
                // `emit.rs::call_arg`).
                let borrowed_parameter = self.arrays[array.0 as usize]
                    .matrix
                    .as_ref()
                    .and_then(|m| m.original.as_ref())
                    .is_some_and(|(_, by_ref)| *by_ref);
                let by_ref = match strip_parens(arg) {
                    Expr::Reference(_) => true,
                    Expr::Path(_) => borrowed_parameter,
                    _ => false,
                };
                (Operand::Array(array), by_ref)
            }
            // A parameter taken by reference is passed as the reference it is, also where written `&b` of
            // a copy `let b = *a;` that reads it (`&a` of `a: &[f64; 3]` is no `&[f64]`).
            Some(array) if self.is_reference_param(array) => (Operand::Array(array), false),
            // A row `[T; N]` of a matrix written `m[i]`, or a local bound to one (`let r = pos[i];`), passed
            // by value (`norm(pos[i])`, `norm(r)` of `pos: &[[f64; 3]]`): a copy of it (`emit.rs::call_arg`).
            Some(array)
                if matches!(
                    self.arrays[array.0 as usize].held_as,
                    Some(crate::ir::HeldAs::Row(_))
                ) && match strip_parens(arg) {
                    Expr::Index(_) => true,
                    Expr::Path(_) => self.row_values.contains(&array),
                    _ => false,
                } =>
            {
                (Operand::Array(array), false)
            }
            // A sub-slice or a matrix's row stands for a reference (`row` of `for row in m`).
            Some(array) => (
                Operand::Array(array),
                matches!(strip_parens(arg), Expr::Reference(_)) || self.is_window(array),
            ),
            None => match strip_parens(arg) {
                // `f(&x)` of a float: the callee takes `&f64`.
                Expr::Reference(r) if r.mutability.is_none() => {
                    (self.lower_expr(&r.expr, None), true)
                }
                // `f(c)` of a parameter `c: &f64`: passed on as the reference it is.
                arg if self.is_float_reference_param(arg) => (self.lower_expr(arg, None), true),
                _ => (self.lower_expr(arg, None), false),
            },
        }
    }

    /// Is `array` a parameter taken by reference (`a: &[f64; 3]`, `v: &[f64]`, `w: &Vec<f64>`)?
    fn is_reference_param(&self, array: crate::ir::Array) -> bool {
        self.arrays[array.0 as usize]
            .param
            .and_then(|i| self.param_types.get(i))
            .is_some_and(|ty| matches!(ty, syn::Type::Reference(_)))
    }

    /// Is `arg` the name of a float parameter taken by reference (`c: &f64`), still bound to it?
    fn is_float_reference_param(&self, arg: &Expr) -> bool {
        let Expr::Path(p) = arg else {
            return false;
        };
        let Some(name) = p.path.get_ident() else {
            return false;
        };
        // The parameter's own binding, not a `let c = *c;` that holds its value under the same name.
        let name = name.to_string();
        let Some(param) = self
            .param_vars
            .iter()
            .position(|v| self.vars[v.0 as usize].hint.as_deref() == Some(name.as_str()))
        else {
            return false;
        };
        let own = self.scopes.first().and_then(|s| s.get(param));
        let latest = self.lookup(&name);
        matches!((own, latest), (Some(own), Some(latest)) if std::ptr::eq(own, latest))
            && matches!(&self.param_types[param], syn::Type::Reference(r) if r.mutability.is_none())
            // Not tuples as data (`q: &[(f64, f64); 2]`), which `at(q, k)` takes as the reference it is
            // (it was `at(&q, k)`, rustc's E0308).
            && crate::tuple_data::tuple_slice(&self.param_types[param]).is_none()
    }

    /// `let v: Vec<T> = f(..);` (or `[T; N]`): a call whose result is an array.
    pub(super) fn lower_array_call(
        &mut self,
        c: &syn::ExprCall,
        fixed: bool,
        name: &str,
    ) -> Option<Operand> {
        let Expr::Path(path) = strip_parens(&c.func) else {
            return None;
        };
        let (args, by_ref, written, _) = self.lower_call_args(c);
        self.reject_written(
            c,
            &written,
            "a call that writes output buffers (`&mut`) and returns an array is not supported yet: write the \
             array into an output parameter too (`g(x, &mut k, &mut v)`)",
        );
        let init = crate::ir::ArrayInit::Call {
            callee: path.clone(),
            args,
            by_ref,
        };
        Some(self.new_local_array(init, fixed, Some(name.to_string())))
    }

    /// Is `path` a float function written as a path: `f64::sin`, `Float::sin`, `T::sin`, `<T as Float>::sin`?
    pub(super) fn is_float_path(&self, path: &syn::ExprPath) -> bool {
        let is_float_type = |name: &str| {
            matches!(name, "f64" | "f32") || self.float_params.iter().any(|p| p == name)
        };
        if let Some(qself) = &path.qself {
            return matches!(&*qself.ty, syn::Type::Path(t) if t.path.get_ident().is_some_and(|i| is_float_type(&i.to_string())));
        }
        let prefix: Vec<String> = path
            .path
            .segments
            .iter()
            .rev()
            .skip(1)
            .map(|s| s.ident.to_string())
            .collect();
        let last = path.path.segments.last().map(|s| s.ident.to_string());
        match prefix.as_slice() {
            // `::autodiff::__private::round_f32(x)`: `x as f32` in the generic copy of an `f64` function.
            [private, autodiff] if private == "__private" && autodiff == "autodiff" => {
                path.path.leading_colon.is_some() && last.as_deref() == Some("round_f32")
            }
            [one] => is_float_type(one) || one == "Float",
            [float, _crate] => float == "Float" || float == "f64" || float == "f32",
            _ => false,
        }
    }
}

/// The target type of `::autodiff::__private::cast::<T, _>` or `to_int::<T, _>`: the casts of the generic
/// shadow of an `f64` function (`shadow.rs`), which are `as` casts to the macro.
fn private_cast(path: &syn::ExprPath) -> Option<syn::Type> {
    let segments: Vec<_> = path.path.segments.iter().collect();
    let [autodiff, private, cast] = segments.as_slice() else {
        return None;
    };
    let names = (
        autodiff.ident.to_string(),
        private.ident.to_string(),
        cast.ident.to_string(),
    );
    if path.qself.is_some()
        || path.path.leading_colon.is_none()
        || names.0 != "autodiff"
        || names.1 != "__private"
        || !(names.2 == "cast" || names.2 == "to_int")
    {
        return None;
    }
    match &cast.arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.first() {
            Some(syn::GenericArgument::Type(ty)) => Some(ty.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Is `path` `::autodiff::__private::Receiver::receive`?
pub(crate) fn is_private_receive(path: &syn::ExprPath) -> bool {
    path.qself.is_none()
        && path.path.leading_colon.is_some()
        && path_names(&path.path) == ["autodiff", "__private", "Receiver", "receive"]
}

/// Is `path` `::autodiff::__private::field_window` (with its generic arguments)?
pub(crate) fn is_private_field_window(path: &syn::ExprPath) -> bool {
    path.qself.is_none()
        && path.path.leading_colon.is_some()
        && path_names(&path.path) == ["autodiff", "__private", "field_window"]
}

/// Is `path` `::autodiff::__private::matrix_window` (with its generic arguments)?
pub(crate) fn is_private_matrix_window(path: &syn::ExprPath) -> bool {
    path.qself.is_none()
        && path.path.leading_colon.is_some()
        && path_names(&path.path) == ["autodiff", "__private", "matrix_window"]
}

/// The error for `&mut` passed to a call through a function pointer or closure.
const THROUGH_VARIABLE: &str = "a call through a parameter or local variable cannot be differentiated with \
                                output buffers (`&mut`): call a `#[differentiable]` function by its name";

/// The index `0`, of the one element of a float held in an array.
fn zero_index() -> Operand {
    Operand::Const {
        tokens: quote::quote!(0usize),
        kind: Kind::Int,
    }
}

/// `stop_gradient(x)` or `autodiff::stop_gradient(x)`.
pub(crate) fn is_stop_gradient(path: &syn::ExprPath) -> bool {
    let segments = path_names(&path.path);
    path.qself.is_none()
        && matches!(
            segments
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice(),
            ["stop_gradient"] | ["autodiff", "stop_gradient"]
        )
}

/// Is `arg` a nested array literal (`[[a, b], [c, d]]`, `[[0.0; 2]; 3]`), perhaps by reference?
fn nested_array_literal(arg: &Expr) -> bool {
    let arg = match strip_parens(arg) {
        Expr::Reference(r) if r.mutability.is_none() => strip_parens(&r.expr),
        arg => arg,
    };
    let array = |e: &Expr| matches!(strip_parens(e), Expr::Array(_) | Expr::Repeat(_));
    match arg {
        Expr::Array(a) => a.elems.iter().any(array),
        Expr::Repeat(r) => array(&r.expr),
        _ => false,
    }
}
