//! Loop labels: `break 'outer` and `continue 'outer` from nested `for`, `while` and `loop` bodies
//! (`autodiff-macros/src/labels.rs` rewrites them into flags). Gradients against hand-written ones (the same
//! loops, with the partial derivatives written out) and central differences; Hessians (`order = 2`)
//! against central differences of `_grad`; tangents against gradients; at many random points.

mod common;

use autodiff::differentiable;
use common::{
    assert_all_close, assert_close, assert_fd_gradient, config, fd_jacobian, ANALYTIC_TOL,
};
use proptest::prelude::*;

fn inputs() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1.5..1.5f64, 1..9)
}

/// `sum of x[i] sin x[j]` over the lower triangle `j <= i`, row by row, until a row whose index product
/// passes 6: `continue 'rows` ends a row, `break 'rows` the whole sum.
#[differentiable(order = 2)]
fn triangle(x: &[f64]) -> f64 {
    let mut s = 0.0;
    'rows: for i in 0..x.len() {
        for j in 0..x.len() {
            if j > i {
                continue 'rows;
            }
            if i * j > 6 {
                break 'rows;
            }
            s += x[i] * x[j].sin();
        }
    }
    s
}

/// The gradient of `triangle`, by the same loops with the partials written out.
fn triangle_gradient(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    'rows: for i in 0..x.len() {
        for j in 0..=i {
            if i * j > 6 {
                break 'rows;
            }
            g[i] += x[j].sin();
            g[j] += x[i] * x[j].cos();
        }
    }
    g
}

/// A labeled `while` left from a `loop` inside a `for`, and a labeled `loop` continued from a nested
/// `while`, whose value is given by `break 'outer value` at its own level.
#[differentiable(order = 2)]
fn nested_jumps(x: &[f64]) -> f64 {
    let mut k = 0;
    let mut p = 1.0;
    'steps: while k < 3 * x.len() {
        k += 1;
        for i in 0..x.len() {
            let mut m = 0;
            loop {
                m += 1;
                if m > i {
                    break;
                }
                if k + m > 7 {
                    break 'steps;
                }
                if (k + i) % 3 == 0 {
                    continue 'steps;
                }
                p *= 1.0 + 0.1 * x[i] * x[m - 1];
            }
        }
    }
    let mut t = 0.0;
    let mut i = 0;
    'outer: loop {
        while i < x.len() {
            t += x[i].exp();
            i += 1;
            if t > 2.0 {
                continue 'outer;
            }
        }
        if t > 2.0 {
            break 'outer t * p;
        }
        break t + p;
    }
}

/// The same function, with jumps written by flags: an oracle that does not go through the rewriting.
fn nested_jumps_by_flags(x: &[f64]) -> f64 {
    let mut k = 0;
    let mut p = 1.0;
    let mut stop = false;
    while !stop && k < 3 * x.len() {
        k += 1;
        'i: for i in 0..x.len() {
            let mut m = 0;
            loop {
                m += 1;
                if m > i {
                    break;
                }
                if k + m > 7 {
                    stop = true;
                    break 'i;
                }
                if (k + i) % 3 == 0 {
                    break 'i;
                }
                p *= 1.0 + 0.1 * x[i] * x[m - 1];
            }
        }
    }
    // `continue 'outer` goes on with the `while`: every element is summed.
    let t: f64 = x.iter().map(|v| v.exp()).sum();
    if t > 2.0 {
        t * p
    } else {
        t + p
    }
}

/// Inputs of `nested_jumps` whose sum of `exp` is 1e-3 away from the threshold 2 (where the function
/// jumps).
fn away_from_threshold(x: &[f64]) -> bool {
    (x.iter().map(|v| v.exp()).sum::<f64>() - 2.0).abs() > 1e-3
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn triangle_gradient_and_hessian(x in inputs()) {
        let (value, grad) = triangle_grad(&x);
        assert_eq!(value, triangle(&x));
        assert_all_close(&grad, &triangle_gradient(&x), ANALYTIC_TOL, "triangle gradient");
        assert_fd_gradient(triangle, &x, &grad, "triangle");
        let (_, _, hessian) = triangle_hessian(&x);
        let fd = fd_jacobian(triangle_gradient, &x);
        for i in 0..x.len() {
            for j in 0..x.len() {
                assert_close(hessian[i][j], fd[i][j], 1e-6, &format!("triangle H[{i}][{j}]"));
            }
        }
        let t: Vec<f64> = (0..x.len()).map(|i| 1.0 - 0.2 * i as f64).collect();
        let dot: f64 = grad.iter().zip(&t).map(|(g, t)| g * t).sum();
        assert_close(triangle_jvp(&x, t).1, dot, ANALYTIC_TOL, "triangle tangent");
    }

    #[test]
    fn nested_jumps_gradient_and_hessian(x in inputs()) {
        prop_assume!(away_from_threshold(&x));
        let (value, grad) = nested_jumps_grad(&x);
        assert_eq!(value, nested_jumps(&x));
        assert_close(value, nested_jumps_by_flags(&x), 1e-14, "nested_jumps value");
        assert_fd_gradient(nested_jumps_by_flags, &x, &grad, "nested_jumps");
        let (_, _, hessian) = nested_jumps_hessian(&x);
        let fd = fd_jacobian(|x| nested_jumps_grad(x).1, &x);
        for i in 0..x.len() {
            for j in 0..x.len() {
                assert_close(hessian[i][j], fd[i][j], 1e-6, &format!("nested_jumps H[{i}][{j}]"));
            }
        }
        let t: Vec<f64> = (0..x.len()).map(|i| 0.5 + 0.1 * i as f64).collect();
        let dot: f64 = grad.iter().zip(&t).map(|(g, t)| g * t).sum();
        assert_close(nested_jumps_jvp(&x, t).1, dot, ANALYTIC_TOL, "nested_jumps tangent");
    }
}
