//! Cases from bug reports (wip/BUGS-*.md of the session that fixed them): integer slice parameters,
//! tuples returned from inside a loop, a `loop` left only by `return`, a call's `Vec` result used as an array.
// The functions reproduce the bug reports as they were written.
#![allow(clippy::needless_range_loop, clippy::assign_op_pattern)]

use autodiff::differentiable;

#[differentiable(wrt(w))]
pub fn loss(w: &[f64], data: &[f64], labels: &[usize]) -> f64 {
    let mut s = 0.0;
    for b in 0..labels.len() {
        s += w[labels[b]] * data[b];
    }
    s
}

#[differentiable]
pub fn first_pair(x: &[f64]) -> (f64, f64) {
    for i in 0..x.len() {
        if x[i] > 1.0 {
            return (x[i], x[i] * 2.0);
        }
    }
    (0.0, 0.0)
}

#[differentiable]
pub fn until_big(x: f64) -> f64 {
    let mut y = x;
    loop {
        y = y * 2.0;
        if y > 10.0 {
            return y * x;
        }
    }
}

#[differentiable]
pub fn squares(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        out.push(v * v);
    }
    out
}

#[differentiable]
pub fn sum_of_fourth_powers(x: &[f64]) -> f64 {
    let v = squares(x);
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

#[test]
fn fixes() {
    let (v, g) = loss_grad(&[1.0, 2.0], &[3.0, 4.0], &[1, 0]);
    assert_eq!(v, loss(&[1.0, 2.0], &[3.0, 4.0], &[1, 0]));
    assert_eq!(g, vec![4.0, 3.0]);
    let (v, g) = first_pair_vjp(&[0.5, 2.0], (1.0, 1.0));
    assert_eq!(v, first_pair(&[0.5, 2.0]));
    assert_eq!(g, vec![0.0, 3.0]);
    let (v, g) = until_big_grad(3.0);
    assert_eq!(v, until_big(3.0));
    assert_eq!(g, 24.0); // f = (4x) x at x = 3
    let (v, g) = sum_of_fourth_powers_grad(&[1.0, 2.0]);
    assert_eq!((v, g), (sum_of_fourth_powers(&[1.0, 2.0]), vec![4.0, 32.0]));
    assert_eq!(squares(&[3.0]), vec![9.0]);
}
