//! The contract audit (`API.md`), as an outside suite writes it: for each row of the parameter-type table,
//! a function with `order = 2` whose generated items are called with exactly the signatures the contract
//! gives (each bound to a `fn` pointer type written from `API.md`, so the compiler checks it), and checked
//! numerically by [`common::contract::audit`]: `_grad` against central differences and the analytic
//! gradient, `_vjp`, `_jvp`, `_grad_into` against `_grad`, `_hessian` against differences of `_grad`, and
//! `_hvp` against `_hessian`, at several inputs.

// Indexed loops and `&Vec<T>` parameters are what the contract's table lists.
#![allow(clippy::needless_range_loop, clippy::ptr_arg, clippy::type_complexity)]

mod common;

use autodiff::{differentiable, Differentiable, Float};
use common::contract::{audit, flatten, nested, rows, Items, GARBAGE};
use common::{assert_close, central_difference, ANALYTIC_TOL, ANALYTIC_TOL_F32};

// ---------------------------------------------------------------------------------------------- f64

/// The example of `API.md`.
#[differentiable(order = 2)]
fn f(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z.exp()
}

#[test]
fn f64_parameters() {
    let _: fn(f64, f64) -> (f64, (f64, f64)) = f_grad;
    let _: fn(f64, f64, f64) -> (f64, (f64, f64)) = f_vjp;
    let _: fn(f64, f64, (f64, f64)) -> (f64, f64) = f_jvp;
    let _: fn(f64, f64, (&mut f64, &mut f64)) -> f64 = f_grad_into;
    let _: fn(f64, f64, (f64, f64)) -> (f64, (f64, f64), (f64, f64)) = f_hvp;
    let _: fn(f64, f64) -> (f64, (f64, f64), Vec<Vec<f64>>) = f_hessian;
    audit(
        &Items {
            what: "f(x: f64, y: f64)",
            primal: &|p| f(p[0], p[1]),
            grad: &|p| {
                let (v, (a, b)) = f_grad(p[0], p[1]);
                (v, vec![a, b])
            },
            vjp: &|p, d| {
                let (v, (a, b)) = f_vjp(p[0], p[1], d);
                (v, vec![a, b])
            },
            jvp: &|p, t| f_jvp(p[0], p[1], (t[0], t[1])),
            grad_into: &|p| {
                let (mut a, mut b) = (GARBAGE, GARBAGE);
                let v = f_grad_into(p[0], p[1], (&mut a, &mut b));
                (v, vec![a, b])
            },
            hvp: Some(&|p, t| {
                let (v, (a, b), (ha, hb)) = f_hvp(p[0], p[1], (t[0], t[1]));
                (v, vec![a, b], vec![ha, hb])
            }),
            hessian: Some(&|p| {
                let (v, (a, b), h) = f_hessian(p[0], p[1]);
                (v, vec![a, b], h)
            }),
            analytic: Some(&|p| {
                let (x, y) = (p[0], p[1]);
                let e = (x * y + x.sin()).exp();
                vec![e * (y + x.cos()), e * x]
            }),
        },
        &[vec![0.3, -0.7], vec![-1.2, 0.4], vec![0.9, 1.1]],
    );
    // The analytic Hessian at one point.
    let (x, y) = (0.4, -0.3);
    let (_, _, h) = f_hessian(x, y);
    let e = (x * y + x.sin()).exp();
    let gx = y + x.cos();
    assert_close(h[0][0], e * (gx * gx - x.sin()), ANALYTIC_TOL, "f: H_xx");
    assert_close(h[0][1], e * (x * gx + 1.0), ANALYTIC_TOL, "f: H_xy");
    assert_close(h[1][1], e * x * x, ANALYTIC_TOL, "f: H_yy");
}

/// One scalar input: `_derivatives` gives f, f', f''.
#[differentiable(order = 3)]
fn sin_exp(x: f64) -> f64 {
    x.sin() * x.exp()
}

#[test]
fn f64_derivatives_of_one_scalar() {
    let _: fn(f64) -> [f64; 4] = sin_exp_derivatives;
    for x in [-1.3, 0.0, 0.8, 2.1] {
        let d = sin_exp_derivatives(x);
        let (s, c, e) = (x.sin(), x.cos(), x.exp());
        assert_close(d[0], s * e, ANALYTIC_TOL, "sin_exp: f");
        assert_eq!(
            d[0],
            sin_exp(x),
            "sin_exp_derivatives: the value is the function's"
        );
        assert_close(d[1], (s + c) * e, ANALYTIC_TOL, "sin_exp: f'");
        assert_close(d[2], 2.0 * c * e, ANALYTIC_TOL, "sin_exp: f''");
        assert_close(d[3], 2.0 * (c - s) * e, ANALYTIC_TOL, "sin_exp: f'''");
        assert_close(
            d[3],
            central_difference(|y| sin_exp_derivatives(y)[2], x),
            1e-6,
            "sin_exp: f''' by differences",
        );
    }
}

/// `f_derivatives` with an inactive parameter beside its one active scalar (`API.md`: `fn p(x, degree)`).
#[differentiable(order = 2)]
fn p(x: f64, degree: usize) -> f64 {
    let mut s = 0.0;
    let mut power = 1.0;
    for _ in 0..=degree {
        s += power;
        power *= x;
    }
    s
}

#[test]
fn derivatives_with_an_inactive_parameter() {
    let _: fn(f64, usize) -> [f64; 3] = p_derivatives;
    let _: fn(f64, usize) -> (f64, f64) = p_grad;
    for x in [-0.6, 0.5, 1.7] {
        let d = p_derivatives(x, 3);
        assert_close(d[0], 1.0 + x + x * x + x * x * x, ANALYTIC_TOL, "p: value");
        assert_close(
            d[0],
            p(x, 3),
            ANALYTIC_TOL,
            "p_derivatives: the value is the function's",
        );
        assert_close(d[1], 1.0 + 2.0 * x + 3.0 * x * x, ANALYTIC_TOL, "p: p'");
        assert_close(d[2], 2.0 + 6.0 * x, ANALYTIC_TOL, "p: p''");
    }
}

// ---------------------------------------------------------------------------------------------- f32

#[differentiable(order = 2)]
fn g32(x: f32, y: f32) -> f32 {
    (x * y).sin() + x.exp() * y
}

#[differentiable(order = 2)]
fn h32(x: f32) -> f32 {
    x.sin() * x.exp()
}

#[test]
fn f32_parameters() {
    let _: fn(f32, f32) -> (f32, (f32, f32)) = g32_grad;
    let _: fn(f32, f32, f32) -> (f32, (f32, f32)) = g32_vjp;
    let _: fn(f32, f32, (f32, f32)) -> (f32, f32) = g32_jvp;
    let _: fn(f32, f32, (&mut f32, &mut f32)) -> f32 = g32_grad_into;
    let _: fn(f32, f32, (f32, f32)) -> (f32, (f32, f32), (f32, f32)) = g32_hvp;
    let _: fn(f32, f32) -> (f32, (f32, f32), Vec<Vec<f32>>) = g32_hessian;
    let _: fn(f32) -> [f32; 3] = h32_derivatives;
    for (x, y) in [(0.3f32, -0.7f32), (1.1, 0.4), (-0.8, 1.3)] {
        let (xd, yd) = (x as f64, y as f64);
        let gx = yd * (xd * yd).cos() + xd.exp() * yd;
        let gy = xd * (xd * yd).cos() + xd.exp();
        let (v, (a, b)) = g32_grad(x, y);
        assert_close(v as f64, g32(x, y) as f64, 0.0, "g32: value");
        assert_close(a as f64, gx, ANALYTIC_TOL_F32, "g32: d/dx");
        assert_close(b as f64, gy, ANALYTIC_TOL_F32, "g32: d/dy");
        let (_, (va, vb)) = g32_vjp(x, y, 2.0);
        assert_close(va as f64, 2.0 * gx, ANALYTIC_TOL_F32, "g32_vjp: d/dx");
        assert_close(vb as f64, 2.0 * gy, ANALYTIC_TOL_F32, "g32_vjp: d/dy");
        let (_, jt) = g32_jvp(x, y, (0.5, -1.5));
        assert_close(jt as f64, 0.5 * gx - 1.5 * gy, ANALYTIC_TOL_F32, "g32_jvp");
        let (mut ba, mut bb) = (GARBAGE as f32, GARBAGE as f32);
        g32_grad_into(x, y, (&mut ba, &mut bb));
        assert_eq!((ba, bb), (a, b), "g32_grad_into");
        let s = (xd * yd).sin();
        let c = (xd * yd).cos();
        let hxx = -yd * yd * s + xd.exp() * yd;
        let hxy = c - xd * yd * s + xd.exp();
        let hyy = -xd * xd * s;
        let (_, _, h) = g32_hessian(x, y);
        assert_close(h[0][0] as f64, hxx, ANALYTIC_TOL_F32, "g32: H_xx");
        assert_close(h[0][1] as f64, hxy, ANALYTIC_TOL_F32, "g32: H_xy");
        assert_close(h[1][0] as f64, hxy, ANALYTIC_TOL_F32, "g32: H_yx");
        assert_close(h[1][1] as f64, hyy, ANALYTIC_TOL_F32, "g32: H_yy");
        let (_, _, (ha, hb)) = g32_hvp(x, y, (1.0, -1.0));
        assert_close(ha as f64, hxx - hxy, ANALYTIC_TOL_F32, "g32_hvp: x");
        assert_close(hb as f64, hxy - hyy, ANALYTIC_TOL_F32, "g32_hvp: y");
        let d = h32_derivatives(x);
        assert_eq!(d[0], h32(x), "h32_derivatives: the value is the function's");
        assert_close(
            d[1] as f64,
            (xd.sin() + xd.cos()) * xd.exp(),
            ANALYTIC_TOL_F32,
            "h32: f'",
        );
        assert_close(
            d[2] as f64,
            2.0 * xd.cos() * xd.exp(),
            ANALYTIC_TOL_F32,
            "h32: f''",
        );
    }
}

// ------------------------------------------------------------------------------- generic T and &T

#[differentiable(order = 2)]
fn gen<T: Float>(x: T, y: &T) -> T {
    (x * *y).tanh() + x * x * x / (T::one() + *y * *y)
}

#[differentiable(order = 2)]
fn by_ref(x: &f64, k: f64) -> f64 {
    (*x * k).sin() * *x
}

#[test]
fn generic_and_reference_parameters() {
    let _: fn(f64, &f64) -> (f64, (f64, f64)) = gen_grad::<f64>;
    let _: fn(f32, &f32) -> (f32, (f32, f32)) = gen_grad::<f32>;
    let _: fn(f64, &f64, f64) -> (f64, (f64, f64)) = gen_vjp::<f64>;
    let _: fn(f64, &f64, (f64, f64)) -> (f64, f64) = gen_jvp::<f64>;
    let _: fn(f64, &f64, (&mut f64, &mut f64)) -> f64 = gen_grad_into::<f64>;
    let _: fn(f64, &f64, (f64, f64)) -> (f64, (f64, f64), (f64, f64)) = gen_hvp::<f64>;
    let _: fn(f64, &f64) -> (f64, (f64, f64), Vec<Vec<f64>>) = gen_hessian::<f64>;
    audit(
        &Items {
            what: "gen<T: Float>(x: T, y: &T)",
            primal: &|p| gen(p[0], &p[1]),
            grad: &|p| {
                let (v, (a, b)) = gen_grad(p[0], &p[1]);
                (v, vec![a, b])
            },
            vjp: &|p, d| {
                let (v, (a, b)) = gen_vjp(p[0], &p[1], d);
                (v, vec![a, b])
            },
            jvp: &|p, t| gen_jvp(p[0], &p[1], (t[0], t[1])),
            grad_into: &|p| {
                let (mut a, mut b) = (GARBAGE, GARBAGE);
                let v = gen_grad_into(p[0], &p[1], (&mut a, &mut b));
                (v, vec![a, b])
            },
            hvp: Some(&|p, t| {
                let (v, (a, b), (ha, hb)) = gen_hvp(p[0], &p[1], (t[0], t[1]));
                (v, vec![a, b], vec![ha, hb])
            }),
            hessian: Some(&|p| {
                let (v, (a, b), h) = gen_hessian(p[0], &p[1]);
                (v, vec![a, b], h)
            }),
            analytic: Some(&|p| {
                let (x, y) = (p[0], p[1]);
                let s = 1.0 - (x * y).tanh().powi(2);
                let q = 1.0 + y * y;
                vec![
                    s * y + 3.0 * x * x / q,
                    s * x - x * x * x * 2.0 * y / (q * q),
                ]
            }),
        },
        &[vec![0.3, -0.7], vec![-1.2, 0.4], vec![0.9, 1.1]],
    );
    // The generic copy at f32 agrees with the f64 one.
    let (v32, (a32, b32)) = gen_grad(0.5f32, &-0.25f32);
    let (v64, (a64, b64)) = gen_grad(0.5f64, &-0.25f64);
    assert_close(v32 as f64, v64, ANALYTIC_TOL_F32, "gen::<f32> value");
    assert_close(a32 as f64, a64, ANALYTIC_TOL_F32, "gen::<f32> d/dx");
    assert_close(b32 as f64, b64, ANALYTIC_TOL_F32, "gen::<f32> d/dy");

    let _: fn(&f64, f64) -> (f64, (f64, f64)) = by_ref_grad;
    let _: fn(&f64, f64, f64) -> (f64, (f64, f64)) = by_ref_vjp;
    let _: fn(&f64, f64, (f64, f64)) -> (f64, f64) = by_ref_jvp;
    let _: fn(&f64, f64, (&mut f64, &mut f64)) -> f64 = by_ref_grad_into;
    let _: fn(&f64, f64, (f64, f64)) -> (f64, (f64, f64), (f64, f64)) = by_ref_hvp;
    let _: fn(&f64, f64) -> (f64, (f64, f64), Vec<Vec<f64>>) = by_ref_hessian;
    audit(
        &Items {
            what: "by_ref(x: &f64, k: f64)",
            primal: &|p| by_ref(&p[0], p[1]),
            grad: &|p| {
                let (v, (a, b)) = by_ref_grad(&p[0], p[1]);
                (v, vec![a, b])
            },
            vjp: &|p, d| {
                let (v, (a, b)) = by_ref_vjp(&p[0], p[1], d);
                (v, vec![a, b])
            },
            jvp: &|p, t| by_ref_jvp(&p[0], p[1], (t[0], t[1])),
            grad_into: &|p| {
                let (mut a, mut b) = (GARBAGE, GARBAGE);
                let v = by_ref_grad_into(&p[0], p[1], (&mut a, &mut b));
                (v, vec![a, b])
            },
            hvp: Some(&|p, t| {
                let (v, (a, b), (ha, hb)) = by_ref_hvp(&p[0], p[1], (t[0], t[1]));
                (v, vec![a, b], vec![ha, hb])
            }),
            hessian: Some(&|p| {
                let (v, (a, b), h) = by_ref_hessian(&p[0], p[1]);
                (v, vec![a, b], h)
            }),
            analytic: Some(&|p| {
                let (x, k) = (p[0], p[1]);
                vec![k * (x * k).cos() * x + (x * k).sin(), x * x * (x * k).cos()]
            }),
        },
        &[vec![0.3, -0.7], vec![-1.2, 0.4], vec![0.9, 1.1]],
    );
}

// ------------------------------------------------------------------ &[T], &Vec<T>, Vec<T>, arrays

#[differentiable(order = 2)]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        let u = T::one() - x[i];
        s = s + T::from(100.0).unwrap() * t * t + u * u;
    }
    s
}

fn rosenbrock_by_hand(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let t = x[i + 1] - x[i] * x[i];
        g[i] += -400.0 * t * x[i] - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * t;
    }
    g
}

#[differentiable(order = 2)]
fn sum_cubes_ref_vec(x: &Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i] * x[i] * (i as f64 + 1.0);
    }
    s.sin()
}

#[differentiable(order = 2)]
fn log_sum_exp_vec(x: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i].exp();
    }
    s.ln()
}

#[differentiable(order = 2)]
fn arr(x: [f64; 3]) -> f64 {
    x[0] * x[1] * x[2] + x[0].sin() * x[2]
}

#[differentiable(order = 2)]
fn ref_arr(x: &[f64; 3]) -> f64 {
    (x[0] * x[0] + x[1] * x[2]).sqrt()
}

#[test]
fn slice_parameters() {
    let _: fn(&[f64]) -> (f64, Vec<f64>) = rosenbrock_grad::<f64>;
    let _: fn(&[f64], f64) -> (f64, Vec<f64>) = rosenbrock_vjp::<f64>;
    let _: fn(&[f64], Vec<f64>) -> (f64, f64) = rosenbrock_jvp::<f64>;
    let _: fn(&[f64], &mut [f64]) -> f64 = rosenbrock_grad_into::<f64>;
    let _: fn(&[f64], Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = rosenbrock_hvp::<f64>;
    let _: fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) = rosenbrock_hessian::<f64>;
    audit(
        &Items {
            what: "rosenbrock(x: &[T])",
            primal: &|x| rosenbrock(x),
            grad: &|x| rosenbrock_grad(x),
            vjp: &|x, d| rosenbrock_vjp(x, d),
            jvp: &|x, t| rosenbrock_jvp(x, t.to_vec()),
            grad_into: &|x| {
                let mut g = vec![GARBAGE; x.len()];
                (rosenbrock_grad_into(x, &mut g), g)
            },
            hvp: Some(&|x, t| rosenbrock_hvp(x, t.to_vec())),
            hessian: Some(&|x| rosenbrock_hessian(x)),
            analytic: Some(&rosenbrock_by_hand),
        },
        &[
            vec![0.3, -0.7, 1.2],
            vec![-1.2, 0.4, 0.8, 1.5],
            vec![1.0, 1.0],
        ],
    );
}

#[test]
fn ref_vec_parameters() {
    let _: fn(&Vec<f64>) -> (f64, Vec<f64>) = sum_cubes_ref_vec_grad;
    let _: fn(&Vec<f64>, f64) -> (f64, Vec<f64>) = sum_cubes_ref_vec_vjp;
    let _: fn(&Vec<f64>, Vec<f64>) -> (f64, f64) = sum_cubes_ref_vec_jvp;
    let _: fn(&Vec<f64>, &mut [f64]) -> f64 = sum_cubes_ref_vec_grad_into;
    let _: fn(&Vec<f64>, Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = sum_cubes_ref_vec_hvp;
    let _: fn(&Vec<f64>) -> (f64, Vec<f64>, Vec<Vec<f64>>) = sum_cubes_ref_vec_hessian;
    audit(
        &Items {
            what: "sum_cubes_ref_vec(x: &Vec<f64>)",
            primal: &|x| sum_cubes_ref_vec(&x.to_vec()),
            grad: &|x| sum_cubes_ref_vec_grad(&x.to_vec()),
            vjp: &|x, d| sum_cubes_ref_vec_vjp(&x.to_vec(), d),
            jvp: &|x, t| sum_cubes_ref_vec_jvp(&x.to_vec(), t.to_vec()),
            grad_into: &|x| {
                let mut g = vec![GARBAGE; x.len()];
                (sum_cubes_ref_vec_grad_into(&x.to_vec(), &mut g), g)
            },
            hvp: Some(&|x, t| sum_cubes_ref_vec_hvp(&x.to_vec(), t.to_vec())),
            hessian: Some(&|x| sum_cubes_ref_vec_hessian(&x.to_vec())),
            analytic: Some(&|x| {
                let s: f64 = x
                    .iter()
                    .enumerate()
                    .map(|(i, v)| v * v * v * (i as f64 + 1.0))
                    .sum();
                x.iter()
                    .enumerate()
                    .map(|(i, v)| s.cos() * 3.0 * v * v * (i as f64 + 1.0))
                    .collect()
            }),
        },
        &[vec![0.3, -0.7, 0.5], vec![-0.6, 0.4], vec![0.2]],
    );
}

#[test]
fn vec_by_value_parameters() {
    let _: fn(Vec<f64>) -> (f64, Vec<f64>) = log_sum_exp_vec_grad;
    let _: fn(Vec<f64>, f64) -> (f64, Vec<f64>) = log_sum_exp_vec_vjp;
    let _: fn(Vec<f64>, Vec<f64>) -> (f64, f64) = log_sum_exp_vec_jvp;
    let _: fn(Vec<f64>, &mut [f64]) -> f64 = log_sum_exp_vec_grad_into;
    let _: fn(Vec<f64>, Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = log_sum_exp_vec_hvp;
    let _: fn(Vec<f64>) -> (f64, Vec<f64>, Vec<Vec<f64>>) = log_sum_exp_vec_hessian;
    audit(
        &Items {
            what: "log_sum_exp_vec(x: Vec<f64>)",
            primal: &|x| log_sum_exp_vec(x.to_vec()),
            grad: &|x| log_sum_exp_vec_grad(x.to_vec()),
            vjp: &|x, d| log_sum_exp_vec_vjp(x.to_vec(), d),
            jvp: &|x, t| log_sum_exp_vec_jvp(x.to_vec(), t.to_vec()),
            grad_into: &|x| {
                let mut g = vec![GARBAGE; x.len()];
                (log_sum_exp_vec_grad_into(x.to_vec(), &mut g), g)
            },
            hvp: Some(&|x, t| log_sum_exp_vec_hvp(x.to_vec(), t.to_vec())),
            hessian: Some(&|x| log_sum_exp_vec_hessian(x.to_vec())),
            analytic: Some(&|x| {
                let s: f64 = x.iter().map(|v| v.exp()).sum();
                x.iter().map(|v| v.exp() / s).collect()
            }),
        },
        &[
            vec![0.3, -0.7, 0.5],
            vec![-0.6, 0.4],
            vec![2.0, 1.0, -3.0, 0.0],
        ],
    );
}

#[test]
fn array_parameters() {
    let _: fn([f64; 3]) -> (f64, [f64; 3]) = arr_grad;
    let _: fn([f64; 3], f64) -> (f64, [f64; 3]) = arr_vjp;
    let _: fn([f64; 3], [f64; 3]) -> (f64, f64) = arr_jvp;
    let _: fn([f64; 3], &mut [f64; 3]) -> f64 = arr_grad_into;
    let _: fn([f64; 3], [f64; 3]) -> (f64, [f64; 3], [f64; 3]) = arr_hvp;
    let _: fn([f64; 3]) -> (f64, [f64; 3], Vec<Vec<f64>>) = arr_hessian;
    let a3 = |x: &[f64]| -> [f64; 3] { x.try_into().unwrap() };
    audit(
        &Items {
            what: "arr(x: [f64; 3])",
            primal: &|x| arr(a3(x)),
            grad: &|x| {
                let (v, g) = arr_grad(a3(x));
                (v, g.to_vec())
            },
            vjp: &|x, d| {
                let (v, g) = arr_vjp(a3(x), d);
                (v, g.to_vec())
            },
            jvp: &|x, t| arr_jvp(a3(x), a3(t)),
            grad_into: &|x| {
                let mut g = [GARBAGE; 3];
                (arr_grad_into(a3(x), &mut g), g.to_vec())
            },
            hvp: Some(&|x, t| {
                let (v, g, hv) = arr_hvp(a3(x), a3(t));
                (v, g.to_vec(), hv.to_vec())
            }),
            hessian: Some(&|x| {
                let (v, g, h) = arr_hessian(a3(x));
                (v, g.to_vec(), h)
            }),
            analytic: Some(&|x| {
                vec![
                    x[1] * x[2] + x[0].cos() * x[2],
                    x[0] * x[2],
                    x[0] * x[1] + x[0].sin(),
                ]
            }),
        },
        &[vec![0.3, -0.7, 0.5], vec![-0.6, 0.4, 1.3]],
    );

    let _: fn(&[f64; 3]) -> (f64, [f64; 3]) = ref_arr_grad;
    let _: fn(&[f64; 3], f64) -> (f64, [f64; 3]) = ref_arr_vjp;
    let _: fn(&[f64; 3], [f64; 3]) -> (f64, f64) = ref_arr_jvp;
    let _: fn(&[f64; 3], &mut [f64; 3]) -> f64 = ref_arr_grad_into;
    let _: fn(&[f64; 3], [f64; 3]) -> (f64, [f64; 3], [f64; 3]) = ref_arr_hvp;
    let _: fn(&[f64; 3]) -> (f64, [f64; 3], Vec<Vec<f64>>) = ref_arr_hessian;
    audit(
        &Items {
            what: "ref_arr(x: &[f64; 3])",
            primal: &|x| ref_arr(&a3(x)),
            grad: &|x| {
                let (v, g) = ref_arr_grad(&a3(x));
                (v, g.to_vec())
            },
            vjp: &|x, d| {
                let (v, g) = ref_arr_vjp(&a3(x), d);
                (v, g.to_vec())
            },
            jvp: &|x, t| ref_arr_jvp(&a3(x), a3(t)),
            grad_into: &|x| {
                let mut g = [GARBAGE; 3];
                (ref_arr_grad_into(&a3(x), &mut g), g.to_vec())
            },
            hvp: Some(&|x, t| {
                let (v, g, hv) = ref_arr_hvp(&a3(x), a3(t));
                (v, g.to_vec(), hv.to_vec())
            }),
            hessian: Some(&|x| {
                let (v, g, h) = ref_arr_hessian(&a3(x));
                (v, g.to_vec(), h)
            }),
            analytic: Some(&|x| {
                let r = (x[0] * x[0] + x[1] * x[2]).sqrt();
                vec![x[0] / r, x[2] / (2.0 * r), x[1] / (2.0 * r)]
            }),
        },
        &[vec![0.3, 0.7, 0.5], vec![-0.6, 0.4, 1.3]],
    );
}

// ------------------------------------------------------------------------------------------ matrices

#[differentiable(order = 2)]
fn mat_slice(m: &[Vec<f64>], v: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        let mut r = 0.0;
        for j in 0..v.len() {
            r += m[i][j] * v[j];
        }
        s += r.tanh();
    }
    s
}

#[differentiable(order = 2)]
fn mat_vec_vec(m: Vec<Vec<f64>>) -> f64 {
    let mut s = 0.0;
    for i in 0..m.len() {
        for j in 0..m[i].len() {
            s += m[i][j] * m[i][j] * (i as f64 + 1.0) + m[i][j].sin() * m[0][0];
        }
    }
    s
}

#[differentiable(order = 2)]
fn mat_nested(m: [[f64; 3]; 2]) -> f64 {
    let mut s = 0.0;
    for j in 0..3 {
        s += m[0][j] * m[1][j];
    }
    s * s + m[1][2].exp()
}

fn mat_slice_by_hand(m: &[Vec<f64>], v: &[f64]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut gm = vec![vec![0.0; v.len()]; m.len()];
    let mut gv = vec![0.0; v.len()];
    for i in 0..m.len() {
        let r: f64 = (0..v.len()).map(|j| m[i][j] * v[j]).sum();
        let d = 1.0 - r.tanh().powi(2);
        for j in 0..v.len() {
            gm[i][j] = d * v[j];
            gv[j] += d * m[i][j];
        }
    }
    (gm, gv)
}

#[test]
fn matrix_slice_parameters() {
    let _: fn(&[Vec<f64>], &[f64]) -> (f64, (Vec<Vec<f64>>, Vec<f64>)) = mat_slice_grad;
    let _: fn(&[Vec<f64>], &[f64], f64) -> (f64, (Vec<Vec<f64>>, Vec<f64>)) = mat_slice_vjp;
    let _: fn(&[Vec<f64>], &[f64], (Vec<Vec<f64>>, Vec<f64>)) -> (f64, f64) = mat_slice_jvp;
    let _: fn(&[Vec<f64>], &[f64], (&mut [Vec<f64>], &mut [f64])) -> f64 = mat_slice_grad_into;
    let _: fn(
        &[Vec<f64>],
        &[f64],
        (Vec<Vec<f64>>, Vec<f64>),
    ) -> (f64, (Vec<Vec<f64>>, Vec<f64>), (Vec<Vec<f64>>, Vec<f64>)) = mat_slice_hvp;
    let _: fn(&[Vec<f64>], &[f64]) -> (f64, (Vec<Vec<f64>>, Vec<f64>), Vec<Vec<f64>>) =
        mat_slice_hessian;
    // A 2 x 3 matrix and a vector of 3, flattened as m[0][0], m[0][1], ..., m[1][2], v[0], v[1], v[2].
    let split = |x: &[f64]| (rows(&x[..6], 3), x[6..].to_vec());
    let join = |(gm, gv): (Vec<Vec<f64>>, Vec<f64>)| {
        let mut flat = flatten(&gm);
        flat.extend(gv);
        flat
    };
    audit(
        &Items {
            what: "mat_slice(m: &[Vec<f64>], v: &[f64])",
            primal: &|x| {
                let (m, v) = split(x);
                mat_slice(&m, &v)
            },
            grad: &|x| {
                let (m, v) = split(x);
                let (value, g) = mat_slice_grad(&m, &v);
                (value, join(g))
            },
            vjp: &|x, d| {
                let (m, v) = split(x);
                let (value, g) = mat_slice_vjp(&m, &v, d);
                (value, join(g))
            },
            jvp: &|x, t| {
                let (m, v) = split(x);
                mat_slice_jvp(&m, &v, split(t))
            },
            grad_into: &|x| {
                let (m, v) = split(x);
                let mut gm = vec![vec![GARBAGE; 3]; 2];
                let mut gv = vec![GARBAGE; 3];
                let value = mat_slice_grad_into(&m, &v, (&mut gm, &mut gv));
                (value, join((gm, gv)))
            },
            hvp: Some(&|x, t| {
                let (m, v) = split(x);
                let (value, g, hv) = mat_slice_hvp(&m, &v, split(t));
                (value, join(g), join(hv))
            }),
            hessian: Some(&|x| {
                let (m, v) = split(x);
                let (value, g, h) = mat_slice_hessian(&m, &v);
                (value, join(g), h)
            }),
            analytic: Some(&|x| {
                let (m, v) = split(x);
                join(mat_slice_by_hand(&m, &v))
            }),
        },
        &[
            vec![0.3, -0.7, 0.5, 0.1, 0.9, -0.4, 0.6, -0.2, 1.1],
            vec![-1.0, 0.4, 0.2, 0.8, -0.3, 0.5, 0.3, 0.7, -0.6],
        ],
    );
}

#[test]
fn matrix_vec_vec_parameters() {
    let _: fn(Vec<Vec<f64>>) -> (f64, Vec<Vec<f64>>) = mat_vec_vec_grad;
    let _: fn(Vec<Vec<f64>>, f64) -> (f64, Vec<Vec<f64>>) = mat_vec_vec_vjp;
    let _: fn(Vec<Vec<f64>>, Vec<Vec<f64>>) -> (f64, f64) = mat_vec_vec_jvp;
    let _: fn(Vec<Vec<f64>>, &mut [Vec<f64>]) -> f64 = mat_vec_vec_grad_into;
    let _: fn(Vec<Vec<f64>>, Vec<Vec<f64>>) -> (f64, Vec<Vec<f64>>, Vec<Vec<f64>>) =
        mat_vec_vec_hvp;
    let _: fn(Vec<Vec<f64>>) -> (f64, Vec<Vec<f64>>, Vec<Vec<f64>>) = mat_vec_vec_hessian;
    audit(
        &Items {
            what: "mat_vec_vec(m: Vec<Vec<f64>>)",
            primal: &|x| mat_vec_vec(rows(x, 2)),
            grad: &|x| {
                let (v, g) = mat_vec_vec_grad(rows(x, 2));
                (v, flatten(&g))
            },
            vjp: &|x, d| {
                let (v, g) = mat_vec_vec_vjp(rows(x, 2), d);
                (v, flatten(&g))
            },
            jvp: &|x, t| mat_vec_vec_jvp(rows(x, 2), rows(t, 2)),
            grad_into: &|x| {
                let mut g = vec![vec![GARBAGE; 2]; x.len() / 2];
                let v = mat_vec_vec_grad_into(rows(x, 2), &mut g);
                (v, flatten(&g))
            },
            hvp: Some(&|x, t| {
                let (v, g, hv) = mat_vec_vec_hvp(rows(x, 2), rows(t, 2));
                (v, flatten(&g), flatten(&hv))
            }),
            hessian: Some(&|x| {
                let (v, g, h) = mat_vec_vec_hessian(rows(x, 2));
                (v, flatten(&g), h)
            }),
            analytic: Some(&|x| {
                let m = rows(x, 2);
                let mut g = vec![0.0; x.len()];
                let mut sin_sum = 0.0;
                for i in 0..m.len() {
                    for j in 0..2 {
                        g[2 * i + j] = 2.0 * m[i][j] * (i as f64 + 1.0) + m[i][j].cos() * m[0][0];
                        sin_sum += m[i][j].sin();
                    }
                }
                g[0] += sin_sum;
                g
            }),
        },
        &[
            vec![0.3, -0.7, 0.5, 0.1],
            vec![-1.0, 0.4, 0.2, 0.8, -0.3, 0.5],
        ],
    );
}

#[test]
fn nested_array_parameters() {
    let _: fn([[f64; 3]; 2]) -> (f64, [[f64; 3]; 2]) = mat_nested_grad;
    let _: fn([[f64; 3]; 2], f64) -> (f64, [[f64; 3]; 2]) = mat_nested_vjp;
    let _: fn([[f64; 3]; 2], [[f64; 3]; 2]) -> (f64, f64) = mat_nested_jvp;
    let _: fn([[f64; 3]; 2], &mut [[f64; 3]; 2]) -> f64 = mat_nested_grad_into;
    let _: fn([[f64; 3]; 2], [[f64; 3]; 2]) -> (f64, [[f64; 3]; 2], [[f64; 3]; 2]) = mat_nested_hvp;
    let _: fn([[f64; 3]; 2]) -> (f64, [[f64; 3]; 2], Vec<Vec<f64>>) = mat_nested_hessian;
    let n = |x: &[f64]| nested::<3, 2>(x);
    audit(
        &Items {
            what: "mat_nested(m: [[f64; 3]; 2])",
            primal: &|x| mat_nested(n(x)),
            grad: &|x| {
                let (v, g) = mat_nested_grad(n(x));
                (v, flatten(&g))
            },
            vjp: &|x, d| {
                let (v, g) = mat_nested_vjp(n(x), d);
                (v, flatten(&g))
            },
            jvp: &|x, t| mat_nested_jvp(n(x), n(t)),
            grad_into: &|x| {
                let mut g = [[GARBAGE; 3]; 2];
                let v = mat_nested_grad_into(n(x), &mut g);
                (v, flatten(&g))
            },
            hvp: Some(&|x, t| {
                let (v, g, hv) = mat_nested_hvp(n(x), n(t));
                (v, flatten(&g), flatten(&hv))
            }),
            hessian: Some(&|x| {
                let (v, g, h) = mat_nested_hessian(n(x));
                (v, flatten(&g), h)
            }),
            analytic: Some(&|x| {
                let s: f64 = (0..3).map(|j| x[j] * x[3 + j]).sum();
                let mut g: Vec<f64> = (0..6).map(|k| 2.0 * s * x[(k + 3) % 6]).collect();
                g[5] += x[5].exp();
                g
            }),
        },
        &[
            vec![0.3, -0.7, 0.5, 0.1, 0.9, -0.4],
            vec![-1.0, 0.4, 0.2, 0.8, -0.3, 0.5],
        ],
    );
}

// ---------------------------------------------------------------------------- tuples and structs

#[differentiable(order = 2)]
fn tuple_param(p: (f64, f64), z: f64) -> f64 {
    let (a, b) = p;
    (a * b).sin() + z * a * a
}

#[test]
fn tuple_parameters() {
    let _: fn((f64, f64), f64) -> (f64, ((f64, f64), f64)) = tuple_param_grad;
    let _: fn((f64, f64), f64, f64) -> (f64, ((f64, f64), f64)) = tuple_param_vjp;
    let _: fn((f64, f64), f64, ((f64, f64), f64)) -> (f64, f64) = tuple_param_jvp;
    // One buffer per active parameter: the tuple parameter's is `&mut (f64, f64)`.
    let _: fn((f64, f64), f64, (&mut (f64, f64), &mut f64)) -> f64 = tuple_param_grad_into;
    let _: fn((f64, f64), f64, ((f64, f64), f64)) -> (f64, ((f64, f64), f64), ((f64, f64), f64)) =
        tuple_param_hvp;
    let _: fn((f64, f64), f64) -> (f64, ((f64, f64), f64), Vec<Vec<f64>>) = tuple_param_hessian;
    let flat = |((a, b), z): ((f64, f64), f64)| vec![a, b, z];
    audit(
        &Items {
            what: "tuple_param(p: (f64, f64), z: f64)",
            primal: &|x| tuple_param((x[0], x[1]), x[2]),
            grad: &|x| {
                let (v, g) = tuple_param_grad((x[0], x[1]), x[2]);
                (v, flat(g))
            },
            vjp: &|x, d| {
                let (v, g) = tuple_param_vjp((x[0], x[1]), x[2], d);
                (v, flat(g))
            },
            jvp: &|x, t| tuple_param_jvp((x[0], x[1]), x[2], ((t[0], t[1]), t[2])),
            grad_into: &|x| {
                let (mut ab, mut z) = ((GARBAGE, GARBAGE), GARBAGE);
                let v = tuple_param_grad_into((x[0], x[1]), x[2], (&mut ab, &mut z));
                (v, vec![ab.0, ab.1, z])
            },
            hvp: Some(&|x, t| {
                let (v, g, hv) = tuple_param_hvp((x[0], x[1]), x[2], ((t[0], t[1]), t[2]));
                (v, flat(g), flat(hv))
            }),
            hessian: Some(&|x| {
                let (v, g, h) = tuple_param_hessian((x[0], x[1]), x[2]);
                (v, flat(g), h)
            }),
            analytic: Some(&|x| {
                let (a, b, z) = (x[0], x[1], x[2]);
                vec![b * (a * b).cos() + 2.0 * z * a, a * (a * b).cos(), a * a]
            }),
        },
        &[vec![0.3, -0.7, 0.5], vec![-1.0, 0.4, 1.2]],
    );
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Params {
    a: f64,
    w: Vec<f64>,
    c: [f64; 2],
    #[no_grad]
    n: usize,
}

#[differentiable(order = 2)]
fn struct_param(p: &Params, x: f64) -> f64 {
    let mut s = p.a * x;
    for i in 0..p.n {
        s += (p.w[i] * x).sin() * p.c[i % 2];
    }
    s * s
}

fn params_of(flat: &[f64]) -> Params {
    Params {
        a: flat[0],
        w: flat[1..4].to_vec(),
        c: [flat[4], flat[5]],
        n: 3,
    }
}

#[test]
fn struct_parameters() {
    let _: fn(&Params, f64) -> (f64, (Params, f64)) = struct_param_grad;
    let _: fn(&Params, f64, f64) -> (f64, (Params, f64)) = struct_param_vjp;
    let _: fn(&Params, f64, (Params, f64)) -> (f64, f64) = struct_param_jvp;
    let _: fn(&Params, f64, (&mut Params, &mut f64)) -> f64 = struct_param_grad_into;
    let _: fn(&Params, f64, (Params, f64)) -> (f64, (Params, f64), (Params, f64)) =
        struct_param_hvp;
    let _: fn(&Params, f64) -> (f64, (Params, f64), Vec<Vec<f64>>) = struct_param_hessian;
    // Flat: a, w[0..3], c[0..2], x.
    let join = |(gp, gx): (Params, f64)| {
        assert_eq!(gp.n, 3, "the gradient copies the #[no_grad] field");
        let mut flat = gp.to_flat();
        flat.push(gx);
        flat
    };
    audit(
        &Items {
            what: "struct_param(p: &Params, x: f64)",
            primal: &|x| struct_param(&params_of(x), x[6]),
            grad: &|x| {
                let (v, g) = struct_param_grad(&params_of(x), x[6]);
                (v, join(g))
            },
            vjp: &|x, d| {
                let (v, g) = struct_param_vjp(&params_of(x), x[6], d);
                (v, join(g))
            },
            jvp: &|x, t| struct_param_jvp(&params_of(x), x[6], (params_of(t), t[6])),
            grad_into: &|x| {
                let mut gp = params_of(&[GARBAGE; 7]);
                let mut gx = GARBAGE;
                let v = struct_param_grad_into(&params_of(x), x[6], (&mut gp, &mut gx));
                (v, join((gp, gx)))
            },
            hvp: Some(&|x, t| {
                let (v, g, hv) = struct_param_hvp(&params_of(x), x[6], (params_of(t), t[6]));
                (v, join(g), join(hv))
            }),
            hessian: Some(&|x| {
                let (v, g, h) = struct_param_hessian(&params_of(x), x[6]);
                (v, join(g), h)
            }),
            analytic: Some(&|x| {
                let p = params_of(x);
                let t = x[6];
                let s = p.a * t + (0..3).map(|i| (p.w[i] * t).sin() * p.c[i % 2]).sum::<f64>();
                let mut g = vec![2.0 * s * t];
                for i in 0..3 {
                    g.push(2.0 * s * (p.w[i] * t).cos() * t * p.c[i % 2]);
                }
                g.push(2.0 * s * ((p.w[0] * t).sin() + (p.w[2] * t).sin()));
                g.push(2.0 * s * (p.w[1] * t).sin());
                g.push(
                    2.0 * s
                        * (p.a
                            + (0..3)
                                .map(|i| (p.w[i] * t).cos() * p.w[i] * p.c[i % 2])
                                .sum::<f64>()),
                );
                g
            }),
        },
        &[
            vec![0.3, -0.7, 0.5, 0.1, 0.9, -0.4, 0.8],
            vec![-1.0, 0.4, 0.2, 0.8, -0.3, 0.5, -1.1],
        ],
    );
}
