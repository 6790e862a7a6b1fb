//! The compile-time errors of `#[differentiable]` (`tests/ui/<category>/<error-name>.rs` with the expected
//! `.stderr` beside each case, and `tests/ui-optimised/` for the optimised adjoint only) and programs that
//! must compile and run (`tests/ui-pass/`).
//!
//! After a deliberate change of a message, regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test compiletest` and review the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
    // Errors that rustc reports at names of generated items the reference adjoint (feature
    // `reference-adjoint`) does not emit alike (`__f_vjp_into`): checked with the optimised adjoint only.
    #[cfg(not(feature = "reference-adjoint"))]
    cases.compile_fail("tests/ui-optimised/*.rs");
    cases.pass("tests/ui-pass/*.rs");
}
