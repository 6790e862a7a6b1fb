//! An outside test suite written against API.md alone (session 45), by a user writing small real
//! projects: each module is one project of a few functions calling one another (free functions,
//! `Self::` helpers, methods, `super::` paths), in the idioms numeric Rust is written in. Projects: a
//! 2-D point-cloud alignment (closed-form angle by `atan2`, a wrapped-angle custom gradient), a Verlet
//! molecular-dynamics run with periodic minimum-image distances (`round`, `%`) and forces into an
//! output slice, a 1-D Wasserstein distance through an insertion sort of a local copy, a logistic
//! growth fit by shooting (the trajectory's `_jacobian`, a registered gradient of a plain function),
//! causal softmax attention with `continue` for masked positions, a 1-D Ising free energy by a
//! transfer-matrix recursion over `[[f64; 2]; 2]` (at `order = 3` in the field), a piecewise-linear
//! table lookup by a hand-written binary search with extrapolation, a Kaczmarz row-action solver
//! writing its solution into an output slice, a Tikhonov deconvolution as a `Differentiable` struct
//! whose methods call each other at `order = 2`, an M/M/1 tandem queue by truncated geometric sums
//! at `order = 3`, and a Lotka-Volterra competition equilibrium by a fixed-point `while` with `break`.
//!
//! For each: the value against an independent computation (closed forms where there are some),
//! `_grad` against central differences on seeded points (and by hand where the formula is short),
//! `_grad_into` bit for bit equal to `_grad`, `_vjp` against `_jvp` (`c · (J t) = (c J) · t`) for
//! vector results and outputs, `_jacobian` against differences, and at `order = 2` the Hessian
//! against differences of `_grad` and `_hvp` against the Hessian times `v` (`common::contract::audit`).

// Index loops (also copying between slices) and long argument lists are what the projects are written
// with; scratch output buffers are `vec![..]`s as the callers of the slice versions write them; the
// insertion sort swaps through a temporary, as differentiable bodies index-assign.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::type_complexity,
    clippy::too_many_arguments,
    clippy::useless_vec,
    clippy::manual_swap
)]

mod common;

use common::contract::{audit, Items};
use common::{
    assert_all_close, assert_close, check_dual, check_jacobian, dot, points, same_bits, wave,
};

// ---------------------------------------------------------------------------------------------------
// (1) A 2-D point-cloud alignment: a rigid transform of `[f64; 2]` points, the squared residual of N
// point pairs (const generic `N`) with an angle prior through a wrapped-angle custom gradient, and the
// residual left after the closed-form alignment (centroids, the angle by `atan2` of cross and dot
// sums). By the envelope theorem the gradient of the aligned residual in `dst` is the partial one.

mod icp {
    use super::*;
    use autodiff::{custom_gradient, differentiable};
    use std::f64::consts::PI;

    /// The angle wrapped into `[-π, π)`: derivative 1 between the jumps.
    #[custom_gradient]
    pub fn wrap_angle(a: f64) -> (f64, impl Fn(f64) -> f64) {
        let w = a - 2.0 * PI * ((a + PI) / (2.0 * PI)).floor();
        (w, move |dy| dy)
    }

    #[differentiable]
    pub fn transform(theta: f64, t: [f64; 2], p: [f64; 2]) -> [f64; 2] {
        let (s, c) = (theta.sin(), theta.cos());
        [
            c.mul_add(p[0], -s * p[1]) + t[0],
            s.mul_add(p[0], c * p[1]) + t[1],
        ]
    }

    /// The squared residual plus `prior · wrap(theta - theta0)²`.
    #[differentiable(wrt(theta, t), order = 2)]
    pub fn cost<const N: usize>(
        theta: f64,
        t: [f64; 2],
        src: &[[f64; 2]; N],
        dst: &[[f64; 2]; N],
        theta0: f64,
        prior: f64,
    ) -> f64 {
        let mut total = 0.0;
        for i in 0..N {
            let q = transform(theta, t, src[i]);
            total += (q[0] - dst[i][0]).hypot(q[1] - dst[i][1]).powi(2);
        }
        let d = wrap_angle(theta - theta0);
        total + prior * d * d
    }

    /// The closed-form best angle and translation, as a tuple.
    #[differentiable]
    pub fn fit<const N: usize>(src: &[[f64; 2]; N], dst: &[[f64; 2]; N]) -> (f64, f64, f64) {
        let mut cs = [0.0; 2];
        let mut cd = [0.0; 2];
        for i in 0..N {
            for k in 0..2 {
                cs[k] += src[i][k] / N as f64;
                cd[k] += dst[i][k] / N as f64;
            }
        }
        let (mut sxy, mut sdot) = (0.0, 0.0);
        for i in 0..N {
            let (a0, a1) = (src[i][0] - cs[0], src[i][1] - cs[1]);
            let (b0, b1) = (dst[i][0] - cd[0], dst[i][1] - cd[1]);
            sxy += a0 * b1 - a1 * b0;
            sdot += a0 * b0 + a1 * b1;
        }
        let theta = sxy.atan2(sdot);
        let r = transform(theta, [0.0, 0.0], cs);
        (theta, cd[0] - r[0], cd[1] - r[1])
    }

    /// The residual left after the alignment.
    #[differentiable(order = 2)]
    pub fn aligned<const N: usize>(src: &[[f64; 2]; N], dst: &[[f64; 2]; N]) -> f64 {
        let (theta, tx, ty) = fit(src, dst);
        cost(theta, [tx, ty], src, dst, 0.0, 0.0)
    }

    const N: usize = 5;

    fn cloud(x: &[f64]) -> [[f64; 2]; N] {
        let mut c = [[0.0; 2]; N];
        for i in 0..N {
            c[i] = [x[2 * i], x[2 * i + 1]];
        }
        c
    }

    fn flat(c: &[[f64; 2]; N]) -> Vec<f64> {
        c.iter().flat_map(|p| p.iter().copied()).collect()
    }

    /// `dst` = a rotated, shifted and perturbed copy of `src`.
    fn pair(p: &[f64]) -> ([[f64; 2]; N], [[f64; 2]; N]) {
        let src = cloud(&p[..2 * N]);
        let (th, tx, ty) = (2.0 * p[2 * N], p[2 * N + 1], p[2 * N + 2]);
        let mut dst = [[0.0; 2]; N];
        for i in 0..N {
            let [x, y] = src[i];
            dst[i] = [
                th.cos() * x - th.sin() * y + tx + 0.1 * p[(i + 3) % (2 * N)],
                th.sin() * x + th.cos() * y + ty - 0.1 * p[(i + 5) % (2 * N)],
            ];
        }
        (src, dst)
    }

    #[test]
    fn closed_form_recovers_the_motion_and_is_optimal() {
        for p in points(4501, 2 * N + 3, 12, -1.0, 1.0) {
            let (src, _) = pair(&p);
            // An exact motion is recovered exactly.
            let th = 2.0 * p[2 * N];
            let mut dst = [[0.0; 2]; N];
            for i in 0..N {
                dst[i] = transform(th, [p[2 * N + 1], p[2 * N + 2]], src[i]);
            }
            let (t, tx, ty) = fit(&src, &dst);
            assert_close(t, th, 1e-12, "angle");
            assert_close(tx, p[2 * N + 1], 1e-12, "tx");
            assert_close(ty, p[2 * N + 2], 1e-12, "ty");
            assert!(aligned(&src, &dst) < 1e-20);

            // On noisy data the closed form is a stationary point of `cost`.
            let (src, dst) = pair(&p);
            let (t, tx, ty) = fit(&src, &dst);
            let (v, (gt, gtr)) = cost_grad(t, [tx, ty], &src, &dst, 0.0, 0.0);
            assert_eq!(v, aligned(&src, &dst));
            assert!(gt.abs() < 1e-12 && gtr[0].abs() < 1e-12 && gtr[1].abs() < 1e-12);

            // Envelope theorem: d aligned / d dst_i = -2 (R src_i + t - dst_i).
            let (_, (_, gd)) = aligned_grad(&src, &dst);
            for i in 0..N {
                let q = transform(t, [tx, ty], src[i]);
                for k in 0..2 {
                    assert_close(gd[i][k], -2.0 * (q[k] - dst[i][k]), 1e-10, "envelope");
                }
            }
        }
    }

    #[test]
    fn fit_duality_and_jacobian_free_check() {
        for p in points(4502, 2 * N + 3, 10, -1.0, 1.0) {
            let (src, dst) = pair(&p);
            let c = wave(3, 0.4);
            let (v, (gs, gd)) = fit_vjp(&src, &dst, (c[0], c[1], c[2]));
            assert_eq!(v, fit(&src, &dst));
            let t = wave(4 * N, 1.1);
            let (v2, jt) = fit_jvp(&src, &dst, (cloud(&t[..2 * N]), cloud(&t[2 * N..])));
            assert_eq!(v2, v);
            let mut cj = flat(&gs);
            cj.extend(flat(&gd));
            check_dual("icp::fit", &c, &[jt.0, jt.1, jt.2], &cj, &t);
            let mut x = flat(&src);
            x.extend(flat(&dst));
            check_jacobian("icp::fit", &x, &[cj.clone()], |y| {
                let (a, b, cc) = fit(&cloud(&y[..2 * N]), &cloud(&y[2 * N..]));
                vec![c[0] * a + c[1] * b + c[2] * cc]
            });
        }
    }

    #[test]
    fn cost_and_aligned_audits() {
        let base = points(4503, 2 * N + 3, 1, -1.0, 1.0).remove(0);
        let (src, dst) = pair(&base);
        let pts: Vec<Vec<f64>> = points(4504, 3, 10, -1.0, 1.0)
            .into_iter()
            .map(|p| vec![2.5 * p[0], p[1], p[2]])
            .collect();
        let (th0, prior) = (0.3, 0.7);
        let g3 = |g: (f64, [f64; 2])| vec![g.0, g.1[0], g.1[1]];
        audit(
            &Items {
                what: "icp::cost",
                primal: &|x| cost(x[0], [x[1], x[2]], &src, &dst, th0, prior),
                grad: &|x| {
                    let (v, g) = cost_grad(x[0], [x[1], x[2]], &src, &dst, th0, prior);
                    (v, g3(g))
                },
                vjp: &|x, d| {
                    let (v, g) = cost_vjp(x[0], [x[1], x[2]], &src, &dst, th0, prior, d);
                    (v, g3(g))
                },
                jvp: &|x, t| {
                    cost_jvp(
                        x[0],
                        [x[1], x[2]],
                        &src,
                        &dst,
                        th0,
                        prior,
                        (t[0], [t[1], t[2]]),
                    )
                },
                grad_into: &|x| {
                    let mut b = (f64::NAN, [f64::NAN; 2]);
                    let v = cost_grad_into(
                        x[0],
                        [x[1], x[2]],
                        &src,
                        &dst,
                        th0,
                        prior,
                        (&mut b.0, &mut b.1),
                    );
                    (v, g3(b))
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = cost_hvp(
                        x[0],
                        [x[1], x[2]],
                        &src,
                        &dst,
                        th0,
                        prior,
                        (w[0], [w[1], w[2]]),
                    );
                    (v, g3(g), g3(hv))
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = cost_hessian(x[0], [x[1], x[2]], &src, &dst, th0, prior);
                    (v, g3(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
        // The Hessian in the translation is 2 N I.
        let (_, _, h) = cost_hessian(0.4, [0.1, 0.2], &src, &dst, th0, prior);
        assert_close(h[1][1], 2.0 * N as f64, 1e-12, "H_tt");
        assert_close(h[1][2], 0.0, 1e-12, "H_tt off-diagonal");

        let split = |x: &[f64]| (cloud(&x[..2 * N]), cloud(&x[2 * N..]));
        let fl = |g: ([[f64; 2]; N], [[f64; 2]; N])| {
            let mut f = flat(&g.0);
            f.extend(flat(&g.1));
            f
        };
        let pts: Vec<Vec<f64>> = points(4505, 2 * N + 3, 10, -1.0, 1.0)
            .iter()
            .map(|p| {
                let (s, d) = pair(p);
                fl((s, d))
            })
            .collect();
        audit(
            &Items {
                what: "icp::aligned",
                primal: &|x| {
                    let (s, d) = split(x);
                    aligned(&s, &d)
                },
                grad: &|x| {
                    let (s, d) = split(x);
                    let (v, g) = aligned_grad(&s, &d);
                    (v, fl(g))
                },
                vjp: &|x, dr| {
                    let (s, d) = split(x);
                    let (v, g) = aligned_vjp(&s, &d, dr);
                    (v, fl(g))
                },
                jvp: &|x, t| {
                    let (s, d) = split(x);
                    aligned_jvp(&s, &d, split(t))
                },
                grad_into: &|x| {
                    let (s, d) = split(x);
                    let mut b = ([[f64::NAN; 2]; N], [[f64::NAN; 2]; N]);
                    let v = aligned_grad_into(&s, &d, (&mut b.0, &mut b.1));
                    (v, fl(b))
                },
                hvp: Some(&|x, w| {
                    let (s, d) = split(x);
                    let (v, g, hv) = aligned_hvp(&s, &d, split(w));
                    (v, fl(g), fl(hv))
                }),
                hessian: Some(&|x| {
                    let (s, d) = split(x);
                    let (v, g, h) = aligned_hessian(&s, &d);
                    (v, fl(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) Velocity-Verlet molecular dynamics of particles on a periodic line of length `l`: pair forces by
// minimum-image distances (`round`) written into an output slice (zeroed first), positions wrapped
// back into the box with `%`, local `Vec`s of positions, velocities and forces updated in place every
// step; the total energy after the run at `order = 2`.

mod md {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn min_image(d: f64, l: f64) -> f64 {
        d - l * (d / l).round()
    }

    /// Pair energy `eps · exp(-r²/σ²)`; forces into `f`, the potential energy returned.
    #[differentiable]
    pub fn forces(x: &[f64], l: f64, eps: f64, sigma: f64, f: &mut [f64]) -> f64 {
        for i in 0..f.len() {
            f[i] = 0.0;
        }
        let mut e = 0.0;
        for i in 0..x.len() {
            for j in (i + 1)..x.len() {
                let r = min_image(x[j] - x[i], l);
                let w = eps * (-(r / sigma).powi(2)).exp();
                e += w;
                let push = 2.0 * r / (sigma * sigma) * w;
                f[j] += push;
                f[i] -= push;
            }
        }
        e
    }

    /// Kinetic plus potential energy after `steps` velocity-Verlet steps of size `dt`.
    #[differentiable(wrt(x0, v0, eps), order = 2)]
    pub fn run(x0: &[f64], v0: &[f64], l: f64, eps: f64, sigma: f64, dt: f64, steps: usize) -> f64 {
        let n = x0.len();
        let mut x = vec![0.0; n];
        let mut v = vec![0.0; n];
        for i in 0..n {
            x[i] = x0[i];
            v[i] = v0[i];
        }
        let mut f = vec![0.0; n];
        forces(&x, l, eps, sigma, &mut f);
        for _ in 0..steps {
            for i in 0..n {
                v[i] += 0.5 * dt * f[i];
                x[i] = ((x[i] + dt * v[i]) % l + l) % l;
            }
            forces(&x, l, eps, sigma, &mut f);
            for i in 0..n {
                v[i] += 0.5 * dt * f[i];
            }
        }
        let pot = forces(&x, l, eps, sigma, &mut f);
        0.5 * v.iter().map(|vi| vi * vi).sum::<f64>() + pot
    }

    const L: f64 = 4.0;
    const SIGMA: f64 = 0.8;

    #[test]
    fn forces_are_minus_the_energy_gradient_and_dual() {
        for p in points(4511, 5, 12, 0.0, 1.0) {
            let x: Vec<f64> = p.iter().map(|v| v * L).collect();
            let eps = 1.3;
            let mut f = vec![7.0; 5];
            let e = forces(&x, L, eps, SIGMA, &mut f);
            let mut scratch = vec![0.0; 5];
            let (ev, (gx, _, _, _)) = forces_grad(&x, L, eps, SIGMA, &mut scratch);
            assert_eq!(ev, e);
            assert_eq!(scratch, f);
            for i in 0..5 {
                assert_close(f[i], -gx[i], 1e-12, "force = -dE/dx");
            }
            // Periodic: shifting everything by the box changes nothing.
            let shifted: Vec<f64> = x.iter().map(|v| v + L).collect();
            assert_close(
                forces(&shifted, L, eps, SIGMA, &mut scratch),
                e,
                1e-12,
                "period",
            );

            // `_vjp` with a cotangent on the output against `_jvp`.
            let c = wave(5, 0.2);
            let mut o = vec![0.0; 5];
            let (v, (gx, gl, ge, gs)) = forces_vjp(&x, L, eps, SIGMA, &mut o, 0.6, &c);
            assert_eq!(v, e);
            assert_eq!(o, f);
            let t = wave(8, 0.9);
            let mut o2 = vec![0.0; 5];
            let mut df = vec![0.0; 5];
            let (v2, de) = forces_jvp(
                &x,
                L,
                eps,
                SIGMA,
                &mut o2,
                (t[..5].to_vec(), t[5], t[6], t[7]),
                &mut df,
            );
            assert_eq!(v2, e);
            let mut cj = gx.clone();
            cj.extend([gl, ge, gs]);
            let mut ct = vec![0.6];
            ct.extend(&c);
            let mut jt = vec![de];
            jt.extend(&df);
            check_dual("md::forces", &ct, &jt, &cj, &t);
            let mut at = x.clone();
            at.extend([L, eps, SIGMA]);
            check_jacobian("md::forces", &at, &[cj.clone()], |y| {
                let mut o = vec![0.0; 5];
                let e = forces(&y[..5], y[5], y[6], y[7], &mut o);
                vec![0.6 * e + dot(&c, &o)]
            });
        }
    }

    #[test]
    fn energy_is_conserved_and_run_audits() {
        let n = 4;
        let pts: Vec<Vec<f64>> = points(4512, 2 * n + 1, 10, 0.0, 1.0)
            .into_iter()
            .map(|p| {
                let mut x: Vec<f64> = p[..n].iter().map(|v| (v + 0.1 * v * v) * L).collect();
                x.extend(p[n..2 * n].iter().map(|v| v - 0.5));
                x.push(0.5 + p[2 * n]);
                x
            })
            .collect();
        for x in &pts {
            let e0 = run(&x[..n], &x[n..2 * n], L, x[2 * n], SIGMA, 0.01, 0);
            let e1 = run(&x[..n], &x[n..2 * n], L, x[2 * n], SIGMA, 0.01, 300);
            assert_close(e1, e0, 1e-3, "energy drift of velocity Verlet");
        }
        let fl = |g: (Vec<f64>, Vec<f64>, f64)| {
            let mut f = g.0;
            f.extend(g.1);
            f.push(g.2);
            f
        };
        let steps = 25;
        let dt = 0.05;
        audit(
            &Items {
                what: "md::run",
                primal: &|x| run(&x[..n], &x[n..2 * n], L, x[2 * n], SIGMA, dt, steps),
                grad: &|x| {
                    let (v, g) = run_grad(&x[..n], &x[n..2 * n], L, x[2 * n], SIGMA, dt, steps);
                    (v, fl(g))
                },
                vjp: &|x, d| {
                    let (v, g) = run_vjp(&x[..n], &x[n..2 * n], L, x[2 * n], SIGMA, dt, steps, d);
                    (v, fl(g))
                },
                jvp: &|x, t| {
                    run_jvp(
                        &x[..n],
                        &x[n..2 * n],
                        L,
                        x[2 * n],
                        SIGMA,
                        dt,
                        steps,
                        (t[..n].to_vec(), t[n..2 * n].to_vec(), t[2 * n]),
                    )
                },
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; n], vec![f64::NAN; n], f64::NAN);
                    let v = run_grad_into(
                        &x[..n],
                        &x[n..2 * n],
                        L,
                        x[2 * n],
                        SIGMA,
                        dt,
                        steps,
                        (&mut b.0, &mut b.1, &mut b.2),
                    );
                    let g = run_grad(&x[..n], &x[n..2 * n], L, x[2 * n], SIGMA, dt, steps).1;
                    same_bits(&fl(b.clone()), &fl(g), "md::run");
                    (v, fl(b))
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = run_hvp(
                        &x[..n],
                        &x[n..2 * n],
                        L,
                        x[2 * n],
                        SIGMA,
                        dt,
                        steps,
                        (w[..n].to_vec(), w[n..2 * n].to_vec(), w[2 * n]),
                    );
                    (v, fl(g), fl(hv))
                }),
                hessian: Some(&|x| {
                    let (v, g, h) =
                        run_hessian(&x[..n], &x[n..2 * n], L, x[2 * n], SIGMA, dt, steps);
                    (v, fl(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) The 1-D Wasserstein distances of two equal-size samples: an insertion sort of a local copy (a
// `while` with a compound condition swapping neighbours in place), then `W1` by absolute differences
// of the sorted samples and `W2²` by squared ones at `order = 2`. The sort's `_jacobian` is the
// permutation matrix.

mod wasserstein {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sorted(x: &[f64]) -> Vec<f64> {
        let mut s = vec![0.0; x.len()];
        for i in 0..x.len() {
            s[i] = x[i];
        }
        let mut i = 1;
        while i < s.len() {
            let mut j = i;
            while j > 0 && s[j - 1] > s[j] {
                let tmp = s[j];
                s[j] = s[j - 1];
                s[j - 1] = tmp;
                j -= 1;
            }
            i += 1;
        }
        s
    }

    #[differentiable]
    pub fn w1(a: &[f64], b: &[f64]) -> f64 {
        let sa = sorted(a);
        let sb = sorted(b);
        sa.iter()
            .zip(sb.iter())
            .map(|(p, q)| (p - q).abs())
            .sum::<f64>()
            / a.len() as f64
    }

    #[differentiable(order = 2)]
    pub fn w2_squared(a: &[f64], b: &[f64]) -> f64 {
        let sa = sorted(a);
        let sb = sorted(b);
        let mut total = 0.0;
        for (k, &p) in sa.iter().enumerate() {
            total += (p - sb[k]).powi(2);
        }
        total / a.len() as f64
    }

    fn rank_sorted(x: &[f64]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..x.len()).collect();
        idx.sort_by(|&i, &j| x[i].partial_cmp(&x[j]).unwrap());
        idx
    }

    #[test]
    fn sort_is_a_permutation_with_its_jacobian() {
        for p in points(4521, 7, 12, -2.0, 2.0) {
            let s = sorted(&p);
            let idx = rank_sorted(&p);
            let expected: Vec<f64> = idx.iter().map(|&i| p[i]).collect();
            assert_eq!(s, expected);
            let j = sorted_jacobian(&p);
            for (k, row) in j.iter().enumerate() {
                for (c, &v) in row.iter().enumerate() {
                    assert_eq!(v, if c == idx[k] { 1.0 } else { 0.0 });
                }
            }
            check_jacobian("wasserstein::sorted", &p, &j, sorted);
            let c = wave(7, 0.5);
            let t = wave(7, 2.0);
            let (v, cj) = sorted_vjp(&p, c.clone());
            let (v2, jt) = sorted_jvp(&p, t.clone());
            assert_eq!(v, s);
            assert_eq!(v2, s);
            check_dual("wasserstein::sorted", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn w1_gradient_by_hand_and_differences() {
        for p in points(4522, 12, 12, -2.0, 2.0) {
            let (a, b) = (&p[..6], &p[6..]);
            let (v, (ga, gb)) = w1_grad(a, b);
            let (ia, ib) = (rank_sorted(a), rank_sorted(b));
            let mut ea = vec![0.0; 6];
            let mut eb = vec![0.0; 6];
            let mut value = 0.0;
            for k in 0..6 {
                let d = a[ia[k]] - b[ib[k]];
                value += d.abs() / 6.0;
                ea[ia[k]] = d.signum() / 6.0;
                eb[ib[k]] = -d.signum() / 6.0;
            }
            assert_close(v, value, 1e-14, "W1");
            assert_all_close(&ga, &ea, 1e-15, "dW1/da");
            assert_all_close(&gb, &eb, 1e-15, "dW1/db");
            let mut g = ga.clone();
            g.extend(&gb);
            common::assert_fd_gradient(|x| w1(&x[..6], &x[6..]), &p, &g, "w1");
            let mut ba = vec![f64::NAN; 6];
            let mut bb = vec![f64::NAN; 6];
            assert_eq!(w1_grad_into(a, b, (&mut ba, &mut bb)), v);
            same_bits(&ba, &ga, "w1 a");
            same_bits(&bb, &gb, "w1 b");
            // Shift invariance in W2² is not W1's: W1(a + s, a) = |s|.
            let shifted: Vec<f64> = a.iter().map(|x| x + 0.3).collect();
            assert_close(w1(&shifted, a), 0.3, 1e-14, "W1 of a shift");
        }
    }

    #[test]
    fn w2_audit() {
        let pts = points(4523, 10, 10, -2.0, 2.0);
        let n = 5;
        let fl = |g: (Vec<f64>, Vec<f64>)| {
            let mut f = g.0;
            f.extend(g.1);
            f
        };
        audit(
            &Items {
                what: "wasserstein::w2_squared",
                primal: &|x| w2_squared(&x[..n], &x[n..]),
                grad: &|x| {
                    let (v, g) = w2_squared_grad(&x[..n], &x[n..]);
                    (v, fl(g))
                },
                vjp: &|x, d| {
                    let (v, g) = w2_squared_vjp(&x[..n], &x[n..], d);
                    (v, fl(g))
                },
                jvp: &|x, t| w2_squared_jvp(&x[..n], &x[n..], (t[..n].to_vec(), t[n..].to_vec())),
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; n], vec![f64::NAN; n]);
                    let v = w2_squared_grad_into(&x[..n], &x[n..], (&mut b.0, &mut b.1));
                    (v, fl(b))
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) =
                        w2_squared_hvp(&x[..n], &x[n..], (w[..n].to_vec(), w[n..].to_vec()));
                    (v, fl(g), fl(hv))
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = w2_squared_hessian(&x[..n], &x[n..]);
                    (v, fl(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
        // The Hessian by hand: 2/n on the diagonal, -2/n between matched ranks.
        let x = &pts[0];
        let (_, _, h) = w2_squared_hessian(&x[..n], &x[n..]);
        let (ia, ib) = (rank_sorted(&x[..n]), rank_sorted(&x[n..]));
        for k in 0..n {
            assert_close(h[ia[k]][ia[k]], 2.0 / n as f64, 1e-14, "H_aa");
            assert_close(h[ia[k]][n + ib[k]], -2.0 / n as f64, 1e-14, "H_ab");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) A logistic growth model fitted by shooting: the midpoint-rule trajectory as a `Vec` (its
// `_jacobian` in `r`, `k`, `y0`, `dt`), the misfit against observations in `wrt(r, k)` at `order = 2`
// with a prior on `ln r` through a registered gradient of a plain function of a "vendor" module.

mod logistic_growth {
    use super::*;
    use autodiff::{differentiable, gradient_of};

    /// A function of a library that knows nothing of autodiff.
    pub mod vendor {
        pub fn softplus(x: f64) -> f64 {
            if x > 30.0 {
                x
            } else {
                x.exp().ln_1p()
            }
        }
    }

    #[gradient_of(vendor::softplus)]
    pub fn softplus_rule(x: f64, dy: f64) -> f64 {
        dy / (1.0 + (-x).exp())
    }

    #[differentiable]
    pub fn trajectory(r: f64, k: f64, y0: f64, dt: f64, steps: usize) -> Vec<f64> {
        let mut ys = vec![0.0; steps + 1];
        ys[0] = y0;
        for i in 0..steps {
            let y = ys[i];
            let k1 = r * y * (1.0 - y / k);
            let mid = y + 0.5 * dt * k1;
            ys[i + 1] = y + dt * r * mid * (1.0 - mid / k);
        }
        ys
    }

    #[differentiable(wrt(r, k), order = 2)]
    pub fn misfit(r: f64, k: f64, y0: f64, obs: &[f64], dt: f64, weight: f64) -> f64 {
        let ys = trajectory(r, k, y0, dt, obs.len() - 1);
        let mut sse = 0.0;
        for (i, &o) in obs.iter().enumerate() {
            sse += (ys[i] - o).powi(2);
        }
        sse + weight * vendor::softplus(r.ln() - 1.0)
    }

    fn exact(r: f64, k: f64, y0: f64, t: f64) -> f64 {
        k / (1.0 + (k - y0) / y0 * (-r * t).exp())
    }

    #[test]
    fn trajectory_matches_the_closed_form_and_its_jacobian() {
        for p in points(4531, 4, 10, 0.0, 1.0) {
            let (r, k, y0) = (0.5 + p[0], 2.0 + p[1], 0.2 + 0.5 * p[2]);
            let ys = trajectory(r, k, y0, 0.001, 4000);
            assert_close(ys[4000], exact(r, k, y0, 4.0), 1e-6, "logistic closed form");
            let dt = 0.2 + 0.1 * p[3];
            let j = trajectory_jacobian(r, k, y0, dt, 12);
            assert_eq!(j.len(), 13);
            assert_eq!(j[0], vec![0.0, 0.0, 1.0, 0.0]);
            check_jacobian("logistic::trajectory", &[r, k, y0, dt], &j, |x| {
                trajectory(x[0], x[1], x[2], x[3], 12)
            });
            let c = wave(13, 0.1);
            let t = wave(4, 0.8);
            let (v, (gr, gk, gy, gdt)) = trajectory_vjp(r, k, y0, dt, 12, c.clone());
            let (v2, jt) = trajectory_jvp(r, k, y0, dt, 12, (t[0], t[1], t[2], t[3]));
            assert_eq!(v, v2);
            check_dual("logistic::trajectory", &c, &jt, &[gr, gk, gy, gdt], &t);
            // dy_T/dk by the closed form's sensitivity, for small steps.
            let jf = trajectory_jacobian(r, k, y0, 0.001, 4000);
            let h = 1e-6;
            let dk = (exact(r, k + h, y0, 4.0) - exact(r, k - h, y0, 4.0)) / (2.0 * h);
            assert_close(jf[4000][1], dk, 1e-5, "dy/dk against the closed form");
        }
    }

    #[test]
    fn misfit_audit_and_the_registered_prior() {
        let (y0, dt) = (0.3, 0.25);
        let obs: Vec<f64> = (0..10)
            .map(|i| exact(1.1, 2.5, y0, i as f64 * dt) * (1.0 + 0.05 * (i as f64).sin()))
            .collect();
        let weight = 0.4;
        let pts: Vec<Vec<f64>> = points(4532, 2, 10, 0.0, 1.0)
            .into_iter()
            .map(|p| vec![0.6 + p[0], 1.5 + 2.0 * p[1]])
            .collect();
        audit(
            &Items {
                what: "logistic::misfit",
                primal: &|x| misfit(x[0], x[1], y0, &obs, dt, weight),
                grad: &|x| {
                    let (v, g) = misfit_grad(x[0], x[1], y0, &obs, dt, weight);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = misfit_vjp(x[0], x[1], y0, &obs, dt, weight, d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| misfit_jvp(x[0], x[1], y0, &obs, dt, weight, (t[0], t[1])),
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN);
                    let v =
                        misfit_grad_into(x[0], x[1], y0, &obs, dt, weight, (&mut b.0, &mut b.1));
                    let g = misfit_grad(x[0], x[1], y0, &obs, dt, weight).1;
                    assert_eq!(
                        (b.0.to_bits(), b.1.to_bits()),
                        (g.0.to_bits(), g.1.to_bits())
                    );
                    (v, vec![b.0, b.1])
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = misfit_hvp(x[0], x[1], y0, &obs, dt, weight, (w[0], w[1]));
                    (v, vec![g.0, g.1], vec![hv.0, hv.1])
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = misfit_hessian(x[0], x[1], y0, &obs, dt, weight);
                    (v, vec![g.0, g.1], h)
                }),
                analytic: None,
            },
            &pts,
        );
        // The prior's part alone: with no observations but y0 itself, only the softplus term moves with r
        // (the trajectory of one point is y0), and its derivative is sigmoid(ln r - 1) / r.
        for &r in &[0.3, 1.0, 2.7, 9.0] {
            let (v, (gr, gk)) = misfit_grad(r, 2.0, y0, &[y0], dt, 1.0);
            assert_close(v, vendor::softplus(r.ln() - 1.0), 1e-15, "prior value");
            let s = 1.0 / (1.0 + (1.0 - r.ln()).exp());
            assert_close(gr, s / r, 1e-14, "prior gradient");
            assert_eq!(gk, 0.0);
            let (_, _, h) = misfit_hessian(r, 2.0, y0, &[y0], dt, 1.0);
            let expected = (s * (1.0 - s) - s) / (r * r);
            assert_close(h[0][0], expected, 1e-12, "prior second derivative");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) One causal softmax attention head: scores `q_i · k_j / √d` for `j <= i` (`continue` past the
// mask), the running maximum subtracted under `stop_gradient` (the softmax is unchanged by it), the
// attended values into an output slice, and the summed attention entropy returned. A loss over the
// head's output at `order = 2` in the queries.

mod attention {
    use super::*;
    use autodiff::{differentiable, stop_gradient};

    #[differentiable]
    pub fn score(q: &[f64], k: &[f64]) -> f64 {
        q.iter().zip(k.iter()).map(|(a, b)| a * b).sum::<f64>() / (q.len() as f64).sqrt()
    }

    #[differentiable]
    pub fn head(q: &[Vec<f64>], k: &[Vec<f64>], v: &[f64], out: &mut [f64]) -> f64 {
        let t = out.len();
        let mut entropy = 0.0;
        for i in 0..t {
            let mut m = f64::NEG_INFINITY;
            for j in 0..t {
                if j > i {
                    continue;
                }
                m = m.max(score(&q[i], &k[j]));
            }
            let m = stop_gradient(m);
            let mut z = 0.0;
            let mut acc = 0.0;
            let mut sl = 0.0;
            for j in 0..t {
                if j > i {
                    continue;
                }
                let s = score(&q[i], &k[j]) - m;
                let w = s.exp();
                z += w;
                acc += w * v[j];
                sl += w * s;
            }
            out[i] = acc / z;
            entropy += z.ln() - sl / z;
        }
        entropy
    }

    #[differentiable(wrt(q), order = 2)]
    pub fn loss(q: &[Vec<f64>], k: &[Vec<f64>], v: &[f64], target: &[f64]) -> f64 {
        let mut out = vec![0.0; target.len()];
        let h = head(q, k, v, &mut out);
        let mut e = 0.1 * h;
        for i in 0..target.len() {
            e += (out[i] - target[i]).powi(2);
        }
        e
    }

    const T: usize = 4;
    const D: usize = 3;

    fn rows(x: &[f64]) -> Vec<Vec<f64>> {
        x.chunks(D).map(|r| r.to_vec()).collect()
    }

    fn flat(r: &[Vec<f64>]) -> Vec<f64> {
        r.iter().flatten().copied().collect()
    }

    fn plain(q: &[Vec<f64>], k: &[Vec<f64>], v: &[f64]) -> (Vec<f64>, f64) {
        let mut out = vec![0.0; T];
        let mut ent = 0.0;
        for i in 0..T {
            let s: Vec<f64> = (0..=i)
                .map(|j| dot(&q[i], &k[j]) / (D as f64).sqrt())
                .collect();
            let z: f64 = s.iter().map(|x| x.exp()).sum();
            let p: Vec<f64> = s.iter().map(|x| x.exp() / z).collect();
            out[i] = (0..=i).map(|j| p[j] * v[j]).sum();
            ent -= p.iter().map(|pj| pj * pj.ln()).sum::<f64>();
        }
        (out, ent)
    }

    #[test]
    fn head_value_duality_and_jacobian() {
        for p in points(4541, 2 * T * D + T, 10, -1.5, 1.5) {
            let q = rows(&p[..T * D]);
            let k = rows(&p[T * D..2 * T * D]);
            let v = p[2 * T * D..].to_vec();
            let mut out = vec![0.0; T];
            let e = head(&q, &k, &v, &mut out);
            let (po, pe) = plain(&q, &k, &v);
            assert_all_close(&out, &po, 1e-13, "attention output");
            assert_close(e, pe, 1e-13, "attention entropy");
            // The first position attends only to itself.
            assert_close(out[0], v[0], 1e-15, "causal mask at 0");

            let c = wave(T, 0.7);
            let mut o = vec![0.0; T];
            let (ev, (gq, gk, gv)) = head_vjp(&q, &k, &v, &mut o, -0.4, &c);
            assert_eq!(ev, e);
            assert_eq!(o, out);
            // The last key does not reach earlier outputs: only through position T-1.
            let t = wave(2 * T * D + T, 1.3);
            let mut o2 = vec![0.0; T];
            let mut dout = vec![0.0; T];
            let (_, de) = head_jvp(
                &q,
                &k,
                &v,
                &mut o2,
                (
                    rows(&t[..T * D]),
                    rows(&t[T * D..2 * T * D]),
                    t[2 * T * D..].to_vec(),
                ),
                &mut dout,
            );
            let mut cj = flat(&gq);
            cj.extend(flat(&gk));
            cj.extend(&gv);
            let mut ct = vec![-0.4];
            ct.extend(&c);
            let mut jt = vec![de];
            jt.extend(&dout);
            check_dual("attention::head", &ct, &jt, &cj, &t);
            check_jacobian("attention::head", &p, &[cj.clone()], |y| {
                let mut o = vec![0.0; T];
                let e = head(
                    &rows(&y[..T * D]),
                    &rows(&y[T * D..2 * T * D]),
                    &y[2 * T * D..],
                    &mut o,
                );
                vec![-0.4 * e + dot(&c, &o)]
            });
            // The mask: output i does not depend on values after i.
            for i in 0..T {
                let mut e_i = vec![0.0; T];
                e_i[i] = 1.0;
                let (_, (_, _, gv)) = head_vjp(&q, &k, &v, &mut o, 0.0, &e_i);
                for jj in (i + 1)..T {
                    assert_eq!(gv[jj], 0.0, "masked entry");
                }
                assert!(gv[i] > 0.0);
            }
        }
    }

    #[test]
    fn loss_audit() {
        let base = points(4542, T * D + 2 * T, 1, -1.0, 1.0).remove(0);
        let k = rows(&base[..T * D]);
        let v = base[T * D..T * D + T].to_vec();
        let target = base[T * D + T..].to_vec();
        let pts = points(4543, T * D, 10, -1.5, 1.5);
        audit(
            &Items {
                what: "attention::loss",
                primal: &|x| loss(&rows(x), &k, &v, &target),
                grad: &|x| {
                    let (val, g) = loss_grad(&rows(x), &k, &v, &target);
                    (val, flat(&g))
                },
                vjp: &|x, d| {
                    let (val, g) = loss_vjp(&rows(x), &k, &v, &target, d);
                    (val, flat(&g))
                },
                jvp: &|x, t| loss_jvp(&rows(x), &k, &v, &target, rows(t)),
                grad_into: &|x| {
                    let mut b = vec![vec![f64::NAN; D]; T];
                    let val = loss_grad_into(&rows(x), &k, &v, &target, &mut b);
                    same_bits(
                        &flat(&b),
                        &flat(&loss_grad(&rows(x), &k, &v, &target).1),
                        "loss",
                    );
                    (val, flat(&b))
                },
                hvp: Some(&|x, w| {
                    let (val, g, hv) = loss_hvp(&rows(x), &k, &v, &target, rows(w));
                    (val, flat(&g), flat(&hv))
                }),
                hessian: Some(&|x| {
                    let (val, g, h) = loss_hessian(&rows(x), &k, &v, &target);
                    (val, flat(&g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) The free energy per spin of a periodic 1-D Ising chain by a transfer-matrix recursion over
// `[[f64; 2]; 2]`: the matrix built from the couplings, its `n`-th power by repeated products with a
// rescaling by the largest entry (`max`), `ln Z = ln tr(T^n)` and `f = -ln Z / (β n)`. Against the
// eigenvalues' closed form; at `order = 2` in `(β, J, h)`, and at `order = 3` in `h` alone
// (`_derivatives`: the magnetisation and susceptibility).

mod ising {
    use super::*;
    use autodiff::differentiable;

    /// The transfer matrix, row-major (`[[f64; 2]; 2]` is not a return type the contract lists).
    #[differentiable]
    pub fn transfer(beta: f64, j: f64, h: f64) -> [f64; 4] {
        let s = [1.0, -1.0];
        let mut t = [0.0; 4];
        for a in 0..2 {
            for b in 0..2 {
                t[2 * a + b] = (beta * (j * s[a] * s[b] + 0.5 * h * (s[a] + s[b]))).exp();
            }
        }
        t
    }

    #[differentiable(order = 2)]
    pub fn free_energy(beta: f64, j: f64, h: f64, n: usize) -> f64 {
        let tf = transfer(beta, j, h);
        let t = [[tf[0], tf[1]], [tf[2], tf[3]]];
        let mut m = [[1.0, 0.0], [0.0, 1.0]];
        let mut log_scale = 0.0;
        for _ in 0..n {
            let mut next = [[0.0; 2]; 2];
            for i in 0..2 {
                for k in 0..2 {
                    for l in 0..2 {
                        next[i][l] += m[i][k] * t[k][l];
                    }
                }
            }
            let norm = next[0][0].max(next[1][1]).max(next[0][1]);
            for a in 0..2 {
                for b in 0..2 {
                    m[a][b] = next[a][b] / norm;
                }
            }
            log_scale += norm.ln();
        }
        -(log_scale + (m[0][0] + m[1][1]).ln()) / (beta * n as f64)
    }

    #[differentiable(wrt(h), order = 3)]
    pub fn in_field(beta: f64, j: f64, h: f64, n: usize) -> f64 {
        free_energy(beta, j, h, n)
    }

    fn closed_form(beta: f64, j: f64, h: f64, n: usize) -> f64 {
        let a = (beta * j).exp() * (beta * h).cosh();
        let r =
            ((beta * j).exp().powi(2) * (beta * h).sinh().powi(2) + (-2.0 * beta * j).exp()).sqrt();
        let (lp, lm) = (a + r, a - r);
        let ln_z = n as f64 * lp.ln() + (1.0 + (lm / lp).powi(n as i32)).ln();
        -ln_z / (beta * n as f64)
    }

    #[test]
    fn free_energy_against_eigenvalues_and_audit() {
        let pts: Vec<Vec<f64>> = points(4551, 3, 10, -1.0, 1.0)
            .iter()
            .map(|p| vec![0.4 + 0.4 * (p[0] + 1.0), 1.2 * p[1], 1.5 * p[2]])
            .collect();
        for x in &pts {
            for n in [1, 2, 7, 30] {
                assert_close(
                    free_energy(x[0], x[1], x[2], n),
                    closed_form(x[0], x[1], x[2], n),
                    1e-12,
                    "Ising free energy",
                );
            }
        }
        let n = 9;
        let g3 = |g: (f64, f64, f64)| vec![g.0, g.1, g.2];
        audit(
            &Items {
                what: "ising::free_energy",
                primal: &|x| free_energy(x[0], x[1], x[2], n),
                grad: &|x| {
                    let (v, g) = free_energy_grad(x[0], x[1], x[2], n);
                    (v, g3(g))
                },
                vjp: &|x, d| {
                    let (v, g) = free_energy_vjp(x[0], x[1], x[2], n, d);
                    (v, g3(g))
                },
                jvp: &|x, t| free_energy_jvp(x[0], x[1], x[2], n, (t[0], t[1], t[2])),
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN, f64::NAN);
                    let v =
                        free_energy_grad_into(x[0], x[1], x[2], n, (&mut b.0, &mut b.1, &mut b.2));
                    same_bits(
                        &g3(b),
                        &g3(free_energy_grad(x[0], x[1], x[2], n).1),
                        "ising",
                    );
                    (v, g3(b))
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = free_energy_hvp(x[0], x[1], x[2], n, (w[0], w[1], w[2]));
                    (v, g3(g), g3(hv))
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = free_energy_hessian(x[0], x[1], x[2], n);
                    (v, g3(g), h)
                }),
                analytic: Some(&|x| {
                    let step = 1e-4;
                    (0..3)
                        .map(|i| {
                            let at = |s: f64| {
                                let mut y = x.to_vec();
                                y[i] += s * step;
                                closed_form(y[0], y[1], y[2], n)
                            };
                            // Richardson: good to ~1e-14 relative for these smooth closed forms.
                            (8.0 * (at(1.0) - at(-1.0)) - (at(2.0) - at(-2.0))) / (12.0 * step)
                        })
                        .collect()
                }),
            },
            &pts[..1],
        );
    }

    #[test]
    fn magnetisation_and_susceptibility_at_order_three() {
        for p in points(4552, 3, 10, -1.0, 1.0) {
            let (beta, j, h) = (0.5 + 0.3 * (p[0] + 1.0), 0.8 * p[1], 1.2 * p[2]);
            let n = 12;
            let d = in_field_derivatives(beta, j, h, n);
            assert_eq!(d[0], in_field(beta, j, h, n));
            assert_eq!(d[0], free_energy(beta, j, h, n));
            let (_, (_, _, gh)) = free_energy_grad(beta, j, h, n);
            assert_close(d[1], gh, 1e-12, "f' against free_energy_grad");
            let step = 1e-4;
            let g = |hh: f64| in_field_grad(beta, j, hh, n).1;
            let fd2 = (8.0 * (g(h + step) - g(h - step)) - (g(h + 2.0 * step) - g(h - 2.0 * step)))
                / (12.0 * step);
            assert_close(d[2], fd2, 1e-7, "f'' against differences of _grad");
            let s = |hh: f64| in_field_derivatives(beta, j, hh, n)[2];
            let fd3 = (8.0 * (s(h + step) - s(h - step)) - (s(h + 2.0 * step) - s(h - 2.0 * step)))
                / (12.0 * step);
            assert_close(d[3], fd3, 1e-6, "f''' against differences of f''");
            // The thermodynamic limit's magnetisation m = -∂f/∂h for a long chain.
            let long = in_field_derivatives(beta, j, h, 400);
            let sh = (beta * h).sinh();
            let m = sh / (sh * sh + (-4.0 * beta * j).exp()).sqrt();
            assert_close(-long[1], m, 1e-9, "magnetisation of the infinite chain");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) A piecewise-linear lookup table: a hand-written binary search for the bracketing knots (a
// `while` over integer bounds), linear extrapolation below the first knot and a flat clamp above the
// last (early `return`s); a calibration of the table's values against samples with a second-
// difference smoothness penalty over `windows(3)`, at `order = 2` in the values.

mod table {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn lookup(knots: &[f64], values: &[f64], x: f64) -> f64 {
        let n = knots.len();
        if x <= knots[0] {
            let slope = (values[1] - values[0]) / (knots[1] - knots[0]);
            return values[0] + (x - knots[0]) * slope;
        }
        if x >= knots[n - 1] {
            return values[n - 1];
        }
        let (mut lo, mut hi) = (0, n - 1);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if knots[mid] <= x {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let w = (x - knots[lo]) / (knots[hi] - knots[lo]);
        values[lo] * (1.0 - w) + values[hi] * w
    }

    #[differentiable(wrt(values), order = 2)]
    pub fn calibrate(values: &[f64], knots: &[f64], xs: &[f64], ys: &[f64], smooth: f64) -> f64 {
        let mut sse = 0.0;
        for (&x, &y) in xs.iter().zip(ys.iter()) {
            let r = lookup(knots, values, x) - y;
            sse += r * r;
        }
        let rough = values
            .windows(3)
            .map(|w| (w[0] - 2.0 * w[1] + w[2]).powi(2))
            .sum::<f64>();
        sse + smooth * rough
    }

    fn knots() -> Vec<f64> {
        vec![-1.0, -0.4, 0.1, 0.3, 0.9, 1.6]
    }

    fn reference(k: &[f64], v: &[f64], x: f64) -> f64 {
        let n = k.len();
        if x <= k[0] {
            return v[0] + (x - k[0]) * (v[1] - v[0]) / (k[1] - k[0]);
        }
        if x >= k[n - 1] {
            return v[n - 1];
        }
        let i = k.iter().rposition(|&kk| kk <= x).unwrap();
        v[i] + (x - k[i]) / (k[i + 1] - k[i]) * (v[i + 1] - v[i])
    }

    #[test]
    fn lookup_value_and_gradient_in_every_region() {
        let k = knots();
        for p in points(4561, 7, 20, -1.0, 1.0) {
            let v = p[..6].to_vec();
            let x = 1.8 * p[6] + 0.2;
            assert_close(lookup(&k, &v, x), reference(&k, &v, x), 1e-15, "lookup");
            let (val, (gk, gv, gx)) = lookup_grad(&k, &v, x);
            assert_eq!(val, lookup(&k, &v, x));
            let mut flat = gk.clone();
            flat.extend(&gv);
            flat.push(gx);
            let mut at = k.clone();
            at.extend(&v);
            at.push(x);
            common::assert_fd_gradient(|y| lookup(&y[..6], &y[6..12], y[12]), &at, &flat, "lookup");
            // The value gradient is the hat weights: they sum to one.
            assert_close(gv.iter().sum::<f64>(), 1.0, 1e-14, "partition of unity");
            if x >= k[5] {
                assert_eq!(gx, 0.0, "flat clamp above the table");
            }
            let mut b = (vec![f64::NAN; 6], vec![f64::NAN; 6], f64::NAN);
            assert_eq!(
                lookup_grad_into(&k, &v, x, (&mut b.0, &mut b.1, &mut b.2)),
                val
            );
            let mut fb = b.0.clone();
            fb.extend(&b.1);
            fb.push(b.2);
            same_bits(&fb, &flat, "lookup");
        }
    }

    #[test]
    fn calibrate_audit_is_quadratic() {
        let k = knots();
        let xs: Vec<f64> = (0..15).map(|i| -1.3 + 0.2 * i as f64).collect();
        let ys: Vec<f64> = xs.iter().map(|x| (2.0 * x).sin()).collect();
        let smooth = 0.3;
        let pts = points(4562, 6, 10, -1.0, 1.0);
        audit(
            &Items {
                what: "table::calibrate",
                primal: &|v| calibrate(v, &k, &xs, &ys, smooth),
                grad: &|v| calibrate_grad(v, &k, &xs, &ys, smooth),
                vjp: &|v, d| calibrate_vjp(v, &k, &xs, &ys, smooth, d),
                jvp: &|v, t| calibrate_jvp(v, &k, &xs, &ys, smooth, t.to_vec()),
                grad_into: &|v| {
                    let mut b = vec![f64::NAN; 6];
                    let val = calibrate_grad_into(v, &k, &xs, &ys, smooth, &mut b);
                    same_bits(&b, &calibrate_grad(v, &k, &xs, &ys, smooth).1, "calibrate");
                    (val, b)
                },
                hvp: Some(&|v, w| calibrate_hvp(v, &k, &xs, &ys, smooth, w.to_vec())),
                hessian: Some(&|v| calibrate_hessian(v, &k, &xs, &ys, smooth)),
                analytic: None,
            },
            &pts,
        );
        // Quadratic in the values: the Hessian is the same everywhere, and one Newton step solves it.
        let (_, g0, h0) = calibrate_hessian(&pts[0], &k, &xs, &ys, smooth);
        let (_, _, h1) = calibrate_hessian(&pts[1], &k, &xs, &ys, smooth);
        for i in 0..6 {
            assert_all_close(&h0[i], &h1[i], 1e-12, "constant Hessian");
        }
        // Solve H d = -g by Gaussian elimination (H is symmetric positive definite).
        let mut a = h0.clone();
        let mut rhs: Vec<f64> = g0.iter().map(|g| -g).collect();
        for c in 0..6 {
            for r in (c + 1)..6 {
                let f = a[r][c] / a[c][c];
                for cc in c..6 {
                    a[r][cc] -= f * a[c][cc];
                }
                rhs[r] -= f * rhs[c];
            }
        }
        let mut d = vec![0.0; 6];
        for r in (0..6).rev() {
            let s: f64 = ((r + 1)..6).map(|cc| a[r][cc] * d[cc]).sum();
            d[r] = (rhs[r] - s) / a[r][r];
        }
        let opt: Vec<f64> = pts[0].iter().zip(&d).map(|(v, dv)| v + dv).collect();
        let (_, g) = calibrate_grad(&opt, &k, &xs, &ys, smooth);
        assert!(
            g.iter().all(|gi| gi.abs() < 1e-10),
            "Newton step lands on the minimum: {g:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) A Kaczmarz row-action solver of `A x = b`: the iterate written into an output slice (zeroed
// first) and updated in place row by row over fixed sweeps, each row's squared norm by a helper; a
// loss of the solution against a target at `order = 2` in `(A, b)`. After many sweeps the solution
// and its sensitivities are those of `A⁻¹ b`.

mod kaczmarz {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn norm2(row: &[f64]) -> f64 {
        row.iter().fold(0.0, |acc, v| v.mul_add(*v, acc))
    }

    #[differentiable]
    pub fn solve(a: &[Vec<f64>], b: &[f64], sweeps: usize, relax: f64, x: &mut [f64]) {
        for j in 0..x.len() {
            x[j] = 0.0;
        }
        for _ in 0..sweeps {
            for (i, row) in a.iter().enumerate() {
                let mut r = b[i];
                for j in 0..x.len() {
                    r -= row[j] * x[j];
                }
                let step = relax * r / norm2(row);
                for j in 0..x.len() {
                    x[j] += step * row[j];
                }
            }
        }
    }

    #[differentiable(wrt(a, b), order = 2)]
    pub fn loss(a: &[Vec<f64>], b: &[f64], target: &[f64], sweeps: usize) -> f64 {
        let mut x = vec![0.0; target.len()];
        solve(a, b, sweeps, 1.0, &mut x);
        x.iter()
            .zip(target.iter())
            .map(|(xi, ti)| (xi - ti).powi(2))
            .sum::<f64>()
    }

    const M: usize = 3;

    fn rows(x: &[f64]) -> Vec<Vec<f64>> {
        x.chunks(M).map(|r| r.to_vec()).collect()
    }

    fn flat(r: &[Vec<f64>]) -> Vec<f64> {
        r.iter().flatten().copied().collect()
    }

    /// A diagonally dominant matrix from a point.
    fn matrix(p: &[f64]) -> Vec<Vec<f64>> {
        let mut a = rows(&p[..M * M]);
        for i in 0..M {
            for j in 0..M {
                a[i][j] *= 0.3;
            }
            a[i][i] += 2.0;
        }
        a
    }

    fn cramer(a: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
        let det = |m: &[Vec<f64>]| {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        };
        let d = det(a);
        (0..M)
            .map(|c| {
                let mut m = a.to_vec();
                for r in 0..M {
                    m[r][c] = b[r];
                }
                det(&m) / d
            })
            .collect()
    }

    #[test]
    fn converges_to_the_solution_with_its_jacobian() {
        for p in points(4571, M * M + M, 10, -1.0, 1.0) {
            let a = matrix(&p);
            let b = p[M * M..].to_vec();
            let mut x = vec![5.0; M];
            solve(&a, &b, 60, 1.0, &mut x);
            assert_all_close(&x, &cramer(&a, &b), 1e-12, "Kaczmarz against Cramer");
            // The Jacobian of the converged solution in b is A⁻¹.
            let mut at = flat(&a);
            at.extend(&b);
            let j = solve_jacobian(&a, &b, 60, 1.0, &mut x);
            assert_eq!(j.len(), M);
            for i in 0..M {
                let mut e = vec![0.0; M];
                e[i] = 1.0;
                let col = cramer(&a, &e);
                for r in 0..M {
                    assert_close(j[r][M * M + i], col[r], 1e-10, "dx/db = A^-1");
                }
            }
            // Columns: A row-major, b, then the relaxation factor.
            let few = solve_jacobian(&a, &b, 3, 0.9, &mut x);
            at.push(0.9);
            check_jacobian("kaczmarz::solve", &at, &few, |y| {
                let mut o = vec![0.0; M];
                solve(
                    &rows(&y[..M * M]),
                    &y[M * M..M * M + M],
                    3,
                    y[M * M + M],
                    &mut o,
                );
                o
            });
            let c = wave(M, 0.3);
            let t = wave(M * M + M + 1, 1.7);
            let mut o = vec![0.0; M];
            let (ga, gb, gr) = solve_vjp(&a, &b, 3, 0.8, &mut o, &c);
            let mut o2 = vec![0.0; M];
            let mut dx = vec![0.0; M];
            solve_jvp(
                &a,
                &b,
                3,
                0.8,
                &mut o2,
                (
                    rows(&t[..M * M]),
                    t[M * M..M * M + M].to_vec(),
                    t[M * M + M],
                ),
                &mut dx,
            );
            assert_eq!(o, o2);
            let mut cj = flat(&ga);
            cj.extend(&gb);
            cj.push(gr);
            check_dual("kaczmarz::solve", &c, &dx, &cj, &t);
        }
    }

    #[test]
    fn loss_audit() {
        let target = vec![0.3, -0.2, 0.5];
        let sweeps = 4;
        let fl = |g: (Vec<Vec<f64>>, Vec<f64>)| {
            let mut f = flat(&g.0);
            f.extend(g.1);
            f
        };
        let pts: Vec<Vec<f64>> = points(4572, M * M + M, 10, -1.0, 1.0)
            .iter()
            .map(|p| {
                let mut f = flat(&matrix(p));
                f.extend(&p[M * M..]);
                f
            })
            .collect();
        let sp = |x: &[f64]| (rows(&x[..M * M]), x[M * M..].to_vec());
        audit(
            &Items {
                what: "kaczmarz::loss",
                primal: &|x| {
                    let (a, b) = sp(x);
                    loss(&a, &b, &target, sweeps)
                },
                grad: &|x| {
                    let (a, b) = sp(x);
                    let (v, g) = loss_grad(&a, &b, &target, sweeps);
                    (v, fl(g))
                },
                vjp: &|x, d| {
                    let (a, b) = sp(x);
                    let (v, g) = loss_vjp(&a, &b, &target, sweeps, d);
                    (v, fl(g))
                },
                jvp: &|x, t| {
                    let (a, b) = sp(x);
                    loss_jvp(&a, &b, &target, sweeps, sp(t))
                },
                grad_into: &|x| {
                    let (a, b) = sp(x);
                    let mut buf = (vec![vec![f64::NAN; M]; M], vec![f64::NAN; M]);
                    let v = loss_grad_into(&a, &b, &target, sweeps, (&mut buf.0, &mut buf.1));
                    let g = loss_grad(&a, &b, &target, sweeps).1;
                    same_bits(&fl(buf.clone()), &fl(g), "kaczmarz::loss");
                    (v, fl(buf))
                },
                hvp: Some(&|x, w| {
                    let (a, b) = sp(x);
                    let (v, g, hv) = loss_hvp(&a, &b, &target, sweeps, sp(w));
                    (v, fl(g), fl(hv))
                }),
                hessian: Some(&|x| {
                    let (a, b) = sp(x);
                    let (v, g, h) = loss_hessian(&a, &b, &target, sweeps);
                    (v, fl(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) Tikhonov deconvolution as a `Differentiable` struct: the blur kernel and the regularisation
// weight are its fields (a `#[no_grad]` step count beside them); methods call each other (`self.blur`,
// `Self::`-free helpers): the blurred sample at one index, the Tikhonov objective, its gradient in the
// signal by hand (the adjoint convolution), gradient descent into a local `Vec` updated in place, and
// the restoration error against the truth, `wrt(self)` at `order = 2`.

mod deconv {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Deconv {
        pub kernel: Vec<f64>,
        pub lambda: f64,
        pub rate: f64,
        #[no_grad]
        pub iters: usize,
    }

    impl Deconv {
        /// `(k * x)[i]` with zero padding, the kernel centred.
        #[differentiable(wrt(self, x))]
        pub fn blur(&self, x: &[f64], i: usize) -> f64 {
            let half = self.kernel.len() / 2;
            let mut s = 0.0;
            for (m, &k) in self.kernel.iter().enumerate() {
                let idx = i as i64 + m as i64 - half as i64;
                if idx < 0 || idx >= x.len() as i64 {
                    continue;
                }
                s += k * x[idx as usize];
            }
            s
        }

        #[differentiable(wrt(self, x))]
        pub fn objective(&self, x: &[f64], y: &[f64]) -> f64 {
            let mut e = 0.0;
            for i in 0..y.len() {
                let r = self.blur(x, i) - y[i];
                e += r * r;
            }
            e + self.lambda * x.iter().map(|v| v * v).sum::<f64>()
        }

        /// The restoration by `iters` gradient steps from `y`, the gradient written by hand.
        #[differentiable(wrt(self, y))]
        pub fn restore(&self, y: &[f64]) -> Vec<f64> {
            let n = y.len();
            let half = self.kernel.len() / 2;
            let mut x = vec![0.0; n];
            for i in 0..n {
                x[i] = y[i];
            }
            let mut resid = vec![0.0; n];
            for _ in 0..self.iters {
                for i in 0..n {
                    resid[i] = self.blur(&x, i) - y[i];
                }
                for j in 0..n {
                    let mut g = 2.0 * self.lambda * x[j];
                    for (m, &k) in self.kernel.iter().enumerate() {
                        let i = j as i64 - m as i64 + half as i64;
                        if i >= 0 && i < n as i64 {
                            g += 2.0 * k * resid[i as usize];
                        }
                    }
                    x[j] -= self.rate * g;
                }
            }
            x
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn error(&self, y: &[f64], truth: &[f64]) -> f64 {
            let x = self.restore(y);
            let mut e = 0.0;
            for i in 0..truth.len() {
                e += (x[i] - truth[i]).powi(2);
            }
            e
        }
    }

    fn model(p: &[f64], iters: usize) -> Deconv {
        Deconv {
            kernel: vec![0.25 + 0.05 * p[0], 0.5 + 0.05 * p[1], 0.25 + 0.05 * p[2]],
            lambda: 0.05 + 0.02 * p[3],
            rate: 0.2 + 0.02 * p[4],
            iters,
        }
    }

    fn truth() -> Vec<f64> {
        (0..8).map(|i| (0.8 * i as f64).sin() + 0.3).collect()
    }

    fn observe(d: &Deconv, x: &[f64]) -> Vec<f64> {
        (0..x.len()).map(|i| d.blur(x, i)).collect()
    }

    #[test]
    fn restoration_descends_and_restore_agrees_with_objective_grad() {
        let t = truth();
        for p in points(4581, 5, 10, -1.0, 1.0) {
            let d = model(&p, 1);
            let y = observe(&d, &t);
            // One hand-written step is a step along objective_grad.
            let x1 = d.restore(&y);
            let (_, (_, gx)) = d.objective_grad(&y, &y);
            for i in 0..8 {
                assert_close(
                    x1[i],
                    y[i] - d.rate * gx[i],
                    1e-14,
                    "hand gradient = objective_grad",
                );
            }
            // More steps lower the objective.
            let d30 = model(&p, 30);
            let x30 = d30.restore(&y);
            assert!(d30.objective(&x30, &y) < d30.objective(&y, &y));
            // restore's Jacobian in (kernel, lambda, rate, y) against differences.
            let d3 = model(&p, 3);
            let mut at = d3.to_flat();
            at.extend(&y);
            let j = Deconv::restore_jacobian(&d3, &y);
            check_jacobian("deconv::restore", &at, &j, |z| {
                let m = d3.from_flat(&z[..5]);
                m.restore(&z[5..])
            });
            let c = wave(8, 0.2);
            let (v, (gd, gy)) = d3.restore_vjp(&y, c.clone());
            let tt = wave(13, 0.9);
            let (v2, jt) = d3.restore_jvp(&y, (d3.from_flat(&tt[..5]), tt[5..].to_vec()));
            assert_eq!(v, v2);
            let mut cj = gd.to_flat();
            cj.extend(&gy);
            check_dual("deconv::restore", &c, &jt, &cj, &tt);
        }
    }

    #[test]
    fn error_audit_wrt_self() {
        let t = truth();
        let base = model(&[0.1, -0.2, 0.3, 0.0, 0.0], 6);
        let y: Vec<f64> = observe(&base, &t)
            .iter()
            .enumerate()
            .map(|(i, v)| v + 0.01 * (i as f64 * 1.7).cos())
            .collect();
        let pts: Vec<Vec<f64>> = points(4582, 5, 10, -1.0, 1.0)
            .iter()
            .map(|p| model(p, 6).to_flat())
            .collect();
        let m = |x: &[f64]| base.from_flat(x);
        audit(
            &Items {
                what: "deconv::error",
                primal: &|x| m(x).error(&y, &t),
                grad: &|x| {
                    let (v, g) = m(x).error_grad(&y, &t);
                    assert_eq!(g.iters, 6, "#[no_grad] copied from the primal");
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = m(x).error_vjp(&y, &t, d);
                    (v, g.to_flat())
                },
                jvp: &|x, tt| m(x).error_jvp(&y, &t, m(tt)),
                grad_into: &|x| {
                    let mut b = base.from_flat(&[f64::NAN; 5]);
                    let v = m(x).error_grad_into(&y, &t, &mut b);
                    same_bits(&b.to_flat(), &m(x).error_grad(&y, &t).1.to_flat(), "deconv");
                    (v, b.to_flat())
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = m(x).error_hvp(&y, &t, m(w));
                    (v, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = m(x).error_hessian(&y, &t);
                    (v, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) An M/M/1 tandem queue: each station's mean number in system by a truncated geometric sum of
// `n (1 - ρ) ρⁿ` with `powi` (the tail below `f64::EPSILON` ends it with `break`), the mean response
// time by Little's law, summed over the stations of a `[f64; S]` with const generic `S`; at `order = 3`
// in the arrival rate alone (`_derivatives` against `k! / (μ - λ)^(k+1)`), at `order = 2` in all rates.

mod tandem {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn mean_number(rho: f64) -> f64 {
        let mut s = 0.0;
        let mut n = 1;
        loop {
            let term = n as f64 * (1.0 - rho) * rho.powi(n);
            s += term;
            if term < f64::EPSILON * 1e-3 || n >= 5000 {
                break;
            }
            n += 1;
        }
        s
    }

    #[differentiable]
    pub fn response<const S: usize>(lambda: f64, mu: [f64; S]) -> f64 {
        let mut total = 0.0;
        for &m in mu.iter() {
            total += mean_number(lambda / m) / lambda;
        }
        total
    }

    #[differentiable(wrt(lambda), order = 3)]
    pub fn response_in_load(lambda: f64, mu: [f64; 3]) -> f64 {
        response(lambda, mu)
    }

    #[differentiable(order = 2)]
    pub fn response_all(lambda: f64, mu: [f64; 3]) -> f64 {
        response(lambda, mu)
    }

    fn closed(lambda: f64, mu: [f64; 3], k: usize) -> f64 {
        let fact = (1..=k).product::<usize>() as f64;
        mu.iter()
            .map(|m| fact / (m - lambda).powi(k as i32 + 1))
            .sum()
    }

    #[test]
    fn derivatives_in_the_load_by_hand() {
        for p in points(4591, 4, 12, 0.0, 1.0) {
            let mu = [1.0 + p[1], 1.2 + p[2], 1.1 + p[3]];
            let lambda = 0.1 + 0.6 * p[0];
            let d = response_in_load_derivatives(lambda, mu);
            for k in 0..4 {
                assert_close(
                    d[k],
                    closed(lambda, mu, k),
                    1e-9,
                    &format!("d^{k} response"),
                );
            }
            let (v, g) = response_in_load_grad(lambda, mu);
            assert_eq!(v, d[0]);
            assert_eq!(v, response_in_load(lambda, mu));
            assert_close(g, d[1], 1e-12, "grad against derivatives");
        }
    }

    #[test]
    fn response_all_audit() {
        let g4 = |g: (f64, [f64; 3])| vec![g.0, g.1[0], g.1[1], g.1[2]];
        let pts: Vec<Vec<f64>> = points(4592, 4, 10, 0.0, 1.0)
            .iter()
            .map(|p| vec![0.1 + 0.6 * p[0], 1.0 + p[1], 1.2 + p[2], 1.1 + p[3]])
            .collect();
        let mu = |x: &[f64]| [x[1], x[2], x[3]];
        audit(
            &Items {
                what: "tandem::response_all",
                primal: &|x| response_all(x[0], mu(x)),
                grad: &|x| {
                    let (v, g) = response_all_grad(x[0], mu(x));
                    (v, g4(g))
                },
                vjp: &|x, d| {
                    let (v, g) = response_all_vjp(x[0], mu(x), d);
                    (v, g4(g))
                },
                jvp: &|x, t| response_all_jvp(x[0], mu(x), (t[0], mu(t))),
                grad_into: &|x| {
                    let mut b = (f64::NAN, [f64::NAN; 3]);
                    let v = response_all_grad_into(x[0], mu(x), (&mut b.0, &mut b.1));
                    same_bits(&g4(b), &g4(response_all_grad(x[0], mu(x)).1), "tandem");
                    (v, g4(b))
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = response_all_hvp(x[0], mu(x), (w[0], mu(w)));
                    (v, g4(g), g4(hv))
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = response_all_hessian(x[0], mu(x));
                    (v, g4(g), h)
                }),
                analytic: Some(&|x| {
                    let m = mu(x);
                    let mut g = vec![closed(x[0], m, 1)];
                    g.extend(m.iter().map(|mi| -1.0 / (mi - x[0]).powi(2)));
                    g
                }),
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) The coexistence equilibrium of two competing species (Lotka-Volterra competition) by a damped
// fixed-point iteration in a `while` with a compound condition and a tolerance `break`; the helper
// returns the pair as a tuple. The total equilibrium biomass at `order = 2`, against the closed form
// `n₁ = (K₁ - a₁₂ K₂) / (1 - a₁₂ a₂₁)` and its derivatives.

mod competition {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sweep(n1: f64, n2: f64, k: [f64; 2], a12: f64, a21: f64, damp: f64) -> (f64, f64) {
        let t1 = k[0] - a12 * n2;
        let t2 = k[1] - a21 * n1;
        (n1 + damp * (t1 - n1), n2 + damp * (t2 - n2))
    }

    #[differentiable]
    pub fn equilibrium(k: [f64; 2], a12: f64, a21: f64) -> (f64, f64) {
        let (mut n1, mut n2) = (k[0], k[1]);
        let mut it = 0;
        while it < 10_000 && n1.is_finite() {
            let (m1, m2) = sweep(n1, n2, k, a12, a21, 0.7);
            let change = (m1 - n1).abs().max((m2 - n2).abs());
            n1 = m1;
            n2 = m2;
            it += 1;
            if change < 1e-15 {
                break;
            }
        }
        (n1, n2)
    }

    #[differentiable(order = 2)]
    pub fn biomass(k: [f64; 2], a12: f64, a21: f64) -> f64 {
        let (n1, n2) = equilibrium(k, a12, a21);
        n1 + n2
    }

    fn closed(x: &[f64]) -> f64 {
        let (k1, k2, a12, a21) = (x[0], x[1], x[2], x[3]);
        let d = 1.0 - a12 * a21;
        (k1 - a12 * k2) / d + (k2 - a21 * k1) / d
    }

    fn closed_grad(x: &[f64]) -> Vec<f64> {
        let (k1, k2, a12, a21) = (x[0], x[1], x[2], x[3]);
        let d = 1.0 - a12 * a21;
        let num = k1 * (1.0 - a21) + k2 * (1.0 - a12);
        vec![
            (1.0 - a21) / d,
            (1.0 - a12) / d,
            -k2 / d + num * a21 / (d * d),
            -k1 / d + num * a12 / (d * d),
        ]
    }

    #[test]
    fn equilibrium_and_biomass() {
        let pts: Vec<Vec<f64>> = points(4601, 4, 10, 0.0, 1.0)
            .iter()
            .map(|p| vec![1.0 + p[0], 1.0 + p[1], 0.1 + 0.4 * p[2], 0.1 + 0.4 * p[3]])
            .collect();
        for x in &pts {
            assert_close(
                biomass([x[0], x[1]], x[2], x[3]),
                closed(x),
                1e-13,
                "biomass",
            );
            let c = [0.4, -1.3];
            let (v, (gk, g12, g21)) = equilibrium_vjp([x[0], x[1]], x[2], x[3], (c[0], c[1]));
            let t = wave(4, 0.6);
            let (v2, jt) = equilibrium_jvp([x[0], x[1]], x[2], x[3], ([t[0], t[1]], t[2], t[3]));
            assert_eq!(v, v2);
            check_dual(
                "competition::equilibrium",
                &c,
                &[jt.0, jt.1],
                &[gk[0], gk[1], g12, g21],
                &t,
            );
            let g = sweep_vjp(1.0, 2.0, [x[0], x[1]], x[2], x[3], 0.5, (1.0, 0.0)).1;
            let (s1, s2) = (g.0, g.1);
            // dn1'/dn1 = 1 - damp, dn1'/dn2 = -damp a12.
            assert_close(s1, 0.5, 1e-15, "sweep d/dn1");
            assert_close(s2, -0.5 * x[2], 1e-15, "sweep d/dn2");
        }
        let g4 = |g: ([f64; 2], f64, f64)| vec![g.0[0], g.0[1], g.1, g.2];
        audit(
            &Items {
                what: "competition::biomass",
                primal: &|x| biomass([x[0], x[1]], x[2], x[3]),
                grad: &|x| {
                    let (v, g) = biomass_grad([x[0], x[1]], x[2], x[3]);
                    (v, g4(g))
                },
                vjp: &|x, d| {
                    let (v, g) = biomass_vjp([x[0], x[1]], x[2], x[3], d);
                    (v, g4(g))
                },
                jvp: &|x, t| biomass_jvp([x[0], x[1]], x[2], x[3], ([t[0], t[1]], t[2], t[3])),
                grad_into: &|x| {
                    let mut b = ([f64::NAN; 2], f64::NAN, f64::NAN);
                    let v =
                        biomass_grad_into([x[0], x[1]], x[2], x[3], (&mut b.0, &mut b.1, &mut b.2));
                    same_bits(
                        &g4(b),
                        &g4(biomass_grad([x[0], x[1]], x[2], x[3]).1),
                        "biomass",
                    );
                    (v, g4(b))
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) =
                        biomass_hvp([x[0], x[1]], x[2], x[3], ([w[0], w[1]], w[2], w[3]));
                    (v, g4(g), g4(hv))
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = biomass_hessian([x[0], x[1]], x[2], x[3]);
                    (v, g4(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
        for x in &pts {
            let (_, g) = biomass_grad([x[0], x[1]], x[2], x[3]);
            assert_all_close(&g4(g), &closed_grad(x), 1e-12, "biomass gradient by hand");
            // The closed form is linear in K: no K-K curvature.
            let (_, _, h) = biomass_hessian([x[0], x[1]], x[2], x[3]);
            assert!(h[0][0].abs() < 1e-12 && h[0][1].abs() < 1e-12);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) Value iteration on a small Markov decision process: a Bellman backup helper (the best action's
// `max`, each action's expectation over a row of the transition matrix), Gauss-Seidel sweeps updating a
// local `Vec` in place inside a `while` with a tolerance `break`; the start state's value in
// `wrt(r, gamma)` at `order = 2`. At convergence `∂V₀/∂r[s][a]` is `[(I - γ P_π)⁻¹]₀ₛ` for the greedy
// action `a = π(s)` and 0 otherwise, and `V` is piecewise linear in `r` (no `r`-`r` curvature).

mod mdp {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn backup(
        v: &[f64],
        r: &[f64],
        p: &[Vec<f64>],
        gamma: f64,
        s: usize,
        actions: usize,
    ) -> f64 {
        let mut best = f64::NEG_INFINITY;
        for a in 0..actions {
            let i = s * actions + a;
            let q = r[i]
                + gamma
                    * p[i]
                        .iter()
                        .zip(v.iter())
                        .map(|(pi, vi)| pi * vi)
                        .sum::<f64>();
            best = best.max(q);
        }
        best
    }

    #[differentiable(wrt(r, gamma), order = 2)]
    pub fn value(r: &[f64], p: &[Vec<f64>], gamma: f64, actions: usize, tol: f64) -> f64 {
        let n = r.len() / actions;
        let mut v = vec![0.0; n];
        let mut sweeps = 0;
        while sweeps < 5000 {
            let mut change: f64 = 0.0;
            for s in 0..n {
                let nv = backup(&v, r, p, gamma, s, actions);
                change = change.max((nv - v[s]).abs());
                v[s] = nv;
            }
            sweeps += 1;
            if change < tol {
                break;
            }
        }
        v[0]
    }

    /// The mean reward per state by `chunks_exact` over the actions' rows, for a baseline.
    #[differentiable]
    pub fn mean_reward(r: &[f64], actions: usize) -> f64 {
        let mut best = 0.0;
        for row in r.chunks_exact(actions) {
            best += row.iter().sum::<f64>() / actions as f64;
        }
        best / (r.len() / actions) as f64
    }

    const S: usize = 4;
    const A: usize = 2;

    fn transitions(p: &[f64]) -> Vec<Vec<f64>> {
        (0..S * A)
            .map(|i| {
                let w: Vec<f64> = (0..S)
                    .map(|j| {
                        0.2 + (1.3 * i as f64 + 0.7 * j as f64 + p[(i + j) % p.len()])
                            .sin()
                            .abs()
                    })
                    .collect();
                let z: f64 = w.iter().sum();
                w.iter().map(|x| x / z).collect()
            })
            .collect()
    }

    fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
        let n = b.len();
        for c in 0..n {
            let piv = (c..n)
                .max_by(|&i, &j| a[i][c].abs().partial_cmp(&a[j][c].abs()).unwrap())
                .unwrap();
            a.swap(c, piv);
            b.swap(c, piv);
            for r in (c + 1)..n {
                let f = a[r][c] / a[c][c];
                for k in c..n {
                    a[r][k] -= f * a[c][k];
                }
                b[r] -= f * b[c];
            }
        }
        let mut x = vec![0.0; n];
        for r in (0..n).rev() {
            let s: f64 = ((r + 1)..n).map(|k| a[r][k] * x[k]).sum();
            x[r] = (b[r] - s) / a[r][r];
        }
        x
    }

    #[test]
    fn value_gradient_is_the_discounted_occupancy() {
        let tol = 1e-14;
        for p in points(4611, S * A + 1, 10, -1.0, 1.0) {
            let r = p[..S * A].to_vec();
            let pm = transitions(&p);
            let gamma = 0.6 + 0.2 * p[S * A];
            let (v0, (gr, gg)) = value_grad(&r, &pm, gamma, A, tol);
            assert_eq!(v0, value(&r, &pm, gamma, A, tol));
            // The converged values and the greedy policy, independently.
            let mut v = vec![0.0; S];
            for _ in 0..3000 {
                v = (0..S)
                    .map(|s| {
                        (0..A)
                            .map(|a| r[s * A + a] + gamma * dot(&pm[s * A + a], &v))
                            .fold(f64::NEG_INFINITY, f64::max)
                    })
                    .collect();
            }
            assert_close(v0, v[0], 1e-12, "V0");
            let pi: Vec<usize> = (0..S)
                .map(|s| {
                    (0..A)
                        .max_by(|&a, &b| {
                            let qa = r[s * A + a] + gamma * dot(&pm[s * A + a], &v);
                            let qb = r[s * A + b] + gamma * dot(&pm[s * A + b], &v);
                            qa.partial_cmp(&qb).unwrap()
                        })
                        .unwrap()
                })
                .collect();
            // Row 0 of (I - γ P_π)⁻¹: solve (I - γ P_π)ᵀ y = e₀.
            let mut mt = vec![vec![0.0; S]; S];
            for s in 0..S {
                for t in 0..S {
                    mt[t][s] = if s == t { 1.0 } else { 0.0 } - gamma * pm[s * A + pi[s]][t];
                }
            }
            let mut e0 = vec![0.0; S];
            e0[0] = 1.0;
            let occ = solve(mt, e0);
            for s in 0..S {
                for a in 0..A {
                    let expected = if a == pi[s] { occ[s] } else { 0.0 };
                    assert_close(gr[s * A + a], expected, 1e-10, "dV0/dr");
                }
            }
            // dV0/dγ = occ · (P_π V).
            let pv: Vec<f64> = (0..S).map(|s| dot(&pm[s * A + pi[s]], &v)).collect();
            assert_close(gg, dot(&occ, &pv), 1e-9, "dV0/dgamma");
            let (_, _, h) = value_hessian(&r, &pm, gamma, A, tol);
            for i in 0..S * A {
                for j in 0..S * A {
                    assert!(
                        h[i][j].abs() < 1e-9,
                        "piecewise linear in r: H[{i}][{j}] = {}",
                        h[i][j]
                    );
                }
            }
            let m = mean_reward(&r, A);
            let (mv, gm) = mean_reward_grad(&r, A);
            assert_eq!(mv, m);
            assert_all_close(
                &gm,
                &vec![1.0 / (S * A) as f64; S * A],
                1e-15,
                "mean reward",
            );
        }
    }

    #[test]
    fn value_audit() {
        let tol = 1e-14;
        let base = points(4612, S * A + 1, 1, -1.0, 1.0).remove(0);
        let pm = transitions(&base);
        let pts: Vec<Vec<f64>> = points(4613, S * A + 1, 10, -1.0, 1.0)
            .into_iter()
            .map(|mut p| {
                p[S * A] = 0.6 + 0.2 * p[S * A];
                p
            })
            .collect();
        let fl = |g: (Vec<f64>, f64)| {
            let mut f = g.0;
            f.push(g.1);
            f
        };
        let n = S * A;
        audit(
            &Items {
                what: "mdp::value",
                primal: &|x| value(&x[..n], &pm, x[n], A, tol),
                grad: &|x| {
                    let (v, g) = value_grad(&x[..n], &pm, x[n], A, tol);
                    (v, fl(g))
                },
                vjp: &|x, d| {
                    let (v, g) = value_vjp(&x[..n], &pm, x[n], A, tol, d);
                    (v, fl(g))
                },
                jvp: &|x, t| value_jvp(&x[..n], &pm, x[n], A, tol, (t[..n].to_vec(), t[n])),
                grad_into: &|x| {
                    let mut b = (vec![f64::NAN; n], f64::NAN);
                    let v = value_grad_into(&x[..n], &pm, x[n], A, tol, (&mut b.0, &mut b.1));
                    same_bits(
                        &fl(b.clone()),
                        &fl(value_grad(&x[..n], &pm, x[n], A, tol).1),
                        "mdp",
                    );
                    (v, fl(b))
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = value_hvp(&x[..n], &pm, x[n], A, tol, (w[..n].to_vec(), w[n]));
                    (v, fl(g), fl(hv))
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = value_hessian(&x[..n], &pm, x[n], A, tol);
                    (v, fl(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) A QR factorisation by modified Gram-Schmidt into two output slices (`q` copied from `a` and
// orthogonalised in place column by column, `r` zeroed and filled above the diagonal), a helper
// returning a column's norm and its inverse as a tuple, and `ln |det A| = Σ ln r_jj` at `order = 2`,
// against `A⁻ᵀ` by hand. `_vjp` with cotangents on both outputs against `_jvp`.

mod gram_schmidt {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn column_norm(q: &[f64], n: usize, j: usize) -> (f64, f64) {
        let mut s = 0.0;
        for i in 0..q.len() / n {
            s += q[i * n + j] * q[i * n + j];
        }
        let norm = s.sqrt();
        (norm, 1.0 / norm)
    }

    /// `a` is `m × n` row-major; so are `q` (`m × n`) and `r` (`n × n`).
    #[differentiable]
    pub fn qr(a: &[f64], n: usize, q: &mut [f64], r: &mut [f64]) {
        let m = a.len() / n;
        for i in 0..q.len() {
            q[i] = a[i];
        }
        for i in 0..r.len() {
            r[i] = 0.0;
        }
        for j in 0..n {
            for k in 0..j {
                let mut d = 0.0;
                for i in 0..m {
                    d += q[i * n + k] * q[i * n + j];
                }
                r[k * n + j] = d;
                for i in 0..m {
                    q[i * n + j] -= d * q[i * n + k];
                }
            }
            let (norm, inv) = column_norm(q, n, j);
            r[j * n + j] = norm;
            for i in 0..m {
                q[i * n + j] *= inv;
            }
        }
    }

    #[differentiable(order = 2)]
    pub fn log_abs_det(a: &[f64], n: usize) -> f64 {
        let mut q = vec![0.0; n * n];
        let mut r = vec![0.0; n * n];
        qr(a, n, &mut q, &mut r);
        let mut total = 0.0;
        for j in 0..n {
            total += r[j * n + j].abs().ln();
        }
        total
    }

    const N: usize = 3;

    fn inverse_transpose(a: &[f64]) -> Vec<f64> {
        let c = |i: usize, j: usize| a[i * N + j];
        let det = c(0, 0) * (c(1, 1) * c(2, 2) - c(1, 2) * c(2, 1))
            - c(0, 1) * (c(1, 0) * c(2, 2) - c(1, 2) * c(2, 0))
            + c(0, 2) * (c(1, 0) * c(2, 1) - c(1, 1) * c(2, 0));
        // The cofactor matrix over the determinant is A⁻ᵀ.
        let mut out = vec![0.0; 9];
        for i in 0..N {
            for j in 0..N {
                let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
                let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
                out[i * N + j] = (c(i1, j1) * c(i2, j2) - c(i1, j2) * c(i2, j1)) / det;
            }
        }
        out
    }

    #[test]
    fn qr_reconstructs_and_its_duality() {
        for p in points(4621, N * N, 12, -1.0, 1.0) {
            let mut q = vec![0.0; 9];
            let mut r = vec![0.0; 9];
            qr(&p, N, &mut q, &mut r);
            for i in 0..N {
                for j in 0..N {
                    let qtq: f64 = (0..N).map(|k| q[k * N + i] * q[k * N + j]).sum();
                    assert_close(qtq, if i == j { 1.0 } else { 0.0 }, 1e-12, "QᵀQ = I");
                    let qr_ij: f64 = (0..N).map(|k| q[i * N + k] * r[k * N + j]).sum();
                    assert_close(qr_ij, p[i * N + j], 1e-12, "QR = A");
                    if i > j {
                        assert_eq!(r[i * N + j], 0.0);
                    }
                }
            }
            let cq = wave(9, 0.3);
            let cr = wave(9, 1.9);
            let mut q2 = vec![0.0; 9];
            let mut r2 = vec![0.0; 9];
            let ga = qr_vjp(&p, N, &mut q2, &mut r2, &cq, &cr);
            assert_eq!((&q2, &r2), (&q, &r));
            let t = wave(9, 0.8);
            let mut dq = vec![0.0; 9];
            let mut dr = vec![0.0; 9];
            qr_jvp(&p, N, &mut q2, &mut r2, t.clone(), &mut dq, &mut dr);
            let mut c = cq.clone();
            c.extend(&cr);
            let mut jt = dq.clone();
            jt.extend(&dr);
            check_dual("gram_schmidt::qr", &c, &jt, &ga, &t);
            check_jacobian("gram_schmidt::qr", &p, std::slice::from_ref(&ga), |y| {
                let mut q = vec![0.0; 9];
                let mut r = vec![0.0; 9];
                qr(y, N, &mut q, &mut r);
                vec![dot(&cq, &q) + dot(&cr, &r)]
            });
            // The tuple-returning helper: d(1/‖c‖) = -c / ‖c‖³ on column 1.
            let (nv, ni) = column_norm(&p, N, 1);
            assert_close(nv * ni, 1.0, 1e-15, "norm and inverse");
            let ((_, _), gq) = column_norm_vjp(&p, N, 1, (0.0, 1.0));
            for i in 0..N * N {
                let expected = if i % N == 1 { -p[i] * ni.powi(3) } else { 0.0 };
                assert_close(gq[i], expected, 1e-14, "column_norm d inverse");
            }
        }
    }

    #[test]
    fn log_abs_det_audit_against_the_inverse_transpose() {
        let pts = points(4622, N * N, 10, -1.0, 1.0);
        for x in &pts {
            let (_, g) = log_abs_det_grad(x, N);
            assert_all_close(&g, &inverse_transpose(x), 1e-10, "d ln|det A| / dA = A^-T");
        }
        audit(
            &Items {
                what: "gram_schmidt::log_abs_det",
                primal: &|x| log_abs_det(x, N),
                grad: &|x| log_abs_det_grad(x, N),
                vjp: &|x, d| log_abs_det_vjp(x, N, d),
                jvp: &|x, t| log_abs_det_jvp(x, N, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![f64::NAN; N * N];
                    let v = log_abs_det_grad_into(x, N, &mut b);
                    same_bits(&b, &log_abs_det_grad(x, N).1, "log_abs_det");
                    (v, b)
                },
                hvp: Some(&|x, w| log_abs_det_hvp(x, N, w.to_vec())),
                hessian: Some(&|x| log_abs_det_hessian(x, N)),
                analytic: Some(&|x| inverse_transpose(x)),
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) A softmax policy as a `Differentiable` struct: a custom-gradient log-sum-exp over a slice (its
// closure captures the softmax), methods calling each other by `self.` and `Self::`, and the expected
// reward minus an entropy bonus `wrt(self)` at `order = 2`: the Hessian comes from differentiating the
// closure through the softmax it captured, checked against differences of `_grad` and, for the
// log-partition alone, against `diag(p) - p pᵀ` by hand.

mod policy {
    use super::*;
    use autodiff::{custom_gradient, differentiable, Differentiable};

    #[custom_gradient]
    pub fn lse(x: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64>) {
        let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let z: f64 = x.iter().map(|v| (v - m).exp()).sum();
        let p: Vec<f64> = x.iter().map(|v| (v - m).exp() / z).collect();
        (m + z.ln(), move |dy| p.iter().map(|pi| dy * pi).collect())
    }

    #[differentiable(order = 2)]
    pub fn log_partition(x: &[f64]) -> f64 {
        lse(x)
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Policy {
        pub logits: Vec<f64>,
        pub temperature: f64,
        #[no_grad]
        pub bonus: f64,
    }

    impl Policy {
        #[differentiable(wrt(self))]
        pub fn log_prob(&self, a: usize) -> f64 {
            let n = self.logits.len();
            let mut scaled = vec![0.0; n];
            for i in 0..n {
                scaled[i] = self.logits[i] / self.temperature;
            }
            scaled[a] - lse(&scaled)
        }

        #[differentiable(wrt(self))]
        pub fn entropy(&self) -> f64 {
            let mut h = 0.0;
            for a in 0..self.logits.len() {
                let lp = self.log_prob(a);
                h -= lp.exp() * lp;
            }
            h
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn objective(&self, rewards: &[f64]) -> f64 {
            let mut expected = 0.0;
            for (a, &r) in rewards.iter().enumerate() {
                expected += self.log_prob(a).exp() * r;
            }
            expected + self.bonus * Self::entropy(self)
        }
    }

    fn softmax(x: &[f64]) -> Vec<f64> {
        let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
        let z: f64 = e.iter().sum();
        e.iter().map(|v| v / z).collect()
    }

    #[test]
    fn log_partition_hessian_by_hand() {
        for x in points(4631, 5, 12, -3.0, 3.0) {
            let p = softmax(&x);
            let (v, g, h) = log_partition_hessian(&x);
            let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            assert_close(
                v,
                m + x.iter().map(|xi| (xi - m).exp()).sum::<f64>().ln(),
                1e-15,
                "lse",
            );
            assert_all_close(&g, &p, 1e-15, "lse gradient");
            for i in 0..5 {
                for j in 0..5 {
                    let e = if i == j { p[i] } else { 0.0 } - p[i] * p[j];
                    assert_close(h[i][j], e, 1e-14, "lse Hessian");
                }
            }
            let t = wave(5, 0.4);
            let (_, _, hv) = log_partition_hvp(&x, t.clone());
            let pt = dot(&p, &t);
            let expected: Vec<f64> = (0..5).map(|i| p[i] * (t[i] - pt)).collect();
            assert_all_close(&hv, &expected, 1e-14, "lse hvp");
            // Shifting every logit shifts the value and leaves the gradient.
            let shifted: Vec<f64> = x.iter().map(|v| v + 100.0).collect();
            assert_close(lse(&shifted), lse(&x) + 100.0, 1e-13, "shift");
        }
    }

    #[test]
    fn objective_audit_wrt_self() {
        let rewards = vec![1.0, -0.5, 0.3, 2.0];
        let base = Policy {
            logits: vec![0.0; 4],
            temperature: 1.0,
            bonus: 0.2,
        };
        let pts: Vec<Vec<f64>> = points(4632, 5, 10, -1.0, 1.0)
            .into_iter()
            .map(|mut p| {
                p[4] = 1.0 + 0.5 * p[4];
                p
            })
            .collect();
        let m = |x: &[f64]| base.from_flat(x);
        for x in &pts {
            let pol = m(x);
            let scaled: Vec<f64> = pol.logits.iter().map(|l| l / pol.temperature).collect();
            let p = softmax(&scaled);
            let ent: f64 = -p.iter().map(|pi| pi * pi.ln()).sum::<f64>();
            assert_close(pol.entropy(), ent, 1e-13, "entropy");
            assert_close(
                pol.objective(&rewards),
                dot(&p, &rewards) + 0.2 * ent,
                1e-13,
                "objective",
            );
            // Gradient of the expected reward part alone (bonus 0) by hand: p_i (r_i - p·r) / T.
            let cold = Policy {
                bonus: 0.0,
                ..pol.clone()
            };
            let (_, g) = cold.objective_grad(&rewards);
            let pr = dot(&p, &rewards);
            for i in 0..4 {
                assert_close(
                    g.logits[i],
                    p[i] * (rewards[i] - pr) / pol.temperature,
                    1e-13,
                    "policy gradient",
                );
            }
            assert_eq!(g.bonus, 0.0, "#[no_grad] copied from the primal");
        }
        audit(
            &Items {
                what: "policy::objective",
                primal: &|x| m(x).objective(&rewards),
                grad: &|x| {
                    let (v, g) = m(x).objective_grad(&rewards);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = m(x).objective_vjp(&rewards, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| m(x).objective_jvp(&rewards, m(t)),
                grad_into: &|x| {
                    let mut b = base.from_flat(&[f64::NAN; 5]);
                    let v = m(x).objective_grad_into(&rewards, &mut b);
                    same_bits(
                        &b.to_flat(),
                        &m(x).objective_grad(&rewards).1.to_flat(),
                        "policy",
                    );
                    (v, b.to_flat())
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = m(x).objective_hvp(&rewards, m(w));
                    (v, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = m(x).objective_hessian(&rewards);
                    (v, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) `tanh` by its continued fraction `x / (1 + x²/(3 + x²/(5 + ...)))`, the tail a recursive
// function of `x²` (a differentiable function calling itself), through a helper across modules by a
// `crate::` path; `_derivatives` at `order = 3` against `tanh`'s derivatives by hand.

mod continued_fraction {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(x2))]
    pub fn tail(x2: f64, k: f64, depth: usize) -> f64 {
        if depth == 0 {
            return k;
        }
        k + x2 / tail(x2, k + 2.0, depth - 1)
    }

    /// A caller differentiating the parameter that `tail` leaves out of `wrt(..)`: the recursion's
    /// hidden sweeps carry it (its `__AUTODIFF_THROUGH` slot was a rustc cycle, E0391, before the fix).
    #[differentiable(order = 2)]
    pub fn tail_in_both(x2: f64, k: f64) -> f64 {
        tail(x2, k, 4) * k
    }

    #[differentiable]
    pub fn tail_in_depth_one(x2: f64, k: f64) -> f64 {
        tail(x2, k, 1)
    }

    #[differentiable(order = 3)]
    pub fn tanh_cf(x: f64) -> f64 {
        x / crate::continued_fraction::tail(x * x, 1.0, 24)
    }

    #[test]
    fn derivatives_of_tanh() {
        for p in points(4641, 1, 20, -2.0, 2.0) {
            let x = p[0];
            let t = x.tanh();
            let d = tanh_cf_derivatives(x);
            let s = 1.0 - t * t;
            let expected = [t, s, -2.0 * t * s, -2.0 * s * (1.0 - 3.0 * t * t)];
            for k in 0..4 {
                assert_close(d[k], expected[k], 1e-12, &format!("tanh^({k})"));
            }
            let (v, g) = tanh_cf_grad(x);
            assert_eq!(v, tanh_cf(x));
            assert_close(g, s, 1e-12, "tanh'");
            let (_, gt) = tail_grad(x * x, 1.0, 3);
            // 1 + x²/(3 + x²/(5 + x²/7)): its derivative in x², by differences.
            let h = 1e-6;
            let fd = (tail(x * x + h, 1.0, 3) - tail(x * x - h, 1.0, 3)) / (2.0 * h);
            assert_close(gt, fd, 1e-7, "tail'");
            let (_, gv) = tail_vjp(x * x, 1.0, 3, -2.0);
            assert_eq!(gv, -2.0 * gt);
            let (_, jv) = tail_jvp(x * x, 1.0, 3, 0.5);
            assert_close(jv, 0.5 * gt, 1e-15, "tail jvp");
        }
    }

    #[test]
    fn the_parameter_outside_wrt_through_the_recursion() {
        let pts: Vec<Vec<f64>> = points(4642, 2, 10, 0.0, 1.0)
            .into_iter()
            .map(|p| vec![0.2 + 2.0 * p[0], 1.0 + p[1]])
            .collect();
        // By hand at depth 1 through `tail`'s hidden sweeps: d/dk of k + x / (k + 2) is 1 - x / (k + 2)².
        let (_, (_, gk)) = tail_in_depth_one_grad(0.7, 1.3);
        assert_close(gk, 1.0 - 0.7 / 3.3f64.powi(2), 1e-15, "d tail / dk by hand");
        assert_eq!(tail_in_depth_one(0.7, 1.3), 1.3 + 0.7 / 3.3);
        audit(
            &Items {
                what: "continued_fraction::tail_in_both",
                primal: &|x| tail_in_both(x[0], x[1]),
                grad: &|x| {
                    let (v, g) = tail_in_both_grad(x[0], x[1]);
                    (v, vec![g.0, g.1])
                },
                vjp: &|x, d| {
                    let (v, g) = tail_in_both_vjp(x[0], x[1], d);
                    (v, vec![g.0, g.1])
                },
                jvp: &|x, t| tail_in_both_jvp(x[0], x[1], (t[0], t[1])),
                grad_into: &|x| {
                    let mut b = (f64::NAN, f64::NAN);
                    let v = tail_in_both_grad_into(x[0], x[1], (&mut b.0, &mut b.1));
                    (v, vec![b.0, b.1])
                },
                hvp: Some(&|x, w| {
                    let (v, g, hv) = tail_in_both_hvp(x[0], x[1], (w[0], w[1]));
                    (v, vec![g.0, g.1], vec![hv.0, hv.1])
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = tail_in_both_hessian(x[0], x[1]);
                    (v, vec![g.0, g.1], h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}
