//! `order = K` on functions that mix `f32` and `f64` (API.md: `order = K` works on functions written for
//! `f64` or `f32` with no extra condition). An `f32` function that converts to `f64` (`(v as f64) * (v as
//! f64)` accumulated in `f64`, `(x as f64).exp() as f32`, `let s: f64 = 0.5`, `std::f64::consts::PI`,
//! `f64::EPSILON`, `f64::sin`) was a spanned error; so was an `f64` function naming an `f32` constant
//! (`2.0f32`, `f32::EPSILON`, `f32::sqrt`). The generic copy that the higher-order items run on dual numbers
//! holds both float types in its own (`shadow.rs`): an `f32` function's Hessian is computed in `f32`, its
//! `f64` part too (the first-order items keep the `f64` precision of the function as written), and an `f64`
//! function's `f32` part is computed in `f64`, rounded where the function converts (`as f32`), the
//! rounding's slope taken as 1 (docs/conventions.md).
//!
//! Checked against derivatives worked out by hand and against central differences of `_grad` (with a step
//! that `f32` resolves), at several points.

#![allow(
    clippy::excessive_precision,
    clippy::needless_range_loop,
    clippy::ptr_arg
)]

mod common;

use autodiff::differentiable;
use common::{assert_all_close, assert_close};

/// `|x|`, accumulated in `f64`.
#[differentiable(order = 2)]
pub fn norm_f32_acc64(x: &[f32]) -> f32 {
    let mut s = 0.0f64;
    for &v in x {
        s += (v as f64) * (v as f64);
    }
    s.sqrt() as f32
}

/// `e^x y`, the exponential taken in `f64`.
#[differentiable(order = 2)]
pub fn exp_in_f64(x: f32, y: f32) -> f32 {
    let a = (x as f64).exp() as f32;
    a * y
}

/// `x (0.5 + 3 (sin(pi x) + eps))^2`, the sum in `f64` written with annotated literals, `f64` constants and
/// functions by their paths, and `2f64`.
#[differentiable(order = 3)]
pub fn annotated(x: f32) -> f32 {
    let mut s: f64 = 0.5;
    let k: f64 = std::f64::consts::PI;
    for i in 0..3 {
        s += (f64::sin(x as f64 * k) + f64::EPSILON) * (i as f64) / 2f64 * 2.0;
    }
    let w = (s * s) as f32;
    w * x
}

/// `x sqrt(4 x^2 + eps)` of an `f64` function, the square root in `f32` by its path, with `f32` constants.
#[differentiable(order = 2)]
pub fn names_f32(x: f64) -> f64 {
    let y = x as f32 * 2.0f32;
    let z = f32::sqrt(y * y + f32::EPSILON);
    z as f64 * x
}

/// An `f64` helper with derivatives that an `f32` function calls on a differentiated value.
#[differentiable]
pub fn wide_cube(x: f64) -> f64 {
    x * x * x
}

/// `x^3 y`, the cube by an `f64` function.
#[differentiable(order = 2)]
pub fn calls_wide(x: f32, y: f32) -> f32 {
    wide_cube(x as f64) as f32 * y
}

/// An `f32` helper with derivatives that an `f64` function calls on a differentiated value.
#[differentiable]
pub fn narrow_square(x: f32) -> f32 {
    x * x
}

/// `x^3`, of which `x^2` by an `f32` function.
#[differentiable(order = 2)]
pub fn calls_narrow(x: f64) -> f64 {
    narrow_square(x as f32) as f64 * x
}

/// `x^2 y` of `f32` inputs, an `f64` result (rustc's `tests/codegen-llvm/autodiff/sret.rs` form).
#[differentiable(order = 2)]
pub fn f32_inputs_f64_result(x: f32, y: f32) -> f64 {
    (x * x * y) as f64
}

/// A scalar of each type: `3 x y + floor(y) x`, with `2 y` rounded to `f32` on the way.
#[differentiable(order = 2)]
pub fn one_of_each(x: f32, y: f64) -> f64 {
    let wide = x as f64;
    let narrow = (y * 2.0) as f32;
    let whole = y as i64 as f64;
    wide * y + (narrow * x) as f64 + whole * wide
}

/// `n x^3` of an `f64` input, an `f32` result, beside an integer.
#[differentiable(order = 3)]
pub fn f64_input_f32_result(x: f64, n: usize) -> f32 {
    (x * x * x) as f32 * n as f32
}

/// `a sum w_i^2` of `f32` data accumulated in `f64`, beside an `f64` scalar.
#[differentiable(order = 2)]
pub fn f32_slice_f64_result(w: &[f32], a: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += (w[i] as f64) * (w[i] as f64) * a;
    }
    s
}

/// `w0 v1 z0 r0 + w1^2` of `f32` arrays, an array reference, a `Vec` and a `&Vec`.
#[differentiable(order = 2)]
pub fn f32_containers(w: [f32; 2], v: &[f32; 2], z: Vec<f32>, r: &Vec<f32>) -> f64 {
    (w[0] * v[1] * z[0] * r[0]) as f64 + (w[1] * w[1]) as f64
}

/// The second derivative of a scalar `f32` gradient by central differences with a step `f32` resolves.
fn fd_f32(grad: impl Fn(f32) -> f32, x: f32) -> f32 {
    let h = 1e-2 * x.abs().max(1.0);
    (grad(x + h) - grad(x - h)) / (2.0 * h)
}

fn close32(a: f32, b: f32, tol: f32, what: &str) {
    assert!(
        (a - b).abs() <= tol * (1.0 + b.abs()),
        "{what}: {a} against {b}"
    );
}

#[test]
fn a_norm_accumulated_in_f64() {
    for x in [
        vec![0.3f32, -1.2, 2.0],
        vec![1.0, 1.0],
        vec![-0.7, 0.1, 0.4, 2.5],
    ] {
        let n = x
            .iter()
            .map(|&v| (v as f64) * (v as f64))
            .sum::<f64>()
            .sqrt();
        let (v, g, h) = norm_f32_acc64_hessian(&x);
        close32(v, n as f32, 1e-6, "norm value");
        let by_hand: Vec<f64> = x.iter().map(|&v| v as f64 / n).collect();
        let g64: Vec<f64> = g.iter().map(|&v| v as f64).collect();
        assert_all_close(&g64, &by_hand, 1e-6, "norm gradient");
        for i in 0..x.len() {
            for j in 0..x.len() {
                let delta = if i == j { 1.0 } else { 0.0 };
                let expected = (delta - by_hand[i] * by_hand[j]) / n;
                close32(h[i][j], expected as f32, 1e-5, "norm Hessian by hand");
                // Central differences of the f32 gradient along input j.
                let column = fd_f32(
                    |t| {
                        let mut y = x.clone();
                        y[j] = t;
                        norm_f32_acc64_grad(&y).1[i]
                    },
                    x[j],
                );
                close32(h[i][j], column, 2e-2, "norm Hessian by differences");
            }
            let mut e = vec![0.0f32; x.len()];
            e[i] = 1.0;
            let (_, _, hv) = norm_f32_acc64_hvp(&x, e);
            let column: Vec<f32> = (0..x.len()).map(|k| h[k][i]).collect();
            for k in 0..x.len() {
                close32(
                    hv[k],
                    column[k],
                    1e-6,
                    "norm hvp against the Hessian's column",
                );
            }
        }
    }
}

#[test]
fn an_exponential_taken_in_f64() {
    for (x, y) in [(0.4f32, 1.5f32), (-1.3, 0.2), (2.1, -0.8)] {
        let e = (x as f64).exp() as f32;
        let (v, (gx, gy), h) = exp_in_f64_hessian(x, y);
        close32(v, e * y, 1e-6, "value");
        close32(gx, e * y, 1e-6, "d/dx");
        close32(gy, e, 1e-6, "d/dy");
        close32(h[0][0], e * y, 1e-5, "d2/dx2");
        close32(h[0][1], e, 1e-5, "d2/dxdy");
        close32(h[1][0], e, 1e-5, "d2/dydx");
        close32(h[1][1], 0.0, 1e-6, "d2/dy2");
        let dx = fd_f32(|t| exp_in_f64_grad(t, y).1 .0, x);
        close32(h[0][0], dx, 2e-2, "d2/dx2 by differences");
    }
}

#[test]
fn annotated_f64_values_constants_and_paths_to_the_third_derivative() {
    let pi = std::f64::consts::PI;
    for x in [0.4f32, -0.9, 1.7] {
        let x64 = x as f64;
        // s = 0.5 + 3 (sin(pi x) + eps), f = x s^2.
        let eps = f64::EPSILON;
        let s = 0.5 + 3.0 * ((pi * x64).sin() + eps);
        let s1 = 3.0 * pi * (pi * x64).cos();
        let s2 = -3.0 * pi * pi * (pi * x64).sin();
        let s3 = -3.0 * pi * pi * pi * (pi * x64).cos();
        let f0 = x64 * s * s;
        let f1 = s * s + 2.0 * x64 * s * s1;
        let f2 = 4.0 * s * s1 + 2.0 * x64 * (s1 * s1 + s * s2);
        let f3 = 6.0 * (s1 * s1 + s * s2) + 2.0 * x64 * (3.0 * s1 * s2 + s * s3);
        let [d0, d1, d2, d3] = annotated_derivatives(x);
        assert_close(d0 as f64, f0, 1e-5, "f");
        assert_close(d1 as f64, f1, 1e-5, "f'");
        assert_close(d2 as f64, f2, 1e-5, "f''");
        assert_close(d3 as f64, f3, 1e-4, "f'''");
        close32(annotated_grad(x).1, f1 as f32, 1e-5, "_grad");
        close32(
            d2,
            fd_f32(|t| annotated_grad(t).1, x),
            2e-2,
            "f'' by differences",
        );
    }
}

#[test]
fn an_f64_function_naming_f32_constants_and_functions() {
    let eps = f32::EPSILON as f64;
    for x in [0.3f64, -1.1, 2.4] {
        // f = x r, r = sqrt(4 x^2 + eps): f' = r + 4 x^2 / r, f'' = 4x/r + 8x/r - 16 x^3 / r^3.
        let r = (4.0 * x * x + eps).sqrt();
        let (v, g, h) = names_f32_hessian(x);
        // The copy computes the `f32` part in `f64`: its value is the function's to `f32`'s precision.
        assert_close(v, names_f32(x), 1e-6, "value against the function's");
        assert_close(v, x * r, 1e-6, "value");
        assert_close(g, r + 4.0 * x * x / r, 1e-6, "f'");
        let f2 = 12.0 * x / r - 16.0 * x * x * x / (r * r * r);
        assert_close(h[0][0], f2, 1e-6, "f''");
    }
}

#[test]
fn an_f32_function_calling_an_f64_function() {
    for (x, y) in [(0.5f32, 1.5f32), (-1.2, 0.3), (2.0, -0.7)] {
        let (v, (gx, gy), h) = calls_wide_hessian(x, y);
        close32(v, x * x * x * y, 1e-6, "value");
        close32(gx, 3.0 * x * x * y, 1e-5, "d/dx");
        close32(gy, x * x * x, 1e-5, "d/dy");
        close32(h[0][0], 6.0 * x * y, 1e-5, "d2/dx2");
        close32(h[0][1], 3.0 * x * x, 1e-5, "d2/dxdy");
        close32(h[1][1], 0.0, 1e-6, "d2/dy2");
        close32(
            h[0][0],
            fd_f32(|t| calls_wide_grad(t, y).1 .0, x),
            2e-2,
            "by differences",
        );
        // First order: the adjoint of the `f64` call's result converted back for its cotangent (it
        // was an `f32` passed where the callee's `f64` goes, a type error in the generated code).
        let (gv, (g1, g2)) = calls_wide_grad(x, y);
        close32(gv, x * x * x * y, 1e-6, "_grad value");
        close32(g1, 3.0 * x * x * y, 1e-5, "_grad d/dx");
        close32(g2, x * x * x, 1e-5, "_grad d/dy");
        let (_, (v1, v2)) = calls_wide_vjp(x, y, -2.0);
        close32(v1, -6.0 * x * x * y, 1e-5, "_vjp d/dx");
        close32(v2, -2.0 * x * x * x, 1e-5, "_vjp d/dy");
        let (_, t) = calls_wide_jvp(x, y, (0.5, -1.0));
        close32(t, 1.5 * x * x * y - x * x * x, 1e-5, "_jvp");
    }
}

#[test]
fn an_f64_function_calling_an_f32_function() {
    for x in [0.5f64, -1.2, 2.0] {
        let (v, g) = calls_narrow_grad(x);
        assert_close(v, x * x * x, 1e-6, "value");
        assert_close(g, 3.0 * x * x, 1e-6, "gradient");
        let (_, _, h) = calls_narrow_hessian(x);
        assert_close(h[0][0], 6.0 * x, 1e-6, "second derivative");
        let (_, t) = calls_narrow_jvp(x, 2.0);
        assert_close(t, 6.0 * x * x, 1e-6, "_jvp");
    }
}

#[test]
fn scalar_parameters_of_the_other_float_type() {
    for (x, y) in [(0.5f32, 1.5f32), (-1.25, 0.75), (2.0, -0.5)] {
        let (x64, y64) = (x as f64, y as f64);
        let (v, (gx, gy), h) = f32_inputs_f64_result_hessian(x, y);
        assert_close(v, x64 * x64 * y64, 1e-6, "value");
        assert_close(gx as f64, 2.0 * x64 * y64, 1e-6, "d/dx");
        assert_close(gy as f64, x64 * x64, 1e-6, "d/dy");
        assert_all_close(&h[0], &[2.0 * y64, 2.0 * x64], 1e-6, "Hessian row 0");
        assert_all_close(&h[1], &[2.0 * x64, 0.0], 1e-6, "Hessian row 1");
        for (k, t) in [(1.0f32, 0.0f32), (0.0, 1.0)].into_iter().enumerate() {
            let (_, _, (hx, hy)) = f32_inputs_f64_result_hvp(x, y, t);
            assert_all_close(&[hx as f64, hy as f64], &[h[0][k], h[1][k]], 1e-6, "hvp");
        }
        // The gradient of the first order against the Hessian's.
        let (_, (fx, fy)) = f32_inputs_f64_result_grad(x, y);
        assert_all_close(
            &[fx as f64, fy as f64],
            &[gx as f64, gy as f64],
            1e-6,
            "_grad",
        );
    }
    for (x, y) in [(0.5f32, 1.5f64), (-0.8, 2.25), (1.5, -0.4)] {
        let x64 = x as f64;
        let narrow = (y * 2.0) as f32 as f64;
        let whole = y as i64 as f64;
        let (v, (gx, gy), h) = one_of_each_hessian(x, y);
        assert_close(v, x64 * y + narrow * x64 + whole * x64, 1e-6, "value");
        // d/dx = y + narrow + whole, d/dy = x + 2 x (the rounding's slope 1, the floor's 0).
        assert_close(gx as f64, y + narrow + whole, 1e-6, "d/dx");
        assert_close(gy, 3.0 * x64, 1e-6, "d/dy");
        assert_all_close(&h[0], &[0.0, 3.0], 1e-6, "Hessian row 0");
        assert_all_close(&h[1], &[3.0, 0.0], 1e-6, "Hessian row 1");
    }
    for (x, n) in [(0.5f64, 2usize), (-1.5, 3), (1.2, 1)] {
        let nf = n as f64;
        let d = f64_input_f32_result_derivatives(x, n);
        let expected = [nf * x * x * x, 3.0 * nf * x * x, 6.0 * nf * x, 6.0 * nf];
        for (i, (a, b)) in d.iter().zip(expected).enumerate() {
            assert_close(*a as f64, b, 1e-5, &format!("derivative {i}"));
        }
    }
}

#[test]
fn slices_vecs_and_arrays_of_the_other_float_type() {
    for (w, a) in [(vec![0.5f32, 2.0], 1.5f64), (vec![-1.25, 0.25, 3.0], -0.5)] {
        let w64: Vec<f64> = w.iter().map(|&v| v as f64).collect();
        let sq: f64 = w64.iter().map(|v| v * v).sum();
        let (v, (gw, ga), h) = f32_slice_f64_result_hessian(&w, a);
        assert_close(v, a * sq, 1e-6, "value");
        let gw64: Vec<f64> = gw.iter().map(|&g| g as f64).collect();
        let by_hand: Vec<f64> = w64.iter().map(|v| 2.0 * a * v).collect();
        assert_all_close(&gw64, &by_hand, 1e-6, "d/dw");
        assert_close(ga, sq, 1e-6, "d/da");
        let n = w.len();
        for i in 0..n {
            for j in 0..n {
                let expected = if i == j { 2.0 * a } else { 0.0 };
                assert_close(h[i][j], expected, 1e-6, "d2/dw dw");
            }
            assert_close(h[i][n], 2.0 * w64[i], 1e-6, "d2/dw da");
            assert_close(h[n][i], 2.0 * w64[i], 1e-6, "d2/da dw");
        }
        assert_close(h[n][n], 0.0, 1e-12, "d2/da2");
        // The direction in the parameters' own types, the product back in them.
        let mut e = vec![0.0f32; n];
        e[0] = 1.0;
        let (_, _, (hw, ha)) = f32_slice_f64_result_hvp(&w, a, (e, 0.0));
        let hw: Vec<f64> = hw.iter().map(|&v| v as f64).collect();
        let column: Vec<f64> = (0..n).map(|i| h[i][0]).collect();
        assert_all_close(&hw, &column, 1e-6, "hvp along w0");
        assert_close(ha, h[n][0], 1e-6, "hvp along w0, a");
    }
    let (w, v, z, r) = ([0.5f32, 2.0], [1.0f32, 3.0], vec![2.0f32], vec![0.5f32]);
    let (value, (gw, gv, gz, gr), h) = f32_containers_hessian(w, &v, z.clone(), &r);
    assert_close(value, 5.5, 1e-6, "value");
    assert_eq!(gw, [3.0, 4.0]);
    assert_eq!(gv, [0.0, 0.5]);
    assert_eq!(gz, vec![0.75]);
    assert_eq!(gr, vec![3.0]);
    // Inputs flattened (w0, w1, v0, v1, z0, r0).
    assert_all_close(&h[0], &[0.0, 0.0, 0.0, 1.0, 1.5, 6.0], 1e-6, "row w0");
    assert_all_close(&h[1], &[0.0, 2.0, 0.0, 0.0, 0.0, 0.0], 1e-6, "row w1");
    assert_all_close(&h[5], &[6.0, 0.0, 0.0, 1.0, 1.5, 0.0], 1e-6, "row r0");
}
