//! The compile-time errors of `#[differentiable]` (`tests/ui/<category>/<error-name>.rs` with the expected
//! `.stderr` beside each case) and programs that must compile and run (`tests/ui-pass/`).
//!
//! After a deliberate change of a message, regenerate the expected output with
//! `TRYBUILD=overwrite cargo test --test compiletest` and review the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
    cases.pass("tests/ui-pass/*.rs");
}
