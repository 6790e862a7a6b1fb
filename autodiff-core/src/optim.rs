//! Minimisers that take a gradient function, such as the `f_grad` that `#[differentiable]` generates.
//!
//! A function of a slice, `fn f(x: &[f64]) -> f64`, gets `fn f_grad(x: &[f64]) -> (f64, Vec<f64>)`:
//! its value and gradient. Every minimiser here takes any `FnMut(&[f64]) -> (f64, Vec<f64>)` of that
//! shape and a starting point, through the [`Minimizer`] trait, and returns a [`Minimum`]. A function
//! with more parameters is adapted by a closure, `|w| loss_grad(w, &data, &labels)`.
//!
//! | minimiser | what it is | use it for |
//! | --- | --- | --- |
//! | [`Lbfgs`] | limited-memory BFGS with a strong-Wolfe line search | smooth deterministic objectives: the default choice |
//! | [`Adam`] | Adam (Kingma and Ba, 2015) | noisy objectives (mini-batches), badly scaled ones |
//! | [`Sgd`] | gradient descent with optional momentum | noisy objectives, a baseline |
//!
//! Each stops when the Euclidean norm of the gradient is at most its `gradient_tolerance` (then
//! [`Minimum::converged`] is true), after `max_iterations` steps, or when it cannot go on: a value or
//! gradient that is NaN or infinite, or for [`Lbfgs`] a line search that finds no lower point. It never
//! panics on such values nor loops without end.
//!
//! # Example
//!
//! ```
//! use autodiff_core::optim::{Adam, Lbfgs, Minimizer};
//!
//! // f(x, y) = (x - 1)² + 10 (y + 2)², with its gradient written by hand. With `#[differentiable]`
//! // on `fn f(v: &[f64]) -> f64`, pass the generated `f_grad` instead.
//! fn f_grad(v: &[f64]) -> (f64, Vec<f64>) {
//!     let (x, y) = (v[0], v[1]);
//!     let value = (x - 1.0).powi(2) + 10.0 * (y + 2.0).powi(2);
//!     (value, vec![2.0 * (x - 1.0), 20.0 * (y + 2.0)])
//! }
//!
//! let minimum = Lbfgs::default().minimize(f_grad, &[0.0, 0.0]);
//! assert!(minimum.converged);
//! assert!((minimum.x[0] - 1.0).abs() < 1e-8 && (minimum.x[1] + 2.0).abs() < 1e-8);
//!
//! // Fields set what differs from the defaults; a closure adapts a function with more parameters.
//! let centre = [3.0, -1.0];
//! let adam = Adam { learning_rate: 0.1, max_iterations: 2000, ..Adam::default() };
//! let minimum = adam.minimize(
//!     |v: &[f64]| {
//!         let d: Vec<f64> = v.iter().zip(&centre).map(|(a, c)| a - c).collect();
//!         (d.iter().map(|di| di * di).sum(), d.iter().map(|di| 2.0 * di).collect())
//!     },
//!     &[0.0, 0.0],
//! );
//! assert!(minimum.value < 1e-6, "{minimum:?}");
//! ```

use crate::Differentiable;
use std::collections::VecDeque;

/// A minimiser of a function given by its value and gradient.
///
/// Implemented by [`Sgd`], [`Adam`] and [`Lbfgs`]; write code generic over it to let the caller choose.
pub trait Minimizer {
    /// Minimises `f` starting from `x0`.
    ///
    /// `f(x)` returns the value of the function at `x` and its gradient, as a generated `f_grad` does;
    /// a function item (`rosenbrock_grad`) or a closure (`|w| loss_grad(w, &data)`) both serve. It is
    /// called once at `x0`, then as often as the method needs ([`Minimum::evaluations`] counts the
    /// calls).
    ///
    /// # Panics
    ///
    /// If `f` returns a gradient whose length differs from the length of `x0`.
    fn minimize<F>(&self, f: F, x0: &[f64]) -> Minimum
    where
        F: FnMut(&[f64]) -> (f64, Vec<f64>);

    /// Minimises `f` over a parameter struct (`#[derive(Differentiable)]`, or any [`Differentiable`]
    /// value), starting from `p0`: [`Minimizer::minimize`] on the flat view of the parameters
    /// ([`Differentiable::to_flat`], the differentiable fields in declaration order; `#[no_grad]` fields
    /// keep the values of `p0`). `f(p)` returns the value and the gradient, a struct of the same type,
    /// as a generated `f_grad` of a function of the struct does. Returns the parameters reached and the
    /// [`Minimum`], whose `x` and `gradient` are flat.
    ///
    /// ```
    /// use autodiff_core::optim::{Lbfgs, Minimizer};
    ///
    /// // (w0 - 1)² + (w1 + 2)², over a `Vec` (a struct deriving `Differentiable` works the same way).
    /// let f = |w: &Vec<f64>| ((w[0] - 1.0).powi(2) + (w[1] + 2.0).powi(2), vec![2.0 * (w[0] - 1.0), 2.0 * (w[1] + 2.0)]);
    /// let (w, minimum) = Lbfgs::default().minimize_params(f, &vec![0.0, 0.0]);
    /// assert!(minimum.converged && (w[0] - 1.0).abs() < 1e-8 && (w[1] + 2.0).abs() < 1e-8);
    /// ```
    ///
    /// # Panics
    ///
    /// If `f` returns a gradient whose flat view differs in length from that of `p0`.
    fn minimize_params<P, F>(&self, mut f: F, p0: &P) -> (P, Minimum)
    where
        P: Differentiable,
        F: FnMut(&P) -> (f64, P),
    {
        let minimum = self.minimize(
            |x: &[f64]| {
                let (value, gradient) = f(&p0.from_flat(x));
                (value, gradient.to_flat())
            },
            &p0.to_flat(),
        );
        (p0.from_flat(&minimum.x), minimum)
    }
}

/// The result of a minimisation: the point reached, the function there, and why the minimiser stopped.
///
/// `x`, `value` and `gradient` always belong together: they are the last point where the function and
/// its gradient were finite (the starting point if they were not finite there, and then `value` or
/// `gradient` holds the non-finite numbers).
#[derive(Clone, Debug, PartialEq)]
pub struct Minimum {
    /// The point reached.
    pub x: Vec<f64>,
    /// The value of the function at `x`.
    pub value: f64,
    /// The gradient of the function at `x`.
    pub gradient: Vec<f64>,
    /// The Euclidean norm of `gradient`.
    pub gradient_norm: f64,
    /// The number of steps taken from the starting point to `x`.
    pub iterations: usize,
    /// The number of calls of the function, including those of line searches and any call at a point
    /// that was rejected.
    pub evaluations: usize,
    /// Whether `gradient_norm` is at most the minimiser's `gradient_tolerance`: `x` is a stationary point
    /// to that tolerance. The same as `stop == Stop::Converged`.
    pub converged: bool,
    /// Why the minimiser stopped.
    pub stop: Stop,
}

/// Why a minimiser stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Stop {
    /// The norm of the gradient fell to the tolerance.
    Converged,
    /// The minimiser took `max_iterations` steps without converging.
    MaxIterations,
    /// The function returned a value or gradient that is NaN or infinite, at the start or after a step
    /// of [`Sgd`] or [`Adam`] (which then report the point before the step). [`Lbfgs`] instead treats
    /// such a point as a step too long and shortens it.
    NonFinite,
    /// The line search of [`Lbfgs`] found no point lower than the current one along the search direction,
    /// nor along the steepest descent direction: usually the function is at its minimum to the precision
    /// of its own rounding, with a gradient tolerance tighter than that allows.
    LineSearchFailed,
}

/// Gradient descent, with optional (heavy-ball) momentum.
///
/// Each step updates a velocity `v` and the point, as PyTorch's `SGD` does:
///
/// ```text
/// v ← momentum · v + ∇f(x)        (v starts at 0)
/// x ← x − learning_rate · v
/// ```
///
/// With `momentum = 0` it is plain gradient descent, `x ← x − learning_rate · ∇f(x)`. The function is
/// called once per step; a step to a point where the value or gradient is not finite stops the
/// minimiser, which then reports the point before it ([`Stop::NonFinite`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Sgd {
    /// The step size. Default `0.01`.
    pub learning_rate: f64,
    /// The fraction of the previous velocity kept at each step, in `[0, 1)`. Default `0` (no momentum).
    pub momentum: f64,
    /// The largest number of steps. Default `1000`.
    pub max_iterations: usize,
    /// Converged when the Euclidean norm of the gradient is at most this. Default `1e-6`.
    pub gradient_tolerance: f64,
}

impl Sgd {
    /// Gradient descent with this learning rate, no momentum, and the other defaults.
    pub fn new(learning_rate: f64) -> Self {
        Sgd {
            learning_rate,
            ..Sgd::default()
        }
    }
}

impl Default for Sgd {
    fn default() -> Self {
        Sgd {
            learning_rate: 0.01,
            momentum: 0.0,
            max_iterations: 1000,
            gradient_tolerance: 1e-6,
        }
    }
}

impl Minimizer for Sgd {
    fn minimize<F>(&self, f: F, x0: &[f64]) -> Minimum
    where
        F: FnMut(&[f64]) -> (f64, Vec<f64>),
    {
        let mut velocity = vec![0.0; x0.len()];
        descend(
            f,
            x0,
            self.max_iterations,
            self.gradient_tolerance,
            |x, gradient| {
                for ((xi, vi), gi) in x.iter_mut().zip(&mut velocity).zip(gradient) {
                    *vi = self.momentum * *vi + gi;
                    *xi -= self.learning_rate * *vi;
                }
            },
        )
    }
}

/// Adam: gradient descent scaled per component by running averages of the gradient and its square
/// (Kingma and Ba, "Adam: A method for stochastic optimization", 2015, Algorithm 1).
///
/// At step `t = 1, 2, ...`, with `g = ∇f(x)` and `m`, `v` starting at 0:
///
/// ```text
/// m ← beta1 · m + (1 − beta1) · g
/// v ← beta2 · v + (1 − beta2) · g²
/// x ← x − learning_rate · m̂ / (√v̂ + epsilon),   m̂ = m / (1 − beta1ᵗ),  v̂ = v / (1 − beta2ᵗ)
/// ```
///
/// The defaults are the paper's. Each component moves by about `learning_rate` per step at most, so the
/// number of steps needed grows with the distance to the minimum over the learning rate. The function is
/// called once per step; a step to a point where the value or gradient is not finite stops the
/// minimiser, which then reports the point before it ([`Stop::NonFinite`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    /// The step size. Default `1e-3`.
    pub learning_rate: f64,
    /// The decay rate of the average of the gradient. Default `0.9`.
    pub beta1: f64,
    /// The decay rate of the average of the squared gradient. Default `0.999`.
    pub beta2: f64,
    /// Added to the root mean square of the gradient, to keep the division defined. Default `1e-8`.
    pub epsilon: f64,
    /// The largest number of steps. Default `1000`.
    pub max_iterations: usize,
    /// Converged when the Euclidean norm of the gradient is at most this. Default `1e-6`.
    pub gradient_tolerance: f64,
}

impl Adam {
    /// Adam with this learning rate and the other defaults.
    pub fn new(learning_rate: f64) -> Self {
        Adam {
            learning_rate,
            ..Adam::default()
        }
    }
}

impl Default for Adam {
    fn default() -> Self {
        Adam {
            learning_rate: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            max_iterations: 1000,
            gradient_tolerance: 1e-6,
        }
    }
}

impl Minimizer for Adam {
    fn minimize<F>(&self, f: F, x0: &[f64]) -> Minimum
    where
        F: FnMut(&[f64]) -> (f64, Vec<f64>),
    {
        let mut mean = vec![0.0; x0.len()];
        let mut mean_square = vec![0.0; x0.len()];
        // beta1ᵗ and beta2ᵗ, kept as products rather than `powi(t)`, which takes an `i32`.
        let (mut beta1_t, mut beta2_t) = (1.0, 1.0);
        descend(
            f,
            x0,
            self.max_iterations,
            self.gradient_tolerance,
            |x, gradient| {
                beta1_t *= self.beta1;
                beta2_t *= self.beta2;
                let components = x.iter_mut().zip(&mut mean).zip(&mut mean_square);
                for (((xi, mi), vi), &gi) in components.zip(gradient) {
                    *mi = self.beta1 * *mi + (1.0 - self.beta1) * gi;
                    *vi = self.beta2 * *vi + (1.0 - self.beta2) * gi * gi;
                    let m_hat = *mi / (1.0 - beta1_t);
                    let v_hat = *vi / (1.0 - beta2_t);
                    *xi -= self.learning_rate * m_hat / (v_hat.sqrt() + self.epsilon);
                }
            },
        )
    }
}

/// Limited-memory BFGS (Nocedal and Wright, "Numerical Optimization", 2nd ed., Algorithms 7.4 and 7.5)
/// with a line search for the strong Wolfe conditions (Algorithms 3.5 and 3.6).
///
/// Each iteration builds a quasi-Newton direction from the last `memory` steps `s` and gradient changes
/// `y` by the two-loop recursion, with the initial inverse Hessian `(sᵀy / yᵀy) I` of the newest pair,
/// then searches along it for a step `α` with sufficient decrease and a flatter slope:
///
/// ```text
/// f(x + α d) ≤ f(x) + 1e-4 · α ∇f(x)ᵀd        |∇f(x + α d)ᵀd| ≤ 0.9 · |∇f(x)ᵀd|
/// ```
///
/// trying `α = 1` first (the first iteration, and any after a restart, tries `1 / ‖∇f(x)‖` if that is
/// smaller). The line search brackets and then narrows the step by safeguarded cubic interpolation; a
/// trial point where the value or gradient is not finite counts as a step too long. If the search does
/// not meet both conditions within 25 evaluations it takes the best step with sufficient decrease it
/// found. A pair with `sᵀy ≤ ε · yᵀy` (no positive curvature) is not stored. If no step decreases `f`,
/// the memory is dropped and the search repeated along `−∇f(x)`; if that fails too the minimiser stops
/// with [`Stop::LineSearchFailed`].
#[derive(Clone, Debug, PartialEq)]
pub struct Lbfgs {
    /// The number of past steps kept to model the curvature. Default `10`; `0` gives steepest descent
    /// with a line search.
    pub memory: usize,
    /// The largest number of iterations (accepted steps). Default `1000`.
    pub max_iterations: usize,
    /// Converged when the Euclidean norm of the gradient is at most this. Default `1e-8`.
    pub gradient_tolerance: f64,
}

impl Lbfgs {
    /// L-BFGS with the defaults: the same as [`Lbfgs::default`].
    pub fn new() -> Self {
        Lbfgs::default()
    }
}

impl Default for Lbfgs {
    fn default() -> Self {
        Lbfgs {
            memory: 10,
            max_iterations: 1000,
            gradient_tolerance: 1e-8,
        }
    }
}

/// One stored curvature pair of L-BFGS: a step `s`, the change `y` of the gradient over it, and
/// `1 / sᵀy`.
struct CurvaturePair {
    s: Vec<f64>,
    y: Vec<f64>,
    rho: f64,
}

impl Minimizer for Lbfgs {
    fn minimize<F>(&self, f: F, x0: &[f64]) -> Minimum
    where
        F: FnMut(&[f64]) -> (f64, Vec<f64>),
    {
        let mut objective = Objective::new(f, x0.len());
        let mut current = objective.evaluate(x0.to_vec());
        let mut pairs: VecDeque<CurvaturePair> = VecDeque::with_capacity(self.memory);
        let mut iterations = 0;
        let stop = loop {
            if !current.is_finite() {
                break Stop::NonFinite;
            }
            let gradient_norm = norm(&current.gradient);
            if gradient_norm <= self.gradient_tolerance {
                break Stop::Converged;
            }
            if iterations >= self.max_iterations {
                break Stop::MaxIterations;
            }

            let mut direction = two_loop_direction(&pairs, &current.gradient);
            // Rounding can make the quasi-Newton direction point uphill (or overflow); start afresh
            // from steepest descent then.
            let slope = dot(&direction, &current.gradient);
            let descends = slope.is_finite() && slope < 0.0;
            if !descends {
                pairs.clear();
                direction = current.gradient.iter().map(|g| -g).collect();
            }
            // A steepest-descent direction has no scale of its own: try a step of length at most 1.
            let initial_step = if pairs.is_empty() {
                (1.0 / gradient_norm).min(1.0)
            } else {
                1.0
            };
            let Some(next) = line_search(&mut objective, &current, &direction, initial_step) else {
                if pairs.is_empty() {
                    break Stop::LineSearchFailed;
                }
                pairs.clear();
                continue;
            };

            let s: Vec<f64> = next.x.iter().zip(&current.x).map(|(a, b)| a - b).collect();
            let y: Vec<f64> = (next.gradient.iter().zip(&current.gradient))
                .map(|(a, b)| a - b)
                .collect();
            let sy = dot(&s, &y);
            // Only a pair with positive curvature keeps the inverse Hessian model positive definite.
            if self.memory > 0 && sy > f64::EPSILON * dot(&y, &y) {
                if pairs.len() == self.memory {
                    pairs.pop_front();
                }
                pairs.push_back(CurvaturePair {
                    s,
                    y,
                    rho: 1.0 / sy,
                });
            }
            current = next;
            iterations += 1;
        };
        objective.finish(current, iterations, stop)
    }
}

/// The L-BFGS direction `−H ∇f` by the two-loop recursion over the stored pairs, oldest first; `−∇f`
/// when there are none.
fn two_loop_direction(pairs: &VecDeque<CurvaturePair>, gradient: &[f64]) -> Vec<f64> {
    let mut q = gradient.to_vec();
    let mut alphas = Vec::with_capacity(pairs.len());
    for pair in pairs.iter().rev() {
        let alpha = pair.rho * dot(&pair.s, &q);
        axpy(-alpha, &pair.y, &mut q);
        alphas.push(alpha);
    }
    let gamma = pairs
        .back()
        .map_or(1.0, |newest| 1.0 / (newest.rho * dot(&newest.y, &newest.y)));
    for qi in &mut q {
        *qi *= gamma;
    }
    for (pair, alpha) in pairs.iter().zip(alphas.iter().rev()) {
        let beta = pair.rho * dot(&pair.y, &q);
        axpy(alpha - beta, &pair.s, &mut q);
    }
    for qi in &mut q {
        *qi = -*qi;
    }
    q
}

/// The sufficient decrease constant `c1` of the Wolfe conditions.
const SUFFICIENT_DECREASE: f64 = 1e-4;
/// The curvature constant `c2` of the Wolfe conditions, the usual one for quasi-Newton methods.
const CURVATURE: f64 = 0.9;
/// The most evaluations one line search makes.
const LINE_SEARCH_EVALUATIONS: usize = 25;

/// A step length tried by the line search: the point there (`None` for the start, step 0), the value,
/// and the slope `∇f(x + step · d)ᵀd` along the direction.
struct Trial {
    step: f64,
    value: f64,
    slope: f64,
    point: Option<Point>,
}

impl Trial {
    fn is_finite(&self) -> bool {
        self.value.is_finite() && self.slope.is_finite()
    }
}

/// Searches along the descent direction `direction` from `start` for a step that meets the strong Wolfe
/// conditions (Nocedal and Wright, Algorithms 3.5 and 3.6), trying `initial_step` first. Returns the
/// point reached, or the lowest point with sufficient decrease found within the budget of evaluations,
/// or `None` if there is none.
fn line_search<F>(
    objective: &mut Objective<F>,
    start: &Point,
    direction: &[f64],
    initial_step: f64,
) -> Option<Point>
where
    F: FnMut(&[f64]) -> (f64, Vec<f64>),
{
    let initial_slope = dot(&start.gradient, direction);
    let sufficient_decrease = |t: &Trial| {
        t.is_finite() && t.value <= start.value + SUFFICIENT_DECREASE * t.step * initial_slope
    };
    let flat_enough = |t: &Trial| t.slope.abs() <= -CURVATURE * initial_slope;
    let mut try_step = |step: f64| {
        let x = (start.x.iter().zip(direction))
            .map(|(xi, di)| xi + step * di)
            .collect();
        let point = objective.evaluate(x);
        Trial {
            step,
            value: point.value,
            slope: dot(&point.gradient, direction),
            point: Some(point),
        }
    };

    // Bracketing: grow the step until an interval [lo, hi] is known to hold an acceptable step, where
    // `lo` has sufficient decrease and the lowest value so far.
    let mut lo = Trial {
        step: 0.0,
        value: start.value,
        slope: initial_slope,
        point: None,
    };
    let mut step = initial_step;
    let mut evaluations = 0;
    let mut hi = loop {
        if evaluations == LINE_SEARCH_EVALUATIONS {
            return lo.point;
        }
        let trial = try_step(step);
        evaluations += 1;
        if !sufficient_decrease(&trial) || trial.value >= lo.value {
            break trial;
        }
        if flat_enough(&trial) {
            return trial.point;
        }
        if trial.slope >= 0.0 {
            // Past a minimum along the line: it lies between this trial and the previous one.
            break std::mem::replace(&mut lo, trial);
        }
        lo = trial;
        step *= 2.0;
    };

    // Zoom: narrow [lo, hi] (in either order) keeping `lo` the lowest point with sufficient decrease.
    while evaluations < LINE_SEARCH_EVALUATIONS {
        let width = (hi.step - lo.step).abs();
        if width <= f64::EPSILON * hi.step.abs().max(lo.step.abs()) {
            break;
        }
        let trial = try_step(interpolate(&lo, &hi));
        evaluations += 1;
        if !sufficient_decrease(&trial) || trial.value >= lo.value {
            hi = trial;
        } else {
            if flat_enough(&trial) {
                return trial.point;
            }
            if trial.slope * (hi.step - lo.step) >= 0.0 {
                hi = std::mem::replace(&mut lo, trial);
            } else {
                lo = trial;
            }
        }
    }
    lo.point
}

/// The next step to try between `lo` and `hi`: the minimiser of the cubic through both values and
/// slopes, kept at least a tenth of the interval away from either end; the midpoint when `hi` is not
/// finite or the cubic has no minimum there.
fn interpolate(lo: &Trial, hi: &Trial) -> f64 {
    let (a, b) = (lo.step.min(hi.step), lo.step.max(hi.step));
    let margin = 0.1 * (b - a);
    let midpoint = 0.5 * (a + b);
    if !hi.is_finite() {
        return midpoint;
    }
    // Nocedal and Wright, equation (3.59).
    let d1 = lo.slope + hi.slope - 3.0 * (lo.value - hi.value) / (lo.step - hi.step);
    let discriminant = d1 * d1 - lo.slope * hi.slope;
    if discriminant.is_nan() || discriminant < 0.0 {
        return midpoint;
    }
    let d2 = (hi.step - lo.step).signum() * discriminant.sqrt();
    let step =
        hi.step - (hi.step - lo.step) * (hi.slope + d2 - d1) / (hi.slope - lo.slope + 2.0 * d2);
    if step.is_finite() {
        step.clamp(a + margin, b - margin)
    } else {
        midpoint
    }
}

/// The function being minimised, counting its calls.
struct Objective<F> {
    f: F,
    dimension: usize,
    evaluations: usize,
}

/// A point with the function's value and gradient there.
struct Point {
    x: Vec<f64>,
    value: f64,
    gradient: Vec<f64>,
}

impl Point {
    fn is_finite(&self) -> bool {
        self.value.is_finite() && self.gradient.iter().all(|g| g.is_finite())
    }
}

impl<F> Objective<F>
where
    F: FnMut(&[f64]) -> (f64, Vec<f64>),
{
    fn new(f: F, dimension: usize) -> Self {
        Objective {
            f,
            dimension,
            evaluations: 0,
        }
    }

    fn evaluate(&mut self, x: Vec<f64>) -> Point {
        let (value, gradient) = (self.f)(&x);
        self.evaluations += 1;
        assert_eq!(
            gradient.len(),
            self.dimension,
            "autodiff::optim: the gradient function returned a gradient of length {} for a point of \
             length {}",
            gradient.len(),
            self.dimension,
        );
        Point { x, value, gradient }
    }

    /// The result at `point`, reached after `iterations` steps, and why the minimiser stopped there.
    fn finish(self, point: Point, iterations: usize, stop: Stop) -> Minimum {
        Minimum {
            x: point.x,
            value: point.value,
            gradient_norm: norm(&point.gradient),
            gradient: point.gradient,
            iterations,
            evaluations: self.evaluations,
            converged: stop == Stop::Converged,
            stop,
        }
    }
}

/// The loop of the first-order methods: evaluate, test for convergence, and let `update` move `x` given
/// the gradient there, at most `max_iterations` times.
fn descend<F>(
    f: F,
    x0: &[f64],
    max_iterations: usize,
    gradient_tolerance: f64,
    mut update: impl FnMut(&mut [f64], &[f64]),
) -> Minimum
where
    F: FnMut(&[f64]) -> (f64, Vec<f64>),
{
    let mut objective = Objective::new(f, x0.len());
    let mut current = objective.evaluate(x0.to_vec());
    let mut iterations = 0;
    let stop = loop {
        if !current.is_finite() {
            break Stop::NonFinite;
        }
        if norm(&current.gradient) <= gradient_tolerance {
            break Stop::Converged;
        }
        if iterations >= max_iterations {
            break Stop::MaxIterations;
        }
        let mut x = current.x.clone();
        update(&mut x, &current.gradient);
        let next = objective.evaluate(x);
        if !next.is_finite() {
            break Stop::NonFinite;
        }
        current = next;
        iterations += 1;
    };
    objective.finish(current, iterations, stop)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `y ← y + a x`.
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// The Euclidean norm, scaled by the largest component so that squaring neither overflows nor
/// underflows; NaN if any component is NaN, infinite if any is infinite.
fn norm(v: &[f64]) -> f64 {
    let scale = v.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    if v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    if scale == 0.0 || scale.is_infinite() {
        return scale;
    }
    scale * v.iter().map(|x| (x / scale).powi(2)).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `½ xᵀAx − bᵀx` for a fixed symmetric positive definite `A` (condition number about 30), whose
    /// minimum is the solution of `Ax = b`.
    fn quadratic(x: &[f64]) -> (f64, Vec<f64>) {
        let (a, b) = quadratic_system();
        let ax: Vec<f64> = a.iter().map(|row| dot(row, x)).collect();
        let value = 0.5 * dot(x, &ax) - dot(&b, x);
        let gradient = ax.iter().zip(&b).map(|(p, q)| p - q).collect();
        (value, gradient)
    }

    fn quadratic_system() -> ([[f64; 3]; 3], [f64; 3]) {
        let a = [[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 0.15]];
        (a, [1.0, 2.0, 3.0])
    }

    /// The solution of `Ax = b` of [`quadratic`], by Cramer's rule.
    fn quadratic_minimum() -> [f64; 3] {
        let (a, b) = quadratic_system();
        let det = |m: [[f64; 3]; 3]| {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        };
        let d = det(a);
        let mut x = [0.0; 3];
        for (column, xi) in x.iter_mut().enumerate() {
            let mut m = a;
            for (row, bi) in b.iter().enumerate() {
                m[row][column] = *bi;
            }
            *xi = det(m) / d;
        }
        x
    }

    /// The extended Rosenbrock function `Σ 100 (x[i+1] − x[i]²)² + (1 − x[i])²`, minimum 0 at all ones.
    fn rosenbrock(x: &[f64]) -> (f64, Vec<f64>) {
        let mut value = 0.0;
        let mut gradient = vec![0.0; x.len()];
        for i in 0..x.len() - 1 {
            let (a, b) = (x[i + 1] - x[i] * x[i], 1.0 - x[i]);
            value += 100.0 * a * a + b * b;
            gradient[i] += -400.0 * a * x[i] - 2.0 * b;
            gradient[i + 1] += 200.0 * a;
        }
        (value, gradient)
    }

    fn rosenbrock_start(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
            .collect()
    }

    fn distance(a: &[f64], b: &[f64]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn every_minimiser_finds_the_minimum_of_a_quadratic() {
        let expected = quadratic_minimum();
        let start = [0.0; 3];
        let lbfgs = Lbfgs::default().minimize(quadratic, &start);
        assert!(lbfgs.converged, "{lbfgs:?}");
        assert!(distance(&lbfgs.x, &expected) < 1e-7, "{lbfgs:?}");
        // At most n + 1 iterations with an exact line search; a few more with an inexact one.
        assert!(lbfgs.iterations <= 15, "{lbfgs:?}");

        let tolerance = 1e-9;
        let sgd = Sgd {
            learning_rate: 0.2,
            max_iterations: 20_000,
            gradient_tolerance: tolerance,
            ..Sgd::default()
        };
        let momentum = Sgd {
            momentum: 0.9,
            learning_rate: 0.05,
            ..sgd.clone()
        };
        let adam = Adam {
            learning_rate: 0.01,
            max_iterations: 20_000,
            gradient_tolerance: tolerance,
            ..Adam::default()
        };
        for minimum in [
            sgd.minimize(quadratic, &start),
            momentum.minimize(quadratic, &start),
            adam.minimize(quadratic, &start),
        ] {
            assert!(minimum.converged, "{minimum:?}");
            assert!(minimum.gradient_norm <= tolerance, "{minimum:?}");
            // The smallest eigenvalue of A is above 0.05, so the error is at most |g| / 0.05.
            assert!(distance(&minimum.x, &expected) < 1e-7, "{minimum:?}");
            assert_eq!(minimum.evaluations, minimum.iterations + 1);
        }
    }

    #[test]
    fn momentum_converges_in_fewer_steps_than_plain_descent() {
        let plain = Sgd {
            learning_rate: 0.1,
            max_iterations: 100_000,
            ..Sgd::default()
        };
        let heavy_ball = Sgd {
            momentum: 0.9,
            ..plain.clone()
        };
        let plain = plain.minimize(quadratic, &[0.0; 3]);
        let heavy_ball = heavy_ball.minimize(quadratic, &[0.0; 3]);
        assert!(plain.converged && heavy_ball.converged);
        assert!(
            heavy_ball.iterations * 3 < plain.iterations,
            "{heavy_ball:?} {plain:?}"
        );
    }

    #[test]
    fn lbfgs_minimises_the_2d_rosenbrock_function() {
        let minimum = Lbfgs::default().minimize(rosenbrock, &rosenbrock_start(2));
        assert!(minimum.converged, "{minimum:?}");
        assert!(distance(&minimum.x, &[1.0; 2]) < 1e-6, "{minimum:?}");
        assert!(minimum.iterations < 100, "{minimum:?}");
        assert!(minimum.evaluations < 200, "{minimum:?}");
    }

    #[test]
    fn lbfgs_minimises_the_10d_rosenbrock_function() {
        let minimum = Lbfgs::default().minimize(rosenbrock, &rosenbrock_start(10));
        assert!(minimum.converged, "{minimum:?}");
        assert!(distance(&minimum.x, &[1.0; 10]) < 1e-6, "{minimum:?}");
        assert!(minimum.iterations < 300, "{minimum:?}");
    }

    #[test]
    fn lbfgs_with_no_memory_is_steepest_descent_and_still_descends() {
        let lbfgs = Lbfgs {
            memory: 0,
            max_iterations: 200,
            ..Lbfgs::default()
        };
        let start = rosenbrock_start(2);
        let minimum = lbfgs.minimize(rosenbrock, &start);
        assert!(minimum.value < 0.1 * rosenbrock(&start).0, "{minimum:?}");
    }

    #[test]
    fn adam_and_sgd_reduce_the_rosenbrock_function() {
        let start = rosenbrock_start(2);
        let initial = rosenbrock(&start).0;
        let adam = Adam {
            learning_rate: 0.02,
            max_iterations: 3000,
            ..Adam::default()
        };
        let sgd = Sgd {
            learning_rate: 1e-3,
            momentum: 0.9,
            max_iterations: 3000,
            ..Sgd::default()
        };
        for minimum in [
            adam.minimize(rosenbrock, &start),
            sgd.minimize(rosenbrock, &start),
        ] {
            assert_eq!(minimum.stop, Stop::MaxIterations, "{minimum:?}");
            assert!(!minimum.converged);
            assert_eq!(minimum.iterations, 3000);
            assert!(minimum.value < 1e-2 * initial, "{minimum:?}");
        }
    }

    #[test]
    fn adam_defaults_are_kingma_and_ba() {
        let adam = Adam::default();
        assert_eq!(
            (adam.learning_rate, adam.beta1, adam.beta2, adam.epsilon),
            (1e-3, 0.9, 0.999, 1e-8)
        );
        assert_eq!(Adam::new(0.5).learning_rate, 0.5);
        assert_eq!(Sgd::new(0.5).learning_rate, 0.5);
        assert_eq!(Lbfgs::new().memory, 10);
    }

    #[test]
    fn adam_steps_by_about_the_learning_rate_at_first() {
        // With bias correction the first step is learning_rate · g / |g| per component.
        let adam = Adam {
            learning_rate: 0.1,
            max_iterations: 1,
            ..Adam::default()
        };
        let minimum = adam.minimize(|x| (x[0] * 1e4, vec![1e4]), &[0.0]);
        assert!((minimum.x[0] + 0.1).abs() < 1e-9, "{minimum:?}");
    }

    #[test]
    fn a_non_finite_start_stops_at_once() {
        let nan = |_: &[f64]| (f64::NAN, vec![0.0, 0.0]);
        let infinite_gradient = |_: &[f64]| (1.0, vec![f64::INFINITY, 0.0]);
        for minimum in [
            Lbfgs::default().minimize(nan, &[1.0, 2.0]),
            Adam::default().minimize(nan, &[1.0, 2.0]),
            Sgd::default().minimize(infinite_gradient, &[1.0, 2.0]),
            Lbfgs::default().minimize(infinite_gradient, &[1.0, 2.0]),
        ] {
            assert_eq!(minimum.stop, Stop::NonFinite);
            assert!(!minimum.converged);
            assert_eq!((minimum.iterations, minimum.evaluations), (0, 1));
            assert_eq!(minimum.x, [1.0, 2.0]);
        }
    }

    #[test]
    fn first_order_methods_stop_before_a_step_to_a_non_finite_point() {
        // ln(x), finite only for x > 0: a long step from x = 1 lands at x < 0, where it is NaN.
        let log = |x: &[f64]| (x[0].ln(), vec![1.0 / x[0]]);
        let sgd = Sgd::new(2.0).minimize(log, &[1.0]);
        assert_eq!(sgd.stop, Stop::NonFinite);
        assert!(!sgd.converged);
        assert_eq!(sgd.x, [1.0]);
        assert_eq!((sgd.iterations, sgd.evaluations), (0, 2));

        // A gradient that blows up after some steps.
        let mut calls = 0;
        let blows_up = |x: &[f64]| {
            calls += 1;
            let g = if calls > 5 { f64::INFINITY } else { 2.0 * x[0] };
            (x[0] * x[0], vec![g])
        };
        let adam = Adam::new(0.1).minimize(blows_up, &[1.0]);
        assert_eq!(adam.stop, Stop::NonFinite);
        assert_eq!((adam.iterations, adam.evaluations), (4, 6));
        assert!(adam.gradient[0].is_finite());
    }

    #[test]
    fn lbfgs_shortens_steps_into_non_finite_regions() {
        // x − ln(x) has its minimum at 1 and is NaN for x < 0; from 10 the first step overshoots there.
        let f = |x: &[f64]| (x[0] - x[0].ln(), vec![1.0 - 1.0 / x[0]]);
        let minimum = Lbfgs::default().minimize(f, &[10.0]);
        assert!(minimum.converged, "{minimum:?}");
        assert!((minimum.x[0] - 1.0).abs() < 1e-8, "{minimum:?}");
    }

    #[test]
    fn lbfgs_stops_when_every_trial_point_is_non_finite() {
        // Finite only at the starting point: the line search must give up, not loop.
        let f = |x: &[f64]| {
            if x == [1.0] {
                (1.0, vec![1.0])
            } else {
                (f64::NAN, vec![f64::NAN])
            }
        };
        let minimum = Lbfgs::default().minimize(f, &[1.0]);
        assert_eq!(minimum.stop, Stop::LineSearchFailed);
        assert!(!minimum.converged);
        assert_eq!(minimum.x, [1.0]);
        assert_eq!(minimum.iterations, 0);
        assert!(minimum.evaluations <= 1 + LINE_SEARCH_EVALUATIONS);
    }

    #[test]
    fn lbfgs_stops_on_a_function_unbounded_below() {
        // f(x) = x keeps decreasing: the line search keeps extrapolating; the iteration limit ends it.
        let lbfgs = Lbfgs {
            max_iterations: 50,
            ..Lbfgs::default()
        };
        let minimum = lbfgs.minimize(|x| (x[0], vec![1.0]), &[0.0]);
        assert!(!minimum.converged);
        assert!(minimum.value < -1e6, "{minimum:?}");
    }

    #[test]
    fn lbfgs_reports_a_tolerance_beyond_rounding_as_a_failed_line_search() {
        // A zero tolerance asks for an exactly zero gradient; near the minimum, rounding in f hides every
        // decrease, so the line search fails there, with x at the minimum all the same.
        let lbfgs = Lbfgs {
            gradient_tolerance: 0.0,
            ..Lbfgs::default()
        };
        let minimum = lbfgs.minimize(rosenbrock, &rosenbrock_start(10));
        assert_eq!(minimum.stop, Stop::LineSearchFailed, "{minimum:?}");
        assert!(!minimum.converged);
        assert!(distance(&minimum.x, &[1.0; 10]) < 1e-9, "{minimum:?}");
    }

    #[test]
    fn an_empty_problem_is_already_converged() {
        let minimum = Lbfgs::default().minimize(|_| (3.0, Vec::new()), &[]);
        assert!(minimum.converged);
        assert_eq!((minimum.value, minimum.iterations), (3.0, 0));
    }

    #[test]
    #[should_panic(expected = "gradient of length 1 for a point of length 2")]
    fn a_gradient_of_the_wrong_length_panics_with_both_lengths() {
        Sgd::default().minimize(|_| (0.0, vec![1.0]), &[1.0, 2.0]);
    }

    #[test]
    fn the_norm_neither_overflows_nor_underflows() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-15 * b;
        assert!(close(norm(&[3e200, 4e200]), 5e200));
        assert!(close(norm(&[3e-200, 4e-200]), 5e-200));
        assert!(norm(&[1.0, f64::NAN]).is_nan());
        assert_eq!(norm(&[1.0, f64::NEG_INFINITY]), f64::INFINITY);
        assert_eq!(norm(&[]), 0.0);
    }
}
