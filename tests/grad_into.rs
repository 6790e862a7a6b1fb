//! `f_grad_into`: the gradient written into buffers the caller owns, checked against `f_grad` and against
//! central finite differences, and counted for allocations.

// Indexed loops are the form users write.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{assert_all_close, assert_fd_gradient, config};
use proptest::prelude::*;

#[path = "common/counting.rs"]
mod counting;
use counting::allocations_during;

/// The reference adjoint (feature `reference-adjoint`) stores every value its loops read on tapes, which
/// allocate: the allocation counts are those of the optimised adjoint.
const OPTIMISED: bool = !cfg!(feature = "reference-adjoint");

#[differentiable]
fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = 1.0 - x[i];
        s += t * 100.0 * t + u * u;
    }
    s
}

#[differentiable]
fn scaled(a: f64, x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += a * x[i] * x[i];
    }
    s * a
}

#[differentiable]
fn pair<T: Float>(p: [T; 2], w: &T) -> T {
    p[0] * p[1] * *w + p[1].exp()
}

#[differentiable(wrt(w))]
fn loss(w: &[f64], data: &[f64], labels: &[usize]) -> f64 {
    let mut s = 0.0;
    for i in 0..labels.len() {
        let r = w[labels[i]] * data[i] - 1.0;
        s += r * r;
    }
    s
}

#[test]
fn rosenbrock_into_a_slice_allocates_nothing() {
    let x = vec![-1.2, 1.0, 0.5, 2.0];
    let mut grad = vec![f64::NAN; 4]; // overwritten, whatever was there
    let mut value = 0.0;
    let n = allocations_during(|| value = rosenbrock_grad_into(&x, &mut grad));
    assert!(n == 0 || !OPTIMISED, "f_grad_into allocated");
    let (expected_value, expected) = rosenbrock_grad(&x);
    assert_eq!(value, expected_value);
    assert_eq!(grad, expected);
}

#[test]
fn several_parameters_take_a_tuple_of_buffers() {
    let x = [0.3, -0.4, 1.1];
    let (mut da, mut dx) = (f64::NAN, vec![7.0; 3]);
    let n = allocations_during(|| {
        scaled_grad_into(1.5, &x, 3, (&mut da, &mut dx));
    });
    assert!(n == 0 || !OPTIMISED, "f_grad_into allocated");
    let (value, (ea, ex)) = scaled_grad(1.5, &x, 3);
    assert_eq!(value, scaled(1.5, &x, 3));
    assert_eq!((da, &dx), (ea, &ex));
    // Called again on the same buffers: overwritten, not accumulated.
    scaled_grad_into(1.5, &x, 3, (&mut da, &mut dx));
    assert_eq!((da, &dx), (ea, &ex));
}

#[test]
fn arrays_and_references_and_generic_floats() {
    let (mut dp, mut dw) = ([0.0f32; 2], 0.0f32);
    let value = pair_grad_into([1.5, -0.5], &2.0, (&mut dp, &mut dw));
    let (expected_value, (ep, ew)) = pair_grad([1.5f32, -0.5], &2.0);
    assert_eq!(value, expected_value);
    assert_eq!(value, pair([1.5f32, -0.5], &2.0));
    assert_eq!((dp, dw), (ep, ew));
}

#[test]
fn wrt_chooses_the_buffers() {
    let (w, data, labels) = ([0.5, -1.0], [1.0, 2.0, 3.0], [0usize, 1, 0]);
    let mut dw = [0.0; 2];
    let value = loss_grad_into(&w, &data, &labels, &mut dw);
    assert_eq!(value, loss(&w, &data, &labels));
    assert_eq!(dw.to_vec(), loss_grad(&w, &data, &labels).1);
}

#[test]
#[should_panic(expected = "the gradient buffer of `x` has length 2 but `x` has length 3")]
fn a_buffer_of_the_wrong_length_is_reported() {
    rosenbrock_grad_into(&[1.0, 2.0, 3.0], &mut [0.0; 2]);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn into_matches_finite_differences(x in prop::collection::vec(-2.0f64..2.0, 2..8)) {
        let mut grad = vec![0.0; x.len()];
        rosenbrock_grad_into(&x, &mut grad);
        assert_fd_gradient(rosenbrock, &x, &grad, "rosenbrock_grad_into");
        assert_all_close(&grad, &rosenbrock_grad(&x).1, 0.0, "against rosenbrock_grad");
    }
}

#[autodiff::custom_gradient]
fn log1pexp(x: f64, w: &[f64]) -> (f64, impl Fn(f64) -> (f64, Vec<f64>)) {
    let e = x.exp();
    let s = w[0] * w[1];
    let grad_w = [w[1], w[0]];
    ((1.0 + e).ln() + s, move |dy| {
        (
            dy * (1.0 - 1.0 / (1.0 + e)),
            grad_w.iter().map(|g| dy * g).collect(),
        )
    })
}

#[test]
fn custom_gradients_write_into_buffers_too() {
    let (mut dx, mut dw) = (0.0, [0.0; 2]);
    let value = log1pexp_grad_into(0.5, &[2.0, -3.0], (&mut dx, &mut dw));
    assert_eq!(value, log1pexp(0.5, &[2.0, -3.0]));
    let (_, (ex, ew)) = log1pexp_grad(0.5, &[2.0, -3.0]);
    assert_eq!((dx, dw.to_vec()), (ex, ew));
    assert_eq!(dw, [-3.0, 2.0]);
}

#[differentiable]
fn rate(p: &[f64], u: f64) -> f64 {
    p[0] * u - p[1] * u * u
}

#[differentiable]
fn two_steps(p: &[f64], u: f64) -> f64 {
    let a = rate(p, u);
    let b = rate(p, u + 0.1 * a);
    u + 0.05 * (a + b)
}

/// A call's adjoint adds the callee's cotangents into the caller's buffers (`vjp_into`): no buffer is
/// allocated for the callee's gradient with respect to `p`.
#[test]
fn calls_of_slice_callees_allocate_nothing() {
    let p = [1.5, 0.7];
    let (mut dp, mut du) = (vec![f64::NAN; 2], f64::NAN);
    let n = allocations_during(|| {
        two_steps_grad_into(&p, 0.4, (&mut dp, &mut du));
    });
    assert!(n == 0 || !OPTIMISED, "f_grad_into allocated {n} times");
    let (_, (ep, eu)) = two_steps_grad(&p, 0.4);
    assert_eq!((dp.clone(), du), (ep, eu));
    assert_fd_gradient(
        |x| two_steps(&x[..2], x[2]),
        &[1.5, 0.7, 0.4],
        &[dp[0], dp[1], du],
        "two_steps",
    );
}

#[differentiable]
fn running_product(x: &[f64]) -> f64 {
    let mut p = 1.0;
    for i in 0..x.len() {
        p *= x[i];
    }
    p
}

/// A loop whose trip count is known when it starts reserves its tape once: one allocation, not one per
/// doubling of the tape (and none for the first 16 values).
#[test]
fn a_counted_loop_reserves_its_tape_once() {
    for (n, expected) in [(10, 0), (1000, 1)] {
        let x: Vec<f64> = (0..n).map(|i| 1.0 + 0.001 * i as f64).collect();
        let mut grad = vec![0.0; n];
        let allocations = allocations_during(|| {
            running_product_grad_into(&x, &mut grad);
        });
        assert!(
            allocations == expected || !OPTIMISED,
            "{allocations} allocations for n = {n}"
        );
        let (_, expected_grad) = running_product_grad(&x);
        assert_eq!(grad, expected_grad);
    }
    let x = [0.5, -1.5, 2.0, 0.25];
    let (_, grad) = running_product_grad(&x);
    assert_fd_gradient(running_product, &x, &grad, "running_product");
}

#[differentiable]
fn lse(z: &[f64]) -> f64 {
    let mut sum = 0.0;
    for &v in z {
        sum += v.exp();
    }
    sum.ln()
}

/// A row rewritten per example and passed to a callee with a float value.
#[differentiable]
fn rows_to_lse(x: &[f64], m: usize) -> f64 {
    let mut z = vec![0.0; 3];
    let mut total = 0.0;
    for j in 0..m {
        for c in 0..3 {
            z[c] = x[c] * (j as f64 + 1.0).sqrt();
        }
        total += lse(&z) - z[j % 3];
    }
    total
}

/// The forward sweep stores each call's gradient with respect to the row (`reverse/call_gradient.rs`)
/// on a tape that the loop reserves for its trip count when it starts: as many allocations for 1000
/// examples as for 10.
#[test]
fn calls_in_a_counted_loop_reserve_their_tape_once() {
    let x = [0.3, -0.2, 0.9];
    let mut counts = Vec::new();
    for m in [10, 1000] {
        let mut grad = vec![f64::NAN; 3];
        counts.push(allocations_during(|| {
            rows_to_lse_grad_into(&x, m, &mut grad);
        }));
        let (value, expected) = rows_to_lse_grad(&x, m);
        assert_eq!(value, rows_to_lse(&x, m));
        assert_eq!(grad, expected);
        assert_fd_gradient(|x| rows_to_lse(x, m), &x, &grad, "rows_to_lse");
    }
    assert!(
        counts[0] == counts[1] || !OPTIMISED,
        "allocations: {counts:?}"
    );
}

/// A parameter struct beside a float output read before it is written (`*e += ..`, so an input too):
/// `f_grad_into` copies `f_grad`'s gradient, the output's a float (it was copied as a slice: rustc's E0608
/// in generated code before).
#[derive(Clone, Debug, autodiff::Differentiable)]
struct Stiffness {
    k: f64,
}

#[differentiable]
fn accumulated(s: &Stiffness, x: f64, e: &mut f64) -> f64 {
    *e += s.k * x;
    *e * x
}

#[test]
fn a_float_output_read_first_beside_a_struct_takes_a_float_buffer() {
    for (k, x, e0) in [(2.0, 3.0, 1.0), (-0.5, 0.7, 0.2), (1.5, -1.1, -0.4)] {
        let s = Stiffness { k };
        let (mut dk, mut dx, mut de) = (Stiffness { k: f64::NAN }, f64::NAN, f64::NAN);
        let mut e = e0;
        let value = accumulated_grad_into(&s, x, &mut e, (&mut dk, &mut dx, &mut de));
        // e' = e + k x, f = e' x: df/dk = x², df/dx = e' + k x, df/de = x.
        let e1 = e0 + k * x;
        assert_all_close(&[value, e], &[e1 * x, e1], 1e-12, "value and output");
        assert_all_close(&[dk.k, dx, de], &[x * x, e1 + k * x, x], 1e-12, "gradient");
        let f = |v: &[f64]| accumulated(&Stiffness { k: v[0] }, v[1], &mut v[2].clone());
        assert_fd_gradient(f, &[k, x, e0], &[dk.k, dx, de], "accumulated_grad_into");
    }
}
