//! The contract audit (`API.md`), part two: return types (tuples, arrays, `Vec`), output parameters
//! (`_vjp` with a cotangent per output after `d_ret`, `_jvp` writing the outputs' tangents, `_grad` of the
//! returned float, `_jacobian` rows and columns, `order = 2` of a function with outputs), `wrt(..)`,
//! `mut` parameters, inactive parameters, the signature examples of `API.md` and the flattening of the
//! Hessian's inputs. Every generated item is bound to the `fn` type `API.md` gives, and every number is
//! checked against central differences or a derivative worked out by hand.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod common;

use autodiff::differentiable;
use common::contract::{audit, tangent_for, Items, GARBAGE, HESSIAN_FD_TOL, SAME_TOL};
use common::{
    assert_all_close, assert_close, assert_fd_gradient, fd_jacobian, hessian_column, ANALYTIC_TOL,
};

#[track_caller]
fn assert_matrix_close(actual: &[Vec<f64>], expected: &[Vec<f64>], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: rows");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert_all_close(a, e, tol, &format!("{what}, row {i}"));
    }
}

// ------------------------------------------------------------------------------------ return types

/// `API.md`'s `polar`: a tuple return has `_vjp` and `_jvp`, no `_grad`.
#[differentiable]
fn polar(r: f64, t: f64) -> (f64, f64) {
    (r * t.cos(), r * t.sin())
}

#[test]
fn tuple_return() {
    let _: fn(f64, f64, (f64, f64)) -> ((f64, f64), (f64, f64)) = polar_vjp;
    let _: fn(f64, f64, (f64, f64)) -> ((f64, f64), (f64, f64)) = polar_jvp;
    for (r, t) in [(1.5f64, 0.3f64), (0.7, -2.0)] {
        let j = [[t.cos(), -r * t.sin()], [t.sin(), r * t.cos()]];
        let (value, (dr, dt)) = polar_vjp(r, t, (0.4, -1.1));
        assert_eq!(value, polar(r, t), "polar_vjp: value");
        assert_close(
            dr,
            0.4 * j[0][0] - 1.1 * j[1][0],
            ANALYTIC_TOL,
            "polar_vjp: d/dr",
        );
        assert_close(
            dt,
            0.4 * j[0][1] - 1.1 * j[1][1],
            ANALYTIC_TOL,
            "polar_vjp: d/dt",
        );
        let (value, (tx, ty)) = polar_jvp(r, t, (0.4, -1.1));
        assert_eq!(value, polar(r, t), "polar_jvp: value");
        assert_close(
            tx,
            0.4 * j[0][0] - 1.1 * j[0][1],
            ANALYTIC_TOL,
            "polar_jvp: x",
        );
        assert_close(
            ty,
            0.4 * j[1][0] - 1.1 * j[1][1],
            ANALYTIC_TOL,
            "polar_jvp: y",
        );
    }
}

#[differentiable]
fn powers(x: f64, y: f64) -> [f64; 3] {
    [x * y, x.exp() * y, (x + y).sin()]
}

#[differentiable]
fn softmax(z: &[f64]) -> Vec<f64> {
    let mut m = z[0];
    for i in 1..z.len() {
        m = m.max(z[i]);
    }
    let mut s = 0.0;
    let mut out = vec![0.0; z.len()];
    for i in 0..z.len() {
        out[i] = (z[i] - m).exp();
        s += out[i];
    }
    for i in 0..z.len() {
        out[i] /= s;
    }
    out
}

#[test]
fn array_and_vec_returns() {
    let _: fn(f64, f64, [f64; 3]) -> ([f64; 3], (f64, f64)) = powers_vjp;
    let _: fn(f64, f64, (f64, f64)) -> ([f64; 3], [f64; 3]) = powers_jvp;
    let _: fn(f64, f64) -> Vec<Vec<f64>> = powers_jacobian;
    for (x, y) in [(0.3, -0.8), (1.2, 0.5)] {
        let expected = fd_jacobian(|p| powers(p[0], p[1]).to_vec(), &[x, y]);
        let jacobian = powers_jacobian(x, y);
        assert_matrix_close(&jacobian, &expected, 1e-7, "powers_jacobian");
        let d = [0.5, -1.0, 2.0];
        let (value, (gx, gy)) = powers_vjp(x, y, d);
        assert_eq!(value, powers(x, y), "powers_vjp: value");
        assert_close(
            gx,
            (0..3).map(|i| d[i] * jacobian[i][0]).sum(),
            SAME_TOL,
            "powers_vjp: x",
        );
        assert_close(
            gy,
            (0..3).map(|i| d[i] * jacobian[i][1]).sum(),
            SAME_TOL,
            "powers_vjp: y",
        );
        let (value, tangent) = powers_jvp(x, y, (0.3, 0.9));
        assert_eq!(value, powers(x, y), "powers_jvp: value");
        let expected: Vec<f64> = jacobian
            .iter()
            .map(|row| 0.3 * row[0] + 0.9 * row[1])
            .collect();
        assert_all_close(&tangent, &expected, SAME_TOL, "powers_jvp");
    }

    let _: fn(&[f64], Vec<f64>) -> (Vec<f64>, Vec<f64>) = softmax_vjp;
    let _: fn(&[f64], Vec<f64>) -> (Vec<f64>, Vec<f64>) = softmax_jvp;
    let _: fn(&[f64]) -> Vec<Vec<f64>> = softmax_jacobian;
    for z in [vec![0.3, -0.8, 1.1], vec![2.0, 0.0, -1.0, 0.5]] {
        let s = softmax(&z);
        let n = z.len();
        let by_hand: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| s[i] * (f64::from(u8::from(i == j)) - s[j]))
                    .collect()
            })
            .collect();
        let jacobian = softmax_jacobian(&z);
        assert_matrix_close(
            &jacobian,
            &by_hand,
            ANALYTIC_TOL,
            "softmax_jacobian by hand",
        );
        assert_matrix_close(
            &jacobian,
            &fd_jacobian(softmax, &z),
            1e-7,
            "softmax_jacobian by differences",
        );
        let d = tangent_for(n);
        let (value, g) = softmax_vjp(&z, d.clone());
        assert_eq!(value, s, "softmax_vjp: value");
        let expected: Vec<f64> = (0..n)
            .map(|j| (0..n).map(|i| d[i] * by_hand[i][j]).sum())
            .collect();
        assert_all_close(&g, &expected, ANALYTIC_TOL, "softmax_vjp");
        let (value, t) = softmax_jvp(&z, d.clone());
        assert_eq!(value, s, "softmax_jvp: value");
        let expected: Vec<f64> = by_hand
            .iter()
            .map(|row| (0..n).map(|j| row[j] * d[j]).sum())
            .collect();
        assert_all_close(&t, &expected, ANALYTIC_TOL, "softmax_jvp");
    }
}

// ----------------------------------------------------------------------------- output parameters

/// `API.md`'s ODE right-hand side: `()` with one output.
#[differentiable]
fn rhs(y: &[f64], p: &[f64], dydt: &mut [f64]) {
    dydt[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dydt[1] = p[2] * y[0] * y[1] - p[3] * y[1];
}

fn rhs_flat(x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; 2];
    rhs(&x[..2], &x[2..], &mut out);
    out
}

#[test]
fn output_parameter_of_a_unit_function() {
    let _: fn(&[f64], &[f64], &mut [f64], &[f64]) -> (Vec<f64>, Vec<f64>) = rhs_vjp;
    let _: fn(&[f64], &[f64], &mut [f64], (Vec<f64>, Vec<f64>), &mut [f64]) = rhs_jvp;
    let _: fn(&[f64], &[f64], &mut [f64]) -> Vec<Vec<f64>> = rhs_jacobian;
    for x in [
        vec![0.5, 1.5, 1.1, 0.4, 0.3, 0.9],
        vec![1.2, 0.3, 0.6, 1.3, 0.8, 0.2],
    ] {
        let (y, p) = (&x[..2], &x[2..]);
        let expected = fd_jacobian(rhs_flat, &x);
        let mut out = [GARBAGE; 2];
        let jacobian = rhs_jacobian(y, p, &mut out);
        assert_matrix_close(
            &jacobian,
            &expected,
            1e-7,
            "rhs_jacobian (rows: dydt, columns: y then p)",
        );
        assert_eq!(out.to_vec(), rhs_flat(&x), "rhs_jacobian writes the output");

        let d = [0.7, -1.3];
        let mut out = [GARBAGE; 2];
        let (gy, gp) = rhs_vjp(y, p, &mut out, &d);
        assert_eq!(out.to_vec(), rhs_flat(&x), "rhs_vjp writes the output");
        let vjp: Vec<f64> = (0..6)
            .map(|j| d[0] * expected[0][j] + d[1] * expected[1][j])
            .collect();
        assert_all_close(&[gy, gp].concat(), &vjp, 1e-7, "rhs_vjp");

        let t = tangent_for(6);
        let mut out = [GARBAGE; 2];
        let mut d_out = [GARBAGE; 2];
        let () = rhs_jvp(
            y,
            p,
            &mut out,
            (t[..2].to_vec(), t[2..].to_vec()),
            &mut d_out,
        );
        assert_eq!(out.to_vec(), rhs_flat(&x), "rhs_jvp writes the output");
        let jvp: Vec<f64> = expected.iter().map(|row| common::dot(row, &t)).collect();
        assert_all_close(&d_out, &jvp, 1e-7, "rhs_jvp: the output's tangent");
    }
}

/// A residual written into `r` and its squared norm returned: both results; `order = 2` is over the
/// returned float.
#[differentiable(order = 2)]
fn residual(x: &[f64], r: &mut [f64]) -> f64 {
    let mut norm = 0.0;
    for i in 0..x.len() {
        r[i] = x[i] * x[i] - 2.0 * x[(i + 1) % x.len()];
        norm += r[i] * r[i];
    }
    norm
}

fn residual_flat(x: &[f64]) -> (f64, Vec<f64>) {
    let mut r = vec![0.0; x.len()];
    let v = residual(x, &mut r);
    (v, r)
}

#[test]
fn output_parameter_beside_a_returned_float() {
    let _: fn(&[f64], &mut [f64]) -> (f64, Vec<f64>) = residual_grad;
    let _: fn(&[f64], &mut [f64], f64, &[f64]) -> (f64, Vec<f64>) = residual_vjp;
    let _: fn(&[f64], &mut [f64], Vec<f64>, &mut [f64]) -> (f64, f64) = residual_jvp;
    let _: fn(&[f64], &mut [f64], &mut [f64]) -> f64 = residual_grad_into;
    let _: fn(&[f64], &mut [f64], Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = residual_hvp;
    let _: fn(&[f64], &mut [f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) = residual_hessian;
    let scratch = |n: usize| vec![GARBAGE; n];
    // The returned float, through every item.
    audit(
        &Items {
            what: "residual(x: &[f64], r: &mut [f64]) -> f64",
            primal: &|x| residual_flat(x).0,
            grad: &|x| residual_grad(x, &mut scratch(x.len())),
            vjp: &|x, d| residual_vjp(x, &mut scratch(x.len()), d, &vec![0.0; x.len()]),
            jvp: &|x, t| residual_jvp(x, &mut scratch(x.len()), t.to_vec(), &mut scratch(x.len())),
            grad_into: &|x| {
                let mut g = scratch(x.len());
                (residual_grad_into(x, &mut scratch(x.len()), &mut g), g)
            },
            hvp: Some(&|x, t| residual_hvp(x, &mut scratch(x.len()), t.to_vec())),
            hessian: Some(&|x| residual_hessian(x, &mut scratch(x.len()))),
            analytic: None,
        },
        &[vec![0.5, 1.5, -1.1], vec![1.2, 0.3, 0.6, -0.4]],
    );
    for x in [vec![0.5, 1.5, -1.1], vec![1.2, 0.3, 0.6, -0.4]] {
        let n = x.len();
        let (value, r_expected) = residual_flat(&x);
        // The Jacobian of the output r, by differences.
        let jr = fd_jacobian(|x| residual_flat(x).1, &x);
        // _grad writes r too, and is the gradient of the returned float.
        let mut r = scratch(n);
        let (v, g) = residual_grad(&x, &mut r);
        assert_eq!((v, &r), (value, &r_expected), "residual_grad: value and r");
        // _vjp: d_ret, then a cotangent for r.
        let d_r = tangent_for(n);
        let mut r = scratch(n);
        let (v, gv) = residual_vjp(&x, &mut r, 0.5, &d_r);
        assert_eq!((v, &r), (value, &r_expected), "residual_vjp: value and r");
        let expected: Vec<f64> = (0..n)
            .map(|j| 0.5 * g[j] + (0..n).map(|i| d_r[i] * jr[i][j]).sum::<f64>())
            .collect();
        assert_all_close(&gv, &expected, 1e-7, "residual_vjp");
        // _jvp: the returned float's tangent, and r's tangent in a buffer.
        let t: Vec<f64> = tangent_for(n).iter().rev().copied().collect();
        let mut r = scratch(n);
        let mut d_r = scratch(n);
        let (v, dv) = residual_jvp(&x, &mut r, t.clone(), &mut d_r);
        assert_eq!((v, &r), (value, &r_expected), "residual_jvp: value and r");
        assert_close(
            dv,
            common::dot(&g, &t),
            SAME_TOL,
            "residual_jvp: the returned float",
        );
        let expected: Vec<f64> = jr.iter().map(|row| common::dot(row, &t)).collect();
        assert_all_close(&d_r, &expected, 1e-7, "residual_jvp: r's tangent");
    }
}

/// An output whose incoming value is read (`+=`): an input too, with a gradient (`G` covers it).
#[differentiable]
fn accumulate(a: f64, acc: &mut [f64; 3]) {
    for i in 0..3 {
        acc[i] += a * a * (i as f64 + 1.0);
    }
    acc[0] *= a;
}

#[test]
fn output_parameter_read_before_written() {
    // The cotangent and the tangent of an array output are shaped like it (`&[f64; 3]`, `&mut [f64; 3]`),
    // as the table's "as for `&`" says; `API.md`'s `&[T]` is the slice case.
    let _: fn(f64, &mut [f64; 3], &[f64; 3]) -> (f64, [f64; 3]) = accumulate_vjp;
    let _: fn(f64, &mut [f64; 3], (f64, [f64; 3]), &mut [f64; 3]) = accumulate_jvp;
    let _: fn(f64, &mut [f64; 3]) -> Vec<Vec<f64>> = accumulate_jacobian;
    let flat = |x: &[f64]| {
        let mut acc = [x[1], x[2], x[3]];
        accumulate(x[0], &mut acc);
        acc.to_vec()
    };
    for x in [vec![0.7, 1.0, -2.0, 0.5], vec![-1.3, 0.2, 0.4, 1.5]] {
        let j = fd_jacobian(flat, &x);
        let mut acc = [x[1], x[2], x[3]];
        assert_matrix_close(
            &accumulate_jacobian(x[0], &mut acc),
            &j,
            1e-7,
            "accumulate_jacobian",
        );
        assert_eq!(acc.to_vec(), flat(&x), "accumulate_jacobian writes acc");
        let d = [0.3, -0.6, 1.1];
        let mut acc = [x[1], x[2], x[3]];
        let (da, dacc) = accumulate_vjp(x[0], &mut acc, &d);
        assert_eq!(acc.to_vec(), flat(&x), "accumulate_vjp writes acc");
        let expected: Vec<f64> = (0..4)
            .map(|c| (0..3).map(|r| d[r] * j[r][c]).sum())
            .collect();
        assert_all_close(
            &[vec![da], dacc.to_vec()].concat(),
            &expected,
            1e-7,
            "accumulate_vjp",
        );
        let t = [0.4, 0.9, -0.2, 0.6];
        let mut acc = [x[1], x[2], x[3]];
        let mut d_acc = [GARBAGE; 3];
        accumulate_jvp(x[0], &mut acc, (t[0], [t[1], t[2], t[3]]), &mut d_acc);
        let expected: Vec<f64> = j.iter().map(|row| common::dot(row, &t)).collect();
        assert_all_close(&d_acc, &expected, 1e-7, "accumulate_jvp");
    }
}

// ------------------------------------------------------------------------ wrt, mut, inactive, examples

/// `API.md`'s `loss`, with `wrt(w)`.
#[differentiable(wrt(w))]
fn loss(w: &[f64], data: &[f64], labels: &[usize]) -> f64 {
    let mut s = 0.0;
    for i in 0..labels.len() {
        let r = w[labels[i]] * data[i] - 1.0;
        s += r * r;
    }
    s
}

/// `API.md`'s `scale`.
#[differentiable]
fn scale(a: f64, x: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += a * x[i] * x[i];
    }
    s.sqrt()
}

/// `API.md`'s `sumsq`.
#[differentiable]
fn sumsq(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x {
        s += v * v;
    }
    s
}

/// A parameter declared `mut` and written by the body; an integer and a flag passed through.
#[differentiable(order = 2)]
fn mut_param(mut x: f64, mut k: i32, flip: bool) -> f64 {
    let mut acc = 0.0;
    while k > 0 {
        x = x * x.cos() + 0.5;
        acc += x;
        k -= 1;
    }
    if flip {
        -acc
    } else {
        acc
    }
}

/// `wrt` with two of three floats, at order 2.
#[differentiable(wrt(a, c), order = 2)]
fn wrt_two(a: f64, b: f64, c: &[f64]) -> f64 {
    let mut s = a * b;
    for i in 0..c.len() {
        s += (c[i] * a).sin() * b;
    }
    s
}

#[test]
fn signature_examples_of_the_contract() {
    let _: fn(&[f64], &[f64], &[usize]) -> (f64, Vec<f64>) = loss_grad;
    let _: fn(&[f64], &[f64], &[usize], f64) -> (f64, Vec<f64>) = loss_vjp;
    let _: fn(&[f64], &[f64], &[usize], Vec<f64>) -> (f64, f64) = loss_jvp;
    let _: fn(&[f64], &[f64], &[usize], &mut [f64]) -> f64 = loss_grad_into;
    let _: fn(f64, &[f64], usize) -> (f64, (f64, Vec<f64>)) = scale_grad;
    let _: fn(f64, &[f64], usize, (&mut f64, &mut [f64])) -> f64 = scale_grad_into;
    let _: fn(&[f64]) -> (f64, Vec<f64>) = sumsq_grad;
    let _: fn(&[f64], f64) -> (f64, Vec<f64>) = sumsq_vjp;
    let _: fn(&[f64], Vec<f64>) -> (f64, f64) = sumsq_jvp;

    let (data, labels) = ([0.5, -1.0, 2.0, 0.3], [0, 2, 1, 2]);
    for w in [vec![0.3, -0.8, 1.1], vec![2.0, 0.1, -0.4]] {
        let (v, g) = loss_grad(&w, &data, &labels);
        assert_eq!(v, loss(&w, &data, &labels), "loss_grad: value");
        assert_fd_gradient(|w| loss(w, &data, &labels), &w, &g, "loss_grad");
        let mut buffer = vec![GARBAGE; 3];
        assert_eq!(
            loss_grad_into(&w, &data, &labels, &mut buffer),
            v,
            "loss_grad_into: value"
        );
        assert_all_close(&buffer, &g, SAME_TOL, "loss_grad_into");
    }
    for x in [vec![0.3, -0.8, 1.1, 7.0], vec![2.0, 0.1, -0.4, 9.0]] {
        let a = 1.7;
        let (v, (ga, gx)) = scale_grad(a, &x, 3);
        assert_eq!(gx.len(), 4, "scale_grad: a gradient for every element of x");
        assert_eq!(gx[3], 0.0, "scale_grad: x[3] is not read");
        let mut flat = vec![a];
        flat.extend(&x);
        assert_fd_gradient(
            |p| scale(p[0], &p[1..], 3),
            &flat,
            &[vec![ga], gx.clone()].concat(),
            "scale_grad",
        );
        let (mut ba, mut bx) = (GARBAGE, vec![GARBAGE; 4]);
        assert_eq!(
            scale_grad_into(a, &x, 3, (&mut ba, &mut bx)),
            v,
            "scale_grad_into: value"
        );
        assert_all_close(
            &[vec![ba], bx].concat(),
            &[vec![ga], gx].concat(),
            SAME_TOL,
            "scale_grad_into",
        );
        let (v, g) = sumsq_grad(&x);
        assert_eq!(v, sumsq(&x), "sumsq_grad: value");
        assert_all_close(
            &g,
            &x.iter().map(|v| 2.0 * v).collect::<Vec<_>>(),
            ANALYTIC_TOL,
            "sumsq_grad",
        );
    }
}

#[test]
fn mut_and_inactive_parameters() {
    let _: fn(f64, i32, bool) -> (f64, f64) = mut_param_grad;
    let _: fn(f64, i32, bool) -> [f64; 3] = mut_param_derivatives;
    let _: fn(f64, i32, bool, f64) -> (f64, f64, f64) = mut_param_hvp;
    let _: fn(f64, i32, bool) -> (f64, f64, Vec<Vec<f64>>) = mut_param_hessian;
    for x in [0.3, -0.9, 1.4] {
        for (k, flip) in [(1, false), (3, true), (0, false)] {
            let (v, g) = mut_param_grad(x, k, flip);
            assert_eq!(v, mut_param(x, k, flip), "mut_param_grad: value");
            assert_fd_gradient(|p| mut_param(p[0], k, flip), &[x], &[g], "mut_param_grad");
            let d = mut_param_derivatives(x, k, flip);
            assert_close(d[1], g, SAME_TOL, "mut_param_derivatives: f'");
            let fd2 = hessian_column(|p| vec![mut_param_grad(p[0], k, flip).1], &[x], 0)[0];
            assert_close(d[2], fd2, HESSIAN_FD_TOL, "mut_param_derivatives: f''");
            let (_, _, h) = mut_param_hessian(x, k, flip);
            assert_close(h[0][0], d[2], SAME_TOL, "mut_param_hessian");
            let (_, _, hv) = mut_param_hvp(x, k, flip, -2.0);
            assert_close(hv, -2.0 * d[2], SAME_TOL, "mut_param_hvp");
        }
    }

    let _: fn(f64, f64, &[f64]) -> (f64, (f64, Vec<f64>)) = wrt_two_grad;
    let _: fn(f64, f64, &[f64], (f64, Vec<f64>)) -> (f64, (f64, Vec<f64>), (f64, Vec<f64>)) =
        wrt_two_hvp;
    let _: fn(f64, f64, &[f64]) -> (f64, (f64, Vec<f64>), Vec<Vec<f64>>) = wrt_two_hessian;
    let b = 0.7;
    let split = |x: &[f64]| (x[0], x[1..].to_vec());
    let join = |(a, c): (f64, Vec<f64>)| [vec![a], c].concat();
    audit(
        &Items {
            what: "wrt_two(a, b, c) with wrt(a, c)",
            primal: &|x| wrt_two(x[0], b, &x[1..]),
            grad: &|x| {
                let (v, g) = wrt_two_grad(x[0], b, &x[1..]);
                (v, join(g))
            },
            vjp: &|x, d| {
                let (v, g) = wrt_two_vjp(x[0], b, &x[1..], d);
                (v, join(g))
            },
            jvp: &|x, t| wrt_two_jvp(x[0], b, &x[1..], split(t)),
            grad_into: &|x| {
                let (mut ga, mut gc) = (GARBAGE, vec![GARBAGE; x.len() - 1]);
                let v = wrt_two_grad_into(x[0], b, &x[1..], (&mut ga, &mut gc));
                (v, join((ga, gc)))
            },
            hvp: Some(&|x, t| {
                let (v, g, hv) = wrt_two_hvp(x[0], b, &x[1..], split(t));
                (v, join(g), join(hv))
            }),
            hessian: Some(&|x| {
                let (v, g, h) = wrt_two_hessian(x[0], b, &x[1..]);
                (v, join(g), h)
            }),
            analytic: Some(&|x| {
                let (a, c) = (x[0], &x[1..]);
                let mut g = vec![b + c.iter().map(|ci| ci * (ci * a).cos() * b).sum::<f64>()];
                g.extend(c.iter().map(|ci| a * (ci * a).cos() * b));
                g
            }),
        },
        &[vec![0.3, -0.8, 1.1], vec![-1.2, 0.5, 0.25, 2.0]],
    );
}

/// `API.md`: for `fn f(l: f64, w: &[f64])` the Hessian runs over `(l, w[0], w[1], ...)`.
#[differentiable(order = 2)]
fn flattened(l: f64, w: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += l * w[i] * w[i] * (i as f64 + 1.0);
    }
    s
}

#[test]
fn hessian_inputs_flatten_in_declaration_order() {
    let (l, w) = (0.5, [0.3, -1.2, 2.0]);
    let (v, _, h) = flattened_hessian(l, &w);
    assert_eq!(v, flattened(l, &w), "flattened_hessian: value");
    // H[l][l] = 0, H[l][w_i] = 2 (i + 1) w_i, H[w_i][w_j] = 2 l (i + 1) δ_ij.
    let mut expected = vec![vec![0.0; 4]; 4];
    for i in 0..3 {
        let k = i as f64 + 1.0;
        expected[0][i + 1] = 2.0 * k * w[i];
        expected[i + 1][0] = 2.0 * k * w[i];
        expected[i + 1][i + 1] = 2.0 * l * k;
    }
    assert_matrix_close(&h, &expected, ANALYTIC_TOL, "flattened_hessian");
}

/// `API.md`: the columns of `f_jacobian` flatten matrices and nested arrays row-major, in declaration order.
#[differentiable]
fn matrix_outputs(m: [[f64; 2]; 2], v: &[Vec<f64>]) -> Vec<f64> {
    vec![m[0][0] * m[1][1] + v[0][1], m[0][1] * v[1][0] * m[1][0]]
}

#[test]
fn jacobian_columns_flatten_matrices_row_major() {
    let _: fn([[f64; 2]; 2], &[Vec<f64>]) -> Vec<Vec<f64>> = matrix_outputs_jacobian;
    let flat = |x: &[f64]| {
        matrix_outputs(
            [[x[0], x[1]], [x[2], x[3]]],
            &[x[4..6].to_vec(), x[6..8].to_vec()],
        )
    };
    for x in [
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        [0.3, -0.2, 0.9, 1.4, -0.6, 0.25, 0.75, -1.5],
    ] {
        let jacobian = matrix_outputs_jacobian(
            [[x[0], x[1]], [x[2], x[3]]],
            &[x[4..6].to_vec(), x[6..8].to_vec()],
        );
        let by_hand = vec![
            vec![x[3], 0.0, 0.0, x[0], 0.0, 1.0, 0.0, 0.0],
            vec![
                0.0,
                x[6] * x[2],
                x[1] * x[6],
                0.0,
                0.0,
                0.0,
                x[1] * x[2],
                0.0,
            ],
        ];
        assert_matrix_close(
            &jacobian,
            &by_hand,
            ANALYTIC_TOL,
            "matrix_outputs_jacobian by hand",
        );
        assert_matrix_close(
            &jacobian,
            &fd_jacobian(flat, &x),
            1e-7,
            "matrix_outputs_jacobian by differences",
        );
    }
}
