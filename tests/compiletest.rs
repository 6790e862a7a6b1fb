//! The compile-time errors of `#[differentiable]` (`tests/ui/<category>/<error-name>.rs` with the expected
//! `.stderr` beside each case) and programs that must compile and run (`tests/ui-pass/`).
//!
//! After a deliberate change of a message, regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test compiletest` and review the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
    // Cases whose expected output names the generated functions an error is instantiated through, which
    // depend on the shortcuts of the reverse sweep: the optimised adjoint reaches a missing generic copy
    // through `vjp_into`, the reference adjoint (`--features reference-adjoint`) through `vjp`. The same
    // errors, spanned alike; the notes name other functions.
    #[cfg(not(feature = "reference-adjoint"))]
    cases.compile_fail("tests/ui-optimised/*.rs");
    cases.pass("tests/ui-pass/*.rs");
}
