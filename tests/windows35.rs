//! A sub-slice passed to a function whose result is read only where no derivative flows (a comparison), at
//! `order = 2`: the generic copy calls it as written on the values of the window
//! (`__private::array_values`), and the sweeps bind the window by reference (`let w: &[_] = &x[0..3];`) and
//! pass `&w`, which `ArrayValues` did not take (`&&[T]`: rustc's E0277; `autodiff-fuzz --forms --sugar
//! --seed 35012`, program 5).
//!
//! Checked against the analytic derivatives and central differences of the gradient (`common`).

mod common;

use autodiff::{differentiable, Float};
use common::{assert_close, assert_fd_gradient, Inputs};

#[differentiable]
fn scaled_first<T: Float>(xs: &[T], s: T) -> T {
    xs[0] * s
}

#[differentiable(order = 2)]
fn branch_on_window(a: f64, xs: &[f64]) -> f64 {
    let t = scaled_first(&xs[0..3], a);
    if xs[1] > t {
        a * a * xs[2]
    } else {
        xs[0] * a * a * a
    }
}

#[test]
fn a_window_passed_to_a_call_read_in_a_condition() {
    let mut inputs = Inputs(35_201);
    for _ in 0..24 {
        let (a, xs) = (inputs.next(), inputs.vec(4));
        // Away from the switch, where differences would straddle it.
        if (xs[1] - xs[0] * a).abs() < 1e-3 {
            continue;
        }
        let (v, (ga, gx)) = branch_on_window_grad(a, &xs);
        assert_close(v, branch_on_window(a, &xs), 1e-12, "value");
        let (by_hand, hessian) = if xs[1] > xs[0] * a {
            (
                [2.0 * a * xs[2], 0.0, 0.0, a * a, 0.0],
                [
                    [2.0 * xs[2], 0.0, 0.0, 2.0 * a],
                    [0.0; 4],
                    [0.0; 4],
                    [2.0 * a, 0.0, 0.0, 0.0],
                ],
            )
        } else {
            (
                [3.0 * xs[0] * a * a, a * a * a, 0.0, 0.0, 0.0],
                [
                    [6.0 * xs[0] * a, 3.0 * a * a, 0.0, 0.0],
                    [3.0 * a * a, 0.0, 0.0, 0.0],
                    [0.0; 4],
                    [0.0; 4],
                ],
            )
        };
        let mut flat = vec![ga];
        flat.extend(&gx);
        for (k, (&g, &e)) in flat.iter().zip(&by_hand).enumerate() {
            assert_close(g, e, 1e-12, &format!("gradient {k}"));
        }
        let mut point = vec![a];
        point.extend(&xs);
        assert_fd_gradient(
            |p| branch_on_window(p[0], &p[1..]),
            &point,
            &flat,
            "branch_on_window",
        );
        let (_, _, h) = branch_on_window_hessian(a, &xs);
        for i in 0..4 {
            for j in 0..4 {
                assert_close(h[i][j], hessian[i][j], 1e-12, &format!("Hessian {i} {j}"));
            }
        }
    }
}
