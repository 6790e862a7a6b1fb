//! An outside tester's probe of API.md's forms in combination, as a demanding user writes them:
//!
//! - methods (`&self` constant and `wrt(self, ..)`, generic `impl<T: Float>`) with output parameters,
//!   slices and arrays, calling free functions, custom gradients, `Self::g` and `self.g`, at first order
//!   and at `order = 2`/`3` (`_hvp`, `_hessian`, `_derivatives`), and their `_jacobian` and `_grad_into`;
//! - `#[derive(Differentiable)]` structs nested with array, `Vec` and `#[no_grad]` fields, generic ones,
//!   passed on to other functions, taken by value, in `_grad_into` (buffers of NaN) and `_jacobian`;
//! - `#[custom_gradient]` of a slice and `#[gradient_of]` used from methods and loops at order 2 and 3;
//! - control flow mixed: `while` inside `for`, `loop` with `break value`, early `return` in nested loops,
//!   `match` on integers and field-less enums, iterator chains (`map`, `zip`, `fold`, `sum`, `product`,
//!   `enumerate`, `rev`, `windows`, `chunks`), closures, shadowing, tuples, `const` items, `f32` and
//!   generic floats run on `f32` and `f64`.
//!
//! Every derivative is checked against central differences (`common::probe`) and, where short, a formula
//! worked out by hand, at many seeded points.

// Indexed loops and `vec![..]` buffers are the forms users write; the checkers take the generated items
// as `fn` pointers.
#![allow(
    clippy::needless_range_loop,
    clippy::ptr_arg,
    clippy::useless_vec,
    clippy::type_complexity
)]

mod common;

use autodiff::{custom_gradient, differentiable, gradient_of, Differentiable, Float};
use common::probe::*;

const POINTS: usize = 12;

// ---------------------------------------------------------------------------------------------------
// Custom and registered gradients shared by the sections below.

/// TensorFlow's `log1pexp`.
#[custom_gradient]
fn softplus(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * e / (1.0 + e))
}

/// A stable log-sum-exp of a slice, its gradient the softmax.
#[custom_gradient]
fn lse(z: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64>) {
    let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
    let p: Vec<f64> = z.iter().map(|v| (v - m).exp() / s).collect();
    (m + s.ln(), move |dy| p.iter().map(|pi| dy * pi).collect())
}

mod outside {
    /// A function we do not own.
    pub fn bump(x: f64) -> f64 {
        (-(x * x)).exp()
    }
}

use outside::bump;

#[gradient_of(outside::bump)]
fn bump_vjp(x: f64, dy: f64) -> f64 {
    dy * -2.0 * x * (-(x * x)).exp()
}

fn softplus_f(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

// ---------------------------------------------------------------------------------------------------
// Methods of a parameter struct.

#[derive(Clone, Debug, Differentiable)]
struct Cell {
    w: [f64; 3],
    b: f64,
    v: Vec<f64>,
    #[no_grad]
    n: usize,
}

impl Cell {
    /// `softplus(z b) + w0 z`, in `self` and `z`.
    #[differentiable(wrt(self, z), order = 2)]
    fn act(&self, z: f64) -> f64 {
        softplus(z * self.b) + self.w[0] * z
    }

    #[differentiable(order = 2)]
    fn sq(z: f64) -> f64 {
        z * z
    }

    /// A `while` loop over `n` calling `self.act`, `Self::sq` and a free custom gradient.
    #[differentiable(wrt(self, x), order = 2)]
    fn energy(&self, x: &[f64]) -> f64 {
        let mut i = 0;
        let mut s = 0.0;
        while i < self.n {
            let z = self.w[i % 3] * x[i] + self.v[i];
            s += self.act(z) + Self::sq(z - x[i]);
            i += 1;
        }
        s + softplus(self.b)
    }

    /// A constant `self`, one active scalar: `_derivatives` of order 3 through `self.act` in a loop.
    #[differentiable(order = 3)]
    fn pull(&self, x: f64) -> f64 {
        let mut acc = 0.0;
        for k in 0..self.n {
            acc += self.act(x * (k as f64 + 1.0)) * bump(x);
        }
        acc
    }

    /// An output read after it is written, beside a returned float.
    #[differentiable(wrt(self, x))]
    fn residual(&self, x: &[f64], r: &mut [f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            r[i] = self.w[i % 3] * x[i].sin() + self.b;
            s += r[i] * x[i];
        }
        s
    }

    /// One output parameter and no result: `_jacobian` over `self` and `x`.
    #[differentiable(wrt(self, x))]
    fn project(&self, x: &[f64], out: &mut [f64]) {
        for i in 0..3 {
            out[i] = self.w[i] * x[i] * self.b + self.v[i].exp();
        }
    }

    /// A custom gradient of a slice built from `self` in a loop, at order 2.
    #[differentiable(wrt(self), order = 2)]
    fn lse_loss(&self, x: &[f64]) -> f64 {
        let mut z = vec![0.0; 3];
        for i in 0..3 {
            z[i] = self.w[i] * x[i] + self.b;
        }
        lse(&z)
    }
}

fn cell_of(v: &[f64], n: usize) -> Cell {
    Cell {
        w: [v[0], v[1], v[2]],
        b: v[3],
        v: v[4..8].to_vec(),
        n,
    }
}

/// `n` NaNs in the shape of `c`.
fn nan_like(c: &Cell) -> Cell {
    c.from_flat(&vec![GARBAGE; c.to_flat().len()])
}

#[test]
fn method_energy_in_self_and_x_at_order_2() {
    for n in [0, 2, 4] {
        let name = format!("Cell::energy n={n}");
        Probe::new(&name, move |v| cell_of(v, n).energy(&v[8..]))
            .grad(move |v| {
                let c = cell_of(v, n);
                let (e, (g, gx)) = c.energy_grad(&v[8..]);
                assert_eq!(g.n, n);
                let mut flat = g.to_flat();
                flat.extend(gx);
                (e, flat)
            })
            .jvp(move |v, t| {
                let c = cell_of(v, n);
                c.energy_jvp(&v[8..], (c.from_flat(&t[..8]), t[8..].to_vec()))
            })
            .grad_into(move |v| {
                let c = cell_of(v, n);
                let mut g = nan_like(&c);
                let mut gx = vec![GARBAGE; 4];
                let e = c.energy_grad_into(&v[8..], (&mut g, &mut gx));
                let mut flat = g.to_flat();
                flat.extend(gx);
                (e, flat)
            })
            .hessian(move |v| {
                let c = cell_of(v, n);
                let (e, (g, gx), h) = c.energy_hessian(&v[8..]);
                let mut flat = g.to_flat();
                flat.extend(gx);
                // `_hvp` along a unit vector is the Hessian's column.
                for j in [0, 3, 9] {
                    let mut t = vec![0.0; 12];
                    t[j] = 1.0;
                    let (ev, _, hv) =
                        c.energy_hvp(&v[8..], (c.from_flat(&t[..8]), t[8..].to_vec()));
                    assert_near(ev, e, 1e-12, 0.0, "energy_hvp value");
                    let mut col = hv.0.to_flat();
                    col.extend(hv.1);
                    let want: Vec<f64> = (0..12).map(|i| h[i][j]).collect();
                    assert_vec_near(&col, &want, 1e-10, "energy_hvp column");
                }
                (e, flat, h)
            })
            .run(POINTS, range(12, -1.2, 1.2));
    }
}

#[test]
fn method_pull_derivatives_of_order_3() {
    let mut rng = Lcg::new(17);
    for n in [1, 3] {
        let c = cell_of(&rng.vec(8, -1.0, 1.0), n);
        let act = |x: f64| softplus_f(x * c.b) + c.w[0] * x;
        let f = |x: f64| {
            (0..n)
                .map(|k| act(x * (k as f64 + 1.0)) * bump(x))
                .sum::<f64>()
        };
        for _ in 0..POINTS {
            let x = rng.uniform(-1.5, 1.5);
            let d = c.pull_derivatives(x);
            assert_near(d[0], f(x), 1e-12, 0.0, "pull value");
            assert_near(c.pull(x), f(x), 1e-12, 0.0, "pull");
            assert_near(d[1], fd1(&f, x, 1e-6), 1e-6, d[1].abs(), "pull'");
            let (v, g) = c.pull_grad(x);
            assert_near(v, d[0], 1e-12, 0.0, "pull_grad value");
            assert_near(g, d[1], 1e-12, g.abs(), "pull_grad");
            let (_, g2, h) = c.pull_hessian(x);
            assert_near(g2, g, 1e-12, g.abs(), "pull_hessian gradient");
            assert_near(h[0][0], d[2], 1e-10, d[2].abs(), "pull_hessian");
            let (_, _, hv) = c.pull_hvp(x, 0.5);
            assert_near(hv, 0.5 * d[2], 1e-10, d[2].abs(), "pull_hvp");
            for k in 1..4 {
                let fd = fd1(&|y| c.pull_derivatives(y)[k - 1], x, 1e-6);
                assert_near(
                    d[k],
                    fd,
                    1e-5,
                    d[k].abs().max(fd.abs()),
                    &format!("pull derivative {k}"),
                );
            }
        }
    }
}

#[test]
fn method_residual_with_an_output_read_after_writing() {
    let f = |v: &[f64]| {
        let c = cell_of(v, 0);
        let mut r = vec![0.0; 4];
        c.residual(&v[8..], &mut r)
    };
    let flat = |g: Cell, gx: Vec<f64>| {
        let mut flat = g.to_flat();
        flat.extend(gx);
        flat
    };
    Probe::new("Cell::residual", f)
        .grad(move |v| {
            let c = cell_of(v, 0);
            let mut r = vec![GARBAGE; 4];
            let (s, (g, gx)) = c.residual_grad(&v[8..], &mut r);
            for i in 0..4 {
                assert_near(
                    r[i],
                    c.w[i % 3] * v[8 + i].sin() + c.b,
                    1e-14,
                    1.0,
                    "residual r",
                );
            }
            (s, flat(g, gx))
        })
        .jvp(move |v, t| {
            let c = cell_of(v, 0);
            let mut r = vec![GARBAGE; 4];
            let mut dr = vec![GARBAGE; 4];
            let out = c.residual_jvp(
                &v[8..],
                &mut r,
                (c.from_flat(&t[..8]), t[8..].to_vec()),
                &mut dr,
            );
            // The tangent of r[i] = w[i%3] sin x_i + b.
            for i in 0..4 {
                let want =
                    t[i % 3] * v[8 + i].sin() + c.w[i % 3] * v[8 + i].cos() * t[8 + i] + t[3];
                assert_near(dr[i], want, 1e-12, 1.0, "residual_jvp d_r");
            }
            out
        })
        .grad_into(move |v| {
            let c = cell_of(v, 0);
            let mut r = vec![GARBAGE; 4];
            let mut g = nan_like(&c);
            let mut gx = vec![GARBAGE; 4];
            let s = c.residual_grad_into(&v[8..], &mut r, (&mut g, &mut gx));
            (s, flat(g, gx))
        })
        .run(POINTS, range(12, -1.5, 1.5));

    // `_vjp` with a cotangent on the output too: against central differences of `d_ret s + d_r . r`.
    let mut rng = Lcg::new(3);
    for _ in 0..POINTS {
        let v = rng.vec(12, -1.5, 1.5);
        let d_ret = rng.uniform(-1.0, 1.0);
        let d_r = rng.vec(4, -1.0, 1.0);
        let scalar = |u: &[f64]| {
            let c = cell_of(u, 0);
            let mut r = vec![0.0; 4];
            let s = c.residual(&u[8..], &mut r);
            d_ret * s + dot(&d_r, &r)
        };
        let c = cell_of(&v, 0);
        let mut r = vec![GARBAGE; 4];
        let (s, (g, gx)) = c.residual_vjp(&v[8..], &mut r, d_ret, &d_r);
        let mut r0 = vec![0.0; 4];
        assert_near(
            s,
            c.residual(&v[8..], &mut r0),
            1e-14,
            0.0,
            "residual_vjp value",
        );
        assert_vec_near(&r, &r0, 1e-14, "residual_vjp's output");
        let mut got = g.to_flat();
        got.extend(gx);
        assert_vec_near(&got, &fd_gradient(&scalar, &v), 1e-6, "residual_vjp");
    }
}

#[test]
fn method_project_jacobian_over_self_and_x() {
    let f = |v: &[f64]| {
        let c = cell_of(v, 0);
        let mut out = vec![0.0; 3];
        c.project(&v[8..11], &mut out);
        out
    };
    check_vector(
        "Cell::project",
        POINTS,
        range(11, -1.5, 1.5),
        &f,
        &|v, d| {
            let c = cell_of(v, 0);
            let mut out = vec![GARBAGE; 3];
            let (g, gx) = c.project_vjp(&v[8..11], &mut out, d);
            let mut flat = g.to_flat();
            flat.extend(gx);
            (out, flat)
        },
        &|v, t| {
            let c = cell_of(v, 0);
            let mut out = vec![GARBAGE; 3];
            let mut d = vec![GARBAGE; 3];
            c.project_jvp(
                &v[8..11],
                &mut out,
                (c.from_flat(&t[..8]), t[8..].to_vec()),
                &mut d,
            );
            (out, d)
        },
        Some(&|v| {
            let c = cell_of(v, 0);
            let mut out = vec![GARBAGE; 3];
            let j = c.project_jacobian(&v[8..11], &mut out);
            assert_vec_near(&out, &f(v), 1e-14, "project_jacobian's outputs");
            j
        }),
    );
}

#[test]
fn method_lse_loss_custom_slice_gradient_at_order_2() {
    let mut rng = Lcg::new(5);
    for _ in 0..3 {
        let x = rng.vec(3, -1.0, 1.0);
        let x2 = x.clone();
        let x3 = x.clone();
        let x4 = x.clone();
        Probe::new("Cell::lse_loss", move |v| cell_of(v, 0).lse_loss(&x))
            .grad(move |v| {
                let (e, g) = cell_of(v, 0).lse_loss_grad(&x2);
                (e, g.to_flat())
            })
            .analytic(move |v| {
                let c = cell_of(v, 0);
                let z: Vec<f64> = (0..3).map(|i| c.w[i] * x3[i] + c.b).collect();
                let s: f64 = z.iter().map(|z| z.exp()).sum();
                let p: Vec<f64> = z.iter().map(|z| z.exp() / s).collect();
                let mut g = vec![0.0; 8];
                for i in 0..3 {
                    g[i] = p[i] * x3[i];
                }
                g[3] = 1.0;
                g
            })
            .hessian(move |v| {
                let (e, g, h) = cell_of(v, 0).lse_loss_hessian(&x4);
                (e, g.to_flat(), h)
            })
            .run(POINTS, range(8, -2.0, 2.0));
    }
}

// ---------------------------------------------------------------------------------------------------
// A generic struct with methods of a generic `impl`, run on `f32` and `f64`.

#[derive(Clone, Debug, Differentiable)]
struct Quad<T: Float> {
    a: T,
    c: [T; 2],
    #[no_grad]
    k: usize,
}

impl<T: Float> Quad<T> {
    /// `Σ a x_i² + c_{i%2} x_i` by `enumerate` and an `if` value.
    #[differentiable(wrt(self, x))]
    fn eval(&self, x: &[T]) -> T {
        let mut acc = T::zero();
        for (i, &xi) in x.iter().enumerate() {
            let c = if i % 2 == 0 { self.c[0] } else { self.c[1] };
            acc = acc + self.a * xi * xi + c * xi;
        }
        acc
    }

    #[differentiable]
    fn lift(u: T) -> T {
        u.sin() * u
    }

    /// `eval² + lift(a)`: `self.eval` twice and `Self::lift`.
    #[differentiable(wrt(self, y))]
    fn twice(&self, y: &[T]) -> T {
        let e = self.eval(y);
        e * e + Self::lift(self.a)
    }
}

/// `Σ_k (a x + c_{k%2})²` over the `#[no_grad]` count, at order 2 in a generic free function.
#[differentiable(order = 2)]
fn quad_energy<T: Float>(q: &Quad<T>, x: T) -> T {
    let mut e = T::zero();
    for k in 0..q.k {
        e = e + (q.a * x + q.c[k % 2]).powi(2);
    }
    e
}

fn quad_of<T: Float>(v: &[f64], k: usize) -> Quad<T> {
    let t = |u: f64| T::from(u).unwrap();
    Quad {
        a: t(v[0]),
        c: [t(v[1]), t(v[2])],
        k,
    }
}

#[test]
fn generic_impl_methods_on_f64_and_f32() {
    Probe::new("Quad::twice", |v| quad_of::<f64>(v, 0).twice(&v[3..]))
        .grad(|v| {
            let q = quad_of::<f64>(v, 0);
            let (e, (g, gy)) = q.twice_grad(&v[3..]);
            let mut flat = g.to_flat();
            flat.extend(gy);
            (e, flat)
        })
        .jvp(|v, t| {
            let q = quad_of::<f64>(v, 0);
            q.twice_jvp(&v[3..], (q.from_flat(&t[..3]), t[3..].to_vec()))
        })
        .grad_into(|v| {
            let q = quad_of::<f64>(v, 0);
            let mut g = q.from_flat(&[GARBAGE; 3]);
            let mut gy = vec![GARBAGE; 3];
            let e = q.twice_grad_into(&v[3..], (&mut g, &mut gy));
            let mut flat = g.to_flat();
            flat.extend(gy);
            (e, flat)
        })
        .analytic(|v| {
            let (a, c0, c1) = (v[0], v[1], v[2]);
            let y = &v[3..];
            let e: f64 = (0..3)
                .map(|i| a * y[i] * y[i] + [c0, c1][i % 2] * y[i])
                .sum();
            let mut g = vec![0.0; 6];
            g[0] = 2.0 * e * y.iter().map(|y| y * y).sum::<f64>() + a.sin() + a * a.cos();
            g[1] = 2.0 * e * (y[0] + y[2]);
            g[2] = 2.0 * e * y[1];
            for i in 0..3 {
                g[3 + i] = 2.0 * e * (2.0 * a * y[i] + [c0, c1][i % 2]);
            }
            g
        })
        .run(POINTS, range(6, -1.5, 1.5));

    // f32: against the f64 gradient.
    let mut rng = Lcg::new(32);
    for _ in 0..POINTS {
        let v = rng.vec(6, -1.5, 1.5);
        let q64 = quad_of::<f64>(&v, 0);
        let q32 = quad_of::<f32>(&v, 0);
        let y32: Vec<f32> = v[3..].iter().map(|&u| u as f32).collect();
        let (e64, (g64, gy64)) = q64.twice_grad(&v[3..]);
        let (e32, (g32, gy32)) = q32.twice_grad(&y32);
        assert_near(e32 as f64, e64, 1e-4, 1.0, "twice f32 value");
        let mut a = g32.to_flat();
        a.extend(gy32.iter().map(|&u| u as f64));
        let mut b = g64.to_flat();
        b.extend(gy64);
        for i in 0..6 {
            assert_near(a[i], b[i], 1e-4, norm(&b), "twice f32 gradient");
        }
    }
}

#[test]
fn generic_struct_in_a_generic_free_function_at_order_2() {
    for k in [0, 1, 3] {
        let name = format!("quad_energy k={k}");
        Probe::new(&name, move |v| quad_energy(&quad_of::<f64>(v, k), v[3]))
            .grad(move |v| {
                let (e, (g, gx)) = quad_energy_grad(&quad_of::<f64>(v, k), v[3]);
                assert_eq!(g.k, k);
                let mut flat = g.to_flat();
                flat.push(gx);
                (e, flat)
            })
            .jvp(move |v, t| {
                let q = quad_of::<f64>(v, k);
                quad_energy_jvp(&q, v[3], (q.from_flat(&t[..3]), t[3]))
            })
            .grad_into(move |v| {
                let q = quad_of::<f64>(v, k);
                let mut g = q.from_flat(&[GARBAGE; 3]);
                let mut gx = GARBAGE;
                let e = quad_energy_grad_into(&q, v[3], (&mut g, &mut gx));
                let mut flat = g.to_flat();
                flat.push(gx);
                (e, flat)
            })
            .hessian(move |v| {
                let (e, (g, gx), h) = quad_energy_hessian(&quad_of::<f64>(v, k), v[3]);
                let mut flat = g.to_flat();
                flat.push(gx);
                (e, flat, h)
            })
            .run(POINTS, range(4, -1.5, 1.5));
        // f32 at order 2 against f64.
        let mut rng = Lcg::new(k as u64);
        for _ in 0..4 {
            let v = rng.vec(4, -1.0, 1.0);
            let (_, _, h64) = quad_energy_hessian(&quad_of::<f64>(&v, k), v[3]);
            let (_, _, h32) = quad_energy_hessian(&quad_of::<f32>(&v, k), v[3] as f32);
            for i in 0..4 {
                for j in 0..4 {
                    assert_near(
                        h32[i][j] as f64,
                        h64[i][j],
                        1e-4,
                        1.0,
                        "quad_energy f32 Hessian",
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Nested structs with matrix, `Vec`, array and `#[no_grad]` fields, passed on, by value, `_jacobian`.

#[derive(Clone, Debug, Differentiable)]
struct Layer {
    w: Vec<Vec<f64>>,
    b: Vec<f64>,
}

#[derive(Clone, Debug, Differentiable)]
struct Net {
    l1: Layer,
    scale: [f64; 2],
    #[no_grad]
    relu: bool,
}

/// `out = scale0 tanh(W x + b) (+ relu)`: `_jacobian` over a struct with a matrix field and the input.
#[differentiable]
fn net_out(p: &Net, x: &[f64], out: &mut [f64]) {
    for i in 0..out.len() {
        let mut z = p.l1.b[i];
        for (j, &xj) in x.iter().enumerate() {
            z += p.l1.w[i][j] * xj;
        }
        out[i] = if p.relu {
            z.max(0.0)
        } else {
            p.scale[0] * z.tanh()
        };
    }
}

/// Output `i` of `net_out` (tanh), a function of the struct returning a float.
#[differentiable]
fn net_unit(p: &Net, x: &[f64], i: usize) -> f64 {
    let z = x
        .iter()
        .enumerate()
        .fold(p.l1.b[i], |z, (j, &xj)| z + p.l1.w[i][j] * xj);
    p.scale[0] * z.tanh()
}

/// The struct passed on to a function in a loop, a closure; the targets `y` constant by `wrt(..)`.
#[differentiable(wrt(p, x))]
fn net_loss(p: &Net, x: &[f64], y: &[f64]) -> f64 {
    let sq = |d: f64| d * d;
    let mut total = 0.0;
    for (i, &t) in y.iter().enumerate() {
        total += sq(net_unit(p, x, i) - t);
    }
    total * p.scale[1]
}

/// A struct by value, its array field read in a `match` on an integer.
#[differentiable]
fn net_by_value(p: Net, x: f64, pick: usize) -> f64 {
    let s = match pick {
        0 => p.scale[0],
        1 | 2 => p.scale[1] * x,
        _ => p.l1.b[0],
    };
    s * p.l1.w[1][0] + x.sin()
}

fn net_of(v: &[f64], relu: bool) -> Net {
    Net {
        l1: Layer {
            w: vec![v[0..3].to_vec(), v[3..6].to_vec()],
            b: v[6..8].to_vec(),
        },
        scale: [v[8], v[9]],
        relu,
    }
}

#[test]
fn nested_struct_jacobian_and_loss() {
    for relu in [false, true] {
        let f = move |v: &[f64]| {
            let mut out = vec![0.0; 2];
            net_out(&net_of(v, relu), &v[10..13], &mut out);
            out
        };
        let sample = |r: &mut Lcg| loop {
            let v = r.vec(13, -1.0, 1.0);
            // Away from the kink of max(z, 0).
            let p = net_of(&v, true);
            let ok = (0..2).all(|i| {
                let z = p.l1.b[i] + (0..3).map(|j| p.l1.w[i][j] * v[10 + j]).sum::<f64>();
                z.abs() > 0.05
            });
            if ok {
                break v;
            }
        };
        check_vector(
            if relu { "net_out relu" } else { "net_out tanh" },
            POINTS,
            sample,
            &f,
            &|v, d| {
                let p = net_of(v, relu);
                let mut out = vec![GARBAGE; 2];
                let (g, gx) = net_out_vjp(&p, &v[10..13], &mut out, d);
                assert_eq!(g.relu, relu);
                let mut flat = g.to_flat();
                flat.extend(gx);
                (out, flat)
            },
            &|v, t| {
                let p = net_of(v, relu);
                let mut out = vec![GARBAGE; 2];
                let mut d = vec![GARBAGE; 2];
                net_out_jvp(
                    &p,
                    &v[10..13],
                    &mut out,
                    (p.from_flat(&t[..10]), t[10..].to_vec()),
                    &mut d,
                );
                (out, d)
            },
            Some(&|v| {
                let p = net_of(v, relu);
                let mut out = vec![GARBAGE; 2];
                net_out_jacobian(&p, &v[10..13], &mut out)
            }),
        );
    }
    let y = [0.3, -0.2];
    Probe::new("net_loss", move |v| {
        net_loss(&net_of(v, false), &v[10..13], &y)
    })
    .grad(move |v| {
        let (e, (g, gx)) = net_loss_grad(&net_of(v, false), &v[10..13], &y);
        let mut flat = g.to_flat();
        flat.extend(gx);
        (e, flat)
    })
    .jvp(move |v, t| {
        let p = net_of(v, false);
        net_loss_jvp(
            &p,
            &v[10..13],
            &y,
            (p.from_flat(&t[..10]), t[10..].to_vec()),
        )
    })
    .grad_into(move |v| {
        let p = net_of(v, false);
        let mut g = p.from_flat(&[GARBAGE; 10]);
        let mut gx = [GARBAGE; 3];
        let e = net_loss_grad_into(&p, &v[10..13], &y, (&mut g, &mut gx));
        let mut flat = g.to_flat();
        flat.extend(gx);
        (e, flat)
    })
    .run(POINTS, range(13, -1.0, 1.0));
    for pick in 0..4 {
        let name = format!("net_by_value pick={pick}");
        Probe::new(&name, move |v| net_by_value(net_of(v, false), v[10], pick))
            .grad(move |v| {
                let (e, (g, gx)) = net_by_value_grad(net_of(v, false), v[10], pick);
                let mut flat = g.to_flat();
                flat.push(gx);
                (e, flat)
            })
            .jvp(move |v, t| {
                let p = net_of(v, false);
                let tp = p.from_flat(&t[..10]);
                net_by_value_jvp(p, v[10], pick, (tp, t[10]))
            })
            .run(POINTS, range(11, -1.0, 1.0));
    }
}

// ---------------------------------------------------------------------------------------------------
// Custom and registered gradients in loops at order 2 and 3.

/// `y ← softplus(y) - bump(y)/2`, three times.
#[differentiable(order = 3)]
fn chain3(x: f64) -> f64 {
    let mut y = x;
    for _ in 0..3 {
        y = softplus(y) - 0.5 * bump(y);
    }
    y
}

/// `lse` of a window of `x` in a `for` over `windows`, with a weight active too.
#[differentiable(order = 2)]
fn windowed_lse(x: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for pair in x.windows(2) {
        let z = [pair[0] * w, pair[1]];
        s += lse(&z);
    }
    s
}

#[test]
fn custom_and_registered_in_loops_at_order_3() {
    let f = |x: f64| {
        let mut y = x;
        for _ in 0..3 {
            y = softplus_f(y) - 0.5 * (-(y * y)).exp();
        }
        y
    };
    let mut rng = Lcg::new(33);
    for _ in 0..POINTS {
        let x = rng.uniform(-2.0, 2.0);
        let d = chain3_derivatives(x);
        assert_near(d[0], f(x), 1e-12, 0.0, "chain3_derivatives' value");
        assert_near(chain3(x), f(x), 1e-12, 0.0, "chain3");
        assert_near(d[1], fd1(&f, x, 1e-6), 1e-6, 1.0, "chain3'");
        // By hand: y' = (sigmoid(y) + y e^{-y²}) y' at each step.
        let (mut y, mut dy) = (x, 1.0);
        for _ in 0..3 {
            dy *= sigmoid(y) + y * (-(y * y)).exp();
            y = softplus_f(y) - 0.5 * (-(y * y)).exp();
        }
        assert_near(d[1], dy, 1e-12, 1.0, "chain3' by hand");
    }
    check_third("chain3", chain3_derivatives, POINTS, -2.0, 2.0);
    Probe::new("windowed_lse", |v| windowed_lse(&v[..4], v[4]))
        .grad(|v| {
            let (e, (g, gw)) = windowed_lse_grad(&v[..4], v[4]);
            let mut flat = g;
            flat.push(gw);
            (e, flat)
        })
        .jvp(|v, t| windowed_lse_jvp(&v[..4], v[4], (t[..4].to_vec(), t[4])))
        .grad_into(|v| {
            let mut g = vec![GARBAGE; 4];
            let mut gw = GARBAGE;
            let e = windowed_lse_grad_into(&v[..4], v[4], (&mut g, &mut gw));
            g.push(gw);
            (e, g)
        })
        .hessian(|v| {
            let (e, (g, gw), h) = windowed_lse_hessian(&v[..4], v[4]);
            let mut flat = g;
            flat.push(gw);
            (e, flat, h)
        })
        .run(POINTS, range(5, -2.0, 2.0));
}

// ---------------------------------------------------------------------------------------------------
// Control flow mixes.

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Plain,
    Damped,
    Capped,
}

const CAP: usize = 3;

/// `loop` with `break value` under an enum compared with `==`, a `match` on it, shadowing, a `const` item.
#[differentiable(order = 2)]
fn looped(x: &[f64], mode: Mode) -> f64 {
    const K: f64 = 0.5;
    let mut total = 0.0;
    let mut i = 0;
    let found = loop {
        if i >= x.len() {
            break total;
        }
        let v = x[i];
        if mode == Mode::Capped && i >= CAP {
            break total * K;
        }
        let v = match mode {
            Mode::Plain | Mode::Capped => v,
            Mode::Damped => v * (-(i as f64) * K).exp(),
        };
        total += v.sin() * K + v * total;
        i += 1;
    };
    found * found + x[0]
}

/// An early `return` inside a `while` inside a `for`, a tuple carried through.
#[differentiable(order = 2)]
fn early(x: &[f64], limit: f64) -> f64 {
    let (mut a, mut b) = (1.0, 0.0);
    for i in 0..x.len() {
        let mut j = 0;
        while j <= i {
            a = a * 0.9 + x[j] * b;
            b += x[i] * x[j] * 0.1;
            if a > limit {
                return a * b + limit;
            }
            j += 1;
        }
    }
    let (p, q) = (a, b);
    p - q
}

/// Iterator chains: `rev().enumerate()`, `chunks`, `product`, `sum`, `zip`, on generic floats.
#[differentiable(order = 2)]
fn chains<T: Float>(x: &[T], y: &[T]) -> T {
    let mut s = T::zero();
    for (i, &v) in x.iter().rev().enumerate() {
        s = s + v * T::from(i + 1).unwrap();
    }
    let mut c = T::zero();
    for pair in y.chunks(2) {
        c = c + pair[0] * pair[1];
    }
    let p = x.iter().zip(y.iter()).fold(T::one(), |acc, (&a, &b)| {
        acc * (T::one() + a * b * T::from(0.1).unwrap())
    });
    s * c + p
}

/// The same chain forms on `f64` with closures, `map().sum()`, `product()`.
#[differentiable(order = 2)]
fn chains_f64(x: &[f64], y: &[f64]) -> f64 {
    let scale = |v: f64| 1.0 + 0.1 * v;
    let s: f64 = x
        .iter()
        .rev()
        .enumerate()
        .map(|(i, v)| v * (i + 1) as f64)
        .sum();
    let c: f64 = y.chunks(2).map(|p| p[0] * p[1]).sum();
    let p: f64 = x.iter().zip(y.iter()).map(|(a, b)| scale(a * b)).product();
    let w: f64 = x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
    s * c + p + w
}

/// `f32` throughout with a `match` on an integer range and a `const`.
#[differentiable(order = 2)]
fn f32_mix(x: f32, y: f32, k: u32) -> f32 {
    const HALF: f32 = 0.5;
    let t = match k {
        0 => x,
        1..=3 => x * y,
        _ => y.exp(),
    };
    let t = t * HALF + (x - y).powi(2);
    t.tanh() * y
}

fn chains_by_hand(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len();
    let s: f64 = (0..n).map(|i| x[n - 1 - i] * (i + 1) as f64).sum();
    let c: f64 = (0..y.len() / 2).map(|k| y[2 * k] * y[2 * k + 1]).sum();
    let p: f64 = (0..n).map(|i| 1.0 + 0.1 * x[i] * y[i]).product();
    s * c + p
}

type SlicePair = (Vec<f64>, Vec<f64>);

/// Checks a function of two slices of four through its generated items.
fn pair_of_slices(
    name: &str,
    f: fn(&[f64], &[f64]) -> f64,
    g: fn(&[f64], &[f64]) -> (f64, SlicePair),
    j: fn(&[f64], &[f64], SlicePair) -> (f64, f64),
    gi: fn(&[f64], &[f64], (&mut [f64], &mut [f64])) -> f64,
    h: fn(&[f64], &[f64]) -> (f64, SlicePair, Vec<Vec<f64>>),
) {
    let joined = |(mut a, b): SlicePair| {
        a.extend(b);
        a
    };
    Probe::new(name, move |v| f(&v[..4], &v[4..]))
        .grad(move |v| {
            let (e, gs) = g(&v[..4], &v[4..]);
            (e, joined(gs))
        })
        .jvp(move |v, t| j(&v[..4], &v[4..], (t[..4].to_vec(), t[4..].to_vec())))
        .grad_into(move |v| {
            let (mut a, mut b) = (vec![GARBAGE; 4], vec![GARBAGE; 4]);
            let e = gi(&v[..4], &v[4..], (&mut a, &mut b));
            (e, joined((a, b)))
        })
        .hessian(move |v| {
            let (e, gs, hm) = h(&v[..4], &v[4..]);
            (e, joined(gs), hm)
        })
        .run(POINTS, range(8, -1.5, 1.5));
}

#[test]
fn control_flow_mixes() {
    for mode in [Mode::Plain, Mode::Damped, Mode::Capped] {
        Probe::new("looped", move |v| looped(v, mode))
            .grad(move |v| looped_grad(v, mode))
            .jvp(move |v, t| looped_jvp(v, mode, t.to_vec()))
            .grad_into(move |v| {
                let mut g = vec![GARBAGE; v.len()];
                let e = looped_grad_into(v, mode, &mut g);
                (e, g)
            })
            .hessian(move |v| looped_hessian(v, mode))
            .run(POINTS, range(5, -1.0, 1.0));
    }

    // `early`'s `limit` is active too: probe over `(x, limit)`.
    Probe::new("early", |v| early(&v[..4], v[4]))
        .grad(|v| {
            let (e, (mut g, gl)) = early_grad(&v[..4], v[4]);
            g.push(gl);
            (e, g)
        })
        .jvp(|v, t| early_jvp(&v[..4], v[4], (t[..4].to_vec(), t[4])))
        .grad_into(|v| {
            let mut g = vec![GARBAGE; 4];
            let mut gl = GARBAGE;
            let e = early_grad_into(&v[..4], v[4], (&mut g, &mut gl));
            g.push(gl);
            (e, g)
        })
        .hessian(|v| {
            let (e, (mut g, gl), h) = early_hessian(&v[..4], v[4]);
            g.push(gl);
            (e, g, h)
        })
        .run(POINTS * 3, |r| {
            let mut v = r.vec(4, -1.5, 1.5);
            v.push(r.uniform(0.3, 2.0));
            v
        });

    pair_of_slices(
        "chains_f64",
        chains_f64,
        chains_f64_grad,
        chains_f64_jvp,
        chains_f64_grad_into,
        chains_f64_hessian,
    );
    pair_of_slices(
        "chains",
        chains,
        chains_grad,
        chains_jvp,
        chains_grad_into,
        chains_hessian,
    );
    let mut rng = Lcg::new(9);
    for _ in 0..POINTS {
        let v = rng.vec(8, -1.5, 1.5);
        assert_near(
            chains(&v[..4], &v[4..]),
            chains_by_hand(&v[..4], &v[4..]),
            1e-12,
            1.0,
            "chains value",
        );
        let w: f64 = (0..3).map(|i| (v[i + 1] - v[i]).powi(2)).sum();
        assert_near(
            chains_f64(&v[..4], &v[4..]),
            chains_by_hand(&v[..4], &v[4..]) + w,
            1e-12,
            1.0,
            "chains_f64 value",
        );
        let x32: Vec<f32> = v[..4].iter().map(|&u| u as f32).collect();
        let y32: Vec<f32> = v[4..].iter().map(|&u| u as f32).collect();
        let (_, (g32, _), h32) = chains_hessian(&x32, &y32);
        let (_, (g64, _), h64) = chains_hessian(&v[..4], &v[4..]);
        for i in 0..4 {
            assert_near(
                g32[i] as f64,
                g64[i],
                1e-4,
                norm(&g64),
                "chains f32 gradient",
            );
            for j in 0..8 {
                assert_near(
                    h32[i][j] as f64,
                    h64[i][j],
                    1e-4,
                    10.0,
                    "chains f32 Hessian",
                );
            }
        }
    }

    for k in [0u32, 2, 7] {
        let f = move |x: f64, y: f64| {
            let t = match k {
                0 => x,
                1..=3 => x * y,
                _ => y.exp(),
            };
            let t = t * 0.5 + (x - y).powi(2);
            t.tanh() * y
        };
        let mut rng = Lcg::new(k as u64 + 40);
        for _ in 0..POINTS {
            let (x, y) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
            let (v, (gx, gy)) = f32_mix_grad(x as f32, y as f32, k);
            assert_eq!(v, f32_mix(x as f32, y as f32, k));
            assert_near(v as f64, f(x, y), 1e-5, 1.0, "f32_mix value");
            let fx = fd1(&|u| f(u, y), x, 1e-6);
            let fy = fd1(&|u| f(x, u), y, 1e-6);
            assert_near(gx as f64, fx, 1e-4, 1.0, "f32_mix d/dx");
            assert_near(gy as f64, fy, 1e-4, 1.0, "f32_mix d/dy");
            let (_, dx) = f32_mix_jvp(x as f32, y as f32, k, (1.0, 0.0));
            assert_near(dx as f64, gx as f64, 1e-5, 1.0, "f32_mix jvp");
            let (_, _, h) = f32_mix_hessian(x as f32, y as f32, k);
            let hxy = fd1(
                &|u| f32_mix_grad(x as f32, u as f32, k).1 .0 as f64,
                y,
                1e-3,
            );
            assert_near(h[0][1] as f64, hxy, 1e-2, 1.0, "f32_mix Hessian");
            assert_near(
                h[0][1] as f64,
                h[1][0] as f64,
                1e-5,
                1.0,
                "f32_mix Hessian symmetric",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Batch two: more forms in combination.

#[derive(Clone, Debug, Differentiable)]
struct Joint {
    k: [f64; 3],
    rest: f64,
}

#[derive(Clone, Debug, Differentiable)]
struct Arm {
    joint: Joint,
    gains: Vec<f64>,
    #[no_grad]
    steps: usize,
    #[no_grad]
    damping: f64,
}

const WEIGHTS: [f64; 3] = [0.5, -1.25, 2.0];

impl Arm {
    /// Writes `buf[i] = sin(x_i - rest)`: an associated function with an output, called by methods.
    #[differentiable]
    fn fill(rest: f64, x: &[f64; 3], buf: &mut [f64]) {
        for i in 0..3 {
            buf[i] = (x[i] - rest).sin();
        }
    }

    /// `x^n` by recursion.
    #[differentiable(order = 3)]
    fn pow_rec(x: f64, n: u32) -> f64 {
        if n == 0 {
            1.0
        } else {
            x * Self::pow_rec(x, n - 1)
        }
    }

    /// A local buffer filled by `Self::fill`, read by an iterator chain with a `match` in its closure
    /// reading `self`'s fields,
    /// `const` weights, `Self::pow_rec`, a nested `fn`, over `self` and an array `x`.
    #[differentiable(wrt(self, x), order = 2)]
    fn torque(&self, x: [f64; 3]) -> f64 {
        fn half(v: f64) -> f64 {
            v * 0.5
        }
        let mut buf = vec![0.0; 3];
        Self::fill(self.joint.rest, &x, &mut buf);
        let s: f64 = buf
            .iter()
            .enumerate()
            .map(|(i, v)| match i % 3 {
                0 => (self.joint.k[i] * v).powi(2),
                1 => (self.joint.k[i] * v).sin(),
                _ => self.joint.k[i] * v * WEIGHTS[i],
            })
            .sum();
        let mut g = 0.0;
        for (i, &gain) in self.gains.iter().enumerate() {
            g += gain * Self::pow_rec(x[i % 3], (i % 3) as u32 + 1);
        }
        half(s) + g * self.damping
    }

    /// A constant `self`: `x` alone, order 3, `loop` with `break value` over `steps`, `self.torque`.
    #[differentiable(order = 3)]
    fn settle(&self, x: f64) -> f64 {
        let mut n = 0;
        let mut y = x;
        let out = loop {
            if n == self.steps {
                break y * self.joint.rest;
            }
            y = y - 0.1 * (y.sin() + self.torque([y, x, 0.5]) * 0.01);
            n += 1;
        };
        out + Self::pow_rec(x, 2)
    }

    /// Returns an array: `_jacobian`, `_vjp` with an array cotangent, `_jvp`.
    #[differentiable(wrt(self, x))]
    fn forces(&self, x: &[f64; 3]) -> [f64; 3] {
        let mut f = [0.0; 3];
        for i in 0..3 {
            f[i] = -self.joint.k[i] * (x[i] - self.joint.rest) + self.gains[i] * x[(i + 1) % 3];
        }
        f
    }
}

fn arm_of(v: &[f64], steps: usize) -> Arm {
    Arm {
        joint: Joint {
            k: [v[0], v[1], v[2]],
            rest: v[3],
        },
        gains: v[4..8].to_vec(),
        steps,
        damping: 0.7,
    }
}

fn arm_flat<S: Differentiable>(g: &S, gx: &[f64]) -> Vec<f64> {
    let mut flat = g.to_flat();
    flat.extend_from_slice(gx);
    flat
}

fn torque_by_hand(a: &Arm, x: [f64; 3]) -> f64 {
    let buf: Vec<f64> = (0..3)
        .map(|i| a.joint.k[i] * (x[i] - a.joint.rest).sin())
        .collect();
    let s = buf[0] * buf[0] + buf[1].sin() + buf[2] * WEIGHTS[2];
    let g: f64 = (0..a.gains.len())
        .map(|i| a.gains[i] * x[i % 3].powi((i % 3) as i32 + 1))
        .sum();
    0.5 * s + g * a.damping
}

#[test]
fn arm_torque_nested_struct_array_input_order_2() {
    Probe::new("Arm::torque", |v| {
        let a = arm_of(v, 0);
        let x = [v[8], v[9], v[10]];
        assert_near(
            a.torque(x),
            torque_by_hand(&a, x),
            1e-12,
            1.0,
            "torque by hand",
        );
        a.torque(x)
    })
    .grad(|v| {
        let (e, (g, gx)) = arm_of(v, 0).torque_grad([v[8], v[9], v[10]]);
        assert_eq!(g.steps, 0);
        assert_eq!(g.damping, 0.7);
        (e, arm_flat(&g, &gx))
    })
    .jvp(|v, t| {
        let a = arm_of(v, 0);
        a.torque_jvp(
            [v[8], v[9], v[10]],
            (a.from_flat(&t[..8]), [t[8], t[9], t[10]]),
        )
    })
    .grad_into(|v| {
        let a = arm_of(v, 0);
        let mut g = a.from_flat(&[GARBAGE; 8]);
        let mut gx = [GARBAGE; 3];
        let e = a.torque_grad_into([v[8], v[9], v[10]], (&mut g, &mut gx));
        (e, arm_flat(&g, &gx))
    })
    .hessian(|v| {
        let a = arm_of(v, 0);
        let x = [v[8], v[9], v[10]];
        let (e, (g, gx), h) = a.torque_hessian(x);
        let dir: Vec<f64> = (0..11).map(|i| (i as f64 * 0.37).sin()).collect();
        let (_, _, (hv, hvx)) =
            a.torque_hvp(x, (a.from_flat(&dir[..8]), [dir[8], dir[9], dir[10]]));
        let want: Vec<f64> = h.iter().map(|row| dot(row, &dir)).collect();
        assert_vec_near(&arm_flat(&hv, &hvx), &want, 1e-10, "torque_hvp");
        (e, arm_flat(&g, &gx), h)
    })
    .run(POINTS, range(11, -1.2, 1.2));
}

#[test]
fn arm_settle_constant_self_order_3() {
    let mut rng = Lcg::new(71);
    for steps in [0, 1, 4] {
        let a = arm_of(&rng.vec(8, -1.0, 1.0), steps);
        for _ in 0..POINTS {
            let x = rng.uniform(-1.5, 1.5);
            let d = a.settle_derivatives(x);
            assert_near(d[0], a.settle(x), 1e-12, 0.0, "settle");
            assert_near(
                d[1],
                fd1(&|y| a.settle(y), x, 1e-6),
                1e-6,
                d[1].abs(),
                "settle'",
            );
            let (_, g, h) = a.settle_hessian(x);
            assert_near(g, d[1], 1e-12, g.abs(), "settle_hessian gradient");
            assert_near(h[0][0], d[2], 1e-10, d[2].abs(), "settle_hessian");
            for k in 1..4 {
                let fd = fd1(&|y| a.settle_derivatives(y)[k - 1], x, 1e-6);
                assert_near(
                    d[k],
                    fd,
                    1e-5,
                    d[k].abs().max(fd.abs()),
                    &format!("settle derivative {k}"),
                );
            }
        }
    }
    for n in 0..5u32 {
        check_third(
            "Arm::pow_rec",
            |x| Arm::pow_rec_derivatives(x, 3),
            POINTS,
            -2.0,
            2.0,
        );
        let x = 1.3;
        let d = Arm::pow_rec_derivatives(x, n);
        let nf = n as f64;
        let want = [
            x.powi(n as i32),
            nf * x.powi(n as i32 - 1),
            nf * (nf - 1.0) * x.powi(n as i32 - 2),
            nf * (nf - 1.0) * (nf - 2.0) * x.powi(n as i32 - 3),
        ];
        assert_vec_near(&d, &want, 1e-12, "pow_rec_derivatives");
    }
}

#[test]
fn arm_forces_array_return_jacobian() {
    let f = |v: &[f64]| arm_of(v, 0).forces(&[v[8], v[9], v[10]]).to_vec();
    check_vector(
        "Arm::forces",
        POINTS,
        range(11, -1.5, 1.5),
        &f,
        &|v, d| {
            let (y, (g, gx)) = arm_of(v, 0).forces_vjp(&[v[8], v[9], v[10]], [d[0], d[1], d[2]]);
            (y.to_vec(), arm_flat(&g, &gx))
        },
        &|v, t| {
            let a = arm_of(v, 0);
            let (y, d) = a.forces_jvp(
                &[v[8], v[9], v[10]],
                (a.from_flat(&t[..8]), [t[8], t[9], t[10]]),
            );
            (y.to_vec(), d.to_vec())
        },
        Some(&|v| arm_of(v, 0).forces_jacobian(&[v[8], v[9], v[10]])),
    );
}

/// A parameter struct by value at order 2, with `wrt(..)` naming it and a `mut` parameter written.
#[differentiable(wrt(a, x), order = 2)]
fn by_value_arm(a: Arm, mut x: f64, scale: f64) -> f64 {
    x *= scale;
    let mut e = 0.0;
    for i in 0..3 {
        e += a.joint.k[i] * (x - a.joint.rest).powi(2) + a.gains[i] * x;
        x = x * 0.9 + a.gains[3];
    }
    e
}

/// A `Vec<f64>` by value, a `&Vec<f64>`, a sub-slice's `windows` and `chunks` through a call.
#[differentiable(order = 2)]
fn vec_params(v: Vec<f64>, w: &Vec<f64>) -> f64 {
    let tail = &v[1..];
    let rough: f64 = tail.windows(2).map(|p| (p[1] - p[0]).powi(2)).sum();
    let mut pairs = 0.0;
    for c in w.chunks(2) {
        pairs += pair_term(c);
    }
    rough + pairs * v[0]
}

#[differentiable(order = 2)]
fn pair_term(c: &[f64]) -> f64 {
    c[0] * c[1].exp()
}

#[test]
fn by_value_struct_and_vec_params() {
    Probe::new("by_value_arm", |v| by_value_arm(arm_of(v, 0), v[8], 1.1))
        .grad(|v| {
            let (e, (g, gx)) = by_value_arm_grad(arm_of(v, 0), v[8], 1.1);
            (e, arm_flat(&g, &[gx]))
        })
        .jvp(|v, t| {
            let a = arm_of(v, 0);
            let ta = a.from_flat(&t[..8]);
            by_value_arm_jvp(a, v[8], 1.1, (ta, t[8]))
        })
        .grad_into(|v| {
            let a = arm_of(v, 0);
            let mut g = a.from_flat(&[GARBAGE; 8]);
            let mut gx = GARBAGE;
            let e = by_value_arm_grad_into(a, v[8], 1.1, (&mut g, &mut gx));
            (e, arm_flat(&g, &[gx]))
        })
        .hessian(|v| {
            let (e, (g, gx), h) = by_value_arm_hessian(arm_of(v, 0), v[8], 1.1);
            (e, arm_flat(&g, &[gx]), h)
        })
        .run(POINTS, range(9, -1.2, 1.2));
    Probe::new("vec_params", |v| {
        vec_params(v[..4].to_vec(), &v[4..].to_vec())
    })
    .grad(|v| {
        let (e, (mut g, gw)) = vec_params_grad(v[..4].to_vec(), &v[4..].to_vec());
        g.extend(gw);
        (e, g)
    })
    .jvp(|v, t| {
        vec_params_jvp(
            v[..4].to_vec(),
            &v[4..].to_vec(),
            (t[..4].to_vec(), t[4..].to_vec()),
        )
    })
    .grad_into(|v| {
        let mut g = vec![GARBAGE; 4];
        let mut gw = vec![GARBAGE; 4];
        let e = vec_params_grad_into(v[..4].to_vec(), &v[4..].to_vec(), (&mut g, &mut gw));
        g.extend(gw);
        (e, g)
    })
    .hessian(|v| {
        let (e, (mut g, gw), h) = vec_params_hessian(v[..4].to_vec(), &v[4..].to_vec());
        g.extend(gw);
        (e, g, h)
    })
    .analytic(|v| {
        let (x, w) = (&v[..4], &v[4..]);
        let pairs = w[0] * w[1].exp() + w[2] * w[3].exp();
        let mut g = vec![0.0; 8];
        g[0] = pairs;
        for i in 1..3 {
            let d = 2.0 * (x[i + 1] - x[i]);
            g[i + 1] += d;
            g[i] -= d;
        }
        g[4] = x[0] * w[1].exp();
        g[5] = x[0] * w[0] * w[1].exp();
        g[6] = x[0] * w[3].exp();
        g[7] = x[0] * w[2] * w[3].exp();
        g
    })
    .run(POINTS, range(8, -1.2, 1.2));
}

// A method with a registered gradient in a `while` loop and `stop_gradient`, tuple returns.

#[derive(Clone, Debug, Differentiable)]
struct Bumps {
    centres: Vec<f64>,
    width: f64,
}

impl Bumps {
    /// `Σ bump((x - c_i)/width)` by `while`, the count frozen by `stop_gradient`.
    #[differentiable(wrt(self, x), order = 2)]
    fn density(&self, x: f64) -> f64 {
        let mut i = 0;
        let mut s = 0.0;
        while i < self.centres.len() {
            s += bump((x - self.centres[i]) / self.width);
            i += 1;
        }
        s / autodiff::stop_gradient(self.centres.len() as f64)
    }

    /// A tuple result: `_vjp` with a tuple cotangent, `_jvp` with a tuple tangent.
    #[differentiable(wrt(self, x))]
    fn moments(&self, x: f64) -> (f64, f64) {
        let (mut m0, mut m1) = (0.0, 0.0);
        for &c in self.centres.iter() {
            let b = bump((x - c) / self.width);
            m0 += b;
            m1 += b * c;
        }
        (m0, m1 / m0)
    }
}

fn bumps_of(v: &[f64]) -> Bumps {
    Bumps {
        centres: v[..3].to_vec(),
        width: 0.5 + v[3].abs(),
    }
}

#[test]
fn bumps_registered_gradient_in_methods() {
    Probe::new("Bumps::density", |v| bumps_of(v).density(v[4]))
        .grad(|v| {
            let (e, (g, gx)) = bumps_of(v).density_grad(v[4]);
            (e, arm_flat(&g, &[gx]))
        })
        .jvp(|v, t| {
            let b = bumps_of(v);
            b.density_jvp(v[4], (b.from_flat(&t[..4]), t[4]))
        })
        .hessian(|v| {
            let (e, (g, gx), h) = bumps_of(v).density_hessian(v[4]);
            (e, arm_flat(&g, &[gx]), h)
        })
        .analytic(|v| {
            let b = bumps_of(v);
            let x = v[4];
            let w = b.width;
            let mut g = vec![0.0; 5];
            for i in 0..3 {
                let u = (x - b.centres[i]) / w;
                let d = -2.0 * u * (-u * u).exp() / 3.0;
                g[i] = -d / w;
                g[3] += -d * u / w;
                g[4] += d / w;
            }
            g
        })
        .run(POINTS, |r| {
            let mut v = r.vec(5, -1.0, 1.0);
            v[3] = r.uniform(0.2, 1.0);
            v
        });
    let f = |v: &[f64]| {
        let (a, b) = bumps_of(v).moments(v[4]);
        vec![a, b]
    };
    check_vector(
        "Bumps::moments",
        POINTS,
        |r| {
            let mut v = r.vec(5, -1.0, 1.0);
            v[3] = r.uniform(0.2, 1.0);
            v
        },
        &f,
        &|v, d| {
            let (y, (g, gx)) = bumps_of(v).moments_vjp(v[4], (d[0], d[1]));
            (vec![y.0, y.1], arm_flat(&g, &[gx]))
        },
        &|v, t| {
            let b = bumps_of(v);
            let (y, d) = b.moments_jvp(v[4], (b.from_flat(&t[..4]), t[4]));
            (vec![y.0, y.1], vec![d.0, d.1])
        },
        None,
    );
}

/// An array field copied to a local and passed on by reference: the field is passed on whole (it was
/// taken for a scalar field: rustc's error in the generated code, `[f64; 3]: ConstantZero`).
#[differentiable(wrt(j))]
fn copied_field(j: &Joint, x: f64) -> f64 {
    let k = j.k;
    let shifted = k;
    weigh(&shifted, x - j.rest) + j.rest * x
}

#[differentiable]
fn weigh(k: &[f64; 3], u: f64) -> f64 {
    k[0] * u + k[2] * u * u
}

#[test]
fn array_field_copied_then_passed_on() {
    let joint = |v: &[f64]| Joint {
        k: [v[0], v[1], v[2]],
        rest: v[3],
    };
    for x in [-1.7, 0.3, 2.2] {
        let name = format!("copied_field x={x}");
        Probe::new(&name, move |v| copied_field(&joint(v), x))
            .grad(move |v| {
                let (e, g) = copied_field_grad(&joint(v), x);
                (e, g.to_flat())
            })
            .jvp(move |v, t| copied_field_jvp(&joint(v), x, joint(t)))
            .grad_into(move |v| {
                let mut g = joint(&[GARBAGE; 4]);
                let e = copied_field_grad_into(&joint(v), x, &mut g);
                (e, g.to_flat())
            })
            .analytic(move |v| {
                let u = x - v[3];
                vec![u, 0.0, u * u, -(v[0] + 2.0 * v[2] * u) + x]
            })
            .run(POINTS, range(4, -1.0, 1.0));
    }
}

// Named constants passed to calls: an enum's variant to a callee that matches on it, an integer `const`
// item, a float one, from first order and from `order = 2` (its generic copy).

const REPEATS: usize = 3;
const GAIN: f64 = 0.75;

/// `x^n k` by a `match` on the mode.
#[differentiable]
fn moded(x: f64, n: usize, k: f64, mode: Mode) -> f64 {
    let p = x.powi(n as i32) * k;
    match mode {
        Mode::Plain => p,
        Mode::Damped => p * (-x * x).exp(),
        Mode::Capped => p.min(1.0),
    }
}

/// The variant, the `const` items and a literal passed as they are.
#[differentiable(order = 2)]
fn passes_constants(x: f64, y: f64) -> f64 {
    moded(x, REPEATS, GAIN, Mode::Damped)
        + moded(y, 2, x, Mode::Plain) * GAIN
        + moded(x * y, REPEATS, y, Mode::Plain)
}

#[test]
fn named_constants_passed_to_calls() {
    let f =
        |x: f64, y: f64| x.powi(3) * 0.75 * (-x * x).exp() + y * y * x * 0.75 + (x * y).powi(3) * y;
    Probe::new("passes_constants", move |v| {
        assert_near(
            passes_constants(v[0], v[1]),
            f(v[0], v[1]),
            1e-12,
            1.0,
            "by hand",
        );
        passes_constants(v[0], v[1])
    })
    .grad(|v| {
        let (e, (gx, gy)) = passes_constants_grad(v[0], v[1]);
        (e, vec![gx, gy])
    })
    .jvp(|v, t| passes_constants_jvp(v[0], v[1], (t[0], t[1])))
    .grad_into(|v| {
        let (mut gx, mut gy) = (GARBAGE, GARBAGE);
        let e = passes_constants_grad_into(v[0], v[1], (&mut gx, &mut gy));
        (e, vec![gx, gy])
    })
    .hessian(hess2(passes_constants_hessian))
    .analytic(|v| {
        let (x, y) = (v[0], v[1]);
        let e = (-x * x).exp();
        let gx =
            0.75 * (3.0 * x * x * e - 2.0 * x.powi(4) * e) + 0.75 * y * y + 3.0 * x * x * y.powi(4);
        let gy = 1.5 * x * y + 4.0 * x.powi(3) * y.powi(3);
        vec![gx, gy]
    })
    .run(POINTS, range(2, -1.5, 1.5));
}

// ---------------------------------------------------------------------------------------------------
// Batch three: generic floats at order 3, outputs of several kinds, two-input custom gradients in
// iterator chains, registered gradients of two inputs in `fold`, matrices in methods, tuples.

/// A Newton-like iteration with an early `return` from a `while` and a generic helper over a local `Vec`.
#[differentiable(order = 3)]
fn settle_generic<T: Float>(x: T, n: usize) -> T {
    const STEPS: usize = 4;
    let half = T::from(0.5).unwrap();
    let mut ys = vec![T::zero(); STEPS];
    let mut y = x;
    let mut i = 0;
    while i < STEPS {
        y = y - half * (y * y - x * T::from(n + 1).unwrap()) / (y + T::from(3.0).unwrap());
        ys[i] = y;
        if i == n {
            return weigh_all(&ys) + y;
        }
        i += 1;
    }
    weigh_all(&ys)
}

#[differentiable(order = 3)]
fn weigh_all<T: Float>(v: &[T]) -> T {
    let mut s = T::zero();
    for (i, &a) in v.iter().enumerate() {
        s = s + a * T::from(i + 1).unwrap();
    }
    s
}

#[test]
fn generic_order_3_with_early_return_on_f32_and_f64() {
    for n in [0usize, 2, 9] {
        let name = format!("settle_generic n={n}");
        check_third(
            &name,
            |x| settle_generic_derivatives(x, 2),
            POINTS,
            0.5,
            2.0,
        );
        let mut rng = Lcg::new(n as u64 + 90);
        for _ in 0..POINTS {
            let x = rng.uniform(0.5, 2.0);
            let d = settle_generic_derivatives(x, n);
            assert_near(
                d[0],
                settle_generic(x, n),
                1e-12,
                0.0,
                "settle_generic value",
            );
            let fd = fd1(&|y| settle_generic(y, n), x, 1e-6);
            assert_near(
                d[1],
                fd,
                1e-6,
                d[1].abs(),
                &format!("{name}: first derivative"),
            );
            for k in 1..4 {
                let fd = fd1(&|y| settle_generic_derivatives(y, n)[k - 1], x, 1e-6);
                assert_near(
                    d[k],
                    fd,
                    1e-5,
                    d[k].abs().max(fd.abs()),
                    &format!("{name}: derivative {k}"),
                );
            }
            let d32 = settle_generic_derivatives(x as f32, n);
            for k in 0..4 {
                assert_near(
                    d32[k] as f64,
                    d[k],
                    1e-3,
                    d[k].abs(),
                    &format!("{name}: f32 derivative {k}"),
                );
            }
        }
    }
}

/// Two outputs: an array and a scalar whose incoming value is read first, a struct and a slice input.
#[differentiable]
fn split(j: &Joint, x: &[f64], pair: &mut [f64; 2], acc: &mut f64) -> f64 {
    *acc = *acc * j.rest + x[0];
    pair[0] = j.k[0] * x[1] + *acc;
    pair[1] = (j.k[1] * x[0]).sin() * j.k[2];
    pair[0] * pair[1]
}

#[test]
fn outputs_array_and_scalar_beside_a_struct() {
    let joint = |v: &[f64]| Joint {
        k: [v[0], v[1], v[2]],
        rest: v[3],
    };
    // Inputs: the struct (4), x (2), acc's incoming value (1).
    let run = |v: &[f64]| {
        let mut pair = [0.0; 2];
        let mut acc = v[6];
        let r = split(&joint(v), &v[4..6], &mut pair, &mut acc);
        (r, pair, acc)
    };
    let mut rng = Lcg::new(44);
    for _ in 0..POINTS {
        let v = rng.vec(7, -1.2, 1.2);
        let (d_ret, d_pair, d_acc) = (
            rng.uniform(-1.0, 1.0),
            [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)],
            rng.uniform(-1.0, 1.0),
        );
        let scalar = |u: &[f64]| {
            let (r, pair, acc) = run(u);
            d_ret * r + d_pair[0] * pair[0] + d_pair[1] * pair[1] + d_acc * acc
        };
        let mut pair = [GARBAGE; 2];
        let mut acc = v[6];
        let (r, (gj, gx, gacc)) = split_vjp(
            &joint(&v),
            &v[4..6],
            &mut pair,
            &mut acc,
            d_ret,
            &d_pair,
            d_acc,
        );
        let (r0, pair0, acc0) = run(&v);
        assert_near(r, r0, 1e-14, 0.0, "split_vjp value");
        assert_vec_near(&pair, &pair0, 1e-14, "split_vjp pair");
        assert_near(acc, acc0, 1e-14, 0.0, "split_vjp acc");
        let mut got = gj.to_flat();
        got.extend(gx);
        got.push(gacc);
        assert_vec_near(&got, &fd_gradient(&scalar, &v), 1e-6, "split_vjp");
        // Forward mode: the tangents of the result and of both outputs.
        let t = rng.vec(7, -1.0, 1.0);
        let mut pair = [GARBAGE; 2];
        let mut acc = v[6];
        let mut d_pair_t = [GARBAGE; 2];
        let mut d_acc_t = GARBAGE;
        let (_, dr) = split_jvp(
            &joint(&v),
            &v[4..6],
            &mut pair,
            &mut acc,
            (joint(&t), t[4..6].to_vec(), t[6]),
            &mut d_pair_t,
            &mut d_acc_t,
        );
        let cols = fd_columns(
            &|u: &[f64]| {
                let (r, pair, acc) = run(u);
                vec![r, pair[0], pair[1], acc]
            },
            &v,
        );
        let along: Vec<f64> = (0..4)
            .map(|i| (0..7).map(|j| cols[j][i] * t[j]).sum())
            .collect();
        assert_vec_near(
            &[dr, d_pair_t[0], d_pair_t[1], d_acc_t],
            &along,
            1e-6,
            "split_jvp",
        );
        // `_grad` of the returned float, the outputs' cotangents zero; `_grad_into` the same.
        let mut pair = [GARBAGE; 2];
        let mut acc = v[6];
        let (_, (gj, gx, gacc)) = split_grad(&joint(&v), &v[4..6], &mut pair, &mut acc);
        let only = |u: &[f64]| run(u).0;
        let mut got = gj.to_flat();
        got.extend(gx);
        got.push(gacc);
        assert_vec_near(&got, &fd_gradient(&only, &v), 1e-6, "split_grad");
        let mut pair = [GARBAGE; 2];
        let mut acc = v[6];
        let mut bj = joint(&[GARBAGE; 4]);
        let mut bx = [GARBAGE; 2];
        let mut bacc = GARBAGE;
        let _ = split_grad_into(
            &joint(&v),
            &v[4..6],
            &mut pair,
            &mut acc,
            (&mut bj, &mut bx, &mut bacc),
        );
        let mut into = bj.to_flat();
        into.extend(bx);
        into.push(bacc);
        assert_vec_near(&into, &got, 1e-14, "split_grad_into");
    }
}

/// A custom gradient of two inputs, its closure returning a tuple.
#[custom_gradient]
fn soft_max2(a: f64, b: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    let m = a.max(b);
    let (ea, eb) = ((a - m).exp(), (b - m).exp());
    let s = ea + eb;
    (m + s.ln(), move |dy| (dy * ea / s, dy * eb / s))
}

mod outside2 {
    /// A function of two inputs we do not own.
    pub fn blend(a: f64, b: f64) -> f64 {
        a * b.cos() + b * b
    }
}

#[gradient_of(outside2::blend)]
fn blend_vjp(a: f64, b: f64, dy: f64) -> (f64, f64) {
    (dy * b.cos(), dy * (-a * b.sin() + 2.0 * b))
}

#[derive(Clone, Debug, Differentiable)]
struct Pool {
    w: Vec<f64>,
    temp: f64,
}

impl Pool {
    /// `soft_max2` in a `zip` chain of `self.w` and `x`, `blend` in a `fold`, at order 2.
    #[differentiable(wrt(self, x), order = 2)]
    fn score(&self, x: &[f64]) -> f64 {
        let pooled = self
            .w
            .iter()
            .zip(x.iter())
            .map(|(&w, &xi)| soft_max2(w * xi, self.temp))
            .sum::<f64>();
        let blended = x
            .iter()
            .fold(0.0, |acc, &xi| acc + outside2::blend(xi, self.temp));
        pooled + blended
    }
}

#[test]
fn two_input_custom_and_registered_gradients_in_chains_of_a_method() {
    let pool = |v: &[f64]| Pool {
        w: v[..3].to_vec(),
        temp: v[3],
    };
    Probe::new("Pool::score", move |v| pool(v).score(&v[4..]))
        .grad(move |v| {
            let (e, (g, gx)) = pool(v).score_grad(&v[4..]);
            (e, arm_flat(&g, &gx))
        })
        .jvp(move |v, t| pool(v).score_jvp(&v[4..], (pool(t), t[4..].to_vec())))
        .grad_into(move |v| {
            let mut g = pool(&[GARBAGE; 4]);
            let mut gx = vec![GARBAGE; 3];
            let e = pool(v).score_grad_into(&v[4..], (&mut g, &mut gx));
            (e, arm_flat(&g, &gx))
        })
        .hessian(move |v| {
            let (e, (g, gx), h) = pool(v).score_hessian(&v[4..]);
            (e, arm_flat(&g, &gx), h)
        })
        .run(POINTS, range(7, -1.5, 1.5));
}

/// A matrix and a nested array in a method of a constant `self` at order 2, through `Self::g`.
struct Grid {
    scale: f64,
}

impl Grid {
    #[differentiable(order = 2)]
    fn bilinear(m: &[Vec<f64>], a: [[f64; 2]; 2], x: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..m.len() {
            for j in 0..m[i].len() {
                s += m[i][j] * a[i % 2][j % 2] * x.powi((i + j) as i32);
            }
        }
        s
    }

    #[differentiable(order = 2)]
    fn energy(&self, m: &[Vec<f64>], a: [[f64; 2]; 2], x: f64) -> f64 {
        let b = Self::bilinear(m, a, x);
        b * b * self.scale + a[0][1] * a[1][0]
    }
}

#[test]
fn matrices_in_a_constant_self_method_at_order_2() {
    let g = Grid { scale: 0.3 };
    let parts = |v: &[f64]| {
        let m = vec![v[0..3].to_vec(), v[3..6].to_vec()];
        let a = [[v[6], v[7]], [v[8], v[9]]];
        (m, a, v[10])
    };
    let flat = |gm: &[Vec<f64>], ga: &[[f64; 2]; 2], gx: f64| {
        let mut f: Vec<f64> = gm.iter().flatten().copied().collect();
        f.extend(ga.iter().flatten());
        f.push(gx);
        f
    };
    Probe::new("Grid::energy", |v| {
        let (m, a, x) = parts(v);
        g.energy(&m, a, x)
    })
    .grad(|v| {
        let (m, a, x) = parts(v);
        let (e, (gm, ga, gx)) = g.energy_grad(&m, a, x);
        (e, flat(&gm, &ga, gx))
    })
    .jvp(|v, t| {
        let (m, a, x) = parts(v);
        let (tm, ta, tx) = parts(t);
        g.energy_jvp(&m, a, x, (tm, ta, tx))
    })
    .hessian(|v| {
        let (m, a, x) = parts(v);
        let (e, (gm, ga, gx), h) = g.energy_hessian(&m, a, x);
        (e, flat(&gm, &ga, gx), h)
    })
    .run(POINTS, range(11, -1.0, 1.0));
}

/// A tuple parameter and a tuple result, a closure capturing an active value called in a loop.
#[differentiable]
fn tupled(p: (f64, f64), n: usize) -> (f64, f64) {
    let (a, b) = p;
    let lift = |v: f64| v * a + b;
    let mut s = b;
    for _ in 0..n {
        s = lift(s).sin();
    }
    (s, s * a)
}

#[test]
fn tuple_parameter_and_result_with_a_capturing_closure() {
    for n in [0usize, 1, 3] {
        let name = format!("tupled n={n}");
        check_vector(
            &name,
            POINTS,
            range(2, -1.2, 1.2),
            &|v| {
                let (s, t) = tupled((v[0], v[1]), n);
                vec![s, t]
            },
            &|v, d| {
                let ((s, t), (ga, gb)) = tupled_vjp((v[0], v[1]), n, (d[0], d[1]));
                (vec![s, t], vec![ga, gb])
            },
            &|v, t| {
                let ((s, u), (ds, du)) = tupled_jvp((v[0], v[1]), n, (t[0], t[1]));
                (vec![s, u], vec![ds, du])
            },
            None,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// Batch four: values swapped through tuples, arrays overwritten and read back, `continue` and labelled
// `break`, ranges reversed and stepped, float methods in chains, mutual recursion of methods.

/// A Fibonacci-like swap by tuple, shadowed in the loop, with `continue` on even steps.
#[differentiable(order = 2)]
fn swaps(x: f64, y: f64, n: usize) -> f64 {
    let (mut a, mut b) = (x, y);
    for i in 0..n {
        if i % 3 == 2 {
            continue;
        }
        let (c, d) = (b, a * 0.5 + b.sin());
        a = c;
        b = d;
        let b = b * 1.0;
        a += b * 0.1;
    }
    a * b
}

/// A local copy overwritten in place and read back, in reversed and stepped ranges.
#[differentiable(order = 2)]
fn overwrite(x: &[f64]) -> f64 {
    let mut y = x.to_vec();
    for i in (1..y.len()).rev() {
        y[i] = y[i] * y[i - 1] + y[i].cos();
    }
    for i in (0..y.len()).step_by(2) {
        y[i] = (y[i] * 0.5).tanh();
    }
    let mut s = 0.0;
    'outer: for i in 0..y.len() {
        for j in 0..i {
            if y[i] * y[j] > 0.9 {
                break 'outer;
            }
            s += y[i] * y[j];
        }
    }
    for (i, &a) in y.iter().rev().enumerate() {
        s += a * x[i];
    }
    s
}

/// Float methods with kinks in a chain: `hypot`, `atan2`, `mul_add`, `clamp`, `abs`, `max`.
#[differentiable(order = 2)]
fn kinks(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .zip(y.iter())
        .map(|(a, b)| {
            a.hypot(*b) + b.atan2(*a) + a.mul_add(*b, 0.5).clamp(-1.0, 1.0) + (a - b).abs().max(0.2)
        })
        .sum()
}

struct Parity;

impl Parity {
    /// Mutual recursion of associated functions at order 2.
    #[differentiable(order = 2)]
    fn even(x: f64, n: u32) -> f64 {
        if n == 0 {
            x.cos()
        } else {
            Self::odd(x * 0.9, n - 1) + x
        }
    }

    #[differentiable(order = 2)]
    fn odd(x: f64, n: u32) -> f64 {
        if n == 0 {
            x.sin()
        } else {
            Self::even(x * 1.1, n - 1) * x
        }
    }
}

#[test]
fn swaps_overwrites_kinks_and_mutual_recursion() {
    for n in [0usize, 1, 2, 5, 8] {
        let name = format!("swaps n={n}");
        Probe::new(&name, move |v| swaps(v[0], v[1], n))
            .grad(move |v| {
                let (e, (a, b)) = swaps_grad(v[0], v[1], n);
                (e, vec![a, b])
            })
            .jvp(move |v, t| swaps_jvp(v[0], v[1], n, (t[0], t[1])))
            .grad_into(move |v| {
                let (mut a, mut b) = (GARBAGE, GARBAGE);
                let e = swaps_grad_into(v[0], v[1], n, (&mut a, &mut b));
                (e, vec![a, b])
            })
            .hessian(move |v| {
                let (e, (a, b), h) = swaps_hessian(v[0], v[1], n);
                (e, vec![a, b], h)
            })
            .run(POINTS, range(2, -1.5, 1.5));
    }
    Probe::new("overwrite", overwrite)
        .grad(overwrite_grad)
        .jvp(|v, t| overwrite_jvp(v, t.to_vec()))
        .grad_into(|v| {
            let mut g = vec![GARBAGE; v.len()];
            let e = overwrite_grad_into(v, &mut g);
            (e, g)
        })
        .hessian(hess_slice(overwrite_hessian))
        .run(POINTS * 2, |r| {
            // Away from the ties of `y[i] y[j] > 0.9`.
            loop {
                let v = r.vec(5, -1.2, 1.2);
                let mut y = v.clone();
                for i in (1..5).rev() {
                    y[i] = y[i] * y[i - 1] + y[i].cos();
                }
                for i in (0..5).step_by(2) {
                    y[i] = (y[i] * 0.5).tanh();
                }
                let ok = (0..5).all(|i| (0..i).all(|j| (y[i] * y[j] - 0.9).abs() > 0.02));
                if ok {
                    break v;
                }
            }
        });
    Probe::new("kinks", |v| kinks(&v[..3], &v[3..]))
        .grad(|v| {
            let (e, (mut g, gy)) = kinks_grad(&v[..3], &v[3..]);
            g.extend(gy);
            (e, g)
        })
        .jvp(|v, t| kinks_jvp(&v[..3], &v[3..], (t[..3].to_vec(), t[3..].to_vec())))
        .hessian(|v| {
            let (e, (mut g, gy), h) = kinks_hessian(&v[..3], &v[3..]);
            g.extend(gy);
            (e, g, h)
        })
        .run(POINTS * 2, |r| loop {
            let v = r.vec(6, -1.5, 1.5);
            let ok = (0..3).all(|i| {
                let (a, b) = (v[i], v[3 + i]);
                ((a * b + 0.5).abs() - 1.0).abs() > 0.02
                    && ((a - b).abs() - 0.2).abs() > 0.02
                    && a.abs() > 0.05
            });
            if ok {
                break v;
            }
        });
    for n in 0..5u32 {
        let f = move |x: f64| {
            fn even(x: f64, n: u32) -> f64 {
                if n == 0 {
                    x.cos()
                } else {
                    odd(x * 0.9, n - 1) + x
                }
            }
            fn odd(x: f64, n: u32) -> f64 {
                if n == 0 {
                    x.sin()
                } else {
                    even(x * 1.1, n - 1) * x
                }
            }
            even(x, n)
        };
        let mut rng = Lcg::new(n as u64 + 300);
        for _ in 0..POINTS {
            let x = rng.uniform(-2.0, 2.0);
            let (v, g) = Parity::even_grad(x, n);
            assert_near(v, f(x), 1e-12, 0.0, "even value");
            assert_near(g, fd1(&f, x, 1e-6), 1e-6, g.abs(), "even'");
            let (_, _, h) = Parity::even_hessian(x, n);
            let fd = fd1(&|y| Parity::even_grad(y, n).1, x, 1e-6);
            assert_near(h[0][0], fd, 1e-5, fd.abs(), "even''");
            let d = Parity::even_derivatives(x, n);
            assert_near(d[2], h[0][0], 1e-10, fd.abs(), "even_derivatives");
        }
    }
}

/// A `Vec` result over a struct, a matrix and a scalar, chosen by a `match` on an integer: `_jacobian`
/// with the columns flattened in declaration order (the struct's, the matrix row-major, the scalar).
#[differentiable]
fn mixed_rows(p: &Joint, m: &[Vec<f64>], x: f64, pick: u8) -> Vec<f64> {
    let mut out = vec![0.0; 3];
    for i in 0..3 {
        let row = match pick {
            0 => m[0][i] * p.k[i],
            1 | 2 => m[1][i] * x + p.rest,
            _ => (m[0][i] - m[1][i]) * p.k[(i + 1) % 3],
        };
        out[i] = row * x.exp() + p.rest * m[i % 2][0];
    }
    out
}

#[test]
fn vec_result_over_a_struct_a_matrix_and_a_scalar() {
    let parts = |v: &[f64]| {
        let j = Joint {
            k: [v[0], v[1], v[2]],
            rest: v[3],
        };
        let m = vec![v[4..7].to_vec(), v[7..10].to_vec()];
        (j, m, v[10])
    };
    for pick in [0u8, 2, 7] {
        let name = format!("mixed_rows pick={pick}");
        check_vector(
            &name,
            POINTS,
            range(11, -1.2, 1.2),
            &|v| {
                let (j, m, x) = parts(v);
                mixed_rows(&j, &m, x, pick)
            },
            &|v, d| {
                let (j, m, x) = parts(v);
                let (y, (gj, gm, gx)) = mixed_rows_vjp(&j, &m, x, pick, d.to_vec());
                let mut flat = gj.to_flat();
                flat.extend(gm.iter().flatten());
                flat.push(gx);
                (y, flat)
            },
            &|v, t| {
                let (j, m, x) = parts(v);
                let (tj, tm, tx) = parts(t);
                mixed_rows_jvp(&j, &m, x, pick, (tj, tm, tx))
            },
            Some(&|v| {
                let (j, m, x) = parts(v);
                mixed_rows_jacobian(&j, &m, x, pick)
            }),
        );
    }
}
