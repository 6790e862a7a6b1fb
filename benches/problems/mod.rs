//! The three benchmark problems of issue 3, their hand-written reverse-mode gradients, central finite
//! differences, and forward mode with `num-dual`.
//!
//! The primal functions are plain generic Rust (`T: Float`) written in `autodiff.rs` under
//! `#[differentiable]`, which emits them unchanged; they are re-exported here.

pub mod num_dual_float;

// ---------------------------------------------------------------------------------------------------
// Sizes and inputs
// ---------------------------------------------------------------------------------------------------

/// Extended Rosenbrock: number of variables.
pub const ROSENBROCK_N: usize = 1000;
/// Softmax regression: features, classes, examples.
pub const SOFTMAX_D: usize = 64;
/// Softmax regression: number of classes.
pub const SOFTMAX_K: usize = 10;
/// Softmax regression: number of examples.
pub const SOFTMAX_M: usize = 256;
/// RK4 on Lotka-Volterra: number of steps.
pub const RK4_STEPS: usize = 1000;
/// RK4 on Lotka-Volterra: fixed step size (1000 steps integrate to t = 10, about two periods).
pub const RK4_H: f64 = 0.01;

/// A small deterministic generator (SplitMix64), so the inputs are the same in every run.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }
}

/// The classic Rosenbrock start (-1.2, 1, -1.2, 1, ...), slightly perturbed so no two terms are equal.
pub fn rosenbrock_input() -> Vec<f64> {
    let mut rng = SplitMix64::new(1);
    (0..ROSENBROCK_N)
        .map(|i| {
            let base = if i % 2 == 0 { -1.2 } else { 1.0 };
            base + rng.uniform(-0.1, 0.1)
        })
        .collect()
}

/// Weights (k x d, row-major), data (m x d, row-major) and labels (m) of the softmax problem.
pub struct SoftmaxInput {
    pub w: Vec<f64>,
    pub data: Vec<f64>,
    pub labels: Vec<usize>,
}

pub fn softmax_input() -> SoftmaxInput {
    let mut rng = SplitMix64::new(2);
    let w = (0..SOFTMAX_K * SOFTMAX_D)
        .map(|_| rng.uniform(-0.5, 0.5))
        .collect();
    let data = (0..SOFTMAX_M * SOFTMAX_D)
        .map(|_| rng.uniform(-1.0, 1.0))
        .collect();
    let labels = (0..SOFTMAX_M)
        .map(|_| (rng.next_u64() % SOFTMAX_K as u64) as usize)
        .collect();
    SoftmaxInput { w, data, labels }
}

/// alpha, beta, delta, gamma, u0, v0: the textbook predator-prey parameters, started off equilibrium.
pub fn rk4_input() -> Vec<f64> {
    vec![1.5, 1.0, 1.0, 3.0, 1.0, 1.0]
}

// ---------------------------------------------------------------------------------------------------
// Primal functions: those of `autodiff.rs`, where `#[differentiable]` emits each unchanged beside its
// gradient (one text, so the primal timed is exactly the function the gradient is generated from)
// ---------------------------------------------------------------------------------------------------

pub use crate::autodiff_problems::{rk4_lotka_volterra, rosenbrock, softmax_loss};

// ---------------------------------------------------------------------------------------------------
// Hand-written reverse-mode gradients (f64)
// ---------------------------------------------------------------------------------------------------

/// Value and gradient of `rosenbrock`, one pass. Term i touches x[i] and x[i+1]; the share of x[i+1]
/// is carried in a register to the next iteration, so each g[i] is written once. (Adding both shares
/// into `g` in place, `g[i] += ..; g[i + 1] += ..`, lets LLVM fuse the two updates into one 16-byte
/// load/add/store that overlaps the previous iteration's store: a store-forwarding stall in every
/// iteration, about 4x slower, depending on how the surrounding crate happens to be compiled.)
pub fn rosenbrock_hand(x: &[f64]) -> (f64, Vec<f64>) {
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut f = 0.0;
    // d/dx[i] of term i-1, waiting for term i.
    let mut carried = 0.0;
    for i in 0..n - 1 {
        let xi = x[i];
        let a = x[i + 1] - xi * xi;
        let b = 1.0 - xi;
        f += 100.0 * a * a + b * b;
        // d/dx[i]: 200 a (-2 x[i]) - 2 b;  d/dx[i+1]: 200 a.
        g[i] = carried - 400.0 * a * xi - 2.0 * b;
        carried = 200.0 * a;
    }
    g[n - 1] = carried;
    (f, g)
}

/// Value and gradient (with respect to `w`) of `softmax_loss`: per example, the forward logits, then
/// dL/dz_c = (p_c - [c = y]) / m and dL/dW[c, :] += dL/dz_c * x.
pub fn softmax_loss_hand(
    w: &[f64],
    data: &[f64],
    labels: &[usize],
    d: usize,
    k: usize,
) -> (f64, Vec<f64>) {
    let m = labels.len();
    let inv_m = 1.0 / m as f64;
    let mut g = vec![0.0; k * d];
    let mut z = vec![0.0; k];
    let mut total = 0.0;
    for (j, &label) in labels.iter().enumerate() {
        let x = &data[j * d..(j + 1) * d];
        for (c, zc) in z.iter_mut().enumerate() {
            let row = &w[c * d..(c + 1) * d];
            *zc = row.iter().zip(x).map(|(a, b)| a * b).sum();
        }
        let zmax = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // The loss of this example is ln(sum_c exp(z_c - zmax)) - (z_y - zmax).
        let shifted_label_logit = z[label] - zmax;
        let mut sum = 0.0;
        for zc in z.iter_mut() {
            *zc = (*zc - zmax).exp();
            sum += *zc;
        }
        total += sum.ln() - shifted_label_logit;
        let inv_sum = 1.0 / sum;
        for (c, &ec) in z.iter().enumerate() {
            let mut dz = ec * inv_sum;
            if c == label {
                dz -= 1.0;
            }
            let dz = dz * inv_m;
            let grow = &mut g[c * d..(c + 1) * d];
            for (gi, xi) in grow.iter_mut().zip(x) {
                *gi += dz * xi;
            }
        }
    }
    (total * inv_m, g)
}

/// Value and gradient of `rk4_lotka_volterra`: the forward sweep stores the state after each step,
/// the backward sweep recomputes the stages of one step from its stored start and runs their
/// adjoint, from the last step to the first.
pub fn rk4_lotka_volterra_hand(p: &[f64], steps: usize) -> (f64, Vec<f64>) {
    let (alpha, beta, delta, gamma) = (p[0], p[1], p[2], p[3]);
    let h = RK4_H;
    let half_h = 0.5 * RK4_H;
    let sixth_h = RK4_H / 6.0;
    let rhs = |u: f64, v: f64| (alpha * u - beta * u * v, delta * u * v - gamma * v);

    // Forward: states[s] is the state at the start of step s.
    let mut states = Vec::with_capacity(steps + 1);
    let (mut u, mut v) = (p[4], p[5]);
    states.push((u, v));
    for _ in 0..steps {
        let (k1u, k1v) = rhs(u, v);
        let (k2u, k2v) = rhs(u + half_h * k1u, v + half_h * k1v);
        let (k3u, k3v) = rhs(u + half_h * k2u, v + half_h * k2v);
        let (k4u, k4v) = rhs(u + h * k3u, v + h * k3v);
        u += sixth_h * (k1u + 2.0 * (k2u + k3u) + k4u);
        v += sixth_h * (k1v + 2.0 * (k2v + k3v) + k4v);
        states.push((u, v));
    }
    let value = u + v;

    // Backward. (au, av) is the adjoint of the state; g_* accumulate the parameter adjoints.
    let (mut au, mut av) = (1.0, 1.0);
    let (mut ga, mut gb, mut gd, mut gg) = (0.0, 0.0, 0.0, 0.0);
    // Adjoint of k = rhs(u, v) for the cotangent (ku, kv): returns the cotangent of (u, v) and adds
    // the parameters' share.
    let mut rhs_adjoint = |u: f64, v: f64, ku: f64, kv: f64| {
        ga += u * ku;
        gb -= u * v * ku;
        gd += u * v * kv;
        gg -= v * kv;
        (
            (alpha - beta * v) * ku + delta * v * kv,
            -beta * u * ku + (delta * u - gamma) * kv,
        )
    };
    for s in (0..steps).rev() {
        let (u, v) = states[s];
        // Recompute the stage inputs of this step.
        let (k1u, k1v) = rhs(u, v);
        let (u2, v2) = (u + half_h * k1u, v + half_h * k1v);
        let (k2u, k2v) = rhs(u2, v2);
        let (u3, v3) = (u + half_h * k2u, v + half_h * k2v);
        let (k3u, k3v) = rhs(u3, v3);
        let (u4, v4) = (u + h * k3u, v + h * k3v);

        // next = s + h/6 (k1 + 2 k2 + 2 k3 + k4)
        let (a1u, a1v) = (sixth_h * au, sixth_h * av);
        let (mut a2u, mut a2v) = (2.0 * a1u, 2.0 * a1v);
        let (mut a3u, mut a3v) = (a2u, a2v);
        let (a4u, a4v) = (a1u, a1v);
        let (mut su, mut sv) = (au, av);
        // k4 = rhs(s + h k3)
        let (b4u, b4v) = rhs_adjoint(u4, v4, a4u, a4v);
        su += b4u;
        sv += b4v;
        a3u += h * b4u;
        a3v += h * b4v;
        // k3 = rhs(s + h/2 k2)
        let (b3u, b3v) = rhs_adjoint(u3, v3, a3u, a3v);
        su += b3u;
        sv += b3v;
        a2u += half_h * b3u;
        a2v += half_h * b3v;
        // k2 = rhs(s + h/2 k1)
        let (b2u, b2v) = rhs_adjoint(u2, v2, a2u, a2v);
        su += b2u;
        sv += b2v;
        let (a1u, a1v) = (a1u + half_h * b2u, a1v + half_h * b2v);
        // k1 = rhs(s)
        let (b1u, b1v) = rhs_adjoint(u, v, a1u, a1v);
        au = su + b1u;
        av = sv + b1v;
    }
    (value, vec![ga, gb, gd, gg, au, av])
}

// ---------------------------------------------------------------------------------------------------
// Peers: central finite differences and num-dual forward mode
// ---------------------------------------------------------------------------------------------------

/// Central finite differences, step cbrt(eps) * max(1, |x_i|): 2 n evaluations of `f`.
pub fn central_differences(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let mut xs = x.to_vec();
    let mut g = vec![0.0; x.len()];
    let scale = f64::EPSILON.cbrt();
    for i in 0..x.len() {
        let xi = x[i];
        let step = scale * xi.abs().max(1.0);
        xs[i] = xi + step;
        let up = f(&xs);
        xs[i] = xi - step;
        let down = f(&xs);
        xs[i] = xi;
        g[i] = (up - down) / (2.0 * step);
    }
    g
}

pub use num_dual_float::NumDual;

/// Forward mode with num-dual's `Dual64` (through the `NumDual` wrapper that implements `Float`): one
/// pass of the generic primal per input, seeding that input's tangent with 1.
pub fn num_dual_gradient(f: impl Fn(&[NumDual]) -> NumDual, x: &[f64]) -> (f64, Vec<f64>) {
    let mut xs: Vec<NumDual> = x.iter().map(|&v| NumDual::constant(v)).collect();
    let mut g = vec![0.0; x.len()];
    let mut value = f64::NAN;
    for i in 0..x.len() {
        xs[i] = NumDual::variable(x[i]);
        let r = f(&xs);
        xs[i] = NumDual::constant(x[i]);
        value = r.value();
        g[i] = r.tangent();
    }
    (value, g)
}

/// Largest |a_i - b_i| relative to max(1, max |b_i|).
pub fn max_scaled_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "gradient lengths differ");
    let scale = b.iter().fold(1.0_f64, |s, v| s.max(v.abs()));
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / scale)
        .fold(0.0, f64::max)
}

/// Asserts that `got` agrees with `reference` to `tol` (relative to the reference's largest entry).
pub fn assert_gradient_close(what: &str, got: &[f64], reference: &[f64], tol: f64) {
    let err = max_scaled_difference(got, reference);
    assert!(
        err <= tol,
        "{what}: gradient differs from the reference by {err:e} (tolerance {tol:e})"
    );
}
