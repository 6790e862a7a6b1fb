//! A `Differentiable` struct's array field passed on whole to another `#[differentiable]` function
//! (session 41's outside trial): by value (`loss_with(o.k * s, o.x0)`, `x0: [f64; 2]`), where the
//! tangent sweep's zero of the field input was `constant_zero` of a scalar (rustc's E0277 on
//! `ConstantZero`), with by-reference controls (`&o.x0`, `&h.v` of a `Vec<f64>` field).
//!
//! Each gradient against central differences on seeded points and by hand, `_grad_into` bit for bit
//! equal to `_grad`, `_vjp` and `_jvp` against the gradient, and at `order = 2` the Hessian against
//! central differences of `_grad` (through `common::contract::audit`).

mod common;

use autodiff::{differentiable, Differentiable};
use common::contract::{audit, Items};
use common::{points, same_bits};

#[derive(Clone, Debug, Differentiable)]
pub struct Osc {
    pub k: f64,
    pub x0: [f64; 2],
}

#[differentiable]
pub fn loss_with(k: f64, x0: [f64; 2]) -> f64 {
    k * x0[0] * x0[0] + x0[1].sin() * k
}

/// The repro: the array field on whole, by value.
#[differentiable]
pub fn sweep2(o: &Osc, s: f64) -> f64 {
    loss_with(o.k * s, o.x0)
}

#[differentiable]
pub fn loss_ref(k: f64, x0: &[f64; 2]) -> f64 {
    k * x0[0] * x0[0] + x0[1].sin() * k
}

/// Control: the array field by reference.
#[differentiable]
pub fn sweep2_ref(o: &Osc, s: f64) -> f64 {
    loss_ref(o.k * s, &o.x0)
}

#[derive(Clone, Debug, Differentiable)]
pub struct H {
    pub v: Vec<f64>,
}

#[differentiable]
pub fn horner_f64(c: &[f64], t: f64) -> f64 {
    let mut acc = 0.0;
    for &ci in c.iter().rev() {
        acc = acc * t + ci;
    }
    acc
}

/// Control: a `Vec<f64>` field by reference to an `f64` helper, at `order = 2`.
#[differentiable(order = 2)]
pub fn b_f64(h: &H, t: f64) -> f64 {
    horner_f64(&h.v, t).sin()
}

/// `(o, s)` from flat `[k, x0[0], x0[1], s]`.
fn osc(x: &[f64]) -> (Osc, f64) {
    (
        Osc {
            k: x[0],
            x0: [x[1], x[2]],
        },
        x[3],
    )
}

fn flat(g: &(Osc, f64)) -> Vec<f64> {
    let mut v = g.0.to_flat();
    v.push(g.1);
    v
}

/// `k s x0[0]^2 + k s sin(x0[1])` by hand, over `[k, x0[0], x0[1], s]`.
fn sweep_by_hand(x: &[f64]) -> Vec<f64> {
    let (k, a, b, s) = (x[0], x[1], x[2], x[3]);
    let inner = a * a + b.sin();
    vec![s * inner, 2.0 * k * s * a, k * s * b.cos(), k * inner]
}

/// The items of a function of `(o, s)`.
type OscGrad<'a> = &'a dyn Fn(&Osc, f64) -> (f64, (Osc, f64));
type OscVjp<'a> = &'a dyn Fn(&Osc, f64, f64) -> (f64, (Osc, f64));
type OscJvp<'a> = &'a dyn Fn(&Osc, f64, (Osc, f64)) -> (f64, f64);
type OscInto<'a> = &'a dyn Fn(&Osc, f64, (&mut Osc, &mut f64)) -> f64;

fn osc_items<'a>(
    what: &'a str,
    primal: &'a dyn Fn(&Osc, f64) -> f64,
    grad: OscGrad<'a>,
    vjp: OscVjp<'a>,
    jvp: OscJvp<'a>,
    grad_into: OscInto<'a>,
) -> impl Fn(&[Vec<f64>]) + 'a {
    move |pts| {
        let grad_flat = |x: &[f64]| {
            let (o, s) = osc(x);
            let (v, g) = grad(&o, s);
            (v, flat(&g))
        };
        let into_flat = |x: &[f64]| {
            let (o, s) = osc(x);
            let mut b = Osc {
                k: f64::NAN,
                x0: [f64::NAN; 2],
            };
            let mut bs = f64::NAN;
            let v = grad_into(&o, s, (&mut b, &mut bs));
            (v, flat(&(b, bs)))
        };
        for x in pts {
            same_bits(&into_flat(x).1, &grad_flat(x).1, what);
        }
        audit(
            &Items {
                what,
                primal: &|x| {
                    let (o, s) = osc(x);
                    primal(&o, s)
                },
                grad: &grad_flat,
                vjp: &|x, d| {
                    let (o, s) = osc(x);
                    let (v, g) = vjp(&o, s, d);
                    (v, flat(&g))
                },
                jvp: &|x, t| {
                    let (o, s) = osc(x);
                    let (to, ts) = osc(t);
                    jvp(&o, s, (to, ts))
                },
                grad_into: &into_flat,
                hvp: None,
                hessian: None,
                analytic: Some(&sweep_by_hand),
            },
            pts,
        );
    }
}

#[test]
fn array_field_by_value_at_first_order() {
    let pts = points(4101, 4, 12, -1.5, 1.5);
    for x in &pts {
        let (o, s) = osc(x);
        assert_eq!(sweep2(&o, s), loss_with(o.k * s, o.x0));
    }
    osc_items(
        "sweep2",
        &sweep2,
        &sweep2_grad,
        &sweep2_vjp,
        &sweep2_jvp,
        &sweep2_grad_into,
    )(&pts);
}

#[test]
fn array_field_by_reference_at_first_order() {
    let pts = points(4102, 4, 12, -1.5, 1.5);
    osc_items(
        "sweep2_ref",
        &sweep2_ref,
        &sweep2_ref_grad,
        &sweep2_ref_vjp,
        &sweep2_ref_jvp,
        &sweep2_ref_grad_into,
    )(&pts);
}

/// `sin(sum c_i t^i)`'s gradient by hand over `[c.., t]`.
fn b_by_hand(x: &[f64]) -> Vec<f64> {
    let (c, t) = (&x[..x.len() - 1], x[x.len() - 1]);
    let p: f64 = c
        .iter()
        .enumerate()
        .map(|(i, ci)| ci * t.powi(i as i32))
        .sum();
    let dp: f64 = (c.iter().enumerate().skip(1))
        .map(|(i, ci)| i as f64 * ci * t.powi(i as i32 - 1))
        .sum();
    let mut g: Vec<f64> = (0..c.len()).map(|i| p.cos() * t.powi(i as i32)).collect();
    g.push(p.cos() * dp);
    g
}

fn h_of(x: &[f64]) -> (H, f64) {
    (
        H {
            v: x[..x.len() - 1].to_vec(),
        },
        x[x.len() - 1],
    )
}

fn h_flat(g: &(H, f64)) -> Vec<f64> {
    let mut v = g.0.to_flat();
    v.push(g.1);
    v
}

/// `b_f64`'s items on flat `[v.., t]`.
macro_rules! audit_b {
    ($f:ident, $grad:ident, $vjp:ident, $jvp:ident, $into:ident, $hvp:ident, $hessian:ident, $seed:expr) => {{
        let pts = points($seed, 4, 12, -1.0, 1.0);
        for x in &pts {
            let (h, t) = h_of(x);
            let (_, g) = $grad(&h, t);
            let mut bh = H {
                v: vec![f64::NAN; 3],
            };
            let mut bt = f64::NAN;
            $into(&h, t, (&mut bh, &mut bt));
            same_bits(&h_flat(&(bh, bt)), &h_flat(&g), stringify!($f));
        }
        audit(
            &Items {
                what: stringify!($f),
                primal: &|x| {
                    let (h, t) = h_of(x);
                    $f(&h, t)
                },
                grad: &|x| {
                    let (h, t) = h_of(x);
                    let (v, g) = $grad(&h, t);
                    (v, h_flat(&g))
                },
                vjp: &|x, d| {
                    let (h, t) = h_of(x);
                    let (v, g) = $vjp(&h, t, d);
                    (v, h_flat(&g))
                },
                jvp: &|x, tg| {
                    let (h, t) = h_of(x);
                    let (th, tt) = h_of(tg);
                    $jvp(&h, t, (th, tt))
                },
                grad_into: &|x| {
                    let (h, t) = h_of(x);
                    let mut bh = H { v: vec![0.0; 3] };
                    let mut bt = 0.0;
                    let v = $into(&h, t, (&mut bh, &mut bt));
                    (v, h_flat(&(bh, bt)))
                },
                hvp: Some(&|x, v| {
                    let (h, t) = h_of(x);
                    let (vh, vt) = h_of(v);
                    let (f, g, hv) = $hvp(&h, t, (vh, vt));
                    (f, h_flat(&g), h_flat(&hv))
                }),
                hessian: Some(&|x| {
                    let (h, t) = h_of(x);
                    let (f, g, hm) = $hessian(&h, t);
                    (f, h_flat(&g), hm)
                }),
                analytic: Some(&b_by_hand),
            },
            &pts,
        );
    }};
}

#[test]
fn vec_field_by_reference_to_an_f64_helper_at_order_2() {
    audit_b!(
        b_f64,
        b_f64_grad,
        b_f64_vjp,
        b_f64_jvp,
        b_f64_grad_into,
        b_f64_hvp,
        b_f64_hessian,
        4103
    );
}

#[differentiable(order = 2)]
pub fn loss_with2(k: f64, x0: [f64; 2]) -> f64 {
    k * x0[0] * x0[0] + x0[1].sin() * k
}

/// The repro at `order = 2`, every input active.
#[differentiable(order = 2)]
pub fn sweep2_o2(o: &Osc, s: f64) -> f64 {
    loss_with2(o.k * s, o.x0)
}

impl Osc {
    #[differentiable(order = 2)]
    pub fn loss_with(k: f64, x0: [f64; 2]) -> f64 {
        k * x0[0] * x0[0] + x0[1].sin() * k
    }

    /// The associated function the same way, `wrt(s)`, at `order = 2`.
    #[differentiable(wrt(s), order = 2)]
    pub fn sweep_s(o: &Osc, s: f64) -> f64 {
        Osc::loss_with(o.k * s, o.x0)
    }
}

#[test]
fn array_field_by_value_at_order_2() {
    let pts = points(4106, 4, 12, -1.5, 1.5);
    for x in &pts {
        let (o, s) = osc(x);
        assert_eq!(sweep2_o2(&o, s), sweep2(&o, s));
    }
    osc_items(
        "sweep2_o2",
        &sweep2_o2,
        &sweep2_o2_grad,
        &sweep2_o2_vjp,
        &sweep2_o2_jvp,
        &sweep2_o2_grad_into,
    )(&pts);
    // The Hessian against central differences of `_grad`, and `_hvp` against it.
    audit(
        &Items {
            what: "sweep2_o2 at order 2",
            primal: &|x| {
                let (o, s) = osc(x);
                sweep2_o2(&o, s)
            },
            grad: &|x| {
                let (o, s) = osc(x);
                let (v, g) = sweep2_o2_grad(&o, s);
                (v, flat(&g))
            },
            vjp: &|x, d| {
                let (o, s) = osc(x);
                let (v, g) = sweep2_o2_vjp(&o, s, d);
                (v, flat(&g))
            },
            jvp: &|x, t| {
                let (o, s) = osc(x);
                sweep2_o2_jvp(&o, s, osc(t))
            },
            grad_into: &|x| {
                let (o, s) = osc(x);
                let (mut b, mut bs) = (o.zero_like(), 0.0);
                let v = sweep2_o2_grad_into(&o, s, (&mut b, &mut bs));
                (v, flat(&(b, bs)))
            },
            hvp: Some(&|x, v| {
                let (o, s) = osc(x);
                let (f, g, hv) = sweep2_o2_hvp(&o, s, osc(v));
                (f, flat(&g), flat(&hv))
            }),
            hessian: Some(&|x| {
                let (o, s) = osc(x);
                let (f, g, h) = sweep2_o2_hessian(&o, s);
                (f, flat(&g), h)
            }),
            analytic: Some(&sweep_by_hand),
        },
        &pts,
    );
}

#[test]
fn array_field_by_value_to_an_associated_function_with_wrt_at_order_2() {
    let pts = points(4107, 4, 12, -1.5, 1.5);
    for x in &pts {
        let (o, s) = osc(x);
        let (v, g) = Osc::sweep_s_grad(&o, s);
        assert_eq!(v, sweep2(&o, s));
        let mut b = f64::NAN;
        Osc::sweep_s_grad_into(&o, s, &mut b);
        same_bits(&[b], &[g], "Osc::sweep_s");
    }
    // Over `s` alone, the struct a constant: one audit per seeded struct.
    for x in &pts {
        let (o, s) = osc(x);
        let by_hand = |y: &[f64]| vec![sweep_by_hand(&[o.k, o.x0[0], o.x0[1], y[0]])[3]];
        audit(
            &Items {
                what: "Osc::sweep_s",
                primal: &|y| Osc::sweep_s(&o, y[0]),
                grad: &|y| {
                    let (v, g) = Osc::sweep_s_grad(&o, y[0]);
                    (v, vec![g])
                },
                vjp: &|y, d| {
                    let (v, g) = Osc::sweep_s_vjp(&o, y[0], d);
                    (v, vec![g])
                },
                jvp: &|y, t| Osc::sweep_s_jvp(&o, y[0], t[0]),
                grad_into: &|y| {
                    let mut b = 0.0;
                    let v = Osc::sweep_s_grad_into(&o, y[0], &mut b);
                    (v, vec![b])
                },
                hvp: Some(&|y, v| {
                    let (f, g, hv) = Osc::sweep_s_hvp(&o, y[0], v[0]);
                    (f, vec![g], vec![hv])
                }),
                hessian: Some(&|y| {
                    let (f, g, h) = Osc::sweep_s_hessian(&o, y[0]);
                    (f, vec![g], h)
                }),
                analytic: Some(&by_hand),
            },
            &[vec![s], vec![s + 0.37]],
        );
    }
}
