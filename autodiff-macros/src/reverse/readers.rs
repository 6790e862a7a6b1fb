//! Readers of the tapes that the reverse sweep reads back.
//!
//! [`Tape::pop`] tests where the tape keeps its values and writes its count back to the tape at each pop,
//! since the tape lives in memory; a `TapeReader` is a pointer and a count that stay in registers through
//! the reverse sweep's loops, and gives the values it has not taken back to the tape when it is dropped, so
//! reading through one is exactly a sequence of pops. Once the forward sweep has run, most value tapes are
//! only read back, and each of those (`Emitter::tapes_read_back`: not those of the fused loops, whose
//! iterations pop what they push inside the forward sweep, nor those a branch recomputed in the reverse
//! sweep pushes again) is read through one, made where the reverse sweep starts:
//!
//! ```text
//! // Forward sweep                      // Reverse sweep
//! __tape_u_1.push(u_1);                 let mut __tape_u_1 = __tape_u_1.reader();
//!                                       for __i in (0..steps).rev() { let u_1 = __tape_u_1.pop(); .. }
//! ```
//!
//! The reader borrows the tape mutably: should the reverse sweep push to a tape the emitter did not
//! record, the function would not compile (tests/loops.rs `invariant_reads` did, before the recorded
//! pushes); it cannot read wrong values.
//!
//! [`Tape::pop`]: ../../../autodiff_core/memory/struct.Tape.html#method.pop

use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// `let mut tape = tape.reader();` for each of `tapes`.
pub(crate) fn readers(tapes: &[Ident]) -> TokenStream {
    quote!(#(let mut #tapes = #tapes.reader();)*)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    #[test]
    fn each_tape_is_shadowed_by_its_reader() {
        let tapes = [
            Ident::new("__tape_x", Span::call_site()),
            Ident::new("__tape_y", Span::call_site()),
        ];
        let want = quote! {
            let mut __tape_x = __tape_x.reader();
            let mut __tape_y = __tape_y.reader();
        };
        assert_eq!(readers(&tapes).to_string(), want.to_string());
        assert!(readers(&[]).is_empty());
    }
}
