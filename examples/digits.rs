//! Softmax regression on real handwritten digits: the MNIST tutorial of TensorFlow 1
//! (`tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)`), with the gradient written by
//! `#[differentiable]` at compile time instead of by a graph at run time.
//!
//! The data are the 1,797 8x8 digits of the UCI "Optical Recognition of Handwritten Digits" set, as
//! shipped inside the `smartcore` crate (feature `datasets`): no download. The program splits them
//! into 1,437 training and 360 test images, checks the generated gradient against central differences,
//! trains by full-batch gradient descent with `autodiff::optim::Sgd` through the closure
//! `|w| loss_grad(w, &x, &y, ..)`, shows a progress bar, prints the test accuracy, and writes the
//! training loss curve to `examples/digits-loss.svg`.
//!
//! ```sh
//! cargo run --release --example digits
//! ```

use autodiff::optim::{Minimizer, Sgd};
use autodiff::{check_gradient, differentiable};
use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;

/// Pixels per image.
const D: usize = 64;
/// Classes: the digits 0 to 9.
const K: usize = 10;

/// The mean cross-entropy of softmax regression on the images `x` (row-major, `D` pixels each) with
/// labels `y`, plus an L2 penalty `lambda / 2 · |W|²` on the weights. `w` holds the `K × D` weights,
/// row by row, then the `K` biases. The class scores of an image are `z = W x + b`, its predicted
/// probabilities `softmax(z)`, and its loss `−ln softmax(z)[label] = ln Σ exp(z) − z[label]`
/// (computed with the largest score subtracted, so that `exp` cannot overflow).
#[differentiable(wrt(w))]
#[allow(clippy::needless_range_loop)] // indexes, as the MNIST tutorial's formulas are written
fn loss(w: &[f64], x: &[f64], y: &[usize], lambda: f64) -> f64 {
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
fn predict(w: &[f64], x: &[f64]) -> Vec<usize> {
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

fn accuracy(w: &[f64], x: &[f64], y: &[usize]) -> f64 {
    let right = predict(w, x).iter().zip(y).filter(|(p, l)| p == l).count();
    right as f64 / y.len() as f64
}

/// The images (pixels scaled from 0..16 to 0..1) and labels, split into a training and a test set by
/// a fixed shuffle: 80 % and 20 %.
type Split = ((Vec<f64>, Vec<usize>), (Vec<f64>, Vec<usize>));

fn load() -> Split {
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

fn plot(losses: &[f64], path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = losses.iter().copied().fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Softmax regression on the 8x8 digits: training loss",
            ("sans-serif", 20),
        )
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0..losses.len(), 0.0..top * 1.05)?;
    chart
        .configure_mesh()
        .x_desc("step of gradient descent")
        .y_desc("mean cross-entropy + penalty")
        .draw()?;
    chart.draw_series(LineSeries::new(losses.iter().copied().enumerate(), &BLUE))?;
    root.present()?;
    Ok(())
}

fn main() {
    let ((x_train, y_train), (x_test, y_test)) = load();
    println!(
        "{} training and {} test images of {D} pixels",
        y_train.len(),
        y_test.len()
    );
    let lambda = 1e-4;

    // The generated gradient against central differences, at a point away from zero.
    let w0: Vec<f64> = (0..K * D + K)
        .map(|i| 0.01 * ((i * 37) % 11) as f64 - 0.05)
        .collect();
    let (_, gradient) = loss_grad(&w0, &x_train, &y_train, lambda);
    let check = check_gradient(|w| loss(w, &x_train, &y_train, lambda), &w0, &gradient);
    println!("{check}");
    assert!(check.is_ok(1e-6));

    // Full-batch gradient descent with the tutorial's learning rate, from zero weights.
    let steps = 500;
    let sgd = Sgd {
        learning_rate: 0.5,
        max_iterations: steps,
        gradient_tolerance: 1e-5,
        ..Sgd::default()
    };
    let bar = ProgressBar::new(steps as u64 + 1);
    bar.set_style(
        ProgressStyle::with_template("training {bar:40} {pos}/{len} loss {msg}")
            .expect("a valid template"),
    );
    let mut losses = Vec::new();
    let minimum = sgd.minimize(
        |w| {
            let (value, gradient) = loss_grad(w, &x_train, &y_train, lambda);
            losses.push(value);
            bar.set_message(format!("{value:.4}"));
            bar.inc(1);
            (value, gradient)
        },
        &vec![0.0; K * D + K],
    );
    bar.finish();
    println!(
        "{} steps, stopped by {:?}: training loss {:.4}, training accuracy {:.3}",
        minimum.iterations,
        minimum.stop,
        minimum.value,
        accuracy(&minimum.x, &x_train, &y_train)
    );

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/digits-loss.svg");
    match plot(&losses, path) {
        Ok(()) => println!("loss curve written to examples/digits-loss.svg"),
        Err(e) => eprintln!("could not write the loss curve to {path}: {e}"),
    }
    println!(
        "test accuracy: {:.3}",
        accuracy(&minimum.x, &x_test, &y_test)
    );
}
