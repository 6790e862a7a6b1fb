//! probe32: a trust probe written as a new user would, from API.md alone, following sources not ported
//! before; the mathematics written anew from the formulas (no code copied; each function's doc line names
//! what it follows):
//!
//! - `jax.numpy`, `jax.nn`, `jax.scipy.special` written in loops: `logsumexp` with a max shift (a `fold`),
//!   `softplus`, `log_sigmoid`, `xlogy`, `xlog1py`, `entr`, a norm with an epsilon, `cumsum`, `cumprod`,
//!   `diff`, `polyval`, `interp` on a fixed grid, `logaddexp`, `gelu` (tanh form), `silu` (generic),
//!   layer norm, an attention softmax over a sequence of three, an `f32` `logsumexp` of an array.
//! - PyTorch's losses: smooth L1 (with a `match` on the reduction), Huber through a helper, `kl_div`,
//!   `binary_cross_entropy_with_logits`, `margin_ranking_loss`, `cosine_similarity`, `triplet_margin_loss`
//!   (a helper returning a tuple), `cross_entropy` with a class index.
//! - ForwardDiff.jl's and Optim.jl's test functions (not MGH): Himmelblau (an array and an `f32` version),
//!   Beale (a tuple parameter), Booth, Matyas, the six-hump camel, Styblinski–Tang (generic, run on
//!   `Dual`), Ackley, Rastrigin (a closure bound to a local), Levy, Griewank (an `enumerate().map().product()`).
//! - Small physics: Lennard-Jones over particle pairs with a cutoff branch (`continue`), a spring network by an
//!   edge list of `usize` pairs, a 1-D FEM stiffness assembly into a local matrix and its energy, a
//!   velocity-Verlet trajectory loss (a tuple state, a helper), and Lennard-Jones again as methods of a
//!   `Differentiable` struct calling each other.
//! - TensorFlow's `tf.custom_gradient` guide at second and third order: `log1pexp` written for `f64` with
//!   `order = 2` and `order = 3` callers, a clipped gradient, a straight-through `round`; expected values as
//!   `jax.custom_vjp` + `jax.hessian` give them: the Hessian is the Jacobian of `_grad` (API.md, "Higher
//!   order").
//!
//! - Rounds two to eleven, the same sources in the other forms a new user reaches for: a closure capturing
//!   an active mean, `match` on a tuple of booleans, a softmax `Vec` called per matrix row, `f32` and
//!   two-input custom gradients at order 2, forces into an output buffer (their Jacobian is `-H` of the
//!   energy), recursion on sub-slices, `loop`/`break value`, UFCS `f64::max`, generic and nested
//!   `Differentiable` structs, TensorFlow's nested custom second order written for `f64`, a norm-clipped
//!   gradient of a slice, Newton in a `while` with an active test, values modified after use (a local `Vec`
//!   between two calls, an array copy, a clone), const generics, `where` clauses, and forms beyond API.md's
//!   list that work (`windows`, `.rev()`, `skip`, `std::mem::swap`, `iter_mut`, an `FnMut` closure).
//! - Refused with spanned errors that README documents, and rewritten here as the errors advise: `state.0
//!   += ..` (a tuple field), `return` in a `match` arm inside a `let`, `x as f64` in an `f32` function at
//!   `order = K` (first order kept), `if let`, `a.apply(x)` on a parameter struct (`Affine::apply(a, x)`).
//!   No wrong derivative, macro panic or error in generated code was found.
//!
//! Every function is checked at seeded points against central differences (`common::probe`), against a
//! derivative worked out by hand where one is easy, `_jvp` against `_grad`, `_grad_into` with NaN-filled
//! buffers, and at `order = 2` the Hessian against central differences of `_grad`; vector results through
//! `_vjp`, `_jvp` and `_jacobian` against central differences of the function.

// The forms of the formulas as written, as a new user writes them: index loops, `a = a * b`, chained
// `max`/`min`, a copy by a loop, a lifetime spelled out (each is a form the probe means to check).
#![allow(
    clippy::manual_memcpy,
    clippy::manual_clamp,
    clippy::needless_lifetimes,
    clippy::redundant_closure,
    clippy::needless_range_loop,
    clippy::assign_op_pattern,
    clippy::excessive_precision,
    clippy::type_complexity,
    clippy::too_many_arguments,
    clippy::let_and_return,
    clippy::ptr_arg
)]

mod common;

use common::probe::{
    check_third, check_vector, distinct, dot, hess1, hess2, hess_slice, norm, one, range, slice,
    two, Flat, Lcg, Probe, GARBAGE,
};

// ---------------------------------------------------------------------------------------------------
// jax.numpy, jax.nn, jax.scipy.special
// ---------------------------------------------------------------------------------------------------

pub mod jaxfns {
    use autodiff::{differentiable, Float};

    /// `jax.nn.logsumexp` (jax.scipy.special.logsumexp): the maximum by a `fold`, then
    /// `m + ln Σ exp(x - m)`.
    #[differentiable(order = 2)]
    pub fn logsumexp(x: &[f64]) -> f64 {
        let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let s: f64 = x.iter().map(|v| (v - m).exp()).sum();
        m + s.ln()
    }

    /// `jax.nn.softplus(x) = logaddexp(x, 0)`: `max(x, 0) + ln(1 + exp(-|x|))`.
    #[differentiable(order = 3)]
    pub fn softplus(x: f64) -> f64 {
        x.max(0.0) + (-x.abs()).exp().ln_1p()
    }

    /// `jax.nn.log_sigmoid(x) = -softplus(-x)`, calling `softplus`.
    #[differentiable(order = 2)]
    pub fn log_sigmoid(x: f64) -> f64 {
        -softplus(-x)
    }

    /// `jax.scipy.special.xlogy(x, y)`: `0` where `x == 0`, else `x ln y`.
    #[differentiable(order = 2)]
    pub fn xlogy(x: f64, y: f64) -> f64 {
        if x == 0.0 {
            return 0.0;
        }
        x * y.ln()
    }

    /// `jax.scipy.special.xlog1py(x, y)`: `0` where `x == 0`, else `x ln(1 + y)`.
    #[differentiable(order = 2)]
    pub fn xlog1py(x: f64, y: f64) -> f64 {
        if x == 0.0 {
            0.0
        } else {
            x * y.ln_1p()
        }
    }

    /// `jax.scipy.special.entr` summed: `-p ln p` for `p > 0`, `0` at `0`, `-inf` below.
    #[differentiable(order = 2)]
    pub fn entr_sum(p: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in p {
            s += if v > 0.0 {
                -v * v.ln()
            } else if v == 0.0 {
                0.0
            } else {
                f64::NEG_INFINITY
            };
        }
        s
    }

    /// The safe norm of `optax`/`jnp.linalg.norm` use: `sqrt(Σ x² + eps)`.
    #[differentiable(order = 2)]
    pub fn norm_eps(x: &[f64]) -> f64 {
        const EPS: f64 = 1e-12;
        (x.iter().map(|v| v * v).sum::<f64>() + EPS).sqrt()
    }

    /// `jnp.cumsum` by an index loop into a `Vec`.
    #[differentiable]
    pub fn cumsum(x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        let mut acc = 0.0;
        for i in 0..x.len() {
            acc += x[i];
            out[i] = acc;
        }
        out
    }

    /// `jnp.cumprod`, each entry from the previous one.
    #[differentiable]
    pub fn cumprod(x: &[f64]) -> Vec<f64> {
        let n = x.len();
        let mut out = vec![0.0; n];
        out[0] = x[0];
        for i in 1..n {
            out[i] = out[i - 1] * x[i];
        }
        out
    }

    /// `jnp.diff(x)`: `x[i+1] - x[i]`.
    #[differentiable]
    pub fn diff(x: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        for i in 0..x.len() - 1 {
            out.push(x[i + 1] - x[i]);
        }
        out
    }

    /// `jnp.polyval(p, x)` (highest power first) by Horner in a `fold`.
    #[differentiable(order = 2)]
    pub fn polyval(p: &[f64], x: f64) -> f64 {
        p.iter().fold(0.0, |acc, &c| acc * x + c)
    }

    /// `jnp.interp(x, xp, fp)` on the fixed grid `xp = 0, 1, 2, 3, 4`: clamped at the ends, the
    /// interval found by a loop with an early return.
    #[differentiable(order = 2)]
    pub fn interp(x: f64, fp: &[f64; 5]) -> f64 {
        const XP: [f64; 5] = [0.0, 1.0, 2.0, 3.0, 4.0];
        if x <= XP[0] {
            return fp[0];
        }
        for i in 0..4 {
            if x < XP[i + 1] {
                let t = (x - XP[i]) / (XP[i + 1] - XP[i]);
                return fp[i] + t * (fp[i + 1] - fp[i]);
            }
        }
        fp[4]
    }

    /// `jnp.logaddexp(a, b)`: `max(a, b) + ln(1 + exp(-|a - b|))`.
    #[differentiable(order = 2)]
    pub fn logaddexp(a: f64, b: f64) -> f64 {
        let amax = a.max(b);
        let delta = a - b;
        amax + (-delta.abs()).exp().ln_1p()
    }

    /// `jax.nn.gelu(x, approximate=True)`: `x/2 (1 + tanh(sqrt(2/π) (x + 0.044715 x³)))`.
    #[differentiable(order = 3)]
    pub fn gelu(x: f64) -> f64 {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        let inner = c * (x + 0.044715 * x.powi(3));
        0.5 * x * (1.0 + inner.tanh())
    }

    /// `jax.nn.silu(x) = x σ(x)`, generic.
    #[differentiable(order = 2)]
    pub fn silu<T: Float>(x: T) -> T {
        x / (T::one() + (-x).exp())
    }

    /// `flax.linen.LayerNorm` over one vector: mean, biased variance plus `eps`, scale and shift.
    #[differentiable]
    pub fn layer_norm(x: &[f64], gamma: &[f64], beta: &[f64]) -> Vec<f64> {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        let inv = 1.0 / (var + 1e-5).sqrt();
        let mut y = vec![0.0; x.len()];
        for i in 0..x.len() {
            y[i] = (x[i] - mean) * inv * gamma[i] + beta[i];
        }
        y
    }

    /// A loss through `layer_norm`'s `Vec` result: `Σ w_i y_i²`.
    #[differentiable(wrt(x, gamma), order = 2)]
    pub fn layer_norm_loss(x: &[f64], gamma: &[f64], w: &[f64]) -> f64 {
        let beta = vec![0.1; x.len()];
        let y = layer_norm(x, gamma, &beta);
        let mut s = 0.0;
        for i in 0..y.len() {
            s += w[i] * y[i] * y[i];
        }
        s
    }

    /// Scaled dot-product attention (`jax.nn.dot_product_attention`) over a sequence of three with
    /// dimension two, one head; the loss is the sum of the outputs.
    #[differentiable(order = 2)]
    pub fn attention(q: &[[f64; 2]; 3], k: &[[f64; 2]; 3], v: &[[f64; 2]; 3]) -> f64 {
        let scale = 1.0 / 2.0_f64.sqrt();
        let mut total = 0.0;
        for i in 0..3 {
            let mut logits = [0.0; 3];
            for j in 0..3 {
                logits[j] = (q[i][0] * k[j][0] + q[i][1] * k[j][1]) * scale;
            }
            let m = logits[0].max(logits[1]).max(logits[2]);
            let mut w = [0.0; 3];
            let mut z = 0.0;
            for j in 0..3 {
                w[j] = (logits[j] - m).exp();
                z += w[j];
            }
            for j in 0..3 {
                for d in 0..2 {
                    total += w[j] / z * v[j][d];
                }
            }
        }
        total
    }

    /// `logsumexp` in `f32` over an array, the shift by `max` in a loop.
    #[differentiable(order = 2)]
    pub fn logsumexp_f32(x: [f32; 4]) -> f32 {
        let mut m = x[0];
        for i in 1..4 {
            m = m.max(x[i]);
        }
        let mut s = 0.0f32;
        for v in x.iter() {
            s += (v - m).exp();
        }
        m + s.ln()
    }
}

// ---------------------------------------------------------------------------------------------------
// PyTorch's loss functions (torch.nn.functional)
// ---------------------------------------------------------------------------------------------------

pub mod torch {
    use autodiff::differentiable;

    /// `F.smooth_l1_loss(input, target, beta, reduction)`: `0.5 d²/β` below `β`, `|d| - β/2` above;
    /// `reduction` 0 = mean, 1 = sum, chosen by a `match`.
    #[differentiable(wrt(input), order = 2)]
    pub fn smooth_l1(input: &[f64], target: &[f64], beta: f64, reduction: usize) -> f64 {
        let mut s = 0.0;
        for i in 0..input.len() {
            let d = input[i] - target[i];
            let a = d.abs();
            s += if a < beta {
                0.5 * d * d / beta
            } else {
                a - 0.5 * beta
            };
        }
        match reduction {
            0 => s / input.len() as f64,
            _ => s,
        }
    }

    /// One term of `F.huber_loss`: `d²/2` within `δ`, `δ (|d| - δ/2)` outside.
    #[differentiable(order = 2)]
    pub fn huber_one(d: f64, delta: f64) -> f64 {
        if d.abs() <= delta {
            0.5 * d * d
        } else {
            delta * (d.abs() - 0.5 * delta)
        }
    }

    /// `F.huber_loss(input, target, delta)`, mean reduction, through `huber_one`.
    #[differentiable(wrt(input), order = 2)]
    pub fn huber(input: &[f64], target: &[f64], delta: f64) -> f64 {
        let mut s = 0.0;
        for (x, y) in input.iter().zip(target.iter()) {
            s += huber_one(x - y, delta);
        }
        s / input.len() as f64
    }

    /// `F.kl_div(input = ln q, target = p, reduction = "sum")`: `Σ p (ln p - input)`, `p ln p` by
    /// `xlogy`.
    #[differentiable(order = 2)]
    pub fn kl_div(log_q: &[f64], p: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..p.len() {
            s += super::jaxfns::xlogy(p[i], p[i]) - p[i] * log_q[i];
        }
        s
    }

    /// `F.binary_cross_entropy_with_logits`, mean: `max(x, 0) - x y + ln(1 + exp(-|x|))`.
    #[differentiable(wrt(x), order = 2)]
    pub fn bce_with_logits(x: &[f64], y: &[f64]) -> f64 {
        let n = x.len();
        let mut s = 0.0;
        for i in 0..n {
            s += x[i].max(0.0) - x[i] * y[i] + (-x[i].abs()).exp().ln_1p();
        }
        s / n as f64
    }

    /// `F.margin_ranking_loss(x1, x2, y, margin)`, mean: `max(0, -y (x1 - x2) + margin)`.
    #[differentiable(wrt(x1, x2), order = 2)]
    pub fn margin_ranking(x1: &[f64], x2: &[f64], y: &[f64], margin: f64) -> f64 {
        let total: f64 = x1
            .iter()
            .zip(x2.iter())
            .zip(y.iter())
            .map(|((a, b), s)| (-s * (a - b) + margin).max(0.0))
            .sum();
        total / x1.len() as f64
    }

    /// `F.cosine_similarity(x1, x2, eps)`: `x1·x2 / max(|x1| |x2|, eps)`.
    #[differentiable(order = 2)]
    pub fn cosine_similarity(a: &[f64], b: &[f64]) -> f64 {
        let eps = 1e-8;
        let ab: f64 = a.iter().zip(b).map(|(p, q)| p * q).sum();
        let aa: f64 = a.iter().map(|p| p * p).sum();
        let bb: f64 = b.iter().map(|q| q * q).sum();
        ab / (aa.sqrt() * bb.sqrt()).max(eps)
    }

    /// `F.pairwise_distance` of two anchors' pairs at once: `|a - p + eps|` and `|a - n + eps|`.
    #[differentiable(order = 2)]
    pub fn two_distances(a: &[f64; 3], p: &[f64; 3], n: &[f64; 3]) -> (f64, f64) {
        let eps = 1e-6;
        let mut dp = 0.0;
        let mut dn = 0.0;
        for i in 0..3 {
            dp += (a[i] - p[i] + eps).powi(2);
            dn += (a[i] - n[i] + eps).powi(2);
        }
        (dp.sqrt(), dn.sqrt())
    }

    /// `F.triplet_margin_loss(anchor, positive, negative, margin)`: `max(d(a,p) - d(a,n) + margin, 0)`.
    #[differentiable(wrt(a, p, n), order = 2)]
    pub fn triplet(a: &[f64; 3], p: &[f64; 3], n: &[f64; 3], margin: f64) -> f64 {
        let (dp, dn) = two_distances(a, p, n);
        (dp - dn + margin).max(0.0)
    }

    /// `F.cross_entropy(logits, target)` of one sample: `logsumexp(logits) - logits[target]`.
    #[differentiable(wrt(logits), order = 2)]
    pub fn cross_entropy(logits: &[f64], target: usize) -> f64 {
        super::jaxfns::logsumexp(logits) - logits[target]
    }
}

// ---------------------------------------------------------------------------------------------------
// ForwardDiff.jl's and Optim.jl's test functions
// ---------------------------------------------------------------------------------------------------

pub mod optimfns {
    use autodiff::{differentiable, Float};

    /// Himmelblau: `(x² + y - 11)² + (x + y² - 7)²`, on an array.
    #[differentiable(order = 2)]
    pub fn himmelblau(p: [f64; 2]) -> f64 {
        let [x, y] = p;
        (x * x + y - 11.0).powi(2) + (x + y * y - 7.0).powi(2)
    }

    /// Himmelblau in `f32`.
    #[differentiable(order = 2)]
    pub fn himmelblau_f32(x: f32, y: f32) -> f32 {
        let a = x * x + y - 11.0;
        let b = x + y * y - 7.0;
        a * a + b * b
    }

    /// Beale: `Σ_i (c_i - x + x yⁱ)²` with `c = (1.5, 2.25, 2.625)`, the point a tuple.
    #[differentiable(order = 2)]
    pub fn beale(p: (f64, f64)) -> f64 {
        const C: [f64; 3] = [1.5, 2.25, 2.625];
        let (x, y) = p;
        let mut s = 0.0;
        for i in 0..3 {
            let t = C[i] - x + x * y.powi(i as i32 + 1);
            s += t * t;
        }
        s
    }

    /// Booth: `(x + 2y - 7)² + (2x + y - 5)²`.
    #[differentiable(order = 2)]
    pub fn booth(x: f64, y: f64) -> f64 {
        (x + 2.0 * y - 7.0).powi(2) + (2.0 * x + y - 5.0).powi(2)
    }

    /// Matyas: `0.26 (x² + y²) - 0.48 x y`.
    #[differentiable(order = 2)]
    pub fn matyas(x: f64, y: f64) -> f64 {
        0.26 * (x * x + y * y) - 0.48 * x * y
    }

    /// The six-hump camel: `(4 - 2.1 x² + x⁴/3) x² + x y + (-4 + 4 y²) y²`.
    #[differentiable(order = 2)]
    pub fn six_hump_camel(x: f64, y: f64) -> f64 {
        let x2 = x * x;
        (4.0 - 2.1 * x2 + x2 * x2 / 3.0) * x2 + x * y + (-4.0 + 4.0 * y * y) * y * y
    }

    /// Styblinski–Tang: `Σ (x⁴ - 16 x² + 5 x) / 2`, generic.
    #[differentiable(order = 2)]
    pub fn styblinski_tang<T: Float>(x: &[T]) -> T {
        let half = T::from(0.5).unwrap();
        let sixteen = T::from(16.0).unwrap();
        let five = T::from(5.0).unwrap();
        let mut s = T::zero();
        for i in 0..x.len() {
            s = s + half * (x[i].powi(4) - sixteen * x[i] * x[i] + five * x[i]);
        }
        s
    }

    /// Ackley (a = 20, b = 0.2, c = 2π).
    #[differentiable(order = 2)]
    pub fn ackley(x: &[f64]) -> f64 {
        let n = x.len() as f64;
        let mut sq = 0.0;
        let mut cs = 0.0;
        for &v in x.iter() {
            sq += v * v;
            cs += (2.0 * std::f64::consts::PI * v).cos();
        }
        -20.0 * (-0.2 * (sq / n).sqrt()).exp() - (cs / n).exp() + 20.0 + std::f64::consts::E
    }

    /// Rastrigin: `10 n + Σ (x² - 10 cos 2πx)`, the term a closure bound to a local.
    #[differentiable(order = 2)]
    pub fn rastrigin(x: &[f64]) -> f64 {
        let term = |v: f64| v * v - 10.0 * (2.0 * std::f64::consts::PI * v).cos();
        let mut s = 10.0 * x.len() as f64;
        for &v in x {
            s += term(v);
        }
        s
    }

    /// Levy: `w = 1 + (x - 1)/4`, `sin²(π w₁) + Σ (w - 1)² (1 + 10 sin²(π w + 1)) + (w_n - 1)² (1 + sin²(2π w_n))`.
    #[differentiable(order = 2)]
    pub fn levy(x: &[f64]) -> f64 {
        let pi = std::f64::consts::PI;
        let n = x.len();
        let mut w = vec![0.0; n];
        for i in 0..n {
            w[i] = 1.0 + (x[i] - 1.0) / 4.0;
        }
        let mut s = (pi * w[0]).sin().powi(2);
        for i in 0..n - 1 {
            s += (w[i] - 1.0).powi(2) * (1.0 + 10.0 * (pi * w[i] + 1.0).sin().powi(2));
        }
        let last = w[n - 1];
        s + (last - 1.0).powi(2) * (1.0 + (2.0 * pi * last).sin().powi(2))
    }

    /// Griewank: `1 + Σ x²/4000 - Π cos(x_i / sqrt(i + 1))`, the product by `enumerate().map().product()`.
    #[differentiable(order = 2)]
    pub fn griewank(x: &[f64]) -> f64 {
        let s: f64 = x.iter().map(|v| v * v / 4000.0).sum();
        let p: f64 = x
            .iter()
            .enumerate()
            .map(|(i, v)| (v / ((i + 1) as f64).sqrt()).cos())
            .product();
        1.0 + s - p
    }
}

// ---------------------------------------------------------------------------------------------------
// Small physics
// ---------------------------------------------------------------------------------------------------

pub mod physics {
    use autodiff::{differentiable, Differentiable};

    /// Lennard-Jones `4ε((σ/r)¹² - (σ/r)⁶)` over the pairs of particles in 3-D (flat positions), pairs
    /// beyond the cutoff skipped by `continue`, the potential shifted to zero at the cutoff.
    #[differentiable(wrt(pos, sigma), order = 2)]
    pub fn lennard_jones(pos: &[f64], sigma: f64, cutoff: f64) -> f64 {
        let n = pos.len() / 3;
        let rc2 = cutoff * cutoff;
        let sc6 = (sigma * sigma / rc2).powi(3);
        let shift = 4.0 * (sc6 * sc6 - sc6);
        let mut e = 0.0;
        for i in 0..n {
            for j in i + 1..n {
                let mut r2 = 0.0;
                for d in 0..3 {
                    let dx = pos[3 * i + d] - pos[3 * j + d];
                    r2 += dx * dx;
                }
                if r2 > rc2 {
                    continue;
                }
                let s6 = (sigma * sigma / r2).powi(3);
                e += 4.0 * (s6 * s6 - s6) - shift;
            }
        }
        e
    }

    /// A spring network in 2-D by an edge list of `usize` pairs: `Σ k/2 (|x_i - x_j| - L_e)²`.
    #[differentiable(wrt(x, k), order = 2)]
    pub fn spring_energy(x: &[f64], edges: &[(usize, usize)], rest: &[f64], k: f64) -> f64 {
        let mut e = 0.0;
        for (m, &(i, j)) in edges.iter().enumerate() {
            let dx = x[2 * i] - x[2 * j];
            let dy = x[2 * i + 1] - x[2 * j + 1];
            let len = (dx * dx + dy * dy).sqrt();
            e += 0.5 * k * (len - rest[m]).powi(2);
        }
        e
    }

    /// A 1-D bar of `n` elements: element stiffness `k_e` assembled into a local `(n+1)×(n+1)` matrix,
    /// node 0 fixed, the energy `u'Ku/2 - f'u` over the free nodes.
    #[differentiable(wrt(k, u), order = 2)]
    pub fn fem_energy(k: &[f64], u: &[f64], f: &[f64]) -> f64 {
        let n = k.len();
        let mut kg = vec![vec![0.0; n + 1]; n + 1];
        for e in 0..n {
            kg[e][e] += k[e];
            kg[e][e + 1] -= k[e];
            kg[e + 1][e] -= k[e];
            kg[e + 1][e + 1] += k[e];
        }
        let mut full = vec![0.0; n + 1];
        for i in 0..n {
            full[i + 1] = u[i];
        }
        let mut energy = 0.0;
        for i in 0..=n {
            for j in 0..=n {
                energy += 0.5 * full[i] * kg[i][j] * full[j];
            }
        }
        for i in 0..n {
            energy -= f[i] * u[i];
        }
        energy
    }

    /// The acceleration of a harmonic oscillator with a cubic term.
    #[differentiable(order = 2)]
    pub fn accel(x: f64, k: f64) -> f64 {
        -k * x - 0.1 * x * x * x
    }

    /// Velocity Verlet for `steps` steps from `(x0, v0)`, a tuple state; the loss is the squared
    /// distance of the trajectory from `target` summed over the steps; `steps == 0` returns early.
    #[differentiable(wrt(x0, v0, k), order = 2)]
    pub fn verlet_loss(x0: f64, v0: f64, k: f64, dt: f64, steps: usize, target: f64) -> f64 {
        if steps == 0 {
            return (x0 - target).powi(2);
        }
        let mut state = (x0, v0);
        let mut loss = 0.0;
        for _ in 0..steps {
            let (x, v) = state;
            let a = accel(x, k);
            let xn = x + v * dt + 0.5 * a * dt * dt;
            let an = accel(xn, k);
            let vn = v + 0.5 * (a + an) * dt;
            state = (xn, vn);
            loss += (xn - target).powi(2);
        }
        loss
    }

    /// Lennard-Jones particles as a `Differentiable` struct: `energy` calls `pair`, which calls
    /// `sixth`.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Cluster {
        pub pos: Vec<f64>,
        pub epsilon: f64,
        #[no_grad]
        pub n: usize,
    }

    impl Cluster {
        /// `(1/r²)³` for `σ = 1`.
        #[differentiable(wrt(self), order = 2)]
        pub fn sixth(&self, r2: f64) -> f64 {
            (1.0 / r2).powi(3)
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn pair(&self, i: usize, j: usize) -> f64 {
            let mut r2 = 0.0;
            for d in 0..2 {
                let dx = self.pos[2 * i + d] - self.pos[2 * j + d];
                r2 += dx * dx;
            }
            let s6 = self.sixth(r2);
            4.0 * self.epsilon * (s6 * s6 - s6)
        }

        #[differentiable(wrt(self), order = 2)]
        pub fn energy(&self) -> f64 {
            let mut e = 0.0;
            for i in 0..self.n {
                for j in i + 1..self.n {
                    e += self.pair(i, j);
                }
            }
            e
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// TensorFlow's custom-gradient guide, at second and third order
// ---------------------------------------------------------------------------------------------------

pub mod tfcustom {
    use autodiff::{custom_gradient, differentiable};

    /// The guide's `log1pexp`: `ln(1 + eˣ)` with the stable gradient `1 - 1/(1 + eˣ)`.
    #[custom_gradient]
    pub fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let e = x.exp();
        ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
    }

    /// A caller at order 2 over a slice: `Σ log1pexp(w_i x_i)`.
    #[differentiable(order = 2)]
    pub fn softplus_layer(w: &[f64], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..w.len() {
            s += log1pexp(w[i] * x[i]);
        }
        s
    }

    /// A caller at order 3: `log1pexp(2x)/2`.
    #[differentiable(order = 3)]
    pub fn half_log1pexp_2x(x: f64) -> f64 {
        log1pexp(2.0 * x) / 2.0
    }

    /// The guide's `clip_gradients`: the identity forward, the cotangent clipped to `[-0.5, 0.5]`.
    #[custom_gradient]
    pub fn clip_gradients(y: f64) -> (f64, impl Fn(f64) -> f64) {
        (y, |dy: f64| dy.clamp(-0.5, 0.5))
    }

    /// `clip_gradients(x²) x`.
    #[differentiable(order = 2)]
    pub fn clipped_cube(x: f64) -> f64 {
        clip_gradients(x * x) * x
    }

    /// A straight-through `round` (the guide's "straight-through estimator").
    #[custom_gradient]
    pub fn st_round(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (x.round(), |dy| dy)
    }

    /// Quantised weights (to quarters) against data: `Σ (q(w_i) x_i - 1)²`.
    #[differentiable(wrt(w), order = 2)]
    pub fn quantised_loss(w: &[f64], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..w.len() {
            let q = st_round(4.0 * w[i]) / 4.0;
            s += (q * x[i] - 1.0).powi(2);
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------------
// Second round: the same sources in other forms a new user reaches for
// ---------------------------------------------------------------------------------------------------

pub mod round2 {
    use autodiff::{custom_gradient, differentiable, Differentiable, Float};

    /// `jax.nn.logsumexp` generic over `T: Float`, the maximum by `fold` with `T::neg_infinity()`.
    #[differentiable(order = 2)]
    pub fn logsumexp_t<T: Float>(x: &[T]) -> T {
        let m = x.iter().fold(T::neg_infinity(), |a, &b| a.max(b));
        let mut s = T::zero();
        for &v in x {
            s = s + (v - m).exp();
        }
        m + s.ln()
    }

    /// Layer norm's variance by a closure capturing the (active) mean.
    #[differentiable(order = 2)]
    pub fn variance_by_closure(x: &[f64]) -> f64 {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let dev2 = |v: f64| (v - mean) * (v - mean);
        x.iter().map(|&v| dev2(v)).sum::<f64>() / n
    }

    /// `jnp.gradient`-like central differences with one-sided ends, chosen by `match` on a tuple of
    /// booleans; the loss is the sum of squares.
    #[differentiable(order = 2)]
    pub fn gradient_sq(y: &[f64]) -> f64 {
        let n = y.len();
        let mut s = 0.0;
        for i in 0..n {
            let g = match (i == 0, i == n - 1) {
                (true, _) => y[1] - y[0],
                (_, true) => y[n - 1] - y[n - 2],
                _ => 0.5 * (y[i + 1] - y[i - 1]),
            };
            s += g * g;
        }
        s
    }

    /// `jnp.cumsum` in place on a copy.
    #[differentiable]
    pub fn cumsum_in_place(x: &[f64]) -> Vec<f64> {
        let mut c = x.to_vec();
        for i in 1..c.len() {
            c[i] += c[i - 1];
        }
        c
    }

    /// `jax.nn.softmax` returning a `Vec`, called in a loop of an attention over rows of a matrix.
    #[differentiable(order = 2)]
    pub fn softmax(v: &[f64]) -> Vec<f64> {
        let m = v.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let e: Vec<f64> = v.iter().map(|x| (x - m).exp()).collect();
        let z: f64 = e.iter().sum();
        e.iter().map(|x| x / z).collect()
    }

    /// Self-attention over `&[Vec<f64>]` rows (`x` is `seq × dim`, q = k = v = x): a softmax per row.
    #[differentiable(order = 2)]
    pub fn self_attention(x: &[Vec<f64>]) -> f64 {
        let n = x.len();
        let d = x[0].len();
        let mut total = 0.0;
        for i in 0..n {
            let mut logits = vec![0.0; n];
            for j in 0..n {
                let mut s = 0.0;
                for k in 0..d {
                    s += x[i][k] * x[j][k];
                }
                logits[j] = s / (d as f64).sqrt();
            }
            let w = softmax(&logits);
            for j in 0..n {
                for k in 0..d {
                    total += w[j] * x[j][k] * (k as f64 + 1.0);
                }
            }
        }
        total
    }

    /// A closure bound to a local calling a differentiable function: a softplus MLP layer.
    #[differentiable(order = 2)]
    pub fn softplus_mlp(w: &[f64], x: &[f64]) -> f64 {
        let act = |v: f64| super::jaxfns::softplus(v);
        let mut s = 0.0;
        for i in 0..w.len() {
            s += act(w[i] * x[i] + 0.1);
        }
        s
    }

    /// Velocity Verlet with an array state reassigned whole each step, `while` on a step counter.
    #[differentiable(order = 2)]
    pub fn verlet_array(x0: f64, v0: f64) -> f64 {
        let dt = 0.05;
        let mut s = [x0, v0];
        let mut step = 0;
        while step < 10 {
            let a = -s[0].sin();
            let x = s[0] + s[1] * dt + 0.5 * a * dt * dt;
            let v = s[1] + 0.5 * (a - x.sin()) * dt;
            s = [x, v];
            step += 1;
        }
        0.5 * s[1] * s[1] + (1.0 - s[0].cos())
    }

    /// An `f32` custom gradient (`log1pexp` in `f32`) with an `order = 2` `f32` caller.
    #[custom_gradient]
    pub fn log1pexp_f32(x: f32) -> (f32, impl Fn(f32) -> f32) {
        let e = x.exp();
        ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
    }

    #[differentiable(order = 2)]
    pub fn softplus_energy_f32(x: f32, y: f32) -> f32 {
        log1pexp_f32(x * y) + 0.5 * x * x
    }

    /// A custom gradient of two inputs (TF's guide: `custom_gradient` of several tensors), the closure
    /// returning a tuple, at order 2: the hypotenuse with its gradient through captured values.
    #[custom_gradient]
    pub fn safe_hypot(a: f64, b: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        let r = (a * a + b * b).sqrt();
        (r, move |dy| (dy * a / r, dy * b / r))
    }

    #[differentiable(order = 2)]
    pub fn hypot_energy(a: f64, b: f64) -> f64 {
        let r = safe_hypot(a, b);
        r * r * r
    }

    /// A `Differentiable` logistic regression: `loss` calls `Self::logit` and a free function on a
    /// field slice.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Logistic {
        pub w: [f64; 3],
        pub b: f64,
    }

    impl Logistic {
        #[differentiable(wrt(self), order = 2)]
        pub fn logit(&self, x: &[f64; 3]) -> f64 {
            let mut z = self.b;
            for i in 0..3 {
                z += self.w[i] * x[i];
            }
            z
        }

        /// BCE with logits over the data plus an L2 penalty by `logsumexp` of the weights (a free
        /// function on a field).
        #[differentiable(wrt(self), order = 2)]
        pub fn loss(&self, xs: &[[f64; 3]], ys: &[f64]) -> f64 {
            let mut s = 0.0;
            for k in 0..ys.len() {
                let z = self.logit(&xs[k]);
                s += super::jaxfns::softplus(z) - ys[k] * z;
            }
            s + 0.01 * super::jaxfns::logsumexp(&self.w)
        }
    }

    /// Early return from inside a nested loop: the first pair of particles closer than `r_min` returns
    /// a penalty at once (a physics "overlap" guard), else the sum of `1/r`.
    #[differentiable(wrt(pos), order = 2)]
    pub fn coulomb_guarded(pos: &[f64], r_min: f64) -> f64 {
        let n = pos.len() / 2;
        let mut e = 0.0;
        for i in 0..n {
            for j in 0..i {
                let r = (pos[2 * i] - pos[2 * j]).hypot(pos[2 * i + 1] - pos[2 * j + 1]);
                if r < r_min {
                    return 1e3 * (r_min - r);
                }
                e += 1.0 / r;
            }
        }
        e
    }

    /// Optim.jl's `Rosenbrock` as `f32` over a fixed array with `windows`-free pairs via `zip` of
    /// sub-slices.
    #[differentiable(order = 2)]
    pub fn rosenbrock_zip(x: &[f64]) -> f64 {
        x[..x.len() - 1]
            .iter()
            .zip(&x[1..])
            .map(|(a, b)| 100.0 * (b - a * a).powi(2) + (1.0 - a).powi(2))
            .sum()
    }

    /// `jax.nn.gelu` in `f32`, `std::f32::consts::PI`.
    #[differentiable(order = 3)]
    pub fn gelu_f32(x: f32) -> f32 {
        let c = (2.0 / std::f32::consts::PI).sqrt();
        0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
    }

    /// Triplet loss with the distances from a helper that returns a tuple and takes its inputs as
    /// slices of a local `Vec` (the three points packed in one).
    #[differentiable(order = 2)]
    pub fn triplet_packed(x: &[f64]) -> f64 {
        let pts: Vec<f64> = x.to_vec();
        let (dp, dn) = pair_dists(&pts[0..2], &pts[2..4], &pts[4..6]);
        (dp - dn + 0.5).max(0.0)
    }

    #[differentiable(order = 2)]
    pub fn pair_dists(a: &[f64], p: &[f64], n: &[f64]) -> (f64, f64) {
        let mut dp = 0.0;
        let mut dn = 0.0;
        for i in 0..a.len() {
            dp += (a[i] - p[i]) * (a[i] - p[i]);
            dn += (a[i] - n[i]) * (a[i] - n[i]);
        }
        (dp.sqrt(), dn.sqrt())
    }
}

// ---------------------------------------------------------------------------------------------------
// Third round: output parameters, recursion on sub-slices, `loop` with `break value`, range patterns
// ---------------------------------------------------------------------------------------------------

pub mod round3 {
    use autodiff::{differentiable, Differentiable, Float};

    /// The spring network's forces `-∇E` written into an output buffer, as an MD code's `compute_forces`.
    #[differentiable(wrt(x))]
    pub fn spring_forces(x: &[f64], edges: &[(usize, usize)], rest: &[f64], k: f64, f: &mut [f64]) {
        for v in f.iter_mut() {
            *v = 0.0;
        }
        for m in 0..edges.len() {
            let (i, j) = edges[m];
            let dx = x[2 * i] - x[2 * j];
            let dy = x[2 * i + 1] - x[2 * j + 1];
            let len = (dx * dx + dy * dy).sqrt();
            let s = k * (len - rest[m]) / len;
            f[2 * i] -= s * dx;
            f[2 * i + 1] -= s * dy;
            f[2 * j] += s * dx;
            f[2 * j + 1] += s * dy;
        }
    }

    /// `polyval` by recursion on a sub-slice: `p(x) = p[..n-1](x) x + p[n-1]`.
    #[differentiable(order = 2)]
    pub fn horner_rec(p: &[f64], x: f64) -> f64 {
        let n = p.len();
        if n == 1 {
            return p[0];
        }
        horner_rec(&p[..n - 1], x) * x + p[n - 1]
    }

    /// `jnp.interp` with the interval found by `loop` and `break value` (a binary search on the fixed
    /// grid 0..=4), the slope by a `match` with range patterns on the interval index.
    #[differentiable(order = 2)]
    pub fn interp_search(x: f64, fp: &[f64; 5]) -> f64 {
        let xc = x.clamp(0.0, 4.0);
        let mut lo = 0usize;
        let mut hi = 4usize;
        let i = loop {
            if hi - lo <= 1 {
                break lo;
            }
            let mid = (lo + hi) / 2;
            if xc < mid as f64 {
                hi = mid;
            } else {
                lo = mid;
            }
        };
        let weight = match i {
            0 => 1.0,
            1..=2 => 1.0,
            _ => 1.0,
        };
        let t = xc - i as f64;
        weight * (fp[i] + t * (fp[i + 1] - fp[i]))
    }

    /// `torch.nn.functional.pdist`-like sum over pairs with `step_by` and an inclusive range, an array
    /// chosen by `if` as the value.
    #[differentiable(order = 2)]
    pub fn strided_pairs(x: &[f64], wide: bool) -> f64 {
        let w = if wide { [1.0, 0.5] } else { [2.0, -0.5] };
        let mut s = 0.0;
        for i in (0..x.len()).step_by(2) {
            for j in i..=x.len() - 1 {
                s += w[j % 2] * (x[i] - x[j]).powi(2);
            }
        }
        s
    }

    /// Ceres-style `pow`/`atan2`/`mul_add` at order 2: a small bundle of active binary functions.
    #[differentiable(order = 2)]
    pub fn binary_bundle(a: f64, b: f64) -> f64 {
        a.powf(b) + b.atan2(a) + a.mul_add(b, a * a) + (a * b).hypot(a)
    }

    /// A `mut Vec` parameter by value, normalised in place, then the entropy of the result (`entr`).
    #[differentiable(order = 2)]
    pub fn normalised_entropy(mut v: Vec<f64>) -> f64 {
        let z: f64 = v.iter().sum();
        for i in 0..v.len() {
            v[i] /= z;
        }
        let mut h = 0.0;
        for &p in v.iter() {
            h -= p * p.ln();
        }
        h
    }

    /// A nested `fn` item and a body `const`: the Levy function's `w` map.
    #[differentiable(order = 2)]
    pub fn levy_nested(x: &[f64]) -> f64 {
        const PI: f64 = std::f64::consts::PI;
        #[differentiable(order = 2)]
        fn w(v: f64) -> f64 {
            1.0 + (v - 1.0) / 4.0
        }
        let mut s = (PI * w(x[0])).sin().powi(2);
        for i in 0..x.len() - 1 {
            let wi = w(x[i]);
            s += (wi - 1.0).powi(2) * (1.0 + 10.0 * (PI * wi + 1.0).sin().powi(2));
        }
        let wn = w(x[x.len() - 1]);
        s + (wn - 1.0).powi(2) * (1.0 + (2.0 * PI * wn).sin().powi(2))
    }

    /// A generic `Differentiable` struct of a particle and a method at order 2 (a generic harmonic trap
    /// with a quartic term).
    #[derive(Clone, Debug, Differentiable)]
    pub struct Trap<T: Float> {
        pub center: [T; 2],
        pub stiffness: T,
    }

    impl<T: Float> Trap<T> {
        #[differentiable(wrt(self, p), order = 2)]
        pub fn energy(&self, p: &[T; 2]) -> T {
            let half = T::from(0.5).unwrap();
            let mut r2 = T::zero();
            for d in 0..2 {
                let dx = p[d] - self.center[d];
                r2 = r2 + dx * dx;
            }
            half * self.stiffness * r2 + half * half * r2 * r2
        }
    }

    /// Nested `Differentiable` structs: a layer holding two sub-layers, a method calling a free
    /// function on each.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Dense {
        pub w: Vec<f64>,
        pub b: f64,
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct TwoLayer {
        pub first: Dense,
        pub second: Dense,
    }

    #[differentiable(wrt(layer), order = 2)]
    pub fn dense_gelu(layer: &Dense, x: &[f64]) -> f64 {
        let mut z = layer.b;
        for i in 0..x.len() {
            z += layer.w[i] * x[i];
        }
        super::jaxfns::gelu(z)
    }

    impl TwoLayer {
        #[differentiable(wrt(self), order = 2)]
        pub fn forward(&self, x: &[f64]) -> f64 {
            let h = dense_gelu(&self.first, x);
            let h2 = [h, h * h];
            dense_gelu(&self.second, &h2)
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Fourth round: mixed precision, tuple fields, UFCS float functions, nested local arrays
// ---------------------------------------------------------------------------------------------------

pub mod round4 {
    use autodiff::{differentiable, Float};

    /// An `f32` norm accumulated in `f64` (mixed precision, the common way to keep an `f32` sum
    /// accurate), cast back. First order only: at `order = K` an `f32` function converting a float to
    /// `f64` is refused with a spanned error (README, "a float converted to `f64` in an `f32` function";
    /// `tests/ui/signature/order-cast-to-other-float`).
    #[differentiable]
    pub fn norm_f32_acc64(x: &[f32]) -> f32 {
        let mut s = 0.0f64;
        for &v in x {
            s += (v as f64) * (v as f64);
        }
        s.sqrt() as f32
    }

    /// The maximum by `f64::max` written as a path call (UFCS), in a `fold`.
    #[differentiable(order = 2)]
    pub fn logsumexp_ufcs(x: &[f64]) -> f64 {
        let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| f64::max(a, b));
        m + x.iter().map(|v| f64::exp(v - m)).sum::<f64>().ln()
    }

    /// Verlet with a tuple state, written as the refusal of `state.0 += ..` advises (README;
    /// `tests/ui/fence/compound-assign-tuple-field`): the parts taken out, updated, put back.
    #[differentiable(order = 2)]
    pub fn verlet_tuple_fields(x0: f64, v0: f64, k: f64) -> f64 {
        let dt = 0.1;
        let mut state = (x0, v0);
        for _ in 0..6 {
            let (mut x, mut v) = state;
            let a = -k * x;
            x += v * dt + 0.5 * a * dt * dt;
            let an = -k * x;
            v += 0.5 * (a + an) * dt;
            state = (x, v);
        }
        state.0 * state.0 + state.1 * state.1
    }

    /// Positions in a local `[[f64; 2]; 3]` filled from a flat slice, then the spring energy of a
    /// triangle.
    #[differentiable(order = 2)]
    pub fn triangle_energy(x: &[f64]) -> f64 {
        let mut pos = [[0.0; 2]; 3];
        for i in 0..3 {
            for d in 0..2 {
                pos[i][d] = x[2 * i + d];
            }
        }
        let mut e = 0.0;
        for i in 0..3 {
            let j = (i + 1) % 3;
            let dx = pos[i][0] - pos[j][0];
            let dy = pos[i][1] - pos[j][1];
            e += ((dx * dx + dy * dy).sqrt() - 1.0).powi(2);
        }
        e
    }

    /// `F.l1_loss` generic, mean by `T::from(len)`.
    #[differentiable(order = 2)]
    pub fn l1_loss<T: Float>(x: &[T], y: &[T]) -> T {
        let mut s = T::zero();
        for i in 0..x.len() {
            s = s + (x[i] - y[i]).abs();
        }
        s / T::from(x.len()).unwrap()
    }

    /// `jnp.clip(x, lo, hi)` with active bounds, squared and summed.
    #[differentiable(order = 2)]
    pub fn clip_active(x: &[f64], lo: f64, hi: f64) -> f64 {
        let mut s = 0.0;
        for &v in x {
            let c = v.clamp(lo, hi);
            s += c * c;
        }
        s
    }

    /// `jax.nn.relu6`-like and `hard_tanh`: `min(max(x, 0), 6)` by chained methods, summed with a
    /// `recip` and a `mul_add`.
    #[differentiable(order = 2)]
    pub fn relu6_mix(x: f64, y: f64) -> f64 {
        let r = x.max(0.0).min(6.0);
        let h = y.max(-1.0).min(1.0);
        r.mul_add(h, (1.0 + x * x).recip())
    }

    /// An activation chosen by a mode passed in; `return` from a `match` arm inside a `let` is refused
    /// (`tests/ui/fence/return-in-let-value`), so the early return is an `if` statement as advised.
    #[differentiable(wrt(x), order = 2)]
    pub fn activation(x: f64, mode: u8) -> f64 {
        if mode == 0 {
            return x.tanh();
        }
        let y = match mode {
            1 => x / (1.0 + (-x).exp()),
            _ => x.max(0.0),
        };
        y * 2.0
    }
}

// ---------------------------------------------------------------------------------------------------
// Fifth round: TensorFlow's "higher-order gradients" pattern written for `f64`
// ---------------------------------------------------------------------------------------------------

pub mod round5 {
    use autodiff::{custom_gradient, differentiable};

    /// The guide's `first_order_custom`: the slope `3x²` of a cube, with its own derivative given as
    /// `7x` (deliberately not `6x`, so that the override shows).
    #[custom_gradient]
    pub fn cube_slope(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (3.0 * x * x, move |ddy| ddy * 7.0 * x)
    }

    /// The guide's `op_with_fused_backprop`: `x³`, its closure `dy * first_order_custom(x)`.
    #[custom_gradient]
    pub fn fused_cube(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (x * x * x, move |dy| dy * cube_slope(x))
    }

    #[differentiable(order = 3)]
    pub fn fused_caller(x: f64) -> f64 {
        2.0 * fused_cube(x)
    }

    /// `tf.clip_by_norm(dy * x, 0.5)` as the gradient of `|x|²/2` over a slice.
    #[custom_gradient]
    pub fn half_sq_clipped(x: &[f64]) -> (f64, impl Fn(f64) -> Vec<f64> + '_) {
        let mut s = 0.0;
        for &v in x {
            s += v * v;
        }
        let n = s.sqrt();
        (0.5 * s, move |dy: f64| {
            let scale = if n > 0.5 { 0.5 / n } else { 1.0 };
            x.iter().map(|v| dy * v * scale).collect()
        })
    }

    #[differentiable(order = 2)]
    pub fn clipped_energy(x: &[f64]) -> f64 {
        half_sq_clipped(x) * 2.0
    }
}

// ---------------------------------------------------------------------------------------------------
// Sixth round: closures capturing slices, range-map-collect, matrix rows zipped with labels, Newton
// ---------------------------------------------------------------------------------------------------

pub mod round6 {
    use autodiff::differentiable;

    /// A weighted sum by a closure of an index capturing two active slices.
    #[differentiable(order = 2)]
    pub fn weighted_by_index(x: &[f64], w: &[f64]) -> f64 {
        let at = |i: usize| x[i] * w[i] + (x[i] - w[i]).powi(2);
        let mut s = 0.0;
        for i in 0..x.len() {
            s += at(i);
        }
        s
    }

    /// A two-argument closure (`jnp.logaddexp` as a local), folded over a slice.
    #[differentiable(order = 2)]
    pub fn logaddexp_fold(x: &[f64]) -> f64 {
        let lae = |a: f64, b: f64| {
            let m = a.max(b);
            m + ((a - m).exp() + (b - m).exp()).ln()
        };
        let mut acc = x[0];
        for i in 1..x.len() {
            acc = lae(acc, x[i]);
        }
        acc
    }

    /// `(0..n).map(..).collect()` into a `Vec`, then passed to `logsumexp`.
    #[differentiable(order = 2)]
    pub fn scaled_lse(x: &[f64], t: f64) -> f64 {
        let n = x.len();
        let z: Vec<f64> = (0..n).map(|i| x[i] / t).collect();
        t * super::jaxfns::logsumexp(&z)
    }

    /// A `vec!` of active scalars (a feature vector) passed on.
    #[differentiable(order = 2)]
    pub fn features(a: f64, b: f64) -> f64 {
        let f = vec![a, b, a * b, a.sin()];
        super::jaxfns::logsumexp(&f)
    }

    /// Linear least squares over matrix rows zipped with labels: `Σ (row·w - y)²`.
    #[differentiable(wrt(w), order = 2)]
    pub fn least_squares(w: &[f64], xs: &[Vec<f64>], ys: &[f64]) -> f64 {
        let mut s = 0.0;
        for (row, &y) in xs.iter().zip(ys) {
            let p: f64 = row.iter().zip(w).map(|(a, b)| a * b).sum();
            s += (p - y).powi(2);
        }
        s
    }

    /// Newton's iteration for `x³ = a` in a `while` with an active stopping test (ForwardDiff's
    /// "differentiating through a solver"): converges to the implicit derivative `1/(3 a^{2/3})`.
    #[differentiable(order = 2)]
    pub fn cbrt_newton(a: f64) -> f64 {
        let mut x = 1.0 + a / 3.0;
        let mut it = 0;
        while (x * x * x - a).abs() > 1e-14 * a.abs().max(1.0) && it < 100 {
            x -= (x * x * x - a) / (3.0 * x * x);
            it += 1;
        }
        x
    }

    /// The sum over `.iter().copied().fold` of squares and an `enumerate().map()` weighted by the index.
    #[differentiable(order = 2)]
    pub fn chains(x: &[f64]) -> f64 {
        let sq = x.iter().copied().fold(0.0, |a, b| a + b * b);
        let idx: f64 = x
            .iter()
            .enumerate()
            .map(|(i, v)| (i as f64 + 1.0) * v)
            .sum();
        sq * idx
    }
}

// ---------------------------------------------------------------------------------------------------
// Seventh round: forms beyond API.md's list that a new user writes (`windows`, `.rev()` on an
// iterator, `skip`, `std::mem::swap`, `iter_mut`, an `FnMut` closure); they compile and are right
// ---------------------------------------------------------------------------------------------------

pub mod round7 {
    use autodiff::differentiable;
    #[differentiable(order = 2)]
    pub fn windows_diff(x: &[f64]) -> f64 {
        x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum()
    }

    #[differentiable(order = 2)]
    pub fn rev_iter(x: &[f64]) -> f64 {
        let mut acc = 0.0;
        for &v in x.iter().rev() {
            acc = acc * 0.5 + v * v;
        }
        acc
    }

    #[differentiable(order = 2)]
    pub fn skip_first(x: &[f64]) -> f64 {
        x.iter().skip(1).map(|v| v.exp()).sum::<f64>() + x[0]
    }

    #[differentiable(order = 2)]
    pub fn swap_sort(x: f64, y: f64) -> f64 {
        let mut a = x;
        let mut b = y;
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        a * 2.0 + b
    }

    #[differentiable(order = 2)]
    pub fn iter_mut_scale(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        for e in v.iter_mut() {
            *e *= 2.0;
        }
        v.iter().map(|a| a * a).sum()
    }

    #[differentiable(order = 2)]
    pub fn fn_mut_closure(x: &[f64]) -> f64 {
        let mut acc = 0.0;
        let mut add = |v: f64| acc += v * v;
        for &v in x {
            add(v);
        }
        acc
    }
}

// ---------------------------------------------------------------------------------------------------
// Eighth round: signatures (const generics, `where`, extra bounds, lifetimes, attributes), trait UFCS,
// an `f32` function calling a generic custom gradient at order 3, recursion at order 3, a custom
// gradient of two slices called on sub-slices of a local `Vec`
// ---------------------------------------------------------------------------------------------------

pub mod round8 {
    use autodiff::{custom_gradient, differentiable, Float};
    #[differentiable(order = 2)]
    pub fn norm_n<const N: usize>(x: &[f64; N]) -> f64 {
        let mut s = 0.0;
        for i in 0..N {
            s += x[i] * x[i];
        }
        s.sqrt()
    }

    #[differentiable(order = 2)]
    pub fn where_clause<T>(x: T, y: T) -> T
    where
        T: Float,
    {
        x * y.exp()
    }

    #[differentiable(order = 2)]
    pub fn extra_bounds<T: Float + std::fmt::Debug>(x: &[T]) -> T {
        let s: T = x.iter().map(|&v| v * v).fold(T::zero(), |a, b| a + b);
        s + T::epsilon()
    }

    #[differentiable(order = 2)]
    pub fn ufcs_trait<T: Float>(x: T) -> T {
        Float::exp(x) + T::from(2).unwrap() * Float::powi(x, 3)
    }

    #[differentiable(wrt(x), order = 2)]
    pub fn powi_param(x: f64, n: usize) -> f64 {
        x.powi(n as i32)
    }

    #[differentiable(order = 2)]
    pub fn with_lifetime<'a>(x: &'a [f64]) -> f64 {
        x[0] * x[1]
    }

    #[inline]
    #[differentiable(order = 2)]
    #[allow(clippy::neg_multiply)]
    pub(crate) fn attrs(x: f64) -> f64 {
        // a comment
        /* block */
        x * -1.0 * x
    }

    #[custom_gradient]
    pub fn sq_custom<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
        (x * x, move |dy| dy * (x + x))
    }

    #[differentiable(order = 3)]
    pub fn f32_calls_generic_custom(x: f32) -> f32 {
        sq_custom(x.sin())
    }

    #[differentiable(order = 3)]
    pub fn rec3(x: f64, n: usize) -> f64 {
        if n == 0 {
            return x;
        }
        rec3(x, n - 1).sin() + x
    }

    #[custom_gradient]
    pub fn dot_custom<'a>(
        a: &'a [f64],
        b: &'a [f64],
    ) -> (f64, impl Fn(f64) -> (Vec<f64>, Vec<f64>) + 'a) {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * b[i];
        }
        (s, move |dy: f64| {
            (
                b.iter().map(|v| dy * v).collect(),
                a.iter().map(|v| dy * v).collect(),
            )
        })
    }

    #[differentiable(order = 2)]
    pub fn custom_on_subslices(x: &[f64]) -> f64 {
        let v: Vec<f64> = x.iter().map(|a| a.sin()).collect();
        let mut s = 0.0;
        for k in 0..2 {
            s += dot_custom(&v[2 * k..2 * k + 2], &x[2 * k..2 * k + 2]).powi(2);
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------------
// Ninth round: values that change after they are used (a local `Vec` modified between two calls, an
// array copy, a clone, shadowing in a block, in-place sweeps ended by `break`, an index computed from
// an active value, `continue` after updates)
// ---------------------------------------------------------------------------------------------------

pub mod round9 {
    use autodiff::differentiable;
    #[differentiable(order = 2)]
    pub fn sq_sum(v: &[f64]) -> f64 {
        v.iter().map(|a| a * a).sum()
    }

    /// A local `Vec` passed to a callee, then modified, then passed again.
    #[differentiable(order = 2)]
    pub fn modify_after_call(x: &[f64]) -> f64 {
        let mut v = x.to_vec();
        let a = sq_sum(&v);
        v[0] = v[1] * 3.0;
        v[2] *= v[0];
        let b = sq_sum(&v);
        a * b
    }

    /// An array copied, the copy modified: the original keeps its values.
    #[differentiable(order = 2)]
    pub fn array_copy(a: [f64; 3]) -> f64 {
        let mut b = a;
        b[0] *= 2.0;
        b[1] = b[0] + a[2];
        a[0] * b[1] + b[0] * a[1] + b[2]
    }

    /// A `Vec` cloned, the clone modified.
    #[differentiable(order = 2)]
    pub fn vec_clone(x: &[f64]) -> f64 {
        let v = x.to_vec();
        let mut w = v.clone();
        w[0] = w[0] * w[1];
        v[0] * w[0] + w[1] * v[1]
    }

    /// Shadowing in a nested block.
    #[differentiable(order = 2)]
    pub fn shadow_block(x: f64) -> f64 {
        let y = x.sin();
        let mut s = 0.0;
        {
            let y = y * x;
            s += y;
        }
        s + y
    }

    /// An element updated from itself and its neighbour, in place, several sweeps (a Gauss–Seidel
    /// smoother of a 1-D Laplacian), the loop breaking early when `break_at` sweeps are done.
    #[differentiable(wrt(x), order = 2)]
    pub fn gauss_seidel(x: &[f64], break_at: usize) -> f64 {
        let n = x.len();
        let mut u = x.to_vec();
        let mut sweep = 0;
        loop {
            for i in 1..n - 1 {
                u[i] = 0.5 * (u[i - 1] + u[i + 1]) + 0.1 * u[i] * u[i];
            }
            sweep += 1;
            if sweep == break_at {
                break;
            }
        }
        let mut s = 0.0;
        for i in 0..n {
            s += u[i] * (i as f64 + 1.0);
        }
        s
    }

    /// An index derived from an active value (a piecewise-linear lookup written by hand).
    #[differentiable(order = 2)]
    pub fn lookup(x: f64, table: &[f64; 4]) -> f64 {
        let k = (x.floor() as usize).min(2);
        let t = x - k as f64;
        let mut out = [0.0; 4];
        out[k] += table[k] * (1.0 - t);
        out[k + 1] += table[k + 1] * t;
        out[k] + out[k + 1]
    }

    /// `continue` after updating accumulators, and a value reassigned after use.
    #[differentiable(order = 2)]
    pub fn continue_after_update(x: &[f64]) -> f64 {
        let mut s = 0.0;
        let mut p = 1.0;
        let mut last = 0.0;
        for i in 0..x.len() {
            s += x[i];
            p *= 1.0 + 0.1 * x[i];
            if x[i] < 0.0 {
                continue;
            }
            s += last * x[i];
            last = x[i] * p;
        }
        s + p + last
    }
}

// ---------------------------------------------------------------------------------------------------
// Tenth round: vector results (an RK4 step on an array through a closure of an array, a tuple result,
// a generic softmax), a method with `wrt(self)` returning a `Vec`, `self` by value, a struct with a
// nested-array field, a free function calling the struct's method by its path (`Affine::apply(a, x)`;
// `a.apply(x)` is refused with a spanned error that says to write that)
// ---------------------------------------------------------------------------------------------------

pub mod round10 {
    use autodiff::{differentiable, Differentiable, Float};
    /// One RK4 step of the pendulum, an array state and result.
    #[differentiable]
    pub fn rk4_step(y: [f64; 2], h: f64) -> [f64; 2] {
        let f = |s: [f64; 2]| [s[1], -s[0].sin()];
        let k1 = f(y);
        let k2 = f([y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
        let k3 = f([y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
        let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
        let mut out = [0.0; 2];
        for i in 0..2 {
            out[i] = y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        out
    }

    /// Polar to Cartesian, a tuple result.
    #[differentiable(order = 2)]
    pub fn polar(r: f64, t: f64) -> (f64, f64) {
        (r * t.cos(), r * t.sin())
    }

    /// Softmax generic, a `Vec<T>` result.
    #[differentiable]
    pub fn softmax_t<T: Float>(x: &[T]) -> Vec<T> {
        let m = x.iter().fold(T::neg_infinity(), |a, &b| a.max(b));
        let e: Vec<T> = x.iter().map(|&v| (v - m).exp()).collect();
        let z = e.iter().fold(T::zero(), |a, &b| a + b);
        e.iter().map(|&v| v / z).collect()
    }

    #[derive(Clone, Debug, Differentiable)]
    pub struct Affine {
        pub m: [[f64; 2]; 2],
        pub b: [f64; 2],
    }

    impl Affine {
        /// A `Vec` result of a method with `wrt(self)`.
        #[differentiable(wrt(self))]
        pub fn apply(&self, x: &[f64; 2]) -> Vec<f64> {
            let mut y = vec![0.0; 2];
            for i in 0..2 {
                y[i] = self.b[i];
                for j in 0..2 {
                    y[i] += self.m[i][j] * x[j];
                }
            }
            y
        }

        /// `self` by value.
        #[differentiable(wrt(self), order = 2)]
        pub fn frob(self) -> f64 {
            let mut s = 0.0;
            for i in 0..2 {
                for j in 0..2 {
                    s += self.m[i][j] * self.m[i][j] * self.b[j];
                }
            }
            s
        }
    }

    #[differentiable(wrt(a), order = 2)]
    pub fn affine_loss(a: &Affine, x: &[f64; 2]) -> f64 {
        let y = Affine::apply(a, x);
        y[0] * y[0] + y[1].sin()
    }
}

// ---------------------------------------------------------------------------------------------------
// Eleventh round: TensorFlow's `log1pexp` at order 2 where some inputs are constants (a method with
// `self` constant, a `wrt` leaving the data out)
// ---------------------------------------------------------------------------------------------------

pub mod round11 {
    use autodiff::{differentiable, Differentiable};
    #[derive(Clone, Debug, Differentiable)]
    pub struct Layer {
        pub w: Vec<f64>,
    }

    impl Layer {
        /// A method with `self` constant (`wrt(x)`) calling the f64 custom `log1pexp` at order 2.
        #[differentiable(wrt(x), order = 2)]
        pub fn act(&self, x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() {
                s += super::tfcustom::log1pexp(self.w[i] * x[i]) * x[i];
            }
            s
        }
    }

    /// `wrt(w)` only: the data `x` is constant, captured into the custom closure's argument.
    #[differentiable(wrt(w), order = 2)]
    pub fn layer_wrt_w(w: &[f64], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..w.len() {
            s += super::tfcustom::log1pexp(w[i] * x[i]).powi(2);
        }
        s
    }
}

// ---------------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------------

type Entry<'a> = (Probe<'a>, Box<dyn Fn(&mut Lcg) -> Flat + 'a>);

fn run_all(entries: Vec<Entry<'_>>) {
    for (probe, sample) in entries {
        probe.run(5, sample);
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Draws `n` values in `[lo, hi]` whose absolute values stay `gap` away from `kink` (kinks of `abs`,
/// `max`, `clamp`).
fn away(n: usize, lo: f64, hi: f64, kink: f64, gap: f64) -> impl Fn(&mut Lcg) -> Flat {
    move |r| {
        (0..n)
            .map(|_| loop {
                let x = r.uniform(lo, hi);
                if (x.abs() - kink).abs() > gap {
                    break x;
                }
            })
            .collect()
    }
}

#[test]
fn jax_scalar_functions() {
    use jaxfns::*;
    let entries: Vec<Entry> = vec![
        (
            slice(
                "logsumexp",
                logsumexp,
                logsumexp_grad,
                logsumexp_jvp,
                logsumexp_grad_into,
            )
            .hessian(hess_slice(logsumexp_hessian))
            .analytic(|x| {
                let lse = x.iter().map(|v| v.exp()).sum::<f64>().ln();
                x.iter().map(|v| (v - lse).exp()).collect()
            }),
            Box::new(distinct(5, -4.0, 4.0, 0.01)),
        ),
        (
            one(
                "softplus",
                softplus,
                softplus_grad,
                softplus_jvp,
                softplus_grad_into,
            )
            .hessian(hess1(softplus_hessian, |x| {
                let d = softplus_derivatives(x);
                [d[0], d[1], d[2]]
            }))
            .analytic(|x| vec![sigmoid(x[0])]),
            Box::new(away(1, -20.0, 20.0, 0.0, 0.01)),
        ),
        (
            one(
                "log_sigmoid",
                log_sigmoid,
                log_sigmoid_grad,
                log_sigmoid_jvp,
                log_sigmoid_grad_into,
            )
            .hessian(hess1(log_sigmoid_hessian, log_sigmoid_derivatives))
            .analytic(|x| vec![1.0 - sigmoid(x[0])]),
            Box::new(away(1, -20.0, 20.0, 0.0, 0.01)),
        ),
        (
            two("xlogy", xlogy, xlogy_grad, xlogy_jvp, xlogy_grad_into)
                .hessian(hess2(xlogy_hessian))
                .analytic(|x| vec![x[1].ln(), x[0] / x[1]]),
            Box::new(|r: &mut Lcg| vec![r.uniform(-2.0, 2.0), r.uniform(0.2, 3.0)]),
        ),
        (
            two(
                "xlog1py",
                xlog1py,
                xlog1py_grad,
                xlog1py_jvp,
                xlog1py_grad_into,
            )
            .hessian(hess2(xlog1py_hessian))
            .analytic(|x| vec![x[1].ln_1p(), x[0] / (1.0 + x[1])]),
            Box::new(|r: &mut Lcg| vec![r.uniform(-2.0, 2.0), r.uniform(-0.8, 3.0)]),
        ),
        (
            slice(
                "entr_sum",
                entr_sum,
                entr_sum_grad,
                entr_sum_jvp,
                entr_sum_grad_into,
            )
            .hessian(hess_slice(entr_sum_hessian))
            .analytic(|x| x.iter().map(|p| -p.ln() - 1.0).collect()),
            Box::new(range(4, 0.05, 2.0)),
        ),
        (
            slice(
                "norm_eps",
                norm_eps,
                norm_eps_grad,
                norm_eps_jvp,
                norm_eps_grad_into,
            )
            .hessian(hess_slice(norm_eps_hessian))
            .analytic(|x| {
                let n = (dot(x, x) + 1e-12).sqrt();
                x.iter().map(|v| v / n).collect()
            }),
            Box::new(range(4, -2.0, 2.0)),
        ),
        (
            Probe::new("polyval", |x| polyval(&x[..4], x[4]))
                .grad(|x| {
                    let (v, (gp, gx)) = polyval_grad(&x[..4], x[4]);
                    (v, [gp, vec![gx]].concat())
                })
                .jvp(|x, t| polyval_jvp(&x[..4], x[4], (t[..4].to_vec(), t[4])))
                .grad_into(|x| {
                    let (mut gp, mut gx) = (vec![GARBAGE; 4], GARBAGE);
                    let v = polyval_grad_into(&x[..4], x[4], (&mut gp, &mut gx));
                    (v, [gp, vec![gx]].concat())
                })
                .hessian(|x| {
                    let (v, (gp, gx), h) = polyval_hessian(&x[..4], x[4]);
                    (v, [gp, vec![gx]].concat(), h)
                })
                .analytic(|x| {
                    let z = x[4];
                    vec![
                        z.powi(3),
                        z * z,
                        z,
                        1.0,
                        3.0 * x[0] * z * z + 2.0 * x[1] * z + x[2],
                    ]
                }),
            Box::new(range(5, -2.0, 2.0)),
        ),
        (
            Probe::new("interp", |x| interp(x[0], &[x[1], x[2], x[3], x[4], x[5]]))
                .grad(|x| {
                    let (v, (gx, gf)) = interp_grad(x[0], &[x[1], x[2], x[3], x[4], x[5]]);
                    (v, [vec![gx], gf.to_vec()].concat())
                })
                .jvp(|x, t| {
                    interp_jvp(
                        x[0],
                        &[x[1], x[2], x[3], x[4], x[5]],
                        (t[0], [t[1], t[2], t[3], t[4], t[5]]),
                    )
                })
                .grad_into(|x| {
                    let (mut gx, mut gf) = (GARBAGE, [GARBAGE; 5]);
                    let v =
                        interp_grad_into(x[0], &[x[1], x[2], x[3], x[4], x[5]], (&mut gx, &mut gf));
                    (v, [vec![gx], gf.to_vec()].concat())
                })
                .hessian(|x| {
                    let (v, (gx, gf), h) = interp_hessian(x[0], &[x[1], x[2], x[3], x[4], x[5]]);
                    (v, [vec![gx], gf.to_vec()].concat(), h)
                })
                .analytic(|x| {
                    let mut g = vec![0.0; 6];
                    let z = x[0];
                    if z <= 0.0 {
                        g[1] = 1.0;
                    } else if z >= 4.0 {
                        g[5] = 1.0;
                    } else {
                        let i = z.floor() as usize;
                        let t = z - i as f64;
                        g[0] = x[i + 2] - x[i + 1];
                        g[i + 1] = 1.0 - t;
                        g[i + 2] = t;
                    }
                    g
                }),
            Box::new(|r: &mut Lcg| {
                let z = loop {
                    let z = r.uniform(-0.7, 4.7);
                    let frac = z.rem_euclid(1.0);
                    if frac > 0.01 && frac < 0.99 {
                        break z;
                    }
                };
                [vec![z], r.vec(5, -2.0, 2.0)].concat()
            }),
        ),
        (
            two(
                "logaddexp",
                logaddexp,
                logaddexp_grad,
                logaddexp_jvp,
                logaddexp_grad_into,
            )
            .hessian(hess2(logaddexp_hessian))
            .analytic(|x| {
                let s = sigmoid(x[0] - x[1]);
                vec![s, 1.0 - s]
            }),
            Box::new(distinct(2, -5.0, 5.0, 0.01)),
        ),
        (
            one("gelu", gelu, gelu_grad, gelu_jvp, gelu_grad_into)
                .hessian(hess1(gelu_hessian, |x| {
                    let d = gelu_derivatives(x);
                    [d[0], d[1], d[2]]
                }))
                .analytic(|x| {
                    let x = x[0];
                    let c = (2.0 / std::f64::consts::PI).sqrt();
                    let u = c * (x + 0.044715 * x * x * x);
                    let t = u.tanh();
                    let du = c * (1.0 + 3.0 * 0.044715 * x * x);
                    vec![0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du]
                }),
            Box::new(range(1, -4.0, 4.0)),
        ),
        (
            one(
                "silu",
                silu::<f64>,
                silu_grad::<f64>,
                silu_jvp::<f64>,
                silu_grad_into::<f64>,
            )
            .hessian(hess1(silu_hessian::<f64>, silu_derivatives::<f64>))
            .analytic(|x| {
                let s = sigmoid(x[0]);
                vec![s + x[0] * s * (1.0 - s)]
            }),
            Box::new(range(1, -6.0, 6.0)),
        ),
        (
            Probe::new("layer_norm_loss", |x| {
                layer_norm_loss(&x[..4], &x[4..], &[0.5, -1.0, 2.0, 0.3])
            })
            .grad(|x| {
                let (v, (gx, gg)) = layer_norm_loss_grad(&x[..4], &x[4..], &[0.5, -1.0, 2.0, 0.3]);
                (v, [gx, gg].concat())
            })
            .jvp(|x, t| {
                layer_norm_loss_jvp(
                    &x[..4],
                    &x[4..],
                    &[0.5, -1.0, 2.0, 0.3],
                    (t[..4].to_vec(), t[4..].to_vec()),
                )
            })
            .grad_into(|x| {
                let (mut gx, mut gg) = (vec![GARBAGE; 4], vec![GARBAGE; 4]);
                let v = layer_norm_loss_grad_into(
                    &x[..4],
                    &x[4..],
                    &[0.5, -1.0, 2.0, 0.3],
                    (&mut gx, &mut gg),
                );
                (v, [gx, gg].concat())
            })
            .hessian(|x| {
                let (v, (gx, gg), h) =
                    layer_norm_loss_hessian(&x[..4], &x[4..], &[0.5, -1.0, 2.0, 0.3]);
                (v, [gx, gg].concat(), h)
            }),
            Box::new(range(8, -2.0, 2.0)),
        ),
        (
            Probe::new("attention", |x| {
                let (q, k, v) = qkv(x);
                attention(&q, &k, &v)
            })
            .grad(|x| {
                let (q, k, v) = qkv(x);
                let (val, (gq, gk, gv)) = attention_grad(&q, &k, &v);
                (val, [gq.concat(), gk.concat(), gv.concat()].concat())
            })
            .jvp(|x, t| {
                let (q, k, v) = qkv(x);
                attention_jvp(&q, &k, &v, qkv(t))
            })
            .grad_into(|x| {
                let (q, k, v) = qkv(x);
                let mut g = ([[GARBAGE; 2]; 3], [[GARBAGE; 2]; 3], [[GARBAGE; 2]; 3]);
                let val = attention_grad_into(&q, &k, &v, (&mut g.0, &mut g.1, &mut g.2));
                (val, [g.0.concat(), g.1.concat(), g.2.concat()].concat())
            })
            .hessian(|x| {
                let (q, k, v) = qkv(x);
                let (val, (gq, gk, gv), h) = attention_hessian(&q, &k, &v);
                (val, [gq.concat(), gk.concat(), gv.concat()].concat(), h)
            })
            .analytic(|x| {
                // d/dv[j][d] = Σ_i softmax_i[j]; q and k by central differences only.
                let (q, k, v) = qkv(x);
                let (_, (gq, gk, _)) = attention_grad(&q, &k, &v);
                let mut gv = vec![0.0; 6];
                for i in 0..3 {
                    let l: Vec<f64> = (0..3)
                        .map(|j| (q[i][0] * k[j][0] + q[i][1] * k[j][1]) / 2f64.sqrt())
                        .collect();
                    let z: f64 = l.iter().map(|a| a.exp()).sum();
                    for j in 0..3 {
                        gv[2 * j] += l[j].exp() / z;
                        gv[2 * j + 1] += l[j].exp() / z;
                    }
                }
                [gq.concat(), gk.concat(), gv].concat()
            }),
            Box::new(range(18, -1.5, 1.5)),
        ),
    ];
    run_all(entries);
}

fn qkv(x: &[f64]) -> ([[f64; 2]; 3], [[f64; 2]; 3], [[f64; 2]; 3]) {
    let m = |o: usize| [[x[o], x[o + 1]], [x[o + 2], x[o + 3]], [x[o + 4], x[o + 5]]];
    (m(0), m(6), m(12))
}

/// `softplus` and `gelu` at order 3 against central differences of their own second derivatives, and
/// by hand: softplus''' = σ(1 - σ)(1 - 2σ).
#[test]
fn jax_third_derivatives() {
    check_third("softplus", |x| jaxfns::softplus_derivatives(x), 5, 0.1, 6.0);
    check_third(
        "softplus_neg",
        |x| jaxfns::softplus_derivatives(x),
        5,
        -6.0,
        -0.1,
    );
    check_third("gelu", |x| jaxfns::gelu_derivatives(x), 5, -3.0, 3.0);
    for x in [-3.0, -0.4, 0.9, 5.0] {
        let s = sigmoid(x);
        let d = jaxfns::softplus_derivatives(x);
        common::assert_all_close(
            &d[1..],
            &[s, s * (1.0 - s), s * (1.0 - s) * (1.0 - 2.0 * s)],
            1e-12,
            "softplus derivatives",
        );
    }
    // jax conventions at the kinks (DESIGN.md): `max(x, 0)` at 0 and `abs` at 0.
    let (v, g) = jaxfns::softplus_grad(0.0);
    common::assert_close(v, 2f64.ln(), 1e-15, "softplus(0)");
    assert!(g.is_finite(), "softplus'(0) = {g}");
    // xlogy at x = 0 is 0 with gradient (0, 0) by the branch, as jax's where-guarded form gives for y.
    let (v, (gx, gy)) = jaxfns::xlogy_grad(0.0, 0.0);
    assert_eq!((v, gx, gy), (0.0, 0.0, 0.0));
}

#[test]
fn jax_vector_results() {
    use jaxfns::*;
    check_vector(
        "cumsum",
        5,
        range(5, -2.0, 2.0),
        &|x| cumsum(x),
        &|x, c| cumsum_vjp(x, c.to_vec()),
        &|x, t| cumsum_jvp(x, t.to_vec()),
        Some(&|x| cumsum_jacobian(x)),
    );
    check_vector(
        "cumprod",
        5,
        range(5, -2.0, 2.0),
        &|x| cumprod(x),
        &|x, c| cumprod_vjp(x, c.to_vec()),
        &|x, t| cumprod_jvp(x, t.to_vec()),
        Some(&|x| cumprod_jacobian(x)),
    );
    check_vector(
        "diff",
        5,
        range(5, -2.0, 2.0),
        &|x| diff(x),
        &|x, c| diff_vjp(x, c.to_vec()),
        &|x, t| diff_jvp(x, t.to_vec()),
        Some(&|x| diff_jacobian(x)),
    );
    check_vector(
        "layer_norm",
        5,
        range(12, -2.0, 2.0),
        &|x| layer_norm(&x[..4], &x[4..8], &x[8..]),
        &|x, c| {
            let (y, (a, b, d)) = layer_norm_vjp(&x[..4], &x[4..8], &x[8..], c.to_vec());
            (y, [a, b, d].concat())
        },
        &|x, t| {
            layer_norm_jvp(
                &x[..4],
                &x[4..8],
                &x[8..],
                (t[..4].to_vec(), t[4..8].to_vec(), t[8..].to_vec()),
            )
        },
        Some(&|x| layer_norm_jacobian(&x[..4], &x[4..8], &x[8..])),
    );
    // By hand: cumsum's Jacobian is lower triangular ones; cumprod's J[i][j] = Π_{k<=i} x_k / x_j for
    // j <= i; diff's rows are (-1, 1).
    let x = [0.5, -1.5, 2.0, 0.8];
    let j = cumsum_jacobian(&x);
    let jp = cumprod_jacobian(&x);
    let p = cumprod(&x);
    let jd = diff_jacobian(&x);
    for i in 0..4 {
        for k in 0..4 {
            assert_eq!(
                j[i][k],
                if k <= i { 1.0 } else { 0.0 },
                "cumsum J[{i}][{k}]"
            );
            let e = if k <= i { p[i] / x[k] } else { 0.0 };
            common::assert_close(jp[i][k], e, 1e-14, "cumprod J");
            if i < 3 {
                let e = if k == i + 1 {
                    1.0
                } else if k == i {
                    -1.0
                } else {
                    0.0
                };
                assert_eq!(jd[i][k], e, "diff J[{i}][{k}]");
            }
        }
    }
}

/// `logsumexp` in `f32` against the `f64` version's gradient, and its Hessian against the softmax
/// formula `diag(s) - s sᵀ`.
#[test]
fn jax_logsumexp_f32() {
    let mut rng = Lcg::new(32);
    for _ in 0..5 {
        let x64 = rng.vec(4, -3.0, 3.0);
        let x = [x64[0] as f32, x64[1] as f32, x64[2] as f32, x64[3] as f32];
        let xr: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let (v, g) = jaxfns::logsumexp_f32_grad(x);
        let (v64, g64) = jaxfns::logsumexp_grad(&xr);
        common::assert_close(v as f64, v64, 1e-6, "value");
        let g: Vec<f64> = g.iter().map(|&v| v as f64).collect();
        common::assert_all_close(&g, &g64, 1e-5, "gradient");
        let (_, d) = jaxfns::logsumexp_f32_jvp(x, [1.0, -0.5, 0.25, 2.0]);
        common::assert_close(d as f64, dot(&g, &[1.0, -0.5, 0.25, 2.0]), 1e-5, "jvp");
        let (_, _, h) = jaxfns::logsumexp_f32_hessian(x);
        for i in 0..4 {
            for j in 0..4 {
                let e = if i == j { g64[i] } else { 0.0 } - g64[i] * g64[j];
                common::assert_close(h[i][j] as f64, e, 1e-4, "hessian");
            }
        }
    }
}

#[test]
fn torch_losses() {
    use torch::*;
    let target = [0.3, -0.7, 1.1, 0.0];
    let labels = [1.0, 0.0, 1.0, 0.0];
    let signs = [1.0, -1.0, -1.0, 1.0];
    let entries: Vec<Entry> = vec![
        (
            Probe::new("smooth_l1_mean", |x| smooth_l1(x, &target, 0.5, 0))
                .grad(|x| smooth_l1_grad(x, &target, 0.5, 0))
                .jvp(|x, t| smooth_l1_jvp(x, &target, 0.5, 0, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 4];
                    let v = smooth_l1_grad_into(x, &target, 0.5, 0, &mut g);
                    (v, g)
                })
                .hessian(|x| smooth_l1_hessian(x, &target, 0.5, 0))
                .analytic(|x| {
                    (0..4)
                        .map(|i| {
                            let d = x[i] - target[i];
                            (if d.abs() < 0.5 { d / 0.5 } else { d.signum() }) / 4.0
                        })
                        .collect()
                }),
            Box::new(|r: &mut Lcg| {
                (0..4)
                    .map(|i| loop {
                        let v = r.uniform(-2.0, 2.0);
                        if ((v - target[i]).abs() - 0.5).abs() > 0.01 {
                            break v;
                        }
                    })
                    .collect()
            }),
        ),
        (
            Probe::new("smooth_l1_sum", |x| smooth_l1(x, &target, 1.0, 1))
                .grad(|x| smooth_l1_grad(x, &target, 1.0, 1))
                .hessian(|x| smooth_l1_hessian(x, &target, 1.0, 1)),
            Box::new(|r: &mut Lcg| {
                (0..4)
                    .map(|i| loop {
                        let v = r.uniform(-2.0, 2.0);
                        if ((v - target[i]).abs() - 1.0).abs() > 0.01 {
                            break v;
                        }
                    })
                    .collect()
            }),
        ),
        (
            Probe::new("huber", |x| huber(x, &target, 0.8))
                .grad(|x| huber_grad(x, &target, 0.8))
                .jvp(|x, t| huber_jvp(x, &target, 0.8, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 4];
                    let v = huber_grad_into(x, &target, 0.8, &mut g);
                    (v, g)
                })
                .hessian(|x| huber_hessian(x, &target, 0.8))
                .analytic(|x| {
                    (0..4)
                        .map(|i| (x[i] - target[i]).clamp(-0.8, 0.8) / 4.0)
                        .collect()
                }),
            Box::new(|r: &mut Lcg| {
                (0..4)
                    .map(|i| loop {
                        let v = r.uniform(-2.5, 2.5);
                        if ((v - target[i]).abs() - 0.8).abs() > 0.01 {
                            break v;
                        }
                    })
                    .collect()
            }),
        ),
        (
            Probe::new("kl_div", |x| kl_div(&x[..3], &x[3..]))
                .grad(|x| {
                    let (v, (a, b)) = kl_div_grad(&x[..3], &x[3..]);
                    (v, [a, b].concat())
                })
                .jvp(|x, t| kl_div_jvp(&x[..3], &x[3..], (t[..3].to_vec(), t[3..].to_vec())))
                .grad_into(|x| {
                    let (mut a, mut b) = (vec![GARBAGE; 3], vec![GARBAGE; 3]);
                    let v = kl_div_grad_into(&x[..3], &x[3..], (&mut a, &mut b));
                    (v, [a, b].concat())
                })
                .hessian(|x| {
                    let (v, (a, b), h) = kl_div_hessian(&x[..3], &x[3..]);
                    (v, [a, b].concat(), h)
                })
                .analytic(|x| {
                    let mut g: Vec<f64> = x[3..].iter().map(|p| -p).collect();
                    g.extend((0..3).map(|i| x[3 + i].ln() + 1.0 - x[i]));
                    g
                }),
            Box::new(|r: &mut Lcg| [r.vec(3, -3.0, 0.0), r.vec(3, 0.05, 1.0)].concat()),
        ),
        (
            Probe::new("bce_with_logits", |x| bce_with_logits(x, &labels))
                .grad(|x| bce_with_logits_grad(x, &labels))
                .jvp(|x, t| bce_with_logits_jvp(x, &labels, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 4];
                    let v = bce_with_logits_grad_into(x, &labels, &mut g);
                    (v, g)
                })
                .hessian(|x| bce_with_logits_hessian(x, &labels))
                .analytic(|x| (0..4).map(|i| (sigmoid(x[i]) - labels[i]) / 4.0).collect()),
            Box::new(away(4, -6.0, 6.0, 0.0, 0.01)),
        ),
        (
            Probe::new("margin_ranking", |x| {
                margin_ranking(&x[..4], &x[4..], &signs, 0.2)
            })
            .grad(|x| {
                let (v, (a, b)) = margin_ranking_grad(&x[..4], &x[4..], &signs, 0.2);
                (v, [a, b].concat())
            })
            .jvp(|x, t| {
                margin_ranking_jvp(
                    &x[..4],
                    &x[4..],
                    &signs,
                    0.2,
                    (t[..4].to_vec(), t[4..].to_vec()),
                )
            })
            .grad_into(|x| {
                let (mut a, mut b) = (vec![GARBAGE; 4], vec![GARBAGE; 4]);
                let v = margin_ranking_grad_into(&x[..4], &x[4..], &signs, 0.2, (&mut a, &mut b));
                (v, [a, b].concat())
            })
            .hessian(|x| {
                let (v, (a, b), h) = margin_ranking_hessian(&x[..4], &x[4..], &signs, 0.2);
                (v, [a, b].concat(), h)
            })
            .analytic(|x| {
                let mut g = vec![0.0; 8];
                for i in 0..4 {
                    if -signs[i] * (x[i] - x[4 + i]) + 0.2 > 0.0 {
                        g[i] = -signs[i] / 4.0;
                        g[4 + i] = signs[i] / 4.0;
                    }
                }
                g
            }),
            Box::new(move |r: &mut Lcg| loop {
                let x = r.vec(8, -2.0, 2.0);
                if (0..4).all(|i| (-signs[i] * (x[i] - x[4 + i]) + 0.2).abs() > 0.01) {
                    break x;
                }
            }),
        ),
        (
            Probe::new("cosine_similarity", |x| cosine_similarity(&x[..3], &x[3..]))
                .grad(|x| {
                    let (v, (a, b)) = cosine_similarity_grad(&x[..3], &x[3..]);
                    (v, [a, b].concat())
                })
                .jvp(|x, t| {
                    cosine_similarity_jvp(&x[..3], &x[3..], (t[..3].to_vec(), t[3..].to_vec()))
                })
                .grad_into(|x| {
                    let (mut a, mut b) = (vec![GARBAGE; 3], vec![GARBAGE; 3]);
                    let v = cosine_similarity_grad_into(&x[..3], &x[3..], (&mut a, &mut b));
                    (v, [a, b].concat())
                })
                .hessian(|x| {
                    let (v, (a, b), h) = cosine_similarity_hessian(&x[..3], &x[3..]);
                    (v, [a, b].concat(), h)
                })
                .analytic(|x| {
                    // d cos / da = b/(|a||b|) - cos a/|a|².
                    let (a, b) = (&x[..3], &x[3..]);
                    let (na, nb) = (dot(a, a).sqrt(), dot(b, b).sqrt());
                    let c = dot(a, b) / (na * nb);
                    let ga = (0..3).map(|i| b[i] / (na * nb) - c * a[i] / (na * na));
                    let gb = (0..3).map(|i| a[i] / (na * nb) - c * b[i] / (nb * nb));
                    ga.chain(gb).collect()
                }),
            Box::new(range(6, -2.0, 2.0)),
        ),
        (
            Probe::new("triplet", |x| {
                let (a, p, n) = triple(x);
                triplet(&a, &p, &n, 1.0)
            })
            .grad(|x| {
                let (a, p, n) = triple(x);
                let (v, (ga, gp, gn)) = triplet_grad(&a, &p, &n, 1.0);
                (v, [ga, gp, gn].concat())
            })
            .jvp(|x, t| {
                let (a, p, n) = triple(x);
                triplet_jvp(&a, &p, &n, 1.0, triple(t))
            })
            .grad_into(|x| {
                let (a, p, n) = triple(x);
                let mut g = ([GARBAGE; 3], [GARBAGE; 3], [GARBAGE; 3]);
                let v = triplet_grad_into(&a, &p, &n, 1.0, (&mut g.0, &mut g.1, &mut g.2));
                (v, [g.0, g.1, g.2].concat())
            })
            .hessian(|x| {
                let (a, p, n) = triple(x);
                let (v, (ga, gp, gn), h) = triplet_hessian(&a, &p, &n, 1.0);
                (v, [ga, gp, gn].concat(), h)
            })
            .analytic(|x| {
                let (a, p, n) = triple(x);
                let e = 1e-6;
                let dp: Vec<f64> = (0..3).map(|i| a[i] - p[i] + e).collect();
                let dn: Vec<f64> = (0..3).map(|i| a[i] - n[i] + e).collect();
                let (np, nn) = (dot(&dp, &dp).sqrt(), dot(&dn, &dn).sqrt());
                if np - nn + 1.0 <= 0.0 {
                    return vec![0.0; 9];
                }
                let ga = (0..3).map(|i| dp[i] / np - dn[i] / nn);
                let gp = (0..3).map(|i| -dp[i] / np);
                let gn = (0..3).map(|i| dn[i] / nn);
                ga.chain(gp).chain(gn).collect()
            }),
            Box::new(|r: &mut Lcg| loop {
                let x = r.vec(9, -2.0, 2.0);
                let (a, p, n) = triple(&x);
                let (dp, dn) = torch::two_distances(&a, &p, &n);
                if (dp - dn + 1.0).abs() > 0.01 {
                    break x;
                }
            }),
        ),
        (
            Probe::new("cross_entropy", |x| cross_entropy(x, 2))
                .grad(|x| cross_entropy_grad(x, 2))
                .jvp(|x, t| cross_entropy_jvp(x, 2, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 4];
                    let v = cross_entropy_grad_into(x, 2, &mut g);
                    (v, g)
                })
                .hessian(|x| cross_entropy_hessian(x, 2))
                .analytic(|x| {
                    let z: f64 = x.iter().map(|v| v.exp()).sum();
                    (0..4)
                        .map(|i| x[i].exp() / z - if i == 2 { 1.0 } else { 0.0 })
                        .collect()
                }),
            Box::new(distinct(4, -3.0, 3.0, 0.01)),
        ),
    ];
    run_all(entries);
}

fn triple(x: &[f64]) -> ([f64; 3], [f64; 3], [f64; 3]) {
    ([x[0], x[1], x[2]], [x[3], x[4], x[5]], [x[6], x[7], x[8]])
}

#[test]
fn optim_test_functions() {
    use optimfns::*;
    let entries: Vec<Entry> = vec![
        (
            Probe::new("himmelblau", |x| himmelblau([x[0], x[1]]))
                .grad(|x| {
                    let (v, g) = himmelblau_grad([x[0], x[1]]);
                    (v, g.to_vec())
                })
                .jvp(|x, t| himmelblau_jvp([x[0], x[1]], [t[0], t[1]]))
                .grad_into(|x| {
                    let mut g = [GARBAGE; 2];
                    let v = himmelblau_grad_into([x[0], x[1]], &mut g);
                    (v, g.to_vec())
                })
                .hessian(|x| {
                    let (v, g, h) = himmelblau_hessian([x[0], x[1]]);
                    (v, g.to_vec(), h)
                })
                .analytic(|x| {
                    let (a, b) = (x[0] * x[0] + x[1] - 11.0, x[0] + x[1] * x[1] - 7.0);
                    vec![4.0 * x[0] * a + 2.0 * b, 2.0 * a + 4.0 * x[1] * b]
                }),
            Box::new(range(2, -5.0, 5.0)),
        ),
        (
            Probe::new("beale", |x| beale((x[0], x[1])))
                .grad(|x| {
                    let (v, g) = beale_grad((x[0], x[1]));
                    (v, vec![g.0, g.1])
                })
                .jvp(|x, t| beale_jvp((x[0], x[1]), (t[0], t[1])))
                .grad_into(|x| {
                    let mut g = (GARBAGE, GARBAGE);
                    let v = beale_grad_into((x[0], x[1]), &mut g);
                    (v, vec![g.0, g.1])
                })
                .hessian(|x| {
                    let (v, g, h) = beale_hessian((x[0], x[1]));
                    (v, vec![g.0, g.1], h)
                })
                .analytic(|x| {
                    let c = [1.5, 2.25, 2.625];
                    let (mut gx, mut gy) = (0.0, 0.0);
                    for i in 0..3 {
                        let k = i as i32 + 1;
                        let t = c[i] - x[0] + x[0] * x[1].powi(k);
                        gx += 2.0 * t * (x[1].powi(k) - 1.0);
                        gy += 2.0 * t * x[0] * k as f64 * x[1].powi(k - 1);
                    }
                    vec![gx, gy]
                }),
            Box::new(range(2, -4.5, 4.5)),
        ),
        (
            two("booth", booth, booth_grad, booth_jvp, booth_grad_into)
                .hessian(hess2(booth_hessian))
                .analytic(|x| {
                    let (a, b) = (x[0] + 2.0 * x[1] - 7.0, 2.0 * x[0] + x[1] - 5.0);
                    vec![2.0 * a + 4.0 * b, 4.0 * a + 2.0 * b]
                }),
            Box::new(range(2, -10.0, 10.0)),
        ),
        (
            two("matyas", matyas, matyas_grad, matyas_jvp, matyas_grad_into)
                .hessian(hess2(matyas_hessian))
                .analytic(|x| vec![0.52 * x[0] - 0.48 * x[1], 0.52 * x[1] - 0.48 * x[0]]),
            Box::new(range(2, -10.0, 10.0)),
        ),
        (
            two(
                "six_hump_camel",
                six_hump_camel,
                six_hump_camel_grad,
                six_hump_camel_jvp,
                six_hump_camel_grad_into,
            )
            .hessian(hess2(six_hump_camel_hessian))
            .analytic(|x| {
                let (a, b) = (x[0], x[1]);
                vec![
                    8.0 * a - 8.4 * a.powi(3) + 2.0 * a.powi(5) + b,
                    a - 8.0 * b + 16.0 * b.powi(3),
                ]
            }),
            Box::new(range(2, -3.0, 3.0)),
        ),
        (
            slice(
                "styblinski_tang",
                styblinski_tang::<f64>,
                styblinski_tang_grad::<f64>,
                styblinski_tang_jvp::<f64>,
                styblinski_tang_grad_into::<f64>,
            )
            .hessian(hess_slice(styblinski_tang_hessian::<f64>))
            .analytic(|x| x.iter().map(|v| 2.0 * v.powi(3) - 16.0 * v + 2.5).collect()),
            Box::new(range(4, -5.0, 5.0)),
        ),
        (
            slice("ackley", ackley, ackley_grad, ackley_jvp, ackley_grad_into)
                .hessian(hess_slice(ackley_hessian))
                .analytic(|x| {
                    let n = x.len() as f64;
                    let tau = 2.0 * std::f64::consts::PI;
                    let r = (dot(x, x) / n).sqrt();
                    let cs = x.iter().map(|v| (tau * v).cos()).sum::<f64>() / n;
                    x.iter()
                        .map(|v| {
                            4.0 * (-0.2 * r).exp() * v / (n * r)
                                + cs.exp() * tau * (tau * v).sin() / n
                        })
                        .collect()
                }),
            Box::new(range(3, -2.0, 2.0)),
        ),
        (
            slice(
                "rastrigin",
                rastrigin,
                rastrigin_grad,
                rastrigin_jvp,
                rastrigin_grad_into,
            )
            .hessian(hess_slice(rastrigin_hessian))
            .analytic(|x| {
                let tau = 2.0 * std::f64::consts::PI;
                x.iter()
                    .map(|v| 2.0 * v + 10.0 * tau * (tau * v).sin())
                    .collect()
            }),
            Box::new(range(4, -5.12, 5.12)),
        ),
        (
            slice("levy", levy, levy_grad, levy_jvp, levy_grad_into)
                .hessian(hess_slice(levy_hessian)),
            Box::new(range(4, -10.0, 10.0)),
        ),
        (
            slice(
                "griewank",
                griewank,
                griewank_grad,
                griewank_jvp,
                griewank_grad_into,
            )
            .hessian(hess_slice(griewank_hessian))
            .analytic(|x| {
                let c: Vec<f64> = (0..x.len())
                    .map(|i| x[i] / ((i + 1) as f64).sqrt())
                    .collect();
                (0..x.len())
                    .map(|i| {
                        let others: f64 = (0..x.len())
                            .filter(|&j| j != i)
                            .map(|j| c[j].cos())
                            .product();
                        x[i] / 2000.0 + others * c[i].sin() / ((i + 1) as f64).sqrt()
                    })
                    .collect()
            }),
            Box::new(range(4, -10.0, 10.0)),
        ),
    ];
    run_all(entries);
}

/// The `f32` Himmelblau against the `f64` one, its Hessian against the formula; Styblinski–Tang on
/// `Dual` (the tangent of the function is the directional derivative); the known minima have zero
/// gradients.
#[test]
fn optim_f32_dual_and_minima() {
    use autodiff::Dual;
    use optimfns::*;
    for (x, y) in [(3.0f32, 2.0f32), (-1.5, 0.7), (0.2, -2.5)] {
        let (v, (gx, gy)) = himmelblau_f32_grad(x, y);
        let (v64, g64) = himmelblau_grad([x as f64, y as f64]);
        common::assert_close(v as f64, v64, 1e-5, "himmelblau_f32 value");
        common::assert_all_close(&[gx as f64, gy as f64], &g64, 1e-5, "himmelblau_f32 grad");
        let (_, _, h) = himmelblau_f32_hessian(x, y);
        let (x, y) = (x as f64, y as f64);
        let e = [
            [12.0 * x * x + 4.0 * y - 42.0, 4.0 * (x + y)],
            [4.0 * (x + y), 4.0 * x + 12.0 * y * y - 26.0],
        ];
        for i in 0..2 {
            common::assert_all_close(
                &[h[i][0] as f64, h[i][1] as f64],
                &e[i],
                1e-5,
                "himmelblau_f32 hessian",
            );
        }
    }
    // Himmelblau's minimum (3, 2), Booth's (1, 3), Matyas' (0, 0), Beale's (3, 0.5).
    assert_eq!(himmelblau_grad([3.0, 2.0]), (0.0, [0.0, 0.0]));
    assert_eq!(booth_grad(1.0, 3.0), (0.0, (0.0, 0.0)));
    assert_eq!(matyas_grad(0.0, 0.0), (0.0, (0.0, 0.0)));
    let (v, (gx, gy)) = beale_grad((3.0, 0.5));
    assert!(v.abs() < 1e-15 && gx.abs() < 1e-14 && gy.abs() < 1e-14);
    let x = [0.5, -2.9, 1.7];
    let t = [1.0, 0.5, -0.25];
    let duals: Vec<Dual<f64>> = (0..3).map(|i| Dual::new(x[i], t[i])).collect();
    let d = styblinski_tang(&duals);
    let (v, g) = styblinski_tang_grad(&x);
    common::assert_close(d.re, v, 1e-14, "Dual value");
    common::assert_close(d.eps, dot(&g, &t), 1e-13, "Dual tangent");
}

#[test]
fn physics_energies() {
    use physics::*;
    const EDGES: [(usize, usize); 5] = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 1)];
    const REST: [f64; 5] = [1.0, 1.2, 0.9, 1.1, 1.0];
    let forces = [0.3, -0.2, 0.5];
    let entries: Vec<Entry> = vec![
        (
            Probe::new("lennard_jones", |x| lennard_jones(&x[..12], x[12], 1.6))
                .grad(|x| {
                    let (v, (gp, gs)) = lennard_jones_grad(&x[..12], x[12], 1.6);
                    (v, [gp, vec![gs]].concat())
                })
                .jvp(|x, t| lennard_jones_jvp(&x[..12], x[12], 1.6, (t[..12].to_vec(), t[12])))
                .grad_into(|x| {
                    let (mut gp, mut gs) = (vec![GARBAGE; 12], GARBAGE);
                    let v = lennard_jones_grad_into(&x[..12], x[12], 1.6, (&mut gp, &mut gs));
                    (v, [gp, vec![gs]].concat())
                })
                .hessian(|x| {
                    let (v, (gp, gs), h) = lennard_jones_hessian(&x[..12], x[12], 1.6);
                    (v, [gp, vec![gs]].concat(), h)
                })
                .analytic(|x| lj_gradient(&x[..12], x[12], 1.6)),
            Box::new(|r: &mut Lcg| {
                // Four particles near a tetrahedron of edge ~1.1, some pairs past the cutoff.
                let base = [
                    [0.0, 0.0, 0.0],
                    [1.1, 0.0, 0.0],
                    [0.55, 0.95, 0.0],
                    [0.55, 0.32, 1.6],
                ];
                loop {
                    let mut x: Vec<f64> = base.iter().flat_map(|p| p.to_vec()).collect();
                    for v in x.iter_mut() {
                        *v += r.uniform(-0.1, 0.1);
                    }
                    x.push(r.uniform(0.9, 1.1));
                    let near_cutoff = (0..4).any(|i| {
                        (i + 1..4).any(|j| {
                            let d2: f64 =
                                (0..3).map(|d| (x[3 * i + d] - x[3 * j + d]).powi(2)).sum();
                            (d2.sqrt() - 1.6).abs() < 0.01
                        })
                    });
                    if !near_cutoff {
                        break x;
                    }
                }
            }),
        ),
        (
            Probe::new("spring_energy", |x| {
                spring_energy(&x[..8], &EDGES, &REST, x[8])
            })
            .grad(|x| {
                let (v, (gx, gk)) = spring_energy_grad(&x[..8], &EDGES, &REST, x[8]);
                (v, [gx, vec![gk]].concat())
            })
            .jvp(|x, t| spring_energy_jvp(&x[..8], &EDGES, &REST, x[8], (t[..8].to_vec(), t[8])))
            .grad_into(|x| {
                let (mut gx, mut gk) = (vec![GARBAGE; 8], GARBAGE);
                let v = spring_energy_grad_into(&x[..8], &EDGES, &REST, x[8], (&mut gx, &mut gk));
                (v, [gx, vec![gk]].concat())
            })
            .hessian(|x| {
                let (v, (gx, gk), h) = spring_energy_hessian(&x[..8], &EDGES, &REST, x[8]);
                (v, [gx, vec![gk]].concat(), h)
            })
            .analytic(|x| {
                let k = x[8];
                let mut g = vec![0.0; 9];
                for (m, &(i, j)) in EDGES.iter().enumerate() {
                    let d = [x[2 * i] - x[2 * j], x[2 * i + 1] - x[2 * j + 1]];
                    let len = dot(&d, &d).sqrt();
                    let f = k * (len - REST[m]) / len;
                    for c in 0..2 {
                        g[2 * i + c] += f * d[c];
                        g[2 * j + c] -= f * d[c];
                    }
                    g[8] += 0.5 * (len - REST[m]).powi(2);
                }
                g
            }),
            Box::new(|r: &mut Lcg| {
                let base = [0.0, 0.0, 1.0, 0.1, 0.4, 0.9, 1.3, 1.0];
                let mut x: Vec<f64> = base.iter().map(|b| b + r.uniform(-0.2, 0.2)).collect();
                x.push(r.uniform(0.5, 3.0));
                x
            }),
        ),
        (
            Probe::new("fem_energy", |x| fem_energy(&x[..3], &x[3..], &forces))
                .grad(|x| {
                    let (v, (gk, gu)) = fem_energy_grad(&x[..3], &x[3..], &forces);
                    (v, [gk, gu].concat())
                })
                .jvp(|x, t| {
                    fem_energy_jvp(
                        &x[..3],
                        &x[3..],
                        &forces,
                        (t[..3].to_vec(), t[3..].to_vec()),
                    )
                })
                .grad_into(|x| {
                    let (mut gk, mut gu) = (vec![GARBAGE; 3], vec![GARBAGE; 3]);
                    let v = fem_energy_grad_into(&x[..3], &x[3..], &forces, (&mut gk, &mut gu));
                    (v, [gk, gu].concat())
                })
                .hessian(|x| {
                    let (v, (gk, gu), h) = fem_energy_hessian(&x[..3], &x[3..], &forces);
                    (v, [gk, gu].concat(), h)
                })
                .analytic(|x| {
                    // dE/dk_e = (u_{e+1} - u_e)²/2 with u_0 = 0; dE/du = K u - f.
                    let k = &x[..3];
                    let full = [0.0, x[3], x[4], x[5]];
                    let mut g = vec![0.0; 6];
                    for e in 0..3 {
                        let s = full[e + 1] - full[e];
                        g[e] = 0.5 * s * s;
                        if e > 0 {
                            g[3 + e - 1] -= k[e] * s;
                        }
                        g[3 + e] += k[e] * s;
                    }
                    for i in 0..3 {
                        g[3 + i] -= forces[i];
                    }
                    g
                }),
            Box::new(|r: &mut Lcg| [r.vec(3, 0.5, 3.0), r.vec(3, -1.0, 1.0)].concat()),
        ),
        (
            Probe::new("verlet_loss", |x| {
                verlet_loss(x[0], x[1], x[2], 0.1, 8, 0.5)
            })
            .grad(|x| {
                let (v, g) = verlet_loss_grad(x[0], x[1], x[2], 0.1, 8, 0.5);
                (v, vec![g.0, g.1, g.2])
            })
            .jvp(|x, t| verlet_loss_jvp(x[0], x[1], x[2], 0.1, 8, 0.5, (t[0], t[1], t[2])))
            .grad_into(|x| {
                let (mut a, mut b, mut c) = (GARBAGE, GARBAGE, GARBAGE);
                let v =
                    verlet_loss_grad_into(x[0], x[1], x[2], 0.1, 8, 0.5, (&mut a, &mut b, &mut c));
                (v, vec![a, b, c])
            })
            .hessian(|x| {
                let (v, g, h) = verlet_loss_hessian(x[0], x[1], x[2], 0.1, 8, 0.5);
                (v, vec![g.0, g.1, g.2], h)
            }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(-1.0, 1.0),
                    r.uniform(-1.0, 1.0),
                    r.uniform(0.5, 4.0),
                ]
            }),
        ),
        (
            Probe::new("verlet_loss_zero_steps", |x| {
                verlet_loss(x[0], x[1], x[2], 0.1, 0, 0.5)
            })
            .grad(|x| {
                let (v, g) = verlet_loss_grad(x[0], x[1], x[2], 0.1, 0, 0.5);
                (v, vec![g.0, g.1, g.2])
            })
            .hessian(|x| {
                let (v, g, h) = verlet_loss_hessian(x[0], x[1], x[2], 0.1, 0, 0.5);
                (v, vec![g.0, g.1, g.2], h)
            })
            .analytic(|x| vec![2.0 * (x[0] - 0.5), 0.0, 0.0]),
            Box::new(range(3, -1.0, 1.0)),
        ),
        (
            Probe::new("cluster_energy", |x| cluster(x).energy())
                .grad(|x| {
                    let (v, g) = cluster(x).energy_grad();
                    (v, [g.pos, vec![g.epsilon]].concat())
                })
                .jvp(|x, t| cluster(x).energy_jvp(cluster(t)))
                .hessian(|x| {
                    let (v, g, h) = cluster(x).energy_hessian();
                    (v, [g.pos, vec![g.epsilon]].concat(), h)
                })
                .analytic(|x| {
                    // The free-function Lennard-Jones in 2-D, σ = 1, no cutoff, scaled by ε.
                    let c = cluster(x);
                    let mut g = vec![0.0; 7];
                    let mut e = 0.0;
                    for i in 0..3 {
                        for j in i + 1..3 {
                            let d = [
                                c.pos[2 * i] - c.pos[2 * j],
                                c.pos[2 * i + 1] - c.pos[2 * j + 1],
                            ];
                            let r2 = dot(&d, &d);
                            let s6 = r2.powi(-3);
                            e += 4.0 * (s6 * s6 - s6);
                            // dV/dr2 = 4ε(-6 s6²/r2 + 3 s6/r2).
                            let dv = 4.0 * c.epsilon * (-6.0 * s6 * s6 + 3.0 * s6) / r2;
                            for k in 0..2 {
                                g[2 * i + k] += dv * 2.0 * d[k];
                                g[2 * j + k] -= dv * 2.0 * d[k];
                            }
                        }
                    }
                    g[6] = e;
                    g
                }),
            Box::new(|r: &mut Lcg| {
                let base = [0.0, 0.0, 1.1, 0.0, 0.5, 1.0];
                let mut x: Vec<f64> = base.iter().map(|b| b + r.uniform(-0.1, 0.1)).collect();
                x.push(r.uniform(0.5, 2.0));
                x
            }),
        ),
    ];
    run_all(entries);
}

fn cluster(x: &[f64]) -> physics::Cluster {
    physics::Cluster {
        pos: x[..6].to_vec(),
        epsilon: x[6],
        n: 3,
    }
}

/// The Lennard-Jones gradient by hand: `V(r²) = 4((σ²/r²)⁶ - (σ²/r²)³) - shift`, `dV/dr² = 4(-6 s6²
/// + 3 s6)/r²` on each coordinate difference times 2; `dV/dσ = 4(12 s6² - 6 s6)/σ` minus the shift's.
fn lj_gradient(pos: &[f64], sigma: f64, cutoff: f64) -> Flat {
    let mut g = vec![0.0; 13];
    let sc6 = (sigma * sigma / (cutoff * cutoff)).powi(3);
    let dshift = 4.0 * (12.0 * sc6 * sc6 - 6.0 * sc6) / sigma;
    for i in 0..4 {
        for j in i + 1..4 {
            let d: Vec<f64> = (0..3).map(|k| pos[3 * i + k] - pos[3 * j + k]).collect();
            let r2 = dot(&d, &d);
            if r2 > cutoff * cutoff {
                continue;
            }
            let s6 = (sigma * sigma / r2).powi(3);
            let dv = 4.0 * (-6.0 * s6 * s6 + 3.0 * s6) / r2;
            for k in 0..3 {
                g[3 * i + k] += dv * 2.0 * d[k];
                g[3 * j + k] -= dv * 2.0 * d[k];
            }
            g[12] += 4.0 * (12.0 * s6 * s6 - 6.0 * s6) / sigma - dshift;
        }
    }
    g
}

/// The FEM energy's Hessian by hand: in `u` it is the reduced stiffness matrix; `∂²E/∂k_e∂u` is the
/// derivative of `(u_{e+1} - u_e)²/2`; `∂²E/∂k²` is zero.
#[test]
fn fem_hessian_by_hand() {
    let k = [2.0, 1.5, 0.7];
    let u = [0.1, -0.3, 0.4];
    let (_, _, h) = physics::fem_energy_hessian(&k, &u, &[0.3, -0.2, 0.5]);
    let full = [0.0, u[0], u[1], u[2]];
    let mut e = vec![vec![0.0; 6]; 6];
    for el in 0..3 {
        let s = full[el + 1] - full[el];
        // ∂/∂u of s²/2 is s on u_{el+1}, -s on u_el.
        e[el][3 + el] += s;
        e[3 + el][el] += s;
        if el > 0 {
            e[el][3 + el - 1] -= s;
            e[3 + el - 1][el] -= s;
        }
        let a = 3 + el;
        e[a][a] += k[el];
        if el > 0 {
            e[a - 1][a - 1] += k[el];
            e[a][a - 1] -= k[el];
            e[a - 1][a] -= k[el];
        }
    }
    for i in 0..6 {
        common::assert_all_close(&h[i], &e[i], 1e-13, &format!("fem H row {i}"));
    }
}

#[test]
fn tf_custom_gradients() {
    use tfcustom::*;
    let data = [0.7, -1.3, 2.0];
    let entries: Vec<Entry> = vec![
        (
            Probe::new("softplus_layer", |x| softplus_layer(&x[..3], &x[3..]))
                .grad(|x| {
                    let (v, (a, b)) = softplus_layer_grad(&x[..3], &x[3..]);
                    (v, [a, b].concat())
                })
                .jvp(|x, t| {
                    softplus_layer_jvp(&x[..3], &x[3..], (t[..3].to_vec(), t[3..].to_vec()))
                })
                .grad_into(|x| {
                    let (mut a, mut b) = (vec![GARBAGE; 3], vec![GARBAGE; 3]);
                    let v = softplus_layer_grad_into(&x[..3], &x[3..], (&mut a, &mut b));
                    (v, [a, b].concat())
                })
                .hessian(|x| {
                    let (v, (a, b), h) = softplus_layer_hessian(&x[..3], &x[3..]);
                    (v, [a, b].concat(), h)
                })
                .analytic(|x| {
                    let s: Vec<f64> = (0..3).map(|i| sigmoid(x[i] * x[3 + i])).collect();
                    let ga = (0..3).map(|i| s[i] * x[3 + i]);
                    let gb = (0..3).map(|i| s[i] * x[i]);
                    ga.chain(gb).collect()
                }),
            Box::new(range(6, -3.0, 3.0)),
        ),
        (
            one(
                "half_log1pexp_2x",
                half_log1pexp_2x,
                half_log1pexp_2x_grad,
                half_log1pexp_2x_jvp,
                half_log1pexp_2x_grad_into,
            )
            .hessian(hess1(half_log1pexp_2x_hessian, |x| {
                let d = half_log1pexp_2x_derivatives(x);
                [d[0], d[1], d[2]]
            }))
            .analytic(|x| vec![sigmoid(2.0 * x[0])]),
            Box::new(range(1, -8.0, 8.0)),
        ),
        (
            // The clipped closure is not linear in dy: forward mode and the Hessian's symmetry do not
            // apply; the Hessian is checked against central differences of `_grad` below.
            one(
                "clipped_cube",
                clipped_cube,
                clipped_cube_grad,
                clipped_cube_jvp,
                clipped_cube_grad_into,
            )
            .no_jvp()
            .no_fd()
            .analytic(|x| vec![2.0 * x[0] * x[0].clamp(-0.5, 0.5) + x[0] * x[0]]),
            Box::new(away(1, -2.0, 2.0, 0.5, 0.01)),
        ),
        (
            Probe::new("quantised_loss", |x| quantised_loss(x, &data))
                .grad(|x| quantised_loss_grad(x, &data))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 3];
                    let v = quantised_loss_grad_into(x, &data, &mut g);
                    (v, g)
                })
                .no_fd()
                .analytic(|x| {
                    (0..3)
                        .map(|i| {
                            let q = (4.0 * x[i]).round() / 4.0;
                            2.0 * (q * data[i] - 1.0) * data[i]
                        })
                        .collect()
                }),
            Box::new(away(3, -1.5, 1.5, 0.125, 0.0)),
        ),
    ];
    run_all(entries);
}

/// `log1pexp` at third order through `half_log1pexp_2x`: with s = σ(2x), f' = s, f'' = 2 s(1 - s),
/// f''' = 4 s(1 - s)(1 - 2s) (the closure's captured `e = e^{2x}` carries the second and third
/// derivatives); and against central differences of the lower entries.
#[test]
fn tf_log1pexp_order_three() {
    check_third(
        "half_log1pexp_2x",
        |x| tfcustom::half_log1pexp_2x_derivatives(x),
        6,
        -4.0,
        4.0,
    );
    for x in [-5.0, -0.3, 0.0, 0.8, 3.0] {
        let s = sigmoid(2.0 * x);
        let d = tfcustom::half_log1pexp_2x_derivatives(x);
        common::assert_all_close(
            &d,
            &[
                (1.0 + (2.0 * x).exp()).ln() / 2.0,
                s,
                2.0 * s * (1.0 - s),
                4.0 * s * (1.0 - s) * (1.0 - 2.0 * s),
            ],
            1e-12,
            "derivatives",
        );
    }
}

/// The clipped gradient at second order, as `jax.hessian` of a `custom_vjp` gives it (the Jacobian of
/// `_grad`): g(x) = 2x clamp(x, ±0.5) + x², so H = 6x inside, 1 + 2x above 0.5, -1 + 2x below -0.5;
/// and against central differences of `_grad`.
#[test]
fn tf_clipped_gradient_second_order() {
    for x in [-1.7, -0.8, -0.3, 0.1, 0.45, 0.6, 1.9] {
        let (v, g, h) = tfcustom::clipped_cube_hessian(x);
        common::assert_close(v, x * x * x, 1e-15, "value");
        common::assert_close(g, tfcustom::clipped_cube_grad(x).1, 1e-15, "gradient");
        let e = if x > 0.5 {
            1.0 + 2.0 * x
        } else if x < -0.5 {
            -1.0 + 2.0 * x
        } else {
            6.0 * x
        };
        common::assert_close(h[0][0], e, 1e-13, "hessian by hand");
        let fd = common::central_difference(|y| tfcustom::clipped_cube_grad(y).1, x);
        common::assert_close(h[0][0], fd, 1e-6, "hessian against central differences");
        let d = tfcustom::clipped_cube_derivatives(x);
        common::assert_all_close(&d, &[v, g, e], 1e-13, "derivatives");
    }
}

/// The straight-through `round` at second order: `_grad` is `2 (q x - 1) x` with q = round(4w)/4 and
/// q's own derivative zero (the value comes from `round`), so the Hessian in `w` is zero.
#[test]
fn tf_straight_through_second_order() {
    let data = [0.7, -1.3, 2.0];
    for w in [[0.3, -0.2, 0.9], [1.1, 0.05, -0.6]] {
        let (v, g, h) = tfcustom::quantised_loss_hessian(&w, &data);
        let (v2, g2) = tfcustom::quantised_loss_grad(&w, &data);
        assert_eq!(v, v2);
        common::assert_all_close(&g, &g2, 1e-15, "gradient");
        for row in &h {
            common::assert_all_close(row, &[0.0; 3], 1e-15, "hessian");
        }
        let (_, d) = tfcustom::quantised_loss_jvp(&w, &data, vec![1.0, 0.0, 0.0]);
        common::assert_close(d, g2[0], 1e-14, "jvp along e0");
    }
}

#[test]
fn second_round_forms() {
    use round2::*;
    let entries: Vec<Entry> = vec![
        (
            slice(
                "logsumexp_t",
                logsumexp_t::<f64>,
                logsumexp_t_grad::<f64>,
                logsumexp_t_jvp::<f64>,
                logsumexp_t_grad_into::<f64>,
            )
            .hessian(hess_slice(logsumexp_t_hessian::<f64>))
            .analytic(|x| jaxfns::logsumexp_grad(x).1),
            Box::new(distinct(4, -3.0, 3.0, 0.01)),
        ),
        (
            slice(
                "variance_by_closure",
                variance_by_closure,
                variance_by_closure_grad,
                variance_by_closure_jvp,
                variance_by_closure_grad_into,
            )
            .hessian(hess_slice(variance_by_closure_hessian))
            .analytic(|x| {
                let n = x.len() as f64;
                let m = x.iter().sum::<f64>() / n;
                x.iter().map(|v| 2.0 * (v - m) / n).collect()
            }),
            Box::new(range(5, -2.0, 2.0)),
        ),
        (
            slice(
                "gradient_sq",
                gradient_sq,
                gradient_sq_grad,
                gradient_sq_jvp,
                gradient_sq_grad_into,
            )
            .hessian(hess_slice(gradient_sq_hessian)),
            Box::new(range(5, -2.0, 2.0)),
        ),
        (
            Probe::new("self_attention", |x| self_attention(&rows3(x)))
                .grad(|x| {
                    let (v, g) = self_attention_grad(&rows3(x));
                    (v, g.concat())
                })
                .jvp(|x, t| self_attention_jvp(&rows3(x), rows3(t)))
                .hessian(|x| {
                    let (v, g, h) = self_attention_hessian(&rows3(x));
                    (v, g.concat(), h)
                }),
            Box::new(range(6, -1.5, 1.5)),
        ),
        (
            Probe::new("softplus_mlp", |x| softplus_mlp(&x[..3], &x[3..]))
                .grad(|x| {
                    let (v, (a, b)) = softplus_mlp_grad(&x[..3], &x[3..]);
                    (v, [a, b].concat())
                })
                .jvp(|x, t| softplus_mlp_jvp(&x[..3], &x[3..], (t[..3].to_vec(), t[3..].to_vec())))
                .hessian(|x| {
                    let (v, (a, b), h) = softplus_mlp_hessian(&x[..3], &x[3..]);
                    (v, [a, b].concat(), h)
                })
                .analytic(|x| {
                    let s: Vec<f64> = (0..3).map(|i| sigmoid(x[i] * x[3 + i] + 0.1)).collect();
                    let ga = (0..3).map(|i| s[i] * x[3 + i]);
                    let gb = (0..3).map(|i| s[i] * x[i]);
                    ga.chain(gb).collect()
                }),
            Box::new(|r: &mut Lcg| loop {
                let x = r.vec(6, -2.0, 2.0);
                if (0..3).all(|i| (x[i] * x[3 + i] + 0.1).abs() > 0.01) {
                    break x;
                }
            }),
        ),
        (
            two(
                "verlet_array",
                verlet_array,
                verlet_array_grad,
                verlet_array_jvp,
                verlet_array_grad_into,
            )
            .hessian(hess2(verlet_array_hessian)),
            Box::new(range(2, -1.0, 1.0)),
        ),
        (
            two(
                "hypot_energy",
                hypot_energy,
                hypot_energy_grad,
                hypot_energy_jvp,
                hypot_energy_grad_into,
            )
            .hessian(hess2(hypot_energy_hessian))
            .analytic(|x| {
                let r = x[0].hypot(x[1]);
                vec![3.0 * r * x[0], 3.0 * r * x[1]]
            }),
            Box::new(range(2, -2.0, 2.0)),
        ),
        (
            Probe::new("logistic_loss", |x| logistic(x).loss(&XS, &YS))
                .grad(|x| {
                    let (v, g) = logistic(x).loss_grad(&XS, &YS);
                    (v, [g.w.to_vec(), vec![g.b]].concat())
                })
                .jvp(|x, t| logistic(x).loss_jvp(&XS, &YS, logistic(t)))
                .hessian(|x| {
                    let (v, g, h) = logistic(x).loss_hessian(&XS, &YS);
                    (v, [g.w.to_vec(), vec![g.b]].concat(), h)
                })
                .analytic(|x| {
                    let p = logistic(x);
                    let mut g = vec![0.0; 4];
                    for k in 0..3 {
                        let z = p.b + dot(&p.w, &XS[k]);
                        let e = sigmoid(z) - YS[k];
                        for i in 0..3 {
                            g[i] += e * XS[k][i];
                        }
                        g[3] += e;
                    }
                    let lse = jaxfns::logsumexp_grad(&p.w).1;
                    for i in 0..3 {
                        g[i] += 0.01 * lse[i];
                    }
                    g
                }),
            Box::new(|r: &mut Lcg| loop {
                let x = r.vec(4, -1.5, 1.5);
                let p = logistic(&x);
                let ok = (0..3).all(|k| (p.b + dot(&p.w, &XS[k])).abs() > 0.01);
                let distinct = (0..3).all(|i| (0..i).all(|j| (x[i] - x[j]).abs() > 0.01));
                if ok && distinct {
                    break x;
                }
            }),
        ),
        (
            Probe::new("coulomb_guarded", |x| coulomb_guarded(x, 0.3))
                .grad(|x| coulomb_guarded_grad(x, 0.3))
                .jvp(|x, t| coulomb_guarded_jvp(x, 0.3, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 6];
                    let v = coulomb_guarded_grad_into(x, 0.3, &mut g);
                    (v, g)
                })
                .hessian(|x| coulomb_guarded_hessian(x, 0.3)),
            Box::new(|r: &mut Lcg| loop {
                let base = [0.0, 0.0, 0.6, 0.0, 0.2, 0.5];
                let x: Vec<f64> = base.iter().map(|b| b + r.uniform(-0.25, 0.25)).collect();
                let d =
                    |i: usize, j: usize| (x[2 * i] - x[2 * j]).hypot(x[2 * i + 1] - x[2 * j + 1]);
                if [(0, 1), (0, 2), (1, 2)]
                    .iter()
                    .all(|&(i, j)| (d(i, j) - 0.3).abs() > 0.01)
                {
                    break x;
                }
            }),
        ),
        (
            slice(
                "rosenbrock_zip",
                rosenbrock_zip,
                rosenbrock_zip_grad,
                rosenbrock_zip_jvp,
                rosenbrock_zip_grad_into,
            )
            .hessian(hess_slice(rosenbrock_zip_hessian))
            .analytic(|x| {
                let n = x.len();
                let mut g = vec![0.0; n];
                for i in 0..n - 1 {
                    let t = x[i + 1] - x[i] * x[i];
                    g[i] += -400.0 * t * x[i] - 2.0 * (1.0 - x[i]);
                    g[i + 1] += 200.0 * t;
                }
                g
            }),
            Box::new(range(4, -2.0, 2.0)),
        ),
        (
            slice(
                "triplet_packed",
                triplet_packed,
                triplet_packed_grad,
                triplet_packed_jvp,
                triplet_packed_grad_into,
            )
            .hessian(hess_slice(triplet_packed_hessian))
            .analytic(|x| {
                let dp = [x[0] - x[2], x[1] - x[3]];
                let dn = [x[0] - x[4], x[1] - x[5]];
                let (np, nn) = (dot(&dp, &dp).sqrt(), dot(&dn, &dn).sqrt());
                if np - nn + 0.5 <= 0.0 {
                    return vec![0.0; 6];
                }
                vec![
                    dp[0] / np - dn[0] / nn,
                    dp[1] / np - dn[1] / nn,
                    -dp[0] / np,
                    -dp[1] / np,
                    dn[0] / nn,
                    dn[1] / nn,
                ]
            }),
            Box::new(|r: &mut Lcg| loop {
                let x = r.vec(6, -2.0, 2.0);
                let (dp, dn) = pair_dists(&x[0..2], &x[2..4], &x[4..6]);
                if (dp - dn + 0.5).abs() > 0.01 {
                    break x;
                }
            }),
        ),
    ];
    run_all(entries);
    check_vector(
        "cumsum_in_place",
        5,
        range(5, -2.0, 2.0),
        &|x| cumsum_in_place(x),
        &|x, c| cumsum_in_place_vjp(x, c.to_vec()),
        &|x, t| cumsum_in_place_jvp(x, t.to_vec()),
        Some(&|x| cumsum_in_place_jacobian(x)),
    );
    check_vector(
        "pair_dists",
        5,
        range(6, -2.0, 2.0),
        &|x| {
            let (a, b) = pair_dists(&x[0..2], &x[2..4], &x[4..6]);
            vec![a, b]
        },
        &|x, c| {
            let ((a, b), (ga, gp, gn)) = pair_dists_vjp(&x[0..2], &x[2..4], &x[4..6], (c[0], c[1]));
            (vec![a, b], [ga, gp, gn].concat())
        },
        &|x, t| {
            let ((a, b), (da, db)) = pair_dists_jvp(
                &x[0..2],
                &x[2..4],
                &x[4..6],
                (t[0..2].to_vec(), t[2..4].to_vec(), t[4..6].to_vec()),
            );
            (vec![a, b], vec![da, db])
        },
        None,
    );
}

const XS: [[f64; 3]; 3] = [[0.5, -1.0, 0.2], [1.5, 0.3, -0.7], [-0.4, 0.8, 1.1]];
const YS: [f64; 3] = [1.0, 0.0, 1.0];

fn logistic(x: &[f64]) -> round2::Logistic {
    round2::Logistic {
        w: [x[0], x[1], x[2]],
        b: x[3],
    }
}

fn rows3(x: &[f64]) -> Vec<Vec<f64>> {
    x.chunks(2).map(|r| r.to_vec()).collect()
}

/// The `f32` custom gradient at second order: F = L(xy) + x²/2 with L' = σ; g = (σ y + x, σ x);
/// H = [[σ' y² + 1, σ' x y + σ], [σ' x y + σ, σ' x²]] with σ' = σ(1 - σ). And `gelu_f32` against the
/// `f64` `gelu` to the third derivative.
#[test]
fn second_round_f32() {
    for (x, y) in [(0.5f32, -1.2f32), (-1.5, 0.3), (2.0, 1.1)] {
        let (v, (gx, gy), h) = round2::softplus_energy_f32_hessian(x, y);
        let (x, y) = (x as f64, y as f64);
        let s = sigmoid(x * y);
        let ds = s * (1.0 - s);
        common::assert_close(
            v as f64,
            (1.0 + (x * y).exp()).ln() + 0.5 * x * x,
            1e-6,
            "value",
        );
        common::assert_all_close(
            &[gx as f64, gy as f64],
            &[s * y + x, s * x],
            1e-5,
            "gradient",
        );
        let e = [
            [ds * y * y + 1.0, ds * x * y + s],
            [ds * x * y + s, ds * x * x],
        ];
        for i in 0..2 {
            common::assert_all_close(&[h[i][0] as f64, h[i][1] as f64], &e[i], 1e-5, "hessian");
        }
    }
    for x in [-2.5f32, -0.3, 0.7, 1.9] {
        let d = round2::gelu_f32_derivatives(x);
        let e = jaxfns::gelu_derivatives(x as f64);
        for k in 0..4 {
            common::assert_close(d[k] as f64, e[k], 1e-4, &format!("gelu_f32 derivative {k}"));
        }
    }
}

const EDGES3: [(usize, usize); 5] = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 1)];
const REST3: [f64; 5] = [1.0, 1.2, 0.9, 1.1, 1.0];

/// The forces written to an output buffer are `-∇E` of `spring_energy`, and their Jacobian is `-H`
/// (the Hessian of the energy in `x`), by central differences as well.
#[test]
fn third_round_output_forces() {
    let mut rng = Lcg::new(3232);
    for _ in 0..5 {
        let base = [0.0, 0.0, 1.0, 0.1, 0.4, 0.9, 1.3, 1.0];
        let x: Vec<f64> = base.iter().map(|b| b + rng.uniform(-0.2, 0.2)).collect();
        let k = rng.uniform(0.5, 3.0);
        let mut f = vec![GARBAGE; 8];
        round3::spring_forces(&x, &EDGES3, &REST3, k, &mut f);
        let (_, (g, _), h) = physics::spring_energy_hessian(&x, &EDGES3, &REST3, k);
        let neg: Vec<f64> = g.iter().map(|v| -v).collect();
        common::assert_all_close(&f, &neg, 1e-13, "forces = -grad E");
        let mut scratch = vec![GARBAGE; 8];
        let j = round3::spring_forces_jacobian(&x, &EDGES3, &REST3, k, &mut scratch);
        for i in 0..8 {
            let neg: Vec<f64> = h[i][..8].iter().map(|v| -v).collect();
            common::assert_all_close(&j[i], &neg, 1e-12, &format!("J row {i} = -H"));
        }
        let fd = common::fd_jacobian(
            |y| {
                let mut f = vec![0.0; 8];
                round3::spring_forces(y, &EDGES3, &REST3, k, &mut f);
                f
            },
            &x,
        );
        common::assert_jacobian(&j, &fd, "forces' Jacobian against central differences");
        // vjp with a random cotangent; jvp with a random tangent.
        let c = rng.vec(8, -1.0, 1.0);
        let t = rng.vec(8, -1.0, 1.0);
        let mut out = vec![GARBAGE; 8];
        let gx = round3::spring_forces_vjp(&x, &EDGES3, &REST3, k, &mut out, &c);
        for col in 0..8 {
            let e: f64 = (0..8).map(|r| c[r] * j[r][col]).sum();
            common::assert_close(gx[col], e, 1e-12, "vjp");
        }
        common::assert_all_close(&out, &f, 1e-15, "vjp's out");
        let mut dout = vec![GARBAGE; 8];
        let mut out2 = vec![GARBAGE; 8];
        round3::spring_forces_jvp(&x, &EDGES3, &REST3, k, &mut out2, t.clone(), &mut dout);
        for r in 0..8 {
            common::assert_close(dout[r], dot(&j[r], &t), 1e-12, "jvp");
        }
    }
}

#[test]
fn third_round_forms() {
    use round3::*;
    let fp = |x: &[f64]| [x[1], x[2], x[3], x[4], x[5]];
    let entries: Vec<Entry> = vec![
        (
            Probe::new("horner_rec", |x| horner_rec(&x[..4], x[4]))
                .grad(|x| {
                    let (v, (gp, gx)) = horner_rec_grad(&x[..4], x[4]);
                    (v, [gp, vec![gx]].concat())
                })
                .jvp(|x, t| horner_rec_jvp(&x[..4], x[4], (t[..4].to_vec(), t[4])))
                .hessian(|x| {
                    let (v, (gp, gx), h) = horner_rec_hessian(&x[..4], x[4]);
                    (v, [gp, vec![gx]].concat(), h)
                })
                .analytic(|x| {
                    let (v, (gp, gx)) = jaxfns::polyval_grad(&x[..4], x[4]);
                    let _ = v;
                    [gp, vec![gx]].concat()
                }),
            Box::new(range(5, -2.0, 2.0)),
        ),
        (
            Probe::new("interp_search", |x| interp_search(x[0], &fp(x)))
                .grad(|x| {
                    let (v, (gx, gf)) = interp_search_grad(x[0], &fp(x));
                    (v, [vec![gx], gf.to_vec()].concat())
                })
                .jvp(|x, t| interp_search_jvp(x[0], &fp(x), (t[0], fp(t))))
                .hessian(|x| {
                    let (v, (gx, gf), h) = interp_search_hessian(x[0], &fp(x));
                    (v, [vec![gx], gf.to_vec()].concat(), h)
                })
                .analytic(|x| {
                    let (_, (gx, gf)) = jaxfns::interp_grad(x[0], &fp(x));
                    [vec![gx], gf.to_vec()].concat()
                }),
            Box::new(|r: &mut Lcg| {
                let z = loop {
                    let z = r.uniform(-0.7, 4.7);
                    let frac = z.rem_euclid(1.0);
                    if frac > 0.01 && frac < 0.99 {
                        break z;
                    }
                };
                [vec![z], r.vec(5, -2.0, 2.0)].concat()
            }),
        ),
        (
            Probe::new("strided_pairs", |x| strided_pairs(x, true))
                .grad(|x| strided_pairs_grad(x, true))
                .jvp(|x, t| strided_pairs_jvp(x, true, t.to_vec()))
                .hessian(|x| strided_pairs_hessian(x, true))
                .analytic(|x| {
                    let w = [1.0, 0.5];
                    let mut g = vec![0.0; x.len()];
                    for i in (0..x.len()).step_by(2) {
                        for j in i..x.len() {
                            let d = 2.0 * w[j % 2] * (x[i] - x[j]);
                            g[i] += d;
                            g[j] -= d;
                        }
                    }
                    g
                }),
            Box::new(range(5, -2.0, 2.0)),
        ),
        (
            Probe::new("strided_pairs_narrow", |x| strided_pairs(x, false))
                .grad(|x| strided_pairs_grad(x, false))
                .hessian(|x| strided_pairs_hessian(x, false)),
            Box::new(range(6, -2.0, 2.0)),
        ),
        (
            two(
                "binary_bundle",
                binary_bundle,
                binary_bundle_grad,
                binary_bundle_jvp,
                binary_bundle_grad_into,
            )
            .hessian(hess2(binary_bundle_hessian))
            .analytic(|x| {
                let (a, b) = (x[0], x[1]);
                let r = (a * b).hypot(a);
                vec![
                    b * a.powf(b - 1.0) - b / (a * a + b * b) + b + 2.0 * a + a * (b * b + 1.0) / r,
                    a.powf(b) * a.ln() + a / (a * a + b * b) + a + a * a * b / r,
                ]
            }),
            Box::new(|r: &mut Lcg| vec![r.uniform(0.3, 2.5), r.uniform(-2.0, 2.0)]),
        ),
        (
            Probe::new("normalised_entropy", |x| normalised_entropy(x.to_vec()))
                .grad(|x| normalised_entropy_grad(x.to_vec()))
                .jvp(|x, t| normalised_entropy_jvp(x.to_vec(), t.to_vec()))
                .hessian(|x| normalised_entropy_hessian(x.to_vec()))
                .analytic(|x| {
                    // H(v/z): dH/dv_i = (-ln p_i - H) / z with p = v/z.
                    let z: f64 = x.iter().sum();
                    let p: Vec<f64> = x.iter().map(|v| v / z).collect();
                    let h: f64 = -p.iter().map(|q| q * q.ln()).sum::<f64>();
                    p.iter().map(|q| (-q.ln() - h) / z).collect()
                }),
            Box::new(range(4, 0.1, 2.0)),
        ),
        (
            slice(
                "levy_nested",
                levy_nested,
                levy_nested_grad,
                levy_nested_jvp,
                levy_nested_grad_into,
            )
            .hessian(hess_slice(levy_nested_hessian))
            .analytic(|x| optimfns::levy_grad(x).1),
            Box::new(range(4, -10.0, 10.0)),
        ),
        (
            Probe::new("trap_energy", |x| trap(x).energy(&[x[3], x[4]]))
                .grad(|x| {
                    let (v, (gs, gp)) = trap(x).energy_grad(&[x[3], x[4]]);
                    (
                        v,
                        vec![gs.center[0], gs.center[1], gs.stiffness, gp[0], gp[1]],
                    )
                })
                .jvp(|x, t| trap(x).energy_jvp(&[x[3], x[4]], (trap(t), [t[3], t[4]])))
                .hessian(|x| {
                    let (v, (gs, gp), h) = trap(x).energy_hessian(&[x[3], x[4]]);
                    (
                        v,
                        vec![gs.center[0], gs.center[1], gs.stiffness, gp[0], gp[1]],
                        h,
                    )
                })
                .analytic(|x| {
                    let d = [x[3] - x[0], x[4] - x[1]];
                    let r2 = dot(&d, &d);
                    // E = s r²/2 + r⁴/4: dE/dd = (s + r²) d.
                    let c = x[2] + r2;
                    vec![-c * d[0], -c * d[1], 0.5 * r2, c * d[0], c * d[1]]
                }),
            Box::new(range(5, -1.5, 1.5)),
        ),
        (
            Probe::new("two_layer", |x| two_layer(x).forward(&[0.4, -0.9]))
                .grad(|x| {
                    let (v, g) = two_layer(x).forward_grad(&[0.4, -0.9]);
                    (v, flat_two_layer(&g))
                })
                .jvp(|x, t| two_layer(x).forward_jvp(&[0.4, -0.9], two_layer(t)))
                .hessian(|x| {
                    let (v, g, h) = two_layer(x).forward_hessian(&[0.4, -0.9]);
                    (v, flat_two_layer(&g), h)
                }),
            Box::new(range(6, -1.5, 1.5)),
        ),
    ];
    run_all(entries);
    // The generic struct on `f32` as well, against the `f64` gradient.
    let t32 = round3::Trap {
        center: [0.3f32, -0.2],
        stiffness: 1.5,
    };
    let (v, (gs, gp)) = t32.energy_grad(&[0.9, 0.4]);
    let (v64, (gs64, gp64)) = trap(&[0.3, -0.2, 1.5, 0.9, 0.4]).energy_grad(&[0.9, 0.4]);
    common::assert_close(v as f64, v64, 1e-6, "trap f32 value");
    common::assert_all_close(
        &[
            gs.center[0] as f64,
            gs.center[1] as f64,
            gs.stiffness as f64,
            gp[0] as f64,
            gp[1] as f64,
        ],
        &[
            gs64.center[0],
            gs64.center[1],
            gs64.stiffness,
            gp64[0],
            gp64[1],
        ],
        1e-5,
        "trap f32 gradient",
    );
}

fn trap(x: &[f64]) -> round3::Trap<f64> {
    round3::Trap {
        center: [x[0], x[1]],
        stiffness: x[2],
    }
}

fn two_layer(x: &[f64]) -> round3::TwoLayer {
    round3::TwoLayer {
        first: round3::Dense {
            w: vec![x[0], x[1]],
            b: x[2],
        },
        second: round3::Dense {
            w: vec![x[3], x[4]],
            b: x[5],
        },
    }
}

fn flat_two_layer(g: &round3::TwoLayer) -> Flat {
    [
        g.first.w.clone(),
        vec![g.first.b],
        g.second.w.clone(),
        vec![g.second.b],
    ]
    .concat()
}

#[test]
fn fourth_round_forms() {
    use round4::*;
    let entries: Vec<Entry> = vec![
        (
            slice(
                "logsumexp_ufcs",
                logsumexp_ufcs,
                logsumexp_ufcs_grad,
                logsumexp_ufcs_jvp,
                logsumexp_ufcs_grad_into,
            )
            .hessian(hess_slice(logsumexp_ufcs_hessian))
            .analytic(|x| jaxfns::logsumexp_grad(x).1),
            Box::new(distinct(4, -3.0, 3.0, 0.01)),
        ),
        (
            Probe::new("verlet_tuple_fields", |x| {
                verlet_tuple_fields(x[0], x[1], x[2])
            })
            .grad(|x| {
                let (v, g) = verlet_tuple_fields_grad(x[0], x[1], x[2]);
                (v, vec![g.0, g.1, g.2])
            })
            .jvp(|x, t| verlet_tuple_fields_jvp(x[0], x[1], x[2], (t[0], t[1], t[2])))
            .hessian(|x| {
                let (v, g, h) = verlet_tuple_fields_hessian(x[0], x[1], x[2]);
                (v, vec![g.0, g.1, g.2], h)
            }),
            Box::new(|r: &mut Lcg| {
                vec![
                    r.uniform(-1.0, 1.0),
                    r.uniform(-1.0, 1.0),
                    r.uniform(0.5, 3.0),
                ]
            }),
        ),
        (
            slice(
                "triangle_energy",
                triangle_energy,
                triangle_energy_grad,
                triangle_energy_jvp,
                triangle_energy_grad_into,
            )
            .hessian(hess_slice(triangle_energy_hessian))
            .analytic(|x| {
                let mut g = vec![0.0; 6];
                for i in 0..3 {
                    let j = (i + 1) % 3;
                    let d = [x[2 * i] - x[2 * j], x[2 * i + 1] - x[2 * j + 1]];
                    let l = dot(&d, &d).sqrt();
                    for c in 0..2 {
                        let v = 2.0 * (l - 1.0) * d[c] / l;
                        g[2 * i + c] += v;
                        g[2 * j + c] -= v;
                    }
                }
                g
            }),
            Box::new(|r: &mut Lcg| {
                let base = [0.0, 0.0, 1.1, 0.0, 0.5, 0.9];
                base.iter().map(|b| b + r.uniform(-0.2, 0.2)).collect()
            }),
        ),
        (
            Probe::new("l1_loss", |x| l1_loss(&x[..3], &x[3..]))
                .grad(|x| {
                    let (v, (a, b)) = l1_loss_grad(&x[..3], &x[3..]);
                    (v, [a, b].concat())
                })
                .jvp(|x, t| l1_loss_jvp(&x[..3], &x[3..], (t[..3].to_vec(), t[3..].to_vec())))
                .hessian(|x| {
                    let (v, (a, b), h) = l1_loss_hessian(&x[..3], &x[3..]);
                    (v, [a, b].concat(), h)
                })
                .analytic(|x| {
                    let s: Vec<f64> = (0..3).map(|i| (x[i] - x[3 + i]).signum() / 3.0).collect();
                    [s.clone(), s.iter().map(|v| -v).collect()].concat()
                }),
            Box::new(|r: &mut Lcg| loop {
                let x = r.vec(6, -2.0, 2.0);
                if (0..3).all(|i| (x[i] - x[3 + i]).abs() > 0.01) {
                    break x;
                }
            }),
        ),
        (
            Probe::new("clip_active", |x| clip_active(&x[..4], x[4], x[5]))
                .grad(|x| {
                    let (v, (g, lo, hi)) = clip_active_grad(&x[..4], x[4], x[5]);
                    (v, [g, vec![lo, hi]].concat())
                })
                .jvp(|x, t| clip_active_jvp(&x[..4], x[4], x[5], (t[..4].to_vec(), t[4], t[5])))
                .hessian(|x| {
                    let (v, (g, lo, hi), h) = clip_active_hessian(&x[..4], x[4], x[5]);
                    (v, [g, vec![lo, hi]].concat(), h)
                })
                .analytic(|x| {
                    let (lo, hi) = (x[4], x[5]);
                    let mut g = vec![0.0; 6];
                    for i in 0..4 {
                        let v = x[i];
                        if v < lo {
                            g[4] += 2.0 * lo;
                        } else if v > hi {
                            g[5] += 2.0 * hi;
                        } else {
                            g[i] = 2.0 * v;
                        }
                    }
                    g
                }),
            Box::new(|r: &mut Lcg| loop {
                let mut x = r.vec(4, -2.0, 2.0);
                x.push(r.uniform(-1.0, -0.2));
                x.push(r.uniform(0.2, 1.0));
                if (0..4).all(|i| (x[i] - x[4]).abs() > 0.01 && (x[i] - x[5]).abs() > 0.01) {
                    break x;
                }
            }),
        ),
        (
            two(
                "relu6_mix",
                relu6_mix,
                relu6_mix_grad,
                relu6_mix_jvp,
                relu6_mix_grad_into,
            )
            .hessian(hess2(relu6_mix_hessian))
            .analytic(|x| {
                let (a, b) = (x[0], x[1]);
                let r = a.clamp(0.0, 6.0);
                let h = b.clamp(-1.0, 1.0);
                let dr = if a > 0.0 && a < 6.0 { 1.0 } else { 0.0 };
                let dh = if b.abs() < 1.0 { 1.0 } else { 0.0 };
                vec![dr * h - 2.0 * a / (1.0 + a * a).powi(2), r * dh]
            }),
            Box::new(|r: &mut Lcg| loop {
                let x = vec![r.uniform(-2.0, 8.0), r.uniform(-2.0, 2.0)];
                if x[0].abs() > 0.01 && (x[0] - 6.0).abs() > 0.01 && (x[1].abs() - 1.0).abs() > 0.01
                {
                    break x;
                }
            }),
        ),
    ];
    run_all(entries);
    // activation: the three modes by hand.
    for x in [-1.3, -0.2, 0.4, 2.1] {
        let s = sigmoid(x);
        let (v, g) = activation_grad(x, 0);
        common::assert_all_close(&[v, g], &[x.tanh(), 1.0 - x.tanh().powi(2)], 1e-14, "tanh");
        let (_, _, h) = activation_hessian(x, 0);
        common::assert_close(
            h[0][0],
            -2.0 * x.tanh() * (1.0 - x.tanh().powi(2)),
            1e-13,
            "tanh''",
        );
        let (v, g) = activation_grad(x, 1);
        common::assert_all_close(
            &[v, g],
            &[2.0 * x * s, 2.0 * (s + x * s * (1.0 - s))],
            1e-14,
            "silu",
        );
        let d = activation_derivatives(x, 1);
        let e2 = 2.0 * (2.0 * s * (1.0 - s) + x * s * (1.0 - s) * (1.0 - 2.0 * s));
        common::assert_close(d[2], e2, 1e-12, "silu''");
        let (v, g) = activation_grad(x, 2);
        common::assert_all_close(
            &[v, g],
            &[2.0 * x.max(0.0), if x > 0.0 { 2.0 } else { 0.0 }],
            1e-15,
            "relu",
        );
    }
    // The mixed-precision f32 norm, first order, against x / |x|.
    let x = [0.5f32, -1.25, 2.0];
    let n = (0.25f64 + 1.5625 + 4.0).sqrt();
    let (v, g) = norm_f32_acc64_grad(&x);
    common::assert_close(v as f64, n, 1e-7, "norm_f32_acc64 value");
    let e: Vec<f64> = x.iter().map(|&v| v as f64 / n).collect();
    let g: Vec<f64> = g.iter().map(|&v| v as f64).collect();
    common::assert_all_close(&g, &e, 1e-6, "norm_f32_acc64 gradient");
    let (_, d) = norm_f32_acc64_jvp(&x, vec![1.0, 1.0, 1.0]);
    common::assert_close(d as f64, e.iter().sum(), 1e-6, "norm_f32_acc64 jvp");
}

/// TensorFlow's "custom gradient with a custom second order": F = 2 fused_cube(x) = 2x³; `_grad`
/// gives 2·cube_slope(x) = 6x²; its derivative is overridden by `cube_slope`'s closure, 2·7x = 14x
/// (not the true 12x), and the third derivative is 14, the nested closure `ddy * 7x` differentiated
/// through the captured `x`.
#[test]
fn fifth_round_nested_custom_f64() {
    for x in [-1.4, -0.3, 0.0, 0.6, 2.2] {
        let d = round5::fused_caller_derivatives(x);
        common::assert_all_close(
            &d,
            &[2.0 * x * x * x, 6.0 * x * x, 14.0 * x, 14.0],
            1e-13,
            "d",
        );
        let (v, g, h) = round5::fused_caller_hessian(x);
        common::assert_all_close(&[v, g, h[0][0]], &d[..3], 1e-13, "hessian");
        let (_, _, hv) = round5::fused_caller_hvp(x, 0.5);
        common::assert_close(hv, 7.0 * x, 1e-13, "hvp");
        let (_, t) = round5::fused_caller_jvp(x, 1.0);
        common::assert_close(t, 6.0 * x * x, 1e-13, "jvp");
    }
}

/// The norm-clipped gradient of `|x|²` over a slice: g = 2x inside the ball of radius 1/2, x/|x|
/// outside; its Jacobian (what `jax.hessian` of the `custom_vjp` gives) is 2I inside and
/// (I - x xᵀ/|x|²)/|x| outside, through the captured norm and the captured slice.
#[test]
fn fifth_round_clip_by_norm() {
    let mut rng = Lcg::new(55);
    for k in 0..8 {
        let scale = if k % 2 == 0 { 0.15 } else { 1.5 };
        let x = rng.vec(3, -scale, scale);
        let n = dot(&x, &x).sqrt();
        if (n - 0.5).abs() < 0.01 {
            continue;
        }
        let (v, g) = round5::clipped_energy_grad(&x);
        common::assert_close(v, n * n, 1e-14, "value");
        let e: Vec<f64> = x
            .iter()
            .map(|a| if n > 0.5 { a / n } else { 2.0 * a })
            .collect();
        common::assert_all_close(&g, &e, 1e-14, "gradient");
        let (_, _, h) = round5::clipped_energy_hessian(&x);
        for i in 0..3 {
            for j in 0..3 {
                let delta = if i == j { 1.0 } else { 0.0 };
                let e = if n > 0.5 {
                    (delta - x[i] * x[j] / (n * n)) / n
                } else {
                    2.0 * delta
                };
                common::assert_close(h[i][j], e, 1e-12, &format!("H[{i}][{j}]"));
            }
        }
        let fd = common::fd_jacobian(|y| round5::clipped_energy_grad(y).1, &x);
        common::assert_jacobian(&h, &fd, "H against central differences of _grad");
    }
}

#[test]
fn sixth_round_forms() {
    use round6::*;
    let xs: Vec<Vec<f64>> = vec![
        vec![1.0, 0.5, -0.3],
        vec![-0.7, 1.2, 0.4],
        vec![0.2, -0.1, 2.0],
        vec![1.5, 0.3, 0.9],
    ];
    let ys = [0.4, -1.0, 2.2, 0.7];
    let entries: Vec<Entry> = vec![
        (
            Probe::new("weighted_by_index", |x| weighted_by_index(&x[..3], &x[3..]))
                .grad(|x| {
                    let (v, (a, b)) = weighted_by_index_grad(&x[..3], &x[3..]);
                    (v, [a, b].concat())
                })
                .jvp(|x, t| {
                    weighted_by_index_jvp(&x[..3], &x[3..], (t[..3].to_vec(), t[3..].to_vec()))
                })
                .hessian(|x| {
                    let (v, (a, b), h) = weighted_by_index_hessian(&x[..3], &x[3..]);
                    (v, [a, b].concat(), h)
                })
                .analytic(|x| {
                    let ga = (0..3).map(|i| x[3 + i] + 2.0 * (x[i] - x[3 + i]));
                    let gb = (0..3).map(|i| x[i] - 2.0 * (x[i] - x[3 + i]));
                    ga.chain(gb).collect()
                }),
            Box::new(range(6, -2.0, 2.0)),
        ),
        (
            slice(
                "logaddexp_fold",
                logaddexp_fold,
                logaddexp_fold_grad,
                logaddexp_fold_jvp,
                logaddexp_fold_grad_into,
            )
            .hessian(hess_slice(logaddexp_fold_hessian))
            .analytic(|x| jaxfns::logsumexp_grad(x).1),
            Box::new(distinct(4, -3.0, 3.0, 0.05)),
        ),
        (
            Probe::new("scaled_lse", |x| scaled_lse(&x[..4], x[4]))
                .grad(|x| {
                    let (v, (a, b)) = scaled_lse_grad(&x[..4], x[4]);
                    (v, [a, vec![b]].concat())
                })
                .jvp(|x, t| scaled_lse_jvp(&x[..4], x[4], (t[..4].to_vec(), t[4])))
                .hessian(|x| {
                    let (v, (a, b), h) = scaled_lse_hessian(&x[..4], x[4]);
                    (v, [a, vec![b]].concat(), h)
                })
                .analytic(|x| {
                    // t lse(x/t): d/dx = softmax(x/t); d/dt = lse(x/t) - Σ softmax_i x_i / t.
                    let t = x[4];
                    let z: Vec<f64> = x[..4].iter().map(|v| v / t).collect();
                    let lse = z.iter().map(|v| v.exp()).sum::<f64>().ln();
                    let s: Vec<f64> = z.iter().map(|v| (v - lse).exp()).collect();
                    let dt = lse - dot(&s, &z);
                    [s, vec![dt]].concat()
                }),
            Box::new(|r: &mut Lcg| loop {
                let mut x = r.vec(4, -2.0, 2.0);
                x.push(r.uniform(0.5, 2.0));
                if (0..4).all(|i| (0..i).all(|j| (x[i] - x[j]).abs() > 0.01)) {
                    break x;
                }
            }),
        ),
        (
            two(
                "features",
                features,
                features_grad,
                features_jvp,
                features_grad_into,
            )
            .hessian(hess2(features_hessian))
            .analytic(|x| {
                let (a, b) = (x[0], x[1]);
                let f = [a, b, a * b, a.sin()];
                let s = jaxfns::logsumexp_grad(&f).1;
                vec![s[0] + s[2] * b + s[3] * a.cos(), s[1] + s[2] * a]
            }),
            Box::new(|r: &mut Lcg| loop {
                let x = r.vec(2, -2.0, 2.0);
                let f = [x[0], x[1], x[0] * x[1], x[0].sin()];
                if (0..4).all(|i| (0..i).all(|j| (f[i] - f[j]).abs() > 0.01)) {
                    break x;
                }
            }),
        ),
        (
            Probe::new("least_squares", |x| least_squares(x, &xs, &ys))
                .grad(|x| least_squares_grad(x, &xs, &ys))
                .jvp(|x, t| least_squares_jvp(x, &xs, &ys, t.to_vec()))
                .grad_into(|x| {
                    let mut g = vec![GARBAGE; 3];
                    let v = least_squares_grad_into(x, &xs, &ys, &mut g);
                    (v, g)
                })
                .hessian(|x| least_squares_hessian(x, &xs, &ys))
                .analytic(|x| {
                    let mut g = vec![0.0; 3];
                    for k in 0..4 {
                        let r = dot(&xs[k], x) - ys[k];
                        for i in 0..3 {
                            g[i] += 2.0 * r * xs[k][i];
                        }
                    }
                    g
                }),
            Box::new(range(3, -2.0, 2.0)),
        ),
        (
            slice("chains", chains, chains_grad, chains_jvp, chains_grad_into)
                .hessian(hess_slice(chains_hessian))
                .analytic(|x| {
                    let sq = dot(x, x);
                    let idx: f64 = (0..x.len()).map(|i| (i as f64 + 1.0) * x[i]).sum();
                    (0..x.len())
                        .map(|i| 2.0 * x[i] * idx + sq * (i as f64 + 1.0))
                        .collect()
                }),
            Box::new(range(4, -2.0, 2.0)),
        ),
    ];
    run_all(entries);
    // least squares: the Hessian is 2 XᵀX exactly.
    let (_, _, h) = least_squares_hessian(&[0.3, -0.2, 0.5], &xs, &ys);
    for i in 0..3 {
        for j in 0..3 {
            let e: f64 = (0..4).map(|k| 2.0 * xs[k][i] * xs[k][j]).sum();
            common::assert_close(h[i][j], e, 1e-13, "2 X'X");
        }
    }
    // Newton's cube root: value, and derivatives converged to the implicit ones.
    for a in [0.3, 1.0, 2.7, 8.0, 20.0] {
        let d = cbrt_newton_derivatives(a);
        let c = a.cbrt();
        common::assert_all_close(
            &d,
            &[c, 1.0 / (3.0 * c * c), -2.0 / (9.0 * c.powi(5))],
            1e-10,
            "cbrt by Newton",
        );
        let (_, g) = cbrt_newton_grad(a);
        let (_, t) = cbrt_newton_jvp(a, 1.0);
        common::assert_close(g, t, 1e-12, "jvp = grad");
    }
}

#[test]
fn seventh_round_forms_beyond_the_list() {
    use round7::*;
    slice(
        "windows_diff",
        windows_diff,
        windows_diff_grad,
        windows_diff_jvp,
        windows_diff_grad_into,
    )
    .hessian(hess_slice(windows_diff_hessian))
    .run(5, range(5, -2.0, 2.0));
    slice(
        "rev_iter",
        rev_iter,
        rev_iter_grad,
        rev_iter_jvp,
        rev_iter_grad_into,
    )
    .hessian(hess_slice(rev_iter_hessian))
    .analytic(|x| {
        let n = x.len();
        (0..n).map(|i| 2.0 * x[i] * 0.5f64.powi(i as i32)).collect()
    })
    .run(5, range(5, -2.0, 2.0));
    slice(
        "skip_first",
        skip_first,
        skip_first_grad,
        skip_first_jvp,
        skip_first_grad_into,
    )
    .hessian(hess_slice(skip_first_hessian))
    .run(5, range(5, -2.0, 2.0));
    two(
        "swap_sort",
        swap_sort,
        swap_sort_grad,
        swap_sort_jvp,
        swap_sort_grad_into,
    )
    .hessian(hess2(swap_sort_hessian))
    .analytic(|x| {
        if x[0] > x[1] {
            vec![1.0, 2.0]
        } else {
            vec![2.0, 1.0]
        }
    })
    .run(8, distinct(2, -2.0, 2.0, 0.01));
    slice(
        "iter_mut_scale",
        iter_mut_scale,
        iter_mut_scale_grad,
        iter_mut_scale_jvp,
        iter_mut_scale_grad_into,
    )
    .hessian(hess_slice(iter_mut_scale_hessian))
    .analytic(|x| x.iter().map(|v| 8.0 * v).collect())
    .run(5, range(5, -2.0, 2.0));
    slice(
        "fn_mut_closure",
        fn_mut_closure,
        fn_mut_closure_grad,
        fn_mut_closure_jvp,
        fn_mut_closure_grad_into,
    )
    .hessian(hess_slice(fn_mut_closure_hessian))
    .analytic(|x| x.iter().map(|v| 2.0 * v).collect())
    .run(5, range(5, -2.0, 2.0));
}

#[test]
fn eighth_round_signatures() {
    use round8::*;
    Probe::new("norm_n", |x| norm_n(&[x[0], x[1], x[2]]))
        .grad(|x| {
            let (v, g) = norm_n_grad(&[x[0], x[1], x[2]]);
            (v, g.to_vec())
        })
        .jvp(|x, t| norm_n_jvp(&[x[0], x[1], x[2]], [t[0], t[1], t[2]]))
        .grad_into(|x| {
            let mut g = [GARBAGE; 3];
            let v = norm_n_grad_into(&[x[0], x[1], x[2]], &mut g);
            (v, g.to_vec())
        })
        .hessian(|x| {
            let (v, g, h) = norm_n_hessian(&[x[0], x[1], x[2]]);
            (v, g.to_vec(), h)
        })
        .analytic(|x| {
            let n = norm(x);
            x.iter().map(|v| v / n).collect()
        })
        .run(5, range(3, -2.0, 2.0));
    two(
        "where_clause",
        where_clause::<f64>,
        where_clause_grad::<f64>,
        where_clause_jvp::<f64>,
        where_clause_grad_into::<f64>,
    )
    .hessian(hess2(where_clause_hessian::<f64>))
    .analytic(|x| vec![x[1].exp(), x[0] * x[1].exp()])
    .run(5, range(2, -2.0, 2.0));
    slice(
        "extra_bounds",
        extra_bounds::<f64>,
        extra_bounds_grad::<f64>,
        extra_bounds_jvp::<f64>,
        extra_bounds_grad_into::<f64>,
    )
    .hessian(hess_slice(extra_bounds_hessian::<f64>))
    .analytic(|x| x.iter().map(|v| 2.0 * v).collect())
    .run(5, range(3, -2.0, 2.0));
    one(
        "ufcs_trait",
        ufcs_trait::<f64>,
        ufcs_trait_grad::<f64>,
        ufcs_trait_jvp::<f64>,
        ufcs_trait_grad_into::<f64>,
    )
    .hessian(hess1(
        ufcs_trait_hessian::<f64>,
        ufcs_trait_derivatives::<f64>,
    ))
    .analytic(|x| vec![x[0].exp() + 6.0 * x[0] * x[0]])
    .run(5, range(1, -2.0, 2.0));
    for n in [0usize, 1, 2, 5] {
        let (v, g) = powi_param_grad(1.3, n);
        common::assert_close(v, 1.3f64.powi(n as i32), 1e-14, "powi value");
        let e = if n == 0 {
            0.0
        } else {
            n as f64 * 1.3f64.powi(n as i32 - 1)
        };
        common::assert_close(g, e, 1e-14, "powi grad");
        let d = powi_param_derivatives(1.3, n);
        let e2 = if n < 2 {
            0.0
        } else {
            (n * (n - 1)) as f64 * 1.3f64.powi(n as i32 - 2)
        };
        common::assert_close(d[2], e2, 1e-13, "powi second");
    }
    let (v, g) = with_lifetime_grad(&[2.0, 3.0]);
    assert_eq!((v, g), (6.0, vec![3.0, 2.0]));
    let (_, _, h) = attrs_hessian(0.7);
    common::assert_close(h[0][0], -2.0, 1e-15, "attrs");
    assert_eq!(attrs(0.7), -0.7 * 0.7);
    // f32 calling a generic custom gradient at order 3: F = sin²x, F' = sin 2x, F'' = 2 cos 2x,
    // F''' = -4 sin 2x.
    for x in [-1.1f32, 0.3, 0.9] {
        let d = f32_calls_generic_custom_derivatives(x);
        let x = x as f64;
        let e = [
            x.sin().powi(2),
            (2.0 * x).sin(),
            2.0 * (2.0 * x).cos(),
            -4.0 * (2.0 * x).sin(),
        ];
        for k in 0..4 {
            common::assert_close(
                d[k] as f64,
                e[k],
                1e-5,
                &format!("f32 custom derivative {k}"),
            );
        }
    }
    check_third("rec3", |x| rec3_derivatives(x, 3), 5, -2.0, 2.0);
    slice(
        "custom_on_subslices",
        custom_on_subslices,
        custom_on_subslices_grad,
        custom_on_subslices_jvp,
        custom_on_subslices_grad_into,
    )
    .hessian(hess_slice(custom_on_subslices_hessian))
    .analytic(|x| {
        let mut g = vec![0.0; 4];
        for k in 0..2 {
            let (a, b) = (2 * k, 2 * k + 1);
            let d = x[a].sin() * x[a] + x[b].sin() * x[b];
            g[a] = 2.0 * d * (x[a].cos() * x[a] + x[a].sin());
            g[b] = 2.0 * d * (x[b].cos() * x[b] + x[b].sin());
        }
        g
    })
    .run(5, range(4, -2.0, 2.0));
}

#[test]
fn ninth_round_mutation_and_aliasing() {
    use round9::*;
    slice(
        "modify_after_call",
        modify_after_call,
        modify_after_call_grad,
        modify_after_call_jvp,
        modify_after_call_grad_into,
    )
    .hessian(hess_slice(modify_after_call_hessian))
    .run(5, range(3, -2.0, 2.0));
    Probe::new("array_copy", |x| array_copy([x[0], x[1], x[2]]))
        .grad(|x| {
            let (v, g) = array_copy_grad([x[0], x[1], x[2]]);
            (v, g.to_vec())
        })
        .jvp(|x, t| array_copy_jvp([x[0], x[1], x[2]], [t[0], t[1], t[2]]))
        .grad_into(|x| {
            let mut g = [GARBAGE; 3];
            let v = array_copy_grad_into([x[0], x[1], x[2]], &mut g);
            (v, g.to_vec())
        })
        .hessian(|x| {
            let (v, g, h) = array_copy_hessian([x[0], x[1], x[2]]);
            (v, g.to_vec(), h)
        })
        .analytic(|a| {
            // b0 = 2a0, b1 = 2a0 + a2, b2 = a2: F = a0(2a0 + a2) + 2a0 a1 + a2.
            vec![4.0 * a[0] + a[2] + 2.0 * a[1], 2.0 * a[0], a[0] + 1.0]
        })
        .run(5, range(3, -2.0, 2.0));
    slice(
        "vec_clone",
        vec_clone,
        vec_clone_grad,
        vec_clone_jvp,
        vec_clone_grad_into,
    )
    .hessian(hess_slice(vec_clone_hessian))
    .analytic(|x| vec![2.0 * x[0] * x[1], x[0] * x[0] + 2.0 * x[1]])
    .run(5, range(2, -2.0, 2.0));
    one(
        "shadow_block",
        shadow_block,
        shadow_block_grad,
        shadow_block_jvp,
        shadow_block_grad_into,
    )
    .hessian(hess1(shadow_block_hessian, shadow_block_derivatives))
    .analytic(|x| vec![x[0].sin() + x[0] * x[0].cos() + x[0].cos()])
    .run(5, range(1, -2.0, 2.0));
    for k in [1usize, 3] {
        Probe::new("gauss_seidel", move |x| gauss_seidel(x, k))
            .grad(move |x| gauss_seidel_grad(x, k))
            .jvp(move |x, t| gauss_seidel_jvp(x, k, t.to_vec()))
            .hessian(move |x| gauss_seidel_hessian(x, k))
            .run(5, range(5, -1.0, 1.0));
    }
    Probe::new("lookup", |x| lookup(x[0], &[x[1], x[2], x[3], x[4]]))
        .grad(|x| {
            let (v, (a, b)) = lookup_grad(x[0], &[x[1], x[2], x[3], x[4]]);
            (v, [vec![a], b.to_vec()].concat())
        })
        .jvp(|x, t| {
            lookup_jvp(
                x[0],
                &[x[1], x[2], x[3], x[4]],
                (t[0], [t[1], t[2], t[3], t[4]]),
            )
        })
        .hessian(|x| {
            let (v, (a, b), h) = lookup_hessian(x[0], &[x[1], x[2], x[3], x[4]]);
            (v, [vec![a], b.to_vec()].concat(), h)
        })
        .run(8, |r: &mut Lcg| {
            let z = loop {
                let z = r.uniform(0.0, 3.0);
                let f = z.fract();
                if f > 0.01 && f < 0.99 {
                    break z;
                }
            };
            [vec![z], r.vec(4, -2.0, 2.0)].concat()
        });
    slice(
        "continue_after_update",
        continue_after_update,
        continue_after_update_grad,
        continue_after_update_jvp,
        continue_after_update_grad_into,
    )
    .hessian(hess_slice(continue_after_update_hessian))
    .run(8, |r: &mut Lcg| {
        r.vec(5, -2.0, 2.0)
            .into_iter()
            .map(|v| if v.abs() < 0.01 { 0.5 } else { v })
            .collect()
    });
}

fn affine10(x: &[f64]) -> round10::Affine {
    round10::Affine {
        m: [[x[0], x[1]], [x[2], x[3]]],
        b: [x[4], x[5]],
    }
}

fn flat_affine(a: &round10::Affine) -> Flat {
    vec![a.m[0][0], a.m[0][1], a.m[1][0], a.m[1][1], a.b[0], a.b[1]]
}

#[test]
fn tenth_round_vector_results_and_struct_methods() {
    use round10::*;
    check_vector(
        "rk4_step",
        5,
        range(3, -1.0, 1.0),
        &|x| rk4_step([x[0], x[1]], x[2]).to_vec(),
        &|x, c| {
            let (y, (gy, gh)) = rk4_step_vjp([x[0], x[1]], x[2], [c[0], c[1]]);
            (y.to_vec(), vec![gy[0], gy[1], gh])
        },
        &|x, t| {
            let (y, d) = rk4_step_jvp([x[0], x[1]], x[2], ([t[0], t[1]], t[2]));
            (y.to_vec(), d.to_vec())
        },
        Some(&|x| rk4_step_jacobian([x[0], x[1]], x[2])),
    );
    check_vector(
        "polar",
        5,
        range(2, -2.0, 2.0),
        &|x| {
            let (a, b) = polar(x[0], x[1]);
            vec![a, b]
        },
        &|x, c| {
            let ((a, b), (gr, gt)) = polar_vjp(x[0], x[1], (c[0], c[1]));
            (vec![a, b], vec![gr, gt])
        },
        &|x, t| {
            let ((a, b), (da, db)) = polar_jvp(x[0], x[1], (t[0], t[1]));
            (vec![a, b], vec![da, db])
        },
        None,
    );
    check_vector(
        "softmax_t",
        5,
        range(4, -2.0, 2.0),
        &|x| softmax_t(x),
        &|x, c| softmax_t_vjp(x, c.to_vec()),
        &|x, t| softmax_t_jvp(x, t.to_vec()),
        Some(&|x| softmax_t_jacobian(x)),
    );
    check_vector(
        "affine_apply",
        5,
        range(6, -2.0, 2.0),
        &|x| affine10(x).apply(&[0.3, -1.2]),
        &|x, c| {
            let (y, g) = affine10(x).apply_vjp(&[0.3, -1.2], c.to_vec());
            (y, flat_affine(&g))
        },
        &|x, t| affine10(x).apply_jvp(&[0.3, -1.2], affine10(t)),
        None,
    );
    Probe::new("frob", |x| affine10(x).frob())
        .grad(|x| {
            let (v, g) = affine10(x).frob_grad();
            (v, flat_affine(&g))
        })
        .jvp(|x, t| affine10(x).frob_jvp(affine10(t)))
        .hessian(|x| {
            let (v, g, h) = affine10(x).frob_hessian();
            (v, flat_affine(&g), h)
        })
        .run(5, range(6, -2.0, 2.0));
    Probe::new("affine_loss", |x| affine_loss(&affine10(x), &[0.3, -1.2]))
        .grad(|x| {
            let (v, g) = affine_loss_grad(&affine10(x), &[0.3, -1.2]);
            (v, flat_affine(&g))
        })
        .jvp(|x, t| affine_loss_jvp(&affine10(x), &[0.3, -1.2], affine10(t)))
        .hessian(|x| {
            let (v, g, h) = affine_loss_hessian(&affine10(x), &[0.3, -1.2]);
            (v, flat_affine(&g), h)
        })
        .run(5, range(6, -2.0, 2.0));
    // A tuple result has no `f_jacobian` (API.md: a `Vec`/array return or one output parameter): its
    // rows by `_vjp` along the unit cotangents, against the formula.
    let j: Vec<Vec<f64>> = [(1.0, 0.0), (0.0, 1.0)]
        .iter()
        .map(|&c| {
            let (_, (gr, gt)) = polar_vjp(2.0, 0.5, c);
            vec![gr, gt]
        })
        .collect();
    common::assert_all_close(&j[0], &[0.5f64.cos(), -2.0 * 0.5f64.sin()], 1e-15, "J0");
    common::assert_all_close(&j[1], &[0.5f64.sin(), 2.0 * 0.5f64.cos()], 1e-15, "J1");
}

#[test]
fn eleventh_round_custom_with_constants() {
    use round11::*;
    let w = vec![0.5, -1.2, 2.0];
    let l = Layer { w: w.clone() };
    Probe::new("act", |x| l.act(x))
        .grad(|x| l.act_grad(x))
        .jvp(|x, t| l.act_jvp(x, t.to_vec()))
        .hessian(|x| l.act_hessian(x))
        .analytic(|x| {
            (0..3)
                .map(|i| {
                    let z = w[i] * x[i];
                    sigmoid(z) * w[i] * x[i] + (1.0 + z.exp()).ln()
                })
                .collect()
        })
        .run(5, range(3, -2.0, 2.0));
    let x = [0.7, -0.4, 1.3];
    Probe::new("layer_wrt_w", |w| layer_wrt_w(w, &x))
        .grad(|w| layer_wrt_w_grad(w, &x))
        .jvp(|w, t| layer_wrt_w_jvp(w, &x, t.to_vec()))
        .hessian(|w| layer_wrt_w_hessian(w, &x))
        .analytic(|w| {
            (0..3)
                .map(|i| {
                    let z = w[i] * x[i];
                    2.0 * (1.0 + z.exp()).ln() * sigmoid(z) * x[i]
                })
                .collect()
        })
        .run(5, range(3, -2.0, 2.0));
    // The Hessian of layer_wrt_w is diagonal: 2 x² (σ² + L σ(1 - σ)).
    let wv = [0.3, -0.8, 1.1];
    let (_, _, h) = layer_wrt_w_hessian(&wv, &x);
    for i in 0..3 {
        for j in 0..3 {
            let z = wv[i] * x[i];
            let (s, lv) = (sigmoid(z), (1.0 + z.exp()).ln());
            let e = if i == j {
                2.0 * x[i] * x[i] * (s * s + lv * s * (1.0 - s))
            } else {
                0.0
            };
            common::assert_close(h[i][j], e, 1e-12, "diag hessian");
        }
    }
}
