//! argmin's solvers on generated gradients and Hessians, beside `autodiff::optim`'s L-BFGS: the extended
//! Rosenbrock function from (-1.2, 1, -1.2, 1, ..) in 2 and 10 dimensions, iterations and time to a gradient
//! norm of 1e-8 (argmin's L-BFGS and Newton-CG; its Newton-CG is stopped at 200 iterations).
//!
//! Then the softmax regression of `examples/digits.rs` on the 1,437 training digits, by L-BFGS from
//! `autodiff::optim` and from argmin, through the closure `|w| loss_grad(w, &x, &y, lambda)`: iterations,
//! time and test accuracy; and by argmin's Newton-CG on the generated `loss_hessian` (ten iterations).
//!
//! `cargo run --release --example argmin --features argmin`

use argmin::core::{Executor, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::newton::NewtonCG;
use argmin::solver::quasinewton::LBFGS;
use autodiff::argmin::Problem;
use autodiff::optim::{Lbfgs, Minimizer};
use autodiff::{differentiable, Float};
use std::time::Instant;

#[path = "shared/digits_model.rs"]
mod digits_model;

#[differentiable(order = 2)]
fn rosenbrock<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        s = s + hundred * a * a + b * b;
    }
    s
}

/// One solver's result: iterations, final value, distance to the minimum at (1, .., 1), time.
fn report(solver: &str, n: usize, iterations: u64, value: f64, x: &[f64], seconds: f64) {
    let distance = x.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
    println!(
        "{solver:<28} n = {n:<3} {iterations:>5} iterations  f = {value:<10.3e} max |x - 1| = {distance:<10.3e} {:>9.3} ms",
        seconds * 1e3
    );
}

/// Newton-CG iterations on the digits: each computes a full Hessian (650 Hessian-vector products).
const NEWTON_DIGITS_ITERATIONS: u64 = 10;

/// Softmax regression on the digits by both L-BFGS implementations, from zero weights.
fn digits() {
    let ((x, y), (x_test, y_test)) = digits_model::load();
    let lambda = 1e-4;
    let size = digits_model::K * digits_model::D + digits_model::K;
    let objective = |w: &[f64]| digits_model::loss_grad(w, &x, &y, lambda);
    let start = vec![0.0; size];

    let timer = Instant::now();
    let ours = Lbfgs {
        max_iterations: 200,
        gradient_tolerance: 1e-6,
        ..Lbfgs::default()
    }
    .minimize(objective, &start);
    let seconds = timer.elapsed().as_secs_f64();
    println!(
        "digits, autodiff::optim::Lbfgs  {:>4} iterations  loss {:.5}  test accuracy {:.3}  {:>8.1} ms",
        ours.iterations,
        ours.value,
        digits_model::accuracy(&ours.x, &x_test, &y_test),
        seconds * 1e3
    );

    let timer = Instant::now();
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
        .with_tolerance_grad(1e-6)
        .expect("a valid tolerance");
    let result = Executor::new(Problem::new(objective), solver)
        .configure(|state| state.param(start.clone()).max_iters(200))
        .run()
        .expect("L-BFGS runs");
    let seconds = timer.elapsed().as_secs_f64();
    let state = result.state();
    let w = state.get_best_param().expect("a best point");
    println!(
        "digits, argmin LBFGS            {:>4} iterations  loss {:.5}  test accuracy {:.3}  {:>8.1} ms",
        state.get_iter(),
        state.get_best_cost(),
        digits_model::accuracy(w, &x_test, &y_test),
        seconds * 1e3
    );

    // Newton-CG needs the Hessian: 650 x 650 here, one Hessian-vector product per column
    // (`loss_hessian`, from `order = 2`), then argmin solves the Newton system by conjugate gradients.
    let hessian = |w: &[f64]| digits_model::loss_hessian(w, &x, &y, lambda);
    let timer = Instant::now();
    let problem = Problem::new(objective).with_hessian(hessian);
    let result = Executor::new(problem, NewtonCG::new(MoreThuenteLineSearch::new()))
        .configure(|state| {
            state
                .param(start.clone())
                .max_iters(NEWTON_DIGITS_ITERATIONS)
        })
        .run()
        .expect("Newton-CG runs");
    let seconds = timer.elapsed().as_secs_f64();
    let state = result.state();
    let w = state.get_best_param().expect("a best point");
    println!(
        "digits, argmin NewtonCG         {:>4} iterations  loss {:.5}  test accuracy {:.3}  {:>8.1} ms",
        state.get_iter(),
        state.get_best_cost(),
        digits_model::accuracy(w, &x_test, &y_test),
        seconds * 1e3
    );
}

fn main() {
    for n in [2, 10] {
        let start: Vec<f64> = (0..n)
            .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
            .collect();
        println!("n = {n}: f(start) = {}", rosenbrock(&start));

        let timer = Instant::now();
        let ours = Lbfgs::default().minimize(rosenbrock_grad, &start);
        report(
            "autodiff::optim::Lbfgs",
            n,
            ours.iterations as u64,
            ours.value,
            &ours.x,
            timer.elapsed().as_secs_f64(),
        );

        let timer = Instant::now();
        let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
            .with_tolerance_grad(1e-8)
            .expect("a valid tolerance");
        let result = Executor::new(Problem::new(rosenbrock_grad), solver)
            .configure(|state| state.param(start.clone()).max_iters(1000))
            .run()
            .expect("L-BFGS runs");
        let seconds = timer.elapsed().as_secs_f64();
        let state = result.state();
        let x = state.get_best_param().expect("a best point");
        report(
            "argmin LBFGS",
            n,
            state.get_iter(),
            state.get_best_cost(),
            x,
            seconds,
        );

        let timer = Instant::now();
        let problem = Problem::new(rosenbrock_grad).with_hessian(rosenbrock_hessian);
        let result = Executor::new(problem, NewtonCG::new(MoreThuenteLineSearch::new()))
            .configure(|state| state.param(start.clone()).max_iters(200))
            .run()
            .expect("Newton-CG runs");
        let seconds = timer.elapsed().as_secs_f64();
        let state = result.state();
        let x = state.get_best_param().expect("a best point");
        report(
            "argmin NewtonCG (f_hessian)",
            n,
            state.get_iter(),
            state.get_best_cost(),
            x,
            seconds,
        );
    }
    digits();
}
