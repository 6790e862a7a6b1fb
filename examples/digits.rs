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

use autodiff::check_gradient;
use autodiff::optim::{Minimizer, Sgd};
use digits_model::{accuracy, load, loss, loss_grad, D, K};
use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;

#[path = "shared/digits_model.rs"]
mod digits_model;

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
