//! What `f_vjp` and `f_jvp` take for an output parameter. `../shared/API.md` writes every output's
//! cotangent `d_out: &[T]` and tangent buffer `d_out: &mut [T]`; the README writes a float output's as a
//! float (`d_e: f64`, `&mut f64`). Both are accepted for a float output (`autodiff::FloatCotangent`,
//! `autodiff::FloatTangentBuffer`); an array output (`&mut [T; N]`) keeps `&[T; N]`, whose length rustc
//! checks. Every form is checked against central differences of the function's value and outputs, not
//! only against each other.

mod common;

use autodiff::{differentiable, Differentiable};
use common::{assert_all_close, assert_close, Inputs};

/// The energy of a pair of springs: written into `e`, the elongation returned.
#[differentiable]
fn springs(x: &[f64], e: &mut f64) -> f64 {
    let a = x[1] - x[0] - 1.0;
    let b = x[2] - x[1] - 1.0;
    *e = 0.5 * (a * a + 2.0 * b * b) + (x[0] * x[2]).sin();
    a + b
}

/// `springs` as a plain function of its inputs: (returned value, energy).
fn springs_plain(x: &[f64]) -> (f64, f64) {
    let mut e = 0.0;
    let r = springs(x, &mut e);
    (r, e)
}

/// Central differences of both results of `springs` along `t`.
fn springs_directional(x: &[f64], t: &[f64]) -> (f64, f64) {
    let h = 1e-6;
    let at = |s: f64| {
        let y: Vec<f64> = x.iter().zip(t).map(|(a, b)| a + s * h * b).collect();
        springs_plain(&y)
    };
    let ((r1, e1), (r0, e0)) = (at(1.0), at(-1.0));
    ((r1 - r0) / (2.0 * h), (e1 - e0) / (2.0 * h))
}

/// The gradient of `d_ret * r + d_e * e` by central differences.
fn springs_fd_vjp(x: &[f64], d_ret: f64, d_e: f64) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let mut t = vec![0.0; x.len()];
            t[i] = 1.0;
            let (dr, de) = springs_directional(x, &t);
            d_ret * dr + d_e * de
        })
        .collect()
}

#[test]
fn a_float_output_takes_a_float_or_one_element_as_its_cotangent() {
    let mut inputs = Inputs(47_001);
    for _ in 0..12 {
        let x = inputs.vec(3);
        let (d_ret, d_e) = (inputs.next(), inputs.next());
        let expected = springs_fd_vjp(&x, d_ret, d_e);
        let mut e = 0.0;
        let (r, as_float) = springs_vjp(&x, &mut e, d_ret, d_e);
        let (r_plain, e_plain) = springs_plain(&x);
        assert_eq!((r, e), (r_plain, e_plain), "value and output at {x:?}");
        assert_all_close(&as_float, &expected, 1e-6, "d_e as a float");
        let as_array = springs_vjp(&x, &mut e, d_ret, &[d_e]).1;
        let as_vec = springs_vjp(&x, &mut e, d_ret, &vec![d_e]).1;
        let held = [d_e, 99.0];
        let as_slice = springs_vjp(&x, &mut e, d_ret, &held[..1]).1;
        for (form, g) in [
            ("&[d_e]", as_array),
            ("&vec![d_e]", as_vec),
            ("&held[..1]", as_slice),
        ] {
            assert_eq!(g, as_float, "{form} at {x:?}");
        }
    }
}

#[test]
fn a_float_output_takes_a_float_or_one_element_as_its_tangent_buffer() {
    let mut inputs = Inputs(47_002);
    for _ in 0..12 {
        let x = inputs.vec(3);
        let t = inputs.vec(3);
        let (dr_fd, de_fd) = springs_directional(&x, &t);
        let mut e = 0.0;
        let mut de = f64::NAN;
        let (r, dr) = springs_jvp(&x, &mut e, t.clone(), &mut de);
        assert_eq!(r, springs_plain(&x).0, "value at {x:?}");
        assert_close(dr, dr_fd, 1e-6, "tangent of the returned value");
        assert_close(de, de_fd, 1e-6, "tangent of the float output");
        let mut one = [f64::NAN];
        springs_jvp(&x, &mut e, t.clone(), &mut one);
        let mut held = vec![f64::NAN];
        springs_jvp(&x, &mut e, t.clone(), &mut held);
        let mut longer = [f64::NAN, 7.0];
        springs_jvp(&x, &mut e, t.clone(), &mut longer[..1]);
        assert_eq!((one[0], held[0], longer), (de, de, [de, 7.0]), "at {x:?}");
    }
}

#[test]
#[should_panic(
    expected = "the cotangent of the float output `e` must be a float or hold one element, but it has 2"
)]
fn a_float_output_refuses_a_cotangent_of_two_elements() {
    let mut e = 0.0;
    springs_vjp(&[0.1, 0.2, 0.3], &mut e, 1.0, &[1.0, 2.0]);
}

#[test]
#[should_panic(
    expected = "the tangent buffer of the float output `e` must be a float or hold one element, but it has 0"
)]
fn a_float_output_refuses_an_empty_tangent_buffer() {
    let mut e = 0.0;
    let mut none: Vec<f64> = Vec::new();
    springs_jvp(&[0.1, 0.2, 0.3], &mut e, vec![1.0, 0.0, 0.0], &mut none);
}

/// A rotation written into a fixed-size array output.
#[differentiable]
fn rotate(t: f64, v: &[f64; 2], out: &mut [f64; 2]) {
    let (s, c) = t.sin_cos();
    out[0] = c * v[0] - s * v[1];
    out[1] = s * v[0] + c * v[1];
}

fn rotated(p: &[f64]) -> [f64; 2] {
    let mut out = [0.0; 2];
    rotate(p[0], &[p[1], p[2]], &mut out);
    out
}

#[test]
fn an_array_output_takes_an_array_of_cotangents() {
    let mut inputs = Inputs(47_003);
    for _ in 0..12 {
        let p = inputs.vec(3);
        let d = [inputs.next(), inputs.next()];
        let v = [p[1], p[2]];
        let mut out = [0.0; 2];
        let (dt, dv) = rotate_vjp(p[0], &v, &mut out, &d);
        assert_eq!(out, rotated(&p), "output at {p:?}");
        // The gradient of d . out, by central differences.
        let h = 1e-6;
        let expected: Vec<f64> = (0..3)
            .map(|i| {
                let (mut a, mut b) = (p.clone(), p.clone());
                a[i] += h;
                b[i] -= h;
                let (ra, rb) = (rotated(&a), rotated(&b));
                (d[0] * (ra[0] - rb[0]) + d[1] * (ra[1] - rb[1])) / (2.0 * h)
            })
            .collect();
        assert_all_close(&[dt, dv[0], dv[1]], &expected, 1e-6, "rotate_vjp");
        // Forward mode: d . (J t) = (d J) . t.
        let t = (inputs.next(), [inputs.next(), inputs.next()]);
        let mut into_array = [0.0; 2];
        rotate_jvp(p[0], &v, &mut out, t, &mut into_array);
        let lhs = d[0] * into_array[0] + d[1] * into_array[1];
        let rhs = dt * t.0 + dv[0] * t.1[0] + dv[1] * t.1[1];
        assert_close(lhs, rhs, 1e-12, "d . (J t) against (d J) . t");
    }
}

/// Generic over the float type, at `order = 2`: the cotangent of the float output is a `T` or a slice.
#[differentiable(order = 2)]
fn cubic<T: autodiff::Float>(x: &[T], e: &mut T) -> T {
    *e = x[0] * x[0] * x[1];
    x[0] * *e + x[1]
}

#[test]
fn a_generic_float_output_takes_both_forms_in_f32_and_f64() {
    let mut inputs = Inputs(47_004);
    for _ in 0..12 {
        let x = inputs.vec(2);
        let d_e = inputs.next();
        let mut e = 0.0;
        let (_, a) = cubic_vjp(&x, &mut e, 1.0, d_e);
        let (_, b) = cubic_vjp(&x, &mut e, 1.0, &[d_e]);
        assert_eq!(a, b, "at {x:?}");
        // d/dx (x0^3 x1 + x1) + d_e * d/dx (x0^2 x1)
        let expected = [
            3.0 * x[0] * x[0] * x[1] + d_e * 2.0 * x[0] * x[1],
            x[0].powi(3) + 1.0 + d_e * x[0] * x[0],
        ];
        assert_all_close(&a, &expected, 1e-12, "cubic_vjp");
        let (_, _, h) = cubic_hessian(&x, &mut e);
        let analytic = [
            vec![6.0 * x[0] * x[1], 3.0 * x[0] * x[0]],
            vec![3.0 * x[0] * x[0], 0.0],
        ];
        for (row, want) in h.iter().zip(&analytic) {
            assert_all_close(row, want, 1e-12, "cubic_hessian");
        }
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let mut e32 = 0.0f32;
        let (_, c) = cubic_vjp(&x32, &mut e32, 1.0, d_e as f32);
        let (_, d) = cubic_vjp(&x32, &mut e32, 1.0, &vec![d_e as f32]);
        assert_eq!(c, d, "f32 at {x:?}");
        let mut de32 = 0.0f32;
        cubic_jvp(&x32, &mut e32, vec![1.0, 0.0], &mut de32);
        let mut one32 = [0.0f32];
        cubic_jvp(&x32, &mut e32, vec![1.0, 0.0], &mut one32);
        assert_eq!(de32, one32[0], "f32 tangent at {x:?}");
        assert_close(de32 as f64, 2.0 * x[0] * x[1], 1e-5, "f32 tangent of e");
    }
}

/// A method of a parameter struct with a float output.
#[derive(Differentiable, Clone, Debug)]
struct Spring {
    k: f64,
}

impl Spring {
    #[differentiable(wrt(self))]
    fn energy(&self, x: f64, e: &mut f64) -> f64 {
        *e = 0.5 * self.k * x * x;
        self.k * x
    }
}

#[test]
fn a_method_with_a_float_output_takes_both_forms() {
    let mut inputs = Inputs(47_005);
    for _ in 0..12 {
        let (k, x, d_e) = (inputs.next(), inputs.next(), inputs.next());
        let s = Spring { k };
        let mut e = 0.0;
        assert_eq!(s.energy(x, &mut e), k * x);
        let (_, g) = s.energy_vjp(x, &mut e, 1.0, d_e);
        let (_, h) = s.energy_vjp(x, &mut e, 1.0, &[d_e]);
        assert_eq!(g.k, h.k, "at k = {k}, x = {x}");
        assert_close(
            g.k,
            x + d_e * 0.5 * x * x,
            1e-12,
            "d/dk (k x + d_e k x^2 / 2)",
        );
        let mut de = [0.0];
        s.energy_jvp(x, &mut e, Spring { k: 1.0 }, &mut de);
        assert_close(de[0], 0.5 * x * x, 1e-12, "tangent of e along k");
    }
}
