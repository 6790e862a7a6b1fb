//! matrix33: the contract's tables crossed, one cell at a time, as an outside suite written against
//! API.md would test them.
//!
//! Axes: the parameter types of API.md's table (`f64`, `f32`, `T: Float`, `&f64`, `&[T]`, `&Vec<T>`,
//! `Vec<T>`, `[T; N]`, `&[T; N]`, `&[Vec<T>]`, `Vec<Vec<T>>`, `[[T; M]; N]`, `(f64, f64)`,
//! `([f64; 2], f64)`, a `Differentiable` struct by `&` and by value, `&mut` outputs of a float, a slice,
//! a `Vec` and an array, integers and `bool` passed through, several active parameters, `wrt(..)`
//! subsets, `mut` by-value parameters), the return types (a float, a tuple, `[T; N]`, `Vec<T>`, `()`
//! with outputs), the generated items (`_grad`, `_vjp`, `_jvp`, `_grad_into`, `_jacobian`, and with
//! `order = 2`/`3` `_hvp`, `_hessian`, `_derivatives`) and where the function lives (free, generic,
//! `&self`/`self`/`wrt(self)` methods, an associated function, a generic `impl`, nested modules, calls at
//! `order = K` to `f64` functions, a `#[custom_gradient]` and a `#[gradient_of(libm::erf)]`).
//!
//! Each parameter type has one function with a float result (at `order = 2`, so every item of a float
//! result is met) and one with a vector result; every pair (parameter type x item) is met at least once.
//! The file was written by hand from that plan; each signature is pinned by a `let _: fn(..) = f_item;`
//! as API.md spells it. Every cell checks values against central differences and, where the formula is
//! short, against the derivative worked out by hand, at several seeded inputs, and the items against
//! each other: `_vjp` with `d_ret = 1` is `_grad` (and linear in `d_ret`), `_jvp` is the gradient
//! dotted with the tangent, `_grad_into` with NaN-filled buffers is `_grad`, `_jacobian`'s rows are
//! `_vjp` of unit cotangents, `_hessian` is central differences of `_grad`, `_hvp` is `_hessian` times
//! the direction (each unit column and a random one), `_derivatives` are central differences of the
//! previous order.
//!
//! The cells are in two files (this one: scalars, `f32`, `T: Float` on `f32`, `Dual<f64>` and
//! `Dual<Dual<f64>>`, `&f64`, sequences, matrices, tuples; `tests/matrix33_more.rs`: structs, outputs,
//! integers and `bool`, `wrt(..)`, methods, a generic `impl`, modules and calls), sharing
//! `tests/matrix33/harness.rs`. No wrong value was found. Three programs API.md allows did not compile
//! and were fixed with this probe: `vec![m::sq(x)]` (a call by a path inside `vec!`, `shadow.rs`),
//! `*out = [..]` and `out.copy_from_slice(&[..])` of an array output (`slice_writes.rs`), and an `f32`
//! matrix by reference, `&[Vec<f32>]`, `&[[f32; 3]; 2]`, `&[[f32; 3]]` (`struct_whole::pairs`).

// The forms as a user writes them: a copy by a loop (`s_vec_mut`), `s = s + ..` in generic code, a
// compound assignment that reads its target (`m[i][j] *= m[i][j] * head` in `s_nested_mut`).
#![allow(
    clippy::manual_memcpy,
    clippy::misrefactored_assign_op,
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::ptr_arg,
    clippy::too_many_arguments
)]

mod common;
#[path = "matrix33/harness.rs"]
mod harness;

use autodiff::{differentiable, Dual, Float};
use harness::*;

// ---------------------------------------------------------------------------------------------------
// `f64`: two active scalars (float result, `order = 2`), the tuple result, the array result, and one
// active scalar beside an inactive `degree: usize` at `order = 3`.

#[differentiable(order = 2)]
fn s_f64(x: f64, y: f64) -> f64 {
    (x * y).sin() + x * x * y.exp()
}

fn s_f64_exact(v: &[f64]) -> Flat {
    let (x, y) = (v[0], v[1]);
    vec![
        y * (x * y).cos() + 2.0 * x * y.exp(),
        x * (x * y).cos() + x * x * y.exp(),
    ]
}

fn s_f64_hess(v: &[f64]) -> Vec<Flat> {
    let (x, y) = (v[0], v[1]);
    let s = (x * y).sin();
    let c = (x * y).cos();
    let xy = c - x * y * s + 2.0 * x * y.exp();
    vec![
        vec![-y * y * s + 2.0 * y.exp(), xy],
        vec![xy, -x * x * s + x * x * y.exp()],
    ]
}

#[test]
fn f64_scalars() {
    let _: fn(f64, f64) -> (f64, (f64, f64)) = s_f64_grad;
    let _: fn(f64, f64, f64) -> (f64, (f64, f64)) = s_f64_vjp;
    let _: fn(f64, f64, (f64, f64)) -> (f64, f64) = s_f64_jvp;
    let _: fn(f64, f64, (&mut f64, &mut f64)) -> f64 = s_f64_grad_into;
    let _: fn(f64, f64, (f64, f64)) -> (f64, (f64, f64), (f64, f64)) = s_f64_hvp;
    let _: fn(f64, f64) -> (f64, (f64, f64), Vec<Vec<f64>>) = s_f64_hessian;
    let pair = |g: (f64, f64)| vec![g.0, g.1];
    scalar(Scalar {
        name: "s_f64",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_f64(x[0], x[1]),
        grad: &|x| {
            let (v, g) = s_f64_grad(x[0], x[1]);
            (v, pair(g))
        },
        vjp: &|x, d| {
            let (v, g) = s_f64_vjp(x[0], x[1], d);
            (v, pair(g))
        },
        jvp: &|x, t| s_f64_jvp(x[0], x[1], (t[0], t[1])),
        into: &|x| {
            let (mut a, mut b) = (GARBAGE, GARBAGE);
            let v = s_f64_grad_into(x[0], x[1], (&mut a, &mut b));
            (v, vec![a, b])
        },
        exact: Some(&s_f64_exact),
    });
    second(Second {
        name: "s_f64",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_f64_grad(x[0], x[1]);
            (v, pair(g))
        },
        hessian: &|x| {
            let (v, g, h) = s_f64_hessian(x[0], x[1]);
            (v, pair(g), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_f64_hvp(x[0], x[1], (d[0], d[1]));
            (v, pair(g), pair(p))
        },
        exact: Some(&s_f64_hess),
    });
}

#[differentiable(order = 3)]
fn d_f64(x: f64, degree: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..=degree {
        s += x.powi(k as i32) / (k + 1) as f64;
    }
    s * x.sin()
}

#[test]
fn f64_derivatives_beside_an_integer() {
    let _: fn(f64, usize) -> [f64; 4] = d_f64_derivatives;
    let _: fn(f64, usize) -> (f64, f64) = d_f64_grad;
    let _: fn(f64, usize, f64) -> (f64, f64, f64) = d_f64_hvp;
    for degree in [0usize, 2, 3] {
        // p(x) = sum x^k / (k + 1); f = p sin; f' = p' sin + p cos; f'' = p'' sin + 2 p' cos - p sin;
        // f''' = p''' sin + 3 p'' cos - 3 p' sin - p cos.
        let exact = move |x: f64| {
            let mut p = [0.0; 4];
            for k in 0..=degree {
                let c = 1.0 / (k + 1) as f64;
                let kf = k as f64;
                p[0] += c * x.powi(k as i32);
                if k >= 1 {
                    p[1] += c * kf * x.powi(k as i32 - 1);
                }
                if k >= 2 {
                    p[2] += c * kf * (kf - 1.0) * x.powi(k as i32 - 2);
                }
                if k >= 3 {
                    p[3] += c * kf * (kf - 1.0) * (kf - 2.0) * x.powi(k as i32 - 3);
                }
            }
            let (s, c) = x.sin_cos();
            vec![
                p[0] * s,
                p[1] * s + p[0] * c,
                p[2] * s + 2.0 * p[1] * c - p[0] * s,
                p[3] * s + 3.0 * p[2] * c - 3.0 * p[1] * s - p[0] * c,
            ]
        };
        derivatives(
            &format!("d_f64 degree {degree}"),
            -1.5,
            1.5,
            &|x| d_f64(x, degree),
            &|x| d_f64_derivatives(x, degree).to_vec(),
            &|x| d_f64_grad(x, degree),
            Some(&exact),
        );
        scalar(Scalar {
            name: &format!("d_f64 degree {degree}"),
            n: 1,
            lo: -1.5,
            hi: 1.5,
            f: &|x| d_f64(x[0], degree),
            grad: &|x| {
                let (v, g) = d_f64_grad(x[0], degree);
                (v, vec![g])
            },
            vjp: &|x, d| {
                let (v, g) = d_f64_vjp(x[0], degree, d);
                (v, vec![g])
            },
            jvp: &|x, t| d_f64_jvp(x[0], degree, t[0]),
            into: &|x| {
                let mut g = GARBAGE;
                let v = d_f64_grad_into(x[0], degree, &mut g);
                (v, vec![g])
            },
            exact: Some(&|x: &[f64]| vec![exact(x[0])[1]]),
        });
    }
}

#[differentiable]
fn t_f64(x: f64, y: f64) -> (f64, f64) {
    (x * y.cos(), x.exp() - y * y)
}

#[differentiable]
fn a_f64(x: f64, y: f64) -> [f64; 3] {
    [x * y, x.sin(), (x - y).powi(3)]
}

#[test]
fn f64_vector_results() {
    let _: fn(f64, f64, (f64, f64)) -> ((f64, f64), (f64, f64)) = t_f64_vjp;
    let _: fn(f64, f64, (f64, f64)) -> ((f64, f64), (f64, f64)) = t_f64_jvp;
    vector(
        "t_f64",
        2,
        -1.5,
        1.5,
        &|x| {
            let r = t_f64(x[0], x[1]);
            vec![r.0, r.1]
        },
        &|x, c| {
            let (r, g) = t_f64_vjp(x[0], x[1], (c[0], c[1]));
            (vec![r.0, r.1], vec![g.0, g.1])
        },
        &|x, t| {
            let (r, d) = t_f64_jvp(x[0], x[1], (t[0], t[1]));
            (vec![r.0, r.1], vec![d.0, d.1])
        },
        None,
    );
    let _: fn(f64, f64, [f64; 3]) -> ([f64; 3], (f64, f64)) = a_f64_vjp;
    let _: fn(f64, f64, (f64, f64)) -> ([f64; 3], [f64; 3]) = a_f64_jvp;
    let _: fn(f64, f64) -> Vec<Vec<f64>> = a_f64_jacobian;
    vector(
        "a_f64",
        2,
        -1.5,
        1.5,
        &|x| a_f64(x[0], x[1]).to_vec(),
        &|x, c| {
            let (r, g) = a_f64_vjp(x[0], x[1], arr(c));
            (r.to_vec(), vec![g.0, g.1])
        },
        &|x, t| {
            let (r, d) = a_f64_jvp(x[0], x[1], (t[0], t[1]));
            (r.to_vec(), d.to_vec())
        },
        Some(&|x| a_f64_jacobian(x[0], x[1])),
    );
    // By hand at one point.
    let j = a_f64_jacobian(0.3, -0.7);
    let e = [
        [-0.7, 0.3],
        [0.3f64.cos(), 0.0],
        [3.0 * 1.0f64.powi(2), -3.0 * 1.0f64.powi(2)],
    ];
    for i in 0..3 {
        assert_vec_near(&j[i], &e[i], 1e-12, "a_f64 Jacobian by hand");
    }
}

// ---------------------------------------------------------------------------------------------------
// `f32`: two scalars at `order = 2`, a slice to a `Vec` with its Jacobian, one scalar at `order = 3`.
// Checked against the formulas in `f64` (f32's rounding leaves differences too coarse).

#[differentiable(order = 2)]
fn s_f32(x: f32, y: f32) -> f32 {
    x * x * y + (x - y).tanh()
}

#[differentiable]
fn v_f32(x: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0; x.len()];
    for i in 0..x.len() {
        out[i] = x[i] * x[(i + 1) % x.len()] + x[i].sin();
    }
    out
}

#[differentiable(order = 3)]
fn d_f32(x: f32) -> f32 {
    x.exp() * x.cos()
}

#[track_caller]
fn near32(a: f32, e: f64, what: &str) {
    assert_near(a as f64, e, 2e-5, 1.0, what);
}

#[test]
fn f32_cells() {
    let _: fn(f32, f32) -> (f32, (f32, f32)) = s_f32_grad;
    let _: fn(f32, f32, f32) -> (f32, (f32, f32)) = s_f32_vjp;
    let _: fn(f32, f32, (f32, f32)) -> (f32, f32) = s_f32_jvp;
    let _: fn(f32, f32, (&mut f32, &mut f32)) -> f32 = s_f32_grad_into;
    let _: fn(f32, f32, (f32, f32)) -> (f32, (f32, f32), (f32, f32)) = s_f32_hvp;
    let _: fn(f32, f32) -> (f32, (f32, f32), Vec<Vec<f32>>) = s_f32_hessian;
    let mut rng = Lcg::new(33);
    for _ in 0..POINTS {
        let (xf, yf) = (rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5));
        let (x, y) = (xf as f32, yf as f32);
        let (x64, y64) = (x as f64, y as f64);
        let th = (x64 - y64).tanh();
        let sech2 = 1.0 - th * th;
        let g = [2.0 * x64 * y64 + sech2, x64 * x64 - sech2];
        // d sech^2(u)/du = -2 tanh sech^2.
        let k = -2.0 * th * sech2;
        let h = [[2.0 * y64 + k, 2.0 * x64 - k], [2.0 * x64 - k, k]];
        let at = format!("s_f32 at {x}, {y}");
        let (v, (gx, gy)) = s_f32_grad(x, y);
        near32(v, x64 * x64 * y64 + th, &at);
        near32(s_f32(x, y), x64 * x64 * y64 + th, &at);
        near32(gx, g[0], &format!("{at}: d/dx"));
        near32(gy, g[1], &format!("{at}: d/dy"));
        let (_, (vx, vy)) = s_f32_vjp(x, y, 2.0);
        near32(vx, 2.0 * g[0], &format!("{at}: vjp"));
        near32(vy, 2.0 * g[1], &format!("{at}: vjp"));
        let (_, jd) = s_f32_jvp(x, y, (0.5, -0.25));
        near32(jd, 0.5 * g[0] - 0.25 * g[1], &format!("{at}: jvp"));
        let (mut a, mut b) = (f32::NAN, f32::NAN);
        s_f32_grad_into(x, y, (&mut a, &mut b));
        assert_eq!((a, b), (gx, gy), "{at}: grad_into");
        let (_, _, hm) = s_f32_hessian(x, y);
        for i in 0..2 {
            for j in 0..2 {
                near32(hm[i][j], h[i][j], &format!("{at}: H[{i}][{j}]"));
            }
        }
        let (_, _, (p0, p1)) = s_f32_hvp(x, y, (1.0, 2.0));
        near32(p0, h[0][0] + 2.0 * h[0][1], &format!("{at}: hvp"));
        near32(p1, h[1][0] + 2.0 * h[1][1], &format!("{at}: hvp"));
        // f32 order 3 of one scalar: e^x cos x, (cos - sin) e^x, -2 sin e^x, -2 (sin + cos) e^x.
        let ds = d_f32_derivatives(x);
        let (s, c) = x64.sin_cos();
        let ex = x64.exp();
        let e = [ex * c, ex * (c - s), -2.0 * ex * s, -2.0 * ex * (s + c)];
        for kk in 0..4 {
            near32(ds[kk], e[kk], &format!("d_f32 at {x}: derivative {kk}"));
        }
        near32(d_f32(x), e[0], &format!("d_f32 at {x}"));
    }
    let _: fn(&[f32], Vec<f32>) -> (Vec<f32>, Vec<f32>) = v_f32_vjp;
    let _: fn(&[f32], Vec<f32>) -> (Vec<f32>, Vec<f32>) = v_f32_jvp;
    let _: fn(&[f32]) -> Vec<Vec<f32>> = v_f32_jacobian;
    let x: Vec<f32> = vec![0.3, -0.8, 1.1];
    let j = v_f32_jacobian(&x);
    for i in 0..3 {
        for c in 0..3 {
            let mut e = 0.0;
            if c == i {
                e += x[(i + 1) % 3] as f64 + (x[i] as f64).cos();
            }
            if c == (i + 1) % 3 {
                e += x[i] as f64;
            }
            near32(j[i][c], e, &format!("v_f32 J[{i}][{c}]"));
        }
        let (_, row) = v_f32_vjp(&x, unit_dir(3, i).iter().map(|v| *v as f32).collect());
        assert_eq!(row, j[i], "v_f32: J row {i} = vjp");
    }
}

// ---------------------------------------------------------------------------------------------------
// `T: Float`: instantiated with `f64` (the harness), `f32` and `Dual<f64>`.

#[differentiable(order = 2)]
fn s_gen<T: Float>(x: T, y: T) -> T {
    let two = T::from(2.0).unwrap();
    x.powi(3) - two * x * y + y.sin() * x
}

fn s_gen_exact(v: &[f64]) -> Flat {
    let (x, y) = (v[0], v[1]);
    vec![3.0 * x * x - 2.0 * y + y.sin(), -2.0 * x + y.cos() * x]
}

fn s_gen_hess(v: &[f64]) -> Vec<Flat> {
    let (x, y) = (v[0], v[1]);
    vec![
        vec![6.0 * x, -2.0 + y.cos()],
        vec![-2.0 + y.cos(), -y.sin() * x],
    ]
}

#[differentiable]
fn v_gen<T: Float>(x: &[T]) -> Vec<T> {
    let mut s = T::zero();
    for i in 0..x.len() {
        s = s + x[i].exp();
    }
    let mut out = vec![T::zero(); x.len()];
    for i in 0..x.len() {
        out[i] = x[i].exp() / s;
    }
    out
}

#[differentiable(order = 3)]
fn d_gen<T: Float>(x: T, n: usize) -> T {
    (x * T::from(n).unwrap()).sin() / (T::one() + x * x)
}

#[test]
fn generic_cells() {
    let _: fn(f64, f64) -> (f64, (f64, f64)) = s_gen_grad::<f64>;
    let _: fn(f64, f64, (&mut f64, &mut f64)) -> f64 = s_gen_grad_into::<f64>;
    let pair = |g: (f64, f64)| vec![g.0, g.1];
    scalar(Scalar {
        name: "s_gen",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_gen(x[0], x[1]),
        grad: &|x| {
            let (v, g) = s_gen_grad(x[0], x[1]);
            (v, pair(g))
        },
        vjp: &|x, d| {
            let (v, g) = s_gen_vjp(x[0], x[1], d);
            (v, pair(g))
        },
        jvp: &|x, t| s_gen_jvp(x[0], x[1], (t[0], t[1])),
        into: &|x| {
            let (mut a, mut b) = (GARBAGE, GARBAGE);
            let v = s_gen_grad_into(x[0], x[1], (&mut a, &mut b));
            (v, vec![a, b])
        },
        exact: Some(&s_gen_exact),
    });
    second(Second {
        name: "s_gen",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_gen_grad(x[0], x[1]);
            (v, pair(g))
        },
        hessian: &|x| {
            let (v, g, h) = s_gen_hessian(x[0], x[1]);
            (v, pair(g), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_gen_hvp(x[0], x[1], (d[0], d[1]));
            (v, pair(g), pair(p))
        },
        exact: Some(&s_gen_hess),
    });
    // f32 instantiation, every item, against the formulas.
    let (x, y) = (0.7f32, -0.4f32);
    let g = s_gen_exact(&[x as f64, y as f64]);
    let h = s_gen_hess(&[x as f64, y as f64]);
    let (_, (gx, gy)) = s_gen_grad::<f32>(x, y);
    near32(gx, g[0], "s_gen::<f32> d/dx");
    near32(gy, g[1], "s_gen::<f32> d/dy");
    let (_, jd) = s_gen_jvp::<f32>(x, y, (1.0, 1.0));
    near32(jd, g[0] + g[1], "s_gen::<f32> jvp");
    let (_, _, hm) = s_gen_hessian::<f32>(x, y);
    let (_, _, (p0, p1)) = s_gen_hvp::<f32>(x, y, (0.0, 1.0));
    for i in 0..2 {
        for j in 0..2 {
            near32(hm[i][j], h[i][j], "s_gen::<f32> H");
        }
    }
    near32(p0, h[0][1], "s_gen::<f32> hvp");
    near32(p1, h[1][1], "s_gen::<f32> hvp");
    // Dual<f64>: `_grad` on dual numbers carries the Hessian times the seed in the tangents.
    let mut rng = Lcg::new(7);
    for _ in 0..POINTS {
        let p = rng.vec(2, -1.5, 1.5);
        let v = rng.vec(2, -1.0, 1.0);
        let (val, (dx, dy)) = s_gen_grad(Dual::new(p[0], v[0]), Dual::new(p[1], v[1]));
        let g = s_gen_exact(&p);
        let h = s_gen_hess(&p);
        let at = format!("s_gen::<Dual<f64>> at {p:?} along {v:?}");
        assert_near(val.re, s_gen(p[0], p[1]), 1e-12, 0.0, &at);
        assert_near(val.eps, dot(&g, &v), 1e-12, 1.0, &at);
        assert_vec_near(&[dx.re, dy.re], &g, 1e-12, &at);
        let hv = [dot(&h[0], &v), dot(&h[1], &v)];
        assert_vec_near(&[dx.eps, dy.eps], &hv, 1e-12, &at);
        let (jv, jd) = s_gen_jvp(
            Dual::new(p[0], 0.0),
            Dual::new(p[1], 0.0),
            (Dual::new(v[0], 0.0), Dual::new(v[1], 0.0)),
        );
        assert_near(jv.re, val.re, 1e-12, 0.0, &at);
        assert_near(jd.re, dot(&g, &v), 1e-12, 1.0, &at);
        let (dv, _, dh) = s_gen_hessian(Dual::new(p[0], 1.0), Dual::new(p[1], 0.0));
        assert_near(dv.re, val.re, 1e-12, 0.0, &at);
        // Each Hessian entry's tangent along x is a third derivative: d/dx of H = [[6, 0], [0, -sin y]].
        let third = [[6.0, 0.0], [0.0, -p[1].sin()]];
        for i in 0..2 {
            for j in 0..2 {
                assert_near(dh[i][j].re, h[i][j], 1e-12, 1.0, &at);
                assert_near(dh[i][j].eps, third[i][j], 1e-12, 1.0, &at);
            }
        }
    }
    // The vector result, f64 through the harness, then Dual<f64> against it.
    let _: fn(&[f64], Vec<f64>) -> (Vec<f64>, Vec<f64>) = v_gen_vjp::<f64>;
    let _: fn(&[f64]) -> Vec<Vec<f64>> = v_gen_jacobian::<f64>;
    vector(
        "v_gen",
        3,
        -1.5,
        1.5,
        &|x| v_gen(x),
        &|x, c| v_gen_vjp(x, c.to_vec()),
        &|x, t| v_gen_jvp(x, t.to_vec()),
        Some(&|x| v_gen_jacobian(x)),
    );
    let x = [0.2, -0.5, 0.9];
    let j = v_gen_jacobian(&x);
    let s = v_gen(&x);
    for i in 0..3 {
        for c in 0..3 {
            let e = s[i] * (if i == c { 1.0 } else { 0.0 } - s[c]);
            assert_near(j[i][c], e, 1e-12, 1.0, "softmax Jacobian by hand");
        }
    }
    let xd: Vec<Dual<f64>> = x.iter().map(|&v| Dual::new(v, 0.0)).collect();
    let cd: Vec<Dual<f64>> = [1.0, 0.0, 0.0].iter().map(|&v| Dual::new(v, 0.0)).collect();
    let (_, row) = v_gen_vjp(&xd, cd);
    let row: Flat = row.iter().map(|d| d.re).collect();
    assert_vec_near(&row, &j[0], 1e-12, "v_gen::<Dual<f64>> vjp row 0");
    let jd = v_gen_jacobian::<Dual<f64>>(&xd);
    for i in 0..3 {
        let r: Flat = jd[i].iter().map(|d| d.re).collect();
        assert_vec_near(&r, &j[i], 1e-12, "v_gen::<Dual<f64>> Jacobian");
    }
    let jf = v_gen_jacobian::<f32>(&[0.2, -0.5, 0.9]);
    for i in 0..3 {
        for c in 0..3 {
            near32(jf[i][c], j[i][c], "v_gen::<f32> Jacobian");
        }
    }
    // order 3 of one scalar beside an integer, for f64, f32 and Dual<f64>.
    let _: fn(f64, usize) -> [f64; 4] = d_gen_derivatives::<f64>;
    for n in [1usize, 2] {
        derivatives(
            &format!("d_gen n {n}"),
            -1.5,
            1.5,
            &|x| d_gen(x, n),
            &|x| d_gen_derivatives(x, n).to_vec(),
            &|x| d_gen_grad(x, n),
            None,
        );
        let x = 0.4;
        let d64 = d_gen_derivatives(x, n);
        let d32 = d_gen_derivatives(x as f32, n);
        let dd = d_gen_derivatives(Dual::new(x, 1.0), n);
        for k in 0..4 {
            near32(d32[k], d64[k], &format!("d_gen::<f32> derivative {k}"));
            assert_near(dd[k].re, d64[k], 1e-12, 1.0, "d_gen::<Dual<f64>>");
        }
        for k in 0..3 {
            // The dual tangent of the k-th derivative is the (k+1)-th.
            assert_near(
                dd[k].eps,
                d64[k + 1],
                1e-10,
                1.0,
                "d_gen::<Dual<f64>> tangent",
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// `&f64`: a reference beside a value (order 2), one reference alone at order 3, an array result.

#[differentiable(order = 2)]
fn s_ref(x: &f64, y: f64) -> f64 {
    *x * y.exp() + x.sin() * x * y
}

#[differentiable(order = 3)]
fn d_ref(x: &f64, k: i32) -> f64 {
    x.powi(k) * (-*x).exp()
}

#[differentiable]
fn a_ref(x: &f64, y: &f64) -> [f64; 2] {
    [*x * *y, x.atan2(*y)]
}

#[test]
fn reference_cells() {
    let _: fn(&f64, f64) -> (f64, (f64, f64)) = s_ref_grad;
    let _: fn(&f64, f64, f64) -> (f64, (f64, f64)) = s_ref_vjp;
    let _: fn(&f64, f64, (f64, f64)) -> (f64, f64) = s_ref_jvp;
    let _: fn(&f64, f64, (&mut f64, &mut f64)) -> f64 = s_ref_grad_into;
    let _: fn(&f64, f64, (f64, f64)) -> (f64, (f64, f64), (f64, f64)) = s_ref_hvp;
    let _: fn(&f64, f64) -> (f64, (f64, f64), Vec<Vec<f64>>) = s_ref_hessian;
    let pair = |g: (f64, f64)| vec![g.0, g.1];
    let exact = |v: &[f64]| {
        let (x, y) = (v[0], v[1]);
        vec![
            y.exp() + (x.cos() * x + x.sin()) * y,
            x * y.exp() + x.sin() * x,
        ]
    };
    scalar(Scalar {
        name: "s_ref",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_ref(&x[0], x[1]),
        grad: &|x| {
            let (v, g) = s_ref_grad(&x[0], x[1]);
            (v, pair(g))
        },
        vjp: &|x, d| {
            let (v, g) = s_ref_vjp(&x[0], x[1], d);
            (v, pair(g))
        },
        jvp: &|x, t| s_ref_jvp(&x[0], x[1], (t[0], t[1])),
        into: &|x| {
            let (mut a, mut b) = (GARBAGE, GARBAGE);
            let v = s_ref_grad_into(&x[0], x[1], (&mut a, &mut b));
            (v, vec![a, b])
        },
        exact: Some(&exact),
    });
    second(Second {
        name: "s_ref",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_ref_grad(&x[0], x[1]);
            (v, pair(g))
        },
        hessian: &|x| {
            let (v, g, h) = s_ref_hessian(&x[0], x[1]);
            (v, pair(g), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_ref_hvp(&x[0], x[1], (d[0], d[1]));
            (v, pair(g), pair(p))
        },
        exact: None,
    });
    let _: fn(&f64, i32) -> [f64; 4] = d_ref_derivatives;
    for k in [1, 2, 3] {
        derivatives(
            &format!("d_ref k {k}"),
            0.2,
            2.0,
            &|x| d_ref(&x, k),
            &|x| d_ref_derivatives(&x, k).to_vec(),
            &|x| d_ref_grad(&x, k),
            None,
        );
    }
    let _: fn(&f64, &f64, [f64; 2]) -> ([f64; 2], (f64, f64)) = a_ref_vjp;
    let _: fn(&f64, &f64, (f64, f64)) -> ([f64; 2], [f64; 2]) = a_ref_jvp;
    let _: fn(&f64, &f64) -> Vec<Vec<f64>> = a_ref_jacobian;
    vector(
        "a_ref",
        2,
        0.3,
        1.5,
        &|x| a_ref(&x[0], &x[1]).to_vec(),
        &|x, c| {
            let (r, g) = a_ref_vjp(&x[0], &x[1], arr(c));
            (r.to_vec(), vec![g.0, g.1])
        },
        &|x, t| {
            let (r, d) = a_ref_jvp(&x[0], &x[1], (t[0], t[1]));
            (r.to_vec(), d.to_vec())
        },
        Some(&|x| a_ref_jacobian(&x[0], &x[1])),
    );
}

// ---------------------------------------------------------------------------------------------------
// Slices, `&Vec<T>`, `Vec<T>` (also `mut` and written), `[T; N]` (also `mut`), `&[T; N]`: each with a
// float result at `order = 2` and a vector result with its Jacobian.

/// The float result every sequence cell computes, so that one formula checks them all:
/// `sum_i x_i^2 x_{i+1} + exp(x_0)` (cyclic).
fn cyc(x: &[f64]) -> f64 {
    let n = x.len();
    (0..n).map(|i| x[i] * x[i] * x[(i + 1) % n]).sum::<f64>() + x[0].exp()
}

fn cyc_grad(x: &[f64]) -> Flat {
    let n = x.len();
    let mut g = vec![0.0; n];
    for i in 0..n {
        g[i] += 2.0 * x[i] * x[(i + 1) % n];
        g[(i + 1) % n] += x[i] * x[i];
    }
    g[0] += x[0].exp();
    g
}

fn cyc_hess(x: &[f64]) -> Vec<Flat> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n {
        let j = (i + 1) % n;
        h[i][i] += 2.0 * x[j];
        h[i][j] += 2.0 * x[i];
        h[j][i] += 2.0 * x[i];
    }
    h[0][0] += x[0].exp();
    h
}

#[differentiable(order = 2)]
fn s_slice(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i] * x[(i + 1) % n];
    }
    s + x[0].exp()
}

#[differentiable(order = 2)]
fn s_refvec(x: &Vec<f64>) -> f64 {
    let n = x.len();
    let mut s = x[0].exp();
    for (i, v) in x.iter().enumerate() {
        s += v * v * x[(i + 1) % n];
    }
    s
}

#[differentiable(order = 2)]
fn s_vec(x: Vec<f64>) -> f64 {
    let n = x.len();
    (0..n).map(|i| x[i] * x[i] * x[(i + 1) % n]).sum::<f64>() + x[0].exp()
}

#[differentiable(order = 2)]
fn s_vec_mut(mut x: Vec<f64>) -> f64 {
    let n = x.len();
    let first = x[0];
    // Overwrite x by its cyclic products, then sum them: the gradient is that of the value passed in.
    let mut prod = vec![0.0; n];
    for i in 0..n {
        prod[i] = x[i] * x[i] * x[(i + 1) % n];
    }
    for i in 0..n {
        x[i] = prod[i];
    }
    let mut s = first.exp();
    for i in 0..n {
        s += x[i];
    }
    s
}

#[differentiable(order = 2)]
fn s_arr(x: [f64; 3]) -> f64 {
    x[0] * x[0] * x[1] + x[1] * x[1] * x[2] + x[2] * x[2] * x[0] + x[0].exp()
}

#[differentiable(order = 2)]
fn s_arr_mut(mut x: [f64; 3], mut s: f64) -> f64 {
    let y = [x[0] * x[0] * x[1], x[1] * x[1] * x[2], x[2] * x[2] * x[0]];
    x[0] = y[0];
    x[1] = y[1];
    x[2] = y[2];
    s = s * s;
    x[0] + x[1] + x[2] + s.exp()
}

#[differentiable(order = 2)]
fn s_refarr(x: &[f64; 3]) -> f64 {
    let mut s = x[0].exp();
    for i in 0..3 {
        s += x[i] * x[i] * x[(i + 1) % 3];
    }
    s
}

#[test]
fn sequence_cells_with_float_results() {
    let _: fn(&[f64]) -> (f64, Vec<f64>) = s_slice_grad;
    let _: fn(&[f64], f64) -> (f64, Vec<f64>) = s_slice_vjp;
    let _: fn(&[f64], Vec<f64>) -> (f64, f64) = s_slice_jvp;
    let _: fn(&[f64], &mut [f64]) -> f64 = s_slice_grad_into;
    let _: fn(&[f64], Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = s_slice_hvp;
    let _: fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) = s_slice_hessian;
    let _: fn(&Vec<f64>) -> (f64, Vec<f64>) = s_refvec_grad;
    let _: fn(&Vec<f64>, &mut [f64]) -> f64 = s_refvec_grad_into;
    let _: fn(&Vec<f64>, Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = s_refvec_hvp;
    let _: fn(Vec<f64>) -> (f64, Vec<f64>) = s_vec_grad;
    let _: fn(Vec<f64>, f64) -> (f64, Vec<f64>) = s_vec_vjp;
    let _: fn(Vec<f64>, Vec<f64>) -> (f64, f64) = s_vec_jvp;
    let _: fn(Vec<f64>, &mut [f64]) -> f64 = s_vec_grad_into;
    let _: fn(Vec<f64>) -> (f64, Vec<f64>, Vec<Vec<f64>>) = s_vec_hessian;
    let _: fn([f64; 3]) -> (f64, [f64; 3]) = s_arr_grad;
    let _: fn([f64; 3], f64) -> (f64, [f64; 3]) = s_arr_vjp;
    let _: fn([f64; 3], [f64; 3]) -> (f64, f64) = s_arr_jvp;
    let _: fn([f64; 3], &mut [f64; 3]) -> f64 = s_arr_grad_into;
    let _: fn([f64; 3], [f64; 3]) -> (f64, [f64; 3], [f64; 3]) = s_arr_hvp;
    let _: fn([f64; 3]) -> (f64, [f64; 3], Vec<Vec<f64>>) = s_arr_hessian;
    let _: fn(&[f64; 3]) -> (f64, [f64; 3]) = s_refarr_grad;
    let _: fn(&[f64; 3], &mut [f64; 3]) -> f64 = s_refarr_grad_into;
    let _: fn(&[f64; 3], [f64; 3]) -> (f64, [f64; 3], [f64; 3]) = s_refarr_hvp;
    let _: fn([f64; 3], f64) -> (f64, ([f64; 3], f64)) = s_arr_mut_grad;
    let _: fn([f64; 3], f64, (&mut [f64; 3], &mut f64)) -> f64 = s_arr_mut_grad_into;
    for n in [2usize, 3, 5] {
        let name = format!("s_slice n {n}");
        scalar(Scalar {
            name: &name,
            n,
            lo: -1.5,
            hi: 1.5,
            f: &|x| {
                let v = s_slice(x);
                assert_near(v, cyc(x), 1e-12, 1.0, "s_slice's value");
                v
            },
            grad: &|x| s_slice_grad(x),
            vjp: &|x, d| s_slice_vjp(x, d),
            jvp: &|x, t| s_slice_jvp(x, t.to_vec()),
            into: &|x| {
                let mut g = vec![GARBAGE; x.len()];
                let v = s_slice_grad_into(x, &mut g);
                (v, g)
            },
            exact: Some(&cyc_grad),
        });
        second(Second {
            name: &name,
            n,
            lo: -1.5,
            hi: 1.5,
            grad: &|x| s_slice_grad(x),
            hessian: &|x| s_slice_hessian(x),
            hvp: &|x, d| s_slice_hvp(x, d.to_vec()),
            exact: Some(&cyc_hess),
        });
        let name = format!("s_refvec n {n}");
        scalar(Scalar {
            name: &name,
            n,
            lo: -1.5,
            hi: 1.5,
            f: &|x| s_refvec(&x.to_vec()),
            grad: &|x| s_refvec_grad(&x.to_vec()),
            vjp: &|x, d| s_refvec_vjp(&x.to_vec(), d),
            jvp: &|x, t| s_refvec_jvp(&x.to_vec(), t.to_vec()),
            into: &|x| {
                let mut g = vec![GARBAGE; x.len()];
                let v = s_refvec_grad_into(&x.to_vec(), &mut g);
                (v, g)
            },
            exact: Some(&cyc_grad),
        });
        second(Second {
            name: &name,
            n,
            lo: -1.5,
            hi: 1.5,
            grad: &|x| s_refvec_grad(&x.to_vec()),
            hessian: &|x| s_refvec_hessian(&x.to_vec()),
            hvp: &|x, d| s_refvec_hvp(&x.to_vec(), d.to_vec()),
            exact: Some(&cyc_hess),
        });
        for (which, f, g, vjp, jvp, into, h, hvp) in [
            (
                "s_vec",
                s_vec as fn(Vec<f64>) -> f64,
                s_vec_grad as fn(Vec<f64>) -> (f64, Vec<f64>),
                s_vec_vjp as fn(Vec<f64>, f64) -> (f64, Vec<f64>),
                s_vec_jvp as fn(Vec<f64>, Vec<f64>) -> (f64, f64),
                s_vec_grad_into as fn(Vec<f64>, &mut [f64]) -> f64,
                s_vec_hessian as fn(Vec<f64>) -> (f64, Vec<f64>, Vec<Vec<f64>>),
                s_vec_hvp as fn(Vec<f64>, Vec<f64>) -> (f64, Vec<f64>, Vec<f64>),
            ),
            (
                "s_vec_mut",
                s_vec_mut,
                s_vec_mut_grad,
                s_vec_mut_vjp,
                s_vec_mut_jvp,
                s_vec_mut_grad_into,
                s_vec_mut_hessian,
                s_vec_mut_hvp,
            ),
        ] {
            let name = format!("{which} n {n}");
            scalar(Scalar {
                name: &name,
                n,
                lo: -1.5,
                hi: 1.5,
                f: &|x| f(x.to_vec()),
                grad: &|x| g(x.to_vec()),
                vjp: &|x, d| vjp(x.to_vec(), d),
                jvp: &|x, t| jvp(x.to_vec(), t.to_vec()),
                into: &|x| {
                    let mut b = vec![GARBAGE; x.len()];
                    let v = into(x.to_vec(), &mut b);
                    (v, b)
                },
                exact: Some(&cyc_grad),
            });
            second(Second {
                name: &name,
                n,
                lo: -1.5,
                hi: 1.5,
                grad: &|x| g(x.to_vec()),
                hessian: &|x| h(x.to_vec()),
                hvp: &|x, d| hvp(x.to_vec(), d.to_vec()),
                exact: Some(&cyc_hess),
            });
        }
    }
    scalar(Scalar {
        name: "s_arr",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_arr(arr(x)),
        grad: &|x| {
            let (v, g) = s_arr_grad(arr(x));
            (v, g.to_vec())
        },
        vjp: &|x, d| {
            let (v, g) = s_arr_vjp(arr(x), d);
            (v, g.to_vec())
        },
        jvp: &|x, t| s_arr_jvp(arr(x), arr(t)),
        into: &|x| {
            let mut g = [GARBAGE; 3];
            let v = s_arr_grad_into(arr(x), &mut g);
            (v, g.to_vec())
        },
        exact: Some(&cyc_grad),
    });
    second(Second {
        name: "s_arr",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_arr_grad(arr(x));
            (v, g.to_vec())
        },
        hessian: &|x| {
            let (v, g, h) = s_arr_hessian(arr(x));
            (v, g.to_vec(), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_arr_hvp(arr(x), arr(d));
            (v, g.to_vec(), p.to_vec())
        },
        exact: Some(&cyc_hess),
    });
    scalar(Scalar {
        name: "s_refarr",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_refarr(&arr(x)),
        grad: &|x| {
            let (v, g) = s_refarr_grad(&arr(x));
            (v, g.to_vec())
        },
        vjp: &|x, d| {
            let (v, g) = s_refarr_vjp(&arr(x), d);
            (v, g.to_vec())
        },
        jvp: &|x, t| s_refarr_jvp(&arr(x), arr(t)),
        into: &|x| {
            let mut g = [GARBAGE; 3];
            let v = s_refarr_grad_into(&arr(x), &mut g);
            (v, g.to_vec())
        },
        exact: Some(&cyc_grad),
    });
    second(Second {
        name: "s_refarr",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_refarr_grad(&arr(x));
            (v, g.to_vec())
        },
        hessian: &|x| {
            let (v, g, h) = s_refarr_hessian(&arr(x));
            (v, g.to_vec(), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_refarr_hvp(&arr(x), arr(d));
            (v, g.to_vec(), p.to_vec())
        },
        exact: Some(&cyc_hess),
    });
    // `mut x: [f64; 3], mut s: f64`: cyc(x) + exp(s^2).
    let mut_exact = |v: &[f64]| {
        let mut g = cyc_grad(&v[..3]);
        g[0] -= v[0].exp();
        g.push(2.0 * v[3] * (v[3] * v[3]).exp());
        g
    };
    let cat = |g: ([f64; 3], f64)| vec![g.0[0], g.0[1], g.0[2], g.1];
    scalar(Scalar {
        name: "s_arr_mut",
        n: 4,
        lo: -1.2,
        hi: 1.2,
        f: &|x| s_arr_mut(arr(&x[..3]), x[3]),
        grad: &|x| {
            let (v, g) = s_arr_mut_grad(arr(&x[..3]), x[3]);
            (v, cat(g))
        },
        vjp: &|x, d| {
            let (v, g) = s_arr_mut_vjp(arr(&x[..3]), x[3], d);
            (v, cat(g))
        },
        jvp: &|x, t| s_arr_mut_jvp(arr(&x[..3]), x[3], (arr(&t[..3]), t[3])),
        into: &|x| {
            let (mut a, mut b) = ([GARBAGE; 3], GARBAGE);
            let v = s_arr_mut_grad_into(arr(&x[..3]), x[3], (&mut a, &mut b));
            (v, cat((a, b)))
        },
        exact: Some(&mut_exact),
    });
    second(Second {
        name: "s_arr_mut",
        n: 4,
        lo: -1.2,
        hi: 1.2,
        grad: &|x| {
            let (v, g) = s_arr_mut_grad(arr(&x[..3]), x[3]);
            (v, cat(g))
        },
        hessian: &|x| {
            let (v, g, h) = s_arr_mut_hessian(arr(&x[..3]), x[3]);
            (v, cat(g), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_arr_mut_hvp(arr(&x[..3]), x[3], (arr(&d[..3]), d[3]));
            (v, cat(g), cat(p))
        },
        exact: None,
    });
}

#[differentiable]
fn v_slice(x: &[f64], s: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..x.len() {
        out.push(s * x[i] * x[(i + 1) % x.len()]);
    }
    out
}

#[differentiable]
fn v_refvec(x: &Vec<f64>) -> [f64; 2] {
    let mut a = 0.0;
    let mut b = 1.0;
    for v in x.iter() {
        a += v.sin();
        b *= v;
    }
    [a, b]
}

#[differentiable]
fn v_vec(mut x: Vec<f64>) -> Vec<f64> {
    for i in 1..x.len() {
        x[i] = x[i] * x[i - 1] + x[i].cos();
    }
    x
}

#[differentiable]
fn v_arr(x: [f64; 3]) -> (f64, f64) {
    (x[0] * x[1] * x[2], x[0].hypot(x[2]))
}

#[differentiable]
fn v_refarr(x: &[f64; 3]) -> [f64; 3] {
    [x[1] * x[2], x[2] * x[0], x[0] * x[1] + x[0].exp()]
}

#[test]
fn sequence_cells_with_vector_results() {
    let _: fn(&[f64], f64, Vec<f64>) -> (Vec<f64>, (Vec<f64>, f64)) = v_slice_vjp;
    let _: fn(&[f64], f64, (Vec<f64>, f64)) -> (Vec<f64>, Vec<f64>) = v_slice_jvp;
    let _: fn(&[f64], f64) -> Vec<Vec<f64>> = v_slice_jacobian;
    for n in [2usize, 4] {
        let split = |x: &[f64]| (x[..n].to_vec(), x[n]);
        vector(
            &format!("v_slice n {n}"),
            n + 1,
            -1.5,
            1.5,
            &|x| {
                let (a, s) = split(x);
                v_slice(&a, s)
            },
            &|x, c| {
                let (a, s) = split(x);
                let (r, (ga, gs)) = v_slice_vjp(&a, s, c.to_vec());
                let mut g = ga;
                g.push(gs);
                (r, g)
            },
            &|x, t| {
                let (a, s) = split(x);
                v_slice_jvp(&a, s, (t[..n].to_vec(), t[n]))
            },
            Some(&|x| {
                let (a, s) = split(x);
                v_slice_jacobian(&a, s)
            }),
        );
    }
    let _: fn(&Vec<f64>, [f64; 2]) -> ([f64; 2], Vec<f64>) = v_refvec_vjp;
    let _: fn(&Vec<f64>, Vec<f64>) -> ([f64; 2], [f64; 2]) = v_refvec_jvp;
    let _: fn(&Vec<f64>) -> Vec<Vec<f64>> = v_refvec_jacobian;
    vector(
        "v_refvec",
        3,
        -1.5,
        1.5,
        &|x| v_refvec(&x.to_vec()).to_vec(),
        &|x, c| {
            let (r, g) = v_refvec_vjp(&x.to_vec(), arr(c));
            (r.to_vec(), g)
        },
        &|x, t| {
            let (r, d) = v_refvec_jvp(&x.to_vec(), t.to_vec());
            (r.to_vec(), d.to_vec())
        },
        Some(&|x| v_refvec_jacobian(&x.to_vec())),
    );
    let _: fn(Vec<f64>, Vec<f64>) -> (Vec<f64>, Vec<f64>) = v_vec_vjp;
    let _: fn(Vec<f64>, Vec<f64>) -> (Vec<f64>, Vec<f64>) = v_vec_jvp;
    let _: fn(Vec<f64>) -> Vec<Vec<f64>> = v_vec_jacobian;
    vector(
        "v_vec",
        4,
        -1.2,
        1.2,
        &|x| v_vec(x.to_vec()),
        &|x, c| v_vec_vjp(x.to_vec(), c.to_vec()),
        &|x, t| v_vec_jvp(x.to_vec(), t.to_vec()),
        Some(&|x| v_vec_jacobian(x.to_vec())),
    );
    let _: fn([f64; 3], (f64, f64)) -> ((f64, f64), [f64; 3]) = v_arr_vjp;
    let _: fn([f64; 3], [f64; 3]) -> ((f64, f64), (f64, f64)) = v_arr_jvp;
    vector(
        "v_arr",
        3,
        0.2,
        1.5,
        &|x| {
            let r = v_arr(arr(x));
            vec![r.0, r.1]
        },
        &|x, c| {
            let (r, g) = v_arr_vjp(arr(x), (c[0], c[1]));
            (vec![r.0, r.1], g.to_vec())
        },
        &|x, t| {
            let (r, d) = v_arr_jvp(arr(x), arr(t));
            (vec![r.0, r.1], vec![d.0, d.1])
        },
        None,
    );
    let _: fn(&[f64; 3], [f64; 3]) -> ([f64; 3], [f64; 3]) = v_refarr_vjp;
    let _: fn(&[f64; 3], [f64; 3]) -> ([f64; 3], [f64; 3]) = v_refarr_jvp;
    let _: fn(&[f64; 3]) -> Vec<Vec<f64>> = v_refarr_jacobian;
    vector(
        "v_refarr",
        3,
        -1.5,
        1.5,
        &|x| v_refarr(&arr(x)).to_vec(),
        &|x, c| {
            let (r, g) = v_refarr_vjp(&arr(x), arr(c));
            (r.to_vec(), g.to_vec())
        },
        &|x, t| {
            let (r, d) = v_refarr_jvp(&arr(x), arr(t));
            (r.to_vec(), d.to_vec())
        },
        Some(&|x| v_refarr_jacobian(&arr(x))),
    );
    let j = v_refarr_jacobian(&[0.5, -1.0, 2.0]);
    let e = [
        [0.0, 2.0, -1.0],
        [2.0, 0.0, 0.5],
        [-1.0 + 0.5f64.exp(), 0.5, 0.0],
    ];
    for i in 0..3 {
        assert_vec_near(&j[i], &e[i], 1e-12, "v_refarr Jacobian by hand");
    }
}

// ---------------------------------------------------------------------------------------------------
// Matrices: `&[Vec<T>]`, `Vec<Vec<T>>` (also `mut`), `[[T; M]; N]` (also `mut`), flattened row-major in
// `_hessian` and `_jacobian`. `_grad_into` takes `&mut [Vec<T>]` and `&mut [[T; M]; N]` (README: "`&mut
// [T]` for a slice or `Vec`, `&mut [T; N]` for an array", with `T` a row).

/// `sum_ij m_ij^2 m_i0 + sin(m_00 m_11)` over a 2 x 3 matrix, flat row-major.
fn mq(x: &[f64]) -> f64 {
    let mut s = (x[0] * x[4]).sin();
    for i in 0..2 {
        for j in 0..3 {
            s += x[i * 3 + j] * x[i * 3 + j] * x[i * 3];
        }
    }
    s
}

fn mq_grad(x: &[f64]) -> Flat {
    let mut g = vec![0.0; 6];
    for i in 0..2 {
        for j in 0..3 {
            g[i * 3 + j] += 2.0 * x[i * 3 + j] * x[i * 3];
            g[i * 3] += x[i * 3 + j] * x[i * 3 + j];
        }
    }
    let c = (x[0] * x[4]).cos();
    g[0] += c * x[4];
    g[4] += c * x[0];
    g
}

#[differentiable(order = 2)]
fn s_mat(m: &[Vec<f64>]) -> f64 {
    let mut s = (m[0][0] * m[1][1]).sin();
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j] * m[i][j] * m[i][0];
        }
    }
    s
}

#[differentiable(order = 2)]
fn s_vecvec(m: Vec<Vec<f64>>) -> f64 {
    let mut s = (m[0][0] * m[1][1]).sin();
    for row in m.iter() {
        for j in 0..row.len() {
            s += row[j] * row[j] * row[0];
        }
    }
    s
}

#[differentiable(order = 2)]
fn s_vecvec_mut(mut m: Vec<Vec<f64>>) -> f64 {
    let t = (m[0][0] * m[1][1]).sin();
    for i in 0..2 {
        let head = m[i][0];
        for j in 0..3 {
            m[i][j] = m[i][j] * m[i][j] * head;
        }
    }
    let mut s = t;
    for i in 0..2 {
        for j in 0..3 {
            s += m[i][j];
        }
    }
    s
}

#[differentiable(order = 2)]
fn s_nested(m: [[f64; 3]; 2]) -> f64 {
    let mut s = (m[0][0] * m[1][1]).sin();
    for i in 0..2 {
        for j in 0..3 {
            s += m[i][j] * m[i][j] * m[i][0];
        }
    }
    s
}

#[differentiable(order = 2)]
fn s_nested_mut(mut m: [[f64; 3]; 2]) -> f64 {
    let t = (m[0][0] * m[1][1]).sin();
    for i in 0..2 {
        let head = m[i][0];
        for j in 0..3 {
            m[i][j] *= m[i][j] * head;
        }
    }
    let mut s = t;
    for i in 0..2 {
        for j in 0..3 {
            s += m[i][j];
        }
    }
    s
}

#[test]
fn matrix_cells_with_float_results() {
    let _: fn(&[Vec<f64>]) -> (f64, Vec<Vec<f64>>) = s_mat_grad;
    let _: fn(&[Vec<f64>], f64) -> (f64, Vec<Vec<f64>>) = s_mat_vjp;
    let _: fn(&[Vec<f64>], Vec<Vec<f64>>) -> (f64, f64) = s_mat_jvp;
    let _: fn(&[Vec<f64>], &mut [Vec<f64>]) -> f64 = s_mat_grad_into;
    let _: fn(&[Vec<f64>], Vec<Vec<f64>>) -> (f64, Vec<Vec<f64>>, Vec<Vec<f64>>) = s_mat_hvp;
    let _: fn(&[Vec<f64>]) -> (f64, Vec<Vec<f64>>, Vec<Vec<f64>>) = s_mat_hessian;
    let _: fn(Vec<Vec<f64>>, &mut [Vec<f64>]) -> f64 = s_vecvec_grad_into;
    let _: fn([[f64; 3]; 2]) -> (f64, [[f64; 3]; 2]) = s_nested_grad;
    let _: fn([[f64; 3]; 2], f64) -> (f64, [[f64; 3]; 2]) = s_nested_vjp;
    let _: fn([[f64; 3]; 2], [[f64; 3]; 2]) -> (f64, f64) = s_nested_jvp;
    let _: fn([[f64; 3]; 2], &mut [[f64; 3]; 2]) -> f64 = s_nested_grad_into;
    let _: fn([[f64; 3]; 2], [[f64; 3]; 2]) -> (f64, [[f64; 3]; 2], [[f64; 3]; 2]) = s_nested_hvp;
    let _: fn([[f64; 3]; 2]) -> (f64, [[f64; 3]; 2], Vec<Vec<f64>>) = s_nested_hessian;
    scalar(Scalar {
        name: "s_mat",
        n: 6,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_mat(&rows(x, 3)),
        grad: &|x| {
            let (v, g) = s_mat_grad(&rows(x, 3));
            (v, flat(&g))
        },
        vjp: &|x, d| {
            let (v, g) = s_mat_vjp(&rows(x, 3), d);
            (v, flat(&g))
        },
        jvp: &|x, t| s_mat_jvp(&rows(x, 3), rows(t, 3)),
        into: &|x| {
            let mut g = vec![vec![GARBAGE; 3]; 2];
            let v = s_mat_grad_into(&rows(x, 3), &mut g);
            (v, flat(&g))
        },
        exact: Some(&mq_grad),
    });
    second(Second {
        name: "s_mat",
        n: 6,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_mat_grad(&rows(x, 3));
            (v, flat(&g))
        },
        hessian: &|x| {
            let (v, g, h) = s_mat_hessian(&rows(x, 3));
            (v, flat(&g), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_mat_hvp(&rows(x, 3), rows(d, 3));
            (v, flat(&g), flat(&p))
        },
        exact: None,
    });
    for (which, f, g, vjp, jvp, into, h, hvp) in [
        (
            "s_vecvec",
            s_vecvec as fn(Vec<Vec<f64>>) -> f64,
            s_vecvec_grad as fn(Vec<Vec<f64>>) -> (f64, Vec<Vec<f64>>),
            s_vecvec_vjp as fn(Vec<Vec<f64>>, f64) -> (f64, Vec<Vec<f64>>),
            s_vecvec_jvp as fn(Vec<Vec<f64>>, Vec<Vec<f64>>) -> (f64, f64),
            s_vecvec_grad_into as fn(Vec<Vec<f64>>, &mut [Vec<f64>]) -> f64,
            s_vecvec_hessian as fn(Vec<Vec<f64>>) -> (f64, Vec<Vec<f64>>, Vec<Vec<f64>>),
            s_vecvec_hvp as fn(Vec<Vec<f64>>, Vec<Vec<f64>>) -> (f64, Vec<Vec<f64>>, Vec<Vec<f64>>),
        ),
        (
            "s_vecvec_mut",
            s_vecvec_mut,
            s_vecvec_mut_grad,
            s_vecvec_mut_vjp,
            s_vecvec_mut_jvp,
            s_vecvec_mut_grad_into,
            s_vecvec_mut_hessian,
            s_vecvec_mut_hvp,
        ),
    ] {
        scalar(Scalar {
            name: which,
            n: 6,
            lo: -1.5,
            hi: 1.5,
            f: &|x| f(rows(x, 3)),
            grad: &|x| {
                let (v, gr) = g(rows(x, 3));
                (v, flat(&gr))
            },
            vjp: &|x, d| {
                let (v, gr) = vjp(rows(x, 3), d);
                (v, flat(&gr))
            },
            jvp: &|x, t| jvp(rows(x, 3), rows(t, 3)),
            into: &|x| {
                let mut b = vec![vec![GARBAGE; 3]; 2];
                let v = into(rows(x, 3), &mut b);
                (v, flat(&b))
            },
            exact: Some(&mq_grad),
        });
        second(Second {
            name: which,
            n: 6,
            lo: -1.5,
            hi: 1.5,
            grad: &|x| {
                let (v, gr) = g(rows(x, 3));
                (v, flat(&gr))
            },
            hessian: &|x| {
                let (v, gr, hm) = h(rows(x, 3));
                (v, flat(&gr), hm)
            },
            hvp: &|x, d| {
                let (v, gr, p) = hvp(rows(x, 3), rows(d, 3));
                (v, flat(&gr), flat(&p))
            },
            exact: None,
        });
    }
    for (which, f, g, vjp, jvp, into, h, hvp) in [
        (
            "s_nested",
            s_nested as fn([[f64; 3]; 2]) -> f64,
            s_nested_grad as fn([[f64; 3]; 2]) -> (f64, [[f64; 3]; 2]),
            s_nested_vjp as fn([[f64; 3]; 2], f64) -> (f64, [[f64; 3]; 2]),
            s_nested_jvp as fn([[f64; 3]; 2], [[f64; 3]; 2]) -> (f64, f64),
            s_nested_grad_into as fn([[f64; 3]; 2], &mut [[f64; 3]; 2]) -> f64,
            s_nested_hessian as fn([[f64; 3]; 2]) -> (f64, [[f64; 3]; 2], Vec<Vec<f64>>),
            s_nested_hvp as fn([[f64; 3]; 2], [[f64; 3]; 2]) -> (f64, [[f64; 3]; 2], [[f64; 3]; 2]),
        ),
        (
            "s_nested_mut",
            s_nested_mut,
            s_nested_mut_grad,
            s_nested_mut_vjp,
            s_nested_mut_jvp,
            s_nested_mut_grad_into,
            s_nested_mut_hessian,
            s_nested_mut_hvp,
        ),
    ] {
        scalar(Scalar {
            name: which,
            n: 6,
            lo: -1.5,
            hi: 1.5,
            f: &|x| f(nested(x)),
            grad: &|x| {
                let (v, gr) = g(nested(x));
                (v, flat_nested(&gr))
            },
            vjp: &|x, d| {
                let (v, gr) = vjp(nested(x), d);
                (v, flat_nested(&gr))
            },
            jvp: &|x, t| jvp(nested(x), nested(t)),
            into: &|x| {
                let mut b = [[GARBAGE; 3]; 2];
                let v = into(nested(x), &mut b);
                (v, flat_nested(&b))
            },
            exact: Some(&mq_grad),
        });
        second(Second {
            name: which,
            n: 6,
            lo: -1.5,
            hi: 1.5,
            grad: &|x| {
                let (v, gr) = g(nested(x));
                (v, flat_nested(&gr))
            },
            hessian: &|x| {
                let (v, gr, hm) = h(nested(x));
                (v, flat_nested(&gr), hm)
            },
            hvp: &|x, d| {
                let (v, gr, p) = hvp(nested(x), nested(d));
                (v, flat_nested(&gr), flat_nested(&p))
            },
            exact: None,
        });
    }
    // The value against the flat formula, once per form.
    let x = [0.3, -0.7, 1.1, 0.5, -0.2, 0.9];
    for v in [
        s_mat(&rows(&x, 3)),
        s_vecvec(rows(&x, 3)),
        s_vecvec_mut(rows(&x, 3)),
        s_nested(nested(&x)),
        s_nested_mut(nested(&x)),
    ] {
        assert_near(v, mq(&x), 1e-14, 1.0, "matrix cells' value");
    }
}

#[differentiable]
fn v_mat(m: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; m.len()];
    for i in 0..m.len() {
        let mut s = 0.0;
        for j in 0..x.len() {
            s += m[i][j] * x[j];
        }
        out[i] = s.tanh();
    }
    out
}

#[differentiable]
fn v_vecvec(m: Vec<Vec<f64>>) -> [f64; 2] {
    let mut out = [0.0; 2];
    for i in 0..2 {
        for j in 0..m[i].len() {
            out[i] += m[i][j] * m[1 - i][j];
        }
        out[i] += m[i][0].sin();
    }
    out
}

#[differentiable]
fn v_nested(m: [[f64; 2]; 2]) -> (f64, f64) {
    (
        m[0][0] * m[1][1] - m[0][1] * m[1][0],
        m[0][0].exp() + m[1][1],
    )
}

#[differentiable]
fn v_nested_arr(m: [[f64; 2]; 2], s: f64) -> [f64; 2] {
    [s * m[0][0] * m[0][1], m[1][0] / (1.0 + m[1][1] * m[1][1])]
}

#[test]
fn matrix_cells_with_vector_results() {
    let _: fn(&[Vec<f64>], &[f64], Vec<f64>) -> (Vec<f64>, (Vec<Vec<f64>>, Vec<f64>)) = v_mat_vjp;
    let _: fn(&[Vec<f64>], &[f64], (Vec<Vec<f64>>, Vec<f64>)) -> (Vec<f64>, Vec<f64>) = v_mat_jvp;
    let _: fn(&[Vec<f64>], &[f64]) -> Vec<Vec<f64>> = v_mat_jacobian;
    // Columns: m row-major (3 x 2), then x.
    vector(
        "v_mat",
        8,
        -1.0,
        1.0,
        &|x| v_mat(&rows(&x[..6], 2), &x[6..]),
        &|x, c| {
            let (r, (gm, gx)) = v_mat_vjp(&rows(&x[..6], 2), &x[6..], c.to_vec());
            let mut g = flat(&gm);
            g.extend(gx);
            (r, g)
        },
        &|x, t| {
            v_mat_jvp(
                &rows(&x[..6], 2),
                &x[6..],
                (rows(&t[..6], 2), t[6..].to_vec()),
            )
        },
        Some(&|x| v_mat_jacobian(&rows(&x[..6], 2), &x[6..])),
    );
    let _: fn(Vec<Vec<f64>>, [f64; 2]) -> ([f64; 2], Vec<Vec<f64>>) = v_vecvec_vjp;
    let _: fn(Vec<Vec<f64>>, Vec<Vec<f64>>) -> ([f64; 2], [f64; 2]) = v_vecvec_jvp;
    let _: fn(Vec<Vec<f64>>) -> Vec<Vec<f64>> = v_vecvec_jacobian;
    vector(
        "v_vecvec",
        6,
        -1.0,
        1.0,
        &|x| v_vecvec(rows(x, 3)).to_vec(),
        &|x, c| {
            let (r, g) = v_vecvec_vjp(rows(x, 3), arr(c));
            (r.to_vec(), flat(&g))
        },
        &|x, t| {
            let (r, d) = v_vecvec_jvp(rows(x, 3), rows(t, 3));
            (r.to_vec(), d.to_vec())
        },
        Some(&|x| v_vecvec_jacobian(rows(x, 3))),
    );
    let _: fn([[f64; 2]; 2], (f64, f64)) -> ((f64, f64), [[f64; 2]; 2]) = v_nested_vjp;
    let _: fn([[f64; 2]; 2], [[f64; 2]; 2]) -> ((f64, f64), (f64, f64)) = v_nested_jvp;
    vector(
        "v_nested",
        4,
        -1.0,
        1.0,
        &|x| {
            let r = v_nested(nested(x));
            vec![r.0, r.1]
        },
        &|x, c| {
            let (r, g) = v_nested_vjp(nested(x), (c[0], c[1]));
            (vec![r.0, r.1], flat_nested(&g))
        },
        &|x, t| {
            let (r, d) = v_nested_jvp(nested(x), nested(t));
            (vec![r.0, r.1], vec![d.0, d.1])
        },
        None,
    );
    // det's gradient is the cofactor matrix.
    let (_, g) = v_nested_vjp([[1.0, 2.0], [3.0, 4.0]], (1.0, 0.0));
    assert_eq!(g, [[4.0, -3.0], [-2.0, 1.0]], "det's cofactors");
    let _: fn([[f64; 2]; 2], f64) -> Vec<Vec<f64>> = v_nested_arr_jacobian;
    vector(
        "v_nested_arr",
        5,
        -1.0,
        1.0,
        &|x| v_nested_arr(nested(&x[..4]), x[4]).to_vec(),
        &|x, c| {
            let (r, (gm, gs)) = v_nested_arr_vjp(nested(&x[..4]), x[4], arr(c));
            let mut g = flat_nested(&gm);
            g.push(gs);
            (r.to_vec(), g)
        },
        &|x, t| {
            let (r, d) = v_nested_arr_jvp(nested(&x[..4]), x[4], (nested(&t[..4]), t[4]));
            (r.to_vec(), d.to_vec())
        },
        Some(&|x| v_nested_arr_jacobian(nested(&x[..4]), x[4])),
    );
}

// ---------------------------------------------------------------------------------------------------
// Tuples: `(f64, f64)` beside a scalar, `([f64; 2], f64)`, one destructured in the pattern, and vector
// results of tuples. `_grad_into` takes `&mut` of the tuple (README's table).

#[differentiable(order = 2)]
fn s_tup(p: (f64, f64), q: f64) -> f64 {
    p.0 * p.1.exp() + (p.0 * q).sin() + q * q * p.1
}

fn s_tup_exact(v: &[f64]) -> Flat {
    let (a, b, q) = (v[0], v[1], v[2]);
    let c = (a * q).cos();
    vec![b.exp() + q * c, a * b.exp() + q * q, a * c + 2.0 * q * b]
}

#[differentiable(order = 2)]
fn s_tup2(p: ([f64; 2], f64)) -> f64 {
    let (w, s) = p;
    (w[0] * s).sin() + w[1] * w[1] * s
}

#[differentiable(order = 2)]
fn s_tup_pattern((w, s): ([f64; 2], f64), k: usize) -> f64 {
    let mut t = 0.0;
    for _ in 0..k {
        t += (w[0] * s).sin() + w[1] * w[1] * s;
    }
    t
}

fn s_tup2_exact(v: &[f64]) -> Flat {
    let (w0, w1, s) = (v[0], v[1], v[2]);
    let c = (w0 * s).cos();
    vec![s * c, 2.0 * w1 * s, w0 * c + w1 * w1]
}

#[differentiable]
fn v_tup(p: (f64, f64)) -> Vec<f64> {
    vec![p.0 * p.1, p.0.sin() + p.1, p.1.exp()]
}

#[differentiable]
fn v_tup2(p: ([f64; 2], f64), q: (Vec<f64>, f64)) -> [f64; 2] {
    [p.0[0] * p.1 + q.0[0] * q.1, p.0[1].cos() * q.0[1]]
}

#[test]
fn tuple_cells() {
    let _: fn((f64, f64), f64) -> (f64, ((f64, f64), f64)) = s_tup_grad;
    let _: fn((f64, f64), f64, f64) -> (f64, ((f64, f64), f64)) = s_tup_vjp;
    let _: fn((f64, f64), f64, ((f64, f64), f64)) -> (f64, f64) = s_tup_jvp;
    let _: fn((f64, f64), f64, (&mut (f64, f64), &mut f64)) -> f64 = s_tup_grad_into;
    let _: fn((f64, f64), f64, ((f64, f64), f64)) -> (f64, ((f64, f64), f64), ((f64, f64), f64)) =
        s_tup_hvp;
    let _: fn((f64, f64), f64) -> (f64, ((f64, f64), f64), Vec<Vec<f64>>) = s_tup_hessian;
    let cat = |g: ((f64, f64), f64)| vec![g.0 .0, g.0 .1, g.1];
    scalar(Scalar {
        name: "s_tup",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_tup((x[0], x[1]), x[2]),
        grad: &|x| {
            let (v, g) = s_tup_grad((x[0], x[1]), x[2]);
            (v, cat(g))
        },
        vjp: &|x, d| {
            let (v, g) = s_tup_vjp((x[0], x[1]), x[2], d);
            (v, cat(g))
        },
        jvp: &|x, t| s_tup_jvp((x[0], x[1]), x[2], ((t[0], t[1]), t[2])),
        into: &|x| {
            let (mut a, mut b) = ((GARBAGE, GARBAGE), GARBAGE);
            let v = s_tup_grad_into((x[0], x[1]), x[2], (&mut a, &mut b));
            (v, cat((a, b)))
        },
        exact: Some(&s_tup_exact),
    });
    second(Second {
        name: "s_tup",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_tup_grad((x[0], x[1]), x[2]);
            (v, cat(g))
        },
        hessian: &|x| {
            let (v, g, h) = s_tup_hessian((x[0], x[1]), x[2]);
            (v, cat(g), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_tup_hvp((x[0], x[1]), x[2], ((d[0], d[1]), d[2]));
            (v, cat(g), cat(p))
        },
        exact: None,
    });
    let _: fn(([f64; 2], f64)) -> (f64, ([f64; 2], f64)) = s_tup2_grad;
    let _: fn(([f64; 2], f64), &mut ([f64; 2], f64)) -> f64 = s_tup2_grad_into;
    let _: fn(([f64; 2], f64), ([f64; 2], f64)) -> (f64, ([f64; 2], f64), ([f64; 2], f64)) =
        s_tup2_hvp;
    let _: fn(([f64; 2], f64), usize) -> (f64, ([f64; 2], f64)) = s_tup_pattern_grad;
    let cat2 = |g: ([f64; 2], f64)| vec![g.0[0], g.0[1], g.1];
    let tup = |x: &[f64]| ([x[0], x[1]], x[2]);
    for k in [0usize, 1, 2] {
        // k = 0 is the function of the pattern's tuple only (1 for s_tup2): s_tup_pattern = k s_tup2.
        let (f, g, vjp, jvp, into, h, hvp): (
            Box<dyn Fn(([f64; 2], f64)) -> f64>,
            Box<dyn Fn(([f64; 2], f64)) -> (f64, ([f64; 2], f64))>,
            Box<dyn Fn(([f64; 2], f64), f64) -> (f64, ([f64; 2], f64))>,
            Box<dyn Fn(([f64; 2], f64), ([f64; 2], f64)) -> (f64, f64)>,
            Box<dyn Fn(([f64; 2], f64), &mut ([f64; 2], f64)) -> f64>,
            Box<dyn Fn(([f64; 2], f64)) -> (f64, ([f64; 2], f64), Vec<Vec<f64>>)>,
            Box<
                dyn Fn(([f64; 2], f64), ([f64; 2], f64)) -> (f64, ([f64; 2], f64), ([f64; 2], f64)),
            >,
        ) = if k == 0 {
            (
                Box::new(s_tup2),
                Box::new(s_tup2_grad),
                Box::new(s_tup2_vjp),
                Box::new(s_tup2_jvp),
                Box::new(s_tup2_grad_into),
                Box::new(s_tup2_hessian),
                Box::new(s_tup2_hvp),
            )
        } else {
            (
                Box::new(move |p| s_tup_pattern(p, k)),
                Box::new(move |p| s_tup_pattern_grad(p, k)),
                Box::new(move |p, d| s_tup_pattern_vjp(p, k, d)),
                Box::new(move |p, t| s_tup_pattern_jvp(p, k, t)),
                Box::new(move |p, b| s_tup_pattern_grad_into(p, k, b)),
                Box::new(move |p| s_tup_pattern_hessian(p, k)),
                Box::new(move |p, v| s_tup_pattern_hvp(p, k, v)),
            )
        };
        let times = k.max(1) as f64;
        let name = format!("s_tup2 / pattern k {k}");
        scalar(Scalar {
            name: &name,
            n: 3,
            lo: -1.5,
            hi: 1.5,
            f: &|x| f(tup(x)),
            grad: &|x| {
                let (v, gr) = g(tup(x));
                (v, cat2(gr))
            },
            vjp: &|x, d| {
                let (v, gr) = vjp(tup(x), d);
                (v, cat2(gr))
            },
            jvp: &|x, t| jvp(tup(x), tup(t)),
            into: &|x| {
                let mut b = ([GARBAGE; 2], GARBAGE);
                let v = into(tup(x), &mut b);
                (v, cat2(b))
            },
            exact: Some(&|x: &[f64]| s_tup2_exact(x).iter().map(|v| v * times).collect()),
        });
        second(Second {
            name: &name,
            n: 3,
            lo: -1.5,
            hi: 1.5,
            grad: &|x| {
                let (v, gr) = g(tup(x));
                (v, cat2(gr))
            },
            hessian: &|x| {
                let (v, gr, hm) = h(tup(x));
                (v, cat2(gr), hm)
            },
            hvp: &|x, d| {
                let (v, gr, p) = hvp(tup(x), tup(d));
                (v, cat2(gr), cat2(p))
            },
            exact: None,
        });
    }
    let _: fn((f64, f64), Vec<f64>) -> (Vec<f64>, (f64, f64)) = v_tup_vjp;
    let _: fn((f64, f64), (f64, f64)) -> (Vec<f64>, Vec<f64>) = v_tup_jvp;
    let _: fn((f64, f64)) -> Vec<Vec<f64>> = v_tup_jacobian;
    vector(
        "v_tup",
        2,
        -1.5,
        1.5,
        &|x| v_tup((x[0], x[1])),
        &|x, c| {
            let (r, g) = v_tup_vjp((x[0], x[1]), c.to_vec());
            (r, vec![g.0, g.1])
        },
        &|x, t| v_tup_jvp((x[0], x[1]), (t[0], t[1])),
        Some(&|x| v_tup_jacobian((x[0], x[1]))),
    );
    let _: fn(([f64; 2], f64), (Vec<f64>, f64)) -> Vec<Vec<f64>> = v_tup2_jacobian;
    let _: fn(
        ([f64; 2], f64),
        (Vec<f64>, f64),
        [f64; 2],
    ) -> ([f64; 2], (([f64; 2], f64), (Vec<f64>, f64))) = v_tup2_vjp;
    // Columns: p.0[0], p.0[1], p.1, q.0[0], q.0[1], q.1.
    let args = |x: &[f64]| (([x[0], x[1]], x[2]), (vec![x[3], x[4]], x[5]));
    vector(
        "v_tup2",
        6,
        -1.5,
        1.5,
        &|x| {
            let (p, q) = args(x);
            v_tup2(p, q).to_vec()
        },
        &|x, c| {
            let (p, q) = args(x);
            let (r, (gp, gq)) = v_tup2_vjp(p, q, arr(c));
            (
                r.to_vec(),
                vec![gp.0[0], gp.0[1], gp.1, gq.0[0], gq.0[1], gq.1],
            )
        },
        &|x, t| {
            let (p, q) = args(x);
            let (r, d) = v_tup2_jvp(p, q, args(t));
            (r.to_vec(), d.to_vec())
        },
        Some(&|x| {
            let (p, q) = args(x);
            v_tup2_jacobian(p, q)
        }),
    );
}

// ---------------------------------------------------------------------------------------------------
// More cells: `derivatives` with `wrt(x)` beside a slice of data and `mut x`; Jacobians of `T` scalars,
// of an `[f64; 3]` by value; `Dual<Dual<f64>>`.

#[differentiable(wrt(x), order = 3)]
fn d_wrt(mut x: f64, c: &[f64]) -> f64 {
    // Horner: c0 + x (c1 + x (c2 + ..)), then x overwritten by the body.
    let mut p = 0.0;
    for i in (0..c.len()).rev() {
        p = p * x + c[i];
    }
    x = x.exp();
    p * x
}

#[differentiable]
fn a_gen<T: Float>(x: T, y: T) -> [T; 2] {
    [x * y.sin(), x.powi(2) + y]
}

#[differentiable]
fn a_arr(x: [f64; 3]) -> Vec<f64> {
    vec![x[0] * x[1], x[1] * x[2], x[2].exp() * x[0]]
}

#[test]
fn more_cells() {
    let _: fn(f64, &[f64]) -> [f64; 4] = d_wrt_derivatives;
    let _: fn(f64, &[f64]) -> (f64, f64) = d_wrt_grad;
    let c = [0.5, -1.0, 0.25];
    // (c0 + c1 x + c2 x^2) e^x: f^(k) = e^x sum_j C(k, j) p^(j).
    let exact = |x: f64| {
        let p = [
            c[0] + c[1] * x + c[2] * x * x,
            c[1] + 2.0 * c[2] * x,
            2.0 * c[2],
            0.0,
        ];
        let e = x.exp();
        vec![
            e * p[0],
            e * (p[0] + p[1]),
            e * (p[0] + 2.0 * p[1] + p[2]),
            e * (p[0] + 3.0 * p[1] + 3.0 * p[2] + p[3]),
        ]
    };
    derivatives(
        "d_wrt",
        -1.5,
        1.5,
        &|x| d_wrt(x, &c),
        &|x| d_wrt_derivatives(x, &c).to_vec(),
        &|x| d_wrt_grad(x, &c),
        Some(&exact),
    );
    let _: fn(f64, f64) -> Vec<Vec<f64>> = a_gen_jacobian::<f64>;
    vector(
        "a_gen",
        2,
        -1.5,
        1.5,
        &|x| a_gen(x[0], x[1]).to_vec(),
        &|x, c| {
            let (r, g) = a_gen_vjp(x[0], x[1], arr(c));
            (r.to_vec(), vec![g.0, g.1])
        },
        &|x, t| {
            let (r, d) = a_gen_jvp(x[0], x[1], (t[0], t[1]));
            (r.to_vec(), d.to_vec())
        },
        Some(&|x| a_gen_jacobian(x[0], x[1])),
    );
    let j = a_gen_jacobian(0.4, -0.3);
    let j32 = a_gen_jacobian(0.4f32, -0.3f32);
    let jd = a_gen_jacobian(Dual::new(0.4, 1.0), Dual::new(-0.3, 0.0));
    // d/dx of J = [[sin y, x cos y], [2x, 1]]: [[0, cos y], [2, 0]].
    let djdx = [[0.0, (-0.3f64).cos()], [2.0, 0.0]];
    for i in 0..2 {
        for k in 0..2 {
            near32(j32[i][k], j[i][k], "a_gen::<f32> Jacobian");
            assert_near(jd[i][k].re, j[i][k], 1e-14, 1.0, "a_gen::<Dual> Jacobian");
            let what = "a_gen::<Dual> Jacobian's tangent";
            assert_near(jd[i][k].eps, djdx[i][k], 1e-14, 1.0, what);
        }
    }
    let _: fn([f64; 3]) -> Vec<Vec<f64>> = a_arr_jacobian;
    let _: fn([f64; 3], Vec<f64>) -> (Vec<f64>, [f64; 3]) = a_arr_vjp;
    let _: fn([f64; 3], [f64; 3]) -> (Vec<f64>, Vec<f64>) = a_arr_jvp;
    vector(
        "a_arr",
        3,
        -1.5,
        1.5,
        &|x| a_arr(arr(x)),
        &|x, c| {
            let (r, g) = a_arr_vjp(arr(x), c.to_vec());
            (r, g.to_vec())
        },
        &|x, t| a_arr_jvp(arr(x), arr(t)),
        Some(&|x| a_arr_jacobian(arr(x))),
    );
    // Dual<Dual<f64>>: `_grad` of s_gen on nested duals seeded along x in both levels gives, in the
    // innermost tangent of the gradient, the third derivatives along x (6 and 0).
    let dd = |re: f64, a: f64, b: f64| Dual::new(Dual::new(re, a), Dual::new(b, 0.0));
    let (v, (gx, gy)) = s_gen_grad(dd(0.7, 1.0, 1.0), dd(-0.4, 0.0, 0.0));
    let h = s_gen_hess(&[0.7, -0.4]);
    assert_near(v.re.re, s_gen(0.7, -0.4), 1e-14, 1.0, "Dual<Dual> value");
    assert_near(gx.re.eps, h[0][0], 1e-14, 1.0, "Dual<Dual> H[0][0]");
    assert_near(gy.re.eps, h[1][0], 1e-14, 1.0, "Dual<Dual> H[1][0]");
    assert_near(gx.eps.re, h[0][0], 1e-14, 1.0, "Dual<Dual> H[0][0], outer");
    assert_near(gx.eps.eps, 6.0, 1e-14, 1.0, "Dual<Dual> d3/dx3");
    assert_near(gy.eps.eps, 0.0, 1e-14, 1.0, "Dual<Dual> d3/dx2dy");
}

// ---------------------------------------------------------------------------------------------------
// f32 across the other parameter types, each beside a generic twin with the same body: the twin on
// f64 through the harness, the f32 function against it, the twin on f32 (bit for bit) and on Dual<f64>.

#[differentiable(order = 2)]
fn m32(m: &[Vec<f32>], p: ([f32; 2], f32), q: [[f32; 2]; 2]) -> f32 {
    let mut s = p.1 * q[0][1];
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j] * m[i][j] * p.0[j] + (m[i][j] * q[i][j]).sin();
        }
    }
    s
}

#[differentiable(order = 2)]
fn mg<T: Float>(m: &[Vec<T>], p: ([T; 2], T), q: [[T; 2]; 2]) -> T {
    let mut s = p.1 * q[0][1];
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s = s + (m[i][j] * m[i][j] * p.0[j] + (m[i][j] * q[i][j]).sin());
        }
    }
    s
}

#[differentiable]
fn o32(x: &[f32], mut v: Vec<f32>, out: &mut [f32]) {
    for i in 1..v.len() {
        v[i] = v[i] * v[i - 1] + v[i].cos();
    }
    for i in 0..out.len() {
        out[i] = x[i] * v[i];
    }
}

#[differentiable]
fn og<T: Float>(x: &[T], mut v: Vec<T>, out: &mut [T]) {
    for i in 1..v.len() {
        v[i] = v[i] * v[i - 1] + v[i].cos();
    }
    for i in 0..out.len() {
        out[i] = x[i] * v[i];
    }
}

type MArgs<F> = (Vec<Vec<F>>, ([F; 2], F), [[F; 2]; 2]);

/// Flat: m (2 x 2), p.0, p.1, q (2 x 2): 11 inputs.
fn m_args<F: Copy>(x: &[F]) -> MArgs<F> {
    (
        vec![vec![x[0], x[1]], vec![x[2], x[3]]],
        ([x[4], x[5]], x[6]),
        [[x[7], x[8]], [x[9], x[10]]],
    )
}

fn m_flat<F: Copy>(g: &MArgs<F>) -> Vec<F> {
    let mut v: Vec<F> = g.0.iter().flatten().copied().collect();
    v.extend([g.1 .0[0], g.1 .0[1], g.1 .1]);
    v.extend(g.2.iter().flatten().copied());
    v
}

#[test]
fn f32_across_parameter_types() {
    let _: fn(&[Vec<f32>], ([f32; 2], f32), [[f32; 2]; 2]) -> (f32, MArgs<f32>) = m32_grad;
    let _: fn(
        &[Vec<f32>],
        ([f32; 2], f32),
        [[f32; 2]; 2],
        (&mut [Vec<f32>], &mut ([f32; 2], f32), &mut [[f32; 2]; 2]),
    ) -> f32 = m32_grad_into;
    scalar(Scalar {
        name: "mg",
        n: 11,
        lo: -1.2,
        hi: 1.2,
        f: &|x| {
            let (m, p, q) = m_args(x);
            mg(&m, p, q)
        },
        grad: &|x| {
            let (m, p, q) = m_args(x);
            let (v, g) = mg_grad(&m, p, q);
            (v, m_flat(&g))
        },
        vjp: &|x, d| {
            let (m, p, q) = m_args(x);
            let (v, g) = mg_vjp(&m, p, q, d);
            (v, m_flat(&g))
        },
        jvp: &|x, t| {
            let (m, p, q) = m_args(x);
            mg_jvp(&m, p, q, m_args(t))
        },
        into: &|x| {
            let (m, p, q) = m_args(x);
            let mut g = m_args(&[GARBAGE; 11]);
            let v = mg_grad_into(&m, p, q, (&mut g.0, &mut g.1, &mut g.2));
            (v, m_flat(&g))
        },
        exact: None,
    });
    second(Second {
        name: "mg",
        n: 11,
        lo: -1.2,
        hi: 1.2,
        grad: &|x| {
            let (m, p, q) = m_args(x);
            let (v, g) = mg_grad(&m, p, q);
            (v, m_flat(&g))
        },
        hessian: &|x| {
            let (m, p, q) = m_args(x);
            let (v, g, h) = mg_hessian(&m, p, q);
            (v, m_flat(&g), h)
        },
        hvp: &|x, d| {
            let (m, p, q) = m_args(x);
            let (v, g, hv) = mg_hvp(&m, p, q, m_args(d));
            (v, m_flat(&g), m_flat(&hv))
        },
        exact: None,
    });
    let mut rng = Lcg::new(32);
    for _ in 0..POINTS {
        let x64: Vec<f64> = rng.vec(11, -1.2, 1.2);
        let x32: Vec<f32> = x64.iter().map(|v| *v as f32).collect();
        let x64: Vec<f64> = x32.iter().map(|v| *v as f64).collect();
        let (m, p, q) = m_args(&x64);
        let (v, g, h) = mg_hessian(&m, p, q);
        let g = m_flat(&g);
        let (m3, p3, q3) = m_args(&x32);
        let (v3, g3, h3) = m32_hessian(&m3, p3, q3);
        let (vg, gg, hg) = mg_hessian(&m3, p3, q3);
        near32(v3, v, "m32 value");
        near32(m32(&m3, p3, q3), v, "m32 itself");
        let g3 = m_flat(&g3);
        assert_eq!(m_flat(&gg), g3, "mg::<f32> = m32: gradient");
        assert_eq!(vg, v3);
        assert_eq!(hg, h3, "mg::<f32> = m32: Hessian");
        for i in 0..11 {
            near32(g3[i], g[i], &format!("m32 gradient [{i}]"));
            for j in 0..11 {
                near32(h3[i][j], h[i][j], &format!("m32 H[{i}][{j}]"));
            }
        }
        let mut into = m_args(&[f32::NAN; 11]);
        m32_grad_into(&m3, p3, q3, (&mut into.0, &mut into.1, &mut into.2));
        assert_eq!(m_flat(&into), g3, "m32_grad_into");
        let t: Vec<f32> = (0..11)
            .map(|i| if i % 3 == 0 { 1.0 } else { -0.5 })
            .collect();
        let (_, jd) = m32_jvp(&m3, p3, q3, m_args(&t));
        let expected: f64 = (0..11).map(|i| g[i] * t[i] as f64).sum();
        near32(jd, expected, "m32 jvp");
        let (_, _, hv) = m32_hvp(&m3, p3, q3, m_args(&t));
        let hv = m_flat(&hv);
        for i in 0..11 {
            let e: f64 = (0..11).map(|j| h[i][j] * t[j] as f64).sum();
            near32(hv[i], e, "m32 hvp");
        }
        // Dual<f64>: the gradient's tangent along the flat direction t is H t.
        let xd: Vec<Dual<f64>> = x64
            .iter()
            .zip(&t)
            .map(|(&a, &b)| Dual::new(a, b as f64))
            .collect();
        let (md, pd, qd) = m_args(&xd);
        let (_, gd) = mg_grad(&md, pd, qd);
        let gd = m_flat(&gd);
        for i in 0..11 {
            let e: f64 = (0..11).map(|j| h[i][j] * t[j] as f64).sum();
            assert_near(gd[i].re, g[i], 1e-14, 1.0, "mg::<Dual> gradient");
            assert_near(gd[i].eps, e, 1e-12, 1.0, "mg::<Dual> H t");
        }
    }
    let _: fn(&[f32], Vec<f32>, &mut [f32]) -> Vec<Vec<f32>> = o32_jacobian;
    let _: fn(&[f32], Vec<f32>, &mut [f32], &[f32]) -> (Vec<f32>, Vec<f32>) = o32_vjp;
    // Flat: x (3), v (3).
    vector(
        "og",
        6,
        -1.2,
        1.2,
        &|x| {
            let mut out = vec![GARBAGE; 3];
            og(&x[..3], x[3..].to_vec(), &mut out);
            out
        },
        &|x, c| {
            let mut out = vec![GARBAGE; 3];
            let (gx, gv) = og_vjp(&x[..3], x[3..].to_vec(), &mut out, c);
            (out, [gx, gv].concat())
        },
        &|x, t| {
            let mut out = vec![GARBAGE; 3];
            let mut d = vec![GARBAGE; 3];
            let tangent = (t[..3].to_vec(), t[3..].to_vec());
            og_jvp(&x[..3], x[3..].to_vec(), &mut out, tangent, &mut d);
            (out, d)
        },
        Some(&|x| og_jacobian(&x[..3], x[3..].to_vec(), &mut [GARBAGE; 3])),
    );
    let x: Vec<f32> = vec![0.3, -0.7, 1.1, 0.5, 0.9, -0.4];
    let mut out = [0.0f32; 3];
    o32(&x[..3], x[3..].to_vec(), &mut out);
    let mut out_g = [0.0f32; 3];
    og(&x[..3], x[3..].to_vec(), &mut out_g);
    assert_eq!(out, out_g, "o32 = og::<f32>");
    let x64: Vec<f64> = x.iter().map(|v| *v as f64).collect();
    let j = og_jacobian(&x64[..3], x64[3..].to_vec(), &mut [0.0; 3]);
    let j32 = o32_jacobian(&x[..3], x[3..].to_vec(), &mut [0.0; 3]);
    let jg = og_jacobian(&x[..3], x[3..].to_vec(), &mut [0.0; 3]);
    assert_eq!(j32, jg, "og::<f32> = o32");
    for i in 0..3 {
        for k in 0..6 {
            near32(j32[i][k], j[i][k], &format!("o32 J[{i}][{k}]"));
        }
        let unit: Vec<f32> = unit_dir(3, i).iter().map(|v| *v as f32).collect();
        let (gx, gv) = o32_vjp(&x[..3], x[3..].to_vec(), &mut [0.0f32; 3], &unit);
        assert_eq!([gx, gv].concat(), j32[i], "o32: J row {i} = vjp");
    }
}

// ---------------------------------------------------------------------------------------------------
// f32 matrices taken alone by reference (`&[Vec<f32>]`, `&[[f32; 3]; 2]`, `&[[f32; 3]]`), which did not
// compile at first order before matrix33's fix (`struct_whole::pairs::float_of`), at `order = 2`, against
// the f64 matrix cells' formula.

#[differentiable(order = 2)]
fn s_mat32(m: &[Vec<f32>]) -> f32 {
    let mut s = (m[0][0] * m[1][1]).sin();
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j] * m[i][j] * m[i][0];
        }
    }
    s
}

#[differentiable(order = 2)]
fn s_refnested32(m: &[[f32; 3]; 2]) -> f32 {
    let mut s = (m[0][0] * m[1][1]).sin();
    for i in 0..2 {
        for j in 0..3 {
            s += m[i][j] * m[i][j] * m[i][0];
        }
    }
    s
}

#[differentiable(order = 2)]
fn s_rows32(m: &[[f32; 3]]) -> f32 {
    let mut s = (m[0][0] * m[1][1]).sin();
    for i in 0..m.len() {
        for j in 0..3 {
            s += m[i][j] * m[i][j] * m[i][0];
        }
    }
    s
}

#[test]
fn f32_matrices_by_reference() {
    let _: fn(&[Vec<f32>]) -> (f32, Vec<Vec<f32>>) = s_mat32_grad;
    let _: fn(&[Vec<f32>], &mut [Vec<f32>]) -> f32 = s_mat32_grad_into;
    let _: fn(&[[f32; 3]; 2]) -> (f32, [[f32; 3]; 2]) = s_refnested32_grad;
    let _: fn(&[[f32; 3]]) -> (f32, Vec<[f32; 3]>) = s_rows32_grad;
    let mut rng = Lcg::new(3232);
    for _ in 0..POINTS {
        let x32: Vec<f32> = rng.vec(6, -1.2, 1.2).iter().map(|v| *v as f32).collect();
        let x: Vec<f64> = x32.iter().map(|v| *v as f64).collect();
        let (v, g, h) = s_mat_hessian(&rows(&x, 3));
        let g = flat(&g);
        let m32: Vec<Vec<f32>> = x32.chunks(3).map(|r| r.to_vec()).collect();
        let n32: [[f32; 3]; 2] = std::array::from_fn(|i| std::array::from_fn(|j| x32[i * 3 + j]));
        let r32: Vec<[f32; 3]> = n32.to_vec();
        let results: [(f32, Vec<f32>, Vec<Vec<f32>>, &str); 3] = [
            {
                let (v, g, h) = s_mat32_hessian(&m32);
                let mut into = vec![vec![f32::NAN; 3]; 2];
                s_mat32_grad_into(&m32, &mut into);
                assert_eq!(into, g, "s_mat32_grad_into");
                (v, g.concat(), h, "s_mat32")
            },
            {
                let (v, g, h) = s_refnested32_hessian(&n32);
                (v, g.concat(), h, "s_refnested32")
            },
            {
                let (v, g, h) = s_rows32_hessian(&r32);
                (v, g.concat(), h, "s_rows32")
            },
        ];
        for (v32, g32, h32, name) in results {
            near32(v32, v, &format!("{name} value"));
            for i in 0..6 {
                near32(g32[i], g[i], &format!("{name} gradient [{i}]"));
                for j in 0..6 {
                    near32(h32[i][j], h[i][j], &format!("{name} H[{i}][{j}]"));
                }
            }
        }
        let (_, _, p) = s_mat32_hvp(&m32, vec![vec![1.0, 0.0, 0.0], vec![0.0, 0.0, 0.0]]);
        for i in 0..6 {
            near32(p.concat()[i], h[i][0], "s_mat32_hvp along m[0][0]");
        }
        near32(s_mat32(&m32), v, "s_mat32");
        near32(s_refnested32(&n32), v, "s_refnested32");
        near32(s_rows32(&r32), v, "s_rows32");
    }
}

#[differentiable]
fn v_mat32(x: &[Vec<f32>]) -> Vec<f32> {
    vec![x[0][0] * x[1][0], x[0][1].sin()]
}

#[differentiable]
fn v_refnested32(x: &[[f32; 2]; 2]) -> [f32; 2] {
    [x[0][0] * x[1][0], x[0][1].sin()]
}

#[differentiable]
fn o_mat32(m: &[Vec<f32>], out: &mut [f32]) {
    out[0] = m[0][0] * m[1][1];
    out[1] = m[0][1].exp();
}

#[test]
fn f32_matrices_with_vector_results() {
    let m = vec![vec![1.5f32, 0.5], vec![-2.0, 0.25]];
    let n = [[1.5f32, 0.5], [-2.0, 0.25]];
    let c = 0.5f32.cos();
    // Rows: outputs; columns: m row-major.
    let expected = vec![vec![-2.0, 0.0, 1.5, 0.0], vec![0.0, c, 0.0, 0.0]];
    assert_eq!(v_mat32_jacobian(&m), expected);
    assert_eq!(v_refnested32_jacobian(&n), expected);
    let (r, g) = v_mat32_vjp(&m, vec![1.0, 2.0]);
    assert_eq!(r, v_mat32(&m));
    assert_eq!(g, vec![vec![-2.0, 2.0 * c], vec![1.5, 0.0]]);
    let (_, d) = v_refnested32_jvp(&n, [[1.0, 1.0], [1.0, 1.0]]);
    assert_eq!(d, [-0.5, c]);
    let _: fn(&[Vec<f32>], &mut [f32]) -> Vec<Vec<f32>> = o_mat32_jacobian;
    let mut out = [f32::NAN; 2];
    o_mat32(&m, &mut out);
    assert_eq!(out, [1.5 * 0.25, 0.5f32.exp()]);
    let mut out = [f32::NAN; 2];
    let j = o_mat32_jacobian(&m, &mut out);
    assert_eq!(out, [1.5 * 0.25, 0.5f32.exp()]);
    assert_eq!(
        j,
        vec![vec![0.25, 0.0, 0.0, 1.5], vec![0.0, 0.5f32.exp(), 0.0, 0.0]]
    );
    let g = o_mat32_vjp(&m, &mut out, &[1.0, 0.0]);
    assert_eq!(g, vec![vec![0.25, 0.0], vec![0.0, 1.5]]);
}
