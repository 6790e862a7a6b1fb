//! Loops: `for` over ranges (`a..b`, `a..=b`, `.rev()`, `.step_by(k)`) and over slices (`for &x in xs`,
//! `.iter()`, `.enumerate()`, `.zip(..)`, `.iter().rev()`), `while`, `loop` with `break`, `break value` and
//! `continue`, early `return` from inside loops, nested loops, loops inside branches and branches inside
//! loops; and the loop programs of issue 3 (Horner's rule, Newton's square root, an RK4 integration of
//! Lotka-Volterra, the extended Rosenbrock function, a sort followed by a weighted sum, a running maximum).
//!
//! Each is checked at random inputs against central differences (`check_gradient`), against its gradient
//! written by hand where there is one, and `_jvp` against `_grad`. Generic loop functions instantiated
//! with `Dual<f64>` give Hessian-vector products, checked against Hessians written by hand.

mod common;

use autodiff::{differentiable, Dual, Float};
use common::*;
use proptest::prelude::*;
use proptest::test_runner::Config;

// ---- the smoke tests' functions, now at random inputs ----

/// A `for` over an index range reading two slices.
#[differentiable]
pub fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * y[i];
    }
    s
}

/// Horner's rule over the coefficients from the last: `c[0] + c[1] x + c[2] x² + ...`.
#[differentiable]
pub fn horner(c: &[f64], x: f64) -> f64 {
    let mut acc = 0.0;
    for &ci in c.iter().rev() {
        acc = acc * x + ci;
    }
    acc
}

/// The partials of [`horner`] in `c` (the powers of `x`) and in `x` (the derivative polynomial).
fn horner_partials(c: &[f64], x: f64) -> Vec<f64> {
    let powers = (0..c.len()).map(|i| x.powi(i as i32));
    let slope = (1..c.len())
        .map(|i| i as f64 * c[i] * x.powi(i as i32 - 1))
        .sum();
    powers.chain([slope]).collect()
}

/// Newton's iteration for `√a` in a `while` whose number of trips depends on `a`.
#[differentiable]
pub fn newton_sqrt(a: f64) -> f64 {
    let mut x = a;
    let mut n = 0;
    while (x * x - a).abs() > 1e-12 * a && n < 100 {
        x = 0.5 * (x + a / x);
        n += 1;
    }
    x
}

/// The chained Rosenbrock function `Σ 100 (x[i+1] - x[i]²)² + (1 - x[i])²`.
#[differentiable]
pub fn rosenbrock<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::zero();
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        s = s + hundred * a * a + b * b;
    }
    s
}

/// The gradient of [`rosenbrock`] in closed form.
fn rosenbrock_gradient(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    (0..n)
        .map(|i| {
            let mut g = 0.0;
            if i + 1 < n {
                g += -400.0 * x[i] * (x[i + 1] - x[i] * x[i]) - 2.0 * (1.0 - x[i]);
            }
            if i > 0 {
                g += 200.0 * (x[i] - x[i - 1] * x[i - 1]);
            }
            g
        })
        .collect()
}

/// The Hessian of [`rosenbrock`] in closed form: tridiagonal.
fn rosenbrock_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n - 1 {
        h[i][i] += 1200.0 * x[i] * x[i] - 400.0 * x[i + 1] + 2.0;
        h[i + 1][i + 1] += 200.0;
        h[i][i + 1] = -400.0 * x[i];
        h[i + 1][i] = -400.0 * x[i];
    }
    h
}

/// The sum of the running maxima, the maximum kept in a carried variable updated under a branch.
#[differentiable]
pub fn running_max(x: &[f64]) -> f64 {
    let mut m = x[0];
    let mut total = 0.0;
    for &v in x {
        if v > m {
            m = v;
        }
        total += m;
    }
    total
}

/// The partials of [`running_max`]: each element counts once for every prefix whose maximum it is.
fn running_max_partials(x: &[f64]) -> Vec<f64> {
    let mut partials = vec![0.0; x.len()];
    let mut argmax = 0;
    for (i, &v) in x.iter().enumerate() {
        if v > x[argmax] {
            argmax = i;
        }
        partials[argmax] += 1.0;
    }
    partials
}

/// A bubble sort of a copy of the input (nested loops, swaps through index writes), then a weighted sum
/// by rank: the control flow depends on the data.
#[allow(clippy::manual_swap)] // `<[T]>::swap` is not in the differentiable subset
#[differentiable]
pub fn sorted_weighted(x: &[f64]) -> f64 {
    let mut a = x.to_vec();
    let n = a.len();
    for i in 0..n {
        for j in 0..n - 1 - i {
            if a[j] > a[j + 1] {
                let t = a[j];
                a[j] = a[j + 1];
                a[j + 1] = t;
            }
        }
    }
    let mut s = 0.0;
    for (i, &v) in a.iter().enumerate() {
        s += (i as f64 + 1.0) * v;
    }
    s
}

/// The partials of [`sorted_weighted`]: each element's rank, plus one.
fn sorted_weighted_partials(x: &[f64]) -> Vec<f64> {
    x.iter()
        .map(|v| 1.0 + x.iter().filter(|w| *w < v).count() as f64)
        .collect()
}

/// A `Vec` built by `push` in a loop and returned.
#[differentiable]
pub fn squares(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for &v in x {
        out.push(v * v);
    }
    out
}

/// An early `return` from inside a loop, or the value after it.
#[differentiable]
pub fn find_first_big(x: &[f64], limit: f64) -> f64 {
    for &v in x {
        if v * v > limit {
            return v * 3.0;
        }
    }
    limit.sqrt()
}

/// The partials of [`find_first_big`] in `x` and `limit`.
fn find_first_big_partials(x: &[f64], limit: f64) -> Vec<f64> {
    let mut partials = vec![0.0; x.len() + 1];
    match x.iter().position(|v| v * v > limit) {
        Some(i) => partials[i] = 3.0,
        None => partials[x.len()] = 0.5 / limit.sqrt(),
    }
    partials
}

// ---- more of issue 3's catalogue ----

/// Newton's iteration for `∛a` (`a > 0`), generic so that it runs on dual numbers: from above, until the
/// step is below `1e-13` relative.
#[differentiable]
pub fn newton_cbrt<T: Float>(a: T) -> T {
    let three = T::from(3.0).unwrap();
    let tol = T::from(1e-13).unwrap();
    let mut x = a.max(T::one());
    let mut step = x;
    let mut n = 0;
    while step.abs() > tol * x && n < 100 {
        step = (x - a / (x * x)) / three;
        x = x - step;
        n += 1;
    }
    x
}

/// The extended Rosenbrock function of Moré, Garbow and Hillstrom: `Σ 100 (x[2i+1] - x[2i]²)² +
/// (1 - x[2i])²` over independent pairs, by a `for` with `.step_by(2)`.
#[differentiable]
pub fn extended_rosenbrock<T: Float>(x: &[T]) -> T {
    let hundred = T::from(100.0).unwrap();
    let mut s = T::zero();
    for i in (0..x.len()).step_by(2) {
        let a = x[i + 1] - x[i] * x[i];
        let b = T::one() - x[i];
        s = s + hundred * a * a + b * b;
    }
    s
}

/// The gradient of [`extended_rosenbrock`] in closed form.
fn extended_rosenbrock_gradient(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in (0..x.len()).step_by(2) {
        let (u, w) = (x[i], x[i + 1]);
        g[i] = -400.0 * u * (w - u * u) - 2.0 * (1.0 - u);
        g[i + 1] = 200.0 * (w - u * u);
    }
    g
}

/// The Hessian of [`extended_rosenbrock`] in closed form: 2×2 blocks on the diagonal.
fn extended_rosenbrock_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in (0..n).step_by(2) {
        let (u, w) = (x[i], x[i + 1]);
        h[i][i] = 1200.0 * u * u - 400.0 * w + 2.0;
        h[i][i + 1] = -400.0 * u;
        h[i + 1][i] = -400.0 * u;
        h[i + 1][i + 1] = 200.0;
    }
    h
}

/// The Lotka-Volterra field: prey `x` grow at rate `p[0]` and are eaten at `p[1] x y`; predators `y` die
/// at rate `p[2]` and grow at `p[3] x y`.
#[differentiable]
pub fn lotka_volterra(x: f64, y: f64, p: &[f64; 4]) -> (f64, f64) {
    (p[0] * x - p[1] * x * y, p[3] * x * y - p[2] * y)
}

/// Prey plus predators at time `horizon`, after `steps` classical Runge-Kutta steps from `(x0, y0)`: a
/// loop carrying two values through four calls of [`lotka_volterra`] per step.
#[differentiable]
pub fn lotka_volterra_rk4(p: &[f64; 4], x0: f64, y0: f64, horizon: f64, steps: usize) -> f64 {
    let dt = horizon / steps as f64;
    let mut x = x0;
    let mut y = y0;
    for _ in 0..steps {
        let (k1x, k1y) = lotka_volterra(x, y, p);
        let (k2x, k2y) = lotka_volterra(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, p);
        let (k3x, k3y) = lotka_volterra(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, p);
        let (k4x, k4y) = lotka_volterra(x + dt * k3x, y + dt * k3y, p);
        x += dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        y += dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
    }
    x + y
}

// ---- break, continue, while, loop ----

/// `continue` skips the negative elements; `count` is a float that no active value reaches.
#[differentiable]
pub fn skip_negatives(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut count = 0.0;
    for &v in x {
        if v < 0.0 {
            continue;
        }
        s += v * v;
        count += 1.0;
    }
    s / (count + 1.0)
}

/// The partials of [`skip_negatives`].
fn skip_negatives_partials(x: &[f64]) -> Vec<f64> {
    let count = x.iter().filter(|v| **v >= 0.0).count() as f64;
    x.iter()
        .map(|&v| {
            if v < 0.0 {
                0.0
            } else {
                2.0 * v / (count + 1.0)
            }
        })
        .collect()
}

/// `continue` in a `while` whose counter is advanced before it; a product carried through the loop.
#[differentiable]
pub fn skip_every_third(x: &[f64]) -> f64 {
    let mut i = 0;
    let mut p = 1.0;
    while i < x.len() {
        i += 1;
        if i % 3 == 0 {
            continue;
        }
        p *= 1.0 + 0.5 * x[i - 1];
    }
    p
}

/// The partials of [`skip_every_third`]: the product of the other kept factors, times one half.
fn skip_every_third_partials(x: &[f64]) -> Vec<f64> {
    let kept = |j: usize| !(j + 1).is_multiple_of(3);
    (0..x.len())
        .map(|j| {
            if !kept(j) {
                return 0.0;
            }
            let others: f64 = (0..x.len())
                .filter(|&k| k != j && kept(k))
                .map(|k| 1.0 + 0.5 * x[k])
                .product();
            0.5 * others
        })
        .collect()
}

/// `loop` with two `break value`s: `2 √S` for the first partial sum of squares `S` above `level`, or
/// `2 S level` for the whole sum if none is.
#[differentiable]
pub fn first_crossing(x: &[f64], level: f64) -> f64 {
    let mut i = 0;
    let mut acc = 0.0;
    let found = loop {
        if i == x.len() {
            break acc * level;
        }
        acc += x[i] * x[i];
        if acc > level {
            break acc.sqrt();
        }
        i += 1;
    };
    2.0 * found
}

/// The partial sums of squares of `x`.
fn partial_sums_of_squares(x: &[f64]) -> Vec<f64> {
    x.iter()
        .scan(0.0, |acc, v| {
            *acc += v * v;
            Some(*acc)
        })
        .collect()
}

/// The partials of [`first_crossing`] in `x` and `level`.
fn first_crossing_partials(x: &[f64], level: f64) -> Vec<f64> {
    let sums = partial_sums_of_squares(x);
    let mut partials = vec![0.0; x.len() + 1];
    match sums.iter().position(|s| *s > level) {
        Some(k) => {
            for j in 0..=k {
                partials[j] = 2.0 * x[j] / sums[k].sqrt();
            }
        }
        None => {
            let total = sums.last().copied().unwrap_or(0.0);
            for (j, &v) in x.iter().enumerate() {
                partials[j] = 4.0 * v * level;
            }
            partials[x.len()] = 2.0 * total;
        }
    }
    partials
}

/// A `while` whose trips depend on the inputs: grow by `rate` until reaching `target`.
#[differentiable]
pub fn grow_until(x: f64, rate: f64, target: f64) -> f64 {
    let mut v = x;
    let mut years = 0;
    while v < target && years < 1000 {
        v *= 1.0 + rate;
        years += 1;
    }
    v
}

/// The number of trips of [`grow_until`].
fn grow_until_trips(x: f64, rate: f64, target: f64) -> i32 {
    let (mut v, mut years) = (x, 0);
    while v < target && years < 1000 {
        v *= 1.0 + rate;
        years += 1;
    }
    years
}

/// The fixed point of `x = a cos x` by `loop` and `break` (no value), for `|a| < 1`.
#[differentiable]
pub fn fixed_point_cos(a: f64) -> f64 {
    let mut x = 0.0;
    let mut n = 0;
    loop {
        let next = a * x.cos();
        n += 1;
        if (next - x).abs() < 1e-15 || n == 500 {
            break;
        }
        x = next;
    }
    x
}

/// An early `return` from an inner loop: `p · limit` for the first pair `x[i] x[j]` (`i < j`) above
/// `limit`, else `limit²`.
#[differentiable]
pub fn first_pair_over(x: &[f64], limit: f64) -> f64 {
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let p = x[i] * x[j];
            if p > limit {
                return p * limit;
            }
        }
    }
    limit * limit
}

/// The first pair `(i, j)`, `i < j`, whose product is above `limit`.
fn first_pair_over_index(x: &[f64], limit: f64) -> Option<(usize, usize)> {
    (0..x.len())
        .flat_map(|i| (i + 1..x.len()).map(move |j| (i, j)))
        .find(|&(i, j)| x[i] * x[j] > limit)
}

/// The partials of [`first_pair_over`] in `x` and `limit`.
fn first_pair_over_partials(x: &[f64], limit: f64) -> Vec<f64> {
    let mut partials = vec![0.0; x.len() + 1];
    match first_pair_over_index(x, limit) {
        Some((i, j)) => {
            partials[i] += x[j] * limit;
            partials[j] += x[i] * limit;
            partials[x.len()] = x[i] * x[j];
        }
        None => partials[x.len()] = 2.0 * limit,
    }
    partials
}

/// A `break` in an inner loop ends only that loop: each row of a `rows × cols` matrix is summed until its
/// partial sum exceeds `cap`, and the squares of those sums are added.
#[differentiable]
pub fn capped_row_sums(x: &[f64], cols: usize, cap: f64) -> f64 {
    let mut total = 0.0;
    for r in 0..x.len() / cols {
        let mut row = 0.0;
        for c in 0..cols {
            row += x[r * cols + c];
            if row > cap {
                break;
            }
        }
        total += row * row;
    }
    total
}

/// The partial sums of each row of [`capped_row_sums`] and the partials in `x` (none in `cap`).
fn capped_row_sums_partials(x: &[f64], cols: usize, cap: f64) -> (Vec<f64>, Vec<f64>) {
    let mut sums = Vec::new();
    let mut partials = vec![0.0; x.len() + 1];
    for r in 0..x.len() / cols {
        let mut row = 0.0;
        let mut used = 0;
        for c in 0..cols {
            row += x[r * cols + c];
            sums.push(row);
            used = c + 1;
            if row > cap {
                break;
            }
        }
        for c in 0..used {
            partials[r * cols + c] = 2.0 * row;
        }
    }
    (sums, partials)
}

// ---- branches and loops inside each other ----

/// Loops inside the branches of an `if`: a `for` on one side, a `while` counting down on the other.
#[differentiable]
pub fn loops_in_branches(x: &[f64], scale: f64) -> f64 {
    let mut s = 0.0;
    if scale > 0.0 {
        for &v in x {
            s += (v * scale).sin();
        }
    } else {
        let mut i = x.len();
        while i > 0 {
            i -= 1;
            s = s * scale + x[i];
        }
    }
    s
}

/// The partials of [`loops_in_branches`] in `x` and `scale`.
fn loops_in_branches_partials(x: &[f64], scale: f64) -> Vec<f64> {
    if scale > 0.0 {
        let d_x = x.iter().map(|v| scale * (v * scale).cos());
        let d_scale = x.iter().map(|v| v * (v * scale).cos()).sum();
        d_x.chain([d_scale]).collect()
    } else {
        let d_x = (0..x.len()).map(|i| scale.powi(i as i32));
        let d_scale = (1..x.len())
            .map(|i| i as f64 * x[i] * scale.powi(i as i32 - 1))
            .sum();
        d_x.chain([d_scale]).collect()
    }
}

/// Branches inside a loop: an `if` expression on the index, a `match` on the index with `|`, and an
/// `if`/`else if`/`else` on the data that updates a sum or a carried product.
#[differentiable]
pub fn branches_in_loop(x: &[f64]) -> f64 {
    let mut s = 0.0;
    let mut p = 1.0;
    for (i, &v) in x.iter().enumerate() {
        let w = if i % 2 == 0 { v } else { -2.0 * v };
        let term = match i % 3 {
            0 => w * w,
            1 | 2 => 0.1 * w.exp(),
            _ => 0.0,
        };
        s += term;
        if v > 1.0 {
            p *= v;
        } else if v < -1.0 {
            p *= -v;
        } else {
            s -= v;
        }
    }
    s + p
}

/// The partials of [`branches_in_loop`].
fn branches_in_loop_partials(x: &[f64]) -> Vec<f64> {
    let p: f64 = x
        .iter()
        .filter(|v| v.abs() > 1.0)
        .map(|v| v.abs())
        .product();
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let (w, dw) = if i % 2 == 0 {
                (v, 1.0)
            } else {
                (-2.0 * v, -2.0)
            };
            let d_term = if i % 3 == 0 {
                2.0 * w * dw
            } else {
                0.1 * w.exp() * dw
            };
            let d_rest = if v.abs() > 1.0 { p / v } else { -1.0 };
            d_term + d_rest
        })
        .collect()
}

// ---- the forms of ranges and slice iterators ----

/// `(0..n).step_by(2)`: the squares at even positions.
#[differentiable]
pub fn even_squares(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).step_by(2) {
        s += x[i] * x[i];
    }
    s
}

/// `(1..n).rev()`: `s = s / 2 + x[i] x[i-1]` from the last `i` down, so that the pair ending at `i` is
/// weighted `2^-(i-1)`; the weights tell the order.
#[differentiable]
pub fn discounted_pairs(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (1..x.len()).rev() {
        s = 0.5 * s + x[i] * x[i - 1];
    }
    s
}

/// The partials of [`discounted_pairs`].
fn discounted_pairs_partials(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    (0..n)
        .map(|j| {
            let mut g = 0.0;
            if j >= 1 {
                g += 0.5_f64.powi(j as i32 - 1) * x[j - 1];
            }
            if j + 1 < n {
                g += 0.5_f64.powi(j as i32) * x[j + 1];
            }
            g
        })
        .collect()
}

/// `(0..n).rev().step_by(3)`: every third element from the last, discounted by visiting order.
#[differentiable]
pub fn strided_from_end(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (0..x.len()).rev().step_by(3) {
        s = 0.5 * s + x[i].sin();
    }
    s
}

/// The partials of [`strided_from_end`].
fn strided_from_end_partials(x: &[f64]) -> Vec<f64> {
    let visited: Vec<usize> = (0..x.len()).rev().step_by(3).collect();
    let mut partials = vec![0.0; x.len()];
    for (k, &i) in visited.iter().enumerate() {
        partials[i] = x[i].cos() * 0.5_f64.powi((visited.len() - 1 - k) as i32);
    }
    partials
}

/// `1..=m`: the exponential series to degree `m`, term by term (a carried term, stored per iteration).
#[differentiable]
pub fn exp_series(x: f64, m: usize) -> f64 {
    let mut term = 1.0;
    let mut s = 1.0;
    for k in 1..=m {
        term = term * x / k as f64;
        s += term;
    }
    s
}

/// `(1..=m).rev()`: the same series by Horner's rule, `1 + x (1 + x/2 (1 + x/3 (...)))`.
#[differentiable]
pub fn exp_series_horner(x: f64, m: usize) -> f64 {
    let mut s = 1.0;
    for k in (1..=m).rev() {
        s = 1.0 + x * s / k as f64;
    }
    s
}

/// `(0..=m).step_by(2)`: the even powers `1 + x² + x⁴ + ...` up to degree `m`.
#[differentiable]
pub fn even_powers(x: f64, m: usize) -> f64 {
    let mut s = 0.0;
    for k in (0..=m).step_by(2) {
        s += x.powi(k as i32);
    }
    s
}

/// The derivative of [`even_powers`].
fn even_powers_derivative(x: f64, m: usize) -> f64 {
    (2..=m)
        .step_by(2)
        .map(|k| k as f64 * x.powi(k as i32 - 1))
        .sum()
}

/// `xs.iter()` with a dereference, `.iter().enumerate()` with a reference element, and
/// `a.iter().zip(b.iter())` over slices of different lengths (the shorter one decides).
#[differentiable]
pub fn slice_iterators(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for v in x.iter() {
        s += *v * *v;
    }
    for (i, v) in y.iter().enumerate() {
        s += (i as f64) * *v;
    }
    for (&a, &b) in x.iter().zip(y.iter()) {
        s += a * b.sin();
    }
    s
}

/// The partials of [`slice_iterators`] in `x`, then `y`.
fn slice_iterators_partials(x: &[f64], y: &[f64]) -> Vec<f64> {
    let n = x.len().min(y.len());
    let d_x = (0..x.len()).map(|i| 2.0 * x[i] + if i < n { y[i].sin() } else { 0.0 });
    let d_y = (0..y.len()).map(|i| i as f64 + if i < n { x[i] * y[i].cos() } else { 0.0 });
    d_x.chain(d_y).collect()
}

// ---- the tests ----

/// Checks the Hessian-vector product that `grad_on_duals` (a generic `_grad` at `Dual<f64>`) gives at `x`
/// along `v`: the `re` parts are `gradient`, the `eps` parts `hessian · v`, both written by hand.
#[track_caller]
fn check_hvp(
    what: &str,
    grad_on_duals: impl Fn(&[Dual<f64>]) -> (Dual<f64>, Vec<Dual<f64>>),
    value: f64,
    (x, v): (&[f64], &[f64]),
    gradient: &[f64],
    hessian: &[Vec<f64>],
) {
    let (dual_value, dual_grad) = grad_on_duals(&seeded(x, v));
    assert_eq!(dual_value.re, value, "{what} at {x:?}: value on duals");
    assert_close(
        dual_value.eps,
        dot(gradient, v),
        ANALYTIC_TOL,
        &format!("{what} at {x:?}: directional derivative on duals"),
    );
    let (re, eps) = split_duals(&dual_grad);
    assert_all_close(
        &re,
        gradient,
        ANALYTIC_TOL,
        &format!("{what} at {x:?}: gradient on duals"),
    );
    assert_all_close(
        &eps,
        &mat_vec(hessian, v),
        ANALYTIC_TOL,
        &format!("{what} at {x:?}: Hessian times v"),
    );
}

/// Few cases, for the tests that run a thousand-step integration per case.
fn few_cases() -> Config {
    Config {
        cases: 4,
        ..config()
    }
}

/// The case that runs in every suite run: the examples of the smoke test this file replaces.
#[test]
fn smoke_examples() {
    let x = [1.0, 2.0, 3.0];
    let y = [0.5, -1.0, 2.0];
    let (v, (gx, gy)) = dot_grad(&x, &y);
    assert_eq!(v, dot(&x, &y));
    assert_eq!(gx, y.to_vec());
    assert_eq!(gy, x.to_vec());
    let (v, (gc, gx)) = horner_grad(&x, 0.7);
    assert_eq!(v, horner(&x, 0.7));
    assert_fd_gradient(|c| horner(c, 0.7), &x, &gc, "horner");
    assert_close(gx, 2.0 + 2.0 * 3.0 * 0.7, ANALYTIC_TOL, "horner slope");
    let (v, g) = newton_sqrt_grad(2.0);
    assert_close(v, 2f64.sqrt(), ANALYTIC_TOL, "newton sqrt");
    assert_close(g, 0.5 / 2f64.sqrt(), 1e-8, "newton sqrt slope");
    let z = [1.2, -0.3, 0.8, 2.0, 0.1];
    let (v, g) = rosenbrock_grad(&z);
    assert_eq!(v, rosenbrock(&z));
    assert_fd_gradient(rosenbrock, &z, &g, "rosenbrock");
    let (_, g) = running_max_grad(&z);
    assert_fd_gradient(running_max, &z, &g, "running max");
    let (_, g) = sorted_weighted_grad(&z);
    assert_fd_gradient(sorted_weighted, &z, &g, "sorted weighted");
    let (v, g) = squares_vjp(&x, vec![1.0, 1.0, 2.0]);
    assert_eq!(v, squares(&x));
    assert_eq!(g, vec![2.0, 4.0, 12.0]);
    let (_, (g, gl)) = find_first_big_grad(&x, 3.0);
    assert_eq!(g, vec![0.0, 3.0, 0.0]);
    assert_eq!(gl, 0.0);
    let (_, (g, gl)) = find_first_big_grad(&x, 30.0);
    assert_eq!(g, vec![0.0, 0.0, 0.0]);
    assert_close(gl, 0.5 / 30f64.sqrt(), ANALYTIC_TOL, "find first big");
    let (_, t) = rosenbrock_jvp(&z, vec![1.0, 0.0, 0.0, 0.0, 0.0]);
    let (_, g) = rosenbrock_grad(&z);
    assert_close(t, g[0], ANALYTIC_TOL, "rosenbrock jvp");
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn dot_gradient_is_the_other_vector(
        (xy, t) in (0..8usize).prop_flat_map(|n| vec_with_tangent(moderate(), 2 * n..2 * n + 1)),
    ) {
        let (x, y) = xy.split_at(xy.len() / 2);
        let (value, (gx, gy)) = dot_grad(x, y);
        let grad = [gx.clone(), gy.clone()].concat();
        let (tx, ty) = t.split_at(x.len());
        let jvp = dot_jvp(x, y, (tx.to_vec(), ty.to_vec()));
        let primal = |v: &[f64]| dot(&v[..v.len() / 2], &v[v.len() / 2..]);
        check_flat("dot", primal, &xy, (value, &grad), jvp, &t);
        prop_assert_eq!(gx, y.to_vec());
        prop_assert_eq!(gy, x.to_vec());
    }

    #[test]
    fn horner_gradient_is_the_powers_and_the_derivative_polynomial(
        (c, t) in vec_with_tangent(moderate(), 1..8),
        x in moderate(),
        tx in tangent(),
    ) {
        let (value, (gc, gx)) = horner_grad(&c, x);
        let grad = [gc.clone(), vec![gx]].concat();
        let at = [c.clone(), vec![x]].concat();
        let tangent = [t.clone(), vec![tx]].concat();
        let jvp = horner_jvp(&c, x, (t, tx));
        let primal = |v: &[f64]| horner(&v[..v.len() - 1], v[v.len() - 1]);
        check_flat("horner", primal, &at, (value, &grad), jvp, &tangent);
        assert_all_close(
            &grad,
            &horner_partials(&c, x),
            ANALYTIC_TOL,
            "horner partials",
        );
    }

    #[test]
    fn newton_sqrt_slope_is_one_over_twice_the_root(a in positive(), t in tangent()) {
        let (value, slope) = newton_sqrt_grad(a);
        let jvp = newton_sqrt_jvp(a, t);
        check_flat(
            "newton sqrt",
            |v| newton_sqrt(v[0]),
            &[a],
            (value, &[slope]),
            jvp,
            &[t],
        );
        assert_close(value, a.sqrt(), ANALYTIC_TOL, "newton sqrt value");
        assert_close(slope, 0.5 / a.sqrt(), 1e-9, "newton sqrt slope");
    }

    #[test]
    fn newton_cbrt_gives_first_and_second_derivatives(a in positive(), t in tangent()) {
        let (value, slope) = newton_cbrt_grad(a);
        let jvp = newton_cbrt_jvp(a, t);
        check_flat(
            "newton cbrt",
            |v| newton_cbrt(v[0]),
            &[a],
            (value, &[slope]),
            jvp,
            &[t],
        );
        assert_close(value, a.cbrt(), ANALYTIC_TOL, "newton cbrt value");
        let first = a.powf(-2.0 / 3.0) / 3.0;
        let second = -2.0 / 9.0 * a.powf(-5.0 / 3.0);
        assert_close(slope, first, 1e-9, "newton cbrt slope");
        let (on_duals, curvature) = newton_cbrt_grad(Dual::new(a, 1.0));
        assert_eq!(on_duals.re, value);
        assert_close(on_duals.eps, first, 1e-9, "newton cbrt slope on duals");
        assert_close(curvature.re, slope, 1e-9, "newton cbrt slope, re part");
        assert_close(curvature.eps, second, 1e-8, "newton cbrt second derivative");
    }

    #[test]
    fn rosenbrock_gradient_and_hessian_are_the_closed_forms(
        (x, t) in vec_with_tangent(-2.0..2.0_f64, 2..8),
        v in prop::collection::vec(tangent(), 8),
    ) {
        let (value, grad) = rosenbrock_grad(&x);
        let jvp = rosenbrock_jvp(&x, t.clone());
        check_flat("rosenbrock", rosenbrock, &x, (value, &grad), jvp, &t);
        let gradient = rosenbrock_gradient(&x);
        assert_all_close(&grad, &gradient, ANALYTIC_TOL, "rosenbrock gradient");
        let v = &v[..x.len()];
        check_hvp(
            "rosenbrock",
            rosenbrock_grad::<Dual<f64>>,
            value,
            (&x, v),
            &gradient,
            &rosenbrock_hessian(&x),
        );
    }

    #[test]
    fn extended_rosenbrock_gradient_and_hessian_are_the_closed_forms(
        (x, t) in (1..5usize).prop_flat_map(|n| vec_with_tangent(-2.0..2.0_f64, 2 * n..2 * n + 1)),
        v in prop::collection::vec(tangent(), 8),
    ) {
        let (value, grad) = extended_rosenbrock_grad(&x);
        let jvp = extended_rosenbrock_jvp(&x, t.clone());
        check_flat(
            "extended rosenbrock",
            extended_rosenbrock,
            &x,
            (value, &grad),
            jvp,
            &t,
        );
        let gradient = extended_rosenbrock_gradient(&x);
        assert_all_close(
            &grad,
            &gradient,
            ANALYTIC_TOL,
            "extended rosenbrock gradient",
        );
        let v = &v[..x.len()];
        check_hvp(
            "extended rosenbrock",
            extended_rosenbrock_grad::<Dual<f64>>,
            value,
            (&x, v),
            &gradient,
            &extended_rosenbrock_hessian(&x),
        );
    }

    #[test]
    fn running_max_counts_each_maximum((x, t) in vec_with_tangent(moderate(), 1..8)) {
        prop_assume!(min_gap(&x) > 1e-3);
        let (value, grad) = running_max_grad(&x);
        let jvp = running_max_jvp(&x, t.clone());
        check_flat("running max", running_max, &x, (value, &grad), jvp, &t);
        assert_all_close(
            &grad,
            &running_max_partials(&x),
            ANALYTIC_TOL,
            "running max partials",
        );
    }

    #[test]
    fn sorted_weighted_gradient_is_the_rank((x, t) in vec_with_tangent(moderate(), 1..8)) {
        prop_assume!(min_gap(&x) > 1e-3);
        let (value, grad) = sorted_weighted_grad(&x);
        let jvp = sorted_weighted_jvp(&x, t.clone());
        check_flat(
            "sorted weighted",
            sorted_weighted,
            &x,
            (value, &grad),
            jvp,
            &t,
        );
        assert_all_close(
            &grad,
            &sorted_weighted_partials(&x),
            ANALYTIC_TOL,
            "sorted weighted partials",
        );
    }

    #[test]
    fn squares_vjp_and_jvp_are_elementwise(
        (x, t) in vec_with_tangent(moderate(), 0..8),
        d in prop::collection::vec(tangent(), 8),
    ) {
        let d = d[..x.len()].to_vec();
        let (value, grad) = squares_vjp(&x, d.clone());
        prop_assert_eq!(&value, &squares(&x));
        let expected: Vec<f64> = x.iter().zip(&d).map(|(x, d)| 2.0 * x * d).collect();
        assert_all_close(&grad, &expected, ANALYTIC_TOL, "squares vjp");
        let weighted = |x: &[f64]| dot(&squares(x), &d);
        assert_fd_gradient(weighted, &x, &grad, "squares vjp vs central differences");
        let (value, dot_out) = squares_jvp(&x, t.clone());
        prop_assert_eq!(&value, &squares(&x));
        let expected: Vec<f64> = x.iter().zip(&t).map(|(x, t)| 2.0 * x * t).collect();
        assert_all_close(&dot_out, &expected, ANALYTIC_TOL, "squares jvp");
    }

    #[test]
    fn find_first_big_returns_early(
        (x, t) in vec_with_tangent(moderate(), 0..8),
        limit in positive(),
        tl in tangent(),
    ) {
        prop_assume!(x.iter().all(|v| (v * v - limit).abs() > 1e-3));
        let (value, (gx, gl)) = find_first_big_grad(&x, limit);
        let jvp = find_first_big_jvp(&x, limit, (t.clone(), tl));
        let grad = [gx, vec![gl]].concat();
        let at = [x.clone(), vec![limit]].concat();
        let tangent = [t, vec![tl]].concat();
        let primal = |v: &[f64]| find_first_big(&v[..v.len() - 1], v[v.len() - 1]);
        check_flat("find first big", primal, &at, (value, &grad), jvp, &tangent);
        assert_all_close(
            &grad,
            &find_first_big_partials(&x, limit),
            ANALYTIC_TOL,
            "find first big partials",
        );
    }

    #[test]
    fn skip_negatives_continues(
        (x, t) in vec_with_tangent(moderate(), 0..8),
    ) {
        prop_assume!(x.iter().all(|v| v.abs() > 1e-3));
        let (value, grad) = skip_negatives_grad(&x);
        let jvp = skip_negatives_jvp(&x, t.clone());
        check_flat(
            "skip negatives",
            skip_negatives,
            &x,
            (value, &grad),
            jvp,
            &t,
        );
        assert_all_close(
            &grad,
            &skip_negatives_partials(&x),
            ANALYTIC_TOL,
            "skip negatives partials",
        );
    }

    #[test]
    fn skip_every_third_continues_in_a_while((x, t) in vec_with_tangent(moderate(), 0..10)) {
        let (value, grad) = skip_every_third_grad(&x);
        let jvp = skip_every_third_jvp(&x, t.clone());
        check_flat(
            "skip every third",
            skip_every_third,
            &x,
            (value, &grad),
            jvp,
            &t,
        );
        assert_all_close(
            &grad,
            &skip_every_third_partials(&x),
            ANALYTIC_TOL,
            "skip every third partials",
        );
    }

    #[test]
    fn first_crossing_breaks_with_a_value(
        (x, t) in vec_with_tangent(moderate(), 0..8),
        level in 0.1..20.0_f64,
        tl in tangent(),
    ) {
        prop_assume!(partial_sums_of_squares(&x)
            .iter()
            .all(|s| (s - level).abs() > 1e-3));
        let (value, (gx, gl)) = first_crossing_grad(&x, level);
        let jvp = first_crossing_jvp(&x, level, (t.clone(), tl));
        let grad = [gx, vec![gl]].concat();
        let at = [x.clone(), vec![level]].concat();
        let tangent = [t, vec![tl]].concat();
        let primal = |v: &[f64]| first_crossing(&v[..v.len() - 1], v[v.len() - 1]);
        check_flat("first crossing", primal, &at, (value, &grad), jvp, &tangent);
        assert_all_close(
            &grad,
            &first_crossing_partials(&x, level),
            ANALYTIC_TOL,
            "first crossing partials",
        );
    }

    #[test]
    fn grow_until_differentiates_the_trips_taken(
        x in 0.5..2.0_f64,
        rate in 0.1..0.5_f64,
        target in 1.0..50.0_f64,
        t in tangents(),
    ) {
        let trips = grow_until_trips(x, rate, target);
        let last = x * (1.0 + rate).powi(trips);
        // Central differences must not change the number of trips: a step of `6e-6` in `rate` moves the
        // last value by about `trips · 6e-6` relative, below 1e-2 for the at most 80 trips here.
        prop_assume!((last / target - 1.0).abs() > 1e-2);
        prop_assume!((last / (1.0 + rate) / target - 1.0).abs() > 1e-2);
        let (value, grad) = grow_until_grad(x, rate, target);
        let jvp = grow_until_jvp(x, rate, target, (t[0], t[1], t[2]));
        let grad = [grad.0, grad.1, grad.2];
        let primal = |v: &[f64]| grow_until(v[0], v[1], v[2]);
        check_flat(
            "grow until",
            primal,
            &[x, rate, target],
            (value, &grad),
            jvp,
            &t,
        );
        let growth = (1.0 + rate).powi(trips);
        let partials = [growth, trips as f64 * x * (1.0 + rate).powi(trips - 1), 0.0];
        assert_all_close(&grad, &partials, ANALYTIC_TOL, "grow until partials");
    }

    #[test]
    fn fixed_point_cos_slope_is_the_implicit_derivative(a in 0.1..0.9_f64, t in tangent()) {
        let (value, slope) = fixed_point_cos_grad(a);
        let jvp = fixed_point_cos_jvp(a, t);
        check_flat(
            "fixed point",
            |v| fixed_point_cos(v[0]),
            &[a],
            (value, &[slope]),
            jvp,
            &[t],
        );
        assert_close(value, a * value.cos(), 1e-14, "fixed point value");
        let implicit = value.cos() / (1.0 + a * value.sin());
        assert_close(slope, implicit, 1e-9, "fixed point slope");
    }

    #[test]
    fn first_pair_over_returns_from_the_inner_loop(
        (x, t) in vec_with_tangent(moderate(), 0..7),
        limit in 0.1..6.0_f64,
        tl in tangent(),
    ) {
        prop_assume!(
            (0..x.len()).all(|i| (i + 1..x.len()).all(|j| (x[i] * x[j] - limit).abs() > 1e-3))
        );
        let (value, (gx, gl)) = first_pair_over_grad(&x, limit);
        let jvp = first_pair_over_jvp(&x, limit, (t.clone(), tl));
        let grad = [gx, vec![gl]].concat();
        let at = [x.clone(), vec![limit]].concat();
        let tangent = [t, vec![tl]].concat();
        let primal = |v: &[f64]| first_pair_over(&v[..v.len() - 1], v[v.len() - 1]);
        check_flat(
            "first pair over",
            primal,
            &at,
            (value, &grad),
            jvp,
            &tangent,
        );
        assert_all_close(
            &grad,
            &first_pair_over_partials(&x, limit),
            ANALYTIC_TOL,
            "first pair over partials",
        );
    }

    #[test]
    fn capped_row_sums_break_the_inner_loop_only(
        (x, t) in (1..4usize)
            .prop_flat_map(|rows| vec_with_tangent(moderate(), 3 * rows..3 * rows + 1)),
        cap in 0.0..3.0_f64,
        tc in tangent(),
    ) {
        let (sums, partials) = capped_row_sums_partials(&x, 3, cap);
        prop_assume!(sums.iter().all(|s| (s - cap).abs() > 1e-3));
        let (value, (gx, gc)) = capped_row_sums_grad(&x, 3, cap);
        let jvp = capped_row_sums_jvp(&x, 3, cap, (t.clone(), tc));
        let grad = [gx, vec![gc]].concat();
        let at = [x.clone(), vec![cap]].concat();
        let tangent = [t, vec![tc]].concat();
        let primal = |v: &[f64]| capped_row_sums(&v[..v.len() - 1], 3, v[v.len() - 1]);
        check_flat(
            "capped row sums",
            primal,
            &at,
            (value, &grad),
            jvp,
            &tangent,
        );
        assert_all_close(&grad, &partials, ANALYTIC_TOL, "capped row sums partials");
    }

    #[test]
    fn loops_in_branches_follow_the_branch_taken(
        (x, t) in vec_with_tangent(moderate(), 0..8),
        scale in moderate(),
        ts in tangent(),
    ) {
        prop_assume!(scale.abs() > 1e-3);
        let (value, (gx, gs)) = loops_in_branches_grad(&x, scale);
        let jvp = loops_in_branches_jvp(&x, scale, (t.clone(), ts));
        let grad = [gx, vec![gs]].concat();
        let at = [x.clone(), vec![scale]].concat();
        let tangent = [t, vec![ts]].concat();
        let primal = |v: &[f64]| loops_in_branches(&v[..v.len() - 1], v[v.len() - 1]);
        check_flat(
            "loops in branches",
            primal,
            &at,
            (value, &grad),
            jvp,
            &tangent,
        );
        assert_all_close(
            &grad,
            &loops_in_branches_partials(&x, scale),
            ANALYTIC_TOL,
            "loops in branches partials",
        );
    }

    #[test]
    fn branches_in_loop_follow_each_iteration((x, t) in vec_with_tangent(moderate(), 0..8)) {
        prop_assume!(x.iter().all(|v| (v.abs() - 1.0).abs() > 1e-3));
        let (value, grad) = branches_in_loop_grad(&x);
        let jvp = branches_in_loop_jvp(&x, t.clone());
        check_flat(
            "branches in loop",
            branches_in_loop,
            &x,
            (value, &grad),
            jvp,
            &t,
        );
        assert_all_close(
            &grad,
            &branches_in_loop_partials(&x),
            ANALYTIC_TOL,
            "branches in loop partials",
        );
    }

    #[test]
    fn step_by_visits_even_positions((x, t) in vec_with_tangent(moderate(), 0..9)) {
        let (value, grad) = even_squares_grad(&x);
        let jvp = even_squares_jvp(&x, t.clone());
        check_flat("even squares", even_squares, &x, (value, &grad), jvp, &t);
        let partials: Vec<f64> = x
            .iter()
            .enumerate()
            .map(|(i, v)| if i % 2 == 0 { 2.0 * v } else { 0.0 })
            .collect();
        assert_all_close(&grad, &partials, ANALYTIC_TOL, "even squares partials");
    }

    #[test]
    fn rev_range_runs_backwards((x, t) in vec_with_tangent(moderate(), 0..9)) {
        let (value, grad) = discounted_pairs_grad(&x);
        let jvp = discounted_pairs_jvp(&x, t.clone());
        check_flat(
            "discounted pairs",
            discounted_pairs,
            &x,
            (value, &grad),
            jvp,
            &t,
        );
        assert_all_close(
            &grad,
            &discounted_pairs_partials(&x),
            ANALYTIC_TOL,
            "discounted pairs partials",
        );
    }

    #[test]
    fn rev_step_by_strides_from_the_end((x, t) in vec_with_tangent(moderate(), 0..11)) {
        let (value, grad) = strided_from_end_grad(&x);
        let jvp = strided_from_end_jvp(&x, t.clone());
        check_flat(
            "strided from end",
            strided_from_end,
            &x,
            (value, &grad),
            jvp,
            &t,
        );
        assert_all_close(
            &grad,
            &strided_from_end_partials(&x),
            ANALYTIC_TOL,
            "strided from end partials",
        );
    }

    #[test]
    fn inclusive_ranges_sum_the_exponential_series(
        x in moderate(),
        m in 0..12usize,
        t in tangent(),
    ) {
        for (what, primal, (value, slope), jvp) in [
            (
                "exp series",
                exp_series as fn(f64, usize) -> f64,
                exp_series_grad(x, m),
                exp_series_jvp(x, m, t),
            ),
            (
                "exp series by horner",
                exp_series_horner,
                exp_series_horner_grad(x, m),
                exp_series_horner_jvp(x, m, t),
            ),
        ] {
            check_flat(
                what,
                |v| primal(v[0], m),
                &[x],
                (value, &[slope]),
                jvp,
                &[t],
            );
            // The derivative of the series to degree m is the series to degree m - 1.
            let expected = if m == 0 { 0.0 } else { exp_series(x, m - 1) };
            assert_close(slope, expected, ANALYTIC_TOL, what);
        }
        let (value, slope) = even_powers_grad(x, m);
        let jvp = even_powers_jvp(x, m, t);
        check_flat(
            "even powers",
            |v| even_powers(v[0], m),
            &[x],
            (value, &[slope]),
            jvp,
            &[t],
        );
        assert_close(
            slope,
            even_powers_derivative(x, m),
            ANALYTIC_TOL,
            "even powers",
        );
    }

    #[test]
    fn slice_iterators_deref_enumerate_and_zip(
        (x, tx) in vec_with_tangent(moderate(), 0..7),
        (y, ty) in vec_with_tangent(moderate(), 0..7),
    ) {
        let (value, (gx, gy)) = slice_iterators_grad(&x, &y);
        let jvp = slice_iterators_jvp(&x, &y, (tx.clone(), ty.clone()));
        let grad = [gx, gy].concat();
        let at = [x.clone(), y.clone()].concat();
        let tangent = [tx, ty].concat();
        let n = x.len();
        let primal = |v: &[f64]| slice_iterators(&v[..n], &v[n..]);
        check_flat(
            "slice iterators",
            primal,
            &at,
            (value, &grad),
            jvp,
            &tangent,
        );
        assert_all_close(
            &grad,
            &slice_iterators_partials(&x, &y),
            ANALYTIC_TOL,
            "slice iterators partials",
        );
    }
}

proptest! {
    #![proptest_config(few_cases())]

    /// A thousand RK4 steps of Lotka-Volterra to time 10, around the classic parameters.
    #[test]
    fn lotka_volterra_rk4_over_a_thousand_steps(
        p in prop::array::uniform4(0.9..1.1_f64),
        start in prop::array::uniform2(0.9..1.1_f64),
        t in prop::collection::vec(tangent(), 7),
    ) {
        let p = [1.1 * p[0], 0.4 * p[1], 0.4 * p[2], 0.1 * p[3]];
        let (x0, y0, horizon) = (10.0 * start[0], 10.0 * start[1], 10.0);
        let (value, (gp, gx, gy, gh)) = lotka_volterra_rk4_grad(&p, x0, y0, horizon, 1000);
        let jvp = lotka_volterra_rk4_jvp(
            &p,
            x0,
            y0,
            horizon,
            1000,
            ([t[0], t[1], t[2], t[3]], t[4], t[5], t[6]),
        );
        let grad = [gp.to_vec(), vec![gx, gy, gh]].concat();
        let at = [p.to_vec(), vec![x0, y0, horizon]].concat();
        let primal =
            |v: &[f64]| lotka_volterra_rk4(&[v[0], v[1], v[2], v[3]], v[4], v[5], v[6], 1000);
        check_flat("lotka-volterra rk4", primal, &at, (value, &grad), jvp, &t);
    }
}

// ---- integer counters that the reverse sweep recovers by undoing their updates ----

/// A packed lower triangle walked by a counter (`li += 1`) through two nested loops, as the GMM
/// objective does, read in the middle loop too and after the loops.
#[differentiable]
#[allow(clippy::needless_range_loop)]
pub fn packed_triangle(l: &[f64], c: &[f64], d: usize) -> f64 {
    let mut y = vec![0.0; d];
    let mut total = 0.0;
    for k in 0..2 {
        for j in 0..d {
            y[j] = c[j] * c[j] + l[k];
        }
        let mut li = k * d * (d - 1) / 2;
        for i in 0..d {
            y[i] += l[li % l.len()] * 0.25;
            for j in i + 1..d {
                y[j] += l[li] * c[i] * y[i].sin();
                li += 1;
            }
        }
        for j in 0..d {
            total += y[j] * y[j] * l[li - 1];
        }
    }
    total
}

/// Counters stepped by a parameter and stepped down, in a `while` loop, with a carried product.
#[differentiable]
pub fn strided(x: &[f64], stride: usize) -> f64 {
    let mut at = 0;
    let mut back = x.len() - 1;
    let mut s = 0.0;
    let mut p = 1.0;
    while at < x.len() {
        s += p * x[at] * x[back];
        p *= x[back].cos();
        at += stride;
        back -= 1;
    }
    s * p
}

/// A counter advanced under a branch (taped, not undone) beside one advanced always.
#[differentiable]
#[allow(clippy::explicit_counter_loop)]
pub fn counted_positives(x: &[f64]) -> f64 {
    let mut k = 0;
    let mut j = 0;
    let mut s = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            k += 1;
        }
        s += x[k % x.len()] * x[i] * x[j].sin();
        j += 1;
    }
    s
}

#[test]
fn counters_are_recovered_in_the_reverse_sweep() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut uniform = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for d in [2, 3, 5] {
        for _ in 0..10 {
            let l: Vec<f64> = (0..d * (d - 1)).map(|_| uniform()).collect();
            let c: Vec<f64> = (0..d).map(|_| uniform()).collect();
            let (value, (gl, gc)) = packed_triangle_grad(&l, &c, d);
            assert_eq!(value, packed_triangle(&l, &c, d));
            let n = l.len();
            let f = |p: &[f64]| packed_triangle(&p[..n], &p[n..], d);
            let x = [&l[..], &c[..]].concat();
            assert_fd_gradient(f, &x, &[&gl[..], &gc[..]].concat(), "packed_triangle");
        }
    }
    for (len, stride) in [(5, 2), (7, 3), (6, 2), (9, 4)] {
        for _ in 0..10 {
            let x: Vec<f64> = (0..len).map(|_| uniform()).collect();
            let (value, g) = strided_grad(&x, stride);
            assert_eq!(value, strided(&x, stride));
            assert_fd_gradient(|p| strided(p, stride), &x, &g, "strided");
            let (value, g) = counted_positives_grad(&x);
            assert_eq!(value, counted_positives(&x));
            assert_fd_gradient(counted_positives, &x, &g, "counted_positives");
        }
    }
}

/// Reads that an inner loop repeats unchanged (`c[i]` in the loop over `j`) of an array rewritten later
/// (`c`, in the next `k`): stored once per `i`. At `i == n` the inner loop does not run and `c[i]` would
/// be out of bounds.
#[differentiable]
#[allow(clippy::needless_range_loop)]
pub fn repeated_reads(x: &[f64], n: usize) -> f64 {
    let mut c = vec![0.0; n];
    let mut total = 0.0;
    for k in 0..3 {
        for i in 0..n {
            c[i] = x[i] * (k as f64 + 1.0) + x[(i + k) % n].sin();
        }
        for i in 0..n + 1 {
            for j in i + 1..n + 1 {
                total += c[i] * x[j - 1] * c[i].cos();
            }
        }
    }
    total
}

#[test]
fn reads_repeated_by_an_inner_loop_are_stored_once() {
    let mut state = 0x1234_5678_9abc_def1_u64;
    let mut uniform = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for n in [1, 2, 5] {
        for _ in 0..10 {
            let x: Vec<f64> = (0..n).map(|_| uniform()).collect();
            let (value, g) = repeated_reads_grad(&x, n);
            assert_eq!(value, repeated_reads(&x, n));
            assert_fd_gradient(|p| repeated_reads(p, n), &x, &g, "repeated_reads");
        }
    }
}

// ---- reads at an index the same in every iteration, and increments `a[k] += w` ----

/// GMM's likelihood term in miniature: per component, a row `centered` rewritten from the
/// parameters, then `q_centered[j] += l[li] * centered[i]` over a packed triangle walked by the counter
/// `li`. The adjoint of `centered[i]` (the same element in every iteration over `j`) is summed in a
/// register and added once after the inner loop; the increments of `q_centered` leave its adjoint in
/// place.
#[differentiable]
#[allow(clippy::needless_range_loop)]
pub fn triangle_increments(mu: &[f64], l: &[f64], x: &[f64], d: usize) -> f64 {
    let k = mu.len() / d;
    let l_size = d * (d - 1) / 2;
    let mut centered = vec![0.0; d];
    let mut q_centered = vec![0.0; d];
    let mut total = 0.0;
    for ik in 0..k {
        for j in 0..d {
            centered[j] = x[j] - mu[ik * d + j];
        }
        for j in 0..d {
            q_centered[j] = centered[j] * centered[j].cos();
        }
        let mut li = ik * l_size;
        for i in 0..d {
            for j in i + 1..d {
                q_centered[j] += l[li] * centered[i];
                li += 1;
            }
        }
        for j in 0..d {
            total += q_centered[j] * q_centered[j];
        }
    }
    total
}

/// Invariant reads of a parameter (`x[k]`, `x[0]`, and `x[k]` again under a branch) beside reads of the
/// same array at the loop index, which can be the same element; `x[m]` is out of bounds when its loop
/// does not run (`m == n`).
#[differentiable]
#[allow(clippy::needless_range_loop)]
pub fn invariant_reads(x: &[f64], w: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    for k in 0..n {
        for j in 0..n {
            let mut term = x[k] * w[j] + x[0] * x[j];
            if j % 2 == 0 {
                term += x[k].sin() * x[j];
            }
            total += term * x[k];
        }
    }
    for m in 0..n + 1 {
        for j in m..n {
            total += x[m] * x[j].cos();
        }
    }
    total
}

/// Increments in their forms: `a[k] += w`, `a[k] = w + a[k]`, an increment whose old value is read
/// again (`a[k]` also multiplied, so not a pure increment), one with another element written between
/// the load and the store (possibly the same element), and one into an element overwritten later.
#[differentiable]
#[allow(clippy::needless_range_loop, clippy::assign_op_pattern)]
pub fn increments(x: &[f64], n: usize) -> f64 {
    let mut a = vec![0.0; n];
    let mut total = 0.0;
    for r in 0..3 {
        for k in 0..n {
            a[k] = x[k] * (r as f64 + 1.0);
        }
        for k in 0..n {
            a[k] += x[(k + r) % n].sin();
            a[k] = x[k] * x[(k + 1) % n] + a[k];
            let old = a[k];
            a[k] = old + old * x[k];
            let before = a[k];
            a[(k + r) % n] = x[k].cos();
            a[k] = before + x[(k + 2) % n];
        }
        for k in 0..n {
            total += a[k] * a[k] * x[k];
            a[k] += 1.0;
        }
        total += a[n / 2];
    }
    total
}

/// An invariant read in a loop nested in a `while` loop, its index computed in the outer body, once
/// dead (`autodiff-fuzz --seed 6060 --reference`, p91: the sum was added at an index the reverse of the
/// outer body did not define, E0425) and once read.
#[differentiable]
#[allow(unused_variables, clippy::needless_range_loop)]
pub fn invariant_index_in_a_while_loop(xs: &[f64]) -> f64 {
    let mut k = 0;
    let mut s = 0.0;
    while k < 4 {
        for i in 0..4 {
            let dead = xs[k % 5];
        }
        for j in 0..3 {
            let t = xs[(k + 1) % 5];
            s += t * xs[j] * (k as f64 + 1.0);
        }
        k += 1;
    }
    s
}

/// p91 itself, as the fuzzer shrank it: the invariant reads are all dead.
#[differentiable]
#[allow(unused_variables, unused_mut)]
pub fn invariant_index_of_dead_reads(a: f64, xs: &[f64]) -> f64 {
    let mut k1 = 0;
    while k1 < 4 {
        let mut t2 = xs[k1 % 5];
        for i3 in 0..4 {
            let t5 = xs[k1 % 5];
        }
        k1 += 1;
    }
    a * xs[0]
}

/// p30's helper as the fuzzer shrank it (`--seed 6061 --forms`): the index of a stepped outer loop.
#[differentiable]
#[allow(unused_variables, unused_mut)]
pub fn invariant_index_of_a_stepped_outer_loop(xs: &[f64], p: (f64, f64)) -> f64 {
    let (p0, p1) = p;
    for i1 in (1..xs.len()).step_by(2) {
        for (i3, &v2) in xs.iter().enumerate() {
            let mut t6 =
                xs[i1] + (xs[i3 % 3] + xs[1..].iter().map(|&el| el.sin()).sum::<f64>().sin().exp());
        }
        let t7 = p1;
    }
    -xs.iter().fold(0.0, |acc, &el| acc + el * el) + p1
}

/// The same for the index of a stepped outer loop (`--seed 6061 --forms`, p30).
#[differentiable]
#[allow(unused_variables)]
pub fn invariant_index_of_a_stepped_loop(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in (1..xs.len()).step_by(2) {
        for (j, &v) in xs.iter().enumerate() {
            let dead = xs[i] + v;
            s += xs[i - 1] * v * (j as f64 + 0.5);
        }
    }
    s
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn invariant_reads_at_an_index_of_the_enclosing_loop(
        xs in prop::collection::vec(-1.0..1.0_f64, 5),
    ) {
        let (value, g) = invariant_index_in_a_while_loop_grad(&xs);
        prop_assert_eq!(value, invariant_index_in_a_while_loop(&xs));
        assert_fd_gradient(invariant_index_in_a_while_loop, &xs, &g, "while loop");
        let (value, (ga, g)) = invariant_index_of_dead_reads_grad(0.5, &xs);
        prop_assert_eq!(value, invariant_index_of_dead_reads(0.5, &xs));
        assert_close(ga, xs[0], 1e-15, "d/da");
        assert_fd_gradient(|x| invariant_index_of_dead_reads(0.5, x), &xs, &g, "dead reads");
        let (value, (g, (_, g1))) = invariant_index_of_a_stepped_outer_loop_grad(&xs, (0.3, xs[1]));
        prop_assert_eq!(value, invariant_index_of_a_stepped_outer_loop(&xs, (0.3, xs[1])));
        assert_close(g1, 1.0, 1e-15, "d/dp1");
        let doubled: Vec<f64> = xs.iter().map(|v| -2.0 * v).collect();
        assert_all_close(&g, &doubled, 1e-14, "stepped outer loop");
        let (value, g) = invariant_index_of_a_stepped_loop_grad(&xs);
        prop_assert_eq!(value, invariant_index_of_a_stepped_loop(&xs));
        assert_fd_gradient(invariant_index_of_a_stepped_loop, &xs, &g, "stepped loop");
    }

    #[test]
    fn triangular_loop_with_a_carried_index_and_increments(
        d in 1usize..6,
        k in 1usize..4,
        seed in prop::collection::vec(-1.0..1.0_f64, 200),
    ) {
        let l_size = d * (d - 1) / 2;
        let mu = &seed[..k * d];
        let l = &seed[50..50 + k * l_size];
        let x = &seed[150..150 + d];
        let (value, (g_mu, g_l, g_x)) = triangle_increments_grad(mu, l, x, d);
        prop_assert_eq!(value, triangle_increments(mu, l, x, d));
        let (n_mu, n_l) = (mu.len(), l.len());
        let f = |p: &[f64]| triangle_increments(&p[..n_mu], &p[n_mu..n_mu + n_l], &p[n_mu + n_l..], d);
        let at = [mu, l, x].concat();
        assert_fd_gradient(f, &at, &[&g_mu[..], &g_l[..], &g_x[..]].concat(), "triangle_increments");
    }

    #[test]
    fn reads_at_an_invariant_index(
        n in 1usize..6,
        seed in prop::collection::vec(-1.0..1.0_f64, 12),
    ) {
        let (x, w) = (&seed[..n], &seed[6..6 + n]);
        let (value, (g_x, g_w)) = invariant_reads_grad(x, w, n);
        prop_assert_eq!(value, invariant_reads(x, w, n));
        let f = |p: &[f64]| invariant_reads(&p[..n], &p[n..], n);
        assert_fd_gradient(f, &[x, w].concat(), &[&g_x[..], &g_w[..]].concat(), "invariant_reads");
    }

    #[test]
    fn increments_of_array_elements(
        n in 1usize..6,
        x in prop::collection::vec(-1.0..1.0_f64, 6),
    ) {
        let x = &x[..n];
        let (value, g) = increments_grad(x, n);
        prop_assert_eq!(value, increments(x, n));
        assert_fd_gradient(|p| increments(p, n), x, &g, "increments");
    }
}
