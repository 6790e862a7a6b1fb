//! Tuple parameters that hold arrays (`p: (f64, [f64; 2])`, `q: (&[f64], f64)`, destructured
//! `(a, b): (Vec<f64>, f64)`), and tuple parameters of floats destructured in the parameter pattern
//! (`(r, t): (f64, f64)`).
//!
//! The intermediate form holds arrays as memory, never inside a value, so a tuple holding an array cannot be
//! one value. The macro differentiates instead a hidden copy of the function that takes the tuple's parts
//! as parameters of their own, and writes the items of the function as calls of the copy's items that group
//! the parts' gradients back into the tuple:
//!
//! ```text
//! // Input:                                   // Output:
//! #[differentiable(order = 2)]                fn f(p: (f64, [f64; 2]), z: f64) -> f64 { .. as written .. }
//! fn f(p: (f64, [f64; 2]), z: f64) -> f64 {   #[differentiable(order = 2)]   // expanded in place
//!     let (s, w) = p;                         fn __f_split(__p_0: f64, __p_1: [f64; 2], z: f64) -> f64 {
//!     s * w[0] + p.1[1] * z                       let (s, w) = (__p_0, __p_1);
//! }                                               s * w[0] + __p_1[1] * z
//!                                             }
//!                                             fn f_grad(p: (f64, [f64; 2]), z: f64) -> (f64, ((f64, [f64; 2]), f64)) {
//!                                                 let (value, (d0, d1, d2)) = __f_split_grad(p.0, p.1, z);
//!                                                 (value, ((d0, d1), d2))
//!                                             }
//!                                             .. (`f_vjp`, `f_jvp`, `f_grad_into`, `f_hvp`, `f_hessian`, ..)
//! ```
//!
//! The gradient of such a parameter is the tuple of its parts' gradients (`(f64, [f64; 2])`,
//! `(Vec<f64>, f64)`); `f_grad_into` takes `&mut` of that tuple, as it does for `(f64, f64)`; the Hessian
//! runs over the parts' floats in order, which is the copy's declaration order. The copy has no companion
//! under the function's name: a differentiable caller passes the parts (`g(p.0, &p.1)`), and a tuple built
//! with an array passed to a call is an error at the call that says so (`lower/calls.rs`).
//!
//! A tuple of floats destructured in the parameter pattern is named instead (`__p_0: (f64, f64)`) and
//! destructured by a `let` at the top of the body, which the rest of the macro reads as it reads
//! `p: (f64, f64)`.

use crate::args::Args;
use crate::errors::Errors;
use crate::signature::{self, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, Ident, Pat, Type};

/// How one parameter of the function stands in its split copy.
enum Group {
    /// A parameter as it is (the receiver too): one parameter of the copy.
    Plain,
    /// A tuple holding an array: its parts, parameters of the copy named `parts`; `source` is how the
    /// function's generated items read each part of their own parameter (`p.0`, or `a` of `(a, b)`).
    Tuple {
        parts: Vec<Ident>,
        source: Vec<TokenStream>,
    },
}

/// The split of a function: its copy with the tuples' parts for parameters, and the groups.
struct Split {
    copy: syn::ItemFn,
    groups: Vec<Group>,
}

// Input:  k((w, [x, 1.0])) + k(p)          (`p: ([f64; 2], [f64; 2])`, `k` taking such a tuple)
// Output: __k_split(w, [x, 1.0]) + __k_split(p.0, p.1)
/// Calls that pass a tuple holding an array (a tuple built in place with an array among its parts, or a
/// tuple parameter holding one) call the callee's split copy with the tuple's parts instead: the callee,
/// taking such a tuple, is split too, and its copy computes the same value. What is an array is read from
/// the syntax: array parameters and parts, array literals, `vec![..]`, sub-slices, and locals bound to
/// those or annotated with an array type. A float parameter outside `wrt(..)` counts as one inside it:
/// the items other differentiable functions call (the hidden sweeps, `maybe.rs`) differentiate every float
/// parameter, and a call passing a tuple is never one they may make without the callee's derivatives.
/// `stop_gradient(t)` is a constant (the error at such a call of a plain function says to write it).
pub(crate) fn pass_parts(item: &mut syn::ItemFn) {
    use syn::visit::Visit;
    let mut names = ArrayNames::default();
    for input in &item.sig.inputs {
        let FnArg::Typed(pt) = input else { continue };
        // An integer or `bool` parameter (or a slice, array or `Vec` of them) is never differentiated: a
        // tuple computed from it alone (`(0.5, k as f64)`) is constant, and may go to a plain function.
        let mut bound = Vec::new();
        bound_names(&pt.pat, &mut bound);
        if !holds_integers_only(&pt.ty) {
            names.from_params.extend(bound.iter().cloned());
        }
        names.from_any.extend(bound);
        match (&*pt.pat, tuple_elems(&pt.ty)) {
            (Pat::Ident(pi), Some(elems))
                if elems.iter().any(|e| signature::nesting_depth(e) > 0) =>
            {
                let arrays = elems
                    .iter()
                    .map(|e| signature::nesting_depth(e) > 0)
                    .collect();
                names.tuples.push((pi.ident.to_string(), arrays));
            }
            (Pat::Ident(pi), Some(elems)) if elems.len() > 1 => {
                names.tuple_names.push((pi.ident.to_string(), elems.len()));
            }
            (Pat::Ident(pi), None) if signature::nesting_depth(&pt.ty) > 0 => {
                names.arrays.push(pi.ident.to_string());
            }
            (Pat::Tuple(t), Some(elems)) => {
                for (pat, ty) in t.elems.iter().zip(elems) {
                    if let (Pat::Ident(pi), true) = (pat, signature::nesting_depth(ty) > 0) {
                        names.arrays.push(pi.ident.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    // A local written from a parameter after it is bound (`out[0] = x` in a loop, `g(x, &mut out)` before
    // a later statement reads it) is one too: visited again, from what the parameters say, until no name
    // joins, as a loop's body may write what its earlier statements read.
    let seed = names.clone();
    names.visit_block(&item.block);
    loop {
        let known = (names.from_params.len(), names.from_any.len());
        let mut again = ArrayNames {
            from_params: std::mem::take(&mut names.from_params),
            from_any: std::mem::take(&mut names.from_any),
            ..seed.clone()
        };
        again.visit_block(&item.block);
        let grown = (again.from_params.len(), again.from_any.len()) != known;
        names = again;
        if !grown {
            break;
        }
    }
    if names.any_call {
        names.visit_block_mut(&mut item.block);
    }
}

/// Is `ty` an integer or `bool` type, alone, behind `&`, or the element of a slice, array or `Vec`: data
/// no cotangent has?
pub(crate) fn holds_integers_only(ty: &Type) -> bool {
    const DATA: [&str; 13] = [
        "bool", "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64",
        "i128",
    ];
    match ty {
        Type::Paren(p) => holds_integers_only(&p.elem),
        Type::Reference(r) => holds_integers_only(&r.elem),
        Type::Slice(s) => holds_integers_only(&s.elem),
        Type::Array(a) => holds_integers_only(&a.elem),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            match &last.arguments {
                syn::PathArguments::None => {
                    p.path.segments.len() == 1 && DATA.iter().any(|d| last.ident == d)
                }
                syn::PathArguments::AngleBracketed(a) if last.ident == "Vec" => {
                    matches!(a.args.first(), Some(syn::GenericArgument::Type(t))
                        if a.args.len() == 1 && holds_integers_only(t))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// The names a parameter pattern binds (`x`, `(a, b)`).
fn bound_names(pat: &Pat, names: &mut Vec<String>) {
    match pat {
        Pat::Ident(pi) => names.push(pi.ident.to_string()),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| bound_names(p, names)),
        Pat::Type(t) => bound_names(&t.pat, names),
        Pat::Reference(r) => bound_names(&r.pat, names),
        Pat::Paren(p) => bound_names(&p.pat, names),
        _ => {}
    }
}

/// The names that hold arrays and tuples holding arrays, as the syntax shows them.
#[derive(Clone, Default)]
struct ArrayNames {
    arrays: Vec<String>,
    /// Tuple parameters holding arrays, with which of their parts are arrays.
    tuples: Vec<(String, Vec<bool>)>,
    /// Tuple parameters and locals bound to a tuple literal (`let t = (a, b);`), with their arity: `&t`
    /// passed to a call is a reference to a tuple, whose callee (`g(t: &(f64, f64))`) is split.
    tuple_names: Vec<(String, usize)>,
    /// The parameters, and the locals whose value names one of them (directly or through other such
    /// locals): what may be differentiated. A tuple of constants passed by reference (`helper(&t)` of
    /// `let t = (1.0, 2.0);`) may go to a plain function, which is not split, and is left as written.
    from_params: Vec<String>,
    /// The same with the integer and `bool` parameters too: a tuple computed from one of them
    /// (`(0.5, k as f64)`) passed beside a differentiated argument goes to a callee that has a
    /// derivative, which is split.
    from_any: Vec<String>,
    /// Is there a call with a tuple argument at all?
    any_call: bool,
}

impl ArrayNames {
    fn is_array(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Paren(p) => self.is_array(&p.expr),
            Expr::Reference(r) => self.is_array(&r.expr),
            Expr::Array(_) | Expr::Repeat(_) => true,
            Expr::Macro(m) => m.mac.path.is_ident("vec"),
            Expr::Index(i) => matches!(&*i.index, Expr::Range(_)),
            Expr::MethodCall(m) => {
                matches!(m.method.to_string().as_str(), "to_vec" | "clone")
                    && self.is_array(&m.receiver)
            }
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.arrays.iter().any(|a| i == a)),
            // `p.0` of a tuple parameter whose part 0 is an array.
            Expr::Field(f) => match (self.tuple_parts(&f.base), &f.member) {
                (Some(arrays), syn::Member::Unnamed(i)) => {
                    arrays.get(i.index as usize).copied().unwrap_or(false)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Does `expr` name a parameter or a local computed from one?
    fn mentions_params(&self, expr: &Expr) -> bool {
        Self::mentions(&self.from_params, expr)
    }

    /// Does `expr` name one of `names`?
    fn mentions(names: &[String], expr: &Expr) -> bool {
        use syn::visit::Visit;
        struct Mentions<'a>(&'a [String], bool);
        impl<'ast> syn::visit::Visit<'ast> for Mentions<'_> {
            fn visit_path(&mut self, p: &'ast syn::Path) {
                if let Some(ident) = p.get_ident() {
                    self.1 |= self.0.iter().any(|n| ident == n);
                }
                syn::visit::visit_path(self, p);
            }
            // `stop_gradient(t)` is a constant whatever it names: `(stop_gradient(t), [1.0])` may go
            // to a plain function, as the error for a call of one with a differentiated tuple says.
            fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
                if !matches!(&*c.func, Expr::Path(p) if crate::lower::is_stop_gradient(p)) {
                    syn::visit::visit_expr_call(self, c);
                }
            }
            // `vec![x[1]; 3]`: a macro's tokens, which syn leaves unparsed, by their names.
            fn visit_macro(&mut self, m: &'ast syn::Macro) {
                fn names(tokens: TokenStream, of: &[String]) -> bool {
                    tokens.into_iter().any(|t| match t {
                        proc_macro2::TokenTree::Ident(i) => of.iter().any(|n| i == n),
                        proc_macro2::TokenTree::Group(g) => names(g.stream(), of),
                        _ => false,
                    })
                }
                self.1 |= names(m.tokens.clone(), self.0);
            }
        }
        let mut mentions = Mentions(names, false);
        mentions.visit_expr(expr);
        mentions.1
    }

    /// The parts of a tuple behind a reference passed to a call, `&(a, b)` or `&t` of a tuple name, when
    /// it holds something computed from the parameters that may be differentiated, or from an integer
    /// parameter where the call is `active_call` (another argument may be differentiated): such a callee
    /// has a derivative, so it is differentiable and split. A tuple computed from integer parameters
    /// alone in a call of constants may go to a plain function, and is left as written (a differentiable
    /// callee's primal takes the tuple as written too); so is a tuple of literals alone, as before.
    fn referenced_parts(&self, expr: &Expr, active_call: bool) -> Option<Vec<Expr>> {
        let Expr::Reference(r) = expr else {
            return None;
        };
        if r.mutability.is_some()
            || !(self.mentions_params(&r.expr)
                || (active_call && Self::mentions(&self.from_any, &r.expr)))
        {
            return None;
        }
        let mut inner = &*r.expr;
        while let Expr::Paren(p) = inner {
            inner = &p.expr;
        }
        match inner {
            Expr::Tuple(t) if t.elems.len() > 1 => Some(t.elems.iter().cloned().collect()),
            Expr::Path(p) => {
                let ident = p.path.get_ident()?;
                let (_, arity) = self.tuple_names.iter().rev().find(|(n, _)| ident == n)?;
                Some(
                    (0..*arity)
                        .map(|i| {
                            let index = syn::Index::from(i);
                            syn::parse_quote!(#inner.#index)
                        })
                        .collect(),
                )
            }
            _ => None,
        }
    }

    /// `target` (`out[i]`, `s`, `*e`) written with `value`: its name joins `from_params` (and `from_any`)
    /// where `value` names one of them. A destructuring assignment (`(s, t) = (t, x);`) writes each name
    /// of the tuple.
    fn written(&mut self, target: &Expr, value: &Expr) {
        match target {
            Expr::Tuple(t) => t.elems.iter().for_each(|e| self.written(e, value)),
            Expr::Paren(p) => self.written(&p.expr, value),
            _ => {
                if let Some(name) = written_name(target) {
                    self.joins(&name, value);
                }
            }
        }
    }

    /// `name`, bound or written with `value`, joins `from_params` (and `from_any`) where `value` names
    /// one of them.
    fn joins(&mut self, name: &str, value: &Expr) {
        if self.mentions_params(value) && !self.from_params.iter().any(|n| n == name) {
            self.from_params.push(name.to_string());
        }
        if Self::mentions(&self.from_any, value) && !self.from_any.iter().any(|n| n == name) {
            self.from_any.push(name.to_string());
        }
    }

    /// A call with `args` writes each `&mut name` among them from the others: its names join as
    /// [`written`](Self::written) says, from all the arguments.
    fn written_through<'a>(&mut self, args: impl Iterator<Item = &'a Expr> + Clone) {
        let outs = args.clone().filter_map(|a| match a {
            Expr::Reference(r) if r.mutability.is_some() => Some(&*r.expr),
            _ => None,
        });
        for out in outs.collect::<Vec<_>>() {
            for value in args.clone() {
                self.written(out, value);
            }
        }
    }

    /// Which parts of the tuple parameter `expr` names are arrays.
    fn tuple_parts(&self, expr: &Expr) -> Option<&[bool]> {
        let Expr::Path(p) = expr else { return None };
        let ident = p.path.get_ident()?;
        self.tuples
            .iter()
            .find(|(n, _)| ident == n)
            .map(|(_, arrays)| arrays.as_slice())
    }
}

impl<'ast> syn::visit::Visit<'ast> for ArrayNames {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        syn::visit::visit_local(self, local);
        let (pat, ty) = match &local.pat {
            Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            other => (other, None),
        };
        // Every name the pattern binds (`let (p0, p1) = (p.0, p.1[0]);`) joins where the value names
        // a parameter.
        if let Some(init) = local.init.as_ref() {
            let mut bound = Vec::new();
            bound_names(pat, &mut bound);
            for name in &bound {
                self.joins(name, &init.expr);
            }
        }
        let Pat::Ident(pi) = pat else { return };
        let arity = match (
            ty.and_then(tuple_elems),
            local.init.as_ref().map(|i| &*i.expr),
        ) {
            (Some(elems), _) => elems.len(),
            (None, Some(Expr::Tuple(t))) => t.elems.len(),
            _ => 0,
        };
        if arity > 1 {
            self.tuple_names.push((pi.ident.to_string(), arity));
        }
        let array = ty.is_some_and(|t| signature::nesting_depth(t) > 0)
            || local.init.as_ref().is_some_and(|i| self.is_array(&i.expr));
        if array {
            self.arrays.push(pi.ident.to_string());
        }
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.any_call |= c
            .args
            .iter()
            .any(|a| matches!(a, Expr::Tuple(_) | Expr::Path(_) | Expr::Reference(_)));
        syn::visit::visit_expr_call(self, c);
        self.written_through(c.args.iter());
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        syn::visit::visit_expr_method_call(self, m);
        self.written_through(std::iter::once(&*m.receiver).chain(&m.args));
    }
    // `out[i] = x`, `s += x`: the name written joins the parameters' if the value names one.
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        syn::visit::visit_expr_assign(self, a);
        self.written(&a.left, &a.right);
    }
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        syn::visit::visit_expr_binary(self, b);
        if crate::lower::is_compound_assign(&b.op) {
            self.written(&b.left, &b.right);
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl VisitMut for ArrayNames {
    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        syn::visit_mut::visit_expr_call_mut(self, c);
        let Expr::Path(func) = &*c.func else { return };
        let mut flattened = false;
        let active_call = c.args.iter().any(|a| self.mentions_params(a));
        let mut args = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::new();
        for arg in &c.args {
            let mut inner = arg;
            while let Expr::Paren(p) = inner {
                inner = &p.expr;
            }
            if let Some(parts) = self.referenced_parts(inner, active_call) {
                // `g(&t)`: `g` takes `&(..)`, so it is split.
                args.extend(parts);
                flattened = true;
                continue;
            }
            // A tuple of constants (no argument of the call differentiated, the tuple computed from
            // no differentiated parameter) may go to a plain function: left as written.
            let constant = !active_call && !self.mentions_params(inner);
            match inner {
                _ if constant => args.push(arg.clone()),
                Expr::Tuple(t) if t.elems.iter().any(|e| self.is_array(e)) => {
                    args.extend(t.elems.iter().cloned());
                    flattened = true;
                }
                _ => match self.tuple_parts(inner).map(<[bool]>::len) {
                    Some(arity) => {
                        for i in 0..arity {
                            let index = syn::Index::from(i);
                            args.push(syn::parse_quote!(#inner.#index));
                        }
                        flattened = true;
                    }
                    None => args.push(arg.clone()),
                },
            }
        }
        if !flattened {
            return;
        }
        let mut func = func.clone();
        if let Some(last) = func.path.segments.last_mut() {
            last.ident = format_ident!(
                "__{}_split",
                crate::naming::unraw(&last.ident),
                span = last.ident.span()
            );
        }
        *c.func = Expr::Path(func);
        c.args = args;
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The local that writing `target` changes (`out` of `out[i][j]`, `s` of `s`, `e` of `*e`, `p` of `p.0`).
fn written_name(target: &Expr) -> Option<String> {
    match target {
        Expr::Paren(p) => written_name(&p.expr),
        Expr::Index(i) => written_name(&i.expr),
        Expr::Field(f) => written_name(&f.base),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => written_name(&u.expr),
        Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}

/// Does `item` have a tuple parameter holding an array, or one destructured in the parameter pattern?
pub(crate) fn applies(item: &syn::ItemFn) -> bool {
    item.sig.inputs.iter().any(|input| {
        matches!(input, FnArg::Typed(pt)
            if holds_array(&pt.ty) || matches!(&*pt.pat, Pat::Tuple(_)))
    })
}

/// Expands `item` (of which [`applies`] holds) through its split copy, `expand` expanding the copy.
pub(crate) fn expand(
    item: &syn::ItemFn,
    args: Args,
    mut errors: Errors,
    expand: impl FnOnce(Args, syn::ItemFn, Errors) -> TokenStream,
) -> TokenStream {
    let float_params = crate::expand::float_params_with_impl(item);
    let before = errors.len();
    let split = split(item, &float_params, &mut errors);
    // Only tuples of floats destructured: named, and destructured by the body (no split copy).
    if errors.len() > before {
        // The function as written, beside stubs of its items: one error each, no cascade.
        let errors = errors.finish().err().unwrap_or_default();
        let stubs = crate::expand::stubs(item, None, args.order.as_ref());
        let item = (!args.of_trait).then_some(item);
        return quote!(#errors #item #stubs);
    }
    if split.groups.iter().all(|g| matches!(g, Group::Plain)) {
        return expand(args, split.copy, errors);
    }
    let args = Args {
        wrt: args.wrt.map(|wrt| {
            wrt.into_iter()
                .flat_map(|name| parts_named(item, &split, &name).unwrap_or_else(|| vec![name]))
                .collect()
        }),
        ..args
    };
    let order = args
        .order
        .as_ref()
        .and_then(|k| k.base10_parse::<usize>().ok())
        .unwrap_or(1);
    let copy_sig = signature::analyze(
        &crate::expand::impl_float_params(&split.copy),
        &args,
        &mut Errors::default(),
    );
    let order_arg = args.order.clone();
    let of_trait = args.of_trait;
    let expanded = expand(args, split.copy.clone(), errors);
    let items = match &copy_sig {
        Some(sig) if sig.active().count() > 0 => {
            Wrappers::new(item, &split, sig).items(order, &split.copy)
        }
        _ => crate::expand::stubs(item, None, order_arg.as_ref()),
    };
    // The items call the copy, not `f`: a program that calls only `f_grad` leaves `f` unused, which it
    // should not hear of (a function whose items call it does not).
    let mut item = crate::expand::primal(item).into_owned();
    item.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    // A trait's method copied into an inherent `impl` (`impls.rs`) is emitted in the trait's `impl`.
    let item = (!of_trait).then_some(item);
    quote!(#item #expanded #items)
}

/// Is `ty` a tuple one of whose parts is an array, slice, `Vec` or matrix (of floats or not), or a
/// reference (`(&f32, &f32)`), or a reference to a tuple (`&(f64, f64, f64)`)? Those are split too: the
/// intermediate form holds neither a reference inside a value nor a tuple behind one.
fn holds_array(ty: &Type) -> bool {
    match ty {
        Type::Paren(p) => holds_array(&p.elem),
        Type::Reference(r) if r.mutability.is_none() => {
            matches!(tuple_elems(&r.elem), Some(elems) if elems.len() > 1)
        }
        Type::Tuple(t) => t.elems.iter().any(|e| {
            signature::nesting_depth(e) > 0
                || matches!(e, Type::Tuple(_) | Type::Paren(_))
                || matches!(e, Type::Reference(r) if r.mutability.is_none())
        }),
        _ => false,
    }
}

/// The parts of the copy that `wrt(name)` names: a tuple parameter's, or the part of that name.
fn parts_named(item: &syn::ItemFn, split: &Split, name: &Ident) -> Option<Vec<Ident>> {
    item.sig
        .inputs
        .iter()
        .zip(&split.groups)
        .find_map(|(input, group)| match (input, group) {
            (FnArg::Typed(pt), Group::Tuple { parts, .. }) => match &*pt.pat {
                Pat::Ident(pi) if pi.ident == *name => Some(parts.clone()),
                _ => None,
            },
            _ => None,
        })
}

/// The elements of a tuple type, parentheses stripped.
fn tuple_elems(ty: &Type) -> Option<Vec<&Type>> {
    match ty {
        Type::Paren(p) => tuple_elems(&p.elem),
        // `t: &(f64, f64)`: its parts read as `t.0`, `t.1` (a field of a reference auto-derefs).
        Type::Reference(r) if r.mutability.is_none() && !matches!(&*r.elem, Type::Reference(_)) => {
            tuple_elems(&r.elem)
        }
        Type::Tuple(t) if !t.elems.is_empty() => Some(t.elems.iter().collect()),
        _ => None,
    }
}

/// Can this be a part of a tuple parameter: a float, a float taken by reference, a slice, `Vec` or array
/// of floats, a matrix?
fn supported_part(ty: &Type, float_params: &[Ident]) -> bool {
    let float = |t: &Type| {
        matches!(
            signature::kind_of_type(t, float_params),
            crate::ir::Kind::Float(_)
        )
    };
    float(ty)
        || matches!(ty, Type::Reference(r) if r.mutability.is_none() && float(&r.elem))
        || signature::array_shape(ty, float_params).is_some()
        || signature::matrix_shape(ty, float_params).is_some()
}

/// `T` of a part `&T` of a tuple, `T` a float.
fn float_behind_reference<'a>(ty: &'a Type, float_params: &[Ident]) -> Option<&'a Type> {
    match ty {
        Type::Reference(r)
            if r.mutability.is_none()
                && matches!(
                    signature::kind_of_type(&r.elem, float_params),
                    crate::ir::Kind::Float(_)
                ) =>
        {
            Some(&r.elem)
        }
        _ => None,
    }
}

/// The split copy of `item`, reporting each part it cannot take.
fn split(item: &syn::ItemFn, float_params: &[Ident], errors: &mut Errors) -> Split {
    let mut copy = item.clone();
    let mut groups = Vec::new();
    let mut inputs = syn::punctuated::Punctuated::<FnArg, syn::Token![,]>::new();
    let mut prologue: Vec<syn::Stmt> = Vec::new();
    let mut renames: Vec<(Ident, Vec<Ident>)> = Vec::new();
    for input in &item.sig.inputs {
        let FnArg::Typed(pt) = input else {
            inputs.push(input.clone());
            groups.push(Group::Plain);
            continue;
        };
        let Some(elems) = tuple_elems(&pt.ty) else {
            inputs.push(input.clone());
            groups.push(Group::Plain);
            continue;
        };
        let arrays = holds_array(&pt.ty);
        let unsupported: Vec<bool> = elems
            .iter()
            .map(|elem| arrays && !supported_part(elem, float_params))
            .collect();
        for (elem, _) in elems.iter().zip(&unsupported).filter(|(_, u)| **u) {
            errors.spanned(
                elem,
                "a tuple parameter is differentiated when its parts are floats, slices, `Vec`s, arrays or \
                 matrices of floats (`(f64, f64)`, `(f64, [f64; 2])`, `(&[f64], f64)`): pass the other \
                 parts (integers, flags, nested tuples, `&mut` buffers) as parameters of their own",
            );
        }
        match &*pt.pat {
            // `(a, b): (f64, f64)`: named, and destructured at the top of the body.
            Pat::Tuple(t) if !arrays => {
                let name = Ident::new(
                    &format!("__tuple_{}", groups.len()),
                    Span::mixed_site().located_at(syn::spanned::Spanned::span(&pt.pat)),
                );
                let pat = &t;
                prologue.push(syn::parse_quote!(let #pat = #name;));
                let ty = &pt.ty;
                inputs.push(syn::parse_quote!(#name: #ty));
                groups.push(Group::Plain);
            }
            Pat::Tuple(t) => {
                if t.elems.len() != elems.len() {
                    errors.spanned(
                        t,
                        "the pattern has another number of parts than the tuple type",
                    );
                    inputs.push(input.clone());
                    groups.push(Group::Plain);
                    continue;
                }
                let (mut parts, mut source) = (Vec::new(), Vec::new());
                for (i, (pat, ty)) in t.elems.iter().zip(&elems).enumerate() {
                    let (part, declared) = match pat {
                        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            (pi.ident.clone(), quote!(#pi: #ty))
                        }
                        Pat::Wild(w) => {
                            let name = Ident::new(
                                &format!("__unused_{}_{i}", groups.len()),
                                w.underscore_token.span,
                            );
                            (name.clone(), quote!(#name: #ty))
                        }
                        _ if unsupported[i] => continue,
                        other => {
                            errors.spanned(
                                other,
                                "destructure a tuple parameter into names (`(a, b): (f64, [f64; 2])`), \
                                 or name it and destructure it in the body",
                            );
                            continue;
                        }
                    };
                    inputs.push(syn::parse_quote!(#declared));
                    source.push(part.to_token_stream());
                    parts.push(part);
                }
                groups.push(Group::Tuple { parts, source });
            }
            Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let name = &pi.ident;
                let mut parts = Vec::new();
                let mut source = Vec::new();
                for (i, ty) in elems.iter().enumerate() {
                    let part = Ident::new(
                        &format!("__{}_{i}", crate::naming::unraw(name)),
                        Span::mixed_site().located_at(name.span()),
                    );
                    // `mut p` makes every part writable, as the tuple's fields are.
                    let mutability = pi.mutability;
                    let index = syn::Index::from(i);
                    match float_behind_reference(ty, float_params) {
                        // `x: (&f32, &f32)`: the part is the float (`*x.0`), which the body's `x.0 * x.1`
                        // multiplies as it multiplies the references.
                        Some(float) => {
                            inputs.push(syn::parse_quote!(#mutability #part: #float));
                            source.push(quote!(*#name.#index));
                        }
                        None => {
                            inputs.push(syn::parse_quote!(#mutability #part: #ty));
                            source.push(quote!(#name.#index));
                        }
                    }
                    parts.push(part);
                }
                renames.push((name.clone(), parts.clone()));
                groups.push(Group::Tuple { parts, source });
            }
            _ => {
                inputs.push(input.clone());
                groups.push(Group::Plain);
            }
        }
    }
    copy.sig.inputs = inputs;
    if !renames.is_empty() {
        let mut rewrite = Parts {
            renames: &renames,
            shadowed: Vec::new(),
        };
        rewrite.visit_block_mut(&mut copy.block);
        for (name, span) in rewrite.shadowed {
            errors.push(syn::Error::new(
                span,
                format!(
                    "`{name}` is a tuple parameter holding an array, which the body reads by its parts \
                     (`{name}.0`, `let (a, b) = {name};`): give this binding another name"
                ),
            ));
        }
    }
    if !prologue.is_empty() {
        let stmts = std::mem::take(&mut copy.block.stmts);
        copy.block.stmts = prologue.into_iter().chain(stmts).collect();
    }
    if groups.iter().any(|g| matches!(g, Group::Tuple { .. })) {
        copy.sig.ident = format_ident!(
            "__{}_split",
            crate::naming::unraw(&item.sig.ident),
            span = item.sig.ident.span()
        );
        copy.vis = item.vis.clone();
        copy.attrs
            .retain(|a| a.path().is_ident("cfg") || a.path().is_ident("allow"));
        copy.attrs.push(syn::parse_quote!(#[doc(hidden)]));
        copy.attrs.push(
            syn::parse_quote!(#[allow(dead_code, clippy::too_many_arguments, clippy::type_complexity)]),
        );
    }
    Split { copy, groups }
}

/// Rewrites the body of the split copy: `p.1` is the part `__p_1`, `p` alone the tuple of the parts.
struct Parts<'r> {
    renames: &'r [(Ident, Vec<Ident>)],
    /// Bindings in the body that shadow a split tuple (`let p = ..`), which the rewrite cannot follow.
    shadowed: Vec<(Ident, Span)>,
}

impl Parts<'_> {
    fn parts(&self, expr: &Expr) -> Option<&[Ident]> {
        let Expr::Path(p) = expr else { return None };
        let ident = p.path.get_ident().filter(|_| p.qself.is_none())?;
        self.renames
            .iter()
            .find(|(name, _)| name == ident)
            .map(|(_, parts)| parts.as_slice())
    }
}

impl VisitMut for Parts<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Macro(m) = expr {
            if m.mac.path.is_ident("vec") {
                crate::chains::rewrite_vec_args(&mut m.mac, |arg| self.visit_expr_mut(arg));
                return;
            }
        }
        if let Expr::Field(f) = expr {
            if let (Some(parts), syn::Member::Unnamed(index)) = (self.parts(&f.base), &f.member) {
                if let Some(part) = parts.get(index.index as usize) {
                    let mut part = part.clone();
                    part.set_span(Span::mixed_site().located_at(index.span));
                    *expr = syn::parse_quote!(#part);
                    return;
                }
            }
        }
        if let Some(parts) = self.parts(expr) {
            let span = syn::spanned::Spanned::span(expr);
            let parts = parts.iter().map(|p| {
                let mut p = p.clone();
                p.set_span(Span::mixed_site().located_at(span));
                p
            });
            *expr = syn::parse_quote_spanned!(span=> (#(#parts,)*));
            return;
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_pat_ident_mut(&mut self, pi: &mut syn::PatIdent) {
        if self.renames.iter().any(|(name, _)| *name == pi.ident) {
            self.shadowed.push((pi.ident.clone(), pi.ident.span()));
        }
        syn::visit_mut::visit_pat_ident_mut(self, pi);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The items of the function, written as calls of its split copy's.
struct Wrappers<'a> {
    item: &'a syn::ItemFn,
    split: &'a Split,
    /// The copy's signature.
    sig: &'a Signature,
    /// Which parameters of the copy are active, by name.
    active: Vec<&'a Ident>,
}

impl<'a> Wrappers<'a> {
    fn new(item: &'a syn::ItemFn, split: &'a Split, sig: &'a Signature) -> Self {
        Wrappers {
            item,
            split,
            sig,
            active: sig.active().map(|p| &p.ident).collect(),
        }
    }

    /// The copy's parameters, group by group (the receiver is its own group).
    fn copy_params(&self) -> Vec<Vec<&'a signature::Param>> {
        let mut params = self.sig.params.iter();
        self.split
            .groups
            .iter()
            .map(|g| match g {
                Group::Plain => params.next().into_iter().collect(),
                Group::Tuple { parts, .. } => params.by_ref().take(parts.len()).collect(),
            })
            .collect()
    }

    /// The arguments of a call of a copy's item: each parameter, a tuple's parts read from it.
    fn arguments(&self) -> Vec<TokenStream> {
        let mut args = Vec::new();
        for (input, group) in self.item.sig.inputs.iter().zip(&self.split.groups) {
            match (input, group) {
                (FnArg::Receiver(r), _) => args.push(r.self_token.to_token_stream()),
                (FnArg::Typed(pt), Group::Plain) => match &*pt.pat {
                    Pat::Ident(pi) => args.push(pi.ident.to_token_stream()),
                    other => args.push(other.to_token_stream()),
                },
                (FnArg::Typed(_), Group::Tuple { source, .. }) => {
                    args.extend(source.iter().cloned())
                }
            }
        }
        args
    }

    /// How the function's items call the copy's item `suffix`: `__f_split_grad`, `Self::__f_split_grad`.
    fn callee(&self, suffix: &str) -> TokenStream {
        let name = signature::derived_name(&self.split.copy, suffix);
        match crate::expand::is_method(self.item) {
            true => quote!(Self::#name),
            false => quote!(#name),
        }
    }

    /// The gradient, as the copy gives it (`prefix` names each active part, `prefix0`, ..) and as the
    /// function gives it (the parts of a tuple grouped), as tokens that are a pattern and an expression
    /// alike.
    fn shapes(&self, prefix: &str) -> (TokenStream, TokenStream) {
        let leaf = |i: usize| format_ident!("{}{}", prefix, i, span = Span::mixed_site());
        let mut index = 0;
        let mut grouped = Vec::new();
        for params in self.copy_params() {
            let leaves: Vec<Ident> = params
                .iter()
                .filter(|p| self.active.contains(&&p.ident))
                .map(|_| {
                    index += 1;
                    leaf(index - 1)
                })
                .collect();
            match (params.len(), leaves.as_slice()) {
                (_, []) => {}
                (1, [one]) if !self.is_tuple_group(&params) => grouped.push(quote!(#one)),
                _ => grouped.push(quote!((#(#leaves,)*))),
            }
        }
        let flat: Vec<Ident> = (0..index).map(leaf).collect();
        let flat: Vec<TokenStream> = flat.iter().map(ToTokens::to_token_stream).collect();
        (tuple_or_single(&flat), tuple_or_single(&grouped))
    }

    fn is_tuple_group(&self, params: &[&signature::Param]) -> bool {
        params.first().is_some_and(|p| {
            self.split
                .groups
                .iter()
                .any(|g| matches!(g, Group::Tuple { parts, .. } if parts.contains(&p.ident)))
        })
    }

    /// `G` of the function: a tuple parameter's gradient is the tuple of its parts'.
    fn gradient_type(&self) -> TokenStream {
        let types = self.grouped(
            |p| p.grad_ty.to_token_stream(),
            |parts| {
                let types = parts.iter().map(|p| &p.grad_ty);
                quote!((#(#types,)*))
            },
        );
        tuple_or_single(&types)
    }

    /// The buffers of `f_grad_into`: a tuple parameter's is `&mut` of its gradient, as for `(f64, f64)`.
    fn buffers_type(&self) -> TokenStream {
        let types = self.grouped(Signature::gradient_buffer_type, |parts| {
            let types = parts.iter().map(|p| &p.grad_ty);
            quote!(&mut (#(#types,)*))
        });
        tuple_or_single(&types)
    }

    /// One entry per group with an active part: `plain(p)` of a parameter, `tuple(parts)` of a tuple's
    /// active parts.
    fn grouped(
        &self,
        plain: impl Fn(&signature::Param) -> TokenStream,
        tuple: impl Fn(&[&signature::Param]) -> TokenStream,
    ) -> Vec<TokenStream> {
        self.copy_params()
            .into_iter()
            .filter_map(|params| {
                let active: Vec<&signature::Param> = params
                    .iter()
                    .copied()
                    .filter(|p| self.active.contains(&&p.ident))
                    .collect();
                match (self.is_tuple_group(&params), active.as_slice()) {
                    (_, []) => None,
                    (false, [one]) => Some(plain(one)),
                    _ => Some(tuple(&active)),
                }
            })
            .collect()
    }

    /// Every item the function has, each a call of the copy's.
    fn items(&self, order: usize, copy: &syn::ItemFn) -> TokenStream {
        let sig = self.sig;
        let ret = &sig.ret_ty;
        let gradient = self.gradient_type();
        let args = self.arguments();
        let fixed = crate::naming::fixed;
        let (value, d_ret, tangent, grad, v, hessian) = (
            fixed("__value"),
            fixed("d_ret"),
            fixed("tangent"),
            fixed("grad"),
            fixed("v"),
            fixed("__hessian"),
        );
        let (copy_g, function_g) = self.shapes("__d");
        let (copy_t, function_t) = self.shapes("__t");
        let (copy_h, function_h) = self.shapes("__h");
        let signature = |suffix: &str, extra: TokenStream, ret: TokenStream| {
            let name = signature::derived_name(self.item, suffix);
            let declared = self.declared();
            let vis = &self.item.vis;
            let generics = &self.item.sig.generics;
            let where_clause = &generics.where_clause;
            let attrs = self
                .item
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("allow"));
            let doc = format!(
                "`{}` of `{}` (`#[differentiable]`), computed by `{}` on the parts of its tuple parameters.",
                name,
                self.item.sig.ident,
                signature::derived_name(copy, suffix),
            );
            quote! {
                #[doc = #doc]
                #(#attrs)*
                #[allow(clippy::too_many_arguments, clippy::type_complexity)]
                #vis fn #name #generics (#(#declared,)* #extra) -> #ret #where_clause
            }
        };
        // Output parameters (`&mut` buffers beside the tuples): their cotangents and tangent buffers.
        let outputs: Vec<&signature::Param> = sig.outputs().collect();
        let cotangents: Vec<Ident> = outputs
            .iter()
            .map(|p| crate::naming::output_cotangent(&p.ident))
            .collect();
        let cotangent_types = outputs
            .iter()
            .map(|p| Signature::output_seed_type(p, false));
        let tangent_types = outputs.iter().map(|p| Signature::output_seed_type(p, true));
        let unit = sig.returns_unit();
        let mut items = Vec::new();
        let vjp = self.callee("vjp");
        let vjp_item = if unit {
            let head = signature(
                "vjp",
                quote!(#(#cotangents: #cotangent_types,)*),
                gradient.clone(),
            );
            quote!(#head { let #copy_g = #vjp(#(#args,)* #(#cotangents,)*); #function_g })
        } else {
            let head = signature(
                "vjp",
                quote!(#d_ret: #ret, #(#cotangents: #cotangent_types,)*),
                quote!((#ret, #gradient)),
            );
            quote!(#head {
                let (#value, #copy_g) = #vjp(#(#args,)* #d_ret, #(#cotangents,)*);
                (#value, #function_g)
            })
        };
        items.push(vjp_item);
        let jvp = self.callee("jvp");
        let jvp_ret = if unit {
            quote!(())
        } else {
            quote!((#ret, #ret))
        };
        let head = signature(
            "jvp",
            quote!(#tangent: #gradient, #(#cotangents: #tangent_types,)*),
            jvp_ret,
        );
        items.push(quote!(#head {
            let #function_t = #tangent;
            #jvp(#(#args,)* #copy_t, #(#cotangents,)*)
        }));
        if sig.returns_scalar() {
            let grad_fn = self.callee("grad");
            let head = signature("grad", TokenStream::new(), quote!((#ret, #gradient)));
            items.push(quote!(#head {
                let (#value, #copy_g) = #grad_fn(#(#args,)*);
                (#value, #function_g)
            }));
            let into = self.callee("grad_into");
            let buffers_type = self.buffers_type();
            let head = signature("grad_into", quote!(#grad: #buffers_type), quote!(#ret));
            let (pattern, buffers) = self.buffers();
            items.push(quote!(#head {
                let #pattern = #grad;
                #into(#(#args,)* #buffers)
            }));
        }
        if order >= 2 && sig.returns_scalar() {
            let hvp = self.callee("hvp");
            let head = signature(
                "hvp",
                quote!(#v: #gradient),
                quote!((#ret, #gradient, #gradient)),
            );
            items.push(quote!(#head {
                let #function_t = #v;
                let (#value, #copy_g, #copy_h) = #hvp(#(#args,)* #copy_t);
                (#value, #function_g, #function_h)
            }));
            let hessian_fn = self.callee("hessian");
            let head = signature(
                "hessian",
                TokenStream::new(),
                quote!((#ret, #gradient, ::std::vec::Vec<::std::vec::Vec<#ret>>)),
            );
            items.push(quote!(#head {
                let (#value, #copy_g, #hessian) = #hessian_fn(#(#args,)*);
                (#value, #function_g, #hessian)
            }));
        }
        // With `wrt(..)` leaving the tuples out, one scalar may be active: `f_derivatives`.
        let one_scalar = matches!(sig.active().collect::<Vec<_>>().as_slice(),
            [p] if p.array.is_none() && matches!(p.kind, crate::ir::Kind::Float(_)));
        if order >= 2 && sig.returns_scalar() && one_scalar {
            let derivatives = self.callee("derivatives");
            let count = order + 1;
            let head = signature("derivatives", TokenStream::new(), quote!([#ret; #count]));
            items.push(quote!(#head { #derivatives(#(#args,)*) }));
        }
        if let Some(elem) = crate::jacobian::element(sig) {
            let jacobian = self.callee("jacobian");
            let head = signature(
                "jacobian",
                TokenStream::new(),
                quote!(::std::vec::Vec<::std::vec::Vec<#elem>>),
            );
            items.push(quote!(#head { #jacobian(#(#args,)*) }));
        }
        quote!(#(#items)*)
    }

    /// The function's parameters as its items declare them (a destructured tuple as written, without
    /// `mut`).
    fn declared(&self) -> Vec<TokenStream> {
        self.item
            .sig
            .inputs
            .iter()
            .map(|input| match input {
                FnArg::Receiver(r) => {
                    let (and, lifetime) = match &r.reference {
                        Some((and, lifetime)) => (Some(and), lifetime.as_ref()),
                        None => (None, None),
                    };
                    let self_token = &r.self_token;
                    quote!(#and #lifetime #self_token)
                }
                FnArg::Typed(pt) => {
                    let mut pat = (*pt.pat).clone();
                    StripMut.visit_pat_mut(&mut pat);
                    let ty = &pt.ty;
                    quote!(#pat: #ty)
                }
            })
            .collect()
    }

    /// `f_grad_into`'s buffers: the pattern that takes the function's tuple of them apart, and the copy's
    /// buffers made of it (a tuple's part `&mut b.0`, a slice's or `Vec`'s `&mut b.0[..]`).
    fn buffers(&self) -> (TokenStream, TokenStream) {
        let mut pattern = Vec::new();
        let mut buffers = Vec::new();
        for (k, params) in self.copy_params().into_iter().enumerate() {
            let active: Vec<&&signature::Param> = params
                .iter()
                .filter(|p| self.active.contains(&&p.ident))
                .collect();
            if active.is_empty() {
                continue;
            }
            let name = format_ident!("__buffer_{}", k, span = Span::mixed_site());
            pattern.push(quote!(#name));
            if self.is_tuple_group(&params) {
                for (i, p) in active.iter().enumerate() {
                    let index = syn::Index::from(i);
                    let fixed = p.array.is_none_or(|shape| shape.fixed);
                    buffers.push(match fixed {
                        true => quote!(&mut #name.#index),
                        false => quote!(&mut #name.#index[..]),
                    });
                }
            } else {
                buffers.push(quote!(#name));
            }
        }
        (tuple_or_single(&pattern), tuple_or_single(&buffers))
    }
}

/// Takes `mut` off the names of a pattern (the generated items do not write their parameters).
struct StripMut;

impl VisitMut for StripMut {
    fn visit_pat_ident_mut(&mut self, pi: &mut syn::PatIdent) {
        pi.mutability = None;
        syn::visit_mut::visit_pat_ident_mut(self, pi);
    }
}

/// One item alone, several as a tuple (`(a, b,)`): the shape of a gradient of one or several parameters.
fn tuple_or_single(items: &[TokenStream]) -> TokenStream {
    match items {
        [one] => one.clone(),
        many => quote!((#(#many,)*)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(text: &str) -> Type {
        syn::parse_str(text).expect("a type")
    }

    #[test]
    fn references_in_and_to_tuples_are_split() {
        assert!(holds_array(&ty("(&f32, &f32)")));
        assert!(holds_array(&ty("&(f64, f64, f64)")));
        assert!(holds_array(&ty("(f64, [f64; 2])")));
        assert!(!holds_array(&ty("(f64, f64)")));
        assert!(!holds_array(&ty("&f64")));
        assert!(!holds_array(&ty("&(f64,)")));
        assert!(!holds_array(&ty("(&mut f64, f64)")));
        assert_eq!(tuple_elems(&ty("&(f64, f32)")).map(|e| e.len()), Some(2));
        assert!(tuple_elems(&ty("&mut (f64, f32)")).is_none());
        let float = ty("&f64");
        assert!(float_behind_reference(&float, &[]).is_some());
        assert!(float_behind_reference(&ty("&[f64]"), &[]).is_none());
    }

    #[test]
    fn a_local_written_from_a_parameter_is_differentiated_in_a_tuple() {
        // `out` is written by a call from `s`, and `acc` from `s` later in a loop: a tuple holding an
        // array and one of them goes to the split copy, not to the callee as written.
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn f(s: f64) -> f64 {
                let mut out = vec![0.0; 3];
                let mut acc = 0.0;
                let a = g(s, (1.0, [0.5]), &mut out);
                for i in 0..2 {
                    let b = g(1.0, (out[1], [0.5]), &mut out);
                    let c = g(1.0, (acc, [0.5]), &mut out);
                    acc += s * b * c;
                }
                a + acc
            }
        };
        pass_parts(&mut item);
        let body = item.block.to_token_stream().to_string();
        assert!(
            body.contains("__g_split (1.0 , out [1] , [0.5] , & mut out)"),
            "{body}"
        );
        assert!(
            body.contains("__g_split (1.0 , acc , [0.5] , & mut out)"),
            "{body}"
        );
        // Bound to a `vec![..]` of a parameter: differentiated too.
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn f(s: f64) -> f64 {
                let mut out = vec![s; 3];
                g(1.0, (out[1], [0.5]), &mut out)
            }
        };
        pass_parts(&mut item);
        let body = item.block.to_token_stream().to_string();
        assert!(
            body.contains("__g_split (1.0 , out [1] , [0.5] , & mut out)"),
            "{body}"
        );
        // Without the writes, constants: left as written, for a plain function.
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn f(s: f64) -> f64 {
                let out = vec![0.0; 3];
                let acc = 0.0;
                s * g(1.0, (out[1], [0.5])) * g(1.0, (acc, [0.5]))
            }
        };
        pass_parts(&mut item);
        let body = item.block.to_token_stream().to_string();
        assert!(body.contains("g (1.0 , (out [1] , [0.5]))"), "{body}");
        assert!(body.contains("g (1.0 , (acc , [0.5]))"), "{body}");
    }

    #[test]
    fn a_reference_to_a_tuple_passes_its_parts() {
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn f(a: f64, p: (f64, f64)) -> f64 {
                let t = (a, a * a);
                g(&t) + g(&(a, 1.0)) + g(&p) + h(t)
            }
        };
        pass_parts(&mut item);
        let body = item.block.to_token_stream().to_string();
        assert!(body.contains("__g_split (t . 0 , t . 1)"), "{body}");
        assert!(body.contains("__g_split (a , 1.0)"), "{body}");
        assert!(body.contains("__g_split (p . 0 , p . 1)"), "{body}");
        assert!(body.contains("h (t)"), "{body}");
        // A tuple of constants may go to a plain function: left as written.
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn f(a: f64) -> f64 {
                let c = (1.0, 2.0);
                a * helper(&c) * helper(&(1.0, 3.0))
            }
        };
        pass_parts(&mut item);
        let body = item.block.to_token_stream().to_string();
        assert!(body.contains("helper (& c)"), "{body}");
        assert!(body.contains("helper (& (1.0 , 3.0))"), "{body}");
        // Computed from an integer parameter alone, the tuple is constant; beside a differentiated
        // argument the callee has a derivative, and is split.
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn f(a: f64, k: usize, idx: &[usize]) -> f64 {
                let w = ((0.5, -1.0), 2.0 * k as f64);
                a * weigh(&w, 3.0) + flat(&(k as f64, 1.0), a) + flat(&(idx[0] as f64, 1.0), 2.0)
            }
        };
        pass_parts(&mut item);
        let body = item.block.to_token_stream().to_string();
        assert!(body.contains("weigh (& w , 3.0)"), "{body}");
        assert!(body.contains("__flat_split (k as f64 , 1.0 , a)"), "{body}");
        assert!(
            body.contains("flat (& (idx [0] as f64 , 1.0) , 2.0)"),
            "{body}"
        );
        // Literals alone beside a differentiated argument: as before, left as written (a plain helper
        // taking `a` outside `wrt(..)` is a maybe call, `maybe.rs`).
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn f(a: f64) -> f64 {
                let c = (1.0, 2.0);
                helper(&c, a)
            }
        };
        pass_parts(&mut item);
        let body = item.block.to_token_stream().to_string();
        assert!(body.contains("helper (& c , a)"), "{body}");
    }

    #[test]
    fn tuples_of_float_parameters_are_split_unless_stopped() {
        // `xs` is differentiated by the hidden sweeps whatever `wrt(..)` says: the tuple computed from it
        // alone goes to the split copy; one of `stop_gradient(..)` is constant, left as written.
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn f(a: f64, xs: &[f64], t: f64) -> f64 {
                let m = xs[1] * 2.0;
                let s = stop_gradient(t);
                a * g(xs[0], (m, [xs[0]])) * plain((stop_gradient(t), [1.0])) * plain_ref(&(s, 2.0))
            }
        };
        pass_parts(&mut item);
        let body = item.block.to_token_stream().to_string();
        assert!(body.contains("__g_split (xs [0] , m , [xs [0]])"), "{body}");
        assert!(
            body.contains("plain ((stop_gradient (t) , [1.0]))"),
            "{body}"
        );
        assert!(body.contains("plain_ref (& (s , 2.0))"), "{body}");
    }

    #[test]
    fn names_of_tuple_patterns_and_destructuring_assignments_are_read() {
        let mut item: syn::ItemFn = syn::parse_quote! {
            fn f(a: f64) -> f64 {
                let (u, v) = (a * 2.0, 1.0);
                let (mut s, mut t) = (0.0, 0.0);
                (s, t) = (v, a);
                g(1.0, (u, [2.0])) + g(1.0, (t, [2.0]))
            }
        };
        pass_parts(&mut item);
        let body = item.block.to_token_stream().to_string();
        assert!(body.contains("__g_split (1.0 , u , [2.0])"), "{body}");
        assert!(body.contains("__g_split (1.0 , t , [2.0])"), "{body}");
    }
}
