//! Parameter structs: `#[derive(Differentiable)]` and functions of such structs. Every gradient is checked
//! against central finite differences over the struct's flat view (`check_gradient_of`), against
//! gradients written by hand, and `_jvp` against the inner product of the gradient with the tangent.

// Differentiable bodies index their slices (`for i in 0..n`), as the hand-written derivatives beside them do.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::optim::{Adam, Lbfgs, Minimizer};
use autodiff::{check_gradient_of, differentiable, Differentiable, Dual, Float};
use common::*;
use proptest::prelude::*;

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Mlp {
    w1: Vec<f64>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
    #[no_grad]
    hidden: usize,
}

/// One hidden layer of `tanh` units, mean squared error; with `order = 2` (`mse_hvp`, `mse_hessian`).
#[differentiable(wrt(p), order = 2)]
fn mse(p: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for n in 0..xs.len() {
        let mut out = p.b2;
        for j in 0..p.hidden {
            let h = (p.w1[j] * xs[n] + p.b1[j]).tanh();
            out += p.w2[j] * h;
        }
        let e = out - ys[n];
        loss += e * e;
    }
    loss / xs.len() as f64
}

/// The gradient of `mse`, by hand.
#[allow(clippy::needless_range_loop)] // indexes four arrays in step
fn mse_by_hand(p: &Mlp, xs: &[f64], ys: &[f64]) -> Mlp {
    let mut g = p.zero_like();
    let m = xs.len() as f64;
    for (&x, &y) in xs.iter().zip(ys) {
        let hs: Vec<f64> = (0..p.hidden)
            .map(|j| (p.w1[j] * x + p.b1[j]).tanh())
            .collect();
        let out = p.b2 + (0..p.hidden).map(|j| p.w2[j] * hs[j]).sum::<f64>();
        let d_out = 2.0 * (out - y) / m;
        g.b2 += d_out;
        for j in 0..p.hidden {
            g.w2[j] += d_out * hs[j];
            let d_pre = d_out * p.w2[j] * (1.0 - hs[j] * hs[j]);
            g.w1[j] += d_pre * x;
            g.b1[j] += d_pre;
        }
    }
    g
}

/// A struct passed on whole to another differentiable function, and a field read beside it.
#[differentiable]
fn regularised(p: &Mlp, lambda: f64) -> f64 {
    let fit = mse(p, &[0.5, -1.0, 2.0], &[0.2, 0.3, -0.4]);
    fit + lambda * (p.b2 * p.b2 + p.w2[0] * p.w2[0])
}

/// A struct taken by value, with a fixed-size array field, a scalar field read twice, and a float
/// parameter beside it.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Spring {
    k: f64,
    anchor: [f64; 2],
    #[no_grad]
    damping: f64,
}

#[differentiable(order = 2)]
fn spring_energy(s: Spring, x: f64) -> f64 {
    let dx = x - s.anchor[0];
    let dy = s.anchor[1] * s.damping;
    0.5 * s.k * (dx * dx + dy * dy) + s.k.sin()
}

/// A generic struct: `T: Float` fields, run at `f64`, `f32` and on dual numbers.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Affine<T: Float> {
    scale: T,
    shift: Vec<T>,
}

#[differentiable(order = 2)]
fn affine<T: Float>(a: &Affine<T>, x: T) -> T {
    let mut s = T::zero();
    for i in 0..a.shift.len() {
        s = s + (a.scale * x + a.shift[i]).exp();
    }
    s
}

/// Nested structs: a field that is itself a differentiable struct, passed on whole.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Model {
    layer: Mlp,
    temperature: f64,
}

#[differentiable]
fn tempered(m: &Model, x: f64) -> f64 {
    let fit = mse(&m.layer, &[x], &[1.0]);
    fit / m.temperature
}

/// A struct nested in another whose fields the body reads (`p.neuron.a`, `p.neuron.w[i]`): the gradient is a
/// `Tissue` with the `Neuron` gradient filled in.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Neuron {
    a: f64,
    w: [f64; 2],
    #[no_grad]
    n: usize,
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Tissue {
    neuron: Neuron,
    c: f64,
    /// Read through (`p.reference.a`): a constant, however differentiable its type.
    #[no_grad]
    reference: Neuron,
}

/// `(a x + c Σ_{i<n} w_i)² + a sin(reference.a) + reference.w[1]`.
#[differentiable]
fn tissue(p: &Tissue, x: f64) -> f64 {
    let mut s = p.neuron.a * x;
    for i in 0..p.neuron.n {
        s += p.c * p.neuron.w[i];
    }
    s * s + p.neuron.a * p.reference.a.sin() + p.reference.w[1]
}

/// `(a x + c Σ_{i<n} w_i)² + sin(a w_1)` at `order = 2`: through the values view.
#[differentiable(order = 2)]
fn tissue_curved(p: &Tissue, x: f64) -> f64 {
    let mut s = p.neuron.a * x;
    for i in 0..p.neuron.n {
        s += p.c * p.neuron.w[i];
    }
    s * s + (p.neuron.a * p.neuron.w[1]).sin()
}

impl Tissue {
    /// `tissue_curved` as a method differentiated in `self`, the neuron read through `self.neuron`.
    #[differentiable(wrt(self), order = 2)]
    fn curved(&self, x: f64) -> f64 {
        let mut s = self.neuron.a * x;
        for i in 0..self.neuron.n {
            s += self.c * self.neuron.w[i];
        }
        s * s + (self.neuron.a * self.neuron.w[1]).sin()
    }
}

/// The gradient of `tissue_curved` over `(neuron.a, neuron.w[0], neuron.w[1], c)` and `x`, by hand.
fn tissue_curved_by_hand(p: &Tissue, x: f64) -> ([f64; 4], f64) {
    let (a, w, c) = (p.neuron.a, p.neuron.w, p.c);
    let s = a * x + c * (w[0] + w[1]);
    let k = (a * w[1]).cos();
    (
        [
            2.0 * s * x + w[1] * k,
            2.0 * s * c,
            2.0 * s * c + a * k,
            2.0 * s * (w[0] + w[1]),
        ],
        2.0 * s * a,
    )
}

/// A generic struct nested in another: `order = 2` through the hidden function of the fields.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Stacked<T: Float> {
    first: Affine<T>,
    weight: T,
}

/// `weight x exp(scale) + shift[0] shift[1]`.
#[differentiable(order = 2)]
fn stacked<T: Float>(p: &Stacked<T>, x: T) -> T {
    p.weight * x * p.first.scale.exp() + p.first.shift[0] * p.first.shift[1]
}

fn mlp(seed: &[f64]) -> Mlp {
    Mlp {
        w1: seed[0..3].to_vec(),
        b1: seed[3..6].to_vec(),
        w2: seed[6..9].to_vec(),
        b2: seed[9],
        hidden: 3,
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mse_gradient_matches_hand_and_differences(seed in prop::collection::vec(-1.5..1.5f64, 10)) {
        let p = mlp(&seed);
        let (xs, ys) = ([0.3, -0.7, 1.1, 2.0], [0.5, -0.2, 0.1, 0.9]);
        let (value, grad) = mse_grad(&p, &xs, &ys);
        assert_close(value, mse(&p, &xs, &ys), ANALYTIC_TOL, "value");
        // The no_grad field is copied from the primal.
        prop_assert_eq!(grad.hidden, 3);
        assert_all_close(&grad.to_flat(), &mse_by_hand(&p, &xs, &ys).to_flat(), ANALYTIC_TOL, "mse gradient");
        let check = check_gradient_of(|q: &Mlp| mse(q, &xs, &ys), &p, &grad);
        prop_assert!(check.is_ok(FD_TOL), "{}", check);
        // Forward mode: the tangent in direction `t` is the inner product of the gradient with `t`.
        let t = p.from_flat(&seed.iter().rev().copied().collect::<Vec<_>>());
        let (_, tangent) = mse_jvp(&p, &xs, &ys, t.clone());
        assert_close(tangent, dot(&grad.to_flat(), &t.to_flat()), ANALYTIC_TOL, "mse tangent");
        // `_vjp` scales by the cotangent.
        let (_, scaled) = mse_vjp(&p, &xs, &ys, COTANGENT);
        let mut expected = grad.clone();
        expected.scale(COTANGENT);
        assert_all_close(&scaled.to_flat(), &expected.to_flat(), ANALYTIC_TOL, "mse vjp");
    }

    #[test]
    fn a_struct_passed_to_a_call_gets_the_callee_gradient(seed in prop::collection::vec(-1.5..1.5f64, 10), lambda in 0.0..2.0f64) {
        let p = mlp(&seed);
        let (_, (grad, d_lambda)) = regularised_grad(&p, lambda);
        let mut expected = mse_by_hand(&p, &[0.5, -1.0, 2.0], &[0.2, 0.3, -0.4]);
        expected.b2 += 2.0 * lambda * p.b2;
        expected.w2[0] += 2.0 * lambda * p.w2[0];
        assert_all_close(&grad.to_flat(), &expected.to_flat(), ANALYTIC_TOL, "regularised gradient");
        assert_close(d_lambda, p.b2 * p.b2 + p.w2[0] * p.w2[0], ANALYTIC_TOL, "d lambda");
        let check = check_gradient_of(|q: &Mlp| regularised(q, lambda), &p, &grad);
        prop_assert!(check.is_ok(FD_TOL), "{}", check);
        let t = p.from_flat(&seed.iter().map(|v| v.sin()).collect::<Vec<_>>());
        let (_, tangent) = regularised_jvp(&p, lambda, (t.clone(), 0.5));
        assert_close(tangent, dot(&grad.to_flat(), &t.to_flat()) + 0.5 * d_lambda, ANALYTIC_TOL, "regularised tangent");
    }

    #[test]
    fn a_struct_by_value_with_an_array_and_a_no_grad_float(k in 0.1..3.0f64, a0 in -2.0..2.0f64, a1 in -2.0..2.0f64, damping in 0.1..2.0f64, x in -3.0..3.0f64) {
        let s = Spring { k, anchor: [a0, a1], damping };
        let (value, (grad, dx)) = spring_energy_grad(s.clone(), x);
        assert_close(value, spring_energy(s.clone(), x), ANALYTIC_TOL, "value");
        let (ex, ey) = (x - a0, a1 * damping);
        assert_close(grad.k, 0.5 * (ex * ex + ey * ey) + k.cos(), ANALYTIC_TOL, "d k");
        assert_close(grad.anchor[0], -k * ex, ANALYTIC_TOL, "d anchor 0");
        assert_close(grad.anchor[1], k * ey * damping, ANALYTIC_TOL, "d anchor 1");
        // `damping` is `#[no_grad]`: copied, although the body multiplies by it.
        prop_assert_eq!(grad.damping, damping);
        assert_close(dx, k * ex, ANALYTIC_TOL, "d x");
        let check = check_gradient_of(|q: &Spring| spring_energy(q.clone(), x), &s, &grad);
        prop_assert!(check.is_ok(FD_TOL), "{}", check);
        // A tangent whose no_grad field is not zero: that field still contributes nothing.
        let t = Spring { k: 0.3, anchor: [-0.2, 0.7], damping: 5.0 };
        let (_, tangent) = spring_energy_jvp(s, x, (t.clone(), 0.4));
        assert_close(tangent, dot(&grad.to_flat(), &t.to_flat()) + 0.4 * dx, ANALYTIC_TOL, "spring tangent");
    }

    #[test]
    fn generic_structs_on_f64_f32_and_duals(scale in -1.0..1.0f64, s0 in -1.0..1.0f64, s1 in -1.0..1.0f64, x in -1.0..1.0f64) {
        let a = Affine { scale, shift: vec![s0, s1] };
        let (value, (grad, dx)) = affine_grad(&a, x);
        let e = [(scale * x + s0).exp(), (scale * x + s1).exp()];
        assert_close(value, affine(&a, x), ANALYTIC_TOL, "value");
        assert_close(grad.scale, x * (e[0] + e[1]), ANALYTIC_TOL, "d scale");
        assert_all_close(&grad.shift, &e, ANALYTIC_TOL, "d shift");
        assert_close(dx, scale * (e[0] + e[1]), ANALYTIC_TOL, "d x");
        let a32 = Affine { scale: scale as f32, shift: vec![s0 as f32, s1 as f32] };
        let (_, (g32, _)) = affine_grad(&a32, x as f32);
        assert_close(g32.scale as f64, grad.scale, ANALYTIC_TOL_F32, "f32 d scale");
        // On duals, the tangent part of the gradient is a Hessian-vector product: d/dx of d/dscale.
        let ad = Affine { scale: Dual::constant(scale), shift: vec![Dual::constant(s0), Dual::constant(s1)] };
        let (_, (gd, _)) = affine_grad(&ad, Dual::new(x, 1.0));
        let second = central_difference(|x| affine_grad(&a, x).1 .0.scale, x);
        assert_close(gd.scale.eps, second, 1e-6, "d/dx d/dscale");
    }

    #[test]
    fn a_nested_struct_field_passed_on_whole(seed in prop::collection::vec(-1.5..1.5f64, 10), temperature in 0.5..2.0f64, x in -1.0..1.0f64) {
        let m = Model { layer: mlp(&seed), temperature };
        let (_, (grad, dx)) = tempered_grad(&m, x);
        let mut layer = mse_by_hand(&m.layer, &[x], &[1.0]);
        layer.scale(1.0 / temperature);
        assert_all_close(&grad.layer.to_flat(), &layer.to_flat(), ANALYTIC_TOL, "layer gradient");
        assert_close(grad.temperature, -mse(&m.layer, &[x], &[1.0]) / (temperature * temperature), ANALYTIC_TOL, "d temperature");
        let check = check_gradient_of(|q: &Model| tempered(q, x), &m, &grad);
        prop_assert!(check.is_ok(FD_TOL), "{}", check);
        assert_close(dx, central_difference(|x| tempered(&m, x), x), 1e-6, "d x");
        let t = m.from_flat(&(0..11).map(|i| (i as f64).cos()).collect::<Vec<_>>());
        let (_, tangent) = tempered_jvp(&m, x, (t.clone(), 0.0));
        assert_close(tangent, dot(&grad.to_flat(), &t.to_flat()), ANALYTIC_TOL, "tempered tangent");
    }
}

// Fields of a nested struct read in the body (`p.neuron.a`, `p.neuron.w[i]`, `self.neuron.a`).
proptest! {
    #![proptest_config(config())]

    #[test]
    fn fields_of_a_nested_struct(a in -1.5..1.5f64, w0 in -1.5..1.5f64, w1 in -1.5..1.5f64, c in -1.5..1.5f64, r in -1.5..1.5f64, x in -1.5..1.5f64) {
        let p = Tissue {
            neuron: Neuron { a, w: [w0, w1], n: 2 },
            c,
            reference: Neuron { a: r, w: [0.5, r * r], n: 7 },
        };
        let (value, (grad, dx)) = tissue_grad(&p, x);
        assert_close(value, tissue(&p, x), ANALYTIC_TOL, "value");
        let s = a * x + c * (w0 + w1);
        assert_close(grad.neuron.a, 2.0 * s * x + r.sin(), ANALYTIC_TOL, "d neuron.a");
        assert_all_close(&grad.neuron.w, &[2.0 * s * c, 2.0 * s * c], ANALYTIC_TOL, "d neuron.w");
        assert_close(grad.c, 2.0 * s * (w0 + w1), ANALYTIC_TOL, "d c");
        assert_close(dx, 2.0 * s * a, ANALYTIC_TOL, "d x");
        // The `#[no_grad]` fields, nested ones too, are copied from the value.
        prop_assert_eq!(grad.neuron.n, 2);
        prop_assert_eq!(&grad.reference, &p.reference);
        let check = check_gradient_of(|q: &Tissue| tissue(q, x), &p, &grad);
        prop_assert!(check.is_ok(FD_TOL), "{}", check);
        // A tangent with non-zero `#[no_grad]` parts: they contribute nothing.
        let t = Tissue {
            neuron: Neuron { a: 0.3, w: [-0.6, 0.2], n: 2 },
            c: 0.7,
            reference: Neuron { a: 5.0, w: [4.0, -3.0], n: 2 },
        };
        let (_, tangent) = tissue_jvp(&p, x, (t.clone(), -0.4));
        assert_close(tangent, dot(&grad.to_flat(), &t.to_flat()) - 0.4 * dx, ANALYTIC_TOL, "tangent");
        let (_, scaled) = tissue_vjp(&p, x, COTANGENT);
        let expected: Vec<f64> = grad.to_flat().iter().map(|g| g * COTANGENT).collect();
        assert_all_close(&scaled.0.to_flat(), &expected, ANALYTIC_TOL, "vjp");
    }

    #[test]
    fn second_derivatives_through_a_nested_struct(a in -1.5..1.5f64, w0 in -1.5..1.5f64, w1 in -1.5..1.5f64, c in -1.5..1.5f64, x in -1.5..1.5f64) {
        let p = Tissue {
            neuron: Neuron { a, w: [w0, w1], n: 2 },
            c,
            reference: Neuron { a: 0.1, w: [0.2, 0.3], n: 2 },
        };
        let (hand, dx_hand) = tissue_curved_by_hand(&p, x);
        let (value, (grad, dx), h) = tissue_curved_hessian(&p, x);
        assert_close(value, tissue_curved(&p, x), ANALYTIC_TOL, "value");
        assert_all_close(&grad.to_flat(), &hand, ANALYTIC_TOL, "gradient");
        assert_close(dx, dx_hand, ANALYTIC_TOL, "d x");
        // Over (neuron.a, neuron.w[0], neuron.w[1], c, x): columns by central differences of the hand gradient.
        let gradient_at = |flat: &[f64]| {
            let (g, dx) = tissue_curved_by_hand(&p.from_flat(&flat[..4]), flat[4]);
            [g.to_vec(), vec![dx]].concat()
        };
        let at = [a, w0, w1, c, x];
        for i in 0..5 {
            let column: Vec<f64> = h.iter().map(|row| row[i]).collect();
            assert_all_close(&column, &hessian_column(gradient_at, &at, i), 1e-6, &format!("column {i}"));
        }
        let t = Tissue { neuron: Neuron { a: 0.3, w: [-0.6, 0.2], n: 9 }, c: 0.7, reference: p.reference.clone() };
        let (_, _, (product, product_x)) = tissue_curved_hvp(&p, x, (t.clone(), 0.5));
        let direction = [t.to_flat(), vec![0.5]].concat();
        let expected: Vec<f64> = h.iter().map(|row| dot(row, &direction)).collect();
        assert_all_close(&[product.to_flat(), vec![product_x]].concat(), &expected, 1e-9, "H v");
        prop_assert_eq!(product.neuron.n, 2);

        // The method, differentiated in `self` only.
        let (value, grad, h) = p.curved_hessian(x);
        assert_close(value, p.curved(x), ANALYTIC_TOL, "method value");
        assert_all_close(&grad.to_flat(), &hand, ANALYTIC_TOL, "method gradient");
        let self_at = |flat: &[f64]| tissue_curved_by_hand(&p.from_flat(flat), x).0.to_vec();
        for i in 0..4 {
            let column: Vec<f64> = h.iter().map(|row| row[i]).collect();
            assert_all_close(&column, &hessian_column(self_at, &at[..4], i), 1e-6, &format!("method column {i}"));
        }

        // A generic nested struct, on f64 and f32.
        let q = Stacked { first: Affine { scale: a, shift: vec![w0, w1] }, weight: c };
        let (value, (g, gx), h) = stacked_hessian(&q, x);
        assert_close(value, stacked(&q, x), ANALYTIC_TOL, "stacked value");
        let e = a.exp();
        assert_all_close(&g.to_flat(), &[c * x * e, w1, w0, x * e], ANALYTIC_TOL, "stacked gradient");
        assert_close(gx, c * e, ANALYTIC_TOL, "stacked d x");
        // Over (scale, shift[0], shift[1], weight, x).
        let hand = [
            [c * x * e, 0.0, 0.0, x * e, c * e],
            [0.0, 0.0, 1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0, 0.0],
            [x * e, 0.0, 0.0, 0.0, e],
            [c * e, 0.0, 0.0, e, 0.0],
        ];
        for (row, expected) in h.iter().zip(&hand) {
            assert_all_close(row, expected, ANALYTIC_TOL, "stacked Hessian");
        }
        let q32 = Stacked { first: Affine { scale: a as f32, shift: vec![w0 as f32, w1 as f32] }, weight: c as f32 };
        let (_, _, h32) = stacked_hessian(&q32, x as f32);
        assert_close(f64::from(h32[0][4]), hand[0][4], ANALYTIC_TOL_F32, "f32 stacked d scale d x");
    }
}

// `order = 2` on functions of parameter structs: the Hessian runs over the structs' flat views
// (`to_flat`, `#[no_grad]` fields left out) and the other active inputs, in declaration order.
proptest! {
    #![proptest_config(config())]

    #[test]
    fn mse_hessian_is_the_jacobian_of_the_hand_gradient(seed in prop::collection::vec(-1.5..1.5f64, 10), v in prop::collection::vec(-1.0..1.0f64, 10)) {
        let p = mlp(&seed);
        let (xs, ys) = ([0.3, -0.7, 1.1, 2.0], [0.5, -0.2, 0.1, 0.9]);
        let (value, grad, hessian) = mse_hessian(&p, &xs, &ys);
        assert_close(value, mse(&p, &xs, &ys), ANALYTIC_TOL, "value");
        assert_all_close(&grad.to_flat(), &mse_by_hand(&p, &xs, &ys).to_flat(), ANALYTIC_TOL, "gradient");
        prop_assert_eq!(hessian.len(), 10);
        let hand = |flat: &[f64]| mse_by_hand(&p.from_flat(flat), &xs, &ys).to_flat();
        for i in 0..10 {
            let column: Vec<f64> = hessian.iter().map(|row| row[i]).collect();
            assert_all_close(&column, &hessian_column(hand, &seed, i), 1e-6, &format!("Hessian column {i}"));
            for (j, row) in hessian.iter().enumerate() {
                assert_close(hessian[i][j], row[i], 1e-9, "symmetry");
            }
        }
        // `mse_hvp` in a direction whose no_grad field is not the primal's: H v, structs in and out.
        let mut direction = p.from_flat(&v);
        direction.hidden = 7;
        let (hvp_value, hvp_grad, product) = mse_hvp(&p, &xs, &ys, direction);
        prop_assert_eq!(hvp_value, value);
        assert_all_close(&hvp_grad.to_flat(), &grad.to_flat(), ANALYTIC_TOL, "hvp gradient");
        prop_assert_eq!(product.hidden, 3);
        let expected: Vec<f64> = hessian.iter().map(|row| dot(row, &v)).collect();
        assert_all_close(&product.to_flat(), &expected, 1e-9, "H v");
    }

    #[test]
    fn spring_hessian_by_hand(k in 0.1..3.0f64, a0 in -2.0..2.0f64, a1 in -2.0..2.0f64, damping in 0.1..2.0f64, x in -3.0..3.0f64) {
        let s = Spring { k, anchor: [a0, a1], damping };
        let (_, _, h) = spring_energy_hessian(s.clone(), x);
        // Over (k, anchor[0], anchor[1], x); `damping` is #[no_grad].
        let (ex, ey) = (x - a0, a1 * damping);
        let hand = [
            [-k.sin(), -ex, ey * damping, ex],
            [-ex, k, 0.0, -k],
            [ey * damping, 0.0, k * damping * damping, 0.0],
            [ex, -k, 0.0, k],
        ];
        for (row, expected) in h.iter().zip(&hand) {
            assert_all_close(row, expected, ANALYTIC_TOL, "spring Hessian");
        }
        let grad = |flat: &[f64]| {
            let (_, (g, dx)) = spring_energy_grad(s.from_flat(&flat[..3]), flat[3]);
            [g.to_flat(), vec![dx]].concat()
        };
        for i in 0..4 {
            let column: Vec<f64> = h.iter().map(|row| row[i]).collect();
            assert_all_close(&column, &hessian_column(grad, &[k, a0, a1, x], i), 1e-6, "spring column");
        }
    }

    #[test]
    fn generic_struct_hessian(scale in -1.0..1.0f64, s0 in -1.0..1.0f64, s1 in -1.0..1.0f64, x in -1.0..1.0f64) {
        let a = Affine { scale, shift: vec![s0, s1] };
        let (_, _, h) = affine_hessian(&a, x);
        // Over (scale, shift[0], shift[1], x), f = Σ exp(scale x + shift[i]).
        let e = [(scale * x + s0).exp(), (scale * x + s1).exp()];
        let sum = e[0] + e[1];
        let hand = [
            [x * x * sum, x * e[0], x * e[1], sum + x * scale * sum],
            [x * e[0], e[0], 0.0, scale * e[0]],
            [x * e[1], 0.0, e[1], scale * e[1]],
            [sum + x * scale * sum, scale * e[0], scale * e[1], scale * scale * sum],
        ];
        for (row, expected) in h.iter().zip(&hand) {
            assert_all_close(row, expected, ANALYTIC_TOL, "affine Hessian");
        }
        let a32 = Affine { scale: scale as f32, shift: vec![s0 as f32, s1 as f32] };
        let (_, _, h32) = affine_hessian(&a32, x as f32);
        assert_close(f64::from(h32[0][3]), hand[0][3], ANALYTIC_TOL_F32, "f32 d scale d x");
    }
}

#[test]
fn the_derived_trait_works_over_the_differentiable_fields() {
    let p = mlp(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]);
    assert_eq!(p.to_flat(), (1..=10).map(f64::from).collect::<Vec<_>>());
    let zero = p.zero_like();
    assert_eq!(zero.to_flat(), vec![0.0; 10]);
    assert_eq!(zero.hidden, 3);
    let mut twice = p.clone();
    twice.add_assign(&p);
    twice.scale(0.5);
    assert_eq!(twice, p);
    let back = zero.from_flat(&p.to_flat());
    assert_eq!(back, p);
    let m = Model {
        layer: p.clone(),
        temperature: 2.0,
    };
    assert_eq!(m.to_flat().len(), 11);
    assert_eq!(m.to_flat()[10], 2.0);
}

#[test]
fn optimisers_train_a_struct() {
    let xs: Vec<f64> = (0..16).map(|i| -1.0 + i as f64 / 8.0).collect();
    let ys: Vec<f64> = xs.iter().map(|x| (2.0 * x).sin() * 0.5).collect();
    let p0 = mlp(&[0.5, -0.4, 0.3, 0.0, 0.1, -0.1, 0.2, -0.3, 0.4, 0.0]);
    let start = mse(&p0, &xs, &ys);
    let (p, minimum) = Lbfgs::default().minimize_params(|q: &Mlp| mse_grad(q, &xs, &ys), &p0);
    assert_eq!(p.hidden, 3);
    assert!(minimum.value < start / 10.0, "{start} -> {}", minimum.value);
    assert_close(
        mse(&p, &xs, &ys),
        minimum.value,
        ANALYTIC_TOL,
        "value at the minimum",
    );
    let adam = Adam {
        learning_rate: 0.05,
        max_iterations: 300,
        ..Adam::default()
    };
    let (_, minimum) = adam.minimize_params(|q: &Mlp| mse_grad(q, &xs, &ys), &p0);
    assert!(minimum.value < start / 2.0, "{start} -> {}", minimum.value);
}

/// A `#[no_grad]` flag read as a condition (`if p.on`, `!p.on`, `while` over it) at `order = 2`: its
/// hidden function takes it as the `bool` it is (was rustc's "expected `bool`, found `f64`" in generated
/// code: the flag was read as a float of the struct's values).
#[derive(Clone, Debug, Differentiable)]
struct Switched {
    w: Vec<f64>,
    k: f64,
    #[no_grad]
    on: bool,
}

#[differentiable(order = 2)]
fn switched(p: &Switched, x: f64) -> f64 {
    let mut s = p.w[0] * x + p.w[1] * x * x;
    if p.on {
        s *= p.k;
    }
    if !p.on && x > 0.0 {
        s += p.k * p.k;
    }
    let mut left = p.on;
    while left {
        s += p.w[1] * p.k;
        left = false;
    }
    s
}

fn switched_by_hand(p: &Switched, x: f64) -> f64 {
    let s = p.w[0] * x + p.w[1] * x * x;
    match (p.on, x > 0.0) {
        (true, _) => s * p.k + p.w[1] * p.k,
        (false, true) => s + p.k * p.k,
        (false, false) => s,
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_flag_read_as_a_condition_at_second_order(
        w in prop::array::uniform2(moderate()),
        k in moderate(),
        x in nonzero(),
        on in any::<bool>(),
    ) {
        let p = Switched { w: w.to_vec(), k, on };
        let (value, (g, gx), hessian) = switched_hessian(&p, x);
        prop_assert_eq!(value, switched(&p, x));
        assert_close(value, switched_by_hand(&p, x), 1e-12, "value by hand");
        // The flat inputs: w[0], w[1], k, x.
        let flat = |v: &[f64]| {
            let q = Switched { w: vec![v[0], v[1]], k: v[2], on };
            switched_by_hand(&q, v[3])
        };
        let at = [w[0], w[1], k, x];
        assert_fd_gradient(flat, &at, &[g.w[0], g.w[1], g.k, gx], "gradient");
        let grad = |v: &[f64]| {
            let q = Switched { w: vec![v[0], v[1]], k: v[2], on };
            let (_, (g, gx)) = switched_grad(&q, v[3]);
            vec![g.w[0], g.w[1], g.k, gx]
        };
        assert_jacobian(&hessian, &fd_jacobian(grad, &at), "Hessian");
    }
}

/// Fields passed on whole to functions of a matrix, a nested array, a slice and an array: a
/// `Vec<Vec<f64>>`, a `[[f64; 3]; 2]`, a `Vec<f64>` and a `[f64; 2]`, each by reference (`layer(&self.w,
/// x)`). Each gets the callee's gradient in its place in the struct's (was rustc's missing `__layer_whole`:
/// the hidden function that `order = K` callers reach took every field passed on whole for a struct).
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Net {
    w: Vec<Vec<f64>>,
    m: [[f64; 3]; 2],
    v: Vec<f64>,
    a: [f64; 2],
    b: f64,
    #[no_grad]
    n: usize,
}

/// `Σ_i Σ_j tanh(w_ij x_j)`.
#[differentiable]
fn layer(w: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        for j in 0..x.len() {
            s += (w[i][j] * x[j]).tanh();
        }
    }
    s
}

/// `Σ_i Σ_j m_ij² x_j`.
#[differentiable]
fn grid(m: &[[f64; 3]; 2], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        for j in 0..3 {
            s += m[i][j] * m[i][j] * x[j];
        }
    }
    s
}

/// `Σ v_i²`.
#[differentiable]
fn sum_of_squares(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i];
    }
    s
}

/// `a_0 a_1`.
#[differentiable]
fn pair_product(a: &[f64; 2]) -> f64 {
    a[0] * a[1]
}

impl Net {
    /// `layer(w, x) + b`.
    #[differentiable(wrt(self))]
    fn out(&self, x: &[f64]) -> f64 {
        layer(&self.w, x) + self.b
    }

    /// `layer(w, x) b`, differentiated in `x` too.
    #[differentiable(wrt(self, x))]
    fn out_in_both(&self, x: &[f64]) -> f64 {
        layer(&self.w, x) * self.b
    }

    /// `grid(m, x) + n b`.
    #[differentiable(wrt(self))]
    fn on_grid(&self, x: &[f64]) -> f64 {
        grid(&self.m, x) + self.b * self.n as f64
    }
}

/// Every field passed on whole, in a free function.
#[differentiable(wrt(p))]
fn net_loss(p: &Net, x: &[f64]) -> f64 {
    layer(&p.w, x) + p.b * grid(&p.m, x) + sum_of_squares(&p.v) * pair_product(&p.a)
}

fn net(seed: &[f64]) -> Net {
    Net {
        w: vec![seed[0..3].to_vec(), seed[3..6].to_vec()],
        m: [[seed[6], seed[7], seed[8]], [seed[9], seed[10], seed[11]]],
        v: seed[12..15].to_vec(),
        a: [seed[15], seed[16]],
        b: seed[17],
        n: 3,
    }
}

/// The gradient of `layer(w, x)` in `w`, by hand: `x_j (1 - tanh²(w_ij x_j))`.
fn layer_gradient_by_hand(w: &[Vec<f64>], x: &[f64]) -> Vec<Vec<f64>> {
    w.iter()
        .map(|row| {
            row.iter()
                .zip(x)
                .map(|(w, x)| x * (1.0 - (w * x).tanh().powi(2)))
                .collect()
        })
        .collect()
}

/// Checks a struct gradient `grad` of `f` at `p` against central differences over the flat view, `vjp`'s
/// product against `COTANGENT` times it, `jvp`'s tangent along `t` against the inner product, and
/// `grad_into`'s buffer (filled with garbage first) against it.
fn assert_struct_items(
    p: &Net,
    f: impl Fn(&Net) -> f64,
    grad: &Net,
    vjp: &Net,
    jvp: impl Fn(Net) -> f64,
    grad_into: impl Fn(&mut Net) -> f64,
    what: &str,
) {
    let check = check_gradient_of(&f, p, grad);
    assert!(check.is_ok(FD_TOL), "{what} at {p:?}: {check}");
    assert_eq!(
        grad.n, p.n,
        "{what}: the no_grad field is copied from the primal"
    );
    let scaled: Vec<f64> = grad.to_flat().iter().map(|g| COTANGENT * g).collect();
    assert_all_close(
        &vjp.to_flat(),
        &scaled,
        ANALYTIC_TOL,
        &format!("{what} vjp"),
    );
    let flat = p.to_flat();
    let t = p.from_flat(&flat.iter().map(|v| (3.0 * v).sin()).collect::<Vec<_>>());
    assert_dot(
        jvp(t.clone()),
        &grad.to_flat(),
        &t.to_flat(),
        1e-12,
        &format!("{what} jvp"),
    );
    let mut buffer = p.from_flat(&vec![f64::NAN; flat.len()]);
    let value = grad_into(&mut buffer);
    assert_close(
        value,
        f(p),
        ANALYTIC_TOL,
        &format!("{what} grad_into value"),
    );
    assert_all_close(
        &buffer.to_flat(),
        &grad.to_flat(),
        ANALYTIC_TOL,
        &format!("{what} grad_into"),
    );
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn matrix_array_and_slice_fields_passed_on_whole(
        seed in prop::collection::vec(-1.5..1.5f64, 18),
        x in prop::collection::vec(-1.5..1.5f64, 3),
    ) {
        let p = net(&seed);

        let (value, grad) = p.out_grad(&x);
        assert_close(value, p.out(&x), ANALYTIC_TOL, "out value");
        let mut hand = p.zero_like();
        hand.w = layer_gradient_by_hand(&p.w, &x);
        hand.b = 1.0;
        assert_all_close(&grad.to_flat(), &hand.to_flat(), ANALYTIC_TOL, "out gradient by hand");
        let (_, vjp) = p.out_vjp(&x, COTANGENT);
        assert_struct_items(
            &p,
            |q| q.out(&x),
            &grad,
            &vjp,
            |t| p.out_jvp(&x, t).1,
            |g| p.out_grad_into(&x, g),
            "out",
        );

        let (value, (grad, grad_x)) = p.out_in_both_grad(&x);
        assert_close(value, p.out_in_both(&x), ANALYTIC_TOL, "out_in_both value");
        let check = check_gradient_of(|q: &Net| q.out_in_both(&x), &p, &grad);
        prop_assert!(check.is_ok(FD_TOL), "out_in_both in self: {}", check);
        assert_fd_gradient(|y| p.out_in_both(y), &x, &grad_x, "out_in_both in x");
        let (_, (vjp, vjp_x)) = p.out_in_both_vjp(&x, COTANGENT);
        let scaled: Vec<f64> = grad.to_flat().iter().map(|g| COTANGENT * g).collect();
        assert_all_close(&vjp.to_flat(), &scaled, ANALYTIC_TOL, "out_in_both vjp in self");
        let scaled_x: Vec<f64> = grad_x.iter().map(|g| COTANGENT * g).collect();
        assert_all_close(&vjp_x, &scaled_x, ANALYTIC_TOL, "out_in_both vjp in x");
        let t = p.from_flat(&seed.iter().map(|v| v.cos()).collect::<Vec<_>>());
        let tx = vec![0.5, -1.0, 0.25];
        let (_, tangent) = p.out_in_both_jvp(&x, (t.clone(), tx.clone()));
        let mut all_grad = grad.to_flat();
        all_grad.extend(&grad_x);
        let mut all_t = t.to_flat();
        all_t.extend(&tx);
        assert_dot(tangent, &all_grad, &all_t, 1e-12, "out_in_both jvp");
        let (mut g, mut gx) = (p.zero_like(), vec![f64::NAN; 3]);
        let value = p.out_in_both_grad_into(&x, (&mut g, &mut gx));
        assert_close(value, p.out_in_both(&x), ANALYTIC_TOL, "out_in_both grad_into value");
        assert_all_close(&g.to_flat(), &grad.to_flat(), ANALYTIC_TOL, "out_in_both grad_into in self");
        assert_all_close(&gx, &grad_x, ANALYTIC_TOL, "out_in_both grad_into in x");

        let (value, grad) = p.on_grid_grad(&x);
        assert_close(value, p.on_grid(&x), ANALYTIC_TOL, "on_grid value");
        let mut hand = p.zero_like();
        for i in 0..2 {
            for j in 0..3 {
                hand.m[i][j] = 2.0 * p.m[i][j] * x[j];
            }
        }
        hand.b = 3.0;
        assert_all_close(&grad.to_flat(), &hand.to_flat(), ANALYTIC_TOL, "on_grid gradient by hand");
        let (_, vjp) = p.on_grid_vjp(&x, COTANGENT);
        assert_struct_items(
            &p,
            |q| q.on_grid(&x),
            &grad,
            &vjp,
            |t| p.on_grid_jvp(&x, t).1,
            |g| p.on_grid_grad_into(&x, g),
            "on_grid",
        );

        let (value, grad) = net_loss_grad(&p, &x);
        assert_close(value, net_loss(&p, &x), ANALYTIC_TOL, "net_loss value");
        let mut hand = p.zero_like();
        hand.w = layer_gradient_by_hand(&p.w, &x);
        for i in 0..2 {
            for j in 0..3 {
                hand.m[i][j] = 2.0 * p.b * p.m[i][j] * x[j];
            }
        }
        let product = p.a[0] * p.a[1];
        hand.v = p.v.iter().map(|v| 2.0 * v * product).collect();
        let squares: f64 = p.v.iter().map(|v| v * v).sum();
        hand.a = [squares * p.a[1], squares * p.a[0]];
        hand.b = grid(&p.m, &x);
        assert_all_close(&grad.to_flat(), &hand.to_flat(), ANALYTIC_TOL, "net_loss gradient by hand");
        let (_, vjp) = net_loss_vjp(&p, &x, COTANGENT);
        assert_struct_items(
            &p,
            |q| net_loss(q, &x),
            &grad,
            &vjp,
            |t| net_loss_jvp(&p, &x, t).1,
            |g| net_loss_grad_into(&p, &x, g),
            "net_loss",
        );
    }
}

/// A `#[no_grad]` integer or flag field as a `match`'s scrutinee, with the struct differentiated (`wrt(p)`,
/// `wrt(self)`), at first order and `order = 2`: the field is a constant (it was taken for an active value
/// and the `match` rejected).
#[derive(Clone, Debug, Differentiable)]
struct Activation {
    a: f64,
    b: f64,
    #[no_grad]
    mode: usize,
    #[no_grad]
    shifted: bool,
}

#[differentiable(wrt(p, x))]
fn activate(p: &Activation, x: f64) -> f64 {
    let y = match p.mode {
        0 => (p.a * x).tanh(),
        1 | 2 => p.a * x.exp() - p.b,
        3..=5 => (p.b * x).sin() * p.a,
        _ => x,
    };
    let shift = match p.shifted {
        true => p.b,
        false => 0.0,
    };
    y * y + shift
}

impl Activation {
    #[differentiable(wrt(self, x), order = 2)]
    fn apply(&self, x: f64) -> f64 {
        match self.mode {
            0 => (self.a * x).tanh() * self.b,
            1 | 2 => self.a * x.exp() - self.b * x,
            _ => x * self.a,
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_match_on_a_no_grad_field_of_a_differentiated_struct(
        a in moderate(), b in moderate(), x in moderate(), mode in 0usize..7, shifted in any::<bool>(),
    ) {
        let p = Activation { a, b, mode, shifted };
        let flat = |p: &Activation, x: f64| [p.to_flat(), vec![x]].concat();
        let at = |v: &[f64]| p.from_flat(&v[..2]);
        let (value, (dp, dx)) = activate_grad(&p, x);
        assert_close(value, activate(&p, x), ANALYTIC_TOL, "activate");
        prop_assert_eq!((dp.mode, dp.shifted), (mode, shifted));
        assert_fd_gradient(|v| activate(&at(v), v[2]), &flat(&p, x), &flat(&dp, dx), "activate_grad");

        let (_, (dp, dx), h) = p.apply_hessian(x);
        assert_fd_gradient(|v| at(v).apply(v[2]), &flat(&p, x), &flat(&dp, dx), "apply_grad");
        let grad = |v: &[f64]| {
            let (_, (dp, dx)) = at(v).apply_grad(v[2]);
            flat(&dp, dx).to_vec()
        };
        assert_jacobian(&h, &fd_jacobian(grad, &flat(&p, x)), "apply_hessian");
    }
}

/// Fields read only inside `vec![..]` (`vec![p.w[0] * x, p.b]`): `p.w` indexed there is an array field
/// (it was taken for a scalar one, and its indexing an error).
#[derive(Clone, Debug, Differentiable)]
struct Packed {
    w: Vec<f64>,
    b: f64,
}

// The `vec![..]` literal is what this tests.
#[allow(clippy::useless_vec)]
#[differentiable(wrt(p))]
fn packed(p: &Packed, x: f64) -> f64 {
    let v = vec![p.w[0] * x, p.b, p.w[1]];
    v[0] * v[1] + v[2].sin()
}

#[test]
fn fields_read_in_a_vec_literal() {
    for x in [-1.2, 0.3, 0.9] {
        let p = Packed {
            w: vec![0.4, -0.8],
            b: 1.3,
        };
        let (value, g) = packed_grad(&p, x);
        assert_close(
            value,
            p.w[0] * x * p.b + p.w[1].sin(),
            ANALYTIC_TOL,
            "packed",
        );
        let by_hand = [x * p.b, p.w[1].cos(), p.w[0] * x];
        assert_all_close(&g.to_flat(), &by_hand, ANALYTIC_TOL, "packed_grad");
        assert_fd_gradient(
            |f| packed(&p.from_flat(f), x),
            &p.to_flat(),
            &g.to_flat(),
            "packed_grad",
        );
    }
}

/// A `Vec` field only passed on by reference to a function of slices (`dot(&p.w, x)`, `dot(&self.w, x)`),
/// at first order: the hidden function over the struct's values that `order = K` callers use called
/// `__dot_whole`, which a function of slices has not (rustc's unresolved `__dot_whole` before).
#[differentiable]
fn slice_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

#[derive(Clone, Debug, Differentiable)]
struct Linear {
    w: Vec<f64>,
    b: f64,
}

#[differentiable(wrt(p))]
fn linear(p: &Linear, x: &[f64]) -> f64 {
    (slice_dot(&p.w, x) + p.b).tanh()
}

impl Linear {
    #[differentiable(wrt(self, x))]
    fn squared(&self, x: &[f64]) -> f64 {
        let z = slice_dot(&self.w, x) + self.b;
        z * z
    }
}

#[test]
fn a_vec_field_passed_on_by_reference_to_a_function_of_slices() {
    for s in [-0.7, 0.2, 0.9] {
        let p = Linear {
            w: vec![0.5 + s, -0.3, 0.8 * s],
            b: s,
        };
        let x = [0.4, -1.1 + s, 0.7];
        let z: f64 = p.w.iter().zip(&x).map(|(w, x)| w * x).sum::<f64>() + p.b;
        let (value, g) = linear_grad(&p, &x);
        assert_close(value, z.tanh(), ANALYTIC_TOL, "linear");
        let dz = 1.0 - z.tanh() * z.tanh();
        let by_hand: Vec<f64> = x.iter().map(|x| dz * x).chain([dz]).collect();
        assert_all_close(&g.to_flat(), &by_hand, ANALYTIC_TOL, "linear_grad");
        assert_fd_gradient(
            |f| linear(&p.from_flat(f), &x),
            &p.to_flat(),
            &g.to_flat(),
            "linear_grad",
        );

        let (value, (g, dx)) = p.squared_grad(&x);
        assert_close(value, p.squared(&x), ANALYTIC_TOL, "squared");
        assert_close(value, z * z, ANALYTIC_TOL, "squared by hand");
        let by_hand: Vec<f64> = x.iter().map(|x| 2.0 * z * x).chain([2.0 * z]).collect();
        assert_all_close(&g.to_flat(), &by_hand, ANALYTIC_TOL, "squared_grad");
        let by_hand: Vec<f64> = p.w.iter().map(|w| 2.0 * z * w).collect();
        assert_all_close(&dx, &by_hand, ANALYTIC_TOL, "squared_grad in x");
    }
}

/// `linear` with the field sliced (`slice_dot(&p.w[..], x)`), which reaches a function of slices at
/// `order = 2` (the field passed on whole, `&p.w`, does not yet: fuzz/order2/known.txt, `linear`).
#[differentiable(wrt(p), order = 2)]
fn linear_sliced(p: &Linear, x: &[f64]) -> f64 {
    (slice_dot(&p.w[..], x) + p.b).tanh()
}

impl Linear {
    /// `squared` with the field sliced, differentiated in `self` and `x`, at `order = 2`.
    #[differentiable(wrt(self, x), order = 2)]
    fn squared_sliced(&self, x: &[f64]) -> f64 {
        let z = slice_dot(&self.w[..], x) + self.b;
        z * z
    }
}

/// The flat view `(w_0, w_1, w_2, b)` as a `Linear`.
fn linear_at(v: &[f64]) -> Linear {
    Linear {
        w: v[..3].to_vec(),
        b: v[3],
    }
}

/// Checks `hvp(v, d)`'s product against the Hessian `h` times `d`, and `h` against `by_hand`.
fn assert_hvp_and_hessian(h: &[Vec<f64>], hv: &[f64], d: &[f64], by_hand: &[Vec<f64>], what: &str) {
    let product: Vec<f64> = h.iter().map(|row| probe::dot(row, d)).collect();
    assert_all_close(hv, &product, ANALYTIC_TOL, &format!("{what} hvp"));
    for (row, hand) in h.iter().zip(by_hand) {
        assert_all_close(row, hand, ANALYTIC_TOL, &format!("{what} Hessian by hand"));
    }
}

#[test]
fn a_vec_field_sliced_reaches_a_function_of_slices_at_order_2() {
    let x = [0.4, -1.1, 0.7];
    // tanh(u · v) over v = (w, b), u = (x, 1): gradient (1 - tanh² z) u, Hessian -2 tanh z (1 - tanh² z) u uᵀ.
    let u = [x[0], x[1], x[2], 1.0];
    probe::Probe::new("linear_sliced", |v| linear_sliced(&linear_at(v), &x))
        .grad(|v| {
            let (value, g) = linear_sliced_grad(&linear_at(v), &x);
            (value, g.to_flat())
        })
        .jvp(|v, t| linear_sliced_jvp(&linear_at(v), &x, linear_at(t)))
        .hessian(|v| {
            let (value, g, h) = linear_sliced_hessian(&linear_at(v), &x);
            (value, g.to_flat(), h)
        })
        .analytic(|v| {
            let dz = 1.0 - probe::dot(&u, v).tanh().powi(2);
            u.iter().map(|u| dz * u).collect()
        })
        .run(24, probe::range(4, -1.5, 1.5));
    let mut rng = probe::Lcg::new(probe::seed_of("linear_sliced_hvp"));
    for _ in 0..24 {
        let (v, d) = (rng.vec(4, -1.5, 1.5), rng.vec(4, -1.0, 1.0));
        let (_, _, h) = linear_sliced_hessian(&linear_at(&v), &x);
        let (value, g, hv) = linear_sliced_hvp(&linear_at(&v), &x, linear_at(&d));
        assert_close(
            value,
            linear_sliced(&linear_at(&v), &x),
            ANALYTIC_TOL,
            "hvp value",
        );
        assert_all_close(
            &g.to_flat(),
            &linear_sliced_grad(&linear_at(&v), &x).1.to_flat(),
            ANALYTIC_TOL,
            "hvp gradient",
        );
        let t = probe::dot(&u, &v).tanh();
        let s = -2.0 * t * (1.0 - t * t);
        let by_hand: Vec<Vec<f64>> = u
            .iter()
            .map(|a| u.iter().map(|b| s * a * b).collect())
            .collect();
        assert_hvp_and_hessian(&h, &hv.to_flat(), &d, &by_hand, "linear_sliced");
    }

    // z² over (w, b, x), z = w · x + b: gradient 2z (x, 1, w), Hessian 2 ∇z ∇zᵀ plus 2z at (w_i, x_i).
    let flat = |g: &Linear, gx: &[f64]| [g.to_flat(), gx.to_vec()].concat();
    probe::Probe::new("squared_sliced", |v| linear_at(v).squared_sliced(&v[4..]))
        .grad(|v| {
            let (value, (g, gx)) = linear_at(v).squared_sliced_grad(&v[4..]);
            (value, flat(&g, &gx))
        })
        .jvp(|v, t| linear_at(v).squared_sliced_jvp(&v[4..], (linear_at(t), t[4..].to_vec())))
        .hessian(|v| {
            let (value, (g, gx), h) = linear_at(v).squared_sliced_hessian(&v[4..]);
            (value, flat(&g, &gx), h)
        })
        .analytic(|v| {
            let z = probe::dot(&v[..3], &v[4..]) + v[3];
            [&v[4..], &[1.0], &v[..3]]
                .concat()
                .iter()
                .map(|a| 2.0 * z * a)
                .collect()
        })
        .run(24, probe::range(7, -1.5, 1.5));
    for _ in 0..24 {
        let (v, d) = (rng.vec(7, -1.5, 1.5), rng.vec(7, -1.0, 1.0));
        let (p, xs) = (linear_at(&v), &v[4..]);
        let (_, _, h) = p.squared_sliced_hessian(xs);
        let (value, (g, gx), (hv, hvx)) =
            p.squared_sliced_hvp(xs, (linear_at(&d), d[4..].to_vec()));
        assert_close(value, p.squared_sliced(xs), ANALYTIC_TOL, "hvp value");
        let (_, (g1, gx1)) = p.squared_sliced_grad(xs);
        assert_all_close(
            &flat(&g, &gx),
            &flat(&g1, &gx1),
            ANALYTIC_TOL,
            "hvp gradient",
        );
        let z = probe::dot(&v[..3], xs) + v[3];
        let dz = [&v[4..], &[1.0], &v[..3]].concat();
        let by_hand: Vec<Vec<f64>> = (0..7)
            .map(|i| {
                (0..7)
                    .map(|j| {
                        let cross = (i < 3 && j == i + 4) || (j < 3 && i == j + 4);
                        2.0 * dz[i] * dz[j] + if cross { 2.0 * z } else { 0.0 }
                    })
                    .collect()
            })
            .collect();
        assert_hvp_and_hessian(&h, &flat(&hv, &hvx), &d, &by_hand, "squared_sliced");
    }
}

/// A fixed-size array field passed on whole to a function of a slice (`slice_dot(&p.c, x)`, `c: [f64; 2]`):
/// the callee's `Vec` gradient is the array's (was rustc's E0308, `&&[f64; 2]` for `&[f64]`).
#[derive(Clone, Debug, Differentiable)]
struct Pinned {
    c: [f64; 2],
    k: f64,
}

/// `k sin(c · x) + c_1²`, also at `order = 2`.
#[differentiable(wrt(p), order = 2)]
fn pinned(p: &Pinned, x: &[f64]) -> f64 {
    p.k * slice_dot(&p.c, x).sin() + p.c[1] * p.c[1]
}

/// `k (c · x)`: `c` only passed on whole (a whole value to the macro, not an array), at first order.
#[differentiable(wrt(p))]
fn pinned_dot(p: &Pinned, x: &[f64]) -> f64 {
    slice_dot(&p.c, x) * p.k
}

impl Pinned {
    /// `pinned` as a method differentiated in `self` and `x`, also at `order = 2`.
    #[differentiable(wrt(self, x), order = 2)]
    fn pinned_in_both(&self, x: &[f64]) -> f64 {
        self.k * slice_dot(&self.c, x).sin() + self.c[1] * self.c[1]
    }
}

/// The struct's flat view `(c_0, c_1, k)` as a `Pinned`.
fn pinned_at(v: &[f64]) -> Pinned {
    Pinned {
        c: [v[0], v[1]],
        k: v[2],
    }
}

/// The gradient of `pinned` over `(c_0, c_1, k, x_0, x_1)`, by hand.
fn pinned_by_hand(v: &[f64]) -> Vec<f64> {
    let (c, k, x) = ([v[0], v[1]], v[2], [v[3], v[4]]);
    let z = c[0] * x[0] + c[1] * x[1];
    let d = k * z.cos();
    vec![d * x[0], d * x[1] + 2.0 * c[1], z.sin(), d * c[0], d * c[1]]
}

/// A probe of a function of a `Pinned` (its flat view `(c_0, c_1, k)`, differentiated) and the constant `x`,
/// from its generated items.
fn pinned_probe<'a>(
    name: &'a str,
    x: &'a [f64],
    f: fn(&Pinned, &[f64]) -> f64,
    grad: fn(&Pinned, &[f64]) -> (f64, Pinned),
    jvp: fn(&Pinned, &[f64], Pinned) -> (f64, f64),
    grad_into: fn(&Pinned, &[f64], &mut Pinned) -> f64,
) -> probe::Probe<'a> {
    probe::Probe::new(name, move |v| f(&pinned_at(v), x))
        .grad(move |v| {
            let (value, g) = grad(&pinned_at(v), x);
            (value, g.to_flat())
        })
        .jvp(move |v, t| jvp(&pinned_at(v), x, pinned_at(t)))
        .grad_into(move |v| {
            let mut g = pinned_at(&[probe::GARBAGE; 3]);
            let value = grad_into(&pinned_at(v), x, &mut g);
            (value, g.to_flat())
        })
}

#[test]
fn an_array_field_passed_whole_to_a_slice_parameter() {
    let x = [0.7, -0.4];
    pinned_probe(
        "pinned",
        &x,
        pinned,
        pinned_grad,
        pinned_jvp,
        pinned_grad_into,
    )
    .hessian(|v| {
        let (value, g, h) = pinned_hessian(&pinned_at(v), &x);
        (value, g.to_flat(), h)
    })
    .analytic(|v| pinned_by_hand(&[v, &x[..]].concat())[..3].to_vec())
    .run(24, probe::range(3, -1.5, 1.5));
    let (f, g, j, gi) = (
        pinned_dot,
        pinned_dot_grad,
        pinned_dot_jvp,
        pinned_dot_grad_into,
    );
    pinned_probe("pinned_dot", &x, f, g, j, gi)
        .analytic(|v| vec![v[2] * x[0], v[2] * x[1], v[0] * x[0] + v[1] * x[1]])
        .run(24, probe::range(3, -1.5, 1.5));
    let flat = |g: &Pinned, gx: &[f64]| [g.to_flat(), gx.to_vec()].concat();
    probe::Probe::new("pinned_in_both", |v| pinned_at(v).pinned_in_both(&v[3..]))
        .grad(|v| {
            let (value, (g, gx)) = pinned_at(v).pinned_in_both_grad(&v[3..]);
            (value, flat(&g, &gx))
        })
        .jvp(|v, t| pinned_at(v).pinned_in_both_jvp(&v[3..], (pinned_at(t), t[3..].to_vec())))
        .grad_into(|v| {
            let (mut g, mut gx) = (pinned_at(&[probe::GARBAGE; 3]), vec![probe::GARBAGE; 2]);
            let value = pinned_at(v).pinned_in_both_grad_into(&v[3..], (&mut g, &mut gx));
            (value, flat(&g, &gx))
        })
        .hessian(|v| {
            let (value, (g, gx), h) = pinned_at(v).pinned_in_both_hessian(&v[3..]);
            (value, flat(&g, &gx), h)
        })
        .analytic(pinned_by_hand)
        .run(24, probe::range(5, -1.5, 1.5));
}
