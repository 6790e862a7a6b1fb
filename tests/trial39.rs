//! An outside test suite written against API.md alone (session 39), on "higher order everywhere":
//! `order = 2` and `order = 3` on functions with output parameters (`_vjp` with `d_out`, `_jvp` with
//! output-tangent buffers, `_jacobian`, `_hessian` of a float result while outputs are written), on
//! methods and `Differentiable` structs (`wrt(self)`, `Self::helper`, `self.other(x)`, nested structs,
//! `#[no_grad]` fields, a generic `impl<T: Float>`), on `_grad_into` for every parameter kind of API.md's
//! table, on `wrt(..)` with all of these, on calls across modules, and on the body forms API.md lists
//! (iterator chains, closures, sub-slices, nested `fn` items, recursion, `match` with ranges,
//! `loop`/`break` with a value, early `return` of arrays).
//!
//! Every gradient is checked against central differences of the plain function (and by hand where a
//! formula is short), every Hessian against central differences of the generated gradient (and by hand
//! where short), every `_hvp` against the Hessian times the vector, every `_jvp` against the `_vjp` or
//! the gradient, every `_derivatives` third derivative against differences of the second, on seeded
//! points.

// `&Vec<f64>` and `&mut Vec<f64>` parameters are API.md's parameter kinds under test (`ptr_arg`).
#![allow(
    clippy::ptr_arg,
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::too_many_arguments
)]

mod common;

use common::{assert_all_close, assert_close, fd_jacobian, points};

/// The gradient of `f` at `x` by fourth-order central differences.
fn fd_grad(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    fd_jacobian(|p| vec![f(p)], x).remove(0)
}

/// The derivative of a function of one variable by fourth-order central differences.
fn fd1(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-4 * x.abs().max(1.0);
    (8.0 * (f(x + h) - f(x - h)) - (f(x + 2.0 * h) - f(x - 2.0 * h))) / (12.0 * h)
}

/// `m v`.
fn times(m: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    m.iter()
        .map(|row| row.iter().zip(v).map(|(a, b)| a * b).sum())
        .collect()
}

/// `mᵀ v`.
fn times_t(m: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    (0..m[0].len())
        .map(|j| m.iter().zip(v).map(|(row, c)| row[j] * c).sum())
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

/// Checks a function of flat inputs at `x`: the value of `_grad` is the plain function's, the gradient
/// matches central differences of the plain function, the `_hessian`'s value and gradient are `_grad`'s,
/// and its Hessian matches central differences of the gradient (and is symmetric). Returns the Hessian.
#[track_caller]
fn check2(
    what: &str,
    x: &[f64],
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    hess: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
) -> Vec<Vec<f64>> {
    let what = format!("{what} at {x:?}");
    let (v, g) = grad(x);
    assert_close(v, f(x), 1e-12, &format!("{what}: value"));
    assert_all_close(
        &g,
        &fd_grad(&f, x),
        1e-6,
        &format!("{what}: gradient vs differences"),
    );
    let (hv, hg, h) = hess(x);
    assert_close(hv, v, 1e-12, &format!("{what}: value of _hessian"));
    assert_all_close(&hg, &g, 1e-10, &format!("{what}: gradient of _hessian"));
    let by_differences = fd_jacobian(|p| grad(p).1, x);
    assert_eq!(h.len(), x.len(), "{what}: Hessian rows");
    for i in 0..x.len() {
        assert_all_close(
            &h[i],
            &by_differences[i],
            1e-6,
            &format!("{what}: Hessian row {i} vs differences of _grad"),
        );
        for j in 0..x.len() {
            assert_close(h[i][j], h[j][i], 1e-9, &format!("{what}: symmetry"));
        }
    }
    h
}

/// `_hvp` (its value, gradient and product) against `_hessian`'s.
#[track_caller]
fn check_hvp(
    what: &str,
    hessian: &[Vec<f64>],
    g: &[f64],
    v: &[f64],
    hvp: (f64, Vec<f64>, Vec<f64>),
) {
    assert_all_close(&hvp.1, g, 1e-10, &format!("{what}: gradient of _hvp"));
    assert_all_close(&hvp.2, &times(hessian, v), 1e-9, &format!("{what}: _hvp"));
}

/// A function of one scalar at `order = 3`: `d` (its `_derivatives`) against the plain value, central
/// differences of it, of `grad` and of `second` (the second derivative as `_hessian` gives it).
#[track_caller]
fn check3(
    what: &str,
    x: f64,
    d: [f64; 4],
    f: impl Fn(f64) -> f64,
    grad: impl Fn(f64) -> f64,
    second: impl Fn(f64) -> f64,
) {
    let what = format!("{what} at {x}");
    assert_close(d[0], f(x), 1e-12, &format!("{what}: value"));
    assert_close(
        d[1],
        fd1(&f, x),
        1e-6,
        &format!("{what}: f' vs differences"),
    );
    assert_close(d[1], grad(x), 1e-11, &format!("{what}: f' vs _grad"));
    assert_close(
        d[2],
        fd1(&grad, x),
        1e-6,
        &format!("{what}: f'' vs differences of _grad"),
    );
    assert_close(d[2], second(x), 1e-10, &format!("{what}: f'' vs _hessian"));
    assert_close(
        d[3],
        fd1(&second, x),
        1e-5,
        &format!("{what}: f''' vs differences of f''"),
    );
}

// ---------------------------------------------------------------------------------------------------
// (1) Output parameters at `order = 2` and `order = 3`.

mod outputs {
    use super::*;
    use autodiff::differentiable;

    /// A chain of unit-length springs: the forces written into `f` (zeroed first, then accumulated),
    /// the potential energy returned.
    #[differentiable(order = 2)]
    pub fn spring_chain(x: &[f64], k: f64, f: &mut [f64]) -> f64 {
        let n = x.len();
        let mut e = 0.0;
        for i in 0..n {
            f[i] = 0.0;
        }
        for i in 0..n - 1 {
            let d = x[i + 1] - x[i] - 1.0;
            e += 0.5 * k * d * d;
            f[i] += k * d;
            f[i + 1] -= k * d;
        }
        e
    }

    /// The outputs of `spring_chain` as one vector: the energy, then the forces.
    fn spring_all(p: &[f64]) -> Vec<f64> {
        let mut f = vec![0.0; 4];
        let e = spring_chain(&p[..4], p[4], &mut f);
        [vec![e], f].concat()
    }

    #[test]
    fn spring_chain_at_order_2() {
        for p in points(3901, 5, 12, -1.0, 1.5) {
            let (x, k) = (&p[..4], p[4]);
            let mut expected = vec![0.0; 4];
            let e = spring_chain(x, k, &mut expected);
            let grad = |q: &[f64]| {
                let (v, (gx, gk, gf)) = spring_chain_grad(&q[..4], q[4], &mut [f64::NAN; 4]);
                assert_eq!(gf, [0.0; 4], "the incoming forces are overwritten");
                (v, [gx, vec![gk]].concat())
            };
            let h = check2(
                "spring_chain",
                &p,
                |q| spring_chain(&q[..4], q[4], &mut [0.0; 4]),
                grad,
                |q| {
                    let mut f = [f64::NAN; 4];
                    let (v, (gx, gk, gf), h) = spring_chain_hessian(&q[..4], q[4], &mut f);
                    assert_eq!(gf, [0.0; 4], "the incoming forces are overwritten");
                    assert!(h[5..].iter().all(|row| row.iter().all(|&v| v == 0.0)));
                    assert!(h.iter().all(|row| row[5..].iter().all(|&v| v == 0.0)));
                    let h: Vec<Vec<f64>> = h[..5].iter().map(|row| row[..5].to_vec()).collect();
                    let mut want = [0.0; 4];
                    spring_chain(&q[..4], q[4], &mut want);
                    assert_eq!(f, want, "_hessian writes the forces");
                    (v, [gx, vec![gk]].concat(), h)
                },
            );
            // d²E/dk² = 0; d²E/dx dk = gradient / k.
            assert_close(h[4][4], 0.0, 1e-12, "d2E/dk2");
            let g = grad(&p).1;
            for i in 0..4 {
                assert_close(h[i][4], g[i] / k, 1e-9, "d2E/dx dk");
            }
            let v = [0.3, -0.7, 1.1, 0.2, -0.4];
            let mut f = vec![f64::NAN; 4];
            let (hv_value, (gx, gk, _), (hx, hk, hf)) =
                spring_chain_hvp(x, k, &mut f, (v[..4].to_vec(), v[4], vec![9.0; 4]));
            assert_eq!(hf, [0.0; 4]);
            assert_eq!((hv_value, &f), (e, &expected), "_hvp value and forces");
            check_hvp(
                "spring_chain",
                &h,
                &g,
                &v,
                (hv_value, [gx, vec![gk]].concat(), [hx, vec![hk]].concat()),
            );

            // The full Jacobian of (E, f) by differences; _vjp is its transpose times (d_ret, d_out),
            // _jvp its product with a tangent, the forces' tangent written into the buffer.
            let j = fd_jacobian(spring_all, &p);
            let d_out = [0.5, -1.25, 2.0, 0.75];
            let mut f = vec![f64::NAN; 4];
            let (value, (vx, vk, vf)) = spring_chain_vjp(x, k, &mut f, -1.5, &d_out);
            assert_eq!(vf, [0.0; 4]);
            assert_eq!((value, &f), (e, &expected), "_vjp value and forces");
            let cot = [vec![-1.5], d_out.to_vec()].concat();
            assert_all_close(
                &[vx, vec![vk]].concat(),
                &times_t(&j, &cot),
                1e-6,
                "spring_chain _vjp",
            );
            let t = [0.4, 0.1, -0.9, 1.3, 0.6];
            let mut df = vec![f64::NAN; 4];
            let mut f = vec![f64::NAN; 4];
            let (value, de) =
                spring_chain_jvp(x, k, &mut f, (t[..4].to_vec(), t[4], vec![9.0; 4]), &mut df);
            assert_eq!((value, &f), (e, &expected), "_jvp value and forces");
            let jt = times(&j, &t);
            assert_close(de, jt[0], 1e-6, "spring_chain _jvp of the energy");
            assert_all_close(&df, &jt[1..], 1e-6, "spring_chain _jvp of the forces");
        }
    }

    /// A numerically stable softmax written into `p`, at `order = 2` with no float result.
    #[differentiable(order = 2)]
    pub fn softmax_into(z: &[f64], p: &mut [f64]) {
        let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let mut s = 0.0;
        for i in 0..z.len() {
            p[i] = (z[i] - m).exp();
            s += p[i];
        }
        for i in 0..z.len() {
            p[i] /= s;
        }
    }

    #[test]
    fn softmax_into_jacobian_vjp_jvp() {
        for z in points(3902, 4, 12, -2.0, 2.0) {
            let mut p = vec![0.0; 4];
            softmax_into(&z, &mut p);
            let by_hand: Vec<Vec<f64>> = (0..4)
                .map(|i| {
                    (0..4)
                        .map(|j| if i == j { p[i] } else { 0.0 } - p[i] * p[j])
                        .collect()
                })
                .collect();
            let mut q = vec![f64::NAN; 4];
            let j = softmax_into_jacobian(&z, &mut q);
            assert_eq!(q, p, "_jacobian writes the output");
            for i in 0..4 {
                assert_all_close(&j[i], &by_hand[i], 1e-12, "softmax jacobian by hand");
            }
            let d = [1.0, -0.5, 0.25, 2.0];
            let mut q = vec![f64::NAN; 4];
            let g = softmax_into_vjp(&z, &mut q, &d);
            assert_eq!(q, p, "_vjp writes the output");
            assert_all_close(&g, &times_t(&by_hand, &d), 1e-12, "softmax vjp");
            let t = vec![0.3, 0.9, -1.2, 0.5];
            let mut dp = vec![f64::NAN; 4];
            let mut q = vec![f64::NAN; 4];
            let () = softmax_into_jvp(&z, &mut q, t.clone(), &mut dp);
            assert_eq!(q, p, "_jvp writes the output");
            assert_all_close(&dp, &times(&by_hand, &t), 1e-12, "softmax jvp");
            // jvp against vjp: <d, J t> = <Jᵀ d, t>.
            assert_close(dot(&d, &dp), dot(&g, &t), 1e-12, "softmax jvp vs vjp");
        }
    }

    /// Kepler's equation `E - e sin E = M` solved by Newton's method, the position on the orbit written
    /// into an array, the eccentric anomaly returned; derivatives in the mean anomaly alone.
    #[differentiable(wrt(m), order = 3)]
    pub fn kepler(m: f64, e: f64, pos: &mut [f64; 2]) -> f64 {
        let mut ea = m;
        for _ in 0..30 {
            ea -= (ea - e * ea.sin() - m) / (1.0 - e * ea.cos());
        }
        pos[0] = ea.cos() - e;
        pos[1] = (1.0 - e * e).sqrt() * ea.sin();
        ea
    }

    #[test]
    fn kepler_at_order_3() {
        for p in points(3903, 2, 10, 0.0, 1.0) {
            let (m, e) = (p[0] * 6.0 - 3.0, 0.6 * p[1]);
            let mut pos = [f64::NAN; 2];
            let d = kepler_derivatives(m, e, &mut pos);
            let mut want = [0.0; 2];
            let ea = kepler(m, e, &mut want);
            assert_eq!(pos, want, "_derivatives writes the position");
            // E' = 1 / (1 - e cos E), E'' = -e sin E E'³, E''' = -e cos E E'⁴ - 3 e sin E E'² E''.
            let d1 = 1.0 / (1.0 - e * ea.cos());
            let d2 = -e * ea.sin() * d1.powi(3);
            let d3 = -e * ea.cos() * d1.powi(4) - 3.0 * e * ea.sin() * d1 * d1 * d2;
            assert_all_close(&d, &[ea, d1, d2, d3], 1e-10, "kepler by hand");
            check3(
                "kepler",
                m,
                d,
                |m| kepler(m, e, &mut [0.0; 2]),
                |m| kepler_grad(m, e, &mut [0.0; 2]).1,
                |m| kepler_hessian(m, e, &mut [0.0; 2]).2[0][0],
            );
            let (_, _, hv) = kepler_hvp(m, e, &mut [0.0; 2], 0.5);
            assert_close(hv, 0.5 * d2, 1e-10, "kepler hvp");
            // The position's tangent in m alone.
            let mut dpos = [f64::NAN; 2];
            let (v, dv) = kepler_jvp(m, e, &mut [0.0; 2], 1.0, &mut dpos);
            assert_eq!(v, ea);
            assert_close(dv, d1, 1e-12, "kepler jvp");
            assert_all_close(
                &dpos,
                &[-ea.sin() * d1, (1.0 - e * e).sqrt() * ea.cos() * d1],
                1e-10,
                "kepler position tangent",
            );
            let (_, gm) = kepler_vjp(m, e, &mut [0.0; 2], 0.0, &[1.0, 0.0]);
            assert_close(gm, -ea.sin() * d1, 1e-10, "kepler vjp of pos[0]");
        }
    }

    /// The mean of a sample returned, its population variance written into a float output, and the
    /// squared coefficient of variation (regularised) returned together with the mean.
    #[differentiable(order = 2)]
    pub fn mean_var(x: &[f64], var: &mut f64) -> f64 {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        *var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        *var / (mean * mean + 1.0) + mean
    }

    #[test]
    fn mean_var_at_order_2() {
        for x in points(3904, 5, 10, -2.0, 2.0) {
            let plain = |x: &[f64]| mean_var(x, &mut 0.0);
            let var_of = |x: &[f64]| {
                let mut v = 0.0;
                mean_var(x, &mut v);
                v
            };
            let h = check2(
                "mean_var",
                &x,
                plain,
                |x| mean_var_grad(x, &mut { f64::NAN }),
                |x| {
                    let mut v = f64::NAN;
                    let r = mean_var_hessian(x, &mut v);
                    assert_eq!(v, var_of(x), "_hessian writes the variance");
                    r
                },
            );
            let g = mean_var_grad(&x, &mut 0.0).1;
            let v = vec![0.1, 0.2, -0.3, 0.4, -0.5];
            check_hvp(
                "mean_var",
                &h,
                &g,
                &v,
                mean_var_hvp(&x, &mut 0.0, v.clone()),
            );
            // vjp with both cotangents against the two gradients by differences.
            let gvar = fd_grad(var_of, &x);
            let mut out = f64::NAN;
            let (value, gv) = mean_var_vjp(&x, &mut out, 0.75, -2.0);
            assert_eq!((value, out), (plain(&x), var_of(&x)));
            let want: Vec<f64> = g
                .iter()
                .zip(&gvar)
                .map(|(a, b)| 0.75 * a - 2.0 * b)
                .collect();
            assert_all_close(&gv, &want, 1e-6, "mean_var vjp");
            let mut dvar = f64::NAN;
            let (_, dr) = mean_var_jvp(&x, &mut out, v.clone(), &mut dvar);
            assert_close(dr, dot(&g, &v), 1e-12, "mean_var jvp of the result");
            assert_close(dvar, dot(&gvar, &v), 1e-6, "mean_var jvp of the variance");
        }
    }

    /// A heavy-ball momentum step: the velocity buffer is read and overwritten (so an input too), the
    /// kinetic energy of the new velocity returned.
    #[differentiable(order = 2)]
    pub fn heavy_ball(vel: &mut [f64], g: &[f64], beta: f64) -> f64 {
        let mut e = 0.0;
        for i in 0..g.len() {
            vel[i] = beta * vel[i] + g[i];
            e += vel[i] * vel[i];
        }
        0.5 * e
    }

    #[test]
    fn heavy_ball_reads_its_output() {
        for p in points(3905, 7, 10, -1.5, 1.5) {
            let split = |q: &[f64]| (q[..3].to_vec(), q[3..6].to_vec(), q[6]);
            let flat = |(a, b, c): (Vec<f64>, Vec<f64>, f64)| [a, b, vec![c]].concat();
            let h = check2(
                "heavy_ball",
                &p,
                |q| {
                    let (mut v, g, b) = split(q);
                    heavy_ball(&mut v, &g, b)
                },
                |q| {
                    let (mut v, g, b) = split(q);
                    let (e, gr) = heavy_ball_grad(&mut v, &g, b);
                    (e, flat(gr))
                },
                |q| {
                    let (mut v, g, b) = split(q);
                    let (e, gr, h) = heavy_ball_hessian(&mut v, &g, b);
                    let (mut w, _, _) = split(q);
                    heavy_ball(&mut w, &g, b);
                    assert_eq!(v, w, "_hessian updates the velocity once");
                    (e, flat(gr), h)
                },
            );
            // By hand: E = ½ Σ (β v_i + g_i)²; ∂²E/∂β² = Σ v_i².
            let (v, _, _) = split(&p);
            assert_close(h[6][6], dot(&v, &v), 1e-12, "d2E/dbeta2");
            assert_close(h[0][0], p[6] * p[6], 1e-12, "d2E/dv0^2");
            assert_close(h[0][3], p[6], 1e-12, "d2E/dv0 dg0");
            // vjp and jvp with the velocity's cotangent and tangent, against each other.
            let (mut v, g, b) = split(&p);
            let d_v = [0.5, -0.25, 1.0];
            let (_, (a, bb, c)) = heavy_ball_vjp(&mut v, &g, b, 0.3, &d_v);
            let t = [0.2, -0.4, 0.6, 0.1, 0.9, -0.3, 0.7];
            let (mut v, g, b) = split(&p);
            let mut dv = vec![f64::NAN; 3];
            let (_, de) = heavy_ball_jvp(
                &mut v,
                &g,
                b,
                (t[..3].to_vec(), t[3..6].to_vec(), t[6]),
                &mut dv,
            );
            let lhs = 0.3 * de + dot(&d_v, &dv);
            let rhs = dot(&flat((a, bb, c)), &t);
            assert_close(lhs, rhs, 1e-12, "heavy_ball <d, J t> = <Jᵀ d, t>");
            // _hvp of the energy against the Hessian.
            let (mut v, g, b) = split(&p);
            let (_, gr, hv) =
                heavy_ball_hvp(&mut v, &g, b, (t[..3].to_vec(), t[3..6].to_vec(), t[6]));
            check_hvp(
                "heavy_ball",
                &h,
                &flat(gr.clone()),
                &t,
                (0.0, flat(gr), flat(hv)),
            );
        }
    }

    /// A cross product written into an array (`()` result), at `order = 2`.
    #[differentiable(order = 2)]
    pub fn cross_into(a: &[f64; 3], b: &[f64; 3], c: &mut [f64; 3]) {
        c[0] = a[1] * b[2] - a[2] * b[1];
        c[1] = a[2] * b[0] - a[0] * b[2];
        c[2] = a[0] * b[1] - a[1] * b[0];
    }

    /// The squared torque `|r × F|²` through `cross_into` into a local array.
    #[differentiable(order = 2)]
    pub fn torque_sq(r: &[f64; 3], force: &[f64; 3]) -> f64 {
        let mut t = [0.0; 3];
        cross_into(r, force, &mut t);
        t[0] * t[0] + t[1] * t[1] + t[2] * t[2]
    }

    #[test]
    fn cross_and_torque() {
        for p in points(3906, 6, 10, -2.0, 2.0) {
            let a = [p[0], p[1], p[2]];
            let b = [p[3], p[4], p[5]];
            let mut c = [f64::NAN; 3];
            let j = cross_into_jacobian(&a, &b, &mut c);
            let jf = fd_jacobian(
                |q| {
                    let mut c = [0.0; 3];
                    cross_into(&[q[0], q[1], q[2]], &[q[3], q[4], q[5]], &mut c);
                    c.to_vec()
                },
                &p,
            );
            assert_eq!(j.len(), 3);
            for i in 0..3 {
                assert_all_close(&j[i], &jf[i], 1e-8, "cross jacobian");
            }
            let d = [0.5, 1.5, -1.0];
            let (ga, gb) = cross_into_vjp(&a, &b, &mut c, &d);
            assert_all_close(
                &[ga.to_vec(), gb.to_vec()].concat(),
                &times_t(&j, &d),
                1e-12,
                "cross vjp",
            );
            let mut dc = [f64::NAN; 3];
            cross_into_jvp(&a, &b, &mut c, ([1.0, 0.0, 0.0], [0.0, 0.0, 2.0]), &mut dc);
            assert_all_close(
                &dc,
                &times(&j, &[1.0, 0.0, 0.0, 0.0, 0.0, 2.0]),
                1e-12,
                "cross jvp",
            );
            let arr = |q: &[f64]| ([q[0], q[1], q[2]], [q[3], q[4], q[5]]);
            check2(
                "torque_sq",
                &p,
                |q| torque_sq(&arr(q).0, &arr(q).1),
                |q| {
                    let (v, (gr, gf)) = torque_sq_grad(&arr(q).0, &arr(q).1);
                    (v, [gr, gf].concat())
                },
                |q| {
                    let (v, (gr, gf), h) = torque_sq_hessian(&arr(q).0, &arr(q).1);
                    (v, [gr, gf].concat(), h)
                },
            );
        }
    }

    /// Physical Hermite functions `H_n(x) e^{-x²/2}`, the polynomials written into a `Vec` by their
    /// recurrence, the last function returned; derivatives to the third.
    #[differentiable(order = 3)]
    pub fn hermite_into(x: f64, h: &mut Vec<f64>) -> f64 {
        h[0] = 1.0;
        h[1] = 2.0 * x;
        for n in 1..h.len() - 1 {
            h[n + 1] = 2.0 * x * h[n] - 2.0 * n as f64 * h[n - 1];
        }
        h[h.len() - 1] * (-x * x / 2.0).exp()
    }

    #[test]
    fn hermite_at_order_3() {
        for p in points(3907, 1, 10, -2.0, 2.0) {
            let x = p[0];
            let mut h = vec![f64::NAN; 5];
            let d = hermite_into_derivatives(x, &mut h);
            let mut want = vec![0.0; 5];
            hermite_into(x, &mut want);
            assert_eq!(h, want, "_derivatives writes the polynomials");
            // H4 = 16x⁴ - 48x² + 12.
            assert_close(
                d[0],
                (16.0 * x.powi(4) - 48.0 * x * x + 12.0) * (-x * x / 2.0).exp(),
                1e-12,
                "H4",
            );
            check3(
                "hermite",
                x,
                d,
                |x| hermite_into(x, &mut vec![0.0; 5]),
                |x| hermite_into_grad(x, &mut vec![0.0; 5]).1,
                |x| hermite_into_hessian(x, &mut vec![0.0; 5]).2[0][0],
            );
            // The tangent of each polynomial: H_n' = 2 n H_{n-1}.
            let mut dh = vec![f64::NAN; 5];
            hermite_into_jvp(x, &mut vec![0.0; 5], 1.0, &mut dh);
            let expected: Vec<f64> = (0..5)
                .map(|n| {
                    if n == 0 {
                        0.0
                    } else {
                        2.0 * n as f64 * want[n - 1]
                    }
                })
                .collect();
            assert_all_close(&dh, &expected, 1e-12, "hermite polynomial tangents");
        }
    }

    /// A cubic model's predictions written into `yhat`, the mean squared error returned; only the
    /// weights active.
    #[differentiable(wrt(w), order = 2)]
    pub fn cubic_fit(w: &[f64], xs: &[f64], ys: &[f64], yhat: &mut [f64]) -> f64 {
        let mut loss = 0.0;
        for i in 0..xs.len() {
            let x = xs[i];
            yhat[i] = w[0] + x * (w[1] + x * (w[2] + x * w[3]));
            let r = yhat[i] - ys[i];
            loss += r * r;
        }
        loss / xs.len() as f64
    }

    #[test]
    fn cubic_fit_with_wrt() {
        let xs = [-1.0, -0.3, 0.2, 0.8, 1.4];
        let ys = [0.5, 0.1, -0.2, 0.9, 2.0];
        for w in points(3908, 4, 8, -1.0, 1.0) {
            let h = check2(
                "cubic_fit",
                &w,
                |w| cubic_fit(w, &xs, &ys, &mut [0.0; 5]),
                |w| cubic_fit_grad(w, &xs, &ys, &mut [0.0; 5]),
                |w| cubic_fit_hessian(w, &xs, &ys, &mut [0.0; 5]),
            );
            // The Hessian is 2/n Σ φ φᵀ with φ = (1, x, x², x³), whatever w.
            for a in 0..4 {
                for b in 0..4 {
                    let s: f64 = xs.iter().map(|x| x.powi((a + b) as i32)).sum();
                    assert_close(h[a][b], 2.0 * s / 5.0, 1e-12, "cubic_fit hessian by hand");
                }
            }
            // vjp with a cotangent on the predictions: the design matrix transposed.
            let d = [1.0, 0.0, -1.0, 0.5, 2.0];
            let (_, gw) = cubic_fit_vjp(&w, &xs, &ys, &mut [0.0; 5], 0.0, &d);
            for a in 0..4 {
                let s: f64 = xs.iter().zip(&d).map(|(x, d)| d * x.powi(a as i32)).sum();
                assert_close(gw[a], s, 1e-12, "cubic_fit vjp of the predictions");
            }
            let mut dy = [f64::NAN; 5];
            cubic_fit_jvp(
                &w,
                &xs,
                &ys,
                &mut [0.0; 5],
                vec![0.0, 1.0, 0.0, 0.0],
                &mut dy,
            );
            assert_all_close(&dy, &xs, 1e-12, "cubic_fit jvp of the predictions");
        }
    }

    /// The right-hand side of the discrete heat equation with fixed ends, written into `du`, at
    /// `order = 2`, active in `u` alone.
    #[differentiable(wrt(u), order = 2)]
    pub fn heat_rhs(u: &[f64], alpha: f64, du: &mut [f64]) {
        let n = u.len();
        for i in 0..n {
            let left = if i == 0 { 0.0 } else { u[i - 1] };
            let right = if i + 1 == n { 0.0 } else { u[i + 1] };
            du[i] = alpha * (left - 2.0 * u[i] + right) - u[i] * u[i] * u[i];
        }
    }

    #[test]
    fn heat_rhs_jacobian_vjp_jvp() {
        for u in points(3909, 4, 8, -1.0, 1.0) {
            let alpha = 0.7;
            let mut out = [f64::NAN; 4];
            let j = heat_rhs_jacobian(&u, alpha, &mut out);
            let mut want = [0.0; 4];
            heat_rhs(&u, alpha, &mut want);
            assert_eq!(out, want, "_jacobian writes the output");
            for i in 0..4 {
                for c in 0..4 {
                    let e = if i == c {
                        -2.0 * alpha - 3.0 * u[i] * u[i]
                    } else if i.abs_diff(c) == 1 {
                        alpha
                    } else {
                        0.0
                    };
                    assert_close(j[i][c], e, 1e-12, "heat jacobian by hand");
                }
            }
            let d = [0.5, -1.0, 0.25, 1.5];
            let gu = heat_rhs_vjp(&u, alpha, &mut [0.0; 4], &d);
            assert_all_close(&gu, &times_t(&j, &d), 1e-12, "heat vjp");
            let mut du = [f64::NAN; 4];
            let t = vec![1.0, 2.0, -1.0, 0.5];
            heat_rhs_jvp(&u, alpha, &mut [0.0; 4], t.clone(), &mut du);
            assert_all_close(&du, &times(&j, &t), 1e-12, "heat jvp");
        }
    }

    /// The residuals of a damped oscillator at sample times into `r`, the returned float the sum of
    /// squares; active in the parameters (a tuple) and the initial state, `order = 2`.
    #[differentiable(wrt(params, x0), order = 2)]
    pub fn oscillator_fit(
        params: (f64, f64),
        x0: f64,
        ts: &[f64],
        ys: &[f64],
        r: &mut [f64],
    ) -> f64 {
        let (omega, zeta) = params;
        let mut s = 0.0;
        for i in 0..ts.len() {
            r[i] = x0 * (-zeta * ts[i]).exp() * (omega * ts[i]).cos() - ys[i];
            s += r[i] * r[i];
        }
        s
    }

    #[test]
    fn oscillator_fit_tuple_and_outputs() {
        let ts = [0.1, 0.5, 1.0, 1.7];
        let ys = [0.9, 0.4, -0.3, -0.5];
        for p in points(3910, 3, 10, 0.2, 2.0) {
            let h = check2(
                "oscillator_fit",
                &p,
                |p| oscillator_fit((p[0], p[1]), p[2], &ts, &ys, &mut [0.0; 4]),
                |p| {
                    let (v, ((a, b), c)) =
                        oscillator_fit_grad((p[0], p[1]), p[2], &ts, &ys, &mut [0.0; 4]);
                    (v, vec![a, b, c])
                },
                |p| {
                    let (v, ((a, b), c), h) =
                        oscillator_fit_hessian((p[0], p[1]), p[2], &ts, &ys, &mut [0.0; 4]);
                    (v, vec![a, b, c], h)
                },
            );
            let (_, ((a, b), c)) = oscillator_fit_grad((p[0], p[1]), p[2], &ts, &ys, &mut [0.0; 4]);
            let (_, _, ((ha, hb), hc)) = oscillator_fit_hvp(
                (p[0], p[1]),
                p[2],
                &ts,
                &ys,
                &mut [0.0; 4],
                ((1.0, -1.0), 0.5),
            );
            check_hvp(
                "oscillator_fit",
                &h,
                &[a, b, c],
                &[1.0, -1.0, 0.5],
                (0.0, vec![a, b, c], vec![ha, hb, hc]),
            );
            // The Jacobian of the residuals by differences against vjp rows.
            let jr = fd_jacobian(
                |p| {
                    let mut r = vec![0.0; 4];
                    oscillator_fit((p[0], p[1]), p[2], &ts, &ys, &mut r);
                    r
                },
                &p,
            );
            for i in 0..4 {
                let mut d = [0.0; 4];
                d[i] = 1.0;
                let (_, ((a, b), c)) =
                    oscillator_fit_vjp((p[0], p[1]), p[2], &ts, &ys, &mut [0.0; 4], 0.0, &d);
                assert_all_close(&[a, b, c], &jr[i], 1e-6, "oscillator residual row");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (2) Methods and `Differentiable` structs at `order = 2` and `order = 3`.

mod mechanics {
    use super::*;
    use autodiff::{differentiable, Differentiable, Float};

    /// A pendulum's parameters; the number of series terms is a constant.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Pendulum {
        pub g: f64,
        pub l: f64,
        #[no_grad]
        pub terms: usize,
    }

    impl Pendulum {
        /// The small-angle angular frequency `√(g / l)`.
        #[differentiable(wrt(self))]
        pub fn omega(&self) -> f64 {
            (self.g / self.l).sqrt()
        }

        /// The series of the period's growth with the amplitude: `1 + θ²/16 + 11 θ⁴/3072`.
        #[differentiable]
        pub fn series(theta: f64) -> f64 {
            let t2 = theta * theta;
            1.0 + t2 / 16.0 + 11.0 * t2 * t2 / 3072.0
        }

        /// The period at amplitude `theta`, through `self.omega()` and `Self::series` (the series left
        /// out below three terms: the `#[no_grad]` field read as an integer).
        #[differentiable(wrt(self, theta), order = 2)]
        pub fn period(&self, theta: f64) -> f64 {
            let base = 2.0 * std::f64::consts::PI / self.omega();
            if self.terms > 2 {
                base * Self::series(theta)
            } else {
                base
            }
        }
    }

    fn period_by_hand(p: &[f64]) -> f64 {
        let (g, l, t) = (p[0], p[1], p[2]);
        2.0 * std::f64::consts::PI
            * (l / g).sqrt()
            * (1.0 + t * t / 16.0 + 11.0 * t.powi(4) / 3072.0)
    }

    #[test]
    fn pendulum_period_at_order_2() {
        for q in points(3921, 3, 10, 0.5, 2.0) {
            let pend = |q: &[f64]| Pendulum {
                g: q[0] * 9.0,
                l: q[1],
                terms: 3,
            };
            let scaled = |q: &[f64]| vec![q[0] * 9.0, q[1], q[2]];
            let flat = |(s, t): (Pendulum, f64)| vec![s.g, s.l, t];
            let h = check2(
                "period",
                &scaled(&q),
                period_by_hand,
                |p| {
                    let (v, g) = Pendulum {
                        g: p[0],
                        l: p[1],
                        terms: 3,
                    }
                    .period_grad(p[2]);
                    (v, flat(g))
                },
                |p| {
                    let (v, g, h) = Pendulum {
                        g: p[0],
                        l: p[1],
                        terms: 3,
                    }
                    .period_hessian(p[2]);
                    (v, flat(g), h)
                },
            );
            assert_eq!(h.len(), 3, "the no_grad field is no input of the Hessian");
            let s = pend(&q);
            assert_close(s.period(q[2]), period_by_hand(&scaled(&q)), 1e-12, "value");
            let (_, gr) = s.period_grad(q[2]);
            assert_eq!(gr.0.terms, 3, "the gradient copies the no_grad field");
            let v = (
                Pendulum {
                    g: 0.5,
                    l: -1.0,
                    terms: 3,
                },
                2.0,
            );
            let (_, g, hv) = s.period_hvp(q[2], v);
            check_hvp(
                "period",
                &h,
                &flat(g),
                &[0.5, -1.0, 2.0],
                (0.0, flat(gr), flat(hv)),
            );
        }
    }

    /// One Gaussian component, parametrised by its mean and log standard deviation.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Normal {
        pub mu: f64,
        pub log_s: f64,
    }

    /// A two-component mixture: nested structs, a mixing logit, and an integer tag.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Mixture {
        pub a: Normal,
        pub b: Normal,
        pub logit: f64,
        #[no_grad]
        pub tag: u32,
    }

    impl Mixture {
        /// The density of a normal distribution, an associated function.
        #[differentiable]
        pub fn pdf(x: f64, mu: f64, log_s: f64) -> f64 {
            let s = log_s.exp();
            let z = (x - mu) / s;
            (-0.5 * z * z).exp() / (s * (2.0 * std::f64::consts::PI).sqrt())
        }

        /// The negative log-likelihood of a sample, through `Self::pdf` on nested fields.
        #[differentiable(wrt(self), order = 2)]
        pub fn nll(&self, xs: &[f64]) -> f64 {
            let w = 1.0 / (1.0 + (-self.logit).exp());
            let mut total = 0.0;
            for &x in xs {
                let pa = Self::pdf(x, self.a.mu, self.a.log_s);
                let pb = Self::pdf(x, self.b.mu, self.b.log_s);
                total -= (w * pa + (1.0 - w) * pb).ln();
            }
            total
        }
    }

    #[test]
    fn mixture_nll_over_nested_structs() {
        let xs = [-1.2, -0.4, 0.3, 0.9, 1.8, 2.2];
        let template = Mixture {
            a: Normal {
                mu: 0.0,
                log_s: 0.0,
            },
            b: Normal {
                mu: 0.0,
                log_s: 0.0,
            },
            logit: 0.0,
            tag: 7,
        };
        for q in points(3922, 5, 10, -1.0, 1.0) {
            let m = |q: &[f64]| template.from_flat(q);
            let h = check2(
                "nll",
                &q,
                |q| m(q).nll(&xs),
                |q| {
                    let (v, g) = m(q).nll_grad(&xs);
                    assert_eq!(g.tag, 7);
                    (v, g.to_flat())
                },
                |q| {
                    let (v, g, h) = m(q).nll_hessian(&xs);
                    (v, g.to_flat(), h)
                },
            );
            assert_eq!(
                m(&q).to_flat(),
                q,
                "the flat view is (a.mu, a.log_s, b.mu, b.log_s, logit)"
            );
            let v = [0.2, -0.1, 0.4, 0.3, -1.0];
            let (_, g, hv) = m(&q).nll_hvp(&xs, m(&v));
            check_hvp(
                "nll",
                &h,
                &g.to_flat(),
                &v,
                (0.0, g.to_flat(), hv.to_flat()),
            );
            // jvp against the gradient.
            let (_, dv) = m(&q).nll_jvp(&xs, m(&v));
            assert_close(dv, dot(&g.to_flat(), &v), 1e-12, "nll jvp");
        }
    }

    /// A Duffing oscillator over any float type.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Duffing<T> {
        pub alpha: T,
        pub beta: T,
        pub delta: T,
    }

    impl<T: Float> Duffing<T> {
        /// Its energy, active in the parameters and the state.
        #[differentiable(wrt(self, x, v), order = 2)]
        pub fn energy(&self, x: T, v: T) -> T {
            let half = T::from(0.5).unwrap();
            let quarter = T::from(0.25).unwrap();
            half * v * v + half * self.alpha * x * x + quarter * self.beta * x.powi(4)
        }

        /// Its acceleration, in the position alone, to the third derivative.
        #[differentiable(wrt(x), order = 3)]
        pub fn accel(&self, x: T, v: T) -> T {
            -(self.delta * v + self.alpha * x + self.beta * x.powi(3))
        }

        /// Its acceleration, in the parameters and the state.
        #[differentiable(wrt(self, x, v))]
        pub fn force(&self, x: T, v: T) -> T {
            -(self.delta * v + self.alpha * x + self.beta * x.powi(3))
        }

        /// The energy after one symplectic Euler step, through `self.force` and `self.energy`.
        #[differentiable(wrt(self, x, v), order = 2)]
        pub fn stepped_energy(&self, x: T, v: T, dt: T) -> T {
            let v1 = v + dt * self.force(x, v);
            let x1 = x + dt * v1;
            self.energy(x1, v1)
        }
    }

    #[test]
    fn duffing_generic_impl() {
        for q in points(3923, 5, 10, -1.0, 1.0) {
            let d = |q: &[f64]| Duffing {
                alpha: q[0],
                beta: q[1] + 1.5,
                delta: 0.3,
            };
            let flat = |(s, x, v): (Duffing<f64>, f64, f64)| vec![s.alpha, s.beta, s.delta, x, v];
            // The energy over (alpha, beta, delta, x, v): delta does not appear.
            let h = check2(
                "energy",
                &[q[0], q[1] + 1.5, 0.3, q[3], q[4]],
                |p| {
                    Duffing {
                        alpha: p[0],
                        beta: p[1],
                        delta: p[2],
                    }
                    .energy(p[3], p[4])
                },
                |p| {
                    let (e, g) = Duffing {
                        alpha: p[0],
                        beta: p[1],
                        delta: p[2],
                    }
                    .energy_grad(p[3], p[4]);
                    (e, flat(g))
                },
                |p| {
                    let (e, g, h) = Duffing {
                        alpha: p[0],
                        beta: p[1],
                        delta: p[2],
                    }
                    .energy_hessian(p[3], p[4]);
                    (e, flat(g), h)
                },
            );
            let x = q[3];
            assert_close(h[3][3], q[0] + 3.0 * (q[1] + 1.5) * x * x, 1e-12, "d2E/dx2");
            assert_close(h[0][3], x, 1e-12, "d2E/dalpha dx");
            assert_close(h[4][4], 1.0, 1e-12, "d2E/dv2");
            // accel''' = -6 beta.
            let s = d(&q);
            let dd = s.accel_derivatives(x, q[4]);
            assert_close(dd[3], -6.0 * s.beta, 1e-12, "accel'''");
            check3(
                "accel",
                x,
                dd,
                |x| s.accel(x, q[4]),
                |x| s.accel_grad(x, q[4]).1,
                |x| s.accel_hessian(x, q[4]).2[0][0],
            );
            // f32 instance.
            let s32 = Duffing {
                alpha: q[0] as f32,
                beta: (q[1] + 1.5) as f32,
                delta: 0.3f32,
            };
            let d32 = s32.accel_derivatives(x as f32, q[4] as f32);
            for k in 0..4 {
                assert_close(d32[k] as f64, dd[k], 1e-4, "accel at f32");
            }
            // The stepped energy over (alpha, beta, delta, x, v).
            let p = [q[0], q[1] + 1.5, 0.3 + 0.1 * q[2], q[3], q[4]];
            check2(
                "stepped_energy",
                &p,
                |p| {
                    Duffing {
                        alpha: p[0],
                        beta: p[1],
                        delta: p[2],
                    }
                    .stepped_energy(p[3], p[4], 0.1)
                },
                |p| {
                    let (e, g) = Duffing {
                        alpha: p[0],
                        beta: p[1],
                        delta: p[2],
                    }
                    .stepped_energy_grad(p[3], p[4], 0.1);
                    (e, flat(g))
                },
                |p| {
                    let (e, g, h) = Duffing {
                        alpha: p[0],
                        beta: p[1],
                        delta: p[2],
                    }
                    .stepped_energy_hessian(p[3], p[4], 0.1);
                    (e, flat(g), h)
                },
            );
        }
    }

    /// Lennard-Jones pair potential; its parameters are constants of the methods below.
    #[derive(Clone, Debug, Differentiable)]
    pub struct LennardJones {
        pub eps: f64,
        pub sigma: f64,
    }

    impl LennardJones {
        /// The pair potential at distance `r`, to the third derivative.
        #[differentiable(wrt(r), order = 3)]
        pub fn potential(&self, r: f64) -> f64 {
            let s6 = (self.sigma / r).powi(6);
            4.0 * self.eps * (s6 * s6 - s6)
        }

        /// The energy of atoms on a line at softened distances, each atom's share written into
        /// `per_atom`, through `self.potential`.
        #[differentiable(wrt(x), order = 2)]
        pub fn chain_energy(&self, x: &[f64], per_atom: &mut [f64]) -> f64 {
            let n = x.len();
            let mut total = 0.0;
            for i in 0..n {
                per_atom[i] = 0.0;
            }
            for i in 0..n {
                for j in i + 1..n {
                    // A softened distance: overlapping atoms stay finite.
                    let d = x[j] - x[i];
                    let e = self.potential((d * d + 0.25).sqrt());
                    per_atom[i] += 0.5 * e;
                    per_atom[j] += 0.5 * e;
                    total += e;
                }
            }
            total
        }
    }

    #[test]
    fn lennard_jones_methods() {
        let lj = &LennardJones {
            eps: 1.3,
            sigma: 0.9,
        };
        for q in points(3924, 1, 10, 0.85, 2.0) {
            let r = q[0];
            let d = lj.potential_derivatives(r);
            let (e, s) = (lj.eps, lj.sigma);
            let by_hand = [
                4.0 * e * (s.powi(12) / r.powi(12) - s.powi(6) / r.powi(6)),
                4.0 * e * (-12.0 * s.powi(12) / r.powi(13) + 6.0 * s.powi(6) / r.powi(7)),
                4.0 * e * (156.0 * s.powi(12) / r.powi(14) - 42.0 * s.powi(6) / r.powi(8)),
                4.0 * e * (-2184.0 * s.powi(12) / r.powi(15) + 336.0 * s.powi(6) / r.powi(9)),
            ];
            assert_all_close(&d, &by_hand, 1e-10, "LJ by hand");
            check3(
                "LJ",
                r,
                d,
                |r| lj.potential(r),
                |r| lj.potential_grad(r).1,
                |r| lj.potential_hessian(r).2[0][0],
            );
        }
        for q in points(3925, 4, 8, -0.2, 0.2) {
            let x: Vec<f64> = q
                .iter()
                .enumerate()
                .map(|(i, d)| i as f64 * 1.1 + d)
                .collect();
            let h = check2(
                "chain_energy",
                &x,
                |x| lj.chain_energy(x, &mut [0.0; 4]),
                |x| lj.chain_energy_grad(x, &mut [0.0; 4]),
                |x| {
                    let mut per = [f64::NAN; 4];
                    let r = lj.chain_energy_hessian(x, &mut per);
                    let mut want = [0.0; 4];
                    lj.chain_energy(x, &mut want);
                    assert_eq!(per, want, "_hessian writes the shares");
                    r
                },
            );
            // Translation invariance: every row of the Hessian sums to zero.
            for row in &h {
                assert!(
                    row.iter().sum::<f64>().abs()
                        < 1e-8 * row.iter().map(|v| v.abs()).sum::<f64>().max(1.0)
                );
            }
            // Each atom's share: vjp rows against differences.
            let share = |k: usize| {
                move |x: &[f64]| {
                    let mut per = [0.0; 4];
                    lj.chain_energy(x, &mut per);
                    per[k]
                }
            };
            for k in 0..4 {
                let mut d = [0.0; 4];
                d[k] = 1.0;
                let (_, g) = lj.chain_energy_vjp(&x, &mut [0.0; 4], 0.0, &d);
                assert_all_close(&g, &fd_grad(share(k), &x), 1e-6, "share gradient");
            }
        }
    }

    /// A Morse potential as an associated function, `Morse::energy(..)`.
    pub struct Morse;

    impl Morse {
        #[differentiable(order = 2)]
        pub fn energy(r: f64, depth: f64, width: f64, r0: f64) -> f64 {
            let e = 1.0 - (-width * (r - r0)).exp();
            depth * e * e
        }
    }

    #[test]
    fn morse_associated_function() {
        for p in points(3926, 4, 10, 0.5, 2.0) {
            let h = check2(
                "Morse::energy",
                &p,
                |p| Morse::energy(p[0], p[1], p[2], p[3]),
                |p| {
                    let (v, (a, b, c, d)) = Morse::energy_grad(p[0], p[1], p[2], p[3]);
                    (v, vec![a, b, c, d])
                },
                |p| {
                    let (v, (a, b, c, d), h) = Morse::energy_hessian(p[0], p[1], p[2], p[3]);
                    (v, vec![a, b, c, d], h)
                },
            );
            // d²/dr² = 2 D a² (2 u² - u) with u = e^{-a (r - r0)}.
            let u = (-p[2] * (p[0] - p[3])).exp();
            assert_close(
                h[0][0],
                2.0 * p[1] * p[2] * p[2] * (2.0 * u * u - u),
                1e-10,
                "Morse by hand",
            );
            assert_close(h[1][1], 0.0, 1e-12, "linear in the depth");
        }
    }

    /// A pinhole camera with radial distortion: a scalar, an array and a `Vec` field.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Camera {
        pub focal: f64,
        pub centre: [f64; 2],
        pub k: Vec<f64>,
    }

    impl Camera {
        /// The projection of a 3D point, returned as an array.
        #[differentiable(wrt(self, p))]
        pub fn project(&self, p: &[f64; 3]) -> [f64; 2] {
            let (u, v) = (p[0] / p[2], p[1] / p[2]);
            let r2 = u * u + v * v;
            let dist = 1.0 + self.k[0] * r2 + self.k[1] * r2 * r2;
            [
                self.focal * dist * u + self.centre[0],
                self.focal * dist * v + self.centre[1],
            ]
        }

        /// The reprojection error of points against observations, through `self.project`.
        #[differentiable(wrt(self), order = 2)]
        pub fn reprojection(&self, pts: &[[f64; 3]], obs: &[[f64; 2]]) -> f64 {
            let mut s = 0.0;
            for i in 0..pts.len() {
                let q = self.project(&pts[i]);
                s += (q[0] - obs[i][0]).powi(2) + (q[1] - obs[i][1]).powi(2);
            }
            s
        }
    }

    #[test]
    fn camera_struct_with_array_and_vec_fields() {
        let pts = [[0.1, -0.2, 2.0], [0.5, 0.3, 3.0], [-0.4, 0.1, 1.5]];
        let obs = [[0.2, -0.1], [0.3, 0.2], [-0.2, 0.05]];
        let template = Camera {
            focal: 0.0,
            centre: [0.0; 2],
            k: vec![0.0; 2],
        };
        for q in points(3927, 5, 8, -0.5, 0.5) {
            let q: Vec<f64> = [vec![1.0 + q[0]], q[1..].to_vec()].concat();
            let cam = |q: &[f64]| template.from_flat(q);
            let h = check2(
                "reprojection",
                &q,
                |q| cam(q).reprojection(&pts, &obs),
                |q| {
                    let (v, g) = cam(q).reprojection_grad(&pts, &obs);
                    (v, g.to_flat())
                },
                |q| {
                    let (v, g, h) = cam(q).reprojection_hessian(&pts, &obs);
                    (v, g.to_flat(), h)
                },
            );
            // _grad_into a Camera buffer, filled with garbage first.
            let mut into = Camera {
                focal: f64::NAN,
                centre: [f64::NAN; 2],
                k: vec![f64::NAN; 2],
            };
            let v = cam(&q).reprojection_grad_into(&pts, &obs, &mut into);
            let (v2, g) = cam(&q).reprojection_grad(&pts, &obs);
            assert_eq!(
                (v, into.to_flat()),
                (v2, g.to_flat()),
                "grad_into of a struct"
            );
            // The centre enters linearly: d²/dc0² = 2 n.
            assert_close(h[1][1], 6.0, 1e-12, "d2/dcentre0^2");
            // The projection's Jacobian over (camera, point) against differences.
            let p = [0.3, -0.2, 2.5];
            let j = cam(&q).project_jacobian(&p);
            let jf = fd_jacobian(
                |w| cam(&w[..5]).project(&[w[5], w[6], w[7]]).to_vec(),
                &[q.clone(), p.to_vec()].concat(),
            );
            for i in 0..2 {
                assert_all_close(&j[i], &jf[i], 1e-6, "project jacobian");
            }
        }
    }

    /// Parameters of a quadratic model taken by value, with a `_grad_into` at `order = 2`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Ridge {
        pub w: [f64; 2],
        pub c: Vec<f64>,
        pub s: f64,
    }

    /// A ridge-regularised quadratic form in `x`, the struct by value.
    #[differentiable(order = 2)]
    pub fn ridge(q: Ridge, x: &[f64], lam: f64) -> f64 {
        let lin = q.w[0] * x[0] + q.w[1] * x[1];
        let quad = q.c[0] * x[0] * x[0] + q.c[1] * x[0] * x[1] + q.c[2] * x[1] * x[1];
        let reg = q.w[0] * q.w[0] + q.w[1] * q.w[1] + q.s * q.s;
        (lin + quad - q.s).powi(2) + lam * reg
    }

    #[test]
    fn ridge_struct_by_value() {
        let template = Ridge {
            w: [0.0; 2],
            c: vec![0.0; 3],
            s: 0.0,
        };
        for p in points(3928, 9, 8, -1.0, 1.0) {
            let split = |p: &[f64]| (template.from_flat(&p[..6]), p[6..8].to_vec(), p[8]);
            let flat = |(q, x, l): (Ridge, Vec<f64>, f64)| [q.to_flat(), x, vec![l]].concat();
            check2(
                "ridge",
                &p,
                |p| {
                    let (q, x, l) = split(p);
                    ridge(q, &x, l)
                },
                |p| {
                    let (q, x, l) = split(p);
                    let (v, g) = ridge_grad(q, &x, l);
                    (v, flat(g))
                },
                |p| {
                    let (q, x, l) = split(p);
                    let (v, g, h) = ridge_hessian(q, &x, l);
                    (v, flat(g), h)
                },
            );
            let (q, x, l) = split(&p);
            let mut gq = Ridge {
                w: [f64::NAN; 2],
                c: vec![f64::NAN; 3],
                s: f64::NAN,
            };
            let mut gx = vec![f64::NAN; 2];
            let mut gl = f64::NAN;
            let v = ridge_grad_into(q.clone(), &x, l, (&mut gq, &mut gx, &mut gl));
            let (v2, g) = ridge_grad(q, &x, l);
            assert_eq!(v, v2);
            assert_eq!(
                flat((gq, gx, gl)),
                flat(g),
                "grad_into of (struct, slice, scalar)"
            );
        }
    }

    /// A struct taken by value by a method, `self` active.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Logistic {
        pub k: f64,
        pub x0: f64,
    }

    impl Logistic {
        #[differentiable(wrt(self, x), order = 2)]
        pub fn eval(self, x: f64) -> f64 {
            1.0 / (1.0 + (-self.k * (x - self.x0)).exp())
        }
    }

    #[test]
    fn logistic_self_by_value() {
        for p in points(3929, 3, 10, -2.0, 2.0) {
            let flat = |(s, x): (Logistic, f64)| vec![s.k, s.x0, x];
            check2(
                "Logistic::eval",
                &p,
                |p| Logistic { k: p[0], x0: p[1] }.eval(p[2]),
                |p| {
                    let (v, g) = Logistic { k: p[0], x0: p[1] }.eval_grad(p[2]);
                    (v, flat(g))
                },
                |p| {
                    let (v, g, h) = Logistic { k: p[0], x0: p[1] }.eval_hessian(p[2]);
                    (v, flat(g), h)
                },
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (3) `_grad_into` for every parameter kind of API.md's table, at `order = 2`, with and without `wrt`.

mod into {
    use super::*;
    use autodiff::differentiable;

    /// A smooth elastic-net penalty: a scalar and a slice.
    #[differentiable(order = 2)]
    pub fn elastic_net(lam: f64, w: &[f64]) -> f64 {
        let mut l1 = 0.0;
        let mut l2 = 0.0;
        for &v in w {
            l1 += (v * v + 1e-2).sqrt();
            l2 += v * v;
        }
        lam * l1 + 0.5 * (1.0 - lam) * l2
    }

    #[test]
    fn elastic_net_scalar_and_slice() {
        for p in points(3931, 4, 10, -1.0, 1.0) {
            check2(
                "elastic_net",
                &p,
                |p| elastic_net(p[0], &p[1..]),
                |p| {
                    let (v, (gl, gw)) = elastic_net_grad(p[0], &p[1..]);
                    (v, [vec![gl], gw].concat())
                },
                |p| {
                    let (v, (gl, gw), h) = elastic_net_hessian(p[0], &p[1..]);
                    (v, [vec![gl], gw].concat(), h)
                },
            );
            let (mut gl, mut gw) = (f64::NAN, vec![f64::NAN; 3]);
            let v = elastic_net_grad_into(p[0], &p[1..], (&mut gl, &mut gw));
            let (v2, (el, ew)) = elastic_net_grad(p[0], &p[1..]);
            assert_eq!((v, gl, gw), (v2, el, ew), "grad_into (scalar, slice)");
        }
    }

    /// The entropy of the softmax of logits taken as an owned `Vec`.
    #[differentiable(order = 2)]
    pub fn softmax_entropy(z: Vec<f64>) -> f64 {
        let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
        let mut h = 0.0;
        for &v in &z {
            let p = (v - m).exp() / s;
            h -= p * p.ln();
        }
        h
    }

    #[test]
    fn softmax_entropy_owned_vec() {
        for z in points(3932, 4, 10, -2.0, 2.0) {
            let h = check2(
                "softmax_entropy",
                &z,
                |z| softmax_entropy(z.to_vec()),
                |z| softmax_entropy_grad(z.to_vec()),
                |z| softmax_entropy_hessian(z.to_vec()),
            );
            let mut g = vec![f64::NAN; 4];
            let v = softmax_entropy_grad_into(z.clone(), &mut g);
            assert_eq!((v, g.clone()), softmax_entropy_grad(z.clone()));
            // Shifting every logit changes nothing: the gradient sums to zero, and so do the rows.
            assert!(g.iter().sum::<f64>().abs() < 1e-12);
            for row in &h {
                assert!(row.iter().sum::<f64>().abs() < 1e-10);
            }
            let v = vec![0.5, -0.5, 1.0, 0.0];
            check_hvp(
                "softmax_entropy",
                &h,
                &g,
                &v,
                softmax_entropy_hvp(z.clone(), v.clone()),
            );
        }
    }

    /// Barycentric interpolation in a triangle: an owned array and an array by reference.
    #[differentiable(order = 2)]
    pub fn barycentric(values: [f64; 3], w: &[f64; 3]) -> f64 {
        let total = w[0] + w[1] + w[2];
        (values[0] * w[0] + values[1] * w[1] + values[2] * w[2]) / total
    }

    #[test]
    fn barycentric_arrays() {
        for p in points(3933, 6, 10, 0.2, 2.0) {
            let arr = |p: &[f64]| ([p[0], p[1], p[2]], [p[3], p[4], p[5]]);
            check2(
                "barycentric",
                &p,
                |p| barycentric(arr(p).0, &arr(p).1),
                |p| {
                    let (v, (a, b)) = barycentric_grad(arr(p).0, &arr(p).1);
                    (v, [a, b].concat())
                },
                |p| {
                    let (v, (a, b), h) = barycentric_hessian(arr(p).0, &arr(p).1);
                    (v, [a, b].concat(), h)
                },
            );
            let (mut a, mut b) = ([f64::NAN; 3], [f64::NAN; 3]);
            let v = barycentric_grad_into(arr(&p).0, &arr(&p).1, (&mut a, &mut b));
            assert_eq!((v, (a, b)), barycentric_grad(arr(&p).0, &arr(&p).1));
            // By hand: d/dvalues = w / Σw.
            let t = p[3] + p[4] + p[5];
            assert_all_close(
                &a,
                &[p[3] / t, p[4] / t, p[5] / t],
                1e-14,
                "barycentric by hand",
            );
        }
    }

    /// A quadratic form plus a log-barrier, over a matrix as `&[Vec<f64>]` and a vector.
    #[differentiable(order = 2)]
    pub fn quad_barrier(a: &[Vec<f64>], x: &[f64]) -> f64 {
        let n = x.len();
        let mut s = 0.0;
        for i in 0..n {
            for j in 0..n {
                s += x[i] * a[i][j] * x[j];
            }
            s -= (2.0 - x[i] * x[i]).ln();
        }
        s
    }

    #[test]
    fn quad_barrier_matrix_rows() {
        for p in points(3934, 9 + 3, 8, -1.0, 1.0) {
            let split = |p: &[f64]| {
                let a: Vec<Vec<f64>> = (0..3).map(|i| p[3 * i..3 * i + 3].to_vec()).collect();
                (a, p[9..].to_vec())
            };
            let flat = |(a, x): (Vec<Vec<f64>>, Vec<f64>)| [a.concat(), x].concat();
            check2(
                "quad_barrier",
                &p,
                |p| quad_barrier(&split(p).0, &split(p).1),
                |p| {
                    let (v, g) = quad_barrier_grad(&split(p).0, &split(p).1);
                    (v, flat(g))
                },
                |p| {
                    let (v, g, h) = quad_barrier_hessian(&split(p).0, &split(p).1);
                    (v, flat(g), h)
                },
            );
            let (a, x) = split(&p);
            let mut ga = vec![vec![f64::NAN; 3]; 3];
            let mut gx = vec![f64::NAN; 3];
            let v = quad_barrier_grad_into(&a, &x, (&mut ga, &mut gx));
            assert_eq!((v, (ga.clone(), gx)), quad_barrier_grad(&a, &x));
            // d/dA = x xᵀ.
            for i in 0..3 {
                for j in 0..3 {
                    assert_close(ga[i][j], x[i] * x[j], 1e-14, "d/dA by hand");
                }
            }
        }
    }

    /// The log-determinant of a 2×2 SPD-ish matrix as a nested array, plus its trace.
    #[differentiable(order = 2)]
    pub fn logdet_trace(m: [[f64; 2]; 2]) -> f64 {
        let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
        det.ln() - 0.5 * (m[0][0] + m[1][1])
    }

    #[test]
    fn logdet_nested_array() {
        for p in points(3935, 4, 10, -0.5, 0.5) {
            let m = |p: &[f64]| [[2.0 + p[0], p[1]], [p[2], 2.0 + p[3]]];
            let q: Vec<f64> = m(&p).concat();
            let h = check2(
                "logdet_trace",
                &q,
                |q| logdet_trace([[q[0], q[1]], [q[2], q[3]]]),
                |q| {
                    let (v, g) = logdet_trace_grad([[q[0], q[1]], [q[2], q[3]]]);
                    (v, g.concat())
                },
                |q| {
                    let (v, g, h) = logdet_trace_hessian([[q[0], q[1]], [q[2], q[3]]]);
                    (v, g.concat(), h)
                },
            );
            let mut g = [[f64::NAN; 2]; 2];
            let v = logdet_trace_grad_into(m(&p), &mut g);
            assert_eq!((v, g), logdet_trace_grad(m(&p)));
            // d log det / dM = M^{-T}.
            let d = q[0] * q[3] - q[1] * q[2];
            let inv_t = [q[3] / d, -q[2] / d, -q[1] / d, q[0] / d];
            assert_all_close(
                &g.concat(),
                &[inv_t[0] - 0.5, inv_t[1], inv_t[2], inv_t[3] - 0.5],
                1e-12,
                "M^-T",
            );
            let v = [[1.0, 0.5], [-0.5, 2.0]];
            let (_, gh, hv) = logdet_trace_hvp(m(&p), v);
            check_hvp(
                "logdet_trace",
                &h,
                &g.concat(),
                &v.concat(),
                (0.0, gh.concat(), hv.concat()),
            );
        }
    }

    /// A two-body gravitational energy over tuples: positions as `(f64, f64)` pairs.
    #[differentiable(order = 2)]
    pub fn two_body(a: (f64, f64), b: (f64, f64), m: f64) -> f64 {
        let (ax, ay) = a;
        let (bx, by) = b;
        let r = ((ax - bx).powi(2) + (ay - by).powi(2)).sqrt();
        -m / r + 0.5 * (ax * ax + ay * ay)
    }

    #[test]
    fn two_body_tuples() {
        for p in points(3936, 5, 10, -1.0, 1.0) {
            let p = [p[0], p[1], p[2] + 2.5, p[3], 1.0 + p[4].abs()];
            let flat = |((a, b), (c, d), m): ((f64, f64), (f64, f64), f64)| vec![a, b, c, d, m];
            check2(
                "two_body",
                &p,
                |p| two_body((p[0], p[1]), (p[2], p[3]), p[4]),
                |p| {
                    let (v, g) = two_body_grad((p[0], p[1]), (p[2], p[3]), p[4]);
                    (v, flat(g))
                },
                |p| {
                    let (v, g, h) = two_body_hessian((p[0], p[1]), (p[2], p[3]), p[4]);
                    (v, flat(g), h)
                },
            );
            let (mut ga, mut gb, mut gm) = ((f64::NAN, f64::NAN), (f64::NAN, f64::NAN), f64::NAN);
            let v = two_body_grad_into(
                (p[0], p[1]),
                (p[2], p[3]),
                p[4],
                (&mut ga, &mut gb, &mut gm),
            );
            assert_eq!(
                (v, (ga, gb, gm)),
                two_body_grad((p[0], p[1]), (p[2], p[3]), p[4])
            );
        }
    }

    /// A Gram-matrix penalty `‖MᵀM - I‖²` over an owned `Vec<Vec<f64>>`, active in it alone
    /// (`wrt`), a weight constant.
    #[differentiable(wrt(m), order = 2)]
    pub fn orthogonality(m: Vec<Vec<f64>>, weight: f64) -> f64 {
        let cols = m[0].len();
        let mut s = 0.0;
        for a in 0..cols {
            for b in 0..cols {
                let mut g = 0.0;
                for r in 0..m.len() {
                    g += m[r][a] * m[r][b];
                }
                let target = if a == b { 1.0 } else { 0.0 };
                s += (g - target) * (g - target);
            }
        }
        weight * s
    }

    #[test]
    fn orthogonality_owned_matrix() {
        for p in points(3937, 6, 8, -1.0, 1.0) {
            let m = |p: &[f64]| vec![p[0..2].to_vec(), p[2..4].to_vec(), p[4..6].to_vec()];
            check2(
                "orthogonality",
                &p,
                |p| orthogonality(m(p), 0.7),
                |p| {
                    let (v, g) = orthogonality_grad(m(p), 0.7);
                    (v, g.concat())
                },
                |p| {
                    let (v, g, h) = orthogonality_hessian(m(p), 0.7);
                    (v, g.concat(), h)
                },
            );
            let mut g = vec![vec![f64::NAN; 2]; 3];
            let v = orthogonality_grad_into(m(&p), 0.7, &mut g);
            assert_eq!((v, g), orthogonality_grad(m(&p), 0.7));
        }
    }

    /// A scalar by reference and a `&Vec<f64>`: a temperature-scaled log-sum-exp.
    #[differentiable(order = 2)]
    pub fn tempered_lse(t: &f64, z: &Vec<f64>) -> f64 {
        let mut s = 0.0;
        for &v in z.iter() {
            s += (v / *t).exp();
        }
        *t * s.ln()
    }

    #[test]
    fn tempered_lse_references() {
        for p in points(3938, 4, 10, -1.0, 1.0) {
            let p = [0.5 + p[0].abs(), p[1], p[2], p[3]];
            check2(
                "tempered_lse",
                &p,
                |p| tempered_lse(&p[0], &p[1..].to_vec()),
                |p| {
                    let (v, (gt, gz)) = tempered_lse_grad(&p[0], &p[1..].to_vec());
                    (v, [vec![gt], gz].concat())
                },
                |p| {
                    let (v, (gt, gz), h) = tempered_lse_hessian(&p[0], &p[1..].to_vec());
                    (v, [vec![gt], gz].concat(), h)
                },
            );
            let (mut gt, mut gz) = (f64::NAN, vec![f64::NAN; 3]);
            let z = p[1..].to_vec();
            let v = tempered_lse_grad_into(&p[0], &z, (&mut gt, &mut gz));
            assert_eq!((v, (gt, gz)), tempered_lse_grad(&p[0], &z));
        }
    }

    /// A weighted least-squares loss with `wrt(w)` over a slice, the data matrix and targets constant,
    /// an integer stride beside them: `_grad_into` fills only `w`'s buffer.
    #[differentiable(wrt(w), order = 2)]
    pub fn weighted_ls(w: &[f64], data: &[f64], y: &[f64], stride: usize) -> f64 {
        let mut s = 0.0;
        for i in 0..y.len() {
            let row = &data[i * stride..(i + 1) * stride];
            let pred: f64 = row.iter().zip(w).map(|(a, b)| a * b).sum();
            s += (pred - y[i]).powi(2) / (1.0 + w[0] * w[0]);
        }
        s
    }

    #[test]
    fn weighted_ls_wrt_into() {
        let data = [0.5, -1.0, 2.0, 0.3, 1.1, -0.7, -0.2, 0.4, 0.9];
        let y = [0.1, -0.4, 0.8];
        for w in points(3939, 3, 10, -1.0, 1.0) {
            check2(
                "weighted_ls",
                &w,
                |w| weighted_ls(w, &data, &y, 3),
                |w| weighted_ls_grad(w, &data, &y, 3),
                |w| weighted_ls_hessian(w, &data, &y, 3),
            );
            let mut g = [f64::NAN; 3];
            let v = weighted_ls_grad_into(&w, &data, &y, 3, &mut g);
            assert_eq!((v, g.to_vec()), weighted_ls_grad(&w, &data, &y, 3));
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (5) Calls across modules: `a::f(..)`, `super::`, `crate::`, generic callees, methods of a struct
// defined in another module, at `order = 2` and `order = 3`.

pub mod physics {
    pub mod drag {
        use autodiff::differentiable;

        /// Quadratic drag on a velocity component, signed (`|v|` kept away from 0 by the tests).
        #[differentiable]
        pub fn force(v: f64, c: f64) -> f64 {
            -c * v * v.abs()
        }
    }

    pub mod stats {
        use autodiff::{differentiable, Float};

        /// The log-density of a normal distribution, generic over the float type.
        #[differentiable]
        pub fn log_normal<T: Float>(x: T, mu: T, sigma: T) -> T {
            let z = (x - mu) / sigma;
            let half = T::from(0.5).unwrap();
            let c = T::from(0.918_938_533_204_672_8).unwrap();
            -half * z * z - sigma.ln() - c
        }

        /// A softplus written in `f64`, with `order = 2` of its own.
        #[differentiable(order = 2)]
        pub fn softplus(x: f64) -> f64 {
            if x > 30.0 {
                x
            } else {
                x.exp().ln_1p()
            }
        }
    }

    pub mod bodies {
        use autodiff::{differentiable, Differentiable};

        /// A rigid body in the plane.
        #[derive(Clone, Debug, Differentiable)]
        pub struct Body {
            pub mass: f64,
            pub pos: [f64; 2],
        }

        impl Body {
            /// Its kinetic energy at velocity `v`, an associated function.
            #[differentiable]
            pub fn kinetic(mass: f64, v: &[f64; 2]) -> f64 {
                0.5 * mass * (v[0] * v[0] + v[1] * v[1])
            }

            /// Its potential energy in a harmonic trap, a method with `self` active.
            #[differentiable(wrt(self))]
            pub fn trapped(&self, k: f64) -> f64 {
                0.5 * k * self.mass * (self.pos[0] * self.pos[0] + self.pos[1] * self.pos[1])
            }
        }
    }
}

mod across {
    use super::physics;
    use super::*;
    use autodiff::differentiable;

    /// A projectile under quadratic drag integrated by explicit Euler; the horizontal distance after a
    /// fixed time, through `physics::drag::force`.
    #[differentiable(order = 2)]
    pub fn projectile(v0: f64, angle: f64, c: f64) -> f64 {
        let (mut x, mut y) = (0.0, 0.0);
        let (mut vx, mut vy) = (v0 * angle.cos(), v0 * angle.sin());
        let dt = 0.01;
        for _ in 0..50 {
            let ax = physics::drag::force(vx, c);
            let ay = physics::drag::force(vy, c) - 9.81;
            x += dt * vx;
            y += dt * vy;
            vx += dt * ax;
            vy += dt * ay;
        }
        x + 0.0 * y
    }

    #[test]
    fn projectile_through_a_module() {
        for p in points(3941, 3, 8, 0.0, 1.0) {
            let p = [20.0 + 10.0 * p[0], 0.3 + 0.5 * p[1], 0.01 + 0.05 * p[2]];
            let h = check2(
                "projectile",
                &p,
                |p| projectile(p[0], p[1], p[2]),
                |p| {
                    let (v, (a, b, c)) = projectile_grad(p[0], p[1], p[2]);
                    (v, vec![a, b, c])
                },
                |p| {
                    let (v, (a, b, c), h) = projectile_hessian(p[0], p[1], p[2]);
                    (v, vec![a, b, c], h)
                },
            );
            let g = {
                let (_, (a, b, c)) = projectile_grad(p[0], p[1], p[2]);
                vec![a, b, c]
            };
            let (_, (a, b, c), (x, y, z)) = projectile_hvp(p[0], p[1], p[2], (1.0, -2.0, 3.0));
            check_hvp(
                "projectile",
                &h,
                &g,
                &[1.0, -2.0, 3.0],
                (0.0, vec![a, b, c], vec![x, y, z]),
            );
        }
    }

    /// The negative log-likelihood of a sample under a normal distribution with softplus-positive
    /// scale, through a generic callee and an `order = 2` callee in a nested module (`super::`
    /// and `crate::` paths); `order = 3` in the mean alone.
    #[differentiable(wrt(mu), order = 3)]
    pub fn gaussian_nll(mu: f64, raw_sigma: f64, xs: &[f64]) -> f64 {
        let sigma = super::physics::stats::softplus(raw_sigma) + 0.1;
        let mut s = 0.0;
        for &x in xs {
            s -= crate::physics::stats::log_normal(x, mu, sigma);
        }
        s
    }

    /// The same over both parameters, `order = 2`.
    #[differentiable(wrt(mu, raw_sigma), order = 2)]
    pub fn gaussian_nll2(mu: f64, raw_sigma: f64, xs: &[f64]) -> f64 {
        let sigma = physics::stats::softplus(raw_sigma) + 0.1;
        xs.iter()
            .map(|&x| -physics::stats::log_normal(x, mu, sigma))
            .sum()
    }

    #[test]
    fn gaussian_nll_across_modules() {
        let xs = [0.3, -1.1, 0.8, 2.0, -0.4];
        for p in points(3942, 2, 10, -1.5, 1.5) {
            let (mu, rs) = (p[0], p[1]);
            let sigma = (rs.exp()).ln_1p() + 0.1;
            let d = gaussian_nll_derivatives(mu, rs, &xs);
            let n = xs.len() as f64;
            let d1: f64 = xs.iter().map(|x| -(x - mu) / (sigma * sigma)).sum();
            assert_all_close(
                &d[1..],
                &[d1, n / (sigma * sigma), 0.0],
                1e-10,
                "nll in mu by hand",
            );
            check3(
                "gaussian_nll",
                mu,
                d,
                |m| gaussian_nll(m, rs, &xs),
                |m| gaussian_nll_grad(m, rs, &xs).1,
                |m| gaussian_nll_hessian(m, rs, &xs).2[0][0],
            );
            check2(
                "gaussian_nll2",
                &p,
                |p| gaussian_nll2(p[0], p[1], &xs),
                |p| {
                    let (v, (a, b)) = gaussian_nll2_grad(p[0], p[1], &xs);
                    (v, vec![a, b])
                },
                |p| {
                    let (v, (a, b), h) = gaussian_nll2_hessian(p[0], p[1], &xs);
                    (v, vec![a, b], h)
                },
            );
            assert_close(gaussian_nll2(mu, rs, &xs), d[0], 1e-12, "both forms agree");
        }
    }

    /// The Lagrangian of bodies in a trap through an associated function and a method of a struct
    /// from another module, active in the bodies (a slice of structs is no parameter kind, so two).
    #[differentiable(order = 2)]
    pub fn lagrangian(
        a: &physics::bodies::Body,
        b: &physics::bodies::Body,
        v: &[f64; 2],
        k: f64,
    ) -> f64 {
        let t = physics::bodies::Body::kinetic(a.mass + b.mass, v);
        t - a.trapped(k) - b.trapped(k)
    }

    #[test]
    fn lagrangian_with_a_struct_from_another_module() {
        use autodiff::Differentiable;
        use physics::bodies::Body;
        let template = Body {
            mass: 0.0,
            pos: [0.0; 2],
        };
        for p in points(3943, 9, 8, -1.0, 1.0) {
            let p: Vec<f64> = p
                .iter()
                .enumerate()
                .map(|(i, v)| if i == 0 || i == 3 { 1.0 + v.abs() } else { *v })
                .collect();
            let split = |p: &[f64]| {
                (
                    template.from_flat(&p[0..3]),
                    template.from_flat(&p[3..6]),
                    [p[6], p[7]],
                    p[8],
                )
            };
            let flat = |(a, b, v, k): (Body, Body, [f64; 2], f64)| {
                [a.to_flat(), b.to_flat(), v.to_vec(), vec![k]].concat()
            };
            check2(
                "lagrangian",
                &p,
                |p| {
                    let (a, b, v, k) = split(p);
                    lagrangian(&a, &b, &v, k)
                },
                |p| {
                    let (a, b, v, k) = split(p);
                    let (value, g) = lagrangian_grad(&a, &b, &v, k);
                    (value, flat(g))
                },
                |p| {
                    let (a, b, v, k) = split(p);
                    let (value, g, h) = lagrangian_hessian(&a, &b, &v, k);
                    (value, flat(g), h)
                },
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (6) The body forms API.md lists, at `order = 2` (and `order = 3` where one scalar is active).

mod forms {
    use super::*;
    use autodiff::differentiable;

    /// A Huber regression loss through a closure bound to a local that captures the (active) threshold,
    /// over an iterator chain with `zip` and `map`.
    #[differentiable(order = 2)]
    pub fn huber_loss(w: &[f64], xs: &[f64], ys: &[f64], delta: f64) -> f64 {
        let huber = |r: f64| {
            if r.abs() <= delta {
                0.5 * r * r
            } else {
                delta * (r.abs() - 0.5 * delta)
            }
        };
        xs.iter()
            .zip(ys.iter())
            .map(|(&x, &y)| huber(w[0] + w[1] * x - y))
            .sum::<f64>()
    }

    #[test]
    fn huber_closure_and_chain() {
        let xs = [-1.0, -0.2, 0.5, 1.3, 2.1];
        for p in points(3951, 3 + 5, 10, -1.0, 1.0) {
            let ys: Vec<f64> = p[3..].iter().map(|v| 3.0 * v).collect();
            let q = [p[0], p[1], 0.5 + p[2].abs()];
            // Away from the kinks |r| = delta.
            let ok = xs
                .iter()
                .zip(&ys)
                .all(|(x, y)| ((q[0] + q[1] * x - y).abs() - q[2]).abs() > 1e-2);
            if !ok {
                continue;
            }
            let h = check2(
                "huber_loss",
                &q,
                |q| huber_loss(&q[..2], &xs, &ys, q[2]),
                |q| {
                    let (v, (gw, gx, gy, gd)) = huber_loss_grad(&q[..2], &xs, &ys, q[2]);
                    assert_eq!(gx.len() + gy.len(), 10);
                    (v, [gw, vec![gd]].concat())
                },
                |q| {
                    let (v, (gw, _, _, gd), h) = huber_loss_hessian(&q[..2], &xs, &ys, q[2]);
                    // The Hessian runs over (w, xs, ys, delta): keep w and delta.
                    let keep = [0, 1, 12];
                    let h = keep
                        .iter()
                        .map(|&i| keep.iter().map(|&j| h[i][j]).collect())
                        .collect();
                    (v, [gw, vec![gd]].concat(), h)
                },
            );
            // The quadratic zone's residuals each add (1, x)(1, x)ᵀ to the Hessian in w.
            let inside: f64 = xs
                .iter()
                .zip(&ys)
                .filter(|(x, y)| (q[0] + q[1] * *x - *y).abs() <= q[2])
                .count() as f64;
            assert_close(h[0][0], inside, 1e-12, "huber d2/dw0^2");
        }
    }

    /// The log of the geometric mean of `exp`-transformed values via `.product()`, and a `.fold` of
    /// the squared neighbours' differences over sub-slices `&x[1..]` and `&x[..n - 1]`.
    #[differentiable(order = 2)]
    pub fn chain_forms(x: &[f64]) -> f64 {
        let n = x.len();
        let prod: f64 = x.iter().map(|v| (0.5 * v).exp()).product();
        let tv = x[1..]
            .iter()
            .zip(&x[..n - 1])
            .fold(0.0, |acc, (a, b)| acc + (a - b) * (a - b));
        prod.ln() / n as f64 + tv + x.iter().copied().map(|v| v.sin()).sum::<f64>()
    }

    #[test]
    fn chain_forms_at_order_2() {
        for x in points(3952, 5, 10, -1.5, 1.5) {
            let h = check2(
                "chain_forms",
                &x,
                chain_forms,
                chain_forms_grad,
                chain_forms_hessian,
            );
            // The product's log is linear: the Hessian is the path graph's Laplacian times 2, minus sin.
            for i in 0..5 {
                let degree = if i == 0 || i == 4 { 1.0 } else { 2.0 };
                assert_close(
                    h[i][i],
                    2.0 * degree - x[i].sin(),
                    1e-12,
                    "chain_forms diagonal",
                );
            }
        }
    }

    /// The mean of a three-point smoothing stencil, a first-order callee taking a sub-slice.
    #[differentiable]
    pub fn stencil(w: &[f64]) -> f64 {
        (w[0] + 2.0 * w[1] + w[2]) / 4.0
    }

    /// Smoothness energy of a signal: each window `&x[k..k + 3]` passed to `stencil`, its squared
    /// deviation from the centre summed.
    #[differentiable(order = 2)]
    pub fn smoothness(x: &[f64]) -> f64 {
        let mut e = 0.0;
        for k in 0..x.len() - 2 {
            let s = stencil(&x[k..k + 3]);
            e += (s - x[k + 1]).powi(2) + (x[k + 1] * s).tanh();
        }
        e
    }

    #[test]
    fn smoothness_over_sub_slices() {
        for x in points(3953, 6, 10, -1.0, 1.0) {
            check2(
                "smoothness",
                &x,
                smoothness,
                smoothness_grad,
                smoothness_hessian,
            );
        }
    }

    /// Logistic regression with nested `fn` items for the link and the loss.
    #[differentiable(wrt(w), order = 2)]
    pub fn logistic(w: &[f64], xs: &[[f64; 2]], ys: &[f64]) -> f64 {
        fn sigmoid(z: f64) -> f64 {
            1.0 / (1.0 + (-z).exp())
        }
        fn bce(p: f64, y: f64) -> f64 {
            -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
        }
        let mut s = 0.0;
        for i in 0..ys.len() {
            let p = sigmoid(w[0] + w[1] * xs[i][0] + w[2] * xs[i][1]);
            s += bce(p, ys[i]);
        }
        s + 0.05 * (w[1] * w[1] + w[2] * w[2])
    }

    #[test]
    fn logistic_with_nested_fn_items() {
        let xs = [[0.5, 1.0], [-1.0, 0.3], [1.5, -0.7], [0.2, 0.2]];
        let ys = [1.0, 0.0, 1.0, 0.0];
        for w in points(3954, 3, 10, -1.0, 1.0) {
            let h = check2(
                "logistic",
                &w,
                |w| logistic(w, &xs, &ys),
                |w| logistic_grad(w, &xs, &ys),
                |w| logistic_hessian(w, &xs, &ys),
            );
            // By hand: Σ p (1 - p) φ φᵀ + 0.1 on the weights.
            let mut by_hand = vec![vec![0.0; 3]; 3];
            for x in &xs {
                let phi = [1.0, x[0], x[1]];
                let p = 1.0 / (1.0 + (-(dot(&w, &phi))).exp());
                for a in 0..3 {
                    for b in 0..3 {
                        by_hand[a][b] += p * (1.0 - p) * phi[a] * phi[b];
                    }
                }
            }
            by_hand[1][1] += 0.1;
            by_hand[2][2] += 0.1;
            for a in 0..3 {
                assert_all_close(&h[a], &by_hand[a], 1e-12, "logistic hessian by hand");
            }
        }
    }

    /// A polynomial evaluated by recursion over sub-slices (Horner's rule).
    #[differentiable(order = 2)]
    pub fn horner(c: &[f64], x: f64) -> f64 {
        if c.len() == 1 {
            c[0]
        } else {
            c[0] + x * horner(&c[1..], x)
        }
    }

    /// Chebyshev polynomials by their three-term recursion, to the third derivative.
    #[differentiable(order = 3)]
    pub fn chebyshev(n: u32, x: f64) -> f64 {
        match n {
            0 => 1.0,
            1 => x,
            _ => 2.0 * x * chebyshev(n - 1, x) - chebyshev(n - 2, x),
        }
    }

    #[test]
    fn recursion_at_order_2_and_3() {
        for p in points(3955, 5, 10, -1.0, 1.0) {
            let h = check2(
                "horner",
                &p,
                |p| horner(&p[..4], p[4]),
                |p| {
                    let (v, (gc, gx)) = horner_grad(&p[..4], p[4]);
                    (v, [gc, vec![gx]].concat())
                },
                |p| {
                    let (v, (gc, gx), h) = horner_hessian(&p[..4], p[4]);
                    (v, [gc, vec![gx]].concat(), h)
                },
            );
            let x = p[4];
            // d/dc_k = x^k, d²/dc_k dx = k x^(k-1), d²/dx² = 2 c2 + 6 c3 x.
            for k in 0..4 {
                assert_close(
                    h[k][4],
                    k as f64 * x.powi(k as i32 - 1),
                    1e-12,
                    "horner mixed",
                );
            }
            assert_close(h[4][4], 2.0 * p[2] + 6.0 * p[3] * x, 1e-12, "horner d2/dx2");
            // T_5(x) = 16x⁵ - 20x³ + 5x.
            let d = chebyshev_derivatives(5, x);
            let by_hand = [
                16.0 * x.powi(5) - 20.0 * x.powi(3) + 5.0 * x,
                80.0 * x.powi(4) - 60.0 * x * x + 5.0,
                320.0 * x.powi(3) - 120.0 * x,
                960.0 * x * x - 120.0,
            ];
            assert_all_close(&d, &by_hand, 1e-11, "chebyshev by hand");
            check3(
                "chebyshev",
                x,
                d,
                |x| chebyshev(5, x),
                |x| chebyshev_grad(5, x).1,
                |x| chebyshev_hessian(5, x).2[0][0],
            );
        }
    }

    /// An activation chosen by a `match` with range and `|` patterns on an integer code.
    #[differentiable(order = 2)]
    pub fn activation(x: f64, a: f64, code: u8) -> f64 {
        match code {
            0 => x * a,
            1..=3 => (x * a).tanh(),
            4 | 5 => (a * x).exp().ln_1p(),
            6..=9 => x / (1.0 + (-a * x).exp()),
            _ => (x * x + a * a).sqrt(),
        }
    }

    #[test]
    fn activation_by_match_ranges() {
        for code in 0..12u8 {
            for p in points(3956 + code as u64, 2, 5, -2.0, 2.0) {
                let h = check2(
                    "activation",
                    &p,
                    |p| activation(p[0], p[1], code),
                    |p| {
                        let (v, (a, b)) = activation_grad(p[0], p[1], code);
                        (v, vec![a, b])
                    },
                    |p| {
                        let (v, (a, b), h) = activation_hessian(p[0], p[1], code);
                        (v, vec![a, b], h)
                    },
                );
                if code == 0 {
                    assert_eq!(h, vec![vec![0.0, 1.0], vec![1.0, 0.0]], "x a");
                }
            }
        }
    }

    /// The cube root by Newton's method in a `loop` that breaks with its value, to the third
    /// derivative.
    #[differentiable(order = 3)]
    pub fn cube_root(a: f64) -> f64 {
        let mut x = 1.0;
        let mut k = 0;
        loop {
            x -= (x * x * x - a) / (3.0 * x * x);
            k += 1;
            if k == 60 {
                break x;
            }
        }
    }

    /// A bisection for the root of `t³ + p t - q` in a `loop` with an active `break` value and a
    /// data-dependent condition, the root then refined by two Newton steps.
    #[differentiable(order = 2)]
    pub fn depressed_cubic_root(p: f64, q: f64) -> f64 {
        let (mut lo, mut hi) = (-10.0, 10.0);
        let mut it = 0;
        let t = loop {
            let mid = 0.5 * (lo + hi);
            let f = mid * mid * mid + p * mid - q;
            if f > 0.0 {
                hi = mid;
            } else {
                lo = mid;
            }
            it += 1;
            if it >= 60 {
                break mid;
            }
        };
        let t = t - (t * t * t + p * t - q) / (3.0 * t * t + p);
        t - (t * t * t + p * t - q) / (3.0 * t * t + p)
    }

    #[test]
    fn loops_breaking_with_values() {
        for p in points(3957, 1, 10, 0.2, 8.0) {
            let a = p[0];
            let d = cube_root_derivatives(a);
            let r = a.cbrt();
            let by_hand = [
                r,
                r / (3.0 * a),
                -2.0 * r / (9.0 * a * a),
                10.0 * r / (27.0 * a * a * a),
            ];
            assert_all_close(&d, &by_hand, 1e-10, "cube root by hand");
            check3(
                "cube_root",
                a,
                d,
                cube_root,
                |a| cube_root_grad(a).1,
                |a| cube_root_hessian(a).2[0][0],
            );
        }
        for p in points(3958, 2, 10, 0.5, 2.0) {
            // p > 0: one real root, where 3t² + p > 0. The bisection's value carries no derivative
            // (its comparisons do not), two Newton steps from it carry the implicit derivative to
            // second order only approximately, so check against differences of the plain function.
            let h = check2(
                "depressed_cubic_root",
                &p,
                |p| depressed_cubic_root(p[0], p[1]),
                |p| {
                    let (v, (a, b)) = depressed_cubic_root_grad(p[0], p[1]);
                    (v, vec![a, b])
                },
                |p| {
                    let (v, (a, b), h) = depressed_cubic_root_hessian(p[0], p[1]);
                    (v, vec![a, b], h)
                },
            );
            // Implicit: dt/dq = 1 / (3t² + p), dt/dp = -t / (3t² + p).
            let t = depressed_cubic_root(p[0], p[1]);
            let (_, (gp, gq)) = depressed_cubic_root_grad(p[0], p[1]);
            assert_close(gq, 1.0 / (3.0 * t * t + p[0]), 1e-10, "dt/dq");
            assert_close(gp, -t / (3.0 * t * t + p[0]), 1e-10, "dt/dp");
            let _ = h;
        }
    }

    /// A ball bouncing on the floor: the state after the event, an array returned early from one
    /// branch (first order only).
    #[differentiable]
    pub fn bounce(x: f64, v: f64, e: f64) -> [f64; 2] {
        if x < 0.0 {
            return [-e * x, -e * v];
        }
        [x, v]
    }

    /// The same as a `match` yielding arrays, at `order = 2` itself.
    #[differentiable(order = 2)]
    pub fn bounce_match(x: f64, v: f64, e: f64) -> [f64; 2] {
        match x < 0.0 {
            true => [-e * x, -e * v],
            false => [x, v],
        }
    }

    /// The energy after a step and a bounce, the bounce's array from an early return and the order of
    /// its components from an `if` choosing arrays.
    #[differentiable(order = 2)]
    pub fn bounce_energy(x: f64, v: f64, e: f64, dt: f64) -> f64 {
        let s = bounce(x + dt * v, v - 9.81 * dt, e);
        let t = bounce_match(s[0], s[1], e);
        let ordered = if t[0] > t[1] {
            [t[0], t[1]]
        } else {
            [t[1], t[0]]
        };
        0.5 * t[1] * t[1] + 9.81 * t[0] + 0.01 * ordered[0] * ordered[1]
    }

    #[test]
    fn arrays_returned_early_and_chosen() {
        for p in points(3959, 3, 12, -1.0, 1.0) {
            let p = [p[0], p[1], 0.5 + 0.4 * p[2]];
            let dt = 0.05;
            // Away from the event x + dt v = 0 and from a tie of the ordered pair.
            let s = bounce(p[0] + dt * p[1], p[1] - 9.81 * dt, p[2]);
            if (p[0] + dt * p[1]).abs() < 1e-3 || (s[0] - s[1]).abs() < 1e-3 {
                continue;
            }
            check2(
                "bounce_energy",
                &p,
                |p| bounce_energy(p[0], p[1], p[2], dt),
                |p| {
                    let (v, (a, b, c, _)) = bounce_energy_grad(p[0], p[1], p[2], dt);
                    (v, vec![a, b, c])
                },
                |p| {
                    let (v, (a, b, c, _), h) = bounce_energy_hessian(p[0], p[1], p[2], dt);
                    let h = h[..3].iter().map(|r| r[..3].to_vec()).collect();
                    (v, vec![a, b, c], h)
                },
            );
            // bounce_match's Jacobian and jvp/vjp at order 2.
            let j = bounce_match_jacobian(p[0], p[1], p[2]);
            let jf = fd_jacobian(|q| bounce_match(q[0], q[1], q[2]).to_vec(), &p);
            for i in 0..2 {
                assert_all_close(&j[i], &jf[i], 1e-8, "bounce_match jacobian");
            }
            let (_, (a, b, c)) = bounce_match_vjp(p[0], p[1], p[2], [0.5, -1.0]);
            let (_, dt_out) = bounce_match_jvp(p[0], p[1], p[2], (a, b, c));
            // <d, J (Jᵀ d)> = |Jᵀ d|².
            assert_close(
                0.5 * dt_out[0] - dt_out[1],
                a * a + b * b + c * c,
                1e-12,
                "jvp vs vjp",
            );
        }
    }

    /// Simpson's rule for `∫₀¹ exp(-a t²) dt` with `step_by` and `rev` loops and a `const` item, to the
    /// third derivative in `a`.
    #[differentiable(order = 3)]
    pub fn gauss_integral(a: f64) -> f64 {
        const N: usize = 40;
        let h = 1.0 / N as f64;
        let f = |t: f64| (-a * t * t).exp();
        let mut s = f(0.0) + f(1.0);
        for i in (1..N).step_by(2) {
            s += 4.0 * f(i as f64 * h);
        }
        for i in (2..N - 1).rev().step_by(2) {
            s += 2.0 * f(i as f64 * h);
        }
        s * h / 3.0
    }

    #[test]
    fn simpson_with_step_by_and_rev() {
        for p in points(3960, 1, 8, 0.1, 3.0) {
            let a = p[0];
            let d = gauss_integral_derivatives(a);
            // d^k/da^k ∫ e^{-a t²} = ∫ (-t²)^k e^{-a t²}: Simpson's rule applied to those, to its accuracy.
            let simpson = |k: i32| {
                let n = 400;
                let h = 1.0 / n as f64;
                let g = |t: f64| (-t * t).powi(k) * (-a * t * t).exp();
                let mut s = g(0.0) + g(1.0);
                for i in 1..n {
                    s += if i % 2 == 1 { 4.0 } else { 2.0 } * g(i as f64 * h);
                }
                s * h / 3.0
            };
            for k in 0..4 {
                assert_close(d[k], simpson(k as i32), 1e-6, "gauss integral derivative");
            }
            check3(
                "gauss_integral",
                a,
                d,
                gauss_integral,
                |a| gauss_integral_grad(a).1,
                |a| gauss_integral_hessian(a).2[0][0],
            );
        }
    }

    /// A two-link arm's distance to a target: `mul_add`, `hypot`, `atan2`, `clamp`, tuple patterns,
    /// shadowing.
    #[differentiable(order = 2)]
    pub fn arm_reach(t1: f64, t2: f64, target: (f64, f64)) -> f64 {
        let l1: f64 = 1.0;
        let l2: f64 = 0.7;
        let x = l1 * t1.cos() + l2 * (t1 + t2).cos();
        let y = l1.mul_add(t1.sin(), l2 * (t1 + t2).sin());
        let (tx, ty) = target;
        let d = (x - tx).hypot(y - ty);
        let heading = (y - ty).atan2(x - tx);
        let d = d.clamp(0.0, 10.0);
        d * d + 0.1 * heading.sin()
    }

    #[test]
    fn arm_reach_at_order_2() {
        for p in points(3961, 4, 10, -1.5, 1.5) {
            let flat = |(a, b, (c, d)): (f64, f64, (f64, f64))| vec![a, b, c, d];
            check2(
                "arm_reach",
                &p,
                |p| arm_reach(p[0], p[1], (p[2], p[3])),
                |p| {
                    let (v, g) = arm_reach_grad(p[0], p[1], (p[2], p[3]));
                    (v, flat(g))
                },
                |p| {
                    let (v, g, h) = arm_reach_hessian(p[0], p[1], (p[2], p[3]));
                    (v, flat(g), h)
                },
            );
        }
    }

    /// A Cholesky-based Gaussian log-likelihood of a 2D point with a local matrix (`vec![vec![..]]`)
    /// written and read `m[i][j]`, active in the covariance's entries.
    #[differentiable(order = 2)]
    pub fn gauss2_loglik(s: &[f64; 3], x: &[f64; 2]) -> f64 {
        let mut l = vec![vec![0.0; 2]; 2];
        l[0][0] = s[0].sqrt();
        l[1][0] = s[1] / l[0][0];
        l[1][1] = (s[2] - l[1][0] * l[1][0]).sqrt();
        let z0 = x[0] / l[0][0];
        let z1 = (x[1] - l[1][0] * z0) / l[1][1];
        -0.5 * (z0 * z0 + z1 * z1) - l[0][0].ln() - l[1][1].ln()
    }

    #[test]
    fn gauss2_local_matrix() {
        for p in points(3962, 5, 10, -0.5, 0.5) {
            let q = [1.0 + p[0], 0.3 * p[1], 1.0 + p[2], p[3], p[4]];
            let split = |q: &[f64]| ([q[0], q[1], q[2]], [q[3], q[4]]);
            check2(
                "gauss2_loglik",
                &q,
                |q| gauss2_loglik(&split(q).0, &split(q).1),
                |q| {
                    let (v, (a, b)) = gauss2_loglik_grad(&split(q).0, &split(q).1);
                    (v, [a.to_vec(), b.to_vec()].concat())
                },
                |q| {
                    let (v, (a, b), h) = gauss2_loglik_hessian(&split(q).0, &split(q).1);
                    (v, [a.to_vec(), b.to_vec()].concat(), h)
                },
            );
            // The value by the closed form: -½ xᵀ S⁻¹ x - ½ ln det S.
            let det = q[0] * q[2] - q[1] * q[1];
            let quad = (q[2] * q[3] * q[3] - 2.0 * q[1] * q[3] * q[4] + q[0] * q[4] * q[4]) / det;
            assert_close(
                gauss2_loglik(&split(&q).0, &split(&q).1),
                -0.5 * quad - 0.5 * det.ln(),
                1e-12,
                "closed form",
            );
        }
    }

    /// A fixed-point iteration in a `while` loop whose condition is active (iterate until converged):
    /// the solution of `x = cos(a x)`.
    #[differentiable(order = 2)]
    pub fn fixed_point(a: f64) -> f64 {
        let mut x = 0.5;
        let mut next = (a * x).cos();
        let mut k = 0;
        while (next - x).abs() > 1e-15 && k < 500 {
            x = next;
            next = (a * x).cos();
            k += 1;
        }
        next
    }

    #[test]
    fn fixed_point_while() {
        for p in points(3963, 1, 8, 0.2, 0.9) {
            let a = p[0];
            let x = fixed_point(a);
            // Implicit: x' = -x sin(a x) / (1 + a sin(a x)).
            let s = (a * x).sin();
            let (_, g) = fixed_point_grad(a);
            assert_close(
                g,
                -x * s / (1.0 + a * s),
                1e-9,
                "fixed point implicit derivative",
            );
            let (_, _, h) = fixed_point_hessian(a);
            assert_close(
                h[0][0],
                fd1(|a| fixed_point_grad(a).1, a),
                1e-6,
                "fixed point second",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// (2, 4) More methods: nested structs' methods by path, output parameters of methods, closures and
// chains over fields, sub-slices of fields, recursion of a method, generic methods with outputs, `f32`.

mod more_methods {
    use super::*;
    use autodiff::{differentiable, Differentiable, Float};

    /// A normal distribution with a method in its own parameters and the point.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Gauss {
        pub mu: f64,
        pub log_s: f64,
    }

    impl Gauss {
        #[differentiable(wrt(self, x))]
        pub fn logpdf(&self, x: f64) -> f64 {
            let z = (x - self.mu) / self.log_s.exp();
            -0.5 * z * z - self.log_s
        }
    }

    /// A product of two experts, each a nested struct whose method is called by its path with the
    /// field by reference (as the macro's error for `self.a.logpdf(x)` says to write).
    #[derive(Clone, Debug, Differentiable)]
    pub struct Experts {
        pub a: Gauss,
        pub b: Gauss,
    }

    impl Experts {
        #[differentiable(wrt(self), order = 2)]
        pub fn log_product(&self, x: f64) -> f64 {
            Gauss::logpdf(&self.a, x) + Gauss::logpdf(&self.b, x)
        }
    }

    #[test]
    fn nested_struct_methods_by_path() {
        let template = Experts {
            a: Gauss {
                mu: 0.0,
                log_s: 0.0,
            },
            b: Gauss {
                mu: 0.0,
                log_s: 0.0,
            },
        };
        for p in points(3971, 5, 10, -1.0, 1.0) {
            let x = p[4];
            let h = check2(
                "log_product",
                &p[..4],
                |q| template.from_flat(q).log_product(x),
                |q| {
                    let (v, g) = template.from_flat(q).log_product_grad(x);
                    (v, g.to_flat())
                },
                |q| {
                    let (v, g, h) = template.from_flat(q).log_product_hessian(x);
                    (v, g.to_flat(), h)
                },
            );
            // The experts do not interact.
            assert_eq!(h[0][2], 0.0);
            assert_close(h[0][0], -(-2.0 * p[1]).exp(), 1e-12, "d2/dmu_a^2");
        }
    }

    /// A spring network's parameters; the number of active springs an integer.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Springs {
        pub w: Vec<f64>,
        pub k: f64,
        #[no_grad]
        pub n: usize,
    }

    /// An inner product, first order only.
    #[differentiable]
    pub fn inner(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    impl Springs {
        /// Forces written into `f`, energy returned, `self` and `x` active.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn forces(&self, x: &[f64], f: &mut [f64]) -> f64 {
            let mut e = 0.0;
            for i in 0..x.len() {
                f[i] = -self.k * self.w[i] * x[i];
                e += 0.5 * self.k * self.w[i] * x[i] * x[i];
            }
            e
        }

        /// The energy plus the forces' squared norm, through `self.forces` into a local buffer.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn work(&self, x: &[f64]) -> f64 {
            let mut f = vec![0.0; x.len()];
            let e = self.forces(x, &mut f);
            e + f.iter().map(|v| v * v).sum::<f64>()
        }

        /// A closure capturing `self` and an iterator chain over a field.
        #[differentiable(wrt(self), order = 2)]
        pub fn saturation(&self, x: &[f64]) -> f64 {
            let g = |v: f64| (self.k * v).tanh();
            self.w.iter().zip(x).map(|(w, v)| g(w * v)).sum::<f64>()
        }

        /// A sub-slice of a field passed to a call.
        #[differentiable(wrt(self), order = 2)]
        pub fn head(&self, x: &[f64]) -> f64 {
            (inner(&self.w[0..2], &x[0..2]) * self.k).sin()
        }

        /// A method calling itself.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn iterate(&self, x: f64, n: usize) -> f64 {
            if n == 0 {
                x
            } else {
                (self.k * self.iterate(x, n - 1)).sin() + self.w[0]
            }
        }

        /// Only the first `n` springs, the integer field compared with an index.
        #[differentiable(wrt(self), order = 2)]
        pub fn first_n(&self, x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() {
                if i < self.n {
                    s += self.w[i] * x[i];
                }
            }
            s * s * self.k
        }
    }

    #[test]
    fn spring_network_methods() {
        let template = Springs {
            w: vec![0.0; 3],
            k: 0.0,
            n: 2,
        };
        for p in points(3972, 7, 10, -1.0, 1.0) {
            let (q, x) = (&p[..4], &p[4..]);
            let with_x = |(s, gx): (Springs, Vec<f64>)| [s.to_flat(), gx].concat();
            check2(
                "forces",
                &p,
                |p| template.from_flat(&p[..4]).forces(&p[4..], &mut [0.0; 3]),
                |p| {
                    let (v, g) = template
                        .from_flat(&p[..4])
                        .forces_grad(&p[4..], &mut [0.0; 3]);
                    (v, with_x(g))
                },
                |p| {
                    let mut f = [f64::NAN; 3];
                    let (v, g, h) = template.from_flat(&p[..4]).forces_hessian(&p[4..], &mut f);
                    let mut want = [0.0; 3];
                    template.from_flat(&p[..4]).forces(&p[4..], &mut want);
                    assert_eq!(f, want, "forces written");
                    (v, with_x(g), h)
                },
            );
            // vjp with the forces' cotangent against differences of Σ d_i f_i.
            let d = [0.5, -1.0, 2.0];
            let (_, g) = template.from_flat(q).forces_vjp(x, &mut [0.0; 3], 0.0, &d);
            let fd = fd_grad(
                |p| {
                    let mut f = [0.0; 3];
                    template.from_flat(&p[..4]).forces(&p[4..], &mut f);
                    dot(&d, &f)
                },
                &p,
            );
            assert_all_close(&with_x(g), &fd, 1e-6, "forces vjp");
            check2(
                "work",
                &p,
                |p| template.from_flat(&p[..4]).work(&p[4..]),
                |p| {
                    let (v, g) = template.from_flat(&p[..4]).work_grad(&p[4..]);
                    (v, with_x(g))
                },
                |p| {
                    let (v, g, h) = template.from_flat(&p[..4]).work_hessian(&p[4..]);
                    (v, with_x(g), h)
                },
            );
            for (name, f, grad, hess) in [
                (
                    "saturation",
                    Springs::saturation as fn(&Springs, &[f64]) -> f64,
                    Springs::saturation_grad as fn(&Springs, &[f64]) -> (f64, Springs),
                    Springs::saturation_hessian
                        as fn(&Springs, &[f64]) -> (f64, Springs, Vec<Vec<f64>>),
                ),
                (
                    "head",
                    Springs::head,
                    Springs::head_grad,
                    Springs::head_hessian,
                ),
                (
                    "first_n",
                    Springs::first_n,
                    Springs::first_n_grad,
                    Springs::first_n_hessian,
                ),
            ] {
                let h = check2(
                    name,
                    q,
                    |q| f(&template.from_flat(q), x),
                    |q| {
                        let (v, g) = grad(&template.from_flat(q), x);
                        assert_eq!(g.n, 2, "the no_grad field copied");
                        (v, g.to_flat())
                    },
                    |q| {
                        let (v, g, h) = hess(&template.from_flat(q), x);
                        (v, g.to_flat(), h)
                    },
                );
                if name == "first_n" {
                    // The third spring is left out.
                    assert!(h[2].iter().all(|&v| v == 0.0));
                }
            }
            check2(
                "iterate",
                &p[..5],
                |p| template.from_flat(&p[..4]).iterate(p[4], 3),
                |p| {
                    let (v, (s, gx)) = template.from_flat(&p[..4]).iterate_grad(p[4], 3);
                    (v, [s.to_flat(), vec![gx]].concat())
                },
                |p| {
                    let (v, (s, gx), h) = template.from_flat(&p[..4]).iterate_hessian(p[4], 3);
                    (v, [s.to_flat(), vec![gx]].concat(), h)
                },
            );
        }
    }

    /// A generic struct whose method writes an output parameter.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Gain<T> {
        pub c: T,
    }

    impl<T: Float> Gain<T> {
        #[differentiable(wrt(self, x), order = 2)]
        pub fn apply_into(&self, x: &[T], out: &mut [T]) -> T {
            let mut s = T::zero();
            for i in 0..x.len() {
                out[i] = self.c * x[i].sin();
                s = s + out[i] * out[i];
            }
            s
        }
    }

    #[test]
    fn generic_method_with_an_output() {
        for p in points(3973, 4, 10, -1.5, 1.5) {
            let h = check2(
                "apply_into",
                &p,
                |p| Gain { c: p[0] }.apply_into(&p[1..], &mut [0.0; 3]),
                |p| {
                    let (v, (g, gx)) = Gain { c: p[0] }.apply_into_grad(&p[1..], &mut [0.0; 3]);
                    (v, [vec![g.c], gx].concat())
                },
                |p| {
                    let mut out = [f64::NAN; 3];
                    let (v, (g, gx), h) = Gain { c: p[0] }.apply_into_hessian(&p[1..], &mut out);
                    assert_eq!(out[0], p[0] * p[1].sin());
                    (v, [vec![g.c], gx].concat(), h)
                },
            );
            // d²/dc² = 2 Σ sin² x.
            let s: f64 = p[1..].iter().map(|v| v.sin().powi(2)).sum();
            assert_close(h[0][0], 2.0 * s, 1e-12, "d2/dc2");
            // At f32.
            let g32 = Gain { c: p[0] as f32 };
            let x32: Vec<f32> = p[1..].iter().map(|&v| v as f32).collect();
            let (_, (gc, _), h32) = g32.apply_into_hessian(&x32, &mut [0.0f32; 3]);
            assert_close(
                gc.c as f64,
                {
                    let (_, (g, _)) = Gain { c: p[0] }.apply_into_grad(&p[1..], &mut [0.0; 3]);
                    g.c
                },
                1e-4,
                "f32 gradient",
            );
            assert_close(h32[0][0] as f64, 2.0 * s, 1e-4, "f32 hessian");
            // jvp of the outputs against vjp.
            let mut dout = [f64::NAN; 3];
            let t = (Gain { c: 0.5 }, vec![1.0, -1.0, 0.25]);
            let (_, ds) = Gain { c: p[0] }.apply_into_jvp(&p[1..], &mut [0.0; 3], t, &mut dout);
            let d = [0.3, -0.6, 0.9];
            let (_, (gc, gx)) = Gain { c: p[0] }.apply_into_vjp(&p[1..], &mut [0.0; 3], 2.0, &d);
            let lhs = 2.0 * ds + dot(&d, &dout);
            let rhs = 0.5 * gc.c + dot(&gx, &[1.0, -1.0, 0.25]);
            assert_close(lhs, rhs, 1e-12, "apply_into jvp vs vjp");
        }
    }

    /// An `f32` struct with an array field at `order = 2`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Bias32 {
        pub a: f32,
        pub v: [f32; 2],
    }

    impl Bias32 {
        #[differentiable(wrt(self), order = 2)]
        pub fn response(&self, x: f32) -> f32 {
            self.a * self.v[0] * x + (self.v[1] * x).exp()
        }
    }

    #[test]
    fn f32_struct_at_order_2() {
        for p in points(3974, 4, 6, -1.0, 1.0) {
            let b = Bias32 {
                a: p[0] as f32,
                v: [p[1] as f32, p[2] as f32],
            };
            let x = p[3] as f32;
            let (value, g, h) = b.response_hessian(x);
            assert_eq!(value, b.response(x));
            let (a, v0, v1, x) = (b.a as f64, b.v[0] as f64, b.v[1] as f64, x as f64);
            let e = (v1 * x).exp();
            assert_all_close(
                &g.to_flat(),
                &[v0 * x, a * x, x * e],
                1e-5,
                "f32 gradient by hand",
            );
            let by_hand = [[0.0, x, 0.0], [x, 0.0, 0.0], [0.0, 0.0, x * x * e]];
            for i in 0..3 {
                let row: Vec<f64> = h[i].iter().map(|&v| v as f64).collect();
                assert_all_close(&row, &by_hand[i], 1e-5, "f32 hessian by hand");
            }
        }
    }
}

mod more_free {
    use super::*;
    use autodiff::differentiable;

    /// A sum of cubes of scaled inputs, `_grad_into` and `_hessian` at `order = 3`.
    #[differentiable(order = 3)]
    pub fn scaled_cubes(a: f64, x: &[f64]) -> f64 {
        x.iter().map(|v| (a * v).powi(3)).sum::<f64>()
    }

    #[test]
    fn grad_into_at_order_3() {
        for p in points(3975, 4, 8, -1.0, 1.0) {
            check2(
                "scaled_cubes",
                &p,
                |p| scaled_cubes(p[0], &p[1..]),
                |p| {
                    let (v, (a, x)) = scaled_cubes_grad(p[0], &p[1..]);
                    (v, [vec![a], x].concat())
                },
                |p| {
                    let (v, (a, x), h) = scaled_cubes_hessian(p[0], &p[1..]);
                    (v, [vec![a], x].concat(), h)
                },
            );
            let (mut ga, mut gx) = (f64::NAN, vec![f64::NAN; 3]);
            let v = scaled_cubes_grad_into(p[0], &p[1..], (&mut ga, &mut gx));
            assert_eq!((v, (ga, gx)), scaled_cubes_grad(p[0], &p[1..]));
        }
    }

    pub mod buffers {
        use autodiff::differentiable;

        /// Squares written into `out`, their sum returned, `order = 2`.
        #[differentiable(order = 2)]
        pub fn squares_into(x: &[f64], out: &mut [f64]) -> f64 {
            for i in 0..x.len() {
                out[i] = x[i] * x[i];
            }
            out.iter().sum::<f64>()
        }
    }

    /// An `order = 2` function with an output calling one in another module with an output; the loop
    /// runs over `out.len()`, so the read of `out[0]` after it is of a written element (its incoming
    /// value is no input).
    #[differentiable(order = 2)]
    pub fn wave_into(x: &[f64], out: &mut [f64]) -> f64 {
        let mut tmp = vec![0.0; x.len()];
        let s = buffers::squares_into(x, &mut tmp);
        for i in 0..out.len() {
            out[i] = tmp[i].sin();
        }
        s * out[0]
    }

    #[test]
    fn outputs_through_outputs_across_modules() {
        for x in points(3976, 3, 10, -1.2, 1.2) {
            check2(
                "wave_into",
                &x,
                |x| wave_into(x, &mut [0.0; 3]),
                |x| wave_into_grad(x, &mut [0.0; 3]),
                |x| {
                    let mut out = [f64::NAN; 3];
                    let r = wave_into_hessian(x, &mut out);
                    assert_eq!(out[2], (x[2] * x[2]).sin());
                    r
                },
            );
            // The outputs' Jacobian: diag(2 x cos x²), by jvp along each axis.
            for k in 0..3 {
                let mut t = vec![0.0; 3];
                t[k] = 1.0;
                let mut d = [f64::NAN; 3];
                wave_into_jvp(&x, &mut [0.0; 3], t, &mut d);
                for i in 0..3 {
                    let e = if i == k {
                        2.0 * x[i] * (x[i] * x[i]).cos()
                    } else {
                        0.0
                    };
                    assert_close(d[i], e, 1e-12, "wave_into output tangent");
                }
            }
        }
    }

    /// A lookup whose arms yield arrays, matched with ranges.
    #[differentiable(order = 2)]
    pub fn piecewise_pair(x: f64, k: u32) -> f64 {
        let a = match k {
            0..=1 => [x, x * x],
            2 | 3 => [x.sin(), x.cos()],
            _ => [1.0, x],
        };
        a[0] * a[1]
    }

    /// Only the first tuple active (`wrt` of a tuple parameter).
    #[differentiable(wrt(p), order = 2)]
    pub fn bilinear_pairs(p: (f64, f64), q: (f64, f64)) -> f64 {
        let (a, b) = p;
        let (c, d) = q;
        a * c + b * b * d + (a * b).sin()
    }

    /// A `&mut Vec<f64>` output written by index.
    #[differentiable(order = 2)]
    pub fn cosines_into(x: f64, out: &mut Vec<f64>) -> f64 {
        for i in 0..out.len() {
            out[i] = (x * i as f64).cos();
        }
        out[1] + out[2] * out[3]
    }

    #[test]
    fn match_arrays_tuple_wrt_vec_output() {
        for p in points(3977, 3, 10, -1.5, 1.5) {
            for k in 0..6 {
                let x = p[0];
                let (value, _, h) = piecewise_pair_hessian(x, k);
                assert_eq!(value, piecewise_pair(x, k));
                let d2 = h[0][0];
                let by_hand = match k {
                    0..=1 => 6.0 * x,
                    2 | 3 => -4.0 * (2.0 * x).sin() / 2.0,
                    _ => 0.0,
                };
                assert_close(d2, by_hand, 1e-12, "piecewise_pair by hand");
                assert_close(
                    d2,
                    fd1(|x| piecewise_pair_grad(x, k).1, x),
                    1e-6,
                    "piecewise_pair vs differences",
                );
            }
            let (c, d) = (p[2], 0.7);
            let h = check2(
                "bilinear_pairs",
                &p[..2],
                |q| bilinear_pairs((q[0], q[1]), (c, d)),
                |q| {
                    let (v, (a, b)) = bilinear_pairs_grad((q[0], q[1]), (c, d));
                    (v, vec![a, b])
                },
                |q| {
                    let (v, (a, b), h) = bilinear_pairs_hessian((q[0], q[1]), (c, d));
                    (v, vec![a, b], h)
                },
            );
            let (a, b) = (p[0], p[1]);
            assert_close(
                h[1][1],
                2.0 * d - a * a * (a * b).sin(),
                1e-12,
                "bilinear d2/db2",
            );
            let mut ga = (f64::NAN, f64::NAN);
            let v = bilinear_pairs_grad_into((a, b), (c, d), &mut ga);
            assert_eq!((v, ga), bilinear_pairs_grad((a, b), (c, d)));
            check2(
                "cosines_into",
                &p[..1],
                |x| cosines_into(x[0], &mut vec![0.0; 4]),
                |x| {
                    let (v, g) = cosines_into_grad(x[0], &mut vec![0.0; 4]);
                    (v, vec![g])
                },
                |x| {
                    let (v, g, h) = cosines_into_hessian(x[0], &mut vec![0.0; 4]);
                    (v, vec![g], h)
                },
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Edges: `order = 3` with an accumulator read before written, a constant `self` with a `Vec` field, a
// generic callee with an output from an `f64` caller, tuple and `Vec` results at `order = 2`, recursion
// returning arrays, a closure over a local changed in the loop, an early return from a loop with an
// output partly written, a `#[no_grad]` integer exponent.

mod edges {
    use super::*;
    use autodiff::{differentiable, Differentiable, Float};

    // a. wrt(x) order 3 with a read-before-write float accumulator
    #[differentiable(wrt(x), order = 3)]
    pub fn acc3(x: f64, acc: &mut f64) -> f64 {
        *acc += x.sin();
        *acc * x * x
    }

    // b. self constant with Vec field, order 3 in x
    #[derive(Clone, Debug, Differentiable)]
    pub struct Poly {
        pub c: Vec<f64>,
    }
    impl Poly {
        #[differentiable(wrt(x), order = 3)]
        pub fn eval(&self, x: f64) -> f64 {
            let mut s = 0.0;
            for i in (0..self.c.len()).rev() {
                s = s * x + self.c[i];
            }
            s
        }
    }

    // c. generic callee from f64 order 3 with output
    #[differentiable]
    pub fn gsq<T: Float>(x: T, out: &mut [T]) -> T {
        out[0] = x * x;
        out[0] * x
    }
    #[differentiable(order = 3)]
    pub fn use_gsq(x: f64) -> f64 {
        let mut o = [0.0; 1];
        let c = gsq(x.sin(), &mut o);
        c + o[0]
    }

    // e. tuple return at order 2
    #[differentiable(order = 2)]
    pub fn polar2(r: f64, t: f64) -> (f64, f64) {
        (r * t.cos(), r * t.sin())
    }

    // f. Vec return at order 2 with wrt
    #[differentiable(wrt(x), order = 2)]
    pub fn scaled(x: &[f64], s: f64) -> Vec<f64> {
        x.iter().map(|v| s * v * v).collect()
    }

    // g. recursion returning arrays at order 2
    #[differentiable(order = 2)]
    pub fn rot(v: [f64; 2], t: f64, n: u32) -> [f64; 2] {
        if n == 0 {
            return v;
        }
        let w = rot(v, t, n - 1);
        [
            t.cos() * w[0] - t.sin() * w[1],
            t.sin() * w[0] + t.cos() * w[1],
        ]
    }
    #[differentiable(order = 2)]
    pub fn rot_energy(v: [f64; 2], t: f64) -> f64 {
        let w = rot(v, t, 3);
        w[0] * w[0] * 2.0 + w[1]
    }

    // h. closure capturing a mutable local changed in a loop
    #[differentiable(order = 2)]
    pub fn closure_loop(x: &[f64], a: f64) -> f64 {
        let mut scale = a;
        let mut s = 0.0;
        for &v in x {
            let f = |u: f64| scale * u * u;
            s += f(v);
            scale *= 0.9 + 0.1 * v;
        }
        s
    }

    // i. early return of float from inside a loop with outputs partly written
    #[differentiable(order = 2)]
    pub fn until(x: &[f64], out: &mut [f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            out[i] = x[i] * s + 1.0;
            s += x[i] * x[i];
            if s > 2.0 {
                return s * out[i];
            }
        }
        s
    }

    // j. order 3 in a method with self active alone: scalar struct
    #[derive(Clone, Debug, Differentiable)]
    pub struct One {
        pub k: f64,
        #[no_grad]
        pub n: i32,
    }
    impl One {
        #[differentiable(wrt(self), order = 3)]
        pub fn pw(&self, x: f64) -> f64 {
            (self.k * x).powi(self.n) + self.k.exp()
        }
    }

    #[test]
    fn accumulator_at_order_3() {
        for p in points(3981, 2, 10, -1.5, 1.5) {
            let (x, c) = (p[0], p[1]);
            let mut acc = c;
            let d = acc3_derivatives(x, &mut acc);
            assert_eq!(acc, c + x.sin(), "written once");
            // f = (c + sin x) x².
            let (s, co) = (x.sin(), x.cos());
            let by_hand = [
                (c + s) * x * x,
                co * x * x + 2.0 * x * (c + s),
                -s * x * x + 4.0 * x * co + 2.0 * (c + s),
                -co * x * x - 6.0 * x * s + 6.0 * co,
            ];
            assert_all_close(&d, &by_hand, 1e-12, "acc3 by hand");
            check3(
                "acc3",
                x,
                d,
                |x| acc3(x, &mut c.clone()),
                |x| acc3_grad(x, &mut c.clone()).1,
                |x| acc3_hessian(x, &mut c.clone()).2[0][0],
            );
        }
    }

    #[test]
    fn constant_self_and_generic_callee_at_order_3() {
        let poly = Poly {
            c: vec![0.5, -1.0, 2.0, 0.25],
        };
        for p in points(3982, 1, 10, -2.0, 2.0) {
            let x = p[0];
            let d = poly.eval_derivatives(x);
            let by_hand = [
                0.5 - x + 2.0 * x * x + 0.25 * x.powi(3),
                -1.0 + 4.0 * x + 0.75 * x * x,
                4.0 + 1.5 * x,
                1.5,
            ];
            assert_all_close(&d, &by_hand, 1e-12, "Poly by hand");
            assert_close(poly.eval(x), by_hand[0], 1e-12, "Poly value");
            // use_gsq = sin³ x + sin² x.
            let d = use_gsq_derivatives(x);
            check3(
                "use_gsq",
                x,
                d,
                use_gsq,
                |x| use_gsq_grad(x).1,
                |x| use_gsq_hessian(x).2[0][0],
            );
            let s = x.sin();
            assert_close(d[0], s.powi(3) + s * s, 1e-12, "use_gsq value");
            assert_close(d[1], (3.0 * s * s + 2.0 * s) * x.cos(), 1e-12, "use_gsq'");
        }
    }

    #[test]
    fn tuple_and_vec_results_at_order_2() {
        for p in points(3983, 3, 10, -1.5, 1.5) {
            let (r, t) = (p[0], p[1]);
            let (v, (dr, dt)) = polar2_vjp(r, t, (1.0, 0.0));
            assert_eq!(v, polar2(r, t));
            assert_all_close(&[dr, dt], &[t.cos(), -r * t.sin()], 1e-12, "polar2 vjp");
            let (_, (tx, ty)) = polar2_jvp(r, t, (0.0, 1.0));
            assert_all_close(&[tx, ty], &[-r * t.sin(), r * t.cos()], 1e-12, "polar2 jvp");
            let x = p.clone();
            let j = scaled_jacobian(&x, 0.7);
            for i in 0..3 {
                for k in 0..3 {
                    let e = if i == k { 1.4 * x[i] } else { 0.0 };
                    assert_close(j[i][k], e, 1e-12, "scaled jacobian");
                }
            }
            let (_, g) = scaled_vjp(&x, 0.7, vec![1.0, 2.0, 3.0]);
            assert_all_close(
                &g,
                &[1.4 * x[0], 2.8 * x[1], 4.2 * x[2]],
                1e-12,
                "scaled vjp",
            );
        }
    }

    #[test]
    fn recursion_returning_arrays() {
        for p in points(3984, 3, 10, -1.5, 1.5) {
            let flat = |(v, t): ([f64; 2], f64)| vec![v[0], v[1], t];
            check2(
                "rot_energy",
                &p,
                |p| rot_energy([p[0], p[1]], p[2]),
                |p| {
                    let (v, g) = rot_energy_grad([p[0], p[1]], p[2]);
                    (v, flat(g))
                },
                |p| {
                    let (v, g, h) = rot_energy_hessian([p[0], p[1]], p[2]);
                    (v, flat(g), h)
                },
            );
            // Three rotations by t: one by 3t.
            let w = rot([p[0], p[1]], p[2], 3);
            let a = 3.0 * p[2];
            assert_all_close(
                &w,
                &[
                    a.cos() * p[0] - a.sin() * p[1],
                    a.sin() * p[0] + a.cos() * p[1],
                ],
                1e-12,
                "rot by 3t",
            );
            let j = rot_jacobian([p[0], p[1]], p[2], 3);
            let jf = fd_jacobian(|q| rot([q[0], q[1]], q[2], 3).to_vec(), &p);
            for i in 0..2 {
                assert_all_close(&j[i], &jf[i], 1e-8, "rot jacobian");
            }
        }
    }

    #[test]
    fn closure_over_a_changing_local_and_early_return() {
        for p in points(3985, 5, 10, -1.0, 1.0) {
            check2(
                "closure_loop",
                &p,
                |p| closure_loop(&p[..4], p[4]),
                |p| {
                    let (v, (g, a)) = closure_loop_grad(&p[..4], p[4]);
                    (v, [g, vec![a]].concat())
                },
                |p| {
                    let (v, (g, a), h) = closure_loop_hessian(&p[..4], p[4]);
                    (v, [g, vec![a]].concat(), h)
                },
            );
        }
        for p in points(3986, 4, 20, -1.5, 1.5) {
            // Away from the switch s = 2.
            let mut s = 0.0;
            if p.iter().any(|v| {
                s += v * v;
                (s - 2.0).abs() < 1e-3
            }) {
                continue;
            }
            check2(
                "until",
                &p,
                |p| until(p, &mut [0.0; 4]),
                |p| until_grad(p, &mut [0.0; 4]),
                |p| until_hessian(p, &mut [0.0; 4]),
            );
        }
    }

    #[test]
    fn integer_exponent_field_at_order_3() {
        for p in points(3987, 2, 10, 0.2, 1.5) {
            let one = One { k: p[0], n: 4 };
            let x = p[1];
            let (v, g, h) = one.pw_hessian(x);
            assert_eq!(v, one.pw(x));
            assert_close(v, (p[0] * x).powi(4) + p[0].exp(), 1e-12, "pw value");
            assert_close(
                g.k,
                4.0 * p[0].powi(3) * x.powi(4) + p[0].exp(),
                1e-12,
                "pw first",
            );
            assert_close(
                h[0][0],
                12.0 * p[0].powi(2) * x.powi(4) + p[0].exp(),
                1e-12,
                "pw second",
            );
            // The third derivative by differences of the Hessian (a struct is no scalar: no
            // `_derivatives`).
            let third = fd1(|k| One { k, n: 4 }.pw_hessian(x).2[0][0], p[0]);
            assert_close(
                third,
                24.0 * p[0] * x.powi(4) + p[0].exp(),
                1e-6,
                "pw third",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// A `#[no_grad]` integer field of an active struct passed on to a call (`helper(x, p.n)`): the macro
// cannot see the field's type, and took it for a float whose derivative it asked the callee for (rustc's
// E0308 at the callee's gradient tuple, which has no slot for a `usize`). Where the body also uses the
// field as an integer (a `for` range's bound, an index, a `let n: usize = p.n;`, a comparison with an
// integer literal), it is an integer, a constant, at every order.

mod integer_fields {
    use super::*;
    use autodiff::{differentiable, Differentiable};

    /// A chain of `n` identical links.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Links {
        pub g: f64,
        #[no_grad]
        pub n: usize,
    }

    /// `n` links of length `x` scaled by `n`: `x n` (first order only).
    #[differentiable]
    pub fn repeated(x: f64, n: usize) -> f64 {
        x * n as f64
    }

    /// The field named again under an integer type, then passed on.
    #[differentiable(wrt(p), order = 2)]
    pub fn annotated(p: &Links, x: f64) -> f64 {
        let n: usize = p.n;
        repeated(p.g * x, n) * p.g
    }

    /// The field a loop's bound and passed on.
    #[differentiable(order = 2)]
    pub fn looped(p: &Links, x: f64) -> f64 {
        let mut s = 0.0;
        for _ in 0..p.n {
            s += x * p.g;
        }
        repeated(s, p.n) * x
    }

    /// A pendulum whose period series has `terms` terms.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Swing {
        pub l: f64,
        #[no_grad]
        pub terms: usize,
    }

    /// The amplitude correction of the period to `terms` terms.
    #[differentiable]
    pub fn correction(theta: f64, terms: usize) -> f64 {
        let mut s = 1.0;
        if terms > 1 {
            s += theta * theta / 16.0;
        }
        if terms > 2 {
            s += 11.0 * theta.powi(4) / 3072.0;
        }
        s
    }

    impl Swing {
        /// The field compared with an integer literal, then passed on.
        #[differentiable(wrt(self, theta), order = 2)]
        pub fn period(&self, theta: f64) -> f64 {
            let base = 2.0 * std::f64::consts::PI * (self.l / 9.81).sqrt();
            if self.terms > 0 {
                base * correction(theta, self.terms)
            } else {
                base
            }
        }
    }

    #[test]
    fn an_integer_field_passed_on_to_a_call() {
        for q in points(3991, 2, 10, 0.2, 1.5) {
            let (g, x) = (q[0], q[1]);
            for n in [1usize, 3] {
                let nf = n as f64;
                // annotated = n g² x.
                let p = Links { g, n };
                let h = check2(
                    "annotated",
                    &[g],
                    |w| annotated(&Links { g: w[0], n }, x),
                    |w| {
                        let (v, gr) = annotated_grad(&Links { g: w[0], n }, x);
                        assert_eq!(gr.n, n, "the no_grad field copied");
                        (v, vec![gr.g])
                    },
                    |w| {
                        let (v, gr, h) = annotated_hessian(&Links { g: w[0], n }, x);
                        (v, vec![gr.g], h)
                    },
                );
                assert_close(annotated(&p, x), nf * g * g * x, 1e-12, "annotated value");
                assert_close(h[0][0], 2.0 * nf * x, 1e-12, "annotated second");
                // looped = n² g x².
                let h = check2(
                    "looped",
                    &[g, x],
                    |w| looped(&Links { g: w[0], n }, w[1]),
                    |w| {
                        let (v, (gr, gx)) = looped_grad(&Links { g: w[0], n }, w[1]);
                        (v, vec![gr.g, gx])
                    },
                    |w| {
                        let (v, (gr, gx), h) = looped_hessian(&Links { g: w[0], n }, w[1]);
                        (v, vec![gr.g, gx], h)
                    },
                );
                let n2 = nf * nf;
                assert_close(looped(&p, x), n2 * g * x * x, 1e-12, "looped value");
                let by_hand = [[0.0, 2.0 * n2 * x], [2.0 * n2 * x, 2.0 * n2 * g]];
                for i in 0..2 {
                    assert_all_close(&h[i], &by_hand[i], 1e-12, "looped by hand");
                }
            }
            for terms in 0..4 {
                let flat = |(s, t): (Swing, f64)| vec![s.l, t];
                check2(
                    "period",
                    &[g, x],
                    |w| Swing { l: w[0], terms }.period(w[1]),
                    |w| {
                        let (v, gr) = Swing { l: w[0], terms }.period_grad(w[1]);
                        (v, flat(gr))
                    },
                    |w| {
                        let (v, gr, h) = Swing { l: w[0], terms }.period_hessian(w[1]);
                        (v, flat(gr), h)
                    },
                );
                let series = match terms {
                    0 | 1 => 1.0,
                    2 => 1.0 + x * x / 16.0,
                    _ => 1.0 + x * x / 16.0 + 11.0 * x.powi(4) / 3072.0,
                };
                let value = 2.0 * std::f64::consts::PI * (g / 9.81).sqrt() * series;
                assert_close(
                    Swing { l: g, terms }.period(x),
                    value,
                    1e-12,
                    "period value",
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// A method whose output parameter is read before it is written, with `self` active, at `order = 2`
// (also `_grad_into`), and a generic function's `_grad` run on dual numbers against its `_hessian`.

mod state_and_duals {
    use super::*;
    use autodiff::{differentiable, Differentiable, Dual, Float};

    /// Exponential decay towards a forcing, parameters in a struct.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Decay {
        pub rate: f64,
        pub w: [f64; 2],
    }

    impl Decay {
        /// One step of the state, read and overwritten in place; the product of its components.
        #[differentiable(wrt(self, state), order = 2)]
        pub fn step(&self, state: &mut [f64], dt: f64) -> f64 {
            for i in 0..2 {
                state[i] = state[i] * (-self.rate * dt).exp() + self.w[i] * dt;
            }
            state[0] * state[1]
        }
    }

    #[test]
    fn a_method_stepping_its_state_in_place() {
        let dt = 0.4;
        let split = |p: &[f64]| {
            (
                Decay {
                    rate: p[0],
                    w: [p[1], p[2]],
                },
                [p[3], p[4]],
            )
        };
        let flat = |(d, s): (Decay, Vec<f64>)| [d.to_flat(), s].concat();
        for p in points(3995, 5, 10, -1.0, 1.0) {
            check2(
                "step",
                &p,
                |p| {
                    let (d, mut s) = split(p);
                    d.step(&mut s, dt)
                },
                |p| {
                    let (d, mut s) = split(p);
                    let (v, g) = d.step_grad(&mut s, dt);
                    (v, flat(g))
                },
                |p| {
                    let (d, mut s) = split(p);
                    let (v, g, h) = d.step_hessian(&mut s, dt);
                    let (_, mut once) = split(p);
                    d.step(&mut once, dt);
                    assert_eq!(s, once, "the state stepped once");
                    (v, flat(g), h)
                },
            );
            let (d, mut s) = split(&p);
            let mut gd = Decay {
                rate: f64::NAN,
                w: [f64::NAN; 2],
            };
            let mut gs = [f64::NAN; 2];
            let v = d.step_grad_into(&mut s, dt, (&mut gd, &mut gs));
            let (d, mut s) = split(&p);
            let (v2, g) = d.step_grad(&mut s, dt);
            assert_eq!((v, flat((gd, gs.to_vec()))), (v2, flat(g)), "grad_into");
        }
    }

    /// A generic energy.
    #[differentiable(order = 2)]
    pub fn wiggle<T: Float>(x: &[T], k: T) -> T {
        let mut s = T::zero();
        for i in 0..x.len() {
            s = s + k * x[i].powi(2) * x[i].cos();
        }
        s
    }

    #[test]
    fn a_generic_gradient_on_dual_numbers_is_the_hessian_product() {
        for p in points(3996, 7, 10, -1.5, 1.5) {
            let (x, v, k) = (&p[..3], &p[3..6], p[6]);
            let duals: Vec<Dual<f64>> = x.iter().zip(v).map(|(&a, &b)| Dual::new(a, b)).collect();
            let (_, (g, _)) = wiggle_grad(&duals, Dual::new(k, 0.0));
            let (_, gx, h) = wiggle_hessian(x, k);
            let hv: Vec<f64> = times(&h, &[v.to_vec(), vec![0.0]].concat());
            let re: Vec<f64> = g.iter().map(|d| d.re).collect();
            let eps: Vec<f64> = g.iter().map(|d| d.eps).collect();
            assert_all_close(&re, &gx.0, 1e-14, "dual gradient's values");
            assert_all_close(&eps, &hv[..3], 1e-12, "dual gradient's tangents");
        }
    }
}
