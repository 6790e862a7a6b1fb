//! `autodiff::argmin::Problem`: argmin's solvers on generated gradients and Hessians (feature `argmin`:
//! `cargo test --features argmin --test argmin`).
#![cfg(feature = "argmin")]

use argmin::core::{CostFunction, Executor, Gradient, Hessian, State};
use argmin::solver::gradientdescent::SteepestDescent;
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::newton::NewtonCG;
use argmin::solver::quasinewton::LBFGS;
use autodiff::argmin::Problem;
use autodiff::{differentiable, Float};
use std::cell::Cell;

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

fn distance_to_ones(x: &[f64]) -> f64 {
    x.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max)
}

#[test]
fn lbfgs_solves_rosenbrock_through_the_generated_gradient() {
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7);
    let result = Executor::new(Problem::new(rosenbrock_grad), solver)
        .configure(|state| state.param(vec![-1.2, 1.0]).max_iters(200))
        .run()
        .expect("L-BFGS runs");
    let x = result.state.get_best_param().expect("a best point");
    assert!(distance_to_ones(x) < 1e-6, "{result}");
}

#[test]
fn newton_cg_descends_on_rosenbrock_through_the_generated_hessian() {
    // argmin's Newton-CG with its default settings creeps along the valley of this function (a
    // hand-written Hessian behaves the same): it is checked for progress, not convergence.
    let problem = Problem::new(rosenbrock_grad).with_hessian(rosenbrock_hessian);
    let result = Executor::new(problem, NewtonCG::new(MoreThuenteLineSearch::new()))
        .configure(|state| state.param(vec![-1.2, 1.0]).max_iters(100))
        .run()
        .expect("Newton-CG runs");
    assert!(result.state.get_best_cost() < 1e-4, "{result}");
}

#[test]
fn steepest_descent_reduces_rosenbrock_through_a_closure() {
    // A closure around the generated gradient, as for a loss with data: `|w| loss_grad(w, &x, &y)`.
    let scale = 1.0;
    let problem = Problem::new(|x: &[f64]| {
        let (value, gradient) = rosenbrock_grad(x);
        (scale * value, gradient.iter().map(|g| scale * g).collect())
    });
    let start = vec![-1.2, 1.0];
    let initial = rosenbrock(&start);
    let result = Executor::new(problem, SteepestDescent::new(MoreThuenteLineSearch::new()))
        .configure(|state| state.param(start).max_iters(100))
        .run()
        .expect("steepest descent runs");
    assert!(result.state.get_best_cost() < 1e-2 * initial, "{result}");
}

#[test]
fn cost_gradient_and_hessian_are_the_generated_ones_and_one_call_serves_a_point() {
    let calls = Cell::new(0);
    let problem = Problem::new(|x: &[f64]| {
        calls.set(calls.get() + 1);
        rosenbrock_grad(x)
    })
    .with_hessian(rosenbrock_hessian);
    let x = vec![1.5, 0.5];
    assert_eq!(problem.cost(&x).unwrap(), 306.5);
    assert_eq!(problem.gradient(&x).unwrap(), vec![1051.0, -350.0]);
    assert_eq!(
        calls.get(),
        1,
        "the gradient at the same point is remembered"
    );
    assert_eq!(
        problem.hessian(&x).unwrap(),
        vec![vec![2502.0, -600.0], vec![-600.0, 200.0]]
    );
    problem.gradient(&vec![1.0, 1.0]).unwrap();
    assert_eq!(calls.get(), 2);
}
