//! # autodiff
//!
//! Compile-time automatic differentiation of plain Rust functions. Put `#[differentiable]` on a numeric
//! function and the macro writes its adjoint (reverse mode) and tangent (forward mode) beside it, as
//! ordinary Rust that compiles and optimises like hand-written code: no operator overloading, no
//! recorded graph, no tensor type. The only run-time storage is a typed stack, in loops, for the values
//! the reverse sweep reads and the forward sweep overwrote.
//!
//! ```
//! use autodiff::differentiable;
//!
//! #[differentiable]
//! fn f(x: f64, y: f64) -> f64 {
//!     let z = x * y + x.sin();
//!     z.exp()
//! }
//!
//! let (value, (dx, dy)) = f_grad(1.0, 2.0);
//! let z = 1.0 * 2.0 + 1.0_f64.sin();
//! assert!((value - z.exp()).abs() < 1e-12);
//! assert!((dx - z.exp() * (2.0 + 1.0_f64.cos())).abs() < 1e-12);
//! assert!((dy - z.exp() * 1.0).abs() < 1e-12);
//! ```
//!
//! - [`differentiable`] emits `f_grad`, `f_vjp` and `f_jvp` (and, with `order = K`, `f_hvp`, `f_hessian`,
//!   `f_derivatives`);
//! - [`custom_gradient`] lets a function supply its own vector-Jacobian product, as `tf.custom_gradient`;
//! - [`gradient_of`] registers the gradient of a function you do not own, as `tf.RegisterGradient`;
//! - [`Dual`] is a dual number for forward mode and higher order, [`check_gradient`] compares a gradient
//!   with central differences, and [`optim`] has minimisers (`Sgd`, `Adam`, `Lbfgs`) that take a generated
//!   `_grad` function; with the feature `argmin`, `autodiff::argmin::Problem` hands one to argmin's solvers.
//!
//! See the README for the supported subset of Rust and `docs/` for how the generated code works.

#![warn(missing_docs)]

pub use autodiff_core::optim;

#[cfg(feature = "argmin")]
pub mod argmin;
pub use autodiff_core::{
    check_gradient, check_gradient_of, stop_gradient, Differentiable, Dual, Float, FloatCotangent,
    FloatTangentBuffer, GradientCheck,
};
pub use autodiff_macros::{custom_gradient, differentiable, gradient_of, Differentiable};

/// What generated code calls. Not part of the public API: names here may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use autodiff_core::private::*;
}
