//! A parameter struct's method called on the parameter (`p.energy(x)`, for `p: &Model`) is rewritten, on
//! the syntax and before the later passes, into the call by the method's path that it is (`Model::energy(p,
//! x)`), which those passes differentiate like a call of a function (the method's companion is reached by
//! its path) and which the struct analyses count as the struct passed on whole.
//!
//! ```text
//! // Input (p: &Model, g: &Grid<T>):       // Output:
//! let y = p.apply(x);                      let y = Model::apply(p, x);
//! s += g.dot(x) * p.energy(x);             s += Grid::<T>::dot(g, x) * Model::energy(p, x);
//! ```
//!
//! Only a parameter taken by shared reference whose name the body never binds again (a `let`, a closure's
//! or a `for`'s pattern, a `match` arm): there the receiver is surely the parameter. One taken by value
//! (`p: Model`) is left as written, since whether the method takes `&self` or `self` is not visible here;
//! the activity pass says what to write (`Model::energy(&p, x)`). `clone` and `to_owned` keep their own
//! error, a float method's name (`p.sin()`) is not a struct's method, and a constant struct's method called
//! without arguments (`p.count()`) gives a constant: it stays as written (see `Receiver::active`).

use crate::ir::{FloatFn, Kind};
use crate::lower::strip_parens;
use crate::signature::Signature;
use std::collections::BTreeMap;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Type};

/// Rewrites, in `block`, the method calls on the parameter structs of `sig` taken by reference.
pub(crate) fn rewrite(block: &mut syn::Block, sig: &Signature) {
    let bound = crate::bindings::bound_in_block(block);
    let structs: BTreeMap<String, Receiver> = sig
        .params
        .iter()
        .filter(|p| matches!(p.kind, Kind::Struct(_)))
        .filter(|p| !bound.contains(&p.ident.to_string()))
        .filter_map(|p| {
            let path = call_path(&p.ty)?;
            Some((
                p.ident.to_string(),
                Receiver {
                    path,
                    active: p.active,
                },
            ))
        })
        .collect();
    if !structs.is_empty() {
        Rewrite { structs }.visit_block_mut(block);
    }
}

/// The path a method of the struct `ty` refers to is called by (`Grid::<T>` for `&Grid<T>`), where `ty`
/// is a shared reference to a named struct type.
fn call_path(ty: &Type) -> Option<syn::Path> {
    let Type::Reference(r) = ty else {
        return None;
    };
    let Type::Path(tp) = &*r.elem else {
        return None;
    };
    if r.mutability.is_some() || tp.qself.is_some() || tp.path.is_ident("Self") {
        return None;
    }
    let mut path = tp.path.clone();
    for segment in &mut path.segments {
        match &mut segment.arguments {
            syn::PathArguments::None => {}
            syn::PathArguments::AngleBracketed(generics) => {
                generics.colon2_token = Some(Default::default());
            }
            syn::PathArguments::Parenthesized(_) => return None,
        }
    }
    Some(path)
}

/// A parameter struct whose methods are called by their path.
struct Receiver {
    /// The path its methods are called by (`Grid::<T>`).
    path: syn::Path,
    /// Whether it is differentiated. A constant struct's method called without arguments (`p.count()`)
    /// gives a constant and stays as written, as the call of a plain method that it may be: the call by
    /// its path would pass the struct on whole, which `order = K` differentiates.
    active: bool,
}

struct Rewrite {
    structs: BTreeMap<String, Receiver>,
}

impl Rewrite {
    fn by_path(&self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let Expr::Path(receiver) = strip_parens(&m.receiver) else {
            return None;
        };
        let name = receiver.path.get_ident()?.to_string();
        let receiver = self.structs.get(&name)?;
        let method = m.method.to_string();
        if (!receiver.active && m.args.is_empty())
            || method == "clone"
            || method == "to_owned"
            || FloatFn::from_name(&method, m.args.len() + 1).is_some()
        {
            return None;
        }
        let path = &receiver.path;
        let (method, turbofish, args, receiver) = (&m.method, &m.turbofish, &m.args, &m.receiver);
        let span = crate::span::of_method_call(m);
        Some(syn::parse_quote_spanned! {span=> #path::#method #turbofish(#receiver, #args)})
    }
}

impl VisitMut for Rewrite {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        visit_mut::visit_expr_mut(self, expr);
        if let Expr::MethodCall(m) = expr {
            if let Some(call) = self.by_path(m) {
                *expr = call;
            }
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use crate::args::Args;
    use crate::errors::Errors;
    use quote::ToTokens;

    /// The body of `src` after the rewrite, printed, with `wrt` as given.
    fn rewritten(src: &str, wrt: Option<&[&str]>) -> String {
        let mut item: syn::ItemFn = syn::parse_str(src).expect("test source parses");
        let args = Args {
            wrt: wrt.map(|names| {
                names
                    .iter()
                    .map(|n| syn::Ident::new(n, proc_macro2::Span::call_site()))
                    .collect()
            }),
            ..Args::default()
        };
        let sig = crate::signature::analyze(&item, &args, &mut Errors::default())
            .expect("supported signature");
        super::rewrite(&mut item.block, &sig);
        item.block.to_token_stream().to_string()
    }

    #[test]
    fn a_struct_by_reference_is_called_by_the_path() {
        let body = rewritten(
            "fn f(p: &Model, x: &[f64]) -> f64 { let y = p.apply(x); (p).energy(&y) + y[0] }",
            None,
        );
        assert!(body.contains("Model :: apply (p , x)"), "{body}");
        assert!(body.contains("Model :: energy ((p) , & y)"), "{body}");
    }

    #[test]
    fn generic_arguments_take_a_turbofish() {
        let body = rewritten(
            "fn f<T: Float>(g: &Grid<T>, x: &[T]) -> T { g.dot::<2>(x) }",
            None,
        );
        assert!(
            body.contains("Grid :: < T > :: dot :: < 2 > (g , x)"),
            "{body}"
        );
    }

    #[test]
    fn what_stays_as_written() {
        // By value: `&self` or `self` is not visible. Rebound: the receiver may not be the parameter.
        // `clone`, a float method, a constant struct's method without arguments.
        let body = rewritten("fn f(p: Model, x: f64) -> f64 { p.energy(x) }", None);
        assert!(body.contains("p . energy (x)"), "{body}");
        let body = rewritten(
            "fn f(p: &Model, x: f64) -> f64 { let s = { let p = Other; p.energy(x) }; s + p.energy(x) }",
            None,
        );
        assert!(!body.contains("Model ::"), "{body}");
        let body = rewritten(
            "fn f(p: &Model, x: f64) -> f64 { let q = p.clone(); p.sin() + x }",
            None,
        );
        assert!(!body.contains("Model ::"), "{body}");
        let body = rewritten(
            "fn f(p: &Model, x: f64) -> f64 { let n = p.count(); p.scaled(x) * n as f64 }",
            Some(&["x"]),
        );
        assert!(body.contains("p . count ()"), "{body}");
        assert!(body.contains("Model :: scaled (p , x)"), "{body}");
    }

    #[test]
    fn nested_fn_items_keep_their_own_parameters() {
        let body = rewritten(
            "fn f(p: &Model, x: f64) -> f64 { fn g(p: &Other) -> f64 { p.energy(1.0) } p.energy(x) }",
            None,
        );
        assert!(body.contains("Model :: energy (p , x)"), "{body}");
        assert!(body.contains("p . energy (1.0)"), "{body}");
    }
}
