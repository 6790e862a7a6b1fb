//! Iterator chains and local closures, rewritten into the loops and expressions the later passes handle.
//!
//! This pass runs on the syntax, before the fence: a closure is source the macro can read, so instead of a
//! closure value there is its body, inlined where it runs. A chain over a slice or a range becomes a block
//! with a `for` loop and an accumulator; a closure bound to a local becomes its body at each call.
//!
//! ```text
//! // Input:                                     // Output:
//! x.iter().zip(y.iter())                        {
//!     .map(|(a, b)| a * b)                          let mut __acc = 0.0;
//!     .sum::<f64>()                                 for (a, b) in x.iter().zip(y.iter()) {
//!                                                       __acc = __acc + (a * b);
//!                                                   }
//!                                                   __acc
//!                                               }
//!
//! let sq = |v: f64| v * v;                      sq(a) + sq(b)  →  { let v = a; v * v } + { let v = b; v * v }
//! ```
//!
//! The user's function is emitted as written; only the generated items (and the generic shadow of
//! `order = K`) are built from the rewritten body. What cannot be rewritten (`.filter(..)`, a closure stored or
//! passed as a value, a `.collect()` into something other than a `Vec`) is an error saying what to write.

use crate::errors::Errors;
use crate::hash::FastSet;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Pat};

/// `item` with its iterator chains and local closures rewritten, and its valid forms the passes do not know
/// (`sugar.rs`), assertions (`asserts.rs`), loop labels (`labels.rs`) and array patterns (`array_patterns.rs`); errors for what cannot be.
pub(crate) fn desugar(item: &syn::ItemFn, errors: &mut Errors) -> syn::ItemFn {
    let mut item = item.clone();
    // In-place sorts of a local: the permutation, then a gather of a copy by it (`sorts.rs`).
    crate::sorts::desugar(&mut item.block, errors);
    // Array literals iterated, arithmetic on references, `split_at` (`std_forms.rs`).
    crate::std_forms::desugar(&mut item.block);
    crate::std_forms::nested_rows(&mut item.block, &item.sig);
    // Destructuring assignments, labeled block values, `match` guards and bindings, `match` on a tuple
    // (`sugar.rs`).
    crate::sugar::desugar(&mut item.block, &item.sig);
    // `assert!` and friends: the branches they are (`asserts.rs`).
    crate::asserts::desugar(&mut item.block, errors);
    crate::labels::desugar(&mut item.block, errors);
    // Slice locals rebound in a loop: views (`slice_views.rs`).
    crate::slice_views::desugar(&mut item);
    let mut temporaries = 0;
    crate::array_patterns::desugar(&mut item.block, &mut temporaries);
    crate::slice_writes::array_outputs_assigned(&mut item.block, &item.sig);
    crate::slice_writes::desugar(&mut item.block, &item.sig, &mut temporaries, errors);
    if !mentions_closures_or_iterators(&item.block) {
        crate::tuple_data::desugar(&mut item, &mut temporaries, errors);
        crate::integer_rows::desugar(&mut item, &mut temporaries, errors);
        return item;
    }
    let mut item = desugar_chains(item, errors);
    // Again, for a closure's array pattern (`.map(|&[x, y]| ..)`) that became a `for`'s.
    crate::array_patterns::desugar(&mut item.block, &mut temporaries);
    // After the chains: `r.iter().map(|&(i, v)| ..)` is a `for` over the tuples by then.
    crate::tuple_data::desugar(&mut item, &mut temporaries, errors);
    crate::integer_rows::desugar(&mut item, &mut temporaries, errors);
    item
}

fn desugar_chains(mut item: syn::ItemFn, errors: &mut Errors) -> syn::ItemFn {
    let generic = crate::signature::float_type_params(&item.sig.generics);
    let (zero, one) = match generic.first() {
        Some(t) => (quote!(#t::zero()), quote!(#t::one())),
        None => (quote!(0.0), quote!(1.0)),
    };
    let float = match generic.first() {
        Some(t) => Some(quote!(#t)),
        None => crate::shadow::written_float(&item).map(|f| {
            let f = format_ident!("{}", f);
            quote!(#f)
        }),
    };
    let mut pass = Desugar {
        errors,
        scopes: Vec::new(),
        counter: 0,
        zero,
        one,
        float,
        matrices: matrix_params(&item.sig),
    };
    annotated_integer_sums(&mut item.block);
    pass.visit_block_mut(&mut item.block);
    item
}

/// Input:  `let n: u32 = counts.iter().sum();`
/// Output: `let n: u32 = counts.iter().sum::<u32>();`
///
/// An integer `let` annotation is the type of a bare `.sum()` or `.product()` it binds: the chain's
/// accumulator then starts from the integer `0` (`1`), not from the float zero that `f64` sums start from.
fn annotated_integer_sums(block: &mut syn::Block) {
    struct Annotate;
    impl VisitMut for Annotate {
        fn visit_local_mut(&mut self, local: &mut syn::Local) {
            if let (Pat::Type(typed), Some(init)) = (&local.pat, &mut local.init) {
                let integer = matches!(&*typed.ty, syn::Type::Path(p)
                if p.qself.is_none() && p.path.get_ident().is_some_and(|i| {
                    crate::shadow::INTEGERS.iter().any(|n| i == n)
                }));
                if let (true, Expr::MethodCall(m)) = (integer, &mut *init.expr) {
                    if (m.method == "sum" || m.method == "product")
                        && m.args.is_empty()
                        && m.turbofish.is_none()
                    {
                        let ty = &typed.ty;
                        m.turbofish = Some(syn::parse_quote!(::<#ty>));
                    }
                }
            }
            visit_mut::visit_local_mut(self, local);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    Annotate.visit_block_mut(block);
}

/// Does the body contain a closure or a method that starts an iterator chain? (Most bodies do not, and are
/// returned untouched.)
fn mentions_closures_or_iterators(block: &syn::Block) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            match expr {
                Expr::Closure(_) => self.0 = true,
                Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                    if let Some(args) = vec_args(&m.mac) {
                        for arg in args.exprs() {
                            self.visit_expr(arg);
                        }
                    }
                }
                Expr::MethodCall(m)
                    if TERMINALS.contains(&m.method.to_string().as_str())
                        || STAGES.contains(&m.method.to_string().as_str())
                        || WINDOWS.contains(&m.method.to_string().as_str())
                        || m.method == "chain" =>
                {
                    self.0 = true
                }
                // `for &c in COEFFS.iter()`: read by index (`constant_source`).
                Expr::ForLoop(f) if constant_source(&f.expr).is_some() => self.0 = true,
                _ => syn::visit::visit_expr(self, expr),
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(false);
    finder.visit_block(block);
    finder.0
}

/// The arguments of `vec![value; len]` or `vec![a, b, ..]`, parsed as expressions.
enum VecArgs {
    Repeat(Box<Expr>, Box<Expr>),
    Elements(syn::punctuated::Punctuated<Expr, syn::Token![,]>),
}

impl VecArgs {
    fn exprs(&self) -> Vec<&Expr> {
        match self {
            VecArgs::Repeat(value, len) => vec![value, len],
            VecArgs::Elements(items) => items.iter().collect(),
        }
    }

    fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            VecArgs::Repeat(value, len) => vec![value, len],
            VecArgs::Elements(items) => items.iter_mut().collect(),
        }
    }

    fn into_tokens(self) -> TokenStream {
        match self {
            VecArgs::Repeat(value, len) => quote!(#value; #len),
            VecArgs::Elements(items) => items.to_token_stream(),
        }
    }
}

/// Applies `visit` to each argument of a `vec![..]` macro (`vec![value; len]`, `vec![a, b]`), which `syn`'s
/// visitors leave as tokens.
pub(crate) fn rewrite_vec_args(mac: &mut syn::Macro, mut visit: impl FnMut(&mut Expr)) {
    if let Some(mut args) = vec_args(mac) {
        for arg in args.exprs_mut() {
            visit(arg);
        }
        mac.tokens = args.into_tokens();
    }
}

/// The arguments of a `vec![..]` macro as expressions (none if they do not parse as such).
pub(crate) fn vec_arg_exprs(mac: &syn::Macro) -> Vec<Expr> {
    vec_args(mac)
        .map(|args| args.exprs().into_iter().cloned().collect())
        .unwrap_or_default()
}

/// The arguments of a `vec!` macro, or `None` if they do not parse as expressions.
fn vec_args(mac: &syn::Macro) -> Option<VecArgs> {
    mac.parse_body_with(|input: syn::parse::ParseStream| {
        if input.is_empty() {
            return Ok(VecArgs::Elements(syn::punctuated::Punctuated::new()));
        }
        let first: Expr = input.parse()?;
        if input.peek(syn::Token![;]) {
            input.parse::<syn::Token![;]>()?;
            let len: Expr = input.parse()?;
            return Ok(VecArgs::Repeat(Box::new(first), Box::new(len)));
        }
        let mut items = syn::punctuated::Punctuated::new();
        items.push_value(first);
        while input.peek(syn::Token![,]) {
            items.push_punct(input.parse()?);
            if input.is_empty() {
                break;
            }
            items.push_value(input.parse()?);
        }
        Ok(VecArgs::Elements(items))
    })
    .ok()
}

/// What ends a chain, giving its value.
const TERMINALS: &[&str] = &["sum", "product", "fold", "collect", "count", "any", "all"];
/// What a chain may apply to each element after its source.
const STAGES: &[&str] = &["map", "copied", "cloned", "filter", "skip", "take"];
/// What a chain's source may be built from (the iteration a `for` handles).
const SOURCES: &[&str] = &["iter", "into_iter", "enumerate", "zip", "rev", "step_by"];
/// What a chain may start from besides a slice's `.iter()` and a range: a slice's windows or chunks.
const WINDOWS: &[&str] = &["windows", "chunks", "chunks_exact"];

const CHAIN_HINT: &str = "a differentiable iterator chain is a slice's `.iter()` (maybe with `.skip(n)` and \
                          `.take(n)`), a range, or a slice's `.windows(k)`, `.chunks(k)` or `.chunks_exact(k)`, \
                          maybe with `.enumerate()`, `.zip(..)` or `.rev()` (or two such joined by `.chain(..)`), \
                          then `.map(..)`, `.filter(..)`, \
                          `.skip(n)`, `.take(n)`, `.step_by(k)`, `.enumerate()`, `.copied()` or `.cloned()` (and \
                          `.rev()` after `.map(..)` and `.filter(..)`, `.zip(..)` after `.map(..)` or `.filter(..)`), ending in \
                          `.sum()`, `.product()`, \
                          `.fold(init, |acc, x| ..)`, `.count()`, `.any(|x| ..)`, `.all(|x| ..)` or \
                          `.collect::<Vec<_>>()`, or unwrapped (`.unwrap()`, `.expect(\"..\")`, `.unwrap_or(d)`) \
                          in `.position(|x| ..)`, `.find_map(|x| if .. { Some(..) } else { None })` or, after \
                          `.map(..)`, `.copied()` or `.cloned()`, in `.reduce(f)`, `.max_by(cmp)`, `.min_by(cmp)`, \
                          `.last()`, `.next_back()`, `.next()`, `.nth(k)` or `.find(|x| ..)`";

/// A closure bound by `let name = |..| ..;`, or a `let` that shadows the name of one.
enum Entry {
    Closure(Box<LocalClosure>),
    Shadowed(String),
}

struct LocalClosure {
    name: String,
    closure: syn::ExprClosure,
    /// The names its body reads from around it.
    captures: FastSet<String>,
    /// A captured name bound or assigned again after the closure was made: inlining the body at a later
    /// call would read the new value.
    stale: Option<String>,
    /// The types its parameters are declared with (`written_types`).
    param_types: Vec<Option<syn::Type>>,
}

struct Desugar<'e> {
    errors: &'e mut Errors,
    scopes: Vec<Vec<Entry>>,
    counter: usize,
    zero: TokenStream,
    one: TokenStream,
    /// The function's float type (its type parameter, or the one float type its signature names), if
    /// known: the type of an accumulator that holds its elements.
    float: Option<TokenStream>,
    /// The parameters that are matrices (`&[Vec<T>]`, `[[T; M]; N]`, ..): a chain over one of them yields
    /// rows, which its loop binds by reference (`Shape::Row`).
    matrices: FastSet<String>,
}

// Input:  fn f(w: &[f64], xs: &[Vec<f64>], m: [[f64; 2]; 3], n: usize)
// Output: {"xs", "m"}
/// The names of the parameters of `sig` whose type, behind any references, is a slice, array or `Vec` of
/// slices, arrays or `Vec`s: their elements are rows.
fn matrix_params(sig: &syn::Signature) -> FastSet<String> {
    fn unref(ty: &syn::Type) -> &syn::Type {
        match ty {
            syn::Type::Reference(r) => unref(&r.elem),
            syn::Type::Paren(p) => unref(&p.elem),
            ty => ty,
        }
    }
    fn element(ty: &syn::Type) -> Option<&syn::Type> {
        match unref(ty) {
            syn::Type::Slice(s) => Some(&s.elem),
            syn::Type::Array(a) => Some(&a.elem),
            syn::Type::Path(p) => {
                let last = p.path.segments.last()?;
                match &last.arguments {
                    syn::PathArguments::AngleBracketed(args) if last.ident == "Vec" => {
                        args.args.iter().find_map(|a| match a {
                            syn::GenericArgument::Type(t) => Some(t),
                            _ => None,
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
    let mut names = FastSet::default();
    for input in &sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            if let Pat::Ident(p) = &*t.pat {
                if element(&t.ty).and_then(element).is_some() {
                    names.insert(p.ident.to_string());
                }
            }
        }
    }
    names
}

/// What a chain applies to each element: a closure's parameter pattern and body, or a function's path.
enum Func {
    Closure(syn::ExprClosure),
    Path(syn::ExprPath),
}

/// The value of the current element, while a chain's loop body is built.
enum Current {
    /// Not bound yet: the `for` pattern is still to choose.
    Element,
    Value(Expr),
}

/// A loop body under construction: the `for` pattern and the statements before the accumulation.
struct Body {
    pattern: Option<Pat>,
    stmts: Vec<syn::Stmt>,
    current: Current,
    /// What runs before the loop (the counters of `.skip(n)` and `.take(n)`).
    prelude: Vec<syn::Stmt>,
    /// The tests of `.filter(..)`, `.skip(n)` and `.take(n)`, each with the statements before it: what
    /// follows a test runs under `if`.
    guards: Vec<(Vec<syn::Stmt>, Expr)>,
    /// The items a `.zip(b)` stage reads by position (`b[__position]`), as tokens: borrowed where a `let`
    /// binds one to a name used as an array (`borrow_rows`).
    zip_items: Vec<String>,
}

impl Body {
    fn new() -> Body {
        Body {
            pattern: None,
            stmts: Vec::new(),
            current: Current::Element,
            prelude: Vec::new(),
            guards: Vec::new(),
            zip_items: Vec::new(),
        }
    }

    /// A body whose element is `value` (a window of a slice) and whose `for` binds `index`.
    fn over(index: &syn::Ident, value: Expr) -> Body {
        Body {
            pattern: Some(syn::parse_quote!(#index)),
            current: Current::Value(value),
            ..Body::new()
        }
    }

    /// The current element as an expression, the `for` pattern bound to `pattern` (fresh names shaped like
    /// the source's elements) if it is not bound yet.
    fn element(&mut self, pattern: Pat, value: Expr) -> Expr {
        match &self.current {
            Current::Value(value) => value.clone(),
            Current::Element => {
                self.pattern = Some(pattern);
                self.current = Current::Value(value.clone());
                value
            }
        }
    }

    /// What follows runs only where `test` holds.
    fn guard(&mut self, test: Expr) {
        let before = std::mem::take(&mut self.stmts);
        self.guards.push((before, test));
    }

    /// `.filter(keep)`: `keep`'s body, with its parameter bound to the element, tests each element.
    fn filter(&mut self, keep: &syn::ExprClosure, element: Expr, kept: &syn::Ident) {
        let test = &keep.body;
        let test: Expr = match keep.inputs.first() {
            Some(pat) => {
                let pat = plain_pattern(pat);
                syn::parse_quote!({ let #pat = #element; #test })
            }
            None => (**test).clone(),
        };
        self.stmts.push(syn::parse_quote!(let #kept: bool = #test;));
        self.guard(syn::parse_quote!(#kept));
    }

    /// `.skip(n)`, `.take(n)` or `.step_by(n)`: a counter of the elements that reach this stage, declared
    /// before the loop, and a test of its value (`.step_by(0)` panics as the iterator's does, dividing by
    /// zero).
    fn count(&mut self, n: &Expr, counted: Counted, counter: &syn::Ident, position: &syn::Ident) {
        self.prelude
            .push(syn::parse_quote!(let mut #counter: usize = 0;));
        self.stmts
            .push(syn::parse_quote!(let #position = #counter;));
        self.stmts.push(syn::parse_quote!(#counter += 1;));
        self.guard(match counted {
            Counted::Skip => syn::parse_quote!(#position >= #n),
            Counted::Take => syn::parse_quote!(#position < #n),
            Counted::Step => syn::parse_quote!(#position % #n == 0),
            Counted::At => syn::parse_quote!(#position == #n),
        });
    }

    /// The statements of the loop body: those of each stage, with `tail` innermost, under the guards.
    fn nest(stmts: Vec<syn::Stmt>, guards: Vec<(Vec<syn::Stmt>, Expr)>) -> Vec<syn::Stmt> {
        guards
            .into_iter()
            .rev()
            .fold(stmts, |inner, (mut before, test)| {
                before.push(syn::parse_quote!(if #test { #(#inner)* }));
                before
            })
    }

    /// Binds the current element to `pat` (the `for` pattern, or a `let`).
    fn bind(&mut self, pat: Pat) {
        match std::mem::replace(&mut self.current, Current::Element) {
            Current::Element => self.pattern = Some(pat),
            Current::Value(value) => self.stmts.push(syn::parse_quote!(let #pat = #value;)),
        }
    }

    /// The current element as an expression.
    fn value(&mut self, fresh: &syn::Ident) -> Expr {
        match &self.current {
            Current::Value(value) => value.clone(),
            Current::Element => {
                self.pattern = Some(syn::parse_quote!(#fresh));
                syn::parse_quote!(#fresh)
            }
        }
    }

    /// Applies a function to the current element.
    fn apply(&mut self, func: &Func, fresh: &syn::Ident) {
        let value = match func {
            Func::Closure(c) => {
                match c.inputs.first() {
                    Some(pat) => self.bind(plain_pattern(pat)),
                    None => {
                        self.value(fresh);
                    }
                }
                (*c.body).clone()
            }
            Func::Path(path) => {
                let arg = self.value(fresh);
                syn::parse_quote!(#path(#arg))
            }
        };
        self.current = Current::Value(paren(value));
    }

    /// `prelude; for pattern in source { stmts; tail }`, and for `a.chain(b)` a second loop over `b`'s
    /// source with the same body (the counters of the prelude go on counting).
    fn into_loop(
        self,
        chain: &Chain,
        tail: Vec<syn::Stmt>,
        fresh: &syn::Ident,
        matrices: &FastSet<String>,
    ) -> (Vec<syn::Stmt>, Expr) {
        let source = &chain.source;
        let pattern = self.pattern.unwrap_or_else(|| syn::parse_quote!(#fresh));
        let stmts: Vec<syn::Stmt> = self.stmts.into_iter().chain(tail).collect();
        let mut stmts = Body::nest(stmts, self.guards);
        let arrays = array_names(&stmts);
        borrow_rows(&mut stmts, &self.zip_items, &arrays);
        let first = by_reference(pattern.clone(), &element_shape(source, matrices), &arrays);
        let looped = match &chain.then {
            None => syn::parse_quote!(for #first in #source { #(#stmts)* }),
            Some(then) => {
                let second = by_reference(pattern, &element_shape(then, matrices), &arrays);
                syn::parse_quote!({
                    for #first in #source { #(#stmts)* }
                    for #second in #then { #(#stmts)* }
                })
            }
        };
        (self.prelude, looped)
    }
}

// Input:  x.iter().enumerate().find_map(|(i, v)| if *v > t { Some(i + 1) } else { None })
// Output: true
/// Is the value of a `.find_map(..)` closure (its parameter `param`, over `chain`'s elements) surely an
/// integer: an integer literal or cast, a `.len()` or `.count()`, a name the parameter binds to a count
/// (`.enumerate()`'s, a range's index) where no `.map(..)` or `.zip(..)` changed the elements, or
/// arithmetic of those?
fn integer_value(param: &Pat, chain: &Chain, value: &Expr) -> bool {
    fn counts(pat: &Pat, shape: &Shape, names: &mut FastSet<String>) {
        match (pat, shape) {
            (Pat::Tuple(p), Shape::Pair(a, b)) if p.elems.len() == 2 => {
                counts(&p.elems[0], a, names);
                counts(&p.elems[1], b, names);
            }
            (Pat::Ident(p), Shape::Value) => {
                names.insert(p.ident.to_string());
            }
            _ => {}
        }
    }
    fn integer(e: &Expr, names: &FastSet<String>) -> bool {
        match strip_parens(e) {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => !matches!(i.suffix(), "f32" | "f64"),
            Expr::Cast(c) => integer_type(&c.ty),
            Expr::MethodCall(m) => m.args.is_empty() && (m.method == "len" || m.method == "count"),
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| names.contains(&i.to_string())),
            Expr::Binary(b) => {
                use syn::BinOp::*;
                matches!(b.op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_))
                    && integer(&b.left, names)
                    && integer(&b.right, names)
            }
            _ => false,
        }
    }
    let mut names = FastSet::default();
    if chain.window.is_none()
        && chain.then.is_none()
        && !chain
            .stages
            .iter()
            .any(|s| matches!(s, Stage::Map(_) | Stage::Zip(..)))
    {
        // Rows and elements count nothing alike: the matrices need not be known.
        let mut shape = element_shape(&chain.source, &FastSet::default());
        for stage in &chain.stages {
            if matches!(stage, Stage::Enumerate) {
                shape = Shape::Pair(Box::new(Shape::Value), Box::new(shape));
            }
        }
        counts(&plain_pattern(param), &shape, &mut names);
    }
    integer(value, &names)
}

// Input:  { let w = v * 2.0; if w > 1.0 { None } else { Some(w.ln()) } }
// Output: ([let w = v * 2.0;], !(w > 1.0), w.ln())
/// The body of a `.find_map(..)` closure as the statements before its `if`, the test under which it gives
/// `Some(value)`, and the value; `None` for any other shape (an `else if`, two `Some`s, a `match`).
fn some_or_none(body: &Expr) -> Option<(Vec<syn::Stmt>, Expr, Expr)> {
    let (before, last): (Vec<syn::Stmt>, &Expr) = match strip_parens(body) {
        Expr::Block(b) if b.label.is_none() => match b.block.stmts.split_last() {
            Some((syn::Stmt::Expr(last, None), before)) => (before.to_vec(), last),
            _ => return None,
        },
        other => (Vec::new(), other),
    };
    let Expr::If(i) = strip_parens(last) else {
        return None;
    };
    if matches!(&*i.cond, Expr::Let(_)) {
        return None;
    }
    // `Some(value)` or `None` as a branch's whole block (or an `else`'s block).
    fn branch(block: &syn::Block) -> Option<Option<Expr>> {
        let [syn::Stmt::Expr(e, None)] = block.stmts.as_slice() else {
            return None;
        };
        match strip_parens(e) {
            Expr::Path(p) if p.qself.is_none() && p.path.is_ident("None") => Some(None),
            Expr::Call(c) if c.args.len() == 1 => match strip_parens(&c.func) {
                Expr::Path(p) if p.qself.is_none() && p.path.is_ident("Some") => {
                    Some(Some(c.args[0].clone()))
                }
                _ => None,
            },
            _ => None,
        }
    }
    let Some((_, otherwise)) = &i.else_branch else {
        return None;
    };
    let Expr::Block(otherwise) = &**otherwise else {
        return None;
    };
    let cond = &i.cond;
    match (branch(&i.then_branch)?, branch(&otherwise.block)?) {
        (Some(value), None) => Some((before, (**cond).clone(), value)),
        (None, Some(value)) => Some((before, syn::parse_quote!(!(#cond)), value)),
        _ => None,
    }
}

/// Which elements a counting stage keeps.
#[derive(Clone, Copy)]
enum Counted {
    /// `.skip(n)`: those from the `n`-th on.
    Skip,
    /// `.take(n)`: those before the `n`-th.
    Take,
    /// `.step_by(k)`: every `k`-th, from the first.
    Step,
    /// `.nth(k)`: the `k`-th alone.
    At,
}

impl From<bool> for Counted {
    /// `true` for `.skip(n)`, `false` for `.take(n)`.
    fn from(skip: bool) -> Self {
        if skip {
            Counted::Skip
        } else {
            Counted::Take
        }
    }
}

/// What a `for` over a chain's source binds: a value (an index of a range), a reference (an element of a
/// slice), a row of a matrix parameter (a reference the body lends on), or a pair (`.enumerate()`,
/// `.zip(..)`).
enum Shape {
    Value,
    Ref,
    Row,
    Pair(Box<Shape>, Box<Shape>),
}

/// The shape of the items of `source`, whose rows are those of `matrices` (parameter names).
fn element_shape(source: &Expr, matrices: &FastSet<String>) -> Shape {
    let rows_of = |e: &Expr| {
        let e = match strip_parens(e) {
            Expr::Reference(r) => strip_parens(&r.expr),
            e => e,
        };
        matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| matrices.contains(&i.to_string())))
    };
    match strip_parens(source) {
        Expr::MethodCall(m) => match m.method.to_string().as_str() {
            "iter" if rows_of(&m.receiver) => Shape::Row,
            "iter" => Shape::Ref,
            "enumerate" => Shape::Pair(
                Box::new(Shape::Value),
                Box::new(element_shape(&m.receiver, matrices)),
            ),
            "zip" => Shape::Pair(
                Box::new(element_shape(&m.receiver, matrices)),
                Box::new(
                    m.args
                        .first()
                        .map_or(Shape::Ref, |a| element_shape(a, matrices)),
                ),
            ),
            _ => element_shape(&m.receiver, matrices),
        },
        Expr::Range(_) => Shape::Value,
        e if rows_of(e) => Shape::Row,
        _ => Shape::Ref,
    }
}

/// The closures' parameters bind values (their `&` patterns were dropped, and so are the derefs of them in
/// the bodies): the `for` pattern takes the references of a slice's elements apart again (`&x`), so that
/// the rewritten body is also Rust that type-checks on any float type (the generic shadow of `order = K`).
/// An element the body uses as an array (`row.iter()`, `row[j]`: a row of a matrix) stays a reference.
fn by_reference(pat: Pat, shape: &Shape, arrays: &FastSet<String>) -> Pat {
    match (pat, shape) {
        (Pat::Ident(p), Shape::Ref) if arrays.contains(&p.ident.to_string()) => Pat::Ident(p),
        // A row stays a reference, whatever the body does with it (lends it to a call, `f(w, row)`).
        (pat @ Pat::Ident(_), Shape::Row) => pat,
        (pat @ (Pat::Ident(_) | Pat::Wild(_)), Shape::Ref) => syn::parse_quote!(&#pat),
        (Pat::Tuple(mut t), Shape::Pair(a, b)) if t.elems.len() == 2 => {
            let elems: Vec<Pat> = std::mem::take(&mut t.elems).into_iter().collect();
            let mut elems = elems.into_iter();
            let (first, second) = (elems.next(), elems.next());
            if let (Some(first), Some(second)) = (first, second) {
                t.elems.push(by_reference(first, a, arrays));
                t.elems.push(by_reference(second, b, arrays));
            }
            Pat::Tuple(t)
        }
        (pat, _) => pat,
    }
}

// Input:  let (a, r) = (__element, m[__position]);   (`r[0]` read after it)
// Output: let (a, r) = (__element, &m[__position]);
/// `stmts` with each `let` that binds an item of a `.zip(b)` stage (`items`, as tokens) to a name used as
/// an array (a row of a matrix, which a `let` would move out of its slice) binding a reference to it, as
/// `by_reference` leaves such a `for` pattern a reference.
fn borrow_rows(stmts: &mut [syn::Stmt], items: &[String], arrays: &FastSet<String>) {
    struct Borrow<'a> {
        items: &'a [String],
        arrays: &'a FastSet<String>,
    }
    impl Borrow<'_> {
        fn bind(&self, pat: &Pat, expr: &mut Expr) {
            match (pat, expr) {
                (Pat::Tuple(p), Expr::Tuple(e)) if p.elems.len() == e.elems.len() => {
                    for (p, e) in p.elems.iter().zip(e.elems.iter_mut()) {
                        self.bind(p, e);
                    }
                }
                (Pat::Ident(p), e)
                    if self.arrays.contains(&p.ident.to_string())
                        && self.items.contains(&e.to_token_stream().to_string()) =>
                {
                    *e = syn::parse_quote!(&#e);
                }
                _ => {}
            }
        }
    }
    impl VisitMut for Borrow<'_> {
        fn visit_local_mut(&mut self, local: &mut syn::Local) {
            if let Some(init) = &mut local.init {
                self.bind(&local.pat, &mut init.expr);
            }
            visit_mut::visit_local_mut(self, local);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    if items.is_empty() {
        return;
    }
    let mut borrow = Borrow { items, arrays };
    for stmt in stmts {
        borrow.visit_stmt_mut(stmt);
    }
}

/// The names `stmts` use as arrays: indexed, measured, iterated or borrowed.
fn array_names(stmts: &[syn::Stmt]) -> FastSet<String> {
    struct Uses(FastSet<String>);
    fn name(expr: &Expr) -> Option<String> {
        match strip_parens(expr) {
            Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
            _ => None,
        }
    }
    impl<'ast> Visit<'ast> for Uses {
        fn visit_expr(&mut self, expr: &'ast Expr) {
            let used = match expr {
                Expr::Index(e) => name(&e.expr),
                Expr::Reference(r) => name(&r.expr),
                Expr::MethodCall(m)
                    if matches!(
                        m.method.to_string().as_str(),
                        "iter" | "into_iter" | "len" | "to_vec"
                    ) =>
                {
                    name(&m.receiver)
                }
                Expr::ForLoop(f) => name(&f.expr),
                _ => None,
            };
            self.0.extend(used);
            syn::visit::visit_expr(self, expr);
        }
    }
    let mut uses = Uses(FastSet::default());
    for stmt in stmts {
        uses.visit_stmt(stmt);
    }
    uses.0
}

/// `body` with the derefs of `params` (`*v` for a parameter `v` bound to a reference) dropped.
fn without_derefs(body: &Expr, params: &[String]) -> Expr {
    struct Derefs<'p>(&'p [String]);
    impl VisitMut for Derefs<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            if let Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(_),
                expr: inner,
                ..
            }) = expr
            {
                // `**v` for a `.filter(..)` parameter bound to a reference to a reference.
                let mut inner: &Expr = inner;
                while let Expr::Unary(syn::ExprUnary {
                    op: syn::UnOp::Deref(_),
                    expr: deeper,
                    ..
                }) = strip_parens(inner)
                {
                    inner = deeper;
                }
                if let Expr::Path(p) = strip_parens(inner) {
                    if p.path
                        .get_ident()
                        .is_some_and(|i| self.0.contains(&i.to_string()))
                    {
                        *expr = Expr::Path(p.clone());
                        return;
                    }
                }
            }
            visit_mut::visit_expr_mut(self, expr);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut body = body.clone();
    Derefs(params).visit_expr_mut(&mut body);
    body
}

/// A closure whose parameters bind values: patterns without `&` and types, bodies without their derefs.
pub(crate) fn by_value(closure: &syn::ExprClosure) -> syn::ExprClosure {
    let mut closure = closure.clone();
    let mut params = Vec::new();
    for input in closure.inputs.iter_mut() {
        *input = plain_pattern(input);
        params.extend(crate::bindings::bound_names(input));
    }
    *closure.body = without_derefs(&closure.body, &params);
    closure
}

fn paren(expr: Expr) -> Expr {
    match expr {
        Expr::Path(_) | Expr::Lit(_) | Expr::Paren(_) | Expr::Block(_) => expr,
        other => syn::parse_quote!((#other)),
    }
}

/// The type each parameter of `closure` is declared with where it binds a name by value (`a: f64`, not
/// `&v: &f64` or `v: &f64`, whose values the desugared code binds): the `let` that binds the parameter keeps
/// it, so that an argument or an initial value of literals (`0.0`) has the type the closure gives it.
fn written_types(closure: &syn::ExprClosure) -> Vec<Option<syn::Type>> {
    closure
        .inputs
        .iter()
        .map(|input| match input {
            Pat::Type(typed)
                if matches!(&*typed.pat, Pat::Ident(p) if p.by_ref.is_none())
                    && !matches!(&*typed.ty, syn::Type::Reference(_)) =>
            {
                Some((*typed.ty).clone())
            }
            _ => None,
        })
        .collect()
}

/// A closure parameter's pattern as a `let` or `for` pattern: type annotations and `&` dropped (the
/// element of a slice is its value to the macro).
fn plain_pattern(pat: &Pat) -> Pat {
    match pat {
        Pat::Type(t) => plain_pattern(&t.pat),
        Pat::Reference(r) => plain_pattern(&r.pat),
        Pat::Paren(p) => plain_pattern(&p.pat),
        Pat::Tuple(t) => {
            let mut t = t.clone();
            for elem in t.elems.iter_mut() {
                *elem = plain_pattern(elem);
            }
            Pat::Tuple(t)
        }
        other => other.clone(),
    }
}

fn strip_parens(mut expr: &Expr) -> &Expr {
    while let Expr::Paren(p) = expr {
        expr = &p.expr;
    }
    expr
}

/// The names a statement binds (anywhere in it) or assigns.
fn rebound_names(stmt: &syn::Stmt) -> Vec<String> {
    struct Rebound(Vec<String>);
    impl<'ast> Visit<'ast> for Rebound {
        fn visit_pat(&mut self, pat: &'ast Pat) {
            self.0.extend(crate::bindings::bound_names(pat));
        }
        fn visit_expr(&mut self, expr: &'ast Expr) {
            let target = match expr {
                Expr::Assign(a) => Some(&*a.left),
                Expr::Binary(b) if compound(&b.op) => Some(&*b.left),
                _ => None,
            };
            if let Some(Expr::Path(p)) = target.map(strip_parens) {
                if let Some(ident) = p.path.get_ident() {
                    self.0.push(ident.to_string());
                }
            }
            syn::visit::visit_expr(self, expr);
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut rebound = Rebound(Vec::new());
    rebound.visit_stmt(stmt);
    rebound.0
}

fn compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_)
    )
}

/// The single-segment names a closure body reads, less its parameters.
fn captures_of(closure: &syn::ExprClosure) -> FastSet<String> {
    struct Paths(FastSet<String>);
    impl<'ast> Visit<'ast> for Paths {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(ident) = p.path.get_ident() {
                self.0.insert(ident.to_string());
            }
        }
    }
    let mut paths = Paths(FastSet::default());
    paths.visit_expr(&closure.body);
    let mut params = Vec::new();
    for input in &closure.inputs {
        params.extend(crate::bindings::bound_names(input));
    }
    for param in params {
        paths.0.remove(&param);
    }
    paths.0
}

/// Does the closure body `return` (from the closure, which inlining would turn into a return of the
/// function)?
fn returns(body: &Expr) -> Option<Span> {
    struct Finder(Option<Span>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
            self.0.get_or_insert(r.span());
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(None);
    finder.visit_expr(body);
    finder.0
}

/// A parsed chain: its source (what a `for` iterates), its stages, and its terminal call.
struct Chain {
    source: Expr,
    /// The source of `a.chain(b)` after `a`'s (`b`, iterated by a second loop with the same body).
    then: Option<Expr>,
    stages: Vec<Stage>,
    /// For a chain over `.windows(k)` or `.chunks(k)` of a slice, whose source is a range of window
    /// indexes: the index and the window (a sub-slice) it gives.
    window: Option<(syn::Ident, Expr)>,
}

/// What a chain does to each element after its source.
enum Stage {
    /// `.map(f)`.
    Map(Func),
    /// `.filter(|x| ..)`.
    Filter(syn::ExprClosure),
    /// `.skip(n)` (`true`) or `.take(n)`.
    Count(Expr, bool),
    /// `.step_by(k)` after another stage: every `k`-th element that reaches it, the first included.
    Step(Expr),
    /// `.enumerate()` after another stage: each element that reaches it, paired with their count so far.
    Enumerate,
    /// `.zip(b)` after a `.filter(..)` (or another stage that `zip_hoisted` does not move): each element that
    /// reaches it, paired with `b`'s next item; the chain ends where `b` has none left. The functions are
    /// the `.map(..)`s of `b` (`w.iter().map(|u| u * 2.0)`), applied in turn to its item.
    Zip(Box<Zipped>, Vec<Func>),
}

/// The other side of a `.zip(b)` stage, read by a position: a slice's items (`b[offset + k]`, `k < len`)
/// or a range's (`lo + k`, counted up from `lo` while below `hi`).
enum Zipped {
    Slice {
        base: Expr,
        offset: Option<Expr>,
        len: Expr,
    },
    Range {
        lo: Expr,
        hi: Expr,
    },
}

/// Is `expr` an iterator source that a `for` iterates by index, with no stage in it: a range, a slice's
/// `.iter()` (maybe sub-sliced by `.skip(n)` and `.take(n)`), and `.enumerate()`, `.zip(..)`, `.rev()`
/// and `.step_by(k)` of those?
fn plain_source(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Range(_) => true,
        e if sliceable(e) => true,
        Expr::MethodCall(m) => match (m.method.to_string().as_str(), m.args.len()) {
            ("iter" | "into_iter", 0) => !is_iterator_source(&m.receiver),
            ("enumerate" | "rev", 0) | ("step_by", 1) => plain_source(&m.receiver),
            ("zip", 1) => plain_source(&m.receiver) && plain_source(&m.args[0]),
            _ => false,
        },
        _ => false,
    }
}

/// Are the items of the iterator `expr` values (not references into a slice): after `.map(..)`,
/// `.copied()` or `.cloned()`, maybe followed by stages that keep items as they are (`.filter(..)`,
/// `.skip(n)`, `.take(n)`, `.step_by(k)`, `.rev()`)?
fn yields_values(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::MethodCall(m) => match (m.method.to_string().as_str(), m.args.len()) {
            ("map", 1) | ("copied" | "cloned", 0) => true,
            ("filter" | "skip" | "take" | "step_by", 1) | ("rev", 0) => yields_values(&m.receiver),
            // `a.copied().chain(b.copied())`.
            ("chain", 1) => yields_values(&m.receiver),
            _ => false,
        },
        _ => false,
    }
}

// Input:  x.iter().map(|v| v * 2.0).zip(y.iter())
// Output: x.iter().zip(y.iter()).map(|(__zipped_a, __zipped_b)| ({ let v = __zipped_a; v * 2.0 }, __zipped_b))
/// The iterator `expr` with a `.zip(b)` that follows `.map(..)` stages (and `.copied()`, `.cloned()`) moved
/// onto their source, each map applied to the first of the pair: the same pairs, as each element of the
/// source meets the same element of `b`. `None` where there is no such `.zip(..)`, or a stage before it
/// would change which elements meet (`.filter(..)`, `.skip(n)`, ..).
fn zip_hoisted(expr: &Expr) -> Option<Expr> {
    let Expr::MethodCall(m) = strip_parens(expr) else {
        return None;
    };
    if m.method == "zip" && m.args.len() == 1 && m.turbofish.is_none() {
        // The maps between the source and the `.zip(..)`, innermost last.
        let mut maps = Vec::new();
        let mut inner = strip_parens(&m.receiver);
        while let Expr::MethodCall(stage) = inner {
            match (stage.method.to_string().as_str(), stage.args.len()) {
                ("map", 1) => maps.push(&stage.args[0]),
                ("copied" | "cloned", 0) => {}
                _ => break,
            }
            inner = strip_parens(&stage.receiver);
        }
        if maps.is_empty() || !is_iterator_source(inner) || mapped_or_filtered(inner) {
            return None;
        }
        let a = syn::Ident::new("__zipped_a", Span::mixed_site());
        let b = syn::Ident::new("__zipped_b", Span::mixed_site());
        let mut first: Expr = syn::parse_quote!(#a);
        for f in maps.into_iter().rev() {
            first = match strip_parens(f) {
                Expr::Closure(c) if c.inputs.len() == 1 => {
                    let c = by_value(c);
                    let (pat, body) = (&c.inputs[0], &c.body);
                    syn::parse_quote!({ let #pat = #first; #body })
                }
                Expr::Path(path) => syn::parse_quote!(#path(#first)),
                // A local closure's name or another function: left to the chain's own error.
                _ => return None,
            };
        }
        let other = &m.args[0];
        return Some(syn::parse_quote!(
            #inner.zip(#other).map(|(#a, #b)| (#first, #b))
        ));
    }
    // A `.zip(..)` further in: rebuilt around the hoisted receiver.
    let hoisted = zip_hoisted(&m.receiver)?;
    let mut outer = m.clone();
    *outer.receiver = hoisted;
    Some(Expr::MethodCall(outer))
}

// Input:  x.iter().chain(y.iter()).map(|v| v * v).rev()
// Output: y.iter().rev().chain(x.iter().rev()).map(|v| v * v)
/// The iterator `expr` with a `.rev()` of `a.chain(b)` (maybe after `.map(..)`, `.filter(..)`,
/// `.copied()` and `.cloned()`, which neither count nor keep state) moved onto the two sources: `Chain`'s
/// `next_back` takes `b`'s items from the back, then `a`'s, so the same elements meet the same closures in
/// the same order. `None` where there is no such `.rev()`.
fn chain_reversed(expr: &Expr) -> Option<Expr> {
    let Expr::MethodCall(m) = strip_parens(expr) else {
        return None;
    };
    if m.method == "rev" && m.args.is_empty() && m.turbofish.is_none() {
        // The stages between the `.chain(..)` and the `.rev()`, innermost last.
        let mut stages = Vec::new();
        let mut inner = strip_parens(&m.receiver);
        while let Expr::MethodCall(stage) = inner {
            match (stage.method.to_string().as_str(), stage.args.len()) {
                ("map" | "filter", 1) | ("copied" | "cloned", 0) => stages.push(stage),
                _ => break,
            }
            inner = strip_parens(&stage.receiver);
        }
        match inner {
            Expr::MethodCall(chain)
                if chain.method == "chain"
                    && chain.args.len() == 1
                    && chain.turbofish.is_none() => {}
            // Not of a chain: a `.rev()` further in, maybe.
            _ => return further_in(m),
        }
        let Expr::MethodCall(chain) = inner else {
            return None;
        };
        // A receiver as it is where `.rev()` binds to it whole (`x.iter()`, `y`), else in parentheses.
        let receiver = |e: &Expr| match strip_parens(e) {
            e @ (Expr::MethodCall(_) | Expr::Path(_) | Expr::Field(_) | Expr::Index(_)) => {
                e.clone()
            }
            e => paren(e.clone()),
        };
        let a = receiver(&chain.receiver);
        let b: Expr = match strip_parens(&chain.args[0]) {
            // `x.iter().chain(&y)`: a slice's items by reference.
            Expr::Reference(r) if r.mutability.is_none() => {
                let y = receiver(&r.expr);
                syn::parse_quote!(#y.iter())
            }
            b => receiver(b),
        };
        // The user's `.rev()` and `.chain(..)` calls, rebuilt around other receivers: their spans kept
        // for any error about the result.
        let rev = |receiver: Expr| {
            let mut rev = m.clone();
            *rev.receiver = receiver;
            Expr::MethodCall(rev)
        };
        let mut joined = chain.clone();
        *joined.receiver = rev(b);
        joined.args = std::iter::once(rev(a)).collect();
        let mut rebuilt = Expr::MethodCall(joined);
        for stage in stages.into_iter().rev() {
            let mut stage = stage.clone();
            *stage.receiver = rebuilt;
            rebuilt = Expr::MethodCall(stage);
        }
        return Some(rebuilt);
    }
    further_in(m)
}

/// `m` rebuilt around its receiver with a `.rev()` of a chain moved (`chain_reversed`), if it has one.
fn further_in(m: &syn::ExprMethodCall) -> Option<Expr> {
    let moved = chain_reversed(&m.receiver)?;
    let mut outer = m.clone();
    *outer.receiver = moved;
    Some(Expr::MethodCall(outer))
}

/// Does the iterator `expr` apply `.map(..)` or `.filter(..)` (so that what follows is a stage, not part of
/// the source a `for` iterates)?
fn mapped_or_filtered(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::MethodCall(m) => {
            (matches!(m.method.to_string().as_str(), "map" | "filter") && m.args.len() == 1)
                || (!matches!(m.method.to_string().as_str(), "iter" | "into_iter")
                    && mapped_or_filtered(&m.receiver))
        }
        _ => false,
    }
}

/// Is `expr` a slice's windows or chunks (`x.windows(k)`, `x.chunks(k)`, `x.chunks_exact(k)`), which a
/// chain starts from? (Not `.enumerate()`d: `((i, c), &w)` would bind the window `c` in a nested tuple,
/// where the lowering does not see it as an array.)
fn windowed(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::MethodCall(m) => {
            WINDOWS.contains(&m.method.to_string().as_str())
                && m.args.len() == 1
                && !is_iterator_source(&m.receiver)
        }
        _ => false,
    }
}

/// The names that `pat` binds to references (`c` of `for c in x.iter()`, `v` of `(i, v)`), not those under
/// a `&` (`&c`), which bind values.
fn bound_by_reference(pat: &Pat) -> Vec<String> {
    match pat {
        Pat::Ident(p) => vec![p.ident.to_string()],
        Pat::Type(t) => bound_by_reference(&t.pat),
        Pat::Paren(p) => bound_by_reference(&p.pat),
        Pat::Tuple(t) => t.elems.iter().flat_map(bound_by_reference).collect(),
        _ => Vec::new(),
    }
}

// Input:  COEFFS.iter()             &COEFFS                   consts::W.iter().enumerate().rev()
// Output: (COEFFS, false, false)    (COEFFS, false, false)    (consts::W, true, true)
/// The array constant a chain or `for` loop iterates (`C.iter()`, `&C`, `C`, maybe `.copied()`, `.rev()`
/// or `.enumerate()`d), named in SCREAMING_CASE, whether it is enumerated and whether reversed. Read by index over
/// `0..C.len()` instead, which is the same iteration of any slice, array or `Vec`: a name taken for a
/// constant wrongly compiles to the same loop (or fails to compile, never a different value).
fn constant_source(expr: &Expr) -> Option<(Expr, bool, bool)> {
    let mut expr = strip_parens(expr);
    let (mut enumerated, mut reversed) = (false, false);
    // `C.iter().enumerate().rev()`: the pairs `(i, C[i])` from the last; not `C.iter().rev().enumerate()`,
    // whose count is no index.
    for (method, flag) in [("rev", &mut reversed), ("enumerate", &mut enumerated)] {
        if let Expr::MethodCall(m) = expr {
            if m.method == method && m.args.is_empty() {
                *flag = true;
                expr = strip_parens(&m.receiver);
            }
        }
    }
    while let Expr::MethodCall(m) = expr {
        match (m.method.to_string().as_str(), m.args.len()) {
            ("copied" | "cloned" | "iter" | "into_iter", 0) => expr = strip_parens(&m.receiver),
            ("rev", 0) if !enumerated => {
                reversed = !reversed;
                expr = strip_parens(&m.receiver);
            }
            _ => return None,
        }
    }
    if let Expr::Reference(r) = expr {
        if r.mutability.is_some() {
            return None;
        }
        expr = strip_parens(&r.expr);
    }
    let Expr::Path(p) = expr else {
        return None;
    };
    let last = p.path.segments.last()?.ident.to_string();
    (crate::shadow::screaming(&last) && p.qself.is_none())
        .then(|| (expr.clone(), enumerated, reversed))
}

/// Is `expr` a place that names a slice without computing it (a variable, a field, an element `m[i]`), so
/// that reading it again at each position reads the same slice?
fn place(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        Expr::Field(f) => place(&f.base),
        Expr::Index(i) => place(&i.expr) && !matches!(strip_parens(&i.index), Expr::Range(_)),
        _ => false,
    }
}

/// Is `expr` a slice's `.iter()`, maybe with `.skip(n)`, `.take(n)`, `.copied()` and `.cloned()` (a
/// sub-slice's `.iter()`)?
fn sliceable(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::MethodCall(m) => match (m.method.to_string().as_str(), m.args.len()) {
            ("iter" | "into_iter", 0) => !is_iterator_source(&m.receiver),
            ("skip" | "take", 1) | ("copied" | "cloned", 0) => sliceable(&m.receiver),
            _ => false,
        },
        _ => false,
    }
}

impl Desugar<'_> {
    fn fresh(&mut self, base: &str) -> syn::Ident {
        self.counter += 1;
        format_ident!("__{}_{}", base, self.counter, span = Span::mixed_site())
    }

    fn lookup(&self, name: &str) -> Option<&LocalClosure> {
        for entry in self.scopes.iter().rev().flat_map(|s| s.iter().rev()) {
            match entry {
                Entry::Closure(c) if c.name == name => return Some(c),
                Entry::Shadowed(n) if n == name => return None,
                _ => {}
            }
        }
        None
    }

    /// A name that the closure `name` reads from where it was made, but that a binding made since and in
    /// scope here hides: the parameter of a later closure whose body calls it.
    ///
    /// Input:  `let f = |x: f64| x * y; let g = |y: f64| f(y) + y;`
    /// Output: `y`: inlined in `g`'s body, `f`'s `y` would be `g`'s parameter, not the `y` it captured.
    fn hidden_capture(&self, name: &str) -> Option<String> {
        let mut hiding = Vec::new();
        for entry in self.scopes.iter().rev().flat_map(|s| s.iter().rev()) {
            match entry {
                Entry::Closure(c) if c.name == name => {
                    return hiding.into_iter().find(|n| c.captures.contains(n));
                }
                Entry::Shadowed(n) if n == name => return None,
                Entry::Shadowed(n) => hiding.push(n.clone()),
                Entry::Closure(_) => {}
            }
        }
        None
    }

    /// The closure `expr` names, or the error that it reads a name rebound or hidden since it was made.
    fn callable(&self, expr: &Expr) -> Option<Result<&LocalClosure, String>> {
        let local = self.closure_named(expr)?;
        let hidden = local
            .stale
            .clone()
            .or_else(|| self.hidden_capture(&local.name));
        Some(match hidden {
            Some(name) => Err(stale_message(&local.name, &name)),
            None => Ok(local),
        })
    }

    fn closure_named(&self, expr: &Expr) -> Option<&LocalClosure> {
        match strip_parens(expr) {
            Expr::Path(p) if p.qself.is_none() => self.lookup(&p.path.get_ident()?.to_string()),
            _ => None,
        }
    }

    /// A placeholder for an expression that was reported, so later passes do not report it again.
    fn poisoned(span: Span) -> Expr {
        let ident = syn::Ident::new(
            "__autodiff_unsupported",
            span.resolved_at(Span::mixed_site()),
        );
        syn::parse_quote!(#ident)
    }

    /// What `.map(..)` or `.fold(.., f)` applies: a closure written there, a local closure, or a function.
    fn func(&mut self, expr: &Expr) -> Option<Func> {
        match self.callable(expr) {
            Some(Ok(local)) => return Some(Func::Closure(local.closure.clone())),
            Some(Err(message)) => {
                self.errors.spanned(expr, message);
                return None;
            }
            None => {}
        }
        match strip_parens(expr) {
            Expr::Closure(c) => {
                if let Some(span) = returns(&c.body) {
                    self.errors.at(span, RETURN_IN_CLOSURE);
                    return None;
                }
                let mut c = by_value(c);
                // Its parameters hide the names they bind, for the closures its body calls.
                let params = c.inputs.iter().flat_map(crate::bindings::bound_names);
                self.scopes.push(params.map(Entry::Shadowed).collect());
                self.visit_expr_mut(&mut c.body);
                self.scopes.pop();
                Some(Func::Closure(c))
            }
            Expr::Path(p) => Some(Func::Path(p.clone())),
            other => {
                self.errors.spanned(
                    other,
                    "pass a closure (`|x| ..`) or a function's path (`f64::sin`) to this adaptor",
                );
                None
            }
        }
    }

    /// Splits `receiver` (what the terminal method is called on) into the source and the stages, or
    /// `None` if it is no iterator chain (a method of some other type).
    fn chain(&mut self, receiver: &Expr) -> Option<Result<Chain, ()>> {
        if let Some(hoisted) = zip_hoisted(receiver) {
            return self.chain(&hoisted);
        }
        if let Some(moved) = chain_reversed(receiver) {
            return self.chain(&moved);
        }
        let mut raw = Vec::new();
        let mut expr = strip_parens(receiver);
        while let Expr::MethodCall(m) = expr {
            let name = m.method.to_string();
            match (name.as_str(), m.args.len()) {
                ("map" | "filter", 1) => raw.push((name, Some(&m.args[0]))),
                // Right after a slice's `.iter()`, the source is a sub-slice (`source`).
                ("skip" | "take", 1) if !sliceable(&m.receiver) => {
                    raw.push((name, Some(&m.args[0])))
                }
                ("copied" | "cloned", 0) => raw.push((name, None)),
                // After a stage (`(0..n).skip(1).step_by(2)`, `x.iter().map(f).step_by(2)`): a stage
                // itself, which keeps every `k`-th element reaching it. Right after a source, the `for`
                // steps through the source's indexes (`x[1..].iter().step_by(2)`).
                ("step_by", 1) if !plain_source(&m.receiver) => raw.push((name, Some(&m.args[0]))),
                // After a stage (`x.iter().map(f).enumerate()`): the count of the elements reaching it.
                ("enumerate", 0) if mapped_or_filtered(&m.receiver) => raw.push((name, None)),
                // After stages that neither count nor keep state (`x.iter().map(f).rev()`): the source
                // reversed, which calls the same closures on the same elements in the other order.
                ("rev", 0) if mapped_or_filtered(&m.receiver) => raw.push((name, None)),
                // After a `.filter(..)` (`zip_hoisted` moved one after maps onto the source): a stage
                // pairing each element that reaches it with `b`'s next item.
                // After a slice's windows or chunks (`x.chunks_exact(k).zip(labels.iter())`): the same
                // stage, each window with `b`'s next item.
                ("zip", 1)
                    if m.turbofish.is_none()
                        && (mapped_or_filtered(&m.receiver) || windowed(&m.receiver)) =>
                {
                    raw.push((name, Some(&m.args[0])))
                }
                _ => break,
            }
            expr = strip_parens(&m.receiver);
        }
        // `.rev()` moves into the source where nothing before it counts elements.
        let mut reversed = false;
        if let Some(at) = raw.iter().position(|(name, _)| name == "rev") {
            if let Some((name, _)) = raw[at + 1..]
                .iter()
                .find(|(name, _)| !matches!(name.as_str(), "map" | "filter" | "copied" | "cloned"))
            {
                let message = format!(
                    "`.rev()` after `.{name}(..)` is not supported in a differentiable iterator chain: \
                     reverse the source first (`x.iter().rev()`), or write a `for` loop"
                );
                self.errors.spanned(receiver, message);
                return Some(Err(()));
            }
            if raw.iter().filter(|(name, _)| name == "rev").count() % 2 == 1 {
                reversed = true;
            }
            raw.retain(|(name, _)| name != "rev");
        }
        fn window_of(expr: &Expr) -> Option<&syn::ExprMethodCall> {
            match expr {
                Expr::MethodCall(m)
                    if WINDOWS.contains(&m.method.to_string().as_str())
                        && m.args.len() == 1
                        && !is_iterator_source(&m.receiver) =>
                {
                    Some(m)
                }
                _ => None,
            }
        }
        // `a.chain(b)` of two sources: `b` is iterated after `a` by a loop of the same body.
        let mut then = None;
        if let Expr::MethodCall(m) = expr {
            if m.method == "chain" && m.args.len() == 1 && m.turbofish.is_none() {
                let b = match strip_parens(&m.args[0]) {
                    // `x.iter().chain(&y)`: a slice's items by reference.
                    Expr::Reference(r) if r.mutability.is_none() => {
                        let y = &r.expr;
                        syn::parse_quote!((#y).iter())
                    }
                    b => b.clone(),
                };
                if !is_iterator_source(&b) || window_of(strip_parens(&b)).is_some() {
                    self.errors.spanned(&m.args[0], unsupported_source(&b));
                    return Some(Err(()));
                }
                if window_of(strip_parens(&m.receiver)).is_some() {
                    self.errors.spanned(&m.method, unsupported_adaptor("chain"));
                    return Some(Err(()));
                }
                then = match self.source(&b) {
                    Ok(b) => Some(b),
                    Err(()) => return Some(Err(())),
                };
                expr = strip_parens(&m.receiver);
            }
        }
        // `s.chunks_exact(k).enumerate()`: the window's index is its count.
        let (window, enumerated) = match expr {
            Expr::MethodCall(m) if m.method == "enumerate" && m.args.is_empty() => {
                match window_of(strip_parens(&m.receiver)) {
                    Some(window) => (Some(window), true),
                    None => (None, false),
                }
            }
            _ => (window_of(expr), false),
        };
        // `COEFFS.iter()`, `&COEFFS`, `COEFFS.iter().enumerate()` of an array constant (of the body or from
        // outside it), which the lowering reads only by index: a range of its indexes, each element read
        // at its index, as a window is.
        let constant = constant_source(expr);
        let (source, window) = match window {
            _ if constant.is_some() => {
                let Some((constant, enumerated, reversed)) = constant else {
                    return Some(Err(()));
                };
                let index = self.fresh("index");
                let value: Expr = syn::parse_quote!(#constant[#index]);
                let value = match enumerated {
                    true => syn::parse_quote!((#index, #value)),
                    false => value,
                };
                let source = match reversed {
                    true => syn::parse_quote!((0..#constant.len()).rev()),
                    false => syn::parse_quote!(0..#constant.len()),
                };
                (source, Some((index, value)))
            }
            Some(m) => {
                let (source, index, value) = self.windows(m);
                let value = match enumerated {
                    true => syn::parse_quote!((#index, #value)),
                    false => value,
                };
                (source, Some((index, value)))
            }
            None if !is_iterator_source(expr) => {
                if raw.is_empty() {
                    return None;
                }
                self.errors.spanned(expr, unsupported_source(expr));
                return Some(Err(()));
            }
            None => match self.source(expr) {
                Ok(source) => (source, None),
                Err(()) => return Some(Err(())),
            },
        };
        let source = match reversed {
            true => syn::parse_quote!((#source).rev()),
            false => source,
        };
        let mut stages = Vec::new();
        for (name, arg) in raw.into_iter().rev() {
            if name == "enumerate" {
                stages.push(Stage::Enumerate);
                continue;
            }
            let Some(arg) = arg else { continue };
            let stage = match name.as_str() {
                "map" => self.func(arg).map(Stage::Map),
                "filter" => match self.func(arg) {
                    Some(Func::Closure(c)) if c.inputs.len() == 1 => Some(Stage::Filter(c)),
                    Some(_) => {
                        self.errors.spanned(
                            arg,
                            "give `.filter(..)` a closure of one parameter: `.filter(|x| ..)`",
                        );
                        None
                    }
                    None => None,
                },
                "step_by" => Some(Stage::Step(arg.clone())),
                "zip" => self
                    .zipped(arg)
                    .map(|(z, maps)| Stage::Zip(Box::new(z), maps)),
                _ => Some(Stage::Count(arg.clone(), name == "skip")),
            };
            match stage {
                Some(stage) => stages.push(stage),
                None => return Some(Err(())),
            }
        }
        // A `.zip(..)` stage ends the loop by `break` where its other side runs out, which would end
        // only the first of the two loops of `a.chain(b)`.
        if then.is_some() && stages.iter().any(|s| matches!(s, Stage::Zip(..))) {
            self.errors.spanned(
                receiver,
                "`.zip(..)` after `.filter(..)` in a chain over `a.chain(b)` is not supported: zip before \
                 filtering (`a.iter().zip(..).filter(..)`), or write a `for` loop",
            );
            return Some(Err(()));
        }
        // `.rev()` after `a.chain(b)` would run `b` first, reversed.
        let then = match (then, reversed) {
            (Some(_), true) => {
                self.errors.spanned(
                    receiver,
                    "`.rev()` after `.chain(..)` is not supported in a differentiable iterator chain: \
                     write `b.iter().rev().chain(a.iter().rev())`",
                );
                return Some(Err(()));
            }
            (then, _) => then,
        };
        Some(Ok(Chain {
            source,
            then,
            stages,
            window,
        }))
    }

    // Input:  x.iter().filter(|v| **v > 0.0).zip(y.iter().skip(1))
    // Output: Zipped::Slice { base: y, offset: usize::min(1, y.len()), len: y.len() - offset }
    /// The other side `b` of a `.zip(b)` stage, read by position: a slice (`y`, `&y`, `y.iter()`, with
    /// `.skip(n)`, `.take(n)`, `.copied()`, `.cloned()` after it, `y` a variable, field or element) or a
    /// range `lo..hi`; `None` after reporting anything else.
    fn zipped(&mut self, b: &Expr) -> Option<(Zipped, Vec<Func>)> {
        const OTHER: &str = "the other side of a `.zip(..)` after `.filter(..)`, `.map(..)` or a slice's \
                             windows or chunks is a slice (`y`, `&y`, \
                             `y.iter()`, maybe with `.skip(n)`, `.take(n)`, `.copied()`) or a range `a..b`, \
                             maybe with `.map(..)` after it: zip before filtering \
                             (`x.iter().zip(y.iter()).filter(..)`), or write a `for` loop";
        // `b.map(f)` (`b.copied().map(f)`): `b` read by position, `f` applied to its item.
        if let Expr::MethodCall(m) = strip_parens(b) {
            if m.method == "map" && m.args.len() == 1 && m.turbofish.is_none() {
                let mut inner = strip_parens(&m.receiver);
                while let Expr::MethodCall(c) = inner {
                    match (c.method.to_string().as_str(), c.args.len()) {
                        ("copied" | "cloned", 0) if yields_values(&c.receiver) => {
                            inner = strip_parens(&c.receiver)
                        }
                        _ => break,
                    }
                }
                let (inner, mut maps) = self.zipped(inner)?;
                maps.push(self.func(&m.args[0])?);
                return Some((inner, maps));
            }
        }
        let slice = |s: &Expr| -> Option<Zipped> {
            place(s).then(|| Zipped::Slice {
                base: paren(s.clone()),
                offset: None,
                len: syn::parse_quote!(#s.len()),
            })
        };
        let found = match strip_parens(b) {
            Expr::Range(syn::ExprRange {
                start: Some(lo),
                limits: syn::RangeLimits::HalfOpen(_),
                end: Some(hi),
                ..
            }) => Some(Zipped::Range {
                lo: (**lo).clone(),
                hi: (**hi).clone(),
            }),
            Expr::Reference(r) if r.mutability.is_none() => slice(&r.expr),
            e @ Expr::Path(_) | e @ Expr::Field(_) | e @ Expr::Index(_) => slice(e),
            e if sliceable(e) => match self.sliced(e) {
                Err(()) => return None,
                // `base[lo..hi].iter()`, the bounds within `base`.
                Ok(Expr::MethodCall(m)) => match strip_parens(&m.receiver) {
                    Expr::Index(ix) if place(&ix.expr) => match &*ix.index {
                        Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => {
                            let base = paren((*ix.expr).clone());
                            let lo: Option<Expr> = r.start.as_ref().map(|lo| (**lo).clone());
                            let hi: Expr = match &r.end {
                                Some(hi) => (**hi).clone(),
                                None => syn::parse_quote!(#base.len()),
                            };
                            let len = match &lo {
                                Some(lo) => syn::parse_quote!((#hi) - (#lo)),
                                None => hi,
                            };
                            Some(Zipped::Slice {
                                base,
                                offset: lo,
                                len,
                            })
                        }
                        _ => None,
                    },
                    _ => None,
                },
                Ok(_) => None,
            },
            _ => None,
        };
        if found.is_none() {
            self.errors.spanned(b, OTHER);
        }
        found.map(|z| (z, Vec::new()))
    }

    /// `s.windows(k)`, `s.chunks(k)`, `s.chunks_exact(k)`: a range of window indexes, the index, and the
    /// window at it (a sub-slice of `s`).
    fn windows(&mut self, m: &syn::ExprMethodCall) -> (Expr, syn::Ident, Expr) {
        let s = paren((*m.receiver).clone());
        let k = paren(m.args[0].clone());
        let i = self.fresh("window");
        // The window spanned at the method, where an error about it points (a sub-slice of a matrix's
        // rows: `pts.windows(2)` of `pts: &[[f64; 2]]`).
        let at = m.method.span();
        let (range, window): (Expr, Expr) = match m.method.to_string().as_str() {
            "windows" => (
                syn::parse_quote!(0..(#s.len() + 1).saturating_sub(#k)),
                syn::parse_quote_spanned!(at=> &#s[#i..#i + #k]),
            ),
            "chunks" => (
                syn::parse_quote!(0..(#s.len() + #k - 1) / #k),
                syn::parse_quote_spanned!(at=> &#s[#i * #k..usize::min(#i * #k + #k, #s.len())]),
            ),
            _ => (
                syn::parse_quote!(0..#s.len() / #k),
                syn::parse_quote_spanned!(at=> &#s[#i * #k..#i * #k + #k]),
            ),
        };
        (range, i, window)
    }

    /// `s.iter().skip(a).take(b)..` (with any `.copied()` and `.cloned()`): the sub-slice's `.iter()`,
    /// `s[lo..hi].iter()`, each bound kept within the slice as `skip` and `take` keep within the iterator.
    fn sliced(&mut self, expr: &Expr) -> Result<Expr, ()> {
        let mut steps = Vec::new();
        let mut e = strip_parens(expr);
        let base = loop {
            let m = match e {
                Expr::MethodCall(m) => m,
                other => {
                    self.errors.spanned(other, CHAIN_HINT);
                    return Err(());
                }
            };
            match (m.method.to_string().as_str(), m.args.len()) {
                ("skip" | "take", 1) => steps.push((m.method == "skip", paren(m.args[0].clone()))),
                ("copied" | "cloned", 0) => {}
                ("iter" | "into_iter", 0) if !is_iterator_source(&m.receiver) => {
                    break paren((*m.receiver).clone());
                }
                _ => {
                    self.errors.spanned(
                        &m.method,
                        format!(
                            "`.{}(..)` before `.skip(n)` or `.take(n)` is not supported in a \
                             differentiable iterator chain: skip and take right after the slice's \
                             `.iter()`, or after the whole source ({CHAIN_HINT})",
                            m.method
                        ),
                    );
                    return Err(());
                }
            }
            e = strip_parens(&m.receiver);
        };
        let len = quote!(#base.len());
        let (mut lo, mut hi): (Option<TokenStream>, Option<TokenStream>) = (None, None);
        for (skip, n) in steps.into_iter().rev() {
            let end = hi.clone().unwrap_or_else(|| len.clone());
            let start = match &lo {
                Some(lo) => quote!(#lo + #n),
                None => n.to_token_stream(),
            };
            let bound = Some(quote!(usize::min(#start, #end)));
            if skip {
                lo = bound;
            } else {
                hi = bound;
            }
        }
        Ok(syn::parse_quote_spanned!(expr.span()=> #base[#lo..#hi].iter()))
    }

    /// The source of a chain as a `for` iterates it: `.copied()` and `.cloned()` dropped, `.into_iter()`
    /// read as `.iter()`, anything else reported.
    fn source(&mut self, expr: &Expr) -> Result<Expr, ()> {
        match strip_parens(expr) {
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if matches!(name.as_str(), "copied" | "cloned") && m.args.is_empty() {
                    return self.source(&m.receiver);
                }
                if matches!(name.as_str(), "skip" | "take") && m.args.len() == 1 {
                    return self.sliced(expr);
                }
                if !SOURCES.contains(&name.as_str()) {
                    self.errors.spanned(&m.method, unsupported_adaptor(&name));
                    return Err(());
                }
                let mut m = m.clone();
                if name == "into_iter" {
                    m.method = syn::Ident::new("iter", m.method.span());
                }
                // `iter()` is called on the slice itself: its receiver is no chain.
                if name != "iter" && name != "into_iter" {
                    *m.receiver = self.source(&m.receiver)?;
                }
                if name == "zip" {
                    m.args[0] = self.source(&m.args[0])?;
                }
                Ok(Expr::MethodCall(m))
            }
            other => Ok(other.clone()),
        }
    }

    /// A chain ending in `terminal`, as a block with a loop; `None` if `m` ends no chain.
    fn terminal(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let name = m.method.to_string();
        if !TERMINALS.contains(&name.as_str()) {
            return None;
        }
        let span = m.span();
        let chain = match self.chain(&m.receiver)? {
            Ok(chain) => chain,
            Err(()) => return Some(Self::poisoned(span)),
        };
        let acc = self.fresh("acc");
        let element = self.fresh("element");
        let mut body = self.body_of(&chain, &element);
        // The accumulator's type where the closure of `.fold(..)` declares it (`|a: f64, b| a.max(b)`):
        // without it, `let mut acc = 0.0;` would be an ambiguous `{float}` to rustc.
        let mut acc_ty: Option<syn::Type> = None;
        let (init, tail, result): (TokenStream, Vec<syn::Stmt>, TokenStream) =
            match (name.as_str(), m.args.len()) {
                ("sum", 0) | ("product", 0) => {
                    let value = body.value(&element);
                    let (init, op) = if name == "sum" {
                        (self.zero.clone(), quote!(+))
                    } else {
                        (self.one.clone(), quote!(*))
                    };
                    let (init, op) = match Self::integer_accumulator(m, name == "sum") {
                        Some((ty, init)) => {
                            acc_ty = Some(ty);
                            (init, op)
                        }
                        None => (init, op),
                    };
                    (
                        init,
                        vec![syn::parse_quote!(#acc = #acc #op #value;)],
                        quote!(#acc),
                    )
                }
                ("fold", 2) => {
                    let init = m.args[0].to_token_stream();
                    let Some(func) = self.func(&m.args[1]) else {
                        return Some(Self::poisoned(span));
                    };
                    // Input:  `.fold(0.0, |acc, &v| acc.mul_add(0.5, v))` in a function of `f64`
                    // Output: `let mut __acc: f64 = 0.0;`: the fold's result type fixed the literal's
                    // type; the loop that replaces it must say it, or a method call on the
                    // accumulator meets an ambiguous `{float}`. A written annotation (below) wins.
                    if unsuffixed_float(&m.args[0]) {
                        acc_ty = self.float.as_ref().map(|f| syn::parse_quote!(#f));
                    }
                    let tail = match func {
                        Func::Closure(c) if c.inputs.len() == 2 => {
                            // Input:  `.fold(0.0, |m: f64, v| m.max(v))`
                            // Output: `let mut __acc: f64 = 0.0;` (`func` dropped the closure's
                            // annotations: read the one written, or the local closure's).
                            let written = match strip_parens(&m.args[1]) {
                                Expr::Closure(written) => written_types(written).swap_remove(0),
                                other => self
                                    .closure_named(other)
                                    .and_then(|local| local.param_types.first().cloned())
                                    .flatten(),
                            };
                            acc_ty = written.or(acc_ty);
                            body.bind(plain_pattern(&c.inputs[1]));
                            let acc_pat = plain_pattern(&c.inputs[0]);
                            let step = &c.body;
                            vec![
                                syn::parse_quote!(let #acc_pat = #acc;),
                                syn::parse_quote!(#acc = #step;),
                            ]
                        }
                        Func::Path(path) => {
                            let value = body.value(&element);
                            vec![syn::parse_quote!(#acc = #path(#acc, #value);)]
                        }
                        Func::Closure(c) => {
                            self.errors.spanned(
                                &c.inputs,
                                "the closure of `.fold(..)` takes two parameters: `|acc, x| ..`",
                            );
                            return Some(Self::poisoned(span));
                        }
                    };
                    (init, tail, quote!(#acc))
                }
                ("count", 0) => (
                    quote!(0usize),
                    vec![syn::parse_quote!(#acc += 1;)],
                    quote!(#acc),
                ),
                // Input:  `x.iter().any(|&v| v > 1.0)`
                // Output: `{ let mut __acc: bool = false; for &v in x.iter() { __acc = __acc || (v > 1.0); } __acc }`
                // A `bool`, with no derivative; `||` (`&&` for `.all(..)`) tests no element after the
                // one that decides, as the iterator's method does not.
                ("any" | "all", 1) => {
                    let Some(func) = self.func(&m.args[0]) else {
                        return Some(Self::poisoned(span));
                    };
                    if matches!(&func, Func::Closure(c) if c.inputs.len() != 1) {
                        self.errors.spanned(
                            &m.args[0],
                            format!(
                                "give `.{name}(..)` a closure of one parameter: `.{name}(|x| ..)`"
                            ),
                        );
                        return Some(Self::poisoned(span));
                    }
                    body.apply(&func, &element);
                    let value = body.value(&element);
                    acc_ty = Some(syn::parse_quote!(bool));
                    let (init, step) = if name == "any" {
                        (quote!(false), quote!(#acc || #value))
                    } else {
                        (quote!(true), quote!(#acc && #value))
                    };
                    (init, vec![syn::parse_quote!(#acc = #step;)], quote!(#acc))
                }
                ("collect", 0) => {
                    if let Some(turbofish) = &m.turbofish {
                        let is_vec = turbofish.args.first().is_some_and(|a| {
                            matches!(a, syn::GenericArgument::Type(syn::Type::Path(p))
                                if p.path.segments.last().is_some_and(|s| s.ident == "Vec"))
                        });
                        if !is_vec {
                            self.errors.spanned(
                                turbofish,
                                "a differentiable chain can be collected only into a `Vec`: \
                                 `.collect::<Vec<_>>()`, or write a `for` loop",
                            );
                            return Some(Self::poisoned(span));
                        }
                    }
                    let value = body.value(&element);
                    (
                        // Spanned on the chain: an error about the `Vec` it makes points there.
                        quote::quote_spanned!(span=> ::std::vec::Vec::new()),
                        vec![syn::parse_quote!(#acc.push(#value);)],
                        quote!(#acc),
                    )
                }
                _ => {
                    self.errors.spanned(&m.method, CHAIN_HINT);
                    return Some(Self::poisoned(span));
                }
            };
        let (prelude, for_loop) = body.into_loop(&chain, tail, &element, &self.matrices);
        let acc_ty = acc_ty.map(|ty| quote!(: #ty));
        Some(syn::parse_quote_spanned! {span=>
            {
                let mut #acc #acc_ty = #init;
                #(#prelude)*
                #for_loop
                #result
            }
        })
    }

    // Input:  x.iter().map(|v| v.abs()).max_by(|a, b| a.total_cmp(b)).unwrap()
    // Output: {
    //             let mut __acc = 0.0;
    //             let mut __empty: bool = true;
    //             for &v in x.iter() {
    //                 let __next = (v.abs());
    //                 if __empty { __acc = __next; __empty = false; }
    //                 else if <`__acc` does not compare `Greater`> { __acc = __next; }
    //             }
    //             { let mut __assertion = [0usize; 1]; if __empty { __assertion[0] = assertion_failed(".."); } }
    //             __acc
    //         }
    /// `chain.reduce(f)`, `.max_by(cmp)`, `.min_by(cmp)`, `.last()`, `.next_back()`, `.next()`, `.nth(k)` or
    /// `.find(p)` of a chain of values (`yields_values`), or `.position(p)` or `.find_map(f)` of any chain, unwrapped by `.unwrap()`,
    /// `.expect("..")` or `.unwrap_or(d)`: a loop keeping the element so far, as `Iterator::reduce` folds from the first
    /// element (`max_by` and `min_by` are `reduce` with `cmp::max_by` and `cmp::min_by`, `Compare::replaces`:
    /// the last of equal maxima, the first of equal minima; `partial_cmp(..).unwrap()` panics where it
    /// compares a NaN, not at a lone element). The empty chain panics with `Option::unwrap`'s message (or
    /// the `expect`'s) or gives `d`, evaluated after the chain as a method's argument is. `None` where
    /// `outer` is no such call (a chain of references, `x.iter().max_by(..)` of a slice, is `std_forms.rs`'s).
    fn selection(&mut self, outer: &syn::ExprMethodCall) -> Option<Expr> {
        const UNWRAP: &str = "called `Option::unwrap()` on a `None` value";
        let consumer = outer.method.to_string();
        let message: Option<Expr> = match (consumer.as_str(), outer.args.len()) {
            ("unwrap", 0) => Some(syn::parse_quote!(#UNWRAP)),
            ("expect", 1) => match strip_parens(&outer.args[0]) {
                e @ Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(_),
                    ..
                }) => Some(e.clone()),
                _ => return None,
            },
            ("unwrap_or", 1) => None,
            _ => return None,
        };
        if outer.turbofish.is_some() {
            return None;
        }
        let Expr::MethodCall(select) = strip_parens(&outer.receiver) else {
            return None;
        };
        let name = select.method.to_string();
        let arity = match name.as_str() {
            "reduce" | "max_by" | "min_by" | "position" | "find" | "nth" | "find_map" => 1,
            "last" | "next_back" | "next" => 0,
            _ => return None,
        };
        if select.args.len() != arity || select.turbofish.is_some() {
            return None;
        }
        if name == "position" {
            return self.position(select, message, &outer.args);
        }
        if name == "find_map" {
            return self.find_map(select, message, &outer.args);
        }
        if !yields_values(&select.receiver) {
            return None;
        }
        // `.find(p)` is `.filter(p).next()`: both closures take a reference to the item.
        let found: syn::ExprMethodCall;
        let (select, name) = match name.as_str() {
            "find" => {
                let (receiver, p) = (&select.receiver, &select.args[0]);
                found =
                    syn::parse_quote_spanned!(select.method.span()=> #receiver.filter(#p).next());
                (&found, "next".to_string())
            }
            _ => (select, name),
        };
        let compare = match name.as_str() {
            "max_by" | "min_by" => Some(crate::std_forms::comparator(&select.args[0])?),
            _ => None,
        };
        let span = select.span();
        let chain = match self.chain(&select.receiver)? {
            Ok(chain) => chain,
            Err(()) => return Some(Self::poisoned(span)),
        };
        let acc = self.fresh("acc");
        let empty = self.fresh("empty");
        let next = self.fresh("next");
        let element = self.fresh("element");
        let mut body = self.body_of(&chain, &element);
        let value = body.value(&element);
        // `.nth(k)`: the element that reaches the end when `k` did before it (`advance_by(k)` then
        // `next()`: the filters test the elements passed, and a map's value is computed where it is used,
        // as everywhere in this pass); after it, under `empty`, no stage runs, as the iterator stops there.
        if name == "nth" {
            let (n, counter, position) = (
                self.fresh("nth"),
                self.fresh("seen"),
                self.fresh("position"),
            );
            let k = &select.args[0];
            body.prelude.push(syn::parse_quote!(let #n: usize = #k;));
            body.count(&syn::parse_quote!(#n), Counted::At, &counter, &position);
            body.guards
                .insert(0, (Vec::new(), syn::parse_quote!(#empty)));
        }
        // The accumulator starts as a zero of the elements' type, never read: an integer where `f`
        // names or declares one (`usize::max`, `|a: usize, b| ..`), else the function's float.
        let mut acc_ty: Option<syn::Type> = None;
        let kept: Expr = syn::parse_quote!(#acc);
        let new: Expr = syn::parse_quote!(#next);
        let step: Vec<syn::Stmt> = match compare {
            Some(compare) => {
                let take = compare.replaces(name == "max_by", &kept, &new);
                let check: Option<syn::Stmt> =
                    matches!(compare, crate::std_forms::Compare::Partial(_)).then(|| {
                        assertion(
                            syn::parse_quote!(!(#acc == #acc && #next == #next)),
                            &syn::parse_quote!(#UNWRAP),
                        )
                    });
                vec![check, Some(syn::parse_quote!(if #take { #acc = #next; }))]
                    .into_iter()
                    .flatten()
                    .collect()
            }
            // `.last()` (`.next_back()`): each element replaces the one before; `.next()` keeps the first.
            None if name == "last" || name == "next_back" => vec![syn::parse_quote!(#acc = #next;)],
            None if name == "next" || name == "nth" => Vec::new(),
            None => {
                let Some(func) = self.func(&select.args[0]) else {
                    return Some(Self::poisoned(span));
                };
                match func {
                    Func::Closure(c) if c.inputs.len() == 2 => {
                        let written = match strip_parens(&select.args[0]) {
                            Expr::Closure(written) => written_types(written),
                            other => self
                                .closure_named(other)
                                .map(|local| local.param_types.clone())
                                .unwrap_or_default(),
                        };
                        acc_ty = written.into_iter().flatten().find(integer_type);
                        let (a, b) = (plain_pattern(&c.inputs[0]), plain_pattern(&c.inputs[1]));
                        let f = &c.body;
                        vec![
                            syn::parse_quote!(let #a = #acc;),
                            syn::parse_quote!(let #b = #next;),
                            syn::parse_quote!(#acc = #f;),
                        ]
                    }
                    Func::Path(path) => {
                        acc_ty = path
                            .path
                            .segments
                            .first()
                            .filter(|_| path.path.segments.len() == 2)
                            .map(|s| {
                                let ident = &s.ident;
                                syn::parse_quote!(#ident)
                            })
                            .filter(integer_type);
                        vec![syn::parse_quote!(#acc = #path(#acc, #next);)]
                    }
                    Func::Closure(c) => {
                        self.errors.spanned(
                            &c.inputs,
                            "the closure of `.reduce(..)` takes two parameters: `|acc, x| ..`",
                        );
                        return Some(Self::poisoned(span));
                    }
                }
            }
        };
        let tail: Vec<syn::Stmt> = vec![
            syn::parse_quote!(let #next = #value;),
            syn::parse_quote! {
                if #empty {
                    #acc = #next;
                    #empty = false;
                } else {
                    #(#step)*
                }
            },
        ];
        let (prelude, for_loop) = body.into_loop(&chain, tail, &element, &self.matrices);
        // Typed, or a method called on it (`a.max(b)`, `is_nan`) would be of an ambiguous `{float}`.
        let (init, acc_ty) = match acc_ty {
            Some(ty) => (quote!(0), Some(quote!(: #ty))),
            None => (self.zero.clone(), self.float.as_ref().map(|f| quote!(: #f))),
        };
        let result = self.unwrapped(&acc, &empty, message, &outer.args);
        let start = quote!(let mut #acc #acc_ty = #init;);
        Some(kept_one(span, start, &empty, prelude, for_loop, result))
    }

    // Input:  *x.iter().skip(1).step_by(2).nth(k).unwrap()
    // Output: x.iter().skip(1).step_by(2).copied().nth(k).unwrap()   (then read by `selection`)
    /// `*chain.nth(k).unwrap()` (`.last()`, `.next()`, `.next_back()`, `.find(p)`, `.max_by(cmp)`,
    /// `.min_by(cmp)`, `.reduce(f)`, unwrapped by `.unwrap()` or `.expect(..)`) of a chain whose items are
    /// references into a slice: the same element by value, through `.copied()`, as the `*` copies it (the
    /// user's function dereferences it, so it is `Copy`: a float or an integer, never a row).
    fn dereferenced_selection(&mut self, expr: &Expr) -> Option<Expr> {
        let Expr::Unary(u) = expr else {
            return None;
        };
        if !matches!(u.op, syn::UnOp::Deref(_)) {
            return None;
        }
        let Expr::MethodCall(outer) = strip_parens(&u.expr) else {
            return None;
        };
        if !matches!(
            (outer.method.to_string().as_str(), outer.args.len()),
            ("unwrap", 0) | ("expect", 1)
        ) {
            return None;
        }
        let Expr::MethodCall(select) = strip_parens(&outer.receiver) else {
            return None;
        };
        let selects = matches!(
            (select.method.to_string().as_str(), select.args.len()),
            ("last" | "next" | "next_back", 0)
                | ("nth" | "find" | "max_by" | "min_by" | "reduce", 1)
        );
        let receiver = strip_parens(&select.receiver);
        if !selects || !is_iterator_source(receiver) || yields_values(receiver) {
            return None;
        }
        // A chain of pairs (`.enumerate()`, `.zip(..)`) has tuples of references for items: not copied.
        if !matches!(element_shape(receiver, &self.matrices), Shape::Ref) {
            return None;
        }
        let mut select = select.clone();
        let copied: Expr = syn::parse_quote_spanned!(select.method.span()=> #receiver.copied());
        *select.receiver = copied;
        let mut outer = outer.clone();
        *outer.receiver = Expr::MethodCall(select);
        self.selection(&outer)
    }

    // Input:  x.iter().position(|&v| v > t).unwrap_or(n)
    // Output: {
    //             let mut __acc: usize = 0;
    //             let mut __empty: bool = true;
    //             let mut __seen: usize = 0;
    //             for &__element in x.iter() {
    //                 let __position: usize = __seen;
    //                 __seen += 1;
    //                 let __kept: bool = __empty && { let v = __element; v > t };
    //                 if __kept { __acc = __position; __empty = false; }
    //             }
    //             let __default = n;
    //             if __empty { __default } else { __acc }
    //         }
    /// `chain.position(p)` unwrapped (`selection`): the count of the elements before the first for which
    /// `p` holds, an integer without derivative. The loop goes on past it, testing no more elements (as the
    /// iterator's method stops), but computing the stages before the test, which may panic where the
    /// iterator's would not (as in `.any(..)`).
    fn position(
        &mut self,
        select: &syn::ExprMethodCall,
        message: Option<Expr>,
        default: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> Option<Expr> {
        let span = select.span();
        let chain = match self.chain(&select.receiver)? {
            Ok(chain) => chain,
            Err(()) => return Some(Self::poisoned(span)),
        };
        let keep = match self.func(&select.args[0]) {
            Some(Func::Closure(c)) if c.inputs.len() == 1 => c,
            Some(_) => {
                self.errors.spanned(
                    &select.args[0],
                    "give `.position(..)` a closure of one parameter: `.position(|x| ..)`",
                );
                return Some(Self::poisoned(span));
            }
            None => return Some(Self::poisoned(span)),
        };
        let acc = self.fresh("acc");
        let empty = self.fresh("empty");
        let element = self.fresh("element");
        let mut body = self.body_of(&chain, &element);
        let (pattern, value) = self.element_names(&element_shape(&chain.source, &self.matrices));
        let value = body.element(pattern, value);
        let counter = self.fresh("seen");
        let position = self.fresh("position");
        let kept = self.fresh("kept");
        body.prelude
            .push(syn::parse_quote!(let mut #counter: usize = 0;));
        body.stmts
            .push(syn::parse_quote!(let #position: usize = #counter;));
        body.stmts.push(syn::parse_quote!(#counter += 1;));
        let test = &keep.body;
        let test: Expr = match keep.inputs.first() {
            Some(pat) => {
                let pat = plain_pattern(pat);
                syn::parse_quote!({ let #pat = #value; #test })
            }
            None => (**test).clone(),
        };
        // Tested only while nothing is found.
        body.stmts
            .push(syn::parse_quote!(let #kept: bool = #empty && #test;));
        let tail: Vec<syn::Stmt> = vec![syn::parse_quote! {
            if #kept {
                #acc = #position;
                #empty = false;
            }
        }];
        let (prelude, for_loop) = body.into_loop(&chain, tail, &element, &self.matrices);
        let result = self.unwrapped(&acc, &empty, message, default);
        let start = quote!(let mut #acc: usize = 0;);
        Some(kept_one(span, start, &empty, prelude, for_loop, result))
    }

    // Input:  x.iter().find_map(|v| if v > &1.0 { Some(v.ln()) } else { None }).unwrap_or(t)
    // Output: {
    //             let mut __acc: f64 = 0.0;
    //             let mut __empty: bool = true;
    //             for &v in x.iter() {
    //                 if __empty {
    //                     let __found: bool = v > 1.0;
    //                     if __found { let __next = (v.ln()); __acc = __next; __empty = false; }
    //                 }
    //             }
    //             let __default = t;
    //             if __empty { __default } else { __acc }
    //         }
    /// `chain.find_map(f)` unwrapped (`selection`), `f` a closure whose body (maybe after `let`s) is an
    /// `if` with `Some(value)` in one branch and `None` in the other: the value at the first element whose
    /// test picks the `Some`. After it, under `empty`, neither the test nor any stage runs, as the
    /// iterator's method stops there.
    fn find_map(
        &mut self,
        select: &syn::ExprMethodCall,
        message: Option<Expr>,
        default: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> Option<Expr> {
        const FIND_MAP: &str =
            "give `.find_map(..)` a closure of one parameter whose body is an `if` with \
                                `Some(value)` in one branch and `None` in the other: \
                                `.find_map(|v| if *v > 1.0 { Some(v.ln()) } else { None })`";
        let span = select.span();
        let chain = match self.chain(&select.receiver)? {
            Ok(chain) => chain,
            Err(()) => return Some(Self::poisoned(span)),
        };
        let f = match self.func(&select.args[0]) {
            Some(Func::Closure(c)) if c.inputs.len() == 1 => c,
            Some(_) => {
                self.errors.spanned(&select.args[0], FIND_MAP);
                return Some(Self::poisoned(span));
            }
            None => return Some(Self::poisoned(span)),
        };
        let Some((before, test, value)) = some_or_none(&f.body) else {
            self.errors.spanned(&select.args[0], FIND_MAP);
            return Some(Self::poisoned(span));
        };
        let acc = self.fresh("acc");
        let empty = self.fresh("empty");
        let next = self.fresh("next");
        let found = self.fresh("found");
        let element = self.fresh("element");
        let mut body = self.body_of(&chain, &element);
        body.bind(plain_pattern(&f.inputs[0]));
        body.stmts.extend(before);
        body.stmts
            .push(syn::parse_quote!(let #found: bool = #test;));
        body.guard(syn::parse_quote!(#found));
        body.guards
            .insert(0, (Vec::new(), syn::parse_quote!(#empty)));
        let value = paren(value);
        let tail: Vec<syn::Stmt> = vec![
            syn::parse_quote!(let #next = #value;),
            syn::parse_quote!(#acc = #next;),
            syn::parse_quote!(#empty = false;),
        ];
        let (prelude, for_loop) = body.into_loop(&chain, tail, &element, &self.matrices);
        // An integer (`Some(i)` of an index `.enumerate()` counts): an untyped `0`, of the value's
        // integer type; else the function's float.
        let (init, acc_ty) = match integer_value(&f.inputs[0], &chain, &value) {
            true => (quote!(0), None),
            false => (self.zero.clone(), self.float.as_ref().map(|f| quote!(: #f))),
        };
        let result = self.unwrapped(&acc, &empty, message, default);
        let start = quote!(let mut #acc #acc_ty = #init;);
        Some(kept_one(span, start, &empty, prelude, for_loop, result))
    }

    /// What `.unwrap()`, `.expect(message)` or `.unwrap_or(default)` give of the element `acc` a loop
    /// kept, `empty` where it kept none: the assertion of a panic with the message, or the default,
    /// evaluated after the loop as a method's argument is after its receiver.
    fn unwrapped(
        &mut self,
        acc: &syn::Ident,
        empty: &syn::Ident,
        message: Option<Expr>,
        default: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> Vec<syn::Stmt> {
        match message {
            Some(message) => vec![
                assertion(syn::parse_quote!(#empty), &message),
                syn::Stmt::Expr(syn::parse_quote!(#acc), None),
            ],
            None => {
                let name = self.fresh("default");
                let d = &default[0];
                vec![
                    syn::parse_quote!(let #name = #d;),
                    syn::Stmt::Expr(syn::parse_quote!(if #empty { #name } else { #acc }), None),
                ]
            }
        }
    }

    /// The loop body of `chain`'s stages, before the terminal's accumulation.
    fn body_of(&mut self, chain: &Chain, element: &syn::Ident) -> Body {
        let mut body = match &chain.window {
            Some((index, window)) => Body::over(index, window.clone()),
            None => Body::new(),
        };
        let shape = element_shape(&chain.source, &self.matrices);
        for stage in &chain.stages {
            match stage {
                Stage::Map(func) => body.apply(func, element),
                Stage::Filter(keep) => {
                    let (pattern, value) = self.element_names(&shape);
                    let value = body.element(pattern, value);
                    let kept = self.fresh("kept");
                    body.filter(keep, value, &kept);
                }
                Stage::Count(n, skip) => {
                    let counter = self.fresh("seen");
                    let position = self.fresh("position");
                    body.count(n, Counted::from(*skip), &counter, &position);
                }
                Stage::Step(k) => {
                    let counter = self.fresh("seen");
                    let position = self.fresh("position");
                    body.count(k, Counted::Step, &counter, &position);
                }
                Stage::Enumerate => {
                    let (pattern, value) = self.element_names(&shape);
                    let value = body.element(pattern, value);
                    let counter = self.fresh("seen");
                    let position = self.fresh("position");
                    body.prelude
                        .push(syn::parse_quote!(let mut #counter: usize = 0;));
                    body.stmts
                        .push(syn::parse_quote!(let #position: usize = #counter;));
                    body.stmts.push(syn::parse_quote!(#counter += 1;));
                    body.current = Current::Value(syn::parse_quote!((#position, #value)));
                }
                // Input:  x.iter().filter(|v| **v > 0.0).zip(y.iter())
                // Output: let mut __seen: usize = 0;  (before the loop)
                //         for &__element in x.iter() {
                //             let __kept: bool = { let v = __element; v > 0.0 };
                //             if __kept {
                //                 if __seen >= y.len() { break; }
                //                 let __position: usize = __seen;
                //                 __seen += 1;
                //                 .. (__element, y[__position]) ..
                //             }
                //         }
                // `Zip::next` takes the next element of its first side (here: the next one the filter
                // keeps), then `b`'s; where `b` has none, the chain ends: so the filter has tested up to
                // one kept element more than `b` has, and nothing after it.
                Stage::Zip(zipped, maps) => {
                    let (pattern, value) = self.element_names(&shape);
                    let value = body.element(pattern, value);
                    let counter = self.fresh("seen");
                    let position = self.fresh("position");
                    let item: Expr = match &**zipped {
                        Zipped::Slice { base, offset, len } => {
                            body.prelude
                                .push(syn::parse_quote!(let mut #counter: usize = 0;));
                            body.stmts
                                .push(syn::parse_quote!(if #counter >= #len { break; }));
                            body.stmts
                                .push(syn::parse_quote!(let #position: usize = #counter;));
                            match offset {
                                Some(offset) => syn::parse_quote!(#base[(#offset) + #position]),
                                None => syn::parse_quote!(#base[#position]),
                            }
                        }
                        Zipped::Range { lo, hi } => {
                            let end = self.fresh("end");
                            body.prelude
                                .push(syn::parse_quote!(let mut #counter = #lo;));
                            body.prelude.push(syn::parse_quote!(let #end = #hi;));
                            body.stmts
                                .push(syn::parse_quote!(if #counter >= #end { break; }));
                            body.stmts
                                .push(syn::parse_quote!(let #position = #counter;));
                            syn::parse_quote!(#position)
                        }
                    };
                    // `b.map(f).map(g)`: `b` read by position, then `f` and `g` in turn.
                    let item = maps.iter().fold(item, |item, func| match func {
                        Func::Closure(c) => match c.inputs.first() {
                            Some(pat) => {
                                let (pat, body) = (plain_pattern(pat), &c.body);
                                paren(syn::parse_quote!({ let #pat = #item; #body }))
                            }
                            None => paren((*c.body).clone()),
                        },
                        Func::Path(path) => syn::parse_quote!(#path(#item)),
                    });
                    body.stmts.push(syn::parse_quote!(#counter += 1;));
                    body.zip_items.push(item.to_token_stream().to_string());
                    body.current = Current::Value(syn::parse_quote!((#value, #item)));
                }
            }
        }
        body
    }

    /// Fresh names for an element of the shape `shape`, as a `for` pattern and as an expression.
    fn element_names(&mut self, shape: &Shape) -> (Pat, Expr) {
        match shape {
            Shape::Pair(a, b) => {
                let (pa, ea) = self.element_names(a);
                let (pb, eb) = self.element_names(b);
                (syn::parse_quote!((#pa, #pb)), syn::parse_quote!((#ea, #eb)))
            }
            Shape::Value | Shape::Ref | Shape::Row => {
                let name = self.fresh("element");
                (syn::parse_quote!(#name), syn::parse_quote!(#name))
            }
        }
    }

    // Input:  for v in a.iter().chain(b.iter()) { if *v > 1.0 { break; } s += v; }
    // Output: { let mut __broke: bool = false;
    //           for v in a.iter() { if *v > 1.0 { __broke = true; break; } s += v; }
    //           if !__broke { for v in b.iter() { if *v > 1.0 { break; } s += v; } } }
    /// `for pat in source.map(f)..`: the stages move into the body. Returns what must run before the
    /// loop (the counters of `.skip(n)` and `.take(n)` after other stages), and for `a.chain(b)` the
    /// second loop, over `b`: where the body leaves the loop by `break`, the first loop's `break` sets a
    /// flag, and the second runs only where it is not set.
    fn for_loop(&mut self, f: &mut syn::ExprForLoop) -> (Vec<syn::Stmt>, Option<Expr>) {
        let (mut prelude, then) = self.for_loop_parts(f);
        let Some(second) = then else {
            return (prelude, None);
        };
        if !breaks_out(f) {
            return (prelude, Some(Expr::ForLoop(second)));
        }
        let broke = self.fresh("broke");
        prelude.push(syn::parse_quote!(let mut #broke: bool = false;));
        // The second loop's own `break`s leave it as they are.
        flag_breaks(f, &broke);
        (prelude, Some(syn::parse_quote!(if !#broke { #second })))
    }

    fn for_loop_parts(
        &mut self,
        f: &mut syn::ExprForLoop,
    ) -> (Vec<syn::Stmt>, Option<syn::ExprForLoop>) {
        let constant = constant_source(&f.expr).is_some();
        let chain = match self.chain(&f.expr) {
            None => return (Vec::new(), None),
            // The sources as they are, the `for`'s pattern as written (`v` a reference where it was).
            Some(Ok(chain)) if chain.stages.is_empty() && chain.window.is_none() => {
                *f.expr = chain.source;
                let then = chain.then.map(|then| {
                    let mut second = f.clone();
                    *second.expr = then;
                    second
                });
                return (Vec::new(), then);
            }
            Some(Ok(chain)) => chain,
            Some(Err(())) => {
                *f.expr = Self::poisoned(f.expr.span());
                return (Vec::new(), None);
            }
        };
        // Over an array constant, the pattern binds each element by value (`let c = COEFFS[__index];`):
        // `*c` of a `c` bound to a reference (`for c in COEFFS.iter()`) is `c`.
        if constant {
            let names = bound_by_reference(&f.pat);
            let block = Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: f.body.clone(),
            });
            if let Expr::Block(b) = without_derefs(&block, &names) {
                f.body = b.block;
            }
        }
        let element = self.fresh("element");
        let mut body = self.body_of(&chain, &element);
        body.bind(plain_pattern(&f.pat));
        let pattern = body
            .pattern
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(#element));
        let mut stmts = body.stmts;
        stmts.append(&mut f.body.stmts);
        let mut stmts = Body::nest(stmts, body.guards);
        let arrays = array_names(&stmts);
        borrow_rows(&mut stmts, &body.zip_items, &arrays);
        *f.pat = by_reference(
            pattern.clone(),
            &element_shape(&chain.source, &self.matrices),
            &arrays,
        );
        *f.expr = chain.source;
        f.body.stmts = stmts;
        let then = chain.then.map(|then| {
            let mut second = f.clone();
            *second.pat = by_reference(pattern, &element_shape(&then, &self.matrices), &arrays);
            *second.expr = then;
            second
        });
        (body.prelude, then)
    }

    /// The accumulator's type and first value for `.sum::<T>()` or `.product::<T>()` of an integer `T`
    /// (`(1..=k).product::<u64>()`, a factorial): its own `0` or `1`, not the float's.
    fn integer_accumulator(m: &syn::ExprMethodCall, sum: bool) -> Option<(syn::Type, TokenStream)> {
        let turbofish = m.turbofish.as_ref()?;
        let Some(syn::GenericArgument::Type(ty)) = turbofish.args.first() else {
            return None;
        };
        let syn::Type::Path(p) = ty else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        crate::shadow::INTEGERS
            .contains(&name.as_str())
            .then(|| (ty.clone(), if sum { quote!(0) } else { quote!(1) }))
    }

    /// `name(args)` of a local closure: its body, with its parameters bound to the arguments.
    fn inline_call(&mut self, call: &syn::ExprCall) -> Option<Expr> {
        let local = match self.callable(&call.func)? {
            Ok(local) => local,
            Err(message) => {
                self.errors.spanned(call, message);
                return Some(Self::poisoned(call.span()));
            }
        };
        let closure = local.closure.clone();
        if closure.inputs.len() != call.args.len() {
            self.errors.spanned(
                call,
                format!("this closure takes {} arguments", closure.inputs.len()),
            );
            return Some(Self::poisoned(call.span()));
        }
        let pats: Vec<Pat> = closure.inputs.iter().map(plain_pattern).collect();
        // A parameter keeps its declared type (`|a: f64| a.max(1.0)` called with `0.5`).
        let types: Vec<TokenStream> = (local.param_types.iter())
            .map(|ty| {
                ty.as_ref()
                    .map_or_else(|| quote!(_), ToTokens::to_token_stream)
            })
            .collect();
        let typed = local.param_types.iter().any(Option::is_some);
        // The parameters bind values: `sq(&x)` passes `x`.
        let args: Vec<&Expr> = call
            .args
            .iter()
            .map(|arg| match strip_parens(arg) {
                Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
                other => other,
            })
            .collect();
        // Input:  `let fact = |k: i32| (1..=k).product::<i32>() as f64;` (the chain already a block)
        // Output: `({ let k: i32 = n; ({ .. } as f64) })`: unparenthesized, the block would end a
        // statement of its own and leave `as f64` without an operand.
        let body: Expr = match &*closure.body {
            body if leftmost_is_block(body) => syn::parse_quote!((#body)),
            body => body.clone(),
        };
        let span = call.span();
        // In parentheses: a block first in a statement (`{ .. } * { .. }`) would end there, once the
        // generic copy of an `order = K` function is printed and parsed again.
        Some(match (pats.as_slice(), args.as_slice()) {
            ([], []) => syn::parse_quote_spanned!(span=> ({ #body })),
            ([pat], [arg]) if typed => {
                let ty = &types[0];
                syn::parse_quote_spanned!(span=> ({ let #pat: #ty = #arg; #body }))
            }
            ([pat], [arg]) => syn::parse_quote_spanned!(span=> ({ let #pat = #arg; #body })),
            // A tuple, so that each argument is evaluated before any parameter is bound.
            (pats, args) if typed => syn::parse_quote_spanned!(span=>
                ({ let (#(#pats),*): (#(#types),*) = (#(#args),*); #body })
            ),
            (pats, args) => {
                syn::parse_quote_spanned!(span=> ({ let (#(#pats),*) = (#(#args),*); #body }))
            }
        })
    }

    /// `let name = |..| ..;`: the closure, recorded for its calls, or `None` if `stmt` is no such `let`.
    fn closure_let(&mut self, stmt: &syn::Stmt) -> Option<LocalClosure> {
        let syn::Stmt::Local(local) = stmt else {
            return None;
        };
        let Pat::Ident(p) = &local.pat else {
            return None;
        };
        let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
        let Expr::Closure(written) = strip_parens(&init.expr) else {
            return None;
        };
        let mut closure = by_value(written);
        if let Some(span) = returns(&closure.body) {
            self.errors.at(span, RETURN_IN_CLOSURE);
        }
        // The body's own chains and calls of earlier closures, with its parameters shadowing those.
        let mut params = Vec::new();
        for input in &closure.inputs {
            params.extend(crate::bindings::bound_names(input));
        }
        self.scopes
            .push(params.into_iter().map(Entry::Shadowed).collect());
        self.visit_expr_mut(&mut closure.body);
        self.scopes.pop();
        Some(LocalClosure {
            name: p.ident.to_string(),
            captures: captures_of(&closure),
            closure,
            stale: None,
            param_types: written_types(written),
        })
    }
}

const RETURN_IN_CLOSURE: &str = "`return` inside a closure is not supported, since the closure's body is \
                                 inlined where it runs: make the returned value the closure's last expression";

fn stale_message(closure: &str, name: &str) -> String {
    format!(
        "the closure `{closure}` reads `{name}`, which is assigned or bound again after the closure is made; \
         the macro inlines a closure where it is called, so give the new value another name"
    )
}

fn is_iterator_source(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Range(_) => true,
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            name == "iter" || name == "into_iter" || is_iterator_source(&m.receiver)
        }
        _ => false,
    }
}

/// What to say of a chain whose source is none: about its first method that no source may contain
/// (`.windows(2)` in `x.windows(2).rev()`), else about its last.
fn unsupported_source(expr: &Expr) -> String {
    let mut first = None;
    let mut e = strip_parens(expr);
    while let Expr::MethodCall(m) = e {
        let name = m.method.to_string();
        if !SOURCES.contains(&name.as_str()) {
            first = Some(name);
        }
        e = strip_parens(&m.receiver);
    }
    match first {
        Some(name) => unsupported_adaptor(&name),
        None => CHAIN_HINT.to_string(),
    }
}

fn unsupported_adaptor(name: &str) -> String {
    let instead = match name {
        "filter" => "filter after `.enumerate()`, `.zip(..)` and `.rev()`, or write a `for` loop with an `if` inside",
        "filter_map" => "write a `for` loop with an `if` inside",
        "windows" | "chunks" | "chunks_exact" => {
            "windows and chunks may start a chain (also `.enumerate()`d, or zipped with a slice or a \
             range: `x.chunks(k).zip(y.iter())`) but are not reversed or zipped onto another side: \
             iterate over indexes and read `x[i]`, `x[i + 1]`"
        }
        _ => "write a `for` loop",
    };
    format!("`.{name}(..)` is not supported in a differentiable iterator chain: {instead} ({CHAIN_HINT})")
}

impl VisitMut for Desugar<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        for mut stmt in std::mem::take(&mut block.stmts) {
            if let Some(closure) = self.closure_let(&stmt) {
                if let Some(scope) = self.scopes.last_mut() {
                    scope.push(Entry::Closure(Box::new(closure)));
                }
                continue;
            }
            let rebound = rebound_names(&stmt);
            for entry in self.scopes.iter_mut().flat_map(|s| s.iter_mut()) {
                if let Entry::Closure(c) = entry {
                    if c.stale.is_none() {
                        c.stale = rebound.iter().find(|n| c.captures.contains(*n)).cloned();
                    }
                }
            }
            self.visit_stmt_mut(&mut stmt);
            // A `let` of the same name hides a closure from here on.
            if let syn::Stmt::Local(local) = &stmt {
                let mut names = Vec::new();
                names.extend(crate::bindings::bound_names(&local.pat));
                if let Some(scope) = self.scopes.last_mut() {
                    scope.extend(names.into_iter().map(Entry::Shadowed));
                }
            }
            stmts.push(stmt);
        }
        block.stmts = stmts;
        self.scopes.pop();
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Some(selected) = self.dereferenced_selection(expr) {
            *expr = selected;
            visit_mut::visit_expr_mut(self, expr);
            return;
        }
        let replacement = match expr {
            Expr::MethodCall(m) => {
                if let Some(selected) = self.selection(m) {
                    *expr = selected;
                    visit_mut::visit_expr_mut(self, expr);
                    return;
                }
                let name = m.method.to_string();
                let after_map =
                    matches!(strip_parens(&m.receiver), Expr::MethodCall(r) if r.method == "map");
                // `x.iter().copied().reduce(f64::max)`: an iterator that no terminal ends (else the
                // error fell on the `.iter()` the lowering met, as an unsupported slice method).
                let after_copy = matches!(strip_parens(&m.receiver),
                    Expr::MethodCall(r) if (r.method == "copied" || r.method == "cloned")
                        && r.args.is_empty()
                        && is_iterator_source(&r.receiver));
                let ends = |names: &[&str]| names.contains(&name.as_str());
                if (after_map && !ends(TERMINALS) && !ends(STAGES))
                    || (after_copy
                        && !ends(TERMINALS)
                        && !ends(STAGES)
                        && !ends(SOURCES)
                        && name != "chain")
                {
                    // What `std_forms.rs` did not read as the element it selects.
                    let message = match name.as_str() {
                        "max_by" | "min_by" | "max" | "min" => {
                            let comparator = match name.ends_with("_by") {
                                true => {
                                    ", with the comparator `|a, b| a.partial_cmp(b).unwrap()`, \
                                     `|a, b| a.total_cmp(b)` or `f64::total_cmp`"
                                }
                                false => " (of integers)",
                            };
                            let unwrapped = match name.ends_with("_by") {
                                true => {
                                    "(`.unwrap()`, `.expect(\"..\")`, or `.unwrap_or(d)` after `.map(..)`, \
                                     `.copied()` or `.cloned()`), after a chain ending in `.map(..)` or a \
                                     slice's `.iter()` (maybe `.copied()` or `.cloned()`)"
                                }
                                false => {
                                    "(`.unwrap()`, `.expect(..)`), after a slice's `.iter()` (maybe `.copied()` \
                                     or `.cloned()`)"
                                }
                            };
                            format!(
                                "`.{name}(..)` of an iterator is supported as the element it selects, unwrapped \
                                 {unwrapped} of a slice, array or `Vec` named by a variable, a field or an \
                                 element (`m[i]`), or of a sub-slice of one (`x[1..n - 1]`){comparator}: write it \
                                 so, or find the index in a loop"
                            )
                        }
                        _ => format!(
                            "`.{name}(..)` cannot end a differentiable iterator chain: {CHAIN_HINT}"
                        ),
                    };
                    self.errors.spanned(&m.method, message);
                    *expr = Self::poisoned(expr.span());
                    return;
                }
                self.terminal(m)
            }
            Expr::Call(c) => {
                for arg in c.args.iter_mut() {
                    self.visit_expr_mut(arg);
                }
                match self.inline_call(c) {
                    Some(inlined) => {
                        *expr = inlined;
                        return;
                    }
                    None => None,
                }
            }
            Expr::ForLoop(f) => {
                let (prelude, then) = self.for_loop(f);
                if !prelude.is_empty() || then.is_some() {
                    let for_loop = f.clone();
                    *expr = syn::parse_quote!({ #(#prelude)* #for_loop #then });
                }
                None
            }
            // `vec![chain; n]`, `vec![a, chain]`: the macro's arguments are expressions too.
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                if let Some(mut args) = vec_args(&m.mac) {
                    for arg in args.exprs_mut() {
                        self.visit_expr_mut(arg);
                    }
                    m.mac.tokens = args.into_tokens();
                }
                return;
            }
            Expr::Path(_) => {
                if let Some(local) = self.closure_named(expr) {
                    let message = format!(
                        "the closure `{}` can be called (`{}(x)`) or given to `.map(..)` or `.fold(..)`; it \
                         cannot be passed or stored as a value: call it where its value is needed",
                        local.name, local.name
                    );
                    self.errors.spanned(&*expr, message);
                }
                None
            }
            _ => None,
        };
        match replacement {
            Some(new) => {
                *expr = new;
                // The closures' bodies were rewritten already; what remains are the chain's source and the
                // fold's initial value, and the loop, whose statements are visited again harmlessly.
                visit_mut::visit_expr_mut(self, expr);
            }
            None => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_expr_closure_mut(&mut self, closure: &mut syn::ExprClosure) {
        // A closure left in place (passed to an unknown function) is reported by the fence.
        visit_mut::visit_expr_closure_mut(self, closure);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The branch that `assert!(!failed, message)` is (`asserts.rs`, which has run by now): the failing call's
/// value stored, so that no pass drops the branch.
fn assertion(failed: Expr, message: &Expr) -> syn::Stmt {
    syn::parse_quote! {
        {
            let mut __assertion = [0usize; 1];
            if #failed {
                __assertion[0] = ::autodiff::__private::assertion_failed(#message);
            }
        }
    }
}

/// Is `ty` an integer type (`usize`, `i32`, ..)?
fn integer_type(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| crate::shadow::INTEGERS.contains(&i.to_string().as_str())))
}

/// Does the body of `f` leave it by `break` (unlabeled outside nested loops, or by `f`'s own label)? Not
/// counting closures and items, which cannot.
fn breaks_out(f: &syn::ExprForLoop) -> bool {
    struct Finder<'l> {
        label: Option<&'l syn::Lifetime>,
        depth: usize,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
            match &b.label {
                None => self.found |= self.depth == 0,
                Some(label) => self.found |= self.label.is_some_and(|own| own.ident == label.ident),
            }
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
            self.visit_expr(&e.expr);
            self.depth += 1;
            self.visit_block(&e.body);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
            self.visit_expr(&e.cond);
            self.depth += 1;
            self.visit_block(&e.body);
            self.depth -= 1;
        }
        fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
            self.depth += 1;
            self.visit_block(&e.body);
            self.depth -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder {
        label: f.label.as_ref().map(|l| &l.name),
        depth: 0,
        found: false,
    };
    finder.visit_block(&f.body);
    finder.found
}

// Input:  for v in a.iter() { for w in c { break; } if *v > 1.0 { break; } }
// Output: for v in a.iter() { for w in c { break; } if *v > 1.0 { { __broke = true; break; } } }
/// `f` with each `break` that leaves it (`breaks_out`) setting `flag` first.
fn flag_breaks(f: &mut syn::ExprForLoop, flag: &syn::Ident) {
    struct Flagger<'l> {
        label: Option<syn::Lifetime>,
        flag: &'l syn::Ident,
        depth: usize,
    }
    impl VisitMut for Flagger<'_> {
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            match expr {
                Expr::Break(b) => {
                    let leaves = match &b.label {
                        None => self.depth == 0,
                        Some(label) => self
                            .label
                            .as_ref()
                            .is_some_and(|own| own.ident == label.ident),
                    };
                    if leaves {
                        let flag = self.flag;
                        let exit = b.clone();
                        *expr = syn::parse_quote!({ #flag = true; #exit });
                    }
                }
                Expr::ForLoop(e) => {
                    self.visit_expr_mut(&mut e.expr);
                    self.depth += 1;
                    self.visit_block_mut(&mut e.body);
                    self.depth -= 1;
                }
                Expr::While(e) => {
                    self.visit_expr_mut(&mut e.cond);
                    self.depth += 1;
                    self.visit_block_mut(&mut e.body);
                    self.depth -= 1;
                }
                Expr::Loop(e) => {
                    self.depth += 1;
                    self.visit_block_mut(&mut e.body);
                    self.depth -= 1;
                }
                Expr::Closure(_) => {}
                _ => visit_mut::visit_expr_mut(self, expr),
            }
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    let mut flagger = Flagger {
        label: f.label.as_ref().map(|l| l.name.clone()),
        flag,
        depth: 0,
    };
    flagger.visit_block_mut(&mut f.body);
}

/// Does `expr` begin with a block-like expression (`{ .. } as f64`, `{ .. }.sqrt()`) that, first in a
/// statement, would end the statement there? A block-like expression alone does not.
fn leftmost_is_block(expr: &Expr) -> bool {
    fn block_like(e: &Expr) -> bool {
        matches!(
            e,
            Expr::Block(_)
                | Expr::If(_)
                | Expr::Match(_)
                | Expr::Loop(_)
                | Expr::While(_)
                | Expr::ForLoop(_)
                | Expr::Unsafe(_)
        )
    }
    fn leftmost(e: &Expr) -> &Expr {
        match e {
            Expr::Cast(c) => leftmost(&c.expr),
            Expr::Binary(b) => leftmost(&b.left),
            Expr::MethodCall(m) => leftmost(&m.receiver),
            Expr::Field(f) => leftmost(&f.base),
            Expr::Index(i) => leftmost(&i.expr),
            Expr::Try(t) => leftmost(&t.expr),
            Expr::Call(c) => leftmost(&c.func),
            Expr::Assign(a) => leftmost(&a.left),
            Expr::Range(syn::ExprRange { start: Some(s), .. }) => leftmost(s),
            other => other,
        }
    }
    !block_like(expr) && block_like(leftmost(expr))
}

/// The block of a chain that keeps one element (`selection`, `position`, `find_map`): the accumulator's
/// `let` (`start`) and the flag `empty` (no element kept yet), the loop, then what the unwrapping gives.
fn kept_one(
    span: Span,
    start: TokenStream,
    empty: &syn::Ident,
    prelude: Vec<syn::Stmt>,
    for_loop: Expr,
    result: Vec<syn::Stmt>,
) -> Expr {
    syn::parse_quote_spanned! {span=>
        {
            #start
            let mut #empty: bool = true;
            #(#prelude)*
            #for_loop
            #(#result)*
        }
    }
}

/// Whether `expr` is a float literal without a suffix (`0.0`, `-1.5`, `(1e-3)`), whose type the code
/// around it decides.
fn unsuffixed_float(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => unsuffixed_float(&u.expr),
        Expr::Lit(l) => matches!(&l.lit, syn::Lit::Float(f) if f.suffix().is_empty()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(src: &str) -> (String, Vec<String>) {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let mut errors = Errors::default();
        let out = desugar(&item, &mut errors);
        let messages = errors.messages();
        (out.block.to_token_stream().to_string(), messages)
    }

    #[test]
    fn reduce_unwrapped_keeps_the_first_element_then_folds() {
        let (out, errors) =
            rewrite("fn f(x: &[f64]) -> f64 { x.iter().copied().reduce(f64::max).unwrap() }");
        assert!(errors.is_empty(), "{errors:?}");
        // A typed accumulator, a flag for the first element, std's message for the empty chain.
        assert!(out.contains("let mut __acc_1 : f64 = 0.0"), "{out}");
        assert!(out.contains("let mut __empty_2 : bool = true"), "{out}");
        assert!(
            out.contains("if __empty_2 { __acc_1 = __next_3 ; __empty_2 = false ; } else { __acc_1 = f64 :: max (__acc_1 , __next_3) ; }"),
            "{out}"
        );
        assert!(
            out.contains("called `Option::unwrap()` on a `None` value"),
            "{out}"
        );
    }

    #[test]
    fn max_by_after_map_replaces_unless_greater_and_checks_nans_where_it_compares() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64]) -> f64 { x.iter().map(|v| v * v).max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            out.contains("if ! (__acc_1 > __next_3) { __acc_1 = __next_3 ; }"),
            "{out}"
        );
        assert!(
            out.contains("if ! (__acc_1 == __acc_1 && __next_3 == __next_3)"),
            "{out}"
        );
        // `min_by` replaces where the kept one compares greater; `total_cmp` checks no NaN.
        let (out, _) = rewrite(
            "fn f(x: &[f64]) -> f64 { x.iter().map(|v| v * v).min_by(|a, b| a.total_cmp(b)).unwrap() }",
        );
        assert!(!out.contains("__acc_1 == __acc_1"), "{out}");
        assert!(out.contains("|| __acc_1 > __next_3 ||"), "{out}");
    }

    #[test]
    fn unwrap_or_evaluates_its_default_after_the_chain_and_integers_are_typed() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64]) -> f64 { let k = x.iter().map(|v| *v as usize).reduce(usize::max).unwrap_or(x.len()); x[k] }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(out.contains("let mut __acc_1 : usize = 0"), "{out}");
        assert!(
            out.contains(
                "let __default_5 = x . len () ; if __empty_2 { __default_5 } else { __acc_1 }"
            ),
            "{out}"
        );
        let (out, _) = rewrite(
            "fn f<T: Float>(x: &[T]) -> T { x.iter().map(|v| *v).reduce(|a: usize, b| a + b).expect(\"some\") }",
        );
        assert!(out.contains("let mut __acc_1 : usize = 0"), "{out}");
        assert!(out.contains("\"some\""), "{out}");
    }

    #[test]
    fn enumerate_after_a_stage_counts_and_rev_after_maps_reverses_the_source() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64]) -> f64 { x.iter().filter(|v| **v > 0.0).enumerate().map(|(i, v)| v * i as f64).sum::<f64>() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        // The count starts before the loop and advances only where the filter kept the element.
        assert!(out.contains("let mut __seen_6 : usize = 0 ;"), "{out}");
        assert!(
            out.contains("if __kept_4 { let __position_7 : usize = __seen_6 ; __seen_6 += 1 ; let (i , v) = (__position_7 , __element_3) ;"),
            "{out}"
        );
        let (out, errors) = rewrite(
            "fn f(x: &[f64]) -> f64 { x.iter().map(|v| v * 2.0).filter(|v| *v > 0.0).rev().fold(0.0, |a, b| a + b) }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(out.contains("in x . iter () . rev ()"), "{out}");
        // Twice reversed is the source as it is.
        let (out, _) = rewrite(
            "fn f(x: &[f64]) -> f64 { x.iter().map(|v| v * 2.0).rev().map(|v| v + 1.0).rev().sum::<f64>() }",
        );
        assert!(!out.contains("rev"), "{out}");
        let (_, errors) = rewrite(
            "fn f(x: &[f64]) -> f64 { x.iter().map(|v| v * 2.0).take(2).rev().sum::<f64>() }",
        );
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("`.rev()` after `.take(..)`"),
            "{errors:?}"
        );
    }

    #[test]
    fn chain_runs_the_same_body_over_the_second_source() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64], y: &[f64]) -> f64 { x.iter().chain(&y[1..]).map(|v| v * v).sum::<f64>() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            out.contains("{ for & v in x . iter () { __acc_1 = __acc_1 + (v * v) ; } for & v in (y [1 ..]) . iter () { __acc_1 = __acc_1 + (v * v) ; } }"),
            "{out}"
        );
        // A `for` over it: two loops (labels.rs has made the label's `continue` a plain one by now); where
        // the body breaks out of it, the first's break sets a flag the second tests.
        let (out, errors) = rewrite(
            "fn f(x: &[f64], y: &[f64]) -> f64 { let mut s = 0.0; 'l: for v in x.iter().chain(y.iter()) { if *v > 1.0 { continue 'l; } for w in x { if *w > 0.0 { break; } } s += v; } s }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(out.matches("for v in").count(), 2, "{out}");
        for body in ["if *v > 1.0 { break; }", "loop { break 'l; }"] {
            let src = format!(
                "fn f(x: &[f64], y: &[f64]) -> f64 {{ let mut s = 0.0; 'l: for v in x.iter().chain(y.iter()) {{ {body} s += v; }} s }}"
            );
            let (out, errors) = rewrite(&src);
            assert!(errors.is_empty(), "{body}: {errors:?}");
            assert!(out.contains("__broke_1 = true ;"), "{body}: {out}");
            // (labels.rs has made `break 'l` a flag and a plain `break` by now.)
            assert!(
                out.contains("if ! __broke_1 { for v in y . iter ()"),
                "{body}: {out}"
            );
        }
        // `.rev()` after `a.chain(b)` (and maps): `b` reversed first, then `a` reversed.
        let (out, errors) = rewrite(
            "fn f(x: &[f64], y: &[f64]) -> f64 { x.iter().chain(&y[1..]).map(|v| v * 2.0).rev().sum::<f64>() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let (first, second) = (
            out.find("in y [1 ..] . iter () . rev ()"),
            out.find("in x . iter () . rev ()"),
        );
        assert!(first.is_some() && first < second, "{out}");
    }

    #[test]
    fn zip_after_maps_moves_onto_the_source() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64], y: &[f64]) -> f64 { x.iter().map(|v| *v * 2.0).zip(y.iter()).map(|(a, b)| a * b).sum::<f64>() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            out.contains("for (& __zipped_a , & __zipped_b) in x . iter () . zip (y . iter ())"),
            "{out}"
        );
        assert!(out.contains("{ let v = __zipped_a ; v * 2.0 }"), "{out}");
        // After a filter the elements that meet would change: not moved, a stage of its own
        // (`zip_after_filter_advances_the_other_side_at_kept_elements_and_stops_where_it_ends`).
        let (out, errors) = rewrite(
            "fn f(x: &[f64], y: &[f64]) -> f64 { x.iter().filter(|v| **v > 0.0).zip(y.iter()).map(|(a, b)| a * b).sum::<f64>() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(!out.contains("__zipped_a"), "{out}");
    }

    #[test]
    fn a_mapped_other_side_of_a_zip_after_a_filter_is_read_by_position_then_mapped() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64], w: &[f64]) -> f64 { x.iter().filter(|v| **v > 0.0).zip(w.iter().map(|u| u * 2.0)).map(|(a, b)| a * b).sum::<f64>() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(out.contains("if __seen_"), "{out}");
        assert!(out.contains("{ let u = w [__position_"), "{out}");
        assert!(out.contains("; u * 2.0 })"), "{out}");
    }

    #[test]
    fn a_dereferenced_nth_of_a_chain_over_references_copies_the_element() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64], k: usize) -> f64 { *x.iter().skip(1).step_by(2).nth(k).unwrap() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(!out.contains("nth ("), "{out}");
        assert!(out.contains("let __nth_"), "{out}");
    }

    #[test]
    fn position_tests_only_until_it_finds() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64], t: f64) -> f64 { let k = x.iter().position(|&v| v > t).unwrap_or(0); x[k] }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(out.contains("let mut __acc_1 : usize = 0 ;"), "{out}");
        assert!(
            out.contains("let __kept_7 : bool = __empty_2 && { let v = __element_4 ; v > t } ; if __kept_7 { __acc_1 = __position_6 ; __empty_2 = false ; }"),
            "{out}"
        );
        assert!(
            out.contains("if __empty_2 { __default_8 } else { __acc_1 }"),
            "{out}"
        );
    }

    #[test]
    fn chains_of_references_and_options_are_left_to_others() {
        // `*` of a selection over references: the element copied, found by the loop of `selection`.
        let (out, errors) = rewrite(
            "fn f(x: &[f64]) -> f64 { *x.iter().filter(|v| **v > 0.0).max_by(|a, b| a.total_cmp(b)).unwrap() }",
        );
        assert!(errors.is_empty() && !out.contains("max_by"), "{out}");
        assert!(out.contains("for & __element_5 in x . iter ()"), "{out}");
        // Without the `*` (a reference kept), or of pairs: left to others.
        let (out, _) =
            rewrite("fn f(x: &[f64]) -> f64 { let m = x.iter().skip(1).last().unwrap(); *m }");
        assert!(out.contains("last ()"), "{out}");
        let (out, _) = rewrite(
            "fn f(x: &[f64]) -> f64 { let (i, v) = *x.iter().enumerate().last().unwrap(); *v }",
        );
        assert!(out.contains("last ()"), "{out}");
        let (_, errors) =
            rewrite("fn f(x: &[f64]) -> f64 { let m = x.iter().copied().reduce(f64::max); 0.0 }");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("`.reduce(..)` cannot end"), "{errors:?}");
    }

    #[test]
    fn zip_after_filter_advances_the_other_side_at_kept_elements_and_stops_where_it_ends() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64], y: &[f64]) -> f64 { x.iter().filter(|v| **v > 0.0).zip(y.iter().skip(1)).map(|(a, b)| a * b).sum::<f64>() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        // The position counts before the loop; under the filter's test, the loop ends where `y` has no
        // item left, else the item at the position, past the skipped one.
        assert!(out.contains("let mut __seen_6 : usize = 0 ;"), "{out}");
        assert!(
            out.contains("if __kept_4 { if __seen_6 >= (y . len ()) - (usize :: min (1 , y . len ())) { break ; } let __position_7 : usize = __seen_6 ; __seen_6 += 1 ; let (a , b) = (__element_3 , y [(usize :: min (1 , y . len ())) + __position_7]) ;"),
            "{out}"
        );
        // A range counts from its start, the end evaluated once.
        let (out, errors) = rewrite(
            "fn f(x: &[f64]) -> f64 { x.iter().filter(|v| **v > 0.0).zip(1..n).map(|(a, k)| a * k as f64).sum::<f64>() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            out.contains("let mut __seen_6 = 1 ; let __end_8 = n ;"),
            "{out}"
        );
        assert!(
            out.contains("if __seen_6 >= __end_8 { break ; } let __position_7 = __seen_6 ;"),
            "{out}"
        );
        // A row of a matrix, read as an array: bound by reference, as a `for` binds it.
        let (out, errors) = rewrite(
            "fn f(x: &[f64], m: &[Vec<f64>]) -> f64 { x.iter().filter(|v| **v > 0.0).zip(m.iter()).map(|(a, r)| a * r[0]).sum::<f64>() }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            out.contains("let (a , r) = (__element_3 , & m [__position_7]) ;"),
            "{out}"
        );
        // The other side computed (a call's slice) and after `a.chain(b)`: refused.
        let (_, errors) = rewrite(
            "fn f(x: &[f64]) -> f64 { x.iter().filter(|v| **v > 0.0).zip(g(x).iter()).map(|(a, b)| a * b).sum::<f64>() }",
        );
        assert!(
            errors[0].contains("the other side of a `.zip(..)` after `.filter(..)`"),
            "{errors:?}"
        );
        let (_, errors) = rewrite(
            "fn f(x: &[f64]) -> f64 { x.iter().chain(x.iter()).filter(|v| **v > 0.0).zip(x.iter()).map(|(a, b)| a * b).sum::<f64>() }",
        );
        assert!(
            errors[0].contains("in a chain over `a.chain(b)`"),
            "{errors:?}"
        );
    }

    #[test]
    fn nth_and_find_map_keep_the_first_found_and_then_run_nothing() {
        let (out, errors) =
            rewrite("fn f(x: &[f64]) -> f64 { x.iter().map(|v| v * 2.0).nth(k).unwrap() }");
        assert!(errors.is_empty(), "{errors:?}");
        // `k` evaluated once before the loop; the body under `__empty`; the element at the count `k`.
        assert!(
            out.contains("let __nth_5 : usize = k ; let mut __seen_6 : usize = 0 ; for & v in x . iter () { if __empty_2 { let __position_7 = __seen_6 ; __seen_6 += 1 ; if __position_7 == __nth_5 { let __next_3 = (v * 2.0) ;"),
            "{out}"
        );
        let (out, errors) = rewrite(
            "fn f(x: &[f64], t: f64) -> f64 { x.iter().find_map(|v| { let w = v * v; if w > 1.0 { None } else { Some(w.ln()) } }).unwrap_or(t) }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        // The `let` before the test, the test negated where `Some` is in the `else`.
        assert!(
            out.contains("for & v in x . iter () { if __empty_2 { let w = v * v ; let __found_4 : bool = ! (w > 1.0) ; if __found_4 { let __next_3 = (w . ln ()) ; __acc_1 = __next_3 ; __empty_2 = false ; } } }"),
            "{out}"
        );
        // An index: an integer accumulator, untyped.
        let (out, errors) = rewrite(
            "fn f(x: &[f64], t: f64) -> f64 { let k = x.iter().enumerate().find_map(|(i, v)| if *v > t { Some(i + 1) } else { None }).unwrap_or(0); x[k] }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert!(out.contains("let mut __acc_1 = 0 ;"), "{out}");
        // Two `Some`s, an `else if`, a `match`: refused.
        for f in [
            "|v| if *v > 1.0 { Some(1.0) } else { Some(2.0) }",
            "|v| if *v > 1.0 { Some(1.0) } else if *v < 0.0 { Some(2.0) } else { None }",
            "|v| match *v > 1.0 { true => Some(1.0), false => None }",
        ] {
            let (_, errors) = rewrite(&format!(
                "fn f(x: &[f64]) -> f64 {{ x.iter().find_map({f}).unwrap() }}"
            ));
            assert!(
                errors[0].contains("give `.find_map(..)` a closure"),
                "{f}: {errors:?}"
            );
        }
    }

    #[test]
    fn for_over_a_chain_left_by_break_sets_a_flag_the_second_loop_tests() {
        let (out, errors) = rewrite(
            "fn f(x: &[f64], y: &[f64]) -> f64 { let mut s = 0.0; for v in x.iter().chain(y.iter()) { for w in 0..2 { break; } if *v > 1.0 { break; } s += v; } s }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        // The first loop's own `break` sets the flag, the inner loop's does not; the second loop keeps
        // its `break`s and runs only where the flag is not set.
        assert!(
            out.contains("{ let mut __broke_1 : bool = false ; for v in x . iter () { for w in 0 .. 2 { break ; } if * v > 1.0 { { __broke_1 = true ; break } ; } s += v ; } if ! __broke_1 { for v in y . iter () { for w in 0 .. 2 { break ; } if * v > 1.0 { break ; } s += v ; } } }"),
            "{out}"
        );
        // Without a `break`, no flag.
        let (out, _) = rewrite(
            "fn f(x: &[f64], y: &[f64]) -> f64 { let mut s = 0.0; for v in x.iter().chain(y.iter()) { s += v; } s }",
        );
        assert!(!out.contains("__broke"), "{out}");
    }
}
