//! Why `#[custom_gradient]` exists: the gradient of `log(1 + exp(x))`.
//!
//! Differentiated as written, `ln(1 + eˣ)` has the derivative `eˣ / (1 + eˣ)`. Once `eˣ` overflows (at
//! `x ≈ 88.7` in `f32`, `x ≈ 709.8` in `f64`) that is `∞ / ∞ = NaN`, although the true derivative is
//! just 1. A custom gradient says what the derivative is, the logistic function `1 / (1 + e⁻ˣ)`, which
//! never overflows; and it lets the value be computed stably too, as `max(x, 0) + ln(1 + e^-|x|)`.
//!
//! Run it with `cargo run --example log1pexp`.

use autodiff::{custom_gradient, differentiable, Float};

/// `ln(1 + eˣ)` differentiated as written.
#[differentiable]
fn naive<T: Float>(x: T) -> T {
    (T::one() + x.exp()).ln()
}

/// `ln(1 + eˣ)`, computed without overflow, with its gradient `σ(x) = 1 / (1 + e⁻ˣ)` written by hand.
#[custom_gradient]
fn log1pexp<T: Float>(x: T) -> (T, impl Fn(T) -> T) {
    let one = T::one();
    let logistic = one / (one + (-x).exp());
    let value = x.max(T::zero()) + (-x.abs()).exp().ln_1p();
    (value, move |dy: T| dy * logistic)
}

/// The logistic loss of a linear model, `ln(1 + e^(-y w x))`: a caller of `log1pexp`, whose gradient
/// goes through the custom one.
#[differentiable(wrt(w))]
fn logistic_loss<T: Float>(w: T, x: T, label: T) -> T {
    log1pexp(-label * w * x)
}

/// Prints one row of the comparison and says whether the custom gradient is exact there.
fn row<T: Float + std::fmt::Display>(x: T) -> bool {
    let (naive_value, (_, naive_slope)) = (naive(x), naive_grad(x));
    let (value, (_, slope)) = (log1pexp(x), log1pexp_grad(x));
    let exact = T::one() / (T::one() + (-x).exp());
    println!(
        "  {x:>6} | {naive_value:>12.6} {naive_slope:>12.6} | {value:>12.6} {slope:>12.6} | {exact:>10.6}"
    );
    // Exact to the last bit or two: both sides compute the same formula.
    (slope - exact).abs() <= T::epsilon() * exact + T::min_positive_value()
}

/// The table for one float type.
fn table<T: Float + std::fmt::Display>(name: &str, xs: &[T]) -> bool {
    println!("\n{name}:");
    println!(
        "  {:>6} | {:>12} {:>12} | {:>12} {:>12} | {:>10}",
        "x", "naive value", "naive grad", "custom value", "custom grad", "σ(x)"
    );
    xs.iter().fold(true, |all, &x| row(x) & all)
}

fn main() {
    println!("The gradient of ln(1 + exp(x)): differentiated as written (naive) and with #[custom_gradient].");
    let ok_f32 = table(
        "f32 (exp overflows above x ≈ 88.7)",
        &[0.0f32, 10.0, 50.0, 88.0, 89.0, 100.0],
    );
    let ok_f64 = table(
        "f64 (exp overflows above x ≈ 709.8)",
        &[0.0f64, 30.0, 700.0, 709.0, 710.0, 800.0],
    );

    let (_, naive_slope) = naive_grad(100.0f32);
    let (_, slope) = log1pexp_grad(100.0f32);
    println!("\nAt x = 100 in f32: the naive gradient is {naive_slope}, the custom one {slope}.");
    let (_, naive_slope) = naive_grad(800.0f64);
    let (_, slope) = log1pexp_grad(800.0f64);
    println!("At x = 800 in f64: the naive gradient is {naive_slope}, the custom one {slope}.");

    // Callers use the custom gradient: a badly misclassified sample (margin -800) still gets the
    // gradient -label · x = 2 of the loss in w, not NaN.
    let (loss, (_, slope)) = (
        logistic_loss(400.0, 2.0, -1.0),
        logistic_loss_grad(400.0, 2.0, -1.0),
    );
    println!(
        "\nThe logistic loss at w = 400, x = 2, label = -1: loss {loss}, d loss / d w = {slope}."
    );

    assert!(naive_grad(100.0f32).1.is_nan() && naive_grad(800.0f64).1.is_nan());
    assert!(ok_f32 && ok_f64, "the custom gradient should equal σ(x)");
    assert_eq!((loss, slope), (800.0, 2.0));
    println!("\nThe custom gradient equals σ(x) at every point; the naive one is NaN where exp overflows.");
}
