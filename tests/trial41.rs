//! An outside test suite written against API.md alone (session 41), by a user writing small real
//! projects: each module is one project of a few functions calling one another (free functions,
//! `Self::` helpers, methods, `super::`/`crate::` paths), in the idioms numeric Rust is written in.
//! Projects: an SIR epidemic fit, a 1-D convolution with LayerNorm, an attention head, Huber
//! regression, a mean-variance portfolio, a two-body orbit by leapfrog, quaternion alignment, the
//! length of a Bézier curve by Gauss-Legendre quadrature, a pharmacokinetic dosing model, a linear SVM,
//! Gauss-Newton on an exponential fit, a spring-mass-damper struct, a clipped policy-gradient surrogate,
//! Beta/Gamma log-densities through a custom and a registered `lgamma`, and Tikhonov deblurring.
//!
//! For each: the value against a plain computation, `_grad` against central differences on seeded
//! points (and by hand where the formula is short), `_grad_into` bit for bit equal to `_grad`,
//! `_vjp` against `_jvp` (`c · (J t) = (c J) · t`) for vector results, `_jacobian` against
//! differences, and at `order = 2` the Hessian against differences of `_grad` and `_hvp` against the
//! Hessian times `v` (through `common::contract::audit`).

// `&Vec<f64>` parameters, index loops and long argument lists are what the projects are written with.
#![allow(
    clippy::ptr_arg,
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::too_many_arguments
)]

mod common;

use common::contract::{audit, Items};
use common::{
    arr, assert_all_close, assert_close, check_dual, check_jacobian, dot, fd_jacobian, points,
    same_bits, wave, Inputs,
};

// ---------------------------------------------------------------------------------------------------
// (1) An SIR epidemic fitted by least squares: the right-hand side returns a tuple, Euler steps write
// the infected fraction into an output parameter (its `_jacobian`), the fit is `order = 2`.

mod sir {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn rhs(s: f64, i: f64, beta: f64, gamma: f64) -> (f64, f64, f64) {
        let infection = beta * s * i;
        let recovery = gamma * i;
        (-infection, infection - recovery, recovery)
    }

    /// Euler steps from `(1 - i0, i0, 0)`; the infected fraction after each step into `infected`.
    #[differentiable]
    pub fn simulate(beta: f64, gamma: f64, i0: f64, dt: f64, infected: &mut [f64]) {
        let mut s = 1.0 - i0;
        let mut i = i0;
        for k in 0..infected.len() {
            let (ds, di, _) = rhs(s, i, beta, gamma);
            s += dt * ds;
            i += dt * di;
            infected[k] = i;
        }
    }

    /// Squared errors, the latest observations weighted most (`decay` per step back in time).
    #[differentiable(wrt(theta), order = 2)]
    pub fn fit(theta: [f64; 3], obs: &[f64], dt: f64, decay: f64) -> f64 {
        let mut pred = vec![0.0; obs.len()];
        simulate(theta[0], theta[1], theta[2], dt, &mut pred);
        let mut weight = 1.0;
        let mut loss = 0.0;
        for k in (0..obs.len()).rev() {
            loss += weight * (pred[k] - obs[k]).powi(2);
            weight *= decay;
        }
        loss
    }

    fn reference(beta: f64, gamma: f64, i0: f64, dt: f64, n: usize) -> Vec<f64> {
        let (mut s, mut i) = (1.0 - i0, i0);
        let mut out = Vec::new();
        for _ in 0..n {
            let new_s = s - dt * beta * s * i;
            let new_i = i + dt * (beta * s * i - gamma * i);
            s = new_s;
            i = new_i;
            out.push(i);
        }
        out
    }

    fn reference_fit(theta: &[f64], obs: &[f64], dt: f64, decay: f64) -> f64 {
        let pred = reference(theta[0], theta[1], theta[2], dt, obs.len());
        let n = obs.len();
        (0..n)
            .map(|k| decay.powi((n - 1 - k) as i32) * (pred[k] - obs[k]).powi(2))
            .sum()
    }

    const OBS: [f64; 8] = [0.012, 0.02, 0.035, 0.05, 0.07, 0.085, 0.09, 0.088];

    #[test]
    fn rhs_against_jvp_and_by_hand() {
        for p in points(4101, 4, 12, 0.05, 1.0) {
            let (s, i, beta, gamma) = (p[0], p[1], p[2], p[3]);
            let c = [0.4, -1.2, 0.9];
            let t = [0.3, -0.6, 1.1, 0.5];
            let (v1, cj) = rhs_vjp(s, i, beta, gamma, (c[0], c[1], c[2]));
            let (v2, jt) = rhs_jvp(s, i, beta, gamma, (t[0], t[1], t[2], t[3]));
            assert_eq!(v1, rhs(s, i, beta, gamma));
            assert_eq!(v1, v2);
            assert_eq!(v1, (-beta * s * i, beta * s * i - gamma * i, gamma * i));
            check_dual(
                "rhs",
                &c,
                &[jt.0, jt.1, jt.2],
                &[cj.0, cj.1, cj.2, cj.3],
                &t,
            );
            // d(-beta s i)/ds = -beta i, ..., by hand for the cotangent c.
            let by_hand = [
                -beta * i * c[0] + beta * i * c[1],
                -beta * s * c[0] + (beta * s - gamma) * c[1] + gamma * c[2],
                -s * i * c[0] + s * i * c[1],
                -i * c[1] + i * c[2],
            ];
            assert_all_close(
                &[cj.0, cj.1, cj.2, cj.3],
                &by_hand,
                1e-12,
                "rhs_vjp by hand",
            );
        }
    }

    #[test]
    fn simulate_jacobian_and_duality() {
        for p in points(4102, 4, 10, 0.0, 1.0) {
            let (beta, gamma, i0, dt) = (
                1.0 + p[0],
                0.2 + 0.3 * p[1],
                0.01 + 0.05 * p[2],
                0.2 + 0.3 * p[3],
            );
            let x = [beta, gamma, i0, dt];
            let mut out = vec![f64::NAN; 8];
            simulate(beta, gamma, i0, dt, &mut out);
            assert_all_close(&out, &reference(beta, gamma, i0, dt, 8), 1e-14, "simulate");
            let mut buf = vec![0.0; 8];
            let j = simulate_jacobian(beta, gamma, i0, dt, &mut buf);
            assert_eq!((j.len(), j[0].len()), (8, 4));
            check_jacobian("simulate", &x, &j, |q| reference(q[0], q[1], q[2], q[3], 8));
            let c = wave(8, 0.3);
            let t = wave(4, 1.7);
            let mut o1 = vec![0.0; 8];
            let cj = simulate_vjp(beta, gamma, i0, dt, &mut o1, &c);
            assert_eq!(o1, out, "simulate_vjp writes the outputs");
            let mut o2 = vec![0.0; 8];
            let mut jt = vec![f64::NAN; 8];
            simulate_jvp(
                beta,
                gamma,
                i0,
                dt,
                &mut o2,
                (t[0], t[1], t[2], t[3]),
                &mut jt,
            );
            assert_eq!(o2, out, "simulate_jvp writes the outputs");
            check_dual("simulate", &c, &jt, &[cj.0, cj.1, cj.2, cj.3], &t);
        }
    }

    #[test]
    fn fit_at_order_2() {
        let (dt, decay) = (0.5, 0.8);
        let pts: Vec<Vec<f64>> = points(4103, 3, 10, 0.0, 1.0)
            .into_iter()
            .map(|p| vec![0.5 + p[0], 0.1 + 0.3 * p[1], 0.005 + 0.02 * p[2]])
            .collect();
        for p in &pts {
            assert_close(
                fit(arr(p), &OBS, dt, decay),
                reference_fit(p, &OBS, dt, decay),
                1e-12,
                "fit vs reference",
            );
            let (_, g) = fit_grad(arr(p), &OBS, dt, decay);
            let mut buf = [f64::NAN; 3];
            fit_grad_into(arr(p), &OBS, dt, decay, &mut buf);
            same_bits(&buf, &g, "fit");
        }
        audit(
            &Items {
                what: "sir::fit",
                primal: &|x| fit(arr(x), &OBS, dt, decay),
                grad: &|x| {
                    let (v, g) = fit_grad(arr(x), &OBS, dt, decay);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = fit_vjp(arr(x), &OBS, dt, decay, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| fit_jvp(arr(x), &OBS, dt, decay, arr(t)),
                grad_into: &|x| {
                    let mut b = [f64::NAN; 3];
                    let v = fit_grad_into(arr(x), &OBS, dt, decay, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = fit_hvp(arr(x), &OBS, dt, decay, arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = fit_hessian(arr(x), &OBS, dt, decay);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) A 1-D convolution layer (`const K: usize` kernel into an output parameter), an activation chosen
// by `match` on an integer, average pooling by `chunks_exact`, LayerNorm, and a loss at `order = 2`.

mod conv_norm {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn conv1d<const K: usize>(x: &[f64], kernel: &[f64; K], bias: f64, out: &mut [f64]) {
        for i in 0..out.len() {
            let mut acc = bias;
            for (j, &k) in kernel.iter().enumerate() {
                acc = k.mul_add(x[i + j], acc);
            }
            out[i] = acc;
        }
    }

    #[differentiable]
    pub fn activate(h: f64, kind: usize) -> f64 {
        match kind {
            0 => h.tanh(),
            1 => h.max(0.0),
            2 | 3 => h / (1.0 + (-h).exp()),
            _ => h,
        }
    }

    #[differentiable]
    pub fn pool(h: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; h.len() / 2];
        for (i, pair) in h.chunks_exact(2).enumerate() {
            out[i] = 0.5 * (pair[0] + pair[1]);
        }
        out
    }

    #[differentiable]
    pub fn layer_norm(h: &[f64], gain: f64, shift: f64) -> Vec<f64> {
        let n = h.len() as f64;
        let mean = h.iter().sum::<f64>() / n;
        let var = h.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        let inv = 1.0 / (var + 1e-5).sqrt();
        let mut out = vec![0.0; h.len()];
        for i in 0..h.len() {
            out[i] = (h[i] - mean) * inv * gain + shift;
        }
        out
    }

    #[differentiable(wrt(kernel, bias, gain), order = 2)]
    pub fn loss<const K: usize>(
        kernel: [f64; K],
        bias: f64,
        gain: f64,
        x: &[f64],
        target: &[f64],
        kind: usize,
    ) -> f64 {
        let mut h = vec![0.0; x.len() + 1 - K];
        conv1d(x, &kernel, bias, &mut h);
        for i in 0..h.len() {
            h[i] = activate(h[i], kind);
        }
        let pooled = pool(&h);
        let y = layer_norm(&pooled, gain, 0.1);
        y.iter()
            .zip(target)
            .map(|(a, b)| (a - b).powi(2))
            .sum::<f64>()
            / target.len() as f64
    }

    fn reference(k: &[f64], bias: f64, gain: f64, x: &[f64], target: &[f64], kind: usize) -> f64 {
        let m = x.len() + 1 - k.len();
        let h: Vec<f64> = (0..m)
            .map(|i| {
                let a = bias + (0..k.len()).map(|j| k[j] * x[i + j]).sum::<f64>();
                match kind {
                    0 => a.tanh(),
                    1 => a.max(0.0),
                    2 | 3 => a / (1.0 + (-a).exp()),
                    _ => a,
                }
            })
            .collect();
        let p: Vec<f64> = h.chunks_exact(2).map(|c| 0.5 * (c[0] + c[1])).collect();
        let n = p.len() as f64;
        let mean = p.iter().sum::<f64>() / n;
        let var = p.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        p.iter()
            .zip(target)
            .map(|(v, t)| ((v - mean) / (var + 1e-5).sqrt() * gain + 0.1 - t).powi(2))
            .sum::<f64>()
            / target.len() as f64
    }

    const X: [f64; 10] = [0.1, -0.4, 0.8, 0.3, -0.9, 0.5, 0.7, -0.2, 0.0, 0.6];
    const TARGET: [f64; 4] = [0.5, -1.0, 1.2, -0.3];

    #[test]
    fn conv_jacobian_and_duality() {
        for p in points(4111, 4, 10, -1.0, 1.0) {
            let k = [p[0], p[1], p[2]];
            let mut out = vec![0.0; 8];
            conv1d(&X, &k, p[3], &mut out);
            let j = conv1d_jacobian(&X, &k, p[3], &mut [0.0; 8]);
            // Columns: x (10), kernel (3), bias (1).
            assert_eq!((j.len(), j[0].len()), (8, 14));
            for i in 0..8 {
                for c in 0..10 {
                    let expected = if c >= i && c < i + 3 { k[c - i] } else { 0.0 };
                    assert_eq!(j[i][c], expected, "d out[{i}] / d x[{c}]");
                }
                for c in 0..3 {
                    assert_eq!(j[i][10 + c], X[i + c], "d out[{i}] / d kernel[{c}]");
                }
                assert_eq!(j[i][13], 1.0);
                assert_close(
                    out[i],
                    p[3] + k[0] * X[i] + k[1] * X[i + 1] + k[2] * X[i + 2],
                    1e-15,
                    "conv",
                );
            }
            let c = wave(8, 0.2);
            let t = wave(14, 0.9);
            let (cx, ck, cb) = conv1d_vjp(&X, &k, p[3], &mut [0.0; 8], &c);
            let mut jt = vec![0.0; 8];
            conv1d_jvp(
                &X,
                &k,
                p[3],
                &mut [0.0; 8],
                (t[..10].to_vec(), arr(&t[10..]), t[13]),
                &mut jt,
            );
            let cj: Vec<f64> = cx.iter().chain(ck.iter()).copied().chain([cb]).collect();
            check_dual("conv1d", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn layer_norm_against_differences() {
        for p in points(4112, 6, 10, -1.0, 1.0) {
            let j = layer_norm_jacobian(&p[..4], p[4], p[5]);
            check_jacobian("layer_norm", &p, &j, |q| layer_norm(&q[..4], q[4], q[5]));
            // Columns of shift: all ones; the rows sum (over h) to zero: a shift of h changes nothing.
            for row in &j {
                assert_close(row[5], 1.0, 1e-15, "d / d shift");
                assert_close(row[..4].iter().sum::<f64>(), 0.0, 1e-9, "shift invariance");
            }
        }
    }

    #[test]
    fn loss_at_order_2() {
        for kind in [0, 2, 7] {
            let pts = points(4113 + kind as u64, 5, 10, -1.0, 1.0);
            for p in &pts {
                let k = arr::<3>(p);
                assert_close(
                    loss(k, p[3], p[4], &X, &TARGET, kind),
                    reference(&p[..3], p[3], p[4], &X, &TARGET, kind),
                    1e-12,
                    "conv loss",
                );
                let (_, g) = loss_grad(k, p[3], p[4], &X, &TARGET, kind);
                let (mut a, mut b, mut c) = ([f64::NAN; 3], f64::NAN, f64::NAN);
                loss_grad_into(k, p[3], p[4], &X, &TARGET, kind, (&mut a, &mut b, &mut c));
                same_bits(
                    &[a[0], a[1], a[2], b, c],
                    &[g.0[0], g.0[1], g.0[2], g.1, g.2],
                    "conv loss",
                );
            }
            let flat = |g: ([f64; 3], f64, f64)| vec![g.0[0], g.0[1], g.0[2], g.1, g.2];
            audit(
                &Items {
                    what: "conv_norm::loss",
                    primal: &|x| loss(arr::<3>(x), x[3], x[4], &X, &TARGET, kind),
                    grad: &|x| {
                        let (v, g) = loss_grad(arr(x), x[3], x[4], &X, &TARGET, kind);
                        (v, flat(g))
                    },
                    vjp: &|x, d| {
                        let (v, g) = loss_vjp(arr(x), x[3], x[4], &X, &TARGET, kind, d);
                        (v, flat(g))
                    },
                    jvp: &|x, t| {
                        loss_jvp(
                            arr::<3>(x),
                            x[3],
                            x[4],
                            &X,
                            &TARGET,
                            kind,
                            (arr(t), t[3], t[4]),
                        )
                    },
                    grad_into: &|x| {
                        let (mut a, mut b, mut c) = ([0.0; 3], 0.0, 0.0);
                        let v = loss_grad_into(
                            arr(x),
                            x[3],
                            x[4],
                            &X,
                            &TARGET,
                            kind,
                            (&mut a, &mut b, &mut c),
                        );
                        (v, flat((a, b, c)))
                    },
                    hvp: Some(&|x, v| {
                        let (f, g, hv) =
                            loss_hvp(arr(x), x[3], x[4], &X, &TARGET, kind, (arr(v), v[3], v[4]));
                        (f, flat(g), flat(hv))
                    }),
                    hessian: Some(&|x| {
                        let (f, g, h) = loss_hessian(arr(x), x[3], x[4], &X, &TARGET, kind);
                        (f, flat(g), h)
                    }),
                    analytic: None,
                },
                &pts,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) A single attention head over `[f64; 4]` vectors: a softmax helper generic over `const N`,
// projections by a `[[f64; 4]; 4]` matrix, and a loss in the query weights at `order = 2`.

mod attention {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn softmax<const N: usize>(s: [f64; N]) -> [f64; N] {
        let m = s.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let mut e = [0.0; N];
        let mut z = 0.0;
        for i in 0..N {
            e[i] = (s[i] - m).exp();
            z += e[i];
        }
        for i in 0..N {
            e[i] /= z;
        }
        e
    }

    #[differentiable]
    pub fn project(w: &[[f64; 4]; 4], x: &[f64; 4]) -> [f64; 4] {
        let mut y = [0.0; 4];
        for (i, row) in w.iter().enumerate() {
            y[i] = row.iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
        }
        y
    }

    #[differentiable]
    pub fn attend(q: [f64; 4], keys: &[[f64; 4]; 3], values: &[[f64; 4]; 3]) -> [f64; 4] {
        let scale = 1.0 / 2.0_f64; // 1 / sqrt(d) for d = 4
        let mut scores = [0.0; 3];
        for j in 0..3 {
            scores[j] = scale * q.iter().zip(&keys[j]).map(|(a, b)| a * b).sum::<f64>();
        }
        let p = softmax(scores);
        let mut out = [0.0; 4];
        for j in 0..3 {
            for d in 0..4 {
                out[d] += p[j] * values[j][d];
            }
        }
        out
    }

    #[differentiable(wrt(wq), order = 2)]
    pub fn head_loss(
        wq: [[f64; 4]; 4],
        x: [f64; 4],
        keys: &[[f64; 4]; 3],
        values: &[[f64; 4]; 3],
        target: [f64; 4],
    ) -> f64 {
        let q = project(&wq, &x);
        let out = attend(q, keys, values);
        let mut l = 0.0;
        for d in 0..4 {
            l += (out[d] - target[d]).powi(2);
        }
        0.5 * l
    }

    fn reference(
        wq: &[f64],
        x: &[f64; 4],
        keys: &[[f64; 4]; 3],
        values: &[[f64; 4]; 3],
        target: &[f64; 4],
    ) -> f64 {
        let q: Vec<f64> = (0..4)
            .map(|i| (0..4).map(|j| wq[4 * i + j] * x[j]).sum())
            .collect();
        let s: Vec<f64> = keys.iter().map(|k| 0.5 * dot(&q, k)).collect();
        let z: f64 = s.iter().map(|v| v.exp()).sum();
        let p: Vec<f64> = s.iter().map(|v| v.exp() / z).collect();
        (0..4)
            .map(|d| {
                let o: f64 = (0..3).map(|j| p[j] * values[j][d]).sum();
                0.5 * (o - target[d]).powi(2)
            })
            .sum()
    }

    const KEYS: [[f64; 4]; 3] = [
        [0.5, -0.2, 0.9, 0.1],
        [-0.7, 0.4, 0.3, 0.8],
        [0.2, 0.6, -0.5, -0.4],
    ];
    const VALUES: [[f64; 4]; 3] = [
        [1.0, 0.0, 0.5, -0.5],
        [0.0, 1.0, -0.3, 0.2],
        [0.4, -0.6, 1.0, 0.7],
    ];
    const X: [f64; 4] = [0.9, -0.4, 0.3, 0.7];
    const TARGET: [f64; 4] = [0.3, 0.2, 0.4, 0.1];

    #[test]
    fn softmax_jacobian_by_hand() {
        for p in points(4121, 3, 12, -2.0, 2.0) {
            let s = arr::<3>(&p);
            let y = softmax(s);
            let j = softmax_jacobian(s);
            for a in 0..3 {
                for b in 0..3 {
                    let e = y[a] * (if a == b { 1.0 } else { 0.0 } - y[b]);
                    assert_close(j[a][b], e, 1e-14, "softmax Jacobian by hand");
                }
            }
            let c = [0.3, -0.8, 1.4];
            let t = [1.0, 0.5, -0.2];
            let (_, cj) = softmax_vjp(s, c);
            let (_, jt) = softmax_jvp(s, t);
            check_dual("softmax", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn attend_jacobian_and_duality() {
        for p in points(4122, 4, 10, -1.5, 1.5) {
            let q = arr::<4>(&p);
            let j = attend_jacobian(q, &KEYS, &VALUES);
            // Keys and values are active too: columns q (4), keys (12), values (12).
            assert_eq!((j.len(), j[0].len()), (4, 28));
            let mut x = p.clone();
            x.extend(KEYS.iter().flatten());
            x.extend(VALUES.iter().flatten());
            check_jacobian("attend", &x, &j, |z| {
                let k: [[f64; 4]; 3] = common::contract::nested(&z[4..16]);
                let v: [[f64; 4]; 3] = common::contract::nested(&z[16..28]);
                attend(arr(z), &k, &v).to_vec()
            });
            let c = [0.2, -0.7, 1.1, 0.4];
            let t = wave(28, 0.4);
            let (_, (cq, ck, cv)) = attend_vjp(q, &KEYS, &VALUES, c);
            let tk: [[f64; 4]; 3] = common::contract::nested(&t[4..16]);
            let tv: [[f64; 4]; 3] = common::contract::nested(&t[16..28]);
            let (_, jt) = attend_jvp(q, &KEYS, &VALUES, (arr(&t), tk, tv));
            let mut cj = cq.to_vec();
            cj.extend(ck.iter().flatten());
            cj.extend(cv.iter().flatten());
            check_dual("attend", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn head_loss_at_order_2() {
        let pts = points(4123, 16, 6, -0.8, 0.8);
        let w = |x: &[f64]| -> [[f64; 4]; 4] { common::contract::nested(x) };
        let flat = |g: [[f64; 4]; 4]| g.iter().flatten().copied().collect::<Vec<f64>>();
        for p in &pts {
            assert_close(
                head_loss(w(p), X, &KEYS, &VALUES, TARGET),
                reference(p, &X, &KEYS, &VALUES, &TARGET),
                1e-13,
                "head_loss",
            );
            let (_, g) = head_loss_grad(w(p), X, &KEYS, &VALUES, TARGET);
            let mut buf = [[f64::NAN; 4]; 4];
            head_loss_grad_into(w(p), X, &KEYS, &VALUES, TARGET, &mut buf);
            same_bits(&flat(buf), &flat(g), "head_loss");
        }
        audit(
            &Items {
                what: "attention::head_loss",
                primal: &|x| head_loss(w(x), X, &KEYS, &VALUES, TARGET),
                grad: &|x| {
                    let (v, g) = head_loss_grad(w(x), X, &KEYS, &VALUES, TARGET);
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (v, g) = head_loss_vjp(w(x), X, &KEYS, &VALUES, TARGET, d);
                    (v, flat(g))
                },
                jvp: &|x, t| head_loss_jvp(w(x), X, &KEYS, &VALUES, TARGET, w(t)),
                grad_into: &|x| {
                    let mut b = [[0.0; 4]; 4];
                    let v = head_loss_grad_into(w(x), X, &KEYS, &VALUES, TARGET, &mut b);
                    (v, flat(b))
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = head_loss_hvp(w(x), X, &KEYS, &VALUES, TARGET, w(v));
                    (f, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = head_loss_hessian(w(x), X, &KEYS, &VALUES, TARGET);
                    (f, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) Robust regression with the Huber loss: an `if` on `abs`, a prediction helper over `zip`, rows
// `&[Vec<f64>]` inactive under `wrt(w, b)`, at `order = 2` with the Hessian by hand.

mod robust {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn huber(r: f64, delta: f64) -> f64 {
        let a = r.abs();
        if a <= delta {
            0.5 * r * r
        } else {
            delta * (a - 0.5 * delta)
        }
    }

    #[differentiable]
    pub fn predict(w: &[f64], b: f64, x: &[f64]) -> f64 {
        w.iter().zip(x).map(|(wi, xi)| wi * xi).sum::<f64>() + b
    }

    #[differentiable(wrt(w, b), order = 2)]
    pub fn objective(
        w: &[f64],
        b: f64,
        xs: &[Vec<f64>],
        ys: &[f64],
        delta: f64,
        lambda: f64,
    ) -> f64 {
        let mut total = 0.0;
        for (x, &y) in xs.iter().zip(ys) {
            total += huber(predict(w, b, x) - y, delta);
        }
        total / ys.len() as f64 + lambda * w.iter().map(|v| v * v).sum::<f64>()
    }

    fn data() -> (Vec<Vec<f64>>, Vec<f64>) {
        let mut r = Inputs(4131);
        let xs = r.rows(12, 3);
        let ys = xs
            .iter()
            .enumerate()
            .map(|(i, x)| 0.5 * x[0] - x[1] + 0.3 + if i % 4 == 0 { 3.0 } else { 0.1 * r.next() })
            .collect();
        (xs, ys)
    }

    #[test]
    fn huber_derivatives_by_hand() {
        for r in [-2.5, -0.7, -0.1, 0.3, 0.9, 1.7] {
            let (v, (gr, gd)) = huber_grad(r, 1.0);
            assert_eq!(v, huber(r, 1.0));
            if r.abs() <= 1.0 {
                assert_eq!((gr, gd), (r, 0.0));
            } else {
                assert_eq!(gr, r.signum());
                assert_close(gd, r.abs() - 1.0, 1e-15, "d huber / d delta");
            }
        }
    }

    #[test]
    fn objective_gradient_and_hessian_by_hand() {
        let (xs, ys) = data();
        let (delta, lambda) = (0.8, 0.05);
        let reference = |p: &[f64]| {
            xs.iter()
                .zip(&ys)
                .map(|(x, y)| {
                    let r = p[0] * x[0] + p[1] * x[1] + p[2] * x[2] + p[3] - y;
                    if r.abs() <= delta {
                        0.5 * r * r
                    } else {
                        delta * (r.abs() - 0.5 * delta)
                    }
                })
                .sum::<f64>()
                / 12.0
                + lambda * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
        };
        // Points whose residuals are all away from the kinks at |r| = delta.
        let pts: Vec<Vec<f64>> = points(4132, 4, 40, -1.0, 1.0)
            .into_iter()
            .filter(|p| {
                xs.iter().zip(&ys).all(|(x, y)| {
                    let r = p[0] * x[0] + p[1] * x[1] + p[2] * x[2] + p[3] - y;
                    (r.abs() - delta).abs() > 1e-3
                })
            })
            .take(12)
            .collect();
        assert!(pts.len() >= 10);
        for p in &pts {
            assert_close(
                objective(&p[..3], p[3], &xs, &ys, delta, lambda),
                reference(p),
                1e-14,
                "huber objective",
            );
            let (_, _, h) = objective_hessian(&p[..3], p[3], &xs, &ys, delta, lambda);
            // H = (1/n) sum over inliers of [x, 1][x, 1]^T + 2 lambda on w.
            let mut e = vec![vec![0.0; 4]; 4];
            for (x, y) in xs.iter().zip(&ys) {
                let r = p[0] * x[0] + p[1] * x[1] + p[2] * x[2] + p[3] - y;
                if r.abs() <= delta {
                    let z = [x[0], x[1], x[2], 1.0];
                    for a in 0..4 {
                        for b in 0..4 {
                            e[a][b] += z[a] * z[b] / 12.0;
                        }
                    }
                }
            }
            for a in 0..3 {
                e[a][a] += 2.0 * lambda;
            }
            for a in 0..4 {
                assert_all_close(&h[a], &e[a], 1e-12, "huber Hessian by hand");
            }
            let (_, g) = objective_grad(&p[..3], p[3], &xs, &ys, delta, lambda);
            let (mut bw, mut bb) = (vec![f64::NAN; 3], f64::NAN);
            objective_grad_into(&p[..3], p[3], &xs, &ys, delta, lambda, (&mut bw, &mut bb));
            same_bits(
                &[bw[0], bw[1], bw[2], bb],
                &[g.0[0], g.0[1], g.0[2], g.1],
                "huber objective",
            );
        }
        let flat = |g: (Vec<f64>, f64)| vec![g.0[0], g.0[1], g.0[2], g.1];
        audit(
            &Items {
                what: "robust::objective",
                primal: &|x| objective(&x[..3], x[3], &xs, &ys, delta, lambda),
                grad: &|x| {
                    let (v, g) = objective_grad(&x[..3], x[3], &xs, &ys, delta, lambda);
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (v, g) = objective_vjp(&x[..3], x[3], &xs, &ys, delta, lambda, d);
                    (v, flat(g))
                },
                jvp: &|x, t| {
                    objective_jvp(
                        &x[..3],
                        x[3],
                        &xs,
                        &ys,
                        delta,
                        lambda,
                        (t[..3].to_vec(), t[3]),
                    )
                },
                grad_into: &|x| {
                    let (mut bw, mut bb) = (vec![0.0; 3], 0.0);
                    let v = objective_grad_into(
                        &x[..3],
                        x[3],
                        &xs,
                        &ys,
                        delta,
                        lambda,
                        (&mut bw, &mut bb),
                    );
                    (v, flat((bw, bb)))
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = objective_hvp(
                        &x[..3],
                        x[3],
                        &xs,
                        &ys,
                        delta,
                        lambda,
                        (v[..3].to_vec(), v[3]),
                    );
                    (f, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = objective_hessian(&x[..3], x[3], &xs, &ys, delta, lambda);
                    (f, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) Mean-variance portfolio: weights by a softmax of logits (`const N`), the variance over a
// covariance `&[Vec<f64>]` (its gradient in both by hand), and the utility at `order = 2`.

mod portfolio {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn weights<const N: usize>(logits: &[f64; N]) -> [f64; N] {
        let m = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut w = [0.0; N];
        for i in 0..N {
            w[i] = (logits[i] - m).exp();
        }
        let total: f64 = w.iter().sum();
        for i in 0..N {
            w[i] /= total;
        }
        w
    }

    #[differentiable]
    pub fn variance(w: &[f64], cov: &[Vec<f64>]) -> f64 {
        let mut v = 0.0;
        for i in 0..w.len() {
            for j in 0..w.len() {
                v += w[i] * cov[i][j] * w[j];
            }
        }
        v
    }

    #[differentiable(wrt(logits), order = 2)]
    pub fn utility<const N: usize>(
        logits: [f64; N],
        mu: &[f64; N],
        cov: &[Vec<f64>],
        risk_aversion: f64,
    ) -> f64 {
        let w = weights(&logits);
        let ret: f64 = w.iter().zip(mu).map(|(a, b)| a * b).sum();
        ret - 0.5 * risk_aversion * variance(&w, cov)
    }

    fn cov() -> Vec<Vec<f64>> {
        vec![
            vec![0.04, 0.006, -0.004, 0.002],
            vec![0.006, 0.09, 0.01, 0.0],
            vec![-0.004, 0.01, 0.0625, 0.005],
            vec![0.002, 0.0, 0.005, 0.01],
        ]
    }
    const MU: [f64; 4] = [0.06, 0.1, 0.08, 0.03];

    #[test]
    fn variance_gradient_by_hand() {
        let mut r = Inputs(4141);
        for _ in 0..10 {
            let w = r.vec(3);
            let c = r.rows(3, 3);
            let (v, (gw, gc)) = variance_grad(&w, &c);
            assert_close(v, variance(&w, &c), 0.0, "variance");
            for i in 0..3 {
                let e: f64 = (0..3).map(|j| (c[i][j] + c[j][i]) * w[j]).sum();
                assert_close(gw[i], e, 1e-14, "d variance / d w");
                for j in 0..3 {
                    assert_close(gc[i][j], w[i] * w[j], 1e-15, "d variance / d cov");
                }
            }
            let (mut bw, mut bc) = (vec![f64::NAN; 3], vec![vec![f64::NAN; 3]; 3]);
            variance_grad_into(&w, &c, (&mut bw, &mut bc));
            same_bits(&bw, &gw, "variance w");
            same_bits(&bc.concat(), &gc.concat(), "variance cov");
        }
    }

    #[test]
    fn weights_jacobian_and_utility_at_order_2() {
        let c = cov();
        let reference = |l: &[f64]| {
            let z: f64 = l.iter().map(|v| v.exp()).sum();
            let w: Vec<f64> = l.iter().map(|v| v.exp() / z).collect();
            let mut var = 0.0;
            for i in 0..4 {
                for j in 0..4 {
                    var += w[i] * c[i][j] * w[j];
                }
            }
            dot(&w, &MU) - 0.5 * 3.0 * var
        };
        let pts = points(4142, 4, 12, -1.5, 1.5);
        for p in &pts {
            let l = arr::<4>(p);
            assert_close(utility(l, &MU, &c, 3.0), reference(p), 1e-14, "utility");
            let j = weights_jacobian(&l);
            check_jacobian("weights", p, &j, |q| weights(&arr::<4>(q)).to_vec());
            let (_, g) = utility_grad(l, &MU, &c, 3.0);
            let mut b = [f64::NAN; 4];
            let v = utility_grad_into(l, &MU, &c, 3.0, &mut b);
            assert_eq!(v, utility(l, &MU, &c, 3.0));
            same_bits(&b, &g, "utility");
            // Shifting every logit changes nothing: the gradient sums to zero, so do the Hessian's rows.
            assert_close(
                g.iter().sum::<f64>(),
                0.0,
                1e-14,
                "utility shift invariance",
            );
            let (_, _, h) = utility_hessian(l, &MU, &c, 3.0);
            for row in &h {
                assert_close(
                    row.iter().sum::<f64>(),
                    0.0,
                    1e-12,
                    "Hessian shift invariance",
                );
            }
        }
        audit(
            &Items {
                what: "portfolio::utility",
                primal: &|x| utility(arr::<4>(x), &MU, &c, 3.0),
                grad: &|x| {
                    let (v, g) = utility_grad(arr::<4>(x), &MU, &c, 3.0);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = utility_vjp(arr::<4>(x), &MU, &c, 3.0, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| utility_jvp(arr::<4>(x), &MU, &c, 3.0, arr(t)),
                grad_into: &|x| {
                    let mut b = [0.0; 4];
                    let v = utility_grad_into(arr::<4>(x), &MU, &c, 3.0, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = utility_hvp(arr::<4>(x), &MU, &c, 3.0, arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = utility_hessian(arr::<4>(x), &MU, &c, 3.0);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) A two-body orbit by leapfrog: the acceleration with `hypot`, the state as `[f64; 4]` returned
// from the integrator (its `_jacobian`), and an energy-drift plus swept-angle (`atan2`) loss at
// `order = 2`.

mod orbit {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    #[differentiable]
    pub fn accel(p: [f64; 2], mu: f64) -> [f64; 2] {
        let r = p[0].hypot(p[1]);
        let k = -mu / (r * r * r);
        [k * p[0], k * p[1]]
    }

    #[differentiable]
    pub fn energy(state: &[f64; 4], mu: f64) -> f64 {
        0.5 * (state[2] * state[2] + state[3] * state[3]) - mu / state[0].hypot(state[1])
    }

    #[differentiable(wrt(state, mu))]
    pub fn leapfrog(state: [f64; 4], mu: f64, dt: f64, steps: usize) -> [f64; 4] {
        let mut p = [state[0], state[1]];
        let mut v = [state[2], state[3]];
        let mut a: [f64; 2] = accel(p, mu);
        for _ in 0..steps {
            for d in 0..2 {
                v[d] += 0.5 * dt * a[d];
                p[d] += dt * v[d];
            }
            a = accel(p, mu);
            for d in 0..2 {
                v[d] += 0.5 * dt * a[d];
            }
        }
        [p[0], p[1], v[0], v[1]]
    }

    #[differentiable(wrt(state, mu), order = 2)]
    pub fn drift_loss(state: [f64; 4], mu: f64, dt: f64, steps: usize) -> f64 {
        let end = leapfrog(state, mu, dt, steps);
        let drift = energy(&end, mu) - energy(&state, mu);
        let swept = end[1].atan2(end[0]) - state[1].atan2(state[0]);
        let swept = if swept < 0.0 { swept + 2.0 * PI } else { swept };
        1e3 * drift * drift + (swept - 0.5 * PI).powi(2)
    }

    fn reference_step(s: &[f64], mu: f64, dt: f64, steps: usize) -> Vec<f64> {
        let acc = |x: f64, y: f64| {
            let r3 = (x * x + y * y).powf(1.5);
            (-mu * x / r3, -mu * y / r3)
        };
        let (mut x, mut y, mut vx, mut vy) = (s[0], s[1], s[2], s[3]);
        for _ in 0..steps {
            let (ax, ay) = acc(x, y);
            vx += 0.5 * dt * ax;
            vy += 0.5 * dt * ay;
            x += dt * vx;
            y += dt * vy;
            let (ax, ay) = acc(x, y);
            vx += 0.5 * dt * ax;
            vy += 0.5 * dt * ay;
        }
        vec![x, y, vx, vy]
    }

    fn reference_loss(s: &[f64], mu: f64, dt: f64, steps: usize) -> f64 {
        let e = reference_step(s, mu, dt, steps);
        let en =
            |q: &[f64]| 0.5 * (q[2] * q[2] + q[3] * q[3]) - mu / (q[0] * q[0] + q[1] * q[1]).sqrt();
        let drift = en(&e) - en(s);
        let mut swept = e[1].atan2(e[0]) - s[1].atan2(s[0]);
        if swept < 0.0 {
            swept += 2.0 * PI;
        }
        1e3 * drift * drift + (swept - 0.5 * PI).powi(2)
    }

    /// Near-circular orbits of radius about 1, starting anywhere on the circle.
    fn states(seed: u64) -> Vec<Vec<f64>> {
        points(seed, 4, 10, -1.0, 1.0)
            .into_iter()
            .map(|p| {
                let angle = 3.0 * p[0];
                let r = 1.0 + 0.1 * p[1];
                let speed = 1.0 + 0.1 * p[2];
                vec![
                    r * angle.cos(),
                    r * angle.sin(),
                    -speed * angle.sin(),
                    speed * angle.cos(),
                    1.0 + 0.1 * p[3],
                ]
            })
            .collect()
    }

    #[test]
    fn accel_by_hand_and_leapfrog_jacobian() {
        for s in states(4151) {
            let p = [s[0], s[1]];
            let (_, (gp, gmu)) = accel_vjp(p, s[4], [1.0, 0.0]);
            let r = p[0].hypot(p[1]);
            assert_close(
                gp[0],
                -s[4] * (1.0 / r.powi(3) - 3.0 * p[0] * p[0] / r.powi(5)),
                1e-12,
                "d ax / d x",
            );
            assert_close(
                gp[1],
                3.0 * s[4] * p[0] * p[1] / r.powi(5),
                1e-12,
                "d ax / d y",
            );
            assert_close(gmu, -p[0] / r.powi(3), 1e-12, "d ax / d mu");
            let st = arr::<4>(&s);
            let end = leapfrog(st, s[4], 0.05, 20);
            assert_all_close(&end, &reference_step(&s, s[4], 0.05, 20), 1e-12, "leapfrog");
            let j = leapfrog_jacobian(st, s[4], 0.05, 20);
            assert_eq!((j.len(), j[0].len()), (4, 5));
            check_jacobian("leapfrog", &s, &j, |q| reference_step(q, q[4], 0.05, 20));
            let c = [0.5, -0.3, 0.8, 1.1];
            let t = wave(5, 0.1);
            let (_, (cs, cmu)) = leapfrog_vjp(st, s[4], 0.05, 20, c);
            let (_, jt) = leapfrog_jvp(st, s[4], 0.05, 20, (arr(&t), t[4]));
            let mut cj = cs.to_vec();
            cj.push(cmu);
            check_dual("leapfrog", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn drift_loss_at_order_2() {
        let pts = states(4152);
        for p in &pts {
            assert_close(
                drift_loss(arr(p), p[4], 0.05, 20),
                reference_loss(p, p[4], 0.05, 20),
                1e-10,
                "drift_loss",
            );
            let (_, g) = drift_loss_grad(arr(p), p[4], 0.05, 20);
            let (mut bs, mut bm) = ([f64::NAN; 4], f64::NAN);
            drift_loss_grad_into(arr(p), p[4], 0.05, 20, (&mut bs, &mut bm));
            same_bits(
                &[bs[0], bs[1], bs[2], bs[3], bm],
                &[g.0[0], g.0[1], g.0[2], g.0[3], g.1],
                "drift_loss",
            );
        }
        let flat = |g: ([f64; 4], f64)| vec![g.0[0], g.0[1], g.0[2], g.0[3], g.1];
        audit(
            &Items {
                what: "orbit::drift_loss",
                primal: &|x| drift_loss(arr(x), x[4], 0.05, 20),
                grad: &|x| {
                    let (v, g) = drift_loss_grad(arr(x), x[4], 0.05, 20);
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (v, g) = drift_loss_vjp(arr(x), x[4], 0.05, 20, d);
                    (v, flat(g))
                },
                jvp: &|x, t| drift_loss_jvp(arr(x), x[4], 0.05, 20, (arr(t), t[4])),
                grad_into: &|x| {
                    let (mut bs, mut bm) = ([0.0; 4], 0.0);
                    let v = drift_loss_grad_into(arr(x), x[4], 0.05, 20, (&mut bs, &mut bm));
                    (v, flat((bs, bm)))
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = drift_loss_hvp(arr(x), x[4], 0.05, 20, (arr(v), v[4]));
                    (f, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = drift_loss_hessian(arr(x), x[4], 0.05, 20);
                    (f, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) Quaternion rotation of points: a normalising helper (`max(f64::EPSILON)`), the Hamilton product
// nested in a call, rotation by `q p q*` (its `_jacobian`), and an alignment loss at `order = 2`.

mod quaternion {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn normalize(q: [f64; 4]) -> [f64; 4] {
        let n = q
            .iter()
            .map(|c| c * c)
            .sum::<f64>()
            .sqrt()
            .max(f64::EPSILON);
        [q[0] / n, q[1] / n, q[2] / n, q[3] / n]
    }

    #[differentiable]
    pub fn hamilton(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
        [
            a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
        ]
    }

    #[differentiable]
    pub fn rotate(q: [f64; 4], p: [f64; 3]) -> [f64; 3] {
        let u = normalize(q);
        let conj = [u[0], -u[1], -u[2], -u[3]];
        let r = hamilton(hamilton(u, [0.0, p[0], p[1], p[2]]), conj);
        [r[1], r[2], r[3]]
    }

    #[differentiable(wrt(q), order = 2)]
    pub fn alignment(q: [f64; 4], src: &[[f64; 3]; 3], dst: &[[f64; 3]; 3]) -> f64 {
        let mut total = 0.0;
        // A row of the constant `src` passed by value (`*s`): before, the generated code read its
        // bounds from row offsets it had not made (rustc's E0425, `src_rows` not found).
        for (s, d) in src.iter().zip(dst.iter()) {
            let r = rotate(q, *s);
            total += (r[0] - d[0]).powi(2) + (r[1] - d[1]).powi(2) + (r[2] - d[2]).powi(2);
        }
        total
    }

    /// The rotation matrix of a unit quaternion, as a textbook writes it.
    fn matrix(q: &[f64]) -> [[f64; 3]; 3] {
        let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
        let (w, x, y, z) = (q[0] / n, q[1] / n, q[2] / n, q[3] / n);
        [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - w * z),
                2.0 * (x * z + w * y),
            ],
            [
                2.0 * (x * y + w * z),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - w * x),
            ],
            [
                2.0 * (x * z - w * y),
                2.0 * (y * z + w * x),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ]
    }

    fn by_matrix(q: &[f64], p: &[f64]) -> Vec<f64> {
        let m = matrix(q);
        (0..3)
            .map(|i| (0..3).map(|j| m[i][j] * p[j]).sum())
            .collect()
    }

    const SRC: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.3, -0.2, 1.0]];

    fn dst() -> [[f64; 3]; 3] {
        let q = [0.9, 0.2, -0.3, 0.25];
        let mut d = [[0.0; 3]; 3];
        for k in 0..3 {
            let r = by_matrix(&q, &SRC[k]);
            d[k] = [r[0] + 0.01, r[1] - 0.02, r[2]];
        }
        d
    }

    #[test]
    fn rotate_against_matrix_and_jacobian() {
        for p in points(4161, 7, 12, -1.0, 1.0) {
            let q = arr::<4>(&p);
            let pt = [p[4], p[5], p[6]];
            assert_all_close(
                &rotate(q, pt),
                &by_matrix(&p[..4], &pt),
                1e-13,
                "rotate vs matrix",
            );
            let j = rotate_jacobian(q, pt);
            assert_eq!((j.len(), j[0].len()), (3, 7));
            check_jacobian("rotate", &p, &j, |z| by_matrix(&z[..4], &z[4..]));
            // In p the Jacobian is the rotation matrix itself.
            let m = matrix(&p[..4]);
            for i in 0..3 {
                assert_all_close(&j[i][4..], &m[i], 1e-13, "d rotate / d p");
            }
            let c = [0.3, 1.2, -0.5];
            let t = wave(7, 2.0);
            let (_, (cq, cp)) = rotate_vjp(q, pt, c);
            let (_, jt) = rotate_jvp(q, pt, (arr(&t), arr(&t[4..])));
            let cj: Vec<f64> = cq.iter().chain(cp.iter()).copied().collect();
            check_dual("rotate", &c, &jt, &cj, &t);
        }
    }

    #[test]
    fn alignment_at_order_2() {
        let d = dst();
        let reference = |q: &[f64]| {
            (0..3)
                .map(|k| {
                    let r = by_matrix(q, &SRC[k]);
                    (0..3).map(|i| (r[i] - d[k][i]).powi(2)).sum::<f64>()
                })
                .sum::<f64>()
        };
        let pts: Vec<Vec<f64>> = points(4162, 4, 10, -1.0, 1.0)
            .into_iter()
            .map(|mut p| {
                p[0] += 1.5;
                p
            })
            .collect();
        for p in &pts {
            assert_close(
                alignment(arr(p), &SRC, &d),
                reference(p),
                1e-13,
                "alignment vs the matrix",
            );
            let (_, g) = alignment_grad(arr(p), &SRC, &d);
            // Scaling q changes nothing: the gradient is orthogonal to q.
            assert_close(dot(&g, p), 0.0, 1e-12, "alignment scale invariance");
            let mut b = [f64::NAN; 4];
            alignment_grad_into(arr(p), &SRC, &d, &mut b);
            same_bits(&b, &g, "alignment");
        }
        audit(
            &Items {
                what: "quaternion::alignment",
                primal: &|x| alignment(arr(x), &SRC, &d),
                grad: &|x| {
                    let (v, g) = alignment_grad(arr(x), &SRC, &d);
                    (v, g.to_vec())
                },
                vjp: &|x, dr| {
                    let (v, g) = alignment_vjp(arr(x), &SRC, &d, dr);
                    (v, g.to_vec())
                },
                jvp: &|x, t| alignment_jvp(arr(x), &SRC, &d, arr(t)),
                grad_into: &|x| {
                    let mut b = [0.0; 4];
                    let v = alignment_grad_into(arr(x), &SRC, &d, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = alignment_hvp(arr(x), &SRC, &d, arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = alignment_hessian(arr(x), &SRC, &d);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) The length of a cubic Bézier curve by 5-point Gauss-Legendre quadrature: nodes and weights
// as module `const` arrays zipped in the body, the derivative from a helper returning a tuple, and
// the length in the control points `[[f64; 2]; 4]` at `order = 2`.

mod bezier {
    use super::*;
    use autodiff::differentiable;

    const NODES: [f64; 5] = [
        -0.906_179_845_938_664,
        -0.538_469_310_105_683,
        0.0,
        0.538_469_310_105_683,
        0.906_179_845_938_664,
    ];
    const WEIGHTS: [f64; 5] = [
        0.236_926_885_056_189,
        0.478_628_670_499_366,
        0.568_888_888_888_889,
        0.478_628_670_499_366,
        0.236_926_885_056_189,
    ];

    /// The derivative of the curve at `t`.
    #[differentiable]
    pub fn velocity(ctrl: &[[f64; 2]; 4], t: f64) -> (f64, f64) {
        let s = 1.0 - t;
        let (a, b, c) = (3.0 * s * s, 6.0 * s * t, 3.0 * t * t);
        let dx = a * (ctrl[1][0] - ctrl[0][0])
            + b * (ctrl[2][0] - ctrl[1][0])
            + c * (ctrl[3][0] - ctrl[2][0]);
        let dy = a * (ctrl[1][1] - ctrl[0][1])
            + b * (ctrl[2][1] - ctrl[1][1])
            + c * (ctrl[3][1] - ctrl[2][1]);
        (dx, dy)
    }

    #[differentiable(order = 2)]
    pub fn length(ctrl: [[f64; 2]; 4]) -> f64 {
        let mut total = 0.0;
        for k in 0..NODES.len() {
            let t = 0.5 * (NODES[k] + 1.0);
            let (dx, dy) = velocity(&ctrl, t);
            total += 0.5 * WEIGHTS[k] * dx.hypot(dy);
        }
        total
    }

    fn reference(c: &[f64]) -> f64 {
        let mut total = 0.0;
        for k in 0..5 {
            let t = 0.5 * (NODES[k] + 1.0);
            let s = 1.0 - t;
            let d = |i: usize| {
                3.0 * s * s * (c[2 + i] - c[i])
                    + 6.0 * s * t * (c[4 + i] - c[2 + i])
                    + 3.0 * t * t * (c[6 + i] - c[4 + i])
            };
            total += 0.5 * WEIGHTS[k] * (d(0) * d(0) + d(1) * d(1)).sqrt();
        }
        total
    }

    fn polyline(c: &[f64], n: usize) -> f64 {
        let at = |t: f64| {
            let s = 1.0 - t;
            let b = [s * s * s, 3.0 * s * s * t, 3.0 * s * t * t, t * t * t];
            (
                (0..4).map(|i| b[i] * c[2 * i]).sum::<f64>(),
                (0..4).map(|i| b[i] * c[2 * i + 1]).sum::<f64>(),
            )
        };
        (0..n)
            .map(|i| {
                let (a, b) = (at(i as f64 / n as f64), at((i + 1) as f64 / n as f64));
                (b.0 - a.0).hypot(b.1 - a.1)
            })
            .sum()
    }

    fn ctrl(x: &[f64]) -> [[f64; 2]; 4] {
        common::contract::nested(x)
    }

    fn flat(g: [[f64; 2]; 4]) -> Vec<f64> {
        g.iter().flatten().copied().collect()
    }

    #[test]
    fn length_at_order_2() {
        let pts: Vec<Vec<f64>> = points(4171, 8, 10, -0.5, 0.5)
            .into_iter()
            .map(|p| {
                // A curve running left to right, so its speed stays away from zero.
                p.iter()
                    .enumerate()
                    .map(|(i, v)| if i % 2 == 0 { v + (i / 2) as f64 } else { *v })
                    .collect()
            })
            .collect();
        for p in &pts {
            let l = length(ctrl(p));
            assert_close(l, reference(p), 1e-13, "length vs reference");
            assert_close(l, polyline(p, 4000), 1e-3, "length vs a polyline");
            // A straight segment's length is exact.
            let line = [
                [0.0, 0.0],
                [1.0, p[1]],
                [2.0, 2.0 * p[1]],
                [3.0, 3.0 * p[1]],
            ];
            assert_close(
                length(line),
                3.0 * (1.0 + p[1] * p[1]).sqrt(),
                1e-12,
                "segment",
            );
            let (_, g) = length_grad(ctrl(p));
            let mut b = [[f64::NAN; 2]; 4];
            length_grad_into(ctrl(p), &mut b);
            same_bits(&flat(b), &flat(g), "length");
            // Translating the curve changes nothing: the gradient sums to zero per coordinate.
            assert_close(
                (0..4).map(|i| g[i][0]).sum::<f64>(),
                0.0,
                1e-12,
                "translation in x",
            );
            assert_close(
                (0..4).map(|i| g[i][1]).sum::<f64>(),
                0.0,
                1e-12,
                "translation in y",
            );
        }
        audit(
            &Items {
                what: "bezier::length",
                primal: &|x| length(ctrl(x)),
                grad: &|x| {
                    let (v, g) = length_grad(ctrl(x));
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (v, g) = length_vjp(ctrl(x), d);
                    (v, flat(g))
                },
                jvp: &|x, t| length_jvp(ctrl(x), ctrl(t)),
                grad_into: &|x| {
                    let mut b = [[0.0; 2]; 4];
                    let v = length_grad_into(ctrl(x), &mut b);
                    (v, flat(b))
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = length_hvp(ctrl(x), ctrl(v));
                    (f, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = length_hessian(ctrl(x));
                    (f, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) A one-compartment pharmacokinetic model with first-order absorption: the Bateman function, repeated
// doses every `tau` by `while t < t_end && k < max_doses`, and a log-scale fit in log-parameters.

mod pk {
    use super::*;
    use autodiff::differentiable;

    /// The concentration `t` hours after one dose.
    #[differentiable]
    pub fn bateman(dose: f64, ka: f64, ke: f64, v: f64, t: f64) -> f64 {
        dose * ka / (v * (ka - ke)) * ((-ke * t).exp() - (-ka * t).exp())
    }

    /// The concentration at `t_obs` after doses at `0, tau, 2 tau, ...` before it.
    #[differentiable(wrt(ka, ke, v), order = 2)]
    pub fn concentration(
        ka: f64,
        ke: f64,
        v: f64,
        dose: f64,
        tau: f64,
        t_obs: f64,
        max_doses: usize,
    ) -> f64 {
        let mut t = 0.0;
        let mut k = 0;
        let mut c = 0.0;
        while t < t_obs && k < max_doses {
            c += bateman(dose, ka, ke, v, t_obs - t);
            t += tau;
            k += 1;
        }
        c
    }

    #[differentiable(wrt(theta), order = 2)]
    pub fn fit(theta: &[f64], times: &[f64], observed: &[f64], dose: f64) -> f64 {
        let (ka, ke, v) = (theta[0].exp(), theta[1].exp(), theta[2].exp());
        let mut sse = 0.0;
        for (&t, &y) in times.iter().zip(observed) {
            let c = concentration(ka, ke, v, dose, 12.0, t, 3);
            let r = c.ln() - y.ln();
            sse += r * r;
        }
        sse
    }

    fn reference(ka: f64, ke: f64, v: f64, dose: f64, tau: f64, t_obs: f64, max: usize) -> f64 {
        (0..max)
            .map(|k| k as f64 * tau)
            .filter(|&t| t < t_obs)
            .map(|t| {
                let s = t_obs - t;
                dose * ka / (v * (ka - ke)) * ((-ke * s).exp() - (-ka * s).exp())
            })
            .sum()
    }

    const TIMES: [f64; 6] = [1.0, 4.0, 10.0, 14.0, 26.0, 40.0];
    const OBS: [f64; 6] = [2.1, 3.0, 1.6, 3.2, 3.5, 1.2];

    #[test]
    fn concentration_by_hand() {
        for p in points(4181, 4, 12, 0.0, 1.0) {
            let (ka, ke, v) = (0.8 + p[0], 0.05 + 0.2 * p[1], 20.0 + 20.0 * p[2]);
            let t_obs = 1.0 + 40.0 * p[3];
            let c = concentration(ka, ke, v, 100.0, 12.0, t_obs, 3);
            assert_close(
                c,
                reference(ka, ke, v, 100.0, 12.0, t_obs, 3),
                1e-13,
                "concentration",
            );
            let (value, (gka, gke, gv)) = concentration_grad(ka, ke, v, 100.0, 12.0, t_obs, 3);
            assert_eq!(value, c);
            // c is proportional to 1 / v.
            assert_close(gv, -c / v, 1e-13, "d c / d v");
            let fd = fd_jacobian(
                |q| vec![reference(q[0], q[1], q[2], 100.0, 12.0, t_obs, 3)],
                &[ka, ke, v],
            );
            assert_all_close(
                &[gka, gke, gv],
                &fd[0],
                1e-7,
                "concentration gradient vs differences",
            );
            let (mut a, mut b, mut d) = (f64::NAN, f64::NAN, f64::NAN);
            concentration_grad_into(ka, ke, v, 100.0, 12.0, t_obs, 3, (&mut a, &mut b, &mut d));
            same_bits(&[a, b, d], &[gka, gke, gv], "concentration");
            let (_, _, h) = concentration_hessian(ka, ke, v, 100.0, 12.0, t_obs, 3);
            // d2 c / d v2 = 2 c / v^2.
            assert_close(h[2][2], 2.0 * c / (v * v), 1e-12, "d2 c / d v2");
            let flat_grad = |q: &[f64]| {
                let (_, g) = concentration_grad(q[0], q[1], q[2], 100.0, 12.0, t_obs, 3);
                vec![g.0, g.1, g.2]
            };
            let hd = fd_jacobian(flat_grad, &[ka, ke, v]);
            for i in 0..3 {
                assert_all_close(&h[i], &hd[i], 1e-6, "concentration Hessian vs differences");
            }
            // One dose only when t_obs < tau: the `while` stops on its time condition.
            if t_obs < 12.0 {
                assert_close(c, bateman(100.0, ka, ke, v, t_obs), 1e-15, "one dose");
            }
            // The count condition: with max_doses = 1, one dose whatever t_obs.
            assert_close(
                concentration(ka, ke, v, 100.0, 12.0, t_obs, 1),
                bateman(100.0, ka, ke, v, t_obs),
                1e-15,
                "max",
            );
        }
    }

    #[test]
    fn fit_at_order_2() {
        let reference_fit = |th: &[f64]| {
            TIMES
                .iter()
                .zip(&OBS)
                .map(|(&t, &y)| {
                    (reference(th[0].exp(), th[1].exp(), th[2].exp(), 100.0, 12.0, t, 3).ln()
                        - y.ln())
                    .powi(2)
                })
                .sum::<f64>()
        };
        let pts: Vec<Vec<f64>> = points(4182, 3, 10, -0.3, 0.3)
            .into_iter()
            .map(|p| vec![p[0], -2.3 + p[1], 3.3 + p[2]])
            .collect();
        for p in &pts {
            assert_close(
                fit(p, &TIMES, &OBS, 100.0),
                reference_fit(p),
                1e-12,
                "pk fit",
            );
            let (_, g) = fit_grad(p, &TIMES, &OBS, 100.0);
            let mut b = vec![f64::NAN; 3];
            fit_grad_into(p, &TIMES, &OBS, 100.0, &mut b);
            same_bits(&b, &g, "pk fit");
        }
        audit(
            &Items {
                what: "pk::fit",
                primal: &|x| fit(x, &TIMES, &OBS, 100.0),
                grad: &|x| fit_grad(x, &TIMES, &OBS, 100.0),
                vjp: &|x, d| fit_vjp(x, &TIMES, &OBS, 100.0, d),
                jvp: &|x, t| fit_jvp(x, &TIMES, &OBS, 100.0, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![0.0; 3];
                    let v = fit_grad_into(x, &TIMES, &OBS, 100.0, &mut b);
                    (v, b)
                },
                hvp: Some(&|x, v| fit_hvp(x, &TIMES, &OBS, 100.0, v.to_vec())),
                hessian: Some(&|x| fit_hessian(x, &TIMES, &OBS, 100.0)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) A linear SVM: the margin helper takes an integer label, the hinge by `max(0.0)` inside a `map`
// closure over `zip`, an L2 penalty; the gradient and the Hessian (`lambda I` on `w`) by hand.

mod svm {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn margin(w: &[f64], b: f64, x: &[f64], label: i32) -> f64 {
        label as f64 * (w.iter().zip(x).map(|(a, c)| a * c).sum::<f64>() + b)
    }

    #[differentiable(wrt(w, b), order = 2)]
    pub fn objective(w: &[f64], b: f64, xs: &[Vec<f64>], labels: &[i32], lambda: f64) -> f64 {
        // A row of `xs` lent to a call from a closure (`margin(w, b, x, y)`): before, the generic copy of
        // `order = 2` bound it by value (`for &x in xs.iter()`), rustc's E0308 in generated code.
        let hinge: f64 = xs
            .iter()
            .zip(labels)
            .map(|(x, &y)| (1.0 - margin(w, b, x, y)).max(0.0))
            .sum();
        let l2: f64 = w.iter().map(|v| v * v).sum();
        hinge / labels.len() as f64 + 0.5 * lambda * l2
    }

    fn data() -> (Vec<Vec<f64>>, Vec<i32>) {
        let mut r = Inputs(4191);
        let xs = r.rows(10, 3);
        let labels = xs
            .iter()
            .map(|x| if x[0] - 0.5 * x[2] > 0.1 { 1 } else { -1 })
            .collect();
        (xs, labels)
    }

    #[test]
    fn objective_by_hand() {
        let (xs, labels) = data();
        let lambda = 0.1;
        let mut count = 0;
        for p in points(4192, 4, 30, -1.5, 1.5) {
            let (w, b) = (&p[..3], p[3]);
            let margins: Vec<f64> = xs
                .iter()
                .zip(&labels)
                .map(|(x, &y)| y as f64 * (dot(w, x) + b))
                .collect();
            if margins.iter().any(|m| (m - 1.0).abs() < 1e-3) {
                continue;
            }
            count += 1;
            let (v, (gw, gb)) = objective_grad(w, b, &xs, &labels, lambda);
            let value = margins.iter().map(|m| (1.0 - m).max(0.0)).sum::<f64>() / 10.0
                + 0.5 * lambda * dot(w, w);
            assert_close(v, value, 1e-14, "svm value");
            assert_eq!(v, objective(w, b, &xs, &labels, lambda));
            let mut ew: Vec<f64> = w.iter().map(|wi| lambda * wi).collect();
            let mut eb = 0.0;
            for ((x, &y), m) in xs.iter().zip(&labels).zip(&margins) {
                if *m < 1.0 {
                    for d in 0..3 {
                        ew[d] -= y as f64 * x[d] / 10.0;
                    }
                    eb -= y as f64 / 10.0;
                }
            }
            assert_all_close(&gw, &ew, 1e-14, "svm d / d w");
            assert_close(gb, eb, 1e-14, "svm d / d b");
            let (_, _, h) = objective_hessian(w, b, &xs, &labels, lambda);
            for i in 0..4 {
                for j in 0..4 {
                    let e = if i == j && i < 3 { lambda } else { 0.0 };
                    assert_close(h[i][j], e, 1e-14, "svm Hessian");
                }
            }
            let (_, hg, hv) =
                objective_hvp(w, b, &xs, &labels, lambda, (vec![1.0, -2.0, 0.5], 3.0));
            assert_all_close(&hg.0, &gw, 1e-14, "svm _hvp gradient");
            assert_all_close(
                &[hv.0[0], hv.0[1], hv.0[2], hv.1],
                &[lambda, -2.0 * lambda, 0.5 * lambda, 0.0],
                1e-14,
                "svm _hvp",
            );
            let (mut bw, mut bb) = (vec![f64::NAN; 3], f64::NAN);
            objective_grad_into(w, b, &xs, &labels, lambda, (&mut bw, &mut bb));
            same_bits(&bw, &gw, "svm w");
            same_bits(&[bb], &[gb], "svm b");
            let flat = [gw.clone(), vec![gb]].concat();
            let f = |q: &[f64]| {
                xs.iter()
                    .zip(&labels)
                    .map(|(x, &y)| (1.0 - y as f64 * (dot(&q[..3], x) + q[3])).max(0.0))
                    .sum::<f64>()
                    / 10.0
                    + 0.5 * lambda * dot(&q[..3], &q[..3])
            };
            common::assert_fd_gradient(f, &p, &flat, "svm gradient vs differences");
            let (_, jt) = objective_jvp(w, b, &xs, &labels, lambda, (vec![0.3, 0.1, -0.4], 0.7));
            assert_close(jt, dot(&flat, &[0.3, 0.1, -0.4, 0.7]), 1e-13, "svm _jvp");
        }
        assert!(count >= 10, "only {count} points away from the hinges");
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) Gauss-Newton on an exponential decay: the residuals into an output parameter, their `_jacobian`
// used by a solver the user writes, and the sum of squares at `order = 2` whose Hessian at an exact
// fit is `2 JᵀJ`.

mod gauss_newton {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(wrt(params))]
    pub fn residuals(params: &[f64], ts: &[f64], ys: &[f64], r: &mut [f64]) {
        for (i, (&t, &y)) in ts.iter().zip(ys).enumerate() {
            r[i] = params[0] * (-params[1] * t).exp() + params[2] - y;
        }
    }

    #[differentiable(wrt(params), order = 2)]
    pub fn sse(params: &[f64], ts: &[f64], ys: &[f64]) -> f64 {
        let mut r = vec![0.0; ts.len()];
        residuals(params, ts, ys, &mut r);
        r.iter().map(|v| v * v).sum()
    }

    /// One Gauss-Newton step by the normal equations (3 x 3, Cramer's rule).
    fn step(params: &[f64], ts: &[f64], ys: &[f64]) -> Vec<f64> {
        let mut r = vec![0.0; ts.len()];
        let j = residuals_jacobian(params, ts, ys, &mut r);
        residuals(params, ts, ys, &mut r);
        let mut a = [[0.0; 3]; 3];
        let mut g = [0.0; 3];
        for (row, ri) in j.iter().zip(&r) {
            for p in 0..3 {
                g[p] += row[p] * ri;
                for q in 0..3 {
                    a[p][q] += row[p] * row[q];
                }
            }
        }
        let det = |m: &[[f64; 3]; 3]| {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        };
        let d = det(&a);
        (0..3)
            .map(|k| {
                let mut m = a;
                for i in 0..3 {
                    m[i][k] = g[i];
                }
                params[k] - det(&m) / d
            })
            .collect()
    }

    const TS: [f64; 7] = [0.0, 0.5, 1.0, 1.5, 2.5, 4.0, 6.0];

    fn exact(p: &[f64]) -> Vec<f64> {
        TS.iter().map(|t| p[0] * (-p[1] * t).exp() + p[2]).collect()
    }

    #[test]
    fn residual_jacobian_and_a_solver() {
        let truth = [2.0, 0.7, 0.3];
        let ys = exact(&truth);
        for p in points(4201, 3, 10, -0.2, 0.2) {
            let start = [truth[0] + p[0], truth[1] + p[1], truth[2] + p[2]];
            let mut r = vec![0.0; 7];
            let j = residuals_jacobian(&start, &TS, &ys, &mut r);
            assert_eq!((j.len(), j[0].len()), (7, 3));
            for (i, &t) in TS.iter().enumerate() {
                let e = (-start[1] * t).exp();
                assert_all_close(
                    &j[i],
                    &[e, -start[0] * t * e, 1.0],
                    1e-14,
                    "residual Jacobian by hand",
                );
            }
            let c = wave(7, 0.5);
            let t = [0.4, -0.9, 0.2];
            let mut out = vec![0.0; 7];
            let cj = residuals_vjp(&start, &TS, &ys, &mut out, &c);
            let mut jt = vec![0.0; 7];
            residuals_jvp(&start, &TS, &ys, &mut out, t.to_vec(), &mut jt);
            check_dual("residuals", &c, &jt, &cj, &t);
            let mut x = start.to_vec();
            for _ in 0..8 {
                x = step(&x, &TS, &ys);
            }
            assert_all_close(&x, &truth, 1e-10, "Gauss-Newton converges");
        }
    }

    #[test]
    fn sse_at_order_2() {
        let truth = [2.0, 0.7, 0.3];
        let ys = exact(&truth);
        // At the exact fit the Hessian is 2 JᵀJ.
        let (v, g, h) = sse_hessian(&truth, &TS, &ys);
        assert_close(v, 0.0, 1e-28, "sse at the fit");
        assert_all_close(&g, &[0.0; 3], 1e-14, "gradient at the fit");
        let j = residuals_jacobian(&truth, &TS, &ys, &mut [0.0; 7]);
        for a in 0..3 {
            for b in 0..3 {
                let e: f64 = j.iter().map(|row| 2.0 * row[a] * row[b]).sum();
                assert_close(h[a][b], e, 1e-12, "sse Hessian = 2 JᵀJ");
            }
        }
        let noisy: Vec<f64> = ys
            .iter()
            .enumerate()
            .map(|(i, y)| y + 0.05 * (i as f64).sin())
            .collect();
        let reference = |p: &[f64]| {
            exact(p)
                .iter()
                .zip(&noisy)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f64>()
        };
        let pts: Vec<Vec<f64>> = points(4202, 3, 10, -0.3, 0.3)
            .into_iter()
            .map(|p| vec![truth[0] + p[0], truth[1] + p[1], truth[2] + p[2]])
            .collect();
        for p in &pts {
            assert_close(sse(p, &TS, &noisy), reference(p), 1e-13, "sse");
            let (_, g) = sse_grad(p, &TS, &noisy);
            let mut b = vec![f64::NAN; 3];
            sse_grad_into(p, &TS, &noisy, &mut b);
            same_bits(&b, &g, "sse");
        }
        audit(
            &Items {
                what: "gauss_newton::sse",
                primal: &|x| sse(x, &TS, &noisy),
                grad: &|x| sse_grad(x, &TS, &noisy),
                vjp: &|x, d| sse_vjp(x, &TS, &noisy, d),
                jvp: &|x, t| sse_jvp(x, &TS, &noisy, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![0.0; 3];
                    let v = sse_grad_into(x, &TS, &noisy, &mut b);
                    (v, b)
                },
                hvp: Some(&|x, v| sse_hvp(x, &TS, &noisy, v.to_vec())),
                hessian: Some(&|x| sse_hessian(x, &TS, &noisy)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) A spring-mass-damper as a `Differentiable` struct with `#[no_grad]` step count and time step:
// an acceleration method, a trajectory loss method with `wrt(self)` at `order = 2`, and a free
// function in a submodule calling it through `super::`.

mod smd {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Oscillator {
        pub k: f64,
        pub c: f64,
        pub m: f64,
        pub x0: [f64; 2],
        #[no_grad]
        pub steps: usize,
        #[no_grad]
        pub dt: f64,
    }

    impl Oscillator {
        #[differentiable(wrt(self))]
        pub fn accel(&self, x: f64, v: f64) -> f64 {
            -(self.k * x + self.c * v) / self.m
        }

        /// Semi-implicit Euler against `target` (as many samples as steps, or fewer).
        #[differentiable(wrt(self), order = 2)]
        pub fn trajectory_loss(&self, target: &[f64]) -> f64 {
            let (mut x, mut v) = (self.x0[0], self.x0[1]);
            let mut loss = 0.0;
            let mut step = 0;
            while step < self.steps && step < target.len() {
                v += self.dt * self.accel(x, v);
                x += self.dt * v;
                loss += (x - target[step]).powi(2);
                step += 1;
            }
            loss
        }

        /// The same loop on loose parameters, for callers that change one of them.
        #[differentiable(order = 2)]
        pub fn loss_with(
            k: f64,
            c: f64,
            m: f64,
            x0: [f64; 2],
            dt: f64,
            steps: usize,
            target: &[f64],
        ) -> f64 {
            let (mut x, mut v) = (x0[0], x0[1]);
            let mut loss = 0.0;
            for (step, &y) in target.iter().enumerate() {
                if step >= steps {
                    break;
                }
                v += dt * (-(k * x + c * v) / m);
                x += dt * v;
                loss += (x - y).powi(2);
            }
            loss
        }
    }

    pub mod tuning {
        use super::Oscillator;
        use autodiff::differentiable;

        /// The loss with the stiffness scaled, as a user sweeps it.
        #[differentiable(wrt(scale), order = 2)]
        pub fn stiffness_sweep(o: &Oscillator, target: &[f64], scale: f64) -> f64 {
            // The `#[no_grad]` count passed on by a `super::` path: before, the hidden function over the
            // struct's values took it for a float (context::path_integer_parameters), rustc's E0308.
            // The array field is copied here; `o.x0` on whole to a `[f64; 2]` parameter is
            // tests/fields41.rs's (E0277 on `ConstantZero` at first order, E0308 at `order = 2`, before).
            super::Oscillator::loss_with(
                o.k * scale,
                o.c,
                o.m,
                [o.x0[0], o.x0[1]],
                o.dt,
                o.steps,
                target,
            )
        }
    }

    fn oscillator(p: &[f64]) -> Oscillator {
        Oscillator {
            k: 2.0 + p[0],
            c: 0.3 + 0.2 * p[1],
            m: 1.0 + 0.3 * p[2],
            x0: [1.0 + 0.2 * p[3], 0.2 * p[4]],
            steps: 30,
            dt: 0.1,
        }
    }

    fn reference(f: &[f64], target: &[f64], steps: usize, dt: f64) -> f64 {
        let (k, c, m) = (f[0], f[1], f[2]);
        let (mut x, mut v, mut l) = (f[3], f[4], 0.0);
        for y in target.iter().take(steps) {
            v += dt * (-(k * x + c * v) / m);
            x += dt * v;
            l += (x - y).powi(2);
        }
        l
    }

    fn target() -> Vec<f64> {
        (0..25)
            .map(|i| (-(0.1 * i as f64)).exp() * (1.4 * 0.1 * i as f64).cos())
            .collect()
    }

    #[test]
    fn accel_and_loss_at_order_2() {
        let tg = target();
        let pts = points(4211, 5, 10, -1.0, 1.0);
        let from = |x: &[f64], like: &Oscillator| like.from_flat(x);
        for p in &pts {
            let o = oscillator(p);
            let (a, g) = o.accel_grad(0.7, -0.2);
            assert_eq!(a, -(o.k * 0.7 - o.c * 0.2) / o.m);
            assert_all_close(
                &g.to_flat(),
                &[-0.7 / o.m, 0.2 / o.m, -a / o.m, 0.0, 0.0],
                1e-15,
                "accel by hand",
            );
            assert_eq!((g.steps, g.dt), (30, 0.1), "no_grad fields copied");
            let (_, gl) = o.trajectory_loss_grad(&tg);
            let mut buf = o.zero_like();
            buf.k = f64::NAN;
            o.trajectory_loss_grad_into(&tg, &mut buf);
            same_bits(&buf.to_flat(), &gl.to_flat(), "trajectory_loss");
        }
        let base = oscillator(&pts[0]);
        let flat_pts: Vec<Vec<f64>> = pts.iter().map(|p| oscillator(p).to_flat()).collect();
        audit(
            &Items {
                what: "smd::trajectory_loss",
                primal: &|x| from(x, &base).trajectory_loss(&tg),
                grad: &|x| {
                    let (v, g) = from(x, &base).trajectory_loss_grad(&tg);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = from(x, &base).trajectory_loss_vjp(&tg, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| from(x, &base).trajectory_loss_jvp(&tg, from(t, &base)),
                grad_into: &|x| {
                    let o = from(x, &base);
                    let mut b = o.zero_like();
                    let v = o.trajectory_loss_grad_into(&tg, &mut b);
                    (v, b.to_flat())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = from(x, &base).trajectory_loss_hvp(&tg, from(v, &base));
                    (f, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = from(x, &base).trajectory_loss_hessian(&tg);
                    (f, g.to_flat(), h)
                }),
                analytic: None,
            },
            &flat_pts,
        );
        // Fewer steps than samples: the `while` stops on `self.steps`.
        let mut short = base.clone();
        short.steps = 7;
        assert_close(
            short.trajectory_loss(&tg),
            reference(&short.to_flat(), &tg, 7, 0.1),
            1e-14,
            "short",
        );
    }

    #[test]
    fn stiffness_sweep_through_super() {
        let tg = target();
        for p in points(4212, 6, 10, -1.0, 1.0) {
            let o = oscillator(&p);
            let scale = 1.0 + 0.3 * p[5];
            let f = |s: f64| {
                let mut q = o.to_flat();
                q[0] *= s;
                reference(&q, &tg, 30, 0.1)
            };
            let (v, g) = tuning::stiffness_sweep_grad(&o, &tg, scale);
            assert_close(v, f(scale), 1e-13, "sweep value");
            assert_eq!(v, tuning::stiffness_sweep(&o, &tg, scale));
            // The chain rule through the struct: d/ds = k * dL/dk.
            let mut scaled = o.clone();
            scaled.k *= scale;
            let (_, gk) = scaled.trajectory_loss_grad(&tg);
            assert_close(g, o.k * gk.k, 1e-12, "sweep gradient by the chain rule");
            let d = tuning::stiffness_sweep_derivatives(&o, &tg, scale);
            assert_close(d[1], g, 1e-13, "derivatives[1]");
            let second =
                common::central_difference(|s| tuning::stiffness_sweep_grad(&o, &tg, s).1, scale);
            assert_close(d[2], second, 1e-6, "second derivative vs differences");
            let mut b = f64::NAN;
            tuning::stiffness_sweep_grad_into(&o, &tg, scale, &mut b);
            same_bits(&[b], &[g], "sweep");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) A policy-gradient surrogate: log-softmax by a log-sum-exp helper, logits from a weight matrix
// `&[Vec<f64>]`, a value baseline held by `stop_gradient`, and a PPO-style clipped ratio with `clamp`.

mod policy {
    use super::*;
    use autodiff::{differentiable, stop_gradient};

    #[differentiable]
    pub fn log_softmax_at(logits: &[f64], a: usize) -> f64 {
        let m = logits.iter().fold(f64::NEG_INFINITY, |acc, &l| acc.max(l));
        let lse = m + logits.iter().map(|&l| (l - m).exp()).sum::<f64>().ln();
        logits[a] - lse
    }

    #[differentiable]
    pub fn logits(theta: &[Vec<f64>], features: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; theta.len()];
        for (a, row) in theta.iter().enumerate() {
            out[a] = row.iter().zip(features).map(|(w, f)| w * f).sum::<f64>();
        }
        out
    }

    /// REINFORCE with a baseline: the expected reward under the current policy, not differentiated.
    #[differentiable(wrt(theta), order = 2)]
    pub fn surrogate(
        theta: &[Vec<f64>],
        states: &[Vec<f64>],
        actions: &[usize],
        rewards: &[f64],
    ) -> f64 {
        let mut total = 0.0;
        for ((s, &a), &r) in states.iter().zip(actions).zip(rewards) {
            let l = logits(theta, s);
            let mut baseline = 0.0;
            for b in 0..l.len() {
                baseline += log_softmax_at(&l, b).exp() * (b as f64 - 1.0);
            }
            let advantage = r - stop_gradient(baseline);
            total += advantage * log_softmax_at(&l, a);
        }
        total / rewards.len() as f64
    }

    /// The clipped surrogate of PPO against the log-probabilities of an older policy.
    #[differentiable(wrt(theta))]
    pub fn clipped(
        theta: &[Vec<f64>],
        states: &[Vec<f64>],
        actions: &[usize],
        advantages: &[f64],
        old: &[f64],
        eps: f64,
    ) -> f64 {
        let mut total = 0.0;
        for (i, s) in states.iter().enumerate() {
            let l = logits(theta, s);
            let ratio = (log_softmax_at(&l, actions[i]) - old[i]).exp();
            let a = advantages[i];
            total += (ratio * a).min(ratio.clamp(1.0 - eps, 1.0 + eps) * a);
        }
        total / states.len() as f64
    }

    fn probs(theta: &[f64], s: &[f64]) -> Vec<f64> {
        let l: Vec<f64> = (0..3).map(|a| dot(&theta[2 * a..2 * a + 2], s)).collect();
        let z: f64 = l.iter().map(|v| v.exp()).sum();
        l.iter().map(|v| v.exp() / z).collect()
    }

    fn rows(flat: &[f64]) -> Vec<Vec<f64>> {
        common::contract::rows(flat, 2)
    }

    fn episode() -> (Vec<Vec<f64>>, Vec<usize>, Vec<f64>) {
        let mut r = Inputs(4221);
        let states = r.rows(6, 2);
        let actions = vec![0, 2, 1, 1, 0, 2];
        let rewards = r.vec(6);
        (states, actions, rewards)
    }

    #[test]
    fn surrogate_gradient_by_hand() {
        let (states, actions, rewards) = episode();
        // The surrogate with the baselines fixed at their values at `at`: its gradient there is the
        // surrogate's.
        let fixed = |th: &[f64], at: &[f64]| {
            let mut total = 0.0;
            for ((s, &a), &r) in states.iter().zip(&actions).zip(&rewards) {
                let b: f64 = probs(at, s)
                    .iter()
                    .enumerate()
                    .map(|(k, p)| p * (k as f64 - 1.0))
                    .sum();
                total += (r - b) * probs(th, s)[a].ln();
            }
            total / 6.0
        };
        let pts = points(4222, 6, 10, -1.0, 1.0);
        for p in &pts {
            let th = rows(p);
            let (v, g) = surrogate_grad(&th, &states, &actions, &rewards);
            assert_close(v, fixed(p, p), 1e-13, "surrogate value");
            assert_eq!(v, surrogate(&th, &states, &actions, &rewards));
            let g = common::contract::flatten(&g);
            common::assert_fd_gradient(
                |q| fixed(q, p),
                p,
                &g,
                "surrogate vs the fixed-baseline differences",
            );
            // By hand: (r - b) (onehot(a) - pi) ⊗ s.
            let mut e = vec![0.0; 6];
            for ((s, &a), &r) in states.iter().zip(&actions).zip(&rewards) {
                let pi = probs(p, s);
                let b: f64 = pi
                    .iter()
                    .enumerate()
                    .map(|(k, q)| q * (k as f64 - 1.0))
                    .sum();
                for k in 0..3 {
                    let ind = if k == a { 1.0 } else { 0.0 };
                    for d in 0..2 {
                        e[2 * k + d] += (r - b) * (ind - pi[k]) * s[d] / 6.0;
                    }
                }
            }
            assert_all_close(&g, &e, 1e-13, "surrogate gradient by hand");
            let mut buf = vec![vec![f64::NAN; 2]; 3];
            surrogate_grad_into(&th, &states, &actions, &rewards, &mut buf);
            same_bits(&buf.concat(), &g, "surrogate");
            // The Hessian: as JAX's, the baseline held at every order (not the differences of `_grad`,
            // whose numbers see the baseline move): (r - b) times the Hessian of log pi, by hand, and
            // by differences of the fixed-baseline surrogate's gradient.
            let (_, _, h) = surrogate_hessian(&th, &states, &actions, &rewards);
            let mut e = vec![vec![0.0; 6]; 6];
            for (s, &r) in states.iter().zip(&rewards) {
                let pi = probs(p, s);
                let b: f64 = pi
                    .iter()
                    .enumerate()
                    .map(|(k, q)| q * (k as f64 - 1.0))
                    .sum();
                for k in 0..3 {
                    for j in 0..3 {
                        let cov = if k == j { pi[k] } else { 0.0 } - pi[k] * pi[j];
                        for d in 0..2 {
                            for f in 0..2 {
                                e[2 * k + d][2 * j + f] -= (r - b) * cov * s[d] * s[f] / 6.0;
                            }
                        }
                    }
                }
            }
            let fixed_grad = |q: &[f64]| {
                let mut g = vec![0.0; 6];
                for ((s, &a), &r) in states.iter().zip(&actions).zip(&rewards) {
                    let b: f64 = probs(p, s)
                        .iter()
                        .enumerate()
                        .map(|(k, q)| q * (k as f64 - 1.0))
                        .sum();
                    let pi = probs(q, s);
                    for k in 0..3 {
                        let ind = if k == a { 1.0 } else { 0.0 };
                        for d in 0..2 {
                            g[2 * k + d] += (r - b) * (ind - pi[k]) * s[d] / 6.0;
                        }
                    }
                }
                g
            };
            let by_diff = fd_jacobian(fixed_grad, p);
            for i in 0..6 {
                assert_all_close(&h[i], &e[i], 1e-13, "surrogate Hessian by hand");
                assert_all_close(
                    &h[i],
                    &by_diff[i],
                    1e-7,
                    "surrogate Hessian vs the fixed baseline",
                );
            }
            let v6 = wave(6, 0.3);
            let (_, _, hv) = surrogate_hvp(&th, &states, &actions, &rewards, rows(&v6));
            let expected: Vec<f64> = h.iter().map(|row| dot(row, &v6)).collect();
            assert_all_close(
                &common::contract::flatten(&hv),
                &expected,
                1e-10,
                "surrogate _hvp",
            );
            let (_, jt) = surrogate_jvp(&th, &states, &actions, &rewards, rows(&v6));
            assert_close(jt, dot(&g, &v6), 1e-12, "surrogate _jvp");
        }
    }

    #[test]
    fn clipped_gradient() {
        let (states, actions, advantages) = episode();
        let old: Vec<f64> = states
            .iter()
            .zip(&actions)
            .map(|(s, &a)| probs(&[0.1, -0.2, 0.3, 0.0, -0.1, 0.2], s)[a].ln())
            .collect();
        let plain = |th: &[f64]| {
            let mut total = 0.0;
            for i in 0..6 {
                let ratio = (probs(th, &states[i])[actions[i]].ln() - old[i]).exp();
                let a = advantages[i];
                total += (ratio * a).min(ratio.clamp(0.8, 1.2) * a);
            }
            total / 6.0
        };
        let mut count = 0;
        for p in points(4223, 6, 30, -0.6, 0.6) {
            // Away from the clipping edges.
            let near = (0..6).any(|i| {
                let ratio = (probs(&p, &states[i])[actions[i]].ln() - old[i]).exp();
                (ratio - 0.8).abs() < 1e-3 || (ratio - 1.2).abs() < 1e-3
            });
            if near {
                continue;
            }
            count += 1;
            let th = rows(&p);
            let (v, g) = clipped_grad(&th, &states, &actions, &advantages, &old, 0.2);
            assert_close(v, plain(&p), 1e-13, "clipped value");
            assert_eq!(v, clipped(&th, &states, &actions, &advantages, &old, 0.2));
            let g = common::contract::flatten(&g);
            common::assert_fd_gradient(plain, &p, &g, "clipped vs differences");
            let mut buf = vec![vec![0.0; 2]; 3];
            clipped_grad_into(&th, &states, &actions, &advantages, &old, 0.2, &mut buf);
            same_bits(&buf.concat(), &g, "clipped");
        }
        assert!(count >= 10);
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) Beta and Gamma log-densities: `lgamma` once as a `#[custom_gradient]` (Stirling's series after a
// shift, its closure calling a differentiable digamma) and once registered for `libm::lgamma` by
// `#[gradient_of]`; the Beta negative log-likelihood in log-parameters at `order = 2`.

mod densities {
    use super::*;
    use autodiff::{custom_gradient, differentiable};
    use std::f64::consts::PI;

    const STIRLING: [f64; 3] = [1.0 / 12.0, -1.0 / 360.0, 1.0 / 1260.0];

    #[differentiable]
    pub fn digamma(x: f64) -> f64 {
        let mut x = x;
        let mut acc = 0.0;
        while x < 8.0 {
            acc -= 1.0 / x;
            x += 1.0;
        }
        let f = 1.0 / (x * x);
        acc + x.ln() - 0.5 / x - f * (1.0 / 12.0 - f * (1.0 / 120.0 - f / 252.0))
    }

    #[custom_gradient]
    pub fn lgamma(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let mut z = x;
        let mut shift = 0.0;
        while z < 8.0 {
            shift += z.ln();
            z += 1.0;
        }
        let f = 1.0 / (z * z);
        let series = STIRLING.iter().rev().fold(0.0, |acc, &c| acc * f + c) / z;
        let value = (z - 0.5) * z.ln() - z + 0.5 * (2.0 * PI).ln() + series - shift;
        (value, move |dy| dy * digamma(x))
    }

    #[differentiable]
    pub fn beta_logpdf(x: f64, a: f64, b: f64) -> f64 {
        (a - 1.0) * x.ln() + (b - 1.0) * (1.0 - x).ln() - (lgamma(a) + lgamma(b) - lgamma(a + b))
    }

    /// `libm::lgamma` registered here, in a module of its own: its companion type `lgamma` cannot share
    /// a scope with the custom `lgamma` above (DESIGN: one `g` per scope).
    pub mod registered {
        use autodiff::{differentiable, gradient_of};

        #[gradient_of(libm::lgamma)]
        fn lgamma_vjp(x: f64, dy: f64) -> f64 {
            dy * crate::densities::digamma(x)
        }

        #[differentiable]
        pub fn gamma_logpdf(x: f64, shape: f64, rate: f64) -> f64 {
            shape * rate.ln() - libm::lgamma(shape) + (shape - 1.0) * x.ln() - rate * x
        }
    }

    #[differentiable(wrt(log_ab), order = 2)]
    pub fn beta_nll(log_ab: [f64; 2], data: &[f64]) -> f64 {
        let (a, b) = (log_ab[0].exp(), log_ab[1].exp());
        -data.iter().map(|&x| beta_logpdf(x, a, b)).sum::<f64>()
    }

    #[differentiable(wrt(shape, rate), order = 2)]
    pub fn gamma_nll(shape: f64, rate: f64, data: &[f64]) -> f64 {
        let mut total = 0.0;
        for &x in data {
            total -= registered::gamma_logpdf(x, shape, rate);
        }
        total
    }

    const DATA: [f64; 6] = [0.12, 0.35, 0.41, 0.58, 0.66, 0.9];

    #[test]
    fn lgamma_against_libm_and_digamma() {
        for p in points(4231, 1, 12, 0.2, 6.0) {
            let x = p[0];
            assert_close(
                lgamma(x),
                libm::lgamma(x),
                1e-9,
                "lgamma vs libm (Stirling to three terms)",
            );
            let (v, g) = lgamma_grad(x);
            assert_eq!(v, lgamma(x));
            assert_close(g, digamma(x), 0.0, "lgamma_grad is digamma");
            assert_close(
                g,
                common::central_difference(libm::lgamma, x),
                1e-8,
                "digamma vs differences of libm",
            );
            let (_, jt) = lgamma_jvp(x, 0.7);
            assert_close(jt, 0.7 * g, 1e-15, "lgamma_jvp");
        }
    }

    #[test]
    fn gamma_nll_by_hand() {
        let data = [0.5, 1.2, 2.3, 0.8, 3.1];
        for p in points(4232, 2, 12, 0.5, 3.0) {
            let (shape, rate) = (p[0], p[1]);
            let (v, (gs, gr)) = gamma_nll_grad(shape, rate, &data);
            let n = 5.0;
            let sum_x: f64 = data.iter().sum();
            let sum_ln: f64 = data.iter().map(|x| x.ln()).sum();
            let value = -(n * shape * rate.ln() - n * libm::lgamma(shape) + (shape - 1.0) * sum_ln
                - rate * sum_x);
            assert_close(v, value, 1e-13, "gamma nll");
            assert_close(
                gs,
                -(n * rate.ln() - n * digamma(shape) + sum_ln),
                1e-12,
                "d / d shape",
            );
            assert_close(gr, -(n * shape / rate - sum_x), 1e-12, "d / d rate");
            let (_, _, h) = gamma_nll_hessian(shape, rate, &data);
            // d2 / d rate2 = n shape / rate^2, d2 / d shape d rate = -n / rate, d2 / d shape2 = n trigamma.
            assert_close(
                h[1][1],
                n * shape / (rate * rate),
                1e-12,
                "gamma Hessian rate",
            );
            assert_close(h[0][1], -n / rate, 1e-12, "gamma Hessian mixed");
            let trigamma = common::central_difference(digamma, shape);
            assert_close(
                h[0][0],
                n * trigamma,
                1e-7,
                "gamma Hessian shape (trigamma)",
            );
            let (mut a, mut b) = (f64::NAN, f64::NAN);
            gamma_nll_grad_into(shape, rate, &data, (&mut a, &mut b));
            same_bits(&[a, b], &[gs, gr], "gamma nll");
        }
    }

    #[test]
    fn beta_nll_at_order_2() {
        let reference = |t: &[f64]| {
            let (a, b) = (t[0].exp(), t[1].exp());
            -DATA
                .iter()
                .map(|&x| {
                    (a - 1.0) * x.ln() + (b - 1.0) * (1.0 - x).ln()
                        - (libm::lgamma(a) + libm::lgamma(b) - libm::lgamma(a + b))
                })
                .sum::<f64>()
        };
        let pts = points(4233, 2, 12, -0.5, 1.2);
        for p in &pts {
            let (a, b) = (p[0].exp(), p[1].exp());
            let (v, g) = beta_nll_grad(arr(p), &DATA);
            assert_close(v, reference(p), 1e-8, "beta nll vs libm");
            let n = DATA.len() as f64;
            let sa: f64 = DATA.iter().map(|x| x.ln()).sum();
            let sb: f64 = DATA.iter().map(|x| (1.0 - x).ln()).sum();
            let ea = -a * (sa - n * (digamma(a) - digamma(a + b)));
            let eb = -b * (sb - n * (digamma(b) - digamma(a + b)));
            assert_all_close(&g, &[ea, eb], 1e-12, "beta nll gradient by hand");
            let mut buf = [f64::NAN; 2];
            beta_nll_grad_into(arr(p), &DATA, &mut buf);
            same_bits(&buf, &g, "beta nll");
        }
        audit(
            &Items {
                what: "densities::beta_nll",
                primal: &|x| beta_nll(arr(x), &DATA),
                grad: &|x| {
                    let (v, g) = beta_nll_grad(arr(x), &DATA);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = beta_nll_vjp(arr(x), &DATA, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| beta_nll_jvp(arr(x), &DATA, arr(t)),
                grad_into: &|x| {
                    let mut b = [0.0; 2];
                    let v = beta_nll_grad_into(arr(x), &DATA, &mut b);
                    (v, b.to_vec())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = beta_nll_hvp(arr(x), &DATA, arr(v));
                    (f, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = beta_nll_hessian(arr(x), &DATA);
                    (f, g.to_vec(), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) Tikhonov-regularised deblurring: a 3-tap blur over `windows(3)` into an output parameter, the
// objective over `windows(2)` differences at `order = 2`, whose Hessian is `AᵀA + λ DᵀD` exactly.

mod deblur {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn blur(x: &[f64], kernel: [f64; 3], out: &mut [f64]) {
        for (i, w) in x.windows(3).enumerate() {
            out[i] = kernel[0] * w[0] + kernel[1] * w[1] + kernel[2] * w[2];
        }
    }

    #[differentiable(wrt(x), order = 2)]
    pub fn objective(x: &[f64], observed: &[f64], kernel: [f64; 3], lambda: f64) -> f64 {
        let mut b = vec![0.0; x.len() - 2];
        blur(x, kernel, &mut b);
        let fit: f64 = b.iter().zip(observed).map(|(p, o)| (p - o).powi(2)).sum();
        let smooth: f64 = x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
        0.5 * fit + 0.5 * lambda * smooth
    }

    const K: [f64; 3] = [0.25, 0.5, 0.25];

    #[test]
    fn blur_jacobian_and_objective_hessian() {
        let observed = [0.2, 0.5, 0.9, 0.7, 0.3, 0.1];
        let lambda = 0.3;
        // A (6 x 8) and D (7 x 8).
        let mut a = vec![vec![0.0; 8]; 6];
        for i in 0..6 {
            for j in 0..3 {
                a[i][i + j] = K[j];
            }
        }
        let reference = |x: &[f64]| {
            let fit: f64 = (0..6).map(|i| (dot(&a[i], x) - observed[i]).powi(2)).sum();
            let smooth: f64 = (0..7).map(|i| (x[i + 1] - x[i]).powi(2)).sum();
            0.5 * fit + 0.5 * lambda * smooth
        };
        let pts = points(4241, 8, 10, -1.0, 1.0);
        for p in &pts {
            let mut out = vec![0.0; 6];
            let j = blur_jacobian(p, K, &mut out);
            // Columns: x (8), then the kernel (3).
            assert_eq!((j.len(), j[0].len()), (6, 11));
            for i in 0..6 {
                assert_eq!(j[i][..8], a[i][..], "d blur / d x");
                assert_eq!(j[i][8..], p[i..i + 3], "d blur / d kernel");
            }
            let c = wave(6, 0.1);
            let t = wave(11, 0.6);
            let (cx, ck) = blur_vjp(p, K, &mut out, &c);
            let mut jt = vec![0.0; 6];
            blur_jvp(p, K, &mut out, (t[..8].to_vec(), arr(&t[8..])), &mut jt);
            let cj: Vec<f64> = cx.iter().chain(ck.iter()).copied().collect();
            check_dual("blur", &c, &jt, &cj, &t);

            assert_close(
                objective(p, &observed, K, lambda),
                reference(p),
                1e-14,
                "deblur objective",
            );
            let (_, _, h) = objective_hessian(p, &observed, K, lambda);
            for r in 0..8 {
                for s in 0..8 {
                    let mut e: f64 = (0..6).map(|i| a[i][r] * a[i][s]).sum();
                    let deg = |k: usize| if k == 0 || k == 7 { 1.0 } else { 2.0 };
                    if r == s {
                        e += lambda * deg(r);
                    } else if r.abs_diff(s) == 1 {
                        e -= lambda;
                    }
                    assert_close(h[r][s], e, 1e-14, "AᵀA + λ DᵀD");
                }
            }
            let (_, g) = objective_grad(p, &observed, K, lambda);
            let mut b = vec![f64::NAN; 8];
            objective_grad_into(p, &observed, K, lambda, &mut b);
            same_bits(&b, &g, "deblur objective");
        }
        audit(
            &Items {
                what: "deblur::objective",
                primal: &|x| objective(x, &observed, K, lambda),
                grad: &|x| objective_grad(x, &observed, K, lambda),
                vjp: &|x, d| objective_vjp(x, &observed, K, lambda, d),
                jvp: &|x, t| objective_jvp(x, &observed, K, lambda, t.to_vec()),
                grad_into: &|x| {
                    let mut b = vec![0.0; 8];
                    let v = objective_grad_into(x, &observed, K, lambda, &mut b);
                    (v, b)
                },
                hvp: Some(&|x, v| objective_hvp(x, &observed, K, lambda, v.to_vec())),
                hessian: Some(&|x| objective_hessian(x, &observed, K, lambda)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (16) The two fixes of this session, as small as they go: a row of a constant nested array passed by
// value to a call (`first(src[1])`, `first(*s)`), and a row of a constant matrix lent to a call from a
// closure of a chain (`xs.iter().map(|x| dot2(w, x))`), at first order and `order = 2`.

mod rows_to_calls {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn product(p: [f64; 2]) -> f64 {
        p[0] * p[1]
    }

    #[differentiable(wrt(q), order = 2)]
    pub fn indexed_row(q: f64, src: &[[f64; 2]; 2]) -> f64 {
        q * q * product(src[1])
    }

    #[differentiable(wrt(q), order = 2)]
    pub fn iterated_rows(q: [f64; 2], src: &[[f64; 2]; 3]) -> f64 {
        let mut total = 0.0;
        for s in src.iter() {
            total += product([q[0] * s[0], q[1]]) * product(*s);
        }
        total
    }

    #[differentiable]
    pub fn dot2(w: &[f64], x: &[f64]) -> f64 {
        w.iter().zip(x).map(|(a, c)| a * c).sum::<f64>()
    }

    #[differentiable(wrt(w), order = 2)]
    pub fn lent_rows(w: &[f64], xs: &[Vec<f64>]) -> f64 {
        xs.iter().map(|x| dot2(w, x).powi(2)).sum()
    }

    #[differentiable(wrt(w), order = 2)]
    pub fn lent_zipped_rows(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        xs.iter()
            .zip(ys)
            .map(|(x, &y)| (dot2(w, x) - y).powi(2))
            .sum::<f64>()
    }

    const SRC: [[f64; 2]; 3] = [[1.5, -0.5], [0.25, 2.0], [-1.0, 0.75]];

    #[test]
    fn a_row_passed_by_value() {
        let two = [SRC[0], SRC[1]];
        for p in points(4251, 2, 10, -2.0, 2.0) {
            let c = SRC[1][0] * SRC[1][1];
            let (v, g) = indexed_row_grad(p[0], &two);
            assert_eq!(v, indexed_row(p[0], &two));
            assert_close(v, p[0] * p[0] * c, 1e-15, "indexed_row");
            assert_close(g, 2.0 * p[0] * c, 1e-15, "indexed_row by hand");
            let d = indexed_row_derivatives(p[0], &two);
            assert_close(d[2], 2.0 * c, 1e-15, "indexed_row second derivative");
            // sum_k (q0 s_k0 q1) (s_k0 s_k1): gradient (q1 a, q0 a), Hessian [[0, a], [a, 0]].
            let a: f64 = SRC.iter().map(|s| s[0] * s[0] * s[1]).sum();
            let (v, g, h) = iterated_rows_hessian([p[0], p[1]], &SRC);
            assert_close(v, iterated_rows([p[0], p[1]], &SRC), 0.0, "iterated_rows");
            assert_close(v, p[0] * p[1] * a, 1e-14, "iterated_rows by hand");
            assert_all_close(&g, &[p[1] * a, p[0] * a], 1e-14, "iterated_rows gradient");
            assert_all_close(
                &h.concat(),
                &[0.0, a, a, 0.0],
                1e-14,
                "iterated_rows Hessian",
            );
        }
    }

    #[test]
    fn a_row_lent_from_a_closure() {
        let mut r = Inputs(4252);
        let xs = r.rows(4, 3);
        let ys = r.vec(4);
        for w in points(4253, 3, 10, -1.0, 1.0) {
            // Gradient 2 sum (x.w - y) x, Hessian 2 sum x xᵀ.
            let mut g = vec![0.0; 3];
            let mut h = vec![vec![0.0; 3]; 3];
            let mut v = 0.0;
            for (x, y) in xs.iter().zip(&ys) {
                let e = dot(&w, x) - y;
                v += e * e;
                for i in 0..3 {
                    g[i] += 2.0 * e * x[i];
                    for j in 0..3 {
                        h[i][j] += 2.0 * x[i] * x[j];
                    }
                }
            }
            let (value, grad, hess) = lent_zipped_rows_hessian(&w, &xs, &ys);
            assert_close(value, v, 1e-14, "lent_zipped_rows");
            assert_eq!(value, lent_zipped_rows(&w, &xs, &ys));
            assert_all_close(&grad, &g, 1e-13, "lent_zipped_rows gradient");
            assert_all_close(
                &hess.concat(),
                &h.concat(),
                1e-13,
                "lent_zipped_rows Hessian",
            );
            let (value, grad) = lent_rows_grad(&w, &xs);
            assert_eq!(value, lent_rows(&w, &xs));
            let zeros = [0.0; 4];
            let (_, grad0) = lent_zipped_rows_grad(&w, &xs, &zeros);
            assert_all_close(&grad, &grad0, 1e-14, "lent_rows gradient");
            let (_, _, hv) = lent_rows_hvp(&w, &xs, vec![1.0, 0.0, -1.0]);
            let e: Vec<f64> = h.iter().map(|row| row[0] - row[2]).collect();
            assert_all_close(&hv, &e, 1e-13, "lent_rows _hvp");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (17) A tide model: a `Differentiable` struct of harmonic constituents with a `#[no_grad]` list of
// periods, a polynomial trend by a generic Horner helper (`.iter().rev().fold`), a `Self::` helper per
// constituent, the misfit at `order = 2`; the same Horner helper on `f32` weights; and an iterated map
// under `while k < n && y.abs() < 10.0` with a `match` on `k % 3`.

mod tides {
    use super::*;
    use autodiff::{differentiable, Differentiable, Float};
    use std::f64::consts::PI;

    #[differentiable]
    pub fn horner<T: Float>(coeffs: &[T], t: T) -> T {
        coeffs.iter().rev().fold(T::zero(), |acc, &c| acc * t + c)
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Harmonics {
        pub amp: Vec<f64>,
        pub phase: Vec<f64>,
        pub trend: [f64; 3],
        #[no_grad]
        pub periods: Vec<f64>,
    }

    impl Harmonics {
        #[differentiable]
        fn constituent(amp: f64, phase: f64, period: f64, t: f64) -> f64 {
            amp * (2.0 * PI * t / period + phase).cos()
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn level(&self, t: f64) -> f64 {
            // The trend's coefficients copied: `horner(&self.trend, t)`, a field on whole to a generic
            // function, has no `__horner_pairs` at `order = 2` (left for the report).
            let trend = [self.trend[0], self.trend[1], self.trend[2]];
            let mut h = crate::tides::horner(&trend, t);
            for (k, &p) in self.periods.iter().enumerate() {
                h += Self::constituent(self.amp[k], self.phase[k], p, t);
            }
            h
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn misfit(&self, times: &[f64], obs: &[f64]) -> f64 {
            let mut s = 0.0;
            for (&t, &y) in times.iter().zip(obs) {
                let r = self.level(t) - y;
                s += r * r;
            }
            s
        }
    }

    #[differentiable(order = 2)]
    pub fn f32_model(w: &[f32], x: f32) -> f32 {
        horner(w, x).tanh()
    }

    #[differentiable(order = 3)]
    pub fn iterated(x: f64, n: i32) -> f64 {
        let mut y = x;
        let mut k = 0;
        while k < n && y.abs() < 10.0 {
            y = match k % 3 {
                0 => y * 1.5 + 0.1,
                1 | 2 => y.mul_add(y, 0.3).sqrt(),
                _ => y,
            };
            k += 1;
        }
        y
    }

    fn harmonics(p: &[f64]) -> Harmonics {
        Harmonics {
            amp: vec![p[0], p[1]],
            phase: vec![p[2], p[3]],
            trend: [p[4], p[5], p[6]],
            periods: vec![12.42, 23.93],
        }
    }

    fn level_by_hand(p: &[f64], t: f64) -> f64 {
        let periods = [12.42, 23.93];
        p[4] + p[5] * t
            + p[6] * t * t
            + (0..2)
                .map(|k| p[k] * (2.0 * PI * t / periods[k] + p[2 + k]).cos())
                .sum::<f64>()
    }

    #[test]
    fn misfit_at_order_2() {
        let times: Vec<f64> = (0..10).map(|i| 2.5 * i as f64 / 10.0).collect();
        let obs: Vec<f64> = times.iter().map(|t| 0.3 + (t * 0.4).sin()).collect();
        let pts = points(4261, 7, 10, -1.0, 1.0);
        for p in &pts {
            let h = harmonics(p);
            for &t in &times {
                assert_close(h.level(t), level_by_hand(p, t), 1e-13, "level by hand");
            }
            // d level / d amp_k = cos(..), d / d trend_j = t^j.
            let (_, g) = h.level_grad(1.3);
            let by_hand = [
                (2.0 * PI * 1.3 / 12.42 + p[2]).cos(),
                (2.0 * PI * 1.3 / 23.93 + p[3]).cos(),
                -p[0] * (2.0 * PI * 1.3 / 12.42 + p[2]).sin(),
                -p[1] * (2.0 * PI * 1.3 / 23.93 + p[3]).sin(),
                1.0,
                1.3,
                1.69,
            ];
            assert_all_close(&g.to_flat(), &by_hand, 1e-13, "level gradient by hand");
            assert_eq!(g.periods, h.periods, "the no_grad field copied");
            let (_, gm) = h.misfit_grad(&times, &obs);
            let mut buf = h.zero_like();
            buf.amp[0] = f64::NAN;
            h.misfit_grad_into(&times, &obs, &mut buf);
            same_bits(&buf.to_flat(), &gm.to_flat(), "misfit");
        }
        let base = harmonics(&pts[0]);
        let from = |x: &[f64]| base.from_flat(x);
        audit(
            &Items {
                what: "tides::misfit",
                primal: &|x| from(x).misfit(&times, &obs),
                grad: &|x| {
                    let (v, g) = from(x).misfit_grad(&times, &obs);
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = from(x).misfit_vjp(&times, &obs, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| from(x).misfit_jvp(&times, &obs, from(t)),
                grad_into: &|x| {
                    let h = from(x);
                    let mut b = h.zero_like();
                    let v = h.misfit_grad_into(&times, &obs, &mut b);
                    (v, b.to_flat())
                },
                hvp: Some(&|x, v| {
                    let (f, g, hv) = from(x).misfit_hvp(&times, &obs, from(v));
                    (f, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (f, g, h) = from(x).misfit_hessian(&times, &obs);
                    (f, g.to_flat(), h)
                }),
                analytic: Some(&|x| {
                    // 2 sum r_i d level(t_i), with the partials of the level by hand.
                    let periods = [12.42, 23.93];
                    let mut e = vec![0.0; 7];
                    for (&t, &y) in times.iter().zip(&obs) {
                        let r = level_by_hand(x, t) - y;
                        let a = [
                            (2.0 * PI * t / periods[0] + x[2]).cos(),
                            (2.0 * PI * t / periods[1] + x[3]).cos(),
                            -x[0] * (2.0 * PI * t / periods[0] + x[2]).sin(),
                            -x[1] * (2.0 * PI * t / periods[1] + x[3]).sin(),
                            1.0,
                            t,
                            t * t,
                        ];
                        for j in 0..7 {
                            e[j] += 2.0 * r * a[j];
                        }
                    }
                    e
                }),
            },
            &pts.iter()
                .map(|p| harmonics(p).to_flat())
                .collect::<Vec<_>>(),
        );
    }

    #[test]
    fn f32_horner_and_iterated_map() {
        for p in points(4262, 4, 10, -1.0, 1.0) {
            let w: Vec<f32> = p[..3].iter().map(|&v| v as f32).collect();
            let x = p[3] as f32;
            let (v, (gw, gx)) = f32_model_grad(&w, x);
            assert_eq!(v, f32_model(&w, x));
            let (wd, xd): (Vec<f64>, f64) = (w.iter().map(|&v| v as f64).collect(), x as f64);
            let u = wd[0] + wd[1] * xd + wd[2] * xd * xd;
            let s = 1.0 - u.tanh().powi(2);
            let e = [s, s * xd, s * xd * xd, s * (wd[1] + 2.0 * wd[2] * xd)];
            let got: Vec<f64> = gw.iter().chain([&gx]).map(|&g| g as f64).collect();
            assert_all_close(&got, &e, 1e-5, "f32 model gradient by hand");
            let (_, _, h) = f32_model_hessian(&w, x);
            // d2 / d w0 d x = -2 tanh(u) s (w1 + 2 w2 x).
            let e = -2.0 * u.tanh() * s * (wd[1] + 2.0 * wd[2] * xd);
            assert_close(h[0][3] as f64, e, 1e-4, "f32 model Hessian entry");

            let y0 = 0.5 + p[0].abs();
            for n in [0, 1, 2, 5, 9] {
                let d = iterated_derivatives(y0, n);
                assert_eq!(d[0], iterated(y0, n));
                let first = common::central_difference(|y| iterated(y, n), y0);
                assert_close(d[1], first, 1e-8, "iterated first derivative");
                let second = common::central_difference(|y| iterated_grad(y, n).1, y0);
                assert_close(d[2], second, 1e-7, "iterated second derivative");
                let third = common::central_difference(|y| iterated_derivatives(y, n)[2], y0);
                assert_close(d[3], third, 1e-6, "iterated third derivative");
                if n == 0 {
                    assert_eq!(d, [y0, 1.0, 0.0, 0.0]);
                }
            }
        }
    }
}
