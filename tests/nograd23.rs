//! `#[no_grad]` data fields of `Differentiable` structs (integers, flags, float data) read by index, by
//! `.len()`, iterated, as loop bounds and in conditions, at first order and `order = 2`: gradients against
//! analytic values and central differences, Hessians against central differences of the gradient, the
//! `#[no_grad]` fields copied into the gradient.

// The bodies index as the forms under test do.
#![allow(clippy::needless_range_loop, clippy::explicit_counter_loop)]

mod common;

use autodiff::{differentiable, Differentiable};
use common::{
    assert_all_close, assert_close, assert_fd_gradient, assert_jacobian, config, dot, fd_jacobian,
    Inputs, ANALYTIC_TOL,
};
use proptest::prelude::*;

/// A sparse model: weight `k` multiplies input `idx[k]`, against a target `data[k]`.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Sparse {
    pub w: Vec<f64>,
    #[no_grad]
    pub idx: Vec<usize>,
    #[no_grad]
    pub data: Vec<f64>,
    #[no_grad]
    pub scale: usize,
}

/// `scale * Σ_k (w_k x_{idx_k} - data_k)²`.
#[differentiable(order = 2)]
pub fn sparse_loss(p: &Sparse, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..p.idx.len() {
        let r = p.w[k] * x[p.idx[k]] - p.data[k];
        s += r * r;
    }
    s * p.scale as f64
}

/// The same model taken by value, its indexes iterated.
#[differentiable(order = 2)]
pub fn sparse_owned(p: Sparse, x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    for &j in p.idx.iter() {
        let r = p.w[k] * x[j] - p.data[k];
        s += r * r;
        k += 1;
    }
    s * p.scale as f64
}

/// The model passed on whole to `sparse_loss`.
#[differentiable(order = 2)]
pub fn sparse_passed_on(p: &Sparse, x: &[f64]) -> f64 {
    0.5 * sparse_loss(p, x) + p.w[0] * p.w[0]
}

/// The analytic value and gradient of `sparse_loss`.
fn sparse_expected(p: &Sparse, x: &[f64]) -> (f64, Vec<f64>, Vec<f64>) {
    let c = p.scale as f64;
    let (mut s, mut gw, mut gx) = (0.0, vec![0.0; p.w.len()], vec![0.0; x.len()]);
    for (k, &j) in p.idx.iter().enumerate() {
        let r = p.w[k] * x[j] - p.data[k];
        s += c * r * r;
        gw[k] += 2.0 * c * r * x[j];
        gx[j] += 2.0 * c * r * p.w[k];
    }
    (s, gw, gx)
}

/// A loss over the inputs that `mask` keeps.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Masked {
    pub w: Vec<f64>,
    #[no_grad]
    pub mask: Vec<bool>,
}

/// `Σ_{i: mask_i} sin(w_i x_i) + Σ_{i: !mask_i} w_i²/2`.
#[differentiable(order = 2)]
pub fn masked(p: &Masked, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.w.len() {
        if p.mask[i] {
            s += (p.w[i] * x[i]).sin();
        } else {
            s += 0.5 * p.w[i] * p.w[i];
        }
    }
    s
}

/// A model of fixed-size arrays with integer, flag and count fields, and its methods.
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Picks {
    pub w: [f64; 4],
    #[no_grad]
    pub pick: [usize; 3],
    #[no_grad]
    pub sign: Vec<i64>,
    #[no_grad]
    pub on: bool,
    #[no_grad]
    pub rounds: usize,
}

impl Picks {
    /// `rounds * Σ_{j in pick} w_j² (x + sign_j)` (`sign_j` counted where positive), doubled if `on`.
    #[differentiable(wrt(self, x), order = 2)]
    pub fn energy(&self, x: f64) -> f64 {
        let mut s = 0.0;
        for _ in 0..self.rounds {
            for &j in self.pick.iter() {
                let shift = if self.sign[j] > 0 { 1.0 } else { 0.0 };
                s += self.w[j] * self.w[j] * (x + shift);
            }
        }
        if self.on {
            2.0 * s
        } else {
            s
        }
    }

    /// The same with `self` constant: a function of `x` alone.
    #[differentiable(wrt(x), order = 2)]
    pub fn energy_at(&self, x: f64) -> f64 {
        let mut s = 0.0;
        for k in 0..self.pick.len() {
            let j = self.pick[k];
            s += self.w[j] * (x * x + x).exp() / (1.0 + j as f64);
        }
        s
    }
}

impl Picks {
    /// `energy` through a call of it on `self`, plus a term of the number of picks (`.len()` only).
    #[differentiable(wrt(self, x), order = 2)]
    pub fn total(&self, x: f64) -> f64 {
        self.energy(x) + self.w[1] * (self.pick.len() as f64) * x
    }
}

/// A field only measured (`.len()`), of integers: the mean of `w` over the picks' count.
#[differentiable(order = 2)]
pub fn per_pick(p: &Picks, x: f64) -> f64 {
    let n = p.pick.len() as f64;
    (p.w[0] * x + p.w[3]).powi(2) / n
}

/// Weights repeated `counts[k]` times: an element of an integer field as a loop's bound, and a flag not
/// taken (`!`).
#[derive(Clone, Debug, PartialEq, Differentiable)]
pub struct Counts {
    pub w: Vec<f64>,
    #[no_grad]
    pub counts: Vec<usize>,
    #[no_grad]
    pub skip: Vec<bool>,
}

/// `(Σ_{k: !skip_k} counts_k w_k x)² + w_0 x`.
#[differentiable(order = 2)]
pub fn repeated(p: &Counts, x: f64) -> f64 {
    let mut s = 0.0;
    for k in 0..p.w.len() {
        if !p.skip[k] {
            for _ in 0..p.counts[k] {
                s += p.w[k] * x;
            }
        }
    }
    s * s + p.w[0] * x
}

fn sparse(inputs: &mut Inputs, n: usize, m: usize) -> Sparse {
    let idx: Vec<usize> = (0..m)
        .map(|_| ((inputs.next() + 1.0) * 0.5 * n as f64) as usize % n)
        .collect();
    Sparse {
        w: inputs.vec(m),
        idx,
        data: inputs.vec(m),
        scale: 1 + ((inputs.next() + 1.0) * 2.0) as usize,
    }
}

/// Checks `value`, `grad` and `hessian` of a function over the flat inputs `[p.to_flat(), rest]` at
/// `flat`: the gradient against central differences of `value`, the Hessian against central differences
/// of `grad`.
fn check(
    what: &str,
    flat: &[f64],
    value: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> Vec<f64>,
    hessian: impl Fn(&[f64]) -> (f64, Vec<Vec<f64>>),
) {
    let g = grad(flat);
    assert_fd_gradient(&value, flat, &g, what);
    let (v, h) = hessian(flat);
    assert_close(v, value(flat), ANALYTIC_TOL, what);
    assert_jacobian(&h, &fd_jacobian(&grad, flat), what);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_sparse_model_reads_its_indexes(seed in any::<u64>()) {
        let mut inputs = Inputs(seed);
        let p = sparse(&mut inputs, 4, 5);
        let x = inputs.vec(4);
        let (value, gw, gx) = sparse_expected(&p, &x);
        let (v, (g, g_x)) = sparse_loss_grad(&p, &x);
        assert_close(v, value, ANALYTIC_TOL, "sparse_loss");
        assert_all_close(&g.w, &gw, ANALYTIC_TOL, "sparse_loss: w");
        assert_all_close(&g_x, &gx, ANALYTIC_TOL, "sparse_loss: x");
        // The `#[no_grad]` fields are copied from the primal.
        prop_assert_eq!(&g.idx, &p.idx);
        prop_assert_eq!(&g.data, &p.data);
        prop_assert_eq!(g.scale, p.scale);
        let (v, (g, g_x)) = sparse_owned_grad(p.clone(), &x);
        assert_close(v, value, ANALYTIC_TOL, "sparse_owned");
        assert_all_close(&g.w, &gw, ANALYTIC_TOL, "sparse_owned: w");
        assert_all_close(&g_x, &gx, ANALYTIC_TOL, "sparse_owned: x");
        prop_assert_eq!(&g.idx, &p.idx);

        let n = p.to_flat().len();
        let mut flat = p.to_flat();
        flat.extend(&x);
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "sparse_loss",
            &flat,
            |f| sparse_loss(&at(f), &f[n..]),
            |f| {
                let (_, (g, gx)) = sparse_loss_grad(&at(f), &f[n..]);
                [g.to_flat(), gx].concat()
            },
            |f| {
                let (v, _, h) = sparse_loss_hessian(&at(f), &f[n..]);
                (v, h)
            },
        );
        check(
            "sparse_owned",
            &flat,
            |f| sparse_owned(at(f), &f[n..]),
            |f| {
                let (_, (g, gx)) = sparse_owned_grad(at(f), &f[n..]);
                [g.to_flat(), gx].concat()
            },
            |f| {
                let (v, _, h) = sparse_owned_hessian(at(f), &f[n..]);
                (v, h)
            },
        );
        check(
            "sparse_passed_on",
            &flat,
            |f| sparse_passed_on(&at(f), &f[n..]),
            |f| {
                let (_, (g, gx)) = sparse_passed_on_grad(&at(f), &f[n..]);
                [g.to_flat(), gx].concat()
            },
            |f| {
                let (v, _, h) = sparse_passed_on_hessian(&at(f), &f[n..]);
                (v, h)
            },
        );
        // `_jvp` against the gradient, `_grad_into` against `_grad`.
        let t = inputs.vec(flat.len());
        let (v, tangent) = sparse_loss_jvp(&p, &x, (p.from_flat(&t[..n]), t[n..].to_vec()));
        assert_close(v, value, ANALYTIC_TOL, "sparse_loss_jvp value");
        assert_close(tangent, dot(&[gw.clone(), gx.clone()].concat(), &t), ANALYTIC_TOL, "sparse_loss_jvp");
        let (mut g, mut g_x) = (p.zero_like(), vec![f64::NAN; x.len()]);
        let v = sparse_loss_grad_into(&p, &x, (&mut g, &mut g_x));
        assert_close(v, value, ANALYTIC_TOL, "sparse_loss_grad_into value");
        assert_all_close(&g.w, &gw, ANALYTIC_TOL, "sparse_loss_grad_into: w");
        assert_all_close(&g_x, &gx, ANALYTIC_TOL, "sparse_loss_grad_into: x");
        prop_assert_eq!(&g.idx, &p.idx);
        // `H v` against the Hessian.
        let v = inputs.vec(flat.len());
        let (_, _, h) = sparse_loss_hessian(&p, &x);
        let (_, _, (hp, hx)) = sparse_loss_hvp(&p, &x, (p.from_flat(&v[..n]), v[n..].to_vec()));
        let product: Vec<f64> = h.iter().map(|row| dot(row, &v)).collect();
        assert_all_close(&[hp.to_flat(), hx].concat(), &product, ANALYTIC_TOL, "sparse_loss_hvp");
        prop_assert_eq!(&hp.idx, &p.idx);
    }

    #[test]
    fn an_integer_field_bounds_a_loop(seed in any::<u64>()) {
        let mut inputs = Inputs(seed);
        let m = 4;
        let p = Counts {
            w: inputs.vec(m),
            counts: (0..m).map(|_| ((inputs.next() + 1.0) * 1.5) as usize).collect(),
            skip: (0..m).map(|_| inputs.next() > 0.5).collect(),
        };
        let x = inputs.next();
        let c: Vec<f64> = (0..m)
            .map(|k| if p.skip[k] { 0.0 } else { p.counts[k] as f64 })
            .collect();
        let s: f64 = (0..m).map(|k| c[k] * p.w[k] * x).sum();
        let (v, (g, gx)) = repeated_grad(&p, x);
        assert_close(v, s * s + p.w[0] * x, ANALYTIC_TOL, "repeated");
        let mut gw: Vec<f64> = (0..m).map(|k| 2.0 * s * c[k] * x).collect();
        gw[0] += x;
        assert_all_close(&g.w, &gw, ANALYTIC_TOL, "repeated: w");
        let sx: f64 = (0..m).map(|k| c[k] * p.w[k]).sum();
        assert_close(gx, 2.0 * s * sx + p.w[0], ANALYTIC_TOL, "repeated: x");
        prop_assert_eq!(&g.counts, &p.counts);
        prop_assert_eq!(&g.skip, &p.skip);
        let flat = [p.to_flat(), vec![x]].concat();
        let at = |f: &[f64]| p.from_flat(&f[..m]);
        check(
            "repeated",
            &flat,
            |f| repeated(&at(f), f[m]),
            |f| {
                let (_, (g, gx)) = repeated_grad(&at(f), f[m]);
                [g.to_flat(), vec![gx]].concat()
            },
            |f| {
                let (v, _, h) = repeated_hessian(&at(f), f[m]);
                (v, h)
            },
        );
    }

    #[test]
    fn a_masked_loss_reads_its_flags(seed in any::<u64>()) {
        let mut inputs = Inputs(seed);
        let m = 6;
        let p = Masked {
            w: inputs.vec(m),
            mask: (0..m).map(|_| inputs.next() > 0.0).collect(),
        };
        let x = inputs.vec(m);
        let (v, (g, gx)) = masked_grad(&p, &x);
        let mut value = 0.0;
        for i in 0..m {
            let (gw, gxi) = if p.mask[i] {
                value += (p.w[i] * x[i]).sin();
                let c = (p.w[i] * x[i]).cos();
                (c * x[i], c * p.w[i])
            } else {
                value += 0.5 * p.w[i] * p.w[i];
                (p.w[i], 0.0)
            };
            assert_close(g.w[i], gw, ANALYTIC_TOL, "masked: w");
            assert_close(gx[i], gxi, ANALYTIC_TOL, "masked: x");
        }
        assert_close(v, value, ANALYTIC_TOL, "masked");
        prop_assert_eq!(&g.mask, &p.mask);
        let n = m;
        let flat = [p.to_flat(), x].concat();
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "masked",
            &flat,
            |f| masked(&at(f), &f[n..]),
            |f| {
                let (_, (g, gx)) = masked_grad(&at(f), &f[n..]);
                [g.to_flat(), gx].concat()
            },
            |f| {
                let (v, _, h) = masked_hessian(&at(f), &f[n..]);
                (v, h)
            },
        );
    }

    #[test]
    fn a_method_reads_indexes_flags_and_counts(seed in any::<u64>()) {
        let mut inputs = Inputs(seed);
        let pick = [0, 2, ((inputs.next() + 1.0) * 2.0) as usize % 4];
        let p = Picks {
            w: [inputs.next(), inputs.next(), inputs.next(), inputs.next()],
            pick,
            sign: (0..4).map(|_| (inputs.next() * 3.0) as i64).collect(),
            on: inputs.next() > 0.0,
            rounds: 1 + ((inputs.next() + 1.0) * 1.5) as usize,
        };
        let x = inputs.next();
        let (v, (g, gx)) = p.energy_grad(x);
        let c = p.rounds as f64 * if p.on { 2.0 } else { 1.0 };
        let (mut value, mut gw, mut g_x) = (0.0, [0.0; 4], 0.0);
        for &j in &p.pick {
            let shift = if p.sign[j] > 0 { 1.0 } else { 0.0 };
            value += c * p.w[j] * p.w[j] * (x + shift);
            gw[j] += 2.0 * c * p.w[j] * (x + shift);
            g_x += c * p.w[j] * p.w[j];
        }
        assert_close(v, value, ANALYTIC_TOL, "energy");
        assert_all_close(&g.w, &gw, ANALYTIC_TOL, "energy: w");
        assert_close(gx, g_x, ANALYTIC_TOL, "energy: x");
        prop_assert_eq!(g.pick, p.pick);
        prop_assert_eq!(&g.sign, &p.sign);
        prop_assert_eq!((g.on, g.rounds), (p.on, p.rounds));
        let n = 4;
        let flat = [p.to_flat(), vec![x]].concat();
        let at = |f: &[f64]| p.from_flat(&f[..n]);
        check(
            "energy",
            &flat,
            |f| at(f).energy(f[n]),
            |f| {
                let (_, (g, gx)) = at(f).energy_grad(f[n]);
                [g.to_flat(), vec![gx]].concat()
            },
            |f| {
                let (v, _, h) = at(f).energy_hessian(f[n]);
                (v, h)
            },
        );
        // Through a call of a method on `self`, and a field only measured.
        let k = p.pick.len() as f64;
        let (v, (g, g_x2)) = p.total_grad(x);
        assert_close(v, value + p.w[1] * k * x, ANALYTIC_TOL, "total");
        let mut gw2 = gw;
        gw2[1] += k * x;
        assert_all_close(&g.w, &gw2, ANALYTIC_TOL, "total: w");
        assert_close(g_x2, g_x + p.w[1] * k, ANALYTIC_TOL, "total: x");
        prop_assert_eq!(g.pick, p.pick);
        check(
            "total",
            &flat,
            |f| at(f).total(f[n]),
            |f| {
                let (_, (g, gx)) = at(f).total_grad(f[n]);
                [g.to_flat(), vec![gx]].concat()
            },
            |f| {
                let (v, _, h) = at(f).total_hessian(f[n]);
                (v, h)
            },
        );
        check(
            "per_pick",
            &flat,
            |f| per_pick(&at(f), f[n]),
            |f| {
                let (_, (g, gx)) = per_pick_grad(&at(f), f[n]);
                [g.to_flat(), vec![gx]].concat()
            },
            |f| {
                let (v, _, h) = per_pick_hessian(&at(f), f[n]);
                (v, h)
            },
        );
        let (_, (g, _)) = per_pick_grad(&p, x);
        let r = p.w[0] * x + p.w[3];
        assert_all_close(&g.w, &[2.0 * r * x / k, 0.0, 0.0, 2.0 * r / k], ANALYTIC_TOL, "per_pick: w");
        prop_assert_eq!(g.pick, p.pick);
        // `self` constant: a function of `x`.
        let (v, d) = p.energy_at_grad(x);
        let (mut value, mut dx, mut ddx) = (0.0, 0.0, 0.0);
        for &j in &p.pick {
            let e = (x * x + x).exp() * p.w[j] / (1.0 + j as f64);
            value += e;
            dx += e * (2.0 * x + 1.0);
            ddx += e * ((2.0 * x + 1.0) * (2.0 * x + 1.0) + 2.0);
        }
        assert_close(v, value, ANALYTIC_TOL, "energy_at");
        assert_close(d, dx, ANALYTIC_TOL, "energy_at: x");
        let (v, _, h) = p.energy_at_hessian(x);
        assert_close(v, value, ANALYTIC_TOL, "energy_at_hessian");
        assert_close(h[0][0], ddx, 1e-9, "energy_at: x x");
    }
}

#[test]
fn the_flat_view_leaves_the_no_grad_fields_out() {
    let p = Sparse {
        w: vec![1.0, 2.0],
        idx: vec![1, 0],
        data: vec![0.5, 0.25],
        scale: 3,
    };
    assert_eq!(p.to_flat(), vec![1.0, 2.0]);
    let q = p.from_flat(&[4.0, 5.0]);
    assert_eq!(q.w, vec![4.0, 5.0]);
    assert_eq!((q.idx, q.data, q.scale), (p.idx.clone(), p.data.clone(), 3));
    let z = p.zero_like();
    assert_eq!(z.w, vec![0.0, 0.0]);
    assert_eq!((z.idx, z.data, z.scale), (p.idx, p.data, 3));
}
