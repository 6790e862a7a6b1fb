//! Arrays: parameters `&[T]`, `&Vec<T>`, `Vec<T>`, `[T; N]`, `&[T; N]`; returns `Vec<T>` and `[T; N]`;
//! locals `vec![x; n]`, `vec![a, b]`, `[x; N]`, `Vec::new()`/`Vec::with_capacity(n)` with `push`,
//! `.to_vec()`, `.clone()`; index reads and writes (`a[i] = ..`, `a[i] += ..`, `a[i * n + j]`), `.len()`;
//! and the array programs of issue 3 (a dot product, a matrix-vector product, softmax cross-entropy over
//! a batch, a linear softmax classifier).
//!
//! Each is checked at random inputs against central differences, against its derivative written by hand
//! (`Aᵀ d` for the matrix-vector product, `p - onehot` for softmax cross-entropy, ...), and `_jvp` against
//! `_grad` or `_vjp`. Gradients of `[T; N]` parameters come back as `[T; N]`, `_vjp` of a function
//! returning `Vec<T>` takes a `Vec<T>` cotangent, and a tangent or cotangent of the wrong length panics
//! with a message naming the parameter and both lengths.

mod common;

use autodiff::{differentiable, Dual, Float};
use common::*;
use proptest::prelude::*;

// ---- the functions ----

/// A dot product of two fixed-size arrays, one by value and one by reference, by `zip`.
#[differentiable]
pub fn dot3(a: [f64; 3], b: &[f64; 3]) -> f64 {
    let mut s = 0.0;
    for (&u, &v) in a.iter().zip(b.iter()) {
        s += u * v;
    }
    s
}

/// The cross product: a `[T; N]` return built from an array literal with active elements.
#[differentiable]
pub fn cross(a: [f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a × b` in plain Rust.
fn cross_of(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a · b` of arrays taken by value.
#[differentiable(order = 2)]
fn dot_by_value(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `dot_by_value(*a, *b)`: arrays taken by reference, passed on by value (rustc's mismatched types in
/// generated code before: the borrow went to a callee taking `[f64; 3]`).
#[differentiable(order = 2)]
fn dot_of_borrowed(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    dot_by_value(*a, *b) * a[0]
}

/// A rotation of a 2-vector by `t`, written into a fixed-array local `[0.0; 2]` and returned.
#[differentiable]
pub fn rotate(v: &[f64; 2], t: f64) -> [f64; 2] {
    let (c, s) = (t.cos(), t.sin());
    let mut out = [0.0; 2];
    out[0] = c * v[0] - s * v[1];
    out[1] = s * v[0] + c * v[1];
    out
}

/// The powers `x, x², x³, x⁴`, from a fixed-array local `[x; 4]` of an active value, rewritten in place.
#[differentiable]
pub fn powers(x: f64) -> [f64; 4] {
    let mut p = [x; 4];
    for i in 1..4 {
        p[i] = p[i - 1] * x;
    }
    p
}

/// A row-major `rows × cols` matrix `a` (`cols = x.len()`) times `x`, accumulated by `y[i] += ..` at
/// `a[i * cols + j]`.
#[differentiable]
pub fn matvec(a: &[f64], x: &[f64]) -> Vec<f64> {
    let cols = x.len();
    let rows = a.len() / cols;
    let mut y = vec![0.0; rows];
    for i in 0..rows {
        for j in 0..cols {
            y[i] += a[i * cols + j] * x[j];
        }
    }
    y
}

/// The quadratic form `xᵀ A x` of a square row-major matrix.
#[differentiable]
pub fn quadratic_form(a: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += x[i] * a[i * n + j] * x[j];
        }
    }
    s
}

/// The mean softmax cross-entropy of a batch of rows of `logits` (`classes` per row) against the rows of
/// one-hot (or soft) `targets`, each row's log-sum-exp shifted by its maximum; only the logits are
/// differentiated.
#[differentiable(wrt(logits))]
pub fn softmax_cross_entropy(logits: &[f64], targets: &[f64], classes: usize) -> f64 {
    let batch = logits.len() / classes;
    let mut total = 0.0;
    for b in 0..batch {
        let mut m = logits[b * classes];
        for k in 1..classes {
            m = m.max(logits[b * classes + k]);
        }
        let mut z = 0.0;
        for k in 0..classes {
            z += (logits[b * classes + k] - m).exp();
        }
        total += m + z.ln();
        for k in 0..classes {
            total -= targets[b * classes + k] * logits[b * classes + k];
        }
    }
    total / batch as f64
}

/// The softmax of `z` in plain Rust.
fn softmax_of(z: &[f64]) -> Vec<f64> {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let total: f64 = e.iter().sum();
    e.iter().map(|v| v / total).collect()
}

/// The one-hot rows of `labels`, flattened.
fn one_hot(labels: &[usize], classes: usize) -> Vec<f64> {
    labels
        .iter()
        .flat_map(|&label| (0..classes).map(move |k| if k == label { 1.0 } else { 0.0 }))
        .collect()
}

/// The gradient of [`softmax_cross_entropy`]: `(p - onehot) / batch` row by row.
fn softmax_cross_entropy_gradient(logits: &[f64], targets: &[f64], classes: usize) -> Vec<f64> {
    let batch = (logits.len() / classes) as f64;
    logits
        .chunks(classes)
        .zip(targets.chunks(classes))
        .flat_map(|(row, target)| {
            softmax_of(row)
                .into_iter()
                .zip(target)
                .map(move |(p, y)| (p - y) / batch)
        })
        .collect()
}

/// A linear softmax classifier: the mean cross-entropy of the logits `W x` of each sample of `xs`
/// (`features` each) against one-hot `targets`; only the weights `w` (`classes × features`, row-major)
/// are differentiated. A local `Vec` of logits is overwritten for every sample.
#[differentiable(wrt(w))]
pub fn softmax_regression(w: &[f64], xs: &[f64], targets: &[f64], classes: usize) -> f64 {
    let features = w.len() / classes;
    let batch = xs.len() / features;
    let mut logits = vec![0.0; classes];
    let mut total = 0.0;
    for b in 0..batch {
        for k in 0..classes {
            let mut s = 0.0;
            for j in 0..features {
                s += w[k * features + j] * xs[b * features + j];
            }
            logits[k] = s;
        }
        let mut m = logits[0];
        for &l in logits.iter() {
            m = m.max(l);
        }
        let mut z = 0.0;
        for &l in &logits {
            z += (l - m).exp();
        }
        total += m + z.ln();
        for k in 0..classes {
            total -= targets[b * classes + k] * logits[k];
        }
    }
    total / batch as f64
}

/// The gradient of [`softmax_regression`]: the mean of `(p - onehot) xᵀ` over the samples.
fn softmax_regression_gradient(w: &[f64], xs: &[f64], targets: &[f64], classes: usize) -> Vec<f64> {
    let features = w.len() / classes;
    let batch = xs.len() / features;
    let mut grad = vec![0.0; w.len()];
    for (x, target) in xs.chunks(features).zip(targets.chunks(classes)) {
        let logits: Vec<f64> = w.chunks(features).map(|row| dot(row, x)).collect();
        for (k, p) in softmax_of(&logits).into_iter().enumerate() {
            for j in 0..features {
                grad[k * features + j] += (p - target[k]) * x[j] / batch as f64;
            }
        }
    }
    grad
}

/// The softmax, generic: a `Vec<T>` return filled by index writes and then divided in place.
#[allow(clippy::needless_range_loop)] // indexed writes are what this tests
#[differentiable]
pub fn softmax<T: Float>(x: &[T]) -> Vec<T> {
    let mut m = x[0];
    for &v in x {
        m = m.max(v);
    }
    let mut out = vec![T::zero(); x.len()];
    let mut z = T::zero();
    for i in 0..x.len() {
        out[i] = (x[i] - m).exp();
        z = z + out[i];
    }
    for i in 0..out.len() {
        out[i] = out[i] / z;
    }
    out
}

/// `ln Σ exp x`, generic, shifted by the maximum found by a branch in a loop.
#[differentiable]
pub fn log_sum_exp<T: Float>(x: &[T]) -> T {
    let mut m = x[0];
    for &v in x.iter() {
        if v > m {
            m = v;
        }
    }
    let mut s = T::zero();
    for &v in x {
        s = s + (v - m).exp();
    }
    m + s.ln()
}

/// The variance of a `&Vec<f64>`, in two passes (the mean first), divided by `.len()` as a float.
#[allow(clippy::ptr_arg)] // a `&Vec<T>` parameter is what this tests
#[differentiable]
pub fn variance(x: &Vec<f64>) -> f64 {
    let n = x.len() as f64;
    let mut mean = 0.0;
    for &v in x.iter() {
        mean += v;
    }
    mean /= n;
    let mut ss = 0.0;
    for &v in x.iter() {
        ss += (v - mean) * (v - mean);
    }
    ss / n
}

/// The unit vector along a `Vec<f64>` taken by value: a `.clone()` divided in place by `a[i] /= ..`.
#[allow(clippy::needless_range_loop)] // indexed writes are what this tests
#[differentiable]
pub fn normalize(v: Vec<f64>) -> Vec<f64> {
    let mut norm = 0.0;
    for &x in &v {
        norm += x * x;
    }
    norm = norm.sqrt();
    let mut out = v.clone();
    for i in 0..out.len() {
        out[i] /= norm;
    }
    out
}

/// The prefix sums of a `Vec<f64>` taken by value, in place on a `.to_vec()` copy: each write reads the
/// one before.
#[differentiable]
pub fn prefix_sums(x: Vec<f64>) -> Vec<f64> {
    let mut out = x.to_vec();
    for i in 1..out.len() {
        out[i] += out[i - 1];
    }
    out
}

/// `k x` reversed, written at a computed index `n - 1 - i`.
#[differentiable]
pub fn reversed_scaled(x: &[f64], k: f64) -> Vec<f64> {
    let n = x.len();
    let mut out = vec![0.0; n];
    for i in 0..n {
        out[n - 1 - i] = k * x[i];
    }
    out
}

/// Writes that overwrite active elements: the value overwritten must stop contributing.
/// `f = 2 x1 x2 + x0 + x1 x2² + x0 x2`.
#[differentiable]
pub fn overwrites(x: &[f64; 3]) -> f64 {
    let mut a = x.to_vec();
    a[0] = a[1] * a[2];
    a[1] = a[0] + x[0];
    a[2] *= a[1];
    a[0] + a[1] + a[2]
}

/// The partials of [`overwrites`].
fn overwrites_partials(x: [f64; 3]) -> [f64; 3] {
    [
        1.0 + x[2],
        2.0 * x[2] + x[2] * x[2],
        2.0 * x[1] + 2.0 * x[1] * x[2] + x[0],
    ]
}

/// Local `Vec`s: `vec![x; n]` of an active value, `vec![a, b, c,]` of active elements (with a trailing
/// comma), and `Vec::new()` with `push`. `f = (x n(n+1)/2 + x² + y² + x² y²)(eʸ + 1)`.
#[allow(clippy::needless_range_loop, clippy::vec_init_then_push)] // the forms are what this tests
#[differentiable]
pub fn vec_locals(x: f64, y: f64, n: usize) -> f64 {
    let a = vec![x; n];
    let b = vec![x, y, x * y];
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * (i as f64 + 1.0);
    }
    for &v in &b {
        s += v * v;
    }
    let mut c = Vec::new();
    c.push(s);
    c.push(y.exp());
    c[0] * c[1] + c[0]
}

/// The partials of [`vec_locals`].
fn vec_locals_partials(x: f64, y: f64, n: usize) -> [f64; 2] {
    let triangle = (n * (n + 1) / 2) as f64;
    let s = x * triangle + x * x + y * y + x * x * y * y;
    let e = y.exp();
    [
        (triangle + 2.0 * x + 2.0 * x * y * y) * (e + 1.0),
        (2.0 * y + 2.0 * x * x * y) * (e + 1.0) + s * e,
    ]
}

/// Half the squared norm of a slice: the callee of [`least_squares`].
#[differentiable]
pub fn half_sum_of_squares(r: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in r {
        s += v * v;
    }
    0.5 * s
}

/// `½ |A x - b|²`: a local residual `Vec` passed to a differentiable callee as `&[T]`.
#[differentiable]
pub fn least_squares(a: &[f64], x: &[f64], b: &[f64]) -> f64 {
    let cols = x.len();
    let mut r = vec![0.0; b.len()];
    for i in 0..b.len() {
        r[i] = -b[i];
        for j in 0..cols {
            r[i] += a[i * cols + j] * x[j];
        }
    }
    half_sum_of_squares(&r)
}

/// `|a × b|²`: a fixed-array local written in a loop, passed to [`dot3`] by value and as `&[T; N]`.
#[allow(clippy::needless_range_loop)] // indexed writes are what this tests
#[differentiable]
pub fn cross_norm2(a: [f64; 3], b: &[f64; 3]) -> f64 {
    let mut c = [0.0; 3];
    for i in 0..3 {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        c[i] = a[j] * b[k] - a[k] * b[j];
    }
    dot3(c, &c)
}

// ---- helpers ----

/// Checks a function with a vector output against its Jacobian written by hand (`jacobian[i][j]` is the
/// derivative of output `i` in flattened input `j`):
///
/// - `_vjp` with the cotangent `d` gives the exact primal value and `Jᵀ d`, which also agrees with
///   central differences of `d · f`;
/// - `_jvp` with the tangent `t` gives the exact primal value and `J t`.
#[track_caller]
fn check_vector(
    what: &str,
    primal: impl Fn(&[f64]) -> Vec<f64>,
    at: &[f64],
    jacobian: &[Vec<f64>],
    (vjp_value, vjp_grad, d): (&[f64], &[f64], &[f64]),
    (jvp_value, jvp_out, t): (&[f64], &[f64], &[f64]),
) {
    let what = |check: &str| format!("{what} at {at:?}: {check}");
    let value = primal(at);
    assert_eq!(vjp_value, &value[..], "{}", what("the value of _vjp"));
    assert_eq!(jvp_value, &value[..], "{}", what("the value of _jvp"));
    let transposed: Vec<f64> = (0..at.len())
        .map(|j| (0..d.len()).map(|i| d[i] * jacobian[i][j]).sum())
        .collect();
    assert_all_close(vjp_grad, &transposed, ANALYTIC_TOL, &what("vjp vs Jᵀ d"));
    let weighted = |x: &[f64]| dot(&primal(x), d);
    assert_fd_gradient(weighted, at, vjp_grad, &what("vjp vs central differences"));
    assert_all_close(
        jvp_out,
        &mat_vec(jacobian, t),
        ANALYTIC_TOL,
        &what("jvp vs J t"),
    );
}

/// A `[f64; 3]` from the first three of `v`.
fn array3(v: &[f64]) -> [f64; 3] {
    [v[0], v[1], v[2]]
}

/// Class labels of a batch of `batch` samples, each below `classes`.
fn labels(classes: usize, batch: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..classes, batch)
}

// ---- the tests ----

proptest! {
    #![proptest_config(config())]

    #[test]
    fn dot3_gradients_are_arrays(
        a in prop::array::uniform3(moderate()),
        b in prop::array::uniform3(moderate()),
        t in prop::array::uniform3(tangent()),
        u in prop::array::uniform3(tangent()),
    ) {
        // The gradient of a `[T; N]` parameter is a `[T; N]`, by value or by reference.
        let (value, (ga, gb)): (f64, ([f64; 3], [f64; 3])) = dot3_grad(a, &b);
        prop_assert_eq!(ga, b);
        prop_assert_eq!(gb, a);
        let jvp = dot3_jvp(a, &b, (t, u));
        let at = [a, b].concat();
        let grad = [ga, gb].concat();
        let tangent = [t, u].concat();
        check_flat(
            "dot3",
            |v| dot3(array3(v), &array3(&v[3..])),
            &at,
            (value, &grad),
            jvp,
            &tangent,
        );
    }

    #[test]
    fn cross_vjp_takes_and_gives_arrays(
        a in prop::array::uniform3(moderate()),
        b in prop::array::uniform3(moderate()),
        d in prop::array::uniform3(tangent()),
        t in prop::collection::vec(tangent(), 6),
    ) {
        let (value, (ga, gb)): ([f64; 3], ([f64; 3], [f64; 3])) = cross_vjp(a, &b, d);
        // Analytic: d_a = b × d, d_b = d × a.
        assert_all_close(&ga, &cross_of(b, d), ANALYTIC_TOL, "cross d_a");
        assert_all_close(&gb, &cross_of(d, a), ANALYTIC_TOL, "cross d_b");
        let (jvp_value, jvp_out): ([f64; 3], [f64; 3]) =
            cross_jvp(a, &b, (array3(&t), array3(&t[3..])));
        let jacobian: Vec<Vec<f64>> = (0..3)
            .map(|i| {
                (0..6)
                    .map(|j| {
                        let mut e = [0.0; 6];
                        e[j] = 1.0;
                        let (ta, tb) = (array3(&e), array3(&e[3..]));
                        cross_of(ta, b)[i] + cross_of(a, tb)[i]
                    })
                    .collect()
            })
            .collect();
        check_vector(
            "cross",
            |v| cross(array3(v), &array3(&v[3..])).to_vec(),
            &[a, b].concat(),
            &jacobian,
            (&value, &[ga, gb].concat(), &d),
            (&jvp_value, &jvp_out, &t),
        );
    }

    #[test]
    fn rotate_returns_a_fixed_array(
        v in prop::array::uniform2(moderate()),
        angle in moderate(),
        d in prop::array::uniform2(tangent()),
        t in prop::array::uniform3(tangent()),
    ) {
        let (value, (gv, gt)): ([f64; 2], ([f64; 2], f64)) = rotate_vjp(&v, angle, d);
        let (jvp_value, jvp_out) = rotate_jvp(&v, angle, ([t[0], t[1]], t[2]));
        let (c, s) = (angle.cos(), angle.sin());
        let jacobian = [
            vec![c, -s, -s * v[0] - c * v[1]],
            vec![s, c, c * v[0] - s * v[1]],
        ];
        check_vector(
            "rotate",
            |x| rotate(&[x[0], x[1]], x[2]).to_vec(),
            &[v[0], v[1], angle],
            &jacobian,
            (&value, &[gv[0], gv[1], gt], &d),
            (&jvp_value, &jvp_out, &t),
        );
    }

    #[test]
    fn powers_from_a_repeated_active_value(
        x in moderate(),
        d in prop::array::uniform4(tangent()),
        t in tangent(),
    ) {
        let (value, g): ([f64; 4], f64) = powers_vjp(x, d);
        let (jvp_value, jvp_out) = powers_jvp(x, t);
        let jacobian: Vec<Vec<f64>> = (0..4).map(|k| vec![(k + 1) as f64 * x.powi(k)]).collect();
        check_vector(
            "powers",
            |v| powers(v[0]).to_vec(),
            &[x],
            &jacobian,
            (&value, &[g], &d),
            (&jvp_value, &jvp_out, &[t]),
        );
    }

    #[test]
    fn matvec_vjp_is_the_transpose_times_the_cotangent(
        (a, x, d, ta, tx) in (1..5usize, 1..5usize).prop_flat_map(|(rows, cols)| (
            prop::collection::vec(moderate(), rows * cols),
            prop::collection::vec(moderate(), cols),
            prop::collection::vec(tangent(), rows),
            prop::collection::vec(tangent(), rows * cols),
            prop::collection::vec(tangent(), cols),
        )),
    ) {
        let (rows, cols) = (d.len(), x.len());
        // A `Vec<T>` return takes a `Vec<T>` cotangent.
        let (value, (ga, gx)): (Vec<f64>, (Vec<f64>, Vec<f64>)) = matvec_vjp(&a, &x, d.clone());
        let matrix: Vec<Vec<f64>> = a.chunks(cols).map(<[f64]>::to_vec).collect();
        // Analytic: d_x = Aᵀ d, d_A = d xᵀ.
        let transposed: Vec<f64> = (0..cols)
            .map(|j| (0..rows).map(|i| matrix[i][j] * d[i]).sum())
            .collect();
        assert_all_close(&gx, &transposed, ANALYTIC_TOL, "matvec d_x = Aᵀ d");
        let outer: Vec<f64> = (0..rows * cols)
            .map(|k| d[k / cols] * x[k % cols])
            .collect();
        assert_all_close(&ga, &outer, ANALYTIC_TOL, "matvec d_A = d xᵀ");
        let (jvp_value, jvp_out) = matvec_jvp(&a, &x, (ta.clone(), tx.clone()));
        let jacobian: Vec<Vec<f64>> = (0..rows)
            .map(|i| {
                let d_a = (0..rows * cols).map(|k| if k / cols == i { x[k % cols] } else { 0.0 });
                d_a.chain(matrix[i].iter().copied()).collect()
            })
            .collect();
        let split = a.len();
        check_vector(
            "matvec",
            |v| matvec(&v[..split], &v[split..]),
            &[a.clone(), x.clone()].concat(),
            &jacobian,
            (&value, &[ga, gx].concat(), &d),
            (&jvp_value, &jvp_out, &[ta, tx].concat()),
        );
    }

    #[test]
    fn quadratic_form_gradient_is_symmetrised(
        (a, x, t) in (1..5usize).prop_flat_map(|n| (
            prop::collection::vec(moderate(), n * n),
            prop::collection::vec(moderate(), n),
            prop::collection::vec(tangent(), n * n + n),
        )),
    ) {
        let n = x.len();
        let (value, (ga, gx)) = quadratic_form_grad(&a, &x);
        let jvp = quadratic_form_jvp(&a, &x, (t[..n * n].to_vec(), t[n * n..].to_vec()));
        let grad = [ga.clone(), gx.clone()].concat();
        let primal = |v: &[f64]| quadratic_form(&v[..n * n], &v[n * n..]);
        check_flat(
            "quadratic form",
            primal,
            &[a.clone(), x.clone()].concat(),
            (value, &grad),
            jvp,
            &t,
        );
        // Analytic: d_x = (A + Aᵀ) x, d_A = x xᵀ.
        let sym: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| (a[i * n + j] + a[j * n + i]) * x[j]).sum())
            .collect();
        assert_all_close(&gx, &sym, ANALYTIC_TOL, "quadratic form d_x");
        let outer: Vec<f64> = (0..n * n).map(|k| x[k / n] * x[k % n]).collect();
        assert_all_close(&ga, &outer, ANALYTIC_TOL, "quadratic form d_A");
    }

    #[test]
    fn least_squares_passes_a_local_vec_to_a_callee(
        (a, x, b, t) in (1..5usize, 1..4usize).prop_flat_map(|(rows, cols)| (
            prop::collection::vec(moderate(), rows * cols),
            prop::collection::vec(moderate(), cols),
            prop::collection::vec(moderate(), rows),
            prop::collection::vec(tangent(), rows * cols + cols + rows),
        )),
    ) {
        let (n_a, n_x) = (a.len(), x.len());
        let (value, (ga, gx, gb)) = least_squares_grad(&a, &x, &b);
        let tangent = (
            t[..n_a].to_vec(),
            t[n_a..n_a + n_x].to_vec(),
            t[n_a + n_x..].to_vec(),
        );
        let jvp = least_squares_jvp(&a, &x, &b, tangent);
        let at = [a.clone(), x.clone(), b.clone()].concat();
        let grad = [ga, gx, gb].concat();
        let primal = |v: &[f64]| least_squares(&v[..n_a], &v[n_a..n_a + n_x], &v[n_a + n_x..]);
        check_flat("least squares", primal, &at, (value, &grad), jvp, &t);
        // Analytic: with r = A x - b, d_A = r xᵀ, d_x = Aᵀ r, d_b = -r.
        let rows: Vec<Vec<f64>> = a.chunks(n_x).map(<[f64]>::to_vec).collect();
        let r: Vec<f64> = mat_vec(&rows, &x)
            .iter()
            .zip(&b)
            .map(|(ax, b)| ax - b)
            .collect();
        let d_a = (0..n_a).map(|k| r[k / n_x] * x[k % n_x]);
        let d_x = (0..n_x).map(|j| (0..b.len()).map(|i| rows[i][j] * r[i]).sum());
        let d_b = r.iter().map(|r| -r);
        let expected: Vec<f64> = d_a.chain(d_x).chain(d_b).collect();
        assert_all_close(&grad, &expected, ANALYTIC_TOL, "least squares partials");
    }

    #[test]
    fn cross_norm2_passes_a_fixed_array_local_to_a_callee(
        a in prop::array::uniform3(moderate()),
        b in prop::array::uniform3(moderate()),
        t in prop::collection::vec(tangent(), 6),
    ) {
        let (value, (ga, gb)): (f64, ([f64; 3], [f64; 3])) = cross_norm2_grad(a, &b);
        let jvp = cross_norm2_jvp(a, &b, (array3(&t), array3(&t[3..])));
        let primal = |v: &[f64]| cross_norm2(array3(v), &array3(&v[3..]));
        check_flat(
            "cross norm²",
            primal,
            &[a, b].concat(),
            (value, &[ga, gb].concat()),
            jvp,
            &t,
        );
        // Analytic: |a × b|² = |a|² |b|² - (a · b)².
        let (aa, bb, ab) = (dot(&a, &a), dot(&b, &b), dot(&a, &b));
        let d_a = (0..3).map(|i| 2.0 * (bb * a[i] - ab * b[i]));
        let d_b = (0..3).map(|i| 2.0 * (aa * b[i] - ab * a[i]));
        let expected: Vec<f64> = d_a.chain(d_b).collect();
        assert_all_close(
            &[ga, gb].concat(),
            &expected,
            ANALYTIC_TOL,
            "cross norm² partials",
        );
    }

    #[test]
    fn softmax_cross_entropy_gradient_is_p_minus_onehot(
        (classes, labels, logits, t) in (2..5usize, 1..5usize).prop_flat_map(|(classes, batch)| (
            Just(classes),
            labels(classes, batch),
            prop::collection::vec(-5.0..5.0_f64, classes * batch),
            prop::collection::vec(tangent(), classes * batch),
        )),
    ) {
        let targets = one_hot(&labels, classes);
        let (value, grad) = softmax_cross_entropy_grad(&logits, &targets, classes);
        let jvp = softmax_cross_entropy_jvp(&logits, &targets, classes, t.clone());
        let primal = |z: &[f64]| softmax_cross_entropy(z, &targets, classes);
        check_flat(
            "softmax cross-entropy",
            primal,
            &logits,
            (value, &grad),
            jvp,
            &t,
        );
        let expected = softmax_cross_entropy_gradient(&logits, &targets, classes);
        assert_all_close(
            &grad,
            &expected,
            ANALYTIC_TOL,
            "softmax cross-entropy: (p - onehot) / batch",
        );
    }

    #[test]
    fn softmax_regression_gradient_is_p_minus_onehot_times_x(
        (classes, labels, w, xs, t) in (2..4usize, 1..4usize, 1..4usize)
            .prop_flat_map(|(classes, features, batch)| (
                Just(classes),
                labels(classes, batch),
                prop::collection::vec(moderate(), classes * features),
                prop::collection::vec(moderate(), batch * features),
                prop::collection::vec(tangent(), classes * features),
            )),
    ) {
        let targets = one_hot(&labels, classes);
        let (value, grad) = softmax_regression_grad(&w, &xs, &targets, classes);
        let jvp = softmax_regression_jvp(&w, &xs, &targets, classes, t.clone());
        let primal = |w: &[f64]| softmax_regression(w, &xs, &targets, classes);
        check_flat("softmax regression", primal, &w, (value, &grad), jvp, &t);
        let expected = softmax_regression_gradient(&w, &xs, &targets, classes);
        assert_all_close(
            &grad,
            &expected,
            ANALYTIC_TOL,
            "softmax regression: (p - onehot) xᵀ",
        );
    }

    #[test]
    fn softmax_vjp_and_jvp_are_the_softmax_jacobian(
        (x, d, t) in (1..6usize).prop_flat_map(|n| (
            prop::collection::vec(moderate(), n),
            prop::collection::vec(tangent(), n),
            prop::collection::vec(tangent(), n),
        )),
    ) {
        let n = x.len();
        let (value, grad) = softmax_vjp(&x, d.clone());
        let (jvp_value, jvp_out) = softmax_jvp(&x, t.clone());
        let p = softmax_of(&x);
        assert_all_close(&value, &p, ANALYTIC_TOL, "softmax value");
        let jacobian: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| p[i] * (if i == j { 1.0 } else { 0.0 } - p[j]))
                    .collect()
            })
            .collect();
        check_vector(
            "softmax",
            softmax,
            &x,
            &jacobian,
            (&value, &grad, &d),
            (&jvp_value, &jvp_out, &t),
        );
        // The same at f32.
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let d32: Vec<f32> = d.iter().map(|&v| v as f32).collect();
        let (value32, grad32) = softmax_vjp(&x32, d32);
        prop_assert_eq!(&value32, &softmax(&x32));
        let grad32: Vec<f64> = grad32.into_iter().map(f64::from).collect();
        assert_all_close(&grad32, &grad, ANALYTIC_TOL_F32, "softmax vjp at f32");
    }

    #[test]
    fn log_sum_exp_hessian_vector_product_on_duals(
        (x, t, v) in (1..6usize).prop_flat_map(|n| (
            prop::collection::vec(moderate(), n),
            prop::collection::vec(tangent(), n),
            prop::collection::vec(tangent(), n),
        )),
    ) {
        let (value, grad) = log_sum_exp_grad(&x);
        let jvp = log_sum_exp_jvp(&x, t.clone());
        check_flat("log-sum-exp", log_sum_exp, &x, (value, &grad), jvp, &t);
        let p = softmax_of(&x);
        assert_all_close(
            &grad,
            &p,
            ANALYTIC_TOL,
            "log-sum-exp gradient is the softmax",
        );
        // Second order: the Hessian is diag(p) - p pᵀ.
        let (dual_value, dual_grad) = log_sum_exp_grad::<Dual<f64>>(&seeded(&x, &v));
        assert_eq!(dual_value.re, value);
        assert_close(
            dual_value.eps,
            dot(&p, &v),
            ANALYTIC_TOL,
            "log-sum-exp along v",
        );
        let (re, eps) = split_duals(&dual_grad);
        assert_all_close(&re, &p, ANALYTIC_TOL, "log-sum-exp gradient on duals");
        let p_v = dot(&p, &v);
        let hv: Vec<f64> = p
            .iter()
            .zip(&v)
            .map(|(pi, vi)| pi * vi - pi * p_v)
            .collect();
        assert_all_close(&eps, &hv, ANALYTIC_TOL, "log-sum-exp Hessian times v");
    }

    #[test]
    fn variance_of_a_vec_reference((x, t) in vec_with_tangent(moderate(), 1..8)) {
        let (value, grad) = variance_grad(&x);
        let jvp = variance_jvp(&x, t.clone());
        check_flat(
            "variance",
            |v| variance(&v.to_vec()),
            &x,
            (value, &grad),
            jvp,
            &t,
        );
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let expected: Vec<f64> = x.iter().map(|v| 2.0 * (v - mean) / n).collect();
        assert_all_close(&grad, &expected, ANALYTIC_TOL, "variance partials");
    }

    #[test]
    fn normalize_takes_a_vec_by_value(
        (x, d, t) in (1..6usize).prop_flat_map(|n| (
            prop::collection::vec(moderate(), n),
            prop::collection::vec(tangent(), n),
            prop::collection::vec(tangent(), n),
        )),
    ) {
        let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        prop_assume!(norm > 0.1);
        let (value, grad): (Vec<f64>, Vec<f64>) = normalize_vjp(x.clone(), d.clone());
        let (jvp_value, jvp_out) = normalize_jvp(x.clone(), t.clone());
        let u: Vec<f64> = x.iter().map(|v| v / norm).collect();
        let n = x.len();
        let jacobian: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| (if i == j { 1.0 } else { 0.0 } - u[i] * u[j]) / norm)
                    .collect()
            })
            .collect();
        check_vector(
            "normalize",
            |v| normalize(v.to_vec()),
            &x,
            &jacobian,
            (&value, &grad, &d),
            (&jvp_value, &jvp_out, &t),
        );
    }

    #[test]
    fn prefix_sums_vjp_is_the_suffix_sums(
        (x, d, t) in (0..8usize).prop_flat_map(|n| (
            prop::collection::vec(moderate(), n),
            prop::collection::vec(tangent(), n),
            prop::collection::vec(tangent(), n),
        )),
    ) {
        let n = x.len();
        let (value, grad) = prefix_sums_vjp(x.clone(), d.clone());
        let (jvp_value, jvp_out) = prefix_sums_jvp(x.clone(), t.clone());
        let jacobian: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| if j <= i { 1.0 } else { 0.0 }).collect())
            .collect();
        check_vector(
            "prefix sums",
            |v| prefix_sums(v.to_vec()),
            &x,
            &jacobian,
            (&value, &grad, &d),
            (&jvp_value, &jvp_out, &t),
        );
    }

    #[test]
    fn reversed_scaled_writes_at_a_computed_index(
        (x, d, t) in (0..8usize).prop_flat_map(|n| (
            prop::collection::vec(moderate(), n),
            prop::collection::vec(tangent(), n),
            prop::collection::vec(tangent(), n + 1),
        )),
        k in moderate(),
    ) {
        let n = x.len();
        let (value, (gx, gk)) = reversed_scaled_vjp(&x, k, d.clone());
        let (jvp_value, jvp_out) = reversed_scaled_jvp(&x, k, (t[..n].to_vec(), t[n]));
        let jacobian: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                let source = n - 1 - i;
                let d_x = (0..n).map(|j| if j == source { k } else { 0.0 });
                d_x.chain([x[source]]).collect()
            })
            .collect();
        let at = [x.clone(), vec![k]].concat();
        check_vector(
            "reversed scaled",
            |v| reversed_scaled(&v[..n], v[n]),
            &at,
            &jacobian,
            (&value, &[gx, vec![gk]].concat(), &d),
            (&jvp_value, &jvp_out, &t),
        );
    }

    #[test]
    fn overwritten_elements_stop_contributing(
        x in prop::array::uniform3(moderate()),
        t in prop::array::uniform3(tangent()),
    ) {
        let (value, grad): (f64, [f64; 3]) = overwrites_grad(&x);
        let jvp = overwrites_jvp(&x, t);
        check_flat(
            "overwrites",
            |v| overwrites(&array3(v)),
            &x,
            (value, &grad),
            jvp,
            &t,
        );
        assert_all_close(
            &grad,
            &overwrites_partials(x),
            ANALYTIC_TOL,
            "overwrites partials",
        );
    }

    #[test]
    fn vec_locals_repeat_list_and_push(
        x in moderate(),
        y in moderate(),
        n in 0..6usize,
        t in tangents(),
    ) {
        let (value, (gx, gy)) = vec_locals_grad(x, y, n);
        let jvp = vec_locals_jvp(x, y, n, (t[0], t[1]));
        check_flat(
            "vec locals",
            |v| vec_locals(v[0], v[1], n),
            &[x, y],
            (value, &[gx, gy]),
            jvp,
            &t[..2],
        );
        assert_all_close(
            &[gx, gy],
            &vec_locals_partials(x, y, n),
            ANALYTIC_TOL,
            "vec locals partials",
        );
    }
}

// ---- tangents and cotangents of the wrong length ----

#[test]
#[should_panic(expected = "the tangent of `x` has length 2 but `x` has length 3")]
fn a_short_tangent_panics_naming_the_parameter() {
    let _ = variance_jvp(&vec![1.0, 2.0, 3.0], vec![1.0, 0.0]);
}

#[test]
#[should_panic(expected = "the tangent of `x` has length 3 but `x` has length 2")]
fn a_long_tangent_of_the_second_parameter_panics() {
    let a = [1.0, 2.0, 3.0, 4.0];
    let _ = matvec_jvp(&a, &[1.0, 1.0], (vec![0.0; 4], vec![0.0; 3]));
}

#[test]
#[should_panic(expected = "the tangent of `v` has length 1 but `v` has length 2")]
fn a_short_tangent_of_a_vec_by_value_panics() {
    let _ = normalize_jvp(vec![3.0, 4.0], vec![1.0]);
}

#[test]
#[should_panic(expected = "the cotangent `d_ret` has length 1 but the returned value has length 2")]
fn a_short_cotangent_panics_with_both_lengths() {
    let _ = matvec_vjp(&[1.0, 2.0, 3.0, 4.0], &[1.0, 1.0], vec![1.0]);
}

#[test]
#[should_panic(expected = "the cotangent `d_ret` has length 4 but the returned value has length 3")]
fn a_long_cotangent_panics_with_both_lengths() {
    let _ = prefix_sums_vjp(vec![1.0, 2.0, 3.0], vec![1.0; 4]);
}

/// Examples at chosen points, and the primal functions called directly.
#[test]
fn examples() {
    assert_eq!(dot3([1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
    assert_eq!(
        matvec(&[1.0, 2.0, 3.0, 4.0], &[1.0, -1.0]),
        vec![-1.0, -1.0]
    );
    let (y, (ga, gx)) = matvec_vjp(&[1.0, 2.0, 3.0, 4.0], &[1.0, -1.0], vec![1.0, 2.0]);
    assert_eq!(y, vec![-1.0, -1.0]);
    assert_eq!(ga, vec![1.0, -1.0, 2.0, -2.0]);
    assert_eq!(gx, vec![7.0, 10.0]);
    assert_eq!(prefix_sums(vec![1.0, 2.0, 3.0]), vec![1.0, 3.0, 6.0]);
    let (_, g) = prefix_sums_vjp(vec![1.0, 2.0, 3.0], vec![1.0, 1.0, 1.0]);
    assert_eq!(g, vec![3.0, 2.0, 1.0]);
    assert_eq!(reversed_scaled(&[1.0, 2.0], 2.0), vec![4.0, 2.0]);
    assert_eq!(powers(2.0), [2.0, 4.0, 8.0, 16.0]);
    assert_eq!(rotate(&[1.0, 0.0], 0.0), [1.0, 0.0]);
    assert_eq!(cross([1.0, 0.0, 0.0], &[0.0, 1.0, 0.0]), [0.0, 0.0, 1.0]);
    assert_eq!(normalize(vec![3.0, 4.0]), vec![0.6, 0.8]);
    assert_close(variance(&vec![1.0, 3.0]), 1.0, ANALYTIC_TOL, "variance");
    assert_close(
        log_sum_exp(&[0.0, 0.0]),
        2f64.ln(),
        ANALYTIC_TOL,
        "log-sum-exp",
    );
    assert_eq!(overwrites(&[1.0, 2.0, 3.0]), 2.0 * 6.0 + 1.0 + 18.0 + 3.0);
    assert_close(
        vec_locals(1.0, 0.0, 2),
        4.0 * 2.0,
        ANALYTIC_TOL,
        "vec locals",
    );
    assert_close(
        quadratic_form(&[1.0, 0.0, 0.0, 1.0], &[3.0, 4.0]),
        25.0,
        ANALYTIC_TOL,
        "quadratic form",
    );
    let uniform = softmax_cross_entropy(&[0.0, 0.0, 0.0, 0.0], &one_hot(&[0, 1], 2), 2);
    assert_close(uniform, 2f64.ln(), ANALYTIC_TOL, "softmax cross-entropy");
    let regression = softmax_regression(&[0.0; 4], &[1.0, 2.0], &one_hot(&[1], 2), 2);
    assert_close(regression, 2f64.ln(), ANALYTIC_TOL, "softmax regression");
}

#[test]
fn an_array_taken_by_reference_is_passed_on_by_value() {
    let (a, b) = ([1.0, 2.0, -1.0], [0.5, -1.0, 3.0]);
    // (a · b) a0: ∂/∂a = b a0 + (a · b) e0, ∂/∂b = a a0.
    let d = -4.5;
    assert_eq!(dot_of_borrowed(&a, &b), d);
    assert_eq!(
        dot_of_borrowed_grad(&a, &b),
        (d, ([0.5 + d, -1.0, 3.0], [1.0, 2.0, -1.0]))
    );
    let (_, tangent) = dot_of_borrowed_jvp(&a, &b, ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]));
    assert_eq!(tangent, 0.5 + d + 2.0);
    let (_, _, h) = dot_of_borrowed_hessian(&a, &b);
    // H[a0][a0] = 2 b0, H[a0][b_j] = a_j + a0 δ_j0, H[a_i][b_i] = a0 (i > 0).
    assert_eq!(h[0][0], 1.0);
    assert_eq!(h[0][3..].to_vec(), vec![2.0, 2.0, -1.0]);
    assert_eq!(h[1][4], 1.0);
    assert_eq!(h[2][5], 1.0);
}
