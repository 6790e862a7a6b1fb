//! Parameter structs: `#[derive(Differentiable)]` and functions of such structs. Every gradient is checked
//! against central finite differences over the struct's flat view (`check_gradient_of`), against
//! gradients written by hand, and `_jvp` against the inner product of the gradient with the tangent.

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
