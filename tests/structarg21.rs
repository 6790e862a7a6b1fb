//! A parameter struct's `Vec` or array field passed on whole to a function of slices or arrays at
//! `order = 2` (`slice_dot(&p.w, x)`, `slice_dot(&self.w, x)`, `dot(&p.c, x)`): the hidden function over the
//! struct's values view calls the callee's `__g_pairs` (`struct_whole.rs`), which every free function of
//! slices has, with the field's part of the view; a nested struct passed on whole (`g(&p.inner)`) takes
//! the same route. Gradients, tangents and Hessians against central differences and the formulas, at
//! first order too.

mod common;

use autodiff::{differentiable, Differentiable};
use common::probe::{self, Lcg, Probe};
use common::*;

#[differentiable]
fn slice_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// `a · b` of two arrays of two.
#[differentiable]
fn dot2(a: &[f64; 2], b: &[f64]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// `Σ a_i³ b_i`, differentiated in both, a function of slices with a curvature of its own.
#[differentiable(order = 2)]
fn cubes(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * a[i] * a[i] * b[i];
    }
    s
}

#[derive(Clone, Debug, Differentiable)]
struct Linear {
    w: Vec<f64>,
    b: f64,
}

/// `tanh(w · x + b)`.
#[differentiable(wrt(p), order = 2)]
fn linear(p: &Linear, x: &[f64]) -> f64 {
    (slice_dot(&p.w, x) + p.b).tanh()
}

/// `linear` at first order.
#[differentiable(wrt(p))]
fn linear_first(p: &Linear, x: &[f64]) -> f64 {
    (slice_dot(&p.w, x) + p.b).tanh()
}

/// `Σ w_i³ x_i + b²`: the callee's own second derivative reaches the caller's Hessian.
#[differentiable(wrt(p, x), order = 2)]
fn cubed(p: &Linear, x: &[f64]) -> f64 {
    cubes(&p.w, x) + p.b * p.b
}

impl Linear {
    /// `(w · x + b)²`, in `self` and `x`.
    #[differentiable(wrt(self, x), order = 2)]
    fn squared(&self, x: &[f64]) -> f64 {
        let z = slice_dot(&self.w, x) + self.b;
        z * z
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Pinned {
    c: [f64; 2],
    k: f64,
}

/// `k (c · x)` of an array field passed to a function of a slice.
#[differentiable(wrt(p), order = 2)]
fn pinned_dot(p: &Pinned, x: &[f64]) -> f64 {
    slice_dot(&p.c, x) * p.k
}

/// `k (c · x)²` of an array field passed to a function of an array, and read by index too.
#[differentiable(wrt(p), order = 2)]
fn pinned_array(p: &Pinned, x: &[f64]) -> f64 {
    let d = dot2(&p.c, x);
    p.k * d * d + p.c[0]
}

#[derive(Clone, Debug, Differentiable)]
struct Inner {
    a: f64,
    v: Vec<f64>,
}

#[derive(Clone, Debug, Differentiable)]
struct Outer {
    inner: Inner,
    w: Vec<f64>,
    s: f64,
}

/// `a Σ v_i²`, of a struct.
#[differentiable(order = 2)]
fn energy(q: &Inner) -> f64 {
    let mut e = 0.0;
    for i in 0..q.v.len() {
        e += q.v[i] * q.v[i];
    }
    q.a * e
}

/// A nested struct and a `Vec` field passed on whole in one function: `energy(inner) + s (w · x)²`.
#[differentiable(wrt(p), order = 2)]
fn nested_and_vec(p: &Outer, x: &[f64]) -> f64 {
    let d = slice_dot(&p.w, x);
    energy(&p.inner) + p.s * d * d
}

const X: [f64; 3] = [0.4, -1.1, 0.7];

fn linear_at(v: &[f64]) -> Linear {
    Linear {
        w: v[..3].to_vec(),
        b: v[3],
    }
}

fn pinned_at(v: &[f64]) -> Pinned {
    Pinned {
        c: [v[0], v[1]],
        k: v[2],
    }
}

/// `(inner.a, inner.v[0..2], w[0..3], s)`.
fn outer_at(v: &[f64]) -> Outer {
    Outer {
        inner: Inner {
            a: v[0],
            v: v[1..3].to_vec(),
        },
        w: v[3..6].to_vec(),
        s: v[6],
    }
}

/// `h` against `by_hand`, entry by entry.
fn assert_hessian(h: &[Vec<f64>], by_hand: &[Vec<f64>], what: &str) {
    assert_eq!(h.len(), by_hand.len(), "{what}: rows");
    for (row, hand) in h.iter().zip(by_hand) {
        assert_all_close(row, hand, 1e-9, what);
    }
}

#[test]
fn a_vec_field_passed_on_whole_to_a_function_of_slices_at_order_2() {
    let u = [X[0], X[1], X[2], 1.0];
    for (name, f) in [
        ("linear", linear as fn(&Linear, &[f64]) -> f64),
        ("linear_first", linear_first),
    ] {
        let grad = move |v: &[f64]| match name {
            "linear" => {
                let (value, g) = linear_grad(&linear_at(v), &X);
                (value, g.to_flat())
            }
            _ => {
                let (value, g) = linear_first_grad(&linear_at(v), &X);
                (value, g.to_flat())
            }
        };
        Probe::new(name, move |v| f(&linear_at(v), &X))
            .grad(grad)
            .jvp(move |v, t| match name {
                "linear" => linear_jvp(&linear_at(v), &X, linear_at(t)),
                _ => linear_first_jvp(&linear_at(v), &X, linear_at(t)),
            })
            .analytic(move |v| {
                let dz = 1.0 - probe::dot(&u, v).tanh().powi(2);
                u.iter().map(|u| dz * u).collect()
            })
            .run(24, probe::range(4, -1.5, 1.5));
    }
    Probe::new("linear_hessian", |v| linear(&linear_at(v), &X))
        .grad(|v| {
            let (value, g) = linear_grad(&linear_at(v), &X);
            (value, g.to_flat())
        })
        .hessian(|v| {
            let (value, g, h) = linear_hessian(&linear_at(v), &X);
            (value, g.to_flat(), h)
        })
        .run(32, probe::range(4, -1.5, 1.5));
    // tanh(u · v): Hessian -2 tanh z (1 - tanh² z) u uᵀ, and `hvp` its product.
    let mut rng = Lcg::new(probe::seed_of("structarg21 linear by hand"));
    for _ in 0..32 {
        let (v, d) = (rng.vec(4, -1.5, 1.5), rng.vec(4, -1.0, 1.0));
        let t = probe::dot(&u, &v).tanh();
        let s = -2.0 * t * (1.0 - t * t);
        let by_hand: Vec<Vec<f64>> = u
            .iter()
            .map(|a| u.iter().map(|b| s * a * b).collect())
            .collect();
        let (_, _, h) = linear_hessian(&linear_at(&v), &X);
        assert_hessian(&h, &by_hand, "linear Hessian by hand");
        let (value, g, hv) = linear_hvp(&linear_at(&v), &X, linear_at(&d));
        assert_close(value, t, 1e-12, "linear_hvp value");
        let gu: Vec<f64> = u.iter().map(|a| (1.0 - t * t) * a).collect();
        assert_all_close(&g.to_flat(), &gu, 1e-10, "linear_hvp gradient");
        let product: Vec<f64> = by_hand.iter().map(|row| probe::dot(row, &d)).collect();
        assert_all_close(&hv.to_flat(), &product, 1e-9, "linear_hvp product");
    }
}

#[test]
fn a_vec_field_passed_on_whole_from_a_method_at_order_2() {
    // z² over (w, b, x), z = w · x + b: gradient 2z (x, 1, w); Hessian 2 ∇z ∇zᵀ plus 2z at (w_i, x_i).
    let flat = |g: &Linear, gx: &[f64]| [g.to_flat(), gx.to_vec()].concat();
    Probe::new("squared", |v| linear_at(v).squared(&v[4..]))
        .grad(|v| {
            let (value, (g, gx)) = linear_at(v).squared_grad(&v[4..]);
            (value, flat(&g, &gx))
        })
        .jvp(|v, t| linear_at(v).squared_jvp(&v[4..], (linear_at(t), t[4..].to_vec())))
        .hessian(|v| {
            let (value, (g, gx), h) = linear_at(v).squared_hessian(&v[4..]);
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
        .run(32, probe::range(7, -1.5, 1.5));
    let mut rng = Lcg::new(probe::seed_of("structarg21 squared by hand"));
    for _ in 0..24 {
        let v = rng.vec(7, -1.5, 1.5);
        let z = probe::dot(&v[..3], &v[4..]) + v[3];
        let grad_z: Vec<f64> = [&v[4..], &[1.0], &v[..3]].concat();
        let mut by_hand: Vec<Vec<f64>> = grad_z
            .iter()
            .map(|a| grad_z.iter().map(|b| 2.0 * a * b).collect())
            .collect();
        for i in 0..3 {
            by_hand[i][4 + i] += 2.0 * z;
            by_hand[4 + i][i] += 2.0 * z;
        }
        let (_, _, h) = linear_at(&v).squared_hessian(&v[4..]);
        assert_hessian(&h, &by_hand, "squared Hessian by hand");
    }
}

#[test]
fn a_callees_own_curvature_reaches_the_hessian() {
    // Σ w_i³ x_i + b² over (w, b, x): ∂²/∂w_i² = 6 w_i x_i, ∂²/∂w_i∂x_i = 3 w_i², ∂²/∂b² = 2.
    let flat = |g: &Linear, gx: &[f64]| [g.to_flat(), gx.to_vec()].concat();
    Probe::new("cubed", |v| cubed(&linear_at(v), &v[4..]))
        .grad(|v| {
            let (value, (g, gx)) = cubed_grad(&linear_at(v), &v[4..]);
            (value, flat(&g, &gx))
        })
        .jvp(|v, t| cubed_jvp(&linear_at(v), &v[4..], (linear_at(t), t[4..].to_vec())))
        .hessian(|v| {
            let (value, (g, gx), h) = cubed_hessian(&linear_at(v), &v[4..]);
            (value, flat(&g, &gx), h)
        })
        .analytic(|v| {
            let (w, x) = (&v[..3], &v[4..]);
            let mut g: Vec<f64> = (0..3).map(|i| 3.0 * w[i] * w[i] * x[i]).collect();
            g.push(2.0 * v[3]);
            g.extend((0..3).map(|i| w[i] * w[i] * w[i]));
            g
        })
        .run(32, probe::range(7, -1.5, 1.5));
    let mut rng = Lcg::new(probe::seed_of("structarg21 cubed by hand"));
    for _ in 0..24 {
        let v = rng.vec(7, -1.5, 1.5);
        let (w, x) = (&v[..3], &v[4..]);
        let mut by_hand = vec![vec![0.0; 7]; 7];
        for i in 0..3 {
            by_hand[i][i] = 6.0 * w[i] * x[i];
            by_hand[i][4 + i] = 3.0 * w[i] * w[i];
            by_hand[4 + i][i] = 3.0 * w[i] * w[i];
        }
        by_hand[3][3] = 2.0;
        let (_, _, h) = cubed_hessian(&linear_at(&v), &v[4..]);
        assert_hessian(&h, &by_hand, "cubed Hessian by hand");
    }
}

#[test]
fn an_array_field_passed_on_whole_to_a_slice_or_an_array_at_order_2() {
    let x = [0.9, -0.6];
    // k (c · x) over (c, k): gradient (k x, c · x); Hessian 1 at (c_i, k) times x_i.
    Probe::new("pinned_dot", |v| pinned_dot(&pinned_at(v), &x))
        .grad(|v| {
            let (value, g) = pinned_dot_grad(&pinned_at(v), &x);
            (value, g.to_flat())
        })
        .jvp(|v, t| pinned_dot_jvp(&pinned_at(v), &x, pinned_at(t)))
        .hessian(|v| {
            let (value, g, h) = pinned_dot_hessian(&pinned_at(v), &x);
            (value, g.to_flat(), h)
        })
        .analytic(|v| vec![v[2] * x[0], v[2] * x[1], v[0] * x[0] + v[1] * x[1]])
        .run(32, probe::range(3, -1.5, 1.5));
    // k d² + c_0, d = c · x: gradient (2 k d x + e_0, d²); Hessian 2k x xᵀ, 2 d x_i at (c_i, k).
    Probe::new("pinned_array", |v| pinned_array(&pinned_at(v), &x))
        .grad(|v| {
            let (value, g) = pinned_array_grad(&pinned_at(v), &x);
            (value, g.to_flat())
        })
        .jvp(|v, t| pinned_array_jvp(&pinned_at(v), &x, pinned_at(t)))
        .hessian(|v| {
            let (value, g, h) = pinned_array_hessian(&pinned_at(v), &x);
            (value, g.to_flat(), h)
        })
        .analytic(|v| {
            let d = v[0] * x[0] + v[1] * x[1];
            vec![2.0 * v[2] * d * x[0] + 1.0, 2.0 * v[2] * d * x[1], d * d]
        })
        .run(32, probe::range(3, -1.5, 1.5));
    let mut rng = Lcg::new(probe::seed_of("structarg21 pinned by hand"));
    for _ in 0..24 {
        let v = rng.vec(3, -1.5, 1.5);
        let (_, _, h) = pinned_dot_hessian(&pinned_at(&v), &x);
        let by_hand = vec![
            vec![0.0, 0.0, x[0]],
            vec![0.0, 0.0, x[1]],
            vec![x[0], x[1], 0.0],
        ];
        assert_hessian(&h, &by_hand, "pinned_dot Hessian by hand");
        let (k, d) = (v[2], v[0] * x[0] + v[1] * x[1]);
        let (_, _, h) = pinned_array_hessian(&pinned_at(&v), &x);
        let by_hand = vec![
            vec![2.0 * k * x[0] * x[0], 2.0 * k * x[0] * x[1], 2.0 * d * x[0]],
            vec![2.0 * k * x[1] * x[0], 2.0 * k * x[1] * x[1], 2.0 * d * x[1]],
            vec![2.0 * d * x[0], 2.0 * d * x[1], 0.0],
        ];
        assert_hessian(&h, &by_hand, "pinned_array Hessian by hand");
    }
}

#[test]
fn a_nested_struct_and_a_vec_field_passed_on_whole_at_order_2() {
    // a Σ v_i² + s d², d = w · x, over (a, v_0, v_1, w, s).
    Probe::new("nested_and_vec", |v| nested_and_vec(&outer_at(v), &X))
        .grad(|v| {
            let (value, g) = nested_and_vec_grad(&outer_at(v), &X);
            (value, g.to_flat())
        })
        .jvp(|v, t| nested_and_vec_jvp(&outer_at(v), &X, outer_at(t)))
        .hessian(|v| {
            let (value, g, h) = nested_and_vec_hessian(&outer_at(v), &X);
            (value, g.to_flat(), h)
        })
        .analytic(|v| {
            let d = probe::dot(&v[3..6], &X);
            let mut g = vec![
                v[1] * v[1] + v[2] * v[2],
                2.0 * v[0] * v[1],
                2.0 * v[0] * v[2],
            ];
            g.extend(X.iter().map(|x| 2.0 * v[6] * d * x));
            g.push(d * d);
            g
        })
        .run(32, probe::range(7, -1.5, 1.5));
    let mut rng = Lcg::new(probe::seed_of("structarg21 nested by hand"));
    for _ in 0..24 {
        let v = rng.vec(7, -1.5, 1.5);
        let (a, s, d) = (v[0], v[6], probe::dot(&v[3..6], &X));
        let mut by_hand = vec![vec![0.0; 7]; 7];
        for i in 0..2 {
            by_hand[0][1 + i] = 2.0 * v[1 + i];
            by_hand[1 + i][0] = 2.0 * v[1 + i];
            by_hand[1 + i][1 + i] = 2.0 * a;
        }
        for i in 0..3 {
            for j in 0..3 {
                by_hand[3 + i][3 + j] = 2.0 * s * X[i] * X[j];
            }
            by_hand[3 + i][6] = 2.0 * d * X[i];
            by_hand[6][3 + i] = 2.0 * d * X[i];
        }
        let (_, _, h) = nested_and_vec_hessian(&outer_at(&v), &X);
        assert_hessian(&h, &by_hand, "nested_and_vec Hessian by hand");
    }
}

#[differentiable]
fn weigh(k: &[f64; 3], u: f64) -> f64 {
    k[0] * u + k[2] * u * u
}

#[derive(Clone, Debug, Differentiable)]
struct Joint {
    k: [f64; 3],
    rest: f64,
}

/// An array field copied to a local and passed on by reference (`let k = j.k; weigh(&k, ..)`):
/// `k_0 u + k_2 u² + rest x`, `u = x - rest`.
#[differentiable(wrt(j, x), order = 2)]
fn copied_field(j: &Joint, x: f64) -> f64 {
    let k = j.k;
    let shifted = k;
    weigh(&shifted, x - j.rest) + j.rest * x
}

fn joint_at(v: &[f64]) -> Joint {
    Joint {
        k: [v[0], v[1], v[2]],
        rest: v[3],
    }
}

#[test]
fn an_array_field_copied_to_a_local_and_passed_on_at_order_2() {
    let flat = |g: &Joint, gx: f64| [g.to_flat(), vec![gx]].concat();
    Probe::new("copied_field", |v| copied_field(&joint_at(v), v[4]))
        .grad(|v| {
            let (value, (g, gx)) = copied_field_grad(&joint_at(v), v[4]);
            (value, flat(&g, gx))
        })
        .jvp(|v, t| copied_field_jvp(&joint_at(v), v[4], (joint_at(t), t[4])))
        .hessian(|v| {
            let (value, (g, gx), h) = copied_field_hessian(&joint_at(v), v[4]);
            (value, flat(&g, gx), h)
        })
        .analytic(|v| {
            let (k, rest, x) = (&v[..3], v[3], v[4]);
            let u = x - rest;
            vec![
                u,
                0.0,
                u * u,
                -k[0] - 2.0 * k[2] * u + x,
                k[0] + 2.0 * k[2] * u + rest,
            ]
        })
        .run(32, probe::range(5, -1.5, 1.5));
    let mut rng = Lcg::new(probe::seed_of("structarg21 copied_field by hand"));
    for _ in 0..24 {
        let v = rng.vec(5, -1.5, 1.5);
        let (k2, u) = (v[2], v[4] - v[3]);
        // Over (k_0, k_1, k_2, rest, x).
        let by_hand = vec![
            vec![0.0, 0.0, 0.0, -1.0, 1.0],
            vec![0.0; 5],
            vec![0.0, 0.0, 0.0, -2.0 * u, 2.0 * u],
            vec![-1.0, 0.0, -2.0 * u, 2.0 * k2, 1.0 - 2.0 * k2],
            vec![1.0, 0.0, 2.0 * u, 1.0 - 2.0 * k2, 2.0 * k2],
        ];
        let (_, _, h) = copied_field_hessian(&joint_at(&v), v[4]);
        assert_hessian(&h, &by_hand, "copied_field Hessian by hand");
    }
}
