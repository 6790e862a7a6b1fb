//! Trains a small multilayer perceptron (one hidden layer of `tanh` units) on a synthetic regression
//! problem. Its parameters are one `#[derive(Differentiable)]` struct: `#[differentiable]` gives the loss
//! a gradient of the same type, and `Adam` minimises over it.
//!
//! ```sh
//! cargo run --release --example mlp
//! ```

use autodiff::optim::{Adam, Minimizer};
use autodiff::{check_gradient_of, differentiable, Differentiable};

/// The parameters: weights and biases of both layers. `hidden` is a constant, not trained.
#[derive(Clone, Debug, Differentiable)]
struct Mlp {
    w1: Vec<f64>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
    #[no_grad]
    hidden: usize,
}

/// The mean squared error of the network on the samples `(xs[n], ys[n])`.
#[differentiable(wrt(p))]
fn mse(p: &Mlp, xs: &[f64], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for n in 0..xs.len() {
        let mut out = p.b2;
        for j in 0..p.hidden {
            out += p.w2[j] * (p.w1[j] * xs[n] + p.b1[j]).tanh();
        }
        let error = out - ys[n];
        loss += error * error;
    }
    loss / xs.len() as f64
}

fn main() {
    // y = sin(3x) / 2 + x / 4 on [-1, 1], 64 samples.
    let xs: Vec<f64> = (0..64).map(|i| -1.0 + 2.0 * i as f64 / 63.0).collect();
    let ys: Vec<f64> = xs.iter().map(|x| (3.0 * x).sin() / 2.0 + x / 4.0).collect();

    // A deterministic spread of starting weights.
    let hidden = 8;
    let init = |k: usize, scale: f64| (k as f64 * 1.618).sin() * scale;
    let p0 = Mlp {
        w1: (0..hidden).map(|j| init(j + 1, 2.0)).collect(),
        b1: (0..hidden).map(|j| init(j + 11, 1.0)).collect(),
        w2: (0..hidden).map(|j| init(j + 21, 0.5)).collect(),
        b2: 0.0,
        hidden,
    };

    // The gradient is checked against central differences once before training.
    let (_, grad) = mse_grad(&p0, &xs, &ys);
    let check = check_gradient_of(|p: &Mlp| mse(p, &xs, &ys), &p0, &grad);
    println!("{check}");
    assert!(check.is_ok(1e-6));

    let mut step = 0;
    let adam = Adam {
        learning_rate: 0.02,
        max_iterations: 3000,
        ..Adam::default()
    };
    let (trained, minimum) = adam.minimize_params(
        |p: &Mlp| {
            let (loss, grad) = mse_grad(p, &xs, &ys);
            if step % 300 == 0 {
                println!("step {step:5}: loss {loss:.6}");
            }
            step += 1;
            (loss, grad)
        },
        &p0,
    );
    println!(
        "after {} steps: loss {:.6} (from {:.6}), {} parameters",
        minimum.iterations,
        minimum.value,
        mse(&p0, &xs, &ys),
        trained.to_flat().len()
    );
    assert!(minimum.value < mse(&p0, &xs, &ys) / 10.0);
}
