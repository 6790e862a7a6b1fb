//! `order = K` on functions and methods of parameter structs that pass a struct on whole to another
//! differentiable function (`energy(q, x)`, `energy(&m.inner, x)`, `mse(self, xs, ys)`) or call another
//! method (`self.energy_at(x)`, `Self::square(c)`). Each Hessian is checked against the second derivatives
//! worked out by hand and against central differences of the generated gradient, over a grid of inputs.

// Differentiable bodies index their slices (`for i in 0..n`), as the hand-written derivatives beside them do.
#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::*;

/// A struct with an array, a scalar, and two `#[no_grad]` fields: a float the functions read as one, and
/// an integer they loop to.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Quad {
    a: Vec<f64>,
    c: f64,
    #[no_grad]
    k: f64,
    #[no_grad]
    n: usize,
}

/// `E(q, x) = x Σ_{i<n} a_i² + k c³`.
#[differentiable(order = 2)]
fn energy(q: &Quad, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..q.n {
        s += q.a[i] * q.a[i];
    }
    x * s + q.k * q.c * q.c * q.c
}

/// `F(q, x) = x E(q, x) + sin c`: the struct passed on whole, and a field read beside it.
#[differentiable(order = 2)]
fn outer(q: &Quad, x: f64) -> f64 {
    energy(q, x) * x + q.c.sin()
}

/// `outer` at `order = 3`, calling a callee at `order = 2`.
#[differentiable(order = 3)]
fn outer_at_order_three(q: &Quad, x: f64) -> f64 {
    energy(q, x) * x + q.c.sin()
}

/// `E` again, without `order = K`: a caller at `order = 2` reaches its generic copy all the same.
#[differentiable]
fn first_order_energy(q: &Quad, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..q.n {
        s += q.a[i] * q.a[i];
    }
    x * s + q.k * q.c * q.c * q.c
}

/// `outer` through the callee without `order = K`.
#[differentiable(order = 2)]
fn outer_of_first_order(q: &Quad, x: f64) -> f64 {
    first_order_energy(q, x) * x + q.c.sin()
}

/// `E(q, x) + c` with the struct taken by value and passed on by reference.
#[differentiable(order = 2)]
fn by_value(q: Quad, x: f64) -> f64 {
    energy(&q, x) + q.c
}

/// A struct holding another one, which it passes on whole; an integer field first.
#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Tempered {
    #[no_grad]
    label: usize,
    inner: Quad,
    t: f64,
}

/// `G(m, x) = E(m.inner, x) / t`.
#[differentiable(order = 2)]
fn tempered(m: &Tempered, x: f64) -> f64 {
    energy(&m.inner, x) / m.t
}

impl Quad {
    const ONE: f64 = 1.0;

    /// `E(self, x)`, `self` passed on to a free function.
    #[differentiable(wrt(self), order = 2)]
    fn energy_at(&self, x: f64) -> f64 {
        energy(self, x)
    }

    /// `c²`: an associated function that names `Self`.
    #[differentiable(order = 2)]
    fn square(c: f64) -> f64 {
        c * c * Self::ONE
    }

    /// `E(self, x) / 2 + c²`: calls a method and an associated function.
    #[differentiable(wrt(self), order = 2)]
    fn scaled(&self, x: f64) -> f64 {
        self.energy_at(x) * 0.5 + Self::square(self.c)
    }

    /// `x E(self, x)`, differentiated in `self` and `x`: `outer` without its `sin c`.
    #[differentiable(wrt(self, x), order = 2)]
    fn both(&self, x: f64) -> f64 {
        self.energy_at(x) * x
    }
}

/// The shape of API.md's example: a network whose `loss` method passes `self` to a free function.
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
            let h = (p.w1[j] * xs[n] + p.b1[j]).tanh();
            out += p.w2[j] * h;
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
}

/// `(a0, a1, c)` on a grid, with `k` and `x` from short lists: the inputs of every check.
fn points() -> Vec<(Quad, f64)> {
    let mut points = Vec::new();
    for &a0 in &[-1.3, 0.4, 1.1] {
        for &a1 in &[-0.7, 0.9] {
            for &c in &[-1.2, 0.3, 1.5] {
                for (&k, &x) in [0.5, -2.0].iter().zip(&[0.8, -1.4]) {
                    let q = Quad {
                        a: vec![a0, a1],
                        c,
                        k,
                        n: 2,
                    };
                    points.push((q, x));
                }
            }
        }
    }
    points
}

/// The Hessian of `E` over `(a0, a1, c, x)`.
fn energy_hessian_by_hand(q: &Quad, x: f64) -> Vec<Vec<f64>> {
    let (a, c, k) = (&q.a, q.c, q.k);
    vec![
        vec![2.0 * x, 0.0, 0.0, 2.0 * a[0]],
        vec![0.0, 2.0 * x, 0.0, 2.0 * a[1]],
        vec![0.0, 0.0, 6.0 * k * c, 0.0],
        vec![2.0 * a[0], 2.0 * a[1], 0.0, 0.0],
    ]
}

/// The Hessian of `x E(q, x)` over `(a0, a1, c, x)`.
fn both_hessian_by_hand(q: &Quad, x: f64) -> Vec<Vec<f64>> {
    let (a, c, k) = (&q.a, q.c, q.k);
    let s = a[0] * a[0] + a[1] * a[1];
    vec![
        vec![2.0 * x * x, 0.0, 0.0, 4.0 * a[0] * x],
        vec![0.0, 2.0 * x * x, 0.0, 4.0 * a[1] * x],
        vec![0.0, 0.0, 6.0 * k * c * x, 3.0 * k * c * c],
        vec![4.0 * a[0] * x, 4.0 * a[1] * x, 3.0 * k * c * c, 2.0 * s],
    ]
}

/// Checks `hessian` against `by_hand` and, column by column, against central differences of `grad` (a
/// gradient over the same flat inputs) at `flat`.
fn assert_hessian(
    hessian: &[Vec<f64>],
    by_hand: &[Vec<f64>],
    grad: impl Fn(&[f64]) -> Vec<f64>,
    flat: &[f64],
    what: &str,
) {
    assert_eq!(hessian.len(), flat.len(), "{what}: Hessian size");
    for (row, hand) in hessian.iter().zip(by_hand) {
        assert_all_close(
            row,
            hand,
            1e-9,
            &format!("{what}: Hessian by hand at {flat:?}"),
        );
    }
    for i in 0..flat.len() {
        let column: Vec<f64> = hessian.iter().map(|row| row[i]).collect();
        let differences = hessian_column(&grad, flat, i);
        assert_all_close(
            &column,
            &differences,
            1e-6,
            &format!("{what}: column {i} at {flat:?}"),
        );
    }
}

/// `q` with the flat inputs `(a0, a1, c)` replaced.
fn with_flat(q: &Quad, flat: &[f64]) -> Quad {
    q.from_flat(&flat[..3])
}

#[test]
fn a_struct_passed_on_whole_and_a_field_read_beside_it() {
    for (q, x) in points() {
        let (value, (gq, gx), h) = outer_hessian(&q, x);
        assert_close(value, outer(&q, x), ANALYTIC_TOL, "outer value");
        let mut hand = both_hessian_by_hand(&q, x);
        hand[2][2] -= q.c.sin();
        let s = q.a[0] * q.a[0] + q.a[1] * q.a[1];
        let hand_gradient = [
            2.0 * q.a[0] * x * x,
            2.0 * q.a[1] * x * x,
            3.0 * q.k * q.c * q.c * x + q.c.cos(),
            2.0 * x * s + q.k * q.c.powi(3),
        ];
        let mut gradient = gq.to_flat();
        gradient.push(gx);
        assert_all_close(&gradient, &hand_gradient, 1e-9, "outer gradient");
        // The no_grad fields of the gradient are the primal's.
        assert_eq!((gq.k, gq.n), (q.k, q.n));
        let grad = |flat: &[f64]| {
            let (_, (g, gx)) = outer_grad(&with_flat(&q, flat), flat[3]);
            let mut g = g.to_flat();
            g.push(gx);
            g
        };
        let mut flat = q.to_flat();
        flat.push(x);
        assert_hessian(&h, &hand, grad, &flat, "outer");
        // `outer_hvp` in a direction whose no_grad fields differ from the primal's: `H v`, structs in
        // and out.
        let v = [0.3, -0.8, 0.5, 1.2];
        let mut direction = q.from_flat(&v[..3]);
        direction.k = 9.0;
        direction.n = 7;
        let (hv_value, (hv_gq, _), (product, product_x)) = outer_hvp(&q, x, (direction, v[3]));
        assert_close(hv_value, value, ANALYTIC_TOL, "hvp value");
        assert_eq!(hv_gq, gq);
        let mut product = product.to_flat();
        product.push(product_x);
        assert_all_close(&product, &mat_vec(&h, &v), 1e-9, "outer H v");
        let (_, _, h3) = outer_at_order_three_hessian(&q, x);
        for (row, row3) in h.iter().zip(&h3) {
            assert_all_close(row3, row, 1e-12, "order 3");
        }
        assert_close(
            outer_at_order_three(&q, x),
            value,
            ANALYTIC_TOL,
            "order 3 value",
        );
        // The same through a callee without `order = K`.
        let (value, _, h) = outer_of_first_order_hessian(&q, x);
        assert_close(value, outer_of_first_order(&q, x), ANALYTIC_TOL, "value");
        let grad = |flat: &[f64]| {
            let (_, (g, gx)) = outer_of_first_order_grad(&with_flat(&q, flat), flat[3]);
            let mut g = g.to_flat();
            g.push(gx);
            g
        };
        assert_hessian(&h, &hand, grad, &flat, "outer_of_first_order");
    }
}

#[test]
fn a_struct_taken_by_value_passed_on_by_reference() {
    for (q, x) in points() {
        let (value, _, h) = by_value_hessian(q.clone(), x);
        assert_close(
            value,
            by_value(q.clone(), x),
            ANALYTIC_TOL,
            "by_value value",
        );
        let grad = |flat: &[f64]| {
            let (_, (g, gx)) = by_value_grad(with_flat(&q, flat), flat[3]);
            let mut g = g.to_flat();
            g.push(gx);
            g
        };
        let mut flat = q.to_flat();
        flat.push(x);
        assert_hessian(&h, &energy_hessian_by_hand(&q, x), grad, &flat, "by_value");
    }
}

#[test]
fn a_nested_struct_passed_on_whole() {
    for (q, x) in points() {
        for t in [0.7, -1.9] {
            let m = Tempered {
                label: 3,
                inner: q.clone(),
                t,
            };
            let (value, (gm, _), h) = tempered_hessian(&m, x);
            assert_close(value, tempered(&m, x), ANALYTIC_TOL, "tempered value");
            assert_eq!((gm.label, gm.inner.k, gm.inner.n), (3, q.k, q.n));
            // Over (a0, a1, c, t, x), with G = E / t.
            let (a, c, k) = (&q.a, q.c, q.k);
            let s = a[0] * a[0] + a[1] * a[1];
            let e = x * s + k * c.powi(3);
            let hand = vec![
                vec![
                    2.0 * x / t,
                    0.0,
                    0.0,
                    -2.0 * a[0] * x / (t * t),
                    2.0 * a[0] / t,
                ],
                vec![
                    0.0,
                    2.0 * x / t,
                    0.0,
                    -2.0 * a[1] * x / (t * t),
                    2.0 * a[1] / t,
                ],
                vec![0.0, 0.0, 6.0 * k * c / t, -3.0 * k * c * c / (t * t), 0.0],
                vec![
                    -2.0 * a[0] * x / (t * t),
                    -2.0 * a[1] * x / (t * t),
                    -3.0 * k * c * c / (t * t),
                    2.0 * e / t.powi(3),
                    -s / (t * t),
                ],
                vec![2.0 * a[0] / t, 2.0 * a[1] / t, 0.0, -s / (t * t), 0.0],
            ];
            let grad = |flat: &[f64]| {
                let (_, (g, gx)) = tempered_grad(&m.from_flat(&flat[..4]), flat[4]);
                let mut g = g.to_flat();
                g.push(gx);
                g
            };
            let mut flat = m.to_flat();
            flat.push(x);
            assert_hessian(&h, &hand, grad, &flat, "tempered");
        }
    }
}

#[test]
fn methods_that_pass_self_on_and_call_methods() {
    for (q, x) in points() {
        // `energy_at`: over (a0, a1, c), `x` constant.
        let (value, _, h) = q.energy_at_hessian(x);
        assert_close(value, energy(&q, x), ANALYTIC_TOL, "energy_at value");
        let e_hand = energy_hessian_by_hand(&q, x);
        let self_only: Vec<Vec<f64>> = e_hand[..3].iter().map(|row| row[..3].to_vec()).collect();
        let grad = |flat: &[f64]| with_flat(&q, flat).energy_at_grad(x).1.to_flat();
        assert_hessian(&h, &self_only, grad, &q.to_flat(), "energy_at");
        // `scaled` = E / 2 + c²: a method call and an associated function naming `Self`.
        let (value, gradient, h) = q.scaled_hessian(x);
        assert_close(value, q.scaled(x), ANALYTIC_TOL, "scaled value");
        assert_close(
            gradient.c,
            1.5 * q.k * q.c * q.c + 2.0 * q.c,
            1e-9,
            "scaled d c",
        );
        let mut hand: Vec<Vec<f64>> = self_only
            .iter()
            .map(|row| row.iter().map(|h| 0.5 * h).collect())
            .collect();
        hand[2][2] += 2.0;
        let grad = |flat: &[f64]| with_flat(&q, flat).scaled_grad(x).1.to_flat();
        assert_hessian(&h, &hand, grad, &q.to_flat(), "scaled");
        // `both`: differentiated in `self` and `x`.
        let (value, _, h) = q.both_hessian(x);
        assert_close(value, q.both(x), ANALYTIC_TOL, "both value");
        assert_close(value, x * energy(&q, x), ANALYTIC_TOL, "both by hand");
        let grad = |flat: &[f64]| {
            let (_, (g, gx)) = with_flat(&q, flat).both_grad(flat[3]);
            let mut g = g.to_flat();
            g.push(gx);
            g
        };
        let mut flat = q.to_flat();
        flat.push(x);
        assert_hessian(&h, &both_hessian_by_hand(&q, x), grad, &flat, "both");
    }
}

#[test]
fn the_api_example_loss_method_of_an_mlp() {
    let (xs, ys) = ([0.3, -0.7, 1.1, 2.0], [0.5, -0.2, 0.1, 0.9]);
    for seed in 0..6 {
        // Parameters from a deterministic sequence in [-1.5, 1.5].
        let flat: Vec<f64> = (0..10)
            .map(|i| (((seed * 10 + i) as f64 * 0.618_033_988_7).fract() - 0.5) * 3.0)
            .collect();
        let p = Mlp {
            w1: flat[0..3].to_vec(),
            b1: flat[3..6].to_vec(),
            w2: flat[6..9].to_vec(),
            b2: flat[9],
            hidden: 3,
        };
        let (value, gradient, h) = p.loss_hessian(&xs, &ys);
        assert_close(value, p.loss(&xs, &ys), ANALYTIC_TOL, "loss value");
        assert_close(value, mse(&p, &xs, &ys), ANALYTIC_TOL, "loss is mse");
        assert_eq!(gradient.hidden, 3);
        assert_eq!(h.len(), 10);
        // By hand: the output is linear in b2 and w2, so ∂²/∂b2² = 2, ∂²/∂b2∂w2_j = 2/m Σ h_j(x_n),
        // ∂²/∂w2_i∂w2_j = 2/m Σ h_i h_j.
        let m = xs.len() as f64;
        let hidden = |j: usize, x: f64| (p.w1[j] * x + p.b1[j]).tanh();
        assert_close(h[9][9], 2.0, 1e-9, "d2 b2 b2");
        for i in 0..3 {
            let by_hand: f64 = xs.iter().map(|&x| 2.0 * hidden(i, x) / m).sum();
            assert_close(h[9][6 + i], by_hand, 1e-9, "d2 b2 w2");
            for j in 0..3 {
                let by_hand: f64 = xs
                    .iter()
                    .map(|&x| 2.0 * hidden(i, x) * hidden(j, x) / m)
                    .sum();
                assert_close(h[6 + i][6 + j], by_hand, 1e-9, "d2 w2 w2");
            }
        }
        for i in 0..10 {
            let column: Vec<f64> = h.iter().map(|row| row[i]).collect();
            let grad = |f: &[f64]| p.from_flat(f).loss_grad(&xs, &ys).1.to_flat();
            assert_all_close(
                &column,
                &hessian_column(grad, &flat, i),
                1e-6,
                "loss column",
            );
            for (j, row) in h.iter().enumerate() {
                assert_close(h[i][j], row[i], 1e-9, "symmetry");
            }
        }
        // The method's Hessian is its callee's.
        let (_, _, callee) = mse_hessian(&p, &xs, &ys);
        for (row, callee_row) in h.iter().zip(&callee) {
            assert_all_close(row, callee_row, 1e-12, "loss and mse");
        }
    }
}

#[test]
fn the_values_view_puts_no_grad_floats_in_their_places() {
    let q = Quad {
        a: vec![1.0, 2.0],
        c: 3.0,
        k: 4.0,
        n: 2,
    };
    let m = Tempered {
        label: 1,
        inner: q.clone(),
        t: 5.0,
    };
    assert_eq!(
        autodiff::__private::values(&m),
        vec![1.0, 2.0, 3.0, 4.0, 5.0]
    );
    let mut t = m.zero_like();
    t.inner.k = 7.0;
    t.t = 1.0;
    assert_eq!(
        autodiff::__private::tangent_values(&m, &t),
        vec![0.0, 0.0, 0.0, 0.0, 1.0]
    );
    let g = autodiff::__private::from_values(&m, &[0.1, 0.2, 0.3, 0.4, 0.5]);
    assert_eq!(g.to_flat(), vec![0.1, 0.2, 0.3, 0.5]);
    assert_eq!((g.label, g.inner.k, g.inner.n), (1, 4.0, 2));
}

/// `L(q) = Σ_k (E(q, x_k) - 1)²`: the struct passed on whole to a call inside a loop, so its adjoint
/// accumulates over the iterations (it was declared `Zero::zero()`, which a struct does not implement:
/// the generated code did not compile).
#[differentiable(wrt(q), order = 2)]
fn batch(q: &Quad, xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        let e = energy(q, x) - 1.0;
        s += e * e;
    }
    s
}

#[test]
fn a_struct_passed_on_whole_to_a_call_in_a_loop() {
    let xs = [0.8, -1.4, 0.3];
    for (q, _) in points() {
        let (a, c, k) = (&q.a, q.c, q.k);
        let mut value = 0.0;
        let mut gradient = [0.0; 3];
        let mut hand = vec![vec![0.0; 3]; 3];
        for &x in &xs {
            let e = x * (a[0] * a[0] + a[1] * a[1]) + k * c * c * c - 1.0;
            let de = [2.0 * x * a[0], 2.0 * x * a[1], 3.0 * k * c * c];
            let dde = [2.0 * x, 2.0 * x, 6.0 * k * c];
            value += e * e;
            for i in 0..3 {
                gradient[i] += 2.0 * e * de[i];
                for j in 0..3 {
                    hand[i][j] += 2.0 * de[i] * de[j];
                }
                hand[i][i] += 2.0 * e * dde[i];
            }
        }
        let (v, gq) = batch_grad(&q, &xs);
        assert_close(v, value, ANALYTIC_TOL, "batch value");
        assert_close(v, batch(&q, &xs), ANALYTIC_TOL, "batch value against f");
        assert_eq!((gq.k, gq.n), (q.k, q.n));
        assert_all_close(&gq.to_flat(), &gradient, 1e-9, "batch gradient by hand");
        let flat = q.to_flat();
        assert_fd_gradient(
            |p| batch(&with_flat(&q, p), &xs),
            &flat,
            &gq.to_flat(),
            "batch gradient",
        );
        let (_, _, h) = batch_hessian(&q, &xs);
        let grad = |p: &[f64]| batch_grad(&with_flat(&q, p), &xs).1.to_flat();
        assert_hessian(&h, &hand, grad, &flat, "batch");
    }
}

/// `C(q, x) = c + Σ_{i<n} a_i x_i³`, differentiated in `q` too (no `wrt(..)`), the struct taken by value.
#[differentiable]
fn cubic_form(q: Quad, x: &[f64]) -> f64 {
    let mut s = q.c;
    for i in 0..q.n {
        s += q.a[i] * x[i] * x[i] * x[i];
    }
    s
}

/// `2 C(q, x)` at `order = 2` in `x` alone: the constant struct passed on by value to a first-order
/// function differentiated in it, which is reached through its copy with the struct constant.
#[differentiable(wrt(x), order = 2)]
fn twice_cubic(q: Quad, x: &[f64]) -> f64 {
    cubic_form(q, x) * 2.0
}

#[test]
fn a_constant_struct_passed_on_whole_to_a_first_order_function() {
    for (q, x0) in points() {
        let x = [x0, 0.5 - x0];
        let cubic = q.c + q.a[0] * x[0].powi(3) + q.a[1] * x[1].powi(3);
        let d_cubic = [3.0 * q.a[0] * x[0] * x[0], 3.0 * q.a[1] * x[1] * x[1]];
        let dd_cubic = [6.0 * q.a[0] * x[0], 6.0 * q.a[1] * x[1]];

        let (value, gradient, h) = twice_cubic_hessian(q.clone(), &x);
        assert_close(value, 2.0 * cubic, ANALYTIC_TOL, "twice_cubic value");
        assert_close(
            value,
            twice_cubic(q.clone(), &x),
            ANALYTIC_TOL,
            "twice_cubic value against f",
        );
        assert_all_close(
            &gradient,
            &[2.0 * d_cubic[0], 2.0 * d_cubic[1]],
            1e-9,
            "twice_cubic gradient",
        );
        let hand = vec![vec![2.0 * dd_cubic[0], 0.0], vec![0.0, 2.0 * dd_cubic[1]]];
        let grad = |p: &[f64]| twice_cubic_grad(q.clone(), p).1;
        assert_hessian(&h, &hand, grad, &x, "twice_cubic");
        let v = [0.3, -1.1];
        let (_, _, product) = twice_cubic_hvp(q.clone(), &x, v.to_vec());
        let expected: Vec<f64> = hand.iter().map(|row| dot(row, &v)).collect();
        assert_all_close(&product, &expected, 1e-9, "twice_cubic hvp");

        // The callee's own first order, differentiated in the struct too.
        let (value, (gq, gx)) = cubic_form_grad(q.clone(), &x);
        assert_close(value, cubic, ANALYTIC_TOL, "cubic_form value");
        assert_all_close(&gx, &d_cubic, 1e-9, "cubic_form gradient in x");
        let in_q = [x[0].powi(3), x[1].powi(3), 1.0];
        assert_all_close(&gq.to_flat(), &in_q, 1e-9, "cubic_form gradient in q");
    }
}

/// Callees of a parameter struct returning an array or a `Vec` (`self.feats(x)`, `layer(self, x)`), called
/// from functions and methods differentiated in the struct, at first order and `order = 2`: they had no
/// hidden function over the struct's values (rustc's missing `__feats_whole` before). `layer` builds its
/// result with `vec![..]` of indexed fields, which were taken for scalar fields (an error on the indexing).
#[derive(Clone, Debug, Differentiable)]
struct Features {
    w: Vec<f64>,
    b: [f64; 2],
}

/// `[tanh(w0 x + b0), sin(w1 x + b1)]`.
#[differentiable(wrt(p))]
fn layer(p: &Features, x: f64) -> Vec<f64> {
    vec![(p.w[0] * x + p.b[0]).tanh(), (p.w[1] * x + p.b[1]).sin()]
}

/// `h0 h1 + h0²` of `h = layer(p, x)`.
#[differentiable(wrt(p))]
fn layer_loss(p: &Features, x: f64) -> f64 {
    let h = layer(p, x);
    h[0] * h[1] + h[0] * h[0]
}

impl Features {
    /// `[w0 eˣ, b1 w1]`.
    #[differentiable(wrt(self))]
    fn feats(&self, x: f64) -> [f64; 2] {
        [self.w[0] * x.exp(), self.b[1] * self.w[1]]
    }

    /// `f0 f1 + sin f0` of `f = feats(x)`.
    #[differentiable(wrt(self), order = 2)]
    fn objective(&self, x: f64) -> f64 {
        let f = self.feats(x);
        f[0] * f[1] + f[0].sin()
    }

    /// `h0 h1` of `h = layer(self, x)`.
    #[differentiable(wrt(self), order = 2)]
    fn layer_product(&self, x: f64) -> f64 {
        let h = layer(self, x);
        h[0] * h[1]
    }

    /// `out = feats(x)²`, elementwise.
    #[differentiable(wrt(self))]
    fn squares_into(&self, x: f64, out: &mut [f64; 2]) {
        let f = self.feats(x);
        for i in 0..2 {
            out[i] = f[i] * f[i];
        }
    }
}

#[test]
fn callees_returning_arrays_of_a_struct_differentiated_as_a_whole() {
    for (i, x) in [-0.8, -0.1, 0.4, 1.1].into_iter().enumerate() {
        let s = i as f64 * 0.3;
        let p = Features {
            w: vec![0.7 - s, -0.4 + s],
            b: [0.2 + s, -0.9 + 0.5 * s],
        };
        let flat = p.to_flat();
        let (w0, w1, b0, b1) = (p.w[0], p.w[1], p.b[0], p.b[1]);

        // layer_loss by hand: h0 = tanh u, h1 = sin v, u = w0 x + b0, v = w1 x + b1.
        let (h0, h1) = ((w0 * x + b0).tanh(), (w1 * x + b1).sin());
        let (dh0, dh1) = (1.0 - h0 * h0, (w1 * x + b1).cos());
        let (gu, gv) = ((h1 + 2.0 * h0) * dh0, h0 * dh1);
        let (value, g) = layer_loss_grad(&p, x);
        assert_close(value, h0 * h1 + h0 * h0, ANALYTIC_TOL, "layer_loss");
        assert_all_close(
            &g.to_flat(),
            &[gu * x, gv * x, gu, gv],
            ANALYTIC_TOL,
            "layer_loss_grad",
        );
        assert_fd_gradient(
            |f| layer_loss(&p.from_flat(f), x),
            &flat,
            &g.to_flat(),
            "layer_loss_grad",
        );
        let jacobian = layer_jacobian(&p, x);
        assert_jacobian(
            &jacobian,
            &fd_jacobian(|f| layer(&p.from_flat(f), x), &flat),
            "layer_jacobian",
        );

        // objective by hand: f0 = w0 eˣ, f1 = b1 w1.
        let (f0, f1) = (w0 * x.exp(), b1 * w1);
        let gf0 = f1 + f0.cos();
        let by_hand = [gf0 * x.exp(), f0 * b1, 0.0, f0 * w1];
        let (value, g, h) = p.objective_hessian(x);
        assert_close(value, p.objective(x), ANALYTIC_TOL, "objective");
        assert_close(value, f0 * f1 + f0.sin(), ANALYTIC_TOL, "objective by hand");
        assert_all_close(&g.to_flat(), &by_hand, ANALYTIC_TOL, "objective_grad");
        let grad = |f: &[f64]| p.from_flat(f).objective_grad(x).1.to_flat();
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "objective_hessian");

        let (_, g, h) = p.layer_product_hessian(x);
        assert_fd_gradient(
            |f| p.from_flat(f).layer_product(x),
            &flat,
            &g.to_flat(),
            "layer_product_grad",
        );
        let grad = |f: &[f64]| p.from_flat(f).layer_product_grad(x).1.to_flat();
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "layer_product_hessian");

        let squares = |f: &[f64]| {
            let mut out = [0.0; 2];
            p.from_flat(f).squares_into(x, &mut out);
            out.to_vec()
        };
        let jacobian = p.squares_into_jacobian(x, &mut [0.0; 2]);
        assert_jacobian(
            &jacobian,
            &fd_jacobian(squares, &flat),
            "squares_into_jacobian",
        );
    }
}
