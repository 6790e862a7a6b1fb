//! The procedural macros of [`autodiff`](https://docs.rs/autodiff). Use them through the `autodiff` crate,
//! whose paths (`::autodiff::__private`) the generated code names.
//!
//! The macro is a small compiler, one module per pass:
//! `args` (the attribute) → `signature` (active parameters) → `fence` (the supported subset) →
//! `lower` (to the intermediate form of `ir`) → `activity` → `reverse` and `forward` (emission, with the
//! derivative table of `rules` and the names of `naming`), driven by `expand`.

mod activity;
mod args;
mod companion;
mod emit;
mod errors;
mod expand;
mod fence;
mod forward;
mod ir;
mod lower;
mod naming;
mod reverse;
mod rules;
mod signature;

use proc_macro::TokenStream;

/// Differentiates a function at compile time.
///
/// Beside `fn f(..) -> R` it emits, with the same visibility and generics:
///
/// - `f_grad(<params>) -> (R, G)`: value and gradient, where `R` is one float;
/// - `f_vjp(<params>, d_ret: R) -> (R, G)`: reverse mode, the vector-Jacobian product for `d_ret`;
/// - `f_jvp(<params>, tangent: G) -> (R, R)`: forward mode, the Jacobian-vector product.
///
/// `G` is the gradient over the active parameters (every `f64`, `f32` or `T: Float` parameter, or those
/// named by `#[differentiable(wrt(a, b))]`): one alone, several as a tuple in declaration order.
///
/// ```
/// use autodiff::differentiable;
///
/// #[differentiable]
/// fn f(x: f64, y: f64) -> f64 {
///     let z = x * y + x.sin();
///     z.exp()
/// }
///
/// let (value, (dx, dy)) = f_grad(1.0, 2.0);
/// assert_eq!(value, f(1.0, 2.0));
/// let (_, tangent) = f_jvp(1.0, 2.0, (1.0, 0.0));
/// assert!((tangent - dx).abs() < 1e-12);
/// ```
#[proc_macro_attribute]
pub fn differentiable(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::differentiable(attr.into(), item.into()).into()
}
