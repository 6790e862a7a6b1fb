//! Sorting a `Vec` of floats in place (`v.sort_by(|a, b| a.partial_cmp(b).unwrap())`), rewritten on the
//! syntax, before the chains and the fence, into what a sort is to a derivative: the permutation it
//! applies, integer data computed from the values (`autodiff_core`'s `stable_order_partial` and
//! `stable_order_total`, std's stable sort of the indexes `0..n` by the same comparison, `O(n log n)`), then
//! a gather of a copy by it, whose loads and stores the later passes differentiate (the adjoint of the
//! gather is a scatter, its tangent the same gather).
//!
//! ```text
//! // Input:                                         // Output:
//! v.sort_by(|a, b| a.partial_cmp(b).unwrap());      {
//!                                                       let __order_1: ::std::vec::Vec<usize> =
//!                                                           ::autodiff::__private::stable_order_partial(&v, false);
//!                                                       let __unsorted_2 = v.to_vec();
//!                                                       for __k_3 in 0..v.len() {
//!                                                           v[__k_3] = __unsorted_2[__order_1[__k_3]];
//!                                                       }
//!                                                   }
//! ```
//!
//! A sort permutes its elements, so its derivative is the permutation's: the cotangent of `v[k]` after the
//! sort flows to the element that landed at `k`. The permutation is the one std's stable `sort_by` applies,
//! so elements that compare `Equal` keep their order; `sort_unstable_by` may leave equal elements in another
//! order, whose values are the same (up to the sign of a zero under `partial_cmp`), and is given the stable
//! sort's. The comparator is one `max_by` reads (`std_forms::comparator`): `a.partial_cmp(b).unwrap()`
//! (the helper panics on a NaN with the message of that `unwrap`, as the primal does) or `a.total_cmp(b)`
//! (never a panic; on dual numbers, which have no `total_cmp`, by value), either order for a descending
//! sort, or `f64::total_cmp`. A comparator of a key of each element (`|&i, &j| x[i].partial_cmp(&x[j])
//! .unwrap()`, an argsort of an index `Vec`; `|a, b| a.abs().total_cmp(&b.abs())`) gathers the keys once
//! each into a `Vec` (`keys.push(x[i])` for each element) and sorts by them, as does `v.sort_by_key(|a| key)`
//! (or `sort_by_cached_key`) by its keys of an `Ord` type (`sort_unstable_by_key` is an error: its order of
//! equal keys, whose elements may differ, is not std's stable one). The function itself runs as
//! written; only its generated items sort so. The activity analysis reads the permutation as integers
//! (`shadow::is_sort_order`): it has no derivative, and every generated item, a generic copy on dual
//! numbers too, calls the helper as written. `select_nth_unstable_by` leaves the elements other than the
//! `k`-th in an order std does not specify, which the generated items cannot follow: an error saying to
//! sort.

use crate::errors::Errors;
use crate::std_forms::{comparator, comparison, Compare, Comparison};
use proc_macro2::Span;
use quote::format_ident;
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Stmt};

/// `block` with its in-place sorts of a local rewritten into loops; errors for the sorts that cannot be.
pub(crate) fn desugar(block: &mut syn::Block, errors: &mut Errors) {
    Sorts { errors, counter: 0 }.visit_block_mut(block);
}

/// Does `name` sort (or partly sort) a slice in place by a closure or a key?
fn sorting(name: &str) -> bool {
    matches!(
        name,
        "sort_by"
            | "sort_unstable_by"
            | "sort_by_key"
            | "sort_unstable_by_key"
            | "sort_by_cached_key"
            | "select_nth_unstable_by"
            | "select_nth_unstable_by_key"
    )
}

struct Sorts<'e> {
    errors: &'e mut Errors,
    counter: usize,
}

impl Sorts<'_> {
    fn fresh(&mut self, what: &str) -> syn::Ident {
        self.counter += 1;
        format_ident!("__{}_{}", what, self.counter, span = Span::mixed_site())
    }

    /// The loop `m` (`v.sort_by(cmp)` as a statement) stands for, or an error where it is a sort the
    /// generated items cannot follow; `None` for any other method call.
    fn sort(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let method = m.method.to_string();
        if !sorting(&method) {
            return None;
        }
        let receiver = match strip_parens(&m.receiver) {
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                Some(p.path.clone())
            }
            _ => None,
        };
        // The comparator of the elements themselves, else of a key of each (`|&i, &j| x[i].partial_cmp(&x[j])
        // .unwrap()`, an argsort): the key's binding and expression.
        let (compare, key) = match (method.as_str(), m.args.len()) {
            ("sort_by" | "sort_unstable_by", 1) => match comparator(&m.args[0]) {
                Some(compare) => (Some(compare), None),
                None => match keyed(&m.args[0]) {
                    Some((compare, key)) => (Some(compare), Some(key)),
                    None => (None, None),
                },
            },
            // A key function of each element, of an `Ord` type (`|&i| group[i]`): std's stable sort by it.
            // Not `sort_unstable_by_key`, which may leave elements of equal keys, of other values, in an
            // order the generated items cannot follow.
            ("sort_by_key" | "sort_by_cached_key", 1) => match key_function(&m.args[0]) {
                Some(key) => (Some(Compare::Ord), Some(key)),
                None => (None, None),
            },
            _ => (None, None),
        };
        let (Some(v), Some(compare), None) = (receiver, compare, &m.turbofish) else {
            let message = match method.as_str() {
                "select_nth_unstable_by" | "select_nth_unstable_by_key" => format!(
                    "`.{method}(..)` leaves the elements other than the `k`-th in an order std does \
                     not specify, which a derivative cannot follow: sort the copy instead \
                     (`v.sort_by(|a, b| a.partial_cmp(b).unwrap())`) and read `v[k]`"
                ),
                _ => format!(
                    "`.{method}(..)` is differentiated as `v.sort_by(cmp)` or `v.sort_unstable_by(cmp)` \
                     of a local `Vec` (or a `&mut` slice) named by a path, with the comparator \
                     `|a, b| a.partial_cmp(b).unwrap()`, `|a, b| a.total_cmp(b)` (either order, for a \
                     descending sort), `f64::total_cmp`, or one of a key of each element written the same \
                     for both (`|&i, &j| x[i].partial_cmp(&x[j]).unwrap()`), or as `v.sort_by_key(|a| key)` \
                     (its stable order; not `sort_unstable_by_key`, whose order of equal keys std does not \
                     specify): write the sort so, or sort with a `for` loop"
                ),
            };
            self.errors.spanned(m, message);
            return Some(syn::parse_quote!(()));
        };
        let (order, unsorted, k) = (self.fresh("order"), self.fresh("unsorted"), self.fresh("k"));
        // The values compared: the elements themselves, or their keys gathered once each into a `Vec`.
        let (keys, compared): (Vec<Stmt>, Expr) = match &key {
            None => (Vec::new(), syn::parse_quote!(&#v)),
            Some((binding, key)) => {
                let (keys, at) = (self.fresh("keys"), self.fresh("at"));
                (
                    vec![
                        syn::parse_quote!(let mut #keys = ::std::vec::Vec::with_capacity(#v.len());),
                        syn::parse_quote! {
                            for #at in 0..#v.len() {
                                let #binding = #v[#at];
                                #keys.push(#key);
                            }
                        },
                    ],
                    syn::parse_quote!(&#keys),
                )
            }
        };
        let (helper, descending) = match compare {
            Compare::Partial(descending) => (format_ident!("stable_order_partial"), descending),
            Compare::Total(descending) => (format_ident!("stable_order_total"), descending),
            // The keys of `sort_by_key`, of an `Ord` type, which `partial_cmp` orders the same.
            Compare::Ord => (format_ident!("stable_order_partial"), false),
        };
        let span = m.method.span();
        Some(syn::parse_quote_spanned! {span=>
            {
                #(#keys)*
                let #order: ::std::vec::Vec<usize> = ::autodiff::__private::#helper(#compared, #descending);
                let #unsorted = #v.to_vec();
                for #k in 0..#v.len() {
                    #v[#k] = #unsorted[#order[#k]];
                }
            }
        })
    }
}

// Input:  |&i, &j| x[i].partial_cmp(&x[j]).unwrap()      |a, b| b.abs().total_cmp(&a.abs())
// Output: (Partial(false), (i, x[i]))                     (Total(true), (a, a.abs()))
/// A comparator of a key of each element, the same expression of either parameter (`x[i]`, `a.abs()`),
/// compared by `partial_cmp(..).unwrap()` or `total_cmp`: how, and the key as an expression of a binding
/// of the element by value (the closure's parameters by value, `chains::by_value`).
fn keyed(arg: &Expr) -> Option<(Compare, (syn::Ident, Expr))> {
    let Expr::Closure(c) = strip_parens(arg) else {
        return None;
    };
    let Comparison {
        partial,
        params: (a, b),
        compared: (p, q),
    } = comparison(&crate::chains::by_value(c))?;
    // `p` of `a` alone and `q` the same of `b` (ascending), or the other way (descending).
    let of = |e: &Expr, x: &syn::Ident, y: &syn::Ident, other: &Expr| {
        let tokens = e.to_token_stream();
        crate::naming::names_any(tokens.clone(), &[&x.to_string()])
            && !crate::naming::names_any(tokens, &[&y.to_string()])
            && renamed(e, x, y).to_token_stream().to_string() == other.to_token_stream().to_string()
    };
    let (reversed, key, binding) = if of(&p, &a, &b, &q) {
        (false, p, a)
    } else if of(&p, &b, &a, &q) {
        (true, q, a)
    } else {
        return None;
    };
    let compare = match partial {
        true => Compare::Partial(reversed),
        false => Compare::Total(reversed),
    };
    Some((compare, (binding, key)))
}

// Input:  |&i| group[i]             |a| (a * 8.0) as i64
// Output: (i, group[i])             (a, (a * 8.0) as i64)
/// A key function of one parameter: the binding of the element by value (`chains::by_value`) and the key.
fn key_function(arg: &Expr) -> Option<(syn::Ident, Expr)> {
    let Expr::Closure(c) = strip_parens(arg) else {
        return None;
    };
    if c.inputs.len() != 1 || c.capture.is_some() {
        return None;
    }
    let c = crate::chains::by_value(c);
    match &c.inputs[0] {
        syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
            Some((i.ident.clone(), (*c.body).clone()))
        }
        _ => None,
    }
}

/// `e` with the name `from` replaced by `to` wherever a path is that name alone.
fn renamed(e: &Expr, from: &syn::Ident, to: &syn::Ident) -> Expr {
    struct Rename<'a>(&'a syn::Ident, &'a syn::Ident);
    impl VisitMut for Rename<'_> {
        fn visit_path_mut(&mut self, p: &mut syn::Path) {
            if p.is_ident(self.0) {
                *p = syn::Path::from(self.1.clone());
            }
            visit_mut::visit_path_mut(self, p);
        }
    }
    let mut e = e.clone();
    Rename(from, to).visit_expr_mut(&mut e);
    e
}

impl VisitMut for Sorts<'_> {
    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Expr(Expr::MethodCall(m), Some(semi)) = stmt {
            let semi = *semi;
            if let Some(sorted) = self.sort(m) {
                *stmt = Stmt::Expr(sorted, Some(semi));
                return;
            }
        }
        visit_mut::visit_stmt_mut(self, stmt);
    }

    // A sort whose `()` is a value (`if c { v.sort_by(..) }`): the same rewrite, in a block.
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::MethodCall(m) = expr {
            if let Some(sorted) = self.sort(m) {
                *expr = syn::parse_quote!({ #sorted });
                return;
            }
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `e` without its parentheses.
fn strip_parens(mut e: &Expr) -> &Expr {
    while let Expr::Paren(p) = e {
        e = &p.expr;
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn rewrite(body: &str) -> (String, Vec<String>) {
        let mut block: syn::Block = syn::parse_str(body).unwrap();
        let mut errors = Errors::default();
        desugar(&mut block, &mut errors);
        (block.to_token_stream().to_string(), errors.messages())
    }

    #[test]
    fn a_sort_is_its_permutation_then_a_gather_of_a_copy() {
        let (out, errors) = rewrite("{ v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[0] }");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            out.contains(
                "let __order_1 : :: std :: vec :: Vec < usize > = :: autodiff :: __private :: stable_order_partial (& v , false) ;"
            ),
            "{out}"
        );
        assert!(out.contains("let __unsorted_2 = v . to_vec () ;"), "{out}");
        assert!(
            out.contains(
                "for __k_3 in 0 .. v . len () { v [__k_3] = __unsorted_2 [__order_1 [__k_3]] ; }"
            ),
            "{out}"
        );
        assert!(!out.contains("sort_by"), "{out}");
        // Descending, by `total_cmp`: the total order's helper (no panic on a NaN), reversed.
        let (out, errors) = rewrite("{ v.sort_unstable_by(|a, b| b.total_cmp(a)); }");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(out.contains("stable_order_total (& v , true)"), "{out}");
        let (out, errors) = rewrite("{ w.sort_by(f64::total_cmp); }");
        assert!(
            errors.is_empty() && out.contains("stable_order_total (& w , false)"),
            "{out}"
        );
    }

    #[test]
    fn other_sorts_and_comparators_are_errors_saying_what_to_write() {
        let (_, errors) = rewrite("{ v.select_nth_unstable_by(2, |a, b| a.total_cmp(b)); }");
        assert!(errors[0].contains("sort the copy instead"), "{errors:?}");
        let (_, errors) =
            rewrite("{ v.sort_by(|a, b| (a * a).partial_cmp(&(b * 2.0)).unwrap()); }");
        assert!(errors[0].contains("with the comparator"), "{errors:?}");
        let (_, errors) = rewrite("{ m[0].sort_by(|a, b| a.total_cmp(b)); }");
        assert_eq!(errors.len(), 1, "{errors:?}");
        // A key of each element, the same for both (an argsort): the keys gathered once each, sorted.
        let (out, errors) = rewrite("{ idx.sort_by(|&i, &j| x[j].partial_cmp(&x[i]).unwrap()); }");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            out.contains("for __at_5 in 0 .. idx . len () { let i = idx [__at_5] ; __keys_4 . push (x [i]) ; }"),
            "{out}"
        );
        assert!(
            out.contains("stable_order_partial (& __keys_4 , true)"),
            "{out}"
        );
        let (_, errors) = rewrite("{ idx.sort_by(|&i, &j| x[i].partial_cmp(&y[j]).unwrap()); }");
        assert_eq!(errors.len(), 1, "{errors:?}");
        // A key function, of an `Ord` type: its keys gathered, sorted stably.
        let (out, errors) = rewrite("{ idx.sort_by_key(|&i| i % 2); }");
        assert!(errors.is_empty(), "{errors:?}");
        assert!(
            out.contains("let i = idx [__at_5] ; __keys_4 . push (i % 2) ;")
                && out.contains("stable_order_partial (& __keys_4 , false)"),
            "{out}"
        );
        let (_, errors) = rewrite("{ idx.sort_unstable_by_key(|&i| i % 2); }");
        assert!(
            errors[0].contains("not `sort_unstable_by_key`"),
            "{errors:?}"
        );
        // Not a sort: left alone.
        let (out, errors) = rewrite("{ v.sort(); }");
        assert!(errors.is_empty() && out.contains("v . sort ()"), "{out}");
    }
}
