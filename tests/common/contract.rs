//! The audit of a generated family of items against the contract (`API.md`): each item is adapted by the
//! test to a flat view of the active inputs (declaration order, matrices row-major), and [`audit`] checks
//! every item against central finite differences of the original function, against each other's defining
//! relations (`_vjp` is `d_ret` times the gradient, `_jvp` the gradient's inner product with the tangent,
//! `_hvp` the Hessian times `v`), and against an analytic gradient where the test gives one.

use super::{assert_all_close, assert_close, assert_fd_gradient, dot, hessian_column};

/// A flat gradient: the value and the gradient over the flat active inputs.
pub type FlatGrad<'a> = &'a dyn Fn(&[f64]) -> (f64, Vec<f64>);
/// A `_vjp` on flat inputs and a cotangent: the value and the flat product.
pub type FlatVjp<'a> = &'a dyn Fn(&[f64], f64) -> (f64, Vec<f64>);
/// A `_jvp` on flat inputs and a flat tangent: the value and the directional derivative.
pub type FlatJvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, f64);
/// A `_hvp` on flat inputs and a flat direction: value, gradient, Hessian times the direction.
pub type FlatHvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>);
/// A `_hessian` on flat inputs: value, gradient, Hessian.
pub type FlatHessian<'a> = &'a dyn Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>);

/// A gradient by hand over flat inputs.
pub type FlatAnalytic<'a> = &'a dyn Fn(&[f64]) -> Vec<f64>;

/// The items of one `#[differentiable(order = 2)]` function with one float output, seen on flat inputs.
pub struct Items<'a> {
    /// What is audited, for messages.
    pub what: &'a str,
    /// The original function.
    pub primal: &'a dyn Fn(&[f64]) -> f64,
    /// `f_grad`.
    pub grad: FlatGrad<'a>,
    /// `f_vjp` with the cotangent `d_ret`.
    pub vjp: FlatVjp<'a>,
    /// `f_jvp` along a flat tangent: the value and the directional derivative.
    pub jvp: FlatJvp<'a>,
    /// `f_grad_into`, its buffers filled with garbage before the call (the contract overwrites).
    pub grad_into: FlatGrad<'a>,
    /// `f_hvp` along a flat `v`, when audited at order 2: value, gradient, Hessian times `v`.
    pub hvp: Option<FlatHvp<'a>>,
    /// `f_hessian`, when audited at order 2: value, gradient, Hessian.
    pub hessian: Option<FlatHessian<'a>>,
    /// The gradient by hand, when there is one.
    pub analytic: Option<FlatAnalytic<'a>>,
}

/// Relative tolerance of a second derivative against central differences of an exact gradient.
pub const HESSIAN_FD_TOL: f64 = 1e-5;

/// Tolerance between items that compute the same exact quantity by different code.
pub const SAME_TOL: f64 = 1e-10;

/// A tangent for `n` inputs that is not aligned with any axis.
pub fn tangent_for(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.7 - 0.45 * i as f64 + 0.1 * (i * i) as f64)
        .collect()
}

/// Audits `items` at each of `points`.
#[track_caller]
pub fn audit(items: &Items, points: &[Vec<f64>]) {
    let what = items.what;
    for x in points {
        let value = (items.primal)(x);
        let (v, g) = (items.grad)(x);
        assert_eq!(v, value, "{what} at {x:?}: the value of _grad");
        assert_eq!(g.len(), x.len(), "{what}: the gradient's length");
        assert_fd_gradient(items.primal, x, &g, &format!("{what}: _grad"));
        if let Some(analytic) = items.analytic {
            assert_all_close(
                &g,
                &analytic(x),
                SAME_TOL,
                &format!("{what} at {x:?}: _grad against the analytic gradient"),
            );
        }

        for d_ret in [1.0, -2.5] {
            let (v, gv) = (items.vjp)(x, d_ret);
            assert_close(
                v,
                value,
                SAME_TOL,
                &format!("{what} at {x:?}: the value of _vjp"),
            );
            let scaled: Vec<f64> = g.iter().map(|gi| d_ret * gi).collect();
            assert_all_close(
                &gv,
                &scaled,
                SAME_TOL,
                &format!("{what} at {x:?}: _vjp with d_ret = {d_ret}"),
            );
        }

        let t = tangent_for(x.len());
        let (v, dot_t) = (items.jvp)(x, &t);
        assert_close(
            v,
            value,
            SAME_TOL,
            &format!("{what} at {x:?}: the value of _jvp"),
        );
        let scale = g
            .iter()
            .zip(&t)
            .map(|(a, b)| (a * b).abs())
            .sum::<f64>()
            .max(1.0);
        assert!(
            (dot_t - dot(&g, &t)).abs() <= SAME_TOL * scale,
            "{what} at {x:?}: _jvp {dot_t:e}, gradient · tangent {:e}",
            dot(&g, &t)
        );

        let (v, gi) = (items.grad_into)(x);
        assert_close(
            v,
            value,
            SAME_TOL,
            &format!("{what} at {x:?}: the value of _grad_into"),
        );
        assert_all_close(
            &gi,
            &g,
            SAME_TOL,
            &format!("{what} at {x:?}: _grad_into against _grad"),
        );

        if let Some(hessian) = items.hessian {
            let (v, gh, h) = hessian(x);
            assert_close(
                v,
                value,
                SAME_TOL,
                &format!("{what} at {x:?}: the value of _hessian"),
            );
            assert_all_close(
                &gh,
                &g,
                SAME_TOL,
                &format!("{what} at {x:?}: the gradient of _hessian"),
            );
            assert_eq!(h.len(), x.len(), "{what}: the Hessian's rows");
            let flat_grad = |y: &[f64]| (items.grad)(y).1;
            for j in 0..x.len() {
                let column = hessian_column(flat_grad, x, j);
                for i in 0..x.len() {
                    assert_eq!(h[i].len(), x.len(), "{what}: the Hessian's columns");
                    assert_close(
                        h[i][j],
                        column[i],
                        HESSIAN_FD_TOL,
                        &format!("{what} at {x:?}: H[{i}][{j}] against differences of _grad"),
                    );
                    assert_close(
                        h[i][j],
                        h[j][i],
                        SAME_TOL,
                        &format!("{what} at {x:?}: H[{i}][{j}] symmetric"),
                    );
                }
            }
            if let Some(hvp) = items.hvp {
                let (v, gv, hv) = hvp(x, &t);
                assert_close(
                    v,
                    value,
                    SAME_TOL,
                    &format!("{what} at {x:?}: the value of _hvp"),
                );
                assert_all_close(
                    &gv,
                    &g,
                    SAME_TOL,
                    &format!("{what} at {x:?}: the gradient of _hvp"),
                );
                let expected: Vec<f64> = h.iter().map(|row| dot(row, &t)).collect();
                assert_all_close(
                    &hv,
                    &expected,
                    1e-9,
                    &format!("{what} at {x:?}: _hvp against _hessian times v"),
                );
            }
        }
    }
}

/// Rows of `flat` of `m` columns each.
pub fn rows(flat: &[f64], m: usize) -> Vec<Vec<f64>> {
    flat.chunks(m).map(<[f64]>::to_vec).collect()
}

/// `flat` as an array of rows `[[f64; M]; N]`.
pub fn nested<const M: usize, const N: usize>(flat: &[f64]) -> [[f64; M]; N] {
    let mut out = [[0.0; M]; N];
    for (i, row) in out.iter_mut().enumerate() {
        row.copy_from_slice(&flat[i * M..(i + 1) * M]);
    }
    out
}

/// The row-major flattening of `rows`.
pub fn flatten<R: AsRef<[f64]>>(rows: &[R]) -> Vec<f64> {
    rows.iter()
        .flat_map(|r| r.as_ref().iter().copied())
        .collect()
}

/// The garbage that `_grad_into` buffers hold before the call.
pub const GARBAGE: f64 = 123.456;
