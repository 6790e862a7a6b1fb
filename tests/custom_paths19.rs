//! `#[custom_gradient]` functions written for `f64` whose bodies call functions by a path
//! (`shapes::square(x)`, `super::g(x)`, `crate::m::g(x)`, `self::m::g(x)`, a registered `outside::cube(x)`),
//! at `order = K`: their generic copies find each callee by its path as by a bare name. Every Hessian is
//! checked against central differences of the generated `_grad` (`Probe`) and against the formula worked
//! out by hand; first order is checked against central differences of the function too.

#![allow(clippy::type_complexity, clippy::needless_range_loop)]

mod common;

use autodiff::{custom_gradient, differentiable, gradient_of};
use common::probe::*;

const POINTS: usize = 24;

pub mod shapes {
    use autodiff::differentiable;

    #[differentiable]
    pub fn square(v: f64) -> f64 {
        v * v
    }

    #[differentiable]
    pub fn sum_of_squares(v: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..v.len() {
            s += v[i] * v[i];
        }
        s
    }

    /// A helper without derivatives whose result holds no float: called as written at every order.
    pub fn bucket(v: f64) -> usize {
        if v < 0.0 {
            0
        } else {
            1
        }
    }

    /// A helper without derivatives: fine at first order inside a custom function's body.
    pub fn halved(v: f64) -> f64 {
        0.5 * v
    }

    pub mod inner {
        use autodiff::custom_gradient;

        /// Calls its sibling's parent by `super::`: x⁴, with its true derivative 4x³.
        #[custom_gradient]
        pub fn fourth(x: f64) -> (f64, impl Fn(f64) -> f64) {
            let s = super::square(x);
            (s * s, move |dy| dy * 4.0 * s * x)
        }
    }
}

/// A plain function of another module, without derivatives of its own, whose gradient is registered below.
pub mod outside {
    pub fn cube(x: f64) -> f64 {
        x * x * x
    }
}

#[gradient_of(outside::cube)]
fn cube_vjp(x: f64, dy: f64) -> f64 {
    dy * 3.0 * x * x
}

/// Custom functions for the closures of others.
pub mod nested {
    use autodiff::custom_gradient;

    /// The identity, with the deliberately false derivative 2.
    #[custom_gradient]
    pub fn doubled_slope(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (x, move |dy| dy * 2.0)
    }
}

use nested::doubled_slope;

// ---- the custom functions ----

/// x² sin x through `shapes::square`, its closure the true derivative (2x sin x + x² cos x), by the path
/// again.
#[custom_gradient]
fn square_sine(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let s = shapes::square(x);
    (s * x.sin(), move |dy| {
        dy * (2.0 * x * x.sin() + shapes::square(x) * x.cos())
    })
}

#[differentiable(order = 2)]
fn square_sine_energy(x: f64) -> f64 {
    square_sine(x) * x
}

/// By `crate::` and `self::` paths, a slice argument, and a registered function of another module.
#[custom_gradient]
fn mixed_paths(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let v = [x, y];
    let q = crate::shapes::sum_of_squares(&v);
    let c = self::outside::cube(y);
    (q * c, move |dy| {
        (dy * 2.0 * x * c, dy * (2.0 * y * c + q * 3.0 * y * y))
    })
}

#[differentiable(order = 2)]
fn mixed_paths_energy(x: f64, y: f64) -> f64 {
    mixed_paths(x, y) + x * y
}

/// x⁴ + 2x + a step, through `shapes::inner::fourth`, a custom function called by a path whose own copy
/// calls `super::square`, and two helpers without derivatives called as written.
#[custom_gradient]
fn fourth_plus(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let f = shapes::inner::fourth(x);
    // Constant arguments: the helper as written; an index of the input: as written too.
    let k = shapes::halved(4.0);
    let b = shapes::bucket(x) as f64;
    (f + k * x + b, move |dy| dy * (4.0 * x * x * x + k))
}

#[differentiable(order = 3)]
fn fourth_plus_energy(x: f64) -> f64 {
    fourth_plus(x) * 1.5
}

/// A helper without derivatives called by a path on the input: compiles and is exact at first order (the
/// body is not differentiated there); at `order = K` it is the one error of
/// tests/ui/signature/order-custom-callee-calling-a-path-without-derivatives.rs.
#[custom_gradient]
fn halved_log(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let h = shapes::halved(x);
    (h.ln(), move |dy| dy / x)
}

#[test]
fn a_custom_copy_calls_a_differentiable_function_by_its_path() {
    // F = x³ sin x; F' = 3x² sin x + x³ cos x; F'' = 6x sin x + 6x² cos x - x³ sin x.
    Probe::new("square_sine_energy", |v| square_sine_energy(v[0]))
        .grad(|v| {
            let (f, g) = square_sine_energy_grad(v[0]);
            (f, vec![g])
        })
        .hessian(hess1(
            square_sine_energy_hessian,
            square_sine_energy_derivatives,
        ))
        .analytic(|v| {
            let x = v[0];
            vec![3.0 * x * x * x.sin() + x * x * x * x.cos()]
        })
        .run(POINTS, range(1, -3.0, 3.0));
    for x in [-2.5, -0.4, 0.3, 1.7] {
        let (_, _, h) = square_sine_energy_hessian(x);
        let want = 6.0 * x * x.sin() + 6.0 * x * x * x.cos() - x * x * x * x.sin();
        assert_near(h[0][0], want, 1e-12, 0.0, "square_sine_energy'' by hand");
    }
}

#[test]
fn crate_and_self_paths_a_slice_and_a_registered_function() {
    // F = (x² + y²) y³ + x y.
    // Fx = 2x y³ + y, Fy = 2y⁴ + 3y²(x² + y²) + x = 5y⁴ + 3x²y² + x.
    // Fxx = 2y³, Fxy = 6x y² + 1, Fyy = 20y³ + 6x²y.
    Probe::new("mixed_paths_energy", |v| mixed_paths_energy(v[0], v[1]))
        .grad(|v| {
            let (f, (a, b)) = mixed_paths_energy_grad(v[0], v[1]);
            (f, vec![a, b])
        })
        .hessian(hess2(mixed_paths_energy_hessian))
        .analytic(|v| {
            let (x, y) = (v[0], v[1]);
            vec![
                2.0 * x * y * y * y + y,
                5.0 * y.powi(4) + 3.0 * x * x * y * y + x,
            ]
        })
        .run(POINTS, range(2, -2.0, 2.0));
    for (x, y) in [(0.5, -1.25), (-1.5, 0.75), (1.1, 1.3)] {
        let (_, _, h) = mixed_paths_energy_hessian(x, y);
        let want = [
            [2.0 * y * y * y, 6.0 * x * y * y + 1.0],
            [6.0 * x * y * y + 1.0, 20.0 * y * y * y + 6.0 * x * x * y],
        ];
        for r in 0..2 {
            assert_vec_near(&h[r], &want[r], 1e-12, "mixed_paths_energy Hessian by hand");
        }
    }
}

#[test]
fn a_custom_copy_calls_a_custom_function_by_a_path_to_third_order() {
    // F = 1.5 (x⁴ + 2x + b(x)), b a step: F' = 1.5 (4x³ + 2), F'' = 18x², F''' = 36x.
    Probe::new("fourth_plus_energy", |v| fourth_plus_energy(v[0]))
        .grad(|v| {
            let (f, g) = fourth_plus_energy_grad(v[0]);
            (f, vec![g])
        })
        .hessian(hess1(
            fourth_plus_energy_hessian,
            fourth_plus_energy_derivatives,
        ))
        .analytic(|v| vec![1.5 * (4.0 * v[0].powi(3) + 2.0)])
        // Away from the step of `bucket` at 0, where central differences of the value jump.
        .run(POINTS, range(1, 0.2, 2.0));
    for x in [-1.5, -0.25, 0.75, 2.0] {
        let d = fourth_plus_energy_derivatives(x);
        let b = if x < 0.0 { 0.0 } else { 1.0 };
        let want = [
            1.5 * (x.powi(4) + 2.0 * x + b),
            1.5 * (4.0 * x * x * x + 2.0),
            18.0 * x * x,
            36.0 * x,
        ];
        assert_vec_near(&d, &want, 1e-12, "fourth_plus_energy derivatives by hand");
    }
}

#[test]
fn a_path_helper_without_derivatives_keeps_first_order() {
    for x in [0.3, 1.0, 2.5] {
        let (v, g) = halved_log_grad(x);
        assert_near(v, (0.5 * x).ln(), 1e-15, 0.0, "halved_log value");
        assert_near(g, 1.0 / x, 1e-15, 0.0, "halved_log gradient");
        let fd = fd1(&|x| halved_log(x), x, 1e-6);
        assert_near(
            g,
            fd,
            1e-7,
            0.0,
            "halved_log gradient against central differences",
        );
    }
}

/// x³/3, whose closure gives its true derivative x² as `nested::doubled_slope(x²)`, a custom function
/// called by a path inside the closure: it overrides its forward code there (API.md), as it does called by
/// its name (`cube_third_by_name`). Differentiating the closure: 2 · 2x = 4x, where the forward code would
/// give 2x; the third derivative is 4.
#[custom_gradient]
fn cube_third_by_path(x: f64) -> (f64, impl Fn(f64) -> f64) {
    (x * x * x / 3.0, move |dy| dy * nested::doubled_slope(x * x))
}

#[custom_gradient]
fn cube_third_by_name(x: f64) -> (f64, impl Fn(f64) -> f64) {
    (x * x * x / 3.0, move |dy| dy * doubled_slope(x * x))
}

#[differentiable(order = 3)]
fn through_cube_third_by_path(x: f64) -> f64 {
    cube_third_by_path(x)
}

#[differentiable(order = 3)]
fn through_cube_third_by_name(x: f64) -> f64 {
    cube_third_by_name(x)
}

#[test]
fn a_custom_function_called_by_a_path_in_a_closure_overrides_its_forward_code() {
    let mut rng = Lcg::new(seed_of("through_cube_third_by_path"));
    for _ in 0..POINTS {
        let x = rng.uniform(-2.0, 2.0);
        let want = [x * x * x / 3.0, x * x, 4.0 * x, 4.0];
        assert_near(
            through_cube_third_by_path(x),
            want[0],
            1e-15,
            0.0,
            "value by path",
        );
        assert_near(
            through_cube_third_by_name(x),
            want[0],
            1e-15,
            0.0,
            "value by name",
        );
        let by_path = through_cube_third_by_path_derivatives(x);
        assert_vec_near(&by_path, &want, 1e-13, "through_cube_third_by_path");
        let by_name = through_cube_third_by_name_derivatives(x);
        assert_vec_near(&by_name, &want, 1e-13, "through_cube_third_by_name");
        let (_, _, h) = through_cube_third_by_path_hessian(x);
        assert_near(
            h[0][0],
            4.0 * x,
            1e-13,
            0.0,
            "through_cube_third_by_path_hessian",
        );
    }
}
