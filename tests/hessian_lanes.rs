//! `f_hessian` in vector mode: where every float parameter is a scalar, a tuple of scalars or a flat
//! array, `f_hessian` runs `f_grad` on dual numbers of eight tangents, one pass per eight inputs. These
//! tests check it where the passes split the inputs unevenly (1 to 20 inputs, so one to three passes,
//! lanes left unused in the last), across parameters of every such kind, active and not, against two
//! references that share no code with it: the columns `H e_i` from `f_hvp` (one `Dual` pass each) and
//! central differences of `f_grad`.

#![allow(clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Float};
use common::{config, hessian_column};
use proptest::prelude::*;

/// Slice, scalar, pair, array and a `&f64` scalar, all active, with couplings across all of them.
#[differentiable(order = 2)]
fn mixed(x: &[f64], a: f64, p: (f64, f64), w: [f64; 3], c: &f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += (x[i] * a + w[i % 3]).sin() * x[(i + 1) % x.len()];
    }
    let q = p.0 * p.1 + *c * a;
    s * q.exp() + w[0] * w[1] * w[2] * c.cos() + (x[0] * p.1).tanh()
}

/// The same, with `x` and `c` constants: only `a`, `p` and `w` are flattened.
#[differentiable(order = 2, wrt(a, p, w))]
fn mixed_wrt(x: &[f64], a: f64, p: (f64, f64), w: [f64; 3], c: &f64) -> f64 {
    mixed(x, a, p, w, c)
}

/// Generic over its float type, so the lanes run on the function itself.
#[differentiable(order = 2)]
fn generic_energy<T: Float>(x: &[T], k: T) -> T {
    let mut e = T::zero();
    for i in 0..x.len() - 1 {
        let d = x[i + 1] - x[i];
        e = e + k * d * d * d.cos() + (x[i] * k).exp();
    }
    e
}

/// Nine scalar parameters: two passes, and a gradient tuple longer than any `Lane` impl of tuples.
#[differentiable(order = 2)]
#[allow(clippy::too_many_arguments)]
fn nine(a: f64, b: f64, c: f64, d: f64, e: f64, f: f64, g: f64, h: f64, k: f64) -> f64 {
    (a * b + c * d).sin() * (e - f * g).exp() + h * h * k + a * k
}

/// Flat inputs `(x, a, p.0, p.1, w, c)` into the arguments of `mixed`.
fn split(flat: &[f64], n: usize) -> (Vec<f64>, f64, (f64, f64), [f64; 3], f64) {
    let x = flat[..n].to_vec();
    let rest = &flat[n..];
    (
        x,
        rest[0],
        (rest[1], rest[2]),
        [rest[3], rest[4], rest[5]],
        rest[6],
    )
}

/// The gradient of `mixed`, flattened in declaration order.
fn mixed_gradient(flat: &[f64], n: usize) -> Vec<f64> {
    let (x, a, p, w, c) = split(flat, n);
    let (_, (gx, ga, gp, gw, gc)) = mixed_grad(&x, a, p, w, &c);
    let mut g = gx;
    g.extend([ga, gp.0, gp.1, gw[0], gw[1], gw[2], gc]);
    g
}

/// Asserts that `h` has the columns `columns(i)` to `tol` (relative to the larger entry, at least 1).
#[track_caller]
fn assert_columns(h: &[Vec<f64>], columns: impl Fn(usize) -> Vec<f64>, tol: f64, what: &str) {
    let n = h.len();
    for i in 0..n {
        assert_eq!(h[i].len(), n, "{what}: row {i} has {} entries", h[i].len());
        let column = columns(i);
        for r in 0..n {
            let scale = h[r][i].abs().max(column[r].abs()).max(1.0);
            assert!(
                (h[r][i] - column[r]).abs() <= tol * scale,
                "{what}: H[{r}][{i}] = {}, expected {}",
                h[r][i],
                column[r]
            );
        }
    }
}

fn inputs(len: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(-1.0..1.0_f64, len)
}

proptest! {
    #![proptest_config(config())]

    /// 1 to 20 inputs in `x` (8 to 27 in all): against `f_hvp`'s columns and central differences.
    #[test]
    fn mixed_parameters_against_hvp_and_differences(n in 1usize..21, seed in inputs(27)) {
        let flat = &seed[..n + 7];
        let (x, a, p, w, c) = split(flat, n);
        let (value, gradient, h) = mixed_hessian(&x, a, p, w, &c);
        prop_assert_eq!(value, mixed(&x, a, p, w, &c));
        prop_assert_eq!(gradient, mixed_grad(&x, a, p, w, &c).1);
        prop_assert_eq!(h.len(), n + 7);
        let unit = |i: usize| {
            let mut e = vec![0.0; n + 7];
            e[i] = 1.0;
            split(&e, n)
        };
        assert_columns(&h, |i| {
            let (ex, ea, ep, ew, ec) = unit(i);
            let (_, _, (hx, ha, hp, hw, hc)) = mixed_hvp(&x, a, p, w, &c, (ex, ea, ep, ew, ec));
            let mut column = hx;
            column.extend([ha, hp.0, hp.1, hw[0], hw[1], hw[2], hc]);
            column
        }, 1e-12, "mixed against f_hvp");
        assert_columns(&h, |i| hessian_column(|y| mixed_gradient(y, n), flat, i), 1e-5,
            "mixed against central differences");
    }

    /// Inactive parameters are constants of the passes, and only the active inputs are flattened.
    #[test]
    fn inactive_parameters_stay_constant(n in 1usize..12, seed in inputs(18)) {
        let flat = &seed[..n + 7];
        let (x, a, p, w, c) = split(flat, n);
        let (value, _, h) = mixed_wrt_hessian(&x, a, p, w, &c);
        prop_assert_eq!(value, mixed_wrt(&x, a, p, w, &c));
        let (_, _, full) = mixed_hessian(&x, a, p, w, &c);
        // `(a, p.0, p.1, w)` are entries n..n + 6 of the full Hessian.
        prop_assert_eq!(h.len(), 6);
        for r in 0..6 {
            for col in 0..6 {
                let (got, want) = (h[r][col], full[n + r][n + col]);
                prop_assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "H[{}][{}] = {}, expected {}", r, col, got, want);
            }
        }
    }

    /// Nine scalars: against central differences of the gradient.
    #[test]
    fn nine_scalars_against_differences(v in inputs(9)) {
        let (value, _, h) = nine_hessian(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]);
        prop_assert_eq!(value, nine(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]));
        let gradient = |y: &[f64]| {
            let (_, g) = nine_grad(y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7], y[8]);
            vec![g.0, g.1, g.2, g.3, g.4, g.5, g.6, g.7, g.8]
        };
        assert_columns(&h, |i| hessian_column(gradient, &v, i), 1e-5, "nine");
    }

    /// A generic function, 2 to 20 inputs: against central differences of its gradient.
    #[test]
    fn generic_against_differences(n in 2usize..21, seed in inputs(21)) {
        let flat = &seed[..n + 1];
        let (_, _, h) = generic_energy_hessian(&flat[..n], flat[n]);
        let gradient = |y: &[f64]| {
            let (_, (mut gx, gk)) = generic_energy_grad(&y[..n], y[n]);
            gx.push(gk);
            gx
        };
        assert_columns(&h, |i| hessian_column(gradient, flat, i), 1e-5, "generic_energy");
    }
}
