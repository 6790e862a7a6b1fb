//! Readers of the tapes that the reverse sweep only pops.
//!
//! Once the forward sweep has run, most tapes are only read back. [`Tape::pop`] tests where the tape
//! keeps its values and writes its count back to the tape at each pop, since the tape lives in memory; a
//! `TapeReader` is a pointer and a count that stay in registers through the reverse sweep's loops. So
//! each tape whose every use in the reverse sweep is `tape.pop()` is read through one, made where the
//! reverse sweep starts:
//!
//! ```text
//! // Forward sweep                      // Reverse sweep
//! __tape_u_1.push(u_1);                 let mut __tape_u_1 = __tape_u_1.reader();
//!                                       for __i in (0..steps).rev() { let u_1 = __tape_u_1.pop(); .. }
//! ```
//!
//! The reader borrows the tape mutably: should the reverse sweep also push to it (a loop whose forward
//! sweep runs again there) and this test miss it, the function would not compile; it cannot read wrong
//! values.
//!
//! [`Tape::pop`]: ../../../autodiff_core/memory/struct.Tape.html#method.pop

use proc_macro2::{Delimiter, Ident, TokenStream, TokenTree};
use quote::quote;
use std::collections::BTreeMap;

/// `let mut tape = tape.reader();` for each of `tapes` (value tapes, `Tape`) that the reverse sweep
/// `code` pops and uses in no other way.
pub(crate) fn readers(tapes: &[Ident], code: &[TokenStream]) -> TokenStream {
    if tapes.is_empty() {
        return TokenStream::new();
    }
    // Per tape: popped at least once (`Some(true)`), used otherwise (`None`).
    let mut uses: BTreeMap<String, Option<bool>> =
        tapes.iter().map(|t| (t.to_string(), Some(false))).collect();
    for stream in code {
        scan(stream.clone(), &mut uses);
    }
    let read: Vec<&Ident> = tapes
        .iter()
        .filter(|t| uses[&t.to_string()] == Some(true))
        .collect();
    quote!(#(let mut #read = #read.reader();)*)
}

/// Records in `uses` how `stream` uses each tape: `tape.pop()`, or otherwise.
fn scan(stream: TokenStream, uses: &mut BTreeMap<String, Option<bool>>) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Group(group) => scan(group.stream(), uses),
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                if !name.starts_with("__tape_") {
                    continue;
                }
                if let Some(state) = uses.get_mut(&name) {
                    let popped = is_pop(&tokens[i + 1..]);
                    *state = state.filter(|_| popped).map(|_| true);
                }
            }
            _ => {}
        }
    }
}

/// Do `rest` start with `.pop()`?
fn is_pop(rest: &[TokenTree]) -> bool {
    matches!(
        rest,
        [TokenTree::Punct(dot), TokenTree::Ident(method), TokenTree::Group(args), ..]
            if dot.as_char() == '.'
                && method == "pop"
                && args.delimiter() == Delimiter::Parenthesis
                && args.stream().is_empty()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    fn tapes(names: &[&str]) -> Vec<Ident> {
        names
            .iter()
            .map(|n| Ident::new(n, Span::call_site()))
            .collect()
    }

    #[test]
    fn a_tape_only_popped_is_read() {
        let code = vec![quote! {
            for __i in (0..n).rev() {
                let x = __tape_x.pop();
                if c { let y = __tape_y.pop(); }
            }
        }];
        let got = readers(&tapes(&["__tape_x", "__tape_y"]), &code).to_string();
        let want = quote! {
            let mut __tape_x = __tape_x.reader();
            let mut __tape_y = __tape_y.reader();
        };
        assert_eq!(got, want.to_string());
    }

    #[test]
    fn a_tape_pushed_or_reserved_again_is_not() {
        let code = vec![
            quote!(let x = __tape_x.pop();),
            quote!({
                __tape_x.push(x);
                __tape_y.reserve(n);
                let y = __tape_y.pop();
            }),
        ];
        assert!(readers(&tapes(&["__tape_x", "__tape_y"]), &code).is_empty());
    }

    #[test]
    fn a_tape_not_popped_or_passed_on_is_not() {
        // `__tape_z` is not used by the reverse sweep (a fused loop pops it in the forward sweep);
        // `__tape_w` is passed by name.
        let code = vec![quote!(let w = f(&mut __tape_w); let v = __tape_v.pop(1);)];
        assert!(readers(&tapes(&["__tape_z", "__tape_w", "__tape_v"]), &code).is_empty());
    }
}
