//! Generic `T: Float` functions, run with `f32`, `f64` and `autodiff::Dual<f64>`.
//!
//! With `T = Dual<f64>`, seeding input `j` as `Dual::new(x_j, 1.0)` makes `f_grad` compute, in the `eps`
//! of each gradient component, column `j` of the Hessian (forward over reverse); `f_jvp` on duals gives
//! `vᵀ H v` (forward over forward). Both are checked against second derivatives written by hand and
//! against central differences of the gradient. `Dual<Dual<f64>>` gives third derivatives.

mod common;

use autodiff::{differentiable, Dual, Float};
use common::*;
use proptest::prelude::*;

/// Rosenbrock's function: `(1 - x)² + 100 (y - x²)²`, with constants through `T::one()` and `T::from`.
#[differentiable]
fn rosenbrock<T: Float>(x: T, y: T) -> T {
    let one = T::one();
    let hundred = T::from(100.0).unwrap();
    let a = one - x;
    let b = y - x * x;
    a * a + hundred * b * b
}

fn rosenbrock_gradient(x: f64, y: f64) -> [f64; 2] {
    [
        -2.0 * (1.0 - x) - 400.0 * x * (y - x * x),
        200.0 * (y - x * x),
    ]
}

fn rosenbrock_hessian(x: f64, y: f64) -> [[f64; 2]; 2] {
    [
        [2.0 - 400.0 * y + 1200.0 * x * x, -400.0 * x],
        [-400.0 * x, 200.0],
    ]
}

/// Transcendental functions, a quotient and a power: `sin(xy) + eˣ ln y + x³ / y`.
#[differentiable]
fn mix<T: Float>(x: T, y: T) -> T {
    (x * y).sin() + x.exp() * y.ln() + x.powi(3) / y
}

fn mix_gradient(x: f64, y: f64) -> [f64; 2] {
    let c = (x * y).cos();
    [
        y * c + x.exp() * y.ln() + 3.0 * x * x / y,
        x * c + x.exp() / y - x.powi(3) / (y * y),
    ]
}

fn mix_hessian(x: f64, y: f64) -> [[f64; 2]; 2] {
    let (s, c, e) = ((x * y).sin(), (x * y).cos(), x.exp());
    let xy = -y * y * s + e * y.ln() + 6.0 * x / y;
    let cross = c - x * y * s + e / y - 3.0 * x * x / (y * y);
    let yy = -x * x * s - e / (y * y) + 2.0 * x.powi(3) / y.powi(3);
    [[xy, cross], [cross, yy]]
}

/// Control flow, an integer parameter, a `where` clause with a second bound, the `<T as Float>::` path
/// form and a constant of `std::f64::consts` converted with `T::from`.
#[differentiable]
fn shaped<T>(x: T, k: i32) -> T
where
    T: Float + core::fmt::Debug,
{
    let half = T::from(0.5).unwrap();
    if x < T::zero() {
        return <T as Float>::exp(x) * half;
    }
    match k {
        0 => x * x * half,
        _ => x.sin() + T::from(std::f64::consts::PI).unwrap() * x,
    }
}

fn shaped_derivatives(x: f64, k: i32) -> [f64; 3] {
    // f, f', f''
    if x < 0.0 {
        let e = 0.5 * x.exp();
        [e, e, e]
    } else if k == 0 {
        [0.5 * x * x, x, 1.0]
    } else {
        let pi = std::f64::consts::PI;
        [x.sin() + pi * x, x.cos() + pi, -x.sin()]
    }
}

/// `wrt(x)` in generic code, with the bound written as a path.
#[differentiable(wrt(x))]
fn scaled<T: autodiff::Float>(x: T, s: T) -> T {
    x.tanh() * s
}

/// A tuple return: rotation of `(x, y)` by `angle`.
#[differentiable]
fn rotate<T: Float>(x: T, y: T, angle: T) -> (T, T) {
    let (c, s) = (angle.cos(), angle.sin());
    (c * x - s * y, s * x + c * y)
}

fn rotate_jacobian(x: f64, y: f64, angle: f64) -> Vec<Vec<f64>> {
    let (c, s) = (angle.cos(), angle.sin());
    vec![vec![c, -s, -s * x - c * y], vec![s, c, c * x - s * y]]
}

/// One input, for third derivatives: `sin(x) eˣ + x⁴`.
#[differentiable]
fn wave<T: Float>(x: T) -> T {
    x.sin() * x.exp() + x.powi(4)
}

fn wave_derivatives(x: f64) -> [f64; 4] {
    let (s, c, e) = (x.sin(), x.cos(), x.exp());
    [
        s * e + x.powi(4),
        e * (s + c) + 4.0 * x.powi(3),
        2.0 * e * c + 12.0 * x * x,
        2.0 * e * (c - s) + 24.0 * x,
    ]
}

/// Dual numbers over `f64`.
type D = Dual<f64>;

/// A two-input generic function and its generated items, instantiated at `f64` and at `Dual<f64>`, with
/// its gradient and Hessian written by hand.
struct SecondOrder {
    name: &'static str,
    primal: fn(f64, f64) -> f64,
    grad: fn(f64, f64) -> (f64, (f64, f64)),
    dual_primal: fn(D, D) -> D,
    dual_grad: fn(D, D) -> (D, (D, D)),
    dual_jvp: fn(D, D, (D, D)) -> (D, D),
    gradient: fn(f64, f64) -> [f64; 2],
    hessian: fn(f64, f64) -> [[f64; 2]; 2],
}

impl SecondOrder {
    /// Checks the first order at `f64` and through the primal on duals (along `v`), the Hessian by
    /// forward over reverse, and `vᵀ H v` by forward over forward, against the hand-written derivatives
    /// and central differences of the gradient.
    fn check(&self, x: f64, y: f64, v: [f64; 2]) {
        let what = format!("{} at ({x}, {y})", self.name);
        let expected_gradient = (self.gradient)(x, y);
        let expected_hessian = (self.hessian)(x, y);

        // First order at f64, and forward mode through the primal on duals.
        let (value, (dx, dy)) = (self.grad)(x, y);
        assert_eq!(value, (self.primal)(x, y), "{what}: value");
        assert_all_close(&[dx, dy], &expected_gradient, ANALYTIC_TOL, &what);
        assert_fd_gradient(|p| (self.primal)(p[0], p[1]), &[x, y], &[dx, dy], &what);
        let forward = (self.dual_primal)(Dual::new(x, v[0]), Dual::new(y, v[1]));
        assert_eq!(forward.re, value, "{what}: value on duals");
        let along_v = dot(&expected_gradient, &v);
        assert_close(forward.eps, along_v, ANALYTIC_TOL, &what);

        // Second order: forward over reverse, against the formula and differences of the gradient.
        let by_duals = self.hessian_by_duals(x, y, expected_gradient);
        assert_hessian(
            by_duals,
            expected_hessian,
            ANALYTIC_TOL,
            &format!("{what}: Hessian"),
        );
        let by_differences = hessian_by_differences(self.gradient, x, y);
        assert_hessian(
            by_differences,
            expected_hessian,
            FD_TOL,
            &format!("{what}: formula"),
        );
        let generated = |a, b| {
            let (_, (dx, dy)) = (self.grad)(a, b);
            [dx, dy]
        };
        let by_differences = hessian_by_differences(generated, x, y);
        assert_hessian(
            by_duals,
            by_differences,
            FD_TOL,
            &format!("{what}: vs differences"),
        );

        // Forward over forward: the tangent of the jvp along v, itself seeded along v, is vᵀ H v.
        let (_, directional) = (self.dual_jvp)(
            Dual::new(x, v[0]),
            Dual::new(y, v[1]),
            (Dual::new(v[0], 0.0), Dual::new(v[1], 0.0)),
        );
        assert_close(directional.re, along_v, ANALYTIC_TOL, &what);
        let h_v = [dot(&expected_hessian[0], &v), dot(&expected_hessian[1], &v)];
        assert_close(
            directional.eps,
            dot(&v, &h_v),
            ANALYTIC_TOL,
            &format!("{what}: vᵀ H v"),
        );
    }

    /// The Hessian by forward over reverse: seeding input `j` gives column `j` in the gradient's `eps`.
    /// Also checks that the `re` parts are the plain gradient.
    fn hessian_by_duals(&self, x: f64, y: f64, gradient: [f64; 2]) -> [[f64; 2]; 2] {
        let column = |seed: [f64; 2]| {
            let (_, (gx, gy)) = (self.dual_grad)(Dual::new(x, seed[0]), Dual::new(y, seed[1]));
            assert_all_close(
                &[gx.re, gy.re],
                &gradient,
                ANALYTIC_TOL,
                "re of the dual gradient",
            );
            [gx.eps, gy.eps]
        };
        let (first, second) = (column([1.0, 0.0]), column([0.0, 1.0]));
        [[first[0], second[0]], [first[1], second[1]]]
    }
}

/// The Hessian by central differences of a gradient.
fn hessian_by_differences(
    gradient: impl Fn(f64, f64) -> [f64; 2],
    x: f64,
    y: f64,
) -> [[f64; 2]; 2] {
    let mut hessian = [[0.0; 2]; 2];
    for (i, row) in hessian.iter_mut().enumerate() {
        row[0] = central_difference(|t| gradient(t, y)[i], x);
        row[1] = central_difference(|t| gradient(x, t)[i], y);
    }
    hessian
}

#[track_caller]
fn assert_hessian(actual: [[f64; 2]; 2], expected: [[f64; 2]; 2], tol: f64, what: &str) {
    for (i, (actual, expected)) in actual.iter().zip(&expected).enumerate() {
        assert_all_close(actual, expected, tol, &format!("{what}, row {i}"));
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn rosenbrock_to_second_order(
        x in -2.0..2.0_f64,
        y in -1.0..3.0_f64,
        v in prop::array::uniform2(tangent()),
    ) {
        SecondOrder {
            name: "rosenbrock",
            primal: rosenbrock,
            grad: rosenbrock_grad,
            dual_primal: rosenbrock,
            dual_grad: rosenbrock_grad,
            dual_jvp: rosenbrock_jvp,
            gradient: rosenbrock_gradient,
            hessian: rosenbrock_hessian,
        }
        .check(x, y, v);
    }

    #[test]
    fn mix_to_second_order(
        x in -1.5..1.5_f64,
        y in 0.5..3.0_f64,
        v in prop::array::uniform2(tangent()),
    ) {
        SecondOrder {
            name: "mix",
            primal: mix,
            grad: mix_grad,
            dual_primal: mix,
            dual_grad: mix_grad,
            dual_jvp: mix_jvp,
            gradient: mix_gradient,
            hessian: mix_hessian,
        }
        .check(x, y, v);
    }

    #[test]
    fn mix_at_f32(x in -1.5..1.5_f64, y in 0.5..3.0_f64, t in tangents()) {
        let (xf, yf) = (x as f32, y as f32);
        check_scalar_f32(
            mix(xf, yf),
            (
                mix_grad(xf, yf),
                |cot| mix_vjp(xf, yf, cot),
                |t| mix_jvp(xf, yf, t),
            ),
            &mix_gradient(xf.into(), yf.into()),
            &t,
        );
    }

    #[test]
    fn shaped_at_every_type(x in moderate(), k in 0..3_i32, t in tangent()) {
        prop_assume!(x.abs() > 1e-3);
        let [value, first, second] = shaped_derivatives(x, k);
        check_scalar(
            "shaped",
            |v| shaped(v[0], k),
            &[x],
            (
                shaped_grad(x, k),
                |cot| shaped_vjp(x, k, cot),
                |t| shaped_jvp(x, k, t),
            ),
            &[first],
            &[t],
        );
        assert_close(shaped(x, k), value, ANALYTIC_TOL, "shaped value");

        let xf = x as f32;
        let [_, first_f32, _] = shaped_derivatives(xf.into(), k);
        check_scalar_f32(
            shaped(xf, k),
            (
                shaped_grad(xf, k),
                |cot| shaped_vjp(xf, k, cot),
                |t| shaped_jvp(xf, k, t),
            ),
            &[first_f32],
            &[t],
        );

        let (_, d) = shaped_grad(Dual::new(x, 1.0), k);
        assert_close(
            d.re,
            first,
            ANALYTIC_TOL,
            "shaped: first derivative on duals",
        );
        assert_close(
            d.eps,
            second,
            ANALYTIC_TOL,
            "shaped: second derivative on duals",
        );
        let by_differences = central_difference(|a| shaped_grad(a, k).1, x);
        assert_close(
            d.eps,
            by_differences,
            FD_TOL,
            "shaped: second derivative vs differences",
        );
    }

    #[test]
    fn wrt_in_generic_code(x in moderate(), s in moderate(), t in tangent()) {
        let partial = s / (x.cosh() * x.cosh());
        let grad: (f64, f64) = scaled_grad(x, s);
        check_scalar(
            "scaled",
            |v| scaled(v[0], s),
            &[x],
            (grad, |cot| scaled_vjp(x, s, cot), |t| scaled_jvp(x, s, t)),
            &[partial],
            &[t],
        );
        let (_, d) = scaled_grad(Dual::new(x, 1.0), Dual::new(s, 0.0));
        let second = -2.0 * s * x.tanh() / (x.cosh() * x.cosh());
        assert_close(
            d.eps,
            second,
            ANALYTIC_TOL,
            "scaled: second derivative on duals",
        );
        let (xf, sf) = (x as f32, s as f32);
        let partial_f32 = f64::from(sf) / f64::from(xf).cosh().powi(2);
        check_scalar_f32(
            scaled(xf, sf),
            (
                scaled_grad(xf, sf),
                |cot| scaled_vjp(xf, sf, cot),
                |t| scaled_jvp(xf, sf, t),
            ),
            &[partial_f32],
            &[t],
        );
    }

    #[test]
    fn tuple_return_in_generic_code(
        x in moderate(), y in moderate(), angle in moderate(), ct in tangents(), t in tangents(),
    ) {
        check_tuple(
            "rotate",
            |v| rotate(v[0], v[1], v[2]),
            &[x, y, angle],
            &rotate_jacobian(x, y, angle),
            |d| rotate_vjp(x, y, angle, d),
            |t| rotate_jvp(x, y, angle, t),
            (&ct, &t),
        );
        // At f32, the vjp of the first output is the first row of the Jacobian.
        let (xf, yf, af) = (x as f32, y as f32, angle as f32);
        let (value, grad) = rotate_vjp(xf, yf, af, (1.0, 0.0));
        assert_eq!(value, rotate(xf, yf, af));
        let row = &rotate_jacobian(xf.into(), yf.into(), af.into())[0];
        assert_all_close(&grad.to_vec(), row, ANALYTIC_TOL_F32, "rotate at f32");
    }

    #[test]
    fn third_derivatives_through_nested_duals(x in moderate()) {
        let [value, first, second, third] = wave_derivatives(x);
        let (v, d) = wave_grad(x);
        assert_eq!(v, wave(x));
        assert_close(v, value, ANALYTIC_TOL, "wave value");
        assert_fd_gradient(|p| wave(p[0]), &[x], &[d], "wave");
        assert_close(d, first, ANALYTIC_TOL, "wave'");

        // x + a + b with a the inner and b the outer infinitesimal: f'(x + a + b) holds f'' in the
        // coefficients of a and of b, and f''' in that of ab.
        let seeded = Dual::new(Dual::new(x, 1.0), Dual::new(1.0, 0.0));
        let (_, d) = wave_grad(seeded);
        assert_close(d.re.re, first, ANALYTIC_TOL, "wave' on nested duals");
        assert_close(d.re.eps, second, ANALYTIC_TOL, "wave'' (inner)");
        assert_close(d.eps.re, second, ANALYTIC_TOL, "wave'' (outer)");
        assert_close(d.eps.eps, third, ANALYTIC_TOL, "wave'''");
        let by_differences = central_difference(|a| wave_grad(Dual::new(a, 1.0)).1.eps, x);
        assert_close(d.eps.eps, by_differences, FD_TOL, "wave''' vs differences");
    }
}

/// `_vjp` on duals with a constant cotangent is `_grad` on duals, and a dual cotangent scales the
/// gradient's tangent too.
#[test]
fn vjp_on_duals() {
    let (x, y) = (0.3, 1.7);
    let seeded = (Dual::new(x, 1.0), Dual::new(y, 0.0));
    let by_grad = mix_grad(seeded.0, seeded.1);
    let by_vjp = mix_vjp(seeded.0, seeded.1, Dual::new(1.0, 0.0));
    assert_eq!(by_grad, by_vjp);
    let [gx, gy] = mix_gradient(x, y);
    let (_, (dx, dy)) = mix_vjp(seeded.0, seeded.1, Dual::new(2.0, 1.0));
    let h = mix_hessian(x, y);
    // d/dε of (2 + ε) ∇f(x + ε e₀) = ∇f + 2 H e₀.
    assert_close(
        dx.eps,
        gx + 2.0 * h[0][0],
        ANALYTIC_TOL,
        "vjp with a dual cotangent, x",
    );
    assert_close(
        dy.eps,
        gy + 2.0 * h[1][0],
        ANALYTIC_TOL,
        "vjp with a dual cotangent, y",
    );
}
