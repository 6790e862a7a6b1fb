//! The softmax-regression model of the digits examples (`digits.rs`, `argmin.rs`): the data, split into
//! training and test sets, the loss with its generated gradient, and the accuracy. Included by each example
//! with `#[path = "shared/digits_model.rs"] mod digits_model;`.

// Each example uses a part of it.
#![allow(dead_code)]

use autodiff::differentiable;

/// Pixels per image.
pub const D: usize = 64;
/// Classes: the digits 0 to 9.
pub const K: usize = 10;

/// The mean cross-entropy of softmax regression on the images `x` (row-major, `D` pixels each) with
/// labels `y`, plus an L2 penalty `lambda / 2 · |W|²` on the weights. `w` holds the `K × D` weights,
/// row by row, then the `K` biases. The class scores of an image are `z = W x + b`, its predicted
/// probabilities `softmax(z)`, and its loss `−ln softmax(z)[label] = ln Σ exp(z) − z[label]`
/// (computed with the largest score subtracted, so that `exp` cannot overflow).
#[differentiable(wrt(w), order = 2)]
#[allow(clippy::needless_range_loop)] // indexes, as the MNIST tutorial's formulas are written
pub fn loss(w: &[f64], x: &[f64], y: &[usize], lambda: f64) -> f64 {
    let m = y.len();
    let mut z = [0.0; K];
    let mut total = 0.0;
    for j in 0..m {
        for c in 0..K {
            let mut s = w[K * D + c];
            for i in 0..D {
                s += w[c * D + i] * x[j * D + i];
            }
            z[c] = s;
        }
        let mut zmax = z[0];
        for c in 1..K {
            zmax = zmax.max(z[c]);
        }
        let mut sum = 0.0;
        for &v in z.iter() {
            sum += (v - zmax).exp();
        }
        total += sum.ln() + zmax - z[y[j]];
    }
    let mut penalty = 0.0;
    for i in 0..K * D {
        penalty += w[i] * w[i];
    }
    total / m as f64 + 0.5 * lambda * penalty
}

/// The class with the highest score for each image.
pub fn predict(w: &[f64], x: &[f64]) -> Vec<usize> {
    x.chunks(D)
        .map(|image| {
            let score =
                |c: usize| w[K * D + c] + (0..D).map(|i| w[c * D + i] * image[i]).sum::<f64>();
            (0..K)
                .max_by(|&a, &b| score(a).total_cmp(&score(b)))
                .unwrap_or(0)
        })
        .collect()
}

/// The share of images classified right.
pub fn accuracy(w: &[f64], x: &[f64], y: &[usize]) -> f64 {
    let right = predict(w, x).iter().zip(y).filter(|(p, l)| p == l).count();
    right as f64 / y.len() as f64
}

/// The images (pixels scaled from 0..16 to 0..1) and labels, split into a training and a test set by
/// a fixed shuffle: 80 % and 20 %.
pub type Split = ((Vec<f64>, Vec<usize>), (Vec<f64>, Vec<usize>));

pub fn load() -> Split {
    let digits = smartcore::dataset::digits::load_dataset();
    assert_eq!((digits.num_samples, digits.num_features), (1797, D));
    let mut order: Vec<usize> = (0..digits.num_samples).collect();
    // Fisher-Yates with a fixed linear congruential generator: the same split on every run.
    let mut state: u64 = 2024;
    for i in (1..order.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        order.swap(i, (state >> 33) as usize % (i + 1));
    }
    let train = order.len() * 4 / 5;
    let take = |indices: &[usize]| {
        let pixels = indices
            .iter()
            .flat_map(|&n| {
                digits.data[n * D..(n + 1) * D]
                    .iter()
                    .map(|&p| f64::from(p) / 16.0)
            })
            .collect();
        let labels = indices.iter().map(|&n| digits.target[n] as usize).collect();
        (pixels, labels)
    };
    (take(&order[..train]), take(&order[train..]))
}
