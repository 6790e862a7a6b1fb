//! A trust probe written as a new user would: more test programs of other AD projects, written anew in
//! the most natural Rust a user would write for them (slices and iterator chains, `if` and `match`
//! expressions, `while`, early `return`, closures bound to locals, helpers, tuples, structs), never
//! their code beyond the few lines of a numeric function; each cites the original it follows.
//!
//! - google/tangent `tests/functions.py` (and `test_hessian_vector_products.py`): the functions
//!   `probe_ported.rs` left out or wrote in Python's shape — `cast_sum_` (`to_vec`), the implicit
//!   indexing loop, the NumPy unary functions chosen by a `match`, `det` (cofactors of a 3×3 array and
//!   an LU elimination with row swaps), the TFE reductions, `maximum`, `matmul` with transpose flags,
//!   `conv2d` and max/average pooling with `SAME` padding, the traced multiply, `dict_saxpy`/
//!   `dict_wrapper` (a struct), `passthru_pack` (an array literal indexed by an integer),
//!   `insert_grad_of` (a `#[custom_gradient]` damping the gradient), `init_array_grad_maybe_active`,
//!   `extended_slice` (`step_by`), `subscript3` (`collect` into a `Vec`), the RNN and bilinear layers
//!   over rows, and the straight-line and call-tree Hessian-vector products.
//! - JAX `tests/api_test.py` (`test_hessian`'s `x·Ax`, `test_grad_argnums`), `tests/lax_autodiff_test.py`
//!   (the element-wise ops, `cumprod`, `reduce_prod` with a zero, `reduce_window` average, `integer_pow`,
//!   `rem`, `clamp`, `select_n`, `scatter_add`, `gather`, `argmax`) and `tests/custom_api_test.py`
//!   (`custom_jvp`/`custom_vjp`: `test_basic`'s doubled cosine, `test_python_control_flow`, `clip_gradient`,
//!   `test_multiple_rule_invocations`' expit in a scan, `test_hard_stuff3`'s relu, `x² y`) at first and
//!   second order, with the Hessians `jax.hessian` gives for them.
//!
//! - PyTorch `test/test_autograd.py` and `test/autograd/test_functional.py`: `test_hessian_vector`,
//!   `sinc`, `xlogy`, `logaddexp`, `lerp`/`addcmul`/`addcdiv`, the activations of `nn.functional`
//!   (softplus with its threshold, elu, selu, silu, mish, tanh-gelu, hardswish), `trapezoid`, `cdist`,
//!   the functional tests' reducers, `exp_reducer` and `adder` (vector results and their Jacobians), a
//!   custom `autograd.Function` saving its result, and `test_grad_nonleaf`'s descent steps.
//!
//! - `found`: the minimal programs of what this probe found failing: a whole row of a matrix assigned at
//!   once (`h[t] = [x[t]; 3]`, `h[t + 1] = next`: generated code that did not compile) and `.swap(i, j)`
//!   of a local `Vec`, an array, an output parameter and a matrix's rows (an error before); the rows'
//!   lengths, which the generated items cannot change, checked at run time.
//!
//! Every derivative is checked against central differences (`common::probe`) at seeded points and
//! against the derivative worked out by hand where it is short; `_jvp` against `_grad`, `order = 2`
//! Hessians against differences of `_grad`.

// The forms of the ported sources: index loops, a counter beside a loop, element-by-element copies,
// bounds checks written out, `let` then return, `vec!` where a user reaches for it; function-pointer
// types spell out the generated signatures.
#![allow(
    clippy::needless_range_loop,
    clippy::manual_range_contains,
    clippy::let_and_return,
    clippy::useless_vec,
    clippy::assign_op_pattern,
    clippy::explicit_counter_loop,
    clippy::manual_memcpy,
    clippy::needless_return,
    clippy::type_complexity
)]

mod common;

use common::probe::*;
use std::f64::consts::PI;

const POINTS: usize = 10;

/// google/tangent `tests/functions.py`, in the Rust a user writes for them.
pub mod tangent {
    use autodiff::{custom_gradient, differentiable, Differentiable};

    // `cast_sum_`: `np.sum(np.array(x))`, the copy a user makes with `to_vec`.
    #[differentiable(order = 2)]
    pub fn cast_sum(x: &[f64]) -> f64 {
        let v = x.to_vec();
        v.iter().sum::<f64>() * v[0]
    }

    // `test_implicit_indexing`: `for a in x: res += a`, by reference.
    #[differentiable(order = 2)]
    pub fn implicit_indexing(x: &[f64]) -> f64 {
        let mut res = 0.0;
        for a in x {
            res += a * a;
        }
        res
    }

    // `numpy_exp` .. `numpy_arctan`, `tfe_negative`, `tfe_log`, `tfe_rsqrt`: one function, the NumPy
    // function chosen by a `match` on an integer.
    #[differentiable(order = 2)]
    pub fn numpy_unary(a: f64, which: u8) -> f64 {
        match which {
            0 => a.exp(),
            1 => a.cos(),
            2 => a.sin(),
            3 => a.tan(),
            4 => a.cosh(),
            5 => a.sinh(),
            6 => a.tanh(),
            7 => a.acos(),
            8 => a.asin(),
            9 => a.atan(),
            10 => -a,
            11 => a.ln(),
            _ => 1.0 / a.sqrt(),
        }
    }

    // `det`: `np.linalg.det` of a 3×3 matrix by cofactors along the first row.
    #[differentiable(order = 2)]
    pub fn det3(m: &[[f64; 3]; 3]) -> f64 {
        let minor = |a: f64, b: f64, c: f64, d: f64| a * d - b * c;
        m[0][0] * minor(m[1][1], m[1][2], m[2][1], m[2][2])
            - m[0][1] * minor(m[1][0], m[1][2], m[2][0], m[2][2])
            + m[0][2] * minor(m[1][0], m[1][1], m[2][0], m[2][1])
    }

    // `det` of any size as numeric code computes it: Gaussian elimination with partial pivoting on a
    // copy, the rows swapped with `swap` and the sign flipped at each swap (`.swap()` of a matrix's
    // rows was rejected: `found::swaps`).
    #[differentiable(order = 2)]
    pub fn det_lu(m: &[Vec<f64>]) -> f64 {
        let n = m.len();
        let mut a = m.to_vec();
        let mut det = 1.0;
        for k in 0..n {
            let mut p = k;
            for i in k + 1..n {
                if a[i][k].abs() > a[p][k].abs() {
                    p = i;
                }
            }
            if p != k {
                a.swap(p, k);
                det = -det;
            }
            let pivot = a[k][k];
            det *= pivot;
            for i in k + 1..n {
                let factor = a[i][k] / pivot;
                for j in k..n {
                    a[i][j] -= factor * a[k][j];
                }
            }
        }
        det
    }

    // `tfe_reduce_max`: the maximum by the idiom `fold(NEG_INFINITY, f64::max)`.
    #[differentiable]
    pub fn reduce_max(x: &[f64]) -> f64 {
        let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        m * m
    }

    // `tfe_reduce_mean`.
    #[differentiable(order = 2)]
    pub fn reduce_mean(x: &[f64]) -> f64 {
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        mean.sin()
    }

    // `tfe_maximum` then `tfe_squared_difference`, element-wise, summed.
    #[differentiable(order = 2)]
    pub fn maximum_sqdiff(t1: &[f64], t2: &[f64]) -> f64 {
        t1.iter()
            .zip(t2)
            .map(|(a, b)| a.max(*b) + (a - b).powi(2))
            .sum()
    }

    // `tfe_matmul(mat1, mat2, transpose_a, transpose_b)`, the entries of the product summed by
    // squares; the operands read through closures that honour the flags.
    #[differentiable(order = 2)]
    pub fn matmul(a: &[Vec<f64>], b: &[Vec<f64>], ta: bool, tb: bool) -> f64 {
        let at = |i: usize, k: usize| if ta { a[k][i] } else { a[i][k] };
        let bt = |k: usize, j: usize| if tb { b[j][k] } else { b[k][j] };
        let n = 2;
        let mut s = 0.0;
        for i in 0..n {
            for j in 0..n {
                let mut c = 0.0;
                for k in 0..n {
                    c += at(i, k) * bt(k, j);
                }
                s += c * c;
            }
        }
        s
    }

    // `tfe_conv2d(image, kernel, strides=1, 'SAME')` on one channel: zero padding by bounds checks
    // on signed indices, the output squared and summed.
    #[differentiable(order = 2)]
    pub fn conv2d_same(image: &[[f64; 4]; 4], kernel: &[[f64; 3]; 3]) -> f64 {
        let mut s = 0.0;
        for r in 0..4i32 {
            for c in 0..4i32 {
                let mut acc = 0.0;
                for kr in 0..3i32 {
                    for kc in 0..3i32 {
                        let (y, x) = (r + kr - 1, c + kc - 1);
                        if y >= 0 && y < 4 && x >= 0 && x < 4 {
                            acc += image[y as usize][x as usize] * kernel[kr as usize][kc as usize];
                        }
                    }
                }
                s += acc * acc;
            }
        }
        s
    }

    // `tfe_max_pool` and `tfe_avg_pool` with 2×2 windows and stride 2 on a 4×4 image, as nested
    // iterator chains over the window.
    #[differentiable]
    pub fn max_pool(image: &[[f64; 4]; 4]) -> f64 {
        let mut s = 0.0;
        for r in (0..4).step_by(2) {
            for c in (0..4).step_by(2) {
                let m = image[r][c]
                    .max(image[r][c + 1])
                    .max(image[r + 1][c])
                    .max(image[r + 1][c + 1]);
                s += m * m;
            }
        }
        s
    }

    // The window of rows as a sub-slice, `&image[r..r + 2]`, is rejected (a spanned error: a sub-slice
    // of a matrix's rows is not supported), so the rows are read by index.
    #[differentiable(order = 2)]
    pub fn avg_pool(image: &[[f64; 4]; 4]) -> f64 {
        let mut s = 0.0;
        for r in (0..4).step_by(2) {
            for c in (0..4).step_by(2) {
                let mean = (r..r + 2)
                    .map(|i| image[i][c] + image[i][c + 1])
                    .sum::<f64>()
                    / 4.0;
                s += mean.exp();
            }
        }
        s
    }

    fn trace_mul(a: &[f64], b: &[f64], out: &mut [f64]) {
        for i in 0..a.len() {
            out[i] = a[i] * b[i];
        }
    }

    // `tfe_trace_fn`: a helper writing the product into a buffer, then `reduce_sum`.
    #[differentiable(order = 2)]
    pub fn trace_fn(t: &[f64]) -> f64 {
        let mut out = vec![0.0; t.len()];
        traced_mul(t, t, &mut out);
        out.iter().sum()
    }

    #[differentiable(order = 2)]
    fn traced_mul(a: &[f64], b: &[f64], out: &mut [f64]) {
        for i in 0..a.len() {
            out[i] = a[i] * b[i];
        }
    }

    /// Keeps the plain twin of `traced_mul` in use.
    pub fn untraced(t: &[f64]) -> f64 {
        let mut out = vec![0.0; t.len()];
        trace_mul(t, t, &mut out);
        out.iter().sum()
    }

    /// `dict_saxpy`'s dictionary as a struct.
    #[derive(Clone, Debug, Differentiable)]
    pub struct Abc {
        pub a: f64,
        pub b: f64,
        pub c: f64,
    }

    // `dict_saxpy(val)`: `val['a'] * val['b'] + val['c']`.
    #[differentiable(order = 2)]
    pub fn dict_saxpy(val: &Abc) -> f64 {
        val.a * val.b + val.c
    }

    // `dict_wrapper`: a tuple unpacked and passed on as the struct. A struct literal built in the
    // body is not in API.md, so the struct is passed along whole.
    #[differentiable(order = 2)]
    pub fn dict_wrapper(abc: (f64, f64, f64)) -> f64 {
        let (a, b, c) = abc;
        a * b + c
    }

    // `passthru_pack(a, b, c, i)`: `x = a, b, c; return x[i]`, an array literal indexed by an integer.
    #[differentiable(order = 2)]
    pub fn passthru_pack(a: f64, b: f64, c: f64, i: usize) -> f64 {
        let x = [a, b, c];
        x[i] * x[(i + 1) % 3]
    }

    // `inlining_contextmanager`: `with insert_grad_of(a) as g: g = g * 0.9` scales the gradient
    // flowing into `a`; the Rust spelling is a custom gradient on the value read.
    #[custom_gradient]
    pub fn damped(a: f64) -> (f64, impl Fn(f64) -> f64) {
        (a, move |g| g * 0.9)
    }

    #[differentiable(order = 2)]
    pub fn insert_grad_of(a: f64) -> f64 {
        let a = damped(a);
        let b = a * a;
        b * a
    }

    // `init_array_grad_maybe_active`: `h = zeros((len(x), 3)); h[t] = x[t]` (a row broadcast), summed.
    // (The row assigned whole did not compile in the generated code: `found::rows_of_arrays`.)
    #[differentiable(order = 2)]
    pub fn init_rows(x: &[f64]) -> f64 {
        let mut h = vec![[0.0; 3]; x.len()];
        for t in 0..h.len() {
            h[t] = [x[t]; 3];
        }
        h.iter().map(|row| row.iter().sum::<f64>()).sum::<f64>() * x[0]
    }

    // `extended_slice`: `np.sum(x[::2])`.
    #[differentiable(order = 2)]
    pub fn every_other(x: &[f64]) -> f64 {
        x.iter().step_by(2).map(|v| v * v).sum()
    }

    // `test_subscript3`: `y = x ** 2.0; x[0] = y[1] * y[2]; sum(x * y)`, `y` collected.
    #[differentiable(order = 2)]
    pub fn subscript3(mut x: Vec<f64>) -> f64 {
        let y: Vec<f64> = x.iter().map(|v| v.powf(2.0)).collect();
        x[0] = y[1] * y[2];
        x.iter().zip(&y).map(|(a, b)| a * b).sum()
    }

    // `rnn(inputs, W)`: `h[t + 1] = dot(inputs[t], W) + h[t]` into the rows of a `Vec<Vec<f64>>`, entry
    // by entry (the row assigned whole: `found::rows_of_vecs`).
    #[differentiable(order = 2)]
    pub fn rnn(inputs: &[Vec<f64>], w: &[Vec<f64>]) -> f64 {
        let mut h = vec![vec![0.0; 3]; 4];
        for t in 0..3 {
            for j in 0..3 {
                h[t + 1][j] = h[t][j]
                    + inputs[t]
                        .iter()
                        .zip(w)
                        .map(|(x, row)| x * row[j])
                        .sum::<f64>();
            }
        }
        h[1..].iter().map(|row| row.iter().sum::<f64>()).sum()
    }

    // `bilinear(x, h, U, W, b)`: `tanh(x W + h U + b)` summed.
    #[differentiable(order = 2)]
    pub fn bilinear(x: &[f64], h: &[f64], u: &[Vec<f64>], w: &[Vec<f64>], b: &[f64]) -> f64 {
        let mut total = 0.0;
        for j in 0..b.len() {
            let xw: f64 = x.iter().enumerate().map(|(i, xi)| xi * w[i][j]).sum();
            let hu: f64 = h.iter().enumerate().map(|(i, hi)| hi * u[i][j]).sum();
            total += (xw + hu + b[j]).tanh();
        }
        total
    }

    // `test_hessian_vector_products.py` `f_straightline`: `a = x³; b = a x^2.0; sum(b)`.
    #[differentiable(order = 2)]
    pub fn f_straightline(x: &[f64]) -> f64 {
        x.iter()
            .map(|&v| {
                let a = v * v * v;
                a * v.powf(2.0)
            })
            .sum()
    }

    fn cube(a: f64) -> f64 {
        a * a * a
    }

    #[differentiable(order = 2)]
    fn cube_d(a: f64) -> f64 {
        let b = a * a * a;
        b
    }

    // `f_calltree`: the same through a helper `cube`.
    #[differentiable(order = 2)]
    pub fn f_calltree(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for &v in x {
            s += cube_d(v) * v.powf(2.0);
        }
        s
    }

    /// Keeps the plain `cube` in use (the untransformed helper of the original).
    pub fn calltree_plain(x: &[f64]) -> f64 {
        x.iter().map(|&v| cube(v) * v * v).sum()
    }

    // `while_big`: `while abs(a) > 0.1: a = a * 0.5`.
    #[differentiable(order = 2)]
    pub fn while_big(mut a: f64) -> f64 {
        while a.abs() > 0.1 {
            a *= 0.5;
        }
        a * a.exp()
    }

    // `cart2polar(a, b)`: `r, theta` as a tuple, `arctan2` as the original's comment asks.
    #[differentiable]
    pub fn cart2polar(a: f64, b: f64) -> (f64, f64) {
        let r = (a.powf(2.0) + b.powf(2.0)).sqrt();
        let theta = b.atan2(a);
        (r, theta)
    }

    // `multiarg_if` as an `if` expression and an `else if` chain.
    #[differentiable(order = 2)]
    pub fn multiarg_if(a: f64) -> f64 {
        let b = if a * a / 3.0 > 0.0 { 3.0 } else { 4.0 };
        let a = a * b;
        if a < b - a * b {
            a * a
        } else if a > b + 3.0 * a {
            if a / 2.0 < 0.0 {
                a / b
            } else {
                a * b
            }
        } else {
            -a
        }
    }

    // `numpy_sqrt` as an `if` expression; `gradgrad_pow` as an early `return`.
    #[differentiable(order = 2)]
    pub fn sqrt_pow(a: f64, b: f64) -> f64 {
        let r = if a >= 0.0 { a.sqrt() } else { (-a).sqrt() };
        if a >= 0.0 {
            return r * a.powf(b);
        }
        r * (-a).powf(b)
    }

    // `logistic_regression(input, label, W, b)` with `label` 0 or 1, as iterator chains.
    #[differentiable(order = 2)]
    pub fn logistic_regression(input: &[f64], label: f64, w: &[f64], b: f64) -> f64 {
        let h1 = input.iter().zip(w).map(|(x, wi)| x * wi).sum::<f64>() + b;
        let prediction = 0.5 * (h1.tanh() + 1.0);
        let p = prediction * label + (1.0 - prediction) * (1.0 - label);
        -p.ln()
    }

    // `stack_pushing`: the value pushed on a stack and popped back before it is used.
    #[differentiable(order = 2)]
    pub fn stack_pushing(a: f64) -> f64 {
        let mut stack = vec![0.0; 1];
        let y = a * a;
        stack[0] = a;
        let aa = stack[0];
        let z = y * aa;
        z * aa
    }
}

/// JAX `tests/api_test.py`, `tests/lax_autodiff_test.py` and `tests/custom_api_test.py`.
pub mod jax {
    use autodiff::{custom_gradient, differentiable};

    // api_test.py `test_hessian`: `f = lambda x: dot(x, dot(A, x))`, whose Hessian is `A + Aᵀ`.
    #[differentiable(order = 2, wrt(x))]
    pub fn quadratic(a: &[Vec<f64>], x: &[f64]) -> f64 {
        let ax: Vec<f64> = a
            .iter()
            .map(|row| row.iter().zip(x).map(|(r, v)| r * v).sum())
            .collect();
        x.iter().zip(&ax).map(|(v, w)| v * w).sum()
    }

    // api_test.py `test_grad_argnums`-style `f(x, y, z, flag)`, the flag choosing a branch.
    #[differentiable(order = 2)]
    pub fn argnums(x: f64, y: f64, z: f64, flag: bool) -> f64 {
        if flag {
            1.0 * x + 2.0 * y * y + 3.0 * z * x
        } else {
            x * y * z
        }
    }

    // lax_autodiff_test.py `testOpGrad` for the element-wise ops without a plain NumPy twin.
    #[differentiable(order = 2)]
    pub fn lax_unary(x: f64, which: u8) -> f64 {
        match which {
            0 => x.exp_m1(),
            1 => x.ln_1p(),
            2 => 1.0 / (1.0 + (-x).exp()), // logistic
            3 => x.cbrt(),
            4 => x.asinh(),
            5 => x.acosh(),
            6 => x.atanh(),
            7 => x.recip(),
            8 => x * x,      // square
            9 => x.powi(-3), // integer_pow
            10 => x.exp2(),
            11 => x.log2() + x.log10(),
            _ => x.abs() * x.signum() * x.sin(),
        }
    }

    // `testOpGrad` of the binary ops: `atan2`, `pow`, `rem`, `nextafter`-free `max`/`min`, `hypot`.
    #[differentiable(order = 2)]
    pub fn lax_binary(x: f64, y: f64) -> f64 {
        x.atan2(y) + x.abs().powf(y) + x % y + x.hypot(y) + x.max(y) * x.min(y)
    }

    // `testCumulativeReduceGrad` for `cumprod` and `cumsum`: the running products and sums, weighted.
    #[differentiable(order = 2)]
    pub fn cumprod_cumsum(x: &[f64]) -> f64 {
        let mut prod = 1.0;
        let mut sum = 0.0;
        let mut total = 0.0;
        for (i, &v) in x.iter().enumerate() {
            prod *= v;
            sum += v;
            total += (i + 1) as f64 * prod + sum * sum;
        }
        total
    }

    // `testReduceGrad` of `reduce_prod` at inputs with a zero: the product by a fold, whose
    // derivative is the product of the others (no division).
    #[differentiable(order = 2)]
    pub fn reduce_prod(x: &[f64]) -> f64 {
        x.iter().fold(1.0, |acc, v| acc * v)
    }

    // `testClampGrad` and `testSelectGrad` (`select_n` on a predicate) over a slice.
    #[differentiable(order = 2)]
    pub fn clamp_select(x: &[f64], lo: f64, hi: f64) -> f64 {
        let mut s = 0.0;
        for &v in x {
            let c = v.clamp(lo, hi);
            s += if v > 0.0 { c * v } else { c.exp() };
        }
        s
    }

    // `testScatterAddGrad` then `testGatherGrad`: `y = zeros(4).at[idx].add(x)`, then `y[perm]` weighted.
    #[differentiable(order = 2)]
    pub fn scatter_gather(x: &[f64], idx: &[usize], perm: &[usize]) -> f64 {
        let mut y = vec![0.0; 4];
        for (k, &i) in idx.iter().enumerate() {
            y[i] += x[k];
        }
        let mut s = 0.0;
        for (k, &p) in perm.iter().enumerate() {
            s += (k + 1) as f64 * y[p] * y[p];
        }
        s
    }

    // `testArgMax` (no gradient through the index) used to pick an element: `x[argmax(x)] * sum(x)`.
    #[differentiable(order = 2)]
    pub fn argmax_pick(x: &[f64]) -> f64 {
        let mut best = 0;
        for i in 1..x.len() {
            if x[i] > x[best] {
                best = i;
            }
        }
        x[best] * x.iter().sum::<f64>()
    }

    // custom_api_test.py `CustomJVPTest.test_basic`: `f = sin` with the rule `2 cos(x) g` (twice
    // the true derivative, on purpose); at second order `jax.hessian` gives `-2 sin(x)`.
    #[custom_gradient]
    pub fn sin_doubled(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let c = x.cos();
        (x.sin(), move |g| 2.0 * c * g)
    }

    #[differentiable(order = 2)]
    pub fn uses_sin_doubled(x: f64) -> f64 {
        sin_doubled(x) * 3.0
    }

    // `test_python_control_flow`: `sin` above 0, `cos` below, and the rule `2 g` or `3 g` by the same
    // test; `jax.hessian` gives 0.
    #[custom_gradient]
    pub fn branchy(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let y = if x > 0.0 { x.sin() } else { x.cos() };
        (y, move |g| if x > 0.0 { 2.0 * g } else { 3.0 * g })
    }

    #[differentiable(order = 2)]
    pub fn uses_branchy(x: f64) -> f64 {
        branchy(x) + branchy(2.0 * x)
    }

    // `CustomVJPTest` `clip_gradient(lo, hi, x)`: the identity, its cotangent clipped to `[lo, hi]`.
    #[custom_gradient]
    pub fn clip_gradient(lo: f64, hi: f64, x: f64) -> (f64, impl Fn(f64) -> (f64, f64, f64)) {
        (x, move |g| (0.0, 0.0, g.clamp(lo, hi)))
    }

    #[differentiable(order = 2, wrt(x))]
    pub fn uses_clip(x: f64, scale: f64) -> f64 {
        let y = clip_gradient(-0.5, 0.5, x);
        scale * y.sin()
    }

    // `test_multiple_rule_invocations`: `expit` with its custom rule `ans (1 - ans) t`, applied to the
    // first carry of a scan `c = [expit(c[0])] + [c[i-1] + c[i] ...]` run three times; the last summed.
    #[custom_gradient]
    pub fn expit(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let ans = 1.0 / (1.0 + (-x).exp());
        (ans, move |g| ans * (1.0 - ans) * g)
    }

    #[differentiable(order = 2)]
    pub fn expit_scan(x: &[f64]) -> f64 {
        let mut c = x.to_vec();
        for _ in 0..3 {
            let mut next = vec![0.0; c.len()];
            next[0] = expit(c[0]);
            for i in 1..c.len() {
                next[i] = c[i - 1] + c[i];
            }
            c = next;
        }
        c[c.len() - 1]
    }

    // `test_hard_stuff3`: `relu` with the rule `select(x > 0, t, 0)`, in the same scan.
    #[custom_gradient]
    pub fn relu(x: f64) -> (f64, impl Fn(f64) -> f64) {
        (x.max(0.0), move |g| if x > 0.0 { g } else { 0.0 })
    }

    #[differentiable(order = 2)]
    pub fn relu_scan(x: &[f64]) -> f64 {
        let mut c = x.to_vec();
        for _ in 0..3 {
            let mut next = vec![0.0; c.len()];
            next[0] = relu(c[0]);
            for i in 1..c.len() {
                next[i] = c[i - 1] + c[i];
            }
            c = next;
        }
        c[c.len() - 1] * c[0]
    }

    // `test_custom_jvps_first_rule_is_none`: `f(x, y) = x² y` with its rule written out (both
    // cotangents), used twice.
    #[custom_gradient]
    pub fn x2y(x: f64, y: f64) -> (f64, impl Fn(f64) -> (f64, f64)) {
        (x * x * y, move |g| (2.0 * x * y * g, x * x * g))
    }

    #[differentiable(order = 2)]
    pub fn uses_x2y(x: f64, y: f64) -> f64 {
        x2y(x, y) + x2y(y, x).sin()
    }
}

/// The minimal programs of what this probe found failing.
pub mod found {
    use autodiff::differentiable;

    // google/tangent's `init_array_grad_maybe_active` as a user writes it: a row of a `Vec` of arrays
    // assigned whole. The generated code did not compile (a row stored as one float of the flat array).
    #[differentiable(order = 2)]
    pub fn rows_of_arrays(x: &[f64]) -> f64 {
        let mut h = vec![[0.0; 3]; x.len()];
        for t in 0..h.len() {
            h[t] = [x[t], x[t] * x[t], 1.0];
        }
        h.iter().map(|row| row[0] * row[1] + row[2]).sum()
    }

    // tangent's `rnn`: a row computed into a local `Vec` and assigned whole to a `Vec<Vec<f64>>`.
    #[differentiable(order = 2)]
    pub fn rows_of_vecs(inputs: &[Vec<f64>], w: &[Vec<f64>]) -> f64 {
        let mut h = vec![vec![0.0; 3]; 4];
        for t in 0..3 {
            let mut next = h[t].clone();
            for j in 0..3 {
                next[j] += inputs[t]
                    .iter()
                    .zip(w)
                    .map(|(x, row)| x * row[j])
                    .sum::<f64>();
            }
            h[t + 1] = next;
        }
        h[1..].iter().map(|row| row.iter().sum::<f64>()).sum()
    }

    // A row of a three-deep nested array, and a row of an array matrix, assigned whole; the index
    // evaluated once, after the value.
    #[differentiable(order = 2)]
    pub fn nested_row(x: f64, y: f64) -> f64 {
        let mut c = [[[0.0; 2]; 2]; 2];
        let mut m = [[1.0; 2]; 3];
        let mut k = 0;
        c[1][0] = [x * y, x.sin()];
        m[2] = [y, x * x];
        k += 1;
        m[k] = m[2];
        c[1][0][1] * m[2][1] + m[1][0] * m[1][1] + c[0][1][0]
    }

    // `.swap(i, j)` of a local `Vec`, of an output parameter (whose incoming values are read), of an
    // array and of the rows of a matrix: an error ("not supported on a slice or `Vec`", "on a matrix")
    // before; a user's sort by swaps, a reversal in place, a pivoting step.
    #[differentiable(order = 2)]
    pub fn swaps(x: &[f64], out: &mut [f64]) -> f64 {
        let mut v = x.to_vec();
        for i in 1..v.len() {
            let mut j = i;
            while j > 0 && v[j - 1] > v[j] {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
        let n = out.len();
        for i in 0..n / 2 {
            out.swap(i, n - 1 - i);
        }
        let mut pair = [x[0], x[1] * x[1]];
        pair.swap(0, 1);
        let mut m = vec![vec![x[0], x[1]], vec![x[2] * x[2], 1.0]];
        m.swap(0, 1);
        let weighted: f64 = v.iter().enumerate().map(|(i, a)| (i + 1) as f64 * a).sum();
        weighted + out[0] * x[0] + pair[0] * m[0][0] + m[1][1]
    }

    // Rows of different lengths swapped: valid Rust, which the generated items refuse.
    #[differentiable]
    pub fn ragged_swap(x: &[f64]) -> f64 {
        let mut m = vec![vec![x[0]; 2], vec![x[1]; 3]];
        m.swap(0, 1);
        m[0][2] * m[1][1]
    }

    // A row of a `Vec<Vec<f64>>` replaced by one of another length: the function allows it, the
    // generated items (which keep the matrix flat) panic rather than write into the next row.
    #[differentiable(order = 2)]
    pub fn row_resized(x: &[f64], n: usize) -> f64 {
        let mut h = vec![vec![0.0; 2]; 2];
        h[0] = vec![x[0]; n];
        h[0].iter().sum::<f64>() * x[1] + h[1][0]
    }
}

/// PyTorch `test/test_autograd.py` (and `test/autograd/test_functional.py`): functions checked there
/// with `gradcheck`/`gradgradcheck`, `torch.autograd.functional.hessian`/`hvp`/`jacobian`, and a
/// custom `autograd.Function`.
pub mod torch {
    use autodiff::{custom_gradient, differentiable};
    use std::f64::consts::PI;

    // `test_hessian_vector`: `z = x**2 + y*x + y**2`, backward of the sum.
    #[differentiable(order = 2)]
    pub fn hessian_vector(x: &[f64], y: &[f64]) -> f64 {
        x.iter().zip(y).map(|(&a, &b)| a * a + b * a + b * b).sum()
    }

    // `test_sinc`: `sinc(x) = sin(πx)/(πx)`, 1 at 0.
    #[differentiable(order = 2)]
    pub fn sinc(x: f64) -> f64 {
        if x == 0.0 {
            1.0
        } else {
            (PI * x).sin() / (PI * x)
        }
    }

    // `test_xlogy` and `test_logaddexp`: `x log y` (0 at x = 0) and a stable `log(eᵃ + eᵇ)`.
    #[differentiable(order = 2)]
    pub fn xlogy_logaddexp(x: f64, y: f64) -> f64 {
        let xlogy = if x == 0.0 { 0.0 } else { x * y.ln() };
        let m = x.max(y);
        let lae = m + ((x - m).exp() + (y - m).exp()).ln();
        xlogy + lae
    }

    // `test_lerp`, `addcmul`, `addcdiv` element-wise over three slices, all active.
    #[differentiable(order = 2)]
    pub fn lerp_addc(a: &[f64], b: &[f64], w: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            let lerp = a[i] + w[i] * (b[i] - a[i]);
            let addcmul = a[i] + 0.5 * b[i] * w[i];
            let addcdiv = a[i] + 0.5 * b[i] / w[i];
            s += lerp * addcmul + addcdiv;
        }
        s
    }

    // `nn.functional` activations as gradcheck'd in `test_nn.py`/`test_autograd.py`, chosen by a
    // `match`: softplus with its threshold, elu, selu, silu, mish, tanh-gelu, hardswish.
    #[differentiable(order = 2)]
    pub fn activation(x: f64, which: usize) -> f64 {
        let (alpha, scale) = (1.673_263_242_354_377_3, 1.050_700_987_355_480_5);
        match which {
            0 => {
                let beta = 2.0;
                if beta * x > 20.0 {
                    x
                } else {
                    (1.0 + (beta * x).exp()).ln() / beta
                }
            }
            1 => {
                if x > 0.0 {
                    x
                } else {
                    x.exp() - 1.0
                }
            }
            2 => scale * if x > 0.0 { x } else { alpha * x.exp_m1() },
            3 => x / (1.0 + (-x).exp()),
            4 => x * x.exp().ln_1p().tanh(),
            5 => 0.5 * x * (1.0 + ((2.0 / PI).sqrt() * (x + 0.044715 * x.powi(3))).tanh()),
            _ => x * (x + 3.0).clamp(0.0, 6.0) / 6.0,
        }
    }

    // `torch.trapezoid(y, dx=dx)` over `windows(2)`, `dx` active too.
    #[differentiable(order = 2)]
    pub fn trapezoid(y: &[f64], dx: f64) -> f64 {
        y.windows(2).map(|w| (w[0] + w[1]) * dx / 2.0).sum()
    }

    // `test_cdist`: the distances between two sets of points in the plane, summed.
    #[differentiable(order = 2)]
    pub fn cdist(a: &[[f64; 2]], b: &[[f64; 2]]) -> f64 {
        let mut s = 0.0;
        for p in a {
            for q in b {
                s += ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt();
            }
        }
        s
    }

    // test_functional.py's reducers: `pow_reducer`, `add_pow_reducer`, `mul_reducer` and `bar`
    // (`(3 * a.narrow(0, 0, 3)).exp().sum()`), one by a `match`.
    #[differentiable(order = 2)]
    pub fn reducers(x: &[f64], y: &[f64], which: u8) -> f64 {
        match which {
            0 => x.iter().map(|v| v.powi(3)).sum(),
            1 => x.iter().zip(y).map(|(a, b)| (a + b).powi(3)).sum(),
            2 => x.iter().zip(y).map(|(a, b)| a * b).sum(),
            _ => x[..3].iter().map(|v| (3.0 * v).exp()).sum(),
        }
    }

    // test_functional.py `exp_reducer(x) = x.exp().sum(dim=1)` (a vector result, its jacobian).
    #[differentiable]
    pub fn exp_reducer(x: &[Vec<f64>]) -> Vec<f64> {
        x.iter()
            .map(|row| row.iter().map(|v| v.exp()).sum())
            .collect()
    }

    // test_functional.py `adder(x, y) = 2 x + 3 y` into a `Vec`.
    #[differentiable]
    pub fn adder(x: &[f64], y: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        for i in 0..x.len() {
            out[i] = 2.0 * x[i] + 3.0 * y[i];
        }
        out
    }

    // `test_custom_function`-style `autograd.Function`: `Exp` saving its result for backward; its
    // double backward runs through the saved value.
    #[custom_gradient]
    pub fn saved_exp(x: f64) -> (f64, impl Fn(f64) -> f64) {
        let result = x.exp();
        (result, move |g| g * result)
    }

    #[differentiable(order = 2)]
    pub fn uses_saved_exp(x: &[f64]) -> f64 {
        x.iter().map(|&v| saved_exp(v * v) * v).sum()
    }

    // `test_grad_nonleaf`: a few steps of gradient descent on `x²` inside the function, the step's
    // gradient written by hand (`2 x`), the result squared.
    #[differentiable(order = 2)]
    pub fn descent(mut x: f64, lr: f64) -> f64 {
        for _ in 0..5 {
            let g = 2.0 * x;
            x -= lr * g;
        }
        x * x
    }
}

// ---------------------------------------------------------------------------------------------------
// google/tangent
// ---------------------------------------------------------------------------------------------------

#[test]
fn found_matrix_rows_assigned_whole() {
    slice(
        "rows_of_arrays",
        found::rows_of_arrays,
        found::rows_of_arrays_grad,
        found::rows_of_arrays_jvp,
        found::rows_of_arrays_grad_into,
    )
    .hessian(hess_slice(found::rows_of_arrays_hessian))
    .analytic(|x| x.iter().map(|v| 3.0 * v * v).collect())
    .run(POINTS, range(4, -2.0, 2.0));
    let mut rng = Lcg::new(seed_of("rows_of_vecs"));
    for _ in 0..POINTS {
        let (inputs, w) = (
            to_rows(&rng.vec(9, -1.0, 1.0), 3),
            to_rows(&rng.vec(9, -1.0, 1.0), 3),
        );
        // Against the entry-by-entry `rnn`, whose gradient is checked against its formula below.
        let (v, (gi, gw)) = found::rows_of_vecs_grad(&inputs, &w);
        let (ve, (gie, gwe)) = tangent::rnn_grad(&inputs, &w);
        assert_near(v, ve, 1e-12, 1.0, "rows_of_vecs");
        assert_vec_near(&gi.concat(), &gie.concat(), 1e-12, "rows_of_vecs' inputs");
        assert_vec_near(&gw.concat(), &gwe.concat(), 1e-12, "rows_of_vecs' w");
    }
    Probe::new("rows_of_vecs", |x| {
        found::rows_of_vecs(&to_rows(&x[..9], 3), &to_rows(&x[9..], 3))
    })
    .grad(|x| {
        let (v, (gi, gw)) = found::rows_of_vecs_grad(&to_rows(&x[..9], 3), &to_rows(&x[9..], 3));
        (v, [gi.concat(), gw.concat()].concat())
    })
    .jvp(|x, d| {
        found::rows_of_vecs_jvp(
            &to_rows(&x[..9], 3),
            &to_rows(&x[9..], 3),
            (to_rows(&d[..9], 3), to_rows(&d[9..], 3)),
        )
    })
    .hessian(|x| {
        let (v, (gi, gw), h) =
            found::rows_of_vecs_hessian(&to_rows(&x[..9], 3), &to_rows(&x[9..], 3));
        (v, [gi.concat(), gw.concat()].concat(), h)
    })
    .run(POINTS, range(18, -1.0, 1.0));
    // c[1][0] = (xy, sin x), m[2] = (y, x²), m[1] = m[2]: f = sin(x) x² + y x².
    two(
        "nested_row",
        found::nested_row,
        found::nested_row_grad,
        found::nested_row_jvp,
        found::nested_row_grad_into,
    )
    .hessian(hess2(found::nested_row_hessian))
    .analytic(|v| {
        let (x, y) = (v[0], v[1]);
        vec![x.cos() * x * x + 2.0 * x * x.sin() + 2.0 * x * y, x * x]
    })
    .run(POINTS, range(2, -2.0, 2.0));
}

#[test]
fn found_swaps() {
    // f(x, out) = Σ (i + 1) sorted(x)_i + out_last x0 + x1² x2² + x1, `out` reversed.
    let f = |x: &[f64], out: &mut [f64]| found::swaps(x, out);
    check_read("swaps", 4, 3, &f, &|x, out, d_ret, d_out| {
        found::swaps_vjp(x, out, d_ret, d_out)
    });
    let mut rng = Lcg::new(seed_of("swaps"));
    for _ in 0..POINTS {
        let x = distinct(4, -2.0, 2.0, 1e-3)(&mut rng);
        let out0 = rng.vec(3, -1.0, 1.0);
        let mut out = out0.clone();
        let (v, (gx, gout)) = found::swaps_grad(&x, &mut out);
        let mut order: Vec<usize> = (0..4).collect();
        order.sort_by(|&a, &b| x[a].partial_cmp(&x[b]).unwrap());
        let mut e = vec![0.0; 4];
        for (rank, &i) in order.iter().enumerate() {
            e[i] += (rank + 1) as f64;
        }
        e[0] += out0[2];
        e[1] += 2.0 * x[1] * x[2] * x[2] + 1.0;
        e[2] += 2.0 * x[2] * x[1] * x[1];
        let sorted: f64 = order
            .iter()
            .enumerate()
            .map(|(r, &i)| (r + 1) as f64 * x[i])
            .sum();
        let value = sorted + out0[2] * x[0] + x[1] * x[1] * x[2] * x[2] + x[1];
        assert_near(v, value, 1e-12, 1.0, "swaps");
        assert_vec_near(&gx, &e, 1e-12, "swaps' x");
        assert_vec_near(&gout, &[0.0, 0.0, x[0]], 1e-15, "swaps' out");
        assert_eq!(out, vec![out0[2], out0[1], out0[0]]);
    }
}

#[test]
#[should_panic(expected = "rows of a matrix swapped with `.swap(i, j)` have the same length")]
fn found_rows_of_other_lengths_swapped_panic() {
    let _ = found::ragged_swap_grad(&[1.0, 2.0]);
}

#[test]
fn found_row_of_the_same_length() {
    let mut rng = Lcg::new(seed_of("row_resized"));
    for _ in 0..POINTS {
        let x = rng.vec(2, -2.0, 2.0);
        let (v, g) = found::row_resized_grad(&x, 2);
        assert_near(v, 2.0 * x[0] * x[1], 1e-15, 1.0, "row_resized");
        assert_vec_near(&g, &[2.0 * x[1], 2.0 * x[0]], 1e-15, "row_resized'");
        assert_vec_near(
            &g,
            &fd_gradient(&|y| found::row_resized(y, 2), &x),
            1e-7,
            "row_resized' fd",
        );
        let (_, _, h) = found::row_resized_hessian(&x, 2);
        assert_eq!(h, vec![vec![0.0, 2.0], vec![2.0, 0.0]]);
    }
}

#[test]
#[should_panic(expected = "a row of a matrix assigned whole keeps its length")]
fn found_row_of_another_length_panics() {
    assert_eq!(found::row_resized(&[1.0, 2.0], 3), 6.0);
    let _ = found::row_resized_grad(&[1.0, 2.0], 3);
}

#[test]
fn tangent_slices() {
    use tangent as t;
    slice(
        "cast_sum",
        t::cast_sum,
        t::cast_sum_grad,
        t::cast_sum_jvp,
        t::cast_sum_grad_into,
    )
    .hessian(hess_slice(t::cast_sum_hessian))
    .analytic(|x| {
        let s: f64 = x.iter().sum();
        (0..x.len())
            .map(|i| x[0] + if i == 0 { s } else { 0.0 })
            .collect()
    })
    .run(POINTS, range(4, -2.0, 2.0));
    slice(
        "implicit_indexing",
        t::implicit_indexing,
        t::implicit_indexing_grad,
        t::implicit_indexing_jvp,
        t::implicit_indexing_grad_into,
    )
    .hessian(hess_slice(t::implicit_indexing_hessian))
    .analytic(|x| x.iter().map(|v| 2.0 * v).collect())
    .run(POINTS, range(5, -2.0, 2.0));
    slice(
        "reduce_max",
        t::reduce_max,
        t::reduce_max_grad,
        t::reduce_max_jvp,
        t::reduce_max_grad_into,
    )
    .analytic(|x| {
        let (mut b, mut m) = (0, x[0]);
        for i in 1..x.len() {
            if x[i] > m {
                (b, m) = (i, x[i]);
            }
        }
        (0..x.len())
            .map(|i| if i == b { 2.0 * m } else { 0.0 })
            .collect()
    })
    .run(POINTS, distinct(5, -2.0, 2.0, 1e-3));
    slice(
        "reduce_mean",
        t::reduce_mean,
        t::reduce_mean_grad,
        t::reduce_mean_jvp,
        t::reduce_mean_grad_into,
    )
    .hessian(hess_slice(t::reduce_mean_hessian))
    .run(POINTS, range(4, -2.0, 2.0));
    slice(
        "every_other",
        t::every_other,
        t::every_other_grad,
        t::every_other_jvp,
        t::every_other_grad_into,
    )
    .hessian(hess_slice(t::every_other_hessian))
    .analytic(|x| {
        (0..x.len())
            .map(|i| if i % 2 == 0 { 2.0 * x[i] } else { 0.0 })
            .collect()
    })
    .run(POINTS, range(5, -2.0, 2.0));
    slice(
        "init_rows",
        t::init_rows,
        t::init_rows_grad,
        t::init_rows_jvp,
        t::init_rows_grad_into,
    )
    .hessian(hess_slice(t::init_rows_hessian))
    .analytic(|x| {
        let s: f64 = 3.0 * x.iter().sum::<f64>();
        (0..x.len())
            .map(|i| 3.0 * x[0] + if i == 0 { s } else { 0.0 })
            .collect()
    })
    .run(POINTS, range(4, -2.0, 2.0));
    slice(
        "f_straightline",
        t::f_straightline,
        t::f_straightline_grad,
        t::f_straightline_jvp,
        t::f_straightline_grad_into,
    )
    .hessian(hess_slice(t::f_straightline_hessian))
    .analytic(|x| x.iter().map(|v| 5.0 * v.powi(4)).collect())
    .run(POINTS, range(5, -2.0, 2.0));
    slice(
        "f_calltree",
        t::f_calltree,
        t::f_calltree_grad,
        t::f_calltree_jvp,
        t::f_calltree_grad_into,
    )
    .hessian(hess_slice(t::f_calltree_hessian))
    .analytic(|x| x.iter().map(|v| 5.0 * v.powi(4)).collect())
    .run(POINTS, range(5, -2.0, 2.0));
    slice(
        "trace_fn",
        t::trace_fn,
        t::trace_fn_grad,
        t::trace_fn_jvp,
        t::trace_fn_grad_into,
    )
    .hessian(hess_slice(t::trace_fn_hessian))
    .analytic(|x| x.iter().map(|v| 2.0 * v).collect())
    .run(POINTS, range(4, -2.0, 2.0));
    let mut rng = Lcg::new(seed_of("tangent_plain"));
    for _ in 0..POINTS {
        let x = rng.vec(4, -2.0, 2.0);
        assert_near(t::untraced(&x), t::trace_fn(&x), 1e-15, 1.0, "untraced");
        assert_near(
            t::calltree_plain(&x),
            t::f_calltree(&x),
            1e-12,
            1.0,
            "calltree",
        );
        // The `f_straightline` Hessian is diagonal, 20 x³.
        let (_, _, h) = t::f_straightline_hessian(&x);
        for i in 0..4 {
            for j in 0..4 {
                let e = if i == j { 20.0 * x[i].powi(3) } else { 0.0 };
                assert_near(h[i][j], e, 1e-12, 1.0, "f_straightline''");
            }
        }
    }
}

#[test]
fn tangent_subscript3_by_value() {
    // sum(x * y) with y = x², x[0] replaced by x1² x2²: x0 drops out.
    let f = |x: &[f64]| tangent::subscript3(x.to_vec());
    Probe::new("subscript3", f)
        .grad(|x| tangent::subscript3_grad(x.to_vec()))
        .jvp(|x, t| tangent::subscript3_jvp(x.to_vec(), t.to_vec()))
        .hessian(|x| tangent::subscript3_hessian(x.to_vec()))
        .analytic(|x| {
            let (a, b) = (x[1] * x[1], x[2] * x[2]);
            // (x1² x2²) x0² + x1³ + x2³ + ...
            let mut g: Vec<f64> = x.iter().map(|v| 3.0 * v * v).collect();
            g[0] = 2.0 * x[0] * a * b;
            g[1] = 2.0 * x[1] * b * x[0] * x[0] + 3.0 * x[1] * x[1];
            g[2] = 2.0 * x[2] * a * x[0] * x[0] + 3.0 * x[2] * x[2];
            g
        })
        .run(POINTS, range(4, -1.5, 1.5));
}

#[test]
fn tangent_scalars() {
    use tangent as t;
    for which in 0..13u8 {
        let name = format!("numpy_unary {which}");
        let (lo, hi) = match which {
            7..=9 => (-0.9, 0.9),
            11 | 12 => (0.2, 3.0),
            _ => (-1.2, 1.2),
        };
        Probe::new(&name, move |x| t::numpy_unary(x[0], which))
            .grad(move |x| {
                let (v, g) = t::numpy_unary_grad(x[0], which);
                (v, vec![g])
            })
            .jvp(move |x, d| t::numpy_unary_jvp(x[0], which, d[0]))
            .hessian(move |x| {
                let (v, g, h) = t::numpy_unary_hessian(x[0], which);
                (v, vec![g], h)
            })
            .run(POINTS, range(1, lo, hi));
    }
    one(
        "insert_grad_of",
        t::insert_grad_of,
        t::insert_grad_of_grad,
        t::insert_grad_of_jvp,
        t::insert_grad_of_grad_into,
    )
    .hessian(hess1(
        t::insert_grad_of_hessian,
        t::insert_grad_of_derivatives,
    ))
    .no_fd()
    .no_hessian_fd()
    .analytic(|x| vec![0.9 * 3.0 * x[0] * x[0]])
    .run(POINTS, range(1, -2.0, 2.0));
    let mut rng = Lcg::new(seed_of("insert_grad_of''"));
    for _ in 0..POINTS {
        let a = rng.uniform(-2.0, 2.0);
        // jax.hessian of a custom_vjp: the Jacobian of the gradient 0.9 * 3 a², 5.4 a.
        assert_near(
            t::insert_grad_of_derivatives(a)[2],
            5.4 * a,
            1e-12,
            1.0,
            "insert_grad_of''",
        );
    }
    one(
        "while_big",
        t::while_big,
        t::while_big_grad,
        t::while_big_jvp,
        t::while_big_grad_into,
    )
    .hessian(hess1(t::while_big_hessian, t::while_big_derivatives))
    .run(POINTS, away_from(1, -5.0, 5.0, 0.1, 0.0));
    one(
        "multiarg_if",
        t::multiarg_if,
        t::multiarg_if_grad,
        t::multiarg_if_jvp,
        t::multiarg_if_grad_into,
    )
    .hessian(hess1(t::multiarg_if_hessian, t::multiarg_if_derivatives))
    .run(POINTS, away_from(1, -3.0, 3.0, 0.75, 0.0));
    one(
        "stack_pushing",
        t::stack_pushing,
        t::stack_pushing_grad,
        t::stack_pushing_jvp,
        t::stack_pushing_grad_into,
    )
    .hessian(hess1(
        t::stack_pushing_hessian,
        t::stack_pushing_derivatives,
    ))
    .analytic(|x| vec![4.0 * x[0].powi(3)])
    .run(POINTS, range(1, -2.0, 2.0));
    two(
        "sqrt_pow",
        t::sqrt_pow,
        t::sqrt_pow_grad,
        t::sqrt_pow_jvp,
        t::sqrt_pow_grad_into,
    )
    .hessian(hess2(t::sqrt_pow_hessian))
    .run(POINTS, |r| {
        let a = r.uniform(0.3, 2.0) * if r.unit() < 0.5 { -1.0 } else { 1.0 };
        vec![a, r.uniform(-1.5, 1.5)]
    });
    let mut rng = Lcg::new(seed_of("cart2polar"));
    for _ in 0..POINTS {
        let (a, b) = (rng.uniform(-2.0, 2.0), rng.uniform(0.2, 2.0));
        let (c0, c1) = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
        let r2 = a * a + b * b;
        let r = r2.sqrt();
        let (v, (ga, gb)) = t::cart2polar_vjp(a, b, (c0, c1));
        assert_eq!(v, t::cart2polar(a, b));
        assert_near(ga, c0 * a / r - c1 * b / r2, 1e-12, 1.0, "cart2polar_vjp a");
        assert_near(gb, c0 * b / r + c1 * a / r2, 1e-12, 1.0, "cart2polar_vjp b");
        let (_, (dr, dt)) = t::cart2polar_jvp(a, b, (c0, c1));
        assert_near(dr, (a * c0 + b * c1) / r, 1e-12, 1.0, "cart2polar_jvp r");
        assert_near(
            dt,
            (a * c1 - b * c0) / r2,
            1e-12,
            1.0,
            "cart2polar_jvp theta",
        );
        let fd_a = fd1(&|y| t::cart2polar(y, b).1, a, 1e-6);
        assert_near(
            ga - c0 * a / r,
            c1 * fd_a,
            1e-7,
            1.0,
            "cart2polar theta vs fd",
        );
    }
}

#[test]
fn tangent_structs_tuples_and_packs() {
    use tangent as t;
    let mut rng = Lcg::new(seed_of("tangent_packs"));
    for _ in 0..POINTS {
        let (a, b, c) = (
            rng.uniform(-2.0, 2.0),
            rng.uniform(-2.0, 2.0),
            rng.uniform(-2.0, 2.0),
        );
        let abc = t::Abc { a, b, c };
        let (v, g) = t::dict_saxpy_grad(&abc);
        assert_near(v, a * b + c, 1e-15, 1.0, "dict_saxpy");
        assert_eq!((g.a, g.b, g.c), (b, a, 1.0));
        let (_, _, h) = t::dict_saxpy_hessian(&abc);
        assert_eq!(
            h,
            vec![vec![0.0, 1.0, 0.0], vec![1.0, 0.0, 0.0], vec![0.0; 3]]
        );
        let (v, g) = t::dict_wrapper_grad((a, b, c));
        assert_near(v, a * b + c, 1e-15, 1.0, "dict_wrapper");
        assert_eq!(g, (b, a, 1.0));
        for i in 0..3 {
            let x = [a, b, c];
            let (v, g) = t::passthru_pack_grad(a, b, c, i);
            assert_near(v, x[i] * x[(i + 1) % 3], 1e-15, 1.0, "passthru_pack");
            let mut e = [0.0; 3];
            e[i] += x[(i + 1) % 3];
            e[(i + 1) % 3] += x[i];
            assert_eq!([g.0, g.1, g.2], e, "passthru_pack' {i}");
            let (_, _, h) = t::passthru_pack_hessian(a, b, c, i);
            assert_eq!(h[i][(i + 1) % 3], 1.0);
            assert_eq!(h[i][i], 0.0);
        }
    }
}

/// The flat view of `[[f64; N]; M]`.
fn to_array<const M: usize, const N: usize>(x: &[f64]) -> [[f64; N]; M] {
    let mut a = [[0.0; N]; M];
    for i in 0..M {
        for j in 0..N {
            a[i][j] = x[i * N + j];
        }
    }
    a
}

fn flatten<const M: usize, const N: usize>(a: &[[f64; N]; M]) -> Vec<f64> {
    a.iter().flatten().copied().collect()
}

fn to_rows(x: &[f64], n: usize) -> Vec<Vec<f64>> {
    x.chunks(n).map(|r| r.to_vec()).collect()
}

#[test]
fn tangent_matrices() {
    use tangent as t;
    // det: by cofactors and by elimination agree; the gradient of det is the cofactor matrix.
    Probe::new("det3", |x| t::det3(&to_array::<3, 3>(x)))
        .grad(|x| {
            let (v, g) = t::det3_grad(&to_array::<3, 3>(x));
            (v, flatten(&g))
        })
        .jvp(|x, d| t::det3_jvp(&to_array::<3, 3>(x), to_array::<3, 3>(d)))
        .hessian(|x| {
            let (v, g, h) = t::det3_hessian(&to_array::<3, 3>(x));
            (v, flatten(&g), h)
        })
        .analytic(|x| {
            let m = to_array::<3, 3>(x);
            let mut c = vec![0.0; 9];
            for i in 0..3 {
                for j in 0..3 {
                    let (r0, r1) = ((i + 1) % 3, (i + 2) % 3);
                    let (c0, c1) = ((j + 1) % 3, (j + 2) % 3);
                    c[i * 3 + j] = m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
                }
            }
            c
        })
        .run(POINTS, range(9, -2.0, 2.0));
    Probe::new("det_lu", |x| t::det_lu(&to_rows(x, 3)))
        .grad(|x| {
            let (v, g) = t::det_lu_grad(&to_rows(x, 3));
            (v, g.concat())
        })
        .jvp(|x, d| t::det_lu_jvp(&to_rows(x, 3), to_rows(d, 3)))
        .hessian(|x| {
            let (v, g, h) = t::det_lu_hessian(&to_rows(x, 3));
            (v, g.concat(), h)
        })
        .analytic(|x| flatten(&t::det3_grad(&to_array::<3, 3>(x)).1))
        .run(POINTS, range(9, -2.0, 2.0));
    let mut rng = Lcg::new(seed_of("det agree"));
    for _ in 0..POINTS {
        let x = rng.vec(9, -2.0, 2.0);
        assert_near(
            t::det_lu(&to_rows(&x, 3)),
            t::det3(&to_array::<3, 3>(&x)),
            1e-12,
            1.0,
            "det",
        );
    }
    for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
        let name = format!("matmul {ta} {tb}");
        Probe::new(&name, move |x| {
            t::matmul(&to_rows(&x[..4], 2), &to_rows(&x[4..], 2), ta, tb)
        })
        .grad(move |x| {
            let (v, (ga, gb)) = t::matmul_grad(&to_rows(&x[..4], 2), &to_rows(&x[4..], 2), ta, tb);
            (v, [ga.concat(), gb.concat()].concat())
        })
        .jvp(move |x, d| {
            t::matmul_jvp(
                &to_rows(&x[..4], 2),
                &to_rows(&x[4..], 2),
                ta,
                tb,
                (to_rows(&d[..4], 2), to_rows(&d[4..], 2)),
            )
        })
        .hessian(move |x| {
            let (v, (ga, gb), h) =
                t::matmul_hessian(&to_rows(&x[..4], 2), &to_rows(&x[4..], 2), ta, tb);
            (v, [ga.concat(), gb.concat()].concat(), h)
        })
        .run(POINTS, range(8, -2.0, 2.0));
    }
    Probe::new("conv2d_same", |x| {
        t::conv2d_same(&to_array::<4, 4>(&x[..16]), &to_array::<3, 3>(&x[16..]))
    })
    .grad(|x| {
        let (v, (gi, gk)) =
            t::conv2d_same_grad(&to_array::<4, 4>(&x[..16]), &to_array::<3, 3>(&x[16..]));
        (v, [flatten(&gi), flatten(&gk)].concat())
    })
    .jvp(|x, d| {
        t::conv2d_same_jvp(
            &to_array::<4, 4>(&x[..16]),
            &to_array::<3, 3>(&x[16..]),
            (to_array::<4, 4>(&d[..16]), to_array::<3, 3>(&d[16..])),
        )
    })
    .hessian(|x| {
        let (v, (gi, gk), h) =
            t::conv2d_same_hessian(&to_array::<4, 4>(&x[..16]), &to_array::<3, 3>(&x[16..]));
        (v, [flatten(&gi), flatten(&gk)].concat(), h)
    })
    .run(4, range(25, -1.0, 1.0));
    Probe::new("max_pool", |x| t::max_pool(&to_array::<4, 4>(x)))
        .grad(|x| {
            let (v, g) = t::max_pool_grad(&to_array::<4, 4>(x));
            (v, flatten(&g))
        })
        .jvp(|x, d| t::max_pool_jvp(&to_array::<4, 4>(x), to_array::<4, 4>(d)))
        .run(POINTS, distinct(16, -2.0, 2.0, 1e-3));
    Probe::new("avg_pool", |x| t::avg_pool(&to_array::<4, 4>(x)))
        .grad(|x| {
            let (v, g) = t::avg_pool_grad(&to_array::<4, 4>(x));
            (v, flatten(&g))
        })
        .jvp(|x, d| t::avg_pool_jvp(&to_array::<4, 4>(x), to_array::<4, 4>(d)))
        .hessian(|x| {
            let (v, g, h) = t::avg_pool_hessian(&to_array::<4, 4>(x));
            (v, flatten(&g), h)
        })
        .run(POINTS, range(16, -1.0, 1.0));
    // rnn: h[3] = sum_t inputs[t] W, h[1..] summed = sum_t (3 - t) inputs[t] W summed over columns.
    Probe::new("rnn", |x| {
        t::rnn(&to_rows(&x[..9], 3), &to_rows(&x[9..], 3))
    })
    .grad(|x| {
        let (v, (gi, gw)) = t::rnn_grad(&to_rows(&x[..9], 3), &to_rows(&x[9..], 3));
        (v, [gi.concat(), gw.concat()].concat())
    })
    .jvp(|x, d| {
        t::rnn_jvp(
            &to_rows(&x[..9], 3),
            &to_rows(&x[9..], 3),
            (to_rows(&d[..9], 3), to_rows(&d[9..], 3)),
        )
    })
    .hessian(|x| {
        let (v, (gi, gw), h) = t::rnn_hessian(&to_rows(&x[..9], 3), &to_rows(&x[9..], 3));
        (v, [gi.concat(), gw.concat()].concat(), h)
    })
    .analytic(|x| {
        let (inputs, w) = (to_rows(&x[..9], 3), to_rows(&x[9..], 3));
        let mut g = vec![0.0; 18];
        for t in 0..3 {
            let weight = (3 - t) as f64;
            for i in 0..3 {
                g[t * 3 + i] = weight * w[i].iter().sum::<f64>();
                for j in 0..3 {
                    g[9 + i * 3 + j] += weight * inputs[t][i];
                }
            }
        }
        g
    })
    .run(POINTS, range(18, -1.0, 1.0));
    Probe::new("bilinear", |x| {
        t::bilinear(
            &x[..2],
            &x[2..4],
            &to_rows(&x[4..10], 3),
            &to_rows(&x[10..16], 3),
            &x[16..],
        )
    })
    .grad(|x| {
        let (v, (gx, gh, gu, gw, gb)) = t::bilinear_grad(
            &x[..2],
            &x[2..4],
            &to_rows(&x[4..10], 3),
            &to_rows(&x[10..16], 3),
            &x[16..],
        );
        (v, [gx, gh, gu.concat(), gw.concat(), gb].concat())
    })
    .hessian(|x| {
        let (v, (gx, gh, gu, gw, gb), h) = t::bilinear_hessian(
            &x[..2],
            &x[2..4],
            &to_rows(&x[4..10], 3),
            &to_rows(&x[10..16], 3),
            &x[16..],
        );
        (v, [gx, gh, gu.concat(), gw.concat(), gb].concat(), h)
    })
    .run(4, range(19, -1.0, 1.0));
}

#[test]
fn tangent_vectors_of_two() {
    use tangent as t;
    Probe::new("maximum_sqdiff", |x| t::maximum_sqdiff(&x[..3], &x[3..]))
        .grad(|x| {
            let (v, (a, b)) = t::maximum_sqdiff_grad(&x[..3], &x[3..]);
            (v, [a, b].concat())
        })
        .jvp(|x, d| t::maximum_sqdiff_jvp(&x[..3], &x[3..], (d[..3].to_vec(), d[3..].to_vec())))
        .hessian(|x| {
            let (v, (a, b), h) = t::maximum_sqdiff_hessian(&x[..3], &x[3..]);
            (v, [a, b].concat(), h)
        })
        .run(POINTS, distinct(6, -2.0, 2.0, 1e-3));
    Probe::new("logistic_regression", |x| {
        t::logistic_regression(&x[..3], 1.0, &x[3..6], x[6])
            + t::logistic_regression(&x[..3], 0.0, &x[3..6], x[6])
    })
    .grad(|x| {
        let (v1, (gi1, gl1, gw1, gb1)) = t::logistic_regression_grad(&x[..3], 1.0, &x[3..6], x[6]);
        let (v0, (gi0, gl0, gw0, gb0)) = t::logistic_regression_grad(&x[..3], 0.0, &x[3..6], x[6]);
        // `label` is active too: its gradient exists, used below.
        let _ = (gl0, gl1);
        let g: Vec<f64> = gi1
            .iter()
            .zip(&gi0)
            .map(|(a, b)| a + b)
            .chain(gw1.iter().zip(&gw0).map(|(a, b)| a + b))
            .chain([gb1 + gb0])
            .collect();
        (v1 + v0, g)
    })
    .run(POINTS, range(7, -1.0, 1.0));
}

// ---------------------------------------------------------------------------------------------------
// JAX
// ---------------------------------------------------------------------------------------------------

#[test]
fn jax_hessian_of_quadratic_form() {
    let mut rng = Lcg::new(seed_of("jax_quadratic"));
    for _ in 0..POINTS {
        let a = to_rows(&rng.vec(16, -1.0, 1.0), 4);
        let x = rng.vec(4, -1.0, 1.0);
        let (_, g, h) = jax::quadratic_hessian(&a, &x);
        for i in 0..4 {
            let gi: f64 = (0..4).map(|j| (a[i][j] + a[j][i]) * x[j]).sum();
            assert_near(g[i], gi, 1e-12, 1.0, "x.Ax'");
            for j in 0..4 {
                assert_near(
                    h[i][j],
                    a[i][j] + a[j][i],
                    1e-12,
                    1.0,
                    "hessian(x.Ax) = A + At",
                );
            }
        }
        let fd = fd_gradient(&|y| jax::quadratic(&a, y), &x);
        assert_vec_near(&g, &fd, 1e-6, "x.Ax' vs fd");
        let t = rng.vec(4, -1.0, 1.0);
        let (_, d) = jax::quadratic_jvp(&a, &x, t.clone());
        assert_near(d, dot(&g, &t), 1e-12, 1.0, "x.Ax jvp");
    }
}

#[test]
fn jax_scalar_ops() {
    for flag in [false, true] {
        Probe::new("argnums", move |x| jax::argnums(x[0], x[1], x[2], flag))
            .grad(move |x| {
                let (v, g) = jax::argnums_grad(x[0], x[1], x[2], flag);
                (v, vec![g.0, g.1, g.2])
            })
            .jvp(move |x, t| jax::argnums_jvp(x[0], x[1], x[2], flag, (t[0], t[1], t[2])))
            .hessian(move |x| {
                let (v, g, h) = jax::argnums_hessian(x[0], x[1], x[2], flag);
                (v, vec![g.0, g.1, g.2], h)
            })
            .run(POINTS, range(3, -2.0, 2.0));
    }
    for which in 0..13u8 {
        let name = format!("lax_unary {which}");
        let (lo, hi) = match which {
            5 => (1.1, 3.0),
            6 => (-0.9, 0.9),
            11 => (0.2, 3.0),
            1 => (-0.5, 2.0),
            _ => (0.2, 2.0),
        };
        Probe::new(&name, move |x| jax::lax_unary(x[0], which))
            .grad(move |x| {
                let (v, g) = jax::lax_unary_grad(x[0], which);
                (v, vec![g])
            })
            .jvp(move |x, d| jax::lax_unary_jvp(x[0], which, d[0]))
            .hessian(move |x| {
                let (v, g, h) = jax::lax_unary_hessian(x[0], which);
                (v, vec![g], h)
            })
            .run(POINTS, move |r| {
                let v = r.uniform(lo, hi);
                // Both signs where the function is odd-defined.
                vec![
                    if matches!(which, 3 | 4 | 7 | 8 | 9 | 12) && r.unit() < 0.5 {
                        -v
                    } else {
                        v
                    },
                ]
            });
    }
    two(
        "lax_binary",
        jax::lax_binary,
        jax::lax_binary_grad,
        jax::lax_binary_jvp,
        jax::lax_binary_grad_into,
    )
    .hessian(hess2(jax::lax_binary_hessian))
    .run(POINTS, |r| loop {
        let (x, y) = (r.uniform(-2.0, 2.0), r.uniform(0.3, 2.0));
        let q = x / y;
        // Away from the jumps of `x % y`, the kink of |x| and the tie of max/min.
        if (q - q.trunc()).abs() > 0.02
            && (q - q.trunc()).abs() < 0.98
            && x.abs() > 0.05
            && (x - y).abs() > 0.05
        {
            break vec![x, y];
        }
    });
}

#[test]
fn jax_reductions() {
    use jax as j;
    slice(
        "cumprod_cumsum",
        j::cumprod_cumsum,
        j::cumprod_cumsum_grad,
        j::cumprod_cumsum_jvp,
        j::cumprod_cumsum_grad_into,
    )
    .hessian(hess_slice(j::cumprod_cumsum_hessian))
    .run(POINTS, range(5, -1.5, 1.5));
    slice(
        "reduce_prod",
        j::reduce_prod,
        j::reduce_prod_grad,
        j::reduce_prod_jvp,
        j::reduce_prod_grad_into,
    )
    .hessian(hess_slice(j::reduce_prod_hessian))
    .analytic(|x| {
        (0..x.len())
            .map(|i| (0..x.len()).filter(|&k| k != i).map(|k| x[k]).product())
            .collect()
    })
    .run(POINTS, |r| {
        let mut x = r.vec(4, -1.5, 1.5);
        // One or two zeros, as testReduceGrad's inputs have.
        let k = (r.unit() * 4.0) as usize;
        x[k] = 0.0;
        if r.unit() < 0.3 {
            x[(k + 1) % 4] = 0.0;
        }
        x
    });
    Probe::new("clamp_select", |x| j::clamp_select(&x[..4], -0.5, 0.7))
        .grad(|x| {
            let (v, (g, _, _)) = j::clamp_select_grad(&x[..4], -0.5, 0.7);
            (v, g)
        })
        .run(POINTS, away_from(4, -1.5, 1.5, 100.0, 0.0));
    let idx = [0usize, 2, 2, 3, 1];
    let perm = [3usize, 0, 2, 1, 2];
    Probe::new("scatter_gather", |x| j::scatter_gather(x, &idx, &perm))
        .grad(|x| j::scatter_gather_grad(x, &idx, &perm))
        .jvp(|x, t| j::scatter_gather_jvp(x, &idx, &perm, t.to_vec()))
        .hessian(|x| j::scatter_gather_hessian(x, &idx, &perm))
        .run(POINTS, range(5, -1.5, 1.5));
    slice(
        "argmax_pick",
        j::argmax_pick,
        j::argmax_pick_grad,
        j::argmax_pick_jvp,
        j::argmax_pick_grad_into,
    )
    .hessian(hess_slice(j::argmax_pick_hessian))
    .run(POINTS, distinct(4, -1.5, 1.5, 1e-3));
}

#[test]
fn jax_custom_rules() {
    use jax as j;
    let mut rng = Lcg::new(seed_of("jax_custom"));
    for _ in 0..POINTS {
        let x = rng.uniform(-2.0, 2.0);
        // test_basic: the rule's doubled cosine, and jax.hessian's -2 sin x, times 3.
        let (v, g) = j::uses_sin_doubled_grad(x);
        assert_near(v, 3.0 * x.sin(), 1e-15, 1.0, "sin_doubled");
        assert_near(g, 6.0 * x.cos(), 1e-12, 1.0, "sin_doubled'");
        let d = j::uses_sin_doubled_derivatives(x);
        assert_near(d[2], -6.0 * x.sin(), 1e-12, 1.0, "sin_doubled''");
        assert_near(
            d[2],
            fd1(&|y| j::uses_sin_doubled_grad(y).1, x, 1e-6),
            1e-6,
            1.0,
            "sin_doubled'' fd",
        );
        let (_, t) = j::uses_sin_doubled_jvp(x, 0.5);
        assert_near(t, 3.0 * x.cos(), 1e-12, 1.0, "sin_doubled jvp");
        // test_python_control_flow: 2 or 3 by the sign, at x and 2x; the Hessian is 0.
        if x.abs() > 1e-3 {
            let (_, g) = j::uses_branchy_grad(x);
            let e = if x > 0.0 { 2.0 + 4.0 } else { 3.0 + 6.0 };
            assert_near(g, e, 1e-15, 1.0, "branchy'");
            assert_eq!(j::uses_branchy_derivatives(x)[2], 0.0);
        }
        // clip_gradient: the cotangent scale cos(x) clipped to [-0.5, 0.5].
        let scale = rng.uniform(-2.0, 2.0);
        let (_, g) = j::uses_clip_grad(x, scale);
        assert_near(
            g,
            (scale * x.cos()).clamp(-0.5, 0.5),
            1e-15,
            1.0,
            "clip_gradient",
        );
        let h = j::uses_clip_hessian(x, scale).2[0][0];
        let inside = (scale * x.cos()).abs() < 0.5;
        assert_near(
            h,
            if inside { -scale * x.sin() } else { 0.0 },
            1e-12,
            1.0,
            "clip_gradient''",
        );
        // x² y: the rule is the true derivative, so central differences hold at both orders.
        let y = rng.uniform(-2.0, 2.0);
        let (_, (gx, gy)) = j::uses_x2y_grad(x, y);
        let c = (y * y * x).cos();
        assert_near(gx, 2.0 * x * y + c * y * y, 1e-12, 1.0, "x2y' x");
        assert_near(gy, x * x + c * 2.0 * y * x, 1e-12, 1.0, "x2y' y");
    }
    two(
        "uses_x2y",
        j::uses_x2y,
        j::uses_x2y_grad,
        j::uses_x2y_jvp,
        j::uses_x2y_grad_into,
    )
    .hessian(hess2(j::uses_x2y_hessian))
    .run(POINTS, range(2, -2.0, 2.0));
    // The expit rule is the true derivative: the scan checks against differences at both orders.
    slice(
        "expit_scan",
        j::expit_scan,
        j::expit_scan_grad,
        j::expit_scan_jvp,
        j::expit_scan_grad_into,
    )
    .hessian(hess_slice(j::expit_scan_hessian))
    .run(POINTS, range(4, -2.0, 2.0));
    slice(
        "relu_scan",
        j::relu_scan,
        j::relu_scan_grad,
        j::relu_scan_jvp,
        j::relu_scan_grad_into,
    )
    .hessian(hess_slice(j::relu_scan_hessian))
    .run(POINTS, away_from(4, -2.0, 2.0, 100.0, 0.0));
}

// ---------------------------------------------------------------------------------------------------
// PyTorch
// ---------------------------------------------------------------------------------------------------

#[test]
fn torch_elementwise() {
    use torch as p;
    Probe::new("hessian_vector", |x| p::hessian_vector(&x[..3], &x[3..]))
        .grad(|x| {
            let (v, (a, b)) = p::hessian_vector_grad(&x[..3], &x[3..]);
            (v, [a, b].concat())
        })
        .jvp(|x, d| p::hessian_vector_jvp(&x[..3], &x[3..], (d[..3].to_vec(), d[3..].to_vec())))
        .hessian(|x| {
            let (v, (a, b), h) = p::hessian_vector_hessian(&x[..3], &x[3..]);
            (v, [a, b].concat(), h)
        })
        .analytic(|x| {
            let gx = (0..3).map(|i| 2.0 * x[i] + x[3 + i]);
            let gy = (0..3).map(|i| x[i] + 2.0 * x[3 + i]);
            gx.chain(gy).collect()
        })
        .run(POINTS, range(6, -2.0, 2.0));
    // The test's point: grad_sum = 2 x.grad + y.grad = 5 x + 4 y, through `_hvp` along (2, 1).
    let x = [0.3, -1.2, 2.0];
    let y = [1.1, 0.4, -0.7];
    let (_, _, (hx, hy)) = p::hessian_vector_hvp(&x, &y, (vec![2.0; 3], vec![1.0; 3]));
    for i in 0..3 {
        assert_eq!(hx[i], 5.0);
        assert_eq!(hy[i], 4.0);
    }
    one(
        "sinc",
        p::sinc,
        p::sinc_grad,
        p::sinc_jvp,
        p::sinc_grad_into,
    )
    .hessian(hess1(p::sinc_hessian, p::sinc_derivatives))
    .analytic(|x| {
        let t = PI * x[0];
        vec![PI * (t * t.cos() - t.sin()) / (t * t)]
    })
    .run(POINTS, away_from(1, -2.0, 2.0, 100.0, 0.0));
    // At 0 the `if` gives 1 and derivative 0 (PyTorch's sinc' at 0 is 0 too).
    assert_eq!(p::sinc_grad(0.0), (1.0, 0.0));
    two(
        "xlogy_logaddexp",
        p::xlogy_logaddexp,
        p::xlogy_logaddexp_grad,
        p::xlogy_logaddexp_jvp,
        p::xlogy_logaddexp_grad_into,
    )
    .hessian(hess2(p::xlogy_logaddexp_hessian))
    .analytic(|v| {
        let (x, y) = (v[0], v[1]);
        let s = x.exp() + y.exp();
        vec![y.ln() + x.exp() / s, x / y + y.exp() / s]
    })
    .run(POINTS, |r| loop {
        let (x, y) = (r.uniform(-2.0, 2.0), r.uniform(0.2, 2.0));
        if (x - y).abs() > 1e-3 {
            break vec![x, y];
        }
    });
    Probe::new("lerp_addc", |x| p::lerp_addc(&x[..3], &x[3..6], &x[6..]))
        .grad(|x| {
            let (v, (a, b, w)) = p::lerp_addc_grad(&x[..3], &x[3..6], &x[6..]);
            (v, [a, b, w].concat())
        })
        .jvp(|x, d| {
            p::lerp_addc_jvp(
                &x[..3],
                &x[3..6],
                &x[6..],
                (d[..3].to_vec(), d[3..6].to_vec(), d[6..].to_vec()),
            )
        })
        .hessian(|x| {
            let (v, (a, b, w), h) = p::lerp_addc_hessian(&x[..3], &x[3..6], &x[6..]);
            (v, [a, b, w].concat(), h)
        })
        .run(POINTS, |r| {
            let mut x = r.vec(9, -2.0, 2.0);
            for w in &mut x[6..] {
                *w = w.signum() * (w.abs() + 0.3);
            }
            x
        });
    for which in 0..7usize {
        let name = format!("activation {which}");
        Probe::new(&name, move |x| p::activation(x[0], which))
            .grad(move |x| {
                let (v, g) = p::activation_grad(x[0], which);
                (v, vec![g])
            })
            .jvp(move |x, d| p::activation_jvp(x[0], which, d[0]))
            .hessian(move |x| {
                let (v, g, h) = p::activation_hessian(x[0], which);
                (v, vec![g], h)
            })
            // Away from the kinks at 0, -3, 3 and softplus's threshold at 10.
            .run(POINTS, away_from(1, -12.0, 12.0, 3.0, 0.0));
    }
}

#[test]
fn torch_reductions_and_layers() {
    use torch as p;
    Probe::new("trapezoid", |x| p::trapezoid(&x[..5], x[5]))
        .grad(|x| {
            let (v, (gy, gdx)) = p::trapezoid_grad(&x[..5], x[5]);
            (v, [gy, vec![gdx]].concat())
        })
        .jvp(|x, d| p::trapezoid_jvp(&x[..5], x[5], (d[..5].to_vec(), d[5])))
        .hessian(|x| {
            let (v, (gy, gdx), h) = p::trapezoid_hessian(&x[..5], x[5]);
            (v, [gy, vec![gdx]].concat(), h)
        })
        .analytic(|x| {
            let dx = x[5];
            let mut g: Vec<f64> = (0..5)
                .map(|i| if i == 0 || i == 4 { dx / 2.0 } else { dx })
                .collect();
            g.push((x[0] + x[4]) / 2.0 + x[1] + x[2] + x[3]);
            g
        })
        .run(POINTS, range(6, -2.0, 2.0));
    let points = |x: &[f64]| -> Vec<[f64; 2]> { x.chunks(2).map(|c| [c[0], c[1]]).collect() };
    let flat = |g: Vec<[f64; 2]>| -> Vec<f64> { g.concat() };
    Probe::new("cdist", move |x| {
        p::cdist(&points(&x[..6]), &points(&x[6..]))
    })
    .grad(move |x| {
        let (v, (ga, gb)) = p::cdist_grad(&points(&x[..6]), &points(&x[6..]));
        (v, [flat(ga), flat(gb)].concat())
    })
    .hessian(move |x| {
        let (v, (ga, gb), h) = p::cdist_hessian(&points(&x[..6]), &points(&x[6..]));
        (v, [flat(ga), flat(gb)].concat(), h)
    })
    .run(POINTS, range(10, -2.0, 2.0));
    for which in 0..4u8 {
        let name = format!("reducers {which}");
        Probe::new(&name, move |x| p::reducers(&x[..4], &x[4..], which))
            .grad(move |x| {
                let (v, (a, b)) = p::reducers_grad(&x[..4], &x[4..], which);
                (v, [a, b].concat())
            })
            .jvp(move |x, d| {
                p::reducers_jvp(&x[..4], &x[4..], which, (d[..4].to_vec(), d[4..].to_vec()))
            })
            .hessian(move |x| {
                let (v, (a, b), h) = p::reducers_hessian(&x[..4], &x[4..], which);
                (v, [a, b].concat(), h)
            })
            .run(POINTS, range(8, -1.0, 1.0));
    }
    // pow_reducer's Hessian is diag(6 x) (test_functional's check), bar's diag(9 e^{3x}) on the first three.
    let x = [0.5, -0.25, 1.0, 2.0];
    let (_, _, h) = p::reducers_hessian(&x, &x, 0);
    let (_, _, hb) = p::reducers_hessian(&x, &x, 3);
    for i in 0..4 {
        assert_near(h[i][i], 6.0 * x[i], 1e-15, 1.0, "pow_reducer''");
        let e = if i < 3 { 9.0 * (3.0 * x[i]).exp() } else { 0.0 };
        assert_near(hb[i][i], e, 1e-12, 1.0, "bar''");
    }
    check_vector(
        "exp_reducer",
        POINTS,
        range(6, -1.0, 1.0),
        &|x| p::exp_reducer(&to_rows(x, 3)),
        &|x, c| {
            let (v, g) = p::exp_reducer_vjp(&to_rows(x, 3), c.to_vec());
            (v, g.concat())
        },
        &|x, t| p::exp_reducer_jvp(&to_rows(x, 3), to_rows(t, 3)),
        Some(&|x| p::exp_reducer_jacobian(&to_rows(x, 3))),
    );
    check_vector(
        "adder",
        POINTS,
        range(6, -1.0, 1.0),
        &|x| p::adder(&x[..3], &x[3..]),
        &|x, c| {
            let (v, (a, b)) = p::adder_vjp(&x[..3], &x[3..], c.to_vec());
            (v, [a, b].concat())
        },
        &|x, t| p::adder_jvp(&x[..3], &x[3..], (t[..3].to_vec(), t[3..].to_vec())),
        Some(&|x| p::adder_jacobian(&x[..3], &x[3..])),
    );
}

#[test]
fn torch_custom_function_and_descent() {
    use torch as p;
    slice(
        "uses_saved_exp",
        p::uses_saved_exp,
        p::uses_saved_exp_grad,
        p::uses_saved_exp_jvp,
        p::uses_saved_exp_grad_into,
    )
    .hessian(hess_slice(p::uses_saved_exp_hessian))
    .analytic(|x| {
        x.iter()
            .map(|v| (v * v).exp() * (1.0 + 2.0 * v * v))
            .collect()
    })
    .run(POINTS, range(3, -1.2, 1.2));
    // x after five steps is (1 - 2 lr)^5 x.
    two(
        "descent",
        p::descent,
        p::descent_grad,
        p::descent_jvp,
        p::descent_grad_into,
    )
    .hessian(hess2(p::descent_hessian))
    .analytic(|v| {
        let (x, lr) = (v[0], v[1]);
        let k = 1.0 - 2.0 * lr;
        vec![2.0 * k.powi(10) * x, -20.0 * k.powi(9) * x * x]
    })
    .run(POINTS, range(2, -1.0, 1.0));
}
