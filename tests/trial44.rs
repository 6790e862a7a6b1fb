//! An outside test suite written against API.md alone (session 44), by a user writing small real
//! projects: each module is one project of a few functions calling one another (free functions,
//! `Self::` helpers, methods, `super::`/`crate::` paths), in the idioms numeric Rust is written in.
//! Projects: an adaptive Bogacki-Shampine integrator with step rejection, a finite-volume upwind
//! advection with a minmod limiter on a periodic grid, a GP marginal likelihood through an in-place
//! Cholesky factorisation, a damped Newton solve with a backtracking line search checked against the
//! implicit function theorem, a Bradley-Terry ranking over index pairs, a Cox partial likelihood with
//! backward risk sets, straight-through estimators (`stop_gradient` and a custom gradient), isotonic
//! regression by pool-adjacent-violators, a particle-filter likelihood with fixed ancestors, the
//! smallest eigenvalue by inverse iteration, cubic Hermite interpolation with a binary search, a
//! mean-variance portfolio solved by Cramer's rule, a B-spline curve by Cox-de Boor, a Lax-Friedrichs
//! shallow-water step with two output parameters, an Elman RNN struct with a history of
//! `[f64; H]` states, a log-barrier objective at `order = 3`, and a dogleg trust-region method; and
//! regressions of the fixes made in this session.
//!
//! For each: the value against a plain or independent computation, `_grad` against central
//! differences on seeded points (and by hand where the formula is short), `_grad_into` bit for bit
//! equal to `_grad`, `_vjp` against `_jvp` (`c · (J t) = (c J) · t`) for vector results and
//! outputs, `_jacobian` against differences, and at `order = 2` the Hessian against differences of
//! `_grad` and `_hvp` against the Hessian times `v` (through `common::contract::audit`).

// Index loops (also copying between slices) and long argument lists are what the projects are written
// with; scratch output buffers are `vec![..]`s as the callers of the slice versions write them.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::type_complexity,
    clippy::too_many_arguments,
    clippy::useless_vec
)]

mod common;

use common::contract::{audit, Items};
use common::{
    arr, assert_all_close, assert_close, check_dual, check_jacobian, dot, points, same_bits, wave,
};

// ---------------------------------------------------------------------------------------------------
// (1) An adaptive Bogacki-Shampine 3(2) integrator of the van der Pol oscillator: one step writes the
// third-order solution into an output array and returns the error estimate; the driver rejects steps
// (`continue`), clamps the last one onto `t_end` and adapts `h` by the error's cube root, in a `while`
// with a compound condition. The energy at `t_end` at `order = 2`.

mod adaptive_rk {
    use super::*;
    use autodiff::differentiable;

    pub const TOL: f64 = 1e-6;

    #[differentiable]
    pub fn rhs(y: [f64; 2], mu: f64) -> [f64; 2] {
        [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]]
    }

    /// One step of size `h` from `y`: the third-order solution into `out`, the error estimate returned.
    #[differentiable]
    pub fn step(y: &[f64; 2], mu: f64, h: f64, out: &mut [f64; 2]) -> f64 {
        let k1 = rhs(*y, mu);
        let k2 = rhs([y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]], mu);
        let k3 = rhs([y[0] + 0.75 * h * k2[0], y[1] + 0.75 * h * k2[1]], mu);
        for i in 0..2 {
            out[i] = y[i] + h * (2.0 / 9.0 * k1[i] + k2[i] / 3.0 + 4.0 / 9.0 * k3[i]);
        }
        let k4 = rhs(*out, mu);
        let mut err = 0.0;
        for i in 0..2 {
            let low = y[i] + h * (7.0 / 24.0 * k1[i] + 0.25 * k2[i] + k3[i] / 3.0 + 0.125 * k4[i]);
            err += (out[i] - low).powi(2);
        }
        err.sqrt()
    }

    /// The energy `y0² + y1²/2` at `t_end`.
    #[differentiable(order = 2)]
    pub fn energy_at(y0: [f64; 2], mu: f64, t_end: f64) -> f64 {
        let mut y = y0;
        let mut t = 0.0;
        let mut h = 0.05;
        let mut tries = 0;
        while t < t_end && tries < 500 {
            tries += 1;
            let last = t + h >= t_end;
            if last {
                h = t_end - t;
            }
            let mut trial = [0.0; 2];
            let err = step(&y, mu, h, &mut trial);
            if err > TOL {
                h *= (0.9 * (TOL / err).cbrt()).max(0.2);
                continue;
            }
            t = if last { t_end } else { t + h };
            y = trial;
            h *= (0.9 * (TOL / err.max(1e-12)).cbrt()).min(5.0);
        }
        y[0] * y[0] + 0.5 * y[1] * y[1]
    }

    fn reference(y0: [f64; 2], mu: f64, t_end: f64) -> f64 {
        let f = |y: [f64; 2]| [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]];
        let n = 4000;
        let h = t_end / n as f64;
        let mut y = y0;
        for _ in 0..n {
            let k1 = f(y);
            let k2 = f([y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
            let k3 = f([y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
            let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
            for i in 0..2 {
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
        }
        y[0] * y[0] + 0.5 * y[1] * y[1]
    }

    fn flat(g: ([f64; 2], f64, f64)) -> Vec<f64> {
        vec![g.0[0], g.0[1], g.1, g.2]
    }

    fn split(x: &[f64]) -> ([f64; 2], f64, f64) {
        ([x[0], x[1]], x[2], x[3])
    }

    #[test]
    fn step_duality_and_error_order() {
        for p in points(4401, 4, 12, -1.0, 1.0) {
            let y = [p[0], p[1]];
            let mu = 1.0 + 0.5 * p[2];
            let h = 0.1 + 0.05 * p[3];
            let mut out = [0.0; 2];
            let err = step(&y, mu, h, &mut out);
            // The embedded estimate shrinks like h³ (a second-order companion).
            let mut half = [0.0; 2];
            let err_half = step(&y, mu, h / 2.0, &mut half);
            let ratio = err / err_half;
            assert!(ratio > 4.0 && ratio < 12.0, "error ratio {ratio}");

            let c = wave(2, 0.3);
            let t = wave(4, 1.2);
            let mut ov = [0.0; 2];
            let (ev, (gy, gmu, gh)) = step_vjp(&y, mu, h, &mut ov, -0.7, &arr(&c));
            assert_eq!(ev, err);
            assert_eq!(ov, out);
            let mut ot = [0.0; 2];
            let mut dout = [0.0; 2];
            let (v, dv) = step_jvp(&y, mu, h, &mut ot, ([t[0], t[1]], t[2], t[3]), &mut dout);
            assert_eq!(v, err);
            // Cotangents (-0.7 on the return, c on the output) against the tangent's outputs.
            let jt = [dv, dout[0], dout[1]];
            let ct = [-0.7, c[0], c[1]];
            check_dual("adaptive_rk::step", &ct, &jt, &[gy[0], gy[1], gmu, gh], &t);
            check_jacobian(
                "adaptive_rk::step",
                &[y[0], y[1], mu, h],
                &[vec![gy[0], gy[1], gmu, gh]],
                |x| {
                    let mut o = [0.0; 2];
                    let e = step(&[x[0], x[1]], x[2], x[3], &mut o);
                    vec![-0.7 * e + c[0] * o[0] + c[1] * o[1]]
                },
            );
        }
    }

    #[test]
    fn energy_value_gradient_and_hessian() {
        let pts: Vec<Vec<f64>> = points(4402, 4, 10, -1.0, 1.0)
            .into_iter()
            .map(|p| vec![p[0], p[1], 0.8 + 0.5 * p[2], 1.5 + 0.5 * p[3]])
            .collect();
        for x in &pts {
            let (y0, mu, te) = split(x);
            assert_close(energy_at(y0, mu, te), reference(y0, mu, te), 1e-4, "energy");
            let (v, g) = energy_at_grad(y0, mu, te);
            let mut b = ([f64::NAN; 2], f64::NAN, f64::NAN);
            let vi = energy_at_grad_into(y0, mu, te, (&mut b.0, &mut b.1, &mut b.2));
            assert_eq!(vi, v);
            same_bits(&flat(b), &flat(g), "energy_at");
            // The sensitivities of the adaptive solution track those of the accurate one.
            let fd = |i: usize| {
                let hh = 1e-5;
                let mut a = x.clone();
                let mut b = x.clone();
                a[i] += hh;
                b[i] -= hh;
                let (ya, ma, ta) = split(&a);
                let (yb, mb, tb) = split(&b);
                (reference(ya, ma, ta) - reference(yb, mb, tb)) / (2.0 * hh)
            };
            for (i, gi) in flat(g).iter().enumerate() {
                assert_close(
                    *gi,
                    fd(i),
                    1e-2,
                    "against the accurate solution's sensitivity",
                );
            }
        }
        audit(
            &Items {
                what: "adaptive_rk::energy_at",
                primal: &|x| {
                    let (y, m, t) = split(x);
                    energy_at(y, m, t)
                },
                grad: &|x| {
                    let (y, m, t) = split(x);
                    let (v, g) = energy_at_grad(y, m, t);
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (y, m, t) = split(x);
                    let (v, g) = energy_at_vjp(y, m, t, d);
                    (v, flat(g))
                },
                jvp: &|x, t| {
                    let (y, m, te) = split(x);
                    energy_at_jvp(y, m, te, split(t))
                },
                grad_into: &|x| {
                    let (y, m, t) = split(x);
                    let mut b = ([f64::NAN; 2], f64::NAN, f64::NAN);
                    let v = energy_at_grad_into(y, m, t, (&mut b.0, &mut b.1, &mut b.2));
                    (v, flat(b))
                },
                hvp: Some(&|x, v| {
                    let (y, m, t) = split(x);
                    let (val, g, hv) = energy_at_hvp(y, m, t, split(v));
                    (val, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (y, m, t) = split(x);
                    let (val, g, h) = energy_at_hessian(y, m, t);
                    (val, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) A finite-volume upwind advection with a minmod limiter on a periodic grid (`%` on indices,
// `signum`, `abs`, `min`), the faces' fluxes recomputed into a local `Vec` every step and the cells
// updated in place; the state into an output slice (its `_jacobian` over the cells and the Courant
// number), and a least-squares misfit against a target at `order = 2`.

mod upwind {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn minmod(a: f64, b: f64) -> f64 {
        0.5 * (a.signum() + b.signum()) * a.abs().min(b.abs())
    }

    /// `steps` steps of `u_t + c u_x = 0` at Courant number `courant` (`|courant| <= 1`).
    #[differentiable]
    pub fn advect(u0: &[f64], courant: f64, steps: usize, out: &mut [f64]) {
        let n = u0.len();
        let mut u = u0.to_vec();
        let mut flux = vec![0.0; n];
        for _ in 0..steps {
            for i in 0..n {
                // The face between cells i and i + 1 takes its value from the upwind cell.
                let up = if courant >= 0.0 { i } else { (i + 1) % n };
                let slope = minmod(u[up] - u[(up + n - 1) % n], u[(up + 1) % n] - u[up]);
                let face = u[up] + 0.5 * courant.signum() * (1.0 - courant.abs()) * slope;
                flux[i] = courant * face;
            }
            for i in 0..n {
                u[i] -= flux[i] - flux[(i + n - 1) % n];
            }
        }
        for (o, v) in out.iter_mut().zip(&u) {
            *o = *v;
        }
    }

    #[differentiable(wrt(u0, courant), order = 2)]
    pub fn misfit(u0: &[f64], courant: f64, target: &[f64], steps: usize) -> f64 {
        let mut u = vec![0.0; u0.len()];
        advect(u0, courant, steps, &mut u);
        u.iter()
            .zip(target)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            * 0.5
    }

    const N: usize = 7;
    const STEPS: usize = 4;

    fn bump(p: &[f64]) -> Vec<f64> {
        (0..N)
            .map(|i| (i as f64 * 0.9).sin() + 0.3 * p[i])
            .collect()
    }

    #[test]
    fn conservation_jacobian_and_duality() {
        for p in points(4411, N + 1, 12, -1.0, 1.0) {
            let u0 = bump(&p);
            let c = 0.8 * p[N];
            let mut out = vec![0.0; N];
            advect(&u0, c, STEPS, &mut out);
            assert_close(
                out.iter().sum::<f64>(),
                u0.iter().sum::<f64>(),
                1e-13,
                "mass",
            );
            let (lo, hi) = u0
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                    (a.min(*v), b.max(*v))
                });
            assert!(
                out.iter().all(|v| *v >= lo - 1e-12 && *v <= hi + 1e-12),
                "TVD bounds"
            );

            let mut oj = vec![0.0; N];
            let j = advect_jacobian(&u0, c, STEPS, &mut oj);
            assert_eq!(oj, out);
            let x: Vec<f64> = u0.iter().copied().chain([c]).collect();
            check_jacobian("upwind::advect", &x, &j, |x| {
                let mut o = vec![0.0; N];
                advect(&x[..N], x[N], STEPS, &mut o);
                o
            });
            // Every column over the cells sums to one: the scheme conserves mass exactly.
            for k in 0..N {
                assert_close(
                    (0..N).map(|i| j[i][k]).sum::<f64>(),
                    1.0,
                    1e-12,
                    "column sum",
                );
            }

            let cot = wave(N, 0.4);
            let t = wave(N + 1, -0.3);
            let mut ov = vec![0.0; N];
            let (gu, gc) = advect_vjp(&u0, c, STEPS, &mut ov, &cot);
            assert_eq!(ov, out);
            let mut ot = vec![0.0; N];
            let mut jt = vec![0.0; N];
            advect_jvp(&u0, c, STEPS, &mut ot, (t[..N].to_vec(), t[N]), &mut jt);
            let cj: Vec<f64> = gu.iter().copied().chain([gc]).collect();
            check_dual("upwind::advect", &cot, &jt, &cj, &t);
        }
    }

    #[test]
    fn one_step_at_unit_courant_is_a_shift() {
        // At c = 1 the limiter term vanishes and every cell takes its left neighbour's value.
        let u0 = bump(&[0.1; N]);
        let mut out = vec![0.0; N];
        advect(&u0, 1.0, 1, &mut out);
        for i in 0..N {
            assert_close(out[i], u0[(i + N - 1) % N], 1e-14, "shift");
        }
    }

    #[test]
    fn misfit_audit() {
        let target = bump(&[0.2, -0.1, 0.0, 0.3, -0.4, 0.1, 0.2]);
        let pts: Vec<Vec<f64>> = points(4412, N + 1, 10, -1.0, 1.0)
            .into_iter()
            .map(|mut p| {
                let u = bump(&p);
                p[..N].copy_from_slice(&u);
                p[N] *= 0.8;
                p
            })
            .collect();
        let join = |g: (Vec<f64>, f64)| g.0.into_iter().chain([g.1]).collect::<Vec<f64>>();
        for x in &pts {
            let (v, g) = misfit_grad(&x[..N], x[N], &target, STEPS);
            let mut b = (vec![f64::NAN; N], f64::NAN);
            let vi = misfit_grad_into(&x[..N], x[N], &target, STEPS, (&mut b.0, &mut b.1));
            assert_eq!(vi, v);
            same_bits(&join(b), &join(g), "misfit");
        }
        audit(
            &Items {
                what: "upwind::misfit",
                primal: &|x| misfit(&x[..N], x[N], &target, STEPS),
                grad: &|x| {
                    let (v, g) = misfit_grad(&x[..N], x[N], &target, STEPS);
                    (v, join(g))
                },
                vjp: &|x, d| {
                    let (v, g) = misfit_vjp(&x[..N], x[N], &target, STEPS, d);
                    (v, join(g))
                },
                jvp: &|x, t| misfit_jvp(&x[..N], x[N], &target, STEPS, (t[..N].to_vec(), t[N])),
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; N], f64::NAN);
                    let v = misfit_grad_into(&x[..N], x[N], &target, STEPS, (&mut b.0, &mut b.1));
                    (v, join(b))
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) =
                        misfit_hvp(&x[..N], x[N], &target, STEPS, (v[..N].to_vec(), v[N]));
                    (val, join(g), join(hv))
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = misfit_hessian(&x[..N], x[N], &target, STEPS);
                    (val, join(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) A Gaussian-process negative log marginal likelihood over log-hyperparameters `[ln l, ln sf,
// ln sn]`: the kernel matrix built in a local `Vec<Vec<f64>>`, factorised by Cholesky in place over
// its lower triangle (entries overwritten inside nested loops with data-dependent bounds), a forward
// substitution into an output slice by a helper taking the factor as `&[Vec<f64>]`, the
// log-determinant from the diagonal. Checked against a dense Gauss-Jordan inverse: the value, and the
// gradient `tr((K⁻¹ - ααᵀ) dK/dθ)/2` by hand; `order = 2`.

mod gp_chol {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    #[differentiable]
    pub fn kernel(a: f64, b: f64, ell: f64, sf2: f64) -> f64 {
        let r = (a - b) / ell;
        sf2 * (-0.5 * r * r).exp()
    }

    /// Solves `L z = b` for a lower-triangular `L`.
    #[differentiable]
    pub fn forward(l: &[Vec<f64>], b: &[f64], z: &mut [f64]) {
        for i in 0..b.len() {
            let mut s = b[i];
            for j in 0..i {
                s -= l[i][j] * z[j];
            }
            z[i] = s / l[i][i];
        }
    }

    #[differentiable(wrt(theta), order = 2)]
    pub fn nll(theta: [f64; 3], xs: &[f64], ys: &[f64]) -> f64 {
        let n = xs.len();
        let ell = theta[0].exp();
        let sf2 = (2.0 * theta[1]).exp();
        let sn2 = (2.0 * theta[2]).exp();
        let mut k = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..=i {
                let v = kernel(xs[i], xs[j], ell, sf2);
                k[i][j] = v;
                k[j][i] = v;
            }
            k[i][i] += sn2;
        }
        for j in 0..n {
            for p in 0..j {
                let ljp = k[j][p];
                k[j][j] -= ljp * ljp;
            }
            k[j][j] = k[j][j].sqrt();
            for i in j + 1..n {
                for p in 0..j {
                    k[i][j] -= k[i][p] * k[j][p];
                }
                k[i][j] /= k[j][j];
            }
        }
        let mut z = vec![0.0; n];
        forward(&k, ys, &mut z);
        let half_logdet = (0..n).map(|i| k[i][i].ln()).sum::<f64>();
        0.5 * z.iter().map(|v| v * v).sum::<f64>() + half_logdet + 0.5 * n as f64 * (2.0 * PI).ln()
    }

    /// The inverse and log-determinant of a symmetric positive definite matrix by Gauss-Jordan.
    fn inverse(a: &[Vec<f64>]) -> (Vec<Vec<f64>>, f64) {
        let n = a.len();
        let mut m: Vec<Vec<f64>> = a.to_vec();
        let mut inv: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
            .collect();
        let mut logdet = 0.0;
        for c in 0..n {
            let piv = m[c][c];
            logdet += piv.ln();
            for j in 0..n {
                m[c][j] /= piv;
                inv[c][j] /= piv;
            }
            for r in 0..n {
                if r != c {
                    let f = m[r][c];
                    for j in 0..n {
                        m[r][j] -= f * m[c][j];
                        inv[r][j] -= f * inv[c][j];
                    }
                }
            }
        }
        (inv, logdet)
    }

    fn by_hand(theta: [f64; 3], xs: &[f64], ys: &[f64]) -> (f64, Vec<f64>) {
        let n = xs.len();
        let (ell, sf2, sn2) = (
            theta[0].exp(),
            (2.0 * theta[1]).exp(),
            (2.0 * theta[2]).exp(),
        );
        let kf: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| sf2 * (-0.5 * ((xs[i] - xs[j]) / ell).powi(2)).exp())
                    .collect()
            })
            .collect();
        let mut k = kf.clone();
        for i in 0..n {
            k[i][i] += sn2;
        }
        let (kinv, logdet) = inverse(&k);
        let alpha: Vec<f64> = kinv.iter().map(|row| dot(row, ys)).collect();
        let value = 0.5 * dot(ys, &alpha) + 0.5 * logdet + 0.5 * n as f64 * (2.0 * PI).ln();
        let trace = |dk: &dyn Fn(usize, usize) -> f64| {
            let mut s = 0.0;
            for i in 0..n {
                for j in 0..n {
                    s += (kinv[i][j] - alpha[i] * alpha[j]) * dk(j, i);
                }
            }
            0.5 * s
        };
        let g = vec![
            trace(&|i, j| kf[i][j] * ((xs[i] - xs[j]) / ell).powi(2)),
            trace(&|i, j| 2.0 * kf[i][j]),
            trace(&|i, j| if i == j { 2.0 * sn2 } else { 0.0 }),
        ];
        (value, g)
    }

    #[test]
    fn forward_substitution_jacobian_and_duality() {
        let n = 4;
        for p in points(4421, n * n + n, 10, -1.0, 1.0) {
            let l: Vec<Vec<f64>> = (0..n)
                .map(|i| {
                    (0..n)
                        .map(|j| {
                            if j < i {
                                p[i * n + j]
                            } else if j == i {
                                2.0 + p[i * n + j]
                            } else {
                                0.0
                            }
                        })
                        .collect()
                })
                .collect();
            let b = p[n * n..].to_vec();
            let flat: Vec<f64> = l
                .iter()
                .flatten()
                .copied()
                .chain(b.iter().copied())
                .collect();
            let split = |x: &[f64]| {
                (
                    (0..n)
                        .map(|i| x[i * n..(i + 1) * n].to_vec())
                        .collect::<Vec<_>>(),
                    x[n * n..].to_vec(),
                )
            };
            let mut z = vec![0.0; n];
            let j = forward_jacobian(&l, &b, &mut z);
            for i in 0..n {
                assert_close(dot(&l[i], &z), b[i], 1e-13, "L z = b");
            }
            check_jacobian("gp_chol::forward", &flat, &j, |x| {
                let (l, b) = split(x);
                let mut z = vec![0.0; n];
                forward(&l, &b, &mut z);
                z
            });
            let c = wave(n, 0.1);
            let t = wave(n * n + n, 0.8);
            let mut zv = vec![0.0; n];
            let (gl, gb) = forward_vjp(&l, &b, &mut zv, &c);
            let (tl, tb) = split(&t);
            let mut zt = vec![0.0; n];
            let mut jt = vec![0.0; n];
            forward_jvp(&l, &b, &mut zt, (tl, tb), &mut jt);
            let cj: Vec<f64> = gl.iter().flatten().copied().chain(gb).collect();
            check_dual("gp_chol::forward", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn nll_by_hand_and_audit() {
        let xs = [-1.3, -0.6, -0.1, 0.4, 0.8, 1.5];
        let ys = [0.2, -0.4, 0.1, 0.7, 0.5, -0.3];
        let pts: Vec<Vec<f64>> = points(4422, 3, 10, -0.8, 0.4);
        for x in &pts {
            let th = arr(x);
            let (v, g) = nll_grad(th, &xs, &ys);
            let (hv, hg) = by_hand(th, &xs, &ys);
            assert_close(v, hv, 1e-11, "nll against Gauss-Jordan");
            assert_close(v, nll(th, &xs, &ys), 0.0, "nll_grad's value");
            assert_all_close(&g, &hg, 1e-9, "the gradient by the trace formula");
            let mut b = [f64::NAN; 3];
            nll_grad_into(th, &xs, &ys, &mut b);
            same_bits(&b, &g, "nll");
        }
        audit(
            &Items {
                what: "gp_chol::nll",
                primal: &|x| nll(arr(x), &xs, &ys),
                grad: &|x| {
                    let (v, g) = nll_grad(arr(x), &xs, &ys);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = nll_vjp(arr(x), &xs, &ys, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| nll_jvp(arr(x), &xs, &ys, arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 3];
                    let v = nll_grad_into(arr(x), &xs, &ys, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) = nll_hvp(arr(x), &xs, &ys, arr(v));
                    (val, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = nll_hessian(arr(x), &xs, &ys);
                    (val, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) A damped Newton solve of a 2-D monotone system `F(x; p) = 0` with an Armijo backtracking line
// search: an outer `while` with a compound condition, an inner `while` halving the step, the Newton
// direction from a helper returning a tuple (Cramer's rule), arrays overwritten in the loops. The
// root into an output array (its `_jacobian` is `J⁻¹` by the implicit function theorem) and a design
// objective of the root at `order = 2`.

mod newton2 {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn residual(x: [f64; 2], p: &[f64]) -> [f64; 2] {
        [
            x[0].powi(3) + x[0] + x[1] - p[0],
            x[1].powi(3) + x[1] - x[0] - p[1],
        ]
    }

    #[differentiable]
    pub fn merit(x: [f64; 2], p: &[f64]) -> f64 {
        let r = residual(x, p);
        0.5 * (r[0] * r[0] + r[1] * r[1])
    }

    /// The Newton direction `-J⁻¹ r`.
    #[differentiable]
    pub fn direction(x: [f64; 2], r: [f64; 2]) -> (f64, f64) {
        let (a, b) = (3.0 * x[0] * x[0] + 1.0, 1.0);
        let (c, d) = (-1.0, 3.0 * x[1] * x[1] + 1.0);
        let det = a * d - b * c;
        (-(d * r[0] - b * r[1]) / det, -(a * r[1] - c * r[0]) / det)
    }

    #[differentiable]
    pub fn solve(p: &[f64], root: &mut [f64; 2]) {
        let mut x = [2.0, -2.0];
        let mut m = merit(x, p);
        let mut iter = 0;
        while iter < 60 && m > 1e-30 {
            let r = residual(x, p);
            let (dx0, dx1) = direction(x, r);
            let mut t = 1.0;
            let mut trial = [x[0] + dx0, x[1] + dx1];
            let mut mt = merit(trial, p);
            while mt > (1.0 - 1e-4 * t) * m && t > 1e-8 {
                t *= 0.5;
                trial = [x[0] + t * dx0, x[1] + t * dx1];
                mt = merit(trial, p);
            }
            x = trial;
            m = mt;
            iter += 1;
        }
        root[0] = x[0];
        root[1] = x[1];
    }

    #[differentiable(order = 2)]
    pub fn design(p: &[f64]) -> f64 {
        let mut x = [0.0; 2];
        solve(p, &mut x);
        x[0] * x[1] + x[0].sin()
    }

    /// `J(x)⁻¹` at the root: `dx/dp`, since `dF/dp = -I`.
    fn inverse_jacobian(x: [f64; 2]) -> [[f64; 2]; 2] {
        let (a, d) = (3.0 * x[0] * x[0] + 1.0, 3.0 * x[1] * x[1] + 1.0);
        let det = a * d + 1.0;
        [[d / det, -1.0 / det], [1.0 / det, a / det]]
    }

    #[test]
    fn root_by_the_implicit_function_theorem() {
        for p in points(4431, 2, 12, -3.0, 3.0) {
            let mut x = [0.0; 2];
            solve(&p, &mut x);
            let r = residual(x, &p);
            assert!(r[0].abs() < 1e-12 && r[1].abs() < 1e-12, "residual {r:?}");
            let mut xj = [0.0; 2];
            let j = solve_jacobian(&p, &mut xj);
            assert_eq!(xj, x);
            let inv = inverse_jacobian(x);
            for i in 0..2 {
                assert_all_close(&j[i], &inv[i], 1e-10, "dx/dp = J⁻¹");
            }
            check_jacobian("newton2::solve", &p, &j, |q| {
                let mut x = [0.0; 2];
                solve(q, &mut x);
                x.to_vec()
            });
            let c = wave(2, 0.5);
            let t = wave(2, -1.0);
            let mut xv = [0.0; 2];
            let gp = solve_vjp(&p, &mut xv, &arr(&c));
            let mut xt = [0.0; 2];
            let mut jt = [0.0; 2];
            solve_jvp(&p, &mut xt, t.clone(), &mut jt);
            assert_eq!(xt, x);
            check_dual("newton2::solve", &c, &jt, &gp, &t);

            let (v, g) = design_grad(&p);
            let dd = [x[1] + x[0].cos(), x[0]];
            let by_hand = [
                dd[0] * inv[0][0] + dd[1] * inv[1][0],
                dd[0] * inv[0][1] + dd[1] * inv[1][1],
            ];
            assert_close(v, x[0] * x[1] + x[0].sin(), 1e-15, "design");
            assert_all_close(&g, &by_hand, 1e-10, "design gradient by hand");
            let mut b = vec![f64::NAN; 2];
            design_grad_into(&p, &mut b);
            same_bits(&b, &g, "design");
        }
    }

    #[test]
    fn design_audit() {
        let pts = points(4432, 2, 10, -3.0, 3.0);
        audit(
            &Items {
                what: "newton2::design",
                primal: &|x| design(x),
                grad: &|x| design_grad(x),
                vjp: &|x, d| design_vjp(x, d),
                jvp: &|x, t| design_jvp(x, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![f64::NAN; 2];
                    let v = design_grad_into(x, &mut b);
                    (v, b)
                },
                hvp: Some(&|x, v| design_hvp(x, v.to_vec())),
                hessian: Some(&|x| design_hessian(x)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) Bradley-Terry ranking: the negative log-likelihood of games given as index pairs
// `&[(usize, usize)]` (a `for &(w, l) in games` pattern) with a home advantage and a ridge term, a
// stable log-sigmoid helper with a branch; gradient and Hessian by hand (`order = 2`). And Elo
// ratings updated in place game by game into an output slice (`10f64.powf`), with its `_jacobian`.

mod bradley_terry {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn log_sigmoid(z: f64) -> f64 {
        if z > 0.0 {
            -(-z).exp().ln_1p()
        } else {
            z - z.exp().ln_1p()
        }
    }

    #[differentiable(wrt(skill, home), order = 2)]
    pub fn neg_log_lik(skill: &[f64], home: f64, games: &[(usize, usize)], ridge: f64) -> f64 {
        let mut nll = 0.0;
        for &(w, l) in games {
            nll -= log_sigmoid(skill[w] - skill[l] + home);
        }
        nll + 0.5 * ridge * skill.iter().map(|s| s * s).sum::<f64>()
    }

    #[differentiable]
    pub fn elo(init: &[f64], games: &[(usize, usize)], k: f64, ratings: &mut [f64]) {
        ratings.copy_from_slice(init);
        for &(w, l) in games {
            let expected = 1.0 / (1.0 + 10f64.powf((ratings[l] - ratings[w]) / 400.0));
            let delta = k * (1.0 - expected);
            ratings[w] += delta;
            ratings[l] -= delta;
        }
    }

    const PLAYERS: usize = 4;
    const GAMES: [(usize, usize); 9] = [
        (0, 1),
        (1, 2),
        (2, 0),
        (3, 0),
        (0, 3),
        (1, 3),
        (2, 1),
        (0, 2),
        (3, 2),
    ];
    const RIDGE: f64 = 0.3;

    fn sigmoid(z: f64) -> f64 {
        1.0 / (1.0 + (-z).exp())
    }

    /// The gradient and the Hessian by hand over `(skill, home)`.
    fn by_hand(x: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
        let n = PLAYERS;
        let mut g: Vec<f64> = x[..n].iter().map(|s| RIDGE * s).chain([0.0]).collect();
        let mut h = vec![vec![0.0; n + 1]; n + 1];
        for i in 0..n {
            h[i][i] = RIDGE;
        }
        for &(w, l) in &GAMES {
            let s = sigmoid(x[w] - x[l] + x[n]);
            let d = 1.0 - s;
            g[w] -= d;
            g[l] += d;
            g[n] -= d;
            let c = s * (1.0 - s);
            let dir = |k: usize| -> f64 {
                (if k == w { 1.0 } else { 0.0 }) - (if k == l { 1.0 } else { 0.0 })
                    + (if k == n { 1.0 } else { 0.0 })
            };
            for a in 0..=n {
                for b in 0..=n {
                    h[a][b] += c * dir(a) * dir(b);
                }
            }
        }
        (g, h)
    }

    #[test]
    fn likelihood_by_hand_and_audit() {
        let pts = points(4441, PLAYERS + 1, 12, -2.0, 2.0);
        let join = |g: (Vec<f64>, f64)| g.0.into_iter().chain([g.1]).collect::<Vec<f64>>();
        for x in &pts {
            let (v, g) = neg_log_lik_grad(&x[..PLAYERS], x[PLAYERS], &GAMES, RIDGE);
            let plain: f64 = GAMES
                .iter()
                .map(|&(w, l)| -sigmoid(x[w] - x[l] + x[PLAYERS]).ln())
                .sum::<f64>()
                + 0.5 * RIDGE * dot(&x[..PLAYERS], &x[..PLAYERS]);
            assert_close(v, plain, 1e-13, "Bradley-Terry value");
            let (hg, hh) = by_hand(x);
            assert_all_close(&join(g.clone()), &hg, 1e-12, "gradient by hand");
            let (_, _, h) = neg_log_lik_hessian(&x[..PLAYERS], x[PLAYERS], &GAMES, RIDGE);
            for i in 0..=PLAYERS {
                assert_all_close(&h[i], &hh[i], 1e-12, "Hessian by hand");
            }
            let mut b = (vec![f64::NAN; PLAYERS], f64::NAN);
            neg_log_lik_grad_into(
                &x[..PLAYERS],
                x[PLAYERS],
                &GAMES,
                RIDGE,
                (&mut b.0, &mut b.1),
            );
            same_bits(&join(b), &join(g), "neg_log_lik");
        }
        let n = PLAYERS;
        audit(
            &Items {
                what: "bradley_terry::neg_log_lik",
                primal: &|x| neg_log_lik(&x[..n], x[n], &GAMES, RIDGE),
                grad: &|x| {
                    let (v, g) = neg_log_lik_grad(&x[..n], x[n], &GAMES, RIDGE);
                    (v, join(g))
                },
                vjp: &|x, d| {
                    let (v, g) = neg_log_lik_vjp(&x[..n], x[n], &GAMES, RIDGE, d);
                    (v, join(g))
                },
                jvp: &|x, t| neg_log_lik_jvp(&x[..n], x[n], &GAMES, RIDGE, (t[..n].to_vec(), t[n])),
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; n], f64::NAN);
                    let v =
                        neg_log_lik_grad_into(&x[..n], x[n], &GAMES, RIDGE, (&mut b.0, &mut b.1));
                    (v, join(b))
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) =
                        neg_log_lik_hvp(&x[..n], x[n], &GAMES, RIDGE, (v[..n].to_vec(), v[n]));
                    (val, join(g), join(hv))
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = neg_log_lik_hessian(&x[..n], x[n], &GAMES, RIDGE);
                    (val, join(g), h)
                }),
                analytic: Some(&|x| by_hand(x).0),
            },
            &pts,
        );
    }

    #[test]
    fn elo_jacobian_and_duality() {
        for p in points(4442, PLAYERS + 1, 12, -1.0, 1.0) {
            let init: Vec<f64> = p[..PLAYERS].iter().map(|v| 1500.0 + 200.0 * v).collect();
            let k = 24.0 + 8.0 * p[PLAYERS];
            let mut r = vec![0.0; PLAYERS];
            elo(&init, &GAMES, k, &mut r);
            assert_close(
                r.iter().sum::<f64>(),
                init.iter().sum::<f64>(),
                1e-14,
                "Elo is zero-sum",
            );
            // One game by hand.
            let mut one = vec![0.0; PLAYERS];
            elo(&init, &GAMES[..1], k, &mut one);
            let e = 1.0 / (1.0 + 10f64.powf((init[1] - init[0]) / 400.0));
            assert_close(one[0], init[0] + k * (1.0 - e), 1e-14, "one game");

            let x: Vec<f64> = init.iter().copied().chain([k]).collect();
            let mut rj = vec![f64::NAN; PLAYERS];
            let j = elo_jacobian(&init, &GAMES, k, &mut rj);
            assert_eq!(rj, r);
            check_jacobian("bradley_terry::elo", &x, &j, |x| {
                let mut r = vec![0.0; PLAYERS];
                elo(&x[..PLAYERS], &GAMES, x[PLAYERS], &mut r);
                r
            });
            let c = wave(PLAYERS, 0.7);
            let t = wave(PLAYERS + 1, 0.1);
            let mut rv = vec![0.0; PLAYERS];
            let (gi, gk) = elo_vjp(&init, &GAMES, k, &mut rv, &c);
            let mut rt = vec![0.0; PLAYERS];
            let mut jt = vec![0.0; PLAYERS];
            elo_jvp(
                &init,
                &GAMES,
                k,
                &mut rt,
                (t[..PLAYERS].to_vec(), t[PLAYERS]),
                &mut jt,
            );
            let cj: Vec<f64> = gi.into_iter().chain([gk]).collect();
            check_dual("bradley_terry::elo", &c, &jt, &cj, &t);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) A Cox proportional-hazards partial likelihood for times sorted ascending (no ties): the linear
// predictor from a helper returning a `Vec`, the risk sets' log-sum-exp accumulated backwards over
// `.iter().rev()` from `f64::NEG_INFINITY` into a local `Vec`, the events picked by a `&[bool]`; the
// gradient `Σ_events (x_i - E_risk[x])` by hand, `order = 2`. And the Breslow cumulative baseline
// hazard into an output slice, with its `_jacobian`.

mod cox {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(beta))]
    pub fn linear_predictor(beta: &[f64], x: &[Vec<f64>]) -> Vec<f64> {
        x.iter()
            .map(|row| row.iter().zip(beta).map(|(a, b)| a * b).sum::<f64>())
            .collect()
    }

    /// `lse[i] = ln Σ_{j >= i} exp(eta[j])`.
    #[differentiable]
    pub fn risk_lse(eta: &[f64], lse: &mut [f64]) {
        let mut acc = f64::NEG_INFINITY;
        let mut i = eta.len();
        for &e in eta.iter().rev() {
            i -= 1;
            let m = acc.max(e);
            acc = m + ((acc - m).exp() + (e - m).exp()).ln();
            lse[i] = acc;
        }
    }

    #[differentiable(wrt(beta), order = 2)]
    pub fn partial_loglik(beta: &[f64], x: &[Vec<f64>], event: &[bool]) -> f64 {
        let eta = linear_predictor(beta, x);
        let mut lse = vec![0.0; eta.len()];
        risk_lse(&eta, &mut lse);
        let mut ll = 0.0;
        for (i, &dead) in event.iter().enumerate() {
            if !dead {
                continue;
            }
            ll += eta[i] - lse[i];
        }
        ll
    }

    #[differentiable(wrt(beta))]
    pub fn breslow(beta: &[f64], x: &[Vec<f64>], event: &[bool], hazard: &mut [f64]) {
        let eta = linear_predictor(beta, x);
        let mut lse = vec![0.0; eta.len()];
        risk_lse(&eta, &mut lse);
        let mut cum = 0.0;
        for i in 0..eta.len() {
            if event[i] {
                cum += (-lse[i]).exp();
            }
            hazard[i] = cum;
        }
    }

    const N: usize = 8;
    const P: usize = 3;
    const EVENT: [bool; N] = [true, false, true, true, false, true, true, false];

    fn covariates() -> Vec<Vec<f64>> {
        (0..N)
            .map(|i| {
                (0..P)
                    .map(|k| ((i * 3 + k * 5) as f64 * 0.7).sin())
                    .collect()
            })
            .collect()
    }

    fn by_hand(beta: &[f64], x: &[Vec<f64>]) -> (f64, Vec<f64>) {
        let w: Vec<f64> = x.iter().map(|r| dot(r, beta).exp()).collect();
        let mut ll = 0.0;
        let mut g = vec![0.0; P];
        for i in 0..N {
            if !EVENT[i] {
                continue;
            }
            let s: f64 = w[i..].iter().sum();
            ll += dot(&x[i], beta) - s.ln();
            for k in 0..P {
                let mean = (i..N).map(|j| w[j] * x[j][k]).sum::<f64>() / s;
                g[k] += x[i][k] - mean;
            }
        }
        (ll, g)
    }

    #[test]
    fn partial_likelihood_by_hand_and_audit() {
        let x = covariates();
        let pts = points(4451, P, 12, -1.5, 1.5);
        for b in &pts {
            let (v, g) = partial_loglik_grad(b, &x, &EVENT);
            let (hv, hg) = by_hand(b, &x);
            assert_close(v, hv, 1e-13, "partial likelihood");
            assert_all_close(&g, &hg, 1e-12, "score by hand");
            let mut buf = vec![f64::NAN; P];
            partial_loglik_grad_into(b, &x, &EVENT, &mut buf);
            same_bits(&buf, &g, "partial_loglik");
        }
        audit(
            &Items {
                what: "cox::partial_loglik",
                primal: &|b| partial_loglik(b, &x, &EVENT),
                grad: &|b| partial_loglik_grad(b, &x, &EVENT),
                vjp: &|b, d| partial_loglik_vjp(b, &x, &EVENT, d),
                jvp: &|b, t| partial_loglik_jvp(b, &x, &EVENT, t.to_vec()),
                grad_into: &|b| {
                    let mut buf = vec![f64::NAN; P];
                    let v = partial_loglik_grad_into(b, &x, &EVENT, &mut buf);
                    (v, buf)
                },
                hvp: Some(&|b, v| partial_loglik_hvp(b, &x, &EVENT, v.to_vec())),
                hessian: Some(&|b| partial_loglik_hessian(b, &x, &EVENT)),
                analytic: Some(&|b| by_hand(b, &x).1),
            },
            &pts,
        );
    }

    #[test]
    fn risk_sets_and_baseline_hazard() {
        let x = covariates();
        for b in points(4452, P, 10, -1.5, 1.5) {
            let eta = linear_predictor(&b, &x);
            let mut lse = vec![0.0; N];
            risk_lse(&eta, &mut lse);
            for i in 0..N {
                let s: f64 = eta[i..].iter().map(|e| e.exp()).sum();
                assert_close(lse[i], s.ln(), 1e-14, "risk set log-sum-exp");
            }
            let jl = risk_lse_jacobian(&eta, &mut vec![0.0; N]);
            check_jacobian("cox::risk_lse", &eta, &jl, |e| {
                let mut l = vec![0.0; N];
                risk_lse(e, &mut l);
                l
            });

            let mut hz = vec![0.0; N];
            let j = breslow_jacobian(&b, &x, &EVENT, &mut hz);
            assert!(
                hz.windows(2).all(|w| w[1] >= w[0]),
                "cumulative hazard is monotone"
            );
            check_jacobian("cox::breslow", &b, &j, |b| {
                let mut h = vec![0.0; N];
                breslow(b, &x, &EVENT, &mut h);
                h
            });
            let c = wave(N, 0.2);
            let t = wave(P, 0.9);
            let gb = breslow_vjp(&b, &x, &EVENT, &mut vec![0.0; N], &c);
            let mut jt = vec![0.0; N];
            breslow_jvp(&b, &x, &EVENT, &mut vec![0.0; N], t.clone(), &mut jt);
            check_dual("cox::breslow", &c, &jt, &gb, &t);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) Straight-through estimators: the value of a hard arg-max choice with the gradient of its softmax
// relaxation, once by `soft + stop_gradient(hard - soft)` (both parameters active, `order = 2`: the
// Hessian is the relaxation's) and once as a `#[custom_gradient]` over two slices whose closure
// returns the relaxation's cotangents, called by a loss with a ridge term (`wrt(logits)`, `order = 2`).

mod straight_through {
    use super::*;
    use autodiff::{custom_gradient, differentiable, stop_gradient};
    use common::{assert_fd_gradient, assert_hessian_fd};

    /// `Σ softmax(logits / temp)_i values_i`.
    #[differentiable]
    pub fn soft_choice(logits: &[f64], values: &[f64], temp: f64) -> f64 {
        let m = logits.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let mut z = 0.0;
        let mut s = 0.0;
        for (l, v) in logits.iter().zip(values) {
            let e = ((l - m) / temp).exp();
            z += e;
            s += e * v;
        }
        s / z
    }

    #[differentiable(wrt(logits, values), order = 2)]
    pub fn pick(logits: &[f64], values: &[f64], temp: f64) -> f64 {
        let mut best = 0;
        for i in 1..logits.len() {
            if logits[i] > logits[best] {
                best = i;
            }
        }
        let soft = soft_choice(logits, values, temp);
        soft + stop_gradient(values[best] - soft)
    }

    #[custom_gradient]
    pub fn hard_pick(
        logits: &[f64],
        values: &[f64],
    ) -> (f64, impl Fn(f64) -> (Vec<f64>, Vec<f64>)) {
        let n = logits.len();
        let mut best = 0;
        for i in 1..n {
            if logits[i] > logits[best] {
                best = i;
            }
        }
        let m = logits[best];
        let e: Vec<f64> = logits.iter().map(|l| (l - m).exp()).collect();
        let z: f64 = e.iter().sum();
        let p: Vec<f64> = e.iter().map(|x| x / z).collect();
        let mean: f64 = p.iter().zip(values).map(|(a, b)| a * b).sum();
        let dl: Vec<f64> = (0..n).map(|i| p[i] * (values[i] - mean)).collect();
        (values[best], move |dy| {
            (
                dl.iter().map(|d| dy * d).collect(),
                p.iter().map(|q| dy * q).collect(),
            )
        })
    }

    #[differentiable(wrt(logits), order = 2)]
    pub fn policy_loss(logits: &[f64], values: &[f64], target: f64) -> f64 {
        let v = hard_pick(logits, values);
        (v - target).powi(2) + 0.1 * logits.iter().map(|l| l * l).sum::<f64>()
    }

    const N: usize = 5;

    fn best(l: &[f64]) -> usize {
        (0..l.len()).fold(0, |b, i| if l[i] > l[b] { i } else { b })
    }

    #[test]
    fn stop_gradient_pick() {
        let temp = 0.7;
        let join = |g: (Vec<f64>, Vec<f64>)| [g.0, g.1].concat();
        for x in points(4461, 2 * N, 12, -1.5, 1.5) {
            let (l, v) = (&x[..N], &x[N..]);
            let (value, g) = pick_grad(l, v, temp);
            assert_eq!(value, v[best(l)], "the hard choice");
            assert_eq!(pick(l, v, temp), value);
            let g = join(g);
            assert_fd_gradient(
                |y| soft_choice(&y[..N], &y[N..], temp),
                &x,
                &g,
                "the relaxation's gradient",
            );
            let mut b = (vec![f64::NAN; N], vec![f64::NAN; N]);
            pick_grad_into(l, v, temp, (&mut b.0, &mut b.1));
            same_bits(&join(b), &g, "pick");
            let t = wave(2 * N, 0.3);
            let (vj, dj) = pick_jvp(l, v, temp, (t[..N].to_vec(), t[N..].to_vec()));
            assert_eq!(vj, value);
            assert_close(dj, dot(&g, &t), 1e-12, "pick_jvp");
            let (vv, gv) = pick_vjp(l, v, temp, -2.0);
            assert_eq!(vv, value);
            assert_all_close(
                &join(gv),
                &g.iter().map(|a| -2.0 * a).collect::<Vec<_>>(),
                1e-15,
                "pick_vjp",
            );

            let (vh, gh, h) = pick_hessian(l, v, temp);
            assert_eq!(vh, value);
            assert_all_close(&join(gh), &g, 1e-15, "the gradient of _hessian");
            assert_hessian_fd(
                &h,
                |y| join(pick_grad(&y[..N], &y[N..], temp).1),
                &x,
                1e-5,
                "pick: the Hessian against differences of _grad",
            );
            let (_, _, hv) = pick_hvp(l, v, temp, (t[..N].to_vec(), t[N..].to_vec()));
            let expected: Vec<f64> = h.iter().map(|row| dot(row, &t)).collect();
            assert_all_close(&join(hv), &expected, 1e-10, "pick_hvp");
        }
    }

    #[test]
    fn custom_straight_through_loss() {
        let values = [0.3, -1.2, 0.8, 0.1, -0.4];
        let target = 0.5;
        for l in points(4462, N, 12, -1.5, 1.5) {
            let v = values[best(&l)];
            assert_eq!(hard_pick(&l, &values), v);
            let (value, g) = policy_loss_grad(&l, &values, target);
            assert_close(
                value,
                (v - target).powi(2) + 0.1 * dot(&l, &l),
                1e-15,
                "loss",
            );
            // 2 (v - target) times the relaxation's gradient over the logits, by differences, plus the ridge.
            let mut soft = vec![0.0; N];
            for i in 0..N {
                let h = 1e-6;
                let mut a = l.clone();
                let mut b = l.clone();
                a[i] += h;
                b[i] -= h;
                soft[i] =
                    (soft_choice(&a, &values, 1.0) - soft_choice(&b, &values, 1.0)) / (2.0 * h);
            }
            let expected: Vec<f64> = (0..N)
                .map(|i| 2.0 * (v - target) * soft[i] + 0.2 * l[i])
                .collect();
            assert_all_close(&g, &expected, 1e-8, "the straight-through gradient");
            let mut b = vec![f64::NAN; N];
            policy_loss_grad_into(&l, &values, target, &mut b);
            same_bits(&b, &g, "policy_loss");
            let t = wave(N, -0.6);
            let (_, dj) = policy_loss_jvp(&l, &values, target, t.clone());
            assert_close(dj, dot(&g, &t), 1e-12, "policy_loss_jvp");

            // The Hessian is the Jacobian of `_grad` (the closure differentiated through its captures).
            let (_, gh, h) = policy_loss_hessian(&l, &values, target);
            assert_all_close(&gh, &g, 1e-15, "the gradient of _hessian");
            assert_hessian_fd(
                &h,
                |y| policy_loss_grad(y, &values, target).1,
                &l,
                1e-5,
                "policy_loss: the Hessian against differences of _grad",
            );
            let (_, _, hv) = policy_loss_hvp(&l, &values, target, t.clone());
            let expected: Vec<f64> = h.iter().map(|row| dot(row, &t)).collect();
            assert_all_close(&hv, &expected, 1e-10, "policy_loss_hvp");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) Weighted isotonic regression by pool-adjacent-violators: blocks kept in local `Vec`s (levels,
// weights, and a `Vec<usize>` of starts) merged by a `while` whose condition compares active levels,
// the fit written block by block into an output slice. Its Jacobian by hand (each output is its
// block's weighted mean: `w_j / W` over `y_j`, `(y_j - level) / W` over `w_j`), and a squared misfit at
// `order = 2`.

mod isotonic {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn fit(y: &[f64], w: &[f64], out: &mut [f64]) {
        let n = y.len();
        let mut level = vec![0.0; n];
        let mut weight = vec![0.0; n];
        let mut start = vec![0usize; n];
        let mut top = 0;
        for i in 0..n {
            level[top] = y[i];
            weight[top] = w[i];
            start[top] = i;
            top += 1;
            while top > 1 && level[top - 2] > level[top - 1] {
                let merged = weight[top - 2] + weight[top - 1];
                level[top - 2] =
                    (weight[top - 2] * level[top - 2] + weight[top - 1] * level[top - 1]) / merged;
                weight[top - 2] = merged;
                top -= 1;
            }
        }
        for b in 0..top {
            let end = if b + 1 < top { start[b + 1] } else { n };
            for i in start[b]..end {
                out[i] = level[b];
            }
        }
    }

    #[differentiable(wrt(y, w), order = 2)]
    pub fn misfit(y: &[f64], w: &[f64], target: &[f64]) -> f64 {
        let mut f = vec![0.0; y.len()];
        fit(y, w, &mut f);
        let mut s = 0.0;
        for i in 0..f.len() {
            s += w[i] * (f[i] - target[i]).powi(2);
        }
        s
    }

    /// The blocks of the fit: the maximal runs of equal outputs (generic inputs never tie otherwise).
    fn blocks(f: &[f64]) -> Vec<(usize, usize)> {
        let mut out = vec![];
        let mut s = 0;
        for i in 1..=f.len() {
            if i == f.len() || f[i] != f[s] {
                out.push((s, i));
                s = i;
            }
        }
        out
    }

    const N: usize = 8;

    fn inputs(p: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let y: Vec<f64> = (0..N).map(|i| 0.3 * i as f64 + p[i]).collect();
        let w: Vec<f64> = p[N..].iter().map(|v| 1.0 + 0.5 * v).collect();
        (y, w)
    }

    #[test]
    fn fit_is_monotone_and_its_jacobian_is_block_means() {
        let mut merged_somewhere = false;
        for p in points(4471, 2 * N, 12, -1.0, 1.0) {
            let (y, w) = inputs(&p);
            let mut f = vec![0.0; N];
            let j = fit_jacobian(&y, &w, &mut f);
            assert!(f.windows(2).all(|v| v[0] <= v[1]), "monotone: {f:?}");
            let bs = blocks(&f);
            merged_somewhere |= bs.len() < N;
            let mut by_hand = vec![vec![0.0; 2 * N]; N];
            for &(s, e) in &bs {
                let total: f64 = w[s..e].iter().sum();
                let level = (s..e).map(|k| w[k] * y[k]).sum::<f64>() / total;
                for i in s..e {
                    assert_close(f[i], level, 1e-14, "the block's weighted mean");
                    for k in s..e {
                        by_hand[i][k] = w[k] / total;
                        by_hand[i][N + k] = (y[k] - level) / total;
                    }
                }
            }
            for i in 0..N {
                assert_all_close(&j[i], &by_hand[i], 1e-12, "Jacobian by hand");
            }
            let x: Vec<f64> = [y.clone(), w.clone()].concat();
            check_jacobian("isotonic::fit", &x, &j, |x| {
                let mut f = vec![0.0; N];
                fit(&x[..N], &x[N..], &mut f);
                f
            });
            let c = wave(N, 0.9);
            let t = wave(2 * N, 0.2);
            let (gy, gw) = fit_vjp(&y, &w, &mut vec![0.0; N], &c);
            let mut jt = vec![0.0; N];
            fit_jvp(
                &y,
                &w,
                &mut vec![0.0; N],
                (t[..N].to_vec(), t[N..].to_vec()),
                &mut jt,
            );
            check_dual("isotonic::fit", &c, &jt, &[gy, gw].concat(), &t);
        }
        assert!(merged_somewhere, "the points exercise merges");
    }

    #[test]
    fn misfit_audit() {
        let target: Vec<f64> = (0..N).map(|i| 0.25 * i as f64).collect();
        let pts: Vec<Vec<f64>> = points(4472, 2 * N, 10, -1.0, 1.0)
            .iter()
            .map(|p| {
                let (y, w) = inputs(p);
                [y, w].concat()
            })
            .collect();
        let join = |g: (Vec<f64>, Vec<f64>)| [g.0, g.1].concat();
        for x in &pts {
            let (v, g) = misfit_grad(&x[..N], &x[N..], &target);
            let mut b = (vec![f64::NAN; N], vec![f64::NAN; N]);
            assert_eq!(
                misfit_grad_into(&x[..N], &x[N..], &target, (&mut b.0, &mut b.1)),
                v
            );
            same_bits(&join(b), &join(g), "misfit");
        }
        audit(
            &Items {
                what: "isotonic::misfit",
                primal: &|x| misfit(&x[..N], &x[N..], &target),
                grad: &|x| {
                    let (v, g) = misfit_grad(&x[..N], &x[N..], &target);
                    (v, join(g))
                },
                vjp: &|x, d| {
                    let (v, g) = misfit_vjp(&x[..N], &x[N..], &target, d);
                    (v, join(g))
                },
                jvp: &|x, t| {
                    misfit_jvp(
                        &x[..N],
                        &x[N..],
                        &target,
                        (t[..N].to_vec(), t[N..].to_vec()),
                    )
                },
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; N], vec![f64::NAN; N]);
                    let v = misfit_grad_into(&x[..N], &x[N..], &target, (&mut b.0, &mut b.1));
                    (v, join(b))
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) = misfit_hvp(
                        &x[..N],
                        &x[N..],
                        &target,
                        (v[..N].to_vec(), v[N..].to_vec()),
                    );
                    (val, join(g), join(hv))
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = misfit_hessian(&x[..N], &x[N..], &target);
                    (val, join(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) A bootstrap particle filter's log-likelihood of an AR(1) state-space model with the random
// numbers and the resampling ancestors fixed (common random numbers): the particles overwritten
// every step from a copy of the previous ones (`let prev = x.clone();`) indexed by the ancestors,
// log-weights by a helper, a log-mean-exp helper with a running `fold` maximum; the parameters
// `[atanh φ, ln σ, ln τ]` unpacked by a tuple `let`, at `order = 2`.

mod particle {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    pub const P: usize = 6;

    #[differentiable]
    pub fn log_normal(x: f64, mean: f64, sd: f64) -> f64 {
        let z = (x - mean) / sd;
        -0.5 * z * z - sd.ln() - 0.5 * (2.0 * PI).ln()
    }

    #[differentiable]
    pub fn log_mean_exp(lw: &[f64]) -> f64 {
        let m = lw.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        m + (lw.iter().map(|l| (l - m).exp()).sum::<f64>() / lw.len() as f64).ln()
    }

    #[differentiable(wrt(theta), order = 2)]
    pub fn loglik(theta: [f64; 3], ys: &[f64], noise: &[f64], ancestors: &[usize]) -> f64 {
        let (phi, sigma, tau) = (theta[0].tanh(), theta[1].exp(), theta[2].exp());
        let mut x = vec![0.0; P];
        let mut lw = vec![0.0; P];
        let mut ll = 0.0;
        for (t, &y) in ys.iter().enumerate() {
            let prev = x.clone();
            for p in 0..P {
                let a = if t == 0 {
                    p
                } else {
                    ancestors[(t - 1) * P + p]
                };
                x[p] = phi * prev[a] + sigma * noise[t * P + p];
                lw[p] = log_normal(y, x[p], tau);
            }
            ll += log_mean_exp(&lw);
        }
        ll
    }

    fn plain(theta: [f64; 3], ys: &[f64], noise: &[f64], ancestors: &[usize]) -> f64 {
        let (phi, sigma, tau) = (theta[0].tanh(), theta[1].exp(), theta[2].exp());
        let mut x = [0.0; P];
        let mut ll = 0.0;
        for (t, y) in ys.iter().enumerate() {
            let prev = x;
            let mut mean_w = 0.0;
            for p in 0..P {
                let a = if t == 0 {
                    p
                } else {
                    ancestors[(t - 1) * P + p]
                };
                x[p] = phi * prev[a] + sigma * noise[t * P + p];
                mean_w += (-0.5 * ((y - x[p]) / tau).powi(2)).exp() / (tau * (2.0 * PI).sqrt());
            }
            ll += (mean_w / P as f64).ln();
        }
        ll
    }

    #[test]
    fn likelihood_value_and_audit() {
        let steps = 6;
        let ys: Vec<f64> = (0..steps).map(|t| (0.8 * t as f64).sin()).collect();
        let noise = common::Inputs(4481).vec(steps * P);
        // Ancestors by a fixed systematic pattern.
        let ancestors: Vec<usize> = (0..(steps - 1) * P).map(|k| (k * 7 + k / P) % P).collect();
        let pts = points(4482, 3, 10, -0.7, 0.3);
        for x in &pts {
            let th = arr(x);
            let (v, g) = loglik_grad(th, &ys, &noise, &ancestors);
            assert_close(
                v,
                plain(th, &ys, &noise, &ancestors),
                1e-12,
                "particle log-likelihood",
            );
            let mut b = [f64::NAN; 3];
            assert_eq!(loglik_grad_into(th, &ys, &noise, &ancestors, &mut b), v);
            same_bits(&b, &g, "loglik");
        }
        audit(
            &Items {
                what: "particle::loglik",
                primal: &|x| loglik(arr(x), &ys, &noise, &ancestors),
                grad: &|x| {
                    let (v, g) = loglik_grad(arr(x), &ys, &noise, &ancestors);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = loglik_vjp(arr(x), &ys, &noise, &ancestors, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| loglik_jvp(arr(x), &ys, &noise, &ancestors, arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 3];
                    let v = loglik_grad_into(arr(x), &ys, &noise, &ancestors, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) = loglik_hvp(arr(x), &ys, &noise, &ancestors, arr(v));
                    (val, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = loglik_hessian(arr(x), &ys, &noise, &ancestors);
                    (val, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) The smallest eigenvalue of a symmetric 3x3 matrix by inverse iteration: each iteration solves
// `A w = v` by Cramer's rule (a helper copying the matrix parameter `let mut mk = *m;` and replacing a
// column, a determinant helper over `&[[f64; 3]; 3]`), normalises with `hypot`, and the Rayleigh
// quotient at the end. Its gradient is `v vᵀ` by hand (the eigenvector from a cross product of two
// rows of `A - λI`); `order = 2`. The solver is reused by the portfolio project (11).

mod rayleigh {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn det3(m: &[[f64; 3]; 3]) -> f64 {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }

    #[differentiable]
    pub fn solve3(m: &[[f64; 3]; 3], b: &[f64; 3]) -> [f64; 3] {
        let d = det3(m);
        let mut x = [0.0; 3];
        for k in 0..3 {
            let mut mk = *m;
            for i in 0..3 {
                mk[i][k] = b[i];
            }
            x[k] = det3(&mk) / d;
        }
        x
    }

    #[differentiable]
    pub fn quotient(a: &[[f64; 3]; 3], v: &[f64; 3]) -> f64 {
        let mut num = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                num += v[i] * a[i][j] * v[j];
            }
        }
        num / v.iter().map(|x| x * x).sum::<f64>()
    }

    #[differentiable(order = 2)]
    pub fn smallest(a: [[f64; 3]; 3]) -> f64 {
        let mut v = [1.0, 0.5, 0.25];
        for _ in 0..60 {
            let w = solve3(&a, &v);
            let norm = w[0].hypot(w[1]).hypot(w[2]);
            for i in 0..3 {
                v[i] = w[i] / norm;
            }
        }
        quotient(&a, &v)
    }

    pub fn matrix(p: &[f64]) -> [[f64; 3]; 3] {
        [
            [1.0 + 0.3 * p[0], 0.3 * p[3], 0.3 * p[4]],
            [0.3 * p[3], 3.0 + 0.3 * p[1], 0.3 * p[5]],
            [0.3 * p[4], 0.3 * p[5], 6.0 + 0.3 * p[2]],
        ]
    }

    fn flat(m: [[f64; 3]; 3]) -> Vec<f64> {
        m.iter().flatten().copied().collect()
    }

    fn unflat(x: &[f64]) -> [[f64; 3]; 3] {
        common::contract::nested(x)
    }

    fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    #[test]
    fn solver_and_eigenvalue_by_hand() {
        for p in points(4491, 6, 12, -1.0, 1.0) {
            let a = matrix(&p);
            let b = [p[0], -p[1], 0.5];
            let x = solve3(&a, &b);
            for i in 0..3 {
                assert_close(dot(&a[i], &x), b[i], 1e-13, "A x = b");
            }
            let (lam, g) = smallest_grad(a);
            // λ is a root of det(A - λI), and the smallest (the others lie near 3 and 6).
            let mut shifted = a;
            for i in 0..3 {
                shifted[i][i] -= lam;
            }
            assert!(
                det3(&shifted).abs() < 1e-12,
                "det(A - λI) = {}",
                det3(&shifted)
            );
            assert!(lam < 2.0);
            let v = cross(shifted[0], shifted[1]);
            let n2 = dot(&v, &v);
            for i in 0..3 {
                for j in 0..3 {
                    assert_close(g[i][j], v[i] * v[j] / n2, 1e-10, "dλ/dA = v vᵀ");
                }
            }
            let mut buf = [[f64::NAN; 3]; 3];
            assert_eq!(smallest_grad_into(a, &mut buf), lam);
            same_bits(&flat(buf), &flat(g), "smallest");

            let t = wave(9, 0.4);
            let tb = wave(3, 1.0);
            let c = wave(3, -0.2);
            let (ga, gb) = solve3_vjp(&a, &b, arr(&c)).1;
            let (_, jt) = solve3_jvp(&a, &b, (unflat(&t), arr(&tb)));
            check_dual(
                "rayleigh::solve3",
                &c,
                &jt,
                &[flat(ga), gb.to_vec()].concat(),
                &[t, tb].concat(),
            );
            let j = solve3_jacobian(&a, &b);
            check_jacobian(
                "rayleigh::solve3",
                &[flat(a), b.to_vec()].concat(),
                &j,
                |x| solve3(&unflat(&x[..9]), &arr(&x[9..])).to_vec(),
            );
        }
    }

    #[test]
    fn smallest_audit() {
        let pts: Vec<Vec<f64>> = points(4492, 6, 8, -1.0, 1.0)
            .iter()
            .map(|p| flat(matrix(p)))
            .collect();
        audit(
            &Items {
                what: "rayleigh::smallest",
                primal: &|x| smallest(unflat(x)),
                grad: &|x| {
                    let (v, g) = smallest_grad(unflat(x));
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (v, g) = smallest_vjp(unflat(x), d);
                    (v, flat(g))
                },
                jvp: &|x, t| smallest_jvp(unflat(x), unflat(t)),
                grad_into: &|x| {
                    let mut b = [[f64::NAN; 3]; 3];
                    let v = smallest_grad_into(unflat(x), &mut b);
                    (v, flat(b))
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) = smallest_hvp(unflat(x), unflat(v));
                    (val, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = smallest_hessian(unflat(x));
                    (val, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) A fully invested mean-variance portfolio as a `Differentiable` struct of expected returns and a
// covariance matrix (nested arrays) with a `#[no_grad]` tag: `weights` solves two 3x3 systems by the
// rayleigh project's Cramer solver (`super::rayleigh::solve3`), `utility` calls `self.weights` and
// `Self::risk`; by the envelope theorem its gradient is `w` over the returns and `-(γ/2) w wᵀ` over
// the covariance; `order = 2` through the methods.

mod portfolio {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Market {
        pub mu: [f64; 3],
        pub cov: [[f64; 3]; 3],
        #[no_grad]
        pub id: usize,
    }

    impl Market {
        #[differentiable(wrt(self))]
        pub fn weights(&self, gamma: f64) -> [f64; 3] {
            // Copied element by element, as first written (passing the fields on whole left `weights`
            // without the generic copy that `utility`'s `order = 2` needs; it works since session 46:
            // tests/method_fields46.rs, `portfolio`).
            let mut cov = [[0.0; 3]; 3];
            for i in 0..3 {
                for j in 0..3 {
                    cov[i][j] = self.cov[i][j];
                }
            }
            let mu = [self.mu[0], self.mu[1], self.mu[2]];
            let a = super::rayleigh::solve3(&cov, &mu);
            let b = super::rayleigh::solve3(&cov, &[1.0, 1.0, 1.0]);
            let (sa, sb) = (a[0] + a[1] + a[2], b[0] + b[1] + b[2]);
            let eta = (1.0 - sa / gamma) / sb;
            [
                a[0] / gamma + eta * b[0],
                a[1] / gamma + eta * b[1],
                a[2] / gamma + eta * b[2],
            ]
        }

        #[differentiable(wrt(cov, w))]
        pub fn risk(cov: &[[f64; 3]; 3], w: &[f64; 3]) -> f64 {
            let mut s = 0.0;
            for (i, row) in cov.iter().enumerate() {
                s += w[i] * row.iter().zip(w).map(|(c, wj)| c * wj).sum::<f64>();
            }
            s
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn utility(&self, gamma: f64) -> f64 {
            let w = self.weights(gamma);
            let ret = w.iter().zip(&self.mu).map(|(a, b)| a * b).sum::<f64>();
            ret - 0.5 * gamma * Self::risk(&self.cov, &w)
        }
    }

    fn market(p: &[f64]) -> Market {
        let l = [
            [0.3 + 0.05 * p[0], 0.0, 0.0],
            [0.05 * p[1], 0.25, 0.0],
            [0.05 * p[2], 0.05 * p[3], 0.2],
        ];
        let mut cov = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                cov[i][j] = (0..3).map(|k| l[i][k] * l[j][k]).sum::<f64>();
            }
        }
        Market {
            mu: [0.05 + 0.02 * p[4], 0.07 + 0.02 * p[5], 0.04],
            cov,
            id: 7,
        }
    }

    #[test]
    fn weights_budget_and_envelope_gradient() {
        let gamma = 3.0;
        for p in points(44101, 6, 12, -1.0, 1.0) {
            let m = market(&p);
            let w = m.weights(gamma);
            assert_close(w.iter().sum::<f64>(), 1.0, 1e-13, "fully invested");
            // Stationary: γ Σ w - μ is the same in every component (the budget's multiplier).
            let r: Vec<f64> = (0..3)
                .map(|i| gamma * dot(&m.cov[i], &w) - m.mu[i])
                .collect();
            assert_close(r[0], r[1], 1e-12, "stationary");
            assert_close(r[1], r[2], 1e-12, "stationary");

            let (u, g) = m.utility_grad(gamma);
            assert_eq!(g.id, 7, "the #[no_grad] field copied");
            assert_all_close(&g.mu, &w, 1e-10, "dU/dμ = w");
            for i in 0..3 {
                for j in 0..3 {
                    assert_close(g.cov[i][j], -0.5 * gamma * w[i] * w[j], 1e-10, "dU/dΣ");
                }
            }
            assert_close(
                u,
                dot(&w, &m.mu) - 0.5 * gamma * Market::risk(&m.cov, &w),
                0.0,
                "value",
            );

            let x = m.to_flat();
            let jw = (0..3)
                .map(|i| {
                    let (_, gi) = m.weights_vjp(gamma, {
                        let mut c = [0.0; 3];
                        c[i] = 1.0;
                        c
                    });
                    gi.to_flat()
                })
                .collect::<Vec<_>>();
            check_jacobian("portfolio::weights", &x, &jw, |y| {
                m.from_flat(y).weights(gamma).to_vec()
            });
            let t = wave(x.len(), 0.5);
            let c = wave(3, 0.1);
            let (_, jt) = m.weights_jvp(gamma, m.from_flat(&t));
            let (_, cj) = m.weights_vjp(gamma, arr(&c));
            check_dual("portfolio::weights", &c, &jt, &cj.to_flat(), &t);
        }
    }

    #[test]
    fn utility_audit() {
        let gamma = 2.5;
        let base = market(&[0.0; 6]);
        let pts: Vec<Vec<f64>> = points(44102, 6, 8, -1.0, 1.0)
            .iter()
            .map(|p| market(p).to_flat())
            .collect();
        let at = |x: &[f64]| base.from_flat(x);
        for x in &pts {
            let m = at(x);
            let (v, g) = m.utility_grad(gamma);
            let mut b = m.zero_like();
            b.mu = [f64::NAN; 3];
            assert_eq!(m.utility_grad_into(gamma, &mut b), v);
            same_bits(&b.to_flat(), &g.to_flat(), "utility");
        }
        audit(
            &Items {
                what: "portfolio::utility",
                primal: &|x| at(x).utility(gamma),
                grad: &|x| {
                    let (v, g) = at(x).utility_grad(gamma);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = at(x).utility_vjp(gamma, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| at(x).utility_jvp(gamma, at(t)),
                grad_into: &|x| {
                    let mut b = at(x);
                    let v = at(x).utility_grad_into(gamma, &mut b);
                    (v, b.to_flat())
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) = at(x).utility_hvp(gamma, at(v));
                    (val, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = at(x).utility_hessian(gamma);
                    (val, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) Cubic Hermite interpolation: the interval found by a binary search (`while hi - lo > 1`, an
// active `x` compared with the knots), the four basis polynomials from a helper returning a tuple;
// over `(ys, ds, x)` at `order = 2`, and over `x` alone at `order = 3`, whose `_derivatives` are the
// cubic's by hand (the third derivative constant on each interval), and interpolation at the knots.

mod hermite {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn basis(t: f64) -> (f64, f64, f64, f64) {
        let t2 = t * t;
        let t3 = t2 * t;
        (
            2.0 * t3 - 3.0 * t2 + 1.0,
            t3 - 2.0 * t2 + t,
            -2.0 * t3 + 3.0 * t2,
            t3 - t2,
        )
    }

    #[differentiable(wrt(ys, ds, x), order = 2)]
    pub fn eval(knots: &[f64], ys: &[f64], ds: &[f64], x: f64) -> f64 {
        let mut lo = 0;
        let mut hi = knots.len() - 1;
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if knots[mid] <= x {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let h = knots[hi] - knots[lo];
        let t = (x - knots[lo]) / h;
        let (h00, h10, h01, h11) = basis(t);
        h00 * ys[lo] + h10 * h * ds[lo] + h01 * ys[hi] + h11 * h * ds[hi]
    }

    #[differentiable(wrt(x), order = 3)]
    pub fn at(knots: &[f64], ys: &[f64], ds: &[f64], x: f64) -> f64 {
        eval(knots, ys, ds, x)
    }

    const KNOTS: [f64; 6] = [0.0, 0.4, 1.1, 1.5, 2.3, 3.0];
    const YS: [f64; 6] = [0.2, -0.5, 0.9, 0.1, 1.4, -0.3];
    const DS: [f64; 6] = [1.0, 0.3, -0.8, 2.0, 0.0, -1.1];

    /// f, f', f'', f''' at `x` by the cubic's coefficients on its interval.
    fn by_hand(x: f64) -> [f64; 4] {
        let k = (0..KNOTS.len() - 1).rfind(|&k| KNOTS[k] <= x).unwrap_or(0);
        let (y0, y1, h) = (YS[k], YS[k + 1], KNOTS[k + 1] - KNOTS[k]);
        let (d0, d1) = (h * DS[k], h * DS[k + 1]);
        let c = [
            y0,
            d0,
            -3.0 * y0 - 2.0 * d0 + 3.0 * y1 - d1,
            2.0 * y0 + d0 - 2.0 * y1 + d1,
        ];
        let t = (x - KNOTS[k]) / h;
        [
            c[0] + t * (c[1] + t * (c[2] + t * c[3])),
            (c[1] + 2.0 * c[2] * t + 3.0 * c[3] * t * t) / h,
            (2.0 * c[2] + 6.0 * c[3] * t) / (h * h),
            6.0 * c[3] / (h * h * h),
        ]
    }

    #[test]
    fn derivatives_by_hand_and_at_the_knots() {
        for p in points(44121, 1, 16, 0.01, 2.99) {
            let x = p[0];
            let d = at_derivatives(&KNOTS, &YS, &DS, x);
            assert_all_close(&d, &by_hand(x), 1e-11, "f, f', f'', f'''");
            let (v, g) = at_grad(&KNOTS, &YS, &DS, x);
            assert_eq!(v, d[0]);
            assert_close(g, d[1], 1e-13, "at_grad");
            let (_, _, h) = at_hessian(&KNOTS, &YS, &DS, x);
            assert_close(h[0][0], d[2], 1e-12, "at_hessian");
            let mut b = f64::NAN;
            at_grad_into(&KNOTS, &YS, &DS, x, &mut b);
            same_bits(&[b], &[g], "at");
        }
        for k in 1..KNOTS.len() - 1 {
            let d = at_derivatives(&KNOTS, &YS, &DS, KNOTS[k]);
            assert_close(d[0], YS[k], 1e-14, "interpolates the values");
            assert_close(d[1], DS[k], 1e-13, "and the slopes");
        }
    }

    #[test]
    fn eval_audit() {
        let n = KNOTS.len();
        let pts: Vec<Vec<f64>> = points(44122, 2 * n + 1, 10, -1.0, 1.0)
            .into_iter()
            .map(|mut p| {
                p[2 * n] = 1.5 + 1.45 * p[2 * n];
                p
            })
            .collect();
        let join = |g: (Vec<f64>, Vec<f64>, f64)| [g.0, g.1, vec![g.2]].concat();
        let split = |x: &[f64]| (x[..n].to_vec(), x[n..2 * n].to_vec(), x[2 * n]);
        for x in &pts {
            let (ys, ds, xq) = split(x);
            // Linear in the values and slopes: the gradient over them is the basis.
            let (v, g) = eval_grad(&KNOTS, &ys, &ds, xq);
            let mut e = vec![0.0; n];
            let lin: f64 = (0..n)
                .map(|k| {
                    e.iter_mut().for_each(|v| *v = 0.0);
                    e[k] = 1.0;
                    ys[k] * eval(&KNOTS, &e, &[0.0; 6], xq)
                        + ds[k] * eval(&KNOTS, &[0.0; 6], &e, xq)
                })
                .sum();
            assert_close(v, lin, 1e-13, "linear in ys and ds");
            let mut b = (vec![f64::NAN; n], vec![f64::NAN; n], f64::NAN);
            eval_grad_into(&KNOTS, &ys, &ds, xq, (&mut b.0, &mut b.1, &mut b.2));
            same_bits(&join(b), &join(g), "eval");
        }
        audit(
            &Items {
                what: "hermite::eval",
                primal: &|x| {
                    let (ys, ds, xq) = split(x);
                    eval(&KNOTS, &ys, &ds, xq)
                },
                grad: &|x| {
                    let (ys, ds, xq) = split(x);
                    let (v, g) = eval_grad(&KNOTS, &ys, &ds, xq);
                    (v, join(g))
                },
                vjp: &|x, d| {
                    let (ys, ds, xq) = split(x);
                    let (v, g) = eval_vjp(&KNOTS, &ys, &ds, xq, d);
                    (v, join(g))
                },
                jvp: &|x, t| {
                    let (ys, ds, xq) = split(x);
                    eval_jvp(&KNOTS, &ys, &ds, xq, split(t))
                },
                grad_into: &|x| {
                    let (ys, ds, xq) = split(x);
                    let mut b = (vec![f64::NAN; n], vec![f64::NAN; n], f64::NAN);
                    let v = eval_grad_into(&KNOTS, &ys, &ds, xq, (&mut b.0, &mut b.1, &mut b.2));
                    (v, join(b))
                },
                hvp: Some(&|x, v| {
                    let (ys, ds, xq) = split(x);
                    let (val, g, hv) = eval_hvp(&KNOTS, &ys, &ds, xq, split(v));
                    (val, join(g), join(hv))
                }),
                hessian: Some(&|x| {
                    let (ys, ds, xq) = split(x);
                    let (val, g, h) = eval_hessian(&KNOTS, &ys, &ds, xq);
                    (val, join(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) A B-spline curve: the knot span found by a plain (not differentiable) helper whose `usize` result
// is declared as such (`let span: usize = find_span(..)`), the nonzero basis functions by de Boor's
// triangular recursion into an output slice with `left`/`right` scratch `Vec`s overwritten in nested
// loops, and the curve `Σ N_k c_k` over the control points and the parameter at `order = 2`. The
// basis against the textbook Cox-de Boor recursion, and a partition of unity.

mod bspline {
    use super::*;
    use autodiff::differentiable;

    pub fn find_span(knots: &[f64], degree: usize, x: f64) -> usize {
        let last = knots.len() - degree - 2;
        (degree..=last).rfind(|&k| knots[k] <= x).unwrap_or(degree)
    }

    #[differentiable(wrt(x))]
    pub fn basis(knots: &[f64], span: usize, x: f64, out: &mut [f64]) {
        let p = out.len() - 1;
        let mut left = vec![0.0; p + 1];
        let mut right = vec![0.0; p + 1];
        out[0] = 1.0;
        for j in 1..=p {
            left[j] = x - knots[span + 1 - j];
            right[j] = knots[span + j] - x;
            let mut saved = 0.0;
            for r in 0..j {
                let temp = out[r] / (right[r + 1] + left[j - r]);
                out[r] = saved + right[r + 1] * temp;
                saved = left[j - r] * temp;
            }
            out[j] = saved;
        }
    }

    #[differentiable(wrt(ctrl, x), order = 2)]
    pub fn curve(ctrl: &[f64], knots: &[f64], degree: usize, x: f64) -> f64 {
        let span: usize = find_span(knots, degree, x);
        let mut n = vec![0.0; degree + 1];
        basis(knots, span, x, &mut n);
        let mut s = 0.0;
        for (k, b) in n.iter().enumerate() {
            s += b * ctrl[span - degree + k];
        }
        s
    }

    /// The textbook recursion `N_{i,p}`.
    fn cox_de_boor(knots: &[f64], i: usize, p: usize, x: f64) -> f64 {
        if p == 0 {
            return if knots[i] <= x && x < knots[i + 1] {
                1.0
            } else {
                0.0
            };
        }
        let mut v = 0.0;
        let d1 = knots[i + p] - knots[i];
        if d1 > 0.0 {
            v += (x - knots[i]) / d1 * cox_de_boor(knots, i, p - 1, x);
        }
        let d2 = knots[i + p + 1] - knots[i + 1];
        if d2 > 0.0 {
            v += (knots[i + p + 1] - x) / d2 * cox_de_boor(knots, i + 1, p - 1, x);
        }
        v
    }

    const KNOTS: [f64; 11] = [0.0, 0.0, 0.0, 0.0, 0.7, 1.5, 2.0, 3.1, 3.1, 3.1, 3.1];
    const DEGREE: usize = 3;
    const CTRL: usize = KNOTS.len() - DEGREE - 1;

    #[test]
    fn basis_against_the_recursion_and_its_jacobian() {
        for p in points(44131, 1, 14, 0.01, 3.09) {
            let x = p[0];
            let span = find_span(&KNOTS, DEGREE, x);
            let mut n = vec![0.0; DEGREE + 1];
            let j = basis_jacobian(&KNOTS, span, x, &mut n);
            for k in 0..=DEGREE {
                let i = span - DEGREE + k;
                assert_close(
                    n[k],
                    cox_de_boor(&KNOTS, i, DEGREE, x),
                    1e-14,
                    "Cox-de Boor",
                );
            }
            assert_close(n.iter().sum::<f64>(), 1.0, 1e-14, "partition of unity");
            check_jacobian("bspline::basis", &[x], &j, |y| {
                let mut n = vec![0.0; DEGREE + 1];
                basis(&KNOTS, span, y[0], &mut n);
                n
            });
            // The derivatives of a partition of unity sum to zero.
            assert!(j.iter().map(|r| r[0]).sum::<f64>().abs() < 1e-12);
            let c = wave(DEGREE + 1, 0.6);
            let gx = basis_vjp(&KNOTS, span, x, &mut vec![0.0; DEGREE + 1], &c);
            let mut jt = vec![0.0; DEGREE + 1];
            basis_jvp(&KNOTS, span, x, &mut vec![0.0; DEGREE + 1], 0.8, &mut jt);
            check_dual("bspline::basis", &c, &jt, &[gx], &[0.8]);
        }
    }

    #[test]
    fn curve_by_the_basis_and_audit() {
        let pts: Vec<Vec<f64>> = points(44132, CTRL + 1, 10, -1.0, 1.0)
            .into_iter()
            .map(|mut p| {
                p[CTRL] = 1.55 + 1.5 * p[CTRL];
                p
            })
            .collect();
        let join = |g: (Vec<f64>, f64)| g.0.into_iter().chain([g.1]).collect::<Vec<f64>>();
        for x in &pts {
            let (ctrl, xq) = (&x[..CTRL], x[CTRL]);
            let (v, (gc, _)) = curve_grad(ctrl, &KNOTS, DEGREE, xq);
            let by_hand: Vec<f64> = (0..CTRL)
                .map(|i| cox_de_boor(&KNOTS, i, DEGREE, xq))
                .collect();
            assert_all_close(&gc, &by_hand, 1e-14, "d curve / d ctrl is the basis");
            assert_close(v, dot(&by_hand, ctrl), 1e-14, "curve");
            // Constant control points: a constant curve, of zero slope.
            let (one, (_, slope)) = curve_grad(&[1.0; CTRL], &KNOTS, DEGREE, xq);
            assert_close(one, 1.0, 1e-14, "constant curve");
            assert!(slope.abs() < 1e-12, "zero slope {slope}");
            let mut b = (vec![f64::NAN; CTRL], f64::NAN);
            curve_grad_into(ctrl, &KNOTS, DEGREE, xq, (&mut b.0, &mut b.1));
            same_bits(
                &join(b),
                &join(curve_grad(ctrl, &KNOTS, DEGREE, xq).1),
                "curve",
            );
        }
        audit(
            &Items {
                what: "bspline::curve",
                primal: &|x| curve(&x[..CTRL], &KNOTS, DEGREE, x[CTRL]),
                grad: &|x| {
                    let (v, g) = curve_grad(&x[..CTRL], &KNOTS, DEGREE, x[CTRL]);
                    (v, join(g))
                },
                vjp: &|x, d| {
                    let (v, g) = curve_vjp(&x[..CTRL], &KNOTS, DEGREE, x[CTRL], d);
                    (v, join(g))
                },
                jvp: &|x, t| {
                    curve_jvp(
                        &x[..CTRL],
                        &KNOTS,
                        DEGREE,
                        x[CTRL],
                        (t[..CTRL].to_vec(), t[CTRL]),
                    )
                },
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; CTRL], f64::NAN);
                    let v =
                        curve_grad_into(&x[..CTRL], &KNOTS, DEGREE, x[CTRL], (&mut b.0, &mut b.1));
                    (v, join(b))
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) = curve_hvp(
                        &x[..CTRL],
                        &KNOTS,
                        DEGREE,
                        x[CTRL],
                        (v[..CTRL].to_vec(), v[CTRL]),
                    );
                    (val, join(g), join(hv))
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = curve_hessian(&x[..CTRL], &KNOTS, DEGREE, x[CTRL]);
                    (val, join(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) The 1-D shallow-water equations by Lax-Friedrichs steps on a periodic grid (`%` on indices):
// the flux from a helper returning a tuple, the previous state copied each step (`to_vec`), the depth
// and the discharge into two output parameters (`_vjp` with two output cotangents and `-> G`, `_jvp`
// with two tangent buffers), both conserved; and the final energy at `order = 2`.

mod shallow {
    use super::*;
    use autodiff::differentiable;

    pub const G: f64 = 9.81;

    #[differentiable]
    pub fn flux(h: f64, q: f64) -> (f64, f64) {
        (q, q * q / h + 0.5 * G * h * h)
    }

    #[differentiable(wrt(h0, q0))]
    pub fn lax_friedrichs(
        h0: &[f64],
        q0: &[f64],
        dt_dx: f64,
        steps: usize,
        h_out: &mut [f64],
        q_out: &mut [f64],
    ) {
        let n = h0.len();
        let mut h = h0.to_vec();
        let mut q = q0.to_vec();
        for _ in 0..steps {
            let hp = h.to_vec();
            let qp = q.to_vec();
            for i in 0..n {
                let (l, r) = ((i + n - 1) % n, (i + 1) % n);
                let (fl0, fl1) = flux(hp[l], qp[l]);
                let (fr0, fr1) = flux(hp[r], qp[r]);
                h[i] = 0.5 * (hp[l] + hp[r]) - 0.5 * dt_dx * (fr0 - fl0);
                q[i] = 0.5 * (qp[l] + qp[r]) - 0.5 * dt_dx * (fr1 - fl1);
            }
        }
        for i in 0..n {
            h_out[i] = h[i];
            q_out[i] = q[i];
        }
    }

    #[differentiable(wrt(h0, q0), order = 2)]
    pub fn energy(h0: &[f64], q0: &[f64], dt_dx: f64, steps: usize) -> f64 {
        let n = h0.len();
        let mut h = vec![0.0; n];
        let mut q = vec![0.0; n];
        lax_friedrichs(h0, q0, dt_dx, steps, &mut h, &mut q);
        h.iter()
            .zip(&q)
            .map(|(hi, qi)| 0.5 * qi * qi / hi + 0.5 * G * hi * hi)
            .sum::<f64>()
    }

    const N: usize = 6;
    const STEPS: usize = 3;
    const DT_DX: f64 = 0.05;

    fn state(p: &[f64]) -> (Vec<f64>, Vec<f64>) {
        (
            p[..N].iter().map(|v| 1.0 + 0.2 * v).collect(),
            p[N..].iter().map(|v| 0.3 * v).collect(),
        )
    }

    #[test]
    fn conservation_and_duality_with_two_outputs() {
        for p in points(44141, 2 * N, 12, -1.0, 1.0) {
            let (h0, q0) = state(&p);
            let (mut h, mut q) = (vec![0.0; N], vec![0.0; N]);
            lax_friedrichs(&h0, &q0, DT_DX, STEPS, &mut h, &mut q);
            assert_close(h.iter().sum::<f64>(), h0.iter().sum::<f64>(), 1e-14, "mass");
            assert_close(
                q.iter().sum::<f64>(),
                q0.iter().sum::<f64>(),
                1e-13,
                "momentum",
            );

            let (ch, cq) = (wave(N, 0.3), wave(N, 1.7));
            let t = wave(2 * N, -0.5);
            let (mut hv, mut qv) = (vec![0.0; N], vec![0.0; N]);
            let (gh, gq) = lax_friedrichs_vjp(&h0, &q0, DT_DX, STEPS, &mut hv, &mut qv, &ch, &cq);
            assert_eq!((hv, qv), (h.clone(), q.clone()));
            let (mut ht, mut qt) = (vec![0.0; N], vec![0.0; N]);
            let (mut dh, mut dq) = (vec![0.0; N], vec![0.0; N]);
            lax_friedrichs_jvp(
                &h0,
                &q0,
                DT_DX,
                STEPS,
                &mut ht,
                &mut qt,
                (t[..N].to_vec(), t[N..].to_vec()),
                &mut dh,
                &mut dq,
            );
            assert_eq!((ht, qt), (h, q));
            let c = [ch.clone(), cq.clone()].concat();
            let jt = [dh.clone(), dq.clone()].concat();
            let cj = [gh.clone(), gq.clone()].concat();
            check_dual("shallow::lax_friedrichs", &c, &jt, &cj, &t);
            let x = [h0.clone(), q0.clone()].concat();
            check_jacobian("shallow::lax_friedrichs", &x, &[cj], |y| {
                let (mut h, mut q) = (vec![0.0; N], vec![0.0; N]);
                lax_friedrichs(&y[..N], &y[N..], DT_DX, STEPS, &mut h, &mut q);
                vec![dot(&ch, &h) + dot(&cq, &q)]
            });
            // Mass is conserved whatever the inputs: the cotangent of Σh pulls back to ones over h0.
            let (gm, gqm) = lax_friedrichs_vjp(
                &h0,
                &q0,
                DT_DX,
                STEPS,
                &mut vec![0.0; N],
                &mut vec![0.0; N],
                &[1.0; N],
                &[0.0; N],
            );
            assert_all_close(&gm, &[1.0; N], 1e-13, "mass is conserved");
            assert_all_close(&gqm, &[0.0; N], 1e-13, "whatever the discharge");
        }
    }

    #[test]
    fn energy_audit() {
        let pts: Vec<Vec<f64>> = points(44142, 2 * N, 10, -1.0, 1.0)
            .iter()
            .map(|p| {
                let (h, q) = state(p);
                [h, q].concat()
            })
            .collect();
        let join = |g: (Vec<f64>, Vec<f64>)| [g.0, g.1].concat();
        for x in &pts {
            let (v, g) = energy_grad(&x[..N], &x[N..], DT_DX, STEPS);
            let mut b = (vec![f64::NAN; N], vec![f64::NAN; N]);
            assert_eq!(
                energy_grad_into(&x[..N], &x[N..], DT_DX, STEPS, (&mut b.0, &mut b.1)),
                v
            );
            same_bits(&join(b), &join(g), "energy");
        }
        audit(
            &Items {
                what: "shallow::energy",
                primal: &|x| energy(&x[..N], &x[N..], DT_DX, STEPS),
                grad: &|x| {
                    let (v, g) = energy_grad(&x[..N], &x[N..], DT_DX, STEPS);
                    (v, join(g))
                },
                vjp: &|x, d| {
                    let (v, g) = energy_vjp(&x[..N], &x[N..], DT_DX, STEPS, d);
                    (v, join(g))
                },
                jvp: &|x, t| {
                    energy_jvp(
                        &x[..N],
                        &x[N..],
                        DT_DX,
                        STEPS,
                        (t[..N].to_vec(), t[N..].to_vec()),
                    )
                },
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; N], vec![f64::NAN; N]);
                    let v = energy_grad_into(&x[..N], &x[N..], DT_DX, STEPS, (&mut b.0, &mut b.1));
                    (v, join(b))
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) = energy_hvp(
                        &x[..N],
                        &x[N..],
                        DT_DX,
                        STEPS,
                        (v[..N].to_vec(), v[N..].to_vec()),
                    );
                    (val, join(g), join(hv))
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = energy_hessian(&x[..N], &x[N..], DT_DX, STEPS);
                    (val, join(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) An Elman recurrent network as a `Differentiable` struct (arrays, a `Vec` of recurrent weights, a
// `#[no_grad]` count): `cell` (truncated `tanh` states, `clamp`) and `readout` (through a soft-sign
// from a "vendor" module whose gradient is registered by `#[gradient_of]`) called by `loss`, which
// keeps the hidden history in a `Vec<[f64; H]>` (`vec![[0.0; H]; n + 1]`), passes its rows as
// `&[f64; H]` and stores whole rows; `wrt(self)` at `order = 2`.

pub mod vendor {
    /// A function "from another crate": no derivative of its own.
    pub fn soft_sign(x: f64) -> f64 {
        x / (1.0 + x.abs())
    }
}

mod elman {
    use super::*;
    use autodiff::{differentiable, gradient_of, Differentiable};
    use common::assert_fd_gradient;

    pub const H: usize = 3;

    #[gradient_of(super::vendor::soft_sign)]
    fn soft_sign_vjp(x: f64, dy: f64) -> f64 {
        dy / (1.0 + x.abs()).powi(2)
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Elman {
        pub wx: [f64; H],
        pub wh: Vec<f64>,
        pub b: [f64; H],
        pub wo: [f64; H],
        pub bo: f64,
        #[no_grad]
        pub burn_in: usize,
    }

    impl Elman {
        #[differentiable(wrt(self))]
        pub fn cell(&self, h: &[f64; H], x: f64) -> [f64; H] {
            let mut out = [0.0; H];
            for i in 0..H {
                let mut a = self.b[i] + self.wx[i] * x;
                for j in 0..H {
                    a += self.wh[i * H + j] * h[j];
                }
                out[i] = a.tanh().clamp(-0.95, 0.95);
            }
            out
        }

        #[differentiable(wrt(self))]
        pub fn readout(&self, h: &[f64; H]) -> f64 {
            let mut s = self.bo;
            for i in 0..H {
                s += self.wo[i] * h[i];
            }
            super::vendor::soft_sign(s)
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
            let n = xs.len();
            let mut hist = vec![[0.0; H]; n + 1];
            for t in 0..n {
                let next = self.cell(&hist[t], xs[t]);
                hist[t + 1] = next;
            }
            let mut l = 0.0;
            for t in self.burn_in..n {
                let y = self.readout(&hist[t + 1]);
                l += (y - ys[t]).powi(2);
            }
            l / (n - self.burn_in) as f64
        }
    }

    fn plain_loss(m: &Elman, xs: &[f64], ys: &[f64]) -> f64 {
        let mut h = [0.0; H];
        let mut l = 0.0;
        for t in 0..xs.len() {
            let mut next = [0.0; H];
            for i in 0..H {
                let a =
                    m.b[i] + m.wx[i] * xs[t] + (0..H).map(|j| m.wh[i * H + j] * h[j]).sum::<f64>();
                next[i] = a.tanh().clamp(-0.95, 0.95);
            }
            h = next;
            if t >= m.burn_in {
                let s = m.bo + dot(&m.wo, &h);
                l += (s / (1.0 + s.abs()) - ys[t]).powi(2);
            }
        }
        l / (xs.len() - m.burn_in) as f64
    }

    fn model(p: &[f64]) -> Elman {
        Elman {
            wx: arr(&p[0..3]),
            wh: p[3..12].iter().map(|v| 0.6 * v).collect(),
            b: arr(&p[12..15]),
            wo: arr(&p[15..18]),
            bo: p[18],
            burn_in: 2,
        }
    }

    #[test]
    fn cell_jacobian_and_loss_audit() {
        let xs: Vec<f64> = (0..7).map(|t| (0.9 * t as f64).cos()).collect();
        let ys: Vec<f64> = (0..7).map(|t| 0.5 * (0.5 * t as f64).sin()).collect();
        let pts: Vec<Vec<f64>> = points(44151, 19, 8, -1.0, 1.0)
            .iter()
            .map(|p| model(p).to_flat())
            .collect();
        let base = model(&[0.0; 19]);
        let at = |x: &[f64]| base.from_flat(x);
        for x in &pts {
            let m = at(x);
            let (v, g) = m.loss_grad(&xs, &ys);
            assert_close(v, plain_loss(&m, &xs, &ys), 1e-14, "loss");
            assert_eq!(g.burn_in, 2, "the #[no_grad] field copied");
            let mut b = m.zero_like();
            b.bo = f64::NAN;
            assert_eq!(m.loss_grad_into(&xs, &ys, &mut b), v);
            same_bits(&b.to_flat(), &g.to_flat(), "loss");

            let h = [0.3, -0.2, 0.5];
            let c = wave(H, 0.4);
            let (hv, gc) = m.cell_vjp(&h, 0.7, arr(&c));
            let t = wave(x.len(), 1.3);
            let (ht, jt) = m.cell_jvp(&h, 0.7, at(&t));
            assert_eq!(hv, ht);
            check_dual("elman::cell", &c, &jt, &gc.to_flat(), &t);
            let (_, gr) = m.readout_grad(&h);
            assert_fd_gradient(|y| at(y).readout(&h), x, &gr.to_flat(), "elman::readout");
        }
        audit(
            &Items {
                what: "elman::loss",
                primal: &|x| at(x).loss(&xs, &ys),
                grad: &|x| {
                    let (v, g) = at(x).loss_grad(&xs, &ys);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = at(x).loss_vjp(&xs, &ys, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| at(x).loss_jvp(&xs, &ys, at(t)),
                grad_into: &|x| {
                    let mut b = at(x);
                    let v = at(x).loss_grad_into(&xs, &ys, &mut b);
                    (v, b.to_flat())
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) = at(x).loss_hvp(&xs, &ys, at(v));
                    (val, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = at(x).loss_hessian(&xs, &ys);
                    (val, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (16) A log-barrier interior-point objective `t (c x + x²/2) - Σ ln(b_i - a_i x)`: the slacks' sum from
// a helper with an early `return f64::INFINITY` outside the domain (`f64::EPSILON`), at `order = 3`
// over `x`, its `_derivatives` by hand; the central path followed by Newton steps on the generated
// `_derivatives` as a user would; and a 2-D barrier over `[f64; 2]` at `order = 2`.

mod barrier {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn log_slacks(a: &[f64], b: &[f64], x: f64) -> f64 {
        let mut s = 0.0;
        for (ai, bi) in a.iter().zip(b) {
            let slack = bi - ai * x;
            if slack <= f64::EPSILON {
                return f64::NEG_INFINITY;
            }
            s += slack.ln();
        }
        s
    }

    #[differentiable(wrt(x), order = 3)]
    pub fn phi(x: f64, t: f64, c: f64, a: &[f64], b: &[f64]) -> f64 {
        t * c.mul_add(x, 0.5 * x * x) - log_slacks(a, b, x)
    }

    #[differentiable(wrt(x), order = 2)]
    pub fn phi2(x: [f64; 2], t: f64, a: &[Vec<f64>], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for (row, bi) in a.iter().zip(b) {
            let slack = bi - row[0] * x[0] - row[1] * x[1];
            s -= slack.max(f64::EPSILON).ln();
        }
        t * (x[0] - 2.0 * x[1] + 0.5 * x[0].hypot(x[1]).powi(2)) + s
    }

    const A: [f64; 4] = [1.0, -1.0, 2.0, -0.5];
    const B: [f64; 4] = [2.0, 1.5, 3.0, 2.0];

    fn by_hand(x: f64, t: f64, c: f64) -> [f64; 4] {
        let s: Vec<f64> = A.iter().zip(&B).map(|(a, b)| b - a * x).collect();
        let sum = |k: i32| A.iter().zip(&s).map(|(a, s)| (a / s).powi(k)).sum::<f64>();
        [
            t * (c * x + 0.5 * x * x) - s.iter().map(|v| v.ln()).sum::<f64>(),
            t * (c + x) + sum(1),
            t + sum(2),
            2.0 * sum(3),
        ]
    }

    #[test]
    fn derivatives_by_hand_and_the_central_path() {
        // The domain: -1.5 < x < 1.5.
        for p in points(44161, 3, 14, -1.0, 1.0) {
            let (x, t, c) = (1.4 * p[0], 1.0 + p[1].abs() * 5.0, p[2]);
            let d = phi_derivatives(x, t, c, &A, &B);
            assert_all_close(&d, &by_hand(x, t, c), 1e-10, "phi's derivatives");
            let (v, g) = phi_grad(x, t, c, &A, &B);
            assert_eq!(v, d[0]);
            assert_close(g, d[1], 1e-12, "phi_grad");
            let (_, _, h) = phi_hessian(x, t, c, &A, &B);
            assert_close(h[0][0], d[2], 1e-12, "phi_hessian");
        }
        assert_eq!(
            phi(1.6, 1.0, 0.0, &A, &B),
            f64::INFINITY,
            "outside the domain"
        );
        // Newton on each barrier problem, t growing: the centre tends to the constrained minimiser of
        // c x + x²/2 over [-1.5, 1.5], which for c = 2 is the bound -1.5.
        let c = 2.0;
        let mut x = 0.0;
        let mut t = 1.0;
        for _ in 0..12 {
            for _ in 0..50 {
                let d = phi_derivatives(x, t, c, &A, &B);
                let mut step = d[1] / d[2];
                while !phi(x - step, t, c, &A, &B).is_finite() {
                    step *= 0.5;
                }
                x -= step;
                if step.abs() < 1e-14 {
                    break;
                }
            }
            assert!(phi_grad(x, t, c, &A, &B).1.abs() < 1e-8 * t, "centred");
            t *= 4.0;
        }
        assert!(
            (x + 1.5).abs() < 1e-5,
            "the central path ends at the bound: {x}"
        );
    }

    #[test]
    fn two_dimensional_audit() {
        let a: Vec<Vec<f64>> = vec![
            vec![1.0, 0.5],
            vec![-1.0, 0.3],
            vec![0.2, -1.0],
            vec![0.4, 1.2],
        ];
        let b = [2.0, 2.0, 1.5, 2.5];
        let t = 1.7;
        let pts = points(44162, 2, 12, -0.8, 0.8);
        for x in &pts {
            let (v, g) = phi2_grad(arr(x), t, &a, &b);
            let mut by_hand = [t * (1.0 + x[0]), t * (-2.0 + x[1])];
            for (row, bi) in a.iter().zip(&b) {
                let s = bi - dot(row, x);
                by_hand[0] += row[0] / s;
                by_hand[1] += row[1] / s;
            }
            assert_all_close(&g, &by_hand, 1e-12, "phi2 by hand");
            let mut buf = [f64::NAN; 2];
            assert_eq!(phi2_grad_into(arr(x), t, &a, &b, &mut buf), v);
            same_bits(&buf, &g, "phi2");
        }
        audit(
            &Items {
                what: "barrier::phi2",
                primal: &|x| phi2(arr(x), t, &a, &b),
                grad: &|x| {
                    let (v, g) = phi2_grad(arr(x), t, &a, &b);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = phi2_vjp(arr(x), t, &a, &b, d);
                    (v, g.to_vec())
                },
                jvp: &|x, tt| phi2_jvp(arr(x), t, &a, &b, arr(tt)),
                grad_into: &|x| {
                    let mut buf = [f64::NAN; 2];
                    let v = phi2_grad_into(arr(x), t, &a, &b, &mut buf);
                    (v, buf.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (val, g, hv) = phi2_hvp(arr(x), t, &a, &b, arr(v));
                    (val, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = phi2_hessian(arr(x), t, &a, &b);
                    (val, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (17) A trust-region method with dogleg steps on the Rosenbrock function: the model's gradient and
// Hessian from a helper returning a tuple, the dogleg step returning an array from an early `return`
// in each of its three cases (Newton step inside, steepest descent clipped, the dogleg segment's
// crossing by a quadratic's root), the radius grown or shrunk by the ratio of actual to predicted
// decrease and the step rejected below a threshold; the objective after four iterations
// over the start and the initial radius at `order = 2`.

mod dogleg {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn rosen(x: [f64; 2]) -> f64 {
        (1.0 - x[0]).powi(2) + 10.0 * (x[1] - x[0] * x[0]).powi(2)
    }

    /// The gradient and the Hessian `(g0, g1, h00, h01, h11)`.
    #[differentiable]
    pub fn model(x: [f64; 2]) -> (f64, f64, f64, f64, f64) {
        let r = x[1] - x[0] * x[0];
        (
            -2.0 * (1.0 - x[0]) - 40.0 * x[0] * r,
            20.0 * r,
            2.0 - 40.0 * r + 80.0 * x[0] * x[0],
            -40.0 * x[0],
            20.0,
        )
    }

    #[differentiable]
    pub fn step(g: [f64; 2], h: [f64; 3], radius: f64) -> [f64; 2] {
        let det = h[0] * h[2] - h[1] * h[1];
        let pb = [
            -(h[2] * g[0] - h[1] * g[1]) / det,
            -(h[0] * g[1] - h[1] * g[0]) / det,
        ];
        if det > 0.0 && h[0] > 0.0 && pb[0].hypot(pb[1]) <= radius {
            return pb;
        }
        let gn = g[0].hypot(g[1]);
        let ghg = g[0] * (h[0] * g[0] + h[1] * g[1]) + g[1] * (h[1] * g[0] + h[2] * g[1]);
        let tau = if ghg > 0.0 {
            gn * gn / ghg
        } else {
            f64::INFINITY
        };
        let pu = [-tau * g[0], -tau * g[1]];
        if det <= 0.0 || h[0] <= 0.0 || tau * gn >= radius {
            return [-radius * g[0] / gn, -radius * g[1] / gn];
        }
        // pu + s (pb - pu) on the boundary: a s² + b s + c = 0.
        let d = [pb[0] - pu[0], pb[1] - pu[1]];
        let a = d[0] * d[0] + d[1] * d[1];
        let b = 2.0 * (pu[0] * d[0] + pu[1] * d[1]);
        let c = pu[0] * pu[0] + pu[1] * pu[1] - radius * radius;
        let s = (-b + (b * b - 4.0 * a * c).sqrt()) / (2.0 * a);
        [pu[0] + s * d[0], pu[1] + s * d[1]]
    }

    #[differentiable(order = 2)]
    pub fn after(x0: [f64; 2], radius0: f64) -> f64 {
        let mut x = x0;
        let mut radius = radius0;
        for _ in 0..4 {
            let (g0, g1, h00, h01, h11) = model(x);
            let p = step([g0, g1], [h00, h01, h11], radius);
            let predicted = -(g0 * p[0] + g1 * p[1])
                - 0.5 * (p[0] * (h00 * p[0] + h01 * p[1]) + p[1] * (h01 * p[0] + h11 * p[1]));
            let trial = [x[0] + p[0], x[1] + p[1]];
            let rho = (rosen(x) - rosen(trial)) / predicted;
            let pn = p[0].hypot(p[1]);
            if rho < 0.25 {
                radius = 0.25 * pn;
            } else if rho > 0.75 && pn > 0.99 * radius {
                radius = (2.0 * radius).min(2.0);
            }
            if rho > 0.1 {
                x = trial;
            }
        }
        rosen(x)
    }

    #[test]
    fn model_by_hand_and_audit() {
        for p in points(44171, 2, 10, -1.5, 1.5) {
            let x = arr(&p);
            let (g0, g1, h00, h01, h11) = model(x);
            let (_, g) = rosen_grad(x);
            assert_all_close(&[g0, g1], &g, 1e-12, "the model's gradient is rosen_grad");
            let column =
                |j: usize| common::hessian_column(|y| rosen_grad(arr(y)).1.to_vec(), &p, j);
            let (c0, c1) = (column(0), column(1));
            let hr = [[c0[0], c1[0]], [c0[1], c1[1]]];
            assert_all_close(
                &[h00, h01, h11],
                &[hr[0][0], hr[0][1], hr[1][1]],
                1e-8,
                "the model's Hessian",
            );
            // A step never leaves the region.
            for radius in [0.05, 0.3, 2.0] {
                let s = step([g0, g1], [h00, h01, h11], radius);
                assert!(s[0].hypot(s[1]) <= radius * (1.0 + 1e-12));
            }
        }
        let pts: Vec<Vec<f64>> = points(44172, 3, 10, -1.0, 1.0)
            .into_iter()
            .map(|p| vec![-1.2 + 0.3 * p[0], 1.0 + 0.3 * p[1], 0.4 + 0.2 * p[2]])
            .collect();
        let flat = |g: ([f64; 2], f64)| vec![g.0[0], g.0[1], g.1];
        let split = |x: &[f64]| ([x[0], x[1]], x[2]);
        for x in &pts {
            let (x0, r) = split(x);
            let (v, g) = after_grad(x0, r);
            assert!(v < rosen(x0), "the iterations descend");
            let mut b = ([f64::NAN; 2], f64::NAN);
            assert_eq!(after_grad_into(x0, r, (&mut b.0, &mut b.1)), v);
            same_bits(&flat(b), &flat(g), "after");
        }
        audit(
            &Items {
                what: "dogleg::after",
                primal: &|x| {
                    let (x0, r) = split(x);
                    after(x0, r)
                },
                grad: &|x| {
                    let (x0, r) = split(x);
                    let (v, g) = after_grad(x0, r);
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (x0, r) = split(x);
                    let (v, g) = after_vjp(x0, r, d);
                    (v, flat(g))
                },
                jvp: &|x, t| {
                    let (x0, r) = split(x);
                    after_jvp(x0, r, split(t))
                },
                grad_into: &|x| {
                    let (x0, r) = split(x);
                    let mut b = ([f64::NAN; 2], f64::NAN);
                    let v = after_grad_into(x0, r, (&mut b.0, &mut b.1));
                    (v, flat(b))
                },
                hvp: Some(&|x, v| {
                    let (x0, r) = split(x);
                    let (val, g, hv) = after_hvp(x0, r, split(v));
                    (val, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (x0, r) = split(x);
                    let (val, g, h) = after_hessian(x0, r);
                    (val, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// Regressions of fixes made in this session.

mod regressions {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn swap_prod(y: [f64; 2]) -> [f64; 2] {
        [y[1], y[0] * y[1]]
    }

    /// An output array read back whole by `*out` and passed by value: its `_jvp` moved the output's
    /// tangent (the caller's `&mut [f64]`) into the copy's (`forward.rs`, `ArrayInit::Copy`), which did
    /// not compile (`&mut [f64]: Clone`, `[f64; 2]: From<&mut [f64]>`).
    #[differentiable]
    pub fn deref_output(y: &[f64; 2], out: &mut [f64; 2]) -> f64 {
        out[0] = y[0] * 2.0;
        out[1] = y[1];
        let k = swap_prod(*out);
        k[0] + k[1]
    }

    #[test]
    fn deref_output_by_hand() {
        for p in points(4491, 2, 10, -2.0, 2.0) {
            let (a, b) = (p[0], p[1]);
            let y = [a, b];
            let mut o = [0.0; 2];
            // f = b + 2ab, out = (2a, b).
            let v = deref_output(&y, &mut o);
            assert_close(v, b + 2.0 * a * b, 1e-15, "value");
            let (vg, g) = deref_output_grad(&y, &mut [0.0; 2]);
            assert_eq!(vg, v);
            assert_all_close(&g, &[2.0 * b, 1.0 + 2.0 * a], 1e-15, "gradient");
            let t = [0.5, -1.0];
            let mut d = [9.0; 2];
            let mut oj = [0.0; 2];
            let (vj, dv) = deref_output_jvp(&y, &mut oj, t, &mut d);
            assert_eq!((vj, oj), (v, o));
            assert_close(dv, dot(&g, &t), 1e-15, "jvp");
            assert_all_close(&d, &[2.0 * t[0], t[1]], 1e-15, "the output's tangent");
            let c = [0.25, 2.0];
            let (_, gv) = deref_output_vjp(&y, &mut [0.0; 2], 1.0, &c);
            assert_all_close(&gv, &[g[0] + 2.0 * c[0], g[1] + c[1]], 1e-15, "vjp");
        }
    }

    /// A function without a generic copy (it iterates `&[(usize, usize)]` by a tuple pattern) that has
    /// an input slice and an output slice: its hidden function of pairs called the fallback copy's
    /// `jvp_out`, whose tangents were `impl Sized`, through `Into::into` (`companion.rs`,
    /// `fallback_signatures`): E0283.
    #[differentiable]
    pub fn scatter(init: &[f64], links: &[(usize, usize)], r: &mut [f64]) {
        for i in 0..init.len() {
            r[i] = init[i];
        }
        for &(w, l) in links {
            let d = r[l].exp();
            r[w] += d;
        }
    }

    #[test]
    fn scatter_by_hand() {
        let links = [(0, 1), (2, 0)];
        for init in points(4492, 3, 10, -1.0, 1.0) {
            let mut r = vec![0.0; 3];
            let j = scatter_jacobian(&init, &links, &mut r);
            let e1 = init[1].exp();
            let r0 = init[0] + e1;
            let e0 = r0.exp();
            assert_all_close(&r, &[r0, init[1], init[2] + e0], 1e-15, "value");
            let by_hand = [
                vec![1.0, e1, 0.0],
                vec![0.0, 1.0, 0.0],
                vec![e0, e0 * e1, 1.0],
            ];
            // The loop's writes cannot be seen to cover `r` (it may be longer than `init`), so `r`'s
            // incoming value is an input too, with zero columns here.
            for i in 0..3 {
                assert_all_close(&j[i][..3], &by_hand[i], 1e-14, "Jacobian by hand");
                assert_all_close(&j[i][3..], &[0.0; 3], 0.0, "the incoming r");
            }
        }
    }

    /// A row of a nested array assigned whole from a local that a call made and nothing indexes
    /// (`let next = g(..); hist[t + 1] = next;`): the `let` was lowered as a float, and the row's copy
    /// failed with "`__row_value` is not known here to hold a slice" and "the method `len` has no known
    /// derivative" (`lower/arrays.rs`, `analyse_array_uses` now counts `m[i] = r` of an `m` indexed
    /// twice as a use of `r` as an array).
    #[differentiable]
    pub fn rotate(h: &[f64; 2], x: f64) -> [f64; 2] {
        [
            h[0] * x.cos() - h[1] * x.sin(),
            h[0] * x.sin() + h[1] * x.cos(),
        ]
    }

    #[differentiable]
    pub fn spin(x: f64, n: usize) -> f64 {
        let mut hist = vec![[0.0; 2]; n + 1];
        hist[0][0] = 1.0;
        for t in 0..n {
            let next = rotate(&hist[t], x);
            hist[t + 1] = next;
        }
        hist[n][0] + 2.0 * hist[n][1]
    }

    #[test]
    fn rows_stored_from_calls() {
        for p in points(4493, 1, 10, -2.0, 2.0) {
            let x = p[0];
            let n = 5;
            let a = n as f64 * x;
            // n rotations by x of (1, 0): (cos nx, sin nx).
            let (v, g) = spin_grad(x, n);
            assert_eq!(v, spin(x, n));
            assert_close(v, a.cos() + 2.0 * a.sin(), 1e-13, "value");
            assert_close(
                g,
                n as f64 * (-a.sin() + 2.0 * a.cos()),
                1e-12,
                "derivative",
            );
            let (_, d) = spin_jvp(x, n, 1.0);
            assert_close(d, g, 1e-13, "jvp");
        }
    }
}
