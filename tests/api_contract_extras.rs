//! The contract audit (`API.md`), part three: `#[custom_gradient]` (TF's `log1pexp`, at order 2 against
//! the analytic second derivative, and with a closure that is not the true derivative against the
//! Jacobian of the closure, as `jax.hessian` of a `jax.custom_vjp` gives), `#[gradient_of]` by path and by
//! a `use`d name at order 2, methods and parameter structs (the `Mlp` example at order 2, `wrt(self)`,
//! `Self::helper`, a generic `impl`), the `Differentiable` trait's methods, `Dual`, `check_gradient`,
//! `stop_gradient` and `optim`.

#![allow(clippy::needless_range_loop, clippy::type_complexity)]

mod common;

use autodiff::optim::{Adam, Lbfgs, Minimizer, Sgd};
use autodiff::{
    check_gradient, custom_gradient, differentiable, gradient_of, stop_gradient, Differentiable,
    Dual, Float,
};
use common::contract::{audit, Items, GARBAGE, HESSIAN_FD_TOL, SAME_TOL};
use common::{
    assert_all_close, assert_close, assert_fd_gradient, central_difference, hessian_column,
    ANALYTIC_TOL,
};
use libm::erf;

// ------------------------------------------------------------------------------ #[custom_gradient]

/// `API.md`'s (and `tf.custom_gradient`'s) example.
#[custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[differentiable(order = 2)]
fn softplus_loss(x: f64) -> f64 {
    log1pexp(x)
}

#[differentiable(order = 2)]
fn softplus_pair(x: f64, w: f64) -> f64 {
    log1pexp(w * x) * x
}

#[test]
fn log1pexp_at_orders_one_and_two() {
    let _: fn(f64) -> f64 = log1pexp;
    let _: fn(f64) -> (f64, f64) = log1pexp_grad;
    let _: fn(f64, f64) -> (f64, f64) = log1pexp_vjp;
    let _: fn(f64, f64) -> (f64, f64) = log1pexp_jvp;
    let _: fn(f64) -> [f64; 3] = softplus_loss_derivatives;
    for x in [-3.0, -0.5, 0.0, 0.8, 4.0] {
        let value = (1.0 + x.exp()).ln();
        assert_close(log1pexp(x), value, ANALYTIC_TOL, "log1pexp: value");
        let (v, g) = log1pexp_grad(x);
        assert_eq!(v, log1pexp(x), "log1pexp_grad: value");
        assert_close(g, sigmoid(x), ANALYTIC_TOL, "log1pexp_grad");
        assert_close(
            log1pexp_vjp(x, -2.0).1,
            -2.0 * sigmoid(x),
            ANALYTIC_TOL,
            "log1pexp_vjp",
        );
        assert_close(
            log1pexp_jvp(x, 0.3).1,
            0.3 * sigmoid(x),
            ANALYTIC_TOL,
            "log1pexp_jvp",
        );
        let d = softplus_loss_derivatives(x);
        assert_eq!(
            d[0],
            softplus_loss(x),
            "softplus_loss_derivatives: the value"
        );
        assert_close(d[0], value, ANALYTIC_TOL, "softplus_loss: f");
        assert_close(d[1], sigmoid(x), ANALYTIC_TOL, "softplus_loss: f'");
        assert_close(
            d[2],
            sigmoid(x) * (1.0 - sigmoid(x)),
            ANALYTIC_TOL,
            "softplus_loss: f'' (jax.hessian)",
        );
    }
    audit(
        &Items {
            what: "softplus_pair through log1pexp",
            primal: &|p| softplus_pair(p[0], p[1]),
            grad: &|p| {
                let (v, (a, b)) = softplus_pair_grad(p[0], p[1]);
                (v, vec![a, b])
            },
            vjp: &|p, d| {
                let (v, (a, b)) = softplus_pair_vjp(p[0], p[1], d);
                (v, vec![a, b])
            },
            jvp: &|p, t| softplus_pair_jvp(p[0], p[1], (t[0], t[1])),
            grad_into: &|p| {
                let (mut a, mut b) = (GARBAGE, GARBAGE);
                let v = softplus_pair_grad_into(p[0], p[1], (&mut a, &mut b));
                (v, vec![a, b])
            },
            hvp: Some(&|p, t| {
                let (v, (a, b), (ha, hb)) = softplus_pair_hvp(p[0], p[1], (t[0], t[1]));
                (v, vec![a, b], vec![ha, hb])
            }),
            hessian: Some(&|p| {
                let (v, (a, b), h) = softplus_pair_hessian(p[0], p[1]);
                (v, vec![a, b], h)
            }),
            analytic: Some(&|p| {
                let (x, w) = (p[0], p[1]);
                let s = sigmoid(w * x);
                vec![(1.0 + (w * x).exp()).ln() + x * w * s, x * x * s]
            }),
        },
        &[vec![0.3, -0.7], vec![-1.2, 0.4], vec![0.9, 1.1]],
    );
    // The analytic Hessian of softplus_pair.
    let (x, w) = (0.6, -0.9);
    let s = sigmoid(w * x);
    let ds = s * (1.0 - s);
    let (_, _, h) = softplus_pair_hessian(x, w);
    assert_close(
        h[0][0],
        2.0 * w * s + x * w * w * ds,
        ANALYTIC_TOL,
        "softplus_pair: H_xx",
    );
    assert_close(
        h[0][1],
        2.0 * x * s + x * x * w * ds,
        ANALYTIC_TOL,
        "softplus_pair: H_xw",
    );
    assert_close(h[1][1], x * x * x * ds, ANALYTIC_TOL, "softplus_pair: H_ww");
}

/// A closure that is deliberately not the derivative of the value (twice `cos`): the Hessian is the
/// Jacobian of the gradient the closure gives, `-2 sin x`, as `jax.hessian` of a `custom_vjp` gives.
#[custom_gradient]
fn scaled_sin(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let c = x.cos();
    (x.sin(), move |dy| dy * 2.0 * c)
}

#[differentiable(order = 2)]
fn uses_scaled_sin(x: f64) -> f64 {
    scaled_sin(x)
}

/// Two inputs: the closure returns a tuple of cotangents in declaration order.
#[custom_gradient]
fn mul_exp(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let e = (x * y).exp();
    (e, move |dy| (dy * y * e, dy * x * e))
}

#[differentiable(order = 2)]
fn uses_mul_exp(x: f64, y: f64) -> f64 {
    mul_exp(x, y) + x
}

#[test]
fn custom_gradient_closure_is_differentiated() {
    for x in [-1.0, 0.2, 1.3] {
        let d = uses_scaled_sin_derivatives(x);
        assert_eq!(
            d[0],
            uses_scaled_sin(x),
            "uses_scaled_sin_derivatives: the value"
        );
        assert_close(d[0], x.sin(), ANALYTIC_TOL, "uses_scaled_sin: value");
        assert_close(
            d[1],
            2.0 * x.cos(),
            ANALYTIC_TOL,
            "uses_scaled_sin: the closure's gradient",
        );
        assert_close(
            d[2],
            -2.0 * x.sin(),
            ANALYTIC_TOL,
            "uses_scaled_sin: the Jacobian of the closure",
        );
    }
    let _: fn(f64, f64) -> (f64, (f64, f64)) = mul_exp_grad;
    let _: fn(f64, f64, f64) -> (f64, (f64, f64)) = mul_exp_vjp;
    let _: fn(f64, f64, (f64, f64)) -> (f64, f64) = mul_exp_jvp;
    for (x, y) in [(0.3, -0.7), (1.1, 0.4)] {
        let e = (x * y).exp();
        let (_, (gx, gy)) = mul_exp_grad(x, y);
        assert_close(gx, y * e, ANALYTIC_TOL, "mul_exp_grad: x");
        assert_close(gy, x * e, ANALYTIC_TOL, "mul_exp_grad: y");
        assert_close(
            mul_exp_jvp(x, y, (0.5, 2.0)).1,
            0.5 * y * e + 2.0 * x * e,
            ANALYTIC_TOL,
            "mul_exp_jvp",
        );
        let (v, _, h) = uses_mul_exp_hessian(x, y);
        assert_eq!(v, uses_mul_exp(x, y), "uses_mul_exp_hessian: the value");
        assert_close(h[0][0], y * y * e, ANALYTIC_TOL, "uses_mul_exp: H_xx");
        assert_close(h[0][1], e + x * y * e, ANALYTIC_TOL, "uses_mul_exp: H_xy");
        assert_close(h[1][0], e + x * y * e, ANALYTIC_TOL, "uses_mul_exp: H_yx");
        assert_close(h[1][1], x * x * e, ANALYTIC_TOL, "uses_mul_exp: H_yy");
    }
}

// --------------------------------------------------------------------------------- #[gradient_of]

/// `erf'(x) = 2/√π e^(-x²)`.
#[gradient_of(libm::erf)]
fn erf_vjp(x: f64, dy: f64) -> f64 {
    dy * std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp()
}

/// By the registered path.
#[differentiable(order = 2)]
fn erf_by_path(x: f64, s: f64) -> f64 {
    libm::erf(x * s)
}

/// By the name imported with `use`.
#[differentiable(order = 2)]
fn erf_by_name(x: f64) -> f64 {
    erf(x) * x
}

#[test]
fn registered_gradients_at_order_two() {
    let k = std::f64::consts::FRAC_2_SQRT_PI;
    for x in [-1.1, 0.0, 0.4, 1.7] {
        let s = 0.8;
        let g = k * (-(x * s) * (x * s)).exp();
        let (v, (gx, gs)) = erf_by_path_grad(x, s);
        assert_eq!(v, libm::erf(x * s), "erf_by_path_grad: value");
        assert_close(gx, g * s, ANALYTIC_TOL, "erf_by_path_grad: x");
        assert_close(gs, g * x, ANALYTIC_TOL, "erf_by_path_grad: s");
        let (v, _, h) = erf_by_path_hessian(x, s);
        assert_eq!(v, erf_by_path(x, s), "erf_by_path_hessian: the value");
        let d2 = -2.0 * x * s * g;
        assert_close(h[0][0], d2 * s * s, ANALYTIC_TOL, "erf_by_path: H_xx");
        assert_close(h[0][1], g + d2 * x * s, ANALYTIC_TOL, "erf_by_path: H_xs");
        assert_close(h[1][1], d2 * x * x, ANALYTIC_TOL, "erf_by_path: H_ss");

        let e = k * (-x * x).exp();
        let d = erf_by_name_derivatives(x);
        assert_eq!(d[0], erf_by_name(x), "erf_by_name_derivatives: the value");
        assert_close(d[0], libm::erf(x) * x, ANALYTIC_TOL, "erf_by_name: value");
        assert_close(d[1], e * x + libm::erf(x), ANALYTIC_TOL, "erf_by_name: f'");
        assert_close(
            d[2],
            -2.0 * x * e * x + 2.0 * e,
            ANALYTIC_TOL,
            "erf_by_name: f''",
        );
        assert_close(
            d[1],
            central_difference(|y| libm::erf(y) * y, x),
            1e-8,
            "erf_by_name: f' by differences",
        );
    }
}

// ------------------------------------------------------------------ methods and parameter structs

/// `API.md`'s `Mlp`.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Mlp {
    w1: Vec<f64>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
    #[no_grad]
    hidden: usize,
}

#[differentiable(wrt(p), order = 2)]
fn mse(p: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for n in 0..xs.len() {
        let mut out = p.b2;
        for j in 0..p.hidden {
            out += p.w2[j] * (p.w1[j] * xs[n] + p.b1[j]).tanh();
        }
        let e = out - ys[n];
        loss += e * e;
    }
    loss / xs.len() as f64
}

impl Mlp {
    #[differentiable(wrt(self), order = 2)]
    fn loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
        mse(self, xs, ys)
    }

    /// A method calling other methods (`self.loss(..)`, `self.penalty()`).
    #[differentiable(wrt(self), order = 2)]
    fn regularised(&self, xs: &[f64], ys: &[f64], lambda: f64) -> f64 {
        self.loss(xs, ys) + lambda * self.penalty()
    }

    #[differentiable(wrt(self), order = 2)]
    fn penalty(&self) -> f64 {
        let mut s = 0.0;
        for i in 0..self.w1.len() {
            s += self.w1[i] * self.w1[i];
        }
        s
    }

    /// An associated function (`Mlp::activation_grad(z, a)`) (it names `Self`; one that does not is found from the source: tests/associated.rs).
    #[differentiable(order = 2)]
    fn activation(z: f64, a: f64) -> f64 {
        (a * z).tanh() * Self::GAIN
    }

    const GAIN: f64 = 1.5;

    /// `self` is a constant without `wrt(self)`.
    #[differentiable]
    fn predict(&self, x: f64) -> f64 {
        let mut out = self.b2;
        for j in 0..self.hidden {
            out += self.w2[j] * (self.w1[j] * x + self.b1[j]).tanh();
        }
        out
    }
}

fn mlp_of(flat: &[f64]) -> Mlp {
    Mlp {
        w1: flat[0..2].to_vec(),
        b1: flat[2..4].to_vec(),
        w2: flat[4..6].to_vec(),
        b2: flat[6],
        hidden: 2,
    }
}

const XS: [f64; 3] = [0.5, -1.0, 1.5];
const YS: [f64; 3] = [0.2, 0.1, -0.3];

#[test]
fn mlp_example_at_order_two() {
    let _: fn(&Mlp, &[f64], &[f64]) -> (f64, Mlp) = mse_grad;
    let _: fn(&Mlp, &[f64], &[f64]) -> (f64, Mlp) = Mlp::loss_grad;
    let _: fn(&Mlp, &[f64], &[f64], f64) -> (f64, Mlp) = Mlp::loss_vjp;
    let _: fn(&Mlp, &[f64], &[f64], Mlp) -> (f64, f64) = Mlp::loss_jvp;
    let _: fn(&Mlp, &[f64], &[f64], &mut Mlp) -> f64 = Mlp::loss_grad_into;
    let _: fn(&Mlp, &[f64], &[f64], Mlp) -> (f64, Mlp, Mlp) = Mlp::loss_hvp;
    let _: fn(&Mlp, &[f64], &[f64]) -> (f64, Mlp, Vec<Vec<f64>>) = Mlp::loss_hessian;
    let flat = |g: Mlp| {
        assert_eq!(g.hidden, 2, "the gradient copies #[no_grad] fields");
        g.to_flat()
    };
    audit(
        &Items {
            what: "model.loss(xs, ys) with wrt(self)",
            primal: &|p| mlp_of(p).loss(&XS, &YS),
            grad: &|p| {
                let (v, g) = mlp_of(p).loss_grad(&XS, &YS);
                (v, flat(g))
            },
            vjp: &|p, d| {
                let (v, g) = mlp_of(p).loss_vjp(&XS, &YS, d);
                (v, flat(g))
            },
            jvp: &|p, t| mlp_of(p).loss_jvp(&XS, &YS, mlp_of(t)),
            grad_into: &|p| {
                let mut g = mlp_of(&[GARBAGE; 7]);
                let v = mlp_of(p).loss_grad_into(&XS, &YS, &mut g);
                (v, flat(g))
            },
            hvp: Some(&|p, t| {
                let (v, g, hv) = mlp_of(p).loss_hvp(&XS, &YS, mlp_of(t));
                (v, flat(g), flat(hv))
            }),
            hessian: Some(&|p| {
                let (v, g, h) = mlp_of(p).loss_hessian(&XS, &YS);
                (v, flat(g), h)
            }),
            analytic: Some(&|p| {
                let (_, g) = mse_grad(&mlp_of(p), &XS, &YS);
                g.to_flat()
            }),
        },
        &[
            vec![0.3, -0.7, 0.5, 0.1, 0.9, -0.4, 0.2],
            vec![-1.0, 0.4, 0.2, 0.8, -0.3, 0.5, 0.0],
        ],
    );
    // The Hessian of the free function, and the method calling a method and `Self::norm2`.
    let p = [0.3, -0.7, 0.5, 0.1, 0.9, -0.4, 0.2];
    let model = mlp_of(&p);
    let (_, _, h_free) = mse_hessian(&model, &XS, &YS);
    let (_, _, h_method) = model.loss_hessian(&XS, &YS);
    for j in 0..7 {
        let column = hessian_column(|q| mse_grad(&mlp_of(q), &XS, &YS).1.to_flat(), &p, j);
        for i in 0..7 {
            assert_close(h_free[i][j], column[i], HESSIAN_FD_TOL, "mse_hessian");
            assert_close(
                h_method[i][j],
                h_free[i][j],
                SAME_TOL,
                "loss_hessian against mse_hessian",
            );
        }
    }
    let (v, g) = model.regularised_grad(&XS, &YS, 0.1);
    assert_eq!(
        v,
        model.regularised(&XS, &YS, 0.1),
        "regularised_grad: value"
    );
    assert_fd_gradient(
        |q| mlp_of(q).regularised(&XS, &YS, 0.1),
        &p,
        &g.to_flat(),
        "regularised_grad",
    );
    let (_, _, h) = model.regularised_hessian(&XS, &YS, 0.1);
    for j in 0..7 {
        let column = hessian_column(
            |q| mlp_of(q).regularised_grad(&XS, &YS, 0.1).1.to_flat(),
            &p,
            j,
        );
        assert_all_close(
            &h.iter().map(|row| row[j]).collect::<Vec<_>>(),
            &column,
            HESSIAN_FD_TOL,
            "regularised_hessian",
        );
    }
    // An associated function: `Mlp::activation_grad(z, a)`, and its Hessian.
    let _: fn(f64, f64) -> (f64, (f64, f64)) = Mlp::activation_grad;
    let _: fn(f64, f64) -> (f64, (f64, f64), Vec<Vec<f64>>) = Mlp::activation_hessian;
    for (z, a) in [(0.3, -1.2), (-0.8, 0.6)] {
        let t = (a * z).tanh();
        let s = 1.0 - t * t;
        let (_, (gz, ga)) = Mlp::activation_grad(z, a);
        assert_close(gz, 1.5 * a * s, ANALYTIC_TOL, "Mlp::activation_grad: z");
        assert_close(ga, 1.5 * z * s, ANALYTIC_TOL, "Mlp::activation_grad: a");
        let (v, _, h) = Mlp::activation_hessian(z, a);
        assert_eq!(
            v,
            Mlp::activation(z, a),
            "Mlp::activation_hessian: the value"
        );
        assert_close(
            h[0][0],
            -3.0 * a * a * t * s,
            ANALYTIC_TOL,
            "Mlp::activation: H_zz",
        );
        assert_close(
            h[0][1],
            1.5 * s - 3.0 * a * z * t * s,
            ANALYTIC_TOL,
            "Mlp::activation: H_za",
        );
        assert_close(
            h[1][1],
            -3.0 * z * z * t * s,
            ANALYTIC_TOL,
            "Mlp::activation: H_aa",
        );
    }
    // `self` constant without wrt(self): the gradient of x alone.
    let _: fn(&Mlp, f64) -> (f64, f64) = Mlp::predict_grad;
    for x in [-0.5, 0.7] {
        let (v, g) = model.predict_grad(x);
        assert_eq!(v, model.predict(x), "predict_grad: value");
        assert_close(
            g,
            central_difference(|y| model.predict(y), x),
            1e-8,
            "predict_grad",
        );
    }
}

/// A generic `impl`: a method at order 2 on `T: Float`.
struct Spring<T> {
    k: T,
}

impl<T: Float> Spring<T> {
    #[differentiable(order = 2)]
    fn energy(&self, a: T, b: T) -> T {
        self.k * (a - b) * (a - b) * a.exp()
    }
}

#[test]
fn generic_impl_methods() {
    let _: fn(&Spring<f64>, f64, f64) -> (f64, (f64, f64)) = Spring::<f64>::energy_grad;
    let _: fn(&Spring<f64>, f64, f64) -> (f64, (f64, f64), Vec<Vec<f64>>) =
        Spring::<f64>::energy_hessian;
    let _: fn(&Spring<f64>, f64, f64, (f64, f64)) -> (f64, (f64, f64), (f64, f64)) =
        Spring::<f64>::energy_hvp;
    let spring = Spring { k: 1.5 };
    for (a, b) in [(0.3f64, -0.4f64), (1.2, 0.8)] {
        let e = 1.5 * a.exp();
        let (_, (ga, gb)) = spring.energy_grad(a, b);
        assert_close(
            ga,
            (2.0 * (a - b) + (a - b) * (a - b)) * e,
            ANALYTIC_TOL,
            "Spring::energy_grad: a",
        );
        assert_close(
            gb,
            -2.0 * (a - b) * e,
            ANALYTIC_TOL,
            "Spring::energy_grad: b",
        );
        let (v, _, h) = spring.energy_hessian(a, b);
        assert_eq!(v, spring.energy(a, b), "Spring::energy_hessian: the value");
        assert_close(
            h[0][0],
            (2.0 + 4.0 * (a - b) + (a - b) * (a - b)) * e,
            ANALYTIC_TOL,
            "Spring: H_aa",
        );
        assert_close(
            h[0][1],
            (-2.0 - 2.0 * (a - b)) * e,
            ANALYTIC_TOL,
            "Spring: H_ab",
        );
        assert_close(h[1][1], 2.0 * e, ANALYTIC_TOL, "Spring: H_bb");
        let (_, _, (ha, hb)) = spring.energy_hvp(a, b, (1.0, 2.0));
        assert_close(
            ha,
            h[0][0] + 2.0 * h[0][1],
            SAME_TOL,
            "Spring::energy_hvp: a",
        );
        assert_close(
            hb,
            h[1][0] + 2.0 * h[1][1],
            SAME_TOL,
            "Spring::energy_hvp: b",
        );
        // On f32 too.
        let (_, (ga32, _)) = Spring { k: 1.5f32 }.energy_grad(a as f32, b as f32);
        assert_close(ga32 as f64, ga, 1e-5, "Spring::<f32>::energy_grad");
    }
}

// ------------------------------------------------------------------------ Differentiable trait

#[test]
fn differentiable_trait_methods() {
    let p = mlp_of(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    let zero = p.zero_like();
    assert_eq!(zero.to_flat(), vec![0.0; 7], "zero_like");
    assert_eq!(zero.hidden, 2, "zero_like keeps #[no_grad]");
    let mut q = p.clone();
    q.add_assign(&p);
    assert_eq!(
        q.to_flat(),
        vec![2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0],
        "add_assign"
    );
    q.scale(0.5);
    assert_eq!(q.to_flat(), p.to_flat(), "scale");
    assert_eq!(
        p.to_flat(),
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
        "to_flat in declaration order"
    );
    let r = p.from_flat(&[7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0]);
    assert_eq!(
        (r.w1.clone(), r.b2, r.hidden),
        (vec![7.0, 6.0], 1.0, 2),
        "from_flat"
    );
}

// ---------------------------------------------------------------------------------- run time

#[differentiable]
fn generic_cube<T: Float>(x: T, y: T) -> T {
    x * x * x * y
}

#[test]
fn duals_run_generic_functions_and_nest() {
    let d = Dual::new(2.0, 1.0);
    assert_eq!((d.re, d.eps), (2.0, 1.0), "Dual fields");
    assert_eq!(
        num_traits::ToPrimitive::to_f64(&d),
        Some(2.0),
        "to_f64 is the value's"
    );
    // The original function on duals: the derivative in x.
    let out = generic_cube(d, Dual::new(3.0, 0.0));
    assert_eq!((out.re, out.eps), (24.0, 36.0), "generic_cube on duals");
    // `_grad` on duals: the gradient's tangent is the Hessian times the seed.
    let (_, (gx, gy)) = generic_cube_grad(Dual::new(2.0, 1.0), Dual::new(3.0, 0.0));
    assert_eq!(
        (gx.re, gx.eps, gy.re, gy.eps),
        (36.0, 36.0, 8.0, 12.0),
        "generic_cube_grad on duals"
    );
    // Dual<Dual<f64>>: the second derivative in x.
    let x = Dual::new(Dual::new(2.0, 1.0), Dual::new(1.0, 0.0));
    let y = Dual::new(Dual::new(3.0, 0.0), Dual::new(0.0, 0.0));
    let out = generic_cube(x, y);
    assert_eq!(
        out.eps.eps,
        6.0 * 2.0 * 3.0,
        "generic_cube on nested duals: f_xx"
    );
}

#[differentiable]
fn with_stop(x: f64) -> f64 {
    x * stop_gradient(x)
}

#[differentiable]
fn quadratic(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let d = x[i] - (i as f64 + 1.0);
        s += d * d * (i as f64 + 1.0);
    }
    s
}

#[differentiable(wrt(p))]
fn fit(p: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    mse(p, xs, ys)
}

#[test]
fn check_gradient_stop_gradient_and_optimisers() {
    let (v, g) = with_stop_grad(3.0);
    assert_eq!(v, with_stop(3.0), "with_stop_grad: the value");
    assert_eq!((v, g), (9.0, 3.0), "stop_gradient has a zero derivative");
    assert_eq!(stop_gradient(2.5), 2.5, "stop_gradient is the identity");

    let x = [0.3, -1.0, 2.0];
    let (_, g) = quadratic_grad(&x);
    let check = check_gradient(quadratic, &x, &g);
    assert!(
        check.is_ok(1e-6),
        "check_gradient accepts the right gradient: {check:?}"
    );
    let mut wrong = g.clone();
    wrong[1] += 0.5;
    let check = check_gradient(quadratic, &x, &wrong);
    let _: f64 = check.max_rel_error;
    assert!(
        !check.is_ok(1e-6),
        "check_gradient rejects a wrong gradient"
    );
    assert_eq!(check.worst_index, 1, "check_gradient's worst index");

    let x0 = [0.0, 0.0, 0.0];
    for (name, minimum) in [
        ("Sgd", Sgd::new(0.05).minimize(quadratic_grad, &x0)),
        ("Adam", Adam::new(0.1).minimize(quadratic_grad, &x0)),
        ("Lbfgs", Lbfgs::new().minimize(quadratic_grad, &x0)),
    ] {
        assert_all_close(
            &minimum.x,
            &[1.0, 2.0, 3.0],
            1e-3,
            &format!("{name} minimises quadratic"),
        );
    }
    let p0 = mlp_of(&[0.3, -0.7, 0.5, 0.1, 0.9, -0.4, 0.2]);
    let start = fit(&p0, &XS, &YS);
    let (p, minimum) = Lbfgs::new().minimize_params(|p: &Mlp| fit_grad(p, &XS, &YS), &p0);
    assert!(
        minimum.value < start * 1e-2,
        "Lbfgs on Mlp: {} from {start}",
        minimum.value
    );
    assert_close(
        minimum.value,
        fit(&p, &XS, &YS),
        SAME_TOL,
        "Lbfgs on Mlp: the value at the minimiser",
    );
    let (_, g) = fit_grad(&p, &XS, &YS);
    let norm = g.to_flat().iter().map(|v| v * v).sum::<f64>().sqrt();
    assert!(
        norm < 1e-4,
        "Lbfgs on Mlp stops at a stationary point: gradient norm {norm:e}"
    );
    assert_eq!(p.hidden, 2, "the minimiser keeps #[no_grad]");
}

// ------------------------------------------------- struct fields, structs by value, generic structs

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Inner {
    a: f64,
    v: [f64; 2],
}

/// A struct with a field of another `Differentiable` struct, a `Vec` and a `#[no_grad]` integer.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Outer {
    inner: Inner,
    w: Vec<f64>,
    #[no_grad]
    n: usize,
}

/// A generic struct.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Gen<T: Float> {
    a: T,
    w: Vec<T>,
}

#[differentiable]
fn inner_part(q: &Inner, x: f64) -> f64 {
    q.a * x * q.v[1] + q.v[0].sin()
}

/// The inner struct passed on to a differentiable function.
#[differentiable]
fn outer_with_inner(p: &Outer, x: f64) -> f64 {
    inner_part(&p.inner, x) + p.w[0] * p.w[p.n - 1]
}

/// A struct taken by value (`p: Outer`), at order 2.
#[differentiable(order = 2)]
fn outer_by_value(p: Outer, x: f64) -> f64 {
    p.w[0] * x * p.w[p.n - 1] + (p.w[1] * x).exp()
}

#[differentiable(order = 2)]
fn generic_struct<T: Float>(p: &Gen<T>, x: T) -> T {
    p.a * x * x + p.w[0] * (x * p.w[1]).sin()
}

impl Outer {
    /// `wrt(self, x)`: the gradient is `(Self, f64)`.
    #[differentiable(wrt(self, x), order = 2)]
    fn both(&self, x: f64) -> f64 {
        self.w[0] * x * x + self.w[1].powi(3)
    }
}

fn outer_of(flat: &[f64]) -> Outer {
    Outer {
        inner: Inner {
            a: flat[0],
            v: [flat[1], flat[2]],
        },
        w: flat[3..5].to_vec(),
        n: 2,
    }
}

#[test]
fn nested_by_value_and_generic_structs() {
    let _: fn(&Outer, f64) -> (f64, (Outer, f64)) = outer_with_inner_grad;
    let _: fn(Outer, f64) -> (f64, (Outer, f64)) = outer_by_value_grad;
    let _: fn(Outer, f64) -> (f64, (Outer, f64), Vec<Vec<f64>>) = outer_by_value_hessian;
    let _: fn(Outer, f64, (Outer, f64)) -> (f64, (Outer, f64), (Outer, f64)) = outer_by_value_hvp;
    let _: fn(&Gen<f64>, f64) -> (f64, (Gen<f64>, f64)) = generic_struct_grad::<f64>;
    let _: fn(&Gen<f64>, f64) -> (f64, (Gen<f64>, f64), Vec<Vec<f64>>) =
        generic_struct_hessian::<f64>;
    let _: fn(&Outer, f64) -> (f64, (Outer, f64)) = Outer::both_grad;
    let _: fn(&Outer, f64) -> (f64, (Outer, f64), Vec<Vec<f64>>) = Outer::both_hessian;
    // Flat: inner.a, inner.v[0], inner.v[1], w[0], w[1], x.
    let join = |(p, x): (Outer, f64)| {
        assert_eq!(p.n, 2, "the gradient copies #[no_grad] fields");
        let mut flat = p.to_flat();
        flat.push(x);
        flat
    };
    for at in [
        [0.3, -0.7, 0.5, 0.1, 0.9, -0.4],
        [-1.0, 0.4, 0.2, 0.8, -0.3, 0.5],
    ] {
        let (p, x) = (outer_of(&at), at[5]);
        let (v, g) = outer_with_inner_grad(&p, x);
        assert_eq!(v, outer_with_inner(&p, x), "outer_with_inner_grad: value");
        assert_fd_gradient(
            |q| outer_with_inner(&outer_of(q), q[5]),
            &at,
            &join(g),
            "outer_with_inner_grad",
        );

        let (v, g) = outer_by_value_grad(p.clone(), x);
        assert_eq!(
            v,
            outer_by_value(p.clone(), x),
            "outer_by_value_grad: value"
        );
        let g = join(g);
        assert_fd_gradient(
            |q| outer_by_value(outer_of(q), q[5]),
            &at,
            &g,
            "outer_by_value_grad",
        );
        let (_, gh, h) = outer_by_value_hessian(p.clone(), x);
        assert_all_close(&join(gh), &g, SAME_TOL, "outer_by_value_hessian: gradient");
        let flat_grad = |q: &[f64]| join(outer_by_value_grad(outer_of(q), q[5]).1);
        for j in 0..6 {
            let column = hessian_column(flat_grad, &at, j);
            assert_all_close(
                &h.iter().map(|r| r[j]).collect::<Vec<_>>(),
                &column,
                HESSIAN_FD_TOL,
                "outer_by_value_hessian",
            );
        }
        let (_, _, hv) = outer_by_value_hvp(p.clone(), x, (outer_of(&[1.0; 6]), 1.0));
        let expected: Vec<f64> = h.iter().map(|r| r.iter().sum()).collect();
        assert_all_close(&join(hv), &expected, SAME_TOL, "outer_by_value_hvp");

        let (_, g) = p.both_grad(x);
        assert_fd_gradient(
            |q| outer_of(q).both(q[5]),
            &at,
            &join(g),
            "Outer::both_grad with wrt(self, x)",
        );
        let (_, _, h) = p.both_hessian(x);
        let (w0, w1) = (p.w[0], p.w[1]);
        let mut expected = vec![vec![0.0; 6]; 6];
        expected[3][5] = 2.0 * x;
        expected[5][3] = 2.0 * x;
        expected[4][4] = 6.0 * w1;
        expected[5][5] = 2.0 * w0;
        for i in 0..6 {
            assert_all_close(&h[i], &expected[i], ANALYTIC_TOL, "Outer::both_hessian");
        }

        let gen = Gen {
            a: at[0],
            w: vec![at[1], at[2]],
        };
        let (_, (gg, gx)) = generic_struct_grad(&gen, x);
        let (a, w0, w1) = (gen.a, gen.w[0], gen.w[1]);
        let c = (x * w1).cos();
        assert_all_close(
            &[gg.to_flat(), vec![gx]].concat(),
            &[x * x, (x * w1).sin(), w0 * x * c, 2.0 * a * x + w0 * w1 * c],
            ANALYTIC_TOL,
            "generic_struct_grad",
        );
        let (_, _, h) = generic_struct_hessian(&gen, x);
        let s = (x * w1).sin();
        assert_close(
            h[3][3],
            2.0 * a - w0 * w1 * w1 * s,
            ANALYTIC_TOL,
            "generic_struct: H_xx",
        );
        assert_close(h[0][3], 2.0 * x, ANALYTIC_TOL, "generic_struct: H_ax");
        assert_close(h[1][2], x * c, ANALYTIC_TOL, "generic_struct: H_w0w1");
        assert_close(
            h[2][2],
            -w0 * x * x * s,
            ANALYTIC_TOL,
            "generic_struct: H_w1w1",
        );
    }
}

// ---------------------------------------------- several inputs: registered and custom, at order 2

/// `∂ atan2(y, x) = (x, -y) / (x² + y²)`.
#[gradient_of(libm::atan2)]
fn atan2_vjp(y: f64, x: f64, dy: f64) -> (f64, f64) {
    let r = x * x + y * y;
    (dy * x / r, -dy * y / r)
}

#[differentiable(order = 2)]
fn angle(y: f64, x: f64) -> f64 {
    libm::atan2(y, x) * x
}

/// A custom gradient of slices: the closure returns a `Vec` per slice.
#[custom_gradient]
fn weighted_dot(a: &[f64], b: &[f64]) -> (f64, impl Fn(f64) -> (Vec<f64>, Vec<f64>)) {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    let (a, b) = (a.to_vec(), b.to_vec());
    (s, move |dy| {
        let da = b.iter().map(|v| dy * v).collect();
        let db = a.iter().map(|v| dy * v).collect();
        (da, db)
    })
}

#[differentiable(order = 2)]
fn squared_dot(a: &[f64], b: &[f64]) -> f64 {
    let d = weighted_dot(a, b);
    d * d
}

#[test]
fn several_inputs_registered_and_custom_at_order_two() {
    let _: fn(f64, f64) -> (f64, (f64, f64), Vec<Vec<f64>>) = angle_hessian;
    for (y, x) in [(0.5f64, 1.2f64), (-0.8, 0.3)] {
        let r = x * x + y * y;
        let (v, (gy, gx)) = angle_grad(y, x);
        assert_eq!(v, angle(y, x), "angle_grad: value");
        assert_close(gy, x * x / r, ANALYTIC_TOL, "angle_grad: y");
        assert_close(gx, y.atan2(x) - x * y / r, ANALYTIC_TOL, "angle_grad: x");
        let (_, _, h) = angle_hessian(y, x);
        assert_close(
            h[0][0],
            -2.0 * x * x * y / (r * r),
            ANALYTIC_TOL,
            "angle: H_yy",
        );
        assert_close(
            h[0][1],
            2.0 * x / r - 2.0 * x * x * x / (r * r),
            ANALYTIC_TOL,
            "angle: H_yx",
        );
        assert_close(
            h[1][1],
            -2.0 * y / r + 2.0 * x * x * y / (r * r),
            ANALYTIC_TOL,
            "angle: H_xx",
        );
    }
    let _: fn(&[f64], &[f64]) -> (f64, (Vec<f64>, Vec<f64>)) = weighted_dot_grad;
    let _: fn(&[f64], &[f64]) -> (f64, (Vec<f64>, Vec<f64>), Vec<Vec<f64>>) = squared_dot_hessian;
    let (a, b) = ([0.5, -1.0, 2.0], [1.5, 0.25, -0.75]);
    let (_, (ga, gb)) = weighted_dot_grad(&a, &b);
    assert_eq!((ga, gb), (b.to_vec(), a.to_vec()), "weighted_dot_grad");
    // squared_dot = (a·b)²: H = 2 [b; a][b; a]ᵀ + 2 (a·b) [[0, I], [I, 0]].
    let d: f64 = a.iter().zip(&b).map(|(p, q)| p * q).sum();
    let u = [b.to_vec(), a.to_vec()].concat();
    let (v, _, h) = squared_dot_hessian(&a, &b);
    assert_eq!(v, squared_dot(&a, &b), "squared_dot_hessian: value");
    for i in 0..6 {
        for j in 0..6 {
            let cross = if (i + 3 == j) || (j + 3 == i) {
                2.0 * d
            } else {
                0.0
            };
            assert_close(
                h[i][j],
                2.0 * u[i] * u[j] + cross,
                ANALYTIC_TOL,
                &format!("squared_dot: H[{i}][{j}]"),
            );
        }
    }
}
