//! Training a quantised model with the straight-through estimator, and clipping gradients in the
//! backward pass: two custom gradients.
//!
//! The model is linear, `y = q(w₀) x₀ + q(w₁) x₁ + q(w₂) x₂ + q(b)`, whose weights are used only after
//! quantisation to a grid of step 1/4, `q(w) = round(4w) / 4`. The derivative of `round` is 0 almost
//! everywhere, so the gradient of the loss in the latent weights `w` is 0 and gradient descent cannot
//! start. The straight-through estimator (Bengio et al., 2013) keeps `round` in the forward pass and
//! passes the cotangent through unchanged in the backward pass, as if `q` were the identity: a
//! `#[custom_gradient]` whose closure is `|dy| dy`.
//!
//! The residual of each sample goes through `clip_gradient(r, -1, 1)`: the identity forward, with the
//! cotangent clipped to `[-1, 1]` backward, so no sample pulls the weights harder than a residual of 1
//! would (for a squared loss that is the gradient of the Huber loss).
//!
//! Run it with `cargo run --example straight_through`.

use autodiff::{custom_gradient, differentiable};

/// The steps of the quantisation grid per unit.
const LEVELS: f64 = 4.0;

/// `round(w)` to the grid of step `1 / LEVELS`, with the straight-through gradient `dy`.
#[custom_gradient]
fn quantise(w: f64) -> (f64, impl Fn(f64) -> f64) {
    ((w * LEVELS).round() / LEVELS, |dy| dy)
}

/// The same quantisation differentiated as written: its gradient is 0 (except at the jumps).
#[differentiable]
fn quantise_as_written(w: f64) -> f64 {
    (w * LEVELS).round() / LEVELS
}

/// The identity, whose gradient clips the cotangent flowing back into it to `[lo, hi]`.
#[custom_gradient]
fn clip_gradient(x: f64, lo: f64, hi: f64) -> (f64, impl Fn(f64) -> (f64, f64, f64)) {
    (x, move |dy: f64| (dy.clamp(lo, hi), 0.0, 0.0))
}

/// The number of passes of gradient descent over the data.
const EPOCHS: usize = 15;

/// The number of input features.
const FEATURES: usize = 3;

/// Half the summed squared residuals of the quantised model with latent weights `w` (the features'
/// weights, then the bias) on the samples `xs` (`FEATURES` values per sample) with targets `ys`; each
/// residual's gradient is clipped to `[-1, 1]`.
#[differentiable(wrt(w))]
fn loss(w: &[f64], xs: &[f64], ys: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..ys.len() {
        let mut prediction = quantise(w[FEATURES]);
        for j in 0..FEATURES {
            prediction += quantise(w[j]) * xs[FEATURES * i + j];
        }
        let residual = clip_gradient(prediction - ys[i], -1.0, 1.0);
        total += 0.5 * residual * residual;
    }
    total
}

/// Deterministic pseudo-random numbers in `[-1, 1)` (a linear congruential generator), so the example
/// needs no dependency and prints the same every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// The weights of the model generating the data (on the grid, so the quantised model can fit them),
/// the bias last.
const TRUE_WEIGHTS: [f64; FEATURES + 1] = [1.75, -2.5, 0.5, 0.25];

/// `n` samples of the true model with a little noise: the features flattened, and the targets.
fn data(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut random = Lcg(2024);
    let mut xs = Vec::with_capacity(n * FEATURES);
    let mut ys = Vec::with_capacity(n);
    for _ in 0..n {
        let mut y = TRUE_WEIGHTS[FEATURES] + 0.05 * random.next();
        for weight in &TRUE_WEIGHTS[..FEATURES] {
            let x = 2.0 * random.next();
            y += weight * x;
            xs.push(x);
        }
        ys.push(y);
    }
    (xs, ys)
}

/// The quantised weights, for printing.
fn quantised(w: &[f64]) -> Vec<f64> {
    w.iter().map(|&w| quantise(w)).collect()
}

fn main() {
    let (xs, ys) = data(64);
    let n = ys.len() as f64;

    println!("Straight-through estimator: q(w) = round(4w) / 4.");
    let (_, as_written) = quantise_as_written_grad(0.3);
    let (_, straight_through) = quantise_grad(0.3);
    println!(
        "  q(0.3) = {}; dq/dw there: differentiated as written {as_written}, straight through {straight_through}",
        quantise_as_written(0.3)
    );
    let start = [0.0; FEATURES + 1];
    let (_, gradient) = loss_grad(&start, &xs, &ys);
    println!("  the gradient of the loss at w = 0: {gradient:.3?}");

    println!("\nTraining {FEATURES} weights and a bias on {n} samples by gradient descent");
    println!(
        "(the loss and weights after each epoch; `clipped`: samples whose gradient is clipped):"
    );
    println!(
        "{:>7} {:>12} {:>9}   quantised weights",
        "epoch", "mean loss", "clipped"
    );
    let learning_rate = 0.3 / n;
    let mut w = start.to_vec();
    let report = |epoch: usize, w: &[f64]| {
        let mean_loss = loss(w, &xs, &ys) / n;
        let clipped = clipped_residuals(w, &xs, &ys);
        println!(
            "{epoch:>7} {mean_loss:>12.6} {clipped:>9}   {:?}",
            quantised(w)
        );
        mean_loss
    };
    let first = report(0, &w);
    let mut last = first;
    for epoch in 1..=EPOCHS {
        let (_, gradient) = loss_grad(&w, &xs, &ys);
        for (w, g) in w.iter_mut().zip(&gradient) {
            *w -= learning_rate * g;
        }
        last = report(epoch, &w);
    }
    println!("\nTrue weights:       {TRUE_WEIGHTS:?}");
    println!("Learned, quantised: {:?}", quantised(&w));
    println!("The mean loss went from {first:.4} to {last:.6}.");
    assert!(
        last < first / 100.0,
        "training should reduce the loss a hundredfold"
    );
    assert_eq!(quantised(&w), TRUE_WEIGHTS.to_vec());
}

/// How many samples have a residual outside `[-1, 1]`, whose gradient `clip_gradient` clips.
fn clipped_residuals(w: &[f64], xs: &[f64], ys: &[f64]) -> usize {
    let q = quantised(w);
    ys.iter()
        .enumerate()
        .filter(|&(i, y)| {
            let x = &xs[FEATURES * i..FEATURES * (i + 1)];
            let prediction = q[FEATURES] + x.iter().zip(&q).map(|(x, q)| x * q).sum::<f64>();
            (prediction - y).abs() > 1.0
        })
        .count()
}
