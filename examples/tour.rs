//! A quick tour of `autodiff`: for a few functions, the value, the gradient that `#[differentiable]`
//! generated, the gradient worked out by hand, and a check against central finite differences.
//!
//! Run it with `cargo run --example tour`. To read the code the macro wrote for these functions, see
//! `docs/how-it-works.md`, or the snapshots in `tests/expand/`.

use autodiff::{check_gradient, custom_gradient, differentiable, Float, GradientCheck};

/// The tolerance of every gradient check below (see `GradientCheck::is_ok`).
const TOLERANCE: f64 = 1e-6;

// 1. The example of the README: straight-line code.
#[differentiable]
fn f(x: f64, y: f64) -> f64 {
    let z = x * y + x.sin();
    z.exp()
}

// 2. Generic code: written once for any `T: Float`, differentiated once, run on `f32` and `f64`.
#[differentiable]
fn gaussian<T: Float>(x: T, mu: T, sigma: T) -> T {
    let half = T::from(0.5).unwrap();
    let u = (x - mu) / sigma;
    (-half * u * u).exp() / sigma
}

// 3. Two outputs: no `_grad` (a gradient needs one output), but `_vjp` and `_jvp` give the Jacobian
//    row by row and column by column.
#[differentiable]
fn polar(r: f64, theta: f64) -> (f64, f64) {
    (r * theta.cos(), r * theta.sin())
}

// 4. Branches: an early return inside an `if`. The gradient follows the branch the value took.
#[differentiable]
fn huber(r: f64, delta: f64) -> f64 {
    let a = r.abs();
    if a <= delta {
        return 0.5 * r * r;
    }
    delta * (a - 0.5 * delta)
}

// 5. `wrt(..)`: only the weights get a gradient; the sample `x` is a constant and the label passes through.
#[differentiable(wrt(w, b))]
fn logistic_loss(w: f64, b: f64, x: f64, label: bool) -> f64 {
    let sign = if label { 1.0 } else { -1.0 };
    let margin = sign * (w * x + b);
    (-margin).exp().ln_1p()
}

// 6. A loop over a slice: the Rosenbrock function in n dimensions. The gradient is a `Vec`, and
//    `order = 2` adds Hessian-vector products (forward mode over reverse mode, on dual numbers).
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

// 7. Calls: a logistic loss that calls another differentiable function (`dot`) and a function with a
//    custom gradient (`log1pexp`, whose closure receives `dy`, the cotangent flowing back to the call).
#[differentiable]
fn dot(w: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        s += w[i] * x[i];
    }
    s
}

#[custom_gradient]
fn log1pexp(z: f64) -> (f64, impl Fn(f64) -> f64) {
    let e = z.exp();
    ((1.0 + e).ln(), move |dy| dy * (1.0 - 1.0 / (1.0 + e)))
}

#[differentiable(wrt(w))]
fn log_loss(w: &[f64], x: &[f64], label: f64) -> f64 {
    log1pexp(-label * dot(w, x))
}

fn main() {
    println!("autodiff tour: each function below got `_grad`, `_vjp` and `_jvp` at compile time.");
    let mut all_ok = true;

    // 1. f(x, y) = exp(x y + sin x).
    let (x, y) = (0.7, 1.3);
    let (value, (dx, dy)) = f_grad(x, y);
    let e = (x * y + x.sin()).exp();
    let analytic = [e * (y + x.cos()), e * x];
    let check = check_gradient(|v| f(v[0], v[1]), &[x, y], &[dx, dy]);
    section(
        "f(x, y) = exp(x y + sin x)",
        &format!("(x, y) = ({x}, {y})"),
    );
    row("value", &[value]);
    row("gradient", &[dx, dy]);
    row("by hand", &analytic);
    // Forward mode: the derivative along a direction, one pass for all inputs' tangents.
    let (_, along_x) = f_jvp(x, y, (1.0, 0.0));
    row("f_jvp along (1, 0)", &[along_x]);
    all_ok &= report(&check);

    // 2. The Gaussian density, on f64 and on f32.
    let (x, mu, sigma) = (0.3, -0.2, 1.5);
    let (value, (dx, dmu, dsigma)) = gaussian_grad(x, mu, sigma);
    let (value32, (dx32, dmu32, dsigma32)) = gaussian_grad(x as f32, mu as f32, sigma as f32);
    let u = (x - mu) / sigma;
    let g = gaussian(x, mu, sigma);
    let analytic = [-u / sigma * g, u / sigma * g, (u * u - 1.0) / sigma * g];
    let check = check_gradient(
        |v| gaussian(v[0], v[1], v[2]),
        &[x, mu, sigma],
        &[dx, dmu, dsigma],
    );
    section(
        "gaussian<T: Float>(x, mu, sigma) = exp(-u²/2) / sigma, u = (x - mu) / sigma",
        &format!("(x, mu, sigma) = ({x}, {mu}, {sigma})"),
    );
    row("value (f64)", &[value]);
    row("gradient (f64)", &[dx, dmu, dsigma]);
    row("value (f32)", &[f64::from(value32)]);
    row(
        "gradient (f32)",
        &[f64::from(dx32), f64::from(dmu32), f64::from(dsigma32)],
    );
    row("by hand", &analytic);
    all_ok &= report(&check);

    // 3. Polar to Cartesian coordinates: the 2×2 Jacobian.
    let (r, theta) = (2.0, 0.5);
    let ((px, py), (dpx_dr, dpx_dtheta)) = polar_vjp(r, theta, (1.0, 0.0));
    let (_, (dpy_dr, dpy_dtheta)) = polar_vjp(r, theta, (0.0, 1.0));
    let (_, (dpx_dr_fwd, dpy_dr_fwd)) = polar_jvp(r, theta, (1.0, 0.0));
    let (_, (dpx_dtheta_fwd, dpy_dtheta_fwd)) = polar_jvp(r, theta, (0.0, 1.0));
    let check_px = check_gradient(|v| polar(v[0], v[1]).0, &[r, theta], &[dpx_dr, dpx_dtheta]);
    let check_py = check_gradient(|v| polar(v[0], v[1]).1, &[r, theta], &[dpy_dr, dpy_dtheta]);
    section(
        "polar(r, theta) = (r cos theta, r sin theta)",
        &format!("(r, theta) = ({r}, {theta})"),
    );
    row("value", &[px, py]);
    row(
        "row 1 of J (polar_vjp, d_ret = (1, 0))",
        &[dpx_dr, dpx_dtheta],
    );
    row(
        "row 2 of J (polar_vjp, d_ret = (0, 1))",
        &[dpy_dr, dpy_dtheta],
    );
    row(
        "row 1 of J (from polar_jvp columns)",
        &[dpx_dr_fwd, dpx_dtheta_fwd],
    );
    row(
        "row 2 of J (from polar_jvp columns)",
        &[dpy_dr_fwd, dpy_dtheta_fwd],
    );
    row("row 1 by hand", &[theta.cos(), -r * theta.sin()]);
    row("row 2 by hand", &[theta.sin(), r * theta.cos()]);
    all_ok &= report(&check_px);
    all_ok &= report(&check_py);

    // 4. The Huber loss, on both sides of its kink.
    let delta = 1.0;
    section(
        "huber(r, delta): r²/2 if |r| <= delta, else delta (|r| - delta/2)",
        &format!("delta = {delta}"),
    );
    for r in [0.3, -2.5] {
        let (value, (dr, ddelta)) = huber_grad(r, delta);
        let analytic = if r.abs() <= delta {
            [r, 0.0]
        } else {
            [delta * r.signum(), r.abs() - delta]
        };
        let check = check_gradient(|v| huber(v[0], v[1]), &[r, delta], &[dr, ddelta]);
        row(&format!("r = {r}: value"), &[value]);
        row(&format!("r = {r}: gradient"), &[dr, ddelta]);
        row(&format!("r = {r}: by hand"), &analytic);
        all_ok &= report(&check);
    }

    // 5. A logistic loss, differentiated with respect to the weights only.
    let (w, b, x) = (0.8, -0.1, 1.7);
    section(
        "logistic_loss(w, b, x, label) = ln(1 + exp(-s (w x + b))), s = ±1, wrt(w, b)",
        &format!("(w, b, x) = ({w}, {b}, {x})"),
    );
    for label in [true, false] {
        let (value, (dw, db)) = logistic_loss_grad(w, b, x, label);
        let sign = if label { 1.0 } else { -1.0 };
        let sigmoid_of_minus_margin = 1.0 / (1.0 + (sign * (w * x + b)).exp());
        let analytic = [
            -sign * x * sigmoid_of_minus_margin,
            -sign * sigmoid_of_minus_margin,
        ];
        let check = check_gradient(|v| logistic_loss(v[0], v[1], x, label), &[w, b], &[dw, db]);
        row(&format!("label = {label}: value"), &[value]);
        row(&format!("label = {label}: gradient (w, b)"), &[dw, db]);
        row(&format!("label = {label}: by hand"), &analytic);
        all_ok &= report(&check);
    }

    // 6. Rosenbrock in three dimensions.
    let x = [1.2, 0.7, -0.3];
    let (value, gradient) = rosenbrock_grad(&x);
    let (_, _, h_first_column) = rosenbrock_hvp(&x, vec![1.0, 0.0, 0.0]);
    let check = check_gradient(rosenbrock, &x, &gradient);
    section(
        "rosenbrock(x) = Σ 100 (x[i+1] - x[i]²)² + (1 - x[i])², a loop over a slice",
        &format!("x = {x:?}"),
    );
    row("value", &[value]);
    row("gradient", &gradient);
    row(
        "by hand",
        &[
            -400.0 * x[0] * (x[1] - x[0] * x[0]) - 2.0 * (1.0 - x[0]),
            200.0 * (x[1] - x[0] * x[0]) - 400.0 * x[1] * (x[2] - x[1] * x[1]) - 2.0 * (1.0 - x[1]),
            200.0 * (x[2] - x[1] * x[1]),
        ],
    );
    row("H · (1, 0, 0) (rosenbrock_hvp)", &h_first_column);
    row(
        "by hand",
        &[
            1200.0 * x[0] * x[0] - 400.0 * x[1] + 2.0,
            -400.0 * x[0],
            0.0,
        ],
    );
    all_ok &= report(&check);

    // 7. A logistic loss through `dot` and the custom gradient of `log1pexp`.
    let (w, x, label) = ([0.5, -1.5], [2.0, 0.4], 1.0);
    let (value, gradient) = log_loss_grad(&w, &x, label);
    let sigmoid = 1.0 / (1.0 + (label * (w[0] * x[0] + w[1] * x[1])).exp());
    let check = check_gradient(|v| log_loss(v, &x, label), &w, &gradient);
    section(
        "log_loss(w, x, label) = log1pexp(-label dot(w, x)), calling two other functions, wrt(w)",
        &format!("w = {w:?}, x = {x:?}, label = {label}"),
    );
    row("value", &[value]);
    row("gradient (w)", &gradient);
    row(
        "by hand",
        &[-label * x[0] * sigmoid, -label * x[1] * sigmoid],
    );
    all_ok &= report(&check);

    if all_ok {
        println!("\nEvery gradient agrees with finite differences to {TOLERANCE:e}.");
    } else {
        println!("\nSome gradient check FAILED: please report it.");
        std::process::exit(1);
    }
}

fn section(title: &str, at: &str) {
    println!("\n{title}\n  at {at}");
}

fn row(label: &str, values: &[f64]) {
    let values: Vec<String> = values.iter().map(|v| format!("{v:>12.8}")).collect();
    println!("  {label:<40} {}", values.join(" "));
}

/// Prints a gradient check and says whether it passed.
fn report(check: &GradientCheck) -> bool {
    let ok = check.is_ok(TOLERANCE);
    println!("  {check}: {}", if ok { "ok" } else { "FAILED" });
    ok
}
