//! Forms the differential fuzzer writes with `--sugar` (`fuzz/src/gen/sugar.rs`) where it found wrong
//! values. Every function folds its items in an order-dependent way (Horner's rule), so a loop that visits
//! the wrong items, or in the wrong order, changes the value; each is checked against the same body without
//! the macro (`plain_*`, the same text), the gradient against central differences and the Hessian against
//! central differences of the gradient, on many random inputs.
//!
//! Before this file, a second `.step_by(k)` replaced the first instead of multiplying it: `_grad` of
//! `for i in (0..n).step_by(2).step_by(2)` ran over `0, 2, 4, ..` where the function visits `0, 4, 8, ..`
//! (the value right, the gradient wrong; `autodiff-fuzz --sugar --seed 24003`, program p12). And the
//! guards of a `match` inside `vec![..]` were not rewritten: `_grad` took the first arm whose pattern
//! matched, its value another arm's (`--sugar --seed 24024`, program p41).

mod common;

use autodiff::differentiable;
use common::{check_slice_and_scalar, config};
use proptest::prelude::*;

#[differentiable(order = 2)]
fn step_twice(x: &[f64], c: f64) -> f64 {
    let mut s = 0.5;
    for i in (0..x.len()).step_by(2).step_by(2) {
        s = s * c + x[i];
    }
    s
}

fn plain_step_twice(x: &[f64], c: f64) -> f64 {
    let mut s = 0.5;
    for i in (0..x.len()).step_by(2).step_by(2) {
        s = s * c + x[i];
    }
    s
}

#[differentiable(order = 2)]
fn rev_step_twice(x: &[f64], c: f64) -> f64 {
    let mut s = 0.5;
    for i in (0..x.len()).rev().step_by(3).step_by(3) {
        s = s * c + x[i];
    }
    s
}

fn plain_rev_step_twice(x: &[f64], c: f64) -> f64 {
    let mut s = 0.5;
    for i in (0..x.len()).rev().step_by(3).step_by(3) {
        s = s * c + x[i];
    }
    s
}

#[differentiable(order = 2)]
fn rev_step_products(x: &[f64], c: f64) -> f64 {
    let mut s = 0.5;
    for i in (1..x.len()).rev().step_by(2).step_by(3) {
        s = s * c + x[i] * x[i - 1];
    }
    for i in (0..=x.len() - 1).step_by(3).step_by(2).step_by(1) {
        s = s * c - x[i];
    }
    s
}

fn plain_rev_step_products(x: &[f64], c: f64) -> f64 {
    let mut s = 0.5;
    for i in (1..x.len()).rev().step_by(2).step_by(3) {
        s = s * c + x[i] * x[i - 1];
    }
    for i in (0..=x.len() - 1).step_by(3).step_by(2).step_by(1) {
        s = s * c - x[i];
    }
    s
}

// `vec!`, not an array: the form that went wrong.
#[allow(clippy::useless_vec)]
#[differentiable(order = 2)]
fn guards_in_vec(x: &[f64], c: f64) -> f64 {
    let n = x.len() % 3;
    let a = vec![
        match n {
            m if m < 1 => c * x[0],
            k if c * x[0] >= 0.2 => x[k % x.len()] * c + k as f64,
            1 if x.iter().rev().fold(0.3, |acc, &v| acc * 0.6 + v) < 1.1 => {
                x.iter().fold(0.8, |acc, &v| acc * c + v)
            }
            1 => c * c,
            _ => 2.8 * c,
        };
        3
    ];
    a[n] * c + a[0]
}

#[allow(clippy::useless_vec)]
fn plain_guards_in_vec(x: &[f64], c: f64) -> f64 {
    let n = x.len() % 3;
    let a = vec![
        match n {
            m if m < 1 => c * x[0],
            k if c * x[0] >= 0.2 => x[k % x.len()] * c + k as f64,
            1 if x.iter().rev().fold(0.3, |acc, &v| acc * 0.6 + v) < 1.1 => {
                x.iter().fold(0.8, |acc, &v| acc * c + v)
            }
            1 => c * c,
            _ => 2.8 * c,
        };
        3
    ];
    a[n] * c + a[0]
}

proptest! {
    #![proptest_config(config())]

    /// A `match` with guards and bindings inside `vec![..]`: before, its guards were not rewritten there
    /// and `_grad` took the first arm whose pattern matched.
    #[test]
    fn guards_inside_vec_are_tested(
        x in prop::collection::vec(-1.5..1.5f64, 1..7),
        c in -1.5..1.5f64,
    ) {
        check_slice_and_scalar(
"guards_in_vec", guards_in_vec, plain_guards_in_vec, guards_in_vec_grad, guards_in_vec_hessian, &x, c);
    }

    #[test]
    fn stepped_twice(
        x in prop::collection::vec(-1.5..1.5f64, 1..12),
        c in -1.5..1.5f64,
    ) {
        check_slice_and_scalar(
"step_twice", step_twice, plain_step_twice, step_twice_grad, step_twice_hessian, &x, c);
        check_slice_and_scalar(
"rev_step_twice", rev_step_twice, plain_rev_step_twice, rev_step_twice_grad, rev_step_twice_hessian, &x, c);
        check_slice_and_scalar(
"rev_step_products", rev_step_products, plain_rev_step_products, rev_step_products_grad, rev_step_products_hessian, &x, c);
    }
}
