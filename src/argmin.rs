//! Generated gradients as [argmin](https://docs.rs/argmin) problems (feature `argmin`).
//!
//! argmin's solvers ask a problem for its cost, gradient and Hessian through the traits
//! [`CostFunction`], [`Gradient`] and [`Hessian`]. [`Problem`] implements them for a function that
//! returns the value and the gradient together, as a generated `f_grad` does, with parameters of type
//! `Vec<f64>` (argmin-math's `vec` backend, which this feature enables). A solver usually asks for the
//! cost and the gradient at the same point one after the other; `Problem` remembers the last point it
//! evaluated, so that each point costs one call of `f_grad`.
//!
//! ```
//! use argmin::core::{CostFunction, Executor};
//! use argmin::solver::linesearch::MoreThuenteLineSearch;
//! use argmin::solver::quasinewton::LBFGS;
//! use autodiff::argmin::Problem;
//! use autodiff::differentiable;
//!
//! #[differentiable]
//! fn rosenbrock(x: &[f64]) -> f64 {
//!     let mut s = 0.0;
//!     for i in 0..x.len() - 1 {
//!         s += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
//!     }
//!     s
//! }
//!
//! let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7);
//! let result = Executor::new(Problem::new(rosenbrock_grad), solver)
//!     .configure(|state| state.param(vec![-1.2, 1.0]).max_iters(100))
//!     .run()
//!     .unwrap();
//! let x = result.state.best_param.unwrap();
//! assert!((x[0] - 1.0).abs() < 1e-6 && (x[1] - 1.0).abs() < 1e-6);
//! ```
//!
//! A function with more parameters is adapted by a closure, as for [`crate::optim`]:
//! `Problem::new(|w: &[f64]| loss_grad(w, &data, &labels))`. With `#[differentiable(order = 2)]`,
//! [`Problem::with_hessian`] adds the generated `f_hessian` for Newton's method.

use ::argmin::core::{CostFunction, Error, Gradient, Hessian};
use std::sync::Mutex;

/// A function given by its value and gradient (and optionally its Hessian), as an argmin problem.
///
/// `G: Fn(&[f64]) -> (f64, Vec<f64>)` is a generated `f_grad` or a closure around one;
/// `H: Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>)` a generated `f_hessian`. The problem's parameters
/// are `Vec<f64>`, its cost `f64`, its gradient `Vec<f64>` and its Hessian `Vec<Vec<f64>>`.
pub struct Problem<G, H = NoHessian> {
    gradient: G,
    hessian: H,
    last: Mutex<Option<Evaluation>>,
}

/// The last point evaluated by a [`Problem`]'s gradient function, with its value and gradient.
struct Evaluation {
    point: Vec<f64>,
    value: f64,
    gradient: Vec<f64>,
}

/// The Hessian of a [`Problem`] made by [`Problem::new`]: none, so argmin's [`Hessian`] is not
/// implemented.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHessian;

impl<G> Problem<G>
where
    G: Fn(&[f64]) -> (f64, Vec<f64>),
{
    /// The problem of minimising the function whose value and gradient `gradient` returns.
    pub fn new(gradient: G) -> Self {
        Problem {
            gradient,
            hessian: NoHessian,
            last: Mutex::new(None),
        }
    }

    /// The same problem with its Hessian, for second-order solvers (`argmin`'s `Newton`,
    /// `NewtonCG`): `hessian` returns the value, the gradient and the Hessian, as a generated
    /// `f_hessian` does.
    pub fn with_hessian<H>(self, hessian: H) -> Problem<G, H>
    where
        H: Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
    {
        Problem {
            gradient: self.gradient,
            hessian,
            last: self.last,
        }
    }
}

impl<G, H> Problem<G, H>
where
    G: Fn(&[f64]) -> (f64, Vec<f64>),
{
    /// The value and gradient at `x`: from the last evaluation if it was at `x`, else by calling the
    /// function.
    fn evaluate(&self, x: &[f64]) -> (f64, Vec<f64>) {
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(evaluation) = &*last {
            if evaluation.point.as_slice() == x {
                return (evaluation.value, evaluation.gradient.clone());
            }
        }
        let (value, gradient) = (self.gradient)(x);
        *last = Some(Evaluation {
            point: x.to_vec(),
            value,
            gradient: gradient.clone(),
        });
        (value, gradient)
    }
}

impl<G, H> CostFunction for Problem<G, H>
where
    G: Fn(&[f64]) -> (f64, Vec<f64>),
{
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, param: &Vec<f64>) -> Result<f64, Error> {
        Ok(self.evaluate(param).0)
    }
}

impl<G, H> Gradient for Problem<G, H>
where
    G: Fn(&[f64]) -> (f64, Vec<f64>),
{
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, param: &Vec<f64>) -> Result<Vec<f64>, Error> {
        Ok(self.evaluate(param).1)
    }
}

impl<G, H> Hessian for Problem<G, H>
where
    H: Fn(&[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>),
{
    type Param = Vec<f64>;
    type Hessian = Vec<Vec<f64>>;

    fn hessian(&self, param: &Vec<f64>) -> Result<Vec<Vec<f64>>, Error> {
        Ok((self.hessian)(param).2)
    }
}
