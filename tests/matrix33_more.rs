//! matrix33, second file (see `tests/matrix33.rs` for the plan): parameter structs, `&mut` outputs,
//! integers and `bool` passed through, `wrt(..)` subsets, and where a function lives (methods with
//! `&self`, `self` and `wrt(self)`, associated functions, a generic `impl`, nested modules) with calls at
//! `order = 2`/`3` to `f64` functions, a `#[custom_gradient]` and a `#[gradient_of(libm::erf)]`.

#![allow(
    clippy::needless_range_loop,
    clippy::type_complexity,
    clippy::ptr_arg,
    clippy::too_many_arguments
)]

mod common;
#[path = "matrix33/harness.rs"]
mod harness;

use autodiff::{custom_gradient, differentiable, gradient_of, Differentiable, Dual, Float};
use harness::*;

// ---------------------------------------------------------------------------------------------------
// A struct deriving `Differentiable`, by `&` (beside a scalar) and by value, at `order = 2`, and a vector
// result with its Jacobian (columns: `to_flat` of the struct, then the other inputs).

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Params {
    a: f64,
    w: Vec<f64>,
    c: [f64; 2],
    #[no_grad]
    n: usize,
}

fn params(x: &[f64]) -> Params {
    Params {
        a: x[0],
        w: x[1..4].to_vec(),
        c: [x[4], x[5]],
        n: 3,
    }
}

/// `a * sum_i w_i^2 + sin(c_0) c_1 + a x^2`, flat `(a, w0, w1, w2, c0, c1, x)`.
fn struct_exact(v: &[f64]) -> Flat {
    let (a, w, c0, c1, x) = (v[0], &v[1..4], v[4], v[5], v[6]);
    let sq: f64 = w.iter().map(|u| u * u).sum();
    vec![
        sq + x * x,
        2.0 * a * w[0],
        2.0 * a * w[1],
        2.0 * a * w[2],
        c0.cos() * c1,
        c0.sin(),
        2.0 * a * x,
    ]
}

#[differentiable(order = 2)]
fn s_struct(p: &Params, x: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..p.n {
        s += p.w[i] * p.w[i];
    }
    p.a * s + p.c[0].sin() * p.c[1] + p.a * x * x
}

#[differentiable(order = 2)]
fn s_struct_val(p: Params) -> f64 {
    let mut s = 0.0;
    for i in 0..p.n {
        s += p.w[i] * p.w[i];
    }
    p.a * s + p.c[0].sin() * p.c[1]
}

#[differentiable]
fn v_struct(p: &Params, x: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..x.len() {
        out[i] = p.a * x[i] + p.w[i % 3] * p.c[0] + (p.c[1] * x[i]).sin();
    }
    out
}

#[test]
fn struct_cells() {
    let _: fn(&Params, f64) -> (f64, (Params, f64)) = s_struct_grad;
    let _: fn(&Params, f64, f64) -> (f64, (Params, f64)) = s_struct_vjp;
    let _: fn(&Params, f64, (Params, f64)) -> (f64, f64) = s_struct_jvp;
    let _: fn(&Params, f64, (&mut Params, &mut f64)) -> f64 = s_struct_grad_into;
    let _: fn(&Params, f64, (Params, f64)) -> (f64, (Params, f64), (Params, f64)) = s_struct_hvp;
    let _: fn(&Params, f64) -> (f64, (Params, f64), Vec<Vec<f64>>) = s_struct_hessian;
    let _: fn(Params) -> (f64, Params) = s_struct_val_grad;
    let _: fn(Params, &mut Params) -> f64 = s_struct_val_grad_into;
    let _: fn(Params, Params) -> (f64, Params, Params) = s_struct_val_hvp;
    let cat = |g: (Params, f64)| {
        let mut v = g.0.to_flat();
        v.push(g.1);
        v
    };
    let nan = || params(&[GARBAGE; 6]);
    scalar(Scalar {
        name: "s_struct",
        n: 7,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_struct(&params(x), x[6]),
        grad: &|x| {
            let (v, g) = s_struct_grad(&params(x), x[6]);
            assert_eq!(g.0.n, 3, "the #[no_grad] field is copied");
            (v, cat(g))
        },
        vjp: &|x, d| {
            let (v, g) = s_struct_vjp(&params(x), x[6], d);
            (v, cat(g))
        },
        jvp: &|x, t| s_struct_jvp(&params(x), x[6], (params(t), t[6])),
        into: &|x| {
            let (mut a, mut b) = (nan(), GARBAGE);
            let v = s_struct_grad_into(&params(x), x[6], (&mut a, &mut b));
            (v, cat((a, b)))
        },
        exact: Some(&struct_exact),
    });
    second(Second {
        name: "s_struct",
        n: 7,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_struct_grad(&params(x), x[6]);
            (v, cat(g))
        },
        hessian: &|x| {
            let (v, g, h) = s_struct_hessian(&params(x), x[6]);
            (v, cat(g), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_struct_hvp(&params(x), x[6], (params(d), d[6]));
            (v, cat(g), cat(p))
        },
        exact: None,
    });
    let val_exact = |x: &[f64]| {
        let mut e = struct_exact(&[x, &[0.0]].concat());
        e.pop();
        e
    };
    scalar(Scalar {
        name: "s_struct_val",
        n: 6,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_struct_val(params(x)),
        grad: &|x| {
            let (v, g) = s_struct_val_grad(params(x));
            (v, g.to_flat())
        },
        vjp: &|x, d| {
            let (v, g) = s_struct_val_vjp(params(x), d);
            (v, g.to_flat())
        },
        jvp: &|x, t| s_struct_val_jvp(params(x), params(t)),
        into: &|x| {
            let mut g = nan();
            let v = s_struct_val_grad_into(params(x), &mut g);
            (v, g.to_flat())
        },
        exact: Some(&val_exact),
    });
    second(Second {
        name: "s_struct_val",
        n: 6,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_struct_val_grad(params(x));
            (v, g.to_flat())
        },
        hessian: &|x| {
            let (v, g, h) = s_struct_val_hessian(params(x));
            (v, g.to_flat(), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s_struct_val_hvp(params(x), params(d));
            (v, g.to_flat(), p.to_flat())
        },
        exact: None,
    });
    let _: fn(&Params, &[f64], Vec<f64>) -> (Vec<f64>, (Params, Vec<f64>)) = v_struct_vjp;
    let _: fn(&Params, &[f64], (Params, Vec<f64>)) -> (Vec<f64>, Vec<f64>) = v_struct_jvp;
    let _: fn(&Params, &[f64]) -> Vec<Vec<f64>> = v_struct_jacobian;
    vector(
        "v_struct",
        10,
        -1.5,
        1.5,
        &|x| v_struct(&params(x), &x[6..]),
        &|x, c| {
            let (r, (gp, gx)) = v_struct_vjp(&params(x), &x[6..], c.to_vec());
            let mut g = gp.to_flat();
            g.extend(gx);
            (r, g)
        },
        &|x, t| v_struct_jvp(&params(x), &x[6..], (params(t), t[6..].to_vec())),
        Some(&|x| v_struct_jacobian(&params(x), &x[6..])),
    );
}

// ---------------------------------------------------------------------------------------------------
// `&mut` outputs: a slice, a `Vec`, an array and a float, each alone with `()` (and its Jacobian); two
// outputs beside a float result at `order = 2`; an output whose incoming value is read (in `G`).

#[differentiable]
fn o_slice(x: &[f64], out: &mut [f64]) {
    for i in 0..out.len() {
        out[i] = x[i] * x[(i + 1) % x.len()] + x[i].sin();
    }
}

#[differentiable]
fn o_vec(x: f64, y: f64, out: &mut Vec<f64>) {
    out[0] = x * y;
    out[1] = x.exp() - y;
    out[2] = (x * y).cos();
}

#[differentiable]
fn o_arr(x: &[f64; 2], out: &mut [f64; 3]) {
    *out = [x[0] * x[1], x[0] / (1.0 + x[1] * x[1]), x[1].tanh()];
}

#[differentiable]
fn o_float(x: &[f64], e: &mut f64) {
    *e = 0.0;
    for i in 0..x.len() {
        *e += x[i] * x[i] * (i + 1) as f64;
    }
}

#[test]
fn output_cells_alone() {
    let _: fn(&[f64], &mut [f64], &[f64]) -> Vec<f64> = o_slice_vjp;
    let _: fn(&[f64], &mut [f64], Vec<f64>, &mut [f64]) = o_slice_jvp;
    let _: fn(&[f64], &mut [f64]) -> Vec<Vec<f64>> = o_slice_jacobian;
    let run = |x: &[f64]| {
        let mut out = vec![GARBAGE; 3];
        o_slice(x, &mut out);
        out
    };
    vector(
        "o_slice",
        3,
        -1.5,
        1.5,
        &run,
        &|x, c| {
            let mut out = vec![GARBAGE; 3];
            let g = o_slice_vjp(x, &mut out, c);
            (out, g)
        },
        &|x, t| {
            let mut out = vec![GARBAGE; 3];
            let mut d = vec![GARBAGE; 3];
            o_slice_jvp(x, &mut out, t.to_vec(), &mut d);
            (out, d)
        },
        Some(&|x| {
            let mut out = vec![GARBAGE; 3];
            let j = o_slice_jacobian(x, &mut out);
            assert_eq!(out, run(x), "_jacobian leaves the output as one call would");
            j
        }),
    );
    let _: fn(f64, f64, &mut Vec<f64>, &[f64]) -> (f64, f64) = o_vec_vjp;
    let _: fn(f64, f64, &mut Vec<f64>, (f64, f64), &mut [f64]) = o_vec_jvp;
    let _: fn(f64, f64, &mut Vec<f64>) -> Vec<Vec<f64>> = o_vec_jacobian;
    vector(
        "o_vec",
        2,
        -1.5,
        1.5,
        &|x| {
            let mut out = vec![GARBAGE; 3];
            o_vec(x[0], x[1], &mut out);
            out
        },
        &|x, c| {
            let mut out = vec![GARBAGE; 3];
            let g = o_vec_vjp(x[0], x[1], &mut out, c);
            (out, vec![g.0, g.1])
        },
        &|x, t| {
            let mut out = vec![GARBAGE; 3];
            let mut d = vec![GARBAGE; 3];
            o_vec_jvp(x[0], x[1], &mut out, (t[0], t[1]), &mut d);
            (out, d)
        },
        Some(&|x| o_vec_jacobian(x[0], x[1], &mut vec![GARBAGE; 3])),
    );
    let _: fn(&[f64; 2], &mut [f64; 3], &[f64; 3]) -> [f64; 2] = o_arr_vjp;
    let _: fn(&[f64; 2], &mut [f64; 3], [f64; 2], &mut [f64; 3]) = o_arr_jvp;
    let _: fn(&[f64; 2], &mut [f64; 3]) -> Vec<Vec<f64>> = o_arr_jacobian;
    vector(
        "o_arr",
        2,
        -1.5,
        1.5,
        &|x| {
            let mut out = [GARBAGE; 3];
            o_arr(&arr(x), &mut out);
            out.to_vec()
        },
        &|x, c| {
            let mut out = [GARBAGE; 3];
            let g = o_arr_vjp(&arr(x), &mut out, &arr(c));
            (out.to_vec(), g.to_vec())
        },
        &|x, t| {
            let mut out = [GARBAGE; 3];
            let mut d = [GARBAGE; 3];
            o_arr_jvp(&arr(x), &mut out, arr(t), &mut d);
            (out.to_vec(), d.to_vec())
        },
        Some(&|x| o_arr_jacobian(&arr(x), &mut [GARBAGE; 3])),
    );
    let _: fn(&[f64], &mut f64, f64) -> Vec<f64> = o_float_vjp;
    // (The tangent buffer of a float output is `impl FloatTangentBuffer<f64>`: a fn pointer through a closure.)
    let _: fn(&[f64], &mut f64, Vec<f64>, &mut f64) = |x, o, t, d| o_float_jvp(x, o, t, d);
    let _: fn(&[f64], &mut f64) -> Vec<Vec<f64>> = o_float_jacobian;
    vector(
        "o_float",
        3,
        -1.5,
        1.5,
        &|x| {
            let mut e = GARBAGE;
            o_float(x, &mut e);
            vec![e]
        },
        &|x, c| {
            let mut e = GARBAGE;
            let g = o_float_vjp(x, &mut e, c[0]);
            (vec![e], g)
        },
        &|x, t| {
            let mut e = GARBAGE;
            let mut d = GARBAGE;
            o_float_jvp(x, &mut e, t.to_vec(), &mut d);
            (vec![e], vec![d])
        },
        Some(&|x| o_float_jacobian(x, &mut f64::NAN.clone())),
    );
    let j = o_float_jacobian(&[1.0, -2.0, 0.5], &mut 0.0);
    assert_eq!(j, vec![vec![2.0, -8.0, 3.0]], "o_float's Jacobian by hand");
}

/// Two outputs beside a float result: the result is the gradient's function (outputs' cotangents zero).
#[differentiable(order = 2)]
fn o_ret(x: &[f64], e: &mut f64, r: &mut [f64]) -> f64 {
    *e = x[0] * x[1];
    for i in 0..r.len() {
        r[i] = x[i].exp() * *e;
    }
    (x[0] - x[1]).powi(2) * x[2] + *e
}

/// The incoming value of `acc` is read (`+=`): it is an input too.
#[differentiable(order = 2)]
fn o_read(x: f64, acc: &mut [f64]) -> f64 {
    for i in 0..acc.len() {
        acc[i] += x * acc[i] * acc[i];
    }
    let mut s = 0.0;
    for i in 0..acc.len() {
        s += acc[i] * x;
    }
    s
}

#[test]
fn output_cells_beside_a_float_result() {
    let _: fn(&[f64], &mut f64, &mut [f64]) -> (f64, Vec<f64>) = o_ret_grad;
    let _: fn(&[f64], &mut f64, &mut [f64], f64, f64, &[f64]) -> (f64, Vec<f64>) = o_ret_vjp;
    let _: fn(&[f64], &mut f64, &mut [f64], Vec<f64>, &mut f64, &mut [f64]) -> (f64, f64) =
        |x, o, c, t, d, dc| o_ret_jvp(x, o, c, t, d, dc);
    let _: fn(&[f64], &mut f64, &mut [f64], &mut [f64]) -> f64 = o_ret_grad_into;
    let _: fn(&[f64], &mut f64, &mut [f64], Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = o_ret_hvp;
    let _: fn(&[f64], &mut f64, &mut [f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) = o_ret_hessian;
    let primal = |x: &[f64]| {
        let (mut e, mut r) = (GARBAGE, vec![GARBAGE; 2]);
        let v = o_ret(x, &mut e, &mut r);
        (v, e, r)
    };
    let exact = |x: &[f64]| {
        let d = x[0] - x[1];
        vec![2.0 * d * x[2] + x[1], -2.0 * d * x[2] + x[0], d * d]
    };
    // `_grad`, `_grad_into`, `_hessian`, `_hvp` write the outputs as one call would.
    let written = |e: f64, r: &[f64], x: &[f64], what: &str| {
        let (_, pe, pr) = primal(x);
        assert_eq!((e, r.to_vec()), (pe, pr), "{what} writes the outputs");
    };
    scalar(Scalar {
        name: "o_ret",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &|x| primal(x).0,
        grad: &|x| {
            let (mut e, mut r) = (GARBAGE, vec![GARBAGE; 2]);
            let out = o_ret_grad(x, &mut e, &mut r);
            written(e, &r, x, "o_ret_grad");
            out
        },
        vjp: &|x, d| {
            // The outputs' cotangents zero: the gradient of the returned float.
            let (mut e, mut r) = (GARBAGE, vec![GARBAGE; 2]);
            o_ret_vjp(x, &mut e, &mut r, d, 0.0, &[0.0, 0.0])
        },
        jvp: &|x, t| {
            let (mut e, mut r) = (GARBAGE, vec![GARBAGE; 2]);
            let (mut de, mut dr) = (GARBAGE, vec![GARBAGE; 2]);
            o_ret_jvp(x, &mut e, &mut r, t.to_vec(), &mut de, &mut dr)
        },
        into: &|x| {
            let (mut e, mut r) = (GARBAGE, vec![GARBAGE; 2]);
            let mut g = vec![GARBAGE; 3];
            let v = o_ret_grad_into(x, &mut e, &mut r, &mut g);
            written(e, &r, x, "o_ret_grad_into");
            (v, g)
        },
        exact: Some(&exact),
    });
    second(Second {
        name: "o_ret",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| o_ret_grad(x, &mut f64::NAN.clone(), &mut [GARBAGE; 2]),
        hessian: &|x| {
            let (mut e, mut r) = (GARBAGE, vec![GARBAGE; 2]);
            let out = o_ret_hessian(x, &mut e, &mut r);
            written(e, &r, x, "o_ret_hessian");
            out
        },
        hvp: &|x, d| {
            let (mut e, mut r) = (GARBAGE, vec![GARBAGE; 2]);
            let out = o_ret_hvp(x, &mut e, &mut r, d.to_vec());
            written(e, &r, x, "o_ret_hvp");
            out
        },
        exact: None,
    });
    // The full vector (returned float, e, r) through _vjp and _jvp against differences.
    vector(
        "o_ret as a vector",
        3,
        -1.5,
        1.5,
        &|x| {
            let (v, e, r) = primal(x);
            vec![v, e, r[0], r[1]]
        },
        &|x, c| {
            let (mut e, mut r) = (GARBAGE, vec![GARBAGE; 2]);
            let (v, g) = o_ret_vjp(x, &mut e, &mut r, c[0], c[1], &c[2..]);
            (vec![v, e, r[0], r[1]], g)
        },
        &|x, t| {
            let (mut e, mut r) = (GARBAGE, vec![GARBAGE; 2]);
            let (mut de, mut dr) = (GARBAGE, vec![GARBAGE; 2]);
            let (v, dv) = o_ret_jvp(x, &mut e, &mut r, t.to_vec(), &mut de, &mut dr);
            (vec![v, e, r[0], r[1]], vec![dv, de, dr[0], dr[1]])
        },
        None,
    );

    let _: fn(f64, &mut [f64]) -> (f64, (f64, Vec<f64>)) = o_read_grad;
    let _: fn(f64, &mut [f64], f64, &[f64]) -> (f64, (f64, Vec<f64>)) = o_read_vjp;
    let _: fn(f64, &mut [f64], (f64, Vec<f64>), &mut [f64]) -> (f64, f64) = o_read_jvp;
    let _: fn(f64, &mut [f64], (&mut f64, &mut [f64])) -> f64 = o_read_grad_into;
    let _: fn(f64, &mut [f64], (f64, Vec<f64>)) -> (f64, (f64, Vec<f64>), (f64, Vec<f64>)) =
        o_read_hvp;
    let cat = |g: (f64, Vec<f64>)| [vec![g.0], g.1].concat();
    // s = x sum_i (a_i + x a_i^2).
    let exact = |v: &[f64]| {
        let x = v[0];
        let a = &v[1..];
        let mut g = vec![a.iter().map(|ai| ai + 2.0 * x * ai * ai).sum::<f64>()];
        g.extend(a.iter().map(|ai| x * (1.0 + 2.0 * x * ai)));
        g
    };
    scalar(Scalar {
        name: "o_read",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &|v| o_read(v[0], &mut v[1..].to_vec()),
        grad: &|v| {
            let (r, g) = o_read_grad(v[0], &mut v[1..].to_vec());
            (r, cat(g))
        },
        vjp: &|v, d| {
            let (r, g) = o_read_vjp(v[0], &mut v[1..].to_vec(), d, &[0.0, 0.0]);
            (r, cat(g))
        },
        jvp: &|v, t| {
            let mut d = vec![GARBAGE; 2];
            o_read_jvp(v[0], &mut v[1..].to_vec(), (t[0], t[1..].to_vec()), &mut d)
        },
        into: &|v| {
            let (mut a, mut b) = (GARBAGE, vec![GARBAGE; 2]);
            let r = o_read_grad_into(v[0], &mut v[1..].to_vec(), (&mut a, &mut b));
            (r, cat((a, b)))
        },
        exact: Some(&exact),
    });
    second(Second {
        name: "o_read",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        grad: &|v| {
            let (r, g) = o_read_grad(v[0], &mut v[1..].to_vec());
            (r, cat(g))
        },
        hessian: &|v| {
            let (r, g, h) = o_read_hessian(v[0], &mut v[1..].to_vec());
            (r, cat(g), h)
        },
        hvp: &|v, d| {
            let (r, g, p) = o_read_hvp(v[0], &mut v[1..].to_vec(), (d[0], d[1..].to_vec()));
            (r, cat(g), cat(p))
        },
        exact: None,
    });
    // With the outputs' cotangents: the incoming value's gradient through the written buffer.
    vector(
        "o_read as a vector",
        3,
        -1.5,
        1.5,
        &|v| {
            let mut acc = v[1..].to_vec();
            let r = o_read(v[0], &mut acc);
            [vec![r], acc].concat()
        },
        &|v, c| {
            let mut acc = v[1..].to_vec();
            let (r, g) = o_read_vjp(v[0], &mut acc, c[0], &c[1..]);
            ([vec![r], acc].concat(), cat(g))
        },
        &|v, t| {
            let mut acc = v[1..].to_vec();
            let mut d = vec![GARBAGE; 2];
            let (r, dr) = o_read_jvp(v[0], &mut acc, (t[0], t[1..].to_vec()), &mut d);
            ([vec![r], acc].concat(), [vec![dr], d].concat())
        },
        None,
    );
}

// ---------------------------------------------------------------------------------------------------
// Integers and `bool` passed through; `wrt(..)` subsets (a float, a slice and a struct left constant).

#[differentiable(order = 2)]
fn s_int(x: &[f64], n: usize, k: i32, flip: bool) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x[i].powi(k) * (i as f64 + 1.0);
    }
    if flip {
        -s * x[0]
    } else {
        s * x[0]
    }
}

#[differentiable]
fn v_int(x: f64, n: usize, neg: bool) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..n {
        let v = x.powi(i as i32 + 1);
        out.push(if neg { -v } else { v });
    }
    out
}

#[differentiable(wrt(w, b), order = 2)]
fn s_wrt(w: &[f64], a: f64, data: &[f64], b: f64, p: &Params) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += (w[i] * data[i] + b).tanh() * a * p.a;
    }
    s + b * b * p.c[0]
}

#[differentiable(wrt(x))]
fn v_wrt(a: f64, x: &[f64], data: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for i in 0..x.len() {
        out[i] = a * x[i] * data[i] + x[(i + 1) % x.len()].sin();
    }
    out
}

#[differentiable(wrt(p), order = 2)]
fn s_wrt_struct(p: &Params, data: &[f64], scale: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..data.len() {
        s += (p.a * data[i] - p.w[i % 3]).powi(2) * scale;
    }
    s + p.c[0] * p.c[1]
}

#[test]
fn passed_through_and_wrt_cells() {
    let _: fn(&[f64], usize, i32, bool) -> (f64, Vec<f64>) = s_int_grad;
    let _: fn(&[f64], usize, i32, bool, f64) -> (f64, Vec<f64>) = s_int_vjp;
    let _: fn(&[f64], usize, i32, bool, Vec<f64>) -> (f64, f64) = s_int_jvp;
    let _: fn(&[f64], usize, i32, bool, &mut [f64]) -> f64 = s_int_grad_into;
    let _: fn(&[f64], usize, i32, bool, Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = s_int_hvp;
    let _: fn(&[f64], usize, i32, bool) -> (f64, Vec<f64>, Vec<Vec<f64>>) = s_int_hessian;
    for (n, k, flip) in [(3usize, 2i32, false), (2, 3, true), (3, 1, true)] {
        let name = format!("s_int {n} {k} {flip}");
        let sign = if flip { -1.0 } else { 1.0 };
        let exact = |x: &[f64]| {
            let s: f64 = (0..n).map(|i| x[i].powi(k) * (i as f64 + 1.0)).sum();
            let mut g: Flat = (0..x.len())
                .map(|i| {
                    if i < n {
                        sign * x[0] * k as f64 * x[i].powi(k - 1) * (i as f64 + 1.0)
                    } else {
                        0.0
                    }
                })
                .collect();
            g[0] += sign * s;
            g
        };
        scalar(Scalar {
            name: &name,
            n: 3,
            lo: -1.5,
            hi: 1.5,
            f: &|x| s_int(x, n, k, flip),
            grad: &|x| s_int_grad(x, n, k, flip),
            vjp: &|x, d| s_int_vjp(x, n, k, flip, d),
            jvp: &|x, t| s_int_jvp(x, n, k, flip, t.to_vec()),
            into: &|x| {
                let mut g = vec![GARBAGE; 3];
                let v = s_int_grad_into(x, n, k, flip, &mut g);
                (v, g)
            },
            exact: Some(&exact),
        });
        second(Second {
            name: &name,
            n: 3,
            lo: -1.5,
            hi: 1.5,
            grad: &|x| s_int_grad(x, n, k, flip),
            hessian: &|x| s_int_hessian(x, n, k, flip),
            hvp: &|x, d| s_int_hvp(x, n, k, flip, d.to_vec()),
            exact: None,
        });
    }
    let _: fn(f64, usize, bool, Vec<f64>) -> (Vec<f64>, f64) = v_int_vjp;
    let _: fn(f64, usize, bool, f64) -> (Vec<f64>, Vec<f64>) = v_int_jvp;
    let _: fn(f64, usize, bool) -> Vec<Vec<f64>> = v_int_jacobian;
    for (n, neg) in [(3usize, false), (4, true)] {
        vector(
            &format!("v_int {n} {neg}"),
            1,
            -1.5,
            1.5,
            &|x| v_int(x[0], n, neg),
            &|x, c| {
                let (r, g) = v_int_vjp(x[0], n, neg, c.to_vec());
                (r, vec![g])
            },
            &|x, t| v_int_jvp(x[0], n, neg, t[0]),
            Some(&|x| v_int_jacobian(x[0], n, neg)),
        );
    }

    let _: fn(&[f64], f64, &[f64], f64, &Params) -> (f64, (Vec<f64>, f64)) = s_wrt_grad;
    let _: fn(&[f64], f64, &[f64], f64, &Params, (&mut [f64], &mut f64)) -> f64 = s_wrt_grad_into;
    let _: fn(&[f64], f64, &[f64], f64, &Params, (Vec<f64>, f64)) -> (f64, f64) = s_wrt_jvp;
    let _: fn(&[f64], f64, &[f64], f64, &Params) -> (f64, (Vec<f64>, f64), Vec<Vec<f64>>) =
        s_wrt_hessian;
    let data = [0.5, -1.25, 2.0];
    let p = params(&[1.5, 0.1, 0.2, 0.3, -0.7, 0.4]);
    let a = 0.8;
    let cat = |g: (Vec<f64>, f64)| [g.0, vec![g.1]].concat();
    let exact = |x: &[f64]| {
        let (w, b) = (&x[..3], x[3]);
        let mut g = vec![0.0; 4];
        for i in 0..3 {
            let t = (w[i] * data[i] + b).tanh();
            let d = (1.0 - t * t) * a * p.a;
            g[i] = d * data[i];
            g[3] += d;
        }
        g[3] += 2.0 * b * p.c[0];
        g
    };
    scalar(Scalar {
        name: "s_wrt",
        n: 4,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_wrt(&x[..3], a, &data, x[3], &p),
        grad: &|x| {
            let (v, g) = s_wrt_grad(&x[..3], a, &data, x[3], &p);
            (v, cat(g))
        },
        vjp: &|x, d| {
            let (v, g) = s_wrt_vjp(&x[..3], a, &data, x[3], &p, d);
            (v, cat(g))
        },
        jvp: &|x, t| s_wrt_jvp(&x[..3], a, &data, x[3], &p, (t[..3].to_vec(), t[3])),
        into: &|x| {
            let (mut gw, mut gb) = (vec![GARBAGE; 3], GARBAGE);
            let v = s_wrt_grad_into(&x[..3], a, &data, x[3], &p, (&mut gw, &mut gb));
            (v, cat((gw, gb)))
        },
        exact: Some(&exact),
    });
    second(Second {
        name: "s_wrt",
        n: 4,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_wrt_grad(&x[..3], a, &data, x[3], &p);
            (v, cat(g))
        },
        hessian: &|x| {
            let (v, g, h) = s_wrt_hessian(&x[..3], a, &data, x[3], &p);
            (v, cat(g), h)
        },
        hvp: &|x, d| {
            let (v, g, q) = s_wrt_hvp(&x[..3], a, &data, x[3], &p, (d[..3].to_vec(), d[3]));
            (v, cat(g), cat(q))
        },
        exact: None,
    });
    let _: fn(f64, &[f64], &[f64], Vec<f64>) -> (Vec<f64>, Vec<f64>) = v_wrt_vjp;
    let _: fn(f64, &[f64], &[f64], Vec<f64>) -> (Vec<f64>, Vec<f64>) = v_wrt_jvp;
    let _: fn(f64, &[f64], &[f64]) -> Vec<Vec<f64>> = v_wrt_jacobian;
    vector(
        "v_wrt",
        3,
        -1.5,
        1.5,
        &|x| v_wrt(a, x, &data),
        &|x, c| v_wrt_vjp(a, x, &data, c.to_vec()),
        &|x, t| v_wrt_jvp(a, x, &data, t.to_vec()),
        Some(&|x| v_wrt_jacobian(a, x, &data)),
    );
    let _: fn(&Params, &[f64], f64) -> (f64, Params) = s_wrt_struct_grad;
    let _: fn(&Params, &[f64], f64, &mut Params) -> f64 = s_wrt_struct_grad_into;
    let _: fn(&Params, &[f64], f64, Params) -> (f64, Params, Params) = s_wrt_struct_hvp;
    let nan = || params(&[GARBAGE; 6]);
    scalar(Scalar {
        name: "s_wrt_struct",
        n: 6,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s_wrt_struct(&params(x), &data, a),
        grad: &|x| {
            let (v, g) = s_wrt_struct_grad(&params(x), &data, a);
            (v, g.to_flat())
        },
        vjp: &|x, d| {
            let (v, g) = s_wrt_struct_vjp(&params(x), &data, a, d);
            (v, g.to_flat())
        },
        jvp: &|x, t| s_wrt_struct_jvp(&params(x), &data, a, params(t)),
        into: &|x| {
            let mut g = nan();
            let v = s_wrt_struct_grad_into(&params(x), &data, a, &mut g);
            (v, g.to_flat())
        },
        exact: None,
    });
    second(Second {
        name: "s_wrt_struct",
        n: 6,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = s_wrt_struct_grad(&params(x), &data, a);
            (v, g.to_flat())
        },
        hessian: &|x| {
            let (v, g, h) = s_wrt_struct_hessian(&params(x), &data, a);
            (v, g.to_flat(), h)
        },
        hvp: &|x, d| {
            let (v, g, q) = s_wrt_struct_hvp(&params(x), &data, a, params(d));
            (v, g.to_flat(), q.to_flat())
        },
        exact: None,
    });
}

// ---------------------------------------------------------------------------------------------------
// Where the function lives: methods (`&self` constant, `wrt(self)`, `wrt(self, x)`, `self` by value,
// an associated function `Self::soft`, a method calling others at `order = 2`, a vector result and an
// output parameter with their Jacobians).

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct Spring {
    k: f64,
    rest: f64,
    #[no_grad]
    dim: usize,
}

impl Spring {
    #[differentiable(order = 2)]
    fn energy(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..self.dim {
            let d = x[i] - self.rest;
            s += 0.5 * self.k * d * d * x[(i + 1) % self.dim];
        }
        s + Self::soft(x[0])
    }

    #[differentiable(order = 3)]
    fn soft(x: f64) -> f64 {
        (1.0 + x * x).ln()
    }

    #[differentiable(wrt(self), order = 2)]
    fn fit(&self, x: f64) -> f64 {
        (self.k * x - self.rest).powi(2) + self.k.sin()
    }

    #[differentiable(wrt(self, x), order = 2)]
    fn both(&self, x: f64) -> f64 {
        self.k * x.exp() + self.rest * self.rest * x
    }

    #[differentiable]
    fn by_value(self, x: f64) -> f64 {
        self.k * x * x + self.rest.cos() * x
    }

    #[differentiable(wrt(self), order = 2)]
    fn by_value_wrt(self, x: f64) -> f64 {
        self.k * x * x + self.rest.cos() * self.k
    }

    #[differentiable(order = 2)]
    fn chained(&self, x: f64) -> f64 {
        self.fit(x) * Self::soft(x) + self.both(x)
    }

    #[differentiable]
    fn forces(&self, x: &[f64]) -> Vec<f64> {
        let mut f = vec![0.0; x.len()];
        for i in 0..x.len() {
            f[i] = -self.k * (x[i] - self.rest) * x[(i + 1) % x.len()].cos();
        }
        f
    }

    #[differentiable(wrt(self))]
    fn moments(&self, x: f64) -> [f64; 2] {
        [self.k * x, self.k * self.rest.exp()]
    }

    #[differentiable]
    fn force_into(&self, x: &[f64], out: &mut [f64]) {
        for i in 0..x.len() {
            out[i] = -self.k * (x[i] - self.rest).sinh();
        }
    }
}

fn spring(x: &[f64]) -> Spring {
    Spring {
        k: x[0],
        rest: x[1],
        dim: 3,
    }
}

#[test]
fn method_cells() {
    let _: fn(&Spring, &[f64]) -> (f64, Vec<f64>) = Spring::energy_grad;
    let _: fn(&Spring, &[f64], f64) -> (f64, Vec<f64>) = Spring::energy_vjp;
    let _: fn(&Spring, &[f64], Vec<f64>) -> (f64, f64) = Spring::energy_jvp;
    let _: fn(&Spring, &[f64], &mut [f64]) -> f64 = Spring::energy_grad_into;
    let _: fn(&Spring, &[f64], Vec<f64>) -> (f64, Vec<f64>, Vec<f64>) = Spring::energy_hvp;
    let _: fn(&Spring, &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) = Spring::energy_hessian;
    let s = Spring {
        k: 1.3,
        rest: 0.4,
        dim: 3,
    };
    scalar(Scalar {
        name: "Spring::energy",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s.energy(x),
        grad: &|x| s.energy_grad(x),
        vjp: &|x, d| s.energy_vjp(x, d),
        jvp: &|x, t| s.energy_jvp(x, t.to_vec()),
        into: &|x| {
            let mut g = vec![GARBAGE; 3];
            let v = s.energy_grad_into(x, &mut g);
            (v, g)
        },
        exact: None,
    });
    second(Second {
        name: "Spring::energy",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| s.energy_grad(x),
        hessian: &|x| s.energy_hessian(x),
        hvp: &|x, d| s.energy_hvp(x, d.to_vec()),
        exact: None,
    });
    // The associated function: ln(1 + x^2), 2x/(1+x^2), 2(1-x^2)/(1+x^2)^2, 4x(x^2-3)/(1+x^2)^3.
    let _: fn(f64) -> [f64; 4] = Spring::soft_derivatives;
    derivatives(
        "Spring::soft",
        -2.0,
        2.0,
        &|x| Spring::soft(x),
        &|x| Spring::soft_derivatives(x).to_vec(),
        &Spring::soft_grad,
        Some(&|x: f64| {
            let q = 1.0 + x * x;
            vec![
                q.ln(),
                2.0 * x / q,
                2.0 * (1.0 - x * x) / (q * q),
                4.0 * x * (x * x - 3.0) / (q * q * q),
            ]
        }),
    );
    // wrt(self): the gradient is a Spring (`dim` copied), flat (k, rest).
    let _: fn(&Spring, f64) -> (f64, Spring) = Spring::fit_grad;
    let _: fn(&Spring, f64, f64) -> (f64, Spring) = Spring::fit_vjp;
    let _: fn(&Spring, f64, Spring) -> (f64, f64) = Spring::fit_jvp;
    let _: fn(&Spring, f64, &mut Spring) -> f64 = Spring::fit_grad_into;
    let _: fn(&Spring, f64, Spring) -> (f64, Spring, Spring) = Spring::fit_hvp;
    let _: fn(&Spring, f64) -> (f64, Spring, Vec<Vec<f64>>) = Spring::fit_hessian;
    for x in [0.7, -1.2] {
        let name = format!("Spring::fit at x = {x}");
        let exact = |p: &[f64]| {
            let r = p[0] * x - p[1];
            vec![2.0 * r * x + p[0].cos(), -2.0 * r]
        };
        let nan = || spring(&[GARBAGE, GARBAGE]);
        scalar(Scalar {
            name: &name,
            n: 2,
            lo: -1.5,
            hi: 1.5,
            f: &|p| spring(p).fit(x),
            grad: &|p| {
                let (v, g) = spring(p).fit_grad(x);
                assert_eq!(g.dim, 3, "wrt(self): the #[no_grad] field copied");
                (v, g.to_flat())
            },
            vjp: &|p, d| {
                let (v, g) = spring(p).fit_vjp(x, d);
                (v, g.to_flat())
            },
            jvp: &|p, t| spring(p).fit_jvp(x, spring(t)),
            into: &|p| {
                let mut g = nan();
                let v = spring(p).fit_grad_into(x, &mut g);
                (v, g.to_flat())
            },
            exact: Some(&exact),
        });
        second(Second {
            name: &name,
            n: 2,
            lo: -1.5,
            hi: 1.5,
            grad: &|p| {
                let (v, g) = spring(p).fit_grad(x);
                (v, g.to_flat())
            },
            hessian: &|p| {
                let (v, g, h) = spring(p).fit_hessian(x);
                (v, g.to_flat(), h)
            },
            hvp: &|p, d| {
                let (v, g, q) = spring(p).fit_hvp(x, spring(d));
                (v, g.to_flat(), q.to_flat())
            },
            exact: Some(&|p: &[f64]| {
                vec![
                    vec![2.0 * x * x - p[0].sin(), -2.0 * x],
                    vec![-2.0 * x, 2.0],
                ]
            }),
        });
    }
    // wrt(self, x): G = (Spring, f64), flat (k, rest, x).
    let _: fn(&Spring, f64) -> (f64, (Spring, f64)) = Spring::both_grad;
    let _: fn(&Spring, f64, (&mut Spring, &mut f64)) -> f64 = Spring::both_grad_into;
    let _: fn(&Spring, f64, (Spring, f64)) -> (f64, (Spring, f64), (Spring, f64)) =
        Spring::both_hvp;
    let cat = |g: (Spring, f64)| vec![g.0.k, g.0.rest, g.1];
    scalar(Scalar {
        name: "Spring::both",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &|p| spring(p).both(p[2]),
        grad: &|p| {
            let (v, g) = spring(p).both_grad(p[2]);
            (v, cat(g))
        },
        vjp: &|p, d| {
            let (v, g) = spring(p).both_vjp(p[2], d);
            (v, cat(g))
        },
        jvp: &|p, t| spring(p).both_jvp(p[2], (spring(t), t[2])),
        into: &|p| {
            let (mut a, mut b) = (spring(&[GARBAGE, GARBAGE]), GARBAGE);
            let v = spring(p).both_grad_into(p[2], (&mut a, &mut b));
            (v, cat((a, b)))
        },
        exact: Some(&|p: &[f64]| {
            vec![
                p[2].exp(),
                2.0 * p[1] * p[2],
                p[0] * p[2].exp() + p[1] * p[1],
            ]
        }),
    });
    second(Second {
        name: "Spring::both",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        grad: &|p| {
            let (v, g) = spring(p).both_grad(p[2]);
            (v, cat(g))
        },
        hessian: &|p| {
            let (v, g, h) = spring(p).both_hessian(p[2]);
            (v, cat(g), h)
        },
        hvp: &|p, d| {
            let (v, g, q) = spring(p).both_hvp(p[2], (spring(d), d[2]));
            (v, cat(g), cat(q))
        },
        exact: None,
    });
    // `self` by value: constant, and with wrt(self).
    let _: fn(Spring, f64) -> (f64, f64) = Spring::by_value_grad;
    let _: fn(Spring, f64, &mut f64) -> f64 = Spring::by_value_grad_into;
    let _: fn(Spring, f64) -> (f64, Spring) = Spring::by_value_wrt_grad;
    let _: fn(Spring, f64) -> (f64, Spring, Vec<Vec<f64>>) = Spring::by_value_wrt_hessian;
    scalar(Scalar {
        name: "Spring::by_value",
        n: 1,
        lo: -1.5,
        hi: 1.5,
        f: &|x| s.clone().by_value(x[0]),
        grad: &|x| {
            let (v, g) = s.clone().by_value_grad(x[0]);
            (v, vec![g])
        },
        vjp: &|x, d| {
            let (v, g) = s.clone().by_value_vjp(x[0], d);
            (v, vec![g])
        },
        jvp: &|x, t| s.clone().by_value_jvp(x[0], t[0]),
        into: &|x| {
            let mut g = GARBAGE;
            let v = s.clone().by_value_grad_into(x[0], &mut g);
            (v, vec![g])
        },
        exact: Some(&|x: &[f64]| vec![2.0 * s.k * x[0] + s.rest.cos()]),
    });
    let x = 0.9;
    scalar(Scalar {
        name: "Spring::by_value_wrt",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        f: &|p| spring(p).by_value_wrt(x),
        grad: &|p| {
            let (v, g) = spring(p).by_value_wrt_grad(x);
            (v, g.to_flat())
        },
        vjp: &|p, d| {
            let (v, g) = spring(p).by_value_wrt_vjp(x, d);
            (v, g.to_flat())
        },
        jvp: &|p, t| spring(p).by_value_wrt_jvp(x, spring(t)),
        into: &|p| {
            let mut g = spring(&[GARBAGE, GARBAGE]);
            let v = spring(p).by_value_wrt_grad_into(x, &mut g);
            (v, g.to_flat())
        },
        exact: Some(&|p: &[f64]| vec![x * x + p[1].cos(), -p[1].sin() * p[0]]),
    });
    second(Second {
        name: "Spring::by_value_wrt",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        grad: &|p| {
            let (v, g) = spring(p).by_value_wrt_grad(x);
            (v, g.to_flat())
        },
        hessian: &|p| {
            let (v, g, h) = spring(p).by_value_wrt_hessian(x);
            (v, g.to_flat(), h)
        },
        hvp: &|p, d| {
            let (v, g, q) = spring(p).by_value_wrt_hvp(x, spring(d));
            (v, g.to_flat(), q.to_flat())
        },
        exact: None,
    });
    // A method (self constant) calling a wrt(self) method, a wrt(self, x) one and an associated
    // function, at order 2: d/dx only.
    let _: fn(&Spring, f64) -> [f64; 3] = Spring::chained_derivatives;
    derivatives(
        "Spring::chained",
        -1.5,
        1.5,
        &|x| s.chained(x),
        &|x| s.chained_derivatives(x).to_vec(),
        &|x| s.chained_grad(x),
        Some(&|x: f64| {
            let r = s.k * x - s.rest;
            let fit = [r * r + s.k.sin(), 2.0 * r * s.k, 2.0 * s.k * s.k];
            let q = 1.0 + x * x;
            let soft = [q.ln(), 2.0 * x / q, 2.0 * (1.0 - x * x) / (q * q)];
            let e = s.k * x.exp();
            let both = [e + s.rest * s.rest * x, e + s.rest * s.rest, e];
            vec![
                fit[0] * soft[0] + both[0],
                fit[1] * soft[0] + fit[0] * soft[1] + both[1],
                fit[2] * soft[0] + 2.0 * fit[1] * soft[1] + fit[0] * soft[2] + both[2],
            ]
        }),
    );
    // Vector results of methods: the Jacobian in x (self constant), in self (wrt(self)), and of an
    // output parameter.
    let _: fn(&Spring, &[f64]) -> Vec<Vec<f64>> = Spring::forces_jacobian;
    let _: fn(&Spring, &[f64], Vec<f64>) -> (Vec<f64>, Vec<f64>) = Spring::forces_vjp;
    vector(
        "Spring::forces",
        3,
        -1.5,
        1.5,
        &|x| s.forces(x),
        &|x, c| s.forces_vjp(x, c.to_vec()),
        &|x, t| s.forces_jvp(x, t.to_vec()),
        Some(&|x| s.forces_jacobian(x)),
    );
    let _: fn(&Spring, f64) -> Vec<Vec<f64>> = Spring::moments_jacobian;
    let _: fn(&Spring, f64, [f64; 2]) -> ([f64; 2], Spring) = Spring::moments_vjp;
    let _: fn(&Spring, f64, Spring) -> ([f64; 2], [f64; 2]) = Spring::moments_jvp;
    vector(
        "Spring::moments",
        2,
        -1.5,
        1.5,
        &|p| spring(p).moments(0.6).to_vec(),
        &|p, c| {
            let (r, g) = spring(p).moments_vjp(0.6, arr(c));
            (r.to_vec(), g.to_flat())
        },
        &|p, t| {
            let (r, d) = spring(p).moments_jvp(0.6, spring(t));
            (r.to_vec(), d.to_vec())
        },
        Some(&|p| spring(p).moments_jacobian(0.6)),
    );
    let _: fn(&Spring, &[f64], &mut [f64]) -> Vec<Vec<f64>> = Spring::force_into_jacobian;
    let _: fn(&Spring, &[f64], &mut [f64], &[f64]) -> Vec<f64> = Spring::force_into_vjp;
    let _: fn(&Spring, &[f64], &mut [f64], Vec<f64>, &mut [f64]) = Spring::force_into_jvp;
    vector(
        "Spring::force_into",
        3,
        -1.5,
        1.5,
        &|x| {
            let mut out = vec![GARBAGE; 3];
            s.force_into(x, &mut out);
            out
        },
        &|x, c| {
            let mut out = vec![GARBAGE; 3];
            let g = s.force_into_vjp(x, &mut out, c);
            (out, g)
        },
        &|x, t| {
            let mut out = vec![GARBAGE; 3];
            let mut d = vec![GARBAGE; 3];
            s.force_into_jvp(x, &mut out, t.to_vec(), &mut d);
            (out, d)
        },
        Some(&|x| s.force_into_jacobian(x, &mut [GARBAGE; 3])),
    );
}

// A generic `impl` over a generic struct, instantiated with f64, f32 and Dual<f64>.

#[derive(Clone, Debug, Differentiable)]
struct Gs<T> {
    a: T,
    b: T,
}

impl<T: Float> Gs<T> {
    #[differentiable]
    fn eval(&self, x: T) -> T {
        self.a * x.sin() + self.b * x * x
    }

    #[differentiable(wrt(self))]
    fn fit(&self, x: T) -> T {
        (self.a * x + self.b).powi(2)
    }

    #[differentiable(order = 3)]
    fn scale(x: T) -> T {
        x.exp() * x
    }

    #[differentiable]
    fn pair(&self, x: &[T]) -> Vec<T> {
        vec![self.a * x[0] * x[1], self.b * x[1].exp()]
    }
}

#[test]
fn generic_impl_cells() {
    let _: fn(&Gs<f64>, f64) -> (f64, f64) = Gs::<f64>::eval_grad;
    let _: fn(&Gs<f64>, f64, &mut f64) -> f64 = Gs::<f64>::eval_grad_into;
    let _: fn(&Gs<f64>, f64) -> (f64, Gs<f64>) = Gs::<f64>::fit_grad;
    let _: fn(&Gs<f64>, f64, &mut Gs<f64>) -> f64 = Gs::<f64>::fit_grad_into;
    let _: fn(f64) -> [f64; 4] = Gs::<f64>::scale_derivatives;
    let _: fn(&Gs<f64>, &[f64]) -> Vec<Vec<f64>> = Gs::<f64>::pair_jacobian;
    let g = Gs { a: 0.8, b: -1.1 };
    scalar(Scalar {
        name: "Gs::eval",
        n: 1,
        lo: -1.5,
        hi: 1.5,
        f: &|x| g.eval(x[0]),
        grad: &|x| {
            let (v, d) = g.eval_grad(x[0]);
            (v, vec![d])
        },
        vjp: &|x, c| {
            let (v, d) = g.eval_vjp(x[0], c);
            (v, vec![d])
        },
        jvp: &|x, t| g.eval_jvp(x[0], t[0]),
        into: &|x| {
            let mut d = GARBAGE;
            let v = g.eval_grad_into(x[0], &mut d);
            (v, vec![d])
        },
        exact: Some(&|x: &[f64]| vec![g.a * x[0].cos() + 2.0 * g.b * x[0]]),
    });
    let gs = |p: &[f64]| Gs { a: p[0], b: p[1] };
    scalar(Scalar {
        name: "Gs::fit",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        f: &|p| gs(p).fit(0.7),
        grad: &|p| {
            let (v, d) = gs(p).fit_grad(0.7);
            (v, d.to_flat())
        },
        vjp: &|p, c| {
            let (v, d) = gs(p).fit_vjp(0.7, c);
            (v, d.to_flat())
        },
        jvp: &|p, t| gs(p).fit_jvp(0.7, gs(t)),
        into: &|p| {
            let mut d = gs(&[GARBAGE, GARBAGE]);
            let v = gs(p).fit_grad_into(0.7, &mut d);
            (v, d.to_flat())
        },
        exact: Some(&|p: &[f64]| {
            let r = p[0] * 0.7 + p[1];
            vec![2.0 * r * 0.7, 2.0 * r]
        }),
    });
    derivatives(
        "Gs::scale",
        -1.5,
        1.5,
        &|x| Gs::<f64>::scale(x),
        &|x| Gs::<f64>::scale_derivatives(x).to_vec(),
        &Gs::<f64>::scale_grad,
        Some(&|x: f64| {
            let e = x.exp();
            vec![x * e, (x + 1.0) * e, (x + 2.0) * e, (x + 3.0) * e]
        }),
    );
    vector(
        "Gs::pair",
        2,
        -1.5,
        1.5,
        &|x| g.pair(x),
        &|x, c| g.pair_vjp(x, c.to_vec()),
        &|x, t| g.pair_jvp(x, t.to_vec()),
        Some(&|x| g.pair_jacobian(x)),
    );
    // f32 and Dual<f64>.
    let g32 = Gs {
        a: 0.8f32,
        b: -1.1f32,
    };
    let (_, d32) = g32.eval_grad(0.5);
    let (_, d64) = g.eval_grad(0.5);
    assert_near(d32 as f64, d64, 1e-5, 1.0, "Gs::<f32>::eval_grad");
    let (_, f32g) = g32.fit_grad(0.7);
    let (_, f64g) = g.fit_grad(0.7);
    assert_near(f32g.a as f64, f64g.a, 1e-5, 1.0, "Gs::<f32>::fit_grad a");
    assert_near(f32g.b as f64, f64g.b, 1e-5, 1.0, "Gs::<f32>::fit_grad b");
    let s32 = Gs::<f32>::scale_derivatives(0.3);
    let s64 = Gs::<f64>::scale_derivatives(0.3);
    for k in 0..4 {
        assert_near(
            s32[k] as f64,
            s64[k],
            1e-5,
            1.0,
            "Gs::<f32>::scale_derivatives",
        );
    }
    let gd = Gs {
        a: Dual::new(0.8, 1.0),
        b: Dual::new(-1.1, 0.0),
    };
    // d/da of eval's x-derivative: cos x.
    let (v, d) = gd.eval_grad(Dual::new(0.5, 0.0));
    assert_near(v.re, g.eval(0.5), 1e-14, 1.0, "Gs::<Dual>::eval value");
    assert_near(d.re, d64, 1e-14, 1.0, "Gs::<Dual>::eval_grad");
    assert_near(
        d.eps,
        0.5f64.cos(),
        1e-14,
        1.0,
        "Gs::<Dual>::eval_grad's tangent",
    );
    // fit's gradient in self along (1, 0): the Hessian column [2 x^2, 2 x].
    let (_, fd) = gd.fit_grad(Dual::new(0.7, 0.0));
    assert_near(
        fd.a.eps,
        2.0 * 0.49,
        1e-14,
        1.0,
        "Gs::<Dual>::fit_grad a tangent",
    );
    assert_near(
        fd.b.eps,
        2.0 * 0.7,
        1e-14,
        1.0,
        "Gs::<Dual>::fit_grad b tangent",
    );
    let jd = gd.pair_jacobian(&[Dual::new(0.3, 0.0), Dual::new(-0.4, 0.0)]);
    let j = g.pair_jacobian(&[0.3, -0.4]);
    for i in 0..2 {
        for c in 0..2 {
            assert_near(
                jd[i][c].re,
                j[i][c],
                1e-14,
                1.0,
                "Gs::<Dual>::pair_jacobian",
            );
        }
    }
    // d/da of J = [[x1, x0], [0, 0]] along a.
    assert_near(
        jd[0][0].eps,
        -0.4,
        1e-14,
        1.0,
        "Gs::<Dual>::pair_jacobian tangent",
    );
    assert_near(
        jd[0][1].eps,
        0.3,
        1e-14,
        1.0,
        "Gs::<Dual>::pair_jacobian tangent",
    );
}

// ---------------------------------------------------------------------------------------------------
// Nested modules calling across modules, and calls at `order = 2`/`3` to first-order `f64` functions, a
// `#[custom_gradient]` and a registered `#[gradient_of(libm::erf)]`, by the imported name and the path.

#[differentiable]
fn lift(a: f64, b: f64) -> f64 {
    a * b.exp()
}

mod geo {
    pub mod basic {
        use autodiff::differentiable;

        #[differentiable]
        pub fn sq(x: f64) -> f64 {
            x * x
        }

        #[differentiable]
        pub fn dist2(a: &[f64], b: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..a.len() {
                let d = a[i] - b[i];
                s += d * d;
            }
            s
        }
    }

    use autodiff::differentiable;

    #[differentiable(order = 2)]
    pub fn energy(x: &[f64]) -> f64 {
        basic::sq(x[0]) * x[1] + super::lift(x[1], x[2]) + basic::dist2(&x[..2], &x[1..])
    }

    pub mod deep {
        use autodiff::differentiable;

        #[differentiable(order = 3)]
        pub fn wave(x: f64, n: usize) -> f64 {
            super::basic::sq(x.sin()) * n as f64 + crate::lift(x, x)
        }
    }
}

#[custom_gradient]
fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = x.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

use libm::erf;

#[gradient_of(libm::erf)]
fn erf_vjp(x: f64, dy: f64) -> f64 {
    dy * 2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp()
}

#[differentiable(order = 2)]
fn calls2(x: f64, w: &[f64]) -> f64 {
    log1pexp(x * w[0]) + erf(w[1] - x) + libm::erf(0.5 * x) * lift(w[0], x) + geo::basic::sq(w[1])
}

#[differentiable(order = 3)]
fn calls3(x: f64, degree: usize) -> f64 {
    log1pexp(x) * erf(x) + lift(x, 0.5) * degree as f64 + geo::deep::wave(x, degree)
}

#[differentiable]
fn calls_vec(x: &[f64]) -> Vec<f64> {
    vec![log1pexp(x[0] * x[1]), erf(x[1]) * geo::basic::sq(x[0])]
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn erf_d(x: f64) -> f64 {
    2.0 / std::f64::consts::PI.sqrt() * (-x * x).exp()
}

#[test]
fn module_and_call_cells() {
    let _: fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) = geo::energy_hessian;
    let _: fn(&[f64], &mut [f64]) -> f64 = geo::energy_grad_into;
    let exact = |x: &[f64]| {
        let e = x[2].exp();
        vec![
            2.0 * x[0] * x[1] + 2.0 * (x[0] - x[1]),
            x[0] * x[0] + e - 2.0 * (x[0] - x[1]) + 2.0 * (x[1] - x[2]),
            x[1] * e - 2.0 * (x[1] - x[2]),
        ]
    };
    scalar(Scalar {
        name: "geo::energy",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &geo::energy,
        grad: &geo::energy_grad,
        vjp: &geo::energy_vjp,
        jvp: &|x, t| geo::energy_jvp(x, t.to_vec()),
        into: &|x| {
            let mut g = vec![GARBAGE; 3];
            let v = geo::energy_grad_into(x, &mut g);
            (v, g)
        },
        exact: Some(&exact),
    });
    second(Second {
        name: "geo::energy",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        grad: &geo::energy_grad,
        hessian: &geo::energy_hessian,
        hvp: &|x, d| geo::energy_hvp(x, d.to_vec()),
        exact: Some(&|x: &[f64]| {
            let e = x[2].exp();
            vec![
                vec![2.0 * x[1] + 2.0, 2.0 * x[0] - 2.0, 0.0],
                vec![2.0 * x[0] - 2.0, 4.0, e - 2.0],
                vec![0.0, e - 2.0, x[1] * e + 2.0],
            ]
        }),
    });
    for n in [0usize, 2] {
        // n sin^2 x + x e^x.
        let exact = move |x: f64| {
            let (s, c) = x.sin_cos();
            let nf = n as f64;
            let e = x.exp();
            vec![
                nf * s * s + x * e,
                nf * 2.0 * s * c + (x + 1.0) * e,
                nf * 2.0 * (c * c - s * s) + (x + 2.0) * e,
                nf * -8.0 * s * c + (x + 3.0) * e,
            ]
        };
        derivatives(
            &format!("geo::deep::wave n {n}"),
            -1.5,
            1.5,
            &|x| geo::deep::wave(x, n),
            &|x| geo::deep::wave_derivatives(x, n).to_vec(),
            &|x| geo::deep::wave_grad(x, n),
            Some(&exact),
        );
    }
    // The custom gradient's own items.
    let _: fn(f64) -> (f64, f64) = log1pexp_grad;
    let _: fn(f64, f64) -> (f64, f64) = log1pexp_vjp;
    let _: fn(f64, f64) -> (f64, f64) = log1pexp_jvp;
    for x in [-2.0, 0.3, 1.7] {
        let (v, g) = log1pexp_grad(x);
        assert_near(v, (1.0 + x.exp()).ln(), 1e-14, 1.0, "log1pexp value");
        assert_near(g, sigmoid(x), 1e-14, 1.0, "log1pexp_grad");
        assert_near(
            log1pexp_vjp(x, -0.5).1,
            -0.5 * sigmoid(x),
            1e-14,
            1.0,
            "log1pexp_vjp",
        );
        assert_near(
            log1pexp_jvp(x, 2.0).1,
            2.0 * sigmoid(x),
            1e-14,
            1.0,
            "log1pexp_jvp",
        );
    }
    // order 2 through all three kinds of callee.
    let _: fn(f64, &[f64]) -> (f64, (f64, Vec<f64>)) = calls2_grad;
    let _: fn(f64, &[f64], (&mut f64, &mut [f64])) -> f64 = calls2_grad_into;
    let _: fn(f64, &[f64], (f64, Vec<f64>)) -> (f64, (f64, Vec<f64>), (f64, Vec<f64>)) = calls2_hvp;
    let _: fn(f64, &[f64]) -> (f64, (f64, Vec<f64>), Vec<Vec<f64>>) = calls2_hessian;
    let cat = |g: (f64, Vec<f64>)| [vec![g.0], g.1].concat();
    let exact = |v: &[f64]| {
        let (x, w0, w1) = (v[0], v[1], v[2]);
        let s = sigmoid(x * w0);
        let l = w0 * x.exp();
        let e = libm::erf(0.5 * x);
        vec![
            s * w0 - erf_d(w1 - x) + 0.5 * erf_d(0.5 * x) * l + e * l,
            s * x + e * x.exp(),
            erf_d(w1 - x) + 2.0 * w1,
        ]
    };
    scalar(Scalar {
        name: "calls2",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &|v| calls2(v[0], &v[1..]),
        grad: &|v| {
            let (r, g) = calls2_grad(v[0], &v[1..]);
            (r, cat(g))
        },
        vjp: &|v, d| {
            let (r, g) = calls2_vjp(v[0], &v[1..], d);
            (r, cat(g))
        },
        jvp: &|v, t| calls2_jvp(v[0], &v[1..], (t[0], t[1..].to_vec())),
        into: &|v| {
            let (mut a, mut b) = (GARBAGE, vec![GARBAGE; 2]);
            let r = calls2_grad_into(v[0], &v[1..], (&mut a, &mut b));
            (r, cat((a, b)))
        },
        exact: Some(&exact),
    });
    second(Second {
        name: "calls2",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        grad: &|v| {
            let (r, g) = calls2_grad(v[0], &v[1..]);
            (r, cat(g))
        },
        hessian: &|v| {
            let (r, g, h) = calls2_hessian(v[0], &v[1..]);
            (r, cat(g), h)
        },
        hvp: &|v, d| {
            let (r, g, p) = calls2_hvp(v[0], &v[1..], (d[0], d[1..].to_vec()));
            (r, cat(g), cat(p))
        },
        exact: None,
    });
    let _: fn(f64, usize) -> [f64; 4] = calls3_derivatives;
    for degree in [0usize, 3] {
        derivatives(
            &format!("calls3 degree {degree}"),
            -1.5,
            1.5,
            &|x| calls3(x, degree),
            &|x| calls3_derivatives(x, degree).to_vec(),
            &|x| calls3_grad(x, degree),
            None,
        );
        // The second derivative by hand: (L E)'' = L'' E + 2 L' E' + L E''; lift(x, 0.5)'' = 0;
        // wave'' as above.
        let x = 0.4;
        let s = sigmoid(x);
        let (l0, l1, l2) = ((1.0 + x.exp()).ln(), s, s * (1.0 - s));
        let (e0, e1, e2) = (libm::erf(x), erf_d(x), -2.0 * x * erf_d(x));
        let nf = degree as f64;
        let wave2 = nf * 2.0 * (x.cos().powi(2) - x.sin().powi(2)) + (x + 2.0) * x.exp();
        let d = calls3_derivatives(x, degree);
        let h = l2 * e0 + 2.0 * l1 * e1 + l0 * e2 + wave2;
        assert_near(d[2], h, 1e-12, 1.0, "calls3's second derivative by hand");
    }
    let _: fn(&[f64]) -> Vec<Vec<f64>> = calls_vec_jacobian;
    vector(
        "calls_vec",
        2,
        -1.5,
        1.5,
        &|x| calls_vec(x),
        &|x, c| calls_vec_vjp(x, c.to_vec()),
        &|x, t| calls_vec_jvp(x, t.to_vec()),
        Some(&|x| calls_vec_jacobian(x)),
    );
}

// ---------------------------------------------------------------------------------------------------
// Array outputs written whole: `out.copy_from_slice(&[..])`, `*out = [..]` reading the incoming value,
// one beside a float result at `order = 3` (`_derivatives` with an output), a `Vec` output beside a
// float result (`_grad_into`), and a caller at `order = 2` passing a local array to be written.

#[differentiable]
fn o_arr_copy(x: &[f64; 2], out: &mut [f64; 3]) {
    out.copy_from_slice(&[x[0] * x[1], x[0] / (1.0 + x[1] * x[1]), x[1].tanh()]);
}

#[differentiable]
fn o_arr_swap(x: f64, out: &mut [f64; 2]) {
    *out = [out[1] * x, out[0] + x.sin()];
}

#[differentiable(order = 3)]
fn o_arr_ret(x: f64, out: &mut [f64; 2]) -> f64 {
    *out = [x.sin(), x * x];
    out[0] * out[1] + x
}

#[differentiable]
fn o_vec_ret(x: &[f64], out: &mut Vec<f64>) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        out[i] = x[i].exp();
        s += out[i] * x[i];
    }
    s
}

#[differentiable(order = 2)]
fn o_caller(x: f64, y: f64) -> f64 {
    let mut k = [0.0; 3];
    o_arr(&[x, y], &mut k);
    let mut m = [0.0; 3];
    o_arr_copy(&[y, x], &mut m);
    k[0] * k[1] + k[2] * m[0]
}

#[test]
fn array_outputs_written_whole() {
    let _: fn(&[f64; 2], &mut [f64; 3]) -> Vec<Vec<f64>> = o_arr_copy_jacobian;
    let mut o1 = [GARBAGE; 3];
    let mut o2 = [GARBAGE; 3];
    for x in [[0.3, -0.8], [1.2, 0.4]] {
        assert_eq!(
            o_arr_copy_jacobian(&x, &mut o1),
            o_arr_jacobian(&x, &mut o2),
            "two ways to write an array whole"
        );
        assert_eq!(o1, o2);
    }
    vector(
        "o_arr_copy",
        2,
        -1.5,
        1.5,
        &|x| {
            let mut out = [GARBAGE; 3];
            o_arr_copy(&arr(x), &mut out);
            out.to_vec()
        },
        &|x, c| {
            let mut out = [GARBAGE; 3];
            let g = o_arr_copy_vjp(&arr(x), &mut out, &arr(c));
            (out.to_vec(), g.to_vec())
        },
        &|x, t| {
            let mut out = [GARBAGE; 3];
            let mut d = [GARBAGE; 3];
            o_arr_copy_jvp(&arr(x), &mut out, arr(t), &mut d);
            (out.to_vec(), d.to_vec())
        },
        Some(&|x| o_arr_copy_jacobian(&arr(x), &mut [GARBAGE; 3])),
    );
    // The incoming value is read before the whole is written: an input (flat x, out0, out1).
    let _: fn(f64, &mut [f64; 2], &[f64; 2]) -> (f64, [f64; 2]) = o_arr_swap_vjp;
    let _: fn(f64, &mut [f64; 2]) -> Vec<Vec<f64>> = o_arr_swap_jacobian;
    vector(
        "o_arr_swap",
        3,
        -1.5,
        1.5,
        &|v| {
            let mut out = [v[1], v[2]];
            o_arr_swap(v[0], &mut out);
            out.to_vec()
        },
        &|v, c| {
            let mut out = [v[1], v[2]];
            let (gx, go) = o_arr_swap_vjp(v[0], &mut out, &arr(c));
            (out.to_vec(), vec![gx, go[0], go[1]])
        },
        &|v, t| {
            let mut out = [v[1], v[2]];
            let mut d = [GARBAGE; 2];
            o_arr_swap_jvp(v[0], &mut out, (t[0], [t[1], t[2]]), &mut d);
            (out.to_vec(), d.to_vec())
        },
        Some(&|v| o_arr_swap_jacobian(v[0], &mut [v[1], v[2]])),
    );
    // f = x^2 sin x + x, with the output written.
    let _: fn(f64, &mut [f64; 2]) -> [f64; 4] = o_arr_ret_derivatives;
    let _: fn(f64, &mut [f64; 2], &mut f64) -> f64 = o_arr_ret_grad_into;
    derivatives(
        "o_arr_ret",
        -1.5,
        1.5,
        &|x| o_arr_ret(x, &mut [GARBAGE; 2]),
        &|x| {
            let mut out = [GARBAGE; 2];
            let d = o_arr_ret_derivatives(x, &mut out);
            assert_eq!(out, [x.sin(), x * x], "_derivatives writes the output");
            d.to_vec()
        },
        &|x| o_arr_ret_grad(x, &mut [GARBAGE; 2]),
        Some(&|x: f64| {
            let (s, c) = x.sin_cos();
            vec![
                x * x * s + x,
                2.0 * x * s + x * x * c + 1.0,
                2.0 * s + 4.0 * x * c - x * x * s,
                6.0 * c - 6.0 * x * s - x * x * c,
            ]
        }),
    );
    let _: fn(&[f64], &mut Vec<f64>, &mut [f64]) -> f64 = o_vec_ret_grad_into;
    let _: fn(&[f64], &mut Vec<f64>, f64, &[f64]) -> (f64, Vec<f64>) = o_vec_ret_vjp;
    scalar(Scalar {
        name: "o_vec_ret",
        n: 3,
        lo: -1.5,
        hi: 1.5,
        f: &|x| o_vec_ret(x, &mut vec![GARBAGE; 3]),
        grad: &|x| o_vec_ret_grad(x, &mut vec![GARBAGE; 3]),
        vjp: &|x, d| o_vec_ret_vjp(x, &mut vec![GARBAGE; 3], d, &[0.0; 3]),
        jvp: &|x, t| o_vec_ret_jvp(x, &mut vec![GARBAGE; 3], t.to_vec(), &mut [GARBAGE; 3]),
        into: &|x| {
            let mut out = vec![GARBAGE; 3];
            let mut g = vec![GARBAGE; 3];
            let v = o_vec_ret_grad_into(x, &mut out, &mut g);
            assert_eq!(out, x.iter().map(|v| v.exp()).collect::<Vec<_>>());
            (v, g)
        },
        exact: Some(&|x: &[f64]| x.iter().map(|v| (1.0 + v) * v.exp()).collect()),
    });
    let pair = |g: (f64, f64)| vec![g.0, g.1];
    second(Second {
        name: "o_caller",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| {
            let (v, g) = o_caller_grad(x[0], x[1]);
            (v, pair(g))
        },
        hessian: &|x| {
            let (v, g, h) = o_caller_hessian(x[0], x[1]);
            (v, pair(g), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = o_caller_hvp(x[0], x[1], (d[0], d[1]));
            (v, pair(g), pair(p))
        },
        exact: None,
    });
    scalar(Scalar {
        name: "o_caller",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        f: &|x| o_caller(x[0], x[1]),
        grad: &|x| {
            let (v, g) = o_caller_grad(x[0], x[1]);
            (v, pair(g))
        },
        vjp: &|x, d| {
            let (v, g) = o_caller_vjp(x[0], x[1], d);
            (v, pair(g))
        },
        jvp: &|x, t| o_caller_jvp(x[0], x[1], (t[0], t[1])),
        into: &|x| {
            let (mut a, mut b) = (GARBAGE, GARBAGE);
            let v = o_caller_grad_into(x[0], x[1], (&mut a, &mut b));
            (v, vec![a, b])
        },
        exact: None,
    });
}

// A struct by value with a vector result, and a struct of `f32` fields at `order = 2`.

#[differentiable]
fn v_struct_val(p: Params, s: f64) -> [f64; 2] {
    [p.a * p.w[0] * s, p.c[1].exp() + p.w[2] * p.c[0]]
}

#[derive(Clone, Debug, PartialEq, Differentiable)]
struct P32 {
    a: f32,
    w: [f32; 2],
}

#[differentiable(order = 2)]
fn s_p32(p: &P32, x: f32) -> f32 {
    p.a * x.sin() + p.w[0] * p.w[1] * x * x
}

#[test]
fn struct_by_value_vector_and_f32_struct() {
    let _: fn(Params, f64) -> Vec<Vec<f64>> = v_struct_val_jacobian;
    let _: fn(Params, f64, [f64; 2]) -> ([f64; 2], (Params, f64)) = v_struct_val_vjp;
    vector(
        "v_struct_val",
        7,
        -1.5,
        1.5,
        &|x| v_struct_val(params(x), x[6]).to_vec(),
        &|x, c| {
            let (r, (gp, gs)) = v_struct_val_vjp(params(x), x[6], arr(c));
            let mut g = gp.to_flat();
            g.push(gs);
            (r.to_vec(), g)
        },
        &|x, t| {
            let (r, d) = v_struct_val_jvp(params(x), x[6], (params(t), t[6]));
            (r.to_vec(), d.to_vec())
        },
        Some(&|x| v_struct_val_jacobian(params(x), x[6])),
    );
    let _: fn(&P32, f32) -> (f32, (P32, f32)) = s_p32_grad;
    let _: fn(&P32, f32, (&mut P32, &mut f32)) -> f32 = s_p32_grad_into;
    let _: fn(&P32, f32) -> (f32, (P32, f32), Vec<Vec<f32>>) = s_p32_hessian;
    let p = P32 {
        a: 0.7,
        w: [-0.3, 1.2],
    };
    for x in [0.4f32, -1.1] {
        let (a, w0, w1, xf) = (p.a as f64, p.w[0] as f64, p.w[1] as f64, x as f64);
        let g = [
            xf.sin(),
            w1 * xf * xf,
            w0 * xf * xf,
            a * xf.cos() + 2.0 * w0 * w1 * xf,
        ];
        let h = [
            [0.0, 0.0, 0.0, xf.cos()],
            [0.0, 0.0, xf * xf, 2.0 * w1 * xf],
            [0.0, xf * xf, 0.0, 2.0 * w0 * xf],
            [
                xf.cos(),
                2.0 * w1 * xf,
                2.0 * w0 * xf,
                -a * xf.sin() + 2.0 * w0 * w1,
            ],
        ];
        let (v, (gp, gx)) = s_p32_grad(&p, x);
        assert_near(v as f64, s_p32(&p, x) as f64, 1e-7, 1.0, "s_p32 value");
        let got = [gp.a, gp.w[0], gp.w[1], gx];
        let mut into = (
            P32 {
                a: f32::NAN,
                w: [f32::NAN; 2],
            },
            f32::NAN,
        );
        s_p32_grad_into(&p, x, (&mut into.0, &mut into.1));
        assert_eq!(into, (gp.clone(), gx), "s_p32_grad_into");
        let (_, _, hm) = s_p32_hessian(&p, x);
        let (_, _, (hp, hx)) = s_p32_hvp(
            &p,
            x,
            (
                P32 {
                    a: 0.0,
                    w: [0.0, 0.0],
                },
                1.0,
            ),
        );
        let col = [hp.a, hp.w[0], hp.w[1], hx];
        for i in 0..4 {
            assert_near(got[i] as f64, g[i], 2e-6, 1.0, "s_p32 gradient");
            assert_near(col[i] as f64, h[i][3], 2e-6, 1.0, "s_p32 hvp along x");
            for j in 0..4 {
                assert_near(hm[i][j] as f64, h[i][j], 2e-6, 1.0, "s_p32 Hessian");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Further forms at `order = 2`: a `&mut Vec` output beside a float result, tuples holding a slice and a
// `Vec`, `&Vec<Vec<T>>`, `[f64; N]` over a const generic, a generic struct in a generic function, an
// `f32` method in `wrt(self)`, a generic `impl`'s method calling `Self::scale`, `&[T; 3]` generic, callers
// of functions with a tuple and a `Vec` result (which get first-order items only), a custom gradient of
// two inputs, a registered gradient of slices (`plain::dot`), `mut x` beside a `bool`, and an array
// output whose incoming value is read.

#[differentiable(order = 2)]
fn q1(x: &[f64], out: &mut Vec<f64>) -> f64 {
    for i in 0..x.len() {
        out[i] = x[i] * x[i];
    }
    out[0] * x[1]
}
#[differentiable(order = 2)]
fn q2(p: (&[f64], f64), q: (Vec<f64>, f64)) -> f64 {
    p.0[0] * p.1 * q.0[1] + q.1 * p.0[1] * p.0[1]
}
#[differentiable(order = 2)]
fn q3(m: &Vec<Vec<f64>>) -> f64 {
    m[0][0] * m[1][1] * m[0][1] + m[1][0].sin()
}
#[differentiable(order = 2)]
fn q4<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[(i + 1) % N];
    }
    s
}
#[derive(Clone, Debug, Differentiable)]
struct Pg<T> {
    a: T,
    w: [T; 2],
}
#[differentiable(order = 2)]
fn q5<T: Float>(p: &Pg<T>, x: T) -> T {
    p.a * x.sin() + p.w[0] * p.w[1] * x
}
#[derive(Clone, Debug, Differentiable)]
struct S32 {
    k: f32,
}
impl S32 {
    #[differentiable(wrt(self), order = 2)]
    fn e(&self, x: f32) -> f32 {
        self.k * self.k * x.sin()
    }
}
#[derive(Clone, Debug, Differentiable)]
struct Gq<T> {
    a: T,
}
impl<T: Float> Gq<T> {
    #[differentiable(order = 2)]
    fn scale(x: T) -> T {
        x.exp() * x
    }
    #[differentiable(order = 2)]
    fn use_scale(&self, x: T) -> T {
        Self::scale(x) * self.a
    }
}
#[differentiable(order = 2)]
fn q7<T: Float>(x: &[T; 3]) -> T {
    x[0] * x[1] * x[2]
}
#[differentiable(order = 2)]
fn q8(x: f64, y: f64) -> (f64, f64) {
    (x * y, x.sin() * y)
}
#[differentiable(order = 2)]
fn q8c(x: f64, y: f64) -> f64 {
    let (a, b) = q8(x, y);
    a * b
}
#[differentiable(order = 2)]
fn q9(x: &[f64]) -> Vec<f64> {
    vec![x[0] * x[1], x[1].exp()]
}
#[differentiable(order = 2)]
fn q9c(x: &[f64]) -> f64 {
    let v = q9(x);
    v[0] * v[1]
}
#[custom_gradient]
fn mulc(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
    (x * y, move |dy| (dy * y, dy * x))
}
#[differentiable(order = 2)]
fn q10(x: f64, y: f64) -> f64 {
    mulc(x, y) * x
}
mod plain {
    pub fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(p, q)| p * q).sum()
    }
}
#[gradient_of(plain::dot)]
fn dot_vjp(a: &[f64], b: &[f64], dy: f64) -> (Vec<f64>, Vec<f64>) {
    (
        b.iter().map(|v| v * dy).collect(),
        a.iter().map(|v| v * dy).collect(),
    )
}
#[differentiable(order = 2)]
fn q11(a: &[f64], b: &[f64]) -> f64 {
    plain::dot(a, b) * a[0]
}
#[differentiable(order = 2)]
fn q12(mut x: f64, flip: bool) -> f64 {
    if flip {
        x = -x;
    }
    x.powi(3)
}
#[differentiable(order = 2)]
fn q13(x: &mut [f64; 2], y: f64) -> f64 {
    x[0] += y * x[1];
    x[0] * x[0]
}
#[test]
fn further_forms_at_order_two() {
    // Each as (flat function, flat _grad, flat _hessian, flat _hvp, n).
    type G<'a> = Box<dyn Fn(&[f64]) -> (f64, Flat) + 'a>;
    type H<'a> = Box<dyn Fn(&[f64]) -> (f64, Flat, Vec<Flat>) + 'a>;
    type V<'a> = Box<dyn Fn(&[f64], &[f64]) -> (f64, Flat, Flat) + 'a>;
    let cells: Vec<(&str, usize, G, H, V)> = vec![
        // The loop writes `0..x.len()`, not provably all of `out`: its incoming value stays in `G`
        // (README: a wrong "read" only adds a gradient that is zero), flat (x, out).
        (
            "q1 (&mut Vec output)",
            4,
            Box::new(|x| {
                let (v, g) = q1_grad(&x[..2], &mut x[2..].to_vec());
                (v, [g.0, g.1].concat())
            }),
            Box::new(|x| {
                let (v, g, h) = q1_hessian(&x[..2], &mut x[2..].to_vec());
                (v, [g.0, g.1].concat(), h)
            }),
            Box::new(|x, d| {
                let (v, g, p) = q1_hvp(
                    &x[..2],
                    &mut x[2..].to_vec(),
                    (d[..2].to_vec(), d[2..].to_vec()),
                );
                (v, [g.0, g.1].concat(), [p.0, p.1].concat())
            }),
        ),
        {
            let split = |g: ((Vec<f64>, f64), (Vec<f64>, f64))| {
                [g.0 .0, vec![g.0 .1], g.1 .0, vec![g.1 .1]].concat()
            };
            let tup = |x: &[f64]| ((x[..2].to_vec(), x[2]), (x[3..5].to_vec(), x[5]));
            (
                "q2 ((&[f64], f64), (Vec<f64>, f64))",
                6,
                Box::new(move |x| {
                    let (v, g) = q2_grad((&x[..2], x[2]), (x[3..5].to_vec(), x[5]));
                    (v, split(g))
                }),
                Box::new(move |x| {
                    let (v, g, h) = q2_hessian((&x[..2], x[2]), (x[3..5].to_vec(), x[5]));
                    (v, split(g), h)
                }),
                Box::new(move |x, d| {
                    let (v, g, p) = q2_hvp((&x[..2], x[2]), (x[3..5].to_vec(), x[5]), tup(d));
                    (v, split(g), split(p))
                }),
            )
        },
        (
            "q3 (&Vec<Vec<f64>>)",
            4,
            Box::new(|x| {
                let (v, g) = q3_grad(&rows(x, 2));
                (v, flat(&g))
            }),
            Box::new(|x| {
                let (v, g, h) = q3_hessian(&rows(x, 2));
                (v, flat(&g), h)
            }),
            Box::new(|x, d| {
                let (v, g, p) = q3_hvp(&rows(x, 2), rows(d, 2));
                (v, flat(&g), flat(&p))
            }),
        ),
        (
            "q4::<3> (const generic array)",
            3,
            Box::new(|x| {
                let (v, g) = q4_grad::<3>(arr(x));
                (v, g.to_vec())
            }),
            Box::new(|x| {
                let (v, g, h) = q4_hessian::<3>(arr(x));
                (v, g.to_vec(), h)
            }),
            Box::new(|x, d| {
                let (v, g, p) = q4_hvp::<3>(arr(x), arr(d));
                (v, g.to_vec(), p.to_vec())
            }),
        ),
        {
            let pg = |x: &[f64]| Pg {
                a: x[0],
                w: [x[1], x[2]],
            };
            let cat = |g: (Pg<f64>, f64)| vec![g.0.a, g.0.w[0], g.0.w[1], g.1];
            (
                "q5 (&Pg<T>, T)",
                4,
                Box::new(move |x| {
                    let (v, g) = q5_grad(&pg(x), x[3]);
                    (v, cat(g))
                }),
                Box::new(move |x| {
                    let (v, g, h) = q5_hessian(&pg(x), x[3]);
                    (v, cat(g), h)
                }),
                Box::new(move |x, d| {
                    let (v, g, p) = q5_hvp(&pg(x), x[3], (pg(d), d[3]));
                    (v, cat(g), cat(p))
                }),
            )
        },
        (
            "q7 (&[T; 3])",
            3,
            Box::new(|x| {
                let (v, g) = q7_grad(&arr::<3>(x));
                (v, g.to_vec())
            }),
            Box::new(|x| {
                let (v, g, h) = q7_hessian(&arr::<3>(x));
                (v, g.to_vec(), h)
            }),
            Box::new(|x, d| {
                let (v, g, p) = q7_hvp(&arr::<3>(x), arr(d));
                (v, g.to_vec(), p.to_vec())
            }),
        ),
        (
            "q8c (calls a tuple result)",
            2,
            Box::new(|x| {
                let (v, g) = q8c_grad(x[0], x[1]);
                (v, vec![g.0, g.1])
            }),
            Box::new(|x| {
                let (v, g, h) = q8c_hessian(x[0], x[1]);
                (v, vec![g.0, g.1], h)
            }),
            Box::new(|x, d| {
                let (v, g, p) = q8c_hvp(x[0], x[1], (d[0], d[1]));
                (v, vec![g.0, g.1], vec![p.0, p.1])
            }),
        ),
        (
            "q9c (calls a Vec result)",
            2,
            Box::new(q9c_grad),
            Box::new(q9c_hessian),
            Box::new(|x, d| q9c_hvp(x, d.to_vec())),
        ),
        (
            "q10 (custom gradient of two inputs)",
            2,
            Box::new(|x| {
                let (v, g) = q10_grad(x[0], x[1]);
                (v, vec![g.0, g.1])
            }),
            Box::new(|x| {
                let (v, g, h) = q10_hessian(x[0], x[1]);
                (v, vec![g.0, g.1], h)
            }),
            Box::new(|x, d| {
                let (v, g, p) = q10_hvp(x[0], x[1], (d[0], d[1]));
                (v, vec![g.0, g.1], vec![p.0, p.1])
            }),
        ),
        (
            "q11 (registered gradient of slices)",
            4,
            Box::new(|x| {
                let (v, g) = q11_grad(&x[..2], &x[2..]);
                (v, [g.0, g.1].concat())
            }),
            Box::new(|x| {
                let (v, g, h) = q11_hessian(&x[..2], &x[2..]);
                (v, [g.0, g.1].concat(), h)
            }),
            Box::new(|x, d| {
                let (v, g, p) = q11_hvp(&x[..2], &x[2..], (d[..2].to_vec(), d[2..].to_vec()));
                (v, [g.0, g.1].concat(), [p.0, p.1].concat())
            }),
        ),
        (
            "q13 (array output read)",
            3,
            Box::new(|x| {
                let (v, g) = q13_grad(&mut [x[0], x[1]], x[2]);
                (v, vec![g.0[0], g.0[1], g.1])
            }),
            Box::new(|x| {
                let (v, g, h) = q13_hessian(&mut [x[0], x[1]], x[2]);
                (v, vec![g.0[0], g.0[1], g.1], h)
            }),
            Box::new(|x, d| {
                let (v, g, p) = q13_hvp(&mut [x[0], x[1]], x[2], ([d[0], d[1]], d[2]));
                (v, vec![g.0[0], g.0[1], g.1], vec![p.0[0], p.0[1], p.1])
            }),
        ),
    ];
    let value: Vec<Box<dyn Fn(&[f64]) -> f64>> = vec![
        Box::new(|x| q1(&x[..2], &mut x[2..].to_vec())),
        Box::new(|x| q2((&x[..2], x[2]), (x[3..5].to_vec(), x[5]))),
        Box::new(|x| q3(&rows(x, 2))),
        Box::new(|x| q4::<3>(arr(x))),
        Box::new(|x| {
            q5(
                &Pg {
                    a: x[0],
                    w: [x[1], x[2]],
                },
                x[3],
            )
        }),
        Box::new(|x| q7(&arr::<3>(x))),
        Box::new(|x| q8c(x[0], x[1])),
        Box::new(q9c),
        Box::new(|x| q10(x[0], x[1])),
        Box::new(|x| q11(&x[..2], &x[2..])),
        Box::new(|x| q13(&mut [x[0], x[1]], x[2])),
    ];
    for ((name, n, grad, hessian, hvp), f) in cells.iter().zip(&value) {
        let mut rng = Lcg::new(seed_of(name));
        for _ in 0..POINTS {
            let x = rng.vec(*n, -1.5, 1.5);
            let (v, g) = grad(&x);
            assert_near(v, f(&x), 1e-12, 1.0, &format!("{name}: value"));
            let fd = fd_gradient(&**f, &x);
            assert_vec_near(&g, &fd, 1e-6, &format!("{name} at {x:?}: _grad"));
        }
        second(Second {
            name,
            n: *n,
            lo: -1.5,
            hi: 1.5,
            grad: &**grad,
            hessian: &**hessian,
            hvp: &**hvp,
            exact: None,
        });
    }
    // The f32 method in wrt(self): k^2 sin x; d/dk = 2 k sin x, d2/dk2 = 2 sin x.
    let s = S32 { k: 0.8 };
    let (v, g) = s.e_grad(0.5);
    assert_eq!(v, s.e(0.5), "S32::e_grad's value");
    let (_, _, h) = s.e_hessian(0.5);
    assert_near(g.k as f64, 1.6 * 0.5f64.sin(), 1e-6, 1.0, "S32::e_grad");
    assert_near(
        h[0][0] as f64,
        2.0 * 0.5f64.sin(),
        1e-6,
        1.0,
        "S32::e_hessian",
    );
    // The generic impl's method calling Self::scale: a x e^x, a constant.
    let gq = Gq { a: 1.5 };
    derivatives(
        "Gq::use_scale",
        -1.5,
        1.5,
        &|x| gq.use_scale(x),
        &|x| gq.use_scale_derivatives(x).to_vec(),
        &|x| gq.use_scale_grad(x),
        Some(&|x: f64| {
            let e = x.exp();
            vec![1.5 * x * e, 1.5 * (x + 1.0) * e, 1.5 * (x + 2.0) * e]
        }),
    );
    // mut x beside a bool: x^3 or -x^3.
    for flip in [false, true] {
        let sign = if flip { -1.0 } else { 1.0 };
        derivatives(
            "q12",
            -1.5,
            1.5,
            &|x| q12(x, flip),
            &|x| q12_derivatives(x, flip).to_vec(),
            &|x| q12_grad(x, flip),
            Some(&|x: f64| vec![sign * x.powi(3), sign * 3.0 * x * x, sign * 6.0 * x]),
        );
    }
    // The tuple- and Vec-result functions at order = 2 have their first-order items.
    let (r, (gx, gy)) = q8_vjp(0.3, -0.6, (1.0, 0.0));
    assert_eq!((r.0, gx, gy), (0.3 * -0.6, -0.6, 0.3));
    let j = q9_jacobian(&[0.3, -0.6]);
    assert_near(j[1][1], (-0.6f64).exp(), 1e-15, 1.0, "q9_jacobian");
}

// A method in wrt(self) writing an output (its Jacobian's columns are `self`'s flat view), a generic
// function with a float output beside a float result at `order = 2` (on f64 and Dual<f64>), and
// `order = 3` on two inputs (its Hessian items).

impl Spring {
    #[differentiable(wrt(self))]
    fn force_self(&self, x: &[f64], out: &mut [f64]) {
        for i in 0..x.len() {
            out[i] = -self.k * (x[i] - self.rest).powi(3);
        }
    }
}

#[differentiable(order = 2)]
fn og2<T: Float>(x: &[T], e: &mut T) -> T {
    *e = x[0] * x[1];
    *e * x[0] + x[1].sin()
}

#[differentiable(order = 3)]
fn s3(x: f64, y: f64) -> f64 {
    (x * y).exp() + x.powi(3) * y
}

#[test]
fn last_cells() {
    let _: fn(&Spring, &[f64], &mut [f64]) -> Vec<Vec<f64>> = Spring::force_self_jacobian;
    let _: fn(&Spring, &[f64], &mut [f64], &[f64]) -> Spring = Spring::force_self_vjp;
    let _: fn(&Spring, &[f64], &mut [f64], Spring, &mut [f64]) = Spring::force_self_jvp;
    let x = [0.3, -0.9, 1.4];
    vector(
        "Spring::force_self",
        2,
        -1.5,
        1.5,
        &|p| {
            let mut out = vec![GARBAGE; 3];
            spring(p).force_self(&x, &mut out);
            out
        },
        &|p, c| {
            let mut out = vec![GARBAGE; 3];
            let g = spring(p).force_self_vjp(&x, &mut out, c);
            (out, g.to_flat())
        },
        &|p, t| {
            let mut out = vec![GARBAGE; 3];
            let mut d = vec![GARBAGE; 3];
            spring(p).force_self_jvp(&x, &mut out, spring(t), &mut d);
            (out, d)
        },
        Some(&|p| spring(p).force_self_jacobian(&x, &mut [GARBAGE; 3])),
    );
    let _: fn(&[f64], &mut f64) -> (f64, Vec<f64>, Vec<Vec<f64>>) = og2_hessian::<f64>;
    second(Second {
        name: "og2",
        n: 2,
        lo: -1.5,
        hi: 1.5,
        grad: &|x| og2_grad(x, &mut f64::NAN.clone()),
        hessian: &|x| {
            let mut e = GARBAGE;
            let out = og2_hessian(x, &mut e);
            assert_eq!(e, x[0] * x[1], "og2_hessian writes e");
            out
        },
        hvp: &|x, d| og2_hvp(x, &mut f64::NAN.clone(), d.to_vec()),
        exact: Some(&|x: &[f64]| vec![vec![2.0 * x[1], 2.0 * x[0]], vec![2.0 * x[0], -x[1].sin()]]),
    });
    let xd = [Dual::new(0.4, 1.0), Dual::new(-0.7, 0.5)];
    let mut e = Dual::new(f64::NAN, f64::NAN);
    let (_, g) = og2_grad(&xd, &mut e);
    let (_, _, h) = og2_hessian(&[0.4, -0.7], &mut 0.0);
    assert_near(e.re, 0.4 * -0.7, 1e-15, 1.0, "og2::<Dual> writes e");
    for i in 0..2 {
        let hv = h[i][0] + 0.5 * h[i][1];
        assert_near(
            g[i].eps,
            hv,
            1e-14,
            1.0,
            "og2::<Dual> gradient's tangent = H v",
        );
    }
    let pair = |g: (f64, f64)| vec![g.0, g.1];
    second(Second {
        name: "s3",
        n: 2,
        lo: -1.2,
        hi: 1.2,
        grad: &|x| {
            let (v, g) = s3_grad(x[0], x[1]);
            (v, pair(g))
        },
        hessian: &|x| {
            let (v, g, h) = s3_hessian(x[0], x[1]);
            (v, pair(g), h)
        },
        hvp: &|x, d| {
            let (v, g, p) = s3_hvp(x[0], x[1], (d[0], d[1]));
            (v, pair(g), pair(p))
        },
        exact: Some(&|v: &[f64]| {
            let (x, y) = (v[0], v[1]);
            let e = (x * y).exp();
            vec![
                vec![y * y * e + 6.0 * x * y, (1.0 + x * y) * e + 3.0 * x * x],
                vec![(1.0 + x * y) * e + 3.0 * x * x, x * x * e],
            ]
        }),
    });
    assert_near(s3(0.5, 0.5), 0.25f64.exp() + 0.0625, 1e-15, 1.0, "s3 value");
}
