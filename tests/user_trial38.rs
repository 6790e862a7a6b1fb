//! A new user's first programs, written from API.md alone (session 38): about fifty functions over the
//! contract's forms (logistic regression with `wrt`, softmax cross-entropy, an ODE right-hand side as an
//! output parameter, array and `Vec` results with `f_jacobian`, Newton and fixed-point loops, custom and
//! registered gradients, `Differentiable` structs with methods, generic `impl`s, matrices, recursion,
//! closures, iterator chains, `f32`, `f_grad_into` of tuples and structs), most with `order = 2`. Each
//! gradient is checked against central differences or by hand, each Hessian against differences of the
//! gradient or by hand. They all passed when written; they pin that.

// Some primals are checked only through their derivatives, by hand.
#![allow(
    dead_code,
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::useless_vec
)]

/// Central differences of `f` at `x`, the oracle of the gradients here.
fn fd(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * (1.0 + x[i].abs());
            let mut a = x.to_vec();
            a[i] += h;
            let mut b = x.to_vec();
            b[i] -= h;
            (f(&a) - f(&b)) / (2.0 * h)
        })
        .collect()
}

/// `a` and `b` agree to `tol`, relative to the larger of them and 1.
#[track_caller]
fn close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(b) {
        assert!(
            (x - y).abs() <= tol * (1.0 + x.abs().max(y.abs())),
            "{what}: {a:?} vs {b:?}"
        );
    }
}

/// The Hessian by central differences of the gradient `g` at `x`.
fn hess_fd(g: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for j in 0..n {
        let e = 1e-5 * (1.0 + x[j].abs());
        let mut a = x.to_vec();
        a[j] += e;
        let mut b = x.to_vec();
        b[j] -= e;
        let (ga, gb) = (g(&a), g(&b));
        for i in 0..n {
            h[i][j] = (ga[i] - gb[i]) / (2.0 * e);
        }
    }
    h
}

#[track_caller]
fn check_h(h: &[Vec<f64>], hf: &[Vec<f64>], what: &str) {
    assert_eq!(h.len(), hf.len(), "{what}");
    for (r, rf) in h.iter().zip(hf) {
        close(r, rf, 1e-4, what);
    }
}

macro_rules! check_slice_fn {
    ($name:ident, $grad:ident, $hess:ident, $x:expr) => {{
        let x: Vec<f64> = $x;
        let (v, g) = $grad(&x);
        assert!((v - $name(&x)).abs() < 1e-12);
        close(&g, &fd(&|x| $name(x), &x), 1e-6, stringify!($name));
        let (_, _, h) = $hess(&x);
        check_h(&h, &hess_fd(&|x| $grad(x).1, &x), stringify!($hess));
    }};
}

mod basics {
    use super::*;
    use autodiff::{custom_gradient, differentiable, gradient_of, Differentiable, Float};

    // 1. logistic regression with wrt, order 2
    #[differentiable(wrt(w), order = 2)]
    pub fn logreg(w: &[f64], xs: &[f64], ys: &[f64], d: usize) -> f64 {
        let n = ys.len();
        let mut loss = 0.0;
        for i in 0..n {
            let mut z = 0.0;
            for j in 0..d {
                z += w[j] * xs[i * d + j];
            }
            let p = 1.0 / (1.0 + (-z).exp());
            loss -= ys[i] * p.ln() + (1.0 - ys[i]) * (1.0 - p).ln();
        }
        loss / n as f64
    }

    // 2. softmax cross entropy with a local vec and a max
    #[differentiable(order = 2)]
    pub fn xent(z: &[f64], label: usize) -> f64 {
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = z.iter().map(|&v| (v - m).exp()).sum();
        m + s.ln() - z[label]
    }

    // 3. output parameter: ODE rhs
    #[differentiable]
    pub fn pendulum(y: &[f64], p: &[f64], dydt: &mut [f64]) {
        dydt[0] = y[1];
        dydt[1] = -p[0] * y[0].sin() - p[1] * y[1];
    }

    // 4. vector return -> jacobian
    #[differentiable]
    pub fn polar_to_cart(r: f64, t: f64) -> [f64; 2] {
        [r * t.cos(), r * t.sin()]
    }

    // 5. Vec return
    #[differentiable]
    pub fn cumprod(x: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(x.len());
        let mut acc = 1.0;
        for &v in x {
            acc *= v;
            out.push(acc);
        }
        out
    }

    // 6. while loop with tolerance: Newton sqrt (fixed iterations)
    #[differentiable(order = 2)]
    pub fn babylon(a: f64) -> f64 {
        let mut x = a;
        let mut k = 0;
        while k < 20 {
            x = 0.5 * (x + a / x);
            k += 1;
        }
        x
    }

    // 7. custom gradient log1pexp, order 2 caller
    #[custom_gradient]
    pub fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let e = x.exp();
        ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
    }
    #[differentiable(order = 3)]
    pub fn softplus_sum(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += log1pexp(v) * v;
        }
        s
    }

    // 8. struct with Differentiable, method with wrt(self)
    #[derive(Differentiable, Clone, Debug)]
    pub struct Affine {
        pub w: Vec<f64>,
        pub b: f64,
    }
    impl Affine {
        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, x: &[f64], y: f64) -> f64 {
            let mut z = self.b;
            for i in 0..x.len() {
                z += self.w[i] * x[i];
            }
            (z - y).powi(2)
        }
    }

    // 9. generic function with T
    #[differentiable(order = 2)]
    pub fn rosen<T: Float>(x: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..x.len() - 1 {
            let a = T::one() - x[i];
            let b = x[i + 1] - x[i] * x[i];
            s = s + a * a + T::from(100.0).unwrap() * b * b;
        }
        s
    }

    // 10. match on an integer, if on value
    #[differentiable(order = 2)]
    pub fn piecewise(x: f64, mode: u8) -> f64 {
        let y = match mode {
            0 => x.sin(),
            1 => x.cos() * x,
            _ => x.tanh(),
        };
        if y > 0.0 {
            y * y
        } else {
            -y
        }
    }

    // 11. tuple return
    #[differentiable]
    pub fn stats(x: &[f64]) -> (f64, f64) {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        (mean, var)
    }

    // 12. calls between functions at order 2, f64 functions
    #[differentiable]
    pub fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }
    #[differentiable(order = 2)]
    pub fn quad(x: &[f64], a: &[f64]) -> f64 {
        let d = dot(x, a);
        d * d + dot(x, x)
    }

    // 13. registered gradient for a foreign fn
    pub fn my_erf_like(x: f64) -> f64 {
        x.tanh()
    }
    #[gradient_of(my_erf_like)]
    fn my_erf_like_grad(x: f64, dy: f64) -> f64 {
        let t = x.tanh();
        dy * (1.0 - t * t)
    }
    #[differentiable(order = 2)]
    pub fn uses_registered(x: f64, y: f64) -> f64 {
        my_erf_like(x * y) + x
    }

    // 14. 2D array param
    #[differentiable(order = 2)]
    pub fn det2(m: [[f64; 2]; 2]) -> f64 {
        m[0][0] * m[1][1] - m[0][1] * m[1][0]
    }

    // 15. early return
    #[differentiable(order = 2)]
    pub fn first_positive(x: &[f64]) -> f64 {
        for i in 0..x.len() {
            if x[i] > 0.0 {
                return x[i] * x[i];
            }
        }
        0.0
    }

    // 16. f32
    #[differentiable(order = 2)]
    pub fn f32fn(x: f32, y: f32) -> f32 {
        (x * y).exp() + x.powf(y)
    }

    // 17. nested vec matrix
    #[differentiable(order = 2)]
    pub fn frob(m: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for row in m {
            for &v in row {
                s += v * v;
            }
        }
        s.sqrt()
    }

    // 18. closure captured, map collect
    #[differentiable(order = 2)]
    pub fn scaled_norm(x: &[f64], k: f64) -> f64 {
        let f = |v: f64| (v * k).sin();
        let y: Vec<f64> = x.iter().map(|&v| f(v)).collect();
        y.iter().map(|v| v * v).sum::<f64>()
    }

    // 19. method calling method, no wrt(self)
    pub struct Spring {
        pub k: f64,
        pub rest: f64,
    }
    impl Spring {
        #[differentiable]
        pub fn energy(&self, x: f64) -> f64 {
            0.5 * self.k * (x - self.rest).powi(2)
        }
        #[differentiable(order = 2)]
        pub fn total(&self, xs: &[f64]) -> f64 {
            let mut e = 0.0;
            for &x in xs {
                e += self.energy(x);
            }
            e
        }
    }

    // 20. grad of vjp with tuples param
    #[differentiable(order = 2)]
    pub fn pairf(p: (f64, f64), q: f64) -> f64 {
        let (a, b) = p;
        a * b * q + a.exp()
    }

    #[test]
    fn t_logreg() {
        let xs = [0.5, -1.0, 2.0, 0.3, -0.7, 1.1, 0.2, 0.9, -0.4];
        let ys = [1.0, 0.0, 1.0];
        let w = [0.1, -0.2, 0.3];
        let (v, g) = logreg_grad(&w, &xs, &ys, 3);
        assert!((v - logreg(&w, &xs, &ys, 3)).abs() < 1e-12);
        close(
            &g,
            &fd(&|w| logreg(w, &xs, &ys, 3), &w),
            1e-6,
            "logreg grad",
        );
        let (_, _, h) = logreg_hessian(&w, &xs, &ys, 3);
        check_h(
            &h,
            &hess_fd(&|w| logreg_grad(w, &xs, &ys, 3).1, &w),
            "logreg hess",
        );
    }
    #[test]
    fn t_xent() {
        let z = [0.3, -1.2, 2.0, 0.7];
        let (_, g) = xent_grad(&z, 2);
        close(&g, &fd(&|z| xent(z, 2), &z), 1e-6, "xent");
        let (_, _, h) = xent_hessian(&z, 2);
        check_h(&h, &hess_fd(&|z| xent_grad(z, 2).1, &z), "xent hess");
    }
    #[test]
    fn t_pendulum() {
        let y = [0.4, -0.3];
        let p = [9.8, 0.2];
        let mut out = [0.0; 2];
        let d_out = [0.7, -1.3];
        let (gy, gp) = pendulum_vjp(&y, &p, &mut out, &d_out);
        let f = |yp: &[f64]| {
            let mut o = [0.0; 2];
            pendulum(&yp[..2], &yp[2..], &mut o);
            o[0] * 0.7 - 1.3 * o[1]
        };
        let all: Vec<f64> = y.iter().chain(&p).cloned().collect();
        let mut mine = gy.clone();
        mine.extend(gp);
        close(&mine, &fd(&f, &all), 1e-6, "pendulum vjp");
        let jac = pendulum_jacobian(&y, &p, &mut out);
        assert_eq!(jac.len(), 2);
        assert_eq!(jac[0].len(), 4);
        for r in 0..2 {
            let fr = |yp: &[f64]| {
                let mut o = [0.0; 2];
                pendulum(&yp[..2], &yp[2..], &mut o);
                o[r]
            };
            close(&jac[r], &fd(&fr, &all), 1e-6, "pendulum jac");
        }
    }
    #[test]
    fn t_polar() {
        let j = polar_to_cart_jacobian(2.0, 0.7);
        assert!((j[0][0] - 0.7f64.cos()).abs() < 1e-12);
        assert!((j[0][1] + 2.0 * 0.7f64.sin()).abs() < 1e-12);
        assert!((j[1][0] - 0.7f64.sin()).abs() < 1e-12);
        assert!((j[1][1] - 2.0 * 0.7f64.cos()).abs() < 1e-12);
    }
    #[test]
    fn t_cumprod() {
        let x = [1.5, -0.5, 2.0, 0.3];
        let j = cumprod_jacobian(&x);
        for r in 0..4 {
            close(&j[r], &fd(&|x| cumprod(x)[r], &x), 1e-6, "cumprod");
        }
        let (v, g) = cumprod_vjp(&x, vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(v, cumprod(&x));
        close(
            &g,
            &fd(
                &|x| {
                    let c = cumprod(x);
                    c[0] + 2.0 * c[1] + 3.0 * c[2] + 4.0 * c[3]
                },
                &x,
            ),
            1e-6,
            "cumprod vjp",
        );
    }
    #[test]
    fn t_babylon() {
        for a in [0.5, 2.0, 9.0] {
            let d = babylon_derivatives(a);
            assert!((d[0] - a.sqrt()).abs() < 1e-12);
            assert!((d[1] - 0.5 / a.sqrt()).abs() < 1e-9, "{d:?}");
            assert!((d[2] + 0.25 * a.powf(-1.5)).abs() < 1e-8, "{d:?}");
        }
    }
    #[test]
    fn t_softplus() {
        let x = [0.3, -1.0, 2.0];
        let (_, g) = softplus_sum_grad(&x);
        close(&g, &fd(&|x| softplus_sum(x), &x), 1e-6, "softplus grad");
        let (_, _, h) = softplus_sum_hessian(&x);
        check_h(
            &h,
            &hess_fd(&|x| softplus_sum_grad(x).1, &x),
            "softplus hess",
        );
        // analytic: d/dx (sp(x) x) = s x + sp ; d2 = s(1-s) x + 2 s
        for i in 0..3 {
            let s = 1.0 / (1.0 + (-x[i]).exp());
            assert!((h[i][i] - (s * (1.0 - s) * x[i] + 2.0 * s)).abs() < 1e-9);
        }
    }
    #[test]
    fn t_affine() {
        let m = Affine {
            w: vec![0.3, -0.5],
            b: 0.1,
        };
        let x = [1.0, 2.0];
        let (v, g) = m.loss_grad(&x, 0.7);
        let z = 0.1 + 0.3 - 1.0;
        assert!((v - (z - 0.7f64).powi(2)).abs() < 1e-12);
        let r = 2.0 * (z - 0.7);
        assert!(
            (g.w[0] - r * 1.0).abs() < 1e-12
                && (g.w[1] - r * 2.0).abs() < 1e-12
                && (g.b - r).abs() < 1e-12,
            "{g:?}"
        );
        let (_, _, h) = m.loss_hessian(&x, 0.7);
        // params flattened: w0, w1, b; H = 2 * a a^T with a = (x0, x1, 1)
        let a = [1.0, 2.0, 1.0];
        for i in 0..3 {
            for j in 0..3 {
                assert!((h[i][j] - 2.0 * a[i] * a[j]).abs() < 1e-12, "{h:?}");
            }
        }
    }
    #[test]
    fn t_rosen() {
        let x = [0.5, -0.3, 1.2];
        let (_, g) = rosen_grad(&x);
        close(&g, &fd(&|x| rosen(x), &x), 1e-6, "rosen");
        let (_, _, h) = rosen_hessian(&x);
        check_h(&h, &hess_fd(&|x| rosen_grad(x).1, &x), "rosen hess");
    }
    #[test]
    fn t_piecewise() {
        for mode in 0..3u8 {
            for x in [-1.3, 0.4, 2.1] {
                let d = piecewise_derivatives(x, mode);
                let f = |v: f64| piecewise(v, mode);
                let h = 1e-5;
                assert!((d[1] - (f(x + h) - f(x - h)) / (2.0 * h)).abs() < 1e-6);
                let g = |v: f64| piecewise_derivatives(v, mode)[1];
                assert!(
                    (d[2] - (g(x + h) - g(x - h)) / (2.0 * h)).abs() < 1e-5,
                    "{mode} {x} {d:?}"
                );
            }
        }
    }
    #[test]
    fn t_stats() {
        let x = [1.0, 2.0, 4.5, -1.0];
        let (v, g) = stats_vjp(&x, (0.3, 0.8));
        assert_eq!(v, stats(&x));
        close(
            &g,
            &fd(
                &|x| {
                    let (m, s) = stats(x);
                    0.3 * m + 0.8 * s
                },
                &x,
            ),
            1e-6,
            "stats",
        );
    }
    #[test]
    fn t_quad() {
        let x = [0.5, -0.3];
        let a = [1.5, 2.0];
        let (_, _, h) = quad_hessian(&x, &a);
        // wrt both x and a: check vs fd of grad
        let all = [0.5, -0.3, 1.5, 2.0];
        let g = |v: &[f64]| {
            let (_, (gx, ga)) = quad_grad(&v[..2], &v[2..]);
            let mut r = gx;
            r.extend(ga);
            r
        };
        check_h(&h, &hess_fd(&g, &all), "quad hess");
        close(
            &g(&all),
            &fd(&|v| quad(&v[..2], &v[2..]), &all),
            1e-6,
            "quad grad",
        );
    }
    #[test]
    fn t_registered() {
        let (x, y) = (0.4, -0.9);
        let (_, _, h) = uses_registered_hessian(x, y);
        let g = |v: &[f64]| {
            let (_, (a, b)) = uses_registered_grad(v[0], v[1]);
            vec![a, b]
        };
        check_h(&h, &hess_fd(&g, &[x, y]), "registered hess");
        close(
            &g(&[x, y]),
            &fd(&|v| uses_registered(v[0], v[1]), &[x, y]),
            1e-6,
            "reg grad",
        );
    }
    #[test]
    fn t_det2() {
        let m = [[1.0, 2.0], [3.0, 4.5]];
        let (_, g) = det2_grad(m);
        assert_eq!(g, [[4.5, -3.0], [-2.0, 1.0]]);
        let (_, _, h) = det2_hessian(m);
        // flattened m00 m01 m10 m11: d2/dm00 dm11 = 1, d2/dm01 dm10 = -1
        assert_eq!(h[0][3], 1.0);
        assert_eq!(h[1][2], -1.0);
        assert_eq!(h[0][0], 0.0);
    }
    #[test]
    fn t_first_positive() {
        let x = [-1.0, -0.5, 0.7, 2.0];
        let (_, g) = first_positive_grad(&x);
        assert_eq!(g, vec![0.0, 0.0, 1.4, 0.0]);
        let (_, _, h) = first_positive_hessian(&x);
        assert_eq!(h[2][2], 2.0);
        assert_eq!(h[3][3], 0.0);
    }
    #[test]
    fn t_f32() {
        let (x, y) = (1.3f32, 0.7f32);
        let (_, (gx, gy)) = f32fn_grad(x, y);
        let ex = y * (x * y).exp() + y * x.powf(y - 1.0);
        let ey = x * (x * y).exp() + x.powf(y) * x.ln();
        assert!((gx - ex).abs() < 1e-4 && (gy - ey).abs() < 1e-4);
        let (_, _, h) = f32fn_hessian(x, y);
        let hxx = y * y * (x * y).exp() + y * (y - 1.0) * x.powf(y - 2.0);
        assert!((h[0][0] - hxx).abs() < 1e-3, "{h:?}");
    }
    #[test]
    fn t_frob() {
        let m = vec![vec![1.0, 2.0], vec![-0.5, 3.0, 0.1]];
        let (v, g) = frob_grad(&m);
        for i in 0..2 {
            for j in 0..m[i].len() {
                assert!((g[i][j] - m[i][j] / v).abs() < 1e-12);
            }
        }
        let (_, _, h) = frob_hessian(&m);
        assert_eq!(h.len(), 5);
        let flat: Vec<f64> = m.iter().flatten().cloned().collect();
        for i in 0..5 {
            for j in 0..5 {
                let e = (if i == j { 1.0 } else { 0.0 }) / v - flat[i] * flat[j] / v.powi(3);
                assert!((h[i][j] - e).abs() < 1e-12);
            }
        }
    }
    #[test]
    fn t_scaled_norm() {
        let x = [0.3, -0.8, 1.1];
        let k = 0.9;
        let (_, (gx, gk)) = scaled_norm_grad(&x, k);
        let mut all = x.to_vec();
        all.push(k);
        let mut mine = gx;
        mine.push(gk);
        close(
            &mine,
            &fd(&|v| scaled_norm(&v[..3], v[3]), &all),
            1e-6,
            "scaled_norm",
        );
        let (_, _, h) = scaled_norm_hessian(&x, k);
        let g = |v: &[f64]| {
            let (_, (a, b)) = scaled_norm_grad(&v[..3], v[3]);
            let mut r = a;
            r.push(b);
            r
        };
        check_h(&h, &hess_fd(&g, &all), "scaled_norm hess");
    }
    #[test]
    fn t_spring() {
        let s = Spring { k: 3.0, rest: 0.5 };
        let xs = [0.2, 1.4];
        let (_, g) = s.total_grad(&xs);
        assert!((g[0] - 3.0 * (0.2 - 0.5)).abs() < 1e-12);
        let (_, _, h) = s.total_hessian(&xs);
        assert_eq!(h, vec![vec![3.0, 0.0], vec![0.0, 3.0]]);
    }
    #[test]
    fn t_pair() {
        let (_, (gp, gq)) = pairf_grad((0.5, 1.5), 2.0);
        assert!((gp.0 - (1.5 * 2.0 + 0.5f64.exp())).abs() < 1e-12);
        assert!((gp.1 - 0.5 * 2.0).abs() < 1e-12 && (gq - 0.75).abs() < 1e-12);
        let (_, _, h) = pairf_hessian((0.5, 1.5), 2.0);
        assert!(
            (h[0][0] - 0.5f64.exp()).abs() < 1e-12
                && (h[0][1] - 2.0).abs() < 1e-12
                && (h[0][2] - 1.5).abs() < 1e-12
                && (h[1][2] - 0.5).abs() < 1e-12
        );
    }
}

mod forms {
    use super::*;
    use autodiff::{custom_gradient, differentiable, Differentiable, Float};

    const SCALE: f64 = 2.5;

    #[differentiable(order = 2)]
    pub fn consts_and_steps(x: &[f64]) -> f64 {
        const HALF: f64 = 0.5;
        let mut s = 0.0;
        for i in (0..x.len()).step_by(2) {
            s += HALF * x[i] * x[i] * SCALE;
        }
        for i in 1..=2 {
            s += x[i].mul_add(x[0], 1.0);
        }
        for i in (0..x.len()).rev() {
            if i == 1 {
                continue;
            }
            s += x[i].hypot(0.3);
            if s > 100.0 {
                break;
            }
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn loops(a: f64) -> f64 {
        let mut x = a;
        let mut n = 0;
        loop {
            x = x.sin() + a * 0.1;
            n += 1;
            if n >= 5 {
                break;
            }
        }
        let mut y = 0.0;
        while y < 3.0 {
            y += 1.0 + x * x;
        }
        x * y + a.atan2(1.5) + a.clamp(-0.2, 0.3) + a.round()
    }

    #[differentiable(order = 2)]
    pub fn nested_fn(x: f64, y: f64) -> f64 {
        fn sq(v: f64) -> f64 {
            v * v
        }
        sq(x) * y + sq(y.sin())
    }

    #[differentiable(order = 2)]
    pub fn power_rec(x: f64, n: usize) -> f64 {
        if n == 0 {
            1.0
        } else {
            x * power_rec(x, n - 1)
        }
    }

    #[differentiable(order = 2)]
    pub fn subslices(x: &[f64]) -> f64 {
        let a = &x[1..];
        let b = &x[..2];
        let p: f64 = a.iter().copied().product();
        p + inner(b) + inner(&x[2..4])
    }
    #[differentiable]
    pub fn inner(v: &[f64]) -> f64 {
        v.iter().map(|t| t.exp()).sum::<f64>().ln()
    }

    #[differentiable(order = 2)]
    pub fn arr_match(x: f64, k: usize) -> f64 {
        let v = match k % 3 {
            0 => [x, x * x],
            1 | 2 => [x.sin(), 1.0],
            _ => [0.0, 0.0],
        };
        v[0] * v[1]
    }

    #[differentiable]
    pub fn arr_return(x: f64) -> [f64; 2] {
        if x > 1.0 {
            return [x, 2.0 * x];
        }
        [x * x, x.exp()]
    }

    #[custom_gradient]
    pub fn mulc(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        (x * y, move |dy| (dy * y, dy * x))
    }
    #[differentiable(order = 2)]
    pub fn uses_mulc(a: f64, b: f64) -> f64 {
        mulc(a, b) * a + mulc(b, b)
    }

    #[differentiable]
    pub fn rhs(y: &[f64], k: f64, dydt: &mut [f64]) {
        for i in 0..y.len() {
            dydt[i] = -k * y[i] * y[i];
        }
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct Layer {
        pub w: Vec<f64>,
        pub b: Vec<f64>,
    }
    #[derive(Differentiable, Clone, Debug)]
    pub struct Net {
        pub l1: Layer,
        pub out: f64,
        #[no_grad]
        pub n: usize,
    }
    #[differentiable(wrt(net), order = 2)]
    pub fn net_loss(net: &Net, x: &[f64], y: f64) -> f64 {
        let mut acc = net.out;
        for j in 0..net.n {
            let mut z = net.l1.b[j];
            for i in 0..x.len() {
                z += net.l1.w[j * x.len() + i] * x[i];
            }
            acc += z.tanh();
        }
        (acc - y) * (acc - y)
    }

    #[derive(Differentiable, Clone, Debug)]
    pub struct Gen<T> {
        pub c: T,
    }
    impl<T: Float> Gen<T> {
        #[differentiable(order = 2)]
        pub fn f(&self, x: T) -> T {
            self.g(x) * self.c + x
        }
        #[differentiable]
        pub fn g(&self, x: T) -> T {
            (x * self.c).sin()
        }
    }

    #[differentiable(order = 2)]
    pub fn matrix(m: &[[f64; 3]; 2], v: &[f64; 3]) -> f64 {
        let mut s = 0.0;
        for r in m {
            let mut d = 0.0;
            for j in 0..3 {
                d += r[j] * v[j];
            }
            s += d * d;
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn fold_enum(x: &[f64]) -> f64 {
        x.iter()
            .enumerate()
            .fold(0.0, |acc, (i, &v)| acc + (i as f64 + 1.0) * v.cos())
            + x.iter()
                .zip(x.iter().skip(1))
                .map(|(a, b)| a * b)
                .sum::<f64>()
    }

    #[test]
    fn slices() {
        check_slice_fn!(
            consts_and_steps,
            consts_and_steps_grad,
            consts_and_steps_hessian,
            vec![0.3, -1.2, 0.8, 1.7, -0.4]
        );
        check_slice_fn!(
            subslices,
            subslices_grad,
            subslices_hessian,
            vec![0.3, -1.2, 0.8, 1.7, -0.4]
        );
        check_slice_fn!(
            fold_enum,
            fold_enum_grad,
            fold_enum_hessian,
            vec![0.3, -1.2, 0.8, 1.7]
        );
    }
    #[test]
    fn scalars() {
        for a in [0.13, 0.7, -0.4] {
            let d = loops_derivatives(a);
            let h = 1e-5;
            assert!(
                (d[1] - (loops(a + h) - loops(a - h)) / (2.0 * h)).abs() < 1e-5,
                "{a} {d:?}"
            );
            let g = |v: f64| loops_derivatives(v)[1];
            assert!(
                (d[2] - (g(a + h) - g(a - h)) / (2.0 * h)).abs() < 1e-4,
                "{a} {d:?}"
            );
            let d = power_rec_derivatives(a, 4);
            assert!((d[1] - 4.0 * a.powi(3)).abs() < 1e-12 && (d[2] - 12.0 * a * a).abs() < 1e-12);
            for k in 0..3 {
                let d = arr_match_derivatives(a, k);
                assert!(
                    (d[1] - (arr_match(a + h, k) - arr_match(a - h, k)) / (2.0 * h)).abs() < 1e-6
                );
                let g = |v: f64| arr_match_derivatives(v, k)[1];
                assert!((d[2] - (g(a + h) - g(a - h)) / (2.0 * h)).abs() < 1e-5);
            }
        }
        let (x, y) = (0.6, -1.1);
        let (_, _, h) = nested_fn_hessian(x, y);
        let g = |v: &[f64]| {
            let (_, (a, b)) = nested_fn_grad(v[0], v[1]);
            vec![a, b]
        };
        close(
            &g(&[x, y]),
            &fd(&|v| nested_fn(v[0], v[1]), &[x, y]),
            1e-6,
            "nested grad",
        );
        check_h(&h, &hess_fd(&g, &[x, y]), "nested hess");
        let (_, _, h) = uses_mulc_hessian(x, y);
        let g = |v: &[f64]| {
            let (_, (a, b)) = uses_mulc_grad(v[0], v[1]);
            vec![a, b]
        };
        close(
            &g(&[x, y]),
            &fd(&|v| uses_mulc(v[0], v[1]), &[x, y]),
            1e-6,
            "mulc grad",
        );
        check_h(&h, &hess_fd(&g, &[x, y]), "mulc hess");
        // analytic: f = a^2 b + b^2; H = [[2b, 2a], [2a, 2]]
        assert!(
            (h[0][0] - 2.0 * y).abs() < 1e-12
                && (h[0][1] - 2.0 * x).abs() < 1e-12
                && (h[1][1] - 2.0).abs() < 1e-12,
            "{h:?}"
        );
    }
    #[test]
    fn arrays() {
        for x in [0.5, 1.5] {
            let j = arr_return_jacobian(x);
            let e = if x > 1.0 {
                [1.0, 2.0]
            } else {
                [2.0 * x, x.exp()]
            };
            assert!(
                (j[0][0] - e[0]).abs() < 1e-12 && (j[1][0] - e[1]).abs() < 1e-12,
                "{j:?}"
            );
        }
        let m = [[0.5, -1.0, 2.0], [0.1, 0.3, -0.7]];
        let v = [1.0, 0.5, -0.2];
        let (_, (gm, gv)) = matrix_grad(&m, &v);
        let flat = |m: &[[f64; 3]; 2], v: &[f64; 3]| -> Vec<f64> {
            m.iter().flatten().chain(v.iter()).cloned().collect()
        };
        let all = flat(&m, &v);
        let f = |a: &[f64]| {
            let m = [[a[0], a[1], a[2]], [a[3], a[4], a[5]]];
            let v = [a[6], a[7], a[8]];
            matrix(&m, &v)
        };
        close(&flat(&gm, &gv), &fd(&f, &all), 1e-6, "matrix grad");
        let (_, _, h) = matrix_hessian(&m, &v);
        let g = |a: &[f64]| {
            let m = [[a[0], a[1], a[2]], [a[3], a[4], a[5]]];
            let v = [a[6], a[7], a[8]];
            let (_, (gm, gv)) = matrix_grad(&m, &v);
            flat(&gm, &gv)
        };
        check_h(&h, &hess_fd(&g, &all), "matrix hess");
    }
    #[test]
    fn outputs() {
        let y = [0.5, -1.5, 2.0];
        let mut out = [0.0; 3];
        let j = rhs_jacobian(&y, 0.7, &mut out);
        assert_eq!(j.len(), 3);
        assert_eq!(j[0].len(), 4);
        for i in 0..3 {
            for c in 0..3 {
                let e = if i == c { -2.0 * 0.7 * y[i] } else { 0.0 };
                assert!((j[i][c] - e).abs() < 1e-12);
            }
            assert!((j[i][3] + y[i] * y[i]).abs() < 1e-12);
        }
        let mut gy = [0.0; 3];
        let mut gk = 0.0;
        let d_out = [1.0, 0.5, -2.0];
        rhs_grad_into_check(&y, &mut out, &d_out, &mut gy, &mut gk);
    }
    fn rhs_grad_into_check(
        y: &[f64],
        out: &mut [f64],
        d_out: &[f64],
        gy: &mut [f64],
        gk: &mut f64,
    ) {
        let (a, b) = rhs_vjp(y, 0.7, out, d_out);
        for i in 0..3 {
            gy[i] = a[i];
            assert!((a[i] - d_out[i] * -2.0 * 0.7 * y[i]).abs() < 1e-12);
        }
        *gk = b;
        let e: f64 = (0..3).map(|i| -d_out[i] * y[i] * y[i]).sum();
        assert!((b - e).abs() < 1e-12);
    }
    #[test]
    fn structs() {
        let net = Net {
            l1: Layer {
                w: vec![0.3, -0.2, 0.5, 0.1],
                b: vec![0.05, -0.1],
            },
            out: 0.2,
            n: 2,
        };
        let x = [0.7, -1.1];
        let (_, g) = net_loss_grad(&net, &x, 0.4);
        let flat = |n: &Net| -> Vec<f64> {
            n.l1.w
                .iter()
                .chain(&n.l1.b)
                .cloned()
                .chain([n.out])
                .collect()
        };
        let unflat = |a: &[f64]| Net {
            l1: Layer {
                w: a[..4].to_vec(),
                b: a[4..6].to_vec(),
            },
            out: a[6],
            n: 2,
        };
        let all = flat(&net);
        close(
            &flat(&g),
            &fd(&|a| net_loss(&unflat(a), &x, 0.4), &all),
            1e-6,
            "net grad",
        );
        let (_, _, h) = net_loss_hessian(&net, &x, 0.4);
        check_h(
            &h,
            &hess_fd(&|a| flat(&net_loss_grad(&unflat(a), &x, 0.4).1), &all),
            "net hess",
        );
        let gen = Gen { c: 1.3 };
        let d = gen.f_derivatives(0.4);
        let (c, x) = (1.3f64, 0.4f64);
        assert!((d[1] - ((x * c).cos() * c * c + 1.0)).abs() < 1e-12);
        assert!((d[2] + (x * c).sin() * c * c * c).abs() < 1e-12);
    }
}

mod flows {
    use super::*;
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn local_matrix(x: &[f64], n: usize) -> f64 {
        let mut m = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                m[i][j] = x[i] * x[j] + if i == j { 1.0 } else { 0.0 };
            }
        }
        let mut tr = 0.0;
        for i in 0..n {
            tr += m[i][i].ln() + m[i][(i + 1) % n];
        }
        tr
    }

    #[differentiable(order = 2)]
    pub fn swap_fib(x: f64) -> f64 {
        let (mut a, mut b) = (x, 1.0);
        for _ in 0..5 {
            let t = a + b * 0.5;
            a = b;
            b = t;
            (a, b) = (b, a);
        }
        a * b
    }

    #[differentiable(order = 2)]
    pub fn collect_then_call(x: &[f64]) -> f64 {
        let sq: Vec<f64> = x.iter().map(|v| v * v).collect();
        let e: Vec<f64> = sq.iter().map(|&v| (-v).exp()).collect();
        norm2(&e) + norm2(&sq[1..])
    }
    #[differentiable]
    pub fn norm2(v: &[f64]) -> f64 {
        v.iter().map(|a| a * a).sum::<f64>().sqrt()
    }

    #[differentiable(order = 2)]
    pub fn active_while(a: f64) -> f64 {
        let mut x = 1.0;
        let mut k = 0;
        while x < a * 10.0 && k < 50 {
            x = x * 1.5 + a;
            k += 1;
        }
        x
    }

    #[differentiable(order = 2)]
    pub fn even(x: f64, n: u32) -> f64 {
        if n == 0 {
            x
        } else {
            odd(x * 1.1, n - 1).sin()
        }
    }
    #[differentiable(order = 2)]
    pub fn odd(x: f64, n: u32) -> f64 {
        if n == 0 {
            x * x
        } else {
            even(x + 0.3, n - 1) * x
        }
    }

    #[differentiable(order = 2)]
    pub fn shadowing(x: f64) -> f64 {
        let y = x * 2.0;
        let y = y.sin() + y;
        let x = x + y;
        let y = {
            let z = x * y;
            z - 1.0
        };
        x * y
    }

    #[differentiable(order = 2)]
    pub fn vec_push(x: &[f64]) -> f64 {
        let mut v = Vec::new();
        for &a in x {
            if a > 0.0 {
                v.push(a.sqrt());
            } else {
                v.push(-a);
            }
        }
        let mut s = 0.0;
        for i in 0..v.len() {
            s += v[i] * (i as f64 + 1.0);
        }
        s * s
    }

    #[differentiable]
    pub fn grad_into_tuple(p: (f64, f64), w: &[f64]) -> f64 {
        p.0 * w[0] + p.1.exp() * w[1]
    }

    #[differentiable(order = 2)]
    pub fn max_min(x: &[f64]) -> f64 {
        let mut hi = f64::NEG_INFINITY;
        let mut lo = f64::INFINITY;
        for &v in x {
            hi = hi.max(v * v);
            lo = lo.min(v.sin());
        }
        hi - lo + x[0].max(x[1]) * 2.0
    }

    fn lm(x: &[f64]) -> f64 {
        local_matrix(x, 3)
    }
    fn lm_grad(x: &[f64]) -> (f64, Vec<f64>) {
        local_matrix_grad(x, 3)
    }
    fn lm_hess(x: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
        local_matrix_hessian(x, 3)
    }
    #[test]
    fn slices() {
        check_slice_fn!(lm, lm_grad, lm_hess, vec![0.3, -1.2, 0.8]);
        check_slice_fn!(
            collect_then_call,
            collect_then_call_grad,
            collect_then_call_hessian,
            vec![0.3, -1.2, 0.8, 0.5]
        );
        check_slice_fn!(
            vec_push,
            vec_push_grad,
            vec_push_hessian,
            vec![0.3, -1.2, 0.8, 0.5]
        );
        check_slice_fn!(
            max_min,
            max_min_grad,
            max_min_hessian,
            vec![0.3, -1.2, 0.8, 0.5]
        );
    }
    #[test]
    fn scalars() {
        let h = 1e-5;
        for a in [0.13, 0.7, -0.4, 1.9] {
            for (name, f, d) in [
                (
                    "swap",
                    &swap_fib as &dyn Fn(f64) -> f64,
                    &swap_fib_derivatives as &dyn Fn(f64) -> [f64; 3],
                ),
                ("while", &active_while, &active_while_derivatives),
                ("shadow", &shadowing, &shadowing_derivatives),
            ] {
                let dd = d(a);
                assert!((dd[0] - f(a)).abs() < 1e-12);
                assert!(
                    (dd[1] - (f(a + h) - f(a - h)) / (2.0 * h)).abs() < 1e-5 * (1.0 + dd[1].abs()),
                    "{name} {a} {dd:?}"
                );
                let g = |v: f64| d(v)[1];
                assert!(
                    (dd[2] - (g(a + h) - g(a - h)) / (2.0 * h)).abs() < 1e-4 * (1.0 + dd[2].abs()),
                    "{name} {a} {dd:?}"
                );
            }
            for n in 0..4 {
                let dd = even_derivatives(a, n);
                let f = |v: f64| even(v, n);
                assert!(
                    (dd[1] - (f(a + h) - f(a - h)) / (2.0 * h)).abs() < 1e-5,
                    "even {n}"
                );
                let g = |v: f64| even_derivatives(v, n)[1];
                assert!(
                    (dd[2] - (g(a + h) - g(a - h)) / (2.0 * h)).abs() < 1e-4,
                    "even2 {n}"
                );
            }
        }
    }
    #[test]
    fn into() {
        let mut gp = (0.0, 0.0);
        let mut gw = vec![0.0; 2];
        let v = grad_into_tuple_grad_into((0.5, -0.3), &[2.0, 3.0], (&mut gp, &mut gw));
        assert!((v - grad_into_tuple((0.5, -0.3), &[2.0, 3.0])).abs() < 1e-15);
        assert!((gp.0 - 2.0).abs() < 1e-15 && (gp.1 - 3.0 * (-0.3f64).exp()).abs() < 1e-15);
        assert!((gw[0] - 0.5).abs() < 1e-15 && (gw[1] - (-0.3f64).exp()).abs() < 1e-15);
    }
}

mod models {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Mlp {
        pub w1: Vec<f64>,
        pub b1: Vec<f64>,
        pub w2: Vec<f64>,
        pub b2: f64,
        #[no_grad]
        pub hidden: usize,
    }

    #[differentiable(wrt(p), order = 2)]
    pub fn mse(p: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
        let d = xs.len() / ys.len();
        let mut total = 0.0;
        for n in 0..ys.len() {
            let mut out = p.b2;
            for h in 0..p.hidden {
                let mut a = p.b1[h];
                for i in 0..d {
                    a += p.w1[h * d + i] * xs[n * d + i];
                }
                out += p.w2[h] * a.tanh();
            }
            let e = out - ys[n];
            total += e * e;
        }
        total / ys.len() as f64
    }

    impl Mlp {
        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, xs: &[f64], ys: &[f64]) -> f64 {
            mse(self, xs, ys)
        }
        #[differentiable(wrt(self))]
        pub fn predict(&self, x: &[f64]) -> Vec<f64> {
            let mut outs = vec![0.0; self.hidden];
            for h in 0..self.hidden {
                let mut a = self.b1[h];
                for i in 0..x.len() {
                    a += self.w1[h * x.len() + i] * x[i];
                }
                outs[h] = a.tanh() * self.w2[h];
            }
            outs
        }
    }

    #[differentiable(wrt(p))]
    pub fn residual(p: &[f64], t: &[f64], y: &[f64], r: &mut [f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..t.len() {
            r[i] = p[0] * (p[1] * t[i]).exp() - y[i];
            s += r[i] * r[i];
        }
        0.5 * s
    }

    #[differentiable]
    pub fn lin(a: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; a.len()];
        for i in 0..a.len() {
            for j in 0..x.len() {
                y[i] += a[i][j] * x[j];
            }
        }
        y
    }

    #[differentiable(wrt(p))]
    pub fn residual_only(p: &[f64], t: &[f64], y: &[f64], r: &mut [f64]) {
        for i in 0..t.len() {
            r[i] = p[0] * (p[1] * t[i]).exp() - y[i];
        }
    }

    fn model() -> Mlp {
        Mlp {
            w1: vec![0.3, -0.2, 0.5, 0.1, -0.4, 0.25],
            b1: vec![0.05, -0.1, 0.2],
            w2: vec![0.7, -0.3, 0.45],
            b2: 0.1,
            hidden: 3,
        }
    }
    const XS: [f64; 6] = [0.7, -1.1, 0.2, 0.9, -0.5, 1.3];
    const YS: [f64; 3] = [0.4, -0.2, 0.8];
    #[test]
    fn mlp() {
        let m = model();
        let all = m.to_flat();
        let (v, g) = mse_grad(&m, &XS, &YS);
        assert!((v - mse(&m, &XS, &YS)).abs() < 1e-14);
        close(
            &g.to_flat(),
            &fd(&|a| mse(&m.from_flat(a), &XS, &YS), &all),
            1e-6,
            "mse grad",
        );
        let (_, g2) = m.loss_grad(&XS, &YS);
        close(&g2.to_flat(), &g.to_flat(), 1e-14, "loss grad");
        let mut gi = m.zero_like();
        let v3 = m.loss_grad_into(&XS, &YS, &mut gi);
        assert_eq!(v3, v);
        close(&gi.to_flat(), &g.to_flat(), 1e-14, "loss grad into");
        let mut gi2 = m.clone();
        let v4 = mse_grad_into(&m, &XS, &YS, &mut gi2);
        assert_eq!(v4, v);
        close(
            &gi2.to_flat(),
            &g.to_flat(),
            1e-14,
            "mse grad into overwrites",
        );
        let (_, _, h) = mse_hessian(&m, &XS, &YS);
        check_h(
            &h,
            &hess_fd(&|a| mse_grad(&m.from_flat(a), &XS, &YS).1.to_flat(), &all),
            "mse hess",
        );
        let (_, _, h2) = m.loss_hessian(&XS, &YS);
        for (a, b) in h.iter().zip(&h2) {
            close(a, b, 1e-12, "loss hess");
        }
        let v = m.from_flat(&vec![0.5; all.len()]);
        let (_, _, hv) = m.loss_hvp(&XS, &YS, v.clone());
        let hv_expect: Vec<f64> = h
            .iter()
            .map(|r| r.iter().zip(v.to_flat()).map(|(a, b)| a * b).sum())
            .collect();
        close(&hv.to_flat(), &hv_expect, 1e-10, "hvp");
        let j = m.predict_jacobian(&XS[..2]);
        assert_eq!(j.len(), 3);
        assert_eq!(j[0].len(), all.len());
        for r in 0..3 {
            close(
                &j[r],
                &fd(&|a| m.from_flat(a).predict(&XS[..2])[r], &all),
                1e-6,
                "predict jac",
            );
        }
    }
    #[test]
    fn residuals() {
        let p = [1.5, -0.3];
        let t = [0.0, 0.5, 1.0, 2.0];
        let y = [1.4, 1.3, 1.0, 0.9];
        let mut r = [0.0; 4];
        let (v, g) = residual_grad(&p, &t, &y, &mut r);
        close(
            &g,
            &fd(
                &|p| {
                    let mut r = [0.0; 4];
                    residual(p, &t, &y, &mut r)
                },
                &p,
            ),
            1e-6,
            "residual grad",
        );
        assert!((v - residual(&p, &t, &y, &mut [0.0; 4])).abs() < 1e-15);
        let jac = residual_only_jacobian(&p, &t, &y, &mut r);
        // jacobian of the output parameter r (4 rows) wrt p (2 cols) -- or includes return? check shape
        eprintln!("jac shape {} x {}", jac.len(), jac[0].len());
        for i in 0..4 {
            close(
                &jac[i],
                &fd(
                    &|p| {
                        let mut r = [0.0; 4];
                        residual(p, &t, &y, &mut r);
                        r[i]
                    },
                    &p,
                ),
                1e-6,
                "residual jac",
            );
        }
        let d_out = [1.0, -1.0, 0.5, 2.0];
        let (v2, g2) = residual_vjp(&p, &t, &y, &mut r, 0.3, &d_out);
        assert_eq!(v2, v);
        close(
            &g2,
            &fd(
                &|p| {
                    let mut r = [0.0; 4];
                    let v = residual(p, &t, &y, &mut r);
                    0.3 * v + (0..4).map(|i| d_out[i] * r[i]).sum::<f64>()
                },
                &p,
            ),
            1e-6,
            "residual vjp",
        );
        let mut dr = [0.0; 4];
        let (v3, dv) = residual_jvp(&p, &t, &y, &mut r, vec![1.0, 0.0], &mut dr);
        assert_eq!(v3, v);
        assert!((dv - g[0]).abs() < 1e-12);
        for i in 0..4 {
            assert!((dr[i] - jac[i][0]).abs() < 1e-12);
        }
    }
    #[test]
    fn linear() {
        let a = vec![vec![1.0, 2.0], vec![3.0, -1.0], vec![0.5, 0.5]];
        let x = [0.3, 0.7];
        let j = lin_jacobian(&a, &x);
        assert_eq!(j.len(), 3);
        assert_eq!(j[0].len(), 8);
        // columns: a flattened row-major (6), then x (2)
        for i in 0..3 {
            for c in 0..6 {
                let e = if c / 2 == i { x[c % 2] } else { 0.0 };
                assert!((j[i][c] - e).abs() < 1e-14, "{j:?}");
            }
            assert!((j[i][6] - a[i][0]).abs() < 1e-14 && (j[i][7] - a[i][1]).abs() < 1e-14);
        }
    }
}
