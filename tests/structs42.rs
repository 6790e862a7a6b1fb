//! `Differentiable` structs and `#[no_grad]` fields (structs42):
//! - a struct's `Vec`, array or matrix field passed on whole to a GENERIC differentiable function
//!   (`horner<T: Float>(c: &[T], x: T)`, `quad_form<T: Float>(m: &[Vec<T>], x: &[T])`) from a function of
//!   the struct at `order = 2` (its hidden `__f_pairs`, `struct_whole::pairs::plain`, was made only for
//!   functions without type parameters: rustc's E0432 on `__horner_pairs`);
//! - `match` arms binding a variant's fields (`Act::LeakyRelu(slope)`) of a `#[no_grad]` enum field or an
//!   enum parameter: constants of the arm (before, an error: "a pattern with fields is not supported");
//! - a struct declared in one inline module and imported into another by `use super::model::Layer;` is
//!   what the file declares (`context::declared_at` follows the `use`): its `#[no_grad]` enum field is a
//!   constant there, its array fields are passed on whole (before, an imported struct: `match` on the field
//!   was an error, `==` rustc's E0308).
//!
//! Gradients are checked against central differences of the plain functions on seeded points (and by hand
//! where easy), Hessians against central differences of `_grad`.

#![allow(dead_code, clippy::needless_range_loop)]

mod common;

use autodiff::{differentiable, Differentiable, Float};
use common::{assert_all_close, assert_close, assert_fd_gradient, assert_hessian_fd, points};

/// Checks a function of flat inputs at each point: `grad` (value, gradient) against central differences
/// of `f`, and `hessian` (value, gradient, Hessian) against `grad` and central differences of it.
#[track_caller]
fn check_order2(
    what: &str,
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> (f64, Vec<f64>),
    hessian: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    pts: &[Vec<f64>],
) {
    assert!(pts.len() >= 10);
    for x in pts {
        let (v, g) = grad(x);
        assert_close(
            v,
            f(x),
            1e-12,
            &format!("{what}: the value of _grad at {x:?}"),
        );
        assert_fd_gradient(&f, x, &g, &format!("{what}_grad"));
        let (hv, hg, h) = hessian(x);
        assert_close(hv, v, 1e-12, &format!("{what}: the value of _hessian"));
        assert_all_close(&hg, &g, 1e-10, &format!("{what}: the gradient of _hessian"));
        assert_hessian_fd(
            &h,
            |y| grad(y).1,
            x,
            1e-5,
            &format!("{what}_hessian at {x:?}"),
        );
        // A Hessian is symmetric.
        for i in 0..h.len() {
            for j in 0..i {
                assert_close(h[i][j], h[j][i], 1e-10, &format!("{what}: symmetry"));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// 1. Fields passed on whole to generic functions at `order = 2`.

/// Horner's rule, generic over its float type.
#[differentiable]
pub fn horner<T: Float>(c: &[T], x: T) -> T {
    let mut acc = T::zero();
    for &ci in c.iter().rev() {
        acc = acc * x + ci;
    }
    acc
}

/// `x^T m x`, generic, of a matrix.
#[differentiable]
pub fn quad_form<T: Float>(m: &[Vec<T>], x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..m.len() {
        for j in 0..x.len() {
            s = s + x[i] * m[i][j] * x[j];
        }
    }
    s
}

/// A polynomial's coefficients (a `Vec` and an array) and a scale.
#[derive(Clone, Debug, Differentiable)]
pub struct Poly {
    pub c: Vec<f64>,
    pub d: [f64; 3],
    pub s: f64,
}

/// The `Vec` and the array field by reference to the generic helper, every input active.
#[differentiable(order = 2)]
pub fn poly_at(p: &Poly, x: f64) -> f64 {
    (horner(&p.c, x) * p.s).sin() + horner(&p.d, x) * x
}

impl Poly {
    /// A method with `wrt(self)`, the same helper.
    #[differentiable(wrt(self), order = 2)]
    pub fn at(&self, x: f64) -> f64 {
        let h = horner(&self.c, x);
        h * h * self.s + horner(&self.d, 0.5 * x)
    }
}

fn horner_plain(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, ci| acc * x + ci)
}

/// `[c0 c1 c2 c3, d0 d1 d2, s, x]` as the polynomial and `x`.
fn poly_of(z: &[f64]) -> (Poly, f64) {
    let p = Poly {
        c: z[..4].to_vec(),
        d: [z[4], z[5], z[6]],
        s: z[7],
    };
    (p, z[8])
}

#[test]
fn vec_and_array_fields_to_a_generic_helper_at_order_2() {
    let pts = points(42_001, 9, 12, -1.0, 1.0);
    let f = |z: &[f64]| {
        let (p, x) = poly_of(z);
        (horner_plain(&p.c, x) * p.s).sin() + horner_plain(&p.d, x) * x
    };
    check_order2(
        "poly_at",
        f,
        |z| {
            let (p, x) = poly_of(z);
            let (v, (gp, gx)) = poly_at_grad(&p, x);
            let mut g = gp.to_flat();
            g.push(gx);
            (v, g)
        },
        |z| {
            let (p, x) = poly_of(z);
            let (v, (gp, gx), h) = poly_at_hessian(&p, x);
            let mut g = gp.to_flat();
            g.push(gx);
            (v, g, h)
        },
        &pts,
    );
    // The gradient in `x` by hand: cos(h s) s h' + h_d + x h_d'.
    for z in &pts {
        let (p, x) = poly_of(z);
        let dh = |c: &[f64]| {
            (1..c.len())
                .map(|i| i as f64 * c[i] * x.powi(i as i32 - 1))
                .sum::<f64>()
        };
        let expected = (horner_plain(&p.c, x) * p.s).cos() * p.s * dh(&p.c)
            + horner_plain(&p.d, x)
            + x * dh(&p.d);
        assert_close(
            poly_at_grad(&p, x).1 .1,
            expected,
            1e-12,
            "poly_at_grad in x by hand",
        );
    }
}

#[test]
fn a_method_passes_its_fields_to_a_generic_helper_at_order_2() {
    let pts = points(42_002, 9, 12, -1.0, 1.0);
    let x_of = |z: &[f64]| z[8];
    let f = |z: &[f64]| {
        let (p, x) = poly_of(z);
        let h = horner_plain(&p.c, x);
        h * h * p.s + horner_plain(&p.d, 0.5 * x)
    };
    // `wrt(self)`: the flat inputs are the struct's, `x` fixed.
    for (k, z) in pts.iter().enumerate() {
        let x = x_of(z);
        let fp = |w: &[f64]| {
            let mut y = w.to_vec();
            y.push(x);
            f(&y)
        };
        let grad = |w: &[f64]| {
            let (p, _) = poly_of(&[w, &[x]].concat());
            let (v, g) = p.at_grad(x);
            (v, g.to_flat())
        };
        let hessian = |w: &[f64]| {
            let (p, _) = poly_of(&[w, &[x]].concat());
            let (v, g, h) = p.at_hessian(x);
            (v, g.to_flat(), h)
        };
        check_order2(
            "Poly::at",
            fp,
            grad,
            hessian,
            &points(42_100 + k as u64, 8, 10, -1.0, 1.0),
        );
    }
}

/// A quadratic form's matrix and a scale.
#[derive(Clone, Debug, Differentiable)]
pub struct Form {
    pub m: Vec<Vec<f64>>,
    pub k: f64,
}

/// The matrix field by reference to the generic helper of a matrix.
#[differentiable(order = 2)]
pub fn form_energy(p: &Form, x: &[f64]) -> f64 {
    let q = quad_form(&p.m, x);
    p.k * q * q + q.sin()
}

/// `[m00 m01 m10 m11, k, x0 x1]`.
fn form_of(z: &[f64]) -> (Form, Vec<f64>) {
    let p = Form {
        m: vec![vec![z[0], z[1]], vec![z[2], z[3]]],
        k: z[4],
    };
    (p, z[5..7].to_vec())
}

#[test]
fn a_matrix_field_to_a_generic_helper_at_order_2() {
    let pts = points(42_003, 7, 12, -1.0, 1.0);
    let f = |z: &[f64]| {
        let (p, x) = form_of(z);
        let mut q = 0.0;
        for i in 0..2 {
            for j in 0..2 {
                q += x[i] * p.m[i][j] * x[j];
            }
        }
        p.k * q * q + q.sin()
    };
    check_order2(
        "form_energy",
        f,
        |z| {
            let (p, x) = form_of(z);
            let (v, (gp, gx)) = form_energy_grad(&p, &x);
            let mut g = gp.to_flat();
            g.extend(gx);
            (v, g)
        },
        |z| {
            let (p, x) = form_of(z);
            let (v, (gp, gx), h) = form_energy_hessian(&p, &x);
            let mut g = gp.to_flat();
            g.extend(gx);
            (v, g, h)
        },
        &pts,
    );
}

// ---------------------------------------------------------------------------------------------------
// 2. `match` arms binding the fields of a `#[no_grad]` enum field (or an enum parameter): constants.

/// An activation, with constants of its own in two of its variants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Act {
    Tanh,
    LeakyRelu(f64),
    Affine { k: f64, off: f64 },
    Power(i32, f64),
}

/// The activation of a float, the enum a parameter (data).
#[differentiable(order = 2)]
pub fn activate(z: f64, act: Act) -> f64 {
    match act {
        Act::Tanh => z.tanh(),
        Act::LeakyRelu(slope) => {
            if z > 0.0 {
                z
            } else {
                slope * z
            }
        }
        Act::Affine { k, off } => k * z + off,
        Act::Power(n, c) => c * z.powi(n),
    }
}

fn activate_plain(z: f64, act: Act) -> f64 {
    match act {
        Act::Tanh => z.tanh(),
        Act::LeakyRelu(s) => {
            if z > 0.0 {
                z
            } else {
                s * z
            }
        }
        Act::Affine { k, off } => k * z + off,
        Act::Power(n, c) => c * z.powi(n),
    }
}

/// The derivative of the activation at `z`, by hand.
fn activate_slope(z: f64, act: Act) -> f64 {
    match act {
        Act::Tanh => 1.0 - z.tanh() * z.tanh(),
        Act::LeakyRelu(s) => {
            if z > 0.0 {
                1.0
            } else {
                s
            }
        }
        Act::Affine { k, .. } => k,
        Act::Power(n, c) => c * n as f64 * z.powi(n - 1),
    }
}

/// Its second derivative, by hand.
fn activate_curvature(z: f64, act: Act) -> f64 {
    match act {
        Act::Tanh => -2.0 * z.tanh() * (1.0 - z.tanh() * z.tanh()),
        Act::LeakyRelu(_) | Act::Affine { .. } => 0.0,
        Act::Power(n, c) => c * (n * (n - 1)) as f64 * z.powi(n - 2),
    }
}

const ACTS: [Act; 5] = [
    Act::Tanh,
    Act::LeakyRelu(0.1),
    Act::Affine { k: -1.5, off: 0.25 },
    Act::Power(3, 0.5),
    Act::LeakyRelu(2.5),
];

#[test]
fn an_enum_parameter_binds_its_fields_in_match_arms() {
    for (k, act) in ACTS.iter().enumerate() {
        for p in points(42_010 + k as u64, 1, 12, -1.5, 1.5) {
            // Away from the kink of the leaky ReLU.
            let z = if p[0].abs() < 1e-3 { 0.5 } else { p[0] };
            let (v, g) = activate_grad(z, *act);
            assert_close(v, activate_plain(z, *act), 1e-15, "activate");
            assert_close(g, activate_slope(z, *act), 1e-12, "activate_grad by hand");
            assert_fd_gradient(|x| activate_plain(x[0], *act), &[z], &[g], "activate_grad");
            let (_, _, h) = activate_hessian(z, *act);
            let h = h[0][0];
            assert_close(
                h,
                activate_curvature(z, *act),
                1e-12,
                "activate_hessian by hand",
            );
            let dg = common::central_difference(|x| activate_grad(x, *act).1, z);
            assert_close(h, dg, 1e-6, "activate_hessian against differences of _grad");
        }
    }
}

/// One unit with its activation a `#[no_grad]` field.
#[derive(Clone, Debug, Differentiable)]
pub struct Unit {
    pub w: Vec<f64>,
    pub b: f64,
    #[no_grad]
    pub act: Act,
}

impl Unit {
    /// The task's repro: `match self.act` with a tuple variant's slope, `wrt(self)`, first order.
    #[differentiable(wrt(self))]
    pub fn forward(&self, x: &[f64]) -> f64 {
        let mut z = self.b;
        for i in 0..x.len() {
            z += self.w[i] * x[i];
        }
        match self.act {
            Act::Tanh => z.tanh(),
            Act::LeakyRelu(slope) => {
                if z > 0.0 {
                    z
                } else {
                    slope * z
                }
            }
            Act::Affine { k, off } => k * z + off,
            Act::Power(n, c) => c * z.powi(n),
        }
    }

    /// The same at `order = 2`, the struct's Hessian.
    #[differentiable(wrt(self), order = 2)]
    pub fn forward2(&self, x: &[f64]) -> f64 {
        let mut z = self.b;
        for i in 0..x.len() {
            z += self.w[i] * x[i];
        }
        let a = match self.act {
            Act::Tanh => z.tanh(),
            Act::LeakyRelu(slope) => {
                if z > 0.0 {
                    z
                } else {
                    slope * z
                }
            }
            Act::Affine { k, off } => k * z + off,
            Act::Power(n, c) => c * z.powi(n),
        };
        a * a
    }
}

/// A free function of the unit at `order = 2`, every input active, the arms' constants in a product.
#[differentiable(order = 2)]
pub fn unit_energy(p: &Unit, x: &[f64]) -> f64 {
    let mut z = p.b;
    for i in 0..x.len() {
        z += p.w[i] * x[i];
    }
    let s = match p.act {
        Act::LeakyRelu(slope) => slope * z * z,
        Act::Affine { k, .. } => (k * z).sin(),
        Act::Power(n, _) => z.powi(n),
        Act::Tanh => z.tanh(),
    };
    s + z
}

/// Two units, each passed on whole to `unit_energy` (through its hidden function over the struct's
/// values).
#[derive(Clone, Debug, Differentiable)]
pub struct Pair {
    pub first: Unit,
    pub second: Unit,
}

#[differentiable(order = 2)]
pub fn pair_energy(p: &Pair, x: &[f64]) -> f64 {
    unit_energy(&p.first, x) * unit_energy(&p.second, x)
}

fn unit_plain(w: &[f64], b: f64, act: Act, x: &[f64]) -> f64 {
    activate_plain(b + w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>(), act)
}

fn unit_energy_plain(w: &[f64], b: f64, act: Act, x: &[f64]) -> f64 {
    let z = b + w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
    let s = match act {
        Act::LeakyRelu(slope) => slope * z * z,
        Act::Affine { k, .. } => (k * z).sin(),
        Act::Power(n, _) => z.powi(n),
        Act::Tanh => z.tanh(),
    };
    s + z
}

/// `[w0 w1 w2, b]` as a unit of the activation.
fn unit_of(z: &[f64], act: Act) -> Unit {
    Unit {
        w: z[..3].to_vec(),
        b: z[3],
        act,
    }
}

#[test]
fn a_method_binds_the_fields_of_its_enum_field() {
    for (k, act) in ACTS.iter().enumerate() {
        let x = points(42_020 + k as u64, 3, 1, -1.0, 1.0).remove(0);
        let pts = points(42_030 + k as u64, 4, 12, -1.0, 1.0);
        let f = |z: &[f64]| unit_plain(&z[..3], z[3], *act, &x);
        for z in &pts {
            let u = unit_of(z, *act);
            let (v, g) = u.forward_grad(&x);
            assert_close(v, f(z), 1e-14, "forward");
            assert_eq!(g.act, *act, "the gradient copies the enum field");
            assert_fd_gradient(f, z, &g.to_flat(), "Unit::forward_grad");
            // By hand: the activation's slope times (x, 1).
            let pre = z[3] + (0..3).map(|i| z[i] * x[i]).sum::<f64>();
            let slope = activate_slope(pre, *act);
            let mut expected: Vec<f64> = x.iter().map(|xi| slope * xi).collect();
            expected.push(slope);
            assert_all_close(&g.to_flat(), &expected, 1e-12, "Unit::forward_grad by hand");
        }
        check_order2(
            "Unit::forward2",
            |z| f(z) * f(z),
            |z| {
                let (v, g) = unit_of(z, *act).forward2_grad(&x);
                (v, g.to_flat())
            },
            |z| {
                let (v, g, h) = unit_of(z, *act).forward2_hessian(&x);
                (v, g.to_flat(), h)
            },
            &pts,
        );
    }
}

#[test]
fn a_free_function_binds_the_fields_of_its_enum_field_at_order_2() {
    for (k, act) in ACTS.iter().enumerate() {
        // `[w0 w1 w2, b, x0 x1 x2]`.
        let pts = points(42_040 + k as u64, 7, 12, -1.0, 1.0);
        check_order2(
            "unit_energy",
            |z| unit_energy_plain(&z[..3], z[3], *act, &z[4..]),
            |z| {
                let (v, (g, gx)) = unit_energy_grad(&unit_of(z, *act), &z[4..]);
                assert_eq!(g.act, *act);
                let mut g = g.to_flat();
                g.extend(gx);
                (v, g)
            },
            |z| {
                let (v, (g, gx), h) = unit_energy_hessian(&unit_of(z, *act), &z[4..]);
                let mut g = g.to_flat();
                g.extend(gx);
                (v, g, h)
            },
            &pts,
        );
    }
}

#[test]
fn units_passed_on_whole_bind_the_fields_of_their_enum_fields_at_order_2() {
    for k in 0..ACTS.len() {
        let (a1, a2) = (ACTS[k], ACTS[(k + 2) % ACTS.len()]);
        // `[first: w0 w1 w2 b, second: w0 w1 w2 b, x0 x1 x2]`.
        let pts = points(42_050 + k as u64, 11, 12, -1.0, 1.0);
        let pair = |z: &[f64]| Pair {
            first: unit_of(&z[..4], a1),
            second: unit_of(&z[4..8], a2),
        };
        check_order2(
            "pair_energy",
            |z| {
                unit_energy_plain(&z[..3], z[3], a1, &z[8..])
                    * unit_energy_plain(&z[4..7], z[7], a2, &z[8..])
            },
            |z| {
                let (v, (g, gx)) = pair_energy_grad(&pair(z), &z[8..]);
                let mut g = g.to_flat();
                g.extend(gx);
                (v, g)
            },
            |z| {
                let (v, (g, gx), h) = pair_energy_hessian(&pair(z), &z[8..]);
                let mut g = g.to_flat();
                g.extend(gx);
                (v, g, h)
            },
            &pts,
        );
    }
}

// ---------------------------------------------------------------------------------------------------
// 4. A struct declared in one inline module, imported into another by `use`.

pub mod model {
    use autodiff::Differentiable;

    /// An activation of the model's own.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Gate {
        Sin,
        Scaled(f64),
        Off,
    }

    /// A neuron: an array field, a `Vec` field, a scalar and the gate.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Neuron {
        pub w: [f64; 3],
        pub v: Vec<f64>,
        pub b: f64,
        #[no_grad]
        pub gate: Gate,
        #[no_grad]
        pub n: usize,
    }
}

pub mod train {
    use super::model::{Gate, Neuron};
    use autodiff::differentiable;

    /// A dot product of slices, to which the neuron's array field is passed on whole.
    #[differentiable]
    pub fn dot3(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * b[i];
        }
        s
    }

    /// `match`, `==` and a count of the imported struct's constant fields, at first order.
    #[differentiable(wrt(c))]
    pub fn gate(c: &Neuron, x: &[f64]) -> f64 {
        let z = dot3(&c.w, x) + c.b;
        let g = match c.gate {
            Gate::Sin => z.sin(),
            Gate::Scaled(k) => k * z,
            Gate::Off => 0.0 * z,
        };
        if c.gate == Gate::Off {
            g + c.b * c.b
        } else {
            g * c.n as f64
        }
    }

    /// The same at `order = 2`, with the `Vec` field passed on whole too.
    #[differentiable(order = 2)]
    pub fn gate2(c: &Neuron, x: &[f64]) -> f64 {
        let z = dot3(&c.w, x) + c.b + dot3(&c.v, x);
        let g = match c.gate {
            Gate::Sin => z.sin(),
            Gate::Scaled(k) => k * z * z,
            Gate::Off => z,
        };
        if c.gate != Gate::Off {
            g * c.n as f64
        } else {
            g * c.b
        }
    }
}

/// By a `crate::` path, from a module nested two deep.
pub mod outer {
    pub mod deep {
        use crate::model::Gate;
        use crate::model::Neuron as C;
        use autodiff::differentiable;

        impl C {
            #[differentiable(wrt(self), order = 2)]
            pub fn energy(&self, x: f64) -> f64 {
                let s = self.w[0] * x + self.w[1] * self.w[2] + self.b;
                match self.gate {
                    Gate::Scaled(k) => k * s * s,
                    Gate::Sin => s.sin(),
                    Gate::Off => s,
                }
            }
        }

        /// A free function of the renamed import.
        #[differentiable(order = 2, wrt(c))]
        pub fn deep_energy(c: &C, x: f64) -> f64 {
            c.energy(x) * c.b
        }
    }
}

const GATES: [model::Gate; 4] = [
    model::Gate::Sin,
    model::Gate::Scaled(0.5),
    model::Gate::Off,
    model::Gate::Scaled(-2.0),
];

/// `[w0 w1 w2, v0 v1 v2, b]` as a neuron.
fn neuron_of(z: &[f64], gate: model::Gate, n: usize) -> model::Neuron {
    model::Neuron {
        w: [z[0], z[1], z[2]],
        v: z[3..6].to_vec(),
        b: z[6],
        gate,
        n,
    }
}

fn gate_plain(c: &model::Neuron, x: &[f64], with_v: bool) -> f64 {
    use model::Gate;
    let mut z = c.b + (0..3).map(|i| c.w[i] * x[i]).sum::<f64>();
    if with_v {
        z += (0..3).map(|i| c.v[i] * x[i]).sum::<f64>();
        let g = match c.gate {
            Gate::Sin => z.sin(),
            Gate::Scaled(k) => k * z * z,
            Gate::Off => z,
        };
        return if c.gate != Gate::Off {
            g * c.n as f64
        } else {
            g * c.b
        };
    }
    let g = match c.gate {
        Gate::Sin => z.sin(),
        Gate::Scaled(k) => k * z,
        Gate::Off => 0.0,
    };
    if c.gate == Gate::Off {
        g + c.b * c.b
    } else {
        g * c.n as f64
    }
}

#[test]
fn a_struct_imported_from_a_module_of_the_file_at_first_order() {
    for (k, gate) in GATES.iter().enumerate() {
        let x = points(42_060 + k as u64, 3, 1, -1.0, 1.0).remove(0);
        for z in &points(42_070 + k as u64, 7, 12, -1.0, 1.0) {
            let c = neuron_of(z, *gate, 1 + k);
            let (v, g) = train::gate_grad(&c, &x);
            assert_close(v, gate_plain(&c, &x, false), 1e-14, "gate");
            assert_eq!(
                (g.gate, g.n),
                (*gate, 1 + k),
                "the gradient copies the constant fields"
            );
            let f = |y: &[f64]| gate_plain(&neuron_of(y, *gate, 1 + k), &x, false);
            assert_fd_gradient(f, z, &g.to_flat(), "train::gate_grad");
        }
    }
}

#[test]
fn a_struct_imported_from_a_module_of_the_file_at_order_2() {
    for (k, gate) in GATES.iter().enumerate() {
        // `[w0 w1 w2, v0 v1 v2, b, x0 x1 x2]`.
        let pts = points(42_080 + k as u64, 10, 12, -1.0, 1.0);
        check_order2(
            "train::gate2",
            |z| gate_plain(&neuron_of(z, *gate, 2 + k), &z[7..], true),
            |z| {
                let (v, (g, gx)) = train::gate2_grad(&neuron_of(z, *gate, 2 + k), &z[7..]);
                let mut g = g.to_flat();
                g.extend(gx);
                (v, g)
            },
            |z| {
                let (v, (g, gx), h) = train::gate2_hessian(&neuron_of(z, *gate, 2 + k), &z[7..]);
                let mut g = g.to_flat();
                g.extend(gx);
                (v, g, h)
            },
            &pts,
        );
    }
}

#[test]
fn a_struct_imported_by_a_crate_path_and_renamed_at_order_2() {
    use model::Gate;
    let energy = |c: &model::Neuron, x: f64| {
        let s = c.w[0] * x + c.w[1] * c.w[2] + c.b;
        match c.gate {
            Gate::Scaled(k) => k * s * s,
            Gate::Sin => s.sin(),
            Gate::Off => s,
        }
    };
    for (k, gate) in GATES.iter().enumerate() {
        let x = 0.3 + 0.2 * k as f64;
        // The neuron's flat values, `[w0 w1 w2, v0 v1 v2, b]` (`v` unread: its gradient zero).
        let pts = points(42_090 + k as u64, 7, 12, -1.0, 1.0);
        check_order2(
            "Neuron::energy",
            |z| energy(&neuron_of(z, *gate, 1), x),
            |z| {
                let (v, g) = neuron_of(z, *gate, 1).energy_grad(x);
                (v, g.to_flat())
            },
            |z| {
                let (v, g, h) = neuron_of(z, *gate, 1).energy_hessian(x);
                (v, g.to_flat(), h)
            },
            &pts,
        );
        check_order2(
            "deep_energy",
            |z| energy(&neuron_of(z, *gate, 1), x) * z[6],
            |z| {
                let (v, g) = outer::deep::deep_energy_grad(&neuron_of(z, *gate, 1), x);
                (v, g.to_flat())
            },
            |z| {
                let (v, g, h) = outer::deep::deep_energy_hessian(&neuron_of(z, *gate, 1), x);
                (v, g.to_flat(), h)
            },
            &pts,
        );
    }
}

/// A struct without the derive, imported by name from a module of the file: a method with a constant
/// `self` reads its integer field at `order = 2` (this was the error of
/// tests/ui/signature/constant-self-integer-field-without-derive.rs, which now imports by a glob).
mod plain_shapes {
    pub struct Plain {
        pub n: usize,
        pub k: f64,
    }
}

mod plain_energy {
    use super::plain_shapes::Plain;
    use autodiff::differentiable;

    impl Plain {
        #[differentiable(order = 2, wrt(x))]
        pub fn energy(&self, x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..self.n {
                s += self.k * x[i] * x[i] * x[i];
            }
            s
        }
    }
}

#[test]
fn a_constant_self_imported_by_name_reads_its_integer_field_at_order_2() {
    for (j, x) in common::points(42_101, 4, 12, -2.0, 2.0)
        .into_iter()
        .enumerate()
    {
        let p = plain_shapes::Plain {
            n: 1 + j % 4,
            k: 0.5 + j as f64 * 0.1,
        };
        let (value, gradient, hessian) = p.energy_hessian(&x);
        let by_hand: f64 = (0..p.n).map(|i| p.k * x[i].powi(3)).sum();
        assert!((value - by_hand).abs() <= 1e-12 * (1.0 + by_hand.abs()));
        for i in 0..4 {
            let d = if i < p.n {
                3.0 * p.k * x[i] * x[i]
            } else {
                0.0
            };
            assert!(
                (gradient[i] - d).abs() <= 1e-12 * (1.0 + d.abs()),
                "gradient {i}"
            );
            for c in 0..4 {
                let h = if i == c && i < p.n {
                    6.0 * p.k * x[i]
                } else {
                    0.0
                };
                assert!(
                    (hessian[i][c] - h).abs() <= 1e-12 * (1.0 + h.abs()),
                    "H[{i}][{c}]"
                );
            }
        }
        common::assert_fd_gradient(|v| p.energy(v), &x, &gradient, "Plain::energy");
    }
}
