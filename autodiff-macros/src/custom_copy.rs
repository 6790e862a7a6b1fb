//! The generic copy of a `#[custom_gradient]` function written for `f64` (or `f32`), for `order = K`
//! callers: the function with its float type made a type parameter (`shadow.rs`), a generic custom function
//! itself, whose closure then runs on dual numbers and so is differentiated through the values it captures,
//! as `jax.hessian` of a `jax.custom_vjp` function is.
//!
//! The body of a custom function is not differentiated at first order, so it may call anything: a
//! differentiable function, another custom one, or a plain helper without derivatives. The copy cannot see
//! which, so it calls each callee by a bare name according to what the call's arguments depend on:
//!
//! ```text
//! // Input:                                         // Output (the copy):
//! fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) { fn __log1pexp_generic<__S: Float>(x: __S) -> (..) {
//!     let v = softplus(x);                              copy_by_name!(softplus, __copy_of_softplus, ..);
//!     let c = helper(2.0);                              let v = <__copy_of_softplus as GenericCopy>::Copy::call(x);
//!     ..                                                let c = lift::<__S, _>(helper(2.0));
//! }                                                     ..
//! ```
//!
//! - with an argument that depends on the inputs (or on the closure's cotangent): the callee's generic copy,
//!   through `__private::copy_by_name!`, which names the callee's companion where it has one, and else a
//!   stand-in that is a compile error only once an `order = K` function instantiates it (the function's
//!   first order never does: a plain helper keeps compiling there);
//! - with scalar arguments that depend on nothing differentiated (`helper(2.0)`, `helper(n)` of an integer
//!   parameter): the callee itself, as written, its float arguments taken back to the written float type and
//!   its result lifted (`shadow::PlainCall`), which is exact: nothing there has a tangent.

use crate::companion::GenericCopy;
use crate::hash::FastSet;
use crate::shadow::{CopyCalls, PlainCall};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat};

/// For a `#[custom_gradient]` function written for `f64` or `f32`, its generic copy `__f_generic` (a custom
/// gradient function too), which the generic copies of `order = K` callers call. Emitted where the shadow
/// surely compiles (`shadow::why_no_copy`, its callees by bare names sorted as above); else the fallback
/// that says why (`companion::fallback_copy`).
pub(crate) fn generic_copy(item: &syn::ItemFn) -> (GenericCopy, TokenStream) {
    let Some(float) = crate::shadow::written_float(item) else {
        let why = "its signature uses both `f64` and `f32`".to_string();
        return (GenericCopy::Fallback { why }, TokenStream::new());
    };
    let (calls, names) = copy_calls(item, float);
    match crate::shadow::surely_compiling_copy_of_chains(item, float, &calls) {
        Ok(mut shadow) => {
            let markers = look_up_copies(
                &mut shadow,
                &calls.active,
                &item.sig.ident,
                &names,
                float,
                "the custom function",
            );
            (
                GenericCopy::Copy(crate::naming::generic_copy(&item.sig.ident)),
                quote! {
                    #[::autodiff::custom_gradient]
                    #[doc(hidden)]
                    #[allow(warnings, clippy::all, clippy::pedantic, clippy::nursery)]
                    #shadow
                    #markers
                },
            )
        }
        Err(why) => (GenericCopy::Fallback { why }, TokenStream::new()),
    }
}

/// The calls of `item`'s body by a bare name (not of a local, a constructor or the function itself): those
/// with an argument that depends on the inputs, which the copy makes to the callee's copy, and the rest,
/// which it makes as written (`PlainCall`). A callee called both ways is called through its copy.
pub(crate) fn copy_calls(item: &syn::ItemFn, float: &str) -> (CopyCalls, Names) {
    let params: Vec<Param> = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) => {
                    let mut of_float = false;
                    scan(t.ty.to_token_stream(), &mut |t| {
                        of_float |= matches!(t, proc_macro2::TokenTree::Ident(i) if i == float);
                    });
                    Some(Param {
                        name: p.ident.to_string(),
                        of_float,
                        ty: (*t.ty).clone(),
                    })
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let names = Names::of(item, float, &params);
    let mut found = Calls {
        names: &names,
        float,
        own: item.sig.ident.to_string(),
        dependent: Vec::new(),
        plain: Vec::new(),
    };
    found.visit_block(&item.block);
    let Calls {
        dependent, plain, ..
    } = found;
    let mut calls = CopyCalls {
        by_path: true,
        ..CopyCalls::default()
    };
    for name in dependent {
        if !calls.active.contains(&name) {
            calls.active.push(name);
        }
    }
    for call in plain {
        if calls.active.contains(&call.callee) {
            continue;
        }
        match calls.plain.iter().position(|p| p.callee == call.callee) {
            Some(i) if calls.plain[i].floats != call.floats => {
                // Called with floats in different places: through its copy.
                let callee = calls.plain.remove(i).callee;
                calls.active.push(callee);
            }
            Some(_) => {}
            None => calls.plain.push(call),
        }
    }
    (calls, names)
}

/// A parameter of a custom function: whether its type names the float type.
struct Param {
    name: String,
    of_float: bool,
    ty: syn::Type,
}

/// What the names of a custom function's body hold, by a syntactic reading: `locals`, every name bound in
/// the body (which a `use` cannot import); `dependent`, those whose value may depend on the inputs (the
/// float parameters, the closures' parameters, loop variables, and every local assigned from one of
/// those); `floats`, those that may hold floats.
pub(crate) struct Names {
    locals: FastSet<String>,
    dependent: FastSet<String>,
    floats: FastSet<String>,
    /// The integer (non-float) parameters, which depend on nothing differentiated.
    constant_params: FastSet<String>,
    /// The names that hold arrays (slice parameters, `vec![..]`, `[a, b]`, `.to_vec()`, `.collect()`),
    /// which are no scalars to pass as written.
    arrays: FastSet<String>,
    /// The parameters' types, and the closures' (written on the closure, else those of the returned
    /// `impl Fn(..)`).
    types: crate::hash::FastMap<String, syn::Type>,
    /// The argument types of the `impl Fn(..)` the function returns beside its value.
    closure_inputs: Vec<syn::Type>,
}

impl Names {
    fn of(item: &syn::ItemFn, float: &str, params: &[Param]) -> Names {
        let named = |keep: &dyn Fn(&Param) -> bool| -> FastSet<String> {
            params
                .iter()
                .filter(|p| keep(p))
                .map(|p| p.name.clone())
                .collect()
        };
        let scalar = |p: &Param| matches!(&p.ty, syn::Type::Path(t) if t.path.is_ident(float));
        let mut names = Names {
            locals: FastSet::default(),
            dependent: named(&|p| p.of_float),
            floats: named(&|p| p.of_float),
            constant_params: named(&|p| !p.of_float),
            arrays: named(&|p| p.of_float && !scalar(p)),
            types: params
                .iter()
                .map(|p| (p.name.clone(), p.ty.clone()))
                .collect(),
            closure_inputs: returned_closure_inputs(&item.sig.output),
        };
        // Until nothing changes: a local assigned from a dependent value after its first use.
        loop {
            let before = (names.dependent.len(), names.floats.len());
            let mut bind = Bind {
                names: &mut names,
                float,
            };
            bind.visit_block(&item.block);
            if (names.dependent.len(), names.floats.len()) == before {
                return names;
            }
        }
    }

    /// Does `expr` depend on the inputs: does it name a dependent value? (A name from outside the body is a
    /// constant or a function: `PI`, `helper`.)
    fn depends(&self, expr: &Expr) -> bool {
        mentioned(expr).iter().any(|n| self.dependent.contains(n))
    }

    /// May `expr` hold an array (or a tuple, no scalar either): a literal, `vec![..]`, a copy of one, or a
    /// name of one?
    fn array(&self, expr: &Expr) -> bool {
        let tokens = expr.to_token_stream().to_string();
        matches!(
            expr,
            Expr::Array(_) | Expr::Repeat(_) | Expr::Macro(_) | Expr::Tuple(_)
        ) || ["to_vec", "collect", "Vec"].iter().any(|m| {
            tokens
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == *m)
        }) || matches!(expr, Expr::Path(p) if p.path.get_ident()
                .is_some_and(|i| self.arrays.contains(&i.to_string())))
    }

    /// A value standing for the argument `arg` of a call that is never made, typed as the callee's
    /// parameter (a float of the written type, a parameter's declared type, else inferred).
    fn stand_in(&self, arg: &Expr, float: &str) -> TokenStream {
        if let Expr::Path(p) = arg {
            if let Some(ty) = p
                .path
                .get_ident()
                .and_then(|i| self.types.get(&i.to_string()))
            {
                return quote!(::autodiff::__private::any::<#ty>());
            }
        }
        let scalar = !matches!(arg, Expr::Reference(_))
            && !mentioned(arg).iter().any(|n| self.arrays.contains(n))
            && !self.array(arg);
        if scalar && !integer_cast(arg) && self.float(arg, float) {
            let float = proc_macro2::Ident::new(float, proc_macro2::Span::call_site());
            quote!(::autodiff::__private::any::<#float>())
        } else {
            quote!(::autodiff::__private::any())
        }
    }

    /// The argument `arg` of a call of a helper without derivatives made as written, held in `param`: its
    /// value in the written float type where it is a float (`__private::value`, which drops a tangent: the
    /// helper's result holds no float), else as it is (an integer).
    fn written(&self, arg: &Expr, param: &Ident, float: &str) -> TokenStream {
        let float = Ident::new(float, proc_macro2::Span::call_site());
        let declared = match arg {
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.types.get(&i.to_string())),
            _ => None,
        };
        let of_float = match declared {
            Some(ty) => matches!(ty, syn::Type::Path(t) if t.path.is_ident(&float)),
            None => !integer_cast(arg) && self.float(arg, &float.to_string()),
        };
        if of_float {
            quote!(::autodiff::__private::value::<#float, _>(#param))
        } else {
            quote!(#param)
        }
    }

    /// May `expr` be a float? A float literal, a cast to the float type, a path through it
    /// (`f64::consts::PI`), a `SCREAMING_CASE` constant, a call, or a name that may hold a float.
    fn float(&self, expr: &Expr, float: &str) -> bool {
        let tokens = expr.to_token_stream();
        let mut float_token = false;
        scan(tokens, &mut |t| {
            if let proc_macro2::TokenTree::Literal(l) = t {
                let text = l.to_string();
                let int_suffix = [
                    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "usize",
                ]
                .iter()
                .any(|s| text.ends_with(s));
                if (text.contains('.') || text.ends_with(float))
                    && !text.starts_with('"')
                    && !int_suffix
                {
                    float_token = true;
                }
            }
            // (`__S`: the copy's own float type, in an argument already rewritten.)
            if let proc_macro2::TokenTree::Ident(i) = t {
                if i == float || i == "__S" {
                    float_token = true;
                }
            }
        });
        float_token
            || mentioned(expr).iter().any(|n| {
                self.floats.contains(n)
                    || (n.len() > 1
                        && n.chars()
                            .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()))
            })
            || contains_call(expr)
    }
}

/// Every token of `tokens`, groups' contents included.
fn scan(tokens: TokenStream, f: &mut impl FnMut(&proc_macro2::TokenTree)) {
    for t in tokens {
        if let proc_macro2::TokenTree::Group(g) = &t {
            scan(g.stream(), f);
        }
        f(&t);
    }
}

/// The single-segment names an expression mentions (variables, and functions called by a bare name).
fn mentioned(expr: &Expr) -> Vec<String> {
    struct Mentioned(Vec<String>);
    impl<'a> Visit<'a> for Mentioned {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                self.0.push(i.to_string());
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // `vec![x; n]`: its tokens' names.
            scan(m.tokens.clone(), &mut |t| {
                if let proc_macro2::TokenTree::Ident(i) = t {
                    self.0.push(i.to_string());
                }
            });
        }
    }
    let mut m = Mentioned(Vec::new());
    m.visit_expr(expr);
    m.0
}

/// Are the arguments of a call scalars (no reference, no array)?
fn scalar_arguments(
    args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    names: &Names,
) -> bool {
    args.iter()
        .all(|a| !matches!(a, Expr::Reference(_)) && !names.array(a))
}

/// Is `expr` a cast to an integer, as written (`x as usize`) or in the copy (`__private::to_int::<usize,
/// _>(x)`)?
fn integer_cast(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(p) => integer_cast(&p.expr),
        Expr::Cast(c) => {
            matches!(&*c.ty, syn::Type::Path(t) if t.path.get_ident().is_some_and(|i| {
                ["i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize"]
                    .iter()
                    .any(|n| i == n)
            }))
        }
        Expr::Call(c) => matches!(&*c.func, Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| s.ident == "to_int")),
        _ => false,
    }
}

/// Does `expr` call a function (whose result the copy takes for a float)? A method call is what its
/// receiver is (`x.exp()`, `v.len()`).
fn contains_call(expr: &Expr) -> bool {
    struct Call(bool);
    impl<'a> Visit<'a> for Call {
        fn visit_expr_call(&mut self, _: &'a syn::ExprCall) {
            self.0 = true;
        }
    }
    let mut c = Call(false);
    c.visit_expr(expr);
    c.0
}

/// Every pattern's names, into `locals`; with what the bound value depends on.
struct Bind<'n> {
    names: &'n mut Names,
    float: &'n str,
}

impl Bind<'_> {
    /// The names of `pat`, bound to (parts of) `value`: dependent and floats as `value` may be.
    fn bind_to(&mut self, pat: &Pat, value: &Expr) {
        let (dependent, float) = (
            self.names.depends(value),
            self.names.float(value, self.float),
        );
        self.bind(pat, dependent, float);
    }

    /// A write of `value` into the place `place` (`a`, `s[i]`, `p.f`, `*r`): the place's variable takes
    /// what `value` depends on. Conservative: the whole variable, whatever part is written.
    fn written(&mut self, place: &Expr, value: &Expr) {
        if self.names.depends(value) {
            self.destructured(place);
        }
    }

    /// Every place of the left side of a destructuring assignment (`(a, b) = (x, 1.0)`, `[s[0], _] = ..`,
    /// `P { f: a } = ..`) depends on the inputs: conservatively, each takes the whole value's dependence.
    fn destructured(&mut self, place: &Expr) {
        match place {
            Expr::Tuple(t) => t.elems.iter().for_each(|e| self.destructured(e)),
            Expr::Array(a) => a.elems.iter().for_each(|e| self.destructured(e)),
            Expr::Struct(s) => s.fields.iter().for_each(|f| self.destructured(&f.expr)),
            Expr::Paren(p) => self.destructured(&p.expr),
            place => self.depends_now(place),
        }
    }

    /// The variable under the place `place` depends on the inputs from here on.
    fn depends_now(&mut self, place: &Expr) {
        let mut place = place;
        loop {
            place = match place {
                Expr::Index(i) => &i.expr,
                Expr::Field(f) => &f.base,
                Expr::Paren(p) => &p.expr,
                Expr::Unary(u) => &u.expr,
                Expr::Reference(r) => &r.expr,
                Expr::MethodCall(m) => &m.receiver,
                _ => break,
            };
        }
        if let Expr::Path(p) = place {
            if let Some(i) = p.path.get_ident() {
                self.names.dependent.insert(i.to_string());
            }
        }
    }

    fn bind(&mut self, pat: &Pat, dependent: bool, float: bool) {
        for name in crate::bindings::bound_names(pat) {
            if dependent {
                self.names.dependent.insert(name.clone());
            }
            if float {
                self.names.floats.insert(name.clone());
            }
            self.names.locals.insert(name);
        }
    }
}

impl<'a> Visit<'a> for Bind<'_> {
    fn visit_local(&mut self, local: &'a syn::Local) {
        match &local.init {
            Some(init) => {
                let (dependent, float) = (
                    self.names.depends(&init.expr),
                    self.names.float(&init.expr, self.float),
                );
                if self.names.array(&init.expr) {
                    self.names
                        .arrays
                        .extend(crate::bindings::bound_names(&local.pat));
                }
                self.bind(&local.pat, dependent, float);
            }
            None => self.bind(&local.pat, true, true),
        }
        syn::visit::visit_local(self, local);
    }
    // `a = e`, `a += e`, `s[i] = e`, `p.f = e`: `a`, `s`, `p` take what `e` depends on.
    fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
        self.written(&a.left, &a.right);
        if let Expr::Path(p) = &*a.left {
            if let Some(i) = p.path.get_ident() {
                if self.names.float(&a.right, self.float) {
                    self.names.floats.insert(i.to_string());
                }
            }
        }
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
        use syn::BinOp::{AddAssign, DivAssign, MulAssign, RemAssign, SubAssign};
        if matches!(
            b.op,
            AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_)
        ) {
            self.written(&b.left, &b.right);
        }
        syn::visit::visit_expr_binary(self, b);
    }
    // `v.push(x)`, `v.copy_from_slice(&w)`: the receiver may take what the arguments depend on.
    fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
        if m.args.iter().any(|a| self.names.depends(a)) {
            self.depends_now(&m.receiver);
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    // `fill(&mut buf, x)`: what a call may write through `&mut` takes what its arguments depend on.
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        if c.args.iter().any(|a| self.names.depends(a)) {
            for arg in &c.args {
                if let Expr::Reference(r) = arg {
                    if r.mutability.is_some() {
                        self.depends_now(&r.expr);
                    }
                }
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
    // `match e { v => .. }`: the arms' names take what `e` depends on.
    fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
        for arm in &m.arms {
            self.bind_to(&arm.pat, &m.expr);
        }
        syn::visit::visit_expr_match(self, m);
    }
    // `if let Some(v) = e`, `while let ..`: as a `match`.
    fn visit_expr_let(&mut self, l: &'a syn::ExprLet) {
        self.bind_to(&l.pat, &l.expr);
        syn::visit::visit_expr_let(self, l);
    }
    // A closure's parameters: the cotangent, which carries tangents in an `order = K` caller's sweep.
    // Typed as written on the closure or in the returned `impl Fn(..)`: a cotangent of an array
    // (`impl Fn([f64; 2]) -> ..`) is an array, which a call in the closure passes on as one.
    fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
        for (i, input) in c.inputs.iter().enumerate() {
            self.bind(input, true, true);
            let (pat, ty) = match input {
                Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
                other => (other, None),
            };
            let ty = ty.or_else(|| {
                (c.inputs.len() == self.names.closure_inputs.len())
                    .then(|| &self.names.closure_inputs[i])
            });
            if let (Pat::Ident(p), Some(ty)) = (pat, ty) {
                let name = p.ident.to_string();
                let scalar = matches!(ty, syn::Type::Path(t) if t.path.is_ident(self.float));
                if !scalar {
                    self.names.arrays.insert(name.clone());
                }
                self.names.types.insert(name, ty.clone());
            }
        }
        syn::visit::visit_expr_closure(self, c);
    }
    fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
        self.bind_to(&f.pat, &f.expr);
        syn::visit::visit_expr_for_loop(self, f);
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.names.locals.insert(f.sig.ident.to_string());
    }
    fn visit_use_rename(&mut self, r: &'a syn::UseRename) {
        self.names.locals.insert(r.rename.to_string());
    }
    fn visit_use_name(&mut self, n: &'a syn::UseName) {
        self.names.locals.insert(n.ident.to_string());
    }
}

/// The argument types of the `impl Fn(..)` in a custom function's return type `(R, impl Fn(..) -> ..)`.
fn returned_closure_inputs(output: &syn::ReturnType) -> Vec<syn::Type> {
    let syn::ReturnType::Type(_, ty) = output else {
        return Vec::new();
    };
    let syn::Type::Tuple(t) = &**ty else {
        return Vec::new();
    };
    let Some(syn::Type::ImplTrait(i)) = t.elems.iter().nth(1) else {
        return Vec::new();
    };
    i.bounds
        .iter()
        .find_map(|b| match b {
            syn::TypeParamBound::Trait(t) => match &t.path.segments.last()?.arguments {
                syn::PathArguments::Parenthesized(args) => {
                    Some(args.inputs.iter().cloned().collect())
                }
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_default()
}

/// The calls by a bare name, sorted.
struct Calls<'n> {
    names: &'n Names,
    float: &'n str,
    own: String,
    dependent: Vec<String>,
    plain: Vec<PlainCall>,
}

impl<'a> Visit<'a> for Calls<'_> {
    fn visit_expr_call(&mut self, call: &'a syn::ExprCall) {
        syn::visit::visit_expr_call(self, call);
        let Expr::Path(p) = &*call.func else {
            return;
        };
        let name = match p.path.get_ident().filter(|_| p.qself.is_none()) {
            Some(name) => {
                let name = name.to_string();
                let lowercase = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
                if !lowercase
                    || name == self.own
                    || self.names.locals.contains(&name)
                    || self.names.constant_params.contains(&name)
                {
                    return;
                }
                name
            }
            None => match function_path(p) {
                Some(path) => path.to_token_stream().to_string(),
                None => return,
            },
        };
        // A reference or an array passed on goes to the copy: the copy holds it in its own float type.
        let scalars = scalar_arguments(&call.args, self.names);
        let dependent = call.args.iter().any(|a| self.names.depends(a));
        if dependent || !scalars {
            self.dependent.push(name);
            return;
        }
        let floats = call
            .args
            .iter()
            .map(|a| self.names.float(a, self.float))
            .collect();
        self.plain.push(PlainCall {
            callee: name,
            types: vec![None; call.args.len()],
            floats,
            constant_result: false,
            arrays: vec![None; call.args.len()],
            maybe: false,
        });
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// The path of a call of a function through modules (`shapes::square`, `super::g`, `crate::m::g`,
/// `libm::erf`), which the copy finds as it finds a callee by a bare name: two or more segments, each a
/// module's or a function's name (lowercase, no generic arguments), the first no primitive type's
/// (`f64::max`, `usize::min`, which `shadow::why_no_copy` knows), and none `Self` or a type's
/// (`Vec::new`, `S::new`: an associated function, which `use` cannot import).
fn function_path(callee: &syn::ExprPath) -> Option<&syn::Path> {
    use crate::in_closure::PRIMITIVES;
    let path = &callee.path;
    let modules = path.segments.iter().all(|s| {
        s.arguments.is_none()
            && crate::naming::unraw(&s.ident)
                .starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
    });
    let first = path.segments.first()?.ident.to_string();
    (callee.qself.is_none()
        && path.segments.len() > 1
        && modules
        && !PRIMITIVES.contains(&first.as_str()))
    .then_some(path)
}

/// In the copy `shadow`, each call of a callee's copy (`<g as GenericCopy>::Copy::call`, or by a path,
/// `copy_by_path!(shapes::square, ..).call_on`) made through `copy_by_name!`:
/// `<__copy_of_g as GenericCopy>::Copy::call`, with the lookup declared at the top of the body, and its
/// result typed as `g`'s would be (which a stand-in's is not otherwise). A callee written with a path is
/// found by that path, a `#[gradient_of(path)]` registration in scope first, as a call by the path finds it
/// at first order: the copy of what `(&Site).KEY()` gives.
// Input:  <g as ::autodiff::__private::GenericCopy>::Copy::call(x, n)
// Output: ::autodiff::__private::copy_by_name!(g, __copy_of_g, __no_copy_of_g, (_, _), "..");   (at the top)
//         {
//             let __r = <__copy_of_g as ::autodiff::__private::GenericCopy>::Copy::call(x, n);
//             (__copy_of_g {}).__autodiff_type_stand_in_result_as_named_function::<__S, _, _>(&__r, || g(any::<f64>(), any()));
//             __r
//         }
// Input:  <shapes::square as ::autodiff::__private::GenericCopy>::Copy::call(v)       (v an array)
// Output: ::autodiff::__private::copy_by_name!(shapes::square, __copy_of_shapes__square, .., (_),
//             __autodiff_gradient_of__shapes__square, __registered_copy_of_shapes__square);   (at the top)
//         {
//             let __r = ::autodiff::__private::copy_of((&Site).__autodiff_gradient_of__shapes__square()).call_on(v);
//             ((&Site).__autodiff_gradient_of__shapes__square()).__autodiff_type_stand_in_result_as_named_function::<..>(..);
//             __r
//         }
///
/// `what` names `function` in the error of a callee without derivatives: `"the custom function"`, or
/// `"the registered gradient"` (`custom.rs`, `registered_copy`).
pub(crate) fn look_up_copies(
    shadow: &mut syn::ItemFn,
    active: &[String],
    function: &Ident,
    names: &Names,
    float: &str,
    what: &str,
) -> TokenStream {
    /// A callee found: its path as written, the label its generated names take, its number of
    /// arguments, and for a path of two or more segments the method of `Site` finding a registration.
    struct Found {
        path: syn::Path,
        label: Ident,
        arguments: usize,
        registered: Option<Ident>,
    }
    struct Rename<'a> {
        active: &'a [String],
        function: &'a Ident,
        names: &'a Names,
        float: &'a str,
        found: Vec<Found>,
    }
    impl VisitMut for Rename<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            syn::visit_mut::visit_expr_mut(self, expr);
            let Expr::Call(call) = expr else {
                return;
            };
            let Expr::Path(p) = &mut *call.func else {
                return;
            };
            if !crate::shadow::is_generic_copy_call(p) {
                return;
            }
            let Some(qself) = &mut p.qself else {
                return;
            };
            let syn::Type::Path(ty) = &mut *qself.ty else {
                return;
            };
            if ty.qself.is_some() || !self.active.contains(&ty.path.to_token_stream().to_string()) {
                return;
            }
            let path = ty.path.clone();
            let label = crate::naming::callee_label(&path);
            let registered = crate::naming::registered_path(&path);
            let copy = crate::naming::copy_lookup(&label, self.function).0;
            if !self.found.iter().any(|f| f.label == label) {
                self.found.push(Found {
                    path: path.clone(),
                    label: label.clone(),
                    arguments: call.args.len(),
                    registered: registered.clone(),
                });
            }
            // The companion found (a value), and the call of its copy.
            let (receiver, func): (Expr, Expr) = match &registered {
                Some(key) => (
                    syn::parse_quote!((&::autodiff::__private::Site).#key()),
                    syn::parse_quote!(::autodiff::__private::copy_of((&::autodiff::__private::Site).#key()).call_on),
                ),
                None => {
                    ty.path = copy.clone().into();
                    (syn::parse_quote!((#copy {})), (*call.func).clone())
                }
            };
            // Scalar arguments: the copy's call, or for a helper without derivatives whose result holds no
            // float (an index), the helper as written (`__autodiff_call_generic_copy_or_helper_as_written`).
            let args = &call.args;
            if scalar_arguments(args, self.names) {
                // Each argument followed by a comma: `(#args,)` of a call written with a trailing comma
                // (`f(a, b,)`, as rustfmt leaves a call over several lines) was `(a, b,,)`, a panic.
                let each = args.iter();
                let params: Vec<Ident> = (0..args.len())
                    .map(|i| Ident::new(&format!("__a{i}"), proc_macro2::Span::mixed_site()))
                    .collect();
                let written = args
                    .iter()
                    .zip(&params)
                    .map(|(a, p)| self.names.written(a, p, self.float));
                *expr = syn::parse_quote! {
                    #receiver.__autodiff_call_generic_copy_or_helper_as_written(
                        ::core::marker::PhantomData::<__S>,
                        (#(#each,)*),
                        |(#(#params,)*)| #func(#(#params),*),
                        |(#(#params,)*)| #path(#(#written),*),
                    )
                };
                return;
            }
            let typing = args.iter().map(|a| self.names.stand_in(a, self.float));
            let result = Ident::new("__result", proc_macro2::Span::mixed_site());
            *expr = syn::parse_quote! {{
                let #result = #func(#args);
                #receiver.__autodiff_type_stand_in_result_as_named_function::<__S, _, _>(&#result, || #path(#(#typing),*));
                #result
            }};
        }
    }
    // Calls by a path are `copy_by_path!(..).call_on(..)` in the shadow: read back as calls of the copy.
    crate::shadow::read_copy_calls(&mut shadow.block);
    let mut rename = Rename {
        active,
        function,
        names,
        float,
        found: Vec::new(),
    };
    rename.visit_block_mut(&mut shadow.block);
    let mut markers = TokenStream::new();
    let mut lookups: Vec<syn::Stmt> = Vec::new();
    for found in &rename.found {
        let (copy, module, marker) = crate::naming::copy_lookup(&found.label, function);
        let placeholders = (0..found.arguments).map(|_| quote!(_));
        let registered = found.registered.as_ref().map(|key| {
            let fallback = crate::naming::copy_lookup_registered(&found.label);
            quote!(, #key, #fallback)
        });
        let path = crate::companion::imported(&found.path);
        lookups.push(syn::parse_quote! {
            ::autodiff::__private::copy_by_name!(#path, #copy, #module, #marker, (#(#placeholders),*) #registered);
        });
        let name = path.to_token_stream().to_string().replace(' ', "");
        // A function of another crate (`libm::erf`) is registered, not annotated.
        let register = match found.registered {
            Some(_) => {
                format!(", register its gradient beside `{function}` with `#[gradient_of({name})]`")
            }
            None => String::new(),
        };
        let message = no_copy_message(&name, what, &function.to_string(), &register);
        let panic = quote_spanned!(found.label.span()=> ::core::panic!(#message));
        markers.extend(quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            struct #marker;
            impl<__S> ::autodiff::__private::NoGenericCopy<__S> for #marker {
                const FAIL: () = #panic;
            }
        });
    }
    shadow.block.stmts.splice(0..0, lookups);
    markers
}

/// The error of a callee without a generic copy that the generic copy of `function` (a custom function,
/// `what` says) calls on its inputs: a derivative `#[differentiable]` generated without one (`f_grad_into`,
/// `f_hessian`, a method's `_grad`: `derivative_copies.rs` gives `f_grad`, `f_vjp`, `f_jvp` and `f_hvp` of
/// a free function theirs) cannot be given one by an attribute, so its message says what can be done
/// instead.
fn no_copy_message(name: &str, what: &str, function: &str, register: &str) -> String {
    const GENERATED: [&str; 8] = [
        "_grad",
        "_grad_into",
        "_vjp",
        "_jvp",
        "_hvp",
        "_hessian",
        "_derivatives",
        "_jacobian",
    ];
    let last = name.rsplit("::").next().unwrap_or(name);
    if register.is_empty()
        && GENERATED
            .iter()
            .any(|s| last.ends_with(s) && last.len() > s.len())
    {
        return format!(
            "`{name}` is a derivative that `#[differentiable]` generates, which has no generic copy: the \
             generic copy of {what} `{function}`, which an `order = K` function differentiates, calls it with \
             a value that depends on `{function}`'s inputs, so its derivative cannot be taken once more. Only \
             `_grad`, `_vjp`, `_jvp` and (with `order = K`) `_hvp` of a free function without output \
             parameters have one: call one of those instead (`f_grad` for `f_grad_into`, `f_hvp` for a \
             column of `f_hessian`), or compute that derivative in `{function}` by hand, or call `{function}` \
             only from first-order code (if `{name}` is a function of your own, rename it: its suffix is that \
             of a generated derivative)"
        );
    }
    format!(
        "`{name}` has no derivatives, and the generic copy of {what} `{function}`, which an \
         `order = K` function differentiates, calls it with a value that depends on `{function}`'s inputs, \
         where its result holds a float (or its arguments a reference or an array): put \
         `#[differentiable]` (or `#[custom_gradient]`) on `{name}`{register}, or make it generic over `T: \
         Float` (a helper of scalars whose result holds no float, an index or a count, is called as written)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_derivative_without_a_copy_is_named_as_one() {
        let generated =
            no_copy_message("call_price_grad", "the custom function", "implied_vol", "");
        assert!(
            generated.contains("is a derivative that `#[differentiable]` generates"),
            "{generated}"
        );
        assert!(
            !generated.contains("put `#[differentiable]`"),
            "{generated}"
        );
        let hvp = no_copy_message("m::logp_hessian", "the custom function", "grad_logp", "");
        assert!(hvp.contains("is a derivative"), "{hvp}");
        // A helper of the user's keeps the advice to give it derivatives.
        let helper = no_copy_message("logistic", "the custom function", "log1pexp", "");
        assert!(helper.contains("put `#[differentiable]`"), "{helper}");
        let gradient = no_copy_message("_grad", "the custom function", "f", "");
        assert!(gradient.contains("put `#[differentiable]`"), "{gradient}");
    }

    /// The names of `item`'s body that depend on its inputs.
    fn dependent(item: syn::ItemFn) -> Vec<String> {
        let (_, names) = copy_calls(&item, "f64");
        let mut found: Vec<String> = names.dependent.into_iter().collect();
        found.sort();
        found
    }

    #[test]
    fn writes_into_places_make_their_variables_dependent() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn f(x: f64, n: usize) -> (f64, impl Fn(f64) -> f64) {
                let mut s = [0.0; 2];
                s[0] = x;
                let mut v = Vec::new();
                v.push(2.0 * x);
                let mut b = [0.0; 1];
                fill(&mut b, x);
                let m = match x { w => w };
                let k = if let Some(u) = Some(x) { u } else { 0.0 };
                let mut c = [0.0; 1];
                c[0] = 3.0;
                let q = n + 1;
                let (mut t, mut r, mut a) = (0.0, 0.0, [0.0; 2]);
                (t, (r, _)) = (1.0, (x, 2.0));
                [a[0], _] = [x, 0.0];
                (s[0], move |dy| dy)
            }
        };
        assert_eq!(
            dependent(item),
            ["a", "b", "dy", "k", "m", "r", "s", "t", "u", "v", "w", "x"]
        );
    }
}
