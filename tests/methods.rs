//! `#[differentiable]` on methods and associated functions: generated items of the same `impl`, `self`
//! constant unless `wrt(self)`, calls between differentiable methods. Checked against gradients written
//! by hand and central finite differences.

mod common;

use autodiff::{check_gradient_of, differentiable, Differentiable, Float};
use common::*;
use proptest::prelude::*;

/// Data a method reads as constants: it does not derive `Differentiable`.
struct Dataset {
    xs: Vec<f64>,
    ys: Vec<f64>,
}

impl Dataset {
    /// `self` is constant: the gradient is over `w` and `b`; with `order = 2`.
    #[differentiable(order = 2)]
    fn loss(&self, w: f64, b: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..self.xs.len() {
            let e = w * self.xs[i] + b - self.ys[i];
            s += e * e;
        }
        s / self.xs.len() as f64
    }

    /// Calls another differentiable method and an associated function.
    #[differentiable]
    fn penalised(&self, w: f64, b: f64) -> f64 {
        self.loss(w, b) + Self::ridge(w, Self::LAMBDA)
    }

    const LAMBDA: f64 = 0.1;

    /// An associated function: it names `Self` (one that does not is found from the source: tests/associated.rs).
    #[differentiable(wrt(w))]
    fn ridge(w: f64, lambda: f64) -> f64 {
        lambda * w * w * Self::UNIT
    }

    const UNIT: f64 = 1.0;

    /// `penalised` at `order = 2`, and a first-order method beside: a constant `self` passed on to methods
    /// (`self.loss(..)`, `self.wobble(..)`) and an associated function (`Self::ridge`), each reached
    /// through its generic copy (`Self::__loss_generic`), which reads `self`'s fields in its float type.
    #[differentiable(order = 2)]
    fn penalised_twice(&self, w: f64, b: f64) -> f64 {
        self.loss(w, b) + Self::ridge(w, Self::LAMBDA) + self.wobble(w * b)
    }

    /// `ys[1] sin(xs[0] u)`, at first order only.
    #[differentiable]
    fn wobble(&self, u: f64) -> f64 {
        self.ys[1] * (self.xs[0] * u).sin()
    }
}

/// First-order methods whose generic copy, made without being asked, could not compile, so they get none:
/// one calling another method by `Self::`, one passing `self` on whole to a free function (whose copy may
/// not exist: a function of a parameter struct with `order = K` has none). A method iterating a field by value (`self.ws.iter().map(|w| w * x)`, `for &w in
/// self.ws.iter()`) has one, which `order = 2` methods calling it reach.
struct Weights {
    ws: Vec<f64>,
}

impl Weights {
    #[differentiable]
    fn total(&self, x: f64) -> f64 {
        self.ws.iter().map(|w| w * x).sum()
    }

    #[differentiable]
    fn twice(&self, x: f64) -> f64 {
        Self::total(self, x) * 2.0
    }

    /// Passes `self` on whole to a free function.
    #[differentiable]
    fn through_free_function(&self, x: f64) -> f64 {
        first_weight(self, x) * 2.0
    }

    /// `x (sin(w0 x) + w1 x²)` at `order = 2`: a constant `self` passed on whole to a free function of the
    /// struct that keeps it constant, reached through that function's copy with the struct constant (its
    /// fields read in the copy's float type).
    #[differentiable(order = 2)]
    fn curved_through_free_function(&self, x: f64) -> f64 {
        weighted_sine(self, x) * x
    }

    /// `Σ sin(w x)`, iterating the field by value.
    #[differentiable]
    fn sines(&self, x: f64) -> f64 {
        let mut s = 0.0;
        for &w in self.ws.iter() {
            s += (w * x).sin();
        }
        s
    }

    /// `total(x)² + sines(x²)`: second order through both (was an error at each call: no generic copy).
    #[differentiable(order = 2)]
    fn total_and_sines(&self, x: f64) -> f64 {
        Self::total(self, x) * self.total(x) + self.sines(x * x)
    }
}

#[differentiable(wrt(x))]
fn first_weight(w: &Weights, x: f64) -> f64 {
    w.ws[0] * x
}

/// `sin(w0 x) + w1 x²`, at first order.
#[differentiable(wrt(x))]
fn weighted_sine(w: &Weights, x: f64) -> f64 {
    (w.ws[0] * x).sin() + w.ws[1] * x * x
}

/// A constant `self` with a field that holds no float (a `String`), read by a method that an `order = 2`
/// method calls: the callee's copy reads it as it is.
struct Named {
    name: String,
    k: f64,
}

impl Named {
    /// `k x len(name) + 1`.
    #[differentiable]
    fn by_name_length(&self, x: f64) -> f64 {
        self.k * x * self.name.len() as f64 + 1.0
    }

    /// `by_name_length(x) · x`.
    #[differentiable(order = 2)]
    fn squared(&self, x: f64) -> f64 {
        self.by_name_length(x) * x
    }

    /// `k x² len(name) + sin x`, asking the `String` its length itself at `order = 2` (was a type error in
    /// generated code: the field was taken as `&[f64]`).
    #[differentiable(order = 2)]
    fn measured(&self, x: f64) -> f64 {
        self.k * x * x * self.name.len() as f64 + x.sin()
    }
}

/// A parameter struct with methods differentiated in `self`.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Line {
    slope: f64,
    offsets: Vec<f64>,
}

impl Line {
    #[differentiable(wrt(self), order = 2)]
    fn fit(&self, xs: &[f64], ys: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..xs.len() {
            let e = self.slope * xs[i] + self.offsets[i % 2] - ys[i];
            s += e * e;
        }
        s
    }

    /// `self` differentiated through a call of another method that names `wrt(self)`.
    #[differentiable(wrt(self))]
    fn fit_scaled(&self, xs: &[f64], ys: &[f64]) -> f64 {
        self.fit(xs, ys) * 0.5 + self.slope.powi(2)
    }
}

impl Line {
    /// `self` constant, calling a method that names `wrt(self)`: the callee's `self` gets a zero tangent
    /// (rustc's unsatisfied `InactiveTangent<&Line>` in generated code before: `&self` is a `&&Line`). At
    /// `order = 2` it calls the copy of `fit` with a constant `self` (`Bond::energy_in_data` checks that).
    #[differentiable]
    fn fit_in_data(&self, xs: &[f64], ys: &[f64]) -> f64 {
        self.fit(xs, ys) * 2.0
    }
}

/// `self` taken by value: differentiated (`wrt(self)`, the gradient a `Line`) or constant, at `order = 2`,
/// calling a method that takes `&self`, an associated function, and a free function of the struct.
impl Line {
    /// `slope x + offsets[0]`, differentiated in `self`.
    #[differentiable(wrt(self), order = 2)]
    fn at(&self, x: f64) -> f64 {
        self.slope * x + self.offsets[0]
    }

    /// `(at(x) - y)² + shrink(offsets[1]) + at(x) sin slope`.
    #[differentiable(wrt(self), order = 2)]
    fn squared_error(self, x: f64, y: f64) -> f64 {
        let e = self.at(x) - y;
        e * e + Self::shrink(self.offsets[1]) + slope_sine(&self, x)
    }

    /// `squared_error` differentiated in `self` and `x`, at first order.
    #[differentiable(wrt(self, x))]
    fn squared_error_in_x(self, x: f64, y: f64) -> f64 {
        let e = self.slope * x + self.offsets[0] - y;
        e * e + Self::shrink(self.offsets[1]) + slope_sine(&self, x)
    }

    /// `self` constant: the derivatives are in `x`.
    #[differentiable(order = 2)]
    fn constant_in_self(self, x: f64) -> f64 {
        (self.slope * x).sin() * self.offsets[1] + x * x * self.offsets[0]
    }

    /// `SHRINK a²`.
    #[differentiable(order = 2)]
    fn shrink(a: f64) -> f64 {
        Self::SHRINK * a * a
    }

    const SHRINK: f64 = 0.25;
}

/// `(slope x + offsets[0]) sin slope`: a free function the by-value methods pass `&self` to.
#[differentiable(order = 2)]
fn slope_sine(line: &Line, x: f64) -> f64 {
    (line.slope * x + line.offsets[0]) * line.slope.sin()
}

/// A constant `self` at `order = 2` whose body reads an integer field (a loop bound) and names `Self`.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Wave {
    amplitudes: Vec<f64>,
    phase: f64,
    #[no_grad]
    harmonics: usize,
}

impl Wave {
    /// `Σ_{k<harmonics} amplitudes[k] sin((k + 1) x + phase) · GAIN`, in `x`.
    #[differentiable(order = 2)]
    fn at(&self, x: f64) -> f64 {
        let mut s = 0.0;
        for k in 0..self.harmonics {
            s += self.amplitudes[k] * ((k + 1) as f64 * x + self.phase).sin();
        }
        s * Self::GAIN
    }

    /// `at(x) · y²`, `self` taken by value, in `x` and `y`.
    #[differentiable(order = 2)]
    fn scaled(self, x: f64, y: f64) -> f64 {
        let mut s = 0.0;
        for k in 0..self.harmonics {
            s += self.amplitudes[k] * ((k + 1) as f64 * x + self.phase).sin();
        }
        s * Self::GAIN * y * y
    }

    const GAIN: f64 = 1.5;
}

/// A generic `impl`.
struct Scaled<T> {
    factor: T,
}

impl<T: Float> Scaled<T> {
    #[differentiable(order = 2)]
    fn energy(&self, x: T, y: T) -> T {
        self.factor * (x * x + x * y).sin()
    }
}

/// A generic `impl` whose method at `order = 2` calls an associated function (`Self::helper(..)`, reached
/// through its generic copy over a float type of its own).
struct Spring<T> {
    k: T,
    rest: T,
}

impl<T: Float> Spring<T> {
    /// `k · helper(x - rest)`.
    #[differentiable(order = 2)]
    fn energy(&self, x: T) -> T {
        Self::helper(x - self.rest) * self.k
    }

    /// `u²/2 + sin u`.
    #[differentiable]
    fn helper(u: T) -> T {
        u * u * T::from(Self::HALF).unwrap() + u.sin()
    }

    const HALF: f64 = 0.5;
}

/// The same with an integer field read (a loop bound), which takes the derive (its type is
/// `<Self as FieldType<KEY>>::Type`).
#[derive(Clone, Debug, Differentiable)]
struct Coil<T: Float> {
    k: T,
    rest: T,
    #[no_grad]
    turns: usize,
}

impl<T: Float> Coil<T> {
    /// `k · turns · helper(x - rest)`.
    #[differentiable(order = 2)]
    fn energy(&self, x: T) -> T {
        let mut e = T::zero();
        for _ in 0..self.turns {
            e = e + Self::helper(x - self.rest) * self.k;
        }
        e
    }

    /// `u²/2 + sin u`.
    #[differentiable]
    fn helper(u: T) -> T {
        u * u * T::from(Self::HALF).unwrap() + u.sin()
    }

    const HALF: f64 = 0.5;
}

const XS: [f64; 4] = [0.5, -1.0, 1.5, 2.0];
const YS: [f64; 4] = [1.0, -0.5, 2.0, 2.5];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn methods_with_a_constant_self(w in -2.0..2.0f64, b in -2.0..2.0f64) {
        let data = Dataset { xs: XS.to_vec(), ys: YS.to_vec() };
        let (value, (dw, db)) = data.loss_grad(w, b);
        assert_close(value, data.loss(w, b), ANALYTIC_TOL, "value");
        let m = XS.len() as f64;
        let errors: Vec<f64> = XS.iter().zip(&YS).map(|(x, y)| w * x + b - y).collect();
        let dw_hand: f64 = errors.iter().zip(&XS).map(|(e, x)| 2.0 * e * x / m).sum();
        let db_hand: f64 = errors.iter().map(|e| 2.0 * e / m).sum();
        assert_close(dw, dw_hand, ANALYTIC_TOL, "d w");
        assert_close(db, db_hand, ANALYTIC_TOL, "d b");
        let (_, tangent) = data.loss_jvp(w, b, (0.3, -0.7));
        assert_close(tangent, 0.3 * dw - 0.7 * db, ANALYTIC_TOL, "tangent");
        let (_, (pw, pb)) = data.penalised_grad(w, b);
        assert_close(pw, dw_hand + 0.2 * w, ANALYTIC_TOL, "penalised d w");
        assert_close(pb, db_hand, ANALYTIC_TOL, "penalised d b");
        assert_fd_gradient(|v| data.penalised(v[0], v[1]), &[w, b], &[pw, pb], "penalised");
        let (_, tangent) = data.penalised_jvp(w, b, (1.0, 0.0));
        assert_close(tangent, pw, ANALYTIC_TOL, "penalised tangent");
        let (r, dr) = Dataset::ridge_grad(w, 0.5);
        assert_close(r, 0.5 * w * w, ANALYTIC_TOL, "ridge");
        assert_close(dr, w, ANALYTIC_TOL, "ridge d w");
    }

    #[test]
    fn methods_differentiated_in_self(slope in -2.0..2.0f64, o0 in -1.0..1.0f64, o1 in -1.0..1.0f64) {
        let line = Line { slope, offsets: vec![o0, o1] };
        let (value, grad) = line.fit_grad(&XS, &YS);
        assert_close(value, line.fit(&XS, &YS), ANALYTIC_TOL, "value");
        let mut hand = line.zero_like();
        for i in 0..XS.len() {
            let e = slope * XS[i] + line.offsets[i % 2] - YS[i];
            hand.slope += 2.0 * e * XS[i];
            hand.offsets[i % 2] += 2.0 * e;
        }
        assert_all_close(&grad.to_flat(), &hand.to_flat(), ANALYTIC_TOL, "fit gradient");
        let (_, scaled) = line.fit_scaled_grad(&XS, &YS);
        hand.scale(0.5);
        hand.slope += 2.0 * slope;
        assert_all_close(&scaled.to_flat(), &hand.to_flat(), ANALYTIC_TOL, "fit_scaled gradient");
        let check = check_gradient_of(|l: &Line| l.fit_scaled(&XS, &YS), &line, &scaled);
        prop_assert!(check.is_ok(FD_TOL), "{}", check);
        let t = Line { slope: 0.4, offsets: vec![-0.3, 0.9] };
        let (_, tangent) = line.fit_scaled_jvp(&XS, &YS, t.clone());
        assert_close(tangent, dot(&scaled.to_flat(), &t.to_flat()), ANALYTIC_TOL, "fit_scaled tangent");
    }

    #[test]
    fn methods_of_a_generic_impl(factor in -2.0..2.0f64, x in -1.0..1.0f64, y in -1.0..1.0f64) {
        let s = Scaled { factor };
        let (value, (dx, dy)) = s.energy_grad(x, y);
        assert_close(value, s.energy(x, y), ANALYTIC_TOL, "value");
        let c = (x * x + x * y).cos();
        assert_close(dx, factor * c * (2.0 * x + y), ANALYTIC_TOL, "d x");
        assert_close(dy, factor * c * x, ANALYTIC_TOL, "d y");
        let s32 = Scaled { factor: factor as f32 };
        let (_, (dx32, _)) = s32.energy_grad(x as f32, y as f32);
        assert_close(dx32 as f64, dx, ANALYTIC_TOL_F32, "f32 d x");
    }
}

// `order = 2` on methods: `self` constant, `self` differentiated (`wrt(self)`, the Hessian over its flat
// view), and a method of a generic `impl`.
proptest! {
    #![proptest_config(config())]

    #[test]
    fn second_derivatives_of_methods(w in -2.0..2.0f64, b in -2.0..2.0f64, slope in -2.0..2.0f64, o0 in -1.0..1.0f64, o1 in -1.0..1.0f64) {
        // `loss` is quadratic in (w, b): H = 2/m [[Σx², Σx], [Σx, m]].
        let data = Dataset { xs: XS.to_vec(), ys: YS.to_vec() };
        let (value, _, h) = data.loss_hessian(w, b);
        assert_close(value, data.loss(w, b), ANALYTIC_TOL, "loss value");
        let m = XS.len() as f64;
        let (sx, sxx) = (XS.iter().sum::<f64>(), XS.iter().map(|x| x * x).sum::<f64>());
        let hand = [[2.0 * sxx / m, 2.0 * sx / m], [2.0 * sx / m, 2.0]];
        for (row, expected) in h.iter().zip(&hand) {
            assert_all_close(row, expected, ANALYTIC_TOL, "loss Hessian");
        }
        // `fit` over (slope, offsets[0], offsets[1]): H = 2 Σ_i g_i g_iᵀ with g_i = (x_i, [i even], [i odd]).
        let line = Line { slope, offsets: vec![o0, o1] };
        let (_, _, h) = line.fit_hessian(&XS, &YS);
        let mut hand = [[0.0; 3]; 3];
        for (i, x) in XS.iter().enumerate() {
            let g = [*x, f64::from(u8::from(i % 2 == 0)), f64::from(u8::from(i % 2 == 1))];
            for r in 0..3 {
                for c in 0..3 {
                    hand[r][c] += 2.0 * g[r] * g[c];
                }
            }
        }
        for (row, expected) in h.iter().zip(&hand) {
            assert_all_close(row, expected, ANALYTIC_TOL, "fit Hessian");
        }
        let t = Line { slope: 0.4, offsets: vec![-0.3, 0.9] };
        let (_, _, product) = line.fit_hvp(&XS, &YS, t.clone());
        let expected: Vec<f64> = h.iter().map(|row| dot(row, &t.to_flat())).collect();
        assert_all_close(&product.to_flat(), &expected, ANALYTIC_TOL, "fit H v");
    }

    #[test]
    fn second_derivatives_of_a_generic_method(factor in -2.0..2.0f64, x in -1.0..1.0f64, y in -1.0..1.0f64) {
        let s = Scaled { factor };
        let (_, _, h) = s.energy_hessian(x, y);
        let grad = |p: &[f64]| { let (_, (a, b)) = s.energy_grad(p[0], p[1]); vec![a, b] };
        // f = factor sin(u), u = x² + x y.
        let (u, ux, uy) = (x * x + x * y, 2.0 * x + y, x);
        let (sn, c) = (u.sin(), u.cos());
        let hand = [
            [factor * (-sn * ux * ux + c * 2.0), factor * (-sn * ux * uy + c)],
            [factor * (-sn * uy * ux + c), factor * (-sn * uy * uy)],
        ];
        for (i, (row, expected)) in h.iter().zip(&hand).enumerate() {
            assert_all_close(row, expected, ANALYTIC_TOL, "energy Hessian");
            let column: Vec<f64> = h.iter().map(|r| r[i]).collect();
            assert_all_close(&column, &hessian_column(grad, &[x, y], i), 1e-6, "energy column");
        }
    }
}

/// `squared_error` and its gradient over `(slope, offsets[0], offsets[1])`, by hand.
fn squared_error_by_hand(line: &Line, x: f64, y: f64) -> (f64, [f64; 3]) {
    let (s, o0, o1) = (line.slope, line.offsets[0], line.offsets[1]);
    let at = s * x + o0;
    let e = at - y;
    let value = e * e + 0.25 * o1 * o1 + at * s.sin();
    let gradient = [
        2.0 * e * x + x * s.sin() + at * s.cos(),
        2.0 * e + s.sin(),
        0.5 * o1,
    ];
    (value, gradient)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn methods_taking_self_by_value(slope in -2.0..2.0f64, o0 in -1.0..1.0f64, o1 in -1.0..1.0f64, x in -2.0..2.0f64, y in -1.0..1.0f64) {
        let line = Line { slope, offsets: vec![o0, o1] };
        let (value, grad) = line.clone().squared_error_grad(x, y);
        let (hand_value, hand) = squared_error_by_hand(&line, x, y);
        assert_close(value, line.clone().squared_error(x, y), ANALYTIC_TOL, "value");
        assert_close(value, hand_value, ANALYTIC_TOL, "value by hand");
        assert_all_close(&grad.to_flat(), &hand, ANALYTIC_TOL, "gradient");
        let check = check_gradient_of(|l: &Line| l.clone().squared_error(x, y), &line, &grad);
        prop_assert!(check.is_ok(FD_TOL), "{}", check);
        let t = Line { slope: 0.4, offsets: vec![-0.3, 0.9] };
        let (_, tangent) = line.clone().squared_error_jvp(x, y, t.clone());
        assert_dot(tangent, &hand, &t.to_flat(), ANALYTIC_TOL, "tangent");
        let (_, scaled) = line.clone().squared_error_vjp(x, y, COTANGENT);
        let expected: Vec<f64> = hand.iter().map(|g| g * COTANGENT).collect();
        assert_all_close(&scaled.to_flat(), &expected, ANALYTIC_TOL, "vjp");
        let mut buffer = line.zero_like();
        assert_eq!(line.clone().squared_error_grad_into(x, y, &mut buffer), value);
        assert_eq!(buffer, grad);
        // In `self` and `x`: the `x` part against a central difference.
        let (_, (in_self, dx)) = line.clone().squared_error_in_x_grad(x, y);
        assert_all_close(&in_self.to_flat(), &hand, ANALYTIC_TOL, "gradient in self beside x");
        let dx_fd = central_difference(|x| line.clone().squared_error_in_x(x, y), x);
        assert_close(dx, dx_fd, FD_TOL, "d x");

        // `order = 2`: the Hessian over `self`'s flat view, against central differences of the gradient
        // and, for its constant entries, by hand.
        let (h_value, h_grad, h) = line.clone().squared_error_hessian(x, y);
        assert_close(h_value, value, ANALYTIC_TOL, "Hessian's value");
        assert_all_close(&h_grad.to_flat(), &hand, ANALYTIC_TOL, "Hessian's gradient");
        let grad_at = |flat: &[f64]| squared_error_by_hand(&line.from_flat(flat), x, y).1.to_vec();
        for i in 0..3 {
            let column: Vec<f64> = h.iter().map(|row| row[i]).collect();
            assert_all_close(&column, &hessian_column(grad_at, &line.to_flat(), i), 1e-6, "Hessian column");
        }
        assert_all_close(&h[2], &[0.0, 0.0, 0.5], ANALYTIC_TOL, "Hessian row of offsets[1]");
        let (_, _, product) = line.clone().squared_error_hvp(x, y, t.clone());
        let expected: Vec<f64> = h.iter().map(|row| dot(row, &t.to_flat())).collect();
        assert_all_close(&product.to_flat(), &expected, ANALYTIC_TOL, "H v");

        // A constant `self` taken by value.
        let (value, dx) = line.clone().constant_in_self_grad(x);
        assert_close(value, line.clone().constant_in_self(x), ANALYTIC_TOL, "constant self value");
        assert_close(dx, slope * (slope * x).cos() * o1 + 2.0 * x * o0, ANALYTIC_TOL, "constant self d x");
        let (_, _, h) = line.clone().constant_in_self_hessian(x);
        let d2 = -slope * slope * (slope * x).sin() * o1 + 2.0 * o0;
        assert_close(h[0][0], d2, ANALYTIC_TOL, "constant self f''");
        let d2_fd = central_difference(|x| line.clone().constant_in_self_grad(x).1, x);
        assert_close(h[0][0], d2_fd, FD_TOL, "constant self f'' by differences");
        let [f, f1, f2] = line.clone().constant_in_self_derivatives(x);
        assert_all_close(&[f, f1, f2], &[value, dx, d2], ANALYTIC_TOL, "constant self derivatives");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn second_derivatives_with_a_constant_self_reading_an_integer_field(a0 in -1.0..1.0f64, a1 in -1.0..1.0f64, a2 in -1.0..1.0f64, phase in -1.0..1.0f64, x in -2.0..2.0f64, y in -2.0..2.0f64) {
        let wave = Wave { amplitudes: vec![a0, a1, a2], phase, harmonics: 3 };
        let terms = |x: f64| -> (f64, f64, f64) {
            let (mut f, mut d1, mut d2) = (0.0, 0.0, 0.0);
            for (k, a) in wave.amplitudes.iter().enumerate() {
                let m = (k + 1) as f64;
                f += a * (m * x + phase).sin();
                d1 += a * m * (m * x + phase).cos();
                d2 -= a * m * m * (m * x + phase).sin();
            }
            (1.5 * f, 1.5 * d1, 1.5 * d2)
        };
        let (f, d1, d2) = terms(x);
        let (value, dx, h) = wave.at_hessian(x);
        assert_close(value, wave.at(x), ANALYTIC_TOL, "value");
        assert_close(value, f, ANALYTIC_TOL, "value by hand");
        assert_close(dx, d1, ANALYTIC_TOL, "f'");
        assert_close(h[0][0], d2, ANALYTIC_TOL, "f''");
        assert_close(h[0][0], central_difference(|x| wave.at_grad(x).1, x), FD_TOL, "f'' by differences");
        let (_, _, hv) = wave.at_hvp(x, 0.5);
        assert_close(hv, 0.5 * d2, ANALYTIC_TOL, "H v");
        assert_all_close(&wave.at_derivatives(x), &[f, d1, d2], ANALYTIC_TOL, "derivatives");

        // By value, in (x, y).
        let (value, (gx, gy), h) = wave.clone().scaled_hessian(x, y);
        assert_close(value, wave.clone().scaled(x, y), ANALYTIC_TOL, "scaled value");
        assert_close(gx, d1 * y * y, ANALYTIC_TOL, "scaled d x");
        assert_close(gy, 2.0 * f * y, ANALYTIC_TOL, "scaled d y");
        let hand = [[d2 * y * y, 2.0 * d1 * y], [2.0 * d1 * y, 2.0 * f]];
        let grad = |p: &[f64]| {
            let (_, (a, b)) = wave.clone().scaled_grad(p[0], p[1]);
            vec![a, b]
        };
        for (i, (row, expected)) in h.iter().zip(&hand).enumerate() {
            assert_all_close(row, expected, ANALYTIC_TOL, "scaled Hessian");
            let column: Vec<f64> = h.iter().map(|r| r[i]).collect();
            assert_all_close(&column, &hessian_column(grad, &[x, y], i), 1e-6, "scaled column");
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn second_derivatives_of_a_method_calling_methods_with_a_constant_self(w in -2.0..2.0f64, b in -2.0..2.0f64) {
        let data = Dataset { xs: XS.to_vec(), ys: YS.to_vec() };
        let (value, (dw, db), h) = data.penalised_twice_hessian(w, b);
        assert_close(value, data.penalised_twice(w, b), ANALYTIC_TOL, "value");
        // loss: H = 2/m [[Σx², Σx], [Σx, m]]; ridge: 0.1 w² ; wobble: ys[1] sin(xs[0] w b).
        let m = XS.len() as f64;
        let (sx, sxx) = (XS.iter().sum::<f64>(), XS.iter().map(|x| x * x).sum::<f64>());
        let (a, c) = (XS[0], YS[1]);
        let (sn, cs) = ((a * w * b).sin(), (a * w * b).cos());
        let (_, (lw, lb)) = data.loss_grad(w, b);
        assert_close(dw, lw + 0.2 * w + c * a * b * cs, ANALYTIC_TOL, "d w");
        assert_close(db, lb + c * a * w * cs, ANALYTIC_TOL, "d b");
        let hand = [
            [2.0 * sxx / m + 0.2 - c * a * a * b * b * sn, 2.0 * sx / m + c * a * cs - c * a * a * w * b * sn],
            [2.0 * sx / m + c * a * cs - c * a * a * w * b * sn, 2.0 - c * a * a * w * w * sn],
        ];
        let grad = |p: &[f64]| {
            let (_, (gw, gb)) = data.penalised_twice_grad(p[0], p[1]);
            vec![gw, gb]
        };
        assert_fd_gradient(|p| data.penalised_twice(p[0], p[1]), &[w, b], &[dw, db], "penalised_twice");
        for (i, (row, expected)) in h.iter().zip(&hand).enumerate() {
            assert_all_close(row, expected, ANALYTIC_TOL, "Hessian by hand");
            let column: Vec<f64> = h.iter().map(|r| r[i]).collect();
            assert_all_close(&column, &hessian_column(grad, &[w, b], i), 1e-6, "Hessian column");
        }
        let (_, _, (hw, hb)) = data.penalised_twice_hvp(w, b, (0.3, -0.8));
        assert_all_close(&[hw, hb], &[dot(&h[0], &[0.3, -0.8]), dot(&h[1], &[0.3, -0.8])], 1e-9, "H v");
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn second_derivatives_of_a_generic_method_calling_an_associated_function(k in 0.1..3.0f64, rest in -1.0..1.0f64, x in -2.0..2.0f64) {
        let spring = Spring { k, rest };
        let u = x - rest;
        let (value, dx, h) = spring.energy_hessian(x);
        assert_close(value, spring.energy(x), ANALYTIC_TOL, "value");
        assert_close(value, k * (0.5 * u * u + u.sin()), ANALYTIC_TOL, "value by hand");
        assert_close(dx, k * (u + u.cos()), ANALYTIC_TOL, "f'");
        assert_close(h[0][0], k * (1.0 - u.sin()), ANALYTIC_TOL, "f''");
        assert_close(h[0][0], central_difference(|x| spring.energy_grad(x).1, x), FD_TOL, "f'' by differences");
        let (_, _, hv) = spring.energy_hvp(x, -0.5);
        assert_close(hv, -0.5 * h[0][0], ANALYTIC_TOL, "H v");
        let [f, d1, d2] = spring.energy_derivatives(x);
        assert_close(f, value, ANALYTIC_TOL, "derivatives f");
        assert_close(d1, dx, ANALYTIC_TOL, "derivatives f'");
        assert_close(d2, h[0][0], ANALYTIC_TOL, "derivatives f''");
        let (r, dr) = Spring::<f64>::helper_grad(u);
        assert_close(r, 0.5 * u * u + u.sin(), ANALYTIC_TOL, "helper");
        assert_close(dr, u + u.cos(), ANALYTIC_TOL, "helper'");
        // On `f32`.
        let spring32 = Spring { k: k as f32, rest: rest as f32 };
        let (_, _, h32) = spring32.energy_hessian(x as f32);
        assert_close(f64::from(h32[0][0]), h[0][0], 1e-4, "f32 f''");
        // With an integer field.
        let coil = Coil { k, rest, turns: 3 };
        let (value, dx, h) = coil.energy_hessian(x);
        assert_close(value, coil.energy(x), ANALYTIC_TOL, "coil value");
        assert_close(dx, 3.0 * k * (u + u.cos()), ANALYTIC_TOL, "coil f'");
        assert_close(h[0][0], 3.0 * k * (1.0 - u.sin()), ANALYTIC_TOL, "coil f''");
        assert_close(h[0][0], central_difference(|x| coil.energy_grad(x).1, x), FD_TOL, "coil f'' by differences");
    }
}

#[test]
fn methods_whose_generic_copy_would_not_compile_get_none() {
    let w = Weights {
        ws: vec![0.5, -1.5, 2.0],
    };
    let (value, dx) = w.twice_grad(0.7);
    assert_close(value, w.twice(0.7), ANALYTIC_TOL, "value");
    assert_close(dx, 2.0, ANALYTIC_TOL, "d x");
    // f = (Σw)² x² + Σ sin(w x²); f'' = 2 (Σw)² + Σ (2w cos(w x²) - 4 w² x² sin(w x²)).
    for x in [-1.3, -0.4, 0.0, 0.7, 1.9] {
        let sum: f64 = w.ws.iter().sum();
        let (value, dx, h) = w.total_and_sines_hessian(x);
        assert_close(value, w.total_and_sines(x), ANALYTIC_TOL, "value");
        let by_hand: f64 = w.ws.iter().map(|v| (v * x * x).sin()).sum::<f64>() + sum * sum * x * x;
        assert_close(value, by_hand, ANALYTIC_TOL, "value by hand");
        let slope = |x: f64| {
            2.0 * sum * sum * x
                + w.ws
                    .iter()
                    .map(|v| 2.0 * v * x * (v * x * x).cos())
                    .sum::<f64>()
        };
        assert_close(dx, slope(x), ANALYTIC_TOL, "d x");
        let curvature = 2.0 * sum * sum
            + w.ws
                .iter()
                .map(|v| 2.0 * v * (v * x * x).cos() - 4.0 * v * v * x * x * (v * x * x).sin())
                .sum::<f64>();
        assert_close(h[0][0], curvature, ANALYTIC_TOL, "d² x");
        let grad = |x: f64| w.total_and_sines_grad(x).1;
        assert_close(
            h[0][0],
            central_difference(grad, x),
            FD_TOL,
            "d² x by differences",
        );
    }
    let (value, dx) = w.through_free_function_grad(0.7);
    assert_close(value, w.through_free_function(0.7), ANALYTIC_TOL, "value");
    assert_close(dx, 1.0, ANALYTIC_TOL, "d x");
    // f = x sin(a x) + b x³; f' = sin(a x) + a x cos(a x) + 3 b x²; f'' = 2a cos(a x) - a² x sin(a x) + 6 b x.
    let (a, b) = (w.ws[0], w.ws[1]);
    for x in [-1.3, -0.2, 0.0, 0.7, 2.1] {
        let (value, dx, h) = w.curved_through_free_function_hessian(x);
        assert_close(
            value,
            w.curved_through_free_function(x),
            ANALYTIC_TOL,
            "value",
        );
        assert_close(
            value,
            x * (a * x).sin() + b * x * x * x,
            ANALYTIC_TOL,
            "value by hand",
        );
        let slope = (a * x).sin() + a * x * (a * x).cos() + 3.0 * b * x * x;
        assert_close(dx, slope, ANALYTIC_TOL, "d x");
        let curvature = 2.0 * a * (a * x).cos() - a * a * x * (a * x).sin() + 6.0 * b * x;
        assert_close(h[0][0], curvature, ANALYTIC_TOL, "d² x");
        let grad = |x: f64| w.curved_through_free_function_grad(x).1;
        assert_close(
            h[0][0],
            central_difference(grad, x),
            FD_TOL,
            "d² x by differences",
        );
        let (_, _, product) = w.curved_through_free_function_hvp(x, 0.5);
        assert_close(product, 0.5 * curvature, ANALYTIC_TOL, "hvp");
    }
    let named = Named {
        name: "abc".into(),
        k: 1.5,
    };
    for x in [-1.1, 0.0, 0.5, 2.3] {
        let (value, dx, h) = named.measured_hessian(x);
        assert_close(value, named.measured(x), ANALYTIC_TOL, "value");
        assert_close(value, 4.5 * x * x + x.sin(), ANALYTIC_TOL, "value by hand");
        assert_close(dx, 9.0 * x + x.cos(), ANALYTIC_TOL, "d x");
        assert_close(h[0][0], 9.0 - x.sin(), ANALYTIC_TOL, "d² x");
        let grad = |x: f64| named.measured_grad(x).1;
        assert_close(
            h[0][0],
            central_difference(grad, x),
            FD_TOL,
            "d² x by differences",
        );
        assert_close(
            named.measured_derivatives(x)[2],
            h[0][0],
            ANALYTIC_TOL,
            "f_derivatives",
        );
    }
    // 4.5 x² + x.
    let (value, dx, h) = named.squared_hessian(0.5);
    assert_close(value, named.squared(0.5), ANALYTIC_TOL, "value");
    assert_close(dx, 5.5, ANALYTIC_TOL, "d x");
    assert_close(h[0][0], 9.0, ANALYTIC_TOL, "d² x");
    assert_close(
        h[0][0],
        central_difference(|x| named.squared_grad(x).1, 0.5),
        FD_TOL,
        "d² x by differences",
    );
}

#[test]
fn methods_write_their_gradient_into_buffers() {
    let data = Dataset {
        xs: vec![1.0, 2.0, -0.5],
        ys: vec![0.5, 1.0, 2.0],
    };
    let (value, (dw, db)) = data.loss_grad(0.7, -0.2);
    let (mut bw, mut bb) = (0.0, 0.0);
    assert_eq!(data.loss_grad_into(0.7, -0.2, (&mut bw, &mut bb)), value);
    assert_eq!((bw, bb), (dw, db));

    let line = Line {
        slope: 0.3,
        offsets: vec![0.1, -0.4],
    };
    let (xs, ys) = ([1.0, 2.0, 3.0], [0.5, 0.2, 1.5]);
    let (value, grad) = line.fit_grad(&xs, &ys);
    let mut buffer = line.zero_like();
    assert_eq!(line.fit_grad_into(&xs, &ys, &mut buffer), value);
    assert_eq!(buffer, grad);
}

/// A constant `self` taken by value calling a method that takes `&self`: its `_jvp` passes the callee the
/// constant `self` by reference, as the call does.
#[derive(Clone, Copy)]
struct Gauge {
    k: f64,
}

impl Gauge {
    #[differentiable]
    fn reading(&self, x: f64) -> f64 {
        self.k * x.sin()
    }

    /// `k x sin x`.
    #[differentiable]
    fn weighted(self, x: f64) -> f64 {
        self.reading(x) * x
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_constant_self_by_value_calls_a_method_taking_a_reference(k in moderate(), x in moderate(), t in tangent()) {
        let gauge = Gauge { k };
        let slope = k * (x.sin() + x * x.cos());
        let (value, dx) = gauge.weighted_grad(x);
        assert_close(value, gauge.weighted(x), ANALYTIC_TOL, "value");
        assert_close(dx, slope, ANALYTIC_TOL, "d x");
        assert_close(dx, central_difference(|x| gauge.weighted(x), x), FD_TOL, "d x by differences");
        let (_, dot) = gauge.weighted_jvp(x, t);
        assert_close(dot, slope * t, ANALYTIC_TOL, "jvp");
    }
}

/// A struct differentiated as a whole whose array field is copied by `let` and the copy written
/// (`let mut w = self.w; w[0] *= b;`): at `order = 2` the hidden function over the struct's values bound
/// the copy to the field's sub-slice, which it cannot write (rustc E0594 in generated code before).
#[derive(Differentiable, Clone, Debug)]
struct Pair {
    w: [f64; 2],
    s: f64,
}

impl Pair {
    /// `b w0 + w0 s + w1²`.
    #[differentiable(wrt(self), order = 2)]
    fn energy(&self, b: f64) -> f64 {
        let mut w = self.w;
        w[0] *= b;
        w[0] + self.w[0] * self.s + w[1] * self.w[1]
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn an_array_field_copied_by_let_is_a_copy(w0 in moderate(), w1 in moderate(), s in moderate(), b in moderate()) {
        let pair = Pair { w: [w0, w1], s };
        let (value, g) = pair.energy_grad(b);
        assert_close(value, b * w0 + w0 * s + w1 * w1, ANALYTIC_TOL, "value");
        let got = g.to_flat();
        assert_all_close(&got, &[b + s, 2.0 * w1, w0], ANALYTIC_TOL, "gradient by hand");
        let at = |x: &[f64]| Pair { w: [x[0], x[1]], s: x[2] }.energy(b);
        for (i, want) in got.iter().enumerate() {
            let along = |t: f64| {
                let mut x = vec![w0, w1, s];
                x[i] = t;
                at(&x)
            };
            assert_close(*want, central_difference(along, [w0, w1, s][i]), FD_TOL, "by differences");
        }
        let (_, _, h) = pair.energy_hessian(b);
        let hand = [[0.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 0.0, 0.0]];
        for (row, expected) in h.iter().zip(&hand) {
            assert_all_close(&row.to_flat(), expected, ANALYTIC_TOL, "Hessian");
        }
    }
}

#[test]
fn a_constant_self_calls_a_method_differentiated_in_self() {
    let line = Line {
        slope: 0.7,
        offsets: vec![0.3, -0.4],
    };
    let (value, (gx, gy)) = line.fit_in_data_grad(&XS, &YS);
    assert_close(
        value,
        2.0 * line.fit(&XS, &YS),
        ANALYTIC_TOL,
        "fit_in_data value",
    );
    assert_eq!(line.fit_in_data(&XS, &YS), value);
    // 2 Σ e_i², e_i = slope x_i + offsets[i % 2] - y_i: ∂/∂x_i = 4 e_i slope, ∂/∂y_i = -4 e_i.
    for i in 0..XS.len() {
        let e = line.slope * XS[i] + line.offsets[i % 2] - YS[i];
        assert_close(
            gx[i],
            4.0 * e * line.slope,
            ANALYTIC_TOL,
            "fit_in_data xs gradient",
        );
        assert_close(gy[i], -4.0 * e, ANALYTIC_TOL, "fit_in_data ys gradient");
    }
    let t = [0.5, -1.0, 0.25, 2.0];
    let (_, tangent) = line.fit_in_data_jvp(&XS, &YS, (t.to_vec(), vec![0.0; 4]));
    assert_close(tangent, dot(&gx, &t), ANALYTIC_TOL, "fit_in_data tangent");
}

/// A method that copies an array field and writes the copy (`let mut w = self.w; w[0] *= b;`): the generic
/// copy that `order = K` callers call bound the copy to a reference to the field (rustc's E0594 in
/// generated code, for a method without any `order`). And a constant `self` calling, at `order = 2`, a
/// method differentiated in `self` (`wrt(self)`): the callee's copy with a constant `self` is that of the
/// same method without `wrt(self)` (a spanned error at the call before).
#[derive(Differentiable, Clone, Debug)]
struct Bond {
    w: [f64; 2],
    k: f64,
}

impl Bond {
    /// `b w0 w1 + k b²`.
    #[differentiable]
    fn stretched(&self, b: f64) -> f64 {
        let mut w = self.w;
        w[0] *= b;
        w[0] * w[1] + self.k * b * b
    }

    /// The same with the copy's type declared (rustc's E0308 in generated code before: the copy was made
    /// a `Vec`), at `order = 2`.
    #[differentiable(order = 2)]
    fn stretched_typed(&self, b: f64) -> f64 {
        let mut w: [f64; 2] = self.w;
        w[0] *= b;
        w[0] * w[1] + self.k * b * b
    }

    /// `k² x + w0³`, differentiated in `self` at `order = 2`: a field as the receiver of `powi`, whose
    /// integer exponent made the field read as an integer in the hidden function of `order = K` (rustc's
    /// E0308 in generated code; found by `--order2` on `Line::fit_scaled`).
    #[differentiable(wrt(self), order = 2)]
    fn curvature(&self, x: f64) -> f64 {
        self.k.powi(2) * x + self.w[0].powi(3)
    }

    /// `k x³ + w1 x`, differentiated in `self`.
    #[differentiable(wrt(self), order = 2)]
    fn stiffness(&self, x: f64) -> f64 {
        self.k * x * x * x + self.w[1] * x
    }

    /// `stretched(x) stiffness(x)`, `self` constant.
    #[differentiable(order = 2)]
    fn energy_in_data(&self, x: f64) -> f64 {
        self.stretched(x) * self.stiffness(x)
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_constant_self_calls_a_method_differentiated_in_self_at_order_two(
        w0 in moderate(), w1 in moderate(), k in moderate(), x in moderate()
    ) {
        let spring = Bond { w: [w0, w1], k };
        let (s, ds, dds) = (x * w0 * w1 + k * x * x, w0 * w1 + 2.0 * k * x, 2.0 * k);
        let (t, dt, ddt) = (k * x * x * x + w1 * x, 3.0 * k * x * x + w1, 6.0 * k * x);
        // The array field copied and written in the copy.
        let (value, g) = spring.stretched_grad(x);
        assert_close(value, s, ANALYTIC_TOL, "stretched value");
        assert_close(g, ds, ANALYTIC_TOL, "stretched derivative");
        assert_close(g, central_difference(|x| spring.stretched(x), x), FD_TOL, "stretched FD");
        let (value, g) = spring.stretched_typed_grad(x);
        assert_close(value, s, ANALYTIC_TOL, "stretched_typed value");
        assert_eq!(spring.stretched_typed(x), value);
        assert_close(g, ds, ANALYTIC_TOL, "stretched_typed derivative");
        let (_, _, h) = spring.stretched_typed_hessian(x);
        assert_close(h[0][0], dds, ANALYTIC_TOL, "stretched_typed second derivative");
        // A field under `powi` at `order = 2`: the Hessian over (w0, w1, k).
        let (value, _, h) = spring.curvature_hessian(x);
        assert_close(value, k * k * x + w0 * w0 * w0, ANALYTIC_TOL, "curvature value");
        assert_eq!(spring.curvature(x), value);
        let want = [[6.0 * w0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0 * x]];
        for (row, want) in h.iter().zip(&want) {
            assert_all_close(row, want, ANALYTIC_TOL, "curvature Hessian");
        }
        // The product, at first and second order.
        let (value, g) = spring.energy_in_data_grad(x);
        assert_close(value, s * t, ANALYTIC_TOL, "energy value");
        assert_close(g, ds * t + s * dt, ANALYTIC_TOL, "energy derivative");
        assert_close(g, central_difference(|x| spring.energy_in_data(x), x), FD_TOL, "energy FD");
        let (h_value, h_grad, h) = spring.energy_in_data_hessian(x);
        assert_close(h_value, s * t, ANALYTIC_TOL, "hessian's value");
        assert_close(h_grad, g, ANALYTIC_TOL, "hessian's gradient");
        assert_close(h[0][0], dds * t + 2.0 * ds * dt + s * ddt, ANALYTIC_TOL, "second derivative");
        let fd = central_difference(|x| spring.energy_in_data_grad(x).1, x);
        assert_close(h[0][0], fd, FD_TOL, "second derivative FD");
    }
}

/// A chain of springs differentiated in `self` (`wrt(self)`) over positions `x`, and its energy as a
/// function of the positions with `self` constant at `order = 2`: through the callee's copy with a
/// constant `self`, a loop, an array field read by index and a scalar field.
#[derive(Differentiable, Clone, Debug)]
struct Chain {
    rest: Vec<f64>,
    k: f64,
}

impl Chain {
    #[differentiable(wrt(self))]
    fn stretch(&self, x: &[f64]) -> f64 {
        let mut e = 0.0;
        for i in 1..x.len() {
            let d = x[i] - x[i - 1] - self.rest[i - 1];
            e += self.k * d * d * d * d + d * x[i];
        }
        e
    }

    #[differentiable(order = 2)]
    fn energy_of(&self, x: &[f64]) -> f64 {
        let s = self.stretch(x);
        s * s + x[0] * s
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_hessian_through_a_copy_with_a_constant_self_matches_differences_of_the_gradient(
        x in proptest::collection::vec(-1.0f64..1.0, 4),
        r in proptest::collection::vec(-0.5f64..0.5, 3),
        k in 0.1f64..2.0,
    ) {
        let chain = Chain { rest: r.clone(), k };
        let (value, grad) = chain.energy_of_grad(&x);
        assert_close(value, chain.energy_of(&x), ANALYTIC_TOL, "value");
        assert_fd_gradient(|x| chain.energy_of(x), &x, &grad, "gradient");
        let (h_value, h_grad, h) = chain.energy_of_hessian(&x);
        assert_close(h_value, value, ANALYTIC_TOL, "hessian's value");
        assert_all_close(&h_grad, &grad, ANALYTIC_TOL, "hessian's gradient");
        for (i, row) in h.iter().enumerate() {
            let column = hessian_column(|x| chain.energy_of_grad(x).1, &x, i);
            assert_all_close(row, &column, 1e-5, "hessian column");
        }
    }
}

/// A spring differentiated in `self` (`wrt(self)`) whose body calls associated functions (`Self::pair(..)`,
/// one written for `f64`, one generic over a float type of its own), and methods with `self` constant that
/// pass fields on to calls, at first and second order: the copy with a constant `self` calls the callees'
/// copies `Self::__pair_generic` (was the error at the call: no copy of a method calling `Self::h(..)`),
/// and the constant field's tangent is a zero of the copy's float type (rustc's unsatisfied
/// `InactiveTangent<__S>` at first order before, for `self.k` passed to any call).
#[derive(Differentiable, Clone, Debug)]
struct Springy {
    k: f64,
    rest: f64,
    #[no_grad]
    n: usize,
}

/// `n d`: a free function with an integer parameter. (A constant `self` passing `self.n` to it at `order = K`
/// reads the field as a float there, rustc's E0308: not done.)
#[differentiable]
fn times_count(d: f64, n: usize) -> f64 {
    d * n as f64
}

impl Springy {
    /// `k d² / 2`.
    #[differentiable]
    fn pair(k: f64, d: f64) -> f64 {
        0.5 * k * d * d
    }

    /// `k d³`, generic over a float type of its own.
    #[differentiable]
    fn cubic<T: Float>(k: T, d: T) -> T {
        k * d * d * d
    }

    /// `pair(k, x - rest) + cubic(k, x) x`, differentiated in `self` and `x`.
    #[differentiable(wrt(self, x))]
    fn energy(&self, x: f64) -> f64 {
        Self::pair(self.k, x - self.rest) + Self::cubic(self.k, x) * x
    }

    /// `pair(k, x) + n x`, `self` constant.
    #[differentiable]
    fn counted(&self, x: f64) -> f64 {
        Self::pair(self.k, x) + times_count(x, 1) * self.n as f64
    }

    /// `energy(x)² + counted(x)`, `self` constant, at `order = 2`.
    #[differentiable(order = 2)]
    fn energy_at(&self, x: f64) -> f64 {
        let e = self.energy(x);
        e * e + self.counted(x)
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_constant_self_reaches_associated_functions_through_a_method_differentiated_in_self(
        k in moderate(), rest in moderate(), x in moderate(), n in 0usize..4
    ) {
        let p = Springy { k, rest, n };
        let nf = n as f64;
        let d = x - rest;
        // e = k d²/2 + k x⁴, c = k x²/2 + n x.
        let (e, de, dde) = (0.5 * k * d * d + k * x.powi(4), k * d + 4.0 * k * x.powi(3), k + 12.0 * k * x * x);
        let (c, dc, ddc) = (0.5 * k * x * x + nf * x, k * x + nf, k);
        let (value, (g_self, g_x)) = p.energy_grad(x);
        assert_close(value, e, ANALYTIC_TOL, "energy value");
        assert_close(g_x, de, ANALYTIC_TOL, "energy d x");
        assert_close(g_self.k, 0.5 * d * d + x.powi(4), ANALYTIC_TOL, "energy d k");
        assert_close(g_self.rest, -k * d, ANALYTIC_TOL, "energy d rest");
        let (value, g) = p.counted_grad(x);
        assert_close(value, c, ANALYTIC_TOL, "counted value");
        assert_close(g, dc, ANALYTIC_TOL, "counted derivative");
        assert_close(g, central_difference(|x| p.counted(x), x), FD_TOL, "counted FD");
        let (value, g) = p.energy_at_grad(x);
        assert_close(value, e * e + c, ANALYTIC_TOL, "energy_at value");
        assert_close(g, 2.0 * e * de + dc, ANALYTIC_TOL, "energy_at derivative");
        assert_close(g, central_difference(|x| p.energy_at(x), x), FD_TOL, "energy_at FD");
        let (h_value, h_grad, h) = p.energy_at_hessian(x);
        assert_close(h_value, value, ANALYTIC_TOL, "hessian's value");
        assert_close(h_grad, g, ANALYTIC_TOL, "hessian's gradient");
        assert_close(h[0][0], 2.0 * de * de + 2.0 * e * dde + ddc, ANALYTIC_TOL, "second derivative");
        let fd = central_difference(|x| p.energy_at_grad(x).1, x);
        assert_close(h[0][0], fd, FD_TOL, "second derivative FD");
    }
}

/// Methods taking `self` by value called as `self.m(x)`: from a method taking `self` by value or `&self`,
/// differentiated in `self` or not, and at `order = 2` from one taking `self` by value (the calls passed
/// `&self`, a `&Dial` or `&&Dial`, to the callee's `self: Dial`: rustc's E0308 in generated code before).
#[derive(Clone, Copy, Debug, Differentiable)]
struct Dial {
    gain: f64,
    bias: [f64; 2],
}

impl Dial {
    /// `gain sin x + bias[0] x²`, differentiated in `self` and `x`.
    #[differentiable(wrt(self, x))]
    fn turn(self, x: f64) -> f64 {
        self.gain * x.sin() + self.bias[0] * x * x
    }

    /// `turn(x) bias[1] + turn(2x)`, `self` by value calling a method taking `self` by value.
    #[differentiable(wrt(self))]
    fn twice(self, x: f64) -> f64 {
        self.turn(x) * self.bias[1] + self.turn(2.0 * x)
    }

    /// `turn(x)²`, from `&self`.
    #[differentiable(wrt(self))]
    fn squared(&self, x: f64) -> f64 {
        self.turn(x) * self.turn(x)
    }

    /// `turn(x) x` with a constant `self`, from `&self` and from `self`.
    #[differentiable]
    fn scaled(&self, x: f64) -> f64 {
        self.turn(x) * x
    }

    #[differentiable]
    fn scaled_by_value(self, x: f64) -> f64 {
        self.turn(x) * x
    }

    /// `turn(x) x` with a constant `self` at `order = 2`, from `&self` and from `self`: the hidden function
    /// of the fields passes its constant `self` to `turn`, which takes it by value, as `turn` takes it.
    #[differentiable(order = 2)]
    fn scaled_curved(&self, x: f64) -> f64 {
        self.turn(x) * x
    }

    #[differentiable(order = 2)]
    fn scaled_curved_by_value(self, x: f64) -> f64 {
        self.turn(x) * x + self.turn(0.5 * x)
    }

    /// `turn(x) gain` at `order = 2`.
    #[differentiable(wrt(self), order = 2)]
    fn curved(self, x: f64) -> f64 {
        self.turn(x) * self.gain
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn methods_taking_self_by_value_are_called_as_self_dot_method(
        gain in moderate(), b0 in moderate(), b1 in moderate(), x in moderate(),
    ) {
        let dial = Dial { gain, bias: [b0, b1] };
        let turn = |d: &Dial, x: f64| d.gain * x.sin() + d.bias[0] * x * x;
        // d turn / d (gain, bias[0], bias[1]), and d turn / dx.
        let turn_self = |x: f64| [x.sin(), x * x, 0.0];
        let turn_x = |x: f64| gain * x.cos() + 2.0 * b0 * x;
        let flat = |d: &Dial| d.to_flat();

        let (value, g) = dial.twice_grad(x);
        assert_close(value, dial.twice(x), ANALYTIC_TOL, "twice");
        let (a, b) = (turn_self(x), turn_self(2.0 * x));
        let by_hand = [a[0] * b1 + b[0], a[1] * b1 + b[1], turn(&dial, x)];
        assert_all_close(&flat(&g), &by_hand, ANALYTIC_TOL, "twice_grad");
        assert_fd_gradient(|f| dial.from_flat(f).twice(x), &flat(&dial), &flat(&g), "twice_grad");

        let (value, g) = dial.squared_grad(x);
        assert_close(value, dial.squared(x), ANALYTIC_TOL, "squared");
        let by_hand: Vec<f64> = a.iter().map(|d| 2.0 * turn(&dial, x) * d).collect();
        assert_all_close(&flat(&g), &by_hand, ANALYTIC_TOL, "squared_grad");

        assert_close(dial.scaled(x), dial.scaled_by_value(x), ANALYTIC_TOL, "scaled");
        let slope = turn_x(x) * x + turn(&dial, x);
        assert_close(dial.scaled_grad(x).1, slope, ANALYTIC_TOL, "scaled_grad");
        assert_close(dial.scaled_by_value_grad(x).1, slope, ANALYTIC_TOL, "scaled_by_value_grad");
        assert_close(dial.scaled_jvp(x, 0.5).1, 0.5 * slope, ANALYTIC_TOL, "scaled_jvp");

        // f = turn(x) x: f' = turn'(x) x + turn(x), f'' = turn''(x) x + 2 turn'(x); turn' = gain cos x + 2 b0 x,
        // turn'' = -gain sin x + 2 b0. And h = f + turn(x / 2): h'' = f'' + turn''(x / 2) / 4.
        let turn_xx = |x: f64| -gain * x.sin() + 2.0 * b0;
        let f_xx = turn_xx(x) * x + 2.0 * turn_x(x);
        let (value, g, h) = dial.scaled_curved_hessian(x);
        assert_close(value, dial.scaled_curved(x), ANALYTIC_TOL, "scaled_curved");
        assert_close(g, slope, ANALYTIC_TOL, "scaled_curved gradient");
        assert_close(h[0][0], f_xx, ANALYTIC_TOL, "scaled_curved second derivative");
        let fd = central_difference(|x| dial.scaled_curved_grad(x).1, x);
        assert_close(h[0][0], fd, FD_TOL, "scaled_curved second derivative FD");
        let (value, g, h) = dial.scaled_curved_by_value_hessian(x);
        assert_close(value, dial.scaled_curved_by_value(x), ANALYTIC_TOL, "scaled_curved_by_value");
        assert_close(g, slope + 0.5 * turn_x(0.5 * x), ANALYTIC_TOL, "scaled_curved_by_value gradient");
        assert_close(h[0][0], f_xx + 0.25 * turn_xx(0.5 * x), ANALYTIC_TOL, "scaled_curved_by_value second");
        let fd = central_difference(|x| dial.scaled_curved_by_value_grad(x).1, x);
        assert_close(h[0][0], fd, FD_TOL, "scaled_curved_by_value second derivative FD");
        let d = dial.scaled_curved_by_value_derivatives(x);
        assert_close(d[2], h[0][0], ANALYTIC_TOL, "scaled_curved_by_value_derivatives");

        let (_, g, h) = dial.curved_hessian(x);
        assert_fd_gradient(|f| dial.from_flat(f).curved(x), &flat(&dial), &flat(&g), "curved_grad");
        let by_differences = fd_jacobian(|f| flat(&dial.from_flat(f).curved_grad(x).1), &flat(&dial));
        assert_jacobian(&h, &by_differences, "curved_hessian");
    }
}
