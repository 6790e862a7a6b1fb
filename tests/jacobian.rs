//! `f_jacobian` for functions returning arrays: rows are outputs, columns the active inputs flattened in
//! declaration order; checked against Jacobians worked out by hand and central finite differences, in both
//! the reverse-mode shape (fewer outputs) and the forward-mode shape (fewer inputs).

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{assert_all_close, assert_close, central_difference, config, ANALYTIC_TOL};
use proptest::prelude::*;

/// Two outputs of three inputs: the reverse-mode shape.
#[differentiable]
fn polar_sum(r: f64, t: &[f64]) -> Vec<f64> {
    vec![r * t[0].cos() + t[1], r * t[0].sin() * t[1]]
}

/// Four outputs of one input: the forward-mode shape.
#[differentiable]
fn powers(x: f64) -> [f64; 4] {
    [1.0, x, x * x, x * x * x]
}

/// A generic softmax: a square Jacobian with `wrt` leaving a temperature constant.
#[differentiable(wrt(z))]
fn softmax<T: Float>(z: &[T], temperature: T) -> Vec<T> {
    let mut out = vec![T::zero(); z.len()];
    let mut total = T::zero();
    for i in 0..z.len() {
        out[i] = (z[i] / temperature).exp();
        total = total + out[i];
    }
    for i in 0..z.len() {
        out[i] = out[i] / total;
    }
    out
}

#[test]
fn reverse_shape_by_hand() {
    let (r, t) = (1.5, [0.3, -2.0]);
    let jacobian = polar_sum_jacobian(r, &t);
    let expected = [
        [t[0].cos(), -r * t[0].sin(), 1.0],
        [t[0].sin() * t[1], r * t[0].cos() * t[1], r * t[0].sin()],
    ];
    assert_eq!(jacobian.len(), 2);
    for (row, want) in jacobian.iter().zip(&expected) {
        assert_all_close(row, want, ANALYTIC_TOL, "polar_sum row");
    }
    assert_eq!(polar_sum(r, &t).len(), 2);
}

#[test]
fn forward_shape_by_hand() {
    let x = -0.7;
    let jacobian = powers_jacobian(x);
    let expected = [0.0, 1.0, 2.0 * x, 3.0 * x * x];
    assert_eq!(jacobian.len(), 4);
    for (row, want) in jacobian.iter().zip(expected) {
        assert_eq!(row.len(), 1);
        assert_close(row[0], want, ANALYTIC_TOL, "powers");
    }
    assert_eq!(powers(x)[1], x);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn softmax_jacobian_matches_hand_and_finite_differences(
        z in prop::collection::vec(-2.0f64..2.0, 1..6),
        temperature in 0.5f64..2.0,
    ) {
        let jacobian = softmax_jacobian(&z, temperature);
        let s = softmax(&z, temperature);
        let n = z.len();
        prop_assert_eq!(jacobian.len(), n);
        for i in 0..n {
            prop_assert_eq!(jacobian[i].len(), n);
            for j in 0..n {
                let delta = if i == j { 1.0 } else { 0.0 };
                let by_hand = s[i] * (delta - s[j]) / temperature;
                assert_close(jacobian[i][j], by_hand, 1e-12, "softmax by hand");
                let fd = central_difference(|v| {
                    let mut moved = z.clone();
                    moved[j] = v;
                    softmax(&moved, temperature)[i]
                }, z[j]);
                assert_close(jacobian[i][j], fd, 1e-7, "softmax by finite differences");
            }
        }
    }
}

/// Six outputs of three inputs (a scalar, then a slice): the forward shape, with offsets.
#[differentiable]
fn outer(a: f64, x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; 3 * x.len()];
    for i in 0..x.len() {
        out[3 * i] = a * x[i];
        out[3 * i + 1] = x[i] * x[i];
        out[3 * i + 2] = a.sin() + x[0];
    }
    out
}

#[test]
fn forward_shape_with_a_scalar_and_a_slice() {
    let (a, x) = (0.4, [1.5, -2.0]);
    let jacobian = outer_jacobian(a, &x);
    assert_eq!(outer(a, &x).len(), 6);
    let expected = [
        [x[0], a, 0.0],
        [0.0, 2.0 * x[0], 0.0],
        [a.cos(), 1.0, 0.0],
        [x[1], 0.0, a],
        [0.0, 0.0, 2.0 * x[1]],
        [a.cos(), 1.0, 0.0],
    ];
    assert_eq!(jacobian.len(), 6);
    for (row, want) in jacobian.iter().zip(&expected) {
        assert_all_close(row, want, ANALYTIC_TOL, "outer row");
    }
}

/// A custom gradient with a vector output: its Jacobian comes from the closure.
#[autodiff::custom_gradient]
fn twice(x: &[f64]) -> (Vec<f64>, impl Fn(Vec<f64>) -> Vec<f64>) {
    (x.iter().map(|v| 2.0 * v).collect(), |dy: Vec<f64>| {
        dy.iter().map(|d| 2.0 * d).collect()
    })
}

#[test]
fn custom_gradients_have_a_jacobian() {
    let jacobian = twice_jacobian(&[1.0, -1.0, 3.0]);
    assert_eq!(twice(&[1.0]), vec![2.0]);
    assert_eq!(
        jacobian,
        vec![
            vec![2.0, 0.0, 0.0],
            vec![0.0, 2.0, 0.0],
            vec![0.0, 0.0, 2.0]
        ]
    );
}

/// One output parameter, two rows of four columns (the reverse shape); its incoming value is read, so its
/// elements are columns too.
#[differentiable]
fn damp(a: f64, b: &[f64], state: &mut [f64; 2]) {
    state[0] = state[0] * a + b[0];
    state[1] += b[1] * state[0];
}

/// One output parameter of five rows from two inputs (the forward shape), not read.
#[differentiable]
fn spread(t: f64, c: f64, out: &mut [f64]) {
    for i in 0..out.len() {
        out[i] = (t * i as f64).sin() * c;
    }
}

/// A float output whose incoming value is read: one row.
#[differentiable]
fn relax(a: f64, e: &mut f64) {
    *e = *e * a + a * a;
}

/// A tuple and a fixed-size array as inputs, a fixed-size output: three rows of four columns (reverse).
#[differentiable]
fn weigh(t: (f64, f64), x: &[f64; 2], out: &mut [f64; 3]) {
    out[0] = t.0 * x[0];
    out[1] = t.1 * x[1].sin();
    out[2] = t.0 * t.1 + x[0];
}

/// The same inputs, six rows (forward).
#[differentiable]
fn weigh_wide(t: (f64, f64), x: &[f64; 2], out: &mut [f64]) {
    for i in 0..6 {
        out[i] = (t.0 * i as f64).sin() * x[i % 2] + t.1;
    }
}

/// A matrix and a tuple as inputs of an array result: columns m[0][0], m[0][1], m[1][0], t.0, t.1.
#[differentiable]
fn mixes(m: &[Vec<f64>], t: (f64, f64)) -> Vec<f64> {
    vec![m[0][0] * t.0 + m[1][0], m[0][1] * m[1][0] * t.1, t.0 * t.1]
}

/// The same, seven rows (forward).
#[differentiable]
fn mixes_wide(m: &[Vec<f64>], t: (f64, f64)) -> Vec<f64> {
    let mut v = vec![0.0; 7];
    for i in 0..7 {
        v[i] = m[i % 2][0] * t.0.powi(i as i32) + m[1][0] * t.1;
    }
    v
}

/// The Jacobian of `f` at `x` by central differences, row by row.
fn fd_jacobian(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], rows: usize) -> Vec<Vec<f64>> {
    (0..rows)
        .map(|i| {
            (0..x.len())
                .map(|j| {
                    central_difference(
                        |v| {
                            let mut w = x.to_vec();
                            w[j] = v;
                            f(&w)[i]
                        },
                        x[j],
                    )
                })
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn jacobians_over_output_parameters(
        a in -1.5f64..1.5,
        b in prop::array::uniform2(-1.5f64..1.5),
        s in prop::array::uniform2(-1.5f64..1.5),
        t in -1.5f64..1.5,
    ) {
        // damp: s0' = s0 a + b0, s1' = s1 + b1 s0'. Columns a, b0, b1, s0, s1.
        let mut state = s;
        let jacobian = damp_jacobian(a, &b, &mut state);
        let s0 = s[0] * a + b[0];
        let expected = [
            [s[0], 1.0, 0.0, a, 0.0],
            [b[1] * s[0], b[1], s0, b[1] * a, 1.0],
        ];
        for (row, want) in jacobian.iter().zip(&expected) {
            assert_all_close(row, want, ANALYTIC_TOL, "damp");
        }
        let mut once = s;
        damp(a, &b, &mut once);
        prop_assert_eq!(state, once, "the output as one call leaves it");
        // Finite differences along each column.
        let inputs = [a, b[0], b[1], s[0], s[1]];
        for j in 0..5 {
            for i in 0..2 {
                let fd = central_difference(|v| {
                    let mut w = inputs;
                    w[j] = v;
                    let mut st = [w[3], w[4]];
                    damp(w[0], &[w[1], w[2]], &mut st);
                    st[i]
                }, inputs[j]);
                assert_close(jacobian[i][j], fd, 1e-7, "damp against finite differences");
            }
        }

        let mut out = vec![0.0; 5];
        let jacobian = spread_jacobian(t, a, &mut out);
        prop_assert_eq!(jacobian.len(), 5);
        let mut once = vec![0.0; 5];
        spread(t, a, &mut once);
        prop_assert_eq!(&out, &once);
        for i in 0..5 {
            let k = i as f64;
            assert_all_close(&jacobian[i], &[k * (t * k).cos() * a, (t * k).sin()], ANALYTIC_TOL, "spread");
        }

        let mut e = s[0];
        let jacobian = relax_jacobian(a, &mut e);
        assert_all_close(&jacobian[0], &[s[0] + 2.0 * a, a], ANALYTIC_TOL, "relax");
        let mut once = s[0];
        relax(a, &mut once);
        assert_close(e, once, ANALYTIC_TOL, "relax's output");
    }

    #[test]
    fn jacobians_over_tuples_arrays_and_matrices(w in prop::collection::vec(-1.5f64..1.5, 5)) {
        let (t, x) = ((w[0], w[1]), [w[2], w[3]]);
        // weigh, reverse: columns t.0, t.1, x0, x1.
        let mut out = [0.0; 3];
        let jacobian = weigh_jacobian(t, &x, &mut out);
        let expected = [
            [x[0], 0.0, t.0, 0.0],
            [0.0, x[1].sin(), 0.0, t.1 * x[1].cos()],
            [t.1, t.0, 1.0, 0.0],
        ];
        for (row, want) in jacobian.iter().zip(&expected) {
            assert_all_close(row, want, ANALYTIC_TOL, "weigh");
        }
        let inputs = [t.0, t.1, x[0], x[1]];
        let by_fd = fd_jacobian(|v| { let mut o = [0.0; 3]; weigh((v[0], v[1]), &[v[2], v[3]], &mut o); o.to_vec() }, &inputs, 3);
        for (row, fd) in jacobian.iter().zip(&by_fd) {
            assert_all_close(row, fd, 1e-7, "weigh against finite differences");
        }
        // weigh_wide, forward.
        let mut out = vec![0.0; 6];
        let jacobian = weigh_wide_jacobian(t, &x, &mut out);
        prop_assert_eq!(jacobian.len(), 6);
        let by_fd = fd_jacobian(|v| { let mut o = vec![0.0; 6]; weigh_wide((v[0], v[1]), &[v[2], v[3]], &mut o); o }, &inputs, 6);
        for (i, (row, fd)) in jacobian.iter().zip(&by_fd).enumerate() {
            let k = i as f64;
            let mut want = vec![k * (t.0 * k).cos() * x[i % 2], 1.0, 0.0, 0.0];
            want[2 + i % 2] = (t.0 * k).sin();
            assert_all_close(row, &want, ANALYTIC_TOL, "weigh_wide");
            assert_all_close(row, fd, 1e-7, "weigh_wide against finite differences");
        }
        // mixes (reverse) and mixes_wide (forward): a matrix's columns row-major, then the tuple's.
        let m = vec![vec![w[0], w[1]], vec![w[2]]];
        let t = (w[3], w[4]);
        let inputs = [w[0], w[1], w[2], t.0, t.1];
        let unflat = |v: &[f64]| (vec![vec![v[0], v[1]], vec![v[2]]], (v[3], v[4]));
        let jacobian = mixes_jacobian(&m, t);
        let expected = [
            [t.0, 0.0, 1.0, m[0][0], 0.0],
            [0.0, m[1][0] * t.1, m[0][1] * t.1, 0.0, m[0][1] * m[1][0]],
            [0.0, 0.0, 0.0, t.1, t.0],
        ];
        for (row, want) in jacobian.iter().zip(&expected) {
            assert_all_close(row, want, ANALYTIC_TOL, "mixes");
        }
        let jacobian = mixes_wide_jacobian(&m, t);
        prop_assert_eq!(jacobian.len(), 7);
        let by_fd = fd_jacobian(|v| { let (m, t) = unflat(v); mixes_wide(&m, t) }, &inputs, 7);
        for (row, fd) in jacobian.iter().zip(&by_fd) {
            assert_all_close(row, fd, 1e-6, "mixes_wide against finite differences");
        }
    }

}
