//! Rust forms users write that the macro used to reject: writes through `&mut` elements of an output
//! (`out.iter_mut()`, `&mut v`, `.enumerate()`, `.zip(..)`, sub-slices, `.for_each(..)`), row-major
//! outputs, slices of tuples as data (`r: &[(usize, f64)]`), and a `copy_from_slice` whose lengths differ (which panics in every generated item as in the
//! function). Every Jacobian and gradient is checked against central differences of the function and
//! against the derivative worked out by hand, on many inputs.

// The forms under test are the ones users write, which clippy would rewrite.
#![allow(
    clippy::needless_range_loop,
    clippy::needless_borrow,
    clippy::explicit_auto_deref,
    clippy::into_iter_on_ref,
    clippy::explicit_counter_loop,
    clippy::ptr_arg
)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_fd_gradient, assert_jacobian, fd_jacobian, Inputs};

const POINTS: u64 = 16;

/// `J^T d` of a Jacobian whose rows are outputs.
fn transposed_times(j: &[Vec<f64>], d: &[f64]) -> Vec<f64> {
    let columns = j.first().map_or(0, Vec::len);
    (0..columns)
        .map(|c| j.iter().zip(d).map(|(row, d)| row[c] * d).sum())
        .collect()
}

/// `J t`.
fn times(j: &[Vec<f64>], t: &[f64]) -> Vec<f64> {
    j.iter()
        .map(|row| row.iter().zip(t).map(|(a, b)| a * b).sum())
        .collect()
}

/// Checks a Jacobian of one output against central differences of `primal` and against `analytic`.
#[track_caller]
fn check_jacobian(
    what: &str,
    x: &[f64],
    jacobian: &[Vec<f64>],
    analytic: &[Vec<f64>],
    primal: impl Fn(&[f64]) -> Vec<f64>,
) {
    assert_jacobian(
        jacobian,
        &fd_jacobian(primal, x),
        &format!("{what} vs differences"),
    );
    assert_jacobian(jacobian, analytic, &format!("{what} vs by hand"));
}

/// A diagonal matrix of `d`.
fn diagonal(d: &[f64]) -> Vec<Vec<f64>> {
    (0..d.len())
        .map(|i| {
            (0..d.len())
                .map(|j| if i == j { d[i] } else { 0.0 })
                .collect()
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// 1. `iter_mut` writes to output parameters.

#[differentiable]
fn squares_zip(xs: &[f64], out: &mut [f64]) {
    for (o, x) in out.iter_mut().zip(xs) {
        *o = x * x;
    }
}

#[differentiable]
fn scaled_enumerate(xs: &[f64], out: &mut [f64]) {
    for (i, o) in out.iter_mut().enumerate() {
        *o = xs[i] * (i as f64 + 1.0);
    }
}

/// Zeroed, then accumulated: the second loop's `+=` reads what the first wrote, not the incoming value.
#[differentiable]
fn zeroed_then_sines(xs: &[f64], out: &mut [f64]) {
    for o in out.iter_mut() {
        *o = 0.0;
    }
    for (o, x) in out.iter_mut().zip(xs.iter().copied()) {
        *o += x.sin();
    }
}

/// `&mut *out` and a reference pattern on the read side.
#[differentiable]
fn cubes_by_reborrow(xs: &[f64], out: &mut [f64]) {
    for (o, &x) in (&mut *out).iter_mut().zip(xs.iter()) {
        *o = x * x * x;
    }
}

/// The incoming value read (`*o *= ..`): the output is an input too.
#[differentiable]
fn scale_in_place(a: f64, out: &mut [f64]) {
    for o in out.iter_mut() {
        *o *= a;
    }
}

/// A local `Vec` and array written through `&mut`, then read: a returned float.
#[differentiable]
fn local_writes(xs: &[f64]) -> f64 {
    let mut v = vec![0.0; xs.len()];
    for (o, x) in v.iter_mut().zip(xs) {
        *o = x.exp();
    }
    let mut a = [0.0; 3];
    for (k, o) in (&mut a).into_iter().enumerate() {
        *o = xs[k] * v[k];
    }
    for o in &mut a {
        *o *= 0.5;
    }
    let mut s = 0.0;
    for &y in &v {
        s += y * y;
    }
    s + a[0] * a[1] + a[2]
}

/// The output iterated by name, its elements assigned through (`*o = ..`), with a counter of its own.
#[differentiable]
fn tripled_by_name(xs: &[f64], out: &mut [f64]) {
    let mut i = 0;
    for o in out {
        *o = xs[i] * xs[i] * 3.0;
        i += 1;
    }
}

/// A sub-slice's elements: `out[1..]`, written from `xs` shifted by one.
#[differentiable]
fn shifted(xs: &[f64], out: &mut [f64]) {
    out[0] = xs[0];
    for (o, x) in out[1..].iter_mut().zip(xs) {
        *o = 2.0 * x * x;
    }
}

/// `.for_each(..)` over `&mut` elements.
#[differentiable]
fn cubes_for_each(xs: &[f64], out: &mut [f64]) {
    out.iter_mut()
        .zip(xs.iter())
        .for_each(|(o, x)| *o = x * x * x);
}

/// Two outputs written side by side, and an enumerated zip.
#[differentiable]
fn polar_pairs(r: &[f64], t: &[f64], c: &mut [f64], s: &mut [f64]) {
    for (i, (co, so)) in c.iter_mut().zip(s.iter_mut()).enumerate() {
        *co = r[i] * t[i].cos();
        *so = r[i] * t[i].sin();
    }
}

/// A row-major output: `out[i * m + j]`.
#[differentiable]
fn outer(a: &[f64], b: &[f64], out: &mut [f64]) {
    let m = b.len();
    for i in 0..a.len() {
        for j in 0..m {
            out[i * m + j] = a[i] * b[j].exp();
        }
    }
}

#[test]
fn iter_mut_zip_writes() {
    let mut inputs = Inputs(1);
    for _ in 0..POINTS {
        let xs = inputs.vec(4);
        let mut out = vec![0.0; 4];
        let primal = |x: &[f64]| {
            let mut o = vec![0.0; 4];
            squares_zip(x, &mut o);
            o
        };
        let analytic = diagonal(&xs.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
        let j = squares_zip_jacobian(&xs, &mut out);
        check_jacobian("squares_zip", &xs, &j, &analytic, primal);
        // The output is not an input: the vjp's gradient is `xs`'s alone.
        let d = inputs.vec(4);
        let g: Vec<f64> = squares_zip_vjp(&xs, &mut out, &d);
        assert_all_close(&g, &transposed_times(&analytic, &d), 1e-12, "vjp");
        assert_all_close(&out, &primal(&xs), 0.0, "outputs written");
        let t = inputs.vec(4);
        let mut dout = vec![f64::NAN; 4];
        squares_zip_jvp(&xs, &mut out, t.clone(), &mut dout);
        assert_all_close(&dout, &times(&analytic, &t), 1e-12, "jvp");
    }
}

#[test]
fn iter_mut_zip_stops_at_the_shorter() {
    // `xs` longer than `out`, and shorter: zip's length, the shorter one's.
    let xs = [0.5, -1.5, 2.0];
    let mut out = [7.0; 2];
    let d = [1.0, 10.0];
    let g = squares_zip_vjp(&xs, &mut out, &d);
    assert_eq!(out, [0.25, 2.25]);
    assert_all_close(&g, &[1.0, -30.0, 0.0], 1e-12, "vjp, longer input");
    let mut out = [7.0; 4];
    let g = squares_zip_vjp(&xs, &mut out, &[1.0, 1.0, 1.0, 1.0]);
    assert_eq!(out, [0.25, 2.25, 4.0, 7.0]);
    assert_all_close(&g, &[1.0, -3.0, 4.0], 1e-12, "vjp, longer output");
}

#[test]
fn iter_mut_enumerate_writes() {
    let mut inputs = Inputs(2);
    for _ in 0..POINTS {
        let xs = inputs.vec(5);
        let mut out = vec![0.0; 5];
        let analytic = diagonal(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        let j = scaled_enumerate_jacobian(&xs, &mut out);
        check_jacobian("scaled_enumerate", &xs, &j, &analytic, |x| {
            let mut o = vec![0.0; 5];
            scaled_enumerate(x, &mut o);
            o
        });
    }
}

#[test]
fn iter_mut_zeroed_then_accumulated() {
    let mut inputs = Inputs(3);
    for _ in 0..POINTS {
        let xs = inputs.vec(3);
        let mut out = vec![f64::NAN; 3];
        let analytic = diagonal(&xs.iter().map(|x| x.cos()).collect::<Vec<_>>());
        let j = zeroed_then_sines_jacobian(&xs, &mut out);
        check_jacobian("zeroed_then_sines", &xs, &j, &analytic, |x| {
            let mut o = vec![0.0; 3];
            zeroed_then_sines(x, &mut o);
            o
        });
        // Not an input: the gradient is `xs`'s alone, whatever the buffer held.
        let g: Vec<f64> = zeroed_then_sines_vjp(&xs, &mut out, &[1.0, 2.0, 3.0]);
        assert_all_close(
            &g,
            &transposed_times(&analytic, &[1.0, 2.0, 3.0]),
            1e-12,
            "vjp",
        );
    }
}

#[test]
fn iter_mut_by_reborrow_and_reference_pattern() {
    let mut inputs = Inputs(4);
    for _ in 0..POINTS {
        let xs = inputs.vec(3);
        let mut out = vec![0.0; 3];
        let analytic = diagonal(&xs.iter().map(|x| 3.0 * x * x).collect::<Vec<_>>());
        let j = cubes_by_reborrow_jacobian(&xs, &mut out);
        check_jacobian("cubes_by_reborrow", &xs, &j, &analytic, |x| {
            let mut o = vec![0.0; 3];
            cubes_by_reborrow(x, &mut o);
            o
        });
    }
}

#[test]
fn iter_mut_reading_the_incoming_value() {
    let mut inputs = Inputs(5);
    for _ in 0..POINTS {
        let a = inputs.next();
        let start = inputs.vec(3);
        let d = inputs.vec(3);
        let mut out = start.clone();
        // The output is an input too: `(da, dout)`.
        let (da, dout) = scale_in_place_vjp(a, &mut out, &d);
        let mut expected_out = start.clone();
        scale_in_place(a, &mut expected_out);
        assert_all_close(&out, &expected_out, 0.0, "out");
        let expected_da: f64 = start.iter().zip(&d).map(|(s, d)| s * d).sum();
        assert_all_close(&[da], &[expected_da], 1e-12, "d a");
        assert_all_close(
            &dout,
            &d.iter().map(|d| d * a).collect::<Vec<_>>(),
            1e-12,
            "d out",
        );
    }
}

#[test]
fn iter_mut_on_locals() {
    let mut inputs = Inputs(6);
    for _ in 0..POINTS {
        let xs = inputs.vec(4);
        let (value, grad) = local_writes_grad(&xs);
        assert_all_close(&[value], &[local_writes(&xs)], 1e-15, "value");
        assert_fd_gradient(local_writes, &xs, &grad, "local_writes");
        // By hand: v = e^x, a_k = x_k v_k / 2.
        let e: Vec<f64> = xs.iter().map(|x| x.exp()).collect();
        let a: Vec<f64> = (0..3).map(|k| xs[k] * e[k] * 0.5).collect();
        let da: Vec<f64> = (0..3).map(|k| 0.5 * e[k] * (1.0 + xs[k])).collect();
        let mut expected: Vec<f64> = e.iter().map(|v| 2.0 * v * v).collect();
        expected[0] += da[0] * a[1];
        expected[1] += a[0] * da[1];
        expected[2] += da[2];
        assert_all_close(&grad, &expected, 1e-12, "by hand");
    }
}

#[test]
fn iter_mut_by_name() {
    let mut inputs = Inputs(12);
    for _ in 0..POINTS {
        let xs = inputs.vec(3);
        let mut out = vec![0.0; 3];
        let analytic = diagonal(&xs.iter().map(|x| 6.0 * x).collect::<Vec<_>>());
        let j = tripled_by_name_jacobian(&xs, &mut out);
        check_jacobian("tripled_by_name", &xs, &j, &analytic, |x| {
            let mut o = vec![0.0; 3];
            tripled_by_name(x, &mut o);
            o
        });
        let g: Vec<f64> = tripled_by_name_vjp(&xs, &mut out, &[1.0, -1.0, 2.0]);
        assert_all_close(
            &g,
            &transposed_times(&analytic, &[1.0, -1.0, 2.0]),
            1e-12,
            "vjp",
        );
    }
}

#[test]
fn iter_mut_sub_slice() {
    let mut inputs = Inputs(7);
    for _ in 0..POINTS {
        let xs = inputs.vec(4);
        let mut out = vec![0.0; 4];
        // out = [x0, 2 x0², 2 x1², 2 x2²]
        let mut analytic = vec![vec![0.0; 4]; 4];
        analytic[0][0] = 1.0;
        for k in 1..4 {
            analytic[k][k - 1] = 4.0 * xs[k - 1];
        }
        let j = shifted_jacobian(&xs, &mut out);
        check_jacobian("shifted", &xs, &j, &analytic, |x| {
            let mut o = vec![0.0; 4];
            shifted(x, &mut o);
            o
        });
    }
}

#[test]
fn iter_mut_for_each() {
    let mut inputs = Inputs(8);
    for _ in 0..POINTS {
        let xs = inputs.vec(3);
        let mut out = vec![0.0; 3];
        let analytic = diagonal(&xs.iter().map(|x| 3.0 * x * x).collect::<Vec<_>>());
        let j = cubes_for_each_jacobian(&xs, &mut out);
        check_jacobian("cubes_for_each", &xs, &j, &analytic, |x| {
            let mut o = vec![0.0; 3];
            cubes_for_each(x, &mut o);
            o
        });
    }
}

#[test]
fn iter_mut_two_outputs() {
    let mut inputs = Inputs(9);
    for _ in 0..POINTS {
        let r = inputs.vec(3);
        let t = inputs.vec(3);
        let (dc, ds) = (inputs.vec(3), inputs.vec(3));
        let (mut c, mut s) = (vec![0.0; 3], vec![0.0; 3]);
        let (gr, gt) = polar_pairs_vjp(&r, &t, &mut c, &mut s, &dc, &ds);
        let (mut ec, mut es) = (vec![0.0; 3], vec![0.0; 3]);
        polar_pairs(&r, &t, &mut ec, &mut es);
        assert_all_close(
            &[c.clone(), s.clone()].concat(),
            &[ec, es].concat(),
            0.0,
            "out",
        );
        for i in 0..3 {
            let er = dc[i] * t[i].cos() + ds[i] * t[i].sin();
            let et = -dc[i] * r[i] * t[i].sin() + ds[i] * r[i] * t[i].cos();
            assert_all_close(&[gr[i], gt[i]], &[er, et], 1e-12, "vjp");
        }
        // Forward: the tangents of both outputs.
        let (tr, tt) = (inputs.vec(3), inputs.vec(3));
        let (mut tc, mut ts) = (vec![f64::NAN; 3], vec![f64::NAN; 3]);
        polar_pairs_jvp(
            &r,
            &t,
            &mut c,
            &mut s,
            (tr.clone(), tt.clone()),
            &mut tc,
            &mut ts,
        );
        for i in 0..3 {
            let ec = tr[i] * t[i].cos() - r[i] * t[i].sin() * tt[i];
            let es = tr[i] * t[i].sin() + r[i] * t[i].cos() * tt[i];
            assert_all_close(&[tc[i], ts[i]], &[ec, es], 1e-12, "jvp");
        }
    }
}

#[test]
fn row_major_output() {
    let mut inputs = Inputs(10);
    for _ in 0..POINTS {
        let (a, b) = (inputs.vec(2), inputs.vec(3));
        let x = [a.clone(), b.clone()].concat();
        let mut out = vec![0.0; 6];
        let j = outer_jacobian(&a, &b, &mut out);
        let mut analytic = vec![vec![0.0; 5]; 6];
        for i in 0..2 {
            for k in 0..3 {
                analytic[i * 3 + k][i] = b[k].exp();
                analytic[i * 3 + k][2 + k] = a[i] * b[k].exp();
            }
        }
        check_jacobian("outer", &x, &j, &analytic, |x| {
            let mut o = vec![0.0; 6];
            outer(&x[..2], &x[2..], &mut o);
            o
        });
    }
}

// ---------------------------------------------------------------------------------------------------
// 3. `copy_from_slice` whose lengths differ panics in the generated items as in the function.

#[differentiable]
fn copied_whole(x: &[f64], n: usize) -> f64 {
    let mut u = vec![0.0; n];
    u.copy_from_slice(x);
    let mut s = 0.0;
    for i in 0..n {
        s += u[i] * u[i] * (i as f64 + 1.0);
    }
    s
}

#[differentiable]
fn copied_window(x: &[f64], out: &mut [f64]) {
    out[1..].copy_from_slice(&x[..2]);
    out[0] = x[2].sin();
}

#[differentiable]
fn cloned_window(x: &[f64], n: usize) -> f64 {
    let mut u = vec![0.0; n];
    u.clone_from_slice(&x[1..]);
    u[0] * x[0]
}

#[test]
fn copies_of_equal_lengths() {
    let mut inputs = Inputs(11);
    for _ in 0..POINTS {
        let x = inputs.vec(3);
        let (value, grad) = copied_whole_grad(&x, 3);
        assert_eq!(value, copied_whole(&x, 3));
        assert_fd_gradient(|x| copied_whole(x, 3), &x, &grad, "copied_whole");
        let by_hand: Vec<f64> = (0..3).map(|i| 2.0 * x[i] * (i as f64 + 1.0)).collect();
        assert_all_close(&grad, &by_hand, 1e-12, "copied_whole by hand");

        let mut out = vec![0.0; 3];
        let j = copied_window_jacobian(&x, &mut out);
        let analytic = vec![
            vec![0.0, 0.0, x[2].cos()],
            vec![1.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0],
        ];
        check_jacobian("copied_window", &x, &j, &analytic, |x| {
            let mut o = vec![0.0; 3];
            copied_window(x, &mut o);
            o
        });

        let (_, grad) = cloned_window_grad(&x, 2);
        assert_all_close(&grad, &[x[1], x[0], 0.0], 1e-12, "cloned_window");
        assert_fd_gradient(|x| cloned_window(x, 2), &x, &grad, "cloned_window");
    }
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn copy_of_a_longer_source_panics_in_the_function() {
    copied_whole(&[1.0, 2.0, 3.0], 2);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn copy_of_a_longer_source_panics_in_grad() {
    let _ = copied_whole_grad(&[1.0, 2.0, 3.0], 2);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn copy_of_a_shorter_source_panics_in_grad() {
    let _ = copied_whole_grad(&[1.0, 2.0], 3);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn copy_of_a_longer_source_panics_in_vjp() {
    let _ = copied_whole_vjp(&[1.0, 2.0, 3.0], 2, 1.0);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn copy_of_a_longer_source_panics_in_jvp() {
    let _ = copied_whole_jvp(&[1.0, 2.0, 3.0], 2, vec![1.0; 3]);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn copy_into_a_longer_window_panics_in_vjp() {
    let _ = copied_window_vjp(&[1.0, 2.0, 3.0], &mut [0.0; 4], &[1.0; 4]);
}

#[test]
#[should_panic(expected = "does not match destination slice length")]
fn clone_of_a_longer_source_panics_in_grad() {
    let _ = cloned_window_grad(&[1.0, 2.0, 3.0], 1);
}

// ---------------------------------------------------------------------------------------------------
// 2. Slices of tuples as data.

/// A sparse vector `(index, value)` dotted with the squares of `w`.
#[differentiable]
fn sparse_squares(w: &[f64], r: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for &(i, v) in r {
        s += w[i] * w[i] * v;
    }
    s
}

/// A graph's weighted edges `(i, j, c)`: destructured, and read by field.
#[differentiable]
fn edge_energy(w: &[f64], e: &Vec<(usize, usize, f64)>) -> f64 {
    let mut s = 0.0;
    for t in 0..e.len() {
        let (i, j, c) = e[t];
        s += c * (w[i] - w[j]).powi(2) + e[t].2 * w[e[t].0].sin();
    }
    s
}

/// An iterator chain over the tuples, and an enumerated loop.
#[differentiable]
fn mapped_tuples(w: &[f64], r: &[(usize, f64)]) -> f64 {
    let a = r.iter().map(|&(i, v)| w[i].exp() * v).sum::<f64>();
    let mut b = 0.0;
    for (k, (i, _)) in r.iter().enumerate() {
        b += w[*i] * k as f64;
    }
    a + b
}

/// A fixed array of tuples taken by value.
#[differentiable]
fn weighted_pairs(x: f64, r: [(f64, usize); 2]) -> f64 {
    let mut s = 0.0;
    for k in 0..2 {
        let (c, p) = r[k];
        s += c * x.powi(p as i32);
    }
    s
}

#[test]
fn tuple_slices_as_data() {
    let mut inputs = Inputs(13);
    let r = vec![(0usize, 1.5), (2, -0.5), (0, 2.0), (3, 0.25)];
    let e = vec![(0usize, 1usize, 2.0), (1, 3, 0.5), (3, 2, -1.0)];
    for _ in 0..POINTS {
        let w = inputs.vec(4);

        let (value, grad) = sparse_squares_grad(&w, &r);
        assert_eq!(value, sparse_squares(&w, &r));
        assert_fd_gradient(|w| sparse_squares(w, &r), &w, &grad, "sparse_squares");
        let mut by_hand = vec![0.0; 4];
        for &(i, v) in &r {
            by_hand[i] += 2.0 * w[i] * v;
        }
        assert_all_close(&grad, &by_hand, 1e-12, "sparse_squares by hand");

        let (value, grad) = edge_energy_grad(&w, &e);
        assert_eq!(value, edge_energy(&w, &e));
        assert_fd_gradient(|w| edge_energy(w, &e), &w, &grad, "edge_energy");
        let mut by_hand = vec![0.0; 4];
        for &(i, j, c) in &e {
            by_hand[i] += 2.0 * c * (w[i] - w[j]);
            by_hand[j] -= 2.0 * c * (w[i] - w[j]);
            by_hand[i] += c * w[i].cos();
        }
        assert_all_close(&grad, &by_hand, 1e-12, "edge_energy by hand");

        let (value, grad) = mapped_tuples_grad(&w, &r);
        assert_eq!(value, mapped_tuples(&w, &r));
        assert_fd_gradient(|w| mapped_tuples(w, &r), &w, &grad, "mapped_tuples");
        let mut by_hand = vec![0.0; 4];
        for (k, &(i, v)) in r.iter().enumerate() {
            by_hand[i] += w[i].exp() * v + k as f64;
        }
        assert_all_close(&grad, &by_hand, 1e-12, "mapped_tuples by hand");

        // The vjp and jvp take the data as it is.
        let (_, g) = sparse_squares_vjp(&w, &r, 2.0);
        let twice: Vec<f64> = sparse_squares_grad(&w, &r)
            .1
            .iter()
            .map(|g| 2.0 * g)
            .collect();
        assert_all_close(&g, &twice, 1e-12, "vjp");
        let t = inputs.vec(4);
        let (_, dot) = sparse_squares_jvp(&w, &r, t.clone());
        let expected: f64 = sparse_squares_grad(&w, &r)
            .1
            .iter()
            .zip(&t)
            .map(|(g, t)| g * t)
            .sum();
        assert_all_close(&[dot], &[expected], 1e-12, "jvp");

        let x = inputs.next() + 1.5;
        let pairs = [(0.5, 3usize), (-2.0, 2)];
        let (_, g) = weighted_pairs_grad(x, pairs);
        assert_all_close(
            &[g],
            &[1.5 * x * x - 4.0 * x],
            1e-12,
            "weighted_pairs by hand",
        );
        assert_fd_gradient(
            |x| weighted_pairs(x[0], pairs),
            &[x],
            &[g],
            "weighted_pairs",
        );
    }
}
