//! `.rev()` on slice iterators, also after `.enumerate()` and twice: the loop's direction and each
//! element's count must be Rust's. Every function folds its elements in an order-dependent way
//! (Horner's rule), so a loop run the wrong way changes the value, and each is checked against the same
//! body without the macro (`plain_*`, the same text), the gradient against central differences and the Hessian against
//! central differences of the gradient, on many random inputs.
//!
//! Before this file, a second `.rev()` did not turn the loop around again: `_grad` of
//! `for i in (0..n).rev().rev()` ran the loop backwards (value 321 where the function gives 123).

mod common;

use autodiff::differentiable;
use common::{assert_fd_gradient, assert_jacobian, check_slice_and_scalar, config, fd_jacobian};
use proptest::prelude::*;

#[differentiable(order = 2)]
fn range_twice(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev().rev() {
        s = s * c + x[i];
    }
    s
}

fn plain_range_twice(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev().rev() {
        s = s * c + x[i];
    }
    s
}

#[differentiable(order = 2)]
fn slice_twice(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for &v in x.iter().rev().rev() {
        s = s * c + v;
    }
    s
}

fn plain_slice_twice(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for &v in x.iter().rev().rev() {
        s = s * c + v;
    }
    s
}

#[differentiable(order = 2)]
fn enumerate_rev(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate().rev() {
        s = s * c + v * (i as f64 + 1.0);
    }
    s
}

fn plain_enumerate_rev(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate().rev() {
        s = s * c + v * (i as f64 + 1.0);
    }
    s
}

#[differentiable(order = 2)]
fn rev_enumerate_rev(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for (k, &v) in x.iter().rev().enumerate().rev() {
        s = s * c + v * (k as f64 + 0.5);
    }
    s
}

fn plain_rev_enumerate_rev(x: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for (k, &v) in x.iter().rev().enumerate().rev() {
        s = s * c + v * (k as f64 + 0.5);
    }
    s
}

#[differentiable(order = 2)]
fn zip_enumerate_rev(a: &[f64], b: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for (i, (&p, &q)) in a.iter().zip(b[1..].iter()).enumerate().rev() {
        s = s * c + p * q * (i as f64 + 1.0);
    }
    s
}

fn plain_zip_enumerate_rev(a: &[f64], b: &[f64], c: f64) -> f64 {
    let mut s = 0.0;
    for (i, (&p, &q)) in a.iter().zip(b[1..].iter()).enumerate().rev() {
        s = s * c + p * q * (i as f64 + 1.0);
    }
    s
}

#[differentiable(order = 2)]
fn fold_enumerate_rev(x: &[f64], c: f64) -> f64 {
    x.iter()
        .enumerate()
        .rev()
        .fold(0.0, |s, (i, &v)| s * c + v * (i as f64 + 2.0))
}

fn plain_fold_enumerate_rev(x: &[f64], c: f64) -> f64 {
    x.iter()
        .enumerate()
        .rev()
        .fold(0.0, |s, (i, &v)| s * c + v * (i as f64 + 2.0))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn reversed_slices_run_as_rust_runs_them(
        x in prop::collection::vec(-1.5..1.5f64, 1..6),
        c in -1.5..1.5f64,
    ) {
        check_slice_and_scalar(
"range_twice", range_twice, plain_range_twice, range_twice_grad, range_twice_hessian, &x, c);
        check_slice_and_scalar(
"slice_twice", slice_twice, plain_slice_twice, slice_twice_grad, slice_twice_hessian, &x, c);
        check_slice_and_scalar(
"enumerate_rev", enumerate_rev, plain_enumerate_rev, enumerate_rev_grad, enumerate_rev_hessian, &x, c);
        check_slice_and_scalar(
"rev_enumerate_rev", rev_enumerate_rev, plain_rev_enumerate_rev, rev_enumerate_rev_grad, rev_enumerate_rev_hessian, &x, c);
        check_slice_and_scalar(
"fold_enumerate_rev", fold_enumerate_rev, plain_fold_enumerate_rev, fold_enumerate_rev_grad, fold_enumerate_rev_hessian, &x, c);
    }

    /// A zip of unequal lengths (`b[1..]` may be longer or shorter than `a`) run backwards: Rust trims
    /// the longer side first, so the loop starts at the last index of the shorter.
    #[test]
    fn reversed_zips_start_at_the_shorter_end(
        a in prop::collection::vec(-1.5..1.5f64, 1..6),
        b in prop::collection::vec(-1.5..1.5f64, 2..7),
        c in -1.5..1.5f64,
    ) {
        let (na, nb) = (a.len(), b.len());
        let (value, (ga, gb, gc)) = zip_enumerate_rev_grad(&a, &b, c);
        prop_assert_eq!(value, plain_zip_enumerate_rev(&a, &b, c));
        let flat: Vec<f64> = a.iter().chain(&b).copied().chain([c]).collect();
        let g: Vec<f64> = ga.iter().chain(&gb).copied().chain([gc]).collect();
        let split = |p: &[f64]| (p[..na].to_vec(), p[na..na + nb].to_vec(), p[na + nb]);
        assert_fd_gradient(
            |p| {
                let (a, b, c) = split(p);
                plain_zip_enumerate_rev(&a, &b, c)
            },
            &flat,
            &g,
            "zip_enumerate_rev",
        );
        let (_, _, h) = zip_enumerate_rev_hessian(&a, &b, c);
        let grad = |p: &[f64]| {
            let (a, b, c) = split(p);
            let (_, (ga, gb, gc)) = zip_enumerate_rev_grad(&a, &b, c);
            ga.iter().chain(&gb).copied().chain([gc]).collect::<Vec<f64>>()
        };
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "zip_enumerate_rev");
    }
}
