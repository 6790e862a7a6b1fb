//! Parameter structs: each field a body reads becomes an input of its own, so the passes after this one
//! see only floats, arrays and (for a struct passed on whole) opaque values.
//!
//! The macro cannot see the struct's definition, so the syntax decides what a field is: one that is
//! indexed, iterated or asked its `.len()` is an array, one only passed on by reference (`g(&p.inner)`)
//! is a whole value (a nested struct or a `Vec` handed to a callee), any other is a scalar. Which fields
//! are `#[no_grad]` only the struct's `#[derive(Differentiable)]` knows: it gives each field two hidden
//! associated functions, which the generated code calls to add a field's adjoint into the gradient struct
//! (nothing for a `#[no_grad]` field) and to take a field's tangent (zero for a `#[no_grad]` field).
//! A nested struct's field (`p.inner.a`) is an input of its own too, reached through each struct on the
//! path: its type by the derive's `FieldType` (`field_type`), its adjoint added by a closure that the
//! outer struct's `__autodiff_add_to_inner` runs (`add_field_adjoint`), so a `#[no_grad]` anywhere on the
//! path leaves it out.
//!
//! ```text
//! // Input:                               // Output (the body the passes see, and the wrappers):
//! fn mse(p: &Mlp, x: f64) -> f64 {        fn mse(p: &Mlp, __p_w: <array>, __p_b: <scalar>, x: f64) -> f64 {
//!     p.w[0] * x + p.b                        __p_w[0] * x + __p_b
//! }                                       }
//!                                         mse_vjp: let __p_w = &p.w; let __p_b = p.b;
//!                                                  let (value, (g_w, g_b, g_x)) = { <reverse sweep> };
//!                                                  let mut g = Differentiable::zero_like(p);
//!                                                  Mlp::__autodiff_add_to_w(&mut g, g_w); ..; (value, (g, g_x))
//! ```

use crate::context::NoFloat;
use crate::hash::FastSet;
pub(crate) use crate::integer_fields::Constant;
use crate::ir::Kind;
use crate::signature::{ArrayShape, Param, Signature};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident};

/// What the body does with a field.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Indexed, iterated, or its `.len()`: an array input.
    Array,
    /// Only passed by reference to calls: a whole value, of the field's own gradient type.
    Whole,
    /// Anything else: a scalar input.
    Scalar,
}

/// A field of a parameter struct that the body reads.
struct FieldInput {
    /// The index of the struct among the declared parameters.
    parent: usize,
    /// The field (`w` of `p.w`), or the path to a nested struct's field (`inner`, `a` of `p.inner.a`).
    path: Vec<Ident>,
    /// The input's name in the generated code (`__p_w`).
    ident: Ident,
    shape: Shape,
    /// Indexed twice (`p.w[i][j]`): a matrix, read flattened as a matrix parameter is.
    matrix: bool,
    /// An array of integers or flags, or one only measured: a constant input (`integer_fields.rs`).
    constant: Option<Constant>,
    /// The declared type of a field holding a matrix of integers or flags (`#[no_grad] tris: Vec<[usize;
    /// 3]>`, `declared_integer_matrix`): the input's type, which the body reads by index as it reads such
    /// a parameter.
    integer_matrix: Option<syn::Type>,
}

/// Rewrites each read of a field input bound as a reference (`__self_w`) to `(*__self_w)`.
struct DerefBorrowed<'a>(&'a [String]);

impl VisitMut for DerefBorrowed<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = e {
            let borrowed = p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| self.0.iter().any(|b| i == b));
            if borrowed {
                *e = syn::parse_quote!((*#p));
            }
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// `f_grad_into`'s reverse sweep over the inputs into the caller's buffers
/// (`Flattened::sweep_into_fields`).
pub(crate) struct IntoFields {
    /// The sweep's buffers, one per active input.
    pub(crate) buffers: Vec<Ident>,
    /// Clears each struct's buffer in place (after `prologue`, which borrows a struct taken by value).
    pub(crate) zero: TokenStream,
    /// Binds the fields' buffers (after `zero`).
    pub(crate) bind: TokenStream,
    /// Adds the float fields' adjoints into the structs' buffers (after the sweep's stores).
    pub(crate) store: TokenStream,
}

/// A function with parameter structs, flattened.
pub(crate) struct Flattened {
    /// The body with each field read replaced by the field's input.
    pub(crate) block: syn::Block,
    /// The inputs the passes see: the declared parameters, each struct followed by its fields' inputs.
    pub(crate) inner: Signature,
    fields: Vec<FieldInput>,
    /// Which structs the body uses as a whole (passes to calls), by declared index.
    whole: Vec<bool>,
    /// In the generic copy of a method with a constant `self` (`Args::lift_fields`), its float type: the
    /// fields are read in it (`__private::lift`).
    pub(crate) lift: Option<Ident>,
}

/// The flattened form of a function whose declared signature is `sig`, or `None` if it has no
/// parameter struct.
pub(crate) fn flatten(block: &syn::Block, sig: &Signature) -> Option<Flattened> {
    let structs: Vec<(usize, String)> = sig
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p.kind, Kind::Struct(_)))
        .map(|(i, p)| (i, p.ident.to_string()))
        .collect();
    if structs.is_empty() {
        return None;
    }
    let self_by_value = sig
        .params
        .iter()
        .any(|p| p.ident == "self" && !matches!(p.ty, syn::Type::Reference(_)));
    let mut rewrite = Rewrite {
        structs: &structs,
        self_by_value,
        found: Vec::new(),
    };
    let mut block = block.clone();
    ZippedFields(&structs).visit_block_mut(&mut block);
    ArrayFieldsByValue {
        structs: &structs,
        sig,
    }
    .visit_block_mut(&mut block);
    rewrite.visit_block_mut(&mut block);
    let found = rewrite.found;
    let mut uses = Uses::default();
    uses.visit_block(&block);
    uses.array = uses.arrays();
    uses.reference = uses.references();
    let fields: Vec<FieldInput> = found
        .into_iter()
        .map(|(parent, path, ident)| {
            let name = ident.to_string();
            let shape = if uses.array.contains(&name) {
                Shape::Array
            } else if uses.reference.contains(&name) {
                Shape::Whole
            } else {
                Shape::Scalar
            };
            FieldInput {
                parent,
                path,
                ident,
                shape,
                matrix: false,
                constant: None,
                integer_matrix: None,
            }
        })
        .collect();
    let whole: Vec<bool> = sig
        .params
        .iter()
        .map(|p| uses.paths.contains(&p.ident.to_string()))
        .collect();
    // The fields indexed twice (`p.w[i][j]`): matrices, read flattened as a matrix parameter is.
    let matrices: FastSet<String> = matrix_reads(&block, &fields)
        .into_iter()
        .filter(|read| !read.copied)
        .map(|read| read.input)
        .collect();
    let mut fields = fields;
    for field in &mut fields {
        field.matrix = field.shape == Shape::Array && matrices.contains(&field.ident.to_string());
        // A matrix of integers or flags the declaration shows (`#[no_grad] tris: Vec<[usize; 3]>`): data,
        // bound whole (cloned, as a declared constant is) and read by index as such a parameter is.
        if let Some(ty) = declared_integer_matrix(sig, field) {
            field.integer_matrix = Some(ty);
            field.matrix = false;
            field.shape = Shape::Scalar;
            field.constant = Some(Constant::Declared(NoFloat::Data));
        }
    }
    let arrays: FastSet<String> = (fields.iter())
        .filter(|f| f.shape == Shape::Array && !f.matrix)
        .map(|f| f.ident.to_string())
        .collect();
    for (name, constant) in crate::integer_fields::constant_arrays(&block, &arrays) {
        if let Some(field) = fields.iter_mut().find(|f| f.ident == name) {
            field.constant = Some(constant);
        }
    }
    for field in &mut fields {
        if field.integer_matrix.is_some() {
            continue;
        }
        if let Some(constant) = declared_constant(sig, field) {
            field.constant = Some(constant);
            // Passed on by reference (`g(&p.act)`), a constant is a reference to its value, bound as a
            // scalar's is: no struct passed on whole.
            if let Constant::Declared(_) = constant {
                field.shape = Shape::Scalar;
            }
        }
    }
    CloneToVec(&arrays).visit_block_mut(&mut block);
    copy_written_fields(&mut block, sig, &fields);
    let mut params = Vec::new();
    for (i, p) in sig.params.iter().enumerate() {
        let mut declared = p.clone();
        if matches!(p.kind, Kind::Struct(_)) {
            declared.active = p.active && whole[i];
        }
        params.push(declared);
        for input in fields.iter().filter(|f| f.parent == i) {
            let (kind, array) = match (input.shape, input.constant) {
                // A constant the declaration shows (an integer, a flag, an enum): no float.
                (_, Some(Constant::Declared(held))) => {
                    let kind = match held {
                        NoFloat::Integer => Kind::Int,
                        NoFloat::Flag => Kind::Bool,
                        NoFloat::Data | NoFloat::Integers => Kind::Unknown,
                    };
                    (kind, None)
                }
                (shape, _) => match shape {
                    Shape::Array => (
                        Kind::Array,
                        Some(ArrayShape {
                            fixed: false,
                            owned: false,
                            matrix: input.matrix,
                        }),
                    ),
                    Shape::Whole => (Kind::Struct(syn::Type::Infer(syn::parse_quote!(_))), None),
                    Shape::Scalar => (Kind::Unknown, None),
                },
            };
            params.push(Param {
                ident: input.ident.clone(),
                ty: match &input.integer_matrix {
                    Some(ty) => syn::parse_quote!(&#ty),
                    None => syn::Type::Infer(syn::parse_quote!(_)),
                },
                kind,
                active: p.active && input.constant.is_none(),
                grad_ty: syn::Type::Infer(syn::parse_quote!(_)),
                array,
                differentiable: !matches!(input.constant, Some(Constant::Declared(_))),
                by_ref: false,
                field: true,
                output: false,
                scalar: false,
                passed_on: crate::signature::PassedOn::No,
            });
        }
    }
    Some(Flattened {
        block,
        inner: Signature {
            params,
            ret_ty: sig.ret_ty.clone(),
            ret_kind: sig.ret_kind.clone(),
        },
        fields,
        whole,
        lift: None,
    })
}

// Input:  `m.tris` of `fn f(m: &Mesh, ..)`, in a file declaring `struct Mesh { .., #[no_grad] tris:
//         Vec<[usize; 3]> }`
// Output: Some(`Vec<[usize; 3]>`)
/// The declared type of the field input `field` (a field of the struct itself, not of a nested one) where
/// the source file shows it to be a matrix (or deeper) of integers or flags (`integer_rows::
/// integer_matrix_type`).
fn declared_integer_matrix(sig: &Signature, field: &FieldInput) -> Option<syn::Type> {
    let [name] = &field.path[..] else {
        return None;
    };
    let ty = struct_name(&sig.params[field.parent].kind)?;
    let declared = crate::context::declared_field_type(&ty, &crate::naming::unraw(name))?;
    let declared: syn::Type = syn::parse_str(&declared).ok()?;
    crate::integer_rows::integer_matrix_type(&declared).map(|_| declared)
}

/// The name of the struct type `kind` is (`Mesh` of `&Mesh`, `Self`).
pub(crate) fn struct_name(kind: &Kind) -> Option<String> {
    let Kind::Struct(ty) = kind else {
        return None;
    };
    let ty = match ty {
        syn::Type::Reference(r) => &*r.elem,
        other => other,
    };
    let syn::Type::Path(tp) = ty else {
        return None;
    };
    Some(crate::naming::unraw(&tp.path.segments.last()?.ident))
}

// Input:  `p.act` of `fn f(p: &Layer, ..)`, in a file declaring `struct Layer { .., #[no_grad] act: Act }`
//         and `enum Act { Tanh, Relu }`
// Output: Some(Constant::Declared(NoFloat::Data))
/// The constant that the field input `field` of a struct of `sig` is where the source file declares the
/// struct and the field's type holds no float (`context::declared_constant_field`): an integer, a flag or
/// data, whatever the body does with it; an array of integers or flags (`Constant::Integers`). `None`
/// where the file does not show it: the syntax decides then (`integer_fields.rs`, `activity.rs`).
fn declared_constant(sig: &Signature, field: &FieldInput) -> Option<Constant> {
    let Kind::Struct(ty) = &sig.params[field.parent].kind else {
        return None;
    };
    let syn::Type::Path(tp) = ty else {
        return None;
    };
    let name = crate::naming::unraw(&tp.path.segments.last()?.ident);
    let path: Vec<String> = field.path.iter().map(crate::naming::unraw).collect();
    let held = crate::context::declared_constant_field(&name, &path)?;
    match (field.shape, held) {
        (Shape::Array, NoFloat::Integers) if !field.matrix => Some(Constant::Integers),
        (Shape::Scalar | Shape::Whole, NoFloat::Integer | NoFloat::Flag | NoFloat::Data) => {
            Some(Constant::Declared(held))
        }
        _ => None,
    }
}

// Input:  fn f(mut n: Net, x: f64) -> f64 { n.gain[0] *= x; n.b = x; .. }
// Output: fn f(mut n: Net, x: f64) -> f64 { let mut __n_gain = __n_gain.to_vec(); let mut __n_b = __n_b;
//                                           __n_gain[0] *= x; __n_b = x; .. }
/// A struct taken by value (`mut n: Net`) is a local of the body: a field the body writes (`n.b = ..`,
/// `n.gain[0] += ..`) is a local copy of the field's input, which the passes write like any local (an
/// array field a local `Vec`). rustc checks the original function, which needs the `mut`.
fn copy_written_fields(block: &mut syn::Block, sig: &Signature, fields: &[FieldInput]) {
    struct Written<'a> {
        names: &'a FastSet<String>,
        found: Vec<String>,
    }
    impl Written<'_> {
        fn place(&mut self, mut e: &Expr) {
            loop {
                match e {
                    Expr::Index(i) => e = &i.expr,
                    Expr::Paren(p) => e = &p.expr,
                    Expr::Path(p) => {
                        if let Some(name) = p.path.get_ident().map(ToString::to_string) {
                            if self.names.contains(&name) && !self.found.contains(&name) {
                                self.found.push(name);
                            }
                        }
                        return;
                    }
                    _ => return,
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Written<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Assign(a) => self.place(&a.left),
                Expr::Binary(b) if compound(&b.op) => self.place(&b.left),
                _ => {}
            }
            syn::visit::visit_expr(self, expr);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    fn compound(op: &syn::BinOp) -> bool {
        use syn::BinOp::*;
        matches!(
            op,
            AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_)
        )
    }
    let names: FastSet<String> = fields
        .iter()
        .filter(|f| {
            let p = &sig.params[f.parent];
            !matches!(p.ty, syn::Type::Reference(_)) && p.ident != "self" && !f.matrix
        })
        .filter(|f| f.shape != Shape::Whole)
        .map(|f| f.ident.to_string())
        .collect();
    if names.is_empty() {
        return;
    }
    let mut written = Written {
        names: &names,
        found: Vec::new(),
    };
    written.visit_block(block);
    let mut copies: Vec<syn::Stmt> = Vec::new();
    for name in &written.found {
        let Some(field) = fields.iter().find(|f| f.ident == name) else {
            continue;
        };
        let ident = Ident::new(name, Span::call_site());
        copies.push(match field.shape {
            Shape::Array => syn::parse_quote!(let mut #ident = #ident.to_vec();),
            _ => syn::parse_quote!(let mut #ident = #ident;),
        });
    }
    block.stmts.splice(0..0, copies);
}

// Input:  let w = __p_w.clone();     (`p.w`, a `Vec<f64>` or `[f64; N]` field the body uses as an array)
// Output: let w = __p_w.to_vec();
/// A copy of an array field made by `clone()` (`let w = p.w.clone();`): the same copy by `to_vec()`, a
/// local array the passes know (they know no `clone`), at first order and `order = K` alike.
struct CloneToVec<'a>(&'a FastSet<String>);

impl VisitMut for CloneToVec<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::MethodCall(m) = expr {
            let field = plain_name(&m.receiver).is_some_and(|n| self.0.contains(&n));
            if field && m.method == "clone" && m.args.is_empty() {
                m.method = Ident::new("to_vec", m.method.span());
                return;
            }
        }
        if let Expr::Macro(m) = expr {
            if m.mac.path.is_ident("vec") {
                crate::chains::rewrite_vec_args(&mut m.mac, |arg| self.visit_expr_mut(arg));
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Replaces `p.field` (and `self.field`, and a nested struct's `p.inner.a`) by the field's input, and
/// records the fields.
struct Rewrite<'a> {
    structs: &'a [(usize, String)],
    /// The method takes `self` by value: `self.other(x)` borrows it (`Self::other(&self, x)`), as the
    /// method call's auto-reference does for a callee taking `&self`.
    self_by_value: bool,
    /// (struct, path of fields, input name), in order of first use.
    found: Vec<(usize, Vec<Ident>, Ident)>,
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        // `self.other(x)` → `Self::other(self, x)` (`Self::other(&self, x)` for a `self` taken by value): a
        // call, differentiated through `Self::__other_vjp`.
        if let Expr::MethodCall(m) = expr {
            let receiver_is_self = matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident("self"));
            if receiver_is_self && self.structs.iter().any(|(_, name)| name == "self") {
                let (method, turbofish) = (&m.method, &m.turbofish);
                let receiver = &m.receiver;
                let borrow = self.self_by_value.then(|| quote!(&));
                let args = m.args.iter();
                *expr = syn::parse_quote_spanned!(m.method.span()=> Self::#method #turbofish(#borrow #receiver, #(#args),*));
                syn::visit_mut::visit_expr_mut(self, expr);
                return;
            }
        }
        // `vec![0.0; p.n]`, `vec![p.b, x]`: syn's visitors leave a macro's arguments as tokens.
        if let Expr::Macro(m) = expr {
            if m.mac.path.is_ident("vec") {
                crate::chains::rewrite_vec_args(&mut m.mac, |arg| self.visit_expr_mut(arg));
                return;
            }
        }
        // `for &v in &p.w`: the field's input is a slice (`__p_w: &[f64]`), whose reference is no
        // iterator (`&&[f64]`): iterate `__p_w.iter()`, what `&p.w` iterates for a `Vec` or an array.
        if let Expr::ForLoop(f) = expr {
            if let Expr::Reference(r) = &*f.expr {
                if r.mutability.is_none() && field_path(&r.expr, self.structs).is_some() {
                    let field = r.expr.clone();
                    let span = r.and_token.span;
                    *f.expr = syn::parse_quote_spanned!(span=> #field.iter());
                }
            }
        }
        if let Some((parent, path)) = field_path(expr, self.structs) {
            let (index, name) = &self.structs[parent];
            let ident = match self
                .found
                .iter()
                .find(|(p, fi, _)| *p == *index && *fi == path)
            {
                Some((_, _, ident)) => ident.clone(),
                None => {
                    // `__p_w`, `__p_inner__a`; a number after a name that another path took already.
                    let joined: Vec<String> = path.iter().map(Ident::to_string).collect();
                    let base = format!("__{}_{}", name, joined.join("__"));
                    let mut name = base.clone();
                    let mut n = 1;
                    while self.found.iter().any(|(_, _, ident)| *ident == name) {
                        name = format!("{base}_{n}");
                        n += 1;
                    }
                    let ident = Ident::new(&name, Span::mixed_site());
                    self.found.push((*index, path.clone(), ident.clone()));
                    ident
                }
            };
            let last = path.last().map_or_else(Span::call_site, Ident::span);
            let path = Ident::new(&ident.to_string(), last);
            *expr = syn::parse_quote!(#path);
            return;
        }
        syn::visit_mut::visit_expr_mut(self, expr);
    }

    // Items nested in the body cannot see the function's parameters.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

// Input:  x.iter().zip(&p.w)
// Output: x.iter().zip(p.w.iter())
/// An array field zipped by reference, `.zip(&p.w)`, written `.zip(p.w.iter())` (the same iterator): the
/// field is then an array input, iterated, not a whole value passed by reference, whose zip was refused
/// (and bound as a reference itself, `&__p_w` would not be an iterator).
struct ZippedFields<'a>(&'a [(usize, String)]);

impl VisitMut for ZippedFields<'_> {
    fn visit_expr_method_call_mut(&mut self, m: &mut syn::ExprMethodCall) {
        syn::visit_mut::visit_expr_method_call_mut(self, m);
        if m.method != "zip" || m.args.len() != 1 {
            return;
        }
        let Expr::Reference(r) = &m.args[0] else {
            return;
        };
        if r.mutability.is_some() || field_path(&r.expr, self.0).is_none() {
            return;
        }
        let field = &r.expr;
        let iterated: Expr =
            syn::parse_quote_spanned!(syn::spanned::Spanned::span(&**field)=> #field.iter());
        m.args[0] = iterated;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

// Input:  fn sweep(o: &Osc, s: f64) -> f64 { loss_with(o.k * s, o.x0) }
//         (the file declares `struct Osc { k: f64, x0: [f64; 2] }`)
// Output: fn sweep(o: &Osc, s: f64) -> f64 { loss_with(o.k * s, [o.x0[0], o.x0[1]]) }
/// A field that the source file declares a fixed-size array of floats (`x0: [f64; 2]`), passed by value
/// as an argument of a call, is passed as the array of its elements: the syntax alone takes a field passed
/// by value for a scalar, whose `order = K` forms read one float of the struct's values view for it
/// (rustc's E0308 at the call). Left as written where the file does not show the field's type.
struct ArrayFieldsByValue<'a> {
    structs: &'a [(usize, String)],
    sig: &'a Signature,
}

impl ArrayFieldsByValue<'_> {
    /// The largest array spread into its elements.
    const MAX: usize = 64;

    fn spread(&self, arg: &mut Expr) {
        let Some((k, path)) = field_path(arg, self.structs) else {
            return;
        };
        let [field] = &path[..] else {
            return;
        };
        let Kind::Struct(syn::Type::Path(tp)) = &self.sig.params[self.structs[k].0].kind else {
            return;
        };
        let Some(last) = tp.path.segments.last() else {
            return;
        };
        let name = crate::naming::unraw(&last.ident);
        let declared = crate::context::declared_field_type(&name, &crate::naming::unraw(field));
        let Some(syn::Type::Array(array)) = declared.and_then(|t| syn::parse_str(&t).ok()) else {
            return;
        };
        let float = matches!(&*array.elem, syn::Type::Path(e) if e.path.is_ident("f64") || e.path.is_ident("f32"));
        let n = match &array.len {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n.base10_parse::<usize>().ok(),
            _ => None,
        };
        let Some(n) = n.filter(|&n| float && n <= Self::MAX) else {
            return;
        };
        let span = syn::spanned::Spanned::span(&*arg);
        let whole = arg.clone();
        let elements = (0..n).map(|i| {
            let i = syn::Index::from(i);
            quote::quote_spanned!(span=> #whole[#i])
        });
        *arg = syn::parse_quote_spanned!(span=> [#(#elements),*]);
    }
}

impl VisitMut for ArrayFieldsByValue<'_> {
    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        syn::visit_mut::visit_expr_call_mut(self, c);
        for arg in &mut c.args {
            self.spread(arg);
        }
    }

    fn visit_expr_method_call_mut(&mut self, m: &mut syn::ExprMethodCall) {
        syn::visit_mut::visit_expr_method_call_mut(self, m);
        for arg in &mut m.args {
            self.spread(arg);
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The struct (its position in `structs`) and the path of named fields that `expr` reads, if it reads
/// a field of one: `p.w` gives `[w]`, `p.inner.a` gives `[inner, a]`.
fn field_path(expr: &Expr, structs: &[(usize, String)]) -> Option<(usize, Vec<Ident>)> {
    let mut path = Vec::new();
    let mut base = expr;
    loop {
        match base {
            Expr::Field(f) => {
                let syn::Member::Named(field) = &f.member else {
                    return None;
                };
                path.push(field.clone());
                base = &f.base;
            }
            Expr::Paren(p) if !path.is_empty() => base = &p.expr,
            _ => break,
        }
    }
    if path.is_empty() {
        return None;
    }
    path.reverse();
    struct_named(base, structs).map(|parent| (parent, path))
}

/// The position in `structs` of the struct `base` names, if it names one.
fn struct_named(base: &Expr, structs: &[(usize, String)]) -> Option<usize> {
    let mut base = base;
    while let Expr::Paren(p) = base {
        base = &p.expr;
    }
    match base {
        Expr::Path(p) if p.qself.is_none() => {
            let ident = p.path.get_ident()?.to_string();
            structs.iter().position(|(_, name)| *name == ident)
        }
        _ => None,
    }
}

/// How names are used once the fields are rewritten.
#[derive(Default)]
struct Uses {
    /// Indexed, iterated, `.len()`, `.iter()`, `.to_vec()`.
    array: FastSet<String>,
    /// `&name`.
    reference: FastSet<String>,
    /// Every plain path.
    paths: FastSet<String>,
    /// `let name = other;` (also `let mut name: ty = other;`): `name` a copy of `other`, which is then an
    /// array too where `name` is one (`let mut w = self.w; w[0] *= b;`: `self.w` a fixed-size array).
    copies: Vec<(String, String)>,
}

impl Uses {
    /// The names used as arrays, with those copied to a local used as one (to a fixed point: a copy of a
    /// copy).
    fn arrays(&self) -> FastSet<String> {
        self.through_copies(&self.array)
    }

    /// The names passed by reference, with those copied to a local passed so (`let k = p.k; g(&k, x)`:
    /// `p.k` is passed on whole as the copy is, not a scalar).
    fn references(&self) -> FastSet<String> {
        self.through_copies(&self.reference)
    }

    /// `names` with the names copied to one of them, to a fixed point.
    fn through_copies(&self, names: &FastSet<String>) -> FastSet<String> {
        let mut names = names.clone();
        loop {
            let before = names.len();
            for (name, copied) in &self.copies {
                if names.contains(name) {
                    names.insert(copied.clone());
                }
            }
            if names.len() == before {
                return names;
            }
        }
    }
}

fn plain_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Paren(p) => plain_name(&p.expr),
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Index(e) => self.array.extend(plain_name(&e.expr)),
            Expr::MethodCall(m)
                if matches!(m.method.to_string().as_str(), "len" | "iter" | "to_vec") =>
            {
                self.array.extend(plain_name(&m.receiver))
            }
            Expr::ForLoop(f) => {
                let iterated = match &*f.expr {
                    Expr::Reference(r) => &*r.expr,
                    other => other,
                };
                self.array.extend(plain_name(iterated));
            }
            Expr::Reference(r) => self.reference.extend(plain_name(&r.expr)),
            Expr::Path(_) => self.paths.extend(plain_name(expr)),
            // `vec![p.w[0] * x, p.b]`: syn's visitors leave a macro's arguments as tokens (`p.w` was
            // taken for a scalar field, its indexing an error).
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                for arg in crate::chains::vec_arg_exprs(&m.mac) {
                    self.visit_expr(&arg);
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let mut pat = &local.pat;
        if let syn::Pat::Type(typed) = pat {
            pat = &typed.pat;
        }
        let name = match pat {
            syn::Pat::Ident(p) if p.subpat.is_none() => Some(p.ident.to_string()),
            _ => None,
        };
        // (Also `let w = p.w.clone();`, a copy too: `CloneToVec` makes it `to_vec()` for an array field.)
        let copied = local.init.as_ref().and_then(|init| match &*init.expr {
            Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                plain_name(&m.receiver)
            }
            other => plain_name(other),
        });
        if let (Some(name), Some(copied)) = (name, copied) {
            self.copies.push((name, copied));
        }
        syn::visit::visit_local(self, local);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// A struct of type `ty` assembled from adjoints (or tangents) in `f_vjp` and `f_hvp`: `zero_like(parent)`
/// (which copies the `#[no_grad]` fields), then the struct's own adjoint `whole` if the body passed it on
/// whole, then each field's `(path, adjoint)` added by the derive's `__autodiff_add_to_*` (nothing for a
/// `#[no_grad]` field).
pub(crate) fn gathered_struct<'f>(
    ty: &syn::Type,
    parent: &TokenStream,
    whole: Option<TokenStream>,
    fields: impl IntoIterator<Item = (&'f [Ident], TokenStream)>,
) -> TokenStream {
    let g = Ident::new("__struct_gradient", Span::mixed_site());
    let whole = whole.map(|w| quote!(::autodiff::__private::AdjointOf::add_into(#w, &mut #g);));
    let ty_tokens = ty.to_token_stream();
    let fields = fields
        .into_iter()
        .map(|(path, adjoint)| add_field_adjoint(&ty_tokens, quote!(&mut #g), path, adjoint));
    quote!({
        let mut #g = <#ty as ::autodiff::__private::Differentiable>::zero_like(#parent);
        #whole
        #(#fields)*
        #g
    })
}

/// The type of the field at `path` of a struct of type `ty`, as the derive's `FieldType` names it:
/// `<<Outer as FieldType<KEY_inner>>::Type as FieldType<KEY_a>>::Type` for `inner.a`.
pub(crate) fn field_type(ty: &TokenStream, path: &[Ident]) -> TokenStream {
    path.iter().fold(ty.clone(), |ty, field| {
        let key = crate::naming::field_key(&field.to_string());
        quote!(<#ty as ::autodiff::__private::FieldType<#key>>::Type)
    })
}

/// `target.<path> += adjoint` for `target: &mut S`, `S` of type `ty`, through the derive's
/// `__autodiff_add_to_*` of each struct on the path: nothing where a field on it is `#[no_grad]`.
/// ```text
/// <Outer>::__autodiff_add_to_inner(&mut g, NestedAdjoint(move |g: &mut Inner| <Inner>::__autodiff_add_to_a(g, adjoint)))
/// ```
fn add_field_adjoint(
    ty: &TokenStream,
    target: TokenStream,
    path: &[Ident],
    adjoint: TokenStream,
) -> TokenStream {
    let Some((field, rest)) = path.split_first() else {
        return TokenStream::new();
    };
    let add = format_ident!("__autodiff_add_to_{}", field);
    if rest.is_empty() {
        return quote!(<#ty>::#add(#target, #adjoint););
    }
    let inner_ty = field_type(ty, std::slice::from_ref(field));
    let nested = Ident::new("__nested_gradient", Span::mixed_site());
    let inner = add_field_adjoint(&inner_ty, quote!(#nested), rest, adjoint);
    quote! {
        <#ty>::#add(
            #target,
            ::autodiff::__private::NestedAdjoint(move |#nested: &mut #inner_ty| { #inner }),
        );
    }
}

/// The tangent of the field at `path` of the struct `primal` (a place of type `ty`) in the struct's
/// tangent `tangent` (a place), by the derive's `__autodiff_tangent_of_*` of each struct on the path:
/// `zero` (the field's zero) where a field on it is `#[no_grad]`.
pub(crate) fn field_tangent(
    ty: &TokenStream,
    tangent: TokenStream,
    primal: TokenStream,
    path: &[Ident],
    zero: TokenStream,
) -> TokenStream {
    let Some((field, rest)) = path.split_first() else {
        return tangent;
    };
    let take = format_ident!("__autodiff_tangent_of_{}", field);
    if rest.is_empty() {
        return quote!(<#ty>::#take(&#tangent.#field, || #zero));
    }
    let nested = quote!(<#ty>::#take(
        &#tangent.#field,
        || ::autodiff::__private::Differentiable::zero_like(&#primal.#field),
    ));
    let inner_ty = field_type(ty, std::slice::from_ref(field));
    field_tangent(
        &inner_ty,
        quote!((#nested)),
        quote!(#primal.#field),
        rest,
        zero,
    )
}

/// The parameter struct `p` as a reference in a generated body after `Flattened::prologue` (which makes
/// every struct taken by value a reference, but for `self`): `p`, or `&self` for a `self` taken by value.
pub(crate) fn reference(p: &Param) -> TokenStream {
    let ident = &p.ident;
    match &p.ty {
        syn::Type::Reference(_) => quote!(#ident),
        _ if ident == "self" => quote!(&#ident),
        _ => quote!(#ident),
    }
}

/// A field input as `order = K` sees it (`struct_higher.rs`).
pub(crate) struct FieldView<'a> {
    /// The index of the struct among the declared parameters.
    pub(crate) parent: usize,
    /// The field, or the path to a nested struct's field (`inner.a`).
    pub(crate) path: &'a [Ident],
    /// The input's name in the generated code (`__p_w`).
    pub(crate) ident: &'a Ident,
    /// Indexed, iterated or asked its `.len()`.
    pub(crate) array: bool,
    /// Only passed on whole (by reference) to calls: a nested struct.
    pub(crate) whole: bool,
    /// Indexed twice: a matrix.
    pub(crate) matrix: bool,
    /// An array of integers or flags, or one only measured: a constant, bound from the struct itself.
    pub(crate) constant: Option<Constant>,
    /// The declared type of a matrix of integers or flags (`Vec<[usize; 3]>`): a constant, bound by
    /// reference from the struct itself, read by index as such a parameter is.
    pub(crate) integer_matrix: Option<&'a syn::Type>,
}

/// A read of a field indexed twice (`p.w[i][j]`, or through a copy, `let w = p.w; w[i][j]`), or of a row of
/// one read as a slice (`&p.w[i]`, `p.w[i].len()`, `p.w[i].iter()`): the read,
/// the field's input (`__p_w`), the field as the user wrote it (`w`, `inner.w`), and whether it was read
/// through a copy.
struct MatrixRead {
    expr: Expr,
    input: String,
    field: String,
    copied: bool,
    /// A row read as a slice (`&p.w[i]`), not an element (`p.w[i][j]`).
    row: bool,
}

/// The reads of fields indexed twice in `block` (the fields rewritten to their inputs).
///
/// `&p.w[i]` alone does not say whether `w` is a matrix (its row) or a plain array (a reference to an
/// element): a field also read by one index as a value (`p.w[i] * x`), or whose `&p.w[i]` bound to a local
/// is dereferenced (`let r = &p.w[i]; *r`), is a plain array, never indexed twice, and its `&p.w[i]` not a
/// row: the lowering reports the reference to an element there.
fn matrix_reads(block: &syn::Block, fields: &[FieldInput]) -> Vec<MatrixRead> {
    struct Nested<'a> {
        fields: &'a [FieldInput],
        copies: Vec<(String, String)>,
        found: Vec<MatrixRead>,
        /// The inputs read by one index as a value (`p.w[i]`).
        elements: FastSet<String>,
        /// The locals bound to `&p.w[i]`, with the field's input.
        row_locals: Vec<(String, String)>,
        /// The names dereferenced (`*r`).
        derefs: FastSet<String>,
    }
    impl Nested<'_> {
        /// The field `name` is, itself or as a copy (`let w = self.w;`): its input, as the user wrote it,
        /// and whether through a copy.
        fn field_of(&self, name: &str) -> Option<(String, String, bool)> {
            let mut name = name.to_string();
            for step in 0..=self.copies.len() {
                if let Some(f) = self.fields.iter().find(|f| f.ident == name) {
                    let path: Vec<String> = f.path.iter().map(Ident::to_string).collect();
                    return Some((f.ident.to_string(), path.join("."), step > 0));
                }
                name = self.copies.iter().find(|(n, _)| *n == name)?.1.clone();
            }
            None
        }
    }
    impl<'ast> Visit<'ast> for Nested<'_> {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            // A row read as a slice: `&p.w[i]`, `p.w[i].len()`, `p.w[i].iter()`.
            let row = match expr {
                Expr::Reference(r) if r.mutability.is_none() => Some(&*r.expr),
                Expr::MethodCall(m)
                    if m.args.is_empty() && (m.method == "len" || m.method == "iter") =>
                {
                    Some(&*m.receiver)
                }
                _ => None,
            };
            if let Some(Expr::Index(index)) = row.map(strip) {
                if !matches!(strip(&index.index), Expr::Range(_)) {
                    if let Some((input, field, copied)) =
                        plain_name(&index.expr).and_then(|n| self.field_of(&n))
                    {
                        self.found.push(MatrixRead {
                            expr: expr.clone(),
                            input,
                            field,
                            copied,
                            row: true,
                        });
                        self.visit_expr(&index.index);
                        return;
                    }
                }
            }
            if let Expr::Index(outer) = expr {
                if let Expr::Index(inner) = strip(&outer.expr) {
                    if let Some((input, field, copied)) =
                        plain_name(&inner.expr).and_then(|n| self.field_of(&n))
                    {
                        self.found.push(MatrixRead {
                            expr: expr.clone(),
                            input,
                            field,
                            copied,
                            row: false,
                        });
                        return;
                    }
                }
            }
            // `p.w[i]` read by one index as a value (rows and elements of matrices returned above).
            if let Expr::Index(index) = expr {
                if !matches!(strip(&index.index), Expr::Range(_)) {
                    if let Some((input, ..)) =
                        plain_name(&index.expr).and_then(|n| self.field_of(&n))
                    {
                        self.elements.insert(input);
                    }
                }
            }
            if let Expr::Unary(u) = expr {
                if let (syn::UnOp::Deref(_), Some(name)) = (u.op, plain_name(&u.expr)) {
                    self.derefs.insert(name);
                }
            }
            // `vec![p.w[0][0] * x, p.b[1]]`: syn's visitors leave a macro's arguments as tokens.
            if let Expr::Macro(m) = expr {
                if m.mac.path.is_ident("vec") {
                    for arg in crate::chains::vec_arg_exprs(&m.mac) {
                        self.visit_expr(&arg);
                    }
                    return;
                }
            }
            syn::visit::visit_expr(self, expr);
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            let mut pat = &local.pat;
            if let syn::Pat::Type(typed) = pat {
                pat = &typed.pat;
            }
            let init = local.init.as_ref().map(|init| match &*init.expr {
                Expr::Reference(r) => &*r.expr,
                other => other,
            });
            if let (syn::Pat::Ident(p), Some(copied)) = (pat, init.and_then(plain_name)) {
                self.copies.push((p.ident.to_string(), copied));
            }
            // `let r = &p.w[i];`
            let row = local
                .init
                .as_ref()
                .and_then(|init| match strip(&init.expr) {
                    Expr::Reference(r) => match strip(&r.expr) {
                        Expr::Index(index) if !matches!(strip(&index.index), Expr::Range(_)) => {
                            plain_name(&index.expr).and_then(|n| self.field_of(&n))
                        }
                        _ => None,
                    },
                    _ => None,
                });
            if let (syn::Pat::Ident(p), Some((input, ..))) = (pat, row) {
                self.row_locals.push((p.ident.to_string(), input));
            }
            syn::visit::visit_local(self, local);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    fn strip(expr: &Expr) -> &Expr {
        match expr {
            Expr::Paren(p) => strip(&p.expr),
            other => other,
        }
    }
    let mut nested = Nested {
        fields,
        copies: Vec::new(),
        found: Vec::new(),
        elements: FastSet::default(),
        row_locals: Vec::new(),
        derefs: FastSet::default(),
    };
    nested.visit_block(block);
    let Nested {
        found,
        mut elements,
        row_locals,
        derefs,
        ..
    } = nested;
    elements.extend(
        (row_locals.into_iter())
            .filter(|(local, _)| derefs.contains(local))
            .map(|(_, input)| input),
    );
    // Indexed twice somewhere, a field is a matrix whatever else the body does with it.
    let twice: FastSet<&str> = (found.iter())
        .filter(|read| !read.row)
        .map(|read| read.input.as_str())
        .collect();
    let plain: FastSet<String> = (elements.into_iter())
        .filter(|input| !twice.contains(input.as_str()))
        .collect();
    found
        .into_iter()
        .filter(|read| !(read.row && plain.contains(&read.input)))
        .collect()
}

impl Flattened {
    // Input:  let w = &self.w; w[i][j]     (`w: Vec<Vec<f64>>`)
    // Output: an error at `w[i][j]`
    /// Reports each field indexed twice through a copy (`let w = &p.w; w[i][j]`): a field read `p.w[i][j]`
    /// is a matrix input, read flattened as a matrix parameter is; a local bound to it is not followed.
    /// Reported before the fence and the lowering, whose errors about it would not say what to do.
    pub(crate) fn check_matrix_fields(&self, errors: &mut crate::errors::Errors) {
        // A matrix whose elements are read as integers (`x[p.inner.sets[i][j]]`) that the file does not
        // show to be one (`declared_integer_matrix`): not supported, one error at the field rather than
        // those of reading it as floats.
        let matrices: FastSet<String> = (self.fields.iter())
            .filter(|f| f.matrix)
            .map(|f| f.ident.to_string())
            .collect();
        for (name, _) in crate::integer_fields::constant_arrays(&self.block, &matrices) {
            let Some(field) = self.fields.iter().find(|f| f.ident == name) else {
                continue;
            };
            let Some(last) = field.path.last() else {
                continue;
            };
            let shown: Vec<String> = field.path.iter().map(Ident::to_string).collect();
            let shown = shown.join(".");
            errors.spanned(
                last,
                format!(
                    "the field `{shown}` is indexed twice, as a matrix, and its elements are read as integers \
                     or flags (an index, a bound, a condition, compared with an integer literal, or only \
                     converted by `as`): a matrix of integers is supported as a field of the parameter \
                     struct itself where this file declares the struct (`#[no_grad] sets: Vec<Vec<usize>>`), \
                     not of a nested struct nor of one declared elsewhere: pass it as a parameter (`sets: \
                     &[Vec<usize>]`), or store it flat (`Vec<usize>` read as `{shown}[i * cols + j]`, rows of \
                     different lengths by an offsets `Vec<usize>`)"
                ),
            );
        }
        for read in matrix_reads(&self.block, &self.fields) {
            if !read.copied {
                continue;
            }
            let field = read.field;
            errors.spanned(
                &read.expr,
                format!(
                    "the field `{field}` is bound to a local and indexed twice, as a matrix, which a \
                     differentiable body reads from a struct only directly: index the field itself where \
                     it is read (`self.{field}[i][j]`, `p.{field}[i][j]`), with no local bound to it"
                ),
            );
        }
    }

    /// Does the body pass a parameter struct of `sig`, or a field of one, on whole (to a call)? A constant
    /// `self` does not count where `constant_self` says it may be passed on.
    pub(crate) fn uses_a_struct_whole(&self, sig: &Signature, constant_self: bool) -> bool {
        self.fields.iter().any(|f| f.shape == Shape::Whole)
            || sig.params.iter().zip(&self.whole).any(|(p, whole)| {
                *whole
                    && matches!(p.kind, Kind::Struct(_))
                    && !(constant_self && p.ident == "self" && !p.active)
            })
    }

    /// The same, its fields read in the float type `lift` (see `lift`).
    pub(crate) fn lifting(self, lift: Option<Ident>) -> Self {
        Flattened { lift, ..self }
    }

    /// The field inputs, in the order of `inner`'s parameters.
    pub(crate) fn field_inputs(&self) -> impl Iterator<Item = FieldView<'_>> {
        self.fields.iter().map(|f| FieldView {
            parent: f.parent,
            path: &f.path,
            ident: &f.ident,
            array: f.shape == Shape::Array,
            whole: f.shape == Shape::Whole,
            matrix: f.matrix,
            constant: f.constant,
            integer_matrix: f.integer_matrix.as_ref(),
        })
    }

    /// Binds the field inputs at the start of a generated body (see `prologue`).
    pub(crate) fn bind_fields(&self, sig: &Signature) -> TokenStream {
        self.prologue(sig)
    }

    /// The same, each field read in the float type `lift` (`__private::lift`), as a generic copy over
    /// `lift` takes it (`struct_whole::forwarding`).
    pub(crate) fn bind_fields_lifted(&self, sig: &Signature, lift: &Ident) -> TokenStream {
        self.prologue_in(sig, Some(lift))
    }

    /// The flattened body as a function's own body: the field inputs bound under the names the body spells
    /// (those of the generated code are hygienic), then the body.
    pub(crate) fn body_with_fields(&self, sig: &Signature) -> syn::Block {
        let body_names = Flattened {
            block: self.block.clone(),
            inner: self.inner.clone(),
            fields: self
                .fields
                .iter()
                .map(|f| FieldInput {
                    parent: f.parent,
                    path: f.path.clone(),
                    ident: Ident::new(&f.ident.to_string(), Span::call_site()),
                    shape: f.shape,
                    matrix: f.matrix,
                    constant: f.constant,
                    integer_matrix: f.integer_matrix.clone(),
                })
                .collect(),
            whole: self.whole.clone(),
            lift: self.lift.clone(),
        };
        let prologue = body_names.prologue(sig);
        // An array (or a field used whole) is bound as a reference: read as `(*w)` wherever the body read
        // `self.w`, so that `let mut w = self.w;` copies the array, as it does in the body as written,
        // rather than binding the reference (rustc's E0594 at `w[0] *= b` in the copy before).
        let mut block = self.block.clone();
        let borrowed: Vec<String> = self
            .fields
            .iter()
            .filter(|f| f.shape != Shape::Scalar)
            .map(|f| f.ident.to_string())
            .collect();
        DerefBorrowed(&borrowed).visit_block_mut(&mut block);
        syn::parse_quote!({ #prologue #block })
    }

    /// Binds the field inputs at the start of a generated body: `let __p_w = &p.w;`, `let __p_b = p.b;`
    /// (and `let p = &p;` for a struct taken by value, so that every struct is a reference).
    pub(crate) fn prologue(&self, sig: &Signature) -> TokenStream {
        self.prologue_in(sig, self.lift.as_ref())
    }

    /// `prologue`, the fields read in the float type `lift` where it is given.
    fn prologue_in(&self, sig: &Signature, lift: Option<&Ident>) -> TokenStream {
        let mut code = Vec::new();
        for p in &sig.params {
            // `self` cannot be rebound: a `self` taken by value is borrowed where it is used (`reference`).
            if matches!(p.kind, Kind::Struct(_))
                && !matches!(p.ty, syn::Type::Reference(_))
                && p.ident != "self"
            {
                let ident = &p.ident;
                code.push(quote!(let #ident = &#ident;));
            }
        }
        for input in &self.fields {
            let (parent, path, ident) =
                (&sig.params[input.parent].ident, &input.path, &input.ident);
            let lifted = lift.map(|scalar| {
                quote!(::autodiff::__private::lift::<#scalar, _>(
                    ::core::clone::Clone::clone(&#parent #(.#path)*)
                ))
            });
            code.push(match (input.shape, lifted) {
                // A matrix of integers or flags: the field itself, by reference.
                _ if input.integer_matrix.is_some() => quote!(let #ident = &#parent #(.#path)*;),
                // Integers or flags (checked so by `IntegerArray`), or an array only measured: the field
                // itself, never lifted.
                // (Spanned at the field where the body reads it: `IntegerArray`'s error points there.)
                (Shape::Array, _) if input.constant == Some(Constant::Integers) => {
                    let span = path.last().map_or_else(Span::call_site, Ident::span);
                    let integers = quote::quote_spanned!(span=> ::autodiff::__private::integers);
                    quote!(let #ident = #integers(&#parent #(.#path)*);)
                }
                (Shape::Array, _) if input.constant.is_some() => {
                    quote!(let #ident = &#parent #(.#path)*;)
                }
                // A constant the declaration shows, never lifted: an integer or a flag copied, data
                // (an enum, a `String`) cloned, as the body may match on it, compare it or pass it on by
                // value (a `Copy` enum's clone is its copy).
                (Shape::Scalar, _) if matches!(input.constant, Some(Constant::Declared(_))) => {
                    match input.constant {
                        Some(Constant::Declared(NoFloat::Data)) => quote!(
                            let #ident = ::core::clone::Clone::clone(&#parent #(.#path)*);
                        ),
                        _ => quote!(let #ident = #parent #(.#path)*;),
                    }
                }
                (Shape::Array, Some(lifted)) => {
                    let owned = format_ident!("{}_lifted", ident, span = Span::mixed_site());
                    quote!(let #owned = #lifted; let #ident = &#owned;)
                }
                (Shape::Scalar, Some(lifted)) => quote!(let #ident = #lifted;),
                (Shape::Array | Shape::Whole, _) => quote!(let #ident = &#parent #(.#path)*;),
                (Shape::Scalar, None) => quote!(let #ident = #parent #(.#path)*;),
            });
        }
        quote!(#(#code)*)
    }

    // Input:  fn loss(m: &Model, x: f64) -> f64 { m.w[0] * x + m.b }, `grad: (&mut Model, &mut f64)`
    // Output: zero: <Model as Differentiable>::__autodiff_zero_into(m, &mut *__grad_m);
    //         bind: let __grad___m_w: &mut [_] = &mut __grad_m.w[..];
    //         store (after the sweep's `let __grad___m_b = <m.b's adjoint>;`):
    //               if <Model>::__autodiff_constant_field("w") { __grad_m.w.clone_from(&m.w); }
    //               <Model>::__autodiff_add_to_b(&mut *__grad_m, __grad___m_b);
    /// How `f_grad_into` runs the reverse sweep over the inputs straight into the caller's buffers, where
    /// `buffers` are its buffers of the declared active parameters (`&mut S` for a struct): each struct's
    /// buffer is cleared in place (`zero`, the `#[no_grad]` fields copied); an array field's buffer is the
    /// field of the caller's struct (a `#[no_grad]` one copied from the primal again after the sweep,
    /// which added into it: so nothing is allocated for it); a float field's adjoint, which the
    /// sweep binds to its buffer's name (`GradientOut::IntoFields`), is added into the struct after the
    /// sweep (`store`) by the derive's helpers, which skip `#[no_grad]` fields.
    /// The sweep's buffers, one per active input, are `buffers`. `None` where a struct is passed on whole
    /// or a field is a matrix or a value passed on (their adjoints are values: `f_grad` is copied).
    pub(crate) fn sweep_into_fields(
        &self,
        sig: &Signature,
        buffers: &[Ident],
    ) -> Option<IntoFields> {
        if self.lift.is_some() {
            return None;
        }
        let mut into = IntoFields {
            buffers: Vec::new(),
            zero: TokenStream::new(),
            bind: TokenStream::new(),
            store: TokenStream::new(),
        };
        let mut outer = buffers.iter();
        let mut inner_index = 0;
        for (i, p) in sig.params.iter().enumerate() {
            let own = inner_index;
            let fields: Vec<&FieldInput> = self.fields.iter().filter(|f| f.parent == i).collect();
            inner_index += 1 + fields.len();
            if !p.active {
                continue;
            }
            let buffer = outer.next()?;
            let Kind::Struct(ty) = &p.kind else {
                into.buffers.push(buffer.clone());
                continue;
            };
            if self.whole[i] || self.inner.params[own].active {
                return None;
            }
            let (ty, primal) = (ty.to_token_stream(), reference(p));
            let differentiable = quote!(::autodiff::__private::Differentiable);
            into.zero.extend(quote! {
                <#ty as #differentiable>::__autodiff_zero_into(#primal, &mut *#buffer);
            });
            for (k, field) in fields.iter().enumerate() {
                if !self.inner.params[own + 1 + k].active {
                    continue;
                }
                let sweep_buffer =
                    format_ident!("__grad_{}", field.ident, span = Span::mixed_site());
                let path = &field.path;
                match field.shape {
                    Shape::Array if !field.matrix => {
                        // A `#[no_grad]` field anywhere on the path: its gradient is the primal's copy
                        // (`zero`), which the sweep adds the field's adjoint into; copied again after.
                        let constant = (0..path.len()).map(|depth| {
                            let parent_ty = field_type(&ty, &path[..depth]);
                            let name = path[depth].to_string();
                            quote!(<#parent_ty as #differentiable>::__autodiff_constant_field(#name))
                        });
                        let primal = &p.ident;
                        into.bind.extend(quote! {
                            let #sweep_buffer: &mut [_] = &mut #buffer #(.#path)* [..];
                        });
                        into.store.extend(quote! {
                            if #(#constant)||* {
                                ::core::clone::Clone::clone_from(&mut #buffer #(.#path)*, &#primal #(.#path)*);
                            }
                        });
                    }
                    // The sweep binds the adjoint to `sweep_buffer` (`GradientOut::IntoFields`).
                    Shape::Scalar => into.store.extend(add_field_adjoint(
                        &ty,
                        quote!(&mut *#buffer),
                        path,
                        quote!(#sweep_buffer),
                    )),
                    _ => return None,
                }
                into.buffers.push(sweep_buffer);
            }
        }
        Some(into)
    }

    /// The body of `f_vjp`: the reverse sweep over the inputs, `inner_body`, whose gradient has a slot
    /// per active input, then each struct's gradient assembled from its fields' slots.
    pub(crate) fn vjp_body(&self, sig: &Signature, inner_body: TokenStream) -> TokenStream {
        let prologue = self.prologue(sig);
        let slot = |i: usize| format_ident!("__gradient_{}", i, span = Span::mixed_site());
        let active: Vec<usize> = (0..self.inner.params.len())
            .filter(|&i| self.inner.params[i].active)
            .collect();
        let slots: Vec<TokenStream> = active
            .iter()
            .map(|&i| slot(i).into_token_stream())
            .collect();
        let slots = crate::emit::tuple_or_single(slots);
        let (value, gradient) = (
            Ident::new("__value", Span::mixed_site()),
            Ident::new("__gradient", Span::mixed_site()),
        );
        let mut outer = Vec::new();
        let mut inner_index = 0;
        for (i, p) in sig.params.iter().enumerate() {
            let own = inner_index;
            inner_index += 1 + self.fields.iter().filter(|f| f.parent == i).count();
            if !p.active {
                continue;
            }
            let Kind::Struct(ty) = &p.kind else {
                outer.push(slot(own).into_token_stream());
                continue;
            };
            let ident = reference(p);
            let whole = self.whole[i].then(|| slot(own).into_token_stream());
            // A constant field (integers, flags) has no slot: `zero_like` copied it.
            let fields = self
                .fields
                .iter()
                .filter(|f| f.parent == i)
                .enumerate()
                .filter(|&(k, _)| self.inner.params[own + 1 + k].active)
                .map(|(k, f)| (&f.path[..], slot(own + 1 + k).into_token_stream()));
            outer.push(gathered_struct(ty, &ident, whole, fields));
        }
        let outer = crate::emit::tuple_or_single(outer);
        quote! {
            #prologue
            let (#value, #gradient) = { #inner_body };
            let #slots = #gradient;
            (#value, #outer)
        }
    }

    /// The body of `f_jvp`: the declared tangent `tangent` spread over the inputs (a field's tangent
    /// taken from its struct's tangent, zero for a `#[no_grad]` field) as `inner_tangent`, then the
    /// tangent sweep over the inputs, `inner_body`.
    pub(crate) fn jvp_body(
        &self,
        sig: &Signature,
        tangent: &Ident,
        inner_tangent: &Ident,
        inner_body: TokenStream,
    ) -> TokenStream {
        let prologue = self.prologue(sig);
        let part = |i: usize| format_ident!("__tangent_{}", i, span = Span::mixed_site());
        let declared: Vec<usize> = (0..sig.params.len())
            .filter(|&i| sig.params[i].active)
            .collect();
        let parts: Vec<TokenStream> = declared
            .iter()
            .map(|&i| part(i).into_token_stream())
            .collect();
        let parts = crate::emit::tuple_or_single(parts);
        let mut fields = Vec::new();
        let mut inner = Vec::new();
        for (i, p) in sig.params.iter().enumerate() {
            if !p.active {
                continue;
            }
            let own = part(i);
            let Kind::Struct(ty) = &p.kind else {
                inner.push(own.into_token_stream());
                continue;
            };
            let mut field_tangents = Vec::new();
            let ty = ty.to_token_stream();
            let primal = reference(p);
            // A constant field (integers, flags) has no tangent: the inner function keeps it constant.
            for f in self
                .fields
                .iter()
                .filter(|f| f.parent == i && f.constant.is_none())
            {
                let input = &f.ident;
                let name = format_ident!("__tangent_{}", input, span = Span::mixed_site());
                let zero = match f.shape {
                    // A matrix's zero in its own shape (`Vec<Vec<T>>`, `[[T; M]; N]`).
                    Shape::Array if f.matrix => {
                        quote!(::autodiff::__private::Differentiable::zero_like(#input))
                    }
                    Shape::Array => quote!(::autodiff::__private::zeros_like(#input)),
                    Shape::Whole => {
                        quote!(::autodiff::__private::Differentiable::zero_like(#input))
                    }
                    Shape::Scalar => quote!(::autodiff::__private::constant_zero(&#input)),
                };
                let tangent = field_tangent(&ty, quote!(#own), quote!((#primal)), &f.path, zero);
                fields.push(quote!(let #name = #tangent;));
                field_tangents.push(name.into_token_stream());
            }
            if self.whole[i] {
                inner.push(own.into_token_stream());
            }
            inner.extend(field_tangents);
        }
        let inner = crate::emit::tuple_or_single(inner);
        quote! {
            #prologue
            let #parts = #tangent;
            #(#fields)*
            let #inner_tangent = #inner;
            #inner_body
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    #[test]
    fn a_field_zipped_by_reference_is_an_iterated_array() {
        let text = crate::expand::differentiable(
            quote!(),
            quote!(
                fn f(p: &Net, x: &[f64]) -> f64 {
                    x.iter().zip(&p.w).map(|(a, b)| a * b).sum::<f64>()
                }
            ),
        )
        .to_string();
        assert!(!text.contains("compile_error"), "{text}");
        assert!(text.contains("zip (__p_w . iter ())"), "{text}");
    }
}
