//! # autodiff
//!
//! Compile-time automatic differentiation of plain Rust functions. Put `#[differentiable]` on a numeric
//! function and the macro writes its adjoint (reverse mode) and tangent (forward mode) beside it, as
//! ordinary Rust that compiles and optimises like hand-written code: no run-time tape, no tensor type.
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
//! See the README for the supported subset of Rust and `docs/` for how the generated code works.

#![warn(missing_docs)]

pub use autodiff_core::{check_gradient, stop_gradient, Dual, Float, GradientCheck};
pub use autodiff_macros::{custom_gradient, differentiable, gradient_of};

/// What generated code calls. Not part of the public API: names here may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use autodiff_core::private::*;
}
