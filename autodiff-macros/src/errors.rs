//! Collects the errors of one macro invocation so that all of them are reported in one run
//! (the pattern of serde_derive's `Ctxt`).

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::fmt::Display;

/// Errors found so far; the passes push to it and keep going where they can.
#[derive(Default)]
pub(crate) struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    /// Records an error spanned on `node`, the user's own code.
    pub(crate) fn spanned<T: ToTokens, M: Display>(&mut self, node: T, message: M) {
        self.errors.push(syn::Error::new_spanned(node, message));
    }

    /// Records an error at `span`.
    pub(crate) fn at<M: Display>(&mut self, span: proc_macro2::Span, message: M) {
        self.errors.push(syn::Error::new(span, message));
    }

    /// Records an error that was already built.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// How many errors were recorded.
    pub(crate) fn len(&self) -> usize {
        self.errors.len()
    }

    /// The messages recorded, for unit tests.
    #[cfg(test)]
    pub(crate) fn messages(&self) -> Vec<String> {
        self.errors.iter().map(ToString::to_string).collect()
    }

    /// All errors as one `compile_error!` per error, or `Ok` if there were none.
    pub(crate) fn finish(self) -> Result<(), TokenStream> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(self
                .errors
                .iter()
                .map(syn::Error::to_compile_error)
                .collect())
        }
    }
}
