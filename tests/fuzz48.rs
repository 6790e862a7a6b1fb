//! Session 48's fuzzing finds, each shrunk by hand.
//!
//! A matrix parameter left out of `wrt(..)` and read only by element (`grid[1][0]`) is read in place
//! (`views::in_place_matrices`), not flattened. Where its value reaches the result only through a call
//! taking a tuple (`h(&v, (1.0, grid[1][0]))`, which keeps it constant), the companion that callers use
//! (`__vjp_all`, `__jvp_all`, every parameter in its gradient) did not compile (seed 48001 p67 of
//! `--forms --sugar`): its zero gradient for the matrix was `zeros_like(&grid)` and its tangent's check
//! `matrix_tangent(.., &grid)`, both taking `grid` for the flat copy that the in-place read does not make
//! (`reverse.rs`, `forward.rs`).
//!
//! Values against plain copies, gradients against central differences and the analytic derivatives
//! (`common`, no code shared with the macro).

#[macro_use]
mod common;

use autodiff::differentiable;
use common::{assert_close, assert_fd_gradient, central_difference, Inputs};

#[differentiable]
fn pair_sum(xs: &[f64], p: (f64, f64)) -> f64 {
    xs[0] * p.1 + p.0
}

twin! {
    /// `pair_sum(&[0.5; 3], (1.0, t)) x0 + sin x1 = (0.5 t + 1) x0 + sin x1`, `t = grid[1][0]` where
    /// `a > 0`, else `grid[1][1]`.
    #[differentiable(wrt(xs))]
    fn through_a_tuple / through_a_tuple_plain(a: f64, xs: &[f64], grid: &[Vec<f64>]) -> f64 {
        let arr = vec![0.5; 3];
        let t = if a > 0.0 { grid[1][0] } else { grid[1][1] };
        pair_sum(&arr, (1.0, t)) * xs[0] + xs[1].sin()
    }
}

twin! {
    /// A caller differentiating `a` and `xs`, not `grid`: through `through_a_tuple`'s companion (the
    /// gradient and tangent of every parameter, the matrix's zero).
    #[differentiable(wrt(a, xs))]
    fn caller / caller_plain(a: f64, xs: &[f64], grid: &[Vec<f64>]) -> f64 {
        through_a_tuple(autodiff::stop_gradient(a), xs, grid) * a + (a * xs[2]).cos()
    }
}

/// The program as the fuzzer shrank it (seed 48001 p67 of `--forms --sugar`), with a result that depends
/// on `xs`: a helper declared in the body, taking a tuple of constants. (Not through `twin!`, whose `$ty`
/// hides `&f64` from the macro.)
// (`ptr_arg`: the fuzzer's `&Vec<f64>` parameter is the form tested.)
#[allow(clippy::ptr_arg)]
#[differentiable(wrt(xs))]
fn shrunk(a: f64, b: &f64, c: f64, xs: &[f64], ys: &Vec<f64>, grid: &[Vec<f64>]) -> f64 {
    #[differentiable]
    fn h0(xs: &[f64], s: f64, p: (f64, f64)) -> f64 {
        let (p0, p1) = p;
        (xs.iter().map(|&el| el.atan()).sum::<f64>() + p0 * p1 + s) / 2.9
    }
    let mut arr8 = vec![0.0; 3];
    arr8[0] = xs[0] * xs[1];
    arr8[2] = xs[2].sin();
    let t10 = if *b > 0.0 {
        grid[1][0].max(*b) * ys[2].atan()
    } else {
        (grid[1][1] * a).powi(3)
    };
    let t11 = h0(
        &arr8,
        ys[2].sin(),
        ((*b).tanh(), autodiff::stop_gradient(*b) * t10),
    );
    arr8[1] -= grid[0][1];
    arr8[1] = (*b) * grid[0][1].tanh() + c;
    t11 * arr8[0] + arr8[1]
}

#[allow(clippy::ptr_arg)]
fn shrunk_plain(a: f64, b: &f64, c: f64, xs: &[f64], ys: &Vec<f64>, grid: &[Vec<f64>]) -> f64 {
    fn h0(xs: &[f64], s: f64, p: (f64, f64)) -> f64 {
        let (p0, p1) = p;
        (xs.iter().map(|&el| el.atan()).sum::<f64>() + p0 * p1 + s) / 2.9
    }
    let mut arr8 = vec![0.0; 3];
    arr8[0] = xs[0] * xs[1];
    arr8[2] = xs[2].sin();
    let t10 = if *b > 0.0 {
        grid[1][0].max(*b) * ys[2].atan()
    } else {
        (grid[1][1] * a).powi(3)
    };
    let t11 = h0(
        &arr8,
        ys[2].sin(),
        ((*b).tanh(), autodiff::stop_gradient(*b) * t10),
    );
    arr8[1] -= grid[0][1];
    arr8[1] = (*b) * grid[0][1].tanh() + c;
    t11 * arr8[0] + arr8[1]
}

fn grid(inputs: &mut Inputs) -> Vec<Vec<f64>> {
    inputs.rows(2, 2)
}

#[test]
fn a_matrix_read_in_place_through_a_tuple() {
    let mut inputs = Inputs(48_101);
    for _ in 0..16 {
        let a = inputs.next();
        let xs = inputs.vec(3);
        let g = grid(&mut inputs);
        let t = if a > 0.0 { g[1][0] } else { g[1][1] };

        let (value, grad) = through_a_tuple_grad(a, &xs, &g);
        assert_eq!(value, through_a_tuple_plain(a, &xs, &g));
        assert_close(
            value,
            (0.5 * t + 1.0) * xs[0] + xs[1].sin(),
            1e-14,
            "by hand",
        );
        assert_close(grad[0], 0.5 * t + 1.0, 1e-14, "d/dx0 by hand");
        assert_close(grad[1], xs[1].cos(), 1e-14, "d/dx1 by hand");
        assert_eq!(grad[2], 0.0);
        assert_fd_gradient(
            |x| through_a_tuple_plain(a, x, &g),
            &xs,
            &grad,
            "through_a_tuple_grad",
        );

        // `caller`'s gradient in `a` and `xs`, against differences of the plain copy.
        let (value, (da, dxs)) = caller_grad(a, &xs, &g);
        assert_eq!(value, caller_plain(a, &xs, &g));
        assert_eq!(value, caller(a, &xs, &g));
        let da_fd = central_difference(|s| caller_plain(s, &xs, &g), a);
        assert_close(da, da_fd, 1e-6, "caller d/da");
        assert_fd_gradient(|x| caller_plain(a, x, &g), &xs, &dxs, "caller d/dxs");

        // Forward mode through the companion's tangent: a directional derivative.
        let (ta, txs) = (inputs.next(), inputs.vec(3));
        let (value, dot) = caller_jvp(a, &xs, &g, (ta, txs.clone()));
        assert_eq!(value, caller_plain(a, &xs, &g));
        let along = |s: f64| {
            let x: Vec<f64> = xs.iter().zip(&txs).map(|(x, t)| x + s * t).collect();
            caller_plain(a + s * ta, &x, &g)
        };
        assert_close(dot, central_difference(along, 0.0), 1e-6, "caller_jvp");
    }
}

#[test]
fn the_shrunk_program() {
    let mut inputs = Inputs(48_102);
    for _ in 0..16 {
        let (a, b, c) = (inputs.next(), inputs.next(), inputs.next());
        let xs = inputs.vec(3);
        let ys = inputs.vec(3);
        let g = grid(&mut inputs);
        let (value, grad) = shrunk_grad(a, &b, c, &xs, &ys, &g);
        assert_eq!(value, shrunk_plain(a, &b, c, &xs, &ys, &g));
        assert!(
            grad.iter().any(|d| *d != 0.0),
            "a gradient that depends on xs"
        );
        assert_fd_gradient(
            |x| shrunk_plain(a, &b, c, x, &ys, &g),
            &xs,
            &grad,
            "shrunk_grad",
        );
    }
}
