//! A probe of `API.md` as a new user writes against it, aimed at what earlier probes (`probe_api17.rs`,
//! `probe_api21.rs`, `probe_methods15.rs`, `probe_higher16.rs`) touched least: generic and nested
//! `Differentiable` structs, structs taken by value, methods with output parameters and `wrt(self, ..)`,
//! `f_jacobian` over struct and matrix inputs, output parameters of every buffer type at `order = 2`,
//! tuple and `&f64` parameters, `f32` Hessians, `order = 3` on several shapes, and custom and registered
//! gradients at second order compared with what `jax.hessian` gives for a `jax.custom_vjp` function.
//!
//! Every gradient is checked against central differences or a derivative worked out by hand at seeded
//! points (`common::probe`); every Hessian against central differences of the generated `_grad`. The
//! signatures API.md gives are pinned by type annotations.

#![allow(
    dead_code,
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::ptr_arg,
    clippy::excessive_precision,
    clippy::assign_op_pattern
)]

mod common;

use autodiff::{check_gradient, check_gradient_of, Differentiable, Dual};
use common::probe::{assert_near, assert_vec_near, dot, fd1, fd_columns, fd_gradient, Lcg};

/// Compares a gradient with central differences of `f` at `x`.
#[track_caller]
fn fd_check(what: &str, f: &dyn Fn(&[f64]) -> f64, x: &[f64], grad: &[f64]) {
    let fd = fd_gradient(f, x);
    assert_vec_near(grad, &fd, 1e-6, what);
}

/// Compares a Hessian with central differences of the gradient `g` at `x`.
#[track_caller]
fn hess_check(what: &str, g: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], h: &[Vec<f64>]) {
    let cols = fd_columns(g, x);
    assert_eq!(h.len(), x.len(), "{what}: rows");
    let scale = h
        .iter()
        .flat_map(|r| r.iter())
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    for i in 0..x.len() {
        assert_eq!(h[i].len(), x.len(), "{what}: columns");
        for j in 0..x.len() {
            assert_near(
                h[i][j],
                cols[j][i],
                1e-5,
                scale,
                &format!("{what}[{i}][{j}]"),
            );
        }
    }
}

/// Compares a Jacobian (rows are outputs) with central differences of `f` at `x`.
#[track_caller]
fn jac_check(what: &str, f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], jac: &[Vec<f64>]) {
    let cols = fd_columns(f, x);
    let m = cols[0].len();
    assert_eq!(jac.len(), m, "{what}: rows");
    for i in 0..m {
        assert_eq!(jac[i].len(), x.len(), "{what}: columns of row {i}");
        for j in 0..x.len() {
            assert_near(
                jac[i][j],
                cols[j][i],
                1e-6,
                1.0,
                &format!("{what}[{i}][{j}]"),
            );
        }
    }
}

fn mat_vec(h: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    h.iter().map(|r| dot(r, v)).collect()
}

// ---- generic and nested Differentiable structs, methods with wrt(self, ..) ----

mod structs {
    use autodiff::{differentiable, Differentiable, Float};

    /// A generic parameter struct: fields of `T`, `Vec<T>` and `[T; 2]`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Quad<T> {
        pub a: T,
        pub c: Vec<T>,
        pub shift: [T; 2],
        #[no_grad]
        pub tag: u32,
    }

    impl<T: Float> Quad<T> {
        /// `a x² + Σ c_k sin(k x) + shift0 shift1 x`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn eval(&self, x: T) -> T {
            let mut s = self.a * x * x;
            for k in 0..self.c.len() {
                let kk = T::from(k + 1).unwrap();
                s = s + self.c[k] * (kk * x).sin();
            }
            s + self.shift[0] * self.shift[1] * x
        }

        /// `self` constant: a function of one scalar, to the third derivative.
        #[differentiable(order = 3)]
        pub fn along(&self, x: T) -> T {
            (self.a * x * x + self.shift[0] * self.shift[1] * x) * x.cos()
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Layer {
        pub w: Vec<f64>,
        pub b: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Net {
        pub first: Layer,
        pub second: Layer,
        pub gain: [f64; 2],
        #[no_grad]
        pub data: Vec<usize>,
    }

    /// A struct taken by value, declared `mut` and written by the body.
    #[differentiable(order = 2)]
    pub fn by_value(mut n: Net, x: &[f64]) -> f64 {
        n.gain[0] = n.gain[0] * n.gain[1];
        let mut h = n.first.b;
        for i in 0..x.len() {
            h += n.first.w[i] * x[i];
        }
        let h = h.tanh();
        let mut o = n.second.b;
        for i in 0..n.second.w.len() {
            o += n.second.w[i] * h.powi(i as i32 + 1);
        }
        n.gain[0] * o * o + n.second.b
    }

    /// A struct by value whose scalar field the body writes, compounded too.
    #[differentiable(order = 2)]
    pub fn scalar_written(mut l: Layer, x: f64) -> f64 {
        l.b = l.b * x;
        l.b += l.w[0];
        l.w[1] *= l.b;
        l.b * l.w[1]
    }

    /// Only the struct is active; the body passes it to another differentiable function.
    #[differentiable(wrt(n), order = 2)]
    pub fn passed_on(n: &Net, x: &[f64]) -> f64 {
        by_ref(n, x).sqrt() + layer_energy(&n.first)
    }

    #[differentiable(order = 2)]
    pub fn by_ref(n: &Net, x: &[f64]) -> f64 {
        let mut h = n.first.b;
        for i in 0..x.len() {
            h += n.first.w[i] * x[i];
        }
        n.gain[0] * h.exp() + n.second.w[1] * n.second.w[1] * n.second.b
    }

    #[differentiable(order = 2)]
    pub fn layer_energy(l: &Layer) -> f64 {
        let mut s = l.b * l.b;
        for &v in l.w.iter() {
            s += v.powi(4);
        }
        s
    }

    impl Net {
        /// A method differentiated in `self` and in an input, by `wrt(self, x)`.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn score(&self, x: &[f64]) -> f64 {
            let mut h = self.first.b;
            for i in 0..x.len() {
                h += self.first.w[i] * x[i];
            }
            self.gain[0] * h.sin() + self.gain[1] * self.second.b * h
        }

        /// `self` constant (the default): only `x` gets a gradient.
        #[differentiable(order = 2)]
        pub fn score_x(&self, x: &[f64]) -> f64 {
            self.score(x) * x[0]
        }

        /// A method with a vector result in `self`: its Jacobian's columns are `self` flattened.
        #[differentiable(wrt(self))]
        pub fn features(&self, t: f64) -> Vec<f64> {
            let mut out = vec![0.0; self.first.w.len()];
            for i in 0..out.len() {
                out[i] = self.first.w[i] * t + self.gain[1] * self.second.b;
            }
            out
        }

        /// An associated function of a constant struct (`wrt(x)`), at second order.
        #[differentiable(order = 2, wrt(x))]
        pub fn along_layer(l: &Layer, x: f64) -> f64 {
            (l.b * x).sin() + l.w[0] * x * x * x
        }

        /// An associated function over two structs.
        #[differentiable(order = 2)]
        pub fn distance(a: &Layer, b: &Layer) -> f64 {
            let mut s = (a.b - b.b).powi(2);
            for i in 0..a.w.len() {
                s += (a.w[i] - b.w[i]).powi(2);
            }
            s.sqrt()
        }
    }
}

fn random_net(rng: &mut Lcg) -> structs::Net {
    structs::Net {
        first: structs::Layer {
            w: rng.vec(3, -1.0, 1.0),
            b: rng.uniform(-0.5, 0.5),
        },
        second: structs::Layer {
            w: rng.vec(2, -1.0, 1.0),
            b: rng.uniform(0.5, 1.0),
        },
        gain: [rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5)],
        data: vec![1, 2],
    }
}

#[test]
fn generic_struct_method_wrt_self_and_input_at_second_and_third_order() {
    use structs::Quad;
    let mut rng = Lcg::new(2201);
    for _ in 0..10 {
        let q = Quad {
            a: rng.uniform(-1.0, 1.0),
            c: rng.vec(3, -1.0, 1.0),
            shift: [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
            tag: 7,
        };
        let x = rng.uniform(-2.0, 2.0);
        let (v, (gq, gx)): (f64, (Quad<f64>, f64)) = q.eval_grad(x);
        assert_eq!(v, q.eval(x));
        assert_eq!(gq.tag, 7);
        // By hand.
        assert_near(gq.a, x * x, 1e-12, 1.0, "quad a");
        for k in 0..3 {
            let kk = (k + 1) as f64;
            assert_near(gq.c[k], (kk * x).sin(), 1e-12, 1.0, "quad c");
        }
        assert_near(gq.shift[0], q.shift[1] * x, 1e-12, 1.0, "quad shift0");
        let mut dx = 2.0 * q.a * x + q.shift[0] * q.shift[1];
        for k in 0..3 {
            let kk = (k + 1) as f64;
            dx += q.c[k] * kk * (kk * x).cos();
        }
        assert_near(gx, dx, 1e-12, 1.0, "quad x");

        let flat_q = q.to_flat();
        assert_eq!(flat_q.len(), 6);
        let z = [flat_q.clone(), vec![x]].concat();
        let (_, _, h): (f64, (Quad<f64>, f64), Vec<Vec<f64>>) = q.eval_hessian(x);
        hess_check(
            "quad h",
            &|z| {
                let (_, (a, b)) = q.from_flat(&z[..6]).eval_grad(z[6]);
                [a.to_flat(), vec![b]].concat()
            },
            &z,
            &h,
        );
        let mut dir = q.zero_like();
        dir.c[1] = 1.0;
        dir.shift[0] = -0.5;
        let (_, _, (hq, hx)): (f64, (Quad<f64>, f64), (Quad<f64>, f64)) =
            q.eval_hvp(x, (dir.clone(), 0.25));
        let dv = [dir.to_flat(), vec![0.25]].concat();
        let e = mat_vec(&h, &dv);
        assert_vec_near(&[hq.to_flat(), vec![hx]].concat(), &e, 1e-10, "quad hvp");

        // The same generic method on f32 fields.
        let q32 = Quad {
            a: q.a as f32,
            c: q.c.iter().map(|&c| c as f32).collect(),
            shift: [q.shift[0] as f32, q.shift[1] as f32],
            tag: 1,
        };
        let (_, (g32, gx32)): (f32, (Quad<f32>, f32)) = q32.eval_grad(x as f32);
        assert_near(g32.a as f64, gq.a, 1e-5, 1.0, "quad f32 a");
        assert_near(gx32 as f64, gx, 1e-4, 1.0, "quad f32 x");

        // `self` constant, three derivatives in x.
        let d: [f64; 4] = q.along_derivatives(x);
        assert_near(d[0], q.along(x), 1e-14, 1.0, "along");
        assert_near(d[1], fd1(&|t| q.along(t), x, 1e-6), 1e-8, 1.0, "along'");
        assert_near(
            d[2],
            fd1(&|t| q.along_derivatives(t)[1], x, 1e-6),
            1e-7,
            1.0,
            "along''",
        );
        assert_near(
            d[3],
            fd1(&|t| q.along_derivatives(t)[2], x, 1e-6),
            1e-6,
            1.0,
            "along'''",
        );
        let (_, g1): (f64, f64) = q.along_grad(x);
        assert_near(g1, d[1], 1e-12, 1.0, "along grad");
    }
}

#[test]
fn nested_structs_by_value_passed_on_and_associated() {
    use structs::{Layer, Net};
    let mut rng = Lcg::new(2202);
    for _ in 0..8 {
        let n = random_net(&mut rng);
        let x = rng.vec(3, -1.0, 1.0);
        let flat_n = n.to_flat();
        assert_eq!(flat_n.len(), 3 + 1 + 2 + 1 + 2);

        // A struct by value beside a slice: G = (Net, Vec<f64>).
        let (v, (gn, gx)): (f64, (Net, Vec<f64>)) = structs::by_value_grad(n.clone(), &x);
        assert_eq!(v, structs::by_value(n.clone(), &x));
        assert_eq!(gn.data, n.data);
        let z = [flat_n.clone(), x.clone()].concat();
        let f = |z: &[f64]| structs::by_value(n.from_flat(&z[..9]), &z[9..]);
        fd_check("by_value", &f, &z, &[gn.to_flat(), gx.clone()].concat());
        let (_, _, h) = structs::by_value_hessian(n.clone(), &x);
        hess_check(
            "by_value h",
            &|z| {
                let (_, (a, b)) = structs::by_value_grad(n.from_flat(&z[..9]), &z[9..]);
                [a.to_flat(), b].concat()
            },
            &z,
            &h,
        );

        let mut m = n.clone();
        m.second.b = 2.0;
        m.gain = [1.0, 1.0];
        let (v, g): (f64, Net) = structs::passed_on_grad(&m, &x);
        assert_eq!(v, structs::passed_on(&m, &x));
        let check = check_gradient_of(|p: &Net| structs::passed_on(p, &x), &m, &g);
        assert!(check.is_ok(1e-6), "passed_on: {check:?}");
        let (_, _, h): (f64, Net, Vec<Vec<f64>>) = structs::passed_on_hessian(&m, &x);
        hess_check(
            "passed_on h",
            &|z| structs::passed_on_grad(&m.from_flat(z), &x).1.to_flat(),
            &m.to_flat(),
            &h,
        );

        // Methods: wrt(self, x), and self constant.
        let (v, (gs, gx)): (f64, (Net, Vec<f64>)) = n.score_grad(&x);
        assert_eq!(v, n.score(&x));
        let mut hsum = n.first.b;
        for i in 0..3 {
            hsum += n.first.w[i] * x[i];
        }
        assert_near(gs.gain[0], hsum.sin(), 1e-12, 1.0, "score gain0");
        assert_near(gs.second.b, n.gain[1] * hsum, 1e-12, 1.0, "score second.b");
        assert_eq!(gs.second.w, vec![0.0, 0.0]);
        let dh = n.gain[0] * hsum.cos() + n.gain[1] * n.second.b;
        for i in 0..3 {
            assert_near(gs.first.w[i], dh * x[i], 1e-12, 1.0, "score w");
            assert_near(gx[i], dh * n.first.w[i], 1e-12, 1.0, "score x");
        }
        let (_, _, h) = n.score_hessian(&x);
        assert_eq!(h.len(), 12);
        hess_check(
            "score h",
            &|z| {
                let (_, (a, b)) = n.from_flat(&z[..9]).score_grad(&z[9..]);
                [a.to_flat(), b].concat()
            },
            &z,
            &h,
        );
        let mut gsi = n.from_flat(&[f64::NAN; 9]);
        let mut gxi = vec![f64::NAN; 3];
        let vi: f64 = n.score_grad_into(&x, (&mut gsi, &mut gxi));
        assert_eq!(vi, v);
        assert_eq!(gsi.to_flat(), gs.to_flat());
        assert_eq!(gxi, gx);

        let (_, g): (f64, Vec<f64>) = n.score_x_grad(&x);
        fd_check("score_x", &|z| n.score_x(z), &x, &g);
        let (_, _, h) = n.score_x_hessian(&x);
        hess_check("score_x h", &|z| n.score_x_grad(z).1, &x, &h);
        let (_, _, hv): (f64, Vec<f64>, Vec<f64>) = n.score_x_hvp(&x, vec![0.0, 1.0, -1.0]);
        assert_vec_near(&hv, &mat_vec(&h, &[0.0, 1.0, -1.0]), 1e-12, "score_x hvp");

        // The Jacobian of a vector-valued method in self.
        let t = rng.uniform(-1.0, 1.0);
        let jac: Vec<Vec<f64>> = n.features_jacobian(t);
        jac_check("features", &|z| n.from_flat(z).features(t), &flat_n, &jac);
        let w = rng.vec(3, -1.0, 1.0);
        let (y, gv): (Vec<f64>, Net) = n.features_vjp(t, w.clone());
        assert_eq!(y, n.features(t));
        let e: Vec<f64> = (0..9)
            .map(|j| (0..3).map(|i| w[i] * jac[i][j]).sum())
            .collect();
        assert_vec_near(&gv.to_flat(), &e, 1e-12, "features vjp");
        let mut dir = n.zero_like();
        dir.gain[1] = 1.0;
        dir.first.w[2] = 2.0;
        let (_, tan): (Vec<f64>, Vec<f64>) = n.features_jvp(t, dir.clone());
        assert_vec_near(&tan, &mat_vec(&jac, &dir.to_flat()), 1e-12, "features jvp");

        // An associated function of a constant struct: x alone, to the second derivative.
        let t2 = rng.uniform(-1.0, 1.0);
        let l = &n.first;
        let (_, g): (f64, f64) = Net::along_layer_grad(l, t2);
        assert_near(
            g,
            l.b * (l.b * t2).cos() + 3.0 * l.w[0] * t2 * t2,
            1e-12,
            1.0,
            "along_layer'",
        );
        let (_, _, h) = Net::along_layer_hessian(l, t2);
        let e = -l.b * l.b * (l.b * t2).sin() + 6.0 * l.w[0] * t2;
        assert_near(h[0][0], e, 1e-12, 1.0, "along_layer''");
        let d: [f64; 3] = Net::along_layer_derivatives(l, t2);
        assert_near(d[2], e, 1e-12, 1.0, "along_layer derivatives");

        // A scalar field written: f = (b x + w0) · w1 (b x + w0) = w1 (b x + w0)².
        let (_, (gl, gt)): (f64, (Layer, f64)) = structs::scalar_written_grad(l.clone(), t2);
        let u = l.b * t2 + l.w[0];
        assert_eq!(structs::scalar_written(l.clone(), t2), l.w[1] * u * u);
        assert_near(gl.b, 2.0 * l.w[1] * u * t2, 1e-12, 1.0, "scalar_written b");
        assert_near(gl.w[0], 2.0 * l.w[1] * u, 1e-12, 1.0, "scalar_written w0");
        assert_near(gl.w[1], u * u, 1e-12, 1.0, "scalar_written w1");
        assert_eq!(gl.w[2], 0.0);
        assert_near(gt, 2.0 * l.w[1] * u * l.b, 1e-12, 1.0, "scalar_written x");
        let zl = [l.to_flat(), vec![t2]].concat();
        let (_, _, h) = structs::scalar_written_hessian(l.clone(), t2);
        hess_check(
            "scalar_written h",
            &|z| {
                let (_, (a, b)) = structs::scalar_written_grad(l.from_flat(&z[..4]), z[4]);
                [a.to_flat(), vec![b]].concat()
            },
            &zl,
            &h,
        );

        // An associated function over two structs.
        let a = n.first.clone();
        let b = Layer {
            w: rng.vec(3, -1.0, 1.0),
            b: 0.3,
        };
        let (_, (ga, gb)): (f64, (Layer, Layer)) = Net::distance_grad(&a, &b);
        let d = Net::distance(&a, &b);
        assert_near(ga.b, (a.b - b.b) / d, 1e-12, 1.0, "distance a.b");
        assert_near(gb.w[1], -(a.w[1] - b.w[1]) / d, 1e-12, 1.0, "distance b.w");
        let (_, _, h) = Net::distance_hessian(&a, &b);
        let z = [a.to_flat(), b.to_flat()].concat();
        hess_check(
            "distance h",
            &|z| {
                let (_, (p, q)) = Net::distance_grad(&a.from_flat(&z[..4]), &b.from_flat(&z[4..]));
                [p.to_flat(), q.to_flat()].concat()
            },
            &z,
            &h,
        );
    }
}

// ---- output parameters of every buffer type, at second order, in methods ----

mod outs {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Ode {
        pub k: [f64; 2],
        pub damping: f64,
    }

    impl Ode {
        /// A method writing an ODE right-hand side; `self` constant.
        #[differentiable(order = 2)]
        pub fn rhs(&self, y: &[f64], dydt: &mut [f64]) -> f64 {
            dydt[0] = y[1];
            dydt[1] = -self.k[0] * y[0] - self.damping * y[1] + self.k[1] * y[0].powi(3);
            0.5 * (y[0] * y[0] + y[1] * y[1])
        }

        /// The same in `self` and `y`, returning `()`.
        #[differentiable(wrt(self, y))]
        pub fn rhs_unit(&self, y: &[f64], dydt: &mut [f64]) {
            dydt[0] = y[1] * self.damping;
            dydt[1] = -self.k[0] * y[0].sin() + self.k[1] * y[1];
        }

        /// An associated function with a `&mut Vec<f64>` output.
        #[differentiable]
        pub fn fill(a: f64, xs: &[f64], out: &mut Vec<f64>) {
            for i in 0..xs.len() {
                out[i] = a * xs[i].exp();
            }
        }
    }

    /// An array output beside a float result, at second order.
    #[differentiable(order = 2)]
    pub fn to_array(x: [f64; 2], w: f64, out: &mut [f64; 3]) -> f64 {
        out[0] = x[0] * w;
        out[1] = x[1].sin();
        out[2] = x[0] * x[1];
        out[0] * out[0] + out[1] * out[2]
    }

    /// A scalar output beside a float result.
    #[differentiable(order = 2)]
    pub fn to_scalar(x: f64, y: f64, out: &mut f64) -> f64 {
        *out = x * y;
        (*out).exp() + x
    }

    /// An output read before it is written: its incoming value is an input (order 2).
    #[differentiable(order = 2)]
    pub fn relax(x: &[f64], state: &mut [f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            state[i] = 0.5 * state[i] + x[i].tanh();
            s += state[i] * state[i];
        }
        s
    }
}

#[test]
fn output_parameters_in_methods_arrays_scalars_and_vecs() {
    use outs::Ode;
    let mut rng = Lcg::new(2203);
    for _ in 0..8 {
        let ode = Ode {
            k: [rng.uniform(0.5, 2.0), rng.uniform(-0.5, 0.5)],
            damping: rng.uniform(0.1, 0.5),
        };
        let y = rng.vec(2, -1.0, 1.0);

        // f_grad with an output: the gradient of the returned float alone.
        let mut dydt = vec![f64::NAN; 2];
        let (v, g): (f64, Vec<f64>) = ode.rhs_grad(&y, &mut dydt);
        assert_eq!(v, 0.5 * (y[0] * y[0] + y[1] * y[1]));
        assert_vec_near(&g, &y, 1e-14, "rhs grad");
        let mut plain = vec![0.0; 2];
        ode.rhs(&y, &mut plain);
        assert_eq!(dydt, plain);
        // f_vjp: the outputs' cotangent after d_ret.
        let d_out = rng.vec(2, -1.0, 1.0);
        let (v2, g2): (f64, Vec<f64>) = ode.rhs_vjp(&y, &mut dydt, 0.5, &d_out);
        assert_eq!(v2, v);
        let j = [
            [0.0, 1.0],
            [-ode.k[0] + 3.0 * ode.k[1] * y[0] * y[0], -ode.damping],
        ];
        for c in 0..2 {
            let e = 0.5 * y[c] + d_out[0] * j[0][c] + d_out[1] * j[1][c];
            assert_near(g2[c], e, 1e-12, 1.0, "rhs vjp");
        }
        // f_jvp: the outputs' tangents written after the tangent.
        let t = rng.vec(2, -1.0, 1.0);
        let mut d_dydt = vec![f64::NAN; 2];
        let (v3, dv): (f64, f64) = ode.rhs_jvp(&y, &mut dydt, t.clone(), &mut d_dydt);
        assert_eq!(v3, v);
        assert_near(dv, dot(&y, &t), 1e-12, 1.0, "rhs jvp");
        for r in 0..2 {
            assert_near(d_dydt[r], dot(&j[r], &t), 1e-12, 1.0, "rhs jvp out");
        }
        // Second order of the float result.
        let (_, _, h) = ode.rhs_hessian(&y, &mut dydt);
        assert_vec_near(&h[0], &[1.0, 0.0], 1e-12, "rhs h");
        assert_vec_near(&h[1], &[0.0, 1.0], 1e-12, "rhs h");

        // wrt(self, y) with `()` result: f_vjp -> G, f_jvp -> (), f_jacobian over (self, y).
        let z = [ode.to_flat(), y.clone()].concat();
        let f = |z: &[f64]| {
            let mut o = vec![0.0; 2];
            ode.from_flat(&z[..3]).rhs_unit(&z[3..], &mut o);
            o
        };
        let mut o = vec![f64::NAN; 2];
        let jac: Vec<Vec<f64>> = ode.rhs_unit_jacobian(&y, &mut o);
        jac_check("rhs_unit", &f, &z, &jac);
        let (gs, gy): (Ode, Vec<f64>) = ode.rhs_unit_vjp(&y, &mut o, &d_out);
        assert_eq!(o, f(&z));
        let e: Vec<f64> = (0..5)
            .map(|c| dot(&[jac[0][c], jac[1][c]], &d_out))
            .collect();
        assert_vec_near(&[gs.to_flat(), gy].concat(), &e, 1e-12, "rhs_unit vjp");
        let mut dir = ode.zero_like();
        dir.damping = 1.0;
        let mut d_o = vec![f64::NAN; 2];
        let () = ode.rhs_unit_jvp(&y, &mut o, (dir.clone(), t.clone()), &mut d_o);
        let tz = [dir.to_flat(), t.clone()].concat();
        assert_vec_near(&d_o, &mat_vec(&jac, &tz), 1e-12, "rhs_unit jvp");

        // An associated function writing a `&mut Vec<f64>`.
        let a = rng.uniform(-1.0, 1.0);
        let xs = rng.vec(3, -1.0, 1.0);
        let mut out = vec![f64::NAN; 3];
        let dv = rng.vec(3, -1.0, 1.0);
        let (ga, gxs): (f64, Vec<f64>) = Ode::fill_vjp(a, &xs, &mut out, &dv);
        for i in 0..3 {
            assert_near(out[i], a * xs[i].exp(), 1e-14, 1.0, "fill out");
            assert_near(gxs[i], dv[i] * a * xs[i].exp(), 1e-12, 1.0, "fill xs");
        }
        assert_near(
            ga,
            (0..3).map(|i| dv[i] * xs[i].exp()).sum::<f64>(),
            1e-12,
            1.0,
            "fill a",
        );
        let jac = Ode::fill_jacobian(a, &xs, &mut out);
        let z = [vec![a], xs.clone()].concat();
        jac_check(
            "fill",
            &|z| {
                let mut o = vec![0.0; 3];
                Ode::fill(z[0], &z[1..], &mut o);
                o
            },
            &z,
            &jac,
        );
        let mut d_out3 = vec![f64::NAN; 3];
        let () = Ode::fill_jvp(a, &xs, &mut out, (1.0, vec![0.0, 1.0, 0.0]), &mut d_out3);
        assert_vec_near(
            &d_out3,
            &[xs[0].exp(), xs[1].exp() * (1.0 + a), xs[2].exp()],
            1e-12,
            "fill jvp",
        );

        // An array output beside a float result, order 2.
        let x = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)];
        let w = rng.uniform(-1.0, 1.0);
        let mut arr = [f64::NAN; 3];
        let (v, (gx, gw)): (f64, ([f64; 2], f64)) = outs::to_array_grad(x, w, &mut arr);
        assert_eq!(arr, [x[0] * w, x[1].sin(), x[0] * x[1]]);
        let f = |z: &[f64]| outs::to_array([z[0], z[1]], z[2], &mut [0.0; 3]);
        fd_check("to_array", &f, &[x[0], x[1], w], &[gx[0], gx[1], gw]);
        assert_eq!(v, f(&[x[0], x[1], w]));
        let d3 = [0.3, -0.2, 0.9];
        let (_, (vx, vw)): (f64, ([f64; 2], f64)) = outs::to_array_vjp(x, w, &mut arr, 2.0, &d3);
        let fs = |z: &[f64]| {
            let mut o = [0.0; 3];
            let r = outs::to_array([z[0], z[1]], z[2], &mut o);
            2.0 * r + d3[0] * o[0] + d3[1] * o[1] + d3[2] * o[2]
        };
        fd_check("to_array vjp", &fs, &[x[0], x[1], w], &[vx[0], vx[1], vw]);
        let (_, _, h) = outs::to_array_hessian(x, w, &mut arr);
        hess_check(
            "to_array h",
            &|z| {
                let (_, (a, b)) = outs::to_array_grad([z[0], z[1]], z[2], &mut [0.0; 3]);
                vec![a[0], a[1], b]
            },
            &[x[0], x[1], w],
            &h,
        );
        let (_, _, hv): (f64, ([f64; 2], f64), ([f64; 2], f64)) =
            outs::to_array_hvp(x, w, &mut arr, ([0.0, 1.0], 1.0));
        let e = mat_vec(&h, &[0.0, 1.0, 1.0]);
        assert_vec_near(&[hv.0[0], hv.0[1], hv.1], &e, 1e-12, "to_array hvp");

        // A scalar output.
        let (p, q) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let mut o = f64::NAN;
        let (_, (gp, gq)): (f64, (f64, f64)) = outs::to_scalar_grad(p, q, &mut o);
        assert_eq!(o, p * q);
        assert_near(gp, q * (p * q).exp() + 1.0, 1e-12, 1.0, "to_scalar p");
        assert_near(gq, p * (p * q).exp(), 1e-12, 1.0, "to_scalar q");
        let (_, (vp, vq)): (f64, (f64, f64)) = outs::to_scalar_vjp(p, q, &mut o, 1.0, 3.0);
        assert_near(vp, gp + 3.0 * q, 1e-12, 1.0, "to_scalar vjp p");
        assert_near(vq, gq + 3.0 * p, 1e-12, 1.0, "to_scalar vjp q");
        let mut d_o = f64::NAN;
        let (_, dt): (f64, f64) = outs::to_scalar_jvp(p, q, &mut o, (1.0, 0.0), &mut d_o);
        assert_near(d_o, q, 1e-14, 1.0, "to_scalar jvp out");
        assert_near(dt, gp, 1e-12, 1.0, "to_scalar jvp");
        let (_, _, h) = outs::to_scalar_hessian(p, q, &mut o);
        let e = (p * q).exp();
        assert_near(h[0][0], q * q * e, 1e-12, 1.0, "to_scalar pp");
        assert_near(h[0][1], e + p * q * e, 1e-12, 1.0, "to_scalar pq");
        assert_near(h[1][1], p * p * e, 1e-12, 1.0, "to_scalar qq");

        // An output read first, at second order: G and the Hessian cover (x, state).
        let xv = rng.vec(3, -1.0, 1.0);
        let s0 = rng.vec(3, -1.0, 1.0);
        let mut st = s0.clone();
        let (v, (gx, gs)): (f64, (Vec<f64>, Vec<f64>)) = outs::relax_grad(&xv, &mut st);
        let f = |z: &[f64]| outs::relax(&z[..3], &mut z[3..].to_vec());
        let z = [xv.clone(), s0.clone()].concat();
        assert_eq!(v, f(&z));
        fd_check("relax", &f, &z, &[gx, gs].concat());
        let mut st = s0.clone();
        let (_, _, h) = outs::relax_hessian(&xv, &mut st);
        hess_check(
            "relax h",
            &|z| {
                let (_, (a, b)) = outs::relax_grad(&z[..3], &mut z[3..].to_vec());
                [a, b].concat()
            },
            &z,
            &h,
        );
    }
}

// ---- parameter kinds at second order: tuples, &f64, Vec by value, &Vec, matrices, f32 ----

mod kinds {
    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn tuple_param(p: (f64, f64), s: f64) -> f64 {
        let (a, b) = p;
        a * b.sin() + s * a * a
    }

    #[differentiable(order = 2)]
    pub fn by_ref(x: &f64, y: f64) -> f64 {
        *x * y.exp() + x.powi(3)
    }

    #[differentiable(order = 2)]
    pub fn owned(v: Vec<f64>, w: &Vec<f64>) -> f64 {
        let mut s = 0.0;
        for i in 0..v.len() {
            s += (v[i] * w[i]).cos();
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn matrix(m: Vec<Vec<f64>>, x: [f64; 2]) -> f64 {
        let mut s = 0.0;
        for i in 0..m.len() {
            let r = m[i][0] * x[0] + m[i][1] * x[1];
            s += r * r * r;
        }
        s
    }

    #[differentiable(order = 2)]
    pub fn nested(m: [[f64; 2]; 2]) -> f64 {
        (m[0][0] * m[1][1] - m[0][1] * m[1][0]).powi(2)
    }

    #[differentiable]
    pub fn rows(m: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; m.len()];
        for i in 0..m.len() {
            for j in 0..v.len() {
                out[i] += m[i][j] * v[j].sin();
            }
        }
        out
    }

    #[differentiable(order = 2)]
    pub fn single(x: f32, y: f32) -> f32 {
        (x * y).sin() + x.exp() * y
    }

    #[differentiable(order = 4)]
    pub fn legendre(x: f64, degree: usize) -> f64 {
        let mut p0 = 1.0;
        let mut p1 = x;
        if degree == 0 {
            return p0;
        }
        for n in 1..degree {
            let nf = n as f64;
            let p2 = ((2.0 * nf + 1.0) * x * p1 - nf * p0) / (nf + 1.0);
            p0 = p1;
            p1 = p2;
        }
        p1
    }

    #[differentiable(order = 3)]
    pub fn three_inputs(a: f64, b: &[f64]) -> f64 {
        a.exp() * (b[0] * b[1]).sin()
    }

    #[differentiable]
    pub fn returns_array(x: [f64; 2]) -> [f64; 3] {
        [x[0] * x[1], x[0].exp(), (x[1] * 2.0).sin()]
    }
}

#[test]
fn tuples_refs_owned_vecs_matrices_and_f32_at_second_order() {
    let mut rng = Lcg::new(2204);
    for _ in 0..8 {
        let (a, b, s) = (
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        );
        let (v, ((ga, gb), gs)): (f64, ((f64, f64), f64)) = kinds::tuple_param_grad((a, b), s);
        let _ = v;
        assert_near(ga, b.sin() + 2.0 * s * a, 1e-12, 1.0, "tuple a");
        assert_near(gb, a * b.cos(), 1e-12, 1.0, "tuple b");
        assert_near(gs, a * a, 1e-12, 1.0, "tuple s");
        let (_, _, h) = kinds::tuple_param_hessian((a, b), s);
        let e = [
            [2.0 * s, b.cos(), 2.0 * a],
            [b.cos(), -a * b.sin(), 0.0],
            [2.0 * a, 0.0, 0.0],
        ];
        for i in 0..3 {
            assert_vec_near(&h[i], &e[i], 1e-12, "tuple h");
        }
        let (_, _, hv): (f64, ((f64, f64), f64), ((f64, f64), f64)) =
            kinds::tuple_param_hvp((a, b), s, ((1.0, 0.0), 0.0));
        assert_near(hv.0 .0, e[0][0], 1e-12, 1.0, "tuple hvp");
        assert_near(hv.1, e[2][0], 1e-12, 1.0, "tuple hvp s");

        let (_, (gx, gy)): (f64, (f64, f64)) = kinds::by_ref_grad(&a, b);
        assert_near(gx, b.exp() + 3.0 * a * a, 1e-12, 1.0, "by_ref x");
        assert_near(gy, a * b.exp(), 1e-12, 1.0, "by_ref y");
        let (_, _, h) = kinds::by_ref_hessian(&a, b);
        assert_near(h[0][0], 6.0 * a, 1e-12, 1.0, "by_ref xx");
        assert_near(h[0][1], b.exp(), 1e-12, 1.0, "by_ref xy");
        assert_near(h[1][1], a * b.exp(), 1e-12, 1.0, "by_ref yy");

        let v = rng.vec(3, -1.0, 1.0);
        let w = rng.vec(3, -1.0, 1.0);
        let (_, (gv, gw)): (f64, (Vec<f64>, Vec<f64>)) = kinds::owned_grad(v.clone(), &w);
        for i in 0..3 {
            assert_near(gv[i], -w[i] * (v[i] * w[i]).sin(), 1e-12, 1.0, "owned v");
            assert_near(gw[i], -v[i] * (v[i] * w[i]).sin(), 1e-12, 1.0, "owned w");
        }
        let mut gvi = vec![f64::NAN; 3];
        let mut gwi = vec![f64::NAN; 3];
        let _: f64 = kinds::owned_grad_into(v.clone(), &w, (&mut gvi, &mut gwi));
        assert_eq!((gvi, gwi), (gv, gw));
        let (_, _, h) = kinds::owned_hessian(v.clone(), &w);
        let z = [v.clone(), w.clone()].concat();
        hess_check(
            "owned h",
            &|z| {
                let (_, (a, b)) = kinds::owned_grad(z[..3].to_vec(), &z[3..].to_vec());
                [a, b].concat()
            },
            &z,
            &h,
        );

        let m = vec![
            rng.vec(2, -1.0, 1.0),
            rng.vec(2, -1.0, 1.0),
            rng.vec(2, -1.0, 1.0),
        ];
        let x = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)];
        let (_, (gm, gx)): (f64, (Vec<Vec<f64>>, [f64; 2])) = kinds::matrix_grad(m.clone(), x);
        let flat_m: Vec<f64> = m.iter().flatten().copied().collect();
        let z = [flat_m.clone(), x.to_vec()].concat();
        let unflat = |z: &[f64]| {
            (0..3)
                .map(|i| z[2 * i..2 * i + 2].to_vec())
                .collect::<Vec<_>>()
        };
        let f = |z: &[f64]| kinds::matrix(unflat(z), [z[6], z[7]]);
        let gflat = [
            gm.iter().flatten().copied().collect::<Vec<_>>(),
            gx.to_vec(),
        ]
        .concat();
        fd_check("matrix", &f, &z, &gflat);
        let (_, _, h) = kinds::matrix_hessian(m.clone(), x);
        hess_check(
            "matrix h (row-major)",
            &|z| {
                let (_, (a, b)) = kinds::matrix_grad(unflat(z), [z[6], z[7]]);
                [a.into_iter().flatten().collect::<Vec<_>>(), b.to_vec()].concat()
            },
            &z,
            &h,
        );

        let nm = [[a, b], [s, 0.7]];
        let (_, g): (f64, [[f64; 2]; 2]) = kinds::nested_grad(nm);
        let det = a * 0.7 - b * s;
        assert_near(g[0][0], 2.0 * det * 0.7, 1e-12, 1.0, "nested 00");
        assert_near(g[0][1], -2.0 * det * s, 1e-12, 1.0, "nested 01");
        assert_near(g[1][0], -2.0 * det * b, 1e-12, 1.0, "nested 10");
        let (_, _, h) = kinds::nested_hessian(nm);
        let zn = [a, b, s, 0.7];
        hess_check(
            "nested h",
            &|z| {
                let g = kinds::nested_grad([[z[0], z[1]], [z[2], z[3]]]).1;
                vec![g[0][0], g[0][1], g[1][0], g[1][1]]
            },
            &zn,
            &h,
        );

        let vv = rng.vec(2, -1.0, 1.0);
        let jac: Vec<Vec<f64>> = kinds::rows_jacobian(&m, &vv);
        assert_eq!(jac.len(), 3);
        let z = [flat_m.clone(), vv.clone()].concat();
        jac_check(
            "rows jacobian",
            &|z| kinds::rows(&unflat(z), &z[6..]),
            &z,
            &jac,
        );

        let (xf, yf) = (a as f32, b as f32);
        let (_, (gx, gy)): (f32, (f32, f32)) = kinds::single_grad(xf, yf);
        let (x64, y64) = (xf as f64, yf as f64);
        assert_near(
            gx as f64,
            y64 * (x64 * y64).cos() + x64.exp() * y64,
            1e-5,
            1.0,
            "f32 x",
        );
        assert_near(
            gy as f64,
            x64 * (x64 * y64).cos() + x64.exp(),
            1e-5,
            1.0,
            "f32 y",
        );
        let (_, _, h): (f32, (f32, f32), Vec<Vec<f32>>) = kinds::single_hessian(xf, yf);
        let sxy = (x64 * y64).sin();
        let cxy = (x64 * y64).cos();
        assert_near(
            h[0][0] as f64,
            -y64 * y64 * sxy + x64.exp() * y64,
            1e-5,
            1.0,
            "f32 xx",
        );
        assert_near(
            h[0][1] as f64,
            cxy - x64 * y64 * sxy + x64.exp(),
            1e-5,
            1.0,
            "f32 xy",
        );
        assert_near(h[1][0] as f64, h[0][1] as f64, 1e-5, 1.0, "f32 yx");
        assert_near(h[1][1] as f64, -x64 * x64 * sxy, 1e-5, 1.0, "f32 yy");
    }
}

#[test]
fn higher_orders_with_inactive_parameters_and_array_results() {
    let mut rng = Lcg::new(2205);
    for _ in 0..10 {
        let x = rng.uniform(-0.9, 0.9);
        // P4 = (35x⁴ - 30x² + 3)/8.
        let d: [f64; 5] = kinds::legendre_derivatives(x, 4);
        let e = [
            (35.0 * x.powi(4) - 30.0 * x * x + 3.0) / 8.0,
            (140.0 * x.powi(3) - 60.0 * x) / 8.0,
            (420.0 * x * x - 60.0) / 8.0,
            840.0 * x / 8.0,
            105.0,
        ];
        assert_vec_near(&d, &e, 1e-10, "legendre");
        let d2: [f64; 5] = kinds::legendre_derivatives(x, 2);
        assert_vec_near(
            &d2,
            &[1.5 * x * x - 0.5, 3.0 * x, 3.0, 0.0, 0.0],
            1e-12,
            "P2",
        );

        let a = rng.uniform(-1.0, 1.0);
        let b = rng.vec(2, -1.0, 1.0);
        let (_, (ga, gb)): (f64, (f64, Vec<f64>)) = kinds::three_inputs_grad(a, &b);
        fd_check(
            "three_inputs",
            &|z| kinds::three_inputs(z[0], &z[1..]),
            &[a, b[0], b[1]],
            &[vec![ga], gb].concat(),
        );
        let (_, _, h) = kinds::three_inputs_hessian(a, &b);
        hess_check(
            "three_inputs h",
            &|z| {
                let (_, (p, q)) = kinds::three_inputs_grad(z[0], &z[1..]);
                [vec![p], q].concat()
            },
            &[a, b[0], b[1]],
            &h,
        );
        let (_, _, hv): (f64, (f64, Vec<f64>), (f64, Vec<f64>)) =
            kinds::three_inputs_hvp(a, &b, (1.0, vec![0.5, -0.5]));
        let e = mat_vec(&h, &[1.0, 0.5, -0.5]);
        assert_vec_near(&[vec![hv.0], hv.1].concat(), &e, 1e-12, "three_inputs hvp");

        let xa = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)];
        let jac: Vec<Vec<f64>> = kinds::returns_array_jacobian(xa);
        jac_check(
            "returns_array",
            &|z| kinds::returns_array([z[0], z[1]]).to_vec(),
            &xa,
            &jac,
        );
        let (y, g): ([f64; 3], [f64; 2]) = kinds::returns_array_vjp(xa, [1.0, -1.0, 0.5]);
        assert_eq!(y, kinds::returns_array(xa));
        let e: Vec<f64> = (0..2)
            .map(|j| jac[0][j] - jac[1][j] + 0.5 * jac[2][j])
            .collect();
        assert_vec_near(&g, &e, 1e-12, "returns_array vjp");
        let (_, t): ([f64; 3], [f64; 3]) = kinds::returns_array_jvp(xa, [0.0, 1.0]);
        assert_vec_near(
            &t,
            &[jac[0][1], jac[1][1], jac[2][1]],
            1e-12,
            "returns_array jvp",
        );
    }
}

// ---- custom and registered gradients at second order, against jax.custom_vjp ----

mod customs {
    use autodiff::{custom_gradient, differentiable, gradient_of};

    /// Straight-through rounding: the value rounds, the gradient passes through.
    #[custom_gradient]
    pub fn st_round(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (x.round(), move |dy| dy)
    }

    /// The identity with its cotangent clipped to [-1, 1].
    #[custom_gradient]
    pub fn clip_grad(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (x, move |dy| dy.clamp(-1.0, 1.0))
    }

    #[custom_gradient]
    pub fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let e = x.exp();
        ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
    }

    /// A closure that is deliberately not the derivative: it doubles the cotangent of `sin`.
    #[custom_gradient]
    pub fn loud_sin(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let c = x.cos();
        (x.sin(), move |dy| 2.0 * dy * c)
    }

    #[differentiable(order = 2)]
    pub fn use_round(x: f64, w: f64) -> f64 {
        let q = st_round(x * w);
        q * q + x
    }

    #[differentiable(order = 2)]
    pub fn use_clip(x: f64) -> f64 {
        let c = clip_grad(x);
        c * c
    }

    #[differentiable(order = 3)]
    pub fn use_softplus(x: f64) -> f64 {
        log1pexp(x) * x
    }

    #[differentiable(order = 2)]
    pub fn use_loud(x: f64, y: f64) -> f64 {
        loud_sin(x * y) * x
    }

    pub mod foreign {
        pub fn cube(x: f64) -> f64 {
            x * x * x
        }
        pub fn mix(a: f64, b: f64) -> f64 {
            a * b.exp()
        }
    }

    #[gradient_of(foreign::cube)]
    pub fn cube_vjp(x: f64, dy: f64) -> f64 {
        dy * 3.0 * x * x
    }

    #[gradient_of(foreign::mix)]
    pub fn mix_vjp(a: f64, b: f64, dy: f64) -> (f64, f64) {
        let e = b.exp();
        (dy * e, dy * a * e)
    }

    use foreign::mix;

    #[differentiable(order = 2)]
    pub fn use_registered(x: f64, y: f64) -> f64 {
        foreign::cube(x) * y + mix(x, y * x)
    }

    /// Registered functions inside a method, in a loop, at second order.
    pub struct Holder {
        pub scale: f64,
    }

    impl Holder {
        #[differentiable(order = 2)]
        pub fn total(&self, xs: &[f64]) -> f64 {
            let mut s = 0.0;
            for &v in xs {
                s += self.scale * foreign::cube(v) + log1pexp(v);
            }
            s
        }
    }
}

#[test]
fn custom_gradients_at_second_order_as_jax_custom_vjp() {
    let mut rng = Lcg::new(2206);
    for _ in 0..12 {
        // use_round = r² + x with r = round(x w), a straight-through gradient:
        // grad = (2 r w + 1, 2 r x); the Hessian is the Jacobian of that, where r's own derivative is
        // round's (zero, through the forward code): [[0, 2 r], [2 r, 0]].
        let (x, w) = (rng.uniform(-3.0, 3.0), rng.uniform(0.5, 2.0));
        let r = (x * w).round();
        let (v, (gx, gw)): (f64, (f64, f64)) = customs::use_round_grad(x, w);
        assert_eq!(v, r * r + x);
        assert_near(gx, 2.0 * r * w + 1.0, 1e-12, 1.0, "st x");
        assert_near(gw, 2.0 * r * x, 1e-12, 1.0, "st w");
        let (_, _, h) = customs::use_round_hessian(x, w);
        assert_vec_near(&h[0], &[0.0, 2.0 * r], 1e-12, "st h0");
        assert_vec_near(&h[1], &[2.0 * r, 0.0], 1e-12, "st h1");
        let (_, _, hv): (f64, (f64, f64), (f64, f64)) = customs::use_round_hvp(x, w, (1.0, 1.0));
        assert_near(hv.0, 2.0 * r, 1e-12, 1.0, "st hvp");

        // use_clip = c² with a clipped cotangent: grad = clamp(2x, -1, 1), Hessian 2 inside, 0 outside.
        let y = rng.uniform(-1.5, 1.5);
        let (_, g): (f64, f64) = customs::use_clip_grad(y);
        assert_near(g, (2.0 * y).clamp(-1.0, 1.0), 1e-14, 1.0, "clip grad");
        let (_, _, h) = customs::use_clip_hessian(y);
        let e = if (2.0 * y).abs() < 1.0 { 2.0 } else { 0.0 };
        assert_near(h[0][0], e, 1e-12, 1.0, "clip h");
        // `f_derivatives` is `f_grad` on nested duals: f' and f'' are `f_grad`'s and `f_hessian`'s at every
        // x, clipped outside [-1/2, 1/2] as they are. `f_jvp` is forward mode: the closure at `dy = 1` passes
        // 1 through, so its tangent is 2x everywhere (API.md), and differs from the gradient outside the clip.
        let dd: [f64; 3] = customs::use_clip_derivatives(y);
        let (_, jv): (f64, f64) = customs::use_clip_jvp(y, 1.0);
        assert_near(jv, 2.0 * y, 1e-14, 1.0, "clip jvp (forward)");
        assert_near(dd[1], g, 1e-14, 1.0, "clip derivatives'");
        assert_near(dd[2], h[0][0], 1e-12, 1.0, "clip derivatives''");

        // log1pexp with a true closure: to the third derivative of x softplus(x).
        let z = rng.uniform(-3.0, 3.0);
        let s = 1.0 / (1.0 + (-z).exp());
        let sp = (1.0 + z.exp()).ln();
        let d: [f64; 4] = customs::use_softplus_derivatives(z);
        let ds = s * (1.0 - s);
        let dds = ds * (1.0 - 2.0 * s);
        assert_near(d[0], sp * z, 1e-12, 1.0, "softplus");
        assert_near(d[1], s * z + sp, 1e-12, 1.0, "softplus'");
        assert_near(d[2], ds * z + 2.0 * s, 1e-12, 1.0, "softplus''");
        assert_near(d[3], dds * z + 3.0 * ds, 1e-11, 1.0, "softplus'''");

        // use_loud = L(x y) x with L's closure 2 cos: grad = (2 cos(xy) y x + sin(xy), 2 cos(xy) x²), and
        // the Hessian is its Jacobian (the closure differentiated through the cos it captures).
        let (p, q) = (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5));
        let (_, (gp, gq)): (f64, (f64, f64)) = customs::use_loud_grad(p, q);
        let (c, sn) = ((p * q).cos(), (p * q).sin());
        assert_near(gp, 2.0 * c * q * p + sn, 1e-12, 1.0, "loud p");
        assert_near(gq, 2.0 * c * p * p, 1e-12, 1.0, "loud q");
        let (_, _, h) = customs::use_loud_hessian(p, q);
        // d/dp (2 c q p + s) = -2 s q² p + 2 c q + c q; d/dq (2 c q p + s) = -2 s p² q + 2 c p + c p.
        let hpp = -2.0 * sn * q * q * p + 2.0 * c * q + c * q;
        let hpq = -2.0 * sn * p * p * q + 2.0 * c * p + c * p;
        let hqp = -2.0 * sn * q * p * p + 4.0 * c * p;
        let hqq = -2.0 * sn * p * p * p;
        assert_near(h[0][0], hpp, 1e-12, 1.0, "loud pp");
        assert_near(h[0][1], hpq, 1e-12, 1.0, "loud pq");
        assert_near(h[1][0], hqp, 1e-12, 1.0, "loud qp");
        assert_near(h[1][1], hqq, 1e-12, 1.0, "loud qq");
        hess_check(
            "loud h",
            &|z| {
                let (_, (a, b)) = customs::use_loud_grad(z[0], z[1]);
                vec![a, b]
            },
            &[p, q],
            &h,
        );

        // Registered gradients, the registered bodies differentiated at second order.
        let (_, (ga, gb)): (f64, (f64, f64)) = customs::use_registered_grad(p, q);
        let f = |z: &[f64]| z[0].powi(3) * z[1] + z[0] * (z[1] * z[0]).exp();
        fd_check("registered", &f, &[p, q], &[ga, gb]);
        let (_, _, h) = customs::use_registered_hessian(p, q);
        hess_check(
            "registered h",
            &|z| {
                let (_, (a, b)) = customs::use_registered_grad(z[0], z[1]);
                vec![a, b]
            },
            &[p, q],
            &h,
        );
        let e = (p * q).exp();
        assert_near(h[1][1], p * p * p * e, 1e-12, 1.0, "registered yy");

        let hold = customs::Holder { scale: q };
        let xs = rng.vec(3, -1.5, 1.5);
        let (_, g): (f64, Vec<f64>) = hold.total_grad(&xs);
        fd_check("holder", &|z| hold.total(z), &xs, &g);
        let (_, _, h) = hold.total_hessian(&xs);
        for i in 0..3 {
            let sg = 1.0 / (1.0 + (-xs[i]).exp());
            for j in 0..3 {
                let e = if i == j {
                    6.0 * q * xs[i] + sg * (1.0 - sg)
                } else {
                    0.0
                };
                assert_near(h[i][j], e, 1e-12, 1.0, "holder h");
            }
        }
    }
}

// ---- generic functions run on Dual, nested; check_gradient on a struct view ----

mod generic {
    use autodiff::{differentiable, Float};

    #[differentiable(order = 2)]
    pub fn energy<T: Float>(x: &[T], k: T) -> T {
        let mut s = T::zero();
        for i in 1..x.len() {
            let d = x[i] - x[i - 1];
            s = s + k * d * d * d * d;
        }
        s + x[0].exp()
    }
}

#[test]
fn generic_functions_on_f32_dual_and_nested_dual() {
    let mut rng = Lcg::new(2207);
    for _ in 0..6 {
        let x = rng.vec(4, -1.0, 1.0);
        let k = rng.uniform(0.5, 1.5);
        let (_, (gx, gk)): (f64, (Vec<f64>, f64)) = generic::energy_grad(&x, k);
        let z = [x.clone(), vec![k]].concat();
        fd_check(
            "energy",
            &|z| generic::energy(&z[..4], z[4]),
            &z,
            &[gx.clone(), vec![gk]].concat(),
        );
        let (_, _, h) = generic::energy_hessian(&x, k);
        hess_check(
            "energy h",
            &|z| {
                let (_, (a, b)) = generic::energy_grad(&z[..4], z[4]);
                [a, vec![b]].concat()
            },
            &z,
            &h,
        );
        // The generated gradient run on duals: its tangent is the Hessian times the seed.
        let seed = [0.0, 1.0, 0.0, 0.0];
        let xd: Vec<Dual<f64>> = x
            .iter()
            .zip(&seed)
            .map(|(&a, &b)| Dual::new(a, b))
            .collect();
        let (_, (gd, gkd)) = generic::energy_grad(&xd, Dual::new(k, 0.0));
        for i in 0..4 {
            assert_near(gd[i].eps, h[i][1], 1e-10, 1.0, "energy dual hvp");
            assert_near(gd[i].re, gx[i], 1e-12, 1.0, "energy dual value");
        }
        assert_near(gkd.eps, h[4][1], 1e-10, 1.0, "energy dual k");
        // And its Hessian on f32.
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let (_, _, h32): (f32, (Vec<f32>, f32), Vec<Vec<f32>>) =
            generic::energy_hessian(&x32, k as f32);
        for i in 0..5 {
            for j in 0..5 {
                assert_near(h32[i][j] as f64, h[i][j], 1e-4, 1.0, "energy f32 h");
            }
        }
        let check = check_gradient(
            |z| generic::energy(&z[..4], z[4]),
            &z,
            &[gx, vec![gk]].concat(),
        );
        assert!(check.is_ok(1e-6), "{check:?}");
    }
}

// ---- more methods: self by value at order 2, outputs in a wrt(self) method, matrix and f32 fields ----

mod methods2 {
    use autodiff::{differentiable, Differentiable};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Lin {
        pub m: [[f64; 2]; 2],
        pub bias: [f64; 2],
        #[no_grad]
        pub steps: usize,
    }

    impl Lin {
        /// `self` by value, differentiated, at second order.
        #[differentiable(wrt(self), order = 2)]
        pub fn det_sq(self) -> f64 {
            let d = self.m[0][0] * self.m[1][1] - self.m[0][1] * self.m[1][0];
            d * d + self.bias[0] * self.bias[1]
        }

        /// `wrt(self, x)`, an output parameter and a float result, at second order.
        #[differentiable(wrt(self, x), order = 2)]
        pub fn apply(&self, x: &[f64], y: &mut [f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..2 {
                y[i] = self.bias[i];
                for j in 0..2 {
                    y[i] += self.m[i][j] * x[j];
                }
                s += y[i].tanh();
            }
            s
        }

        /// A helper called by its path from a method with `wrt(self)` (in an `impl` without float type
        /// parameters, calls of methods are differentiated).
        #[differentiable(order = 2)]
        pub fn helper(a: f64, b: f64) -> f64 {
            (a - b).powi(2)
        }

        #[differentiable(wrt(self), order = 3)]
        pub fn iterate(&self, x0: f64) -> f64 {
            let mut x = x0;
            for _ in 0..self.steps {
                x = self.m[0][0] * x.sin() + self.bias[0];
            }
            Self::helper(x, self.bias[1]) + self.det_like()
        }

        #[differentiable(wrt(self))]
        pub fn det_like(&self) -> f64 {
            self.m[0][0] * self.m[1][1] - self.m[0][1] * self.m[1][0]
        }
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Small {
        pub a: f32,
        pub v: [f32; 2],
    }

    #[differentiable(order = 2)]
    pub fn small(s: &Small, x: f32) -> f32 {
        s.a * (s.v[0] * x).sin() + s.v[1] * x * x
    }
}

#[test]
fn methods_self_by_value_outputs_in_wrt_self_and_matrix_fields() {
    use methods2::{Lin, Small};
    let mut rng = Lcg::new(2208);
    for _ in 0..8 {
        let lin = Lin {
            m: [
                [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
                [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
            ],
            bias: [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
            steps: 3,
        };
        let flat = lin.to_flat();
        assert_eq!(flat.len(), 6);
        // The matrix field flattens row-major in the flat view.
        assert_eq!(
            flat[..4],
            [lin.m[0][0], lin.m[0][1], lin.m[1][0], lin.m[1][1]]
        );

        let (v, g): (f64, Lin) = lin.clone().det_sq_grad();
        assert_eq!(v, lin.clone().det_sq());
        assert_eq!(g.steps, 3);
        let d = lin.m[0][0] * lin.m[1][1] - lin.m[0][1] * lin.m[1][0];
        assert_near(g.m[0][0], 2.0 * d * lin.m[1][1], 1e-12, 1.0, "det m00");
        assert_near(g.m[0][1], -2.0 * d * lin.m[1][0], 1e-12, 1.0, "det m01");
        assert_near(g.bias[0], lin.bias[1], 1e-12, 1.0, "det bias0");
        let (_, _, h) = lin.clone().det_sq_hessian();
        hess_check(
            "det_sq h",
            &|z| lin.from_flat(z).det_sq_grad().1.to_flat(),
            &flat,
            &h,
        );

        // wrt(self, x) with an output: G = (Lin, Vec<f64>); f_vjp takes the output's cotangent.
        let x = rng.vec(2, -1.0, 1.0);
        let mut y = vec![f64::NAN; 2];
        let (v, (gl, gx)): (f64, (Lin, Vec<f64>)) = lin.apply_grad(&x, &mut y);
        let z = [flat.clone(), x.clone()].concat();
        let f = |z: &[f64]| lin.from_flat(&z[..6]).apply(&z[6..], &mut [0.0; 2]);
        assert_eq!(v, f(&z));
        fd_check("apply", &f, &z, &[gl.to_flat(), gx.clone()].concat());
        let mut yi = vec![0.0; 2];
        lin.apply(&x, &mut yi);
        assert_eq!(y, yi);
        let dy = rng.vec(2, -1.0, 1.0);
        let (_, (vl, vx)): (f64, (Lin, Vec<f64>)) = lin.apply_vjp(&x, &mut y, 0.5, &dy);
        let fs = |z: &[f64]| {
            let mut o = [0.0; 2];
            let r = lin.from_flat(&z[..6]).apply(&z[6..], &mut o);
            0.5 * r + dot(&dy, &o)
        };
        fd_check("apply vjp", &fs, &z, &[vl.to_flat(), vx].concat());
        let mut gli = lin.zero_like();
        let mut gxi = vec![f64::NAN; 2];
        let vi: f64 = lin.apply_grad_into(&x, &mut y, (&mut gli, &mut gxi));
        assert_eq!(vi, v);
        assert_eq!(gli.to_flat(), gl.to_flat());
        assert_eq!(gxi, gx);
        let (_, _, h) = lin.apply_hessian(&x, &mut y);
        assert_eq!(h.len(), 8);
        hess_check(
            "apply h",
            &|z| {
                let (_, (a, b)) = lin.from_flat(&z[..6]).apply_grad(&z[6..], &mut [0.0; 2]);
                [a.to_flat(), b].concat()
            },
            &z,
            &h,
        );

        // Calls of an associated function and a method, three orders in self.
        let x0 = rng.uniform(-1.0, 1.0);
        let (_, g): (f64, Lin) = lin.iterate_grad(x0);
        fd_check(
            "iterate",
            &|z| lin.from_flat(z).iterate(x0),
            &flat,
            &g.to_flat(),
        );
        let (_, _, h) = lin.iterate_hessian(x0);
        hess_check(
            "iterate h",
            &|z| lin.from_flat(z).iterate_grad(x0).1.to_flat(),
            &flat,
            &h,
        );
        let mut dir = lin.zero_like();
        dir.m[0][0] = 1.0;
        dir.bias[1] = -1.0;
        let (_, _, hv): (f64, Lin, Lin) = lin.iterate_hvp(x0, dir.clone());
        assert_vec_near(
            &hv.to_flat(),
            &mat_vec(&h, &dir.to_flat()),
            1e-10,
            "iterate hvp",
        );

        // f32 fields.
        let s = Small {
            a: rng.uniform(-1.0, 1.0) as f32,
            v: [rng.uniform(-1.0, 1.0) as f32, rng.uniform(-1.0, 1.0) as f32],
        };
        let t = rng.uniform(-1.0, 1.0) as f32;
        let (_, (gs, gt)): (f32, (Small, f32)) = methods2::small_grad(&s, t);
        let (a, v0, v1, t64) = (s.a as f64, s.v[0] as f64, s.v[1] as f64, t as f64);
        assert_near(gs.a as f64, (v0 * t64).sin(), 1e-5, 1.0, "small a");
        assert_near(
            gs.v[0] as f64,
            a * t64 * (v0 * t64).cos(),
            1e-5,
            1.0,
            "small v0",
        );
        assert_near(gs.v[1] as f64, t64 * t64, 1e-5, 1.0, "small v1");
        assert_near(
            gt as f64,
            a * v0 * (v0 * t64).cos() + 2.0 * v1 * t64,
            1e-5,
            1.0,
            "small t",
        );
        let (_, _, h): (f32, (Small, f32), Vec<Vec<f32>>) = methods2::small_hessian(&s, t);
        assert_eq!(h.len(), 4);
        assert_near(
            h[3][3] as f64,
            -a * v0 * v0 * (v0 * t64).sin() + 2.0 * v1,
            1e-4,
            1.0,
            "small tt",
        );
        assert_near(h[0][3] as f64, v0 * (v0 * t64).cos(), 1e-4, 1.0, "small at");
    }
}

#[test]
fn optimisers_on_generated_struct_gradients() {
    use autodiff::optim::{Adam, Lbfgs, Minimizer};
    use methods2::Lin;
    let lin = Lin {
        m: [[0.9, 0.2], [0.1, 0.7]],
        bias: [0.3, -0.2],
        steps: 2,
    };
    let (_, minimum) = Lbfgs::default().minimize_params(|p: &Lin| p.clone().det_sq_grad(), &lin);
    assert!(minimum.value < lin.clone().det_sq(), "{minimum:?}");
    let (q, minimum) = Adam::new(0.01).minimize_params(|p: &Lin| p.iterate_grad(0.4), &lin);
    assert!(minimum.value < lin.iterate(0.4), "{minimum:?}");
    assert_eq!(q.steps, 2);
    let check = check_gradient_of(|p: &Lin| p.iterate(0.4), &q, &q.iterate_grad(0.4).1);
    assert!(check.is_ok(1e-6), "{check:?}");
}

// ---- outputs at second order in generic code, two outputs, custom and registered gradients of slices ----

mod outs2 {
    use autodiff::{custom_gradient, differentiable, gradient_of, Float};

    /// A generic function with an output, at second order.
    #[differentiable(order = 2)]
    pub fn generic_out<T: Float>(x: &[T], out: &mut [T]) -> T {
        let mut s = T::zero();
        for i in 0..x.len() {
            out[i] = x[i] * x[i].exp();
            s = s + out[i] * x[(i + 1) % x.len()];
        }
        s
    }

    /// Two outputs and a float result.
    #[differentiable(order = 2)]
    pub fn two_outs(x: &[f64], a: &mut Vec<f64>, b: &mut [f64; 2]) -> f64 {
        for i in 0..x.len() {
            a[i] = x[i].sin();
        }
        b[0] = x[0] * x[1];
        b[1] = a[0] + a[1];
        b[0] * b[1]
    }

    /// A method writing an array output, returning `()`: its Jacobian in the active inputs.
    pub struct Rot {
        pub scale: f64,
    }

    impl Rot {
        #[differentiable]
        pub fn rotate(&self, angle: f64, p: [f64; 2], out: &mut [f64; 2]) {
            let (c, s) = (angle.cos(), angle.sin());
            out[0] = self.scale * (c * p[0] - s * p[1]);
            out[1] = self.scale * (s * p[0] + c * p[1]);
        }
    }

    /// A custom gradient of a slice.
    #[custom_gradient]
    pub fn norm(x: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64>) {
        let n = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let g: Vec<f64> = x.iter().map(|v| v / n).collect();
        (n, move |dy| g.iter().map(|gi| dy * gi).collect())
    }

    #[differentiable(order = 2)]
    pub fn use_norm(x: &[f64], k: f64) -> f64 {
        norm(x) * k + norm(x).powi(2)
    }

    pub mod ext {
        pub fn sumexp(x: &[f64]) -> f64 {
            x.iter().map(|v| v.exp()).sum()
        }
    }

    #[gradient_of(ext::sumexp)]
    pub fn sumexp_vjp(x: &[f64], dy: f64) -> Vec<f64> {
        x.iter().map(|v| dy * v.exp()).collect()
    }

    #[differentiable(order = 2)]
    pub fn use_sumexp(x: &[f64]) -> f64 {
        ext::sumexp(x).ln()
    }
}

#[test]
fn outputs_generic_two_outputs_custom_and_registered_slices() {
    let mut rng = Lcg::new(2209);
    for _ in 0..8 {
        let x = rng.vec(3, -1.0, 1.0);
        let mut out = vec![f64::NAN; 3];
        let (v, g): (f64, Vec<f64>) = outs2::generic_out_grad(&x, &mut out);
        let f = |z: &[f64]| outs2::generic_out(z, &mut [0.0; 3]);
        assert_eq!(v, f(&x));
        fd_check("generic_out", &f, &x, &g);
        let (_, _, h) = outs2::generic_out_hessian(&x, &mut out);
        hess_check(
            "generic_out h",
            &|z| outs2::generic_out_grad(z, &mut [0.0; 3]).1,
            &x,
            &h,
        );
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut o32 = vec![0.0f32; 3];
        let (_, g32): (f32, Vec<f32>) = outs2::generic_out_grad(&x32, &mut o32);
        for i in 0..3 {
            assert_near(g32[i] as f64, g[i], 1e-5, 1.0, "generic_out f32");
        }
        let d = rng.vec(3, -1.0, 1.0);
        let (_, gv): (f64, Vec<f64>) = outs2::generic_out_vjp(&x, &mut out, 1.0, &d);
        let fs = |z: &[f64]| {
            let mut o = [0.0; 3];
            let r = outs2::generic_out(z, &mut o);
            r + dot(&d, &o)
        };
        fd_check("generic_out vjp", &fs, &x, &gv);

        // `a` is written in a loop over `0..x.len()` and read at 0 and 1 after it: the syntax cannot tell
        // that the loop covers them, so `G` holds `a`'s incoming value too (incoming.rs: a wrong "read" adds
        // a gradient that is zero), and here it is zero.
        let xs = rng.vec(2, -1.0, 1.0);
        let mut a = vec![f64::NAN; 2];
        let mut b = [f64::NAN; 2];
        let (v, (g, ga)): (f64, (Vec<f64>, Vec<f64>)) = outs2::two_outs_grad(&xs, &mut a, &mut b);
        assert_eq!(ga, vec![0.0, 0.0]);
        assert_eq!(a, vec![xs[0].sin(), xs[1].sin()]);
        assert_eq!(b, [xs[0] * xs[1], xs[0].sin() + xs[1].sin()]);
        let f = |z: &[f64]| outs2::two_outs(z, &mut vec![0.0; 2], &mut [0.0; 2]);
        assert_eq!(v, f(&xs));
        fd_check("two_outs", &f, &xs, &g);
        let (da, db) = (rng.vec(2, -1.0, 1.0), [0.4, -0.7]);
        let (_, (gv, gva)): (f64, (Vec<f64>, Vec<f64>)) =
            outs2::two_outs_vjp(&xs, &mut a, &mut b, 2.0, &da, &db);
        assert_eq!(gva, vec![0.0, 0.0]);
        let fs = |z: &[f64]| {
            let (mut oa, mut ob) = (vec![0.0; 2], [0.0; 2]);
            let r = outs2::two_outs(z, &mut oa, &mut ob);
            2.0 * r + dot(&da, &oa) + dot(&db, &ob)
        };
        fd_check("two_outs vjp", &fs, &xs, &gv);
        let t = rng.vec(2, -1.0, 1.0);
        let (mut ta, mut tb) = (vec![f64::NAN; 2], [f64::NAN; 2]);
        let (_, dv): (f64, f64) = outs2::two_outs_jvp(
            &xs,
            &mut a,
            &mut b,
            (t.clone(), vec![5.0, 5.0]),
            &mut ta,
            &mut tb,
        );
        assert_near(dv, dot(&g, &t), 1e-12, 1.0, "two_outs jvp");
        assert_vec_near(
            &ta,
            &[xs[0].cos() * t[0], xs[1].cos() * t[1]],
            1e-12,
            "two_outs jvp a",
        );
        assert_near(
            tb[0],
            xs[1] * t[0] + xs[0] * t[1],
            1e-12,
            1.0,
            "two_outs jvp b0",
        );
        let (_, _, h) = outs2::two_outs_hessian(&xs, &mut a, &mut b);
        assert_eq!(h.len(), 4);
        let hx: Vec<Vec<f64>> = h[..2].iter().map(|r| r[..2].to_vec()).collect();
        assert!(h[2..].iter().flatten().all(|&v| v == 0.0));
        hess_check(
            "two_outs h",
            &|z| {
                outs2::two_outs_grad(z, &mut vec![0.0; 2], &mut [0.0; 2])
                    .1
                     .0
            },
            &xs,
            &hx,
        );
        let (_, _, hv): (f64, (Vec<f64>, Vec<f64>), (Vec<f64>, Vec<f64>)) =
            outs2::two_outs_hvp(&xs, &mut a, &mut b, (vec![1.0, -1.0], vec![0.0; 2]));
        assert_vec_near(&hv.0, &mat_vec(&hx, &[1.0, -1.0]), 1e-12, "two_outs hvp");

        // A method's Jacobian: rows the output, columns (angle, p[0], p[1]).
        let rot = outs2::Rot {
            scale: rng.uniform(0.5, 2.0),
        };
        let ang = rng.uniform(-3.0, 3.0);
        let p = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)];
        let mut o = [f64::NAN; 2];
        let jac: Vec<Vec<f64>> = rot.rotate_jacobian(ang, p, &mut o);
        jac_check(
            "rotate",
            &|z| {
                let mut o = [0.0; 2];
                rot.rotate(z[0], [z[1], z[2]], &mut o);
                o.to_vec()
            },
            &[ang, p[0], p[1]],
            &jac,
        );
        let (ga, gp): (f64, [f64; 2]) = rot.rotate_vjp(ang, p, &mut o, &[1.0, 0.0]);
        assert_near(ga, jac[0][0], 1e-12, 1.0, "rotate vjp angle");
        assert_vec_near(&gp, &jac[0][1..], 1e-12, "rotate vjp p");

        // A custom gradient of a slice, at second order: the closure captures g = x/|x|, so the Hessian
        // is the Jacobian of the gradient k x/|x| + 2 x, (k/|x|)(I - x xᵀ/|x|²) + 2 I.
        let k = rng.uniform(0.5, 2.0);
        let (_, (gx, gk)): (f64, (Vec<f64>, f64)) = outs2::use_norm_grad(&x, k);
        let n = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        for i in 0..3 {
            assert_near(gx[i], k * x[i] / n + 2.0 * x[i], 1e-12, 1.0, "use_norm x");
        }
        assert_near(gk, n, 1e-12, 1.0, "use_norm k");
        let (_, _, h) = outs2::use_norm_hessian(&x, k);
        for i in 0..3 {
            for j in 0..3 {
                let delta = if i == j { 1.0 } else { 0.0 };
                let e = k / n * (delta - x[i] * x[j] / (n * n)) + 2.0 * delta;
                assert_near(h[i][j], e, 1e-10, 1.0, "use_norm h");
            }
            assert_near(h[i][3], x[i] / n, 1e-12, 1.0, "use_norm h xk");
            assert_near(h[3][i], x[i] / n, 1e-12, 1.0, "use_norm h kx");
        }
        assert_near(h[3][3], 0.0, 1e-12, 1.0, "use_norm h kk");

        // A registered gradient of a slice: log Σ eˣ, its Hessian diag(s) - s sᵀ.
        let (_, g): (f64, Vec<f64>) = outs2::use_sumexp_grad(&x);
        let tot: f64 = x.iter().map(|v| v.exp()).sum();
        let s: Vec<f64> = x.iter().map(|v| v.exp() / tot).collect();
        assert_vec_near(&g, &s, 1e-12, "use_sumexp");
        let (_, _, h) = outs2::use_sumexp_hessian(&x);
        for i in 0..3 {
            for j in 0..3 {
                let e = if i == j { s[i] } else { 0.0 } - s[i] * s[j];
                assert_near(h[i][j], e, 1e-12, 1.0, "use_sumexp h");
            }
        }
    }
}

// ---- mut parameters written, wrt subsets at second order, derivatives of methods ----

mod mutables {
    use autodiff::{differentiable, Differentiable};

    #[differentiable(order = 3)]
    pub fn mut_scalar(mut x: f64, k: usize) -> f64 {
        for _ in 0..k {
            x = x.sin() + 0.5 * x;
        }
        x
    }

    #[differentiable(order = 2)]
    pub fn mut_vec(mut v: Vec<f64>, mut a: [f64; 3]) -> f64 {
        v[0] *= a[1];
        a[2] += v[1] * v[0];
        let mut s = 0.0;
        for i in 0..3 {
            s += a[i] * v[i % v.len()];
        }
        s
    }

    /// Only `b` active at second order; `a` and `c` are constants.
    #[differentiable(wrt(b), order = 2)]
    pub fn subset(a: f64, b: &[f64], c: [f64; 2]) -> f64 {
        a * (b[0] * c[0]).exp() + b[1].powi(3) * c[1] + b[0] * b[1]
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Poly {
        pub c: Vec<f64>,
    }

    impl Poly {
        /// `self` constant, one scalar active, an inactive count: `[f64; 4]` of derivatives.
        #[differentiable(order = 3)]
        pub fn eval(&self, x: f64, n: usize) -> f64 {
            let mut s = 0.0;
            let mut p = 1.0;
            for i in 0..n {
                s += self.c[i] * p;
                p *= x;
            }
            s
        }

        /// `wrt(self)` alone beside a float that stays constant.
        #[differentiable(wrt(self), order = 2)]
        pub fn fit(&self, x: f64, y: f64) -> f64 {
            let mut s = 0.0;
            let mut p = 1.0;
            for i in 0..self.c.len() {
                s += self.c[i] * p;
                p *= x;
            }
            (s - y).powi(2) + self.c[0].powi(4)
        }

        /// An associated function of one scalar, to the third derivative.
        #[differentiable(order = 3)]
        pub fn bump(t: f64) -> f64 {
            (-t * t).exp() * t
        }
    }
}

#[test]
fn mut_parameters_wrt_subsets_and_method_derivatives() {
    use mutables::Poly;
    let mut rng = Lcg::new(2210);
    for _ in 0..8 {
        let x = rng.uniform(-2.0, 2.0);
        let d: [f64; 4] = mutables::mut_scalar_derivatives(x, 3);
        assert_near(d[0], mutables::mut_scalar(x, 3), 1e-14, 1.0, "mut_scalar");
        assert_near(
            d[1],
            fd1(&|t| mutables::mut_scalar(t, 3), x, 1e-6),
            1e-8,
            1.0,
            "mut_scalar'",
        );
        assert_near(
            d[2],
            fd1(&|t| mutables::mut_scalar_derivatives(t, 3)[1], x, 1e-6),
            1e-7,
            1.0,
            "mut_scalar''",
        );
        assert_near(
            d[3],
            fd1(&|t| mutables::mut_scalar_derivatives(t, 3)[2], x, 1e-6),
            1e-6,
            1.0,
            "mut_scalar'''",
        );
        // k = 1: f = sin x + x/2.
        let d1: [f64; 4] = mutables::mut_scalar_derivatives(x, 1);
        assert_vec_near(
            &d1,
            &[x.sin() + 0.5 * x, x.cos() + 0.5, -x.sin(), -x.cos()],
            1e-12,
            "mut_scalar k=1",
        );

        let v = rng.vec(2, -1.0, 1.0);
        let a = [
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        ];
        let (val, (gv, ga)): (f64, (Vec<f64>, [f64; 3])) = mutables::mut_vec_grad(v.clone(), a);
        let f = |z: &[f64]| mutables::mut_vec(z[..2].to_vec(), [z[2], z[3], z[4]]);
        let z = [v.clone(), a.to_vec()].concat();
        assert_eq!(val, f(&z));
        fd_check("mut_vec", &f, &z, &[gv, ga.to_vec()].concat());
        let (_, _, h) = mutables::mut_vec_hessian(v.clone(), a);
        hess_check(
            "mut_vec h",
            &|z| {
                let (_, (p, q)) = mutables::mut_vec_grad(z[..2].to_vec(), [z[2], z[3], z[4]]);
                [p, q.to_vec()].concat()
            },
            &z,
            &h,
        );

        let (s, b, c) = (rng.uniform(-1.0, 1.0), rng.vec(2, -1.0, 1.0), [0.5, -1.5]);
        let (_, g): (f64, Vec<f64>) = mutables::subset_grad(s, &b, c);
        let e0 = s * c[0] * (b[0] * c[0]).exp() + b[1];
        let e1 = 3.0 * b[1] * b[1] * c[1] + b[0];
        assert_vec_near(&g, &[e0, e1], 1e-12, "subset");
        let (_, _, h): (f64, Vec<f64>, Vec<Vec<f64>>) = mutables::subset_hessian(s, &b, c);
        assert_eq!(h.len(), 2);
        assert_near(
            h[0][0],
            s * c[0] * c[0] * (b[0] * c[0]).exp(),
            1e-12,
            1.0,
            "subset h00",
        );
        assert_near(h[0][1], 1.0, 1e-12, 1.0, "subset h01");
        assert_near(h[1][1], 6.0 * b[1] * c[1], 1e-12, 1.0, "subset h11");
        let (_, _, hv): (f64, Vec<f64>, Vec<f64>) = mutables::subset_hvp(s, &b, c, vec![0.0, 1.0]);
        assert_vec_near(&hv, &[h[0][1], h[1][1]], 1e-12, "subset hvp");

        let p = Poly {
            c: rng.vec(4, -1.0, 1.0),
        };
        let t = rng.uniform(-1.0, 1.0);
        let d: [f64; 4] = p.eval_derivatives(t, 4);
        let c = &p.c;
        let e = [
            c[0] + c[1] * t + c[2] * t * t + c[3] * t.powi(3),
            c[1] + 2.0 * c[2] * t + 3.0 * c[3] * t * t,
            2.0 * c[2] + 6.0 * c[3] * t,
            6.0 * c[3],
        ];
        assert_vec_near(&d, &e, 1e-12, "poly eval");
        let d3: [f64; 4] = p.eval_derivatives(t, 2);
        assert_vec_near(
            &d3,
            &[c[0] + c[1] * t, c[1], 0.0, 0.0],
            1e-12,
            "poly eval n=2",
        );

        let y = rng.uniform(-1.0, 1.0);
        let (_, g): (f64, Poly) = p.fit_grad(t, y);
        let r = e[0] - y;
        assert_near(g.c[0], 2.0 * r + 4.0 * c[0].powi(3), 1e-12, 1.0, "fit c0");
        assert_near(g.c[2], 2.0 * r * t * t, 1e-12, 1.0, "fit c2");
        let (_, _, h) = p.fit_hessian(t, y);
        assert_eq!(h.len(), 4);
        for i in 0..4 {
            for j in 0..4 {
                let extra = if i == 0 && j == 0 {
                    12.0 * c[0] * c[0]
                } else {
                    0.0
                };
                let e = 2.0 * t.powi(i as i32) * t.powi(j as i32) + extra;
                assert_near(h[i][j], e, 1e-12, 1.0, "fit h");
            }
        }

        let db: [f64; 4] = Poly::bump_derivatives(t);
        let ex = (-t * t).exp();
        assert_vec_near(
            &db,
            &[
                ex * t,
                ex * (1.0 - 2.0 * t * t),
                ex * (4.0 * t.powi(3) - 6.0 * t),
                ex * (-8.0 * t.powi(4) + 24.0 * t * t - 6.0),
            ],
            1e-12,
            "bump",
        );
    }
}

// ---- Jacobians over structs and slices, generic methods with outputs, custom gradients in wrt(self) ----

mod mixed {
    use autodiff::{custom_gradient, differentiable, Differentiable, Float};

    #[derive(Clone, Debug, Differentiable)]
    pub struct Affine {
        pub a: [f64; 2],
        pub b: f64,
    }

    /// A vector result of a struct and a slice: columns are (a[0], a[1], b, x[0], x[1], ..).
    #[differentiable]
    pub fn affine(p: &Affine, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            out[i] = p.a[i % 2] * x[i] + p.b * x[i] * x[i];
        }
        out
    }

    pub struct Wave<T> {
        pub k: T,
    }

    impl<T: Float> Wave<T> {
        /// A generic method writing an output.
        #[differentiable]
        pub fn sample(&self, phase: T, out: &mut [T]) {
            for i in 0..out.len() {
                let t = T::from(i).unwrap();
                out[i] = (self.k * t + phase).sin();
            }
        }
    }

    #[custom_gradient]
    pub fn softplus(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let e = x.exp();
        ((1.0 + e).ln(), move |dy| dy * e / (1.0 + e))
    }

    impl Affine {
        /// A custom gradient inside a method differentiated in `self`, at second order.
        #[differentiable(wrt(self), order = 2)]
        pub fn smooth(&self, x: f64) -> f64 {
            softplus(self.a[0] * x + self.b) * self.a[1]
        }
    }
}

#[test]
fn jacobians_over_structs_generic_method_outputs_and_custom_in_methods() {
    use mixed::{Affine, Wave};
    let mut rng = Lcg::new(2211);
    for _ in 0..8 {
        let p = Affine {
            a: [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
            b: rng.uniform(-1.0, 1.0),
        };
        let x = rng.vec(3, -1.0, 1.0);
        let jac: Vec<Vec<f64>> = mixed::affine_jacobian(&p, &x);
        assert_eq!(jac.len(), 3);
        assert_eq!(jac[0].len(), 6);
        let z = [p.to_flat(), x.clone()].concat();
        jac_check(
            "affine",
            &|z| mixed::affine(&p.from_flat(&z[..3]), &z[3..]),
            &z,
            &jac,
        );
        let w = rng.vec(3, -1.0, 1.0);
        let (y, (gp, gx)): (Vec<f64>, (Affine, Vec<f64>)) = mixed::affine_vjp(&p, &x, w.clone());
        assert_eq!(y, mixed::affine(&p, &x));
        let e: Vec<f64> = (0..6)
            .map(|j| (0..3).map(|i| w[i] * jac[i][j]).sum())
            .collect();
        assert_vec_near(&[gp.to_flat(), gx].concat(), &e, 1e-12, "affine vjp");

        let wave = Wave {
            k: rng.uniform(0.5, 2.0),
        };
        let ph = rng.uniform(-3.0, 3.0);
        let mut out = vec![f64::NAN; 4];
        let jac: Vec<Vec<f64>> = wave.sample_jacobian(ph, &mut out);
        assert_eq!(jac.len(), 4);
        for i in 0..4 {
            let e = (wave.k * i as f64 + ph).cos();
            assert_near(jac[i][0], e, 1e-12, 1.0, "sample jac");
            assert_near(
                out[i],
                (wave.k * i as f64 + ph).sin(),
                1e-14,
                1.0,
                "sample out",
            );
        }
        let d = rng.vec(4, -1.0, 1.0);
        let g: f64 = wave.sample_vjp(ph, &mut out, &d);
        assert_near(
            g,
            (0..4).map(|i| d[i] * jac[i][0]).sum(),
            1e-12,
            1.0,
            "sample vjp",
        );
        let w32 = Wave { k: wave.k as f32 };
        let mut o32 = vec![0.0f32; 4];
        let mut t32 = vec![0.0f32; 4];
        let () = w32.sample_jvp(ph as f32, &mut o32, 1.0, &mut t32);
        for i in 0..4 {
            assert_near(t32[i] as f64, jac[i][0], 1e-5, 1.0, "sample jvp f32");
        }

        let t = rng.uniform(-2.0, 2.0);
        let (_, g): (f64, Affine) = p.smooth_grad(t);
        let u = p.a[0] * t + p.b;
        let s = 1.0 / (1.0 + (-u).exp());
        assert_near(g.a[0], s * t * p.a[1], 1e-12, 1.0, "smooth a0");
        assert_near(g.a[1], (1.0 + u.exp()).ln(), 1e-12, 1.0, "smooth a1");
        assert_near(g.b, s * p.a[1], 1e-12, 1.0, "smooth b");
        let (_, _, h) = p.smooth_hessian(t);
        hess_check(
            "smooth h",
            &|z| p.from_flat(z).smooth_grad(t).1.to_flat(),
            &p.to_flat(),
            &h,
        );
        let ds = s * (1.0 - s);
        assert_near(h[0][0], ds * t * t * p.a[1], 1e-12, 1.0, "smooth a0a0");
        assert_near(h[0][1], s * t, 1e-12, 1.0, "smooth a0a1");
        assert_near(h[2][2], ds * p.a[1], 1e-12, 1.0, "smooth bb");

        // check_gradient's report.
        let check = check_gradient(|z| mixed::affine(&p.from_flat(&z[..3]), &z[3..])[1], &z, &{
            let (_, (a, b)) = mixed::affine_vjp(&p, &x, vec![0.0, 1.0, 0.0]);
            [a.to_flat(), b].concat()
        });
        assert!(check.is_ok(1e-6), "{check:?}");
        assert!(check.worst_index < 6 && check.max_rel_error < 1e-6);
    }
}
