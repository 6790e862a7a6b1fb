//! Tuples as data and the constructs around them, each at first order and at `order = 2`:
//!
//! - an owned `Vec<(usize, f64)>` parameter (the items made for it moved it more than once: E0382), also
//!   passed on to a callee;
//! - `&[(f64, f64); N]` parameters (`at(&q, k)` was `&&[..; N]`: E0308);
//! - iterating slices of tuples by reference: `for (i, w) in terms.iter()` with `*i`, `for &(i, w) in ..`,
//!   `.map(|&(i, w)| ..)`, `.map(|(i, w)| *w * x[*i])`, over `&[..]`, `&Vec<..>`, `Vec<..>` and arrays (an
//!   owned one was "references are not supported", spanned on the attribute);
//! - zips of zips (`a.iter().zip(b.iter()).zip(c.iter())`, in a chain and in a `for`, also `.enumerate()`d
//!   and nested on the right);
//! - `x.copysign(y)`: slope `copysign(1, x) * copysign(1, y)` in `x`, 0 in `y` (`docs/conventions.md`).
//!
//! Each function is checked on seeded random inputs: `f_grad` against central differences of the function
//! and against the derivative written by hand, `f_jvp` against the gradient, and at `order = 2` the Hessian
//! against central differences of `f_grad` (`common::probe::Probe`).

#![allow(clippy::needless_range_loop, clippy::ptr_arg, clippy::type_complexity)]

mod common;

use autodiff::differentiable;
use common::probe::*;

const POINTS: usize = 40;

// 1. An owned `Vec` of tuples.

/// `Σ w x[i]²` over owned `(index, weight)` pairs, read by index (first order only: the items of a
/// function at first order).
#[differentiable]
fn weighted(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    let mut s = 0.0;
    for k in 0..terms.len() {
        let (i, w) = terms[k];
        s += w * x[i] * x[i];
    }
    s
}

/// The same at `order = 2`, with a field read (`terms[k].1`) beside the destructuring.
#[differentiable(order = 2)]
fn weighted2(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    let mut s = 0.0;
    for k in 0..terms.len() {
        let (i, w) = terms[k];
        s += w * x[i] * x[i] + terms[k].1 * x[i].sin();
    }
    s
}

/// A caller that hands its owned tuples on to `weighted2`.
#[differentiable(order = 2)]
fn passes_owned(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    weighted2(x, terms) * x[0]
}

fn terms() -> Vec<(usize, f64)> {
    vec![(0, 1.5), (2, -0.5), (0, 2.0), (3, 0.25), (1, 0.75)]
}

/// `d/dx_i Σ w x[i]² (+ w sin x[i])`.
fn weighted_grad_by_hand(x: &[f64], terms: &[(usize, f64)], with_sin: bool) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for &(i, w) in terms {
        g[i] += 2.0 * w * x[i];
        if with_sin {
            g[i] += w * x[i].cos();
        }
    }
    g
}

#[test]
fn owned_vec_of_tuples() {
    let r = terms();
    Probe::new("weighted", |x| weighted(x, r.clone()))
        .grad(|x| weighted_grad(x, r.clone()))
        .analytic(|x| weighted_grad_by_hand(x, &r, false))
        .run(POINTS, range(4, -1.5, 1.5));
    Probe::new("weighted2", |x| weighted2(x, r.clone()))
        .grad(|x| weighted2_grad(x, r.clone()))
        .hessian(|x| weighted2_hessian(x, r.clone()))
        .analytic(|x| weighted_grad_by_hand(x, &r, true))
        .run(POINTS, range(4, -1.5, 1.5));
    Probe::new("passes_owned", |x| passes_owned(x, r.clone()))
        .grad(|x| passes_owned_grad(x, r.clone()))
        .hessian(|x| passes_owned_hessian(x, r.clone()))
        .analytic(|x| {
            let mut g = weighted_grad_by_hand(x, &r, true);
            for gi in g.iter_mut() {
                *gi *= x[0];
            }
            g[0] += weighted2(x, r.clone());
            g
        })
        .run(POINTS, range(4, -1.5, 1.5));
    // The Hessian of weighted2 exactly: diagonal, `Σ w (2 - sin x[i])` per index.
    let x = [0.3, -0.2, 0.9, 0.4];
    let (_, _, h) = weighted2_hessian(&x, r.clone());
    for i in 0..4 {
        for j in 0..4 {
            let expected = match i == j {
                true => r
                    .iter()
                    .filter(|(k, _)| *k == i)
                    .map(|(_, w)| w * (2.0 - x[i].sin()))
                    .sum(),
                false => 0.0,
            };
            assert_near(
                h[i][j],
                expected,
                1e-12,
                1.0,
                &format!("weighted2 H[{i}][{j}]"),
            );
        }
    }
}

// 2. A reference to an array of tuples.

/// `&[(f64, f64); 2]`, read by index and by field.
#[differentiable(order = 2)]
fn array_pairs(x: &[f64], q: &[(f64, f64); 2]) -> f64 {
    let mut s = 0.0;
    for k in 0..2 {
        let (a, b) = q[k];
        s += a * x[0] * x[1] + b * x[k].exp() + q[k].1 * q[k].0;
    }
    s
}

/// `&[(f64, f64); 2]` at first order only, passed to it.
#[differentiable]
fn array_pairs_first(x: f64, q: &[(f64, f64); 2]) -> f64 {
    let (a, b) = q[1];
    a * x.sin() + b * x * x + q[0].0
}

#[test]
fn reference_to_an_array_of_tuples() {
    let q = [(0.7, -1.3), (1.1, 0.4)];
    Probe::new("array_pairs", |x| array_pairs(x, &q))
        .grad(|x| array_pairs_grad(x, &q))
        .hessian(|x| array_pairs_hessian(x, &q))
        .analytic(|x| {
            let a = q[0].0 + q[1].0;
            vec![
                a * x[1] + q[0].1 * x[0].exp(),
                a * x[0] + q[1].1 * x[1].exp(),
            ]
        })
        .run(POINTS, range(2, -1.5, 1.5));
    Probe::new("array_pairs_first", |x| array_pairs_first(x[0], &q))
        .grad(|x| {
            let (v, g) = array_pairs_first_grad(x[0], &q);
            (v, vec![g])
        })
        .jvp(|x, t| array_pairs_first_jvp(x[0], &q, t[0]))
        .analytic(|x| vec![1.1 * x[0].cos() + 0.8 * x[0]])
        .run(POINTS, range(1, -2.0, 2.0));
}

// 3. Iterating slices of tuples by reference.

/// `for (i, w) in terms.iter()`: `w: &f64` in the arithmetic, `*i` the index.
#[differentiable(order = 2)]
fn iter_refs(x: &[f64], terms: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for (i, w) in terms.iter() {
        s += w * x[*i] * x[*i];
    }
    s
}

/// `for &(i, w) in terms.iter()` and `for &(i, w) in terms` (a `&[..]`).
#[differentiable(order = 2)]
fn iter_by_value(x: &[f64], terms: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for &(i, w) in terms.iter() {
        s += w * x[i] * x[i];
    }
    for &(i, w) in terms {
        s += w * x[i].sin();
    }
    s
}

/// The two closures: `|&(i, w)| w * x[i]` and `|(i, w)| *w * x[*i]`.
#[differentiable(order = 2)]
fn mapped(x: &[f64], terms: &[(usize, f64)]) -> f64 {
    let a: f64 = terms.iter().map(|&(i, w)| w * x[i] * x[i]).sum();
    let b: f64 = terms.iter().map(|(i, w)| *w * x[*i].sin()).sum();
    a + b
}

/// All of them over an owned `Vec` (the loop's length was `(&terms).len()`, a reference the fence
/// rejected, spanned on the attribute).
#[differentiable(order = 2)]
fn owned_iterated(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    let mut s = 0.0;
    for (i, w) in terms.iter() {
        s += w * x[*i] * x[*i];
    }
    for &(i, w) in &terms {
        s += w * x[i].sin() * 0.5;
    }
    s += terms.iter().map(|(i, w)| *w * x[*i].sin()).sum::<f64>() * 0.5;
    s
}

/// The same at first order only, with an enumerated loop and the `|&(i, w)|` closure.
#[differentiable]
fn owned_first(x: &[f64], terms: Vec<(usize, f64)>) -> f64 {
    let mut s = terms.iter().map(|&(i, w)| w * x[i] * x[i]).sum::<f64>();
    for (k, &(i, w)) in terms.iter().enumerate() {
        s += w * x[i].sin() * (k as f64 + 1.0);
    }
    s
}

/// Over a `&Vec`.
#[differentiable(order = 2)]
fn vec_ref_iterated(x: &[f64], terms: &Vec<(usize, f64)>) -> f64 {
    let mut s = terms.iter().map(|(i, w)| *w * x[*i] * x[*i]).sum::<f64>();
    for &(i, w) in terms {
        s += w * x[i].sin();
    }
    s
}

/// Over arrays of tuples, owned and by reference, with float pairs.
#[differentiable(order = 2)]
fn array_iterated(x: &[f64], terms: [(usize, f64); 5], q: &[(f64, f64); 2]) -> f64 {
    let mut s = terms.iter().map(|(i, w)| *w * x[*i] * x[*i]).sum::<f64>();
    for (a, b) in q.iter() {
        s += *a * x[0] * x[1] + b * x[2];
    }
    for &(a, b) in q {
        s += a * b * x[3].sin();
    }
    for (i, w) in terms.iter() {
        s += w * x[*i].sin();
    }
    s
}

/// Backwards: a Horner-like accumulation, whose result depends on the order, and the counts of
/// `.enumerate().rev()` (the index) and `.rev().enumerate()` (0 at the last element).
#[differentiable(order = 2)]
fn reversed(x: &[f64], terms: &[(usize, f64)]) -> f64 {
    let mut s = 0.0;
    for (i, w) in terms.iter().rev() {
        s = s * 0.5 + w * x[*i];
    }
    for (k, &(i, w)) in terms.iter().enumerate().rev() {
        s = s * 0.75 + w * x[i] * k as f64;
    }
    for (k, (i, w)) in terms.iter().rev().enumerate() {
        s = s * 0.25 + w * x[*i].sin() * k as f64;
    }
    s
}

/// `reversed` by hand: the accumulations over the same orders, and their gradient (each term's weight is
/// the product of the factors applied after it).
fn reversed_by_hand(x: &[f64], terms: &[(usize, f64)]) -> (f64, Vec<f64>) {
    let n = terms.len();
    // The terms in the order added, each with its factor applied after it and its index and slope.
    let mut added: Vec<(f64, f64, usize, f64, f64)> = Vec::new();
    for &(i, w) in terms.iter().rev() {
        added.push((0.5, w * x[i], i, w, 0.0));
    }
    for (k, &(i, w)) in terms.iter().enumerate().rev() {
        added.push((0.75, w * x[i] * k as f64, i, w * k as f64, 0.0));
    }
    for (k, &(i, w)) in terms.iter().rev().enumerate() {
        added.push((
            0.25,
            w * x[i].sin() * k as f64,
            i,
            w * x[i].cos() * k as f64,
            0.0,
        ));
    }
    let (mut s, mut g) = (0.0, vec![0.0; x.len()]);
    for t in 0..added.len() {
        s = s * added[t].0 + added[t].1;
        let after: f64 = added[t + 1..].iter().map(|a| a.0).product();
        g[added[t].2] += added[t].3 * after;
    }
    assert_eq!(added.len(), 3 * n);
    (s, g)
}

#[test]
fn tuples_iterated_backwards() {
    let r = terms();
    Probe::new("reversed", |x| reversed(x, &r))
        .grad(|x| reversed_grad(x, &r))
        .hessian(|x| reversed_hessian(x, &r))
        .analytic(|x| reversed_by_hand(x, &r).1)
        .run(POINTS, range(4, -1.5, 1.5));
    let x = [0.3, -0.7, 1.1, 0.2];
    assert_near(
        reversed(&x, &r),
        reversed_by_hand(&x, &r).0,
        1e-12,
        1.0,
        "reversed's value",
    );
}

#[test]
fn tuples_iterated_by_reference() {
    let r = terms();
    let squares_and_sines = |x: &[f64]| weighted_grad_by_hand(x, &r, true);
    let squares = |x: &[f64]| weighted_grad_by_hand(x, &r, false);
    Probe::new("iter_refs", |x| iter_refs(x, &r))
        .grad(|x| iter_refs_grad(x, &r))
        .hessian(|x| iter_refs_hessian(x, &r))
        .analytic(squares)
        .run(POINTS, range(4, -1.5, 1.5));
    Probe::new("iter_by_value", |x| iter_by_value(x, &r))
        .grad(|x| iter_by_value_grad(x, &r))
        .hessian(|x| iter_by_value_hessian(x, &r))
        .analytic(squares_and_sines)
        .run(POINTS, range(4, -1.5, 1.5));
    Probe::new("mapped", |x| mapped(x, &r))
        .grad(|x| mapped_grad(x, &r))
        .hessian(|x| mapped_hessian(x, &r))
        .analytic(squares_and_sines)
        .run(POINTS, range(4, -1.5, 1.5));
    Probe::new("owned_iterated", |x| owned_iterated(x, r.clone()))
        .grad(|x| owned_iterated_grad(x, r.clone()))
        .hessian(|x| owned_iterated_hessian(x, r.clone()))
        .analytic(squares_and_sines)
        .run(POINTS, range(4, -1.5, 1.5));
    Probe::new("owned_first", |x| owned_first(x, r.clone()))
        .grad(|x| owned_first_grad(x, r.clone()))
        .analytic(|x| {
            let mut g = weighted_grad_by_hand(x, &r, false);
            for (k, &(i, w)) in r.iter().enumerate() {
                g[i] += w * x[i].cos() * (k as f64 + 1.0);
            }
            g
        })
        .run(POINTS, range(4, -1.5, 1.5));
    Probe::new("vec_ref_iterated", |x| vec_ref_iterated(x, &r))
        .grad(|x| vec_ref_iterated_grad(x, &r))
        .hessian(|x| vec_ref_iterated_hessian(x, &r))
        .analytic(squares_and_sines)
        .run(POINTS, range(4, -1.5, 1.5));
    let fixed = [(0, 1.5), (2, -0.5), (0, 2.0), (3, 0.25), (1, 0.75)];
    let q = [(0.7, -1.3), (1.1, 0.4)];
    Probe::new("array_iterated", |x| array_iterated(x, fixed, &q))
        .grad(|x| array_iterated_grad(x, fixed, &q))
        .hessian(|x| array_iterated_hessian(x, fixed, &q))
        .analytic(|x| {
            let mut g = weighted_grad_by_hand(x, &fixed, true);
            g[0] += 1.8 * x[1];
            g[1] += 1.8 * x[0];
            g[2] += -0.9;
            g[3] += (0.7 * -1.3 + 1.1 * 0.4) * x[3].cos();
            g
        })
        .run(POINTS, range(4, -1.5, 1.5));
}

// 4. Zips of zips.

/// A chain over three zipped slices.
#[differentiable(order = 2)]
fn zip3(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    a.iter()
        .zip(b.iter())
        .zip(c.iter())
        .map(|((x, y), z)| x * y * z)
        .sum()
}

/// A `for` over three zipped slices, `.sin()` of a reference's value.
#[differentiable(order = 2)]
fn zip3_for(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    let mut s = 0.0;
    for ((x, y), z) in a.iter().zip(b.iter()).zip(c.iter()) {
        s += x * y * z.sin();
    }
    s
}

/// Nested on the right, by value, enumerated, and four slices deep.
#[differentiable(order = 2)]
fn zip_shapes(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, (y, z)) in a.iter().zip(b.iter().zip(c.iter())) {
        s += x * y + z;
    }
    for ((&x, &y), &z) in a.iter().zip(b.iter()).zip(c.iter()) {
        s += (x - y) * z;
    }
    for (k, ((x, y), z)) in a.iter().zip(b.iter()).zip(c.iter()).enumerate() {
        s += x * y * z * (k as f64 + 1.0);
    }
    s += a
        .iter()
        .zip(b.iter())
        .zip(c.iter())
        .zip(a.iter())
        .map(|(((x, y), z), w)| x * y * z * w)
        .sum::<f64>();
    s
}

/// Three slices of different lengths: the zip stops at the shortest.
#[differentiable(order = 2)]
fn zip3_short(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    a.iter()
        .zip(b.iter())
        .zip(c.iter())
        .map(|((x, y), z)| (x + y).exp() * z)
        .sum()
}

type Grad3 = (f64, (Vec<f64>, Vec<f64>, Vec<f64>));

/// A function of three slices seen through one flat vector `[a; b; c]` of lengths `n`.
fn split3(x: &[f64], n: [usize; 3]) -> (&[f64], &[f64], &[f64]) {
    let (a, rest) = x.split_at(n[0]);
    let (b, c) = rest.split_at(n[1]);
    assert_eq!(c.len(), n[2]);
    (a, b, c)
}

fn flat((v, (ga, gb, gc)): Grad3) -> (f64, Vec<f64>) {
    (v, [ga, gb, gc].concat())
}

#[test]
fn zips_of_zips() {
    let n = [4, 4, 4];
    Probe::new("zip3", |x| {
        let (a, b, c) = split3(x, n);
        zip3(a, b, c)
    })
    .grad(|x| {
        let (a, b, c) = split3(x, n);
        flat(zip3_grad(a, b, c))
    })
    .hessian(|x| {
        let (a, b, c) = split3(x, n);
        let (v, g, h) = zip3_hessian(a, b, c);
        (v, [g.0, g.1, g.2].concat(), h)
    })
    .analytic(|x| {
        let (a, b, c) = split3(x, n);
        let ga = (0..4).map(|i| b[i] * c[i]);
        let gb = (0..4).map(|i| a[i] * c[i]);
        let gc = (0..4).map(|i| a[i] * b[i]);
        ga.chain(gb).chain(gc).collect()
    })
    .run(POINTS, range(12, -1.5, 1.5));
    Probe::new("zip3_for", |x| {
        let (a, b, c) = split3(x, n);
        zip3_for(a, b, c)
    })
    .grad(|x| {
        let (a, b, c) = split3(x, n);
        flat(zip3_for_grad(a, b, c))
    })
    .hessian(|x| {
        let (a, b, c) = split3(x, n);
        let (v, g, h) = zip3_for_hessian(a, b, c);
        (v, [g.0, g.1, g.2].concat(), h)
    })
    .analytic(|x| {
        let (a, b, c) = split3(x, n);
        let ga = (0..4).map(|i| b[i] * c[i].sin());
        let gb = (0..4).map(|i| a[i] * c[i].sin());
        let gc = (0..4).map(|i| a[i] * b[i] * c[i].cos());
        ga.chain(gb).chain(gc).collect()
    })
    .run(POINTS, range(12, -1.5, 1.5));
    Probe::new("zip_shapes", |x| {
        let (a, b, c) = split3(x, n);
        zip_shapes(a, b, c)
    })
    .grad(|x| {
        let (a, b, c) = split3(x, n);
        flat(zip_shapes_grad(a, b, c))
    })
    .hessian(|x| {
        let (a, b, c) = split3(x, n);
        let (v, g, h) = zip_shapes_hessian(a, b, c);
        (v, [g.0, g.1, g.2].concat(), h)
    })
    .analytic(|x| {
        let (a, b, c) = split3(x, n);
        let mut g = vec![0.0; 12];
        for i in 0..4 {
            let k = i as f64 + 1.0;
            g[i] += b[i] + c[i] + k * b[i] * c[i] + 2.0 * a[i] * b[i] * c[i];
            g[4 + i] += a[i] - c[i] + k * a[i] * c[i] + a[i] * a[i] * c[i];
            g[8 + i] += 1.0 + (a[i] - b[i]) + k * a[i] * b[i] + a[i] * a[i] * b[i];
        }
        g
    })
    .run(POINTS, range(12, -1.5, 1.5));
    let short = [5, 3, 4];
    Probe::new("zip3_short", |x| {
        let (a, b, c) = split3(x, short);
        zip3_short(a, b, c)
    })
    .grad(|x| {
        let (a, b, c) = split3(x, short);
        flat(zip3_short_grad(a, b, c))
    })
    .hessian(|x| {
        let (a, b, c) = split3(x, short);
        let (v, g, h) = zip3_short_hessian(a, b, c);
        (v, [g.0, g.1, g.2].concat(), h)
    })
    .analytic(|x| {
        let (a, b, c) = split3(x, short);
        let mut g = vec![0.0; 12];
        for i in 0..3 {
            let e = (a[i] + b[i]).exp();
            g[i] = e * c[i];
            g[5 + i] = e * c[i];
            g[8 + i] = e;
        }
        g
    })
    .run(POINTS, range(12, -1.5, 1.5));
}

// 5. `copysign`.

/// `|x|` with the sign of `y`.
#[differentiable(order = 2)]
fn copysign(x: f64, y: f64) -> f64 {
    x.copysign(y)
}

/// In products and in path form: `x · copysign(x, y)` is `x |x| sgn(y)`, smooth in `x` with second
/// derivative `2 sgn(x) sgn(y)`; `f64::copysign(y * z, x)`.
#[differentiable(order = 2)]
fn copysign_terms(x: f64, y: f64, z: f64) -> f64 {
    x.copysign(y) * x + f64::copysign(y * z, x) + (x * z).sin().copysign(z)
}

/// `copysign` at first order only, with a float type parameter.
#[differentiable]
fn copysign_generic<T: autodiff::Float>(x: T, y: T) -> T {
    x.copysign(y) * y
}

fn sgn(v: f64) -> f64 {
    1.0_f64.copysign(v)
}

#[test]
fn copysign_gradients() {
    // Away from 0 in every input, where the sign of `y` (a jump) and of `x` (a kink) do not change
    // inside the central differences.
    let sample = away_from(3, -2.0, 2.0, 4.0, 0.0);
    Probe::new("copysign", |x| copysign(x[0], x[1]))
        .grad(|x| {
            let (v, (a, b)) = copysign_grad(x[0], x[1]);
            (v, vec![a, b])
        })
        .jvp(|x, t| copysign_jvp(x[0], x[1], (t[0], t[1])))
        .hessian(|x| {
            let (v, (a, b), h) = copysign_hessian(x[0], x[1]);
            (v, vec![a, b], h)
        })
        .analytic(|x| vec![sgn(x[0]) * sgn(x[1]), 0.0])
        .run(POINTS, |r| sample(r)[..2].to_vec());
    Probe::new("copysign_terms", |x| copysign_terms(x[0], x[1], x[2]))
        .grad(|x| {
            let (v, (a, b, c)) = copysign_terms_grad(x[0], x[1], x[2]);
            (v, vec![a, b, c])
        })
        .jvp(|x, t| copysign_terms_jvp(x[0], x[1], x[2], (t[0], t[1], t[2])))
        .hessian(|x| {
            let (v, (a, b, c), h) = copysign_terms_hessian(x[0], x[1], x[2]);
            (v, vec![a, b, c], h)
        })
        .analytic(|x| {
            let (a, b, c) = (x[0], x[1], x[2]);
            // The sign of `sin(x z)` decides the third term's slope.
            let s = sgn((a * c).sin()) * sgn(c);
            let yz = sgn(b * c) * sgn(a);
            vec![
                2.0 * a.abs() * sgn(b) + s * c * (a * c).cos(),
                yz * c,
                yz * b + s * a * (a * c).cos(),
            ]
        })
        .run(POINTS, |r| loop {
            // Also away from the zeros of `sin(x z)`.
            let x = sample(r);
            if ((x[0] * x[2]).sin()).abs() > 0.05 {
                break x;
            }
        });
    // The Hessian exactly: d²/dx² of `x |x| sgn(y)` is `2 sgn(x) sgn(y)`, and nothing reaches `y`.
    for (x, y) in [(0.5, 1.5), (-0.5, 1.5), (0.5, -1.5), (-0.5, -1.5)] {
        let (_, (dx, dy), h) = copysign_hessian(x, y);
        assert_eq!((dx, dy), (sgn(x) * sgn(y), 0.0), "copysign' at ({x}, {y})");
        assert_eq!(
            h,
            vec![vec![0.0, 0.0], vec![0.0, 0.0]],
            "copysign'' at ({x}, {y})"
        );
        let (_, (_, _, _), h) = copysign_terms_hessian(x, y, 0.0);
        assert_eq!(
            h[0][0],
            2.0 * sgn(x) * sgn(y),
            "x copysign(x, y)'' at ({x}, {y})"
        );
    }
    for (x, y) in [(1.25_f64, -0.5_f64), (-2.0, 0.75), (0.5, 0.25)] {
        let (v, (dx, dy)) = copysign_generic_grad(x, y);
        assert_eq!(v, x.copysign(y) * y);
        assert_eq!(
            dx,
            sgn(x) * sgn(y) * y,
            "copysign_generic d/dx at ({x}, {y})"
        );
        assert_eq!(dy, x.copysign(y), "copysign_generic d/dy at ({x}, {y})");
        let (_, (dx32, _)) = copysign_generic_grad(x as f32, y as f32);
        assert_eq!(dx32 as f64, dx);
    }
}

/// The convention at `x = 0` (`docs/conventions.md`): the slope of `|x|` from the sign bit of `x`, as
/// `abs`'s, times the sign bit of `y`; 0 in `y`. At `+0.0` that is JAX's value.
#[test]
fn copysign_at_zero() {
    let cases = [
        (0.0, 2.0, 1.0),
        (0.0, -2.0, -1.0),
        (-0.0, 2.0, -1.0),
        (-0.0, -2.0, 1.0),
        (0.0, 0.0, 1.0),
        (0.0, -0.0, -1.0),
        (-0.0, -0.0, 1.0),
    ];
    for (x, y, slope) in cases {
        let (_, (dx, dy)) = copysign_grad(x, y);
        assert_eq!((dx, dy), (slope, 0.0), "copysign' at ({x:?}, {y:?})");
        let (_, t) = copysign_jvp(x, y, (1.0, 1.0));
        assert_eq!(t, slope, "copysign_jvp at ({x:?}, {y:?})");
        let (_, (hx, hy), h) = copysign_hessian(x, y);
        assert_eq!(
            (hx, hy),
            (slope, 0.0),
            "copysign_hessian's gradient at ({x:?}, {y:?})"
        );
        assert_eq!(h, vec![vec![0.0, 0.0], vec![0.0, 0.0]]);
        // The same as `abs` where `y` is positive.
        if y.is_sign_positive() {
            assert_eq!(dx, autodiff::Float::abs(autodiff::Dual::variable(x)).eps);
        }
    }
}
