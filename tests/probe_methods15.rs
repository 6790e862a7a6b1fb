//! An outside probe of methods, parameter structs, output parameters, `f_jacobian` and `f_grad_into`,
//! written from API.md alone: the combinations the feature files do not have. Three levels of nested
//! structs passed on whole; a method differentiated in `self` and in an output read before it is
//! written, at `order = 2`; `f_jvp` and `f_vjp` of a method with a slice output, a float output and a
//! returned float; `f_hvp` of a function whose output is an input too (the buffer left as the function
//! leaves it); two outputs of a function returning `()`; an associated function with an output called
//! from methods at `order = 2` and `order = 3`; `optim::Lbfgs` on a `_grad` that writes a residual buffer.
//!
//! Every derivative is checked against central differences (`common`), over a few seeded points.

// Indexed loops, an output `&mut Vec<f64>` and `vec![..]` buffers are the forms users write.
#![allow(clippy::needless_range_loop, clippy::ptr_arg, clippy::useless_vec)]

mod common;

use autodiff::optim::{Lbfgs, Minimizer};
use autodiff::{check_gradient, differentiable, Differentiable};
use common::*;

/// `J v` of a Jacobian with rows the outputs.
fn times(jacobian: &[Vec<f64>], v: &[f64]) -> Vec<f64> {
    jacobian.iter().map(|row| dot(row, v)).collect()
}

/// `wᵀ J` of a Jacobian with rows the outputs.
fn transposed_times(jacobian: &[Vec<f64>], w: &[f64]) -> Vec<f64> {
    (0..jacobian[0].len())
        .map(|c| jacobian.iter().zip(w).map(|(row, w)| row[c] * w).sum())
        .collect()
}

#[derive(Clone, Debug, Differentiable)]
struct Leaf {
    a: f64,
    v: [f64; 2],
}

#[derive(Clone, Debug, Differentiable)]
struct Mid {
    leaf: Leaf,
    s: Vec<f64>,
    #[no_grad]
    tag: u8,
}

#[derive(Clone, Debug, Differentiable)]
struct Outer {
    mid: Mid,
    top: f64,
}

/// Fields three levels down, an integer field of the middle one as a condition.
#[differentiable(wrt(o))]
fn score(o: &Outer, x: f64) -> f64 {
    let t = o.mid.leaf.a * x + o.mid.leaf.v[1] * o.top;
    let mut s = t.sin();
    for i in 0..o.mid.s.len() {
        s += o.mid.s[i] * o.mid.leaf.v[0] * x.powi(i as i32);
    }
    if o.mid.tag > 3 {
        s * 2.0
    } else {
        s
    }
}

impl Outer {
    /// `score(self, x) + top a`, at `order = 2`.
    #[differentiable(wrt(self), order = 2)]
    fn value(&self, x: f64) -> f64 {
        score(self, x) + self.top * self.mid.leaf.a
    }
}

#[test]
fn three_levels_of_nested_structs() {
    let mut r = Inputs(106);
    for tag in [1u8, 5] {
        let leaf = Leaf {
            a: r.next(),
            v: [r.next(), r.next()],
        };
        let o = Outer {
            mid: Mid {
                leaf,
                s: r.vec(3),
                tag,
            },
            top: r.next(),
        };
        let x = r.next();
        let flat = o.to_flat();
        let (value, g) = score_grad(&o, x);
        assert_close(value, score(&o, x), ANALYTIC_TOL, "score");
        assert_eq!(g.mid.tag, tag);
        assert_fd_gradient(
            |f| score(&o.from_flat(f), x),
            &flat,
            &g.to_flat(),
            "score_grad",
        );
        let (_, g, h) = o.value_hessian(x);
        assert_fd_gradient(
            |f| o.from_flat(f).value(x),
            &flat,
            &g.to_flat(),
            "value_grad",
        );
        let grad = |f: &[f64]| o.from_flat(f).value_grad(x).1.to_flat();
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "value_hessian");
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Accumulator {
    g: [f64; 2],
}

impl Accumulator {
    /// `buf` read before it is written, differentiated beside `self`.
    #[differentiable(wrt(self, buf), order = 2)]
    fn step(&self, x: f64, buf: &mut [f64]) -> f64 {
        buf[0] += self.g[0] * x;
        buf[1] = buf[1] * self.g[1] + buf[0];
        buf[0] * buf[1]
    }
}

#[test]
fn a_method_differentiated_in_self_and_an_output_read_first_at_second_order() {
    let mut r = Inputs(406);
    for _ in 0..4 {
        let a = Accumulator {
            g: [r.next(), r.next()],
        };
        let (x, b0) = (r.next(), r.vec(2));
        let flat: Vec<f64> = a.to_flat().into_iter().chain(b0.iter().copied()).collect();
        let f = |f: &[f64]| a.from_flat(&f[..2]).step(x, &mut f[2..].to_vec());
        let grad = |f: &[f64]| {
            let (_, (ds, db)) = a.from_flat(&f[..2]).step_grad(x, &mut f[2..].to_vec());
            ds.to_flat().into_iter().chain(db).collect::<Vec<f64>>()
        };
        let mut buf = b0.clone();
        let (value, (ds, db), h) = a.step_hessian(x, &mut buf);
        assert_close(value, f(&flat), ANALYTIC_TOL, "step");
        let mut after = b0.clone();
        a.step(x, &mut after);
        assert_all_close(&buf, &after, ANALYTIC_TOL, "the buffer after step_hessian");
        let g: Vec<f64> = ds.to_flat().into_iter().chain(db).collect();
        assert_fd_gradient(f, &flat, &g, "step_grad");
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "step_hessian");
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Charges {
    q: Vec<f64>,
}

impl Charges {
    /// A slice output, a float output written first, and a returned float.
    #[differentiable(wrt(self, pos))]
    fn force(&self, pos: &[f64], f: &mut [f64], e: &mut f64) -> f64 {
        *e = 0.0;
        for i in 0..pos.len() {
            f[i] = -self.q[i] * pos[i] / (1.0 + pos[i] * pos[i]);
            *e += self.q[i] * (1.0 + pos[i] * pos[i]).ln() * 0.5;
        }
        *e * 2.0
    }
}

#[test]
fn jvp_and_vjp_of_a_method_with_a_slice_and_a_float_output() {
    let mut r = Inputs(504);
    for _ in 0..4 {
        let c = Charges { q: r.vec(3) };
        let pos = r.vec(3);
        // Every result (the returned float, then `f`, then `e`) over `(q, pos)`.
        let all = |p: &[f64]| {
            let (mut f, mut e) = (vec![0.0; 3], 0.0);
            let v = c.from_flat(&p[..3]).force(&p[3..], &mut f, &mut e);
            [vec![v], f, vec![e]].concat()
        };
        let flat = [c.to_flat(), pos.clone()].concat();
        let jacobian = fd_jacobian(all, &flat);

        let t = (c.from_flat(&r.vec(3)), r.vec(3));
        let (mut f, mut e, mut df, mut de) = (vec![0.0; 3], 0.0, vec![0.0; 3], 0.0);
        let (value, dv) = c.force_jvp(&pos, &mut f, &mut e, t.clone(), &mut df, &mut de);
        assert_all_close(
            &[vec![value], f, vec![e]].concat(),
            &all(&flat),
            ANALYTIC_TOL,
            "force",
        );
        let tangent = [t.0.to_flat(), t.1].concat();
        let got = [vec![dv], df, vec![de]].concat();
        assert_all_close(&got, &times(&jacobian, &tangent), 1e-6, "force_jvp");

        let (d_ret, d_f, d_e) = (r.next(), r.vec(3), r.next());
        let (_, (dq, dpos)) = c.force_vjp(&pos, &mut vec![0.0; 3], &mut 0.0, d_ret, &d_f, d_e);
        let w = [vec![d_ret], d_f, vec![d_e]].concat();
        let got = [dq.to_flat(), dpos].concat();
        assert_all_close(&got, &transposed_times(&jacobian, &w), 1e-6, "force_vjp");
    }
}

/// `state` read before it is written: an input too.
#[differentiable(order = 2)]
fn relax(x: &[f64], state: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        state[i] = 0.5 * state[i] + x[i] * x[i];
        s += state[i] * x[i].cos();
    }
    s * s
}

#[test]
fn hvp_of_a_function_whose_output_is_an_input_too() {
    let mut r = Inputs(505);
    for _ in 0..4 {
        let (x, s0) = (r.vec(3), r.vec(3));
        let flat = [x.clone(), s0.clone()].concat();
        let grad = |f: &[f64]| {
            let (_, (dx, ds)) = relax_grad(&f[..3], &mut f[3..].to_vec());
            [dx, ds].concat()
        };
        let (_, (dx, ds), h) = relax_hessian(&x, &mut s0.clone());
        assert_fd_gradient(
            |f| relax(&f[..3], &mut f[3..].to_vec()),
            &flat,
            &[dx, ds].concat(),
            "relax_grad",
        );
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "relax_hessian");
        let v = (r.vec(3), r.vec(3));
        let mut state = s0.clone();
        let (_, _, (hx, hs)) = relax_hvp(&x, &mut state, v.clone());
        let expected = times(&h, &[v.0, v.1].concat());
        assert_all_close(&[hx, hs].concat(), &expected, 1e-9, "relax_hvp");
        let mut after = s0.clone();
        relax(&x, &mut after);
        assert_all_close(&state, &after, ANALYTIC_TOL, "the state after relax_hvp");
    }
}

/// Two outputs, a slice and a `Vec`, and no return value.
#[differentiable]
fn polar_into(r: f64, t: &[f64], xs: &mut [f64], ys: &mut Vec<f64>) {
    for i in 0..t.len() {
        xs[i] = r * t[i].cos();
        ys[i] = r * t[i].sin() + xs[i] * 0.5;
    }
}

#[test]
fn two_outputs_of_a_function_returning_unit() {
    let mut points = Inputs(407);
    for _ in 0..4 {
        let (r, t) = (points.next(), points.vec(3));
        let flat = [vec![r], t.clone()].concat();
        let both = |f: &[f64]| {
            let (mut xs, mut ys) = (vec![0.0; 3], vec![0.0; 3]);
            polar_into(f[0], &f[1..], &mut xs, &mut ys);
            [xs, ys].concat()
        };
        let jacobian = fd_jacobian(both, &flat);
        let (d_xs, d_ys) = (points.vec(3), points.vec(3));
        let (mut xs, mut ys) = (vec![0.0; 3], vec![0.0; 3]);
        let (dr, dt) = polar_into_vjp(r, &t, &mut xs, &mut ys, &d_xs, &d_ys);
        assert_all_close(
            &[xs, ys].concat(),
            &both(&flat),
            ANALYTIC_TOL,
            "outputs of polar_into_vjp",
        );
        let w = [d_xs, d_ys].concat();
        assert_all_close(
            &[vec![dr], dt].concat(),
            &transposed_times(&jacobian, &w),
            1e-6,
            "polar_into_vjp",
        );

        let tangent = (points.next(), points.vec(3));
        let (mut xs, mut ys, mut t_xs, mut t_ys) =
            (vec![0.0; 3], vec![0.0; 3], vec![0.0; 3], vec![0.0; 3]);
        let () = polar_into_jvp(
            r,
            &t,
            &mut xs,
            &mut ys,
            tangent.clone(),
            &mut t_xs,
            &mut t_ys,
        );
        let expected = times(&jacobian, &[vec![tangent.0], tangent.1].concat());
        assert_all_close(&[t_xs, t_ys].concat(), &expected, 1e-6, "polar_into_jvp");
    }
}

#[derive(Clone, Debug, Differentiable)]
struct Net {
    w: [f64; 3],
}

impl Net {
    /// An associated function writing an output.
    #[differentiable]
    fn act(z: &[f64], out: &mut [f64]) {
        for i in 0..z.len() {
            out[i] = z[i].tanh() * z[i];
        }
    }

    #[differentiable(wrt(self), order = 2)]
    fn loss(&self, x: f64) -> f64 {
        let z = [self.w[0] * x, self.w[1] * x, self.w[2] * x * x];
        let mut a = [0.0; 3];
        Self::act(&z, &mut a);
        a[0] * a[1] + a[2]
    }

    #[differentiable(wrt(x), order = 3)]
    fn in_x(&self, x: f64) -> f64 {
        let z = [self.w[0] * x, self.w[1]];
        let mut a = [0.0; 2];
        Self::act(&z, &mut a);
        a[0] * a[1]
    }
}

#[test]
fn an_associated_function_with_an_output_at_second_and_third_order() {
    let mut r = Inputs(502);
    for _ in 0..4 {
        let n = Net {
            w: [r.next(), r.next(), r.next()],
        };
        let x = r.next();
        let flat = n.to_flat();
        let (_, g, h) = n.loss_hessian(x);
        assert_fd_gradient(|f| n.from_flat(f).loss(x), &flat, &g.to_flat(), "loss_grad");
        let grad = |f: &[f64]| n.from_flat(f).loss_grad(x).1.to_flat();
        assert_jacobian(&h, &fd_jacobian(grad, &flat), "loss_hessian");
        let d = n.in_x_derivatives(x);
        assert_close(d[0], n.in_x(x), ANALYTIC_TOL, "in_x");
        for k in 1..4 {
            let by_differences = central_difference(|x| n.in_x_derivatives(x)[k - 1], x);
            assert_close(d[k], by_differences, 1e-6, &format!("in_x derivative {k}"));
        }
    }
}

/// A residual written into `out`, its squared norm returned, fitted by L-BFGS through `_grad`.
#[differentiable(wrt(w))]
fn fit(w: &[f64], xs: &[f64], ys: &[f64], out: &mut [f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        out[i] = w[0] * (w[1] * xs[i]).exp() - ys[i];
        s += out[i] * out[i];
    }
    s
}

#[test]
fn lbfgs_on_a_gradient_that_writes_a_residual_buffer() {
    let xs: Vec<f64> = (0..8).map(|i| i as f64 * 0.25).collect();
    let ys: Vec<f64> = xs.iter().map(|x| 1.5 * (-0.7 * x).exp()).collect();
    let mut buffer = vec![0.0; 8];
    let minimum =
        Lbfgs::default().minimize(|w: &[f64]| fit_grad(w, &xs, &ys, &mut buffer), &[1.0, 0.0]);
    assert!(
        (minimum.x[0] - 1.5).abs() < 1e-5 && (minimum.x[1] + 0.7).abs() < 1e-5,
        "{minimum:?}"
    );
    let w = [0.9, -0.2];
    let mut g = [f64::NAN; 2];
    fit_grad_into(&w, &xs, &ys, &mut vec![0.0; 8], &mut g);
    let check = check_gradient(|w| fit(w, &xs, &ys, &mut vec![0.0; 8]), &w, &g);
    assert!(check.is_ok(FD_TOL), "{check}");
}
