//! A `#[gradient_of(f)]` registration whose gradient calls other `#[differentiable]` functions, reached by
//! `order = K` callers: the registration's generic copy (`custom.rs`, `registered_copy`) calls those
//! functions' generic copies, as a `#[custom_gradient]` function's copy does (`custom_copy.rs`). Hessians
//! checked against the analytic values and central differences of the gradients, on many inputs.

mod common;

use autodiff::{differentiable, gradient_of};
use common::{assert_all_close, assert_close, assert_jacobian, fd_jacobian, Inputs};

mod outside {
    //! Functions of another module, without derivatives of their own.

    pub fn cube(x: f64) -> f64 {
        x * x * x
    }

    pub fn softplus(x: f64) -> f64 {
        x.exp().ln_1p()
    }

    pub fn norm2(x: f64, y: f64) -> f64 {
        x * x + y * y
    }
}

use outside::{cube, norm2, softplus};

#[differentiable]
fn square(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[differentiable]
fn twice(x: f64) -> f64 {
    2.0 * x
}

/// A helper without derivatives, called on constants only: as written.
fn three() -> f64 {
    3.0
}

#[gradient_of(cube)]
fn cube_vjp(x: f64, dy: f64) -> f64 {
    dy * three() * square(x)
}

#[gradient_of(softplus)]
fn softplus_vjp(x: f64, dy: f64) -> f64 {
    dy * logistic(x)
}

#[gradient_of(norm2)]
fn norm2_vjp(x: f64, y: f64, dy: f64) -> (f64, f64) {
    (dy * twice(x), dy * twice(y))
}

#[differentiable(order = 2)]
fn through_cube(x: f64, y: f64) -> f64 {
    cube(x) * y + cube(y)
}

#[differentiable(order = 2)]
fn through_softplus(x: f64, y: f64) -> f64 {
    softplus(x * y) + x
}

#[differentiable(order = 2)]
fn through_norm2(x: f64, y: f64) -> f64 {
    norm2(x * y, x + y) * x
}

#[differentiable(order = 3)]
fn cube_of_sum(x: f64) -> f64 {
    cube(x + 1.0)
}

fn sigma(u: f64) -> f64 {
    1.0 / (1.0 + (-u).exp())
}

/// Checks `hessian` (and its value and gradient) against `value`, `gradient` and `analytic` at `(x, y)`,
/// and against central differences of `grad`.
fn check(
    name: &str,
    at: [f64; 2],
    got: (f64, (f64, f64), Vec<Vec<f64>>),
    expected: (f64, [f64; 2], [[f64; 2]; 2]),
    grad: impl Fn(f64, f64) -> (f64, f64),
) {
    let (value, (gx, gy), h) = got;
    let (v, g, analytic) = expected;
    assert_close(value, v, 1e-12, &format!("{name} value at {at:?}"));
    assert_all_close(&[gx, gy], &g, 1e-10, &format!("{name} gradient at {at:?}"));
    let analytic: Vec<Vec<f64>> = analytic.iter().map(|r| r.to_vec()).collect();
    assert_jacobian(&h, &analytic, &format!("{name} Hessian by hand at {at:?}"));
    let fd = fd_jacobian(
        |p| {
            let (gx, gy) = grad(p[0], p[1]);
            vec![gx, gy]
        },
        &at,
    );
    assert_jacobian(&h, &fd, &format!("{name} Hessian by differences at {at:?}"));
}

#[test]
fn a_registered_gradient_calling_differentiable_functions_has_second_derivatives() {
    let mut inputs = Inputs(7);
    for _ in 0..50 {
        let (x, y) = (2.0 * inputs.next(), 2.0 * inputs.next());

        // The functions themselves.
        assert_close(
            through_cube(x, y),
            x * x * x * y + y * y * y,
            1e-12,
            "through_cube",
        );
        let value = (x * y).exp().ln_1p() + x;
        assert_close(through_softplus(x, y), value, 1e-12, "through_softplus");
        let value = ((x * y).powi(2) + (x + y).powi(2)) * x;
        assert_close(through_norm2(x, y), value, 1e-12, "through_norm2");
        assert_close(cube_of_sum(x), (x + 1.0).powi(3), 1e-12, "cube_of_sum");

        // x³ y + y³
        check(
            "through_cube",
            [x, y],
            through_cube_hessian(x, y),
            (
                x * x * x * y + y * y * y,
                [3.0 * x * x * y, x * x * x + 3.0 * y * y],
                [[6.0 * x * y, 3.0 * x * x], [3.0 * x * x, 6.0 * y]],
            ),
            |x, y| through_cube_grad(x, y).1,
        );

        // softplus(x y) + x: s' = σ, s'' = σ (1 - σ)
        let (s, s2) = (sigma(x * y), sigma(x * y) * (1.0 - sigma(x * y)));
        check(
            "through_softplus",
            [x, y],
            through_softplus_hessian(x, y),
            (
                (x * y).exp().ln_1p() + x,
                [s * y + 1.0, s * x],
                [[s2 * y * y, s2 * x * y + s], [s2 * x * y + s, s2 * x * x]],
            ),
            |x, y| through_softplus_grad(x, y).1,
        );

        // ((x y)² + (x + y)²) x = x³ y² + x³ + 2 x² y + x y²
        check(
            "through_norm2",
            [x, y],
            through_norm2_hessian(x, y),
            (
                ((x * y).powi(2) + (x + y).powi(2)) * x,
                [
                    3.0 * x * x * y * y + 3.0 * x * x + 4.0 * x * y + y * y,
                    2.0 * x * x * x * y + 2.0 * x * x + 2.0 * x * y,
                ],
                [
                    [
                        6.0 * x * y * y + 6.0 * x + 4.0 * y,
                        6.0 * x * x * y + 4.0 * x + 2.0 * y,
                    ],
                    [
                        6.0 * x * x * y + 4.0 * x + 2.0 * y,
                        2.0 * x * x * x + 2.0 * x,
                    ],
                ],
            ),
            |x, y| through_norm2_grad(x, y).1,
        );

        // (x + 1)³ to the third derivative.
        let u = x + 1.0;
        let d = cube_of_sum_derivatives(x);
        assert_all_close(
            &d,
            &[u * u * u, 3.0 * u * u, 6.0 * u, 6.0],
            1e-10,
            &format!("cube_of_sum_derivatives at {x}"),
        );
    }
}
