//! The attribute's arguments: `#[differentiable]`, `#[differentiable(wrt(a, b))]`, `order = K`.

use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, LitInt, Token};

/// What `#[differentiable(...)]` was given.
#[derive(Clone, Default)]
pub(crate) struct Args {
    /// `wrt(a, b)`: the active parameters; `None` means every float parameter.
    pub(crate) wrt: Option<Vec<Ident>>,
    /// `order = K`: the highest derivative order wanted (1 if absent).
    pub(crate) order: Option<LitInt>,
    /// `__struct_whole`, not for users: the function is the hidden function of a function of parameter
    /// structs over their values views (`struct_whole.rs`), whose generic copy callers at `order = K` reach.
    pub(crate) struct_whole: bool,
    /// `__in_impl`, not for users: the function is a copy the macro writes into an `impl` block, beside
    /// the associated function or method it copies (`context.rs`).
    pub(crate) in_impl: bool,
    /// Not an argument: set by the macro itself on a generic copy made without being asked
    /// (`expand::first_order_generic_copy`), which only the generic copies of callers reach, through its
    /// companion; its expansion emits the companion and what it calls, nothing public.
    pub(crate) copy: bool,
    /// `__lift_fields`, not for users: the function is the generic copy of a method of an `f64` (or `f32`)
    /// `impl` with a constant `self`, whose fields (floats of the written type, integers) the generated code
    /// reads in the copy's float type (`__private::lift`).
    pub(crate) lift_fields: bool,
    /// `__of_trait`, not for users: the function is a method of a trait's `impl`, copied by the attribute
    /// on that `impl` into an inherent `impl` of the same type (`impls.rs`): its expansion is the generated
    /// items alone, since the trait's `impl` holds the function itself.
    pub(crate) of_trait: bool,
}

const USAGE: &str = "expected `#[differentiable]`, `#[differentiable(wrt(a, b))]` or \
                     `#[differentiable(order = 2)]`";

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut args = Args::default();
        while !input.is_empty() {
            let key: Ident = input
                .parse()
                .map_err(|e| syn::Error::new(e.span(), USAGE))?;
            if key == "wrt" {
                if args.wrt.is_some() {
                    return Err(syn::Error::new(key.span(), "`wrt` is given twice"));
                }
                if !input.peek(syn::token::Paren) {
                    return Err(syn::Error::new(
                        input.span(),
                        "`wrt` takes parameter names in parentheses: `wrt(x)` or `wrt(a, b)`",
                    ));
                }
                let content;
                let parens = syn::parenthesized!(content in input);
                // `Ident::parse_any`: `wrt(self)` names the receiver of a method.
                let names = Punctuated::<Ident, Token![,]>::parse_terminated_with(
                    &content,
                    Ident::parse_any,
                )
                .map_err(|e| {
                    syn::Error::new(e.span(), "`wrt(..)` takes parameter names: `wrt(a, b)`")
                })?;
                if names.is_empty() {
                    // Spanned on `wrt()` itself: the attribute, not the function, is what to change.
                    let mut written = key.to_token_stream();
                    parens.surround(&mut written, |_| {});
                    return Err(syn::Error::new_spanned(
                        written,
                        "`wrt()` names no parameter, so nothing would be differentiated: name the \
                         parameters to differentiate, `wrt(x)` or `wrt(a, b)`, or leave `wrt(..)` out to \
                         differentiate every float parameter",
                    ));
                }
                args.wrt = Some(names.into_iter().collect());
            } else if key == "order" {
                if args.order.is_some() {
                    return Err(syn::Error::new(key.span(), "`order` is given twice"));
                }
                input.parse::<Token![=]>()?;
                let order: LitInt = input.parse().map_err(|e| {
                    syn::Error::new(e.span(), "`order` takes an integer: `order = 2`")
                })?;
                match order.base10_parse::<u32>() {
                    Ok(1..=8) => {}
                    _ => {
                        return Err(syn::Error::new(
                            order.span(),
                            "`order` must be an integer from 1 to 8",
                        ))
                    }
                }
                args.order = Some(order);
            } else if key == "__struct_whole" {
                args.struct_whole = true;
            } else if key == "__in_impl" {
                args.in_impl = true;
            } else if key == "__lift_fields" {
                args.lift_fields = true;
            } else if key == "__of_trait" {
                args.of_trait = true;
            } else {
                return Err(syn::Error::new(
                    key.span(),
                    format!("unknown argument `{key}`: {USAGE}"),
                ));
            }
            if input.is_empty() {
                break;
            }
            input
                .parse::<Token![,]>()
                .map_err(|e| syn::Error::new(e.span(), USAGE))?;
        }
        Ok(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(tokens: &str) -> syn::Result<Args> {
        syn::parse_str(tokens)
    }

    #[test]
    fn accepts_the_documented_forms() {
        assert!(parse("").unwrap().wrt.is_none());
        let args = parse("wrt(a, b,)").unwrap();
        let names: Vec<String> = args.wrt.unwrap().iter().map(|i| i.to_string()).collect();
        assert_eq!(names, ["a", "b"]);
        let args = parse("wrt(x), order = 2").unwrap();
        assert_eq!(args.order.unwrap().base10_parse::<u32>().unwrap(), 2);
    }

    #[test]
    fn rejects_malformed_lists_with_a_message() {
        for bad in [
            "wrt",
            "wrt = x",
            "order",
            "order = x",
            "order = 0",
            "foo",
            "wrt(a) wrt(b)",
            "wrt(1)",
            "wrt()",
        ] {
            assert!(parse(bad).is_err(), "{bad} was accepted");
        }
        let message = parse("foo").err().unwrap().to_string();
        assert!(message.contains("unknown argument `foo`"), "{message}");
    }
}
