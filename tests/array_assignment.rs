//! Arrays bound, copied and assigned whole: `let mut d = c;`, `d = c;`, `y = step(&y, h);`, in loops and
//! outside them. Arrays are memory in the macro's intermediate form, so each of these must either copy the
//! elements or rebind the name, and a loop must see the new array in its next iteration and after it. Each
//! of the functions below had a silently wrong gradient before (a zero gradient for `y = step(&y, h)` in a
//! loop; `d` aliasing `c` for a call's result of unknown type; the loop's rebinding of `d` lost after it),
//! found probing as a user. A nested fixed-size array (`[[f64; 2]; 2]`) assigned whole in a loop is copied
//! entry by entry the same way. Gradients against derivatives by hand and central differences, tangents against
//! the gradient, Hessians against central differences of the gradient.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_fd_gradient, assert_jacobian, config, fd_jacobian, ANALYTIC_TOL,
};
use proptest::prelude::*;

/// One explicit Euler step of `y0' = y1`, `y1' = -y0²`.
#[differentiable]
fn step(y: &[f64; 2], h: f64) -> [f64; 2] {
    [y[0] + h * y[1], y[1] - h * y[0] * y[0]]
}

/// Five steps, the state replaced by the call's result in the loop.
#[differentiable(order = 2)]
fn stepped(h: f64, y0: [f64; 2]) -> f64 {
    let mut y = y0;
    for _ in 0..5 {
        y = step(&y, h);
    }
    y[0] * y[1]
}

/// The same through a named result of no declared type (`let next = ..; y = next;`).
#[differentiable(order = 2)]
fn stepped_by_name(h: f64, y0: [f64; 2]) -> f64 {
    let mut y = y0;
    for _ in 0..5 {
        let next = step(&y, h);
        y = next;
    }
    y[0] * y[1]
}

/// The primal written out by hand, for the gradient by differences.
fn stepped_by_hand(h: f64, y0: [f64; 2]) -> f64 {
    let mut y = y0;
    for _ in 0..5 {
        y = [y[0] + h * y[1], y[1] - h * y[0] * y[0]];
    }
    y[0] * y[1]
}

/// A fixed-size array assigned whole in a loop and read in the next iteration and after the loop:
/// `d = c` then `d0 *= b`, `c1 += d0`, three times. `c = [b, 1]`; after the loop `c1 = 1 + 3 b²`,
/// `d0 = b²`: `f = b + 1 + 3 b² + b²`.
#[differentiable(order = 2)]
fn assigned_in_a_loop(b: f64) -> f64 {
    let mut c = [b, 1.0];
    let mut d = [0.0; 2];
    for _ in 0..3 {
        d = c;
        d[0] *= b;
        c[1] += d[0];
    }
    c[0] + c[1] + d[0]
}

/// `[b, 2b]`.
#[differentiable]
fn pair(b: f64) -> [f64; 2] {
    [b, 2.0 * b]
}

/// `vec![b, 2b]`.
#[differentiable]
fn pair_vec(b: f64) -> Vec<f64> {
    vec![b, 2.0 * b]
}

/// `v0 v1`.
#[differentiable]
fn product(v: [f64; 2]) -> f64 {
    v[0] * v[1]
}

/// Copies of a call's result of no declared type (an array or a `Vec`: the macro cannot tell), written
/// after the copy: `c = [b, 2b]`, `d = [b², 2b]`, `w = [b, 2b²]`, and `g = c` assigned outside a loop
/// then `g1 = b²`. `f = c0 + d0 + d0 d1 + w1 + c0 c1 + g1 = b + b² + 2b³ + 2b² + 2b² + b² = b + 6b² + 2b³`.
#[differentiable(order = 2)]
fn copies_of_results(b: f64) -> f64 {
    let c = pair(b);
    let mut d = c;
    d[0] *= b;
    let e = pair_vec(b);
    let mut w = e;
    w[1] *= b;
    let mut g = [1.0, b];
    let first = g[1];
    g = c;
    g[1] = b * first;
    c[0] + d[0] + product(d) + w[1] + product(c) + g[1]
}

/// A raw identifier assigned whole in a loop (`r#in = c;`): the macro panicked making the copy's syntax
/// (`Ident::new("r#in")`). `in = [b², 1]` after the loop: `f = b² + b`.
#[differentiable(order = 2)]
fn raw_name(b: f64) -> f64 {
    let c = [b, 1.0];
    let mut r#in = [0.0; 2];
    for _ in 0..2 {
        r#in = c;
        r#in[0] *= b;
    }
    r#in[0] + c[0]
}

/// A nested fixed-size array assigned whole in a loop (`e = sq;`, both `[[f64; 2]; 2]`): `e = I + B`, squared
/// twice, so `e = (I + B)⁴`; `f = tr e + e₀₁ / 2`. Was a spanned error whose hint (make `e` fixed-size) did
/// not apply.
#[differentiable(order = 2)]
fn matrix_power_by_squaring(b: [[f64; 2]; 2]) -> f64 {
    let mut e = [[1.0, 0.0], [0.0, 1.0]];
    for i in 0..2 {
        for j in 0..2 {
            e[i][j] += b[i][j];
        }
    }
    for _ in 0..2 {
        let mut sq = [[0.0; 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                for l in 0..2 {
                    sq[i][j] += e[i][l] * e[l][j];
                }
            }
        }
        e = sq;
    }
    e[0][0] + e[1][1] + 0.5 * e[0][1]
}

/// `a b` of 2×2 matrices.
fn matmul(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> [[f64; 2]; 2] {
    let mut c = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
        }
    }
    c
}

/// The gradient of `tr M⁴ + (M⁴)₀₁ / 2` in `B`, `M = I + B`: `∂(M⁴)ᵢⱼ/∂Mₖₗ = Σₚ (Mᵖ)ᵢₖ (M³⁻ᵖ)ₗⱼ`.
fn matrix_power_gradient(b: [[f64; 2]; 2]) -> [[f64; 2]; 2] {
    let m = [[1.0 + b[0][0], b[0][1]], [b[1][0], 1.0 + b[1][1]]];
    let mut powers = vec![[[1.0, 0.0], [0.0, 1.0]]];
    for p in 1..4 {
        powers.push(matmul(powers[p - 1], m));
    }
    let d = |i: usize, j: usize, k: usize, l: usize| -> f64 {
        (0..4).map(|p| powers[p][i][k] * powers[3 - p][l][j]).sum()
    };
    let mut g = [[0.0; 2]; 2];
    for k in 0..2 {
        for l in 0..2 {
            g[k][l] = d(0, 0, k, l) + d(1, 1, k, l) + 0.5 * d(0, 1, k, l);
        }
    }
    g
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_nested_array_assigned_whole_in_a_loop(x in proptest::array::uniform4(-0.8f64..0.8)) {
        let b = [[x[0], x[1]], [x[2], x[3]]];
        let at = |x: &[f64]| matrix_power_by_squaring([[x[0], x[1]], [x[2], x[3]]]);
        let (value, g) = matrix_power_by_squaring_grad(b);
        let m = [[1.0 + b[0][0], b[0][1]], [b[1][0], 1.0 + b[1][1]]];
        let m4 = matmul(matmul(m, m), matmul(m, m));
        assert_all_close(&[value], &[m4[0][0] + m4[1][1] + 0.5 * m4[0][1]], ANALYTIC_TOL, "value");
        let flat = |g: [[f64; 2]; 2]| vec![g[0][0], g[0][1], g[1][0], g[1][1]];
        let by_hand = flat(matrix_power_gradient(b));
        assert_all_close(&flat(g), &by_hand, ANALYTIC_TOL, "gradient by hand");
        assert_fd_gradient(at, &x, &flat(g), "matrix_power_by_squaring");
        let t = [[0.3, -0.7], [0.2, 0.5]];
        let (_, tangent) = matrix_power_by_squaring_jvp(b, t);
        assert_all_close(&[tangent], &[common::dot(&by_hand, &flat(t))], 1e-10, "tangent");
        let gradient = |x: &[f64]| flat(matrix_power_by_squaring_grad([[x[0], x[1]], [x[2], x[3]]]).1);
        let (_, _, h) = matrix_power_by_squaring_hessian(b);
        assert_jacobian(&h, &fd_jacobian(gradient, &x), "matrix_power_by_squaring_hessian");
    }

    #[test]
    fn a_state_replaced_by_a_call_in_a_loop(h in -0.3f64..0.3, a in -1.0f64..1.0, b in -1.0f64..1.0) {
        let x = [h, a, b];
        let at = |x: &[f64]| stepped_by_hand(x[0], [x[1], x[2]]);
        let primals = [stepped(h, [a, b]), stepped_by_name(h, [a, b])];
        assert_all_close(&primals, &[at(&x); 2], ANALYTIC_TOL, "the primals as written");
        type Grad = fn(f64, [f64; 2]) -> (f64, (f64, [f64; 2]));
        type Hessian = fn(f64, [f64; 2]) -> (f64, (f64, [f64; 2]), Vec<Vec<f64>>);
        let cases: [(&str, Grad, Hessian); 2] = [
            ("stepped", stepped_grad, stepped_hessian),
            ("stepped_by_name", stepped_by_name_grad, stepped_by_name_hessian),
        ];
        for (name, grad, hessian) in cases {
            let (value, (gh, gy)) = grad(h, [a, b]);
            assert_all_close(&[value], &[at(&x)], ANALYTIC_TOL, name);
            let got = [gh, gy[0], gy[1]];
            assert_fd_gradient(at, &x, &got, name);
            let gradient = |x: &[f64]| {
                let (_, (gh, gy)) = grad(x[0], [x[1], x[2]]);
                vec![gh, gy[0], gy[1]]
            };
            let (_, _, h2) = hessian(h, [a, b]);
            assert_jacobian(&h2, &fd_jacobian(gradient, &x), name);
        }
        let t = [0.3, -0.7, 0.2];
        let (_, tv) = stepped_jvp(h, [a, b], (t[0], [t[1], t[2]]));
        let (_, (gh, gy)) = stepped_grad(h, [a, b]);
        assert_all_close(&[tv], &[gh * t[0] + gy[0] * t[1] + gy[1] * t[2]], 1e-10, "stepped_jvp");
    }

    #[test]
    fn an_array_assigned_whole_in_a_loop(b in -2.0f64..2.0) {
        let (value, grad) = assigned_in_a_loop_grad(b);
        assert_all_close(&[value], &[b + 1.0 + 4.0 * b * b], ANALYTIC_TOL, "value");
        assert_all_close(&[grad], &[1.0 + 8.0 * b], ANALYTIC_TOL, "gradient by hand");
        assert_fd_gradient(|x| assigned_in_a_loop(x[0]), &[b], &[grad], "assigned_in_a_loop");
        let (_, tangent) = assigned_in_a_loop_jvp(b, 1.0);
        assert_all_close(&[tangent], &[grad], 1e-12, "tangent");
        let (_, _, h) = assigned_in_a_loop_hessian(b);
        assert_all_close(&[h[0][0]], &[8.0], 1e-12, "Hessian by hand");
    }

    #[test]
    fn a_raw_identifier_assigned_whole_in_a_loop(b in -2.0f64..2.0) {
        let (value, grad) = raw_name_grad(b);
        assert_all_close(&[value, grad], &[b * b + b, 2.0 * b + 1.0], ANALYTIC_TOL, "value and gradient");
        assert_fd_gradient(|x| raw_name(x[0]), &[b], &[grad], "raw_name");
        let (_, _, h) = raw_name_hessian(b);
        assert_all_close(&[h[0][0]], &[2.0], 1e-12, "Hessian by hand");
    }

    #[test]
    fn copies_of_results_of_unknown_type(b in -2.0f64..2.0) {
        let (value, grad) = copies_of_results_grad(b);
        let want = b + 6.0 * b * b + 2.0 * b.powi(3);
        assert_all_close(&[value], &[want], ANALYTIC_TOL, "value");
        let want_grad = 1.0 + 12.0 * b + 6.0 * b * b;
        assert_all_close(&[grad], &[want_grad], ANALYTIC_TOL, "gradient by hand");
        assert_fd_gradient(|x| copies_of_results(x[0]), &[b], &[grad], "copies_of_results");
        let (_, tangent) = copies_of_results_jvp(b, 1.0);
        assert_all_close(&[tangent], &[grad], 1e-12, "tangent");
        let (_, _, h) = copies_of_results_hessian(b);
        assert_all_close(&[h[0][0]], &[12.0 + 12.0 * b], 1e-10, "Hessian by hand");
    }
}
