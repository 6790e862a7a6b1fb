//! The procedural macros of [`autodiff`](https://docs.rs/autodiff). Use them through the `autodiff` crate,
//! whose paths (`::autodiff::__private`) the generated code names.
//!
//! The macro is a small compiler, one module per pass:
//! `args` (the attribute) → `signature` (active parameters) → `fence` (the supported subset) →
//! `lower` (to the intermediate form of `ir`) → `activity` → `reverse` and `forward` (emission, with the
//! derivative table of `rules` and the names of `naming`), driven by `expand`.

mod activity;
mod args;
mod array_patterns;
mod asserts;
mod bindings;
mod chains;
mod companion;
mod constant_whole;
mod context;
mod custom;
mod custom_copy;
mod derivative_copies;
mod derive;
mod emit;
mod errors;
mod expand;
mod fence;
mod forward;
mod from_casts;
mod hash;
mod higher;
mod impls;
mod in_closure;
mod incoming;
mod integer_fields;
mod integer_rows;
mod invisible;
mod ir;
mod jacobian;
mod labels;
mod lower;
mod map_float;
mod matrix_reads;
mod maybe;
mod method_paths;
mod naming;
mod region_lengths;
mod reverse;
mod rules;
mod shadow;
mod signature;
mod slice_views;
mod slice_writes;
mod sorts;
mod span;
mod std_forms;
mod struct_higher;
mod struct_whole;
mod structs;
mod sugar;
mod tuple_data;
mod tuples;
mod views;

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
///
/// On a method, the items are methods of the same `impl`. On a method of a trait's `impl`, which can hold
/// only the trait's members, write the attribute on the block too: it puts them in an inherent `impl` of
/// the same type beside it.
///
/// ```
/// use autodiff::differentiable;
///
/// trait Energy {
///     fn energy(&self, x: f64) -> f64;
/// }
///
/// struct Spring {
///     k: f64,
/// }
///
/// #[differentiable]
/// impl Energy for Spring {
///     #[differentiable]
///     fn energy(&self, x: f64) -> f64 {
///         0.5 * self.k * x * x
///     }
/// }
///
/// assert_eq!(Spring { k: 2.0 }.energy_grad(3.0), (9.0, 6.0));
/// ```
#[proc_macro_attribute]
pub fn differentiable(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::differentiable(attr.into(), item.into()).into()
}

/// A function that supplies its own gradient, as `tf.custom_gradient` does.
///
/// The function returns its value and a closure from the output cotangent `dy` to the cotangents of its
/// differentiable parameters (one alone, several as a tuple in declaration order). After expansion the
/// function returns its value alone; `f_grad`, `f_vjp` and `f_jvp` are emitted as for `#[differentiable]`,
/// and a differentiable function that calls `f` uses the closure in its reverse sweep.
///
/// ```
/// use autodiff::custom_gradient;
///
/// #[custom_gradient]
/// fn log1pexp(x: f64) -> (f64, impl Fn(f64) -> f64) {
///     let e = x.exp();
///     ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
/// }
///
/// assert_eq!(log1pexp(0.0), 2f64.ln());
/// let (_, slope) = log1pexp_grad(800.0); // exp(800) overflows; the custom gradient does not
/// assert_eq!(slope, 1.0);
/// ```
#[proc_macro_attribute]
pub fn custom_gradient(attr: TokenStream, item: TokenStream) -> TokenStream {
    custom::custom_gradient(attr.into(), item.into()).into()
}

/// Registers the vector-Jacobian product of a function you do not own, as `tf.RegisterGradient` does.
///
/// On `fn name(<the function's parameters>, dy: R) -> G`, `#[gradient_of(path::to::f)]` makes calls of `f`
/// in differentiable code use `name` for their gradient: calls by the name `f` where the registration is in
/// scope (after `use path::to::f;`), and calls by the path `path::to::f(..)` in the registration's module
/// and in modules that import it (`use super::*;`).
///
/// ```
/// use autodiff::{differentiable, gradient_of};
///
/// mod special {
///     pub fn softsign(x: f64) -> f64 {
///         x / (1.0 + x.abs())
///     }
/// }
/// use special::softsign;
///
/// #[gradient_of(special::softsign)]
/// fn softsign_vjp(x: f64, dy: f64) -> f64 {
///     dy / ((1.0 + x.abs()) * (1.0 + x.abs()))
/// }
///
/// #[differentiable]
/// fn f(x: f64) -> f64 {
///     softsign(x) * 2.0
/// }
///
/// #[differentiable]
/// fn by_path(x: f64) -> f64 {
///     special::softsign(x) * 2.0
/// }
///
/// assert_eq!(f_grad(1.0), (1.0, 0.5));
/// assert_eq!(by_path_grad(1.0), (1.0, 0.5));
/// ```
#[proc_macro_attribute]
pub fn gradient_of(attr: TokenStream, item: TokenStream) -> TokenStream {
    custom::gradient_of(attr.into(), item.into()).into()
}

/// Makes a struct a differentiable parameter type, its own gradient type: `#[derive(Differentiable)]`
/// implements `autodiff::Differentiable` (`zero_like`, `add_assign`, `scale`, and the flat view
/// `to_flat`/`from_flat` over the differentiable fields in declaration order).
///
/// Each field is a float (`f64`, `f32`, a type parameter `T: Float`), a `Vec` or array of them, or
/// another struct deriving `Differentiable`; a field marked `#[no_grad]` (an integer, a flag, data) is a
/// constant, which a gradient copies from the value. A parameter `p: &Mlp` of a `#[differentiable]`
/// function is then differentiated, its gradient a `Mlp`.
///
/// ```
/// use autodiff::{differentiable, Differentiable};
///
/// #[derive(Clone, Debug, Differentiable)]
/// struct Line {
///     slope: f64,
///     offsets: Vec<f64>,
///     #[no_grad]
///     label: usize,
/// }
///
/// #[differentiable]
/// fn height(p: &Line, x: f64) -> f64 {
///     p.slope * x + p.offsets[0]
/// }
///
/// let line = Line { slope: 2.0, offsets: vec![1.0, 5.0], label: 7 };
/// let (value, (grad, dx)) = height_grad(&line, 3.0);
/// assert_eq!(value, 7.0);
/// assert_eq!((grad.slope, grad.offsets, grad.label, dx), (3.0, vec![1.0, 0.0], 7, 2.0));
/// assert_eq!(line.to_flat(), vec![2.0, 1.0, 5.0]);
/// ```
#[proc_macro_derive(Differentiable, attributes(no_grad))]
pub fn derive_differentiable(item: TokenStream) -> TokenStream {
    derive::derive(item.into()).into()
}
