//! An outside test suite written against API.md alone (session 47), by a user writing small real
//! projects: each module is one project of a few functions calling one another (free functions,
//! `Self::` helpers, methods, `super::` paths), in the idioms numeric Rust is written in. Projects:
//! meta-learning through five unrolled in-place SGD steps at `order = 2`, an LSTM as a
//! `Differentiable` struct (gates as methods, state overwritten each step), a Rodrigues rotation with
//! its small-angle branch in a bundle-adjustment reprojection with radial distortion (`_jacobian` over
//! camera and point), a Hodgkin-Huxley neuron by forward Euler (a removable singularity by a branch),
//! a strided 1-D convolution with ReLU, max pooling and a linear head at `order = 2`, an unscented
//! transform (2x2 Cholesky, sigma points through a helper returning a tuple), soft rasterisation of
//! circles into an output buffer, a Kuramoto network by RK2, SoftSort soft ranks, a Morse cluster with
//! a smooth cutoff over const generic particles, Gray-Scott reaction-diffusion with two buffers, an
//! Asian option by Monte Carlo, a kinematic bicycle MPC cost optimised with `_grad_into`, Rényi and
//! Tsallis divergences, an elastic rod at `order = 2` and a Planck band integral by Simpson.
//!
//! For each: the value against an independent computation where there is one, `_grad` against
//! central differences on seeded points (and by hand where the formula is short), `_grad_into` bit
//! for bit equal to `_grad`, `_vjp` against `_jvp` (`c · (J t) = (c J) · t`) for vector results and
//! outputs, `_jacobian` against differences, and at `order = 2` the Hessian against differences of
//! `_grad` and `_hvp` against the Hessian times `v` (`common::contract::audit`).

// Index loops and long argument lists are what the projects are written with.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_memcpy,
    clippy::type_complexity,
    clippy::too_many_arguments
)]

mod common;

use common::contract::{audit, Items};
use common::{
    arr, assert_all_close, assert_close, check_dual, check_jacobian, dot, points, same_bits, wave,
};

// ---------------------------------------------------------------------------------------------------
// (1) Meta-learning: the validation loss after five in-place SGD steps on a local `Vec` of weights (the
// inner gradient written by hand, rows read by `chunks_exact`), as a function of the learning rate and
// the initial weights, at `order = 2`.

mod meta {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn predict(w: &[f64], x: &[f64]) -> f64 {
        w.iter().zip(x.iter()).map(|(a, b)| a * b).sum::<f64>()
    }

    /// Mean squared error over rows `(x0, x1, x2, y)`.
    #[differentiable]
    pub fn mse(w: &[f64], rows: &[f64]) -> f64 {
        let mut total = 0.0;
        let mut count = 0;
        for row in rows.chunks_exact(4) {
            let r = predict(w, &row[..3]) - row[3];
            total += r * r;
            count += 1;
        }
        total / count as f64
    }

    #[differentiable(wrt(lr, w0), order = 2)]
    pub fn meta_loss(lr: f64, w0: [f64; 3], train: &[f64], val: &[f64]) -> f64 {
        let mut w = vec![0.0; 3];
        for i in 0..3 {
            w[i] = w0[i];
        }
        let n = (train.len() / 4) as f64;
        let mut g = [0.0; 3];
        for _step in 0..5 {
            for i in 0..3 {
                g[i] = 0.0;
            }
            for row in train.chunks_exact(4) {
                let r = predict(&w, &row[..3]) - row[3];
                for i in 0..3 {
                    g[i] += 2.0 * r * row[i] / n;
                }
            }
            for i in 0..3 {
                w[i] -= lr * g[i];
            }
        }
        mse(&w, val)
    }

    fn reference(lr: f64, w0: &[f64], train: &[f64], val: &[f64]) -> f64 {
        let mut w = w0.to_vec();
        let n = (train.len() / 4) as f64;
        for _ in 0..5 {
            let mut g = [0.0; 3];
            for row in train.chunks_exact(4) {
                let r = w[0] * row[0] + w[1] * row[1] + w[2] * row[2] - row[3];
                for i in 0..3 {
                    g[i] += 2.0 * r * row[i] / n;
                }
            }
            for i in 0..3 {
                w[i] -= lr * g[i];
            }
        }
        let rows: Vec<&[f64]> = val.chunks_exact(4).collect();
        rows.iter()
            .map(|r| (w[0] * r[0] + w[1] * r[1] + w[2] * r[2] - r[3]).powi(2))
            .sum::<f64>()
            / rows.len() as f64
    }

    fn data(seed: u64, rows: usize) -> Vec<f64> {
        let mut r = common::Inputs(seed);
        let mut out = Vec::new();
        for _ in 0..rows {
            let x = r.vec(3);
            let y = 0.8 * x[0] - 0.5 * x[1] + 0.3 * x[2] + 0.05 * r.next();
            out.extend_from_slice(&x);
            out.push(y);
        }
        out
    }

    #[test]
    fn meta_loss_audit() {
        let (train, val) = (data(4701, 6), data(4702, 5));
        let mut pts = points(4703, 4, 10, -1.0, 1.0);
        for p in &mut pts {
            p[0] = 0.1 + 0.4 * (p[0] + 1.0);
        }
        for p in &pts {
            assert_close(
                meta_loss(p[0], arr(&p[1..]), &train, &val),
                reference(p[0], &p[1..], &train, &val),
                1e-12,
                "meta_loss value",
            );
        }
        let split = |x: &[f64]| (x[0], arr::<3>(&x[1..]));
        let join = |a: f64, b: [f64; 3]| {
            let mut v = vec![a];
            v.extend_from_slice(&b);
            v
        };
        audit(
            &Items {
                what: "meta::meta_loss",
                primal: &|x| {
                    let (lr, w) = split(x);
                    meta_loss(lr, w, &train, &val)
                },
                grad: &|x| {
                    let (lr, w) = split(x);
                    let (v, (a, b)) = meta_loss_grad(lr, w, &train, &val);
                    (v, join(a, b))
                },
                vjp: &|x, d| {
                    let (lr, w) = split(x);
                    let (v, (a, b)) = meta_loss_vjp(lr, w, &train, &val, d);
                    (v, join(a, b))
                },
                jvp: &|x, t| {
                    let (lr, w) = split(x);
                    meta_loss_jvp(lr, w, &train, &val, (t[0], arr(&t[1..])))
                },
                grad_into: &|x| {
                    let (lr, w) = split(x);
                    let (mut a, mut b) = (f64::NAN, [f64::NAN; 3]);
                    let v = meta_loss_grad_into(lr, w, &train, &val, (&mut a, &mut b));
                    let (_, (ga, gb)) = meta_loss_grad(lr, w, &train, &val);
                    same_bits(&join(a, b), &join(ga, gb), "meta_loss");
                    (v, join(a, b))
                },
                hvp: Some(&|x, t| {
                    let (lr, w) = split(x);
                    let (v, (a, b), (ha, hb)) =
                        meta_loss_hvp(lr, w, &train, &val, (t[0], arr(&t[1..])));
                    (v, join(a, b), join(ha, hb))
                }),
                hessian: Some(&|x| {
                    let (lr, w) = split(x);
                    let (v, (a, b), h) = meta_loss_hessian(lr, w, &train, &val);
                    (v, join(a, b), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn at_zero_learning_rate_the_gradient_is_the_validation_gradient() {
        let (train, val) = (data(4704, 6), data(4705, 5));
        for p in points(4706, 3, 10, -1.0, 1.0) {
            let (_, (_, gw)) = meta_loss_grad(0.0, arr(&p), &train, &val);
            let (_, (g, _)) = mse_grad(&p, &val);
            assert_all_close(&gw, &g, 1e-12, "meta at lr = 0");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) An LSTM with hidden size `hidden` as a `Differentiable` struct: gate pre-activations as a method
// with `wrt(self, h)`, the cell step as a method returning a tuple, the state vectors overwritten each
// step, the loss a method with `wrt(self)`, and a free function calling it.

mod lstm {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Lstm {
        /// Input weights, gate-major: `wx[k * hidden + j]` for gate `k` (i, f, o, g) and unit `j`.
        pub wx: Vec<f64>,
        pub wh: Vec<f64>,
        pub b: Vec<f64>,
        pub head: Vec<f64>,
        #[no_grad]
        pub hidden: usize,
    }

    #[differentiable]
    pub fn sigmoid(z: f64) -> f64 {
        1.0 / (1.0 + (-z).exp())
    }

    impl Lstm {
        #[differentiable(wrt(self, h))]
        pub fn gate(&self, k: usize, j: usize, x: f64, h: &[f64]) -> f64 {
            let hs = self.hidden;
            let row = k * hs + j;
            let mut z = self.b[row] + self.wx[row] * x;
            for m in 0..hs {
                z += self.wh[row * hs + m] * h[m];
            }
            z
        }

        /// The new cell and hidden value of unit `j`.
        #[differentiable(wrt(self, h, c))]
        pub fn unit(&self, j: usize, x: f64, h: &[f64], c: f64) -> (f64, f64) {
            let i = sigmoid(self.gate(0, j, x, h));
            let f = sigmoid(self.gate(1, j, x, h));
            let o = sigmoid(self.gate(2, j, x, h));
            let g = self.gate(3, j, x, h).tanh();
            let c_new = f * c + i * g;
            (c_new, o * c_new.tanh())
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, xs: &[f64], target: f64) -> f64 {
            let hs = self.hidden;
            let mut h = vec![0.0; hs];
            let mut c = vec![0.0; hs];
            let mut h_new = vec![0.0; hs];
            for &x in xs {
                for j in 0..hs {
                    let (cj, hj) = self.unit(j, x, &h, c[j]);
                    c[j] = cj;
                    h_new[j] = hj;
                }
                for j in 0..hs {
                    h[j] = h_new[j];
                }
            }
            let y = self
                .head
                .iter()
                .zip(h.iter())
                .map(|(w, v)| w * v)
                .sum::<f64>();
            (y - target).powi(2)
        }
    }

    #[differentiable(wrt(model))]
    pub fn batch(model: &Lstm, seqs: &[Vec<f64>], targets: &[f64]) -> f64 {
        let mut total = 0.0;
        for s in 0..seqs.len() {
            total += model.loss(&seqs[s], targets[s]);
        }
        total / seqs.len() as f64
    }

    fn sig(z: f64) -> f64 {
        1.0 / (1.0 + (-z).exp())
    }

    /// The same network written plainly over a flat parameter vector.
    fn reference(m: &Lstm, xs: &[f64], target: f64) -> f64 {
        let hs = m.hidden;
        let mut h = vec![0.0; hs];
        let mut c = vec![0.0; hs];
        for &x in xs {
            let z = |k: usize, j: usize| {
                let row = k * hs + j;
                m.b[row] + m.wx[row] * x + (0..hs).map(|q| m.wh[row * hs + q] * h[q]).sum::<f64>()
            };
            let mut nh = vec![0.0; hs];
            for j in 0..hs {
                c[j] = sig(z(1, j)) * c[j] + sig(z(0, j)) * z(3, j).tanh();
                nh[j] = sig(z(2, j)) * c[j].tanh();
            }
            h = nh;
        }
        (m.head.iter().zip(&h).map(|(a, b)| a * b).sum::<f64>() - target).powi(2)
    }

    fn model(seed: u64) -> Lstm {
        let mut r = common::Inputs(seed);
        let hs = 2;
        Lstm {
            wx: r.vec(4 * hs),
            wh: r.vec(4 * hs * hs).iter().map(|v| 0.7 * v).collect(),
            b: r.vec(4 * hs),
            head: r.vec(hs),
            hidden: hs,
        }
    }

    const XS: [f64; 5] = [0.3, -0.8, 1.1, 0.2, -0.5];

    #[test]
    fn loss_audit() {
        use autodiff::Differentiable;
        let base = model(4711);
        let pts: Vec<Vec<f64>> = (0..10).map(|k| model(4712 + k).to_flat()).collect();
        for p in &pts {
            let m = base.from_flat(p);
            assert_close(
                m.loss(&XS, 0.4),
                reference(&m, &XS, 0.4),
                1e-12,
                "lstm value",
            );
            assert_eq!(m.hidden, 2);
        }
        audit(
            &Items {
                what: "lstm::loss",
                primal: &|x| base.from_flat(x).loss(&XS, 0.4),
                grad: &|x| {
                    let (v, g) = base.from_flat(x).loss_grad(&XS, 0.4);
                    assert_eq!(g.hidden, 2, "the no_grad field is copied");
                    (v, g.to_flat())
                },
                vjp: &|x, d| {
                    let (v, g) = base.from_flat(x).loss_vjp(&XS, 0.4, d);
                    (v, g.to_flat())
                },
                jvp: &|x, t| base.from_flat(x).loss_jvp(&XS, 0.4, base.from_flat(t)),
                grad_into: &|x| {
                    let m = base.from_flat(x);
                    let mut g = base.from_flat(&vec![f64::NAN; x.len()]);
                    let v = m.loss_grad_into(&XS, 0.4, &mut g);
                    same_bits(&g.to_flat(), &m.loss_grad(&XS, 0.4).1.to_flat(), "lstm");
                    (v, g.to_flat())
                },
                hvp: Some(&|x, t| {
                    let (v, g, hv) = base.from_flat(x).loss_hvp(&XS, 0.4, base.from_flat(t));
                    (v, g.to_flat(), hv.to_flat())
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = base.from_flat(x).loss_hessian(&XS, 0.4);
                    (v, g.to_flat(), h)
                }),
                analytic: None,
            },
            &pts[..4],
        );
    }

    #[test]
    fn batch_gradient_is_the_mean_of_the_method_gradients() {
        use autodiff::Differentiable;
        let seqs = vec![XS.to_vec(), vec![0.5, 0.1, -0.9], vec![-1.2, 0.4, 0.7, 0.0]];
        let targets = [0.4, -0.2, 0.1];
        for k in 0..10 {
            let m = model(4730 + k);
            let (v, g) = batch_grad(&m, &seqs, &targets);
            let mut sum = m.zero_like();
            let mut vs = 0.0;
            for s in 0..3 {
                let (vi, gi) = m.loss_grad(&seqs[s], targets[s]);
                sum.add_assign(&gi);
                vs += vi;
            }
            sum.scale(1.0 / 3.0);
            assert_close(v, vs / 3.0, 1e-12, "batch value");
            assert_all_close(&g.to_flat(), &sum.to_flat(), 1e-12, "batch gradient");
            let f = |x: &[f64]| batch(&m.from_flat(x), &seqs, &targets);
            common::assert_fd_gradient(f, &m.to_flat(), &g.to_flat(), "lstm batch");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) Bundle adjustment: a Rodrigues rotation with its small-angle branch (an early `return` of an
// array), a cross product helper, a pinhole projection with radial distortion by `mul_add`, the
// residual's `_jacobian` over camera and point, and the total cost at `order = 2` over the camera.

mod bundle {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    #[differentiable]
    pub fn rotate(w: [f64; 3], p: [f64; 3]) -> [f64; 3] {
        let theta = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
        if theta < 1e-8 {
            let wxp = cross(w, p);
            return [p[0] + wxp[0], p[1] + wxp[1], p[2] + wxp[2]];
        }
        let k = [w[0] / theta, w[1] / theta, w[2] / theta];
        let (s, c) = (theta.sin(), theta.cos());
        let kxp = cross(k, p);
        let kdp = k[0] * p[0] + k[1] * p[1] + k[2] * p[2];
        let mut out = [0.0; 3];
        for i in 0..3 {
            out[i] = p[i] * c + kxp[i] * s + k[i] * kdp * (1.0 - c);
        }
        out
    }

    /// `cam`: rotation (3), translation (3), focal length, k1, k2.
    #[differentiable]
    pub fn project(cam: [f64; 9], pt: [f64; 3]) -> [f64; 2] {
        let q = rotate([cam[0], cam[1], cam[2]], pt);
        let x = q[0] + cam[3];
        let y = q[1] + cam[4];
        let z = q[2] + cam[5];
        let (u, v) = (-x / z, -y / z);
        let r2 = u * u + v * v;
        let distortion = r2.mul_add(cam[8], cam[7]).mul_add(r2, 1.0);
        [cam[6] * distortion * u, cam[6] * distortion * v]
    }

    #[differentiable(wrt(cam, pt))]
    pub fn residual(cam: [f64; 9], pt: [f64; 3], obs: [f64; 2]) -> [f64; 2] {
        let p = project(cam, pt);
        [p[0] - obs[0], p[1] - obs[1]]
    }

    #[differentiable(wrt(cam), order = 2)]
    pub fn cost(cam: [f64; 9], pts: &[[f64; 3]], obs: &[[f64; 2]]) -> f64 {
        let mut total = 0.0;
        for i in 0..pts.len() {
            let r = residual(cam, pts[i], obs[i]);
            total += 0.5 * (r[0] * r[0] + r[1] * r[1]);
        }
        total
    }

    fn rotate_by_matrix(w: &[f64], p: &[f64]) -> Vec<f64> {
        // R = I + sin(t) K + (1 - cos(t)) K^2 with K the cross-product matrix of w / t.
        let t = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
        let k: Vec<f64> = w.iter().map(|v| v / t).collect();
        let km = [[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]];
        let mut out = p.to_vec();
        for i in 0..3 {
            for j in 0..3 {
                let k2: f64 = (0..3).map(|m| km[i][m] * km[m][j]).sum();
                out[i] += (t.sin() * km[i][j] + (1.0 - t.cos()) * k2) * p[j];
            }
        }
        out
    }

    fn camera(p: &[f64]) -> [f64; 9] {
        [
            0.4 * p[0],
            0.4 * p[1],
            0.4 * p[2],
            0.2 * p[3],
            0.2 * p[4],
            -5.0 + 0.3 * p[5],
            1.0 + 0.2 * p[6],
            0.1 * p[7],
            0.05 * p[8],
        ]
    }

    #[test]
    fn rotation_against_the_matrix_form_and_its_jacobian() {
        for p in points(4741, 6, 12, -1.5, 1.5) {
            let (w, q) = (arr::<3>(&p), arr::<3>(&p[3..]));
            assert_all_close(&rotate(w, q), &rotate_by_matrix(&w, &q), 1e-12, "rotate");
            let j = rotate_jacobian(w, q);
            check_jacobian("rotate", &p, &j, |x| rotate(arr(x), arr(&x[3..])).to_vec());
        }
        // At w = 0 the small-angle branch gives the exact first derivative: d(R p)/dw = -[p]x.
        for p in points(4742, 3, 10, -2.0, 2.0) {
            let j = rotate_jacobian([0.0; 3], arr(&p));
            let expected = [
                [1.0, 0.0, 0.0, 0.0, p[2], -p[1]],
                [0.0, 1.0, 0.0, -p[2], 0.0, p[0]],
                [0.0, 0.0, 1.0, p[1], -p[0], 0.0],
            ];
            for i in 0..3 {
                assert_all_close(&j[i][..3], &expected[i][3..], 1e-15, "rotate at 0: dw");
                assert_all_close(&j[i][3..], &expected[i][..3], 1e-15, "rotate at 0: dp");
            }
        }
    }

    #[test]
    fn residual_jacobian_and_duality() {
        for p in points(4743, 12, 12, -1.0, 1.0) {
            let (cam, pt) = (camera(&p), arr::<3>(&p[9..]));
            let obs = [0.1, -0.05];
            let mut x = cam.to_vec();
            x.extend_from_slice(&pt);
            let j = residual_jacobian(cam, pt, obs);
            assert_eq!((j.len(), j[0].len()), (2, 12));
            check_jacobian("residual", &x, &j, |y| {
                residual(arr(y), arr(&y[9..]), obs).to_vec()
            });
            let (c, t) = (wave(2, 0.3), wave(12, 1.1));
            let (v1, (gc, gp)) = residual_vjp(cam, pt, obs, [c[0], c[1]]);
            let (v2, jt) = residual_jvp(cam, pt, obs, (arr(&t), arr(&t[9..])));
            assert_eq!(v1, v2);
            let mut cj = gc.to_vec();
            cj.extend_from_slice(&gp);
            check_dual("residual", &c, &jt, &cj, &t);
            for i in 0..2 {
                assert_close(dot(&j[i], &t), jt[i], 1e-12, "jacobian row times t");
            }
        }
    }

    #[test]
    fn cost_audit() {
        let mut r = common::Inputs(4744);
        let pts: Vec<[f64; 3]> = (0..4).map(|_| arr(&r.vec(3))).collect();
        let obs: Vec<[f64; 2]> = (0..4).map(|_| arr(&r.vec(2))).collect();
        let at: Vec<Vec<f64>> = points(4745, 9, 6, -1.0, 1.0)
            .iter()
            .map(|p| camera(p).to_vec())
            .collect();
        audit(
            &Items {
                what: "bundle::cost",
                primal: &|x| cost(arr(x), &pts, &obs),
                grad: &|x| {
                    let (v, g) = cost_grad(arr(x), &pts, &obs);
                    (v, g.to_vec())
                },
                vjp: &|x, d| {
                    let (v, g) = cost_vjp(arr(x), &pts, &obs, d);
                    (v, g.to_vec())
                },
                jvp: &|x, t| cost_jvp(arr(x), &pts, &obs, arr(t)),
                grad_into: &|x| {
                    let mut g = [f64::NAN; 9];
                    let v = cost_grad_into(arr(x), &pts, &obs, &mut g);
                    same_bits(&g, &cost_grad(arr(x), &pts, &obs).1, "cost");
                    (v, g.to_vec())
                },
                hvp: Some(&|x, t| {
                    let (v, g, hv) = cost_hvp(arr(x), &pts, &obs, arr(t));
                    (v, g.to_vec(), hv.to_vec())
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = cost_hessian(arr(x), &pts, &obs);
                    (v, g.to_vec(), h)
                }),
                analytic: None,
            },
            &at,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (4) A Hodgkin-Huxley neuron by forward Euler: rate functions with `exp` and `exp_m1`, the removable
// singularity of `x / (exp(x / y) - 1)` handled by a branch, gating variables overwritten each step,
// the membrane trace into an output parameter (`_jacobian` over the conductances and the current).

mod hodgkin_huxley {
    use super::*;
    use autodiff::differentiable;

    /// `x / (exp(x / y) - 1)`, with its Taylor expansion near `x = 0`.
    #[differentiable]
    pub fn vtrap(x: f64, y: f64) -> f64 {
        let r = x / y;
        if r.abs() < 1e-6 {
            y * (1.0 - r / 2.0)
        } else {
            x / r.exp_m1()
        }
    }

    #[differentiable]
    pub fn rates(v: f64) -> (f64, f64, f64, f64, f64, f64) {
        let am = 0.1 * vtrap(-(v + 40.0), 10.0);
        let bm = 4.0 * (-(v + 65.0) / 18.0).exp();
        let ah = 0.07 * (-(v + 65.0) / 20.0).exp();
        let bh = 1.0 / (1.0 + (-(v + 35.0) / 10.0).exp());
        let an = 0.01 * vtrap(-(v + 55.0), 10.0);
        let bn = 0.125 * (-(v + 65.0) / 80.0).exp();
        (am, bm, ah, bh, an, bn)
    }

    /// `g`: sodium, potassium and leak conductances.
    #[differentiable(wrt(g, i_ext))]
    pub fn simulate(g: [f64; 3], i_ext: f64, dt: f64, trace: &mut [f64]) {
        let mut v = -65.0;
        let (mut m, mut h, mut n) = (0.05_f64, 0.6, 0.32_f64);
        for k in 0..trace.len() {
            let (am, bm, ah, bh, an, bn) = rates(v);
            let i_na = g[0] * m.powi(3) * h * (v - 50.0);
            let i_k = g[1] * n.powi(4) * (v + 77.0);
            let i_l = g[2] * (v + 54.387);
            v += dt * (i_ext - i_na - i_k - i_l);
            m += dt * (am * (1.0 - m) - bm * m);
            h += dt * (ah * (1.0 - h) - bh * h);
            n += dt * (an * (1.0 - n) - bn * n);
            trace[k] = v;
        }
    }

    #[test]
    fn vtrap_is_smooth_through_its_singularity() {
        for y in [10.0, -3.0, 0.5] {
            // The limit and the slope at 0: y and -1/2.
            assert_eq!(vtrap(0.0, y), y);
            let (_, (dx, dy)) = vtrap_grad(0.0, y);
            assert_close(dx, -0.5, 1e-12, "d vtrap / dx at 0");
            assert_close(dy, 1.0, 1e-12, "d vtrap / dy at 0");
            for x in [1e-3, -2.0, 3.5, 12.0] {
                let (v, (dx, dy)) = vtrap_grad(x, y);
                let e = (x / y).exp();
                assert_close(v, x / (e - 1.0), 1e-9, "vtrap value");
                let by_hand = 1.0 / (e - 1.0) - x * e / (y * (e - 1.0).powi(2));
                assert_close(dx, by_hand, 1e-8, "d vtrap / dx");
                let by_hand_y = x * x * e / (y * y * (e - 1.0).powi(2));
                assert_close(dy, by_hand_y, 1e-8, "d vtrap / dy");
            }
        }
        // -40 makes the sodium activation rate's argument 0.
        let (_, d_am) = rates_jvp(-40.0, 1.0);
        assert_close(d_am.0, 0.1 * 0.5, 1e-12, "d alpha_m / dv at -40");
    }

    #[test]
    fn trace_jacobian_and_duality() {
        for p in points(4751, 4, 10, -1.0, 1.0) {
            let g = [120.0 + 10.0 * p[0], 36.0 + 4.0 * p[1], 0.3 + 0.05 * p[2]];
            let i_ext = 10.0 + 3.0 * p[3];
            let x = [g[0], g[1], g[2], i_ext];
            let mut trace = vec![0.0; 60];
            let j = simulate_jacobian(g, i_ext, 0.02, &mut trace);
            assert_eq!((j.len(), j[0].len()), (60, 4));
            let plain = |y: &[f64]| {
                let mut t = vec![0.0; 60];
                simulate(arr(y), y[3], 0.02, &mut t);
                t
            };
            assert_all_close(&trace, &plain(&x), 0.0, "trace written by _jacobian");
            check_jacobian("hh trace", &x, &j, plain);
            let c = wave(60, 0.2);
            let t = wave(4, 0.9);
            let mut out = vec![0.0; 60];
            let (gg, gi) = simulate_vjp(g, i_ext, 0.02, &mut out, &c);
            let mut d_out = vec![0.0; 60];
            simulate_jvp(g, i_ext, 0.02, &mut out, (arr(&t), t[3]), &mut d_out);
            check_dual("hh", &c, &d_out, &[gg[0], gg[1], gg[2], gi], &t);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) A strided 1-D convolution (`const K: usize` kernel, `mul_add`, ReLU by `max(0.0)`) into an
// output parameter, max pooling by `chunks_exact` and `fold`, a linear head, and a squared loss at
// `order = 2` over kernel, bias and head.

mod conv_pool {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn conv<const K: usize>(
        x: &[f64],
        kernel: [f64; K],
        bias: f64,
        stride: usize,
        out: &mut [f64],
    ) {
        for o in 0..out.len() {
            let start = o * stride;
            let mut acc = bias;
            for (k, &w) in kernel.iter().enumerate() {
                acc = w.mul_add(x[start + k], acc);
            }
            out[o] = acc.max(0.0);
        }
    }

    #[differentiable]
    pub fn pool_head(z: &[f64], width: usize, head: &[f64]) -> f64 {
        let mut y = 0.0;
        for (p, window) in z.chunks_exact(width).enumerate() {
            let m = window.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
            y += head[p] * m;
        }
        y
    }

    #[differentiable(wrt(kernel, bias, head), order = 2)]
    pub fn loss(kernel: [f64; 3], bias: f64, head: [f64; 2], x: &[f64], target: f64) -> f64 {
        let n_out = (x.len() - 3) / 2 + 1;
        let mut z = vec![0.0; n_out];
        conv(x, kernel, bias, 2, &mut z);
        let used = 2 * (n_out / 2);
        let y = pool_head(&z[..used], n_out / 2, &head);
        (y - target).powi(2)
    }

    fn reference(kernel: &[f64], bias: f64, head: &[f64], x: &[f64], target: f64) -> f64 {
        let n_out = (x.len() - 3) / 2 + 1;
        let z: Vec<f64> = (0..n_out)
            .map(|o| (bias + (0..3).map(|k| kernel[k] * x[2 * o + k]).sum::<f64>()).max(0.0))
            .collect();
        let w = n_out / 2;
        let m0 = z[..w].iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let m1 = z[w..2 * w]
            .iter()
            .cloned()
            .fold(f64::NEG_INFINITY, f64::max);
        (head[0] * m0 + head[1] * m1 - target).powi(2)
    }

    const X: [f64; 13] = [
        0.3, -0.7, 1.2, 0.5, -0.1, 0.9, -1.3, 0.4, 0.8, -0.6, 0.2, 1.1, -0.4,
    ];

    #[test]
    fn loss_audit() {
        let pts = points(4761, 6, 12, -1.0, 1.0);
        let split = |x: &[f64]| (arr::<3>(x), x[3], arr::<2>(&x[4..]));
        let join = |a: [f64; 3], b: f64, c: [f64; 2]| {
            let mut v = a.to_vec();
            v.push(b);
            v.extend_from_slice(&c);
            v
        };
        for p in &pts {
            let (k, b, h) = split(p);
            assert_close(
                loss(k, b, h, &X, 0.3),
                reference(&k, b, &h, &X, 0.3),
                1e-12,
                "conv value",
            );
        }
        audit(
            &Items {
                what: "conv_pool::loss",
                primal: &|x| {
                    let (k, b, h) = split(x);
                    loss(k, b, h, &X, 0.3)
                },
                grad: &|x| {
                    let (k, b, h) = split(x);
                    let (v, (gk, gb, gh)) = loss_grad(k, b, h, &X, 0.3);
                    (v, join(gk, gb, gh))
                },
                vjp: &|x, d| {
                    let (k, b, h) = split(x);
                    let (v, (gk, gb, gh)) = loss_vjp(k, b, h, &X, 0.3, d);
                    (v, join(gk, gb, gh))
                },
                jvp: &|x, t| {
                    let (k, b, h) = split(x);
                    loss_jvp(k, b, h, &X, 0.3, split(t))
                },
                grad_into: &|x| {
                    let (k, b, h) = split(x);
                    let (mut gk, mut gb, mut gh) = ([f64::NAN; 3], f64::NAN, [f64::NAN; 2]);
                    let v = loss_grad_into(k, b, h, &X, 0.3, (&mut gk, &mut gb, &mut gh));
                    let (_, (ek, eb, eh)) = loss_grad(k, b, h, &X, 0.3);
                    same_bits(&join(gk, gb, gh), &join(ek, eb, eh), "conv loss");
                    (v, join(gk, gb, gh))
                },
                hvp: Some(&|x, t| {
                    let (k, b, h) = split(x);
                    let (v, (gk, gb, gh), (hk, hb, hh)) = loss_hvp(k, b, h, &X, 0.3, split(t));
                    (v, join(gk, gb, gh), join(hk, hb, hh))
                }),
                hessian: Some(&|x| {
                    let (k, b, h) = split(x);
                    let (v, (gk, gb, gh), hess) = loss_hessian(k, b, h, &X, 0.3);
                    (v, join(gk, gb, gh), hess)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn conv_jacobian_is_the_masked_patches() {
        for p in points(4762, 4, 10, -1.0, 1.0) {
            let (kernel, bias) = (arr::<3>(&p), p[3]);
            let mut out = vec![0.0; 6];
            let j = conv_jacobian(&X, kernel, bias, 2, &mut out);
            // Columns: x (13), kernel (3), bias (1).
            assert_eq!((j.len(), j[0].len()), (6, 17));
            for o in 0..6 {
                let on = if out[o] > 0.0 { 1.0 } else { 0.0 };
                for k in 0..3 {
                    assert_eq!(j[o][2 * o + k], on * kernel[k], "d out / d x");
                    assert_eq!(j[o][13 + k], on * X[2 * o + k], "d out / d kernel");
                }
                assert_eq!(j[o][16], on, "d out / d bias");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) An unscented transform of a 2-D Gaussian through polar-to-Cartesian: a 2x2 Cholesky helper
// returning a tuple (`sqrt`), sigma points in a local array of arrays, a nonlinear helper returning a
// tuple, the transformed mean and covariance as an array result (`_jacobian`, `_vjp`, `_jvp`).

mod unscented {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn chol2(a: f64, b: f64, c: f64) -> (f64, f64, f64) {
        let l11 = a.sqrt();
        let l21 = b / l11;
        let l22 = (c - l21 * l21).sqrt();
        (l11, l21, l22)
    }

    #[differentiable]
    pub fn to_xy(r: f64, theta: f64) -> (f64, f64) {
        (r * theta.cos(), r * theta.sin())
    }

    /// `cov`: (var r, cov r theta, var theta); the result: mean x, mean y, cov xx, xy, yy.
    #[differentiable(wrt(mean, cov))]
    pub fn transform(mean: [f64; 2], cov: [f64; 3], kappa: f64) -> [f64; 5] {
        let n = 2.0;
        let (l11, l21, l22) = chol2(cov[0], cov[1], cov[2]);
        let s = (n + kappa).sqrt();
        let cols = [[l11, l21], [0.0, l22]];
        let mut sigma = [[0.0; 2]; 5];
        sigma[0] = mean;
        for j in 0..2 {
            for d in 0..2 {
                sigma[1 + j][d] = mean[d] + s * cols[j][d];
                sigma[3 + j][d] = mean[d] - s * cols[j][d];
            }
        }
        let mut ys = [[0.0; 2]; 5];
        let mut mx = 0.0;
        let mut my = 0.0;
        for i in 0..5 {
            let w = if i == 0 {
                kappa / (n + kappa)
            } else {
                0.5 / (n + kappa)
            };
            let (x, y) = to_xy(sigma[i][0], sigma[i][1]);
            ys[i] = [x, y];
            mx += w * x;
            my += w * y;
        }
        let mut out = [mx, my, 0.0, 0.0, 0.0];
        for (i, y) in ys.iter().enumerate() {
            let w = if i == 0 {
                kappa / (n + kappa)
            } else {
                0.5 / (n + kappa)
            };
            let (dx, dy) = (y[0] - mx, y[1] - my);
            out[2] += w * dx * dx;
            out[3] += w * dx * dy;
            out[4] += w * dy * dy;
        }
        out
    }

    fn reference(mean: &[f64], cov: &[f64], kappa: f64) -> Vec<f64> {
        let l11 = cov[0].sqrt();
        let l21 = cov[1] / l11;
        let l22 = (cov[2] - l21 * l21).sqrt();
        let s = (2.0 + kappa).sqrt();
        let offsets = [
            [0.0, 0.0],
            [s * l11, s * l21],
            [0.0, s * l22],
            [-s * l11, -s * l21],
            [0.0, -s * l22],
        ];
        let w = |i: usize| {
            if i == 0 {
                kappa / (2.0 + kappa)
            } else {
                0.5 / (2.0 + kappa)
            }
        };
        let ys: Vec<(f64, f64)> = offsets
            .iter()
            .map(|o| {
                let (r, t) = (mean[0] + o[0], mean[1] + o[1]);
                (r * t.cos(), r * t.sin())
            })
            .collect();
        let mx: f64 = (0..5).map(|i| w(i) * ys[i].0).sum();
        let my: f64 = (0..5).map(|i| w(i) * ys[i].1).sum();
        let c = |f: &dyn Fn(usize) -> f64| (0..5).map(|i| w(i) * f(i)).sum::<f64>();
        vec![
            mx,
            my,
            c(&|i| (ys[i].0 - mx).powi(2)),
            c(&|i| (ys[i].0 - mx) * (ys[i].1 - my)),
            c(&|i| (ys[i].1 - my).powi(2)),
        ]
    }

    #[test]
    fn transform_value_jacobian_and_duality() {
        for p in points(4771, 5, 12, -1.0, 1.0) {
            let mean = [2.0 + p[0], 0.5 * p[1]];
            let cov = [0.1 + 0.05 * p[2], 0.02 * p[3], 0.08 + 0.03 * p[4]];
            let kappa = 1.0;
            let out = transform(mean, cov, kappa);
            assert_all_close(&out, &reference(&mean, &cov, kappa), 1e-12, "ut value");
            let x = [mean[0], mean[1], cov[0], cov[1], cov[2]];
            let j = transform_jacobian(mean, cov, kappa);
            assert_eq!((j.len(), j[0].len()), (5, 5));
            check_jacobian("ut", &x, &j, |y| {
                transform(arr(y), arr(&y[2..]), kappa).to_vec()
            });
            let (c, t) = (wave(5, 0.4), wave(5, 1.7));
            let (v1, (gm, gc)) = transform_vjp(mean, cov, kappa, arr(&c));
            let (v2, jt) = transform_jvp(mean, cov, kappa, (arr(&t), arr(&t[2..])));
            assert_eq!(v1, v2);
            check_dual("ut", &c, &jt, &[gm[0], gm[1], gc[0], gc[1], gc[2]], &t);
        }
    }

    #[test]
    fn the_cholesky_helper_by_hand() {
        for p in points(4772, 3, 10, 0.2, 1.0) {
            let (a, b, c) = (1.0 + p[0], 0.3 * p[1], 1.0 + p[2]);
            let (_, (da, db, dc)) = chol2_vjp(a, b, c, (0.0, 0.0, 1.0));
            // l22 = sqrt(c - b^2 / a).
            let l22 = (c - b * b / a).sqrt();
            assert_close(da, b * b / (a * a) / (2.0 * l22), 1e-12, "dl22/da");
            assert_close(db, -2.0 * b / a / (2.0 * l22), 1e-12, "dl22/db");
            assert_close(dc, 1.0 / (2.0 * l22), 1e-12, "dl22/dc");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (7) Soft rasterisation: circles `(cx, cy, r, alpha)` read by `chunks_exact`, the coverage a sigmoid
// of the signed distance (`hypot`), over-composited into a pixel buffer that is an output parameter
// cleared first (so its incoming value is not an input), and an image loss at `order = 2`.

mod raster {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sigmoid(z: f64) -> f64 {
        1.0 / (1.0 + (-z).exp())
    }

    #[differentiable(wrt(circles))]
    pub fn rasterise(circles: &[f64], width: usize, sharpness: f64, image: &mut [f64]) {
        for p in 0..image.len() {
            image[p] = 0.0;
        }
        let height = image.len() / width;
        for c in circles.chunks_exact(4) {
            for py in 0..height {
                for px in 0..width {
                    let (x, y) = (px as f64 + 0.5, py as f64 + 0.5);
                    let d = (x - c[0]).hypot(y - c[1]) - c[2];
                    let a = sigmoid(-sharpness * d) * c[3];
                    let idx = py * width + px;
                    image[idx] = a + (1.0 - a) * image[idx];
                }
            }
        }
    }

    #[differentiable(wrt(circles), order = 2)]
    pub fn fit(circles: &[f64], target: &[f64], width: usize) -> f64 {
        let mut image = vec![0.0; target.len()];
        rasterise(circles, width, 2.0, &mut image);
        image
            .iter()
            .zip(target.iter())
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
    }

    fn reference(circles: &[f64], width: usize, height: usize) -> Vec<f64> {
        let mut img = vec![0.0; width * height];
        for c in circles.chunks(4) {
            for (idx, px) in img.iter_mut().enumerate() {
                let (x, y) = ((idx % width) as f64 + 0.5, (idx / width) as f64 + 0.5);
                let d = ((x - c[0]).powi(2) + (y - c[1]).powi(2)).sqrt() - c[2];
                let a = c[3] / (1.0 + (2.0 * d).exp());
                *px = a + (1.0 - a) * *px;
            }
        }
        img
    }

    fn scene(p: &[f64]) -> Vec<f64> {
        vec![
            2.0 + p[0],
            2.5 + p[1],
            1.5 + 0.3 * p[2],
            0.7 + 0.2 * p[3],
            3.5 + p[4],
            2.0 + p[5],
            1.0 + 0.3 * p[6],
            0.5 + 0.2 * p[7],
        ]
    }

    #[test]
    fn rasterise_value_jacobian_and_duality() {
        for p in points(4781, 8, 10, -1.0, 1.0) {
            let circles = scene(&p);
            let mut image = vec![f64::NAN; 30];
            let j = rasterise_jacobian(&circles, 6, 2.0, &mut image);
            assert_all_close(&image, &reference(&circles, 6, 5), 1e-12, "raster value");
            assert_eq!((j.len(), j[0].len()), (30, 8));
            check_jacobian("raster", &circles, &j, |x| {
                let mut img = vec![0.0; 30];
                rasterise(x, 6, 2.0, &mut img);
                img
            });
            let (c, t) = (wave(30, 0.1), wave(8, 2.3));
            let mut out = vec![f64::NAN; 30];
            let g = rasterise_vjp(&circles, 6, 2.0, &mut out, &c);
            let mut d_out = vec![0.0; 30];
            rasterise_jvp(&circles, 6, 2.0, &mut out, t.clone(), &mut d_out);
            check_dual("raster", &c, &d_out, &g, &t);
        }
    }

    #[test]
    fn fit_audit() {
        let target = reference(&scene(&[0.2; 8]), 6, 5);
        let pts: Vec<Vec<f64>> = points(4782, 8, 5, -1.0, 1.0)
            .iter()
            .map(|p| scene(p))
            .collect();
        audit(
            &Items {
                what: "raster::fit",
                primal: &|x| fit(x, &target, 6),
                grad: &|x| fit_grad(x, &target, 6),
                vjp: &|x, d| fit_vjp(x, &target, 6, d),
                jvp: &|x, t| fit_jvp(x, &target, 6, t.to_vec()),
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; x.len()];
                    let v = fit_grad_into(x, &target, 6, &mut g);
                    same_bits(&g, &fit_grad(x, &target, 6).1, "raster fit");
                    (v, g)
                },
                hvp: Some(&|x, t| fit_hvp(x, &target, 6, t.to_vec())),
                hessian: Some(&|x| fit_hessian(x, &target, 6)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (8) A Kuramoto oscillator network by RK2 (midpoint): the drift (`sin` of phase differences) into an
// output parameter, called twice per step on local buffers, the order parameter by a `fold` with a
// tuple accumulator and `hypot`, at `order = 2` over the coupling and the natural frequencies.

mod kuramoto {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn drift(theta: &[f64], omega: &[f64], k: f64, out: &mut [f64]) {
        let n = theta.len();
        for i in 0..n {
            let mut s = 0.0;
            for j in 0..n {
                if j == i {
                    continue;
                }
                s += (theta[j] - theta[i]).sin();
            }
            out[i] = omega[i] + k / n as f64 * s;
        }
    }

    #[differentiable]
    pub fn order_parameter(theta: &[f64]) -> f64 {
        let (c, s) = theta
            .iter()
            .fold((0.0, 0.0), |(c, s), &t| (c + t.cos(), s + t.sin()));
        c.hypot(s) / theta.len() as f64
    }

    #[differentiable(wrt(k, omega), order = 2)]
    pub fn synchrony(k: f64, omega: &[f64], theta0: &[f64], dt: f64, steps: usize) -> f64 {
        let n = theta0.len();
        let mut th = vec![0.0; n];
        for i in 0..n {
            th[i] = theta0[i];
        }
        let mut k1 = vec![0.0; n];
        let mut k2 = vec![0.0; n];
        let mut mid = vec![0.0; n];
        for _ in 0..steps {
            drift(&th, omega, k, &mut k1);
            for i in 0..n {
                mid[i] = th[i] + 0.5 * dt * k1[i];
            }
            drift(&mid, omega, k, &mut k2);
            for i in 0..n {
                th[i] += dt * k2[i];
            }
        }
        order_parameter(&th)
    }

    fn reference(k: f64, omega: &[f64], theta0: &[f64], dt: f64, steps: usize) -> f64 {
        let n = theta0.len();
        let f = |th: &[f64]| -> Vec<f64> {
            (0..n)
                .map(|i| {
                    omega[i] + k / n as f64 * (0..n).map(|j| (th[j] - th[i]).sin()).sum::<f64>()
                })
                .collect()
        };
        let mut th = theta0.to_vec();
        for _ in 0..steps {
            let a = f(&th);
            let mid: Vec<f64> = th.iter().zip(&a).map(|(t, d)| t + 0.5 * dt * d).collect();
            let b = f(&mid);
            for i in 0..n {
                th[i] += dt * b[i];
            }
        }
        let c: f64 = th.iter().map(|t| t.cos()).sum();
        let s: f64 = th.iter().map(|t| t.sin()).sum();
        (c * c + s * s).sqrt() / n as f64
    }

    const THETA0: [f64; 4] = [0.1, 1.3, -0.8, 2.4];

    #[test]
    fn order_parameter_by_hand() {
        for p in points(4791, 4, 10, -3.0, 3.0) {
            let (r, g) = order_parameter_grad(&p);
            let c: f64 = p.iter().map(|t| t.cos()).sum();
            let s: f64 = p.iter().map(|t| t.sin()).sum();
            assert_close(r, c.hypot(s) / 4.0, 1e-15, "order parameter");
            // d r / d t_i = (-c sin t_i + s cos t_i) / (n |z|).
            let by_hand: Vec<f64> = p
                .iter()
                .map(|t| (-c * t.sin() + s * t.cos()) / (4.0 * c.hypot(s)))
                .collect();
            assert_all_close(&g, &by_hand, 1e-12, "order parameter gradient");
        }
    }

    #[test]
    fn synchrony_audit() {
        let mut pts = points(4792, 5, 8, -1.0, 1.0);
        for p in &mut pts {
            p[0] = 1.0 + 0.8 * p[0];
            assert_close(
                synchrony(p[0], &p[1..], &THETA0, 0.1, 15),
                reference(p[0], &p[1..], &THETA0, 0.1, 15),
                1e-12,
                "kuramoto value",
            );
        }
        let join = |a: f64, b: Vec<f64>| {
            let mut v = vec![a];
            v.extend(b);
            v
        };
        audit(
            &Items {
                what: "kuramoto::synchrony",
                primal: &|x| synchrony(x[0], &x[1..], &THETA0, 0.1, 15),
                grad: &|x| {
                    let (v, (a, b)) = synchrony_grad(x[0], &x[1..], &THETA0, 0.1, 15);
                    (v, join(a, b))
                },
                vjp: &|x, d| {
                    let (v, (a, b)) = synchrony_vjp(x[0], &x[1..], &THETA0, 0.1, 15, d);
                    (v, join(a, b))
                },
                jvp: &|x, t| {
                    synchrony_jvp(x[0], &x[1..], &THETA0, 0.1, 15, (t[0], t[1..].to_vec()))
                },
                grad_into: &|x| {
                    let (mut a, mut b) = (f64::NAN, vec![f64::NAN; 4]);
                    let v = synchrony_grad_into(x[0], &x[1..], &THETA0, 0.1, 15, (&mut a, &mut b));
                    let (_, (ea, eb)) = synchrony_grad(x[0], &x[1..], &THETA0, 0.1, 15);
                    same_bits(&join(a, b.clone()), &join(ea, eb), "kuramoto");
                    (v, join(a, b))
                },
                hvp: Some(&|x, t| {
                    let (v, (a, b), (ha, hb)) =
                        synchrony_hvp(x[0], &x[1..], &THETA0, 0.1, 15, (t[0], t[1..].to_vec()));
                    (v, join(a, b), join(ha, hb))
                }),
                hessian: Some(&|x| {
                    let (v, (a, b), h) = synchrony_hessian(x[0], &x[1..], &THETA0, 0.1, 15);
                    (v, join(a, b), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (9) SoftSort soft ranks: the scores sorted (descending) by counting ranks into a local `Vec` at
// data-dependent positions, each row of the relaxed permutation a softmax written into an output
// parameter (max-shifted), the soft ranks as a `Vec` result (`_jacobian`), and a rank loss at
// `order = 2`.

mod softsort {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn sorted_desc(s: &[f64]) -> Vec<f64> {
        let n = s.len();
        let mut out = vec![0.0; n];
        for i in 0..n {
            let mut pos = 0;
            for j in 0..n {
                if s[j] > s[i] || (s[j] == s[i] && j < i) {
                    pos += 1;
                }
            }
            out[pos] = s[i];
        }
        out
    }

    #[differentiable]
    pub fn row(s: &[f64], anchor: f64, tau: f64, out: &mut [f64]) {
        let mut m = f64::NEG_INFINITY;
        for &v in s {
            m = m.max(-(anchor - v).abs() / tau);
        }
        let mut z = 0.0;
        for j in 0..s.len() {
            out[j] = (-(anchor - s[j]).abs() / tau - m).exp();
            z += out[j];
        }
        for j in 0..s.len() {
            out[j] /= z;
        }
    }

    #[differentiable(wrt(s))]
    pub fn soft_ranks(s: &[f64], tau: f64) -> Vec<f64> {
        let n = s.len();
        let sorted = sorted_desc(s);
        let mut ranks = vec![0.0; n];
        let mut p = vec![0.0; n];
        for i in 0..n {
            row(s, sorted[i], tau, &mut p);
            for j in 0..n {
                ranks[j] += (i + 1) as f64 * p[j];
            }
        }
        ranks
    }

    #[differentiable(wrt(s), order = 2)]
    pub fn rank_loss(s: &[f64], target: &[f64], tau: f64) -> f64 {
        let r = soft_ranks(s, tau);
        let mut loss = 0.0;
        for (a, b) in r.iter().zip(target.iter()) {
            loss += (a - b).powi(2);
        }
        loss
    }

    fn reference(s: &[f64], tau: f64) -> Vec<f64> {
        let mut sorted = s.to_vec();
        sorted.sort_by(|a, b| b.partial_cmp(a).unwrap());
        let n = s.len();
        let mut ranks = vec![0.0; n];
        for (i, &a) in sorted.iter().enumerate() {
            let e: Vec<f64> = s.iter().map(|v| (-(a - v).abs() / tau).exp()).collect();
            let z: f64 = e.iter().sum();
            for j in 0..n {
                ranks[j] += (i + 1) as f64 * e[j] / z;
            }
        }
        ranks
    }

    #[test]
    fn soft_ranks_value_jacobian_and_duality() {
        for p in points(4801, 5, 12, -2.0, 2.0) {
            let r = soft_ranks(&p, 0.3);
            assert_all_close(&r, &reference(&p, 0.3), 1e-12, "soft ranks");
            // A doubly stochastic relaxation: the ranks sum to 1 + 2 + ... + n.
            assert_close(r.iter().sum::<f64>(), 15.0, 1e-12, "sum of ranks");
            let j = soft_ranks_jacobian(&p, 0.3);
            check_jacobian("soft ranks", &p, &j, |x| soft_ranks(x, 0.3));
            let (c, t) = (wave(5, 0.5), wave(5, 2.0));
            let (_, cj) = soft_ranks_vjp(&p, 0.3, c.clone());
            let (_, jt) = soft_ranks_jvp(&p, 0.3, t.clone());
            check_dual("soft ranks", &c, &jt, &cj, &t);
        }
        // Small tau: the hard ranks (1 = largest).
        let r = soft_ranks(&[0.3, 2.0, -1.0], 1e-3);
        assert_all_close(&r, &[2.0, 1.0, 3.0], 1e-9, "hard ranks");
    }

    #[test]
    fn rank_loss_audit() {
        let target = [3.0, 1.0, 4.0, 2.0, 5.0];
        let pts = points(4802, 5, 10, -2.0, 2.0);
        audit(
            &Items {
                what: "softsort::rank_loss",
                primal: &|x| rank_loss(x, &target, 0.5),
                grad: &|x| rank_loss_grad(x, &target, 0.5),
                vjp: &|x, d| rank_loss_vjp(x, &target, 0.5, d),
                jvp: &|x, t| rank_loss_jvp(x, &target, 0.5, t.to_vec()),
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; 5];
                    let v = rank_loss_grad_into(x, &target, 0.5, &mut g);
                    same_bits(&g, &rank_loss_grad(x, &target, 0.5).1, "rank loss");
                    (v, g)
                },
                hvp: Some(&|x, t| rank_loss_hvp(x, &target, 0.5, t.to_vec())),
                hessian: Some(&|x| rank_loss_hessian(x, &target, 0.5)),
                analytic: None,
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// (10) A Morse cluster over const generic particles `[[f64; 3]; N]`: a smooth cutoff switch by an
// `if`/`else if` chain, a neighbour test by `continue`, the pair term by `exp_m1`, energy at
// `order = 2` over all coordinates, forces into an output parameter by a helper.

mod morse {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn switch(r: f64, r_on: f64, rc: f64) -> f64 {
        if r < r_on {
            1.0
        } else if r < rc {
            let x = (r - r_on) / (rc - r_on);
            1.0 - x * x * (3.0 - 2.0 * x)
        } else {
            0.0
        }
    }

    #[differentiable]
    pub fn pair(r: f64, depth: f64, a: f64, re: f64) -> f64 {
        let e = (-a * (r - re)).exp_m1();
        depth * (e * e - 1.0)
    }

    #[differentiable(wrt(pos), order = 2)]
    pub fn energy<const N: usize>(pos: [[f64; 3]; N], depth: f64, a: f64, re: f64, rc: f64) -> f64 {
        let mut e = 0.0;
        for i in 0..N {
            for j in (i + 1)..N {
                let mut r2 = 0.0;
                for d in 0..3 {
                    r2 += (pos[i][d] - pos[j][d]).powi(2);
                }
                if r2 >= rc * rc {
                    continue;
                }
                let r = r2.sqrt();
                e += pair(r, depth, a, re) * switch(r, 0.7 * rc, rc);
            }
        }
        e
    }

    fn reference(pos: &[f64], rc: f64) -> f64 {
        let n = pos.len() / 3;
        let mut e = 0.0;
        for i in 0..n {
            for j in i + 1..n {
                let r = (0..3)
                    .map(|d| (pos[3 * i + d] - pos[3 * j + d]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let s = if r < 0.7 * rc {
                    1.0
                } else if r < rc {
                    let x = (r - 0.7 * rc) / (0.3 * rc);
                    1.0 - 3.0 * x * x + 2.0 * x * x * x
                } else {
                    0.0
                };
                e += s * ((1.0 - (-1.5 * (r - 1.1)).exp()).powi(2) - 1.0);
            }
        }
        e
    }

    #[test]
    fn switch_is_c1() {
        for (r, d) in [(0.7, 0.0), (1.0, 0.0), (0.85, -1.5 / 0.3 * 0.5 * 2.0)] {
            let (_, g) = switch_grad(r, 0.7, 1.0);
            // d s / d r = -6 x (1 - x) / (rc - r_on): 0 at both ends, -5 in the middle.
            assert_close(g.0, d, 1e-9, "switch slope");
        }
        let (_, (dr, _, _)) = switch_grad(0.85, 0.7, 1.0);
        assert_close(dr, -6.0 * 0.5 * 0.5 / 0.3, 1e-12, "switch slope mid");
    }

    #[test]
    fn energy_audit() {
        let base = [
            [0.0, 0.0, 0.0],
            [1.1, 0.0, 0.0],
            [0.5, 0.9, 0.0],
            [0.5, 0.3, 0.9],
            [2.6, 0.2, 0.1],
        ];
        let pts: Vec<Vec<f64>> = points(4811, 15, 8, -0.15, 0.15)
            .iter()
            .map(|p| {
                let mut x = common::contract::flatten(&base);
                for (a, b) in x.iter_mut().zip(p) {
                    *a += b;
                }
                x
            })
            .collect();
        let nest = |x: &[f64]| common::contract::nested::<3, 5>(x);
        let flat = |g: [[f64; 3]; 5]| common::contract::flatten(&g);
        for x in &pts {
            assert_close(
                energy(nest(x), 1.0, 1.5, 1.1, 2.0),
                reference(x, 2.0),
                1e-12,
                "morse value",
            );
        }
        audit(
            &Items {
                what: "morse::energy",
                primal: &|x| energy(nest(x), 1.0, 1.5, 1.1, 2.0),
                grad: &|x| {
                    let (v, g) = energy_grad(nest(x), 1.0, 1.5, 1.1, 2.0);
                    (v, flat(g))
                },
                vjp: &|x, d| {
                    let (v, g) = energy_vjp(nest(x), 1.0, 1.5, 1.1, 2.0, d);
                    (v, flat(g))
                },
                jvp: &|x, t| energy_jvp(nest(x), 1.0, 1.5, 1.1, 2.0, nest(t)),
                grad_into: &|x| {
                    let mut g = [[f64::NAN; 3]; 5];
                    let v = energy_grad_into(nest(x), 1.0, 1.5, 1.1, 2.0, &mut g);
                    same_bits(
                        &flat(g),
                        &flat(energy_grad(nest(x), 1.0, 1.5, 1.1, 2.0).1),
                        "morse",
                    );
                    (v, flat(g))
                },
                hvp: Some(&|x, t| {
                    let (v, g, hv) = energy_hvp(nest(x), 1.0, 1.5, 1.1, 2.0, nest(t));
                    (v, flat(g), flat(hv))
                }),
                hessian: Some(&|x| {
                    let (v, g, h) = energy_hessian(nest(x), 1.0, 1.5, 1.1, 2.0);
                    (v, flat(g), h)
                }),
                analytic: None,
            },
            &pts,
        );
    }

    #[test]
    fn forces_sum_to_zero_and_beyond_the_cutoff_vanish() {
        for p in points(4812, 9, 10, -0.3, 0.3) {
            let pos = [
                [p[0], p[1], p[2]],
                [1.0 + p[3], p[4], p[5]],
                [p[6], 1.2 + p[7], p[8]],
                [9.0, 9.0, 9.0],
            ];
            let (_, g) = energy_grad(pos, 1.0, 1.5, 1.1, 2.0);
            for d in 0..3 {
                let total: f64 = g.iter().map(|row| row[d]).sum();
                assert!(total.abs() < 1e-12, "net force {total}");
                assert_eq!(g[3][d], 0.0, "a far particle feels nothing");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (11) Gray-Scott reaction-diffusion on a periodic 1-D grid: two pairs of buffers, the new values
// computed from the old and copied back each step by `copy_from_slice`, the final `u` into an output
// parameter (`_jacobian` over the initial `u`, feed and kill), and its total returned.

mod gray_scott {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn laplacian(a: &[f64], i: usize) -> f64 {
        let n = a.len();
        a[(i + n - 1) % n] - 2.0 * a[i] + a[(i + 1) % n]
    }

    #[differentiable(wrt(u0, feed, kill))]
    pub fn run(u0: &[f64], feed: f64, kill: f64, dt: f64, steps: usize, u_out: &mut [f64]) -> f64 {
        let n = u0.len();
        let mut u = vec![0.0; n];
        let mut v = vec![0.0; n];
        for i in 0..n {
            u[i] = u0[i];
            v[i] = 1.0 - u0[i];
        }
        let mut un = vec![0.0; n];
        let mut vn = vec![0.0; n];
        for _ in 0..steps {
            for i in 0..n {
                let uvv = u[i] * v[i] * v[i];
                un[i] = u[i] + dt * (0.2 * laplacian(&u, i) - uvv + feed * (1.0 - u[i]));
                vn[i] = v[i] + dt * (0.1 * laplacian(&v, i) + uvv - (feed + kill) * v[i]);
            }
            u.copy_from_slice(&un);
            v.copy_from_slice(&vn);
        }
        let mut total = 0.0;
        for i in 0..n {
            u_out[i] = u[i];
            total += v[i];
        }
        total
    }

    fn reference(u0: &[f64], feed: f64, kill: f64, dt: f64, steps: usize) -> (Vec<f64>, f64) {
        let n = u0.len();
        let mut u = u0.to_vec();
        let mut v: Vec<f64> = u0.iter().map(|a| 1.0 - a).collect();
        let lap = |a: &[f64], i: usize| a[(i + n - 1) % n] - 2.0 * a[i] + a[(i + 1) % n];
        for _ in 0..steps {
            let un: Vec<f64> = (0..n)
                .map(|i| u[i] + dt * (0.2 * lap(&u, i) - u[i] * v[i] * v[i] + feed * (1.0 - u[i])))
                .collect();
            let vn: Vec<f64> = (0..n)
                .map(|i| v[i] + dt * (0.1 * lap(&v, i) + u[i] * v[i] * v[i] - (feed + kill) * v[i]))
                .collect();
            u = un;
            v = vn;
        }
        let total = v.iter().sum();
        (u, total)
    }

    #[test]
    fn run_value_jacobian_and_duality() {
        for p in points(4821, 8, 10, -1.0, 1.0) {
            let u0: Vec<f64> = p[..6].iter().map(|a| 0.5 + 0.4 * a).collect();
            let (feed, kill) = (0.04 + 0.01 * p[6], 0.06 + 0.01 * p[7]);
            let mut u = vec![f64::NAN; 6];
            let total = run(&u0, feed, kill, 0.5, 12, &mut u);
            let (ru, rt) = reference(&u0, feed, kill, 0.5, 12);
            assert_all_close(&u, &ru, 1e-12, "gray-scott u");
            assert_close(total, rt, 1e-12, "gray-scott total");

            let mut x = u0.clone();
            x.extend_from_slice(&[feed, kill]);
            let plain = |y: &[f64]| {
                let mut out = vec![0.0; 6];
                let t = run(&y[..6], y[6], y[7], 0.5, 12, &mut out);
                (t, out)
            };
            // The total's gradient (the output's cotangent zero).
            let (v, (gu, gf, gk)) = run_grad(&u0, feed, kill, 0.5, 12, &mut u);
            assert_eq!(v, total);
            let mut g = gu.clone();
            g.extend_from_slice(&[gf, gk]);
            common::assert_fd_gradient(|y| plain(y).0, &x, &g, "gray-scott total");
            // Both outputs at once: c0 * total + c . u_out against the tangents.
            let (c0, c, t) = (0.7, wave(6, 0.3), wave(8, 1.2));
            let (v1, (cu, cf, ck)) = run_vjp(&u0, feed, kill, 0.5, 12, &mut u, c0, &c);
            let mut d_u = vec![0.0; 6];
            let (v2, dt_total) = run_jvp(
                &u0,
                feed,
                kill,
                0.5,
                12,
                &mut u,
                (t[..6].to_vec(), t[6], t[7]),
                &mut d_u,
            );
            assert_eq!(v1, v2);
            let mut cj = cu.clone();
            cj.extend_from_slice(&[cf, ck]);
            let mut cc = vec![c0];
            cc.extend_from_slice(&c);
            let mut jt = vec![dt_total];
            jt.extend_from_slice(&d_u);
            check_dual("gray-scott", &cc, &jt, &cj, &t);
            let fd = common::fd_jacobian(|y| plain(y).1, &x);
            for i in 0..6 {
                assert_close(d_u[i], dot(&fd[i], &t), 1e-6, "gray-scott jvp of u_out");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (12) An arithmetic-average Asian call by Monte Carlo over fixed normals: paths built in place in a
// local `Vec` (`chunks_exact` over the normals, `enumerate`), the payoff by `max(avg - k, 0.0)`, and
// the pathwise delta, vega and rho against the likelihood-free formulas by hand.

mod asian {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn path_average(s0: f64, drift: f64, vol: f64, z: &[f64], path: &mut [f64]) -> f64 {
        let mut s = s0;
        for (i, &zi) in z.iter().enumerate() {
            s *= (drift + vol * zi).exp();
            path[i] = s;
        }
        path.iter().sum::<f64>() / path.len() as f64
    }

    #[differentiable(wrt(s0, sigma, r))]
    pub fn price(
        s0: f64,
        sigma: f64,
        r: f64,
        k: f64,
        t: f64,
        normals: &[f64],
        steps: usize,
    ) -> f64 {
        let dt = t / steps as f64;
        let drift = (r - 0.5 * sigma * sigma) * dt;
        let vol = sigma * dt.sqrt();
        let mut path = vec![0.0; steps];
        let mut payoff = 0.0;
        let mut paths = 0;
        for z in normals.chunks_exact(steps) {
            let avg = path_average(s0, drift, vol, z, &mut path);
            payoff += (avg - k).max(0.0);
            paths += 1;
        }
        (-r * t).exp() * payoff / paths as f64
    }

    #[test]
    fn greeks_by_hand_and_differences() {
        let steps = 6;
        let mut rng = common::Inputs(4831);
        // Normals by Box-Muller from the uniform generator.
        let normals: Vec<f64> = (0..steps * 40)
            .map(|_| {
                let (u1, u2) = ((rng.next() + 1.0) / 2.0 + 1e-12, (rng.next() + 1.0) / 2.0);
                (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            })
            .collect();
        for p in points(4832, 3, 10, -1.0, 1.0) {
            let (s0, sigma, r) = (100.0 + 10.0 * p[0], 0.25 + 0.1 * p[1], 0.03 + 0.02 * p[2]);
            let (k, t) = (100.0, 1.0);
            let (v, (delta, vega, rho)) = price_grad(s0, sigma, r, k, t, &normals, steps);
            // By hand: each path S_i = s0 exp(a i + b W_i), so d avg / d s0 = avg / s0, and so on.
            let dt = t / steps as f64;
            let disc = (-r * t).exp();
            let (mut pv, mut d, mut vg, mut rh) = (0.0, 0.0, 0.0, 0.0);
            for z in normals.chunks_exact(steps) {
                let (mut s, mut w) = (s0, 0.0);
                let (mut avg, mut avg_dsig, mut avg_dr) = (0.0, 0.0, 0.0);
                for (i, &zi) in z.iter().enumerate() {
                    w += zi * dt.sqrt();
                    s *= ((r - 0.5 * sigma * sigma) * dt + sigma * dt.sqrt() * zi).exp();
                    let ti = (i + 1) as f64 * dt;
                    avg += s / steps as f64;
                    avg_dsig += s * (w - sigma * ti) / steps as f64;
                    avg_dr += s * ti / steps as f64;
                }
                if avg > k {
                    pv += avg - k;
                    d += avg / s0;
                    vg += avg_dsig;
                    rh += avg_dr - t * (avg - k);
                }
            }
            let m = 40.0;
            assert_close(v, disc * pv / m, 1e-12, "asian price");
            assert_close(delta, disc * d / m, 1e-10, "asian delta");
            assert_close(vega, disc * vg / m, 1e-10, "asian vega");
            assert_close(rho, disc * rh / m, 1e-10, "asian rho");
            let mut into = (0.0, 0.0, 0.0);
            let vi = price_grad_into(
                s0,
                sigma,
                r,
                k,
                t,
                &normals,
                steps,
                (&mut into.0, &mut into.1, &mut into.2),
            );
            assert_eq!(vi, v);
            same_bits(&[into.0, into.1, into.2], &[delta, vega, rho], "asian");
            let (_, dv) = price_jvp(s0, sigma, r, k, t, &normals, steps, (0.3, -1.0, 2.0));
            assert_close(dv, 0.3 * delta - vega + 2.0 * rho, 1e-12, "asian jvp");
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (13) A kinematic bicycle MPC: the step as a helper returning a tuple (`tan`, `atan`, `cos`, `sin`),
// a contouring cost whose lateral reference follows the car's own `x` behind `stop_gradient`, the
// heading error wrapped by `atan2`, control rates penalised, and plain gradient descent on the
// controls with `_grad_into` into one buffer reused across iterations.

mod bicycle {
    use super::*;
    use autodiff::{differentiable, stop_gradient};

    const WHEELBASE: f64 = 2.5;
    const REAR: f64 = 1.2;

    #[differentiable]
    pub fn step(state: [f64; 4], accel: f64, steer: f64, dt: f64) -> (f64, f64, f64, f64) {
        let [x, y, psi, v] = state;
        let beta = (REAR / WHEELBASE * steer.tan()).atan();
        (
            x + dt * v * (psi + beta).cos(),
            y + dt * v * (psi + beta).sin(),
            psi + dt * v / REAR * beta.sin(),
            v + dt * accel,
        )
    }

    #[differentiable]
    pub fn lane(x: f64) -> f64 {
        0.5 * (0.2 * x).sin()
    }

    /// `u`: (accel, steer) per step; `anchors`: the `x` at which the lane is read, or empty to read it at
    /// the car's own (stopped) `x`.
    #[differentiable(wrt(u), order = 2)]
    pub fn cost_with(u: &[f64], start: [f64; 4], dt: f64, anchors: &[f64]) -> f64 {
        let mut s = start;
        let mut total = 0.0;
        let mut prev_steer = 0.0;
        for (k, c) in u.chunks_exact(2).enumerate() {
            let (x, y, psi, v) = step(s, c[0], c[1], dt);
            s = [x, y, psi, v];
            let anchor = if anchors.is_empty() {
                stop_gradient(x)
            } else {
                anchors[k]
            };
            let lateral = y - lane(anchor);
            let slope = 0.1 * (0.2 * anchor).cos();
            let heading = (psi - slope.atan()).sin().atan2((psi - slope.atan()).cos());
            total += lateral * lateral + 0.5 * heading * heading + 0.1 * (v - 10.0).powi(2);
            total += 0.01 * c[0] * c[0] + 2.0 * (c[1] - prev_steer).powi(2);
            prev_steer = c[1];
        }
        total
    }

    /// At `order = 2` through `cost_with`, which tests `anchors.is_empty()` (before: "`cost_with` has no
    /// generic copy, which an `order = K` caller written for `f64` needs").
    #[differentiable(wrt(u), order = 2)]
    pub fn cost(u: &[f64], start: [f64; 4], dt: f64) -> f64 {
        cost_with(u, start, dt, &[])
    }

    fn rollout_x(u: &[f64], start: [f64; 4], dt: f64) -> Vec<f64> {
        let mut s = start;
        u.chunks_exact(2)
            .map(|c| {
                let (x, y, psi, v) = step(s, c[0], c[1], dt);
                s = [x, y, psi, v];
                x
            })
            .collect()
    }

    const START: [f64; 4] = [0.0, 0.4, 0.05, 9.0];

    #[test]
    fn the_stopped_anchor_is_a_constant() {
        for p in points(4841, 12, 10, -0.3, 0.3) {
            let (v, g) = cost_grad(&p, START, 0.1);
            let anchors = rollout_x(&p, START, 0.1);
            assert_close(v, cost_with(&p, START, 0.1, &anchors), 1e-13, "mpc value");
            // The gradient is that of the cost with the lane read at fixed anchors.
            common::assert_fd_gradient(|x| cost_with(x, START, 0.1, &anchors), &p, &g, "mpc");
            let (_, g2) = cost_with_grad(&p, START, 0.1, &anchors);
            assert_all_close(&g, &g2, 1e-12, "stopped against fixed anchors");
            let t = wave(12, 0.8);
            let (_, dv) = cost_jvp(&p, START, 0.1, t.clone());
            assert_close(dv, dot(&g, &t), 1e-12, "mpc jvp");
        }
    }

    #[test]
    fn the_hessian_keeps_the_anchor_constant() {
        for p in points(4843, 12, 4, -0.3, 0.3) {
            let anchors = rollout_x(&p, START, 0.1);
            let (v, g, h) = cost_hessian(&p, START, 0.1);
            let (fv, fg, fh) = cost_with_hessian(&p, START, 0.1, &anchors);
            assert_eq!(v, cost(&p, START, 0.1));
            assert_close(v, fv, 1e-13, "mpc hessian value");
            assert_all_close(&g, &fg, 1e-12, "mpc hessian gradient");
            for i in 0..12 {
                assert_all_close(&h[i], &fh[i], 1e-10, "stopped against fixed anchors");
            }
            // The fixed-anchor Hessian against differences of its gradient.
            let grad = |x: &[f64]| cost_with_grad(x, START, 0.1, &anchors).1;
            common::assert_hessian_fd(&fh, grad, &p, 1e-5, "mpc hessian");
            let t = wave(12, 0.4);
            let (_, _, hv) = cost_hvp(&p, START, 0.1, t.clone());
            let expected: Vec<f64> = h.iter().map(|row| dot(row, &t)).collect();
            assert_all_close(&hv, &expected, 1e-9, "mpc hvp");
        }
    }

    #[test]
    fn descent_with_grad_into() {
        let mut u = vec![0.0; 12];
        let mut g = vec![f64::NAN; 12];
        let first = cost(&u, START, 0.1);
        let mut last = first;
        for _ in 0..60 {
            let v = cost_grad_into(&u, START, 0.1, &mut g);
            assert_eq!(v, last);
            same_bits(&g, &cost_grad(&u, START, 0.1).1, "mpc");
            for i in 0..12 {
                u[i] -= 0.01 * g[i];
            }
            let next = cost(&u, START, 0.1);
            last = next;
        }
        assert!(last < 0.8 * first, "descent: {first} -> {last}");
    }
}

// ---------------------------------------------------------------------------------------------------
// (14) Rényi and Tsallis divergences between two softmax distributions: a softmax helper returning a
// `Vec`, the power sum by `powf`, the `alpha -> 1` limit (Kullback-Leibler) by a branch calling an
// outside `xlogy` whose gradient is registered with `#[gradient_of]` and imported by `use`, at
// `order = 2` over the logits and `alpha`.

mod special {
    /// `x ln(x / y)`, 0 at `x = 0`.
    pub fn xlogy_ratio(x: f64, y: f64) -> f64 {
        if x == 0.0 {
            0.0
        } else {
            x * (x / y).ln()
        }
    }
}

mod divergence {
    use super::special::xlogy_ratio;
    use super::*;
    use autodiff::{differentiable, gradient_of};

    #[gradient_of(super::special::xlogy_ratio)]
    fn xlogy_ratio_rule(x: f64, y: f64, dy: f64) -> (f64, f64) {
        if x == 0.0 {
            (0.0, 0.0)
        } else {
            (dy * ((x / y).ln() + 1.0), -dy * x / y)
        }
    }

    #[differentiable]
    pub fn softmax(z: &[f64]) -> Vec<f64> {
        let m = z.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        let mut p = vec![0.0; z.len()];
        let mut total = 0.0;
        for (i, &v) in z.iter().enumerate() {
            p[i] = (v - m).exp();
            total += p[i];
        }
        for i in 0..p.len() {
            p[i] /= total;
        }
        p
    }

    #[differentiable]
    pub fn power_sum(p: &[f64], q: &[f64], alpha: f64) -> f64 {
        p.iter()
            .zip(q.iter())
            .map(|(a, b)| a.powf(alpha) * b.powf(1.0 - alpha))
            .sum::<f64>()
    }

    #[differentiable(order = 2)]
    pub fn renyi(zp: &[f64], zq: &[f64], alpha: f64) -> f64 {
        let p = softmax(zp);
        let q = softmax(zq);
        if (alpha - 1.0).abs() < 1e-9 {
            let mut kl = 0.0;
            for i in 0..p.len() {
                kl += xlogy_ratio(p[i], q[i]);
            }
            return kl;
        }
        power_sum(&p, &q, alpha).ln() / (alpha - 1.0)
    }

    #[differentiable(order = 2)]
    pub fn tsallis(zp: &[f64], zq: &[f64], alpha: f64) -> f64 {
        let p = softmax(zp);
        let q = softmax(zq);
        (power_sum(&p, &q, alpha) - 1.0) / (alpha - 1.0)
    }

    fn probs(z: &[f64]) -> Vec<f64> {
        let e: Vec<f64> = z.iter().map(|v| v.exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|v| v / s).collect()
    }

    type Div = fn(&[f64], &[f64], f64) -> f64;

    fn audit_one(
        what: &str,
        f: Div,
        grad: fn(&[f64], &[f64], f64) -> (f64, (Vec<f64>, Vec<f64>, f64)),
        hessian: fn(&[f64], &[f64], f64) -> (f64, (Vec<f64>, Vec<f64>, f64), Vec<Vec<f64>>),
        pts: &[Vec<f64>],
    ) {
        let join = |(a, b, c): (Vec<f64>, Vec<f64>, f64)| {
            let mut v = a;
            v.extend(b);
            v.push(c);
            v
        };
        for x in pts {
            let (v, g) = grad(&x[..3], &x[3..6], x[6]);
            assert_eq!(v, f(&x[..3], &x[3..6], x[6]));
            let g = join(g);
            common::assert_fd_gradient(|y| f(&y[..3], &y[3..6], y[6]), x, &g, what);
            let (_, _, h) = hessian(&x[..3], &x[3..6], x[6]);
            let flat_grad = |y: &[f64]| join(grad(&y[..3], &y[3..6], y[6]).1);
            common::assert_hessian_fd(&h, flat_grad, x, 1e-5, what);
        }
    }

    #[test]
    fn divergences_value_gradient_and_hessian() {
        let mut pts = points(4851, 7, 10, -1.0, 1.0);
        for p in &mut pts {
            p[6] = 1.6 + 0.5 * p[6];
            let (pp, qq) = (probs(&p[..3]), probs(&p[3..6]));
            let a = p[6];
            let s: f64 = pp
                .iter()
                .zip(&qq)
                .map(|(x, y)| x.powf(a) * y.powf(1.0 - a))
                .sum();
            assert_close(
                renyi(&p[..3], &p[3..6], a),
                s.ln() / (a - 1.0),
                1e-12,
                "renyi",
            );
            assert_close(
                tsallis(&p[..3], &p[3..6], a),
                (s - 1.0) / (a - 1.0),
                1e-12,
                "tsallis",
            );
        }
        audit_one("renyi", renyi, renyi_grad, renyi_hessian, &pts);
        audit_one("tsallis", tsallis, tsallis_grad, tsallis_hessian, &pts);
    }

    #[test]
    fn the_kl_branch_through_the_registered_gradient() {
        for p in points(4852, 6, 10, -1.0, 1.0) {
            let (zp, zq) = (&p[..3], &p[3..]);
            let (pp, qq) = (probs(zp), probs(zq));
            let kl: f64 = pp.iter().zip(&qq).map(|(a, b)| a * (a / b).ln()).sum();
            let (v, (gp, gq, _)) = renyi_grad(zp, zq, 1.0);
            assert_close(v, kl, 1e-12, "kl value");
            // d KL / d zq_i = q_i - p_i; d KL / d zp_i = p_i (ln(p_i / q_i) - KL).
            let by_hand_q: Vec<f64> = (0..3).map(|i| qq[i] - pp[i]).collect();
            let by_hand_p: Vec<f64> = (0..3)
                .map(|i| pp[i] * ((pp[i] / qq[i]).ln() - kl))
                .collect();
            assert_all_close(&gq, &by_hand_q, 1e-12, "kl wrt zq");
            assert_all_close(&gp, &by_hand_p, 1e-12, "kl wrt zp");
            // Second order through the registered rule: the Hessian in zq is diag(q) - q q^T.
            let (_, _, h) = renyi_hessian(zp, zq, 1.0);
            for i in 0..3 {
                for j in 0..3 {
                    let e = if i == j { qq[i] } else { 0.0 } - qq[i] * qq[j];
                    assert_close(h[3 + i][3 + j], e, 1e-10, "kl hessian in zq");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (15) An elastic rod as a `Differentiable` struct (stiffnesses active, rest lengths `#[no_grad]`):
// the segment vector as a method returning a tuple, the turning angle by `atan2` of consecutive
// segments' cross and dot, stretching by `hypot`, gravity, the energy at `order = 2` over the node
// positions and (by `wrt(self, x)`) over the stiffnesses too.

mod rod {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Rod {
        pub ks: f64,
        pub kb: f64,
        pub weight: f64,
        #[no_grad]
        pub rest: Vec<f64>,
    }

    impl Rod {
        #[differentiable]
        pub fn segment(x: &[f64], i: usize) -> (f64, f64) {
            (x[2 * i + 2] - x[2 * i], x[2 * i + 3] - x[2 * i + 1])
        }

        #[differentiable(wrt(self, x))]
        pub fn bending(&self, x: &[f64]) -> f64 {
            let segments = x.len() / 2 - 1;
            let mut e = 0.0;
            for i in 1..segments {
                let (ax, ay) = Self::segment(x, i - 1);
                let (bx, by) = Self::segment(x, i);
                let turn = (ax * by - ay * bx).atan2(ax * bx + ay * by);
                let avg = 0.5 * (self.rest[i - 1] + self.rest[i]);
                e += self.kb * turn * turn / avg;
            }
            e
        }

        #[differentiable(order = 2)]
        pub fn energy(&self, x: &[f64]) -> f64 {
            self.energy_all(x)
        }

        #[differentiable(wrt(self, x), order = 2)]
        pub fn energy_all(&self, x: &[f64]) -> f64 {
            let segments = x.len() / 2 - 1;
            let mut e = self.bending(x);
            for i in 0..segments {
                let (dx, dy) = Self::segment(x, i);
                let stretch = dx.hypot(dy) / self.rest[i] - 1.0;
                e += 0.5 * self.ks * self.rest[i] * stretch * stretch;
            }
            for i in 0..=segments {
                e += self.weight * x[2 * i + 1];
            }
            e
        }
    }

    fn rod() -> Rod {
        Rod {
            ks: 50.0,
            kb: 2.0,
            weight: 0.3,
            rest: vec![1.0, 0.8, 1.2, 0.9],
        }
    }

    fn nodes(p: &[f64]) -> Vec<f64> {
        let mut x = vec![0.0, 0.0, 1.0, 0.1, 1.7, 0.5, 2.8, 0.2, 3.5, -0.4];
        for (a, b) in x.iter_mut().zip(p) {
            *a += 0.2 * b;
        }
        x
    }

    #[test]
    fn energy_audit_over_positions() {
        let r = rod();
        let pts: Vec<Vec<f64>> = points(4861, 10, 8, -1.0, 1.0)
            .iter()
            .map(|p| nodes(p))
            .collect();
        audit(
            &Items {
                what: "rod::energy",
                primal: &|x| r.energy(x),
                grad: &|x| r.energy_grad(x),
                vjp: &|x, d| r.energy_vjp(x, d),
                jvp: &|x, t| r.energy_jvp(x, t.to_vec()),
                grad_into: &|x| {
                    let mut g = vec![f64::NAN; 10];
                    let v = r.energy_grad_into(x, &mut g);
                    same_bits(&g, &r.energy_grad(x).1, "rod");
                    (v, g)
                },
                hvp: Some(&|x, t| r.energy_hvp(x, t.to_vec())),
                hessian: Some(&|x| r.energy_hessian(x)),
                analytic: None,
            },
            &pts,
        );
        // Without gravity the energy is invariant under rigid motions: translations and the
        // infinitesimal rotation are in the Hessian's null space at an equilibrium-free point too
        // for translations (the gradient is translation invariant).
        let free = Rod {
            weight: 0.0,
            ..rod()
        };
        for x in &pts {
            let (_, g, h) = free.energy_hessian(x);
            let tx: Vec<f64> = (0..10)
                .map(|i| if i % 2 == 0 { 1.0 } else { 0.0 })
                .collect();
            let rot: Vec<f64> = (0..5).flat_map(|i| [-x[2 * i + 1], x[2 * i]]).collect();
            assert!(dot(&g, &tx).abs() < 1e-9, "net force");
            assert!(dot(&g, &rot).abs() < 1e-9, "net torque");
            for row in &h {
                assert!(dot(row, &tx).abs() < 1e-8, "H times a translation");
            }
        }
    }

    #[test]
    fn energy_all_hessian_over_stiffness_and_positions() {
        let base = rod();
        for p in points(4862, 13, 6, -1.0, 1.0) {
            let r = Rod {
                ks: 50.0 + 5.0 * p[10],
                kb: 2.0 + 0.5 * p[11],
                weight: 0.3 + 0.1 * p[12],
                ..base.clone()
            };
            let x = nodes(&p[..10]);
            let mut flat = r.to_flat();
            flat.extend_from_slice(&x);
            assert_eq!(flat.len(), 13);
            let grad = |y: &[f64]| {
                let (_, (gr, gx)) = base.from_flat(&y[..3]).energy_all_grad(&y[3..]);
                let mut v = gr.to_flat();
                v.extend(gx);
                v
            };
            let (v, (gr, gx), h) = r.energy_all_hessian(&x);
            assert_eq!(v, r.energy(&x));
            assert_eq!(gr.rest, base.rest, "the no_grad field is copied");
            let mut g = gr.to_flat();
            g.extend_from_slice(&gx);
            assert_all_close(&g, &grad(&flat), 1e-12, "energy_all gradient");
            common::assert_fd_gradient(
                |y| base.from_flat(&y[..3]).energy(&y[3..]),
                &flat,
                &g,
                "rod all",
            );
            common::assert_hessian_fd(&h, grad, &flat, 1e-5, "rod all hessian");
            // The energy is linear in each stiffness: those diagonal entries vanish.
            for k in 0..3 {
                assert_eq!(h[k][k], 0.0, "linear in stiffness {k}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (16) A Planck black-body band integral by composite Simpson (`powi`, a `#[custom_gradient]` Bose
// factor `1 / exp_m1(x)`), fitted for temperature: `_derivatives` at `order = 3` in the temperature
// against differences, and the band's temperature slope by hand.

mod planck {
    use super::*;
    use autodiff::{custom_gradient, differentiable};

    /// The second radiation constant in micrometre kelvin.
    const C2: f64 = 14387.77;

    #[custom_gradient]
    pub fn bose(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let em1 = x.exp_m1();
        let e = em1 + 1.0;
        (1.0 / em1, move |dy| -dy * e / (em1 * em1))
    }

    #[differentiable]
    pub fn spectral(lambda: f64, temp: f64) -> f64 {
        lambda.powi(-5) * bose(C2 / (lambda * temp))
    }

    #[differentiable(order = 3)]
    pub fn band(temp: f64, lo: f64, hi: f64, n: usize) -> f64 {
        let h = (hi - lo) / n as f64;
        let mut total = spectral(lo, temp) + spectral(hi, temp);
        for i in 1..n {
            let w = if i % 2 == 1 { 4.0 } else { 2.0 };
            total += w * spectral(lo + i as f64 * h, temp);
        }
        total * h / 3.0
    }

    #[differentiable(wrt(temp), order = 3)]
    pub fn misfit(temp: f64, bands: &[f64], observed: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (k, w) in bands.windows(2).enumerate() {
            let model = band(temp, w[0], w[1], 16);
            loss += (model / observed[k]).ln().powi(2);
        }
        loss
    }

    #[test]
    fn band_slope_by_hand() {
        for t in [800.0, 1500.0, 3000.0, 5800.0] {
            let (_, (dt, _, _)) = band_grad(t, 1.0, 3.0, 16);
            // d/dT of lambda^-5 / (e^x - 1) with x = C2 / (lambda T) is lambda^-5 e^x x / (T (e^x - 1)^2).
            let slope = |l: f64| {
                let x = C2 / (l * t);
                l.powi(-5) * x.exp() * x / (t * x.exp_m1().powi(2))
            };
            let h = 2.0 / 16.0;
            let mut s = slope(1.0) + slope(3.0);
            for i in 1..16 {
                s += if i % 2 == 1 { 4.0 } else { 2.0 } * slope(1.0 + i as f64 * h);
            }
            assert_close(dt, s * h / 3.0, 1e-12, "band slope");
        }
    }

    #[test]
    fn misfit_derivatives_against_differences() {
        let bands = [0.8, 1.2, 2.0, 3.5];
        let observed: Vec<f64> = bands
            .windows(2)
            .map(|w| band(2500.0, w[0], w[1], 16))
            .collect();
        for t in [1800.0, 2200.0, 2500.0, 2900.0, 3400.0] {
            let d = misfit_derivatives(t, &bands, &observed);
            assert_eq!(d[0], misfit(t, &bands, &observed));
            let h = 1e-2;
            let fd = |k: usize, s: f64| misfit_derivatives(t + s, &bands, &observed)[k];
            for k in 0..3 {
                let diff = (8.0 * (fd(k, h) - fd(k, -h)) - (fd(k, 2.0 * h) - fd(k, -2.0 * h)))
                    / (12.0 * h);
                assert_close(
                    d[k + 1],
                    diff,
                    1e-6,
                    &format!("misfit derivative {}", k + 1),
                );
            }
            let (_, g) = misfit_grad(t, &bands, &observed);
            assert_eq!(g, d[1]);
            let (_, g2, h2) = misfit_hessian(t, &bands, &observed);
            assert_eq!((g2, h2[0][0]), (d[1], d[2]));
        }
        assert_eq!(misfit_grad(2500.0, &bands, &observed).1, 0.0, "the minimum");
    }
}

// ---------------------------------------------------------------------------------------------------
// (17) Sphere tracing a smooth union of two circles: a smooth minimum helper, a `while` loop with a
// compound condition and an early `break` on a hit, the depth per ray into an output parameter, and a
// silhouette loss over the depths (`_jacobian` of the depths over the scene).

mod sphere_trace {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn smooth_min(a: f64, b: f64, k: f64) -> f64 {
        let h = (0.5 + 0.5 * (b - a) / k).clamp(0.0, 1.0);
        b + (a - b) * h - k * h * (1.0 - h)
    }

    /// `scene`: (x, y, r) of two circles.
    #[differentiable]
    pub fn sdf(px: f64, py: f64, scene: &[f64]) -> f64 {
        let d1 = (px - scene[0]).hypot(py - scene[1]) - scene[2];
        let d2 = (px - scene[3]).hypot(py - scene[4]) - scene[5];
        smooth_min(d1, d2, 0.3)
    }

    /// Rays from `(-4, y_k)` along `+x`; the depth at which each hits, or `t_max`.
    #[differentiable(wrt(scene))]
    pub fn trace(scene: &[f64], ys: &[f64], t_max: f64, depth: &mut [f64]) {
        for (k, &y) in ys.iter().enumerate() {
            let mut t = 0.0;
            let mut steps = 0;
            while t < t_max && steps < 200 {
                let d = sdf(-4.0 + t, y, scene);
                if d < 1e-10 {
                    break;
                }
                t += d;
                steps += 1;
            }
            depth[k] = t.min(t_max);
        }
    }

    #[test]
    fn depths_against_the_circle_intersection() {
        // One circle alone (the other far away): the hit is where the ray meets it.
        for p in points(4871, 3, 10, -1.0, 1.0) {
            let scene = [0.5 * p[0], 0.3 * p[1], 1.0 + 0.2 * p[2], 50.0, 50.0, 0.1];
            let ys = [-0.4, 0.0, 0.5];
            let mut depth = vec![0.0; 3];
            let j = trace_jacobian(&scene, &ys, 10.0, &mut depth);
            for (k, &y) in ys.iter().enumerate() {
                let dy = y - scene[1];
                let half = (scene[2] * scene[2] - dy * dy).sqrt();
                let hit = scene[0] - half + 4.0;
                assert_close(depth[k], hit, 1e-8, "sphere-traced depth");
                // d hit / d (cx, cy, r) = (1, -dy / half, -r / half).
                assert_close(j[k][0], 1.0, 1e-6, "d depth / d cx");
                assert_close(j[k][1], -dy / half, 1e-6, "d depth / d cy");
                assert_close(j[k][2], -scene[2] / half, 1e-6, "d depth / d r");
            }
        }
    }

    #[test]
    fn trace_jacobian_and_duality() {
        let ys = [-1.2, -0.5, 0.1, 0.6, 1.3, 3.5];
        for p in points(4872, 6, 10, -1.0, 1.0) {
            let scene = [
                -0.5 + 0.2 * p[0],
                -0.4 + 0.2 * p[1],
                0.8 + 0.1 * p[2],
                0.9 + 0.2 * p[3],
                0.5 + 0.2 * p[4],
                0.7 + 0.1 * p[5],
            ];
            let mut depth = vec![0.0; 6];
            let j = trace_jacobian(&scene, &ys, 8.0, &mut depth);
            assert_eq!(depth[5], 8.0, "a ray that misses");
            assert!(j[5].iter().all(|v| *v == 0.0), "a miss has no derivative");
            // The converged hits: against differences of the traced depth (a sphere-traced hit is
            // converged to 1e-10, so differences see the hit's own derivative).
            let fd = common::fd_jacobian(
                |x| {
                    let mut d = vec![0.0; 6];
                    trace(x, &ys, 8.0, &mut d);
                    d[..5].to_vec()
                },
                &scene,
            );
            for k in 0..5 {
                // The unrolled iteration's derivative tends to the hit's as the march converges.
                assert_all_close(&j[k], &fd[k], 1e-4, "trace jacobian against differences");
            }
            let (c, t) = (wave(6, 0.2), wave(6, 1.4));
            let mut out = vec![0.0; 6];
            let g = trace_vjp(&scene, &ys, 8.0, &mut out, &c);
            let mut d_out = vec![0.0; 6];
            trace_jvp(&scene, &ys, 8.0, &mut out, t.clone(), &mut d_out);
            check_dual("trace", &c, &d_out, &g, &t);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (18) Inverse kinematics of a planar 3-link arm by damped least squares: forward kinematics returning
// a tuple, joint limits by `clamp`, the 2x3 Jacobian written by hand into a local array, a `while`
// loop that stops early (`break`) once within tolerance, and the final error as a function of the
// target and the damping (`_grad` against differences, `wrt(..)`).

mod ik {
    use super::*;
    use autodiff::differentiable;
    use std::f64::consts::PI;

    const LINKS: [f64; 3] = [1.0, 0.8, 0.5];

    #[differentiable]
    pub fn tip(q: [f64; 3]) -> (f64, f64) {
        let mut angle = 0.0;
        let (mut x, mut y) = (0.0, 0.0);
        for i in 0..3 {
            angle += q[i];
            x += LINKS[i] * angle.cos();
            y += LINKS[i] * angle.sin();
        }
        (x, y)
    }

    #[differentiable(wrt(target, damping))]
    pub fn solve(target: [f64; 2], damping: f64, iterations: usize) -> f64 {
        let mut q = [0.3, 0.4, 0.2];
        let mut it = 0;
        let mut err = f64::INFINITY;
        while it < iterations && err > 1e-9 {
            let (x, y) = tip(q);
            let (ex, ey) = (target[0] - x, target[1] - y);
            err = ex.hypot(ey);
            if err < 1e-3 {
                break;
            }
            let mut jac = [[0.0; 3]; 2];
            let mut angle = 0.0;
            let mut cum = [0.0; 3];
            for i in 0..3 {
                angle += q[i];
                cum[i] = angle;
            }
            for i in 0..3 {
                for k in i..3 {
                    jac[0][i] -= LINKS[k] * cum[k].sin();
                    jac[1][i] += LINKS[k] * cum[k].cos();
                }
            }
            // dq = J^T (J J^T + lambda^2 I)^-1 e, with the 2x2 inverse by hand.
            let mut a = [[0.0; 2]; 2];
            for r in 0..2 {
                for c in 0..2 {
                    for i in 0..3 {
                        a[r][c] += jac[r][i] * jac[c][i];
                    }
                }
                a[r][r] += damping * damping;
            }
            let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
            let w0 = (a[1][1] * ex - a[0][1] * ey) / det;
            let w1 = (a[0][0] * ey - a[1][0] * ex) / det;
            for i in 0..3 {
                q[i] = (q[i] + jac[0][i] * w0 + jac[1][i] * w1).clamp(-PI, PI);
            }
            it += 1;
        }
        let (x, y) = tip(q);
        (target[0] - x).hypot(target[1] - y)
    }

    #[test]
    fn solve_gradient_against_differences() {
        for p in points(4881, 3, 12, -1.0, 1.0) {
            let target = [1.2 + 0.3 * p[0], 0.6 + 0.3 * p[1]];
            let damping = 0.6 + 0.2 * p[2];
            let (v, (gt, gd)) = solve_grad(target, damping, 4);
            assert_eq!(v, solve(target, damping, 4));
            let g = [gt[0], gt[1], gd];
            common::assert_fd_gradient(
                |x| solve(arr(x), x[2], 4),
                &[target[0], target[1], damping],
                &g,
                "ik",
            );
            let mut into = ([f64::NAN; 2], f64::NAN);
            let vi = solve_grad_into(target, damping, 4, (&mut into.0, &mut into.1));
            assert_eq!(vi, v);
            same_bits(&[into.0[0], into.0[1], into.1], &g, "ik");
            let t = wave(3, 0.6);
            let (_, dv) = solve_jvp(target, damping, 4, ([t[0], t[1]], t[2]));
            assert_close(dv, dot(&g, &t), 1e-12, "ik jvp");
        }
    }

    #[test]
    fn a_reached_target_stops_early() {
        // A target on the arm's own tip: the first iteration breaks, the error is 0 at the start
        // configuration, and its gradient in the target is the unit error direction (here 0 / 0: the
        // hypot convention at the origin).
        let (x, y) = tip([0.3, 0.4, 0.2]);
        let (v, (gt, gd)) = solve_grad([x + 3e-4, y], 0.5, 10);
        assert_close(v, 3e-4, 1e-9, "early exit error");
        assert_all_close(&gt, &[1.0, 0.0], 1e-9, "early exit gradient");
        assert_eq!(gd, 0.0, "no iteration ran: the damping is not read");
    }
}

// ---------------------------------------------------------------------------------------------------
// (19) Quaternion-free rotation interpolation on the sphere: `slerp` with `acos` of a clamped dot and
// its small-angle branch on `f64::EPSILON`, an `if let` on an optional pivot index, `match` on an
// integer easing mode (`|` and range patterns), and a path length at `order = 2`.

mod slerp {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn normalize(v: [f64; 3]) -> [f64; 3] {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] / n, v[1] / n, v[2] / n]
    }

    #[differentiable]
    pub fn slerp(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
        let cos = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]).clamp(-1.0, 1.0);
        let omega = cos.acos();
        let s = omega.sin();
        if s < 1e3 * f64::EPSILON {
            return [
                a[0] + t * (b[0] - a[0]),
                a[1] + t * (b[1] - a[1]),
                a[2] + t * (b[2] - a[2]),
            ];
        }
        let (wa, wb) = (((1.0 - t) * omega).sin() / s, (t * omega).sin() / s);
        [
            wa * a[0] + wb * b[0],
            wa * a[1] + wb * b[1],
            wa * a[2] + wb * b[2],
        ]
    }

    #[differentiable]
    pub fn ease(t: f64, mode: u8) -> f64 {
        match mode {
            0 => t,
            1 | 2 => t * t * (3.0 - 2.0 * t),
            3..=9 => 0.5 - 0.5 * (std::f64::consts::PI * t).cos(),
            _ => t.sqrt(),
        }
    }

    /// The chord length of a path `a -> pivot -> b` (or `a -> b`) sampled at eased times.
    #[differentiable(wrt(a, b, pivot), order = 2)]
    pub fn path_length(
        a: [f64; 3],
        b: [f64; 3],
        pivot: [f64; 3],
        via: Option<usize>,
        mode: u8,
    ) -> f64 {
        let (a, b) = (normalize(a), normalize(b));
        let mut ends = [[0.0; 3]; 2];
        for d in 0..3 {
            ends[0][d] = a[d];
            ends[1][d] = b[d];
        }
        if let Some(k) = via {
            let c = normalize(pivot);
            for d in 0..3 {
                ends[k][d] = c[d];
            }
        }
        let mut prev = [0.0; 3];
        for d in 0..3 {
            prev[d] = ends[0][d];
        }
        let mut total = 0.0;
        for i in 1..=8 {
            let p = slerp(ends[0], ends[1], ease(i as f64 / 8.0, mode));
            total += (p[0] - prev[0]).hypot(p[1] - prev[1]).hypot(p[2] - prev[2]);
            prev = p;
        }
        total
    }

    #[test]
    fn slerp_is_on_the_sphere_and_its_jacobian() {
        for p in points(4891, 7, 10, -1.0, 1.0) {
            let (a, b) = (normalize(arr(&p)), normalize(arr(&p[3..])));
            let t = 0.5 + 0.4 * p[6];
            let s = slerp(a, b, t);
            assert_close(dot(&s, &s), 1.0, 1e-12, "on the sphere");
            let j = slerp_jacobian(a, b, t);
            let mut x = a.to_vec();
            x.extend_from_slice(&b);
            x.push(t);
            check_jacobian("slerp", &x, &j, |y| {
                slerp(arr(y), arr(&y[3..]), y[6]).to_vec()
            });
            // d slerp / dt at any t has length omega (unit speed in angle).
            let omega = dot(&a, &b).acos();
            let speed: f64 = (0..3).map(|i| j[i][6] * j[i][6]).sum::<f64>().sqrt();
            assert_close(speed, omega, 1e-10, "angular speed");
        }
        // The small-angle branch: a == b.
        let a = normalize([0.3, -0.2, 0.9]);
        let j = slerp_jacobian(a, a, 0.3);
        for i in 0..3 {
            assert_close(j[i][i], 0.7, 1e-12, "d slerp / d a at a = b");
            assert_close(j[i][3 + i], 0.3, 1e-12, "d slerp / d b at a = b");
        }
    }

    #[test]
    fn path_length_audit() {
        let pts = points(4892, 9, 6, -1.0, 1.0);
        let split = |x: &[f64]| (arr::<3>(x), arr::<3>(&x[3..]), arr::<3>(&x[6..]));
        let join = |(a, b, c): ([f64; 3], [f64; 3], [f64; 3])| {
            let mut v = a.to_vec();
            v.extend_from_slice(&b);
            v.extend_from_slice(&c);
            v
        };
        for (via, mode) in [(None, 0), (Some(1), 2), (Some(0), 5), (None, 12)] {
            audit(
                &Items {
                    what: "slerp::path_length",
                    primal: &|x| {
                        let (a, b, c) = split(x);
                        path_length(a, b, c, via, mode)
                    },
                    grad: &|x| {
                        let (a, b, c) = split(x);
                        let (v, g) = path_length_grad(a, b, c, via, mode);
                        (v, join(g))
                    },
                    vjp: &|x, d| {
                        let (a, b, c) = split(x);
                        let (v, g) = path_length_vjp(a, b, c, via, mode, d);
                        (v, join(g))
                    },
                    jvp: &|x, t| {
                        let (a, b, c) = split(x);
                        path_length_jvp(a, b, c, via, mode, split(t))
                    },
                    grad_into: &|x| {
                        let (a, b, c) = split(x);
                        let mut g = ([f64::NAN; 3], [f64::NAN; 3], [f64::NAN; 3]);
                        let v = path_length_grad_into(
                            a,
                            b,
                            c,
                            via,
                            mode,
                            (&mut g.0, &mut g.1, &mut g.2),
                        );
                        same_bits(
                            &join(g),
                            &join(path_length_grad(a, b, c, via, mode).1),
                            "slerp",
                        );
                        (v, join(g))
                    },
                    hvp: Some(&|x, t| {
                        let (a, b, c) = split(x);
                        let (v, g, hv) = path_length_hvp(a, b, c, via, mode, split(t));
                        (v, join(g), join(hv))
                    }),
                    hessian: Some(&|x| {
                        let (a, b, c) = split(x);
                        let (v, g, h) = path_length_hessian(a, b, c, via, mode);
                        (v, join(g), h)
                    }),
                    analytic: None,
                },
                &pts,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (20) Real roots of a depressed cubic by the trigonometric and Cardano methods (`acos`, `cbrt`,
// `signum`), chosen by the sign of the discriminant, the largest root found by a `fold`, and the
// root's derivative in the coefficients against implicit differentiation.

mod cubic {
    use super::*;
    use autodiff::differentiable;

    /// The largest real root of `x^3 + p x + q`.
    #[differentiable]
    pub fn largest_root(p: f64, q: f64) -> f64 {
        let disc = (q / 2.0).powi(2) + (p / 3.0).powi(3);
        if disc > 0.0 {
            let s = disc.sqrt();
            let u = (-q / 2.0 + s).cbrt();
            let v = -q / 2.0 - s;
            return u + v.signum() * v.abs().cbrt();
        }
        let r = 2.0 * (-p / 3.0).sqrt();
        let phi = (3.0 * q / (p * r)).clamp(-1.0, 1.0).acos();
        let roots = [
            r * (phi / 3.0).cos(),
            r * ((phi + 2.0 * std::f64::consts::PI) / 3.0).cos(),
            r * ((phi + 4.0 * std::f64::consts::PI) / 3.0).cos(),
        ];
        roots.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x))
    }

    #[test]
    fn root_and_its_implicit_derivative() {
        for pt in points(4901, 2, 16, -3.0, 3.0) {
            let (p, q) = (pt[0], pt[1]);
            let (x, (dp, dq)) = largest_root_grad(p, q);
            assert!(
                (x.powi(3) + p * x + q).abs() < 1e-10,
                "a root: {p} {q} -> {x}"
            );
            // F(x, p, q) = x^3 + p x + q = 0: dx/dp = -x / (3x^2 + p), dx/dq = -1 / (3x^2 + p).
            let fx = 3.0 * x * x + p;
            assert_close(dp, -x / fx, 1e-8, "d root / dp");
            assert_close(dq, -1.0 / fx, 1e-8, "d root / dq");
            let (_, dv) = largest_root_jvp(p, q, (0.4, -0.9));
            assert_close(dv, 0.4 * dp - 0.9 * dq, 1e-10, "root jvp");
            assert_eq!(largest_root(p, q), x);
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Regressions of what these projects found: an `if let` (rewritten into the `match` it means), and the
// parts of `let (u, v) = (f(a), g(b));` that calls return as arrays (before: "`u` is not known here
// to hold a slice, `Vec` or array of floats").

mod regressions {
    use super::*;
    use autodiff::differentiable;

    #[differentiable]
    pub fn unit(v: [f64; 3]) -> [f64; 3] {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        [v[0] / n, v[1] / n, v[2] / n]
    }

    /// A field bound by `match` on an `Option<f64>` parameter (before: rustc's E0277 `__S: Constant<__S>`
    /// in the generic copy, which lifted the field though the copy's `Option<__S>` held it lifted).
    #[differentiable]
    pub fn matched(x: f64, scale: Option<f64>) -> f64 {
        match scale {
            Some(k) => k * x.sin(),
            None => x,
        }
    }

    /// The parts made before either is bound: the names swap.
    #[differentiable(order = 2)]
    pub fn tuple_of_calls(a: [f64; 3], b: [f64; 3]) -> f64 {
        let (a, b) = (unit(b), unit(a));
        let (s, c) = (a[0].sin(), b[1]);
        a[0] * b[1] + a[2] * c * s
    }

    #[differentiable(order = 2)]
    pub fn pivoted(x: f64, pivot: Option<usize>, w: &[f64]) -> f64 {
        if let Some(i) = pivot {
            return w[i] * x.powi(3);
        }
        x.sin()
    }

    // `if let None = scale` is one of the forms tested.
    #[allow(clippy::redundant_pattern_matching)]
    #[differentiable]
    pub fn if_let(x: f64, scale: Option<f64>, pivot: Option<usize>, w: &[f64]) -> f64 {
        let mut y = if let Some(k) = scale { k * x } else { x };
        if let Some(i) = pivot {
            y += w[i] * x * x;
        } else if let None = scale {
            y -= w[0];
        }
        if let 1..=3 = w.len() {
            y *= 2.0;
        }
        y
    }

    fn flat(g: ([f64; 3], [f64; 3])) -> Vec<f64> {
        let mut v = g.0.to_vec();
        v.extend_from_slice(&g.1);
        v
    }

    #[test]
    fn a_match_on_an_option_of_a_float() {
        for x in [-1.3, 0.4, 2.2] {
            let (v, d) = matched_grad(x, Some(2.5));
            assert_eq!(v, 2.5 * x.sin());
            assert_close(d, 2.5 * x.cos(), 1e-15, "matched slope");
            assert_eq!(matched_jvp(x, Some(2.5), 2.0), (v, 2.0 * d));
            assert_eq!(matched_grad(x, None), (x, 1.0));
            assert_eq!(matched(x, Some(2.5)), v);
        }
    }

    #[test]
    fn tuple_of_array_calls() {
        let f = |x: &[f64]| tuple_of_calls(arr(x), arr(&x[3..]));
        for p in points(4911, 6, 12, 0.2, 1.5) {
            let (a, b) = (arr::<3>(&p), arr::<3>(&p[3..]));
            let (ua, ub) = (unit(a), unit(b));
            let v = f(&p);
            assert_close(
                v,
                ub[0] * ua[1] + ub[2] * ua[1] * ub[0].sin(),
                1e-15,
                "swapped value",
            );
            let (gv, g) = tuple_of_calls_grad(a, b);
            assert_eq!(gv, v);
            common::assert_fd_gradient(f, &p, &flat(g), "tuple of calls");
            let (_, _, h) = tuple_of_calls_hessian(a, b);
            let grad = |x: &[f64]| flat(tuple_of_calls_grad(arr(x), arr(&x[3..])).1);
            common::assert_hessian_fd(&h, grad, &p, 1e-5, "tuple of calls hessian");
        }
    }

    #[test]
    fn if_let_on_inactive_options() {
        let w = [0.5, -1.5, 2.0];
        for x in [-1.3, 0.4, 2.2] {
            let cases: [(Option<f64>, Option<usize>, &[f64], f64, f64); 5] = [
                (
                    Some(3.0),
                    Some(1),
                    &w,
                    2.0 * (3.0 * x - 1.5 * x * x),
                    2.0 * (3.0 - 3.0 * x),
                ),
                (Some(3.0), None, &w, 2.0 * 3.0 * x, 6.0),
                (None, None, &w, 2.0 * (x - 0.5), 2.0),
                (
                    None,
                    Some(2),
                    &w,
                    2.0 * (x + 2.0 * x * x),
                    2.0 * (1.0 + 4.0 * x),
                ),
                (None, None, &[0.5, 1.0, 1.0, 1.0], x - 0.5, 1.0),
            ];
            for (scale, pivot, ws, value, slope) in cases {
                assert_close(if_let(x, scale, pivot, ws), value, 1e-15, "if let value");
                let (v, (dx, _)) = if_let_grad(x, scale, pivot, ws);
                assert_eq!(v, if_let(x, scale, pivot, ws));
                assert_close(dx, slope, 1e-15, "if let slope");
            }
            let (v, (gx, _), h) = pivoted_hessian(x, Some(2), &w);
            assert_all_close(
                &[v, gx, h[0][0]],
                &[2.0 * x.powi(3), 6.0 * x * x, 12.0 * x],
                1e-15,
                "pivoted",
            );
            let (v, (gx, _), h) = pivoted_hessian(x, None, &w);
            assert_all_close(
                &[v, gx, h[0][0]],
                &[x.sin(), x.cos(), -x.sin()],
                1e-15,
                "not pivoted",
            );
            let (_, (_, gw), h) = pivoted_hessian(x, Some(1), &w);
            assert_all_close(&gw, &[0.0, x.powi(3), 0.0], 1e-15, "pivoted wrt w");
            assert_all_close(
                &h[0],
                &[-9.0 * x, 0.0, 3.0 * x * x, 0.0],
                1e-15,
                "pivoted hessian",
            );
        }
    }
}
